/* agents-workspace-path-policy.c - workspace paths and extra path grants
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "agents-sandbox-error.h"
#include "agents-workspace-path-policy-private.h"

/**
 * AgentsWorkspacePathPolicy:
 *
 * Validates and formats the paths a caller or a model gives, relative to
 * the workspace root of a sandbox, as the reference's
 * `WorkspacePathPolicy` does.
 *
 * Sandbox paths are POSIX paths: a backslash is a separator. A relative
 * path must stay inside the root; an absolute path must lie inside the
 * root or inside one of the extra path grants. Windows drive paths
 * (`C:\…`, `C:/…`) are absolute paths of no POSIX system and are refused.
 * A refused absolute path gives `manifest path must be relative: PATH`
 * (context reason `absolute`), a refused relative one `manifest path must
 * not escape root: PATH` (reason `escape_root`).
 */
struct _AgentsWorkspacePathPolicy
{
  GObject parent_instance;

  char *root;         /* as configured, for the host */
  char *sandbox_root; /* normalized POSIX form */
  gboolean root_is_existing_host_path;
  GPtrArray *grants;
};

G_DEFINE_FINAL_TYPE (AgentsWorkspacePathPolicy,
                     agents_workspace_path_policy,
                     G_TYPE_OBJECT)

#define MAX_SYMLINK_FOLLOWS 40

static void
agents_workspace_path_policy_finalize (GObject *object)
{
  AgentsWorkspacePathPolicy *self = AGENTS_WORKSPACE_PATH_POLICY (object);

  g_free (self->root);
  g_free (self->sandbox_root);
  g_ptr_array_unref (self->grants);

  G_OBJECT_CLASS (agents_workspace_path_policy_parent_class)->finalize (object);
}

static void
agents_workspace_path_policy_class_init (AgentsWorkspacePathPolicyClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = agents_workspace_path_policy_finalize;
}

static void
agents_workspace_path_policy_init (AgentsWorkspacePathPolicy *self)
{
  self->grants = g_ptr_array_new_with_free_func (g_object_unref);
}

/* ---- lexical helpers ------------------------------------------------- */

gboolean
agents_path_is_windows_absolute (const char *path)
{
  return g_ascii_isalpha (path[0]) && path[1] == ':' &&
         (path[2] == '/' || path[2] == '\\');
}

char *
agents_path_coerce_posix (const char *path)
{
  char *copy = g_strdup (path);

  g_strdelimit (copy, "\\", '/');
  return copy;
}

/* Appends the components of @path to @stack. With @collapse, `.` and
 * empty components go and `..` removes the one before it (never above
 * the start of an absolute path); without, only `.` and empty ones go. */
static void
push_parts (GPtrArray *stack, const char *path, gboolean collapse)
{
  g_auto (GStrv) parts = g_strsplit (path, "/", -1);

  for (guint i = 0; parts[i] != NULL; i++)
    {
      const char *part = parts[i];

      if (*part == '\0' || g_str_equal (part, "."))
        continue;
      if (collapse && g_str_equal (part, ".."))
        {
          if (stack->len > 0 &&
              !g_str_equal (stack->pdata[stack->len - 1], ".."))
            g_ptr_array_remove_index (stack, stack->len - 1);
          else if (*path != '/')
            g_ptr_array_add (stack, g_strdup (part));
          continue;
        }
      g_ptr_array_add (stack, g_strdup (part));
    }
}

static char *
join_parts (GPtrArray *stack, gboolean absolute)
{
  GString *out = g_string_new (absolute ? "/" : NULL);

  for (guint i = 0; i < stack->len; i++)
    {
      if (i > 0)
        g_string_append_c (out, '/');
      g_string_append (out, stack->pdata[i]);
    }
  if (out->len == 0)
    g_string_append_c (out, '.');
  return g_string_free (out, FALSE);
}

/* What Python's PurePosixPath keeps of @path: no empty or `.` parts. */
char *
agents_path_pure_posix (const char *path)
{
  g_autoptr (GPtrArray) stack = g_ptr_array_new_with_free_func (g_free);

  push_parts (stack, path, FALSE);
  return join_parts (stack, *path == '/');
}

/* posixpath.normpath(): `..` collapsed too, dropped at `/`. */
char *
agents_path_normpath (const char *path)
{
  g_autoptr (GPtrArray) stack = g_ptr_array_new_with_free_func (g_free);

  push_parts (stack, path, TRUE);
  return join_parts (stack, *path == '/');
}

