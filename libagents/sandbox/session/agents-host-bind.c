/* agents-host-bind.c - host directories shown inside a sandbox
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <errno.h>
#include <ftw.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "agents-host-bind-private.h"
#include "agents-sandbox-error-private.h"

/* The binds live on the session object itself, so that any backend can
 * carry them without a field of its own. Mounts are applied on the
 * owner's thread, but commands may be built on others: a lock guards
 * the list. */
typedef struct
{
  GMutex lock;
  gboolean supported;
  gboolean in_container; /* sandbox paths are not host paths */
  GPtrArray *binds;      /* AgentsHostBind */
} HostBinds;

static GQuark
host_binds_quark (void)
{
  return g_quark_from_static_string ("agents-host-binds");
}

AgentsHostBind *
agents_host_bind_new (const char *host_path,
                      const char *sandbox_path,
                      gboolean read_only)
{
  AgentsHostBind *bind = g_new0 (AgentsHostBind, 1);

  bind->host_path = g_strdup (host_path);
  bind->sandbox_path = g_strdup (sandbox_path);
  bind->read_only = read_only;
  return bind;
}

AgentsHostBind *
agents_host_bind_copy (const AgentsHostBind *bind)
{
  return agents_host_bind_new (bind->host_path, bind->sandbox_path,
                               bind->read_only);
}

void
agents_host_bind_free (AgentsHostBind *bind)
{
  if (bind == NULL)
    return;
  g_free (bind->host_path);
  g_free (bind->sandbox_path);
  g_free (bind);
}

static void
host_binds_free (HostBinds *hb)
{
  g_mutex_clear (&hb->lock);
  g_ptr_array_unref (hb->binds);
  g_free (hb);
}

static HostBinds *
get_host_binds (AgentsSandboxSession *session)
{
  static GMutex create_lock;
  HostBinds *hb;

  g_mutex_lock (&create_lock);
  hb = g_object_get_qdata (G_OBJECT (session), host_binds_quark ());
  if (hb == NULL)
    {
      hb = g_new0 (HostBinds, 1);
      g_mutex_init (&hb->lock);
      hb->binds =
        g_ptr_array_new_with_free_func ((GDestroyNotify) agents_host_bind_free);
      g_object_set_qdata_full (G_OBJECT (session), host_binds_quark (), hb,
                               (GDestroyNotify) host_binds_free);
    }
  g_mutex_unlock (&create_lock);
  return hb;
}

gboolean
agents_sandbox_session_get_host_binds_supported (AgentsSandboxSession *session)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION (session), FALSE);

  return get_host_binds (session)->supported;
}

void
agents_sandbox_session_set_host_binds_supported (AgentsSandboxSession *session,
                                                 gboolean supported)
{
  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (session));

  get_host_binds (session)->supported = !!supported;
}

gboolean
agents_sandbox_session_get_host_binds_in_container (
  AgentsSandboxSession *session)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION (session), FALSE);

  return get_host_binds (session)->in_container;
}

void
agents_sandbox_session_set_host_binds_in_container (
  AgentsSandboxSession *session, gboolean in_container)
{
  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (session));

  get_host_binds (session)->in_container = !!in_container;
}

static int
find_bind (GPtrArray *binds, const char *sandbox_path)
{
  for (guint i = 0; i < binds->len; i++)
    {
      AgentsHostBind *bind = g_ptr_array_index (binds, i);

      if (g_str_equal (bind->sandbox_path, sandbox_path))
        return (int) i;
    }
  return -1;
}

static int
compare_shallowest_first (gconstpointer a, gconstpointer b)
{
  const AgentsHostBind *ba = *(AgentsHostBind *const *) a;
  const AgentsHostBind *bb = *(AgentsHostBind *const *) b;

  return strcmp (ba->sandbox_path, bb->sandbox_path);
}

void
agents_sandbox_session_add_host_bind (AgentsSandboxSession *session,
                                      const AgentsHostBind *bind)
{
  HostBinds *hb;
  int i;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (session));
  g_return_if_fail (bind != NULL && g_path_is_absolute (bind->host_path) &&
                    g_path_is_absolute (bind->sandbox_path));

  hb = get_host_binds (session);
  g_mutex_lock (&hb->lock);
  i = find_bind (hb->binds, bind->sandbox_path);
  if (i >= 0)
    g_ptr_array_remove_index (hb->binds, i);
  g_ptr_array_add (hb->binds, agents_host_bind_copy (bind));
  /* A parent bound after its child would hide the child. */
  g_ptr_array_sort (hb->binds, compare_shallowest_first);
  g_mutex_unlock (&hb->lock);
}

