/* agents-manifest.c - what a sandbox workspace is made of
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "agents-json-private.h"
#include "agents-typed-json-private.h"
#include "agents-manifest-entry-private.h"
#include "agents-manifest-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-workspace-path-policy-private.h"

/**
 * AgentsManifest:
 *
 * A manifest describes a workspace: its root, the entries materialized
 * into it (files, directories, copies of local files and directories, git
 * checkouts, remote mounts), its environment, the accounts to provision
 * and the host paths outside the root that the session may reach.
 *
 * Entry paths are relative to the root and never escape it. Manifests
 * round-trip through the reference's JSON:
 *
 * ```json
 * {"version": 1, "root": "/workspace", "entries": {"README.md": {…}},
 *  "environment": {}, "users": [], "groups": [], "extra_path_grants": [],
 *  "remote_mount_command_allowlist": ["ls", …]}
 * ```
 */

#define MANIFEST_VERSION 1

struct _AgentsManifest
{
  GObject parent_instance;

  int version;
  char *root;
  GPtrArray *entry_paths; /* insertion order */
  GHashTable *entries;    /* path → AgentsManifestEntry */
  GPtrArray *env_names;   /* insertion order */
  GHashTable *env;        /* name → EnvSlot */
  GPtrArray *users;
  GPtrArray *groups;
  GPtrArray *grants;
  GStrv allowlist;
};

G_DEFINE_FINAL_TYPE (AgentsManifest, agents_manifest, G_TYPE_OBJECT)

/* A variable is a plain string or a typed value (never both). */
typedef struct
{
  char *plain;
  AgentsEnvValue *value;
} EnvSlot;

static void
env_slot_free (gpointer data)
{
  EnvSlot *slot = data;

  g_free (slot->plain);
  g_clear_object (&slot->value);
  g_free (slot);
}

static gboolean
env_slot_equal (const EnvSlot *a, const EnvSlot *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  return g_strcmp0 (a->plain, b->plain) == 0 &&
         agents_env_value_equal (a->value, b->value);
}

