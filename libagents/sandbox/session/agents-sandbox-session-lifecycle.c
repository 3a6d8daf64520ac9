/* agents-sandbox-session-lifecycle.c - starting, stopping, shutting down
 * and closing a session
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-sandbox-error-private.h"
#include "agents-sandbox-process-table-private.h"
#include "agents-sandbox-session-call-private.h"
#include "agents-sandbox-session-private.h"
#include "agents-snapshot-fingerprint-private.h"

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
