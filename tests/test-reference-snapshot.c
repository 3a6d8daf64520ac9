/* test-reference-snapshot.c - reference cases SNAP-*: snapshots
 * (../shared/spec/reference-cases.md)
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "agents-sandbox-error-private.h"
#include "test-utils.h"

static gboolean
persist (AgentsSnapshot *snapshot, const char *data, GError **error)
{
  g_autoptr (GInputStream) stream =
    g_memory_input_stream_new_from_data (data, -1, NULL);
  g_autoptr (GAsyncResult) result = NULL;

  agents_snapshot_persist_async (snapshot, stream, NULL, agents_test_async_cb,
                                 &result);
  return agents_snapshot_persist_finish (
    snapshot, agents_test_wait_result (&result), error);
}

static GInputStream *
restore (AgentsSnapshot *snapshot, GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  agents_snapshot_restore_async (snapshot, NULL, agents_test_async_cb, &result);
  return agents_snapshot_restore_finish (
    snapshot, agents_test_wait_result (&result), error);
}

/* Whether any "*.tar" file lies beneath @dir. */
static gboolean
has_tar (const char *dir)
{
  g_autoptr (GDir) handle = g_dir_open (dir, 0, NULL);
  const char *name;

  while (handle != NULL && (name = g_dir_read_name (handle)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (strstr (name, ".tar") != NULL)
        return TRUE;
      if (g_file_test (path, G_FILE_TEST_IS_DIR) && has_tar (path))
        return TRUE;
    }
  return FALSE;
}

/* SNAP-14 */
static void
test_local_snapshot_rejects_non_basename_ids (void)
{
  static const char *const ids[] = {
    "../escape", "..\\escape", "nested/escape", "../", "..//", "..\\",
    "nested/",   "nested//",   "nested\\",      "",    ".",    "..",
  };
  g_autofree char *tmp = agents_test_make_tmp_dir ("ref-snap14-XXXXXX");
  g_autofree char *base = g_build_filename (tmp, "snapshots", NULL);

  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      g_autoptr (AgentsSnapshot) snapshot =
        agents_local_snapshot_new (ids[i], base);
      g_autoptr (GError) error = NULL;
      g_autoptr (GInputStream) restored = NULL;

      g_test_message ("id “%s”", ids[i]);
      g_assert_false (persist (snapshot, "data", &error));
      g_assert_nonnull (error);
      g_assert_cmpstr (error->message, ==,
                       "LocalSnapshot id must be a single path segment");
      g_clear_error (&error);
      restored = restore (snapshot, &error);
      g_assert_null (restored);
      g_assert_nonnull (error);
      g_assert_nonnull (strstr (error->message, "single path segment"));
    }
  g_assert_false (has_tar (tmp));
  agents_test_rm_rf (tmp);
}

/* SNAP-16 */
static void
test_noop_snapshot_is_not_restorable (void)
{
  g_autoptr (AgentsSnapshot) snapshot = agents_noop_snapshot_new ("snap-noop");
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GInputStream) restored = NULL;

  agents_snapshot_restorable_async (snapshot, NULL, agents_test_async_cb,
                                    &result);
  g_assert_false (agents_snapshot_restorable_finish (
    snapshot, agents_test_wait_result (&result), &error));
  g_assert_no_error (error);

  restored = restore (snapshot, &error);
  g_assert_null (restored);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_SNAPSHOT_NOT_RESTORABLE);
  g_assert_cmpstr (error->message, ==, "snapshot is not restorable");
  agents_test_assert_context_str (error, "snapshot_id", "snap-noop");
  agents_test_assert_context_str (error, "path", "<noop>");
}

/* ---- a snapshot that never reads what it persists -------------------- */

#define TEST_TYPE_SNAPSHOT (test_snapshot_get_type ())
G_DECLARE_FINAL_TYPE (TestSnapshot, test_snapshot, TEST, SNAPSHOT, GObject)

struct _TestSnapshot
{
  GObject parent_instance;
  char *id;
  gboolean restorable;
};

