/* agents-openai-request.c - one HTTP exchange with an OpenAI-style server
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <stdlib.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "agents-json-private.h"
#include "agents-openai-private.h"
#include "agents-run-error.h"
#include "agents-sse-parser.h"

/* A request is POSTed, answered, and retried as the openai SDK does:
 * connection errors, timeouts, 408, 409, 429 and 5xx (or what the server
 * marks `x-should-retry: true`) are tried again up to max-retries times,
 * after retry-after(-ms) or an exponential backoff with jitter; a streamed
 * answer is never retried once output reached the caller. The answer is
 * read in chunks: a stream goes through the SSE parser, a JSON answer is
 * gathered under a size limit. */

#define READ_SIZE (64 * 1024)
#define MAX_EVENT_SIZE (16 * 1024 * 1024)
#define MAX_ANSWER_SIZE (64 * 1024 * 1024)
#define MAX_ERROR_BODY (1024 * 1024)
#define MAX_RETRY_DELAY 8.0
#define MAX_RETRY_AFTER 60.0

struct _AgentsOpenAIRequest
{
  GTask *task;
  AgentsOpenAIProvider *provider;
  GUri *uri;
  GBytes *body;
  gboolean stream;
  AgentsOpenAIEventFunc event_func;
  AgentsOpenAIRestartFunc restart_func;
  gpointer user_data;

  GCancellable *cancellable; /* the caller's, may be NULL */
  gulong cancelled_id;
  GCancellable *attempt_cancellable;
  GSource *timeout_source;
  GSource *sleep_source;
  GSource *wake_source;
  gboolean timed_out;
  guint attempts;

  SoupMessage *message;
  GInputStream *input;
  AgentsSseParser *parser;
  GByteArray *answer;
  gboolean output_marked;
  gboolean end_marked;
  char buffer[READ_SIZE];
};

static void start_attempt (AgentsOpenAIRequest *self);

static void
request_free (AgentsOpenAIRequest *self)
{
  if (self->cancelled_id != 0)
    g_cancellable_disconnect (self->cancellable, self->cancelled_id);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->attempt_cancellable);
  if (self->timeout_source != NULL)
    g_source_destroy (self->timeout_source);
  g_clear_pointer (&self->timeout_source, g_source_unref);
  if (self->sleep_source != NULL)
    g_source_destroy (self->sleep_source);
  g_clear_pointer (&self->sleep_source, g_source_unref);
  if (self->wake_source != NULL)
    g_source_destroy (self->wake_source);
  g_clear_pointer (&self->wake_source, g_source_unref);
  g_clear_object (&self->message);
  g_clear_object (&self->input);
  g_clear_pointer (&self->parser, agents_sse_parser_free);
  g_clear_pointer (&self->answer, g_byte_array_unref);
  g_clear_pointer (&self->uri, g_uri_unref);
  g_clear_pointer (&self->body, g_bytes_unref);
  g_clear_object (&self->provider);
  g_free (self);
}

/* The one place event data and answers are parsed. */
JsonNode *
agents_openai_parse_json (const char *data, gsize len, GError **error)
{
  g_autoptr (GError) local_error = NULL;
  /* Bounded in depth and size, as every document read. A NUL in the
   * model's text cuts that text short rather than failing the run; tool
   * arguments, a JSON string in the item, are checked when parsed. */
  JsonNode *root =
    agents_json_parse_bounded_allowing_nul (data, len, NULL, &local_error);

  if (root == NULL)
    {
      agents_run_error_set (error, AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
                            _ ("the model server sent malformed JSON: %s"),
                            local_error->message);
      return NULL;
    }
  return root;
}

void
agents_openai_request_mark_output (AgentsOpenAIRequest *self)
{
  if (self != NULL)
    self->output_marked = TRUE;
}

void
agents_openai_request_mark_end (AgentsOpenAIRequest *self)
{
  if (self != NULL)
    self->end_marked = TRUE;
}

