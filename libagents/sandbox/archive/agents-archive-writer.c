/* agents-archive-writer.c - writing a tar member by member: libarchive
 * over a GOutputStream
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <archive.h>
#include <archive_entry.h>
#include <glib/gi18n-lib.h>

#include "agents-archive-private.h"
#include "agents-sandbox-error-private.h"

#define BLOCK_SIZE (64 * 1024)

/* ======================================================================
 * Writing
 * ====================================================================== */

struct _AgentsArchiveWriter
{
  GObject parent_instance;

  GOutputStream *output;
  struct archive *archive;
  GCancellable *cancellable; /* of the call under way */
  GError *error;             /* of the output stream */
  char *member;              /* the current member's name */
  gboolean closed;
  gboolean abandoned; /* writes nothing more */
  guint8 *buffer;
};

/**
 * AgentsArchiveWriter:
 *
 * Writes a tar archive to a #GOutputStream, member by member: a header,
 * then its data, as a reader gives them or from any source.
 */
G_DEFINE_FINAL_TYPE (AgentsArchiveWriter, agents_archive_writer, G_TYPE_OBJECT)

/* A writer dropped before it was closed ends without the end-of-archive
 * blocks, so that a partial archive cannot pass for a complete one. (Not
 * with archive_write_fail(): libarchive 3.6 then leaks its block
 * buffer.) */
static void
agents_archive_writer_finalize (GObject *object)
{
  AgentsArchiveWriter *self = AGENTS_ARCHIVE_WRITER (object);

  if (!self->closed)
    {
      self->abandoned = TRUE;
      archive_write_close (self->archive);
    }
  archive_write_free (self->archive);
  g_clear_object (&self->output);
  g_clear_error (&self->error);
  g_free (self->member);
  g_free (self->buffer);
  G_OBJECT_CLASS (agents_archive_writer_parent_class)->finalize (object);
}

static void
agents_archive_writer_class_init (AgentsArchiveWriterClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = agents_archive_writer_finalize;
}

static void
agents_archive_writer_init (AgentsArchiveWriter *self)
{
}

static la_ssize_t
writer_write_cb (struct archive *a,
                 void *data,
                 const void *buffer,
                 size_t length)
{
  AgentsArchiveWriter *self = data;

  if (self->error != NULL || self->abandoned)
    return -1;
  if (!g_output_stream_write_all (self->output, buffer, length, NULL,
                                  self->cancellable, &self->error))
    {
      archive_set_error (a, EIO, "%s", self->error->message);
      return -1;
    }
  return length;
}

/**
 * agents_archive_writer_new:
 * @output: where the archive goes
 *
 * Creates a writer of a POSIX (pax) tar archive to @output, member by
 * member. An archive is complete only once agents_archive_writer_close()
 * succeeded: a writer dropped before leaves it without its end.
 *
 * Returns: (transfer full): the writer
 */
AgentsArchiveWriter *
agents_archive_writer_new (GOutputStream *output)
{
  AgentsArchiveWriter *self;

  g_return_val_if_fail (G_IS_OUTPUT_STREAM (output), NULL);

  self = g_object_new (AGENTS_TYPE_ARCHIVE_WRITER, NULL);
  self->output = g_object_ref (output);
  self->archive = archive_write_new ();
  archive_write_set_format_pax_restricted (self->archive);
  /* Cannot fail: there is no open callback. */
  archive_write_open (self->archive, self, NULL, writer_write_cb, NULL);
  return self;
}

/* A cancellation stays what it is; anything else going wrong on the way
 * out is a WORKSPACE_ARCHIVE_WRITE error about the member (or "."). */
