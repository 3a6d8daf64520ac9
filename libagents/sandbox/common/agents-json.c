/* agents-json.c - reading and writing the sandbox's JSON
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include <string.h>

#include "agents-file-private.h"
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

/* ---- parsing ----------------------------------------------------------- */

static void set_parse_error (GError **error,
                             const char *document,
                             const char *reason,
                             const char *format,
                             ...) G_GNUC_PRINTF (4, 5);

/* "DOCUMENT: invalid JSON: DETAIL" (or "DOCUMENT: JSON DETAIL" for a
 * limit), or DETAIL alone without a @document. */
static void
set_parse_error (GError **error,
                 const char *document,
                 const char *reason,
                 const char *format,
                 ...)
{
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  gboolean limit = g_str_has_prefix (reason, "too_");
  g_autofree char *valid = NULL;
  g_autofree char *detail = NULL;
  va_list args;

  va_start (args, format);
  detail = g_strdup_vprintf (format, args);
  va_end (args);

  g_variant_builder_add (&ctx, "{sv}", "reason", g_variant_new_string (reason));
  if (document == NULL)
    {
      agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_JSON,
                                g_variant_builder_end (&ctx), "%s", detail);
      return;
    }
  valid = g_utf8_make_valid (document, -1);
  g_variant_builder_add (&ctx, "{sv}", "document",
                         g_variant_new_string (valid));
  /* TRANSLATORS: the document, then why it was refused. */
  agents_sandbox_error_set (
    error, AGENTS_SANDBOX_ERROR_INVALID_JSON, g_variant_builder_end (&ctx),
    limit ? _ ("%s: JSON %s") : _ ("%s: invalid JSON: %s"), valid, detail);
}

typedef enum
{
  SCAN_OK,
  SCAN_NOT_JSON,     /* a byte that JSON does not allow there */
  SCAN_SECOND_VALUE, /* a value after the document's value */
  SCAN_NUL_ESCAPE,   /* a string's \u0000, which a C string cannot hold */
} ScanResult;

