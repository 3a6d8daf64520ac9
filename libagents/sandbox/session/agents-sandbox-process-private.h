/* agents-sandbox-process-private.h - processes that outlive one call
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-sandbox-process.h"

G_BEGIN_DECLS

/* How much of a process's output is kept between two collects, from its
 * start and as much from its end; what lies between is only counted. */
#define AGENTS_SANDBOX_PROCESS_KEPT_BYTES (1024 * 1024)

/* Takes what the process printed since the last call: the kept head and
 * tail, with the number of bytes and line ends dropped between them. */
GBytes *agents_sandbox_process_steal_output (AgentsSandboxProcess *self,
                                             guint64 *omitted_bytes,
                                             guint64 *omitted_lines);

G_END_DECLS
