/* agents-openai-responses-stream.c - a streamed Responses answer and the
 * Responses answer object
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-openai-responses-stream-private.h"
#include "agents-run-error.h"

/* Every streamed event is pushed to the sink as it is; the response comes
 * from `response.completed` (its output, or the items of the
 * `response.output_item.done` events when it has none) and the failure
 * endings fail the stream. */

struct _AgentsOpenAIResponsesStream
{
  AgentsModelEventSink *sink;
  JsonArray *done_items;
  JsonObject *final_response;
};

AgentsModelResponse *
agents_openai_responses_response_from_json (JsonObject *response,
                                            JsonArray *fallback_output)
{
  JsonArray *output = agents_openai_json_array (response, "output");
  g_autoptr (JsonObject) usage = agents_openai_usage_from_responses (
    agents_openai_json_object (response, "usage"));

  if ((output == NULL || json_array_get_length (output) == 0) &&
      fallback_output != NULL)
    output = fallback_output;
  return agents_openai_response_new (
    output, usage, agents_openai_json_string (response, "id"));
}

AgentsOpenAIResponsesStream *
agents_openai_responses_stream_new (AgentsModelEventSink *sink)
{
  AgentsOpenAIResponsesStream *stream = g_new0 (AgentsOpenAIResponsesStream, 1);

  stream->sink = g_object_ref (sink);
  stream->done_items = json_array_new ();
  return stream;
}

void
agents_openai_responses_stream_free (AgentsOpenAIResponsesStream *stream)
{
  g_clear_object (&stream->sink);
  g_clear_pointer (&stream->done_items, json_array_unref);
  g_clear_pointer (&stream->final_response, json_object_unref);
  g_free (stream);
}

void
agents_openai_responses_stream_restart (gpointer user_data)
{
  AgentsOpenAIResponsesStream *stream = user_data;

  g_clear_pointer (&stream->done_items, json_array_unref);
  stream->done_items = json_array_new ();
  g_clear_pointer (&stream->final_response, json_object_unref);
}

static void
append_part (GString *text,
             const char *name,
             JsonObject *object,
             const char *member)
{
  JsonNode *node = object ? json_object_get_member (object, member) : NULL;
  g_autofree char *value = NULL;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return;
  if (JSON_NODE_HOLDS_VALUE (node) &&
      json_node_get_value_type (node) == G_TYPE_STRING)
    value = g_strdup (json_node_get_string (node));
  else
    value = agents_openai_json_to_string (node);
  if (*value == '\0')
    return;
  g_string_append_printf (text, "%s%s=%s", text->len ? "; " : "", name, value);
}

/* The reference's message for a failure ending. */
static GError *
terminal_error (const char *type, JsonObject *event)
{
  g_autoptr (GString) details = g_string_new (NULL);
  JsonObject *response = agents_openai_json_object (event, "response");
  JsonObject *error = agents_openai_json_object (event, "error");
  GVariantDict context;

  if (response != NULL)
    {
      append_part (details, "status", response, "status");
      append_part (details, "error", response, "error");
      append_part (details, "incomplete_details", response,
                   "incomplete_details");
    }
  else
    {
      JsonObject *source = error ? error : event;

      append_part (details, "code", source, "code");
      append_part (details, "message", source, "message");
      append_part (details, "param", source, "param");
    }
  g_variant_dict_init (&context, NULL);
  g_variant_dict_insert (&context, "event", "s", type);
  return agents_run_error_new (
    AGENTS_RUN_ERROR_MODEL_BEHAVIOR, g_variant_dict_end (&context),
    "Responses stream ended with terminal event `%s`.%s%s%s", type,
    details->len ? " " : "", details->str, details->len ? "." : "");
}

static gboolean
is_failure_ending (const char *type)
{
  return g_str_equal (type, "response.failed") ||
         g_str_equal (type, "response.incomplete") ||
         g_str_equal (type, "error") || g_str_equal (type, "response.error");
}

gboolean
agents_openai_responses_stream_event (AgentsOpenAIRequest *request,
                                      const char *event_name,
                                      const char *data,
                                      gsize data_len,
                                      gpointer user_data,
                                      GError **error)
{
  AgentsOpenAIResponsesStream *stream = user_data;
  g_autoptr (JsonNode) node = NULL;
  JsonObject *event;
  const char *type;

  if (g_str_equal (data, "[DONE]"))
    return TRUE; /* not part of the Responses protocol, but tolerated */
  node = agents_openai_parse_json (data, data_len, error);
  if (node == NULL)
    return FALSE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      agents_run_error_set (error, AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
                            _ ("a Responses stream event is not a JSON "
                               "object"));
      return FALSE;
    }
  event = json_node_get_object (node);
  type = agents_openai_json_string (event, "type");
  if (type == NULL)
    type = event_name ? event_name : "";
  if (!g_str_equal (type, "response.created") &&
      !g_str_equal (type, "response.in_progress"))
    agents_openai_request_mark_output (request);
  agents_model_event_sink_push (stream->sink, event);

  if (g_str_equal (type, "response.output_item.done") &&
      agents_openai_json_object (event, "item") != NULL)
    json_array_add_object_element (
      stream->done_items,
      json_object_ref (agents_openai_json_object (event, "item")));
  else if (g_str_equal (type, "response.completed"))
    {
      JsonObject *response = agents_openai_json_object (event, "response");

      /* The request reads no further; fed without one, a later
       * completion replaces this one. */
      g_clear_pointer (&stream->final_response, json_object_unref);
      stream->final_response =
        response ? json_object_ref (response) : json_object_new ();
      agents_openai_request_mark_end (request);
    }
  else if (is_failure_ending (type))
    {
      g_propagate_error (error, terminal_error (type, event));
      return FALSE;
    }
  return TRUE;
}

AgentsModelResponse *
agents_openai_responses_stream_finish (AgentsOpenAIResponsesStream *stream,
                                       GError **error)
{
  if (stream->final_response == NULL)
    {
      g_propagate_error (error, agents_run_error_new_literal (
                                  AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
                                  "Model did not produce a final response!"));
      return NULL;
    }
  return agents_openai_responses_response_from_json (stream->final_response,
                                                     stream->done_items);
}