static void test_snapshot_iface_init (AgentsSnapshotInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (TestSnapshot,
                               test_snapshot,
                               G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (AGENTS_TYPE_SNAPSHOT,
                                                      test_snapshot_iface_init))

static const char *
test_snapshot_type (AgentsSnapshot *snapshot)
{
  return TEST_SNAPSHOT (snapshot)->restorable ? "test-restorable" : "test-noop";
}

static const char *
test_snapshot_id (AgentsSnapshot *snapshot)
{
  return TEST_SNAPSHOT (snapshot)->id;
}

static void
test_snapshot_persist (AgentsSnapshot *snapshot,
                       GInputStream *data,
                       GTask *task)
{
  g_task_return_boolean (task, TRUE);
}

static void
test_snapshot_restore (AgentsSnapshot *snapshot, GTask *task)
{
  g_task_return_pointer (
    task, g_memory_input_stream_new_from_data ("restored-workspace", -1, NULL),
    g_object_unref);
}

static void
test_snapshot_restorable (AgentsSnapshot *snapshot, GTask *task)
{
  g_task_return_boolean (task, TEST_SNAPSHOT (snapshot)->restorable);
}

static void
test_snapshot_iface_init (AgentsSnapshotInterface *iface)
{
  iface->get_snapshot_type = test_snapshot_type;
  iface->get_id = test_snapshot_id;
  iface->persist = test_snapshot_persist;
  iface->restore = test_snapshot_restore;
  iface->restorable = test_snapshot_restorable;
}

static void
test_snapshot_finalize (GObject *object)
{
  g_free (TEST_SNAPSHOT (object)->id);
  G_OBJECT_CLASS (test_snapshot_parent_class)->finalize (object);
}

static void
test_snapshot_class_init (TestSnapshotClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_snapshot_finalize;
}

static void
test_snapshot_init (TestSnapshot *self)
{
}

static AgentsSnapshot *
test_snapshot_new (const char *id, gboolean restorable)
{
  TestSnapshot *self = g_object_new (TEST_TYPE_SNAPSHOT, NULL);

  self->id = g_strdup (id);
  self->restorable = restorable;
  return AGENTS_SNAPSHOT (self);
}

/* ---- a stream that counts how often it is closed --------------------- */

#define TEST_TYPE_TRACKED_STREAM (test_tracked_stream_get_type ())
G_DECLARE_FINAL_TYPE (TestTrackedStream,
                      test_tracked_stream,
                      TEST,
                      TRACKED_STREAM,
                      GMemoryInputStream)

struct _TestTrackedStream
{
  GMemoryInputStream parent_instance;
  guint close_calls;
};

G_DEFINE_FINAL_TYPE (TestTrackedStream,
                     test_tracked_stream,
                     G_TYPE_MEMORY_INPUT_STREAM)

static gboolean
test_tracked_stream_close (GInputStream *stream,
                           GCancellable *cancellable,
                           GError **error)
{
  TEST_TRACKED_STREAM (stream)->close_calls++;
  return G_INPUT_STREAM_CLASS (test_tracked_stream_parent_class)
    ->close_fn (stream, cancellable, error);
}

static void
test_tracked_stream_class_init (TestTrackedStreamClass *klass)
{
  G_INPUT_STREAM_CLASS (klass)->close_fn = test_tracked_stream_close;
}

static void
test_tracked_stream_init (TestTrackedStream *self)
{
}

/* ---- the reference's _ResumeTrackingSession ------------------------- */

#define TEST_TYPE_RESUME_SESSION (test_resume_session_get_type ())
G_DECLARE_FINAL_TYPE (
  TestResumeSession, test_resume_session, TEST, RESUME_SESSION, GObject)

struct _TestResumeSession
{
  GObject parent_instance;
  AgentsSandboxSessionState *state;
  char *root;
  gboolean running;
  GInputStream *archive; /* persist_workspace's answer, or NULL: a tar */
  guint clear_calls;
  GPtrArray *hydrated; /* of char*: the payloads hydrated */
  GArray *applied;     /* of gboolean: only_ephemeral of each apply */
  GPtrArray *commands; /* of char*: exec argv joined with spaces */
};

static void
test_resume_session_iface_init (AgentsSandboxSessionInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  TestResumeSession,
  test_resume_session,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_SANDBOX_SESSION,
                         test_resume_session_iface_init))

