/* agents-typed-json.c - families of objects with a JSON `type` discriminator
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-json-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-typed-json-private.h"

/**
 * AgentsTypedJson:
 *
 * One mechanism for every object that JSON names by a `type` member:
 * manifest entries, snapshots, environment values, session states (and
 * the s3mount plugin's mount patterns and strategies). A *family* is a
 * base type (#AgentsManifestEntry, #AgentsSnapshot, #AgentsEnvValue,
 * #AgentsSandboxSessionState); each
 * type of the family is registered under the `type` string that its
 * JSON carries, and every class writes and reads its own members through
 * the vfuncs of its base (`serialize_fields`, `deserialize_fields`).
 *
 * The mechanism writes `type` first, whatever a class writes, and reads
 * hostile documents: a node that is not an object, a missing or
 * non-string `type`, an unknown name (the error lists the registered
 * names, sorted) are errors with the family's own messages.
 *
 * Types are registered from C, Python or JavaScript with
 * agents_typed_json_register(); the `agents_registry_register_*()`
 * functions of entry, snapshot and session state types are the same
 * registry.
 */

typedef struct
{
  const AgentsTypedJsonFamily *family;
  GHashTable *by_name; /* name → GType */
  GHashTable *by_type; /* GType → name (the first it was registered as) */
} Family;

G_LOCK_DEFINE_STATIC (typed_json);
static GHashTable *families; /* base GType → Family, under the lock */

static void
family_free (gpointer data)
{
  Family *family = data;

  g_hash_table_unref (family->by_name);
  g_hash_table_unref (family->by_type);
  g_free (family);
}

void
agents_typed_json_define_family (const AgentsTypedJsonFamily *descriptor)
{
  Family *family;

  g_return_if_fail (descriptor != NULL && descriptor->base != G_TYPE_INVALID);

  G_LOCK (typed_json);
  if (families == NULL)
    families = g_hash_table_new_full (NULL, NULL, NULL, family_free);
  if (!g_hash_table_contains (families, GSIZE_TO_POINTER (descriptor->base)))
    {
      family = g_new0 (Family, 1);
      family->family = descriptor;
      family->by_name =
        g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      family->by_type = g_hash_table_new (NULL, NULL);
      g_hash_table_insert (families, GSIZE_TO_POINTER (descriptor->base),
                           family);
    }
  G_UNLOCK (typed_json);
}

/* A base type defines its family when its class (or default interface)
 * is initialized; make sure that happened. Never under the lock: the
 * initialization takes it. */
static void
ensure_family_initialized (GType base)
{
  if (G_TYPE_IS_INTERFACE (base))
    g_type_default_interface_unref (g_type_default_interface_ref (base));
  else if (G_TYPE_IS_CLASSED (base))
    g_type_class_unref (g_type_class_ref (base));
}

static Family *lookup_family_locked (GType base);

/* Initializes the base type (which defines the family) and lets the
 * family register every type it can have. */
static void
prepare_family (GType base)
{
  void (*load_types) (void) = NULL;
  Family *f;

  ensure_family_initialized (base);
  G_LOCK (typed_json);
  f = lookup_family_locked (base);
  if (f != NULL)
    load_types = f->family->load_types;
  G_UNLOCK (typed_json);
  if (load_types != NULL)
    load_types ();
}

static Family *
lookup_family_locked (GType base)
{
  return families ? g_hash_table_lookup (families, GSIZE_TO_POINTER (base))
                  : NULL;
}

static gboolean
check_family (GType base, GError **error)
{
  gboolean known;

  ensure_family_initialized (base);
  G_LOCK (typed_json);
  known = lookup_family_locked (base) != NULL;
  G_UNLOCK (typed_json);
  if (!known)
    agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                              NULL, _ ("%s is not a family of typed JSON"),
                              g_type_name (base));
  return known;
}

/**
 * agents_typed_json_register:
 * @family: the base type of the family, e.g. %AGENTS_TYPE_SNAPSHOT
 * @type_name: the JSON `type` string of @type
 * @type: a type deriving from (or implementing) @family
 * @error: return location for a #GError
 *
 * Registers @type as the type that JSON objects of @family name
 * @type_name. Registering the same type again under its name is
 * harmless; an empty name, a type outside @family or a name already
 * taken by another type are %AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT
 * errors (the last one “… is already registered as …”).
 *
 * Returns: %TRUE on success
 */
