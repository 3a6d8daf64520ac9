#!/usr/bin/python3
# test_tools.py - custom tools and structured tool outputs from Python
#
# Copyright 2026 The libagents authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A custom (freeform) tool written in Python answers a scripted
# custom_tool_call; a Python function tool returns an image part. Checks
# the exact items the model sees on the next turn. Prints TAP.

import gc
import json
import shutil
import sys
import tempfile
import traceback

import gi

gi.require_version("Agents", "1.0")
gi.require_version("Json", "1.0")
from gi.repository import Agents, GLib, GObject, Json  # noqa: E402

CALL_TIMEOUT = 60


def call(obj, method, *args):
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
        raise AssertionError("%s_async did not complete" % method)
    GLib.source_remove(timer)
    return getattr(obj, method + "_finish")(results[0])


def check_equal(got, expected, what):
    if got != expected:
        raise AssertionError("%s: expected %r, got %r" % (what, expected, got))


def items(*objects):
    array = Json.Array.new()
    for obj in objects:
        array.add_object_element(obj)
    return array


def text_node(text):
    node = Json.Node.new(Json.NodeType.VALUE)
    node.set_string(text)
    return node


def json_object(value):
    return Json.from_string(json.dumps(value)).get_object()


def seen_input(model):
    request = model.get_last_turn_args()
    array = request.get_input()
    return [json.loads(Json.to_string(array.get_element(i), False))
            for i in range(array.get_length())]


def run(agent):
    return call(Agents.Runner.new(), "run", agent, text_node("go"), None, None, None)


def test_custom_tool():
    inputs = []

    def body(ctx, text):
        inputs.append(text)
        return "got %d bytes" % len(text)

    fmt = json_object({"type": "grammar", "syntax": "lark", "definition": "start: /.+/"})
    tool = Agents.CustomTool.new("apply_patch", "Edits files.", fmt, body)
    check_equal(json.loads(Json.to_string(Json.Node.alloc().init_object(
        tool.to_model_json()), False)),
        {"type": "custom", "name": "apply_patch", "description": "Edits files.",
         "format": {"type": "grammar", "syntax": "lark",
                    "definition": "start: /.+/"}},
        "model JSON")

    model = Agents.ScriptedModel.new()
    agent = Agents.Agent.new("editor")
    agent.set_model(model)
    agent.add_tool(tool)
    call_item = json_object({"type": "custom_tool_call", "call_id": "c1",
                             "name": "apply_patch", "input": "raw\ntext",
                             "id": "ctc_1"})
    model.add_multiple_turn_outputs([
        items(call_item),
        items(Agents.testing_final_output_message("done"))])
    run(agent)
    check_equal(inputs, ["raw\ntext"], "the tool got the raw input")
    check_equal(seen_input(model)[2],
                {"type": "custom_tool_call_output", "call_id": "c1",
                 "output": "got 8 bytes"}, "custom_tool_call_output")


def test_image_output():
    def body(ctx, arguments, task):
        output = Agents.ToolOutput.new_text("a pixel:")
        output.add_image("data:image/png;base64,iVBORw0KGgo=", None)
        Agents.Tool.return_parts(task, output)

    tool = Agents.FunctionTool.new_async("view_image", "Shows an image.", None, body)
    model = Agents.ScriptedModel.new()
    agent = Agents.Agent.new("viewer")
    agent.set_model(model)
    agent.add_tool(tool)
    model.add_multiple_turn_outputs([
        items(Agents.testing_function_tool_call("view_image", "{}", "call_img")),
        items(Agents.testing_final_output_message("done"))])
    run(agent)
    check_equal(seen_input(model)[2],
                {"call_id": "call_img", "type": "function_call_output",
                 "output": [{"type": "input_text", "text": "a pixel:"},
                            {"type": "input_image",
                             "image_url": "data:image/png;base64,iVBORw0KGgo="}]},
                "function_call_output with parts")


PINGS = []


def ping(ctx, arguments):
    PINGS.append(arguments)
    return "pong"


