/* agents-model-request.c - AgentsModelRequest, what a model is asked
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-enums.h"
#include "agents-model.h"
#include "agents-run-error.h"
#include "agents-run-private.h"

/* AgentsModelRequest */

/**
 * AgentsModelRequest:
 *
 * Everything a model call is given: system instructions, input items,
 * model settings, tools and handoffs, the output schema, a prompt
 * reference and the previous response's id. Models only read it.
 */

struct _AgentsModelRequest
{
  GObject parent_instance;

  char *system_instructions;
  JsonArray *input;
  AgentsModelSettings *model_settings;
  GPtrArray *tools;
  GPtrArray *handoffs;
  JsonObject *output_schema;
  JsonObject *prompt;
  char *previous_response_id;
  char *conversation_id;
  char *prompt_cache_key;
  AgentsSpan *span;
  AgentsModelTracing tracing;
};

G_DEFINE_FINAL_TYPE (AgentsModelRequest, agents_model_request, G_TYPE_OBJECT)

enum
{
  REQ_PROP_0,
  REQ_PROP_SYSTEM_INSTRUCTIONS,
  REQ_PROP_INPUT,
  REQ_PROP_MODEL_SETTINGS,
  REQ_PROP_OUTPUT_SCHEMA,
  REQ_PROP_PROMPT,
  REQ_PROP_PREVIOUS_RESPONSE_ID,
  REQ_PROP_CONVERSATION_ID,
  REQ_PROP_TRACING,
  REQ_N_PROPS
};

static GParamSpec *request_properties[REQ_N_PROPS];

static void
agents_model_request_finalize (GObject *object)
{
  AgentsModelRequest *self = AGENTS_MODEL_REQUEST (object);

  g_free (self->system_instructions);
  json_array_unref (self->input);
  g_object_unref (self->model_settings);
  g_ptr_array_unref (self->tools);
  g_ptr_array_unref (self->handoffs);
  g_clear_pointer (&self->output_schema, json_object_unref);
  g_clear_pointer (&self->prompt, json_object_unref);
  g_free (self->previous_response_id);
  g_free (self->conversation_id);
  g_free (self->prompt_cache_key);
  g_clear_object (&self->span);

  G_OBJECT_CLASS (agents_model_request_parent_class)->finalize (object);
}

