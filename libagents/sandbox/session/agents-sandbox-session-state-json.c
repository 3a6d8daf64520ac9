/* agents-sandbox-session-state-json.c - a session state to and from
 * JSON: the typed-JSON family of the states, the members of every state,
 * the host paths a saved state leaves out
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-json-private.h"
#include "agents-mount-security-private.h"
#include "agents-registry.h"
#include "agents-sandbox-session-state-private.h"
#include "agents-typed-json-private.h"

/* The state member listing the grants whose host_path was left out (the
 * reference's name, so that either side reads the other's states). */
#define AGENTS_REDACTED_HOST_PATH_GRANTS \
  "__openai_agents_redacted_host_path_grant_paths"

#define GET_PRIV(self) agents_sandbox_session_state_peek_private (self)

static JsonNode *
manifest_json_without_authority (AgentsManifest *manifest)
{
  JsonNode *node = agents_manifest_to_json (manifest);

  agents_manifest_json_strip_mount_authority (node);
  return node;
}

/* Removes the path grants that name a host directory from a manifest's
 * JSON (changed in place): a host path in a saved state would let
 * whoever edits the state choose what the sandbox can reach. Returns
 * the removed grants' sandbox paths, in order, without repeats. */
static GPtrArray *
strip_host_path_grants (JsonNode *manifest_json)
{
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);
  JsonObject *manifest;
  JsonNode *member;
  JsonArray *grants;
  g_autoptr (JsonArray) kept = NULL;

  if (manifest_json == NULL || !JSON_NODE_HOLDS_OBJECT (manifest_json))
    return paths;
  manifest = json_node_get_object (manifest_json);
  member = json_object_get_member (manifest, "extra_path_grants");
  if (member == NULL || !JSON_NODE_HOLDS_ARRAY (member))
    return paths;
  grants = json_node_get_array (member);
  kept = json_array_new ();
  for (guint i = 0; i < json_array_get_length (grants); i++)
    {
      JsonNode *grant = json_array_get_element (grants, i);
      JsonObject *object =
        JSON_NODE_HOLDS_OBJECT (grant) ? json_node_get_object (grant) : NULL;
      JsonNode *host =
        object ? json_object_get_member (object, "host_path") : NULL;
      const char *path =
        object
          ? json_object_get_string_member_with_default (object, "path", NULL)
          : NULL;

      if (host == NULL || JSON_NODE_HOLDS_NULL (host) || path == NULL)
        {
          json_array_add_element (kept, json_node_copy (grant));
          continue;
        }
      if (!g_ptr_array_find_with_equal_func (paths, path, g_str_equal, NULL))
        g_ptr_array_add (paths, g_strdup (path));
    }
  json_object_set_array_member (manifest, "extra_path_grants",
                                g_steal_pointer (&kept));
  return paths;
}

static void
add_redacted_grants (JsonBuilder *builder, GPtrArray *redacted)
{
  if (redacted->len == 0)
    return;
  json_builder_set_member_name (builder, AGENTS_REDACTED_HOST_PATH_GRANTS);
  json_builder_begin_array (builder);
  for (guint i = 0; i < redacted->len; i++)
    json_builder_add_string_value (builder, redacted->pdata[i]);
  json_builder_end_array (builder);
}

/* The members after `type`, in the reference's order; the subclass's
 * own, then the list of the grants whose host path was left out. */
