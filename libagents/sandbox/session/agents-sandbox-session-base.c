/* agents-sandbox-session-base.c - a base class for sandbox sessions
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-sandbox-error-private.h"
#include "agents-sandbox-session-base.h"
#include "agents-sandbox-session-generic-private.h"
#include "agents-sandbox-session-private.h"

/**
 * AgentsSandboxSessionBase:
 *
 * A base class for sandbox sessions, in the way #GInputStream is one
 * for streams: it implements #AgentsSandboxSession and owns what every
 * backend would otherwise write again, so that a backend is its
 * primitives only.
 *
 * The base holds the per-session data (the state, the concurrency and
 * archive limits, what survived since the session last ran), the start
 * sequence (the backend's @start_backend, then the generic preparation
 * of the workspace: hydrated from the snapshot or materialized from the
 * manifest), the lifecycle flag read by
 * agents_sandbox_session_base_is_started(), and the timeout of commands
 * with its %AGENTS_SANDBOX_ERROR_EXEC_TIMEOUT error (context `command`,
 * `command_str`, `timeout`).
 *
 * A subclass implements the class's @start_backend, @shutdown_backend
 * and @exec_raw, and the #AgentsSandboxSessionInterface primitives
 * @read, @write, @running, @persist_workspace and @hydrate_workspace; it
 * may still override any generic operation of the interface. Python and
 * JavaScript backends derive from it the same way (`do_exec_raw`,
 * `do_start_backend`, `do_read` …); a Python class that overrides
 * vfuncs of the interface lists the interface among its bases
 * (`class S(Agents.SandboxSessionBase, Agents.SandboxSession)`), so that
 * it gets an interface vtable of its own instead of writing into the one
 * it would share with this class.
 */

typedef struct
{
  AgentsSandboxSessionData data;
  gboolean started;
} AgentsSandboxSessionBasePrivate;

static void session_iface_init (AgentsSandboxSessionInterface *iface);

G_DEFINE_ABSTRACT_TYPE_WITH_CODE (
  AgentsSandboxSessionBase,
  agents_sandbox_session_base,
  G_TYPE_OBJECT,
  G_ADD_PRIVATE (AgentsSandboxSessionBase)
    G_IMPLEMENT_INTERFACE (AGENTS_TYPE_SANDBOX_SESSION, session_iface_init))

