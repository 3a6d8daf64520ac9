/* agents-archive.c - streaming tar creation and safe extraction
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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

/* ======================================================================
 * Extracting
 * ====================================================================== */

/* 0: openat2() is tried; 1: disabled by a test; 2: the kernel lacks it */
static int openat2_state;

void
agents_archive_set_openat2_disabled_for_testing (gboolean disabled)
{
  g_atomic_int_set (&openat2_state, disabled ? 1 : 0);
}

typedef struct
{
  char *rel;
  mode_t mode;
  gint64 mtime;
  long mtime_nsec;
  gboolean has_mtime;
} DirMode;

typedef struct
{
  int root_fd;
  const char *root;
  /* What errors about the archive name: the caller's name for it, or
   * @root when it gave none. */
  const char *archive_name;
  AgentsArchiveReader *reader;
  GCancellable *cancellable;
  GArray *dirs;        /* DirMode */
  gboolean keep_links; /* a snapshot: symlinks may point anywhere */
  gboolean no_links;   /* a user's extract: no link members at all */
  /* A workspace hydrate: a snapshot whose symlinks stay inside. */
  gboolean links_stay_inside;
  GHashTable *seen; /* member path -> GINT_TO_POINTER (SeenKind) */
} Extract;

static void
dir_mode_clear (gpointer data)
{
  g_free (((DirMode *) data)->rel);
}

static gboolean
set_write_error (Extract *ex, GError **error, const char *rel, int errsv)
{
  /* Beneath a root of the library's own, the member's path means nothing
   * to the caller: the error names the archive. */
  if (ex->archive_name != ex->root)
    rel = NULL;
  agents_archive_set_path_error (error,
                                 AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE,
                                 ex->archive_name, rel, g_strerror (errsv));
  return FALSE;
}

/* ---- resolution beneath the root -------------------------------------- */

/* Component by component, never following a symlink: used where the
 * kernel has no openat2(). A symlink on the way reports EXDEV, like an
 * escape under RESOLVE_BENEATH. */