static void
write_state_fields (GObject *object, JsonBuilder *builder)
{
  AgentsSandboxSessionState *self = AGENTS_SANDBOX_SESSION_STATE (object);
  AgentsSandboxSessionStateClass *klass =
    AGENTS_SANDBOX_SESSION_STATE_GET_CLASS (self);
  AgentsSandboxSessionStatePrivate *priv = GET_PRIV (self);
  g_autoptr (JsonNode) manifest_json = NULL;
  g_autoptr (GPtrArray) redacted = NULL;

  agents_json_add_string (builder, "session_id", priv->session_id);
  agents_json_add_node (builder, "snapshot",
                        agents_snapshot_to_json (priv->snapshot));
  /* A saved state carries no mount credentials and no host paths. */
  manifest_json = manifest_json_without_authority (priv->manifest);
  redacted = strip_host_path_grants (manifest_json);
  agents_json_add_node (builder, "manifest", g_steal_pointer (&manifest_json));
  json_builder_set_member_name (builder, "exposed_ports");
  json_builder_begin_array (builder);
  for (guint i = 0; i < priv->exposed_ports->len; i++)
    json_builder_add_int_value (builder,
                                g_array_index (priv->exposed_ports, int, i));
  json_builder_end_array (builder);
  agents_json_add_nullable_string (builder, "snapshot_fingerprint",
                                   priv->snapshot_fingerprint);
  agents_json_add_nullable_string (builder, "snapshot_fingerprint_version",
                                   priv->snapshot_fingerprint_version);
  agents_json_add_boolean (builder, "workspace_root_ready",
                           priv->workspace_root_ready);
  if (klass->serialize_fields != NULL)
    klass->serialize_fields (self, builder);
  add_redacted_grants (builder, redacted);
}

/**
 * agents_sandbox_session_state_to_json:
 * @self: a state
 *
 * Serializes the state: `type` (see #AgentsTypedJson), then the members
 * of every state, then those of its class.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
agents_sandbox_session_state_to_json (AgentsSandboxSessionState *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION_STATE (self), NULL);

  return agents_typed_json_to_json (AGENTS_TYPE_SANDBOX_SESSION_STATE,
                                    G_OBJECT (self));
}

static gboolean
invalid_member (GError **error, const char *member, const char *expected)
{
  agents_json_set_error (error, member, NULL,
                         _ ("session state member “%s” must be %s"), member,
                         expected);
  return FALSE;
}

/* The reference's SandboxSessionState._normalize_exposed_ports(): null is
 * none, a number is one port, an array is many. */
static gboolean
load_exposed_ports (AgentsSandboxSessionState *self,
                    JsonNode *node,
                    GError **error)
{
  g_autoptr (GArray) ports = g_array_new (FALSE, FALSE, sizeof (int));
  JsonArray *array;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return agents_sandbox_session_state_set_exposed_ports (self, NULL, 0,
                                                           error);
  if (agents_json_holds (node, G_TYPE_INT64))
    {
      gint64 port = json_node_get_int (node);
      int one = port < 0 || port > G_MAXUINT16 ? 0 : (int) port;

      return agents_sandbox_session_state_set_exposed_ports (self, &one, 1,
                                                             error);
    }
  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      agents_json_set_error (
        error, "exposed_ports", "wrong_type",
        _ ("exposed_ports must be an iterable of TCP port integers"));
      return FALSE;
    }
  array = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      gint64 port;
      int value;

      if (!agents_json_holds (element, G_TYPE_INT64))
        {
          agents_json_set_error (error, "exposed_ports", "wrong_type",
                                 _ ("exposed_ports must contain integers"));
          return FALSE;
        }
      port = json_node_get_int (element);
      value = port < 0 || port > G_MAXUINT16 ? 0 : (int) port;
      g_array_append_val (ports, value);
    }
  return agents_sandbox_session_state_set_exposed_ports (
    self, (const int *) (void *) ports->data, ports->len, error);
}

/* The grants to rebind: those the writer marked as redacted, and those
 * a document (a plain dump) still gave a host path, which was dropped:
 * a host path is only ever taken from a trusted manifest. */
static void
load_rebind_requirement (AgentsSandboxSessionState *self,
                         JsonObject *object,
                         GPtrArray *stripped)
{
  AgentsSandboxSessionStatePrivate *priv = GET_PRIV (self);
  JsonNode *marker =
    json_object_get_member (object, AGENTS_REDACTED_HOST_PATH_GRANTS);
  g_autoptr (GPtrArray) paths = g_ptr_array_new ();

  if (marker != NULL && JSON_NODE_HOLDS_ARRAY (marker))
    {
      JsonArray *array = json_node_get_array (marker);

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *element = json_array_get_element (array, i);

          if (agents_json_holds (element, G_TYPE_STRING))
            g_ptr_array_add (paths, (gpointer) json_node_get_string (element));
        }
    }
  for (guint i = 0; i < stripped->len; i++)
    g_ptr_array_add (paths, stripped->pdata[i]);
  g_clear_pointer (&priv->grants_require_rebind, g_strfreev);
  if (paths->len == 0)
    return;
  priv->grants_require_rebind = g_new0 (char *, paths->len + 1);
  for (guint i = 0, n = 0; i < paths->len; i++)
    if (!g_strv_contains ((const char *const *) priv->grants_require_rebind,
                          paths->pdata[i]))
      priv->grants_require_rebind[n++] = g_strdup (paths->pdata[i]);
}

