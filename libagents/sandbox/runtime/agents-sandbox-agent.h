/* agents-sandbox-agent.h - agents that work in a sandbox
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
#include "sandbox/manifest/agents-manifest.h"
#include "sandbox/session/agents-sandbox-session.h"
#include "sandbox/common/agents-sandbox-types.h"
#include "run/agents-agent.h"

G_BEGIN_DECLS

#define AGENTS_TYPE_SANDBOX_AGENT (agents_sandbox_agent_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (
  AgentsSandboxAgent, agents_sandbox_agent, AGENTS, SANDBOX_AGENT, AgentsAgent)

AGENTS_AVAILABLE_IN_1_0
AgentsSandboxAgent *agents_sandbox_agent_new (const char *name);

AGENTS_AVAILABLE_IN_1_0
AgentsManifest *
agents_sandbox_agent_get_default_manifest (AgentsSandboxAgent *self);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_agent_set_default_manifest (AgentsSandboxAgent *self,
                                                AgentsManifest *manifest);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_agent_set_default_manifest_from_json (
  AgentsSandboxAgent *self, JsonNode *node, GError **error);

AGENTS_AVAILABLE_IN_1_0
GListModel *agents_sandbox_agent_get_capabilities (AgentsSandboxAgent *self);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_agent_set_capabilities (AgentsSandboxAgent *self,
                                            AgentsCapability **capabilities,
                                            guint n_capabilities);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_agent_add_capability (AgentsSandboxAgent *self,
                                          AgentsCapability *capability);

AGENTS_AVAILABLE_IN_1_0
const char *
agents_sandbox_agent_get_base_instructions (AgentsSandboxAgent *self);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_agent_set_base_instructions (AgentsSandboxAgent *self,
                                                 const char *instructions);
AGENTS_AVAILABLE_IN_1_0
void
agents_sandbox_agent_set_base_instructions_func (AgentsSandboxAgent *self,
                                                 AgentsInstructionsFunc func,
                                                 gpointer user_data,
                                                 GDestroyNotify destroy);
AGENTS_AVAILABLE_IN_1_0
gboolean
agents_sandbox_agent_has_base_instructions_func (AgentsSandboxAgent *self);

AGENTS_AVAILABLE_IN_1_0
AgentsUser *agents_sandbox_agent_get_run_as (AgentsSandboxAgent *self);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_agent_set_run_as (AgentsSandboxAgent *self,
                                      AgentsUser *user);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_agent_set_run_as_name (AgentsSandboxAgent *self,
                                           const char *name);

AGENTS_AVAILABLE_IN_1_0
AgentsAgent *agents_sandbox_agent_get_public_agent (AgentsSandboxAgent *self);
AGENTS_AVAILABLE_IN_1_0
AgentsSandboxSession *
agents_sandbox_agent_get_session (AgentsSandboxAgent *self);

AGENTS_AVAILABLE_IN_1_0
GPtrArray *agents_sandbox_default_capabilities (void) G_GNUC_WARN_UNUSED_RESULT;

G_END_DECLS
