/* agents-typed-json.h - families of objects with a JSON `type` discriminator
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "agents-version-macros.h"

G_BEGIN_DECLS

AGENTS_AVAILABLE_IN_1_0
gboolean agents_typed_json_register (GType family,
                                     const char *type_name,
                                     GType type,
                                     GError **error);
AGENTS_AVAILABLE_IN_1_0
GType
agents_typed_json_lookup (GType family, const char *type_name, GError **error);
AGENTS_AVAILABLE_IN_1_0
char **agents_typed_json_list (GType family);
AGENTS_AVAILABLE_IN_1_0
const char *agents_typed_json_get_type_name (GType family, GType type);
AGENTS_AVAILABLE_IN_1_0
JsonNode *agents_typed_json_to_json (GType family, GObject *object);
AGENTS_AVAILABLE_IN_1_0
GObject *
agents_typed_json_new_from_json (GType family, JsonNode *node, GError **error);

G_END_DECLS
