/* test-reference-entries.c - reference cases ENT-*: local_file, local_dir
 * (../shared/spec/reference-cases.md)
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "agents-sandbox-error-private.h"
#include "fake-session.h"
#include "test-utils.h"

typedef struct
{
  char *tmp;       /* realpath of <tmp> */
  char *workspace; /* <tmp>/workspace, the session root */
  char *base;      /* <tmp>/base */
  AgentsManifest *manifest;
  FakeSession *session;
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  g_autofree char *made = agents_test_make_tmp_dir ("ref-ent-XXXXXX");

  f->tmp = realpath (made, NULL);
  f->workspace = g_build_filename (f->tmp, "workspace", NULL);
  f->base = g_build_filename (f->tmp, "base", NULL);
  g_assert_no_errno (g_mkdir (f->workspace, 0755));
  g_assert_no_errno (g_mkdir (f->base, 0755));
  f->manifest = agents_manifest_new ();
  agents_manifest_set_root (f->manifest, f->workspace);
  f->session = fake_session_new (f->manifest);
  f->session->exec_mode = FAKE_EXEC_HOST;
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  g_clear_object (&f->session);
  g_clear_object (&f->manifest);
  agents_test_rm_rf (f->tmp);
  g_free (f->tmp);
  g_free (f->workspace);
  g_free (f->base);
}

static GPtrArray *
apply (Fixture *f, AgentsManifestEntry *entry, const char *rel, GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autofree char *dest = g_build_filename (f->workspace, rel, NULL);

  agents_manifest_entry_apply_async (entry, AGENTS_SANDBOX_SESSION (f->session),
                                     dest, f->base, NULL, agents_test_async_cb,
                                     &result);
  agents_test_wait_result (&result);
  return agents_manifest_entry_apply_finish (entry, result, error);
}

static void
write_under (const char *dir, const char *rel, const char *text)
{
  g_autofree char *path = g_build_filename (dir, rel, NULL);

  agents_test_write_file (path, text);
}

static void
assert_absent (Fixture *f, const char *rel)
{
  g_autofree char *path = g_build_filename (f->workspace, rel, NULL);

  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

/* ENT-16 */
static void
test_local_dir_rejects_source_outside_base_dir (Fixture *f, gconstpointer data)
{
  g_autofree char *outside = g_build_filename (f->tmp, "outside", NULL);
  const char *sources[] = { outside, "../outside" };

  write_under (outside, "secret.txt", "secret");
  for (guint i = 0; i < G_N_ELEMENTS (sources); i++)
    {
      g_autoptr (AgentsManifestEntry) entry = agents_local_dir_new (sources[i]);
      g_autoptr (GError) error = NULL;
      g_autoptr (GPtrArray) files = apply (f, entry, "copied", &error);

      g_assert_null (files);
      g_assert_error (error, AGENTS_SANDBOX_ERROR,
                      AGENTS_SANDBOX_ERROR_LOCAL_DIR_READ);
      g_assert_true (g_str_has_prefix (error->message,
                                       "failed to read local dir artifact: "));
      agents_test_assert_context_str (error, "reason", "outside_base_dir");
      agents_test_assert_context_str (error, "base_dir", f->base);
      assert_absent (f, "copied");
    }
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("/reference-cases/ENT-16",
       test_local_dir_rejects_source_outside_base_dir);
#undef ADD

  return g_test_run ();
}
