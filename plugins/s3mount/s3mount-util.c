/* s3mount-util.c - helpers shared by the s3mount sources
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-sandbox-error-private.h"
#include "agents-s3-mount-private.h"

#define MAX_STRV_LENGTH 64

static GVariant *
member_context (const char *owner, const char *member)
{
  g_auto (GVariantBuilder) builder =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  g_variant_builder_add (&builder, "{sv}", "type",
                         g_variant_new_string (owner));
  g_variant_builder_add (&builder, "{sv}", "member",
                         g_variant_new_string (member));
  return g_variant_builder_end (&builder);
}

static void
set_type_error (GError **error,
                const char *owner,
                const char *member,
                const char *expected)
{
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_JSON,
                            member_context (owner, member),
                            _ ("%s: “%s” must be %s"), owner, member, expected);
}

static gboolean
node_is_null (JsonNode *node)
{
  return node == NULL || JSON_NODE_HOLDS_NULL (node);
}

gboolean
s3mount_json_get_string (JsonObject *object,
                         const char *owner,
                         const char *member,
                         char **out,
                         GError **error)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node_is_null (node))
    {
      *out = NULL;
      return TRUE;
    }
  if (!JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    {
      set_type_error (error, owner, member, _ ("a string"));
      return FALSE;
    }
  *out = json_node_dup_string (node);
  return TRUE;
}

static gboolean
element_is_string (JsonNode *node)
{
  return JSON_NODE_HOLDS_VALUE (node) &&
         json_node_get_value_type (node) == G_TYPE_STRING;
}

gboolean
s3mount_json_get_strv (JsonObject *object,
                       const char *owner,
                       const char *member,
                       char ***out,
                       GError **error)
{
  JsonNode *node = json_object_get_member (object, member);
  g_autoptr (GStrvBuilder) builder = NULL;
  JsonArray *array;
  guint n;

  *out = NULL;
  if (node_is_null (node))
    return TRUE;
  array = JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
  n = array != NULL ? json_array_get_length (array) : 0;
  if (array == NULL || n > MAX_STRV_LENGTH)
    {
      set_type_error (error, owner, member, _ ("a short list of strings"));
      return FALSE;
    }

  builder = g_strv_builder_new ();
  for (guint i = 0; i < n; i++)
    {
      JsonNode *element = json_array_get_element (array, i);

      if (!element_is_string (element))
        {
          set_type_error (error, owner, member, _ ("a short list of strings"));
          return FALSE;
        }
      g_strv_builder_add (builder, json_node_get_string (element));
    }
  *out = g_strv_builder_end (builder);
  return TRUE;
}

JsonObject *
s3mount_json_get_object (JsonNode *node, const char *owner, GError **error)
{
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_auto (GVariantBuilder) builder =
        G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

      g_variant_builder_add (&builder, "{sv}", "type",
                             g_variant_new_string (owner));
      agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_JSON,
                                g_variant_builder_end (&builder),
                                _ ("%s must be a JSON object"), owner);
      return NULL;
    }
  return json_node_get_object (node);
}

void
s3mount_builder_add_string (JsonBuilder *builder,
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
s3mount_set_config_error (GError **error,
                          const char *owner,
                          const char *member,
                          const char *message)
{
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_MOUNT_CONFIG,
                            member_context (owner, member), "%s: %s", owner,
                            message);
}

gboolean
s3mount_text_is_safe (const char *text)
{
  if (text == NULL || !g_utf8_validate (text, -1, NULL))
    return FALSE;
  for (const char *p = text; *p != '\0'; p++)
    if ((guchar) *p < 0x20 || *p == 0x7f)
      return FALSE;
  return TRUE;
}

gboolean
s3mount_path_is_safe (const char *path)
{
  return s3mount_text_is_safe (path) && g_path_is_absolute (path);
}

char **
s3mount_environ_add (char **envp, const char *name, const char *value)
{
  if (value == NULL)
    return envp;
  return g_environ_setenv (envp, name, value, TRUE);
}

gboolean
s3mount_set_str (char **field, const char *value)
{
  if (g_strcmp0 (*field, value) == 0)
    return FALSE;
  g_free (*field);
  *field = g_strdup (value);
  return TRUE;
}