guint
agents_openai_request_get_attempts (AgentsOpenAIRequest *self)
{
  return self->attempts;
}

/* ---- ending ------------------------------------------------------------ */

static void
stop_timeout (AgentsOpenAIRequest *self)
{
  if (self->timeout_source != NULL)
    g_source_destroy (self->timeout_source);
  g_clear_pointer (&self->timeout_source, g_source_unref);
}

static void
finish (AgentsOpenAIRequest *self, GError *error, JsonObject *answer)
{
  GTask *task = self->task;

  stop_timeout (self);
  self->task = NULL;
  if (error != NULL)
    g_task_return_error (task, error);
  else if (answer != NULL)
    g_task_return_pointer (task, answer, (GDestroyNotify) json_object_unref);
  else
    g_task_return_pointer (task, NULL, NULL);
  g_object_unref (task);
}

static gboolean
user_cancelled (AgentsOpenAIRequest *self)
{
  return self->cancellable != NULL &&
         g_cancellable_is_cancelled (self->cancellable);
}

static GError *
cancelled_error (void)
{
  return g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                              _ ("Operation was cancelled"));
}

static GVariant *
context_new (guint status,
             const char *message,
             const char *request_id,
             const char *type,
             const char *code)
{
  GVariantDict dict;

  g_variant_dict_init (&dict, NULL);
  if (status != 0)
    g_variant_dict_insert (&dict, "status", "u", status);
  if (message != NULL)
    g_variant_dict_insert (&dict, "message", "s", message);
  if (request_id != NULL)
    g_variant_dict_insert (&dict, "request_id", "s", request_id);
  if (type != NULL)
    g_variant_dict_insert (&dict, "type", "s", type);
  if (code != NULL)
    g_variant_dict_insert (&dict, "code", "s", code);
  return g_variant_dict_end (&dict);
}

/* A failure to reach the server or to read its answer. */
static GError *
transport_error (AgentsOpenAIRequest *self, const GError *cause)
{
  g_autofree char *where = g_uri_to_string_partial (
    self->uri, G_URI_HIDE_USERINFO | G_URI_HIDE_QUERY | G_URI_HIDE_FRAGMENT);
  g_autofree char *why = NULL;

  if (self->timed_out)
    why = g_strdup_printf (_ ("no answer for %u seconds"),
                           agents_openai_provider_get_timeout (self->provider));
  else
    why = agents_openai_provider_redact (self->provider, cause->message);
  return agents_run_error_new (
    AGENTS_RUN_ERROR_MODEL_HTTP, context_new (0, why, NULL, NULL, NULL),
    _ ("cannot reach the model server at %s: %s"), where, why);
}

static char *
member_text (JsonObject *object, const char *member)
{
  JsonNode *node = object ? json_object_get_member (object, member) : NULL;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return NULL;
  if (JSON_NODE_HOLDS_VALUE (node) &&
      json_node_get_value_type (node) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (node));
  return agents_openai_json_to_string (node);
}

/* An HTTP error status, with the server's `{"error": {…}}` if it sent one. */
static GError *
status_error (AgentsOpenAIRequest *self)
{
  guint status = soup_message_get_status (self->message);
  const char *request_id = soup_message_headers_get_one (
    soup_message_get_response_headers (self->message), "x-request-id");
  g_autoptr (JsonNode) root = NULL;
  JsonObject *error_object = NULL;
  g_autofree char *message = NULL;
  g_autofree char *type = NULL;
  g_autofree char *code = NULL;
  g_autofree char *redacted = NULL;

  if (self->answer != NULL && self->answer->len > 0)
    root = agents_openai_parse_json ((const char *) self->answer->data,
                                     self->answer->len, NULL);
  if (root != NULL && JSON_NODE_HOLDS_OBJECT (root))
    {
      JsonObject *object = json_node_get_object (root);

      error_object = agents_openai_json_object (object, "error");
      if (error_object == NULL)
        error_object = object;
    }
  message = member_text (error_object, "message");
  type = member_text (error_object, "type");
  code = member_text (error_object, "code");
  if (message == NULL && self->answer != NULL && self->answer->len > 0 &&
      g_utf8_validate_len ((const char *) self->answer->data,
                           MIN (self->answer->len, 500), NULL))
    message = g_strndup ((const char *) self->answer->data,
                         MIN (self->answer->len, 500));
  if (message == NULL)
    message = g_strdup (soup_message_get_reason_phrase (self->message));
  redacted = agents_openai_provider_redact (self->provider, message);
  return agents_run_error_new (
    AGENTS_RUN_ERROR_MODEL_HTTP,
    context_new (status, redacted, request_id, type, code),
    _ ("the model server answered HTTP %u: %s"), status, redacted);
}

