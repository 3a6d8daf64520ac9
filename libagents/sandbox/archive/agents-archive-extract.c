/* agents-archive-extract.c - extracting a hostile archive beneath
 * a directory, member by member
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <glib/gi18n-lib.h>

#include "agents-archive-private.h"
#include "agents-archive-extract-private.h"
#include "agents-sandbox-error-private.h"

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

/* @archive_name: what errors about the archive name (NULL: @root). */
gboolean
agents_archive_extract_full (GInputStream *archive,
                             const char *archive_name,
                             const char *root,
                             AgentsCompressionScheme scheme,
                             const AgentsArchiveLimits *limits,
                             AgentsArchiveLinkPolicy links,
                             GCancellable *cancellable,
                             GError **error)
{
  g_autoptr (AgentsArchiveLimits) defaults = NULL;
  Extract ex = { 0 };
  gboolean ok;

  ex.root = root;
  ex.archive_name = archive_name ? archive_name : root;
  ex.keep_links = links == AGENTS_ARCHIVE_LINKS_KEEP ||
                  links == AGENTS_ARCHIVE_LINKS_KEEP_INSIDE;
  ex.links_stay_inside = links == AGENTS_ARCHIVE_LINKS_KEEP_INSIDE;
  ex.no_links = links == AGENTS_ARCHIVE_LINKS_NONE;
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
