/* test-docker-engine.c - the Docker Engine API connection
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Most tests talk to the real dockerd at /var/run/docker.sock and are
 * skipped when it does not answer; the others use a fake engine on
 * 127.0.0.1 or streams built in memory.
 */

#include "config.h"

#include <string.h>

#include "agents-docker-engine.h"
#include "test-utils.h"

#define DOCKER_HOST "unix:///var/run/docker.sock"
#define TEST_IMAGE "libagents-test:busybox"
#define MANAGED_LABEL "org.gnome.agents.managed"

static gboolean have_docker;

static gboolean
skip_without_docker (void)
{
  if (have_docker)
    return FALSE;
  g_test_skip ("no Docker engine at " DOCKER_HOST);
  return TRUE;
}

static AgentsDockerEngine *
engine_new (const char *host)
{
  g_autoptr (GError) error = NULL;
  AgentsDockerEngine *engine = agents_docker_engine_new (host, &error);

  g_assert_no_error (error);
  g_assert_nonnull (engine);
  return engine;
}

static void
assert_context_str (const GError *error, const char *key, const char *value)
{
  g_autoptr (GVariant) context = agents_sandbox_error_get_context (error);
  const char *actual = NULL;

  g_assert_true (g_variant_lookup (context, key, "&s", &actual));
  g_assert_cmpstr (actual, ==, value);
}

static void
assert_context_int (const GError *error, const char *key, gint32 value)
{
  g_autoptr (GVariant) context = agents_sandbox_error_get_context (error);
  gint32 actual = 0;

  g_assert_true (g_variant_lookup (context, key, "i", &actual));
  g_assert_cmpint (actual, ==, value);
}

static JsonNode *
call_json (AgentsDockerEngine *engine,
           const char *method,
           const char *path,
           const char *body_json)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) body = NULL;
  JsonNode *answer;

  if (body_json != NULL)
    {
      body = json_from_string (body_json, &error);
      g_assert_no_error (error);
    }
  answer = agents_docker_engine_call_json (engine, method, path, body, NULL,
                                           NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (answer);
  return answer;
}

/* The real engine */

static void
test_negotiate (void)
{
  g_autoptr (AgentsDockerEngine) engine = NULL;
  g_autoptr (GError) error = NULL;

  if (skip_without_docker ())
    return;

  engine = engine_new (DOCKER_HOST);
  g_assert_cmpstr (agents_docker_engine_get_endpoint (engine), ==, DOCKER_HOST);
  g_assert_null (agents_docker_engine_get_server_api_version (engine));
  g_assert_true (agents_docker_engine_negotiate (engine, NULL, &error));
  g_assert_no_error (error);
  g_assert_nonnull (agents_docker_engine_get_server_api_version (engine));
  g_assert_true (agents_docker_engine_negotiate (engine, NULL, &error));
  g_assert_no_error (error);
}

static void
test_unreachable (void)
{
  const char *hosts[] = { "unix:///nonexistent/docker.sock",
                          "tcp://127.0.0.1:1" };

  for (guint i = 0; i < G_N_ELEMENTS (hosts); i++)
    {
      g_autoptr (AgentsDockerEngine) engine = engine_new (hosts[i]);
      g_autoptr (GError) error = NULL;
      g_autoptr (JsonNode) answer = NULL;

      g_assert_false (agents_docker_engine_negotiate (engine, NULL, &error));
      g_assert_error (error, AGENTS_DOCKER_ERROR,
                      AGENTS_DOCKER_ERROR_UNREACHABLE);
      g_assert_nonnull (strstr (error->message, hosts[i]));
      g_assert_nonnull (strstr (error->message, "unreachable"));
      assert_context_str (error, "endpoint", hosts[i]);
      g_assert_null (agents_docker_engine_get_server_api_version (engine));
      g_clear_error (&error);

      answer = agents_docker_engine_call_json (engine, "GET", "/info", NULL,
                                               NULL, NULL, &error);
      g_assert_null (answer);
      g_assert_error (error, AGENTS_DOCKER_ERROR,
                      AGENTS_DOCKER_ERROR_UNREACHABLE);
    }
}

static void
test_invalid_host (void)
{
  const char *hosts[] = {
    "",
    "garbage",
    "/var/run/docker.sock",
    "ftp://example.com:21",
    "ssh://user@example.com",
    "tcp://example.com",
    "tcp://:2375",
    "tcp://example.com:notaport",
    "tcp://example.com:99999",
    "tcp://example.com:0",
    "tcp://example.com:2375/path",
    "tcp://user@example.com:2375",
    "tcp://example.com:2375?x=1",
    "unix://",
    "unix://relative/docker.sock",
  };

  for (guint i = 0; i < G_N_ELEMENTS (hosts); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (AgentsDockerEngine) engine =
        agents_docker_engine_new (hosts[i], &error);

      g_test_message ("host “%s”: %s", hosts[i],
                      error ? error->message : "accepted");
      g_assert_null (engine);
      g_assert_error (error, AGENTS_DOCKER_ERROR,
                      AGENTS_DOCKER_ERROR_INVALID_HOST);
      g_assert_nonnull (strstr (error->message, hosts[i]));
      assert_context_str (error, "endpoint", hosts[i]);
    }
}

