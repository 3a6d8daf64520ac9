/* agents-json-schema.c - a JSON schema validator
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-json-schema-private.h"
#include "agents-run-private.h"

/* The reasons end up in errors that models read: not translated. */

static gboolean validate (JsonNode *node,
                          JsonObject *schema,
                          JsonObject *root,
                          const char *path,
                          guint depth,
                          GString *reason);

static gboolean
node_has_type (JsonNode *node, const char *type)
{
  GType value_type = JSON_NODE_HOLDS_VALUE (node)
                       ? json_node_get_value_type (node)
                       : G_TYPE_INVALID;

  if (g_str_equal (type, "object"))
    return JSON_NODE_HOLDS_OBJECT (node);
  if (g_str_equal (type, "array"))
    return JSON_NODE_HOLDS_ARRAY (node);
  if (g_str_equal (type, "null"))
    return JSON_NODE_HOLDS_NULL (node);
  if (g_str_equal (type, "string"))
    return value_type == G_TYPE_STRING;
  if (g_str_equal (type, "boolean"))
    return value_type == G_TYPE_BOOLEAN;
  if (g_str_equal (type, "integer"))
    return value_type == G_TYPE_INT64 ||
           (value_type == G_TYPE_DOUBLE &&
            json_node_get_double (node) ==
              (gint64) json_node_get_double (node));
  if (g_str_equal (type, "number"))
    return value_type == G_TYPE_INT64 || value_type == G_TYPE_DOUBLE;
  return TRUE; /* unknown types are not checked */
}

