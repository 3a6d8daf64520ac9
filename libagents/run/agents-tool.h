/* agents-tool.h - tools the model can call
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

#include "agents-run-context.h"
#include "agents-version-macros.h"

G_BEGIN_DECLS

/**
 * AgentsNeedsApprovalFunc:
 * @ctx: the run context
 * @arguments: the arguments of the call, a JSON document
 * @user_data: the data given with the function
 *
 * Decides whether a call of a tool must be approved before it runs.
 *
 * Returns: %TRUE if the call needs approval
 */
typedef gboolean (*AgentsNeedsApprovalFunc) (AgentsRunContext *ctx,
                                             const char *arguments,
                                             gpointer user_data);

/* AgentsTool */

#define AGENTS_TYPE_TOOL (agents_tool_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_DERIVABLE_TYPE (AgentsTool, agents_tool, AGENTS, TOOL, GObject)

/**
 * AgentsToolClass:
 * @parent_class: the parent class
 * @invoke: runs the tool for one call; the task returns a #JsonNode, the
 *   output (a string node for function tools), see
 *   agents_tool_return_output(). The task is the one
 *   agents_tool_invoke_async() created (transfer none)
 * @to_model_json: returns the tool definition sent to the model; the
 *   default is a Responses function tool
 *   (`{"type": "function", "name", "description", "parameters", "strict"}`)
 *
 * The class of tools.
 */
struct _AgentsToolClass
{
  GObjectClass parent_class;

  void (*invoke) (AgentsTool *self,
                  AgentsRunContext *ctx,
                  const char *call_id,
                  const char *arguments,
                  GTask *task);
  JsonObject *(*to_model_json) (AgentsTool *self);

  /*< private >*/
  gpointer padding[12];
};

AGENTS_AVAILABLE_IN_1_0
const char *agents_tool_get_name (AgentsTool *self);
AGENTS_AVAILABLE_IN_1_0
void agents_tool_set_name (AgentsTool *self, const char *name);
AGENTS_AVAILABLE_IN_1_0
const char *agents_tool_get_description (AgentsTool *self);
AGENTS_AVAILABLE_IN_1_0
void agents_tool_set_description (AgentsTool *self, const char *description);
AGENTS_AVAILABLE_IN_1_0
JsonObject *agents_tool_get_params_json_schema (AgentsTool *self);
AGENTS_AVAILABLE_IN_1_0
void agents_tool_set_params_json_schema (AgentsTool *self, JsonObject *schema);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_tool_get_strict (AgentsTool *self);
AGENTS_AVAILABLE_IN_1_0
void agents_tool_set_strict (AgentsTool *self, gboolean strict);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_tool_get_needs_approval (AgentsTool *self);
AGENTS_AVAILABLE_IN_1_0
void agents_tool_set_needs_approval (AgentsTool *self, gboolean needs_approval);
AGENTS_AVAILABLE_IN_1_0
void agents_tool_set_needs_approval_func (AgentsTool *self,
                                          AgentsNeedsApprovalFunc func,
                                          gpointer user_data,
                                          GDestroyNotify destroy);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_tool_call_needs_approval (AgentsTool *self,
                                          AgentsRunContext *ctx,
                                          const char *arguments);

