/* agents-sandbox-session.c - the sandbox session contract
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "agents-archive.h"
#include "agents-mount-security-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-sandbox-process-table-private.h"
#include "agents-sandbox-session-generic-private.h"
#include "agents-sandbox-session-private.h"
#include "agents-snapshot-fingerprint-private.h"

/**
 * AgentsSandboxSession:
 *
 * A live sandbox: a workspace a backend created from a manifest, in which
 * commands run and files are read and written. Backends implement the
 * primitives of #AgentsSandboxSessionInterface; the rest of the API is
 * generic code written over them.
 *
 * Every path given to the session is checked against the workspace root
 * and the manifest's extra path grants before anything touches it.
 */

G_DEFINE_INTERFACE (AgentsSandboxSession, agents_sandbox_session, G_TYPE_OBJECT)

static GQuark session_data_quark;
static guint progress_signal;

void
agents_sandbox_session_data_init (AgentsSandboxSessionData *data)
{
  memset (data, 0, sizeof *data);
  data->concurrency.manifest_entries = 4;
  data->concurrency.local_dir_files = 4;
}

void
agents_sandbox_session_data_clear (AgentsSandboxSessionData *data)
{
  g_clear_object (&data->state);
  g_clear_object (&data->dependencies);
  g_clear_pointer (&data->archive_limits, agents_archive_limits_free);
  agents_sandbox_session_data_clear_pre_stop_hooks (data);
}

static void
session_data_free (gpointer data)
{
  agents_sandbox_session_data_clear (data);
  g_free (data);
}

/* A session derived from AgentsSandboxSessionBase holds its data; any
 * other implementation of the interface gets it as qdata. */
AgentsSandboxSessionData *
agents_sandbox_session_get_data (AgentsSandboxSession *self)
{
  AgentsSandboxSessionData *sd;

  if (AGENTS_IS_SANDBOX_SESSION_BASE (self))
    return agents_sandbox_session_base_get_data (
      AGENTS_SANDBOX_SESSION_BASE (self));
  sd = g_object_get_qdata (G_OBJECT (self), session_data_quark);
  if (sd == NULL)
    {
      sd = g_new (AgentsSandboxSessionData, 1);
      agents_sandbox_session_data_init (sd);
      g_object_set_qdata_full (G_OBJECT (self), session_data_quark, sd,
                               session_data_free);
    }
  return sd;
}

static void
return_not_supported (AgentsSandboxSession *self,
                      GTask *task,
                      const char *operation)
{
  g_task_return_error (
    task, agents_sandbox_error_new (AGENTS_SANDBOX_ERROR_NOT_SUPPORTED, NULL,
                                    _ ("%s does not support %s"),
                                    G_OBJECT_TYPE_NAME (self), operation));
}

static AgentsSandboxSessionState *
default_get_state (AgentsSandboxSession *self)
{
  AgentsSandboxSessionData *sd = agents_sandbox_session_get_data (self);

  if (sd->state == NULL)
    sd->state = agents_sandbox_session_state_new (NULL, NULL);
  return g_object_ref (sd->state);
}

static void
default_succeed (AgentsSandboxSession *self, GTask *task)
{
  g_task_return_boolean (task, TRUE);
}

static gboolean
default_validate_manifest_application (AgentsSandboxSession *self,
                                       AgentsManifest *manifest,
                                       gboolean session_running,
                                       GError **error)
{
  return agents_manifest_check_mount_credential_boundary (manifest, error);
}

/* The credential boundary holds before any snapshot or workspace work:
 * a manifest changed after start to expose unacknowledged mount
 * credentials is refused there too. */
static gboolean
check_boundary (AgentsSandboxSession *self, GTask *task)
{
  GError *error = NULL;

  if (agents_manifest_check_mount_credential_boundary (
        agents_sandbox_session_get_manifest (self), &error))
    return TRUE;
  g_task_return_error (task, error);
  return FALSE;
}

static void
default_running (AgentsSandboxSession *self, GTask *task)
{
  return_not_supported (self, task, "running");
}

static void
default_exec (AgentsSandboxSession *self,
              const char *const *argv,
              double timeout,
              GTask *task)
{
  return_not_supported (self, task, "exec");
}

static void
default_read (AgentsSandboxSession *self,
              const char *path,
              const char *user,
              GTask *task)
{
  return_not_supported (self, task, "read");
}

static void
default_write (AgentsSandboxSession *self,
               const char *path,
               GInputStream *data,
               const char *user,
               GTask *task)
{
  return_not_supported (self, task, "write");
}

static void
default_persist_workspace (AgentsSandboxSession *self, GTask *task)
{
  return_not_supported (self, task, "persist_workspace");
}

static void
default_hydrate_workspace (AgentsSandboxSession *self,
                           GInputStream *data,
                           GTask *task)
{
  return_not_supported (self, task, "hydrate_workspace");
}

static void
default_set_concurrency_limits (AgentsSandboxSession *self,
                                const AgentsConcurrencyLimits *limits)
{
  agents_sandbox_session_get_data (self)->concurrency = *limits;
}

static void
default_set_archive_limits (AgentsSandboxSession *self,
                            const AgentsArchiveLimits *limits)
{
  AgentsSandboxSessionData *sd = agents_sandbox_session_get_data (self);

  g_clear_pointer (&sd->archive_limits, agents_archive_limits_free);
  if (limits != NULL)
    sd->archive_limits = agents_archive_limits_copy (limits);
}