/* ---- retries ----------------------------------------------------------- */

static double
header_seconds (SoupMessageHeaders *headers)
{
  const char *ms = soup_message_headers_get_one (headers, "retry-after-ms");
  const char *after = soup_message_headers_get_one (headers, "retry-after");
  char *end = NULL;
  double value;

  if (ms != NULL)
    {
      value = g_ascii_strtod (ms, &end);
      if (end != ms && *end == '\0')
        return value / 1000.0;
    }
  if (after != NULL)
    {
      g_autoptr (GDateTime) date = NULL;
      g_autoptr (GDateTime) now = NULL;

      value = g_ascii_strtod (after, &end);
      if (end != after && *end == '\0')
        return value;
      date = soup_date_time_new_from_http_string (after);
      if (date == NULL)
        return -1;
      now = g_date_time_new_now_utc ();
      return g_date_time_difference (date, now) / (double) G_USEC_PER_SEC;
    }
  return -1;
}

/* The SDK's delay: the server's advice when it is within a minute, else
 * base × 2^retries capped at 8 s, less up to 25 % of jitter. */
static double
retry_delay (AgentsOpenAIRequest *self)
{
  double base = agents_openai_provider_get_retry_base_delay (self->provider);
  double delay;

  if (self->message != NULL)
    {
      double advised =
        header_seconds (soup_message_get_response_headers (self->message));

      if (advised > 0 && advised <= MAX_RETRY_AFTER)
        return advised;
    }
  delay = MIN (base * (1 << MIN (self->attempts - 1, 16)), MAX_RETRY_DELAY);
  return delay * (1.0 - 0.25 * g_random_double ());
}

static gboolean
status_is_retryable (SoupMessage *message)
{
  const char *should = soup_message_headers_get_one (
    soup_message_get_response_headers (message), "x-should-retry");
  guint status = soup_message_get_status (message);

  if (g_strcmp0 (should, "true") == 0)
    return TRUE;
  if (g_strcmp0 (should, "false") == 0)
    return FALSE;
  return status == 408 || status == 409 || status == 429 || status >= 500;
}

static gboolean
sleep_done (gpointer user_data)
{
  AgentsOpenAIRequest *self = user_data;

  g_clear_pointer (&self->sleep_source, g_source_unref);
  if (user_cancelled (self))
    finish (self, cancelled_error (), NULL);
  else
    start_attempt (self);
  return G_SOURCE_REMOVE;
}

/* Retries if allowed, else fails with @error (taken). */
static void
retry_or_fail (AgentsOpenAIRequest *self, GError *error, gboolean retryable)
{
  GMainContext *context = g_task_get_context (self->task);
  double delay;

  stop_timeout (self);
  if (user_cancelled (self))
    {
      g_error_free (error);
      finish (self, cancelled_error (), NULL);
      return;
    }
  if (!retryable || self->output_marked ||
      self->attempts > agents_openai_provider_get_max_retries (self->provider))
    {
      finish (self, error, NULL);
      return;
    }
  g_debug ("retrying a model request after: %s", error->message);
  g_error_free (error);
  delay = retry_delay (self);
  /* The caller's cancellable wakes the sleep at once. */
  self->sleep_source = g_timeout_source_new ((guint) (delay * 1000));
  g_source_set_callback (self->sleep_source, sleep_done, self, NULL);
  g_source_attach (self->sleep_source, context);
}

