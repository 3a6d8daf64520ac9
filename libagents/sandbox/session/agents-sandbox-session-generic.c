/* agents-sandbox-session-generic.c - session operations over the primitives
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <inttypes.h>
#include <errno.h>
#include <string.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "agents-archive-private.h"
#include "agents-fs-private.h"
#include "agents-progress-stream-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-sandbox-session-generic-private.h"
#include "agents-sandbox-session-private.h"
#include "agents-snapshot-fingerprint-private.h"

/* Exit status of useradd/groupadd when the account already exists. */
#define ACCOUNT_EXISTS_STATUS 9

/* Exit status of the resolve_workspace_path helper when a path escapes. */
#define HELPER_ESCAPE_STATUS 111

typedef AgentsSandboxSession Session;

static Session *
task_session (GTask *task)
{
  return AGENTS_SANDBOX_SESSION (g_task_get_source_object (task));
}

static void
return_error_or_true (GTask *task, GError *error)
{
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

/* ---- running a list of commands one after the other ------------------- */

typedef struct
{
  GPtrArray *commands; /* of GStrv */
  guint next;
  gboolean tolerate_exists;
} CommandSeq;

static void
command_seq_free (CommandSeq *seq)
{
  g_ptr_array_unref (seq->commands);
  g_free (seq);
}

static void command_seq_next (GTask *task);

static void
command_seq_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  CommandSeq *seq = g_task_get_task_data (task);
  const char *const *argv = g_ptr_array_index (seq->commands, seq->next - 1);
  g_autoptr (AgentsExecResult) exec_result = NULL;
  GError *error = NULL;
  int status;

  exec_result = agents_sandbox_session_exec_raw_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  if (exec_result == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }

  status = agents_exec_result_get_exit_code (exec_result);
  if (status != 0 && !(seq->tolerate_exists && status == ACCOUNT_EXISTS_STATUS))
    {
      agents_sandbox_error_set_exec_nonzero (
        &error, argv, status, agents_exec_result_get_stdout (exec_result),
        agents_exec_result_get_stderr (exec_result));
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  command_seq_next (task);
}

static void
command_seq_next (GTask *task)
{
  CommandSeq *seq = g_task_get_task_data (task);

  if (seq->next >= seq->commands->len)
    {
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }
  agents_sandbox_session_exec_raw_async (
    task_session (task), g_ptr_array_index (seq->commands, seq->next++), 0,
    g_task_get_cancellable (task), command_seq_done, task);
}

void
agents_sandbox_session_run_commands_async (Session *self,
                                           GPtrArray *commands,
                                           gboolean tolerate_exists,
                                           GCancellable *cancellable,
                                           GAsyncReadyCallback callback,
                                           gpointer user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  CommandSeq *seq = g_new0 (CommandSeq, 1);

  seq->commands = g_ptr_array_ref (commands);
  seq->tolerate_exists = tolerate_exists;
  g_task_set_task_data (task, seq, (GDestroyNotify) command_seq_free);
  command_seq_next (task);
}

gboolean
agents_sandbox_session_run_commands_finish (Session *self,
                                            GAsyncResult *result,
                                            GError **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

static GPtrArray *
new_command_list (void)
{
  return g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
}

static void
add_command (GPtrArray *commands, const char *first, ...)
{
  GStrvBuilder *builder = g_strv_builder_new ();
  va_list args;

  va_start (args, first);
  for (const char *arg = first; arg != NULL; arg = va_arg (args, const char *))
    g_strv_builder_add (builder, arg);
  va_end (args);

  g_ptr_array_add (commands, g_strv_builder_end (builder));
  g_strv_builder_unref (builder);
}

/* ---- accounts --------------------------------------------------------- */

GPtrArray *
agents_sandbox_session_collect_users (AgentsManifest *manifest)
{
  GPtrArray *users = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  GPtrArray *manifest_users = agents_manifest_get_users (manifest);
  GPtrArray *groups = agents_manifest_get_groups (manifest);

  for (guint i = 0; i < manifest_users->len; i++)
    {
      AgentsUser *user = g_ptr_array_index (manifest_users, i);

      if (g_hash_table_add (seen, (gpointer) agents_user_get_name (user)))
        g_ptr_array_add (users, g_object_ref (user));
    }
  for (guint i = 0; i < groups->len; i++)
    {
      GPtrArray *members =
        agents_group_get_users (g_ptr_array_index (groups, i));

      for (guint j = 0; j < members->len; j++)
        {
          AgentsUser *user = g_ptr_array_index (members, j);

          if (g_hash_table_add (seen, (gpointer) agents_user_get_name (user)))
            g_ptr_array_add (users, g_object_ref (user));
        }
    }
  return users;
}

static GPtrArray *
account_commands (AgentsManifest *manifest)
{
  GPtrArray *commands = new_command_list ();
  GPtrArray *groups = agents_manifest_get_groups (manifest);
  g_autoptr (GPtrArray) users = agents_sandbox_session_collect_users (manifest);

  for (guint i = 0; i < groups->len; i++)
    add_command (commands, "groupadd",
                 agents_group_get_name (g_ptr_array_index (groups, i)), NULL);
  for (guint i = 0; i < users->len; i++)
    add_command (commands, "useradd", "-U", "-M", "-s", "/usr/sbin/nologin",
                 agents_user_get_name (g_ptr_array_index (users, i)), NULL);
  for (guint i = 0; i < groups->len; i++)
    {
      AgentsGroup *group = g_ptr_array_index (groups, i);
      GPtrArray *members = agents_group_get_users (group);

      for (guint j = 0; j < members->len; j++)
        add_command (commands, "usermod", "-aG", agents_group_get_name (group),
                     agents_user_get_name (g_ptr_array_index (members, j)),
                     NULL);
    }
  return commands;
}

static void
provision_accounts_async (Session *self,
                          GCancellable *cancellable,
                          GAsyncReadyCallback callback,
                          gpointer user_data)
{
  g_autoptr (GPtrArray) commands =
    account_commands (agents_sandbox_session_get_manifest (self));

  /* As the reference: any non-zero status fails, even 9 (the account
   * exists), with the command's output in the error. */
  agents_sandbox_session_run_commands_async (self, commands, FALSE, cancellable,
                                             callback, user_data);
}

/* ---- apply_manifest --------------------------------------------------- */

typedef struct
{
  gboolean only_ephemeral;
  GPtrArray *targets; /* of AgentsEntryTarget */
  guint next;
  GPtrArray *files; /* of AgentsMaterializedFile */
} ApplyOp;

static void
apply_op_free (ApplyOp *op)
{
  g_clear_pointer (&op->targets, g_ptr_array_unref);
  g_clear_pointer (&op->files, g_ptr_array_unref);
  g_free (op);
}

static void apply_next_batch (GTask *task);

static void
apply_batch_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  ApplyOp *op = g_task_get_task_data (task);
  g_autoptr (GPtrArray) files = NULL;
  GError *error = NULL;

  files = agents_sandbox_session_apply_entry_batch_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  if (files == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  for (guint i = 0; i < files->len; i++)
    g_ptr_array_add (
      op->files, agents_materialized_file_copy (g_ptr_array_index (files, i)));
  apply_next_batch (task);
}

static void
apply_next_batch (GTask *task)
{
  Session *self = task_session (task);
  ApplyOp *op = g_task_get_task_data (task);
  const AgentsConcurrencyLimits *limits =
    agents_sandbox_session_get_concurrency_limits (self);
  guint batch_size = (guint) MAX (limits->manifest_entries, 1);
  g_autoptr (GPtrArray) batch = NULL;

  /* The entries before op->next are materialized. */
  if (op->targets->len > 0)
    agents_sandbox_session_report_progress (self, "apply", op->next,
                                            op->targets->len);
  if (op->next >= op->targets->len)
    {
      g_task_return_pointer (task, g_steal_pointer (&op->files),
                             (GDestroyNotify) g_ptr_array_unref);
      g_object_unref (task);
      return;
    }

  batch =
    g_ptr_array_new_with_free_func ((GDestroyNotify) agents_entry_target_free);
  while (op->next < op->targets->len && batch->len < batch_size)
    g_ptr_array_add (batch, agents_entry_target_copy (
                              g_ptr_array_index (op->targets, op->next++)));
  agents_sandbox_session_apply_entry_batch_async (
    self, batch, NULL, g_task_get_cancellable (task), apply_batch_done, task);
}

static void
apply_accounts_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  GError *error = NULL;

  if (!agents_sandbox_session_run_commands_finish (
        AGENTS_SANDBOX_SESSION (source), result, &error))
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  apply_next_batch (task);
}

static void
apply_root_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  ApplyOp *op = g_task_get_task_data (task);
  g_autoptr (AgentsExecResult) exec_result = NULL;
  GError *error = NULL;

  exec_result = agents_sandbox_session_exec_checked_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  if (exec_result == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  if (op->only_ephemeral)
    apply_next_batch (task);
  else
    provision_accounts_async (task_session (task),
                              g_task_get_cancellable (task),
                              apply_accounts_done, task);
}

void
agents_sandbox_session_real_apply_manifest (Session *self,
                                            gboolean only_ephemeral,
                                            GTask *task)
{
  AgentsManifest *manifest = agents_sandbox_session_get_manifest (self);
  const char *argv[] = { "mkdir", "-p", agents_manifest_get_root (manifest),
                         NULL };
  ApplyOp *op = g_new0 (ApplyOp, 1);

  op->only_ephemeral = only_ephemeral;
  op->targets = agents_manifest_list_targets (manifest, only_ephemeral);
  op->files = g_ptr_array_new_with_free_func (
    (GDestroyNotify) agents_materialized_file_free);
  g_task_set_task_data (task, op, (GDestroyNotify) apply_op_free);

  agents_sandbox_session_exec_checked_async (
    self, argv, g_task_get_cancellable (task), apply_root_done,
    g_object_ref (task));
}

/* ---- apply_entry_batch: entries at once, unless their paths overlap --- */

typedef struct
{
  GPtrArray *targets; /* of AgentsEntryTarget */
  char *base_dir;
  GPtrArray *results; /* one GPtrArray of files per target, or NULL */
  guint next;         /* the first target not started */
  guint pending;
  GError *error;
} BatchOp;

typedef struct
{
  GTask *task;
  guint index;
} BatchItem;

/* A failed entry leaves its slot NULL. */
static void
unref_files_if_set (gpointer files)
{
  if (files != NULL)
    g_ptr_array_unref (files);
}

static void
batch_op_free (BatchOp *op)
{
  g_ptr_array_unref (op->targets);
  g_free (op->base_dir);
  g_ptr_array_unref (op->results);
  g_clear_error (&op->error);
  g_free (op);
}

static void
batch_return (GTask *task)
{
  BatchOp *op = g_task_get_task_data (task);
  GPtrArray *files;

  if (op->error != NULL)
    {
      g_task_return_error (task, g_steal_pointer (&op->error));
      return;
    }

  files = g_ptr_array_new_with_free_func (
    (GDestroyNotify) agents_materialized_file_free);
  for (guint i = 0; i < op->results->len; i++)
    {
      GPtrArray *part = g_ptr_array_index (op->results, i);

      for (guint j = 0; part != NULL && j < part->len; j++)
        g_ptr_array_add (
          files, agents_materialized_file_copy (g_ptr_array_index (part, j)));
    }
  g_task_return_pointer (task, files, (GDestroyNotify) g_ptr_array_unref);
}

/* Whether @a and @b are the same path or one is below the other. */
static gboolean
paths_overlap (const char *a, const char *b)
{
  size_t la = strlen (a);
  size_t lb = strlen (b);
  const char *shorter = la <= lb ? a : b;
  const char *longer = la <= lb ? b : a;
  size_t n = MIN (la, lb);

  if (strncmp (shorter, longer, n) != 0)
    return FALSE;
  return longer[n] == '\0' || longer[n] == '/' ||
         (n > 0 && shorter[n - 1] == '/');
}

static void batch_start_wave (GTask *task);

static void
batch_entry_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  BatchItem *item = user_data;
  g_autoptr (GTask) task = item->task;
  BatchOp *op = g_task_get_task_data (task);
  GError *error = NULL;
  GPtrArray *files;

  files = agents_manifest_entry_apply_finish (AGENTS_MANIFEST_ENTRY (source),
                                              result, &error);
  if (files == NULL && op->error == NULL)
    op->error = error;
  else if (files == NULL)
    g_error_free (error);
  else
    g_ptr_array_index (op->results, item->index) = files;

  g_free (item);
  if (--op->pending > 0)
    return;
  if (op->error == NULL && op->next < op->targets->len)
    batch_start_wave (task);
  else
    batch_return (task);
}