static void
agents_sandbox_session_default_init (AgentsSandboxSessionInterface *iface)
{
  session_data_quark =
    g_quark_from_static_string ("agents-sandbox-session-data");

  /**
   * AgentsSandboxSession::progress:
   * @self: the session
   * @operation: what is in progress, which says the unit of @done and of
   *   the total: `persist` (the workspace archived into the snapshot) and
   *   `hydrate` (the workspace filled from it) count the bytes of the
   *   workspace archive; `apply` (the manifest materialized) counts its
   *   top-level entries
   * @done: how much is done: bytes read so far, or entries materialized
   * @total: how much there is to do, or -1 when unknown (a persist does
   *   not know its archive's size before the end)
   *
   * Reports how far a long operation got: first with @done 0, then as
   * the work goes (for `apply`, after each batch of entries, see
   * #AgentsConcurrencyLimits), last with everything done (then @done
   * equals @total when that is known). The detail is @operation
   * (`progress::persist`).
   *
   * Emitted on the thread whose thread-default main context was current
   * when the operation started, never from worker threads, and only
   * while that context runs; reports are coalesced, so a handler sees a
   * monotonic but not necessarily contiguous series.
   */
  progress_signal = g_signal_new (
    "progress", G_TYPE_FROM_INTERFACE (iface),
    G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED, 0, NULL, NULL, NULL, G_TYPE_NONE, 3,
    G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE, G_TYPE_INT64, G_TYPE_INT64);

  iface->get_state = default_get_state;
  iface->start = agents_sandbox_session_real_start;
  iface->stop = agents_sandbox_session_real_stop;
  iface->shutdown = default_succeed;
  iface->running = default_running;
  iface->close_dependencies = default_succeed;
  iface->exec = default_exec;
  iface->read = default_read;
  iface->write = default_write;
  iface->persist_workspace = default_persist_workspace;
  iface->hydrate_workspace = default_hydrate_workspace;
  iface->ls = agents_sandbox_session_real_ls;
  iface->mkdir = agents_sandbox_session_real_mkdir;
  iface->rm = agents_sandbox_session_real_rm;
  iface->extract = agents_sandbox_session_real_extract;
  iface->apply_manifest = agents_sandbox_session_real_apply_manifest;
  iface->apply_entry_batch = agents_sandbox_session_real_apply_entry_batch;
  iface->validate_path_access =
    agents_sandbox_session_real_validate_path_access;
  iface->ensure_runtime_helper_installed =
    agents_sandbox_session_real_ensure_runtime_helper_installed;
  iface->clear_workspace_root_on_resume =
    agents_sandbox_session_real_clear_workspace_root_on_resume;
  iface->set_concurrency_limits = default_set_concurrency_limits;
  iface->set_archive_limits = default_set_archive_limits;
  iface->validate_manifest_application = default_validate_manifest_application;
  agents_sandbox_session_process_iface_init (iface);
}

#define IFACE(self) AGENTS_SANDBOX_SESSION_GET_IFACE (self)

static GTask *
new_task (AgentsSandboxSession *self,
          GCancellable *cancellable,
          GAsyncReadyCallback callback,
          gpointer user_data,
          gpointer source_tag)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, source_tag);
  return task;
}

static gboolean
finish_boolean (AgentsSandboxSession *self,
                GAsyncResult *result,
                GError **error)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

static gpointer
finish_pointer (AgentsSandboxSession *self,
                GAsyncResult *result,
                GError **error)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * agents_sandbox_session_get_state:
 * @self: a session
 *
 * Gets the session's state: its id, manifest and snapshot. The session
 * keeps the state; changing it changes the session's.
 *
 * Returns: (transfer full): a new reference to the state
 */
AgentsSandboxSessionState *
agents_sandbox_session_get_state (AgentsSandboxSession *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION (self), NULL);

  return IFACE (self)->get_state (self);
}

AgentsSandboxSessionState *
agents_sandbox_session_peek_state (AgentsSandboxSession *self)
{
  AgentsSandboxSessionState *state = agents_sandbox_session_get_state (self);

  /* The session keeps its state: the pointer outlives this reference. */
  g_object_unref (state);
  return state;
}

/**
 * agents_sandbox_session_set_state:
 * @self: a session
 * @state: the state
 *
 * Sets the state that the default @get_state implementation returns.
 * Implementations written in Python or JavaScript usually call this once
 * when they are constructed instead of implementing @get_state.
 */
void
agents_sandbox_session_set_state (AgentsSandboxSession *self,
                                  AgentsSandboxSessionState *state)
{
  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));
  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION_STATE (state));

  g_set_object (&agents_sandbox_session_get_data (self)->state, state);
}

/**
 * agents_sandbox_session_get_manifest:
 * @self: a session
 *
 * Gets the manifest of the session's state.
 *
 * Returns: (transfer none): the manifest
 */
AgentsManifest *
agents_sandbox_session_get_manifest (AgentsSandboxSession *self)
{
  return agents_sandbox_session_state_get_manifest (
    agents_sandbox_session_peek_state (self));
}

/**
 * agents_task_return_object:
 * @task: the task a vfunc was given
 * @object: (type GObject.Object) (transfer none): the result
 *
 * Completes @task with @object, as C implementations do with
 * `g_task_return_pointer (task, g_object_ref (object), g_object_unref)`.
 *
 * Implementations written in Python or JavaScript complete a task that
 * returns an object (an #AgentsExecResult, a #GInputStream, a session …)
 * with this function: g_task_return_value() would hand the C caller a
 * #GValue instead of the object.
 */
void
agents_task_return_object (GTask *task, gpointer object)
{
  g_return_if_fail (G_IS_TASK (task));
  g_return_if_fail (G_IS_OBJECT (object));

  g_task_return_pointer (task, g_object_ref (object), g_object_unref);
}

/**
 * agents_task_return_string:
 * @task: the task a vfunc was given
 * @string: the result
 *
 * Completes @task with a copy of @string, for the vfuncs whose task
 * returns a string; see agents_task_return_object().
 */
void
agents_task_return_string (GTask *task, const char *string)
{
  g_return_if_fail (G_IS_TASK (task));
  g_return_if_fail (string != NULL);

  g_task_return_pointer (task, g_strdup (string), g_free);
}

/* ---- lifecycle -------------------------------------------------------- */

/**
 * agents_sandbox_session_start_async:
 * @self: a session
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the session has started
 * @user_data: data for @callback
 *
 * Starts the session: the backend comes up and the workspace is
 * prepared — hydrated from the snapshot when there is one to restore,
 * otherwise materialized from the manifest.
 */
void
agents_sandbox_session_start_async (AgentsSandboxSession *self,
                                    GCancellable *cancellable,
                                    GAsyncReadyCallback callback,
                                    gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_start_async);
  IFACE (self)->start (self, task);
}

/**
 * agents_sandbox_session_start_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_start_async().
 *
 * Returns: %TRUE on success
 */
gboolean
agents_sandbox_session_start_finish (AgentsSandboxSession *self,
                                     GAsyncResult *result,
                                     GError **error)
{
  return finish_boolean (self, result, error);
}

/**
 * agents_sandbox_session_stop_async:
 * @self: a session
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the session has stopped
 * @user_data: data for @callback
 *
 * Stops the session. Processes still running in the session's process
 * table are killed first. By default this persists the workspace into
 * the state's snapshot. A manifest whose mounts expose credentials that
 * trusted code did not acknowledge
 * (agents_manifest_acknowledge_mount_credential_exposure()) is refused
 * first, with %AGENTS_SANDBOX_ERROR_MOUNT_CONFIG, as it is by
 * agents_sandbox_session_persist_workspace_async() and
 * agents_sandbox_session_hydrate_workspace_async().
 */
void
agents_sandbox_session_stop_async (AgentsSandboxSession *self,
                                   GCancellable *cancellable,
                                   GAsyncReadyCallback callback,
                                   gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_stop_async);
  if (!check_boundary (self, task))
    return;
  agents_sandbox_session_pty_terminate_all (self);
  IFACE (self)->stop (self, task);
}

/**
 * agents_sandbox_session_stop_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_stop_async().
 *
 * Returns: %TRUE on success
 */