/* Tests that change the environment run in a subprocess of their own,
 * before any thread exists. */
static gboolean
run_in_subprocess (void)
{
  if (g_test_subprocess ())
    return FALSE;
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
  return TRUE;
}

/* DOCKER_TLS_VERIFY needs the three files of DOCKER_CERT_PATH. */
static void
test_invalid_tls (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsDockerEngine) engine = NULL;

  if (run_in_subprocess ())
    return;
  g_setenv ("DOCKER_TLS_VERIFY", "1", TRUE);
  g_setenv ("DOCKER_CERT_PATH", "/nonexistent/certs", TRUE);
  engine = agents_docker_engine_new ("tcp://127.0.0.1:2376", &error);
  g_unsetenv ("DOCKER_TLS_VERIFY");
  g_unsetenv ("DOCKER_CERT_PATH");

  g_assert_null (engine);
  g_assert_error (error, AGENTS_DOCKER_ERROR, AGENTS_DOCKER_ERROR_INVALID_HOST);
  g_assert_nonnull (strstr (error->message, "tcp://127.0.0.1:2376"));
  assert_context_str (error, "endpoint", "tcp://127.0.0.1:2376");
}

static void
test_default_host (void)
{
  g_autoptr (AgentsDockerEngine) from_env = NULL;
  g_autoptr (AgentsDockerEngine) fallback = NULL;

  if (run_in_subprocess ())
    return;
  g_setenv ("DOCKER_HOST", "tcp://127.0.0.1:1", TRUE);
  from_env = engine_new (NULL);
  g_setenv ("DOCKER_HOST", "", TRUE);
  fallback = engine_new (NULL);
  g_unsetenv ("DOCKER_HOST");

  g_assert_cmpstr (agents_docker_engine_get_endpoint (from_env), ==,
                   "tcp://127.0.0.1:1");
  g_assert_cmpstr (agents_docker_engine_get_endpoint (fallback), ==,
                   DOCKER_HOST);
}

static void
test_http_error (void)
{
  g_autoptr (AgentsDockerEngine) engine = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) context = NULL;
  g_autoptr (JsonNode) answer = NULL;
  const char *engine_message = NULL;
  guint status = 0;

  if (skip_without_docker ())
    return;

  engine = engine_new (DOCKER_HOST);
  answer = agents_docker_engine_call_json (engine, "GET",
                                           "/containers/does-not-exist/json",
                                           NULL, &status, NULL, &error);
  g_assert_null (answer);
  g_assert_error (error, AGENTS_DOCKER_ERROR, AGENTS_DOCKER_ERROR_NOT_FOUND);
  g_assert_cmpuint (status, ==, 404);
  g_assert_nonnull (strstr (error->message, DOCKER_HOST));
  g_assert_nonnull (
    strstr (error->message, "404 to GET /containers/does-not-exist/json"));
  g_assert_nonnull (strstr (error->message, "No such container"));
  assert_context_str (error, "endpoint", DOCKER_HOST);
  assert_context_str (error, "method", "GET");
  assert_context_str (error, "path", "/containers/does-not-exist/json");
  assert_context_int (error, "status", 404);
  context = agents_sandbox_error_get_context (error);
  g_assert_true (
    g_variant_lookup (context, "engine_message", "&s", &engine_message));
  g_assert_nonnull (strstr (engine_message, "No such container"));
}

static void
test_json_call (void)
{
  g_autoptr (AgentsDockerEngine) engine = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) info = NULL;
  guint status = 0;

  if (skip_without_docker ())
    return;

  engine = engine_new (DOCKER_HOST);
  info = agents_docker_engine_call_json (engine, "GET", "/info", NULL, &status,
                                         NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (status, ==, 200);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (info));
  g_assert_true (
    json_object_has_member (json_node_get_object (info), "Containers"));
  g_assert_nonnull (agents_docker_engine_get_server_api_version (engine));
}

/* A container of the test image, removed whatever happens. */

typedef struct
{
  AgentsDockerEngine *engine;
  char *container_id;
} ContainerFixture;

static void
container_setup (ContainerFixture *fixture, gconstpointer data)
{
  g_autoptr (JsonNode) created = NULL;
  g_autoptr (JsonNode) started = NULL;
  g_autofree char *start_path = NULL;

  if (!have_docker)
    return;

  fixture->engine = engine_new (DOCKER_HOST);
  created =
    call_json (fixture->engine, "POST", "/containers/create",
               "{\"Image\": \"" TEST_IMAGE "\", \"Cmd\": [\"sleep\", \"600\"],"
               " \"Labels\": {\"" MANAGED_LABEL "\": \"test-engine\"},"
               " \"HostConfig\": {\"NetworkMode\": \"none\"}}");
  fixture->container_id = g_strdup (
    json_object_get_string_member (json_node_get_object (created), "Id"));
  start_path = g_strdup_printf ("/containers/%s/start", fixture->container_id);
  started = call_json (fixture->engine, "POST", start_path, NULL);
  g_assert_true (JSON_NODE_HOLDS_NULL (started));
}