static AgentsSandboxSessionState *
resume_get_state (AgentsSandboxSession *session)
{
  return g_object_ref (TEST_RESUME_SESSION (session)->state);
}

static void
resume_running (AgentsSandboxSession *session, GTask *task)
{
  g_task_return_boolean (task, TEST_RESUME_SESSION (session)->running);
}

/* Probes (`test`) really run, as in the reference; anything else (the
 * accounts) is only recorded. */
static void
resume_exec (AgentsSandboxSession *session,
             const char *const *argv,
             double timeout,
             GTask *task)
{
  TestResumeSession *self = TEST_RESUME_SESSION (session);
  g_autoptr (GBytes) empty = g_bytes_new (NULL, 0);
  int status = 0;

  g_ptr_array_add (self->commands, g_strjoinv (" ", (char **) argv));
  if (g_str_equal (argv[0], "test"))
    {
      g_autoptr (GError) error = NULL;

      g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL,
                                   G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL,
                                   &status, &error));
      g_assert_no_error (error);
      status = g_spawn_check_wait_status (status, NULL) ? 0 : 1;
    }
  g_task_return_pointer (task, agents_exec_result_new (empty, empty, status),
                         g_object_unref);
}

static void
resume_persist_workspace (AgentsSandboxSession *session, GTask *task)
{
  TestResumeSession *self = TEST_RESUME_SESSION (session);
  GError *error = NULL;
  GInputStream *stream;

  if (self->archive != NULL)
    {
      g_task_return_pointer (task, g_object_ref (self->archive),
                             g_object_unref);
      return;
    }
  stream = agents_archive_tar_directory (self->root, NULL, NULL, &error);
  if (stream == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, stream, g_object_unref);
}

static void
resume_hydrate_workspace (AgentsSandboxSession *session,
                          GInputStream *data,
                          GTask *task)
{
  char buffer[256] = "";
  gsize n = 0;
  g_autoptr (GError) error = NULL;

  g_assert_true (g_input_stream_read_all (data, buffer, sizeof buffer - 1, &n,
                                          NULL, &error));
  g_assert_no_error (error);
  g_ptr_array_add (TEST_RESUME_SESSION (session)->hydrated,
                   g_strndup (buffer, n));
  g_task_return_boolean (task, TRUE);
}

static void
resume_apply_manifest (AgentsSandboxSession *session,
                       gboolean only_ephemeral,
                       GTask *task)
{
  g_array_append_val (TEST_RESUME_SESSION (session)->applied, only_ephemeral);
  g_task_return_pointer (task, g_ptr_array_new (),
                         (GDestroyNotify) g_ptr_array_unref);
}

static void
resume_clear (AgentsSandboxSession *session, GTask *task)
{
  TEST_RESUME_SESSION (session)->clear_calls++;
  g_task_return_boolean (task, TRUE);
}

static void
test_resume_session_iface_init (AgentsSandboxSessionInterface *iface)
{
  iface->get_state = resume_get_state;
  iface->running = resume_running;
  iface->exec = resume_exec;
  iface->persist_workspace = resume_persist_workspace;
  iface->hydrate_workspace = resume_hydrate_workspace;
  iface->apply_manifest = resume_apply_manifest;
  iface->clear_workspace_root_on_resume = resume_clear;
}

static void
test_resume_session_finalize (GObject *object)
{
  TestResumeSession *self = TEST_RESUME_SESSION (object);

  g_clear_object (&self->state);
  g_clear_object (&self->archive);
  g_free (self->root);
  g_ptr_array_unref (self->hydrated);
  g_array_unref (self->applied);
  g_ptr_array_unref (self->commands);
  G_OBJECT_CLASS (test_resume_session_parent_class)->finalize (object);
}

static void
test_resume_session_class_init (TestResumeSessionClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_resume_session_finalize;
}

