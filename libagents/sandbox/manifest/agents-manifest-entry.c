/* agents-manifest-entry.c - the abstract base of manifest entries
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-json-private.h"
#include "agents-manifest-entry-private.h"
#include "agents-manifest-private.h"
#include "agents-registry.h"
#include "agents-sandbox-error-private.h"
#include "agents-typed-json-private.h"
#include "agents-sandbox-types-private.h"

/* Directory entries nest; hostile JSON must not exhaust the stack. */
#define MAX_ENTRY_DEPTH 64

/* ---- MaterializedFile ------------------------------------------------ */

G_DEFINE_BOXED_TYPE (AgentsMaterializedFile,
                     agents_materialized_file,
                     agents_materialized_file_copy,
                     agents_materialized_file_free)

/**
 * agents_materialized_file_new:
 * @path: the absolute path of the file in the workspace
 * @sha256: (nullable): the hex SHA-256 of its content
 *
 * Creates a record of a written file.
 *
 * Returns: (transfer full): a new #AgentsMaterializedFile
 */
AgentsMaterializedFile *
agents_materialized_file_new (const char *path, const char *sha256)
{
  AgentsMaterializedFile *self;

  g_return_val_if_fail (path != NULL, NULL);

  self = g_new0 (AgentsMaterializedFile, 1);
  self->path = g_strdup (path);
  self->sha256 = g_strdup (sha256);
  return self;
}

/**
 * agents_materialized_file_copy:
 * @self: an #AgentsMaterializedFile
 *
 * Copies @self.
 *
 * Returns: (transfer full): a copy
 */
AgentsMaterializedFile *
agents_materialized_file_copy (const AgentsMaterializedFile *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return agents_materialized_file_new (self->path, self->sha256);
}

/**
 * agents_materialized_file_free:
 * @self: (nullable): an #AgentsMaterializedFile
 *
 * Frees @self.
 */
void
agents_materialized_file_free (AgentsMaterializedFile *self)
{
  if (self == NULL)
    return;
  g_free (self->path);
  g_free (self->sha256);
  g_free (self);
}

GPtrArray *
agents_materialized_array_new (void)
{
  return g_ptr_array_new_with_free_func (
    (GDestroyNotify) agents_materialized_file_free);
}

/* ---- EntryTarget ----------------------------------------------------- */

G_DEFINE_BOXED_TYPE (AgentsEntryTarget,
                     agents_entry_target,
                     agents_entry_target_copy,
                     agents_entry_target_free)

/**
 * agents_entry_target_new:
 * @path: where the entry lands
 * @entry: the entry
 *
 * Pairs an entry with its destination.
 *
 * Returns: (transfer full): a new #AgentsEntryTarget
 */
AgentsEntryTarget *
agents_entry_target_new (const char *path, AgentsManifestEntry *entry)
{
  AgentsEntryTarget *self;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (AGENTS_IS_MANIFEST_ENTRY (entry), NULL);

  self = g_new0 (AgentsEntryTarget, 1);
  self->path = g_strdup (path);
  self->entry = g_object_ref (entry);
  return self;
}

/**
 * agents_entry_target_copy:
 * @self: an #AgentsEntryTarget
 *
 * Copies @self; the entry is shared, not copied.
 *
 * Returns: (transfer full): a copy
 */
AgentsEntryTarget *
agents_entry_target_copy (const AgentsEntryTarget *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return agents_entry_target_new (self->path, self->entry);
}

/**
 * agents_entry_target_free:
 * @self: (nullable): an #AgentsEntryTarget
 *
 * Frees @self.
 */
void
agents_entry_target_free (AgentsEntryTarget *self)
{
  if (self == NULL)
    return;
  g_free (self->path);
  g_clear_object (&self->entry);
  g_free (self);
}

/* ---- ManifestEntry --------------------------------------------------- */