static void
container_teardown (ContainerFixture *fixture, gconstpointer data)
{
  if (fixture->container_id != NULL)
    {
      g_autofree char *path = g_strdup_printf (
        "/containers/%s?force=true&v=true", fixture->container_id);
      g_autoptr (JsonNode) removed =
        call_json (fixture->engine, "DELETE", path, NULL);

      g_free (fixture->container_id);
    }
  g_clear_object (&fixture->engine);
}

/* Creates an exec of @cmd_json and returns its id. */
static char *
create_exec (ContainerFixture *fixture, const char *cmd_json)
{
  g_autofree char *path =
    g_strdup_printf ("/containers/%s/exec", fixture->container_id);
  g_autofree char *body = g_strdup_printf (
    "{\"AttachStdout\": true, \"AttachStderr\": true, \"Cmd\": %s}", cmd_json);
  g_autoptr (JsonNode) exec = call_json (fixture->engine, "POST", path, body);

  return g_strdup (
    json_object_get_string_member (json_node_get_object (exec), "Id"));
}

static GInputStream *
start_exec (ContainerFixture *fixture,
            const char *exec_id,
            GCancellable *cancellable)
{
  static const char start[] = "{\"Detach\": false, \"Tty\": false}";
  g_autoptr (GInputStream) body =
    g_memory_input_stream_new_from_data (start, strlen (start), NULL);
  g_autofree char *path = g_strdup_printf ("/exec/%s/start", exec_id);
  g_autoptr (GError) error = NULL;
  GInputStream *stream = agents_docker_engine_call_stream (
    fixture->engine, "POST", path, body, strlen (start), "application/json",
    cancellable, &error);

  g_assert_no_error (error);
  g_assert_nonnull (stream);
  return stream;
}

static gint64
exec_exit_code (ContainerFixture *fixture, const char *exec_id)
{
  g_autofree char *path = g_strdup_printf ("/exec/%s/json", exec_id);
  g_autoptr (JsonNode) inspect = call_json (fixture->engine, "GET", path, NULL);

  return json_object_get_int_member (json_node_get_object (inspect),
                                     "ExitCode");
}

#define OUTPUT_CMD                                                        \
  "[\"sh\", \"-c\", \"printf '\\\\0\\\\1\\\\2'; printf err >&2; head -c " \
  "3000000 /dev/zero\"]"

