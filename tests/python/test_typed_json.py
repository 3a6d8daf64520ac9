#!/usr/bin/python3
# test_typed_json.py - typed-JSON families extended from Python (PyGObject)
#
# Copyright 2026 The libagents authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Reference cases MAN-22 (an environment value type registered by a
# binding, resolving asynchronously, whose JSON never holds the secret)
# and SNAP-02/04 (a snapshot type registered by a binding) through the
# typelib, and a session state type of its own registered, written and
# read back by a binding. Prints TAP.

import json
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


class SecretReference(Agents.EnvValue):
    """Holds a key; its secret is found asynchronously, never written."""

    __gtype_name__ = "TestPySecretReference"
    key = GObject.Property(type=str, default="")

    def do_serialize_fields(self, builder):
        builder.set_member_name("key")
        builder.add_string_value(self.key)

    def do_deserialize_fields(self, obj):
        if not obj.has_member("key"):
            raise GLib.Error("secret reference without a key")
        self.key = obj.get_string_member("key")
        return True

    def do_resolve(self, task):
        text = "resolved-secret-for-" + self.key

        def later():
            Agents.task_return_string(task, text)
            return GLib.SOURCE_REMOVE

        GLib.idle_add(later)


class PyNoopSnapshot(GObject.Object, Agents.Snapshot):
    __gtype_name__ = "TestPyNoopSnapshot"
    id = GObject.Property(type=str, default="")


class PyOtherSnapshot(GObject.Object, Agents.Snapshot):
    __gtype_name__ = "TestPyOtherSnapshot"
    id = GObject.Property(type=str, default="")


class PySessionState(Agents.SandboxSessionState):
    """A backend's state written in Python: one member of its own."""

    __gtype_name__ = "TestPySessionState"
    region = GObject.Property(type=str, default="")

    def do_serialize_fields(self, builder):
        builder.set_member_name("region")
        builder.add_string_value(self.region)

    def do_deserialize_fields(self, obj):
        node = obj.get_member("region")
        if node is None or node.get_value_type() != GObject.TYPE_STRING:
            raise GLib.Error("region must be a string")
        self.region = node.get_string()
        return True

    def do_copy_fields(self, dest):
        dest.region = self.region


def test_env_value_from_python():
    Agents.typed_json_register(Agents.EnvValue.__gtype__,
                               "test.secret_reference",
                               SecretReference.__gtype__)
    manifest = Agents.Manifest.new()
    direct = SecretReference(key="direct")
    entry = SecretReference(key="entry")
    entry.set_description("secret reference")
    entry.set_ephemeral(True)
    manifest.set_env_value("DIRECT", direct)
    manifest.set_env_value("ENTRY", entry)

    text, _length = manifest.to_data()
    environment = Json.from_string(text).get_object() \
        .get_object_member("environment").get_object_member("value")
    direct_json = environment.get_object_member("DIRECT")
    check(direct_json.get_string_member("type") == "test.secret_reference",
          "type added by the mechanism: %s" % text)
    check(direct_json.get_string_member("key") == "direct", text)
    entry_json = environment.get_object_member("ENTRY")
    check(entry_json.get_string_member("description") == "secret reference",
          text)
    check(entry_json.get_boolean_member("ephemeral"), text)
    check(entry_json.get_object_member("value").get_string_member("type")
          == "test.secret_reference", text)
    check("resolved-secret" not in text, "no secret in %s" % text)

    back = Agents.Manifest.new_from_data(text, -1)
    restored = back.get_env_value("DIRECT")
    check(isinstance(restored, SecretReference),
          "restored as %r" % type(restored))
    check(restored.get_value_type() == "test.secret_reference",
          restored.get_value_type())
    check(back.get_env_value("ENTRY").get_ephemeral(), "entry ephemeral")

    resolved = call(back, "resolve_environment")
    check(resolved == {"DIRECT": "resolved-secret-for-direct",
                       "ENTRY": "resolved-secret-for-entry"},
          "resolved %r" % resolved)


