/* agents-sandbox-session-state.c - the serializable state of a session;
 * its JSON is in agents-sandbox-session-state-json.c
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-json-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-sandbox-session-state-private.h"

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

  agents_sandbox_session_state_define_json_family (G_TYPE_FROM_CLASS (klass));
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

AgentsSandboxSessionStatePrivate *
agents_sandbox_session_state_peek_private (AgentsSandboxSessionState *self)
{
  return GET_PRIV (self);
}

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