static void
run_output_exec (ContainerFixture *fixture,
                 gsize limit,
                 GByteArray *out,
                 GByteArray *err,
                 gboolean *truncated)
{
  g_autofree char *exec_id = create_exec (fixture, OUTPUT_CMD);
  g_autoptr (GInputStream) stream = start_exec (fixture, exec_id, NULL);
  g_autoptr (GError) error = NULL;

  g_assert_true (agents_docker_engine_read_multiplexed (
    stream, out, err, limit, truncated, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_input_stream_close (stream, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (exec_exit_code (fixture, exec_id), ==, 0);
}

static void
test_stream_call (ContainerFixture *fixture, gconstpointer data)
{
  g_autoptr (GByteArray) out = g_byte_array_new ();
  g_autoptr (GByteArray) err = g_byte_array_new ();
  g_autoptr (GByteArray) short_out = g_byte_array_new ();
  g_autoptr (GByteArray) short_err = g_byte_array_new ();
  g_autofree guint8 *zeros = g_malloc0 (3000000);
  gboolean truncated = TRUE;

  if (skip_without_docker ())
    return;

  run_output_exec (fixture, 8 * 1024 * 1024, out, err, &truncated);
  g_assert_false (truncated);
  g_assert_cmpuint (out->len, ==, 3000003);
  g_assert_cmpmem (out->data, 3, "\0\1\2", 3);
  g_assert_true (memcmp (out->data + 3, zeros, 3000000) == 0);
  g_assert_cmpmem (err->data, err->len, "err", 3);

  /* The same output kept to 1000 bytes per stream. */
  run_output_exec (fixture, 1000, short_out, short_err, &truncated);
  g_assert_true (truncated);
  g_assert_cmpmem (short_out->data, short_out->len, out->data, 1000);
  g_assert_cmpmem (short_err->data, short_err->len, "err", 3);
}

static gpointer
cancel_later (gpointer data)
{
  g_usleep (300 * G_TIME_SPAN_MILLISECOND);
  g_cancellable_cancel (data);
  return NULL;
}

/* The cancellable of the call interrupts a read made without one. */
static void
test_cancel (ContainerFixture *fixture, gconstpointer data)
{
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GByteArray) out = g_byte_array_new ();
  g_autoptr (GByteArray) err = g_byte_array_new ();
  g_autoptr (GInputStream) stream = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *exec_id = NULL;
  GThread *canceller;
  gint64 start;

  if (skip_without_docker ())
    return;

  exec_id = create_exec (fixture, "[\"sleep\", \"30\"]");
  stream = start_exec (fixture, exec_id, cancellable);
  start = g_get_monotonic_time ();
  canceller = g_thread_new ("cancel", cancel_later, cancellable);
  g_assert_false (agents_docker_engine_read_multiplexed (stream, out, err, 1024,
                                                         NULL, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_input_stream_close (stream, NULL, NULL);
  g_thread_join (canceller);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 5 * G_TIME_SPAN_SECOND);
  g_assert_cmpuint (out->len, ==, 0);
}

static GIOStream *
hijack_exec (ContainerFixture *fixture, const char *exec_id, GError **error)
{
  g_autofree char *path = g_strdup_printf ("/exec/%s/start", exec_id);

  return agents_docker_engine_hijack (
    fixture->engine, path, "{\"Detach\": false, \"Tty\": false}", NULL, error);
}

/* stdin through a hijacked connection, binary, ended by a half close. */
static void
test_hijack (ContainerFixture *fixture, gconstpointer data)
{
  g_autoptr (GByteArray) out = g_byte_array_new ();
  g_autoptr (GByteArray) err = g_byte_array_new ();
  g_autoptr (GIOStream) connection = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *exec_id = NULL;
  g_autoptr (JsonNode) exec = NULL;
  gboolean truncated = TRUE;

  if (skip_without_docker ())
    return;

  path = g_strdup_printf ("/containers/%s/exec", fixture->container_id);
  exec = call_json (fixture->engine, "POST", path,
                    "{\"AttachStdin\": true, \"AttachStdout\": true,"
                    " \"AttachStderr\": true, \"Cmd\": [\"cat\"]}");
  exec_id = g_strdup (
    json_object_get_string_member (json_node_get_object (exec), "Id"));
  connection = hijack_exec (fixture, exec_id, &error);
  g_assert_no_error (error);
  g_assert_true (G_IS_SOCKET_CONNECTION (connection));

  g_assert_true (
    g_output_stream_write_all (g_io_stream_get_output_stream (connection),
                               "hello\0\377world", 12, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_socket_shutdown (
    g_socket_connection_get_socket (G_SOCKET_CONNECTION (connection)), FALSE,
    TRUE, &error));
  g_assert_no_error (error);
  g_assert_true (agents_docker_engine_read_multiplexed (
    g_io_stream_get_input_stream (connection), out, err, 1024, &truncated, NULL,
    &error));
  g_assert_no_error (error);
  g_assert_false (truncated);
  g_assert_cmpmem (out->data, out->len, "hello\0\377world", 12);
  g_assert_cmpuint (err->len, ==, 0);
  g_assert_cmpint (exec_exit_code (fixture, exec_id), ==, 0);
}

static void
test_hijack_error (ContainerFixture *fixture, gconstpointer data)
{
  g_autoptr (GIOStream) connection = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) context = NULL;
  const char *engine_message = NULL;

  if (skip_without_docker ())
    return;

  connection = hijack_exec (fixture, "does-not-exist", &error);
  g_assert_null (connection);
  g_assert_error (error, AGENTS_DOCKER_ERROR, AGENTS_DOCKER_ERROR_NOT_FOUND);
  assert_context_int (error, "status", 404);
  assert_context_str (error, "path", "/exec/does-not-exist/start");
  context = agents_sandbox_error_get_context (error);
  g_assert_true (
    g_variant_lookup (context, "engine_message", "&s", &engine_message));
  g_assert_nonnull (strstr (engine_message, "does-not-exist"));
}

#define THREADS 4
#define PINGS 50

static gpointer
ping_many (gpointer data)
{
  AgentsDockerEngine *engine = data;
  guint ok = 0;

  for (guint i = 0; i < PINGS; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (JsonNode) answer = agents_docker_engine_call_json (
        engine, "GET", "/_ping", NULL, NULL, NULL, &error);

      if (answer != NULL && JSON_NODE_HOLDS_VALUE (answer) &&
          g_strcmp0 (json_node_get_string (answer), "OK") == 0)
        ok++;
      else
        g_printerr ("ping failed: %s\n", error ? error->message : "bad answer");
    }
  return GUINT_TO_POINTER (ok);
}

static void
test_threads (void)
{
  g_autoptr (AgentsDockerEngine) engine = NULL;
  GThread *threads[THREADS];
  guint ok = 0;

  if (skip_without_docker ())
    return;

  /* Negotiation happens in the threads too, at the same time. */
  engine = engine_new (DOCKER_HOST);
  for (guint i = 0; i < THREADS; i++)
    threads[i] = g_thread_new ("ping", ping_many, engine);
  for (guint i = 0; i < THREADS; i++)
    ok += GPOINTER_TO_UINT (g_thread_join (threads[i]));
  g_assert_cmpuint (ok, ==, THREADS * PINGS);
}

/* A fake engine on 127.0.0.1, served one connection at a time by a
 * thread (plain sockets: libsoup 3.2's server leaks its connections).
 * Its /version answers fake->version_body; other paths answer by name. */

typedef struct
{
  GThread *thread;
  GSocket *socket;
  GCancellable *stop;
  char *host;
  GMutex lock;
  char *version_body;
  guint version_requests;
} FakeEngine;

static void
send_all (GSocket *socket, const char *data, gsize size)
{
  while (size > 0)
    {
      gssize n = g_socket_send (socket, data, size, NULL, NULL);

      if (n <= 0)
        return; /* The client went away. */
      data += n;
      size -= n;
    }
}

static void
send_answer (GSocket *socket,
             const char *status,
             const char *type,
             const char *body,
             gsize size)
{
  g_autofree char *head = g_strdup_printf (
    "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %" G_GSIZE_FORMAT
    "\r\nConnection: close\r\n\r\n",
    status, type, size);

  send_all (socket, head, strlen (head));
  send_all (socket, body, size);
}

static char *
fake_engine_version (FakeEngine *fake)
{
  g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&fake->lock);

  fake->version_requests++;
  return g_strdup (fake->version_body);
}

static void
answer_huge (GSocket *socket)
{
  gsize size = 17 * 1024 * 1024;
  g_autofree char *body = g_malloc (size);

  memset (body, ' ', size);
  send_answer (socket, "200 OK", "application/json", body, size);
}

static void
answer (FakeEngine *fake, GSocket *socket, const char *path)
{
  static const char cut[] = "HTTP/1.1 200 OK\r\nContent-Type: "
                            "application/json\r\nContent-Length: 100\r\n\r\n"
                            "{\"Id\": ";
  static const char garbage[] = "NOT HTTP AT ALL\r\n\r\n";
  static const char conflict[] = "{\"message\": \"name in use\"}";

  if (g_str_equal (path, "/version"))
    {
      g_autofree char *body = fake_engine_version (fake);

      send_answer (socket, "200 OK", "application/json", body, strlen (body));
    }
  else if (g_str_equal (path, "/v1.41/fail500"))
    send_answer (socket, "500 Internal Server Error", "text/plain", " boom\n",
                 6);
  else if (g_str_equal (path, "/v1.41/conflict"))
    send_answer (socket, "409 Conflict", "application/json", conflict,
                 strlen (conflict));
  else if (g_str_equal (path, "/v1.41/huge"))
    answer_huge (socket);
  else if (g_str_equal (path, "/v1.41/empty"))
    send_answer (socket, "204 No Content", "text/plain", "", 0);
  else if (g_str_equal (path, "/v1.41/cut"))
    send_all (socket, cut, strlen (cut));
  else if (g_str_equal (path, "/v1.41/garbage"))
    send_all (socket, garbage, strlen (garbage));
  else if (!g_str_equal (path, "/v1.41/hangup"))
    send_answer (socket, "404 Not Found", "text/plain", "", 0);
}

/* Reads a request's head and returns its path. */
static char *
read_request_path (GSocket *socket)
{
  g_autoptr (GString) head = g_string_new (NULL);
  char buffer[4096];
  g_auto (GStrv) words = NULL;

  while (strstr (head->str, "\r\n\r\n") == NULL && head->len < 65536)
    {
      gssize n = g_socket_receive (socket, buffer, sizeof buffer, NULL, NULL);

      if (n <= 0)
        return NULL;
      g_string_append_len (head, buffer, n);
    }
  words = g_strsplit (head->str, " ", 3);
  if (g_strv_length (words) < 3)
    return NULL;
  return g_strdup (words[1]);
}

static gpointer
fake_engine_run (gpointer data)
{
  FakeEngine *fake = data;

  for (;;)
    {
      g_autoptr (GSocket) client =
        g_socket_accept (fake->socket, fake->stop, NULL);
      g_autofree char *path = NULL;

      if (client == NULL)
        return NULL;
      path = read_request_path (client);
      if (path != NULL)
        answer (fake, client, path);
      g_socket_shutdown (client, FALSE, TRUE, NULL);
      g_socket_close (client, NULL);
    }
}

static FakeEngine *
fake_engine_new (const char *version_body)
{
  FakeEngine *fake = g_new0 (FakeEngine, 1);
  g_autoptr (GInetAddress) loopback =
    g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr (GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
  g_autoptr (GSocketAddress) bound = NULL;
  g_autoptr (GError) error = NULL;

  g_mutex_init (&fake->lock);
  fake->version_body = g_strdup (version_body);
  fake->stop = g_cancellable_new ();
  fake->socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                               G_SOCKET_PROTOCOL_TCP, &error);
  g_assert_no_error (error);
  g_assert_true (g_socket_bind (fake->socket, any, TRUE, &error));
  g_assert_true (g_socket_listen (fake->socket, &error));
  g_assert_no_error (error);
  bound = g_socket_get_local_address (fake->socket, &error);
  g_assert_no_error (error);
  fake->host = g_strdup_printf (
    "tcp://127.0.0.1:%u",
    g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound)));
  fake->thread = g_thread_new ("fake-engine", fake_engine_run, fake);
  return fake;
}

