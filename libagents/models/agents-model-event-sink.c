/* agents-model-event-sink.c - AgentsModelEventSink, streamed model events
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-enums.h"
#include "agents-model.h"
#include "agents-run-error.h"
#include "agents-run-private.h"

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
