#!/usr/bin/python3
# test_overrides.py - the PyGObject overrides (gi/overrides/Agents.py)
#
# Copyright 2026 The libagents authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Agents.function_tool builds a tool's JSON schema from type hints and the
# docstring and runs the function with the model's arguments;
# Agents.Runner.run_sync runs an agent without a caller's main loop and
# raises GLib.Error when the run fails. Prints TAP.

import asyncio
import json
import sys
import traceback
import typing

import gi

gi.require_version("Agents", "1.0")
gi.require_version("Json", "1.0")
from gi.repository import Agents, GLib, Json  # noqa: E402


def check(condition, what):
    if not condition:
        raise AssertionError(what)


def check_equal(got, expected, what):
    if got != expected:
        raise AssertionError("%s: expected %r, got %r" % (what, expected, got))


def items(*objects):
    array = Json.Array.new()
    for obj in objects:
        array.add_object_element(obj)
    return array


def model_json(tool):
    return json.loads(Json.to_string(Json.Node.alloc().init_object(
        tool.to_model_json()), False))


def seen_input(model):
    array = model.get_last_turn_args().get_input()
    return [json.loads(Json.to_string(array.get_element(i), False))
            for i in range(array.get_length())]


def test_overrides_loaded():
    check(callable(getattr(Agents, "function_tool", None)),
          "the overrides module is loaded: Agents.function_tool")
    check(issubclass(Agents.Runner, gi.repository.Agents.Runner), "Runner")
    check(hasattr(Agents.Runner.new(), "run_sync"),
          "Runner.new() returns the overridden class")


def test_schema_sphinx():
    @Agents.function_tool
    def get_weather(city: str, days: int, metric: bool = True,
                    tags: typing.List[str] = None,
                    note: typing.Optional[str] = None) -> str:
        """Tells the weather in a city.

        Looks it up in the almanac.

        :param city: the city's name
        :param days: how many days
            ahead to forecast
        :param tags: labels
        :returns: the forecast
        """
        return ""

    check(isinstance(get_weather, Agents.FunctionTool), "a FunctionTool")
    check_equal(model_json(get_weather), {
        "type": "function",
        "name": "get_weather",
        "description": "Tells the weather in a city.\n\nLooks it up in the almanac.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "the city's name"},
                "days": {"type": "integer",
                         "description": "how many days ahead to forecast"},
                "metric": {"type": "boolean"},
                "tags": {"type": "array", "items": {"type": "string"},
                         "description": "labels"},
                "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            },
            "required": ["city", "days", "metric", "tags", "note"],
            "additionalProperties": False,
        },
        "strict": True,
    }, "model JSON")


def test_schema_google():
    @Agents.function_tool(name="measure", needs_approval=True)
    def measure_things(ctx: Agents.RunContext, weight: float,
                       extra: dict, values: list,
                       scores: typing.Dict[str, int]) -> dict:
        """Measures things.

        Args:
            weight (float): the weight in kg
            extra: anything else,
                free-form
            values: raw values
        Returns:
            a summary
        """
        return {}

    schema = model_json(measure_things)
    check_equal(schema["name"], "measure", "name given to the decorator")
    check_equal(schema["description"], "Measures things.", "summary")
    check_equal(schema["parameters"]["properties"], {
        "weight": {"type": "number", "description": "the weight in kg"},
        "extra": {"type": "object", "description": "anything else, free-form"},
        "values": {"type": "array", "items": {}, "description": "raw values"},
        "scores": {"type": "object", "additionalProperties": {"type": "integer"}},
    }, "properties (the context parameter is not one)")
    check(measure_things.get_needs_approval(), "needs_approval")


def test_schema_rejects():
    for func in (lambda x: x, lambda *args: 0):
        try:
            Agents.function_tool(func)
        except TypeError:
            continue
        raise AssertionError("no TypeError for %r" % func)

    def bad(x: complex) -> str:
        return ""

    try:
        Agents.function_tool(bad)
    except TypeError as error:
        check("unsupported type hint" in str(error), str(error))
    else:
        raise AssertionError("no TypeError for a complex parameter")


def test_run_sync_with_tool():
    calls = []

    @Agents.function_tool
    def add(ctx: Agents.RunContext, a: int, b: int,
            note: typing.Optional[str] = None) -> int:
        """Adds two integers.

        :param a: the first
        :param b: the second
        """
        calls.append((type(ctx).__name__, a, b, note))
        return a + b

    @Agents.function_tool
    def broken(x: int) -> str:
        """Always fails."""
        raise RuntimeError("no luck with %d" % x)

    model = Agents.ScriptedModel.new()
    agent = Agents.Agent.new("calc")
    agent.set_model(model)
    agent.add_tool(add)
    agent.add_tool(broken)
    model.add_multiple_turn_outputs([
        items(Agents.testing_function_tool_call("add", '{"a": 2, "b": 40, "note": null}',
                                                "call_add"),
              Agents.testing_function_tool_call("broken", '{"x": 7}', "call_broken")),
        items(Agents.testing_final_output_message("42"))])
    result = Agents.Runner.new().run_sync(agent, "add 2 and 40")
    check(isinstance(result, Agents.RunResult), "a RunResult")
    check_equal(result.dup_final_output_text(), "42", "final output")
    check_equal(calls, [("RunContext", 2, 40, None)], "the tool's calls")
    outputs = {item["call_id"]: item["output"] for item in seen_input(model)
               if item.get("type") == "function_call_output"}
    check_equal(outputs, {
        "call_add": "42",
        "call_broken": "An error occurred while running the tool. Please try "
                       "again. Error: no luck with 7",
    }, "tool outputs the model saw")
    check_equal(seen_input(model)[0],
                {"content": "add 2 and 40", "role": "user"}, "the input as a user message")
    # The default main context was not needed and saw nothing pending.
    check(not GLib.MainContext.default().pending(), "nothing left on the default context")