static gboolean
load_manifest (AgentsSandboxSessionState *self,
               JsonObject *object,
               GError **error)
{
  JsonNode *member = json_object_get_member (object, "manifest");
  g_autoptr (JsonNode) manifest_json = NULL;
  g_autoptr (GPtrArray) stripped = NULL;
  g_autoptr (AgentsManifest) manifest = NULL;

  if (member == NULL)
    return TRUE;
  manifest_json = json_node_copy (member);
  stripped = strip_host_path_grants (manifest_json);
  manifest = agents_manifest_new_from_json (manifest_json, error);
  if (manifest == NULL)
    return FALSE;
  agents_sandbox_session_state_set_manifest (self, manifest);
  load_rebind_requirement (self, object, stripped);
  return TRUE;
}

static gboolean
load_snapshot (AgentsSandboxSessionState *self,
               JsonObject *object,
               GError **error)
{
  JsonNode *member = json_object_get_member (object, "snapshot");
  g_autoptr (AgentsSnapshot) snapshot = NULL;

  if (member == NULL)
    return TRUE;
  snapshot = agents_snapshot_new_from_json (member, error);
  if (snapshot == NULL)
    return FALSE;
  agents_sandbox_session_state_set_snapshot (self, snapshot);
  return TRUE;
}

static gboolean
load_fingerprint (AgentsSandboxSessionState *self,
                  JsonObject *object,
                  GError **error)
{
  const char *fingerprint = NULL;
  const char *fingerprint_version = NULL;

  if (!agents_json_read_string (object, "snapshot_fingerprint", TRUE, FALSE,
                                &fingerprint, error) ||
      !agents_json_read_string (object, "snapshot_fingerprint_version", TRUE,
                                FALSE, &fingerprint_version, error))
    return FALSE;
  agents_sandbox_session_state_set_snapshot_fingerprint (self, fingerprint,
                                                         fingerprint_version);
  return TRUE;
}

/* Reads the members of every state, then the class's own. */
static gboolean
read_state_fields (GObject *state, JsonObject *object, GError **error)
{
  AgentsSandboxSessionState *self = AGENTS_SANDBOX_SESSION_STATE (state);
  AgentsSandboxSessionStateClass *klass =
    AGENTS_SANDBOX_SESSION_STATE_GET_CLASS (self);
  AgentsSandboxSessionStatePrivate *priv = GET_PRIV (self);
  JsonNode *member;

  /* A document is hostile: its root is no one's until vouched for. */
  priv->root_vouched = FALSE;

  if (!agents_json_lookup (object, "session_id", G_TYPE_STRING, &member))
    return invalid_member (error, "session_id", _ ("a string"));
  if (member != NULL)
    {
      g_free (priv->session_id);
      priv->session_id = g_strdup (json_node_get_string (member));
    }

  if (!load_manifest (self, object, error) ||
      !load_snapshot (self, object, error) ||
      !load_exposed_ports (
        self, json_object_get_member (object, "exposed_ports"), error) ||
      !load_fingerprint (self, object, error))
    return FALSE;

  if (!agents_json_lookup (object, "workspace_root_ready", G_TYPE_BOOLEAN,
                           &member))
    return invalid_member (error, "workspace_root_ready", _ ("a boolean"));
  if (member != NULL)
    agents_sandbox_session_state_set_workspace_root_ready (
      self, json_node_get_boolean (member));

  return klass->deserialize_fields == NULL ||
         klass->deserialize_fields (self, object, error);
}

static char *
state_not_object_message (const char *json_type)
{
  return g_strdup_printf (_ ("session state member “%s” must be %s"),
                          "session_state", _ ("an object"));
}

/* Whether @klass sets a `type_name` of its own rather than inheriting
 * its parent's (a class written in Python cannot set it). */
