/* agents-sandbox-session-manager.c - the sandbox sessions of one run
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

/**
 * AgentsSandboxSessionManager:
 *
 * The sandbox sessions of one run, one per sandbox agent: the reference
 * SDK's `SandboxRuntimeSessionManager`. #AgentsSandboxRuntime uses one
 * for each run; it is public so that the session lifecycle can be driven
 * and observed on its own.
 *
 * agents_sandbox_session_manager_ensure_session_async() gives an agent
 * its live session. The first call for an agent takes it from the first
 * source that applies:
 *
 * 1. the injected #AgentsSandboxRunConfig:session: never created,
 *    stopped, shut down or deleted here. A stopped one gets the run-as
 *    user and the capabilities' manifest changes, then is started; in a
 *    running one those changes are materialized as a delta (new and
 *    changed entries only, through
 *    agents_sandbox_session_apply_entry_batch_async()) once the backend
 *    accepted them
 *    (agents_sandbox_session_validate_manifest_application()), and
 *    account changes are refused;
 * 2. when resuming, the session saved for the agent in the run state's
 *    `sandbox` payload;
 * 3. the #AgentsSandboxRunConfig:session-state (once per run);
 * 4. a new session, created by the client from a copy of the run config's
 *    manifest, else of the agent's default manifest; with neither, the
 *    client's own default (a %NULL manifest), unless the run-as user or
 *    the capabilities add something to an empty manifest.
 *
 * Sessions from sources 2–4 get the run-as user and the capabilities'
 * manifest changes before they are resumed or created, and are always
 * started. Every session gets the run's concurrency and archive limits
 * once. Later calls for the agent check that its session still runs and
 * restart it if it stopped.
 *
 * agents_sandbox_session_manager_cleanup_async() closes the sessions the
 * run created or resumed, exactly once each (stop, shutdown, close their
 * dependencies, delete), and builds the run state's `sandbox` payload:
 *
 * |[
 * {"backend_id": "unix_local",
 *  "current_agent_key": "worker", "current_agent_name": "worker",
 *  "session_state": {…},
 *  "sessions_by_agent": {"triage": {"agent_name": "triage", "session_state":
 * {…}}, "worker": {"agent_name": "worker", "session_state": {…}}}}
 * ]|
 *
 * Sessions are keyed by the agents' identity keys (their names, made
 * unique with `#2`, `#3`…), so that they find their agents again in
 * another process.
 */

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

G_DEFINE_FINAL_TYPE (AgentsSandboxSessionManager,
                     agents_sandbox_session_manager,
                     G_TYPE_OBJECT)

static void
entry_free (Entry *entry)
{
  g_clear_object (&entry->agent);
  g_clear_object (&entry->session);
  g_clear_pointer (&entry->saved_state, json_node_unref);
  g_free (entry);
}

static Entry *
find_entry (AgentsSandboxSessionManager *self, AgentsAgent *agent)
{
  for (guint i = 0; i < self->entries->len; i++)
    {
      Entry *entry = self->entries->pdata[i];

      if (entry->agent == agent)
        return entry;
    }
  return NULL;
}

static AgentsSandboxClient *
config_client (AgentsSandboxSessionManager *self)
{
  return agents_sandbox_run_config_get_client (self->config);
}

static AgentsSpan *
start_span (AgentsSandboxSessionManager *self,
            const char *name,
            AgentsAgent *agent)
{
  g_autoptr (JsonObject) data = json_object_new ();
  AgentsSandboxClient *client = config_client (self);

  if (agent != NULL)
    json_object_set_string_member (data, "agent_name",
                                   agents_agent_get_name (agent));
  if (client != NULL)
    json_object_set_string_member (
      data, "backend_id", agents_sandbox_client_get_backend_id (client));
  return agents_sandbox_span_start (self->trace, self->parent_span, name, data);
}

/* ---- Agents of the run ------------------------------------------------- */

/* Which run holds an agent: a SandboxAgent takes part in one run at a
 * time. */
static GMutex owner_lock;

static GQuark
owner_quark (void)
{
  return g_quark_from_static_string ("agents-sandbox-session-manager-owner");
}

