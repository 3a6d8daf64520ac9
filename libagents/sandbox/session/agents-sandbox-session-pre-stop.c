/* agents-sandbox-session-pre-stop.c - work done before a session stops
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-sandbox-session-private.h"

/* Pre-stop hooks are the reference's `register_pre_stop_hook()`: work
 * that needs the live session (memory generation writes into the
 * workspace and runs agents in it) and that must happen before the
 * workspace is persisted. Each hook runs once: running the hooks takes
 * them off the session. */

typedef struct
{
  guint id;
  AgentsSandboxPreStopHook func;
  gpointer user_data;
  GDestroyNotify destroy;
} PreStopHook;

static void
pre_stop_hook_free (PreStopHook *hook)
{
  if (hook->destroy != NULL)
    hook->destroy (hook->user_data);
  g_free (hook);
}

void
agents_sandbox_session_data_clear_pre_stop_hooks (
  AgentsSandboxSessionData *data)
{
  g_clear_pointer (&data->pre_stop_hooks, g_ptr_array_unref);
}

/**
 * AgentsSandboxPreStopHook:
 * @session: the session about to stop
 * @task: the task the hook completes, with a boolean or an error
 * @user_data: (closure): the data given with the hook
 *
 * Work to do while @session still runs, before it stops and persists its
 * workspace. @task is given *transfer none*, like the @task of a vfunc:
 * the hook completes it (g_task_return_boolean(), g_task_return_error()),
 * taking its own reference when it completes later. Its cancellable
 * (g_task_get_cancellable()) is the one of the close that runs the hook.
 */

/**
 * agents_sandbox_session_add_pre_stop_hook:
 * @self: a session
 * @hook: (scope notified) (closure user_data) (destroy destroy): the hook
 * @user_data: data for @hook
 * @destroy: (nullable): frees @user_data once the hook ran or was removed
 *
 * Registers @hook to run once, on the owner's thread, before the session
 * is stopped by agents_sandbox_session_close_async() or by the session
 * manager's cleanup of a session the runner owns; hooks run in the order
 * they were added, each after the previous one completed.
 * agents_sandbox_session_run_pre_stop_hooks_async() runs them explicitly.
 *
 * When a hook fails (cancellation included), the other hooks still run,
 * the session is not stopped — nothing is persisted — but it is shut
 * down and its dependencies are closed (and the runner's cleanup deletes
 * it), and the first failure is returned by the close.
 *
 * Returns: an id for agents_sandbox_session_remove_pre_stop_hook(),
 *   never 0
 */
guint
agents_sandbox_session_add_pre_stop_hook (AgentsSandboxSession *self,
                                          AgentsSandboxPreStopHook hook,
                                          gpointer user_data,
                                          GDestroyNotify destroy)
{
  AgentsSandboxSessionData *sd;
  PreStopHook *entry;

  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION (self), 0);
  g_return_val_if_fail (hook != NULL, 0);

  sd = agents_sandbox_session_get_data (self);
  if (sd->pre_stop_hooks == NULL)
    sd->pre_stop_hooks =
      g_ptr_array_new_with_free_func ((GDestroyNotify) pre_stop_hook_free);
  entry = g_new0 (PreStopHook, 1);
  entry->id = ++sd->last_pre_stop_hook_id;
  entry->func = hook;
  entry->user_data = user_data;
  entry->destroy = destroy;
  g_ptr_array_add (sd->pre_stop_hooks, entry);
  return entry->id;
}

/**
 * agents_sandbox_session_remove_pre_stop_hook:
 * @self: a session
 * @hook_id: what agents_sandbox_session_add_pre_stop_hook() returned
 *
 * Removes a hook that has not run yet; its destroy notify is called.
 *
 * Returns: whether the hook was still registered
 */