/* ---- reading ----------------------------------------------------------- */

static gboolean
on_sse_event (const char *event,
              const char *data,
              gsize data_len,
              gpointer user_data,
              GError **error)
{
  AgentsOpenAIRequest *self = user_data;

  if (self->end_marked)
    return TRUE;
  return self->event_func (self, event, data, data_len, self->user_data, error);
}

static gboolean
timeout_fired (gpointer user_data)
{
  AgentsOpenAIRequest *self = user_data;

  self->timed_out = TRUE;
  g_cancellable_cancel (self->attempt_cancellable);
  g_clear_pointer (&self->timeout_source, g_source_unref);
  return G_SOURCE_REMOVE;
}

/* The timeout measures silence: it restarts whenever bytes arrive. */
static void
restart_timeout (AgentsOpenAIRequest *self)
{
  guint seconds = agents_openai_provider_get_timeout (self->provider);

  stop_timeout (self);
  if (seconds == 0)
    return;
  self->timeout_source = g_timeout_source_new_seconds (seconds);
  g_source_set_callback (self->timeout_source, timeout_fired, self, NULL);
  g_source_attach (self->timeout_source, g_task_get_context (self->task));
}

static void read_next (AgentsOpenAIRequest *self);

static void
answer_complete (AgentsOpenAIRequest *self)
{
  guint status = soup_message_get_status (self->message);
  g_autoptr (JsonNode) root = NULL;
  GError *error = NULL;

  if (!SOUP_STATUS_IS_SUCCESSFUL (status))
    {
      retry_or_fail (self, status_error (self),
                     status_is_retryable (self->message));
      return;
    }
  if (self->stream)
    {
      if (self->end_marked)
        finish (self, NULL, NULL);
      else
        {
          g_autoptr (GError) cut = g_error_new_literal (
            G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED,
            _ ("the connection closed before the response was complete"));

          retry_or_fail (self, transport_error (self, cut), TRUE);
        }
      return;
    }
  root = agents_openai_parse_json ((const char *) self->answer->data,
                                   self->answer->len, &error);
  if (root != NULL && !JSON_NODE_HOLDS_OBJECT (root))
    error = agents_run_error_new (AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
                                  _ ("the model server's answer is not a "
                                     "JSON object"));
  if (error != NULL)
    finish (self, error, NULL);
  else
    finish (self, NULL, json_object_ref (json_node_get_object (root)));
}

static gboolean
take_bytes (AgentsOpenAIRequest *self, gsize n, GError **error)
{
  gboolean success =
    SOUP_STATUS_IS_SUCCESSFUL (soup_message_get_status (self->message));

  if (success && self->stream)
    return agents_sse_parser_feed (self->parser, self->buffer, n, error);
  if (self->answer->len + n > (success ? MAX_ANSWER_SIZE : MAX_ERROR_BODY))
    {
      if (!success)
        return TRUE; /* the start of an error body is enough */
      agents_run_error_set (error, AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
                            _ ("the model server's answer is larger than "
                               "%d bytes"),
                            MAX_ANSWER_SIZE);
      return FALSE;
    }
  g_byte_array_append (self->answer, (const guint8 *) self->buffer, n);
  return TRUE;
}

static void
read_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AgentsOpenAIRequest *self = user_data;
  GError *error = NULL;
  gssize n =
    g_input_stream_read_finish (G_INPUT_STREAM (source), result, &error);

  if (n < 0)
    {
      g_autoptr (GError) cause = error;

      retry_or_fail (self, transport_error (self, cause),
                     !user_cancelled (self));
      return;
    }
  if (n == 0)
    {
      answer_complete (self);
      return;
    }
  if (!take_bytes (self, n, &error))
    {
      finish (self, error, NULL);
      return;
    }
  if (self->end_marked)
    {
      finish (self, NULL, NULL);
      return;
    }
  restart_timeout (self);
  read_next (self);
}