/* @path relative to @dir, "." for @dir itself, NULL if outside it. Both
 * are normalized absolute paths. */
char *
agents_path_relative_to (const char *path, const char *dir)
{
  gsize len = strlen (dir);

  if (g_str_equal (dir, "/"))
    return g_strdup (path[1] != '\0' ? path + 1 : ".");
  if (strncmp (path, dir, len) != 0 || (path[len] != '\0' && path[len] != '/'))
    return NULL;
  return g_strdup (path[len] != '\0' ? path + len + 1 : ".");
}

static gboolean
is_under (const char *path, const char *dir)
{
  g_autofree char *rest = agents_path_relative_to (path, dir);

  return rest != NULL;
}

/* PureWindowsPath(@path).as_posix() of a drive-absolute path. */
static char *
windows_as_posix (const char *path)
{
  g_autofree char *coerced = agents_path_coerce_posix (path + 2);
  g_autofree char *rest = agents_path_pure_posix (coerced);

  return g_strdup_printf ("%c:%s", path[0], rest);
}

/**
 * agents_path_resolve_loose:
 * @path: an absolute host path
 *
 * Resolves @path as Python's `os.path.realpath (strict=False)`: the
 * symbolic links of the components that exist are followed (at most 40),
 * the components that do not exist are kept as they are, `..` applies
 * to what is resolved so far.
 *
 * Returns: (transfer full) (type filename): the resolved path
 */
char *
agents_path_resolve_loose (const char *path)
{
  g_autoptr (GPtrArray) pending = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GString) cur = g_string_new ("/");
  g_auto (GStrv) parts = g_strsplit (path, "/", -1);
  guint follows = 0;

  for (guint i = g_strv_length (parts); i > 0; i--)
    g_ptr_array_add (pending, g_strdup (parts[i - 1]));
  while (pending->len > 0)
    {
      g_autofree char *name =
        g_ptr_array_steal_index (pending, pending->len - 1);
      g_autofree char *next = NULL;
      g_autofree char *target = NULL;
      char *slash;

      if (*name == '\0' || g_str_equal (name, "."))
        continue;
      if (g_str_equal (name, ".."))
        {
          slash = strrchr (cur->str, '/');
          g_string_truncate (cur, slash == cur->str ? 1 : slash - cur->str);
          continue;
        }
      next = g_build_filename (cur->str, name, NULL);
      if (follows < MAX_SYMLINK_FOLLOWS &&
          (target = g_file_read_link (next, NULL)) != NULL)
        {
          g_auto (GStrv) link_parts = g_strsplit (target, "/", -1);

          follows++;
          if (*target == '/')
            g_string_assign (cur, "/");
          for (guint i = g_strv_length (link_parts); i > 0; i--)
            g_ptr_array_add (pending, g_strdup (link_parts[i - 1]));
          continue;
        }
      g_string_assign (cur, next);
    }
  return g_strdup (cur->str);
}

/* ---- errors ---------------------------------------------------------- */

static void
set_value_error (GError **error, const char *field, const char *message)
{
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                            g_variant_new_parsed ("{'field': <%s>}", field),
                            "%s", message);
}

/* The reference's error for a refused path, given as a POSIX path. */
static void
set_invalid (GError **error, const char *posix_path)
{
  g_autofree char *rel = agents_path_pure_posix (posix_path);

  agents_sandbox_error_set_invalid_path (
    error, rel, *posix_path == '/' ? "absolute" : "escape_root");
}

static void
set_invalid_windows (GError **error, const char *path)
{
  g_autofree char *rel = windows_as_posix (path);

  agents_sandbox_error_set_invalid_path (error, rel, "absolute");
}

/**
 * agents_sandbox_path_error_for:
 * @error: (nullable): return location for a #GError
 * @path: a path as a caller gave it
 *
 * Sets the error of a refused path: `manifest path must be relative`
 * (reason `absolute`) for an absolute path, including a Windows drive
 * path, else `manifest path must not escape root` (reason
 * `escape_root`). The context's `rel` is @path with its empty and `.`
 * components dropped.
 */
void
agents_sandbox_path_error_for (GError **error, const char *path)
{
  if (agents_path_is_windows_absolute (path))
    set_invalid_windows (error, path);
  else
    set_invalid (error, path);
}

