/* agents-openai-chat-stream.c - a streamed chat completion as the Responses
 * events\n * it stands for
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <inttypes.h>
#include <glib/gi18n-lib.h>

#include "agents-openai-chat-stream-private.h"
#include "agents-run-error.h"

/* A streamed chat completion becomes the Responses events it stands for.
 * Output items get their output_index when they start: reasoning, text,
 * then each tool call as its name and id are known. */

#define MAX_TOOL_CALLS 1024

typedef struct
{
  guint output_index;
  GString *text;
  gboolean started;
} Part;

typedef struct
{
  char *call_id;
  char *name;
  GString *arguments;
  gint output_index; /* -1 until announced */
} PendingCall;

struct _AgentsOpenAIChatStream
{
  AgentsModelEventSink *sink;
  GHashTable *custom;
  char *model_name;
  gint64 sequence;
  guint n_outputs;
  gboolean created;
  Part reasoning;
  Part text;
  Part refusal;
  GPtrArray *calls; /* PendingCall, by index */
  char *finish_reason;
  JsonObject *usage;
  gboolean done;
};

static void
pending_call_free (PendingCall *call)
{
  if (call == NULL)
    return;
  g_free (call->call_id);
  g_free (call->name);
  g_string_free (call->arguments, TRUE);
  g_free (call);
}

static void
chat_stream_reset (AgentsOpenAIChatStream *stream)
{
  stream->sequence = 0;
  stream->n_outputs = 0;
  stream->created = FALSE;
  for (Part *p = &stream->reasoning; p <= &stream->refusal; p++)
    {
      g_string_truncate (p->text, 0);
      p->started = FALSE;
    }
  g_ptr_array_set_size (stream->calls, 0);
  g_clear_pointer (&stream->finish_reason, g_free);
  g_clear_pointer (&stream->usage, json_object_unref);
  stream->done = FALSE;
}

AgentsOpenAIChatStream *
agents_openai_chat_stream_new (AgentsModelEventSink *sink,
                               GHashTable *custom,
                               const char *model_name)
{
  AgentsOpenAIChatStream *stream = g_new0 (AgentsOpenAIChatStream, 1);

  stream->sink = sink;
  stream->custom = custom;
  stream->model_name = g_strdup (model_name);
  stream->reasoning.text = g_string_new (NULL);
  stream->text.text = g_string_new (NULL);
  stream->refusal.text = g_string_new (NULL);
  stream->calls =
    g_ptr_array_new_with_free_func ((GDestroyNotify) pending_call_free);
  return stream;
}

void
agents_openai_chat_stream_free (AgentsOpenAIChatStream *stream)
{
  g_free (stream->model_name);
  for (Part *p = &stream->reasoning; p <= &stream->refusal; p++)
    g_string_free (p->text, TRUE);
  g_ptr_array_unref (stream->calls);
  g_free (stream->finish_reason);
  g_clear_pointer (&stream->usage, json_object_unref);
  g_free (stream);
}

void
agents_openai_chat_stream_restart (gpointer user_data)
{
  chat_stream_reset (user_data);
}

static JsonObject *
new_event (AgentsOpenAIChatStream *stream, const char *type)
{
  JsonObject *event = json_object_new ();

  json_object_set_string_member (event, "type", type);
  json_object_set_int_member (event, "sequence_number", stream->sequence++);
  return event;
}

static void
push (AgentsOpenAIChatStream *stream, JsonObject *event)
{
  agents_model_event_sink_push (stream->sink, event);
  json_object_unref (event);
}

static JsonObject *
response_object (AgentsOpenAIChatStream *stream,
                 const char *status,
                 JsonArray *output)
{
  JsonObject *response = json_object_new ();

  json_object_set_string_member (response, "id", "__fake_id__");
  json_object_set_string_member (response, "object", "response");
  json_object_set_string_member (response, "status", status);
  json_object_set_string_member (response, "model", stream->model_name);
  json_object_set_array_member (
    response, "output", output ? json_array_ref (output) : json_array_new ());
  return response;
}

