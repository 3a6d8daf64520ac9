/* agents-sandbox-process-table-private.h - a session's running processes
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-sandbox-process.h"

G_BEGIN_DECLS

/* Sets the defaults of the process vfuncs of the session interface. */
void agents_sandbox_session_process_iface_init (
  AgentsSandboxSessionInterface *iface);

/* The session's process table, for tests: the process of @process_id,
 * or NULL (without making it more recently used). */
AgentsSandboxProcess *
agents_sandbox_session_pty_lookup (AgentsSandboxSession *self,
                                   gint64 process_id);

/* Test hook: when set, the next process ids are taken from @ids (a
 * -1-terminated list, not copied) instead of drawn at random. */
void agents_sandbox_session_pty_set_test_ids (const gint64 *ids);

G_END_DECLS