/**
 * agents_sandbox_session_manager_acquire_agent:
 * @self: a session manager
 * @agent: an agent of the run
 * @error: return location for a #GError
 *
 * Registers @agent with the run. An agent is held by one run at a time:
 * while another manager holds it, this fails with
 * %AGENTS_RUN_ERROR_USER_ERROR ("SandboxAgent “NAME” cannot be reused
 * concurrently by another run"). Acquiring an agent the manager already
 * holds does nothing. Agents are released by cleanup, by
 * agents_sandbox_session_manager_release_agents() and when the manager is
 * finalized.
 *
 * Returns: %TRUE if the manager holds @agent
 */
gboolean
agents_sandbox_session_manager_acquire_agent (AgentsSandboxSessionManager *self,
                                              AgentsAgent *agent,
                                              GError **error)
{
  gpointer owner;

  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION_MANAGER (self), FALSE);
  g_return_val_if_fail (AGENTS_IS_AGENT (agent), FALSE);

  g_mutex_lock (&owner_lock);
  owner = g_object_get_qdata (G_OBJECT (agent), owner_quark ());
  if (owner == NULL)
    {
      g_object_set_qdata (G_OBJECT (agent), owner_quark (), self);
      g_ptr_array_add (self->acquired, g_object_ref (agent));
    }
  g_mutex_unlock (&owner_lock);

  if (owner != NULL && owner != self)
    {
      agents_run_error_set (error, AGENTS_RUN_ERROR_USER_ERROR, NULL,
                            _ ("SandboxAgent “%s” cannot be reused "
                               "concurrently by another run"),
                            agents_agent_get_name (agent));
      return FALSE;
    }
  return TRUE;
}

/**
 * agents_sandbox_session_manager_release_agents:
 * @self: a session manager
 *
 * Lets other runs use the agents @self acquired.
 */
void
agents_sandbox_session_manager_release_agents (
  AgentsSandboxSessionManager *self)
{
  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION_MANAGER (self));

  g_mutex_lock (&owner_lock);
  for (guint i = 0; i < self->acquired->len; i++)
    {
      GObject *agent = self->acquired->pdata[i];

      if (g_object_get_qdata (agent, owner_quark ()) == self)
        g_object_set_qdata (agent, owner_quark (), NULL);
    }
  g_mutex_unlock (&owner_lock);
  g_ptr_array_set_size (self->acquired, 0);
}

/* ---- Resume keys ------------------------------------------------------- */

static AgentsAgentIdentityMap *
save_map (AgentsSandboxSessionManager *self)
{
  if (self->save_map == NULL)
    self->save_map =
      agents_run_state_build_agent_identity_map (self->starting_agent);
  return self->save_map;
}

/* Keys of the run state's payload come from the identity map of the
 * state's starting agent, which may not be the run's. */
static AgentsAgentIdentityMap *
load_map (AgentsSandboxSessionManager *self)
{
  AgentsAgent *root = NULL;

  if (self->load_map != NULL)
    return self->load_map;
  if (self->run_state != NULL)
    root = agents_run_state_get_starting_agent (self->run_state);
  if (root == NULL)
    root = self->starting_agent;
  self->load_map = agents_run_state_build_agent_identity_map (root);
  return self->load_map;
}

