/* model-recorder.c - records a real model server's answers as cassettes
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A loopback proxy in front of an OpenAI-style server: each POST is
 * forwarded to the upstream base URL with the client's headers, and the
 * answer is streamed back to the client while it is written, byte for
 * byte, to a cassette the replaying server (model-server.c) serves:
 * NNN.sse or NNN.json, NNN.request.json (the request body) and
 * exchanges.json listing them in order with their status. Credentials
 * (Authorization, OpenAI-Organization, OpenAI-Project), cookies and
 * request ids are never written: only bodies and the status are.
 *
 * For developers recording new cassettes; the tests only check it
 * against a replaying server.
 */

#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gstdio.h>

#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

#include "model-server.h"

struct _AgentsTestModelRecorder
{
  SoupServer *server;
  SoupSession *session;
  char *upstream;
  char *out_dir;
  char *base_url;
  JsonArray *exchanges;
  guint n_open;
};

typedef struct
{
  AgentsTestModelRecorder *self;
  SoupServerMessage *msg;
  SoupMessage *upstream_msg;
  GInputStream *input;
  GOutputStream *cassette;
  GCancellable *cancellable;
  char buffer[65536];
} Forward;

/* Headers that must reach the upstream server but never a cassette. */
static const char *const forwarded_headers[] = { "Authorization",
                                                 "OpenAI-Organization",
                                                 "OpenAI-Project",
                                                 "Content-Type",
                                                 "Accept",
                                                 "User-Agent",
                                                 NULL };

static void
forward_free (Forward *fwd)
{
  fwd->self->n_open--;
  if (fwd->cassette != NULL)
    g_output_stream_close (fwd->cassette, NULL, NULL);
  g_clear_object (&fwd->cassette);
  g_clear_object (&fwd->input);
  g_clear_object (&fwd->upstream_msg);
  g_clear_object (&fwd->cancellable);
  g_object_unref (fwd->msg);
  g_free (fwd);
}

static void
save_exchanges (AgentsTestModelRecorder *self)
{
  g_autoptr (JsonNode) root = json_node_new (JSON_NODE_ARRAY);
  g_autofree char *text = NULL;
  g_autofree char *path =
    g_build_filename (self->out_dir, "exchanges.json", NULL);
  g_autoptr (GError) error = NULL;

  json_node_set_array (root, self->exchanges);
  text = json_to_string (root, TRUE);
  if (!g_file_set_contents (path, text, -1, &error))
    g_warning ("model-recorder: %s", error->message);
}

static char *
numbered_file (AgentsTestModelRecorder *self, guint n, const char *suffix)
{
  g_autofree char *name = g_strdup_printf ("%03u%s", n, suffix);

  return g_build_filename (self->out_dir, name, NULL);
}

static void read_more (Forward *fwd);

static void
read_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Forward *fwd = user_data;
  SoupMessageBody *body = soup_server_message_get_response_body (fwd->msg);
  g_autoptr (GError) error = NULL;
  gssize n = g_input_stream_read_finish (fwd->input, result, &error);

  if (n < 0)
    g_warning ("model-recorder: upstream read: %s", error->message);
  if (n <= 0)
    {
      soup_message_body_complete (body);
      soup_server_message_unpause (fwd->msg);
      forward_free (fwd);
      return;
    }
  if (!g_output_stream_write_all (fwd->cassette, fwd->buffer, n, NULL, NULL,
                                  &error))
    g_warning ("model-recorder: cassette: %s", error->message);
  soup_message_body_append (body, SOUP_MEMORY_COPY, fwd->buffer, n);
  soup_server_message_unpause (fwd->msg);
  read_more (fwd);
}

static void
read_more (Forward *fwd)
{
  g_input_stream_read_async (fwd->input, fwd->buffer, sizeof fwd->buffer,
                             G_PRIORITY_DEFAULT, fwd->cancellable, read_done,
                             fwd);
}

static void
record_exchange (Forward *fwd, guint n, guint status, gboolean sse)
{
  JsonObject *exchange = json_object_new ();
  g_autofree char *name = g_strdup_printf ("%03u%s", n, sse ? ".sse" : ".json");
  g_autofree char *request_name = g_strdup_printf ("%03u.request.json", n);

  json_object_set_string_member (exchange, "body", name);
  json_object_set_string_member (exchange, "request", request_name);
  if (status != SOUP_STATUS_OK)
    json_object_set_int_member (exchange, "status", status);
  json_array_add_object_element (fwd->self->exchanges, exchange);
  save_exchanges (fwd->self);
}

static void
send_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Forward *fwd = user_data;
  AgentsTestModelRecorder *self = fwd->self;
  SoupMessageHeaders *headers =
    soup_server_message_get_response_headers (fwd->msg);
  g_autoptr (GError) error = NULL;
  g_autoptr (GFile) file = NULL;
  g_autofree char *path = NULL;
  const char *type;
  guint n = json_array_get_length (self->exchanges) + 1;
  gboolean sse;

  fwd->input = soup_session_send_finish (self->session, result, &error);
  if (fwd->input == NULL)
    {
      soup_server_message_set_status (fwd->msg, SOUP_STATUS_BAD_GATEWAY,
                                      error->message);
      soup_server_message_unpause (fwd->msg);
      forward_free (fwd);
      return;
    }
  type = soup_message_headers_get_content_type (
    soup_message_get_response_headers (fwd->upstream_msg), NULL);
  sse = g_strcmp0 (type, "text/event-stream") == 0;
  path = numbered_file (self, n, sse ? ".sse" : ".json");
  file = g_file_new_for_path (path);
  fwd->cassette = G_OUTPUT_STREAM (
    g_file_replace (file, NULL, FALSE, G_FILE_CREATE_PRIVATE, NULL, &error));
  if (fwd->cassette == NULL)
    g_error ("model-recorder: %s", error->message);
  record_exchange (fwd, n, soup_message_get_status (fwd->upstream_msg), sse);

  soup_server_message_set_status (
    fwd->msg, soup_message_get_status (fwd->upstream_msg), NULL);
  soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);
  soup_message_headers_replace (headers, "Content-Type",
                                type ? type : "application/json");
  read_more (fwd);
}