gboolean
agents_sandbox_session_stop_finish (AgentsSandboxSession *self,
                                    GAsyncResult *result,
                                    GError **error)
{
  return finish_boolean (self, result, error);
}

/**
 * agents_sandbox_session_shutdown_async:
 * @self: a session
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the backend is torn down
 * @user_data: data for @callback
 *
 * Tears the session's backend down (kills what still runs, stops a
 * container, …).
 */
void
agents_sandbox_session_shutdown_async (AgentsSandboxSession *self,
                                       GCancellable *cancellable,
                                       GAsyncReadyCallback callback,
                                       gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_shutdown_async);
  agents_sandbox_session_pty_terminate_all (self);
  agents_snapshot_fingerprint_cache_forget (self);
  IFACE (self)->shutdown (self, task);
}

/**
 * agents_sandbox_session_shutdown_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_shutdown_async().
 *
 * Returns: %TRUE on success
 */
gboolean
agents_sandbox_session_shutdown_finish (AgentsSandboxSession *self,
                                        GAsyncResult *result,
                                        GError **error)
{
  return finish_boolean (self, result, error);
}

/**
 * agents_sandbox_session_running_async:
 * @self: a session
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the answer
 * @user_data: data for @callback
 *
 * Asks the backend whether the session is running.
 */
void
agents_sandbox_session_running_async (AgentsSandboxSession *self,
                                      GCancellable *cancellable,
                                      GAsyncReadyCallback callback,
                                      gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_running_async);
  IFACE (self)->running (self, task);
}

/**
 * agents_sandbox_session_running_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_running_async(). %FALSE with @error
 * unset means "not running".
 *
 * Returns: whether the session is running
 */
gboolean
agents_sandbox_session_running_finish (AgentsSandboxSession *self,
                                       GAsyncResult *result,
                                       GError **error)
{
  return finish_boolean (self, result, error);
}

/**
 * agents_sandbox_session_close_dependencies_async:
 * @self: a session
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: data for @callback
 *
 * Releases what the session holds besides its backend (connections,
 * helper processes, …).
 */
void
agents_sandbox_session_close_dependencies_async (AgentsSandboxSession *self,
                                                 GCancellable *cancellable,
                                                 GAsyncReadyCallback callback,
                                                 gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_close_dependencies_async);
  IFACE (self)->close_dependencies (self, task);
}

/**
 * agents_sandbox_session_close_dependencies_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_close_dependencies_async().
 *
 * Returns: %TRUE on success
 */
gboolean
agents_sandbox_session_close_dependencies_finish (AgentsSandboxSession *self,
                                                  GAsyncResult *result,
                                                  GError **error)
{
  return finish_boolean (self, result, error);
}

/**
 * agents_sandbox_session_validate_manifest_application:
 * @self: a session
 * @manifest: (nullable): the manifest about to be materialized, or %NULL
 *   for the session's own
 * @session_running: whether it goes into a running session (as a delta of
 *   new and changed entries) rather than at start
 * @error: return location for a #GError
 *
 * Asks the backend whether it accepts @manifest before anything of it is
 * materialized: the session manager calls it before it applies the
 * capabilities' changes to a running injected session, so that a refused
 * update leaves the session and its manifest as they were.
 *
 * Returns: %TRUE when the backend accepts @manifest
 */
gboolean
agents_sandbox_session_validate_manifest_application (
  AgentsSandboxSession *self,
  AgentsManifest *manifest,
  gboolean session_running,
  GError **error)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION (self), FALSE);
  g_return_val_if_fail (manifest == NULL || AGENTS_IS_MANIFEST (manifest),
                        FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (manifest == NULL)
    manifest = agents_sandbox_session_get_manifest (self);
  return IFACE (self)->validate_manifest_application (self, manifest,
                                                      session_running, error);
}

/* close: stop, then shutdown; dependencies are closed whatever happened. */

typedef struct
{
  GError *error; /* from stop or shutdown, returned after closing */
} CloseOp;

static void
close_op_free (CloseOp *op)
{
  g_clear_error (&op->error);
  g_free (op);
}

static void
close_dependencies_done (GObject *source,
                         GAsyncResult *result,
                         gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  CloseOp *op = g_task_get_task_data (task);
  g_autoptr (GError) error = NULL;

  agents_sandbox_session_close_dependencies_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  if (op->error != NULL)
    g_task_return_error (task, g_steal_pointer (&op->error));
  else if (error != NULL)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_boolean (task, TRUE);
}

static void
close_finally (GTask *task, GError *error)
{
  AgentsSandboxSession *self = g_task_get_source_object (task);
  CloseOp *op = g_task_get_task_data (task);

  op->error = error;
  agents_sandbox_session_close_dependencies_async (
    self, NULL, close_dependencies_done, task);
}

static void
close_shutdown_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  CloseOp *op = g_task_get_task_data (task);
  GError *error = NULL;

  agents_sandbox_session_shutdown_finish (AGENTS_SANDBOX_SESSION (source),
                                          result, &error);
  /* A failed pre-stop hook is the error the caller gets. */
  if (op->error != NULL)
    {
      if (error != NULL)
        g_debug ("Shutting a session down failed: %s", error->message);
      g_clear_error (&error);
      error = g_steal_pointer (&op->error);
    }
  close_finally (task, error);
}

static void
close_stop_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  GError *error = NULL;

  if (!agents_sandbox_session_stop_finish (AGENTS_SANDBOX_SESSION (source),
                                           result, &error))
    {
      close_finally (task, error);
      return;
    }
  agents_sandbox_session_shutdown_async (AGENTS_SANDBOX_SESSION (source),
                                         g_task_get_cancellable (task),
                                         close_shutdown_done, task);
}

static void
close_hooks_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  AgentsSandboxSession *self = AGENTS_SANDBOX_SESSION (source);
  CloseOp *op = g_task_get_task_data (task);
  GError *error = NULL;

  if (!agents_sandbox_session_run_pre_stop_hooks_finish (self, result, &error))
    {
      /* Nothing is persisted after a failed hook, but the session is
       * still torn down. */
      op->error = error;
      agents_sandbox_session_shutdown_async (self, NULL, close_shutdown_done,
                                             task);
      return;
    }
  agents_sandbox_session_stop_async (self, g_task_get_cancellable (task),
                                     close_stop_done, task);
}

/**
 * agents_sandbox_session_close_async:
 * @self: a session
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the session is closed
 * @user_data: data for @callback
 *
 * Closes the session the way its owner should when done with it: the
 * pre-stop hooks (agents_sandbox_session_add_pre_stop_hook()), stop
 * (which persists), then shutdown; the session's dependencies are closed
 * in any case. When a pre-stop hook fails (or is cancelled), stop is
 * skipped but shutdown still runs, and the hook's error is returned; when
 * stopping fails, shutdown is skipped and the stop error is returned.
 */
