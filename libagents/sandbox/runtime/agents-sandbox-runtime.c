/* agents-sandbox-runtime.c - preparing sandbox agents for a run
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-builtin-capabilities.h"
#include "agents-capability-private.h"
#include "agents-memory-capability-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-sandbox-run-config.h"
#include "agents-sandbox-runtime-private.h"
#include "agents-workspace-scope-private.h"

/* ---- Spans ------------------------------------------------------------- */

AgentsSpan *
agents_sandbox_span_start (AgentsTrace *trace,
                           AgentsSpan *parent,
                           const char *name,
                           JsonObject *data)
{
  g_autoptr (JsonObject) members = json_object_new ();

  if (trace == NULL)
    {
      trace = agents_tracing_get_current_trace ();
      parent = agents_tracing_get_current_span ();
    }
  if (trace == NULL)
    return NULL;
  json_object_set_string_member (members, "name", name);
  json_object_set_object_member (
    members, "data", data ? json_object_ref (data) : json_object_new ());
  return agents_trace_start_span (trace, parent, AGENTS_SPAN_KIND_CUSTOM,
                                  members);
}

void
agents_sandbox_span_finish (AgentsSpan **span, const GError *error)
{
  if (*span == NULL)
    return;
  agents_span_end (*span, error);
  g_clear_object (span);
}

/* ---- AgentsSandboxRuntime ---------------------------------------------- */

/**
 * AgentsSandboxRuntime:
 *
 * The sandbox side of one run: the reference SDK's `SandboxRuntime`.
 * The runner makes one per run whose #AgentsRunConfig:sandbox is an
 * #AgentsSandboxRunConfig; it can also be driven directly.
 *
 * Before each model call, agents_sandbox_runtime_prepare_agent_async()
 * gives the current agent its session (through an
 * #AgentsSandboxSessionManager), and returns the agent to execute: for an
 * #AgentsSandboxAgent, an execution agent made once per agent and run and
 * reused while its session lives (the session's liveness is checked every
 * time, and a stopped session restarted). Its capabilities are clones of
 * the agent's, bound to the session, the run-as user and the run's
 * working directory (#AgentsSandboxRunConfig:workspace-cwd) — the agent's
 * own capability objects are never bound or changed. When the agent's
 * run-as user changes between two preparations, the same clones are bound
 * to the new user and a new execution agent is made, so that its tools
 * run as that user. Other agents are executed as they are.
 *
 * With a working directory, every preparation of a sandbox agent checks
 * it in the session before the agent runs: `test -d DIR` then
 * `test -x DIR`, run without a shell as the agent's run-as user, DIR
 * being the directory joined to the manifest root as a POSIX path (the
 * session's own path normalization is not used: it may be another
 * system's). A failing check fails the preparation with
 * %AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT naming the directory.
 *
 * When the run is over, agents_sandbox_runtime_cleanup_async() closes
 * the run's sessions and returns the run state's `sandbox` payload.
 *
 * Work is traced as custom spans: `sandbox.prepare_agent`,
 * `sandbox.create_session`, `sandbox.resume_session`, `sandbox.start`,
 * `sandbox.cleanup`, `sandbox.cleanup_sessions`, `sandbox.stop` and
 * `sandbox.shutdown`.
 */

typedef struct
{
  AgentsSandboxAgent *execution_agent;
  GPtrArray *capabilities; /* AgentsCapability, the run's clones */
  AgentsSandboxSession *session;
  AgentsUser *run_as; /* what the clones are bound to, or NULL */
} Cached;

static void
cached_free (Cached *cached)
{
  g_clear_object (&cached->execution_agent);
  g_clear_pointer (&cached->capabilities, g_ptr_array_unref);
  g_clear_object (&cached->session);
  g_clear_object (&cached->run_as);
  g_free (cached);
}

struct _AgentsSandboxRuntime
{
  GObject parent_instance;

  AgentsAgent *starting_agent;
  AgentsRunConfig *run_config;
  AgentsRunState *run_state;
  AgentsSandboxSessionManager *manager; /* NULL without a sandbox config */