/* Whether the target at @index overlaps one started in this wave, from
 * @first on. */
static gboolean
batch_overlaps_wave (BatchOp *op, guint first, guint index)
{
  AgentsEntryTarget *target = g_ptr_array_index (op->targets, index);

  for (guint i = first; i < index; i++)
    {
      AgentsEntryTarget *started = g_ptr_array_index (op->targets, i);

      if (paths_overlap (started->path, target->path))
        return TRUE;
    }
  return FALSE;
}

/* Starts the targets from op->next on at once, up to the first whose path
 * overlaps one of them: that one waits until the wave has finished (the
 * reference flushes its parallel work before an overlapping path). */
static void
batch_start_wave (GTask *task)
{
  BatchOp *op = g_task_get_task_data (task);
  guint first = op->next;
  guint end = first + 1;

  while (end < op->targets->len && !batch_overlaps_wave (op, first, end))
    end++;
  op->pending = end - first;
  op->next = end;
  for (guint i = first; i < end; i++)
    {
      AgentsEntryTarget *target = g_ptr_array_index (op->targets, i);
      BatchItem *item = g_new0 (BatchItem, 1);

      item->task = g_object_ref (task);
      item->index = i;
      agents_manifest_entry_apply_async (
        target->entry, g_task_get_source_object (task), target->path,
        op->base_dir, g_task_get_cancellable (task), batch_entry_done, item);
    }
}

