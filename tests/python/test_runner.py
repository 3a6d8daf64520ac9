#!/usr/bin/python3
# test_runner.py - the agent runner through GObject introspection (PyGObject)
#
# Copyright 2026 The libagents authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A two-agent handoff with a function tool written in Python: the triage
# agent's scripted model calls the tool, then hands off to the worker,
# whose model answers. Checks the result, the hooks (runner and agent
# signals), the streamed events, and an approval interruption saved to
# JSON and resumed against freshly built agents.
#
# Run with Debian's /usr/bin/python3 (a python3 earlier on PATH may not see
# PyGObject), with GI_TYPELIB_PATH and LD_LIBRARY_PATH pointing at the
# build's libagents/. Prints TAP.

import json
import sys
import traceback

import gi

gi.require_version("Agents", "1.0")
gi.require_version("Json", "1.0")
from gi.repository import Agents, GLib, Json  # noqa: E402

CALL_TIMEOUT = 60  # seconds one async call may take before the test fails

Kind = Agents.RunItemKind
EventKind = Agents.StreamEventKind

TOOL_ARGUMENTS = '{"a": 2, "b": 3}'
FINAL_TEXT = "The sum is 5."
ADD_SCHEMA = json.dumps({
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    "required": ["a", "b"],
    "additionalProperties": False,
})


class Timeout(Exception):
    pass


class Skip(Exception):
    """Raised by a test that cannot run; the message is the reason."""


class Todo(Exception):
    """Raised by a test that fails for a known, reported reason."""


def call(obj, method, *args):
    """Runs OBJ.METHOD_async(*ARGS, cancellable, callback) to completion in
    a main loop of its own and returns what METHOD_finish returns (or
    raises its GLib.Error)."""
    loop = GLib.MainLoop()
    results = []

    def done(_source, result):
        results.append(result)
        loop.quit()

    def expired():
        loop.quit()
        return GLib.SOURCE_REMOVE

    timer = GLib.timeout_add_seconds(CALL_TIMEOUT, expired)
    getattr(obj, method + "_async")(*args, None, done)
    if not results:
        loop.run()
    if not results:
        raise Timeout("%s_async did not complete in %d s" % (method, CALL_TIMEOUT))
    GLib.source_remove(timer)
    return getattr(obj, method + "_finish")(results[0])


def check(condition, what):
    if not condition:
        raise AssertionError(what)


def check_equal(got, expected, what):
    if got != expected:
        raise AssertionError("%s: expected %r, got %r" % (what, expected, got))


def items(*objects):
    """A turn output: a Json.Array of the given item Json.Objects."""
    array = Json.Array.new()
    for obj in objects:
        array.add_object_element(obj)
    return array


def text_node(text):
    node = Json.Node.new(Json.NodeType.VALUE)
    node.set_string(text)
    return node


def list_items(model):
    return [model.get_item(i) for i in range(model.get_n_items())]


class Agents2:
    """A triage agent with a Python function tool `add` and a handoff to a
    worker agent; both share one scripted model."""

    def __init__(self, needs_approval=False):
        self.calls = []  # (ctx, arguments) of each run of the tool
        self.tool = Agents.FunctionTool.new(
            "add", "Adds two integers.",
            Json.from_string(ADD_SCHEMA).get_object(), self.add)
        self.tool.set_needs_approval(needs_approval)
        self.model = Agents.ScriptedModel.new()
        self.worker = Agents.Agent.new("worker")
        self.worker.set_instructions("You report results.")
        self.worker.set_model(self.model)
        self.triage = Agents.Agent.new("triage")
        self.triage.set_instructions("You route work.")
        self.triage.set_model(self.model)
        self.triage.add_tool(self.tool)
        self.triage.add_handoff(self.worker)

    def add(self, ctx, arguments):
        self.calls.append((ctx, arguments))
        args = json.loads(arguments)
        return str(args["a"] + args["b"])

    def script(self, first_turn=True):
        turns = []
        if first_turn:
            turns.append(items(Agents.testing_function_tool_call("add", TOOL_ARGUMENTS,
                                                                 "call_add")))
        turns.append(items(Agents.testing_handoff_tool_call(self.worker)))
        turns.append(items(Agents.testing_final_output_message(FINAL_TEXT)))
        self.model.add_multiple_turn_outputs(turns)

    def name_of(self, agent):
        """The agent's name, after checking it is one of the public agents."""
        check(agent is self.triage or agent is self.worker,
              "%r is a public agent of this run" % agent)
        return agent.get_name()