  GHashTable *cache; /* public agent → Cached */
  AgentsAgent *current_agent;
  AgentsCapability *memory;

  AgentsTrace *trace;
  AgentsSpan *parent_span;
};

G_DEFINE_FINAL_TYPE (AgentsSandboxRuntime,
                     agents_sandbox_runtime,
                     G_TYPE_OBJECT)

static void
agents_sandbox_runtime_finalize (GObject *object)
{
  AgentsSandboxRuntime *self = AGENTS_SANDBOX_RUNTIME (object);

  g_hash_table_unref (self->cache);
  g_clear_object (&self->manager);
  g_clear_object (&self->current_agent);
  g_clear_object (&self->memory);
  g_clear_object (&self->starting_agent);
  g_clear_object (&self->run_config);
  g_clear_object (&self->run_state);
  g_clear_object (&self->trace);
  g_clear_object (&self->parent_span);

  G_OBJECT_CLASS (agents_sandbox_runtime_parent_class)->finalize (object);
}

static void
agents_sandbox_runtime_class_init (AgentsSandboxRuntimeClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = agents_sandbox_runtime_finalize;
}

static void
agents_sandbox_runtime_init (AgentsSandboxRuntime *self)
{
  self->cache = g_hash_table_new_full (NULL, NULL, g_object_unref,
                                       (GDestroyNotify) cached_free);
}

/**
 * agents_sandbox_runtime_new:
 * @starting_agent: the run's starting agent
 * @run_config: the run's config; its #AgentsRunConfig:sandbox should be an
 *   #AgentsSandboxRunConfig
 * @run_state: (nullable): the run state the run resumes
 *
 * Creates the sandbox runtime of a run. Without a sandbox config,
 * preparing a sandbox agent fails with %AGENTS_RUN_ERROR_USER_ERROR.
 *
 * Returns: (transfer full): the runtime
 */
AgentsSandboxRuntime *
agents_sandbox_runtime_new (AgentsAgent *starting_agent,
                            AgentsRunConfig *run_config,
                            AgentsRunState *run_state)
{
  AgentsSandboxRuntime *self;
  GObject *sandbox;

  g_return_val_if_fail (AGENTS_IS_AGENT (starting_agent), NULL);
  g_return_val_if_fail (AGENTS_IS_RUN_CONFIG (run_config), NULL);
  g_return_val_if_fail (run_state == NULL || AGENTS_IS_RUN_STATE (run_state),
                        NULL);

  self = g_object_new (AGENTS_TYPE_SANDBOX_RUNTIME, NULL);
  self->starting_agent = g_object_ref (starting_agent);
  self->run_config = g_object_ref (run_config);
  self->run_state = run_state ? g_object_ref (run_state) : NULL;
  sandbox = agents_run_config_get_sandbox (run_config);
  if (AGENTS_IS_SANDBOX_RUN_CONFIG (sandbox))
    self->manager = agents_sandbox_session_manager_new (
      starting_agent, AGENTS_SANDBOX_RUN_CONFIG (sandbox), run_state);
  return self;
}

/**
 * agents_sandbox_runtime_get_session_manager:
 * @self: a runtime
 *
 * Gets the manager of the run's sessions.
 *
 * Returns: (transfer none) (nullable): the manager, or %NULL without a
 *   sandbox config
 */
AgentsSandboxSessionManager *
agents_sandbox_runtime_get_session_manager (AgentsSandboxRuntime *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_RUNTIME (self), NULL);
  return self->manager;
}

/**
 * agents_sandbox_runtime_get_current_agent:
 * @self: a runtime
 *
 * Gets the agent prepared last: the run's active agent.
 *
 * Returns: (transfer none) (nullable): the agent
 */
AgentsAgent *
agents_sandbox_runtime_get_current_agent (AgentsSandboxRuntime *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_RUNTIME (self), NULL);
  return self->current_agent;
}

