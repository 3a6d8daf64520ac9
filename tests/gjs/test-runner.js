// test-runner.js - the agent runner through GObject introspection (gjs)
//
// Copyright 2026 The libagents authors
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// A two-agent handoff with a function tool written in JavaScript: the
// triage agent's scripted model calls the tool, then hands off to the
// worker, whose model answers. Checks the result, the hooks (runner and
// agent signals), the streamed events, and an approval interruption saved
// to JSON and resumed against freshly built agents.
//
// Run with `gjs -m`, with GI_TYPELIB_PATH and LD_LIBRARY_PATH pointing at
// the build's libagents/. Prints TAP.

import GLib from 'gi://GLib';
import Json from 'gi://Json';
import Agents from 'gi://Agents?version=1.0';
import System from 'system';

const CALL_TIMEOUT = 60; // seconds one async call may take

const Kind = Agents.RunItemKind;
const EventKind = Agents.StreamEventKind;

const TOOL_ARGUMENTS = '{"a": 2, "b": 3}';
const FINAL_TEXT = 'The sum is 5.';
const ADD_SCHEMA = JSON.stringify({
    type: 'object',
    properties: {a: {type: 'integer'}, b: {type: 'integer'}},
    required: ['a', 'b'],
    additionalProperties: false,
});

class Skip extends Error {}
class Todo extends Error {}

// Runs obj[method + '_async'](...args, cancellable, callback) to completion
// in a main loop of its own; returns what obj[method + '_finish'] returns
// (or throws its GLib.Error).
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

function check(condition, what) {
    if (!condition)
        throw new Error(what);
}

function checkEqual(got, expected, what) {
    const g = JSON.stringify(got), e = JSON.stringify(expected);
    if (g !== e)
        throw new Error(`${what}: expected ${e}, got ${g}`);
}

// A turn output: a Json.Array of the given item Json.Objects.
function items(...objects) {
    const array = new Json.Array();
    for (const object of objects)
        array.add_object_element(object);
    return array;
}

function textNode(text) {
    return Json.Node.alloc().init_string(text);
}

function listItems(model) {
    const out = [];
    for (let i = 0; i < model.get_n_items(); i++)
        out.push(model.get_item(i));
    return out;
}

// A triage agent with a JavaScript function tool `add` and a handoff to a
// worker agent; both share one scripted model.
class TwoAgents {
    constructor(needsApproval = false) {
        this.calls = []; // [ctx, arguments] of each run of the tool
        this.tool = Agents.FunctionTool.new('add', 'Adds two integers.',
            Json.from_string(ADD_SCHEMA).get_object(), (ctx, args) => {
                this.calls.push([ctx, args]);
                const {a, b} = JSON.parse(args);
                return String(a + b);
            });
        this.tool.set_needs_approval(needsApproval);
        this.model = Agents.ScriptedModel.new();
        this.worker = Agents.Agent.new('worker');
        this.worker.set_instructions('You report results.');
        this.worker.set_model(this.model);
        this.triage = Agents.Agent.new('triage');
        this.triage.set_instructions('You route work.');
        this.triage.set_model(this.model);
        this.triage.add_tool(this.tool);
        this.triage.add_handoff(this.worker);
    }

    // Queues the turns. gjs 1.74 passes the boxed elements of a JS array
    // given for a GPtrArray as NULL, so add_multiple_turn_outputs() cannot
    // be used from JS; set_next_output() per turn is the same thing.
    script(firstTurn = true) {
        const turns = [];
        if (firstTurn)
            turns.push(items(Agents.testing_function_tool_call('add', TOOL_ARGUMENTS, 'call_add')));
        turns.push(items(Agents.testing_handoff_tool_call(this.worker)));
        turns.push(items(Agents.testing_final_output_message(FINAL_TEXT)));
        for (const turn of turns)
            this.model.set_next_output(turn);
    }

    // The agent's name, after checking it is one of the public agents.
    nameOf(agent) {
        check(agent === this.triage || agent === this.worker,
            `${agent} is a public agent of this run`);
        return agent.get_name();
    }
}