EXPECTED_ITEMS = [
    (Kind.TOOL_CALL, "triage"),
    (Kind.TOOL_CALL_OUTPUT, "triage"),
    (Kind.HANDOFF_CALL, "triage"),
    (Kind.HANDOFF_OUTPUT, "triage"),
    (Kind.MESSAGE_OUTPUT, "worker"),
]


def check_handoff_items(fixture, new_items):
    check_equal([(i.get_kind(), fixture.name_of(i.get_agent())) for i in new_items],
                EXPECTED_ITEMS, "new items (kind, agent)")
    call_item, output_item, _, handoff_item, message = new_items
    check_equal(call_item.get_tool_name(), "add", "tool call name")
    check_equal(call_item.get_call_id(), "call_add", "tool call id")
    check_equal(output_item.get_output().get_string(), "5", "tool output")
    check_equal(output_item.get_raw_item().get_string_member("call_id"), "call_add",
                "tool output call_id")
    check(handoff_item.get_source_agent() is fixture.triage, "handoff source is triage")
    check(handoff_item.get_target_agent() is fixture.worker, "handoff target is worker")
    check_equal(message.get_text(), FINAL_TEXT, "message text")


# ---- the run --------------------------------------------------------------


def test_handoff_run():
    f = Agents2()
    f.script()
    runner = Agents.Runner.new()
    result = call(runner, "run", f.triage, text_node("add 2 and 3"), None, None, None)

    check_equal([args for _, args in f.calls], [TOOL_ARGUMENTS],
                "the Python tool ran once, with the model's arguments")
    check(f.calls[0][0] is result.get_context(), "the tool got the run's context")
    check_equal(result.get_final_output().get_string(), FINAL_TEXT, "final output")
    check_equal(result.dup_final_output_text(), FINAL_TEXT, "final output text")
    check(result.get_last_agent() is f.worker, "last agent is the worker")
    check_handoff_items(f, list_items(result.get_new_items()))
    check_equal(result.get_raw_responses().get_n_items(), 3, "raw responses")
    check_equal(f.model.get_n_turn_outputs(), 0, "every scripted turn was used")

    # The worker's model call saw the tool's output and the handoff.
    request = f.model.get_last_turn_args()
    check_equal(request.get_system_instructions(), "You report results.",
                "the worker's instructions")
    seen = [request.get_input().get_object_element(i)
            for i in range(request.get_input().get_length())]
    outputs = [i.get_string_member("output") for i in seen
               if i.get_string_member_with_default("type", "") == "function_call_output"]
    check_equal(outputs[0], "5", "the model saw the tool output")
    check_equal(json.loads(outputs[1]), {"assistant": "worker"}, "handoff output")
    check_equal(result.to_input_list().get_length(), 1 + len(EXPECTED_ITEMS),
                "to_input_list: the input and the new items")


# ---- hooks ---------------------------------------------------------------


