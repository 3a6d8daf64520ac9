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

/* Called once by the base type (in its class or default-interface
 * init) with a descriptor that lives as long as the process. */
void agents_typed_json_define_family (const AgentsTypedJsonFamily *family);

/* The name of a JSON node's type for messages: "object", "array",
 * "string", "number", "boolean", "null". */
const char *agents_typed_json_node_type_name (JsonNode *node);

G_END_DECLS
