/* agents-sandbox-session-generic.c - session operations over the primitives:
 * running commands, accounts, apply_manifest, apply_entry_batch
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

/* Exit status of useradd/groupadd when the account already exists. */
#define ACCOUNT_EXISTS_STATUS 9

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
      fail_task (task, error);
      return;
    }

  status = agents_exec_result_get_exit_code (exec_result);
  if (status != 0 && !(seq->tolerate_exists && status == ACCOUNT_EXISTS_STATUS))
    {
      agents_sandbox_error_set_exec_nonzero (
        &error, argv, status, agents_exec_result_get_stdout (exec_result),
        agents_exec_result_get_stderr (exec_result));
      fail_task (task, error);
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

void
agents_sandbox_session_provision_accounts_async (Session *self,
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
      fail_task (task, error);
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
      fail_task (task, error);
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
      fail_task (task, error);
      return;
    }
  if (op->only_ephemeral)
    apply_next_batch (task);
  else
    agents_sandbox_session_provision_accounts_async (
      task_session (task), g_task_get_cancellable (task), apply_accounts_done,
      task);
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
