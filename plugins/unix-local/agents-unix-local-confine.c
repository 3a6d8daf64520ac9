/* agents-unix-local-confine.c - confinement of unix_local commands
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <grp.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#endif

#ifdef HAVE_SECCOMP
#include <seccomp.h>
#endif

#include <glib-unix.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "agents-sandbox-error-private.h"
#include "agents-unix-local-confine-private.h"

#define DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

/* Read-only system directories (or symlinks to them) shown to commands. */
const char
  *const agents_unix_local_system_dirs[AGENTS_UNIX_LOCAL_N_SYSTEM_DIRS] = {
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
  };

/* ---- names ---------------------------------------------------------- */

static const char *const confinement_names[] = {
  [AGENTS_UNIX_LOCAL_CONFINEMENT_AUTO] = "auto",
  [AGENTS_UNIX_LOCAL_CONFINEMENT_BWRAP] = "bwrap",
  [AGENTS_UNIX_LOCAL_CONFINEMENT_LANDLOCK] = "landlock",
  [AGENTS_UNIX_LOCAL_CONFINEMENT_SANDBOX_EXEC] = "sandbox-exec",
  [AGENTS_UNIX_LOCAL_CONFINEMENT_NONE] = "none",
};

gboolean
agents_unix_local_confinement_from_string (
  const char *name, AgentsUnixLocalConfinement *confinement, GError **error)
{
  for (guint i = 0; i < G_N_ELEMENTS (confinement_names); i++)
    if (g_strcmp0 (name, confinement_names[i]) == 0)
      {
        *confinement = i;
        return TRUE;
      }

  agents_sandbox_error_set (
    error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
    g_variant_new_parsed ("{'confinement': <%s>}", name ? name : ""),
    _ ("unknown confinement “%s”: expected auto, bwrap, landlock, "
       "sandbox-exec or none"),
    name ? name : "");
  return FALSE;
}

const char *
agents_unix_local_confinement_to_string (AgentsUnixLocalConfinement confinement)
{
  g_return_val_if_fail (confinement < G_N_ELEMENTS (confinement_names), NULL);
  return confinement_names[confinement];
}

/* ---- paths and grants ----------------------------------------------- */

void
agents_unix_local_grant_free (AgentsUnixLocalGrant *grant)
{
  if (grant == NULL)
    return;
  g_free (grant->path);
  g_free (grant);
}

char *
agents_unix_local_resolve_path (const char *path)
{
  g_autofree char *abs = NULL;
  g_autofree char *cwd = NULL;
  g_autofree char *parent = NULL;
  g_autofree char *base = NULL;
  g_autofree char *resolved_parent = NULL;
  char *real;

  g_return_val_if_fail (path != NULL, NULL);

  if (g_path_is_absolute (path))
    abs = g_strdup (path);
  else
    {
      cwd = g_get_current_dir ();
      abs = g_build_filename (cwd, path, NULL);
    }
  real = realpath (abs, NULL);
  if (real != NULL)
    {
      char *result = g_strdup (real);

      free (real);
      return result;
    }

  /* Missing: resolve the parent, then append the rest lexically. */
  while (strlen (abs) > 1 && g_str_has_suffix (abs, "/"))
    abs[strlen (abs) - 1] = '\0';
  parent = g_path_get_dirname (abs);
  base = g_path_get_basename (abs);
  if (g_strcmp0 (parent, abs) == 0)
    return g_steal_pointer (&abs);
  resolved_parent = agents_unix_local_resolve_path (parent);
  if (g_str_equal (base, "."))
    return g_steal_pointer (&resolved_parent);
  if (g_str_equal (base, ".."))
    return g_path_get_dirname (resolved_parent);
  return g_build_filename (resolved_parent, base, NULL);
}

static int
compare_grants (gconstpointer a, gconstpointer b)
{
  const AgentsUnixLocalGrant *ga = *(AgentsUnixLocalGrant *const *) a;
  const AgentsUnixLocalGrant *gb = *(AgentsUnixLocalGrant *const *) b;

  /* A parent is a prefix of its children, so it sorts first. */
  return strcmp (ga->path, gb->path);
}

GPtrArray *
agents_unix_local_extra_path_grant_roots (AgentsManifest *manifest,
                                          GError **error)
{
  g_autoptr (GPtrArray) roots = g_ptr_array_new_with_free_func (
    (GDestroyNotify) agents_unix_local_grant_free);
  GPtrArray *grants;

  g_return_val_if_fail (AGENTS_IS_MANIFEST (manifest), NULL);

  grants = agents_manifest_get_extra_path_grants (manifest);
  for (guint i = 0; grants != NULL && i < grants->len; i++)
    {
      AgentsSandboxPathGrant *grant = g_ptr_array_index (grants, i);
      const char *path = agents_sandbox_path_grant_get_path (grant);
      AgentsUnixLocalGrant *root = g_new0 (AgentsUnixLocalGrant, 1);

      root->path = agents_unix_local_resolve_path (path);
      root->read_only = agents_sandbox_path_grant_get_read_only (grant);
      g_ptr_array_add (roots, root);
      if (g_str_equal (root->path, "/"))
        {
          agents_sandbox_error_set (
            error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
            g_variant_new_parsed ("{'path': <%s>}", path),
            _ ("sandbox path grant path must not resolve to filesystem root"));
          return NULL;
        }
    }
  g_ptr_array_sort (roots, compare_grants);
  return g_steal_pointer (&roots);
}

