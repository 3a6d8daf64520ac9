/* agents-tool.c - tools the model can call
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-json-private.h"
#include "agents-run-error.h"
#include "agents-run-private.h"
#include "agents-tool.h"

/**
 * AgentsTool:
 *
 * A tool the model can call. Subclasses implement
 * `AgentsToolClass.invoke()`; most users create an #AgentsFunctionTool
 * from a function instead.
 *
 * A tool may need the user's approval before a call runs: set
 * #AgentsTool:needs-approval, or a function that decides per call with
 * agents_tool_set_needs_approval_func().
 */

typedef struct
{
  char *name;
  char *description;
  JsonObject *params_json_schema;
  gboolean strict;
  gboolean needs_approval;
  AgentsNeedsApprovalFunc needs_approval_func;
  gpointer needs_approval_data;
  GDestroyNotify needs_approval_destroy;
} AgentsToolPrivate;

G_DEFINE_TYPE_WITH_PRIVATE (AgentsTool, agents_tool, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_NAME,
  PROP_DESCRIPTION,
  PROP_PARAMS_JSON_SCHEMA,
  PROP_STRICT,
  PROP_NEEDS_APPROVAL,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
clear_needs_approval_func (AgentsToolPrivate *priv)
{
  if (priv->needs_approval_destroy != NULL)
    priv->needs_approval_destroy (priv->needs_approval_data);
  priv->needs_approval_func = NULL;
  priv->needs_approval_data = NULL;
  priv->needs_approval_destroy = NULL;
}

static void
agents_tool_finalize (GObject *object)
{
  AgentsToolPrivate *priv =
    agents_tool_get_instance_private (AGENTS_TOOL (object));

  g_free (priv->name);
  g_free (priv->description);
  g_clear_pointer (&priv->params_json_schema, json_object_unref);
  clear_needs_approval_func (priv);

  G_OBJECT_CLASS (agents_tool_parent_class)->finalize (object);
}

static void
agents_tool_get_property (GObject *object,
                          guint prop_id,
                          GValue *value,
                          GParamSpec *pspec)
{
  AgentsTool *self = AGENTS_TOOL (object);
  AgentsToolPrivate *priv = agents_tool_get_instance_private (self);

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, priv->name);
      break;
    case PROP_DESCRIPTION:
      g_value_set_string (value, priv->description);
      break;
    case PROP_PARAMS_JSON_SCHEMA:
      g_value_set_boxed (value, priv->params_json_schema);
      break;
    case PROP_STRICT:
      g_value_set_boolean (value, priv->strict);
      break;
    case PROP_NEEDS_APPROVAL:
      g_value_set_boolean (value, priv->needs_approval);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_tool_set_property (GObject *object,
                          guint prop_id,
                          const GValue *value,
                          GParamSpec *pspec)
{
  AgentsTool *self = AGENTS_TOOL (object);

  switch (prop_id)
    {
    case PROP_NAME:
      agents_tool_set_name (self, g_value_get_string (value));
      break;
    case PROP_DESCRIPTION:
      agents_tool_set_description (self, g_value_get_string (value));
      break;
    case PROP_PARAMS_JSON_SCHEMA:
      agents_tool_set_params_json_schema (self, g_value_get_boxed (value));
      break;
    case PROP_STRICT:
      agents_tool_set_strict (self, g_value_get_boolean (value));
      break;
    case PROP_NEEDS_APPROVAL:
      agents_tool_set_needs_approval (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

/* The schema of a tool without parameters, as the reference's strict
 * schema conversion makes it. */
static JsonObject *
empty_params_schema (void)
{
  JsonObject *schema = json_object_new ();

  json_object_set_boolean_member (schema, "additionalProperties", FALSE);
  json_object_set_string_member (schema, "type", "object");
  json_object_set_object_member (schema, "properties", json_object_new ());
  json_object_set_array_member (schema, "required", json_array_new ());
  return schema;
}

static JsonObject *
agents_tool_real_to_model_json (AgentsTool *self)
{
  AgentsToolPrivate *priv = agents_tool_get_instance_private (self);
  JsonObject *json = json_object_new ();
  JsonObject *params =
    priv->params_json_schema
      ? agents_run_private_json_object_copy (priv->params_json_schema)
      : empty_params_schema ();

  json_object_set_string_member (json, "type", "function");
  json_object_set_string_member (json, "name", priv->name ? priv->name : "");
  json_object_set_string_member (json, "description",
                                 priv->description ? priv->description : "");
  json_object_set_object_member (json, "parameters", params);
  json_object_set_boolean_member (json, "strict", priv->strict);
  return json;
}

static void
agents_tool_real_invoke (AgentsTool *self,
                         AgentsRunContext *ctx,
                         const char *call_id,
                         const char *arguments,
                         GTask *task)
{
  g_task_return_new_error (task, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_FAILED,
                           _ ("tool “%s” cannot be invoked"),
                           agents_tool_get_name (self));
}

#define PARAM_FLAGS \
  (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY)

static void
agents_tool_class_init (AgentsToolClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = agents_tool_finalize;
  object_class->get_property = agents_tool_get_property;
  object_class->set_property = agents_tool_set_property;

  klass->invoke = agents_tool_real_invoke;
  klass->to_model_json = agents_tool_real_to_model_json;

  /**
   * AgentsTool:name:
   *
   * The name the model calls the tool by.
   */
  properties[PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL, NULL, PARAM_FLAGS);
  /**
   * AgentsTool:description:
   *
   * What the tool does, for the model.
   */
  properties[PROP_DESCRIPTION] =
    g_param_spec_string ("description", NULL, NULL, NULL, PARAM_FLAGS);
  /**
   * AgentsTool:params-json-schema:
   *
   * The JSON schema of the tool's arguments; %NULL means no arguments.
   */
  properties[PROP_PARAMS_JSON_SCHEMA] = g_param_spec_boxed (
    "params-json-schema", NULL, NULL, JSON_TYPE_OBJECT, PARAM_FLAGS);
  /**
   * AgentsTool:strict:
   *
   * Whether the model must follow the schema strictly.
   */
  properties[PROP_STRICT] = g_param_spec_boolean (
    "strict", NULL, NULL, TRUE, PARAM_FLAGS | G_PARAM_CONSTRUCT);
  /**
   * AgentsTool:needs-approval:
   *
   * Whether every call needs the user's approval (unless a function set
   * with agents_tool_set_needs_approval_func() decides).
   */
  properties[PROP_NEEDS_APPROVAL] =
    g_param_spec_boolean ("needs-approval", NULL, NULL, FALSE, PARAM_FLAGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
agents_tool_init (AgentsTool *self)
{
  AgentsToolPrivate *priv = agents_tool_get_instance_private (self);

  priv->strict = TRUE;
}

static gboolean
set_string (char **field, const char *value)
{
  if (g_strcmp0 (*field, value) == 0)
    return FALSE;
  g_free (*field);
  *field = g_strdup (value);
  return TRUE;
}

/**
 * agents_tool_get_name:
 * @self: a tool
 *
 * Gets the name the model calls the tool by.
 *
 * Returns: (nullable): the name
 */
const char *
agents_tool_get_name (AgentsTool *self)
{
  AgentsToolPrivate *priv = agents_tool_get_instance_private (self);

  g_return_val_if_fail (AGENTS_IS_TOOL (self), NULL);
  return priv->name;
}

/**
 * agents_tool_set_name:
 * @self: a tool
 * @name: the name
 *
 * Sets the name the model calls the tool by.
 */
void
agents_tool_set_name (AgentsTool *self, const char *name)
{
  AgentsToolPrivate *priv = agents_tool_get_instance_private (self);

  g_return_if_fail (AGENTS_IS_TOOL (self));
  if (set_string (&priv->name, name))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_NAME]);
}

/**
 * agents_tool_get_description:
 * @self: a tool
 *
 * Gets what the tool does.
 *
 * Returns: (nullable): the description
 */
const char *
agents_tool_get_description (AgentsTool *self)
{
  AgentsToolPrivate *priv = agents_tool_get_instance_private (self);

  g_return_val_if_fail (AGENTS_IS_TOOL (self), NULL);
  return priv->description;
}

/**
 * agents_tool_set_description:
 * @self: a tool
 * @description: (nullable): the description
 *
 * Sets what the tool does.
 */
void
agents_tool_set_description (AgentsTool *self, const char *description)
{
  AgentsToolPrivate *priv = agents_tool_get_instance_private (self);

  g_return_if_fail (AGENTS_IS_TOOL (self));
  if (set_string (&priv->description, description))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DESCRIPTION]);
}

/**
 * agents_tool_get_params_json_schema:
 * @self: a tool
 *
 * Gets the JSON schema of the tool's arguments.
 *
 * Returns: (transfer none) (nullable): the schema
 */
JsonObject *
agents_tool_get_params_json_schema (AgentsTool *self)
{
  AgentsToolPrivate *priv = agents_tool_get_instance_private (self);

  g_return_val_if_fail (AGENTS_IS_TOOL (self), NULL);
  return priv->params_json_schema;
}

/**
 * agents_tool_set_params_json_schema:
 * @self: a tool
 * @schema: (nullable): the schema, %NULL for no arguments
 *
 * Sets the JSON schema of the tool's arguments. The schema is copied.
 */
void
agents_tool_set_params_json_schema (AgentsTool *self, JsonObject *schema)
{
  AgentsToolPrivate *priv = agents_tool_get_instance_private (self);

  g_return_if_fail (AGENTS_IS_TOOL (self));
  if (priv->params_json_schema == schema)
    return;
  g_clear_pointer (&priv->params_json_schema, json_object_unref);
  priv->params_json_schema = agents_run_private_json_object_copy (schema);
  g_object_notify_by_pspec (G_OBJECT (self),
                            properties[PROP_PARAMS_JSON_SCHEMA]);
}

/**
 * agents_tool_get_strict:
 * @self: a tool
 *
 * Gets whether the model must follow the schema strictly.
 *
 * Returns: %TRUE if strict
 */
gboolean
agents_tool_get_strict (AgentsTool *self)
{
  AgentsToolPrivate *priv = agents_tool_get_instance_private (self);

  g_return_val_if_fail (AGENTS_IS_TOOL (self), TRUE);
  return priv->strict;
}

/**
 * agents_tool_set_strict:
 * @self: a tool
 * @strict: whether the model must follow the schema strictly
 *
 * Sets whether the model must follow the schema strictly.
 */
void
agents_tool_set_strict (AgentsTool *self, gboolean strict)
{
  AgentsToolPrivate *priv = agents_tool_get_instance_private (self);

  g_return_if_fail (AGENTS_IS_TOOL (self));
  strict = !!strict;
  if (priv->strict == strict)
    return;
  priv->strict = strict;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STRICT]);
}

