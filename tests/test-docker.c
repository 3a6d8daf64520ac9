/* test-docker.c - the docker backend against the real engine
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <gio/gunixinputstream.h>
#include <glib/gstdio.h>

#include "agents-docker-client.h"
#include "agents-docker-container.h"
#include "agents-docker-engine.h"
#include "agents-docker-session.h"
#include "agents-sandbox-session-private.h"
#include "docker-test-utils.h"
#include "test-utils.h"

#define IMAGE AGENTS_DOCKER_TEST_IMAGE
#define MiB (1024 * 1024)

/* Pid numbers never go past 2^22 on Linux: no process has this one. */
#define DEAD_PID ((1 << 22) + 12345)

/* ---- fixture ---------------------------------------------------------- */

/* Every test gets a client, its own connection to the engine for what it
 * does "from outside", and a temporary directory. The sessions it
 * creates are tracked: whatever container of theirs is still there at
 * the end is a leak, reported as a failure and removed. */
typedef struct
{
  AgentsSandboxClient *client;
  AgentsDockerEngine *engine;
  GPtrArray *session_ids;
  GPtrArray *foreign_ids; /* containers made through the engine */
  char *tmp;
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;

  f->client = agents_docker_client_new ();
  f->engine = agents_docker_engine_new (NULL, &error);
  g_assert_no_error (error);
  f->session_ids = g_ptr_array_new_with_free_func (g_free);
  f->foreign_ids = g_ptr_array_new_with_free_func (g_free);
  f->tmp = agents_test_make_tmp_dir ("docker-test-");
}

static JsonNode *
engine_call (Fixture *f,
             const char *method,
             const char *path,
             const char *body_json,
             GError **error)
{
  g_autoptr (JsonNode) body = NULL;

  if (body_json != NULL)
    {
      body = json_from_string (body_json, error);
      g_assert_nonnull (body);
    }
  return agents_docker_engine_call_json (f->engine, method, path, body, NULL,
                                         NULL, error);
}

static void
remove_container_quietly (Fixture *f, const char *id)
{
  g_autofree char *path =
    g_strdup_printf ("/containers/%s?force=true&v=true", id);
  g_autoptr (JsonNode) answer = engine_call (f, "DELETE", path, NULL, NULL);
}

static JsonArray *
list_session_containers (Fixture *f, const char *session_id, JsonNode **holder)
{
  g_autofree char *filter = g_strdup_printf (
    "{\"label\":[\"" AGENTS_DOCKER_LABEL_SESSION "=%s\"]}", session_id);
  g_autofree char *escaped = agents_docker_engine_escape (filter);
  g_autofree char *path =
    g_strdup_printf ("/containers/json?all=true&filters=%s", escaped);
  g_autoptr (GError) error = NULL;

  *holder = engine_call (f, "GET", path, NULL, &error);
  g_assert_no_error (error);
  return json_node_get_array (*holder);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  guint leaked = 0;

  for (guint i = 0; i < f->foreign_ids->len; i++)
    remove_container_quietly (f, g_ptr_array_index (f->foreign_ids, i));
  for (guint i = 0; i < f->session_ids->len; i++)
    {
      g_autoptr (JsonNode) holder = NULL;
      JsonArray *left = list_session_containers (
        f, g_ptr_array_index (f->session_ids, i), &holder);

      for (guint j = 0; j < json_array_get_length (left); j++)
        {
          const char *id = json_object_get_string_member (
            json_array_get_object_element (left, j), "Id");

          g_test_message ("container %s of session %s left behind", id,
                          (char *) g_ptr_array_index (f->session_ids, i));
          remove_container_quietly (f, id);
          leaked++;
        }
    }
  if (leaked > 0)
    g_test_fail ();

  agents_test_rm_rf (f->tmp);
  g_free (f->tmp);
  g_ptr_array_unref (f->foreign_ids);
  g_ptr_array_unref (f->session_ids);
  g_clear_object (&f->engine);
  g_clear_object (&f->client);
}

static void
track_session (Fixture *f, AgentsSandboxSession *session)
{
  const char *id = agents_sandbox_session_state_get_session_id (
    agents_sandbox_session_peek_state (session));

  for (guint i = 0; i < f->session_ids->len; i++)
    if (g_str_equal (g_ptr_array_index (f->session_ids, i), id))
      return;
  g_ptr_array_add (f->session_ids, g_strdup (id));
}

/* ---- the engine, from outside ----------------------------------------- */

static const char *
container_id (AgentsSandboxSession *session)
{
  return agents_docker_session_state_get_container_id (
    AGENTS_DOCKER_SESSION_STATE (agents_sandbox_session_peek_state (session)));
}

/* The engine's inspect answer, or NULL when the container is gone. */
static JsonNode *
inspect_container (Fixture *f, const char *id)
{
  g_autofree char *path = g_strdup_printf ("/containers/%s/json", id);
  g_autoptr (GError) error = NULL;
  JsonNode *answer = engine_call (f, "GET", path, NULL, &error);

  if (answer == NULL)
    {
      g_assert_error (error, AGENTS_DOCKER_ERROR,
                      AGENTS_DOCKER_ERROR_NOT_FOUND);
      return NULL;
    }
  return answer;
}

static gboolean
container_exists (Fixture *f, const char *id)
{
  g_autoptr (JsonNode) info = inspect_container (f, id);

  return info != NULL;
}

static gboolean
container_running (Fixture *f, const char *id)
{
  g_autoptr (JsonNode) info = inspect_container (f, id);
  JsonObject *state;

  if (info == NULL)
    return FALSE;
  state = json_object_get_object_member (json_node_get_object (info), "State");
  return json_object_get_boolean_member (state, "Running");
}

static void
engine_remove_container (Fixture *f, const char *id)
{
  g_autofree char *path = g_strdup_printf ("/containers/%s?force=true", id);
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) answer = engine_call (f, "DELETE", path, NULL, &error);

  g_assert_no_error (error);
}

/* Creates and starts a container that libagents did not make for any
 * session of this test (labels as given, JSON object members). */
static char *
engine_create_container (Fixture *f, const char *labels_json)
{
  g_autofree char *body = g_strdup_printf (
    "{\"Image\": \"" IMAGE "\", \"Cmd\": [\"sleep\", \"600\"],"
    " \"Labels\": {%s}, \"HostConfig\": {\"NetworkMode\": \"none\"}}",
    labels_json);
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) created =
    engine_call (f, "POST", "/containers/create", body, &error);
  g_autoptr (JsonNode) started = NULL;
  g_autofree char *start_path = NULL;
  char *id;

  g_assert_no_error (error);
  id = g_strdup (
    json_object_get_string_member (json_node_get_object (created), "Id"));
  g_ptr_array_add (f->foreign_ids, g_strdup (id));
  start_path = g_strdup_printf ("/containers/%s/start", id);
  started = engine_call (f, "POST", start_path, NULL, &error);
  g_assert_no_error (error);
  return id;
}

/* ---- the session API, synchronously ------------------------------------ */

static GVariant *
image_options (void)
{
  return g_variant_new_parsed ("{'image': <%s>}", IMAGE);
}

static AgentsSandboxSession *
create_session_full (Fixture *f,
                     AgentsManifest *manifest,
                     GVariant *options,
                     GObject *snapshot,
                     GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;
  AgentsSandboxSession *session;

  AGENTS_TEST_AWAIT (result, agents_sandbox_client_create_async (
                               f->client, manifest, options, snapshot, NULL,
                               agents_test_async_cb, &result));
  session = agents_sandbox_client_create_finish (f->client, result, error);
  if (session != NULL)
    track_session (f, session);
  return session;
}

static gboolean
start_session (AgentsSandboxSession *session, GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  AGENTS_TEST_AWAIT (result, agents_sandbox_session_start_async (
                               session, NULL, agents_test_async_cb, &result));
  return agents_sandbox_session_start_finish (session, result, error);
}

static void
start_ok (AgentsSandboxSession *session)
{
  g_autoptr (GError) error = NULL;
  gboolean started = start_session (session, &error);

  g_assert_no_error (error);
  g_assert_true (started);
}

/* A started session of the test image. */
static AgentsSandboxSession *
new_started_session (Fixture *f, AgentsManifest *manifest, GObject *snapshot)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsSandboxSession) session =
    create_session_full (f, manifest, image_options (), snapshot, &error);

  g_assert_no_error (error);
  g_assert_true (AGENTS_IS_DOCKER_SESSION (session));
  g_assert_nonnull (container_id (session));
  g_assert_true (start_session (session, &error));
  g_assert_no_error (error);
  return g_steal_pointer (&session);
}

/* Resumes @state as a caller configured with @options (floating, or
 * NULL) and @snapshot would. */
static AgentsSandboxSession *
resume_session_full (Fixture *f,
                     AgentsSandboxSessionState *state,
                     GVariant *options,
                     GObject *snapshot,
                     GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GVariant) owned = options ? g_variant_ref_sink (options) : NULL;
  AgentsSandboxSession *session;

  AGENTS_TEST_AWAIT (result, agents_sandbox_client_resume_with_options_async (
                               f->client, state, owned, snapshot, NULL,
                               agents_test_async_cb, &result));
  session = agents_sandbox_client_resume_finish (f->client, result, error);
  if (session != NULL)
    track_session (f, session);
  return session;
}

static AgentsSandboxSession *
resume_session (Fixture *f, AgentsSandboxSessionState *state, GObject *snapshot)
{
  g_autoptr (GError) error = NULL;
  AgentsSandboxSession *session =
    resume_session_full (f, state, image_options (), snapshot, &error);

  g_assert_no_error (error);
  return session;
}

static gboolean
delete_session_full (Fixture *f, AgentsSandboxSession *session, GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  AGENTS_TEST_AWAIT (
    result, agents_sandbox_client_delete_async (f->client, session, NULL,
                                                agents_test_async_cb, &result));
  return agents_sandbox_client_delete_finish (f->client, result, error);
}

/* Deletes the session and checks that its container is gone. */
static void
delete_session (Fixture *f, AgentsSandboxSession *session)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *id = g_strdup (container_id (session));

  g_assert_true (delete_session_full (f, session, &error));
  g_assert_no_error (error);
  if (id != NULL)
    g_assert_false (container_exists (f, id));
}

static void
stop_session (AgentsSandboxSession *session)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;

  AGENTS_TEST_AWAIT (result, agents_sandbox_session_stop_async (
                               session, NULL, agents_test_async_cb, &result));
  g_assert_true (agents_sandbox_session_stop_finish (session, result, &error));
  g_assert_no_error (error);
}

static void
shutdown_session (AgentsSandboxSession *session)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;

  AGENTS_TEST_AWAIT (result, agents_sandbox_session_shutdown_async (
                               session, NULL, agents_test_async_cb, &result));
  g_assert_true (
    agents_sandbox_session_shutdown_finish (session, result, &error));
  g_assert_no_error (error);
}

static gboolean
session_running (AgentsSandboxSession *session)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  gboolean running;

  AGENTS_TEST_AWAIT (result, agents_sandbox_session_running_async (
                               session, NULL, agents_test_async_cb, &result));
  running = agents_sandbox_session_running_finish (session, result, &error);
  g_assert_no_error (error);
  return running;
}

static AgentsExecResult *
exec_full (AgentsSandboxSession *session,
           const char *const *argv,
           double timeout,
           GCancellable *cancellable,
           GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  AGENTS_TEST_AWAIT (result, agents_sandbox_session_exec_async (
                               session, argv, timeout, FALSE, NULL, cancellable,
                               agents_test_async_cb, &result));
  return agents_sandbox_session_exec_finish (session, result, error);
}

