/* agents-progress-stream.c - byte progress of a workspace stream
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Wraps the tar stream of a persist or a hydrate and reports the bytes
 * read through it as AgentsSandboxSession::progress. The stream is read
 * wherever its consumer reads it (often a worker thread); the signal is
 * only ever emitted on the main context that was the thread default when
 * the stream was made, at most one report queued at a time.
 */

#include "config.h"

#include <gio/gunixinputstream.h>
#include <glib/gi18n-lib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agents-progress-stream-private.h"
#include "agents-sandbox-session-private.h"

struct _AgentsProgressInputStream
{
  GFilterInputStream parent_instance;

  GMainContext *context;
  GWeakRef session;
  char *operation;
  gint64 total;
  gint64 reported; /* the last count reported, on the owner thread */
  GMutex lock;
  gint64 done;          /* bytes read so far, under @lock */
  gboolean queued;      /* a report is queued on @context, under @lock */
  gint64 queued_time;   /* monotonic time of the last queueing, under @lock */
  GChecksum *checksum;  /* of the bytes read, when asked for, under @lock */
  goffset hash_start;   /* where the base stream was when hashing began */
  gint64 hashed;        /* bytes hashed, under @lock */
  gboolean hash_broken; /* a skip or a seek left bytes out, under @lock */
  gboolean eof;         /* the base stream said it has no more, under @lock */
};

/* At most this often a report is queued while the stream is read, so
 * that a transfer of gigabytes makes tens of reports a second, not one
 * per buffer. */
#define REPORT_INTERVAL_US (G_USEC_PER_SEC / 10)

static void agents_progress_input_stream_seekable_init (GSeekableIface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  AgentsProgressInputStream,
  agents_progress_input_stream,
  G_TYPE_FILTER_INPUT_STREAM,
  G_IMPLEMENT_INTERFACE (G_TYPE_SEEKABLE,
                         agents_progress_input_stream_seekable_init))

/* Seeking goes to the base stream when it can seek (a consumer may
 * measure the archive by seeking to its end and back, as the docker
 * backend does, rather than spool it); the count stays that of the
 * bytes read. */

static GSeekable *
base_seekable (GSeekable *seekable)
{
  GInputStream *base = G_FILTER_INPUT_STREAM (seekable)->base_stream;

  return G_IS_SEEKABLE (base) ? G_SEEKABLE (base) : NULL;
}

static goffset
seekable_tell (GSeekable *seekable)
{
  GSeekable *base = base_seekable (seekable);

  return base != NULL ? g_seekable_tell (base) : 0;
}

static gboolean
seekable_can_seek (GSeekable *seekable)
{
  GSeekable *base = base_seekable (seekable);

  return base != NULL && g_seekable_can_seek (base);
}

static gboolean
seekable_seek (GSeekable *seekable,
               goffset offset,
               GSeekType type,
               GCancellable *cancellable,
               GError **error)
{
  GSeekable *base = base_seekable (seekable);

  if (base != NULL)
    return g_seekable_seek (base, offset, type, cancellable, error);
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                       _ ("Seek not supported on stream"));
  return FALSE;
}

static gboolean
seekable_can_truncate (GSeekable *seekable)
{
  return FALSE;
}

static gboolean
seekable_truncate (GSeekable *seekable,
                   goffset offset,
                   GCancellable *cancellable,
                   GError **error)
{
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                       _ ("Truncate not allowed on input stream"));
  return FALSE;
}

static void
agents_progress_input_stream_seekable_init (GSeekableIface *iface)
{
  iface->tell = seekable_tell;
  iface->can_seek = seekable_can_seek;
  iface->seek = seekable_seek;
  iface->can_truncate = seekable_can_truncate;
  iface->truncate_fn = seekable_truncate;
}

/* On the owner thread: reports the count unless it was reported already. */
static void
report_count (AgentsProgressInputStream *self, gint64 done)
{
  g_autoptr (AgentsSandboxSession) session = g_weak_ref_get (&self->session);

  if (session == NULL || done == self->reported)
    return;
  self->reported = done;
  agents_sandbox_session_report_progress (session, self->operation, done,
                                          self->total);
}