/**
 * agents_tool_get_needs_approval:
 * @self: a tool
 *
 * Gets whether every call needs approval.
 *
 * Returns: the #AgentsTool:needs-approval flag
 */
gboolean
agents_tool_get_needs_approval (AgentsTool *self)
{
  AgentsToolPrivate *priv = agents_tool_get_instance_private (self);

  g_return_val_if_fail (AGENTS_IS_TOOL (self), FALSE);
  return priv->needs_approval;
}

/**
 * agents_tool_set_needs_approval:
 * @self: a tool
 * @needs_approval: whether every call needs approval
 *
 * Sets whether every call needs approval.
 */
void
agents_tool_set_needs_approval (AgentsTool *self, gboolean needs_approval)
{
  AgentsToolPrivate *priv = agents_tool_get_instance_private (self);

  g_return_if_fail (AGENTS_IS_TOOL (self));
  needs_approval = !!needs_approval;
  if (priv->needs_approval == needs_approval)
    return;
  priv->needs_approval = needs_approval;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_NEEDS_APPROVAL]);
}

/**
 * agents_tool_set_needs_approval_func:
 * @self: a tool
 * @func: (nullable) (scope notified) (closure user_data) (destroy destroy):
 *   decides per call, or %NULL to use #AgentsTool:needs-approval
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data
 *
 * Sets a function that decides whether a call needs approval.
 */
