/* agents-sandbox-session-generic-helpers.c - installing runtime helpers and
 * validating paths through them
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "agents-sandbox-error-private.h"
#include "agents-sandbox-session-generic-private.h"
#include "agents-sandbox-session-generic-task-private.h"
#include "agents-sandbox-session-private.h"

/* Exit status of the resolve_workspace_path helper when a path escapes. */
#define HELPER_ESCAPE_STATUS 111

/* ---- runtime helpers and remote path validation ----------------------- */

static void
helper_install_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  AgentsRuntimeHelper *helper = g_task_get_task_data (task);
  g_autoptr (AgentsExecResult) exec_result = NULL;
  GError *error = NULL;

  exec_result = agents_sandbox_session_exec_checked_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  if (exec_result == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (
      task, g_strdup (agents_runtime_helper_get_install_path (helper)), g_free);
}

/* The install command compares what is installed with the helper's content
 * and rewrites it when it differs or is missing, so running it every time
 * both repairs a tampered helper and reinstalls a deleted one. */
void
agents_sandbox_session_real_ensure_runtime_helper_installed (
  Session *self, AgentsRuntimeHelper *helper, GTask *task)
{
  g_auto (GStrv) argv = agents_runtime_helper_install_command (helper);

  g_task_set_task_data (task, g_object_ref (helper), g_object_unref);
  agents_sandbox_session_exec_checked_async (
    self, (const char *const *) argv, g_task_get_cancellable (task),
    helper_install_done, g_object_ref (task));
}

typedef struct
{
  char *rel; /* as given */
  char *abs; /* lexically resolved */
  gboolean for_write;
  GPtrArray *argv_tail; /* root, abs, flag, grants… */
} RemoteCheck;

static void
remote_check_free (RemoteCheck *check)
{
  g_free (check->rel);
  g_free (check->abs);
  g_clear_pointer (&check->argv_tail, g_ptr_array_unref);
  g_free (check);
}

static char **
helper_argv (const char *program, GPtrArray *tail)
{
  GStrvBuilder *builder = g_strv_builder_new ();
  char **argv;

  g_strv_builder_add (builder, program);
  for (guint i = 0; i < tail->len; i++)
    g_strv_builder_add (builder, g_ptr_array_index (tail, i));
  argv = g_strv_builder_end (builder);
  g_strv_builder_unref (builder);
  return argv;
}

static void
remote_check_empty_output (GTask *task, AgentsExecResult *exec_result)
{
  RemoteCheck *check = g_task_get_task_data (task);
  AgentsRuntimeHelper *resolver =
    agents_runtime_helper_get_resolve_workspace_path ();
  g_auto (GStrv) named =
    helper_argv (agents_runtime_helper_get_name (resolver), check->argv_tail);
  g_auto (GVariantBuilder) extra =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  g_autofree char *out = agents_exec_result_dup_stdout_text (exec_result);
  g_autofree char *err = agents_exec_result_dup_stderr_text (exec_result);
  GError *error = NULL;

  g_variant_builder_add (
    &extra, "{sv}", "exit_code",
    g_variant_new_int32 (agents_exec_result_get_exit_code (exec_result)));
  g_variant_builder_add (&extra, "{sv}", "stdout", g_variant_new_string (out));
  g_variant_builder_add (&extra, "{sv}", "stderr", g_variant_new_string (err));
  agents_sandbox_error_set_exec_transport (&error, (const char *const *) named,
                                           "empty_stdout",
                                           g_variant_builder_end (&extra));
  g_task_return_error (task, error);
}

static void
remote_check_ran (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  RemoteCheck *check = g_task_get_task_data (task);
  g_autoptr (AgentsExecResult) exec_result = NULL;
  g_autofree char *out = NULL;
  GError *error = NULL;
  int status;

  exec_result = agents_sandbox_session_exec_raw_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  if (exec_result == NULL)
    {
      g_task_return_error (task, error);
      return;
    }

  status = agents_exec_result_get_exit_code (exec_result);
  if (status == HELPER_ESCAPE_STATUS)
    {
      agents_sandbox_path_error_for (&error, check->rel);
      g_task_return_error (task, error);
      return;
    }
  if (status != 0)
    {
      g_auto (GStrv) argv =
        helper_argv (agents_runtime_helper_get_name (
                       agents_runtime_helper_get_resolve_workspace_path ()),
                     check->argv_tail);

      agents_sandbox_error_set_exec_nonzero (
        &error, (const char *const *) argv, status,
        agents_exec_result_get_stdout (exec_result),
        agents_exec_result_get_stderr (exec_result));
      g_task_return_error (task, error);
      return;
    }

  /* The bytes of the name, not text: names need not be UTF-8. */
  {
    GBytes *raw = agents_exec_result_get_stdout (exec_result);
    gsize len = 0;
    const char *data = raw ? g_bytes_get_data (raw, &len) : NULL;

    out = g_strndup (data ? data : "", len);
  }
  /* Only the newline the helper ends with: names may end in spaces. */
  if (g_str_has_suffix (out, "\n"))
    out[strlen (out) - 1] = '\0';
  if (*out == '\0')
    {
      remote_check_empty_output (task, exec_result);
      return;
    }
  g_task_return_pointer (task, g_steal_pointer (&out), g_free);
}