static void
push_item_event (AgentsOpenAIChatStream *stream,
                 const char *type,
                 JsonObject *item,
                 guint output_index)
{
  JsonObject *event = new_event (stream, type);

  json_object_set_int_member (event, "output_index", output_index);
  json_object_set_object_member (event, "item", item);
  push (stream, event);
}

static JsonObject *
part_event (AgentsOpenAIChatStream *stream,
            const char *type,
            Part *part,
            const char *index_member)
{
  JsonObject *event = new_event (stream, type);

  json_object_set_string_member (event, "item_id", "__fake_id__");
  json_object_set_int_member (event, "output_index", part->output_index);
  json_object_set_int_member (event, index_member, 0);
  return event;
}

static JsonObject *
reasoning_item (const char *text)
{
  JsonObject *item = json_object_new ();
  JsonArray *summary = json_array_new ();

  json_object_set_string_member (item, "id", "__fake_id__");
  json_object_set_string_member (item, "type", "reasoning");
  if (text != NULL)
    {
      JsonObject *part = json_object_new ();

      json_object_set_string_member (part, "type", "summary_text");
      json_object_set_string_member (part, "text", text);
      json_array_add_object_element (summary, part);
    }
  json_object_set_array_member (item, "summary", summary);
  return item;
}

static JsonObject *
empty_message_item (void)
{
  JsonObject *item = json_object_new ();

  json_object_set_string_member (item, "id", "__fake_id__");
  json_object_set_string_member (item, "type", "message");
  json_object_set_string_member (item, "role", "assistant");
  json_object_set_string_member (item, "status", "in_progress");
  json_object_set_array_member (item, "content", json_array_new ());
  return item;
}

static JsonObject *
text_part_json (Part *part, gboolean refusal)
{
  JsonObject *json = json_object_new ();

  json_object_set_string_member (json, "type",
                                 refusal ? "refusal" : "output_text");
  json_object_set_string_member (json, refusal ? "refusal" : "text",
                                 part->text->str);
  if (!refusal)
    json_object_set_array_member (json, "annotations", json_array_new ());
  return json;
}

static void
reasoning_delta (AgentsOpenAIChatStream *stream, const char *delta)
{
  Part *part = &stream->reasoning;
  JsonObject *event;

  if (!part->started)
    {
      JsonObject *added;
      JsonObject *summary = json_object_new ();

      part->started = TRUE;
      part->output_index = stream->n_outputs++;
      push_item_event (stream, "response.output_item.added",
                       reasoning_item (NULL), part->output_index);
      added = part_event (stream, "response.reasoning_summary_part.added", part,
                          "summary_index");
      json_object_set_string_member (summary, "type", "summary_text");
      json_object_set_string_member (summary, "text", "");
      json_object_set_object_member (added, "part", summary);
      push (stream, added);
    }
  g_string_append (part->text, delta);
  event = part_event (stream, "response.reasoning_summary_text.delta", part,
                      "summary_index");
  json_object_set_string_member (event, "delta", delta);
  push (stream, event);
}

/* Text and refusal share the message item. */
static void
message_delta (AgentsOpenAIChatStream *stream,
               const char *delta,
               gboolean refusal)
{
  Part *part = refusal ? &stream->refusal : &stream->text;
  Part *other = refusal ? &stream->text : &stream->refusal;
  JsonObject *event;

  if (!part->started)
    {
      JsonObject *added;

      part->started = TRUE;
      if (other->started)
        part->output_index = other->output_index;
      else
        {
          part->output_index = stream->n_outputs++;
          push_item_event (stream, "response.output_item.added",
                           empty_message_item (), part->output_index);
        }
      added = part_event (stream, "response.content_part.added", part,
                          "content_index");
      json_object_set_object_member (added, "part",
                                     text_part_json (part, refusal));
      push (stream, added);
    }
  g_string_append (part->text, delta);
  event = part_event (
    stream, refusal ? "response.refusal.delta" : "response.output_text.delta",
    part, "content_index");
  json_object_set_string_member (event, "delta", delta);
  if (!refusal)
    json_object_set_array_member (event, "logprobs", json_array_new ());
  push (stream, event);
}