static gboolean
check_type (JsonNode *node, JsonNode *type, const char *path, GString *reason)
{
  if (JSON_NODE_HOLDS_VALUE (type) &&
      json_node_get_value_type (type) == G_TYPE_STRING)
    {
      if (node_has_type (node, json_node_get_string (type)))
        return TRUE;
      g_string_printf (reason, "%s: expected %s", path,
                       json_node_get_string (type));
      return FALSE;
    }
  if (JSON_NODE_HOLDS_ARRAY (type))
    {
      JsonArray *types = json_node_get_array (type);

      for (guint i = 0; i < json_array_get_length (types); i++)
        {
          JsonNode *t = json_array_get_element (types, i);

          if (JSON_NODE_HOLDS_VALUE (t) &&
              json_node_get_value_type (t) == G_TYPE_STRING &&
              node_has_type (node, json_node_get_string (t)))
            return TRUE;
        }
      g_string_printf (reason, "%s: unexpected type", path);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_enum (JsonNode *node,
            JsonObject *schema,
            const char *path,
            GString *reason)
{
  JsonNode *values = json_object_get_member (schema, "enum");
  JsonNode *constant = json_object_get_member (schema, "const");

  if (constant != NULL && !json_node_equal (node, constant))
    {
      g_string_printf (reason, "%s: not the constant value", path);
      return FALSE;
    }
  if (values == NULL || !JSON_NODE_HOLDS_ARRAY (values))
    return TRUE;
  for (guint i = 0; i < json_array_get_length (json_node_get_array (values));
       i++)
    if (json_node_equal (
          node, json_array_get_element (json_node_get_array (values), i)))
      return TRUE;
  g_string_printf (reason, "%s: not one of the allowed values", path);
  return FALSE;
}

static JsonObject *
schema_member (JsonObject *schema, const char *name)
{
  JsonNode *node = json_object_get_member (schema, name);

  return node && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node)
                                               : NULL;
}

static gboolean
check_object (JsonNode *node,
              JsonObject *schema,
              JsonObject *root,
              const char *path,
              guint depth,
              GString *reason)
{
  JsonObject *object = json_node_get_object (node);
  JsonObject *props = schema_member (schema, "properties");
  JsonNode *required = json_object_get_member (schema, "required");
  JsonNode *additional =
    json_object_get_member (schema, "additionalProperties");
  JsonObjectIter iter;
  const char *name;
  JsonNode *value;

  if (required != NULL && JSON_NODE_HOLDS_ARRAY (required))
    for (guint i = 0;
         i < json_array_get_length (json_node_get_array (required)); i++)
      {
        JsonNode *r =
          json_array_get_element (json_node_get_array (required), i);

        if (JSON_NODE_HOLDS_VALUE (r) &&
            json_node_get_value_type (r) == G_TYPE_STRING &&
            !json_object_has_member (object, json_node_get_string (r)))
          {
            g_string_printf (reason, "%s: missing member “%s”", path,
                             json_node_get_string (r));
            return FALSE;
          }
      }
  json_object_iter_init (&iter, object);
  while (json_object_iter_next (&iter, &name, &value))
    {
      g_autofree char *child = g_strdup_printf ("%s.%s", path, name);
      JsonObject *sub = props ? schema_member (props, name) : NULL;

      if (sub == NULL && additional != NULL &&
          JSON_NODE_HOLDS_VALUE (additional) &&
          json_node_get_value_type (additional) == G_TYPE_BOOLEAN &&
          !json_node_get_boolean (additional))
        {
          g_string_printf (reason, "%s: unexpected member", child);
          return FALSE;
        }
      if (sub == NULL && additional != NULL &&
          JSON_NODE_HOLDS_OBJECT (additional))
        sub = json_node_get_object (additional);
      if (sub != NULL && !validate (value, sub, root, child, depth + 1, reason))
        return FALSE;
    }
  return TRUE;
}

static gboolean
check_array (JsonNode *node,
             JsonObject *schema,
             JsonObject *root,
             const char *path,
             guint depth,
             GString *reason)
{
  JsonArray *array = json_node_get_array (node);
  JsonObject *items = schema_member (schema, "items");

  for (guint i = 0; items != NULL && i < json_array_get_length (array); i++)
    {
      g_autofree char *child = g_strdup_printf ("%s[%u]", path, i);

      if (!validate (json_array_get_element (array, i), items, root, child,
                     depth + 1, reason))
        return FALSE;
    }
  return TRUE;
}

/* A local reference "#/$defs/Name" (or "#/definitions/Name"). */
static JsonObject *
resolve_ref (JsonObject *root, const char *ref)
{
  g_auto (GStrv) parts = NULL;
  JsonObject *at = root;

  if (!g_str_has_prefix (ref, "#/"))
    return NULL;
  parts = g_strsplit (ref + 2, "/", -1);
  for (guint i = 0; at != NULL && parts[i] != NULL; i++)
    at = schema_member (at, parts[i]);
  return at;
}

static gboolean
check_combinators (JsonNode *node,
                   JsonObject *schema,
                   JsonObject *root,
                   const char *path,
                   guint depth,
                   GString *reason)
{
  const char *any[] = { "anyOf", "oneOf" };
  JsonNode *all = json_object_get_member (schema, "allOf");

  for (guint k = 0; k < G_N_ELEMENTS (any); k++)
    {
      JsonNode *options = json_object_get_member (schema, any[k]);
      gboolean matched = FALSE;

      if (options == NULL || !JSON_NODE_HOLDS_ARRAY (options))
        continue;
      for (guint i = 0; !matched && i < json_array_get_length (
                                          json_node_get_array (options));
           i++)
        {
          JsonNode *option =
            json_array_get_element (json_node_get_array (options), i);

          matched = JSON_NODE_HOLDS_OBJECT (option) &&
                    validate (node, json_node_get_object (option), root, path,
                              depth + 1, reason);
        }
      if (!matched)
        {
          g_string_printf (reason, "%s: matches none of “%s”", path, any[k]);
          return FALSE;
        }
    }
  for (guint i = 0; all != NULL && JSON_NODE_HOLDS_ARRAY (all) &&
                    i < json_array_get_length (json_node_get_array (all));
       i++)
    {
      JsonNode *part = json_array_get_element (json_node_get_array (all), i);

      if (JSON_NODE_HOLDS_OBJECT (part) &&
          !validate (node, json_node_get_object (part), root, path, depth + 1,
                     reason))
        return FALSE;
    }
  return TRUE;
}

/* A subset of JSON schema: type, enum, const, properties, required,
 * additionalProperties, items, anyOf, oneOf, allOf and local $ref —
 * what structured output schemas use. */
static gboolean
validate (JsonNode *node,
          JsonObject *schema,
          JsonObject *root,
          const char *path,
          guint depth,
          GString *reason)
{
  JsonNode *type = json_object_get_member (schema, "type");
  const char *ref = agents_run_private_json_string (schema, "$ref");

  if (depth > 64)
    {
      g_string_printf (reason, "%s: the schema nests too deep", path);
      return FALSE;
    }
  if (ref != NULL)
    {
      JsonObject *target = resolve_ref (root, ref);

      if (target == NULL)
        {
          g_string_printf (reason, "%s: unresolved reference %s", path, ref);
          return FALSE;
        }
      if (!validate (node, target, root, path, depth + 1, reason))
        return FALSE;
    }
  if ((type != NULL && !check_type (node, type, path, reason)) ||
      !check_enum (node, schema, path, reason) ||
      !check_combinators (node, schema, root, path, depth, reason))
    return FALSE;
  if (JSON_NODE_HOLDS_OBJECT (node))
    return check_object (node, schema, root, path, depth, reason);
  if (JSON_NODE_HOLDS_ARRAY (node))
    return check_array (node, schema, root, path, depth, reason);
  return TRUE;
}

/**
 * agents_json_schema_validate:
 * @schema: a JSON schema, also the root that local `$ref`s resolve in
 * @node: the value to check
 * @reason: where the first failure is described, as `$.path: what`
 *
 * Checks @node against @schema (the subset described above `validate()`).
 *
 * Returns: whether @node conforms; when not, @reason says why
 */
gboolean
agents_json_schema_validate (JsonObject *schema,
                             JsonNode *node,
                             GString *reason)
{
  g_return_val_if_fail (schema != NULL, FALSE);
  g_return_val_if_fail (node != NULL, FALSE);
  g_return_val_if_fail (reason != NULL, FALSE);

  return validate (node, schema, schema, "$", 0, reason);
}