gboolean
agents_sandbox_session_remove_host_bind (AgentsSandboxSession *session,
                                         const char *sandbox_path)
{
  HostBinds *hb;
  int i;

  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION (session), FALSE);
  g_return_val_if_fail (sandbox_path != NULL, FALSE);

  hb = get_host_binds (session);
  g_mutex_lock (&hb->lock);
  i = find_bind (hb->binds, sandbox_path);
  if (i >= 0)
    g_ptr_array_remove_index (hb->binds, i);
  g_mutex_unlock (&hb->lock);
  return i >= 0;
}

AgentsHostBind *
agents_sandbox_session_lookup_host_bind (AgentsSandboxSession *session,
                                         const char *sandbox_path)
{
  AgentsHostBind *copy = NULL;
  HostBinds *hb;
  int i;

  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION (session), NULL);
  g_return_val_if_fail (sandbox_path != NULL, NULL);

  hb = get_host_binds (session);
  g_mutex_lock (&hb->lock);
  i = find_bind (hb->binds, sandbox_path);
  if (i >= 0)
    copy = agents_host_bind_copy (g_ptr_array_index (hb->binds, i));
  g_mutex_unlock (&hb->lock);
  return copy;
}

static gpointer
copy_bind (gconstpointer bind, gpointer user_data)
{
  return agents_host_bind_copy (bind);
}

GPtrArray *
agents_sandbox_session_dup_host_binds (AgentsSandboxSession *session)
{
  GPtrArray *copy;
  HostBinds *hb;

  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION (session), NULL);

  hb = get_host_binds (session);
  g_mutex_lock (&hb->lock);
  copy = g_ptr_array_copy (hb->binds, copy_bind, NULL);
  g_ptr_array_set_free_func (copy, (GDestroyNotify) agents_host_bind_free);
  g_mutex_unlock (&hb->lock);
  return copy;
}

/* ---- directories the library owns for host mounts ------------------ */

#define OWNER_FILE "owner"
#define MOUNT_SUBDIR "mnt"

/* Root's runtime directory is /run: root's home (where GLib's fallback,
 * the cache directory, lives) is closed to the sandbox user that
 * bubblewrap may run as, and that user must reach the mount to bind it. */
char *
agents_host_mounts_dir (void)
{
  if (g_getenv ("XDG_RUNTIME_DIR") == NULL && geteuid () == 0)
    return g_strdup ("/run/agents-1.0/mounts");
  return g_build_filename (g_get_user_runtime_dir (), "agents-1.0", "mounts",
                           NULL);
}

/* The start time of @pid (field 22 of /proc/PID/stat), 0 if none: with
 * the pid, it names a process even after pids are reused. */
static guint64
process_start_time (int pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", pid);
  g_autofree char *contents = NULL;
  g_auto (GStrv) fields = NULL;
  const char *after_comm;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return 0;
  after_comm = strrchr (contents, ')');
  if (after_comm == NULL)
    return 0;
  fields = g_strsplit (after_comm + 2, " ", -1);
  /* After the comm: state is field 3, starttime field 22. */
  if (g_strv_length (fields) < 20)
    return 0;
  return g_ascii_strtoull (fields[19], NULL, 10);
}

static gboolean owner_is_gone (const char *dir);
static gboolean unmount_dir (const char *mnt);

/* Makes @path (0711), first taking away what a dead process left there. */
static gboolean
make_named_dir (const char *path)
{
  g_autofree char *mnt = g_build_filename (path, MOUNT_SUBDIR, NULL);

  if (g_mkdir (path, 0711) == 0)
    return TRUE;
  if (errno != EEXIST)
    return FALSE;
  if (!owner_is_gone (path) || !unmount_dir (mnt))
    {
      errno = EEXIST;
      return FALSE;
    }
  agents_host_mount_dir_remove (path);
  return g_mkdir (path, 0711) == 0;
}