static gboolean
is_literal_name (AgentsSandboxSessionManager *self, const char *key)
{
  AgentsAgentIdentityMap *map = save_map (self);
  guint n = agents_agent_identity_map_get_n_entries (map);

  for (guint i = 0; i < n; i++)
    if (g_strcmp0 (
          agents_agent_get_name (agents_agent_identity_map_get_agent (map, i)),
          key) == 0)
      return TRUE;
  for (guint i = 0; i < self->acquired->len; i++)
    if (g_strcmp0 (agents_agent_get_name (self->acquired->pdata[i]), key) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
key_taken (AgentsSandboxSessionManager *self, const char *key, gboolean plain)
{
  return g_hash_table_contains (self->used_keys, key) ||
         agents_agent_identity_map_lookup (save_map (self), key) != NULL ||
         (!plain && is_literal_name (self, key));
}

/* A key for an agent outside the starting agent's graph: its name, or
 * the first `name#N` that is neither in use nor some agent's name. */
static char *
fallback_key (AgentsSandboxSessionManager *self, AgentsAgent *agent)
{
  const char *name = agents_agent_get_name (agent);
  char *key = g_strdup (name ? name : "");

  for (guint n = 2; key_taken (self, key, n == 2); n++)
    {
      g_free (key);
      key = g_strdup_printf ("%s#%u", name ? name : "", n);
    }
  return key;
}

/**
 * agents_sandbox_session_manager_ensure_resume_key:
 * @self: a session manager
 * @agent: an agent of the run
 *
 * Gets the key the session of @agent is saved under in the run state's
 * `sandbox` payload: the agent's key in the identity map of the run's
 * starting agent (agents_run_state_build_agent_identity_map()) — its
 * name, or `name#2`, `name#3`… for agents sharing a name, skipping keys
 * that are some agent's literal name. Agents outside that graph get their
 * name or the first free `name#N`. A key, once given, stays the agent's.
 *
 * Returns: (transfer none): the key
 */
const char *
agents_sandbox_session_manager_ensure_resume_key (
  AgentsSandboxSessionManager *self, AgentsAgent *agent)
{
  const char *key;
  char *new_key = NULL;

  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION_MANAGER (self), NULL);
  g_return_val_if_fail (AGENTS_IS_AGENT (agent), NULL);

  key = g_hash_table_lookup (self->resume_keys, agent);
  if (key != NULL)
    return key;
  key = agents_agent_identity_map_find_key (save_map (self), agent);
  if (key != NULL && !g_hash_table_contains (self->used_keys, key))
    new_key = g_strdup (key);
  else
    new_key = fallback_key (self, agent);
  g_hash_table_add (self->used_keys, g_strdup (new_key));
  g_hash_table_insert (self->resume_keys, g_object_ref (agent), new_key);
  return new_key;
}

/* ---- Run state payloads ------------------------------------------------ */

static JsonObject *
incoming_payload (AgentsSandboxSessionManager *self)
{
  return self->run_state ? agents_run_state_get_sandbox (self->run_state)
                         : NULL;
}

static gboolean
is_legacy_payload (JsonObject *payload)
{
  return json_object_has_member (payload, "current_agent_id") &&
         !json_object_has_member (payload, "current_agent_key");
}

static JsonObject *
object_member (JsonObject *object, const char *member)
{
  JsonNode *node = object ? json_object_get_member (object, member) : NULL;

  return node && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node)
                                               : NULL;
}

static JsonNode *
state_member (JsonObject *object)
{
  JsonNode *node =
    object ? json_object_get_member (object, "session_state") : NULL;

  return node && JSON_NODE_HOLDS_OBJECT (node) ? json_node_copy (node) : NULL;
}

/**
 * agents_sandbox_session_manager_resume_state_payload_for_agent:
 * @self: a session manager
 * @agent: an agent
 *
 * Finds the serialized session state saved for @agent in the `sandbox`
 * payload of the run state the run resumes. The payload's keys are
 * matched through the identity map of the run state's starting agent.
 * Legacy payloads (`current_agent_id`, keyed by process-local ids) give
 * their session to the run state's current agent.
 *
 * Returns: (transfer full) (nullable): the serialized state, or %NULL
 */
JsonNode *
agents_sandbox_session_manager_resume_state_payload_for_agent (
  AgentsSandboxSessionManager *self, AgentsAgent *agent)
{
  JsonObject *payload;
  JsonObject *sessions;
  AgentsAgent *current;
  const char *key;

  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION_MANAGER (self), NULL);
  g_return_val_if_fail (AGENTS_IS_AGENT (agent), NULL);

  payload = incoming_payload (self);
  if (payload == NULL)
    return NULL;
  current = agents_run_state_get_current_agent (self->run_state);
  if (is_legacy_payload (payload))
    return agent == current ? state_member (payload) : NULL;

  sessions = object_member (payload, "sessions_by_agent");
  key = agents_agent_identity_map_find_key (load_map (self), agent);
  if (key == NULL && agent == current)
    key = agents_run_private_json_string (payload, "current_agent_key");
  if (key == NULL)
    return NULL;
  return state_member (object_member (sessions, key));
}

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

  op->span = start_span (self, "sandbox.start", AGENTS_AGENT (op->agent));
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
  op->span =
    start_span (self, "sandbox.resume_session", AGENTS_AGENT (op->agent));
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
  op->span =
    start_span (self, "sandbox.create_session", AGENTS_AGENT (op->agent));
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
  op->entry = find_entry (self, AGENTS_AGENT (agent));
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