AGENTS_AVAILABLE_IN_1_0
void agents_tool_invoke_async (AgentsTool *self,
                               AgentsRunContext *ctx,
                               const char *call_id,
                               const char *arguments,
                               GCancellable *cancellable,
                               GAsyncReadyCallback callback,
                               gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
JsonNode *agents_tool_invoke_finish (AgentsTool *self,
                                     GAsyncResult *result,
                                     GError **error) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
JsonObject *
agents_tool_to_model_json (AgentsTool *self) G_GNUC_WARN_UNUSED_RESULT;

AGENTS_AVAILABLE_IN_1_0
void agents_tool_return_output (GTask *task, JsonNode *output);
AGENTS_AVAILABLE_IN_1_0
void agents_tool_return_text (GTask *task, const char *text);

/* AgentsFunctionTool */

/**
 * AgentsFunctionToolFunc:
 * @ctx: the run context
 * @arguments: the arguments the model gave, a JSON object as text
 * @user_data: the data given with the function
 * @error: return location for a #GError
 *
 * The body of a synchronous function tool.
 *
 * Returns: (transfer full) (nullable): the output for the model, or %NULL
 *   with @error set
 */
typedef char *(*AgentsFunctionToolFunc) (AgentsRunContext *ctx,
                                         const char *arguments,
                                         gpointer user_data,
                                         GError **error);

/**
 * AgentsFunctionToolAsyncFunc:
 * @ctx: the run context
 * @arguments: the arguments the model gave, a JSON object as text
 * @task: the task to complete with the output, a #JsonNode (see
 *   agents_tool_return_text() and agents_tool_return_output()) or an error
 * @user_data: the data given with the function
 *
 * The body of an asynchronous function tool. It must complete @task,
 * taking its own reference if it does so later.
 */
typedef void (*AgentsFunctionToolAsyncFunc) (AgentsRunContext *ctx,
                                             const char *arguments,
                                             GTask *task,
                                             gpointer user_data);

/**
 * AgentsToolErrorFunc:
 * @ctx: the run context
 * @error: the error the tool failed with
 * @user_data: the data given with the function
 *
 * Turns the failure of a function tool into the output the model sees.
 *
 * Returns: (transfer full): the output for the model
 */
typedef char *(*AgentsToolErrorFunc) (AgentsRunContext *ctx,
                                      const GError *error,
                                      gpointer user_data);

#define AGENTS_TYPE_FUNCTION_TOOL (agents_function_tool_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (
  AgentsFunctionTool, agents_function_tool, AGENTS, FUNCTION_TOOL, AgentsTool)

AGENTS_AVAILABLE_IN_1_0
AgentsFunctionTool *agents_function_tool_new (const char *name,
                                              const char *description,
                                              JsonObject *params_json_schema,
                                              AgentsFunctionToolFunc func,
                                              gpointer user_data,
                                              GDestroyNotify destroy);
AGENTS_AVAILABLE_IN_1_0
AgentsFunctionTool *
agents_function_tool_new_async (const char *name,
                                const char *description,
                                JsonObject *params_json_schema,
                                AgentsFunctionToolAsyncFunc func,
                                gpointer user_data,
                                GDestroyNotify destroy);
AGENTS_AVAILABLE_IN_1_0
void agents_function_tool_set_error_func (AgentsFunctionTool *self,
                                          AgentsToolErrorFunc func,
                                          gpointer user_data,
                                          GDestroyNotify destroy);
AGENTS_AVAILABLE_IN_1_0
char *agents_function_tool_default_error_message (const GError *error)
  G_GNUC_WARN_UNUSED_RESULT;

/* AgentsLocalShellTool */

/**
 * AgentsLocalShellExecutor:
 * @ctx: the run context
 * @action: the `action` member of the model's `local_shell_call` item
 *   (`{"type": "exec", "command": [...], "env": {...}, ...}`)
 * @user_data: the data given with the function
 * @error: return location for a #GError
 *
 * Runs the command of a local shell call.
 *
 * Returns: (transfer full) (nullable): the output for the model, or %NULL
 *   with @error set
 */
typedef char *(*AgentsLocalShellExecutor) (AgentsRunContext *ctx,
                                           JsonObject *action,
                                           gpointer user_data,
                                           GError **error);

#define AGENTS_TYPE_LOCAL_SHELL_TOOL (agents_local_shell_tool_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (AgentsLocalShellTool,
                      agents_local_shell_tool,
                      AGENTS,
                      LOCAL_SHELL_TOOL,
                      AgentsTool)

AGENTS_AVAILABLE_IN_1_0
AgentsLocalShellTool *
agents_local_shell_tool_new (AgentsLocalShellExecutor executor,
                             gpointer user_data,
                             GDestroyNotify destroy);

G_END_DECLS