/**
 * agents_sandbox_runtime_get_memory_generation_manager:
 * @self: a runtime
 *
 * Gets what generates memories when the run ends (the reference's memory
 * generation manager): the active agent's bound `memory` capability
 * (#AgentsMemoryCapability) when its #AgentsMemoryCapability:generate is
 * on. It follows the active agent: after a handoff to an agent without
 * such a capability, there is none.
 *
 * Returns: (transfer none) (nullable): the memory capability, or %NULL
 */
AgentsCapability *
agents_sandbox_runtime_get_memory_generation_manager (
  AgentsSandboxRuntime *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_RUNTIME (self), NULL);
  return self->memory;
}

/**
 * agents_sandbox_runtime_set_trace:
 * @self: a runtime
 * @trace: (nullable): the trace the runtime's spans belong to
 * @parent: (nullable): the span they are nested in
 *
 * Tells the runtime where its spans go. With no trace (the default), each
 * operation uses the calling thread's current trace and span when it
 * starts.
 */
void
agents_sandbox_runtime_set_trace (AgentsSandboxRuntime *self,
                                  AgentsTrace *trace,
                                  AgentsSpan *parent)
{
  g_return_if_fail (AGENTS_IS_SANDBOX_RUNTIME (self));
  g_return_if_fail (trace == NULL || AGENTS_IS_TRACE (trace));
  g_return_if_fail (parent == NULL || AGENTS_IS_SPAN (parent));

  g_set_object (&self->trace, trace);
  if (trace == NULL)
    parent = NULL;
  g_set_object (&self->parent_span, parent);
}

/* The session manager's spans nest in @span, the runtime's span of the
 * operation, or where that span would have been. */
static void
nest_manager_spans (AgentsSandboxRuntime *self, AgentsSpan *span)
{
  AgentsTrace *trace = self->trace;
  AgentsSpan *parent = self->parent_span;

  if (trace == NULL)
    {
      trace = agents_tracing_get_current_trace ();
      parent = agents_tracing_get_current_span ();
    }
  agents_sandbox_session_manager_set_trace (self->manager, trace,
                                            span ? span : parent);
}

/* ---- prepare_agent ----------------------------------------------------- */

typedef struct
{
  AgentsSandboxAgent *agent;
  JsonNode *input;
  GPtrArray *capabilities;
  AgentsSpan *span;
  char *cwd;                     /* the run's, normalized, or NULL */
  AgentsUser *run_as;            /* the agent's at this preparation */
  AgentsSandboxSession *session; /* once ensured */
  guint probe;                   /* the next cwd probe */
} PrepareOp;

static void
prepare_op_free (PrepareOp *op)
{
  g_clear_object (&op->agent);
  g_clear_pointer (&op->input, json_node_unref);
  g_clear_pointer (&op->capabilities, g_ptr_array_unref);
  agents_sandbox_span_finish (&op->span, NULL);
  g_free (op->cwd);
  g_clear_object (&op->run_as);
  g_clear_object (&op->session);
  g_free (op);
}

static GPtrArray *
clone_capabilities (AgentsSandboxAgent *agent)
{
  GListModel *model = agents_sandbox_agent_get_capabilities (agent);
  guint n = g_list_model_get_n_items (model);
  GPtrArray *clones = g_ptr_array_new_full (n, g_object_unref);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr (AgentsCapability) capability =
        g_list_model_get_item (model, i);

      g_ptr_array_add (clones, agents_capability_clone (capability));
    }
  return clones;
}

static AgentsCapability *
find_memory (GPtrArray *capabilities)
{
  for (guint i = 0; i < capabilities->len; i++)
    {
      AgentsCapability *capability = capabilities->pdata[i];

      if (AGENTS_IS_MEMORY_CAPABILITY (capability) &&
          agents_memory_capability_get_generate (
            AGENTS_MEMORY_CAPABILITY (capability)))
        return capability;
    }
  return NULL;
}