const EXPECTED_ITEMS = [
    [Kind.TOOL_CALL, 'triage'],
    [Kind.TOOL_CALL_OUTPUT, 'triage'],
    [Kind.HANDOFF_CALL, 'triage'],
    [Kind.HANDOFF_OUTPUT, 'triage'],
    [Kind.MESSAGE_OUTPUT, 'worker'],
];

function checkHandoffItems(f, newItems) {
    checkEqual(newItems.map(i => [i.get_kind(), f.nameOf(i.get_agent())]),
        EXPECTED_ITEMS, 'new items [kind, agent]');
    const [callItem, outputItem, , handoffItem, message] = newItems;
    checkEqual(callItem.get_tool_name(), 'add', 'tool call name');
    checkEqual(callItem.get_call_id(), 'call_add', 'tool call id');
    checkEqual(outputItem.get_output().get_string(), '5', 'tool output');
    checkEqual(outputItem.get_raw_item().get_string_member('call_id'), 'call_add',
        'tool output call_id');
    check(handoffItem.get_source_agent() === f.triage, 'handoff source is triage');
    check(handoffItem.get_target_agent() === f.worker, 'handoff target is worker');
    checkEqual(message.get_text(), FINAL_TEXT, 'message text');
}

// ---- the run ---------------------------------------------------------------

function testHandoffRun() {
    const f = new TwoAgents();
    f.script();
    const runner = Agents.Runner.new();
    const result = call(runner, 'run', f.triage, textNode('add 2 and 3'), null, null, null);

    checkEqual(f.calls.map(c => c[1]), [TOOL_ARGUMENTS],
        "the JS tool ran once, with the model's arguments");
    check(f.calls[0][0] === result.get_context(), "the tool got the run's context");
    checkEqual(result.get_final_output().get_string(), FINAL_TEXT, 'final output');
    checkEqual(result.dup_final_output_text(), FINAL_TEXT, 'final output text');
    check(result.get_last_agent() === f.worker, 'last agent is the worker');
    checkHandoffItems(f, listItems(result.get_new_items()));
    checkEqual(result.get_raw_responses().get_n_items(), 3, 'raw responses');
    checkEqual(f.model.get_n_turn_outputs(), 0, 'every scripted turn was used');

    // The worker's model call saw the tool's output and the handoff.
    const request = f.model.get_last_turn_args();
    checkEqual(request.get_system_instructions(), 'You report results.',
        "the worker's instructions");
    const input = request.get_input();
    const outputs = [];
    for (let i = 0; i < input.get_length(); i++) {
        const item = input.get_object_element(i);
        if (item.get_string_member_with_default('type', '') === 'function_call_output')
            outputs.push(item.get_string_member('output'));
    }
    checkEqual(outputs[0], '5', 'the model saw the tool output');
    checkEqual(JSON.parse(outputs[1]), {assistant: 'worker'}, 'handoff output');
    checkEqual(result.to_input_list().get_length(), 1 + EXPECTED_ITEMS.length,
        'to_input_list: the input and the new items');
}

// ---- hooks -----------------------------------------------------------------

