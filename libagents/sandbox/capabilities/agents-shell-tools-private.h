/* agents-shell-tools-private.h - exec_command
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-capability.h"
#include "agents-pty-rules-private.h"
#include "run/agents-tool.h"

G_BEGIN_DECLS

/* The reference's `exec_command` function tool (wave2-reference §1.2),
 * non-strict schema, over @capability's bound session as its run-as
 * user: in the session's process table when it supports PTYs, else
 * one-shot with `yield_time_ms` as the kill timeout. */
AgentsTool *agents_exec_command_tool_new (AgentsCapability *capability);

/* The reference's `write_stdin` function tool (wave2-reference §1.3),
 * non-strict schema, for sessions that support PTYs. */
AgentsTool *agents_write_stdin_tool_new (AgentsCapability *capability);

/* The Shell capability's instructions (our words, the reference's
 * points). */
extern const char agents_shell_instructions[];

/* Test hook, as the reference's tests patch uuid4 and perf_counter:
 * @chunk_id (a fixed Chunk ID) and @clock (a monotonic clock in seconds,
 * read when the command starts and when it ends) replace the random id
 * and the real clock; %NULL restores them. */
typedef double (*AgentsShellClockFunc) (void);
void agents_shell_set_test_hooks (const char *chunk_id,
                                  AgentsShellClockFunc clock);

G_END_DECLS
