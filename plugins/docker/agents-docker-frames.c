/* agents-docker-frames.c - the stdout and stderr frames of an exec stream
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "agents-docker-engine-private.h"

#define FRAME_HEADER_SIZE 8
#define FRAME_CHUNK (256 * 1024)

static gboolean
protocol_error (GError **error, const char *reason)
{
  g_auto (GVariantBuilder) builder =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  g_variant_builder_add (&builder, "{sv}", "reason",
                         g_variant_new_string (reason));
  agents_docker_error_set (
    error, AGENTS_DOCKER_ERROR_PROTOCOL, g_variant_builder_end (&builder),
    _ ("The Docker engine sent a malformed exec stream: %s"), reason);
  return FALSE;
}

/* Reads exactly @size bytes; FALSE with a PROTOCOL error on an early end. */
static gboolean
read_exactly (GInputStream *in,
              void *buffer,
              gsize size,
              GCancellable *cancellable,
              GError **error)
{
  gsize n = 0;

  if (!g_input_stream_read_all (in, buffer, size, &n, cancellable, error))
    return FALSE;
  if (n < size)
    return protocol_error (error, _ ("it ends in the middle of a frame"));
  return TRUE;
}

/* Reads one frame's @length bytes, keeping what fits under @limit. */
static gboolean
read_frame (GInputStream *in,
            GByteArray *target,
            gsize length,
            gsize limit,
            gboolean *truncated,
            GCancellable *cancellable,
            GError **error)
{
  g_autofree guint8 *scratch = NULL;

  while (length > 0)
    {
      gsize kept = target ? target->len : limit;
      gsize room = kept < limit ? limit - kept : 0;
      gsize chunk = MIN (length, FRAME_CHUNK);

      if (room > 0)
        {
          chunk = MIN (chunk, room);
          g_byte_array_set_size (target, kept + chunk);
          if (!read_exactly (in, target->data + kept, chunk, cancellable,
                             error))
            return FALSE;
        }
      else
        {
          if (scratch == NULL)
            scratch = g_malloc (FRAME_CHUNK);
          if (!read_exactly (in, scratch, chunk, cancellable, error))
            return FALSE;
          if (target != NULL && truncated != NULL)
            *truncated = TRUE;
        }
      length -= chunk;
    }
  return TRUE;
}

/* Reads a frame header: FALSE at the end of the stream (no error) or on
 * an error. */
static gboolean
read_header (GInputStream *in,
             guint8 header[FRAME_HEADER_SIZE],
             GCancellable *cancellable,
             GError **error)
{
  gsize n = 0;

  if (!g_input_stream_read_all (in, header, FRAME_HEADER_SIZE, &n, cancellable,
                                error))
    return FALSE;
  if (n == 0)
    return FALSE;
  if (n < FRAME_HEADER_SIZE)
    return protocol_error (error, _ ("it ends in the middle of a frame"));
  if (header[0] > 2 || header[1] != 0 || header[2] != 0 || header[3] != 0)
    return protocol_error (error, _ ("a frame header is not valid"));
  return TRUE;
}

/**
 * agents_docker_engine_read_multiplexed:
 * @in: an exec's output stream
 * @out: (nullable): receives stdout (and stdin echoes), %NULL to drop it
 * @err: (nullable): receives stderr, %NULL to drop it
 * @limit: how many bytes to keep per stream
 * @truncated: (out) (optional): set to %TRUE when bytes were dropped
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Demultiplexes @in to its end.
 *
 * Returns: whether the whole stream was read
 */
gboolean
agents_docker_engine_read_multiplexed (GInputStream *in,
                                       GByteArray *out,
                                       GByteArray *err,
                                       gsize limit,
                                       gboolean *truncated,
                                       GCancellable *cancellable,
                                       GError **error)
{
  guint8 header[FRAME_HEADER_SIZE];

  g_return_val_if_fail (G_IS_INPUT_STREAM (in), FALSE);

  if (truncated != NULL)
    *truncated = FALSE;
  for (;;)
    {
      GError *local = NULL;
      gsize length;

      if (!read_header (in, header, cancellable, &local))
        {
          if (local == NULL)
            return TRUE;
          g_propagate_error (error, local);
          return FALSE;
        }
      guint32 be_length;

      memcpy (&be_length, header + 4, sizeof be_length);
      length = GUINT32_FROM_BE (be_length);
      if (!read_frame (in, header[0] == 2 ? err : out, length, limit, truncated,
                       cancellable, error))
        return FALSE;
    }
}
