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

#include "agents-docker-engine.h"
#include "agents-json-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-version.h"

#define DEFAULT_HOST "unix:///var/run/docker.sock"
#define UNIX_PREFIX "unix://"
#define MAX_JSON_BODY (16 * 1024 * 1024)
#define MAX_ENGINE_MESSAGE 1024
/* Exec and archive streams hold a connection each for as long as they
 * last: libsoup's default of 2 per host would make a third call wait. */
#define MAX_CONNECTIONS 64
/* sizeof (struct sockaddr_un.sun_path) less the terminating NUL. */
#define MAX_SOCKET_PATH 107
#define FRAME_HEADER_SIZE 8
#define FRAME_CHUNK (256 * 1024)

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

/* Sets @error to a docker error carrying @context (floating, consumed). */
static void docker_error_set (GError **error,
                              int code,
                              GVariant *context,
                              const char *format,
                              ...) G_GNUC_PRINTF (4, 5);

static void
docker_error_set (
  GError **error, int code, GVariant *context, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  agents_error_set_valist (error, AGENTS_DOCKER_ERROR, code, context, format,
                           args);
  va_end (args);
}

/* The engine */

struct _AgentsDockerEngine
{
  GObject parent_instance;

  char *endpoint;
  /* "http://docker" for a unix socket, else "http(s)://host:port". */
  char *base_uri;
  SoupSession *session;
  /* For agents_docker_engine_hijack(), which connects by itself: the
   * address, and with TLS the CAs (NULL: the system's) and certificate. */
  GSocketConnectable *connectable;
  gboolean tls;
  GTlsDatabase *tls_database;
  GTlsCertificate *client_certificate;