static gboolean
check_not_root (const char *path, gboolean resolved, GError **error)
{
  if (!g_str_equal (path, "/"))
    return TRUE;
  set_value_error (
    error, "path",
    resolved ? _ ("sandbox path grant path must not resolve to filesystem root")
             : _ ("sandbox path grant path must not be filesystem root"));
  return FALSE;
}

/* ---- grants ---------------------------------------------------------- */

/**
 * agents_sandbox_path_normalize_grant_path:
 * @path: the path of an extra path grant
 * @error: return location for a #GError
 *
 * Validates and normalizes the path of a grant: it must be a POSIX
 * absolute path (`sandbox path grant path must be POSIX absolute`) and
 * not the filesystem root (`sandbox path grant path must not be
 * filesystem root`); `.`, `..` and repeated slashes are collapsed.
 *
 * Returns: (transfer full): the normalized path, or %NULL with
 *   %AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT set (context `field`: `path`)
 */
char *
agents_sandbox_path_normalize_grant_path (const char *path, GError **error)
{
  g_autofree char *normalized = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  if (agents_path_is_windows_absolute (path) || *path != '/')
    {
      set_value_error (error, "path",
                       _ ("sandbox path grant path must be POSIX absolute"));
      return NULL;
    }
  normalized = agents_path_normpath (path);
  if (!check_not_root (normalized, FALSE, error))
    return NULL;
  return g_steal_pointer (&normalized);
}

/**
 * agents_sandbox_path_grant_try_new:
 * @path: the absolute path granted
 * @read_only: whether the path may only be read
 * @description: (nullable): what the path is for
 * @error: return location for a #GError
 *
 * Creates a path grant after validating @path as
 * agents_sandbox_path_normalize_grant_path() does; the grant keeps the
 * normalized path.
 *
 * Returns: (transfer full): a new #AgentsSandboxPathGrant, or %NULL with
 *   %AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT set
 */
AgentsSandboxPathGrant *
agents_sandbox_path_grant_try_new (const char *path,
                                   gboolean read_only,
                                   const char *description,
                                   GError **error)
{
  g_autofree char *normalized =
    agents_sandbox_path_normalize_grant_path (path, error);

  if (normalized == NULL)
    return NULL;
  return agents_sandbox_path_grant_new (normalized, read_only, description);
}

/* PureWindowsPath(@value) as str: `C:\a\b`, from a drive path. */
static char *
windows_host_path (const char *value, GError **error)
{
  g_auto (GStrv) parts = g_strsplit_set (value + 2, "\\/", -1);
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "%c:", value[0]);
  for (guint i = 0; parts[i] != NULL; i++)
    if (*parts[i] != '\0' && !g_str_equal (parts[i], "."))
      g_string_append_printf (out, "\\%s", parts[i]);
  if (out->len == 2)
    {
      g_string_free (out, TRUE);
      check_not_root ("/", FALSE, error);
      return NULL;
    }
  return g_string_free (out, FALSE);
}

/* The reference's SandboxPathGrant._validate_host_path(). */
static char *
normalize_host_path (const char *value, GError **error)
{
  g_auto (GStrv) parts = g_strsplit_set (value, "\\/", -1);
  g_autofree char *normalized = NULL;

  if (g_str_has_prefix (value, "\\\\") || g_str_has_prefix (value, "//"))
    {
      set_value_error (error, "host_path",
                       _ ("sandbox path grant host_path does not support UNC "
                          "or device paths"));
      return NULL;
    }
  for (guint i = 0; parts[i] != NULL; i++)
    if (g_str_equal (parts[i], ".."))
      {
        set_value_error (error, "host_path",
                         _ ("sandbox path grant host_path must not contain "
                            "parent segments"));
        return NULL;
      }
  if (agents_path_is_windows_absolute (value))
    return windows_host_path (value, error);
  if (*value != '/')
    {
      set_value_error (
        error, "host_path",
        _ ("sandbox path grant host_path must be an absolute host path"));
      return NULL;
    }
  normalized = agents_path_normpath (value);
  if (!check_not_root (normalized, FALSE, error))
    return NULL;
  return g_steal_pointer (&normalized);
}