void
agents_tool_set_needs_approval_func (AgentsTool *self,
                                     AgentsNeedsApprovalFunc func,
                                     gpointer user_data,
                                     GDestroyNotify destroy)
{
  AgentsToolPrivate *priv = agents_tool_get_instance_private (self);

  g_return_if_fail (AGENTS_IS_TOOL (self));

  clear_needs_approval_func (priv);
  priv->needs_approval_func = func;
  priv->needs_approval_data = user_data;
  priv->needs_approval_destroy = destroy;
}

/**
 * agents_tool_call_needs_approval:
 * @self: a tool
 * @ctx: the run context
 * @arguments: (nullable): the arguments of the call
 *
 * Decides whether a call needs approval: asks the function set with
 * agents_tool_set_needs_approval_func() if there is one, else answers
 * #AgentsTool:needs-approval.
 *
 * Returns: %TRUE if the call needs approval
 */
gboolean
agents_tool_call_needs_approval (AgentsTool *self,
                                 AgentsRunContext *ctx,
                                 const char *arguments)
{
  AgentsToolPrivate *priv = agents_tool_get_instance_private (self);

  g_return_val_if_fail (AGENTS_IS_TOOL (self), FALSE);
  g_return_val_if_fail (AGENTS_IS_RUN_CONTEXT (ctx), FALSE);

  if (priv->needs_approval_func != NULL)
    return priv->needs_approval_func (ctx, arguments ? arguments : "",
                                      priv->needs_approval_data);
  return priv->needs_approval;
}

