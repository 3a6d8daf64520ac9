/* agents-docker-tar.c - the tar streams the docker backend exchanges
 * with the engine's archive endpoint
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Reading, validating and renaming go through the library's stream-level
 * archive API (agents-archive-stream.h), with the same tar policy and
 * limits as the extractor; only the one-member tar of an upload is made
 * here, to know its length beforehand.
 */

#include "config.h"

#include <inttypes.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "agents-docker-tar.h"

#define TAR_BLOCK 512
#define USTAR_NAME_MAX 100
#define USTAR_SIZE_MAX G_GUINT64_CONSTANT (077777777777)

/* The prefix to strip for @root_name, or NULL when it names no directory
 * (a root of "/"): the members are then taken as they are. */
static const char *
root_prefix (const char *root_name)
{
  g_auto (GStrv) parts = NULL;

  if (root_name == NULL)
    return NULL;
  parts = g_strsplit (root_name, "/", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    if (*parts[i] != '\0' && strcmp (parts[i], ".") != 0)
      return root_name;
  return NULL;
}

/**
 * agents_docker_tar_rebase_workspace:
 * @in: the tar of GET /containers/{id}/archive?path=ROOT
 * @root_name: the basename of ROOT
 * @exclude: (array zero-terminated=1) (nullable): workspace-relative paths
 *   left out together with everything below them
 * @out: where the workspace-relative tar goes
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Copies the engine's tar to @out with the members renamed relative to
 * ROOT: agents_archive_strip_prefix() (see agents-docker-tar.h).
 *
 * Returns: %TRUE on success
 */
gboolean
agents_docker_tar_rebase_workspace (GInputStream *in,
                                    const char *root_name,
                                    const char *const *exclude,
                                    GOutputStream *out,
                                    GCancellable *cancellable,
                                    GError **error)
{
  return agents_archive_strip_prefix (in, root_prefix (root_name), exclude,
                                      AGENTS_ARCHIVE_STRIP_NONE, out,
                                      cancellable, error);
}

/**
 * agents_docker_tar_validate_copy:
 * @in: a tar, plain or compressed
 * @limits: (nullable): the limits; %NULL for the defaults
 * @existing_links: (nullable) (element-type utf8 utf8): the workspace's
 *   symlinks, relative path to target
 * @keep_links: whether @in is a workspace snapshot, whose symlinks are
 *   kept whatever they point to
 * @out: where the accepted members go
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Checks @in while copying it to @out: agents_archive_validate_copy()
 * with a policy of @existing_links and @keep_links (see
 * agents-docker-tar.h).
 *
 * Returns: %TRUE on success
 */
gboolean
agents_docker_tar_validate_copy (GInputStream *in,
                                 const AgentsArchiveLimits *limits,
                                 GHashTable *existing_links,
                                 gboolean keep_links,
                                 GOutputStream *out,
                                 GCancellable *cancellable,
                                 GError **error)
{
  g_autoptr (AgentsArchivePolicy) policy = agents_archive_policy_new ();
  GHashTableIter iter;
  gpointer path, target;

  g_return_val_if_fail (G_IS_OUTPUT_STREAM (out), FALSE);

  agents_archive_policy_set_keep_links (policy, keep_links);
  if (existing_links != NULL)
    {
      g_hash_table_iter_init (&iter, existing_links);
      while (g_hash_table_iter_next (&iter, &path, &target))
        if (target != NULL)
          agents_archive_policy_add_existing_link (policy, path, target);
    }
  return agents_archive_validate_copy (in, policy, limits, out, cancellable,
                                       error);
}

/**
 * agents_docker_tar_list_symlinks:
 * @in: a workspace-relative tar, or an archive endpoint tar
 * @root_name: (nullable): the basename to strip from the member names
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * agents_archive_list_symlinks() of @in.
 *
 * Returns: (transfer full) (element-type utf8 utf8): relative path to
 *   target, or %NULL with @error set
 */
GHashTable *
agents_docker_tar_list_symlinks (GInputStream *in,
                                 const char *root_name,
                                 GCancellable *cancellable,
                                 GError **error)
{
  return agents_archive_list_symlinks (in, root_prefix (root_name), cancellable,
                                       error);
}

/* ======================================================================
 * Reading the one member of an archive endpoint tar
 * ====================================================================== */

static gboolean
check_regular_member (const AgentsArchiveMember *member, GError **error)
{
  g_autofree char *display = g_utf8_make_valid (member->name, -1);

  if (member->type == AGENTS_ARCHIVE_MEMBER_REGULAR)
    return TRUE;
  if (member->type == AGENTS_ARCHIVE_MEMBER_DIRECTORY)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY,
                 _ ("%s is a directory"), display);
  else
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                 _ ("%s is not a regular file"), display);
  return FALSE;
}

