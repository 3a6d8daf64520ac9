/* test-snapshot.c - noop and local snapshots, specs, JSON
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "agents-archive-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-snapshot-private.h"
#include "test-utils.h"

/* ---- a stream that fails after some bytes ----------------------------- */

#define TEST_TYPE_FAILING_STREAM (test_failing_stream_get_type ())
G_DECLARE_FINAL_TYPE (
  TestFailingStream, test_failing_stream, TEST, FAILING_STREAM, GInputStream)

struct _TestFailingStream
{
  GInputStream parent_instance;
  gsize fail_after;
  gsize offset;
};

G_DEFINE_FINAL_TYPE (TestFailingStream,
                     test_failing_stream,
                     G_TYPE_INPUT_STREAM)

static gssize
test_failing_stream_read (GInputStream *stream,
                          void *buffer,
                          gsize count,
                          GCancellable *cancellable,
                          GError **error)
{
  TestFailingStream *self = TEST_FAILING_STREAM (stream);
  gsize n = MIN (count, self->fail_after - self->offset);

  if (n == 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                           "producer died");
      return -1;
    }
  memset (buffer, 'x', n);
  self->offset += n;
  return n;
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

static GInputStream *
failing_stream_new (gsize fail_after)
{
  TestFailingStream *self = g_object_new (TEST_TYPE_FAILING_STREAM, NULL);

  self->fail_after = fail_after;
  return G_INPUT_STREAM (self);
}

/* ---- a stream that stops midway until it is let go -------------------- */

#define TEST_TYPE_GATE_STREAM (test_gate_stream_get_type ())
G_DECLARE_FINAL_TYPE (
  TestGateStream, test_gate_stream, TEST, GATE_STREAM, GInputStream)

/* Gives its bytes, then blocks (in the worker thread GIO reads it in)
 * until released, then ends. */
struct _TestGateStream
{
  GInputStream parent_instance;
  GBytes *bytes;
  gsize offset;
  GMutex lock;
  GCond cond;
  gboolean blocked;
  gboolean released;
};

G_DEFINE_FINAL_TYPE (TestGateStream, test_gate_stream, G_TYPE_INPUT_STREAM)

static gssize
test_gate_stream_read (GInputStream *stream,
                       void *buffer,
                       gsize count,
                       GCancellable *cancellable,
                       GError **error)
{
  TestGateStream *self = TEST_GATE_STREAM (stream);
  gsize size;
  const guint8 *data = g_bytes_get_data (self->bytes, &size);
  gsize n = MIN (count, size - self->offset);

  if (n > 0)
    {
      memcpy (buffer, data + self->offset, n);
      self->offset += n;
      return n;
    }
  g_mutex_lock (&self->lock);
  self->blocked = TRUE;
  while (!self->released)
    g_cond_wait (&self->cond, &self->lock);
  g_mutex_unlock (&self->lock);
  return 0;
}

static void
test_gate_stream_finalize (GObject *object)
{
  TestGateStream *self = TEST_GATE_STREAM (object);

  g_bytes_unref (self->bytes);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  G_OBJECT_CLASS (test_gate_stream_parent_class)->finalize (object);
}

static void
test_gate_stream_class_init (TestGateStreamClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_gate_stream_finalize;
  G_INPUT_STREAM_CLASS (klass)->read_fn = test_gate_stream_read;
}

static void
test_gate_stream_init (TestGateStream *self)
{
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
}

static TestGateStream *
gate_stream_new (GBytes *bytes)
{
  TestGateStream *self = g_object_new (TEST_TYPE_GATE_STREAM, NULL);

  self->bytes = g_bytes_ref (bytes);
  return self;
}

