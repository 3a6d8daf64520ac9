/* agents-unix-local-confine-probe.c - which confinement works on this host
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "agents-sandbox-error-private.h"
#include "agents-unix-local-confine-private.h"

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
  g_free (probe->setsid_path);
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

  proc = agents_unix_local_confine_spawn_raw (
    &trial, AGENTS_UNIX_LOCAL_CONFINEMENT_BWRAP, policy, NULL, command, &error);
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
  proc = agents_unix_local_confine_spawn_raw (
    probe, AGENTS_UNIX_LOCAL_CONFINEMENT_LANDLOCK, policy, NULL, command,
    &error);
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
  true_path =
    agents_unix_local_which ("true", AGENTS_UNIX_LOCAL_DEFAULT_PATH, NULL);
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
  /* From the system's folders, which the sandbox shows. */
  if (probe->bwrap_path != NULL)
    probe->setsid_path =
      agents_unix_local_which ("setsid", AGENTS_UNIX_LOCAL_DEFAULT_PATH, NULL);
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
