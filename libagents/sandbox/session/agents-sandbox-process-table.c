/* agents-sandbox-process-table.c - a session's running processes
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The reference's PTY process table (wave2-reference §1.4), written over
 * the session's start_process primitive: processes are registered under a
 * random id, at most 64 at a time (the least recently used one is killed
 * to make room, never one of the 8 most recently used), their output is
 * collected until a yield deadline, token-truncated, and an exited
 * process leaves the table when its last output is returned.
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "agents-pty-rules-private.h"
#include "agents-sandbox-error.h"
#include "agents-sandbox-process-private.h"
#include "agents-sandbox-process-table-private.h"
#include "agents-token-truncation-private.h"

/* ---- the update ---------------------------------------------------- */

struct _AgentsPtyExecUpdate
{
  gatomicrefcount ref;
  gint64 process_id;
  GBytes *output;
  int exit_code;
  gint64 original_token_count;
};

/**
 * AgentsPtyExecUpdate:
 *
 * What one call to a process of the session's process table returns:
 * the output since the last call, and either the exit code (the process
 * is gone from the table) or the id to reach it again.
 */
G_DEFINE_BOXED_TYPE (AgentsPtyExecUpdate,
                     agents_pty_exec_update,
                     agents_pty_exec_update_ref,
                     agents_pty_exec_update_unref)

static AgentsPtyExecUpdate *
update_new (gint64 process_id,
            GBytes *output,
            int exit_code,
            gint64 original_token_count)
{
  AgentsPtyExecUpdate *self = g_new0 (AgentsPtyExecUpdate, 1);

  g_atomic_ref_count_init (&self->ref);
  self->process_id = process_id;
  self->output = g_bytes_ref (output);
  self->exit_code = exit_code;
  self->original_token_count = original_token_count;
  return self;
}

/**
 * agents_pty_exec_update_ref:
 * @self: an update
 *
 * Takes a reference.
 *
 * Returns: (transfer full): @self
 */
AgentsPtyExecUpdate *
agents_pty_exec_update_ref (AgentsPtyExecUpdate *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref);
  return self;
}

/**
 * agents_pty_exec_update_unref:
 * @self: an update
 *
 * Drops a reference.
 */
void
agents_pty_exec_update_unref (AgentsPtyExecUpdate *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref))
    return;
  g_bytes_unref (self->output);
  g_free (self);
}

/**
 * agents_pty_exec_update_get_process_id:
 * @self: an update
 *
 * Gets the id under which the process still runs.
 *
 * Returns: the process id for agents_sandbox_session_pty_write_stdin_async(),
 *   or -1 when the process exited
 */
gint64
agents_pty_exec_update_get_process_id (AgentsPtyExecUpdate *self)
{
  g_return_val_if_fail (self != NULL, -1);

  return self->process_id;
}

/**
 * agents_pty_exec_update_get_output:
 * @self: an update
 *
 * Gets what the process printed since the last call, as valid UTF-8,
 * truncated to the token budget.
 *
 * Returns: (transfer none): the output
 */
GBytes *
agents_pty_exec_update_get_output (AgentsPtyExecUpdate *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->output;
}

/**
 * agents_pty_exec_update_get_exit_code:
 * @self: an update
 *
 * Gets the exit status of the process (128 plus the signal when a signal
 * killed it).
 *
 * Returns: the exit status, or -1 while the process runs
 */
int
agents_pty_exec_update_get_exit_code (AgentsPtyExecUpdate *self)
{
  g_return_val_if_fail (self != NULL, -1);

  return self->exit_code;
}

/**
 * agents_pty_exec_update_get_original_token_count:
 * @self: an update
 *
 * Gets the estimated token count of the whole output when it was
 * truncated.
 *
 * Returns: the original token count, or -1 when nothing was cut
 */
gint64
agents_pty_exec_update_get_original_token_count (AgentsPtyExecUpdate *self)
{
  g_return_val_if_fail (self != NULL, -1);

  return self->original_token_count;
}

