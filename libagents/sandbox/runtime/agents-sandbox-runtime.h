/* agents-sandbox-runtime.h - preparing sandbox agents for a run
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

#include "sandbox/capabilities/agents-capability.h"
#include "agents-sandbox-agent.h"
#include "agents-sandbox-session-manager.h"
#include "run/agents-run-config.h"
#include "run/agents-run-context.h"
#include "run/agents-run-state.h"
#include "run/agents-tracing.h"

G_BEGIN_DECLS

/* AgentsSandboxPreparedAgent */

#define AGENTS_TYPE_SANDBOX_PREPARED_AGENT \
  (agents_sandbox_prepared_agent_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (AgentsSandboxPreparedAgent,
                      agents_sandbox_prepared_agent,
                      AGENTS,
                      SANDBOX_PREPARED_AGENT,
                      GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsAgent *
agents_sandbox_prepared_agent_get_agent (AgentsSandboxPreparedAgent *self);
AGENTS_AVAILABLE_IN_1_0
AgentsAgent *agents_sandbox_prepared_agent_get_execution_agent (
  AgentsSandboxPreparedAgent *self);
AGENTS_AVAILABLE_IN_1_0
JsonNode *
agents_sandbox_prepared_agent_get_input (AgentsSandboxPreparedAgent *self);
AGENTS_AVAILABLE_IN_1_0
AgentsSandboxSession *
agents_sandbox_prepared_agent_get_session (AgentsSandboxPreparedAgent *self);

/* AgentsSandboxRuntime */

#define AGENTS_TYPE_SANDBOX_RUNTIME (agents_sandbox_runtime_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (AgentsSandboxRuntime,
                      agents_sandbox_runtime,
                      AGENTS,
                      SANDBOX_RUNTIME,
                      GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsSandboxRuntime *agents_sandbox_runtime_new (AgentsAgent *starting_agent,
                                                  AgentsRunConfig *run_config,
                                                  AgentsRunState *run_state);

AGENTS_AVAILABLE_IN_1_0
AgentsSandboxSessionManager *
agents_sandbox_runtime_get_session_manager (AgentsSandboxRuntime *self);
AGENTS_AVAILABLE_IN_1_0
AgentsAgent *
agents_sandbox_runtime_get_current_agent (AgentsSandboxRuntime *self);
AGENTS_AVAILABLE_IN_1_0
AgentsCapability *agents_sandbox_runtime_get_memory_generation_manager (
  AgentsSandboxRuntime *self);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_runtime_set_trace (AgentsSandboxRuntime *self,
                                       AgentsTrace *trace,
                                       AgentsSpan *parent);

AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_runtime_prepare_agent_async (AgentsSandboxRuntime *self,
                                                 AgentsAgent *agent,
                                                 JsonNode *input,
                                                 AgentsRunContext *ctx,
                                                 gboolean is_resumed_state,
                                                 GCancellable *cancellable,
                                                 GAsyncReadyCallback callback,
                                                 gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
AgentsSandboxPreparedAgent *agents_sandbox_runtime_prepare_agent_finish (
  AgentsSandboxRuntime *self,
  GAsyncResult *result,
  GError **error) G_GNUC_WARN_UNUSED_RESULT;

AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_runtime_cleanup_async (AgentsSandboxRuntime *self,
                                           GCancellable *cancellable,
                                           GAsyncReadyCallback callback,
                                           gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
JsonObject *agents_sandbox_runtime_cleanup_finish (AgentsSandboxRuntime *self,
                                                   GAsyncResult *result,
                                                   GError **error)
  G_GNUC_WARN_UNUSED_RESULT;

G_END_DECLS
