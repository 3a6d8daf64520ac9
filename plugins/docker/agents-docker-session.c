/* agents-docker-session.c - sessions of the docker backend
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "agents-docker-container.h"
#include "agents-docker-host-mounts.h"
#include "agents-docker-pty.h"
#include "agents-docker-pipe.h"
#include "agents-docker-session.h"
#include "agents-docker-tar.h"

#define DEFAULT_OUTPUT_LIMIT (64 * 1024 * 1024)
#define FILE_MODE 0644

/**
 * AgentsDockerSession:
 *
 * A session whose workspace lives in a Docker container. Commands run
 * through the engine's exec endpoint; files and the workspace travel as
 * tar streams through its archive endpoint. Every engine call blocks, so
 * each operation runs on a worker thread; the GTask is completed on the
 * caller's context as usual.
 */
struct _AgentsDockerSession
{
  AgentsSandboxSessionBase parent_instance;

  AgentsDockerEngine *engine;
  gsize output_limit;

  GMutex lock;
  GPtrArray *servers; /* AgentsDockerExecServer, of one container */
  gint running;       /* commands being run */
};

static void session_iface_init (AgentsSandboxSessionInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  AgentsDockerSession,
  agents_docker_session,
  AGENTS_TYPE_SANDBOX_SESSION_BASE,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_SANDBOX_SESSION, session_iface_init))

static void docker_start_backend (AgentsSandboxSessionBase *base, GTask *task);
static void docker_shutdown_backend (AgentsSandboxSessionBase *base,
                                     GTask *task);
static void docker_exec (AgentsSandboxSessionBase *base,
                         const char *const *argv,
                         double timeout,
                         GTask *task);

static void
close_servers (GPtrArray *servers)
{
  for (guint i = 0; i < servers->len; i++)
    agents_docker_exec_server_close (g_ptr_array_index (servers, i));
}

static void
agents_docker_session_finalize (GObject *object)
{
  AgentsDockerSession *self = AGENTS_DOCKER_SESSION (object);

  close_servers (self->servers);
  g_ptr_array_unref (self->servers);
  g_clear_object (&self->engine);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (agents_docker_session_parent_class)->finalize (object);
}

static void
agents_docker_session_class_init (AgentsDockerSessionClass *klass)
{
  AgentsSandboxSessionBaseClass *base_class =
    AGENTS_SANDBOX_SESSION_BASE_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = agents_docker_session_finalize;
  base_class->start_backend = docker_start_backend;
  base_class->shutdown_backend = docker_shutdown_backend;
  base_class->exec_raw = docker_exec;
}

static void
agents_docker_session_init (AgentsDockerSession *self)
{
  self->output_limit = DEFAULT_OUTPUT_LIMIT;
  g_mutex_init (&self->lock);
  self->servers = g_ptr_array_new_with_free_func (g_object_unref);
}

AgentsDockerSession *
agents_docker_session_new (AgentsDockerEngine *engine,
                           AgentsDockerSessionState *state)
{
  AgentsDockerSession *self =
    g_object_new (AGENTS_TYPE_DOCKER_SESSION, "state", state, NULL);

  self->engine = g_object_ref (engine);
  return self;
}

AgentsDockerEngine *
agents_docker_session_get_engine (AgentsDockerSession *self)
{
  g_return_val_if_fail (AGENTS_IS_DOCKER_SESSION (self), NULL);
  return self->engine;
}

void
agents_docker_session_set_output_limit (AgentsDockerSession *self, gsize limit)
{
  g_return_if_fail (AGENTS_IS_DOCKER_SESSION (self));
  self->output_limit = limit;
}

static AgentsDockerSessionState *
session_state (AgentsDockerSession *self)
{
  g_autoptr (AgentsSandboxSessionState) state =
    agents_sandbox_session_get_state (AGENTS_SANDBOX_SESSION (self));

  /* The session keeps its state: the pointer outlives this reference. */
  return AGENTS_DOCKER_SESSION_STATE (state);
}