/* ---- the table ----------------------------------------------------- */

typedef struct
{
  guint id;
  AgentsSandboxProcess *process;
  gint64 last_used;
} Entry;

typedef struct
{
  GHashTable *entries; /* id → Entry */
  gint64 clock;
} Table;

static GQuark table_quark;
static const gint64 *test_ids;

static void
entry_free (Entry *entry)
{
  agents_sandbox_process_terminate (entry->process);
  g_object_unref (entry->process);
  g_free (entry);
}

static void
table_free (Table *table)
{
  g_hash_table_unref (table->entries);
  g_free (table);
}

static Table *
get_table (AgentsSandboxSession *self)
{
  Table *table = g_object_get_qdata (G_OBJECT (self), table_quark);

  if (table == NULL)
    {
      table = g_new0 (Table, 1);
      table->entries =
        g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) entry_free);
      g_object_set_qdata_full (G_OBJECT (self), table_quark, table,
                               (GDestroyNotify) table_free);
    }
  return table;
}

void
agents_sandbox_session_pty_set_test_ids (const gint64 *ids)
{
  test_ids = ids;
}

static guint
allocate_id (Table *table)
{
  if (test_ids != NULL && *test_ids >= 0)
    return (guint) *test_ids++;
  return agents_pty_allocate_process_id (table->entries);
}

static void
prune (Table *table)
{
  g_autoptr (GArray) meta =
    g_array_new (FALSE, FALSE, sizeof (AgentsPtyProcessMeta));
  GHashTableIter iter;
  Entry *entry;
  guint victim;

  g_hash_table_iter_init (&iter, table->entries);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &entry))
    {
      AgentsPtyProcessMeta m = { entry->id, entry->last_used,
                                 agents_sandbox_process_has_exited (
                                   entry->process) };

      g_array_append_val (meta, m);
    }
  victim = agents_pty_process_to_prune ((AgentsPtyProcessMeta *) meta->data,
                                        meta->len);
  if (victim != 0)
    g_hash_table_remove (table->entries, GUINT_TO_POINTER (victim));
}

static Entry *
table_register (AgentsSandboxSession *self, AgentsSandboxProcess *process)
{
  Table *table = get_table (self);
  Entry *entry = g_new0 (Entry, 1);
  guint n;

  if (g_hash_table_size (table->entries) >= AGENTS_PTY_PROCESSES_MAX)
    prune (table);
  entry->id = allocate_id (table);
  entry->process = g_object_ref (process);
  entry->last_used = ++table->clock;
  g_hash_table_insert (table->entries, GUINT_TO_POINTER (entry->id), entry);
  n = g_hash_table_size (table->entries);
  if (n >= AGENTS_PTY_PROCESSES_WARNING)
    g_info ("PTY process count reached warning threshold: %u active sessions",
            n);
  return entry;
}

/* ---- the vfunc defaults -------------------------------------------- */

static void
default_start_process (AgentsSandboxSession *self,
                       const char *const *argv,
                       gboolean tty,
                       GTask *task)
{
  g_task_return_new_error (
    task, AGENTS_SANDBOX_ERROR, AGENTS_SANDBOX_ERROR_NOT_SUPPORTED,
    _ ("%s does not support %s"), G_OBJECT_TYPE_NAME (self), "start_process");
}

static gboolean
default_supports_pty (AgentsSandboxSession *self)
{
  return AGENTS_SANDBOX_SESSION_GET_IFACE (self)->start_process !=
         default_start_process;
}

void
agents_sandbox_session_process_iface_init (AgentsSandboxSessionInterface *iface)
{
  table_quark = g_quark_from_static_string ("agents-sandbox-process-table");
  iface->supports_pty = default_supports_pty;
  iface->start_process = default_start_process;
}

/**
 * agents_sandbox_session_supports_pty:
 * @self: a session
 *
 * Gets whether the session can start processes that run on between calls
 * (agents_sandbox_session_start_process_async()); the shell capability
 * offers `write_stdin` only then.
 *
 * Returns: whether the backend has the process primitives
 */
