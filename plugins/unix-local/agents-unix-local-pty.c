/* agents-unix-local-pty.c - unix_local processes that run on between calls
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The session spawns the command exactly as it spawns any command (same
 * confinement, identity, limits and cgroup), on the slave of a PTY made
 * here when it asked for one, but without forking
 * (agents_unix_local_confine_spawn_child()); this object then pumps the
 * PTY master (or the stdout and stderr pipes) into the process base
 * class, writes to the master, waits for the process on its pidfd in the
 * caller's main context, and kills the process group.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <gio/gunixoutputstream.h>
#include <glib-unix.h>
#include <glib/gi18n-lib.h>

#include "agents-sandbox-error-private.h"
#include "agents-unix-local-pty.h"

/* The reference reads 16 KiB at a time. */
#define READ_CHUNK 16384
/* How long output may still come after the command exited, from what
 * it left behind, before the reading stops. */
#define DRAIN_GRACE_MS 500

struct _AgentsUnixLocalProcess
{
  AgentsSandboxProcess parent_instance;

  pid_t pid;
  int pidfd; /* -1 where the kernel has none: a GLib child watch then */
  GSource *watch;
  int master; /* -1 without a PTY */
  GOutputStream *input;
  AgentsUnixLocalCgroup *cgroup;
  /* What is read: the master, or stdout and stderr. Each is watched by a
   * source of its own, for as long as it has not ended. */
  int reader_fds[2];
  GSource *readers[2];
  guint n_open;
  GSource *grace;
};

G_DEFINE_FINAL_TYPE (AgentsUnixLocalProcess,
                     agents_unix_local_process,
                     AGENTS_TYPE_SANDBOX_PROCESS)

gboolean
agents_unix_local_pty_open (int *master, int *slave, GError **error)
{
  struct winsize size = { .ws_row = 24, .ws_col = 80 };

  if (openpty (master, slave, NULL, NULL, &size) < 0)
    {
      int err = errno;

      agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_EXEC_TRANSPORT,
                                NULL, _ ("could not open a PTY: %s"),
                                g_strerror (err));
      return FALSE;
    }
  if (!g_unix_set_fd_nonblocking (*master, TRUE, error) ||
      fcntl (*master, F_SETFD, FD_CLOEXEC) < 0 ||
      fcntl (*slave, F_SETFD, FD_CLOEXEC) < 0)
    {
      close (*master);
      close (*slave);
      agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_EXEC_TRANSPORT,
                                NULL, "%s", _ ("could not set up a PTY"));
      return FALSE;
    }
  return TRUE;
}

static void
kill_group (AgentsUnixLocalProcess *self)
{
  if (self->pid <= 0)
    return;
  kill (-self->pid, SIGKILL);
  if (!agents_sandbox_process_has_exited (AGENTS_SANDBOX_PROCESS (self)))
    kill (self->pid, SIGKILL);
}

static void
cgroup_free_thread (GTask *task,
                    gpointer source_object,
                    gpointer task_data,
                    GCancellable *cancellable)
{
  agents_unix_local_cgroup_free (task_data);
}

/* Kills what is left in the cgroup; waiting for it to empty and removing
 * it happen in a worker. */
static void
release_cgroup (AgentsUnixLocalProcess *self)
{
  g_autoptr (GTask) task = NULL;

  if (self->cgroup == NULL)
    return;
  if (agents_unix_local_cgroup_kill (self->cgroup))
    {
      g_clear_pointer (&self->cgroup, agents_unix_local_cgroup_free);
      return;
    }
  task = g_task_new (NULL, NULL, NULL, NULL);
  g_task_set_task_data (task, g_steal_pointer (&self->cgroup), NULL);
  g_task_run_in_thread (task, cgroup_free_thread);
}

static void
stream_ended (AgentsUnixLocalProcess *self)
{
  if (self->n_open == 0 || --self->n_open > 0)
    return;
  if (self->grace != NULL)
    {
      g_source_destroy (self->grace);
      g_clear_pointer (&self->grace, g_source_unref);
    }
  agents_sandbox_process_close_output (AGENTS_SANDBOX_PROCESS (self));
}

/* The output is read straight from the descriptors, one chunk per
 * wake-up of the main loop: no stream, task or source is made per read. */
static void
stop_reader (AgentsUnixLocalProcess *self, guint i)
{
  g_autoptr (AgentsUnixLocalProcess) keep = g_object_ref (self);

  if (self->readers[i] == NULL)
    return;
  g_source_destroy (self->readers[i]);
  g_clear_pointer (&self->readers[i], g_source_unref);
  stream_ended (self);
}

