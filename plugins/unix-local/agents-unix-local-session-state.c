/* agents-unix-local-session-state.c - the state of a unix_local session
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <inttypes.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "agents-archive-private.h"
#include "agents-fs-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-sandbox-session-private.h"
#include "agents-unix-local-confine.h"
#include "agents-unix-local-fs.h"
#include "agents-unix-local-owner.h"
#include "agents-unix-local-pty.h"
#include "agents-unix-local-session-private.h"

/* ---- session state -------------------------------------------------- */

/**
 * AgentsUnixLocalSessionState:
 *
 * The state of a unix_local session: the generic state plus whether the
 * client created the workspace root (and so removes it on delete).
 */
struct _AgentsUnixLocalSessionState
{
  AgentsSandboxSessionState parent_instance;

  gboolean workspace_root_owned;
  /* The token of the root's owner record (agents-unix-local-owner.h). */
  char *workspace_root_token;
  /* In memory only: this process made the root, or proved it made it;
   * a state read from JSON has to prove it again. */
  gboolean root_proven;
};

G_DEFINE_FINAL_TYPE (AgentsUnixLocalSessionState,
                     agents_unix_local_session_state,
                     AGENTS_TYPE_SANDBOX_SESSION_STATE)

enum
{
  STATE_PROP_0,
  STATE_PROP_WORKSPACE_ROOT_OWNED,
  N_STATE_PROPS
};

static GParamSpec *state_properties[N_STATE_PROPS];

