/* model-server.c - a loopback OpenAI-style server replaying recorded streams
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>

#include <libsoup/soup.h>

#include "model-server.h"

struct _AgentsTestModelServer
{
  SoupServer *server;
  char *data_dir;
  char *base_url;
  GQueue exchanges;    /* JsonObject */
  GPtrArray *requests; /* JsonObject */
  GString *problems;
  guint n_streaming;
  GList *replies; /* Reply, still being sent */
};

typedef struct
{
  AgentsTestModelServer *server;
  SoupServerMessage *msg;
  GBytes *body;
  gsize offset;
  gsize chunk;
  guint interval_ms;
  gssize drop_after;
  gboolean never_end;
  gboolean finished;
  gboolean dropping;
  guint source;
} Reply;

static void problem (AgentsTestModelServer *self, const char *format, ...)
  G_GNUC_PRINTF (2, 3);

static void
problem (AgentsTestModelServer *self, const char *format, ...)
{
  va_list args;
  g_autofree char *text = NULL;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  g_string_append_printf (self->problems, "%s\n", text);
  g_printerr ("model-server: %s\n", text);
}

static gint64
member_int (JsonObject *object, const char *member, gint64 fallback)
{
  return json_object_has_member (object, member)
           ? json_object_get_int_member (object, member)
           : fallback;
}

static gboolean
member_bool (JsonObject *object, const char *member)
{
  return json_object_has_member (object, member) &&
         json_object_get_boolean_member (object, member);
}

static GBytes *
reply_body (AgentsTestModelServer *self, JsonObject *exchange)
{
  g_autofree char *contents = NULL;
  gsize len = 0;

  if (json_object_has_member (exchange, "text"))
    contents = g_strdup (json_object_get_string_member (exchange, "text"));
  else if (json_object_has_member (exchange, "body"))
    {
      g_autofree char *path = g_build_filename (
        self->data_dir, json_object_get_string_member (exchange, "body"), NULL);
      g_autoptr (GError) error = NULL;

      if (!g_file_get_contents (path, &contents, &len, &error))
        {
          problem (self, "%s", error->message);
          contents = g_strdup ("");
        }
    }
  else
    contents = g_strdup ("");
  if (member_bool (exchange, "crlf"))
    {
      g_auto (GStrv) lines = g_strsplit (contents, "\n", -1);

      g_free (contents);
      contents = g_strjoinv ("\r\n", lines);
    }
  len = strlen (contents);
  return g_bytes_new_take (g_steal_pointer (&contents), len);
}

/* The text of the last tool output of a Responses input or chat
 * messages. */
static char *
last_output (JsonObject *body)
{
  JsonArray *items = json_object_has_member (body, "input")
                       ? json_object_get_array_member (body, "input")
                       : json_object_get_array_member (body, "messages");
  guint n = items ? json_array_get_length (items) : 0;
  JsonObject *last;
  JsonNode *output;

  if (n == 0)
    return NULL;
  last = json_array_get_object_element (items, n - 1);
  output = json_object_get_member (
    last, json_object_has_member (last, "output") ? "output" : "content");
  if (output == NULL)
    return NULL;
  if (JSON_NODE_HOLDS_VALUE (output))
    return g_strdup (json_node_get_string (output));
  return json_to_string (output, FALSE);
}

/* "last_output_contains": what the last tool output must contain, which
 * proves the tool really ran. */
static void
check_last_output (AgentsTestModelServer *self,
                   JsonObject *exchange,
                   JsonObject *body,
                   guint n)
{
  const char *expected =
    json_object_has_member (exchange, "last_output_contains")
      ? json_object_get_string_member (exchange, "last_output_contains")
      : NULL;
  g_autofree char *output = NULL;

  if (expected == NULL)
    return;
  output = last_output (body);
  if (output == NULL || strstr (output, expected) == NULL)
    problem (self, "request %u: the last tool output “%s” lacks “%s”", n,
             output ? output : "(none)", expected);
}

