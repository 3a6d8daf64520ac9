/* agents-json-private.h - reading and writing the sandbox's JSON
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every JSON document read by the sandbox is hostile: members are
 * type-checked, and a wrong one is an %AGENTS_SANDBOX_ERROR_INVALID_JSON
 * error whose context names the member (`member`) and, mostly, why it
 * was refused (`reason`).
 */

#pragma once

#include <json-glib/json-glib.h>

#include "agents-version-macros.h"

G_BEGIN_DECLS

/* ---- parsing ----------------------------------------------------------- */

/* json-glib's parser (and the generator, copy and equality after it)
 * recurse once per level of nesting: a deep document overflows the stack.
 * Every document read from outside goes through
 * agents_json_parse_bounded(), which refuses one nested deeper than
 * AGENTS_JSON_MAX_DEPTH or larger than AGENTS_JSON_MAX_SIZE bytes before
 * the parser sees it. */
#define AGENTS_JSON_MAX_DEPTH 512
#define AGENTS_JSON_MAX_SIZE (64 * 1024 * 1024)

/* Parses @length bytes of @data (-1: NUL-terminated), the document that
 * errors call @document ("agent file /x/agent.json"). Beyond the limits,
 * or not one JSON value (json-glib's extensions, comments and
 * single-quoted strings, are refused too, and so is a string's \u0000
 * escape, which json-glib would cut the string at), it fails with an
 * INVALID_JSON sandbox error whose message starts with @document ("DOCUMENT:
 * JSON nested deeper than 512 levels", "DOCUMENT: invalid JSON: …") and whose
 * context is {document, reason}: `too_deep`, `too_large`, `parse_error` or
 * `empty`. With @document NULL, the message is the detail alone ("nested deeper
 * than 512 levels"), for callers that say what the document is themselves.
 * Returns the root (transfer full).
 *
 * Exported (not public API) for the `agents` program and the plugins,
 * which link the shared library. */
AGENTS_AVAILABLE_IN_1_0
JsonNode *agents_json_parse_bounded (const char *data,
                                     gssize length,
                                     const char *document,
                                     GError **error);
/* The same, where a string's \u0000 escape is allowed: json-glib ends
 * the string at it. agents_json_parse_bounded() refuses it (a command or
 * a path must not silently lose what follows); a model server's text may
 * lose it rather than fail the run. */
JsonNode *agents_json_parse_bounded_allowing_nul (const char *data,
                                                  gssize length,
                                                  const char *document,
                                                  GError **error);

/* Reads the regular file @path (see agents_file_read_regular()) and
 * parses it with agents_json_parse_bounded(). Errors start with "KIND
 * PATH: " (@kind: "agent file", "run state", …); they are G_IO_ERROR
 * ones when the file cannot be read (not a regular file, too large). */
AGENTS_AVAILABLE_IN_1_0
JsonNode *
agents_json_load_file (const char *path, const char *kind, GError **error);

/* ---- errors ------------------------------------------------------------ */

/* Sets an INVALID_JSON error with the context {member, reason}, or
 * {member} alone when @reason is NULL. */
void agents_json_set_error (GError **error,
                            const char *member,
                            const char *reason,
                            const char *format,
                            ...) G_GNUC_PRINTF (4, 5);
/* "JSON member “MEMBER” must be EXPECTED", reason `wrong_type`. */
void agents_json_set_wrong_type (GError **error,
                                 const char *member,
                                 const char *expected);
/* "missing JSON member “MEMBER”", reason `missing`. */
void agents_json_set_missing (GError **error, const char *member);

/* ---- reading ----------------------------------------------------------- */

/* Whether @node is a value of @type (G_TYPE_STRING, G_TYPE_INT64, …). */
gboolean agents_json_holds (JsonNode *node, GType type);

/* The object held by @node; a wrong-type error for @what otherwise. */
JsonObject *
agents_json_require_object (JsonNode *node, const char *what, GError **error);

/* Looks @member up: *out is the node when it is a value of @type, NULL
 * when it is absent. Returns FALSE (setting no error) when it is present
 * with another type. */
gboolean agents_json_lookup (JsonObject *object,
                             const char *member,
                             GType type,
                             JsonNode **out);

/* The string value of @member, or NULL when it or @object is absent or
 * it is not a string. Never warns: JSON from models is hostile. */
const char *agents_json_get_string (JsonObject *object, const char *member);

/* Reads a string member into *out (borrowed from @object); *out is left
 * alone when the member is absent and not @required. With @nullable, a
 * JSON null reads as NULL. */
gboolean agents_json_read_string (JsonObject *object,
                                  const char *member,
                                  gboolean nullable,
                                  gboolean required,
                                  const char **out,
                                  GError **error);

/* Reads an optional boolean member; *out is left alone when absent. */
gboolean agents_json_read_boolean (JsonObject *object,
                                   const char *member,
                                   gboolean *out,
                                   GError **error);

/* Gets an optional member that must be an object or an array
 * (@node_type) when present; *out is NULL when it is absent. */
gboolean agents_json_read_container (JsonObject *object,
                                     const char *member,
                                     JsonNodeType node_type,
                                     JsonNode **out,
                                     GError **error);

/* Members of a typed object that names its type @owner in its errors:
 * "OWNER: “MEMBER” must be a string" (INVALID_JSON, context {type,
 * member}). A null or absent member reads as NULL. Exported (not public
 * API) for the plugins. */
AGENTS_AVAILABLE_IN_1_0
gboolean agents_json_typed_dup_string (JsonObject *object,
                                       const char *owner,
                                       const char *member,
                                       char **out,
                                       GError **error);
/* The context {type: @owner, member: @member} of such errors
 * (floating). */
AGENTS_AVAILABLE_IN_1_0
GVariant *agents_json_typed_context (const char *owner, const char *member);
/* The same for a list of at most 64 strings. */
AGENTS_AVAILABLE_IN_1_0
gboolean agents_json_typed_dup_strv (JsonObject *object,
                                     const char *owner,
                                     const char *member,
                                     char ***out,
                                     GError **error);
/* The object held by @node; "OWNER must be a JSON object" otherwise. */
AGENTS_AVAILABLE_IN_1_0
JsonObject *agents_json_typed_require_object (JsonNode *node,
                                              const char *owner,
                                              GError **error);

/* ---- writing ----------------------------------------------------------- */

void agents_json_add_string (JsonBuilder *builder,
                             const char *member,
                             const char *value);
/* Adds @value, or a JSON null when it is NULL. */
AGENTS_AVAILABLE_IN_1_0
void agents_json_add_nullable_string (JsonBuilder *builder,
                                      const char *member,
                                      const char *value);
void agents_json_add_boolean (JsonBuilder *builder,
                              const char *member,
                              gboolean value);
void
agents_json_add_int (JsonBuilder *builder, const char *member, gint64 value);
/* Adds @value (transfer full), or a JSON null when it is NULL. */
void agents_json_add_node (JsonBuilder *builder,
                           const char *member,
                           JsonNode *value);

/* ---- copying ----------------------------------------------------------- */

/* Deep copies of @object and @array (NULL for NULL): nothing is shared
 * (json_node_copy() shares objects), and values keep their exact
 * types. */
JsonObject *agents_json_object_copy (JsonObject *object);
JsonArray *agents_json_array_copy (JsonArray *array);

G_END_DECLS