static void
state_get_property (GObject *object,
                    guint prop_id,
                    GValue *value,
                    GParamSpec *pspec)
{
  AgentsUnixLocalSessionState *self = AGENTS_UNIX_LOCAL_SESSION_STATE (object);

  switch (prop_id)
    {
    case STATE_PROP_WORKSPACE_ROOT_OWNED:
      g_value_set_boolean (value, self->workspace_root_owned);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
state_set_property (GObject *object,
                    guint prop_id,
                    const GValue *value,
                    GParamSpec *pspec)
{
  AgentsUnixLocalSessionState *self = AGENTS_UNIX_LOCAL_SESSION_STATE (object);

  switch (prop_id)
    {
    case STATE_PROP_WORKSPACE_ROOT_OWNED:
      agents_unix_local_session_state_set_workspace_root_owned (
        self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
state_serialize_fields (AgentsSandboxSessionState *state, JsonBuilder *builder)
{
  AgentsUnixLocalSessionState *self = AGENTS_UNIX_LOCAL_SESSION_STATE (state);

  json_builder_set_member_name (builder, "workspace_root_owned");
  json_builder_add_boolean_value (builder, self->workspace_root_owned);
  if (self->workspace_root_token != NULL)
    {
      json_builder_set_member_name (builder, "workspace_root_token");
      json_builder_add_string_value (builder, self->workspace_root_token);
    }
}

static gboolean
state_deserialize_fields (AgentsSandboxSessionState *state,
                          JsonObject *object,
                          GError **error)
{
  AgentsUnixLocalSessionState *self = AGENTS_UNIX_LOCAL_SESSION_STATE (state);
  JsonNode *member = json_object_get_member (object, "workspace_root_token");

  if (member != NULL)
    {
      if (!JSON_NODE_HOLDS_VALUE (member) ||
          json_node_get_value_type (member) != G_TYPE_STRING)
        {
          agents_sandbox_error_set (
            error, AGENTS_SANDBOX_ERROR_INVALID_JSON,
            g_variant_new_parsed ("{'member': <'workspace_root_token'>}"),
            _ ("session state member “%s” must be %s"), "workspace_root_token",
            _ ("a string"));
          return FALSE;
        }
      g_free (self->workspace_root_token);
      self->workspace_root_token = g_strdup (json_node_get_string (member));
    }
  member = json_object_get_member (object, "workspace_root_owned");
  if (member == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (member) ||
      json_node_get_value_type (member) != G_TYPE_BOOLEAN)
    {
      agents_sandbox_error_set (
        error, AGENTS_SANDBOX_ERROR_INVALID_JSON,
        g_variant_new_parsed ("{'member': <'workspace_root_owned'>}"),
        _ ("session state member “%s” must be %s"), "workspace_root_owned",
        _ ("a boolean"));
      return FALSE;
    }
  agents_unix_local_session_state_set_workspace_root_owned (
    self, json_node_get_boolean (member));
  return TRUE;
}

static void
state_copy_fields (AgentsSandboxSessionState *state,
                   AgentsSandboxSessionState *dest)
{
  AgentsUnixLocalSessionState *self = AGENTS_UNIX_LOCAL_SESSION_STATE (state);
  AgentsUnixLocalSessionState *copy = AGENTS_UNIX_LOCAL_SESSION_STATE (dest);

  copy->workspace_root_owned = self->workspace_root_owned;
  g_free (copy->workspace_root_token);
  copy->workspace_root_token = g_strdup (self->workspace_root_token);
  copy->root_proven = self->root_proven;
}

static void
state_finalize (GObject *object)
{
  AgentsUnixLocalSessionState *self = AGENTS_UNIX_LOCAL_SESSION_STATE (object);

  g_free (self->workspace_root_token);
  G_OBJECT_CLASS (agents_unix_local_session_state_parent_class)
    ->finalize (object);
}

static void
agents_unix_local_session_state_class_init (
  AgentsUnixLocalSessionStateClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  AgentsSandboxSessionStateClass *state_class =
    AGENTS_SANDBOX_SESSION_STATE_CLASS (klass);

  object_class->get_property = state_get_property;
  object_class->set_property = state_set_property;
  object_class->finalize = state_finalize;

  state_class->type_name = "unix_local";
  state_class->serialize_fields = state_serialize_fields;
  state_class->deserialize_fields = state_deserialize_fields;
  state_class->copy_fields = state_copy_fields;

  state_properties[STATE_PROP_WORKSPACE_ROOT_OWNED] = g_param_spec_boolean (
    "workspace-root-owned", NULL, NULL, FALSE,
    G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_STATE_PROPS,
                                     state_properties);
}

static void
agents_unix_local_session_state_init (AgentsUnixLocalSessionState *self)
{
}

AgentsSandboxSessionState *
agents_unix_local_session_state_new (AgentsManifest *manifest,
                                     AgentsSnapshot *snapshot,
                                     gboolean workspace_root_owned)
{
  return g_object_new (AGENTS_TYPE_UNIX_LOCAL_SESSION_STATE, "manifest",
                       manifest, "snapshot", snapshot, "workspace-root-owned",
                       workspace_root_owned, NULL);
}

gboolean
agents_unix_local_session_state_get_workspace_root_owned (
  AgentsUnixLocalSessionState *self)
{
  g_return_val_if_fail (AGENTS_IS_UNIX_LOCAL_SESSION_STATE (self), FALSE);
  return self->workspace_root_owned;
}

void
agents_unix_local_session_state_set_workspace_root_owned (
  AgentsUnixLocalSessionState *self, gboolean owned)
{
  g_return_if_fail (AGENTS_IS_UNIX_LOCAL_SESSION_STATE (self));

  owned = !!owned;
  if (self->workspace_root_owned == owned)
    return;
  self->workspace_root_owned = owned;
  g_object_notify_by_pspec (G_OBJECT (self),
                            state_properties[STATE_PROP_WORKSPACE_ROOT_OWNED]);
}

const char *
agents_unix_local_session_state_get_workspace_root_token (
  AgentsUnixLocalSessionState *self)
{
  g_return_val_if_fail (AGENTS_IS_UNIX_LOCAL_SESSION_STATE (self), NULL);
  return self->workspace_root_token;
}

void
agents_unix_local_session_state_set_root_proven (
  AgentsUnixLocalSessionState *self, const char *token)
{
  g_return_if_fail (AGENTS_IS_UNIX_LOCAL_SESSION_STATE (self));

  if (token != self->workspace_root_token)
    {
      g_free (self->workspace_root_token);
      self->workspace_root_token = g_strdup (token);
    }
  self->root_proven = TRUE;
}

gboolean
agents_unix_local_session_state_get_root_proven (
  AgentsUnixLocalSessionState *self)
{
  g_return_val_if_fail (AGENTS_IS_UNIX_LOCAL_SESSION_STATE (self), FALSE);
  return self->root_proven;
}