static gboolean
class_names_itself (AgentsSandboxSessionStateClass *klass)
{
  AgentsSandboxSessionStateClass *parent;

  if (G_TYPE_FROM_CLASS (klass) == AGENTS_TYPE_SANDBOX_SESSION_STATE)
    return TRUE;
  parent = g_type_class_peek_parent (klass);
  return g_strcmp0 (klass->type_name, parent->type_name) != 0;
}

static const char *
class_type_name (AgentsSandboxSessionStateClass *klass)
{
  const char *registered;

  if (class_names_itself (klass))
    return klass->type_name;
  registered = agents_typed_json_get_type_name (
    AGENTS_TYPE_SANDBOX_SESSION_STATE, G_TYPE_FROM_CLASS (klass));
  return registered ? registered : klass->type_name;
}

static const char *
state_type_name_of (GObject *self)
{
  return class_type_name (AGENTS_SANDBOX_SESSION_STATE_GET_CLASS (self));
}

/* Completed (its base) when the class is initialized. */
static AgentsTypedJsonFamily state_family = {
  .label = N_ ("session state type"),
  .member = "session_state",
  .not_object_message = state_not_object_message,
  .type_name_of = state_type_name_of,
  .write_fields = write_state_fields,
  .read_fields = read_state_fields,
  .load_types = agents_registry_load_plugins,
};

/**
 * agents_sandbox_session_state_type_get_name:
 * @type: a subtype of #AgentsSandboxSessionState
 *
 * Gets the JSON `type` of the states of @type: the
 * #AgentsSandboxSessionStateClass.type_name its class sets, or else the
 * name @type is registered under (see #AgentsTypedJson).
 *
 * Returns: (nullable): the name
 */
const char *
agents_sandbox_session_state_type_get_name (GType type)
{
  g_autoptr (GTypeClass) klass = NULL;

  g_return_val_if_fail (g_type_is_a (type, AGENTS_TYPE_SANDBOX_SESSION_STATE),
                        NULL);

  klass = g_type_class_ref (type);
  return class_type_name ((AgentsSandboxSessionStateClass *) klass);
}

/**
 * agents_sandbox_session_state_new_from_json:
 * @node: an untrusted JSON node
 * @error: return location for a #GError
 *
 * Reads a serialized state whose `type` names a registered state type
 * (see #AgentsTypedJson): the types of the backends, `sandbox` for the
 * generic state, and any type registered from C, Python or JavaScript.
 * Every member is type-checked and the manifest and snapshot are
 * validated; the state's root is not vouched for.
 *
 * Returns: (transfer full): the state, or %NULL with @error set
 *   (%AGENTS_SANDBOX_ERROR_UNKNOWN_TYPE for an unknown `type`, whose
 *   message quotes it: callers that must not echo the document, as
 *   agents_sandbox_client_deserialize_session_state(), redact it)
 */
AgentsSandboxSessionState *
agents_sandbox_session_state_new_from_json (JsonNode *node, GError **error)
{
  g_return_val_if_fail (node != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return AGENTS_SANDBOX_SESSION_STATE (agents_typed_json_new_from_json (
    AGENTS_TYPE_SANDBOX_SESSION_STATE, node, error));
}

/**
 * agents_sandbox_session_state_load_json:
 * @self: a freshly constructed state
 * @node: a JSON object made by agents_sandbox_session_state_to_json()
 * @error: return location for a #GError
 *
 * Reads a serialized state into @self. The document is untrusted: every
 * member is type-checked and the manifest and snapshot are validated.
 *
 * Returns: %TRUE on success
 */
gboolean
agents_sandbox_session_state_load_json (AgentsSandboxSessionState *self,
                                        JsonNode *node,
                                        GError **error)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION_STATE (self), FALSE);
  g_return_val_if_fail (node != NULL, FALSE);

  /* A document is hostile: its root is no one's until vouched for. */
  GET_PRIV (self)->root_vouched = FALSE;
  return agents_typed_json_read_into (AGENTS_TYPE_SANDBOX_SESSION_STATE,
                                      G_OBJECT (self), node, error);
}

/* Completes the family with its base; called once, by the class. */
void
agents_sandbox_session_state_define_json_family (GType base)
{
  state_family.base = base;
  agents_typed_json_define_family (&state_family);
}