static gboolean
is_space (char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* A byte of a number, true, false or null. */
static gboolean
is_scalar_byte (char c)
{
  return g_ascii_isalnum (c) || c == '-' || c == '+' || c == '.';
}

/* Walks @data as json-glib's scanner will, counting the nesting of
 * brackets outside strings (*depth). What json-glib accepts beyond JSON
 * and would make the two disagree on where strings are (comments,
 * single-quoted strings, NUL bytes) is refused, and so is a second value
 * after the first (json-glib reads them all, keeps the last and leaks
 * the others); *at is the offset of the byte refused. So is a \u0000
 * escape: json-glib would end the string there without a word, and a
 * command or a path would silently lose what follows. */
static ScanResult
scan_document (
  const char *data, gsize length, gboolean allow_nul, guint *depth, gsize *at)
{
  gboolean in_string = FALSE, in_scalar = FALSE, value_done = FALSE;
  guint level = 0;

  *depth = 0;
  for (*at = 0; *at < length; (*at)++)
    {
      char c = data[*at];

      if (c == '\0')
        return SCAN_NOT_JSON;
      if (in_string)
        {
          if (!allow_nul && c == '\\' && *at + 5 < length &&
              memcmp (data + *at + 1, "u0000", 5) == 0)
            return SCAN_NUL_ESCAPE;
          if (c == '\\' && *at + 1 < length && data[*at + 1] != '\0')
            (*at)++;
          else if (c == '"')
            {
              in_string = FALSE;
              value_done = level == 0;
            }
          continue;
        }
      if (c == '/' || c == '\'')
        return SCAN_NOT_JSON;
      if (is_space (c))
        {
          value_done = value_done || in_scalar;
          in_scalar = FALSE;
          continue;
        }
      if (level == 0)
        {
          if (value_done || (in_scalar && (c == '"' || c == '[' || c == '{')))
            return SCAN_SECOND_VALUE;
          if (c != '"' && c != '[' && c != '{')
            {
              if (!is_scalar_byte (c))
                return SCAN_NOT_JSON;
              in_scalar = TRUE;
              continue;
            }
        }
      if (c == '"')
        in_string = TRUE;
      else if (c == '[' || c == '{')
        {
          level++;
          *depth = MAX (*depth, level);
          /* Deeper is refused anyway: no need to read on. */
          if (level > AGENTS_JSON_MAX_DEPTH)
            return SCAN_OK;
        }
      else if (c == ']' || c == '}')
        value_done = --level == 0;
    }
  return SCAN_OK;
}

/* Why scan_document() refused the byte at @at. */
static void
set_scan_error (GError **error,
                const char *document,
                ScanResult result,
                const char *data,
                gsize at)
{
  char shown[8];

  if (result == SCAN_SECOND_VALUE)
    {
      set_parse_error (error, document, "parse_error",
                       _ ("a second value at byte %u"), (guint) at);
      return;
    }
  if (result == SCAN_NUL_ESCAPE)
    {
      set_parse_error (error, document, "parse_error",
                       _ ("a NUL character (\\u0000) in a string at byte "
                          "%u: strings cannot hold one"),
                       (guint) at);
      return;
    }
  if (g_ascii_isgraph (data[at]))
    g_snprintf (shown, sizeof shown, "%c", data[at]);
  else
    g_snprintf (shown, sizeof shown, "\\x%02x", (guchar) data[at]);
  if (data[at] == '/' || data[at] == '\'' || data[at] == '\0')
    set_parse_error (error, document, "parse_error",
                     _ ("unexpected “%s” at byte %u (comments, single quotes "
                        "and NUL bytes are not JSON)"),
                     shown, (guint) at);
  else
    set_parse_error (error, document, "parse_error",
                     _ ("unexpected “%s” at byte %u"), shown, (guint) at);
}

static JsonNode *
parse_bounded (const char *data,
               gssize length,
               const char *document,
               gboolean allow_nul,
               GError **error)
{
  g_autoptr (JsonParser) parser = NULL;
  g_autoptr (GError) parse_error = NULL;
  ScanResult scan;
  gsize size, at;
  guint depth;

  g_return_val_if_fail (data != NULL || length == 0, NULL);
  size = length < 0 ? strnlen (data, (gsize) AGENTS_JSON_MAX_SIZE + 1)
                    : (gsize) length;
  if (size > AGENTS_JSON_MAX_SIZE)
    {
      set_parse_error (error, document, "too_large", _ ("larger than %d bytes"),
                       AGENTS_JSON_MAX_SIZE);
      return NULL;
    }
  scan = scan_document (data, size, allow_nul, &depth, &at);
  if (scan != SCAN_OK)
    {
      set_scan_error (error, document, scan, data, at);
      return NULL;
    }
  if (depth > AGENTS_JSON_MAX_DEPTH)
    {
      set_parse_error (error, document, "too_deep",
                       _ ("nested deeper than %d levels"),
                       AGENTS_JSON_MAX_DEPTH);
      return NULL;
    }
  parser = json_parser_new_immutable ();
  if (!json_parser_load_from_data (parser, data, size, &parse_error))
    {
      set_parse_error (error, document, "parse_error", "%s",
                       parse_error->message);
      return NULL;
    }
  if (json_parser_get_root (parser) == NULL)
    {
      set_parse_error (error, document, "empty", _ ("the document is empty"));
      return NULL;
    }
  return json_parser_steal_root (parser);
}

JsonNode *
agents_json_parse_bounded (const char *data,
                           gssize length,
                           const char *document,
                           GError **error)
{
  return parse_bounded (data, length, document, FALSE, error);
}

JsonNode *
agents_json_parse_bounded_allowing_nul (const char *data,
                                        gssize length,
                                        const char *document,
                                        GError **error)
{
  return parse_bounded (data, length, document, TRUE, error);
}

JsonNode *
agents_json_load_file (const char *path, const char *kind, GError **error)
{
  g_autofree char *contents = NULL;
  g_autofree char *display = g_filename_display_name (path);
  g_autofree char *document = g_strdup_printf ("%s %s", kind, display);
  gsize length;

  if (!agents_file_read_regular (path, AGENTS_JSON_MAX_SIZE, &contents, &length,
                                 error))
    {
      g_prefix_error (error, "%s ", kind);
      return NULL;
    }
  return agents_json_parse_bounded (contents, length, document, error);
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

  if (object == NULL ||
      !agents_json_lookup (object, member, G_TYPE_STRING, &node) ||
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

/* ---- copying ----------------------------------------------------------- */

static JsonNode *deep_copy_node (JsonNode *node);

static void
copy_member (JsonObject *object,
             const char *name,
             JsonNode *member,
             gpointer user_data)
{
  json_object_set_member (user_data, name, deep_copy_node (member));
}

static void
copy_element (JsonArray *array,
              guint index,
              JsonNode *element,
              gpointer user_data)
{
  json_array_add_element (user_data, deep_copy_node (element));
}

/* A structural copy: nothing is shared with @node, and values keep their
 * exact types (no text round trip). */
static JsonNode *
deep_copy_node (JsonNode *node)
{
  JsonNode *copy;

  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObject *object = json_object_new ();
        JsonNode *result;

        json_object_foreach_member (json_node_get_object (node), copy_member,
                                    object);
        result = json_node_init_object (json_node_alloc (), object);
        json_object_unref (object);
        return result;
      }
    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_array_new ();
        JsonNode *result;

        json_array_foreach_element (json_node_get_array (node), copy_element,
                                    array);
        result = json_node_init_array (json_node_alloc (), array);
        json_array_unref (array);
        return result;
      }
    case JSON_NODE_NULL:
      return json_node_init_null (json_node_alloc ());
    default:
      break;
    }
  /* Values are copied, not shared: setters on a node may reuse its value. */
  copy = json_node_alloc ();
  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64:
      return json_node_init_int (copy, json_node_get_int (node));
    case G_TYPE_DOUBLE:
      return json_node_init_double (copy, json_node_get_double (node));
    case G_TYPE_BOOLEAN:
      return json_node_init_boolean (copy, json_node_get_boolean (node));
    case G_TYPE_STRING:
      return json_node_init_string (copy, json_node_get_string (node));
    default:
      return json_node_init_null (copy);
    }
}