static void
test_resume_session_init (TestResumeSession *self)
{
  self->running = TRUE;
  self->hydrated = g_ptr_array_new_with_free_func (g_free);
  self->applied = g_array_new (FALSE, FALSE, sizeof (gboolean));
  self->commands = g_ptr_array_new_with_free_func (g_free);
}

/* A session over @root with @snapshot whose start begins with the
 * workspace kept (@preserved) and its root recorded ready (@root_ready).
 * The manifest has a user, so that provisioning shows as a `useradd`. */
static TestResumeSession *
resume_session_new (const char *root,
                    AgentsSnapshot *snapshot,
                    gboolean preserved,
                    gboolean root_ready)
{
  TestResumeSession *self = g_object_new (TEST_TYPE_RESUME_SESSION, NULL);
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsUser) user = agents_user_new ("sandbox-user");

  agents_manifest_set_root (manifest, root);
  agents_manifest_add_user (manifest, user);
  self->root = g_strdup (root);
  self->state = agents_sandbox_session_state_new (manifest, snapshot);
  agents_sandbox_session_state_set_workspace_root_ready (self->state,
                                                         root_ready);
  agents_sandbox_session_set_start_state_preserved (
    AGENTS_SANDBOX_SESSION (self), preserved, FALSE);
  return self;
}

static guint
count_commands (TestResumeSession *self, const char *prefix)
{
  guint n = 0;

  for (guint i = 0; i < self->commands->len; i++)
    if (g_str_has_prefix (g_ptr_array_index (self->commands, i), prefix))
      n++;
  return n;
}

static void
session_start (TestResumeSession *self)
{
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GError) error = NULL;

  AGENTS_TEST_AWAIT (
    res, agents_sandbox_session_start_async (AGENTS_SANDBOX_SESSION (self),
                                             NULL, agents_test_async_cb, &res));
  g_assert_true (agents_sandbox_session_start_finish (
    AGENTS_SANDBOX_SESSION (self), res, &error));
  g_assert_no_error (error);
}

static void
session_stop (TestResumeSession *self)
{
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GError) error = NULL;

  AGENTS_TEST_AWAIT (
    res, agents_sandbox_session_stop_async (AGENTS_SANDBOX_SESSION (self), NULL,
                                            agents_test_async_cb, &res));
  g_assert_true (agents_sandbox_session_stop_finish (
    AGENTS_SANDBOX_SESSION (self), res, &error));
  g_assert_no_error (error);
}

static void
assert_applied (TestResumeSession *self, gboolean only_ephemeral)
{
  g_assert_cmpuint (self->applied->len, ==, 1);
  g_assert_cmpint (g_array_index (self->applied, gboolean, 0), ==,
                   only_ephemeral);
}

static char *
cache_dir (TestResumeSession *self)
{
  const char *id = agents_sandbox_session_state_get_session_id (self->state);
  g_auto (GStrv) parts = g_strsplit (id, "-", -1);
  g_autofree char *hex = g_strjoinv ("", parts);

  return g_build_filename ("/tmp/openai-agents/session-state", hex, NULL);
}

/* SNAP-06 */
static void
test_stop_closes_persisted_archive (void)
{
  g_autofree char *tmp = agents_test_make_tmp_dir ("ref-snap06-XXXXXX");
  g_autoptr (AgentsSnapshot) snapshot =
    test_snapshot_new ("custom-snapshot", FALSE);
  g_autoptr (TestResumeSession) session =
    resume_session_new (tmp, snapshot, FALSE, FALSE);
  g_autoptr (TestTrackedStream) archive =
    g_object_new (TEST_TYPE_TRACKED_STREAM, NULL);
  g_autofree char *dir = cache_dir (session);

  g_memory_input_stream_add_data (G_MEMORY_INPUT_STREAM (archive), "tracked",
                                  -1, NULL);
  session->archive = g_object_ref (G_INPUT_STREAM (archive));

  session_stop (session);

  g_assert_cmpuint (archive->close_calls, ==, 1);
  g_assert_true (g_input_stream_is_closed (G_INPUT_STREAM (archive)));
  agents_test_rm_rf (dir);
  agents_test_rm_rf (tmp);
}

