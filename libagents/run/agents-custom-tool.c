/* agents-custom-tool.c - freeform tools whose calls carry raw text
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-custom-tool.h"
#include "agents-run-private.h"

/**
 * AgentsCustomTool:
 *
 * A freeform tool, the reference's `CustomTool`: the model calls it with
 * raw text instead of JSON arguments, optionally constrained by a grammar.
 * The model receives it as `{"type": "custom", "name", "description",
 * "format"}` (the #AgentsCustomTool:format, e.g. `{"type": "grammar",
 * "syntax": "lark", "definition": "…"}`, left out when unset), calls it with
 * a `custom_tool_call` item whose `input` is the text, and reads its output
 * in a `custom_tool_call_output` item.
 *
 * The tool never fails the run: an error of its function becomes the
 * output text, the error's message as it is (see
 * agents_custom_tool_error_message()). Only cancellation is an error.
 *
 * A model that cannot call freeform tools may offer it as a function tool
 * taking one string argument, `input`; the runner then passes that string
 * to the tool and answers with a `function_call_output`.
 */

struct _AgentsCustomTool
{
  AgentsTool parent_instance;

  JsonObject *format;
  AgentsCustomToolFunc func;
  AgentsCustomToolAsyncFunc async_func;
  gpointer user_data;
  GDestroyNotify destroy;
};

G_DEFINE_FINAL_TYPE (AgentsCustomTool, agents_custom_tool, AGENTS_TYPE_TOOL)