static AgentsExecResult *
exec_argv (AgentsSandboxSession *session, const char *const *argv)
{
  g_autoptr (GError) error = NULL;
  AgentsExecResult *result = exec_full (session, argv, 0, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (result);
  return result;
}

/* Runs a shell script that must succeed, and returns its stdout. */
static char *
exec_script (AgentsSandboxSession *session, const char *script)
{
  const char *argv[] = { "sh", "-c", script, NULL };
  g_autoptr (AgentsExecResult) result = exec_argv (session, argv);
  g_autofree char *err = agents_exec_result_dup_stderr_text (result);

  if (agents_exec_result_get_exit_code (result) != 0)
    g_test_message ("script %s failed: %s", script, err);
  g_assert_cmpint (agents_exec_result_get_exit_code (result), ==, 0);
  return agents_exec_result_dup_stdout_text (result);
}

static GBytes *
read_bytes_full (AgentsSandboxSession *session,
                 const char *path,
                 GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  AGENTS_TEST_AWAIT (
    result, agents_sandbox_session_read_bytes_async (
              session, path, NULL, NULL, agents_test_async_cb, &result));
  return agents_sandbox_session_read_bytes_finish (session, result, error);
}

static char *
read_text (AgentsSandboxSession *session, const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = read_bytes_full (session, path, &error);

  g_assert_no_error (error);
  return g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
}

static gboolean
write_bytes_full (AgentsSandboxSession *session,
                  const char *path,
                  GBytes *bytes,
                  GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  AGENTS_TEST_AWAIT (
    result, agents_sandbox_session_write_bytes_async (
              session, path, bytes, NULL, NULL, agents_test_async_cb, &result));
  return agents_sandbox_session_write_bytes_finish (session, result, error);
}

static void
write_text (AgentsSandboxSession *session, const char *path, const char *text)
{
  g_autoptr (GBytes) bytes = g_bytes_new (text, strlen (text));
  g_autoptr (GError) error = NULL;

  g_assert_true (write_bytes_full (session, path, bytes, &error));
  g_assert_no_error (error);
}

static gboolean
write_stream (AgentsSandboxSession *session,
              const char *path,
              GInputStream *data,
              GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  AGENTS_TEST_AWAIT (
    result, agents_sandbox_session_write_async (session, path, data, NULL, NULL,
                                                agents_test_async_cb, &result));
  return agents_sandbox_session_write_finish (session, result, error);
}

static GInputStream *
read_stream (AgentsSandboxSession *session, const char *path)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  GInputStream *stream;

  AGENTS_TEST_AWAIT (
    result, agents_sandbox_session_read_async (session, path, NULL, NULL,
                                               agents_test_async_cb, &result));
  stream = agents_sandbox_session_read_finish (session, result, &error);
  g_assert_no_error (error);
  return stream;
}

static JsonNode *
serialize_state (Fixture *f, AgentsSandboxSession *session)
{
  return agents_sandbox_client_serialize_session_state (
    f->client, agents_sandbox_session_peek_state (session));
}

static AgentsSandboxSessionState *
deserialize_state (Fixture *f, JsonNode *json)
{
  g_autoptr (GError) error = NULL;
  AgentsSandboxSessionState *state =
    agents_sandbox_client_deserialize_session_state (f->client, json, &error);

  g_assert_no_error (error);
  g_assert_true (AGENTS_IS_DOCKER_SESSION_STATE (state));
  return state;
}

static void
assert_reason (const GError *error, const char *reason)
{
  g_assert_cmpstr (agents_sandbox_error_get_reason (error), ==, reason);
}

/* ---- lifecycle -------------------------------------------------------- */

/* A workspace persisted by stop comes back, from the snapshot, in a new
 * container when the old one was removed behind the session's back. */
static void
test_resume_after_container_removed (Fixture *f, gconstpointer data)
{
  g_autofree char *snapshots = g_build_filename (f->tmp, "snapshots", NULL);
  g_autoptr (AgentsLocalSnapshotSpec) spec =
    agents_local_snapshot_spec_new (snapshots);
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (AgentsSandboxSession) resumed = NULL;
  g_autoptr (AgentsSandboxSessionState) state = NULL;
  g_autoptr (JsonNode) json = NULL;
  g_autofree char *first_id = NULL;
  g_autofree char *out = NULL;
  g_autofree char *text = NULL;
  g_autofree char *nested = NULL;
  g_autofree char *second_id = NULL;

  g_assert_cmpint (g_mkdir (snapshots, 0700), ==, 0);
  session = new_started_session (f, NULL, G_OBJECT (spec));
  first_id = g_strdup (container_id (session));
  g_assert_true (container_running (f, first_id));

  out =
    exec_script (session, "echo hello; mkdir -p d && printf beta > d/b.txt");
  g_assert_cmpstr (out, ==, "hello\n");
  write_text (session, "a.txt", "alpha");
  text = read_text (session, "a.txt");
  g_assert_cmpstr (text, ==, "alpha");
  g_clear_pointer (&text, g_free);

  stop_session (session);
  json = serialize_state (f, session);

  /* Gone behind the session's back. */
  engine_remove_container (f, first_id);
  g_assert_false (container_exists (f, first_id));

  state = deserialize_state (f, json);
  resumed = resume_session (f, state, G_OBJECT (spec));
  start_ok (resumed);
  second_id = g_strdup (container_id (resumed));
  g_assert_nonnull (second_id);
  g_assert_cmpstr (second_id, !=, first_id);
  g_assert_true (container_running (f, second_id));

  text = read_text (resumed, "a.txt");
  g_assert_cmpstr (text, ==, "alpha");
  nested = read_text (resumed, "d/b.txt");
  g_assert_cmpstr (nested, ==, "beta");

  /* The first session's container is gone already: not an error. */
  delete_session (f, session);
  delete_session (f, resumed);
  g_assert_false (container_exists (f, second_id));
}

/* Resuming while the container still exists reuses it, as it is: its
 * workspace is newer than the snapshot and is not hydrated over. */
static void
test_resume_reuses_container (Fixture *f, gconstpointer data)
{
  g_autofree char *snapshots = g_build_filename (f->tmp, "snapshots", NULL);
  g_autoptr (AgentsLocalSnapshotSpec) spec =
    agents_local_snapshot_spec_new (snapshots);
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (AgentsSandboxSession) kept = NULL;
  g_autoptr (AgentsSandboxSession) restored = NULL;
  g_autoptr (AgentsSandboxSessionState) state = NULL;
  g_autoptr (JsonNode) json = NULL;
  g_autofree char *inode = NULL;
  g_autofree char *inode_kept = NULL;
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) later = NULL;
  const char *inode_script = "stat -c %i a.txt";

  g_assert_cmpint (g_mkdir (snapshots, 0700), ==, 0);
  session = new_started_session (f, NULL, G_OBJECT (spec));
  write_text (session, "a.txt", "one");
  stop_session (session);
  inode = exec_script (session, inode_script);

  /* Unchanged since the snapshot (its fingerprint matches): the
   * workspace is kept as it is, not restored (SNAP-18). */
  json = serialize_state (f, session);
  state = deserialize_state (f, json);
  kept = resume_session (f, state, G_OBJECT (spec));
  g_assert_cmpstr (container_id (kept), ==, container_id (session));
  start_ok (kept);
  inode_kept = exec_script (kept, inode_script);
  g_assert_cmpstr (inode_kept, ==, inode);
  g_clear_pointer (&json, json_node_unref);
  g_clear_object (&state);

  /* Changed after the snapshot: as the reference, the start restores
   * the snapshot into the reused container (SNAP-08). */
  write_text (kept, "a.txt", "two");
  write_text (kept, "later.txt", "after the snapshot");
  json = serialize_state (f, kept);
  state = deserialize_state (f, json);
  restored = resume_session (f, state, G_OBJECT (spec));
  g_assert_cmpstr (container_id (restored), ==, container_id (session));
  start_ok (restored);
  g_assert_cmpstr (container_id (restored), ==, container_id (session));

  text = read_text (restored, "a.txt");
  g_assert_cmpstr (text, ==, "one");
  later = read_bytes_full (restored, "later.txt", &error);
  g_assert_null (later);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_WORKSPACE_READ_NOT_FOUND);

  delete_session (f, restored);
  delete_session (f, kept);
  delete_session (f, session);
}

/* Shutdown stops the container; a later start starts it again, with
 * what its workspace had. */
static void
test_shutdown_and_restart (Fixture *f, gconstpointer data)
{
  g_autoptr (AgentsSandboxSession) session =
    new_started_session (f, NULL, NULL);
  g_autofree char *id = g_strdup (container_id (session));
  g_autofree char *text = NULL;
  g_autofree char *made = NULL;

  write_text (session, "a.txt", "kept");
  g_free (exec_script (session, "mkdir -p sub && echo made > sub/m.txt"));
  g_assert_true (session_running (session));

  shutdown_session (session);
  g_assert_false (session_running (session));
  g_assert_true (container_exists (f, id));
  g_assert_false (container_running (f, id));

  start_ok (session);
  g_assert_true (session_running (session));
  g_assert_cmpstr (container_id (session), ==, id);
  text = read_text (session, "a.txt");
  g_assert_cmpstr (text, ==, "kept");
  made = read_text (session, "sub/m.txt");
  g_assert_cmpstr (made, ==, "made\n");

  delete_session (f, session);
}