/**
 * AgentsManifestEntry:
 *
 * The abstract base of manifest entries: what to materialize at a path of
 * the workspace, with its description, permissions and group.
 *
 * Subclasses set the `type_name` of their class, implement the
 * serialization, copy and comparison of their own members and the
 * @apply vfunc, and register themselves with
 * agents_registry_register_entry_type().
 */
G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (AgentsManifestEntry,
                                     agents_manifest_entry,
                                     G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_DESCRIPTION,
  PROP_EPHEMERAL,
  PROP_GROUP,
  PROP_PERMISSIONS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static GPrivate entry_depth_key;

static void
agents_manifest_entry_finalize (GObject *object)
{
  AgentsManifestEntry *self = AGENTS_MANIFEST_ENTRY (object);
  AgentsManifestEntryPrivate *priv =
    agents_manifest_entry_get_instance_private (self);

  g_free (priv->description);
  g_clear_object (&priv->group);
  g_clear_pointer (&priv->permissions, agents_permissions_free);

  G_OBJECT_CLASS (agents_manifest_entry_parent_class)->finalize (object);
}

static void
agents_manifest_entry_get_property (GObject *object,
                                    guint prop_id,
                                    GValue *value,
                                    GParamSpec *pspec)
{
  AgentsManifestEntry *self = AGENTS_MANIFEST_ENTRY (object);
  AgentsManifestEntryPrivate *priv =
    agents_manifest_entry_get_instance_private (self);

  switch (prop_id)
    {
    case PROP_DESCRIPTION:
      g_value_set_string (value, priv->description);
      break;
    case PROP_EPHEMERAL:
      g_value_set_boolean (value, priv->ephemeral);
      break;
    case PROP_GROUP:
      g_value_set_object (value, priv->group);
      break;
    case PROP_PERMISSIONS:
      g_value_set_boxed (value, priv->permissions);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_manifest_entry_set_property (GObject *object,
                                    guint prop_id,
                                    const GValue *value,
                                    GParamSpec *pspec)
{
  AgentsManifestEntry *self = AGENTS_MANIFEST_ENTRY (object);

  switch (prop_id)
    {
    case PROP_DESCRIPTION:
      agents_manifest_entry_set_description (self, g_value_get_string (value));
      break;
    case PROP_EPHEMERAL:
      agents_manifest_entry_set_ephemeral (self, g_value_get_boolean (value));
      break;
    case PROP_GROUP:
      agents_manifest_entry_set_group (self, g_value_get_object (value));
      break;
    case PROP_PERMISSIONS:
      agents_manifest_entry_set_permissions (self, g_value_get_boxed (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_manifest_entry_real_apply (AgentsManifestEntry *self,
                                  AgentsSandboxSession *session,
                                  const char *dest,
                                  const char *base_dir,
                                  GTask *task)
{
  g_task_return_error (
    task, agents_sandbox_error_new (AGENTS_SANDBOX_ERROR_NOT_SUPPORTED, NULL,
                                    _ ("entry type %s cannot be applied"),
                                    G_OBJECT_TYPE_NAME (self)));
}

/* Every property change of an entry (of any subclass) is a change of the
 * manifests holding it. */
static void
agents_manifest_entry_notify (GObject *object, GParamSpec *pspec)
{
  agents_manifest_private_changed ();
}

static AgentsTypedJsonFamily entry_family;

static void
agents_manifest_entry_class_init (AgentsManifestEntryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  entry_family.base = G_TYPE_FROM_CLASS (klass);
  agents_typed_json_define_family (&entry_family);
  GParamFlags flags =
    G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->finalize = agents_manifest_entry_finalize;
  object_class->get_property = agents_manifest_entry_get_property;
  object_class->set_property = agents_manifest_entry_set_property;
  object_class->notify = agents_manifest_entry_notify;

  klass->apply = agents_manifest_entry_real_apply;

  /**
   * AgentsManifestEntry:description:
   *
   * What the entry is, shown to the model.
   */
  properties[PROP_DESCRIPTION] =
    g_param_spec_string ("description", NULL, NULL, NULL, flags);

  /**
   * AgentsManifestEntry:ephemeral:
   *
   * Whether the entry is left out of snapshots and materialized again on
   * every start.
   */
  properties[PROP_EPHEMERAL] =
    g_param_spec_boolean ("ephemeral", NULL, NULL, FALSE, flags);

  /**
   * AgentsManifestEntry:group:
   *
   * The group that should own the materialized files, if any.
   */
  properties[PROP_GROUP] =
    g_param_spec_object ("group", NULL, NULL, AGENTS_TYPE_GROUP, flags);

  /**
   * AgentsManifestEntry:permissions:
   *
   * The permissions of the materialized path: `rwxr-xr-x` until set
   * (the default of the reference's entries, not of a bare
   * agents_permissions_new()).
   */
  properties[PROP_PERMISSIONS] = g_param_spec_boxed (
    "permissions", NULL, NULL, AGENTS_TYPE_PERMISSIONS, flags);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
agents_manifest_entry_init (AgentsManifestEntry *self)
{
  AgentsManifestEntryPrivate *priv =
    agents_manifest_entry_get_instance_private (self);

  priv->permissions = agents_permissions_new_entry_default ();
}

static AgentsManifestEntryPrivate *
get_priv (AgentsManifestEntry *self)
{
  return agents_manifest_entry_get_instance_private (self);
}

AgentsManifestEntryPrivate *
agents_manifest_entry_get_private (AgentsManifestEntry *self)
{
  return get_priv (self);
}

char **
agents_manifest_entry_get_child_names (AgentsManifestEntry *self)
{
  AgentsManifestEntryClass *klass = AGENTS_MANIFEST_ENTRY_GET_CLASS (self);

  return klass->get_child_names ? klass->get_child_names (self) : NULL;
}

AgentsManifestEntry *
agents_manifest_entry_get_child (AgentsManifestEntry *self, const char *name)
{
  AgentsManifestEntryClass *klass = AGENTS_MANIFEST_ENTRY_GET_CLASS (self);

  return klass->get_child ? klass->get_child (self, name) : NULL;
}

/**
 * agents_manifest_entry_get_type_name:
 * @self: an #AgentsManifestEntry
 *
 * Gets the JSON `type` discriminator of the entry's class.
 *
 * Returns: the type name
 */
const char *
agents_manifest_entry_get_type_name (AgentsManifestEntry *self)
{
  g_return_val_if_fail (AGENTS_IS_MANIFEST_ENTRY (self), NULL);

  return AGENTS_MANIFEST_ENTRY_GET_CLASS (self)->type_name;
}

/**
 * agents_manifest_entry_is_mount:
 * @self: an #AgentsManifestEntry
 *
 * Checks whether the entry is a remote mount.
 *
 * Returns: whether @self is an #AgentsMount
 */
gboolean
agents_manifest_entry_is_mount (AgentsManifestEntry *self)
{
  g_return_val_if_fail (AGENTS_IS_MANIFEST_ENTRY (self), FALSE);

  return AGENTS_MANIFEST_ENTRY_GET_CLASS (self)->is_mount ||
         AGENTS_IS_MOUNT (self);
}

/**
 * agents_manifest_entry_get_description:
 * @self: an #AgentsManifestEntry
 *
 * Gets the description of the entry.
 *
 * Returns: (nullable): the description
 */
const char *
agents_manifest_entry_get_description (AgentsManifestEntry *self)
{
  g_return_val_if_fail (AGENTS_IS_MANIFEST_ENTRY (self), NULL);

  return get_priv (self)->description;
}

/**
 * agents_manifest_entry_set_description:
 * @self: an #AgentsManifestEntry
 * @description: (nullable): the description
 *
 * Sets the description of the entry.
 */
void
agents_manifest_entry_set_description (AgentsManifestEntry *self,
                                       const char *description)
{
  AgentsManifestEntryPrivate *priv;

  g_return_if_fail (AGENTS_IS_MANIFEST_ENTRY (self));

  priv = get_priv (self);
  if (g_strcmp0 (priv->description, description) == 0)
    return;
  g_free (priv->description);
  priv->description = g_strdup (description);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DESCRIPTION]);
}

/**
 * agents_manifest_entry_get_ephemeral:
 * @self: an #AgentsManifestEntry
 *
 * Gets whether the entry is ephemeral.
 *
 * Returns: whether the entry is ephemeral
 */
gboolean
agents_manifest_entry_get_ephemeral (AgentsManifestEntry *self)
{
  g_return_val_if_fail (AGENTS_IS_MANIFEST_ENTRY (self), FALSE);

  return get_priv (self)->ephemeral;
}

/**
 * agents_manifest_entry_set_ephemeral:
 * @self: an #AgentsManifestEntry
 * @ephemeral: whether the entry is ephemeral
 *
 * Sets whether the entry is left out of snapshots.
 */
void
agents_manifest_entry_set_ephemeral (AgentsManifestEntry *self,
                                     gboolean ephemeral)
{
  AgentsManifestEntryPrivate *priv;

  g_return_if_fail (AGENTS_IS_MANIFEST_ENTRY (self));

  priv = get_priv (self);
  ephemeral = !!ephemeral;
  if (priv->ephemeral == ephemeral)
    return;
  priv->ephemeral = ephemeral;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_EPHEMERAL]);
}

/**
 * agents_manifest_entry_get_group:
 * @self: an #AgentsManifestEntry
 *
 * Gets the group that should own the materialized files.
 *
 * Returns: (transfer none) (nullable): the group
 */
AgentsGroup *
agents_manifest_entry_get_group (AgentsManifestEntry *self)
{
  g_return_val_if_fail (AGENTS_IS_MANIFEST_ENTRY (self), NULL);

  return get_priv (self)->group;
}

/**
 * agents_manifest_entry_set_group:
 * @self: an #AgentsManifestEntry
 * @group: (nullable): the group
 *
 * Sets the group that should own the materialized files.
 */
void
agents_manifest_entry_set_group (AgentsManifestEntry *self, AgentsGroup *group)
{
  g_return_if_fail (AGENTS_IS_MANIFEST_ENTRY (self));
  g_return_if_fail (group == NULL || AGENTS_IS_GROUP (group));

  if (g_set_object (&get_priv (self)->group, group))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_GROUP]);
}

/**
 * agents_manifest_entry_get_permissions:
 * @self: an #AgentsManifestEntry
 *
 * Gets the permissions of the materialized path.
 *
 * Returns: (transfer none): the permissions
 */
const AgentsPermissions *
agents_manifest_entry_get_permissions (AgentsManifestEntry *self)
{
  g_return_val_if_fail (AGENTS_IS_MANIFEST_ENTRY (self), NULL);

  return get_priv (self)->permissions;
}

/**
 * agents_manifest_entry_set_permissions:
 * @self: an #AgentsManifestEntry
 * @permissions: (nullable): the permissions, %NULL for the default
 *
 * Sets the permissions of the materialized path.
 */
void
agents_manifest_entry_set_permissions (AgentsManifestEntry *self,
                                       const AgentsPermissions *permissions)
{
  AgentsManifestEntryPrivate *priv;
  g_autoptr (AgentsPermissions) fallback = NULL;

  g_return_if_fail (AGENTS_IS_MANIFEST_ENTRY (self));

  priv = get_priv (self);
  if (permissions == NULL)
    permissions = fallback = agents_permissions_new_entry_default ();
  if (agents_permissions_equal (priv->permissions, permissions))
    return;
  agents_permissions_free (priv->permissions);
  priv->permissions = agents_permissions_copy (permissions);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PERMISSIONS]);
}

