#!/usr/bin/python3
# sandbox_agent.py - a sandbox agent run from Python, streamed, offline
#
# Copyright 2026 The libagents authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A SandboxAgent with the filesystem and shell capabilities works in a
# confined unix_local sandbox made from a one-file manifest. Its model is
# scripted (it answers from a script, not the network): it creates a file
# with `apply_patch`, sorts it with `exec_command`, prints the result with
# `exec_command` and answers. The tools really run in the sandbox. The
# run is streamed: each event is printed as it comes, then the final
# output. The run's cleanup persists the workspace to a snapshot and
# deletes the sandbox; the snapshot goes to a temporary directory that
# the program removes at the end.
#
#   /usr/bin/python3 examples/python/sandbox_agent.py
#
# From an uninstalled build directory `build`, point the loaders at it:
#
#   GI_TYPELIB_PATH=build/libagents LD_LIBRARY_PATH=build/libagents \
#   AGENTS_PLUGIN_PATH=build/plugins/unix-local \
#   /usr/bin/python3 examples/python/sandbox_agent.py

import json
import shutil
import sys
import tempfile

import gi

gi.require_version("Agents", "1.0")
gi.require_version("Json", "1.0")
from gi.repository import Agents, GLib, Json  # noqa: E402

EventKind = Agents.StreamEventKind
ItemKind = Agents.RunItemKind


def wait(obj, operation, *args):
    """Calls obj.OPERATION_async(*args) and waits for it in a main loop;
    returns what obj.OPERATION_finish() returns (or raises its GLib.Error)."""
    loop = GLib.MainLoop()
    results = []

    def done(source, result):
        results.append(result)
        loop.quit()

    getattr(obj, operation + "_async")(*args, None, done)  # None: no GCancellable
    loop.run()
    return getattr(obj, operation + "_finish")(results[0])


def turn(item):
    """One turn of the scripted model: the items a real model would send."""
    items = Json.Array.new()
    items.add_object_element(item)
    return items


def call(name, arguments, call_id):
    return turn(Agents.testing_function_tool_call(name, json.dumps(arguments), call_id))


def patch(text, call_id):
    """A call of the apply_patch custom tool: the patch is its raw input."""
    item = {"type": "custom_tool_call", "call_id": call_id, "name": "apply_patch", "input": text}
    return turn(Json.from_string(json.dumps(item)).get_object())


def call_arguments(item):
    """A function call's JSON arguments, a custom tool call's input (quoted)."""
    raw = item.get_raw_item()
    if raw.has_member("arguments"):
        return raw.get_string_member("arguments")
    return json.dumps(raw.get_string_member("input"))


def print_event(event):
    """Prints a stream event; token deltas (raw events) are skipped."""
    kind = event.get_kind()
    if kind == EventKind.AGENT_UPDATED:
        print("[agent]", event.get_agent().get_name())
    elif kind == EventKind.RUN_ITEM:
        item = event.get_item()
        if item.get_kind() == ItemKind.TOOL_CALL:
            print("[tool call]", item.get_tool_name(), call_arguments(item))
        elif item.get_kind() == ItemKind.TOOL_CALL_OUTPUT:
            print("[tool output]")
            for line in item.get_output().get_string().splitlines():
                print("    " + line)
        elif item.get_kind() == ItemKind.MESSAGE_OUTPUT:
            print("[assistant]", item.get_text())


# The workspace the sandbox starts with.
manifest = Agents.Manifest.new_from_data(json.dumps({
    "entries": {
        "README.md": {"type": "file", "content": "Numbers go in numbers.txt.\n"},
    },
}), -1)

model = Agents.ScriptedModel.new()
model.set_next_output(patch("*** Begin Patch\n*** Add File: numbers.txt\n+42\n+7\n+19\n"
                            "*** End Patch\n", "call_patch"))
model.set_next_output(call("exec_command", {"cmd": "sort -n numbers.txt > sorted.txt && ls"},
                           "call_sort"))
model.set_next_output(call("exec_command", {"cmd": "cat sorted.txt"}, "call_read"))
model.set_next_output(turn(Agents.testing_final_output_message("Sorted: 7, 19, 42.")))

agent = Agents.SandboxAgent.new("Sorter")
agent.set_instructions("You sort numbers in your sandbox.")
agent.set_model(model)
agent.set_default_manifest(manifest)
agent.set_capabilities([Agents.FilesystemCapability.new(), Agents.ShellCapability.new()])

# The sandbox side of the run: the backend, found by name, and where the
# workspace snapshot goes when the run ends.
snapshots = tempfile.mkdtemp(prefix="sandbox-agent-snapshots-")
sandbox = Agents.SandboxRunConfig.new()
sandbox.set_client(Agents.registry_new_sandbox_client("unix_local"))
sandbox.set_snapshot(Agents.LocalSnapshotSpec.new(snapshots))
config = Agents.RunConfig.new()
config.set_sandbox(sandbox)

question = Json.Node.new(Json.NodeType.VALUE)
question.set_string("Sort 42 7 19.")
status = 1
try:
    runner = Agents.Runner.new()
    streaming = runner.run_streamed(agent, question, config, None, None)
    while True:
        event = wait(streaming, "next_event")
        if event is None:  # the end of the stream
            break
        print_event(event)
    wait(streaming, "wait")  # the run's end, its sandbox cleanup included
    print("[final output]", streaming.get_final_output().get_string())
    status = 0
except GLib.Error as e:
    print("error:", e.message, file=sys.stderr)
finally:
    shutil.rmtree(snapshots, ignore_errors=True)
sys.exit(status)
