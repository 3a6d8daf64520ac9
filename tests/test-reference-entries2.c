/* test-reference-entries2.c - reference cases ENT-* (but ENT-16): entries,
 * metadata, local_file, local_dir, git_repo
 * (../shared/spec/reference-cases.md)
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "agents-entry-apply-private.h"
#include "agents-sandbox-error-private.h"
#include "record-session.h"
#include "test-utils.h"

typedef struct
{
  char *tmp;
  char *base;
  char *outside;
  AgentsManifest *manifest;
  RecordSession *session;
} Fixture;

static void
fixture_setup (Fixture *fixture, gconstpointer data)
{
  fixture->tmp = agents_test_make_tmp_dir ("reference-entries");
  fixture->base = g_build_filename (fixture->tmp, "base", NULL);
  fixture->outside = g_build_filename (fixture->tmp, "outside", NULL);
  g_assert_no_errno (g_mkdir (fixture->base, 0700));
  g_assert_no_errno (g_mkdir (fixture->outside, 0700));
  fixture->manifest = agents_manifest_new ();
}

static void
fixture_teardown (Fixture *fixture, gconstpointer data)
{
  g_clear_object (&fixture->session);
  g_clear_object (&fixture->manifest);
  agents_test_rm_rf (fixture->tmp);
  g_free (fixture->tmp);
  g_free (fixture->base);
  g_free (fixture->outside);
}

static RecordSession *
fixture_session (Fixture *fixture)
{
  if (fixture->session == NULL)
    fixture->session = record_session_new (fixture->manifest);
  return fixture->session;
}

static GPtrArray *
apply_entry (Fixture *fixture,
             AgentsManifestEntry *entry,
             const char *dest,
             const char *base_dir,
             GError **error)
{
  g_autoptr (GAsyncResult) res = NULL;

  AGENTS_TEST_AWAIT (res, agents_manifest_entry_apply_async (
                            entry,
                            AGENTS_SANDBOX_SESSION (fixture_session (fixture)),
                            dest, base_dir, NULL, agents_test_async_cb, &res));
  return agents_manifest_entry_apply_finish (entry, res, error);
}

static GPtrArray *
apply_manifest (RecordSession *session, GError **error)
{
  g_autoptr (GAsyncResult) res = NULL;

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_apply_manifest_async (
                            AGENTS_SANDBOX_SESSION (session), FALSE, NULL,
                            agents_test_async_cb, &res));
  return agents_sandbox_session_apply_manifest_finish (
    AGENTS_SANDBOX_SESSION (session), res, error);
}

static char *
fixture_path (Fixture *fixture, const char *rel)
{
  return g_build_filename (fixture->tmp, rel, NULL);
}

static void
write_tmp (Fixture *fixture, const char *rel, const char *contents)
{
  g_autofree char *path = fixture_path (fixture, rel);
  g_autofree char *dir = g_path_get_dirname (path);

  g_assert_no_errno (g_mkdir_with_parents (dir, 0700));
  agents_test_write_file (path, contents);
}

static void
assert_no_write (Fixture *fixture)
{
  g_assert_cmpuint (fixture_session (fixture)->writes->len, ==, 0);
}

static void
assert_symlink_refused (const GError *error, int code, const char *child)
{
  g_assert_error (error, AGENTS_SANDBOX_ERROR, code);
  agents_test_assert_context_str (error, "reason", "symlink_not_supported");
  agents_test_assert_context_str (error, "child", child);
}

/* ENT-02 */
static void
test_resolve_rejects_absolute_escape (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *path =
    agents_manifest_resolve_path (manifest, "/workspace/../etc/passwd", &error);
  g_autoptr (GVariant) context = NULL;

  g_assert_null (path);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH);
  g_assert_cmpstr (error->message, ==,
                   "manifest path must be relative: /etc/passwd");
  agents_test_assert_context_str (error, "rel", "/etc/passwd");
  agents_test_assert_context_str (error, "reason", "absolute");
  context = agents_sandbox_error_get_context (error);
  g_assert_cmpuint (g_variant_n_children (context), ==, 2);
}