static void
save_request (AgentsTestModelRecorder *self, guint n, SoupMessageBody *body)
{
  g_autofree char *path = numbered_file (self, n, ".request.json");
  g_autoptr (JsonNode) json =
    json_from_string (body->data ? body->data : "", NULL);
  g_autofree char *text =
    json ? json_to_string (json, TRUE) : g_strndup (body->data, body->length);
  g_autoptr (GError) error = NULL;

  if (!g_file_set_contents (path, text, -1, &error))
    g_warning ("model-recorder: %s", error->message);
}

static void
handle (SoupServer *server,
        SoupServerMessage *msg,
        const char *path,
        GHashTable *query,
        gpointer user_data)
{
  AgentsTestModelRecorder *self = user_data;
  SoupMessageHeaders *in_headers =
    soup_server_message_get_request_headers (msg);
  SoupMessageBody *body = soup_server_message_get_request_body (msg);
  /* The client's base URL ends in /v1 like the upstream's. */
  const char *rest = g_str_has_prefix (path, "/v1") ? path + 3 : path;
  g_autofree char *url = g_strconcat (self->upstream, rest, NULL);
  g_autoptr (GBytes) bytes = g_bytes_new (body->data, body->length);
  Forward *fwd;

  fwd = g_new0 (Forward, 1);
  fwd->self = self;
  fwd->msg = g_object_ref (msg);
  fwd->cancellable = g_cancellable_new ();
  self->n_open++;
  fwd->upstream_msg =
    soup_message_new (soup_server_message_get_method (msg), url);
  if (fwd->upstream_msg == NULL)
    {
      soup_server_message_set_status (msg, SOUP_STATUS_BAD_REQUEST, NULL);
      forward_free (fwd);
      return;
    }
  for (guint i = 0; forwarded_headers[i] != NULL; i++)
    {
      const char *value =
        soup_message_headers_get_one (in_headers, forwarded_headers[i]);

      if (value != NULL)
        soup_message_headers_replace (
          soup_message_get_request_headers (fwd->upstream_msg),
          forwarded_headers[i], value);
    }
  soup_message_set_request_body_from_bytes (
    fwd->upstream_msg, soup_message_headers_get_content_type (in_headers, NULL),
    bytes);
  save_request (self, json_array_get_length (self->exchanges) + 1, body);
  soup_server_message_pause (msg);
  soup_session_send_async (self->session, fwd->upstream_msg, G_PRIORITY_DEFAULT,
                           fwd->cancellable, send_done, fwd);
}

AgentsTestModelRecorder *
agents_test_model_recorder_new (const char *upstream,
                                const char *out_dir,
                                GError **error)
{
  g_autoptr (AgentsTestModelRecorder) self =
    g_new0 (AgentsTestModelRecorder, 1);
  g_autoslist (GUri) uris = NULL;

  if (g_mkdir_with_parents (out_dir, 0700) != 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno),
                   "cannot create %s: %s", out_dir, g_strerror (errno));
      return NULL;
    }
  self->upstream = g_strdup (upstream);
  while (g_str_has_suffix (self->upstream, "/"))
    self->upstream[strlen (self->upstream) - 1] = '\0';
  self->out_dir = g_strdup (out_dir);
  self->exchanges = json_array_new ();
  self->session = soup_session_new_with_options ("timeout", 0, NULL);
  self->server = soup_server_new (NULL, NULL);
  soup_server_add_handler (self->server, NULL, handle, self, NULL);
  if (!soup_server_listen_local (self->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY,
                                 error))
    return NULL;
  uris = soup_server_get_uris (self->server);
  self->base_url =
    g_strdup_printf ("http://127.0.0.1:%d/v1", g_uri_get_port (uris->data));
  return g_steal_pointer (&self);
}

const char *
agents_test_model_recorder_get_base_url (AgentsTestModelRecorder *self)
{
  return self->base_url;
}

guint
agents_test_model_recorder_get_n_recorded (AgentsTestModelRecorder *self)
{
  return json_array_get_length (self->exchanges);
}

void
agents_test_model_recorder_free (AgentsTestModelRecorder *self)
{
  if (self == NULL)
    return;
  /* Let the answers in flight finish writing their cassettes. */
  while (self->n_open > 0)
    g_main_context_iteration (NULL, TRUE);
  if (self->server != NULL)
    soup_server_disconnect (self->server);
  g_clear_object (&self->server);
  g_clear_object (&self->session);
  g_clear_pointer (&self->exchanges, json_array_unref);
  g_free (self->upstream);
  g_free (self->out_dir);
  g_free (self->base_url);
  g_free (self);
}
