/* agents-unix-local-cgroup.c - a v1 cgroup per unix_local command
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

/* ---- cgroups -------------------------------------------------------- */

/* The directory of the calling process in the v1 hierarchy of
 * @controller, or NULL. */
static char *
own_cgroup_dir (const char *controller)
{
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;

  if (!g_file_get_contents ("/proc/self/cgroup", &text, NULL, NULL))
    return NULL;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto (GStrv) fields = g_strsplit (lines[i], ":", 3);
      g_auto (GStrv) names = NULL;

      if (g_strv_length (fields) != 3)
        continue;
      names = g_strsplit (fields[1], ",", -1);
      if (g_strv_contains ((const char *const *) names, controller))
        return g_build_filename ("/sys/fs/cgroup", controller, fields[2], NULL);
    }
  return NULL;
}

static gboolean
write_cgroup_file (const char *dir,
                   const char *name,
                   guint64 value,
                   GError **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *text = g_strdup_printf ("%" G_GUINT64_FORMAT, value);

  return g_file_set_contents_full (path, text, -1, G_FILE_SET_CONTENTS_NONE,
                                   0644, error);
}

/* Removes the cgroups that processes gone since left under @base (a
 * process killed before it could remove them, or one whose commands'
 * orphans were not reaped yet then). */
static void
sweep_stale_cgroups (const char *base)
{
  g_autoptr (GDir) dir = g_dir_open (base, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = NULL;
      int pid;

      if (!g_str_has_prefix (name, "agents-") ||
          (pid = atoi (name + strlen ("agents-"))) <= 0 ||
          (kill (pid, 0) == 0 || errno != ESRCH))
        continue;
      path = g_build_filename (base, name, NULL);
      if (g_rmdir (path) < 0)
        g_debug ("cannot remove the stale cgroup %s: %s", path,
                 g_strerror (errno));
    }
}

static gboolean
cgroup_add (GPtrArray *paths,
            const char *controller,
            const char *file,
            guint64 value,
            GError **error)
{
  static gint counter;
  g_autofree char *base = own_cgroup_dir (controller);
  g_autofree char *name = NULL;
  g_autofree char *dir = NULL;

  if (base == NULL || !g_file_test (base, G_FILE_TEST_IS_DIR))
    {
      agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_NOT_SUPPORTED, NULL,
                                _ ("no cgroup v1 “%s” hierarchy"), controller);
      return FALSE;
    }
  name = g_strdup_printf ("agents-%d-%d-%08x", (int) getpid (),
                          g_atomic_int_add (&counter, 1), g_random_int ());
  dir = g_build_filename (base, name, NULL);
  if (g_mkdir (dir, 0755) < 0)
    return agents_unix_local_set_errno_error (error, "mkdir", dir, errno);
  g_ptr_array_add (paths, g_steal_pointer (&dir));
  return value == 0 ||
         write_cgroup_file (g_ptr_array_index (paths, paths->len - 1), file,
                            value, error);
}

AgentsUnixLocalCgroup *
agents_unix_local_cgroup_new (const AgentsUnixLocalLimits *limits,
                              GError **error)
{
  static gsize swept;
  AgentsUnixLocalCgroup *cgroup;
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  gboolean ok;

  if (g_once_init_enter (&swept))
    {
      const char *const controllers[] = { "pids", "memory" };

      for (guint i = 0; i < G_N_ELEMENTS (controllers); i++)
        {
          g_autofree char *base = own_cgroup_dir (controllers[i]);

          if (base != NULL)
            sweep_stale_cgroups (base);
        }
      g_once_init_leave (&swept, 1);
    }
  cgroup = g_new0 (AgentsUnixLocalCgroup, 1);

  ok = cgroup_add (paths, "pids", "pids.max", limits->processes, error) &&
       cgroup_add (paths, "memory", "memory.limit_in_bytes", limits->memory,
                   error);
  cgroup->procs = g_new (int, paths->len + 1);
  for (guint i = 0; i <= paths->len; i++)
    cgroup->procs[i] = -1;
  for (guint i = 0; ok && i < paths->len; i++)
    {
      g_autofree char *procs =
        g_build_filename (g_ptr_array_index (paths, i), "cgroup.procs", NULL);

      cgroup->procs[i] = open (procs, O_WRONLY | O_CLOEXEC);
      if (cgroup->procs[i] < 0)
        ok = agents_unix_local_set_errno_error (error, "open", procs, errno);
    }
  g_ptr_array_add (paths, NULL);
  cgroup->paths = (char **) g_ptr_array_free (g_steal_pointer (&paths), FALSE);
  if (!ok)
    g_clear_pointer (&cgroup, agents_unix_local_cgroup_free);
  return cgroup;
}

const char *const *
agents_unix_local_cgroup_get_paths (AgentsUnixLocalCgroup *cgroup)
{
  return (const char *const *) cgroup->paths;
}

/* Sends SIGKILL to every process in @dir; returns how many there were. */
static guint
cgroup_kill (const char *dir)
{
  g_autofree char *path = g_build_filename (dir, "cgroup.procs", NULL);
  g_autofree char *text = NULL;
  g_auto (GStrv) pids = NULL;
  guint n = 0;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return 0;
  pids = g_strsplit (text, "\n", -1);
  for (guint i = 0; pids[i] != NULL; i++)
    if (*pids[i] != '\0')
      {
        kill ((pid_t) atoi (pids[i]), SIGKILL);
        n++;
      }
  return n;
}

gboolean
agents_unix_local_cgroup_kill (AgentsUnixLocalCgroup *cgroup)
{
  gboolean removed = TRUE;

  for (guint i = 0; cgroup->paths[i] != NULL; i++)
    {
      cgroup_kill (cgroup->paths[i]);
      /* Empty already (a bwrap sandbox is, once bwrap is gone)? */
      if (g_rmdir (cgroup->paths[i]) < 0 && errno != ENOENT)
        removed = FALSE;
    }
  return removed;
}

void
agents_unix_local_cgroup_free (AgentsUnixLocalCgroup *cgroup)
{
  if (cgroup == NULL)
    return;
  for (guint i = 0; cgroup->procs != NULL && cgroup->procs[i] >= 0; i++)
    close (cgroup->procs[i]);
  for (guint i = 0; cgroup->paths != NULL && cgroup->paths[i] != NULL; i++)
    {
      /* A process forking meanwhile is caught in a later round. */
      for (guint round = 0; round < 1000 && cgroup_kill (cgroup->paths[i]) > 0;
           round++)
        g_usleep (1000);
      if (g_rmdir (cgroup->paths[i]) < 0 && errno != ENOENT)
        g_debug ("cannot remove the cgroup %s: %s", cgroup->paths[i],
                 g_strerror (errno));
    }
  g_strfreev (cgroup->paths);
  g_free (cgroup->procs);
  g_free (cgroup);
}