GPtrArray *
agents_unix_local_darwin_extra_path_grant_roots (AgentsManifest *manifest,
                                                 GError **error)
{
  return agents_unix_local_extra_path_grant_roots (manifest, error);
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* Whether @path is @dir or lies beneath it (both normalized). */
gboolean
agents_unix_local_path_is_at_or_under (const char *path, const char *dir)
{
  size_t len = strlen (dir);

  if (g_str_equal (dir, "/"))
    return TRUE;
  return strncmp (path, dir, len) == 0 &&
         (path[len] == '\0' || path[len] == '/');
}

gboolean
agents_unix_local_set_errno_error (GError **error,
                                   const char *what,
                                   const char *path,
                                   int saved_errno)
{
  agents_sandbox_error_set (
    error, AGENTS_SANDBOX_ERROR_FAILED,
    g_variant_new_parsed ("{'path': <%s>}", path ? path : ""), "%s(%s): %s",
    what, path ? path : "", g_strerror (saved_errno));
  return FALSE;
}

/* ---- policy --------------------------------------------------------- */

AgentsUnixLocalPolicy *
agents_unix_local_policy_new (const char *workspace_root,
                              GPtrArray *grants,
                              gboolean network)
{
  AgentsUnixLocalPolicy *policy = g_new0 (AgentsUnixLocalPolicy, 1);

  policy->workspace_root = agents_unix_local_resolve_path (workspace_root);
  policy->grants = grants != NULL
                     ? g_ptr_array_ref (grants)
                     : g_ptr_array_new_with_free_func (
                         (GDestroyNotify) agents_unix_local_grant_free);
  policy->network = network;
  policy->env = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  /* Root's commands must not read what only root may read. */
  policy->drop_privileges = geteuid () == 0;
  policy->sandbox_uid = AGENTS_UNIX_LOCAL_DEFAULT_SANDBOX_UID;
  policy->sandbox_gid = AGENTS_UNIX_LOCAL_DEFAULT_SANDBOX_GID;
  agents_unix_local_limits_init_default (&policy->limits);
  policy->binds =
    g_ptr_array_new_with_free_func ((GDestroyNotify) agents_host_bind_free);
  policy->tty_fd = -1;
  return policy;
}

guint64
agents_unix_local_default_memory_limit (void)
{
  const guint64 cap = G_GUINT64_CONSTANT (8) << 30;
  long pages = sysconf (_SC_PHYS_PAGES);
  long page_size = sysconf (_SC_PAGESIZE);

  if (pages <= 0 || page_size <= 0)
    return cap;
  return MIN ((guint64) pages * (guint64) page_size / 2, cap);
}

void
agents_unix_local_limits_init_default (AgentsUnixLocalLimits *limits)
{
  limits->processes = AGENTS_UNIX_LOCAL_DEFAULT_PROCESSES;
  limits->memory = agents_unix_local_default_memory_limit ();
  limits->cpu_seconds = 0;
}

char **
agents_unix_local_policy_writable_paths (const AgentsUnixLocalPolicy *policy)
{
  GPtrArray *paths = g_ptr_array_new ();

  g_ptr_array_add (paths, g_strdup (policy->workspace_root));
  for (guint i = 0; i < policy->grants->len; i++)
    {
      AgentsUnixLocalGrant *grant = g_ptr_array_index (policy->grants, i);

      if (!grant->read_only)
        g_ptr_array_add (paths, g_strdup (grant->path));
    }
  if (policy->host_tmp_dir != NULL)
    g_ptr_array_add (paths, g_strdup (policy->host_tmp_dir));
  g_ptr_array_add (paths, NULL);
  return (char **) g_ptr_array_free (paths, FALSE);
}

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

void
agents_unix_local_policy_free (AgentsUnixLocalPolicy *policy)
{
  if (policy == NULL)
    return;
  g_free (policy->workspace_root);
  g_clear_pointer (&policy->grants, g_ptr_array_unref);
  g_free (policy->host_tmp_dir);
  g_clear_pointer (&policy->env, g_hash_table_unref);
  g_clear_pointer (&policy->binds, g_ptr_array_unref);
  g_free (policy);
}

char **
agents_unix_local_confine_environ (const AgentsUnixLocalPolicy *policy,
                                   const char *tmp_dir)
{
  char **envp = NULL;
  GHashTableIter iter;
  gpointer name, value;

  envp = g_environ_setenv (envp, "PATH", DEFAULT_PATH, TRUE);
  envp = g_environ_setenv (envp, "HOME", policy->workspace_root, TRUE);
  envp = g_environ_setenv (envp, "TMPDIR", tmp_dir ? tmp_dir : "/tmp", TRUE);
  envp = g_environ_setenv (envp, "LANG", "C.UTF-8", TRUE);
  envp = g_environ_setenv (envp, "TERM", "dumb", TRUE);
  envp = g_environ_setenv (envp, "PAGER", "cat", TRUE);
  envp = g_environ_setenv (envp, "GIT_PAGER", "cat", TRUE);
  envp = g_environ_setenv (envp, "GIT_TERMINAL_PROMPT", "0", TRUE);
  envp = g_environ_setenv (envp, "DEBIAN_FRONTEND", "noninteractive", TRUE);

  if (policy->env == NULL)
    return envp;
  g_hash_table_iter_init (&iter, policy->env);
  while (g_hash_table_iter_next (&iter, &name, &value))
    if (*(char *) name != '\0' && strchr (name, '=') == NULL && value != NULL)
      envp = g_environ_setenv (envp, name, value, TRUE);
  return envp;
}

/* ---- which and platform --------------------------------------------- */

char *
agents_unix_local_which (const char *name, const char *path, gpointer user_data)
{
  g_auto (GStrv) dirs = NULL;

  if (name == NULL || *name == '\0')
    return NULL;
  if (strchr (name, '/') != NULL)
    return g_file_test (name, G_FILE_TEST_IS_EXECUTABLE) &&
               !g_file_test (name, G_FILE_TEST_IS_DIR)
             ? g_strdup (name)
             : NULL;
  if (path == NULL)
    return g_find_program_in_path (name);

  dirs = g_strsplit (path, G_SEARCHPATH_SEPARATOR_S, -1);
  for (guint i = 0; dirs[i] != NULL; i++)
    {
      g_autofree char *candidate =
        g_build_filename (*dirs[i] ? dirs[i] : ".", name, NULL);

      if (g_file_test (candidate, G_FILE_TEST_IS_EXECUTABLE) &&
          !g_file_test (candidate, G_FILE_TEST_IS_DIR))
        return g_steal_pointer (&candidate);
    }
  return NULL;
}

static GMutex probe_lock;
static AgentsUnixLocalProbeOverride probe_override = { .landlock_abi = -1 };
static char *probe_override_platform;
static AgentsUnixLocalProbe *probe_cache;

static void
probe_free (AgentsUnixLocalProbe *probe)
{
  if (probe == NULL)
    return;
  g_free (probe->platform);
  g_free (probe->bwrap_path);
  g_free (probe->bwrap_error);
  g_free (probe->landlock_error);
  g_free (probe->sandbox_exec_path);
  g_free (probe);
}

static const char *
real_platform (void)
{
#if defined(__linux__)
  return "linux";
#elif defined(__APPLE__)
  return "darwin";
#else
  return "unknown";
#endif
}

const char *
agents_unix_local_confine_get_platform (void)
{
  const char *platform;

  g_mutex_lock (&probe_lock);
  platform =
    probe_override_platform ? probe_override_platform : real_platform ();
  g_mutex_unlock (&probe_lock);
  return platform;
}

void
agents_unix_local_confine_set_probe_override (
  const AgentsUnixLocalProbeOverride *override)
{
  AgentsUnixLocalProbe *old;

  g_mutex_lock (&probe_lock);
  g_clear_pointer (&probe_override_platform, g_free);
  if (override != NULL)
    {
      probe_override = *override;
      /* Interned so the string the caller passed may go away. */
      probe_override_platform = g_strdup (override->platform);
      probe_override.platform = NULL;
    }
  else
    {
      memset (&probe_override, 0, sizeof probe_override);
      probe_override.landlock_abi = -1;
    }
  old = g_steal_pointer (&probe_cache);
  g_mutex_unlock (&probe_lock);

  /* Only tests override, between operations: nobody holds @old. */
  probe_free (old);
}

static gboolean
is_etc_secret (const char *name)
{
  return g_str_equal (name, "shadow") || g_str_equal (name, "gshadow") ||
         g_str_has_suffix (name, "-") || g_str_has_prefix (name, "sudoers") ||
         g_str_equal (name, "ssh");
}

static void
add_secret (GPtrArray *secrets, const char *path)
{
  g_autofree char *target = NULL;

  g_ptr_array_add (secrets, g_strdup (path));
  /* A secret reached through a symlink is masked where it really is. */
  if (!g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    return;
  target = agents_unix_local_resolve_path (path);
  if (agents_unix_local_path_is_at_or_under (target, "/etc") &&
      !g_str_equal (target, "/etc"))
    g_ptr_array_add (secrets, g_steal_pointer (&target));
}

/* The secrets of /etc that commands must not read. */
GPtrArray *
agents_unix_local_etc_secrets (void)
{
  GPtrArray *secrets = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GDir) dir = g_dir_open ("/etc", 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    if (is_etc_secret (name))
      {
        g_autofree char *path = g_build_filename ("/etc", name, NULL);

        add_secret (secrets, path);
      }
  if (g_file_test ("/etc/ssl/private", G_FILE_TEST_EXISTS))
    add_secret (secrets, "/etc/ssl/private");
  return secrets;
}

/* ---- bubblewrap ----------------------------------------------------- */

static void
add_args (GPtrArray *args, ...)
{
  va_list ap;
  const char *arg;

  va_start (ap, args);
  while ((arg = va_arg (ap, const char *)) != NULL)
    g_ptr_array_add (args, g_strdup (arg));
  va_end (ap);
}

/* Every path bound into the sandbox from the host, parents first. */
static GPtrArray *
bound_paths (const AgentsUnixLocalPolicy *policy)
{
  GPtrArray *paths = g_ptr_array_new ();

  g_ptr_array_add (paths, policy->workspace_root);
  for (guint i = 0; i < policy->grants->len; i++)
    {
      AgentsUnixLocalGrant *grant = g_ptr_array_index (policy->grants, i);

      g_ptr_array_add (paths, grant->path);
    }
  g_ptr_array_sort (paths, compare_strings);
  return paths;
}

static gboolean
is_related (const char *a, const char *b)
{
  return agents_unix_local_path_is_at_or_under (a, b) ||
         agents_unix_local_path_is_at_or_under (b, a);
}

static gboolean
under_system_dir (const char *path)
{
  for (guint i = 0; i < G_N_ELEMENTS (agents_unix_local_system_dirs); i++)
    if (agents_unix_local_path_is_at_or_under (
          path, agents_unix_local_system_dirs[i]))
      return TRUE;
  return FALSE;
}

const char *
agents_unix_local_bwrap_tmp_dir (const AgentsUnixLocalPolicy *policy)
{
  static const char *const candidates[] = {
    "/tmp",
    "/var/tmp",
    "/run/agents-tmp",
    "/agents-tmp",
  };

  for (guint i = 0; i < G_N_ELEMENTS (candidates); i++)
    {
      gboolean clash = is_related (candidates[i], policy->workspace_root);

      for (guint j = 0; !clash && j < policy->grants->len; j++)
        {
          AgentsUnixLocalGrant *grant = g_ptr_array_index (policy->grants, j);

          clash = is_related (candidates[i], grant->path);
        }
      if (!clash)
        return candidates[i];
    }
  return candidates[G_N_ELEMENTS (candidates) - 1];
}

static void
add_system_binds (GPtrArray *args)
{
  for (guint i = 0; i < G_N_ELEMENTS (agents_unix_local_system_dirs); i++)
    {
      const char *dir = agents_unix_local_system_dirs[i];
      GStatBuf st;

      if (g_lstat (dir, &st) != 0)
        continue;
      if (S_ISLNK (st.st_mode))
        {
          g_autofree char *target = g_file_read_link (dir, NULL);

          if (target != NULL)
            add_args (args, "--symlink", target, dir, NULL);
        }
      else if (S_ISDIR (st.st_mode))
        add_args (args, "--ro-bind", dir, dir, NULL);
    }
}

static void
add_etc_masks (GPtrArray *args)
{
  g_autoptr (GPtrArray) secrets = agents_unix_local_etc_secrets ();

  for (guint i = 0; i < secrets->len; i++)
    {
      const char *secret = g_ptr_array_index (secrets, i);
      GStatBuf st;

      if (g_lstat (secret, &st) != 0 || S_ISLNK (st.st_mode))
        continue;
      if (S_ISDIR (st.st_mode))
        add_args (args, "--tmpfs", secret, "--remount-ro", secret, NULL);
      else
        add_args (args, "--ro-bind", "/dev/null", secret, NULL);
    }
}

/* The directories leading to the bound paths are created read-only (the
 * root tmpfs is remounted read-only at the end), so that nothing can be
 * written next to the workspace. */
static void
add_ancestors (GPtrArray *args, GPtrArray *bound)
{
  g_autoptr (GHashTable) seen =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GPtrArray) dirs = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < bound->len; i++)
    {
      g_autofree char *dir = g_path_get_dirname (g_ptr_array_index (bound, i));

      while (!g_str_equal (dir, "/") && !g_str_equal (dir, "."))
        {
          char *parent = g_path_get_dirname (dir);
          gboolean skip = under_system_dir (dir);

          for (guint j = 0; !skip && j < bound->len; j++)
            skip = agents_unix_local_path_is_at_or_under (
              dir, g_ptr_array_index (bound, j));
          if (!skip && !g_hash_table_contains (seen, dir))
            {
              g_hash_table_add (seen, g_strdup (dir));
              g_ptr_array_add (dirs, g_strdup (dir));
            }
          g_free (dir);
          dir = parent;
        }
    }
  g_ptr_array_sort (dirs, compare_strings);
  for (guint i = 0; i < dirs->len; i++)
    add_args (args, "--perms", "0555", "--dir", g_ptr_array_index (dirs, i),
              NULL);
}