  /* Serializes negotiation; server_api_version is set once under it. */
  GMutex lock;
  char *server_api_version;
};

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
static GVariant *
engine_context (AgentsDockerEngine *self,
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
  docker_error_set (error, AGENTS_DOCKER_ERROR_INVALID_HOST,
                    g_variant_builder_end (&builder),
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
    docker_error_set (error, AGENTS_DOCKER_ERROR_TLS,
                      engine_context (self, method, path, 0, NULL, NULL),
                      _ ("TLS with the Docker engine at %s failed: %s"),
                      self->endpoint, owned->message);
  else if (owned->domain == SOUP_SESSION_ERROR)
    docker_error_set (error, AGENTS_DOCKER_ERROR_PROTOCOL,
                      engine_context (self, method, path, 0, NULL, NULL),
                      _ ("Docker engine at %s sent an answer to %s %s that "
                         "could not be understood: %s"),
                      self->endpoint, method, path, owned->message);
  else
    docker_error_set (error, AGENTS_DOCKER_ERROR_UNREACHABLE,
                      engine_context (self, method, path, 0, NULL, NULL),
                      _ ("Docker engine at %s is unreachable: %s"),
                      self->endpoint, owned->message);
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

static SoupMessage *
new_message (AgentsDockerEngine *self,
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
      docker_error_set (error, AGENTS_DOCKER_ERROR_PROTOCOL,
                        engine_context (self, method, path, 0, NULL, NULL),
                        _ ("Cannot send %s %s to the Docker engine at %s: %s"),
                        method, path, self->endpoint, local->message);
      return NULL;
    }
  message = soup_message_new_from_uri (method, uri);
  if (self->client_certificate != NULL)
    soup_message_set_tls_client_certificate (message, self->client_certificate);
  return message;
}

static GInputStream *
send_message (AgentsDockerEngine *self,
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
static GBytes *
read_answer (AgentsDockerEngine *self,
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
      docker_error_set (error, AGENTS_DOCKER_ERROR_PROTOCOL,
                        engine_context (self, method, path, 0, NULL, NULL),
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
  text = g_utf8_make_valid (data ? data : "", MIN (size, MAX_ENGINE_MESSAGE));
  g_strstrip (text);
  if (text[0] != '\0')
    return g_steal_pointer (&text);
  return g_strdup (reason_phrase ? reason_phrase : "");
}

static void
http_error_full (AgentsDockerEngine *self,
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
  docker_error_set (error, code,
                    engine_context (self, method, path, status, text, NULL),
                    _ ("Docker engine at %s answered %u to %s %s: %s"),
                    self->endpoint, status, method, path, text);
}

static void
http_error (AgentsDockerEngine *self,
            SoupMessage *message,
            const char *path,
            GBytes *body,
            GError **error)
{
  http_error_full (self, soup_message_get_method (message), path,
                   soup_message_get_status (message),
                   soup_message_get_reason_phrase (message), body, error);
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

      docker_error_set (error, AGENTS_DOCKER_ERROR_PROTOCOL,
                        engine_context (self, method, path, 0, NULL, NULL),
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
    new_message (self, method, path, versioned, error);
  g_autoptr (GInputStream) stream = NULL;
  g_autoptr (GBytes) answer = NULL;

  if (message == NULL)
    return NULL;
  if (body != NULL)
    set_json_body (message, body);
  stream = send_message (self, message, path, cancellable, error);
  if (stream == NULL)
    return NULL;
  if (status_out != NULL)
    *status_out = soup_message_get_status (message);
  answer = read_answer (self, message, stream, path, cancellable, error);
  if (answer == NULL)
    return NULL;
  if (soup_message_get_status (message) >= 400)
    {
      http_error (self, message, path, answer, error);
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
      docker_error_set (
        error, AGENTS_DOCKER_ERROR_API_VERSION,
        engine_context (self, "GET", "/version", 0, NULL, NULL),
        _ ("Docker engine at %s did not say which API version it speaks"),
        self->endpoint);
      return NULL;
    }
  parse_api_version (AGENTS_DOCKER_MIN_API_VERSION, ours);
  if (compare_api_versions (theirs, ours) < 0)
    {
      docker_error_set (
        error, AGENTS_DOCKER_ERROR_API_VERSION,
        engine_context (self, "GET", "/version", 0, NULL, version),
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

  if (!agents_docker_engine_negotiate (self, cancellable, error))
    return NULL;
  message = new_message (self, "HEAD", path, TRUE, error);
  if (message == NULL)
    return NULL;
  stream = send_message (self, message, path, cancellable, error);
  if (stream == NULL)
    return NULL;
  answer = read_answer (self, message, stream, path, cancellable, error);
  if (answer == NULL)
    return NULL;
  if (soup_message_get_status (message) >= 400)
    {
      http_error (self, message, path, answer, error);
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
  docker_error_set (error, AGENTS_DOCKER_ERROR_PROTOCOL,
                    engine_context (self, "HEAD", path, 0, NULL, NULL),
                    _ ("Docker engine at %s did not stat %s"), self->endpoint,
                    path);
  return NULL;
}

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
    transport_error (self->engine, self->method, self->path, local, error);
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

  if (!agents_docker_engine_negotiate (self, cancellable, error))
    return NULL;
  message = new_message (self, method, path, TRUE, error);
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
  stream = send_message (self, message, path, cancellable, &local);
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

  answer = read_answer (self, message, stream, path, cancellable, error);
  if (answer != NULL)
    http_error (self, message, path, answer, error);
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
      transport_error (self, "POST", path, local, error);
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
      transport_error (self, "POST", path, local, error);
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
      transport_error (self, "POST", path, local, error);
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
          transport_error (self, "POST", path, local, error);
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
  gsize size = (gsize) CLAMP (length, 0, MAX_ENGINE_MESSAGE);
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
      docker_error_set (error, AGENTS_DOCKER_ERROR_PROTOCOL,
                        engine_context (self, "POST", path, status, NULL, NULL),
                        _ ("Docker engine at %s did not hand over the "
                           "connection of POST %s"),
                        self->endpoint, path);
      return FALSE;
    }
  body = read_error_body (in, headers, cancellable);
  http_error_full (self, "POST", path, status, reason, body, error);
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
      docker_error_set (error, AGENTS_DOCKER_ERROR_PROTOCOL,
                        engine_context (self, "POST", path, 0, NULL, NULL),
                        _ ("Cannot send %s %s to the Docker engine at %s: %s"),
                        "POST", path, self->endpoint,
                        _ ("the path has spaces or line breaks"));
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

/* Multiplexed exec streams */

static gboolean
protocol_error (GError **error, const char *reason)
{
  g_auto (GVariantBuilder) builder =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  g_variant_builder_add (&builder, "{sv}", "reason",
                         g_variant_new_string (reason));
  docker_error_set (
    error, AGENTS_DOCKER_ERROR_PROTOCOL, g_variant_builder_end (&builder),
    _ ("The Docker engine sent a malformed exec stream: %s"), reason);
  return FALSE;
}

/* Reads exactly @size bytes; FALSE with a PROTOCOL error on an early end. */
static gboolean
read_exactly (GInputStream *in,
              void *buffer,
              gsize size,
              GCancellable *cancellable,
              GError **error)
{
  gsize n = 0;

  if (!g_input_stream_read_all (in, buffer, size, &n, cancellable, error))
    return FALSE;
  if (n < size)
    return protocol_error (error, _ ("it ends in the middle of a frame"));
  return TRUE;
}

/* Reads one frame's @length bytes, keeping what fits under @limit. */
static gboolean
read_frame (GInputStream *in,
            GByteArray *target,
            gsize length,
            gsize limit,
            gboolean *truncated,
            GCancellable *cancellable,
            GError **error)
{
  g_autofree guint8 *scratch = NULL;

  while (length > 0)
    {
      gsize kept = target ? target->len : limit;
      gsize room = kept < limit ? limit - kept : 0;
      gsize chunk = MIN (length, FRAME_CHUNK);

      if (room > 0)
        {
          chunk = MIN (chunk, room);
          g_byte_array_set_size (target, kept + chunk);
          if (!read_exactly (in, target->data + kept, chunk, cancellable,
                             error))
            return FALSE;
        }
      else
        {
          if (scratch == NULL)
            scratch = g_malloc (FRAME_CHUNK);
          if (!read_exactly (in, scratch, chunk, cancellable, error))
            return FALSE;
          if (target != NULL && truncated != NULL)
            *truncated = TRUE;
        }
      length -= chunk;
    }
  return TRUE;
}

/* Reads a frame header: FALSE at the end of the stream (no error) or on
 * an error. */
static gboolean
read_header (GInputStream *in,
             guint8 header[FRAME_HEADER_SIZE],
             GCancellable *cancellable,
             GError **error)
{
  gsize n = 0;

  if (!g_input_stream_read_all (in, header, FRAME_HEADER_SIZE, &n, cancellable,
                                error))
    return FALSE;
  if (n == 0)
    return FALSE;
  if (n < FRAME_HEADER_SIZE)
    return protocol_error (error, _ ("it ends in the middle of a frame"));
  if (header[0] > 2 || header[1] != 0 || header[2] != 0 || header[3] != 0)
    return protocol_error (error, _ ("a frame header is not valid"));
  return TRUE;
}

/**
 * agents_docker_engine_read_multiplexed:
 * @in: an exec's output stream
 * @out: (nullable): receives stdout (and stdin echoes), %NULL to drop it
 * @err: (nullable): receives stderr, %NULL to drop it
 * @limit: how many bytes to keep per stream
 * @truncated: (out) (optional): set to %TRUE when bytes were dropped
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Demultiplexes @in to its end.
 *
 * Returns: whether the whole stream was read
 */
gboolean
agents_docker_engine_read_multiplexed (GInputStream *in,
                                       GByteArray *out,
                                       GByteArray *err,
                                       gsize limit,
                                       gboolean *truncated,
                                       GCancellable *cancellable,
                                       GError **error)
{
  guint8 header[FRAME_HEADER_SIZE];

  g_return_val_if_fail (G_IS_INPUT_STREAM (in), FALSE);

  if (truncated != NULL)
    *truncated = FALSE;
  for (;;)
    {
      GError *local = NULL;
      gsize length;

      if (!read_header (in, header, cancellable, &local))
        {
          if (local == NULL)
            return TRUE;
          g_propagate_error (error, local);
          return FALSE;
        }
      guint32 be_length;

      memcpy (&be_length, header + 4, sizeof be_length);
      length = GUINT32_FROM_BE (be_length);
      if (!read_frame (in, header[0] == 2 ? err : out, length, limit, truncated,
                       cancellable, error))
        return FALSE;
    }
}

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