gboolean
agents_sandbox_session_remove_pre_stop_hook (AgentsSandboxSession *self,
                                             guint hook_id)
{
  AgentsSandboxSessionData *sd;

  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION (self), FALSE);

  sd = agents_sandbox_session_get_data (self);
  for (guint i = 0; sd->pre_stop_hooks && i < sd->pre_stop_hooks->len; i++)
    {
      PreStopHook *entry = sd->pre_stop_hooks->pdata[i];

      if (entry->id == hook_id)
        {
          g_ptr_array_remove_index (sd->pre_stop_hooks, i);
          return TRUE;
        }
    }
  return FALSE;
}

/**
 * agents_sandbox_session_has_pre_stop_hooks:
 * @self: a session
 *
 * Tells whether @self has pre-stop hooks left to run (see
 * agents_sandbox_session_add_pre_stop_hook()).
 *
 * Returns: whether hooks are registered that have not run yet
 */
gboolean
agents_sandbox_session_has_pre_stop_hooks (AgentsSandboxSession *self)
{
  AgentsSandboxSessionData *sd;

  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION (self), FALSE);

  sd = agents_sandbox_session_get_data (self);
  return sd->pre_stop_hooks != NULL && sd->pre_stop_hooks->len > 0;
}

typedef struct
{
  GPtrArray *hooks; /* PreStopHook, taken off the session */
  guint next;
  GError *error; /* the first failure */
} RunOp;

static void
run_op_free (RunOp *op)
{
  g_ptr_array_unref (op->hooks);
  g_clear_error (&op->error);
  g_free (op);
}

static void run_next (GTask *task);

static void
hook_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  RunOp *op = g_task_get_task_data (task);
  GError *error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error) && error == NULL)
    error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED,
                                 "a pre-stop hook returned FALSE");
  if (error != NULL)
    {
      g_debug ("A pre-stop hook failed: %s", error->message);
      if (op->error == NULL)
        op->error = error;
      else
        g_error_free (error);
    }
  run_next (task);
}

/* @task is held until the last hook completed. */
static void
run_next (GTask *task)
{
  AgentsSandboxSession *self = g_task_get_source_object (task);
  RunOp *op = g_task_get_task_data (task);
  PreStopHook *hook;
  GTask *hook_task;

  if (op->next >= op->hooks->len)
    {
      if (op->error != NULL)
        g_task_return_error (task, g_steal_pointer (&op->error));
      else
        g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }
  hook = op->hooks->pdata[op->next++];
  hook_task = g_task_new (self, g_task_get_cancellable (task), hook_done, task);
  g_task_set_source_tag (hook_task, hook->func);
  hook->func (self, hook_task, hook->user_data);
  g_object_unref (hook_task);
}

/**
 * agents_sandbox_session_run_pre_stop_hooks_async:
 * @self: a session
 * @cancellable: (nullable): a #GCancellable, given to the hooks
 * @callback: (scope async): called when every hook completed
 * @user_data: data for @callback
 *
 * Runs the pre-stop hooks registered so far, once: they are taken off
 * the session (a hook added later runs at the next call). Every hook
 * runs even when one fails; the first failure is returned.
 */
void
agents_sandbox_session_run_pre_stop_hooks_async (AgentsSandboxSession *self,
                                                 GCancellable *cancellable,
                                                 GAsyncReadyCallback callback,
                                                 gpointer user_data)
{
  AgentsSandboxSessionData *sd;
  GTask *task;
  RunOp *op;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_sandbox_session_run_pre_stop_hooks_async);
  sd = agents_sandbox_session_get_data (self);
  op = g_new0 (RunOp, 1);
  op->hooks =
    sd->pre_stop_hooks
      ? g_steal_pointer (&sd->pre_stop_hooks)
      : g_ptr_array_new_with_free_func ((GDestroyNotify) pre_stop_hook_free);
  g_task_set_task_data (task, op, (GDestroyNotify) run_op_free);
  run_next (task);
}

/**
 * agents_sandbox_session_run_pre_stop_hooks_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_run_pre_stop_hooks_async().
 *
 * Returns: %TRUE when every hook succeeded
 */
gboolean
agents_sandbox_session_run_pre_stop_hooks_finish (AgentsSandboxSession *self,
                                                  GAsyncResult *result,
                                                  GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