def test_snapshot_type_from_python():
    Agents.registry_register_snapshot_type("test-py-noop",
                                           PyNoopSnapshot.__gtype__)
    node = Json.from_string('{"type":"test-py-noop","id":"registered"}')
    snapshot = Agents.typed_json_new_from_json(Agents.Snapshot.__gtype__,
                                               node)
    check(isinstance(snapshot, PyNoopSnapshot), "type %r" % type(snapshot))
    check(snapshot.get_id() == "registered", snapshot.get_id())
    check(snapshot.get_snapshot_type() == "test-py-noop",
          snapshot.get_snapshot_type())
    check(Json.to_string(snapshot.to_json(), False)
          == '{"type":"test-py-noop","id":"registered"}', "round trip")

    try:
        Agents.typed_json_register(Agents.Snapshot.__gtype__, "test-py-noop",
                                   PyOtherSnapshot.__gtype__)
        raise AssertionError("a second type under a taken name")
    except GLib.Error as error:
        check("already registered" in error.message, error.message)
    try:
        Agents.typed_json_new_from_json(
            Agents.Snapshot.__gtype__,
            Json.from_string('{"type":"nope","id":"x"}'))
        raise AssertionError("an unknown type was read")
    except GLib.Error as error:
        check(error.message == "unknown snapshot type `nope`", error.message)
    names = Agents.typed_json_list(Agents.Snapshot.__gtype__)
    check("test-py-noop" in names and names == sorted(names), names)


def test_session_state_from_python():
    family = Agents.SandboxSessionState.__gtype__
    Agents.registry_register_session_state("test-py-state",
                                           PySessionState.__gtype__)
    check(Agents.SandboxSessionState.type_get_name(PySessionState.__gtype__)
          == "test-py-state", "named by its registration")
    # The registry and the mechanism are one: registering again through
    # the mechanism is harmless, another type under the name is refused.
    Agents.typed_json_register(family, "test-py-state",
                               PySessionState.__gtype__)
    try:
        Agents.typed_json_register(family, "test-py-state",
                                   Agents.SandboxSessionState.__gtype__)
        raise AssertionError("a second type under a taken name")
    except GLib.Error as error:
        check("already registered" in error.message, error.message)

    snapshot = Agents.NoopSnapshot.new("py-state-snapshot")
    state = PySessionState(session_id="bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb",
                           snapshot=snapshot, region="eu-west-1")
    text = Json.to_string(state.to_json(), False)
    members = json.loads(text)
    check(list(members)[:2] == ["type", "session_id"], text)
    check(members["type"] == "test-py-state", text)
    check(members["region"] == "eu-west-1", text)
    check(list(members)[-1] == "region", "the class's members last: " + text)

    for back in (Agents.SandboxSessionState.new_from_json(
                     Json.from_string(text)),
                 Agents.typed_json_new_from_json(family,
                                                 Json.from_string(text))):
        check(isinstance(back, PySessionState), "read as %r" % type(back))
        check(back.region == "eu-west-1", back.region)
        check(back.get_session_id() == state.get_session_id(),
              back.get_session_id())
        check(not back.get_root_vouched(), "a read state is not vouched for")
        check(Json.to_string(back.to_json(), False) == text, "round trip")
    copy = state.copy()
    check(isinstance(copy, PySessionState) and copy.region == "eu-west-1",
          "copied with its members")

    names = Agents.registry_list(Agents.RegistryKind.SESSION_STATE)
    check("test-py-state" in names and "sandbox" in names, names)
    check(names == sorted(names), names)

    try:
        Agents.SandboxSessionState.new_from_json(
            Json.from_string('{"type":"test-py-state","region":1}'))
        raise AssertionError("a member of the wrong type was read")
    except GLib.Error as error:
        check("region" in error.message, error.message)
    try:
        Agents.SandboxSessionState.new_from_json(
            Json.from_string('{"type":"test-py-nope"}'))
        raise AssertionError("an unknown type was read")
    except GLib.Error as error:
        check(error.matches(Agents.SandboxError.quark(),
                            Agents.SandboxError.UNKNOWN_TYPE), error.message)


TESTS = [test_env_value_from_python, test_snapshot_type_from_python,
         test_session_state_from_python]


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