static void
check_request (AgentsTestModelServer *self,
               JsonObject *exchange,
               SoupServerMessage *msg,
               const char *path,
               JsonNode *body)
{
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  const char *expected_path =
    json_object_has_member (exchange, "path")
      ? json_object_get_string_member (exchange, "path")
      : NULL;
  guint n = self->requests->len;

  if (g_strcmp0 (soup_server_message_get_method (msg), "POST") != 0)
    problem (self, "request %u: method %s", n,
             soup_server_message_get_method (msg));
  if (expected_path != NULL && g_strcmp0 (expected_path, path) != 0)
    problem (self, "request %u: path %s, expected %s", n, path, expected_path);
  if (g_strcmp0 (soup_message_headers_get_content_type (headers, NULL),
                 "application/json") != 0)
    problem (self, "request %u: Content-Type is not application/json", n);
  if (json_object_has_member (exchange, "auth") &&
      g_strcmp0 (soup_message_headers_get_one (headers, "Authorization"),
                 json_object_get_string_member (exchange, "auth")) != 0)
    problem (self, "request %u: Authorization is “%s”", n,
             soup_message_headers_get_one (headers, "Authorization"));
  if (body == NULL || !JSON_NODE_HOLDS_OBJECT (body))
    {
      problem (self, "request %u: the body is not a JSON object", n);
      return;
    }
  if (json_object_has_member (json_node_get_object (body), "stream") &&
      g_strcmp0 (soup_message_headers_get_one (headers, "Accept"),
                 "text/event-stream") != 0)
    problem (self, "request %u: streaming without Accept: text/event-stream",
             n);
  check_last_output (self, exchange, json_node_get_object (body), n);
  if (json_object_has_member (exchange, "expect"))
    {
      g_autofree char *file = g_build_filename (
        self->data_dir, json_object_get_string_member (exchange, "expect"),
        NULL);
      g_autoptr (JsonParser) parser = json_parser_new ();
      g_autoptr (GError) error = NULL;

      if (!json_parser_load_from_file (parser, file, &error))
        problem (self, "%s", error->message);
      else if (!json_node_equal (json_parser_get_root (parser), body))
        {
          g_autofree char *got = json_to_string (body, TRUE);

          problem (self, "request %u: the body differs from %s:\n%s", n, file,
                   got);
        }
    }
}

static void reply_next (Reply *reply);
static gboolean reply_tick (gpointer user_data);

static void
reply_free (Reply *reply)
{
  if (reply->source != 0)
    g_source_remove (reply->source);
  g_signal_handlers_disconnect_by_data (reply->msg, reply);
  reply->server->replies = g_list_remove (reply->server->replies, reply);
  reply->server->n_streaming--;
  g_bytes_unref (reply->body);
  g_object_unref (reply->msg);
  g_free (reply);
}

static void
reply_finished (SoupServerMessage *msg, gpointer user_data)
{
  Reply *reply = user_data;

  /* The client went away (or the answer is done): free on the next turn
   * of the loop, not inside libsoup's emission. */
  if (reply->finished)
    return;
  reply->finished = TRUE;
  if (reply->source != 0)
    g_source_remove (reply->source);
  reply->source = g_idle_add (reply_tick, reply);
}

static gboolean
reply_tick (gpointer user_data)
{
  Reply *reply = user_data;

  reply->source = 0;
  reply_next (reply);
  return G_SOURCE_REMOVE;
}

static void
reply_schedule (Reply *reply)
{
  reply->source = reply->interval_ms
                    ? g_timeout_add (reply->interval_ms, reply_tick, reply)
                    : g_idle_add (reply_tick, reply);
}

