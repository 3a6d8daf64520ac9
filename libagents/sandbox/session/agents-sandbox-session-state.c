/* agents-sandbox-session-state.c - the serializable state of a session
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-json-private.h"
#include "agents-mount-security-private.h"
#include "agents-registry.h"
#include "agents-sandbox-error-private.h"
#include "agents-sandbox-session-state.h"
#include "agents-typed-json-private.h"

/* The state member listing the grants whose host_path was left out (the
 * reference's name, so that either side reads the other's states). */
#define AGENTS_REDACTED_HOST_PATH_GRANTS \
  "__openai_agents_redacted_host_path_grant_paths"

/**
 * AgentsSandboxSessionState:
 *
 * What a backend needs to find or rebuild a session: its id, its
 * manifest, the snapshot its workspace is persisted to, and whatever a
 * backend subclass adds. It round-trips through JSON in the reference's
 * shape:
 *
 * ```json
 * {"type": "unix_local", "session_id": "…", "snapshot": {…},
 *  "manifest": {…}, "workspace_root_ready": false, …}
 * ```
 *
 * Session states are a family of the typed-JSON mechanism
 * (#AgentsTypedJson): a state type is registered under its `type`
 * (agents_registry_register_session_state() or
 * agents_typed_json_register() with %AGENTS_TYPE_SANDBOX_SESSION_STATE,
 * from C, Python or JavaScript), and
 * agents_sandbox_session_state_new_from_json() finds it by that name. The
 * generic state is `sandbox`. A class names itself with
 * #AgentsSandboxSessionStateClass.type_name; a class that does not (one written
 * in Python) is named by its registration.
 */

typedef struct
{
  char *session_id;
  AgentsManifest *manifest;
  AgentsSnapshot *snapshot;
  gboolean workspace_root_ready;
  GArray *exposed_ports; /* of int, 1..65535, no duplicates */
  char *snapshot_fingerprint;
  char *snapshot_fingerprint_version;
  gboolean root_vouched;       /* in memory only */
  GStrv grants_require_rebind; /* grant paths whose host_path was dropped */
} AgentsSandboxSessionStatePrivate;