/**
 * agents_sandbox_path_grant_try_new_full:
 * @path: the absolute path granted, as seen in the sandbox
 * @host_path: (nullable): the native host source of @path, when it
 *   differs
 * @read_only: whether the path may only be read
 * @description: (nullable): what the path is for
 * @error: return location for a #GError
 *
 * Creates a path grant whose sandbox path and host source differ. @path
 * is validated as agents_sandbox_path_normalize_grant_path() does.
 * @host_path must be absolute, on POSIX or with a Windows drive (kept in
 * Windows form, `C:\Users\…`), without `..` segments, not UNC nor a
 * device path, not a filesystem root; it is otherwise kept verbatim,
 * trailing spaces included.
 *
 * Returns: (transfer full): a new #AgentsSandboxPathGrant, or %NULL with
 *   %AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT set (context `field`)
 */
AgentsSandboxPathGrant *
agents_sandbox_path_grant_try_new_full (const char *path,
                                        const char *host_path,
                                        gboolean read_only,
                                        const char *description,
                                        GError **error)
{
  g_autofree char *normalized =
    agents_sandbox_path_normalize_grant_path (path, error);
  g_autofree char *host = NULL;

  if (normalized == NULL)
    return NULL;
  if (host_path != NULL &&
      (host = normalize_host_path (host_path, error)) == NULL)
    return NULL;
  return g_object_new (AGENTS_TYPE_SANDBOX_PATH_GRANT, "path", normalized,
                       "host-path", host, "read-only", read_only, "description",
                       description, NULL);
}

/**
 * agents_sandbox_path_grant_resolve_host_source:
 * @grant: an #AgentsSandboxPathGrant
 * @error: return location for a #GError
 *
 * Resolves the host directory @grant opens: its host path, or its path
 * when it has none, with symbolic links followed. The result is what
 * callers must use from then on: the link is not read again, so
 * re-pointing it later changes nothing. A source that is, or resolves
 * to, the filesystem root is refused (`sandbox path grant path must not
 * resolve to filesystem root`).
 *
 * Returns: (transfer full) (type filename): the resolved source, or
 *   %NULL with %AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT set
 */
char *
agents_sandbox_path_grant_resolve_host_source (AgentsSandboxPathGrant *grant,
                                               GError **error)
{
  const char *host_path = agents_sandbox_path_grant_get_host_path (grant);
  const char *raw =
    host_path ? host_path : agents_sandbox_path_grant_get_path (grant);
  g_autofree char *lexical = NULL;
  g_autofree char *resolved = NULL;

  if (*raw != '/')
    {
      g_autofree char *message = g_strdup_printf (
        _ ("sandbox path grant host_path must be absolute on the current "
           "host: %s"),
        raw);

      set_value_error (error, "host_path", message);
      return NULL;
    }
  lexical = agents_path_pure_posix (raw);
  if (!check_not_root (lexical, FALSE, error))
    return NULL;
  resolved = agents_path_resolve_loose (raw);
  if (!check_not_root (resolved, TRUE, error))
    return NULL;
  return g_steal_pointer (&resolved);
}

/* The directory a grant opens on the host, resolved. */
static char *
grant_host_root (AgentsSandboxPathGrant *grant, GError **error)
{
  const char *raw = agents_sandbox_path_grant_get_path (grant);

  if (*raw != '/' && agents_sandbox_path_grant_get_host_path (grant) == NULL)
    return NULL;
  return agents_sandbox_path_grant_resolve_host_source (grant, error);
}

/* The grant whose root holds @path, the deepest if several do. */
static gboolean
matching_grant (AgentsWorkspacePathPolicy *self,
                const char *path,
                gboolean resolve_roots,
                AgentsSandboxPathGrant **out,
                GError **error)
{
  gsize best = 0;

  *out = NULL;
  for (guint i = 0; i < self->grants->len; i++)
    {
      AgentsSandboxPathGrant *grant = self->grants->pdata[i];
      g_autofree char *root = NULL;
      GError *local_error = NULL;

      if (resolve_roots)
        root = grant_host_root (grant, &local_error);
      else
        {
          g_autofree char *raw = agents_path_coerce_posix (
            agents_sandbox_path_grant_get_path (grant));

          root = agents_path_pure_posix (raw);
          if (*root == '/')
            check_not_root (root, FALSE, &local_error);
        }
      if (local_error != NULL)
        {
          g_propagate_error (error, local_error);
          return FALSE;
        }
      if (root != NULL && *root == '/' && is_under (path, root) &&
          (*out == NULL || strlen (root) > best))
        {
          *out = grant;
          best = strlen (root);
        }
    }
  return TRUE;
}