/* ---- JSON of an entry ------------------------------------------------ */

static void
write_entry_fields (GObject *object, JsonBuilder *builder)
{
  AgentsManifestEntry *self = AGENTS_MANIFEST_ENTRY (object);
  AgentsManifestEntryClass *klass = AGENTS_MANIFEST_ENTRY_GET_CLASS (self);
  AgentsManifestEntryPrivate *priv = get_priv (self);

  agents_json_add_nullable_string (builder, "description", priv->description);
  agents_json_add_boolean (builder, "ephemeral", priv->ephemeral);
  agents_json_add_node (
    builder, "group", priv->group ? agents_group_to_json (priv->group) : NULL);
  agents_json_add_node (builder, "permissions",
                        agents_permissions_to_json (priv->permissions));
  if (AGENTS_IS_MOUNT (self))
    agents_mount_serialize_common (AGENTS_MOUNT (self), builder);

  if (klass->serialize_fields != NULL)
    klass->serialize_fields (self, builder);
}

/**
 * agents_manifest_entry_to_json:
 * @self: an #AgentsManifestEntry
 *
 * Serializes @self in the reference's shape: `type`, `description`,
 * `ephemeral`, `group` and `permissions`, then the members of its class
 * (see #AgentsTypedJson).
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
agents_manifest_entry_to_json (AgentsManifestEntry *self)
{
  g_return_val_if_fail (AGENTS_IS_MANIFEST_ENTRY (self), NULL);

  return agents_typed_json_to_json (AGENTS_TYPE_MANIFEST_ENTRY,
                                    G_OBJECT (self));
}

static gboolean
read_base_fields (AgentsManifestEntry *self, JsonObject *object, GError **error)
{
  const char *description = NULL;
  gboolean ephemeral = agents_manifest_entry_get_ephemeral (self);
  JsonNode *group = json_object_get_member (object, "group");
  JsonNode *permissions;

  if (!agents_json_read_string (object, "description", TRUE, FALSE,
                                &description, error) ||
      !agents_json_read_boolean (object, "ephemeral", &ephemeral, error))
    return FALSE;
  agents_manifest_entry_set_description (self, description);
  agents_manifest_entry_set_ephemeral (self, ephemeral);

  if (group != NULL && !JSON_NODE_HOLDS_NULL (group))
    {
      g_autoptr (AgentsGroup) parsed =
        agents_group_new_from_json (group, error);

      if (parsed == NULL)
        return FALSE;
      agents_manifest_entry_set_group (self, parsed);
    }

  if (!agents_json_read_container (object, "permissions", JSON_NODE_OBJECT,
                                   &permissions, error))
    return FALSE;
  if (permissions != NULL)
    {
      g_autoptr (AgentsPermissions) parsed = NULL;
      JsonObject *perm_object;

      parsed = agents_permissions_new_from_json (permissions, error);
      if (parsed == NULL)
        return FALSE;
      /* A missing "directory" keeps the class's default. */
      perm_object = json_node_get_object (permissions);
      if (!json_object_has_member (perm_object, "directory"))
        parsed->directory = get_priv (self)->permissions->directory;
      agents_manifest_entry_set_permissions (self, parsed);
    }
  return TRUE;
}

