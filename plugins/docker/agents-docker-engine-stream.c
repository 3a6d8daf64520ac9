/* agents-docker-engine-stream.c - streamed and hijacked engine calls
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "agents-docker-engine-private.h"
#include "agents-version.h"

/* The answer of agents_docker_engine_call_stream(): reads honour the
 * call's cancellable too, and transport failures become engine errors. */

#define AGENTS_TYPE_DOCKER_BODY_STREAM (agents_docker_body_stream_get_type ())
G_DECLARE_FINAL_TYPE (AgentsDockerBodyStream,
                      agents_docker_body_stream,
                      AGENTS,
                      DOCKER_BODY_STREAM,
                      GFilterInputStream)

struct _AgentsDockerBodyStream
{
  GFilterInputStream parent_instance;

  AgentsDockerEngine *engine;
  char *method;
  char *path;
  GCancellable *cancellable;
};

G_DEFINE_FINAL_TYPE (AgentsDockerBodyStream,
                     agents_docker_body_stream,
                     G_TYPE_FILTER_INPUT_STREAM)

static void
cancel_linked (GCancellable *source, GCancellable *linked)
{
  g_cancellable_cancel (linked);
}

/* Reads with the call's cancellable and the caller's both in force. */
static gssize
read_cancellable (AgentsDockerBodyStream *self,
                  void *buffer,
                  gsize count,
                  GCancellable *cancellable,
                  GError **error)
{
  GInputStream *base = G_FILTER_INPUT_STREAM (self)->base_stream;
  g_autoptr (GCancellable) both = NULL;
  gulong first, second;
  gssize n;

  if (cancellable == NULL || cancellable == self->cancellable ||
      self->cancellable == NULL)
    return g_input_stream_read (base, buffer, count,
                                cancellable ? cancellable : self->cancellable,
                                error);

  both = g_cancellable_new ();
  first =
    g_cancellable_connect (cancellable, G_CALLBACK (cancel_linked), both, NULL);
  second = g_cancellable_connect (self->cancellable, G_CALLBACK (cancel_linked),
                                  both, NULL);
  n = g_input_stream_read (base, buffer, count, both, error);
  g_cancellable_disconnect (cancellable, first);
  g_cancellable_disconnect (self->cancellable, second);
  return n;
}

static gssize
agents_docker_body_stream_read (GInputStream *stream,
                                void *buffer,
                                gsize count,
                                GCancellable *cancellable,
                                GError **error)
{
  AgentsDockerBodyStream *self = AGENTS_DOCKER_BODY_STREAM (stream);
  GError *local = NULL;
  gssize n = read_cancellable (self, buffer, count, cancellable, &local);

  if (n < 0)
    agents_docker_engine_set_transport_error (self->engine, self->method,
                                              self->path, local, error);
  return n;
}

static void
agents_docker_body_stream_finalize (GObject *object)
{
  AgentsDockerBodyStream *self = AGENTS_DOCKER_BODY_STREAM (object);

  g_clear_object (&self->engine);
  g_free (self->method);
  g_free (self->path);
  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (agents_docker_body_stream_parent_class)->finalize (object);
}

static void
agents_docker_body_stream_class_init (AgentsDockerBodyStreamClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = agents_docker_body_stream_finalize;
  G_INPUT_STREAM_CLASS (klass)->read_fn = agents_docker_body_stream_read;
}

static void
agents_docker_body_stream_init (AgentsDockerBodyStream *self)
{
}

static GInputStream *
body_stream_new (AgentsDockerEngine *self,
                 const char *method,
                 const char *path,
                 GInputStream *base,
                 GCancellable *cancellable)
{
  AgentsDockerBodyStream *stream =
    g_object_new (AGENTS_TYPE_DOCKER_BODY_STREAM, "base-stream", base, NULL);

  stream->engine = g_object_ref (self);
  stream->method = g_strdup (method);
  stream->path = g_strdup (path);
  g_set_object (&stream->cancellable, cancellable);
  return G_INPUT_STREAM (stream);
}

