/* agents-sandbox-session-manager-ensure.c - giving an agent its live
 * session: the manifest changes, the sources, the payload checks
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-manifest-private.h"
#include "agents-mount-security-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-sandbox-runtime-private.h"
#include "agents-sandbox-session-private.h"
#include "agents-sandbox-session-manager.h"
#include "agents-sandbox-session-manager-private.h"

/* ---- Manifests --------------------------------------------------------- */

static gboolean
manifest_has_user (AgentsManifest *manifest, AgentsUser *user)
{
  const char *name = agents_user_get_name (user);
  GPtrArray *users = agents_manifest_get_users (manifest);
  GPtrArray *groups = agents_manifest_get_groups (manifest);

  for (guint i = 0; i < users->len; i++)
    if (g_strcmp0 (agents_user_get_name (users->pdata[i]), name) == 0)
      return TRUE;
  for (guint i = 0; i < groups->len; i++)
    {
      GPtrArray *members = agents_group_get_users (groups->pdata[i]);

      for (guint j = 0; members != NULL && j < members->len; j++)
        if (g_strcmp0 (agents_user_get_name (members->pdata[j]), name) == 0)
          return TRUE;
    }
  return FALSE;
}

/**
 * agents_sandbox_session_manager_manifest_with_run_as_user:
 * @manifest: a manifest
 * @user: (nullable): the run-as user of an agent
 *
 * Makes sure the run-as user is provisioned: when @user is %NULL, or
 * already one of the manifest's users or a member of one of its groups
 * (by name), @manifest itself is returned; otherwise a copy with @user
 * added to its users. @manifest is never changed.
 *
 * Returns: (transfer full): @manifest or a changed copy
 */
AgentsManifest *
agents_sandbox_session_manager_manifest_with_run_as_user (
  AgentsManifest *manifest, AgentsUser *user)
{
  AgentsManifest *copy;

  g_return_val_if_fail (AGENTS_IS_MANIFEST (manifest), NULL);
  g_return_val_if_fail (user == NULL || AGENTS_IS_USER (user), NULL);

  if (user == NULL || manifest_has_user (manifest, user))
    return g_object_ref (manifest);
  copy = agents_manifest_copy (manifest);
  agents_manifest_add_user (copy, user);
  return copy;
}

/* A capability failed on @manifest (as it was handed over, and maybe
 * changed in place by it): when mounts with credentials are in play, its
 * error may quote them, so only its domain and code are kept. */
static GError *
capability_error_redact (AgentsManifest *manifest, GError *error)
{
  if (agents_manifest_has_mount_authority (manifest))
    return agents_mount_error_redact (error);
  return error;
}

/* A copy of @base with the run-as user and every capability's manifest
 * changes, or %NULL when a capability fails; @base is not changed. */
static AgentsManifest *
processed_manifest (AgentsManifest *base,
                    AgentsSandboxAgent *agent,
                    GPtrArray *capabilities,
                    GError **error)
{
  g_autoptr (AgentsUser) run_as = agents_sandbox_agent_dup_run_as (agent);
  AgentsManifest *manifest = agents_manifest_copy (base);

  if (run_as != NULL && !manifest_has_user (manifest, run_as))
    agents_manifest_add_user (manifest, run_as);
  for (guint i = 0; capabilities != NULL && i < capabilities->len; i++)
    {
      GError *failure = NULL;
      AgentsManifest *next = agents_capability_process_manifest_checked (
        capabilities->pdata[i], manifest, &failure);

      if (next == NULL)
        {
          if (failure == NULL)
            failure = agents_sandbox_error_new (
              AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, NULL,
              _ ("A capability failed to process the manifest"));
          g_propagate_error (error,
                             capability_error_redact (manifest, failure));
          g_object_unref (manifest);
          return NULL;
        }

      /* A capability that builds a new manifest keeps the trusted
       * acknowledgements: relative ones follow the entries, absolute
       * ones stay where they were. */
      if (next != manifest)
        agents_manifest_copy_mount_acknowledgements (manifest, next);
      g_object_unref (manifest);
      manifest = next;
    }
  return manifest;
}

static gboolean
same_objects (GPtrArray *a, GPtrArray *b, GEqualFunc equal)
{
  if (a->len != b->len)
    return FALSE;
  for (guint i = 0; i < a->len; i++)
    if (!equal (a->pdata[i], b->pdata[i]))
      return FALSE;
  return TRUE;
}