static gboolean
read_entry_fields (GObject *object, JsonObject *json, GError **error)
{
  AgentsManifestEntry *self = AGENTS_MANIFEST_ENTRY (object);
  AgentsManifestEntryClass *klass = AGENTS_MANIFEST_ENTRY_GET_CLASS (self);

  if (!read_base_fields (self, json, error))
    return FALSE;
  if (AGENTS_IS_MOUNT (self) &&
      !agents_mount_deserialize_common (AGENTS_MOUNT (self), json, error))
    return FALSE;
  return klass->deserialize_fields == NULL ||
         klass->deserialize_fields (self, json, error);
}

/* The reference's texts (entries/base.py, BaseEntry.parse). */
static char *
unknown_entry_type_message (const char *type_name, const char *known)
{
  return g_strdup_printf (
    _ ("Unknown artifact type `%s`. Registered types: %s"), type_name, known);
}

static char *
missing_entry_type_message (void)
{
  return g_strdup (
    _ ("Artifact entry mapping must include a string `type` field"));
}

static char *
entry_not_object_message (const char *json_type)
{
  return g_strdup_printf (_ ("Artifact entry must be a JSON object, got %s"),
                          json_type);
}

static const char *
entry_type_name_of (GObject *self)
{
  const char *name = AGENTS_MANIFEST_ENTRY_GET_CLASS (self)->type_name;

  return name ? name
              : agents_typed_json_get_type_name (AGENTS_TYPE_MANIFEST_ENTRY,
                                                 G_OBJECT_TYPE (self));
}

