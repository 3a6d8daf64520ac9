/* agents-unix-local-confine-spawn.c - spawning a command under its confinement
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib-unix.h>
#include <glib/gi18n-lib.h>

#include "agents-sandbox-error-private.h"
#include "agents-unix-local-confine-private.h"

/* ---- spawning ------------------------------------------------------- */

struct _AgentsUnixLocalSpawnCache
{
  GVariant *key; /* what the entries below were made for */
  char **bwrap_prefix;
  int landlock_ruleset;
};

#ifdef __linux__

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

/* Where a spawn goes: a GSubprocess (one-shot commands, the probe), or a
 * bare child when @child is set (processes that run on). */
typedef struct
{
  GSubprocess *proc;
  AgentsUnixLocalChild *child;
} SpawnTarget;

static gboolean
spawn_with_setup (const char *const *argv,
                  char **envp,
                  const AgentsUnixLocalPolicy *policy,
                  ChildSetup *setup,
                  SpawnTarget *target,
                  GError **error)
{
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (GSubprocess) proc = NULL;
  int report[2];

  if (target->child != NULL)
    return agents_unix_local_clone_spawn (argv, envp, policy, setup,
                                          target->child, error);
  if (!g_unix_open_pipe (report, FD_CLOEXEC, error))
    return FALSE;
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
  g_subprocess_launcher_set_child_setup (
    launcher, agents_unix_local_child_setup, setup, NULL);
  proc = g_subprocess_launcher_spawnv (launcher, argv, error);
  close (report[1]);
  if (proc != NULL && !check_child_report (report[0], proc, error))
    g_clear_object (&proc);
  close (report[0]);
  target->proc = g_steal_pointer (&proc);
  return target->proc != NULL;
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

  /* RLIMIT_NPROC counts every process of the uid on the machine, other
   * sandboxes' included: only where no pids cgroup holds the command. */
  set_limit (&setup->nproc, &setup->has_nproc,
             policy->cgroup == NULL ? policy->limits.processes : 0);
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
    g_autoptr (GPtrArray) bound = agents_unix_local_bound_paths (policy);

    if (policy->host_tmp_dir != NULL &&
        mechanism == AGENTS_UNIX_LOCAL_CONFINEMENT_LANDLOCK)
      g_ptr_array_add (bound, policy->host_tmp_dir);
    plan = agents_unix_local_mount_plan_new (policy, bound);
  }
  /* bwrap binds nosuid itself: the plan is only needed to reach paths. */
  if (mechanism == AGENTS_UNIX_LOCAL_CONFINEMENT_BWRAP &&
      plan->covers[0] == NULL)
    g_clear_pointer (&plan, agents_unix_local_mount_plan_free);
  setup->plan = plan;
  return plan;
}

