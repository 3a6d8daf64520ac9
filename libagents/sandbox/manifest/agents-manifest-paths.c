/* agents-manifest-paths.c - entry paths beneath the root, the
 * targets the entries materialize, mount targets
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "agents-manifest-entry-private.h"
#include "agents-manifest-object-private.h"
#include "agents-manifest-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-workspace-path-policy-private.h"

/* ---- paths ---------------------------------------------------------- */

/**
 * agents_manifest_validate_relative_path:
 * @path: a manifest path
 * @error: return location for a #GError
 *
 * Checks that @path is a relative path that stays inside the root: not
 * empty, not absolute (nor a Windows drive path such as `C:\\tmp`),
 * without `..` components. `"."` names the root itself and is allowed.
 * An absolute path gives `manifest path must be relative: PATH` (reason
 * `absolute`), the others `manifest path must not escape root: PATH`.
 *
 * Returns: %TRUE if @path is valid, or %FALSE with
 *   %AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH set
 */
gboolean
agents_manifest_validate_relative_path (const char *path, GError **error)
{
  g_auto (GStrv) parts = NULL;

  g_return_val_if_fail (path != NULL, FALSE);

  if (agents_path_is_windows_absolute (path))
    {
      /* `C:\…` names no POSIX path: absolute, reported as `C:/…`. */
      agents_sandbox_path_error_for (error, path);
      return FALSE;
    }
  if (*path == '\0' || g_path_is_absolute (path))
    goto invalid;

  parts = g_strsplit (path, "/", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    if (g_str_equal (parts[i], ".."))
      goto invalid;
  return TRUE;

invalid:
  agents_sandbox_error_set_invalid_path (
    error, path, g_path_is_absolute (path) ? "absolute" : "escape_root");
  return FALSE;
}

/* Collapses `.`, `..` and repeated slashes of @path onto @stack. Returns
 * FALSE when a `..` would climb above what @stack started with. */
static gboolean
push_components (GPtrArray *stack, guint floor, const char *path)
{
  g_auto (GStrv) parts = g_strsplit (path, "/", -1);

  for (guint i = 0; parts[i] != NULL; i++)
    {
      if (*parts[i] == '\0' || g_str_equal (parts[i], "."))
        continue;
      if (g_str_equal (parts[i], ".."))
        {
          if (stack->len <= floor)
            return FALSE;
          g_ptr_array_remove_index (stack, stack->len - 1);
          continue;
        }
      g_ptr_array_add (stack, g_strdup (parts[i]));
    }
  return TRUE;
}

static char *
join_stack (GPtrArray *stack)
{
  GString *path = g_string_new (NULL);

  for (guint i = 0; i < stack->len; i++)
    {
      g_string_append_c (path, '/');
      g_string_append (path, stack->pdata[i]);
    }
  if (path->len == 0)
    g_string_append_c (path, '/');
  return g_string_free (path, FALSE);
}

char *
agents_manifest_normalize_absolute (const char *path)
{
  g_autoptr (GPtrArray) stack = g_ptr_array_new_with_free_func (g_free);

  if (!push_components (stack, 0, path))
    return NULL;
  return join_stack (stack);
}

char *
agents_manifest_relative_within (const char *path, const char *dir)
{
  gsize len = strlen (dir);

  if (g_str_equal (dir, "/"))
    return g_strdup (path[1] != '\0' ? path + 1 : ".");
  if (strncmp (path, dir, len) != 0)
    return NULL;
  if (path[len] == '\0')
    return g_strdup (".");
  if (path[len] != '/')
    return NULL;
  return g_strdup (path + len + 1);
}

static char *
normalized_root (AgentsManifest *self)
{
  char *root = agents_manifest_normalize_absolute (self->root);

  return root ? root : g_strdup ("/");
}

/**
 * agents_manifest_new_path_policy:
 * @self: an #AgentsManifest
 *
 * Creates the path policy of @self: its root and its extra path grants.
 *
 * Returns: (transfer full): a new #AgentsWorkspacePathPolicy
 */
AgentsWorkspacePathPolicy *
agents_manifest_new_path_policy (AgentsManifest *self)
{
  g_autofree char *root = NULL;

  g_return_val_if_fail (AGENTS_IS_MANIFEST (self), NULL);

  root = normalized_root (self);
  return agents_workspace_path_policy_new (
    root, (AgentsSandboxPathGrant **) self->grants->pdata, self->grants->len,
    NULL);
}

/**
 * agents_manifest_resolve_path:
 * @self: an #AgentsManifest
 * @path: a path relative to the root, or an absolute path
 * @error: return location for a #GError
 *
 * Resolves @path lexically to an absolute, normalized path, as
 * agents_workspace_path_policy_normalize_path() does with
 * %AGENTS_WORKSPACE_PATH_HOST_NAMES (a backslash is part of a name, as
 * the sessions' conformance suite has it); a relative path is joined to
 * the root and
 * must not climb out of it (`manifest path must not escape root: PATH`);
 * an absolute path must lie inside the root or inside one of the extra
 * path grants (`manifest path must be relative: PATH`, reason
 * `absolute`, PATH normalized: `/workspace/../etc/passwd` is refused as
 * `/etc/passwd`). Symbolic links are not looked at.
 *
 * Returns: (transfer full) (type filename): the absolute path, or %NULL
 *   with %AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH set
 */
char *
agents_manifest_resolve_path (AgentsManifest *self,
                              const char *path,
                              GError **error)
{
  g_autoptr (AgentsWorkspacePathPolicy) policy = NULL;
  GError *local_error = NULL;
  char *resolved;

  g_return_val_if_fail (AGENTS_IS_MANIFEST (self), NULL);
  g_return_val_if_fail (path != NULL, NULL);

  policy = agents_manifest_new_path_policy (self);
  resolved = agents_workspace_path_policy_normalize_path (
    policy, path, AGENTS_WORKSPACE_PATH_HOST_NAMES, &local_error);
  if (resolved != NULL)
    return resolved;

  /* An absolute path is refused by its normalized form, as the
   * reference's resolve_workspace_path() names it. */
  if (*path == '/' &&
      g_error_matches (local_error, AGENTS_SANDBOX_ERROR,
                       AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH))
    {
      g_autofree char *normalized = g_canonicalize_filename (path, "/");

      g_clear_error (&local_error);
      agents_sandbox_error_set_invalid_path (&local_error, normalized,
                                             "absolute");
    }
  g_propagate_error (error, local_error);
  return NULL;
}

/* The absolute destination of a relative manifest path. */
static char *
target_path (const char *root, const char *rel)
{
  g_autoptr (GPtrArray) stack = g_ptr_array_new_with_free_func (g_free);

  push_components (stack, 0, root);
  push_components (stack, stack->len, rel);
  return join_stack (stack);
}

/* ---- targets --------------------------------------------------------- */

/* Ephemeral entries are re-applied on resume wherever they are: an
 * ephemeral entry as a whole, else the ephemeral entries beneath a
 * directory (the reference's ephemeral_entry_paths()). */
static void
collect_ephemeral (GPtrArray *targets,
                   const char *dest,
                   AgentsManifestEntry *entry)
{
  g_auto (GStrv) names = NULL;

  if (agents_manifest_entry_get_ephemeral (entry))
    {
      g_ptr_array_add (targets, agents_entry_target_new (dest, entry));
      return;
    }
  names = agents_manifest_entry_get_child_names (entry);
  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    {
      g_autofree char *child = g_build_path ("/", dest, names[i], NULL);

      collect_ephemeral (targets, child,
                         agents_manifest_entry_get_child (entry, names[i]));
    }
}

/**
 * agents_manifest_list_targets:
 * @self: an #AgentsManifest
 * @only_ephemeral: whether to list only ephemeral entries
 *
 * Lists the top-level entries in order, with their absolute destinations.
 * With @only_ephemeral, lists the ephemeral entries instead, nested ones
 * included: an ephemeral entry whole, else the ephemeral entries beneath
 * a directory, each with its own destination.
 *
 * Returns: (transfer container) (element-type AgentsEntryTarget): the
 *   targets; the array frees them (a container annotation, so that
 *   bindings copy the boxed elements rather than free them twice)
 */
GPtrArray *
agents_manifest_list_targets (AgentsManifest *self, gboolean only_ephemeral)
{
  g_autoptr (GPtrArray) targets =
    g_ptr_array_new_with_free_func ((GDestroyNotify) agents_entry_target_free);
  g_autofree char *root = NULL;

  g_return_val_if_fail (AGENTS_IS_MANIFEST (self), NULL);

  root = normalized_root (self);
  for (guint i = 0; i < self->entry_paths->len; i++)
    {
      const char *rel = self->entry_paths->pdata[i];
      AgentsManifestEntry *entry = g_hash_table_lookup (self->entries, rel);
      g_autofree char *dest = NULL;

      dest = target_path (root, rel);
      if (only_ephemeral)
        collect_ephemeral (targets, dest, entry);
      else
        g_ptr_array_add (targets, agents_entry_target_new (dest, entry));
    }
  return g_steal_pointer (&targets);
}

static void
collect_mounts (AgentsManifestEntry *entry,
                const char *dest,
                GPtrArray *targets)
{
  g_auto (GStrv) names = NULL;

  if (AGENTS_IS_MOUNT (entry))
    g_ptr_array_add (targets, agents_entry_target_new (dest, entry));
  names = agents_manifest_entry_get_child_names (entry);
  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    {
      g_autofree char *child_dest = target_path (dest, names[i]);

      collect_mounts (agents_manifest_entry_get_child (entry, names[i]),
                      child_dest, targets);
    }
}

/**
 * agents_manifest_list_mounts:
 * @self: an #AgentsManifest
 *
 * Lists every mount entry, including those nested in directories, with
 * its absolute logical path in the workspace.
 *
 * Returns: (transfer container) (element-type AgentsEntryTarget): the
 *   mounts; the array frees them
 */
GPtrArray *
agents_manifest_list_mounts (AgentsManifest *self)
{
  g_autoptr (GPtrArray) targets =
    g_ptr_array_new_with_free_func ((GDestroyNotify) agents_entry_target_free);
  g_autoptr (GPtrArray) top = NULL;

  g_return_val_if_fail (AGENTS_IS_MANIFEST (self), NULL);

  top = agents_manifest_list_targets (self, FALSE);
  for (guint i = 0; i < top->len; i++)
    {
      AgentsEntryTarget *target = top->pdata[i];

      collect_mounts (target->entry, target->path, targets);
    }
  return g_steal_pointer (&targets);
}

/* ---- mount targets --------------------------------------------------- */

/* Where @mount, whose entry lands at @dest, is mounted: its mount path
 * (an absolute one as it is, a relative one under @root), else @dest;
 * as a pure POSIX path (the reference's _resolve_mount_path_for_root()). */
static char *
mount_candidate (AgentsMount *mount,
                 const char *root,
                 const char *dest,
                 GError **error)
{
  const char *mount_path = agents_mount_get_mount_path (mount);
  g_autofree char *joined = NULL;

  if (mount_path == NULL)
    return g_strdup (dest);
  if (agents_path_is_windows_absolute (mount_path))
    {
      agents_sandbox_path_error_for (error, mount_path);
      return NULL;
    }
  if (*mount_path == '/')
    return agents_path_pure_posix (mount_path);
  joined = g_strconcat (root, "/", mount_path, NULL);
  return agents_path_pure_posix (joined);
}

/* @path (pure, absolute) with its `..` resolved when it lies under @root,
 * refused when a `..` climbs out of the root; a path elsewhere is kept as
 * it is (the reference's _normalize_in_workspace_path()). */
static char *
normalize_mount_target (const char *root, const char *path, GError **error)
{
  g_autofree char *rel = agents_path_relative_to (path, root);
  g_autoptr (GPtrArray) stack = NULL;

  if (rel == NULL)
    return g_strdup (path);
  stack = g_ptr_array_new_with_free_func (g_free);
  push_components (stack, 0, root);
  if (!push_components (stack, stack->len, rel))
    {
      agents_sandbox_error_set_invalid_path (error, path, "escape_root");
      return NULL;
    }
  return join_stack (stack);
}

static guint
path_depth (const char *path)
{
  guint depth = 0;

  for (const char *p = path; *p != '\0'; p++)
    if (*p == '/' && p[1] != '\0')
      depth++;
  return depth;
}

static int
deeper_first (gconstpointer a, gconstpointer b)
{
  const AgentsEntryTarget *ta = *(const AgentsEntryTarget *const *) a;
  const AgentsEntryTarget *tb = *(const AgentsEntryTarget *const *) b;
  guint da = path_depth (ta->path);
  guint db = path_depth (tb->path);

  return da < db ? 1 : da > db ? -1 : 0;
}

/**
 * agents_manifest_list_mount_targets:
 * @self: an #AgentsManifest
 * @only_ephemeral: whether to list only the ephemeral mounts (mounts are
 *   ephemeral unless made otherwise)
 * @error: return location for a #GError
 *
 * Lists the mounts of @self, nested ones included, each with the absolute
 * path where it is mounted: its mount path
 * (agents_mount_get_mount_path(), absolute, or relative to the root),
 * else its place in the manifest. A path under the root is normalized
 * and must not climb out of it (`manifest path must not escape root:
 * PATH`, PATH as given); a Windows drive path is refused as absolute
 * (`manifest path must be relative: C:/…`). The deepest mounts come
 * first, so that they are unmounted before the mounts that hold them;
 * mounts of the same depth keep the manifest's order (the reference's
 * `mount_targets()`).
 *
 * Returns: (transfer container) (element-type AgentsEntryTarget): the
 *   targets; the array frees them. %NULL with
 *   %AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH set when a mount path is
 *   refused.
 */
GPtrArray *
agents_manifest_list_mount_targets (AgentsManifest *self,
                                    gboolean only_ephemeral,
                                    GError **error)
{
  g_autoptr (GPtrArray) mounts = NULL;
  g_autoptr (GPtrArray) targets =
    g_ptr_array_new_with_free_func ((GDestroyNotify) agents_entry_target_free);
  g_autofree char *root = NULL;

  g_return_val_if_fail (AGENTS_IS_MANIFEST (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  root = normalized_root (self);
  mounts = agents_manifest_list_mounts (self);
  for (guint i = 0; i < mounts->len; i++)
    {
      AgentsEntryTarget *mount = mounts->pdata[i];
      g_autofree char *candidate = NULL;
      g_autofree char *path = NULL;

      if (only_ephemeral && !agents_manifest_entry_get_ephemeral (mount->entry))
        continue;
      candidate =
        mount_candidate (AGENTS_MOUNT (mount->entry), root, mount->path, error);
      if (candidate == NULL)
        return NULL;
      path = normalize_mount_target (root, candidate, error);
      if (path == NULL)
        return NULL;
      g_ptr_array_add (targets, agents_entry_target_new (path, mount->entry));
    }
  /* A stable sort: equal depths keep their order. */
  g_ptr_array_sort (targets, deeper_first);
  return g_steal_pointer (&targets);
}

static void
add_unique (GPtrArray *paths, GHashTable *seen, const char *path)
{
  if (g_hash_table_contains (seen, path))
    return;
  g_hash_table_add (seen, g_strdup (path));
  g_ptr_array_add (paths, g_strdup (path));
}

/**
 * agents_manifest_get_ephemeral_persistence_paths:
 * @self: an #AgentsManifest
 * @error: return location for a #GError
 *
 * Lists what a workspace archive of @self leaves out, as paths relative
 * to the root: the ephemeral entries, nested ones included, then where
 * the ephemeral mounts are mounted when that is inside the root (the
 * reference's `ephemeral_persistence_paths()`). Mount paths are checked
 * as agents_manifest_list_mount_targets() does.
 *
 * Returns: (transfer full) (array zero-terminated=1): the paths, each
 *   once, or %NULL with %AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH set
 */
char **
agents_manifest_get_ephemeral_persistence_paths (AgentsManifest *self,
                                                 GError **error)
{
  g_autoptr (GPtrArray) entries = NULL;
  g_autoptr (GPtrArray) mounts = NULL;
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GHashTable) seen =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree char *root = NULL;

  g_return_val_if_fail (AGENTS_IS_MANIFEST (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  mounts = agents_manifest_list_mount_targets (self, TRUE, error);
  if (mounts == NULL)
    return NULL;
  root = normalized_root (self);
  entries = agents_manifest_list_targets (self, TRUE);
  for (guint i = 0; i < entries->len; i++)
    {
      AgentsEntryTarget *target = entries->pdata[i];
      g_autofree char *rel = agents_path_relative_to (target->path, root);

      if (rel != NULL && !g_str_equal (rel, "."))
        add_unique (paths, seen, rel);
    }
  for (guint i = 0; i < mounts->len; i++)
    {
      AgentsEntryTarget *target = mounts->pdata[i];
      g_autofree char *rel = agents_path_relative_to (target->path, root);

      if (rel != NULL && !g_str_equal (rel, "."))
        add_unique (paths, seen, rel);
    }
  g_ptr_array_add (paths, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&paths), FALSE);
}
