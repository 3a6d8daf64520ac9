// test-sandbox.js - the sandbox API through GObject introspection (gjs)
//
// Copyright 2026 The libagents authors
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Run with `gjs -m`, with GI_TYPELIB_PATH and LD_LIBRARY_PATH pointing at
// the build's libagents/ and AGENTS_PLUGIN_PATH at the plugin modules.
// Prints TAP.

import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import GObject from 'gi://GObject';
import Json from 'gi://Json';
import Agents from 'gi://Agents?version=1.0';
import System from 'system';

// The name the documentation gives the sandbox error domain.
const DOCUMENTED_ERROR_DOMAIN = 'agents-sandbox-error-quark';
const CALL_TIMEOUT = 60; // seconds one async call may take

const encoder = new TextEncoder();
const decoder = new TextDecoder();

class Skip extends Error {}
class Todo extends Error {}

// Runs obj[method + '_async'](...args, cancellable, callback) to completion
// in a main loop of its own; returns what obj[method + '_finish'] returns
// (or throws its GLib.Error).
function call(obj, method, ...args) {
    const loop = new GLib.MainLoop(null, false);
    let result = null;
    obj[`${method}_async`](...args, null, (_source, res) => {
        result = res;
        loop.quit();
    });
    if (result === null) {
        const timer = GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, CALL_TIMEOUT, () => {
            loop.quit();
            return GLib.SOURCE_REMOVE;
        });
        loop.run();
        if (result === null)
            throw new Error(`${method}_async did not complete in ${CALL_TIMEOUT} s`);
        GLib.source_remove(timer);
    }
    return obj[`${method}_finish`](result);
}

function check(condition, what) {
    if (!condition)
        throw new Error(what);
}