void
agents_sandbox_session_real_apply_entry_batch (Session *self,
                                               GPtrArray *targets,
                                               const char *base_dir,
                                               GTask *task)
{
  BatchOp *op = g_new0 (BatchOp, 1);

  op->targets = g_ptr_array_ref (targets);
  op->base_dir = g_strdup (base_dir);
  op->results = g_ptr_array_new_full (targets->len, unref_files_if_set);
  g_ptr_array_set_size (op->results, targets->len);
  g_task_set_task_data (task, op, (GDestroyNotify) batch_op_free);

  if (targets->len == 0)
    batch_return (task);
  else
    batch_start_wave (task);
}

/* ---- start and stop --------------------------------------------------- */

static void
start_complete (GTask *task, GError *error)
{
  if (error == NULL)
    agents_sandbox_session_state_set_workspace_root_ready (
      agents_sandbox_session_peek_state (task_session (task)), TRUE);
  return_error_or_true (task, error);
  g_object_unref (task);
}

static void
start_apply_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GPtrArray) files = NULL;
  GError *error = NULL;

  files = agents_sandbox_session_apply_manifest_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  start_complete (user_data, files == NULL ? error : NULL);
}

static void
start_apply (GTask *task, gboolean only_ephemeral)
{
  agents_sandbox_session_apply_manifest_async (
    task_session (task), only_ephemeral, g_task_get_cancellable (task),
    start_apply_done, task);
}

static void
start_accounts_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  GError *error = NULL;

  if (!agents_sandbox_session_run_commands_finish (
        AGENTS_SANDBOX_SESSION (source), result, &error))
    {
      start_complete (task, error);
      return;
    }
  start_apply (task, TRUE);
}

/* The progress stream of the persist or hydrate @task is doing. */
#define PROGRESS_STREAM_KEY "agents-progress-stream"

static void
watch_progress (GTask *task, GInputStream *counted)
{
  g_object_set_data_full (G_OBJECT (task), PROGRESS_STREAM_KEY,
                          g_object_ref (counted), g_object_unref);
}

static void
report_progress_end (GTask *task)
{
  GInputStream *counted =
    g_object_get_data (G_OBJECT (task), PROGRESS_STREAM_KEY);

  if (counted != NULL)
    agents_progress_input_stream_report_end (counted);
}

static void
start_hydrate_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Session *self = task_session (task);
  gboolean system_preserved = FALSE;
  GError *error = NULL;

  if (!agents_sandbox_session_hydrate_workspace_finish (self, result, &error))
    {
      start_complete (task, error);
      return;
    }
  report_progress_end (task);
  agents_sandbox_session_set_restore_pending (self, FALSE);
  agents_sandbox_session_get_start_state_preserved (self, NULL,
                                                    &system_preserved);
  if (system_preserved)
    start_apply (task, TRUE);
  else
    provision_accounts_async (self, g_task_get_cancellable (task),
                              start_accounts_done, task);
}

static void
start_restore_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  g_autoptr (GInputStream) stream = NULL;
  g_autoptr (GInputStream) counted = NULL;
  GError *error = NULL;

  stream =
    agents_snapshot_restore_finish (AGENTS_SNAPSHOT (source), result, &error);
  if (stream == NULL)
    {
      start_complete (task, error);
      return;
    }
  counted =
    agents_progress_input_stream_new (stream, task_session (task), "hydrate",
                                      agents_progress_stream_size (stream));
  watch_progress (task, counted);
  agents_sandbox_session_hydrate_workspace_async (task_session (task), counted,
                                                  g_task_get_cancellable (task),
                                                  start_hydrate_done, task);
}

static void
start_clear_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Session *self = task_session (task);
  GError *error = NULL;

  if (!agents_sandbox_session_clear_workspace_root_on_resume_finish (
        self, result, &error))
    {
      start_complete (task, error);
      return;
    }
  agents_snapshot_restore_with_dependencies_async (
    agents_sandbox_session_state_get_snapshot (
      agents_sandbox_session_peek_state (self)),
    agents_sandbox_session_get_dependencies (self),
    g_task_get_cancellable (task), start_restore_done, task);
}

static void
start_restore (GTask *task)
{
  agents_sandbox_session_set_restore_pending (task_session (task), TRUE);
  agents_sandbox_session_clear_workspace_root_on_resume_async (
    task_session (task), g_task_get_cancellable (task), start_clear_done, task);
}

/* Whether the start found the workspace kept from before and its root
 * proven there (recorded, or found by the probe). */
static gboolean
start_root_reusable (Session *self)
{
  gboolean workspace_preserved = FALSE;

  agents_sandbox_session_get_start_state_preserved (self, &workspace_preserved,
                                                    NULL);
  return workspace_preserved &&
         agents_sandbox_session_state_get_workspace_root_ready (
           agents_sandbox_session_peek_state (self));
}

static void
start_fingerprint_done (GObject *source,
                        GAsyncResult *result,
                        gpointer user_data)
{
  GTask *task = user_data;
  AgentsSandboxSessionState *state =
    agents_sandbox_session_peek_state (task_session (task));
  g_autofree char *live = NULL;
  g_autoptr (GError) error = NULL;

  live = agents_snapshot_fingerprint_compute_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  if (live == NULL)
    g_debug ("Restoring the snapshot: no fingerprint of the live workspace: %s",
             error->message);
  if (live != NULL &&
      g_strcmp0 (live, agents_sandbox_session_state_get_snapshot_fingerprint (
                         state)) == 0)
    start_apply (task, TRUE);
  else
    start_restore (task);
}

static void
start_running_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  AgentsSandboxSessionState *state =
    agents_sandbox_session_peek_state (task_session (task));
  const char *version =
    agents_sandbox_session_state_get_snapshot_fingerprint_version (state);
  g_autoptr (GError) error = NULL;
  gboolean running;

  running = agents_sandbox_session_running_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  if (!running ||
      agents_sandbox_session_state_get_snapshot_fingerprint (state) == NULL ||
      g_strcmp0 (version, AGENTS_SNAPSHOT_FINGERPRINT_VERSION) != 0)
    {
      start_restore (task);
      return;
    }
  agents_snapshot_fingerprint_compute_async (task_session (task),
                                             g_task_get_cancellable (task),
                                             start_fingerprint_done, task);
}

/* As the reference decides: a restorable snapshot is restored unless the
 * workspace was kept, is running and still matches the fingerprint the
 * last stop recorded; without one, a kept workspace only gets its
 * ephemeral entries again, anything else the whole manifest. */
static void
start_restorable_done (GObject *source,
                       GAsyncResult *result,
                       gpointer user_data)
{
  GTask *task = user_data;
  Session *self = task_session (task);
  GError *error = NULL;
  gboolean restorable;

  restorable = agents_snapshot_restorable_finish (AGENTS_SNAPSHOT (source),
                                                  result, &error);
  if (error != NULL)
    start_complete (task, error);
  else if (restorable && start_root_reusable (self))
    agents_sandbox_session_running_async (self, g_task_get_cancellable (task),
                                          start_running_done, task);
  else if (restorable)
    start_restore (task);
  else
    start_apply (task, start_root_reusable (self));
}

