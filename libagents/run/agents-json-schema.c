/* agents-json-schema.c - a JSON schema validator
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "agents-json-schema-private.h"
#include "agents-run-private.h"

/* The reasons end up in errors that models read: not translated. */

/* Both documents may be hostile (a tool's schema can come from an MCP
 * server): a check is bounded in work, not only in depth, since anyOf
 * over self-references branches at every level. Each step (a schema
 * applied, a member, an enum value, a list entry) costs one, and one
 * more for every CHARS_PER_STEP bytes of the names it reads. */
#define MAX_STEPS (1024u * 1024)
#define CHARS_PER_STEP 64
/* Where a reason's path is cut. */
#define MAX_PATH 256

typedef struct
{
  JsonObject *root;
  GString *reason;
  guint steps;
} Check;

static gboolean validate (JsonNode *node,
                          JsonObject *schema,
                          Check *check,
                          const char *path,
                          guint depth);

/* Charges a step that reads @text (or nothing); FALSE once the budget is
 * spent, which fails the whole check. */
static gboolean
spend (Check *check, const char *text)
{
  gsize cost = 1 + (text ? strlen (text) / CHARS_PER_STEP : 0);

  if (check->steps > MAX_STEPS || cost > MAX_STEPS - check->steps)
    {
      check->steps = MAX_STEPS + 1;
      return FALSE;
    }
  check->steps += cost;
  return TRUE;
}

/* @path, then @separator and @name, cut at MAX_PATH bytes (on a
 * character boundary, marked by an ellipsis) so that long names in deep
 * values cost no more than their size. */
static char *
child_path (const char *path, const char *separator, const char *name)
{
  GString *child = g_string_new (path);
  gsize room;

  if (child->len > MAX_PATH)
    return g_string_free (child, FALSE);
  g_string_append (child, separator);
  room = child->len < MAX_PATH ? MAX_PATH - child->len : 0;
  g_string_append_len (child, name, strnlen (name, room + 1));
  if (child->len > MAX_PATH)
    {
      const char *cut =
        g_utf8_find_prev_char (child->str, child->str + MAX_PATH + 1);

      g_string_truncate (child, cut - child->str);
      g_string_append (child, "…");
    }
  return g_string_free (child, FALSE);
}

/* JSON schema's integer: a number without a fractional part. Casting a
 * double outside gint64's range is undefined, but every double that
 * large is whole. */
static gboolean
double_is_integer (double value)
{
  if (value > -0x1p63 && value < 0x1p63)
    return value == (double) (gint64) value;
  return isfinite (value);
}

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
            double_is_integer (json_node_get_double (node)));
  if (g_str_equal (type, "number"))
    return value_type == G_TYPE_INT64 || value_type == G_TYPE_DOUBLE;
  return TRUE; /* unknown types are not checked */
}

static gboolean
check_type (JsonNode *node, JsonNode *type, Check *check, const char *path)
{
  if (JSON_NODE_HOLDS_VALUE (type) &&
      json_node_get_value_type (type) == G_TYPE_STRING)
    {
      if (!spend (check, json_node_get_string (type)))
        return FALSE;
      if (node_has_type (node, json_node_get_string (type)))
        return TRUE;
      g_string_printf (check->reason, "%s: expected %s", path,
                       json_node_get_string (type));
      return FALSE;
    }
  if (JSON_NODE_HOLDS_ARRAY (type))
    {
      JsonArray *types = json_node_get_array (type);

      for (guint i = 0; i < json_array_get_length (types); i++)
        {
          JsonNode *t = json_array_get_element (types, i);

          if (!spend (check, NULL))
            return FALSE;
          if (JSON_NODE_HOLDS_VALUE (t) &&
              json_node_get_value_type (t) == G_TYPE_STRING &&
              node_has_type (node, json_node_get_string (t)))
            return TRUE;
        }
      g_string_printf (check->reason, "%s: unexpected type", path);
      return FALSE;
    }
  return TRUE;
}

static gboolean equal (Check *check, JsonNode *a, JsonNode *b);