static gboolean
grant_is_read_only (const AgentsUnixLocalPolicy *policy,
                    const char *path,
                    gboolean *is_grant)
{
  for (guint i = 0; i < policy->grants->len; i++)
    {
      AgentsUnixLocalGrant *grant = g_ptr_array_index (policy->grants, i);

      if (g_str_equal (grant->path, path))
        {
          *is_grant = TRUE;
          return grant->read_only;
        }
    }
  *is_grant = FALSE;
  return FALSE;
}

static void
add_binds (GPtrArray *args,
           const AgentsUnixLocalPolicy *policy,
           GPtrArray *bound)
{
  for (guint i = 0; i < bound->len; i++)
    {
      const char *path = g_ptr_array_index (bound, i);
      gboolean is_grant;
      gboolean read_only = grant_is_read_only (policy, path, &is_grant);

      if (g_str_equal (path, policy->workspace_root))
        add_args (args, "--bind", path, path, NULL);
      else
        add_args (args, read_only ? "--ro-bind-try" : "--bind-try", path, path,
                  NULL);
    }
}

/* Host directories (FUSE mounts the library owns) shown at their
 * sandbox paths, over the workspace bind. */
static void
add_host_binds (GPtrArray *args, const AgentsUnixLocalPolicy *policy)
{
  for (guint i = 0; i < policy->binds->len; i++)
    {
      AgentsHostBind *bind = g_ptr_array_index (policy->binds, i);

      add_args (args, bind->read_only ? "--ro-bind" : "--bind", bind->host_path,
                bind->sandbox_path, NULL);
    }
}

static void
add_resolv_conf (GPtrArray *args)
{
  g_autofree char *target = agents_unix_local_resolve_path ("/etc/resolv.conf");

  if (!agents_unix_local_path_is_at_or_under (target, "/etc"))
    add_args (args, "--ro-bind-try", target, target, NULL);
}

/* The bwrap arguments up to and including "--", before the command. */
static GPtrArray *
bwrap_prefix (const AgentsUnixLocalPolicy *policy, const char *bwrap_path)
{
  GPtrArray *args = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) bound = bound_paths (policy);
  const char *tmp_dir = agents_unix_local_bwrap_tmp_dir (policy);

  add_args (args, bwrap_path, "--die-with-parent", "--new-session",
            "--unshare-all", NULL);
  if (policy->network)
    add_args (args, "--share-net", NULL);
  add_args (args, "--cap-drop", "ALL", NULL);
  add_system_binds (args);
  add_etc_masks (args);
  if (policy->network)
    add_resolv_conf (args);
  add_args (args, "--proc", "/proc", "--dev", "/dev", NULL);
  add_ancestors (args, bound);
  add_binds (args, policy, bound);
  add_host_binds (args, policy);
  /* The private /tmp is memory: it counts against the memory limit. */
  if (policy->limits.memory > 0)
    {
      g_autofree char *size =
        g_strdup_printf ("%" G_GUINT64_FORMAT, policy->limits.memory);

      add_args (args, "--size", size, NULL);
    }
  add_args (args, "--tmpfs", tmp_dir, "--chdir", policy->workspace_root,
            "--remount-ro", "/", "--", NULL);
  return args;
}

/* A command on a PTY keeps bwrap's session, so that the PTY stays its
 * controlling terminal (Ctrl-C, job control): --new-session guards the
 * caller's terminal against TIOCSTI, and this PTY is the command's own. */
static char **
bwrap_argv_from_prefix (const char *const *prefix,
                        const char *const *argv,
                        gboolean tty)
{
  GPtrArray *args = g_ptr_array_new ();

  for (guint i = 0; prefix[i] != NULL; i++)
    if (!tty || !g_str_equal (prefix[i], "--new-session"))
      g_ptr_array_add (args, g_strdup (prefix[i]));
  for (guint i = 0; argv != NULL && argv[i] != NULL; i++)
    g_ptr_array_add (args, g_strdup (argv[i]));
  g_ptr_array_add (args, NULL);
  return (char **) g_ptr_array_free (args, FALSE);
}