static gboolean
same_accounts (AgentsManifest *a, AgentsManifest *b)
{
  return same_objects (agents_manifest_get_users (a),
                       agents_manifest_get_users (b),
                       (GEqualFunc) agents_user_equal) &&
         same_objects (agents_manifest_get_groups (a),
                       agents_manifest_get_groups (b),
                       (GEqualFunc) agents_group_equal_members);
}

/* The entries of @processed that @current lacks or has differently, with
 * their absolute destinations. */
static GPtrArray *
manifest_delta (AgentsManifest *current, AgentsManifest *processed)
{
  g_autoptr (GPtrArray) targets =
    agents_manifest_list_targets (processed, FALSE);
  g_auto (GStrv) paths = agents_manifest_get_entry_paths (processed);
  GPtrArray *delta =
    g_ptr_array_new_with_free_func ((GDestroyNotify) agents_entry_target_free);

  /* list_targets() keeps the entry order of get_entry_paths(). */
  for (guint i = 0; paths[i] != NULL && i < targets->len; i++)
    {
      AgentsManifestEntry *old = agents_manifest_get_entry (current, paths[i]);
      AgentsEntryTarget *target = targets->pdata[i];

      if (old == NULL || !agents_manifest_entry_equal (old, target->entry))
        g_ptr_array_add (delta, agents_entry_target_copy (target));
    }
  return delta;
}

/* ---- ensure_session ---------------------------------------------------- */

typedef struct
{
  AgentsSandboxAgent *agent;
  GPtrArray *capabilities;
  gboolean is_resumed_state;
  Entry *entry;              /* once known; owned by the manager */
  AgentsManifest *processed; /* for a running injected session */
  AgentsSpan *span;
} EnsureOp;

static void
ensure_op_free (EnsureOp *op)
{
  g_clear_object (&op->agent);
  g_clear_pointer (&op->capabilities, g_ptr_array_unref);
  g_clear_object (&op->processed);
  agents_sandbox_span_finish (&op->span, NULL);
  g_free (op);
}

static void
ensure_done (GTask *task)
{
  AgentsSandboxSessionManager *self = g_task_get_source_object (task);
  EnsureOp *op = g_task_get_task_data (task);

  g_set_object (&self->current_agent, AGENTS_AGENT (op->agent));
  g_task_return_pointer (task, g_object_ref (op->entry->session),
                         g_object_unref);
}

static void
ensure_fail (GTask *task, GError *error)
{
  EnsureOp *op = g_task_get_task_data (task);

  agents_sandbox_span_finish (&op->span, error);
  g_task_return_error (task, error);
}

static void
started (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  EnsureOp *op = g_task_get_task_data (task);
  GError *error = NULL;

  if (!agents_sandbox_session_start_finish (AGENTS_SANDBOX_SESSION (source),
                                            result, &error))
    {
      ensure_fail (task, error);
      return;
    }
  agents_sandbox_span_finish (&op->span, NULL);
  ensure_done (task);
}

static void
start_session (GTask *task)
{
  AgentsSandboxSessionManager *self = g_task_get_source_object (task);
  EnsureOp *op = g_task_get_task_data (task);

  op->span = agents_sandbox_session_manager_start_span (
    self, "sandbox.start", AGENTS_AGENT (op->agent));
  agents_sandbox_session_start_async (op->entry->session,
                                      g_task_get_cancellable (task), started,
                                      g_object_ref (task));
}

/* Registers the agent's session and gives it the run's limits, exactly
 * once whatever the source. */
static void
add_entry (GTask *task, AgentsSandboxSession *session, SessionSource source)
{
  AgentsSandboxSessionManager *self = g_task_get_source_object (task);
  EnsureOp *op = g_task_get_task_data (task);
  Entry *entry = g_new0 (Entry, 1);

  entry->agent = g_object_ref (AGENTS_AGENT (op->agent));
  entry->session = g_object_ref (session);
  entry->source = source;
  g_ptr_array_add (self->entries, entry);
  op->entry = entry;
  agents_sandbox_session_set_concurrency_limits (
    session, agents_sandbox_run_config_get_concurrency_limits (self->config));
  agents_sandbox_session_set_archive_limits (
    session, agents_sandbox_run_config_get_archive_limits (self->config));
  agents_sandbox_run_config_watch_progress (self->config, session);
}