/* ENT-04 */
static void
test_local_file_uses_current_directory (Fixture *fixture, gconstpointer data)
{
  g_autoptr (AgentsManifestEntry) entry = agents_local_file_new ("source.txt");
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *cwd = g_get_current_dir ();
  AgentsMaterializedFile *file;

  write_tmp (fixture, "source.txt", "hello");
  agents_manifest_set_entry (fixture->manifest, "copied.txt", entry);

  g_assert_no_errno (g_chdir (fixture->tmp));
  files = apply_manifest (fixture_session (fixture), &error);
  g_assert_no_errno (g_chdir (cwd));
  g_assert_no_error (error);
  g_assert_cmpuint (files->len, ==, 1);
  file = g_ptr_array_index (files, 0);
  g_assert_cmpstr (file->path, ==, "/workspace/copied.txt");
  g_assert_cmpstr (
    file->sha256, ==,
    "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
  g_assert_cmpstr (
    record_session_written (fixture->session, "/workspace/copied.txt"), ==,
    "hello");
}

/* ENT-06 */
static void
test_local_file_allows_granted_source (Fixture *fixture, gconstpointer data)
{
  g_autoptr (AgentsSandboxPathGrant) grant =
    agents_sandbox_path_grant_new (fixture->outside, FALSE, NULL);
  g_autofree char *secret = fixture_path (fixture, "outside/secret.txt");
  g_autoptr (AgentsManifestEntry) entry = agents_local_file_new (secret);
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GError) error = NULL;

  agents_test_write_file (secret, "secret");
  agents_manifest_add_extra_path_grant (fixture->manifest, grant);

  files = apply_entry (fixture, entry, "/workspace/copied.txt", fixture->base,
                       &error);
  g_assert_no_error (error);
  g_assert_cmpuint (files->len, ==, 1);
  g_assert_cmpstr (((AgentsMaterializedFile *) files->pdata[0])->path, ==,
                   "/workspace/copied.txt");
  g_assert_cmpstr (
    record_session_written (fixture->session, "/workspace/copied.txt"), ==,
    "secret");
}

/* ENT-08 */
static void
test_serialized_grant_allows_local_file (Fixture *fixture, gconstpointer data)
{
  g_autofree char *secret = fixture_path (fixture, "outside/secret.txt");
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (JsonNode) node = NULL;
  g_autoptr (AgentsManifest) manifest = NULL;
  g_autoptr (RecordSession) session = NULL;
  g_autoptr (GPtrArray) targets = NULL;
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GError) error = NULL;

  agents_test_write_file (secret, "secret");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "extra_path_grants");
  json_builder_begin_array (builder);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "path");
  json_builder_add_string_value (builder, fixture->outside);
  json_builder_end_object (builder);
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "entries");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "copied.txt");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "local_file");
  json_builder_set_member_name (builder, "src");
  json_builder_add_string_value (builder, secret);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  node = json_builder_get_root (builder);

  manifest = agents_manifest_new_from_json (node, &error);
  g_assert_no_error (error);
  session = record_session_new (manifest);
  targets = agents_manifest_list_targets (manifest, FALSE);
  AGENTS_TEST_AWAIT (res, agents_sandbox_session_apply_entry_batch_async (
                            AGENTS_SANDBOX_SESSION (session), targets,
                            fixture->base, NULL, agents_test_async_cb, &res));
  files = agents_sandbox_session_apply_entry_batch_finish (
    AGENTS_SANDBOX_SESSION (session), res, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (files->len, ==, 1);
  g_assert_cmpstr (record_session_written (session, "/workspace/copied.txt"),
                   ==, "secret");
}

/* ENT-10 */
static void
test_local_file_rejects_symlinked_ancestor (Fixture *fixture,
                                            gconstpointer data)
{
  g_autofree char *link = fixture_path (fixture, "link");
  g_autofree char *target = fixture_path (fixture, "secret-dir");
  g_autoptr (AgentsManifestEntry) entry =
    agents_local_file_new ("link/sub/secret.txt");
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GError) error = NULL;

  write_tmp (fixture, "secret-dir/sub/secret.txt", "secret");
  g_assert_no_errno (symlink (target, link));

  files =
    apply_entry (fixture, entry, "/workspace/copied.txt", fixture->tmp, &error);
  g_assert_null (files);
  assert_symlink_refused (error, AGENTS_SANDBOX_ERROR_LOCAL_FILE_READ, "link");
  assert_no_write (fixture);
}

