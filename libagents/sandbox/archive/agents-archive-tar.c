/* agents-archive-tar.c - a tar stream of a directory, written
 * by a worker thread
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <glib-unix.h>
#include <glib/gi18n-lib.h>

#include "agents-archive-private.h"
#include "agents-sandbox-error-private.h"

#define BLOCK_SIZE (64 * 1024)
/* What the persist worker hands the reader at a time. */
#define WRITE_BLOCK_SIZE (256 * 1024)

/* ======================================================================
 * Creating: a worker thread writes the tar into a socket pair
 * ====================================================================== */

typedef struct
{
  int root_fd;
  char *root;
  GHashTable *exclude; /* normalized root-relative paths */
  gboolean exclude_all;
  int out_fd;
  GCancellable *cancellable;
  int stop; /* atomic: the reader went away */
  GError *error;
  guint8 *buffer;
} TarJob;

typedef struct
{
  int fd;
  char *rel;
  GPtrArray *names;
  guint next;
} DirFrame;

static void
tar_job_free (TarJob *job)
{
  if (job->root_fd >= 0)
    close (job->root_fd);
  if (job->out_fd >= 0)
    close (job->out_fd);
  g_free (job->root);
  g_clear_pointer (&job->exclude, g_hash_table_unref);
  g_clear_object (&job->cancellable);
  g_clear_error (&job->error);
  g_free (job->buffer);
  g_free (job);
}

static void
dir_frame_free (gpointer data)
{
  DirFrame *frame = data;

  if (frame->fd >= 0)
    close (frame->fd);
  g_free (frame->rel);
  g_clear_pointer (&frame->names, g_ptr_array_unref);
  g_free (frame);
}

static gboolean
tar_job_fail_errno (TarJob *job, const char *rel, int errsv)
{
  if (job->error == NULL)
    agents_archive_set_path_error (&job->error,
                                   AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ,
                                   job->root, rel, g_strerror (errsv));
  return FALSE;
}

static gboolean
tar_job_fail_archive (TarJob *job, struct archive *a, const char *rel)
{
  const char *reason = archive_error_string (a);

  if (job->error == NULL)
    agents_archive_set_path_error (
      &job->error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ, job->root, rel,
      reason ? reason : _ ("archive error"));
  return FALSE;
}

static gboolean
tar_job_should_stop (TarJob *job)
{
  if (g_atomic_int_get (&job->stop))
    {
      if (job->error == NULL)
        g_set_error_literal (&job->error, G_IO_ERROR, G_IO_ERROR_CLOSED,
                             _ ("Stream is already closed"));
      return TRUE;
    }
  if (job->error == NULL &&
      g_cancellable_set_error_if_cancelled (job->cancellable, &job->error))
    return TRUE;
  return job->error != NULL;
}

static la_ssize_t
tar_write_cb (struct archive *a, void *data, const void *buffer, size_t length)
{
  TarJob *job = data;
  const char *p = buffer;
  size_t left = length;

  while (left > 0)
    {
      ssize_t n;

      if (tar_job_should_stop (job))
        {
          archive_set_error (a, ECANCELED, "%s", job->error->message);
          return -1;
        }
      /* A socket rather than a pipe: MSG_NOSIGNAL spares us SIGPIPE when
       * the reader has gone away. */
      n = send (job->out_fd, p, left, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int errsv = errno;

          tar_job_fail_errno (job, NULL, errsv);
          archive_set_error (a, errsv, "%s", g_strerror (errsv));
          return -1;
        }
      p += n;
      left -= n;
    }
  return length;
}

static GPtrArray *
list_directory (int fd, int *errsv)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  int dup_fd = openat (fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  struct dirent *de;
  DIR *dir;

  if (dup_fd < 0 || (dir = fdopendir (dup_fd)) == NULL)
    {
      *errsv = errno;
      if (dup_fd >= 0)
        close (dup_fd);
      return NULL;
    }
  errno = 0;
  while ((de = readdir (dir)) != NULL)
    {
      if (strcmp (de->d_name, ".") != 0 && strcmp (de->d_name, "..") != 0)
        g_ptr_array_add (names, g_strdup (de->d_name));
      errno = 0;
    }
  *errsv = errno;
  closedir (dir);
  if (*errsv != 0)
    return NULL;
  return g_steal_pointer (&names);
}

/* g_ptr_array_sort() passes pointers to the elements. */
static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