/* Completed (its base) when the class is initialized. */
static AgentsTypedJsonFamily entry_family = {
  .label = N_ ("manifest entry type"),
  .member = "entry",
  .unknown_type_message = unknown_entry_type_message,
  .missing_type_message = missing_entry_type_message,
  .not_object_message = entry_not_object_message,
  .type_name_of = entry_type_name_of,
  .write_fields = write_entry_fields,
  .read_fields = read_entry_fields,
  .load_types = agents_registry_load_plugins,
};

/**
 * agents_manifest_entry_new_from_json:
 * @node: a JSON object node
 * @error: return location for a #GError
 *
 * Reads an entry serialized by agents_manifest_entry_to_json(). Its
 * `type` is looked up among the registered entry types (see
 * #AgentsTypedJson), so entry types of plugins are read as well.
 * Missing members take their defaults.
 *
 * Returns: (transfer full): the entry, or %NULL with @error set
 *   (%AGENTS_SANDBOX_ERROR_UNKNOWN_TYPE for an unknown type,
 *   %AGENTS_SANDBOX_ERROR_INVALID_JSON for a wrong shape)
 */
AgentsManifestEntry *
agents_manifest_entry_new_from_json (JsonNode *node, GError **error)
{
  AgentsManifestEntry *self;
  int depth = GPOINTER_TO_INT (g_private_get (&entry_depth_key));

  if (depth >= MAX_ENTRY_DEPTH)
    {
      agents_json_set_error (error, "children", "too_deep",
                             _ ("manifest entries are nested too deeply"));
      return NULL;
    }

  g_private_set (&entry_depth_key, GINT_TO_POINTER (depth + 1));
  self = AGENTS_MANIFEST_ENTRY (
    agents_typed_json_new_from_json (AGENTS_TYPE_MANIFEST_ENTRY, node, error));
  g_private_set (&entry_depth_key, GINT_TO_POINTER (depth));
  return self;
}