typedef struct
{
  AgentsLocalSourceHookPoint point;
  const char *rel;    /* the path the hook waits for */
  const char *path;   /* replaced by a symlink ... */
  const char *target; /* ... to this */
  gboolean swapped;
} Swap;

/* Replaces swap->path by a symlink once the copy reaches swap->point. */
static void
swap_hook (AgentsLocalSourceHookPoint point, const char *rel, gpointer data)
{
  Swap *swap = data;

  if (point != swap->point || !g_str_equal (rel, swap->rel) || swap->swapped)
    return;
  agents_test_rm_rf (swap->path);
  g_assert_no_errno (symlink (swap->target, swap->path));
  swap->swapped = TRUE;
}

static void
assert_swap_refused (Fixture *fixture, const GError *error, const char *child)
{
  g_autoptr (GVariant) context = agents_sandbox_error_get_context (error);
  g_autofree char *printed = g_variant_print (context, FALSE);
  const char *reason = NULL;

  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_LOCAL_DIR_READ);
  g_assert_true (g_variant_lookup (context, "reason", "&s", &reason));
  g_assert_true (g_str_equal (reason, "symlink_not_supported") ||
                 g_str_equal (reason, "path_changed_during_copy"));
  agents_test_assert_context_str (error, "child", child);
  g_assert_null (strstr (error->message, "secret"));
  g_assert_null (strstr (printed, "secret"));
  assert_no_write (fixture);
}

/* ENT-12 */
static void
test_local_dir_revalidates_swapped_file (Fixture *fixture, gconstpointer data)
{
  g_autofree char *safe = fixture_path (fixture, "base/src/safe.txt");
  g_autofree char *secret = fixture_path (fixture, "secret.txt");
  g_autoptr (AgentsManifestEntry) entry = agents_local_dir_new ("src");
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GError) error = NULL;
  Swap swap = { AGENTS_LOCAL_SOURCE_HOOK_OPEN_FILE, "safe.txt", safe, secret };

  write_tmp (fixture, "base/src/safe.txt", "safe");
  write_tmp (fixture, "secret.txt", "secret");
  agents_local_source_set_test_hook (swap_hook, &swap);
  files =
    apply_entry (fixture, entry, "/workspace/copied", fixture->base, &error);
  agents_local_source_set_test_hook (NULL, NULL);

  g_assert_true (swap.swapped);
  g_assert_null (files);
  assert_swap_refused (fixture, error, "safe.txt");
}

/* ENT-14 */
static void
test_local_dir_rejects_swapped_root (Fixture *fixture, gconstpointer data)
{
  g_autofree char *src = fixture_path (fixture, "base/src");
  g_autofree char *secret_dir = fixture_path (fixture, "secret-dir");
  g_autoptr (AgentsManifestEntry) entry = agents_local_dir_new ("src");
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GError) error = NULL;
  Swap swap = { AGENTS_LOCAL_SOURCE_HOOK_OPEN_ROOT, "src", src, secret_dir };

  write_tmp (fixture, "base/src/safe.txt", "safe");
  write_tmp (fixture, "secret-dir/secret.txt", "secret");
  agents_local_source_set_test_hook (swap_hook, &swap);
  files =
    apply_entry (fixture, entry, "/workspace/copied", fixture->base, &error);
  agents_local_source_set_test_hook (NULL, NULL);

  g_assert_true (swap.swapped);
  g_assert_null (files);
  assert_symlink_refused (error, AGENTS_SANDBOX_ERROR_LOCAL_DIR_READ, "src");
  assert_no_write (fixture);
}

/* ENT-18 */
static void
test_local_dir_allows_absolute_source_inside_base (Fixture *fixture,
                                                   gconstpointer data)
{
  g_autofree char *source = fixture_path (fixture, "base/source");
  g_autoptr (AgentsManifestEntry) entry = agents_local_dir_new (source);
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GError) error = NULL;

  write_tmp (fixture, "base/source/safe.txt", "safe");

  files =
    apply_entry (fixture, entry, "/workspace/copied", fixture->base, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (
    record_session_written (fixture->session, "/workspace/copied/safe.txt"), ==,
    "safe");
}