/**
 * agents_sandbox_session_manager_get_session:
 * @self: a session manager
 * @agent: an agent
 *
 * Gets the session @agent was given in this run.
 *
 * Returns: (transfer none) (nullable): the session, or %NULL
 */
AgentsSandboxSession *
agents_sandbox_session_manager_get_session (AgentsSandboxSessionManager *self,
                                            AgentsAgent *agent)
{
  Entry *entry;

  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION_MANAGER (self), NULL);

  entry = find_entry (self, agent);
  return entry ? entry->session : NULL;
}

/* ---- cleanup ----------------------------------------------------------- */

typedef struct
{
  GPtrArray *sessions; /* distinct sessions to close, AgentsSandboxSession */
  guint next;
  AgentsSandboxSession *session; /* being closed */
  GError *error;                 /* the first failure */
  AgentsSpan *span;              /* sandbox.cleanup_sessions */
  AgentsSpan *step_span;         /* sandbox.stop or sandbox.shutdown */
} CleanupOp;

static void
cleanup_op_free (CleanupOp *op)
{
  g_ptr_array_unref (op->sessions);
  g_clear_object (&op->session);
  g_clear_error (&op->error);
  agents_sandbox_span_finish (&op->step_span, NULL);
  agents_sandbox_span_finish (&op->span, NULL);
  g_free (op);
}

static void
note_error (CleanupOp *op, GError *error)
{
  if (error == NULL)
    return;
  /* A failure met while closing a session whose mounts carry
   * credentials may quote them: only its code is kept. */
  if (agents_manifest_has_mount_authority (
        agents_sandbox_session_get_manifest (op->session)))
    error = agents_mount_error_redact (error);
  g_debug ("Closing a sandbox session failed: %s", error->message);
  if (op->error == NULL)
    op->error = error;
  else
    g_error_free (error);
}

static void
save_state (AgentsSandboxSessionManager *self, AgentsSandboxSession *session)
{
  AgentsSandboxSessionState *state =
    agents_sandbox_session_peek_state (session);
  g_autoptr (JsonNode) node =
    agents_sandbox_client_serialize_session_state (config_client (self), state);

  for (guint i = 0; i < self->entries->len; i++)
    {
      Entry *entry = self->entries->pdata[i];

      if (entry->session != session)
        continue;
      g_clear_pointer (&entry->saved_state, json_node_unref);
      entry->saved_state = json_node_copy (node);
    }
}

static void close_next (GTask *task);
static JsonObject *build_payload (AgentsSandboxSessionManager *self);

static void
deleted (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  CleanupOp *op = g_task_get_task_data (task);
  GError *error = NULL;

  agents_sandbox_client_delete_finish (AGENTS_SANDBOX_CLIENT (source), result,
                                       &error);
  note_error (op, error);
  close_next (task);
}

static void
dependencies_closed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  AgentsSandboxSessionManager *self = g_task_get_source_object (task);
  CleanupOp *op = g_task_get_task_data (task);
  GError *error = NULL;

  agents_sandbox_session_close_dependencies_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  note_error (op, error);
  agents_sandbox_client_delete_async (config_client (self), op->session, NULL,
                                      deleted, task);
}

static void
close_dependencies (GTask *task)
{
  CleanupOp *op = g_task_get_task_data (task);

  agents_sandbox_session_close_dependencies_async (op->session, NULL,
                                                   dependencies_closed, task);
}

static void
shut_down (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  CleanupOp *op = g_task_get_task_data (task);
  GError *error = NULL;

  agents_sandbox_session_shutdown_finish (AGENTS_SANDBOX_SESSION (source),
                                          result, &error);
  agents_sandbox_span_finish (&op->step_span, error);
  note_error (op, error);
  close_dependencies (task);
}