static JsonNode *
process_context (GPtrArray *capabilities, JsonNode *input)
{
  g_autoptr (JsonArray) items = NULL;

  if (input == NULL || !JSON_NODE_HOLDS_ARRAY (input))
    return input ? json_node_ref (input) : NULL;
  items = json_array_ref (json_node_get_array (input));
  for (guint i = 0; i < capabilities->len; i++)
    {
      JsonArray *next =
        agents_capability_process_context (capabilities->pdata[i], items);

      json_array_unref (items);
      items = next;
    }
  return json_node_init_array (json_node_alloc (), items);
}

/* (Re)binds the run's clones and makes the execution agent: a new one
 * for a new session or a new run-as user, over the same clones.
 * @rebinding_user: whether the clones are bound to a user the agent no
 * longer has. */
static Cached *
cache_execution_agent (AgentsSandboxRuntime *self,
                       PrepareOp *op,
                       AgentsSandboxSession *session,
                       gboolean rebinding_user)
{
  Cached *cached = g_new0 (Cached, 1);

  for (guint i = 0; i < op->capabilities->len; i++)
    {
      AgentsCapability *capability = op->capabilities->pdata[i];

      agents_capability_bind (capability, session);
      if (op->run_as != NULL || rebinding_user)
        agents_capability_bind_run_as (capability, op->run_as);
      /* Validated with the run config: this cannot fail. */
      if (op->cwd != NULL)
        agents_capability_bind_cwd (capability, op->cwd, NULL);
    }
  cached->capabilities = g_ptr_array_ref (op->capabilities);
  cached->session = g_object_ref (session);
  cached->run_as = op->run_as ? g_object_ref (op->run_as) : NULL;
  cached->execution_agent = agents_sandbox_agent_new_execution (
    op->agent, op->capabilities, session, self->run_config, op->cwd);
  g_hash_table_replace (self->cache, g_object_ref (op->agent), cached);
  return cached;
}

/* Whether @cached serves this preparation: same session, same user. */
static gboolean
cached_is_current (Cached *cached, PrepareOp *op, AgentsSandboxSession *session)
{
  return cached != NULL && cached->session == session &&
         agents_user_equal (cached->run_as, op->run_as);
}

static void
set_current (AgentsSandboxRuntime *self,
             AgentsAgent *agent,
             GPtrArray *capabilities)
{
  AgentsCapability *memory = capabilities ? find_memory (capabilities) : NULL;

  g_set_object (&self->current_agent, agent);
  g_set_object (&self->memory, memory);
}

static void
finish_prepare (AgentsSandboxRuntime *self, GTask *task)
{
  PrepareOp *op = g_task_get_task_data (task);
  AgentsSandboxSession *session = op->session;
  g_autoptr (JsonNode) input = NULL;
  Cached *cached = g_hash_table_lookup (self->cache, op->agent);

  if (!cached_is_current (cached, op, session))
    cached = cache_execution_agent (self, op, session,
                                    cached != NULL && cached->run_as != NULL);
  set_current (self, AGENTS_AGENT (op->agent), cached->capabilities);
  input = process_context (cached->capabilities, op->input);
  agents_sandbox_span_finish (&op->span, NULL);
  g_task_return_pointer (
    task,
    agents_sandbox_prepared_agent_new (AGENTS_AGENT (op->agent),
                                       AGENTS_AGENT (cached->execution_agent),
                                       input, session),
    g_object_unref);
}

static void
fail_prepare (GTask *task, GError *error)
{
  PrepareOp *op = g_task_get_task_data (task);

  agents_sandbox_span_finish (&op->span, error);
  g_task_return_error (task, error);
}

/* ---- The run cwd probes ------------------------------------------------ */

/* The two checks of the run's working directory, in order. */
static const char *const cwd_probe_flags[] = { "-d", "-x" };

/* The seconds a probe may take. */
#define CWD_PROBE_TIMEOUT 60.0

static const char *
run_as_name (PrepareOp *op)
{
  return op->run_as ? agents_user_get_name (op->run_as) : NULL;
}