/* Injected sessions */

static void
delta_applied (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  EnsureOp *op = g_task_get_task_data (task);
  AgentsSandboxSession *session = AGENTS_SANDBOX_SESSION (source);
  g_autoptr (GPtrArray) files = NULL;
  GError *error = NULL;

  files =
    agents_sandbox_session_apply_entry_batch_finish (session, result, &error);
  if (error != NULL)
    {
      /* The manifest stays as it was: the next call tries again. */
      ensure_fail (task, error);
      return;
    }
  agents_sandbox_session_state_set_manifest (
    agents_sandbox_session_peek_state (session), op->processed);
  ensure_done (task);
}

static void
materialize_delta (GTask *task)
{
  AgentsSandboxSessionManager *self = g_task_get_source_object (task);
  EnsureOp *op = g_task_get_task_data (task);
  AgentsSandboxSession *session = op->entry->session;
  AgentsManifest *current = agents_sandbox_session_get_manifest (session);
  g_autoptr (GPtrArray) delta = NULL;
  GError *error = NULL;

  op->processed =
    processed_manifest (current, op->agent, op->capabilities, &error);
  if (op->processed == NULL)
    {
      ensure_fail (task, error);
      return;
    }
  if (!same_accounts (current, op->processed))
    {
      ensure_fail (
        task, agents_sandbox_error_new (
                AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, NULL,
                _ ("SandboxAgent “%s” cannot add `manifest.users` or "
                   "`manifest.groups` to a running injected session; provision "
                   "them before injecting it"),
                agents_agent_get_name (AGENTS_AGENT (op->agent))));
      return;
    }
  /* The backend may refuse the update: then nothing is materialized and
   * the session keeps its manifest. */
  if (!agents_sandbox_session_validate_manifest_application (
        session, op->processed, TRUE, &error))
    {
      ensure_fail (task, error);
      return;
    }
  delta = manifest_delta (current, op->processed);
  if (delta->len == 0)
    {
      if (!agents_manifest_equal (current, op->processed))
        agents_sandbox_session_state_set_manifest (
          agents_sandbox_session_peek_state (session), op->processed);
      ensure_done (task);
      return;
    }
  agents_sandbox_session_apply_entry_batch_async (
    session, delta, agents_sandbox_run_config_get_cwd (self->config),
    g_task_get_cancellable (task), delta_applied, g_object_ref (task));
}

static void
injected_running (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  EnsureOp *op = g_task_get_task_data (task);
  AgentsSandboxSession *session = AGENTS_SANDBOX_SESSION (source);
  g_autoptr (AgentsManifest) processed = NULL;
  GError *error = NULL;
  gboolean running =
    agents_sandbox_session_running_finish (session, result, &error);

  if (error != NULL)
    {
      ensure_fail (task, error);
      return;
    }
  if (running)
    {
      materialize_delta (task);
      return;
    }
  /* Stopped: starting it materializes the changed manifest. */
  processed = processed_manifest (agents_sandbox_session_get_manifest (session),
                                  op->agent, op->capabilities, &error);
  if (processed == NULL)
    {
      ensure_fail (task, error);
      return;
    }
  agents_sandbox_session_state_set_manifest (
    agents_sandbox_session_peek_state (session), processed);
  start_session (task);
}

/* Sessions of the run */

static void
existing_running (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;
  gboolean running = agents_sandbox_session_running_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);

  if (error != NULL)
    ensure_fail (task, error);
  else if (running)
    ensure_done (task);
  else
    start_session (task);
}

static void
check_running (GTask *task, GAsyncReadyCallback callback)
{
  EnsureOp *op = g_task_get_task_data (task);

  agents_sandbox_session_running_async (op->entry->session,
                                        g_task_get_cancellable (task), callback,
                                        g_object_ref (task));
}

static void
resumed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  EnsureOp *op = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr (AgentsSandboxSession) session =
    agents_sandbox_client_resume_finish (AGENTS_SANDBOX_CLIENT (source), result,
                                         &error);
  SessionSource source_kind =
    GPOINTER_TO_INT (g_object_get_data (G_OBJECT (task), "source"));

  if (session == NULL)
    {
      ensure_fail (task, error);
      return;
    }
  agents_sandbox_span_finish (&op->span, NULL);
  add_entry (task, session, source_kind);
  start_session (task);
}