/* Spins the main context until the stream has given its bytes and waits. */
static void
gate_stream_wait_blocked (TestGateStream *self)
{
  for (;;)
    {
      gboolean blocked;

      g_mutex_lock (&self->lock);
      blocked = self->blocked;
      g_mutex_unlock (&self->lock);
      if (blocked)
        return;
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

static void
gate_stream_release (TestGateStream *self)
{
  g_mutex_lock (&self->lock);
  self->released = TRUE;
  g_cond_signal (&self->cond);
  g_mutex_unlock (&self->lock);
}

/* ---- a snapshot type relying on the interface defaults ---------------- */

#define TEST_TYPE_MINIMAL_SNAPSHOT (test_minimal_snapshot_get_type ())
G_DECLARE_FINAL_TYPE (
  TestMinimalSnapshot, test_minimal_snapshot, TEST, MINIMAL_SNAPSHOT, GObject)

struct _TestMinimalSnapshot
{
  GObject parent_instance;
  char *id;
};

static void test_minimal_snapshot_iface_init (AgentsSnapshotInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  TestMinimalSnapshot,
  test_minimal_snapshot,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_SNAPSHOT,
                         test_minimal_snapshot_iface_init))

static void
test_minimal_snapshot_iface_init (AgentsSnapshotInterface *iface)
{
}

static void
test_minimal_snapshot_get_property (GObject *object,
                                    guint prop_id,
                                    GValue *value,
                                    GParamSpec *pspec)
{
  g_value_set_string (value, TEST_MINIMAL_SNAPSHOT (object)->id);
}

static void
test_minimal_snapshot_set_property (GObject *object,
                                    guint prop_id,
                                    const GValue *value,
                                    GParamSpec *pspec)
{
  TestMinimalSnapshot *self = TEST_MINIMAL_SNAPSHOT (object);

  g_free (self->id);
  self->id = g_value_dup_string (value);
}

static void
test_minimal_snapshot_finalize (GObject *object)
{
  g_free (TEST_MINIMAL_SNAPSHOT (object)->id);
  G_OBJECT_CLASS (test_minimal_snapshot_parent_class)->finalize (object);
}

static void
test_minimal_snapshot_class_init (TestMinimalSnapshotClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = test_minimal_snapshot_get_property;
  object_class->set_property = test_minimal_snapshot_set_property;
  object_class->finalize = test_minimal_snapshot_finalize;
  g_object_class_install_property (
    object_class, 1,
    g_param_spec_string ("id", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                           G_PARAM_STATIC_STRINGS));
}

static void
test_minimal_snapshot_init (TestMinimalSnapshot *self)
{
}

/* ---- helpers ---------------------------------------------------------- */

static gboolean
persist (AgentsSnapshot *snapshot,
         GInputStream *data,
         GCancellable *cancellable,
         GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  agents_snapshot_persist_async (snapshot, data, cancellable,
                                 agents_test_async_cb, &result);
  agents_test_wait_result (&result);
  return agents_snapshot_persist_finish (snapshot, result, error);
}

static GInputStream *
restore (AgentsSnapshot *snapshot, GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  agents_snapshot_restore_async (snapshot, NULL, agents_test_async_cb, &result);
  agents_test_wait_result (&result);
  return agents_snapshot_restore_finish (snapshot, result, error);
}

static gboolean
restorable (AgentsSnapshot *snapshot, GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  agents_snapshot_restorable_async (snapshot, NULL, agents_test_async_cb,
                                    &result);
  agents_test_wait_result (&result);
  return agents_snapshot_restorable_finish (snapshot, result, error);
}

static GBytes *
random_bytes (gsize size)
{
  guint8 *data = g_malloc (size);

  for (gsize i = 0; i < size; i++)
    data[i] = (guint8) g_random_int ();
  return g_bytes_new_take (data, size);
}

static GBytes *
read_all (GInputStream *stream)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GOutputStream) out = g_memory_output_stream_new_resizable ();

  g_output_stream_splice (out, stream,
                          G_OUTPUT_STREAM_SPLICE_CLOSE_SOURCE |
                            G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET,
                          NULL, &error);
  g_assert_no_error (error);
  return g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (out));
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const char *const *) a, *(const char *const *) b);
}

static char *
listing (const char *dir)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (",", (char **) names->pdata);
}

static char *
json_string (JsonNode *node)
{
  return json_to_string (node, FALSE);
}

static JsonNode *
parse (const char *json)
{
  g_autoptr (GError) error = NULL;
  JsonNode *node = json_from_string (json, &error);

  g_assert_no_error (error);
  return node;
}

