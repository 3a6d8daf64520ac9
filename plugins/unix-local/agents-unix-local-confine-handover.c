/* agents-unix-local-confine-handover.c - handing the workspace to the sandbox
 * uid and back
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>

#include "agents-sandbox-error-private.h"
#include "agents-unix-local-confine-private.h"

/* ---- handing the workspace over ------------------------------------- */

/* Deeper trees are refused: each level holds a descriptor. */
#define HAND_OVER_MAX_DEPTH 512

typedef struct
{
  gboolean back;    /* hand back: only what @from_uid owns */
  guint32 from_uid; /* back: the sandbox uid */
  guint32 to_uid;
  guint32 to_gid;
  dev_t dev;       /* the file system of the tree's top */
  const char *top; /* for messages */
} HandOver;

static gboolean
hand_over_error (GError **error, const HandOver *h, const char *what, int err)
{
  agents_sandbox_error_set (
    error, AGENTS_SANDBOX_ERROR_FAILED,
    g_variant_new_parsed ("{'path': <%s>}", h->top),
    h->back ? _ ("cannot give %s back to the caller: %s: %s")
            : _ ("cannot hand %s over to the sandbox user: %s: %s"),
    h->top, what, g_strerror (err));
  return FALSE;
}

/* A regular file is changed through a descriptor, so that one swapped
 * for a symlink meanwhile is never followed. */
static int
open_regular (int dirfd, const char *name, const struct stat *st)
{
  struct stat now;
  int fd = openat (dirfd, name,
                   O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

  if (fd < 0)
    return -1;
  if (fstat (fd, &now) < 0 || !S_ISREG (now.st_mode) ||
      now.st_ino != st->st_ino || now.st_dev != st->st_dev)
    {
      close (fd);
      errno = ESTALE;
      return -1;
    }
  return fd;
}

static gboolean
hand_regular (const HandOver *h,
              int dirfd,
              const char *name,
              const struct stat *st,
              GError **error)
{
  int fd;
  gboolean ok;

  /* Hard links may lead outside the tree: such a file keeps its owner. */
  if (!h->back && st->st_nlink > 1)
    return TRUE;
  fd = open_regular (dirfd, name, st);
  if (fd < 0)
    return errno == ENOENT || hand_over_error (error, h, name, errno);
  ok = fchown (fd, h->to_uid, h->to_gid) == 0 &&
       (!h->back || (st->st_mode & (S_ISUID | S_ISGID)) == 0 ||
        fchmod (fd, st->st_mode & 01777 & ~(S_ISUID | S_ISGID)) == 0);
  if (!ok)
    hand_over_error (error, h, name, errno);
  close (fd);
  return ok;
}

static gboolean
hand_entry (const HandOver *h,
            int dirfd,
            const char *name,
            const struct stat *st,
            GError **error)
{
  if (h->back ? st->st_uid != h->from_uid
              : st->st_uid == h->to_uid && st->st_gid == h->to_gid)
    return TRUE;
  if (S_ISREG (st->st_mode))
    return hand_regular (h, dirfd, name, st, error);
  if (fchownat (dirfd, name, h->to_uid, h->to_gid, AT_SYMLINK_NOFOLLOW) < 0 &&
      errno != ENOENT)
    return hand_over_error (error, h, name, errno);
  return TRUE;
}

static GPtrArray *
list_dir (int dirfd)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  int fd = dup (dirfd);
  DIR *dir = fd < 0 ? NULL : fdopendir (fd);
  struct dirent *entry;

  if (dir == NULL)
    {
      if (fd >= 0)
        close (fd);
      return names;
    }
  while ((entry = readdir (dir)) != NULL)
    if (!g_str_equal (entry->d_name, ".") && !g_str_equal (entry->d_name, ".."))
      g_ptr_array_add (names, g_strdup (entry->d_name));
  closedir (dir);
  return names;
}

static gboolean
hand_dir (const HandOver *h, int dirfd, guint depth, GError **error)
{
  g_autoptr (GPtrArray) names = list_dir (dirfd);

  if (depth > HAND_OVER_MAX_DEPTH)
    return hand_over_error (error, h, "depth", ELOOP);
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      struct stat st;
      gboolean ok;
      int sub;

      /* Mounts inside (other file systems) are not ours to change. */
      if (fstatat (dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
          st.st_dev != h->dev)
        continue;
      if (!hand_entry (h, dirfd, name, &st, error))
        return FALSE;
      if (!S_ISDIR (st.st_mode))
        continue;
      sub =
        openat (dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub < 0)
        continue;
      ok = hand_dir (h, sub, depth + 1, error);
      close (sub);
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

static gboolean
hand_tree (HandOver *h, const char *path, GError **error)
{
  g_autofree char *parent = g_path_get_dirname (path);
  g_autofree char *name = g_path_get_basename (path);
  struct stat st;
  gboolean ok;
  int pfd, fd;

  h->top = path;
  pfd = open (parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (pfd < 0)
    return errno == ENOENT || hand_over_error (error, h, parent, errno);
  if (fstatat (pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
    {
      close (pfd);
      return errno == ENOENT || hand_over_error (error, h, path, errno);
    }
  h->dev = st.st_dev;
  ok = hand_entry (h, pfd, name, &st, error);
  fd = ok && S_ISDIR (st.st_mode)
         ? openat (pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
         : -1;
  close (pfd);
  if (fd >= 0)
    {
      ok = hand_dir (h, fd, 1, error);
      close (fd);
    }
  return ok;
}

gboolean
agents_unix_local_hand_over (const char *const *paths,
                             guint32 uid,
                             guint32 gid,
                             GError **error)
{
  HandOver h = { FALSE, 0, uid, gid, 0, NULL };

  for (guint i = 0; paths != NULL && paths[i] != NULL; i++)
    if (!hand_tree (&h, paths[i], error))
      return FALSE;
  return TRUE;
}

gboolean
agents_unix_local_hand_back (const char *const *paths,
                             guint32 uid,
                             GError **error)
{
  HandOver h = { TRUE, uid, geteuid (), getegid (), 0, NULL };

  for (guint i = 0; paths != NULL && paths[i] != NULL; i++)
    if (!hand_tree (&h, paths[i], error))
      return FALSE;
  return TRUE;
}
