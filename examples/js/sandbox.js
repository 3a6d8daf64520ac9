// sandbox.js - run a command in a confined unix_local sandbox from JavaScript
//
// Copyright 2026 The libagents authors
// SPDX-License-Identifier: LGPL-2.1-or-later
//
//   gjs -m examples/js/sandbox.js ['COMMAND']
//
// From an uninstalled build directory `build`, point the loaders at it:
//
//   GI_TYPELIB_PATH=build/libagents LD_LIBRARY_PATH=build/libagents \
//   AGENTS_PLUGIN_PATH=build/plugins/unix-local gjs -m examples/js/sandbox.js

import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import Agents from 'gi://Agents?version=1.0';
import System from 'system';

// Turn the _async/_finish pairs we use into functions returning promises.
Gio._promisify(Agents.SandboxClient.prototype, 'create_async', 'create_finish');
Gio._promisify(Agents.SandboxClient.prototype, 'delete_async', 'delete_finish');
for (const op of ['start', 'exec', 'shutdown'])
    Gio._promisify(Agents.SandboxSession.prototype, `${op}_async`, `${op}_finish`);

// What the workspace is made of: one file and an environment variable.
const manifest = Agents.Manifest.new_from_data(JSON.stringify({
    entries: {
        'hello.txt': {type: 'file', content: 'Hello from the manifest!\n'},
    },
    environment: {GREETING: 'hi from the environment'},
}), -1);

const command = ARGV[0] ?? 'ls -l && cat hello.txt && echo "$GREETING"';

async function main() {
    // Backends are found by name; unix_local runs commands confined on
    // this machine (bubblewrap, or Landlock and seccomp).
    const client = Agents.registry_new_sandbox_client('unix_local');
    const session = await client.create_async(manifest, null, null, null);
    try {
        await session.start_async(null); // materializes the manifest

        // Run the command through `sh -c`, with a 30 s timeout, in the
        // workspace root. A non-zero exit status is not an error.
        const result = await session.exec_async([command], 30, true, null, null);
        const [out, err] = [result.dup_stdout_text(), result.dup_stderr_text()];
        if (out)
            print(out.replace(/\n$/, ''));
        if (err)
            printerr(err.replace(/\n$/, ''));
        return result.get_exit_code();
    } catch (e) {
        if (!(e instanceof GLib.Error))
            throw e;
        // Sandbox errors carry a context dictionary (paths, reasons, …).
        const context = Agents.sandbox_error_lookup_context(e.domain, e.code, e.message);
        printerr(`error: ${e.message} ${context.print(false)}`);
        return 1;
    } finally {
        // Tear the sandbox down and delete its workspace.
        await session.shutdown_async(null);
        await client.delete_async(session, null);
    }
}

const loop = new GLib.MainLoop(null, false);
let status = 1;
main().then(s => {
    status = s;
}).catch(e => {
    printerr(`error: ${e.message}`);
}).finally(() => loop.quit());
loop.run();
System.exit(status);