/**
 * agents_docker_engine_call_stream:
 * @self: an engine
 * @method: the HTTP method
 * @path: the path under the versioned base, query escaped by the caller
 * @body: (nullable): the request body
 * @body_length: the length of @body, or -1 to send it chunked
 * @content_type: (nullable): the type of @body
 * @cancellable: (nullable): a #GCancellable, also for the reads
 * @error: return location for a #GError
 *
 * Sends a request and hands back its answer's body unread.
 *
 * Returns: (transfer full): the answer's body
 */
/* The body of an upload: remembers why reading it failed, or that
 * libsoup restarted the message, so that the caller reports that and not
 * whatever the engine made of a cut or empty body. */

#define TYPE_UPLOAD_GUARD (upload_guard_get_type ())
G_DECLARE_FINAL_TYPE (
  UploadGuard, upload_guard, AGENTS, UPLOAD_GUARD, GFilterInputStream)

struct _UploadGuard
{
  GFilterInputStream parent_instance;

  GMutex lock;
  GError *error;
  gboolean restarted;
};

G_DEFINE_FINAL_TYPE (UploadGuard, upload_guard, G_TYPE_FILTER_INPUT_STREAM)

#define UPLOAD_GUARD(o) AGENTS_UPLOAD_GUARD (o)

static gssize
upload_guard_read (GInputStream *stream,
                   void *buffer,
                   gsize count,
                   GCancellable *cancellable,
                   GError **error)
{
  UploadGuard *self = UPLOAD_GUARD (stream);
  GError *local = NULL;
  gssize n = g_input_stream_read (G_FILTER_INPUT_STREAM (stream)->base_stream,
                                  buffer, count, cancellable, &local);

  if (n < 0)
    {
      g_mutex_lock (&self->lock);
      if (self->error == NULL)
        self->error = g_error_copy (local);
      g_mutex_unlock (&self->lock);
      g_propagate_error (error, local);
    }
  return n;
}

static void
upload_guard_finalize (GObject *object)
{
  UploadGuard *self = UPLOAD_GUARD (object);

  g_clear_error (&self->error);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (upload_guard_parent_class)->finalize (object);
}

static void
upload_guard_class_init (UploadGuardClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = upload_guard_finalize;
  G_INPUT_STREAM_CLASS (klass)->read_fn = upload_guard_read;
}

static void
upload_guard_init (UploadGuard *self)
{
  g_mutex_init (&self->lock);
}

static GInputStream *
upload_guard_new (GInputStream *base)
{
  return g_object_new (TYPE_UPLOAD_GUARD, "base-stream", base,
                       "close-base-stream", FALSE, NULL);
}

static void
upload_restarted (SoupMessage *message, UploadGuard *guard)
{
  g_mutex_lock (&guard->lock);
  guard->restarted = TRUE;
  g_mutex_unlock (&guard->lock);
}

/* Fails with the body's own error, or when the upload was restarted. */
static gboolean
upload_guard_check (UploadGuard *self, GError **error)
{
  g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&self->lock);

  if (self->error != NULL)
    {
      g_propagate_error (error, g_error_copy (self->error));
      return FALSE;
    }
  if (self->restarted)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT,
                           _ ("the upload was interrupted and cannot be "
                              "sent again"));
      return FALSE;
    }
  return TRUE;
}

GInputStream *
agents_docker_engine_call_stream (AgentsDockerEngine *self,
                                  const char *method,
                                  const char *path,
                                  GInputStream *body,
                                  gint64 body_length,
                                  const char *content_type,
                                  GCancellable *cancellable,
                                  GError **error)
{
  g_autoptr (SoupMessage) message = NULL;
  g_autoptr (GInputStream) stream = NULL;
  g_autoptr (GInputStream) guard = NULL;
  g_autoptr (GBytes) answer = NULL;
  GError *local = NULL;

  g_return_val_if_fail (AGENTS_IS_DOCKER_ENGINE (self), NULL);
  g_return_val_if_fail (method != NULL, NULL);
  g_return_val_if_fail (path != NULL && path[0] == '/', NULL);

  message =
    agents_docker_engine_new_call (self, method, path, cancellable, error);
  if (message == NULL)
    return NULL;
  if (body != NULL)
    {
      guard = upload_guard_new (body);
      soup_message_set_request_body (message, content_type, guard, body_length);
      /* A streamed body cannot be sent twice: no reused connection that
       * libsoup would retry on, and a restart is a failure. */
      soup_message_add_flags (message, SOUP_MESSAGE_NEW_CONNECTION);
      g_signal_connect (message, "restarted", G_CALLBACK (upload_restarted),
                        guard);
    }
  stream = agents_docker_engine_send_message (self, message, path, cancellable,
                                              &local);
  if (guard != NULL && !upload_guard_check (UPLOAD_GUARD (guard), error))
    {
      g_clear_error (&local);
      return NULL;
    }
  if (stream == NULL)
    {
      g_propagate_error (error, local);
      return NULL;
    }
  if (soup_message_get_status (message) < 400)
    return body_stream_new (self, method, path, stream, cancellable);

  answer = agents_docker_engine_read_answer (self, message, stream, path,
                                             cancellable, error);
  if (answer != NULL)
    agents_docker_engine_http_error (self, message, path, answer, error);
  return NULL;
}