/* Runs on the owner context; bytes read after it took the count may
 * queue a new report. */
static gboolean
report_progress (gpointer user_data)
{
  AgentsProgressInputStream *self = user_data;
  gint64 done;

  g_mutex_lock (&self->lock);
  self->queued = FALSE;
  done = self->done;
  g_mutex_unlock (&self->lock);
  report_count (self, done);
  return G_SOURCE_REMOVE;
}

/* Counts @n bytes read and queues a report, unless one is queued
 * already or was queued less than REPORT_INTERVAL_US ago. */
static void
count (AgentsProgressInputStream *self, gssize n)
{
  gint64 now = g_get_monotonic_time ();
  gboolean queue;

  if (n <= 0)
    return;
  g_mutex_lock (&self->lock);
  self->done += n;
  queue = !self->queued && now - self->queued_time >= REPORT_INTERVAL_US;
  if (queue)
    {
      self->queued = TRUE;
      self->queued_time = now;
    }
  g_mutex_unlock (&self->lock);
  if (queue)
    {
      GSource *source = g_idle_source_new ();

      g_source_set_priority (source, G_PRIORITY_DEFAULT);
      g_source_set_callback (source, report_progress, g_object_ref (self),
                             g_object_unref);
      g_source_set_static_name (source, "[agents] workspace progress");
      g_source_attach (source, self->context);
      g_source_unref (source);
    }
}

/* Whether the base stream is where the hash has got to: a consumer may
 * seek (to measure the stream) before it reads. */
static gboolean
hash_in_step (AgentsProgressInputStream *self, GInputStream *base)
{
  if (!G_IS_SEEKABLE (base))
    return TRUE;
  return g_seekable_tell (G_SEEKABLE (base)) == self->hash_start + self->hashed;
}

static void
hash_read (AgentsProgressInputStream *self, const void *buffer, gssize n)
{
  g_mutex_lock (&self->lock);
  if (self->checksum != NULL && !self->hash_broken)
    {
      if (n == 0)
        self->eof = TRUE;
      else if (n > 0)
        {
          g_checksum_update (self->checksum, buffer, n);
          self->hashed += n;
        }
    }
  g_mutex_unlock (&self->lock);
}

static gssize
agents_progress_input_stream_read (GInputStream *stream,
                                   void *buffer,
                                   gsize count_,
                                   GCancellable *cancellable,
                                   GError **error)
{
  AgentsProgressInputStream *self = AGENTS_PROGRESS_INPUT_STREAM (stream);
  GInputStream *base = G_FILTER_INPUT_STREAM (stream)->base_stream;
  gssize n;

  if (self->checksum != NULL && !hash_in_step (self, base))
    {
      g_mutex_lock (&self->lock);
      self->hash_broken = TRUE;
      g_mutex_unlock (&self->lock);
    }
  n = g_input_stream_read (base, buffer, count_, cancellable, error);
  hash_read (self, buffer, n);
  count (self, n);
  return n;
}

static gssize
agents_progress_input_stream_skip (GInputStream *stream,
                                   gsize count_,
                                   GCancellable *cancellable,
                                   GError **error)
{
  AgentsProgressInputStream *self = AGENTS_PROGRESS_INPUT_STREAM (stream);
  GInputStream *base = G_FILTER_INPUT_STREAM (stream)->base_stream;
  gssize n = g_input_stream_skip (base, count_, cancellable, error);

  if (n > 0)
    {
      g_mutex_lock (&self->lock);
      self->hash_broken = TRUE;
      g_mutex_unlock (&self->lock);
    }
  count (self, n);
  return n;
}

static void
agents_progress_input_stream_finalize (GObject *object)
{
  AgentsProgressInputStream *self = AGENTS_PROGRESS_INPUT_STREAM (object);

  g_main_context_unref (self->context);
  g_clear_pointer (&self->checksum, g_checksum_free);
  g_mutex_clear (&self->lock);
  g_weak_ref_clear (&self->session);
  g_free (self->operation);
  G_OBJECT_CLASS (agents_progress_input_stream_parent_class)->finalize (object);
}