/* A container killed from outside is not running. */
static void
test_killed_from_outside (Fixture *f, gconstpointer data)
{
  g_autoptr (AgentsSandboxSession) session =
    new_started_session (f, NULL, NULL);
  g_autofree char *path =
    g_strdup_printf ("/containers/%s/kill", container_id (session));
  g_autoptr (JsonNode) answer = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_true (session_running (session));
  answer = engine_call (f, "POST", path, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (session_running (session));

  delete_session (f, session);
}

/* ---- exec ------------------------------------------------------------- */

static GBytes *
pattern_bytes (gsize size, guint seed)
{
  guint8 *data = g_malloc (size);
  guint32 x = seed * 2654435761u + 1;

  for (gsize i = 0; i < size; i++)
    {
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
      data[i] = x >> 24;
    }
  return g_bytes_new_take (data, size);
}

static void
assert_bytes_equal (GBytes *actual, GBytes *expected)
{
  g_assert_cmpuint (g_bytes_get_size (actual), ==, g_bytes_get_size (expected));
  g_assert_true (g_bytes_equal (actual, expected));
}

/* stdout and stderr stay apart, byte for byte, binary included. */
static void
test_exec_binary_streams (Fixture *f, gconstpointer data)
{
  g_autoptr (AgentsSandboxSession) session =
    new_started_session (f, NULL, NULL);
  const char *argv[] = { "sh", "-c",
                         "cat all.bin; cat err.bin >&2; cat all.bin; "
                         "printf '\\000' >&2",
                         NULL };
  guint8 all[256], err[300];
  g_autoptr (GBytes) all_bytes = NULL;
  g_autoptr (GBytes) err_bytes = NULL;
  g_autoptr (GByteArray) want_out = g_byte_array_new ();
  g_autoptr (GByteArray) want_err = g_byte_array_new ();
  g_autoptr (GBytes) want_out_bytes = NULL;
  g_autoptr (GBytes) want_err_bytes = NULL;
  g_autoptr (AgentsExecResult) result = NULL;
  g_autoptr (GError) error = NULL;

  for (guint i = 0; i < 256; i++)
    all[i] = i;
  /* Different bytes: descending, with frame-header-like runs. */
  for (guint i = 0; i < sizeof err; i++)
    err[i] = i < 256 ? 255 - i : (i % 3 == 0 ? 1 : 0);
  all_bytes = g_bytes_new (all, sizeof all);
  err_bytes = g_bytes_new (err, sizeof err);
  g_assert_true (write_bytes_full (session, "all.bin", all_bytes, &error));
  g_assert_no_error (error);
  g_assert_true (write_bytes_full (session, "err.bin", err_bytes, &error));
  g_assert_no_error (error);

  result = exec_argv (session, argv);
  g_assert_cmpint (agents_exec_result_get_exit_code (result), ==, 0);

  g_byte_array_append (want_out, all, sizeof all);
  g_byte_array_append (want_out, all, sizeof all);
  g_byte_array_append (want_err, err, sizeof err);
  g_byte_array_append (want_err, (const guint8 *) "", 1);
  want_out_bytes = g_byte_array_free_to_bytes (g_steal_pointer (&want_out));
  want_err_bytes = g_byte_array_free_to_bytes (g_steal_pointer (&want_err));
  assert_bytes_equal (agents_exec_result_get_stdout (result), want_out_bytes);
  assert_bytes_equal (agents_exec_result_get_stderr (result), want_err_bytes);

  delete_session (f, session);
}

/* 20 MB on stdout (and some on stderr at the same time) arrive whole. */
static void
test_exec_large_output (Fixture *f, gconstpointer data)
{
  g_autoptr (AgentsSandboxSession) session =
    new_started_session (f, NULL, NULL);
  const gsize out_size = 20 * 1000 * 1000 + 7;
  const gsize err_size = 3 * 1000 * 1000 + 1;
  const char *line = "libagents docker large output 0123456789\n";
  g_autofree char *script = g_strdup_printf (
    "yes 'libagents docker large output 0123456789' | head -c %" G_GSIZE_FORMAT
    " & yes e | head -c %" G_GSIZE_FORMAT " >&2; wait",
    out_size, err_size);
  const char *argv[] = { "sh", "-c", script, NULL };
  g_autoptr (GString) want_out = g_string_sized_new (out_size + 64);
  g_autoptr (GString) want_err = g_string_sized_new (err_size + 2);
  g_autoptr (AgentsExecResult) result = NULL;
  GBytes *out, *err;

  while (want_out->len < out_size)
    g_string_append (want_out, line);
  g_string_truncate (want_out, out_size);
  while (want_err->len < err_size)
    g_string_append (want_err, "e\n");
  g_string_truncate (want_err, err_size);

  result = exec_argv (session, argv);
  g_assert_cmpint (agents_exec_result_get_exit_code (result), ==, 0);
  out = agents_exec_result_get_stdout (result);
  err = agents_exec_result_get_stderr (result);
  g_assert_cmpuint (g_bytes_get_size (out), ==, out_size);
  g_assert_cmpuint (g_bytes_get_size (err), ==, err_size);
  g_assert_cmpmem (g_bytes_get_data (out, NULL), out_size, want_out->str,
                   out_size);
  g_assert_cmpmem (g_bytes_get_data (err, NULL), err_size, want_err->str,
                   err_size);

  delete_session (f, session);
}

static int
exit_code_of (AgentsSandboxSession *session, const char *const *argv)
{
  g_autoptr (AgentsExecResult) result = exec_argv (session, argv);

  return agents_exec_result_get_exit_code (result);
}

static void
test_exec_exit_codes (Fixture *f, gconstpointer data)
{
  g_autoptr (AgentsSandboxSession) session =
    new_started_session (f, NULL, NULL);
  const char *ok[] = { "true", NULL };
  const char *one[] = { "false", NULL };
  const char *forty_two[] = { "sh", "-c", "exit 42", NULL };
  const char *missing[] = { "no-such-command-here", "arg", NULL };
  g_autoptr (AgentsExecResult) result = NULL;

  g_assert_cmpint (exit_code_of (session, ok), ==, 0);
  g_assert_cmpint (exit_code_of (session, one), ==, 1);
  g_assert_cmpint (exit_code_of (session, forty_two), ==, 42);

  /* Not a transport error: the command ran (and failed to be found). */
  result = exec_argv (session, missing);
  g_assert_cmpint (agents_exec_result_get_exit_code (result), ==, 127);
  g_assert_false (agents_exec_result_ok (result));

  delete_session (f, session);
}

/* Arguments arrive as given: no shell sees them on the way. */
static void
test_exec_argv_verbatim (Fixture *f, gconstpointer data)
{
  g_autoptr (AgentsSandboxSession) session =
    new_started_session (f, NULL, NULL);
  const char *argv[] = { "sh",
                         "-c",
                         "for a in \"$@\"; do printf '[%s]' \"$a\"; done",
                         "sh",
                         "two words",
                         "'single'",
                         "\"double\"",
                         "$HOME",
                         "${PATH}",
                         "a;b",
                         "x\ny",
                         "",
                         "*",
                         "$(id)",
                         "`id`",
                         "back\\slash",
                         "tab\there",
                         NULL };
  g_autoptr (AgentsExecResult) result = exec_argv (session, argv);
  g_autofree char *out = agents_exec_result_dup_stdout_text (result);

  g_assert_cmpint (agents_exec_result_get_exit_code (result), ==, 0);
  g_assert_cmpstr (out, ==,
                   "[two words]['single'][\"double\"][$HOME][${PATH}][a;b]"
                   "[x\ny][][*][$(id)][`id`][back\\slash][tab\there]");

  delete_session (f, session);
}

/* The manifest's environment is the commands' environment. */
static void
test_exec_manifest_env (Fixture *f, gconstpointer data)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsSandboxSession) session = NULL;
  const char *argv[] = { "sh", "-c",
                         "printf '%s|%s' \"$AGENTS_TEST_GREETING\" "
                         "\"$AGENTS_TEST_EMPTY\"",
                         NULL };
  const char *env_argv[] = { "env", NULL };
  g_autoptr (AgentsExecResult) result = NULL;
  g_autoptr (AgentsExecResult) env = NULL;
  g_autofree char *out = NULL;
  g_autofree char *env_out = NULL;

  agents_manifest_set_env (manifest, "AGENTS_TEST_GREETING",
                           "hello world; $x \"q\"");
  agents_manifest_set_env (manifest, "AGENTS_TEST_EMPTY", "");
  session = new_started_session (f, manifest, NULL);

  result = exec_argv (session, argv);
  out = agents_exec_result_dup_stdout_text (result);
  g_assert_cmpstr (out, ==, "hello world; $x \"q\"|");

  env = exec_argv (session, env_argv);
  env_out = agents_exec_result_dup_stdout_text (env);
  g_assert_nonnull (strstr (env_out, "\nAGENTS_TEST_EMPTY=\n"));

  delete_session (f, session);
}

/* Running as another user goes through the exec's user: the image has
 * no sudo, and none is needed. */
static void
test_exec_run_as (Fixture *f, gconstpointer data)
{
  g_autoptr (AgentsSandboxSession) session =
    new_started_session (f, NULL, NULL);
  const char *argv[] = { "sh", "-c", "id -un; pwd", NULL };
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (AgentsExecResult) as_agent = NULL;
  g_autoptr (AgentsExecResult) as_default = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *default_out = NULL;

  AGENTS_TEST_AWAIT (
    res, agents_sandbox_session_exec_async (session, argv, 0, FALSE, "agent",
                                            NULL, agents_test_async_cb, &res));
  as_agent = agents_sandbox_session_exec_finish (session, res, &error);
  g_assert_no_error (error);
  out = agents_exec_result_dup_stdout_text (as_agent);
  g_assert_cmpstr (out, ==, "agent\n/workspace\n");

  as_default = exec_argv (session, argv);
  default_out = agents_exec_result_dup_stdout_text (as_default);
  g_assert_cmpstr (default_out, ==, "root\n/workspace\n");

  delete_session (f, session);
}

/* What a command leaves writing in the background never shows up in a
 * later command's output. */
static void
test_exec_background_writer (Fixture *f, gconstpointer data)
{
  g_autoptr (AgentsSandboxSession) session =
    new_started_session (f, NULL, NULL);
  const char *first[] = { "sh", "-c",
                          "(sleep 0.5; echo stray; echo stray >&2) & "
                          "echo first",
                          NULL };
  const char *second[] = { "sh", "-c", "sleep 1.5; echo second", NULL };
  g_autoptr (AgentsExecResult) r1 = exec_argv (session, first);
  g_autoptr (AgentsExecResult) r2 = exec_argv (session, second);
  g_autofree char *out1 = agents_exec_result_dup_stdout_text (r1);
  g_autofree char *out2 = agents_exec_result_dup_stdout_text (r2);
  g_autofree char *err2 = agents_exec_result_dup_stderr_text (r2);

  g_assert_cmpstr (out1, ==, "first\n");
  g_assert_cmpstr (out2, ==, "second\n");
  g_assert_cmpstr (err2, ==, "");
  delete_session (f, session);
}

typedef struct
{
  GAsyncResult *results[8];
} Concurrent;

static void
concurrent_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GAsyncResult **slot = user_data;

  *slot = g_object_ref (result);
}

/* Commands run side by side (exec servers, then plain execs past the
 * pool), each getting its own output. */
static void
test_exec_concurrent (Fixture *f, gconstpointer data)
{
  g_autoptr (AgentsSandboxSession) session =
    new_started_session (f, NULL, NULL);
  Concurrent c = { { NULL } };
  char *scripts[G_N_ELEMENTS (c.results)] = { NULL };

  /* Side by side, not one after the other: each command waits until all
   * have started (30 s at most), and says its number only if they did. */
  for (guint i = 0; i < G_N_ELEMENTS (c.results); i++)
    {
      const char *argv[] = { "sh", "-c", NULL, NULL };

      scripts[i] = g_strdup_printf (
        "touch together.%u; n=0; "
        "while [ \"$(ls together.* | wc -l)\" -lt %u ] && [ $n -lt 300 ]; "
        "do sleep 0.1; n=$((n + 1)); done; "
        "[ \"$(ls together.* | wc -l)\" -eq %u ] && echo %u; echo e%u >&2",
        i, (guint) G_N_ELEMENTS (c.results), (guint) G_N_ELEMENTS (c.results),
        i, i);
      argv[2] = scripts[i];
      agents_sandbox_session_exec_async (session, argv, 0, FALSE, NULL, NULL,
                                         concurrent_done, &c.results[i]);
    }
  for (guint i = 0; i < G_N_ELEMENTS (c.results); i++)
    {
      g_autoptr (AgentsExecResult) result = NULL;
      g_autoptr (GError) error = NULL;
      g_autofree char *want_out = g_strdup_printf ("%u\n", i);
      g_autofree char *want_err = g_strdup_printf ("e%u\n", i);
      g_autofree char *out = NULL;
      g_autofree char *err = NULL;

      while (c.results[i] == NULL)
        g_main_context_iteration (NULL, TRUE);
      result =
        agents_sandbox_session_exec_finish (session, c.results[i], &error);
      g_assert_no_error (error);
      out = agents_exec_result_dup_stdout_text (result);
      err = agents_exec_result_dup_stderr_text (result);
      g_assert_cmpstr (out, ==, want_out);
      g_assert_cmpstr (err, ==, want_err);
      g_clear_object (&c.results[i]);
      g_free (scripts[i]);
    }
  delete_session (f, session);
}

/* Whether a process whose command line contains @needle (not followed
 * by a digit) runs in the session's container (busybox ps lists them
 * all). */
static gboolean
ps_has (AgentsSandboxSession *session, const char *needle)
{
  const char *argv[] = { "ps", "-o", "pid,args", NULL };
  g_autoptr (AgentsExecResult) result = exec_argv (session, argv);
  g_autofree char *out = agents_exec_result_dup_stdout_text (result);
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);

  g_assert_cmpint (agents_exec_result_get_exit_code (result), ==, 0);
  for (guint i = 0; lines[i] != NULL; i++)
    for (const char *p = strstr (lines[i], needle); p != NULL;
         p = strstr (p + 1, needle))
      /* "sleep 36" is not "sleep 3600" (the container's idle loop). */
      if (!g_ascii_isdigit (p[strlen (needle)]))
        {
          g_test_message ("still running: %s", lines[i]);
          return TRUE;
        }
  return FALSE;
}

static void
assert_times_out (AgentsSandboxSession *session,
                  const char *const *argv,
                  double timeout,
                  double max_seconds)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsExecResult) result = NULL;
  gint64 started = g_get_monotonic_time ();
  double elapsed;

  result = exec_full (session, argv, timeout, NULL, &error);
  elapsed = (g_get_monotonic_time () - started) / (double) G_USEC_PER_SEC;
  g_assert_null (result);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_EXEC_TIMEOUT);
  g_test_message ("timed out after %.2f s", elapsed);
  g_assert_cmpfloat (elapsed, >=, timeout - 0.05);
  g_assert_cmpfloat (elapsed, <, max_seconds);
}

/* A timeout ends the command inside the container, not just the wait. */
static void
test_exec_timeout (Fixture *f, gconstpointer data)
{
  g_autoptr (AgentsSandboxSession) session =
    new_started_session (f, NULL, NULL);
  const char *argv[] = { "sleep", "30", NULL };
  const char *after[] = { "echo", "still usable", NULL };
  g_autoptr (AgentsExecResult) result = NULL;
  g_autofree char *out = NULL;

  assert_times_out (session, argv, 1, 3);
  g_assert_false (ps_has (session, "sleep 30"));

  result = exec_argv (session, after);
  out = agents_exec_result_dup_stdout_text (result);
  g_assert_cmpstr (out, ==, "still usable\n");

  delete_session (f, session);
}

/* What the command forked goes too. */
static void
test_exec_timeout_kills_children (Fixture *f, gconstpointer data)
{
  g_autoptr (AgentsSandboxSession) session =
    new_started_session (f, NULL, NULL);
  const char *argv[] = { "sh", "-c", "sleep 31 & sleep 32; wait", NULL };
  const char *detached[] = { "sh", "-c", "(sleep 33 &) ; sleep 34", NULL };

  assert_times_out (session, argv, 1, 3);
  g_assert_false (ps_has (session, "sleep 31"));
  g_assert_false (ps_has (session, "sleep 32"));

  /* A grandchild reparented to init is still the command's. */
  assert_times_out (session, detached, 1, 3);
  g_assert_false (ps_has (session, "sleep 33"));
  g_assert_false (ps_has (session, "sleep 34"));

  delete_session (f, session);
}

static gboolean
cancel_now (gpointer data)
{
  g_cancellable_cancel (data);
  return G_SOURCE_REMOVE;
}

