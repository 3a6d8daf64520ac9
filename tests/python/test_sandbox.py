#!/usr/bin/python3
# test_sandbox.py - the sandbox API through GObject introspection (PyGObject)
#
# Copyright 2026 The libagents authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Run with Debian's /usr/bin/python3 (a python3 earlier on PATH may not see
# PyGObject), with GI_TYPELIB_PATH and LD_LIBRARY_PATH pointing at the
# build's libagents/ and AGENTS_PLUGIN_PATH at the plugin modules.
# Prints TAP.

import json
import os
import shutil
import sys
import tempfile
import traceback

import gi

gi.require_version("Agents", "1.0")
gi.require_version("Json", "1.0")
from gi.repository import Agents, Gio, GLib, GObject, Json  # noqa: E402

# The name the documentation gives the sandbox error domain.
DOCUMENTED_ERROR_DOMAIN = "agents-sandbox-error-quark"
CALL_TIMEOUT = 60  # seconds one async call may take before the test fails


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


def error_context(error):
    """The context dictionary of a caught sandbox GLib.Error (PyGObject
    gives the domain as a string)."""
    return Agents.error_lookup_context(error.domain, error.code, error.message).unpack()


def expect_error(code, fn, *args):
    """Calls FN(*ARGS), which must raise a sandbox GLib.Error with CODE."""
    try:
        fn(*args)
    except GLib.Error as e:
        check_equal(e.domain, GLib.quark_to_string(Agents.sandbox_error_quark()),
                    "error domain")
        check_equal(e.code, int(code), "error code (%s)" % e.message)
        return e
    raise AssertionError("no error raised, expected %s" % code.value_nick)


def text_of(exec_result):
    return exec_result.dup_stdout_text()


def run_shell(session, script):
    return call(session, "exec", [script], 30, True, None)


def delete_session(client, session):
    call(session, "shutdown")
    call(client, "delete", session)


MANIFEST = json.dumps({
    "version": 1,
    "entries": {
        "hello.txt": {"type": "file", "content": "hello from the manifest\n"},
    },
})

# ---- (a) a unix_local session, persisted and resumed ----------------------


def test_unix_local_roundtrip():
    snapshots = tempfile.mkdtemp(prefix="agents-py-snapshots-")
    try:
        client = Agents.registry_new_sandbox_client("unix_local")
        check_equal(client.get_backend_id(), "unix_local", "backend id")
        manifest = Agents.Manifest.new_from_data(MANIFEST, -1)
        spec = Agents.LocalSnapshotSpec.new(snapshots)

        session = call(client, "create", manifest, None, spec)
        call(session, "start")
        payload = b"written from python\n"
        check(call(session, "write_bytes", "notes/data.txt", GLib.Bytes.new(payload), None),
              "write_bytes returned FALSE")
        result = run_shell(session, "cat notes/data.txt hello.txt")
        check_equal(result.get_exit_code(), 0, "exit code")
        check_equal(text_of(result), payload.decode() + "hello from the manifest\n", "stdout")

        check(call(session, "stop"), "stop returned FALSE")
        state_json = Json.to_string(client.serialize_session_state(session.get_state()), False)
        state = json.loads(state_json)
        check_equal(state["type"], "unix_local", "state type")
        check_equal(state["snapshot"]["type"], "local", "snapshot type")
        delete_session(client, session)
        del session

        restored = client.deserialize_session_state(Json.from_string(state_json))
        resumed = call(client, "resume", restored)
        call(resumed, "start")
        data = call(resumed, "read_bytes", "notes/data.txt", None)
        check_equal(data.get_data(), payload, "content read back after resume")
        delete_session(client, resumed)
    finally:
        shutil.rmtree(snapshots, ignore_errors=True)


# ---- (b) errors carry their context ---------------------------------------


def test_error_context():
    client = Agents.registry_new_sandbox_client("unix_local")
    manifest = Agents.Manifest.new_from_data(MANIFEST, -1)
    session = call(client, "create", manifest, None, None)
    try:
        call(session, "start")
        e = expect_error(Agents.SandboxError.INVALID_MANIFEST_PATH,
                         call, session, "read_bytes", "../outside.txt", None)
        context = error_context(e)
        check_equal(context.get("rel"), "../outside.txt", "context rel")
        check_equal(context.get("reason"), "escape_root", "context reason")

        e = expect_error(Agents.SandboxError.INVALID_MANIFEST_PATH,
                         call, session, "write_bytes", "/etc/agents-escape",
                         GLib.Bytes.new(b"x"), None)
        check_equal(error_context(e).get("rel"), "/etc/agents-escape", "context rel (absolute)")
    finally:
        delete_session(client, session)