static gboolean
reader_ready (int fd, GIOCondition condition, gpointer user_data)
{
  AgentsUnixLocalProcess *self = user_data;
  guint i = fd == self->reader_fds[0] ? 0 : 1;
  char buffer[READ_CHUNK];
  gssize n;

  do
    n = read (fd, buffer, sizeof buffer);
  while (n < 0 && errno == EINTR);
  if (n < 0 && errno == EAGAIN)
    return G_SOURCE_CONTINUE;
  /* A PTY master reads EIO once the last slave is closed: that is its
   * end of file. */
  if (n <= 0)
    {
      stop_reader (self, i);
      return G_SOURCE_REMOVE;
    }
  {
    g_autoptr (GBytes) bytes = g_bytes_new (buffer, n);

    agents_sandbox_process_push_output (AGENTS_SANDBOX_PROCESS (self), bytes);
  }
  return G_SOURCE_CONTINUE;
}

/* GLib 2.74 blocks a source that cannot recurse for its dispatch: it
 * takes its descriptor out of the poll set and puts it back, waking the
 * context each time, which costs an empty iteration of the main loop and
 * four system calls per chunk read. These sources are never blocked. An
 * ::output handler that iterates the context may then see a later chunk
 * before the handlers after it see the current one; the output kept for
 * collecting stays in order. */
static void
attach_recursive (GSource *source)
{
  g_source_set_can_recurse (source, TRUE);
  g_source_attach (source, g_main_context_get_thread_default ());
}

static void
start_reader (AgentsUnixLocalProcess *self, guint i, int fd)
{
  GSource *source = g_unix_fd_source_new (fd, G_IO_IN | G_IO_HUP | G_IO_ERR);

  /* Only ever read when poll() said so; non-blocking all the same. */
  g_unix_set_fd_nonblocking (fd, TRUE, NULL);
  self->reader_fds[i] = fd;
  self->readers[i] = source;
  self->n_open++;
  g_source_set_callback (source, G_SOURCE_FUNC (reader_ready),
                         g_object_ref (self), g_object_unref);
  attach_recursive (source);
}

static gboolean
grace_over (gpointer user_data)
{
  AgentsUnixLocalProcess *self = user_data;

  g_clear_pointer (&self->grace, g_source_unref);
  for (guint i = 0; i < G_N_ELEMENTS (self->readers); i++)
    stop_reader (self, i);
  return G_SOURCE_REMOVE;
}

static void
exited (AgentsUnixLocalProcess *self, int wait_status)
{
  int status;

  if (WIFSIGNALED (wait_status))
    status = 128 + WTERMSIG (wait_status);
  else
    status = WEXITSTATUS (wait_status);
  g_clear_pointer (&self->watch, g_source_unref);
  /* Nothing the command started may outlive it. */
  kill_group (self);
  release_cgroup (self);
  if (self->n_open > 0 && self->grace == NULL)
    {
      self->grace = g_timeout_source_new (DRAIN_GRACE_MS);
      g_source_set_callback (self->grace, grace_over, g_object_ref (self),
                             g_object_unref);
      g_source_attach (self->grace, g_main_context_get_thread_default ());
    }
  agents_sandbox_process_set_exit_status (AGENTS_SANDBOX_PROCESS (self),
                                          status);
}

/* The pidfd is readable once the process exited: reaped right here, in
 * the caller's context, without GLib's worker thread. */
static gboolean
pidfd_ready (int fd, GIOCondition condition, gpointer user_data)
{
  AgentsUnixLocalProcess *self = user_data;
  int wait_status = 0;
  pid_t pid;

  if (self->watch == NULL)
    return G_SOURCE_REMOVE; /* reaped already, in a nested iteration */
  do
    pid = waitpid (self->pid, &wait_status, WNOHANG);
  while (pid < 0 && errno == EINTR);
  if (pid == 0)
    return G_SOURCE_CONTINUE;
  if (pid < 0)
    wait_status = 0; /* reaped by someone else: its status is lost */
  exited (self, wait_status);
  return G_SOURCE_REMOVE;
}

static void
child_watched (GPid pid, int wait_status, gpointer user_data)
{
  exited (user_data, wait_status);
}

static void
watch_child (AgentsUnixLocalProcess *self)
{
  if (self->pidfd >= 0)
    {
      self->watch = g_unix_fd_source_new (self->pidfd, G_IO_IN);
      g_source_set_callback (self->watch, G_SOURCE_FUNC (pidfd_ready),
                             g_object_ref (self), g_object_unref);
      attach_recursive (self->watch);
      return;
    }
  self->watch = g_child_watch_source_new (self->pid);
  g_source_set_callback (self->watch, G_SOURCE_FUNC (child_watched),
                         g_object_ref (self), g_object_unref);
  g_source_attach (self->watch, g_main_context_get_thread_default ());
}

