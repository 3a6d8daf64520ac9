/* agents-sandbox-run-config.h - how a run gets its sandboxes
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include <gio/gio.h>

#include "sandbox/manifest/agents-manifest.h"
#include "sandbox/session/agents-sandbox-client.h"
#include "sandbox/session/agents-sandbox-session-state.h"
#include "sandbox/session/agents-sandbox-session.h"
#include "sandbox/common/agents-sandbox-types.h"

G_BEGIN_DECLS

#define AGENTS_TYPE_SANDBOX_RUN_CONFIG (agents_sandbox_run_config_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (AgentsSandboxRunConfig,
                      agents_sandbox_run_config,
                      AGENTS,
                      SANDBOX_RUN_CONFIG,
                      GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsSandboxRunConfig *agents_sandbox_run_config_new (void);

AGENTS_AVAILABLE_IN_1_0
AgentsSandboxClient *
agents_sandbox_run_config_get_client (AgentsSandboxRunConfig *self);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_run_config_set_client (AgentsSandboxRunConfig *self,
                                           AgentsSandboxClient *client);
AGENTS_AVAILABLE_IN_1_0
GVariant *agents_sandbox_run_config_get_options (AgentsSandboxRunConfig *self);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_run_config_set_options (AgentsSandboxRunConfig *self,
                                            GVariant *options);
AGENTS_AVAILABLE_IN_1_0
AgentsSandboxSession *
agents_sandbox_run_config_get_session (AgentsSandboxRunConfig *self);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_run_config_set_session (AgentsSandboxRunConfig *self,
                                            AgentsSandboxSession *session);
AGENTS_AVAILABLE_IN_1_0
AgentsSandboxSessionState *
agents_sandbox_run_config_get_session_state (AgentsSandboxRunConfig *self);
AGENTS_AVAILABLE_IN_1_0
void
agents_sandbox_run_config_set_session_state (AgentsSandboxRunConfig *self,
                                             AgentsSandboxSessionState *state);
AGENTS_AVAILABLE_IN_1_0
AgentsManifest *
agents_sandbox_run_config_get_manifest (AgentsSandboxRunConfig *self);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_run_config_set_manifest (AgentsSandboxRunConfig *self,
                                             AgentsManifest *manifest);
AGENTS_AVAILABLE_IN_1_0
GObject *agents_sandbox_run_config_get_snapshot (AgentsSandboxRunConfig *self);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_run_config_set_snapshot (AgentsSandboxRunConfig *self,
                                             GObject *snapshot);
AGENTS_AVAILABLE_IN_1_0
const AgentsConcurrencyLimits *
agents_sandbox_run_config_get_concurrency_limits (AgentsSandboxRunConfig *self);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_run_config_set_concurrency_limits (
  AgentsSandboxRunConfig *self, const AgentsConcurrencyLimits *limits);
AGENTS_AVAILABLE_IN_1_0
const AgentsArchiveLimits *
agents_sandbox_run_config_get_archive_limits (AgentsSandboxRunConfig *self);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_run_config_set_archive_limits (
  AgentsSandboxRunConfig *self, const AgentsArchiveLimits *limits);
AGENTS_AVAILABLE_IN_1_0
const char *agents_sandbox_run_config_get_cwd (AgentsSandboxRunConfig *self);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_run_config_set_cwd (AgentsSandboxRunConfig *self,
                                        const char *cwd);
AGENTS_AVAILABLE_IN_1_0
const char *
agents_sandbox_run_config_get_workspace_cwd (AgentsSandboxRunConfig *self);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_run_config_set_workspace_cwd (AgentsSandboxRunConfig *self,
                                                  const char *workspace_cwd);

AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_run_config_validate (AgentsSandboxRunConfig *self,
                                             GError **error);

G_END_DECLS
