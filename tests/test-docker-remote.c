/* test-docker-remote.c - the docker backend against private engines
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * These tests start dockerds of their own, in a short temporary
 * directory each, so that they can stop and restart an engine without
 * disturbing the shared one the other docker tests use in parallel:
 *
 * - the "plain" engine listens on a unix socket and on tcp://127.0.0.1
 *   without TLS: remote connections, and the engine faults (stopped
 *   mid-session and restarted, containers killed or removed from
 *   outside);
 * - the "tls" engine listens on tcp://127.0.0.1 with --tlsverify and
 *   certificates made with openssl at test time.
 *
 * Each dockerd runs under tests/docker/private-dockerd.sh, which stops
 * it, unmounts what it left and removes its directory when told to, or
 * when this program goes away for any reason (its stdin closes). The
 * engines start when a test first needs them; the last test stops them
 * and checks that nothing is left. Both need root and dockerd; the TLS
 * engine needs openssl and a GIO TLS backend (glib-networking).
 */

#include "config.h"

#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "agents-docker-client.h"
#include "agents-docker-container.h"
#include "agents-docker-engine.h"
#include "agents-docker-session.h"
#include "agents-sandbox-session-private.h"
#include "docker-test-utils.h"
#include "test-utils.h"

/* How long a dockerd may take to answer /_ping after it was started. */
#define READY_TIMEOUT_US (90 * G_USEC_PER_SEC)
/* Longest sun_path less what dockerd and containerd put under the
 * directory ("/exec/containerd/containerd.sock.ttrpc" and the like). */
#define MAX_ENGINE_DIR 60

typedef struct
{
  const char *name;
  gboolean tls;

  char *dir;
  char *unix_host;  /* unix://DIR/docker.sock */
  char *tcp_host;   /* tcp://127.0.0.1:PORT */
  char *https_host; /* https://127.0.0.1:PORT */
  char **dockerd_argv;
  GSubprocess *supervisor;
  GDataInputStream *replies;
  int dockerd_pid; /* 0 while stopped */

  /* Why the engine cannot be had: skip (the machine lacks something) or
   * fail (it should have worked). */
  char *skip_reason;
  char *fail_reason;
  gboolean set_up;
} PrivateEngine;

static PrivateEngine plain_engine = { .name = "plain", .tls = FALSE };
static PrivateEngine tls_engine = { .name = "tls", .tls = TRUE };

/* ---- processes, mounts, files ----------------------------------------- */

/* Runs @argv to its end; FALSE with what it said in *@why otherwise. */
static gboolean
run_program (const char *const *argv, char **envp, char **why)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr (GError) error = NULL;
  int status = 0;

  if (!g_spawn_sync (NULL, (char **) argv, envp, G_SPAWN_SEARCH_PATH, NULL,
                     NULL, &out, &err, &status, &error) ||
      !g_spawn_check_wait_status (status, &error))
    {
      *why = g_strdup_printf ("%s: %s\n%s%s", argv[0], error->message,
                              out ? out : "", err ? err : "");
      return FALSE;
    }
  return TRUE;
}

/* Whether @pid is a live process (a zombie is not). */
static gboolean
process_alive (int pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/status", pid);
  g_autofree char *status = NULL;

  if (pid <= 0 || !g_file_get_contents (path, &status, NULL, NULL))
    return FALSE;
  return strstr (status, "\nState:\tZ") == NULL;
}

/* The processes whose command line names a path under @dir. */
static GPtrArray *
processes_under (const char *dir)
{
  GPtrArray *found = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *needle = g_strconcat (dir, "/", NULL);
  GDir *proc = g_dir_open ("/proc", 0, NULL);
  const char *name;

  while (proc != NULL && (name = g_dir_read_name (proc)) != NULL)
    {
      g_autofree char *path = g_build_filename ("/proc", name, "cmdline", NULL);
      g_autofree char *cmdline = NULL;
      gsize length = 0;

      if (!g_ascii_isdigit (name[0]) ||
          !g_file_get_contents (path, &cmdline, &length, NULL))
        continue;
      for (gsize i = 0; i < length; i++)
        if (cmdline[i] == '\0')
          cmdline[i] = ' ';
      if (strstr (cmdline, needle) != NULL)
        g_ptr_array_add (found, g_strdup_printf ("%s: %s", name, cmdline));
    }
  if (proc != NULL)
    g_dir_close (proc);
  return found;
}

/* The mount points at or under @dir. */
static GPtrArray *
mounts_under (const char *dir)
{
  GPtrArray *found = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *mounts = NULL;
  g_auto (GStrv) lines = NULL;
  gsize dir_len = strlen (dir);

  g_assert_true (g_file_get_contents ("/proc/mounts", &mounts, NULL, NULL));
  lines = g_strsplit (mounts, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto (GStrv) fields = g_strsplit (lines[i], " ", 3);

      if (g_strv_length (fields) >= 2 && g_str_has_prefix (fields[1], dir) &&
          (fields[1][dir_len] == '\0' || fields[1][dir_len] == '/'))
        g_ptr_array_add (found, g_strdup (fields[1]));
    }
  return found;
}

static guint16
free_port (void)
{
  g_autoptr (GSocket) socket = NULL;
  g_autoptr (GInetAddress) loopback = NULL;
  g_autoptr (GSocketAddress) any = NULL;
  g_autoptr (GSocketAddress) bound = NULL;
  g_autoptr (GError) error = NULL;

  socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                         G_SOCKET_PROTOCOL_TCP, &error);
  g_assert_no_error (error);
  loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  any = g_inet_socket_address_new (loopback, 0);
  g_socket_bind (socket, any, FALSE, &error);
  g_assert_no_error (error);
  bound = g_socket_get_local_address (socket, &error);
  g_assert_no_error (error);
  /* Closed again for dockerd to take: nothing else on this machine is
   * expected to grab this very port in between. */
  return g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
}

/* ---- certificates ----------------------------------------------------- */

static gboolean
openssl (char **why, ...)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  const char *arg;
  va_list args;

  g_ptr_array_add (argv, (gpointer) "openssl");
  va_start (args, why);
  while ((arg = va_arg (args, const char *)) != NULL)
    g_ptr_array_add (argv, (gpointer) arg);
  va_end (args);
  g_ptr_array_add (argv, NULL);
  return run_program ((const char *const *) argv->pdata, NULL, why);
}