static AgentsManifest *
trusted_manifest (AgentsSandboxSessionManager *self, EnsureOp *op)
{
  AgentsManifest *manifest =
    agents_sandbox_run_config_get_manifest (self->config);

  return manifest != NULL
           ? manifest
           : agents_sandbox_agent_get_default_manifest (op->agent);
}

/* Whether the caller's configuration names @state's root: the root of
 * the run config's manifest or of the agent's default one. The default
 * root names no host directory, so it vouches for nothing. */
static gboolean
caller_names_root (AgentsSandboxSessionManager *self,
                   EnsureOp *op,
                   AgentsSandboxSessionState *state)
{
  AgentsManifest *mine[] = {
    agents_sandbox_run_config_get_manifest (self->config),
    agents_sandbox_agent_get_default_manifest (op->agent),
  };
  const char *root = agents_manifest_get_root (
    agents_sandbox_session_state_get_manifest (state));

  for (guint i = 0; i < G_N_ELEMENTS (mine); i++)
    {
      const char *their = mine[i] ? agents_manifest_get_root (mine[i]) : NULL;

      if (their != NULL && root != NULL &&
          g_strcmp0 (their, AGENTS_MANIFEST_DEFAULT_ROOT) != 0 &&
          g_str_equal (their, root))
        return TRUE;
    }
  return FALSE;
}

/* The snapshot a new session gets: the run config's, else a local one
 * in the default directory. */
static GObject *
configured_snapshot_new (AgentsSandboxSessionManager *self)
{
  GObject *snapshot = agents_sandbox_run_config_get_snapshot (self->config);

  if (snapshot != NULL)
    return g_object_ref (snapshot);
  return G_OBJECT (agents_local_snapshot_spec_new (NULL));
}

static void
resume_from_state (GTask *task,
                   AgentsSandboxSessionState *state,
                   SessionSource source)
{
  AgentsSandboxSessionManager *self = g_task_get_source_object (task);
  EnsureOp *op = g_task_get_task_data (task);
  g_autoptr (AgentsManifest) processed = NULL;
  g_autoptr (AgentsSandboxSessionState) rebound = NULL;
  g_autoptr (GObject) configured_snapshot = configured_snapshot_new (self);
  GError *error = NULL;

  /* Saved states carry no mount credentials: the trusted manifest (the
   * run config's, else the agent's) gives them back. */
  if (!agents_manifest_rebind_mount_authority (
        agents_sandbox_session_state_get_manifest (state),
        trusted_manifest (self, op), &error))
    {
      ensure_fail (task, error);
      return;
    }

  if (caller_names_root (self, op, state))
    agents_sandbox_session_state_set_root_vouched (state, TRUE);
  processed =
    processed_manifest (agents_sandbox_session_state_get_manifest (state),
                        op->agent, op->capabilities, &error);
  if (processed == NULL)
    {
      ensure_fail (task, error);
      return;
    }
  agents_sandbox_session_state_set_manifest (state, processed);
  /* Nor host directories: grants that had one take it from the trusted
   * manifest, or from the capabilities, which are trusted code. */
  rebound = agents_sandbox_session_state_rebind_path_grants (
    state, trusted_manifest (self, op), &error);
  if (rebound == NULL)
    {
      ensure_fail (task, error);
      return;
    }
  g_object_set_data (G_OBJECT (task), "source", GINT_TO_POINTER (source));
  op->span = agents_sandbox_session_manager_start_span (
    self, "sandbox.resume_session", AGENTS_AGENT (op->agent));
  /* The caller's options and snapshot, as create would get them: a
   * backend refuses a saved state that disagrees with them. */
  agents_sandbox_client_resume_with_options_async (
    config_client (self), rebound,
    agents_sandbox_run_config_get_options (self->config), configured_snapshot,
    g_task_get_cancellable (task), resumed, g_object_ref (task));
}

static void
created (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  EnsureOp *op = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr (AgentsSandboxSession) session =
    agents_sandbox_client_create_finish (AGENTS_SANDBOX_CLIENT (source), result,
                                         &error);

  if (session == NULL)
    {
      ensure_fail (task, error);
      return;
    }
  agents_sandbox_span_finish (&op->span, NULL);
  add_entry (task, session, SOURCE_CREATED);
  /* A new session is started even if its backend says it runs: start
   * is what materializes its manifest. */
  start_session (task);
}