static void
read_next (AgentsOpenAIRequest *self)
{
  g_input_stream_read_async (self->input, self->buffer, READ_SIZE,
                             G_PRIORITY_DEFAULT, self->attempt_cancellable,
                             read_done, self);
}

static void
send_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AgentsOpenAIRequest *self = user_data;
  g_autoptr (GError) error = NULL;

  self->input =
    soup_session_send_finish (SOUP_SESSION (source), result, &error);
  if (self->input == NULL)
    {
      retry_or_fail (self, transport_error (self, error),
                     !user_cancelled (self));
      return;
    }
  restart_timeout (self);
  read_next (self);
}

/* ---- sending ----------------------------------------------------------- */

static void
caller_cancelled (GCancellable *cancellable, gpointer user_data)
{
  GCancellable *attempt = user_data;

  g_cancellable_cancel (attempt);
}

/* A fresh cancellable per attempt (a timeout cancels the attempt's), which
 * the caller's cancellable cancels in turn. */
static void
new_attempt_cancellable (AgentsOpenAIRequest *self)
{
  if (self->cancelled_id != 0)
    g_cancellable_disconnect (self->cancellable, self->cancelled_id);
  self->cancelled_id = 0;
  g_clear_object (&self->attempt_cancellable);
  self->attempt_cancellable = g_cancellable_new ();
  if (self->cancellable != NULL)
    self->cancelled_id = g_cancellable_connect (
      self->cancellable, G_CALLBACK (caller_cancelled),
      g_object_ref (self->attempt_cancellable), g_object_unref);
}

/* libsoup writes the headers and the body in two writes: with Nagle's
 * algorithm the body waits for the server's delayed ACK of the headers.
 * Requests are small and latency-bound, so send at once. */
static void
on_network_event (SoupMessage *message,
                  GSocketClientEvent event,
                  GIOStream *connection,
                  gpointer user_data)
{
  GSocket *socket;

  if (event != G_SOCKET_CLIENT_CONNECTED ||
      !G_IS_SOCKET_CONNECTION (connection))
    return;
  socket = g_socket_connection_get_socket (G_SOCKET_CONNECTION (connection));
  if (g_socket_get_family (socket) != G_SOCKET_FAMILY_UNIX)
    g_socket_set_option (socket, IPPROTO_TCP, TCP_NODELAY, 1, NULL);
}

static void
start_attempt (AgentsOpenAIRequest *self)
{
  SoupMessageHeaders *headers;

  new_attempt_cancellable (self);

  if (self->attempts > 0 && self->restart_func != NULL)
    self->restart_func (self->user_data);
  self->attempts++;
  self->timed_out = FALSE;
  self->end_marked = FALSE;
  g_clear_object (&self->input);
  g_clear_pointer (&self->parser, agents_sse_parser_free);
  g_clear_pointer (&self->answer, g_byte_array_unref);
  if (self->stream)
    self->parser = agents_sse_parser_new (MAX_EVENT_SIZE, on_sse_event, self);
  self->answer = g_byte_array_new ();

  g_clear_object (&self->message);
  self->message = soup_message_new_from_uri (SOUP_METHOD_POST, self->uri);
  soup_message_set_request_body_from_bytes (self->message, "application/json",
                                            self->body);
  g_signal_connect (self->message, "network-event",
                    G_CALLBACK (on_network_event), NULL);
  headers = soup_message_get_request_headers (self->message);
  soup_message_headers_replace (
    headers, "Accept", self->stream ? "text/event-stream" : "application/json");
  agents_openai_provider_apply_headers (self->provider, headers);

  restart_timeout (self);
  soup_session_send_async (agents_openai_provider_get_session (self->provider),
                           self->message, G_PRIORITY_DEFAULT,
                           self->attempt_cancellable, send_done, self);
}