static void
check_local_dir_symlink (Fixture *fixture, const char *name, gboolean dir)
{
  g_autofree char *src = fixture_path (fixture, "base/src");
  g_autofree char *link = g_build_filename (src, name, NULL);
  g_autofree char *target =
    fixture_path (fixture, dir ? "outside" : "outside/secret.txt");
  g_autoptr (AgentsManifestEntry) entry = agents_local_dir_new ("src");
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GError) error = NULL;

  write_tmp (fixture, "base/src/safe.txt", "safe");
  write_tmp (fixture, "outside/secret.txt", "secret");
  g_assert_no_errno (symlink (target, link));

  files =
    apply_entry (fixture, entry, "/workspace/copied", fixture->base, &error);
  g_assert_null (files);
  assert_symlink_refused (error, AGENTS_SANDBOX_ERROR_LOCAL_DIR_READ, name);
  assert_no_write (fixture);
}

/* ENT-20 (a) */
static void
test_local_dir_rejects_symlinked_file (Fixture *fixture, gconstpointer data)
{
  check_local_dir_symlink (fixture, "link.txt", FALSE);
}

/* ENT-20 (b) */
static void
test_local_dir_rejects_symlinked_dir (Fixture *fixture, gconstpointer data)
{
  check_local_dir_symlink (fixture, "linked-dir", TRUE);
}

/* The temporary clone directory of a recorded in-sandbox git_repo apply:
 * what its first `rm -rf --` removed. */
static char *
git_tmp (RecordSession *session)
{
  int i = record_session_find (session, "rm -rf -- /tmp/sandbox-git-");

  g_assert_cmpint (i, >=, 0);
  return g_strdup ((char *) g_ptr_array_index (session->commands, i) +
                   strlen ("rm -rf -- "));
}

static void assert_ran_printf (RecordSession *session, const char *format, ...)
  G_GNUC_PRINTF (2, 3);

static void
assert_ran_printf (RecordSession *session, const char *format, ...)
{
  g_autofree char *command = NULL;
  va_list args;

  va_start (args, format);
  command = g_strdup_vprintf (format, args);
  va_end (args);
  if (!record_session_ran (session, command))
    g_error ("not run: %s", command);
}

/* ENT-22 */
static void
test_git_repo_fetches_commit_refs (Fixture *fixture, gconstpointer data)
{
  g_autoptr (AgentsManifestEntry) repo =
    agents_git_repo_new (NULL, "openai/example", "deadbeef");
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *tmp = NULL;
  RecordSession *session = fixture_session (fixture);

  record_session_answer (session, "sh -c command -v git >/dev/null 2>&1", 0, "",
                         "");
  record_session_answer (session, "git clone", 128, "", "clone failed");

  files = apply_entry (fixture, repo, "/workspace/repo", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (files->len, ==, 0);
  g_assert_cmpint (record_session_find (session, "git clone"), ==, -1);
  tmp = git_tmp (session);
  assert_ran_printf (session, "git init %s", tmp);
  assert_ran_printf (session,
                     "git -C %s remote add origin "
                     "https://github.com/openai/example.git",
                     tmp);
  assert_ran_printf (
    session, "git -C %s fetch --depth 1 --no-tags origin deadbeef", tmp);
  assert_ran_printf (session, "git -C %s checkout --detach FETCH_HEAD", tmp);
  assert_ran_printf (session, "cp -R -- %s/. /workspace/repo/", tmp);
}

/* ENT-24 */
static void
test_git_repo_rejects_invalid_subpath (Fixture *fixture, gconstpointer data)
{
  static const struct
  {
    const char *subpath;
    const char *reason;
  } cases[] = {
    { "   ", "empty" },
    { "/docs", "absolute" },
    { "../outside", "parent_traversal" },
    { "docs/../../outside", "parent_traversal" },
    { "C:/repo", "windows_path" },
    { "docs\\outside", "windows_path" },
    { "docs/../x", "parent_traversal" },
  };
  RecordSession *session = fixture_session (fixture);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (AgentsManifestEntry) repo =
        agents_git_repo_new (NULL, "openai/example", "main");
      g_autoptr (GPtrArray) files = NULL;
      g_autoptr (GError) error = NULL;
      g_autofree char *message = g_strdup_printf (
        "git repo subpath must be a relative path inside the repository: %s",
        cases[i].subpath);

      g_test_message ("subpath “%s”", cases[i].subpath);
      agents_git_repo_set_subpath (AGENTS_GIT_REPO (repo), cases[i].subpath);
      files = apply_entry (fixture, repo, "/workspace/repo", NULL, &error);
      g_assert_null (files);
      g_assert_error (error, AGENTS_SANDBOX_ERROR,
                      AGENTS_SANDBOX_ERROR_GIT_SUBPATH);
      g_assert_cmpstr (error->message, ==, message);
      agents_test_assert_context_str (error, "reason", cases[i].reason);
      agents_test_assert_context_str (error, "subpath", cases[i].subpath);
      agents_test_assert_context_str (error, "repo", "openai/example");
    }
  g_assert_cmpuint (session->commands->len, ==, 0);
}