/* The manifest a new session is created from, in @out: the run
 * config's, else the agent's default one, with the run-as user and the
 * capabilities' changes. Without either, NULL lets the backend use its
 * own default, unless the run-as user or the capabilities add something
 * to an empty manifest. FALSE when a capability fails. */
static gboolean
creation_manifest (AgentsSandboxSessionManager *self,
                   EnsureOp *op,
                   AgentsManifest **out,
                   GError **error)
{
  AgentsManifest *base = agents_sandbox_run_config_get_manifest (self->config);
  g_autoptr (AgentsManifest) empty = NULL;
  g_autoptr (AgentsManifest) processed = NULL;

  if (base == NULL)
    base = agents_sandbox_agent_get_default_manifest (op->agent);
  if (base == NULL)
    base = empty = agents_manifest_new ();
  processed = processed_manifest (base, op->agent, op->capabilities, error);
  if (processed == NULL)
    return FALSE;
  *out = empty != NULL && agents_manifest_equal (processed, empty)
           ? NULL
           : g_steal_pointer (&processed);
  return TRUE;
}

static void
create_session (GTask *task)
{
  AgentsSandboxSessionManager *self = g_task_get_source_object (task);
  EnsureOp *op = g_task_get_task_data (task);
  AgentsSandboxClient *client = config_client (self);
  GVariant *options = agents_sandbox_run_config_get_options (self->config);
  g_autoptr (GObject) snapshot = configured_snapshot_new (self);
  g_autoptr (AgentsManifest) manifest = NULL;
  GError *error = NULL;

  if (options == NULL &&
      !agents_sandbox_client_supports_default_options (client))
    {
      ensure_fail (task, agents_sandbox_error_new (
                           AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, NULL,
                           _ ("The sandbox client “%s” has no default options: "
                              "set AgentsSandboxRunConfig:options"),
                           agents_sandbox_client_get_backend_id (client)));
      return;
    }
  if (!creation_manifest (self, op, &manifest, &error))
    {
      ensure_fail (task, error);
      return;
    }
  op->span = agents_sandbox_session_manager_start_span (
    self, "sandbox.create_session", AGENTS_AGENT (op->agent));
  agents_sandbox_client_create_async (client, manifest, options, snapshot,
                                      g_task_get_cancellable (task), created,
                                      g_object_ref (task));
}

static gboolean
check_payload_backend (AgentsSandboxSessionManager *self, GError **error)
{
  JsonObject *payload = incoming_payload (self);
  const char *backend = agents_run_private_json_string (payload, "backend_id");
  const char *ours =
    agents_sandbox_client_get_backend_id (config_client (self));

  if (backend == NULL || g_strcmp0 (backend, ours) == 0)
    return TRUE;
  {
    g_auto (GVariantBuilder) ctx =
      G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

    g_variant_builder_add (&ctx, "{sv}", "run_state_backend_id",
                           g_variant_new_string (backend));
    g_variant_builder_add (&ctx, "{sv}", "configured_backend_id",
                           g_variant_new_string (ours));
    /* The reference's message, word for word. */
    agents_sandbox_error_set (
      error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
      g_variant_builder_end (&ctx), "%s",
      _ ("RunState sandbox backend does not match the configured sandbox "
         "client"));
  }
  return FALSE;
}

/* The run state's `sandbox` payload comes from a file: a member of the
 * wrong type is an error, not a reason to quietly start afresh. */
static gboolean
payload_member_ok (JsonObject *object,
                   const char *member,
                   JsonNodeType type,
                   const char *path,
                   GError **error)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node) ||
      (type == JSON_NODE_OBJECT && JSON_NODE_HOLDS_OBJECT (node)) ||
      (type == JSON_NODE_VALUE && JSON_NODE_HOLDS_VALUE (node) &&
       json_node_get_value_type (node) == G_TYPE_STRING))
    return TRUE;
  g_set_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_INVALID_RUN_STATE,
               type == JSON_NODE_OBJECT
                 ? _ ("The run state’s sandbox payload is malformed: “%s” "
                      "is not an object")
                 : _ ("The run state’s sandbox payload is malformed: “%s” "
                      "is not a string"),
               path);
  return FALSE;
}

