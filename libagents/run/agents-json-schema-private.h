/* agents-json-schema-private.h - a JSON schema validator
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* A subset of JSON schema: type, enum, const, properties, required,
 * additionalProperties, items, anyOf, oneOf, allOf and local $ref. Used
 * for structured final outputs; reusable for tool arguments. */
gboolean agents_json_schema_validate (JsonObject *schema,
                                      JsonNode *node,
                                      GString *reason);

G_END_DECLS