static void
reply_next (Reply *reply)
{
  SoupMessageBody *body = soup_server_message_get_response_body (reply->msg);
  gsize size = g_bytes_get_size (reply->body);
  const char *data = g_bytes_get_data (reply->body, NULL);
  gsize n = reply->chunk ? MIN (reply->chunk, size - reply->offset)
                         : size - reply->offset;

  if (reply->finished)
    {
      g_signal_handlers_disconnect_by_data (reply->msg, reply);
      reply_free (reply);
      return;
    }
  if (reply->dropping)
    {
      /* An abrupt end: the connection closes inside the chunked body. */
      GIOStream *io = soup_server_message_steal_connection (reply->msg);

      g_signal_handlers_disconnect_by_data (reply->msg, reply);
      g_io_stream_close (io, NULL, NULL);
      g_object_unref (io);
      reply_free (reply);
      return;
    }
  if (reply->drop_after >= 0 && reply->offset + n >= (gsize) reply->drop_after)
    n = reply->drop_after - reply->offset;
  if (n > 0)
    {
      soup_message_body_append (body, SOUP_MEMORY_COPY, data + reply->offset,
                                n);
      reply->offset += n;
      soup_server_message_unpause (reply->msg);
    }
  if (reply->drop_after >= 0 && reply->offset >= (gsize) reply->drop_after)
    {
      /* Let the bytes so far reach the client first. */
      reply->dropping = TRUE;
      reply->source = g_timeout_add (100, reply_tick, reply);
      return;
    }
  if (reply->offset < size)
    {
      reply_schedule (reply);
      return;
    }
  if (reply->never_end)
    {
      soup_message_body_append (body, SOUP_MEMORY_STATIC, ": ping\n\n", 8);
      soup_server_message_unpause (reply->msg);
      reply->interval_ms = 20;
      reply_schedule (reply);
      return;
    }
  soup_message_body_complete (body);
  soup_server_message_unpause (reply->msg);
  g_signal_handlers_disconnect_by_data (reply->msg, reply);
  reply_free (reply);
}

/* A streaming model server sends the status line and headers with its
 * first event, then flushes each event as it comes. libsoup writes the
 * headers, the chunk size and the data separately: cork the socket until
 * the first data is written, so that curl's time to the first response
 * byte (the baseline of bench-models) is the time to the first event too,
 * and send without Nagle's delay after that. */
static char cork_tag;

static void
uncork (SoupServerMessage *msg)
{
  GSocket *socket = soup_server_message_get_socket (msg);

  g_signal_handlers_disconnect_by_data (msg, &cork_tag);
  if (socket != NULL)
    g_socket_set_option (socket, IPPROTO_TCP, TCP_CORK, 0, NULL);
}

static void
uncork_after_data (SoupServerMessage *msg, guint size, gpointer data)
{
  uncork (msg);
}

/* An empty body writes no data: its end uncorks. */
static void
uncork_at_end (SoupServerMessage *msg, gpointer data)
{
  uncork (msg);
}

static void
send_first_event_with_headers (SoupServerMessage *msg)
{
  GSocket *socket = soup_server_message_get_socket (msg);

  if (socket == NULL || g_socket_get_family (socket) == G_SOCKET_FAMILY_UNIX)
    return;
  g_socket_set_option (socket, IPPROTO_TCP, TCP_NODELAY, 1, NULL);
  if (!g_socket_set_option (socket, IPPROTO_TCP, TCP_CORK, 1, NULL))
    return;
  g_signal_connect (msg, "wrote-body-data", G_CALLBACK (uncork_after_data),
                    &cork_tag);
  g_signal_connect (msg, "wrote-body", G_CALLBACK (uncork_at_end), &cork_tag);
  g_signal_connect (msg, "finished", G_CALLBACK (uncork_at_end), &cork_tag);
}

static void
handle (SoupServer *server,
        SoupServerMessage *msg,
        const char *path,
        GHashTable *query,
        gpointer user_data)
{
  AgentsTestModelServer *self = user_data;
  SoupMessageBody *request_body = soup_server_message_get_request_body (msg);
  g_autoptr (JsonObject) exchange = g_queue_pop_head (&self->exchanges);
  g_autoptr (JsonNode) body =
    json_from_string (request_body->data ? request_body->data : "", NULL);
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);
  JsonObject *extra;
  Reply *reply;

  if (exchange == NULL)
    {
      problem (self, "request %u: no answer queued", self->requests->len);
      soup_server_message_set_status (msg, 500, NULL);
      return;
    }
  check_request (self, exchange, msg, path, body);
  g_ptr_array_add (self->requests,
                   body && JSON_NODE_HOLDS_OBJECT (body)
                     ? json_object_ref (json_node_get_object (body))
                     : json_object_new ());

  send_first_event_with_headers (msg);
  soup_server_message_set_status (msg, member_int (exchange, "status", 200),
                                  NULL);
  soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);
  soup_message_headers_replace (
    headers, "Content-Type",
    json_object_has_member (exchange, "body") &&
        g_str_has_suffix (json_object_get_string_member (exchange, "body"),
                          ".sse")
      ? "text/event-stream"
      : "application/json");
  extra = json_object_has_member (exchange, "headers")
            ? json_object_get_object_member (exchange, "headers")
            : NULL;
  if (extra != NULL)
    {
      g_autoptr (GList) names = json_object_get_members (extra);

      for (GList *l = names; l; l = l->next)
        soup_message_headers_replace (
          headers, l->data, json_object_get_string_member (extra, l->data));
    }

  reply = g_new0 (Reply, 1);
  reply->server = self;
  reply->msg = g_object_ref (msg);
  reply->body = reply_body (self, exchange);
  reply->chunk = member_int (exchange, "chunk", 0);
  reply->interval_ms = member_int (exchange, "interval_ms", 0);
  reply->drop_after = member_int (exchange, "drop_after", -1);
  reply->never_end = member_bool (exchange, "never_end");
  self->n_streaming++;
  self->replies = g_list_prepend (self->replies, reply);
  g_signal_connect (msg, "finished", G_CALLBACK (reply_finished), reply);
  g_signal_connect (msg, "disconnected", G_CALLBACK (reply_finished), reply);
  soup_server_message_pause (msg);
  reply_schedule (reply);
}

