/* agents-manifest-entry.c - entries of a sandbox manifest
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "agents-manifest-entry.h"
#include "agents-manifest.h"
#include "agents-registry.h"
#include "agents-sandbox-error-private.h"
#include "agents-sandbox-session.h"

/* Directory entries nest; hostile JSON must not exhaust the stack. */
#define MAX_ENTRY_DEPTH 64

/* ---- JSON helpers ---------------------------------------------------- */

static void
set_json_error (GError **error,
                const char *member,
                const char *reason,
                const char *message)
{
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  g_variant_builder_add (&ctx, "{sv}", "member", g_variant_new_string (member));
  g_variant_builder_add (&ctx, "{sv}", "reason", g_variant_new_string (reason));
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_JSON,
                            g_variant_builder_end (&ctx), "%s", message);
}

static void
set_wrong_type (GError **error, const char *member, const char *expected)
{
  g_autofree char *message =
    g_strdup_printf (_ ("JSON member “%s” must be %s"), member, expected);

  set_json_error (error, member, "wrong_type", message);
}

static void
set_missing (GError **error, const char *member)
{
  g_autofree char *message =
    g_strdup_printf (_ ("missing JSON member “%s”"), member);

  set_json_error (error, member, "missing", message);
}

static gboolean
holds_type (JsonNode *node, GType type)
{
  return JSON_NODE_HOLDS_VALUE (node) &&
         json_node_get_value_type (node) == type;
}

/* Reads a string member; *out is left alone when it is absent. */
static gboolean
read_string (JsonObject *object,
             const char *member,
             gboolean nullable,
             gboolean required,
             const char **out,
             GError **error)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL)
    {
      if (required)
        set_missing (error, member);
      return !required;
    }
  if (nullable && JSON_NODE_HOLDS_NULL (node))
    {
      *out = NULL;
      return TRUE;
    }
  if (!holds_type (node, G_TYPE_STRING))
    {
      set_wrong_type (error, member,
                      nullable ? _ ("a string or null") : _ ("a string"));
      return FALSE;
    }
  *out = json_node_get_string (node);
  return TRUE;
}

static gboolean
read_boolean (JsonObject *object,
              const char *member,
              gboolean *out,
              GError **error)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL)
    return TRUE;
  if (!holds_type (node, G_TYPE_BOOLEAN))
    {
      set_wrong_type (error, member, _ ("a boolean"));
      return FALSE;
    }
  *out = json_node_get_boolean (node);
  return TRUE;
}

static void
add_nullable_string (JsonBuilder *builder,
                     const char *member,
                     const char *value)
{
  json_builder_set_member_name (builder, member);
  if (value != NULL)
    json_builder_add_string_value (builder, value);
  else
    json_builder_add_null_value (builder);
}

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

static GPtrArray *
materialized_array_new (void)
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
typedef struct
{
  char *description;
  gboolean ephemeral;
  AgentsGroup *group;
  AgentsPermissions *permissions;
} AgentsManifestEntryPrivate;

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

static void
agents_manifest_entry_class_init (AgentsManifestEntryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags =
    G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->finalize = agents_manifest_entry_finalize;
  object_class->get_property = agents_manifest_entry_get_property;
  object_class->set_property = agents_manifest_entry_set_property;

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
   * The permissions of the materialized path.
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

  priv->permissions = agents_permissions_new ();
}

static AgentsManifestEntryPrivate *
get_priv (AgentsManifestEntry *self)
{
  return agents_manifest_entry_get_instance_private (self);
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
    permissions = fallback = agents_permissions_new ();
  if (agents_permissions_equal (priv->permissions, permissions))
    return;
  agents_permissions_free (priv->permissions);
  priv->permissions = agents_permissions_copy (permissions);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PERMISSIONS]);
}

/* ---- Mount private data (needed by the base's JSON code) ------------- */

typedef struct
{
  char *mount_path;
  gboolean read_only;
} AgentsMountPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (AgentsMount,
                                     agents_mount,
                                     AGENTS_TYPE_MANIFEST_ENTRY)

static AgentsMountPrivate *
get_mount_priv (AgentsMount *self)
{
  return agents_mount_get_instance_private (self);
}

/* ---- JSON of an entry ------------------------------------------------ */

/**
 * agents_manifest_entry_to_json:
 * @self: an #AgentsManifestEntry
 *
 * Serializes @self in the reference's shape: `type`, `description`,
 * `ephemeral`, `group` and `permissions`, then the members of its class.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
agents_manifest_entry_to_json (AgentsManifestEntry *self)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  AgentsManifestEntryClass *klass;
  AgentsManifestEntryPrivate *priv;

  g_return_val_if_fail (AGENTS_IS_MANIFEST_ENTRY (self), NULL);

  klass = AGENTS_MANIFEST_ENTRY_GET_CLASS (self);
  priv = get_priv (self);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder,
                                 klass->type_name ? klass->type_name : "");
  add_nullable_string (builder, "description", priv->description);
  json_builder_set_member_name (builder, "ephemeral");
  json_builder_add_boolean_value (builder, priv->ephemeral);
  json_builder_set_member_name (builder, "group");
  if (priv->group != NULL)
    json_builder_add_value (builder, agents_group_to_json (priv->group));
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "permissions");
  json_builder_add_value (builder,
                          agents_permissions_to_json (priv->permissions));

  if (AGENTS_IS_MOUNT (self))
    {
      AgentsMountPrivate *mpriv = get_mount_priv (AGENTS_MOUNT (self));

      add_nullable_string (builder, "mount_path", mpriv->mount_path);
      json_builder_set_member_name (builder, "read_only");
      json_builder_add_boolean_value (builder, mpriv->read_only);
    }

  if (klass->serialize_fields != NULL)
    klass->serialize_fields (self, builder);
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

static gboolean
read_base_fields (AgentsManifestEntry *self, JsonObject *object, GError **error)
{
  const char *description = NULL;
  gboolean ephemeral = agents_manifest_entry_get_ephemeral (self);
  JsonNode *group = json_object_get_member (object, "group");
  JsonNode *permissions = json_object_get_member (object, "permissions");

  if (!read_string (object, "description", TRUE, FALSE, &description, error) ||
      !read_boolean (object, "ephemeral", &ephemeral, error))
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

  if (permissions != NULL)
    {
      g_autoptr (AgentsPermissions) parsed = NULL;
      JsonObject *perm_object;

      if (!JSON_NODE_HOLDS_OBJECT (permissions))
        {
          set_wrong_type (error, "permissions", _ ("an object"));
          return FALSE;
        }
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
read_mount_fields (AgentsMount *self, JsonObject *object, GError **error)
{
  const char *mount_path = agents_mount_get_mount_path (self);
  gboolean read_only = agents_mount_get_read_only (self);

  if (!read_string (object, "mount_path", TRUE, FALSE, &mount_path, error) ||
      !read_boolean (object, "read_only", &read_only, error))
    return FALSE;
  if (mount_path != NULL &&
      !agents_manifest_validate_relative_path (mount_path, error))
    return FALSE;
  agents_mount_set_mount_path (self, mount_path);
  agents_mount_set_read_only (self, read_only);
  return TRUE;
}

static GType
lookup_entry_type (JsonObject *object, GError **error)
{
  const char *type_name = NULL;
  GType type;

  if (!read_string (object, "type", FALSE, TRUE, &type_name, error))
    return G_TYPE_INVALID;
  type =
    agents_registry_lookup (AGENTS_REGISTRY_KIND_ENTRY_TYPE, type_name, error);
  if (type == G_TYPE_INVALID)
    return G_TYPE_INVALID;
  if (!g_type_is_a (type, AGENTS_TYPE_MANIFEST_ENTRY) ||
      G_TYPE_IS_ABSTRACT (type))
    {
      g_autofree char *message =
        g_strdup_printf (_ ("entry type %s cannot be instantiated"), type_name);

      set_json_error (error, "type", "abstract_type", message);
      return G_TYPE_INVALID;
    }
  return type;
}

static AgentsManifestEntry *
entry_from_object (JsonObject *object, GError **error)
{
  g_autoptr (AgentsManifestEntry) self = NULL;
  AgentsManifestEntryClass *klass;
  GType type = lookup_entry_type (object, error);

  if (type == G_TYPE_INVALID)
    return NULL;

  self = g_object_new (type, NULL);
  klass = AGENTS_MANIFEST_ENTRY_GET_CLASS (self);
  if (!read_base_fields (self, object, error))
    return NULL;
  if (AGENTS_IS_MOUNT (self) &&
      !read_mount_fields (AGENTS_MOUNT (self), object, error))
    return NULL;
  if (klass->deserialize_fields != NULL &&
      !klass->deserialize_fields (self, object, error))
    return NULL;
  return g_steal_pointer (&self);
}

/**
 * agents_manifest_entry_new_from_json:
 * @node: a JSON object node
 * @error: return location for a #GError
 *
 * Reads an entry serialized by agents_manifest_entry_to_json(). Its
 * `type` is looked up in the registry, so entry types of plugins are
 * read as well. Missing members take their defaults.
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

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      set_wrong_type (error, "entry", _ ("an object"));
      return NULL;
    }
  if (depth >= MAX_ENTRY_DEPTH)
    {
      set_json_error (error, "children", "too_deep",
                      _ ("manifest entries are nested too deeply"));
      return NULL;
    }

  g_private_set (&entry_depth_key, GINT_TO_POINTER (depth + 1));
  self = entry_from_object (json_node_get_object (node), error);
  g_private_set (&entry_depth_key, GINT_TO_POINTER (depth));
  return self;
}

/* ---- copy and equality ----------------------------------------------- */

static AgentsGroup *
copy_group (AgentsGroup *group)
{
  g_autoptr (JsonNode) node = NULL;

  if (group == NULL)
    return NULL;
  node = agents_group_to_json (group);
  return agents_group_new_from_json (node, NULL);
}

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
  copy_priv->group = copy_group (priv->group);
  agents_permissions_free (copy_priv->permissions);
  copy_priv->permissions = agents_permissions_copy (priv->permissions);

  if (AGENTS_IS_MOUNT (self))
    {
      agents_mount_set_mount_path (
        AGENTS_MOUNT (copy), get_mount_priv (AGENTS_MOUNT (self))->mount_path);
      agents_mount_set_read_only (
        AGENTS_MOUNT (copy), get_mount_priv (AGENTS_MOUNT (self))->read_only);
    }

  if (klass->copy_fields != NULL)
    klass->copy_fields (self, copy);
  return copy;
}

static gboolean
mount_fields_equal (AgentsManifestEntry *a, AgentsManifestEntry *b)
{
  AgentsMountPrivate *ma, *mb;

  if (!AGENTS_IS_MOUNT (a))
    return TRUE;
  ma = get_mount_priv (AGENTS_MOUNT (a));
  mb = get_mount_priv (AGENTS_MOUNT (b));
  return g_strcmp0 (ma->mount_path, mb->mount_path) == 0 &&
         ma->read_only == mb->read_only;
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
         agents_group_equal (pa->group, pb->group) &&
         agents_permissions_equal (pa->permissions, pb->permissions) &&
         mount_fields_equal (a, b) &&
         (klass->equal_fields == NULL || klass->equal_fields (a, b));
}

/* ---- apply ----------------------------------------------------------- */

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
  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (session));
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
 * Returns: (transfer full) (element-type AgentsMaterializedFile): the
 *   files written, or %NULL with @error set
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

/* Common state of the apply state machines: the task is the caller's. */
typedef struct
{
  AgentsManifestEntry *entry;
  AgentsSandboxSession *session;
  char *dest;
  char *base_dir;
  GPtrArray *results;
  GPtrArray *commands; /* GStrv queue of the command runner */
  guint next;
} ApplyData;

static void
apply_data_free (ApplyData *data)
{
  g_clear_object (&data->entry);
  g_clear_object (&data->session);
  g_free (data->dest);
  g_free (data->base_dir);
  g_clear_pointer (&data->results, g_ptr_array_unref);
  g_clear_pointer (&data->commands, g_ptr_array_unref);
  g_free (data);
}

static ApplyData *
apply_data_new (AgentsManifestEntry *entry,
                AgentsSandboxSession *session,
                const char *dest,
                const char *base_dir,
                GTask *task)
{
  ApplyData *data = g_new0 (ApplyData, 1);

  data->entry = g_object_ref (entry);
  data->session = g_object_ref (session);
  data->dest = g_strdup (dest);
  data->base_dir = g_strdup (base_dir);
  data->results = materialized_array_new ();
  g_task_set_task_data (task, data, (GDestroyNotify) apply_data_free);
  return data;
}

static void
return_results (GTask *task)
{
  ApplyData *data = g_task_get_task_data (task);

  g_task_return_pointer (task, g_steal_pointer (&data->results),
                         (GDestroyNotify) g_ptr_array_unref);
}