function testHooks() {
    const f = new TwoAgents();
    f.script();
    const runner = Agents.Runner.new();
    const events = [];
    const contexts = [];
    const record = (source, name, ctx, agent, ...details) => {
        contexts.push(ctx);
        events.push([`${source}:${name}`, f.nameOf(agent), ...details].join(' '));
    };

    runner.connect('agent-start', (_r, c, a) => record('run', 'agent-start', c, a));
    runner.connect('agent-end', (_r, c, a, out) =>
        record('run', 'agent-end', c, a, out.get_string()));
    runner.connect('llm-start', (_r, c, a, prompt, input) =>
        record('run', 'llm-start', c, a, prompt, String(input.get_length())));
    runner.connect('llm-end', (_r, c, a, response) =>
        record('run', 'llm-end', c, a, String(response.get_output().get_length())));
    runner.connect('tool-start', (_r, c, a, tool) =>
        record('run', 'tool-start', c, a, tool.get_name()));
    runner.connect('tool-end', (_r, c, a, tool, res) =>
        record('run', 'tool-end', c, a, tool.get_name(), res.get_string()));
    runner.connect('handoff', (_r, c, from, to) =>
        record('run', 'handoff', c, from, f.nameOf(to)));

    for (const agent of [f.triage, f.worker]) {
        agent.connect('start', (a, c) => record('agent', 'start', c, a));
        agent.connect('end', (a, c, out) => record('agent', 'end', c, a, out.get_string()));
        agent.connect('llm-start', (a, c, prompt) => record('agent', 'llm-start', c, a, prompt));
        agent.connect('llm-end', (a, c) => record('agent', 'llm-end', c, a));
        // Detailed by the tool's name.
        agent.connect('tool-start::add', (a, c, tool) =>
            record('agent', 'tool-start', c, a, tool.get_name()));
        agent.connect('tool-end::add', (a, c, tool, res) =>
            record('agent', 'tool-end', c, a, res.get_string()));
        agent.connect('handoff', (a, c, source) =>
            record('agent', 'handoff', c, a, f.nameOf(source)));
    }
    // A detail that never matches.
    f.triage.connect('tool-start::other', () => events.push('wrong detail'));

    const result = call(runner, 'run', f.triage, textNode('add 2 and 3'), null, null, null);
    checkEqual(result.get_final_output().get_string(), FINAL_TEXT, 'final output');
    checkEqual(events, [
        'run:agent-start triage',
        'agent:start triage',
        'run:llm-start triage You route work. 1',
        'agent:llm-start triage You route work.',
        'run:llm-end triage 1',
        'agent:llm-end triage',
        'run:tool-start triage add',
        'agent:tool-start triage add',
        'run:tool-end triage add 5',
        'agent:tool-end triage 5',
        'run:llm-start triage You route work. 3',
        'agent:llm-start triage You route work.',
        'run:llm-end triage 1',
        'agent:llm-end triage',
        'run:handoff triage worker',
        'agent:handoff worker triage',
        'run:agent-start worker',
        'agent:start worker',
        'run:llm-start worker You report results. 5',
        'agent:llm-start worker You report results.',
        'run:llm-end worker 1',
        'agent:llm-end worker',
        `run:agent-end worker ${FINAL_TEXT}`,
        `agent:end worker ${FINAL_TEXT}`,
    ], 'hooks in order');
    check(contexts.every(c => c === result.get_context()), "every hook got the run's context");
}

// ---- streaming -------------------------------------------------------------

function eventLabel(event) {
    switch (event.get_kind()) {
    case EventKind.RAW_RESPONSE:
        return 'raw';
    case EventKind.AGENT_UPDATED:
        return `agent_updated ${event.get_agent().get_name()}`;
    default:
        return event.get_name();
    }
}

// The events of the stream through the pull API, until its end.
function pullAll(streaming) {
    const events = [];
    for (;;) {
        const event = call(streaming, 'next_event');
        if (event === null)
            return events;
        events.push(event);
    }
}

function testStreamed() {
    const f = new TwoAgents();
    f.script();
    const runner = Agents.Runner.new();
    const streaming = runner.run_streamed(f.triage, textNode('add 2 and 3'), null, null, null);
    const signalled = [];
    streaming.connect('event', (_s, event) => signalled.push(event));
    check(streaming.get_current_agent() === f.triage, 'current agent at the start');

    const events = pullAll(streaming);
    const labels = [];
    for (const event of events) {
        const label = eventLabel(event);
        if (!(label === 'raw' && labels[labels.length - 1] === 'raw'))
            labels.push(label);
    }
    checkEqual(labels, [
        'agent_updated triage', 'raw', 'tool_called', 'tool_output',
        'raw', 'handoff_requested', 'handoff_occured',
        'agent_updated worker', 'raw', 'message_output_created',
    ], 'stream event names in order');
    const rawTypes = events.filter(e => e.get_kind() === EventKind.RAW_RESPONSE)
        .map(e => e.get_raw_event().get_string_member('type'));
    checkEqual(rawTypes[0], 'response.created', 'first raw event');
    checkEqual(rawTypes[rawTypes.length - 1], 'response.completed', 'last raw event');
    checkEqual(signalled.length, events.length, 'the signal saw every event');
    check(signalled.every((e, i) => e === events[i]),
        'the signal and the pull API give the same events');
    for (const event of events) {
        if (event.get_kind() !== EventKind.RUN_ITEM)
            continue;
        check(event.get_item().get_agent() === event.get_agent(),
            "a run item event names its item's agent");
        f.nameOf(event.get_agent());
    }

    check(call(streaming, 'wait'), 'wait returned false');
    check(streaming.get_is_complete(), 'complete');
    checkEqual(f.calls.map(c => c[1]), [TOOL_ARGUMENTS], 'the tool ran once');
    checkEqual(streaming.get_final_output().get_string(), FINAL_TEXT, 'final output');
    check(streaming.get_current_agent() === f.worker, 'current agent at the end');
    check(streaming.get_result().get_last_agent() === f.worker, 'last agent');
    checkHandoffItems(f, listItems(streaming.get_new_items()));
}