AgentsSandboxProcess *
agents_unix_local_process_new (const AgentsUnixLocalChild *child,
                               int master,
                               AgentsUnixLocalCgroup *cgroup)
{
  AgentsUnixLocalProcess *self =
    g_object_new (AGENTS_TYPE_UNIX_LOCAL_PROCESS, "tty", master >= 0, NULL);

  self->pid = child->pid;
  self->pidfd = child->pidfd;
  self->master = master;
  self->cgroup = cgroup;
  if (master >= 0)
    {
      self->input = g_unix_output_stream_new (master, FALSE);
      start_reader (self, 0, master);
    }
  else
    {
      start_reader (self, 0, child->stdout_fd);
      start_reader (self, 1, child->stderr_fd);
    }
  watch_child (self);
  return AGENTS_SANDBOX_PROCESS (self);
}

static void
write_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  g_autoptr (GError) error = NULL;

  /* A terminal whose process is gone takes no input: as the reference,
   * that is not an error (the poll reports the exit). */
  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL,
                                         &error))
    g_debug ("unix_local PTY write: %s", error->message);
  g_task_return_boolean (task, TRUE);
}

static void
unix_local_process_write_stdin (AgentsSandboxProcess *process,
                                GBytes *data,
                                GTask *task)
{
  AgentsUnixLocalProcess *self = AGENTS_UNIX_LOCAL_PROCESS (process);
  gsize size;
  const void *bytes = g_bytes_get_data (data, &size);
  gssize written;

  if (self->input == NULL)
    {
      g_task_return_new_error (
        task, AGENTS_SANDBOX_ERROR, AGENTS_SANDBOX_ERROR_NOT_SUPPORTED, "%s",
        _ ("the process was started without a terminal: it has no input"));
      return;
    }
  /* Most input fits in the terminal's buffer: written at once, without
   * a trip through the main loop. */
  do
    written = write (self->master, bytes, size);
  while (written < 0 && errno == EINTR);
  if (written < 0 && errno != EAGAIN)
    {
      /* As the reference: a terminal whose process is gone takes no
       * input, which is not an error (the poll reports the exit). */
      g_debug ("unix_local PTY write: %s", g_strerror (errno));
      written = size;
    }
  if (written >= 0 && (gsize) written == size)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  written = MAX (written, 0);
  g_task_set_task_data (task, g_bytes_ref (data),
                        (GDestroyNotify) g_bytes_unref);
  g_output_stream_write_all_async (self->input, (const char *) bytes + written,
                                   size - written, G_PRIORITY_DEFAULT,
                                   g_task_get_cancellable (task), write_done,
                                   g_object_ref (task));
}

static void
unix_local_process_terminate (AgentsSandboxProcess *process)
{
  AgentsUnixLocalProcess *self = AGENTS_UNIX_LOCAL_PROCESS (process);

  kill_group (self);
  if (self->cgroup != NULL)
    agents_unix_local_cgroup_kill (self->cgroup);
}

/* Only reached once the process exited and its output ended: the
 * readers and the wait hold references. */
static void
agents_unix_local_process_finalize (GObject *object)
{
  AgentsUnixLocalProcess *self = AGENTS_UNIX_LOCAL_PROCESS (object);

  g_clear_object (&self->input);
  if (self->master >= 0)
    close (self->master);
  /* Without a master, the readers' descriptors are the pipes'. */
  for (guint i = 0; self->master < 0 && i < G_N_ELEMENTS (self->reader_fds);
       i++)
    if (self->reader_fds[i] >= 0)
      close (self->reader_fds[i]);
  if (self->pidfd >= 0)
    close (self->pidfd);
  release_cgroup (self);
  G_OBJECT_CLASS (agents_unix_local_process_parent_class)->finalize (object);
}

static void
agents_unix_local_process_class_init (AgentsUnixLocalProcessClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  AgentsSandboxProcessClass *process_class =
    AGENTS_SANDBOX_PROCESS_CLASS (klass);

  object_class->finalize = agents_unix_local_process_finalize;
  process_class->write_stdin = unix_local_process_write_stdin;
  process_class->terminate = unix_local_process_terminate;
}

static void
agents_unix_local_process_init (AgentsUnixLocalProcess *self)
{
  self->master = -1;
  self->pidfd = -1;
  self->reader_fds[0] = self->reader_fds[1] = -1;
}