/* Cancelling from the caller ends the wait at once and the command in
 * the container. */
static void
test_exec_cancel (Fixture *f, gconstpointer data)
{
  g_autoptr (AgentsSandboxSession) session =
    new_started_session (f, NULL, NULL);
  const char *argv[] = { "sh", "-c", "sleep 35 & sleep 36", NULL };
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (AgentsExecResult) result = NULL;
  g_autoptr (GError) error = NULL;
  gint64 started = g_get_monotonic_time ();
  double elapsed;

  g_timeout_add (300, cancel_now, cancellable);
  result = exec_full (session, argv, 0, cancellable, &error);
  elapsed = (g_get_monotonic_time () - started) / (double) G_USEC_PER_SEC;
  g_assert_null (result);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_test_message ("cancelled after %.2f s", elapsed);
  g_assert_cmpfloat (elapsed, <, 2);
  g_assert_false (ps_has (session, "sleep 35"));
  g_assert_false (ps_has (session, "sleep 36"));

  delete_session (f, session);
}

/* ---- files ------------------------------------------------------------ */

/* Writes @size pseudo-random bytes to @path and returns their SHA-256. */
static char *
make_big_file (const char *path, guint64 size)
{
  g_autoptr (GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);
  g_autoptr (GError) error = NULL;
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GFileOutputStream) out =
    g_file_replace (file, NULL, FALSE, G_FILE_CREATE_PRIVATE, NULL, &error);
  guint32 *block = g_new (guint32, MiB / 4);
  guint32 x = 0x9e3779b9;

  g_assert_no_error (error);
  for (guint64 done = 0; done < size;)
    {
      gsize n = MIN ((guint64) MiB, size - done);

      for (gsize i = 0; i < MiB / 4; i++)
        {
          x ^= x << 13;
          x ^= x >> 17;
          x ^= x << 5;
          block[i] = x;
        }
      g_checksum_update (checksum, (const guchar *) block, n);
      g_assert_true (g_output_stream_write_all (G_OUTPUT_STREAM (out), block, n,
                                                NULL, NULL, &error));
      g_assert_no_error (error);
      done += n;
    }
  g_assert_true (g_output_stream_close (G_OUTPUT_STREAM (out), NULL, &error));
  g_assert_no_error (error);
  g_free (block);
  return g_strdup (g_checksum_get_string (checksum));
}

/* Reads @stream to its end; returns its SHA-256 and size. */
static char *
stream_sha256 (GInputStream *stream, guint64 *size)
{
  g_autoptr (GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);
  g_autoptr (GError) error = NULL;
  g_autofree guint8 *buffer = g_malloc (256 * 1024);
  gssize n;

  *size = 0;
  while ((n = g_input_stream_read (stream, buffer, 256 * 1024, NULL, &error)) >
         0)
    {
      g_checksum_update (checksum, buffer, n);
      *size += n;
    }
  g_assert_no_error (error);
  g_assert_cmpint (n, ==, 0);
  g_assert_true (g_input_stream_close (stream, NULL, &error));
  g_assert_no_error (error);
  return g_strdup (g_checksum_get_string (checksum));
}

/* 200 MB in and out, streamed, byte-identical. */
static void
test_big_file (Fixture *f, gconstpointer data)
{
  const guint64 size = 200 * 1000 * 1000 + 3;
  g_autoptr (AgentsSandboxSession) session =
    new_started_session (f, NULL, NULL);
  g_autofree char *path = g_build_filename (f->tmp, "big.bin", NULL);
  g_autofree char *want = make_big_file (path, size);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GFileInputStream) in = NULL;
  g_autoptr (GInputStream) back = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *got = NULL;
  g_autofree char *stat_out = NULL;
  g_autofree char *want_stat =
    g_strdup_printf ("%" G_GUINT64_FORMAT "\n", size);
  guint64 got_size = 0;
  gint64 started = g_get_monotonic_time ();

  in = g_file_read (file, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (
    write_stream (session, "data/big.bin", G_INPUT_STREAM (in), &error));
  g_assert_no_error (error);
  g_test_message ("wrote 200 MB in %.2f s",
                  (g_get_monotonic_time () - started) / 1e6);
  /* Done with the host copy before the read: one copy at a time. */
  g_clear_object (&in);
  g_unlink (path);

  stat_out = exec_script (session, "stat -c %s data/big.bin");
  g_assert_cmpstr (stat_out, ==, want_stat);

  started = g_get_monotonic_time ();
  back = read_stream (session, "data/big.bin");
  got = stream_sha256 (back, &got_size);
  g_test_message ("read 200 MB in %.2f s",
                  (g_get_monotonic_time () - started) / 1e6);
  g_assert_cmpuint (got_size, ==, size);
  g_assert_cmpstr (got, ==, want);

  delete_session (f, session);
}

typedef struct
{
  int fd;
  GBytes *data;
} PipeWriter;

static gpointer
pipe_writer_thread (gpointer user_data)
{
  PipeWriter *writer = user_data;
  gsize size;
  const guint8 *p = g_bytes_get_data (writer->data, &size);

  while (size > 0)
    {
      gssize n = write (writer->fd, p, MIN (size, 65536));

      if (n < 0 && errno == EINTR)
        continue;
      g_assert_cmpint (n, >, 0);
      p += n;
      size -= n;
    }
  close (writer->fd);
  return NULL;
}

/* A stream that cannot tell its size (a pipe) is spooled first. */
static void
test_write_non_seekable (Fixture *f, gconstpointer data)
{
  g_autoptr (AgentsSandboxSession) session =
    new_started_session (f, NULL, NULL);
  g_autoptr (GBytes) content = pattern_bytes (3 * MiB + 123, 7);
  g_autoptr (GInputStream) in = NULL;
  g_autoptr (GBytes) back = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *size = NULL;
  PipeWriter writer;
  GThread *thread;
  int fds[2];

  g_assert_cmpint (pipe (fds), ==, 0);
  in = g_unix_input_stream_new (fds[0], TRUE);
  g_assert_false (G_IS_SEEKABLE (in) && g_seekable_can_seek (G_SEEKABLE (in)));
  writer.fd = fds[1];
  writer.data = content;
  thread = g_thread_new ("pipe-writer", pipe_writer_thread, &writer);

  g_assert_true (write_stream (session, "piped.bin", in, &error));
  g_assert_no_error (error);
  g_thread_join (thread);
  size = exec_script (session, "stat -c %s piped.bin");
  g_test_message ("piped.bin in the container: %s bytes", g_strstrip (size));

  back = read_bytes_full (session, "piped.bin", &error);
  g_assert_no_error (error);
  assert_bytes_equal (back, content);

  delete_session (f, session);
}

/* A seekable stream of @size bytes whose reads fail from @fail_at on. */
#define TEST_TYPE_FAILING_STREAM (test_failing_stream_get_type ())
G_DECLARE_FINAL_TYPE (
  TestFailingStream, test_failing_stream, TEST, FAILING_STREAM, GInputStream)

struct _TestFailingStream
{
  GInputStream parent_instance;
  goffset pos;
  goffset size;
  goffset fail_at;
};

static void test_failing_stream_seekable_init (GSeekableIface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  TestFailingStream,
  test_failing_stream,
  G_TYPE_INPUT_STREAM,
  G_IMPLEMENT_INTERFACE (G_TYPE_SEEKABLE, test_failing_stream_seekable_init))

static gssize
test_failing_stream_read (GInputStream *stream,
                          void *buffer,
                          gsize count,
                          GCancellable *cancellable,
                          GError **error)
{
  TestFailingStream *self = TEST_FAILING_STREAM (stream);
  gsize n;

  if (self->pos >= self->fail_at)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                           "injected read failure");
      return -1;
    }
  n = MIN ((goffset) count, MIN (self->fail_at, self->size) - self->pos);
  memset (buffer, 'x', n);
  self->pos += n;
  return n;
}

static goffset
test_failing_stream_tell (GSeekable *seekable)
{
  return TEST_FAILING_STREAM (seekable)->pos;
}

static gboolean
test_failing_stream_can_seek (GSeekable *seekable)
{
  return TRUE;
}

static gboolean
test_failing_stream_seek (GSeekable *seekable,
                          goffset offset,
                          GSeekType type,
                          GCancellable *cancellable,
                          GError **error)
{
  TestFailingStream *self = TEST_FAILING_STREAM (seekable);
  goffset base = type == G_SEEK_SET   ? 0
                 : type == G_SEEK_CUR ? self->pos
                                      : self->size;

  if (base + offset < 0 || base + offset > self->size)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           "seek out of range");
      return FALSE;
    }
  self->pos = base + offset;
  return TRUE;
}

static gboolean
test_failing_stream_can_truncate (GSeekable *seekable)
{
  return FALSE;
}

static gboolean
test_failing_stream_truncate (GSeekable *seekable,
                              goffset offset,
                              GCancellable *cancellable,
                              GError **error)
{
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                       "cannot truncate");
  return FALSE;
}

static void
test_failing_stream_seekable_init (GSeekableIface *iface)
{
  iface->tell = test_failing_stream_tell;
  iface->can_seek = test_failing_stream_can_seek;
  iface->seek = test_failing_stream_seek;
  iface->can_truncate = test_failing_stream_can_truncate;
  iface->truncate_fn = test_failing_stream_truncate;
}

static void
test_failing_stream_class_init (TestFailingStreamClass *klass)
{
  G_INPUT_STREAM_CLASS (klass)->read_fn = test_failing_stream_read;
}

static void
test_failing_stream_init (TestFailingStream *self)
{
}

/* A source that fails half way is an error, never a short file passed
 * off as written; the session stays usable. */
static void
test_write_source_fails (Fixture *f, gconstpointer data)
{
  g_autoptr (AgentsSandboxSession) session =
    new_started_session (f, NULL, NULL);
  g_autoptr (TestFailingStream) in =
    g_object_new (TEST_TYPE_FAILING_STREAM, NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;

  in->size = 4 * MiB;
  in->fail_at = 1 * MiB + 17;
  g_assert_false (
    write_stream (session, "broken.bin", G_INPUT_STREAM (in), &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE);
  g_test_message ("%s", error->message);

  write_text (session, "after.txt", "fine");
  text = read_text (session, "after.txt");
  g_assert_cmpstr (text, ==, "fine");

  delete_session (f, session);
}

static void
test_read_missing (Fixture *f, gconstpointer data)
{
  g_autoptr (AgentsSandboxSession) session =
    new_started_session (f, NULL, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = read_bytes_full (session, "missing.txt", &error);

  g_assert_null (bytes);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_WORKSPACE_READ_NOT_FOUND);
  g_clear_error (&error);
  bytes = read_bytes_full (session, "no/such/dir/file.txt", &error);
  g_assert_null (bytes);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_WORKSPACE_READ_NOT_FOUND);

  delete_session (f, session);
}

static void
test_read_directory (Fixture *f, gconstpointer data)
{
  g_autoptr (AgentsSandboxSession) session =
    new_started_session (f, NULL, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = NULL;

  g_free (exec_script (session, "mkdir -p adir/sub && echo x > adir/f"));
  bytes = read_bytes_full (session, "adir", &error);
  g_assert_null (bytes);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ);

  delete_session (f, session);
}

static void
test_write_creates_parents (Fixture *f, gconstpointer data)
{
  g_autoptr (AgentsSandboxSession) session =
    new_started_session (f, NULL, NULL);
  g_autofree char *text = NULL;
  g_autofree char *kind = NULL;

  write_text (session, "new/deep/dir/f.txt", "deep");
  text = read_text (session, "new/deep/dir/f.txt");
  g_assert_cmpstr (text, ==, "deep");
  kind = exec_script (session, "test -d new/deep/dir && echo dir");
  g_assert_cmpstr (kind, ==, "dir\n");

  delete_session (f, session);
}

/* As the reference words it: an absolute path outside the root is told
 * to be relative (reason `absolute`), any other is told not to escape. */
static void
assert_escape (const GError *error)
{
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH);
  if (g_strcmp0 (agents_sandbox_error_get_reason (error), "absolute") == 0)
    g_assert_nonnull (strstr (error->message, "must be relative"));
  else
    g_assert_nonnull (strstr (error->message, "must not escape root"));
}

/* Paths that leave the workspace, lexically or through a symlink made
 * in the container, are refused for reads and writes. */
