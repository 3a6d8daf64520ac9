/* agents-unix-local-session-exec.c - the commands of a unix_local session:
 * policy, confinement, spawning, capture and processes that run on
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <inttypes.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "agents-archive-private.h"
#include "agents-fs-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-sandbox-session-private.h"
#include "agents-unix-local-confine.h"
#include "agents-unix-local-fs.h"
#include "agents-unix-local-owner.h"
#include "agents-unix-local-pty.h"
#include "agents-unix-local-session-private.h"

#define READ_CHUNK (64 * 1024)
/* How long output is still read after the command exited. */
#define DRAIN_GRACE_MS 1000

/* ---- exec ----------------------------------------------------------- */

typedef struct _ExecOp ExecOp;

typedef struct
{
  ExecOp *op;
  GInputStream *stream;
  GByteArray *data;
  guint64 discarded;
  gboolean eof;
} Capture;

struct _ExecOp
{
  gatomicrefcount ref;
  AgentsUnixLocalSession *session;
  GTask *task; /* NULL once completed */
  char **argv;
  AgentsUnixLocalConfinement mechanism;
  const AgentsUnixLocalProbe *probe;
  AgentsUnixLocalPolicy *policy;
  AgentsUnixLocalCgroup *cgroup;
  GSubprocess *proc;
  pid_t pid;
  Capture out;
  Capture err;
  GCancellable *io_cancel;
  GSource *cancel_source;
  GSource *grace_source;
  gboolean exited;
  gboolean cancelled;
  gboolean grace_over;
  gboolean interactive; /* start_process: hand the process over */
  gboolean tty;
};

static ExecOp *
exec_op_ref (ExecOp *op)
{
  g_atomic_ref_count_inc (&op->ref);
  return op;
}

static void
destroy_source (GSource **source)
{
  if (*source == NULL)
    return;
  g_source_destroy (*source);
  g_clear_pointer (source, g_source_unref);
}

static void exec_op_release_cgroup (ExecOp *op);

static void
exec_op_unref (ExecOp *op)
{
  if (!g_atomic_ref_count_dec (&op->ref))
    return;
  destroy_source (&op->cancel_source);
  destroy_source (&op->grace_source);
  g_clear_object (&op->task);
  g_clear_object (&op->session);
  g_strfreev (op->argv);
  exec_op_release_cgroup (op);
  g_clear_pointer (&op->policy, agents_unix_local_policy_free);
  g_clear_object (&op->proc);
  g_clear_pointer (&op->out.data, g_byte_array_unref);
  g_clear_pointer (&op->err.data, g_byte_array_unref);
  g_clear_object (&op->io_cancel);
  g_free (op);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ExecOp, exec_op_unref)

/* Kills the command and everything in its session; with bwrap, killing
 * bwrap tears its pid namespace down. */
static void
exec_op_kill (ExecOp *op)
{
  if (op->pid <= 0)
    return;
  kill (-op->pid, SIGKILL);
  if (!op->exited)
    kill (op->pid, SIGKILL);
}

static void
add_truncation_note (GByteArray *err, const char *stream, guint64 discarded)
{
  g_autofree char *note = NULL;

  if (discarded == 0)
    return;
  note = g_strdup_printf ("\n[%s truncated: %" G_GUINT64_FORMAT
                          " bytes discarded]\n",
                          stream, discarded);
  g_byte_array_append (err, (const guint8 *) note, strlen (note));
}

static AgentsExecResult *
exec_op_result (ExecOp *op)
{
  g_autoptr (GBytes) out = NULL;
  g_autoptr (GBytes) err = NULL;
  int code;

  if (g_subprocess_get_if_signaled (op->proc))
    code = 128 + g_subprocess_get_term_sig (op->proc);
  else
    code = g_subprocess_get_exit_status (op->proc);
  add_truncation_note (op->err.data, "stdout", op->out.discarded);
  add_truncation_note (op->err.data, "stderr", op->err.discarded);
  out = g_byte_array_free_to_bytes (g_steal_pointer (&op->out.data));
  err = g_byte_array_free_to_bytes (g_steal_pointer (&op->err.data));
  return agents_exec_result_new (out, err, code);
}

/* Detaches @op from its session, sources and pipes; returns its task. */
static GTask *
exec_op_detach (ExecOp *op)
{
  g_ptr_array_remove (op->session->running, op);
  g_cancellable_cancel (op->io_cancel);
  destroy_source (&op->cancel_source);
  destroy_source (&op->grace_source);
  return g_steal_pointer (&op->task);
}