static gboolean
writer_fail (AgentsArchiveWriter *self, GError **error)
{
  const char *reason = archive_error_string (self->archive);

  if (self->error != NULL &&
      g_error_matches (self->error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_propagate_error (error, g_steal_pointer (&self->error));
      return FALSE;
    }
  if (self->error != NULL)
    reason = self->error->message;
  agents_archive_set_path_error (error,
                                 AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE,
                                 self->member ? self->member : ".", NULL,
                                 reason ? reason : _ ("archive error"));
  g_clear_error (&self->error);
  return FALSE;
}

static struct archive_entry *
entry_from_member (const AgentsArchiveMember *m)
{
  struct archive_entry *entry = archive_entry_new ();

  archive_entry_set_pathname (entry, m->name);
  switch (m->type)
    {
    case AGENTS_ARCHIVE_MEMBER_DIRECTORY:
      archive_entry_set_filetype (entry, AE_IFDIR);
      break;
    case AGENTS_ARCHIVE_MEMBER_SYMLINK:
      archive_entry_set_filetype (entry, AE_IFLNK);
      archive_entry_set_symlink (entry, m->link_target);
      break;
    default:
      archive_entry_set_filetype (entry, AE_IFREG);
    }
  archive_entry_set_perm (entry, m->mode & 07777);
  archive_entry_set_uid (entry, m->uid);
  archive_entry_set_gid (entry, m->gid);
  if (m->has_mtime)
    archive_entry_set_mtime (entry, m->mtime, m->mtime_nsec);
  else
    archive_entry_set_mtime (entry, g_get_real_time () / G_USEC_PER_SEC, 0);
  archive_entry_set_size (entry, 0);
  if (m->type == AGENTS_ARCHIVE_MEMBER_HARDLINK)
    archive_entry_set_hardlink (entry, m->link_target);
  else if (m->type == AGENTS_ARCHIVE_MEMBER_REGULAR)
    archive_entry_set_size (entry, MAX (m->size, 0));
  return entry;
}

/**
 * agents_archive_writer_add:
 * @self: a writer
 * @member: the header of the next member
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Writes the header of a member: its name, type, permission bits, owner
 * ids, modification time (now when @member has none), link target, and
 * for a regular file its size; nothing else. A regular member's data
 * follows with agents_archive_writer_write_data() or
 * agents_archive_writer_copy_data(); libarchive pads data that falls
 * short. Members of type %AGENTS_ARCHIVE_MEMBER_OTHER are written as
 * empty regular files: pass on only what is meant to be kept.
 *
 * Returns: %TRUE on success
 */
gboolean
agents_archive_writer_add (AgentsArchiveWriter *self,
                           const AgentsArchiveMember *member,
                           GCancellable *cancellable,
                           GError **error)
{
  struct archive_entry *entry;
  int r;

  g_return_val_if_fail (AGENTS_IS_ARCHIVE_WRITER (self), FALSE);
  g_return_val_if_fail (member != NULL && member->name != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  g_free (self->member);
  self->member = g_strdup (member->name);
  entry = entry_from_member (member);
  self->cancellable = cancellable;
  r = archive_write_header (self->archive, entry);
  self->cancellable = NULL;
  archive_entry_free (entry);
  if (r < ARCHIVE_WARN)
    return writer_fail (self, error);
  return TRUE;
}

/**
 * agents_archive_writer_write_data:
 * @self: a writer
 * @data: (array length=size) (element-type guint8): data of the current
 *   member
 * @size: its size
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Writes data of the current member.
 *
 * Returns: %TRUE on success
 */
gboolean
agents_archive_writer_write_data (AgentsArchiveWriter *self,
                                  const void *data,
                                  gsize size,
                                  GCancellable *cancellable,
                                  GError **error)
{
  la_ssize_t n;

  g_return_val_if_fail (AGENTS_IS_ARCHIVE_WRITER (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  self->cancellable = cancellable;
  n = archive_write_data (self->archive, data, size);
  self->cancellable = NULL;
  if (n < 0)
    return writer_fail (self, error);
  return TRUE;
}

/**
 * agents_archive_writer_copy_data:
 * @self: a writer
 * @reader: a reader
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Copies the data of the current member of @reader to the current member
 * of @self, 64 KiB at a time, as @reader reads it.
 *
 * Returns: %TRUE on success
 */
gboolean
agents_archive_writer_copy_data (AgentsArchiveWriter *self,
                                 AgentsArchiveReader *reader,
                                 GCancellable *cancellable,
                                 GError **error)
{
  g_return_val_if_fail (AGENTS_IS_ARCHIVE_WRITER (self), FALSE);
  g_return_val_if_fail (AGENTS_IS_ARCHIVE_READER (reader), FALSE);

  if (self->buffer == NULL)
    self->buffer = g_malloc (BLOCK_SIZE);
  for (;;)
    {
      gssize n = agents_archive_reader_read_data (
        reader, self->buffer, BLOCK_SIZE, cancellable, error);

      if (n == 0)
        return TRUE;
      if (n < 0 || !agents_archive_writer_write_data (self, self->buffer, n,
                                                      cancellable, error))
        return FALSE;
    }
}

/**
 * agents_archive_writer_close:
 * @self: a writer
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Ends the archive: the end-of-archive blocks and what libarchive still
 * holds are written. The output stream is not closed.
 *
 * Returns: %TRUE on success
 */
gboolean
agents_archive_writer_close (AgentsArchiveWriter *self,
                             GCancellable *cancellable,
                             GError **error)
{
  int r;

  g_return_val_if_fail (AGENTS_IS_ARCHIVE_WRITER (self), FALSE);
  g_return_val_if_fail (!self->closed, FALSE);

  g_clear_pointer (&self->member, g_free);
  self->cancellable = cancellable;
  r = archive_write_close (self->archive);
  self->cancellable = NULL;
  self->closed = TRUE;
  if (r != ARCHIVE_OK)
    return writer_fail (self, error);
  return TRUE;
}