/* A self-signed CA in @dir/ca.pem and @dir/ca-key.pem. */
static gboolean
make_ca (const char *dir, const char *cn, char **why)
{
  g_autofree char *cert = g_build_filename (dir, "ca.pem", NULL);
  g_autofree char *key = g_build_filename (dir, "ca-key.pem", NULL);
  g_autofree char *subject = g_strdup_printf ("/CN=%s", cn);

  return openssl (why, "req", "-x509", "-newkey", "ec", "-pkeyopt",
                  "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
                  "-out", cert, "-days", "2", "-subj", subject, "-addext",
                  "basicConstraints=critical,CA:TRUE", "-addext",
                  "keyUsage=critical,keyCertSign,cRLSign", NULL);
}

/* A key and a certificate signed by the CA of @ca_dir; @extensions are
 * the certificate's v3 extensions. */
static gboolean
make_cert (const char *ca_dir,
           const char *cert,
           const char *key,
           const char *cn,
           const char *extensions,
           char **why)
{
  g_autofree char *ca = g_build_filename (ca_dir, "ca.pem", NULL);
  g_autofree char *ca_key = g_build_filename (ca_dir, "ca-key.pem", NULL);
  g_autofree char *csr = g_strconcat (cert, ".csr", NULL);
  g_autofree char *ext = g_strconcat (cert, ".ext", NULL);
  g_autofree char *subject = g_strdup_printf ("/CN=%s", cn);
  g_autofree char *serial = g_strdup_printf ("%u", g_random_int ());

  g_assert_true (g_file_set_contents (ext, extensions, -1, NULL));
  return openssl (why, "req", "-newkey", "ec", "-pkeyopt",
                  "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
                  "-out", csr, "-subj", subject, NULL) &&
         openssl (why, "x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key,
                  "-set_serial", serial, "-days", "2", "-extfile", ext, "-out",
                  cert, NULL);
}

#define SERVER_EXTENSIONS \
  "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n"
#define CLIENT_EXTENSIONS "extendedKeyUsage=clientAuth\n"

/* Under DIR/certs: the engine's ca.pem, server-cert.pem and
 * server-key.pem, and three DOCKER_CERT_PATH directories for clients:
 * good/ (ca.pem, cert.pem, key.pem), only-ca/ (ca.pem) and wrong-ca/
 * (another CA, with a client certificate of its own). */