// ---- approval, saved state, resume -----------------------------------------

function testApprovalResume() {
    const first = new TwoAgents(true);
    first.model.set_next_output(items(
        Agents.testing_function_tool_call('add', TOOL_ARGUMENTS, 'call_add')));
    const runner = Agents.Runner.new();
    const result = call(runner, 'run', first.triage, textNode('add 2 and 3'), null, null, null);

    check(result.get_final_output() === null, 'no final output while interrupted');
    checkEqual(first.calls.length, 0, 'the tool did not run before approval');
    const interruptions = listItems(result.get_interruptions());
    checkEqual(interruptions.map(i => [i.get_kind(), i.get_tool_name(), i.get_call_id()]),
        [[Kind.TOOL_APPROVAL, 'add', 'call_add']], 'interruptions');
    check(interruptions[0].get_agent() === first.triage, 'interruption agent');

    const saved = result.to_state().to_json();
    const doc = JSON.parse(saved);
    checkEqual(doc['$schemaVersion'], '1.0', 'schema version');
    checkEqual(doc.current_agent.name, 'triage', 'saved current agent');

    // Another "process": fresh agents, tool and model, the saved JSON.
    const second = new TwoAgents(true);
    second.script(false);
    const state = Agents.RunState.new_from_json(second.triage, saved);
    check(state.get_current_agent() === second.triage, 'restored current agent');
    const pending = listItems(state.get_interruptions());
    checkEqual(pending.map(i => [i.get_kind(), i.get_tool_name()]),
        [[Kind.TOOL_APPROVAL, 'add']], 'restored interruptions');
    check(pending[0].get_agent() === second.triage, 'restored interruption agent');
    state.approve(pending[0], false);

    const resumed = call(runner, 'resume', second.triage, state, null, null);
    checkEqual(first.calls.length, 0, "the first process's tool never ran");
    checkEqual(second.calls.map(c => c[1]), [TOOL_ARGUMENTS],
        "the approved tool ran with the model's arguments");
    checkEqual(resumed.get_final_output().get_string(), FINAL_TEXT, 'final output');
    check(resumed.get_last_agent() === second.worker, 'last agent is the fresh worker');
    checkHandoffItems(second, listItems(resumed.get_new_items()));
    checkEqual(resumed.get_interruptions().get_n_items(), 0, 'no interruptions left');
}

const TESTS = [
    ['two-agent handoff with a JS function tool', testHandoffRun],
    ['runner and agent hooks fire in order with the public agents', testHooks],
    ['streamed run: event names in order', testStreamed],
    ['approval interruption, state to/from JSON, approve, resume', testApprovalResume],
];

function main() {
    print(`1..${TESTS.length}`);
    let failed = 0;
    TESTS.forEach(([name, test], index) => {
        const number = index + 1;
        try {
            test();
            print(`ok ${number} - ${name}`);
        } catch (e) {
            if (e instanceof Skip) {
                print(`ok ${number} - ${name} # SKIP ${e.message}`);
            } else if (e instanceof Todo) {
                print(`not ok ${number} - ${name} # TODO ${e.message}`);
            } else {
                failed++;
                print(`not ok ${number} - ${name}`);
                for (const line of `${e}\n${e.stack ?? ''}`.split('\n'))
                    print(`# ${line}`);
            }
        }
    });
    return failed ? 1 : 0;
}

System.exit(main());
