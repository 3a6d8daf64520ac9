/* agents-tool-output.h - structured tool outputs: text and image parts
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

#define AGENTS_TYPE_TOOL_OUTPUT (agents_tool_output_get_type ())

typedef struct _AgentsToolOutput AgentsToolOutput;

AGENTS_AVAILABLE_IN_1_0
GType agents_tool_output_get_type (void) G_GNUC_CONST;

AGENTS_AVAILABLE_IN_1_0
AgentsToolOutput *agents_tool_output_new (void);
AGENTS_AVAILABLE_IN_1_0
AgentsToolOutput *agents_tool_output_new_text (const char *text);
AGENTS_AVAILABLE_IN_1_0
AgentsToolOutput *agents_tool_output_new_image (const char *image_url,
                                                const char *detail);
AGENTS_AVAILABLE_IN_1_0
AgentsToolOutput *agents_tool_output_ref (AgentsToolOutput *self);
AGENTS_AVAILABLE_IN_1_0
void agents_tool_output_unref (AgentsToolOutput *self);

AGENTS_AVAILABLE_IN_1_0
void agents_tool_output_add_text (AgentsToolOutput *self, const char *text);
AGENTS_AVAILABLE_IN_1_0
void agents_tool_output_add_image (AgentsToolOutput *self,
                                   const char *image_url,
                                   const char *detail);
AGENTS_AVAILABLE_IN_1_0
void agents_tool_output_add_image_data (AgentsToolOutput *self,
                                        GBytes *data,
                                        const char *mime_type,
                                        const char *detail);
AGENTS_AVAILABLE_IN_1_0
guint agents_tool_output_get_n_parts (AgentsToolOutput *self);
AGENTS_AVAILABLE_IN_1_0
JsonNode *
agents_tool_output_to_json (AgentsToolOutput *self) G_GNUC_WARN_UNUSED_RESULT;

AGENTS_AVAILABLE_IN_1_0
void agents_tool_return_parts (GTask *task, AgentsToolOutput *output);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AgentsToolOutput, agents_tool_output_unref)

G_END_DECLS