static void
stopped (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  AgentsSandboxSessionManager *self = g_task_get_source_object (task);
  CleanupOp *op = g_task_get_task_data (task);
  GError *error = NULL;

  agents_sandbox_session_stop_finish (AGENTS_SANDBOX_SESSION (source), result,
                                      &error);
  agents_sandbox_span_finish (&op->step_span, error);
  if (error != NULL)
    {
      /* Like agents_sandbox_session_close_async(): no shutdown after a
       * failed stop, but the dependencies are closed. */
      note_error (op, error);
      close_dependencies (task);
      return;
    }
  /* Stopping persisted the workspace: the state is final now. */
  save_state (self, op->session);
  op->step_span = start_span (self, "sandbox.shutdown", NULL);
  agents_sandbox_session_shutdown_async (op->session, NULL, shut_down, task);
}

static void
pre_stop_hooks_ran (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  AgentsSandboxSessionManager *self = g_task_get_source_object (task);
  CleanupOp *op = g_task_get_task_data (task);
  GError *error = NULL;

  if (!agents_sandbox_session_run_pre_stop_hooks_finish (
        AGENTS_SANDBOX_SESSION (source), result, &error))
    {
      /* Nothing is persisted after a failed (or cancelled) hook; the
       * session is still shut down, its dependencies closed and the
       * client deletes it. */
      note_error (op, error);
      op->step_span = start_span (self, "sandbox.shutdown", NULL);
      agents_sandbox_session_shutdown_async (op->session, NULL, shut_down,
                                             task);
      return;
    }
  op->step_span = start_span (self, "sandbox.stop", NULL);
  agents_sandbox_session_stop_async (op->session, NULL, stopped, task);
}

/* Closes the sessions one after the other; @task is held until the last
 * one is done. */
static void
close_next (GTask *task)
{
  AgentsSandboxSessionManager *self = g_task_get_source_object (task);
  CleanupOp *op = g_task_get_task_data (task);

  g_clear_object (&op->session);
  if (op->next >= op->sessions->len)
    {
      agents_sandbox_span_finish (&op->span, op->error);
      if (op->error != NULL)
        g_task_return_error (task, g_steal_pointer (&op->error));
      else
        g_task_return_pointer (task, build_payload (self),
                               (GDestroyNotify) json_object_unref);
      g_object_unref (task);
      return;
    }
  op->session = g_object_ref (op->sessions->pdata[op->next++]);
  agents_sandbox_session_run_pre_stop_hooks_async (
    op->session, g_task_get_cancellable (task), pre_stop_hooks_ran, task);
}

static JsonObject *
saved_entry (Entry *entry)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "agent_name",
                                 agents_agent_get_name (entry->agent));
  json_object_set_member (object, "session_state",
                          entry->saved_state
                            ? json_node_copy (entry->saved_state)
                            : json_node_new (JSON_NODE_NULL));
  return object;
}

/* The sessions the run state had that this run did not touch. */
static void
copy_untouched (AgentsSandboxSessionManager *self, JsonObject *sessions)
{
  JsonObject *payload = incoming_payload (self);
  JsonObject *old;
  JsonObjectIter iter;
  const char *key;
  JsonNode *value;

  if (payload == NULL || is_legacy_payload (payload))
    return;
  old = object_member (payload, "sessions_by_agent");
  if (old == NULL)
    return;
  json_object_iter_init (&iter, old);
  while (json_object_iter_next (&iter, &key, &value))
    if (JSON_NODE_HOLDS_OBJECT (value))
      json_object_set_member (sessions, key, json_node_copy (value));
}

static Entry *
current_entry (AgentsSandboxSessionManager *self)
{
  Entry *entry = find_entry (self, self->current_agent);

  if (entry == NULL && self->entries->len > 0)
    entry = self->entries->pdata[self->entries->len - 1];
  return entry;
}