def test_hooks():
    f = Agents2()
    f.script()
    runner = Agents.Runner.new()
    events = []
    contexts = []

    def record(source, name, ctx, agent, *details):
        contexts.append(ctx)
        events.append("%s:%s %s%s" % (source, name, f.name_of(agent),
                                      "".join(" " + d for d in details)))

    runner.connect("agent-start", lambda _r, c, a: record("run", "agent-start", c, a))
    runner.connect("agent-end",
                   lambda _r, c, a, out: record("run", "agent-end", c, a, out.get_string()))
    runner.connect("llm-start",
                   lambda _r, c, a, prompt, inp: record("run", "llm-start", c, a, prompt,
                                                        str(inp.get_length())))
    runner.connect("llm-end",
                   lambda _r, c, a, resp: record("run", "llm-end", c, a,
                                                 str(resp.get_output().get_length())))
    runner.connect("tool-start",
                   lambda _r, c, a, t: record("run", "tool-start", c, a, t.get_name()))
    runner.connect("tool-end",
                   lambda _r, c, a, t, res: record("run", "tool-end", c, a, t.get_name(),
                                                   res.get_string()))
    runner.connect("handoff",
                   lambda _r, c, src, dst: record("run", "handoff", c, src, f.name_of(dst)))

    for agent in (f.triage, f.worker):
        agent.connect("start", lambda a, c: record("agent", "start", c, a))
        agent.connect("end", lambda a, c, out: record("agent", "end", c, a, out.get_string()))
        agent.connect("llm-start",
                      lambda a, c, prompt, inp: record("agent", "llm-start", c, a, prompt))
        agent.connect("llm-end", lambda a, c, resp: record("agent", "llm-end", c, a))
        # Detailed by the tool's name.
        agent.connect("tool-start::add",
                      lambda a, c, t: record("agent", "tool-start", c, a, t.get_name()))
        agent.connect("tool-end::add",
                      lambda a, c, t, res: record("agent", "tool-end", c, a, res.get_string()))
        agent.connect("handoff",
                      lambda a, c, src: record("agent", "handoff", c, a, f.name_of(src)))
    # A detail that never matches.
    f.triage.connect("tool-start::other", lambda *a: events.append("wrong detail"))

    result = call(runner, "run", f.triage, text_node("add 2 and 3"), None, None, None)
    check_equal(result.get_final_output().get_string(), FINAL_TEXT, "final output")
    check_equal(events, [
        "run:agent-start triage",
        "agent:start triage",
        "run:llm-start triage You route work. 1",
        "agent:llm-start triage You route work.",
        "run:llm-end triage 1",
        "agent:llm-end triage",
        "run:tool-start triage add",
        "agent:tool-start triage add",
        "run:tool-end triage add 5",
        "agent:tool-end triage 5",
        "run:llm-start triage You route work. 3",
        "agent:llm-start triage You route work.",
        "run:llm-end triage 1",
        "agent:llm-end triage",
        "run:handoff triage worker",
        "agent:handoff worker triage",
        "run:agent-start worker",
        "agent:start worker",
        "run:llm-start worker You report results. 5",
        "agent:llm-start worker You report results.",
        "run:llm-end worker 1",
        "agent:llm-end worker",
        "run:agent-end worker " + FINAL_TEXT,
        "agent:end worker " + FINAL_TEXT,
    ], "hooks in order")
    check(all(c is result.get_context() for c in contexts),
          "every hook got the run's context")


# ---- streaming -----------------------------------------------------------


def event_label(event):
    kind = event.get_kind()
    if kind == EventKind.RAW_RESPONSE:
        return "raw"
    if kind == EventKind.AGENT_UPDATED:
        return "agent_updated " + event.get_agent().get_name()
    return event.get_name()


def pull_all(streaming):
    """The events of the stream through the pull API, until its end."""
    events = []
    while True:
        event = call(streaming, "next_event")
        if event is None:
            return events
        events.append(event)