static char *
cwd_probe_path (PrepareOp *op, GError **error)
{
  AgentsManifest *manifest = agents_sandbox_session_get_manifest (op->session);
  const char *root = manifest ? agents_manifest_get_root (manifest) : NULL;

  return agents_workspace_scope_resource_path (root ? root : "/workspace",
                                               op->cwd, error);
}

static GError *
cwd_probe_error (PrepareOp *op, const char *path, int exit_code)
{
  GVariant *context = g_variant_new_parsed (
    "{'field': <'cwd'>, 'cwd': <%s>, 'path': <%s>, 'exit_code': <%i>}", op->cwd,
    path, exit_code);
  const char *user = run_as_name (op);

  if (op->probe == 0)
    return agents_sandbox_error_new (
      AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, context,
      _ ("sandbox.cwd “%s” is not a directory in the sandbox: %s"), op->cwd,
      path);
  if (user != NULL)
    return agents_sandbox_error_new (
      AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, context,
      _ ("sandbox.cwd “%s” cannot be entered by the user “%s”: %s"), op->cwd,
      user, path);
  return agents_sandbox_error_new (
    AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, context,
    _ ("sandbox.cwd “%s” cannot be entered: %s"), op->cwd, path);
}

static void run_cwd_probe (GTask *task);

static void
cwd_probed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  PrepareOp *op = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr (AgentsExecResult) probe = agents_sandbox_session_exec_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  g_autofree char *path = NULL;

  if (probe == NULL)
    {
      g_prefix_error (&error, _ ("Cannot check sandbox.cwd “%s”: "), op->cwd);
      fail_prepare (task, error);
      return;
    }
  if (!agents_exec_result_ok (probe))
    {
      path = cwd_probe_path (op, NULL);
      fail_prepare (
        task,
        cwd_probe_error (op, path, agents_exec_result_get_exit_code (probe)));
      return;
    }
  op->probe++;
  run_cwd_probe (g_steal_pointer (&task));
}

/* Runs the next probe, or finishes the preparation; takes @task. */
static void
run_cwd_probe (GTask *task)
{
  AgentsSandboxRuntime *self = g_task_get_source_object (task);
  PrepareOp *op = g_task_get_task_data (task);
  GError *error = NULL;
  g_autofree char *path = NULL;

  if (op->cwd == NULL || op->probe == G_N_ELEMENTS (cwd_probe_flags))
    {
      finish_prepare (self, task);
      g_object_unref (task);
      return;
    }
  if ((path = cwd_probe_path (op, &error)) == NULL)
    {
      fail_prepare (task, error);
      g_object_unref (task);
      return;
    }
  {
    const char *argv[] = { "test", cwd_probe_flags[op->probe], path, NULL };

    agents_sandbox_session_exec_async (
      op->session, argv, CWD_PROBE_TIMEOUT, FALSE, run_as_name (op),
      g_task_get_cancellable (task), cwd_probed, task);
  }
}

static void
session_ensured (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  PrepareOp *op = g_task_get_task_data (task);
  GError *error = NULL;

  op->session = agents_sandbox_session_manager_ensure_session_finish (
    AGENTS_SANDBOX_SESSION_MANAGER (source), result, &error);
  if (op->session == NULL)
    {
      fail_prepare (task, error);
      g_object_unref (task);
      return;
    }
  run_cwd_probe (task);
}

