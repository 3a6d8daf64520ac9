/* agents-json.c - reading and writing the sandbox's JSON
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-json-private.h"
#include "agents-sandbox-error-private.h"

/* ---- errors ------------------------------------------------------------ */

void
agents_json_set_error (GError **error,
                       const char *member,
                       const char *reason,
                       const char *format,
                       ...)
{
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  g_variant_builder_add (&ctx, "{sv}", "member", g_variant_new_string (member));
  if (reason != NULL)
    g_variant_builder_add (&ctx, "{sv}", "reason",
                           g_variant_new_string (reason));
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_JSON,
                            g_variant_builder_end (&ctx), "%s", message);
}

void
agents_json_set_wrong_type (GError **error,
                            const char *member,
                            const char *expected)
{
  agents_json_set_error (error, member, "wrong_type",
                         _ ("JSON member “%s” must be %s"), member, expected);
}

void
agents_json_set_missing (GError **error, const char *member)
{
  agents_json_set_error (error, member, "missing",
                         _ ("missing JSON member “%s”"), member);
}

/* ---- reading ----------------------------------------------------------- */

gboolean
agents_json_holds (JsonNode *node, GType type)
{
  return JSON_NODE_HOLDS_VALUE (node) &&
         json_node_get_value_type (node) == type;
}

JsonObject *
agents_json_require_object (JsonNode *node, const char *what, GError **error)
{
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      agents_json_set_wrong_type (error, what, _ ("an object"));
      return NULL;
    }
  return json_node_get_object (node);
}

gboolean
agents_json_lookup (JsonObject *object,
                    const char *member,
                    GType type,
                    JsonNode **out)
{
  JsonNode *node = json_object_get_member (object, member);

  *out = NULL;
  if (node == NULL)
    return TRUE;
  if (!agents_json_holds (node, type))
    return FALSE;
  *out = node;
  return TRUE;
}

const char *
agents_json_get_string (JsonObject *object, const char *member)
{
  JsonNode *node;

  if (!agents_json_lookup (object, member, G_TYPE_STRING, &node) ||
      node == NULL)
    return NULL;
  return json_node_get_string (node);
}

gboolean
agents_json_read_string (JsonObject *object,
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
        agents_json_set_missing (error, member);
      return !required;
    }
  if (nullable && JSON_NODE_HOLDS_NULL (node))
    {
      *out = NULL;
      return TRUE;
    }
  if (!agents_json_holds (node, G_TYPE_STRING))
    {
      agents_json_set_wrong_type (
        error, member, nullable ? _ ("a string or null") : _ ("a string"));
      return FALSE;
    }
  *out = json_node_get_string (node);
  return TRUE;
}

gboolean
agents_json_read_boolean (JsonObject *object,
                          const char *member,
                          gboolean *out,
                          GError **error)
{
  JsonNode *node;

  if (!agents_json_lookup (object, member, G_TYPE_BOOLEAN, &node))
    {
      agents_json_set_wrong_type (error, member, _ ("a boolean"));
      return FALSE;
    }
  if (node != NULL)
    *out = json_node_get_boolean (node);
  return TRUE;
}

gboolean
agents_json_read_container (JsonObject *object,
                            const char *member,
                            JsonNodeType node_type,
                            JsonNode **out,
                            GError **error)
{
  JsonNode *node = json_object_get_member (object, member);

  *out = NULL;
  if (node == NULL)
    return TRUE;
  if (JSON_NODE_TYPE (node) != node_type)
    {
      agents_json_set_wrong_type (
        error, member,
        node_type == JSON_NODE_OBJECT ? _ ("an object") : _ ("an array"));
      return FALSE;
    }
  *out = node;
  return TRUE;
}

/* ---- writing ----------------------------------------------------------- */

void
agents_json_add_string (JsonBuilder *builder,
                        const char *member,
                        const char *value)
{
  json_builder_set_member_name (builder, member);
  json_builder_add_string_value (builder, value);
}

void
agents_json_add_nullable_string (JsonBuilder *builder,
                                 const char *member,
                                 const char *value)
{
  json_builder_set_member_name (builder, member);
  if (value != NULL)
    json_builder_add_string_value (builder, value);
  else
    json_builder_add_null_value (builder);
}

void
agents_json_add_boolean (JsonBuilder *builder,
                         const char *member,
                         gboolean value)
{
  json_builder_set_member_name (builder, member);
  json_builder_add_boolean_value (builder, value);
}

void
agents_json_add_int (JsonBuilder *builder, const char *member, gint64 value)
{
  json_builder_set_member_name (builder, member);
  json_builder_add_int_value (builder, value);
}

void
agents_json_add_node (JsonBuilder *builder, const char *member, JsonNode *value)
{
  json_builder_set_member_name (builder, member);
  if (value != NULL)
    json_builder_add_value (builder, value);
  else
    json_builder_add_null_value (builder);
}