static gboolean
equal_arrays (Check *check, JsonArray *a, JsonArray *b)
{
  guint n = json_array_get_length (a);

  if (n != json_array_get_length (b))
    return FALSE;
  for (guint i = 0; i < n; i++)
    if (!equal (check, json_array_get_element (a, i),
                json_array_get_element (b, i)))
      return FALSE;
  return TRUE;
}

static gboolean
equal_objects (Check *check, JsonObject *a, JsonObject *b)
{
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;

  if (json_object_get_size (a) != json_object_get_size (b))
    return FALSE;
  json_object_iter_init (&iter, a);
  while (json_object_iter_next (&iter, &name, &member))
    if (!spend (check, name) || !json_object_has_member (b, name) ||
        !equal (check, member, json_object_get_member (b, name)))
      return FALSE;
  return TRUE;
}

/* json_node_equal() (numbers compare by value), charging a step per node
 * compared: a const or an enum value costs its size at every path that
 * meets it. FALSE also once the budget is spent. */
static gboolean
equal (Check *check, JsonNode *a, JsonNode *b)
{
  if (!spend (check, NULL))
    return FALSE;
  if (JSON_NODE_HOLDS_ARRAY (a) && JSON_NODE_HOLDS_ARRAY (b))
    return equal_arrays (check, json_node_get_array (a),
                         json_node_get_array (b));
  if (JSON_NODE_HOLDS_OBJECT (a) && JSON_NODE_HOLDS_OBJECT (b))
    return equal_objects (check, json_node_get_object (a),
                          json_node_get_object (b));
  return json_node_equal (a, b);
}