static int
open_beneath_fallback (int root_fd, const char *rel, int flags)
{
  g_autoptr (GPtrArray) components = agents_archive_split_components (rel);
  int cur = fcntl (root_fd, F_DUPFD_CLOEXEC, 3);

  for (guint i = 0; cur >= 0 && i < components->len; i++)
    {
      const char *name = g_ptr_array_index (components, i);
      gboolean last = i + 1 == components->len;
      int next_flags = last ? flags : O_PATH | O_DIRECTORY;
      int next = openat (cur, name, next_flags | O_NOFOLLOW | O_CLOEXEC);
      int errsv = errno;
      struct stat st;

      if (next < 0 && (errsv == ENOTDIR || errsv == ELOOP) &&
          fstatat (cur, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
          S_ISLNK (st.st_mode))
        errsv = EXDEV;
      close (cur);
      cur = next;
      errno = errsv;
    }
  return cur;
}

/* Opens @rel (normalized, no ".." components) beneath @root_fd: symlinks
 * are followed only while they stay inside. Returns -1 with errno set;
 * EXDEV or ELOOP mean an escape. */
static int
open_beneath (int root_fd, const char *rel, int flags)
{
  int state = g_atomic_int_get (&openat2_state);

  if (*rel == '\0')
    return fcntl (root_fd, F_DUPFD_CLOEXEC, 3);

  for (int tries = 0; state == 0 && tries < 32; tries++)
    {
      struct open_how how = { 0 };
      int fd;

      how.flags = flags | O_CLOEXEC;
      how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
      fd = syscall (SYS_openat2, root_fd, rel, &how, sizeof how);
      if (fd >= 0)
        return fd;
      if (errno == EAGAIN || errno == EINTR)
        continue;
      if (errno == ENOSYS)
        g_atomic_int_set (&openat2_state, 2);
      /* A seccomp filter may answer EPERM: the fallback is as safe. */
      if (errno != ENOSYS && errno != EPERM)
        return -1;
      break;
    }
  return open_beneath_fallback (root_fd, rel, flags);
}

static gboolean
resolve_failed (Extract *ex,
                GError **error,
                const char *member,
                const char *rel,
                int errsv,
                const char *escape_reason)
{
  if (errsv == EXDEV || errsv == ELOOP)
    return agents_archive_set_unsafe_error (error, member, escape_reason);
  return set_write_error (ex, error, rel, errsv);
}

/* Returns a directory fd (O_PATH) for the first @n components, creating
 * missing directories when @create. */
static int
resolve_dir (Extract *ex,
             GPtrArray *components,
             guint n,
             gboolean create,
             const char *member,
             const char *escape_reason,
             GError **error)
{
  g_autofree char *rel = agents_archive_join_components (components, n);
  int parent;
  int fd;

  fd = open_beneath (ex->root_fd, rel, O_PATH | O_DIRECTORY);
  if (fd >= 0 || errno != ENOENT || !create)
    {
      if (fd < 0)
        resolve_failed (ex, error, member, rel, errno, escape_reason);
      return fd;
    }

  parent = fcntl (ex->root_fd, F_DUPFD_CLOEXEC, 3);
  for (guint i = 0; parent >= 0 && i < n; i++)
    {
      g_autofree char *sub = agents_archive_join_components (components, i + 1);
      const char *name = g_ptr_array_index (components, i);

      fd = open_beneath (ex->root_fd, sub, O_PATH | O_DIRECTORY);
      if (fd < 0 && errno == ENOENT)
        {
          if (mkdirat (parent, name, 0755) < 0 && errno != EEXIST)
            {
              set_write_error (ex, error, sub, errno);
              close (parent);
              return -1;
            }
          fd = open_beneath (ex->root_fd, sub, O_PATH | O_DIRECTORY);
        }
      if (fd < 0)
        resolve_failed (ex, error, member, sub, errno, escape_reason);
      close (parent);
      parent = fd;
    }
  return parent;
}

/* Makes room for a new member at @name: removes a file or symlink there
 * (never following it). An existing directory is kept when @want_dir and
 * is an error otherwise. */
static gboolean
clear_slot (Extract *ex,
            int parent,
            const char *name,
            const char *rel,
            gboolean want_dir,
            gboolean *is_dir,
            GError **error)
{
  struct stat st;

  *is_dir = FALSE;
  if (fstatat (parent, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
    return errno == ENOENT ? TRUE : set_write_error (ex, error, rel, errno);
  if (S_ISDIR (st.st_mode))
    {
      *is_dir = TRUE;
      if (want_dir)
        return TRUE;
      /* A user's extract and a restore name the rule, as the reference
       * does; the plain extractor keeps the docker validator's error. */
      if (ex->keep_links || ex->no_links)
        return agents_archive_set_unsafe_error_full (
          error, rel, "destination_is_directory", rel);
      return set_write_error (ex, error, rel, EISDIR);
    }
  if (unlinkat (parent, name, 0) < 0)
    return set_write_error (ex, error, rel, errno);
  return TRUE;
}

/* ---- members ---------------------------------------------------------- */

/* The walk's view of the disk (an AgentsArchiveInspectFunc): reads the
 * symlink at @rel if there is one there. Returns FALSE on an error other
 * than the path not (fully) existing. */
static gboolean
inspect_disk (const char *rel,
              gboolean *exists,
              gboolean *is_dir,
              char **link_target,
              gpointer user_data)
{
  Extract *ex = user_data;
  char buffer[PATH_MAX];
  struct stat st;
  ssize_t n;
  int fd;

  *link_target = NULL;
  *is_dir = FALSE;
  fd = open_beneath (ex->root_fd, rel, O_PATH | O_NOFOLLOW);
  if (fd < 0)
    {
      *exists = FALSE;
      return errno == ENOENT || errno == ENOTDIR;
    }
  if (fstat (fd, &st) < 0)
    {
      close (fd);
      return FALSE;
    }
  *is_dir = S_ISDIR (st.st_mode);
  if (S_ISLNK (st.st_mode))
    {
      n = readlinkat (fd, "", buffer, sizeof buffer - 1);
      if (n <= 0)
        {
          close (fd);
          return FALSE;
        }
      buffer[n] = '\0';
      *link_target = g_strdup (buffer);
    }
  close (fd);
  return TRUE;
}

/* Whether a symlink created at @components with @target stays inside the
 * root, judged against what is on disk. */
static gboolean
symlink_target_inside (Extract *ex, GPtrArray *components, const char *target)
{
  return agents_archive_walk_inside (components, components->len - 1, target,
                                     inspect_disk, ex, NULL);
}

static void
entry_times (struct archive_entry *entry, struct timespec times[2])
{
  times[0].tv_sec = 0;
  times[0].tv_nsec = UTIME_OMIT;
  if (archive_entry_mtime_is_set (entry))
    {
      times[1].tv_sec = archive_entry_mtime (entry);
      times[1].tv_nsec = archive_entry_mtime_nsec (entry);
    }
  else
    {
      times[1].tv_sec = 0;
      times[1].tv_nsec = UTIME_OMIT;
    }
}

static gboolean
extract_directory (Extract *ex,
                   struct archive_entry *entry,
                   GPtrArray *components,
                   const char *member,
                   const char *rel,
                   GError **error)
{
  const char *name = g_ptr_array_index (components, components->len - 1);
  DirMode dir = { 0 };
  gboolean is_dir;
  int parent;

  parent = resolve_dir (ex, components, components->len - 1, TRUE, member,
                        "symlink_escape", error);
  if (parent < 0)
    return FALSE;
  if (!clear_slot (ex, parent, name, rel, TRUE, &is_dir, error) ||
      (!is_dir && mkdirat (parent, name, 0700) < 0 &&
       !set_write_error (ex, error, rel, errno)))
    {
      close (parent);
      return FALSE;
    }
  close (parent);

  /* Modes are applied at the end: a read-only directory must still take
   * its members. */
  dir.rel = g_strdup (rel);
  dir.mode = archive_entry_perm (entry) & 0777;
  dir.has_mtime = archive_entry_mtime_is_set (entry);
  dir.mtime = archive_entry_mtime (entry);
  dir.mtime_nsec = archive_entry_mtime_nsec (entry);
  g_array_append_val (ex->dirs, dir);
  return TRUE;
}

static gboolean
extract_file_data (Extract *ex,
                   struct archive *a,
                   int fd,
                   const char *rel,
                   gint64 *end,
                   GError **error)
{
  *end = 0;
  for (;;)
    {
      const void *block;
      size_t size;
      la_int64_t offset;
      int r = archive_read_data_block (a, &block, &size, &offset);

      if (r == ARCHIVE_EOF)
        return TRUE;
      if (r < ARCHIVE_WARN)
        return agents_archive_reader_fail (ex->reader, error);
      /* Count what is actually produced: headers may lie and compressed
       * data may expand beyond what they announce. */
      if (!agents_archive_reader_count_extracted (ex->reader, size, error))
        return FALSE;
      if (offset < 0 || !agents_archive_write_all_at (fd, block, size, offset))
        return set_write_error (ex, error, rel, offset < 0 ? EINVAL : errno);
      *end = MAX (*end, offset + (gint64) size);
    }
}

/* For a user's extract and a workspace restore, the reference's mapping:
 * bits within 0755, execute bits only when the owner had one, and always
 * readable and writable by the owner. Otherwise the mode as archived. */
static mode_t
regular_file_mode (Extract *ex, mode_t mode)
{
  mode_t kept = mode & 0755;

  if (!ex->keep_links && !ex->no_links)
    return mode & 0777;
  if ((mode & S_IXUSR) == 0)
    kept &= ~(mode_t) 0111;
  return kept | 0600;
}

static gboolean
extract_regular (Extract *ex,
                 struct archive *a,
                 struct archive_entry *entry,
                 GPtrArray *components,
                 const char *member,
                 const char *rel,
                 GError **error)
{
  const char *name = g_ptr_array_index (components, components->len - 1);
  gint64 size =
    archive_entry_size_is_set (entry) ? archive_entry_size (entry) : 0;
  struct timespec times[2];
  gboolean is_dir;
  gboolean ok;
  gint64 end;
  int parent;
  int fd;

  if (!agents_archive_reader_check_size (ex->reader, member, size, error))
    return FALSE;

  parent = resolve_dir (ex, components, components->len - 1, TRUE, member,
                        "symlink_escape", error);
  if (parent < 0)
    return FALSE;
  if (!clear_slot (ex, parent, name, rel, FALSE, &is_dir, error))
    {
      close (parent);
      return FALSE;
    }
  fd = openat (parent, name,
               O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  close (parent);
  if (fd < 0)
    return set_write_error (ex, error, rel, errno);

  ok = extract_file_data (ex, a, fd, rel, &end, error);
  if (ok && size > end && ftruncate (fd, size) < 0)
    ok = set_write_error (ex, error, rel, errno);
  if (ok && fchmod (fd, regular_file_mode (ex, archive_entry_perm (entry))) < 0)
    ok = set_write_error (ex, error, rel, errno);
  entry_times (entry, times);
  if (ok)
    futimens (fd, times);
  if (close (fd) < 0 && ok)
    ok = set_write_error (ex, error, rel, errno);
  return ok;
}

/* A hydrate refuses the link as the reference's strict unix_local hydrate
 * does: WORKSPACE_ARCHIVE_WRITE naming the root, the member and the
 * target. */
static gboolean
set_outward_link_error (Extract *ex,
                        GError **error,
                        const char *member,
                        const char *target)
{
  g_autofree char *reason = NULL;
  g_autofree char *display = g_utf8_make_valid (ex->root, -1);
  GVariantDict ctx;

  if (g_path_is_absolute (target))
    reason =
      g_strdup_printf ("absolute symlink target not allowed: %s", target);
  else
    reason =
      g_strdup_printf ("symlink target escapes workspace root: %s", target);
  g_variant_dict_init (&ctx, NULL);
  g_variant_dict_insert (&ctx, "path", "s", display);
  g_variant_dict_insert (&ctx, "member", "s", member);
  g_variant_dict_insert (&ctx, "reason", "s", reason);
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE,
                            g_variant_dict_end (&ctx),
                            _ ("failed to write archive for path: %s"),
                            display);
  return FALSE;
}

static gboolean
extract_symlink (Extract *ex,
                 struct archive_entry *entry,
                 GPtrArray *components,
                 const char *member,
                 const char *rel,
                 GError **error)
{
  const char *name = g_ptr_array_index (components, components->len - 1);
  const char *target = archive_entry_symlink (entry);
  struct timespec times[2];
  gboolean is_dir;
  int parent;

  if (target == NULL)
    target = archive_entry_symlink_utf8 (entry);
  if (target == NULL || *target == '\0' || strlen (target) >= PATH_MAX)
    return agents_archive_set_unsafe_error (error, member,
                                            "invalid_link_target");

  /* The directory is created first, so that the walk finds it. */
  parent = resolve_dir (ex, components, components->len - 1, TRUE, member,
                        "symlink_escape", error);
  if (parent < 0)
    return FALSE;
  if ((!ex->keep_links || ex->links_stay_inside) &&
      !symlink_target_inside (ex, components, target))
    {
      close (parent);
      if (ex->links_stay_inside)
        return set_outward_link_error (ex, error, member, target);
      return agents_archive_set_unsafe_error (error, member, "symlink_escape");
    }
  if (!clear_slot (ex, parent, name, rel, FALSE, &is_dir, error) ||
      (symlinkat (target, parent, name) < 0 &&
       !set_write_error (ex, error, rel, errno)))
    {
      close (parent);
      return FALSE;
    }
  entry_times (entry, times);
  utimensat (parent, name, times, AT_SYMLINK_NOFOLLOW);
  close (parent);
  return TRUE;
}

static gboolean
extract_hardlink (Extract *ex,
                  struct archive_entry *entry,
                  GPtrArray *components,
                  const char *member,
                  const char *rel,
                  const char *link_name,
                  GError **error)
{
  const char *name = g_ptr_array_index (components, components->len - 1);
  const char *reason = NULL;
  g_autoptr (GPtrArray) source =
    agents_archive_member_components (link_name, &reason);
  g_autofree char *source_rel = NULL;
  const char *source_name;
  struct stat st;
  gboolean is_dir;
  int source_parent;
  int errsv = 0;
  int parent;
  gboolean ok;

  if (source == NULL || source->len == 0)
    return agents_archive_set_unsafe_error (error, member, "hardlink_escape");
  source_rel = agents_archive_join_components (source, source->len);
  if (strcmp (source_rel, rel) == 0)
    return TRUE;
  source_name = g_ptr_array_index (source, source->len - 1);

  source_parent = resolve_dir (ex, source, source->len - 1, FALSE, member,
                               "hardlink_escape", error);
  if (source_parent < 0)
    return FALSE;
  if (fstatat (source_parent, source_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
    errsv = errno;
  else if (S_ISDIR (st.st_mode))
    errsv = EPERM;
  if (errsv != 0)
    {
      close (source_parent);
      return set_write_error (ex, error, rel, errsv);
    }

  parent = resolve_dir (ex, components, components->len - 1, TRUE, member,
                        "symlink_escape", error);
  ok = parent >= 0 && clear_slot (ex, parent, name, rel, FALSE, &is_dir, error);
  /* Flags 0: a symlink source is linked itself, never followed. */
  if (ok && linkat (source_parent, source_name, parent, name, 0) < 0)
    ok = set_write_error (ex, error, rel, errno);
  close (source_parent);
  if (parent >= 0)
    close (parent);
  return ok;
}

static AgentsArchiveSeenKind
seen_kind (mode_t type, const char *hardlink)
{
  if (hardlink != NULL)
    return AGENTS_ARCHIVE_SEEN_FILE;
  if (type == AE_IFDIR)
    return AGENTS_ARCHIVE_SEEN_DIR;
  if (type == AE_IFLNK)
    return AGENTS_ARCHIVE_SEEN_SYMLINK;
  return AGENTS_ARCHIVE_SEEN_FILE;
}

/* A hard link to its own path, which changes nothing. */
static gboolean
is_self_link (const char *hardlink, const char *rel)
{
  const char *reason = NULL;
  g_autoptr (GPtrArray) source = NULL;
  g_autofree char *source_rel = NULL;

  if (hardlink == NULL)
    return FALSE;
  source = agents_archive_member_components (hardlink, &reason);
  if (source == NULL)
    return FALSE;
  source_rel = agents_archive_join_components (source, source->len);
  return strcmp (source_rel, rel) == 0;
}

static gboolean
extract_entry (Extract *ex,
               struct archive *a,
               struct archive_entry *entry,
               GError **error)
{
  const char *member = agents_archive_entry_pathname (entry);
  const char *hardlink = archive_entry_hardlink (entry);
  const char *reason = NULL;
  g_autoptr (GPtrArray) components =
    agents_archive_member_components (member, &reason);
  g_autofree char *rel = NULL;
  mode_t type = archive_entry_filetype (entry);

  if (components == NULL)
    return agents_archive_set_unsafe_error (error, member ? member : "",
                                            reason);
  if (hardlink == NULL)
    hardlink = archive_entry_hardlink_utf8 (entry);

  if (components->len == 0)
    {
      /* "." is the root itself: nothing to create, and its mode is the
       * caller's business. */
      if (type == AE_IFDIR && hardlink == NULL)
        return TRUE;
      return agents_archive_set_unsafe_error (error, member,
                                              "invalid_root_member");
    }

  rel = agents_archive_join_components (components, components->len);
  if (ex->no_links && (hardlink != NULL || type == AE_IFLNK))
    return agents_archive_set_unsafe_error (error, member, "link_member");
  /* A path may be named once (but a directory), checked on the names
   * alone before anything about the member is written; in a user's
   * extract nothing may go under a member that cannot hold it either. */
  if (!is_self_link (hardlink, rel) &&
      !agents_archive_check_member_path (ex->seen, components, member, rel,
                                         seen_kind (type, hardlink),
                                         ex->no_links, error))
    return FALSE;
  if (hardlink != NULL)
    return extract_hardlink (ex, entry, components, member, rel, hardlink,
                             error);
  switch (type)
    {
    case AE_IFDIR:
      return extract_directory (ex, entry, components, member, rel, error);
    case AE_IFREG:
      return extract_regular (ex, a, entry, components, member, rel, error);
    case AE_IFLNK:
      return extract_symlink (ex, entry, components, member, rel, error);
    default:
      return agents_archive_set_unsafe_error (error, member, "special_file");
    }
}

static int
compare_dir_modes_reversed (gconstpointer a, gconstpointer b)
{
  return strcmp (((const DirMode *) b)->rel, ((const DirMode *) a)->rel);
}

/* Children sort after their parents, so in reverse order each directory
 * is closed only after everything inside it was. */
static gboolean
apply_directory_modes (Extract *ex, GError **error)
{
  g_array_sort (ex->dirs, compare_dir_modes_reversed);
  for (guint i = 0; i < ex->dirs->len; i++)
    {
      DirMode *dir = &g_array_index (ex->dirs, DirMode, i);
      struct timespec times[2] = { { 0, UTIME_OMIT }, { 0, UTIME_OMIT } };
      int fd = open_beneath (ex->root_fd, dir->rel,
                             O_RDONLY | O_DIRECTORY | O_NOFOLLOW);

      if (fd < 0)
        return resolve_failed (ex, error, dir->rel, dir->rel, errno,
                               "symlink_escape");
      if (dir->has_mtime)
        {
          times[1].tv_sec = dir->mtime;
          times[1].tv_nsec = dir->mtime_nsec;
        }
      if (fchmod (fd, dir->mode) < 0)
        {
          int errsv = errno;

          close (fd);
          return set_write_error (ex, error, dir->rel, errsv);
        }
      futimens (fd, times);
      close (fd);
    }
  return TRUE;
}

static gboolean
extract_entries (Extract *ex, GError **error)
{
  struct archive *a;

  for (;;)
    {
      struct archive_entry *entry;

      if (!agents_archive_reader_next_entry (ex->reader, &entry,
                                             ex->cancellable, error))
        return FALSE;
      if (entry == NULL)
        return apply_directory_modes (ex, error);
      a = agents_archive_reader_get_archive (ex->reader);
      if (g_cancellable_set_error_if_cancelled (ex->cancellable, error) ||
          !extract_entry (ex, a, entry, error))
        return FALSE;
    }
}

typedef enum
{
  LINKS_INSIDE,      /* links that stay beneath the root */
  LINKS_KEEP,        /* a snapshot: symlinks may point anywhere */
  LINKS_NONE,        /* a user's extract: no link members */
  LINKS_KEEP_INSIDE, /* a workspace hydrate: a snapshot, links inside */
} LinkPolicy;

static gboolean extract_full (GInputStream *archive,
                              const char *archive_name,
                              const char *root,
                              AgentsCompressionScheme scheme,
                              const AgentsArchiveLimits *limits,
                              LinkPolicy links,
                              GCancellable *cancellable,
                              GError **error);

/**
 * agents_archive_extract_to_directory:
 * @archive: the archive
 * @root: (type filename): an existing directory to extract beneath
 * @scheme: the archive format
 * @limits: (nullable): the limits to enforce; %NULL for the defaults of
 *   agents_archive_limits_new()
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Extracts a hostile archive safely. Members that would land outside
 * @root (absolute names, `..`, links escaping it, writes through
 * symlinks), device nodes, fifos and sockets are refused with
 * %AGENTS_SANDBOX_ERROR_UNSAFE_ARCHIVE_MEMBER; an archive beyond @limits
 * fails with %AGENTS_SANDBOX_ERROR_ARCHIVE_LIMIT. Every file is created
 * beneath a directory descriptor of @root with `openat2(RESOLVE_BENEATH)`.
 * On failure the members already extracted stay in @root; nothing is ever
 * written outside it.
 *
 * This blocks: call it from a worker thread, or use
 * agents_archive_extract_to_directory_async().
 *
 * Returns: %TRUE on success
 */
gboolean
agents_archive_extract_to_directory (GInputStream *archive,
                                     const char *root,
                                     AgentsCompressionScheme scheme,
                                     const AgentsArchiveLimits *limits,
                                     GCancellable *cancellable,
                                     GError **error)
{
  g_return_val_if_fail (G_IS_INPUT_STREAM (archive), FALSE);
  g_return_val_if_fail (root != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return extract_full (archive, NULL, root, scheme, limits, LINKS_INSIDE,
                       cancellable, error);
}

gboolean
agents_archive_extract_named (GInputStream *archive,
                              const char *archive_name,
                              const char *root,
                              AgentsCompressionScheme scheme,
                              const AgentsArchiveLimits *limits,
                              GCancellable *cancellable,
                              GError **error)
{
  return extract_full (archive, archive_name, root, scheme, limits,
                       LINKS_INSIDE, cancellable, error);
}

gboolean
agents_archive_extract_user (GInputStream *archive,
                             const char *archive_name,
                             const char *root,
                             AgentsCompressionScheme scheme,
                             const AgentsArchiveLimits *limits,
                             GCancellable *cancellable,
                             GError **error)
{
  return extract_full (archive, archive_name, root, scheme, limits, LINKS_NONE,
                       cancellable, error);
}

/* @archive_name: what errors about the archive name (NULL: @root). */
static gboolean
extract_full (GInputStream *archive,
              const char *archive_name,
              const char *root,
              AgentsCompressionScheme scheme,
              const AgentsArchiveLimits *limits,
              LinkPolicy links,
              GCancellable *cancellable,
              GError **error)
{
  g_autoptr (AgentsArchiveLimits) defaults = NULL;
  Extract ex = { 0 };
  gboolean ok;

  ex.root = root;
  ex.archive_name = archive_name ? archive_name : root;
  ex.keep_links = links == LINKS_KEEP || links == LINKS_KEEP_INSIDE;
  ex.links_stay_inside = links == LINKS_KEEP_INSIDE;
  ex.no_links = links == LINKS_NONE;
  ex.root_fd = open (root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (ex.root_fd < 0)
    return set_write_error (&ex, error, NULL, errno);
  ex.cancellable = cancellable;
  if (limits == NULL)
    limits = defaults = agents_archive_limits_new ();
  ex.reader = agents_archive_reader_new (archive, scheme, limits);
  agents_archive_reader_set_name (ex.reader, ex.archive_name);
  ex.dirs = g_array_new (FALSE, TRUE, sizeof (DirMode));
  g_array_set_clear_func (ex.dirs, dir_mode_clear);
  ex.seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  ok = extract_entries (&ex, error);

  g_object_unref (ex.reader);
  close (ex.root_fd);
  g_array_unref (ex.dirs);
  g_hash_table_unref (ex.seen);
  return ok;
}

static void extract_async (GInputStream *archive,
                           const char *root,
                           AgentsCompressionScheme scheme,
                           const AgentsArchiveLimits *limits,
                           LinkPolicy links,
                           GCancellable *cancellable,
                           GAsyncReadyCallback callback,
                           gpointer user_data);

typedef struct
{
  GInputStream *archive;
  char *root;
  AgentsCompressionScheme scheme;
  AgentsArchiveLimits limits;
  gboolean has_limits;
  LinkPolicy links;
} ExtractTaskData;

static void
extract_task_data_free (gpointer data)
{
  ExtractTaskData *td = data;

  g_object_unref (td->archive);
  g_free (td->root);
  g_free (td);
}

static void
extract_thread (GTask *task,
                gpointer source_object,
                gpointer task_data,
                GCancellable *cancellable)
{
  ExtractTaskData *td = task_data;
  GError *error = NULL;

  if (extract_full (td->archive, NULL, td->root, td->scheme,
                    td->has_limits ? &td->limits : NULL, td->links, cancellable,
                    &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

/**
 * agents_archive_extract_to_directory_async:
 * @archive: the archive
 * @root: (type filename): an existing directory to extract beneath
 * @scheme: the archive format
 * @limits: (nullable): the limits to enforce; %NULL for the defaults
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: data for @callback
 *
 * Runs agents_archive_extract_to_directory() in a worker thread.
 */
void
agents_archive_extract_to_directory_async (GInputStream *archive,
                                           const char *root,
                                           AgentsCompressionScheme scheme,
                                           const AgentsArchiveLimits *limits,
                                           GCancellable *cancellable,
                                           GAsyncReadyCallback callback,
                                           gpointer user_data)
{
  g_return_if_fail (G_IS_INPUT_STREAM (archive));
  g_return_if_fail (root != NULL);

  extract_async (archive, root, scheme, limits, LINKS_INSIDE, cancellable,
                 callback, user_data);
}

/**
 * agents_archive_extract_snapshot_to_directory_async:
 * @archive: a tar archive of a workspace, made by
 *   agents_archive_tar_directory() (or a backend's persist)
 * @root: (type filename): an existing directory to extract beneath
 * @limits: (nullable): the limits to enforce; %NULL for the defaults
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: data for @callback
 *
 * Restores a workspace snapshot: like
 * agents_archive_extract_to_directory_async() (finish it with
 * agents_archive_extract_to_directory_finish()), except that symlinks
 * come back as they were, whatever they point to — a snapshot keeps what
 * the workspace held, such as a virtualenv's `bin/python3` pointing at
 * `/usr/bin/python3` or a link to `/etc` a command made. Every other rule
 * stays: no member is ever written through a symlink, nor outside @root.
 * Archives from users go through
 * agents_archive_extract_to_directory_async(), which refuses links
 * leading out.
 */
void
agents_archive_extract_snapshot_to_directory_async (
  GInputStream *archive,
  const char *root,
  const AgentsArchiveLimits *limits,
  GCancellable *cancellable,
  GAsyncReadyCallback callback,
  gpointer user_data)
{
  g_return_if_fail (G_IS_INPUT_STREAM (archive));
  g_return_if_fail (root != NULL);

  extract_async (archive, root, AGENTS_COMPRESSION_SCHEME_TAR, limits,
                 LINKS_KEEP, cancellable, callback, user_data);
}

/**
 * agents_archive_extract_workspace_to_directory_async:
 * @archive: a tar archive of a workspace
 * @root: (type filename): an existing directory to extract beneath
 * @limits: (nullable): the limits to enforce; %NULL for the defaults
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: data for @callback
 *
 * Hydrates a workspace strictly, as the reference's unix_local backend
 * does: like agents_archive_extract_snapshot_to_directory_async() (finish
 * it with agents_archive_extract_to_directory_finish()), except that a
 * symlink member must stay beneath @root. Relative links within it (a
 * virtualenv's `bin/python` pointing at `python3`) come back; a link with
 * an absolute target, or one whose relative target leads out of @root,
 * fails with %AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE, context
 * `path` (@root), `member` and `reason` (`absolute symlink target not
 * allowed: TARGET` or `symlink target escapes workspace root: TARGET`),
 * and is never created.
 */
void
agents_archive_extract_workspace_to_directory_async (
  GInputStream *archive,
  const char *root,
  const AgentsArchiveLimits *limits,
  GCancellable *cancellable,
  GAsyncReadyCallback callback,
  gpointer user_data)
{
  g_return_if_fail (G_IS_INPUT_STREAM (archive));
  g_return_if_fail (root != NULL);

  extract_async (archive, root, AGENTS_COMPRESSION_SCHEME_TAR, limits,
                 LINKS_KEEP_INSIDE, cancellable, callback, user_data);
}

static void
extract_async (GInputStream *archive,
               const char *root,
               AgentsCompressionScheme scheme,
               const AgentsArchiveLimits *limits,
               LinkPolicy links,
               GCancellable *cancellable,
               GAsyncReadyCallback callback,
               gpointer user_data)
{
  g_autoptr (GTask) task = NULL;
  ExtractTaskData *td;

  td = g_new0 (ExtractTaskData, 1);
  td->links = links;
  td->archive = g_object_ref (archive);
  td->root = g_strdup (root);
  td->scheme = scheme;
  if (limits != NULL)
    {
      td->limits = *limits;
      td->has_limits = TRUE;
    }

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_archive_extract_to_directory_async);
  g_task_set_task_data (task, td, extract_task_data_free);
  g_task_run_in_thread (task, extract_thread);
}

/**
 * agents_archive_extract_to_directory_finish:
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_archive_extract_to_directory_async().
 *
 * Returns: %TRUE on success
 */
gboolean
agents_archive_extract_to_directory_finish (GAsyncResult *result,
                                            GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  g_return_val_if_fail (g_async_result_is_tagged (
                          result, agents_archive_extract_to_directory_async),
                        FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* The last suffix of @path's file name, without its dot, as Python's
 * PurePath.suffix has it: none for a name that only starts with a dot or
 * ends with one. */
static char *
last_suffix (const char *path)
{
  g_autofree char *name = g_path_get_basename (path);
  const char *dot = strrchr (name, '.');

  if (dot == NULL || dot == name || dot[1] == '\0')
    return g_strdup ("");
  return g_strdup (dot + 1);
}

/**
 * agents_archive_compression_scheme_for_path:
 * @path: the path of an archive
 * @scheme: (out): the scheme its name says
 * @error: return location for a #GError
 *
 * Tells the scheme of an archive from the last suffix of its file name:
 * `tar` or `zip`. Any other (`bundle.rar`, and `bundle.tar.gz`, whose last
 * suffix is `gz`) is an %AGENTS_SANDBOX_ERROR_INVALID_COMPRESSION_SCHEME
 * error with the context {scheme}.
 *
 * Returns: %TRUE on success
 */
gboolean
agents_archive_compression_scheme_for_path (const char *path,
                                            AgentsCompressionScheme *scheme,
                                            GError **error)
{
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  g_autofree char *suffix = NULL;
  g_autofree char *display = NULL;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (scheme != NULL, FALSE);

  suffix = last_suffix (path);
  if (strcmp (suffix, "tar") == 0 || strcmp (suffix, "zip") == 0)
    {
      *scheme = suffix[0] == 't' ? AGENTS_COMPRESSION_SCHEME_TAR
                                 : AGENTS_COMPRESSION_SCHEME_ZIP;
      return TRUE;
    }
  display = g_utf8_make_valid (suffix, -1);
  g_variant_builder_add (&ctx, "{sv}", "scheme",
                         g_variant_new_string (display));
  agents_sandbox_error_set (error,
                            AGENTS_SANDBOX_ERROR_INVALID_COMPRESSION_SCHEME,
                            g_variant_builder_end (&ctx),
                            _ ("compression scheme must be one of 'zip' "
                               "'tar'"));
  return FALSE;
}