static gboolean
wake_sleep (GCancellable *cancellable, gpointer user_data)
{
  AgentsOpenAIRequest *self = user_data;

  if (self->sleep_source != NULL && self->task != NULL)
    {
      g_source_destroy (self->sleep_source);
      g_clear_pointer (&self->sleep_source, g_source_unref);
      finish (self, cancelled_error (), NULL);
    }
  return G_SOURCE_REMOVE;
}

static void
task_data_free (gpointer data)
{
  request_free (data);
}

void
agents_openai_request_send_async (AgentsOpenAIProvider *provider,
                                  const char *path,
                                  JsonObject *body,
                                  AgentsOpenAIEventFunc event_func,
                                  AgentsOpenAIRestartFunc restart_func,
                                  gpointer user_data,
                                  GCancellable *cancellable,
                                  GAsyncReadyCallback callback,
                                  gpointer callback_data)
{
  AgentsOpenAIRequest *self = g_new0 (AgentsOpenAIRequest, 1);
  g_autofree char *url =
    g_strconcat (agents_openai_provider_get_base_url (provider), path, NULL);
  g_autoptr (JsonNode) node = json_node_init_object (json_node_alloc (), body);
  g_autoptr (GError) error = NULL;
  char *text;
  GTask *task = g_task_new (NULL, cancellable, callback, callback_data);

  g_task_set_source_tag (task, agents_openai_request_send_async);
  g_task_set_task_data (task, self, task_data_free);
  self->task = task;
  self->provider = g_object_ref (provider);
  self->stream = event_func != NULL;
  self->event_func = event_func;
  self->restart_func = restart_func;
  self->user_data = user_data;
  text = json_to_string (node, FALSE);
  self->body = g_bytes_new_take (text, strlen (text));

  self->uri = g_uri_parse (url, SOUP_HTTP_URI_FLAGS, &error);
  if (self->uri == NULL || (g_strcmp0 (g_uri_get_scheme (self->uri), "http") &&
                            g_strcmp0 (g_uri_get_scheme (self->uri), "https")))
    {
      finish (self,
              agents_run_error_new (
                AGENTS_RUN_ERROR_USER_ERROR, NULL,
                _ ("the model base URL “%s” is not an http(s) URL"),
                agents_openai_provider_get_base_url (provider)),
              NULL);
      return;
    }
  /* OpenAI itself answers 401 without a key: say why before asking. */
  if (agents_openai_provider_is_official (provider) &&
      !agents_openai_provider_has_api_key (provider))
    {
      finish (self,
              agents_run_error_new_literal (
                AGENTS_RUN_ERROR_USER_ERROR, NULL,
                _ ("The api_key client option must be set either by passing "
                   "api_key to the client or by setting the OPENAI_API_KEY "
                   "environment variable")),
              NULL);
      return;
    }
  if (cancellable != NULL)
    {
      self->cancellable = g_object_ref (cancellable);
      /* Wakes a retry's sleep on the owner context. */
      self->wake_source = g_cancellable_source_new (cancellable);
      g_source_set_callback (self->wake_source, G_SOURCE_FUNC (wake_sleep),
                             self, NULL);
      g_source_attach (self->wake_source, g_task_get_context (task));
    }
  start_attempt (self);
}

gboolean
agents_openai_request_send_finish (GAsyncResult *result,
                                   JsonObject **answer,
                                   GError **error)
{
  GError *local_error = NULL;
  JsonObject *object;

  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);

  object = g_task_propagate_pointer (G_TASK (result), &local_error);
  if (local_error != NULL)
    {
      g_propagate_error (error, local_error);
      return FALSE;
    }
  if (answer != NULL)
    *answer = object;
  else if (object != NULL)
    json_object_unref (object);
  return TRUE;
}