static void
test_escapes (Fixture *f, gconstpointer data)
{
  g_autoptr (AgentsSandboxSession) session =
    new_started_session (f, NULL, NULL);
  const char *paths[] = {
    "../x",
    "../etc/passwd",
    "a/../../x",
    "/etc/passwd",
    "/workspace/../etc/passwd",
    "link/passwd",
    "link/evil.txt",
    "dotdot/etc/passwd",
    NULL,
  };
  g_autoptr (GBytes) evil = g_bytes_new_static ("evil", 4);
  g_autofree char *left = NULL;

  g_free (exec_script (session, "ln -s /etc link && ln -s .. dotdot"));
  for (guint i = 0; paths[i] != NULL; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (GBytes) bytes = NULL;

      g_test_message ("path %s", paths[i]);
      bytes = read_bytes_full (session, paths[i], &error);
      g_assert_null (bytes);
      assert_escape (error);
      g_clear_error (&error);
      g_assert_false (write_bytes_full (session, paths[i], evil, &error));
      assert_escape (error);
    }
  /* Nothing landed outside. */
  left = exec_script (session, "ls /etc/evil.txt /x /evil.txt 2>/dev/null; "
                               "grep -l evil /etc/passwd; true");
  g_assert_cmpstr (left, ==, "");

  delete_session (f, session);
}

/* ---- persist and hydrate ---------------------------------------------- */

static GBytes *
read_all (GInputStream *stream)
{
  g_autoptr (GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr (GError) error = NULL;

  g_output_stream_splice (out, stream,
                          G_OUTPUT_STREAM_SPLICE_CLOSE_SOURCE |
                            G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET,
                          NULL, &error);
  g_assert_no_error (error);
  return g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (out));
}

/* The members of a tar: name -> "f", "d" or "l:target". */
static GHashTable *
tar_members (GBytes *tar)
{
  GHashTable *members =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  struct archive *a = archive_read_new ();
  struct archive_entry *entry;
  gsize size;
  const void *data = g_bytes_get_data (tar, &size);
  int r;

  archive_read_support_format_tar (a);
  g_assert_cmpint (archive_read_open_memory (a, data, size), ==, ARCHIVE_OK);
  while ((r = archive_read_next_header (a, &entry)) == ARCHIVE_OK)
    {
      const char *name = archive_entry_pathname (entry);
      g_autofree char *key = g_strdup (name);
      char *kind;

      /* Directories may come with a trailing slash. */
      if (g_str_has_suffix (key, "/") && strlen (key) > 1)
        key[strlen (key) - 1] = '\0';
      switch (archive_entry_filetype (entry))
        {
        case AE_IFDIR:
          kind = g_strdup ("d");
          break;
        case AE_IFLNK:
          kind = g_strdup_printf ("l:%s", archive_entry_symlink (entry));
          break;
        case AE_IFREG:
          kind = g_strdup ("f");
          break;
        default:
          kind = g_strdup ("?");
        }
      g_hash_table_insert (members, g_steal_pointer (&key), kind);
    }
  g_assert_cmpint (r, ==, ARCHIVE_EOF);
  archive_read_free (a);
  return members;
}

static GBytes *
persist_workspace (AgentsSandboxSession *session)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GInputStream) stream = NULL;

  AGENTS_TEST_AWAIT (result, agents_sandbox_session_persist_workspace_async (
                               session, NULL, agents_test_async_cb, &result));
  stream =
    agents_sandbox_session_persist_workspace_finish (session, result, &error);
  g_assert_no_error (error);
  return read_all (stream);
}

static void
hydrate_workspace (AgentsSandboxSession *session, GBytes *tar)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GInputStream) stream = g_memory_input_stream_new_from_bytes (tar);

  AGENTS_TEST_AWAIT (result,
                     agents_sandbox_session_hydrate_workspace_async (
                       session, stream, NULL, agents_test_async_cb, &result));
  g_assert_true (
    agents_sandbox_session_hydrate_workspace_finish (session, result, &error));
  g_assert_no_error (error);
}

#define WORKSPACE_SCRIPT                                                    \
  "mkdir -p d/e empty && printf alpha > a.txt && printf deep > d/e/f.txt "  \
  "&& printf '#!/bin/sh\\necho run\\n' > script.sh && chmod 755 script.sh " \
  "&& printf secret > secret.txt && chmod 600 secret.txt "                  \
  "&& ln -s a.txt ln && ln -s d dirlink && chmod 700 d/e"

#define CHECK_SCRIPT                                                      \
  "cat a.txt; echo; cat d/e/f.txt; echo; readlink ln; readlink dirlink; " \
  "stat -c '%a %n' script.sh secret.txt d/e; ./script.sh; "               \
  "test -d empty && ls -A empty | wc -l"

/* The workspace travels as a workspace-relative tar and comes back
 * whole in another container: files, symlinks, modes, empty dirs. */
static void
test_persist_hydrate (Fixture *f, gconstpointer data)
{
  g_autoptr (AgentsSandboxSession) source = new_started_session (f, NULL, NULL);
  g_autoptr (AgentsSandboxSession) target = NULL;
  g_autoptr (GBytes) tar = NULL;
  g_autoptr (GHashTable) members = NULL;
  g_autofree char *want = NULL;
  g_autofree char *got = NULL;
  GHashTableIter iter;
  gpointer name;

  g_free (exec_script (source, WORKSPACE_SCRIPT));
  want = exec_script (source, CHECK_SCRIPT);
  g_assert_cmpstr (want, ==,
                   "alpha\ndeep\na.txt\nd\n755 script.sh\n600 secret.txt\n"
                   "700 d/e\nrun\n0\n");

  tar = persist_workspace (source);
  members = tar_members (tar);
  g_hash_table_iter_init (&iter, members);
  while (g_hash_table_iter_next (&iter, &name, NULL))
    {
      g_test_message ("member %s: %s", (char *) name,
                      (char *) g_hash_table_lookup (members, name));
      g_assert_false (g_str_has_prefix (name, "workspace"));
      g_assert_false (g_str_has_prefix (name, "/"));
      g_assert_false (g_str_has_prefix (name, "./"));
      g_assert_cmpstr (name, !=, ".");
      g_assert_cmpstr (name, !=, "");
    }
  g_assert_cmpstr (g_hash_table_lookup (members, "a.txt"), ==, "f");
  g_assert_cmpstr (g_hash_table_lookup (members, "d/e/f.txt"), ==, "f");
  g_assert_cmpstr (g_hash_table_lookup (members, "d/e"), ==, "d");
  g_assert_cmpstr (g_hash_table_lookup (members, "empty"), ==, "d");
  g_assert_cmpstr (g_hash_table_lookup (members, "ln"), ==, "l:a.txt");
  g_assert_cmpstr (g_hash_table_lookup (members, "dirlink"), ==, "l:d");

  target = new_started_session (f, NULL, NULL);
  g_assert_cmpstr (container_id (target), !=, container_id (source));
  hydrate_workspace (target, tar);
  got = exec_script (target, CHECK_SCRIPT);
  g_assert_cmpstr (got, ==, want);

  delete_session (f, source);
  delete_session (f, target);
}

typedef struct
{
  const char *name;
  const char *content; /* NULL: a directory */
  const char *symlink; /* non-NULL: a symlink to this */
} TarMember;

static GBytes *
build_tar (const TarMember *members, guint n_members)
{
  struct archive *a = archive_write_new ();
  gsize size = 256 * 1024, used = 0;
  guint8 *buffer = g_malloc0 (size);

  archive_write_set_format_pax_restricted (a);
  g_assert_cmpint (archive_write_open_memory (a, buffer, size, &used), ==,
                   ARCHIVE_OK);
  for (guint i = 0; i < n_members; i++)
    {
      struct archive_entry *entry = archive_entry_new ();
      gsize length = members[i].content ? strlen (members[i].content) : 0;

      archive_entry_set_pathname (entry, members[i].name);
      if (members[i].symlink != NULL)
        {
          archive_entry_set_filetype (entry, AE_IFLNK);
          archive_entry_set_symlink (entry, members[i].symlink);
          archive_entry_set_perm (entry, 0777);
        }
      else if (members[i].content == NULL)
        {
          archive_entry_set_filetype (entry, AE_IFDIR);
          archive_entry_set_perm (entry, 0755);
        }
      else
        {
          archive_entry_set_filetype (entry, AE_IFREG);
          archive_entry_set_perm (entry, 0644);
          archive_entry_set_size (entry, length);
        }
      g_assert_cmpint (archive_write_header (a, entry), ==, ARCHIVE_OK);
      if (length > 0)
        g_assert_cmpint (archive_write_data (a, members[i].content, length), ==,
                         (la_ssize_t) length);
      archive_entry_free (entry);
    }
  g_assert_cmpint (archive_write_close (a), ==, ARCHIVE_OK);
  archive_write_free (a);
  return g_bytes_new_take (g_realloc (buffer, used), used);
}

static gboolean
hydrate_full (AgentsSandboxSession *session, GBytes *tar, GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GInputStream) stream = g_memory_input_stream_new_from_bytes (tar);

  AGENTS_TEST_AWAIT (result,
                     agents_sandbox_session_hydrate_workspace_async (
                       session, stream, NULL, agents_test_async_cb, &result));
  return agents_sandbox_session_hydrate_workspace_finish (session, result,
                                                          error);
}

/* A snapshot tar whose members would land outside the workspace is
 * refused with the extractor's error, and nothing lands outside. */
static void
test_hydrate_refuses_unsafe (Fixture *f, gconstpointer data)
{
  static const TarMember dotdot[] = {
    { "ok.txt", "fine", NULL },
    { "../escape.txt", "evil", NULL },
  };
  static const TarMember absolute[] = {
    { "/escape.txt", "evil", NULL },
  };
  static const TarMember through_link[] = {
    { "etc", NULL, "/etc" },
    { "etc/escape.txt", "evil", NULL },
  };
  static const TarMember link_out[] = {
    { "up", NULL, "../../.." },
  };
  const struct
  {
    const TarMember *members;
    guint n;
  } cases[] = {
    { dotdot, G_N_ELEMENTS (dotdot) },
    { absolute, G_N_ELEMENTS (absolute) },
    { through_link, G_N_ELEMENTS (through_link) },
    /* The engine refuses to extract a relative link that leaves the
     * root, even from a snapshot: refused before the upload. */
    { link_out, G_N_ELEMENTS (link_out) },
  };
  g_autoptr (AgentsSandboxSession) session =
    new_started_session (f, NULL, NULL);
  g_autofree char *left = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GBytes) tar = build_tar (cases[i].members, cases[i].n);
      g_autoptr (GError) error = NULL;

      g_test_message ("case %u", i);
      g_assert_false (hydrate_full (session, tar, &error));
      g_assert_error (error, AGENTS_SANDBOX_ERROR,
                      AGENTS_SANDBOX_ERROR_UNSAFE_ARCHIVE_MEMBER);
      g_test_message ("%s", error->message);
    }
  left = exec_script (session, "ls /escape.txt /etc/escape.txt up 2>/dev/null; "
                               "true");
  g_assert_cmpstr (left, ==, "");

  delete_session (f, session);
}

/* A snapshot keeps its symlinks whatever they point to, as the
 * foundation restores them
 * (agents_archive_extract_snapshot_to_directory_async()): they come back as
 * links, and nothing is written through them. */
static void
test_hydrate_keeps_outward_links (Fixture *f, gconstpointer data)
{
  static const TarMember links[] = {
    { "etc", NULL, "/etc" },
    { "tmp", NULL, "/tmp/" },
    { "d", NULL, NULL },
    { "d/up", NULL, "../elsewhere" },
  };
  g_autoptr (AgentsSandboxSession) session =
    new_started_session (f, NULL, NULL);
  g_autoptr (GBytes) tar = build_tar (links, G_N_ELEMENTS (links));
  g_autofree char *got = NULL;

  hydrate_workspace (session, tar);
  got = exec_script (session, "for l in etc tmp d/up; do "
                              "test -L $l && readlink $l; done");
  g_assert_cmpstr (got, ==, "/etc\n/tmp/\n../elsewhere\n");

  delete_session (f, session);
}

/* An outward symlink made in the container survives persist and resume
 * (from the snapshot, in a new container) as the same link. */
