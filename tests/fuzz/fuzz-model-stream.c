/* fuzz-model-stream.c - libFuzzer harness: what a hostile OpenAI-compatible
 * server sends, through the models' wire code: the server-sent events
 * framing, the Chat Completions and Responses stream handlers, and the
 * JSON answers of both APIs when not streamed
 *
 * Input: one mode byte, two split bytes, then the server's bytes. The mode
 * byte's low two bits choose what the bytes are (see Mode); its bit 2
 * restarts a stream and feeds it again, as a retried request does. The
 * split bytes cut a stream into three chunks, so that events span chunk
 * boundaries.
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <agents.h>

#include "agents-openai-chat-stream-private.h"
#include "agents-openai-private.h"
#include "agents-openai-responses-stream-private.h"
#include "agents-sse-parser.h"
#include "fuzz-common.h"

/* Small, so that hostile sizes reach the limit. */
#define MAX_EVENT_SIZE (64 * 1024)
#define HEADER_SIZE 3

typedef enum
{
  MODE_CHAT_STREAM,
  MODE_RESPONSES_STREAM,
  MODE_RESPONSES_JSON,
  MODE_CHAT_JSON,
} Mode;

#define MODE_RESTART 4

typedef struct
{
  AgentsOpenAIEventFunc event_func;
  gpointer stream;
} Feed;

/* The request passed to the handlers: none, as no exchange is made. */
static gboolean
on_sse_event (const char *event,
              const char *data,
              gsize data_len,
              gpointer user_data,
              GError **error)
{
  Feed *feed = user_data;
  gboolean ok;

  ok = feed->event_func (NULL, event, data, data_len, feed->stream, error);
  g_assert_true (ok == (*error == NULL));
  return ok;
}

static void
on_sink_event (AgentsModelEventSink *sink, JsonObject *event, guint *n_events)
{
  g_assert_nonnull (event);
  (*n_events)++;
}

/* @body in three chunks cut where @cuts say; whether the whole framing
 * and every event were accepted. */
static gboolean
feed_stream (Feed *feed, const guint8 cuts[2], const guint8 *body, gsize size)
{
  g_autoptr (AgentsSseParser) parser =
    agents_sse_parser_new (MAX_EVENT_SIZE, on_sse_event, feed);
  g_autoptr (GError) error = NULL;
  gsize first = size * cuts[0] / 256;
  gsize second = first + (size - first) * cuts[1] / 256;
  gsize bounds[] = { 0, first, second, size };

  for (guint i = 0; i < 3; i++)
    {
      const char *chunk = (const char *) body + bounds[i];

      if (!agents_sse_parser_feed (parser, chunk, bounds[i + 1] - bounds[i],
                                   &error))
        {
          g_assert_nonnull (error);
          return FALSE;
        }
    }
  return TRUE;
}

/* Whether there is an answer; there is an error when there is none. */
static gboolean
check_answer (AgentsModelResponse *response, GError *error)
{
  g_assert_true ((response == NULL) != (error == NULL));
  if (response != NULL)
    g_assert_nonnull (agents_model_response_get_output (response));
  return response != NULL;
}

/* Whether the stream ended in an answer. */
static gboolean
chat_stream (AgentsModelEventSink *sink,
             GHashTable *custom,
             guint8 mode,
             const guint8 cuts[2],
             const guint8 *body,
             gsize size)
{
  AgentsOpenAIChatStream *stream =
    agents_openai_chat_stream_new (sink, custom, "gpt-fuzz");
  Feed feed = { agents_openai_chat_stream_event, stream };
  gboolean ok = feed_stream (&feed, cuts, body, size);
  gboolean answered = FALSE;

  if (mode & MODE_RESTART)
    {
      agents_openai_chat_stream_restart (stream);
      ok = feed_stream (&feed, (const guint8[]){ 0, 0 }, body, size);
    }
  if (ok)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (AgentsModelResponse) response =
        agents_openai_chat_stream_finish (stream, &error);

      answered = check_answer (response, error);
    }
  agents_openai_chat_stream_free (stream);
  return answered;
}

static gboolean
responses_stream (AgentsModelEventSink *sink,
                  guint8 mode,
                  const guint8 cuts[2],
                  const guint8 *body,
                  gsize size)
{
  AgentsOpenAIResponsesStream *stream =
    agents_openai_responses_stream_new (sink);
  Feed feed = { agents_openai_responses_stream_event, stream };
  gboolean ok = feed_stream (&feed, cuts, body, size);
  gboolean answered = FALSE;

  if (mode & MODE_RESTART)
    {
      agents_openai_responses_stream_restart (stream);
      ok = feed_stream (&feed, (const guint8[]){ 0, 0 }, body, size);
    }
  if (ok)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (AgentsModelResponse) response =
        agents_openai_responses_stream_finish (stream, &error);

      answered = check_answer (response, error);
    }
  agents_openai_responses_stream_free (stream);
  return answered;
}

/* A whole answer, as the request reads it: a JSON object or an error. */
static void
json_answer (Mode mode, GHashTable *custom, const guint8 *body, gsize size)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) root =
    agents_openai_parse_json ((const char *) body, size, &error);
  g_autoptr (AgentsModelResponse) response = NULL;

  if (root == NULL)
    {
      g_assert_nonnull (error);
      return;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    return;
  if (mode == MODE_RESPONSES_JSON)
    response = agents_openai_responses_response_from_json (
      json_node_get_object (root), NULL);
  else
    response = agents_openai_chat_response_from_completion (
      json_node_get_object (root), custom, &error);
  check_answer (response, error);
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  g_autoptr (AgentsModelEventSink) sink = NULL;
  g_autoptr (GHashTable) custom = NULL;
  guint n_events = 0;
  const guint8 *body;
  gsize body_size;
  Mode mode;

  fuzz_init ();
  if (size < HEADER_SIZE)
    return 0;
  mode = data[0] & 3;
  body = data + HEADER_SIZE;
  body_size = size - HEADER_SIZE;
  sink = agents_model_event_sink_new ();
  g_signal_connect (sink, "event", G_CALLBACK (on_sink_event), &n_events);
  /* The custom (freeform) tools of the request, as the chat model names
   * them when it builds the body. */
  custom = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_hash_table_add (custom, g_strdup ("apply_patch"));

  switch (mode)
    {
    case MODE_CHAT_STREAM:
      /* An answer comes with its response.completed event. */
      if (chat_stream (sink, custom, data[0], data + 1, body, body_size))
        g_assert_cmpuint (n_events, >, 0);
      break;
    case MODE_RESPONSES_STREAM:
      if (responses_stream (sink, data[0], data + 1, body, body_size))
        g_assert_cmpuint (n_events, >, 0);
      break;
    case MODE_RESPONSES_JSON:
    case MODE_CHAT_JSON:
      json_answer (mode, custom, body, body_size);
      break;
    }
  return 0;
}