static AgentsManifest *
session_manifest (AgentsDockerSession *self)
{
  return agents_sandbox_session_get_manifest (AGENTS_SANDBOX_SESSION (self));
}

static const char *
session_root (AgentsDockerSession *self)
{
  return agents_manifest_get_root (session_manifest (self));
}

/* The container to talk to; an error when the session has none. */
static const char *
require_container (AgentsDockerSession *self, int code, GError **error)
{
  const char *id =
    agents_docker_session_state_get_container_id (session_state (self));

  if (id == NULL)
    agents_sandbox_error_set (
      error, code, g_variant_new_parsed ("{'reason': <'no_container'>}"),
      _ ("the docker session has no container; create or resume it first"));
  return id;
}

static AgentsDockerContainer *
session_container (AgentsDockerSession *self, int code, GError **error)
{
  const char *id = require_container (self, code, error);

  if (id == NULL)
    return NULL;
  return agents_docker_container_new (self->engine, id);
}

/* ---- exec ----------------------------------------------------------- */

/* At most this many commands run through exec servers at once; more
 * run as plain engine execs. */
#define MAX_EXEC_SERVERS 4

/* Ends the exec servers: their shells do not survive a stopped
 * container. */
static void
session_drop_exec_servers (AgentsDockerSession *self)
{
  g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&self->lock);

  close_servers (self->servers);
  g_ptr_array_set_size (self->servers, 0);
}

/* The exec servers of the current container, one more made when every
 * one is likely busy (the count of commands running says so). */
static GPtrArray *
session_exec_servers (AgentsDockerSession *self,
                      const char *container_id,
                      guint wanted)
{
  g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&self->lock);
  GPtrArray *copy;

  if (self->servers->len > 0 &&
      g_strcmp0 (agents_docker_exec_server_get_container_id (
                   g_ptr_array_index (self->servers, 0)),
                 container_id) != 0)
    {
      close_servers (self->servers);
      g_ptr_array_set_size (self->servers, 0);
    }
  while (self->servers->len < MIN (wanted, MAX_EXEC_SERVERS))
    g_ptr_array_add (self->servers, agents_docker_exec_server_new (
                                      self->engine, container_id));
  copy = g_ptr_array_new_full (self->servers->len, g_object_unref);
  for (guint i = 0; i < self->servers->len; i++)
    g_ptr_array_add (copy, g_object_ref (g_ptr_array_index (self->servers, i)));
  return copy;
}

typedef struct
{
  char **argv;
  char *user; /* run as, through the exec's user */
} ExecOp;

static void
exec_op_free (ExecOp *op)
{
  g_strfreev (op->argv);
  g_free (op->user);
  g_free (op);
}

static void
exec_thread (GTask *task,
             gpointer source,
             gpointer task_data,
             GCancellable *cancellable)
{
  AgentsDockerSession *self = source;
  ExecOp *op = task_data;
  g_autoptr (AgentsDockerContainer) container = NULL;
  g_autoptr (GPtrArray) servers = NULL;
  g_autoptr (AgentsExecResult) result = NULL;
  GError *error = NULL;

  container =
    session_container (self, AGENTS_SANDBOX_ERROR_EXEC_TRANSPORT, &error);
  if (container != NULL)
    {
      guint wanted = g_atomic_int_add (&self->running, 1) + 1;

      servers = session_exec_servers (
        self,
        agents_docker_session_state_get_container_id (session_state (self)),
        wanted);
      result = agents_docker_container_exec (
        container, servers, (const char *const *) op->argv, op->user,
        self->output_limit, cancellable, &error);
      g_atomic_int_add (&self->running, -1);
    }
  if (result != NULL)
    {
      g_task_return_pointer (task, g_steal_pointer (&result), g_object_unref);
      return;
    }
  /* A cancellation (the caller's or the timeout's) stays one. */
  if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) &&
      error->domain != AGENTS_SANDBOX_ERROR)
    {
      GError *mapped =
        agents_docker_map_error (error, AGENTS_SANDBOX_ERROR_EXEC_TRANSPORT,
                                 (const char *const *) op->argv);

      g_clear_error (&error);
      error = mapped;
    }
  g_task_return_error (task, error);
}

