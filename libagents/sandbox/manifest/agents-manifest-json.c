/* agents-manifest-json.c - the manifest's JSON, copying and
 * comparing manifests
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
#include "agents-manifest-object-private.h"
#include "agents-manifest-private.h"
#include "agents-sandbox-error-private.h"

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

      if (!agents_manifest_env_slot_equal (g_hash_table_lookup (a->env, name),
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