G_DEFINE_TYPE_WITH_PRIVATE (AgentsSandboxSessionState,
                            agents_sandbox_session_state,
                            G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_SESSION_ID,
  PROP_MANIFEST,
  PROP_SNAPSHOT,
  PROP_WORKSPACE_ROOT_READY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static AgentsTypedJsonFamily state_family;

static void
agents_sandbox_session_state_finalize (GObject *object)
{
  AgentsSandboxSessionState *self = AGENTS_SANDBOX_SESSION_STATE (object);
  AgentsSandboxSessionStatePrivate *priv =
    agents_sandbox_session_state_get_instance_private (self);

  g_free (priv->session_id);
  g_clear_object (&priv->manifest);
  g_clear_object (&priv->snapshot);
  g_clear_pointer (&priv->exposed_ports, g_array_unref);
  g_free (priv->snapshot_fingerprint);
  g_free (priv->snapshot_fingerprint_version);
  g_strfreev (priv->grants_require_rebind);

  G_OBJECT_CLASS (agents_sandbox_session_state_parent_class)->finalize (object);
}

static void
agents_sandbox_session_state_constructed (GObject *object)
{
  AgentsSandboxSessionState *self = AGENTS_SANDBOX_SESSION_STATE (object);
  AgentsSandboxSessionStatePrivate *priv =
    agents_sandbox_session_state_get_instance_private (self);

  G_OBJECT_CLASS (agents_sandbox_session_state_parent_class)
    ->constructed (object);

  if (priv->session_id == NULL)
    priv->session_id = g_uuid_string_random ();
  if (priv->manifest == NULL)
    priv->manifest = agents_manifest_new ();
  if (priv->snapshot == NULL)
    priv->snapshot = agents_noop_snapshot_new (priv->session_id);
}

static void
agents_sandbox_session_state_get_property (GObject *object,
                                           guint prop_id,
                                           GValue *value,
                                           GParamSpec *pspec)
{
  AgentsSandboxSessionState *self = AGENTS_SANDBOX_SESSION_STATE (object);
  AgentsSandboxSessionStatePrivate *priv =
    agents_sandbox_session_state_get_instance_private (self);

  switch (prop_id)
    {
    case PROP_SESSION_ID:
      g_value_set_string (value, priv->session_id);
      break;
    case PROP_MANIFEST:
      g_value_set_object (value, priv->manifest);
      break;
    case PROP_SNAPSHOT:
      g_value_set_object (value, priv->snapshot);
      break;
    case PROP_WORKSPACE_ROOT_READY:
      g_value_set_boolean (value, priv->workspace_root_ready);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_sandbox_session_state_set_property (GObject *object,
                                           guint prop_id,
                                           const GValue *value,
                                           GParamSpec *pspec)
{
  AgentsSandboxSessionState *self = AGENTS_SANDBOX_SESSION_STATE (object);
  AgentsSandboxSessionStatePrivate *priv =
    agents_sandbox_session_state_get_instance_private (self);

  switch (prop_id)
    {
    case PROP_SESSION_ID:
      g_free (priv->session_id);
      priv->session_id = g_value_dup_string (value);
      break;
    case PROP_MANIFEST:
      agents_sandbox_session_state_set_manifest (self,
                                                 g_value_get_object (value));
      break;
    case PROP_SNAPSHOT:
      agents_sandbox_session_state_set_snapshot (self,
                                                 g_value_get_object (value));
      break;
    case PROP_WORKSPACE_ROOT_READY:
      agents_sandbox_session_state_set_workspace_root_ready (
        self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_sandbox_session_state_class_init (AgentsSandboxSessionStateClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = agents_sandbox_session_state_finalize;
  object_class->constructed = agents_sandbox_session_state_constructed;
  object_class->get_property = agents_sandbox_session_state_get_property;
  object_class->set_property = agents_sandbox_session_state_set_property;

  klass->type_name = "sandbox";

  /**
   * AgentsSandboxSessionState:session-id:
   *
   * The session's id, a UUID; a random one when none is given.
   */
  properties[PROP_SESSION_ID] = g_param_spec_string (
    "session-id", NULL, NULL, NULL,
    G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * AgentsSandboxSessionState:manifest:
   *
   * The manifest the session's workspace is made of.
   */
  properties[PROP_MANIFEST] = g_param_spec_object (
    "manifest", NULL, NULL, AGENTS_TYPE_MANIFEST,
    G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * AgentsSandboxSessionState:snapshot:
   *
   * Where the workspace is persisted.
   */
  properties[PROP_SNAPSHOT] = g_param_spec_object (
    "snapshot", NULL, NULL, AGENTS_TYPE_SNAPSHOT,
    G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * AgentsSandboxSessionState:workspace-root-ready:
   *
   * Whether the workspace was fully materialized once.
   */
  properties[PROP_WORKSPACE_ROOT_READY] = g_param_spec_boolean (
    "workspace-root-ready", NULL, NULL, FALSE,
    G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  state_family.base = G_TYPE_FROM_CLASS (klass);
  agents_typed_json_define_family (&state_family);
}

static void
agents_sandbox_session_state_init (AgentsSandboxSessionState *self)
{
  AgentsSandboxSessionStatePrivate *priv =
    agents_sandbox_session_state_get_instance_private (self);

  /* Made by code: the caller's own root. Loading JSON withdraws it. */
  priv->root_vouched = TRUE;
  priv->exposed_ports = g_array_new (FALSE, FALSE, sizeof (int));
}

/**
 * agents_sandbox_session_state_new:
 * @manifest: (nullable): the manifest (an empty one when %NULL)
 * @snapshot: (nullable): the snapshot (a noop one when %NULL)
 *
 * Creates a generic session state with a random session id.
 *
 * Returns: (transfer full): the new state
 */
AgentsSandboxSessionState *
agents_sandbox_session_state_new (AgentsManifest *manifest,
                                  AgentsSnapshot *snapshot)
{
  return g_object_new (AGENTS_TYPE_SANDBOX_SESSION_STATE, "manifest", manifest,
                       "snapshot", snapshot, NULL);
}

#define GET_PRIV(self)                  \
  ((AgentsSandboxSessionStatePrivate *) \
     agents_sandbox_session_state_get_instance_private (self))

/**
 * agents_sandbox_session_state_get_session_id:
 * @self: a state
 *
 * Gets the session id.
 *
 * Returns: the session id
 */
const char *
agents_sandbox_session_state_get_session_id (AgentsSandboxSessionState *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION_STATE (self), NULL);
  return GET_PRIV (self)->session_id;
}

/**
 * agents_sandbox_session_state_get_manifest:
 * @self: a state
 *
 * Gets the manifest.
 *
 * Returns: (transfer none): the manifest
 */
AgentsManifest *
agents_sandbox_session_state_get_manifest (AgentsSandboxSessionState *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION_STATE (self), NULL);
  return GET_PRIV (self)->manifest;
}

/**
 * agents_sandbox_session_state_set_manifest:
 * @self: a state
 * @manifest: the manifest
 *
 * Replaces the manifest (the state keeps a reference, not a copy).
 */
void
agents_sandbox_session_state_set_manifest (AgentsSandboxSessionState *self,
                                           AgentsManifest *manifest)
{
  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION_STATE (self));
  g_return_if_fail (manifest == NULL || AGENTS_IS_MANIFEST (manifest));

  if (manifest == NULL)
    return;
  if (g_set_object (&GET_PRIV (self)->manifest, manifest))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MANIFEST]);
}

/**
 * agents_sandbox_session_state_get_snapshot:
 * @self: a state
 *
 * Gets the snapshot.
 *
 * Returns: (transfer none): the snapshot
 */
AgentsSnapshot *
agents_sandbox_session_state_get_snapshot (AgentsSandboxSessionState *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION_STATE (self), NULL);
  return GET_PRIV (self)->snapshot;
}

/**
 * agents_sandbox_session_state_set_snapshot:
 * @self: a state
 * @snapshot: the snapshot
 *
 * Replaces the snapshot.
 */
void
agents_sandbox_session_state_set_snapshot (AgentsSandboxSessionState *self,
                                           AgentsSnapshot *snapshot)
{
  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION_STATE (self));
  g_return_if_fail (snapshot == NULL || AGENTS_IS_SNAPSHOT (snapshot));

  if (snapshot == NULL)
    return;
  if (g_set_object (&GET_PRIV (self)->snapshot, snapshot))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SNAPSHOT]);
}

/**
 * agents_sandbox_session_state_get_workspace_root_ready:
 * @self: a state
 *
 * Gets whether the workspace was fully materialized once.
 *
 * Returns: whether the workspace was fully materialized once
 */
gboolean
agents_sandbox_session_state_get_workspace_root_ready (
  AgentsSandboxSessionState *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION_STATE (self), FALSE);
  return GET_PRIV (self)->workspace_root_ready;
}