static void
remote_check_installed (GObject *source,
                        GAsyncResult *result,
                        gpointer user_data)
{
  GTask *task = user_data;
  RemoteCheck *check = g_task_get_task_data (task);
  g_autofree char *program = NULL;
  g_auto (GStrv) argv = NULL;
  GError *error = NULL;

  program = agents_sandbox_session_ensure_runtime_helper_installed_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  if (program == NULL)
    {
      fail_task (task, error);
      return;
    }
  argv = helper_argv (program, check->argv_tail);
  agents_sandbox_session_exec_raw_async (
    task_session (task), (const char *const *) argv, 0,
    g_task_get_cancellable (task), remote_check_ran, task);
}

static GPtrArray *
remote_check_tail (AgentsManifest *manifest,
                   const char *abs,
                   gboolean for_write)
{
  GPtrArray *tail = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *grants = agents_manifest_get_extra_path_grants (manifest);

  g_ptr_array_add (tail, g_strdup (agents_manifest_get_root (manifest)));
  g_ptr_array_add (tail, g_strdup (abs));
  g_ptr_array_add (tail, g_strdup (for_write ? "1" : "0"));
  for (guint i = 0; i < grants->len; i++)
    {
      AgentsSandboxPathGrant *grant = g_ptr_array_index (grants, i);

      g_ptr_array_add (tail,
                       g_strdup (agents_sandbox_path_grant_get_path (grant)));
      g_ptr_array_add (
        tail, g_strdup (
                agents_sandbox_path_grant_get_read_only (grant) ? "ro" : "rw"));
    }
  return tail;
}

static void
remote_check_start (Session *self,
                    const char *path,
                    gboolean for_write,
                    GTask *task)
{
  AgentsManifest *manifest = agents_sandbox_session_get_manifest (self);
  RemoteCheck *check;
  GError *error = NULL;
  char *abs = agents_manifest_resolve_path (manifest, path, &error);

  if (abs == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  check = g_new0 (RemoteCheck, 1);
  check->rel = g_strdup (path);
  check->abs = abs;
  check->for_write = for_write;
  check->argv_tail = remote_check_tail (manifest, abs, for_write);
  g_task_set_task_data (task, check, (GDestroyNotify) remote_check_free);

  agents_sandbox_session_ensure_runtime_helper_installed_async (
    self, agents_runtime_helper_get_resolve_workspace_path (),
    g_task_get_cancellable (task), remote_check_installed, g_object_ref (task));
}

void
agents_sandbox_session_real_validate_path_access (Session *self,
                                                  const char *path,
                                                  gboolean for_write,
                                                  GTask *task)
{
  remote_check_start (self, path, for_write, task);
}

/**
 * agents_sandbox_session_validate_remote_path_access_async:
 * @self: a session
 * @path: a path as given by a caller
 * @for_write: whether the path will be written
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the resolved path
 * @user_data: data for @callback
 *
 * The generic, in-sandbox path check: @path is first checked lexically
 * against the root and the grants, then resolved inside the sandbox by
 * the `resolve_workspace_path` runtime helper, which follows symlinks the
 * way the sandbox sees them, gives up on cycles and deep chains
 * (`symlink resolution depth exceeded`), and refuses results outside the
 * root. Empty output from the helper is an
 * %AGENTS_SANDBOX_ERROR_EXEC_TRANSPORT error with reason `empty_stdout`.
 */
void
agents_sandbox_session_validate_remote_path_access_async (
  Session *self,
  const char *path,
  gboolean for_write,
  GCancellable *cancellable,
  GAsyncReadyCallback callback,
  gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));
  g_return_if_fail (path != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (
    task, agents_sandbox_session_validate_remote_path_access_async);
  remote_check_start (self, path, for_write, task);
}

/**
 * agents_sandbox_session_validate_remote_path_access_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_validate_remote_path_access_async().
 *
 * Returns: (transfer full): the resolved absolute path
 */
char *
agents_sandbox_session_validate_remote_path_access_finish (Session *self,
                                                           GAsyncResult *result,
                                                           GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