/**
 * agents_tool_invoke_async:
 * @self: a tool
 * @ctx: the run context
 * @call_id: (nullable): the id of the model's call
 * @arguments: (nullable): the arguments the model gave, JSON text
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the output
 * @user_data: data for @callback
 *
 * Runs the tool for one call of the model.
 */
void
agents_tool_invoke_async (AgentsTool *self,
                          AgentsRunContext *ctx,
                          const char *call_id,
                          const char *arguments,
                          GCancellable *cancellable,
                          GAsyncReadyCallback callback,
                          gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_TOOL (self));
  g_return_if_fail (AGENTS_IS_RUN_CONTEXT (ctx));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_tool_invoke_async);
  AGENTS_TOOL_GET_CLASS (self)->invoke (self, ctx, call_id,
                                        arguments ? arguments : "", task);
}

/**
 * agents_tool_invoke_finish:
 * @self: a tool
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_tool_invoke_async().
 *
 * Returns: (transfer full): the output, or %NULL on error
 */
JsonNode *
agents_tool_invoke_finish (AgentsTool *self,
                           GAsyncResult *result,
                           GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * agents_tool_to_model_json:
 * @self: a tool
 *
 * Gets the tool's definition as the model receives it.
 *
 * Returns: (transfer full): the definition
 */
JsonObject *
agents_tool_to_model_json (AgentsTool *self)
{
  g_return_val_if_fail (AGENTS_IS_TOOL (self), NULL);

  return AGENTS_TOOL_GET_CLASS (self)->to_model_json (self);
}

/**
 * agents_tool_return_output:
 * @task: the task of an invocation
 * @output: (nullable): the output; %NULL is JSON `null`
 *
 * Completes the task of a tool invocation with @output. Implementations
 * in any language use this (or agents_tool_return_text()).
 */
void
agents_tool_return_output (GTask *task, JsonNode *output)
{
  g_return_if_fail (G_IS_TASK (task));

  g_task_return_pointer (
    task, output ? json_node_copy (output) : json_node_new (JSON_NODE_NULL),
    (GDestroyNotify) json_node_unref);
}

/**
 * agents_tool_return_text:
 * @task: the task of an invocation
 * @text: the output text
 *
 * Completes the task of a tool invocation with a string output.
 */
void
agents_tool_return_text (GTask *task, const char *text)
{
  g_return_if_fail (G_IS_TASK (task));
  g_return_if_fail (text != NULL);

  g_task_return_pointer (task, json_node_init_string (json_node_alloc (), text),
                         (GDestroyNotify) json_node_unref);
}

char *
agents_run_private_output_to_text (JsonNode *output)
{
  if (output == NULL)
    return g_strdup ("");
  if (JSON_NODE_HOLDS_VALUE (output) &&
      json_node_get_value_type (output) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (output));
  return json_to_string (output, FALSE);
}

/* AgentsFunctionTool */

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

/* AgentsLocalShellTool */

/**
 * AgentsLocalShellTool:
 *
 * The reference's `LocalShellTool`: the model's `local_shell_call` items
 * run through an executor function, whose text becomes the
 * `local_shell_call_output`. The tool's name is `local_shell`.
 *
 * Its @arguments are the `action` object of the call (or the whole
 * `local_shell_call` item) as JSON text.
 */

struct _AgentsLocalShellTool
{
  AgentsTool parent_instance;

  AgentsLocalShellExecutor executor;
  gpointer user_data;
  GDestroyNotify destroy;
};

G_DEFINE_FINAL_TYPE (AgentsLocalShellTool,
                     agents_local_shell_tool,
                     AGENTS_TYPE_TOOL)

static void
agents_local_shell_tool_finalize (GObject *object)
{
  AgentsLocalShellTool *self = AGENTS_LOCAL_SHELL_TOOL (object);

  if (self->destroy != NULL)
    self->destroy (self->user_data);

  G_OBJECT_CLASS (agents_local_shell_tool_parent_class)->finalize (object);
}

static JsonObject *
local_shell_to_model_json (AgentsTool *tool)
{
  JsonObject *json = json_object_new ();

  json_object_set_string_member (json, "type", "local_shell");
  return json;
}

static JsonObject *
parse_action (const char *arguments, GError **error)
{
  g_autoptr (JsonNode) node =
    agents_json_parse_bounded (arguments, -1, "arguments", NULL);
  JsonObject *object;
  JsonNode *action;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      agents_run_error_set (error, AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
                            _ ("invalid local shell call: %s"), arguments);
      return NULL;
    }
  object = json_node_get_object (node);
  action = json_object_get_member (object, "action");
  if (g_strcmp0 (agents_run_private_json_string (object, "type"),
                 "local_shell_call") == 0)
    {
      if (action == NULL || !JSON_NODE_HOLDS_OBJECT (action))
        {
          agents_run_error_set (error, AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
                                _ ("local shell call without an action"));
          return NULL;
        }
      return json_object_ref (json_node_get_object (action));
    }
  return json_object_ref (object);
}

