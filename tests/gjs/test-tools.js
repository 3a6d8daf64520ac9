// test-tools.js - custom tools and structured tool outputs from gjs
//
// Copyright 2026 The libagents authors
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// A custom (freeform) tool written in JavaScript answers a scripted
// custom_tool_call; a JavaScript function tool returns an image part.
// Checks the exact items the model sees on the next turn. Prints TAP.

import GLib from 'gi://GLib';
import Json from 'gi://Json';
import Agents from 'gi://Agents?version=1.0';
import System from 'system';

const CALL_TIMEOUT = 60;

function call(obj, method, ...args) {
    const loop = new GLib.MainLoop(null, false);
    let result = null;
    obj[`${method}_async`](...args, null, (_source, res) => {
        result = res;
        loop.quit();
    });
    if (result === null) {
        const timer = GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, CALL_TIMEOUT, () => {
            loop.quit();
            return GLib.SOURCE_REMOVE;
        });
        loop.run();
        if (result === null)
            throw new Error(`${method}_async did not complete in ${CALL_TIMEOUT} s`);
        GLib.source_remove(timer);
    }
    return obj[`${method}_finish`](result);
}

function checkEqual(got, expected, what) {
    const g = JSON.stringify(got), e = JSON.stringify(expected);
    if (g !== e)
        throw new Error(`${what}: expected ${e}, got ${g}`);
}

function items(...objects) {
    const array = new Json.Array();
    for (const object of objects)
        array.add_object_element(object);
    return array;
}

function jsonObject(value) {
    return Json.from_string(JSON.stringify(value)).get_object();
}

function seenInput(model) {
    const input = model.get_last_turn_args().get_input();
    const seen = [];
    for (let i = 0; i < input.get_length(); i++)
        seen.push(JSON.parse(Json.to_string(input.get_element(i), false)));
    return seen;
}

// gjs 1.74 cannot pass a JS array as a GPtrArray of boxed values, so the
// turns are queued one by one.
function script(model, ...turns) {
    for (const turn of turns)
        model.set_next_output(turn);
}

function run(agent) {
    return call(new Agents.Runner(), 'run', agent,
        Json.Node.alloc().init_string('go'), null, null, null);
}

function testCustomTool() {
    const inputs = [];
    const format = jsonObject({type: 'grammar', syntax: 'lark', definition: 'start: /.+/'});
    const tool = Agents.CustomTool.new('apply_patch', 'Edits files.', format, (_ctx, text) => {
        inputs.push(text);
        return `got ${text.length} chars`;
    });
    const model = Agents.ScriptedModel.new();
    const agent = Agents.Agent.new('editor');
    agent.set_model(model);
    agent.add_tool(tool);
    script(model,
        items(jsonObject({type: 'custom_tool_call', call_id: 'c1', name: 'apply_patch',
            input: 'raw\ntext', id: 'ctc_1'})),
        items(Agents.testing_final_output_message('done')));
    run(agent);
    checkEqual(inputs, ['raw\ntext'], 'the tool got the raw input');
    checkEqual(seenInput(model)[2],
        {type: 'custom_tool_call_output', call_id: 'c1', output: 'got 8 chars'},
        'custom_tool_call_output');
}

function testImageOutput() {
    const tool = Agents.FunctionTool.new_async('view_image', 'Shows an image.', null,
        (_ctx, _arguments, task) => {
            const output = Agents.ToolOutput.new_image('data:image/png;base64,iVBORw0KGgo=', 'low');
            Agents.Tool.return_parts(task, output);
        });
    const model = Agents.ScriptedModel.new();
    const agent = Agents.Agent.new('viewer');
    agent.set_model(model);
    agent.add_tool(tool);
    script(model,
        items(Agents.testing_function_tool_call('view_image', '{}', 'call_img')),
        items(Agents.testing_final_output_message('done')));
    run(agent);
    checkEqual(seenInput(model)[2],
        {call_id: 'call_img',
            output: [{type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=',
                detail: 'low'}],
            type: 'function_call_output'},
        'function_call_output with parts');
}

const TESTS = [
    ['custom tool', testCustomTool],
    ['image output', testImageOutput],
];

function main() {
    print(`1..${TESTS.length}`);
    let failed = 0;
    TESTS.forEach(([name, test], index) => {
        try {
            test();
            print(`ok ${index + 1} - ${name}`);
        } catch (e) {
            failed++;
            print(`not ok ${index + 1} - ${name}`);
            for (const line of `${e}\n${e.stack ?? ''}`.split('\n'))
                print(`# ${line}`);
        }
    });
    return failed ? 1 : 0;
}

System.exit(main());