/**
 * agents_sandbox_session_state_set_workspace_root_ready:
 * @self: a state
 * @ready: whether the workspace was fully materialized once
 *
 * Sets #AgentsSandboxSessionState:workspace-root-ready.
 */
void
agents_sandbox_session_state_set_workspace_root_ready (
  AgentsSandboxSessionState *self, gboolean ready)
{
  AgentsSandboxSessionStatePrivate *priv;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION_STATE (self));

  priv = GET_PRIV (self);
  ready = !!ready;
  if (priv->workspace_root_ready == ready)
    return;
  priv->workspace_root_ready = ready;
  g_object_notify_by_pspec (G_OBJECT (self),
                            properties[PROP_WORKSPACE_ROOT_READY]);
}

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

/**
 * agents_sandbox_session_state_copy:
 * @self: a state
 *
 * Deep-copies the state: same id and snapshot, an independent manifest.
 *
 * Returns: (transfer full): the copy
 */
AgentsSandboxSessionState *
agents_sandbox_session_state_copy (AgentsSandboxSessionState *self)
{
  AgentsSandboxSessionStateClass *klass;
  AgentsSandboxSessionStatePrivate *priv;
  g_autoptr (AgentsManifest) manifest = NULL;
  AgentsSandboxSessionState *copy;

  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION_STATE (self), NULL);

  klass = AGENTS_SANDBOX_SESSION_STATE_GET_CLASS (self);
  priv = GET_PRIV (self);
  manifest = agents_manifest_copy (priv->manifest);
  copy =
    g_object_new (G_OBJECT_TYPE (self), "session-id", priv->session_id,
                  "manifest", manifest, "snapshot", priv->snapshot,
                  "workspace-root-ready", priv->workspace_root_ready, NULL);
  agents_sandbox_session_state_set_exposed_ports (
    copy, (const int *) (void *) priv->exposed_ports->data,
    priv->exposed_ports->len, NULL);
  agents_sandbox_session_state_set_snapshot_fingerprint (
    copy, priv->snapshot_fingerprint, priv->snapshot_fingerprint_version);
  if (klass->copy_fields != NULL)
    klass->copy_fields (self, copy);
  agents_sandbox_session_state_set_root_vouched (
    copy, agents_sandbox_session_state_get_root_vouched (self));
  GET_PRIV (copy)->grants_require_rebind =
    g_strdupv (priv->grants_require_rebind);
  return copy;
}