static void
start_decide (GTask *task)
{
  AgentsSnapshot *snapshot = agents_sandbox_session_state_get_snapshot (
    agents_sandbox_session_peek_state (task_session (task)));

  agents_snapshot_restorable_with_dependencies_async (
    snapshot, agents_sandbox_session_get_dependencies (task_session (task)),
    g_task_get_cancellable (task), start_restorable_done, task);
}

static void
start_probe_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  g_autoptr (AgentsExecResult) exec_result = NULL;

  exec_result = agents_sandbox_session_exec_raw_finish (
    AGENTS_SANDBOX_SESSION (source), result, NULL);
  if (exec_result != NULL && agents_exec_result_ok (exec_result))
    agents_sandbox_session_state_set_workspace_root_ready (
      agents_sandbox_session_peek_state (task_session (task)), TRUE);
  start_decide (task);
}

#define ROOT_PROBE_TIMEOUT_S 10.0

void
agents_sandbox_session_real_start (Session *self, GTask *task)
{
  AgentsManifest *manifest = agents_sandbox_session_get_manifest (self);
  const char *argv[] = { "test", "-d", agents_manifest_get_root (manifest),
                         NULL };
  gboolean workspace_preserved = FALSE;

  g_object_ref (task);
  agents_sandbox_session_get_start_state_preserved (self, &workspace_preserved,
                                                    NULL);
  /* A kept workspace nothing recorded as ready is proven by its root. */
  if (workspace_preserved && !start_root_reusable (self))
    agents_sandbox_session_exec_raw_async (self, argv, ROOT_PROBE_TIMEOUT_S,
                                           g_task_get_cancellable (task),
                                           start_probe_done, task);
  else
    start_decide (task);
}

/* The key of the fingerprint a stop is about to record, on its task. */
#define FINGERPRINT_KEY "agents-snapshot-fingerprint"

static void
stop_cache_written (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  AgentsSandboxSessionState *state =
    agents_sandbox_session_peek_state (task_session (task));
  g_autoptr (GError) error = NULL;

  if (agents_snapshot_fingerprint_cache_write_finish (
        AGENTS_SANDBOX_SESSION (source), result, &error))
    agents_sandbox_session_state_set_snapshot_fingerprint (
      state, g_object_get_data (G_OBJECT (task), FINGERPRINT_KEY),
      AGENTS_SNAPSHOT_FINGERPRINT_VERSION);
  else
    {
      g_debug ("No snapshot fingerprint recorded: %s", error->message);
      agents_sandbox_session_state_set_snapshot_fingerprint (state, NULL, NULL);
    }
  g_task_return_boolean (task, TRUE);
}

/* Records the fingerprint of what was persisted, when the snapshot read
 * all of it; a start uses it to skip restoring a workspace that did not
 * change. */
static void
stop_record_fingerprint (GTask *task, GInputStream *counted)
{
  Session *self = task_session (task);
  g_autofree char *sha256 = agents_progress_input_stream_dup_sha256 (counted);
  char *fingerprint;

  if (sha256 == NULL)
    {
      agents_sandbox_session_state_set_snapshot_fingerprint (
        agents_sandbox_session_peek_state (self), NULL, NULL);
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }
  fingerprint = agents_snapshot_fingerprint_compose (self, sha256);
  g_object_set_data_full (G_OBJECT (task), FINGERPRINT_KEY, fingerprint,
                          g_free);
  agents_snapshot_fingerprint_cache_write_async (
    self, fingerprint, g_task_get_cancellable (task), stop_cache_written, task);
}

static gboolean
snapshot_is_noop (Session *self)
{
  return AGENTS_IS_NOOP_SNAPSHOT (agents_sandbox_session_state_get_snapshot (
    agents_sandbox_session_peek_state (self)));
}

static void
stop_persisted (GTask *task, GInputStream *counted)
{
  /* The archive is closed once, whatever the snapshot did with it. */
  g_input_stream_close (counted, NULL, NULL);
  report_progress_end (task);
  if (snapshot_is_noop (task_session (task)))
    {
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }
  stop_record_fingerprint (task, counted);
}

static void stop_drain_next (GTask *task, GInputStream *counted);

static void
stop_drained (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  GInputStream *counted = G_INPUT_STREAM (source);
  g_autoptr (GBytes) bytes =
    g_input_stream_read_bytes_finish (counted, result, NULL);

  if (bytes == NULL || g_bytes_get_size (bytes) == 0)
    stop_persisted (task, counted);
  else
    stop_drain_next (task, counted);
}

/* The snapshot need not read the archive to its end (a snapshot that
 * keeps nothing does not read it at all): the rest is read here, so that
 * the fingerprint covers the whole workspace. */
static void
stop_drain_next (GTask *task, GInputStream *counted)
{
  if (g_input_stream_is_closed (counted))
    {
      stop_persisted (task, counted);
      return;
    }
  g_input_stream_read_bytes_async (counted, 64 * 1024, G_PRIORITY_DEFAULT,
                                   g_task_get_cancellable (task), stop_drained,
                                   task);
}

static void
stop_persist_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  GInputStream *counted =
    g_object_get_data (G_OBJECT (task), PROGRESS_STREAM_KEY);
  GError *error = NULL;

  if (!agents_snapshot_persist_finish (AGENTS_SNAPSHOT (source), result,
                                       &error))
    {
      g_input_stream_close (counted, NULL, NULL);
      if (!snapshot_is_noop (task_session (task)))
        agents_snapshot_fingerprint_cache_delete (task_session (task));
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  if (snapshot_is_noop (task_session (task)))
    stop_persisted (task, counted);
  else
    stop_drain_next (task, counted);
}

static void
stop_archive_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Session *self = task_session (task);
  g_autoptr (GInputStream) stream = NULL;
  g_autoptr (GInputStream) counted = NULL;
  GError *error = NULL;

  stream =
    agents_sandbox_session_persist_workspace_finish (self, result, &error);
  if (stream == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  counted = agents_progress_input_stream_new (
    stream, self, "persist", agents_progress_stream_size (stream));
  if (!snapshot_is_noop (self))
    agents_progress_input_stream_hash (counted);
  watch_progress (task, counted);
  agents_snapshot_persist_with_dependencies_async (
    agents_sandbox_session_state_get_snapshot (
      agents_sandbox_session_peek_state (self)),
    counted, agents_sandbox_session_get_dependencies (self),
    g_task_get_cancellable (task), stop_persist_done, task);
}

void
agents_sandbox_session_real_stop (Session *self, GTask *task)
{
  /* The start failed to restore the snapshot, which stays as it was: the
   * workspace holds none of the session's work. */
  if (agents_sandbox_session_get_restore_pending (self))
    {
      g_debug ("Not persisting a workspace whose restore failed");
      g_task_return_boolean (task, TRUE);
      return;
    }
  agents_sandbox_session_persist_workspace_async (
    self, g_task_get_cancellable (task), stop_archive_done,
    g_object_ref (task));
}

/* ---- ls, mkdir, rm ---------------------------------------------------- */

typedef enum
{
  PATH_OP_LS,
  PATH_OP_MKDIR,
  PATH_OP_RM,
} PathOpKind;

