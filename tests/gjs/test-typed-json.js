// test-typed-json.js - typed-JSON families extended from JavaScript (gjs)
//
// Copyright 2026 The libagents authors
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Reference case MAN-22 from gjs: an environment value type registered by
// the binding round-trips through a manifest's JSON without its secret and
// resolves asynchronously; a snapshot type registered from gjs is read
// back from JSON; a session state type of its own is registered, written
// and read back. Prints TAP.

import GLib from 'gi://GLib';
import GObject from 'gi://GObject';
import Json from 'gi://Json';
import Agents from 'gi://Agents?version=1.0';
import System from 'system';

function call(obj, method, ...args) {
    const loop = new GLib.MainLoop(null, false);
    let result = null;
    obj[`${method}_async`](...args, null, (_source, res) => {
        result = res;
        loop.quit();
    });
    if (result === null)
        loop.run();
    return obj[`${method}_finish`](result);
}

function check(condition, what) {
    if (!condition)
        throw new Error(what);
}

const SecretReference = GObject.registerClass({
    GTypeName: 'TestJsSecretReference',
    Properties: {
        'key': GObject.ParamSpec.string('key', null, null,
            GObject.ParamFlags.READWRITE, ''),
    },
}, class SecretReference extends Agents.EnvValue {
    vfunc_serialize_fields(builder) {
        builder.set_member_name('key');
        builder.add_string_value(this.key);
    }

    vfunc_deserialize_fields(object) {
        this.key = object.get_string_member('key');
        return true;
    }

    vfunc_resolve(task) {
        const text = `resolved-secret-for-${this.key}`;
        GLib.idle_add(GLib.PRIORITY_DEFAULT, () => {
            Agents.task_return_string(task, text);
            return GLib.SOURCE_REMOVE;
        });
    }
});

const JsSnapshot = GObject.registerClass({
    GTypeName: 'TestJsSnapshot',
    Implements: [Agents.Snapshot],
    Properties: {
        'id': GObject.ParamSpec.string('id', null, null,
            GObject.ParamFlags.READWRITE, ''),
    },
}, class JsSnapshot extends GObject.Object {});

const JsSessionState = GObject.registerClass({
    GTypeName: 'TestJsSessionState',
    Properties: {
        'region': GObject.ParamSpec.string('region', null, null,
            GObject.ParamFlags.READWRITE, ''),
    },
}, class JsSessionState extends Agents.SandboxSessionState {
    vfunc_serialize_fields(builder) {
        builder.set_member_name('region');
        builder.add_string_value(this.region);
    }

    vfunc_deserialize_fields(object) {
        this.region = object.get_string_member('region');
        return true;
    }

    vfunc_copy_fields(dest) {
        dest.region = this.region;
    }
});

const tests = [
    function envValueFromJs() {
        Agents.typed_json_register(Agents.EnvValue.$gtype,
            'test.secret_reference', SecretReference.$gtype);
        const manifest = Agents.Manifest.new();
        manifest.set_env_value('DIRECT', new SecretReference({key: 'direct'}));
        const [text] = manifest.to_data();
        const env = JSON.parse(text).environment.value;
        check(JSON.stringify(env.DIRECT) ===
            '{"type":"test.secret_reference","key":"direct"}', text);
        check(!text.includes('resolved-secret'), text);

        const back = Agents.Manifest.new_from_data(text, -1);
        const restored = back.get_env_value('DIRECT');
        check(restored instanceof SecretReference, `restored ${restored}`);
        const resolved = call(back, 'resolve_environment');
        check(resolved.DIRECT === 'resolved-secret-for-direct',
            `resolved ${JSON.stringify(resolved)}`);
    },
    function snapshotFromJs() {
        Agents.registry_register_snapshot_type('test-js', JsSnapshot.$gtype);
        const snapshot = Agents.typed_json_new_from_json(Agents.Snapshot.$gtype,
            Json.from_string('{"type":"test-js","id":"registered"}'));
        check(snapshot instanceof JsSnapshot, `snapshot ${snapshot}`);
        check(snapshot.get_id() === 'registered', snapshot.get_id());
        const names = Agents.typed_json_list(Agents.Snapshot.$gtype);
        check(names.includes('test-js'), `names ${names}`);
    },
    function sessionStateFromJs() {
        const family = Agents.SandboxSessionState.$gtype;
        Agents.typed_json_register(family, 'test-js-state',
            JsSessionState.$gtype);
        check(Agents.SandboxSessionState.type_get_name(JsSessionState.$gtype) ===
            'test-js-state', 'named by its registration');
        const state = new JsSessionState({region: 'eu-west-1'});
        const text = Json.to_string(state.to_json(), false);
        const members = JSON.parse(text);
        check(Object.keys(members)[0] === 'type', text);
        check(members.type === 'test-js-state', text);
        check(members.region === 'eu-west-1', text);
        const back = Agents.SandboxSessionState.new_from_json(
            Json.from_string(text));
        check(back instanceof JsSessionState, `read as ${back}`);
        check(back.region === 'eu-west-1', back.region);
        check(back.get_session_id() === state.get_session_id(), 'same id');
        check(Json.to_string(back.to_json(), false) === text, 'round trip');
        const copy = state.copy();
        check(copy instanceof JsSessionState && copy.region === 'eu-west-1',
            'copied with its members');
        check(Agents.registry_list(Agents.RegistryKind.SESSION_STATE)
            .includes('test-js-state'), 'listed by the registry');
    },
];

let failed = 0;
tests.forEach((test, i) => {
    try {
        test();
        print(`ok ${i + 1} - ${test.name}`);
    } catch (e) {
        failed++;
        print(`not ok ${i + 1} - ${test.name}`);
        for (const line of `${e}\n${e.stack}`.split('\n'))
            print(`# ${line}`);
    }
});
print(`1..${tests.length}`);
System.exit(failed ? 1 : 0);