static void
exec_op_complete (ExecOp *op)
{
  g_autoptr (GTask) task = NULL;
  GError *error = NULL;

  if (op->task == NULL)
    return;
  if (op->cancelled && !g_cancellable_set_error_if_cancelled (
                         g_task_get_cancellable (op->task), &error))
    error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                 _ ("Operation was cancelled"));

  task = exec_op_detach (op);
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, exec_op_result (op), g_object_unref);
}

static void
exec_op_try_complete (ExecOp *op)
{
  if (!op->exited)
    return;
  if (op->cancelled || op->grace_over || (op->out.eof && op->err.eof))
    exec_op_complete (op);
}

static void capture_read_next (Capture *capture);

static void
capture_read_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Capture *capture = user_data;
  g_autoptr (ExecOp) op = capture->op;
  g_autoptr (GBytes) bytes = NULL;
  gsize size, room;

  bytes =
    g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result, NULL);
  if (op->task == NULL || bytes == NULL || g_bytes_get_size (bytes) == 0)
    {
      capture->eof = TRUE;
      exec_op_try_complete (op);
      return;
    }

  size = g_bytes_get_size (bytes);
  room = op->session->output_limit > capture->data->len
           ? op->session->output_limit - capture->data->len
           : 0;
  g_byte_array_append (capture->data, g_bytes_get_data (bytes, NULL),
                       MIN (size, room));
  capture->discarded += size - MIN (size, room);
  capture_read_next (capture);
}

/* Output beyond the limit is still read, so the command never blocks on
 * a full pipe, but thrown away. */
static void
capture_read_next (Capture *capture)
{
  g_input_stream_read_bytes_async (
    capture->stream, READ_CHUNK, G_PRIORITY_DEFAULT, capture->op->io_cancel,
    capture_read_done, (exec_op_ref (capture->op), capture));
}

static gboolean
exec_grace_over (gpointer user_data)
{
  ExecOp *op = user_data;

  g_clear_pointer (&op->grace_source, g_source_unref);
  op->grace_over = TRUE;
  exec_op_try_complete (op);
  return G_SOURCE_REMOVE;
}

static GSource *
attach_source (GSource *source, GSourceFunc func, ExecOp *op)
{
  g_source_set_callback (source, func, exec_op_ref (op),
                         (GDestroyNotify) exec_op_unref);
  g_source_attach (source, g_task_get_context (op->task));
  return source;
}

static void
cgroup_free_thread (GTask *task,
                    gpointer source_object,
                    gpointer task_data,
                    GCancellable *cancellable)
{
  agents_unix_local_cgroup_free (task_data);
}

/* Kills what is left in the command's cgroup at once; waiting for the
 * processes to be gone (a pid namespace takes a while to tear down) and
 * removing the cgroup happen in a worker, not before the result. */
static void
exec_op_release_cgroup (ExecOp *op)
{
  g_autoptr (GTask) task = NULL;

  if (op->cgroup == NULL)
    return;
  if (op->policy != NULL)
    op->policy->cgroup = NULL;
  if (agents_unix_local_cgroup_kill (op->cgroup))
    {
      g_clear_pointer (&op->cgroup, agents_unix_local_cgroup_free);
      return;
    }
  task = g_task_new (NULL, NULL, NULL, NULL);
  g_task_set_task_data (task, g_steal_pointer (&op->cgroup), NULL);
  g_task_run_in_thread (task, cgroup_free_thread);
}

static void
exec_waited (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (ExecOp) op = user_data;

  g_subprocess_wait_finish (G_SUBPROCESS (source), result, NULL);
  op->exited = TRUE;
  /* Nothing the command started may outlive it. */
  exec_op_kill (op);
  exec_op_release_cgroup (op);
  if (op->task != NULL && !(op->out.eof && op->err.eof) &&
      op->grace_source == NULL)
    op->grace_source = attach_source (g_timeout_source_new (DRAIN_GRACE_MS),
                                      exec_grace_over, op);
  exec_op_try_complete (op);
}

static gboolean
exec_cancelled (GCancellable *cancellable, gpointer user_data)
{
  ExecOp *op = user_data;

  op->cancelled = TRUE;
  exec_op_kill (op);
  exec_op_try_complete (op);
  return G_SOURCE_REMOVE;
}

static void
capture_init (Capture *capture, ExecOp *op, GInputStream *stream)
{
  capture->op = op;
  capture->stream = stream;
  capture->data = g_byte_array_new ();
}