static gboolean
make_certificates (const char *dir, char **why)
{
  g_autofree char *certs = g_build_filename (dir, "certs", NULL);
  g_autofree char *other = g_build_filename (certs, "other-ca", NULL);
  const char *clients[] = { "good", "only-ca", "wrong-ca" };
  g_autofree char *ca = g_build_filename (certs, "ca.pem", NULL);
  g_autofree char *ca_data = NULL;
  g_autofree char *server_cert = NULL;
  g_autofree char *server_key = NULL;
  g_autofree char *client_cert = NULL;
  g_autofree char *client_key = NULL;
  g_autofree char *other_ca = NULL;
  g_autofree char *other_cert = NULL;
  g_autofree char *other_key = NULL;
  g_autofree char *only_ca = NULL;
  g_autofree char *other_data = NULL;

  g_assert_cmpint (g_mkdir_with_parents (other, 0700), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (clients); i++)
    {
      g_autofree char *client = g_build_filename (certs, clients[i], NULL);

      g_assert_cmpint (g_mkdir_with_parents (client, 0700), ==, 0);
    }
  server_cert = g_build_filename (certs, "server-cert.pem", NULL);
  server_key = g_build_filename (certs, "server-key.pem", NULL);
  client_cert = g_build_filename (certs, "good", "cert.pem", NULL);
  client_key = g_build_filename (certs, "good", "key.pem", NULL);
  other_cert = g_build_filename (certs, "wrong-ca", "cert.pem", NULL);
  other_key = g_build_filename (certs, "wrong-ca", "key.pem", NULL);
  if (!make_ca (certs, "libagents test CA", why) ||
      !make_ca (other, "another CA", why) ||
      !make_cert (certs, server_cert, server_key, "127.0.0.1",
                  SERVER_EXTENSIONS, why) ||
      !make_cert (certs, client_cert, client_key, "libagents test client",
                  CLIENT_EXTENSIONS, why) ||
      !make_cert (other, other_cert, other_key, "libagents test client",
                  CLIENT_EXTENSIONS, why))
    return FALSE;

  /* The CA files of the client directories. */
  g_assert_true (g_file_get_contents (ca, &ca_data, NULL, NULL));
  other_ca = g_build_filename (other, "ca.pem", NULL);
  g_assert_true (g_file_get_contents (other_ca, &other_data, NULL, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (clients); i++)
    {
      g_autofree char *path =
        g_build_filename (certs, clients[i], "ca.pem", NULL);

      g_assert_true (g_file_set_contents (
        path, g_str_equal (clients[i], "wrong-ca") ? other_data : ca_data, -1,
        NULL));
    }
  return TRUE;
}

static char *
cert_dir (PrivateEngine *engine, const char *client)
{
  return g_build_filename (engine->dir, "certs", client, NULL);
}

/* ---- the private engines ---------------------------------------------- */

static AgentsDockerEngine *
engine_api (PrivateEngine *engine)
{
  g_autoptr (GError) error = NULL;
  AgentsDockerEngine *api =
    agents_docker_engine_new (engine->unix_host, &error);

  g_assert_no_error (error);
  return api;
}

static char *
engine_log_tail (PrivateEngine *engine)
{
  g_autofree char *path = g_build_filename (engine->dir, "dockerd.log", NULL);
  g_autofree char *log = NULL;
  gsize length = 0;

  if (!g_file_get_contents (path, &log, &length, NULL))
    return g_strdup ("(no log)");
  return g_strdup (log + (length > 3000 ? length - 3000 : 0));
}

/* Sends @command to the supervisor and returns its answer. */
static char *
supervisor_ask (PrivateEngine *engine, const char *command)
{
  GOutputStream *in = g_subprocess_get_stdin_pipe (engine->supervisor);
  g_autofree char *line = g_strconcat (command, "\n", NULL);
  g_autoptr (GError) error = NULL;
  char *answer;

  g_output_stream_write_all (in, line, strlen (line), NULL, NULL, &error);
  g_assert_no_error (error);
  g_output_stream_flush (in, NULL, &error);
  g_assert_no_error (error);
  answer =
    g_data_input_stream_read_line_utf8 (engine->replies, NULL, NULL, &error);
  g_assert_no_error (error);
  if (answer == NULL)
    g_error ("private-dockerd.sh for the %s engine ended without answering %s",
             engine->name, command);
  return answer;
}

static void
child_setsid (gpointer user_data)
{
  setsid ();
}

static void
supervisor_spawn (PrivateEngine *engine)
{
  g_autofree char *script =
    g_test_build_filename (G_TEST_DIST, "docker", "private-dockerd.sh", NULL);
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE |
                                        G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  /* dockerd takes defaults for its TLS flags from these. */
  g_subprocess_launcher_unsetenv (launcher, "DOCKER_TLS_VERIFY");
  g_subprocess_launcher_unsetenv (launcher, "DOCKER_CERT_PATH");
  g_subprocess_launcher_unsetenv (launcher, "DOCKER_HOST");
  g_subprocess_launcher_set_child_setup (launcher, child_setsid, NULL, NULL);

  g_ptr_array_add (argv, (gpointer) "sh");
  g_ptr_array_add (argv, script);
  g_ptr_array_add (argv, engine->dir);
  for (guint i = 0; engine->dockerd_argv[i] != NULL; i++)
    g_ptr_array_add (argv, engine->dockerd_argv[i]);
  g_ptr_array_add (argv, NULL);
  engine->supervisor = g_subprocess_launcher_spawnv (
    launcher, (const char *const *) argv->pdata, &error);
  g_assert_no_error (error);
  engine->replies =
    g_data_input_stream_new (g_subprocess_get_stdout_pipe (engine->supervisor));
}

static void add_printf (GStrvBuilder *builder, const char *format, ...)
  G_GNUC_PRINTF (2, 3);

static void
add_printf (GStrvBuilder *builder, const char *format, ...)
{
  g_autofree char *arg = NULL;
  va_list args;

  va_start (args, format);
  arg = g_strdup_vprintf (format, args);
  va_end (args);
  g_strv_builder_add (builder, arg);
}

static char **
dockerd_argv (PrivateEngine *engine, guint16 port)
{
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
  g_autofree char *base = g_path_get_basename (engine->dir);
  const char *dir = engine->dir;

  /* The supervisor runs dockerd with these. */
  add_printf (builder, "--config-file=%s/daemon.json", dir);
  g_strv_builder_add_many (builder, "--bridge=none", "--iptables=false",
                           "--ip6tables=false", NULL);
  add_printf (builder, "--host=%s", engine->unix_host);
  add_printf (builder, "--host=tcp://127.0.0.1:%u", port);
  add_printf (builder, "--data-root=%s/data", dir);
  add_printf (builder, "--exec-root=%s/exec", dir);
  add_printf (builder, "--pidfile=%s/docker.pid", dir);
  /* Apart from the shared engine's, should they share a containerd. */
  add_printf (builder, "--containerd-namespace=%s", base);
  add_printf (builder, "--containerd-plugins-namespace=%s-plugins", base);
  if (engine->tls)
    {
      g_strv_builder_add (builder, "--tlsverify");
      add_printf (builder, "--tlscacert=%s/certs/ca.pem", dir);
      add_printf (builder, "--tlscert=%s/certs/server-cert.pem", dir);
      add_printf (builder, "--tlskey=%s/certs/server-key.pem", dir);
    }
  return g_strv_builder_end (builder);
}

/* Waits until the engine answers on its unix socket. */
static gboolean
engine_wait_ready (PrivateEngine *engine, char **why)
{
  gint64 deadline = g_get_monotonic_time () + READY_TIMEOUT_US;

  for (;;)
    {
      g_autoptr (AgentsDockerEngine) api = engine_api (engine);
      g_autoptr (GError) error = NULL;
      g_autofree char *log = NULL;

      if (agents_docker_engine_negotiate (api, NULL, &error))
        return TRUE;
      if (process_alive (engine->dockerd_pid) &&
          g_get_monotonic_time () < deadline)
        {
          g_usleep (G_USEC_PER_SEC / 20);
          continue;
        }
      log = engine_log_tail (engine);
      *why = g_strdup_printf ("the %s dockerd did not come up (%s); its log "
                              "ends with:\n%s",
                              engine->name, error->message, log);
      return FALSE;
    }
}

static gboolean
engine_start (PrivateEngine *engine, char **why)
{
  g_autofree char *answer = supervisor_ask (engine, "start");
  gint64 pid = 0;

  g_assert_true (g_str_has_prefix (answer, "started "));
  g_assert_true (g_ascii_string_to_signed (answer + strlen ("started "), 10, 1,
                                           G_MAXINT, &pid, NULL));
  engine->dockerd_pid = (int) pid;
  return engine_wait_ready (engine, why);
}

/* Stops the dockerd and waits until it is gone. */
static void
engine_stop (PrivateEngine *engine)
{
  g_autofree char *answer = supervisor_ask (engine, "stop");

  g_assert_cmpstr (answer, ==, "stopped");
  g_assert_false (process_alive (engine->dockerd_pid));
  engine->dockerd_pid = 0;
}

static gboolean
import_image (PrivateEngine *engine, char **why)
{
  g_autofree char *script =
    g_test_build_filename (G_TEST_DIST, "docker", "build-image.sh", NULL);
  g_autofree char *socket = g_build_filename (engine->dir, "docker.sock", NULL);
  const char *argv[] = { "sh", script, NULL };
  g_auto (GStrv) envp =
    g_environ_setenv (g_get_environ (), "DOCKER_SOCKET", socket, TRUE);

  return run_program (argv, envp, why);
}

/* A directory with a short path: socket paths under it must fit. */
static char *
make_engine_dir (void)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("agd-XXXXXX", &error);

  g_assert_no_error (error);
  if (strlen (dir) > MAX_ENGINE_DIR)
    {
      g_rmdir (dir);
      g_free (dir);
      dir = g_strdup ("/tmp/agd-XXXXXX");
      g_assert_nonnull (g_mkdtemp (dir));
    }
  return dir;
}

