/* agents-function-tool.c - a tool made of a function
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-json-private.h"
#include "agents-run-error.h"
#include "agents-run-private.h"
#include "agents-tool.h"

/**
 * AgentsFunctionTool:
 *
 * A tool made of a function, the reference's `@function_tool`. The
 * function receives the model's arguments as JSON text and returns the
 * output text.
 *
 * A function tool never fails the run: malformed arguments from the model
 * and errors of the function become output for the model, by default
 * “An error occurred while running the tool. Please try again. Error: …”
 * (agents_function_tool_set_error_func() changes that text). Only
 * cancellation is an error.
 *
 * When the runner calls a function tool that has a parameters schema
 * (#AgentsTool:params-json-schema), it first checks the arguments
 * against it (types, `enum`, `const`, `required`,
 * `additionalProperties`, `items`, `anyOf`/`oneOf`/`allOf`, local
 * `$ref`s); arguments that do not match never reach the function: the
 * model gets “Invalid JSON input for tool NAME: WHY” through the error
 * function, as for arguments that are not JSON.
 */

struct _AgentsFunctionTool
{
  AgentsTool parent_instance;

  AgentsFunctionToolFunc func;
  AgentsFunctionToolAsyncFunc async_func;
  gpointer user_data;
  GDestroyNotify destroy;

  AgentsToolErrorFunc error_func;
  gpointer error_data;
  GDestroyNotify error_destroy;
};

G_DEFINE_FINAL_TYPE (AgentsFunctionTool, agents_function_tool, AGENTS_TYPE_TOOL)

static void
clear_error_func (AgentsFunctionTool *self)
{
  if (self->error_destroy != NULL)
    self->error_destroy (self->error_data);
  self->error_func = NULL;
  self->error_data = NULL;
  self->error_destroy = NULL;
}

static void
agents_function_tool_finalize (GObject *object)
{
  AgentsFunctionTool *self = AGENTS_FUNCTION_TOOL (object);

  if (self->destroy != NULL)
    self->destroy (self->user_data);
  clear_error_func (self);

  G_OBJECT_CLASS (agents_function_tool_parent_class)->finalize (object);
}

/**
 * agents_function_tool_default_error_message:
 * @error: the error a function tool failed with
 *
 * Formats a tool failure the way function tools report it to the model by
 * default (the reference's `default_tool_error_function`): "An error
 * occurred while running the tool. Please try again. Error: MESSAGE". The
 * model reads it, so it is not translated.
 *
 * Returns: (transfer full): the text for the model
 */
char *
agents_function_tool_default_error_message (const GError *error)
{
  g_return_val_if_fail (error != NULL, NULL);

  return g_strdup_printf ("An error occurred while running the tool. Please "
                          "try again. Error: %s",
                          error->message);
}

char *
agents_function_tool_private_failure_text (AgentsFunctionTool *self,
                                           AgentsRunContext *ctx,
                                           const GError *error)
{
  char *text;

  g_debug ("tool %s failed: %s", agents_tool_get_name (AGENTS_TOOL (self)),
           error->message);
  text = self->error_func ? self->error_func (ctx, error, self->error_data)
                          : agents_function_tool_default_error_message (error);
  return text ? text : g_strdup ("");
}

static void
return_failure (AgentsFunctionTool *self,
                AgentsRunContext *ctx,
                GTask *task,
                GError *error)
{
  g_autofree char *text = NULL;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_task_return_error (task, error);
      return;
    }
  text = agents_function_tool_private_failure_text (self, ctx, error);
  g_error_free (error);
  agents_tool_return_text (task, text);
}

/* The reference's check: arguments are a JSON object, or empty. */
static gboolean
check_arguments (AgentsTool *tool, const char *arguments, GError **error)
{
  g_autoptr (JsonNode) node = NULL;

  if (arguments[0] == '\0')
    return TRUE;
  node = agents_json_parse_bounded (arguments, -1, "arguments", NULL);
  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
    return TRUE;
  /* Message of the reference's ModelBehaviorError, which the model reads. */
  agents_run_error_set (error, AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
                        "Invalid JSON input for tool %s: %s",
                        agents_tool_get_name (tool), arguments);
  return FALSE;
}

typedef struct
{
  AgentsRunContext *ctx;
  GTask *outer;
} AsyncCall;

static void
async_call_free (AsyncCall *call)
{
  g_object_unref (call->ctx);
  g_object_unref (call->outer);
  g_free (call);
}