static gboolean
spawn_landlock (const AgentsUnixLocalProbe *probe,
                const AgentsUnixLocalPolicy *policy,
                AgentsUnixLocalSpawnCache *cache,
                const char *const *argv,
                char **envp,
                ChildSetup *base,
                SpawnTarget *target,
                GError **error)
{
  g_autoptr (GBytes) program = NULL;
  g_autofree char *program_path = NULL;
  g_autofree char **args = NULL;
  ChildSetup setup = *base;
  gboolean reusable = FALSE;
  gboolean ok;

  if (!policy->network &&
      (program = agents_unix_local_seccomp_no_network_program (error)) == NULL)
    return FALSE;
  setup.restrict_self = TRUE;
  /* A ruleset may be enforced any number of times. */
  if (cache != NULL && cache->landlock_ruleset >= 0)
    setup.ruleset_fd = cache->landlock_ruleset;
  else
    setup.ruleset_fd = agents_unix_local_landlock_ruleset_reusable (
      policy, probe->landlock_abi, &reusable, error);
  if (setup.ruleset_fd < 0)
    return FALSE;
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
  ok = spawn_with_setup ((const char *const *) args, envp, policy, &setup,
                         target, error);
  if (cache == NULL || cache->landlock_ruleset != setup.ruleset_fd)
    close (setup.ruleset_fd);
  return ok;
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

#ifdef __linux__

static char **
cached_bwrap_argv (const AgentsUnixLocalProbe *probe,
                   const AgentsUnixLocalPolicy *policy,
                   AgentsUnixLocalSpawnCache *cache,
                   const char *const *argv)
{
  GPtrArray *prefix;

  if (cache == NULL)
    return agents_unix_local_bwrap_argv_full (policy, probe->bwrap_path,
                                              probe->setsid_path, argv);
  if (cache->bwrap_prefix == NULL)
    {
      prefix = agents_unix_local_bwrap_prefix (policy, probe->bwrap_path);
      g_ptr_array_add (prefix, NULL);
      cache->bwrap_prefix = (char **) g_ptr_array_free (prefix, FALSE);
    }
  return agents_unix_local_bwrap_argv_from_prefix (
    (const char *const *) cache->bwrap_prefix, argv, policy->tty_fd >= 0,
    probe->setsid_path);
}

#endif

static gboolean
confine_spawn_into (const AgentsUnixLocalProbe *probe,
                    AgentsUnixLocalConfinement mechanism,
                    const AgentsUnixLocalPolicy *policy,
                    AgentsUnixLocalSpawnCache *cache,
                    const char *const *argv,
                    SpawnTarget *target,
                    GError **error)
{
#ifdef __linux__
  g_auto (GStrv) envp = NULL;
  g_auto (GStrv) bwrap_argv = NULL;
  ChildSetup setup = { 0 };
  g_autoptr (MountPlan) plan = NULL;

  g_return_val_if_fail (argv != NULL && argv[0] != NULL, FALSE);

  plan = prepare_child (&setup, policy, mechanism);

  switch (mechanism)
    {
    case AGENTS_UNIX_LOCAL_CONFINEMENT_BWRAP:
      /* The environment reaches the command through bwrap's own, not its
       * command line, which every user can read in /proc. */
      envp = agents_unix_local_confine_environ (
        policy, agents_unix_local_bwrap_tmp_dir (policy));
      bwrap_argv = cached_bwrap_argv (probe, policy, cache, argv);
      /* setsid -c makes the PTY the command's terminal in the sandbox. */
      setup.ctty_inside = probe->setsid_path != NULL;
      return spawn_with_setup ((const char *const *) bwrap_argv, envp, policy,
                               &setup, target, error);

    case AGENTS_UNIX_LOCAL_CONFINEMENT_LANDLOCK:
      if (!ensure_host_tmp_dir (policy, error))
        return FALSE;
      envp = agents_unix_local_confine_environ (policy, policy->host_tmp_dir);
      return spawn_landlock (probe, policy, cache, argv, envp, &setup, target,
                             error);

    case AGENTS_UNIX_LOCAL_CONFINEMENT_NONE:
    case AGENTS_UNIX_LOCAL_CONFINEMENT_SANDBOX_EXEC:
      envp = agents_unix_local_confine_environ (policy, policy->host_tmp_dir);
      bwrap_argv = g_strdupv ((char **) argv);
      g_free (bwrap_argv[0]);
      bwrap_argv[0] =
        resolve_program (argv[0], g_environ_getenv (envp, "PATH"));
      return spawn_with_setup ((const char *const *) bwrap_argv, envp, policy,
                               &setup, target, error);

    case AGENTS_UNIX_LOCAL_CONFINEMENT_AUTO:
    default:
      break;
    }
  g_return_val_if_reached (FALSE);
#else
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_NOT_SUPPORTED, NULL,
                            "%s",
                            _ ("confined spawning is only implemented "
                               "on Linux"));
  return FALSE;
#endif
}

GSubprocess *
agents_unix_local_confine_spawn_raw (const AgentsUnixLocalProbe *probe,
                                     AgentsUnixLocalConfinement mechanism,
                                     const AgentsUnixLocalPolicy *policy,
                                     AgentsUnixLocalSpawnCache *cache,
                                     const char *const *argv,
                                     GError **error)
{
  SpawnTarget target = { NULL, NULL };

  confine_spawn_into (probe, mechanism, policy, cache, argv, &target, error);
  return target.proc;
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

/* Confinement failures are the mechanism being unavailable; others are
 * a failure of the transport. */
static void
set_spawn_error (GError **error,
                 AgentsUnixLocalConfinement mechanism,
                 const char *const *argv,
                 GError *local_error)
{
  const char *name = agents_unix_local_confinement_to_string (mechanism);
  g_autofree char *detail =
    g_strdup_printf ("%s: %s", name, local_error->message);

  if (local_error->domain == AGENTS_SANDBOX_ERROR)
    agents_unix_local_set_unavailable (error, argv, name, detail);
  else
    agents_unix_local_set_transport_error (error, argv, "spawn_failed", name,
                                           detail);
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
  GSubprocess *proc;

  if (cache != NULL)
    spawn_cache_update (cache, probe, mechanism, policy);
  proc = agents_unix_local_confine_spawn_raw (probe, mechanism, policy, cache,
                                              argv, &local_error);
  if (proc == NULL)
    set_spawn_error (error, mechanism, argv, local_error);
  return proc;
}

gboolean
agents_unix_local_confine_spawn_child (const AgentsUnixLocalProbe *probe,
                                       AgentsUnixLocalConfinement mechanism,
                                       const AgentsUnixLocalPolicy *policy,
                                       AgentsUnixLocalSpawnCache *cache,
                                       const char *const *argv,
                                       AgentsUnixLocalChild *child,
                                       GError **error)
{
  g_autoptr (GError) local_error = NULL;
  SpawnTarget target = { NULL, child };

  if (cache != NULL)
    spawn_cache_update (cache, probe, mechanism, policy);
  if (confine_spawn_into (probe, mechanism, policy, cache, argv, &target,
                          &local_error))
    return TRUE;
  set_spawn_error (error, mechanism, argv, local_error);
  return FALSE;
}
