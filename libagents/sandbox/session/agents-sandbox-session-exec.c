/* agents-sandbox-session-exec.c - running commands in a session
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-sandbox-error-private.h"
#include "agents-sandbox-session-call-private.h"
#include "agents-sandbox-session-private.h"

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