static JsonObject *
build_payload (AgentsSandboxSessionManager *self)
{
  JsonObject *payload = json_object_new ();
  JsonObject *sessions = json_object_new ();
  Entry *current = current_entry (self);

  copy_untouched (self, sessions);
  for (guint i = 0; i < self->entries->len; i++)
    {
      Entry *entry = self->entries->pdata[i];
      const char *key =
        agents_sandbox_session_manager_ensure_resume_key (self, entry->agent);

      json_object_set_object_member (sessions, key, saved_entry (entry));
    }
  json_object_set_string_member (
    payload, "backend_id",
    agents_sandbox_client_get_backend_id (config_client (self)));
  json_object_set_string_member (
    payload, "current_agent_key",
    agents_sandbox_session_manager_ensure_resume_key (self, current->agent));
  json_object_set_string_member (payload, "current_agent_name",
                                 agents_agent_get_name (current->agent));
  json_object_set_member (payload, "session_state",
                          current->saved_state
                            ? json_node_copy (current->saved_state)
                            : json_node_new (JSON_NODE_NULL));
  json_object_set_object_member (payload, "sessions_by_agent", sessions);
  return payload;
}

static GPtrArray *
sessions_to_close (AgentsSandboxSessionManager *self)
{
  GPtrArray *sessions = g_ptr_array_new_with_free_func (g_object_unref);

  /* A backend may give several agents the same session object: it is
   * closed once. */
  for (guint i = 0; i < self->entries->len; i++)
    {
      Entry *entry = self->entries->pdata[i];

      if (entry->source != SOURCE_INJECTED &&
          !g_ptr_array_find (sessions, entry->session, NULL))
        g_ptr_array_add (sessions, g_object_ref (entry->session));
    }
  return sessions;
}

static JsonObject *
incoming_copy (AgentsSandboxSessionManager *self)
{
  JsonObject *payload = incoming_payload (self);

  return payload ? agents_run_private_json_object_copy (payload) : NULL;
}

/**
 * agents_sandbox_session_manager_cleanup_async:
 * @self: a session manager
 * @cancellable: (nullable): a #GCancellable, given to the sessions'
 *   pre-stop hooks (closing itself is not interrupted: sessions must not
 *   leak)
 * @callback: (scope async): called with the run state's payload
 * @user_data: data for @callback
 *
 * Ends the run's use of its sessions, once: releases the agents, closes
 * the sessions the run created or resumed (their pre-stop hooks, stop,
 * which persists them, then shutdown; their dependencies are closed and
 * the client deletes them even when that fails; a failed pre-stop hook
 * skips stop, so nothing is persisted), and builds the `sandbox` payload of the
 * run state from their states as they are after stop. Sessions of the
 * run state the run did not use are kept in the payload.
 *
 * The payload is %NULL with an injected session (the caller owns it), a
 * copy of the run state's payload when the run used no session, and
 * %NULL after the first call. If closing a session fails, the others are
 * still closed and the first error is returned instead of a payload.
 */
void
agents_sandbox_session_manager_cleanup_async (AgentsSandboxSessionManager *self,
                                              GCancellable *cancellable,
                                              GAsyncReadyCallback callback,
                                              gpointer user_data)
{
  g_autoptr (GTask) task = NULL;
  CleanupOp *op;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION_MANAGER (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_sandbox_session_manager_cleanup_async);
  agents_sandbox_session_manager_release_agents (self);
  if (self->cleaned_up ||
      agents_sandbox_run_config_get_session (self->config) != NULL)
    {
      self->cleaned_up = TRUE;
      g_task_return_pointer (task, NULL, NULL);
      return;
    }
  self->cleaned_up = TRUE;
  if (self->entries->len == 0)
    {
      g_task_return_pointer (task, incoming_copy (self),
                             (GDestroyNotify) json_object_unref);
      return;
    }
  op = g_new0 (CleanupOp, 1);
  op->sessions = sessions_to_close (self);
  g_task_set_task_data (task, op, (GDestroyNotify) cleanup_op_free);
  op->span = start_span (self, "sandbox.cleanup_sessions", NULL);
  close_next (g_steal_pointer (&task));
}

/**
 * agents_sandbox_session_manager_cleanup_finish:
 * @self: a session manager
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_manager_cleanup_async().
 *
 * Returns: (transfer full) (nullable): the run state's `sandbox` payload,
 *   or %NULL (with @error unset when there is none)
 */
