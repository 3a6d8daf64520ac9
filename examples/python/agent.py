#!/usr/bin/python3
# agent.py - a minimal agent run from Python, offline
#
# Copyright 2026 The libagents authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# An agent with one function tool written in Python runs on the scripted
# model, which answers from a script instead of the network: first a call
# of the tool, then a final message. The runner calls the tool, feeds its
# output back to the model and stops at the final message.
#
#   /usr/bin/python3 examples/python/agent.py
#
# From an uninstalled build directory `build`, point the loaders at it:
#
#   GI_TYPELIB_PATH=build/libagents LD_LIBRARY_PATH=build/libagents \
#   /usr/bin/python3 examples/python/agent.py

import json

import gi

gi.require_version("Agents", "1.0")
gi.require_version("Json", "1.0")
from gi.repository import Agents, GLib, Json  # noqa: E402


def get_weather(ctx, arguments):
    """The tool's body: the model gives its arguments as a JSON object."""
    return "Sunny in " + json.loads(arguments)["city"]


def turn(*items):
    """One turn of the scripted model: the items a real model would send,
    in the OpenAI Responses shapes."""
    array = Json.Array.new()
    for item in items:
        array.add_object_element(item)
    return array


model = Agents.ScriptedModel.new()
model.set_next_output(turn(Agents.testing_function_tool_call(
    "get_weather", json.dumps({"city": "Paris"}), "call_1")))
model.set_next_output(turn(Agents.testing_final_output_message("It is sunny in Paris.")))

agent = Agents.Agent.new("assistant")
agent.set_instructions("You answer questions.")
agent.set_model(model)
agent.add_tool(Agents.FunctionTool.new("get_weather", "Tells the weather in a city.",
                                       None, get_weather))

runner = Agents.Runner.new()
# Hooks are signals: here, on the runner, each tool call.
runner.connect("tool-end", lambda _runner, _ctx, agent, tool, output:
               print("%s ran %s: %s" % (agent.get_name(), tool.get_name(), output.get_string())))

loop = GLib.MainLoop()
results = []


def on_run(runner, result):
    results.append(runner.run_finish(result))  # raises GLib.Error on failure
    loop.quit()


question = Json.Node.new(Json.NodeType.VALUE)
question.set_string("What is the weather in Paris?")
# No run config, conversation session, user context or cancellable.
runner.run_async(agent, question, None, None, None, None, on_run)
loop.run()

result = results[0]
print("final output:", result.get_final_output().get_string())
print("last agent:", result.get_last_agent().get_name())