static void
async_func_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AgentsFunctionTool *self = AGENTS_FUNCTION_TOOL (source);
  AsyncCall *call = user_data;
  GError *error = NULL;
  JsonNode *output = g_task_propagate_pointer (G_TASK (result), &error);

  if (output == NULL && error == NULL)
    output = json_node_init_string (json_node_alloc (), "");
  if (output != NULL)
    g_task_return_pointer (call->outer, output,
                           (GDestroyNotify) json_node_unref);
  else
    return_failure (self, call->ctx, call->outer, error);
  async_call_free (call);
}

static void
agents_function_tool_invoke (AgentsTool *tool,
                             AgentsRunContext *ctx,
                             const char *call_id,
                             const char *arguments,
                             GTask *task)
{
  AgentsFunctionTool *self = AGENTS_FUNCTION_TOOL (tool);
  const char *args = arguments[0] != '\0' ? arguments : "{}";
  GError *error = NULL;

  if (!check_arguments (tool, arguments, &error))
    {
      return_failure (self, ctx, task, error);
      return;
    }

  if (self->async_func != NULL)
    {
      AsyncCall *call = g_new0 (AsyncCall, 1);
      g_autoptr (GTask) inner = NULL;

      call->ctx = g_object_ref (ctx);
      call->outer = g_object_ref (task);
      inner =
        g_task_new (self, g_task_get_cancellable (task), async_func_done, call);
      g_task_set_source_tag (inner, agents_function_tool_invoke);
      self->async_func (ctx, args, inner, self->user_data);
      return;
    }

  {
    g_autofree char *text = self->func (ctx, args, self->user_data, &error);

    if (error != NULL)
      return_failure (self, ctx, task, error);
    else
      agents_tool_return_text (task, text ? text : "");
  }
}

static void
agents_function_tool_class_init (AgentsFunctionToolClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  AgentsToolClass *tool_class = AGENTS_TOOL_CLASS (klass);

  object_class->finalize = agents_function_tool_finalize;
  tool_class->invoke = agents_function_tool_invoke;
}

static void
agents_function_tool_init (AgentsFunctionTool *self)
{
}

/**
 * agents_function_tool_new:
 * @name: the name the model calls the tool by
 * @description: (nullable): what the tool does
 * @params_json_schema: (nullable): the JSON schema of the arguments, %NULL
 *   for none
 * @func: (scope notified) (closure user_data) (destroy destroy): the body
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data when the tool is finalized
 *
 * Creates a tool whose body is a synchronous function.
 *
 * Returns: (transfer full): the tool
 */
AgentsFunctionTool *
agents_function_tool_new (const char *name,
                          const char *description,
                          JsonObject *params_json_schema,
                          AgentsFunctionToolFunc func,
                          gpointer user_data,
                          GDestroyNotify destroy)
{
  AgentsFunctionTool *self;

  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (func != NULL, NULL);

  self =
    g_object_new (AGENTS_TYPE_FUNCTION_TOOL, "name", name, "description",
                  description, "params-json-schema", params_json_schema, NULL);
  self->func = func;
  self->user_data = user_data;
  self->destroy = destroy;
  return self;
}

/**
 * agents_function_tool_new_async:
 * @name: the name the model calls the tool by
 * @description: (nullable): what the tool does
 * @params_json_schema: (nullable): the JSON schema of the arguments, %NULL
 *   for none
 * @func: (scope notified) (closure user_data) (destroy destroy): the body
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data when the tool is finalized
 *
 * Creates a tool whose body is an asynchronous function.
 *
 * Returns: (transfer full): the tool
 */
AgentsFunctionTool *
agents_function_tool_new_async (const char *name,
                                const char *description,
                                JsonObject *params_json_schema,
                                AgentsFunctionToolAsyncFunc func,
                                gpointer user_data,
                                GDestroyNotify destroy)
{
  AgentsFunctionTool *self;

  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (func != NULL, NULL);

  self =
    g_object_new (AGENTS_TYPE_FUNCTION_TOOL, "name", name, "description",
                  description, "params-json-schema", params_json_schema, NULL);
  self->async_func = func;
  self->user_data = user_data;
  self->destroy = destroy;
  return self;
}

/**
 * agents_function_tool_set_error_func:
 * @self: a function tool
 * @func: (nullable) (scope notified) (closure user_data) (destroy destroy):
 *   makes the model's output from an error, or %NULL for the default
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data
 *
 * Sets how a failure of the tool is told to the model.
 */
void
agents_function_tool_set_error_func (AgentsFunctionTool *self,
                                     AgentsToolErrorFunc func,
                                     gpointer user_data,
                                     GDestroyNotify destroy)
{
  g_return_if_fail (AGENTS_IS_FUNCTION_TOOL (self));

  clear_error_func (self);
  self->error_func = func;
  self->error_data = user_data;
  self->error_destroy = destroy;
}