/**
 * agents_sandbox_session_state_get_path_grants_require_rebind:
 * @self: a state
 *
 * Gets the sandbox paths of the extra path grants whose host directory
 * (`host_path`) was left out when the state was serialized — or that a
 * document gave one, which was dropped: a deserialized state takes host
 * paths only from a trusted manifest, through
 * agents_sandbox_session_state_rebind_path_grants(). Resuming a state
 * before that fails.
 *
 * Returns: (transfer none) (array zero-terminated=1): the paths (empty
 *   when nothing needs rebinding)
 */
const char *const *
agents_sandbox_session_state_get_path_grants_require_rebind (
  AgentsSandboxSessionState *self)
{
  static const char *const none[] = { NULL };
  AgentsSandboxSessionStatePrivate *priv;

  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION_STATE (self), none);

  priv = GET_PRIV (self);
  return priv->grants_require_rebind
           ? (const char *const *) priv->grants_require_rebind
           : none;
}

static gboolean
has_host_grant_at (AgentsManifest *manifest, const char *path)
{
  GPtrArray *grants = agents_manifest_get_extra_path_grants (manifest);

  for (guint i = 0; i < grants->len; i++)
    if (g_str_equal (agents_sandbox_path_grant_get_path (grants->pdata[i]),
                     path) &&
        agents_sandbox_path_grant_get_host_path (grants->pdata[i]) != NULL)
      return TRUE;
  return FALSE;
}

/* Adds @trusted's host grants at @path to @manifest; FALSE if it has
 * none. */
static gboolean
add_trusted_grants (AgentsManifest *manifest,
                    AgentsManifest *trusted,
                    const char *path)
{
  GPtrArray *grants =
    trusted ? agents_manifest_get_extra_path_grants (trusted) : NULL;
  gboolean found = FALSE;

  for (guint i = 0; grants != NULL && i < grants->len; i++)
    {
      AgentsSandboxPathGrant *grant = grants->pdata[i];

      if (g_str_equal (agents_sandbox_path_grant_get_path (grant), path) &&
          agents_sandbox_path_grant_get_host_path (grant) != NULL)
        {
          agents_manifest_add_extra_path_grant (manifest, grant);
          found = TRUE;
        }
    }
  return found;
}

