#!/usr/bin/python3
# sandbox.py - run a command in a confined unix_local sandbox from Python
#
# Copyright 2026 The libagents authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
#   /usr/bin/python3 examples/python/sandbox.py ['COMMAND']
#
# From an uninstalled build directory `build`, point the loaders at it:
#
#   GI_TYPELIB_PATH=build/libagents LD_LIBRARY_PATH=build/libagents \
#   AGENTS_PLUGIN_PATH=build/plugins/unix-local \
#   /usr/bin/python3 examples/python/sandbox.py

import json
import sys

import gi

gi.require_version("Agents", "1.0")
from gi.repository import Agents, GLib  # noqa: E402


def wait(obj, operation, *args):
    """Calls obj.OPERATION_async(*args) and waits for it in a main loop;
    returns what obj.OPERATION_finish() returns (or raises its GLib.Error).
    An application with a running main loop would chain callbacks instead."""
    loop = GLib.MainLoop()
    results = []

    def done(source, result):
        results.append(result)
        loop.quit()

    getattr(obj, operation + "_async")(*args, None, done)  # None: no GCancellable
    loop.run()
    return getattr(obj, operation + "_finish")(results[0])


# What the workspace is made of: one file and an environment variable.
manifest = Agents.Manifest.new_from_data(json.dumps({
    "entries": {
        "hello.txt": {"type": "file", "content": "Hello from the manifest!\n"},
    },
    "environment": {"GREETING": "hi from the environment"},
}), -1)
command = sys.argv[1] if len(sys.argv) > 1 else 'ls -l && cat hello.txt && echo "$GREETING"'

# Backends are found by name; unix_local runs commands confined on this
# machine (bubblewrap, or Landlock and seccomp).
client = Agents.registry_new_sandbox_client("unix_local")
session = wait(client, "create", manifest, None, None)
status = 1
try:
    wait(session, "start")  # materializes the manifest

    # Run the command through `sh -c`, with a 30 s timeout, in the
    # workspace root. A non-zero exit status is not an error.
    result = wait(session, "exec", [command], 30, True, None)
    sys.stdout.write(result.dup_stdout_text())
    sys.stderr.write(result.dup_stderr_text())
    status = result.get_exit_code()
except GLib.Error as e:
    # Sandbox errors carry a context dictionary (paths, reasons, …);
    # PyGObject gives the error domain as a string.
    context = Agents.sandbox_error_lookup_context(GLib.quark_from_string(e.domain),
                                                  e.code, e.message)
    print("error:", e.message, context.unpack(), file=sys.stderr)
finally:
    # Tear the sandbox down and delete its workspace.
    wait(session, "shutdown")
    wait(client, "delete", session)

sys.exit(status)
