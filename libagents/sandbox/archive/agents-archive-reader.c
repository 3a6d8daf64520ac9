/* agents-archive-reader.c - reading an archive member by member:
 * libarchive over a GInputStream, with the archive limits
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <glib/gi18n-lib.h>

#include "agents-archive-private.h"
#include "agents-sandbox-error-private.h"

#define BLOCK_SIZE (64 * 1024)

static const char *
entry_hardlink (struct archive_entry *entry)
{
  const char *name = archive_entry_hardlink (entry);

  return name ? name : archive_entry_hardlink_utf8 (entry);
}

static AgentsArchiveMember *
member_from_entry (struct archive_entry *entry)
{
  AgentsArchiveMember *m = g_new0 (AgentsArchiveMember, 1);
  const char *hardlink = entry_hardlink (entry);
  const char *target = NULL;

  m->name = g_strdup (agents_archive_entry_pathname (entry));
  if (m->name == NULL)
    m->name = g_strdup ("");
  switch (archive_entry_filetype (entry))
    {
    case AE_IFREG:
      m->type = AGENTS_ARCHIVE_MEMBER_REGULAR;
      break;
    case AE_IFDIR:
      m->type = AGENTS_ARCHIVE_MEMBER_DIRECTORY;
      break;
    case AE_IFLNK:
      m->type = AGENTS_ARCHIVE_MEMBER_SYMLINK;
      target = archive_entry_symlink (entry);
      if (target == NULL)
        target = archive_entry_symlink_utf8 (entry);
      break;
    default:
      m->type = AGENTS_ARCHIVE_MEMBER_OTHER;
    }
  if (hardlink != NULL)
    {
      m->type = AGENTS_ARCHIVE_MEMBER_HARDLINK;
      target = hardlink;
    }
  m->link_target = g_strdup (target);
  m->mode = archive_entry_perm (entry);
  m->uid = archive_entry_uid (entry);
  m->gid = archive_entry_gid (entry);
  m->has_mtime = archive_entry_mtime_is_set (entry);
  m->mtime = archive_entry_mtime (entry);
  m->mtime_nsec = archive_entry_mtime_nsec (entry);
  m->size = archive_entry_size_is_set (entry) ? archive_entry_size (entry) : 0;
  return m;
}

/* ======================================================================
 * Reading
 * ====================================================================== */

struct _AgentsArchiveReader
{
  GObject parent_instance;

  GInputStream *input;
  AgentsCompressionScheme scheme;
  gint64 max_input_bytes;
  gint64 max_extracted_bytes;
  gint64 max_members;
  gint64 input_bytes;
  gint64 extracted_bytes;
  gint64 members;
  char *name;            /* what errors name; NULL: the member, or "." */
  char *member;          /* the current member's name */
  GHashTable *zip_names; /* converted name -> name in the zip */
  struct archive *archive;
  struct archive_entry *entry;
  int spool_fd;
  gboolean opened;
  gboolean done;
  GCancellable *cancellable; /* of the call under way */
  GError *error;             /* of the input, or the input limit */
  guint8 *buffer;            /* lent to libarchive until the next read */
};

/**
 * AgentsArchiveReader:
 *
 * Reads the members of a tar (or zip) archive from a #GInputStream one at
 * a time, within #AgentsArchiveLimits, without writing anything to disk
 * but a zip's spool file: a member's header with
 * agents_archive_reader_next(), its data with
 * agents_archive_reader_read_data() or as a stream.
 */
G_DEFINE_FINAL_TYPE (AgentsArchiveReader, agents_archive_reader, G_TYPE_OBJECT)

static void
agents_archive_reader_finalize (GObject *object)
{
  AgentsArchiveReader *self = AGENTS_ARCHIVE_READER (object);

  if (self->archive != NULL)
    archive_read_free (self->archive);
  if (self->spool_fd >= 0)
    close (self->spool_fd);
  g_clear_object (&self->input);
  g_clear_pointer (&self->zip_names, g_hash_table_unref);
  g_clear_error (&self->error);
  g_free (self->name);
  g_free (self->member);
  g_free (self->buffer);
  G_OBJECT_CLASS (agents_archive_reader_parent_class)->finalize (object);
}

static void
agents_archive_reader_class_init (AgentsArchiveReaderClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = agents_archive_reader_finalize;
}

static void
agents_archive_reader_init (AgentsArchiveReader *self)
{
  self->spool_fd = -1;
}

