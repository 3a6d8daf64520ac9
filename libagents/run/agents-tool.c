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

/* Sets a boolean property's field, notifying when it changes. */
static void
set_flag (AgentsTool *self, gboolean *field, gboolean value, guint prop)
{
  value = !!value;
  if (*field == value)
    return;
  *field = value;
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
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
  set_flag (self, &priv->strict, strict, PROP_STRICT);
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
  set_flag (self, &priv->needs_approval, needs_approval, PROP_NEEDS_APPROVAL);
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

/* AgentsLocalShellTool */