static void
test_resume_keeps_outward_symlink (Fixture *f, gconstpointer data)
{
  g_autofree char *snapshots = g_build_filename (f->tmp, "snapshots", NULL);
  g_autoptr (AgentsLocalSnapshotSpec) spec =
    agents_local_snapshot_spec_new (snapshots);
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (AgentsSandboxSession) resumed = NULL;
  g_autoptr (AgentsSandboxSessionState) state = NULL;
  g_autoptr (JsonNode) json = NULL;
  g_autofree char *first_id = NULL;
  g_autofree char *second_id = NULL;
  g_autofree char *out = NULL;

  g_assert_cmpint (g_mkdir (snapshots, 0700), ==, 0);
  session = new_started_session (f, NULL, G_OBJECT (spec));
  first_id = g_strdup (container_id (session));
  g_free (exec_script (session, "ln -s /etc x && printf kept > a.txt"));
  stop_session (session);
  json = serialize_state (f, session);
  engine_remove_container (f, first_id);

  state = deserialize_state (f, json);
  resumed = resume_session (f, state, G_OBJECT (spec));
  start_ok (resumed);
  second_id = g_strdup (container_id (resumed));
  g_assert_cmpstr (second_id, !=, first_id);
  out = exec_script (resumed, "test -L x && readlink x; cat a.txt");
  g_assert_cmpstr (out, ==, "/etc\nkept");

  delete_session (f, session);
  delete_session (f, resumed);
}

/* ---- bad input -------------------------------------------------------- */

static void
assert_create_fails (Fixture *f,
                     GVariant *options,
                     int code,
                     const char *option)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GVariant) ctx = NULL;
  g_autoptr (GVariant) owned = options ? g_variant_ref_sink (options) : NULL;
  guint before = agents_docker_test_count_own_containers ();
  const char *named = NULL;

  session = create_session_full (f, NULL, owned, NULL, &error);
  g_assert_null (session);
  g_assert_error (error, AGENTS_SANDBOX_ERROR, code);
  g_test_message ("%s", error->message);
  if (option != NULL)
    {
      ctx = agents_sandbox_error_get_context (error);
      g_assert_true (g_variant_lookup (ctx, "option", "&s", &named));
      g_assert_cmpstr (named, ==, option);
      g_assert_nonnull (strstr (error->message, option));
    }
  g_assert_cmpuint (agents_docker_test_count_own_containers (), ==, before);
}

static void
test_missing_image (Fixture *f, gconstpointer data)
{
  assert_create_fails (f, NULL, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, "image");
  assert_create_fails (f, g_variant_new_parsed ("@a{sv} {}"),
                       AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, "image");
  assert_create_fails (f, g_variant_new_parsed ("{'network': <'bridge'>}"),
                       AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, "image");
  assert_create_fails (f, g_variant_new_parsed ("{'image': <42>}"),
                       AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, "image");
  assert_create_fails (f, g_variant_new_parsed ("{'image': <''>}"),
                       AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, "image");
}

static void
test_unknown_option (Fixture *f, gconstpointer data)
{
  assert_create_fails (
    f, g_variant_new_parsed ("{'image': <%s>, 'imgae': <%s>}", IMAGE, IMAGE),
    AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, "imgae");
}

static void
test_image_not_found (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  guint before = agents_docker_test_count_own_containers ();

  session = create_session_full (
    f, NULL, g_variant_new_parsed ("{'image': <'libagents-test:nope'>}"), NULL,
    &error);
  g_assert_null (session);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_WORKSPACE_START);
  g_test_message ("%s", error->message);
  assert_reason (error, "image_not_found");
  g_assert_nonnull (strstr (error->message, "libagents-test:nope"));
  g_assert_cmpuint (agents_docker_test_count_own_containers (), ==, before);
}

static void
test_unreachable_engine (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  guint before = agents_docker_test_count_own_containers ();

  session = create_session_full (
    f, NULL,
    g_variant_new_parsed ("{'image': <%s>, "
                          "'host': <'unix:///nonexistent/docker.sock'>}",
                          IMAGE),
    NULL, &error);
  g_assert_null (session);
  g_assert_nonnull (error);
  g_assert_true (error->domain == AGENTS_SANDBOX_ERROR);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "unix:///nonexistent/docker.sock"));
  assert_reason (error, "engine_unreachable");
  g_assert_cmpuint (agents_docker_test_count_own_containers (), ==, before);
}

static void
test_reserved_label (Fixture *f, gconstpointer data)
{
  assert_create_fails (
    f,
    g_variant_new_parsed ("{'image': <%s>, "
                          "'labels': <{'org.gnome.agents.x': 'y'}>}",
                          IMAGE),
    AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, "labels");
  assert_create_fails (
    f,
    g_variant_new_parsed ("{'image': <%s>, 'labels': <{'ok': 'y', "
                          "'org.gnome.agents.session-id': 'forged'}>}",
                          IMAGE),
    AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, "labels");
  assert_create_fails (f,
                       g_variant_new_parsed ("{'image': <%s>, "
                                             "'labels': <{'': 'y'}>}",
                                             IMAGE),
                       AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, "labels");
}

static void
test_exposed_ports_without_network (Fixture *f, gconstpointer data)
{
  assert_create_fails (f,
                       g_variant_new_parsed ("{'image': <%s>, "
                                             "'exposed_ports': <[8080]>}",
                                             IMAGE),
                       AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, "exposed_ports");
  assert_create_fails (
    f,
    g_variant_new_parsed ("{'image': <%s>, 'network': <'none'>, "
                          "'exposed_ports': <[8080]>}",
                          IMAGE),
    AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, "exposed_ports");
  assert_create_fails (
    f,
    g_variant_new_parsed ("{'image': <%s>, 'network': <'bridge'>, "
                          "'exposed_ports': <[70000]>}",
                          IMAGE),
    AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, "exposed_ports");
}

static void
test_invalid_network (Fixture *f, gconstpointer data)
{
  const char *names[] = { "bad name", "-flag", "a/b", "x;rm -rf /", "", NULL };

  for (guint i = 0; names[i] != NULL; i++)
    assert_create_fails (f,
                         g_variant_new_parsed ("{'image': <%s>, "
                                               "'network': <%s>}",
                                               IMAGE, names[i]),
                         AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, "network");
}

/* A valid serialized state of a session that never ran. */
static JsonNode *
base_state_json (Fixture *f)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsSandboxSessionState) state = NULL;

  g_autoptr (GVariant) options = g_variant_ref_sink (image_options ());

  state = agents_docker_session_state_new (manifest, options, &error);
  g_assert_no_error (error);
  agents_docker_session_state_set_container_id (
    AGENTS_DOCKER_SESSION_STATE (state),
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
  return agents_sandbox_client_serialize_session_state (f->client, state);
}

typedef struct
{
  const char *member;
  const char *value_json; /* NULL: removes the member */
} StateMutation;

static void
test_hostile_state_json (Fixture *f, gconstpointer data)
{
  static const StateMutation mutations[] = {
    { "container_id", "\"not-hex-at-all!\"" },
    { "container_id", "\"../../containers/create\"" },
    { "container_id", "\"abc\"" },
    { "container_id", "\"0123456789abcdef0123456789abcdef0123456789abcdef"
                      "0123456789abcdef0\"" },
    { "container_id", "\"0123456789ab?force=true\"" },
    { "container_id", "12345" },
    { "container_id", "[\"0123456789abcdef\"]" },
    { "image", "42" },
    { "image", NULL },
    { "image", "\"\"" },
    { "image", "\"busybox\\nX\"" },
    { "network_mode", "\"bad name\"" },
    { "network_mode", "7" },
    { "exposed_ports", "\"80\"" },
    { "exposed_ports", "[0]" },
    { "exposed_ports", "[70000]" },
    { "exposed_ports", "[\"80\"]" },
    { "exposed_ports", "[80]" }, /* with no network */
    { "labels", "{\"org.gnome.agents.session-id\": \"forged\"}" },
    { "labels", "{\"org.gnome.agents.managed\": \"true\"}" },
    { "labels", "{\"a\": 1}" },
    { "labels", "[\"a\"]" },
    { "memory_bytes", "-1" },
    { "memory_bytes", "\"1g\"" },
    { "nano_cpus", "1.5" },
    { "pids_limit", "true" },
    { "docker_host", "5" },
    { "type", "\"unix_local\"" },
    { "type", NULL },
    { "manifest.root", "\"workspace\"" },
    { "manifest.root", "\"/\"" },
    { "manifest.root", "\"../x\"" },
  };
  g_autoptr (JsonNode) base = base_state_json (f);
  g_autoptr (AgentsSandboxSessionState) ok = deserialize_state (f, base);
  g_autoptr (JsonNode) array = json_from_string ("[1]", NULL);

  for (guint i = 0; i < G_N_ELEMENTS (mutations); i++)
    {
      g_autoptr (JsonNode) json = json_node_copy (base);
      JsonObject *object = json_node_get_object (json);
      const char *member = mutations[i].member;
      g_autoptr (GError) error = NULL;
      g_autoptr (AgentsSandboxSessionState) state = NULL;

      if (g_str_has_prefix (member, "manifest."))
        {
          object = json_object_get_object_member (object, "manifest");
          member += strlen ("manifest.");
        }
      if (mutations[i].value_json == NULL)
        json_object_remove_member (object, member);
      else
        json_object_set_member (
          object, member, json_from_string (mutations[i].value_json, NULL));
      state = agents_sandbox_client_deserialize_session_state (f->client, json,
                                                               &error);
      g_test_message ("%s = %s: %s", mutations[i].member,
                      mutations[i].value_json ? mutations[i].value_json
                                              : "(removed)",
                      error ? error->message : "accepted");
      g_assert_null (state);
      g_assert_error (error, AGENTS_SANDBOX_ERROR,
                      AGENTS_SANDBOX_ERROR_INVALID_JSON);
    }

  {
    g_autoptr (GError) error = NULL;
    g_autoptr (AgentsSandboxSessionState) state =
      agents_sandbox_client_deserialize_session_state (f->client, array,
                                                       &error);

    /* Not an object: the reference's type error (STATE-04). */
    g_assert_null (state);
    g_assert_error (error, AGENTS_SANDBOX_ERROR,
                    AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
    g_assert_cmpstr (error->message, ==,
                     "session state payload must be a JSON object");
  }
}

/* A session built from a state naming @id (as a hostile or stale state
 * would), without creating anything. */
static AgentsSandboxSession *
session_naming (Fixture *f, const char *id)
{
  g_autoptr (JsonNode) json = base_state_json (f);
  g_autoptr (AgentsSandboxSessionState) state = NULL;

  json_object_set_string_member (json_node_get_object (json), "container_id",
                                 id);
  state = deserialize_state (f, json);
  return AGENTS_SANDBOX_SESSION (
    agents_docker_session_new (f->engine, AGENTS_DOCKER_SESSION_STATE (state)));
}

static void
assert_delete_refused (Fixture *f, const char *id)
{
  g_autoptr (AgentsSandboxSession) session = session_naming (f, id);
  g_autoptr (GError) error = NULL;

  g_assert_false (delete_session_full (f, session, &error));
  g_assert_nonnull (error);
  g_assert_true (error->domain == AGENTS_SANDBOX_ERROR);
  g_test_message ("%s", error->message);
  assert_reason (error, "not_owned");
  g_assert_true (container_running (f, id));
}

/* Delete removes only what libagents made for the session. */
static void
test_delete_not_owned (Fixture *f, gconstpointer data)
{
  g_autofree char *owner = agents_docker_owner_label ();
  g_autofree char *stranger =
    engine_create_container (f, "\"libagents-test\": \"stranger\"");
  g_autofree char *labels = g_strdup_printf (
    "\"" AGENTS_DOCKER_LABEL_MANAGED "\": \"true\", "
    "\"" AGENTS_DOCKER_LABEL_SESSION "\": \"another-session\", "
    "\"" AGENTS_DOCKER_LABEL_OWNER "\": \"%s\"",
    owner);
  g_autofree char *other_session = engine_create_container (f, labels);

  assert_delete_refused (f, stranger);
  assert_delete_refused (f, other_session);

  engine_remove_container (f, stranger);
  engine_remove_container (f, other_session);
}

/* Resuming a state that names a container libagents did not make for
 * it does not adopt that container: a new one is made, and deleting the
 * session leaves the stranger alone. */
static void
test_resume_foreign_container (Fixture *f, gconstpointer data)
{
  g_autofree char *stranger =
    engine_create_container (f, "\"libagents-test\": \"stranger\"");
  g_autoptr (JsonNode) json = base_state_json (f);
  g_autoptr (AgentsSandboxSessionState) state = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;

  json_object_set_string_member (json_node_get_object (json), "container_id",
                                 stranger);
  state = deserialize_state (f, json);
  session = resume_session (f, state, NULL);
  g_assert_nonnull (container_id (session));
  g_assert_cmpstr (container_id (session), !=, stranger);
  start_ok (session);

  delete_session (f, session);
  g_assert_true (container_running (f, stranger));
  engine_remove_container (f, stranger);
}

/* ---- hardening -------------------------------------------------------- */

/* What a command sees of its own privileges and limits: CapEff and
 * NoNewPrivs of /proc/self/status, then the pids and memory limits of
 * its cgroup (v2, else v1). */
#define PRIVILEGES_SCRIPT                                        \
  "grep -E '^(CapEff|NoNewPrivs):' /proc/self/status; "          \
  "if [ -f /sys/fs/cgroup/pids.max ]; then "                     \
  "cat /sys/fs/cgroup/pids.max /sys/fs/cgroup/memory.max; else " \
  "cat /sys/fs/cgroup/pids/pids.max "                            \
  "/sys/fs/cgroup/memory/memory.limit_in_bytes; fi"

/* CHOWN (0), DAC_OVERRIDE (1), FOWNER (3) and KILL (5): nothing else. */
#define KEPT_CAPS "000000000000002b"

static void
assert_privileges (AgentsSandboxSession *session,
                   const char *pids,
                   const char *memory)
{
  g_autofree char *out = exec_script (session, PRIVILEGES_SCRIPT);
  g_autofree char *expected = g_strdup_printf (
    "CapEff:\t" KEPT_CAPS "\nNoNewPrivs:\t1\n%s\n%s\n", pids, memory);

  g_assert_cmpstr (out, ==, expected);
}

/* By default a container drops every capability but four, cannot gain
 * privileges (setuid binaries included), and has pids and memory
 * limits; options change the limits. */
static void
test_hardened_defaults (Fixture *f, gconstpointer data)
{
  g_autoptr (AgentsSandboxSession) session =
    new_started_session (f, NULL, NULL);
  g_autoptr (AgentsSandboxSession) limited = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *user = NULL;

  assert_privileges (session, "1024", "2147483648");
  /* Still root, and root still manages the workspace. */
  user = exec_script (session, "id -u; touch f && chown 1234:1234 f && "
                               "chmod 600 f && cat f && echo ok");
  g_assert_cmpstr (user, ==, "0\nok\n");
  delete_session (f, session);

  limited = create_session_full (
    f, NULL,
    g_variant_new_parsed ("{'image': <%s>, 'pids_limit': <int64 64>, "
                          "'memory': <int64 268435456>}",
                          IMAGE),
    NULL, &error);
  g_assert_no_error (error);
  start_ok (limited);
  assert_privileges (limited, "64", "268435456");
  delete_session (f, limited);
}

/* read_only_root: the image's files cannot be changed; /tmp and the
 * workspace can, through commands and the file API alike. */
static void
test_read_only_root (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsSandboxSession) session = create_session_full (
    f, NULL,
    g_variant_new_parsed ("{'image': <%s>, 'read_only_root': <true>}", IMAGE),
    NULL, &error);
  const char *argv[] = { "sh", "-c", "touch /etc/x", NULL };
  g_autoptr (AgentsExecResult) refused = NULL;
  g_autofree char *out = NULL;
  g_autofree char *text = NULL;

  g_assert_no_error (error);
  start_ok (session);
  refused = exec_argv (session, argv);
  g_assert_cmpint (agents_exec_result_get_exit_code (refused), !=, 0);
  out = exec_script (session, "touch /tmp/t && echo w > in-workspace.txt && "
                              "cat in-workspace.txt");
  g_assert_cmpstr (out, ==, "w\n");
  write_text (session, "api.txt", "through the API");
  text = read_text (session, "api.txt");
  g_assert_cmpstr (text, ==, "through the API");
  assert_privileges (session, "1024", "2147483648");
  delete_session (f, session);
}