def test_error_context_lexical():
    # Raised synchronously, without a session.
    manifest = Agents.Manifest.new_from_data(MANIFEST, -1)
    e = expect_error(Agents.SandboxError.INVALID_MANIFEST_PATH,
                     manifest.resolve_path, "a/../../b")
    context = error_context(e)
    check_equal(context.get("rel"), "a/../../b", "context rel")
    check_equal(context.get("reason"), "escape_root", "context reason")


def test_error_domain_name():
    name = GLib.quark_to_string(Agents.sandbox_error_quark())
    check_equal(name, DOCUMENTED_ERROR_DOMAIN, "sandbox error domain name")


# ---- (c) a sandbox session implemented in Python ---------------------------

# The Python sandbox is a host directory: the manifest root is
# BASE/workspace (an absolute host path, so workspace paths need no
# translation) and the sandbox's /tmp, where the library installs its
# runtime helpers, is BASE/tmp, so nothing is left on the host.


class PySession(GObject.Object, Agents.SandboxSession):
    def __init__(self, manifest, base):
        super().__init__()
        self.base = base
        self.exec_log = []
        self.set_state(Agents.SandboxSessionState.new(manifest, None))

    def host_path(self, path):
        # BASE itself may well be under the host's /tmp.
        if path == self.base or path.startswith(self.base + "/"):
            return path
        if path == "/tmp" or path.startswith("/tmp/"):
            return os.path.join(self.base, "tmp") + path[len("/tmp"):]
        return path

    def resolve(self, path, task):
        """The host path of a workspace path, or None after failing TASK."""
        try:
            return self.host_path(self.get_manifest().resolve_path(path))
        except GLib.Error as e:
            task.return_error(e)
            return None

    # -- the primitives --

    def do_exec(self, argv, timeout, task):
        # TIMEOUT is not enforced: these commands are the test's own.
        self.exec_log.append(list(argv))
        argv = [self.host_path(arg) for arg in argv]
        root = self.get_manifest().get_root()
        launcher = Gio.SubprocessLauncher.new(Gio.SubprocessFlags.STDOUT_PIPE
                                              | Gio.SubprocessFlags.STDERR_PIPE)
        launcher.set_cwd(root if os.path.isdir(root) else self.base)
        try:
            proc = launcher.spawnv(argv)
        except GLib.Error as e:
            task.return_error(Agents.sandbox_error_new_literal(
                Agents.SandboxError.EXEC_TRANSPORT, None, e.message))
            return

        def communicated(proc, result):
            try:
                _, out, err = proc.communicate_finish(result)
            except GLib.Error as e:
                task.return_error(Agents.sandbox_error_new_literal(
                    Agents.SandboxError.EXEC_TRANSPORT, None, e.message))
                return
            status = proc.get_exit_status() if proc.get_if_exited() else 128 + proc.get_term_sig()
            Agents.task_return_object(task, Agents.ExecResult.new(out, err, status))

        proc.communicate_async(None, task.get_cancellable(), communicated)

    def do_read(self, path, user, task):
        host = self.resolve(path, task)
        if host is None:
            return
        try:
            Agents.task_return_object(task, Gio.File.new_for_path(host).read(None))
        except GLib.Error as e:
            task.return_error(Agents.sandbox_error_new_literal(
                Agents.SandboxError.WORKSPACE_READ_NOT_FOUND, None, e.message))

    def do_write(self, path, data, user, task):
        host = self.resolve(path, task)
        if host is None:
            return
        try:
            os.makedirs(os.path.dirname(host), exist_ok=True)
            out = Gio.File.new_for_path(host).replace(None, False, Gio.FileCreateFlags.NONE, None)
            out.splice(data, Gio.OutputStreamSpliceFlags.CLOSE_SOURCE
                       | Gio.OutputStreamSpliceFlags.CLOSE_TARGET, None)
        except (GLib.Error, OSError) as e:
            task.return_error(Agents.sandbox_error_new_literal(
                Agents.SandboxError.WORKSPACE_ARCHIVE_WRITE, None, str(e)))
            return
        task.return_boolean(True)

    def do_running(self, task):
        task.return_boolean(os.path.isdir(self.get_manifest().get_root()))

    def do_stop(self, task):
        # Nothing to persist: the workspace stays where it is.
        task.return_boolean(True)

    # start, shutdown, ls, mkdir, rm, apply_manifest, path validation …
    # are the library's generic implementations.


