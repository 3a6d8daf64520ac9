/* agents-unix-local-macos.c - the sandbox-exec profile of macOS
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

/* ---- macOS ---------------------------------------------------------- */

/* Appends `(ACTION (subpath "PATH"))`. */
static void
profile_rule (GString *profile, const char *action, const char *path)
{
  g_string_append_printf (profile, "(%s (subpath \"", action);
  /* Profile strings are double-quoted; escape what would end them. */
  for (const char *p = path; *p != '\0'; p++)
    {
      if (*p == '"' || *p == '\\')
        g_string_append_c (profile, '\\');
      g_string_append_c (profile, *p);
    }
  g_string_append (profile, "\"))\n");
}

char *
agents_unix_local_darwin_exec_profile (const char *workspace_root,
                                       GPtrArray *grants,
                                       const char *const *read_roots,
                                       gboolean network)
{
  static const char *const system_reads[] = {
    "/usr",
    "/bin",
    "/sbin",
    "/System",
    "/Library",
    "/private/etc",
    "/private/var/db/timezone",
    "/dev",
    "/Applications/Xcode.app",
  };
  static const char *const write_denies[] = { "/opt", "/usr/local" };
  GString *profile = g_string_new ("(version 1)\n"
                                   "(deny default)\n"
                                   "(allow process-exec)\n"
                                   "(allow process-fork)\n"
                                   "(allow signal (target same-sandbox))\n"
                                   "(allow sysctl-read)\n"
                                   "(allow mach-lookup)\n"
                                   "(allow ipc-posix-shm-read-data)\n"
                                   "(allow file-read-metadata)\n"
                                   "(allow file-read-data (literal \"/\"))\n");
  const char *read = "allow file-read-data file-read-metadata";

  for (guint i = 0; i < G_N_ELEMENTS (system_reads); i++)
    profile_rule (profile, read, system_reads[i]);
  for (guint i = 0; read_roots != NULL && read_roots[i] != NULL; i++)
    profile_rule (profile, read, read_roots[i]);
  for (guint i = 0; i < G_N_ELEMENTS (write_denies); i++)
    profile_rule (profile, "deny file-write*", write_denies[i]);
  g_string_append (profile,
                   "(allow file-write-data (literal \"/dev/null\") "
                   "(literal \"/dev/zero\") (literal \"/dev/tty\"))\n");

  profile_rule (profile, read, workspace_root);
  profile_rule (profile, "allow file-write*", workspace_root);
  /* Parents come first; a later rule wins, so a read-only grant nested
   * in a writable one is denied after the parent is allowed. */
  for (guint i = 0; grants != NULL && i < grants->len; i++)
    {
      AgentsUnixLocalGrant *grant = g_ptr_array_index (grants, i);

      profile_rule (profile, read, grant->path);
      profile_rule (profile,
                    grant->read_only ? "deny file-write*" : "allow file-write*",
                    grant->path);
    }
  g_string_append (profile,
                   network ? "(allow network*)\n" : "(deny network*)\n");
  return g_string_free (profile, FALSE);
}

/* Adds the virtual environment around @bin_dir (a directory holding
 * pyvenv.cfg above it), once. */
static void
add_venv_root (GPtrArray *found, const char *bin_dir)
{
  g_autofree char *venv = g_path_get_dirname (bin_dir);
  g_autofree char *cfg = g_build_filename (venv, "pyvenv.cfg", NULL);

  if (!g_file_test (cfg, G_FILE_TEST_IS_REGULAR) || g_str_equal (venv, "/"))
    return;
  for (guint i = 0; i < found->len; i++)
    if (g_str_equal (found->pdata[i], venv))
      return;
  g_ptr_array_add (found, g_steal_pointer (&venv));
}

char **
agents_unix_local_darwin_interpreter_roots (const char *path_env,
                                            const char *resolved_program)
{
  g_autofree char *home_local =
    g_build_filename (g_get_home_dir (), ".local", NULL);
  const char *roots[] = { "/opt/homebrew", "/usr/local", home_local };
  g_auto (GStrv) entries =
    g_strsplit (path_env ? path_env : "", G_SEARCHPATH_SEPARATOR_S, -1);
  GPtrArray *found = g_ptr_array_new ();

  for (guint r = 0; r < G_N_ELEMENTS (roots); r++)
    {
      gboolean used =
        resolved_program != NULL &&
        agents_unix_local_path_is_at_or_under (resolved_program, roots[r]);

      for (guint i = 0; !used && entries[i] != NULL; i++)
        used = *entries[i] == '/' &&
               agents_unix_local_path_is_at_or_under (entries[i], roots[r]);
      if (used)
        g_ptr_array_add (found, g_strdup (roots[r]));
    }
  /* A Python virtual environment on PATH (or holding the program) is
   * readable as a whole, not the project around it (ULOC-06). */
  for (guint i = 0; entries[i] != NULL; i++)
    if (*entries[i] == '/')
      add_venv_root (found, entries[i]);
  if (resolved_program != NULL)
    {
      g_autofree char *bin_dir = g_path_get_dirname (resolved_program);

      add_venv_root (found, bin_dir);
    }
  g_ptr_array_add (found, NULL);
  return (char **) g_ptr_array_free (found, FALSE);
}

char **
agents_unix_local_confined_exec_command (const char *platform,
                                         AgentsUnixLocalWhichFunc which,
                                         gpointer which_data,
                                         const char *const *argv,
                                         const char *workspace_root,
                                         GPtrArray *grants,
                                         const char *env_path,
                                         gboolean network,
                                         GError **error)
{
  g_autofree char *sandbox_exec = NULL;
  g_autofree char *program = NULL;
  g_autofree char *profile = NULL;
  g_auto (GStrv) roots = NULL;
  GPtrArray *command;

  g_return_val_if_fail (argv != NULL && argv[0] != NULL, NULL);

  if (which == NULL)
    which = agents_unix_local_which;
  if (g_strcmp0 (platform, "linux") == 0)
    return g_strdupv ((char **) argv);
  if (g_strcmp0 (platform, "darwin") != 0)
    {
      g_autofree char *detail = g_strdup_printf (
        "no confinement on platform “%s”", platform ? platform : "");

      agents_unix_local_set_unavailable (error, argv, "auto", detail);
      return NULL;
    }

  sandbox_exec = which ("sandbox-exec", NULL, which_data);
  if (sandbox_exec == NULL)
    {
      agents_unix_local_set_unavailable (error, argv, "sandbox-exec",
                                         "sandbox-exec: not found in PATH");
      return NULL;
    }
  program = which (argv[0], env_path, which_data);
  roots = agents_unix_local_darwin_interpreter_roots (env_path, program);
  profile = agents_unix_local_darwin_exec_profile (
    workspace_root, grants, (const char *const *) roots, network);

  command = g_ptr_array_new ();
  g_ptr_array_add (command, g_steal_pointer (&sandbox_exec));
  g_ptr_array_add (command, g_strdup ("-p"));
  g_ptr_array_add (command, g_steal_pointer (&profile));
  for (guint i = 0; argv[i] != NULL; i++)
    g_ptr_array_add (command, g_strdup (argv[i]));
  g_ptr_array_add (command, NULL);
  return (char **) g_ptr_array_free (command, FALSE);
}