static gboolean
engine_set_up (PrivateEngine *engine, char **why)
{
  g_autofree char *config = NULL;
  guint16 port = free_port ();

  engine->dir = make_engine_dir ();
  engine->unix_host = g_strdup_printf ("unix://%s/docker.sock", engine->dir);
  engine->tcp_host = g_strdup_printf ("tcp://127.0.0.1:%u", port);
  engine->https_host = g_strdup_printf ("https://127.0.0.1:%u", port);
  engine->dockerd_argv = dockerd_argv (engine, port);
  /* From here on the supervisor removes the directory, whatever
   * happens to this program. */
  supervisor_spawn (engine);

  /* Not the machine's /etc/docker/daemon.json: its "hosts" would clash. */
  config = g_build_filename (engine->dir, "daemon.json", NULL);
  g_assert_true (g_file_set_contents (config, "{}\n", -1, NULL));
  if (engine->tls && !make_certificates (engine->dir, why))
    return FALSE;
  return engine_start (engine, why) && import_image (engine, why);
}

static char *
machine_unsuitable (gboolean tls)
{
  g_autofree char *dockerd = g_find_program_in_path ("dockerd");
  g_autofree char *openssl_path = g_find_program_in_path ("openssl");

  if (dockerd == NULL)
    return g_strdup ("no dockerd to start a private engine with "
                     "(apt install docker.io)");
  if (getuid () != 0)
    return g_strdup ("starting a private dockerd needs root");
  if (tls && openssl_path == NULL)
    return g_strdup ("no openssl to make the TLS certificates with "
                     "(apt install openssl)");
  if (tls && !g_tls_backend_supports_tls (g_tls_backend_get_default ()))
    return g_strdup ("no GIO TLS backend (apt install glib-networking)");
  return NULL;
}

/* The engine, started on first use; FALSE (with the test skipped or
 * failed) when it cannot be had. */
static gboolean
require_engine (PrivateEngine *engine)
{
  if (!engine->set_up)
    {
      engine->set_up = TRUE;
      engine->skip_reason = machine_unsuitable (engine->tls);
      if (engine->skip_reason == NULL &&
          !engine_set_up (engine, &engine->fail_reason))
        g_printerr ("# %s\n", engine->fail_reason);
    }
  if (engine->skip_reason != NULL)
    g_test_skip (engine->skip_reason);
  else if (engine->fail_reason != NULL)
    g_test_fail_printf ("the private %s engine: %s", engine->name,
                        engine->fail_reason);
  else
    return TRUE;
  return FALSE;
}

/* A fresh directory inside the engine's, which goes with it whatever
 * happens to the test. */
static char *
engine_make_dir (PrivateEngine *engine, const char *prefix)
{
  char *path = g_strdup_printf ("%s/%s-XXXXXX", engine->dir, prefix);

  g_assert_nonnull (g_mkdtemp (path));
  return path;
}

static JsonArray *
engine_containers (PrivateEngine *engine, JsonNode **holder)
{
  g_autoptr (AgentsDockerEngine) api = engine_api (engine);
  g_autoptr (GError) error = NULL;

  *holder = agents_docker_engine_call_json (
    api, "GET", "/containers/json?all=true", NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (*holder));
  return json_node_get_array (*holder);
}

static guint
engine_count_containers (PrivateEngine *engine)
{
  g_autoptr (JsonNode) holder = NULL;

  return json_array_get_length (engine_containers (engine, &holder));
}

/* Asserts that the engine holds exactly one container, @id. */
static void
assert_only_container (PrivateEngine *engine, const char *id)
{
  g_autoptr (JsonNode) holder = NULL;
  JsonArray *containers = engine_containers (engine, &holder);

  g_assert_cmpuint (json_array_get_length (containers), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (
                     json_array_get_object_element (containers, 0), "Id"),
                   ==, id);
}

static gboolean
engine_has_container (PrivateEngine *engine, const char *id)
{
  g_autoptr (AgentsDockerEngine) api = engine_api (engine);
  g_autofree char *path = g_strdup_printf ("/containers/%s/json", id);
  g_autoptr (JsonNode) answer = NULL;
  g_autoptr (GError) error = NULL;

  answer =
    agents_docker_engine_call_json (api, "GET", path, NULL, NULL, NULL, &error);
  if (g_error_matches (error, AGENTS_DOCKER_ERROR,
                       AGENTS_DOCKER_ERROR_NOT_FOUND))
    return FALSE;
  g_assert_no_error (error);
  return TRUE;
}

static void
engine_post (PrivateEngine *engine, const char *method, const char *path)
{
  g_autoptr (AgentsDockerEngine) api = engine_api (engine);
  g_autoptr (JsonNode) answer = NULL;
  g_autoptr (GError) error = NULL;

  answer = agents_docker_engine_call_json (api, method, path, NULL, NULL, NULL,
                                           &error);
  g_assert_no_error (error);
}

/* Stops the supervisor, which stops the dockerd and removes the
 * directory. With @check, asserts that nothing is left: no container
 * (checked first), no process, no mount, no directory. */
static void
engine_tear_down (PrivateEngine *engine, gboolean check)
{
  g_autofree char *answer = NULL;
  g_autoptr (GPtrArray) processes = NULL;
  g_autoptr (GPtrArray) mounts = NULL;
  g_autoptr (GError) error = NULL;

  if (engine->supervisor == NULL)
    return;
  if (engine->dockerd_pid != 0 && process_alive (engine->dockerd_pid))
    {
      g_autoptr (AgentsDockerEngine) api = engine_api (engine);

      if (check)
        g_assert_cmpuint (engine_count_containers (engine), ==, 0);
      else
        agents_docker_reap (api, TRUE, NULL, NULL);
    }

  answer = supervisor_ask (engine, "quit");
  g_assert_cmpstr (answer, ==, "done");
  g_subprocess_wait_check (engine->supervisor, NULL, &error);
  g_assert_no_error (error);
  g_clear_object (&engine->replies);
  g_clear_object (&engine->supervisor);

  processes = processes_under (engine->dir);
  mounts = mounts_under (engine->dir);
  for (guint i = 0; i < processes->len; i++)
    g_printerr ("# left behind: process %s\n",
                (char *) g_ptr_array_index (processes, i));
  for (guint i = 0; i < mounts->len; i++)
    g_printerr ("# left behind: mount %s\n",
                (char *) g_ptr_array_index (mounts, i));
  if (check)
    {
      g_assert_false (process_alive (engine->dockerd_pid));
      g_assert_cmpuint (processes->len, ==, 0);
      g_assert_cmpuint (mounts->len, ==, 0);
      g_assert_false (g_file_test (engine->dir, G_FILE_TEST_EXISTS));
    }
  engine->dockerd_pid = 0;
}