/* Hijacked connections */

#define MAX_HEAD (64 * 1024)

static GIOStream *
start_tls (AgentsDockerEngine *self,
           GIOStream *plain,
           const char *path,
           GCancellable *cancellable,
           GError **error)
{
  GError *local = NULL;
  g_autoptr (GIOStream) tls =
    g_tls_client_connection_new (plain, self->connectable, &local);

  if (tls != NULL && self->tls_database != NULL)
    g_tls_connection_set_database (G_TLS_CONNECTION (tls), self->tls_database);
  if (tls != NULL && self->client_certificate != NULL)
    g_tls_connection_set_certificate (G_TLS_CONNECTION (tls),
                                      self->client_certificate);
  if (tls == NULL ||
      !g_tls_connection_handshake (G_TLS_CONNECTION (tls), cancellable, &local))
    {
      agents_docker_engine_set_transport_error (self, "POST", path, local,
                                                error);
      return NULL;
    }
  return g_steal_pointer (&tls);
}

static GIOStream *
connect_raw (AgentsDockerEngine *self,
             const char *path,
             GCancellable *cancellable,
             GError **error)
{
  g_autoptr (GSocketClient) client = g_socket_client_new ();
  g_autoptr (GSocketConnection) connection = NULL;
  GError *local = NULL;

  g_socket_client_set_enable_proxy (client, FALSE);
  connection =
    g_socket_client_connect (client, self->connectable, cancellable, &local);
  if (connection == NULL)
    {
      agents_docker_engine_set_transport_error (self, "POST", path, local,
                                                error);
      return NULL;
    }
  if (!self->tls)
    return G_IO_STREAM (g_steal_pointer (&connection));
  return start_tls (self, G_IO_STREAM (connection), path, cancellable, error);
}

static gboolean
send_upgrade (AgentsDockerEngine *self,
              GIOStream *connection,
              const char *path,
              const char *body,
              GCancellable *cancellable,
              GError **error)
{
  /* "http://docker" → "docker". */
  const char *host = strstr (self->base_uri, "://") + 3;
  g_autofree char *request =
    g_strdup_printf ("POST /v" AGENTS_DOCKER_MIN_API_VERSION "%s HTTP/1.1\r\n"
                     "Host: %s\r\n"
                     "User-Agent: libagents/" AGENTS_VERSION_S "\r\n"
                     "Content-Type: application/json\r\n"
                     "Content-Length: %" G_GSIZE_FORMAT "\r\n"
                     "Connection: Upgrade\r\n"
                     "Upgrade: tcp\r\n"
                     "\r\n%s",
                     path, host, strlen (body), body);
  GError *local = NULL;

  if (!g_output_stream_write_all (g_io_stream_get_output_stream (connection),
                                  request, strlen (request), NULL, cancellable,
                                  &local))
    {
      agents_docker_engine_set_transport_error (self, "POST", path, local,
                                                error);
      return FALSE;
    }
  return TRUE;
}

/* Reads the answer's head a byte at a time: what follows belongs to the
 * caller. */