static void
exec_watch (ExecOp *op)
{
  GCancellable *cancellable = g_task_get_cancellable (op->task);
  const char *ident = g_subprocess_get_identifier (op->proc);

  op->pid = ident ? atoi (ident) : 0;
  g_ptr_array_add (op->session->running, op);
  capture_init (&op->out, op, g_subprocess_get_stdout_pipe (op->proc));
  capture_init (&op->err, op, g_subprocess_get_stderr_pipe (op->proc));
  capture_read_next (&op->out);
  capture_read_next (&op->err);
  g_subprocess_wait_async (op->proc, NULL, exec_waited, exec_op_ref (op));

  /* The base cancels @cancellable when the command's timeout expires. */
  if (cancellable != NULL)
    op->cancel_source =
      attach_source (g_cancellable_source_new (cancellable),
                     (GSourceFunc) (void (*) (void)) exec_cancelled, op);
}

static gboolean
ensure_host_tmp_dir (AgentsUnixLocalSession *self, GError **error)
{
  if (self->host_tmp_dir != NULL)
    return TRUE;
  self->host_tmp_dir = g_dir_make_tmp ("agents-unix-local-XXXXXX", error);
  return self->host_tmp_dir != NULL;
}

/* Mounts the library made on the host (s3_mount) are shown at their
 * mount paths; only bubblewrap can put them there. */
static gboolean
add_host_binds (AgentsUnixLocalSession *self,
                AgentsUnixLocalPolicy *policy,
                AgentsUnixLocalConfinement mechanism,
                GError **error)
{
  g_autoptr (GPtrArray) binds =
    agents_sandbox_session_dup_host_binds (AGENTS_SANDBOX_SESSION (self));

  if (binds->len > 0 && mechanism != AGENTS_UNIX_LOCAL_CONFINEMENT_BWRAP)
    {
      agents_sandbox_error_set (
        error, AGENTS_SANDBOX_ERROR_MOUNT_CONFIG, NULL, "%s",
        _ ("mounted remote storage is only visible to commands confined "
           "by bubblewrap"));
      return FALSE;
    }
  g_ptr_array_unref (policy->binds);
  policy->binds = g_steal_pointer (&binds);
  return TRUE;
}

static AgentsUnixLocalPolicy *
build_policy (AgentsUnixLocalSession *self,
              AgentsUnixLocalConfinement mechanism,
              GError **error)
{
  AgentsManifest *manifest = agents_unix_local_session_manifest (self);
  g_autoptr (GPtrArray) grants = NULL;
  g_autoptr (AgentsUnixLocalPolicy) policy = NULL;
  g_auto (GStrv) names = agents_manifest_get_env_names (manifest);
  g_autofree char *root = agents_unix_local_session_root (self);

  grants = agents_unix_local_extra_path_grant_roots (manifest, error);
  if (grants == NULL)
    return NULL;
  g_mkdir_with_parents (root, 0755);
  policy = agents_unix_local_policy_new (root, grants, self->network);
  policy->sandbox_uid = self->sandbox_uid;
  policy->sandbox_gid = self->sandbox_gid;
  policy->limits = self->limits;
  if (g_str_equal (policy->workspace_root, "/") &&
      mechanism != AGENTS_UNIX_LOCAL_CONFINEMENT_NONE)
    {
      agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                                NULL, "%s",
                                _ ("a confined workspace root must not "
                                   "resolve to filesystem root"));
      return NULL;
    }
  if (!add_host_binds (self, policy, mechanism, error))
    return NULL;
  /* A typed value that needs resolving has no text here: left unset. */
  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    if (agents_manifest_get_env (manifest, names[i]) != NULL)
      g_hash_table_insert (
        policy->env, g_strdup (names[i]),
        g_strdup (agents_manifest_get_env (manifest, names[i])));
  if (mechanism != AGENTS_UNIX_LOCAL_CONFINEMENT_BWRAP)
    {
      if (!ensure_host_tmp_dir (self, error))
        return NULL;
      policy->host_tmp_dir = g_strdup (self->host_tmp_dir);
    }
  return g_steal_pointer (&policy);
}

/* The command line to spawn: the command itself, or under sandbox-exec
 * the command wrapped by it. */
static char **
exec_argv (ExecOp *op, GError **error)
{
  AgentsUnixLocalPolicy *policy = op->policy;

  if (op->mechanism != AGENTS_UNIX_LOCAL_CONFINEMENT_SANDBOX_EXEC)
    return g_strdupv (op->argv);
  return agents_unix_local_confined_exec_command (
    op->probe->platform, NULL, NULL, (const char *const *) op->argv,
    policy->workspace_root, policy->grants, "/usr/local/bin:/usr/bin:/bin",
    policy->network, error);
}