class PyClient(GObject.Object, Agents.SandboxClient):
    def __init__(self):
        super().__init__()
        self.base = tempfile.mkdtemp(prefix="agents-py-session-")

    def do_get_backend_id(self):
        return "py_local"

    def do_supports_default_options(self):
        return True

    def do_create(self, manifest, options, snapshot, task):
        manifest = manifest.copy()
        manifest.set_root(os.path.join(self.base, "workspace"))
        Agents.task_return_object(task, PySession(manifest, self.base))

    def do_delete(self, session, task):
        shutil.rmtree(self.base, ignore_errors=True)
        task.return_boolean(True)


def test_python_session():
    Agents.registry_register_sandbox_client("py_local", PyClient.__gtype__)
    check("py_local" in Agents.registry_list(Agents.RegistryKind.SANDBOX_CLIENT),
          "py_local is listed")
    client = Agents.registry_new_sandbox_client("py_local")
    check(isinstance(client, PyClient), "the registry built a PyClient")
    base = client.base

    session = call(client, "create", Agents.Manifest.new_from_data(MANIFEST, -1), None, None)
    root = session.get_manifest().get_root()
    try:
        # The generic start materializes the manifest through exec + write.
        check(call(session, "start"), "start returned FALSE")
        check(call(session, "running"), "running")
        with open(os.path.join(root, "hello.txt")) as f:
            check_equal(f.read(), "hello from the manifest\n", "materialized file")
        check_equal(text_of(run_shell(session, "cat hello.txt")), "hello from the manifest\n",
                    "exec stdout")

        # Generic mkdir / write / ls / rm over the Python primitives.
        check(call(session, "mkdir", "sub/dir", True), "mkdir returned FALSE")
        check(os.path.isdir(os.path.join(root, "sub", "dir")), "mkdir made the directory")
        call(session, "write_bytes", "sub/dir/f.txt", GLib.Bytes.new(b"abc"), None)
        check_equal(call(session, "read_bytes", "sub/dir/f.txt", None).get_data(), b"abc",
                    "read back")
        listing = call(session, "ls", "sub/dir")
        paths = [listing.get_item(i).get_path() for i in range(listing.get_n_items())]
        check(any(p.endswith("/f.txt") for p in paths), "ls lists f.txt: %r" % paths)
        check(call(session, "rm", "sub", True), "rm returned FALSE")
        check(not os.path.exists(os.path.join(root, "sub")), "rm removed the tree")
        check(any(argv[:2] == ["rm", "-rf"] for argv in session.exec_log),
              "rm ran through the Python exec primitive")

        # apply_manifest of a new file entry.
        session.get_manifest().set_entry("added/new.txt", Agents.File.new_from_text("added\n"))
        files = call(session, "apply_manifest", False)
        check(files is not None, "apply_manifest returned files")
        with open(os.path.join(root, "added", "new.txt")) as f:
            check_equal(f.read(), "added\n", "applied entry")

        # The generic path checks run over the Python primitives too.
        e = expect_error(Agents.SandboxError.INVALID_MANIFEST_PATH,
                         call, session, "mkdir", "../escape", False)
        check_equal(error_context(e).get("reason"), "escape_root", "context reason")
        check(not os.path.exists(os.path.join(base, "escape")), "nothing escaped")

        # Errors returned by a Python primitive reach the caller.
        e = expect_error(Agents.SandboxError.WORKSPACE_READ_NOT_FOUND,
                         call, session, "read_bytes", "missing.txt", None)
        check(call(session, "stop"), "stop returned FALSE")
    finally:
        delete_session(client, session)
    check(not os.path.exists(base), "delete removed the session's directory")


def test_third_party_error_domain():
    """A plugin written in Python registers its own error domain; its
    errors carry a context through a GTask and back into Python."""
    domain = "python-plugin-error-quark"
    quark = Agents.error_register_domain(domain)
    check(Agents.error_domain_is_registered(quark), "the domain is registered")
    check_equal(Agents.error_register_domain(domain), quark, "registering again")

    context = GLib.Variant("a{sv}", {"bucket": GLib.Variant("s", "logs"),
                                     "attempts": GLib.Variant("i", 3)})
    error = Agents.error_new_literal(quark, 4, context, "bucket logs is gone")
    check_equal(error.domain, domain, "error domain")
    check_equal(Agents.error_get_context(error).unpack(),
                {"bucket": "logs", "attempts": 3}, "context of the new error")

    task = Gio.Task.new(None, None, None, None)
    task.return_error(error)
    try:
        task.propagate_boolean()
    except GLib.Error as e:
        check_equal((e.domain, e.code, e.message), (domain, 4, "bucket logs is gone"),
                    "the caught error")
        check_equal(error_context(e), {"bucket": "logs", "attempts": 3},
                    "context of the caught error")
    else:
        raise AssertionError("the task did not fail")


