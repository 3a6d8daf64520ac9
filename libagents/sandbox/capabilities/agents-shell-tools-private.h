/* agents-shell-tools-private.h - exec_command and write_stdin
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

/* Integer arguments larger than this (in magnitude) are refused: every
 * smaller one is exact as a double. */
#define AGENTS_SHELL_MAX_INTEGER_ARGUMENT 1e15

/* exec_command's arguments as the model sent them, checked against its
 * schema: @cmd non-empty, @shell %NULL or non-empty, @yield_time_ms in
 * 0..AGENTS_SHELL_MAX_INTEGER_ARGUMENT, @max_output_tokens -1 (none) or
 * in 1..AGENTS_SHELL_MAX_INTEGER_ARGUMENT. */
typedef struct
{
  char *cmd;
  char *workdir;
  char *shell;
  gboolean login;
  gboolean tty;
  gint64 yield_time_ms;
  gint64 max_output_tokens; /* -1: none */
} AgentsExecArgs;

/* write_stdin's: @session_id within ±AGENTS_SHELL_MAX_INTEGER_ARGUMENT,
 * @chars %NULL when absent, the others as exec_command's. */
typedef struct
{
  gint64 session_id;
  char *chars;
  gint64 yield_time_ms;
  gint64 max_output_tokens; /* -1: none */
} AgentsWriteArgs;

/* The arguments of a call, or %NULL with an error the model reads. */
AgentsExecArgs *agents_exec_args_parse (const char *arguments, GError **error);
void agents_exec_args_free (AgentsExecArgs *args);
AgentsWriteArgs *agents_write_args_parse (const char *arguments,
                                          GError **error);
void agents_write_args_free (AgentsWriteArgs *args);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AgentsExecArgs, agents_exec_args_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AgentsWriteArgs, agents_write_args_free)

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