void
agents_sandbox_session_close_async (AgentsSandboxSession *self,
                                    GCancellable *cancellable,
                                    GAsyncReadyCallback callback,
                                    gpointer user_data)
{
  GTask *task;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_close_async);
  g_task_set_task_data (task, g_new0 (CloseOp, 1),
                        (GDestroyNotify) close_op_free);
  agents_sandbox_session_run_pre_stop_hooks_async (self, cancellable,
                                                   close_hooks_done, task);
}

/**
 * agents_sandbox_session_close_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_close_async().
 *
 * Returns: %TRUE on success
 */
gboolean
agents_sandbox_session_close_finish (AgentsSandboxSession *self,
                                     GAsyncResult *result,
                                     GError **error)
{
  return finish_boolean (self, result, error);
}

/* ---- exec ------------------------------------------------------------- */

/**
 * agents_sandbox_session_build_command:
 * @self: a session
 * @command: (array zero-terminated=1): the command
 * @shell: whether to run @command through `sh -c`
 * @user: (nullable): the user to run as
 *
 * Builds the argv agents_sandbox_session_exec_async() runs: with @shell,
 * the words of @command joined by spaces become the script of `sh -c`;
 * with @user, the command is run through `sudo -n -u USER --`.
 *
 * Returns: (transfer full) (array zero-terminated=1): the argv
 */
char **
agents_sandbox_session_build_command (AgentsSandboxSession *self,
                                      const char *const *command,
                                      gboolean shell,
                                      const char *user)
{
  GStrvBuilder *builder = g_strv_builder_new ();
  char **argv;

  if (user != NULL && *user != '\0')
    {
      g_strv_builder_add_many (builder, "sudo", "-n", "-u", user, "--", NULL);
    }
  if (shell)
    {
      g_autofree char *script = g_strjoinv (" ", (char **) command);

      g_strv_builder_add_many (builder, "sh", "-c", script, NULL);
    }
  else
    g_strv_builder_addv (builder, (const char **) command);

  argv = g_strv_builder_end (builder);
  g_strv_builder_unref (builder);
  return argv;
}

/**
 * agents_sandbox_session_exec_async:
 * @self: a session
 * @command: (array zero-terminated=1): the command
 * @timeout: seconds before the command is killed; 0 or less for none
 * @shell: whether to run @command through `sh -c`
 * @user: (nullable): the user to run as
 * @cancellable: (nullable): a #GCancellable; cancelling kills the command
 * @callback: (scope async): called with the result
 * @user_data: data for @callback
 *
 * Runs a command in the sandbox, with the workspace root as working
 * directory. A non-zero exit status is not an error: inspect the
 * #AgentsExecResult. A timeout is an %AGENTS_SANDBOX_ERROR_EXEC_TIMEOUT
 * error, a failure to run the command an
 * %AGENTS_SANDBOX_ERROR_EXEC_TRANSPORT one.
 */
void
agents_sandbox_session_exec_async (AgentsSandboxSession *self,
                                   const char *const *command,
                                   double timeout,
                                   gboolean shell,
                                   const char *user,
                                   GCancellable *cancellable,
                                   GAsyncReadyCallback callback,
                                   gpointer user_data)
{
  g_autoptr (GTask) task = NULL;
  g_auto (GStrv) argv = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));
  g_return_if_fail (command != NULL && command[0] != NULL);

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_exec_async);
  argv = agents_sandbox_session_build_command (self, command, shell, user);
  IFACE (self)->exec (self, (const char *const *) argv, timeout, task);
}

/**
 * agents_sandbox_session_exec_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_exec_async().
 *
 * Returns: (transfer full): the command's result
 */
AgentsExecResult *
agents_sandbox_session_exec_finish (AgentsSandboxSession *self,
                                    GAsyncResult *result,
                                    GError **error)
{
  return finish_pointer (self, result, error);
}

/**
 * AgentsSandboxSessionInterface::exec:
 * @self: a session
 * @argv: (array zero-terminated=1): the argv, run as is
 * @timeout: seconds before the command is killed; 0 or less for none
 * @task: the task to complete with an #AgentsExecResult
 *
 * Runs @argv in the sandbox (the exec primitive).
 */

/**
 * agents_sandbox_session_exec_raw_async:
 * @self: a session
 * @argv: (array zero-terminated=1): the argv, run as is
 * @timeout: seconds before the command is killed; 0 or less for none
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the result
 * @user_data: data for @callback
 *
 * Runs @argv through the backend's exec primitive, without shell
 * wrapping or user switching.
 */
void
agents_sandbox_session_exec_raw_async (AgentsSandboxSession *self,
                                       const char *const *argv,
                                       double timeout,
                                       GCancellable *cancellable,
                                       GAsyncReadyCallback callback,
                                       gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));
  g_return_if_fail (argv != NULL && argv[0] != NULL);

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_exec_raw_async);
  IFACE (self)->exec (self, argv, timeout, task);
}

/**
 * agents_sandbox_session_exec_raw_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_exec_raw_async().
 *
 * Returns: (transfer full): the command's result
 */
AgentsExecResult *
agents_sandbox_session_exec_raw_finish (AgentsSandboxSession *self,
                                        GAsyncResult *result,
                                        GError **error)
{
  return finish_pointer (self, result, error);
}

static void
exec_checked_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsExecResult) exec_result =
    agents_sandbox_session_exec_raw_finish (AGENTS_SANDBOX_SESSION (source),
                                            result, &error);
  const char *const *argv = g_task_get_task_data (task);

  if (exec_result == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (!agents_exec_result_ok (exec_result))
    {
      agents_sandbox_error_set_exec_nonzero (
        &error, argv, agents_exec_result_get_exit_code (exec_result),
        agents_exec_result_get_stdout (exec_result),
        agents_exec_result_get_stderr (exec_result));
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  g_task_return_pointer (task, g_steal_pointer (&exec_result), g_object_unref);
}

void
agents_sandbox_session_exec_checked_async (AgentsSandboxSession *self,
                                           const char *const *argv,
                                           GCancellable *cancellable,
                                           GAsyncReadyCallback callback,
                                           gpointer user_data)
{
  GTask *task = new_task (self, cancellable, callback, user_data,
                          agents_sandbox_session_exec_checked_async);

  g_task_set_task_data (task, g_strdupv ((char **) argv),
                        (GDestroyNotify) g_strfreev);
  agents_sandbox_session_exec_raw_async (self, argv, 0, cancellable,
                                         exec_checked_done, task);
}

AgentsExecResult *
agents_sandbox_session_exec_checked_finish (AgentsSandboxSession *self,
                                            GAsyncResult *result,
                                            GError **error)
{
  return finish_pointer (self, result, error);
}

/* ---- files ------------------------------------------------------------ */

/**
 * agents_sandbox_session_read_async:
 * @self: a session
 * @path: a path in the workspace (relative to the root, or absolute)
 * @user: (nullable): the user to read as
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the stream
 * @user_data: data for @callback
 *
 * Opens a file of the workspace for reading.
 */
void
agents_sandbox_session_read_async (AgentsSandboxSession *self,
                                   const char *path,
                                   const char *user,
                                   GCancellable *cancellable,
                                   GAsyncReadyCallback callback,
                                   gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));
  g_return_if_fail (path != NULL);

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_read_async);
  IFACE (self)->read (self, path, user, task);
}