enum
{
  PROP_0,
  PROP_FORMAT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
agents_custom_tool_finalize (GObject *object)
{
  AgentsCustomTool *self = AGENTS_CUSTOM_TOOL (object);

  if (self->destroy != NULL)
    self->destroy (self->user_data);
  g_clear_pointer (&self->format, json_object_unref);

  G_OBJECT_CLASS (agents_custom_tool_parent_class)->finalize (object);
}

static void
agents_custom_tool_get_property (GObject *object,
                                 guint prop_id,
                                 GValue *value,
                                 GParamSpec *pspec)
{
  AgentsCustomTool *self = AGENTS_CUSTOM_TOOL (object);

  switch (prop_id)
    {
    case PROP_FORMAT:
      g_value_set_boxed (value, self->format);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_custom_tool_set_property (GObject *object,
                                 guint prop_id,
                                 const GValue *value,
                                 GParamSpec *pspec)
{
  AgentsCustomTool *self = AGENTS_CUSTOM_TOOL (object);

  switch (prop_id)
    {
    case PROP_FORMAT:
      agents_custom_tool_set_format (self, g_value_get_boxed (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static JsonObject *
agents_custom_tool_to_model_json (AgentsTool *tool)
{
  AgentsCustomTool *self = AGENTS_CUSTOM_TOOL (tool);
  const char *name = agents_tool_get_name (tool);
  const char *description = agents_tool_get_description (tool);
  JsonObject *json = json_object_new ();

  json_object_set_string_member (json, "type", "custom");
  json_object_set_string_member (json, "name", name ? name : "");
  json_object_set_string_member (json, "description",
                                 description ? description : "");
  if (self->format != NULL)
    json_object_set_object_member (
      json, "format", agents_run_private_json_object_copy (self->format));
  return json;
}

/* The description of the `input` argument of the function-tool form. */
static char *
input_description (AgentsCustomTool *self)
{
  const char *type =
    self->format ? agents_run_private_json_string (self->format, "type") : NULL;
  const char *syntax =
    self->format ? agents_run_private_json_string (self->format, "syntax")
                 : NULL;
  const char *definition =
    self->format ? agents_run_private_json_string (self->format, "definition")
                 : NULL;

  if (g_strcmp0 (type, "grammar") != 0 || definition == NULL)
    return g_strdup ("The raw input text for the tool.");
  return g_strdup_printf ("The raw input text for the tool. It must follow "
                          "this %s grammar:\n%s",
                          syntax ? syntax : "", definition);
}

/**
 * agents_custom_tool_to_function_json:
 * @self: a custom tool
 *
 * Gets the tool as a function tool taking one string argument, `input`,
 * for models that have no freeform tools (Chat Completions servers):
 * `{"type": "function", "name", "description", "parameters": {"type":
 * "object", "properties": {"input": {"type": "string", "description"}},
 * "required": ["input"], "additionalProperties": false}, "strict": true}`.
 * A grammar format is given to the model in the argument's description.
 * The runner passes the `input` of such a `function_call` to the tool and
 * answers with a `function_call_output`.
 *
 * Returns: (transfer full): the function tool definition
 */
JsonObject *
agents_custom_tool_to_function_json (AgentsCustomTool *self)
{
  const char *name, *description;
  JsonObject *json, *parameters, *members, *input;
  JsonArray *required;

  g_return_val_if_fail (AGENTS_IS_CUSTOM_TOOL (self), NULL);

  name = agents_tool_get_name (AGENTS_TOOL (self));
  description = agents_tool_get_description (AGENTS_TOOL (self));
  input = json_object_new ();
  json_object_set_string_member (input, "type", "string");
  {
    g_autofree char *text = input_description (self);

    json_object_set_string_member (input, "description", text);
  }
  members = json_object_new ();
  json_object_set_object_member (members, "input", input);
  required = json_array_new ();
  json_array_add_string_element (required, "input");
  parameters = json_object_new ();
  json_object_set_string_member (parameters, "type", "object");
  json_object_set_object_member (parameters, "properties", members);
  json_object_set_array_member (parameters, "required", required);
  json_object_set_boolean_member (parameters, "additionalProperties", FALSE);
  json = json_object_new ();
  json_object_set_string_member (json, "type", "function");
  json_object_set_string_member (json, "name", name ? name : "");
  json_object_set_string_member (json, "description",
                                 description ? description : "");
  json_object_set_object_member (json, "parameters", parameters);
  json_object_set_boolean_member (json, "strict", TRUE);
  return json;
}

/**
 * agents_custom_tool_error_message:
 * @error: the error a custom tool failed with
 *
 * Formats a custom tool's failure as the model reads it: the error's
 * message, as it is (the reference's `format_shell_error()`: no “Please
 * try again” wrapper), or the name of the error's domain when the message
 * is empty.
 *
 * Returns: (transfer full): the text for the model
 */
char *
agents_custom_tool_error_message (const GError *error)
{
  g_return_val_if_fail (error != NULL, NULL);

  if (error->message != NULL && error->message[0] != '\0')
    return g_strdup (error->message);
  return g_strdup (g_quark_to_string (error->domain));
}

static void
return_failure (AgentsCustomTool *self, GTask *task, GError *error)
{
  g_autofree char *text = NULL;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_task_return_error (task, error);
      return;
    }
  g_debug ("custom tool %s failed: %s",
           agents_tool_get_name (AGENTS_TOOL (self)), error->message);
  text = agents_custom_tool_error_message (error);
  g_error_free (error);
  agents_tool_return_text (task, text);
}

static void
async_func_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AgentsCustomTool *self = AGENTS_CUSTOM_TOOL (source);
  g_autoptr (GTask) outer = user_data;
  GError *error = NULL;
  JsonNode *output = g_task_propagate_pointer (G_TASK (result), &error);

  if (output == NULL && error == NULL)
    output = json_node_init_string (json_node_alloc (), "");
  if (output != NULL)
    g_task_return_pointer (outer, output, (GDestroyNotify) json_node_unref);
  else
    return_failure (self, outer, error);
}

static void
agents_custom_tool_invoke (AgentsTool *tool,
                           AgentsRunContext *ctx,
                           const char *call_id,
                           const char *input,
                           GTask *task)
{
  AgentsCustomTool *self = AGENTS_CUSTOM_TOOL (tool);
  g_autofree char *text = NULL;
  GError *error = NULL;

  if (self->async_func != NULL)
    {
      g_autoptr (GTask) inner =
        g_task_new (self, g_task_get_cancellable (task), async_func_done,
                    g_object_ref (task));

      g_task_set_source_tag (inner, agents_custom_tool_invoke);
      self->async_func (ctx, input, inner, self->user_data);
      return;
    }
  text = self->func (ctx, input, self->user_data, &error);
  if (error != NULL)
    return_failure (self, task, error);
  else
    agents_tool_return_text (task, text ? text : "");
}

#define PARAM_FLAGS \
  (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY)

static void
agents_custom_tool_class_init (AgentsCustomToolClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  AgentsToolClass *tool_class = AGENTS_TOOL_CLASS (klass);

  object_class->finalize = agents_custom_tool_finalize;
  object_class->get_property = agents_custom_tool_get_property;
  object_class->set_property = agents_custom_tool_set_property;
  tool_class->invoke = agents_custom_tool_invoke;
  tool_class->to_model_json = agents_custom_tool_to_model_json;

  /**
   * AgentsCustomTool:format:
   *
   * The format the model's input follows, sent as the tool's `format`
   * member (e.g. `{"type": "grammar", "syntax": "lark", "definition":
   * "…"}`), or %NULL for free text.
   */
  properties[PROP_FORMAT] =
    g_param_spec_boxed ("format", NULL, NULL, JSON_TYPE_OBJECT, PARAM_FLAGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
agents_custom_tool_init (AgentsCustomTool *self)
{
}

static AgentsCustomTool *
custom_tool_new (const char *name, const char *description, JsonObject *format)
{
  return g_object_new (AGENTS_TYPE_CUSTOM_TOOL, "name", name, "description",
                       description, "format", format, NULL);
}

/**
 * agents_custom_tool_new:
 * @name: the name the model calls the tool by
 * @description: (nullable): what the tool does
 * @format: (nullable): the format of the input, or %NULL for free text
 * @func: (scope notified) (closure user_data) (destroy destroy): the body
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data when the tool is finalized
 *
 * Creates a custom tool whose body is a synchronous function.
 *
 * Returns: (transfer full): the tool
 */
AgentsCustomTool *
agents_custom_tool_new (const char *name,
                        const char *description,
                        JsonObject *format,
                        AgentsCustomToolFunc func,
                        gpointer user_data,
                        GDestroyNotify destroy)
{
  AgentsCustomTool *self;

  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (func != NULL, NULL);

  self = custom_tool_new (name, description, format);
  self->func = func;
  self->user_data = user_data;
  self->destroy = destroy;
  return self;
}

/**
 * agents_custom_tool_new_async:
 * @name: the name the model calls the tool by
 * @description: (nullable): what the tool does
 * @format: (nullable): the format of the input, or %NULL for free text
 * @func: (scope notified) (closure user_data) (destroy destroy): the body
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data when the tool is finalized
 *
 * Creates a custom tool whose body is an asynchronous function.
 *
 * Returns: (transfer full): the tool
 */
AgentsCustomTool *
agents_custom_tool_new_async (const char *name,
                              const char *description,
                              JsonObject *format,
                              AgentsCustomToolAsyncFunc func,
                              gpointer user_data,
                              GDestroyNotify destroy)
{
  AgentsCustomTool *self;

  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (func != NULL, NULL);

  self = custom_tool_new (name, description, format);
  self->async_func = func;
  self->user_data = user_data;
  self->destroy = destroy;
  return self;
}

/**
 * agents_custom_tool_get_format:
 * @self: a custom tool
 *
 * Gets the format of the tool's input.
 *
 * Returns: (transfer none) (nullable): the format
 */
JsonObject *
agents_custom_tool_get_format (AgentsCustomTool *self)
{
  g_return_val_if_fail (AGENTS_IS_CUSTOM_TOOL (self), NULL);

  return self->format;
}

/**
 * agents_custom_tool_set_format:
 * @self: a custom tool
 * @format: (nullable): the format, or %NULL for free text
 *
 * Sets the format of the tool's input. The object is copied.
 */
void
agents_custom_tool_set_format (AgentsCustomTool *self, JsonObject *format)
{
  g_return_if_fail (AGENTS_IS_CUSTOM_TOOL (self));

  if (self->format == format)
    return;
  g_clear_pointer (&self->format, json_object_unref);
  self->format = format ? agents_run_private_json_object_copy (format) : NULL;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FORMAT]);
}