/* ---- noop ------------------------------------------------------------- */

static void
test_noop (void)
{
  g_autoptr (AgentsSnapshot) snapshot = agents_noop_snapshot_new ("noop-id");
  g_autoptr (GBytes) data = random_bytes (300 * 1024);
  g_autoptr (GInputStream) stream = g_memory_input_stream_new_from_bytes (data);
  g_autoptr (GInputStream) restored = NULL;
  g_autoptr (GError) error = NULL;
  char byte;

  g_assert_cmpstr (agents_snapshot_get_snapshot_type (snapshot), ==, "noop");
  g_assert_cmpstr (agents_snapshot_get_id (snapshot), ==, "noop-id");

  g_assert_true (persist (snapshot, stream, NULL, &error));
  g_assert_no_error (error);
  /* The whole stream was consumed. */
  g_assert_cmpint (g_input_stream_read (stream, &byte, 1, NULL, NULL), ==, 0);

  g_assert_false (restorable (snapshot, &error));
  g_assert_no_error (error);

  restored = restore (snapshot, &error);
  g_assert_null (restored);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_SNAPSHOT_NOT_RESTORABLE);
  agents_test_assert_context_str (error, "snapshot_id", "noop-id");
}

/* Persisting into a noop snapshot lets the archive producer finish. */
static void
test_noop_drains_archive (void)
{
  g_autofree char *root = agents_test_make_tmp_dir ("snapshot-noop-");
  g_autofree char *big = g_build_filename (root, "big", NULL);
  g_autoptr (AgentsSnapshot) snapshot = agents_noop_snapshot_new ("drain");
  g_autoptr (GInputStream) stream = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *contents = g_strnfill (1024 * 1024, 'q');
  char byte;

  agents_test_write_file (big, contents);
  stream = agents_archive_tar_directory (root, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (persist (snapshot, stream, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_input_stream_read (stream, &byte, 1, NULL, &error), ==, 0);
  g_assert_no_error (error);

  agents_test_rm_rf (root);
}

/* ---- local ------------------------------------------------------------ */

static void
test_local_round_trip (void)
{
  g_autofree char *tmp = agents_test_make_tmp_dir ("snapshot-local-");
  g_autofree char *base = g_build_filename (tmp, "nested", "snapshots", NULL);
  g_autofree char *archive = g_build_filename (base, "snap-1.tar", NULL);
  g_autoptr (AgentsSnapshot) snapshot =
    agents_local_snapshot_new ("snap-1", base);
  g_autoptr (GBytes) data = random_bytes (300 * 1024 + 17);
  g_autoptr (GInputStream) stream = g_memory_input_stream_new_from_bytes (data);
  g_autoptr (GInputStream) restored = NULL;
  g_autoptr (GBytes) restored_bytes = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *names = NULL;
  struct stat st;

  g_assert_cmpstr (agents_snapshot_get_snapshot_type (snapshot), ==, "local");
  g_assert_cmpstr (agents_snapshot_get_id (snapshot), ==, "snap-1");
  g_assert_cmpstr (
    agents_local_snapshot_get_base_path (AGENTS_LOCAL_SNAPSHOT (snapshot)), ==,
    base);
  path =
    agents_local_snapshot_dup_archive_path (AGENTS_LOCAL_SNAPSHOT (snapshot));
  g_assert_cmpstr (path, ==, archive);

  g_assert_false (restorable (snapshot, &error));
  g_assert_no_error (error);

  g_assert_true (persist (snapshot, stream, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (stat (base, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0700);
  g_assert_cmpint (stat (archive, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);
  names = listing (base);
  g_assert_cmpstr (names, ==, "snap-1.tar");

  g_assert_true (restorable (snapshot, &error));
  g_assert_no_error (error);

  restored = restore (snapshot, &error);
  g_assert_no_error (error);
  g_assert_nonnull (restored);
  restored_bytes = read_all (restored);
  g_assert_true (g_bytes_equal (restored_bytes, data));

  agents_test_rm_rf (tmp);
}

static void
test_local_failed_persist_keeps_previous (void)
{
  g_autofree char *base = agents_test_make_tmp_dir ("snapshot-fail-");
  g_autofree char *archive = g_build_filename (base, "keep.tar", NULL);
  g_autoptr (AgentsSnapshot) snapshot =
    agents_local_snapshot_new ("keep", base);
  g_autoptr (GBytes) first = random_bytes (100 * 1024);
  g_autoptr (GInputStream) first_stream =
    g_memory_input_stream_new_from_bytes (first);
  g_autoptr (GInputStream) failing = failing_stream_new (200 * 1024 + 5);
  g_autoptr (GInputStream) restored = NULL;
  g_autoptr (GBytes) restored_bytes = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *names = NULL;

  g_assert_true (persist (snapshot, first_stream, NULL, &error));
  g_assert_no_error (error);

  g_assert_false (persist (snapshot, failing, NULL, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_SNAPSHOT_PERSIST);
  agents_test_assert_context_str (error, "path", archive);
  agents_test_assert_context_str (error, "reason", "producer died");
  g_clear_error (&error);

  /* No temporary file is left, and the previous archive is intact. */
  names = listing (base);
  g_assert_cmpstr (names, ==, "keep.tar");
  restored = restore (snapshot, &error);
  g_assert_no_error (error);
  restored_bytes = read_all (restored);
  g_assert_true (g_bytes_equal (restored_bytes, first));

  agents_test_rm_rf (base);
}

static void
test_local_failed_first_persist_leaves_nothing (void)
{
  g_autofree char *base = agents_test_make_tmp_dir ("snapshot-fail-first-");
  g_autoptr (AgentsSnapshot) snapshot =
    agents_local_snapshot_new ("first", base);
  g_autoptr (GInputStream) failing = failing_stream_new (0);
  g_autoptr (GError) error = NULL;
  g_autofree char *names = NULL;

  g_assert_false (persist (snapshot, failing, NULL, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_SNAPSHOT_PERSIST);
  g_clear_error (&error);
  names = listing (base);
  g_assert_cmpstr (names, ==, "");
  g_assert_false (restorable (snapshot, &error));
  g_assert_no_error (error);

  agents_test_rm_rf (base);
}

static void
test_local_cancelled_persist (void)
{
  g_autofree char *base = agents_test_make_tmp_dir ("snapshot-cancel-");
  g_autoptr (AgentsSnapshot) snapshot = agents_local_snapshot_new ("c", base);
  g_autoptr (GBytes) data = random_bytes (1024);
  g_autoptr (GInputStream) stream = g_memory_input_stream_new_from_bytes (data);
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *names = NULL;

  g_cancellable_cancel (cancellable);
  g_assert_false (persist (snapshot, stream, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  names = listing (base);
  g_assert_cmpstr (names, ==, "");

  agents_test_rm_rf (base);
}

/* A persist killed midway (here: stopped with its data written but the
 * stream not ended) leaves no ID.tar.XXXXXX: the file is unnamed until it
 * is complete. Where O_TMPFILE is not supported (@data: forced), the
 * temporary name is there from the start, and the result is the same. */
static void
test_local_persist_midway_leaves_nothing (gconstpointer data)
{
  gboolean named = GPOINTER_TO_INT (data);
  g_autofree char *base = agents_test_make_tmp_dir ("snapshot-midway-");
  g_autoptr (AgentsSnapshot) snapshot = agents_local_snapshot_new ("mid", base);
  g_autoptr (GBytes) first = random_bytes (10 * 1024);
  g_autoptr (GBytes) second = random_bytes (200 * 1024 + 3);
  g_autoptr (GInputStream) first_stream =
    g_memory_input_stream_new_from_bytes (first);
  g_autoptr (TestGateStream) gate = gate_stream_new (second);
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GInputStream) restored = NULL;
  g_autoptr (GBytes) restored_bytes = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *midway = NULL;
  g_autofree char *names = NULL;
  int probe;

  probe = open (base, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (probe < 0 && !named)
    {
      g_test_skip ("O_TMPFILE is not supported here");
      agents_test_rm_rf (base);
      return;
    }
  if (probe >= 0)
    close (probe);
  agents_local_snapshot_set_tmpfile_disabled_for_testing (named);

  g_assert_true (persist (snapshot, first_stream, NULL, &error));
  g_assert_no_error (error);

  agents_snapshot_persist_async (snapshot, G_INPUT_STREAM (gate), NULL,
                                 agents_test_async_cb, &result);
  gate_stream_wait_blocked (gate);
  midway = listing (base);
  if (named)
    g_assert_true (g_str_has_prefix (midway, "mid.tar,mid.tar.") &&
                   strlen (midway) == strlen ("mid.tar,mid.tar.XXXXXX"));
  else
    g_assert_cmpstr (midway, ==, "mid.tar");

  gate_stream_release (gate);
  agents_test_wait_result (&result);
  g_assert_true (agents_snapshot_persist_finish (snapshot, result, &error));
  g_assert_no_error (error);
  names = listing (base);
  g_assert_cmpstr (names, ==, "mid.tar");
  restored = restore (snapshot, &error);
  g_assert_no_error (error);
  restored_bytes = read_all (restored);
  g_assert_true (g_bytes_equal (restored_bytes, second));

  agents_local_snapshot_set_tmpfile_disabled_for_testing (FALSE);
  agents_test_rm_rf (base);
}

static void
test_local_restore_missing (void)
{
  g_autofree char *base = agents_test_make_tmp_dir ("snapshot-missing-");
  g_autofree char *archive = g_build_filename (base, "gone.tar", NULL);
  g_autoptr (AgentsSnapshot) snapshot =
    agents_local_snapshot_new ("gone", base);
  g_autoptr (GInputStream) restored = NULL;
  g_autoptr (GError) error = NULL;

  restored = restore (snapshot, &error);
  g_assert_null (restored);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_SNAPSHOT_RESTORE);
  agents_test_assert_context_str (error, "path", archive);
  agents_test_assert_context_str (error, "snapshot_id", "gone");
  agents_test_assert_context_str (error, "reason", g_strerror (ENOENT));

  agents_test_rm_rf (base);
}

static void
test_local_not_a_regular_file (void)
{
  g_autofree char *base = agents_test_make_tmp_dir ("snapshot-odd-");
  g_autofree char *dir = g_build_filename (base, "dir.tar", NULL);
  g_autofree char *link = g_build_filename (base, "link.tar", NULL);
  g_autofree char *real = g_build_filename (base, "real", NULL);
  g_autoptr (AgentsSnapshot) as_dir = agents_local_snapshot_new ("dir", base);
  g_autoptr (AgentsSnapshot) as_link = agents_local_snapshot_new ("link", base);
  g_autoptr (GInputStream) restored = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  agents_test_write_file (real, "real");
  g_assert_cmpint (symlink (real, link), ==, 0);

  g_assert_false (restorable (as_dir, &error));
  g_assert_no_error (error);
  g_assert_false (restorable (as_link, &error));
  g_assert_no_error (error);

  restored = restore (as_dir, &error);
  g_assert_null (restored);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_SNAPSHOT_RESTORE);
  g_clear_error (&error);
  restored = restore (as_link, &error);
  g_assert_null (restored);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_SNAPSHOT_RESTORE);

  agents_test_rm_rf (base);
}

static void
test_local_hostile_ids (void)
{
  g_autofree char *tmp = agents_test_make_tmp_dir ("snapshot-hostile-");
  g_autofree char *base = g_build_filename (tmp, "base", NULL);
  g_autofree char *long_id = g_strnfill (300, 'l');
  const char *ids[] = { "", ".", "..", "a/b", "../escape", "/abs", NULL, NULL };

  ids[G_N_ELEMENTS (ids) - 2] = long_id;
  for (guint i = 0; i < G_N_ELEMENTS (ids) - 1; i++)
    {
      g_autoptr (AgentsSnapshot) snapshot =
        agents_local_snapshot_new (ids[i], base);
      g_autoptr (GBytes) data = random_bytes (64);
      g_autoptr (GInputStream) stream =
        g_memory_input_stream_new_from_bytes (data);
      g_autoptr (GInputStream) restored = NULL;
      g_autoptr (GError) error = NULL;
      g_autofree char *path = NULL;
      g_autofree char *names = NULL;

      path = agents_local_snapshot_dup_archive_path (
        AGENTS_LOCAL_SNAPSHOT (snapshot));
      g_assert_null (path);

      g_assert_false (persist (snapshot, stream, NULL, &error));
      g_assert_error (error, AGENTS_SANDBOX_ERROR,
                      AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
      agents_test_assert_context_str (error, "reason", "invalid_id");
      g_clear_error (&error);

      g_assert_false (restorable (snapshot, &error));
      g_assert_error (error, AGENTS_SANDBOX_ERROR,
                      AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
      g_clear_error (&error);

      restored = restore (snapshot, &error);
      g_assert_null (restored);
      g_assert_error (error, AGENTS_SANDBOX_ERROR,
                      AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);

      /* Nothing was created anywhere. */
      names = listing (tmp);
      g_assert_cmpstr (names, ==, "");
    }

  agents_test_rm_rf (tmp);
}

/* ---- JSON ------------------------------------------------------------- */

static void
test_json_round_trip (void)
{
  g_autoptr (AgentsSnapshot) noop = agents_noop_snapshot_new ("n-1");
  g_autoptr (AgentsSnapshot) local =
    agents_local_snapshot_new ("l-1", "/var/tmp/agents snapshots");
  g_autoptr (JsonNode) noop_json = agents_snapshot_to_json (noop);
  g_autoptr (JsonNode) local_json = agents_snapshot_to_json (local);
  g_autofree char *noop_text = json_string (noop_json);
  g_autofree char *local_text = json_string (local_json);
  g_autoptr (AgentsSnapshot) noop_back = NULL;
  g_autoptr (AgentsSnapshot) local_back = NULL;
  g_autoptr (JsonNode) local_again = NULL;
  g_autofree char *local_again_text = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_cmpstr (noop_text, ==, "{\"type\":\"noop\",\"id\":\"n-1\"}");
  g_assert_cmpstr (local_text, ==,
                   "{\"type\":\"local\",\"id\":\"l-1\","
                   "\"base_path\":\"/var/tmp/agents snapshots\"}");

  noop_back = agents_snapshot_new_from_json (noop_json, &error);
  g_assert_no_error (error);
  g_assert_true (AGENTS_IS_NOOP_SNAPSHOT (noop_back));
  g_assert_cmpstr (agents_snapshot_get_id (noop_back), ==, "n-1");

  local_back = agents_snapshot_new_from_json (local_json, &error);
  g_assert_no_error (error);
  g_assert_true (AGENTS_IS_LOCAL_SNAPSHOT (local_back));
  g_assert_cmpstr (agents_snapshot_get_id (local_back), ==, "l-1");
  g_assert_cmpstr (
    agents_local_snapshot_get_base_path (AGENTS_LOCAL_SNAPSHOT (local_back)),
    ==, "/var/tmp/agents snapshots");
  local_again = agents_snapshot_to_json (local_back);
  local_again_text = json_string (local_again);
  g_assert_cmpstr (local_again_text, ==, local_text);
}

typedef struct
{
  const char *json;
  int code;
  const char *member;
} BadJson;

static void
test_json_rejects_bad_documents (void)
{
  static const BadJson cases[] = {
    { "[]", AGENTS_SANDBOX_ERROR_INVALID_JSON, "snapshot" },
    { "\"local\"", AGENTS_SANDBOX_ERROR_INVALID_JSON, "snapshot" },
    { "{\"id\":\"x\"}", AGENTS_SANDBOX_ERROR_INVALID_JSON, "type" },
    { "{\"type\":3,\"id\":\"x\"}", AGENTS_SANDBOX_ERROR_INVALID_JSON, "type" },
    { "{\"type\":null,\"id\":\"x\"}", AGENTS_SANDBOX_ERROR_INVALID_JSON,
      "type" },
    { "{\"type\":\"noop\"}", AGENTS_SANDBOX_ERROR_INVALID_JSON, "id" },
    { "{\"type\":\"noop\",\"id\":7}", AGENTS_SANDBOX_ERROR_INVALID_JSON, "id" },
    { "{\"type\":\"noop\",\"id\":{}}", AGENTS_SANDBOX_ERROR_INVALID_JSON,
      "id" },
    { "{\"type\":\"local\",\"id\":\"x\"}", AGENTS_SANDBOX_ERROR_INVALID_JSON,
      "base_path" },
    { "{\"type\":\"local\",\"id\":\"x\",\"base_path\":1}",
      AGENTS_SANDBOX_ERROR_INVALID_JSON, "base_path" },
    { "{\"type\":\"local\",\"id\":\"x\",\"base_path\":\"\"}",
      AGENTS_SANDBOX_ERROR_INVALID_JSON, "base_path" },
    { "{\"type\":\"local\",\"id\":\"../../etc/passwd\",\"base_path\":\"/tmp\"}",
      AGENTS_SANDBOX_ERROR_INVALID_JSON, "id" },
    { "{\"type\":\"local\",\"id\":\"..\",\"base_path\":\"/tmp\"}",
      AGENTS_SANDBOX_ERROR_INVALID_JSON, "id" },
    { "{\"type\":\"local\",\"id\":\"\",\"base_path\":\"/tmp\"}",
      AGENTS_SANDBOX_ERROR_INVALID_JSON, "id" },
    { "{\"type\":\"no-such-type\",\"id\":\"x\"}",
      AGENTS_SANDBOX_ERROR_UNKNOWN_TYPE, NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (JsonNode) node = parse (cases[i].json);
      g_autoptr (GError) error = NULL;
      g_autoptr (AgentsSnapshot) snapshot =
        agents_snapshot_new_from_json (node, &error);

      g_test_message ("%s", cases[i].json);
      g_assert_null (snapshot);
      g_assert_error (error, AGENTS_SANDBOX_ERROR, cases[i].code);
      if (cases[i].member != NULL)
        agents_test_assert_context_str (error, "member", cases[i].member);
    }
}

/* ---- specs ------------------------------------------------------------ */

static void
test_spec_build_and_resolve (void)
{
  g_autoptr (AgentsLocalSnapshotSpec) spec =
    agents_local_snapshot_spec_new ("/srv/snapshots");
  g_autoptr (AgentsLocalSnapshotSpec) default_spec =
    agents_local_snapshot_spec_new (NULL);
  g_autoptr (AgentsSnapshot) built =
    agents_local_snapshot_spec_build (spec, "s-1");
  g_autoptr (AgentsSnapshot) from_spec =
    agents_snapshot_resolve (G_OBJECT (spec), "s-2");
  g_autoptr (AgentsSnapshot) from_null = agents_snapshot_resolve (NULL, "s-3");
  g_autoptr (AgentsSnapshot) from_snapshot =
    agents_snapshot_resolve (G_OBJECT (built), "ignored");
  g_autoptr (AgentsSnapshot) default_local =
    agents_local_snapshot_new ("d", NULL);
  g_autofree char *default_base =
    g_build_filename (g_get_user_cache_dir (), "agents-1.0", "snapshots", NULL);

  g_assert_cmpstr (agents_local_snapshot_spec_get_base_path (spec), ==,
                   "/srv/snapshots");
  g_assert_cmpstr (agents_local_snapshot_spec_get_base_path (default_spec), ==,
                   default_base);
  g_assert_cmpstr (
    agents_local_snapshot_get_base_path (AGENTS_LOCAL_SNAPSHOT (default_local)),
    ==, default_base);

  g_assert_true (AGENTS_IS_LOCAL_SNAPSHOT (built));
  g_assert_cmpstr (agents_snapshot_get_id (built), ==, "s-1");
  g_assert_cmpstr (
    agents_local_snapshot_get_base_path (AGENTS_LOCAL_SNAPSHOT (built)), ==,
    "/srv/snapshots");

  g_assert_true (AGENTS_IS_LOCAL_SNAPSHOT (from_spec));
  g_assert_cmpstr (agents_snapshot_get_id (from_spec), ==, "s-2");
  g_assert_cmpstr (
    agents_local_snapshot_get_base_path (AGENTS_LOCAL_SNAPSHOT (from_spec)), ==,
    "/srv/snapshots");

  g_assert_true (AGENTS_IS_NOOP_SNAPSHOT (from_null));
  g_assert_cmpstr (agents_snapshot_get_id (from_null), ==, "s-3");

  g_assert_true (from_snapshot == built);
}

/* ---- interface defaults ----------------------------------------------- */

static void
test_interface_defaults (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsSnapshot) snapshot = NULL;
  g_autoptr (AgentsSnapshot) back = NULL;
  g_autoptr (JsonNode) json = NULL;
  g_autoptr (GBytes) data = random_bytes (16);
  g_autoptr (GInputStream) stream = g_memory_input_stream_new_from_bytes (data);
  g_autoptr (GInputStream) restored = NULL;
  g_autofree char *text = NULL;

  g_assert_true (agents_registry_register_snapshot_type (
    "test-minimal", TEST_TYPE_MINIMAL_SNAPSHOT, &error));
  g_assert_no_error (error);

  snapshot = g_object_new (TEST_TYPE_MINIMAL_SNAPSHOT, "id", "m-1", NULL);
  g_assert_cmpstr (agents_snapshot_get_snapshot_type (snapshot), ==,
                   "test-minimal");
  g_assert_cmpstr (agents_snapshot_get_id (snapshot), ==, "m-1");

  json = agents_snapshot_to_json (snapshot);
  text = json_string (json);
  g_assert_cmpstr (text, ==, "{\"type\":\"test-minimal\",\"id\":\"m-1\"}");
  back = agents_snapshot_new_from_json (json, &error);
  g_assert_no_error (error);
  g_assert_true (G_TYPE_CHECK_INSTANCE_TYPE (back, TEST_TYPE_MINIMAL_SNAPSHOT));
  g_assert_cmpstr (agents_snapshot_get_id (back), ==, "m-1");

  g_assert_false (persist (snapshot, stream, NULL, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_NOT_SUPPORTED);
  g_clear_error (&error);
  g_assert_false (restorable (snapshot, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_NOT_SUPPORTED);
  g_clear_error (&error);
  restored = restore (snapshot, &error);
  g_assert_null (restored);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_NOT_SUPPORTED);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/sandbox/snapshot/noop", test_noop);
  g_test_add_func ("/sandbox/snapshot/noop-drains-archive",
                   test_noop_drains_archive);
  g_test_add_func ("/sandbox/snapshot/local-round-trip", test_local_round_trip);
  g_test_add_func ("/sandbox/snapshot/local-failed-persist-keeps-previous",
                   test_local_failed_persist_keeps_previous);
  g_test_add_func (
    "/sandbox/snapshot/local-failed-first-persist-leaves-nothing",
    test_local_failed_first_persist_leaves_nothing);
  g_test_add_func ("/sandbox/snapshot/local-cancelled-persist",
                   test_local_cancelled_persist);
  g_test_add_data_func ("/sandbox/snapshot/local-persist-midway-unnamed",
                        GINT_TO_POINTER (FALSE),
                        test_local_persist_midway_leaves_nothing);
  g_test_add_data_func ("/sandbox/snapshot/local-persist-midway-named",
                        GINT_TO_POINTER (TRUE),
                        test_local_persist_midway_leaves_nothing);
  g_test_add_func ("/sandbox/snapshot/local-restore-missing",
                   test_local_restore_missing);
  g_test_add_func ("/sandbox/snapshot/local-not-a-regular-file",
                   test_local_not_a_regular_file);
  g_test_add_func ("/sandbox/snapshot/local-hostile-ids",
                   test_local_hostile_ids);
  g_test_add_func ("/sandbox/snapshot/json-round-trip", test_json_round_trip);
  g_test_add_func ("/sandbox/snapshot/json-rejects-bad-documents",
                   test_json_rejects_bad_documents);
  g_test_add_func ("/sandbox/snapshot/spec-build-and-resolve",
                   test_spec_build_and_resolve);
  g_test_add_func ("/sandbox/snapshot/interface-defaults",
                   test_interface_defaults);

  return g_test_run ();
}