static gboolean
is_custom (AgentsOpenAIChatStream *stream, PendingCall *call)
{
  return call->name != NULL &&
         g_hash_table_contains (stream->custom, call->name);
}

static JsonObject *
call_item (AgentsOpenAIChatStream *stream, PendingCall *call, gboolean done)
{
  g_autoptr (JsonObject) chat_call = json_object_new ();
  JsonObject *function = json_object_new ();
  g_autoptr (JsonObject) message = json_object_new ();
  JsonArray *calls = json_array_new ();
  g_autoptr (JsonArray) items = NULL;
  JsonObject *item;

  json_object_set_string_member (chat_call, "id", call->call_id);
  json_object_set_string_member (function, "name", call->name);
  json_object_set_string_member (function, "arguments",
                                 done ? call->arguments->str : "");
  json_object_set_object_member (chat_call, "function", function);
  json_array_add_object_element (calls, json_object_ref (chat_call));
  json_object_set_array_member (message, "tool_calls", calls);
  items = agents_openai_chat_items_from_message (message, stream->custom);
  item = json_object_ref (json_array_get_object_element (items, 0));
  json_object_set_string_member (item, "status",
                                 done ? "completed" : "in_progress");
  return item;
}

static void
arguments_delta (AgentsOpenAIChatStream *stream,
                 PendingCall *call,
                 const char *delta)
{
  JsonObject *event;

  if (is_custom (stream, call) || *delta == '\0')
    return; /* its raw input is known only once its JSON is whole */
  event = new_event (stream, "response.function_call_arguments.delta");
  json_object_set_string_member (event, "item_id", "__fake_id__");
  json_object_set_int_member (event, "output_index", call->output_index);
  json_object_set_string_member (event, "delta", delta);
  push (stream, event);
}

static gboolean
tool_call_delta (AgentsOpenAIChatStream *stream,
                 JsonObject *delta,
                 GError **error)
{
  JsonNode *index_node = json_object_get_member (delta, "index");
  JsonObject *function = agents_openai_json_object (delta, "function");
  const char *id = agents_openai_json_string (delta, "id");
  const char *name = agents_openai_json_string (function, "name");
  const char *arguments = agents_openai_json_string (function, "arguments");
  gint64 index = index_node && JSON_NODE_HOLDS_VALUE (index_node)
                   ? json_node_get_int (index_node)
                   : stream->calls->len;
  PendingCall *call;

  if (index < 0 || index >= MAX_TOOL_CALLS)
    {
      agents_run_error_set (
        error, AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
        _ ("a streamed tool call has index %" PRId64 ", out of 0…%d"),
        (int64_t) index, MAX_TOOL_CALLS - 1);
      return FALSE;
    }
  if ((guint) index >= stream->calls->len)
    g_ptr_array_set_size (stream->calls, index + 1);
  call = stream->calls->pdata[index];
  if (call == NULL)
    {
      call = g_new0 (PendingCall, 1);
      call->arguments = g_string_new (NULL);
      call->output_index = -1;
      stream->calls->pdata[index] = call;
    }
  if (id != NULL && *id != '\0' && call->call_id == NULL)
    call->call_id = g_strdup (id);
  if (name != NULL && *name != '\0' && call->name == NULL)
    call->name = g_strdup (name);
  if (arguments != NULL)
    g_string_append (call->arguments, arguments);
  if (call->output_index < 0 && call->call_id != NULL && call->name != NULL)
    {
      call->output_index = stream->n_outputs++;
      push_item_event (stream, "response.output_item.added",
                       call_item (stream, call, FALSE), call->output_index);
      arguments_delta (stream, call, call->arguments->str);
    }
  else if (call->output_index >= 0 && arguments != NULL)
    arguments_delta (stream, call, arguments);
  return TRUE;
}