/* ---- sessions --------------------------------------------------------- */

static AgentsSandboxSession *
session_create (AgentsSandboxClient *client,
                GVariant *options,
                GObject *snapshot,
                GError **error)
{
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GVariant) owned = g_variant_ref_sink (options);

  AGENTS_TEST_AWAIT (
    res, agents_sandbox_client_create_async (client, NULL, owned, snapshot,
                                             NULL, agents_test_async_cb, &res));
  return agents_sandbox_client_create_finish (client, res, error);
}

/* Resumes @state_json as a caller configured with the engine @host and
 * @snapshot would. */
static AgentsSandboxSession *
session_resume (AgentsSandboxClient *client,
                const char *state_json,
                const char *host,
                GObject *snapshot,
                GError **error)
{
  g_autoptr (GVariant) options =
    g_variant_ref_sink (g_variant_new_parsed ("{'host': <%s>}", host));
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GError) local = NULL;
  g_autoptr (JsonNode) node = json_from_string (state_json, &local);
  g_autoptr (AgentsSandboxSessionState) state = NULL;

  g_assert_no_error (local);
  state =
    agents_sandbox_client_deserialize_session_state (client, node, &local);
  g_assert_no_error (local);
  AGENTS_TEST_AWAIT (
    res, agents_sandbox_client_resume_with_options_async (
           client, state, options, snapshot, NULL, agents_test_async_cb, &res));
  return agents_sandbox_client_resume_finish (client, res, error);
}

static char *
session_serialize (AgentsSandboxClient *client, AgentsSandboxSession *session)
{
  g_autoptr (JsonNode) node = agents_sandbox_client_serialize_session_state (
    client, agents_sandbox_session_peek_state (session));

  return json_to_string (node, FALSE);
}

static void
session_delete (AgentsSandboxClient *client, AgentsSandboxSession *session)
{
  gboolean ok;
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GError) error = NULL;

  AGENTS_TEST_AWAIT (res, agents_sandbox_client_delete_async (
                            client, session, NULL, agents_test_async_cb, &res));
  ok = agents_sandbox_client_delete_finish (client, res, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
}

static void
session_start (AgentsSandboxSession *session)
{
  gboolean ok;
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GError) error = NULL;

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_start_async (
                            session, NULL, agents_test_async_cb, &res));
  ok = agents_sandbox_session_start_finish (session, res, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
}

/* Persists the workspace to the state's snapshot. */
static void
session_stop (AgentsSandboxSession *session)
{
  gboolean ok;
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GError) error = NULL;

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_stop_async (
                            session, NULL, agents_test_async_cb, &res));
  ok = agents_sandbox_session_stop_finish (session, res, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
}

static void
session_shutdown (AgentsSandboxSession *session)
{
  gboolean ok;
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GError) error = NULL;

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_shutdown_async (
                            session, NULL, agents_test_async_cb, &res));
  ok = agents_sandbox_session_shutdown_finish (session, res, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
}

static AgentsExecResult *
session_exec (AgentsSandboxSession *session,
              const char *const *argv,
              GError **error)
{
  g_autoptr (GAsyncResult) res = NULL;

  AGENTS_TEST_AWAIT (
    res, agents_sandbox_session_exec_async (session, argv, 0, FALSE, NULL, NULL,
                                            agents_test_async_cb, &res));
  return agents_sandbox_session_exec_finish (session, res, error);
}

static gboolean
session_running (AgentsSandboxSession *session, GError **error)
{
  g_autoptr (GAsyncResult) res = NULL;

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_running_async (
                            session, NULL, agents_test_async_cb, &res));
  return agents_sandbox_session_running_finish (session, res, error);
}

static gboolean
session_write (AgentsSandboxSession *session,
               const char *path,
               const char *text,
               GError **error)
{
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GBytes) data = g_bytes_new (text, strlen (text));

  AGENTS_TEST_AWAIT (
    res, agents_sandbox_session_write_bytes_async (
           session, path, data, NULL, NULL, agents_test_async_cb, &res));
  return agents_sandbox_session_write_bytes_finish (session, res, error);
}

static GBytes *
session_read (AgentsSandboxSession *session, const char *path, GError **error)
{
  g_autoptr (GAsyncResult) res = NULL;

  AGENTS_TEST_AWAIT (
    res, agents_sandbox_session_read_bytes_async (session, path, NULL, NULL,
                                                  agents_test_async_cb, &res));
  return agents_sandbox_session_read_bytes_finish (session, res, error);
}

static void
assert_bytes_text (GBytes *bytes, const char *text)
{
  gsize size = 0;
  const char *data = g_bytes_get_data (bytes, &size);

  g_assert_cmpmem (data, size, text, strlen (text));
}

static void
assert_file (AgentsSandboxSession *session, const char *path, const char *text)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) data = session_read (session, path, &error);

  g_assert_no_error (error);
  assert_bytes_text (data, text);
}

static const char *
session_container_id (AgentsSandboxSession *session)
{
  return agents_docker_session_state_get_container_id (
    AGENTS_DOCKER_SESSION_STATE (agents_sandbox_session_peek_state (session)));
}