/**
 * agents_sandbox_session_read_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_read_async().
 *
 * Returns: (transfer full): a stream of the file's content
 */
GInputStream *
agents_sandbox_session_read_finish (AgentsSandboxSession *self,
                                    GAsyncResult *result,
                                    GError **error)
{
  return finish_pointer (self, result, error);
}

static void
read_bytes_splice_done (GObject *source,
                        GAsyncResult *result,
                        gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GMemoryOutputStream *out = G_MEMORY_OUTPUT_STREAM (source);
  GError *error = NULL;

  if (g_output_stream_splice_finish (G_OUTPUT_STREAM (out), result, &error) < 0)
    {
      g_task_return_error (task, error);
      return;
    }
  g_task_return_pointer (task, g_memory_output_stream_steal_as_bytes (out),
                         (GDestroyNotify) g_bytes_unref);
}

static void
read_bytes_open_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  GError *error = NULL;
  g_autoptr (GInputStream) in = NULL;
  g_autoptr (GOutputStream) out = NULL;

  in = agents_sandbox_session_read_finish (AGENTS_SANDBOX_SESSION (source),
                                           result, &error);
  if (in == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  out = g_memory_output_stream_new_resizable ();
  g_output_stream_splice_async (
    out, in,
    G_OUTPUT_STREAM_SPLICE_CLOSE_SOURCE | G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET,
    G_PRIORITY_DEFAULT, g_task_get_cancellable (task), read_bytes_splice_done,
    task);
}

/**
 * agents_sandbox_session_read_bytes_async:
 * @self: a session
 * @path: a path in the workspace
 * @user: (nullable): the user to read as
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the content
 * @user_data: data for @callback
 *
 * Reads a whole file of the workspace into memory. Prefer
 * agents_sandbox_session_read_async() for large files.
 */
void
agents_sandbox_session_read_bytes_async (AgentsSandboxSession *self,
                                         const char *path,
                                         const char *user,
                                         GCancellable *cancellable,
                                         GAsyncReadyCallback callback,
                                         gpointer user_data)
{
  GTask *task;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_read_bytes_async);
  agents_sandbox_session_read_async (self, path, user, cancellable,
                                     read_bytes_open_done, task);
}

/**
 * agents_sandbox_session_read_bytes_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_read_bytes_async().
 *
 * Returns: (transfer full): the file's content
 */
GBytes *
agents_sandbox_session_read_bytes_finish (AgentsSandboxSession *self,
                                          GAsyncResult *result,
                                          GError **error)
{
  return finish_pointer (self, result, error);
}

/**
 * agents_sandbox_session_write_async:
 * @self: a session
 * @path: a path in the workspace
 * @data: the content, read to its end
 * @user: (nullable): the user to write as
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when written
 * @user_data: data for @callback
 *
 * Writes a file of the workspace, creating missing parent directories.
 */
void
agents_sandbox_session_write_async (AgentsSandboxSession *self,
                                    const char *path,
                                    GInputStream *data,
                                    const char *user,
                                    GCancellable *cancellable,
                                    GAsyncReadyCallback callback,
                                    gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));
  g_return_if_fail (path != NULL);
  g_return_if_fail (G_IS_INPUT_STREAM (data));

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_write_async);
  IFACE (self)->write (self, path, data, user, task);
}

/**
 * agents_sandbox_session_write_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_write_async().
 *
 * Returns: %TRUE on success
 */
gboolean
agents_sandbox_session_write_finish (AgentsSandboxSession *self,
                                     GAsyncResult *result,
                                     GError **error)
{
  return finish_boolean (self, result, error);
}

static void
write_bytes_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;

  if (!agents_sandbox_session_write_finish (AGENTS_SANDBOX_SESSION (source),
                                            result, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

/**
 * agents_sandbox_session_write_bytes_async:
 * @self: a session
 * @path: a path in the workspace
 * @data: the content
 * @user: (nullable): the user to write as
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when written
 * @user_data: data for @callback
 *
 * Writes a file of the workspace from memory.
 */
void
agents_sandbox_session_write_bytes_async (AgentsSandboxSession *self,
                                          const char *path,
                                          GBytes *data,
                                          const char *user,
                                          GCancellable *cancellable,
                                          GAsyncReadyCallback callback,
                                          gpointer user_data)
{
  GTask *task;
  g_autoptr (GInputStream) stream = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));
  g_return_if_fail (data != NULL);

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_write_bytes_async);
  stream = g_memory_input_stream_new_from_bytes (data);
  agents_sandbox_session_write_async (self, path, stream, user, cancellable,
                                      write_bytes_done, task);
}

/**
 * agents_sandbox_session_write_bytes_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_write_bytes_async().
 *
 * Returns: %TRUE on success
 */
gboolean
agents_sandbox_session_write_bytes_finish (AgentsSandboxSession *self,
                                           GAsyncResult *result,
                                           GError **error)
{
  return finish_boolean (self, result, error);
}

/**
 * agents_sandbox_session_persist_workspace_async:
 * @self: a session
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the archive stream
 * @user_data: data for @callback
 *
 * Archives the workspace (without its mounts) as a tar stream.
 */
void
agents_sandbox_session_persist_workspace_async (AgentsSandboxSession *self,
                                                GCancellable *cancellable,
                                                GAsyncReadyCallback callback,
                                                gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_persist_workspace_async);
  if (check_boundary (self, task))
    IFACE (self)->persist_workspace (self, task);
}

/**
 * agents_sandbox_session_persist_workspace_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_persist_workspace_async().
 *
 * Returns: (transfer full): the tar stream
 */
GInputStream *
agents_sandbox_session_persist_workspace_finish (AgentsSandboxSession *self,
                                                 GAsyncResult *result,
                                                 GError **error)
{
  return finish_pointer (self, result, error);
}

/**
 * agents_sandbox_session_hydrate_workspace_async:
 * @self: a session
 * @data: a tar stream made by agents_sandbox_session_persist_workspace_async()
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: data for @callback
 *
 * Fills the workspace from an archive. The archive is validated member by
 * member against the session's archive limits; nothing lands outside the
 * workspace.
 */