/**
 * agents_sandbox_session_state_rebind_path_grants:
 * @self: a deserialized state
 * @trusted: (nullable): the manifest the caller trusts now (its own
 *   configuration, never one read from the state)
 * @error: return location for a #GError
 *
 * Gives back the host-directory grants listed by
 * agents_sandbox_session_state_get_path_grants_require_rebind(): for
 * each path, the grants of @trusted at that path that name a host
 * directory (a grant already in the state's manifest at that path, added
 * by trusted code since, is kept instead). @self is not changed.
 *
 * Returns: (transfer full): a state whose grants need no rebinding (a
 *   new reference to @self when none did), or %NULL with
 *   %AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT naming the paths @trusted
 *   has no host directory for
 */
AgentsSandboxSessionState *
agents_sandbox_session_state_rebind_path_grants (
  AgentsSandboxSessionState *self, AgentsManifest *trusted, GError **error)
{
  AgentsSandboxSessionStatePrivate *priv;
  g_autoptr (AgentsSandboxSessionState) rebound = NULL;
  g_autoptr (GPtrArray) missing = NULL;
  AgentsManifest *manifest;

  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION_STATE (self), NULL);
  g_return_val_if_fail (trusted == NULL || AGENTS_IS_MANIFEST (trusted), NULL);

  priv = GET_PRIV (self);
  if (priv->grants_require_rebind == NULL)
    return g_object_ref (self);
  rebound = agents_sandbox_session_state_copy (self);
  manifest = agents_sandbox_session_state_get_manifest (rebound);
  missing = g_ptr_array_new_null_terminated (0, NULL, TRUE);
  for (guint i = 0; priv->grants_require_rebind[i] != NULL; i++)
    {
      const char *path = priv->grants_require_rebind[i];

      if (!has_host_grant_at (manifest, path) &&
          !add_trusted_grants (manifest, trusted, path))
        g_ptr_array_add (missing, (gpointer) path);
    }
  if (missing->len > 0)
    {
      g_autofree char *list = g_strjoinv (", ", (char **) missing->pdata);

      g_set_error (error, AGENTS_SANDBOX_ERROR,
                   AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                   _ ("Sandbox session state requires current trusted "
                      "host_path values for these path grants: %s"),
                   list);
      return NULL;
    }
  g_clear_pointer (&GET_PRIV (rebound)->grants_require_rebind, g_strfreev);
  return g_steal_pointer (&rebound);
}

/**
 * agents_sandbox_session_state_set_root_vouched:
 * @self: a session state
 * @vouched: whether the caller vouches for the state's manifest root
 *
 * Says that the caller's own configuration (its code, not the document
 * the state was read from) names the workspace root of @self: a backend
 * whose workspace is a host directory may then restore into it, empty it
 * and use it. A state read from JSON is hostile until then: such a
 * backend refuses a root that no one vouched for and that it cannot
 * prove it made itself, naming the root and touching nothing.
 *
 * A state made by code is vouched for; agents_sandbox_session_state_load_json()
 * (every deserialization) withdraws it. The session manager vouches for a
 * resumed state whose root is the one of the run config's manifest or of
 * the agent's default manifest. Kept in memory only, never serialized;
 * copies keep it.
 */
void
agents_sandbox_session_state_set_root_vouched (AgentsSandboxSessionState *self,
                                               gboolean vouched)
{
  AgentsSandboxSessionStatePrivate *priv;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION_STATE (self));

  priv = agents_sandbox_session_state_get_instance_private (self);
  priv->root_vouched = !!vouched;
}

/**
 * agents_sandbox_session_state_get_root_vouched:
 * @self: a session state
 *
 * Gets what agents_sandbox_session_state_set_root_vouched() set.
 *
 * Returns: whether the caller vouched for the state's root
 */
gboolean
agents_sandbox_session_state_get_root_vouched (AgentsSandboxSessionState *self)
{
  AgentsSandboxSessionStatePrivate *priv;

  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION_STATE (self), FALSE);

  priv = agents_sandbox_session_state_get_instance_private (self);
  return priv->root_vouched;
}

/**
 * agents_sandbox_session_state_get_exposed_ports:
 * @self: a state
 * @n_ports: (out): the number of ports
 *
 * Gets the TCP ports the session exposes, in the order they were first
 * given, without duplicates.
 *
 * Returns: (array length=n_ports) (transfer none): the ports
 */