typedef struct
{
  PathOpKind kind;
  gboolean flag; /* parents / recursive */
  char *path;    /* validated, absolute */
  char *given;
  char *leaf; /* rm: the last component, kept as given */
  gboolean plain_ls;
} PathOp;

/* For an `ls` without -q (BusyBox's): lists like `ls -la`, one entry at
 * a time, with the newlines of names printed as '?' as -q would, so that
 * a name cannot forge listing lines. */
#define PLAIN_LS_SCRIPT                                            \
  "q () { printf '%s' \"$1\" | tr '\\n' '?'; echo; }; "            \
  "if [ ! -d \"$1\" ] || [ -L \"$1\" ]; then "                     \
  "l=$(ls -ld -- \"$1\") || exit 2; q \"$l\"; exit 0; fi; "        \
  "cd -- \"$1\" || exit 2; echo 'total 0'; "                       \
  "for f in .* *; do [ -e \"$f\" ] || [ -L \"$f\" ] || continue; " \
  "l=$(ls -ld -- \"$f\") || exit 2; q \"$l\"; done"

/* Empties the root, which stays: removing it would change its parent,
 * outside the workspace (and it may be a mount point). */
#define EMPTY_ROOT_SCRIPT                                                    \
  "cd -- \"$1\" || exit 1; for f in * .[!.]* ..?*; do "                      \
  "[ -e \"$f\" ] || [ -L \"$f\" ] || continue; rm -rf -- \"$f\" || exit 1; " \
  "done"

static void
path_op_exec_done (GObject *source, GAsyncResult *result, gpointer user_data);

/* Whether @error is an `ls` that does not know -q. */
static gboolean
ls_lacks_q (const GError *error)
{
  g_autoptr (GVariant) context = NULL;
  const char *stderr_text = NULL;

  if (!g_error_matches (error, AGENTS_SANDBOX_ERROR,
                        AGENTS_SANDBOX_ERROR_EXEC_NONZERO))
    return FALSE;
  context = agents_sandbox_error_get_context (error);
  return g_variant_lookup (context, "stderr", "&s", &stderr_text) &&
         (strstr (stderr_text, "invalid option") != NULL ||
          strstr (stderr_text, "unrecognized option") != NULL ||
          strstr (stderr_text, "illegal option") != NULL);
}

static gboolean
retry_ls_without_q (GTask *task, GError *error)
{
  PathOp *op = g_task_get_task_data (task);
  const char *argv[] = { "sh", "-c", PLAIN_LS_SCRIPT, "sh", op->path, NULL };

  if (op->kind != PATH_OP_LS || op->plain_ls || !ls_lacks_q (error))
    return FALSE;
  op->plain_ls = TRUE;
  agents_sandbox_session_exec_checked_async (
    task_session (task), argv, g_task_get_cancellable (task), path_op_exec_done,
    g_object_ref (task));
  return TRUE;
}

static void
path_op_free (PathOp *op)
{
  g_free (op->path);
  g_free (op->given);
  g_free (op->leaf);
  g_free (op);
}

static void
path_op_exec_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  PathOp *op = g_task_get_task_data (task);
  g_autoptr (AgentsExecResult) exec_result = NULL;
  g_autoptr (GPtrArray) entries = NULL;
  g_autofree char *out = NULL;
  GListStore *store;
  GError *error = NULL;

  exec_result = agents_sandbox_session_exec_checked_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  if (exec_result == NULL && retry_ls_without_q (task, error))
    {
      g_error_free (error);
      return;
    }
  if (exec_result == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  if (op->kind != PATH_OP_LS)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }

  out = agents_exec_result_dup_stdout_text (exec_result);
  entries = agents_file_entry_parse_ls (out, op->path, &error);
  if (entries == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  store = g_list_store_new (AGENTS_TYPE_FILE_ENTRY);
  g_list_store_splice (store, 0, 0, entries->pdata, entries->len);
  g_task_return_pointer (task, store, g_object_unref);
}

static void
path_op_validated (GObject *source, GAsyncResult *result, gpointer user_data);

/* rm acts on a link itself, not on what it points to. Once the path as
 * given passed the check (as the reference checks it), its parent is
 * resolved too, and the last component put back as given. Returns
 * whether that second check was started. */
static gboolean
rm_check_parent (GTask *task, PathOp *op)
{
  Session *self = task_session (task);
  AgentsManifest *manifest = agents_sandbox_session_get_manifest (self);
  g_autofree char *abs =
    agents_manifest_resolve_path (manifest, op->given, NULL);
  g_autofree char *parent = NULL;

  if (abs == NULL || g_str_equal (abs, agents_manifest_get_root (manifest)) ||
      g_str_equal (abs, "/"))
    return FALSE;
  op->leaf = g_path_get_basename (abs);
  parent = g_path_get_dirname (abs);
  g_clear_pointer (&op->path, g_free);
  agents_sandbox_session_validate_path_access_async (
    self, parent, TRUE, g_task_get_cancellable (task), path_op_validated, task);
  return TRUE;
}

static void
path_op_validated (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  PathOp *op = g_task_get_task_data (task);
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  GError *error = NULL;

  op->path = agents_sandbox_session_validate_path_access_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  if (op->path == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  if (op->kind == PATH_OP_RM && op->leaf == NULL && rm_check_parent (task, op))
    return;
  if (op->leaf != NULL)
    {
      char *full = g_build_filename (op->path, op->leaf, NULL);

      g_free (op->path);
      op->path = full;
    }

  if (op->kind == PATH_OP_RM && op->flag &&
      g_str_equal (
        op->path, agents_manifest_get_root (
                    agents_sandbox_session_get_manifest (task_session (task)))))
    {
      const char *empty_root[] = { "sh", "-c",     EMPTY_ROOT_SCRIPT,
                                   "sh", op->path, NULL };

      agents_sandbox_session_exec_checked_async (
        task_session (task), empty_root, g_task_get_cancellable (task),
        path_op_exec_done, task);
      return;
    }

  switch (op->kind)
    {
    case PATH_OP_LS:
      g_ptr_array_add (argv, "ls");
      /* -q (POSIX): non-printable characters in names print as '?', so
       * a name holding a newline cannot forge listing lines. */
      g_ptr_array_add (argv, "-laq");
      break;
    case PATH_OP_MKDIR:
      g_ptr_array_add (argv, "mkdir");
      if (op->flag)
        g_ptr_array_add (argv, "-p");
      break;
    case PATH_OP_RM:
      g_ptr_array_add (argv, "rm");
      if (op->flag)
        g_ptr_array_add (argv, "-rf");
      break;
    }
  g_ptr_array_add (argv, "--");
  g_ptr_array_add (argv, op->path);
  g_ptr_array_add (argv, NULL);

  agents_sandbox_session_exec_checked_async (
    task_session (task), (const char *const *) argv->pdata,
    g_task_get_cancellable (task), path_op_exec_done, task);
}

static void
run_path_op (
  Session *self, GTask *task, PathOpKind kind, const char *path, gboolean flag)
{
  PathOp *op = g_new0 (PathOp, 1);

  op->kind = kind;
  op->flag = flag;
  op->given = g_strdup (path);
  g_task_set_task_data (task, op, (GDestroyNotify) path_op_free);
  agents_sandbox_session_validate_path_access_async (
    self, path, kind != PATH_OP_LS, g_task_get_cancellable (task),
    path_op_validated, g_object_ref (task));
}

void
agents_sandbox_session_real_ls (Session *self, const char *path, GTask *task)
{
  run_path_op (self, task, PATH_OP_LS, path, FALSE);
}

void
agents_sandbox_session_real_mkdir (Session *self,
                                   const char *path,
                                   gboolean parents,
                                   GTask *task)
{
  run_path_op (self, task, PATH_OP_MKDIR, path, parents);
}

void
agents_sandbox_session_real_rm (Session *self,
                                const char *path,
                                gboolean recursive,
                                GTask *task)
{
  run_path_op (self, task, PATH_OP_RM, path, recursive);
}

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
      g_task_return_error (task, error);
      g_object_unref (task);
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

/* ---- clear_workspace_root_on_resume ----------------------------------- */

/**
 * agents_manifest_get_mount_paths:
 * @self: a manifest
 *
 * Gets the absolute paths of the manifest's mounts: the logical path of
 * each mount entry and, when it has one, its mount path. Workspace
 * archives leave these out and clearing a workspace on resume keeps them.
 *
 * Returns: (transfer container) (element-type filename): the paths
 */
GPtrArray *
agents_manifest_get_mount_paths (AgentsManifest *manifest)
{
  GPtrArray *skip = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) mounts = agents_manifest_list_mounts (manifest);
  const char *root = agents_manifest_get_root (manifest);

  for (guint i = 0; i < mounts->len; i++)
    {
      AgentsEntryTarget *target = g_ptr_array_index (mounts, i);
      const char *mount_path =
        agents_mount_get_mount_path (AGENTS_MOUNT (target->entry));

      g_ptr_array_add (skip, g_canonicalize_filename (target->path, "/"));
      if (mount_path != NULL)
        g_ptr_array_add (skip, g_canonicalize_filename (mount_path, root));
    }
  return skip;
}

