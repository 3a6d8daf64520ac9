/* agents-sandbox-session-manager-private.h - what the session manager's
 * files (agents-sandbox-session-manager*.c) share
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-sandbox-runtime-private.h"
#include "agents-sandbox-session-manager.h"

G_BEGIN_DECLS

typedef enum
{
  SOURCE_INJECTED,
  SOURCE_RUN_STATE,
  SOURCE_SESSION_STATE,
  SOURCE_CREATED,
} SessionSource;

typedef struct
{
  AgentsAgent *agent; /* public */
  AgentsSandboxSession *session;
  SessionSource source;
  JsonNode *saved_state; /* serialized at cleanup, after stop */
} Entry;

struct _AgentsSandboxSessionManager
{
  GObject parent_instance;

  AgentsAgent *starting_agent;
  AgentsSandboxRunConfig *config;
  AgentsRunState *run_state;

  GPtrArray *entries;      /* Entry, in creation order */
  GPtrArray *acquired;     /* AgentsAgent */
  GHashTable *resume_keys; /* AgentsAgent → key */
  GHashTable *used_keys;   /* keys given */
  AgentsAgentIdentityMap *save_map;
  AgentsAgentIdentityMap *load_map;
  gboolean session_state_used;
  AgentsAgent *current_agent;
  gboolean cleaned_up;

  AgentsTrace *trace;
  AgentsSpan *parent_span;
};

static inline AgentsSandboxClient *
config_client (AgentsSandboxSessionManager *self)
{
  return agents_sandbox_run_config_get_client (self->config);
}

static inline JsonObject *
incoming_payload (AgentsSandboxSessionManager *self)
{
  return self->run_state ? agents_run_state_get_sandbox (self->run_state)
                         : NULL;
}

static inline gboolean
is_legacy_payload (JsonObject *payload)
{
  return json_object_has_member (payload, "current_agent_id") &&
         !json_object_has_member (payload, "current_agent_key");
}

static inline JsonObject *
object_member (JsonObject *object, const char *member)
{
  JsonNode *node = object ? json_object_get_member (object, member) : NULL;

  return node && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node)
                                               : NULL;
}

Entry *
agents_sandbox_session_manager_find_entry (AgentsSandboxSessionManager *self,
                                           AgentsAgent *agent);

/* A span @name of the run's trace, with the agent's name (nullable) and
 * the backend. */
AgentsSpan *agents_sandbox_session_manager_start_span (
  AgentsSandboxSessionManager *self, const char *name, AgentsAgent *agent);

G_END_DECLS
