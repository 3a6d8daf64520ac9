/* agents-sandbox-session-state.h - the serializable state of a session
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

#include "sandbox/manifest/agents-manifest.h"
#include "sandbox/archive/agents-snapshot.h"

G_BEGIN_DECLS

#define AGENTS_TYPE_SANDBOX_SESSION_STATE \
  (agents_sandbox_session_state_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_DERIVABLE_TYPE (AgentsSandboxSessionState,
                          agents_sandbox_session_state,
                          AGENTS,
                          SANDBOX_SESSION_STATE,
                          GObject)

/**
 * AgentsSandboxSessionStateClass:
 * @type_name: the JSON `type` discriminator (`"unix_local"`, …); a
 *   class that leaves its parent's is named by its registration (see
 *   #AgentsTypedJson)
 * @serialize_fields: adds the subclass's members to an open JSON object
 * @deserialize_fields: reads them back
 * @copy_fields: copies them into @dest, a new instance of the same type
 *
 * Backends subclass the session state to add what they need to find
 * their session again (a workspace root, a container id, …).
 */
struct _AgentsSandboxSessionStateClass
{
  GObjectClass parent_class;

  const char *type_name;

  void (*serialize_fields) (AgentsSandboxSessionState *self,
                            JsonBuilder *builder);
  gboolean (*deserialize_fields) (AgentsSandboxSessionState *self,
                                  JsonObject *object,
                                  GError **error);
  void (*copy_fields) (AgentsSandboxSessionState *self,
                       AgentsSandboxSessionState *dest);

  /*< private >*/
  gpointer padding[8];
};

AGENTS_AVAILABLE_IN_1_0
AgentsSandboxSessionState *
agents_sandbox_session_state_new (AgentsManifest *manifest,
                                  AgentsSnapshot *snapshot);
AGENTS_AVAILABLE_IN_1_0
const char *
agents_sandbox_session_state_get_session_id (AgentsSandboxSessionState *self);
AGENTS_AVAILABLE_IN_1_0
AgentsManifest *
agents_sandbox_session_state_get_manifest (AgentsSandboxSessionState *self);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_state_set_manifest (AgentsSandboxSessionState *self,
                                                AgentsManifest *manifest);
AGENTS_AVAILABLE_IN_1_0
AgentsSnapshot *
agents_sandbox_session_state_get_snapshot (AgentsSandboxSessionState *self);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_state_set_snapshot (AgentsSandboxSessionState *self,
                                                AgentsSnapshot *snapshot);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_session_state_get_workspace_root_ready (
  AgentsSandboxSessionState *self);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_state_set_workspace_root_ready (
  AgentsSandboxSessionState *self, gboolean ready);
AGENTS_AVAILABLE_IN_1_0
void
agents_sandbox_session_state_set_root_vouched (AgentsSandboxSessionState *self,
                                               gboolean vouched);
AGENTS_AVAILABLE_IN_1_0
gboolean
agents_sandbox_session_state_get_root_vouched (AgentsSandboxSessionState *self);
AGENTS_AVAILABLE_IN_1_0
JsonNode *
agents_sandbox_session_state_to_json (AgentsSandboxSessionState *self);
AGENTS_AVAILABLE_IN_1_0
AgentsSandboxSessionState *
agents_sandbox_session_state_new_from_json (JsonNode *node, GError **error);
AGENTS_AVAILABLE_IN_1_0
const char *agents_sandbox_session_state_type_get_name (GType type);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_session_state_load_json (
  AgentsSandboxSessionState *self, JsonNode *node, GError **error);
AGENTS_AVAILABLE_IN_1_0
AgentsSandboxSessionState *
agents_sandbox_session_state_copy (AgentsSandboxSessionState *self);

AGENTS_AVAILABLE_IN_1_0
const char *const *agents_sandbox_session_state_get_path_grants_require_rebind (
  AgentsSandboxSessionState *self);
AGENTS_AVAILABLE_IN_1_0
AgentsSandboxSessionState *agents_sandbox_session_state_rebind_path_grants (
  AgentsSandboxSessionState *self,
  AgentsManifest *trusted,
  GError **error) G_GNUC_WARN_UNUSED_RESULT;

AGENTS_AVAILABLE_IN_1_0
const int *
agents_sandbox_session_state_get_exposed_ports (AgentsSandboxSessionState *self,
                                                gsize *n_ports);
AGENTS_AVAILABLE_IN_1_0
gboolean
agents_sandbox_session_state_set_exposed_ports (AgentsSandboxSessionState *self,
                                                const int *ports,
                                                gsize n_ports,
                                                GError **error);
AGENTS_AVAILABLE_IN_1_0
const char *agents_sandbox_session_state_get_snapshot_fingerprint (
  AgentsSandboxSessionState *self);
AGENTS_AVAILABLE_IN_1_0
const char *agents_sandbox_session_state_get_snapshot_fingerprint_version (
  AgentsSandboxSessionState *self);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_state_set_snapshot_fingerprint (
  AgentsSandboxSessionState *self,
  const char *fingerprint,
  const char *version);

G_END_DECLS
