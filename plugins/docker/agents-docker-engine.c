/* agents-docker-engine.c - a connection to a Docker Engine API endpoint
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include <gio/gunixsocketaddress.h>
#include <glib/gi18n-lib.h>
#include <libsoup/soup.h>

#include "agents-docker-engine-private.h"
#include "agents-json-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-version.h"

#define DEFAULT_HOST "unix:///var/run/docker.sock"
#define UNIX_PREFIX "unix://"
#define MAX_JSON_BODY (16 * 1024 * 1024)
/* Exec and archive streams hold a connection each for as long as they
 * last: libsoup's default of 2 per host would make a third call wait. */
#define MAX_CONNECTIONS 64
/* sizeof (struct sockaddr_un.sun_path) less the terminating NUL. */
#define MAX_SOCKET_PATH 107

/* The error domain: its errors carry a context, which
 * agents_error_get_context() (and agents_sandbox_error_get_context())
 * read. */

/**
 * agents_docker_error_quark:
 *
 * Gets the quark of the %AGENTS_DOCKER_ERROR domain.
 *
 * Returns: the quark
 */
AGENTS_DEFINE_ERROR_QUARK (agents_docker_error, "agents-docker-error-quark")

void
agents_docker_error_set (
  GError **error, int code, GVariant *context, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  agents_error_set_valist (error, AGENTS_DOCKER_ERROR, code, context, format,
                           args);
  va_end (args);
}

/* The engine */

G_DEFINE_FINAL_TYPE (AgentsDockerEngine, agents_docker_engine, G_TYPE_OBJECT)

static void
agents_docker_engine_finalize (GObject *object)
{
  AgentsDockerEngine *self = AGENTS_DOCKER_ENGINE (object);

  g_free (self->endpoint);
  g_free (self->base_uri);
  g_clear_object (&self->session);
  g_clear_object (&self->connectable);
  g_clear_object (&self->tls_database);
  g_clear_object (&self->client_certificate);
  g_mutex_clear (&self->lock);
  g_free (self->server_api_version);

  G_OBJECT_CLASS (agents_docker_engine_parent_class)->finalize (object);
}

static void
agents_docker_engine_class_init (AgentsDockerEngineClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = agents_docker_engine_finalize;
}

static void
agents_docker_engine_init (AgentsDockerEngine *self)
{
  g_mutex_init (&self->lock);
}

/* Error contexts: @method, @path, @engine_message and @api_version may be
 * NULL and @status 0 when they do not apply. */
GVariant *
agents_docker_engine_context (AgentsDockerEngine *self,
                              const char *method,
                              const char *path,
                              guint status,
                              const char *engine_message,
                              const char *api_version)
{
  g_auto (GVariantBuilder) builder =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  g_variant_builder_add (&builder, "{sv}", "endpoint",
                         g_variant_new_string (self->endpoint));
  if (method != NULL)
    g_variant_builder_add (&builder, "{sv}", "method",
                           g_variant_new_string (method));
  if (path != NULL)
    g_variant_builder_add (
      &builder, "{sv}", "path",
      g_variant_new_take_string (g_utf8_make_valid (path, -1)));
  if (status != 0)
    g_variant_builder_add (&builder, "{sv}", "status",
                           g_variant_new_int32 ((gint32) status));
  if (engine_message != NULL)
    g_variant_builder_add (&builder, "{sv}", "engine_message",
                           g_variant_new_string (engine_message));
  if (api_version != NULL)
    g_variant_builder_add (&builder, "{sv}", "api_version",
                           g_variant_new_string (api_version));
  return g_variant_builder_end (&builder);
}

static gboolean
invalid_host (GError **error, const char *host, const char *reason)
{
  g_autofree char *valid = g_utf8_make_valid (host, -1);
  g_auto (GVariantBuilder) builder =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  g_variant_builder_add (&builder, "{sv}", "endpoint",
                         g_variant_new_string (valid));
  agents_docker_error_set (
    error, AGENTS_DOCKER_ERROR_INVALID_HOST, g_variant_builder_end (&builder),
    _ ("Docker host “%s” is not valid: %s"), valid, reason);
  return FALSE;
}