/* SNAP-08 */
static void
test_start_restores_when_fingerprint_mismatches (void)
{
  g_autofree char *tmp = agents_test_make_tmp_dir ("ref-snap08-XXXXXX");
  g_autofree char *tracked = g_build_filename (tmp, "tracked.txt", NULL);
  g_autoptr (AgentsSnapshot) snapshot =
    test_snapshot_new ("resume-snapshot", TRUE);
  g_autoptr (TestResumeSession) session =
    resume_session_new (tmp, snapshot, TRUE, TRUE);
  g_autofree char *dir = cache_dir (session);

  agents_test_write_file (tracked, "tracked");
  session_stop (session);
  g_assert_nonnull (
    agents_sandbox_session_state_get_snapshot_fingerprint (session->state));
  agents_test_write_file (tracked, "drifted");

  session_start (session);

  g_assert_cmpuint (session->clear_calls, ==, 1);
  g_assert_cmpuint (session->hydrated->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (session->hydrated, 0), ==,
                   "restored-workspace");
  g_assert_cmpuint (count_commands (session, "useradd"), ==, 1);
  assert_applied (session, TRUE);
  agents_test_rm_rf (dir);
  agents_test_rm_rf (tmp);
}

/* SNAP-10 */
static void
test_start_applies_full_manifest_for_fresh_backend (void)
{
  g_autofree char *tmp = agents_test_make_tmp_dir ("ref-snap10-XXXXXX");
  g_autoptr (AgentsSnapshot) snapshot = agents_noop_snapshot_new ("fresh");
  g_autoptr (TestResumeSession) session =
    resume_session_new (tmp, snapshot, FALSE, FALSE);

  session_start (session);

  g_assert_cmpuint (session->clear_calls, ==, 0);
  g_assert_cmpuint (session->hydrated->len, ==, 0);
  /* No separate provisioning: the full apply provisions the accounts. */
  g_assert_cmpuint (count_commands (session, "useradd"), ==, 0);
  assert_applied (session, FALSE);
  agents_test_rm_rf (tmp);
}

/* SNAP-12 */
static void
test_start_applies_full_manifest_when_preserved_root_unproven (void)
{
  g_autofree char *tmp = agents_test_make_tmp_dir ("ref-snap12-XXXXXX");
  g_autofree char *missing = g_build_filename (tmp, "missing-workspace", NULL);
  g_autofree char *probe = g_strdup_printf ("test -d %s", missing);
  g_autoptr (AgentsSnapshot) snapshot = agents_noop_snapshot_new ("unproven");
  g_autoptr (TestResumeSession) session =
    resume_session_new (missing, snapshot, TRUE, FALSE);

  session_start (session);

  g_assert_cmpuint (count_commands (session, probe), ==, 1);
  g_assert_cmpuint (session->clear_calls, ==, 0);
  g_assert_cmpuint (session->hydrated->len, ==, 0);
  g_assert_cmpuint (count_commands (session, "useradd"), ==, 0);
  assert_applied (session, FALSE);
  agents_test_rm_rf (tmp);
}