enum
{
  PROP_0,
  PROP_VERSION,
  PROP_ROOT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* The reference's DEFAULT_REMOTE_MOUNT_COMMAND_ALLOWLIST, in its order. */
static const char *const default_allowlist[] = {
  "ls", "find", "stat", "cat", "less", "head", "tail",  "du", "grep", "rg",
  "wc", "sort", "cut",  "cp",  "tee",  "echo", "mkdir", "rm", NULL,
};

static void
agents_manifest_finalize (GObject *object)
{
  AgentsManifest *self = AGENTS_MANIFEST (object);

  g_free (self->root);
  g_ptr_array_unref (self->entry_paths);
  g_hash_table_unref (self->entries);
  g_ptr_array_unref (self->env_names);
  g_hash_table_unref (self->env);
  g_ptr_array_unref (self->users);
  g_ptr_array_unref (self->groups);
  g_ptr_array_unref (self->grants);
  g_strfreev (self->allowlist);

  G_OBJECT_CLASS (agents_manifest_parent_class)->finalize (object);
}

static void
agents_manifest_get_property (GObject *object,
                              guint prop_id,
                              GValue *value,
                              GParamSpec *pspec)
{
  AgentsManifest *self = AGENTS_MANIFEST (object);

  switch (prop_id)
    {
    case PROP_VERSION:
      g_value_set_int (value, self->version);
      break;
    case PROP_ROOT:
      g_value_set_string (value, self->root);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_manifest_set_property (GObject *object,
                              guint prop_id,
                              const GValue *value,
                              GParamSpec *pspec)
{
  AgentsManifest *self = AGENTS_MANIFEST (object);

  switch (prop_id)
    {
    case PROP_ROOT:
      agents_manifest_set_root (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_manifest_class_init (AgentsManifestClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = agents_manifest_finalize;
  object_class->get_property = agents_manifest_get_property;
  object_class->set_property = agents_manifest_set_property;

  /**
   * AgentsManifest:version:
   *
   * The version of the manifest format.
   */
  properties[PROP_VERSION] =
    g_param_spec_int ("version", NULL, NULL, 0, G_MAXINT, MANIFEST_VERSION,
                      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * AgentsManifest:root:
   *
   * The absolute path of the workspace root.
   */
  properties[PROP_ROOT] = g_param_spec_string (
    "root", NULL, NULL, AGENTS_MANIFEST_DEFAULT_ROOT,
    G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
agents_manifest_init (AgentsManifest *self)
{
  self->version = MANIFEST_VERSION;
  self->root = g_strdup (AGENTS_MANIFEST_DEFAULT_ROOT);
  self->entry_paths = g_ptr_array_new_with_free_func (g_free);
  self->entries =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  self->env_names = g_ptr_array_new_with_free_func (g_free);
  self->env =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, env_slot_free);
  self->users = g_ptr_array_new_with_free_func (g_object_unref);
  self->groups = g_ptr_array_new_with_free_func (g_object_unref);
  self->grants = g_ptr_array_new_with_free_func (g_object_unref);
  self->allowlist = g_strdupv ((char **) default_allowlist);
}

/**
 * agents_manifest_new:
 *
 * Creates an empty manifest rooted at %AGENTS_MANIFEST_DEFAULT_ROOT.
 *
 * Returns: (transfer full): a new #AgentsManifest
 */
AgentsManifest *
agents_manifest_new (void)
{
  return g_object_new (AGENTS_TYPE_MANIFEST, NULL);
}

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

/* ---- change tracking ------------------------------------------------- */

static gsize change_generation = 1; /* atomic */

void
agents_manifest_private_changed (void)
{
  g_atomic_pointer_add (&change_generation, 1);
}

gsize
agents_manifest_private_get_generation (void)
{
  return (gsize) g_atomic_pointer_get (&change_generation);
}

/* ---- root and version ------------------------------------------------ */

/**
 * agents_manifest_get_version:
 * @self: an #AgentsManifest
 *
 * Gets the version of the manifest format, currently 1.
 *
 * Returns: the version
 */
int
agents_manifest_get_version (AgentsManifest *self)
{
  g_return_val_if_fail (AGENTS_IS_MANIFEST (self), 0);

  return self->version;
}

/**
 * agents_manifest_get_root:
 * @self: an #AgentsManifest
 *
 * Gets the workspace root.
 *
 * Returns: (type filename): the absolute root path
 */
const char *
agents_manifest_get_root (AgentsManifest *self)
{
  g_return_val_if_fail (AGENTS_IS_MANIFEST (self), NULL);

  return self->root;
}

/**
 * agents_manifest_set_root:
 * @self: an #AgentsManifest
 * @root: (type filename): the absolute root path
 *
 * Sets the workspace root.
 */
void
agents_manifest_set_root (AgentsManifest *self, const char *root)
{
  g_return_if_fail (AGENTS_IS_MANIFEST (self));
  g_return_if_fail (root != NULL && g_path_is_absolute (root));

  if (g_strcmp0 (self->root, root) == 0)
    return;
  g_free (self->root);
  self->root = g_strdup (root);
  agents_manifest_private_changed ();
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ROOT]);
}

/* ---- entries --------------------------------------------------------- */

/* Removes @key from an ordered key list. */
static void
remove_ordered_key (GPtrArray *keys, const char *key)
{
  for (guint i = 0; i < keys->len; i++)
    if (g_str_equal (keys->pdata[i], key))
      {
        g_ptr_array_remove_index (keys, i);
        return;
      }
}

/**
 * agents_manifest_set_entry:
 * @self: an #AgentsManifest
 * @path: a relative path, see agents_manifest_validate_relative_path()
 * @entry: the entry materialized at @path
 *
 * Adds @entry at @path, or replaces the entry already there (keeping its
 * place in the order).
 */
void
agents_manifest_set_entry (AgentsManifest *self,
                           const char *path,
                           AgentsManifestEntry *entry)
{
  g_return_if_fail (AGENTS_IS_MANIFEST (self));
  g_return_if_fail (path != NULL);
  g_return_if_fail (agents_manifest_validate_relative_path (path, NULL));
  g_return_if_fail (AGENTS_IS_MANIFEST_ENTRY (entry));

  if (!g_hash_table_contains (self->entries, path))
    g_ptr_array_add (self->entry_paths, g_strdup (path));
  g_hash_table_replace (self->entries, g_strdup (path), g_object_ref (entry));
  agents_manifest_private_changed ();
}

/**
 * agents_manifest_get_entry:
 * @self: an #AgentsManifest
 * @path: a relative path
 *
 * Gets the entry at @path.
 *
 * Returns: (transfer none) (nullable): the entry
 */
AgentsManifestEntry *
agents_manifest_get_entry (AgentsManifest *self, const char *path)
{
  g_return_val_if_fail (AGENTS_IS_MANIFEST (self), NULL);
  g_return_val_if_fail (path != NULL, NULL);

  return g_hash_table_lookup (self->entries, path);
}

/**
 * agents_manifest_remove_entry:
 * @self: an #AgentsManifest
 * @path: a relative path
 *
 * Removes the entry at @path.
 *
 * Returns: whether there was one
 */
gboolean
agents_manifest_remove_entry (AgentsManifest *self, const char *path)
{
  g_return_val_if_fail (AGENTS_IS_MANIFEST (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  if (!g_hash_table_remove (self->entries, path))
    return FALSE;
  remove_ordered_key (self->entry_paths, path);
  agents_manifest_private_changed ();
  return TRUE;
}

static char **
dup_keys (GPtrArray *keys)
{
  char **strv = g_new0 (char *, keys->len + 1);

  for (guint i = 0; i < keys->len; i++)
    strv[i] = g_strdup (keys->pdata[i]);
  return strv;
}

/**
 * agents_manifest_get_entry_paths:
 * @self: an #AgentsManifest
 *
 * Lists the entry paths in insertion order.
 *
 * Returns: (transfer full) (array zero-terminated=1): the paths
 */
char **
agents_manifest_get_entry_paths (AgentsManifest *self)
{
  g_return_val_if_fail (AGENTS_IS_MANIFEST (self), NULL);

  return dup_keys (self->entry_paths);
}

/**
 * agents_manifest_get_n_entries:
 * @self: an #AgentsManifest
 *
 * Counts the top-level entries.
 *
 * Returns: the number of entries
 */
guint
agents_manifest_get_n_entries (AgentsManifest *self)
{
  g_return_val_if_fail (AGENTS_IS_MANIFEST (self), 0);

  return self->entry_paths->len;
}

/* ---- environment ----------------------------------------------------- */

static void
set_env_slot (AgentsManifest *self, const char *name, EnvSlot *slot)
{
  if (slot == NULL)
    {
      if (g_hash_table_remove (self->env, name))
        remove_ordered_key (self->env_names, name);
      return;
    }
  if (!g_hash_table_contains (self->env, name))
    g_ptr_array_add (self->env_names, g_strdup (name));
  g_hash_table_replace (self->env, g_strdup (name), slot);
}

/**
 * agents_manifest_set_env:
 * @self: an #AgentsManifest
 * @name: a variable name
 * @value: (nullable): its value, or %NULL to remove it
 *
 * Sets the environment variable @name of the workspace to a plain
 * string, or removes it.
 */
void
agents_manifest_set_env (AgentsManifest *self,
                         const char *name,
                         const char *value)
{
  EnvSlot *slot = NULL;

  g_return_if_fail (AGENTS_IS_MANIFEST (self));
  g_return_if_fail (name != NULL && *name != '\0' && !strchr (name, '='));

  if (value != NULL)
    {
      slot = g_new0 (EnvSlot, 1);
      slot->plain = g_strdup (value);
    }
  set_env_slot (self, name, slot);
}

/**
 * agents_manifest_set_env_value:
 * @self: an #AgentsManifest
 * @name: a variable name
 * @value: (nullable): a typed value, or %NULL to remove the variable
 *
 * Sets the environment variable @name of the workspace to a typed
 * value, found when the environment is resolved (see
 * agents_manifest_resolve_environment_async()). The value is shared,
 * not copied, by copies of the manifest.
 */
void
agents_manifest_set_env_value (AgentsManifest *self,
                               const char *name,
                               AgentsEnvValue *value)
{
  EnvSlot *slot = NULL;

  g_return_if_fail (AGENTS_IS_MANIFEST (self));
  g_return_if_fail (name != NULL && *name != '\0' && !strchr (name, '='));
  g_return_if_fail (value == NULL || AGENTS_IS_ENV_VALUE (value));

  if (value != NULL)
    {
      slot = g_new0 (EnvSlot, 1);
      slot->value = g_object_ref (value);
    }
  set_env_slot (self, name, slot);
}

/**
 * agents_manifest_get_env_value:
 * @self: an #AgentsManifest
 * @name: a variable name
 *
 * Gets the typed value of an environment variable.
 *
 * Returns: (nullable) (transfer none): its value, or %NULL when the
 *   variable is a plain string or is not set
 */
AgentsEnvValue *
agents_manifest_get_env_value (AgentsManifest *self, const char *name)
{
  EnvSlot *slot;

  g_return_val_if_fail (AGENTS_IS_MANIFEST (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  slot = g_hash_table_lookup (self->env, name);
  return slot ? slot->value : NULL;
}

/**
 * agents_manifest_get_env:
 * @self: an #AgentsManifest
 * @name: a variable name
 *
 * Gets the text of an environment variable of the workspace that is
 * known without resolving: a plain string or a `str` value. Other typed
 * values need agents_manifest_resolve_environment_async().
 *
 * Returns: (nullable): its text
 */
const char *
agents_manifest_get_env (AgentsManifest *self, const char *name)
{
  EnvSlot *slot;

  g_return_val_if_fail (AGENTS_IS_MANIFEST (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  slot = g_hash_table_lookup (self->env, name);
  if (slot == NULL)
    return NULL;
  if (slot->plain != NULL)
    return slot->plain;
  if (AGENTS_IS_STR_ENV_VALUE (slot->value))
    return agents_str_env_value_get_value (AGENTS_STR_ENV_VALUE (slot->value));
  return NULL;
}

/**
 * agents_manifest_get_env_names:
 * @self: an #AgentsManifest
 *
 * Lists the environment variable names in insertion order.
 *
 * Returns: (transfer full) (array zero-terminated=1): the names
 */
char **
agents_manifest_get_env_names (AgentsManifest *self)
{
  g_return_val_if_fail (AGENTS_IS_MANIFEST (self), NULL);

  return dup_keys (self->env_names);
}

/* ---- accounts, grants, allowlist ------------------------------------ */

/**
 * agents_manifest_get_users:
 * @self: an #AgentsManifest
 *
 * Gets the users to provision.
 *
 * Returns: (transfer none) (element-type AgentsUser): the users
 */
GPtrArray *
agents_manifest_get_users (AgentsManifest *self)
{
  g_return_val_if_fail (AGENTS_IS_MANIFEST (self), NULL);

  return self->users;
}

/**
 * agents_manifest_add_user:
 * @self: an #AgentsManifest
 * @user: a user to provision
 *
 * Adds a user to provision.
 */
void
agents_manifest_add_user (AgentsManifest *self, AgentsUser *user)
{
  g_return_if_fail (AGENTS_IS_MANIFEST (self));
  g_return_if_fail (AGENTS_IS_USER (user));

  g_ptr_array_add (self->users, g_object_ref (user));
}

/**
 * agents_manifest_get_groups:
 * @self: an #AgentsManifest
 *
 * Gets the groups to provision.
 *
 * Returns: (transfer none) (element-type AgentsGroup): the groups
 */
GPtrArray *
agents_manifest_get_groups (AgentsManifest *self)
{
  g_return_val_if_fail (AGENTS_IS_MANIFEST (self), NULL);

  return self->groups;
}

/**
 * agents_manifest_add_group:
 * @self: an #AgentsManifest
 * @group: a group to provision
 *
 * Adds a group to provision.
 */
void
agents_manifest_add_group (AgentsManifest *self, AgentsGroup *group)
{
  g_return_if_fail (AGENTS_IS_MANIFEST (self));
  g_return_if_fail (AGENTS_IS_GROUP (group));

  g_ptr_array_add (self->groups, g_object_ref (group));
}

/**
 * agents_manifest_get_extra_path_grants:
 * @self: an #AgentsManifest
 *
 * Gets the host paths outside the root that the session may reach.
 *
 * Returns: (transfer none) (element-type AgentsSandboxPathGrant): the
 *   grants
 */
GPtrArray *
agents_manifest_get_extra_path_grants (AgentsManifest *self)
{
  g_return_val_if_fail (AGENTS_IS_MANIFEST (self), NULL);

  return self->grants;
}

/**
 * agents_manifest_add_extra_path_grant:
 * @self: an #AgentsManifest
 * @grant: a path grant
 *
 * Grants the session access to a path outside the root.
 */
void
agents_manifest_add_extra_path_grant (AgentsManifest *self,
                                      AgentsSandboxPathGrant *grant)
{
  g_return_if_fail (AGENTS_IS_MANIFEST (self));
  g_return_if_fail (AGENTS_IS_SANDBOX_PATH_GRANT (grant));

  g_ptr_array_add (self->grants, g_object_ref (grant));
}

/**
 * agents_manifest_get_remote_mount_command_allowlist:
 * @self: an #AgentsManifest
 *
 * Gets the commands that may be run on paths inside remote mounts.
 *
 * Returns: (transfer none) (array zero-terminated=1): the command names
 */
const char *const *
agents_manifest_get_remote_mount_command_allowlist (AgentsManifest *self)
{
  g_return_val_if_fail (AGENTS_IS_MANIFEST (self), NULL);

  return (const char *const *) self->allowlist;
}

/**
 * agents_manifest_set_remote_mount_command_allowlist:
 * @self: an #AgentsManifest
 * @commands: (array zero-terminated=1): the command names
 *
 * Sets the commands that may be run on paths inside remote mounts.
 */
void
agents_manifest_set_remote_mount_command_allowlist (AgentsManifest *self,
                                                    const char *const *commands)
{
  g_return_if_fail (AGENTS_IS_MANIFEST (self));
  g_return_if_fail (commands != NULL);

  g_strfreev (self->allowlist);
  self->allowlist = g_strdupv ((char **) commands);
  agents_manifest_private_changed ();
}

/**
 * agents_manifest_get_default_remote_mount_command_allowlist:
 *
 * Gets the default allowlist of commands for remote mounts, the
 * reference's: `ls`, `find`, `stat`, `cat`, `less`, `head`, `tail`, `du`,
 * `grep`, `rg`, `wc`, `sort`, `cut`, `cp`, `tee`, `echo`, `mkdir` and
 * `rm`.
 *
 * Returns: (transfer none) (array zero-terminated=1): the command names
 */
const char *const *
agents_manifest_get_default_remote_mount_command_allowlist (void)
{
  return default_allowlist;
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

/* ---- JSON ------------------------------------------------------------ */

static void
add_string_array (JsonBuilder *builder,
                  const char *member,
                  const char *const *strings)
{
  json_builder_set_member_name (builder, member);
  json_builder_begin_array (builder);
  for (guint i = 0; strings[i] != NULL; i++)
    json_builder_add_string_value (builder, strings[i]);
  json_builder_end_array (builder);
}

static void
add_object_array (JsonBuilder *builder,
                  const char *member,
                  GPtrArray *objects,
                  JsonNode *(*to_json) (gpointer))
{
  json_builder_set_member_name (builder, member);
  json_builder_begin_array (builder);
  for (guint i = 0; i < objects->len; i++)
    json_builder_add_value (builder, to_json (objects->pdata[i]));
  json_builder_end_array (builder);
}

/* A plain string as it is; a typed value as its JSON, inside
 * {"value": …, "description": …, "ephemeral": …} when it has either (an
 * environment entry of the reference). */
static void
add_env_slot (JsonBuilder *builder, const char *name, const EnvSlot *slot)
{
  const char *description;
  gboolean ephemeral;

  if (slot->plain != NULL)
    {
      agents_json_add_string (builder, name, slot->plain);
      return;
    }
  description = agents_env_value_get_description (slot->value);
  ephemeral = agents_env_value_get_ephemeral (slot->value);
  if (description == NULL && !ephemeral)
    {
      agents_json_add_node (builder, name,
                            agents_env_value_to_json (slot->value));
      return;
    }
  json_builder_set_member_name (builder, name);
  json_builder_begin_object (builder);
  agents_json_add_node (builder, "value",
                        agents_env_value_to_json (slot->value));
  agents_json_add_nullable_string (builder, "description", description);
  agents_json_add_boolean (builder, "ephemeral", ephemeral);
  json_builder_end_object (builder);
}

/**
 * agents_manifest_to_json:
 * @self: an #AgentsManifest
 *
 * Serializes @self in the reference's shape and member order.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
agents_manifest_to_json (AgentsManifest *self)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();

  g_return_val_if_fail (AGENTS_IS_MANIFEST (self), NULL);

  json_builder_begin_object (builder);
  agents_json_add_int (builder, "version", self->version);
  agents_json_add_string (builder, "root", self->root);

  json_builder_set_member_name (builder, "entries");
  json_builder_begin_object (builder);
  for (guint i = 0; i < self->entry_paths->len; i++)
    {
      const char *path = self->entry_paths->pdata[i];

      agents_json_add_node (builder, path,
                            agents_manifest_entry_to_json (
                              g_hash_table_lookup (self->entries, path)));
    }
  json_builder_end_object (builder);

  /* The reference's Environment model: {"value": {NAME: VALUE}}. */
  json_builder_set_member_name (builder, "environment");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "value");
  json_builder_begin_object (builder);
  for (guint i = 0; i < self->env_names->len; i++)
    {
      const char *name = self->env_names->pdata[i];

      add_env_slot (builder, name, g_hash_table_lookup (self->env, name));
    }
  json_builder_end_object (builder);
  json_builder_end_object (builder);

  add_object_array (builder, "users", self->users,
                    (gpointer) agents_user_to_json);
  add_object_array (builder, "groups", self->groups,
                    (gpointer) agents_group_to_json);
  add_object_array (builder, "extra_path_grants", self->grants,
                    (gpointer) agents_sandbox_path_grant_to_json);
  add_string_array (builder, "remote_mount_command_allowlist",
                    (const char *const *) self->allowlist);
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}

/**
 * agents_manifest_to_data:
 * @self: an #AgentsManifest
 * @length: (out) (optional): return location for the length
 *
 * Serializes @self as compact JSON text.
 *
 * Returns: (transfer full): the JSON text
 */
char *
agents_manifest_to_data (AgentsManifest *self, gsize *length)
{
  g_autoptr (JsonNode) node = NULL;
  char *data;

  g_return_val_if_fail (AGENTS_IS_MANIFEST (self), NULL);

  node = agents_manifest_to_json (self);
  data = json_to_string (node, FALSE);
  if (length != NULL)
    *length = strlen (data);
  return data;
}

static gboolean
read_header (AgentsManifest *self, JsonObject *object, GError **error)
{
  JsonNode *version = json_object_get_member (object, "version");
  const char *root = NULL;

  if (version != NULL && (!agents_json_holds (version, G_TYPE_INT64) ||
                          json_node_get_int (version) != MANIFEST_VERSION))
    {
      agents_json_set_error (error, "version", "unsupported_version",
                             _ ("unsupported manifest version (expected 1)"));
      return FALSE;
    }
  if (!agents_json_read_string (object, "root", FALSE, FALSE, &root, error))
    return FALSE;
  if (root == NULL)
    return TRUE;
  if (!g_path_is_absolute (root))
    {
      agents_json_set_error (error, "root", "not_absolute",
                             _ ("manifest root must be an absolute path: %s"),
                             root);
      return FALSE;
    }
  agents_manifest_set_root (self, root);
  return TRUE;
}

static gboolean
read_entries (AgentsManifest *self, JsonObject *object, GError **error)
{
  JsonNode *node;
  JsonObjectIter iter;
  const char *path;
  JsonNode *value;

  node = json_object_get_member (object, "entries");
  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      agents_json_set_error (
        error, "entries", "wrong_type",
        _ ("Artifact mapping must be a JSON object, got %s"),
        agents_typed_json_node_type_name (node));
      return FALSE;
    }

  json_object_iter_init_ordered (&iter, json_node_get_object (node));
  while (json_object_iter_next_ordered (&iter, &path, &value))
    {
      g_autoptr (AgentsManifestEntry) entry = NULL;

      if (!agents_manifest_validate_relative_path (path, error))
        return FALSE;
      if (!JSON_NODE_HOLDS_OBJECT (value))
        {
          g_autofree char *member = g_strconcat ("entries.", path, NULL);

          agents_json_set_error (
            error, member, "wrong_type",
            _ ("Artifact entry must be a JSON object, got %s"),
            agents_typed_json_node_type_name (value));
          return FALSE;
        }
      entry = agents_manifest_entry_new_from_json (value, error);
      if (entry == NULL)
        return FALSE;
      agents_manifest_set_entry (self, path, entry);
    }
  return TRUE;
}

/* A typed value {"type": …} of any registered type, or an entry
 * {"value": {"type": …}, "description": …, "ephemeral": …} around one.
 * An object that is neither is refused rather than guessed at. */
static AgentsEnvValue *
read_env_value (JsonObject *object, GError **error)
{
  g_autoptr (AgentsEnvValue) value = NULL;
  JsonNode *inner = json_object_get_member (object, "value");
  const char *description = NULL;
  gboolean ephemeral = FALSE;

  if (json_object_has_member (object, "type") || inner == NULL ||
      !JSON_NODE_HOLDS_OBJECT (inner))
    {
      g_autoptr (JsonNode) node = json_node_new (JSON_NODE_OBJECT);

      json_node_set_object (node, object);
      return agents_env_value_new_from_json (node, error);
    }
  if (!agents_json_read_string (object, "description", TRUE, FALSE,
                                &description, error) ||
      !agents_json_read_boolean (object, "ephemeral", &ephemeral, error))
    return NULL;
  value = agents_env_value_new_from_json (inner, error);
  if (value == NULL)
    return NULL;
  agents_env_value_set_description (value, description);
  agents_env_value_set_ephemeral (value, ephemeral);
  return g_steal_pointer (&value);
}

static gboolean
read_environment (AgentsManifest *self, JsonObject *object, GError **error)
{
  JsonObject *values;
  JsonNode *inner;
  JsonNode *node;
  JsonObjectIter iter;
  const char *name;
  JsonNode *value;

  if (!agents_json_read_container (object, "environment", JSON_NODE_OBJECT,
                                   &node, error))
    return FALSE;
  if (node == NULL)
    return TRUE;
  /* {"value": {…}} as the reference writes it; a flat object as older
   * versions of this library did. */
  values = json_node_get_object (node);
  if (json_object_get_size (values) == 1 &&
      (inner = json_object_get_member (values, "value")) != NULL &&
      JSON_NODE_HOLDS_OBJECT (inner))
    values = json_node_get_object (inner);

  json_object_iter_init_ordered (&iter, values);
  while (json_object_iter_next_ordered (&iter, &name, &value))
    {
      g_autofree char *member = g_strconcat ("environment.", name, NULL);

      if (*name == '\0' || strchr (name, '=') != NULL)
        {
          agents_json_set_error (error, member, "invalid_name",
                                 _ ("invalid environment variable name: %s"),
                                 name);
          return FALSE;
        }
      if (JSON_NODE_HOLDS_OBJECT (value))
        {
          g_autoptr (AgentsEnvValue) typed =
            read_env_value (json_node_get_object (value), error);

          if (typed == NULL)
            return FALSE;
          agents_manifest_set_env_value (self, name, typed);
          continue;
        }
      if (!agents_json_holds (value, G_TYPE_STRING))
        {
          agents_json_set_wrong_type (error, member,
                                      _ ("a string or a JSON object"));
          return FALSE;
        }
      agents_manifest_set_env (self, name, json_node_get_string (value));
    }
  return TRUE;
}

typedef gpointer (*FromJsonFunc) (JsonNode *node, GError **error);

static gboolean
read_object_array (JsonObject *object,
                   const char *member,
                   FromJsonFunc from_json,
                   GPtrArray *out,
                   GError **error)
{
  JsonNode *node;
  JsonArray *array;

  if (!agents_json_read_container (object, member, JSON_NODE_ARRAY, &node,
                                   error))
    return FALSE;
  if (node == NULL)
    return TRUE;

  array = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      gpointer item = from_json (json_array_get_element (array, i), error);

      if (item == NULL)
        return FALSE;
      g_ptr_array_add (out, item);
    }
  return TRUE;
}

static gboolean
read_allowlist (AgentsManifest *self, JsonObject *object, GError **error)
{
  const char *member = "remote_mount_command_allowlist";
  g_autoptr (GPtrArray) commands = g_ptr_array_new_with_free_func (g_free);
  JsonNode *node;
  JsonArray *array;

  if (!agents_json_read_container (object, member, JSON_NODE_ARRAY, &node,
                                   error))
    return FALSE;
  if (node == NULL)
    return TRUE;

  array = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *item = json_array_get_element (array, i);

      if (!agents_json_holds (item, G_TYPE_STRING))
        {
          agents_json_set_wrong_type (error, member, _ ("an array of strings"));
          return FALSE;
        }
      g_ptr_array_add (commands, g_strdup (json_node_get_string (item)));
    }
  g_ptr_array_add (commands, NULL);
  g_strfreev (self->allowlist);
  self->allowlist = (GStrv) g_ptr_array_steal (commands, NULL);
  return TRUE;
}

/**
 * agents_manifest_new_from_json:
 * @node: a JSON object node
 * @error: return location for a #GError
 *
 * Reads a manifest serialized by agents_manifest_to_json() (or by the
 * reference runtime). Missing members take their defaults. The document
 * is treated as hostile: wrong types are %AGENTS_SANDBOX_ERROR_INVALID_JSON
 * errors and entry paths that escape the root are
 * %AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH errors.
 *
 * Returns: (transfer full): the manifest, or %NULL with @error set
 */
AgentsManifest *
agents_manifest_new_from_json (JsonNode *node, GError **error)
{
  g_autoptr (AgentsManifest) self = agents_manifest_new ();
  JsonObject *object;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      agents_json_set_wrong_type (error, "manifest", _ ("an object"));
      return NULL;
    }
  object = json_node_get_object (node);

  if (!read_header (self, object, error) ||
      !read_entries (self, object, error) ||
      !read_environment (self, object, error) ||
      !read_object_array (object, "users",
                          (FromJsonFunc) agents_user_new_from_json, self->users,
                          error) ||
      !read_object_array (object, "groups",
                          (FromJsonFunc) agents_group_new_from_json,
                          self->groups, error) ||
      !read_object_array (
        object, "extra_path_grants",
        (FromJsonFunc) agents_sandbox_path_grant_new_from_json, self->grants,
        error) ||
      !read_allowlist (self, object, error))
    return NULL;

  return g_steal_pointer (&self);
}

/**
 * agents_manifest_new_from_data:
 * @json: JSON text
 * @length: the length of @json, or -1 if it is nul-terminated
 * @error: return location for a #GError
 *
 * Parses JSON text and reads a manifest from it, see
 * agents_manifest_new_from_json().
 *
 * Returns: (transfer full): the manifest, or %NULL with @error set
 */
AgentsManifest *
agents_manifest_new_from_data (const char *json, gssize length, GError **error)
{
  g_autoptr (JsonNode) root = NULL;

  g_return_val_if_fail (json != NULL, NULL);

  root = agents_json_parse_bounded (json, length, _ ("manifest"), error);
  if (root == NULL)
    return NULL;
  return agents_manifest_new_from_json (root, error);
}

/* ---- copy and equality ---------------------------------------------- */

static void
copy_objects (GPtrArray *src, GPtrArray *dest, gpointer (*copy) (gpointer))
{
  for (guint i = 0; i < src->len; i++)
    g_ptr_array_add (dest, copy (src->pdata[i]));
}

static gpointer
copy_user (gpointer user)
{
  return agents_user_new (agents_user_get_name (user));
}

AgentsGroup *
agents_manifest_copy_group (AgentsGroup *group)
{
  GPtrArray *users = agents_group_get_users (group);
  AgentsGroup *copy = agents_group_new (agents_group_get_name (group), NULL, 0);

  for (guint i = 0; i < users->len; i++)
    {
      g_autoptr (AgentsUser) user = copy_user (users->pdata[i]);

      agents_group_add_user (copy, user);
    }
  return copy;
}

static gpointer
copy_grant (gpointer grant)
{
  /* Grants are immutable (construct-only properties): sharing one is a
   * copy, and keeps its host_path, which rebuilding it lost. */
  return g_object_ref (grant);
}

/**
 * agents_manifest_copy:
 * @self: an #AgentsManifest
 *
 * Makes a deep copy of @self: changing the copy, its entries or its
 * accounts never changes @self.
 *
 * Returns: (transfer full): the copy
 */
AgentsManifest *
agents_manifest_copy (AgentsManifest *self)
{
  AgentsManifest *copy;

  g_return_val_if_fail (AGENTS_IS_MANIFEST (self), NULL);

  copy = agents_manifest_new ();
  copy->version = self->version;
  g_free (copy->root);
  copy->root = g_strdup (self->root);
  for (guint i = 0; i < self->entry_paths->len; i++)
    {
      const char *path = self->entry_paths->pdata[i];
      g_autoptr (AgentsManifestEntry) entry =
        agents_manifest_entry_copy (g_hash_table_lookup (self->entries, path));

      agents_manifest_set_entry (copy, path, entry);
    }
  for (guint i = 0; i < self->env_names->len; i++)
    {
      const char *name = self->env_names->pdata[i];
      const EnvSlot *slot = g_hash_table_lookup (self->env, name);

      if (slot->plain != NULL)
        agents_manifest_set_env (copy, name, slot->plain);
      else
        agents_manifest_set_env_value (copy, name, slot->value);
    }
  copy_objects (self->users, copy->users, copy_user);
  copy_objects (self->groups, copy->groups,
                (gpointer) agents_manifest_copy_group);
  copy_objects (self->grants, copy->grants, copy_grant);
  g_strfreev (copy->allowlist);
  copy->allowlist = g_strdupv (self->allowlist);
  agents_manifest_copy_mount_acknowledgements (self, copy);
  return copy;
}

static gboolean
objects_equal (GPtrArray *a,
               GPtrArray *b,
               gboolean (*equal) (gpointer, gpointer))
{
  if (a->len != b->len)
    return FALSE;
  for (guint i = 0; i < a->len; i++)
    if (!equal (a->pdata[i], b->pdata[i]))
      return FALSE;
  return TRUE;
}

static gboolean
env_equal (AgentsManifest *a, AgentsManifest *b)
{
  if (a->env_names->len != b->env_names->len)
    return FALSE;
  for (guint i = 0; i < a->env_names->len; i++)
    {
      const char *name = a->env_names->pdata[i];

      if (!env_slot_equal (g_hash_table_lookup (a->env, name),
                           g_hash_table_lookup (b->env, name)))
        return FALSE;
    }
  return TRUE;
}

/**
 * agents_manifest_entries_equal:
 * @a: an #AgentsManifest
 * @b: an #AgentsManifest
 *
 * Compares the entries of two manifests (as a mapping: order does not
 * matter).
 *
 * Returns: whether @a and @b have equal entries at the same paths
 */
gboolean
agents_manifest_entries_equal (AgentsManifest *a, AgentsManifest *b)
{
  g_return_val_if_fail (AGENTS_IS_MANIFEST (a), FALSE);
  g_return_val_if_fail (AGENTS_IS_MANIFEST (b), FALSE);

  if (a->entry_paths->len != b->entry_paths->len)
    return FALSE;
  for (guint i = 0; i < a->entry_paths->len; i++)
    {
      const char *path = a->entry_paths->pdata[i];
      AgentsManifestEntry *other = g_hash_table_lookup (b->entries, path);

      if (other == NULL || !agents_manifest_entry_equal (
                             g_hash_table_lookup (a->entries, path), other))
        return FALSE;
    }
  return TRUE;
}

/**
 * agents_manifest_equal:
 * @a: an #AgentsManifest
 * @b: an #AgentsManifest
 *
 * Compares two manifests by value: version, root, entries, environment,
 * accounts, grants and allowlist.
 *
 * Returns: whether @a and @b are equal
 */
gboolean
agents_manifest_equal (AgentsManifest *a, AgentsManifest *b)
{
  g_return_val_if_fail (AGENTS_IS_MANIFEST (a), FALSE);
  g_return_val_if_fail (AGENTS_IS_MANIFEST (b), FALSE);

  return a->version == b->version && g_str_equal (a->root, b->root) &&
         agents_manifest_entries_equal (a, b) && env_equal (a, b) &&
         objects_equal (a->users, b->users, (gpointer) agents_user_equal) &&
         objects_equal (a->groups, b->groups,
                        (gpointer) agents_group_equal_members) &&
         objects_equal (a->grants, b->grants,
                        (gpointer) agents_sandbox_path_grant_equal) &&
         g_strv_equal ((const char *const *) a->allowlist,
                       (const char *const *) b->allowlist);
}