/* ENT-26 */
static void
test_git_repo_copies_relative_subpath (Fixture *fixture, gconstpointer data)
{
  static const struct
  {
    const char *subpath;
    const char *copied;
  } cases[] = {
    { "docs/reference", "docs/reference" },
    { "./docs/", "docs" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (RecordSession) session =
        record_session_new (fixture->manifest);
      g_autoptr (AgentsManifestEntry) repo =
        agents_git_repo_new (NULL, "openai/example", "main");
      g_autoptr (GPtrArray) files = NULL;
      g_autoptr (GAsyncResult) res = NULL;
      g_autoptr (GError) error = NULL;
      g_autofree char *tmp = NULL;

      agents_git_repo_set_subpath (AGENTS_GIT_REPO (repo), cases[i].subpath);
      AGENTS_TEST_AWAIT (res, agents_manifest_entry_apply_async (
                                repo, AGENTS_SANDBOX_SESSION (session),
                                "/workspace/repo", NULL, NULL,
                                agents_test_async_cb, &res));
      files = agents_manifest_entry_apply_finish (repo, res, &error);
      g_assert_no_error (error);
      tmp = git_tmp (session);
      assert_ran_printf (session, "cp -R -- %s/%s/. /workspace/repo/", tmp,
                         cases[i].copied);
    }
}

/* ENT-28 */
static void
test_git_repo_cleans_up_after_clone_failure (Fixture *fixture,
                                             gconstpointer data)
{
  g_autoptr (AgentsManifestEntry) repo =
    agents_git_repo_new (NULL, "openai/example", "main");
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) context = NULL;
  g_autofree char *tmp = NULL;
  g_autofree char *rm = NULL;
  RecordSession *session = fixture_session (fixture);
  int clone;
  guint removals = 0;
  int last_removal = -1;

  agents_git_repo_set_subpath (AGENTS_GIT_REPO (repo), "docs");
  record_session_answer (session, "git clone", 128, "", "clone failed");

  files = apply_entry (fixture, repo, "/workspace/repo", NULL, &error);
  g_assert_null (files);
  g_assert_error (error, AGENTS_SANDBOX_ERROR, AGENTS_SANDBOX_ERROR_GIT_CLONE);
  g_assert_cmpstr (error->message, ==,
                   "git clone failed for "
                   "https://github.com/openai/example.git@main");
  agents_test_assert_context_str (error, "url",
                                  "https://github.com/openai/example.git");
  agents_test_assert_context_str (error, "ref", "main");
  agents_test_assert_context_str (error, "stderr", "clone failed");
  agents_test_assert_context_str (error, "repo", "openai/example");
  agents_test_assert_context_str (error, "subpath", "docs");

  tmp = git_tmp (session);
  rm = g_strconcat ("rm -rf -- ", tmp, NULL);
  clone = record_session_find (session, "git clone");
  g_assert_cmpint (clone, >=, 0);
  for (guint i = 0; i < session->commands->len; i++)
    if (g_str_equal (g_ptr_array_index (session->commands, i), rm))
      {
        removals++;
        last_removal = i;
      }
  g_assert_cmpuint (removals, ==, 2);
  g_assert_cmpint (last_removal, >, clone);
  assert_no_write (fixture);
}

