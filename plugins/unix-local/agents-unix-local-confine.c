/* agents-unix-local-confine.c - confinement of unix_local commands: the policy
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>

#include "agents-sandbox-error-private.h"
#include "agents-unix-local-confine-private.h"

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

  envp = g_environ_setenv (envp, "PATH", AGENTS_UNIX_LOCAL_DEFAULT_PATH, TRUE);
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

/* ---- errors -------------------------------------------------------- */

/* An EXEC_TRANSPORT error whose message also tells what failed. */
void
agents_unix_local_set_transport_error (GError **error,
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
  agents_unix_local_set_transport_error (
    error, argv, AGENTS_UNIX_LOCAL_CONFINEMENT_UNAVAILABLE, requested, detail);
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