char **
agents_unix_local_bwrap_argv (const AgentsUnixLocalPolicy *policy,
                              const char *bwrap_path,
                              const char *const *argv)
{
  g_autoptr (GPtrArray) prefix = bwrap_prefix (policy, bwrap_path);

  g_ptr_array_add (prefix, NULL);
  return bwrap_argv_from_prefix ((const char *const *) prefix->pdata, argv,
                                 policy->tty_fd >= 0);
}

/* An EXEC_TRANSPORT error whose message also tells what failed. */
static void
set_transport_error (GError **error,
                     const char *const *argv,
                     const char *reason,
                     const char *requested,
                     const char *detail)
{
  g_autoptr (GError) base = NULL;
  g_autoptr (GVariant) context = NULL;
  GVariantDict extra;

  g_variant_dict_init (&extra, NULL);
  if (requested != NULL)
    g_variant_dict_insert (&extra, "confinement", "s", requested);
  g_variant_dict_insert (&extra, "detail", "s", detail);
  agents_sandbox_error_set_exec_transport (&base, argv, reason,
                                           g_variant_dict_end (&extra));
  /* Not floating: the error takes a reference of its own. */
  context = agents_sandbox_error_get_context (base);
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_EXEC_TRANSPORT, context,
                            "%s: %s", base->message, detail);
}

void
agents_unix_local_set_unavailable (GError **error,
                                   const char *const *argv,
                                   const char *requested,
                                   const char *detail)
{
  set_transport_error (error, argv, AGENTS_UNIX_LOCAL_CONFINEMENT_UNAVAILABLE,
                       requested, detail);
}

/* ---- spawning ------------------------------------------------------- */

struct _AgentsUnixLocalSpawnCache
{
  GVariant *key; /* what the entries below were made for */
  char **bwrap_prefix;
  int landlock_ruleset;
};

#ifdef __linux__

/* How a child running as the sandbox uid still reaches the paths bound
 * for it (a workspace in /root, in a 0700 temp dir…) without the host's
 * modes changing: in a mount namespace of its own, each bound path is
 * cloned, the topmost ancestor that the sandbox uid cannot search is
 * covered with a read-only tmpfs holding the path's chain of
 * directories, and each clone is moved back at its path, nosuid and
 * nodev. The arrays are NULL-terminated. */
typedef struct
{
  char **paths;  /* bound paths, parents first */
  int *is_dir;   /* per path */
  int *trees;    /* per path: the clone's descriptor (child only) */
  char **covers; /* ancestors covered with a tmpfs */
  char **dirs;   /* directories to make in the covers, parents first */
  const char *cwd;
} MountPlan;

static void
mount_plan_free (MountPlan *plan)
{
  if (plan == NULL)
    return;
  g_strfreev (plan->paths);
  g_free (plan->is_dir);
  g_free (plan->trees);
  g_strfreev (plan->covers);
  g_strfreev (plan->dirs);
  g_free (plan);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MountPlan, mount_plan_free)

static gboolean
searchable_by (const struct stat *st, guint32 uid, guint32 gid)
{
  if (st->st_uid == uid)
    return (st->st_mode & S_IXUSR) != 0;
  if (st->st_gid == gid)
    return (st->st_mode & S_IXGRP) != 0;
  return (st->st_mode & S_IXOTH) != 0;
}

/* The topmost ancestor of @path that @uid cannot search, or NULL. */
static char *
unsearchable_ancestor (const char *path, guint32 uid, guint32 gid)
{
  g_auto (GStrv) parts = g_strsplit (path, "/", -1);
  g_autoptr (GString) dir = g_string_new ("");
  guint n = g_strv_length (parts);

  /* parts[0] is "" (the root); the last part is @path itself. */
  for (guint i = 1; i + 1 < n; i++)
    {
      struct stat st;

      if (*parts[i] == '\0')
        continue;
      g_string_append_printf (dir, "/%s", parts[i]);
      if (stat (dir->str, &st) == 0 && S_ISDIR (st.st_mode) &&
          !searchable_by (&st, uid, gid))
        return g_strdup (dir->str);
    }
  return NULL;
}

static void
plan_cover_dirs (GPtrArray *dirs, const char *cover, const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr (GPtrArray) chain = g_ptr_array_new_with_free_func (g_free);

  while (agents_unix_local_path_is_at_or_under (dir, cover) &&
         !g_str_equal (dir, cover))
    {
      char *parent = g_path_get_dirname (dir);

      g_ptr_array_add (chain, g_steal_pointer (&dir));
      dir = parent;
    }
  for (guint i = chain->len; i > 0; i--)
    g_ptr_array_add (dirs, g_strdup (g_ptr_array_index (chain, i - 1)));
}

static MountPlan *
mount_plan_new (const AgentsUnixLocalPolicy *policy, GPtrArray *bound)
{
  MountPlan *plan = g_new0 (MountPlan, 1);
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GArray) is_dir = g_array_new (FALSE, FALSE, sizeof (int));
  g_autoptr (GPtrArray) covers = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) dirs = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < bound->len; i++)
    {
      const char *path = g_ptr_array_index (bound, i);
      g_autofree char *cover = NULL;
      struct stat st;
      int dir;
      gboolean covered = FALSE;

      if (stat (path, &st) < 0)
        continue; /* a missing grant is not bound */
      dir = S_ISDIR (st.st_mode);
      g_ptr_array_add (paths, g_strdup (path));
      g_array_append_val (is_dir, dir);
      cover =
        unsearchable_ancestor (path, policy->sandbox_uid, policy->sandbox_gid);
      if (cover == NULL)
        continue;
      for (guint j = 0; !covered && j < covers->len; j++)
        covered = agents_unix_local_path_is_at_or_under (
          cover, g_ptr_array_index (covers, j));
      if (!covered)
        g_ptr_array_add (covers, g_strdup (cover));
      plan_cover_dirs (dirs, cover, path);
    }
  g_ptr_array_add (paths, NULL);
  g_ptr_array_add (covers, NULL);
  g_ptr_array_add (dirs, NULL);
  plan->trees = g_new0 (int, is_dir->len + 1);
  plan->is_dir = (int *) g_array_free (g_steal_pointer (&is_dir), FALSE);
  plan->paths = (char **) g_ptr_array_free (g_steal_pointer (&paths), FALSE);
  plan->covers = (char **) g_ptr_array_free (g_steal_pointer (&covers), FALSE);
  plan->dirs = (char **) g_ptr_array_free (g_steal_pointer (&dirs), FALSE);
  plan->cwd = policy->workspace_root;
  return plan;
}

/* Everything the child needs between fork and exec, prepared in the
 * parent: only async-signal-safe calls happen in the child. */
typedef struct
{
  pid_t parent_pid;
  gboolean restrict_self;
  int ruleset_fd;
  struct sock_fprog program;
  gboolean has_program;
  int report_fd;
  /* Dropping to the sandbox identity. */
  gboolean drop;
  uid_t uid;
  gid_t gid;
  const MountPlan *plan;
  struct rlimit nproc, data, cpu;
  gboolean has_nproc, has_data, has_cpu;
  const int *cgroup_procs; /* -1-terminated, or NULL */
  gboolean tty; /* stdin is a PTY slave: make it the controlling tty */
} ChildSetup;

static void
child_report (const ChildSetup *setup, const char *step)
{
  char digits[16];
  int err = errno;
  int n = 0;
  char buf[16];

  do
    {
      buf[n++] = '0' + err % 10;
      err /= 10;
    }
  while (err > 0 && n < (int) sizeof buf);
  for (int i = 0; i < n; i++)
    digits[i] = buf[n - 1 - i];

  if (write (setup->report_fd, step, strlen (step)) < 0 ||
      write (setup->report_fd, ":", 1) < 0 ||
      write (setup->report_fd, digits, n) < 0)
    {
      /* Nothing more can be done in the child. */
    }
  _exit (126);
}