static gboolean
check_writable (AgentsWorkspacePathPolicy *self,
                const char *path,
                AgentsSandboxPathGrant *grant,
                GError **error)
{
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  if (grant == NULL || !agents_sandbox_path_grant_get_read_only (grant))
    return TRUE;
  g_variant_builder_add (&ctx, "{sv}", "path", g_variant_new_string (path));
  g_variant_builder_add (&ctx, "{sv}", "reason",
                         g_variant_new_string ("read_only_extra_path_grant"));
  g_variant_builder_add (
    &ctx, "{sv}", "grant_path",
    g_variant_new_string (agents_sandbox_path_grant_get_path (grant)));
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE,
                            g_variant_builder_end (&ctx),
                            _ ("failed to write archive for path: %s"), path);
  return FALSE;
}

/* ---- the policy ------------------------------------------------------ */

/**
 * agents_workspace_path_policy_new:
 * @root: the workspace root, an absolute path
 * @grants: (array length=n_grants) (nullable): the extra path grants
 * @n_grants: the length of @grants
 * @error: return location for a #GError
 *
 * Creates a policy for @root. Whether @root exists on the host is
 * looked at once, here: a root that does not exist, or cannot be looked
 * at (`EACCES`), is treated as a path of a remote sandbox.
 *
 * Returns: (transfer full): a new policy, or %NULL with
 *   %AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT set if @root is not absolute
 */
AgentsWorkspacePathPolicy *
agents_workspace_path_policy_new (const char *root,
                                  AgentsSandboxPathGrant **grants,
                                  guint n_grants,
                                  GError **error)
{
  g_autoptr (AgentsWorkspacePathPolicy) self = NULL;
  g_autofree char *coerced = NULL;

  g_return_val_if_fail (root != NULL, NULL);

  coerced = agents_path_coerce_posix (root);
  if (*coerced != '/')
    {
      set_value_error (error, "root",
                       _ ("sandbox workspace root must be absolute"));
      return NULL;
    }
  self = g_object_new (AGENTS_TYPE_WORKSPACE_PATH_POLICY, NULL);
  self->root = g_strdup (*root == '/' ? root : coerced);
  self->sandbox_root = agents_path_normpath (coerced);
  self->root_is_existing_host_path = g_file_test (root, G_FILE_TEST_EXISTS);
  for (guint i = 0; i < n_grants; i++)
    g_ptr_array_add (self->grants, g_object_ref (grants[i]));
  return g_steal_pointer (&self);
}

/**
 * agents_workspace_path_policy_dup_sandbox_root:
 * @self: an #AgentsWorkspacePathPolicy
 *
 * Gets the root as a normalized POSIX path, for commands in the sandbox.
 *
 * Returns: (transfer full): the root
 */
char *
agents_workspace_path_policy_dup_sandbox_root (AgentsWorkspacePathPolicy *self)
{
  g_return_val_if_fail (AGENTS_IS_WORKSPACE_PATH_POLICY (self), NULL);

  return g_strdup (self->sandbox_root);
}

/**
 * agents_workspace_path_policy_get_root_is_existing_host_path:
 * @self: an #AgentsWorkspacePathPolicy
 *
 * Gets whether the root existed on the host when @self was created.
 *
 * Returns: whether the root is a host directory
 */
gboolean
agents_workspace_path_policy_get_root_is_existing_host_path (
  AgentsWorkspacePathPolicy *self)
{
  g_return_val_if_fail (AGENTS_IS_WORKSPACE_PATH_POLICY (self), FALSE);

  return self->root_is_existing_host_path;
}

/* @original (POSIX) made absolute against the root, refused if it
 * leaves it. Grants are not looked at. */
static char *
absolute_workspace_posix (AgentsWorkspacePathPolicy *self,
                          const char *original,
                          GError **error)
{
  g_autofree char *joined = NULL;
  g_autofree char *normalized = NULL;

  if (*original != '/')
    joined = g_strconcat (self->sandbox_root, "/", original, NULL);
  normalized = agents_path_normpath (joined ? joined : original);
  if (!is_under (normalized, self->sandbox_root))
    {
      set_invalid (error, original);
      return NULL;
    }
  return g_steal_pointer (&normalized);
}

/**
 * agents_workspace_path_policy_absolute_workspace_path:
 * @self: an #AgentsWorkspacePathPolicy
 * @path: a path relative to the root, or an absolute path
 * @error: return location for a #GError
 *
 * Makes @path absolute, lexically (no symbolic link is followed), and
 * requires it to stay inside the root; grants are not considered.
 *
 * Returns: (transfer full): the absolute path, or %NULL with
 *   %AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH set
 */