/* Turns a failure of libsoup or of a read into an engine error; a
 * cancellation stays what it is. Takes @local. */
static void
transport_error (AgentsDockerEngine *self,
                 const char *method,
                 const char *path,
                 GError *local,
                 GError **error)
{
  g_autoptr (GError) owned = local;

  if (g_error_matches (owned, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_propagate_error (error, g_steal_pointer (&owned));
      return;
    }
  if (owned->domain == G_TLS_ERROR)
    agents_docker_error_set (
      error, AGENTS_DOCKER_ERROR_TLS,
      agents_docker_engine_context (self, method, path, 0, NULL, NULL),
      _ ("TLS with the Docker engine at %s failed: %s"), self->endpoint,
      owned->message);
  else if (owned->domain == SOUP_SESSION_ERROR)
    agents_docker_error_set (
      error, AGENTS_DOCKER_ERROR_PROTOCOL,
      agents_docker_engine_context (self, method, path, 0, NULL, NULL),
      _ ("Docker engine at %s sent an answer to %s %s that "
         "could not be understood: %s"),
      self->endpoint, method, path, owned->message);
  else
    agents_docker_error_set (
      error, AGENTS_DOCKER_ERROR_UNREACHABLE,
      agents_docker_engine_context (self, method, path, 0, NULL, NULL),
      _ ("Docker engine at %s is unreachable: %s"), self->endpoint,
      owned->message);
}

/* Configuration */

static SoupSession *
new_session (GSocketConnectable *connectable)
{
  SoupSession *session = soup_session_new_with_options (
    "remote-connectable", connectable, "max-conns", MAX_CONNECTIONS,
    "max-conns-per-host", MAX_CONNECTIONS,
    /* No I/O timeout: an exec may be silent for as long as it runs. */
    "timeout", 0, "user-agent", "libagents/" AGENTS_VERSION_S, NULL);

  /* With Accept-Encoding: gzip the engine compresses every archive on
   * the fly, which costs it five times the CPU of sending it (a 200 MB
   * read: 4.2 s against 0.55 s): archives travel as they are. */
  soup_session_remove_feature_by_type (session, SOUP_TYPE_CONTENT_DECODER);
  return session;
}

static gboolean
configure_unix (AgentsDockerEngine *self, const char *host, GError **error)
{
  const char *path = host + strlen (UNIX_PREFIX);
  g_autoptr (GSocketAddress) address = NULL;

  if (path[0] != '/')
    return invalid_host (error, host, _ ("the socket path must be absolute"));
  if (strlen (path) > MAX_SOCKET_PATH)
    return invalid_host (error, host, _ ("the socket path is too long"));

  address = g_unix_socket_address_new (path);
  self->connectable = g_object_ref (G_SOCKET_CONNECTABLE (address));
  self->base_uri = g_strdup ("http://docker");
  self->session = new_session (G_SOCKET_CONNECTABLE (address));
  g_object_set (self->session, "proxy-resolver", NULL, NULL);
  return TRUE;
}

static char *
cert_path (const char *name)
{
  const char *dir = g_getenv ("DOCKER_CERT_PATH");

  if (dir != NULL && dir[0] != '\0')
    return g_build_filename (dir, name, NULL);
  return g_build_filename (g_get_home_dir (), ".docker", name, NULL);
}

static gboolean
invalid_tls (AgentsDockerEngine *self, GError *local, GError **error)
{
  g_autoptr (GError) owned = local;
  g_autofree char *reason =
    g_strdup_printf (_ ("the TLS files are not usable: %s"), owned->message);

  return invalid_host (error, self->endpoint, reason);
}

/* With @required (DOCKER_TLS_VERIFY), ca.pem, cert.pem and key.pem must
 * all be there; otherwise (an https:// host) those present are used and
 * the system's CAs stand in for a missing ca.pem. */
static gboolean
configure_tls (AgentsDockerEngine *self, gboolean required, GError **error)
{
  g_autofree char *ca = cert_path ("ca.pem");
  g_autofree char *cert = cert_path ("cert.pem");
  g_autofree char *key = cert_path ("key.pem");
  GError *local = NULL;

  if (required || g_file_test (ca, G_FILE_TEST_EXISTS))
    {
      self->tls_database = g_tls_file_database_new (ca, &local);
      if (self->tls_database == NULL)
        return invalid_tls (self, local, error);
      g_object_set (self->session, "tls-database", self->tls_database, NULL);
    }
  if (required || (g_file_test (cert, G_FILE_TEST_EXISTS) &&
                   g_file_test (key, G_FILE_TEST_EXISTS)))
    {
      self->client_certificate =
        g_tls_certificate_new_from_files (cert, key, &local);
      if (self->client_certificate == NULL)
        return invalid_tls (self, local, error);
    }
  return TRUE;
}

static gboolean
uri_has_extras (GUri *uri)
{
  const char *path = g_uri_get_path (uri);

  return g_uri_get_userinfo (uri) != NULL || g_uri_get_query (uri) != NULL ||
         g_uri_get_fragment (uri) != NULL ||
         (path[0] != '\0' && g_strcmp0 (path, "/") != 0);
}

/* tcp://host:port, https://host:port or http://host:port. */
static gboolean
configure_network (AgentsDockerEngine *self, const char *host, GError **error)
{
  g_autoptr (GError) local = NULL;
  g_autoptr (GUri) uri = g_uri_parse (host, G_URI_FLAGS_NONE, &local);
  const char *tls_verify = g_getenv ("DOCKER_TLS_VERIFY");
  gboolean verify = tls_verify != NULL && tls_verify[0] != '\0';
  const char *scheme;
  gboolean tls;

  if (uri == NULL && g_uri_peek_scheme (host) != NULL)
    return invalid_host (error, host, local->message);
  scheme = uri ? g_uri_get_scheme (uri) : "";
  if (g_str_equal (scheme, "tcp"))
    tls = verify;
  else if (g_str_equal (scheme, "https") || g_str_equal (scheme, "http"))
    tls = g_str_equal (scheme, "https");
  else
    return invalid_host (error, host,
                         _ ("use unix:///path, tcp://host:port or "
                            "https://host:port"));
  if (g_uri_get_host (uri) == NULL || g_uri_get_host (uri)[0] == '\0')
    return invalid_host (error, host, _ ("no host name"));
  if (g_uri_get_port (uri) <= 0)
    return invalid_host (error, host, _ ("no port"));
  if (uri_has_extras (uri))
    return invalid_host (error, host,
                         _ ("only a scheme, a host and a port are allowed"));

  self->base_uri =
    g_uri_join (G_URI_FLAGS_NONE, tls ? "https" : "http", NULL,
                g_uri_get_host (uri), g_uri_get_port (uri), "", NULL, NULL);
  self->session = new_session (NULL);
  self->connectable =
    g_network_address_new (g_uri_get_host (uri), g_uri_get_port (uri));
  self->tls = tls;
  return !tls || configure_tls (self, verify, error);
}

static const char *
default_host (void)
{
  const char *host = g_getenv ("DOCKER_HOST");

  return host != NULL && host[0] != '\0' ? host : DEFAULT_HOST;
}

/**
 * agents_docker_engine_new:
 * @host: (nullable): `unix:///path`, `tcp://host:port`,
 *   `https://host:port`, or %NULL for `$DOCKER_HOST` and then
 *   `unix:///var/run/docker.sock`
 * @error: return location for a #GError
 *
 * Prepares a connection to a Docker engine; does not connect.
 *
 * Returns: (transfer full): the engine, or %NULL with an
 *   %AGENTS_DOCKER_ERROR_INVALID_HOST error
 */
AgentsDockerEngine *
agents_docker_engine_new (const char *host, GError **error)
{
  g_autoptr (AgentsDockerEngine) self = NULL;
  gboolean ok;

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (host == NULL)
    host = default_host ();
  self = g_object_new (AGENTS_TYPE_DOCKER_ENGINE, NULL);
  self->endpoint = g_utf8_make_valid (host, -1);
  if (g_str_has_prefix (host, UNIX_PREFIX))
    ok = configure_unix (self, host, error);
  else
    ok = configure_network (self, host, error);
  return ok ? g_steal_pointer (&self) : NULL;
}

/**
 * agents_docker_engine_get_endpoint:
 * @self: an engine
 *
 * Returns: the endpoint as given or defaulted
 */
const char *
agents_docker_engine_get_endpoint (AgentsDockerEngine *self)
{
  g_return_val_if_fail (AGENTS_IS_DOCKER_ENGINE (self), NULL);

  return self->endpoint;
}

/**
 * agents_docker_engine_get_server_api_version:
 * @self: an engine
 *
 * Returns: (nullable): the engine's ApiVersion once negotiated
 */
const char *
agents_docker_engine_get_server_api_version (AgentsDockerEngine *self)
{
  g_return_val_if_fail (AGENTS_IS_DOCKER_ENGINE (self), NULL);

  return g_atomic_pointer_get (&self->server_api_version);
}

/* Requests */

SoupMessage *
agents_docker_engine_new_message (AgentsDockerEngine *self,
                                  const char *method,
                                  const char *path,
                                  gboolean versioned,
                                  GError **error)
{
  g_autofree char *uri_string = g_strconcat (
    self->base_uri, versioned ? "/v" AGENTS_DOCKER_MIN_API_VERSION : "", path,
    NULL);
  g_autoptr (GError) local = NULL;
  g_autoptr (GUri) uri = g_uri_parse (uri_string, SOUP_HTTP_URI_FLAGS, &local);
  SoupMessage *message;

  if (uri == NULL)
    {
      agents_docker_error_set (
        error, AGENTS_DOCKER_ERROR_PROTOCOL,
        agents_docker_engine_context (self, method, path, 0, NULL, NULL),
        _ ("Cannot send %s %s to the Docker engine at %s: %s"), method, path,
        self->endpoint, local->message);
      return NULL;
    }
  message = soup_message_new_from_uri (method, uri);
  if (self->client_certificate != NULL)
    soup_message_set_tls_client_certificate (message, self->client_certificate);
  return message;
}

SoupMessage *
agents_docker_engine_new_call (AgentsDockerEngine *self,
                               const char *method,
                               const char *path,
                               GCancellable *cancellable,
                               GError **error)
{
  if (!agents_docker_engine_negotiate (self, cancellable, error))
    return NULL;
  return agents_docker_engine_new_message (self, method, path, TRUE, error);
}

GInputStream *
agents_docker_engine_send_message (AgentsDockerEngine *self,
                                   SoupMessage *message,
                                   const char *path,
                                   GCancellable *cancellable,
                                   GError **error)
{
  GError *local = NULL;
  GInputStream *stream =
    soup_session_send (self->session, message, cancellable, &local);

  if (stream == NULL)
    transport_error (self, soup_message_get_method (message), path, local,
                     error);
  return stream;
}

/* Reads at most @limit + 1 bytes: a longer body is refused by the caller
 * without reading it all. */
static GByteArray *
read_body (GInputStream *stream,
           gsize limit,
           GCancellable *cancellable,
           GError **error)
{
  g_autoptr (GByteArray) body = g_byte_array_new ();
  g_autofree guint8 *buffer = g_malloc (16384);

  while (body->len <= limit)
    {
      gssize n =
        g_input_stream_read (stream, buffer, 16384, cancellable, error);

      if (n < 0)
        return NULL;
      if (n == 0)
        break;
      g_byte_array_append (body, buffer, n);
    }
  return g_steal_pointer (&body);
}

/* Reads the whole (JSON or error) answer to @message. */
GBytes *
agents_docker_engine_read_answer (AgentsDockerEngine *self,
                                  SoupMessage *message,
                                  GInputStream *stream,
                                  const char *path,
                                  GCancellable *cancellable,
                                  GError **error)
{
  const char *method = soup_message_get_method (message);
  GError *local = NULL;
  g_autoptr (GByteArray) body =
    read_body (stream, MAX_JSON_BODY, cancellable, &local);

  g_input_stream_close (stream, NULL, NULL);
  if (body == NULL)
    {
      transport_error (self, method, path, local, error);
      return NULL;
    }
  if (body->len > MAX_JSON_BODY)
    {
      agents_docker_error_set (
        error, AGENTS_DOCKER_ERROR_PROTOCOL,
        agents_docker_engine_context (self, method, path, 0, NULL, NULL),
        _ ("Docker engine at %s answered %s %s with more "
           "than %d MiB"),
        self->endpoint, method, path, MAX_JSON_BODY >> 20);
      return NULL;
    }
  return g_byte_array_free_to_bytes (g_steal_pointer (&body));
}

/* @name of @node if @node is an object and @name a string in it. */
static const char *
string_member (JsonNode *node, const char *name)
{
  JsonNode *member;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  member = json_object_get_member (json_node_get_object (node), name);
  if (member == NULL || !JSON_NODE_HOLDS_VALUE (member) ||
      json_node_get_value_type (member) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (member);
}

/* The engine's own explanation: the `message` of a JSON error body, else
 * the body as text, else the reason phrase. */
static char *
engine_message (const char *reason_phrase, GBytes *body)
{
  gsize size = 0;
  const char *data = g_bytes_get_data (body, &size);
  g_autoptr (JsonNode) root =
    size > 0 ? agents_json_parse_bounded (data, size, "answer", NULL) : NULL;
  g_autofree char *text = NULL;
  const char *member;

  if (root != NULL)
    {
      member = string_member (root, "message");
      if (member != NULL && member[0] != '\0')
        return g_utf8_make_valid (member, -1);
    }
  text = g_utf8_make_valid (data ? data : "",
                            MIN (size, AGENTS_DOCKER_MAX_ENGINE_MESSAGE));
  g_strstrip (text);
  if (text[0] != '\0')
    return g_steal_pointer (&text);
  return g_strdup (reason_phrase ? reason_phrase : "");
}

void
agents_docker_engine_http_error_full (AgentsDockerEngine *self,
                                      const char *method,
                                      const char *path,
                                      guint status,
                                      const char *reason_phrase,
                                      GBytes *body,
                                      GError **error)
{
  g_autofree char *text = engine_message (reason_phrase, body);
  int code = AGENTS_DOCKER_ERROR_HTTP;

  if (status == SOUP_STATUS_NOT_FOUND)
    code = AGENTS_DOCKER_ERROR_NOT_FOUND;
  else if (status == SOUP_STATUS_CONFLICT)
    code = AGENTS_DOCKER_ERROR_CONFLICT;
  agents_docker_error_set (
    error, code,
    agents_docker_engine_context (self, method, path, status, text, NULL),
    _ ("Docker engine at %s answered %u to %s %s: %s"), self->endpoint, status,
    method, path, text);
}

void
agents_docker_engine_http_error (AgentsDockerEngine *self,
                                 SoupMessage *message,
                                 const char *path,
                                 GBytes *body,
                                 GError **error)
{
  agents_docker_engine_http_error_full (
    self, soup_message_get_method (message), path,
    soup_message_get_status (message), soup_message_get_reason_phrase (message),
    body, error);
}

static gboolean
is_json_answer (SoupMessage *message)
{
  const char *type = soup_message_headers_get_content_type (
    soup_message_get_response_headers (message), NULL);

  return type == NULL || g_str_equal (type, "application/json") ||
         g_str_has_suffix (type, "+json");
}

static JsonNode *
parse_answer (AgentsDockerEngine *self,
              SoupMessage *message,
              const char *path,
              GBytes *body,
              GError **error)
{
  gsize size = 0;
  const char *data = g_bytes_get_data (body, &size);
  g_autoptr (GError) local = NULL;
  JsonNode *root;

  if (size == 0)
    return json_node_new (JSON_NODE_NULL);
  if (!is_json_answer (message))
    {
      g_autofree char *text = g_utf8_make_valid (data, size);

      return json_node_init_string (json_node_alloc (), text);
    }
  /* Bounded in depth and size, as every document read. */
  root = agents_json_parse_bounded (data, size, _ ("answer"), &local);
  if (root == NULL)
    {
      const char *method = soup_message_get_method (message);

      agents_docker_error_set (
        error, AGENTS_DOCKER_ERROR_PROTOCOL,
        agents_docker_engine_context (self, method, path, 0, NULL, NULL),
        _ ("Docker engine at %s answered %s %s with invalid "
           "JSON: %s"),
        self->endpoint, method, path, local->message);
      return NULL;
    }
  return root;
}

static void
set_json_body (SoupMessage *message, JsonNode *body)
{
  char *text = json_to_string (body, FALSE);
  g_autoptr (GBytes) bytes = g_bytes_new_take (text, strlen (text));

  soup_message_set_request_body_from_bytes (message, "application/json", bytes);
}

/* One JSON exchange; @versioned puts the API version before @path. */
static JsonNode *
request_json (AgentsDockerEngine *self,
              const char *method,
              const char *path,
              gboolean versioned,
              JsonNode *body,
              guint *status_out,
              GCancellable *cancellable,
              GError **error)
{
  g_autoptr (SoupMessage) message =
    agents_docker_engine_new_message (self, method, path, versioned, error);
  g_autoptr (GInputStream) stream = NULL;
  g_autoptr (GBytes) answer = NULL;

  if (message == NULL)
    return NULL;
  if (body != NULL)
    set_json_body (message, body);
  stream =
    agents_docker_engine_send_message (self, message, path, cancellable, error);
  if (stream == NULL)
    return NULL;
  if (status_out != NULL)
    *status_out = soup_message_get_status (message);
  answer = agents_docker_engine_read_answer (self, message, stream, path,
                                             cancellable, error);
  if (answer == NULL)
    return NULL;
  if (soup_message_get_status (message) >= 400)
    {
      agents_docker_engine_http_error (self, message, path, answer, error);
      return NULL;
    }
  return parse_answer (self, message, path, answer, error);
}

/* Negotiation */

/* Parses "1.41" into up to four numbers. */
static gboolean
parse_api_version (const char *version, guint64 parts[4])
{
  g_auto (GStrv) words = g_strsplit (version, ".", 0);
  guint n = g_strv_length (words);

  memset (parts, 0, 4 * sizeof (guint64));
  if (n == 0 || n > 4)
    return FALSE;
  for (guint i = 0; i < n; i++)
    if (!g_ascii_string_to_unsigned (words[i], 10, 0, G_MAXUINT32, &parts[i],
                                     NULL))
      return FALSE;
  return TRUE;
}

static int
compare_api_versions (const guint64 a[4], const guint64 b[4])
{
  for (guint i = 0; i < 4; i++)
    if (a[i] != b[i])
      return a[i] < b[i] ? -1 : 1;
  return 0;
}

/* Returns the ApiVersion of a /version answer if it is new enough. */
static char *
check_api_version (AgentsDockerEngine *self, JsonNode *answer, GError **error)
{
  const char *version = string_member (answer, "ApiVersion");
  guint64 theirs[4], ours[4];

  if (version == NULL || !parse_api_version (version, theirs))
    {
      agents_docker_error_set (
        error, AGENTS_DOCKER_ERROR_API_VERSION,
        agents_docker_engine_context (self, "GET", "/version", 0, NULL, NULL),
        _ ("Docker engine at %s did not say which API version it speaks"),
        self->endpoint);
      return NULL;
    }
  parse_api_version (AGENTS_DOCKER_MIN_API_VERSION, ours);
  if (compare_api_versions (theirs, ours) < 0)
    {
      agents_docker_error_set (
        error, AGENTS_DOCKER_ERROR_API_VERSION,
        agents_docker_engine_context (self, "GET", "/version", 0, NULL,
                                      version),
        _ ("Docker engine at %s speaks API %s; libagents needs %s or newer"),
        self->endpoint, version, AGENTS_DOCKER_MIN_API_VERSION);
      return NULL;
    }
  return g_strdup (version);
}

/**
 * agents_docker_engine_negotiate:
 * @self: an engine
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Checks once that the engine speaks %AGENTS_DOCKER_MIN_API_VERSION or
 * newer. A success is remembered; a failure is not, so that an engine
 * started (or upgraded) later is found.
 *
 * Returns: whether the engine can be used
 */
gboolean
agents_docker_engine_negotiate (AgentsDockerEngine *self,
                                GCancellable *cancellable,
                                GError **error)
{
  g_autoptr (GMutexLocker) locker = NULL;
  g_autoptr (JsonNode) answer = NULL;
  char *version;

  g_return_val_if_fail (AGENTS_IS_DOCKER_ENGINE (self), FALSE);

  if (g_atomic_pointer_get (&self->server_api_version) != NULL)
    return TRUE;
  locker = g_mutex_locker_new (&self->lock);
  if (self->server_api_version != NULL)
    return TRUE;

  answer = request_json (self, "GET", "/version", FALSE, NULL, NULL,
                         cancellable, error);
  if (answer == NULL)
    return FALSE;
  version = check_api_version (self, answer, error);
  if (version == NULL)
    return FALSE;
  g_atomic_pointer_set (&self->server_api_version, version);
  return TRUE;
}

/**
 * agents_docker_engine_call_json:
 * @self: an engine
 * @method: the HTTP method
 * @path: the path under the versioned base, query escaped by the caller
 * @body: (nullable): the JSON body
 * @status_out: (out) (optional): the status of the answer, 0 without one
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Sends a request and parses its answer.
 *
 * Returns: (transfer full): the answer, a %JSON_NODE_NULL node when it was
 *   empty and a string node when it was not JSON (`/_ping`'s `OK`)
 */
JsonNode *
agents_docker_engine_call_json (AgentsDockerEngine *self,
                                const char *method,
                                const char *path,
                                JsonNode *body,
                                guint *status_out,
                                GCancellable *cancellable,
                                GError **error)
{
  g_return_val_if_fail (AGENTS_IS_DOCKER_ENGINE (self), NULL);
  g_return_val_if_fail (method != NULL, NULL);
  g_return_val_if_fail (path != NULL && path[0] == '/', NULL);

  if (status_out != NULL)
    *status_out = 0;
  if (!agents_docker_engine_negotiate (self, cancellable, error))
    return NULL;
  return request_json (self, method, path, TRUE, body, status_out, cancellable,
                       error);
}

void
agents_docker_engine_set_transport_error (AgentsDockerEngine *self,
                                          const char *method,
                                          const char *path,
                                          GError *cause,
                                          GError **error)
{
  g_return_if_fail (AGENTS_IS_DOCKER_ENGINE (self));
  transport_error (self, method, path, cause, error);
}

JsonNode *
agents_docker_engine_stat_path (AgentsDockerEngine *self,
                                const char *path,
                                GCancellable *cancellable,
                                GError **error)
{
  g_autoptr (SoupMessage) message = NULL;
  g_autoptr (GInputStream) stream = NULL;
  g_autoptr (GBytes) answer = NULL;
  g_autofree guchar *decoded = NULL;
  g_autoptr (JsonNode) stat = NULL;
  const char *header;
  gsize len = 0;

  g_return_val_if_fail (AGENTS_IS_DOCKER_ENGINE (self), NULL);

  message =
    agents_docker_engine_new_call (self, "HEAD", path, cancellable, error);
  if (message == NULL)
    return NULL;
  stream =
    agents_docker_engine_send_message (self, message, path, cancellable, error);
  if (stream == NULL)
    return NULL;
  answer = agents_docker_engine_read_answer (self, message, stream, path,
                                             cancellable, error);
  if (answer == NULL)
    return NULL;
  if (soup_message_get_status (message) >= 400)
    {
      agents_docker_engine_http_error (self, message, path, answer, error);
      return NULL;
    }
  header =
    soup_message_headers_get_one (soup_message_get_response_headers (message),
                                  "X-Docker-Container-Path-Stat");
  if (header != NULL)
    decoded = g_base64_decode (header, &len);
  if (decoded != NULL && len > 0)
    stat =
      agents_json_parse_bounded ((const char *) decoded, len, "stat", NULL);
  if (stat != NULL && JSON_NODE_HOLDS_OBJECT (stat))
    return g_steal_pointer (&stat);
  agents_docker_error_set (
    error, AGENTS_DOCKER_ERROR_PROTOCOL,
    agents_docker_engine_context (self, "HEAD", path, 0, NULL, NULL),
    _ ("Docker engine at %s did not stat %s"), self->endpoint, path);
  return NULL;
}

/* Multiplexed exec streams */

/**
 * agents_docker_engine_escape:
 * @value: a query value
 *
 * Returns: (transfer full): @value escaped for a query string
 */
char *
agents_docker_engine_escape (const char *value)
{
  g_return_val_if_fail (value != NULL, NULL);

  return g_uri_escape_string (value, NULL, FALSE);
}