static void
fake_engine_set_version (FakeEngine *fake, const char *version_body)
{
  g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&fake->lock);

  g_free (fake->version_body);
  fake->version_body = g_strdup (version_body);
}

static guint
fake_engine_version_requests (FakeEngine *fake)
{
  g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&fake->lock);

  return fake->version_requests;
}

static void
fake_engine_free (FakeEngine *fake)
{
  g_cancellable_cancel (fake->stop);
  g_thread_join (fake->thread);
  g_socket_close (fake->socket, NULL);
  g_object_unref (fake->socket);
  g_object_unref (fake->stop);
  g_mutex_clear (&fake->lock);
  g_free (fake->host);
  g_free (fake->version_body);
  g_free (fake);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FakeEngine, fake_engine_free)

static GError *
negotiate_error (FakeEngine *fake)
{
  g_autoptr (AgentsDockerEngine) engine = engine_new (fake->host);
  GError *error = NULL;

  g_assert_false (agents_docker_engine_negotiate (engine, NULL, &error));
  g_assert_nonnull (error);
  g_assert_null (agents_docker_engine_get_server_api_version (engine));
  return error;
}

/* An engine too old, one whose answer is not JSON (a PROTOCOL error: the
 * answer could not be understood at all) and one that does not say its
 * version (an API_VERSION error). Versions compare per number: 1.5 is
 * older than 1.41. */