char *
agents_workspace_path_policy_absolute_workspace_path (
  AgentsWorkspacePathPolicy *self, const char *path, GError **error)
{
  g_autofree char *coerced = NULL;

  g_return_val_if_fail (AGENTS_IS_WORKSPACE_PATH_POLICY (self), NULL);
  g_return_val_if_fail (path != NULL, NULL);

  if (agents_path_is_windows_absolute (path))
    {
      set_invalid_windows (error, path);
      return NULL;
    }
  coerced = agents_path_coerce_posix (path);
  return absolute_workspace_posix (self, coerced, error);
}

/**
 * agents_workspace_path_policy_relative_path:
 * @self: an #AgentsWorkspacePathPolicy
 * @path: a path relative to the root, or an absolute path inside it
 * @error: return location for a #GError
 *
 * Gets @path relative to the root, `.` for the root itself, as
 * agents_workspace_path_policy_absolute_workspace_path() checks it.
 *
 * Returns: (transfer full): the relative path, or %NULL with
 *   %AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH set
 */
char *
agents_workspace_path_policy_relative_path (AgentsWorkspacePathPolicy *self,
                                            const char *path,
                                            GError **error)
{
  g_autofree char *absolute =
    agents_workspace_path_policy_absolute_workspace_path (self, path, error);

  if (absolute == NULL)
    return NULL;
  return agents_path_relative_to (absolute, self->sandbox_root);
}

/* The lexical check: a relative path never reaches a grant. */
static char *
sandbox_path_and_grant (AgentsWorkspacePathPolicy *self,
                        const char *original,
                        AgentsSandboxPathGrant **grant,
                        GError **error)
{
  g_autofree char *joined = NULL;
  g_autofree char *normalized = NULL;

  *grant = NULL;
  if (*original != '/')
    joined = g_strconcat (self->sandbox_root, "/", original, NULL);
  normalized = agents_path_normpath (joined ? joined : original);
  if (is_under (normalized, self->sandbox_root))
    return g_steal_pointer (&normalized);
  if (!matching_grant (self, normalized, FALSE, grant, error))
    return NULL;
  if (*original == '/' && *grant != NULL)
    return g_steal_pointer (&normalized);
  *grant = NULL;
  set_invalid (error, original);
  return NULL;
}

static char *
last_component (const char *pure)
{
  const char *slash = strrchr (pure, '/');

  return g_strdup (slash ? slash + 1 : pure);
}

/* The host check: symbolic links followed, grant roots resolved too. */
static char *
resolved_host_path_and_grant (AgentsWorkspacePathPolicy *self,
                              const char *original,
                              gboolean follow_leaf,
                              AgentsSandboxPathGrant **grant,
                              GError **error)
{
  g_autofree char *workspace_root = agents_path_resolve_loose (self->root);
  g_autofree char *absolute = NULL;
  g_autofree char *pure = NULL;
  g_autofree char *leaf = NULL;
  g_autofree char *resolved = NULL;

  *grant = NULL;
  if (*original == '/')
    absolute = g_strdup (original);
  else
    {
      /* A host path: a backslash is part of a name. */
      absolute = absolute_workspace_posix (self, original, error);
      if (absolute == NULL)
        return NULL;
    }
  pure = agents_path_pure_posix (absolute);
  leaf = last_component (pure);
  if (follow_leaf || *leaf == '\0' || g_str_equal (leaf, "..") ||
      g_str_equal (pure, self->sandbox_root))
    resolved = agents_path_resolve_loose (absolute);
  else
    {
      g_autofree char *parent = g_path_get_dirname (pure);
      g_autofree char *resolved_parent = agents_path_resolve_loose (parent);

      resolved = g_build_filename (resolved_parent, leaf, NULL);
    }

  if (is_under (resolved, workspace_root))
    return g_steal_pointer (&resolved);
  if (!matching_grant (self, resolved, TRUE, grant, error))
    return NULL;
  if (*grant != NULL)
    return g_steal_pointer (&resolved);
  set_invalid (error, original);
  return NULL;
}