/* ENT-30 */
static void
test_dir_metadata_chmod (Fixture *fixture, gconstpointer data)
{
  g_autoptr (AgentsManifestEntry) dir = agents_dir_new ();
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GError) error = NULL;

  files = apply_entry (fixture, dir, "/workspace/dir", NULL, &error);
  g_assert_no_error (error);
  g_assert_true (
    record_session_ran (fixture->session, "chmod 0755 /workspace/dir"));
}

/* ENT-32 */
static void
test_chgrp_failure (Fixture *fixture, gconstpointer data)
{
  g_autoptr (AgentsManifestEntry) file = agents_file_new_from_text ("x");
  g_autoptr (AgentsGroup) group = agents_group_new ("sandbox-user", NULL, 0);
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GError) error = NULL;
  RecordSession *session;

  agents_manifest_entry_set_group (file, group);
  agents_manifest_set_entry (fixture->manifest, "copied.txt", file);
  session = fixture_session (fixture);
  record_session_answer (session, "chgrp", 1, "", "chgrp failed");

  files = apply_manifest (session, &error);
  g_assert_null (files);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_EXEC_NONZERO);
  g_assert_true (
    record_session_ran (session, "chgrp sandbox-user /workspace/copied.txt"));
  g_assert_cmpint (record_session_find (session, "chmod"), ==, -1);
}

/* ENT-34 */
static void
test_local_file_host_path_grant (Fixture *fixture, gconstpointer data)
{
  g_autofree char *secret = fixture_path (fixture, "outside/secret.txt");
  g_autoptr (AgentsManifestEntry) entry = agents_local_file_new (secret);
  g_autoptr (AgentsSandboxPathGrant) grant = NULL;
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GError) error = NULL;

  agents_test_write_file (secret, "secret");
  grant = agents_sandbox_path_grant_try_new_full (
    "/mnt/shared-data", fixture->outside, TRUE, NULL, &error);
  g_assert_no_error (error);
  agents_manifest_add_extra_path_grant (fixture->manifest, grant);

  files = apply_entry (fixture, entry, "/workspace/copied.txt", fixture->base,
                       &error);
  g_assert_no_error (error);
  g_assert_cmpstr (
    record_session_written (fixture->session, "/workspace/copied.txt"), ==,
    "secret");
}

#define ADD(id, func)                                                     \
  g_test_add ("/reference-cases/" id, Fixture, NULL, fixture_setup, func, \
              fixture_teardown)

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/reference-cases/ENT-02",
                   test_resolve_rejects_absolute_escape);
  ADD ("ENT-04", test_local_file_uses_current_directory);
  ADD ("ENT-06", test_local_file_allows_granted_source);
  ADD ("ENT-08", test_serialized_grant_allows_local_file);
  ADD ("ENT-10", test_local_file_rejects_symlinked_ancestor);
  ADD ("ENT-12", test_local_dir_revalidates_swapped_file);
  ADD ("ENT-14", test_local_dir_rejects_swapped_root);
  ADD ("ENT-18", test_local_dir_allows_absolute_source_inside_base);
  ADD ("ENT-20/file", test_local_dir_rejects_symlinked_file);
  ADD ("ENT-20/dir", test_local_dir_rejects_symlinked_dir);
  ADD ("ENT-22", test_git_repo_fetches_commit_refs);
  ADD ("ENT-24", test_git_repo_rejects_invalid_subpath);
  ADD ("ENT-26", test_git_repo_copies_relative_subpath);
  ADD ("ENT-28", test_git_repo_cleans_up_after_clone_failure);
  ADD ("ENT-30", test_dir_metadata_chmod);
  ADD ("ENT-32", test_chgrp_failure);
  ADD ("ENT-34", test_local_file_host_path_grant);

  return g_test_run ();
}