static GString *
read_head (AgentsDockerEngine *self,
           GInputStream *in,
           const char *path,
           GCancellable *cancellable,
           GError **error)
{
  g_autoptr (GString) head = g_string_new (NULL);
  GError *local = NULL;

  while (!g_str_has_suffix (head->str, "\r\n\r\n") && head->len < MAX_HEAD)
    {
      char c;
      gssize n = g_input_stream_read (in, &c, 1, cancellable, &local);

      if (n == 0)
        local = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED,
                                     _ ("The connection was closed"));
      if (n <= 0)
        {
          agents_docker_engine_set_transport_error (self, "POST", path, local,
                                                    error);
          return NULL;
        }
      g_string_append_c (head, c);
    }
  return g_steal_pointer (&head);
}

/* Reads the body of an error answer whose head is @headers. */
static GBytes *
read_error_body (GInputStream *in,
                 SoupMessageHeaders *headers,
                 GCancellable *cancellable)
{
  goffset length = soup_message_headers_get_content_length (headers);
  gsize size = (gsize) CLAMP (length, 0, AGENTS_DOCKER_MAX_ENGINE_MESSAGE);
  g_autofree char *data = g_malloc (size + 1);
  gsize n = 0;

  g_input_stream_read_all (in, data, size, &n, cancellable, NULL);
  return g_bytes_new_take (g_steal_pointer (&data), n);
}

static gboolean
check_upgrade (AgentsDockerEngine *self,
               GIOStream *connection,
               const char *path,
               GCancellable *cancellable,
               GError **error)
{
  GInputStream *in = g_io_stream_get_input_stream (connection);
  g_autoptr (GString) head = read_head (self, in, path, cancellable, error);
  g_autoptr (SoupMessageHeaders) headers = NULL;
  g_autoptr (GBytes) body = NULL;
  g_autofree char *reason = NULL;
  guint status = 0;

  if (head == NULL)
    return FALSE;
  headers = soup_message_headers_new (SOUP_MESSAGE_HEADERS_RESPONSE);
  if (!soup_headers_parse_response (head->str, head->len, headers, NULL,
                                    &status, &reason))
    status = 0;
  if (status == SOUP_STATUS_SWITCHING_PROTOCOLS || status == SOUP_STATUS_OK)
    return TRUE;
  if (status < 400)
    {
      agents_docker_error_set (
        error, AGENTS_DOCKER_ERROR_PROTOCOL,
        agents_docker_engine_context (self, "POST", path, status, NULL, NULL),
        _ ("Docker engine at %s did not hand over the "
           "connection of POST %s"),
        self->endpoint, path);
      return FALSE;
    }
  body = read_error_body (in, headers, cancellable);
  agents_docker_engine_http_error_full (self, "POST", path, status, reason,
                                        body, error);
  return FALSE;
}

/**
 * agents_docker_engine_hijack:
 * @self: an engine
 * @path: the path under the versioned base, e.g. `/exec/ID/start`
 * @body: the JSON text of the request body
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Sends POST @path on a connection of its own and has the engine hand
 * the connection over, as `docker exec -i` does.
 *
 * Returns: (transfer full): the connection: a #GSocketConnection, or a
 *   #GTlsConnection over one
 */
GIOStream *
agents_docker_engine_hijack (AgentsDockerEngine *self,
                             const char *path,
                             const char *body,
                             GCancellable *cancellable,
                             GError **error)
{
  g_autoptr (GIOStream) connection = NULL;

  g_return_val_if_fail (AGENTS_IS_DOCKER_ENGINE (self), NULL);
  g_return_val_if_fail (path != NULL && path[0] == '/', NULL);
  g_return_val_if_fail (body != NULL, NULL);

  if (strpbrk (path, " \r\n") != NULL)
    {
      agents_docker_error_set (
        error, AGENTS_DOCKER_ERROR_PROTOCOL,
        agents_docker_engine_context (self, "POST", path, 0, NULL, NULL),
        _ ("Cannot send %s %s to the Docker engine at %s: %s"), "POST", path,
        self->endpoint, _ ("the path has spaces or line breaks"));
      return NULL;
    }
  if (!agents_docker_engine_negotiate (self, cancellable, error))
    return NULL;
  connection = connect_raw (self, path, cancellable, error);
  if (connection == NULL ||
      !send_upgrade (self, connection, path, body, cancellable, error) ||
      !check_upgrade (self, connection, path, cancellable, error))
    return NULL;
  return g_steal_pointer (&connection);
}