static gboolean
tar_write_header (TarJob *job,
                  struct archive *a,
                  const char *rel,
                  const struct stat *st,
                  const char *link_target)
{
  struct archive_entry *entry = archive_entry_new ();
  g_autofree char *arcname =
    *rel ? g_strconcat ("./", rel, NULL) : g_strdup (".");
  int r;

  archive_entry_set_pathname (entry, arcname);
  archive_entry_set_filetype (entry, st->st_mode & S_IFMT);
  archive_entry_set_perm (entry, st->st_mode & 07777);
  archive_entry_set_uid (entry, st->st_uid);
  archive_entry_set_gid (entry, st->st_gid);
  archive_entry_set_mtime (entry, st->st_mtime, 0);
  archive_entry_set_size (entry, S_ISREG (st->st_mode) ? st->st_size : 0);
  if (link_target != NULL)
    archive_entry_set_symlink (entry, link_target);

  r = archive_write_header (a, entry);
  archive_entry_free (entry);
  if (r < ARCHIVE_WARN)
    return tar_job_fail_archive (job, a, rel);
  return TRUE;
}

static gboolean
tar_write_file_data (
  TarJob *job, struct archive *a, int fd, gint64 size, const char *rel)
{
  gint64 left = size;

  while (left > 0)
    {
      ssize_t n;

      if (tar_job_should_stop (job))
        return FALSE;
      n = read (fd, job->buffer, MIN (left, BLOCK_SIZE));
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return tar_job_fail_errno (job, rel, errno);
      if (n == 0)
        break; /* the file shrank; libarchive pads the member */
      if (archive_write_data (a, job->buffer, n) < 0)
        return tar_job_fail_archive (job, a, rel);
      left -= n;
    }
  return TRUE;
}

static gboolean
tar_add_symlink (TarJob *job,
                 struct archive *a,
                 int dir_fd,
                 const char *name,
                 const char *rel,
                 const struct stat *st)
{
  gsize size = MAX (st->st_size, 64) + 1;

  for (;;)
    {
      g_autofree char *target = g_malloc (size);
      ssize_t n = readlinkat (dir_fd, name, target, size);

      if (n < 0)
        return errno == ENOENT || errno == EINVAL
                 ? TRUE /* vanished or replaced meanwhile */
                 : tar_job_fail_errno (job, rel, errno);
      if ((gsize) n < size)
        {
          target[n] = '\0';
          return tar_write_header (job, a, rel, st, target);
        }
      size *= 2;
    }
}