/**
 * agents_workspace_path_policy_normalize_path:
 * @self: an #AgentsWorkspacePathPolicy
 * @path: a path relative to the root, or an absolute path
 * @flags: how to check it
 * @error: return location for a #GError
 *
 * Validates @path and makes it absolute. A relative path must stay
 * inside the root; an absolute one must lie inside the root or a grant
 * (the deepest grant that holds it decides). With
 * %AGENTS_WORKSPACE_PATH_RESOLVE_SYMLINKS the path and the grant roots
 * are resolved on the host first, so a grant configured through a
 * symlinked alias holds the paths of its target. With
 * %AGENTS_WORKSPACE_PATH_FOR_WRITE a path of a read-only grant gives
 * %AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE, context `{"path",
 * "reason": "read_only_extra_path_grant", "grant_path"}`.
 *
 * Returns: (transfer full): the absolute path, or %NULL with an error
 *   set
 */
char *
agents_workspace_path_policy_normalize_path (AgentsWorkspacePathPolicy *self,
                                             const char *path,
                                             AgentsWorkspacePathFlags flags,
                                             GError **error)
{
  AgentsSandboxPathGrant *grant = NULL;
  g_autofree char *result = NULL;

  g_return_val_if_fail (AGENTS_IS_WORKSPACE_PATH_POLICY (self), NULL);
  g_return_val_if_fail (path != NULL, NULL);

  if (!(flags & AGENTS_WORKSPACE_PATH_HOST_NAMES) &&
      agents_path_is_windows_absolute (path))
    {
      set_invalid_windows (error, path);
      return NULL;
    }
  if (flags & AGENTS_WORKSPACE_PATH_RESOLVE_SYMLINKS)
    result = resolved_host_path_and_grant (
      self, path, !(flags & AGENTS_WORKSPACE_PATH_NO_FOLLOW_LEAF), &grant,
      error);
  else
    {
      g_autofree char *coerced = flags & AGENTS_WORKSPACE_PATH_HOST_NAMES
                                   ? g_strdup (path)
                                   : agents_path_coerce_posix (path);

      result = sandbox_path_and_grant (self, coerced, &grant, error);
    }
  if (result == NULL)
    return NULL;
  if ((flags & AGENTS_WORKSPACE_PATH_FOR_WRITE) &&
      !check_writable (self, result, grant, error))
    return NULL;
  return g_steal_pointer (&result);
}

/**
 * agents_workspace_path_policy_normalize_sandbox_path:
 * @self: an #AgentsWorkspacePathPolicy
 * @path: a path relative to the root, or an absolute path
 * @for_write: whether the path will be written
 * @error: return location for a #GError
 *
 * The lexical form of agents_workspace_path_policy_normalize_path(), for
 * the POSIX filesystem of a remote sandbox.
 *
 * Returns: (transfer full): the absolute path, or %NULL with an error
 *   set
 */
char *
agents_workspace_path_policy_normalize_sandbox_path (
  AgentsWorkspacePathPolicy *self,
  const char *path,
  gboolean for_write,
  GError **error)
{
  return agents_workspace_path_policy_normalize_path (
    self, path,
    for_write ? AGENTS_WORKSPACE_PATH_FOR_WRITE
              : AGENTS_WORKSPACE_PATH_FLAGS_NONE,
    error);
}

/**
 * agents_workspace_path_policy_check_extra_path_grants:
 * @self: an #AgentsWorkspacePathPolicy
 * @error: return location for a #GError
 *
 * Checks the grants @self was given as the rules of a remote sandbox's
 * path check need them: each path POSIX absolute and not the filesystem
 * root. Grants made with agents_sandbox_path_grant_new() are not
 * validated when they are created.
 *
 * Returns: whether every grant is usable, or %FALSE with
 *   %AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT set
 */
gboolean
agents_workspace_path_policy_check_extra_path_grants (
  AgentsWorkspacePathPolicy *self, GError **error)
{
  g_return_val_if_fail (AGENTS_IS_WORKSPACE_PATH_POLICY (self), FALSE);

  for (guint i = 0; i < self->grants->len; i++)
    {
      const char *path =
        agents_sandbox_path_grant_get_path (self->grants->pdata[i]);
      g_autofree char *coerced = NULL;
      g_autofree char *pure = NULL;

      if (agents_path_is_windows_absolute (path))
        {
          set_value_error (
            error, "path",
            _ ("sandbox path grant path must be POSIX absolute"));
          return FALSE;
        }
      coerced = agents_path_coerce_posix (path);
      pure = agents_path_pure_posix (coerced);
      if (!check_not_root (pure, FALSE, error))
        return FALSE;
    }
  return TRUE;
}