JsonObject *
agents_sandbox_session_manager_cleanup_finish (
  AgentsSandboxSessionManager *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- GObject ----------------------------------------------------------- */

void
agents_sandbox_session_manager_set_trace (AgentsSandboxSessionManager *self,
                                          AgentsTrace *trace,
                                          AgentsSpan *parent)
{
  g_set_object (&self->trace, trace);
  g_set_object (&self->parent_span, parent);
}

static void
agents_sandbox_session_manager_finalize (GObject *object)
{
  AgentsSandboxSessionManager *self = AGENTS_SANDBOX_SESSION_MANAGER (object);

  agents_sandbox_session_manager_release_agents (self);
  g_ptr_array_unref (self->acquired);
  g_ptr_array_unref (self->entries);
  g_hash_table_unref (self->resume_keys);
  g_hash_table_unref (self->used_keys);
  g_clear_object (&self->save_map);
  g_clear_object (&self->load_map);
  g_clear_object (&self->current_agent);
  g_clear_object (&self->starting_agent);
  g_clear_object (&self->config);
  g_clear_object (&self->run_state);
  g_clear_object (&self->trace);
  g_clear_object (&self->parent_span);

  G_OBJECT_CLASS (agents_sandbox_session_manager_parent_class)
    ->finalize (object);
}

static void
agents_sandbox_session_manager_class_init (
  AgentsSandboxSessionManagerClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = agents_sandbox_session_manager_finalize;
}

static void
agents_sandbox_session_manager_init (AgentsSandboxSessionManager *self)
{
  self->entries = g_ptr_array_new_with_free_func ((GDestroyNotify) entry_free);
  self->acquired = g_ptr_array_new_with_free_func (g_object_unref);
  self->resume_keys =
    g_hash_table_new_full (NULL, NULL, g_object_unref, g_free);
  self->used_keys =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

/**
 * agents_sandbox_session_manager_new:
 * @starting_agent: the run's starting agent
 * @config: the run's sandbox config
 * @run_state: (nullable): the run state the run resumes
 *
 * Creates the session manager of a run.
 *
 * Returns: (transfer full): the manager
 */
AgentsSandboxSessionManager *
agents_sandbox_session_manager_new (AgentsAgent *starting_agent,
                                    AgentsSandboxRunConfig *config,
                                    AgentsRunState *run_state)
{
  AgentsSandboxSessionManager *self;

  g_return_val_if_fail (AGENTS_IS_AGENT (starting_agent), NULL);
  g_return_val_if_fail (AGENTS_IS_SANDBOX_RUN_CONFIG (config), NULL);
  g_return_val_if_fail (run_state == NULL || AGENTS_IS_RUN_STATE (run_state),
                        NULL);

  self = g_object_new (AGENTS_TYPE_SANDBOX_SESSION_MANAGER, NULL);
  self->starting_agent = g_object_ref (starting_agent);
  self->config = g_object_ref (config);
  self->run_state = run_state ? g_object_ref (run_state) : NULL;
  return self;
}

/**
 * agents_sandbox_session_manager_get_starting_agent:
 * @self: a session manager
 *
 * Gets the run's starting agent.
 *
 * Returns: (transfer none): the agent
 */
AgentsAgent *
agents_sandbox_session_manager_get_starting_agent (
  AgentsSandboxSessionManager *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION_MANAGER (self), NULL);
  return self->starting_agent;
}

/**
 * agents_sandbox_session_manager_get_config:
 * @self: a session manager
 *
 * Gets the run's sandbox config.
 *
 * Returns: (transfer none): the config
 */
AgentsSandboxRunConfig *
agents_sandbox_session_manager_get_config (AgentsSandboxSessionManager *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION_MANAGER (self), NULL);
  return self->config;
}

/**
 * agents_sandbox_session_manager_get_run_state:
 * @self: a session manager
 *
 * Gets the run state the run resumes.
 *
 * Returns: (transfer none) (nullable): the run state
 */
AgentsRunState *
agents_sandbox_session_manager_get_run_state (AgentsSandboxSessionManager *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION_MANAGER (self), NULL);
  return self->run_state;
}