gboolean
agents_typed_json_register (GType family,
                            const char *type_name,
                            GType type,
                            GError **error)
{
  Family *f;
  gpointer existing;

  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_family (family, error))
    return FALSE;
  if (type_name == NULL || *type_name == '\0')
    {
      agents_sandbox_error_set (
        error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, NULL,
        _ ("%s must be registered with a non-empty `type` name"),
        g_type_name (type));
      return FALSE;
    }
  if (!g_type_is_a (type, family))
    {
      agents_sandbox_error_set (
        error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, NULL,
        _ ("cannot register %s as “%s”: it is not a %s"), g_type_name (type),
        type_name, g_type_name (family));
      return FALSE;
    }

  G_LOCK (typed_json);
  f = lookup_family_locked (family);
  existing = g_hash_table_lookup (f->by_name, type_name);
  if (existing != NULL && GPOINTER_TO_SIZE (existing) != type)
    {
      G_UNLOCK (typed_json);
      agents_sandbox_error_set (
        error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, NULL,
        _ ("%s “%s” is already registered as %s"), _ (f->family->label),
        type_name, g_type_name ((GType) GPOINTER_TO_SIZE (existing)));
      return FALSE;
    }
  if (existing == NULL)
    g_hash_table_insert (f->by_name, g_strdup (type_name),
                         GSIZE_TO_POINTER (type));
  if (!g_hash_table_contains (f->by_type, GSIZE_TO_POINTER (type)))
    g_hash_table_insert (f->by_type, GSIZE_TO_POINTER (type),
                         (gpointer) g_intern_string (type_name));
  G_UNLOCK (typed_json);
  return TRUE;
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const char *const *) a, *(const char *const *) b);
}

/**
 * agents_typed_json_list:
 * @family: the base type of a family
 *
 * Lists the names registered in @family (plugins loaded first), sorted.
 *
 * Returns: (transfer full) (array zero-terminated=1): the names
 */
char **
agents_typed_json_list (GType family)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  GHashTableIter iter;
  gpointer key;
  Family *f;

  prepare_family (family);

  G_LOCK (typed_json);
  f = lookup_family_locked (family);
  if (f != NULL)
    {
      g_hash_table_iter_init (&iter, f->by_name);
      while (g_hash_table_iter_next (&iter, &key, NULL))
        g_ptr_array_add (names, g_strdup (key));
    }
  G_UNLOCK (typed_json);

  g_ptr_array_sort (names, compare_strings);
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_steal (names, NULL);
}

static char *
default_unknown_message (const Family *f, const char *name, const char *known)
{
  if (f->family->unknown_type_message != NULL)
    return f->family->unknown_type_message (name, known);
  return g_strdup_printf (_ ("unknown %s `%s`. Registered types: %s"),
                          _ (f->family->label), name, known);
}

static void
set_unknown_error (const Family *f, const char *name, GError **error)
{
  g_auto (GStrv) known = agents_typed_json_list (f->family->base);
  g_autofree char *joined = g_strjoinv (", ", known);
  g_autofree char *message = default_unknown_message (f, name, joined);
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  g_autofree char *valid = g_utf8_make_valid (name, -1);

  g_variant_builder_add (&ctx, "{sv}", "name", g_variant_new_string (valid));
  g_variant_builder_add (&ctx, "{sv}", "known",
                         g_variant_new_strv ((const char *const *) known, -1));
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_UNKNOWN_TYPE,
                            g_variant_builder_end (&ctx), "%s", message);
}

/**
 * agents_typed_json_lookup:
 * @family: the base type of a family
 * @type_name: a JSON `type` string
 * @error: return location for a #GError
 *
 * Finds the type registered as @type_name in @family. An unknown name is
 * an %AGENTS_SANDBOX_ERROR_UNKNOWN_TYPE error whose message lists the
 * registered names, sorted, and whose context holds `name` and `known`.
 *
 * Returns: the type, or %G_TYPE_INVALID with @error set
 */
GType
agents_typed_json_lookup (GType family, const char *type_name, GError **error)
{
  gpointer found = NULL;
  Family *f;

  g_return_val_if_fail (type_name != NULL, G_TYPE_INVALID);
  g_return_val_if_fail (error == NULL || *error == NULL, G_TYPE_INVALID);

  prepare_family (family);
  if (!check_family (family, error))
    return G_TYPE_INVALID;

  G_LOCK (typed_json);
  f = lookup_family_locked (family);
  found = g_hash_table_lookup (f->by_name, type_name);
  G_UNLOCK (typed_json);

  if (found == NULL)
    {
      set_unknown_error (f, type_name, error);
      return G_TYPE_INVALID;
    }
  return (GType) GPOINTER_TO_SIZE (found);
}

