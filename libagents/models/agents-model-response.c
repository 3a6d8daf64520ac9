/* agents-model-response.c - AgentsModelResponse, a model's answer
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
new_zero_usage (void)
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

/* Responses without a usage share one sealed zero usage: a run keeps
 * every response, and three JSON objects per response add up. */
static JsonObject *
zero_usage (void)
{
  static JsonObject *zero;

  if (g_once_init_enter (&zero))
    {
      JsonObject *usage = new_zero_usage ();

      json_object_seal (usage);
      g_once_init_leave (&zero, usage);
    }
  return json_object_ref (zero);
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
 * @usage: (nullable): the usage (referenced), %NULL for zeros (a
 *   sealed object that responses share)
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