static gboolean
check_payload_shape (AgentsSandboxSessionManager *self, GError **error)
{
  JsonObject *payload = incoming_payload (self);
  JsonObject *sessions;
  g_autoptr (GList) keys = NULL;

  if (payload == NULL)
    return TRUE;
  if (!payload_member_ok (payload, "backend_id", JSON_NODE_VALUE, "backend_id",
                          error) ||
      !payload_member_ok (payload, "current_agent_key", JSON_NODE_VALUE,
                          "current_agent_key", error) ||
      !payload_member_ok (payload, "session_state", JSON_NODE_OBJECT,
                          "session_state", error) ||
      !payload_member_ok (payload, "sessions_by_agent", JSON_NODE_OBJECT,
                          "sessions_by_agent", error))
    return FALSE;
  sessions = object_member (payload, "sessions_by_agent");
  keys = sessions ? json_object_get_members (sessions) : NULL;
  for (GList *l = keys; l != NULL; l = l->next)
    {
      g_autofree char *path =
        g_strdup_printf ("sessions_by_agent.%s", (const char *) l->data);
      g_autofree char *state_path = g_strconcat (path, ".session_state", NULL);

      if (!payload_member_ok (sessions, l->data, JSON_NODE_OBJECT, path,
                              error) ||
          (object_member (sessions, l->data) != NULL &&
           !payload_member_ok (object_member (sessions, l->data),
                               "session_state", JSON_NODE_OBJECT, state_path,
                               error)))
        return FALSE;
    }
  return TRUE;
}

/* Where a run state's local snapshot is kept decides which file resume
 * reads and stop overwrites: only the caller's snapshot directory (the
 * run config's, else the default) is accepted from a document. */
static gboolean
check_payload_snapshot (AgentsSandboxSessionManager *self,
                        AgentsSandboxSessionState *state,
                        GError **error)
{
  AgentsSnapshot *snapshot = agents_sandbox_session_state_get_snapshot (state);
  GObject *configured = agents_sandbox_run_config_get_snapshot (self->config);
  g_autofree char *theirs = NULL;
  g_autofree char *ours = NULL;
  g_autofree char *canonical = NULL;

  if (!AGENTS_IS_LOCAL_SNAPSHOT (snapshot))
    return TRUE;
  if (AGENTS_IS_LOCAL_SNAPSHOT (configured))
    ours = g_strdup (
      agents_local_snapshot_get_base_path (AGENTS_LOCAL_SNAPSHOT (configured)));
  else if (AGENTS_IS_LOCAL_SNAPSHOT_SPEC (configured))
    ours = g_strdup (agents_local_snapshot_spec_get_base_path (
      AGENTS_LOCAL_SNAPSHOT_SPEC (configured)));
  if (ours == NULL)
    {
      /* The default directory, as a snapshot without one gets it. */
      g_autoptr (AgentsSnapshot) probe = agents_local_snapshot_new ("x", NULL);

      ours = g_strdup (
        agents_local_snapshot_get_base_path (AGENTS_LOCAL_SNAPSHOT (probe)));
    }
  canonical = g_canonicalize_filename (ours, "/");
  theirs = g_canonicalize_filename (
    agents_local_snapshot_get_base_path (AGENTS_LOCAL_SNAPSHOT (snapshot)),
    "/");
  if (g_str_equal (theirs, canonical))
    return TRUE;
  agents_sandbox_error_set (
    error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
    g_variant_new_parsed ("{'member': <'snapshot.base_path'>, "
                          "'reason': <'not_configured'>, 'saved': <%s>, "
                          "'configured': <%s>, 'path': <%s>}",
                          theirs, canonical, theirs),
    _ ("the run state's “%s” (%s) is not this program's snapshot directory "
       "(%s): refusing to read or overwrite files there"),
    "snapshot.base_path", theirs, canonical);
  return FALSE;
}

static void
resume_from_payload (GTask *task, JsonNode *payload)
{
  AgentsSandboxSessionManager *self = g_task_get_source_object (task);
  g_autoptr (AgentsSandboxSessionState) state = NULL;
  GError *error = NULL;

  if (!check_payload_backend (self, &error))
    {
      ensure_fail (task, error);
      return;
    }
  state = agents_sandbox_client_deserialize_session_state (config_client (self),
                                                           payload, &error);
  if (state == NULL || !check_payload_snapshot (self, state, &error))
    {
      ensure_fail (task, error);
      return;
    }
  resume_from_state (task, state, SOURCE_RUN_STATE);
}

