/* agents-sandbox-session-manager.c - the sandbox sessions of one run
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-sandbox-error-private.h"
#include "agents-sandbox-runtime-private.h"
#include "agents-sandbox-session-private.h"
#include "agents-sandbox-session-manager.h"
#include "agents-sandbox-session-manager-private.h"

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

Entry *
agents_sandbox_session_manager_find_entry (AgentsSandboxSessionManager *self,
                                           AgentsAgent *agent)
{
  for (guint i = 0; i < self->entries->len; i++)
    {
      Entry *entry = self->entries->pdata[i];

      if (entry->agent == agent)
        return entry;
    }
  return NULL;
}

AgentsSpan *
agents_sandbox_session_manager_start_span (AgentsSandboxSessionManager *self,
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

  entry = agents_sandbox_session_manager_find_entry (self, agent);
  return entry ? entry->session : NULL;
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
