/* agents-openai-json.c - JSON helpers of the OpenAI-style models
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-openai-private.h"

const char *
agents_openai_json_string (JsonObject *object, const char *member)
{
  JsonNode *node = object ? json_object_get_member (object, member) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

JsonObject *
agents_openai_json_object (JsonObject *object, const char *member)
{
  JsonNode *node = object ? json_object_get_member (object, member) : NULL;

  return node != NULL && JSON_NODE_HOLDS_OBJECT (node)
           ? json_node_get_object (node)
           : NULL;
}

JsonArray *
agents_openai_json_array (JsonObject *object, const char *member)
{
  JsonNode *node = object ? json_object_get_member (object, member) : NULL;

  return node != NULL && JSON_NODE_HOLDS_ARRAY (node)
           ? json_node_get_array (node)
           : NULL;
}

AgentsModelResponse *
agents_openai_response_new (JsonArray *output,
                            JsonObject *usage,
                            const char *response_id)
{
  /* Nothing edits an answer's items after this point: sealed, they are
   * shared by the run's items and every later request instead of being
   * copied. */
  for (guint i = 0; output != NULL && i < json_array_get_length (output); i++)
    {
      JsonNode *node = json_array_get_element (output, i);

      if (JSON_NODE_HOLDS_OBJECT (node))
        json_object_seal (json_node_get_object (node));
    }
  return agents_model_response_new (output, usage, response_id);
}

char *
agents_openai_json_to_string (JsonNode *node)
{
  return json_to_string (node, FALSE);
}

static gint64
count (JsonObject *object, const char *member)
{
  JsonNode *node = object ? json_object_get_member (object, member) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_INT64)
    return 0;
  return MAX (json_node_get_int (node), 0);
}

static JsonObject *
usage_new (
  gint64 input, gint64 cached, gint64 output, gint64 reasoning, gint64 total)
{
  JsonObject *usage = json_object_new ();
  JsonObject *input_details = json_object_new ();
  JsonObject *output_details = json_object_new ();

  json_object_set_int_member (input_details, "cached_tokens", cached);
  json_object_set_int_member (output_details, "reasoning_tokens", reasoning);
  json_object_set_int_member (usage, "requests", 1);
  json_object_set_int_member (usage, "input_tokens", input);
  json_object_set_object_member (usage, "input_tokens_details", input_details);
  json_object_set_int_member (usage, "output_tokens", output);
  json_object_set_object_member (usage, "output_tokens_details",
                                 output_details);
  json_object_set_int_member (usage, "total_tokens", total);
  return usage;
}

JsonObject *
agents_openai_usage_from_responses (JsonObject *usage)
{
  return usage_new (
    count (usage, "input_tokens"),
    count (agents_openai_json_object (usage, "input_tokens_details"),
           "cached_tokens"),
    count (usage, "output_tokens"),
    count (agents_openai_json_object (usage, "output_tokens_details"),
           "reasoning_tokens"),
    count (usage, "total_tokens"));
}

JsonObject *
agents_openai_usage_from_chat (JsonObject *usage)
{
  return usage_new (
    count (usage, "prompt_tokens"),
    count (agents_openai_json_object (usage, "prompt_tokens_details"),
           "cached_tokens"),
    count (usage, "completion_tokens"),
    count (agents_openai_json_object (usage, "completion_tokens_details"),
           "reasoning_tokens"),
    count (usage, "total_tokens"));
}

/* A run usage object back in the Responses API's shape (no requests). */
JsonObject *
agents_openai_usage_responses_shape (JsonObject *usage)
{
  JsonObject *shape = json_object_new ();
  JsonObject *input_details = json_object_new ();
  JsonObject *output_details = json_object_new ();

  json_object_set_int_member (shape, "input_tokens",
                              count (usage, "input_tokens"));
  json_object_set_int_member (
    input_details, "cached_tokens",
    count (agents_openai_json_object (usage, "input_tokens_details"),
           "cached_tokens"));
  json_object_set_object_member (shape, "input_tokens_details", input_details);
  json_object_set_int_member (shape, "output_tokens",
                              count (usage, "output_tokens"));
  json_object_set_int_member (
    output_details, "reasoning_tokens",
    count (agents_openai_json_object (usage, "output_tokens_details"),
           "reasoning_tokens"));
  json_object_set_object_member (shape, "output_tokens_details",
                                 output_details);
  json_object_set_int_member (shape, "total_tokens",
                              count (usage, "total_tokens"));
  return shape;
}