gboolean
agents_sandbox_session_supports_pty (AgentsSandboxSession *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION (self), FALSE);

  return AGENTS_SANDBOX_SESSION_GET_IFACE (self)->supports_pty (self);
}

/**
 * agents_sandbox_session_start_process_async:
 * @self: a session
 * @command: (array zero-terminated=1): the command
 * @shell: whether to run @command through `sh -c`
 * @tty: whether to run it on a new PTY
 * @user: (nullable): the user to run as
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the process started
 * @user_data: data for @callback
 *
 * Starts a command that runs on in the background, wrapped as
 * agents_sandbox_session_build_command() says. The process is not in
 * the session's process table: the caller owns it, and terminates it.
 * Failing to start it is an %AGENTS_SANDBOX_ERROR_EXEC_TRANSPORT error.
 */
void
agents_sandbox_session_start_process_async (AgentsSandboxSession *self,
                                            const char *const *command,
                                            gboolean shell,
                                            gboolean tty,
                                            const char *user,
                                            GCancellable *cancellable,
                                            GAsyncReadyCallback callback,
                                            gpointer user_data)
{
  g_autoptr (GTask) task = NULL;
  g_auto (GStrv) argv = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));
  g_return_if_fail (command != NULL && command[0] != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_sandbox_session_start_process_async);
  argv = agents_sandbox_session_build_command (self, command, shell, user);
  AGENTS_SANDBOX_SESSION_GET_IFACE (self)->start_process (
    self, (const char *const *) argv, tty, task);
}

/**
 * agents_sandbox_session_start_process_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_start_process_async().
 *
 * Returns: (transfer full): the running process
 */