AgentsTestModelServer *
agents_test_model_server_new (const char *data_dir)
{
  AgentsTestModelServer *self = g_new0 (AgentsTestModelServer, 1);
  g_autoptr (GError) error = NULL;
  GSList *uris;

  self->data_dir = g_strdup (data_dir);
  self->requests =
    g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  self->problems = g_string_new (NULL);
  g_queue_init (&self->exchanges);
  self->server = soup_server_new (NULL, NULL);
  soup_server_add_handler (self->server, NULL, handle, self, NULL);
  if (!soup_server_listen_local (self->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY,
                                 &error))
    g_error ("model-server: %s", error->message);
  uris = soup_server_get_uris (self->server);
  self->base_url =
    g_strdup_printf ("http://127.0.0.1:%d/v1", g_uri_get_port (uris->data));
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
  return self;
}

void
agents_test_model_server_free (AgentsTestModelServer *self)
{
  /* Answers still being sent when the test ends (a client that left
   * without the server noticing yet). */
  while (self->replies != NULL)
    reply_free (self->replies->data);
  soup_server_disconnect (self->server);
  g_object_unref (self->server);
  g_queue_clear_full (&self->exchanges, (GDestroyNotify) json_object_unref);
  g_ptr_array_unref (self->requests);
  g_string_free (self->problems, TRUE);
  g_free (self->base_url);
  g_free (self->data_dir);
  g_free (self);
}

const char *
agents_test_model_server_get_base_url (AgentsTestModelServer *self)
{
  return self->base_url;
}

void
agents_test_model_server_add (AgentsTestModelServer *self,
                              const char *exchange_json)
{
  g_autoptr (JsonNode) node = json_from_string (exchange_json, NULL);

  g_assert (node != NULL && JSON_NODE_HOLDS_OBJECT (node));
  g_queue_push_tail (&self->exchanges,
                     json_object_ref (json_node_get_object (node)));
}

void
agents_test_model_server_add_file (AgentsTestModelServer *self,
                                   const char *path)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  JsonArray *array;

  if (!json_parser_load_from_file (parser, path, &error))
    g_error ("model-server: %s", error->message);
  array = json_node_get_array (json_parser_get_root (parser));
  for (guint i = 0; i < json_array_get_length (array); i++)
    g_queue_push_tail (
      &self->exchanges,
      json_object_ref (json_array_get_object_element (array, i)));
}

guint
agents_test_model_server_get_n_requests (AgentsTestModelServer *self)
{
  return self->requests->len;
}

const char *
agents_test_model_server_get_problems (AgentsTestModelServer *self)
{
  return self->problems->len ? self->problems->str : NULL;
}

JsonObject *
agents_test_model_server_get_request (AgentsTestModelServer *self, guint i)
{
  g_assert_cmpuint (i, <, self->requests->len);
  return self->requests->pdata[i];
}

guint
agents_test_model_server_get_n_pending (AgentsTestModelServer *self)
{
  return self->exchanges.length;
}

guint
agents_test_model_server_get_n_streaming (AgentsTestModelServer *self)
{
  return self->n_streaming;
}
