/* test-pty.c - interactive processes through exec_command and write_stdin
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A real session: unix_local (confined as it is by default), or, built
 * with PTY_DOCKER (test-docker-pty), docker against the real engine. A
 * command on a PTY is typed to, echoes, is interrupted with Ctrl-C; a
 * command that outlives exec_command is polled; the process table holds
 * 64 processes; nothing is left running once the session stopped.
 */

#include "config.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "agents-sandbox-process-private.h"
#include "agents-sandbox-process-table-private.h"
#include "agents-shell-tools-private.h"
#include "test-utils.h"
#ifdef PTY_DOCKER
#include "agents-docker-client.h"
#include "docker-test-utils.h"
#define BACKEND "docker"
#else
#include "agents-unix-local-client.h"
#include "agents-unix-local-confine.h"
#define BACKEND "unix-local"
#endif

static double fake_now;

static double
fake_clock (void)
{
  fake_now += 0.25;
  return fake_now;
}

#define FRAME "Chunk ID: 123456\nWall time: 0.2500 seconds\n"

typedef struct
{
  AgentsSandboxClient *client;
  AgentsSandboxSession *session;
  AgentsCapability *shell;
  AgentsRunContext *ctx;
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;

#ifdef PTY_DOCKER
  f->client = agents_docker_client_new ();
  agents_sandbox_client_create_async (
    f->client, manifest,
    g_variant_new_parsed ("{'image': <%s>}", AGENTS_DOCKER_TEST_IMAGE), NULL,
    NULL, agents_test_async_cb, &result);
#else
  f->client = agents_unix_local_client_new ();
  agents_sandbox_client_create_async (f->client, manifest, NULL, NULL, NULL,
                                      agents_test_async_cb, &result);
#endif
  f->session = agents_sandbox_client_create_finish (
    f->client, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
  g_clear_object (&result);
  agents_sandbox_session_start_async (f->session, NULL, agents_test_async_cb,
                                      &result);
  g_assert_true (agents_sandbox_session_start_finish (
    f->session, agents_test_wait_result (&result), &error));
  g_assert_no_error (error);
  f->shell = agents_shell_capability_new ();
  agents_capability_bind (f->shell, f->session);
  f->ctx = agents_run_context_new (NULL);
}

static void
stop_session (Fixture *f)
{
  g_autoptr (GAsyncResult) result = NULL;

  if (f->session == NULL)
    return;
  agents_sandbox_session_close_async (f->session, NULL, agents_test_async_cb,
                                      &result);
  agents_sandbox_session_close_finish (f->session,
                                       agents_test_wait_result (&result), NULL);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;

  g_clear_object (&f->shell);
  g_clear_object (&f->ctx);
  stop_session (f);
  agents_sandbox_client_delete_async (f->client, f->session, NULL,
                                      agents_test_async_cb, &result);
  g_assert_true (agents_sandbox_client_delete_finish (
    f->client, agents_test_wait_result (&result), &error));
  g_assert_no_error (error);
  g_clear_object (&f->session);
  g_clear_object (&f->client);
}

static char *
call (Fixture *f, const char *name, const char *arguments)
{
  g_autoptr (GPtrArray) tools = agents_capability_get_tools (f->shell);
  /* The array owns its tools (get_tools is transfer full). */
  if (tools != NULL)
    g_ptr_array_set_free_func (tools, g_object_unref);
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) output = NULL;
  AgentsTool *tool = NULL;

  for (guint i = 0; i < tools->len; i++)
    if (g_str_equal (agents_tool_get_name (tools->pdata[i]), name))
      tool = tools->pdata[i];
  g_assert_nonnull (tool);
  agents_tool_invoke_async (tool, f->ctx, "call_1", arguments, NULL,
                            agents_test_async_cb, &result);
  output =
    agents_tool_invoke_finish (tool, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
  g_test_message ("%s %s →\n%s", name, arguments,
                  json_node_get_string (output));
  return g_strdup (json_node_get_string (output));
}

/* Spins the main context until @done holds, for at most 20 s. */
static void
wait_until (GSourceFunc done, gpointer data)
{
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;

  while (!done (data) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (done (data));
}

#ifndef PTY_DOCKER
static gboolean
has_exited (gpointer process)
{
  return agents_sandbox_process_has_exited (process);
}
#endif

static const char *
body_of (const char *text)
{
  const char *body = strstr (text, "Output:\n");

  g_assert_nonnull (body);
  return body + strlen ("Output:\n");
}

/* Types until @expected shows, polling as a model would. */
static char *
poll_until (Fixture *f, const char *expected, GString *seen)
{
  for (guint i = 0; i < 20 && strstr (seen->str, expected) == NULL; i++)
    {
      g_autofree char *output = call (
        f, "write_stdin", "{\"session_id\": 4242, \"yield_time_ms\": 300}");

      g_string_append (seen, body_of (output));
      if (strstr (output, "Process exited") != NULL)
        return g_steal_pointer (&output);
    }
  return NULL;
}

static const gint64 test_ids[] = { 4242, -1 };

/* `cat` on a PTY: what is typed is echoed by the terminal and printed
 * again by cat (with the terminal's CR LF); Ctrl-C ends it with SIGINT. */
static void
test_interactive_cat (Fixture *f, gconstpointer data)
{
  g_autofree char *started = NULL;
  g_autofree char *typed = NULL;
  g_autofree char *interrupted = NULL;
  g_autoptr (GString) seen = g_string_new (NULL);

  agents_sandbox_session_pty_set_test_ids (test_ids);
  started = call (f, "exec_command",
                  "{\"cmd\": \"cat\", \"tty\": true, \"yield_time_ms\": 300}");
  g_assert_cmpstr (started, ==,
                   FRAME "Process running with session ID 4242\nOutput:\n");

  typed = call (f, "write_stdin",
                "{\"session_id\": 4242, \"chars\": \"hello pty\\n\"}");
  g_assert_true (g_str_has_prefix (
    typed, FRAME "Process running with session ID 4242\nOutput:\n"));
  g_string_append (seen, body_of (typed));
  g_free (poll_until (f, "hello pty\r\nhello pty\r\n", seen));
  g_assert_nonnull (strstr (seen->str, "hello pty\r\nhello pty\r\n"));

  interrupted =
    call (f, "write_stdin", "{\"session_id\": 4242, \"chars\": \"\\u0003\"}");
  if (strstr (interrupted, "Process exited") == NULL)
    {
      g_string_truncate (seen, 0);
      g_free (interrupted);
      interrupted = poll_until (f, "\x01", seen);
    }
  g_assert_nonnull (interrupted);
  g_assert_nonnull (strstr (interrupted, "Process exited with code 130\n"));
  g_assert_null (strstr (interrupted, "session ID"));
  g_assert_cmpuint (agents_sandbox_session_pty_get_n_processes (f->session), ==,
                    0);
}

/* An interactive shell: job control and the prompt on its terminal. */
/* Types @arguments' chars and keeps what came back in @seen. */
#ifndef PTY_DOCKER
static void
type_into (Fixture *f, GString *seen, const char *arguments)
{
  g_autofree char *output = call (f, "write_stdin", arguments);

  g_string_append (seen, body_of (output));
}
#endif

static void
test_interactive_shell (Fixture *f, gconstpointer data)
{
  g_autofree char *started = NULL;
  g_autofree char *typed = NULL;
  g_autofree char *ended = NULL;
  g_autoptr (GString) seen = g_string_new (NULL);
#ifdef PTY_DOCKER
  /* busybox's ash, in the container's own pid namespace. */
  const char *args = "{\"cmd\": \"sh -i\", \"tty\": true, "
                     "\"yield_time_ms\": 300}";
#else
  g_autofree char *bash = g_find_program_in_path ("bash");
  const char *args = "{\"cmd\": \"bash --norc -i\", \"tty\": true, "
                     "\"yield_time_ms\": 300}";

  if (bash == NULL)
    {
      g_test_skip ("no bash to run interactively");
      return;
    }
#endif
  agents_sandbox_session_pty_set_test_ids (test_ids);
  started = call (f, "exec_command", args);
  g_assert_nonnull (strstr (started, "Process running with session ID 4242"));
  typed = call (f, "write_stdin",
                "{\"session_id\": 4242, \"chars\": \"echo $((6*7))\\n\"}");
  g_string_append (seen, body_of (typed));
  g_free (poll_until (f, "42\r\n", seen));
  g_assert_nonnull (strstr (seen->str, "42\r\n"));
  ended =
    call (f, "write_stdin", "{\"session_id\": 4242, \"chars\": \"exit 3\\n\"}");
  if (strstr (ended, "Process exited") == NULL)
    {
      g_free (ended);
      ended = poll_until (f, "\x01", seen);
    }
  g_assert_nonnull (ended);
  g_assert_nonnull (strstr (ended, "Process exited with code 3\n"));
}

#ifndef PTY_DOCKER
/* /bin/sh (dash on Debian) with job control, confined as by default: the
 * terminal is its own inside the sandbox, so Ctrl-C stops the
 * foreground command and not the shell, and on exit the shell can give
 * the terminal back (dash used to exit with 2 there under bwrap). */
static void
test_interactive_sh (Fixture *f, gconstpointer data)
{
  g_autofree char *started = NULL;
  g_autofree char *interrupted = NULL;
  g_autofree char *ended = NULL;
  g_autoptr (GString) seen = g_string_new (NULL);

  agents_sandbox_session_pty_set_test_ids (test_ids);
  started = call (f, "exec_command",
                  "{\"cmd\": \"exec /bin/sh -i\", \"shell\": \"/bin/sh\", "
                  "\"login\": false, \"tty\": true, \"yield_time_ms\": 300}");
  g_assert_nonnull (strstr (started, "Process running with session ID 4242"));
  type_into (f, seen,
             "{\"session_id\": 4242, \"chars\": \"echo $((6*7))\\n\"}");
  g_free (poll_until (f, "42\r\n", seen));
  g_assert_nonnull (strstr (seen->str, "42\r\n"));

  /* Interrupted, the sleep ends at once: "alive" comes long before 30 s
   * (the polls give up after 6 s). */
  g_string_truncate (seen, 0);
  type_into (f, seen,
             "{\"session_id\": 4242, \"chars\": \"echo go; sleep 30\\n\"}");
  g_free (poll_until (f, "go\r\n", seen));
  g_assert_nonnull (strstr (seen->str, "go\r\n"));
  interrupted =
    call (f, "write_stdin", "{\"session_id\": 4242, \"chars\": \"\\u0003\"}");
  g_assert_null (strstr (interrupted, "Process exited"));
  g_string_truncate (seen, 0);
  type_into (f, seen, "{\"session_id\": 4242, \"chars\": \"echo al''ive\\n\"}");
  g_free (poll_until (f, "alive\r\n", seen));
  g_assert_nonnull (strstr (seen->str, "alive\r\n"));

  ended =
    call (f, "write_stdin", "{\"session_id\": 4242, \"chars\": \"exit 3\\n\"}");
  if (strstr (ended, "Process exited") == NULL)
    {
      g_free (ended);
      ended = poll_until (f, "\x01", seen);
    }
  g_assert_nonnull (ended);
  g_assert_nonnull (strstr (ended, "Process exited with code 3\n"));
}
#endif

/* A command that outlives exec_command is polled with empty input until
 * it ends; input to it is refused, as it has no terminal. */
static void
test_outlives_exec_command (Fixture *f, gconstpointer data)
{
  g_autofree char *started = NULL;
  g_autofree char *refused = NULL;
  g_autofree char *polled = NULL;
  g_autofree char *unknown = NULL;

  agents_sandbox_session_pty_set_test_ids (test_ids);
  started = call (f, "exec_command",
                  "{\"cmd\": \"echo first; sleep 4; echo done\", "
                  "\"yield_time_ms\": 2000}");
  g_assert_cmpstr (started, ==,
                   FRAME "Process running with session ID 4242\nOutput:\n"
                         "first\n");
  refused =
    call (f, "write_stdin", "{\"session_id\": 4242, \"chars\": \"hi\\n\"}");
  g_assert_cmpstr (refused, ==,
                   FRAME "Process exited with code 1\nOutput:\nstdin is not "
                         "available for this process. Start the command with "
                         "`tty=true` in `exec_command` before using "
                         "`write_stdin`.");
  /* An empty poll waits up to 5 s: the command ends before. */
  polled = call (f, "write_stdin", "{\"session_id\": 4242}");
  g_assert_cmpstr (polled, ==,
                   FRAME "Process exited with code 0\nOutput:\ndone\n");
  unknown = call (f, "write_stdin", "{\"session_id\": 4242}");
  g_assert_cmpstr (unknown, ==,
                   FRAME "Process exited with code 1\nOutput:\nwrite_stdin "
                         "failed: PTY session not found: 4242");
}

#ifndef PTY_DOCKER

typedef struct
{
  guint pending;
  GPtrArray *updates;
} Batch;

static void
started_one (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Batch *batch = user_data;
  g_autoptr (GError) error = NULL;
  AgentsPtyExecUpdate *update = agents_sandbox_session_pty_exec_start_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);

  g_assert_no_error (error);
  g_ptr_array_add (batch->updates, update);
  batch->pending--;
}

static gboolean
batch_done (gpointer data)
{
  return ((Batch *) data)->pending == 0;
}

/* Starts @n sleeping processes at once. */
static void
start_sleepers (Fixture *f, guint n, Batch *batch)
{
  const char *const command[] = { "sleep 1000", NULL };

  batch->pending = n;
  for (guint i = 0; i < n; i++)
    agents_sandbox_session_pty_exec_start_async (
      f->session, command, TRUE, FALSE, NULL, 0, -1, NULL, started_one, batch);
  wait_until (batch_done, batch);
}

/* The table holds 64 processes; the 65th makes room by killing the least
 * recently used one outside the 8 most recently used. */
static void
test_process_limit (Fixture *f, gconstpointer data)
{
  g_autofree gint64 *ids = g_new (gint64, 66);
  Batch batch = { 0, g_ptr_array_new_with_free_func (
                       (GDestroyNotify) agents_pty_exec_update_unref) };
  g_autoptr (AgentsSandboxProcess) oldest = NULL;

  for (guint i = 0; i < 65; i++)
    ids[i] = 2000 + i;
  ids[65] = -1;
  agents_sandbox_session_pty_set_test_ids (ids);
  start_sleepers (f, 64, &batch);
  g_assert_cmpuint (agents_sandbox_session_pty_get_n_processes (f->session), ==,
                    64);
  for (guint i = 0; i < batch.updates->len; i++)
    g_assert_cmpint (
      agents_pty_exec_update_get_process_id (batch.updates->pdata[i]), >=,
      2000);
  /* 2000, registered first and never used since, is the least recently
   * used: it makes room. */
  oldest = g_object_ref (agents_sandbox_session_pty_lookup (f->session, 2000));
  start_sleepers (f, 1, &batch);
  g_assert_cmpuint (agents_sandbox_session_pty_get_n_processes (f->session), ==,
                    64);
  g_assert_null (agents_sandbox_session_pty_lookup (f->session, 2000));
  g_assert_nonnull (agents_sandbox_session_pty_lookup (f->session, 2001));
  g_assert_nonnull (agents_sandbox_session_pty_lookup (f->session, 2064));
  /* The pruned process was killed. */
  wait_until (has_exited, oldest);
  g_assert_cmpint (agents_sandbox_process_get_exit_status (oldest), ==,
                   128 + SIGKILL);
  g_ptr_array_unref (batch.updates);
  agents_sandbox_session_pty_set_test_ids (NULL);
}

static gboolean
is_finished (gpointer process)
{
  return agents_sandbox_process_is_finished (process);
}

/* A process on a PTY is spawned without fork (a child sharing the
 * caller's memory until it exec'd): under each mechanism it still runs
 * as the sandbox uid when the caller is root and confined, with the
 * terminal as its controlling one, and the caller keeps its identity. */
static void
test_identity (gconstpointer data)
{
  const char *mechanism = data;
  const AgentsUnixLocalProbe *probe = agents_unix_local_confine_probe ();
  const char *const argv[] = { "sh", "-c",
                               "echo uid=$(id -u); tty -s && echo tty; exit 3",
                               NULL };
  const char *const pipe_argv[] = { "sh", "-c", "kill -PIPE $$; exit 3", NULL };
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (AgentsSandboxProcess) process = NULL;
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) output = NULL;
  g_autofree char *text = NULL;
  g_autofree char *expected = NULL;
  const char *bytes;
  gsize size;
  gboolean drop;
  uid_t before = getuid ();

  if ((g_str_equal (mechanism, "bwrap") && probe->bwrap_path == NULL) ||
      (g_str_equal (mechanism, "landlock") && probe->landlock_abi <= 0))
    {
      g_test_skip ("the mechanism is not available here");
      return;
    }
  drop = geteuid () == 0 && !g_str_equal (mechanism, "none");
  agents_sandbox_client_create_async (
    client, manifest, g_variant_new_parsed ("{'confinement': <%s>}", mechanism),
    NULL, NULL, agents_test_async_cb, &result);
  session = agents_sandbox_client_create_finish (
    client, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
  g_clear_object (&result);
  agents_sandbox_session_start_async (session, NULL, agents_test_async_cb,
                                      &result);
  g_assert_true (agents_sandbox_session_start_finish (
    session, agents_test_wait_result (&result), &error));
  g_assert_no_error (error);
  g_clear_object (&result);

  agents_sandbox_session_start_process_async (
    session, argv, FALSE, TRUE, NULL, NULL, agents_test_async_cb, &result);
  process = agents_sandbox_session_start_process_finish (
    session, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
  wait_until (is_finished, process);
  g_assert_cmpint (agents_sandbox_process_get_exit_status (process), ==, 3);
  g_assert_cmpuint (getuid (), ==, before);
  g_assert_cmpuint (geteuid (), ==, before);
  output = agents_sandbox_process_steal_output (process, NULL, NULL);
  expected = g_strdup_printf ("uid=%u\r\ntty\r\n",
                              drop ? AGENTS_UNIX_LOCAL_DEFAULT_SANDBOX_UID
                                   : (guint) before);
  bytes = g_bytes_get_data (output, &size);
  text = g_strndup (bytes, size);
  g_assert_cmpstr (text, ==, expected);

  /* A caller that ignores SIGPIPE does not pass that on (as GLib's
   * spawning, which resets it). */
  g_clear_object (&result);
  g_clear_object (&process);
  signal (SIGPIPE, SIG_IGN);
  agents_sandbox_session_start_process_async (
    session, pipe_argv, FALSE, TRUE, NULL, NULL, agents_test_async_cb, &result);
  process = agents_sandbox_session_start_process_finish (
    session, agents_test_wait_result (&result), &error);
  signal (SIGPIPE, SIG_DFL);
  g_assert_no_error (error);
  wait_until (is_finished, process);
  g_assert_cmpint (agents_sandbox_process_get_exit_status (process), ==,
                   128 + SIGPIPE);

  g_clear_object (&result);
  agents_sandbox_session_close_async (session, NULL, agents_test_async_cb,
                                      &result);
  agents_sandbox_session_close_finish (session,
                                       agents_test_wait_result (&result), NULL);
  g_clear_object (&result);
  agents_sandbox_client_delete_async (client, session, NULL,
                                      agents_test_async_cb, &result);
  agents_sandbox_client_delete_finish (client,
                                       agents_test_wait_result (&result), NULL);
}

#endif

#ifdef PTY_DOCKER

/* Whether a process of the container has @marker on its command line:
 * asked inside the container, where its processes are. The pattern does
 * not match grep's own command line. */
static gboolean
marker_running_in (AgentsSandboxSession *session, const char *marker)
{
  g_autofree char *pattern = NULL;
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsExecResult) exec = NULL;
  g_autoptr (GString) regex = g_string_new (NULL);
  const char *argv[] = { "sh",
                         "-c",
                         "cat /proc/[0-9]*/cmdline | tr '\\000' "
                         "' ' | grep -c \"$1\"",
                         "sh",
                         NULL,
                         NULL };

  for (const char *p = marker; *p != '\0'; p++)
    g_string_append_printf (regex, *p == '.' ? "[%c]" : "%c", *p);
  argv[4] = regex->str;
  agents_sandbox_session_exec_raw_async (session, argv, 30, NULL,
                                         agents_test_async_cb, &result);
  exec = agents_sandbox_session_exec_raw_finish (
    session, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
  return agents_exec_result_get_exit_code (exec) == 0;
}

#else

static gboolean
marker_running_in (AgentsSandboxSession *session, const char *marker)
{
  g_autoptr (GDir) proc = g_dir_open ("/proc", 0, NULL);
  const char *name;

  while ((name = g_dir_read_name (proc)) != NULL)
    {
      g_autofree char *path = g_build_filename ("/proc", name, "cmdline", NULL);
      g_autofree char *cmdline = NULL;
      gsize length;

      if (!g_ascii_isdigit (name[0]) ||
          !g_file_get_contents (path, &cmdline, &length, NULL))
        continue;
      for (gsize i = 0; i + 1 < length; i++)
        if (cmdline[i] == '\0')
          cmdline[i] = ' ';
      if (strstr (cmdline, marker) != NULL)
        return TRUE;
    }
  return FALSE;
}

#endif

typedef struct
{
  AgentsSandboxSession *session;
  const char *marker;
} Marker;

static gboolean
marker_gone (gpointer data)
{
  Marker *m = data;

  return !marker_running_in (m->session, m->marker);
}

static void
assert_marker_running (Fixture *f, const char *marker)
{
  g_autofree char *args = g_strdup_printf (
    "{\"cmd\": \"sleep %s\", \"tty\": true, \"yield_time_ms\": 250}", marker);
  g_autofree char *piped_args =
    g_strdup_printf ("{\"cmd\": \"sleep %s\", \"yield_time_ms\": 250}", marker);
  g_autofree char *on_tty = call (f, "exec_command", args);
  g_autofree char *piped = call (f, "exec_command", piped_args);

  g_assert_nonnull (strstr (on_tty, "Process running with session ID"));
  g_assert_nonnull (strstr (piped, "Process running with session ID"));
  g_assert_cmpuint (agents_sandbox_session_pty_get_n_processes (f->session), ==,
                    2);
  g_assert_true (marker_running_in (f->session, marker));
}

static char *
new_marker (void)
{
  return g_strdup_printf ("%u.%u", g_random_int_range (100, 999), getpid ());
}

#ifdef PTY_DOCKER

/* Killing the table's processes (stopping does it first) leaves nothing
 * running in the container: asked inside it, before the container
 * itself stops. */
static void
test_nothing_left_after_stop (Fixture *f, gconstpointer data)
{
  g_autofree char *marker = new_marker ();
  Marker m = { f->session, marker };

  assert_marker_running (f, marker);
  agents_sandbox_session_pty_terminate_all (f->session);
  g_assert_cmpuint (agents_sandbox_session_pty_get_n_processes (f->session), ==,
                    0);
  wait_until (marker_gone, &m);
}

#else

/* Stopping the session kills what still runs in its process table. */
static void
test_nothing_left_after_stop (Fixture *f, gconstpointer data)
{
  g_autofree char *marker = new_marker ();
  Marker m = { f->session, marker };

  assert_marker_running (f, marker);
  stop_session (f);
  g_assert_cmpuint (agents_sandbox_session_pty_get_n_processes (f->session), ==,
                    0);
  wait_until (marker_gone, &m);
}

#endif

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_unsetenv ("AGENTS_PLUGIN_PATH");
  agents_shell_set_test_hooks ("123456", fake_clock);
#ifdef PTY_DOCKER
  {
    g_autofree char *why = NULL;

    agents_docker_register_types ();
    why = agents_docker_test_unavailable ();
    if (why != NULL)
      {
        g_test_add_data_func_full ("/docker/engine", g_strdup (why),
                                   agents_docker_test_skip, g_free);
        return g_test_run ();
      }
  }
#endif

#define ADD(name, func)                                                        \
  g_test_add ("/sandbox/pty/" BACKEND "/" name, Fixture, NULL, fixture_set_up, \
              func, fixture_tear_down)
  ADD ("interactive-cat", test_interactive_cat);
  ADD ("interactive-shell", test_interactive_shell);
  ADD ("outlives-exec-command", test_outlives_exec_command);
  ADD ("nothing-left-after-stop", test_nothing_left_after_stop);
#ifdef PTY_DOCKER
#undef ADD
  return agents_docker_test_run_and_reap ();
#else
  ADD ("interactive-sh", test_interactive_sh);
  /* The table is the library's, whatever the backend: once is enough. */
  ADD ("process-limit", test_process_limit);
#undef ADD
  g_test_add_data_func ("/sandbox/pty/" BACKEND "/identity/none", "none",
                        test_identity);
  g_test_add_data_func ("/sandbox/pty/" BACKEND "/identity/bwrap", "bwrap",
                        test_identity);
  g_test_add_data_func ("/sandbox/pty/" BACKEND "/identity/landlock",
                        "landlock", test_identity);
  return g_test_run ();
#endif
}