AgentsSandboxProcess *
agents_sandbox_session_start_process_finish (AgentsSandboxSession *self,
                                             GAsyncResult *result,
                                             GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- collecting ---------------------------------------------------- */

typedef struct
{
  guint id;
  AgentsSandboxProcess *process;
  gint64 max_output_tokens;
  guint yield_ms;
  GBytes *input;
} Call;

static void
call_free (Call *call)
{
  g_clear_object (&call->process);
  g_clear_pointer (&call->input, g_bytes_unref);
  g_free (call);
}

/* The output as the model reads it: token-truncated as it asked, and
 * never more than the byte backstop. */
static GBytes *
truncate_output (GBytes *raw,
                 guint64 gap,
                 guint64 gap_lines,
                 gint64 max_tokens,
                 gint64 *original)
{
  gsize length;
  const char *data = g_bytes_get_data (raw, &length);
  const gint64 backstop =
    AGENTS_EXEC_COMMAND_MAX_OUTPUT_BYTES / AGENTS_APPROX_BYTES_PER_TOKEN;
  char *text;

  if (max_tokens < 0 || max_tokens > backstop)
    max_tokens = backstop;
  text = agents_truncate_gapped_to_tokens (data ? data : "", length, gap,
                                           gap_lines, max_tokens, original);
  return g_bytes_new_take (text, strlen (text));
}

static void
collected (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  AgentsSandboxSession *self = g_task_get_source_object (task);
  Call *call = g_task_get_task_data (task);
  AgentsSandboxProcess *process = call->process;
  g_autoptr (GBytes) raw = NULL;
  g_autoptr (GBytes) output = NULL;
  guint64 gap = 0, gap_lines = 0;
  gint64 original = -1;
  gboolean exited = agents_sandbox_process_has_exited (process);
  int status = agents_sandbox_process_get_exit_status (process);

  /* Not collect_finish(): that takes the output without the counts. */
  g_task_propagate_boolean (G_TASK (result), NULL);
  raw = agents_sandbox_process_steal_output (process, &gap, &gap_lines);
  output =
    truncate_output (raw, gap, gap_lines, call->max_output_tokens, &original);
  if (exited)
    {
      Table *table = get_table (self);

      g_hash_table_remove (table->entries, GUINT_TO_POINTER (call->id));
    }
  g_task_return_pointer (task,
                         update_new (exited ? -1 : (gint64) call->id, output,
                                     exited ? status : -1, original),
                         (GDestroyNotify) agents_pty_exec_update_unref);
}

static void
collect (GTask *task)
{
  Call *call = g_task_get_task_data (task);

  agents_sandbox_process_collect_async (call->process, call->yield_ms,
                                        g_task_get_cancellable (task),
                                        collected, g_object_ref (task));
}

static void
exec_started (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  AgentsSandboxSession *self = AGENTS_SANDBOX_SESSION (source);
  Call *call = g_task_get_task_data (task);
  GError *error = NULL;
  Entry *entry;

  call->process =
    agents_sandbox_session_start_process_finish (self, result, &error);
  if (call->process == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  entry = table_register (self, call->process);
  call->id = entry->id;
  collect (task);
}

/**
 * agents_sandbox_session_pty_exec_start_async:
 * @self: a session
 * @command: (array zero-terminated=1): the command
 * @shell: whether to run @command through `sh -c`
 * @tty: whether to run it on a new PTY
 * @user: (nullable): the user to run as
 * @yield_time_ms: how long to collect output (clamped to 250 … 30 000)
 * @max_output_tokens: the token budget of the output, or -1 for the
 *   default (1 MiB of output)
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the update
 * @user_data: data for @callback
 *
 * Starts a command, registers it in the session's process table and
 * collects its output until it exits or @yield_time_ms passes. When it
 * still runs, the update carries the id under which
 * agents_sandbox_session_pty_write_stdin_async() reaches it. The table
 * holds at most 64 processes: registering one more kills the least
 * recently used one outside the 8 most recently used, preferring one
 * that already exited.
 *
 * A failure to start the command is an
 * %AGENTS_SANDBOX_ERROR_EXEC_TRANSPORT error, or
 * %AGENTS_SANDBOX_ERROR_NOT_SUPPORTED when the session has no processes.
 */
void
agents_sandbox_session_pty_exec_start_async (AgentsSandboxSession *self,
                                             const char *const *command,
                                             gboolean shell,
                                             gboolean tty,
                                             const char *user,
                                             gint64 yield_time_ms,
                                             gint64 max_output_tokens,
                                             GCancellable *cancellable,
                                             GAsyncReadyCallback callback,
                                             gpointer user_data)
{
  GTask *task;
  Call *call;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));
  g_return_if_fail (command != NULL && command[0] != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_sandbox_session_pty_exec_start_async);
  call = g_new0 (Call, 1);
  call->max_output_tokens = max_output_tokens;
  call->yield_ms = agents_pty_clamp_yield_time_ms (yield_time_ms);
  g_task_set_task_data (task, call, (GDestroyNotify) call_free);
  agents_sandbox_session_start_process_async (self, command, shell, tty, user,
                                              cancellable, exec_started, task);
}

/**
 * agents_sandbox_session_pty_exec_start_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_pty_exec_start_async().
 *
 * Returns: (transfer full): the update
 */