static gboolean
check_enum (JsonNode *node, JsonObject *schema, Check *check, const char *path)
{
  JsonNode *values = json_object_get_member (schema, "enum");
  JsonNode *constant = json_object_get_member (schema, "const");

  if (constant != NULL && !equal (check, node, constant))
    {
      if (check->steps <= MAX_STEPS)
        g_string_printf (check->reason, "%s: not the constant value", path);
      return FALSE;
    }
  if (values == NULL || !JSON_NODE_HOLDS_ARRAY (values))
    return TRUE;
  for (guint i = 0; i < json_array_get_length (json_node_get_array (values));
       i++)
    {
      if (equal (check, node,
                 json_array_get_element (json_node_get_array (values), i)))
        return TRUE;
      if (check->steps > MAX_STEPS)
        return FALSE;
    }
  g_string_printf (check->reason, "%s: not one of the allowed values", path);
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
check_required (JsonObject *object,
                JsonObject *schema,
                Check *check,
                const char *path)
{
  JsonNode *required = json_object_get_member (schema, "required");

  if (required == NULL || !JSON_NODE_HOLDS_ARRAY (required))
    return TRUE;
  for (guint i = 0; i < json_array_get_length (json_node_get_array (required));
       i++)
    {
      JsonNode *r = json_array_get_element (json_node_get_array (required), i);
      const char *name;

      if (!JSON_NODE_HOLDS_VALUE (r) ||
          json_node_get_value_type (r) != G_TYPE_STRING)
        continue;
      name = json_node_get_string (r);
      if (!spend (check, name))
        return FALSE;
      if (!json_object_has_member (object, name))
        {
          g_string_printf (check->reason, "%s: missing member “%s”", path,
                           name);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
check_object (JsonNode *node,
              JsonObject *schema,
              Check *check,
              const char *path,
              guint depth)
{
  JsonObject *object = json_node_get_object (node);
  JsonObject *props = schema_member (schema, "properties");
  JsonNode *additional =
    json_object_get_member (schema, "additionalProperties");
  JsonObjectIter iter;
  const char *name;
  JsonNode *value;

  if (!check_required (object, schema, check, path))
    return FALSE;
  json_object_iter_init (&iter, object);
  while (json_object_iter_next (&iter, &name, &value))
    {
      g_autofree char *child = NULL;
      JsonObject *sub;

      if (!spend (check, name))
        return FALSE;
      child = child_path (path, ".", name);
      sub = props ? schema_member (props, name) : NULL;
      if (sub == NULL && additional != NULL &&
          JSON_NODE_HOLDS_VALUE (additional) &&
          json_node_get_value_type (additional) == G_TYPE_BOOLEAN &&
          !json_node_get_boolean (additional))
        {
          g_string_printf (check->reason, "%s: unexpected member", child);
          return FALSE;
        }
      if (sub == NULL && additional != NULL &&
          JSON_NODE_HOLDS_OBJECT (additional))
        sub = json_node_get_object (additional);
      if (sub != NULL && !validate (value, sub, check, child, depth + 1))
        return FALSE;
    }
  return TRUE;
}

static gboolean
check_array (JsonNode *node,
             JsonObject *schema,
             Check *check,
             const char *path,
             guint depth)
{
  JsonArray *array = json_node_get_array (node);
  JsonObject *items = schema_member (schema, "items");

  for (guint i = 0; items != NULL && i < json_array_get_length (array); i++)
    {
      char index[32];
      g_autofree char *child = NULL;

      g_snprintf (index, sizeof index, "[%u]", i);
      child = child_path (path, index, "");
      if (!validate (json_array_get_element (array, i), items, check, child,
                     depth + 1))
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
                   Check *check,
                   const char *path,
                   guint depth)
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

          if (!spend (check, NULL))
            return FALSE;
          matched = JSON_NODE_HOLDS_OBJECT (option) &&
                    validate (node, json_node_get_object (option), check, path,
                              depth + 1);
        }
      if (!matched)
        {
          g_string_printf (check->reason, "%s: matches none of “%s”", path,
                           any[k]);
          return FALSE;
        }
    }
  for (guint i = 0; all != NULL && JSON_NODE_HOLDS_ARRAY (all) &&
                    i < json_array_get_length (json_node_get_array (all));
       i++)
    {
      JsonNode *part = json_array_get_element (json_node_get_array (all), i);

      if (!spend (check, NULL))
        return FALSE;
      if (JSON_NODE_HOLDS_OBJECT (part) &&
          !validate (node, json_node_get_object (part), check, path, depth + 1))
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
          Check *check,
          const char *path,
          guint depth)
{
  JsonNode *type = json_object_get_member (schema, "type");
  const char *ref = agents_run_private_json_string (schema, "$ref");

  if (depth > 64)
    {
      g_string_printf (check->reason, "%s: the schema nests too deep", path);
      return FALSE;
    }
  if (!spend (check, ref))
    return FALSE;
  if (ref != NULL)
    {
      JsonObject *target = resolve_ref (check->root, ref);

      if (target == NULL)
        {
          g_string_printf (check->reason, "%s: unresolved reference %s", path,
                           ref);
          return FALSE;
        }
      if (!validate (node, target, check, path, depth + 1))
        return FALSE;
    }
  if ((type != NULL && !check_type (node, type, check, path)) ||
      !check_enum (node, schema, check, path) ||
      !check_combinators (node, schema, check, path, depth))
    return FALSE;
  if (JSON_NODE_HOLDS_OBJECT (node))
    return check_object (node, schema, check, path, depth);
  if (JSON_NODE_HOLDS_ARRAY (node))
    return check_array (node, schema, check, path, depth);
  return TRUE;
}

/**
 * agents_json_schema_validate:
 * @schema: a JSON schema, also the root that local `$ref`s resolve in
 * @node: the value to check
 * @reason: where the first failure is described, as `$.path: what`
 *
 * Checks @node against @schema (the subset described above `validate()`).
 * A check that takes too many steps fails with the reason "$: the schema
 * takes too long to check".
 *
 * Returns: whether @node conforms; when not, @reason says why
 */
gboolean
agents_json_schema_validate (JsonObject *schema,
                             JsonNode *node,
                             GString *reason)
{
  Check check = { schema, reason, 0 };

  g_return_val_if_fail (schema != NULL, FALSE);
  g_return_val_if_fail (node != NULL, FALSE);
  g_return_val_if_fail (reason != NULL, FALSE);

  if (validate (node, schema, &check, "$", 0))
    return TRUE;
  if (check.steps > MAX_STEPS)
    g_string_assign (reason, "$: the schema takes too long to check");
  return FALSE;
}