static void
agents_model_request_get_property (GObject *object,
                                   guint prop_id,
                                   GValue *value,
                                   GParamSpec *pspec)
{
  AgentsModelRequest *self = AGENTS_MODEL_REQUEST (object);

  switch (prop_id)
    {
    case REQ_PROP_SYSTEM_INSTRUCTIONS:
      g_value_set_string (value, self->system_instructions);
      break;
    case REQ_PROP_INPUT:
      g_value_set_boxed (value, self->input);
      break;
    case REQ_PROP_MODEL_SETTINGS:
      g_value_set_object (value, self->model_settings);
      break;
    case REQ_PROP_OUTPUT_SCHEMA:
      g_value_set_boxed (value, self->output_schema);
      break;
    case REQ_PROP_PROMPT:
      g_value_set_boxed (value, self->prompt);
      break;
    case REQ_PROP_PREVIOUS_RESPONSE_ID:
      g_value_set_string (value, self->previous_response_id);
      break;
    case REQ_PROP_CONVERSATION_ID:
      g_value_set_string (value, self->conversation_id);
      break;
    case REQ_PROP_TRACING:
      g_value_set_enum (value, self->tracing);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_model_request_set_property (GObject *object,
                                   guint prop_id,
                                   const GValue *value,
                                   GParamSpec *pspec)
{
  AgentsModelRequest *self = AGENTS_MODEL_REQUEST (object);

  switch (prop_id)
    {
    case REQ_PROP_SYSTEM_INSTRUCTIONS:
      agents_model_request_set_system_instructions (self,
                                                    g_value_get_string (value));
      break;
    case REQ_PROP_INPUT:
      agents_model_request_set_input (self, g_value_get_boxed (value));
      break;
    case REQ_PROP_MODEL_SETTINGS:
      agents_model_request_set_model_settings (self,
                                               g_value_get_object (value));
      break;
    case REQ_PROP_OUTPUT_SCHEMA:
      agents_model_request_set_output_schema (self, g_value_get_boxed (value));
      break;
    case REQ_PROP_PROMPT:
      agents_model_request_set_prompt (self, g_value_get_boxed (value));
      break;
    case REQ_PROP_PREVIOUS_RESPONSE_ID:
      agents_model_request_set_previous_response_id (
        self, g_value_get_string (value));
      break;
    case REQ_PROP_CONVERSATION_ID:
      agents_model_request_set_conversation_id (self,
                                                g_value_get_string (value));
      break;
    case REQ_PROP_TRACING:
      agents_model_request_set_tracing (self, g_value_get_enum (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

#define PARAM_FLAGS \
  (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY)

static void
agents_model_request_class_init (AgentsModelRequestClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = agents_model_request_finalize;
  object_class->get_property = agents_model_request_get_property;
  object_class->set_property = agents_model_request_set_property;

  /**
   * AgentsModelRequest:system-instructions:
   *
   * The system prompt.
   */
  request_properties[REQ_PROP_SYSTEM_INSTRUCTIONS] =
    g_param_spec_string ("system-instructions", NULL, NULL, NULL, PARAM_FLAGS);
  /**
   * AgentsModelRequest:input:
   *
   * The input items.
   */
  request_properties[REQ_PROP_INPUT] =
    g_param_spec_boxed ("input", NULL, NULL, JSON_TYPE_ARRAY, PARAM_FLAGS);
  /**
   * AgentsModelRequest:model-settings:
   *
   * The resolved model settings.
   */
  request_properties[REQ_PROP_MODEL_SETTINGS] = g_param_spec_object (
    "model-settings", NULL, NULL, AGENTS_TYPE_MODEL_SETTINGS, PARAM_FLAGS);
  /**
   * AgentsModelRequest:output-schema:
   *
   * The JSON schema of a structured output.
   */
  request_properties[REQ_PROP_OUTPUT_SCHEMA] = g_param_spec_boxed (
    "output-schema", NULL, NULL, JSON_TYPE_OBJECT, PARAM_FLAGS);
  /**
   * AgentsModelRequest:prompt:
   *
   * The prompt reference.
   */
  request_properties[REQ_PROP_PROMPT] =
    g_param_spec_boxed ("prompt", NULL, NULL, JSON_TYPE_OBJECT, PARAM_FLAGS);
  /**
   * AgentsModelRequest:previous-response-id:
   *
   * The id of the response this one continues.
   */
  request_properties[REQ_PROP_PREVIOUS_RESPONSE_ID] =
    g_param_spec_string ("previous-response-id", NULL, NULL, NULL, PARAM_FLAGS);
  /**
   * AgentsModelRequest:conversation-id:
   *
   * The provider's conversation id.
   */
  request_properties[REQ_PROP_CONVERSATION_ID] =
    g_param_spec_string ("conversation-id", NULL, NULL, NULL, PARAM_FLAGS);
  /**
   * AgentsModelRequest:tracing:
   *
   * What the model records in the trace.
   */
  request_properties[REQ_PROP_TRACING] =
    g_param_spec_enum ("tracing", NULL, NULL, AGENTS_TYPE_MODEL_TRACING,
                       AGENTS_MODEL_TRACING_DISABLED, PARAM_FLAGS);

  g_object_class_install_properties (object_class, REQ_N_PROPS,
                                     request_properties);
}

static void
agents_model_request_init (AgentsModelRequest *self)
{
  self->input = json_array_new ();
  self->model_settings = agents_model_settings_new ();
  self->tools = g_ptr_array_new_with_free_func (g_object_unref);
  self->handoffs = g_ptr_array_new_with_free_func (g_object_unref);
}

/**
 * agents_model_request_new:
 *
 * Creates an empty request.
 *
 * Returns: (transfer full): the request
 */
AgentsModelRequest *
agents_model_request_new (void)
{
  return g_object_new (AGENTS_TYPE_MODEL_REQUEST, NULL);
}

/* Sealed items cannot change, so the copy shares them. */
static JsonArray *
copy_input (JsonArray *input)
{
  JsonArray *copy = json_array_sized_new (json_array_get_length (input));

  for (guint i = 0; i < json_array_get_length (input); i++)
    {
      JsonNode *node = json_array_get_element (input, i);
      g_autoptr (JsonArray) single = NULL;
      g_autoptr (JsonArray) copied = NULL;

      if (json_node_is_immutable (node))
        {
          json_array_add_element (copy, json_node_ref (node));
          continue;
        }
      single = json_array_new ();
      json_array_add_element (single, json_node_ref (node));
      copied = agents_run_private_json_array_copy (single);
      json_array_add_element (copy, json_array_dup_element (copied, 0));
    }
  return copy;
}

/**
 * agents_model_request_copy:
 * @self: a request
 *
 * Copies a request: the input items are deep-copied (later changes of the
 * original's do not show) except sealed ones, which cannot change and are
 * shared; the settings copied, tools and handoffs shared.
 *
 * Returns: (transfer full): the copy
 */
AgentsModelRequest *
agents_model_request_copy (AgentsModelRequest *self)
{
  AgentsModelRequest *copy;
  g_autoptr (JsonArray) input = NULL;
  g_autoptr (AgentsModelSettings) settings = NULL;

  g_return_val_if_fail (AGENTS_IS_MODEL_REQUEST (self), NULL);

  copy = agents_model_request_new ();
  copy->system_instructions = g_strdup (self->system_instructions);
  input = copy_input (self->input);
  agents_model_request_set_input (copy, input);
  settings = agents_model_settings_copy (self->model_settings);
  agents_model_request_set_model_settings (copy, settings);
  agents_model_request_set_tools (copy, self->tools);
  agents_model_request_set_handoffs (copy, self->handoffs);
  copy->output_schema =
    agents_run_private_json_object_copy (self->output_schema);
  copy->prompt = agents_run_private_json_object_copy (self->prompt);
  copy->previous_response_id = g_strdup (self->previous_response_id);
  copy->conversation_id = g_strdup (self->conversation_id);
  copy->prompt_cache_key = g_strdup (self->prompt_cache_key);
  g_set_object (&copy->span, self->span);
  copy->tracing = self->tracing;
  return copy;
}

static void
request_set_string (AgentsModelRequest *self,
                    char **field,
                    const char *value,
                    int prop)
{
  if (g_strcmp0 (*field, value) == 0)
    return;
  g_free (*field);
  *field = g_strdup (value);
  g_object_notify_by_pspec (G_OBJECT (self), request_properties[prop]);
}

static void
request_set_object (AgentsModelRequest *self,
                    JsonObject **field,
                    JsonObject *value,
                    int prop)
{
  if (*field == value)
    return;
  g_clear_pointer (field, json_object_unref);
  *field = value ? json_object_ref (value) : NULL;
  g_object_notify_by_pspec (G_OBJECT (self), request_properties[prop]);
}

/**
 * agents_model_request_get_system_instructions:
 * @self: a request
 *
 * Gets the system prompt.
 *
 * Returns: (nullable): the system prompt
 */
const char *
agents_model_request_get_system_instructions (AgentsModelRequest *self)
{
  g_return_val_if_fail (AGENTS_IS_MODEL_REQUEST (self), NULL);
  return self->system_instructions;
}

/**
 * agents_model_request_set_system_instructions:
 * @self: a request
 * @instructions: (nullable): the system prompt
 *
 * Sets the system prompt.
 */
void
agents_model_request_set_system_instructions (AgentsModelRequest *self,
                                              const char *instructions)
{
  g_return_if_fail (AGENTS_IS_MODEL_REQUEST (self));
  request_set_string (self, &self->system_instructions, instructions,
                      REQ_PROP_SYSTEM_INSTRUCTIONS);
}

/**
 * agents_model_request_get_input:
 * @self: a request
 *
 * Gets the input items.
 *
 * Returns: (transfer none): the input items
 */
JsonArray *
agents_model_request_get_input (AgentsModelRequest *self)
{
  g_return_val_if_fail (AGENTS_IS_MODEL_REQUEST (self), NULL);
  return self->input;
}

/**
 * agents_model_request_set_input:
 * @self: a request
 * @input: (nullable): the input items (referenced), %NULL for none
 *
 * Sets the input items.
 */
void
agents_model_request_set_input (AgentsModelRequest *self, JsonArray *input)
{
  g_return_if_fail (AGENTS_IS_MODEL_REQUEST (self));

  if (self->input == input)
    return;
  json_array_unref (self->input);
  self->input = input ? json_array_ref (input) : json_array_new ();
  g_object_notify_by_pspec (G_OBJECT (self),
                            request_properties[REQ_PROP_INPUT]);
}

/**
 * agents_model_request_get_model_settings:
 * @self: a request
 *
 * Gets the resolved model settings.
 *
 * Returns: (transfer none): the model settings
 */
AgentsModelSettings *
agents_model_request_get_model_settings (AgentsModelRequest *self)
{
  g_return_val_if_fail (AGENTS_IS_MODEL_REQUEST (self), NULL);
  return self->model_settings;
}

/**
 * agents_model_request_set_model_settings:
 * @self: a request
 * @settings: (nullable): the model settings, %NULL for all unset
 *
 * Sets the model settings.
 */
void
agents_model_request_set_model_settings (AgentsModelRequest *self,
                                         AgentsModelSettings *settings)
{
  g_autoptr (AgentsModelSettings) empty = NULL;

  g_return_if_fail (AGENTS_IS_MODEL_REQUEST (self));
  g_return_if_fail (settings == NULL || AGENTS_IS_MODEL_SETTINGS (settings));

  if (settings == NULL)
    settings = empty = agents_model_settings_new ();
  if (g_set_object (&self->model_settings, settings))
    g_object_notify_by_pspec (G_OBJECT (self),
                              request_properties[REQ_PROP_MODEL_SETTINGS]);
}

static void
replace_objects (GPtrArray *dest, GPtrArray *src)
{
  g_autoptr (GPtrArray) keep = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; src != NULL && i < src->len; i++)
    g_ptr_array_add (keep, g_object_ref (src->pdata[i]));
  g_ptr_array_set_size (dest, 0);
  for (guint i = 0; i < keep->len; i++)
    g_ptr_array_add (dest, g_object_ref (keep->pdata[i]));
}

/**
 * agents_model_request_get_tools:
 * @self: a request
 *
 * Gets the tools the model may call: the agent's tools.
 *
 * Returns: (transfer none) (element-type AgentsTool): the tools
 */
GPtrArray *
agents_model_request_get_tools (AgentsModelRequest *self)
{
  g_return_val_if_fail (AGENTS_IS_MODEL_REQUEST (self), NULL);
  return self->tools;
}

/**
 * agents_model_request_set_tools:
 * @self: a request
 * @tools: (nullable) (element-type AgentsTool): the tools
 *
 * Sets the tools the model may call.
 */
void
agents_model_request_set_tools (AgentsModelRequest *self, GPtrArray *tools)
{
  g_return_if_fail (AGENTS_IS_MODEL_REQUEST (self));
  replace_objects (self->tools, tools);
}

/**
 * agents_model_request_get_handoffs:
 * @self: a request
 *
 * Gets the handoffs the model may call, as tools.
 *
 * Returns: (transfer none) (element-type AgentsHandoff): the handoffs
 */
GPtrArray *
agents_model_request_get_handoffs (AgentsModelRequest *self)
{
  g_return_val_if_fail (AGENTS_IS_MODEL_REQUEST (self), NULL);
  return self->handoffs;
}

/**
 * agents_model_request_set_handoffs:
 * @self: a request
 * @handoffs: (nullable) (element-type AgentsHandoff): the handoffs
 *
 * Sets the handoffs the model may call.
 */
void
agents_model_request_set_handoffs (AgentsModelRequest *self,
                                   GPtrArray *handoffs)
{
  g_return_if_fail (AGENTS_IS_MODEL_REQUEST (self));
  replace_objects (self->handoffs, handoffs);
}

/**
 * agents_model_request_get_output_schema:
 * @self: a request
 *
 * Gets the JSON schema of a structured output.
 *
 * Returns: (transfer none) (nullable): the schema
 */
JsonObject *
agents_model_request_get_output_schema (AgentsModelRequest *self)
{
  g_return_val_if_fail (AGENTS_IS_MODEL_REQUEST (self), NULL);
  return self->output_schema;
}

/**
 * agents_model_request_set_output_schema:
 * @self: a request
 * @output_schema: (nullable): the schema
 *
 * Sets the JSON schema of a structured output.
 */
void
agents_model_request_set_output_schema (AgentsModelRequest *self,
                                        JsonObject *output_schema)
{
  g_return_if_fail (AGENTS_IS_MODEL_REQUEST (self));
  request_set_object (self, &self->output_schema, output_schema,
                      REQ_PROP_OUTPUT_SCHEMA);
}

/**
 * agents_model_request_get_prompt:
 * @self: a request
 *
 * Gets the prompt reference.
 *
 * Returns: (transfer none) (nullable): the prompt
 */
JsonObject *
agents_model_request_get_prompt (AgentsModelRequest *self)
{
  g_return_val_if_fail (AGENTS_IS_MODEL_REQUEST (self), NULL);
  return self->prompt;
}

/**
 * agents_model_request_set_prompt:
 * @self: a request
 * @prompt: (nullable): the prompt
 *
 * Sets the prompt reference.
 */
void
agents_model_request_set_prompt (AgentsModelRequest *self, JsonObject *prompt)
{
  g_return_if_fail (AGENTS_IS_MODEL_REQUEST (self));
  request_set_object (self, &self->prompt, prompt, REQ_PROP_PROMPT);
}

/**
 * agents_model_request_get_previous_response_id:
 * @self: a request
 *
 * Gets the id of the response this one continues.
 *
 * Returns: (nullable): the id
 */
const char *
agents_model_request_get_previous_response_id (AgentsModelRequest *self)
{
  g_return_val_if_fail (AGENTS_IS_MODEL_REQUEST (self), NULL);
  return self->previous_response_id;
}

/**
 * agents_model_request_set_previous_response_id:
 * @self: a request
 * @response_id: (nullable): the id
 *
 * Sets the id of the response this one continues.
 */
void
agents_model_request_set_previous_response_id (AgentsModelRequest *self,
                                               const char *response_id)
{
  g_return_if_fail (AGENTS_IS_MODEL_REQUEST (self));
  request_set_string (self, &self->previous_response_id, response_id,
                      REQ_PROP_PREVIOUS_RESPONSE_ID);
}

/**
 * agents_model_request_get_conversation_id:
 * @self: a request
 *
 * Gets the provider's conversation id.
 *
 * Returns: (nullable): the id
 */
const char *
agents_model_request_get_conversation_id (AgentsModelRequest *self)
{
  g_return_val_if_fail (AGENTS_IS_MODEL_REQUEST (self), NULL);
  return self->conversation_id;
}

/**
 * agents_model_request_set_conversation_id:
 * @self: a request
 * @conversation_id: (nullable): the id
 *
 * Sets the provider's conversation id.
 */
void
agents_model_request_set_conversation_id (AgentsModelRequest *self,
                                          const char *conversation_id)
{
  g_return_if_fail (AGENTS_IS_MODEL_REQUEST (self));
  request_set_string (self, &self->conversation_id, conversation_id,
                      REQ_PROP_CONVERSATION_ID);
}

/**
 * agents_model_request_get_prompt_cache_key:
 * @self: a request
 *
 * Gets the key that lets the provider reuse its cache of this run's
 * prompt prefix; the runner sets one per run.
 *
 * Returns: (nullable): the key
 */
const char *
agents_model_request_get_prompt_cache_key (AgentsModelRequest *self)
{
  g_return_val_if_fail (AGENTS_IS_MODEL_REQUEST (self), NULL);
  return self->prompt_cache_key;
}

/**
 * agents_model_request_set_prompt_cache_key:
 * @self: a request
 * @key: (nullable): the key
 *
 * Sets the prompt cache key. Models send it where the provider takes
 * one (the OpenAI Responses API on OpenAI's own endpoint), unless the
 * model settings' extra arguments give one.
 */
void
agents_model_request_set_prompt_cache_key (AgentsModelRequest *self,
                                           const char *key)
{
  g_return_if_fail (AGENTS_IS_MODEL_REQUEST (self));
  g_free (self->prompt_cache_key);
  self->prompt_cache_key = g_strdup (key);
}

/**
 * agents_model_request_get_span:
 * @self: a request
 *
 * Gets the span the model call runs in (the runner's generation span),
 * under which a model may record spans of its own with
 * agents_span_start_child().
 *
 * Returns: (nullable) (transfer none): the span
 */
AgentsSpan *
agents_model_request_get_span (AgentsModelRequest *self)
{
  g_return_val_if_fail (AGENTS_IS_MODEL_REQUEST (self), NULL);
  return self->span;
}

/**
 * agents_model_request_set_span:
 * @self: a request
 * @span: (nullable): the span
 *
 * Sets the span the model call runs in.
 */
void
agents_model_request_set_span (AgentsModelRequest *self, AgentsSpan *span)
{
  g_return_if_fail (AGENTS_IS_MODEL_REQUEST (self));
  g_return_if_fail (span == NULL || AGENTS_IS_SPAN (span));
  g_set_object (&self->span, span);
}

/**
 * agents_model_request_get_tracing:
 * @self: a request
 *
 * Gets what the model records in the trace.
 *
 * Returns: the tracing mode
 */
AgentsModelTracing
agents_model_request_get_tracing (AgentsModelRequest *self)
{
  g_return_val_if_fail (AGENTS_IS_MODEL_REQUEST (self), 0);
  return self->tracing;
}

/**
 * agents_model_request_set_tracing:
 * @self: a request
 * @tracing: the tracing mode
 *
 * Sets what the model records in the trace.
 */
void
agents_model_request_set_tracing (AgentsModelRequest *self,
                                  AgentsModelTracing tracing)
{
  g_return_if_fail (AGENTS_IS_MODEL_REQUEST (self));

  if (self->tracing == tracing)
    return;
  self->tracing = tracing;
  g_object_notify_by_pspec (G_OBJECT (self),
                            request_properties[REQ_PROP_TRACING]);
}