/**
 * agents_typed_json_get_type_name:
 * @family: the base type of a family
 * @type: a registered type of @family
 *
 * Gets the name @type was first registered under in @family.
 *
 * Returns: (nullable): the JSON `type` string, or %NULL if @type is not
 *   registered
 */
const char *
agents_typed_json_get_type_name (GType family, GType type)
{
  const char *name = NULL;
  Family *f;

  prepare_family (family);
  G_LOCK (typed_json);
  f = lookup_family_locked (family);
  if (f != NULL)
    name = g_hash_table_lookup (f->by_type, GSIZE_TO_POINTER (type));
  G_UNLOCK (typed_json);
  return name;
}

static const AgentsTypedJsonFamily *
get_descriptor (GType family)
{
  const AgentsTypedJsonFamily *descriptor = NULL;
  Family *f;

  ensure_family_initialized (family);
  G_LOCK (typed_json);
  f = lookup_family_locked (family);
  if (f != NULL)
    descriptor = f->family;
  G_UNLOCK (typed_json);
  return descriptor;
}

/**
 * agents_typed_json_to_json:
 * @family: the base type of @object's family
 * @object: an instance of a type registered in @family
 *
 * Serializes @object as `{"type": …}` followed by the members its class
 * writes. `type` is always the registered name, even when a class writes
 * a `type` member of its own.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
agents_typed_json_to_json (GType family, GObject *object)
{
  const AgentsTypedJsonFamily *descriptor;
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  const char *type_name;
  JsonNode *root;

  g_return_val_if_fail (G_TYPE_CHECK_INSTANCE_TYPE (object, family), NULL);

  descriptor = get_descriptor (family);
  g_return_val_if_fail (descriptor != NULL, NULL);
  if (descriptor->type_name_of != NULL)
    type_name = descriptor->type_name_of (object);
  else
    type_name =
      agents_typed_json_get_type_name (family, G_OBJECT_TYPE (object));
  if (type_name == NULL)
    type_name = "";

  json_builder_begin_object (builder);
  agents_json_add_string (builder, "type", type_name);
  if (descriptor->write_fields != NULL)
    descriptor->write_fields (object, builder);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  json_object_set_string_member (json_node_get_object (root), "type",
                                 type_name);
  return root;
}

const char *
agents_typed_json_node_type_name (JsonNode *node)
{
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return "null";
  if (JSON_NODE_HOLDS_OBJECT (node))
    return "object";
  if (JSON_NODE_HOLDS_ARRAY (node))
    return "array";
  switch (json_node_get_value_type (node))
    {
    case G_TYPE_STRING:
      return "string";
    case G_TYPE_BOOLEAN:
      return "boolean";
    default:
      return "number";
    }
}

static GType
read_type (const AgentsTypedJsonFamily *descriptor,
           JsonObject *object,
           GError **error)
{
  JsonNode *member = json_object_get_member (object, "type");

  if (member == NULL || !agents_json_holds (member, G_TYPE_STRING))
    {
      g_autofree char *message =
        descriptor->missing_type_message
          ? descriptor->missing_type_message ()
          : g_strdup_printf (_ ("%s must include a string `type` field"),
                             descriptor->member);

      agents_json_set_error (error, "type", member ? "wrong_type" : "missing",
                             "%s", message);
      return G_TYPE_INVALID;
    }
  return agents_typed_json_lookup (descriptor->base,
                                   json_node_get_string (member), error);
}

static JsonObject *
require_object (const AgentsTypedJsonFamily *descriptor,
                JsonNode *node,
                GError **error)
{
  const char *found;
  g_autofree char *message = NULL;

  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
    return json_node_get_object (node);
  found = agents_typed_json_node_type_name (node);
  message = descriptor->not_object_message
              ? descriptor->not_object_message (found)
              : g_strdup_printf (_ ("%s must be a JSON object, got %s"),
                                 descriptor->member, found);
  agents_json_set_error (error, descriptor->member, "wrong_type", "%s",
                         message);
  return NULL;
}

/* The type @node names: checked by the family's own reader when it has
 * one, else by the mechanism. */
static GType
lookup_node_type (const AgentsTypedJsonFamily *descriptor,
                  JsonNode *node,
                  GError **error)
{
  g_autofree char *type_name = NULL;
  JsonObject *object;

  if (descriptor->read_type_name == NULL)
    {
      object = require_object (descriptor, node, error);
      return object ? read_type (descriptor, object, error) : G_TYPE_INVALID;
    }
  if (!descriptor->read_type_name (node, &type_name, error))
    return G_TYPE_INVALID;
  return agents_typed_json_lookup (descriptor->base, type_name ? type_name : "",
                                   error);
}

