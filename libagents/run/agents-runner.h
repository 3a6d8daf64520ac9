/* agents-runner.h - the turn loop that runs agents
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "agents-agent.h"
#include "agents-conversation-session.h"
#include "agents-run-config.h"
#include "agents-run-result.h"
#include "agents-run-state.h"
#include "agents-version-macros.h"

G_BEGIN_DECLS

#define AGENTS_TYPE_RUNNER (agents_runner_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (AgentsRunner, agents_runner, AGENTS, RUNNER, GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsRunner *agents_runner_new (void);

AGENTS_AVAILABLE_IN_1_0
void agents_runner_run_async (AgentsRunner *self,
                              AgentsAgent *agent,
                              JsonNode *input,
                              AgentsRunConfig *config,
                              AgentsConversationSession *session,
                              GObject *context,
                              GCancellable *cancellable,
                              GAsyncReadyCallback callback,
                              gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
AgentsRunResult *
agents_runner_run_finish (AgentsRunner *self,
                          GAsyncResult *result,
                          GError **error) G_GNUC_WARN_UNUSED_RESULT;

AGENTS_AVAILABLE_IN_1_0
void agents_runner_resume_async (AgentsRunner *self,
                                 AgentsAgent *agent,
                                 AgentsRunState *state,
                                 AgentsRunConfig *config,
                                 AgentsConversationSession *session,
                                 GCancellable *cancellable,
                                 GAsyncReadyCallback callback,
                                 gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
AgentsRunResult *
agents_runner_resume_finish (AgentsRunner *self,
                             GAsyncResult *result,
                             GError **error) G_GNUC_WARN_UNUSED_RESULT;

AGENTS_AVAILABLE_IN_1_0
AgentsRunResultStreaming *
agents_runner_run_streamed (AgentsRunner *self,
                            AgentsAgent *agent,
                            JsonNode *input,
                            AgentsRunConfig *config,
                            AgentsConversationSession *session,
                            GObject *context) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
AgentsRunResultStreaming *agents_runner_resume_streamed (
  AgentsRunner *self,
  AgentsAgent *agent,
  AgentsRunState *state,
  AgentsRunConfig *config,
  AgentsConversationSession *session) G_GNUC_WARN_UNUSED_RESULT;

G_END_DECLS