const int *
agents_sandbox_session_state_get_exposed_ports (AgentsSandboxSessionState *self,
                                                gsize *n_ports)
{
  AgentsSandboxSessionStatePrivate *priv;

  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION_STATE (self), NULL);
  g_return_val_if_fail (n_ports != NULL, NULL);

  priv = GET_PRIV (self);
  *n_ports = priv->exposed_ports->len;
  return (const int *) (void *) priv->exposed_ports->data;
}

/**
 * agents_sandbox_session_state_set_exposed_ports:
 * @self: a state
 * @ports: (array length=n_ports) (nullable): the ports
 * @n_ports: the number of @ports
 * @error: return location for a #GError
 *
 * Sets the TCP ports the session exposes. Duplicates are dropped, the
 * first appearance setting the order. A port outside 1–65535 fails with
 * %AGENTS_SANDBOX_ERROR_INVALID_JSON (“exposed_ports entries must be
 * between 1 and 65535”) and leaves @self unchanged.
 *
 * Returns: %TRUE on success
 */
gboolean
agents_sandbox_session_state_set_exposed_ports (AgentsSandboxSessionState *self,
                                                const int *ports,
                                                gsize n_ports,
                                                GError **error)
{
  g_autoptr (GArray) normalized = g_array_new (FALSE, FALSE, sizeof (int));

  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION_STATE (self), FALSE);
  g_return_val_if_fail (ports != NULL || n_ports == 0, FALSE);

  for (gsize i = 0; i < n_ports; i++)
    {
      gboolean seen = FALSE;

      if (ports[i] < 1 || ports[i] > G_MAXUINT16)
        {
          agents_json_set_error (
            error, "exposed_ports", "out_of_range",
            _ ("exposed_ports entries must be between 1 and 65535"));
          return FALSE;
        }
      for (guint j = 0; j < normalized->len && !seen; j++)
        seen = g_array_index (normalized, int, j) == ports[i];
      if (!seen)
        g_array_append_val (normalized, ports[i]);
    }
  g_array_unref (GET_PRIV (self)->exposed_ports);
  GET_PRIV (self)->exposed_ports = g_steal_pointer (&normalized);
  return TRUE;
}

/**
 * agents_sandbox_session_state_get_snapshot_fingerprint:
 * @self: a state
 *
 * Gets the fingerprint of the workspace archive last persisted to the
 * snapshot, if one was recorded.
 *
 * Returns: (nullable): the fingerprint
 */
const char *
agents_sandbox_session_state_get_snapshot_fingerprint (
  AgentsSandboxSessionState *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION_STATE (self), NULL);
  return GET_PRIV (self)->snapshot_fingerprint;
}

/**
 * agents_sandbox_session_state_get_snapshot_fingerprint_version:
 * @self: a state
 *
 * Gets how the snapshot fingerprint was computed (e.g.
 * `"workspace_tar_sha256_v1"`).
 *
 * Returns: (nullable): the fingerprint version
 */
const char *
agents_sandbox_session_state_get_snapshot_fingerprint_version (
  AgentsSandboxSessionState *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION_STATE (self), NULL);
  return GET_PRIV (self)->snapshot_fingerprint_version;
}

/**
 * agents_sandbox_session_state_set_snapshot_fingerprint:
 * @self: a state
 * @fingerprint: (nullable): the fingerprint, or %NULL for none
 * @version: (nullable): how it was computed
 *
 * Records the fingerprint of the workspace archive last persisted.
 */
void
agents_sandbox_session_state_set_snapshot_fingerprint (
  AgentsSandboxSessionState *self, const char *fingerprint, const char *version)
{
  AgentsSandboxSessionStatePrivate *priv;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION_STATE (self));

  priv = GET_PRIV (self);
  g_free (priv->snapshot_fingerprint);
  priv->snapshot_fingerprint = g_strdup (fingerprint);
  g_free (priv->snapshot_fingerprint_version);
  priv->snapshot_fingerprint_version = g_strdup (version);
}