static void
agents_progress_input_stream_class_init (AgentsProgressInputStreamClass *klass)
{
  GInputStreamClass *stream_class = G_INPUT_STREAM_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = agents_progress_input_stream_finalize;
  stream_class->read_fn = agents_progress_input_stream_read;
  stream_class->skip = agents_progress_input_stream_skip;
}

static void
agents_progress_input_stream_init (AgentsProgressInputStream *self)
{
  g_weak_ref_init (&self->session, NULL);
  g_mutex_init (&self->lock);
}

/* Wraps @base so that reading it reports "@operation" progress on
 * @session (@total bytes, -1 when unknown); the first report, 0 bytes,
 * is emitted at once. Call it on the session's owner thread, and
 * agents_progress_input_stream_report_end() there when the operation
 * succeeded. */
GInputStream *
agents_progress_input_stream_new (GInputStream *base,
                                  AgentsSandboxSession *session,
                                  const char *operation,
                                  gint64 total)
{
  AgentsProgressInputStream *self =
    g_object_new (AGENTS_TYPE_PROGRESS_INPUT_STREAM, "base-stream", base,
                  "close-base-stream", TRUE, NULL);

  self->context = g_main_context_ref_thread_default ();
  g_weak_ref_set (&self->session, session);
  self->operation = g_strdup (operation);
  self->total = total;
  agents_sandbox_session_report_progress (session, operation, 0, total);
  return G_INPUT_STREAM (self);
}

/* Reports every byte read, on the owner thread, before the operation
 * says it is done: the queued reports may be behind (a reader need not
 * read to the end of the stream, nor the last read queue a report). */
void
agents_progress_input_stream_report_end (GInputStream *stream)
{
  AgentsProgressInputStream *self = AGENTS_PROGRESS_INPUT_STREAM (stream);
  gint64 done;

  g_mutex_lock (&self->lock);
  done = self->done;
  g_mutex_unlock (&self->lock);
  report_count (self, done);
}

/* The bytes left in the regular file @stream reads, or -1 when it reads
 * no regular file. */
gint64
agents_progress_stream_size (GInputStream *stream)
{
  struct stat st;
  off_t here;
  int fd;

  if (!G_IS_UNIX_INPUT_STREAM (stream))
    return -1;
  fd = g_unix_input_stream_get_fd (G_UNIX_INPUT_STREAM (stream));
  if (fstat (fd, &st) < 0 || !S_ISREG (st.st_mode))
    return -1;
  here = lseek (fd, 0, SEEK_CUR);
  if (here < 0 || here > st.st_size)
    return -1;
  return st.st_size - here;
}

/* Makes @stream hash what is read through it from now on (before the
 * first read), for agents_progress_input_stream_dup_sha256(). */
void
agents_progress_input_stream_hash (GInputStream *stream)
{
  AgentsProgressInputStream *self = AGENTS_PROGRESS_INPUT_STREAM (stream);
  GInputStream *base = G_FILTER_INPUT_STREAM (stream)->base_stream;

  g_return_if_fail (self->checksum == NULL);

  self->checksum = g_checksum_new (G_CHECKSUM_SHA256);
  self->hash_start =
    G_IS_SEEKABLE (base) ? g_seekable_tell (G_SEEKABLE (base)) : 0;
}

/* The SHA-256 of the whole stream, when it was read from its start to
 * its end, in order; NULL otherwise (the consumer stopped early, skipped
 * or seeked past bytes). */
char *
agents_progress_input_stream_dup_sha256 (GInputStream *stream)
{
  AgentsProgressInputStream *self = AGENTS_PROGRESS_INPUT_STREAM (stream);
  char *sha256 = NULL;

  g_mutex_lock (&self->lock);
  if (self->checksum != NULL && self->eof && !self->hash_broken)
    sha256 = g_strdup (g_checksum_get_string (self->checksum));
  g_mutex_unlock (&self->lock);
  return sha256;
}
