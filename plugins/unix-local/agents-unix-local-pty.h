/* agents-unix-local-pty.h - unix_local processes that run on between calls
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents.h"
#include "agents-unix-local-confine.h"

G_BEGIN_DECLS

#define AGENTS_TYPE_UNIX_LOCAL_PROCESS (agents_unix_local_process_get_type ())

G_DECLARE_FINAL_TYPE (AgentsUnixLocalProcess,
                      agents_unix_local_process,
                      AGENTS,
                      UNIX_LOCAL_PROCESS,
                      AgentsSandboxProcess)

/* Opens a PTY (80×24): the master non-blocking, both close-on-exec. An
 * EXEC_TRANSPORT error when the system has none to give. */
gboolean agents_unix_local_pty_open (int *master, int *slave, GError **error);

/* Watches @child (its pidfd and pipes then owned), spawned on the slave
 * of @master (then owned; -1 when it runs with piped stdout and stderr
 * instead), in @cgroup (owned; may be NULL). */
AgentsSandboxProcess *agents_unix_local_process_new (
  const AgentsUnixLocalChild *child, int master, AgentsUnixLocalCgroup *cgroup);

G_END_DECLS