static void
test_api_too_old (void)
{
  g_autoptr (FakeEngine) fake = fake_engine_new ("{\"ApiVersion\": \"1.24\"}");
  g_autoptr (GError) old = negotiate_error (fake);
  g_autoptr (GError) older = NULL;
  g_autoptr (GError) garbage = NULL;
  g_autoptr (GError) unsaid = NULL;
  g_autofree char *expected = g_strdup_printf (
    "Docker engine at %s speaks API 1.24; libagents needs 1.41 or newer",
    fake->host);

  g_assert_error (old, AGENTS_DOCKER_ERROR, AGENTS_DOCKER_ERROR_API_VERSION);
  g_assert_cmpstr (old->message, ==, expected);
  assert_context_str (old, "endpoint", fake->host);
  assert_context_str (old, "api_version", "1.24");

  fake_engine_set_version (fake, "{\"ApiVersion\": \"1.5\"}");
  older = negotiate_error (fake);
  g_assert_error (older, AGENTS_DOCKER_ERROR, AGENTS_DOCKER_ERROR_API_VERSION);
  assert_context_str (older, "api_version", "1.5");

  fake_engine_set_version (fake, "{\"ApiVersion\": 1.41, garbage");
  garbage = negotiate_error (fake);
  g_assert_error (garbage, AGENTS_DOCKER_ERROR, AGENTS_DOCKER_ERROR_PROTOCOL);
  g_assert_nonnull (strstr (garbage->message, fake->host));
  assert_context_str (garbage, "endpoint", fake->host);

  fake_engine_set_version (fake, "{\"ApiVersion\": {\"x\": 1}}");
  unsaid = negotiate_error (fake);
  g_assert_error (unsaid, AGENTS_DOCKER_ERROR, AGENTS_DOCKER_ERROR_API_VERSION);
  assert_context_str (unsaid, "endpoint", fake->host);
}

/* A failure is not remembered (the engine may be upgraded or restarted);
 * a success is. */
