#!/usr/bin/python3
# test_model_provider.py - a model provider written in Python (PyGObject)
#
# Copyright 2026 The libagents authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Implements AgentsModel in Python, registers it as the model provider
# "upper", finds it by name as an agent file would, and runs an agent on
# it; then drives the built-in "openai" provider from Python against the
# loopback model server (MODEL_SERVER and DATA_DIR from the environment).
# Prints TAP.

import os
import subprocess
import sys
import traceback

import gi

gi.require_version("Agents", "1.0")
gi.require_version("Json", "1.0")
from gi.repository import Agents, GLib, GObject, Json  # noqa: E402


def call(obj, method, *args):
    loop = GLib.MainLoop()
    results = []

    def done(_source, result):
        results.append(result)
        loop.quit()

    getattr(obj, method + "_async")(*args, None, done)
    if not results:
        GLib.timeout_add_seconds(60, loop.quit)
        loop.run()
    if not results:
        raise RuntimeError("%s_async did not complete" % method)
    return getattr(obj, method + "_finish")(results[0])


def check(condition, what):
    if not condition:
        raise AssertionError(what)


def json_array(text):
    return Json.from_string(text).get_array()


class UpperModel(GObject.Object, Agents.Model):
    """Answers with the last user message in capitals."""

    __gtype_name__ = "TestUpperModel"
    model_name = GObject.Property(type=str, default="")

    def do_get_response(self, request, task):
        items = request.get_input()
        last = items.get_object_element(items.get_length() - 1)
        text = last.get_string_member("content").upper()
        output = json_array(
            '[{"type": "message", "role": "assistant", "content": '
            '[{"type": "output_text", "text": "", "annotations": []}]}]')
        output.get_object_element(0).get_array_member("content") \
            .get_object_element(0).set_string_member(
                "text", "%s (%s)" % (text, self.props.model_name))
        Agents.model_return_response(
            task, Agents.ModelResponse.new(output, None, None))


def test_python_provider():
    Agents.registry_register(Agents.RegistryKind.MODEL_PROVIDER, "upper",
                             UpperModel.__gtype__)
    names = Agents.registry_list(Agents.RegistryKind.MODEL_PROVIDER)
    check({"openai", "chat", "upper"} <= set(names), "providers: %s" % names)
    gtype = Agents.registry_lookup(Agents.RegistryKind.MODEL_PROVIDER, "upper")
    model = GObject.new(gtype, model_name="shout-1")
    agent = Agents.Agent.new("Shouter")
    agent.set_model(model)
    runner = Agents.Runner.new()
    result = call(runner, "run", agent, Json.from_string('"hello"'), None,
                  None, None)
    check(result.get_final_output().get_string() == "HELLO (shout-1)",
          "final output: %s" % result.get_final_output().get_string())


def test_openai_from_python():
    server = os.environ.get("MODEL_SERVER")
    data = os.environ.get("MODEL_DATA_DIR")
    if not server or not data:
        raise RuntimeError("MODEL_SERVER and MODEL_DATA_DIR must be set")
    exchanges = os.path.join(data, "python-exchanges.json")
    proc = subprocess.Popen([server, data, exchanges], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().strip()
        provider = Agents.OpenAIProvider.new()
        provider.set_base_url(url)
        provider.set_api_key("sk-test-secret-key")
        check(provider.has_api_key(), "the key is set")
        model = Agents.OpenAIResponsesModel.new("gpt-test", provider)
        request = Agents.ModelRequest.new()
        request.set_system_instructions("Be brief.")
        request.set_input(json_array('[{"role": "user", "content": "Hi"}]'))
        sink = Agents.ModelEventSink.new()
        events = []
        sink.connect("event", lambda _s, e: events.append(
            e.get_string_member("type")))
        response = call(model, "stream_response", request, sink)
        text = response.get_output().get_object_element(0) \
            .get_array_member("content").get_object_element(0) \
            .get_string_member("text")
        check(text == "Héllo, wörld 🎉", "text: %s" % text)
        check(events[0] == "response.created" and
              events[-1] == "response.completed", "events: %s" % events)
        check(response.get_usage().get_int_member("total_tokens") == 17,
              "usage")
    finally:
        proc.stdin.close()
        status = proc.wait(timeout=30)
    check(status == 0, "the server saw the expected request (status %d)"
          % status)


TESTS = [test_python_provider, test_openai_from_python]


def main():
    failed = 0
    for n, test in enumerate(TESTS, 1):
        try:
            test()
            print("ok %d - %s" % (n, test.__name__))
        except Exception:
            failed += 1
            print("not ok %d - %s" % (n, test.__name__))
            for line in traceback.format_exc().splitlines():
                print("# " + line)
    print("1..%d" % len(TESTS))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
