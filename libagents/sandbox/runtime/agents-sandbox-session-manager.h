/* agents-sandbox-session-manager.h - the sandbox sessions of one run
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

#include "agents-sandbox-agent.h"
#include "agents-sandbox-run-config.h"
#include "run/agents-run-state.h"

G_BEGIN_DECLS

#define AGENTS_TYPE_SANDBOX_SESSION_MANAGER \
  (agents_sandbox_session_manager_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (AgentsSandboxSessionManager,
                      agents_sandbox_session_manager,
                      AGENTS,
                      SANDBOX_SESSION_MANAGER,
                      GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsSandboxSessionManager *
agents_sandbox_session_manager_new (AgentsAgent *starting_agent,
                                    AgentsSandboxRunConfig *config,
                                    AgentsRunState *run_state);

AGENTS_AVAILABLE_IN_1_0
AgentsAgent *agents_sandbox_session_manager_get_starting_agent (
  AgentsSandboxSessionManager *self);
AGENTS_AVAILABLE_IN_1_0
AgentsSandboxRunConfig *
agents_sandbox_session_manager_get_config (AgentsSandboxSessionManager *self);
AGENTS_AVAILABLE_IN_1_0
AgentsRunState *agents_sandbox_session_manager_get_run_state (
  AgentsSandboxSessionManager *self);

AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_session_manager_acquire_agent (
  AgentsSandboxSessionManager *self, AgentsAgent *agent, GError **error);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_manager_release_agents (
  AgentsSandboxSessionManager *self);

AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_manager_ensure_session_async (
  AgentsSandboxSessionManager *self,
  AgentsSandboxAgent *agent,
  GPtrArray *capabilities,
  gboolean is_resumed_state,
  GCancellable *cancellable,
  GAsyncReadyCallback callback,
  gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
AgentsSandboxSession *agents_sandbox_session_manager_ensure_session_finish (
  AgentsSandboxSessionManager *self,
  GAsyncResult *result,
  GError **error) G_GNUC_WARN_UNUSED_RESULT;

AGENTS_AVAILABLE_IN_1_0
AgentsSandboxSession *
agents_sandbox_session_manager_get_session (AgentsSandboxSessionManager *self,
                                            AgentsAgent *agent);

AGENTS_AVAILABLE_IN_1_0
void
agents_sandbox_session_manager_cleanup_async (AgentsSandboxSessionManager *self,
                                              GCancellable *cancellable,
                                              GAsyncReadyCallback callback,
                                              gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
JsonObject *agents_sandbox_session_manager_cleanup_finish (
  AgentsSandboxSessionManager *self,
  GAsyncResult *result,
  GError **error) G_GNUC_WARN_UNUSED_RESULT;

AGENTS_AVAILABLE_IN_1_0
const char *agents_sandbox_session_manager_ensure_resume_key (
  AgentsSandboxSessionManager *self, AgentsAgent *agent);
AGENTS_AVAILABLE_IN_1_0
JsonNode *agents_sandbox_session_manager_resume_state_payload_for_agent (
  AgentsSandboxSessionManager *self,
  AgentsAgent *agent) G_GNUC_WARN_UNUSED_RESULT;

AGENTS_AVAILABLE_IN_1_0
AgentsManifest *agents_sandbox_session_manager_manifest_with_run_as_user (
  AgentsManifest *manifest, AgentsUser *user) G_GNUC_WARN_UNUSED_RESULT;

G_END_DECLS