static gboolean
tar_add_regular (
  TarJob *job, struct archive *a, int dir_fd, const char *name, const char *rel)
{
  struct stat st;
  gboolean ok;
  int fd;

  /* O_NONBLOCK: a fifo swapped in after the stat must not hang us. */
  fd = openat (dir_fd, name,
               O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    return errno == ENOENT || errno == ELOOP
             ? TRUE
             : tar_job_fail_errno (job, rel, errno);
  if (fstat (fd, &st) < 0)
    {
      int errsv = errno;

      close (fd);
      return tar_job_fail_errno (job, rel, errsv);
    }
  if (!S_ISREG (st.st_mode))
    {
      close (fd);
      return TRUE;
    }
  ok = tar_write_header (job, a, rel, &st, NULL) &&
       tar_write_file_data (job, a, fd, st.st_size, rel);
  close (fd);
  return ok;
}

static DirFrame *
open_dir_frame (TarJob *job, int fd, const char *rel)
{
  DirFrame *frame = g_new0 (DirFrame, 1);
  int errsv = 0;

  frame->fd = fd;
  frame->rel = g_strdup (rel);
  frame->names = list_directory (fd, &errsv);
  if (frame->names == NULL)
    {
      tar_job_fail_errno (job, rel, errsv);
      dir_frame_free (frame);
      return NULL;
    }
  g_ptr_array_sort (frame->names, compare_names);
  return frame;
}

/* Adds a directory's header and returns the frame to walk it with, or
 * NULL; *ok tells whether NULL is a failure. */
static DirFrame *
tar_add_directory (TarJob *job,
                   struct archive *a,
                   int dir_fd,
                   const char *name,
                   const char *rel,
                   gboolean *ok)
{
  struct stat st;
  DirFrame *frame;
  int fd =
    openat (dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

  *ok = TRUE;
  if (fd < 0)
    {
      /* Vanished, or replaced by a symlink or file since the stat. */
      if (errno != ENOENT && errno != ELOOP && errno != ENOTDIR)
        *ok = tar_job_fail_errno (job, rel, errno);
      return NULL;
    }
  if (fstat (fd, &st) < 0)
    *ok = tar_job_fail_errno (job, rel, errno);
  else
    *ok =
      tar_write_header (job, a, rel, &st, NULL) && !tar_job_should_stop (job);
  if (!*ok)
    {
      close (fd);
      return NULL;
    }
  frame = open_dir_frame (job, fd, rel);
  *ok = frame != NULL;
  return frame;
}

static gboolean
tar_add_child (TarJob *job,
               struct archive *a,
               DirFrame *parent,
               const char *name,
               GPtrArray *stack)
{
  g_autofree char *rel =
    *parent->rel ? g_strconcat (parent->rel, "/", name, NULL) : g_strdup (name);
  struct stat st;

  if (g_hash_table_contains (job->exclude, rel))
    return TRUE;
  if (fstatat (parent->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
    return errno == ENOENT ? TRUE : tar_job_fail_errno (job, rel, errno);

  switch (st.st_mode & S_IFMT)
    {
    case S_IFLNK:
      return tar_add_symlink (job, a, parent->fd, name, rel, &st);
    case S_IFREG:
      return tar_add_regular (job, a, parent->fd, name, rel);
    case S_IFDIR:
      {
        gboolean ok;
        DirFrame *frame =
          tar_add_directory (job, a, parent->fd, name, rel, &ok);

        if (frame != NULL)
          g_ptr_array_add (stack, frame);
        return ok;
      }
    default:
      return TRUE; /* sockets, fifos and devices are not archived */
    }
}

static gboolean
tar_walk (TarJob *job, struct archive *a)
{
  g_autoptr (GPtrArray) stack = g_ptr_array_new_with_free_func (dir_frame_free);
  struct stat st;
  DirFrame *root;
  int fd;

  if (fstat (job->root_fd, &st) < 0)
    return tar_job_fail_errno (job, NULL, errno);
  if (!tar_write_header (job, a, "", &st, NULL))
    return FALSE;
  if (job->exclude_all)
    return TRUE;

  fd = fcntl (job->root_fd, F_DUPFD_CLOEXEC, 3);
  if (fd < 0)
    return tar_job_fail_errno (job, NULL, errno);
  root = open_dir_frame (job, fd, "");
  if (root == NULL)
    return FALSE;
  g_ptr_array_add (stack, root);

  while (stack->len > 0)
    {
      DirFrame *top = g_ptr_array_index (stack, stack->len - 1);

      if (top->next == top->names->len)
        {
          g_ptr_array_remove_index (stack, stack->len - 1);
          continue;
        }
      if (tar_job_should_stop (job) ||
          !tar_add_child (job, a, top,
                          g_ptr_array_index (top->names, top->next++), stack))
        return FALSE;
    }
  return TRUE;
}

static gpointer
tar_worker (gpointer data)
{
  TarJob *job = data;
  struct archive *a = archive_write_new ();
  gboolean ok;

  archive_write_set_format_pax_restricted (a);
  /* libarchive's default is GNU tar's 10 KiB record: one send() per 10 KiB
   * made the worker and the reader take turns every 10 KiB. The archive
   * still ends on a 10 KiB record, so its bytes do not change. */
  archive_write_set_bytes_per_block (a, WRITE_BLOCK_SIZE);
  archive_write_set_bytes_in_last_block (a, 10240);
  ok = archive_write_open (a, job, NULL, tar_write_cb, NULL) == ARCHIVE_OK ||
       tar_job_fail_archive (job, a, NULL);
  ok = ok && tar_walk (job, a);
  if (ok && archive_write_close (a) != ARCHIVE_OK)
    ok = tar_job_fail_archive (job, a, NULL);
  if (!ok)
    {
      /* No end-of-archive marker after a failure: the reader must not
       * mistake a partial archive for a complete one. */
      if (job->error == NULL)
        tar_job_fail_errno (job, NULL, EIO);
      archive_write_fail (a);
      /* libarchive frees the output block only on close, which its free()
       * skips for a failed archive; the callback writes nothing more. */
      archive_write_close (a);
    }
  archive_write_free (a);

  /* Closing our end is what the reader sees as the end of the stream, so
   * it is the last thing the worker does. */
  close (job->out_fd);
  job->out_fd = -1;
  return NULL;
}

/* ---- the stream ------------------------------------------------------- */

G_DECLARE_FINAL_TYPE (
  AgentsTarStream, agents_tar_stream, AGENTS, TAR_STREAM, GInputStream)

struct _AgentsTarStream
{
  GInputStream parent_instance;

  int fd;
  GThread *thread;
  TarJob *job;
  gboolean finished;
};

static void
agents_tar_stream_pollable_iface_init (GPollableInputStreamInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  AgentsTarStream,
  agents_tar_stream,
  G_TYPE_INPUT_STREAM,
  G_IMPLEMENT_INTERFACE (G_TYPE_POLLABLE_INPUT_STREAM,
                         agents_tar_stream_pollable_iface_init))

/* Joins the worker after it closed its end; returns its error. */
static gboolean
agents_tar_stream_join (AgentsTarStream *self, GError **error)
{
  GError *worker_error;

  self->finished = TRUE;
  if (self->thread == NULL)
    return TRUE;
  g_thread_join (g_steal_pointer (&self->thread));
  close (self->fd);
  self->fd = -1;
  worker_error = g_steal_pointer (&self->job->error);
  g_clear_pointer (&self->job, tar_job_free);
  if (worker_error != NULL)
    {
      g_propagate_error (error, worker_error);
      return FALSE;
    }
  return TRUE;
}

/* Stops a worker that has not finished: closing our end makes its next
 * send() fail, and the flag stops it between two blocks of a file. */
static void
agents_tar_stream_stop (AgentsTarStream *self)
{
  if (self->job != NULL)
    g_atomic_int_set (&self->job->stop, 1);
  if (self->fd >= 0)
    close (self->fd);
  self->fd = -1;
  if (self->thread != NULL)
    g_thread_join (g_steal_pointer (&self->thread));
  g_clear_pointer (&self->job, tar_job_free);
  self->finished = TRUE;
}

static gssize
agents_tar_stream_recv_result (AgentsTarStream *self,
                               gssize n,
                               int errsv,
                               GError **error)
{
  if (n > 0)
    return n;
  if (n == 0)
    return agents_tar_stream_join (self, error) ? 0 : -1;
  if (errsv == EAGAIN || errsv == EWOULDBLOCK)
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK,
                         g_strerror (errsv));
  else
    g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                 _ ("Error reading from archive stream: %s"),
                 g_strerror (errsv));
  return -1;
}

static gboolean
agents_tar_stream_wait (AgentsTarStream *self,
                        GCancellable *cancellable,
                        GError **error)
{
  GPollFD fds[2] = { { self->fd, G_IO_IN, 0 } };
  int n_fds = 1;

  if (g_cancellable_make_pollfd (cancellable, &fds[1]))
    n_fds = 2;
  while (g_poll (fds, n_fds, -1) < 0 && errno == EINTR)
    ;
  if (n_fds == 2)
    g_cancellable_release_fd (cancellable);
  return !g_cancellable_set_error_if_cancelled (cancellable, error);
}

static gssize
agents_tar_stream_read (GInputStream *stream,
                        void *buffer,
                        gsize count,
                        GCancellable *cancellable,
                        GError **error)
{
  AgentsTarStream *self = AGENTS_TAR_STREAM (stream);
  gssize n;

  if (self->finished)
    return 0;
  if (cancellable != NULL && !agents_tar_stream_wait (self, cancellable, error))
    return -1;
  do
    n = recv (self->fd, buffer, count, 0);
  while (n < 0 && errno == EINTR);
  return agents_tar_stream_recv_result (self, n, errno, error);
}

static gboolean
agents_tar_stream_close (GInputStream *stream,
                         GCancellable *cancellable,
                         GError **error)
{
  agents_tar_stream_stop (AGENTS_TAR_STREAM (stream));
  return TRUE;
}

static void
agents_tar_stream_finalize (GObject *object)
{
  agents_tar_stream_stop (AGENTS_TAR_STREAM (object));
  G_OBJECT_CLASS (agents_tar_stream_parent_class)->finalize (object);
}

static void
agents_tar_stream_class_init (AgentsTarStreamClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GInputStreamClass *stream_class = G_INPUT_STREAM_CLASS (klass);

  object_class->finalize = agents_tar_stream_finalize;
  stream_class->read_fn = agents_tar_stream_read;
  stream_class->close_fn = agents_tar_stream_close;
}

static void
agents_tar_stream_init (AgentsTarStream *self)
{
  self->fd = -1;
}

static gboolean
agents_tar_stream_can_poll (GPollableInputStream *stream)
{
  return TRUE;
}

static gboolean
agents_tar_stream_is_readable (GPollableInputStream *stream)
{
  AgentsTarStream *self = AGENTS_TAR_STREAM (stream);
  struct pollfd pfd = { self->fd, POLLIN, 0 };

  return self->finished || poll (&pfd, 1, 0) > 0;
}

static GSource *
agents_tar_stream_create_source (GPollableInputStream *stream,
                                 GCancellable *cancellable)
{
  AgentsTarStream *self = AGENTS_TAR_STREAM (stream);
  g_autoptr (GSource) base = NULL;

  if (self->finished)
    base = g_timeout_source_new (0);
  else
    base = g_unix_fd_source_new (self->fd, G_IO_IN);
  return g_pollable_source_new_full (stream, base, cancellable);
}

static gssize
agents_tar_stream_read_nonblocking (GPollableInputStream *stream,
                                    void *buffer,
                                    gsize count,
                                    GError **error)
{
  AgentsTarStream *self = AGENTS_TAR_STREAM (stream);
  gssize n;

  if (self->finished)
    return 0;
  do
    n = recv (self->fd, buffer, count, MSG_DONTWAIT);
  while (n < 0 && errno == EINTR);
  return agents_tar_stream_recv_result (self, n, errno, error);
}

static void
agents_tar_stream_pollable_iface_init (GPollableInputStreamInterface *iface)
{
  iface->can_poll = agents_tar_stream_can_poll;
  iface->is_readable = agents_tar_stream_is_readable;
  iface->create_source = agents_tar_stream_create_source;
  iface->read_nonblocking = agents_tar_stream_read_nonblocking;
}

/**
 * agents_archive_tar_directory:
 * @root: (type filename): the directory to archive
 * @exclude: (array zero-terminated=1) (nullable): root-relative paths left
 *   out together with everything below them
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Streams a tar archive of the tree under @root, the way workspaces are
 * persisted. Member names are `.` (the root) first, then `./a`, `./a/b`, …
 * in sorted order. Symlinks are stored, never followed; sockets, fifos
 * and devices are skipped. Memory use does not depend on the tree's size.
 *
 * The archive is produced by a worker thread as the stream is read. An
 * error of the worker is returned by the read that would otherwise have
 * reported the end of the stream, so a truncated archive is never taken
 * for a complete one; closing the stream early stops the worker.
 *
 * Returns: (transfer full): the archive stream, or %NULL with @error set
 */
GInputStream *
agents_archive_tar_directory (const char *root,
                              const char *const *exclude,
                              GCancellable *cancellable,
                              GError **error)
{
  g_autoptr (AgentsTarStream) stream = NULL;
  TarJob *job;
  int fds[2];
  int root_fd;

  g_return_val_if_fail (root != NULL, NULL);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable),
                        NULL);

  root_fd = open (root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (root_fd < 0)
    {
      agents_archive_set_path_error (
        error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ, root, NULL,
        g_strerror (errno));
      return NULL;
    }
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0)
    {
      agents_archive_set_path_error (
        error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ, root, NULL,
        g_strerror (errno));
      close (root_fd);
      return NULL;
    }
  shutdown (fds[0], SHUT_WR);
  shutdown (fds[1], SHUT_RD);

  job = g_new0 (TarJob, 1);
  job->root_fd = root_fd;
  job->root = g_strdup (root);
  job->exclude = agents_archive_normalize_excludes (exclude, &job->exclude_all);
  job->out_fd = fds[1];
  job->cancellable = cancellable ? g_object_ref (cancellable) : NULL;
  job->buffer = g_malloc (BLOCK_SIZE);

  stream = g_object_new (agents_tar_stream_get_type (), NULL);
  stream->fd = fds[0];
  stream->job = job;
  stream->thread = g_thread_try_new ("agents-tar", tar_worker, job, error);
  if (stream->thread == NULL)
    {
      g_clear_pointer (&stream->job, tar_job_free);
      return NULL;
    }
  return G_INPUT_STREAM (g_steal_pointer (&stream));
}