/* SNAP-18 */
static void
test_fingerprint_recorded_and_restore_skipped (void)
{
  g_autofree char *tmp = agents_test_make_tmp_dir ("ref-snap18-XXXXXX");
  g_autofree char *tracked = g_build_filename (tmp, "tracked.txt", NULL);
  g_autoptr (AgentsSnapshot) snapshot =
    test_snapshot_new ("resume-snapshot", TRUE);
  g_autoptr (TestResumeSession) session =
    resume_session_new (tmp, snapshot, TRUE, TRUE);
  g_autofree char *dir = cache_dir (session);
  g_autofree char *record = g_build_filename (dir, "fingerprint.json", NULL);
  g_autofree char *contents = NULL;
  g_autoptr (JsonNode) node = NULL;
  g_autoptr (GError) error = NULL;
  const char *fingerprint;
  JsonObject *object;

  agents_test_write_file (tracked, "tracked");
  session_stop (session);

  fingerprint =
    agents_sandbox_session_state_get_snapshot_fingerprint (session->state);
  g_assert_nonnull (fingerprint);
  g_assert_cmpstr (
    agents_sandbox_session_state_get_snapshot_fingerprint_version (
      session->state),
    ==, "workspace_tar_sha256_v1");
  g_assert_true (g_file_get_contents (record, &contents, NULL, &error));
  g_assert_no_error (error);
  node = json_from_string (contents, &error);
  g_assert_no_error (error);
  object = json_node_get_object (node);
  g_assert_cmpuint (json_object_get_size (object), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (object, "fingerprint"), ==,
                   fingerprint);
  g_assert_cmpstr (json_object_get_string_member (object, "version"), ==,
                   "workspace_tar_sha256_v1");

  session_start (session);

  g_assert_cmpuint (session->clear_calls, ==, 0);
  g_assert_cmpuint (session->hydrated->len, ==, 0);
  g_assert_cmpuint (count_commands (session, "useradd"), ==, 0);
  assert_applied (session, TRUE);
  agents_test_rm_rf (dir);
  agents_test_rm_rf (tmp);
}

/* ---- remote snapshot clients ----------------------------------------- */

#define TEST_TYPE_REMOTE_CLIENT (test_remote_client_get_type ())
G_DECLARE_FINAL_TYPE (
  TestRemoteClient, test_remote_client, TEST, REMOTE_CLIENT, GObject)

struct _TestRemoteClient
{
  GObject parent_instance;
  GPtrArray *uploads; /* of char*: "ID=PAYLOAD" */
  GHashTable *stored; /* id -> payload */
};

#define TEST_TYPE_UPLOAD_ONLY_CLIENT (test_upload_only_client_get_type ())
G_DECLARE_FINAL_TYPE (TestUploadOnlyClient,
                      test_upload_only_client,
                      TEST,
                      UPLOAD_ONLY_CLIENT,
                      GObject)

struct _TestUploadOnlyClient
{
  GObject parent_instance;
  GPtrArray *uploads;
};

static GPtrArray *
client_uploads (AgentsRemoteSnapshotClient *client)
{
  if (TEST_IS_REMOTE_CLIENT (client))
    return TEST_REMOTE_CLIENT (client)->uploads;
  return TEST_UPLOAD_ONLY_CLIENT (client)->uploads;
}

static void
client_upload (AgentsRemoteSnapshotClient *client,
               const char *snapshot_id,
               GInputStream *data,
               GTask *task)
{
  char buffer[256] = "";
  gsize n = 0;
  g_autoptr (GError) error = NULL;

  g_assert_true (g_input_stream_read_all (data, buffer, sizeof buffer - 1, &n,
                                          NULL, &error));
  g_assert_no_error (error);
  g_ptr_array_add (client_uploads (client),
                   g_strdup_printf ("%s=%.*s", snapshot_id, (int) n, buffer));
  if (TEST_IS_REMOTE_CLIENT (client))
    g_hash_table_insert (TEST_REMOTE_CLIENT (client)->stored,
                         g_strdup (snapshot_id), g_strndup (buffer, n));
  g_task_return_boolean (task, TRUE);
}

static void
client_download (AgentsRemoteSnapshotClient *client,
                 const char *snapshot_id,
                 GTask *task)
{
  const char *payload = "downloaded";

  if (TEST_IS_REMOTE_CLIENT (client))
    payload =
      g_hash_table_lookup (TEST_REMOTE_CLIENT (client)->stored, snapshot_id);
  g_task_return_pointer (
    task, g_memory_input_stream_new_from_data (g_strdup (payload), -1, g_free),
    g_object_unref);
}

static void
client_exists (AgentsRemoteSnapshotClient *client,
               const char *snapshot_id,
               GTask *task)
{
  g_task_return_boolean (
    task,
    g_hash_table_contains (TEST_REMOTE_CLIENT (client)->stored, snapshot_id));
}

static void
test_remote_client_iface_init (AgentsRemoteSnapshotClientInterface *iface)
{
  iface->upload = client_upload;
  iface->download = client_download;
  iface->exists = client_exists;
}