function checkEqual(got, expected, what) {
    if (got !== expected)
        throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(got)}`);
}

// Calls fn(...args), which must throw a sandbox GLib.Error with code.
function expectError(code, fn, ...args) {
    try {
        fn(...args);
    } catch (e) {
        if (!(e instanceof GLib.Error))
            throw e;
        check(e.matches(Agents.sandbox_error_quark(), code),
            `expected sandbox error ${code}, got ${GLib.quark_to_string(e.domain)} ${e.code}: ${e.message}`);
        return e;
    }
    throw new Error(`no error thrown, expected sandbox error ${code}`);
}

// The context dictionary of a caught sandbox GLib.Error.
function errorContext(e) {
    return Agents.sandbox_error_lookup_context(e.domain, e.code, e.message).deepUnpack();
}

function unpackString(variant) {
    return variant === undefined ? undefined : variant.deepUnpack();
}

function bytes(text) {
    return new GLib.Bytes(encoder.encode(text));
}

function textOf(glibBytes) {
    return decoder.decode(glibBytes.get_data() ?? new Uint8Array());
}

function runShell(session, script) {
    return call(session, 'exec', [script], 30, true, null);
}

function deleteSession(client, session) {
    call(session, 'shutdown');
    call(client, 'delete', session);
}

function removeTree(path) {
    const file = Gio.File.new_for_path(path);
    const type = file.query_file_type(Gio.FileQueryInfoFlags.NOFOLLOW_SYMLINKS, null);
    if (type === Gio.FileType.UNKNOWN)
        return;
    if (type === Gio.FileType.DIRECTORY) {
        const children = file.enumerate_children('standard::name',
            Gio.FileQueryInfoFlags.NOFOLLOW_SYMLINKS, null);
        let info;
        while ((info = children.next_file(null)) !== null)
            removeTree(GLib.build_filenamev([path, info.get_name()]));
        children.close(null);
    }
    file.delete(null);
}

function readHostFile(path) {
    const [, contents] = GLib.file_get_contents(path);
    return decoder.decode(contents);
}

const MANIFEST = JSON.stringify({
    version: 1,
    entries: {
        'hello.txt': {type: 'file', content: 'hello from the manifest\n'},
    },
});

// ---- (a) a unix_local session, persisted and resumed ---------------------

function testUnixLocalRoundtrip() {
    const snapshots = GLib.dir_make_tmp('agents-js-snapshots-XXXXXX');
    try {
        const client = Agents.registry_new_sandbox_client('unix_local');
        checkEqual(client.get_backend_id(), 'unix_local', 'backend id');
        const manifest = Agents.Manifest.new_from_data(MANIFEST, -1);
        const spec = Agents.LocalSnapshotSpec.new(snapshots);

        const session = call(client, 'create', manifest, null, spec);
        call(session, 'start');
        const payload = 'written from javascript\n';
        check(call(session, 'write_bytes', 'notes/data.txt', bytes(payload), null),
            'write_bytes returned false');
        const result = runShell(session, 'cat notes/data.txt hello.txt');
        checkEqual(result.get_exit_code(), 0, 'exit code');
        checkEqual(result.dup_stdout_text(), `${payload}hello from the manifest\n`, 'stdout');

        check(call(session, 'stop'), 'stop returned false');
        const stateJson = Json.to_string(client.serialize_session_state(session.get_state()), false);
        const state = JSON.parse(stateJson);
        checkEqual(state.type, 'unix_local', 'state type');
        checkEqual(state.snapshot.type, 'local', 'snapshot type');
        deleteSession(client, session);

        const restored = client.deserialize_session_state(Json.from_string(stateJson));
        const resumed = call(client, 'resume', restored);
        call(resumed, 'start');
        checkEqual(textOf(call(resumed, 'read_bytes', 'notes/data.txt', null)), payload,
            'content read back after resume');
        deleteSession(client, resumed);
    } finally {
        removeTree(snapshots);
    }
}

// ---- (b) errors carry their context --------------------------------------

function testErrorContext() {
    const client = Agents.registry_new_sandbox_client('unix_local');
    const manifest = Agents.Manifest.new_from_data(MANIFEST, -1);
    const session = call(client, 'create', manifest, null, null);
    try {
        call(session, 'start');
        let e = expectError(Agents.SandboxError.INVALID_MANIFEST_PATH,
            call, session, 'read_bytes', '../outside.txt', null);
        let context = errorContext(e);
        checkEqual(unpackString(context.rel), '../outside.txt', 'context rel');
        checkEqual(unpackString(context.reason), 'escape_root', 'context reason');

        e = expectError(Agents.SandboxError.INVALID_MANIFEST_PATH,
            call, session, 'write_bytes', '/etc/agents-escape', bytes('x'), null);
        context = errorContext(e);
        checkEqual(unpackString(context.rel), '/etc/agents-escape', 'context rel (absolute)');
    } finally {
        deleteSession(client, session);
    }
}

function testErrorContextLexical() {
    // Raised synchronously, without a session.
    const manifest = Agents.Manifest.new_from_data(MANIFEST, -1);
    const e = expectError(Agents.SandboxError.INVALID_MANIFEST_PATH,
        () => manifest.resolve_path('a/../../b'));
    const context = errorContext(e);
    checkEqual(unpackString(context.rel), 'a/../../b', 'context rel');
    checkEqual(unpackString(context.reason), 'escape_root', 'context reason');
}

function testErrorDomainName() {
    const name = GLib.quark_to_string(Agents.sandbox_error_quark());
    if (name !== DOCUMENTED_ERROR_DOMAIN)
        throw new Error(`the error domain is '${name}', expected '${DOCUMENTED_ERROR_DOMAIN}'`);
}

// ---- (c) a sandbox session implemented in JavaScript ----------------------

// The JS sandbox is a host directory: the manifest root is BASE/workspace
// (an absolute host path, so workspace paths need no translation) and the
// sandbox's /tmp, where the library installs its runtime helpers, is
// BASE/tmp, so nothing is left on the host.

function sandboxError(code, message) {
    return Agents.sandbox_error_new_literal(code, null, message);
}

const JsSession = GObject.registerClass({
    Implements: [Agents.SandboxSession],
}, class JsSession extends GObject.Object {
    _init(manifest, base) {
        super._init();
        this.base = base;
        this.execLog = [];
        this.set_state(Agents.SandboxSessionState.new(manifest, null));
    }

    hostPath(path) {
        // BASE itself may well be under the host's /tmp.
        if (path === this.base || path.startsWith(`${this.base}/`))
            return path;
        if (path === '/tmp' || path.startsWith('/tmp/'))
            return `${this.base}/tmp${path.slice(4)}`;
        return path;
    }

    // The host path of a workspace path, or null after failing task.
    resolve(path, task) {
        try {
            return this.hostPath(this.get_manifest().resolve_path(path));
        } catch (e) {
            task.return_error(e);
            return null;
        }
    }

    // -- the primitives --

    vfunc_exec(argv, _timeout, task) {
        // The timeout is not enforced: these commands are the test's own.
        this.execLog.push([...argv]);
        const root = this.get_manifest().get_root();
        const launcher = Gio.SubprocessLauncher.new(
            Gio.SubprocessFlags.STDOUT_PIPE | Gio.SubprocessFlags.STDERR_PIPE);
        launcher.set_cwd(GLib.file_test(root, GLib.FileTest.IS_DIR) ? root : this.base);
        let proc;
        try {
            proc = launcher.spawnv(argv.map(arg => this.hostPath(arg)));
        } catch (e) {
            task.return_error(sandboxError(Agents.SandboxError.EXEC_TRANSPORT, e.message));
            return;
        }
        proc.communicate_async(null, task.get_cancellable(), (_proc, res) => {
            let out, err;
            try {
                [, out, err] = proc.communicate_finish(res);
            } catch (e) {
                task.return_error(sandboxError(Agents.SandboxError.EXEC_TRANSPORT, e.message));
                return;
            }
            const status = proc.get_if_exited() ? proc.get_exit_status() : 128 + proc.get_term_sig();
            Agents.task_return_object(task, Agents.ExecResult.new(out, err, status));
        });
    }

    vfunc_read(path, _user, task) {
        const host = this.resolve(path, task);
        if (host === null)
            return;
        try {
            Agents.task_return_object(task, Gio.File.new_for_path(host).read(null));
        } catch (e) {
            task.return_error(sandboxError(Agents.SandboxError.WORKSPACE_READ_NOT_FOUND, e.message));
        }
    }

    vfunc_write(path, data, _user, task) {
        const host = this.resolve(path, task);
        if (host === null)
            return;
        try {
            GLib.mkdir_with_parents(GLib.path_get_dirname(host), 0o755);
            const out = Gio.File.new_for_path(host).replace(null, false,
                Gio.FileCreateFlags.NONE, null);
            out.splice(data, Gio.OutputStreamSpliceFlags.CLOSE_SOURCE |
                Gio.OutputStreamSpliceFlags.CLOSE_TARGET, null);
        } catch (e) {
            task.return_error(sandboxError(Agents.SandboxError.WORKSPACE_ARCHIVE_WRITE, e.message));
            return;
        }
        task.return_boolean(true);
    }

    vfunc_running(task) {
        task.return_boolean(GLib.file_test(this.get_manifest().get_root(), GLib.FileTest.IS_DIR));
    }

    vfunc_stop(task) {
        // Nothing to persist: the workspace stays where it is.
        task.return_boolean(true);
    }

    // start, shutdown, ls, mkdir, rm, apply_manifest, path validation …
    // are the library's generic implementations.
});

const JsClient = GObject.registerClass({
    Implements: [Agents.SandboxClient],
}, class JsClient extends GObject.Object {
    _init() {
        super._init();
        this.base = GLib.dir_make_tmp('agents-js-session-XXXXXX');
    }

    vfunc_get_backend_id() {
        return 'js_local';
    }

    vfunc_supports_default_options() {
        return true;
    }

    vfunc_create(manifest, _options, _snapshot, task) {
        const copy = manifest.copy();
        copy.set_root(`${this.base}/workspace`);
        Agents.task_return_object(task, new JsSession(copy, this.base));
    }

    vfunc_delete(_session, task) {
        removeTree(this.base);
        task.return_boolean(true);
    }
});

function testJsSession() {
    Agents.registry_register_sandbox_client('js_local', JsClient.$gtype);
    check(Agents.registry_list(Agents.RegistryKind.SANDBOX_CLIENT).includes('js_local'),
        'js_local is listed');
    const client = Agents.registry_new_sandbox_client('js_local');
    check(client instanceof JsClient, 'the registry built a JsClient');
    const base = client.base;

    const session = call(client, 'create', Agents.Manifest.new_from_data(MANIFEST, -1), null, null);
    const root = session.get_manifest().get_root();
    try {
        // The generic start materializes the manifest through exec + write.
        check(call(session, 'start'), 'start returned false');
        check(call(session, 'running'), 'running');
        checkEqual(readHostFile(`${root}/hello.txt`), 'hello from the manifest\n',
            'materialized file');
        checkEqual(runShell(session, 'cat hello.txt').dup_stdout_text(),
            'hello from the manifest\n', 'exec stdout');

        // Generic mkdir / write / ls / rm over the JS primitives.
        check(call(session, 'mkdir', 'sub/dir', true), 'mkdir returned false');
        check(GLib.file_test(`${root}/sub/dir`, GLib.FileTest.IS_DIR), 'mkdir made the directory');
        call(session, 'write_bytes', 'sub/dir/f.txt', bytes('abc'), null);
        checkEqual(textOf(call(session, 'read_bytes', 'sub/dir/f.txt', null)), 'abc', 'read back');
        const listing = call(session, 'ls', 'sub/dir');
        const paths = [];
        for (let i = 0; i < listing.get_n_items(); i++)
            paths.push(listing.get_item(i).get_path());
        check(paths.some(p => p.endsWith('/f.txt')), `ls lists f.txt: ${paths}`);
        check(call(session, 'rm', 'sub', true), 'rm returned false');
        check(!GLib.file_test(`${root}/sub`, GLib.FileTest.EXISTS), 'rm removed the tree');
        check(session.execLog.some(argv => argv[0] === 'rm' && argv[1] === '-rf'),
            'rm ran through the JS exec primitive');

        // apply_manifest of a new file entry.
        session.get_manifest().set_entry('added/new.txt', Agents.File.new_from_text('added\n'));
        check(call(session, 'apply_manifest', false) !== null, 'apply_manifest returned files');
        checkEqual(readHostFile(`${root}/added/new.txt`), 'added\n', 'applied entry');

        // The generic path checks run over the JS primitives too.
        const e = expectError(Agents.SandboxError.INVALID_MANIFEST_PATH,
            call, session, 'mkdir', '../escape', false);
        checkEqual(unpackString(errorContext(e).reason), 'escape_root', 'context reason');
        check(!GLib.file_test(`${base}/escape`, GLib.FileTest.EXISTS), 'nothing escaped');

        // Errors returned by a JS primitive reach the caller.
        expectError(Agents.SandboxError.WORKSPACE_READ_NOT_FOUND,
            call, session, 'read_bytes', 'missing.txt', null);
        check(call(session, 'stop'), 'stop returned false');
    } finally {
        deleteSession(client, session);
    }
    check(!GLib.file_test(base, GLib.FileTest.EXISTS), "delete removed the session's directory");
}

const TESTS = [
    ['unix_local session: write, exec, persist, resume, read back', testUnixLocalRoundtrip],
    ['unix_local session: path escape error carries its context', testErrorContext],
    ['manifest: lexical path escape error carries its context', testErrorContextLexical],
    [`sandbox error domain is named ${DOCUMENTED_ERROR_DOMAIN}`, testErrorDomainName],
    ['JS session: generic operations over JS primitives', testJsSession],
];

function main() {
    print(`1..${TESTS.length}`);
    let failed = 0;
    TESTS.forEach(([name, test], index) => {
        const number = index + 1;
        try {
            test();
            print(`ok ${number} - ${name}`);
        } catch (e) {
            if (e instanceof Skip) {
                print(`ok ${number} - ${name} # SKIP ${e.message}`);
            } else if (e instanceof Todo) {
                print(`not ok ${number} - ${name} # TODO ${e.message}`);
            } else {
                failed++;
                print(`not ok ${number} - ${name}`);
                for (const line of `${e}\n${e.stack ?? ''}`.split('\n'))
                    print(`# ${line}`);
            }
        }
    });
    return failed ? 1 : 0;
}

System.exit(main());