class PingCapability(GObject.Object, Agents.Capability):
    """A capability written in Python whose tools exist only in the list
    do_get_tools() returns: C must hold its own references to them."""

    def do_get_capability_type(self):
        return "py_ping"

    def do_get_tools(self):
        return [Agents.FunctionTool.new("ping", "Answers pong.", None, ping)]


class TuplePingCapability(GObject.Object, Agents.Capability):
    """Returns its tools as a tuple: PyGObject alone reads a returned
    tuple as return value and out arguments (the tools were lost, with a
    TypeError on stderr); the Agents override takes any iterable."""

    def do_get_capability_type(self):
        return "py_tuple_ping"

    def do_get_tools(self):
        return (Agents.FunctionTool.new("ping", "Answers pong.", None, ping),)


class GeneratorPingCapability(GObject.Object, Agents.Capability):
    def do_get_capability_type(self):
        return "py_generator_ping"

    def do_get_tools(self):
        yield Agents.FunctionTool.new("ping", "Answers pong.", None, ping)


class NonePingCapability(GObject.Object, Agents.Capability):
    """None in the list: a NULL in the array, which crashed the runner."""

    def do_get_capability_type(self):
        return "py_none_ping"

    def do_get_tools(self):
        return [None, Agents.FunctionTool.new("ping", "Answers pong.", None, ping)]


def test_python_capability_tools(capability_type=PingCapability):
    del PINGS[:]
    model = Agents.ScriptedModel.new()
    model.add_multiple_turn_outputs([
        items(Agents.testing_function_tool_call("ping", "{}", "call_ping")),
        items(Agents.testing_final_output_message("done"))])
    agent = Agents.SandboxAgent.new("pinger")
    agent.set_model(model)
    agent.set_default_manifest(Agents.Manifest.new())
    agent.set_capabilities([capability_type()])

    snapshots = tempfile.mkdtemp(prefix="python-capability-snapshots-")
    try:
        sandbox = Agents.SandboxRunConfig.new()
        sandbox.set_client(Agents.registry_new_sandbox_client("unix_local"))
        sandbox.set_snapshot(Agents.LocalSnapshotSpec.new(snapshots))
        config = Agents.RunConfig.new()
        config.set_sandbox(sandbox)
        gc.collect()
        result = call(Agents.Runner.new(), "run", agent, text_node("ping"), config,
                      None, None)
    finally:
        shutil.rmtree(snapshots, ignore_errors=True)

    check_equal(PINGS, ["{}"], "the Python capability's tool ran once")
    check_equal(result.get_final_output().get_string(), "done", "final output")
    outputs = [i for i in seen_input(model) if i.get("type") == "function_call_output"]
    check_equal(outputs, [{"call_id": "call_ping", "type": "function_call_output",
                           "output": "pong"}], "the model saw the tool's output")


def test_python_capability_any_iterable():
    for capability_type in (TuplePingCapability, GeneratorPingCapability):
        check_equal([t.get_name() for t in capability_type().get_tools()], ["ping"],
                    "the tools of %s" % capability_type.__name__)
        test_python_capability_tools(capability_type)


def test_python_capability_bad_item():
    """An item that is not a tool makes do_get_tools fail naming it; the
    library never sees a NULL (which it would leave out, warning)."""
    errors = []

    def hook(kind, value, traceback):
        errors.append(str(value))

    saved = sys.excepthook
    sys.excepthook = hook  # PyGObject reports a vfunc's exception here
    try:
        tools = NonePingCapability().get_tools()
    finally:
        sys.excepthook = saved
    check_equal(tools, [], "the tools of a capability whose list holds None")
    check_equal(errors, ["NonePingCapability.do_get_tools: item 0 is None, "
                         "not an Agents.Tool"], "the error")


TESTS = [
    ("custom tool", test_custom_tool),
    ("image output", test_image_output),
    ("Python capability: do_get_tools returns new tools", test_python_capability_tools),
    ("Python capability: do_get_tools may return a tuple or a generator",
     test_python_capability_any_iterable),
    ("Python capability: a None among the tools is named, not a crash",
     test_python_capability_bad_item),
]


def main():
    print("1..%d" % len(TESTS))
    failed = 0
    for number, (name, test) in enumerate(TESTS, 1):
        try:
            test()
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