/* ---- copy and equality ----------------------------------------------- */

/**
 * agents_manifest_entry_copy:
 * @self: an #AgentsManifestEntry
 *
 * Makes a deep copy of @self (children of directories included).
 *
 * Returns: (transfer full): the copy
 */
AgentsManifestEntry *
agents_manifest_entry_copy (AgentsManifestEntry *self)
{
  AgentsManifestEntryClass *klass;
  AgentsManifestEntryPrivate *priv, *copy_priv;
  AgentsManifestEntry *copy;

  g_return_val_if_fail (AGENTS_IS_MANIFEST_ENTRY (self), NULL);

  klass = AGENTS_MANIFEST_ENTRY_GET_CLASS (self);
  priv = get_priv (self);
  copy = g_object_new (G_OBJECT_TYPE (self), NULL);
  copy_priv = get_priv (copy);

  copy_priv->description = g_strdup (priv->description);
  copy_priv->ephemeral = priv->ephemeral;
  copy_priv->group =
    priv->group ? agents_manifest_copy_group (priv->group) : NULL;
  agents_permissions_free (copy_priv->permissions);
  copy_priv->permissions = agents_permissions_copy (priv->permissions);

  if (AGENTS_IS_MOUNT (self))
    agents_mount_copy_common (AGENTS_MOUNT (self), AGENTS_MOUNT (copy));

  if (klass->copy_fields != NULL)
    klass->copy_fields (self, copy);
  return copy;
}