# ---- (d) a backend derived from the bases -----------------------------------

# The same host-directory sandbox, written over AgentsSandboxSessionBase and
# AgentsSandboxClientBase: the backend is its primitives only; the start
# sequence, the exec timeout and the state (de)serialization are the bases'.


# Overriding vfuncs of the interface (do_read …) needs the interface
# listed: the class then gets a vtable of its own instead of writing into
# the one it shares with its parent.
class PyBaseSession(Agents.SandboxSessionBase, Agents.SandboxSession):
    def __init__(self, manifest, base):
        super().__init__(state=Agents.SandboxSessionState.new(manifest, None))
        self.base = base
        self.calls = []

    host_path = PySession.host_path

    def do_start_backend(self, task):
        # The workspace is prepared by the base after this, not before.
        self.calls.append("start_backend")
        os.makedirs(self.get_manifest().get_root(), exist_ok=True)
        os.makedirs(os.path.join(self.base, "tmp"), exist_ok=True)
        task.return_boolean(True)

    def do_shutdown_backend(self, task):
        self.calls.append("shutdown_backend")
        task.return_boolean(True)

    def do_exec_raw(self, argv, timeout, task):
        self.calls.append("exec")
        argv = [self.host_path(arg) for arg in argv]
        launcher = Gio.SubprocessLauncher.new(Gio.SubprocessFlags.STDOUT_PIPE
                                              | Gio.SubprocessFlags.STDERR_PIPE)
        launcher.set_cwd(self.get_manifest().get_root())
        proc = launcher.spawnv(argv)
        cancellable = task.get_cancellable()
        # The base cancels the task's cancellable when TIMEOUT expires.
        handler = cancellable.connect(lambda *_args: proc.force_exit())

        def communicated(proc, result):
            cancellable.disconnect(handler)
            try:
                _, out, err = proc.communicate_finish(result)
            except GLib.Error as e:
                task.return_error(e)
                return
            if cancellable.is_cancelled():
                task.return_error(GLib.Error.new_literal(
                    Gio.io_error_quark(), "cancelled", Gio.IOErrorEnum.CANCELLED))
                return
            status = proc.get_exit_status() if proc.get_if_exited() else 128 + proc.get_term_sig()
            Agents.task_return_object(task, Agents.ExecResult.new(out, err, status))

        proc.communicate_async(None, None, communicated)

    def do_read(self, path, user, task):
        try:
            host = self.host_path(self.get_manifest().resolve_path(path))
            Agents.task_return_object(task, Gio.File.new_for_path(host).read(None))
        except GLib.Error as e:
            task.return_error(Agents.sandbox_error_new_literal(
                Agents.SandboxError.WORKSPACE_READ_NOT_FOUND, None, e.message))

    def do_write(self, path, data, user, task):
        try:
            host = self.host_path(self.get_manifest().resolve_path(path))
        except GLib.Error as e:
            task.return_error(e)
            return
        os.makedirs(os.path.dirname(host), exist_ok=True)
        out = Gio.File.new_for_path(host).replace(None, False, Gio.FileCreateFlags.NONE, None)
        out.splice(data, Gio.OutputStreamSpliceFlags.CLOSE_SOURCE
                   | Gio.OutputStreamSpliceFlags.CLOSE_TARGET, None)
        task.return_boolean(True)

    def do_running(self, task):
        task.return_boolean(self.is_started())

    def do_stop(self, task):
        task.return_boolean(True)


class PyBaseClient(Agents.SandboxClientBase, Agents.SandboxClient):
    def __init__(self):
        super().__init__()
        self.base = tempfile.mkdtemp(prefix="agents-py-base-")

    def do_get_backend_id(self):
        return "py_base"

    def do_create(self, manifest, options, snapshot, task):
        manifest = manifest.copy()
        manifest.set_root(os.path.join(self.base, "workspace"))
        Agents.task_return_object(task, PyBaseSession(manifest, self.base))

    def do_delete(self, session, task):
        shutil.rmtree(self.base, ignore_errors=True)
        task.return_boolean(True)


