/* agents-unix-local-fs.c - host file operations beneath a directory
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/openat2.h>
#endif

#include <glib/gi18n-lib.h>

#include "agents.h"
#include "agents-sandbox-error-private.h"
#include "agents-unix-local-fs.h"

/* How often a lookup that a concurrent rename spoiled is tried again
 * before the walk that needs no ".." takes over. */
#define OPENAT2_EAGAIN_RETRIES 8

/* ---- opening beneath a directory ------------------------------------ */

static void
close_keep_errno (int fd)
{
  int saved_errno = errno;

  if (fd >= 0)
    close (fd);
  errno = saved_errno;
}

/* openat() without openat2(): no ".." and no symlink may be crossed. */
static int
open_beneath_walk (int dirfd, const char *rel, int flags, mode_t mode)
{
  g_auto (GStrv) parts = g_strsplit (rel, "/", -1);
  int cur = fcntl (dirfd, F_DUPFD_CLOEXEC, 3);
  guint n = g_strv_length (parts);

  for (guint i = 0; cur >= 0 && i < n; i++)
    {
      gboolean last = i + 1 == n;
      struct stat st;
      int next;

      if (*parts[i] == '\0' || g_str_equal (parts[i], "."))
        {
          if (!last)
            continue;
          next = openat (cur, ".", flags | O_CLOEXEC, mode);
        }
      else if (g_str_equal (parts[i], "..") ||
               (fstatat (cur, parts[i], &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                S_ISLNK (st.st_mode)))
        {
          close (cur);
          errno = EXDEV;
          return -1;
        }
      else
        /* O_NOFOLLOW: a symlink swapped in after the check is not
         * followed either. */
        next = openat (cur, parts[i],
                       last ? flags | O_CLOEXEC | O_NOFOLLOW
                            : O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW,
                       mode);
      close_keep_errno (cur);
      cur = next;
    }
  return cur;
}

static gint openat2_disabled;

void
agents_unix_local_set_openat2_disabled (gboolean disabled)
{
  g_atomic_int_set (&openat2_disabled, !!disabled);
}

#ifdef __linux__

static int
sys_openat2 (int dirfd, const char *rel, int flags, mode_t mode)
{
  struct open_how how = { 0 };

  how.flags = flags | O_CLOEXEC;
  how.mode = (flags & O_CREAT) ? mode : 0;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  return syscall (SYS_openat2, dirfd, rel, &how, sizeof how);
}

/* Whether the kernel (and any seccomp filter around us) lets openat2()
 * through; a refusal of the syscall itself means "not available". */
static gboolean
have_openat2 (void)
{
  static gsize once = 0;
  static gboolean have;

  if (g_once_init_enter (&once))
    {
      int root = open ("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
      int fd = sys_openat2 (root, ".", O_PATH | O_DIRECTORY, 0);

      have = fd >= 0 || (errno != ENOSYS && errno != EPERM && errno != EINVAL &&
                         errno != E2BIG);
      close_keep_errno (fd);
      close_keep_errno (root);
      g_once_init_leave (&once, 1);
    }
  return have;
}

#endif

int
agents_unix_local_open_beneath (int dirfd,
                                const char *rel,
                                int flags,
                                mode_t mode)
{
#ifdef __linux__
  if (!g_atomic_int_get (&openat2_disabled) && have_openat2 ())
    {
      /* EAGAIN: a rename or mount anywhere raced with "..", so the kernel
       * could not prove that the lookup stayed beneath @dirfd. That proves
       * nothing either way: never take it for "missing" or "inside". */
      for (guint i = 0; i < OPENAT2_EAGAIN_RETRIES; i++)
        {
          int fd = sys_openat2 (dirfd, rel, flags, mode);

          if (fd >= 0 || (errno != EAGAIN && errno != EINTR))
            return fd;
        }
    }
#endif
  return open_beneath_walk (dirfd, rel, flags, mode);
}

gboolean
agents_unix_local_is_escape_errno (int err)
{
  return err == EXDEV || err == ELOOP;
}

static int
open_base (const char *base)
{
  return open (base, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/* The directory holding @rel, opened beneath @base_fd. */
static int
open_parent_beneath (int base_fd, const char *rel, char **name)
{
  g_autofree char *parent = g_path_get_dirname (rel);

  *name = g_path_get_basename (rel);
  return agents_unix_local_open_beneath (base_fd, parent, O_PATH | O_DIRECTORY,
                                         0);
}

/* ---- errors --------------------------------------------------------- */

static void
set_escape_error (GError **error, const char *given)
{
  agents_sandbox_error_set_invalid_path (error, given, "escape_root");
}

/* The error of the command the operation stands for, had it printed
 * `PROGRAM: @message`. */
static void
set_command_error (GError **error,
                   const char *const *argv,
                   int exit_code,
                   const char *message)
{
  g_autofree char *text = g_strdup_printf ("%s: %s\n", argv[0], message);
  g_autoptr (GBytes) err = g_bytes_new (text, strlen (text));

  agents_sandbox_error_set_exec_nonzero (error, argv, exit_code, NULL, err);
}

/* Escapes are INVALID_MANIFEST_PATH; anything else is what the command
 * would have reported, @message. */
static void
set_errno_error (GError **error,
                 int err,
                 const char *given,
                 const char *const *argv,
                 int exit_code,
                 const char *message)
{
  if (agents_unix_local_is_escape_errno (err))
    set_escape_error (error, given);
  else
    set_command_error (error, argv, exit_code, message);
}

/* ---- ls ------------------------------------------------------------- */

/* `ls` exits with 2 when it cannot access an operand. */
#define LS_TROUBLE 2

typedef struct
{
  const char *abs;
  const char *given;
  const char *argv[5];
  GHashTable *users;  /* uid → name */
  GHashTable *groups; /* gid → name */
} Listing;

static void
listing_init (Listing *listing, const char *abs, const char *given)
{
  listing->abs = abs;
  listing->given = given;
  listing->argv[0] = "ls";
  listing->argv[1] = "-la";
  listing->argv[2] = "--";
  listing->argv[3] = abs;
  listing->argv[4] = NULL;
  listing->users = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  listing->groups = g_hash_table_new_full (NULL, NULL, NULL, g_free);
}

static void
listing_clear (Listing *listing)
{
  g_clear_pointer (&listing->users, g_hash_table_unref);
  g_clear_pointer (&listing->groups, g_hash_table_unref);
}

static void
ls_error (Listing *listing, GError **error, int err, gboolean open_dir)
{
  g_autofree char *message =
    open_dir ? g_strdup_printf (_ ("cannot open directory '%s': %s"),
                                listing->abs, g_strerror (err))
             : g_strdup_printf (_ ("cannot access '%s': %s"), listing->abs,
                                g_strerror (err));

  set_errno_error (error, err, listing->given, listing->argv, LS_TROUBLE,
                   message);
}

static char *
lookup_user (guint id)
{
  struct passwd pw, *found = NULL;
  g_autofree char *buf = NULL;
  gsize size = 1024;
  int rc;

  do
    {
      buf = g_realloc (buf, size);
      rc = getpwuid_r ((uid_t) id, &pw, buf, size, &found);
      size *= 2;
    }
  while (rc == ERANGE && size <= 1024 * 1024);
  if (rc == 0 && found != NULL)
    return g_strdup (found->pw_name);
  return g_strdup_printf ("%u", id);
}

static char *
lookup_group (guint id)
{
  struct group gr, *found = NULL;
  g_autofree char *buf = NULL;
  gsize size = 1024;
  int rc;

  do
    {
      buf = g_realloc (buf, size);
      rc = getgrgid_r ((gid_t) id, &gr, buf, size, &found);
      size *= 2;
    }
  while (rc == ERANGE && size <= 1024 * 1024);
  if (rc == 0 && found != NULL)
    return g_strdup (found->gr_name);
  return g_strdup_printf ("%u", id);
}

static const char *
cached_name (GHashTable *names, guint id, char *(*lookup) (guint id))
{
  char *name = g_hash_table_lookup (names, GUINT_TO_POINTER (id));

  if (name == NULL)
    {
      name = lookup (id);
      g_hash_table_insert (names, GUINT_TO_POINTER (id), name);
    }
  return name;
}

static AgentsEntryKind
kind_from_mode (mode_t mode)
{
  if (S_ISREG (mode))
    return AGENTS_ENTRY_KIND_FILE;
  if (S_ISDIR (mode))
    return AGENTS_ENTRY_KIND_DIRECTORY;
  if (S_ISLNK (mode))
    return AGENTS_ENTRY_KIND_SYMLINK;
  return AGENTS_ENTRY_KIND_OTHER;
}

static AgentsFileEntry *
entry_from_stat (Listing *listing, const char *path, const struct stat *st)
{
  g_autoptr (AgentsPermissions) permissions =
    agents_permissions_new_from_mode (st->st_mode);
  gboolean device = S_ISCHR (st->st_mode) || S_ISBLK (st->st_mode);

  return agents_file_entry_new (
    path, permissions, cached_name (listing->users, st->st_uid, lookup_user),
    cached_name (listing->groups, st->st_gid, lookup_group),
    device ? 0 : (guint64) st->st_size, kind_from_mode (st->st_mode));
}

static char *
join_path (const char *dir, const char *name)
{
  if (g_str_has_suffix (dir, "/"))
    return g_strconcat (dir, name, NULL);
  return g_strconcat (dir, "/", name, NULL);
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* Lists the open directory @fd (consumed). */
static GListModel *
list_directory (Listing *listing, int fd, GError **error)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  GListStore *store;
  DIR *dir = fdopendir (fd);
  struct dirent *de;

  if (dir == NULL)
    {
      int err = errno;

      close (fd);
      ls_error (listing, error, err, TRUE);
      return NULL;
    }
  while ((de = readdir (dir)) != NULL)
    if (!g_str_equal (de->d_name, ".") && !g_str_equal (de->d_name, ".."))
      g_ptr_array_add (names, g_strdup (de->d_name));
  g_ptr_array_sort (names, compare_names);

  store = g_list_store_new (AGENTS_TYPE_FILE_ENTRY);
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      g_autofree char *path = NULL;
      g_autoptr (AgentsFileEntry) entry = NULL;
      struct stat st;

      /* Gone since it was read: not listed. */
      if (fstatat (dirfd (dir), name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        continue;
      path = join_path (listing->abs, name);
      entry = entry_from_stat (listing, path, &st);
      g_list_store_append (store, entry);
    }
  closedir (dir);
  return G_LIST_MODEL (store);
}

/* @rel is no directory (or is missing): like `ls -la FILE`, list the
 * entry itself, a symlink as the link, as long as the symlink does not
 * lead out of @base_fd. */
static GListModel *
list_single (Listing *listing, int base_fd, const char *rel, GError **error)
{
  g_autofree char *name = NULL;
  g_autoptr (AgentsFileEntry) entry = NULL;
  GListStore *store;
  struct stat st;
  int parent, fd, err;

  parent = open_parent_beneath (base_fd, rel, &name);
  if (parent < 0 || fstatat (parent, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
    {
      err = errno;
      close_keep_errno (parent);
      ls_error (listing, error, err, FALSE);
      return NULL;
    }
  close (parent);
  if (S_ISLNK (st.st_mode))
    {
      /* A dangling link inside is listed; one leading out is refused. */
      fd = agents_unix_local_open_beneath (base_fd, rel, O_PATH, 0);
      err = errno;
      close_keep_errno (fd);
      if (fd < 0 && err != ENOENT)
        {
          ls_error (listing, error, err, FALSE);
          return NULL;
        }
    }

  store = g_list_store_new (AGENTS_TYPE_FILE_ENTRY);
  entry = entry_from_stat (listing, listing->abs, &st);
  g_list_store_append (store, entry);
  return G_LIST_MODEL (store);
}

GListModel *
agents_unix_local_fs_ls (const char *base,
                         const char *rel,
                         const char *abs,
                         const char *given,
                         GError **error)
{
  Listing listing;
  GListModel *model = NULL;
  int base_fd, fd, err;

  listing_init (&listing, abs, given);
  base_fd = open_base (base);
  fd = base_fd < 0 ? -1
                   : agents_unix_local_open_beneath (
                       base_fd, rel, O_RDONLY | O_DIRECTORY | O_NONBLOCK, 0);
  err = errno;
  if (fd >= 0)
    model = list_directory (&listing, fd, error);
  else if (base_fd >= 0 && (err == ENOTDIR || err == ENOENT))
    model = list_single (&listing, base_fd, rel, error);
  else
    ls_error (&listing, error, err, FALSE);
  close_keep_errno (base_fd);
  listing_clear (&listing);
  return model;
}

/* ---- mkdir and rm --------------------------------------------------- */

typedef struct
{
  const char *abs;
  const char *given;
  const char *argv[5];
} Command;

static void
command_init (Command *command,
              const char *program,
              const char *option,
              const char *abs,
              const char *given)
{
  guint n = 0;

  command->abs = abs;
  command->given = given;
  command->argv[n++] = program;
  if (option != NULL)
    command->argv[n++] = option;
  command->argv[n++] = "--";
  command->argv[n++] = abs;
  command->argv[n] = NULL;
}

static gboolean
mkdir_error (const Command *command, GError **error, int err)
{
  g_autofree char *message = g_strdup_printf (
    _ ("cannot create directory '%s': %s"), command->abs, g_strerror (err));

  set_errno_error (error, err, command->given, command->argv, 1, message);
  return FALSE;
}

/* Creates the last component of @rel in its parent, which must exist. */
static gboolean
mkdir_one (const Command *command, int base_fd, const char *rel, GError **error)
{
  g_autofree char *name = NULL;
  int parent = open_parent_beneath (base_fd, rel, &name);
  int err;

  if (parent < 0)
    return mkdir_error (command, error, errno);
  if (mkdirat (parent, name, 0777) < 0)
    {
      err = errno;
      close (parent);
      return mkdir_error (command, error, err);
    }
  close (parent);
  return TRUE;
}

/* Opens the directory @name of @dir_fd, creating it first when it is
 * missing; @prefix is its path beneath @base_fd. Returns -1 with errno. */
static int
ensure_component (int base_fd, int dir_fd, const char *prefix, const char *name)
{
  int fd =
    agents_unix_local_open_beneath (base_fd, prefix, O_PATH | O_DIRECTORY, 0);

  if (fd >= 0 || errno != ENOENT)
    return fd;
  if (mkdirat (dir_fd, name, 0777) == 0)
    /* Just made here: whatever replaced it since is not followed. */
    return openat (dir_fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (errno != EEXIST)
    return -1;
  /* Made concurrently, or a dangling symlink: resolve it again. */
  fd =
    agents_unix_local_open_beneath (base_fd, prefix, O_PATH | O_DIRECTORY, 0);
  if (fd < 0 && errno == ENOENT)
    errno = EEXIST;
  return fd;
}

/* `mkdir -p`: one component at a time, each resolved beneath @base_fd. */
static gboolean
mkdir_parents (const Command *command,
               int base_fd,
               const char *rel,
               GError **error)
{
  g_auto (GStrv) parts = g_strsplit (rel, "/", -1);
  g_autoptr (GString) prefix = g_string_new (NULL);
  int cur = fcntl (base_fd, F_DUPFD_CLOEXEC, 3);

  for (guint i = 0; cur >= 0 && parts[i] != NULL; i++)
    {
      int next;

      if (*parts[i] == '\0' || g_str_equal (parts[i], "."))
        continue;
      if (prefix->len > 0)
        g_string_append_c (prefix, '/');
      g_string_append (prefix, parts[i]);
      next = ensure_component (base_fd, cur, prefix->str, parts[i]);
      /* A file where the directory should be: "File exists". */
      if (next < 0 && errno == ENOTDIR && parts[i + 1] == NULL)
        errno = EEXIST;
      close_keep_errno (cur);
      cur = next;
    }
  if (cur < 0)
    return mkdir_error (command, error, errno);
  close (cur);
  return TRUE;
}

gboolean
agents_unix_local_fs_mkdir (const char *base,
                            const char *rel,
                            const char *abs,
                            const char *given,
                            gboolean parents,
                            GError **error)
{
  Command command;
  gboolean ok;
  int base_fd;

  command_init (&command, "mkdir", parents ? "-p" : NULL, abs, given);
  base_fd = open_base (base);
  if (base_fd < 0)
    return mkdir_error (&command, error, errno);
  if (g_str_equal (rel, "."))
    ok = parents || mkdir_error (&command, error, EEXIST);
  else if (parents)
    ok = mkdir_parents (&command, base_fd, rel, error);
  else
    ok = mkdir_one (&command, base_fd, rel, error);
  close (base_fd);
  return ok;
}

static gboolean remove_at (int parent_fd,
                           const char *name,
                           gboolean is_dir,
                           GCancellable *cancellable);

/* Removes everything in the open directory @fd (consumed). */
static gboolean
remove_children (int fd, GCancellable *cancellable)
{
  DIR *dir = fdopendir (fd);
  struct dirent *de;
  gboolean ok = TRUE;
  int saved_errno;

  if (dir == NULL)
    {
      close_keep_errno (fd);
      return FALSE;
    }
  while (ok && (de = readdir (dir)) != NULL)
    {
      struct stat st;
      gboolean is_dir;

      if (g_str_equal (de->d_name, ".") || g_str_equal (de->d_name, ".."))
        continue;
      if (g_cancellable_is_cancelled (cancellable))
        {
          errno = ECANCELED;
          ok = FALSE;
          break;
        }
      if (de->d_type != DT_UNKNOWN)
        is_dir = de->d_type == DT_DIR;
      else if (fstatat (dirfd (dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
        is_dir = S_ISDIR (st.st_mode);
      else
        continue;
      ok = remove_at (dirfd (dir), de->d_name, is_dir, cancellable);
    }
  saved_errno = errno;
  closedir (dir);
  errno = saved_errno;
  return ok;
}

/* Removes @name of @parent_fd, a directory with its contents; a symlink
 * is unlinked, never followed. A missing @name is fine. */
static gboolean
remove_at (int parent_fd,
           const char *name,
           gboolean is_dir,
           GCancellable *cancellable)
{
  int fd;

  if (!is_dir)
    {
      if (unlinkat (parent_fd, name, 0) == 0 || errno == ENOENT)
        return TRUE;
      if (errno != EISDIR && errno != EPERM)
        return FALSE;
      /* It became a directory meanwhile. */
    }
  fd = openat (parent_fd, name,
               O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    {
      if (errno == ENOENT)
        return TRUE;
      /* Replaced by a symlink or a file: remove that instead. */
      if (errno == ENOTDIR || errno == ELOOP)
        return unlinkat (parent_fd, name, 0) == 0 || errno == ENOENT;
      return FALSE;
    }
  if (!remove_children (fd, cancellable))
    return FALSE;
  return unlinkat (parent_fd, name, AT_REMOVEDIR) == 0 || errno == ENOENT;
}

static gboolean
rm_error (const Command *command, GError **error, int err)
{
  g_autofree char *message = g_strdup_printf (_ ("cannot remove '%s': %s"),
                                              command->abs, g_strerror (err));

  set_errno_error (error, err, command->given, command->argv, 1, message);
  return FALSE;
}

static gboolean
rm_failed (const Command *command,
           GCancellable *cancellable,
           GError **error,
           int err)
{
  if (err == ECANCELED &&
      g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;
  return rm_error (command, error, err);
}

/* The base itself: its contents go, it stays (it is the workspace, and
 * may be a mount point). */
static gboolean
rm_base (const Command *command,
         int base_fd,
         gboolean recursive,
         GCancellable *cancellable,
         GError **error)
{
  int fd;

  if (!recursive)
    return rm_error (command, error, EISDIR);
  fd = openat (base_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || !remove_children (fd, cancellable))
    return rm_failed (command, cancellable, error, errno);
  return TRUE;
}

static gboolean
rm_in_parent (const Command *command,
              int parent,
              const char *name,
              gboolean recursive,
              GCancellable *cancellable,
              GError **error)
{
  struct stat st;

  if (fstatat (parent, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
    return (recursive && (errno == ENOENT || errno == ENOTDIR)) ||
           rm_error (command, error, errno);
  if (S_ISDIR (st.st_mode) && !recursive)
    return rm_error (command, error, EISDIR);
  if (!remove_at (parent, name, S_ISDIR (st.st_mode), cancellable))
    return rm_failed (command, cancellable, error, errno);
  return TRUE;
}

gboolean
agents_unix_local_fs_rm (const char *base,
                         const char *rel,
                         const char *abs,
                         const char *given,
                         gboolean recursive,
                         GCancellable *cancellable,
                         GError **error)
{
  g_autofree char *name = NULL;
  Command command;
  gboolean ok;
  int base_fd, parent;

  command_init (&command, "rm", recursive ? "-rf" : NULL, abs, given);
  base_fd = open_base (base);
  if (base_fd < 0)
    return (recursive && errno == ENOENT) || rm_error (&command, error, errno);
  if (g_str_equal (rel, "."))
    {
      ok = rm_base (&command, base_fd, recursive, cancellable, error);
      close (base_fd);
      return ok;
    }

  parent = open_parent_beneath (base_fd, rel, &name);
  if (parent < 0)
    ok = (recursive && (errno == ENOENT || errno == ENOTDIR)) ||
         rm_error (&command, error, errno);
  else
    ok = rm_in_parent (&command, parent, name, recursive, cancellable, error);
  close_keep_errno (parent);
  close (base_fd);
  return ok;
}