/* Write, read back, and exec with separate streams and an exit code. */
static void
assert_round_trip (AgentsSandboxSession *session, const char *text)
{
  gboolean ok;
  const char *cat[] = { "cat", "notes.txt", NULL };
  const char *streams[] = { "sh", "-c", "echo out; echo err >&2; exit 3",
                            NULL };
  g_autoptr (AgentsExecResult) result = NULL;
  g_autoptr (GError) error = NULL;

  ok = session_write (session, "notes.txt", text, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  assert_file (session, "notes.txt", text);

  result = session_exec (session, cat, &error);
  g_assert_no_error (error);
  g_assert_cmpint (agents_exec_result_get_exit_code (result), ==, 0);
  assert_bytes_text (agents_exec_result_get_stdout (result), text);
  g_clear_object (&result);

  result = session_exec (session, streams, &error);
  g_assert_no_error (error);
  g_assert_cmpint (agents_exec_result_get_exit_code (result), ==, 3);
  assert_bytes_text (agents_exec_result_get_stdout (result), "out\n");
  assert_bytes_text (agents_exec_result_get_stderr (result), "err\n");
}

/* The checks below fail the test but let it go on (with -k, the rest of
 * the program too), so that one run shows every error that is unclear. */

static void fail_printf (const char *format, ...) G_GNUC_PRINTF (1, 2);

/* Fails the test; every failure is in the log, not only the last. */
static void
fail_printf (const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_test_message ("FAIL: %s", message);
  g_test_fail_printf ("%s", message);
}

static void
expect_in_message (const GError *error, const char *needle)
{
  if (strstr (error->message, needle) == NULL)
    fail_printf ("the error “%s” does not say “%s”", error->message, needle);
}

static void
expect_context_str (const GError *error, const char *key, const char *value)
{
  g_autoptr (GVariant) context = agents_sandbox_error_get_context (error);
  const char *actual = NULL;

  if (context == NULL || !g_variant_lookup (context, key, "&s", &actual) ||
      g_strcmp0 (actual, value) != 0)
    fail_printf ("the error “%s” has %s “%s” in its context, not “%s”",
                 error->message, key, actual ? actual : "(none)", value);
}

/* Checks that @error names @endpoint, in its message and its context. */
static void
assert_names_endpoint (const GError *error, const char *endpoint)
{
  g_assert_nonnull (error);
  expect_in_message (error, endpoint);
  expect_context_str (error, "endpoint", endpoint);
}

/* Saves an environment variable; restore_env() puts it back. */
typedef struct
{
  const char *name;
  char *value;
} SavedEnv;

static void
save_env (SavedEnv *saved, const char *name)
{
  saved->name = name;
  saved->value = g_strdup (g_getenv (name));
}

static void
restore_env (SavedEnv *saved)
{
  if (saved->value != NULL)
    g_setenv (saved->name, saved->value, TRUE);
  else
    g_unsetenv (saved->name);
  g_clear_pointer (&saved->value, g_free);
}

/* ---- tcp -------------------------------------------------------------- */

static void
test_tcp (void)
{
  PrivateEngine *engine = &plain_engine;
  g_autoptr (AgentsSandboxClient) client = NULL;
  g_autoptr (AgentsSandboxClient) env_client = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (AgentsSandboxSession) env_session = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) state = NULL;
  g_autofree char *id = NULL;
  SavedEnv docker_host;

  if (!require_engine (engine))
    return;

  /* The "host" option. */
  client = agents_docker_client_new ();
  session = session_create (
    client,
    g_variant_new_parsed ("{'image': <%s>, 'host': <%s>}",
                          AGENTS_DOCKER_TEST_IMAGE, engine->tcp_host),
    NULL, &error);
  g_assert_no_error (error);
  session_start (session);
  assert_round_trip (session, "over tcp\n");

  id = g_strdup (session_container_id (session));
  g_assert_nonnull (id);
  g_assert_true (engine_has_container (engine, id));
  state = agents_sandbox_client_serialize_session_state (
    client, agents_sandbox_session_peek_state (session));
  g_assert_cmpstr (
    json_object_get_string_member (json_node_get_object (state), "docker_host"),
    ==, engine->tcp_host);

  session_shutdown (session);
  session_delete (client, session);
  g_assert_false (engine_has_container (engine, id));
  g_clear_pointer (&id, g_free);

  /* DOCKER_HOST when there is no "host" option. */
  save_env (&docker_host, "DOCKER_HOST");
  g_setenv ("DOCKER_HOST", engine->tcp_host, TRUE);
  env_client = agents_docker_client_new ();
  env_session = session_create (
    env_client,
    g_variant_new_parsed ("{'image': <%s>}", AGENTS_DOCKER_TEST_IMAGE), NULL,
    &error);
  g_assert_no_error (error);
  session_start (env_session);
  assert_round_trip (env_session, "over tcp from DOCKER_HOST\n");
  id = g_strdup (session_container_id (env_session));
  g_assert_true (engine_has_container (engine, id));
  session_shutdown (env_session);
  session_delete (env_client, env_session);
  g_assert_false (engine_has_container (engine, id));
  restore_env (&docker_host);

  g_assert_cmpuint (engine_count_containers (engine), ==, 0);
}

/* ---- tls -------------------------------------------------------------- */

/* Creating a session over @host fails; returns the error. */
static GError *
create_fails (const char *host)
{
  g_autoptr (AgentsSandboxClient) client = agents_docker_client_new ();
  g_autoptr (AgentsSandboxSession) session = NULL;
  GError *error = NULL;

  session =
    session_create (client,
                    g_variant_new_parsed ("{'image': <%s>, 'host': <%s>}",
                                          AGENTS_DOCKER_TEST_IMAGE, host),
                    NULL, &error);
  g_assert_null (session);
  g_assert_nonnull (error);
  g_test_message ("%s: %s", host, error->message);
  return error;
}