#ifndef MOUNT_ATTR_NOSUID
#define MOUNT_ATTR_NOSUID 0x00000002
#define MOUNT_ATTR_NODEV 0x00000004
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif

/* struct mount_attr, which Debian's headers lack. */
struct agents_mount_attr
{
  guint64 attr_set;
  guint64 attr_clr;
  guint64 propagation;
  guint64 userns_fd;
};

static void
child_clone_trees (const ChildSetup *setup)
{
  const MountPlan *plan = setup->plan;
  struct agents_mount_attr attr = { MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, 0, 0,
                                    0 };

  for (guint i = 0; plan->paths[i] != NULL; i++)
    {
      plan->trees[i] = syscall (__NR_open_tree, AT_FDCWD, plan->paths[i],
                                OPEN_TREE_CLONE | O_CLOEXEC | AT_RECURSIVE |
                                  AT_SYMLINK_NOFOLLOW);
      if (plan->trees[i] < 0)
        child_report (setup, "open_tree");
      if (syscall (__NR_mount_setattr, plan->trees[i], "",
                   AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof attr) < 0)
        child_report (setup, "mount_setattr(nosuid)");
    }
}

static void
child_make_mount_point (const ChildSetup *setup, const char *path, int is_dir)
{
  int fd;

  if (is_dir)
    {
      if (mkdir (path, 0755) < 0 && errno != EEXIST)
        child_report (setup, "mkdir");
      return;
    }
  fd = open (path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    child_report (setup, "open(mount point)");
  close (fd);
}

static void
child_mount_plan (const ChildSetup *setup)
{
  const MountPlan *plan = setup->plan;
  const unsigned long cover_flags = MS_NOSUID | MS_NODEV | MS_NOEXEC;

  if (unshare (CLONE_NEWNS) < 0)
    child_report (setup, "unshare(CLONE_NEWNS)");
  if (mount (NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0)
    child_report (setup, "mount(MS_SLAVE)");
  child_clone_trees (setup);
  for (guint i = 0; plan->covers[i] != NULL; i++)
    if (mount ("tmpfs", plan->covers[i], "tmpfs", cover_flags,
               "mode=0755,size=65536") < 0)
      child_report (setup, "mount(tmpfs)");
  for (guint i = 0; plan->dirs[i] != NULL; i++)
    if (mkdir (plan->dirs[i], 0755) < 0 && errno != EEXIST)
      child_report (setup, "mkdir");
  for (guint i = 0; plan->paths[i] != NULL; i++)
    {
      child_make_mount_point (setup, plan->paths[i], plan->is_dir[i]);
      if (syscall (__NR_move_mount, plan->trees[i], "", AT_FDCWD,
                   plan->paths[i], MOVE_MOUNT_F_EMPTY_PATH) < 0)
        child_report (setup, "move_mount");
      close (plan->trees[i]);
    }
  for (guint i = 0; plan->covers[i] != NULL; i++)
    if (mount (NULL, plan->covers[i], NULL,
               MS_REMOUNT | MS_RDONLY | cover_flags, NULL) < 0)
      child_report (setup, "mount(MS_REMOUNT)");
  /* The old working directory lies beneath the covers. */
  if (chdir (plan->cwd) < 0)
    child_report (setup, "chdir");
}

static void
child_set_limits (const ChildSetup *setup)
{
  if (setup->has_nproc && setrlimit (RLIMIT_NPROC, &setup->nproc) < 0)
    child_report (setup, "setrlimit(RLIMIT_NPROC)");
  if (setup->has_data && setrlimit (RLIMIT_DATA, &setup->data) < 0)
    child_report (setup, "setrlimit(RLIMIT_DATA)");
  if (setup->has_cpu && setrlimit (RLIMIT_CPU, &setup->cpu) < 0)
    child_report (setup, "setrlimit(RLIMIT_CPU)");
}

static void
child_drop (const ChildSetup *setup)
{
  if (setgroups (0, NULL) < 0)
    child_report (setup, "setgroups");
  if (setresgid (setup->gid, setup->gid, setup->gid) < 0)
    child_report (setup, "setresgid");
  if (setresuid (setup->uid, setup->uid, setup->uid) < 0)
    child_report (setup, "setresuid");
  /* A change of identity clears the parent-death signal. */
  if (prctl (PR_SET_PDEATHSIG, SIGKILL) < 0)
    child_report (setup, "prctl(PR_SET_PDEATHSIG)");
  if (getppid () != setup->parent_pid)
    _exit (127);
}

static void
child_setup (gpointer data)
{
  const ChildSetup *setup = data;

  if (setsid () < 0)
    child_report (setup, "setsid");
  if (setup->tty)
    {
      if (ioctl (0, TIOCSCTTY, 0) < 0)
        child_report (setup, "ioctl(TIOCSCTTY)");
      /* Ctrl-C on the terminal must reach the command. */
      signal (SIGINT, SIG_DFL);
      signal (SIGQUIT, SIG_DFL);
    }
  if (prctl (PR_SET_PDEATHSIG, SIGKILL) < 0)
    child_report (setup, "prctl(PR_SET_PDEATHSIG)");
  if (getppid () != setup->parent_pid)
    _exit (127);
  /* "0" is the writing process; what it starts follows it. */
  for (guint i = 0; setup->cgroup_procs != NULL && setup->cgroup_procs[i] >= 0;
       i++)
    if (write (setup->cgroup_procs[i], "0", 1) != 1)
      child_report (setup, "cgroup.procs");
  if (setup->plan != NULL)
    child_mount_plan (setup);
  child_set_limits (setup);
  if (setup->drop)
    child_drop (setup);
  if (!setup->restrict_self)
    return;
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
    child_report (setup, "prctl(PR_SET_NO_NEW_PRIVS)");
  if (setup->ruleset_fd >= 0 &&
      syscall (__NR_landlock_restrict_self, setup->ruleset_fd, 0) < 0)
    child_report (setup, "landlock_restrict_self");
  if (setup->has_program &&
      prctl (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &setup->program) < 0)
    child_report (setup, "prctl(PR_SET_SECCOMP)");
}

/* Reads what a failed child setup reported: "step:errno". */
static gboolean
check_child_report (int fd, GSubprocess *proc, GError **error)
{
  char buf[256];
  ssize_t n;
  char *colon;

  do
    n = read (fd, buf, sizeof buf - 1);
  while (n < 0 && errno == EINTR);
  if (n <= 0)
    return TRUE;

  buf[n] = '\0';
  colon = strrchr (buf, ':');
  if (colon != NULL)
    *colon++ = '\0';
  g_subprocess_wait (proc, NULL, NULL);
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_FAILED, NULL, "%s: %s",
                            buf, colon ? g_strerror (atoi (colon)) : "failed");
  return FALSE;
}

static char *
resolve_program (const char *program, const char *path)
{
  char *found = agents_unix_local_which (program, path, NULL);

  return found ? found : g_strdup (program);
}

static GSubprocess *
spawn_with_setup (const char *const *argv,
                  char **envp,
                  const AgentsUnixLocalPolicy *policy,
                  ChildSetup *setup,
                  GError **error)
{
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (GSubprocess) proc = NULL;
  int report[2];

  if (!g_unix_open_pipe (report, FD_CLOEXEC, error))
    return NULL;
  setup->parent_pid = getpid ();
  setup->report_fd = report[1];

  if (policy->tty_fd >= 0)
    {
      launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
      g_subprocess_launcher_take_stdin_fd (launcher, dup (policy->tty_fd));
      g_subprocess_launcher_take_stdout_fd (launcher, dup (policy->tty_fd));
      g_subprocess_launcher_take_stderr_fd (launcher, dup (policy->tty_fd));
      setup->tty = TRUE;
    }
  else
    {
      launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                            G_SUBPROCESS_FLAGS_STDERR_PIPE);
      g_subprocess_launcher_set_stdin_file_path (launcher, "/dev/null");
    }
  g_subprocess_launcher_set_environ (launcher, envp);
  g_subprocess_launcher_set_cwd (launcher, policy->workspace_root);
  g_subprocess_launcher_set_child_setup (launcher, child_setup, setup, NULL);
  proc = g_subprocess_launcher_spawnv (launcher, argv, error);
  close (report[1]);
  if (proc != NULL && !check_child_report (report[0], proc, error))
    g_clear_object (&proc);
  close (report[0]);
  return g_steal_pointer (&proc);
}