static void
test_negotiate_retry (void)
{
  g_autoptr (FakeEngine) fake = fake_engine_new ("{\"ApiVersion\": \"1.24\"}");
  g_autoptr (AgentsDockerEngine) engine = engine_new (fake->host);
  g_autoptr (GError) error = NULL;

  g_assert_false (agents_docker_engine_negotiate (engine, NULL, &error));
  g_assert_error (error, AGENTS_DOCKER_ERROR, AGENTS_DOCKER_ERROR_API_VERSION);
  g_clear_error (&error);

  fake_engine_set_version (fake, "{\"ApiVersion\": \"1.100\"}");
  g_assert_true (agents_docker_engine_negotiate (engine, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (agents_docker_engine_get_server_api_version (engine), ==,
                   "1.100");
  g_assert_cmpuint (fake_engine_version_requests (fake), ==, 2);

  fake_engine_set_version (fake, "{\"ApiVersion\": \"1.24\"}");
  g_assert_true (agents_docker_engine_negotiate (engine, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (fake_engine_version_requests (fake), ==, 2);
}

static GError *
fake_call_error (AgentsDockerEngine *engine,
                 const char *path,
                 guint expected_status)
{
  GError *error = NULL;
  guint status = 0;
  g_autoptr (JsonNode) answer = agents_docker_engine_call_json (
    engine, "GET", path, NULL, &status, NULL, &error);

  g_assert_null (answer);
  g_assert_nonnull (error);
  g_assert_cmpuint (status, ==, expected_status);
  return error;
}

/* Error statuses, an oversized answer and an empty one. */
static void
test_fake_answers (void)
{
  g_autoptr (FakeEngine) fake = fake_engine_new ("{\"ApiVersion\": \"1.41\"}");
  g_autoptr (AgentsDockerEngine) engine = engine_new (fake->host);
  g_autoptr (GError) failed = fake_call_error (engine, "/fail500", 500);
  g_autoptr (GError) conflict = fake_call_error (engine, "/conflict", 409);
  g_autoptr (GError) huge = fake_call_error (engine, "/huge", 200);
  g_autoptr (JsonNode) empty = call_json (engine, "GET", "/empty", NULL);
  g_autofree char *expected = g_strdup_printf (
    "Docker engine at %s answered 500 to GET /fail500: boom", fake->host);

  g_assert_error (failed, AGENTS_DOCKER_ERROR, AGENTS_DOCKER_ERROR_HTTP);
  g_assert_cmpstr (failed->message, ==, expected);
  assert_context_str (failed, "engine_message", "boom");
  assert_context_int (failed, "status", 500);

  g_assert_error (conflict, AGENTS_DOCKER_ERROR, AGENTS_DOCKER_ERROR_CONFLICT);
  assert_context_str (conflict, "engine_message", "name in use");
  assert_context_str (conflict, "path", "/conflict");

  g_assert_error (huge, AGENTS_DOCKER_ERROR, AGENTS_DOCKER_ERROR_PROTOCOL);
  g_assert_true (JSON_NODE_HOLDS_NULL (empty));
}

/* Connections that break: an answer cut short, no answer at all, and an
 * answer that is not HTTP. */
static void
test_broken_answers (void)
{
  g_autoptr (FakeEngine) fake = fake_engine_new ("{\"ApiVersion\": \"1.41\"}");
  g_autoptr (AgentsDockerEngine) engine = engine_new (fake->host);
  g_autoptr (GError) cut = fake_call_error (engine, "/cut", 200);
  g_autoptr (GError) hangup = fake_call_error (engine, "/hangup", 0);
  g_autoptr (GError) garbage = fake_call_error (engine, "/garbage", 0);

  g_assert_error (cut, AGENTS_DOCKER_ERROR, AGENTS_DOCKER_ERROR_UNREACHABLE);
  g_assert_nonnull (strstr (cut->message, fake->host));
  assert_context_str (cut, "endpoint", fake->host);
  assert_context_str (cut, "path", "/cut");
  g_assert_error (hangup, AGENTS_DOCKER_ERROR, AGENTS_DOCKER_ERROR_UNREACHABLE);
  g_assert_error (garbage, AGENTS_DOCKER_ERROR, AGENTS_DOCKER_ERROR_PROTOCOL);
  assert_context_str (garbage, "endpoint", fake->host);
}

/* Multiplexed streams built in memory */

static void
add_frame (GByteArray *stream, guint8 kind, const void *data, guint32 length)
{
  guint8 header[8] = { kind, 0, 0, 0 };
  guint32 be_length = GUINT32_TO_BE (length);

  memcpy (header + 4, &be_length, 4);
  g_byte_array_append (stream, header, 8);
  g_byte_array_append (stream, data, length);
}

static gboolean
demux (GByteArray *stream,
       gsize limit,
       GByteArray *out,
       GByteArray *err,
       gboolean *truncated,
       GError **error)
{
  g_autoptr (GInputStream) in = g_memory_input_stream_new_from_data (
    g_memdup2 (stream->data, stream->len), stream->len, g_free);

  return agents_docker_engine_read_multiplexed (in, out, err, limit, truncated,
                                                NULL, error);
}

static void
test_multiplexed_parse (void)
{
  g_autoptr (GByteArray) stream = g_byte_array_new ();
  g_autoptr (GByteArray) out = g_byte_array_new ();
  g_autoptr (GByteArray) err = g_byte_array_new ();
  g_autoptr (GError) error = NULL;
  gboolean truncated = TRUE;

  /* Empty stream. */
  g_assert_true (demux (stream, 100, out, err, &truncated, &error));
  g_assert_no_error (error);
  g_assert_false (truncated);
  g_assert_cmpuint (out->len + err->len, ==, 0);

  /* Binary, interleaved, zero-length and stdin frames. */
  add_frame (stream, 1, "\0\1\2\377", 4);
  add_frame (stream, 2, "e\0r", 3);
  add_frame (stream, 1, "", 0);
  add_frame (stream, 0, "in", 2);
  add_frame (stream, 2, "\n", 1);
  add_frame (stream, 1, "\r\n", 2);
  g_assert_true (demux (stream, 100, out, err, &truncated, &error));
  g_assert_no_error (error);
  g_assert_false (truncated);
  g_assert_cmpmem (out->data, out->len, "\0\1\2\377in\r\n", 8);
  g_assert_cmpmem (err->data, err->len, "e\0r\n", 4);

  /* Kept to 5 bytes per stream, the rest read and dropped. */
  g_byte_array_set_size (out, 0);
  g_byte_array_set_size (err, 0);
  g_assert_true (demux (stream, 5, out, err, &truncated, &error));
  g_assert_no_error (error);
  g_assert_true (truncated);
  g_assert_cmpmem (out->data, out->len, "\0\1\2\377i", 5);
  g_assert_cmpmem (err->data, err->len, "e\0r\n", 4);
}

static void
assert_malformed (GByteArray *stream)
{
  g_autoptr (GByteArray) out = g_byte_array_new ();
  g_autoptr (GByteArray) err = g_byte_array_new ();
  g_autoptr (GError) error = NULL;

  g_assert_false (demux (stream, 100, out, err, NULL, &error));
  g_assert_error (error, AGENTS_DOCKER_ERROR, AGENTS_DOCKER_ERROR_PROTOCOL);
}

static void
test_multiplexed_malformed (void)
{
  static const guint8 bad_kind[] = { 3, 0, 0, 0, 0, 0, 0, 1, 'x' };
  static const guint8 bad_padding[] = { 1, 0, 1, 0, 0, 0, 0, 1, 'x' };
  static const guint8 short_header[] = { 1, 0, 0, 0, 0 };
  static const guint8 short_frame[] = { 1, 0, 0, 0, 0, 0, 0, 10, 'a', 'b' };
  const struct
  {
    const guint8 *data;
    gsize size;
  } cases[] = {
    { bad_kind, sizeof bad_kind },
    { bad_padding, sizeof bad_padding },
    { short_header, sizeof short_header },
    { short_frame, sizeof short_frame },
    /* Text where a header should be. */
    { (const guint8 *) "HTTP/1.1 200 OK\r\n", 17 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GByteArray) stream = g_byte_array_new ();

      add_frame (stream, 1, "ok", 2);
      g_byte_array_append (stream, cases[i].data, cases[i].size);
      assert_malformed (stream);
    }
}

static void
test_escape (void)
{
  g_autofree char *escaped = agents_docker_engine_escape ("a b/c?d=e&f\"{}");

  g_assert_cmpstr (escaped, ==, "a%20b%2Fc%3Fd%3De%26f%22%7B%7D");
}

static gboolean
docker_is_running (void)
{
  g_autoptr (AgentsDockerEngine) engine = engine_new (DOCKER_HOST);
  g_autoptr (GError) error = NULL;

  if (agents_docker_engine_negotiate (engine, NULL, &error))
    return TRUE;
  g_printerr ("# %s\n", error->message);
  return FALSE;
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  /* A subprocess runs one test that does not need the engine. */
  have_docker = !g_test_subprocess () && docker_is_running ();

  g_test_add_func ("/docker/engine/negotiate", test_negotiate);
  g_test_add_func ("/docker/engine/unreachable", test_unreachable);
  g_test_add_func ("/docker/engine/invalid-host", test_invalid_host);
  g_test_add_func ("/docker/engine/invalid-tls", test_invalid_tls);
  g_test_add_func ("/docker/engine/default-host", test_default_host);
  g_test_add_func ("/docker/engine/api-too-old", test_api_too_old);
  g_test_add_func ("/docker/engine/negotiate-retry", test_negotiate_retry);
  g_test_add_func ("/docker/engine/fake-answers", test_fake_answers);
  g_test_add_func ("/docker/engine/broken-answers", test_broken_answers);
  g_test_add_func ("/docker/engine/http-error", test_http_error);
  g_test_add_func ("/docker/engine/json-call", test_json_call);
  g_test_add ("/docker/engine/stream-call", ContainerFixture, NULL,
              container_setup, test_stream_call, container_teardown);
  g_test_add_func ("/docker/engine/multiplexed-parse", test_multiplexed_parse);
  g_test_add_func ("/docker/engine/multiplexed-malformed",
                   test_multiplexed_malformed);
  g_test_add_func ("/docker/engine/escape", test_escape);
  g_test_add_func ("/docker/engine/threads", test_threads);
  g_test_add ("/docker/engine/cancel", ContainerFixture, NULL, container_setup,
              test_cancel, container_teardown);
  g_test_add ("/docker/engine/hijack", ContainerFixture, NULL, container_setup,
              test_hijack, container_teardown);
  g_test_add ("/docker/engine/hijack-error", ContainerFixture, NULL,
              container_setup, test_hijack_error, container_teardown);

  return g_test_run ();
}