/* The spawn cache holds for the session's own mechanisms only. */
static AgentsUnixLocalSpawnCache *
exec_spawn_cache (ExecOp *op)
{
  return op->mechanism != AGENTS_UNIX_LOCAL_CONFINEMENT_SANDBOX_EXEC
           ? op->session->spawn_cache
           : NULL;
}

static GSubprocess *
exec_spawn (ExecOp *op, GError **error)
{
  g_auto (GStrv) argv = exec_argv (op, error);

  if (argv == NULL)
    return NULL;
  return agents_unix_local_confine_spawn_cached (
    op->probe, op->mechanism, op->policy, exec_spawn_cache (op),
    (const char *const *) argv, error);
}

static void
exec_fail (ExecOp *op, GError *error)
{
  g_task_return_error (op->task, error);
  g_clear_object (&op->task);
}

/* A cgroup of its own holds the command to its limits, whatever it
 * forks, and lets everything it left be killed; where none can be made,
 * the rlimits alone apply. */
static void
exec_make_cgroup (ExecOp *op)
{
  const AgentsUnixLocalLimits *limits = &op->policy->limits;
  g_autoptr (GError) error = NULL;

  if (op->mechanism == AGENTS_UNIX_LOCAL_CONFINEMENT_SANDBOX_EXEC ||
      (limits->processes == 0 && limits->memory == 0))
    return;
  op->cgroup = agents_unix_local_cgroup_new (limits, &error);
  if (op->cgroup == NULL)
    g_debug ("no cgroup for a unix_local command: %s", error->message);
  op->policy->cgroup = op->cgroup;
}

/* start_process: the command, spawned as any other (on a new PTY when
 * asked) but without GSubprocess, is handed to an AgentsUnixLocalProcess
 * with its cgroup. */
static void
exec_spawn_process (ExecOp *op)
{
  AgentsUnixLocalChild child;
  g_auto (GStrv) argv = NULL;
  int master = -1, slave = -1;
  GError *error = NULL;
  gboolean spawned;

  if ((argv = exec_argv (op, &error)) == NULL)
    {
      exec_fail (op, error);
      return;
    }
  if (op->tty && !agents_unix_local_pty_open (&master, &slave, &error))
    {
      exec_fail (op, error);
      return;
    }
  op->policy->tty_fd = slave;
  spawned = agents_unix_local_confine_spawn_child (
    op->probe, op->mechanism, op->policy, exec_spawn_cache (op),
    (const char *const *) argv, &child, &error);
  op->policy->tty_fd = -1;
  op->policy->cgroup = NULL;
  if (slave >= 0)
    close (slave);
  if (!spawned)
    {
      if (master >= 0)
        close (master);
      exec_fail (op, error);
      return;
    }
  g_task_return_pointer (op->task,
                         agents_unix_local_process_new (
                           &child, master, g_steal_pointer (&op->cgroup)),
                         g_object_unref);
  g_clear_object (&op->task);
}

static void
exec_spawn_now (ExecOp *op)
{
  GError *error = NULL;

  if (g_task_return_error_if_cancelled (op->task))
    {
      g_clear_object (&op->task);
      return;
    }
  exec_make_cgroup (op);
  if (op->interactive)
    {
      exec_spawn_process (op);
      return;
    }
  op->proc = exec_spawn (op, &error);
  if (op->proc == NULL)
    {
      exec_fail (op, error);
      return;
    }
  op->io_cancel = g_cancellable_new ();
  exec_watch (op);
}

/* Whether the command runs as the sandbox uid, which must then own what
 * it writes to. */
static gboolean
exec_drops_privileges (ExecOp *op)
{
  return op->policy->drop_privileges &&
         (op->mechanism == AGENTS_UNIX_LOCAL_CONFINEMENT_BWRAP ||
          op->mechanism == AGENTS_UNIX_LOCAL_CONFINEMENT_LANDLOCK);
}

