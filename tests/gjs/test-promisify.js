// test-promisify.js - the Promise-returning methods of bindings/gjs/promisify.js
//
// Copyright 2026 The libagents authors
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Awaits a run with a JavaScript tool, a failing run (the Promise rejects
// with the GLib.Error), a streamed run, a model response, a SQLite
// conversation session and a unix_local sandbox session (create, start,
// exec, write, read, ls, stop, delete). Prints TAP.

import GLib from 'gi://GLib';
import Json from 'gi://Json';
import Agents from 'gi://Agents?version=1.0';
import System from 'system';

import {PROMISIFIED} from '../../bindings/gjs/promisify.js';

const TEST_TIMEOUT = 60;

function check(condition, what) {
    if (!condition)
        throw new Error(what);
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

function textNode(text) {
    return Json.Node.alloc().init_string(text);
}

function scriptedAgent(name, ...turns) {
    const model = Agents.ScriptedModel.new();
    for (const turn of turns)
        model.set_next_output(turn);
    const agent = Agents.Agent.new(name);
    agent.set_model(model);
    return [agent, model];
}

function testWrapped() {
    let count = 0;
    for (const [type, operations] of Object.entries(PROMISIFIED)) {
        for (const op of operations) {
            const proto = Agents[type].prototype;
            check(typeof proto[`_original_${op}_async`] === 'function',
                `${type}.${op}_async is wrapped`);
            count++;
        }
    }
    check(count >= 10, `only ${count} methods wrapped`);
}

async function testRun() {
    const seen = [];
    const tool = Agents.FunctionTool.new('add', 'Adds two integers.', null, (_ctx, args) => {
        const {a, b} = JSON.parse(args);
        seen.push([a, b]);
        return `${a + b}`;
    });
    const [agent] = scriptedAgent('calc',
        items(Agents.testing_function_tool_call('add', '{"a": 2, "b": 40}', 'call_add')),
        items(Agents.testing_final_output_message('42')));
    agent.add_tool(tool);
    const promise = new Agents.Runner().run_async(agent, textNode('add'), null, null, null, null);
    check(promise instanceof Promise, 'run_async without a callback returns a Promise');
    const result = await promise;
    check(result instanceof Agents.RunResult, 'a RunResult');
    checkEqual(result.dup_final_output_text(), '42', 'final output');
    checkEqual(seen, [[2, 40]], 'the tool ran');
}

async function testRunRejects() {
    const call = Agents.testing_function_tool_call('again', '{}', 'c');
    const [agent] = scriptedAgent('loop', items(call), items(call), items(call));
    agent.add_tool(Agents.FunctionTool.new('again', 'Does nothing.', null, () => 'ok'));
    const config = new Agents.RunConfig();
    config.set_max_turns(2);
    let error = null;
    try {
        await new Agents.Runner().run_async(agent, textNode('go'), config, null, null, null);
    } catch (e) {
        error = e;
    }
    check(error instanceof GLib.Error, `rejected with a GLib.Error, not ${error}`);
    check(/turn/i.test(error.message), error.message);
}

async function testStreamed() {
    const [agent] = scriptedAgent('streamer',
        items(Agents.testing_final_output_message('streamed')));
    const streaming = new Agents.Runner().run_streamed(agent, textNode('go'), null, null, null);
    const kinds = [];
    for (;;) {
        // eslint-disable-next-line no-await-in-loop
        const event = await streaming.next_event_async(null);
        if (event === null)
            break;
        kinds.push(event.get_kind());
    }
    check(kinds.length > 0, 'events were streamed');
    check(await streaming.wait_async(null), 'wait_async resolved to true');
    checkEqual(streaming.get_final_output().get_string(), 'streamed', 'final output');
}

async function testModel() {
    const model = Agents.ScriptedModel.new();
    model.set_next_output(items(Agents.testing_final_output_message('hello')));
    const request = Agents.ModelRequest.new();
    request.set_input(items());
    const response = await model.get_response_async(request, null);
    const output = response.get_output();
    checkEqual(output.get_length(), 1, 'one output item');
    checkEqual(output.get_object_element(0).get_string_member('type'), 'message', 'a message');
}

async function testConversationSession() {
    const session = Agents.SqliteSession.new('promisify', null);
    const message = Json.from_string('{"role": "user", "content": "hi"}').get_object();
    await session.add_items_async(items(message), null);
    const stored = await session.get_items_async(0, null);
    checkEqual(stored.get_length(), 1, 'one stored item');
    checkEqual(stored.get_object_element(0).get_string_member('content'), 'hi', 'the item');
    const popped = await session.pop_item_async(null);
    checkEqual(popped.get_string_member('content'), 'hi', 'popped');
    await session.clear_async(null);
    checkEqual((await session.get_items_async(0, null)).get_length(), 0, 'cleared');
}

async function testSandbox() {
    const client = Agents.registry_new_sandbox_client('unix_local');
    const manifest = Agents.Manifest.new_from_data(JSON.stringify({
        entries: {'hello.txt': {type: 'file', content: 'Hello!\n'}},
    }), -1);
    const session = await client.create_async(manifest, null, null, null);
    try {
        await session.start_async(null);
        const result = await session.exec_async(['cat hello.txt'], 30, true, null, null);
        checkEqual(result.get_exit_code(), 0, 'exit code');
        checkEqual(result.dup_stdout_text(), 'Hello!\n', 'stdout');
        await session.write_bytes_async('out.txt', new GLib.Bytes(new TextEncoder().encode('written')),
            null, null);
        const bytes = await session.read_bytes_async('out.txt', null, null);
        checkEqual(new TextDecoder().decode(bytes.toArray()), 'written', 'read back');
        const entries = await session.ls_async('.', null);
        const names = [];
        for (let i = 0; i < entries.get_n_items(); i++)
            names.push(GLib.path_get_basename(entries.get_item(i).get_path()));
        names.sort();
        checkEqual(names, ['hello.txt', 'out.txt'], 'ls');
        await session.stop_async(null);
    } finally {
        await session.shutdown_async(null);
        await client.delete_async(session, null);
    }
}

const TESTS = [
    ['the pairs are wrapped', testWrapped],
    ['await Runner.run_async', testRun],
    ['a failed run rejects with GLib.Error', testRunRejects],
    ['await next_event_async and wait_async', testStreamed],
    ['await Model.get_response_async', testModel],
    ['await ConversationSession methods', testConversationSession],
    ['await SandboxClient and SandboxSession methods', testSandbox],
];

async function main() {
    print(`1..${TESTS.length}`);
    let failed = 0;
    for (const [index, [name, test]] of TESTS.entries()) {
        try {
            // eslint-disable-next-line no-await-in-loop
            await test();
            print(`ok ${index + 1} - ${name}`);
        } catch (e) {
            failed++;
            print(`not ok ${index + 1} - ${name}`);
            for (const line of `${e}\n${e.stack ?? ''}`.split('\n'))
                print(`# ${line}`);
        }
    }
    return failed ? 1 : 0;
}

const loop = new GLib.MainLoop(null, false);
let status = 1;
const timer = GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, TEST_TIMEOUT * TESTS.length, () => {
    print('# Bail out! the tests did not finish');
    loop.quit();
    return GLib.SOURCE_REMOVE;
});
main().then(s => {
    status = s;
    GLib.source_remove(timer);
}).catch(e => {
    print(`# Bail out! ${e}`);
}).finally(() => loop.quit());
loop.run();
System.exit(status);