static void
set_limit (struct rlimit *limit, gboolean *has, guint64 value)
{
  *has = value > 0;
  limit->rlim_cur = limit->rlim_max = value > 0 ? (rlim_t) value : 0;
}

/* Fills in the identity, the mounts and the limits of @setup. A
 * confined command of a root caller runs as the sandbox uid; an
 * unconfined one ("none") keeps the caller's identity. */
static MountPlan *
prepare_child (ChildSetup *setup,
               const AgentsUnixLocalPolicy *policy,
               AgentsUnixLocalConfinement mechanism)
{
  MountPlan *plan = NULL;

  set_limit (&setup->nproc, &setup->has_nproc, policy->limits.processes);
  set_limit (&setup->data, &setup->has_data, policy->limits.memory);
  set_limit (&setup->cpu, &setup->has_cpu, policy->limits.cpu_seconds);
  if (policy->cgroup != NULL)
    setup->cgroup_procs = policy->cgroup->procs;
  if (!policy->drop_privileges ||
      (mechanism != AGENTS_UNIX_LOCAL_CONFINEMENT_BWRAP &&
       mechanism != AGENTS_UNIX_LOCAL_CONFINEMENT_LANDLOCK))
    return NULL;

  setup->drop = TRUE;
  setup->uid = policy->sandbox_uid;
  setup->gid = policy->sandbox_gid;
  {
    g_autoptr (GPtrArray) bound = bound_paths (policy);

    if (policy->host_tmp_dir != NULL &&
        mechanism == AGENTS_UNIX_LOCAL_CONFINEMENT_LANDLOCK)
      g_ptr_array_add (bound, policy->host_tmp_dir);
    plan = mount_plan_new (policy, bound);
  }
  /* bwrap binds nosuid itself: the plan is only needed to reach paths. */
  if (mechanism == AGENTS_UNIX_LOCAL_CONFINEMENT_BWRAP &&
      plan->covers[0] == NULL)
    g_clear_pointer (&plan, mount_plan_free);
  setup->plan = plan;
  return plan;
}

static GSubprocess *
spawn_landlock (const AgentsUnixLocalProbe *probe,
                const AgentsUnixLocalPolicy *policy,
                AgentsUnixLocalSpawnCache *cache,
                const char *const *argv,
                char **envp,
                ChildSetup *base,
                GError **error)
{
  g_autoptr (GBytes) program = NULL;
  g_autofree char *program_path = NULL;
  g_autofree char **args = NULL;
  ChildSetup setup = *base;
  gboolean reusable = FALSE;
  GSubprocess *proc;

  if (!policy->network &&
      (program = agents_unix_local_seccomp_no_network_program (error)) == NULL)
    return NULL;
  setup.restrict_self = TRUE;
  /* A ruleset may be enforced any number of times. */
  if (cache != NULL && cache->landlock_ruleset >= 0)
    setup.ruleset_fd = cache->landlock_ruleset;
  else
    setup.ruleset_fd = agents_unix_local_landlock_ruleset_reusable (
      policy, probe->landlock_abi, &reusable, error);
  if (setup.ruleset_fd < 0)
    return NULL;
  if (cache != NULL && reusable)
    cache->landlock_ruleset = setup.ruleset_fd;
  if (program != NULL)
    {
      gsize size;

      setup.program.filter =
        (struct sock_filter *) g_bytes_get_data (program, &size);
      setup.program.len = size / sizeof (struct sock_filter);
      setup.has_program = TRUE;
    }

  /* The program is looked up in the command's PATH, not ours. */
  args =
    g_memdup2 (argv, (g_strv_length ((char **) argv) + 1) * sizeof (char *));
  program_path = resolve_program (argv[0], g_environ_getenv (envp, "PATH"));
  args[0] = program_path;
  proc =
    spawn_with_setup ((const char *const *) args, envp, policy, &setup, error);
  if (cache == NULL || cache->landlock_ruleset != setup.ruleset_fd)
    close (setup.ruleset_fd);
  return proc;
}

#endif /* __linux__ */

static gboolean
ensure_host_tmp_dir (const AgentsUnixLocalPolicy *policy, GError **error)
{
  if (policy->host_tmp_dir != NULL)
    return TRUE;
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_FAILED, NULL, "%s",
                            _ ("the confinement policy has no private "
                               "temporary directory"));
  return FALSE;
}

/* Spawns without wrapping errors: sandbox errors are confinement
 * failures, other domains spawn failures. */
#ifdef __linux__

static char **
cached_bwrap_argv (const AgentsUnixLocalProbe *probe,
                   const AgentsUnixLocalPolicy *policy,
                   AgentsUnixLocalSpawnCache *cache,
                   const char *const *argv)
{
  GPtrArray *prefix;

  if (cache == NULL)
    return agents_unix_local_bwrap_argv (policy, probe->bwrap_path, argv);
  if (cache->bwrap_prefix == NULL)
    {
      prefix = bwrap_prefix (policy, probe->bwrap_path);
      g_ptr_array_add (prefix, NULL);
      cache->bwrap_prefix = (char **) g_ptr_array_free (prefix, FALSE);
    }
  return bwrap_argv_from_prefix ((const char *const *) cache->bwrap_prefix,
                                 argv, policy->tty_fd >= 0);
}

#endif

static GSubprocess *
confine_spawn (const AgentsUnixLocalProbe *probe,
               AgentsUnixLocalConfinement mechanism,
               const AgentsUnixLocalPolicy *policy,
               AgentsUnixLocalSpawnCache *cache,
               const char *const *argv,
               GError **error)
{
#ifdef __linux__
  g_auto (GStrv) envp = NULL;
  g_auto (GStrv) bwrap_argv = NULL;
  ChildSetup setup = { 0 };
  g_autoptr (MountPlan) plan = NULL;

  g_return_val_if_fail (argv != NULL && argv[0] != NULL, NULL);

  plan = prepare_child (&setup, policy, mechanism);

  switch (mechanism)
    {
    case AGENTS_UNIX_LOCAL_CONFINEMENT_BWRAP:
      /* The environment reaches the command through bwrap's own, not its
       * command line, which every user can read in /proc. */
      envp = agents_unix_local_confine_environ (
        policy, agents_unix_local_bwrap_tmp_dir (policy));
      bwrap_argv = cached_bwrap_argv (probe, policy, cache, argv);
      return spawn_with_setup ((const char *const *) bwrap_argv, envp, policy,
                               &setup, error);

    case AGENTS_UNIX_LOCAL_CONFINEMENT_LANDLOCK:
      if (!ensure_host_tmp_dir (policy, error))
        return NULL;
      envp = agents_unix_local_confine_environ (policy, policy->host_tmp_dir);
      return spawn_landlock (probe, policy, cache, argv, envp, &setup, error);

    case AGENTS_UNIX_LOCAL_CONFINEMENT_NONE:
    case AGENTS_UNIX_LOCAL_CONFINEMENT_SANDBOX_EXEC:
      envp = agents_unix_local_confine_environ (policy, policy->host_tmp_dir);
      bwrap_argv = g_strdupv ((char **) argv);
      g_free (bwrap_argv[0]);
      bwrap_argv[0] =
        resolve_program (argv[0], g_environ_getenv (envp, "PATH"));
      return spawn_with_setup ((const char *const *) bwrap_argv, envp, policy,
                               &setup, error);

    case AGENTS_UNIX_LOCAL_CONFINEMENT_AUTO:
    default:
      break;
    }
  g_return_val_if_reached (NULL);
#else
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_NOT_SUPPORTED, NULL,
                            "%s",
                            _ ("confined spawning is only implemented "
                               "on Linux"));
  return NULL;