def test_streamed():
    f = Agents2()
    f.script()
    runner = Agents.Runner.new()
    streaming = runner.run_streamed(f.triage, text_node("add 2 and 3"), None, None, None)
    signalled = []
    streaming.connect("event", lambda _s, event: signalled.append(event))
    check(streaming.get_current_agent() is f.triage, "current agent at the start")

    events = pull_all(streaming)
    labels = []
    for event in events:
        label = event_label(event)
        if not (label == "raw" and labels and labels[-1] == "raw"):
            labels.append(label)
    check_equal(labels, [
        "agent_updated triage", "raw", "tool_called", "tool_output",
        "raw", "handoff_requested", "handoff_occured",
        "agent_updated worker", "raw", "message_output_created",
    ], "stream event names in order")
    raw_types = [e.get_raw_event().get_string_member("type") for e in events
                 if e.get_kind() == EventKind.RAW_RESPONSE]
    check_equal(raw_types[0], "response.created", "first raw event")
    check_equal(raw_types[-1], "response.completed", "last raw event")
    check_equal(len(signalled), len(events), "the signal saw every event")
    check(all(a is b for a, b in zip(signalled, events)),
          "the signal and the pull API give the same events")
    for event in events:
        if event.get_kind() == EventKind.RUN_ITEM:
            check(event.get_item().get_agent() is event.get_agent(),
                  "a run item event names its item's agent")
            f.name_of(event.get_agent())

    check(call(streaming, "wait"), "wait returned FALSE")
    check(streaming.get_is_complete(), "complete")
    check_equal([args for _, args in f.calls], [TOOL_ARGUMENTS], "the tool ran once")
    check_equal(streaming.get_final_output().get_string(), FINAL_TEXT, "final output")
    check(streaming.get_current_agent() is f.worker, "current agent at the end")
    check(streaming.get_result().get_last_agent() is f.worker, "last agent")
    check_handoff_items(f, list_items(streaming.get_new_items()))


# ---- approval, saved state, resume ---------------------------------------


def test_approval_resume():
    first = Agents2(needs_approval=True)
    first.model.set_next_output(items(Agents.testing_function_tool_call(
        "add", TOOL_ARGUMENTS, "call_add")))
    runner = Agents.Runner.new()
    result = call(runner, "run", first.triage, text_node("add 2 and 3"), None, None, None)

    check(result.get_final_output() is None, "no final output while interrupted")
    check_equal(first.calls, [], "the tool did not run before approval")
    interruptions = list_items(result.get_interruptions())
    check_equal([(i.get_kind(), i.get_tool_name(), i.get_call_id()) for i in interruptions],
                [(Kind.TOOL_APPROVAL, "add", "call_add")], "interruptions")
    check(interruptions[0].get_agent() is first.triage, "interruption agent")

    saved = result.to_state().to_json()
    doc = json.loads(saved)
    check_equal(doc["$schemaVersion"], "1.0", "schema version")
    check_equal(doc["current_agent"]["name"], "triage", "saved current agent")

    # Another "process": fresh agents, tool and model, the saved JSON.
    second = Agents2(needs_approval=True)
    second.script(first_turn=False)
    state = Agents.RunState.new_from_json(second.triage, saved)
    check(state.get_current_agent() is second.triage, "restored current agent")
    pending = list_items(state.get_interruptions())
    check_equal([(i.get_kind(), i.get_tool_name()) for i in pending],
                [(Kind.TOOL_APPROVAL, "add")], "restored interruptions")
    check(pending[0].get_agent() is second.triage, "restored interruption agent")
    state.approve(pending[0], False)

    resumed = call(runner, "resume", second.triage, state, None, None)
    check_equal(first.calls, [], "the first process's tool never ran")
    check_equal([args for _, args in second.calls], [TOOL_ARGUMENTS],
                "the approved tool ran with the model's arguments")
    check_equal(resumed.get_final_output().get_string(), FINAL_TEXT, "final output")
    check(resumed.get_last_agent() is second.worker, "last agent is the fresh worker")
    check_handoff_items(second, list_items(resumed.get_new_items()))
    check_equal(resumed.get_interruptions().get_n_items(), 0, "no interruptions left")


TESTS = [
    ("two-agent handoff with a Python function tool", test_handoff_run),
    ("runner and agent hooks fire in order with the public agents", test_hooks),
    ("streamed run: event names in order", test_streamed),
    ("approval interruption, state to/from JSON, approve, resume", test_approval_resume),
]


def main():
    print("1..%d" % len(TESTS))
    failed = 0
    for number, (name, test) in enumerate(TESTS, 1):
        try:
            test()
        except Skip as e:
            print("ok %d - %s # SKIP %s" % (number, name, e))
        except Todo as e:
            print("not ok %d - %s # TODO %s" % (number, name, e))
        except Exception:
            failed += 1
            print("not ok %d - %s" % (number, name))
            for line in traceback.format_exc().splitlines():
                print("# " + line)
        else:
            print("ok %d - %s" % (number, name))
        sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