/**
 * agents_manifest_entry_equal:
 * @a: (nullable): an #AgentsManifestEntry
 * @b: (nullable): an #AgentsManifestEntry
 *
 * Compares two entries by value: same class, same base members, same
 * members of the class (children of directories included).
 *
 * Returns: whether @a and @b are equal
 */
gboolean
agents_manifest_entry_equal (AgentsManifestEntry *a, AgentsManifestEntry *b)
{
  AgentsManifestEntryPrivate *pa, *pb;
  AgentsManifestEntryClass *klass;

  if (a == NULL || b == NULL)
    return a == b;
  g_return_val_if_fail (AGENTS_IS_MANIFEST_ENTRY (a), FALSE);
  g_return_val_if_fail (AGENTS_IS_MANIFEST_ENTRY (b), FALSE);

  if (a == b)
    return TRUE;
  if (G_OBJECT_TYPE (a) != G_OBJECT_TYPE (b))
    return FALSE;

  pa = get_priv (a);
  pb = get_priv (b);
  klass = AGENTS_MANIFEST_ENTRY_GET_CLASS (a);
  return g_strcmp0 (pa->description, pb->description) == 0 &&
         pa->ephemeral == pb->ephemeral &&
         agents_group_equal_members (pa->group, pb->group) &&
         agents_permissions_equal (pa->permissions, pb->permissions) &&
         (!AGENTS_IS_MOUNT (a) ||
          agents_mount_equal_common (AGENTS_MOUNT (a), AGENTS_MOUNT (b))) &&
         (klass->equal_fields == NULL || klass->equal_fields (a, b));
}

/* ---- materializing, through the class (the code that drives the
 * session lives in entries/) ------------------------------------------ */

/**
 * agents_manifest_entry_apply_async:
 * @self: an #AgentsManifestEntry
 * @session: the session to materialize into
 * @dest: (type filename): the absolute destination in the workspace
 * @base_dir: (type filename) (nullable): the directory relative local
 *   sources are resolved against, and which they must stay inside;
 *   %NULL for the current directory
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the entry is materialized
 * @user_data: data for @callback
 *
 * Materializes the entry at @dest through the session's public
 * operations. The task is handed to the class's @apply vfunc, which
 * does not own it and keeps a reference if it completes it later.
 */
void
agents_manifest_entry_apply_async (AgentsManifestEntry *self,
                                   AgentsSandboxSession *session,
                                   const char *dest,
                                   const char *base_dir,
                                   GCancellable *cancellable,
                                   GAsyncReadyCallback callback,
                                   gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_MANIFEST_ENTRY (self));
  g_return_if_fail (G_IS_OBJECT (session));
  g_return_if_fail (dest != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_manifest_entry_apply_async);
  AGENTS_MANIFEST_ENTRY_GET_CLASS (self)->apply (self, session, dest, base_dir,
                                                 task);
}

/**
 * agents_manifest_entry_apply_finish:
 * @self: an #AgentsManifestEntry
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Finishes agents_manifest_entry_apply_async().
 *
 * Returns: (transfer container) (element-type AgentsMaterializedFile): the
 *   files written (the array frees them), or %NULL with @error set
 */
GPtrArray *
agents_manifest_entry_apply_finish (AgentsManifestEntry *self,
                                    GAsyncResult *result,
                                    GError **error)
{
  g_return_val_if_fail (AGENTS_IS_MANIFEST_ENTRY (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