/* Joins @name under @dir, collapsing `.` and repeated slashes. */
static char *
join_dest (const char *dir, const char *name)
{
  g_autofree char *joined = g_build_filename (dir, name, NULL);
  g_auto (GStrv) parts = g_strsplit (joined, "/", -1);
  GString *path = g_string_new (NULL);

  for (guint i = 0; parts[i] != NULL; i++)
    {
      if (*parts[i] == '\0' || g_str_equal (parts[i], "."))
        continue;
      g_string_append_c (path, '/');
      g_string_append (path, parts[i]);
    }
  if (path->len == 0)
    g_string_append_c (path, '/');
  return g_string_free (path, FALSE);
}

static char *
sha256_hex (GBytes *bytes)
{
  return g_compute_checksum_for_bytes (G_CHECKSUM_SHA256, bytes);
}

/* -- running commands -- */

typedef struct
{
  char **argv;
} ExecData;

static void
exec_data_free (ExecData *data)
{
  g_strfreev (data->argv);
  g_free (data);
}

static void
exec_checked_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  ExecData *data = g_task_get_task_data (task);
  g_autoptr (AgentsExecResult) exec_result = NULL;
  GError *error = NULL;

  exec_result = agents_sandbox_session_exec_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  if (exec_result == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  if (!agents_exec_result_ok (exec_result))
    {
      agents_sandbox_error_set_exec_nonzero (
        &error, (const char *const *) data->argv,
        agents_exec_result_get_exit_code (exec_result),
        agents_exec_result_get_stdout (exec_result),
        agents_exec_result_get_stderr (exec_result));
      g_task_return_error (task, error);
      return;
    }
  g_task_return_boolean (task, TRUE);
}

/* Runs @argv in the session; a non-zero exit is an EXEC_NONZERO error. */
static void
exec_checked_async (AgentsSandboxSession *session,
                    const char *const *argv,
                    GCancellable *cancellable,
                    GAsyncReadyCallback callback,
                    gpointer user_data)
{
  GTask *task = g_task_new (session, cancellable, callback, user_data);
  ExecData *data = g_new0 (ExecData, 1);

  data->argv = g_strdupv ((char **) argv);
  g_task_set_task_data (task, data, (GDestroyNotify) exec_data_free);
  agents_sandbox_session_exec_async (session, argv, 0, FALSE, NULL, cancellable,
                                     exec_checked_cb, task);
}