static void
assert_option_refused (Fixture *f, GVariant *options, const char *option)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsSandboxSession) session =
    create_session_full (f, NULL, options, NULL, &error);
  g_autofree char *quoted = g_strdup_printf ("“%s”", option);

  g_assert_null (session);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, quoted));
}

/* The host's network only with the caller's explicit consent. */
static void
test_host_network_needs_consent (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;

  assert_option_refused (
    f, g_variant_new_parsed ("{'image': <%s>, 'network': <'host'>}", IMAGE),
    "network");
  assert_option_refused (
    f,
    g_variant_new_parsed ("{'image': <%s>, 'network': <'host'>, "
                          "'allow_host_network': <'yes'>}",
                          IMAGE),
    "allow_host_network");
  session = create_session_full (
    f, NULL,
    g_variant_new_parsed ("{'image': <%s>, 'network': <'host'>, "
                          "'allow_host_network': <true>}",
                          IMAGE),
    NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (session);
  delete_session (f, session);
}

/* ---- a saved state cannot choose where or how its container runs ------ */

typedef struct
{
  const char *member;     /* in the state JSON; "snapshot.x" nested */
  const char *value_json; /* the tampered value */
} Tampering;

static void
assert_resume_refused (Fixture *f,
                       JsonNode *json,
                       GVariant *options,
                       GObject *snapshot,
                       const char *member)
{
  g_autoptr (AgentsSandboxSessionState) state = deserialize_state (f, json);
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsSandboxSession) session =
    resume_session_full (f, state, options, snapshot, &error);
  g_autofree char *quoted = g_strdup_printf ("“%s”", member);
  g_autoptr (GVariant) context = NULL;
  const char *named = NULL;

  g_assert_null (session);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, quoted));
  context = agents_sandbox_error_get_context (error);
  g_assert_true (g_variant_lookup (context, "member", "&s", &named));
  g_assert_cmpstr (named, ==, member);
  assert_reason (error, "not_configured");
}

static void
test_resume_refuses_unconfigured (Fixture *f, gconstpointer data)
{
  static const Tampering tamperings[] = {
    { "network_mode", "\"host\"" },
    { "network_mode", "\"bridge\"" },
    { "docker_host", "\"tcp://127.0.0.1:2375\"" },
    { "docker_host", "\"unix:///var/run/docker.sock\"" },
    { "image", "\"busybox:latest\"" },
    { "pids_limit", "null" },
    { "memory_bytes", "99999999999" },
    { "nano_cpus", "1000000000" },
    { "read_only_root", "true" },
    { "labels", "{\"x\": \"y\"}" },
    { "snapshot.base_path", "\"/etc\"" },
  };
  g_autofree char *snapshots = g_build_filename (f->tmp, "snapshots", NULL);
  g_autofree char *link = g_build_filename (f->tmp, "link", NULL);
  g_autoptr (AgentsLocalSnapshotSpec) spec =
    agents_local_snapshot_spec_new (snapshots);
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (AgentsSandboxSession) resumed = NULL;
  g_autoptr (AgentsSandboxSessionState) state = NULL;
  g_autoptr (JsonNode) json = NULL;
  g_autoptr (JsonNode) holder = NULL;
  const char *session_id;

  g_assert_cmpint (g_mkdir (snapshots, 0700), ==, 0);
  session = new_started_session (f, NULL, G_OBJECT (spec));
  write_text (session, "a.txt", "saved");
  stop_session (session);
  json = serialize_state (f, session);
  session_id = agents_sandbox_session_state_get_session_id (
    agents_sandbox_session_peek_state (session));

  for (guint i = 0; i < G_N_ELEMENTS (tamperings); i++)
    {
      /* json_node_copy() would share the object. */
      g_autofree char *text = json_to_string (json, FALSE);
      g_autoptr (JsonNode) copy = json_from_string (text, NULL);
      JsonObject *object = json_node_get_object (copy);
      const char *member = tamperings[i].member;

      if (g_str_has_prefix (member, "snapshot."))
        {
          object = json_object_get_object_member (object, "snapshot");
          member += strlen ("snapshot.");
        }
      json_object_set_member (
        object, member, json_from_string (tamperings[i].value_json, NULL));
      assert_resume_refused (f, copy, image_options (), G_OBJECT (spec),
                             tamperings[i].member);
    }
  /* A caller who wants the host's network does not get it for a state
   * saved without; and without the caller's options, the state's own
   * snapshot directory is not the default one. */
  assert_resume_refused (
    f, json,
    g_variant_new_parsed ("{'network': <'host'>, 'allow_host_network': "
                          "<true>}"),
    G_OBJECT (spec), "network_mode");
  assert_resume_refused (f, json, NULL, NULL, "snapshot.base_path");
  /* Nothing was made for the refused resumes. */
  g_assert_cmpuint (
    json_array_get_length (list_session_containers (f, session_id, &holder)),
    ==, 1);

  /* The state, as configured, resumes (the image may be left out); a
   * snapshot directory spelled another way (a link to it) is accepted,
   * and then found through the caller's own path. */
  g_assert_cmpint (symlink (snapshots, link), ==, 0);
  json_object_set_string_member (
    json_object_get_object_member (json_node_get_object (json), "snapshot"),
    "base_path", link);
  state = deserialize_state (f, json);
  resumed = resume_session_full (f, state, NULL, G_OBJECT (spec), NULL);
  g_assert_nonnull (resumed);
  g_assert_cmpstr (agents_local_snapshot_get_base_path (AGENTS_LOCAL_SNAPSHOT (
                     agents_sandbox_session_state_get_snapshot (state))),
                   ==, snapshots);
  start_ok (resumed);
  g_assert_cmpstr (container_id (resumed), ==, container_id (session));
  delete_session (f, resumed);
  delete_session (f, session);
}

/* A container is reused only when it runs as the caller configures it
 * now: one made with other settings is replaced by a new container,
 * hydrated from the snapshot. */
static void
test_resume_replaces_misconfigured_container (Fixture *f, gconstpointer data)
{
  g_autofree char *snapshots = g_build_filename (f->tmp, "snapshots", NULL);
  g_autoptr (AgentsLocalSnapshotSpec) spec =
    agents_local_snapshot_spec_new (snapshots);
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (AgentsSandboxSession) resumed = NULL;
  g_autoptr (AgentsSandboxSessionState) state = NULL;
  g_autoptr (JsonNode) json = NULL;
  g_autofree char *text = NULL;
  g_autofree char *digest_path = NULL;
  g_autoptr (JsonNode) info = NULL;
  g_autoptr (GError) error = NULL;
  JsonObject *labels;

  g_assert_cmpint (g_mkdir (snapshots, 0700), ==, 0);
  session = new_started_session (f, NULL, G_OBJECT (spec));
  write_text (session, "a.txt", "saved");
  stop_session (session);
  digest_path = g_strdup_printf ("/containers/%s/json", container_id (session));
  info = engine_call (f, "GET", digest_path, NULL, &error);
  g_assert_no_error (error);
  labels = json_object_get_object_member (
    json_object_get_object_member (json_node_get_object (info), "Config"),
    "Labels");
  g_assert_cmpuint (strlen (json_object_get_string_member_with_default (
                      labels, AGENTS_DOCKER_LABEL_CONFIG, "")),
                    ==, 64);

  json = serialize_state (f, session);
  json_object_set_int_member (json_node_get_object (json), "pids_limit", 77);
  state = deserialize_state (f, json);
  resumed = resume_session_full (
    f, state,
    g_variant_new_parsed ("{'image': <%s>, 'pids_limit': <int64 77>}", IMAGE),
    G_OBJECT (spec), &error);
  g_assert_no_error (error);
  start_ok (resumed);
  g_assert_cmpstr (container_id (resumed), !=, container_id (session));
  text = read_text (resumed, "a.txt");
  g_assert_cmpstr (text, ==, "saved");
  assert_privileges (resumed, "77", "2147483648");
  delete_session (f, resumed);
  delete_session (f, session);
}

/* ---- reap ------------------------------------------------------------- */

/* Our own owner label with some of its parts replaced (NULL: ours). */
static char *
owner_label_parts (const char *machine,
                   const char *boot,
                   const char *pidns,
                   gint64 pid,
                   const char *start)
{
  g_autofree char *ours = agents_docker_owner_label ();
  g_auto (GStrv) parts = g_strsplit (ours, ":", -1);

  g_assert_cmpuint (g_strv_length (parts), ==, 5);
  return g_strdup_printf ("%s:%s:%s:%" G_GINT64_FORMAT ":%s",
                          machine ? machine : parts[0], boot ? boot : parts[1],
                          pidns ? pidns : parts[2], pid,
                          start ? start : parts[4]);
}

static char *
owner_label_with (const char *machine, gint64 pid, const char *start)
{
  return owner_label_parts (machine, NULL, NULL, pid, start);
}

static gboolean
in_initial_pid_namespace (void)
{
  g_autofree char *link = g_file_read_link ("/proc/self/ns/pid", NULL);

  return g_strcmp0 (link, "pid:[4026531836]") == 0;
}