static gboolean
read_single_member (AgentsArchiveReader *reader,
                    GCancellable *cancellable,
                    GError **error)
{
  g_autoptr (AgentsArchiveMember) member = NULL;
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  if (!agents_archive_reader_next (reader, &member, cancellable, error))
    return FALSE;
  if (member != NULL)
    return check_regular_member (member, error);
  g_variant_builder_add (&ctx, "{sv}", "path", g_variant_new_string ("."));
  g_variant_builder_add (
    &ctx, "{sv}", "reason",
    g_variant_new_string (_ ("the archive has no member")));
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ,
                            g_variant_builder_end (&ctx),
                            _ ("failed to read archive for path: %s"), ".");
  return FALSE;
}

/**
 * agents_docker_tar_open_single_file:
 * @in: the tar of GET /containers/{id}/archive?path=FILE
 * @cancellable: (nullable): a #GCancellable for reading the header
 * @error: return location for a #GError
 *
 * Reads the header of the first member of @in and returns a stream over
 * its data (agents_archive_reader_open_data()), read from @in as it is
 * consumed. Closing the stream closes @in; @in is closed when this fails
 * too.
 *
 * Returns: (transfer full): the data, or %NULL with @error set
 */
GInputStream *
agents_docker_tar_open_single_file (GInputStream *in,
                                    GCancellable *cancellable,
                                    GError **error)
{
  g_autoptr (AgentsArchiveReader) reader = NULL;

  g_return_val_if_fail (G_IS_INPUT_STREAM (in), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  reader = agents_archive_reader_new (in, AGENTS_COMPRESSION_SCHEME_TAR, NULL);
  if (!read_single_member (reader, cancellable, error))
    {
      g_input_stream_close (in, NULL, NULL);
      return NULL;
    }
  return agents_archive_reader_open_data (reader);
}

/* ======================================================================
 * Writing a one-member tar
 * ====================================================================== */

static guint64
round_up_block (guint64 n)
{
  return (n + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK;
}

static guint
count_digits (gsize n)
{
  guint digits = 1;

  while (n >= 10)
    {
      n /= 10;
      digits++;
    }
  return digits;
}

/* A PAX record "LEN key=value\n", LEN counting itself. */
static void
append_pax_record (GString *records, const char *key, const char *value)
{
  gsize body = 1 + strlen (key) + 1 + strlen (value) + 1;
  gsize len = body + 1;

  while (count_digits (len) + body != len)
    len = count_digits (len) + body;
  g_string_append_printf (records, "%" G_GSIZE_FORMAT " %s=%s\n", len, key,
                          value);
}

/* The records of the 'x' header @name and @size need, or NULL. */
static GString *
pax_records (const char *name, guint64 size)
{
  GString *records = g_string_new (NULL);

  if (strlen (name) > USTAR_NAME_MAX)
    {
      /* PAX paths are UTF-8 unless said otherwise. */
      if (!g_utf8_validate (name, -1, NULL))
        append_pax_record (records, "hdrcharset", "BINARY");
      append_pax_record (records, "path", name);
    }
  if (size > USTAR_SIZE_MAX)
    {
      char value[32];

      g_snprintf (value, sizeof value, "%" G_GUINT64_FORMAT, size);
      append_pax_record (records, "size", value);
    }
  if (records->len == 0)
    {
      g_string_free (records, TRUE);
      return NULL;
    }
  return records;
}

static guint64
headers_length (const char *name, guint64 size)
{
  g_autoptr (GString) records = pax_records (name, size);

  return (records ? TAR_BLOCK + round_up_block (records->len) : 0) + TAR_BLOCK;
}

/* An octal number filling @width bytes with its terminating NUL. */
static void
put_octal (guint8 *field, gsize width, guint64 value)
{
  char text[32];

  g_snprintf (text, sizeof text, "%0*" G_GINT64_MODIFIER "o", (int) (width - 1),
              value);
  memcpy (field, text, width - 1);
  field[width - 1] = '\0';
}

/* A ustar header block. */
static void
put_header (guint8 *block,
            const char *name,
            guint mode,
            guint64 size,
            gint64 mtime,
            char typeflag)
{
  guint sum = 0;

  memset (block, 0, TAR_BLOCK);
  memcpy (block, name, MIN (strlen (name), USTAR_NAME_MAX));
  put_octal (block + 100, 8, mode & 07777);
  put_octal (block + 108, 8, 0);
  put_octal (block + 116, 8, 0);
  put_octal (block + 124, 12, size > USTAR_SIZE_MAX ? 0 : size);
  put_octal (block + 136, 12, mtime);
  block[156] = typeflag;
  memcpy (block + 257, "ustar", 6);
  memcpy (block + 263, "00", 2);

  /* The checksum counts its own field as spaces. */
  memset (block + 148, ' ', 8);
  for (guint i = 0; i < TAR_BLOCK; i++)
    sum += block[i];
  g_snprintf ((char *) block + 148, 7, "%06o", sum);
  block[154] = '\0';
  block[155] = ' ';
}

static GBytes *
build_headers (const char *name, guint mode, guint64 size)
{
  g_autoptr (GString) records = pax_records (name, size);
  guint64 length = headers_length (name, size);
  gint64 now = g_get_real_time () / G_USEC_PER_SEC;
  guint8 *headers = g_malloc0 (length);
  guint8 *p = headers;

  if (records != NULL)
    {
      g_autofree char *pax_name = g_strconcat ("PaxHeaders/", name, NULL);

      put_header (p, pax_name, 0644, records->len, now, 'x');
      memcpy (p + TAR_BLOCK, records->str, records->len);
      p += TAR_BLOCK + round_up_block (records->len);
    }
  put_header (p, name, mode, size, now, '0');
  return g_bytes_new_take (headers, length);
}

#define AGENTS_TYPE_DOCKER_TAR_WRITE_STREAM \
  (agents_docker_tar_write_stream_get_type ())
G_DECLARE_FINAL_TYPE (AgentsDockerTarWriteStream,
                      agents_docker_tar_write_stream,
                      AGENTS,
                      DOCKER_TAR_WRITE_STREAM,
                      GInputStream)

struct _AgentsDockerTarWriteStream
{
  GInputStream parent_instance;

  GInputStream *data;
  char *name;
  GBytes *headers;
  guint64 size;
  guint64 length; /* of the whole tar */
  guint64 pos;
  gboolean data_checked; /* nothing came after @size bytes */
};

G_DEFINE_FINAL_TYPE (AgentsDockerTarWriteStream,
                     agents_docker_tar_write_stream,
                     G_TYPE_INPUT_STREAM)

static gssize
set_size_error (AgentsDockerTarWriteStream *self,
                gboolean short_data,
                GError **error)
{
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  g_autofree char *display = g_utf8_make_valid (self->name, -1);
  g_autofree char *reason = NULL;

  if (short_data)
    reason = g_strdup_printf (
      _ ("the data ended after %" PRIu64 " of %" PRIu64 " bytes"),
      (uint64_t) (self->pos - g_bytes_get_size (self->headers)),
      (uint64_t) self->size);
  else
    reason = g_strdup_printf (_ ("the data is longer than %" PRIu64 " bytes"),
                              (uint64_t) self->size);
  g_variant_builder_add (&ctx, "{sv}", "path", g_variant_new_string (display));
  g_variant_builder_add (&ctx, "{sv}", "reason", g_variant_new_string (reason));
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE,
                            g_variant_builder_end (&ctx),
                            _ ("failed to write archive for path: %s: %s"),
                            display, reason);
  return -1;
}

static gssize
read_data (AgentsDockerTarWriteStream *self,
           void *buffer,
           gsize count,
           GCancellable *cancellable,
           GError **error)
{
  guint64 done = self->pos - g_bytes_get_size (self->headers);
  gssize n = g_input_stream_read (
    self->data, buffer, MIN (count, self->size - done), cancellable, error);

  if (n == 0)
    return set_size_error (self, TRUE, error);
  if (n > 0)
    self->pos += n;
  return n;
}

static gboolean
check_data_end (AgentsDockerTarWriteStream *self,
                GCancellable *cancellable,
                GError **error)
{
  guint8 extra;
  gssize n = g_input_stream_read (self->data, &extra, 1, cancellable, error);

  if (n < 0)
    return FALSE;
  if (n > 0)
    {
      set_size_error (self, FALSE, error);
      return FALSE;
    }
  self->data_checked = TRUE;
  return TRUE;
}

static gssize
agents_docker_tar_write_stream_read (GInputStream *stream,
                                     void *buffer,
                                     gsize count,
                                     GCancellable *cancellable,
                                     GError **error)
{
  AgentsDockerTarWriteStream *self = AGENTS_DOCKER_TAR_WRITE_STREAM (stream);
  gsize headers_len = g_bytes_get_size (self->headers);
  gsize n;

  if (self->pos < headers_len)
    {
      const guint8 *headers = g_bytes_get_data (self->headers, NULL);

      n = MIN (count, headers_len - self->pos);
      memcpy (buffer, headers + self->pos, n);
      self->pos += n;
      return n;
    }
  if (self->pos < headers_len + self->size)
    return read_data (self, buffer, count, cancellable, error);
  if (!self->data_checked && !check_data_end (self, cancellable, error))
    return -1;

  /* Padding of the data, then the two end-of-archive blocks. */
  n = MIN (count, self->length - self->pos);
  memset (buffer, 0, n);
  self->pos += n;
  return n;
}

static gboolean
agents_docker_tar_write_stream_close (GInputStream *stream,
                                      GCancellable *cancellable,
                                      GError **error)
{
  AgentsDockerTarWriteStream *self = AGENTS_DOCKER_TAR_WRITE_STREAM (stream);

  return g_input_stream_close (self->data, cancellable, error);
}

static void
agents_docker_tar_write_stream_finalize (GObject *object)
{
  AgentsDockerTarWriteStream *self = AGENTS_DOCKER_TAR_WRITE_STREAM (object);

  g_clear_object (&self->data);
  g_free (self->name);
  g_clear_pointer (&self->headers, g_bytes_unref);
  G_OBJECT_CLASS (agents_docker_tar_write_stream_parent_class)
    ->finalize (object);
}

static void
agents_docker_tar_write_stream_class_init (
  AgentsDockerTarWriteStreamClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GInputStreamClass *stream_class = G_INPUT_STREAM_CLASS (klass);

  object_class->finalize = agents_docker_tar_write_stream_finalize;
  stream_class->read_fn = agents_docker_tar_write_stream_read;
  stream_class->close_fn = agents_docker_tar_write_stream_close;
}

static void
agents_docker_tar_write_stream_init (AgentsDockerTarWriteStream *self)
{
}

/**
 * agents_docker_tar_single_file_length:
 * @name: the member name
 * @size: the size of its data
 *
 * Returns: the length of what agents_docker_tar_single_file_stream()
 *   produces for @name and @size
 */
guint64
agents_docker_tar_single_file_length (const char *name, guint64 size)
{
  g_return_val_if_fail (name != NULL, 0);

  return headers_length (name, size) + round_up_block (size) + 2 * TAR_BLOCK;
}

/**
 * agents_docker_tar_single_file_stream:
 * @name: the member name, a single path component
 * @mode: its permission bits
 * @data: the data; closed when the returned stream is closed
 * @size: the number of bytes @data has
 *
 * A ustar archive with one regular file (owner 0:0, modified now), and a
 * PAX header before it when the name is longer than 100 bytes or the size
 * beyond ustar's 8 GiB.
 *
 * Returns: (transfer full): the tar stream
 */
GInputStream *
agents_docker_tar_single_file_stream (const char *name,
                                      guint mode,
                                      GInputStream *data,
                                      guint64 size)
{
  AgentsDockerTarWriteStream *self;

  g_return_val_if_fail (name != NULL && *name != '\0', NULL);
  g_return_val_if_fail (G_IS_INPUT_STREAM (data), NULL);

  self = g_object_new (AGENTS_TYPE_DOCKER_TAR_WRITE_STREAM, NULL);
  self->data = g_object_ref (data);
  self->name = g_strdup (name);
  self->size = size;
  self->headers = build_headers (name, mode, size);
  self->length = agents_docker_tar_single_file_length (name, size);
  return G_INPUT_STREAM (self);
}