#endif
}

/* ---- the spawn cache ------------------------------------------------ */

AgentsUnixLocalSpawnCache *
agents_unix_local_spawn_cache_new (void)
{
  AgentsUnixLocalSpawnCache *cache = g_new0 (AgentsUnixLocalSpawnCache, 1);

  cache->landlock_ruleset = -1;
  return cache;
}

static void
spawn_cache_clear (AgentsUnixLocalSpawnCache *cache)
{
  g_clear_pointer (&cache->key, g_variant_unref);
  g_clear_pointer (&cache->bwrap_prefix, g_strfreev);
  if (cache->landlock_ruleset >= 0)
    close (cache->landlock_ruleset);
  cache->landlock_ruleset = -1;
}

void
agents_unix_local_spawn_cache_free (AgentsUnixLocalSpawnCache *cache)
{
  if (cache == NULL)
    return;
  spawn_cache_clear (cache);
  g_free (cache);
}

static void
add_identity (GVariantBuilder *identities, const char *path)
{
  struct stat st = { 0 };

  if (path == NULL || stat (path, &st) < 0)
    memset (&st, 0, sizeof st);
  g_variant_builder_add (identities, "(tt)", (guint64) st.st_dev,
                         (guint64) st.st_ino);
}

/* Everything the cached entries depend on, down to the identity of the
 * directories (Landlock rules hold inodes, not paths). Paths are byte
 * strings: they need not be UTF-8. */
static GVariant *
spawn_cache_key (const AgentsUnixLocalProbe *probe,
                 AgentsUnixLocalConfinement mechanism,
                 const AgentsUnixLocalPolicy *policy)
{
  GVariantBuilder grants;
  GVariantBuilder identities;
  GVariantBuilder binds;

  g_variant_builder_init (&binds, G_VARIANT_TYPE ("a(ayayb)"));
  for (guint i = 0; i < policy->binds->len; i++)
    {
      AgentsHostBind *bind = g_ptr_array_index (policy->binds, i);

      g_variant_builder_add (&binds, "(^ay^ayb)", bind->host_path,
                             bind->sandbox_path, bind->read_only);
    }
  g_variant_builder_init (&grants, G_VARIANT_TYPE ("a(ayb)"));
  g_variant_builder_init (&identities, G_VARIANT_TYPE ("a(tt)"));
  add_identity (&identities, policy->workspace_root);
  add_identity (&identities, policy->host_tmp_dir);
  for (guint i = 0; i < policy->grants->len; i++)
    {
      AgentsUnixLocalGrant *grant = g_ptr_array_index (policy->grants, i);

      g_variant_builder_add (&grants, "(^ayb)", grant->path, grant->read_only);
      add_identity (&identities, grant->path);
    }
  return g_variant_ref_sink (g_variant_new (
    "(u^ay^aybi^aya(ayb)a(tt)(buutt)a(ayayb))", (guint32) mechanism,
    probe->bwrap_path ? probe->bwrap_path : "", policy->workspace_root,
    policy->network, probe->landlock_abi,
    policy->host_tmp_dir ? policy->host_tmp_dir : "", &grants, &identities,
    policy->drop_privileges, policy->sandbox_uid, policy->sandbox_gid,
    policy->limits.memory, policy->limits.processes, &binds));
}

static void
spawn_cache_update (AgentsUnixLocalSpawnCache *cache,
                    const AgentsUnixLocalProbe *probe,
                    AgentsUnixLocalConfinement mechanism,
                    const AgentsUnixLocalPolicy *policy)
{
  g_autoptr (GVariant) key = spawn_cache_key (probe, mechanism, policy);

  if (cache->key != NULL && g_variant_equal (cache->key, key))
    return;
  spawn_cache_clear (cache);
  cache->key = g_steal_pointer (&key);
}

GSubprocess *
agents_unix_local_confine_spawn (const AgentsUnixLocalProbe *probe,
                                 AgentsUnixLocalConfinement mechanism,
                                 const AgentsUnixLocalPolicy *policy,
                                 const char *const *argv,
                                 GError **error)
{
  return agents_unix_local_confine_spawn_cached (probe, mechanism, policy, NULL,
                                                 argv, error);
}

GSubprocess *
agents_unix_local_confine_spawn_cached (const AgentsUnixLocalProbe *probe,
                                        AgentsUnixLocalConfinement mechanism,
                                        const AgentsUnixLocalPolicy *policy,
                                        AgentsUnixLocalSpawnCache *cache,
                                        const char *const *argv,
                                        GError **error)
{
  g_autoptr (GError) local_error = NULL;
  g_autofree char *detail = NULL;
  const char *name = agents_unix_local_confinement_to_string (mechanism);
  GSubprocess *proc;

  if (cache != NULL)
    spawn_cache_update (cache, probe, mechanism, policy);
  proc = confine_spawn (probe, mechanism, policy, cache, argv, &local_error);
  if (proc != NULL)
    return proc;

  detail = g_strdup_printf ("%s: %s", name, local_error->message);
  if (local_error->domain == AGENTS_SANDBOX_ERROR)
    agents_unix_local_set_unavailable (error, argv, name, detail);
  else
    set_transport_error (error, argv, "spawn_failed", name, detail);
  return NULL;
}

/* ---- probing -------------------------------------------------------- */

static AgentsUnixLocalPolicy *
probe_policy (const char *root)
{
  AgentsUnixLocalPolicy *policy =
    agents_unix_local_policy_new (root, NULL, FALSE);

  policy->host_tmp_dir = g_strdup (policy->workspace_root);
  return policy;
}

static char *
first_line (const char *text)
{
  g_autofree char *copy = g_strdup (text ? text : "");
  char *newline = strchr (copy, '\n');

  if (newline != NULL)
    *newline = '\0';
  return g_strdup (g_strstrip (copy));
}

/* bwrap is tried the way commands will run: as the sandbox uid when the
 * caller is root. */
static void
probe_bwrap (AgentsUnixLocalProbe *probe,
             const char *root,
             const char *true_path,
             char *bwrap)
{
  g_autoptr (AgentsUnixLocalPolicy) policy = probe_policy (root);
  const char *command[] = { true_path, NULL };
  AgentsUnixLocalProbe trial = { .bwrap_path = bwrap };
  g_autoptr (GSubprocess) proc = NULL;
  g_autofree char *err = NULL;
  g_autoptr (GError) error = NULL;

  proc = confine_spawn (&trial, AGENTS_UNIX_LOCAL_CONFINEMENT_BWRAP, policy,
                        NULL, command, &error);
  if (proc == NULL)
    probe->bwrap_error = g_strdup_printf ("bwrap: %s", error->message);
  else if (!g_subprocess_communicate_utf8 (proc, NULL, NULL, NULL, &err,
                                           &error) ||
           !g_spawn_check_wait_status (g_subprocess_get_status (proc), &error))
    {
      g_autofree char *line = first_line (err);

      probe->bwrap_error =
        g_strdup_printf ("bwrap: `%s --unshare-all … %s` failed: %s", bwrap,
                         true_path, *line ? line : error->message);
    }
  if (probe->bwrap_error == NULL)
    probe->bwrap_path = g_steal_pointer (&bwrap);
  g_free (bwrap);
}

