/* agents-fs.c - small host filesystem helpers
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agents-fs.h"

static gboolean
rm_rf_at (int parent_fd, const char *name, GError **error)
{
  struct stat st;
  int fd;
  DIR *dir;
  struct dirent *de;
  gboolean ok = TRUE;

  if (fstatat (parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    return errno == ENOENT;
  if (!S_ISDIR (st.st_mode))
    return unlinkat (parent_fd, name, 0) == 0 || errno == ENOENT;

  fd =
    openat (parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return FALSE;
  dir = fdopendir (fd);
  if (dir == NULL)
    {
      close (fd);
      return FALSE;
    }
  while (ok && (de = readdir (dir)) != NULL)
    {
      if (g_str_equal (de->d_name, ".") || g_str_equal (de->d_name, ".."))
        continue;
      ok = rm_rf_at (dirfd (dir), de->d_name, error);
    }
  closedir (dir);
  return ok &&
         (unlinkat (parent_fd, name, AT_REMOVEDIR) == 0 || errno == ENOENT);
}

/**
 * agents_fs_rm_rf:
 * @path: (type filename): an absolute path
 * @error: return location for a #GError
 *
 * Removes @path and everything below it without ever following a symlink:
 * symlinks are unlinked, not traversed, so a workspace cannot trick its
 * removal into deleting files elsewhere. A missing @path is not an error.
 * This blocks.
 *
 * Returns: %TRUE on success
 */
gboolean
agents_fs_rm_rf (const char *path, GError **error)
{
  int saved_errno;

  g_return_val_if_fail (path != NULL && g_path_is_absolute (path), FALSE);

  if (rm_rf_at (AT_FDCWD, path, error))
    return TRUE;
  saved_errno = errno;
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
               _ ("could not remove %s: %s"), path, g_strerror (saved_errno));
  return FALSE;
}

static void
rm_rf_thread (GTask *task,
              gpointer source,
              gpointer task_data,
              GCancellable *cancellable)
{
  g_autoptr (GError) error = NULL;

  if (!agents_fs_rm_rf (task_data, &error))
    g_warning ("%s", error->message);
  g_task_return_boolean (task, TRUE);
}

/**
 * agents_fs_rm_rf_in_background:
 * @path: (type filename): an absolute path
 *
 * Runs agents_fs_rm_rf() in a worker thread, logging a failure.
 */
void
agents_fs_rm_rf_in_background (const char *path)
{
  g_autoptr (GTask) task = g_task_new (NULL, NULL, NULL, NULL);

  g_task_set_task_data (task, g_strdup (path), g_free);
  g_task_run_in_thread (task, rm_rf_thread);
}