AgentsPtyExecUpdate *
agents_sandbox_session_pty_exec_start_finish (AgentsSandboxSession *self,
                                              GAsyncResult *result,
                                              GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
written (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  g_autoptr (GError) error = NULL;

  /* A process that closed its terminal is polled all the same. */
  if (!agents_sandbox_process_write_stdin_finish (
        AGENTS_SANDBOX_PROCESS (source), result, &error))
    g_debug ("write_stdin: %s", error->message);
  collect (task);
}

static Entry *
lookup_entry (AgentsSandboxSession *self, gint64 process_id)
{
  if (process_id <= 0 || process_id > G_MAXUINT)
    return NULL;
  return g_hash_table_lookup (get_table (self)->entries,
                              GUINT_TO_POINTER ((guint) process_id));
}

AgentsSandboxProcess *
agents_sandbox_session_pty_lookup (AgentsSandboxSession *self,
                                   gint64 process_id)
{
  Entry *entry = lookup_entry (self, process_id);

  return entry != NULL ? entry->process : NULL;
}

/**
 * agents_sandbox_session_pty_write_stdin_async:
 * @self: a session
 * @process_id: the id an update gave
 * @chars: (nullable): what to type, UTF-8; empty or %NULL to only poll
 * @yield_time_ms: how long to collect output (clamped to 250 … 30 000;
 *   at least 5 000 to poll)
 * @max_output_tokens: the token budget of the output, or -1 for the
 *   default (1 MiB of output)
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the update
 * @user_data: data for @callback
 *
 * Writes @chars to a process of the session's process table and collects
 * its output, as agents_sandbox_session_pty_exec_start_async() does. An
 * unknown id is an %AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT error, input
 * for a process without a terminal an %AGENTS_SANDBOX_ERROR_NOT_SUPPORTED
 * one; their messages are the reference's.
 */
void
agents_sandbox_session_pty_write_stdin_async (AgentsSandboxSession *self,
                                              gint64 process_id,
                                              const char *chars,
                                              gint64 yield_time_ms,
                                              gint64 max_output_tokens,
                                              GCancellable *cancellable,
                                              GAsyncReadyCallback callback,
                                              gpointer user_data)
{
  g_autoptr (GTask) task = NULL;
  AgentsSandboxProcess *process;
  gboolean poll = chars == NULL || chars[0] == '\0';
  Entry *entry;
  Call *call;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_sandbox_session_pty_write_stdin_async);
  entry = lookup_entry (self, process_id);
  if (entry == NULL)
    {
      g_task_return_new_error (
        task, AGENTS_SANDBOX_ERROR, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
        "PTY session not found: %" G_GINT64_FORMAT, process_id);
      return;
    }
  process = entry->process;
  if (!poll && !agents_sandbox_process_get_tty (process))
    {
      g_task_return_new_error (
        task, AGENTS_SANDBOX_ERROR, AGENTS_SANDBOX_ERROR_NOT_SUPPORTED,
        "stdin is not available for this process. Start the command with "
        "`tty=true` in `exec_command` before using `write_stdin`.");
      return;
    }
  entry->last_used = ++get_table (self)->clock;
  call = g_new0 (Call, 1);
  call->id = (guint) process_id;
  call->process = g_object_ref (process);
  call->max_output_tokens = max_output_tokens;
  call->yield_ms = agents_pty_write_yield_time_ms (yield_time_ms, poll);
  g_task_set_task_data (task, call, (GDestroyNotify) call_free);
  if (poll)
    {
      collect (task);
      return;
    }
  call->input = g_bytes_new (chars, strlen (chars));
  agents_sandbox_process_write_stdin_async (process, call->input, cancellable,
                                            written, g_object_ref (task));
}

/**
 * agents_sandbox_session_pty_write_stdin_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_pty_write_stdin_async().
 *
 * Returns: (transfer full): the update
 */
AgentsPtyExecUpdate *
agents_sandbox_session_pty_write_stdin_finish (AgentsSandboxSession *self,
                                               GAsyncResult *result,
                                               GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * agents_sandbox_session_pty_get_n_processes:
 * @self: a session
 *
 * Gets the number of processes in the session's process table.
 *
 * Returns: how many processes the table holds
 */
guint
agents_sandbox_session_pty_get_n_processes (AgentsSandboxSession *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION (self), 0);

  return g_hash_table_size (get_table (self)->entries);
}

/**
 * agents_sandbox_session_pty_terminate_all:
 * @self: a session
 *
 * Kills every process of the session's process table and empties it.
 * Stopping and shutting the session down do this first.
 */
void
agents_sandbox_session_pty_terminate_all (AgentsSandboxSession *self)
{
  Table *table;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));

  table = g_object_get_qdata (G_OBJECT (self), table_quark);
  if (table != NULL)
    g_hash_table_remove_all (table->entries);
}
