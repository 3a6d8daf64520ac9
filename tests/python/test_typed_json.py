#!/usr/bin/python3
# test_typed_json.py - typed-JSON families extended from Python (PyGObject)
#
# Copyright 2026 The libagents authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Reference cases MAN-22 (an environment value type registered by a
# binding, resolving asynchronously, whose JSON never holds the secret)
# and SNAP-02/04 (a snapshot type registered by a binding) through the
# typelib. Prints TAP.

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


TESTS = [test_env_value_from_python, test_snapshot_type_from_python]


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
