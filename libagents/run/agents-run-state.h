/* agents-run-state.h - a run, saved to be resumed
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
#include "agents-run-context.h"
#include "agents-run-item.h"
#include "agents-version-macros.h"

G_BEGIN_DECLS

/**
 * AGENTS_RUN_STATE_SCHEMA_VERSION:
 *
 * The `$schemaVersion` of the JSON documents agents_run_state_to_json()
 * writes.
 */
#define AGENTS_RUN_STATE_SCHEMA_VERSION "1.0"

/* AgentsAgentIdentityMap */

#define AGENTS_TYPE_AGENT_IDENTITY_MAP (agents_agent_identity_map_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (AgentsAgentIdentityMap,
                      agents_agent_identity_map,
                      AGENTS,
                      AGENT_IDENTITY_MAP,
                      GObject)

AGENTS_AVAILABLE_IN_1_0
guint agents_agent_identity_map_get_n_entries (AgentsAgentIdentityMap *self);
AGENTS_AVAILABLE_IN_1_0
const char *agents_agent_identity_map_get_key (AgentsAgentIdentityMap *self,
                                               guint position);
AGENTS_AVAILABLE_IN_1_0
AgentsAgent *agents_agent_identity_map_get_agent (AgentsAgentIdentityMap *self,
                                                  guint position);
AGENTS_AVAILABLE_IN_1_0
AgentsAgent *agents_agent_identity_map_lookup (AgentsAgentIdentityMap *self,
                                               const char *key);
AGENTS_AVAILABLE_IN_1_0
const char *agents_agent_identity_map_find_key (AgentsAgentIdentityMap *self,
                                                AgentsAgent *agent);

/* AgentsRunState */

#define AGENTS_TYPE_RUN_STATE (agents_run_state_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (
  AgentsRunState, agents_run_state, AGENTS, RUN_STATE, GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsRunState *agents_run_state_new (AgentsRunContext *context,
                                      JsonNode *original_input,
                                      AgentsAgent *starting_agent);
AGENTS_AVAILABLE_IN_1_0
AgentsRunState *
agents_run_state_new_from_json (AgentsAgent *starting_agent,
                                const char *json,
                                GError **error) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
char *agents_run_state_to_json (AgentsRunState *self) G_GNUC_WARN_UNUSED_RESULT;

AGENTS_AVAILABLE_IN_1_0
AgentsRunContext *agents_run_state_get_context (AgentsRunState *self);
AGENTS_AVAILABLE_IN_1_0
JsonNode *agents_run_state_get_original_input (AgentsRunState *self);
AGENTS_AVAILABLE_IN_1_0
AgentsAgent *agents_run_state_get_starting_agent (AgentsRunState *self);
AGENTS_AVAILABLE_IN_1_0
AgentsAgent *agents_run_state_get_current_agent (AgentsRunState *self);
AGENTS_AVAILABLE_IN_1_0
void agents_run_state_set_current_agent (AgentsRunState *self,
                                         AgentsAgent *agent);
AGENTS_AVAILABLE_IN_1_0
guint agents_run_state_get_current_turn (AgentsRunState *self);
AGENTS_AVAILABLE_IN_1_0
guint agents_run_state_get_max_turns (AgentsRunState *self);
AGENTS_AVAILABLE_IN_1_0
void agents_run_state_set_max_turns (AgentsRunState *self, guint max_turns);
AGENTS_AVAILABLE_IN_1_0
GListModel *agents_run_state_get_generated_items (AgentsRunState *self);
AGENTS_AVAILABLE_IN_1_0
GListModel *agents_run_state_get_model_responses (AgentsRunState *self);
AGENTS_AVAILABLE_IN_1_0
GListModel *agents_run_state_get_interruptions (AgentsRunState *self);
AGENTS_AVAILABLE_IN_1_0
void agents_run_state_approve (AgentsRunState *self,
                               AgentsRunItem *approval_item,
                               gboolean always);
AGENTS_AVAILABLE_IN_1_0
void agents_run_state_reject (AgentsRunState *self,
                              AgentsRunItem *approval_item,
                              gboolean always);
AGENTS_AVAILABLE_IN_1_0
JsonObject *agents_run_state_get_sandbox (AgentsRunState *self);
AGENTS_AVAILABLE_IN_1_0
void agents_run_state_set_sandbox (AgentsRunState *self, JsonObject *sandbox);
AGENTS_AVAILABLE_IN_1_0
char **
agents_run_state_get_tools_used (AgentsRunState *self,
                                 AgentsAgent *agent) G_GNUC_WARN_UNUSED_RESULT;

AGENTS_AVAILABLE_IN_1_0
AgentsAgentIdentityMap *agents_run_state_build_agent_identity_map (
  AgentsAgent *starting_agent) G_GNUC_WARN_UNUSED_RESULT;

G_END_DECLS