void
agents_sandbox_session_hydrate_workspace_async (AgentsSandboxSession *self,
                                                GInputStream *data,
                                                GCancellable *cancellable,
                                                GAsyncReadyCallback callback,
                                                gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));
  g_return_if_fail (G_IS_INPUT_STREAM (data));

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_hydrate_workspace_async);
  if (check_boundary (self, task))
    IFACE (self)->hydrate_workspace (self, data, task);
}

/**
 * agents_sandbox_session_hydrate_workspace_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_hydrate_workspace_async().
 *
 * Returns: %TRUE on success
 */
gboolean
agents_sandbox_session_hydrate_workspace_finish (AgentsSandboxSession *self,
                                                 GAsyncResult *result,
                                                 GError **error)
{
  return finish_boolean (self, result, error);
}

/* ---- generic operations ---------------------------------------------- */

/**
 * agents_sandbox_session_ls_async:
 * @self: a session
 * @path: a directory of the workspace
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the listing
 * @user_data: data for @callback
 *
 * Lists a directory of the workspace.
 */
void
agents_sandbox_session_ls_async (AgentsSandboxSession *self,
                                 const char *path,
                                 GCancellable *cancellable,
                                 GAsyncReadyCallback callback,
                                 gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));
  g_return_if_fail (path != NULL);

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_ls_async);
  IFACE (self)->ls (self, path, task);
}

/**
 * agents_sandbox_session_ls_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_ls_async().
 *
 * Returns: (transfer full): a #GListModel of #AgentsFileEntry
 */
GListModel *
agents_sandbox_session_ls_finish (AgentsSandboxSession *self,
                                  GAsyncResult *result,
                                  GError **error)
{
  return finish_pointer (self, result, error);
}

/**
 * agents_sandbox_session_mkdir_async:
 * @self: a session
 * @path: a directory to create
 * @parents: whether to create missing parents (and accept an existing
 *   directory)
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: data for @callback
 *
 * Creates a directory in the workspace.
 */
void
agents_sandbox_session_mkdir_async (AgentsSandboxSession *self,
                                    const char *path,
                                    gboolean parents,
                                    GCancellable *cancellable,
                                    GAsyncReadyCallback callback,
                                    gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));
  g_return_if_fail (path != NULL);

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_mkdir_async);
  IFACE (self)->mkdir (self, path, parents, task);
}

/**
 * agents_sandbox_session_mkdir_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_mkdir_async().
 *
 * Returns: %TRUE on success
 */
gboolean
agents_sandbox_session_mkdir_finish (AgentsSandboxSession *self,
                                     GAsyncResult *result,
                                     GError **error)
{
  return finish_boolean (self, result, error);
}

/**
 * agents_sandbox_session_rm_async:
 * @self: a session
 * @path: a path to remove
 * @recursive: whether to remove directories with their content; a
 *   recursive removal of a missing path succeeds
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: data for @callback
 *
 * Removes a path of the workspace. A non-recursive removal of a missing
 * path fails with %AGENTS_SANDBOX_ERROR_EXEC_NONZERO.
 */
void
agents_sandbox_session_rm_async (AgentsSandboxSession *self,
                                 const char *path,
                                 gboolean recursive,
                                 GCancellable *cancellable,
                                 GAsyncReadyCallback callback,
                                 gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));
  g_return_if_fail (path != NULL);

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_rm_async);
  IFACE (self)->rm (self, path, recursive, task);
}

/**
 * agents_sandbox_session_rm_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_rm_async().
 *
 * Returns: %TRUE on success
 */
gboolean
agents_sandbox_session_rm_finish (AgentsSandboxSession *self,
                                  GAsyncResult *result,
                                  GError **error)
{
  return finish_boolean (self, result, error);
}

/* Implementations see a scheme, never FROM_SUFFIX. */
static void
extract_with_scheme (AgentsSandboxSession *self,
                     const char *path,
                     GInputStream *data,
                     AgentsCompressionScheme scheme,
                     GTask *task)
{
  GError *error = NULL;

  if (scheme == AGENTS_COMPRESSION_SCHEME_FROM_SUFFIX &&
      !agents_archive_compression_scheme_for_path (path, &scheme, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  IFACE (self)->extract (self, path, data, scheme, task);
}

/**
 * agents_sandbox_session_extract_async:
 * @self: a session
 * @path: where the archive is written in the workspace; its members are
 *   extracted into the directory that contains it
 * @data: the archive
 * @scheme: the archive format; %AGENTS_COMPRESSION_SCHEME_FROM_SUFFIX
 *   for the one @path's last suffix names (any other suffix is an
 *   %AGENTS_SANDBOX_ERROR_INVALID_COMPRESSION_SCHEME error)
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: data for @callback
 *
 * Writes an archive into the workspace and extracts it beside itself.
 * Members that would land outside the workspace, link members, device
 * nodes, paths named twice, Windows drive or backslash names and archives
 * beyond the session's archive limits (the default limits when none were
 * set) are refused before anything is written, with
 * %AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE whose context names the
 * `member` and the `reason` (and for a limit, the `limit` and the
 * `actual` amount).
 */
void
agents_sandbox_session_extract_async (AgentsSandboxSession *self,
                                      const char *path,
                                      GInputStream *data,
                                      AgentsCompressionScheme scheme,
                                      GCancellable *cancellable,
                                      GAsyncReadyCallback callback,
                                      gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));
  g_return_if_fail (path != NULL);
  g_return_if_fail (G_IS_INPUT_STREAM (data));

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_extract_async);
  extract_with_scheme (self, path, data, scheme, task);
}

/**
 * agents_sandbox_session_extract_with_limits_async:
 * @self: a session
 * @path: where the archive is written in the workspace; its members are
 *   extracted into the directory that contains it
 * @data: the archive
 * @scheme: the archive format
 * @limits: (nullable): the archive limits of this call, instead of the
 *   session's; %NULL for the session's
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: data for @callback
 *
 * Like agents_sandbox_session_extract_async(), with limits for this call
 * only. Invalid limits are refused when the extract runs. Finish with
 * agents_sandbox_session_extract_finish().
 */
void
agents_sandbox_session_extract_with_limits_async (
  AgentsSandboxSession *self,
  const char *path,
  GInputStream *data,
  AgentsCompressionScheme scheme,
  const AgentsArchiveLimits *limits,
  GCancellable *cancellable,
  GAsyncReadyCallback callback,
  gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));
  g_return_if_fail (path != NULL);
  g_return_if_fail (G_IS_INPUT_STREAM (data));

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_extract_async);
  if (limits != NULL)
    g_object_set_data_full (G_OBJECT (task), AGENTS_EXTRACT_LIMITS_KEY,
                            agents_archive_limits_copy (limits),
                            (GDestroyNotify) agents_archive_limits_free);
  extract_with_scheme (self, path, data, scheme, task);
}

