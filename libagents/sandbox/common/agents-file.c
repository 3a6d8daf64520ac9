/* agents-file.c - opening the files that users name
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gi18n-lib.h>

#include "agents-file-private.h"

static void
set_errno_error (GError **error, const char *path, int errsv)
{
  g_autofree char *display = g_filename_display_name (path);

  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv), "%s: %s",
               display, g_strerror (errsv));
}

int
agents_file_open_regular (const char *path,
                          gboolean nofollow,
                          struct stat *st,
                          GError **error)
{
  int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
  struct stat local_st;
  int fd;

  g_return_val_if_fail (path != NULL, -1);

  if (st == NULL)
    st = &local_st;
  fd = open (path, flags | (nofollow ? O_NOFOLLOW : 0));
  if (fd < 0)
    {
      set_errno_error (error, path, errno);
      return -1;
    }
  if (fstat (fd, st) != 0)
    {
      set_errno_error (error, path, errno);
      close (fd);
      return -1;
    }
  if (!S_ISREG (st->st_mode))
    {
      g_autofree char *display = g_filename_display_name (path);

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                   _ ("%s: not a regular file"), display);
      close (fd);
      return -1;
    }
  fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

static void
set_too_large (GError **error, const char *path, gsize max_size)
{
  g_autofree char *display = g_filename_display_name (path);

  g_set_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE,
               _ ("%s: larger than %lu bytes"), display,
               (unsigned long) max_size);
}

/* Reads to the end, or to one byte past @max_size; the size that fstat()
 * gave is only a hint (a file may grow, files of /proc say 0). */
static GByteArray *
read_to_end (int fd, const char *path, gsize max_size, GError **error)
{
  g_autoptr (GByteArray) bytes = g_byte_array_new ();
  guint8 chunk[64 * 1024];

  while (bytes->len <= max_size)
    {
      gssize n =
        read (fd, chunk, MIN (sizeof chunk, max_size + 1 - bytes->len));

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          set_errno_error (error, path, errno);
          return NULL;
        }
      if (n == 0)
        return g_steal_pointer (&bytes);
      g_byte_array_append (bytes, chunk, n);
    }
  set_too_large (error, path, max_size);
  return NULL;
}

gboolean
agents_file_read_regular (const char *path,
                          gsize max_size,
                          char **contents,
                          gsize *length,
                          GError **error)
{
  GByteArray *bytes;
  struct stat st;
  int fd;

  g_return_val_if_fail (contents != NULL, FALSE);

  fd = agents_file_open_regular (path, FALSE, &st, error);
  if (fd < 0)
    return FALSE;
  if ((guint64) st.st_size > max_size)
    {
      close (fd);
      set_too_large (error, path, max_size);
      return FALSE;
    }
  bytes = read_to_end (fd, path, max_size, error);
  close (fd);
  if (bytes == NULL)
    return FALSE;
  if (length != NULL)
    *length = bytes->len;
  g_byte_array_append (bytes, (const guint8 *) "", 1);
  *contents = (char *) g_byte_array_free (bytes, FALSE);
  return TRUE;
}