/**
 * agents_archive_reader_new:
 * @input: the archive
 * @scheme: its format: a tar (plain, or compressed with gzip, bzip2, xz,
 *   lzma or zstd, recognized by its content) or a zip
 * @limits: (nullable): the limits to enforce while reading; %NULL for
 *   none (an archive of the library's own making)
 *
 * Creates a reader of the members of @input, as the safe extractor reads
 * them: only decompressors built into libarchive (none that runs a
 * program); a zip is copied to an unlinked temporary file first, since it
 * is read from its end. Compressed bytes read beyond
 * @limits->max_input_bytes, members beyond @limits->max_members and data
 * beyond @limits->max_extracted_bytes are
 * %AGENTS_SANDBOX_ERROR_ARCHIVE_LIMIT errors {limit, value, …}; an
 * archive that cannot be read is an
 * %AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ error.
 *
 * Nothing is read before the first agents_archive_reader_next(), which
 * blocks.
 *
 * Returns: (transfer full): the reader
 */
AgentsArchiveReader *
agents_archive_reader_new (GInputStream *input,
                           AgentsCompressionScheme scheme,
                           const AgentsArchiveLimits *limits)
{
  AgentsArchiveReader *self;

  g_return_val_if_fail (G_IS_INPUT_STREAM (input), NULL);

  self = g_object_new (AGENTS_TYPE_ARCHIVE_READER, NULL);
  self->input = g_object_ref (input);
  self->scheme = scheme;
  self->max_input_bytes = limits ? limits->max_input_bytes : G_MAXINT64;
  self->max_extracted_bytes = limits ? limits->max_extracted_bytes : G_MAXINT64;
  self->max_members = limits ? limits->max_members : G_MAXINT64;
  self->buffer = g_malloc (BLOCK_SIZE);
  return self;
}

void
agents_archive_reader_set_name (AgentsArchiveReader *self, const char *name)
{
  g_free (self->name);
  self->name = g_strdup (name);
}

struct archive *
agents_archive_reader_get_archive (AgentsArchiveReader *self)
{
  return self->archive;
}

/* The error of the input, or libarchive's own as a WORKSPACE_ARCHIVE_READ
 * error about the archive's name, else the current member, else ".". */
gboolean
agents_archive_reader_fail (AgentsArchiveReader *self, GError **error)
{
  const char *reason =
    self->archive ? archive_error_string (self->archive) : NULL;
  const char *what = self->name     ? self->name
                     : self->member ? self->member
                                    : ".";

  if (self->error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&self->error));
      return FALSE;
    }
  agents_archive_set_path_error (
    error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ, what, NULL,
    reason ? reason : _ ("archive error"));
  return FALSE;
}

static gboolean
count_input (AgentsArchiveReader *self, gssize n, GError **error)
{
  self->input_bytes += n;
  if (self->input_bytes > self->max_input_bytes)
    return agents_archive_set_limit_error_full (
      error, "max_input_bytes", self->max_input_bytes, NULL, self->input_bytes);
  return TRUE;
}

static la_ssize_t
reader_read_cb (struct archive *a, void *data, const void **buffer)
{
  AgentsArchiveReader *self = data;
  gssize n;

  if (self->error != NULL)
    return -1;
  n = g_input_stream_read (self->input, self->buffer, BLOCK_SIZE,
                           self->cancellable, &self->error);
  if (n < 0)
    {
      archive_set_error (a, EIO, "%s", self->error->message);
      return -1;
    }
  if (!count_input (self, n, &self->error))
    {
      archive_set_error (a, EFBIG, "%s", self->error->message);
      return -1;
    }
  *buffer = self->buffer;
  return n;
}

gboolean
agents_archive_write_all_at (int fd,
                             const void *data,
                             size_t size,
                             off_t offset)
{
  const char *p = data;

  while (size > 0)
    {
      ssize_t n = pwrite (fd, p, size, offset);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return FALSE;
      p += n;
      size -= n;
      offset += n;
    }
  return TRUE;
}

static gboolean
spool_error (AgentsArchiveReader *self, int errsv, GError **error)
{
  agents_archive_set_path_error (
    error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ,
    self->name ? self->name : ".", NULL, g_strerror (errsv));
  return FALSE;
}

