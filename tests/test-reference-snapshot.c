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

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/reference-cases/SNAP-14",
                   test_local_snapshot_rejects_non_basename_ids);
  g_test_add_func ("/reference-cases/SNAP-16",
                   test_noop_snapshot_is_not_restorable);

  return g_test_run ();
}
