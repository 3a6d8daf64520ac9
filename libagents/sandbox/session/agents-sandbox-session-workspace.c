/* agents-sandbox-session-workspace.c - persisting, hydrating and preparing
 * the workspace; runtime helpers
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-sandbox-error-private.h"
#include "agents-sandbox-session-call-private.h"
#include "agents-sandbox-session-private.h"

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
