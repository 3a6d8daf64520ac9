// promisify.js - Promise-returning _async methods of libagents for gjs
//
// Copyright 2026 The libagents authors
// SPDX-License-Identifier: LGPL-2.1-or-later
//
// Importing this module wraps the public _async/_finish pairs with
// Gio._promisify: called without their callback, they return a Promise of
// what the _finish function returns (a GLib.Error rejects it); called with
// one, they work as before.
//
//   import Agents from 'gi://Agents?version=1.0';
//   import '/usr/share/libagents/gjs/promisify.js';
//
//   const result = await new Agents.Runner().run_async(agent, input,
//       null, null, null, null);
//
// Import it before the first call of any of these methods: gjs copies an
// interface's method onto an implementing class when first looked up.

import Gio from 'gi://Gio';
import Agents from 'gi://Agents?version=1.0';

/**
 * The wrapped methods: a prototype's name in Agents and its operations
 * (OP_async and OP_finish).
 */
export const PROMISIFIED = {
    Runner: ['run', 'resume'],
    RunResultStreaming: ['next_event', 'wait'],
    Model: ['get_response'],
    ConversationSession: ['get_items', 'add_items', 'pop_item', 'clear'],
    SandboxClient: ['create', 'resume', 'delete'],
    SandboxSession: [
        'start', 'stop', 'shutdown', 'close', 'exec', 'read', 'read_bytes',
        'write', 'write_bytes', 'ls', 'mkdir', 'rm', 'running',
        'apply_manifest', 'persist_workspace', 'hydrate_workspace',
    ],
    Snapshot: ['persist', 'restore', 'restorable'],
    Tool: ['invoke'],
};

for (const [type, operations] of Object.entries(PROMISIFIED)) {
    const proto = Agents[type].prototype;
    for (const op of operations)
        Gio._promisify(proto, `${op}_async`, `${op}_finish`);
}