/* A zip is read seekably, from an unlinked temporary copy of the input. */
static gboolean
spool_input (AgentsArchiveReader *self, GError **error)
{
  int fd = open (g_get_tmp_dir (), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

  if (fd < 0)
    {
      g_autofree char *path = NULL;

      fd = g_file_open_tmp ("agents-archive-XXXXXX", &path, error);
      if (fd < 0)
        return FALSE;
      unlink (path);
    }
  self->spool_fd = fd;
  for (;;)
    {
      gssize n = g_input_stream_read (self->input, self->buffer, BLOCK_SIZE,
                                      self->cancellable, error);

      if (n == 0)
        return TRUE;
      if (n < 0 || !count_input (self, n, error))
        return FALSE;
      if (!agents_archive_write_all_at (fd, self->buffer, n,
                                        self->input_bytes - n))
        return spool_error (self, errno, error);
    }
}

static guint32
le32 (const guint8 *p)
{
  return p[0] | (p[1] << 8) | (p[2] << 16) | ((guint32) p[3] << 24);
}

static guint16
le16 (const guint8 *p)
{
  return p[0] | (p[1] << 8);
}

static gboolean
read_at (int fd, guint8 *buffer, gsize size, off_t offset)
{
  return pread (fd, buffer, size, offset) == (ssize_t) size;
}

/* libarchive's zip reader turns the backslashes of a name without a
 * slash into slashes (depending on its version, only for a zip made on
 * MS-DOS). The names as the zip has them come from its central directory,
 * so that a member is judged (and reported) by its real name. A name
 * that is also in the zip with slashes is left as libarchive reads it;
 * zip64 directories are not read. */
static void
read_zip_names (AgentsArchiveReader *self)
{
  gsize tail_size = MIN (self->input_bytes, 22 + 65535);
  g_autoptr (GHashTable) raw_names = NULL;
  g_autofree guint8 *tail = NULL;
  g_autofree guint8 *dir = NULL;
  guint32 dir_size, dir_offset;
  gssize eocd = -1;
  GHashTableIter iter;
  gpointer key;

  if (tail_size < 22)
    return;
  tail = g_malloc (tail_size);
  if (!read_at (self->spool_fd, tail, tail_size, self->input_bytes - tail_size))
    return;
  for (gssize i = tail_size - 22; i >= 0 && eocd < 0; i--)
    if (le32 (tail + i) == 0x06054b50)
      eocd = i;
  if (eocd < 0)
    return;
  dir_size = le32 (tail + eocd + 12);
  dir_offset = le32 (tail + eocd + 16);
  if ((gint64) dir_offset + dir_size > self->input_bytes)
    return;
  dir = g_malloc (dir_size + 1);
  if (!read_at (self->spool_fd, dir, dir_size, dir_offset))
    return;

  raw_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->zip_names =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (gsize p = 0; p + 46 <= dir_size && le32 (dir + p) == 0x02014b50;)
    {
      gsize name_len = le16 (dir + p + 28);
      gsize next =
        p + 46 + name_len + le16 (dir + p + 30) + le16 (dir + p + 32);
      g_autofree char *name = NULL;

      if (p + 46 + name_len > dir_size)
        break;
      name = g_strndup ((const char *) dir + p + 46, name_len);
      if (strlen (name) == name_len && strchr (name, '/') == NULL &&
          strchr (name, '\\') != NULL)
        {
          char *converted = g_strdup (name);

          g_strdelimit (converted, "\\", '/');
          if (!g_hash_table_contains (self->zip_names, converted))
            g_hash_table_insert (self->zip_names, converted, g_strdup (name));
          else
            g_free (converted);
        }
      g_hash_table_add (raw_names, g_steal_pointer (&name));
      p = next;
    }
  g_hash_table_iter_init (&iter, self->zip_names);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (g_hash_table_contains (raw_names, key))
      g_hash_table_iter_remove (&iter);
}

static gboolean
reader_open (AgentsArchiveReader *self, GError **error)
{
  struct archive *a = archive_read_new ();
  int r;

  self->archive = a;
  self->opened = TRUE;
  if (self->scheme == AGENTS_COMPRESSION_SCHEME_ZIP)
    {
      archive_read_support_format_zip_seekable (a);
      if (!spool_input (self, error))
        return FALSE;
      read_zip_names (self);
      r = archive_read_open_fd (a, self->spool_fd, BLOCK_SIZE);
    }
  else
    {
      archive_read_support_format_tar (a);
      /* Only filters built into libarchive: none that runs a program. */
      archive_read_support_filter_gzip (a);
      archive_read_support_filter_bzip2 (a);
      archive_read_support_filter_xz (a);
      archive_read_support_filter_lzma (a);
      archive_read_support_filter_zstd (a);
      r = archive_read_open (a, self, NULL, reader_read_cb, NULL);
    }
  if (r != ARCHIVE_OK)
    return agents_archive_reader_fail (self, error);
  return TRUE;
}

/* The libarchive entry of the next member (valid until the next call), or
 * NULL at the end. Counts the member against max_members. */
gboolean
agents_archive_reader_next_entry (AgentsArchiveReader *self,
                                  struct archive_entry **entry,
                                  GCancellable *cancellable,
                                  GError **error)
{
  const char *name, *raw;
  gboolean ok = TRUE;
  int r;

  *entry = NULL;
  g_clear_pointer (&self->member, g_free);
  self->entry = NULL;
  if (self->done)
    return TRUE;
  self->cancellable = cancellable;
  if (!self->opened)
    ok = reader_open (self, error);
  if (ok)
    {
      r = archive_read_next_header (self->archive, entry);
      if (r == ARCHIVE_EOF)
        {
          *entry = NULL;
          self->done = TRUE;
        }
      /* A warning may come with a member name that libarchive could not
       * convert (a zip's bytes flagged UTF-8 that are not): no name. An
       * empty name, read without a warning, is the rules' to refuse. */
      else if (r < ARCHIVE_WARN ||
               (r == ARCHIVE_WARN &&
                agents_archive_entry_pathname (*entry) == NULL))
        {
          *entry = NULL;
          ok = agents_archive_reader_fail (self, error);
        }
    }
  self->cancellable = NULL;
  if (!ok || *entry == NULL)
    return ok;

  name = agents_archive_entry_pathname (*entry);
  if (self->zip_names != NULL && name != NULL &&
      (raw = g_hash_table_lookup (self->zip_names, name)))
    archive_entry_copy_pathname (*entry, raw);
  self->entry = *entry;
  self->member = g_strdup (agents_archive_entry_pathname (*entry));
  if (++self->members > self->max_members)
    {
      agents_archive_set_limit_error_full (
        error, "max_members", self->max_members, self->member, self->members);
      *entry = NULL;
      return FALSE;
    }
  return TRUE;
}

/* Whether @size more bytes of member data fit into max_extracted_bytes
 * (checked on a header's word, before any data is read). */
gboolean
agents_archive_reader_check_size (AgentsArchiveReader *self,
                                  const char *member,
                                  gint64 size,
                                  GError **error)
{
  if (size >= 0 && size <= self->max_extracted_bytes - self->extracted_bytes)
    return TRUE;
  return agents_archive_set_limit_error_full (
    error, "max_extracted_bytes", self->max_extracted_bytes, member,
    size < 0 ? -1 : self->extracted_bytes + size);
}

/* Counts @n bytes of member data actually produced: headers may lie and
 * compressed data may expand beyond what they announce. */
gboolean
agents_archive_reader_count_extracted (AgentsArchiveReader *self,
                                       gsize n,
                                       GError **error)
{
  self->extracted_bytes += n;
  if (self->extracted_bytes > self->max_extracted_bytes)
    return agents_archive_set_limit_error (error, "max_extracted_bytes",
                                           self->max_extracted_bytes);
  return TRUE;
}

/**
 * agents_archive_reader_next:
 * @self: a reader
 * @member: (out) (transfer full) (nullable): the next member's header, or
 *   %NULL after the last
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads the header of the next member, skipping what is left of the
 * data of the current one. Names are as the archive has them: nothing is
 * checked here but the limits; see agents_archive_validate_copy().
 *
 * Returns: %TRUE with *@member set (or %NULL at the end), %FALSE with
 *   @error set
 */
gboolean
agents_archive_reader_next (AgentsArchiveReader *self,
                            AgentsArchiveMember **member,
                            GCancellable *cancellable,
                            GError **error)
{
  struct archive_entry *entry;

  g_return_val_if_fail (AGENTS_IS_ARCHIVE_READER (self), FALSE);
  g_return_val_if_fail (member != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  *member = NULL;
  if (!agents_archive_reader_next_entry (self, &entry, cancellable, error))
    return FALSE;
  if (entry != NULL)
    *member = member_from_entry (entry);
  return TRUE;
}

/* The annotations of @buffer must stay on one line. */
/* clang-format off */
/**
 * agents_archive_reader_read_data:
 * @self: a reader
 * @buffer: (array length=count) (element-type guint8) (out caller-allocates) (transfer full):
 *   where the data goes
 * @count: the size of @buffer
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads data of the current member, counted against
 * max_extracted_bytes.
 *
 * Returns: the number of bytes read, 0 at the end of the member's data,
 *   -1 with @error set
 */
/* clang-format on */
gssize
agents_archive_reader_read_data (AgentsArchiveReader *self,
                                 void *buffer,
                                 gsize count,
                                 GCancellable *cancellable,
                                 GError **error)
{
  la_ssize_t n;

  g_return_val_if_fail (AGENTS_IS_ARCHIVE_READER (self), -1);
  g_return_val_if_fail (error == NULL || *error == NULL, -1);

  if (self->entry == NULL || count == 0)
    return 0;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return -1;
  self->cancellable = cancellable;
  n = archive_read_data (self->archive, buffer, MIN (count, G_MAXSSIZE));
  self->cancellable = NULL;
  if (n < 0)
    {
      agents_archive_reader_fail (self, error);
      return -1;
    }
  if (!agents_archive_reader_count_extracted (self, n, error))
    return -1;
  return n;
}

/* ---- the data of one member as a stream -------------------------------- */

#define AGENTS_TYPE_ARCHIVE_DATA_STREAM (agents_archive_data_stream_get_type ())
G_DECLARE_FINAL_TYPE (AgentsArchiveDataStream,
                      agents_archive_data_stream,
                      AGENTS,
                      ARCHIVE_DATA_STREAM,
                      GInputStream)

struct _AgentsArchiveDataStream
{
  GInputStream parent_instance;

  AgentsArchiveReader *reader;
};

G_DEFINE_FINAL_TYPE (AgentsArchiveDataStream,
                     agents_archive_data_stream,
                     G_TYPE_INPUT_STREAM)

static gssize
agents_archive_data_stream_read (GInputStream *stream,
                                 void *buffer,
                                 gsize count,
                                 GCancellable *cancellable,
                                 GError **error)
{
  AgentsArchiveDataStream *self = AGENTS_ARCHIVE_DATA_STREAM (stream);

  return agents_archive_reader_read_data (self->reader, buffer, count,
                                          cancellable, error);
}

static gboolean
agents_archive_data_stream_close (GInputStream *stream,
                                  GCancellable *cancellable,
                                  GError **error)
{
  AgentsArchiveReader *reader = AGENTS_ARCHIVE_DATA_STREAM (stream)->reader;

  /* Nothing more is read: libarchive lets go of the input first. */
  g_clear_pointer (&reader->archive, archive_read_free);
  reader->entry = NULL;
  reader->done = TRUE;
  return g_input_stream_close (reader->input, cancellable, error);
}

static void
agents_archive_data_stream_finalize (GObject *object)
{
  g_clear_object (&AGENTS_ARCHIVE_DATA_STREAM (object)->reader);
  G_OBJECT_CLASS (agents_archive_data_stream_parent_class)->finalize (object);
}

static void
agents_archive_data_stream_class_init (AgentsArchiveDataStreamClass *klass)
{
  GInputStreamClass *stream_class = G_INPUT_STREAM_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = agents_archive_data_stream_finalize;
  stream_class->read_fn = agents_archive_data_stream_read;
  stream_class->close_fn = agents_archive_data_stream_close;
}

static void
agents_archive_data_stream_init (AgentsArchiveDataStream *self)
{
}

/**
 * agents_archive_reader_open_data:
 * @self: a reader
 *
 * A stream over the data of the current member, read from the archive as
 * it is consumed (blocking reads). The stream keeps @self alive; closing
 * it ends the reading of the archive and closes the archive's input
 * stream.
 *
 * Returns: (transfer full): the stream
 */
GInputStream *
agents_archive_reader_open_data (AgentsArchiveReader *self)
{
  AgentsArchiveDataStream *stream;

  g_return_val_if_fail (AGENTS_IS_ARCHIVE_READER (self), NULL);

  stream = g_object_new (AGENTS_TYPE_ARCHIVE_DATA_STREAM, NULL);
  stream->reader = g_object_ref (self);
  return G_INPUT_STREAM (stream);
}