static void
agents_local_shell_tool_invoke (AgentsTool *tool,
                                AgentsRunContext *ctx,
                                const char *call_id,
                                const char *arguments,
                                GTask *task)
{
  AgentsLocalShellTool *self = AGENTS_LOCAL_SHELL_TOOL (tool);
  g_autoptr (JsonObject) action = NULL;
  g_autofree char *output = NULL;
  GError *error = NULL;

  action = parse_action (arguments, &error);
  if (action != NULL)
    output = self->executor (ctx, action, self->user_data, &error);
  if (error != NULL)
    g_task_return_error (task, error);
  else
    agents_tool_return_text (task, output ? output : "");
}

static void
agents_local_shell_tool_class_init (AgentsLocalShellToolClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  AgentsToolClass *tool_class = AGENTS_TOOL_CLASS (klass);

  object_class->finalize = agents_local_shell_tool_finalize;
  tool_class->invoke = agents_local_shell_tool_invoke;
  tool_class->to_model_json = local_shell_to_model_json;
}

static void
agents_local_shell_tool_init (AgentsLocalShellTool *self)
{
}

/**
 * agents_local_shell_tool_new:
 * @executor: (scope notified) (closure user_data) (destroy destroy): runs
 *   the commands
 * @user_data: data for @executor
 * @destroy: (nullable): frees @user_data when the tool is finalized
 *
 * Creates a local shell tool.
 *
 * Returns: (transfer full): the tool
 */
AgentsLocalShellTool *
agents_local_shell_tool_new (AgentsLocalShellExecutor executor,
                             gpointer user_data,
                             GDestroyNotify destroy)
{
  AgentsLocalShellTool *self;

  g_return_val_if_fail (executor != NULL, NULL);

  self =
    g_object_new (AGENTS_TYPE_LOCAL_SHELL_TOOL, "name", "local_shell", NULL);
  self->executor = executor;
  self->user_data = user_data;
  self->destroy = destroy;
  return self;
}