typedef struct
{
  GPtrArray *skip;   /* absolute paths */
  GPtrArray *frames; /* stack of ClearFrame */
} ClearOp;

typedef struct
{
  GListModel *entries;
  guint next;
} ClearFrame;

static void
clear_frame_free (ClearFrame *frame)
{
  g_object_unref (frame->entries);
  g_free (frame);
}

static void
clear_op_free (ClearOp *op)
{
  g_ptr_array_unref (op->skip);
  g_ptr_array_unref (op->frames);
  g_free (op);
}

static gboolean
path_in (GPtrArray *paths, const char *path)
{
  for (guint i = 0; i < paths->len; i++)
    if (g_strcmp0 (g_ptr_array_index (paths, i), path) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
path_is_ancestor_of_any (const char *path, GPtrArray *paths)
{
  g_autofree char *prefix = g_str_has_suffix (path, "/")
                              ? g_strdup (path)
                              : g_strconcat (path, "/", NULL);

  for (guint i = 0; i < paths->len; i++)
    if (g_str_has_prefix (g_ptr_array_index (paths, i), prefix))
      return TRUE;
  return FALSE;
}

static void clear_next (GTask *task);

static void
clear_step_done (GTask *task, GError *error)
{
  if (error != NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  clear_next (task);
}

static void
clear_rm_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GError *error = NULL;

  agents_sandbox_session_rm_finish (AGENTS_SANDBOX_SESSION (source), result,
                                    &error);
  clear_step_done (user_data, error);
}

static void
clear_ls_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  ClearOp *op = g_task_get_task_data (task);
  GListModel *entries;
  ClearFrame *frame;
  GError *error = NULL;

  entries = agents_sandbox_session_ls_finish (AGENTS_SANDBOX_SESSION (source),
                                              result, &error);
  if (entries == NULL)
    {
      clear_step_done (task, error);
      return;
    }
  frame = g_new0 (ClearFrame, 1);
  frame->entries = entries;
  g_ptr_array_add (op->frames, frame);
  clear_next (task);
}

static void
clear_next (GTask *task)
{
  ClearOp *op = g_task_get_task_data (task);
  ClearFrame *frame;
  g_autoptr (AgentsFileEntry) entry = NULL;
  g_autofree char *path = NULL;

  while (op->frames->len > 0)
    {
      frame = g_ptr_array_index (op->frames, op->frames->len - 1);
      if (frame->next < g_list_model_get_n_items (frame->entries))
        break;
      g_ptr_array_remove_index (op->frames, op->frames->len - 1);
    }
  if (op->frames->len == 0)
    {
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }

  entry = g_list_model_get_item (frame->entries, frame->next++);
  path = g_canonicalize_filename (agents_file_entry_get_path (entry), "/");
  if (path_in (op->skip, path))
    {
      clear_next (task);
      return;
    }
  if (agents_file_entry_is_dir (entry) &&
      path_is_ancestor_of_any (path, op->skip))
    agents_sandbox_session_ls_async (task_session (task), path,
                                     g_task_get_cancellable (task),
                                     clear_ls_done, task);
  else
    agents_sandbox_session_rm_async (task_session (task), path, TRUE,
                                     g_task_get_cancellable (task),
                                     clear_rm_done, task);
}

void
agents_sandbox_session_real_clear_workspace_root_on_resume (Session *self,
                                                            GTask *task)
{
  AgentsManifest *manifest = agents_sandbox_session_get_manifest (self);
  g_autofree char *root =
    g_canonicalize_filename (agents_manifest_get_root (manifest), "/");
  ClearOp *op = g_new0 (ClearOp, 1);

  op->skip = agents_manifest_get_mount_paths (manifest);
  op->frames =
    g_ptr_array_new_with_free_func ((GDestroyNotify) clear_frame_free);
  g_task_set_task_data (task, op, (GDestroyNotify) clear_op_free);

  if (path_in (op->skip, root))
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  agents_sandbox_session_ls_async (self, root, g_task_get_cancellable (task),
                                   clear_ls_done, g_object_ref (task));
}

/* ---- extract ---------------------------------------------------------- */

/*
 * The generic extract works for any backend: the archive is spooled to a
 * host temp file, validated and extracted into a host temp directory (all
 * the archive rules and limits apply there), and the result is then
 * recreated in the workspace through the session's own primitives, so the
 * backend's path confinement applies to every file as well.
 */

typedef enum
{
  ITEM_DIR,
  ITEM_FILE,
  ITEM_SYMLINK,
} ItemKind;

typedef struct
{
  ItemKind kind;
  char *rel;
  char *target; /* symlinks */
} ExtractItem;

typedef struct
{
  char *abs; /* where the archive goes */
  GInputStream *data;
  AgentsCompressionScheme scheme;
  AgentsArchiveLimits *limits;
  char *spool; /* host temp file */
  char *tree;  /* host temp dir */
  GPtrArray *items;
  guint next;
} ExtractOp;

static void
extract_item_free (ExtractItem *item)
{
  g_free (item->rel);
  g_free (item->target);
  g_free (item);
}

static void
extract_op_free (ExtractOp *op)
{
  if (op->spool != NULL)
    g_unlink (op->spool);
  if (op->tree != NULL)
    agents_fs_rm_rf_in_background (op->tree);
  g_free (op->abs);
  g_clear_object (&op->data);
  g_clear_pointer (&op->limits, agents_archive_limits_free);
  g_free (op->spool);
  g_free (op->tree);
  g_clear_pointer (&op->items, g_ptr_array_unref);
  g_free (op);
}

/* The reference's texts for the extractor's reason codes. */
static char *
archive_reason_text (const char *code, const char *detail)
{
  static const struct
  {
    const char *code;
    const char *text;
  } texts[] = {
    { "empty_name", "empty path" },
    { "absolute_path", "absolute path" },
    { "parent_reference", "parent traversal" },
    { "windows_drive_path", "windows drive path" },
    { "windows_path_separator", "windows path separator" },
    { "name_too_long", "path too long" },
    { "link_member", "link member not allowed" },
    { "special_file", "special file member not allowed" },
    { "invalid_root_member", "invalid archive root member" },
    { "symlink_escape", "path escapes root after resolution" },
    { "duplicate_path", "duplicate archive path: " },
    { "parent_not_directory", "parent path is not a directory: " },
    { "destination_is_directory", "destination directory already exists: " },
    { "max_members", "archive member count exceeds limit" },
    { "max_input_bytes", "archive input size exceeds limit" },
    { "max_extracted_bytes", "archive extracted size exceeds limit" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    if (g_strcmp0 (code, texts[i].code) == 0)
      return g_str_has_suffix (texts[i].text, ": ")
               ? g_strconcat (texts[i].text, detail ? detail : "", NULL)
               : g_strdup (texts[i].text);
  return g_strdup (code);
}

static void
ctx_copy (GVariantBuilder *ctx, GVariant *from, const char *key, const char *as)
{
  g_autoptr (GVariant) value = g_variant_lookup_value (from, key, NULL);

  if (value != NULL)
    g_variant_builder_add (ctx, "{sv}", as, value);
}

/* An unsafe member or an archive over a limit, as the reference reports
 * them: a WORKSPACE_ARCHIVE_WRITE for the archive's path, with the member,
 * the reason's text (and its code), and for a limit the limit and the
 * amount reached. Other errors pass unchanged. */
static void
archive_error_to_write_error (GError **error, const char *archive_path)
{
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  g_autoptr (GVariant) from = NULL;
  g_autofree char *reason = NULL;
  g_autofree char *display = NULL;
  const char *code = NULL;
  const char *detail = NULL;
  gboolean limit;

  if (!g_error_matches (*error, AGENTS_SANDBOX_ERROR,
                        AGENTS_SANDBOX_ERROR_UNSAFE_ARCHIVE_MEMBER) &&
      !g_error_matches (*error, AGENTS_SANDBOX_ERROR,
                        AGENTS_SANDBOX_ERROR_ARCHIVE_LIMIT))
    return;
  limit = (*error)->code == AGENTS_SANDBOX_ERROR_ARCHIVE_LIMIT;
  from = agents_sandbox_error_get_context (*error);
  g_variant_lookup (from, limit ? "limit" : "reason", "&s", &code);
  g_variant_lookup (from, "detail", "&s", &detail);
  reason = archive_reason_text (code, detail);
  display = g_utf8_make_valid (archive_path, -1);

  g_variant_builder_add (&ctx, "{sv}", "path", g_variant_new_string (display));
  ctx_copy (&ctx, from, "member", "member");
  g_variant_builder_add (&ctx, "{sv}", "reason", g_variant_new_string (reason));
  g_variant_builder_add (&ctx, "{sv}", "code",
                         g_variant_new_string (code ? code : ""));
  if (limit)
    {
      ctx_copy (&ctx, from, "value", "limit");
      ctx_copy (&ctx, from, "actual", "actual");
    }
  g_clear_error (error);
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE,
                            g_variant_builder_end (&ctx),
                            _ ("failed to write archive for path: %s"),
                            display);
}

static gboolean
spool_archive (ExtractOp *op, GCancellable *cancellable, GError **error)
{
  g_autoptr (GFileIOStream) io = NULL;
  g_autoptr (GFile) file =
    g_file_new_tmp ("agents-extract-XXXXXX.archive", &io, error);
  GOutputStream *out;
  char buffer[64 * 1024];
  gint64 total = 0;
  gssize n;

  if (file == NULL)
    return FALSE;
  op->spool = g_file_get_path (file);
  out = g_io_stream_get_output_stream (G_IO_STREAM (io));

  while ((n = g_input_stream_read (op->data, buffer, sizeof buffer, cancellable,
                                   error)) > 0)
    {
      total += n;
      if (total > op->limits->max_input_bytes)
        return agents_archive_set_limit_error_full (
          error, "max_input_bytes", op->limits->max_input_bytes, NULL, total);
      if (!g_output_stream_write_all (out, buffer, n, NULL, cancellable, error))
        return FALSE;
    }
  if (n < 0)
    return FALSE;
  return g_io_stream_close (G_IO_STREAM (io), cancellable, error);
}

static gboolean
collect_items (GPtrArray *items,
               const char *tree,
               const char *rel,
               GError **error)
{
  g_autofree char *dir_path =
    rel ? g_build_filename (tree, rel, NULL) : g_strdup (tree);
  g_autoptr (GDir) dir = g_dir_open (dir_path, 0, error);
  const char *name;

  if (dir == NULL)
    return FALSE;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child_rel =
        rel ? g_build_filename (rel, name, NULL) : g_strdup (name);
      g_autofree char *child = g_build_filename (tree, child_rel, NULL);
      ExtractItem *item = g_new0 (ExtractItem, 1);
      GStatBuf st;

      if (g_lstat (child, &st) != 0)
        {
          extract_item_free (item);
          continue;
        }
      item->rel = g_strdup (child_rel);
      if (S_ISLNK (st.st_mode))
        {
          item->kind = ITEM_SYMLINK;
          item->target = g_file_read_link (child, NULL);
        }
      else if (S_ISDIR (st.st_mode))
        item->kind = ITEM_DIR;
      else
        item->kind = ITEM_FILE;
      g_ptr_array_add (items, item);

      if (item->kind == ITEM_DIR &&
          !collect_items (items, tree, child_rel, error))
        return FALSE;
    }
  return TRUE;
}

static void
extract_prepare_thread (GTask *task,
                        gpointer source,
                        gpointer task_data,
                        GCancellable *cancellable)
{
  ExtractOp *op = task_data;
  g_autoptr (GFile) spool = NULL;
  g_autoptr (GFileInputStream) in = NULL;
  GError *error = NULL;

  if (!agents_archive_limits_validate (op->limits, &error))
    goto out;
  if (!spool_archive (op, cancellable, &error))
    {
      archive_error_to_write_error (&error, op->abs);
      goto out;
    }

  op->tree = g_dir_make_tmp ("agents-extract-XXXXXX", &error);
  if (op->tree == NULL)
    goto out;

  spool = g_file_new_for_path (op->spool);
  in = g_file_read (spool, cancellable, &error);
  /* Errors name the archive the caller gave, not our temp directory. */
  if (in == NULL || !agents_archive_extract_user (
                      G_INPUT_STREAM (in), op->abs, op->tree, op->scheme,
                      op->limits, cancellable, &error))
    {
      archive_error_to_write_error (&error, op->abs);
      goto out;
    }

  op->items =
    g_ptr_array_new_with_free_func ((GDestroyNotify) extract_item_free);
  collect_items (op->items, op->tree, NULL, &error);

out:
  return_error_or_true (task, error);
}

static void extract_next_item (GTask *task);

/* The first member at or beneath the item at @index that is not a
 * directory: the one the reference names (items are depth first). */
static const char *
item_member (ExtractOp *op, guint index)
{
  ExtractItem *item = g_ptr_array_index (op->items, index);
  g_autofree char *prefix = g_strconcat (item->rel, "/", NULL);

  for (guint i = index + 1; i < op->items->len; i++)
    {
      ExtractItem *next = g_ptr_array_index (op->items, i);

      if (!g_str_has_prefix (next->rel, prefix))
        break;
      if (next->kind != ITEM_DIR)
        return next->rel;
    }
  return item->rel;
}

/* A member the workspace refuses to take (a symlink in the workspace on
 * its way leads out of it), as the reference reports it: a
 * WORKSPACE_ARCHIVE_WRITE for the archive's path, with the member and
 * the reason. */
static void
item_error_to_write_error (ExtractOp *op, GError **error)
{
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  ExtractItem *item;
  g_autofree char *reason = NULL;
  g_autofree char *display = NULL;

  if (!g_error_matches (*error, AGENTS_SANDBOX_ERROR,
                        AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH) ||
      op->next == 0)
    return;
  item = g_ptr_array_index (op->items, op->next - 1);
  /* Directories come before what is in them: one that leads out is a
   * symlink on the way of the members beneath it. */
  reason = item->kind == ITEM_DIR
             ? g_strconcat ("symlink in parent path: ", item->rel, NULL)
             : g_strdup ("path escapes root after resolution");
  display = g_utf8_make_valid (op->abs, -1);
  g_variant_builder_add (&ctx, "{sv}", "path", g_variant_new_string (display));
  g_variant_builder_add (&ctx, "{sv}", "member",
                         g_variant_new_string (item_member (op, op->next - 1)));
  g_variant_builder_add (&ctx, "{sv}", "reason", g_variant_new_string (reason));
  g_variant_builder_add (&ctx, "{sv}", "code",
                         g_variant_new_string ("symlink_escape"));
  g_clear_error (error);
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE,
                            g_variant_builder_end (&ctx),
                            _ ("failed to write archive for path: %s"),
                            display);
}