/**
 * agents_sandbox_session_extract_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_extract_async().
 *
 * Returns: %TRUE on success
 */
gboolean
agents_sandbox_session_extract_finish (AgentsSandboxSession *self,
                                       GAsyncResult *result,
                                       GError **error)
{
  return finish_boolean (self, result, error);
}

/**
 * agents_sandbox_session_apply_manifest_async:
 * @self: a session
 * @only_ephemeral: whether to apply only the ephemeral entries (and
 *   skip account provisioning), as on resume
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: data for @callback
 *
 * Materializes the manifest: creates the root, provisions the manifest's
 * groups and users (`groupadd NAME`, `useradd -U -M -s /usr/sbin/nologin
 * NAME`, `usermod -aG GROUP USER`), then applies the entries in batches
 * of at most the concurrency limit's `manifest_entries`.
 */
void
agents_sandbox_session_apply_manifest_async (AgentsSandboxSession *self,
                                             gboolean only_ephemeral,
                                             GCancellable *cancellable,
                                             GAsyncReadyCallback callback,
                                             gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_apply_manifest_async);
  IFACE (self)->apply_manifest (self, only_ephemeral, task);
}

/**
 * agents_sandbox_session_apply_manifest_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_apply_manifest_async().
 *
 * Returns: (transfer container) (element-type AgentsMaterializedFile): the
 *   files written
 */
GPtrArray *
agents_sandbox_session_apply_manifest_finish (AgentsSandboxSession *self,
                                              GAsyncResult *result,
                                              GError **error)
{
  return finish_pointer (self, result, error);
}

/**
 * agents_sandbox_session_apply_entry_batch_async:
 * @self: a session
 * @targets: (element-type AgentsEntryTarget): entries with absolute
 *   destinations
 * @base_dir: (nullable) (type filename): the directory local sources are
 *   relative to; the working directory when %NULL
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: data for @callback
 *
 * Materializes a batch of entries concurrently.
 */
void
agents_sandbox_session_apply_entry_batch_async (AgentsSandboxSession *self,
                                                GPtrArray *targets,
                                                const char *base_dir,
                                                GCancellable *cancellable,
                                                GAsyncReadyCallback callback,
                                                gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));
  g_return_if_fail (targets != NULL);

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_apply_entry_batch_async);
  IFACE (self)->apply_entry_batch (self, targets, base_dir, task);
}

/**
 * agents_sandbox_session_apply_entry_batch_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_apply_entry_batch_async().
 *
 * Returns: (transfer container) (element-type AgentsMaterializedFile): the
 *   files written
 */
GPtrArray *
agents_sandbox_session_apply_entry_batch_finish (AgentsSandboxSession *self,
                                                 GAsyncResult *result,
                                                 GError **error)
{
  return finish_pointer (self, result, error);
}

/**
 * agents_sandbox_session_validate_path_access_async:
 * @self: a session
 * @path: a path as given by a caller (relative to the root, or absolute)
 * @for_write: whether the path will be written
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the normalized path
 * @user_data: data for @callback
 *
 * Checks that @path stays inside the workspace root or an extra path
 * grant (a writable one when @for_write), following symlinks as the
 * sandbox sees them. A path that escapes is an
 * %AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH error
 * (`manifest path must not escape root: PATH`).
 */
void
agents_sandbox_session_validate_path_access_async (AgentsSandboxSession *self,
                                                   const char *path,
                                                   gboolean for_write,
                                                   GCancellable *cancellable,
                                                   GAsyncReadyCallback callback,
                                                   gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));
  g_return_if_fail (path != NULL);

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_validate_path_access_async);
  IFACE (self)->validate_path_access (self, path, for_write, task);
}

/**
 * agents_sandbox_session_validate_path_access_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_validate_path_access_async().
 *
 * Returns: (transfer full): the absolute, normalized path
 */
char *
agents_sandbox_session_validate_path_access_finish (AgentsSandboxSession *self,
                                                    GAsyncResult *result,
                                                    GError **error)
{
  return finish_pointer (self, result, error);
}

/**
 * agents_sandbox_session_ensure_runtime_helper_installed_async:
 * @self: a session
 * @helper: the helper
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the installed path
 * @user_data: data for @callback
 *
 * Installs a runtime helper in the sandbox unless an identical executable
 * is already in place; a missing or altered one is (re)installed.
 */
void
agents_sandbox_session_ensure_runtime_helper_installed_async (
  AgentsSandboxSession *self,
  AgentsRuntimeHelper *helper,
  GCancellable *cancellable,
  GAsyncReadyCallback callback,
  gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));
  g_return_if_fail (AGENTS_IS_RUNTIME_HELPER (helper));

  task =
    new_task (self, cancellable, callback, user_data,
              agents_sandbox_session_ensure_runtime_helper_installed_async);
  IFACE (self)->ensure_runtime_helper_installed (self, helper, task);
}

/**
 * agents_sandbox_session_ensure_runtime_helper_installed_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_ensure_runtime_helper_installed_async().
 *
 * Returns: (transfer full): the path of the installed helper
 */
char *
agents_sandbox_session_ensure_runtime_helper_installed_finish (
  AgentsSandboxSession *self, GAsyncResult *result, GError **error)
{
  return finish_pointer (self, result, error);
}

/**
 * agents_sandbox_session_clear_workspace_root_on_resume_async:
 * @self: a session
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: data for @callback
 *
 * Empties the workspace before it is hydrated from a snapshot, keeping
 * mount points and the directories that lead to them.
 */
void
agents_sandbox_session_clear_workspace_root_on_resume_async (
  AgentsSandboxSession *self,
  GCancellable *cancellable,
  GAsyncReadyCallback callback,
  gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_clear_workspace_root_on_resume_async);
  IFACE (self)->clear_workspace_root_on_resume (self, task);
}

/**
 * agents_sandbox_session_clear_workspace_root_on_resume_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_clear_workspace_root_on_resume_async().
 *
 * Returns: %TRUE on success
 */
gboolean
agents_sandbox_session_clear_workspace_root_on_resume_finish (
  AgentsSandboxSession *self, GAsyncResult *result, GError **error)
{
  return finish_boolean (self, result, error);
}

/* ---- settings --------------------------------------------------------- */

/**
 * agents_sandbox_session_set_concurrency_limits:
 * @self: a session
 * @limits: the limits
 *
 * Gives the session the run's concurrency limits.
 */
void
agents_sandbox_session_set_concurrency_limits (
  AgentsSandboxSession *self, const AgentsConcurrencyLimits *limits)
{
  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));
  g_return_if_fail (limits != NULL);

  IFACE (self)->set_concurrency_limits (self, limits);
}

