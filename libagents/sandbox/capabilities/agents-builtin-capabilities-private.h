/* agents-builtin-capabilities-private.h - the arguments of the shell
 * and filesystem capabilities' tools
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* A tool call's @arguments as a JSON object (a new reference), or %NULL
 * with an error the model reads. */
JsonObject *agents_builtin_parse_arguments (const char *arguments,
                                            GError **error);

/* The string member @name of @args, or %NULL with an error the model
 * reads when it is absent or no string. */
const char *agents_builtin_get_string_argument (JsonObject *args,
                                                const char *name,
                                                GError **error);

G_END_DECLS