static void
prepare_sandbox_agent (AgentsSandboxRuntime *self,
                       GTask *task,
                       gboolean is_resumed_state)
{
  PrepareOp *op = g_task_get_task_data (task);
  Cached *cached = g_hash_table_lookup (self->cache, op->agent);
  g_autoptr (JsonObject) data = json_object_new ();
  AgentsSandboxRunConfig *config =
    agents_sandbox_session_manager_get_config (self->manager);
  const char *cwd = agents_sandbox_run_config_get_workspace_cwd (config);
  GError *error = NULL;

  /* Refused before any session exists (and any probe runs), as the
   * reference refuses them. */
  if ((cwd != NULL && (op->cwd = agents_workspace_scope_normalize_cwd (
                         cwd, &error)) == NULL) ||
      !agents_capabilities_check_required (
        agents_sandbox_agent_get_capabilities (op->agent), &error) ||
      !agents_sandbox_session_manager_acquire_agent (
        self->manager, AGENTS_AGENT (op->agent), &error))
    {
      g_task_return_error (task, error);
      return;
    }
  /* The user as it is now: a change between preparations makes a new
   * execution agent. */
  op->run_as = agents_sandbox_agent_dup_run_as (op->agent);
  json_object_set_string_member (
    data, "agent_name", agents_agent_get_name (AGENTS_AGENT (op->agent)));
  op->span = agents_sandbox_span_start (self->trace, self->parent_span,
                                        "sandbox.prepare_agent", data);
  nest_manager_spans (self, op->span);
  /* Capabilities are cloned once per agent and run: the clones keep
   * their state from turn to turn. */
  op->capabilities = cached ? g_ptr_array_ref (cached->capabilities)
                            : clone_capabilities (op->agent);
  agents_sandbox_session_manager_ensure_session_async (
    self->manager, op->agent, op->capabilities, is_resumed_state,
    g_task_get_cancellable (task), session_ensured, g_object_ref (task));
}

static GError *
no_sandbox_error (AgentsAgent *agent)
{
  return agents_run_error_new (
    AGENTS_RUN_ERROR_USER_ERROR, NULL,
    _ ("SandboxAgent “%s” needs a sandbox: set AgentsRunConfig:sandbox to an "
       "AgentsSandboxRunConfig (the reference's RunConfig(sandbox=...))"),
    agents_agent_get_name (agent));
}

/**
 * agents_sandbox_runtime_prepare_agent_async:
 * @self: a runtime
 * @agent: the current agent of the run, as the user built it
 * @input: the model input, a string or an array of items
 * @ctx: the run context
 * @is_resumed_state: whether the run resumes a run state
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the prepared agent
 * @user_data: data for @callback
 *
 * Prepares @agent for a model call: see #AgentsSandboxRuntime. A sandbox
 * agent held by another run fails with %AGENTS_RUN_ERROR_USER_ERROR
 * ("cannot be reused concurrently"); errors of its session are returned
 * as they are.
 */
void
agents_sandbox_runtime_prepare_agent_async (AgentsSandboxRuntime *self,
                                            AgentsAgent *agent,
                                            JsonNode *input,
                                            AgentsRunContext *ctx,
                                            gboolean is_resumed_state,
                                            GCancellable *cancellable,
                                            GAsyncReadyCallback callback,
                                            gpointer user_data)
{
  g_autoptr (GTask) task = NULL;
  PrepareOp *op;

  g_return_if_fail (AGENTS_IS_SANDBOX_RUNTIME (self));
  g_return_if_fail (AGENTS_IS_AGENT (agent));
  g_return_if_fail (ctx == NULL || AGENTS_IS_RUN_CONTEXT (ctx));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_sandbox_runtime_prepare_agent_async);
  if (!AGENTS_IS_SANDBOX_AGENT (agent))
    {
      set_current (self, agent, NULL);
      g_task_return_pointer (
        task, agents_sandbox_prepared_agent_new (agent, agent, input, NULL),
        g_object_unref);
      return;
    }
  if (self->manager == NULL)
    {
      g_task_return_error (task, no_sandbox_error (agent));
      return;
    }
  op = g_new0 (PrepareOp, 1);
  op->agent = g_object_ref (AGENTS_SANDBOX_AGENT (agent));
  op->input = input ? json_node_ref (input) : NULL;
  g_task_set_task_data (task, op, (GDestroyNotify) prepare_op_free);
  prepare_sandbox_agent (self, task, is_resumed_state);
}

/**
 * agents_sandbox_runtime_prepare_agent_finish:
 * @self: a runtime
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_runtime_prepare_agent_async().
 *
 * Returns: (transfer full): what was prepared
 */