static void
test_tls (void)
{
  PrivateEngine *engine = &tls_engine;
  g_autoptr (AgentsSandboxClient) client = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *good = NULL;
  g_autofree char *only_ca = NULL;
  g_autofree char *wrong_ca = NULL;
  g_autofree char *id = NULL;
  SavedEnv verify, cert_path;

  if (!require_engine (engine))
    return;
  good = cert_dir (engine, "good");
  only_ca = cert_dir (engine, "only-ca");
  wrong_ca = cert_dir (engine, "wrong-ca");
  save_env (&verify, "DOCKER_TLS_VERIFY");
  save_env (&cert_path, "DOCKER_CERT_PATH");

  /* The engine's CA and a client certificate it trusts. */
  g_setenv ("DOCKER_TLS_VERIFY", "1", TRUE);
  g_setenv ("DOCKER_CERT_PATH", good, TRUE);
  client = agents_docker_client_new ();
  session = session_create (
    client,
    g_variant_new_parsed ("{'image': <%s>, 'host': <%s>}",
                          AGENTS_DOCKER_TEST_IMAGE, engine->tcp_host),
    NULL, &error);
  g_assert_no_error (error);
  session_start (session);
  assert_round_trip (session, "over tls\n");
  id = g_strdup (session_container_id (session));
  g_assert_true (engine_has_container (engine, id));
  session_shutdown (session);
  session_delete (client, session);
  g_assert_false (engine_has_container (engine, id));

  /* DOCKER_TLS_VERIFY without the client's certificate and key. */
  g_setenv ("DOCKER_CERT_PATH", only_ca, TRUE);
  error = create_fails (engine->tcp_host);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  assert_names_endpoint (error, engine->tcp_host);
  agents_test_assert_context_str (error, "reason", "invalid_host");
  g_assert_nonnull (strstr (error->message, "TLS"));
  g_clear_error (&error);

  /* TLS without a client certificate: the engine refuses the handshake. */
  g_unsetenv ("DOCKER_TLS_VERIFY");
  error = create_fails (engine->https_host);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_WORKSPACE_START);
  assert_names_endpoint (error, engine->https_host);
  g_assert_nonnull (strstr (error->message, "TLS"));
  g_clear_error (&error);

  /* The engine's certificate is not signed by the CA the client trusts. */
  g_setenv ("DOCKER_TLS_VERIFY", "1", TRUE);
  g_setenv ("DOCKER_CERT_PATH", wrong_ca, TRUE);
  error = create_fails (engine->tcp_host);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_WORKSPACE_START);
  assert_names_endpoint (error, engine->tcp_host);
  g_assert_nonnull (strstr (error->message, "certificate"));
  agents_test_assert_context_str (error, "reason", "engine_tls");
  g_clear_error (&error);

  restore_env (&verify);
  restore_env (&cert_path);
  g_assert_cmpuint (engine_count_containers (engine), ==, 0);
}

/* ---- engine faults ---------------------------------------------------- */

static void
assert_unreachable (const GError *error, int code, const char *endpoint)
{
  g_assert_nonnull (error);
  if (!g_error_matches (error, AGENTS_SANDBOX_ERROR, code))
    fail_printf ("the error “%s” is %s %d, not %s %d", error->message,
                 g_quark_to_string (error->domain), error->code,
                 g_quark_to_string (AGENTS_SANDBOX_ERROR), code);
  assert_names_endpoint (error, endpoint);
  expect_in_message (error, "unreachable");
  expect_context_str (error, "reason", "engine_unreachable");
}