static gboolean
chunk (AgentsOpenAIChatStream *stream, JsonObject *object, GError **error)
{
  JsonArray *choices = agents_openai_json_array (object, "choices");
  JsonObject *choice = NULL;
  JsonObject *delta;
  JsonArray *calls;
  const char *text;

  if (agents_openai_json_object (object, "usage") != NULL)
    {
      g_clear_pointer (&stream->usage, json_object_unref);
      stream->usage =
        json_object_ref (agents_openai_json_object (object, "usage"));
    }
  if (choices != NULL && json_array_get_length (choices) > 0 &&
      JSON_NODE_HOLDS_OBJECT (json_array_get_element (choices, 0)))
    choice = json_array_get_object_element (choices, 0);
  if (choice == NULL)
    return TRUE;
  if (agents_openai_json_string (choice, "finish_reason") != NULL)
    {
      g_free (stream->finish_reason);
      stream->finish_reason =
        g_strdup (agents_openai_json_string (choice, "finish_reason"));
    }
  delta = agents_openai_json_object (choice, "delta");
  if (delta == NULL)
    return TRUE;
  if ((text = agents_openai_json_string (delta, "reasoning_content")) ||
      (text = agents_openai_json_string (delta, "reasoning")))
    if (*text != '\0')
      reasoning_delta (stream, text);
  if ((text = agents_openai_json_string (delta, "content")) && *text != '\0')
    message_delta (stream, text, FALSE);
  if ((text = agents_openai_json_string (delta, "refusal")) && *text != '\0')
    message_delta (stream, text, TRUE);
  calls = agents_openai_json_array (delta, "tool_calls");
  for (guint i = 0; calls && i < json_array_get_length (calls); i++)
    if (JSON_NODE_HOLDS_OBJECT (json_array_get_element (calls, i)) &&
        !tool_call_delta (stream, json_array_get_object_element (calls, i),
                          error))
      return FALSE;
  return TRUE;
}

static gboolean
server_error (JsonObject *object, GError **error)
{
  JsonObject *err = agents_openai_json_object (object, "error");
  const char *message = agents_openai_json_string (err, "message");

  if (err == NULL)
    return FALSE;
  agents_run_error_set (error, AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
                        _ ("the model server sent an error in the stream: %s"),
                        message ? message : "");
  return TRUE;
}

gboolean
agents_openai_chat_stream_event (AgentsOpenAIRequest *request,
                                 const char *event_name,
                                 const char *data,
                                 gsize data_len,
                                 gpointer user_data,
                                 GError **error)
{
  AgentsOpenAIChatStream *stream = user_data;
  g_autoptr (JsonNode) node = NULL;

  if (g_str_equal (data, "[DONE]"))
    {
      stream->done = TRUE;
      agents_openai_request_mark_end (request);
      return TRUE;
    }
  node = agents_openai_parse_json (data, data_len, error);
  if (node == NULL)
    return FALSE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      agents_run_error_set (error, AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
                            _ ("a chat completion chunk is not a JSON "
                               "object"));
      return FALSE;
    }
  if (server_error (json_node_get_object (node), error))
    return FALSE;
  if (!stream->created)
    {
      JsonObject *event = new_event (stream, "response.created");

      stream->created = TRUE;
      json_object_set_object_member (
        event, "response", response_object (stream, "in_progress", NULL));
      push (stream, event);
    }
  if (!chunk (stream, json_node_get_object (node), error))
    return FALSE;
  if (stream->n_outputs > 0)
    agents_openai_request_mark_output (request);
  return TRUE;
}

/* ---- the end of a stream ----------------------------------------------- */

static void
finish_reasoning (AgentsOpenAIChatStream *stream, JsonObject **items)
{
  Part *part = &stream->reasoning;
  JsonObject *event;
  JsonObject *summary = json_object_new ();

  event = part_event (stream, "response.reasoning_summary_text.done", part,
                      "summary_index");
  json_object_set_string_member (event, "text", part->text->str);
  push (stream, event);
  event = part_event (stream, "response.reasoning_summary_part.done", part,
                      "summary_index");
  json_object_set_string_member (summary, "type", "summary_text");
  json_object_set_string_member (summary, "text", part->text->str);
  json_object_set_object_member (event, "part", summary);
  push (stream, event);
  items[part->output_index] = reasoning_item (part->text->str);
  push_item_event (stream, "response.output_item.done",
                   json_object_ref (items[part->output_index]),
                   part->output_index);
}