/* agents_sandbox_session_exec_async() runs a command as another user
 * through `sudo -n -u USER --`; a container switches users itself, with
 * the exec's User, and needs no sudo in the image. Returns the command
 * to run and sets *@user when @argv has that prefix. */
static char **
take_run_as (const char *const *argv, char **user)
{
  guint n = g_strv_length ((char **) argv);

  *user = NULL;
  if (n < 6 || g_strcmp0 (argv[0], "sudo") != 0 ||
      g_strcmp0 (argv[1], "-n") != 0 || g_strcmp0 (argv[2], "-u") != 0 ||
      g_strcmp0 (argv[4], "--") != 0 || argv[3][0] == '\0' || argv[3][0] == '-')
    return g_strdupv ((char **) argv);
  *user = g_strdup (argv[3]);
  return g_strdupv ((char **) argv + 5);
}

/* Processes that run on between calls (agents-docker-pty.c). */
static void
docker_start_process (AgentsSandboxSession *session,
                      const char *const *argv,
                      gboolean tty,
                      GTask *task)
{
  AgentsDockerSession *self = AGENTS_DOCKER_SESSION (session);
  GError *error = NULL;
  const char *id =
    require_container (self, AGENTS_SANDBOX_ERROR_EXEC_TRANSPORT, &error);
  g_autofree char *user = NULL;
  g_auto (GStrv) command = take_run_as (argv, &user);

  if (id == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  agents_docker_process_start (self->engine, id, session_root (self),
                               (const char *const *) command, user, tty, task);
}

static void
docker_exec (AgentsSandboxSessionBase *base,
             const char *const *argv,
             double timeout,
             GTask *task)
{
  ExecOp *op = g_new0 (ExecOp, 1);

  /* The base cancels the task's cancellable when @timeout expires; the
   * reads watch it and a cancelled command is killed in the container. */
  op->argv = take_run_as (argv, &op->user);
  g_task_set_task_data (task, op, (GDestroyNotify) exec_op_free);
  g_task_run_in_thread (task, exec_thread);
}

/* ---- path checks ---------------------------------------------------- */

typedef void (*ValidatedFunc) (GTask *task, char *abs);

static void
path_validated (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  ValidatedFunc next = g_object_get_data (G_OBJECT (task), "next");
  GError *error = NULL;
  char *abs = agents_sandbox_session_validate_path_access_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);

  if (abs == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  next (task, abs);
}

/* Checks @path in the sandbox, then calls @next with the absolute,
 * resolved path (transfer full). */
static void
validate_then (AgentsSandboxSession *session,
               const char *path,
               gboolean for_write,
               GTask *task,
               ValidatedFunc next)
{
  g_object_set_data (G_OBJECT (task), "next", next);
  agents_sandbox_session_validate_path_access_async (
    session, path, for_write, g_task_get_cancellable (task), path_validated,
    g_object_ref (task));
}

/* ---- read ----------------------------------------------------------- */

static void
read_thread (GTask *task,
             gpointer source,
             gpointer task_data,
             GCancellable *cancellable)
{
  AgentsDockerSession *self = source;
  g_autoptr (AgentsDockerContainer) container = NULL;
  GInputStream *stream = NULL;
  GError *error = NULL;

  container = session_container (
    self, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ, &error);
  if (container != NULL)
    stream = agents_docker_container_read_file (container, task_data,
                                                cancellable, &error);
  if (stream == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, stream, g_object_unref);
}

static void
read_validated (GTask *task, char *abs)
{
  g_task_set_task_data (task, abs, g_free);
  g_task_run_in_thread (task, read_thread);
}

static void
docker_read (AgentsSandboxSession *session,
             const char *path,
             const char *user,
             GTask *task)
{
  /* Files are read by the engine, as root; @user is not switched to. */
  validate_then (session, path, FALSE, task, read_validated);
}

/* ---- write ---------------------------------------------------------- */

typedef struct
{
  char *abs;
  GInputStream *data;
} WriteOp;

static void
write_op_free (WriteOp *op)
{
  g_free (op->abs);
  g_clear_object (&op->data);
  g_free (op);
}

static void
write_thread (GTask *task,
              gpointer source,
              gpointer task_data,
              GCancellable *cancellable)
{
  AgentsDockerSession *self = source;
  WriteOp *op = task_data;
  g_autoptr (AgentsDockerContainer) container = NULL;
  GError *error = NULL;

  container = session_container (
    self, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE, &error);
  if (container != NULL &&
      agents_docker_container_write_file (container, op->abs, op->data,
                                          FILE_MODE, cancellable, &error))
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  g_task_return_error (task, error);
}

static void
write_validated (GTask *task, char *abs)
{
  WriteOp *op = g_task_get_task_data (task);

  op->abs = abs;
  g_task_run_in_thread (task, write_thread);
}

static void
docker_write (AgentsSandboxSession *session,
              const char *path,
              GInputStream *data,
              const char *user,
              GTask *task)
{
  WriteOp *op = g_new0 (WriteOp, 1);

  /* Files are written by the engine, as root; @user is not switched to. */
  op->data = g_object_ref (data);
  g_task_set_task_data (task, op, (GDestroyNotify) write_op_free);
  validate_then (session, path, TRUE, task, write_validated);
}

/* ---- running -------------------------------------------------------- */

static void
running_thread (GTask *task,
                gpointer source,
                gpointer task_data,
                GCancellable *cancellable)
{
  AgentsDockerSession *self = source;
  const char *id =
    agents_docker_session_state_get_container_id (session_state (self));
  g_autoptr (AgentsDockerContainer) container = NULL;
  gboolean running = FALSE;
  GError *error = NULL;

  if (id == NULL)
    {
      g_task_return_boolean (task, FALSE);
      return;
    }
  container = agents_docker_container_new (self->engine, id);
  if (!agents_docker_container_inspect_running (container, &running,
                                                cancellable, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, running);
}

static void
docker_running (AgentsSandboxSession *session, GTask *task)
{
  g_task_run_in_thread (task, running_thread);
}

/* ---- persist and hydrate -------------------------------------------- */

/* The workspace-relative paths the archive leaves out: the mounts. */
static char **
persist_excludes (AgentsDockerSession *self)
{
  const char *root = session_root (self);
  g_autoptr (GPtrArray) mounts =
    agents_manifest_get_mount_paths (session_manifest (self));
  GPtrArray *exclude = g_ptr_array_new ();
  gsize root_len = strlen (root);

  for (guint i = 0; i < mounts->len; i++)
    {
      const char *path = g_ptr_array_index (mounts, i);

      if (g_str_has_prefix (path, root) && path[root_len] == '/')
        g_ptr_array_add (exclude, g_strdup (path + root_len + 1));
    }
  g_ptr_array_add (exclude, NULL);
  return (char **) g_ptr_array_free (exclude, FALSE);
}

static void
persist_thread (GTask *task,
                gpointer source,
                gpointer task_data,
                GCancellable *cancellable)
{
  AgentsDockerSession *self = source;
  g_autoptr (AgentsDockerContainer) container = NULL;
  g_auto (GStrv) exclude = persist_excludes (self);
  GInputStream *stream = NULL;
  GError *error = NULL;

  container = session_container (
    self, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ, &error);
  if (container != NULL)
    stream = agents_docker_container_persist (
      container, session_root (self), (const char *const *) exclude, &error);
  if (stream == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, stream, g_object_unref);
}

static void
docker_persist_workspace (AgentsSandboxSession *session, GTask *task)
{
  g_task_run_in_thread (task, persist_thread);
}

static void
hydrate_thread (GTask *task,
                gpointer source,
                gpointer task_data,
                GCancellable *cancellable)
{
  AgentsDockerSession *self = source;
  const AgentsArchiveLimits *limits =
    agents_sandbox_session_get_archive_limits (AGENTS_SANDBOX_SESSION (self));
  g_autoptr (AgentsArchiveLimits) defaults = agents_archive_limits_new ();
  g_autoptr (AgentsDockerContainer) container = NULL;
  GError *error = NULL;

  container = session_container (
    self, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE, &error);
  if (container != NULL && agents_docker_container_hydrate (
                             container, session_root (self), task_data,
                             limits ? limits : defaults, cancellable, &error))
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  g_task_return_error (task, error);
}

static void
docker_hydrate_workspace (AgentsSandboxSession *session,
                          GInputStream *data,
                          GTask *task)
{
  g_task_set_task_data (task, g_object_ref (data), g_object_unref);
  g_task_run_in_thread (task, hydrate_thread);
}

/* ---- lifecycle ------------------------------------------------------ */

typedef struct
{
  gboolean reuse;
  gboolean reused; /* out: the container survived */
} EnsureOp;

static void
ensure_thread (GTask *task,
               gpointer source,
               gpointer task_data,
               GCancellable *cancellable)
{
  AgentsDockerSession *self = source;
  EnsureOp *op = task_data;
  g_autofree char *id = NULL;
  GError *error = NULL;

  session_drop_exec_servers (self);
  id = agents_docker_container_ensure (self->engine, session_state (self),
                                       op->reuse, &op->reused, cancellable,
                                       &error);
  if (id == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  agents_docker_session_state_set_container_id (session_state (self), id);
  g_task_return_boolean (task, TRUE);
}

static void
host_mounted (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  AgentsDockerSession *self = AGENTS_DOCKER_SESSION (source);
  GError *error = NULL;

  if (!agents_docker_host_mounts_mount_finish (self, result, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  agents_docker_host_mounts_sync_state (self, session_state (self));
  g_task_run_in_thread (task, ensure_thread);
}

void
agents_docker_session_ensure_container_async (AgentsDockerSession *self,
                                              gboolean reuse,
                                              GCancellable *cancellable,
                                              GAsyncReadyCallback callback,
                                              gpointer user_data)
{
  g_autoptr (GTask) task = g_task_new (self, cancellable, callback, user_data);
  EnsureOp *op = g_new0 (EnsureOp, 1);

  g_task_set_source_tag (task, agents_docker_session_ensure_container_async);
  op->reuse = reuse;
  g_task_set_task_data (task, op, g_free);
  /* Host mounts (s3_mount) first: the engine binds them at creation. */
  agents_docker_host_mounts_mount_async (self, cancellable, host_mounted,
                                         g_steal_pointer (&task));
}

gboolean
agents_docker_session_ensure_container_finish (AgentsDockerSession *self,
                                               GAsyncResult *result,
                                               GError **error)
{
  EnsureOp *op;

  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  if (!g_task_propagate_boolean (G_TASK (result), error))
    return FALSE;
  op = g_task_get_task_data (G_TASK (result));
  /* What survived with the container: its file system, so the
   * workspace (if it had been prepared) and the accounts. */
  agents_sandbox_session_set_start_state_preserved (
    AGENTS_SANDBOX_SESSION (self),
    op->reused && agents_sandbox_session_state_get_workspace_root_ready (
                    AGENTS_SANDBOX_SESSION_STATE (session_state (self))),
    op->reused);
  return TRUE;
}

static void
remove_thread (GTask *task,
               gpointer source,
               gpointer task_data,
               GCancellable *cancellable)
{
  AgentsDockerSession *self = source;
  const char *id =
    agents_docker_session_state_get_container_id (session_state (self));
  g_autoptr (AgentsDockerContainer) container = NULL;
  GError *error = NULL;

  if (id == NULL)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  container = agents_docker_container_new (self->engine, id);
  if (!agents_docker_container_remove_owned (
        container,
        agents_sandbox_session_state_get_session_id (
          AGENTS_SANDBOX_SESSION_STATE (session_state (self))),
        cancellable, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  agents_docker_host_mounts_remove_volumes (self->engine, session_state (self),
                                            cancellable);
  g_task_return_boolean (task, TRUE);
}

void
agents_docker_session_remove_container_async (AgentsDockerSession *self,
                                              GCancellable *cancellable,
                                              GAsyncReadyCallback callback,
                                              gpointer user_data)
{
  g_autoptr (GTask) task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, agents_docker_session_remove_container_async);
  g_task_run_in_thread (task, remove_thread);
}

gboolean
agents_docker_session_remove_container_finish (AgentsDockerSession *self,
                                               GAsyncResult *result,
                                               GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
start_ensured (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  AgentsDockerSession *self = AGENTS_DOCKER_SESSION (source);
  gboolean workspace = FALSE, system = FALSE;
  GError *error = NULL;

  /* Starting does not change what the create or resume found. */
  agents_sandbox_session_get_start_state_preserved (
    AGENTS_SANDBOX_SESSION (self), &workspace, &system);
  if (!agents_docker_session_ensure_container_finish (self, result, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  agents_sandbox_session_set_start_state_preserved (
    AGENTS_SANDBOX_SESSION (self), workspace, system);
  g_task_return_boolean (task, TRUE);
}

static void
docker_start_backend (AgentsSandboxSessionBase *base, GTask *task)
{
  /* A container shut down earlier is started again, in place. */
  agents_docker_session_ensure_container_async (
    AGENTS_DOCKER_SESSION (base), TRUE, g_task_get_cancellable (task),
    start_ensured, g_object_ref (task));
}

static void
shutdown_thread (GTask *task,
                 gpointer source,
                 gpointer task_data,
                 GCancellable *cancellable)
{
  AgentsDockerSession *self = source;
  const char *id =
    agents_docker_session_state_get_container_id (session_state (self));
  g_autoptr (AgentsDockerContainer) container = NULL;
  GError *error = NULL;

  if (id == NULL)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  session_drop_exec_servers (self);
  container = agents_docker_container_new (self->engine, id);
  if (!agents_docker_container_stop (container, cancellable, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
shutdown_unmounted (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;

  if (!agents_docker_host_mounts_unmount_finish (AGENTS_DOCKER_SESSION (source),
                                                 result, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
shutdown_stopped (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      g_task_return_error (task, error);
      return;
    }
  /* Stopped, the container no longer holds the host mounts. */
  agents_docker_host_mounts_unmount_async (
    AGENTS_DOCKER_SESSION (source), g_task_get_cancellable (task),
    shutdown_unmounted, g_object_ref (task));
}

static void
shutdown_unmounted_in_container (GObject *source,
                                 GAsyncResult *result,
                                 gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  g_autoptr (GTask) stop = NULL;

  /* A failure was logged: the container stops all the same. */
  agents_docker_host_mounts_unmount_in_container_finish (
    AGENTS_DOCKER_SESSION (source), result, NULL);
  stop = g_task_new (source, g_task_get_cancellable (task), shutdown_stopped,
                     g_object_ref (task));
  g_task_run_in_thread (stop, shutdown_thread);
}

static void
docker_shutdown_backend (AgentsSandboxSessionBase *base, GTask *task)
{
  AgentsDockerSession *self = AGENTS_DOCKER_SESSION (base);

  /* Mounts inside the container go first, their uploads done. */
  if (agents_docker_session_state_get_container_id (session_state (self)) ==
      NULL)
    {
      g_autoptr (GTask) stop =
        g_task_new (base, g_task_get_cancellable (task), shutdown_stopped,
                    g_object_ref (task));

      g_task_run_in_thread (stop, shutdown_thread);
      return;
    }
  agents_docker_host_mounts_unmount_in_container_async (
    self, g_task_get_cancellable (task), shutdown_unmounted_in_container,
    g_object_ref (task));
}

static void
session_iface_init (AgentsSandboxSessionInterface *iface)
{
  iface->running = docker_running;
  iface->start_process = docker_start_process;
  iface->read = docker_read;
  iface->write = docker_write;
  iface->persist_workspace = docker_persist_workspace;
  iface->hydrate_workspace = docker_hydrate_workspace;
}