AgentsSandboxPreparedAgent *
agents_sandbox_runtime_prepare_agent_finish (AgentsSandboxRuntime *self,
                                             GAsyncResult *result,
                                             GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- cleanup ----------------------------------------------------------- */

static void
sessions_cleaned (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  AgentsSandboxRuntime *self = g_task_get_source_object (task);
  AgentsSpan *span = g_task_get_task_data (task);
  GError *error = NULL;
  JsonObject *payload = agents_sandbox_session_manager_cleanup_finish (
    AGENTS_SANDBOX_SESSION_MANAGER (source), result, &error);

  /* The execution agents and their bound capabilities die with the
   * sessions. */
  g_hash_table_remove_all (self->cache);
  set_current (self, NULL, NULL);
  if (span != NULL)
    agents_span_end (span, error);
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, payload, (GDestroyNotify) json_object_unref);
}

/**
 * agents_sandbox_runtime_cleanup_async:
 * @self: a runtime
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the run state's payload
 * @user_data: data for @callback
 *
 * Ends the run's use of its sandboxes: see
 * agents_sandbox_session_manager_cleanup_async(). The execution agents
 * are dropped.
 */
void
agents_sandbox_runtime_cleanup_async (AgentsSandboxRuntime *self,
                                      GCancellable *cancellable,
                                      GAsyncReadyCallback callback,
                                      gpointer user_data)
{
  g_autoptr (GTask) task = NULL;
  AgentsSpan *span;

  g_return_if_fail (AGENTS_IS_SANDBOX_RUNTIME (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_sandbox_runtime_cleanup_async);
  if (self->manager == NULL)
    {
      g_task_return_pointer (task, NULL, NULL);
      return;
    }
  span = agents_sandbox_span_start (self->trace, self->parent_span,
                                    "sandbox.cleanup", NULL);
  g_task_set_task_data (task, span, span ? g_object_unref : NULL);
  nest_manager_spans (self, span);
  agents_sandbox_session_manager_cleanup_async (
    self->manager, cancellable, sessions_cleaned, g_object_ref (task));
}

/**
 * agents_sandbox_runtime_cleanup_finish:
 * @self: a runtime
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_runtime_cleanup_async().
 *
 * Returns: (transfer full) (nullable): the run state's `sandbox` payload,
 *   or %NULL (with @error unset when there is none)
 */
JsonObject *
agents_sandbox_runtime_cleanup_finish (AgentsSandboxRuntime *self,
                                       GAsyncResult *result,
                                       GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- The runner's preparation seam ------------------------------------- */

static AgentsSandboxRuntime *
preparation_runtime (AgentsRunPreparation *preparation)
{
  AgentsSandboxRuntime *runtime = agents_run_preparation_get_data (preparation);

  if (runtime == NULL)
    {
      runtime = agents_sandbox_runtime_new (
        agents_run_preparation_get_starting_agent (preparation),
        agents_run_preparation_get_run_config (preparation),
        agents_run_preparation_get_resume_state (preparation));
      agents_run_preparation_set_data (preparation, runtime, g_object_unref);
    }
  /* The current agent's span: the parent of this turn's spans. */
  agents_sandbox_runtime_set_trace (
    runtime, agents_run_preparation_get_trace (preparation),
    agents_run_preparation_get_span (preparation));
  return runtime;
}

static void
seam_prepared (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  AgentsRunResult *run_result = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr (AgentsSandboxPreparedAgent) prepared =
    agents_sandbox_runtime_prepare_agent_finish (
      AGENTS_SANDBOX_RUNTIME (source), result, &error);
  JsonNode *input;

  if (prepared == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  if (prepared->session != NULL && run_result != NULL)
    agents_run_private_result_set_sandbox_session (
      run_result, G_OBJECT (prepared->session));
  input = prepared->input;
  agents_run_preparer_return_prepared (task, prepared->execution_agent,
                                       input && JSON_NODE_HOLDS_ARRAY (input)
                                         ? json_node_get_array (input)
                                         : NULL);
}

static void
seam_prepare_agent (AgentsRunPreparer *preparer,
                    AgentsRunPreparation *preparation,
                    AgentsAgent *public_agent,
                    JsonArray *input,
                    gboolean is_resumed,
                    GTask *task)
{
  AgentsSandboxRuntime *runtime = preparation_runtime (preparation);
  AgentsRunResult *run_result = agents_run_preparation_get_result (preparation);
  g_autoptr (JsonNode) node = NULL;

  if (input != NULL)
    node = json_node_init_array (json_node_alloc (), input);
  if (run_result != NULL)
    g_task_set_task_data (task, g_object_ref (run_result), g_object_unref);
  agents_sandbox_runtime_prepare_agent_async (
    runtime, public_agent, node,
    agents_run_preparation_get_context (preparation), is_resumed,
    g_task_get_cancellable (task), seam_prepared, g_object_ref (task));
}

static void
seam_cleaned (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  AgentsRunResult *run_result = g_task_get_task_data (task);
  GError *error = NULL;
  JsonObject *payload = agents_sandbox_runtime_cleanup_finish (
    AGENTS_SANDBOX_RUNTIME (source), result, &error);

  /* The sessions are closed: results do not keep them, whatever
   * happened. */
  if (run_result != NULL)
    agents_run_private_result_set_sandbox_session (run_result, NULL);
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, payload, (GDestroyNotify) json_object_unref);
}

/* Memory (agents-memory-capability.c): the run is recorded, and the
 * session gets a pre-stop hook that turns its rollout into memory when
 * it is closed: below by the session manager for a session the runner
 * owns, by its owner's agents_sandbox_session_close_async() otherwise.
 * Failures are logged, never returned. */
static AgentsModel *
memory_model (AgentsSandboxRuntime *self, AgentsMemoryCapability *memory)
{
  AgentsModel *model = agents_memory_capability_get_model (memory);

  if (model == NULL)
    model = agents_run_config_get_model (self->run_config);
  if (model == NULL && self->current_agent != NULL)
    model = agents_agent_get_model (self->current_agent);
  return model;
}

static void
memory_recorded (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  AgentsSandboxRuntime *self = g_task_get_source_object (task);
  AgentsMemoryCapability *memory = AGENTS_MEMORY_CAPABILITY (source);
  g_autoptr (GError) error = NULL;

  if (!agents_memory_capability_record_run_finish (memory, result, &error))
    g_warning ("memory: cannot record the run: %s", error->message);
  agents_memory_capability_generate_before_stop (memory,
                                                 memory_model (self, memory));
  g_task_return_boolean (task, TRUE);
}

static void
memory_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;

  agents_sandbox_runtime_cleanup_async (AGENTS_SANDBOX_RUNTIME (source), NULL,
                                        seam_cleaned, g_object_ref (task));
}

static void
seam_cleanup (AgentsRunPreparer *preparer,
              AgentsRunPreparation *preparation,
              GTask *task)
{
  AgentsSandboxRuntime *runtime = preparation_runtime (preparation);
  AgentsRunResult *run_result = agents_run_preparation_get_result (preparation);
  GTask *memory_task;

  if (run_result != NULL)
    g_task_set_task_data (task, g_object_ref (run_result), g_object_unref);
  if (runtime->memory == NULL || run_result == NULL)
    {
      agents_sandbox_runtime_cleanup_async (runtime, NULL, seam_cleaned,
                                            g_object_ref (task));
      return;
    }
  memory_task = g_task_new (runtime, NULL, memory_done, g_object_ref (task));
  agents_memory_capability_record_run_async (
    AGENTS_MEMORY_CAPABILITY (runtime->memory), run_result, NULL,
    memory_recorded, memory_task);
}

void
agents_sandbox_runtime_preparer_iface_init (AgentsRunPreparerInterface *iface)
{
  iface->prepare_agent = seam_prepare_agent;
  iface->cleanup = seam_cleanup;
}