JsonObject *
agents_json_object_copy (JsonObject *object)
{
  g_autoptr (JsonNode) node = NULL;
  g_autoptr (JsonNode) copy = NULL;

  if (object == NULL)
    return NULL;
  node = json_node_init_object (json_node_alloc (), object);
  copy = deep_copy_node (node);
  return json_object_ref (json_node_get_object (copy));
}

JsonArray *
agents_json_array_copy (JsonArray *array)
{
  g_autoptr (JsonNode) node = NULL;
  g_autoptr (JsonNode) copy = NULL;

  if (array == NULL)
    return NULL;
  node = json_node_init_array (json_node_alloc (), array);
  copy = deep_copy_node (node);
  return json_array_ref (json_node_get_array (copy));
}

/* ---- members of typed objects --------------------------------------- */

/* Mount patterns and strategies (plugins/s3mount) name the object's type
 * in their errors: "TYPE: “MEMBER” must be …", context {type, member}. */
#define AGENTS_JSON_MAX_TYPED_STRV 64

GVariant *
agents_json_typed_context (const char *owner, const char *member)
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
set_typed_type_error (GError **error,
                      const char *owner,
                      const char *member,
                      const char *expected)
{
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_JSON,
                            agents_json_typed_context (owner, member),
                            _ ("%s: “%s” must be %s"), owner, member, expected);
}

static gboolean
typed_node_is_null (JsonNode *node)
{
  return node == NULL || JSON_NODE_HOLDS_NULL (node);
}

gboolean
agents_json_typed_dup_string (JsonObject *object,
                              const char *owner,
                              const char *member,
                              char **out,
                              GError **error)
{
  JsonNode *node = json_object_get_member (object, member);

  if (typed_node_is_null (node))
    {
      *out = NULL;
      return TRUE;
    }
  if (!JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    {
      set_typed_type_error (error, owner, member, _ ("a string"));
      return FALSE;
    }
  *out = json_node_dup_string (node);
  return TRUE;
}

static gboolean
typed_element_is_string (JsonNode *node)
{
  return JSON_NODE_HOLDS_VALUE (node) &&
         json_node_get_value_type (node) == G_TYPE_STRING;
}

gboolean
agents_json_typed_dup_strv (JsonObject *object,
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
  if (typed_node_is_null (node))
    return TRUE;
  array = JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
  n = array != NULL ? json_array_get_length (array) : 0;
  if (array == NULL || n > AGENTS_JSON_MAX_TYPED_STRV)
    {
      set_typed_type_error (error, owner, member,
                            _ ("a short list of strings"));
      return FALSE;
    }

  builder = g_strv_builder_new ();
  for (guint i = 0; i < n; i++)
    {
      JsonNode *element = json_array_get_element (array, i);

      if (!typed_element_is_string (element))
        {
          set_typed_type_error (error, owner, member,
                                _ ("a short list of strings"));
          return FALSE;
        }
      g_strv_builder_add (builder, json_node_get_string (element));
    }
  *out = g_strv_builder_end (builder);
  return TRUE;
}

JsonObject *
agents_json_typed_require_object (JsonNode *node,
                                  const char *owner,
                                  GError **error)
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