/**
 * agents_sandbox_session_get_concurrency_limits:
 * @self: a session
 *
 * Gets the concurrency limits in force.
 *
 * Returns: (transfer none): the concurrency limits in force
 */
const AgentsConcurrencyLimits *
agents_sandbox_session_get_concurrency_limits (AgentsSandboxSession *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION (self), NULL);

  return &agents_sandbox_session_get_data (self)->concurrency;
}

/**
 * agents_sandbox_session_set_archive_limits:
 * @self: a session
 * @limits: (nullable): the limits, or %NULL for none
 *
 * Gives the session the run's archive limits. With none, extraction
 * applies the default limits of agents_archive_limits_new().
 */
void
agents_sandbox_session_set_archive_limits (AgentsSandboxSession *self,
                                           const AgentsArchiveLimits *limits)
{
  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));

  IFACE (self)->set_archive_limits (self, limits);
}

/**
 * agents_sandbox_session_get_archive_limits:
 * @self: a session
 *
 * Gets the archive limits, if any were set.
 *
 * Returns: (transfer none) (nullable): the archive limits, if any were set
 */
const AgentsArchiveLimits *
agents_sandbox_session_get_archive_limits (AgentsSandboxSession *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION (self), NULL);

  return agents_sandbox_session_get_data (self)->archive_limits;
}

/**
 * agents_sandbox_session_set_start_state_preserved:
 * @self: a session
 * @workspace: whether the workspace survived since the session last ran
 *   (then, if its root is there and it still matches the fingerprint the
 *   last stop recorded, it is not restored from the snapshot on start)
 * @system: whether the operating system state (accounts) survived (then
 *   accounts are not provisioned again on resume)
 *
 * Tells the generic start what a backend knows survived.
 */
void
agents_sandbox_session_set_start_state_preserved (AgentsSandboxSession *self,
                                                  gboolean workspace,
                                                  gboolean system)
{
  AgentsSandboxSessionData *sd;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));

  sd = agents_sandbox_session_get_data (self);
  sd->workspace_preserved = workspace;
  sd->system_preserved = system;
}

/* Between the clearing of the workspace for a restore and the end of
 * its hydration, the workspace is not the session's: persisting it then
 * would replace the snapshot with an empty or partial one. */
void
agents_sandbox_session_set_restore_pending (AgentsSandboxSession *self,
                                            gboolean pending)
{
  agents_sandbox_session_get_data (self)->restore_pending = pending;
}

gboolean
agents_sandbox_session_get_restore_pending (AgentsSandboxSession *self)
{
  return agents_sandbox_session_get_data (self)->restore_pending;
}

/**
 * agents_sandbox_session_get_start_state_preserved:
 * @self: a session
 * @workspace: (out) (optional): whether the workspace survived
 * @system: (out) (optional): whether the system state survived
 *
 * Gets what agents_sandbox_session_set_start_state_preserved() set.
 */
void
agents_sandbox_session_get_start_state_preserved (AgentsSandboxSession *self,
                                                  gboolean *workspace,
                                                  gboolean *system)
{
  AgentsSandboxSessionData *sd;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));

  sd = agents_sandbox_session_get_data (self);
  if (workspace != NULL)
    *workspace = sd->workspace_preserved;
  if (system != NULL)
    *system = sd->system_preserved;
}

/**
 * agents_sandbox_session_set_dependencies:
 * @self: a session
 * @dependencies: (nullable): the dependencies, or %NULL to keep those set
 *
 * Sets the objects the session hands to its snapshot when it persists
 * and restores the workspace, such as the client of an
 * #AgentsRemoteSnapshot. As the reference, %NULL changes nothing.
 */
void
agents_sandbox_session_set_dependencies (AgentsSandboxSession *self,
                                         AgentsDependencies *dependencies)
{
  AgentsSandboxSessionData *sd;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));
  g_return_if_fail (dependencies == NULL ||
                    AGENTS_IS_DEPENDENCIES (dependencies));

  if (dependencies == NULL)
    return;
  sd = agents_sandbox_session_get_data (self);
  g_set_object (&sd->dependencies, dependencies);
}

/**
 * agents_sandbox_session_get_dependencies:
 * @self: a session
 *
 * Gets the session's dependencies, made empty on first use.
 *
 * Returns: (transfer none): the dependencies
 */
AgentsDependencies *
agents_sandbox_session_get_dependencies (AgentsSandboxSession *self)
{
  AgentsSandboxSessionData *sd;

  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION (self), NULL);

  sd = agents_sandbox_session_get_data (self);
  if (sd->dependencies == NULL)
    sd->dependencies = agents_dependencies_new ();
  return sd->dependencies;
}

/**
 * agents_sandbox_session_prepare_workspace_async:
 * @self: a session
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: data for @callback
 *
 * The generic part of starting a session, which a backend's @start calls
 * once its backend is up: when the snapshot can be restored, the
 * workspace is cleared (mounts kept), hydrated from it, the accounts are
 * provisioned again (unless the system state was preserved) and the
 * ephemeral entries re-applied; otherwise the whole manifest is applied.
 */
void
agents_sandbox_session_prepare_workspace_async (AgentsSandboxSession *self,
                                                GCancellable *cancellable,
                                                GAsyncReadyCallback callback,
                                                gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_prepare_workspace_async);
  agents_sandbox_session_real_start (self, task);
}

/**
 * agents_sandbox_session_prepare_workspace_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_prepare_workspace_async().
 *
 * Returns: %TRUE on success
 */
gboolean
agents_sandbox_session_prepare_workspace_finish (AgentsSandboxSession *self,
                                                 GAsyncResult *result,
                                                 GError **error)
{
  return finish_boolean (self, result, error);
}

/**
 * agents_sandbox_session_persist_to_snapshot_async:
 * @self: a session
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: data for @callback
 *
 * Archives the workspace into the state's snapshot: the default @stop.
 */
void
agents_sandbox_session_persist_to_snapshot_async (AgentsSandboxSession *self,
                                                  GCancellable *cancellable,
                                                  GAsyncReadyCallback callback,
                                                  gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_persist_to_snapshot_async);
  agents_sandbox_session_real_stop (self, task);
}

/**
 * agents_sandbox_session_persist_to_snapshot_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_persist_to_snapshot_async().
 *
 * Returns: %TRUE on success
 */
gboolean
agents_sandbox_session_persist_to_snapshot_finish (AgentsSandboxSession *self,
                                                   GAsyncResult *result,
                                                   GError **error)
{
  return finish_boolean (self, result, error);
}

/* Emits AgentsSandboxSession::progress (agents-progress-stream.c). */
void
agents_sandbox_session_report_progress (AgentsSandboxSession *self,
                                        const char *operation,
                                        gint64 done,
                                        gint64 total)
{
  g_signal_emit (self, progress_signal, g_quark_from_string (operation),
                 operation, done, total);
}