static char *
host_mount_dir_new (const char *prefix, const char *name, GError **error)
{
  g_autofree char *base = agents_host_mounts_dir ();
  g_autofree char *template = NULL;
  g_autofree char *owner_path = NULL;
  g_autofree char *owner = NULL;
  gboolean made;

  /* 0711: a command confined as another user may pass through to the
   * mount (bubblewrap binds it by path) but list nothing; the secrets
   * are in 0600 files, removed once the tool has read them. */
  if (g_mkdir_with_parents (base, 0711) == 0)
    {
      if (name != NULL)
        {
          template = g_strdup_printf ("%s/%s-%s", base, prefix, name);
          made = make_named_dir (template);
        }
      else
        {
          template = g_strdup_printf ("%s/%s-XXXXXX", base, prefix);
          made = g_mkdtemp_full (template, 0711) != NULL;
        }
    }
  else
    made = FALSE;
  if (!made)
    {
      int saved = errno;

      agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_MOUNT_FAILED, NULL,
                                _ ("cannot create a directory in %s: %s"), base,
                                g_strerror (saved));
      return NULL;
    }
  {
    g_autofree char *parent = g_path_get_dirname (base);

    /* Made 0700 by earlier releases. */
    g_chmod (parent, 0711);
    g_chmod (base, 0711);
  }
  owner_path = g_build_filename (template, OWNER_FILE, NULL);
  owner = g_strdup_printf ("%d %" G_GUINT64_FORMAT "\n", (int) getpid (),
                           process_start_time (getpid ()));
  if (!g_file_set_contents_full (owner_path, owner, -1,
                                 G_FILE_SET_CONTENTS_CONSISTENT, 0600, error))
    {
      agents_host_mount_dir_remove (template);
      return NULL;
    }
  return g_steal_pointer (&template);
}

char *
agents_host_mount_dir_new (const char *prefix, GError **error)
{
  return host_mount_dir_new (prefix, NULL, error);
}

char *
agents_host_mount_dir_new_named (const char *prefix,
                                 const char *name,
                                 GError **error)
{
  g_return_val_if_fail (
    name != NULL && *name != '\0' && strchr (name, '/') == NULL, NULL);

  return host_mount_dir_new (prefix, name, error);
}

static int
remove_one (const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  if (flag == FTW_DP || flag == FTW_D)
    g_rmdir (path);
  else
    g_unlink (path);
  return 0;
}

void
agents_host_mount_dir_remove (const char *dir)
{
  if (dir != NULL)
    nftw (dir, remove_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* Whether the process that made @dir is gone. A directory without an
 * owner yet is being made: left alone for a minute. */
static gboolean
owner_is_gone (const char *dir)
{
  g_autofree char *path = g_build_filename (dir, OWNER_FILE, NULL);
  g_autofree char *contents = NULL;
  guint64 start = 0;
  int pid = 0;
  GStatBuf st;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return g_stat (dir, &st) == 0 && time (NULL) - st.st_mtime > 60;
  if (sscanf (contents, "%d %" G_GUINT64_FORMAT, &pid, &start) != 2 || pid <= 0)
    return TRUE;
  return process_start_time (pid) != start;
}

static gboolean
is_mount_point (const char *path)
{
  GStatBuf st, parent_st;
  g_autofree char *parent = g_path_get_dirname (path);

  /* A FUSE mount whose daemon died answers stat with ENOTCONN: still a
   * mount. */
  if (g_stat (path, &st) < 0)
    return errno == ENOTCONN || errno == EIO;
  return g_stat (parent, &parent_st) == 0 && st.st_dev != parent_st.st_dev;
}

static gboolean
unmount_dir (const char *mnt)
{
  const char *const commands[][4] = {
    { "fusermount3", "-u", mnt, NULL },
    { "fusermount", "-u", mnt, NULL },
    { "umount", mnt, NULL, NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (commands) && is_mount_point (mnt); i++)
    g_spawn_sync (NULL, (char **) commands[i], NULL,
                  G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL |
                    G_SPAWN_STDERR_TO_DEV_NULL,
                  NULL, NULL, NULL, NULL, NULL, NULL);
  return !is_mount_point (mnt);
}

gssize
agents_host_mounts_reap (gboolean all, GError **error)
{
  g_autofree char *base = agents_host_mounts_dir ();
  g_autoptr (GDir) dir = NULL;
  g_autoptr (GError) local_error = NULL;
  const char *name;
  gssize removed = 0;

  dir = g_dir_open (base, 0, &local_error);
  if (dir == NULL)
    {
      if (g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return 0;
      g_propagate_error (error, g_steal_pointer (&local_error));
      return -1;
    }
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (base, name, NULL);
      g_autofree char *mnt = g_build_filename (path, MOUNT_SUBDIR, NULL);

      if (!g_file_test (path, G_FILE_TEST_IS_DIR) ||
          (!all && !owner_is_gone (path)))
        continue;
      if (!unmount_dir (mnt))
        {
          g_warning ("Could not unmount %s; keeping it", mnt);
          continue;
        }
      agents_host_mount_dir_remove (path);
      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        removed++;
    }
  return removed;
}