static void
finish_message (AgentsOpenAIChatStream *stream, JsonObject **items)
{
  guint output_index = stream->text.started ? stream->text.output_index
                                            : stream->refusal.output_index;
  JsonObject *item = empty_message_item ();
  JsonArray *content = json_object_get_array_member (item, "content");

  for (Part *part = &stream->text; part <= &stream->refusal; part++)
    {
      gboolean refusal = part == &stream->refusal;
      JsonObject *event;

      if (!part->started)
        continue;
      if (!refusal)
        {
          event = part_event (stream, "response.output_text.done", part,
                              "content_index");
          json_object_set_string_member (event, "text", part->text->str);
          json_object_set_array_member (event, "logprobs", json_array_new ());
          push (stream, event);
        }
      else
        {
          event =
            part_event (stream, "response.refusal.done", part, "content_index");
          json_object_set_string_member (event, "refusal", part->text->str);
          push (stream, event);
        }
      event = part_event (stream, "response.content_part.done", part,
                          "content_index");
      json_object_set_object_member (event, "part",
                                     text_part_json (part, refusal));
      push (stream, event);
      json_array_add_object_element (content, text_part_json (part, refusal));
    }
  json_object_set_string_member (item, "status", "completed");
  items[output_index] = item;
  push_item_event (stream, "response.output_item.done", json_object_ref (item),
                   output_index);
}

static void
finish_call (AgentsOpenAIChatStream *stream,
             PendingCall *call,
             JsonObject **items)
{
  JsonObject *item = call_item (stream, call, TRUE);

  if (!is_custom (stream, call))
    {
      JsonObject *event =
        new_event (stream, "response.function_call_arguments.done");

      json_object_set_string_member (event, "item_id", "__fake_id__");
      json_object_set_int_member (event, "output_index", call->output_index);
      json_object_set_string_member (event, "arguments", call->arguments->str);
      push (stream, event);
    }
  items[call->output_index] = item;
  push_item_event (stream, "response.output_item.done", json_object_ref (item),
                   call->output_index);
}

AgentsModelResponse *
agents_openai_chat_stream_finish (AgentsOpenAIChatStream *stream,
                                  GError **error)
{
  g_autofree JsonObject **items = g_new0 (JsonObject *, stream->n_outputs + 1);
  g_autoptr (JsonArray) output = json_array_new ();
  g_autoptr (JsonObject) usage = agents_openai_usage_from_chat (stream->usage);
  JsonObject *event;
  JsonObject *response;
  gboolean has_call = FALSE;

  if (stream->reasoning.started)
    finish_reasoning (stream, items);
  if (stream->text.started || stream->refusal.started)
    finish_message (stream, items);
  for (guint i = 0; i < stream->calls->len; i++)
    {
      PendingCall *call = stream->calls->pdata[i];

      if (call == NULL || call->output_index < 0)
        continue;
      finish_call (stream, call, items);
      has_call = TRUE;
    }
  if (g_strcmp0 (stream->finish_reason, "tool_calls") == 0 && !has_call)
    {
      agents_run_error_set (error, AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
                            _ ("the model stopped for tool calls but gave no "
                               "usable tool call (each needs an id and a "
                               "name)"));
      for (guint i = 0; i < stream->n_outputs; i++)
        g_clear_pointer (&items[i], json_object_unref);
      return NULL;
    }
  for (guint i = 0; i < stream->n_outputs; i++)
    json_array_add_object_element (output, items[i]);

  event = new_event (stream, "response.completed");
  response = response_object (stream, "completed", output);
  json_object_set_object_member (response, "usage",
                                 agents_openai_usage_responses_shape (usage));
  json_object_set_object_member (event, "response", response);
  push (stream, event);
  return agents_openai_response_new (output, usage, NULL);
}