/* The first call for an agent: take its session from the first source
 * that applies. */
static void
acquire_session (GTask *task)
{
  AgentsSandboxSessionManager *self = g_task_get_source_object (task);
  EnsureOp *op = g_task_get_task_data (task);
  AgentsSandboxSession *injected =
    agents_sandbox_run_config_get_session (self->config);
  AgentsSandboxSessionState *state =
    agents_sandbox_run_config_get_session_state (self->config);
  g_autoptr (JsonNode) payload = NULL;
  GError *error = NULL;

  if (injected != NULL)
    {
      add_entry (task, injected, SOURCE_INJECTED);
      check_running (task, injected_running);
      return;
    }
  if (config_client (self) == NULL)
    {
      ensure_fail (task,
                   agents_sandbox_error_new (
                     AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, NULL,
                     _ ("SandboxAgent “%s” needs a sandbox client or session: "
                        "set AgentsSandboxRunConfig:client"),
                     agents_agent_get_name (AGENTS_AGENT (op->agent))));
      return;
    }
  if (op->is_resumed_state && !check_payload_shape (self, &error))
    {
      ensure_fail (task, error);
      return;
    }
  if (op->is_resumed_state)
    payload = agents_sandbox_session_manager_resume_state_payload_for_agent (
      self, AGENTS_AGENT (op->agent));
  if (payload != NULL)
    resume_from_payload (task, payload);
  else if (state != NULL && !self->session_state_used)
    {
      g_autoptr (AgentsSandboxSessionState) copy =
        agents_sandbox_session_state_copy (state);

      self->session_state_used = TRUE;
      resume_from_state (task, copy, SOURCE_SESSION_STATE);
    }
  else
    create_session (task);
}

/**
 * agents_sandbox_session_manager_ensure_session_async:
 * @self: a session manager
 * @agent: a sandbox agent of the run (acquired)
 * @capabilities: (element-type AgentsCapability) (nullable): the
 *   capabilities whose manifest changes the session gets (the runtime
 *   passes the run's clones)
 * @is_resumed_state: whether the run resumes a run state (then the
 *   agent's session saved in it is resumed)
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the session
 * @user_data: data for @callback
 *
 * Gives @agent its live session, as described in
 * #AgentsSandboxSessionManager. The limits of the run config are checked
 * first: invalid ones fail with %AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT
 * before any session is created, resumed or touched.
 */
void
agents_sandbox_session_manager_ensure_session_async (
  AgentsSandboxSessionManager *self,
  AgentsSandboxAgent *agent,
  GPtrArray *capabilities,
  gboolean is_resumed_state,
  GCancellable *cancellable,
  GAsyncReadyCallback callback,
  gpointer user_data)
{
  g_autoptr (GTask) task = NULL;
  EnsureOp *op;
  GError *error = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION_MANAGER (self));
  g_return_if_fail (AGENTS_IS_SANDBOX_AGENT (agent));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task,
                         agents_sandbox_session_manager_ensure_session_async);
  op = g_new0 (EnsureOp, 1);
  op->agent = g_object_ref (agent);
  op->capabilities =
    capabilities ? g_ptr_array_ref (capabilities) : g_ptr_array_new ();
  op->is_resumed_state = is_resumed_state;
  g_task_set_task_data (task, op, (GDestroyNotify) ensure_op_free);

  if (!agents_sandbox_run_config_validate (self->config, &error))
    {
      ensure_fail (task, error);
      return;
    }
  op->entry =
    agents_sandbox_session_manager_find_entry (self, AGENTS_AGENT (agent));
  if (op->entry == NULL)
    acquire_session (task);
  else if (op->entry->source == SOURCE_INJECTED)
    check_running (task, injected_running);
  else
    check_running (task, existing_running);
}

/**
 * agents_sandbox_session_manager_ensure_session_finish:
 * @self: a session manager
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_manager_ensure_session_async().
 *
 * Returns: (transfer full): the agent's live session
 */
AgentsSandboxSession *
agents_sandbox_session_manager_ensure_session_finish (
  AgentsSandboxSessionManager *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