static void
hand_over_thread (GTask *task,
                  gpointer source_object,
                  gpointer task_data,
                  GCancellable *cancellable)
{
  ExecOp *op = task_data;
  g_auto (GStrv) paths = agents_unix_local_policy_writable_paths (op->policy);
  GError *error = NULL;

  /* First, so that the root is still recognized as this library's if
   * the process dies before handing it back. */
  agents_unix_local_owner_note_sandbox_uid (op->policy->workspace_root,
                                            op->policy->sandbox_uid);
  if (agents_unix_local_hand_over ((const char *const *) paths,
                                   op->policy->sandbox_uid,
                                   op->policy->sandbox_gid, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
exec_handed_over (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (ExecOp) op = user_data;
  GError *error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      g_atomic_int_set (&op->session->handover_pending, TRUE);
      exec_fail (op, error);
      return;
    }
  exec_spawn_now (op);
}

static void
exec_start (ExecOp *op, const AgentsUnixLocalProbe *probe)
{
  AgentsUnixLocalSession *self = op->session;
  g_autoptr (GTask) handover = NULL;
  GError *error = NULL;

  if (g_task_return_error_if_cancelled (op->task))
    {
      g_clear_object (&op->task);
      return;
    }
  op->probe = probe;
  op->policy = build_policy (self, op->mechanism, &error);
  if (op->policy == NULL)
    {
      exec_fail (op, error);
      return;
    }
  if (!exec_drops_privileges (op) ||
      !g_atomic_int_compare_and_exchange (&self->handover_pending, TRUE, FALSE))
    {
      exec_spawn_now (op);
      return;
    }
  /* What the library wrote since is handed over first, in a worker. */
  self->handed_over = TRUE;
  handover = g_task_new (NULL, g_task_get_cancellable (op->task),
                         exec_handed_over, exec_op_ref (op));
  g_task_set_task_data (handover, exec_op_ref (op),
                        (GDestroyNotify) exec_op_unref);
  g_task_run_in_thread (handover, hand_over_thread);
}

static void
exec_with_probe (ExecOp *op, const AgentsUnixLocalProbe *probe, GError *error)
{
  if (probe == NULL ||
      !agents_unix_local_confine_select (probe, op->session->confinement,
                                         (const char *const *) op->argv,
                                         &op->mechanism, &error))
    {
      g_task_return_error (op->task, error);
      g_clear_object (&op->task);
      return;
    }
  exec_start (op, probe);
}

static void
exec_probed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (ExecOp) op = user_data;
  const AgentsUnixLocalProbe *probe;
  GError *error = NULL;

  probe = agents_unix_local_confine_probe_finish (result, &error);
  exec_with_probe (op, probe, error);
}

static ExecOp *
exec_op_new (AgentsUnixLocalSession *self, const char *const *argv, GTask *task)
{
  ExecOp *op = g_new0 (ExecOp, 1);

  g_atomic_ref_count_init (&op->ref);
  op->session = g_object_ref (self);
  op->task = g_object_ref (task);
  op->argv = g_strdupv ((char **) argv);
  op->mechanism = self->confinement;
  return op;
}

static void
exec_op_run (ExecOp *op)
{
  const AgentsUnixLocalProbe *probe;

  /* The probe runs once per process, in a worker thread; the spawn
   * happens here, on the owner thread, which the command dies with. */
  probe = agents_unix_local_confine_probe_peek ();
  if (probe == NULL)
    {
      agents_unix_local_confine_probe_async (g_task_get_cancellable (op->task),
                                             exec_probed, op);
      return;
    }
  exec_with_probe (op, probe, NULL);
  exec_op_unref (op);
}

void
agents_unix_local_session_exec (AgentsSandboxSessionBase *base,
                                const char *const *argv,
                                double timeout,
                                GTask *task)
{
  AgentsUnixLocalSession *self = AGENTS_UNIX_LOCAL_SESSION (base);

  if (agents_unix_local_session_return_options_error (self, task))
    return;
  /* The base class times the command (AgentsSandboxSessionBase). */
  exec_op_run (exec_op_new (self, argv, task));
}

void
agents_unix_local_session_start_process (AgentsSandboxSession *session,
                                         const char *const *argv,
                                         gboolean tty,
                                         GTask *task)
{
  AgentsUnixLocalSession *self = AGENTS_UNIX_LOCAL_SESSION (session);
  ExecOp *op;

  if (agents_unix_local_session_return_options_error (self, task))
    return;
  op = exec_op_new (self, argv, task);
  op->interactive = TRUE;
  op->tty = tty;
  exec_op_run (op);
}

void
agents_unix_local_session_cleanup (AgentsUnixLocalSession *self)
{
  g_return_if_fail (AGENTS_IS_UNIX_LOCAL_SESSION (self));

  for (guint i = 0; i < self->running->len; i++)
    exec_op_kill (g_ptr_array_index (self->running, i));
  agents_unix_local_session_remove_host_tmp_dir (self);
  agents_unix_local_spawn_cache_free (self->spawn_cache);
  self->spawn_cache = agents_unix_local_spawn_cache_new ();
}