static void
probe_landlock (AgentsUnixLocalProbe *probe,
                const char *root,
                const char *true_path,
                int abi)
{
#ifdef __linux__
  g_autoptr (AgentsUnixLocalPolicy) policy = probe_policy (root);
  const char *command[] = { true_path, NULL };
  g_autoptr (GSubprocess) proc = NULL;
  g_autoptr (GError) error = NULL;

  probe->landlock_abi = abi;
  if (abi <= 0)
    {
      probe->landlock_error =
        g_strdup ("landlock: landlock_create_ruleset(LANDLOCK_CREATE_RULESET_"
                  "VERSION) reports no Landlock support in this kernel");
      return;
    }
  proc = confine_spawn (probe, AGENTS_UNIX_LOCAL_CONFINEMENT_LANDLOCK, policy,
                        NULL, command, &error);
  if (proc == NULL)
    probe->landlock_error = g_strdup_printf ("landlock: %s", error->message);
  else if (!g_subprocess_wait_check (proc, NULL, &error))
    probe->landlock_error = g_strdup_printf ("landlock: confined `%s` failed: "
                                             "%s",
                                             true_path, error->message);
#else
  probe->landlock_abi = 0;
  probe->landlock_error = g_strdup ("landlock: only available on Linux");
#endif
}

static AgentsUnixLocalProbe *
probe_run (const AgentsUnixLocalProbeOverride *override, const char *platform)
{
  AgentsUnixLocalProbe *probe = g_new0 (AgentsUnixLocalProbe, 1);
  AgentsUnixLocalWhichFunc which =
    override->which ? override->which : agents_unix_local_which;
  g_autofree char *bwrap = NULL;
  g_autofree char *true_path = NULL;
  g_autofree char *root = NULL;

  probe->platform = g_strdup (platform);
  if (g_str_equal (platform, "darwin"))
    {
      probe->sandbox_exec_path =
        which ("sandbox-exec", NULL, override->which_data);
      return probe;
    }
  if (!g_str_equal (platform, "linux"))
    return probe;

  bwrap = which ("bwrap", NULL, override->which_data);
  true_path = agents_unix_local_which ("true", DEFAULT_PATH, NULL);
  root = g_dir_make_tmp ("agents-probe-XXXXXX", NULL);
  if (root == NULL || true_path == NULL)
    {
      probe->bwrap_error = g_strdup ("bwrap: cannot prepare the probe (no "
                                     "temporary directory or no `true`)");
      probe->landlock_error = g_strdup ("landlock: cannot prepare the probe");
      return probe;
    }
  /* The probe's workspace is the sandbox user's, as a session's is. */
  if (geteuid () == 0 && chown (root, AGENTS_UNIX_LOCAL_DEFAULT_SANDBOX_UID,
                                AGENTS_UNIX_LOCAL_DEFAULT_SANDBOX_GID) < 0)
    g_debug ("cannot hand the probe directory over: %s", g_strerror (errno));
  if (bwrap == NULL)
    probe->bwrap_error = g_strdup ("bwrap: not found in PATH");
  else
    probe_bwrap (probe, root, true_path, g_steal_pointer (&bwrap));
  probe_landlock (probe, root, true_path,
                  override->landlock_abi >= 0
                    ? override->landlock_abi
                    : agents_unix_local_landlock_abi ());
  g_rmdir (root);
  return probe;
}

const AgentsUnixLocalProbe *
agents_unix_local_confine_probe (void)
{
  static GMutex run_lock;
  AgentsUnixLocalProbeOverride override;
  g_autofree char *platform = NULL;
  AgentsUnixLocalProbe *probe;

  /* One probe at a time; the cache lock is not held while it runs. */
  g_mutex_lock (&run_lock);
  g_mutex_lock (&probe_lock);
  probe = probe_cache;
  override = probe_override;
  platform = g_strdup (probe_override_platform ? probe_override_platform
                                               : real_platform ());
  g_mutex_unlock (&probe_lock);

  if (probe == NULL)
    {
      probe = probe_run (&override, platform);
      g_mutex_lock (&probe_lock);
      if (probe_cache == NULL)
        probe_cache = probe;
      else
        {
          probe_free (probe);
          probe = probe_cache;
        }
      g_mutex_unlock (&probe_lock);
    }
  g_mutex_unlock (&run_lock);
  return probe;
}

const AgentsUnixLocalProbe *
agents_unix_local_confine_probe_peek (void)
{
  const AgentsUnixLocalProbe *probe;

  g_mutex_lock (&probe_lock);
  probe = probe_cache;
  g_mutex_unlock (&probe_lock);
  return probe;
}

static void
probe_thread (GTask *task,
              gpointer source_object,
              gpointer task_data,
              GCancellable *cancellable)
{
  g_task_return_pointer (task, (gpointer) agents_unix_local_confine_probe (),
                         NULL);
}

void
agents_unix_local_confine_probe_async (GCancellable *cancellable,
                                       GAsyncReadyCallback callback,
                                       gpointer user_data)
{
  g_autoptr (GTask) task = g_task_new (NULL, cancellable, callback, user_data);

  g_task_set_source_tag (task, agents_unix_local_confine_probe_async);
  g_task_run_in_thread (task, probe_thread);
}

const AgentsUnixLocalProbe *
agents_unix_local_confine_probe_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- selection ------------------------------------------------------ */

static void
select_linux (const AgentsUnixLocalProbe *probe,
              AgentsUnixLocalConfinement requested,
              AgentsUnixLocalConfinement *selected,
              char **detail)
{
  gboolean bwrap_ok = probe->bwrap_path != NULL;
  gboolean landlock_ok =
    probe->landlock_abi > 0 && probe->landlock_error == NULL;

  if ((requested == AGENTS_UNIX_LOCAL_CONFINEMENT_AUTO ||
       requested == AGENTS_UNIX_LOCAL_CONFINEMENT_BWRAP) &&
      bwrap_ok)
    *selected = AGENTS_UNIX_LOCAL_CONFINEMENT_BWRAP;
  else if ((requested == AGENTS_UNIX_LOCAL_CONFINEMENT_AUTO ||
            requested == AGENTS_UNIX_LOCAL_CONFINEMENT_LANDLOCK) &&
           landlock_ok)
    *selected = AGENTS_UNIX_LOCAL_CONFINEMENT_LANDLOCK;
  else if (requested == AGENTS_UNIX_LOCAL_CONFINEMENT_BWRAP)
    *detail = g_strdup (probe->bwrap_error);
  else if (requested == AGENTS_UNIX_LOCAL_CONFINEMENT_LANDLOCK)
    *detail = g_strdup (probe->landlock_error);
  else if (requested == AGENTS_UNIX_LOCAL_CONFINEMENT_AUTO)
    *detail =
      g_strdup_printf ("%s; %s", probe->bwrap_error, probe->landlock_error);
  else
    *detail = g_strdup ("sandbox-exec is only available on darwin");
}

gboolean
agents_unix_local_confine_select (const AgentsUnixLocalProbe *probe,
                                  AgentsUnixLocalConfinement requested,
                                  const char *const *argv,
                                  AgentsUnixLocalConfinement *selected,
                                  GError **error)
{
  g_autofree char *detail = NULL;

  if (requested == AGENTS_UNIX_LOCAL_CONFINEMENT_NONE)
    {
      *selected = requested;
      return TRUE;
    }
  if (g_str_equal (probe->platform, "linux"))
    select_linux (probe, requested, selected, &detail);
  else if (g_str_equal (probe->platform, "darwin") &&
           (requested == AGENTS_UNIX_LOCAL_CONFINEMENT_AUTO ||
            requested == AGENTS_UNIX_LOCAL_CONFINEMENT_SANDBOX_EXEC))
    {
      if (probe->sandbox_exec_path != NULL)
        *selected = AGENTS_UNIX_LOCAL_CONFINEMENT_SANDBOX_EXEC;
      else
        detail = g_strdup ("sandbox-exec: not found in PATH");
    }
  else
    detail = g_strdup_printf (
      "no %s confinement on platform “%s”",
      agents_unix_local_confinement_to_string (requested), probe->platform);

  if (detail == NULL)
    return TRUE;
  agents_unix_local_set_unavailable (
    error, argv, agents_unix_local_confinement_to_string (requested), detail);
  return FALSE;
}