static gboolean
exec_checked_finish (GAsyncResult *result, GError **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* -- metadata: chmod and chgrp of a materialized path -- */

static gboolean
has_default_mode (AgentsManifestEntry *entry)
{
  g_autoptr (AgentsPermissions) defaults = agents_permissions_new ();

  return agents_permissions_to_mode (get_priv (entry)->permissions) ==
         agents_permissions_to_mode (defaults);
}

static GPtrArray *
metadata_commands (AgentsManifestEntry *entry, const char *dest)
{
  GPtrArray *commands =
    g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  AgentsGroup *group = get_priv (entry)->group;

  if (!has_default_mode (entry))
    {
      g_autofree char *mode = g_strdup_printf (
        "%o", agents_permissions_to_mode (get_priv (entry)->permissions));
      const char *argv[] = { "chmod", mode, dest, NULL };

      g_ptr_array_add (commands, g_strdupv ((char **) argv));
    }
  if (group != NULL)
    {
      const char *argv[] = { "chgrp", agents_group_get_name (group), dest,
                             NULL };

      g_ptr_array_add (commands, g_strdupv ((char **) argv));
    }
  return commands;
}

static void run_commands_step (GTask *task);

static void
run_commands_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;

  if (!exec_checked_finish (result, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  run_commands_step (g_steal_pointer (&task));
}

/* Runs the queued commands one after the other; takes a task reference. */
static void
run_commands_step (GTask *task)
{
  ApplyData *data = g_task_get_task_data (task);

  if (data->next >= data->commands->len)
    {
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }
  exec_checked_async (data->session, data->commands->pdata[data->next++],
                      g_task_get_cancellable (task), run_commands_cb, task);
}

/* Applies the permissions and group of @entry to @dest. */
static void
apply_metadata_async (AgentsManifestEntry *entry,
                      AgentsSandboxSession *session,
                      const char *dest,
                      GCancellable *cancellable,
                      GAsyncReadyCallback callback,
                      gpointer user_data)
{
  GTask *task = g_task_new (entry, cancellable, callback, user_data);
  ApplyData *data = apply_data_new (entry, session, dest, NULL, task);

  data->commands = metadata_commands (entry, dest);
  run_commands_step (task);
}

static gboolean
apply_metadata_finish (GAsyncResult *result, GError **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* -- writing one file: mkdir parent, write, metadata -- */

typedef struct
{
  AgentsManifestEntry *entry; /* for metadata; NULL for none */
  AgentsSandboxSession *session;
  char *dest;
  GBytes *content;
} WriteData;

static void
write_data_free (WriteData *data)
{
  g_clear_object (&data->entry);
  g_clear_object (&data->session);
  g_free (data->dest);
  g_clear_pointer (&data->content, g_bytes_unref);
  g_free (data);
}

static void
write_metadata_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;

  if (!apply_metadata_finish (result, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
write_bytes_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  WriteData *data = g_task_get_task_data (task);
  GError *error = NULL;

  if (!agents_sandbox_session_write_bytes_finish (data->session, result,
                                                  &error))
    {
      g_task_return_error (task, error);
      return;
    }
  if (data->entry == NULL)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  apply_metadata_async (data->entry, data->session, data->dest,
                        g_task_get_cancellable (task), write_metadata_cb,
                        g_object_ref (task));
}

static void
write_mkdir_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  WriteData *data = g_task_get_task_data (task);
  GError *error = NULL;

  if (!agents_sandbox_session_mkdir_finish (data->session, result, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  agents_sandbox_session_write_bytes_async (
    data->session, data->dest, data->content, NULL,
    g_task_get_cancellable (task), write_bytes_cb, g_object_ref (task));
}

/* Writes @content at @dest, creating its parent first, then applies the
 * metadata of @entry (if not NULL). */
static void
write_file_async (AgentsManifestEntry *entry,
                  AgentsSandboxSession *session,
                  const char *dest,
                  GBytes *content,
                  GCancellable *cancellable,
                  GAsyncReadyCallback callback,
                  gpointer user_data)
{
  GTask *task = g_task_new (session, cancellable, callback, user_data);
  WriteData *data = g_new0 (WriteData, 1);
  g_autofree char *parent = g_path_get_dirname (dest);

  data->entry = entry ? g_object_ref (entry) : NULL;
  data->session = g_object_ref (session);
  data->dest = g_strdup (dest);
  data->content = g_bytes_ref (content);
  g_task_set_task_data (task, data, (GDestroyNotify) write_data_free);
  agents_sandbox_session_mkdir_async (session, parent, TRUE, cancellable,
                                      write_mkdir_cb, task);
}

static gboolean
write_file_finish (GAsyncResult *result, GError **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- local sources: confinement and reading without symlinks -------- */

/* Lexically normalizes an absolute path; NULL if `..` climbs above `/`. */
static char *
normalize_absolute (const char *path)
{
  g_auto (GStrv) parts = g_strsplit (path, "/", -1);
  g_autoptr (GPtrArray) stack = g_ptr_array_new ();
  GString *result = g_string_new (NULL);

  for (guint i = 0; parts[i] != NULL; i++)
    {
      if (*parts[i] == '\0' || g_str_equal (parts[i], "."))
        continue;
      if (g_str_equal (parts[i], ".."))
        {
          if (stack->len == 0)
            {
              g_string_free (result, TRUE);
              return NULL;
            }
          g_ptr_array_remove_index (stack, stack->len - 1);
          continue;
        }
      g_ptr_array_add (stack, parts[i]);
    }
  for (guint i = 0; i < stack->len; i++)
    g_string_append_printf (result, "/%s", (char *) stack->pdata[i]);
  if (result->len == 0)
    g_string_append_c (result, '/');
  return g_string_free (result, FALSE);
}

/* If @path is @dir or inside it, returns the relative rest ("." for
 * @dir itself); NULL otherwise. */
static char *
relative_within (const char *path, const char *dir)
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

/* Where a local source lives: a trusted directory and a path below it. */
typedef struct
{
  char *src; /* as written in the entry */
  char *walk_base;
  char *walk_rel;
  gboolean is_dir; /* local_dir (vs local_file) */
  int code;        /* the error code of read failures */
  int fd;          /* the opened directory, until taken */
} LocalSource;

static LocalSource *
local_source_new (const char *src, gboolean is_dir)
{
  LocalSource *source = g_new0 (LocalSource, 1);

  source->src = g_strdup (src);
  source->is_dir = is_dir;
  source->code = is_dir ? AGENTS_SANDBOX_ERROR_LOCAL_DIR_READ
                        : AGENTS_SANDBOX_ERROR_LOCAL_FILE_READ;
  source->fd = -1;
  return source;
}

static void
local_source_free (LocalSource *source)
{
  if (source->fd >= 0)
    close (source->fd);
  g_free (source->src);
  g_free (source->walk_base);
  g_free (source->walk_rel);
  g_free (source);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LocalSource, local_source_free)

static const char *
reason_text (const char *reason)
{
  if (g_str_equal (reason, "symlink"))
    return _ ("symbolic links are not followed");
  if (g_str_equal (reason, "not_found"))
    return _ ("no such file or directory");
  if (g_str_equal (reason, "not_a_directory"))
    return _ ("not a directory");
  if (g_str_equal (reason, "not_a_file"))
    return _ ("not a regular file");
  if (g_str_equal (reason, "permission_denied"))
    return _ ("permission denied");
  return _ ("cannot be read");
}

/* Sets an error about a local source; @detail defaults to a text for
 * @reason. */
static void
set_source_error (GError **error,
                  int code,
                  const char *src,
                  const char *reason,
                  const char *detail)
{
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  GVariant *context;

  g_variant_builder_add (&ctx, "{sv}", "src", g_variant_new_string (src));
  g_variant_builder_add (&ctx, "{sv}", "reason", g_variant_new_string (reason));
  context = g_variant_builder_end (&ctx);
  if (detail == NULL)
    detail = reason_text (reason);

  switch (code)
    {
    case AGENTS_SANDBOX_ERROR_LOCAL_ARTIFACT_NOT_ALLOWED:
      agents_sandbox_error_set (
        error, code, context,
        _ ("local source is outside the allowed base directory: %s"), src);
      break;
    case AGENTS_SANDBOX_ERROR_LOCAL_DIR_READ:
      agents_sandbox_error_set (error, code, context,
                                _ ("cannot read local directory %s: %s"), src,
                                detail);
      break;
    case AGENTS_SANDBOX_ERROR_GIT_CLONE:
      agents_sandbox_error_set (error, code, context,
                                _ ("cannot copy %s from the git checkout: %s"),
                                src, detail);
      break;
    default:
      agents_sandbox_error_set (
        error, code, context, _ ("cannot read local file %s: %s"), src, detail);
    }
}

static char **
dup_grant_paths (AgentsSandboxSession *session)
{
  AgentsManifest *manifest = agents_sandbox_session_get_manifest (session);
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
  GPtrArray *grants;

  if (manifest == NULL)
    return g_strv_builder_end (builder);
  grants = agents_manifest_get_extra_path_grants (manifest);
  for (guint i = 0; i < grants->len; i++)
    g_strv_builder_add (builder,
                        agents_sandbox_path_grant_get_path (grants->pdata[i]));
  return g_strv_builder_end (builder);
}

/* Decides where @src may be read from: inside @base_dir (the current
 * directory when NULL) or inside one of @grants. Purely lexical; the
 * walk that follows refuses symbolic links. */
static LocalSource *
local_source_resolve (const char *src,
                      const char *base_dir,
                      const char *const *grants,
                      gboolean is_dir,
                      GError **error)
{
  g_autoptr (LocalSource) source = local_source_new (src, is_dir);
  g_autofree char *cwd = g_get_current_dir ();
  g_autofree char *base_abs = NULL;
  g_autofree char *base = NULL;
  g_autofree char *src_abs = NULL;
  g_autofree char *path = NULL;

  base_abs = base_dir == NULL ? g_strdup (cwd)
             : g_path_is_absolute (base_dir)
               ? g_strdup (base_dir)
               : g_build_filename (cwd, base_dir, NULL);
  base = normalize_absolute (base_abs);
  src_abs = g_path_is_absolute (src) ? g_strdup (src)
                                     : g_build_filename (base_abs, src, NULL);
  path = normalize_absolute (src_abs);

  if (base != NULL && path != NULL &&
      (source->walk_rel = relative_within (path, base)) != NULL)
    {
      source->walk_base = g_steal_pointer (&base);
      return g_steal_pointer (&source);
    }
  for (guint i = 0; path != NULL && grants != NULL && grants[i] != NULL; i++)
    {
      g_autofree char *grant = normalize_absolute (grants[i]);

      if (grant != NULL && g_path_is_absolute (grants[i]) &&
          (source->walk_rel = relative_within (path, grant)) != NULL)
        {
          source->walk_base = g_steal_pointer (&grant);
          return g_steal_pointer (&source);
        }
    }

  set_source_error (error, AGENTS_SANDBOX_ERROR_LOCAL_ARTIFACT_NOT_ALLOWED, src,
                    "outside_base_dir", NULL);
  return NULL;
}

/* Why opening @name in @dirfd failed, as a context reason. */
static const char *
open_failure_reason (int parent_fd, const char *name, int saved_errno)
{
  struct stat st;

  if (fstatat (parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
      S_ISLNK (st.st_mode))
    return "symlink";
  switch (saved_errno)
    {
    case ENOENT:
      return "not_found";
    case ELOOP:
      return "symlink";
    case ENOTDIR:
      return "not_a_directory";
    case EACCES:
    case EPERM:
      return "permission_denied";
    default:
      return "unreadable";
    }
}

/* Opens @rel below @dirfd one component at a time, never following a
 * symbolic link. The last component is opened with @flags. On failure
 * returns -1 and sets *reason. */
static int
open_beneath (int parent_fd, const char *rel, int flags, const char **reason)
{
  g_auto (GStrv) parts = g_strsplit (rel, "/", -1);
  int fd = dup (parent_fd);
  guint last = 0;

  if (fd < 0)
    {
      *reason = "unreadable";
      return -1;
    }
  for (guint i = 0; parts[i] != NULL; i++)
    if (*parts[i] != '\0' && !g_str_equal (parts[i], "."))
      last = i + 1;

  for (guint i = 0; i < last; i++)
    {
      int next, saved_errno;
      gboolean is_last = i + 1 == last;

      if (*parts[i] == '\0' || g_str_equal (parts[i], "."))
        continue;
      if (g_str_equal (parts[i], ".."))
        {
          close (fd);
          *reason = "escape";
          return -1;
        }
      next = openat (fd, parts[i],
                     (is_last ? flags : O_RDONLY | O_DIRECTORY) | O_NOFOLLOW |
                       O_CLOEXEC);
      saved_errno = errno;
      if (next < 0)
        *reason = open_failure_reason (fd, parts[i], saved_errno);
      close (fd);
      if (next < 0)
        return -1;
      fd = next;
    }
  if (last == 0)
    {
      /* The path is the base itself: reopen it with the final flags. */
      int next = openat (fd, ".", flags | O_CLOEXEC);

      close (fd);
      if (next < 0)
        *reason = "unreadable";
      return next;
    }
  return fd;
}

/* Opens a local source securely; for a directory the fd is returned. */
static int
local_source_open (LocalSource *source, GError **error)
{
  int code = source->code;
  int flags = source->is_dir ? O_RDONLY | O_DIRECTORY : O_RDONLY | O_NONBLOCK;
  const char *reason = "unreadable";
  struct stat st;
  int base_fd, fd;

  base_fd = open (source->walk_base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (base_fd < 0)
    {
      set_source_error (error, code, source->src,
                        errno == ENOENT ? "not_found" : "unreadable", NULL);
      return -1;
    }
  fd = open_beneath (base_fd, source->walk_rel, flags, &reason);
  close (base_fd);
  if (fd < 0)
    {
      set_source_error (error, code, source->src, reason, NULL);
      return -1;
    }
  if (fstat (fd, &st) != 0 ||
      (source->is_dir ? !S_ISDIR (st.st_mode) : !S_ISREG (st.st_mode)))
    {
      close (fd);
      set_source_error (error, code, source->src,
                        source->is_dir ? "not_a_directory" : "not_a_file",
                        NULL);
      return -1;
    }
  return fd;
}

/* Reads a whole file from @fd (which it closes). */
static GBytes *
read_fd (int fd, GError **error)
{
  g_autoptr (GByteArray) buffer = g_byte_array_new ();
  guint8 chunk[65536];

  for (;;)
    {
      gssize n = read (fd, chunk, sizeof chunk);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved_errno = errno;

          close (fd);
          g_set_error_literal (error, G_IO_ERROR,
                               g_io_error_from_errno (saved_errno),
                               g_strerror (saved_errno));
          return NULL;
        }
      if (n == 0)
        break;
      g_byte_array_append (buffer, chunk, n);
    }
  close (fd);
  return g_byte_array_free_to_bytes (g_steal_pointer (&buffer));
}

/* ---- File ------------------------------------------------------------ */

/**
 * AgentsFile:
 *
 * A file with inline content.
 */
struct _AgentsFile
{
  AgentsManifestEntry parent_instance;

  GBytes *content;
};

G_DEFINE_FINAL_TYPE (AgentsFile, agents_file, AGENTS_TYPE_MANIFEST_ENTRY)

enum
{
  FILE_PROP_0,
  FILE_PROP_CONTENT,
  FILE_N_PROPS
};

static GParamSpec *file_properties[FILE_N_PROPS];

static void
agents_file_finalize (GObject *object)
{
  AgentsFile *self = AGENTS_FILE (object);

  g_clear_pointer (&self->content, g_bytes_unref);

  G_OBJECT_CLASS (agents_file_parent_class)->finalize (object);
}

static void
agents_file_get_property (GObject *object,
                          guint prop_id,
                          GValue *value,
                          GParamSpec *pspec)
{
  AgentsFile *self = AGENTS_FILE (object);

  switch (prop_id)
    {
    case FILE_PROP_CONTENT:
      g_value_set_boxed (value, self->content);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
set_content (AgentsFile *self, GBytes *content)
{
  g_clear_pointer (&self->content, g_bytes_unref);
  self->content = content ? g_bytes_ref (content) : g_bytes_new (NULL, 0);
}

static void
agents_file_set_property (GObject *object,
                          guint prop_id,
                          const GValue *value,
                          GParamSpec *pspec)
{
  AgentsFile *self = AGENTS_FILE (object);

  switch (prop_id)
    {
    case FILE_PROP_CONTENT:
      set_content (self, g_value_get_boxed (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
file_serialize_fields (AgentsManifestEntry *entry, JsonBuilder *builder)
{
  AgentsFile *self = AGENTS_FILE (entry);
  gsize size = 0;
  const char *data = g_bytes_get_data (self->content, &size);

  json_builder_set_member_name (builder, "content");
  if (g_utf8_validate_len (data ? data : "", size, NULL))
    {
      g_autofree char *text = g_strndup (data ? data : "", size);

      json_builder_add_string_value (builder, text);
      return;
    }

  {
    g_autofree char *encoded = g_base64_encode ((const guchar *) data, size);

    json_builder_begin_object (builder);
    json_builder_set_member_name (builder, "encoding");
    json_builder_add_string_value (builder, "base64");
    json_builder_set_member_name (builder, "data");
    json_builder_add_string_value (builder, encoded);
    json_builder_end_object (builder);
  }
}

static gboolean
is_base64 (const char *text)
{
  for (const char *p = text; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && strchr ("+/=\r\n", *p) == NULL)
      return FALSE;
  return TRUE;
}

static GBytes *
decode_base64_content (JsonObject *object, GError **error)
{
  const char *encoding = NULL;
  const char *data = NULL;
  gsize len = 0;
  guchar *decoded;

  if (!read_string (object, "encoding", FALSE, TRUE, &encoding, error) ||
      !read_string (object, "data", FALSE, TRUE, &data, error))
    return NULL;
  if (!g_str_equal (encoding, "base64") || !is_base64 (data))
    {
      set_json_error (error, "content", "bad_encoding",
                      _ ("file content must be text or base64 data"));
      return NULL;
    }
  decoded = g_base64_decode (data, &len);
  return g_bytes_new_take (decoded, len);
}

static gboolean
file_deserialize_fields (AgentsManifestEntry *entry,
                         JsonObject *object,
                         GError **error)
{
  AgentsFile *self = AGENTS_FILE (entry);
  JsonNode *node = json_object_get_member (object, "content");
  g_autoptr (GBytes) content = NULL;

  if (node == NULL)
    {
      set_missing (error, "content");
      return FALSE;
    }
  if (holds_type (node, G_TYPE_STRING))
    {
      const char *text = json_node_get_string (node);

      content = g_bytes_new (text, strlen (text));
    }
  else if (JSON_NODE_HOLDS_OBJECT (node))
    content = decode_base64_content (json_node_get_object (node), error);
  else
    set_wrong_type (error, "content", _ ("a string or an object"));

  if (content == NULL)
    return FALSE;
  set_content (self, content);
  return TRUE;
}

static void
file_copy_fields (AgentsManifestEntry *entry, AgentsManifestEntry *dest)
{
  set_content (AGENTS_FILE (dest), AGENTS_FILE (entry)->content);
}

static gboolean
file_equal_fields (AgentsManifestEntry *a, AgentsManifestEntry *b)
{
  return g_bytes_equal (AGENTS_FILE (a)->content, AGENTS_FILE (b)->content);
}

static void
file_written_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  ApplyData *data = g_task_get_task_data (task);
  AgentsFile *self = AGENTS_FILE (data->entry);
  g_autofree char *sha = NULL;
  GError *error = NULL;

  if (!write_file_finish (result, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  sha = sha256_hex (self->content);
  g_ptr_array_add (data->results,
                   agents_materialized_file_new (data->dest, sha));
  return_results (task);
}

static void
file_apply (AgentsManifestEntry *entry,
            AgentsSandboxSession *session,
            const char *dest,
            const char *base_dir,
            GTask *task)
{
  apply_data_new (entry, session, dest, base_dir, task);
  write_file_async (entry, session, dest, AGENTS_FILE (entry)->content,
                    g_task_get_cancellable (task), file_written_cb,
                    g_object_ref (task));
}

static void
agents_file_class_init (AgentsFileClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  AgentsManifestEntryClass *entry_class = AGENTS_MANIFEST_ENTRY_CLASS (klass);

  object_class->finalize = agents_file_finalize;
  object_class->get_property = agents_file_get_property;
  object_class->set_property = agents_file_set_property;

  entry_class->type_name = "file";
  entry_class->serialize_fields = file_serialize_fields;
  entry_class->deserialize_fields = file_deserialize_fields;
  entry_class->copy_fields = file_copy_fields;
  entry_class->equal_fields = file_equal_fields;
  entry_class->apply = file_apply;

  /**
   * AgentsFile:content:
   *
   * The content of the file.
   */
  file_properties[FILE_PROP_CONTENT] =
    g_param_spec_boxed ("content", NULL, NULL, G_TYPE_BYTES,
                        G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                          G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, FILE_N_PROPS,
                                     file_properties);
}

static void
agents_file_init (AgentsFile *self)
{
  self->content = g_bytes_new (NULL, 0);
}

/**
 * agents_file_new:
 * @content: (nullable): the content of the file
 *
 * Creates a file entry.
 *
 * Returns: (transfer full): a new #AgentsFile
 */
AgentsManifestEntry *
agents_file_new (GBytes *content)
{
  return g_object_new (AGENTS_TYPE_FILE, "content", content, NULL);
}

/**
 * agents_file_new_from_text:
 * @text: the content of the file, as text
 *
 * Creates a file entry from text.
 *
 * Returns: (transfer full): a new #AgentsFile
 */
AgentsManifestEntry *
agents_file_new_from_text (const char *text)
{
  g_autoptr (GBytes) content = NULL;

  g_return_val_if_fail (text != NULL, NULL);

  content = g_bytes_new (text, strlen (text));
  return agents_file_new (content);
}

/**
 * agents_file_get_content:
 * @self: an #AgentsFile
 *
 * Gets the content of the file.
 *
 * Returns: (transfer none): the content
 */
GBytes *
agents_file_get_content (AgentsFile *self)
{
  g_return_val_if_fail (AGENTS_IS_FILE (self), NULL);

  return self->content;
}

/* ---- Dir ------------------------------------------------------------- */

/**
 * AgentsDir:
 *
 * A directory, with child entries in order.
 */
struct _AgentsDir
{
  AgentsManifestEntry parent_instance;

  GPtrArray *names;     /* insertion order */
  GHashTable *children; /* name → AgentsManifestEntry */
};

G_DEFINE_FINAL_TYPE (AgentsDir, agents_dir, AGENTS_TYPE_MANIFEST_ENTRY)

static void
agents_dir_finalize (GObject *object)
{
  AgentsDir *self = AGENTS_DIR (object);

  g_ptr_array_unref (self->names);
  g_hash_table_unref (self->children);

  G_OBJECT_CLASS (agents_dir_parent_class)->finalize (object);
}

static gboolean
child_name_is_valid (const char *name, GError **error)
{
  if (g_str_equal (name, ".") || g_str_equal (name, "./"))
    {
      agents_sandbox_error_set_invalid_path (error, name, "escape_root");
      return FALSE;
    }
  return agents_manifest_validate_relative_path (name, error);
}

static void
dir_serialize_fields (AgentsManifestEntry *entry, JsonBuilder *builder)
{
  AgentsDir *self = AGENTS_DIR (entry);

  json_builder_set_member_name (builder, "children");
  json_builder_begin_object (builder);
  for (guint i = 0; i < self->names->len; i++)
    {
      const char *name = self->names->pdata[i];

      json_builder_set_member_name (builder, name);
      json_builder_add_value (builder,
                              agents_manifest_entry_to_json (
                                g_hash_table_lookup (self->children, name)));
    }
  json_builder_end_object (builder);
}

static gboolean
dir_deserialize_fields (AgentsManifestEntry *entry,
                        JsonObject *object,
                        GError **error)
{
  AgentsDir *self = AGENTS_DIR (entry);
  JsonNode *node = json_object_get_member (object, "children");
  JsonObjectIter iter;
  const char *name;
  JsonNode *value;

  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      set_wrong_type (error, "children", _ ("an object"));
      return FALSE;
    }

  json_object_iter_init_ordered (&iter, json_node_get_object (node));
  while (json_object_iter_next_ordered (&iter, &name, &value))
    {
      g_autoptr (AgentsManifestEntry) child = NULL;

      if (!child_name_is_valid (name, error))
        return FALSE;
      child = agents_manifest_entry_new_from_json (value, error);
      if (child == NULL)
        return FALSE;
      agents_dir_set_child (self, name, child);
    }
  return TRUE;
}

static void
dir_copy_fields (AgentsManifestEntry *entry, AgentsManifestEntry *dest)
{
  AgentsDir *self = AGENTS_DIR (entry);

  for (guint i = 0; i < self->names->len; i++)
    {
      const char *name = self->names->pdata[i];
      g_autoptr (AgentsManifestEntry) child =
        agents_manifest_entry_copy (g_hash_table_lookup (self->children, name));

      agents_dir_set_child (AGENTS_DIR (dest), name, child);
    }
}

static gboolean
dir_equal_fields (AgentsManifestEntry *a, AgentsManifestEntry *b)
{
  AgentsDir *da = AGENTS_DIR (a);
  AgentsDir *db = AGENTS_DIR (b);

  if (da->names->len != db->names->len)
    return FALSE;
  for (guint i = 0; i < da->names->len; i++)
    {
      const char *name = da->names->pdata[i];
      AgentsManifestEntry *other = g_hash_table_lookup (db->children, name);

      if (other == NULL || !agents_manifest_entry_equal (
                             g_hash_table_lookup (da->children, name), other))
        return FALSE;
    }
  return TRUE;
}

static void dir_apply_next_child (GTask *task);

static void
dir_child_applied_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  ApplyData *data = g_task_get_task_data (task);
  g_autoptr (GPtrArray) files = NULL;
  GError *error = NULL;

  files = agents_manifest_entry_apply_finish (AGENTS_MANIFEST_ENTRY (source),
                                              result, &error);
  if (files == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  for (guint i = 0; i < files->len; i++)
    g_ptr_array_add (data->results,
                     agents_materialized_file_copy (files->pdata[i]));
  dir_apply_next_child (g_steal_pointer (&task));
}

/* Applies the children one after the other; takes a task reference. */
static void
dir_apply_next_child (GTask *task)
{
  ApplyData *data = g_task_get_task_data (task);
  AgentsDir *self = AGENTS_DIR (data->entry);
  g_autofree char *child_dest = NULL;
  const char *name;
  GError *error = NULL;

  if (data->next >= self->names->len)
    {
      return_results (task);
      g_object_unref (task);
      return;
    }

  name = self->names->pdata[data->next++];
  if (!child_name_is_valid (name, &error))
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  child_dest = join_dest (data->dest, name);
  agents_manifest_entry_apply_async (
    g_hash_table_lookup (self->children, name), data->session, child_dest,
    data->base_dir, g_task_get_cancellable (task), dir_child_applied_cb, task);
}

static void
dir_metadata_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;

  if (!apply_metadata_finish (result, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  dir_apply_next_child (g_steal_pointer (&task));
}

static void
dir_mkdir_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  ApplyData *data = g_task_get_task_data (task);
  GError *error = NULL;

  if (!agents_sandbox_session_mkdir_finish (data->session, result, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  apply_metadata_async (data->entry, data->session, data->dest,
                        g_task_get_cancellable (task), dir_metadata_cb,
                        g_object_ref (task));
}

static void
dir_apply (AgentsManifestEntry *entry,
           AgentsSandboxSession *session,
           const char *dest,
           const char *base_dir,
           GTask *task)
{
  apply_data_new (entry, session, dest, base_dir, task);
  agents_sandbox_session_mkdir_async (session, dest, TRUE,
                                      g_task_get_cancellable (task),
                                      dir_mkdir_cb, g_object_ref (task));
}

static void
agents_dir_class_init (AgentsDirClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  AgentsManifestEntryClass *entry_class = AGENTS_MANIFEST_ENTRY_CLASS (klass);

  object_class->finalize = agents_dir_finalize;

  entry_class->type_name = "dir";
  entry_class->serialize_fields = dir_serialize_fields;
  entry_class->deserialize_fields = dir_deserialize_fields;
  entry_class->copy_fields = dir_copy_fields;
  entry_class->equal_fields = dir_equal_fields;
  entry_class->apply = dir_apply;
}

static void
agents_dir_init (AgentsDir *self)
{
  AgentsManifestEntryPrivate *priv = get_priv (AGENTS_MANIFEST_ENTRY (self));

  self->names = g_ptr_array_new_with_free_func (g_free);
  self->children =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  priv->permissions->directory = TRUE;
}

/**
 * agents_dir_new:
 *
 * Creates an empty directory entry.
 *
 * Returns: (transfer full): a new #AgentsDir
 */
AgentsManifestEntry *
agents_dir_new (void)
{
  return g_object_new (AGENTS_TYPE_DIR, NULL);
}

/**
 * agents_dir_set_child:
 * @self: an #AgentsDir
 * @name: a relative path below the directory
 * @child: (nullable): the entry, or %NULL to remove the child
 *
 * Adds, replaces (keeping its place) or removes a child.
 */
void
agents_dir_set_child (AgentsDir *self,
                      const char *name,
                      AgentsManifestEntry *child)
{
  g_return_if_fail (AGENTS_IS_DIR (self));
  g_return_if_fail (name != NULL && child_name_is_valid (name, NULL));
  g_return_if_fail (child == NULL || AGENTS_IS_MANIFEST_ENTRY (child));

  if (child == NULL)
    {
      if (!g_hash_table_remove (self->children, name))
        return;
      for (guint i = 0; i < self->names->len; i++)
        if (g_str_equal (self->names->pdata[i], name))
          {
            g_ptr_array_remove_index (self->names, i);
            break;
          }
      return;
    }
  if (!g_hash_table_contains (self->children, name))
    g_ptr_array_add (self->names, g_strdup (name));
  g_hash_table_replace (self->children, g_strdup (name), g_object_ref (child));
}

/**
 * agents_dir_get_child:
 * @self: an #AgentsDir
 * @name: the name of a child
 *
 * Gets a child.
 *
 * Returns: (transfer none) (nullable): the child
 */
AgentsManifestEntry *
agents_dir_get_child (AgentsDir *self, const char *name)
{
  g_return_val_if_fail (AGENTS_IS_DIR (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  return g_hash_table_lookup (self->children, name);
}

/**
 * agents_dir_get_child_names:
 * @self: an #AgentsDir
 *
 * Lists the names of the children in order.
 *
 * Returns: (transfer full) (array zero-terminated=1): the names
 */
char **
agents_dir_get_child_names (AgentsDir *self)
{
  char **names;

  g_return_val_if_fail (AGENTS_IS_DIR (self), NULL);

  names = g_new0 (char *, self->names->len + 1);
  for (guint i = 0; i < self->names->len; i++)
    names[i] = g_strdup (self->names->pdata[i]);
  return names;
}

/* ---- copying a directory tree into the session ---------------------- */

/* Copies the tree below an open directory fd (owned) to @dest: the tree
 * is scanned in a thread without following symbolic links (they are
 * skipped), directories are created, then files are read in threads and
 * written with at most @max_in_flight writes at once. */
typedef struct
{
  AgentsManifestEntry *entry;
  AgentsSandboxSession *session;
  char *dest;
  char *src; /* for error messages */
  int root_fd;
  gboolean skip_git;
  int error_code;
  GPtrArray *leaf_dirs; /* relative */
  GPtrArray *files;     /* relative */
  guint next_dir;
  guint next_file;
  guint in_flight;
  guint max_in_flight;
  GPtrArray *results;
  GError *error;
} TreeCopy;

static void
tree_copy_free (TreeCopy *copy)
{
  g_clear_object (&copy->entry);
  g_clear_object (&copy->session);
  g_free (copy->dest);
  g_free (copy->src);
  if (copy->root_fd >= 0)
    close (copy->root_fd);
  g_clear_pointer (&copy->leaf_dirs, g_ptr_array_unref);
  g_clear_pointer (&copy->files, g_ptr_array_unref);
  g_clear_pointer (&copy->results, g_ptr_array_unref);
  g_clear_error (&copy->error);
  g_free (copy);
}

static char *
join_rel (const char *dir, const char *name)
{
  return *dir ? g_strconcat (dir, "/", name, NULL) : g_strdup (name);
}

/* Lists one directory: subdirectories are queued, files collected. */
static gboolean
scan_one_dir (TreeCopy *copy,
              const char *rel,
              GQueue *pending,
              GHashTable *has_subdirs,
              GError **error)
{
  const char *reason = "unreadable";
  struct dirent *dent;
  DIR *dir;
  int fd =
    *rel ? open_beneath (copy->root_fd, rel, O_RDONLY | O_DIRECTORY, &reason)
         : dup (copy->root_fd);

  if (fd < 0 || (dir = fdopendir (fd)) == NULL)
    {
      if (fd >= 0)
        close (fd);
      set_source_error (error, copy->error_code, copy->src, reason, NULL);
      return FALSE;
    }
  rewinddir (dir);

  while ((dent = readdir (dir)) != NULL)
    {
      struct stat st;

      if (g_str_equal (dent->d_name, ".") || g_str_equal (dent->d_name, "..") ||
          (copy->skip_git && g_str_equal (dent->d_name, ".git")))
        continue;
      if (fstatat (dirfd (dir), dent->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        continue;
      if (S_ISDIR (st.st_mode))
        {
          g_queue_push_tail (pending, join_rel (rel, dent->d_name));
          g_hash_table_add (has_subdirs, g_strdup (rel));
        }
      else if (S_ISREG (st.st_mode))
        g_ptr_array_add (copy->files, join_rel (rel, dent->d_name));
      /* Symbolic links, devices, sockets and fifos are never copied. */
    }
  closedir (dir);
  return TRUE;
}

static void
tree_scan_thread (GTask *task,
                  gpointer source_object,
                  gpointer task_data,
                  GCancellable *cancellable)
{
  TreeCopy *copy = task_data;
  g_autoptr (GHashTable) has_subdirs =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GPtrArray) dirs = g_ptr_array_new_with_free_func (g_free);
  GQueue pending = G_QUEUE_INIT;
  GError *error = NULL;
  char *rel;

  g_queue_push_tail (&pending, g_strdup (""));
  while ((rel = g_queue_pop_head (&pending)) != NULL)
    {
      g_ptr_array_add (dirs, rel);
      if (g_cancellable_set_error_if_cancelled (cancellable, &error) ||
          !scan_one_dir (copy, rel, &pending, has_subdirs, &error))
        {
          g_queue_clear_full (&pending, g_free);
          g_task_return_error (task, error);
          return;
        }
    }

  /* Creating the leaves with parents creates every directory. */
  for (guint i = 1; i < dirs->len; i++)
    if (!g_hash_table_contains (has_subdirs, dirs->pdata[i]))
      g_ptr_array_add (copy->leaf_dirs, g_strdup (dirs->pdata[i]));
  g_task_return_boolean (task, TRUE);
}

static void tree_copy_pump (GTask *task);

static int
compare_materialized (gconstpointer a, gconstpointer b)
{
  const AgentsMaterializedFile *fa = *(AgentsMaterializedFile *const *) a;
  const AgentsMaterializedFile *fb = *(AgentsMaterializedFile *const *) b;

  return strcmp (fa->path, fb->path);
}

static void
tree_copy_finish_if_done (GTask *task)
{
  TreeCopy *copy = g_task_get_task_data (task);

  if (copy->in_flight > 0)
    return;
  if (copy->error != NULL)
    {
      g_task_return_error (task, g_steal_pointer (&copy->error));
      return;
    }
  /* Files complete in any order; report them in a stable one. */
  g_ptr_array_sort (copy->results, compare_materialized);
  g_task_return_pointer (task, g_steal_pointer (&copy->results),
                         (GDestroyNotify) g_ptr_array_unref);
}

typedef struct
{
  TreeCopy *copy;
  char *rel;
  GBytes *content;
} FileCopy;

static void
file_copy_free (FileCopy *file)
{
  g_free (file->rel);
  g_clear_pointer (&file->content, g_bytes_unref);
  g_free (file);
}

static void
file_read_thread (GTask *task,
                  gpointer source_object,
                  gpointer task_data,
                  GCancellable *cancellable)
{
  FileCopy *file = task_data;
  const char *reason = "unreadable";
  GError *error = NULL;
  struct stat st;
  int fd;

  fd = open_beneath (file->copy->root_fd, file->rel, O_RDONLY | O_NONBLOCK,
                     &reason);
  if (fd >= 0 && (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode)))
    {
      close (fd);
      fd = -1;
      reason = "not_a_file";
    }
  if (fd < 0)
    {
      set_source_error (&error, file->copy->error_code, file->copy->src, reason,
                        NULL);
      g_task_return_error (task, error);
      return;
    }
  file->content = read_fd (fd, &error);
  if (file->content == NULL)
    {
      GError *wrapped = NULL;

      set_source_error (&wrapped, file->copy->error_code, file->copy->src,
                        "unreadable", error->message);
      g_error_free (error);
      g_task_return_error (task, wrapped);
      return;
    }
  g_task_return_boolean (task, TRUE);
}

static void
tree_file_done (GTask *task, GError *error)
{
  TreeCopy *copy = g_task_get_task_data (task);

  copy->in_flight--;
  if (error != NULL && copy->error == NULL)
    copy->error = error;
  else if (error != NULL)
    g_error_free (error);
  tree_copy_pump (task);
}

typedef struct
{
  GTask *task; /* the tree copy */
  GBytes *content;
  char *dest;
} FileWrite;

static void
file_write_free (FileWrite *write)
{
  g_object_unref (write->task);
  g_bytes_unref (write->content);
  g_free (write->dest);
  g_free (write);
}

static void
tree_file_written_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  FileWrite *write = user_data;
  TreeCopy *copy = g_task_get_task_data (write->task);
  GError *error = NULL;

  if (agents_sandbox_session_write_bytes_finish (copy->session, result, &error))
    {
      g_autofree char *sha = sha256_hex (write->content);

      g_ptr_array_add (copy->results,
                       agents_materialized_file_new (write->dest, sha));
    }
  tree_file_done (write->task, error);
  file_write_free (write);
}

static void
tree_file_read_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data; /* the tree copy */
  TreeCopy *copy = g_task_get_task_data (task);
  GTask *read_task = G_TASK (result);
  FileCopy *file = g_task_get_task_data (read_task);
  FileWrite *write;
  GError *error = NULL;

  if (!g_task_propagate_boolean (read_task, &error) || copy->error != NULL)
    {
      tree_file_done (task, error);
      return;
    }

  write = g_new0 (FileWrite, 1);
  write->task = g_object_ref (task);
  write->content = g_bytes_ref (file->content);
  write->dest = join_dest (copy->dest, file->rel);
  agents_sandbox_session_write_bytes_async (
    copy->session, write->dest, write->content, NULL,
    g_task_get_cancellable (task), tree_file_written_cb, write);
}

/* Starts file copies until the limit is reached; returns when all are
 * done or an error stopped new ones. */
static void
tree_copy_pump (GTask *task)
{
  TreeCopy *copy = g_task_get_task_data (task);

  while (copy->error == NULL && copy->in_flight < copy->max_in_flight &&
         copy->next_file < copy->files->len)
    {
      g_autoptr (GTask) read_task = NULL;
      FileCopy *file = g_new0 (FileCopy, 1);

      file->copy = copy;
      file->rel = g_strdup (copy->files->pdata[copy->next_file++]);
      read_task = g_task_new (NULL, g_task_get_cancellable (task),
                              tree_file_read_cb, g_object_ref (task));
      g_task_set_task_data (read_task, file, (GDestroyNotify) file_copy_free);
      copy->in_flight++;
      g_task_run_in_thread (read_task, file_read_thread);
    }
  if (copy->error != NULL || copy->next_file >= copy->files->len)
    tree_copy_finish_if_done (task);
}

static void tree_copy_next_dir (GTask *task);

static void
tree_mkdir_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;

  if (!agents_sandbox_session_mkdir_finish (AGENTS_SANDBOX_SESSION (source),
                                            result, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  tree_copy_next_dir (g_steal_pointer (&task));
}

/* Creates the directories one after the other; takes a task reference. */
static void
tree_copy_next_dir (GTask *task)
{
  TreeCopy *copy = g_task_get_task_data (task);
  g_autofree char *dest = NULL;

  if (copy->next_dir >= copy->leaf_dirs->len)
    {
      tree_copy_pump (task);
      g_object_unref (task);
      return;
    }
  dest = join_dest (copy->dest, copy->leaf_dirs->pdata[copy->next_dir++]);
  agents_sandbox_session_mkdir_async (copy->session, dest, TRUE,
                                      g_task_get_cancellable (task),
                                      tree_mkdir_cb, task);
}

static void
tree_metadata_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;

  if (!apply_metadata_finish (result, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  tree_copy_next_dir (g_steal_pointer (&task));
}

static void
tree_root_mkdir_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  TreeCopy *copy = g_task_get_task_data (task);
  GError *error = NULL;

  if (!agents_sandbox_session_mkdir_finish (copy->session, result, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  apply_metadata_async (copy->entry, copy->session, copy->dest,
                        g_task_get_cancellable (task), tree_metadata_cb,
                        g_object_ref (task));
}

static void
tree_scanned_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *scan = G_TASK (result);
  g_autoptr (GTask) task = user_data;
  TreeCopy *copy = g_task_get_task_data (task);
  GError *error = NULL;

  if (!g_task_propagate_boolean (scan, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  agents_sandbox_session_mkdir_async (copy->session, copy->dest, TRUE,
                                      g_task_get_cancellable (task),
                                      tree_root_mkdir_cb, g_object_ref (task));
}

static guint
local_dir_files_limit (AgentsSandboxSession *session)
{
  const AgentsConcurrencyLimits *limits =
    agents_sandbox_session_get_concurrency_limits (session);

  if (limits == NULL || limits->local_dir_files < 1)
    return 4;
  return (guint) MIN (limits->local_dir_files, 1024);
}

static void
tree_copy_async (AgentsManifestEntry *entry,
                 AgentsSandboxSession *session,
                 int root_fd,
                 const char *dest,
                 const char *src,
                 int error_code,
                 gboolean skip_git,
                 GCancellable *cancellable,
                 GAsyncReadyCallback callback,
                 gpointer user_data)
{
  GTask *task = g_task_new (entry, cancellable, callback, user_data);
  g_autoptr (GTask) scan = NULL;
  TreeCopy *copy = g_new0 (TreeCopy, 1);

  copy->entry = g_object_ref (entry);
  copy->session = g_object_ref (session);
  copy->dest = g_strdup (dest);
  copy->src = g_strdup (src);
  copy->root_fd = root_fd;
  copy->error_code = error_code;
  copy->skip_git = skip_git;
  copy->leaf_dirs = g_ptr_array_new_with_free_func (g_free);
  copy->files = g_ptr_array_new_with_free_func (g_free);
  copy->max_in_flight = local_dir_files_limit (session);
  copy->results = materialized_array_new ();
  g_task_set_task_data (task, copy, (GDestroyNotify) tree_copy_free);

  /* The scan runs on a task of its own so that the thread never holds the
   * last reference of the copy task. */
  scan = g_task_new (NULL, cancellable, tree_scanned_cb, task);
  g_task_set_task_data (scan, copy, NULL);
  g_task_run_in_thread (scan, tree_scan_thread);
}

static GPtrArray *
tree_copy_finish (GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- LocalFile ------------------------------------------------------- */

/**
 * AgentsLocalFile:
 *
 * A copy of a file of the host. The source must lie inside the base
 * directory given when the manifest is applied (or inside an extra path
 * grant of the session's manifest), and is opened without following
 * symbolic links.
 */
struct _AgentsLocalFile
{
  AgentsManifestEntry parent_instance;

  char *src;
};

G_DEFINE_FINAL_TYPE (AgentsLocalFile,
                     agents_local_file,
                     AGENTS_TYPE_MANIFEST_ENTRY)

/* LocalFile and LocalDir share their "src" member. */
enum
{
  SRC_PROP_0,
  SRC_PROP_SRC,
  SRC_N_PROPS
};

static GParamSpec *local_file_properties[SRC_N_PROPS];
static GParamSpec *local_dir_properties[SRC_N_PROPS];

struct _AgentsLocalDir
{
  AgentsManifestEntry parent_instance;

  char *src;
};

static char **
src_slot (GObject *object)
{
  if (AGENTS_IS_LOCAL_FILE (object))
    return &AGENTS_LOCAL_FILE (object)->src;
  return &AGENTS_LOCAL_DIR (object)->src;
}

static void
src_get_property (GObject *object,
                  guint prop_id,
                  GValue *value,
                  GParamSpec *pspec)
{
  if (prop_id != SRC_PROP_SRC)
    {
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      return;
    }
  g_value_set_string (value, *src_slot (object));
}

static void
src_set_property (GObject *object,
                  guint prop_id,
                  const GValue *value,
                  GParamSpec *pspec)
{
  char **slot = src_slot (object);

  if (prop_id != SRC_PROP_SRC)
    {
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      return;
    }
  g_free (*slot);
  *slot =
    g_strdup (g_value_get_string (value) ? g_value_get_string (value) : "");
}

static void
src_finalize (GObject *object, GObjectClass *parent_class)
{
  g_free (*src_slot (object));
  parent_class->finalize (object);
}

static void
src_serialize_fields (AgentsManifestEntry *entry, JsonBuilder *builder)
{
  json_builder_set_member_name (builder, "src");
  json_builder_add_string_value (builder, *src_slot (G_OBJECT (entry)));
}

static gboolean
src_deserialize_fields (AgentsManifestEntry *entry,
                        JsonObject *object,
                        GError **error)
{
  char **slot = src_slot (G_OBJECT (entry));
  const char *src = NULL;

  if (!read_string (object, "src", FALSE, TRUE, &src, error))
    return FALSE;
  g_free (*slot);
  *slot = g_strdup (src);
  return TRUE;
}

static void
src_copy_fields (AgentsManifestEntry *entry, AgentsManifestEntry *dest)
{
  char **slot = src_slot (G_OBJECT (dest));

  g_free (*slot);
  *slot = g_strdup (*src_slot (G_OBJECT (entry)));
}

static gboolean
src_equal_fields (AgentsManifestEntry *a, AgentsManifestEntry *b)
{
  return g_strcmp0 (*src_slot (G_OBJECT (a)), *src_slot (G_OBJECT (b))) == 0;
}

static GParamSpec *
src_param_spec (void)
{
  return g_param_spec_string ("src", NULL, NULL, "",
                              G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                                G_PARAM_STATIC_STRINGS |
                                G_PARAM_EXPLICIT_NOTIFY);
}

static void
agents_local_file_finalize (GObject *object)
{
  src_finalize (object, G_OBJECT_CLASS (agents_local_file_parent_class));
}

typedef struct
{
  LocalSource *source;
  GBytes *content;
} LocalRead;

static void
local_read_free (LocalRead *read)
{
  g_clear_pointer (&read->source, local_source_free);
  g_clear_pointer (&read->content, g_bytes_unref);
  g_free (read);
}

static void
local_file_read_thread (GTask *task,
                        gpointer source_object,
                        gpointer task_data,
                        GCancellable *cancellable)
{
  LocalRead *read = task_data;
  GError *error = NULL;
  int fd = local_source_open (read->source, &error);

  if (fd < 0)
    {
      g_task_return_error (task, error);
      return;
    }
  read->content = read_fd (fd, &error);
  if (read->content == NULL)
    {
      GError *wrapped = NULL;

      set_source_error (&wrapped, AGENTS_SANDBOX_ERROR_LOCAL_FILE_READ,
                        read->source->src, "unreadable", error->message);
      g_error_free (error);
      g_task_return_error (task, wrapped);
      return;
    }
  g_task_return_boolean (task, TRUE);
}

typedef struct
{
  GTask *task; /* the apply task */
  GBytes *content;
} LocalFileWrite;

static void
local_file_written_cb (GObject *source,
                       GAsyncResult *result,
                       gpointer user_data)
{
  LocalFileWrite *write = user_data;
  g_autoptr (GTask) task = write->task;
  g_autoptr (GBytes) content = write->content;
  ApplyData *data = g_task_get_task_data (task);
  g_autofree char *sha = NULL;
  GError *error = NULL;

  g_free (write);
  if (!write_file_finish (result, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  sha = sha256_hex (content);
  g_ptr_array_add (data->results,
                   agents_materialized_file_new (data->dest, sha));
  return_results (task);
}

static void
local_file_read_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  ApplyData *data = g_task_get_task_data (task);
  LocalRead *read = g_task_get_task_data (G_TASK (result));
  LocalFileWrite *write;
  GError *error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      g_task_return_error (task, error);
      return;
    }
  write = g_new0 (LocalFileWrite, 1);
  write->task = g_steal_pointer (&task);
  write->content = g_bytes_ref (read->content);
  write_file_async (data->entry, data->session, data->dest, write->content,
                    g_task_get_cancellable (write->task), local_file_written_cb,
                    write);
}

static void
local_file_apply (AgentsManifestEntry *entry,
                  AgentsSandboxSession *session,
                  const char *dest,
                  const char *base_dir,
                  GTask *task)
{
  g_auto (GStrv) grants = dup_grant_paths (session);
  g_autoptr (GTask) read_task = NULL;
  LocalSource *source;
  LocalRead *read;
  GError *error = NULL;

  apply_data_new (entry, session, dest, base_dir, task);
  source = local_source_resolve (AGENTS_LOCAL_FILE (entry)->src, base_dir,
                                 (const char *const *) grants, FALSE, &error);
  if (source == NULL)
    {
      g_task_return_error (task, error);
      return;
    }

  read = g_new0 (LocalRead, 1);
  read->source = source;
  read_task = g_task_new (NULL, g_task_get_cancellable (task),
                          local_file_read_cb, g_object_ref (task));
  g_task_set_task_data (read_task, read, (GDestroyNotify) local_read_free);
  g_task_run_in_thread (read_task, local_file_read_thread);
}

static void
agents_local_file_class_init (AgentsLocalFileClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  AgentsManifestEntryClass *entry_class = AGENTS_MANIFEST_ENTRY_CLASS (klass);

  object_class->finalize = agents_local_file_finalize;
  object_class->get_property = src_get_property;
  object_class->set_property = src_set_property;

  entry_class->type_name = "local_file";
  entry_class->serialize_fields = src_serialize_fields;
  entry_class->deserialize_fields = src_deserialize_fields;
  entry_class->copy_fields = src_copy_fields;
  entry_class->equal_fields = src_equal_fields;
  entry_class->apply = local_file_apply;

  /**
   * AgentsLocalFile:src:
   *
   * The host path of the file, relative to the base directory or
   * absolute.
   */
  local_file_properties[SRC_PROP_SRC] = src_param_spec ();
  g_object_class_install_properties (object_class, SRC_N_PROPS,
                                     local_file_properties);
}

static void
agents_local_file_init (AgentsLocalFile *self)
{
  self->src = g_strdup ("");
}

/**
 * agents_local_file_new:
 * @src: (type filename): the host path of the file
 *
 * Creates a local file entry.
 *
 * Returns: (transfer full): a new #AgentsLocalFile
 */
AgentsManifestEntry *
agents_local_file_new (const char *src)
{
  g_return_val_if_fail (src != NULL, NULL);

  return g_object_new (AGENTS_TYPE_LOCAL_FILE, "src", src, NULL);
}

/**
 * agents_local_file_get_src:
 * @self: an #AgentsLocalFile
 *
 * Gets the host path of the file.
 *
 * Returns: (type filename): the path
 */
const char *
agents_local_file_get_src (AgentsLocalFile *self)
{
  g_return_val_if_fail (AGENTS_IS_LOCAL_FILE (self), NULL);

  return self->src;
}

/* ---- LocalDir -------------------------------------------------------- */

/**
 * AgentsLocalDir:
 *
 * A copy of a directory tree of the host. The source is confined like
 * that of #AgentsLocalFile; symbolic links inside the tree are skipped,
 * never followed.
 */
G_DEFINE_FINAL_TYPE (AgentsLocalDir,
                     agents_local_dir,
                     AGENTS_TYPE_MANIFEST_ENTRY)

static void
agents_local_dir_finalize (GObject *object)
{
  src_finalize (object, G_OBJECT_CLASS (agents_local_dir_parent_class));
}

/* Opens a directory source; the fd stays in the source until taken, so
 * that it is closed if nobody takes it. */
static void
local_dir_open_thread (GTask *task,
                       gpointer source_object,
                       gpointer task_data,
                       GCancellable *cancellable)
{
  LocalSource *source = task_data;
  GError *error = NULL;

  source->fd = local_source_open (source, &error);
  if (source->fd < 0)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

/* Takes the fd opened by local_dir_open_thread(), or returns -1. */
static int
local_dir_take_fd (GAsyncResult *result, GError **error)
{
  LocalSource *source = g_task_get_task_data (G_TASK (result));
  int fd;

  if (!g_task_propagate_boolean (G_TASK (result), error))
    return -1;
  fd = source->fd;
  source->fd = -1;
  return fd;
}

static void
local_dir_copied_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GPtrArray *files;
  GError *error = NULL;

  files = tree_copy_finish (result, &error);
  if (files == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, files, (GDestroyNotify) g_ptr_array_unref);
}

static void
local_dir_opened_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  ApplyData *data = g_task_get_task_data (task);
  GError *error = NULL;
  int fd = local_dir_take_fd (result, &error);

  if (fd < 0)
    {
      g_task_return_error (task, error);
      return;
    }
  tree_copy_async (data->entry, data->session, fd, data->dest,
                   AGENTS_LOCAL_DIR (data->entry)->src,
                   AGENTS_SANDBOX_ERROR_LOCAL_DIR_READ, FALSE,
                   g_task_get_cancellable (task), local_dir_copied_cb,
                   g_object_ref (task));
}

static void
local_dir_apply (AgentsManifestEntry *entry,
                 AgentsSandboxSession *session,
                 const char *dest,
                 const char *base_dir,
                 GTask *task)
{
  g_auto (GStrv) grants = dup_grant_paths (session);
  g_autoptr (GTask) open_task = NULL;
  LocalSource *source;
  GError *error = NULL;

  apply_data_new (entry, session, dest, base_dir, task);
  source = local_source_resolve (AGENTS_LOCAL_DIR (entry)->src, base_dir,
                                 (const char *const *) grants, TRUE, &error);
  if (source == NULL)
    {
      g_task_return_error (task, error);
      return;
    }

  open_task = g_task_new (NULL, g_task_get_cancellable (task),
                          local_dir_opened_cb, g_object_ref (task));
  g_task_set_task_data (open_task, source, (GDestroyNotify) local_source_free);
  g_task_run_in_thread (open_task, local_dir_open_thread);
}

static void
agents_local_dir_class_init (AgentsLocalDirClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  AgentsManifestEntryClass *entry_class = AGENTS_MANIFEST_ENTRY_CLASS (klass);

  object_class->finalize = agents_local_dir_finalize;
  object_class->get_property = src_get_property;
  object_class->set_property = src_set_property;

  entry_class->type_name = "local_dir";
  entry_class->serialize_fields = src_serialize_fields;
  entry_class->deserialize_fields = src_deserialize_fields;
  entry_class->copy_fields = src_copy_fields;
  entry_class->equal_fields = src_equal_fields;
  entry_class->apply = local_dir_apply;

  /**
   * AgentsLocalDir:src:
   *
   * The host path of the directory, relative to the base directory or
   * absolute.
   */
  local_dir_properties[SRC_PROP_SRC] = src_param_spec ();
  g_object_class_install_properties (object_class, SRC_N_PROPS,
                                     local_dir_properties);
}

static void
agents_local_dir_init (AgentsLocalDir *self)
{
  self->src = g_strdup ("");
}

/**
 * agents_local_dir_new:
 * @src: (type filename): the host path of the directory
 *
 * Creates a local directory entry.
 *
 * Returns: (transfer full): a new #AgentsLocalDir
 */
AgentsManifestEntry *
agents_local_dir_new (const char *src)
{
  g_return_val_if_fail (src != NULL, NULL);

  return g_object_new (AGENTS_TYPE_LOCAL_DIR, "src", src, NULL);
}

/**
 * agents_local_dir_get_src:
 * @self: an #AgentsLocalDir
 *
 * Gets the host path of the directory.
 *
 * Returns: (type filename): the path
 */
const char *
agents_local_dir_get_src (AgentsLocalDir *self)
{
  g_return_val_if_fail (AGENTS_IS_LOCAL_DIR (self), NULL);

  return self->src;
}

/* ---- GitRepo --------------------------------------------------------- */

/**
 * AgentsGitRepo:
 *
 * A shallow checkout of a git repository, cloned on the host and copied
 * into the workspace without its `.git` directory.
 */
struct _AgentsGitRepo
{
  AgentsManifestEntry parent_instance;

  char *host;
  char *repo;
  char *ref;
  char *subpath;
};

G_DEFINE_FINAL_TYPE (AgentsGitRepo, agents_git_repo, AGENTS_TYPE_MANIFEST_ENTRY)

enum
{
  GIT_PROP_0,
  GIT_PROP_HOST,
  GIT_PROP_REPO,
  GIT_PROP_REF,
  GIT_PROP_SUBPATH,
  GIT_N_PROPS
};

static GParamSpec *git_properties[GIT_N_PROPS];

#define DEFAULT_GIT_HOST "github.com"
#define DEFAULT_GIT_REF "main"

static void
agents_git_repo_finalize (GObject *object)
{
  AgentsGitRepo *self = AGENTS_GIT_REPO (object);

  g_free (self->host);
  g_free (self->repo);
  g_free (self->ref);
  g_free (self->subpath);

  G_OBJECT_CLASS (agents_git_repo_parent_class)->finalize (object);
}

static void
agents_git_repo_get_property (GObject *object,
                              guint prop_id,
                              GValue *value,
                              GParamSpec *pspec)
{
  AgentsGitRepo *self = AGENTS_GIT_REPO (object);

  switch (prop_id)
    {
    case GIT_PROP_HOST:
      g_value_set_string (value, self->host);
      break;
    case GIT_PROP_REPO:
      g_value_set_string (value, self->repo);
      break;
    case GIT_PROP_REF:
      g_value_set_string (value, self->ref);
      break;
    case GIT_PROP_SUBPATH:
      g_value_set_string (value, self->subpath);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
replace_string (char **slot, const char *value, const char *fallback)
{
  g_free (*slot);
  *slot = g_strdup (value ? value : fallback);
}

static void
agents_git_repo_set_property (GObject *object,
                              guint prop_id,
                              const GValue *value,
                              GParamSpec *pspec)
{
  AgentsGitRepo *self = AGENTS_GIT_REPO (object);
  const char *str = g_value_get_string (value);

  switch (prop_id)
    {
    case GIT_PROP_HOST:
      replace_string (&self->host, str, DEFAULT_GIT_HOST);
      break;
    case GIT_PROP_REPO:
      replace_string (&self->repo, str, "");
      break;
    case GIT_PROP_REF:
      replace_string (&self->ref, str, DEFAULT_GIT_REF);
      break;
    case GIT_PROP_SUBPATH:
      agents_git_repo_set_subpath (self, str);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
git_serialize_fields (AgentsManifestEntry *entry, JsonBuilder *builder)
{
  AgentsGitRepo *self = AGENTS_GIT_REPO (entry);

  json_builder_set_member_name (builder, "host");
  json_builder_add_string_value (builder, self->host);
  json_builder_set_member_name (builder, "repo");
  json_builder_add_string_value (builder, self->repo);
  json_builder_set_member_name (builder, "ref");
  json_builder_add_string_value (builder, self->ref);
  add_nullable_string (builder, "subpath", self->subpath);
}

/* Checks what ends up on git's command line and in the clone URL. */
static gboolean
git_repo_check (AgentsGitRepo *self, const char **bad_member)
{
  g_auto (GStrv) parts = g_strsplit (self->repo, "/", -1);

  *bad_member = "host";
  if (*self->host == '\0' || *self->host == '-')
    return FALSE;
  *bad_member = "repo";
  if (*self->repo == '\0' || *self->repo == '-' || *self->repo == '/')
    return FALSE;
  for (guint i = 0; parts[i] != NULL; i++)
    if (g_str_equal (parts[i], ".."))
      return FALSE;
  *bad_member = "ref";
  if (*self->ref == '\0' || *self->ref == '-')
    return FALSE;
  *bad_member = "subpath";
  return self->subpath == NULL ||
         agents_manifest_validate_relative_path (self->subpath, NULL);
}

static gboolean
git_deserialize_fields (AgentsManifestEntry *entry,
                        JsonObject *object,
                        GError **error)
{
  AgentsGitRepo *self = AGENTS_GIT_REPO (entry);
  const char *host = NULL;
  const char *repo = NULL;
  const char *ref = NULL;
  const char *subpath = NULL;
  const char *bad_member;

  if (!read_string (object, "host", FALSE, FALSE, &host, error) ||
      !read_string (object, "repo", FALSE, TRUE, &repo, error) ||
      !read_string (object, "ref", FALSE, FALSE, &ref, error) ||
      !read_string (object, "subpath", TRUE, FALSE, &subpath, error))
    return FALSE;

  replace_string (&self->host, host, DEFAULT_GIT_HOST);
  replace_string (&self->repo, repo, "");
  replace_string (&self->ref, ref, DEFAULT_GIT_REF);
  g_free (self->subpath);
  self->subpath = g_strdup (subpath);

  if (!git_repo_check (self, &bad_member))
    {
      g_autofree char *message =
        g_strdup_printf (_ ("invalid git_repo member “%s”"), bad_member);

      set_json_error (error, bad_member, "invalid_value", message);
      return FALSE;
    }
  return TRUE;
}

static void
git_copy_fields (AgentsManifestEntry *entry, AgentsManifestEntry *dest)
{
  AgentsGitRepo *self = AGENTS_GIT_REPO (entry);
  AgentsGitRepo *copy = AGENTS_GIT_REPO (dest);

  replace_string (&copy->host, self->host, DEFAULT_GIT_HOST);
  replace_string (&copy->repo, self->repo, "");
  replace_string (&copy->ref, self->ref, DEFAULT_GIT_REF);
  g_free (copy->subpath);
  copy->subpath = g_strdup (self->subpath);
}

static gboolean
git_equal_fields (AgentsManifestEntry *a, AgentsManifestEntry *b)
{
  AgentsGitRepo *ga = AGENTS_GIT_REPO (a);
  AgentsGitRepo *gb = AGENTS_GIT_REPO (b);

  return g_str_equal (ga->host, gb->host) && g_str_equal (ga->repo, gb->repo) &&
         g_str_equal (ga->ref, gb->ref) &&
         g_strcmp0 (ga->subpath, gb->subpath) == 0;
}

typedef struct
{
  char *url;
  char *clone_dir;
  GError *error; /* kept while the clone is removed */
} GitData;

static void
rm_tree_at (int parent_fd, const char *name)
{
  int fd =
    openat (parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  struct dirent *dent;
  DIR *dir;

  if (fd < 0)
    {
      unlinkat (parent_fd, name, 0);
      return;
    }
  dir = fdopendir (fd);
  if (dir == NULL)
    {
      close (fd);
      return;
    }
  while ((dent = readdir (dir)) != NULL)
    if (!g_str_equal (dent->d_name, ".") && !g_str_equal (dent->d_name, ".."))
      rm_tree_at (dirfd (dir), dent->d_name);
  closedir (dir);
  unlinkat (parent_fd, name, AT_REMOVEDIR);
}

static void
git_data_free (GitData *data)
{
  /* Normally removed already, in a thread; this is the last resort. */
  if (data->clone_dir != NULL)
    rm_tree_at (AT_FDCWD, data->clone_dir);
  g_free (data->url);
  g_free (data->clone_dir);
  g_clear_error (&data->error);
  g_free (data);
}

static void
git_cleanup_thread (GTask *task,
                    gpointer source_object,
                    gpointer task_data,
                    GCancellable *cancellable)
{
  GitData *git = task_data;

  rm_tree_at (AT_FDCWD, git->clone_dir);
  g_clear_pointer (&git->clone_dir, g_free);
  g_task_return_boolean (task, TRUE);
}

static void
git_cleaned_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GitData *git = g_task_get_task_data (G_TASK (result));

  if (git->error != NULL)
    g_task_return_error (task, g_steal_pointer (&git->error));
  else
    return_results (task);
}

/* Removes the clone, then completes the apply task with @error or the
 * results; takes the apply task reference and the git data. */
static void
git_finish (GTask *task, GitData *git, GError *error)
{
  g_autoptr (GTask) cleanup = g_task_new (NULL, NULL, git_cleaned_cb, task);

  git->error = error;
  g_task_set_task_data (cleanup, git, (GDestroyNotify) git_data_free);
  g_task_run_in_thread (cleanup, git_cleanup_thread);
}

static void
git_copied_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  ApplyData *data = g_task_get_task_data (task);
  GitData *git = g_object_steal_data (G_OBJECT (task), "agents-git");
  g_autoptr (GPtrArray) files = NULL;
  GError *error = NULL;

  files = tree_copy_finish (result, &error);
  if (files != NULL)
    {
      g_ptr_array_unref (data->results);
      data->results = g_steal_pointer (&files);
    }
  git_finish (task, git, error);
}

static void
git_opened_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  ApplyData *data = g_task_get_task_data (task);
  GError *error = NULL;
  int fd = local_dir_take_fd (result, &error);
  g_autofree char *src = NULL;

  if (fd < 0)
    {
      git_finish (task, g_object_steal_data (G_OBJECT (task), "agents-git"),
                  error);
      return;
    }
  src = agents_git_repo_dup_clone_url (AGENTS_GIT_REPO (data->entry));
  tree_copy_async (data->entry, data->session, fd, data->dest, src,
                   AGENTS_SANDBOX_ERROR_GIT_CLONE, TRUE,
                   g_task_get_cancellable (task), git_copied_cb, task);
}

static void
git_clone_error (GError **error,
                 const char *url,
                 const char *ref,
                 const char *stderr_text)
{
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  g_variant_builder_add (&ctx, "{sv}", "url", g_variant_new_string (url));
  g_variant_builder_add (&ctx, "{sv}", "ref", g_variant_new_string (ref));
  g_variant_builder_add (&ctx, "{sv}", "stderr",
                         g_variant_new_string (stderr_text));
  agents_sandbox_error_set (
    error, AGENTS_SANDBOX_ERROR_GIT_CLONE, g_variant_builder_end (&ctx),
    _ ("failed to clone %s at %s: %s"), url, ref, stderr_text);
}

static void
git_open_clone (GTask *task, GitData *git)
{
  ApplyData *data = g_task_get_task_data (task);
  AgentsGitRepo *self = AGENTS_GIT_REPO (data->entry);
  g_autoptr (GTask) open_task = NULL;
  LocalSource *source =
    local_source_new (self->subpath ? self->subpath : ".", TRUE);

  /* The subpath is confined to the clone like a local directory. */
  source->walk_base = g_strdup (git->clone_dir);
  source->walk_rel = g_strdup (self->subpath ? self->subpath : ".");
  source->code = AGENTS_SANDBOX_ERROR_GIT_CLONE;

  g_object_set_data_full (G_OBJECT (task), "agents-git", git,
                          (GDestroyNotify) git_data_free);
  open_task =
    g_task_new (NULL, g_task_get_cancellable (task), git_opened_cb, task);
  g_task_set_task_data (open_task, source, (GDestroyNotify) local_source_free);
  g_task_run_in_thread (open_task, local_dir_open_thread);
}

typedef struct
{
  GTask *task;
  GitData *git;
  GSubprocess *process;
  GError *error;
} GitClone;

static void
git_clone_free (GitClone *clone)
{
  g_object_unref (clone->process);
  g_free (clone);
}

static void
git_killed_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GitClone *clone = user_data;

  g_subprocess_wait_finish (clone->process, result, NULL);
  git_finish (clone->task, clone->git, clone->error);
  git_clone_free (clone);
}

static char *
bytes_to_text (GBytes *bytes)
{
  if (bytes == NULL || g_bytes_get_size (bytes) == 0)
    return g_strdup ("");
  return g_utf8_make_valid (g_bytes_get_data (bytes, NULL),
                            g_bytes_get_size (bytes));
}

static void
git_cloned_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GitClone *clone = user_data;
  ApplyData *data = g_task_get_task_data (clone->task);
  AgentsGitRepo *self = AGENTS_GIT_REPO (data->entry);
  g_autoptr (GBytes) stderr_bytes = NULL;
  g_autofree char *stderr_text = NULL;
  GError *error = NULL;

  if (!g_subprocess_communicate_finish (clone->process, result, NULL,
                                        &stderr_bytes, &error))
    {
      /* Cancelled: the clone must be dead before it is removed. */
      clone->error = error;
      g_subprocess_force_exit (clone->process);
      g_subprocess_wait_async (clone->process, NULL, git_killed_cb, clone);
      return;
    }

  if (!g_subprocess_get_if_exited (clone->process) ||
      g_subprocess_get_exit_status (clone->process) != 0)
    {
      stderr_text = bytes_to_text (stderr_bytes);
      git_clone_error (&error, clone->git->url, self->ref,
                       g_strstrip (stderr_text));
      git_finish (clone->task, clone->git, error);
    }
  else
    git_open_clone (clone->task, clone->git);
  git_clone_free (clone);
}

static GSubprocess *
spawn_git_clone (const char *git_path,
                 const char *url,
                 const char *ref,
                 const char *clone_dir,
                 GError **error)
{
  g_autoptr (GSubprocessLauncher) launcher = g_subprocess_launcher_new (
    G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  const char *argv[] = {
    git_path,
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "protocol.file.allow=always",
    "clone",
    "--depth",
    "1",
    "--branch",
    ref,
    "--",
    url,
    clone_dir,
    NULL,
  };

  g_subprocess_launcher_setenv (launcher, "GIT_TERMINAL_PROMPT", "0", TRUE);
  return g_subprocess_launcher_spawnv (launcher, argv, error);
}

/* A repository on the local file system is a local source like any
 * other: it must lie inside the base directory or an extra path grant. */
static gboolean
git_check_local_host (AgentsGitRepo *self,
                      AgentsSandboxSession *session,
                      const char *base_dir,
                      GError **error)
{
  g_autoptr (LocalSource) source = NULL;
  g_auto (GStrv) grants = NULL;
  g_autofree char *path = NULL;
  const char *host = self->host;

  if (g_str_has_prefix (host, "file://"))
    host += strlen ("file://");
  else if (!g_path_is_absolute (host))
    return TRUE;

  path = g_build_filename (host, self->repo, NULL);
  grants = dup_grant_paths (session);
  source = local_source_resolve (path, base_dir, (const char *const *) grants,
                                 TRUE, error);
  return source != NULL;
}

static void
git_repo_apply (AgentsManifestEntry *entry,
                AgentsSandboxSession *session,
                const char *dest,
                const char *base_dir,
                GTask *task)
{
  AgentsGitRepo *self = AGENTS_GIT_REPO (entry);
  g_autofree char *git_path = g_find_program_in_path ("git");
  GitData *git;
  GitClone *clone;
  const char *bad_member;
  GError *error = NULL;

  apply_data_new (entry, session, dest, base_dir, task);
  if (!git_repo_check (self, &bad_member))
    {
      g_task_return_error (task,
                           agents_sandbox_error_new (
                             AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, NULL,
                             _ ("invalid git_repo member “%s”"), bad_member));
      return;
    }
  if (!git_check_local_host (self, session, base_dir, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  if (git_path == NULL)
    {
      g_task_return_error (
        task, agents_sandbox_error_new (AGENTS_SANDBOX_ERROR_GIT_MISSING, NULL,
                                        _ ("git is not installed")));
      return;
    }

  git = g_new0 (GitData, 1);
  git->url = agents_git_repo_dup_clone_url (self);
  git->clone_dir = g_dir_make_tmp ("agents-git-XXXXXX", &error);
  if (git->clone_dir == NULL)
    {
      git_data_free (git);
      g_task_return_error (task, error);
      return;
    }

  clone = g_new0 (GitClone, 1);
  clone->task = g_object_ref (task);
  clone->git = git;
  clone->process =
    spawn_git_clone (git_path, git->url, self->ref, git->clone_dir, &error);
  if (clone->process == NULL)
    {
      GError *missing = agents_sandbox_error_new (
        AGENTS_SANDBOX_ERROR_GIT_MISSING, NULL, _ ("git could not be run: %s"),
        error->message);

      g_error_free (error);
      git_finish (clone->task, git, missing);
      g_free (clone);
      return;
    }
  g_subprocess_communicate_async (
    clone->process, NULL, g_task_get_cancellable (task), git_cloned_cb, clone);
}

static void
agents_git_repo_class_init (AgentsGitRepoClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  AgentsManifestEntryClass *entry_class = AGENTS_MANIFEST_ENTRY_CLASS (klass);
  GParamFlags flags = G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                      G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->finalize = agents_git_repo_finalize;
  object_class->get_property = agents_git_repo_get_property;
  object_class->set_property = agents_git_repo_set_property;

  entry_class->type_name = "git_repo";
  entry_class->serialize_fields = git_serialize_fields;
  entry_class->deserialize_fields = git_deserialize_fields;
  entry_class->copy_fields = git_copy_fields;
  entry_class->equal_fields = git_equal_fields;
  entry_class->apply = git_repo_apply;

  /**
   * AgentsGitRepo:host:
   *
   * The git host, e.g. `github.com`.
   */
  git_properties[GIT_PROP_HOST] =
    g_param_spec_string ("host", NULL, NULL, DEFAULT_GIT_HOST, flags);

  /**
   * AgentsGitRepo:repo:
   *
   * The repository as `owner/name`.
   */
  git_properties[GIT_PROP_REPO] =
    g_param_spec_string ("repo", NULL, NULL, "", flags);

  /**
   * AgentsGitRepo:ref:
   *
   * The branch or tag to check out.
   */
  git_properties[GIT_PROP_REF] =
    g_param_spec_string ("ref", NULL, NULL, DEFAULT_GIT_REF, flags);

  /**
   * AgentsGitRepo:subpath:
   *
   * The directory of the repository to copy, or %NULL for all of it.
   */
  git_properties[GIT_PROP_SUBPATH] = g_param_spec_string (
    "subpath", NULL, NULL, NULL,
    G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, GIT_N_PROPS, git_properties);
}

static void
agents_git_repo_init (AgentsGitRepo *self)
{
  self->host = g_strdup (DEFAULT_GIT_HOST);
  self->repo = g_strdup ("");
  self->ref = g_strdup (DEFAULT_GIT_REF);
}

/**
 * agents_git_repo_new:
 * @host: (nullable): the git host, %NULL for `github.com`
 * @repo: the repository as `owner/name`
 * @ref: (nullable): the branch or tag, %NULL for `main`
 *
 * Creates a git checkout entry.
 *
 * Returns: (transfer full): a new #AgentsGitRepo
 */
AgentsManifestEntry *
agents_git_repo_new (const char *host, const char *repo, const char *ref)
{
  g_return_val_if_fail (repo != NULL, NULL);

  return g_object_new (AGENTS_TYPE_GIT_REPO, "host", host, "repo", repo, "ref",
                       ref, NULL);
}

/**
 * agents_git_repo_get_host:
 * @self: an #AgentsGitRepo
 *
 * Gets the git host.
 *
 * Returns: the host
 */
const char *
agents_git_repo_get_host (AgentsGitRepo *self)
{
  g_return_val_if_fail (AGENTS_IS_GIT_REPO (self), NULL);

  return self->host;
}

/**
 * agents_git_repo_get_repo:
 * @self: an #AgentsGitRepo
 *
 * Gets the repository as `owner/name`.
 *
 * Returns: the repository
 */
const char *
agents_git_repo_get_repo (AgentsGitRepo *self)
{
  g_return_val_if_fail (AGENTS_IS_GIT_REPO (self), NULL);

  return self->repo;
}

/**
 * agents_git_repo_get_ref:
 * @self: an #AgentsGitRepo
 *
 * Gets the branch or tag to check out.
 *
 * Returns: the ref
 */
const char *
agents_git_repo_get_ref (AgentsGitRepo *self)
{
  g_return_val_if_fail (AGENTS_IS_GIT_REPO (self), NULL);

  return self->ref;
}

/**
 * agents_git_repo_get_subpath:
 * @self: an #AgentsGitRepo
 *
 * Gets the directory of the repository to copy.
 *
 * Returns: (nullable): the subpath, %NULL for the whole repository
 */
const char *
agents_git_repo_get_subpath (AgentsGitRepo *self)
{
  g_return_val_if_fail (AGENTS_IS_GIT_REPO (self), NULL);

  return self->subpath;
}

/**
 * agents_git_repo_set_subpath:
 * @self: an #AgentsGitRepo
 * @subpath: (nullable): a relative directory of the repository
 *
 * Sets the directory of the repository to copy.
 */
void
agents_git_repo_set_subpath (AgentsGitRepo *self, const char *subpath)
{
  g_return_if_fail (AGENTS_IS_GIT_REPO (self));
  g_return_if_fail (subpath == NULL ||
                    agents_manifest_validate_relative_path (subpath, NULL));

  if (g_strcmp0 (self->subpath, subpath) == 0)
    return;
  g_free (self->subpath);
  self->subpath = g_strdup (subpath);
  g_object_notify_by_pspec (G_OBJECT (self), git_properties[GIT_PROP_SUBPATH]);
}

/**
 * agents_git_repo_dup_clone_url:
 * @self: an #AgentsGitRepo
 *
 * Builds the URL the repository is cloned from: `https://HOST/REPO.git`,
 * or `file://HOST/REPO` when the host is a local absolute path or a
 * `file://` URL.
 *
 * Returns: (transfer full): the URL
 */
char *
agents_git_repo_dup_clone_url (AgentsGitRepo *self)
{
  g_return_val_if_fail (AGENTS_IS_GIT_REPO (self), NULL);

  if (g_str_has_prefix (self->host, "file://"))
    return g_strconcat (self->host, "/", self->repo, NULL);
  if (g_path_is_absolute (self->host))
    return g_strconcat ("file://", self->host, "/", self->repo, NULL);
  return g_strconcat ("https://", self->host, "/", self->repo, ".git", NULL);
}

/* ---- Mount ----------------------------------------------------------- */

/**
 * AgentsMount:
 *
 * The abstract base of remote mounts (`s3_mount`, …). Mounts are
 * ephemeral and read-only by default; applying one mounts it.
 */

enum
{
  MOUNT_PROP_0,
  MOUNT_PROP_MOUNT_PATH,
  MOUNT_PROP_READ_ONLY,
  MOUNT_N_PROPS
};

static GParamSpec *mount_properties[MOUNT_N_PROPS];

static void
agents_mount_finalize (GObject *object)
{
  g_free (get_mount_priv (AGENTS_MOUNT (object))->mount_path);

  G_OBJECT_CLASS (agents_mount_parent_class)->finalize (object);
}

static void
agents_mount_get_property (GObject *object,
                           guint prop_id,
                           GValue *value,
                           GParamSpec *pspec)
{
  AgentsMountPrivate *priv = get_mount_priv (AGENTS_MOUNT (object));

  switch (prop_id)
    {
    case MOUNT_PROP_MOUNT_PATH:
      g_value_set_string (value, priv->mount_path);
      break;
    case MOUNT_PROP_READ_ONLY:
      g_value_set_boolean (value, priv->read_only);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_mount_set_property (GObject *object,
                           guint prop_id,
                           const GValue *value,
                           GParamSpec *pspec)
{
  AgentsMount *self = AGENTS_MOUNT (object);

  switch (prop_id)
    {
    case MOUNT_PROP_MOUNT_PATH:
      agents_mount_set_mount_path (self, g_value_get_string (value));
      break;
    case MOUNT_PROP_READ_ONLY:
      agents_mount_set_read_only (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
mount_applied_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;

  if (!agents_mount_mount_finish (AGENTS_MOUNT (source), result, &error))
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, materialized_array_new (),
                           (GDestroyNotify) g_ptr_array_unref);
}

static void
mount_apply (AgentsManifestEntry *entry,
             AgentsSandboxSession *session,
             const char *dest,
             const char *base_dir,
             GTask *task)
{
  agents_mount_mount_async (AGENTS_MOUNT (entry), session, dest, base_dir,
                            g_task_get_cancellable (task), mount_applied_cb,
                            g_object_ref (task));
}

static void
mount_not_supported (AgentsMount *self, GTask *task)
{
  g_task_return_error (
    task, agents_sandbox_error_new (AGENTS_SANDBOX_ERROR_NOT_SUPPORTED, NULL,
                                    _ ("%s does not support mounting"),
                                    G_OBJECT_TYPE_NAME (self)));
}

static void
agents_mount_real_mount (AgentsMount *self,
                         AgentsSandboxSession *session,
                         const char *dest,
                         const char *base_dir,
                         GTask *task)
{
  mount_not_supported (self, task);
}

static void
agents_mount_real_unmount (AgentsMount *self,
                           AgentsSandboxSession *session,
                           const char *dest,
                           const char *base_dir,
                           GTask *task)
{
  mount_not_supported (self, task);
}

static void
agents_mount_class_init (AgentsMountClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  AgentsManifestEntryClass *entry_class = AGENTS_MANIFEST_ENTRY_CLASS (klass);

  object_class->finalize = agents_mount_finalize;
  object_class->get_property = agents_mount_get_property;
  object_class->set_property = agents_mount_set_property;

  entry_class->is_mount = TRUE;
  entry_class->apply = mount_apply;
  klass->mount = agents_mount_real_mount;
  klass->unmount = agents_mount_real_unmount;

  /**
   * AgentsMount:mount-path:
   *
   * Where the storage is really mounted, relative to the root, when it
   * differs from the entry's path; %NULL otherwise.
   */
  mount_properties[MOUNT_PROP_MOUNT_PATH] = g_param_spec_string (
    "mount-path", NULL, NULL, NULL,
    G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * AgentsMount:read-only:
   *
   * Whether the mount is read-only.
   */
  mount_properties[MOUNT_PROP_READ_ONLY] = g_param_spec_boolean (
    "read-only", NULL, NULL, TRUE,
    G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, MOUNT_N_PROPS,
                                     mount_properties);
}

static void
agents_mount_init (AgentsMount *self)
{
  get_mount_priv (self)->read_only = TRUE;
  get_priv (AGENTS_MANIFEST_ENTRY (self))->ephemeral = TRUE;
}

/**
 * agents_mount_get_mount_path:
 * @self: an #AgentsMount
 *
 * Gets where the storage is really mounted, relative to the root.
 *
 * Returns: (nullable): the mount path
 */
const char *
agents_mount_get_mount_path (AgentsMount *self)
{
  g_return_val_if_fail (AGENTS_IS_MOUNT (self), NULL);

  return get_mount_priv (self)->mount_path;
}

/**
 * agents_mount_set_mount_path:
 * @self: an #AgentsMount
 * @mount_path: (nullable): a relative path, see
 *   agents_manifest_validate_relative_path()
 *
 * Sets where the storage is really mounted.
 */
void
agents_mount_set_mount_path (AgentsMount *self, const char *mount_path)
{
  AgentsMountPrivate *priv;

  g_return_if_fail (AGENTS_IS_MOUNT (self));
  g_return_if_fail (mount_path == NULL ||
                    agents_manifest_validate_relative_path (mount_path, NULL));

  priv = get_mount_priv (self);
  if (g_strcmp0 (priv->mount_path, mount_path) == 0)
    return;
  g_free (priv->mount_path);
  priv->mount_path = g_strdup (mount_path);
  g_object_notify_by_pspec (G_OBJECT (self),
                            mount_properties[MOUNT_PROP_MOUNT_PATH]);
}

/**
 * agents_mount_get_read_only:
 * @self: an #AgentsMount
 *
 * Gets whether the mount is read-only.
 *
 * Returns: whether the mount is read-only
 */
gboolean
agents_mount_get_read_only (AgentsMount *self)
{
  g_return_val_if_fail (AGENTS_IS_MOUNT (self), TRUE);

  return get_mount_priv (self)->read_only;
}

/**
 * agents_mount_set_read_only:
 * @self: an #AgentsMount
 * @read_only: whether the mount is read-only
 *
 * Sets whether the mount is read-only.
 */
void
agents_mount_set_read_only (AgentsMount *self, gboolean read_only)
{
  AgentsMountPrivate *priv;

  g_return_if_fail (AGENTS_IS_MOUNT (self));

  priv = get_mount_priv (self);
  read_only = !!read_only;
  if (priv->read_only == read_only)
    return;
  priv->read_only = read_only;
  g_object_notify_by_pspec (G_OBJECT (self),
                            mount_properties[MOUNT_PROP_READ_ONLY]);
}

/**
 * agents_mount_mount_async:
 * @self: an #AgentsMount
 * @session: the session to mount into
 * @dest: (type filename): the absolute mount point in the workspace
 * @base_dir: (type filename) (nullable): the base directory of local
 *   sources
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the storage is mounted
 * @user_data: data for @callback
 *
 * Mounts the storage at @dest through the class's @mount vfunc.
 */
void
agents_mount_mount_async (AgentsMount *self,
                          AgentsSandboxSession *session,
                          const char *dest,
                          const char *base_dir,
                          GCancellable *cancellable,
                          GAsyncReadyCallback callback,
                          gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_MOUNT (self));
  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (session));
  g_return_if_fail (dest != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_mount_mount_async);
  AGENTS_MOUNT_GET_CLASS (self)->mount (self, session, dest, base_dir, task);
}

/**
 * agents_mount_mount_finish:
 * @self: an #AgentsMount
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Finishes agents_mount_mount_async().
 *
 * Returns: %TRUE if the storage was mounted
 */
gboolean
agents_mount_mount_finish (AgentsMount *self,
                           GAsyncResult *result,
                           GError **error)
{
  g_return_val_if_fail (AGENTS_IS_MOUNT (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * agents_mount_unmount_async:
 * @self: an #AgentsMount
 * @session: the session to unmount from
 * @dest: (type filename): the absolute mount point in the workspace
 * @base_dir: (type filename) (nullable): the base directory of local
 *   sources
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the storage is unmounted
 * @user_data: data for @callback
 *
 * Unmounts the storage at @dest through the class's @unmount vfunc.
 */
void
agents_mount_unmount_async (AgentsMount *self,
                            AgentsSandboxSession *session,
                            const char *dest,
                            const char *base_dir,
                            GCancellable *cancellable,
                            GAsyncReadyCallback callback,
                            gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_MOUNT (self));
  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (session));
  g_return_if_fail (dest != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_mount_unmount_async);
  AGENTS_MOUNT_GET_CLASS (self)->unmount (self, session, dest, base_dir, task);
}

/**
 * agents_mount_unmount_finish:
 * @self: an #AgentsMount
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Finishes agents_mount_unmount_async().
 *
 * Returns: %TRUE if the storage was unmounted
 */
gboolean
agents_mount_unmount_finish (AgentsMount *self,
                             GAsyncResult *result,
                             GError **error)
{
  g_return_val_if_fail (AGENTS_IS_MOUNT (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
