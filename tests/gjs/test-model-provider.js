// test-model-provider.js - a model provider written in JavaScript (gjs)
//
// Copyright 2026 The libagents authors
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Implements AgentsModel in JavaScript, registers it as the model provider
// "reverse", finds it by name as an agent file would, and runs an agent on
// it. Prints TAP.

import GLib from 'gi://GLib';
import GObject from 'gi://GObject';
import Json from 'gi://Json';
import Agents from 'gi://Agents?version=1.0';
import System from 'system';

function call(obj, method, ...args) {
    const loop = new GLib.MainLoop(null, false);
    let result = null;
    obj[`${method}_async`](...args, null, (_source, res) => {
        result = res;
        loop.quit();
    });
    if (result === null)
        loop.run();
    return obj[`${method}_finish`](result);
}

function check(condition, what) {
    if (!condition)
        throw new Error(what);
}

const ReverseModel = GObject.registerClass({
    GTypeName: 'TestReverseModel',
    Implements: [Agents.Model],
    Properties: {
        'model-name': GObject.ParamSpec.string('model-name', null, null,
            GObject.ParamFlags.READWRITE, ''),
    },
}, class ReverseModel extends GObject.Object {
    vfunc_get_response(request, task) {
        const input = request.get_input();
        const last = input.get_object_element(input.get_length() - 1);
        const text = [...last.get_string_member('content')].reverse().join('');
        const output = Json.from_string(JSON.stringify([{
            type: 'message', role: 'assistant',
            content: [{type: 'output_text', text: `${text} (${this.model_name})`,
                annotations: []}],
        }])).get_array();
        Agents.model_return_response(task,
            Agents.ModelResponse.new(output, null, null));
    }
});

const tests = [
    function jsProvider() {
        Agents.registry_register(Agents.RegistryKind.MODEL_PROVIDER, 'reverse',
            ReverseModel.$gtype);
        const names = Agents.registry_list(Agents.RegistryKind.MODEL_PROVIDER);
        for (const name of ['openai', 'chat', 'reverse'])
            check(names.includes(name), `providers: ${names}`);
        const gtype = Agents.registry_lookup(
            Agents.RegistryKind.MODEL_PROVIDER, 'reverse');
        const model = GObject.Object.new_with_properties(gtype, ['model-name'], ['rev-1']);
        const agent = Agents.Agent.new('Mirror');
        agent.set_model(model);
        const runner = Agents.Runner.new();
        const result = call(runner, 'run', agent, Json.from_string('"abc"'),
            null, null, null);
        const output = result.get_final_output().get_string();
        check(output === 'cba (rev-1)', `final output: ${output}`);
    },
    function openaiTypes() {
        const provider = Agents.OpenAIProvider.new();
        provider.set_base_url('http://127.0.0.1:9/v1/');
        check(provider.get_base_url() === 'http://127.0.0.1:9/v1',
            `base url: ${provider.get_base_url()}`);
        provider.set_api_key('sk-js');
        check(provider.has_api_key(), 'the key is set');
        const model = Agents.OpenAIChatCompletionsModel.new('llama', provider);
        check(model.get_provider() === provider, 'the provider');
        check(model.get_model_name() === 'llama', 'the name');
    },
];

let failed = 0;
tests.forEach((test, i) => {
    try {
        test();
        print(`ok ${i + 1} - ${test.name}`);
    } catch (e) {
        failed++;
        print(`not ok ${i + 1} - ${test.name}`);
        for (const line of `${e}\n${e.stack}`.split('\n'))
            print(`# ${line}`);
    }
});
print(`1..${tests.length}`);
System.exit(failed ? 1 : 0);