static void
extract_item_written (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  GError *error = NULL;

  if (g_task_get_source_tag (G_TASK (result)) ==
      agents_sandbox_session_exec_checked_async)
    {
      g_autoptr (AgentsExecResult) r =
        agents_sandbox_session_exec_checked_finish (
          AGENTS_SANDBOX_SESSION (source), result, &error);
    }
  else if (g_task_get_source_tag (G_TASK (result)) ==
           agents_sandbox_session_mkdir_async)
    agents_sandbox_session_mkdir_finish (AGENTS_SANDBOX_SESSION (source),
                                         result, &error);
  else
    agents_sandbox_session_write_finish (AGENTS_SANDBOX_SESSION (source),
                                         result, &error);

  if (error != NULL)
    {
      item_error_to_write_error (g_task_get_task_data (task), &error);
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  extract_next_item (task);
}

static void
extract_next_item (GTask *task)
{
  Session *self = task_session (task);
  ExtractOp *op = g_task_get_task_data (task);
  g_autofree char *dest_dir = g_path_get_dirname (op->abs);
  g_autofree char *dest = NULL;
  ExtractItem *item;

  if (op->next >= op->items->len)
    {
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }
  item = g_ptr_array_index (op->items, op->next++);
  dest = g_build_filename (dest_dir, item->rel, NULL);

  switch (item->kind)
    {
    case ITEM_DIR:
      agents_sandbox_session_mkdir_async (self, dest, TRUE,
                                          g_task_get_cancellable (task),
                                          extract_item_written, task);
      break;
    case ITEM_SYMLINK:
      {
        const char *argv[] = { "ln", "-sfn", "--", item->target, dest, NULL };

        agents_sandbox_session_exec_checked_async (
          self, argv, g_task_get_cancellable (task), extract_item_written,
          task);
      }
      break;
    case ITEM_FILE:
      {
        g_autofree char *src = g_build_filename (op->tree, item->rel, NULL);
        g_autoptr (GFile) file = g_file_new_for_path (src);
        g_autoptr (GFileInputStream) in = g_file_read (file, NULL, NULL);

        if (in == NULL)
          {
            extract_next_item (task);
            return;
          }
        agents_sandbox_session_write_async (self, dest, G_INPUT_STREAM (in),
                                            NULL, g_task_get_cancellable (task),
                                            extract_item_written, task);
      }
      break;
    }
}

static void
extract_archive_written (GObject *source,
                         GAsyncResult *result,
                         gpointer user_data)
{
  GTask *task = user_data;
  GError *error = NULL;

  if (!agents_sandbox_session_write_finish (AGENTS_SANDBOX_SESSION (source),
                                            result, &error))
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  extract_next_item (task);
}

static void
extract_prepared (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  ExtractOp *op = g_task_get_task_data (task);
  g_autoptr (GFile) spool = NULL;
  g_autoptr (GFileInputStream) in = NULL;
  GError *error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  spool = g_file_new_for_path (op->spool);
  in = g_file_read (spool, NULL, &error);
  if (in == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  agents_sandbox_session_write_async (
    task_session (task), op->abs, G_INPUT_STREAM (in), NULL,
    g_task_get_cancellable (task), extract_archive_written, task);
}

static void
extract_validated (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  ExtractOp *op = g_task_get_task_data (task);
  g_autoptr (GTask) prepare = NULL;
  GError *error = NULL;

  op->abs = agents_sandbox_session_validate_path_access_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  if (op->abs == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  prepare =
    g_task_new (source, g_task_get_cancellable (task), extract_prepared, task);
  g_task_set_task_data (prepare, op, NULL);
  g_task_run_in_thread (prepare, extract_prepare_thread);
}

void
agents_sandbox_session_real_extract (Session *self,
                                     const char *path,
                                     GInputStream *data,
                                     AgentsCompressionScheme scheme,
                                     GTask *task)
{
  const AgentsArchiveLimits *limits =
    g_object_get_data (G_OBJECT (task), AGENTS_EXTRACT_LIMITS_KEY);
  ExtractOp *op = g_new0 (ExtractOp, 1);

  if (limits == NULL)
    limits = agents_sandbox_session_get_archive_limits (self);

  op->data = g_object_ref (data);
  op->scheme = scheme;
  op->limits =
    limits ? agents_archive_limits_copy (limits) : agents_archive_limits_new ();
  g_task_set_task_data (task, op, (GDestroyNotify) extract_op_free);

  agents_sandbox_session_validate_path_access_async (
    self, path, TRUE, g_task_get_cancellable (task), extract_validated,
    g_object_ref (task));
}
