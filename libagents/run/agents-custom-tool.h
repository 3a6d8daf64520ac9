/* agents-custom-tool.h - freeform tools whose calls carry raw text
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include "agents-tool.h"

G_BEGIN_DECLS

/**
 * AgentsCustomToolFunc:
 * @ctx: the run context
 * @input: the raw text the model gave
 * @user_data: the data given with the function
 * @error: return location for a #GError
 *
 * The body of a synchronous custom tool.
 *
 * Returns: (transfer full) (nullable): the output for the model, or %NULL
 *   with @error set
 */
typedef char *(*AgentsCustomToolFunc) (AgentsRunContext *ctx,
                                       const char *input,
                                       gpointer user_data,
                                       GError **error);

/**
 * AgentsCustomToolAsyncFunc:
 * @ctx: the run context
 * @input: the raw text the model gave
 * @task: the task to complete with the output, a #JsonNode (see
 *   agents_tool_return_text() and agents_tool_return_parts()) or an error
 * @user_data: the data given with the function
 *
 * The body of an asynchronous custom tool. It must complete @task, taking
 * its own reference if it does so later.
 */
typedef void (*AgentsCustomToolAsyncFunc) (AgentsRunContext *ctx,
                                           const char *input,
                                           GTask *task,
                                           gpointer user_data);

#define AGENTS_TYPE_CUSTOM_TOOL (agents_custom_tool_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (
  AgentsCustomTool, agents_custom_tool, AGENTS, CUSTOM_TOOL, AgentsTool)

AGENTS_AVAILABLE_IN_1_0
AgentsCustomTool *agents_custom_tool_new (const char *name,
                                          const char *description,
                                          JsonObject *format,
                                          AgentsCustomToolFunc func,
                                          gpointer user_data,
                                          GDestroyNotify destroy);
AGENTS_AVAILABLE_IN_1_0
AgentsCustomTool *agents_custom_tool_new_async (const char *name,
                                                const char *description,
                                                JsonObject *format,
                                                AgentsCustomToolAsyncFunc func,
                                                gpointer user_data,
                                                GDestroyNotify destroy);
AGENTS_AVAILABLE_IN_1_0
JsonObject *agents_custom_tool_get_format (AgentsCustomTool *self);
AGENTS_AVAILABLE_IN_1_0
void agents_custom_tool_set_format (AgentsCustomTool *self, JsonObject *format);
AGENTS_AVAILABLE_IN_1_0
JsonObject *agents_custom_tool_to_function_json (AgentsCustomTool *self)
  G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
char *agents_custom_tool_error_message (const GError *error)
  G_GNUC_WARN_UNUSED_RESULT;

G_END_DECLS
