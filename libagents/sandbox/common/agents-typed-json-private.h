/* agents-typed-json-private.h - how a base type makes its family
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-typed-json.h"

G_BEGIN_DECLS

/* What a family's base type tells the mechanism: how its members are
 * written and read (the class's own vfuncs, reached through the base),
 * and the texts of its errors, which the reference fixes per family.
 * The mechanism owns the rest: the `type` member, the registry, the
 * checks of the untrusted document, instantiation.
 *
 * Messages are format strings already translated by the family:
 * @unknown_type gets the name (%s) then the sorted registered names
 * joined by ", " (%s); @missing_type gets nothing; @not_object gets the
 * JSON type of what was found ("string", "array", …). */
typedef struct
{
  GType base;
  /* "snapshot type": in messages about registration. */
  const char *label;
  /* The error context's `member` for errors about the whole object. */
  const char *member;

  char *(*unknown_type_message) (const char *type_name, const char *known);
  char *(*missing_type_message) (void);
  char *(*not_object_message) (const char *json_type);

  /* The `type` string of @self (NULL: the name its type is registered
   * under), for families whose classes may name themselves. */
  const char *(*type_name_of) (GObject *self);
  /* Reads the `type` string of @node, an untrusted document, with the
   * family's own checks and errors (NULL: the mechanism's own, above).
   * For families whose reference treats a missing `type` as the unknown
   * name "" rather than as a malformed document. */
  gboolean (*read_type_name) (JsonNode *node, char **type_name, GError **error);
  /* Creates an instance of @type for @object (NULL: g_object_new()). */
  GObject *(*instantiate) (GType type, JsonObject *object, GError **error);
  /* Makes sure every type of the family that could be registered is
   * (NULL: the registrations so far are all): called before a lookup or
   * a listing. Families whose types plugins add set it to
   * agents_registry_load_plugins(); the mechanism itself stays below the
   * registry. */
  void (*load_types) (void);
  /* Writes the members after `type`; reads them into a new instance. */
  void (*write_fields) (GObject *self, JsonBuilder *builder);
  gboolean (*read_fields) (GObject *self, JsonObject *object, GError **error);
} AgentsTypedJsonFamily;

/* The functions below are private, exported (as AGENTS_AVAILABLE_IN_1_0
 * outside the public headers) for the plugins' families. */

/* Called once by the base type (in its class or default-interface
 * init) with a descriptor that lives as long as the process. */
AGENTS_AVAILABLE_IN_1_0
void agents_typed_json_define_family (const AgentsTypedJsonFamily *family);

/* Reads @node's members into @object, an instance of @family, through
 * the family's `read_fields`: what a family's `load_json` wrapper calls.
 * A @node that is not an object fails with the family's message. */
AGENTS_AVAILABLE_IN_1_0
gboolean agents_typed_json_read_into (GType family,
                                      GObject *object,
                                      JsonNode *node,
                                      GError **error);

/* Copies @object through its JSON: a new instance of its own type (no
 * name lookup) that reads what @object writes. For families whose JSON
 * is all of their state. */
AGENTS_AVAILABLE_IN_1_0
GObject *agents_typed_json_copy (GType family, GObject *object);

/* Whether @a and @b (either may be NULL) write the same JSON. */
AGENTS_AVAILABLE_IN_1_0
gboolean agents_typed_json_equal (GType family, GObject *a, GObject *b);

/* The name of a JSON node's type for messages: "object", "array",
 * "string", "number", "boolean", "null". */
const char *agents_typed_json_node_type_name (JsonNode *node);

G_END_DECLS