def test_run_sync_raises():
    model = Agents.ScriptedModel.new()
    agent = Agents.Agent.new("loop")
    agent.set_model(model)

    @Agents.function_tool
    def again() -> str:
        """Does nothing."""
        return "ok"

    agent.add_tool(again)
    call = Agents.testing_function_tool_call("again", "{}", "c")
    model.add_multiple_turn_outputs([items(call), items(call), items(call)])
    config = Agents.RunConfig.new()
    config.set_max_turns(2)
    try:
        Agents.Runner.new().run_sync(agent, "go", config)
    except GLib.Error as error:
        check("turn" in error.message.lower(), error.message)
    else:
        raise AssertionError("run_sync did not raise")


def test_resume_sync():
    calls = []

    @Agents.function_tool(needs_approval=True)
    def delete(path: str) -> str:
        """Deletes a file."""
        calls.append(path)
        return "deleted"

    model = Agents.ScriptedModel.new()
    agent = Agents.Agent.new("janitor")
    agent.set_model(model)
    agent.add_tool(delete)
    model.add_multiple_turn_outputs([
        items(Agents.testing_function_tool_call("delete", '{"path": "a.txt"}', "call_del")),
        items(Agents.testing_final_output_message("gone"))])
    runner = Agents.Runner.new()
    result = runner.run_sync(agent, "clean up")
    check(result.get_final_output() is None, "interrupted for approval")
    check_equal(calls, [], "the tool waits for approval")
    state = result.to_state()
    interruptions = state.get_interruptions()
    check_equal(interruptions.get_n_items(), 1, "one interruption")
    state.approve(interruptions.get_item(0), False)
    resumed = runner.resume_sync(agent, state)
    check_equal(calls, ["a.txt"], "the approved tool ran")
    check_equal(resumed.dup_final_output_text(), "gone", "final output after resume")


def test_arun():
    def calc(name, a, b):
        @Agents.function_tool(name="add")
        def add(x: int, y: int) -> int:
            """Adds."""
            return x + y

        model = Agents.ScriptedModel.new()
        agent = Agents.Agent.new(name)
        agent.set_model(model)
        agent.add_tool(add)
        model.add_multiple_turn_outputs([
            items(Agents.testing_function_tool_call(
                "add", json.dumps({"x": a, "y": b}), "call_" + name)),
            items(Agents.testing_final_output_message("%s done" % name))])
        return agent, model

    first, first_model = calc("first", 1, 2)
    second, second_model = calc("second", 30, 12)
    ticks = []

    async def ticker(done):
        while not done.is_set():
            ticks.append(1)
            await asyncio.sleep(0)

    async def main():
        done = asyncio.Event()
        tick = asyncio.ensure_future(ticker(done))
        runner = Agents.Runner.new()
        results = await asyncio.gather(runner.arun(first, "go"), runner.arun(second, "go"))
        done.set()
        await tick
        outputs = [[i["output"] for i in seen_input(m)
                    if i.get("type") == "function_call_output"]
                   for m in (first_model, second_model)]
        session = Agents.SqliteSession.new("aio", None)
        await Agents.awaitable(session, "add_items", items(json_object(
            {"role": "user", "content": "hi"})), None)
        stored = await Agents.awaitable(session, "get_items", 0, None)
        looping, looping_model = calc("looping", 0, 0)
        looping_model.add_multiple_turn_outputs([items(
            Agents.testing_function_tool_call("add", '{"x": 0, "y": 0}', "again"))])
        config = Agents.RunConfig.new()
        config.set_max_turns(1)
        try:
            await runner.arun(looping, "go", config)
        except GLib.Error as error:
            failure = error
        else:
            failure = None
        return results, outputs, stored, failure

    results, outputs, stored, failure = asyncio.run(main())
    check_equal([r.dup_final_output_text() for r in results],
                ["first done", "second done"], "final outputs of both runs")
    check_equal(outputs, [["3"], ["42"]], "each run's tool output")
    check(len(ticks) > 1, "another coroutine ran while the runs did")
    check_equal(stored.get_length(), 1, "awaitable add_items/get_items")
    check(failure is not None, "arun raised GLib.Error")
    check("turn" in failure.message.lower(), failure.message)


def json_object(value):
    return Json.from_string(json.dumps(value)).get_object()


TESTS = [
    ("overrides loaded", test_overrides_loaded),
    ("function_tool schema, :param: docstring", test_schema_sphinx),
    ("function_tool schema, Args: docstring", test_schema_google),
    ("function_tool rejects untyped parameters", test_schema_rejects),
    ("run_sync with function tools", test_run_sync_with_tool),
    ("run_sync raises GLib.Error", test_run_sync_raises),
    ("resume_sync after an approval", test_resume_sync),
    ("arun and awaitable under asyncio", test_arun),
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