static char *
owned_container (Fixture *f, const char *owner)
{
  g_autofree char *labels =
    g_strdup_printf ("\"" AGENTS_DOCKER_LABEL_MANAGED "\": \"true\", "
                     "\"" AGENTS_DOCKER_LABEL_SESSION "\": \"reap-test\", "
                     "\"" AGENTS_DOCKER_LABEL_OWNER "\": \"%s\"",
                     owner);

  return engine_create_container (f, labels);
}

static void
test_reap (Fixture *f, gconstpointer data)
{
  g_autoptr (AgentsSandboxSession) live = new_started_session (f, NULL, NULL);
  g_autofree char *dead_label = owner_label_with (NULL, DEAD_PID, NULL);
  /* A pid that runs, but is not the process that made the container. */
  g_autofree char *reused_label = owner_label_with (NULL, getpid (), "1");
  /* What an older version wrote, and what a process of another machine
   * with our host name (whose pid DEAD_PID may well be alive) writes. */
  g_autofree char *hostname_label =
    g_strdup_printf ("%s:%d", g_get_host_name (), DEAD_PID);
  g_autofree char *elsewhere_label =
    owner_label_with ("0123456789abcdef0123456789abcdef", DEAD_PID, NULL);
  /* Our own pid, but in an earlier boot of this machine: gone, if
   * both run in the initial pid namespace (where /etc/machine-id is the
   * machine's own); from inside a container (a machine id perhaps
   * copied with the image) it proves nothing. */
  g_autofree char *earlier_boot_label = owner_label_parts (
    NULL, "00000000-0000-0000-0000-000000000000", NULL, getpid (), NULL);
  g_autofree char *other_ns_label = owner_label_parts (
    NULL, "00000000-0000-0000-0000-000000000000", "1", getpid (), NULL);
  g_autofree char *ours = agents_docker_owner_label ();
  g_autofree char *earlier_boot = NULL;
  g_autofree char *other_ns = NULL;
  g_autofree char *dead = NULL;
  g_autofree char *reused = NULL;
  g_autofree char *hostname = NULL;
  g_autofree char *elsewhere = NULL;
  g_autofree char *alive = NULL;
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  gssize removed;

  g_assert_cmpint (kill (DEAD_PID, 0), <, 0);
  g_assert_cmpint (errno, ==, ESRCH);
  g_assert_false (g_str_has_suffix (ours, ":0"));
  dead = owned_container (f, dead_label);
  reused = owned_container (f, reused_label);
  hostname = owned_container (f, hostname_label);
  elsewhere = owned_container (f, elsewhere_label);
  alive = owned_container (f, ours);
  earlier_boot = owned_container (f, earlier_boot_label);
  other_ns = owned_container (f, other_ns_label);

  AGENTS_TEST_AWAIT (
    result, agents_sandbox_client_reap_async (f->client, NULL, FALSE, NULL,
                                              agents_test_async_cb, &result));
  removed = agents_sandbox_client_reap_finish (f->client, result, &error);
  g_assert_no_error (error);
  /* A reap of another test running beside this one may have removed
   * them first: what counts is that they are gone. */
  g_assert_cmpint (removed, >=, 0);

  g_assert_false (container_exists (f, dead));
  g_assert_false (container_exists (f, reused));
  g_assert_true (container_running (f, hostname));
  g_assert_true (container_running (f, elsewhere));
  g_assert_true (container_running (f, alive));
  g_assert_true (container_running (f, other_ns));
  if (in_initial_pid_namespace ())
    g_assert_false (container_exists (f, earlier_boot));
  else
    g_assert_true (container_running (f, earlier_boot));
  g_assert_true (session_running (live));
  g_assert_true (container_running (f, container_id (live)));

  delete_session (f, live);
}

/* ---- state JSON ------------------------------------------------------- */

static void
assert_json_null (JsonObject *object, const char *member)
{
  g_assert_true (json_object_has_member (object, member));
  g_assert_true (
    JSON_NODE_HOLDS_NULL (json_object_get_member (object, member)));
}

static void
assert_round_trip (Fixture *f, JsonNode *json)
{
  g_autoptr (AgentsSandboxSessionState) state = deserialize_state (f, json);
  g_autoptr (JsonNode) again =
    agents_sandbox_client_serialize_session_state (f->client, state);
  g_autofree char *a = json_to_string (json, TRUE);
  g_autofree char *b = json_to_string (again, TRUE);

  g_assert_cmpstr (b, ==, a);
  g_assert_true (json_node_equal (json, again));
}

/* The reference's shape: the generic members, then the docker ones. */
static void
test_state_json_shape (Fixture *f, gconstpointer data)
{
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) json = NULL;
  g_autofree char *shown = NULL;
  JsonObject *object, *labels;
  const char *id;

  session = create_session_full (
    f, NULL,
    g_variant_new_parsed ("{'image': <%s>, 'labels': <{'team': 'docs'}>}",
                          IMAGE),
    NULL, &error);
  g_assert_no_error (error);
  json = serialize_state (f, session);
  object = json_node_get_object (json);
  shown = json_to_string (json, TRUE);
  g_test_message ("%s", shown);

  g_assert_cmpstr (json_object_get_string_member (object, "type"), ==,
                   "docker");
  g_assert_cmpstr (json_object_get_string_member (object, "image"), ==, IMAGE);
  id = json_object_get_string_member (object, "container_id");
  g_assert_cmpstr (id, ==, container_id (session));
  g_assert_cmpuint (strlen (id), ==, 64);
  g_assert_true (container_exists (f, id));
  assert_json_null (object, "network_mode");
  g_assert_true (
    JSON_NODE_HOLDS_ARRAY (json_object_get_member (object, "exposed_ports")));
  g_assert_cmpuint (json_array_get_length (
                      json_object_get_array_member (object, "exposed_ports")),
                    ==, 0);
  labels = json_object_get_object_member (object, "labels");
  g_assert_cmpuint (json_object_get_size (labels), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (labels, "team"), ==, "docs");
  /* The default limits. */
  g_assert_cmpint (json_object_get_int_member (object, "memory_bytes"), ==,
                   G_GINT64_CONSTANT (2147483648));
  assert_json_null (object, "nano_cpus");
  g_assert_cmpint (json_object_get_int_member (object, "pids_limit"), ==, 1024);
  assert_json_null (object, "docker_host");
  g_assert_false (json_object_get_boolean_member (object, "read_only_root"));
  g_assert_cmpstr (json_object_get_string_member (object, "session_id"), ==,
                   agents_sandbox_session_state_get_session_id (
                     agents_sandbox_session_peek_state (session)));
  g_assert_true (json_object_has_member (object, "manifest"));

  assert_round_trip (f, json);

  delete_session (f, session);
}

/* Every option survives the JSON round trip. */
static void
test_state_json_options (Fixture *f, gconstpointer data)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsSandboxSessionState) state = NULL;
  g_autoptr (JsonNode) json = NULL;
  g_autoptr (GError) error = NULL;
  JsonObject *object;
  JsonArray *ports;

  g_autoptr (GVariant) options = g_variant_ref_sink (g_variant_new_parsed (
    "{'image': <%s>, 'network': <'bridge'>, 'exposed_ports': <[8080, 9000]>,"
    " 'labels': <{'b': '2', 'a': '1'}>, 'memory': <int64 268435456>,"
    " 'cpus': <1.5>, 'pids_limit': <int64 64>,"
    " 'host': <'unix:///var/run/docker.sock'>}",
    IMAGE));

  agents_manifest_set_root (manifest, "/srv/work");
  state = agents_docker_session_state_new (manifest, options, &error);
  g_assert_no_error (error);
  json = agents_sandbox_client_serialize_session_state (f->client, state);
  object = json_node_get_object (json);

  assert_json_null (object, "container_id");
  g_assert_cmpstr (json_object_get_string_member (object, "network_mode"), ==,
                   "bridge");
  ports = json_object_get_array_member (object, "exposed_ports");
  g_assert_cmpuint (json_array_get_length (ports), ==, 2);
  g_assert_cmpint (json_array_get_int_element (ports, 0), ==, 8080);
  g_assert_cmpint (json_array_get_int_element (ports, 1), ==, 9000);
  g_assert_cmpint (json_object_get_int_member (object, "memory_bytes"), ==,
                   268435456);
  g_assert_cmpint (json_object_get_int_member (object, "nano_cpus"), ==,
                   1500000000);
  g_assert_cmpint (json_object_get_int_member (object, "pids_limit"), ==, 64);
  g_assert_cmpstr (json_object_get_string_member (object, "docker_host"), ==,
                   "unix:///var/run/docker.sock");
  g_assert_cmpstr (json_object_get_string_member (
                     json_object_get_object_member (object, "labels"), "a"),
                   ==, "1");

  assert_round_trip (f, json);
}

/* ---- main ------------------------------------------------------------- */

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)

int
main (int argc, char *argv[])
{
  g_autofree char *why = NULL;

  g_test_init (&argc, &argv, NULL);
  agents_docker_register_types ();

  why = agents_docker_test_unavailable ();
  if (why != NULL)
    {
      g_test_add_data_func_full ("/docker/engine", g_strdup (why),
                                 agents_docker_test_skip, g_free);
      return g_test_run ();
    }

  ADD ("/docker/lifecycle/resume-after-container-removed",
       test_resume_after_container_removed);
  ADD ("/docker/lifecycle/resume-reuses-container",
       test_resume_reuses_container);
  ADD ("/docker/lifecycle/shutdown-and-restart", test_shutdown_and_restart);
  ADD ("/docker/lifecycle/killed-from-outside", test_killed_from_outside);
  ADD ("/docker/exec/binary-streams", test_exec_binary_streams);
  ADD ("/docker/exec/large-output", test_exec_large_output);
  ADD ("/docker/exec/exit-codes", test_exec_exit_codes);
  ADD ("/docker/exec/argv-verbatim", test_exec_argv_verbatim);
  ADD ("/docker/exec/manifest-env", test_exec_manifest_env);
  ADD ("/docker/exec/run-as", test_exec_run_as);
  ADD ("/docker/exec/concurrent", test_exec_concurrent);
  ADD ("/docker/exec/background-writer", test_exec_background_writer);
  ADD ("/docker/exec/timeout", test_exec_timeout);
  ADD ("/docker/exec/timeout-kills-children", test_exec_timeout_kills_children);
  ADD ("/docker/exec/cancel", test_exec_cancel);
  ADD ("/docker/files/200mb", test_big_file);
  ADD ("/docker/files/write-non-seekable", test_write_non_seekable);
  ADD ("/docker/files/write-source-fails", test_write_source_fails);
  ADD ("/docker/files/read-missing", test_read_missing);
  ADD ("/docker/files/read-directory", test_read_directory);
  ADD ("/docker/files/write-creates-parents", test_write_creates_parents);
  ADD ("/docker/files/escapes", test_escapes);
  ADD ("/docker/workspace/persist-hydrate", test_persist_hydrate);
  ADD ("/docker/workspace/hydrate-refuses-unsafe", test_hydrate_refuses_unsafe);
  ADD ("/docker/workspace/hydrate-keeps-outward-links",
       test_hydrate_keeps_outward_links);
  ADD ("/docker/workspace/resume-keeps-outward-symlink",
       test_resume_keeps_outward_symlink);
  ADD ("/docker/bad-input/missing-image", test_missing_image);
  ADD ("/docker/bad-input/unknown-option", test_unknown_option);
  ADD ("/docker/bad-input/image-not-found", test_image_not_found);
  ADD ("/docker/bad-input/unreachable-engine", test_unreachable_engine);
  ADD ("/docker/bad-input/reserved-label", test_reserved_label);
  ADD ("/docker/bad-input/exposed-ports-without-network",
       test_exposed_ports_without_network);
  ADD ("/docker/bad-input/invalid-network", test_invalid_network);
  ADD ("/docker/bad-input/hostile-state-json", test_hostile_state_json);
  ADD ("/docker/bad-input/delete-not-owned", test_delete_not_owned);
  ADD ("/docker/bad-input/resume-foreign-container",
       test_resume_foreign_container);
  ADD ("/docker/hardening/defaults", test_hardened_defaults);
  ADD ("/docker/hardening/read-only-root", test_read_only_root);
  ADD ("/docker/hardening/host-network-needs-consent",
       test_host_network_needs_consent);
  ADD ("/docker/hardening/resume-refuses-unconfigured",
       test_resume_refuses_unconfigured);
  ADD ("/docker/hardening/resume-replaces-misconfigured-container",
       test_resume_replaces_misconfigured_container);
  ADD ("/docker/reap", test_reap);
  ADD ("/docker/state/json-shape", test_state_json_shape);
  ADD ("/docker/state/json-options", test_state_json_options);

  return agents_docker_test_run_and_reap ();
}
