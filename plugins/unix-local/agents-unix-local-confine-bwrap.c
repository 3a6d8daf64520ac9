/* agents-unix-local-confine-bwrap.c - the bubblewrap command line of a confined
 * command
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "agents-unix-local-confine-private.h"

/* ---- /etc secrets ---------------------------------------------------- */

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

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
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
GPtrArray *
agents_unix_local_bound_paths (const AgentsUnixLocalPolicy *policy)
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
GPtrArray *
agents_unix_local_bwrap_prefix (const AgentsUnixLocalPolicy *policy,
                                const char *bwrap_path)
{
  GPtrArray *args = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) bound = agents_unix_local_bound_paths (policy);
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

/* A command on a PTY runs without --new-session, which guards the
 * caller's terminal against TIOCSTI: this PTY is the command's own, and
 * the command must be able to make it its controlling terminal (Ctrl-C,
 * job control). That happens inside the sandbox, by `setsid -c`: a
 * session and process group made outside lie beyond bwrap's pid
 * namespace, where a shell cannot give the terminal back to them (dash
 * exits with 2 then). Without setsid the session made outside is the
 * terminal's, which bash, not dash, accepts. */
char **
agents_unix_local_bwrap_argv_from_prefix (const char *const *prefix,
                                          const char *const *argv,
                                          gboolean tty,
                                          const char *setsid_path)
{
  GPtrArray *args = g_ptr_array_new ();

  for (guint i = 0; prefix[i] != NULL; i++)
    if (!tty || !g_str_equal (prefix[i], "--new-session"))
      g_ptr_array_add (args, g_strdup (prefix[i]));
  if (tty && setsid_path != NULL)
    {
      g_ptr_array_add (args, g_strdup (setsid_path));
      g_ptr_array_add (args, g_strdup ("-c"));
      g_ptr_array_add (args, g_strdup ("--"));
    }
  for (guint i = 0; argv != NULL && argv[i] != NULL; i++)
    g_ptr_array_add (args, g_strdup (argv[i]));
  g_ptr_array_add (args, NULL);
  return (char **) g_ptr_array_free (args, FALSE);
}

char **
agents_unix_local_bwrap_argv_full (const AgentsUnixLocalPolicy *policy,
                                   const char *bwrap_path,
                                   const char *setsid_path,
                                   const char *const *argv)
{
  g_autoptr (GPtrArray) prefix =
    agents_unix_local_bwrap_prefix (policy, bwrap_path);

  g_ptr_array_add (prefix, NULL);
  return agents_unix_local_bwrap_argv_from_prefix (
    (const char *const *) prefix->pdata, argv, policy->tty_fd >= 0,
    setsid_path);
}

char **
agents_unix_local_bwrap_argv (const AgentsUnixLocalPolicy *policy,
                              const char *bwrap_path,
                              const char *const *argv)
{
  return agents_unix_local_bwrap_argv_full (policy, bwrap_path, NULL, argv);
}
