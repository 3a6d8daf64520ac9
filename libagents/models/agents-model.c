/* agents-model.c - the interface of language models
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

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

/* AgentsModelResponse */

/**
 * AgentsModelResponse:
 *
 * A model's answer: output items (Responses item JSON), the usage and
 * the response's id.
 */

struct _AgentsModelResponse
{
  GObject parent_instance;

  JsonArray *output;
  JsonObject *usage;
  char *response_id;
};

G_DEFINE_FINAL_TYPE (AgentsModelResponse, agents_model_response, G_TYPE_OBJECT)

enum
{
  RESP_PROP_0,
  RESP_PROP_OUTPUT,
  RESP_PROP_USAGE,
  RESP_PROP_RESPONSE_ID,
  RESP_N_PROPS
};

static GParamSpec *response_properties[RESP_N_PROPS];

static void
agents_model_response_finalize (GObject *object)
{
  AgentsModelResponse *self = AGENTS_MODEL_RESPONSE (object);

  g_clear_pointer (&self->output, json_array_unref);
  g_clear_pointer (&self->usage, json_object_unref);
  g_free (self->response_id);

  G_OBJECT_CLASS (agents_model_response_parent_class)->finalize (object);
}

static void
agents_model_response_get_property (GObject *object,
                                    guint prop_id,
                                    GValue *value,
                                    GParamSpec *pspec)
{
  AgentsModelResponse *self = AGENTS_MODEL_RESPONSE (object);

  switch (prop_id)
    {
    case RESP_PROP_OUTPUT:
      g_value_set_boxed (value, self->output);
      break;
    case RESP_PROP_USAGE:
      g_value_set_boxed (value, self->usage);
      break;
    case RESP_PROP_RESPONSE_ID:
      g_value_set_string (value, self->response_id);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_model_response_set_property (GObject *object,
                                    guint prop_id,
                                    const GValue *value,
                                    GParamSpec *pspec)
{
  AgentsModelResponse *self = AGENTS_MODEL_RESPONSE (object);

  switch (prop_id)
    {
    case RESP_PROP_OUTPUT:
      self->output = g_value_dup_boxed (value);
      break;
    case RESP_PROP_USAGE:
      self->usage = g_value_dup_boxed (value);
      break;
    case RESP_PROP_RESPONSE_ID:
      self->response_id = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

/* The reference's Usage(): zeros. */
static JsonObject *
zero_usage (void)
{
  JsonObject *usage = json_object_new ();
  JsonObject *input_details = json_object_new ();
  JsonObject *output_details = json_object_new ();

  json_object_set_int_member (input_details, "cached_tokens", 0);
  json_object_set_int_member (output_details, "reasoning_tokens", 0);
  json_object_set_int_member (usage, "requests", 0);
  json_object_set_int_member (usage, "input_tokens", 0);
  json_object_set_object_member (usage, "input_tokens_details", input_details);
  json_object_set_int_member (usage, "output_tokens", 0);
  json_object_set_object_member (usage, "output_tokens_details",
                                 output_details);
  json_object_set_int_member (usage, "total_tokens", 0);
  return usage;
}

static void
agents_model_response_constructed (GObject *object)
{
  AgentsModelResponse *self = AGENTS_MODEL_RESPONSE (object);

  G_OBJECT_CLASS (agents_model_response_parent_class)->constructed (object);

  if (self->output == NULL)
    self->output = json_array_new ();
  if (self->usage == NULL)
    self->usage = zero_usage ();
}

#define CONSTRUCT_FLAGS \
  (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS)

static void
agents_model_response_class_init (AgentsModelResponseClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = agents_model_response_finalize;
  object_class->get_property = agents_model_response_get_property;
  object_class->set_property = agents_model_response_set_property;
  object_class->constructed = agents_model_response_constructed;

  /**
   * AgentsModelResponse:output:
   *
   * The output items.
   */
  response_properties[RESP_PROP_OUTPUT] =
    g_param_spec_boxed ("output", NULL, NULL, JSON_TYPE_ARRAY, CONSTRUCT_FLAGS);
  /**
   * AgentsModelResponse:usage:
   *
   * The usage (`requests`, `input_tokens`, `output_tokens`,
   * `total_tokens` and their details).
   */
  response_properties[RESP_PROP_USAGE] =
    g_param_spec_boxed ("usage", NULL, NULL, JSON_TYPE_OBJECT, CONSTRUCT_FLAGS);
  /**
   * AgentsModelResponse:response-id:
   *
   * The provider's id of the response.
   */
  response_properties[RESP_PROP_RESPONSE_ID] =
    g_param_spec_string ("response-id", NULL, NULL, NULL, CONSTRUCT_FLAGS);

  g_object_class_install_properties (object_class, RESP_N_PROPS,
                                     response_properties);
}

static void
agents_model_response_init (AgentsModelResponse *self)
{
}

/**
 * agents_model_response_new:
 * @output: (nullable): the output items (referenced), %NULL for none
 * @usage: (nullable): the usage (referenced), %NULL for zeros
 * @response_id: (nullable): the provider's id of the response
 *
 * Creates a response.
 *
 * Returns: (transfer full): the response
 */
AgentsModelResponse *
agents_model_response_new (JsonArray *output,
                           JsonObject *usage,
                           const char *response_id)
{
  return g_object_new (AGENTS_TYPE_MODEL_RESPONSE, "output", output, "usage",
                       usage, "response-id", response_id, NULL);
}

/**
 * agents_model_response_new_from_json:
 * @json: a response as agents_model_response_to_json() makes it
 * @error: return location for a #GError
 *
 * Reads a response from JSON; a malformed one fails with
 * %AGENTS_RUN_ERROR_INVALID_RUN_STATE.
 *
 * Returns: (transfer full): the response, or %NULL on error
 */
AgentsModelResponse *
agents_model_response_new_from_json (JsonObject *json, GError **error)
{
  JsonNode *output;
  JsonNode *usage;
  JsonNode *id;
  g_autoptr (JsonArray) output_copy = NULL;
  g_autoptr (JsonObject) usage_copy = NULL;

  g_return_val_if_fail (json != NULL, NULL);

  output = json_object_get_member (json, "output");
  usage = json_object_get_member (json, "usage");
  id = json_object_get_member (json, "response_id");
  if (output == NULL || !JSON_NODE_HOLDS_ARRAY (output) ||
      (usage != NULL && !JSON_NODE_HOLDS_OBJECT (usage) &&
       !JSON_NODE_HOLDS_NULL (usage)) ||
      (id != NULL && !JSON_NODE_HOLDS_NULL (id) &&
       agents_run_private_json_string (json, "response_id") == NULL))
    {
      agents_run_error_set (error, AGENTS_RUN_ERROR_INVALID_RUN_STATE, NULL,
                            _ ("malformed model response"));
      return NULL;
    }
  output_copy =
    agents_run_private_json_array_copy (json_node_get_array (output));
  if (usage != NULL && JSON_NODE_HOLDS_OBJECT (usage))
    usage_copy =
      agents_run_private_json_object_copy (json_node_get_object (usage));
  return agents_model_response_new (
    output_copy, usage_copy,
    agents_run_private_json_string (json, "response_id"));
}

/**
 * agents_model_response_to_json:
 * @self: a response
 *
 * Serializes the response as the reference's run state does:
 * `{"usage", "output", "response_id"}`.
 *
 * Returns: (transfer full): the JSON object
 */
JsonObject *
agents_model_response_to_json (AgentsModelResponse *self)
{
  JsonObject *json;

  g_return_val_if_fail (AGENTS_IS_MODEL_RESPONSE (self), NULL);

  json = json_object_new ();
  json_object_set_object_member (
    json, "usage", agents_run_private_json_object_copy (self->usage));
  json_object_set_array_member (
    json, "output", agents_run_private_json_array_copy (self->output));
  if (self->response_id != NULL)
    json_object_set_string_member (json, "response_id", self->response_id);
  else
    json_object_set_null_member (json, "response_id");
  return json;
}

/**
 * agents_model_response_get_output:
 * @self: a response
 *
 * Gets the output items.
 *
 * Returns: (transfer none): the output items
 */
JsonArray *
agents_model_response_get_output (AgentsModelResponse *self)
{
  g_return_val_if_fail (AGENTS_IS_MODEL_RESPONSE (self), NULL);
  return self->output;
}

/**
 * agents_model_response_get_usage:
 * @self: a response
 *
 * Gets the usage.
 *
 * Returns: (transfer none): the usage
 */
JsonObject *
agents_model_response_get_usage (AgentsModelResponse *self)
{
  g_return_val_if_fail (AGENTS_IS_MODEL_RESPONSE (self), NULL);
  return self->usage;
}

/**
 * agents_model_response_get_response_id:
 * @self: a response
 *
 * Gets the provider's id of the response.
 *
 * Returns: (nullable): the id
 */
const char *
agents_model_response_get_response_id (AgentsModelResponse *self)
{
  g_return_val_if_fail (AGENTS_IS_MODEL_RESPONSE (self), NULL);
  return self->response_id;
}

/* AgentsModelEventSink */

/**
 * AgentsModelEventSink:
 *
 * Where a streaming model pushes its raw events, the Responses streaming
 * events (`response.created`, `response.output_item.added`,
 * `response.output_text.delta`, `response.output_item.done`,
 * `response.completed`, …). Each push emits #AgentsModelEventSink::event.
 */

struct _AgentsModelEventSink
{
  GObject parent_instance;

  gint64 sequence_number;
};

G_DEFINE_FINAL_TYPE (AgentsModelEventSink,
                     agents_model_event_sink,
                     G_TYPE_OBJECT)

enum
{
  SINK_SIGNAL_EVENT,
  SINK_N_SIGNALS
};

static guint sink_signals[SINK_N_SIGNALS];

static void
agents_model_event_sink_class_init (AgentsModelEventSinkClass *klass)
{
  /**
   * AgentsModelEventSink::event:
   * @self: the sink
   * @event: the raw event
   *
   * A model pushed a raw streaming event.
   */
  sink_signals[SINK_SIGNAL_EVENT] =
    g_signal_new ("event", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1, JSON_TYPE_OBJECT);
}

static void
agents_model_event_sink_init (AgentsModelEventSink *self)
{
}

/**
 * agents_model_event_sink_new:
 *
 * Creates a sink.
 *
 * Returns: (transfer full): the sink
 */
AgentsModelEventSink *
agents_model_event_sink_new (void)
{
  return g_object_new (AGENTS_TYPE_MODEL_EVENT_SINK, NULL);
}

/**
 * agents_model_event_sink_push:
 * @self: a sink
 * @event: a raw event
 *
 * Pushes a raw event: emits #AgentsModelEventSink::event.
 */
void
agents_model_event_sink_push (AgentsModelEventSink *self, JsonObject *event)
{
  g_return_if_fail (AGENTS_IS_MODEL_EVENT_SINK (self));
  g_return_if_fail (event != NULL);

  g_signal_emit (self, sink_signals[SINK_SIGNAL_EVENT], 0, event);
}

static JsonObject *
response_object (AgentsModelResponse *response)
{
  JsonObject *object = json_object_new ();
  const char *id = agents_model_response_get_response_id (response);

  if (id != NULL)
    json_object_set_string_member (object, "id", id);
  else
    json_object_set_null_member (object, "id");
  json_object_set_string_member (object, "object", "response");
  json_object_set_array_member (object, "output",
                                agents_run_private_json_array_copy (
                                  agents_model_response_get_output (response)));
  json_object_set_object_member (object, "usage",
                                 agents_run_private_json_object_copy (
                                   agents_model_response_get_usage (response)));
  return object;
}

static JsonObject *
new_event (AgentsModelEventSink *self, const char *type)
{
  JsonObject *event = json_object_new ();

  json_object_set_string_member (event, "type", type);
  json_object_set_int_member (event, "sequence_number",
                              self->sequence_number++);
  return event;
}

static void
push_owned (AgentsModelEventSink *self, JsonObject *event)
{
  agents_model_event_sink_push (self, event);
  json_object_unref (event);
}

static void
push_text_deltas (AgentsModelEventSink *self,
                  JsonObject *item,
                  guint output_index)
{
  JsonNode *content = json_object_get_member (item, "content");
  JsonArray *parts;

  if (content == NULL || !JSON_NODE_HOLDS_ARRAY (content))
    return;
  parts = json_node_get_array (content);
  for (guint i = 0; i < json_array_get_length (parts); i++)
    {
      JsonNode *part = json_array_get_element (parts, i);
      JsonObject *delta;
      const char *text;

      if (!JSON_NODE_HOLDS_OBJECT (part))
        continue;
      text =
        agents_run_private_json_string (json_node_get_object (part), "text");
      if (text == NULL || g_strcmp0 (agents_run_private_json_string (
                                       json_node_get_object (part), "type"),
                                     "output_text") != 0)
        continue;
      delta = new_event (self, "response.output_text.delta");
      json_object_set_string_member (
        delta, "item_id",
        agents_run_private_json_string (item, "id")
          ? agents_run_private_json_string (item, "id")
          : "");
      json_object_set_int_member (delta, "output_index", output_index);
      json_object_set_int_member (delta, "content_index", i);
      json_object_set_string_member (delta, "delta", text);
      json_object_set_array_member (delta, "logprobs", json_array_new ());
      push_owned (self, delta);
    }
}

static void
push_item_event (AgentsModelEventSink *self,
                 const char *type,
                 JsonObject *item,
                 guint output_index)
{
  JsonObject *event = new_event (self, type);

  json_object_set_object_member (event, "item",
                                 agents_run_private_json_object_copy (item));
  json_object_set_int_member (event, "output_index", output_index);
  push_owned (self, event);
}

/**
 * agents_model_event_sink_push_response:
 * @self: a sink
 * @response: a complete response
 *
 * Pushes the streaming events of a whole response: `response.created`;
 * for each output item `response.output_item.added`, a
 * `response.output_text.delta` per text part of messages, and
 * `response.output_item.done`; then `response.completed`. Models that do
 * not stream (and the scripted model) use this.
 */
void
agents_model_event_sink_push_response (AgentsModelEventSink *self,
                                       AgentsModelResponse *response)
{
  JsonArray *output;
  JsonObject *event;

  g_return_if_fail (AGENTS_IS_MODEL_EVENT_SINK (self));
  g_return_if_fail (AGENTS_IS_MODEL_RESPONSE (response));

  event = new_event (self, "response.created");
  json_object_set_object_member (event, "response", response_object (response));
  push_owned (self, event);

  output = agents_model_response_get_output (response);
  for (guint i = 0; i < json_array_get_length (output); i++)
    {
      JsonNode *node = json_array_get_element (output, i);
      JsonObject *item;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      item = json_node_get_object (node);
      push_item_event (self, "response.output_item.added", item, i);
      if (g_strcmp0 (agents_run_private_json_string (item, "type"),
                     "message") == 0)
        push_text_deltas (self, item, i);
      push_item_event (self, "response.output_item.done", item, i);
    }

  event = new_event (self, "response.completed");
  json_object_set_object_member (event, "response", response_object (response));
  push_owned (self, event);
}

/* AgentsModel */

/**
 * AgentsModel:
 *
 * A language model. Implementations answer a request with
 * `get_response` and, optionally, stream with `stream_response`.
 */

G_DEFINE_INTERFACE (AgentsModel, agents_model, G_TYPE_OBJECT)

static void
default_get_response (AgentsModel *self,
                      AgentsModelRequest *request,
                      GTask *task)
{
  g_task_return_new_error (task, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_FAILED,
                           _ ("%s does not implement get_response"),
                           G_OBJECT_TYPE_NAME (self));
}

typedef struct
{
  GTask *task;
  AgentsModelEventSink *sink;
} StreamCall;

static void
stream_get_response_done (GObject *source,
                          GAsyncResult *result,
                          gpointer user_data)
{
  StreamCall *call = user_data;
  GError *error = NULL;
  AgentsModelResponse *response =
    g_task_propagate_pointer (G_TASK (result), &error);

  if (response == NULL)
    g_task_return_error (call->task, error);
  else
    {
      agents_model_event_sink_push_response (call->sink, response);
      agents_model_return_response (call->task, response);
      g_object_unref (response);
    }
  g_object_unref (call->task);
  g_object_unref (call->sink);
  g_free (call);
}

static void
default_stream_response (AgentsModel *self,
                         AgentsModelRequest *request,
                         AgentsModelEventSink *sink,
                         GTask *task)
{
  StreamCall *call = g_new0 (StreamCall, 1);
  g_autoptr (GTask) inner = NULL;

  call->task = g_object_ref (task);
  call->sink = g_object_ref (sink);
  inner = g_task_new (self, g_task_get_cancellable (task),
                      stream_get_response_done, call);
  g_task_set_source_tag (inner, default_stream_response);
  AGENTS_MODEL_GET_IFACE (self)->get_response (self, request, inner);
}

static void
agents_model_default_init (AgentsModelInterface *iface)
{
  iface->get_response = default_get_response;
  iface->stream_response = default_stream_response;
}

/**
 * agents_model_get_response_async:
 * @self: a model
 * @request: the request
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the response
 * @user_data: data for @callback
 *
 * Asks the model for a complete response.
 */
void
agents_model_get_response_async (AgentsModel *self,
                                 AgentsModelRequest *request,
                                 GCancellable *cancellable,
                                 GAsyncReadyCallback callback,
                                 gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_MODEL (self));
  g_return_if_fail (AGENTS_IS_MODEL_REQUEST (request));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_model_get_response_async);
  AGENTS_MODEL_GET_IFACE (self)->get_response (self, request, task);
}

/**
 * agents_model_get_response_finish:
 * @self: a model
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_model_get_response_async().
 *
 * Returns: (transfer full): the response, or %NULL on error
 */
AgentsModelResponse *
agents_model_get_response_finish (AgentsModel *self,
                                  GAsyncResult *result,
                                  GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * agents_model_stream_response_async:
 * @self: a model
 * @request: the request
 * @sink: where the model pushes its raw events
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the final response
 * @user_data: data for @callback
 *
 * Asks the model for a response, streaming raw events into @sink.
 */
void
agents_model_stream_response_async (AgentsModel *self,
                                    AgentsModelRequest *request,
                                    AgentsModelEventSink *sink,
                                    GCancellable *cancellable,
                                    GAsyncReadyCallback callback,
                                    gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_MODEL (self));
  g_return_if_fail (AGENTS_IS_MODEL_REQUEST (request));
  g_return_if_fail (AGENTS_IS_MODEL_EVENT_SINK (sink));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_model_stream_response_async);
  AGENTS_MODEL_GET_IFACE (self)->stream_response (self, request, sink, task);
}

/**
 * agents_model_stream_response_finish:
 * @self: a model
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_model_stream_response_async().
 *
 * Returns: (transfer full): the final response, or %NULL on error
 */
AgentsModelResponse *
agents_model_stream_response_finish (AgentsModel *self,
                                     GAsyncResult *result,
                                     GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * agents_model_return_response:
 * @task: the task a model vfunc received
 * @response: the response
 *
 * Completes the task of a model call with @response. Models in any
 * language use this.
 */
void
agents_model_return_response (GTask *task, AgentsModelResponse *response)
{
  g_return_if_fail (G_IS_TASK (task));
  g_return_if_fail (AGENTS_IS_MODEL_RESPONSE (response));

  g_task_return_pointer (task, g_object_ref (response), g_object_unref);
}
