// sandbox-agent.js - a sandbox agent run from JavaScript, streamed, offline
//
// Copyright 2026 The libagents authors
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// A SandboxAgent with the filesystem and shell capabilities works in a
// confined unix_local sandbox made from a one-file manifest. Its model is
// scripted (it answers from a script, not the network): it creates a file
// with `apply_patch`, sorts it with `exec_command`, prints the result with
// `exec_command` and answers. The tools really run in the sandbox. The
// run is streamed: each event is printed as it comes, then the final
// output. The run's cleanup persists the workspace to a snapshot and
// deletes the sandbox; the snapshot goes to a temporary directory that
// the program removes at the end.
//
//   gjs -m examples/js/sandbox-agent.js
//
// From an uninstalled build directory `build`, point the loaders at it:
//
//   GI_TYPELIB_PATH=build/libagents LD_LIBRARY_PATH=build/libagents \
//   AGENTS_PLUGIN_PATH=build/plugins/unix-local gjs -m examples/js/sandbox-agent.js

import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import Json from 'gi://Json';
import Agents from 'gi://Agents?version=1.0';
import System from 'system';

// Turn the _async/_finish pairs we use into functions returning promises.
for (const op of ['next_event', 'wait'])
    Gio._promisify(Agents.RunResultStreaming.prototype, `${op}_async`, `${op}_finish`);

// One turn of the scripted model: the items a real model would send.
function turn(item) {
    const items = Json.Array.new();
    items.add_object_element(item);
    return items;
}

function call(name, args, callId) {
    return turn(Agents.testing_function_tool_call(name, JSON.stringify(args), callId));
}

// A call of the apply_patch custom tool: the patch is its raw input.
function patch(text, callId) {
    const item = {type: 'custom_tool_call', call_id: callId, name: 'apply_patch', input: text};
    return turn(Json.from_string(JSON.stringify(item)).get_object());
}

// A function call's JSON arguments, a custom tool call's input (quoted).
function callArguments(item) {
    const raw = item.get_raw_item();
    if (raw.has_member('arguments'))
        return raw.get_string_member('arguments');
    return JSON.stringify(raw.get_string_member('input'));
}

// Prints a stream event; token deltas (raw events) are skipped.
function printEvent(event) {
    const item = event.get_item();

    switch (event.get_kind()) {
    case Agents.StreamEventKind.AGENT_UPDATED:
        print(`[agent] ${event.get_agent().get_name()}`);
        break;
    case Agents.StreamEventKind.RUN_ITEM:
        if (item.get_kind() === Agents.RunItemKind.TOOL_CALL) {
            print(`[tool call] ${item.get_tool_name()} ${callArguments(item)}`);
        } else if (item.get_kind() === Agents.RunItemKind.TOOL_CALL_OUTPUT) {
            print('[tool output]');
            for (const line of item.get_output().get_string().replace(/\n$/, '').split('\n'))
                print(`    ${line}`);
        } else if (item.get_kind() === Agents.RunItemKind.MESSAGE_OUTPUT) {
            print(`[assistant] ${item.get_text()}`);
        }
        break;
    default:
        break;
    }
}

// The workspace the sandbox starts with.
const manifest = Agents.Manifest.new_from_data(JSON.stringify({
    entries: {
        'README.md': {type: 'file', content: 'Numbers go in numbers.txt.\n'},
    },
}), -1);

const model = Agents.ScriptedModel.new();
model.set_next_output(patch('*** Begin Patch\n*** Add File: numbers.txt\n+42\n+7\n+19\n' +
    '*** End Patch\n', 'call_patch'));
model.set_next_output(call('exec_command', {cmd: 'sort -n numbers.txt > sorted.txt && ls'},
    'call_sort'));
model.set_next_output(call('exec_command', {cmd: 'cat sorted.txt'}, 'call_read'));
model.set_next_output(turn(Agents.testing_final_output_message('Sorted: 7, 19, 42.')));

const agent = Agents.SandboxAgent.new('Sorter');
agent.set_instructions('You sort numbers in your sandbox.');
agent.set_model(model);
agent.set_default_manifest(manifest);
agent.set_capabilities([Agents.FilesystemCapability.new(), Agents.ShellCapability.new()]);

// The sandbox side of the run: the backend, found by name, and where the
// workspace snapshot goes when the run ends.
const snapshots = GLib.dir_make_tmp('sandbox-agent-snapshots-XXXXXX');
const sandbox = Agents.SandboxRunConfig.new();
sandbox.set_client(Agents.registry_new_sandbox_client('unix_local'));
sandbox.set_snapshot(Agents.LocalSnapshotSpec.new(snapshots));
const config = Agents.RunConfig.new();
config.set_sandbox(sandbox);

// Removes the snapshot directory and what the run left in it.
function removeTree(path) {
    const dir = Gio.File.new_for_path(path);
    const children = dir.enumerate_children('standard::name',
        Gio.FileQueryInfoFlags.NOFOLLOW_SYMLINKS, null);
    for (const info of children)
        dir.get_child(info.get_name()).delete(null);
    dir.delete(null);
}

async function main() {
    const question = Json.Node.new(Json.NodeType.VALUE);
    question.set_string('Sort 42 7 19.');
    const runner = Agents.Runner.new();
    const streaming = runner.run_streamed(agent, question, config, null, null);

    for (;;) {
        const event = await streaming.next_event_async(null);
        if (event === null) // the end of the stream
            break;
        printEvent(event);
    }
    await streaming.wait_async(null); // the run's end, its sandbox cleanup included
    print(`[final output] ${streaming.get_final_output().get_string()}`);
    return 0;
}

const loop = new GLib.MainLoop(null, false);
let status = 1;
main().then(s => {
    status = s;
}).catch(e => {
    printerr(`error: ${e.message}`);
}).finally(() => {
    removeTree(snapshots);
    loop.quit();
});
loop.run();
System.exit(status);
