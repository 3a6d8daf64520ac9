/* agents-memory-capability-private.h - what the runtime asks of memory
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-memory-capability.h"
#include "run/agents-run-result.h"

G_BEGIN_DECLS

/* The largest memory summary put in the instructions, in tokens. */
#define AGENTS_MEMORY_SUMMARY_MAX_TOKENS 15000
/* The largest rollout given to phase one, in tokens. */
#define AGENTS_MEMORY_ROLLOUT_MAX_TOKENS 150000
/* The most raw memories phase two consolidates. */
#define AGENTS_MEMORY_MAX_RAW_MEMORIES 256

/* Appends the rollout line of @result (a finished run of the agent
 * @self belongs to) to `<sessions_dir>/<rollout_id>.jsonl` in the bound
 * session. The rollout id is the session's (made on its first run). */
void agents_memory_capability_record_run_async (AgentsMemoryCapability *self,
                                                AgentsRunResult *result,
                                                GCancellable *cancellable,
                                                GAsyncReadyCallback callback,
                                                gpointer user_data);
gboolean agents_memory_capability_record_run_finish (
  AgentsMemoryCapability *self, GAsyncResult *result, GError **error);

/* Registers, once per session until it runs, a pre-stop hook on the
 * bound session that runs the generate phases with @model (NULL: the
 * capability's model). */
void
agents_memory_capability_generate_before_stop (AgentsMemoryCapability *self,
                                               AgentsModel *model);

/* Shared by the files of the capability. */

struct _AgentsMemoryCapability
{
  GObject parent_instance;

  gboolean read;
  gboolean live_update;
  gboolean generate;
  char *memories_dir;
  char *sessions_dir;
  AgentsModel *model;
  char *phase_one_model;
  char *phase_two_model;
};

/* A prompt of the capability's resources. */
char *agents_memory_load_prompt (const char *name);
/* Fills `{name}` placeholders of @template in one pass, so a value is
 * never searched for placeholders itself. @pairs: name, value, …, NULL. */
char *agents_memory_fill_template (const char *template,
                                   const char *const *pairs);
char *agents_memory_now_iso8601 (void);
/* @text as bytes, which take it. */
GBytes *agents_memory_text_bytes (char *text);

/* The rollout id of @session, or NULL before its first recorded run. */
const char *agents_memory_session_rollout_id (AgentsSandboxSession *session);

G_END_DECLS