static void
test_upload_only_client_iface_init (AgentsRemoteSnapshotClientInterface *iface)
{
  iface->upload = client_upload;
  iface->download = client_download;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (
  TestRemoteClient,
  test_remote_client,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_REMOTE_SNAPSHOT_CLIENT,
                         test_remote_client_iface_init))

G_DEFINE_FINAL_TYPE_WITH_CODE (
  TestUploadOnlyClient,
  test_upload_only_client,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_REMOTE_SNAPSHOT_CLIENT,
                         test_upload_only_client_iface_init))

static void
test_remote_client_finalize (GObject *object)
{
  g_ptr_array_unref (TEST_REMOTE_CLIENT (object)->uploads);
  g_hash_table_unref (TEST_REMOTE_CLIENT (object)->stored);
  G_OBJECT_CLASS (test_remote_client_parent_class)->finalize (object);
}

static void
test_remote_client_class_init (TestRemoteClientClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_remote_client_finalize;
}

static void
test_remote_client_init (TestRemoteClient *self)
{
  self->uploads = g_ptr_array_new_with_free_func (g_free);
  self->stored =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

static void
test_upload_only_client_finalize (GObject *object)
{
  g_ptr_array_unref (TEST_UPLOAD_ONLY_CLIENT (object)->uploads);
  G_OBJECT_CLASS (test_upload_only_client_parent_class)->finalize (object);
}

static void
test_upload_only_client_class_init (TestUploadOnlyClientClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_upload_only_client_finalize;
}

static void
test_upload_only_client_init (TestUploadOnlyClient *self)
{
  self->uploads = g_ptr_array_new_with_free_func (g_free);
}

/* ---- a backend's session: built on AgentsSandboxSessionBase ---------- */

#define TEST_TYPE_BASE_SESSION (test_base_session_get_type ())
G_DECLARE_FINAL_TYPE (TestBaseSession,
                      test_base_session,
                      TEST,
                      BASE_SESSION,
                      AgentsSandboxSessionBase)

struct _TestBaseSession
{
  AgentsSandboxSessionBase parent_instance;
};

static void
base_persist_workspace (AgentsSandboxSession *session, GTask *task)
{
  g_task_return_pointer (
    task, g_memory_input_stream_new_from_data ("tracked", -1, NULL),
    g_object_unref);
}

static void
test_base_session_iface_init (AgentsSandboxSessionInterface *iface)
{
  iface->persist_workspace = base_persist_workspace;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (
  TestBaseSession,
  test_base_session,
  AGENTS_TYPE_SANDBOX_SESSION_BASE,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_SANDBOX_SESSION,
                         test_base_session_iface_init))

static void
test_base_session_class_init (TestBaseSessionClass *klass)
{
}

static void
test_base_session_init (TestBaseSession *self)
{
}

#define CLIENT_KEY "tests.remote_snapshot_client"
#define EXISTS_ERROR \
  "Remote snapshot client must implement `exists(snapshot_id, ...)`"

static gboolean
remote_restorable (AgentsSnapshot *snapshot,
                   AgentsDependencies *dependencies,
                   GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  agents_snapshot_restorable_with_dependencies_async (
    snapshot, dependencies, NULL, agents_test_async_cb, &result);
  return agents_snapshot_restorable_finish (
    snapshot, agents_test_wait_result (&result), error);
}

/* SNAP-20: a client without exists */
static void
test_remote_snapshot_requires_exists (void)
{
  g_autoptr (TestUploadOnlyClient) client =
    g_object_new (TEST_TYPE_UPLOAD_ONLY_CLIENT, NULL);
  g_autoptr (AgentsDependencies) dependencies = agents_dependencies_new ();
  g_autoptr (AgentsSnapshot) snapshot =
    agents_remote_snapshot_new ("snap-123", CLIENT_KEY);
  g_autoptr (GInputStream) data =
    g_memory_input_stream_new_from_data ("workspace-tar", -1, NULL);
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;

  agents_dependencies_bind_value (dependencies, CLIENT_KEY, G_OBJECT (client));

  g_assert_false (remote_restorable (snapshot, dependencies, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==, EXISTS_ERROR);
  g_clear_error (&error);

  agents_snapshot_persist_with_dependencies_async (
    snapshot, data, dependencies, NULL, agents_test_async_cb, &result);
  g_assert_true (agents_snapshot_persist_finish (
    snapshot, agents_test_wait_result (&result), &error));
  g_assert_no_error (error);
  g_assert_cmpuint (client->uploads->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (client->uploads, 0), ==,
                   "snap-123=workspace-tar");

  g_assert_false (remote_restorable (snapshot, dependencies, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==, EXISTS_ERROR);
}

static void
assert_stop_uploads (AgentsSandboxSession *session)
{
  g_autoptr (TestRemoteClient) client =
    g_object_new (TEST_TYPE_REMOTE_CLIENT, NULL);
  g_autoptr (AgentsDependencies) dependencies = agents_dependencies_new ();
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GError) error = NULL;

  agents_dependencies_bind_value (dependencies, CLIENT_KEY, G_OBJECT (client));
  agents_sandbox_session_set_dependencies (session, dependencies);

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_stop_async (
                            session, NULL, agents_test_async_cb, &res));
  g_assert_true (agents_sandbox_session_stop_finish (session, res, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (client->uploads->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (client->uploads, 0), ==,
                   "snap-123=tracked");
}

/* SNAP-20: the session's dependencies reach the snapshot */
static void
test_session_dependencies_pass_remote_client (void)
{
  g_autoptr (AgentsSnapshot) snapshot =
    agents_remote_snapshot_new ("snap-123", CLIENT_KEY);
  g_autoptr (TestResumeSession) session =
    resume_session_new ("/tmp/test-session-deps", snapshot, FALSE, FALSE);

  session->archive = g_memory_input_stream_new_from_data ("tracked", -1, NULL);
  assert_stop_uploads (AGENTS_SANDBOX_SESSION (session));
}

/* SNAP-20: also for a backend's session (the reference's wrapper session
 * delegating to its inner session: in C both are the one session) */
static void
test_base_session_dependencies_pass_remote_client (void)
{
  g_autoptr (AgentsSnapshot) snapshot =
    agents_remote_snapshot_new ("snap-123", CLIENT_KEY);
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsSandboxSessionState) state = NULL;
  g_autoptr (TestBaseSession) session =
    g_object_new (TEST_TYPE_BASE_SESSION, NULL);

  agents_manifest_set_root (manifest, "/tmp/test-session-wrapper-deps");
  state = agents_sandbox_session_state_new (manifest, snapshot);
  agents_sandbox_session_set_state (AGENTS_SANDBOX_SESSION (session), state);
  assert_stop_uploads (AGENTS_SANDBOX_SESSION (session));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/reference-cases/SNAP-06",
                   test_stop_closes_persisted_archive);
  g_test_add_func ("/reference-cases/SNAP-08",
                   test_start_restores_when_fingerprint_mismatches);
  g_test_add_func ("/reference-cases/SNAP-10",
                   test_start_applies_full_manifest_for_fresh_backend);
  g_test_add_func (
    "/reference-cases/SNAP-12",
    test_start_applies_full_manifest_when_preserved_root_unproven);
  g_test_add_func ("/reference-cases/SNAP-14",
                   test_local_snapshot_rejects_non_basename_ids);
  g_test_add_func ("/reference-cases/SNAP-16",
                   test_noop_snapshot_is_not_restorable);
  g_test_add_func ("/reference-cases/SNAP-18",
                   test_fingerprint_recorded_and_restore_skipped);
  g_test_add_func ("/reference-cases/SNAP-20/requires-exists",
                   test_remote_snapshot_requires_exists);
  g_test_add_func ("/reference-cases/SNAP-20/session-dependencies",
                   test_session_dependencies_pass_remote_client);
  g_test_add_func ("/reference-cases/SNAP-20/base-session-dependencies",
                   test_base_session_dependencies_pass_remote_client);

  return g_test_run ();
}