static gboolean
read_fields (const AgentsTypedJsonFamily *descriptor,
             GObject *self,
             JsonObject *object,
             GError **error)
{
  GError *local = NULL;

  if (descriptor->read_fields == NULL)
    return TRUE;
  if (descriptor->read_fields (self, object, &local))
    {
      g_clear_error (&local);
      return TRUE;
    }
  /* A binding's vfunc may fail without saying why. */
  if (local == NULL)
    agents_json_set_error (&local, descriptor->member, "invalid",
                           _ ("%s could not read its JSON members"),
                           G_OBJECT_TYPE_NAME (self));
  g_propagate_error (error, local);
  return FALSE;
}

/**
 * agents_typed_json_new_from_json:
 * @family: the base type of a family
 * @node: an untrusted JSON node
 * @error: return location for a #GError
 *
 * Creates the object that @node describes: its `type` is looked up in
 * @family, an instance is created and its class reads its members.
 *
 * Returns: (transfer full): the object, or %NULL with @error set
 *   (%AGENTS_SANDBOX_ERROR_INVALID_JSON for a wrong shape,
 *   %AGENTS_SANDBOX_ERROR_UNKNOWN_TYPE for an unknown type)
 */
GObject *
agents_typed_json_new_from_json (GType family, JsonNode *node, GError **error)
{
  const AgentsTypedJsonFamily *descriptor;
  g_autoptr (GObject) self = NULL;
  JsonObject *object;
  GType type;

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_family (family, error))
    return NULL;
  descriptor = get_descriptor (family);

  type = lookup_node_type (descriptor, node, error);
  if (type == G_TYPE_INVALID)
    return NULL;
  object = json_node_get_object (node);
  if (G_TYPE_IS_ABSTRACT (type) || G_TYPE_IS_INTERFACE (type))
    {
      agents_json_set_error (error, "type", "abstract_type",
                             _ ("type %s cannot be instantiated"),
                             g_type_name (type));
      return NULL;
    }

  if (descriptor->instantiate != NULL)
    self = descriptor->instantiate (type, object, error);
  else
    self = g_object_new (type, NULL);
  if (self == NULL || !read_fields (descriptor, self, object, error))
    return NULL;
  return g_steal_pointer (&self);
}

gboolean
agents_typed_json_read_into (GType family,
                             GObject *object,
                             JsonNode *node,
                             GError **error)
{
  const AgentsTypedJsonFamily *descriptor;
  JsonObject *members;

  g_return_val_if_fail (G_TYPE_CHECK_INSTANCE_TYPE (object, family), FALSE);

  descriptor = get_descriptor (family);
  g_return_val_if_fail (descriptor != NULL, FALSE);
  members = require_object (descriptor, node, error);
  return members != NULL && read_fields (descriptor, object, members, error);
}

GObject *
agents_typed_json_copy (GType family, GObject *object)
{
  const AgentsTypedJsonFamily *descriptor;
  g_autoptr (JsonNode) node = NULL;
  g_autoptr (GObject) copy = NULL;
  g_autoptr (GError) error = NULL;

  g_return_val_if_fail (G_TYPE_CHECK_INSTANCE_TYPE (object, family), NULL);

  descriptor = get_descriptor (family);
  node = agents_typed_json_to_json (family, object);
  copy = g_object_new (G_OBJECT_TYPE (object), NULL);
  /* What a class writes, it reads: a failure is a bug of the class. */
  if (!read_fields (descriptor, copy, json_node_get_object (node), &error))
    g_error ("%s cannot read its own JSON: %s", G_OBJECT_TYPE_NAME (object),
             error->message);
  return g_steal_pointer (&copy);
}

gboolean
agents_typed_json_equal (GType family, GObject *a, GObject *b)
{
  g_autoptr (JsonNode) node_a = NULL;
  g_autoptr (JsonNode) node_b = NULL;

  if (a == b)
    return TRUE;
  if (a == NULL || b == NULL)
    return FALSE;
  if (G_OBJECT_TYPE (a) != G_OBJECT_TYPE (b))
    return FALSE;

  node_a = agents_typed_json_to_json (family, a);
  node_b = agents_typed_json_to_json (family, b);
  return json_node_equal (node_a, node_b);
}