PyBaseClient.set_session_state_type(Agents.SandboxSessionState.__gtype__)


def test_python_backend_on_bases():
    client = PyBaseClient()
    check(isinstance(client, Agents.SandboxClient), "the client base implements the contract")
    check_equal(client.get_session_state_type(), Agents.SandboxSessionState.__gtype__,
                "session state type")
    session = call(client, "create", Agents.Manifest.new_from_data(MANIFEST, -1), None, None)
    root = session.get_manifest().get_root()
    try:
        check(isinstance(session, Agents.SandboxSession), "the session base implements the contract")
        check(not session.is_started(), "not started before start")
        check(call(session, "start"), "start returned FALSE")
        # The template: the backend first, then the workspace preparation
        # (which materialized the manifest through the primitives).
        check_equal(session.calls[0], "start_backend", "first step of start")
        check(session.is_started(), "started after start")
        check(call(session, "running"), "running")
        with open(os.path.join(root, "hello.txt")) as f:
            check_equal(f.read(), "hello from the manifest\n", "materialized file")
        check_equal(text_of(run_shell(session, "cat hello.txt")), "hello from the manifest\n",
                    "exec stdout")

        # The base's exec timeout, over a primitive that knows no timeout.
        e = expect_error(Agents.SandboxError.EXEC_TIMEOUT,
                         call, session, "exec", ["sleep 5"], 0.3, True, None)
        context = error_context(e)
        check_equal(context.get("timeout"), 0.3, "context timeout")
        check_equal(context.get("command")[-1], "sleep 5", "context command")

        # The state round-trips through the client base's (de)serializer.
        payload = client.serialize_session_state(session.get_state())
        restored = client.deserialize_session_state(payload)
        check_equal(restored.get_session_id(), session.get_state().get_session_id(),
                    "session id after deserialization")
        check_equal(restored.get_manifest().get_root(), root, "root after deserialization")
        e = expect_error(Agents.SandboxError.INVALID_JSON, client.deserialize_session_state,
                         Json.from_string('{"type": "docker"}'))
        # A foreign type is the reference's redacted refusal (STATE-04).
        check_equal(e.message, "sandbox session state payload is invalid",
                    "foreign state message")
        ctx = Agents.error_lookup_context(e.domain, e.code, e.message)
        check(ctx is None or not ctx.unpack(), "foreign state has no context")

        call(session, "shutdown")
        check(not session.is_started(), "not started after shutdown")
        check_equal(session.calls[-1], "shutdown_backend", "shutdown reached the backend")
    finally:
        call(client, "delete", session)
    check(not os.path.exists(client.base), "delete removed the session's directory")


def test_run_config_workspace_cwd():
    """The run's working directory in the workspace (workspace-cwd), apart
    from the host cwd of local sources, and refused when it escapes."""
    config = Agents.SandboxRunConfig.new()
    assert config.get_workspace_cwd() is None
    config.set_workspace_cwd("tasks/a")
    assert config.props.workspace_cwd == "tasks/a"
    assert config.get_cwd() is None
    assert config.validate()
    config.props.workspace_cwd = "tasks/../a"
    try:
        config.validate()
    except GLib.Error as e:
        assert e.matches(Agents.sandbox_error_quark(), Agents.SandboxError.INVALID_ARGUMENT)
        assert e.message == "sandbox.cwd must not contain parent segments", e.message
    else:
        raise AssertionError("an escaping workspace-cwd was accepted")
    manifest = Agents.Manifest.new()
    section = Agents.sandbox_filesystem_instructions_with_cwd(manifest, "tasks/a")
    assert "For this run, the working directory is `/workspace/tasks/a`." in section


TESTS = [
    ("unix_local session: write, exec, persist, resume, read back", test_unix_local_roundtrip),
    ("unix_local session: path escape error carries its context", test_error_context),
    ("manifest: lexical path escape error carries its context", test_error_context_lexical),
    ("sandbox error domain is named %s" % DOCUMENTED_ERROR_DOMAIN, test_error_domain_name),
    ("Python session: generic operations over Python primitives", test_python_session),
    ("a Python plugin's own error domain carries contexts", test_third_party_error_domain),
    ("Python backend derived from the session and client bases", test_python_backend_on_bases),
    ("run config workspace-cwd and its filesystem paragraph", test_run_config_workspace_cwd),
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