enum
{
  PROP_0,
  PROP_STATE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

#define PRIV(self)                     \
  ((AgentsSandboxSessionBasePrivate *) \
     agents_sandbox_session_base_get_instance_private (self))

AgentsSandboxSessionData *
agents_sandbox_session_base_get_data (AgentsSandboxSessionBase *self)
{
  return &PRIV (self)->data;
}

static void
base_get_property (GObject *object,
                   guint prop_id,
                   GValue *value,
                   GParamSpec *pspec)
{
  AgentsSandboxSessionBase *self = AGENTS_SANDBOX_SESSION_BASE (object);

  switch (prop_id)
    {
    case PROP_STATE:
      g_value_set_object (value, PRIV (self)->data.state);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
base_set_property (GObject *object,
                   guint prop_id,
                   const GValue *value,
                   GParamSpec *pspec)
{
  AgentsSandboxSessionBase *self = AGENTS_SANDBOX_SESSION_BASE (object);

  switch (prop_id)
    {
    case PROP_STATE:
      if (g_set_object (&PRIV (self)->data.state, g_value_get_object (value)))
        g_object_notify_by_pspec (object, pspec);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
base_finalize (GObject *object)
{
  AgentsSandboxSessionBase *self = AGENTS_SANDBOX_SESSION_BASE (object);

  agents_sandbox_session_data_clear (&PRIV (self)->data);

  G_OBJECT_CLASS (agents_sandbox_session_base_parent_class)->finalize (object);
}

static void
default_succeed (AgentsSandboxSessionBase *self, GTask *task)
{
  g_task_return_boolean (task, TRUE);
}

/**
 * AgentsSandboxSessionBaseClass::exec_raw:
 * @self: a session
 * @argv: (array zero-terminated=1): the argv, run as is
 * @timeout: the command's timeout in seconds, 0 or less for none; the
 *   base enforces it by cancelling the task's cancellable
 * @task: the task to complete with an #AgentsExecResult
 *
 * Runs @argv in the sandbox (the exec primitive). A cancelled command
 * is killed and the task completes with %G_IO_ERROR_CANCELLED, which the
 * base reports as a timeout when the timeout expired.
 */

/**
 * AgentsSandboxSessionBaseClass::start_backend:
 * @self: a session
 * @task: the task to complete with a boolean
 *
 * Brings the backend up; the base prepares the workspace after it.
 */

/**
 * AgentsSandboxSessionBaseClass::shutdown_backend:
 * @self: a session
 * @task: the task to complete with a boolean
 *
 * Tears the backend down.
 */

static void
default_exec_raw (AgentsSandboxSessionBase *self,
                  const char *const *argv,
                  double timeout,
                  GTask *task)
{
  /* The interface's default: "not supported". */
  AgentsSandboxSessionInterface *dflt =
    g_type_default_interface_peek (AGENTS_TYPE_SANDBOX_SESSION);

  dflt->exec (AGENTS_SANDBOX_SESSION (self), argv, timeout, task);
}

static void
agents_sandbox_session_base_class_init (AgentsSandboxSessionBaseClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = base_get_property;
  object_class->set_property = base_set_property;
  object_class->finalize = base_finalize;

  klass->start_backend = default_succeed;
  klass->shutdown_backend = default_succeed;
  klass->exec_raw = default_exec_raw;

  /**
   * AgentsSandboxSessionBase:state:
   *
   * The session's state: its id, manifest and snapshot; the same as
   * agents_sandbox_session_get_state() and
   * agents_sandbox_session_set_state().
   */
  properties[PROP_STATE] = g_param_spec_object (
    "state", NULL, NULL, AGENTS_TYPE_SANDBOX_SESSION_STATE,
    G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
agents_sandbox_session_base_init (AgentsSandboxSessionBase *self)
{
  agents_sandbox_session_data_init (&PRIV (self)->data);
}

/**
 * agents_sandbox_session_base_is_started:
 * @self: a session
 *
 * Whether the session started: %TRUE from the end of a successful start
 * (the backend up and the workspace prepared) until the next shutdown.
 *
 * Returns: whether the session is started
 */
gboolean
agents_sandbox_session_base_is_started (AgentsSandboxSessionBase *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION_BASE (self), FALSE);

  return PRIV (self)->started;
}

/**
 * agents_sandbox_session_base_is_restoring_snapshot:
 * @self: a session
 *
 * Whether the session's start is restoring its snapshot: %TRUE from the
 * moment the start clears the workspace for the restore until the
 * snapshot is hydrated. A backend's
 * #AgentsSandboxSessionInterface.hydrate_workspace can tell the restore
 * of its own snapshot (whose links come back as they were) from an
 * archive handed to agents_sandbox_session_hydrate_workspace_async().
 *
 * Returns: whether a snapshot restore is in progress
 */
gboolean
agents_sandbox_session_base_is_restoring_snapshot (
  AgentsSandboxSessionBase *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION_BASE (self), FALSE);

  return agents_sandbox_session_get_restore_pending (
    AGENTS_SANDBOX_SESSION (self));
}

#define CLASS(self) AGENTS_SANDBOX_SESSION_BASE_GET_CLASS (self)

/* ---- start and shutdown ----------------------------------------------- */

static void
start_prepared (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  AgentsSandboxSessionBase *self = AGENTS_SANDBOX_SESSION_BASE (source);
  GError *error = NULL;

  if (!agents_sandbox_session_prepare_workspace_finish (
        AGENTS_SANDBOX_SESSION (self), result, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  PRIV (self)->started = TRUE;
  g_task_return_boolean (task, TRUE);
}

static void
start_backend_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      g_task_return_error (task, error);
      return;
    }
  agents_sandbox_session_prepare_workspace_async (
    AGENTS_SANDBOX_SESSION (source), g_task_get_cancellable (task),
    start_prepared, g_object_ref (task));
}

/* The template: the backend comes up, then the generic preparation. */
static void
base_start (AgentsSandboxSession *session, GTask *task)
{
  AgentsSandboxSessionBase *self = AGENTS_SANDBOX_SESSION_BASE (session);
  g_autoptr (GTask) backend = NULL;

  backend = g_task_new (self, g_task_get_cancellable (task), start_backend_done,
                        g_object_ref (task));
  g_task_set_source_tag (backend, base_start);
  CLASS (self)->start_backend (self, backend);
}

static void
base_shutdown (AgentsSandboxSession *session, GTask *task)
{
  AgentsSandboxSessionBase *self = AGENTS_SANDBOX_SESSION_BASE (session);

  PRIV (self)->started = FALSE;
  CLASS (self)->shutdown_backend (self, task);
}

/* ---- exec with a timeout ---------------------------------------------- */

typedef struct
{
  GTask *task; /* the caller's */
  char **argv;
  double timeout;
  GCancellable *cancel; /* the primitive's: the caller's or the timer's */
  GCancellable *caller;
  gulong cancel_handler;
  GSource *timer;
  gboolean timed_out;
} ExecCall;

static void
exec_call_free (ExecCall *call)
{
  if (call->timer != NULL)
    {
      g_source_destroy (call->timer);
      g_source_unref (call->timer);
    }
  if (call->caller != NULL)
    g_cancellable_disconnect (call->caller, call->cancel_handler);
  g_clear_object (&call->caller);
  g_clear_object (&call->cancel);
  g_clear_object (&call->task);
  g_strfreev (call->argv);
  g_free (call);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ExecCall, exec_call_free)

static gboolean
exec_timer_fired (gpointer user_data)
{
  ExecCall *call = user_data;

  call->timed_out = TRUE;
  g_cancellable_cancel (call->cancel);
  return G_SOURCE_REMOVE;
}

static void
exec_caller_cancelled (GCancellable *caller, gpointer user_data)
{
  g_cancellable_cancel (G_CANCELLABLE (user_data));
}

static GError *
exec_timeout_error (ExecCall *call)
{
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  g_autofree char *command_str =
    agents_sandbox_error_argv_string ((const char *const *) call->argv);

  g_variant_builder_add (
    &ctx, "{sv}", "command",
    agents_sandbox_error_argv_variant ((const char *const *) call->argv));
  g_variant_builder_add (&ctx, "{sv}", "command_str",
                         g_variant_new_string (command_str));
  g_variant_builder_add (&ctx, "{sv}", "timeout",
                         g_variant_new_double (call->timeout));
  return agents_sandbox_error_new (
    AGENTS_SANDBOX_ERROR_EXEC_TIMEOUT, g_variant_builder_end (&ctx),
    _ ("command timed out after %g seconds: %s"), call->timeout, command_str);
}

static void
exec_raw_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (ExecCall) call = user_data;
  AgentsExecResult *exec_result;
  GError *error = NULL;

  exec_result = g_task_propagate_pointer (G_TASK (result), &error);
  if (exec_result != NULL)
    {
      g_task_return_pointer (call->task, exec_result, g_object_unref);
      return;
    }
  /* A cancellation that the caller did not ask for is the timer's. */
  if (call->timed_out &&
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) &&
      (call->caller == NULL || !g_cancellable_is_cancelled (call->caller)))
    {
      g_clear_error (&error);
      error = exec_timeout_error (call);
    }
  g_task_return_error (call->task, error);
}

static void
base_exec (AgentsSandboxSession *session,
           const char *const *argv,
           double timeout,
           GTask *task)
{
  AgentsSandboxSessionBase *self = AGENTS_SANDBOX_SESSION_BASE (session);
  GCancellable *caller = g_task_get_cancellable (task);
  ExecCall *call = g_new0 (ExecCall, 1);
  g_autoptr (GTask) primitive = NULL;

  call->task = g_object_ref (task);
  call->argv = g_strdupv ((char **) argv);
  call->timeout = timeout;
  call->cancel = g_cancellable_new ();
  if (caller != NULL)
    {
      call->caller = g_object_ref (caller);
      call->cancel_handler =
        g_cancellable_connect (caller, G_CALLBACK (exec_caller_cancelled),
                               g_object_ref (call->cancel), g_object_unref);
    }
  if (timeout > 0)
    {
      call->timer =
        g_timeout_source_new ((guint) MIN (timeout * 1000, G_MAXUINT));
      g_source_set_callback (call->timer, exec_timer_fired, call, NULL);
      g_source_attach (call->timer, g_task_get_context (task));
    }
  primitive = g_task_new (self, call->cancel, exec_raw_done, call);
  g_task_set_source_tag (primitive, base_exec);
  CLASS (self)->exec_raw (self, argv, timeout, primitive);
}

static void
session_iface_init (AgentsSandboxSessionInterface *iface)
{
  iface->start = base_start;
  iface->shutdown = base_shutdown;
  iface->exec = base_exec;
}