static void
test_engine_stopped (void)
{
  gboolean ok;
  PrivateEngine *engine = &plain_engine;
  const char *cat[] = { "cat", "notes.txt", NULL };
  const char *text = "written before the engine stopped\n";
  g_autoptr (AgentsSandboxClient) client = NULL;
  g_autoptr (AgentsSandboxClient) second = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (AgentsSandboxSession) failed = NULL;
  g_autoptr (AgentsSandboxSession) resumed = NULL;
  g_autoptr (AgentsLocalSnapshotSpec) spec = NULL;
  g_autoptr (AgentsExecResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *snapshots = NULL;
  g_autofree char *state = NULL;
  g_autofree char *old_id = NULL;
  g_autofree char *why = NULL;
  const char *new_id;

  if (!require_engine (engine))
    return;
  snapshots = engine_make_dir (engine, "snapshots");
  spec = agents_local_snapshot_spec_new (snapshots);

  client = agents_docker_client_new ();
  session = session_create (
    client,
    g_variant_new_parsed ("{'image': <%s>, 'host': <%s>}",
                          AGENTS_DOCKER_TEST_IMAGE, engine->unix_host),
    G_OBJECT (spec), &error);
  g_assert_no_error (error);
  session_start (session);
  ok = session_write (session, "notes.txt", text, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  session_stop (session);
  old_id = g_strdup (session_container_id (session));
  state = session_serialize (client, session);

  engine_stop (engine);

  /* exec: the engine is unreachable, and the error says where. */
  result = session_exec (session, cat, &error);
  g_assert_null (result);
  assert_unreachable (error, AGENTS_SANDBOX_ERROR_EXEC_TRANSPORT,
                      engine->unix_host);
  g_clear_error (&error);

  /* running: inspecting the container fails the same way (it cannot be
   * told whether the container runs). */
  g_assert_false (session_running (session, &error));
  assert_unreachable (error, AGENTS_SANDBOX_ERROR_EXEC_TRANSPORT,
                      engine->unix_host);
  g_clear_error (&error);

  /* A resume while the engine is down fails and makes nothing. */
  second = agents_docker_client_new ();
  failed =
    session_resume (second, state, engine->unix_host, G_OBJECT (spec), &error);
  g_assert_null (failed);
  assert_unreachable (error, AGENTS_SANDBOX_ERROR_WORKSPACE_START,
                      engine->unix_host);
  g_clear_error (&error);

  /* The same engine again: a resume from the serialized state gets the
   * session back, through its old container or a new one hydrated from
   * the snapshot. The first client resumes it: its connections to the
   * engine that went away must not stand in the way. */
  if (!engine_start (engine, &why))
    g_error ("%s", why);
  resumed =
    session_resume (client, state, engine->unix_host, G_OBJECT (spec), &error);
  g_assert_no_error (error);
  session_start (resumed);
  assert_file (resumed, "notes.txt", text);
  result = session_exec (resumed, cat, &error);
  g_assert_no_error (error);
  assert_bytes_text (agents_exec_result_get_stdout (result), text);
  ok = session_running (resumed, &error);
  g_assert_no_error (error);
  g_assert_true (ok);

  new_id = session_container_id (resumed);
  g_test_message ("container %s after the restart (was %s)", new_id, old_id);
  if (g_strcmp0 (new_id, old_id) != 0)
    g_assert_false (engine_has_container (engine, old_id));
  assert_only_container (engine, new_id);

  session_shutdown (resumed);
  session_delete (client, resumed);
  g_assert_cmpuint (engine_count_containers (engine), ==, 0);
  agents_test_rm_rf (snapshots);
}

/* A container killed from outside is not running; a resume starts it
 * again, in place. */
static void
test_container_killed (void)
{
  gboolean ok;
  PrivateEngine *engine = &plain_engine;
  const char *text = "still here after the kill\n";
  g_autoptr (AgentsSandboxClient) client = NULL;
  g_autoptr (AgentsSandboxClient) second = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (AgentsSandboxSession) resumed = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *state = NULL;
  g_autofree char *path = NULL;

  if (!require_engine (engine))
    return;
  client = agents_docker_client_new ();
  session = session_create (
    client,
    g_variant_new_parsed ("{'image': <%s>, 'host': <%s>}",
                          AGENTS_DOCKER_TEST_IMAGE, engine->unix_host),
    NULL, &error);
  g_assert_no_error (error);
  session_start (session);
  ok = session_write (session, "notes.txt", text, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  state = session_serialize (client, session);

  path =
    g_strdup_printf ("/containers/%s/kill", session_container_id (session));
  engine_post (engine, "POST", path);
  g_assert_false (session_running (session, &error));
  g_assert_no_error (error);

  second = agents_docker_client_new ();
  resumed = session_resume (second, state, engine->unix_host, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (session_container_id (resumed), ==,
                   session_container_id (session));
  ok = session_running (resumed, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  session_start (resumed);
  assert_file (resumed, "notes.txt", text);

  session_shutdown (resumed);
  session_delete (second, resumed);
  g_assert_cmpuint (engine_count_containers (engine), ==, 0);
}

/* A container removed from outside: a resume makes a new one from the
 * image and hydrates it from the snapshot. */
static void
test_container_removed (void)
{
  gboolean ok;
  PrivateEngine *engine = &plain_engine;
  const char *text = "kept in the snapshot\n";
  g_autoptr (AgentsSandboxClient) client = NULL;
  g_autoptr (AgentsSandboxClient) second = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (AgentsSandboxSession) resumed = NULL;
  g_autoptr (AgentsLocalSnapshotSpec) spec = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *snapshots = NULL;
  g_autofree char *state = NULL;
  g_autofree char *old_id = NULL;
  g_autofree char *path = NULL;
  const char *new_id;

  if (!require_engine (engine))
    return;
  snapshots = engine_make_dir (engine, "snapshots");
  spec = agents_local_snapshot_spec_new (snapshots);

  client = agents_docker_client_new ();
  session = session_create (
    client,
    g_variant_new_parsed ("{'image': <%s>, 'host': <%s>}",
                          AGENTS_DOCKER_TEST_IMAGE, engine->tcp_host),
    G_OBJECT (spec), &error);
  g_assert_no_error (error);
  session_start (session);
  ok = session_write (session, "notes.txt", text, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  session_stop (session);
  old_id = g_strdup (session_container_id (session));
  state = session_serialize (client, session);

  path = g_strdup_printf ("/containers/%s?force=true&v=true", old_id);
  engine_post (engine, "DELETE", path);
  g_assert_false (engine_has_container (engine, old_id));
  /* Gone is not running, and not an error. */
  g_assert_false (session_running (session, &error));
  g_assert_no_error (error);

  second = agents_docker_client_new ();
  resumed =
    session_resume (second, state, engine->tcp_host, G_OBJECT (spec), &error);
  g_assert_no_error (error);
  new_id = session_container_id (resumed);
  g_assert_nonnull (new_id);
  g_assert_cmpstr (new_id, !=, old_id);
  session_start (resumed);
  assert_file (resumed, "notes.txt", text);
  assert_only_container (engine, new_id);

  session_shutdown (resumed);
  session_delete (second, resumed);
  g_assert_cmpuint (engine_count_containers (engine), ==, 0);
  agents_test_rm_rf (snapshots);
}

/* ---- the end ---------------------------------------------------------- */

static void
test_api_too_old (void)
{
  g_test_skip ("a real dockerd cannot be made to serve an API older "
               "than " AGENTS_DOCKER_MIN_API_VERSION
               "; test-docker-engine covers "
               "it with a fake engine");
}

static void
test_nothing_left (void)
{
  gboolean any = FALSE;
  PrivateEngine *engines[] = { &plain_engine, &tls_engine };

  for (guint i = 0; i < G_N_ELEMENTS (engines); i++)
    if (engines[i]->supervisor != NULL)
      {
        any = TRUE;
        engine_tear_down (engines[i], TRUE);
      }
  if (!any)
    g_test_skip ("no private engine was started");
}

/* The tests link the library statically, with GIO_MODULE_DIR="" so that
 * no module of the machine is loaded. TLS needs glib-networking's: load
 * that one module alone. */
static void
load_tls_module (void)
{
#ifdef AGENTS_TEST_GIO_MODULE_DIR
  const char *module_dir = g_getenv ("GIO_MODULE_DIR");
  GIOModuleScope *scope;
  GList *modules;
  GDir *dir;
  const char *name;

  if (module_dir == NULL || module_dir[0] != '\0')
    return;
  /* Registers GIO's extension points, which loading a module by hand
   * does not; the default VFS is the local one whatever happens. */
  g_vfs_get_default ();
  dir = g_dir_open (AGENTS_TEST_GIO_MODULE_DIR, 0, NULL);
  if (dir == NULL)
    return;
  scope = g_io_module_scope_new (G_IO_MODULE_SCOPE_BLOCK_DUPLICATES);
  while ((name = g_dir_read_name (dir)) != NULL)
    if (!g_str_equal (name, "libgiognutls.so"))
      g_io_module_scope_block (scope, name);
  g_dir_close (dir);
  /* Loaded modules stay loaded: only the list goes. */
  modules = g_io_modules_load_all_in_directory_with_scope (
    AGENTS_TEST_GIO_MODULE_DIR, scope);
  g_list_free (modules);
  g_io_module_scope_free (scope);
#endif
}

int
main (int argc, char *argv[])
{
  int status;

  load_tls_module ();
  g_test_init (&argc, &argv, NULL);
  agents_docker_register_types ();

  g_test_add_func ("/docker/remote/tcp", test_tcp);
  g_test_add_func ("/docker/remote/tls", test_tls);
  g_test_add_func ("/docker/remote/engine-stopped", test_engine_stopped);
  g_test_add_func ("/docker/remote/container-killed", test_container_killed);
  g_test_add_func ("/docker/remote/container-removed", test_container_removed);
  g_test_add_func ("/docker/remote/api-too-old", test_api_too_old);
  /* Last: stops the engines and checks that nothing is left. */
  g_test_add_func ("/docker/remote/nothing-left", test_nothing_left);

  status = g_test_run ();
  /* When the last test did not run (-p, -s): the same, unchecked. */
  engine_tear_down (&plain_engine, FALSE);
  engine_tear_down (&tls_engine, FALSE);
  return status;
}
