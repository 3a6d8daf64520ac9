/* agents-manifest.c - what a sandbox workspace is made of
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "agents-manifest-entry-private.h"
#include "agents-manifest-object-private.h"
#include "agents-manifest-private.h"

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

G_DEFINE_FINAL_TYPE (AgentsManifest, agents_manifest, G_TYPE_OBJECT)

static void
env_slot_free (gpointer data)
{
  EnvSlot *slot = data;

  g_free (slot->plain);
  g_clear_object (&slot->value);
  g_free (slot);
}

gboolean
agents_manifest_env_slot_equal (const EnvSlot *a, const EnvSlot *b)
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
