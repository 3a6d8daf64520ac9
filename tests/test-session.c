/* test-session.c - the generic session layer, over fake sessions
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Ports of the reference tests that drive BaseSandboxSession and
 * SandboxSession through the reference's fake sessions.
 */

#include "config.h"

#include <glib/gstdio.h>

#include "agents-s3-mount.h"
#include "fake-session.h"
#include "test-utils.h"

/* S3Mount(bucket=..., mount_strategy=InContainerMountStrategy(
 *   pattern=MountpointMountPattern())) */
static AgentsManifestEntry *
agents_test_new_s3_mount (const char *bucket)
{
  g_autoptr (AgentsMountPattern) pattern =
    agents_mountpoint_mount_pattern_new ();
  g_autoptr (AgentsMountStrategy) strategy =
    agents_in_container_mount_strategy_new (pattern);

  return agents_s3_mount_new (bucket, strategy);
}

#define SESSION(s) AGENTS_SANDBOX_SESSION (s)

static gboolean
session_close (FakeSession *session, GError **error)
{
  g_autoptr (GAsyncResult) res = NULL;

  AGENTS_TEST_AWAIT (
    res, agents_sandbox_session_close_async (SESSION (session), NULL,
                                             agents_test_async_cb, &res));
  return agents_sandbox_session_close_finish (SESSION (session), res, error);
}

static void
test_aclose_runs_public_cleanup_lifecycle (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) inner = fake_session_new (manifest);
  g_autoptr (GError) error = NULL;

  g_assert_true (session_close (inner, &error));
  g_assert_no_error (error);

  g_assert_cmpuint (inner->stop_calls, ==, 1);
  g_assert_cmpuint (inner->shutdown_calls, ==, 1);
  g_assert_cmpuint (inner->close_dependency_calls, ==, 1);
}

static void
test_aclose_closes_dependencies_when_stop_fails (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) inner = fake_session_new (manifest);
  g_autoptr (GError) error = NULL;

  inner->fail_stop = TRUE;
  g_assert_false (session_close (inner, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "stop failed"));

  g_assert_cmpuint (inner->stop_calls, ==, 1);
  g_assert_cmpuint (inner->shutdown_calls, ==, 0);
  g_assert_cmpuint (inner->close_dependency_calls, ==, 1);
}

static void
assert_escape_error (GError *error)
{
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH);
  g_assert_nonnull (strstr (error->message, "must not escape root"));
}

static void
test_routes_helper_path_checks_to_inner_session (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) inner = NULL;
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GInputStream) data =
    g_memory_input_stream_new_from_data ("ignored", 7, NULL);
  g_autoptr (GListModel) listing = NULL;
  GError *error = NULL;

  agents_manifest_set_root (manifest, "/workspace");
  inner = fake_session_new (manifest);
  inner->guard_paths = TRUE;

  AGENTS_TEST_AWAIT (
    res, agents_sandbox_session_ls_async (SESSION (inner), "link", NULL,
                                          agents_test_async_cb, &res));
  listing = agents_sandbox_session_ls_finish (SESSION (inner), res, &error);
  g_assert_null (listing);
  assert_escape_error (error);
  g_clear_error (&error);

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_mkdir_async (
                            SESSION (inner), "link/nested", TRUE, NULL,
                            agents_test_async_cb, &res));
  g_assert_false (
    agents_sandbox_session_mkdir_finish (SESSION (inner), res, &error));
  assert_escape_error (error);
  g_clear_error (&error);

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_rm_async (
                            SESSION (inner), "link/file.txt", FALSE, NULL,
                            agents_test_async_cb, &res));
  g_assert_false (
    agents_sandbox_session_rm_finish (SESSION (inner), res, &error));
  assert_escape_error (error);
  g_clear_error (&error);

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_extract_async (
                            SESSION (inner), "bundle.tar", data,
                            AGENTS_COMPRESSION_SCHEME_TAR, NULL,
                            agents_test_async_cb, &res));
  g_assert_false (
    agents_sandbox_session_extract_finish (SESSION (inner), res, &error));
  assert_escape_error (error);
  g_clear_error (&error);

  g_assert_cmpuint (inner->normalized_paths->len, ==, 4);
  g_assert_cmpstr (g_ptr_array_index (inner->normalized_paths, 0), ==, "link");
  g_assert_cmpstr (g_ptr_array_index (inner->normalized_paths, 1), ==,
                   "link/nested");
  g_assert_cmpstr (g_ptr_array_index (inner->normalized_paths, 2), ==,
                   "link/file.txt");
  g_assert_cmpstr (g_ptr_array_index (inner->normalized_paths, 3), ==,
                   "bundle.tar");
}

static char *
validate_remote (FakeSession *session, const char *path, GError **error)
{
  g_autoptr (GAsyncResult) res = NULL;

  AGENTS_TEST_AWAIT (
    res, agents_sandbox_session_validate_remote_path_access_async (
           SESSION (session), path, FALSE, NULL, agents_test_async_cb, &res));
  return agents_sandbox_session_validate_remote_path_access_finish (
    SESSION (session), res, error);
}

static void
test_remote_realpath_guard_fails_closed_on_symlink_cycle (void)
{
  g_autofree char *tmp = agents_test_make_tmp_dir ("realpath-cycle-");
  g_autofree char *root = g_build_filename (tmp, "workspace", NULL);
  g_autofree char *loop = g_build_filename (root, "loop", NULL);
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) session = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *resolved = NULL;
  gint64 started;

  g_assert_cmpint (g_mkdir (root, 0755), ==, 0);
  g_assert_cmpint (symlink ("loop", loop), ==, 0);
  agents_manifest_set_root (manifest, root);
  session = fake_session_new (manifest);
  session->exec_mode = FAKE_EXEC_HOST;

  started = g_get_monotonic_time ();
  resolved = validate_remote (session, "loop", &error);
  /* The reference wraps the call in asyncio.wait_for(timeout=1). */
  g_assert_cmpint (g_get_monotonic_time () - started, <, G_USEC_PER_SEC);

  g_assert_null (resolved);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_EXEC_NONZERO);
  g_assert_nonnull (
    strstr (error->message, "symlink resolution depth exceeded"));

  agents_test_rm_rf (tmp);
}

static void
assert_context_string (GVariant *context, const char *key, const char *expected)
{
  const char *value = NULL;

  g_assert_true (g_variant_lookup (context, key, "&s", &value));
  g_assert_cmpstr (value, ==, expected);
}

static void
test_remote_realpath_empty_success_output_is_transport_error (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) session = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) context = NULL;
  g_autoptr (GVariant) command = NULL;
  g_autofree const char **argv = NULL;
  g_autofree char *resolved = NULL;
  const char *const expected_argv[] = { "resolve_workspace_path", "/workspace",
                                        "/workspace/file.txt", "0", NULL };
  const char *const expected_exec[] = { "/tmp/resolve_workspace_path",
                                        "/workspace", "/workspace/file.txt",
                                        "0", NULL };
  int exit_code = -1;

  agents_manifest_set_root (manifest, "/workspace");
  session = fake_session_new (manifest);
  session->exec_mode = FAKE_EXEC_EMPTY;
  session->helper_path = g_strdup ("/tmp/resolve_workspace_path");

  resolved = validate_remote (session, "file.txt", &error);
  g_assert_null (resolved);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_EXEC_TRANSPORT);

  context = agents_sandbox_error_get_context (error);
  g_assert_cmpuint (g_variant_n_children (context), ==, 6);
  command =
    g_variant_lookup_value (context, "command", G_VARIANT_TYPE_STRING_ARRAY);
  g_assert_nonnull (command);
  argv = g_variant_get_strv (command, NULL);
  g_assert_true (g_strv_equal (argv, expected_argv));
  assert_context_string (
    context, "command_str",
    "resolve_workspace_path /workspace /workspace/file.txt 0");
  assert_context_string (context, "reason", "empty_stdout");
  g_assert_true (g_variant_lookup (context, "exit_code", "i", &exit_code));
  g_assert_cmpint (exit_code, ==, 0);
  assert_context_string (context, "stdout", "");
  assert_context_string (context, "stderr", "");

  g_assert_cmpuint (session->exec_commands->len, ==, 1);
  g_assert_true (g_strv_equal (g_ptr_array_index (session->exec_commands, 0),
                               expected_exec));
}

static AgentsExecResult *
exec_raw (FakeSession *session, const char *const *argv)
{
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GError) error = NULL;
  AgentsExecResult *result;

  AGENTS_TEST_AWAIT (
    res, agents_sandbox_session_exec_raw_async (
           SESSION (session), argv, 0, NULL, agents_test_async_cb, &res));
  result =
    agents_sandbox_session_exec_raw_finish (SESSION (session), res, &error);
  g_assert_no_error (error);
  return result;
}

static char *
read_stripped (const char *path)
{
  char *text = agents_test_read_file (path);
  gsize len = strlen (text);

  while (len > 0 && text[len - 1] == '\n')
    text[--len] = '\0';
  return text;
}

static FakeSession *
host_session (const char *tmp)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autofree char *root = g_build_filename (tmp, "workspace", NULL);
  FakeSession *session;

  agents_manifest_set_root (manifest, root);
  session = fake_session_new (manifest);
  session->exec_mode = FAKE_EXEC_HOST;
  return session;
}

static void
test_runtime_helper_install_replaces_tampered_executable (void)
{
  g_autofree char *tmp = agents_test_make_tmp_dir ("runtime-helper-");
  g_autofree char *install_path =
    g_build_filename (tmp, "runtime-helpers", "helper", NULL);
  g_autoptr (AgentsRuntimeHelper) helper = agents_runtime_helper_new (
    "test-helper", "#!/bin/sh\nprintf 'expected\\n'", install_path);
  g_autoptr (FakeSession) session = host_session (tmp);
  g_auto (GStrv) command = agents_runtime_helper_install_command (helper);
  g_autoptr (AgentsExecResult) initial = NULL;
  g_autoptr (AgentsExecResult) repaired = NULL;
  g_autofree char *installed = NULL;
  g_autofree char *fixed = NULL;

  g_assert_cmpstr (command[0], ==, "sh");
  g_assert_cmpstr (command[1], ==, "-c");

  initial = exec_raw (session, (const char *const *) command);
  g_assert_true (agents_exec_result_ok (initial));
  installed = read_stripped (install_path);
  g_assert_cmpstr (installed, ==, agents_runtime_helper_get_content (helper));

  g_assert_cmpint (g_chmod (install_path, 0755), ==, 0);
  agents_test_write_file (install_path, "#!/bin/sh\nprintf 'tampered\\n'");
  g_assert_cmpint (g_chmod (install_path, 0755), ==, 0);

  repaired = exec_raw (session, (const char *const *) command);
  g_assert_true (agents_exec_result_ok (repaired));
  fixed = read_stripped (install_path);
  g_assert_cmpstr (fixed, ==, agents_runtime_helper_get_content (helper));

  agents_test_rm_rf (tmp);
}

static char *
ensure_installed (FakeSession *session, AgentsRuntimeHelper *helper)
{
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GError) error = NULL;
  char *path;

  AGENTS_TEST_AWAIT (
    res, agents_sandbox_session_ensure_runtime_helper_installed_async (
           SESSION (session), helper, NULL, agents_test_async_cb, &res));
  path = agents_sandbox_session_ensure_runtime_helper_installed_finish (
    SESSION (session), res, &error);
  g_assert_no_error (error);
  return path;
}

static void
test_runtime_helper_reinstalls_when_cached_binary_is_missing (void)
{
  g_autofree char *tmp = agents_test_make_tmp_dir ("runtime-helper-");
  g_autofree char *install_path =
    g_build_filename (tmp, "runtime-helpers", "helper", NULL);
  g_autoptr (AgentsRuntimeHelper) helper = agents_runtime_helper_new (
    "test-helper", "#!/bin/sh\nprintf 'expected\\n'", install_path);
  g_autoptr (FakeSession) session = host_session (tmp);
  g_autofree char *installed_path = NULL;
  g_autofree char *repaired_path = NULL;
  g_autofree char *content = NULL;

  installed_path = ensure_installed (session, helper);
  g_assert_cmpstr (installed_path, ==, install_path);
  g_assert_true (g_file_test (install_path, G_FILE_TEST_EXISTS));

  g_assert_cmpint (g_unlink (install_path), ==, 0);
  g_assert_false (g_file_test (install_path, G_FILE_TEST_EXISTS));

  repaired_path = ensure_installed (session, helper);
  g_assert_cmpstr (repaired_path, ==, install_path);
  g_assert_true (g_file_test (install_path, G_FILE_TEST_EXISTS));
  content = read_stripped (install_path);
  g_assert_cmpstr (content, ==, agents_runtime_helper_get_content (helper));

  agents_test_rm_rf (tmp);
}

static FakeSession *
provisioning_session (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsUser) user = agents_user_new ("sandbox-user");
  FakeSession *session;

  agents_manifest_add_user (manifest, user);
  session = fake_session_new (manifest);
  session->exec_mode = FAKE_EXEC_PROVISIONING;
  return session;
}

static GPtrArray *
apply_manifest (FakeSession *session, gboolean only_ephemeral, GError **error)
{
  g_autoptr (GAsyncResult) res = NULL;

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_apply_manifest_async (
                            SESSION (session), only_ephemeral, NULL,
                            agents_test_async_cb, &res));
  return agents_sandbox_session_apply_manifest_finish (SESSION (session), res,
                                                       error);
}

static void
test_apply_manifest_raises_on_account_provisioning_failures (void)
{
  g_autoptr (FakeSession) session = provisioning_session ();
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) files = apply_manifest (session, FALSE, &error);
  g_autoptr (GVariant) context = NULL;

  g_assert_null (files);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_EXEC_NONZERO);
  context = agents_sandbox_error_get_context (error);
  assert_context_string (context, "command_str",
                         "useradd -U -M -s /usr/sbin/nologin sandbox-user");
  assert_context_string (context, "stdout", "attempted useradd");
  assert_context_string (context, "stderr", "missing useradd");
  g_assert_cmpstr (error->message, ==,
                   "stdout: attempted useradd\nstderr: missing useradd");
}

static void
test_apply_manifest_only_ephemeral_skips_account_provisioning_failures (void)
{
  g_autoptr (FakeSession) session = provisioning_session ();
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) files = apply_manifest (session, TRUE, &error);

  g_assert_no_error (error);
  g_assert_nonnull (files);
  g_assert_cmpuint (files->len, ==, 0);
}

static FakeSession *
restorable_provisioning_session (gboolean provision_on_resume)
{
  FakeSession *session = provisioning_session ();
  g_autoptr (AgentsSnapshot) snapshot = fake_restorable_snapshot_new ("resume");

  agents_sandbox_session_state_set_snapshot (session->state, snapshot);
  session->generic_start = TRUE;
  session->record_clear = TRUE;
  agents_sandbox_session_set_start_state_preserved (SESSION (session), FALSE,
                                                    !provision_on_resume);
  return session;
}

static gboolean
start_session (FakeSession *session, GError **error)
{
  g_autoptr (GAsyncResult) res = NULL;

  AGENTS_TEST_AWAIT (
    res, agents_sandbox_session_start_async (SESSION (session), NULL,
                                             agents_test_async_cb, &res));
  return agents_sandbox_session_start_finish (SESSION (session), res, error);
}

static void
test_resume_reprovisions_manifest_accounts_before_reapplying_ephemeral_entries (
  void)
{
  g_autoptr (FakeSession) session = restorable_provisioning_session (TRUE);
  g_autoptr (GError) error = NULL;

  g_assert_false (start_session (session, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_EXEC_NONZERO);

  g_assert_true (session->cleared_workspace_root);
  g_assert_cmpuint (session->hydrate_calls, ==, 1);
}

static void
test_resume_can_skip_manifest_account_reprovisioning_when_os_state_is_preserved (
  void)
{
  g_autoptr (FakeSession) session = restorable_provisioning_session (FALSE);
  g_autoptr (GError) error = NULL;

  g_assert_true (start_session (session, &error));
  g_assert_no_error (error);

  g_assert_true (session->cleared_workspace_root);
  g_assert_cmpuint (session->hydrate_calls, ==, 1);
}

/* ---- clear_workspace_root_on_resume ----------------------------------- */

static AgentsFileEntry *
ls_entry (const char *path, AgentsEntryKind kind)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsPermissions) permissions =
    agents_permissions_new_from_string (
      kind == AGENTS_ENTRY_KIND_DIRECTORY ? "drwxr-xr-x" : "-rw-r--r--",
      &error);

  g_assert_no_error (error);
  return agents_file_entry_new (path, permissions, "root", "root", 0, kind);
}

static void
add_ls_result (FakeSession *session,
               const char *dir,
               AgentsFileEntry *first,
               ...)
{
  GPtrArray *entries = g_ptr_array_new_with_free_func (g_object_unref);
  va_list args;

  va_start (args, first);
  for (AgentsFileEntry *e = first; e != NULL;
       e = va_arg (args, AgentsFileEntry *))
    g_ptr_array_add (entries, e);
  va_end (args);
  g_hash_table_insert (session->ls_results, g_strdup (dir), entries);
}

static FakeSession *
mount_session (const char *mount_key)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsManifestEntry) mount = agents_test_new_s3_mount ("bucket");
  FakeSession *session;

  agents_manifest_set_entry (manifest, mount_key, mount);
  session = fake_session_new (manifest);
  session->ls_results = g_hash_table_new_full (
    g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_ptr_array_unref);
  return session;
}

static void
clear_workspace (FakeSession *session)
{
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GError) error = NULL;

  AGENTS_TEST_AWAIT (
    res, agents_sandbox_session_clear_workspace_root_on_resume_async (
           SESSION (session), NULL, agents_test_async_cb, &res));
  g_assert_true (agents_sandbox_session_clear_workspace_root_on_resume_finish (
    SESSION (session), res, &error));
  g_assert_no_error (error);
}

static void
assert_strings (GPtrArray *actual, ...)
{
  va_list args;
  guint i = 0;

  va_start (args, actual);
  for (const char *s = va_arg (args, const char *); s != NULL;
       s = va_arg (args, const char *))
    {
      g_assert_cmpuint (i, <, actual->len);
      g_assert_cmpstr (g_ptr_array_index (actual, i), ==, s);
      i++;
    }
  va_end (args);
  g_assert_cmpuint (actual->len, ==, i);
}

static void
test_clear_workspace_root_on_resume_preserves_nested_mounts (void)
{
  g_autoptr (FakeSession) session = mount_session ("a/b");

  add_ls_result (session, "/workspace",
                 ls_entry ("/workspace/a", AGENTS_ENTRY_KIND_DIRECTORY),
                 ls_entry ("/workspace/root.txt", AGENTS_ENTRY_KIND_FILE),
                 NULL);
  add_ls_result (session, "/workspace/a",
                 ls_entry ("/workspace/a/b", AGENTS_ENTRY_KIND_DIRECTORY),
                 ls_entry ("/workspace/a/local.txt", AGENTS_ENTRY_KIND_FILE),
                 NULL);

  clear_workspace (session);

  assert_strings (session->ls_calls, "/workspace", "/workspace/a", NULL);
  assert_strings (session->rm_calls, "/workspace/a/local.txt|True",
                  "/workspace/root.txt|True", NULL);
}

static void
test_clear_workspace_root_on_resume_deletes_file_ancestor_of_skipped_mount (
  void)
{
  g_autoptr (FakeSession) session = mount_session ("a/b");

  add_ls_result (
    session, "/workspace", ls_entry ("/workspace/a", AGENTS_ENTRY_KIND_FILE),
    ls_entry ("/workspace/root.txt", AGENTS_ENTRY_KIND_FILE), NULL);

  clear_workspace (session);

  assert_strings (session->ls_calls, "/workspace", NULL);
  assert_strings (session->rm_calls, "/workspace/a|True",
                  "/workspace/root.txt|True", NULL);
}

static void
test_clear_workspace_root_on_resume_preserves_workspace_root_mount (void)
{
  g_autoptr (FakeSession) session = mount_session (".");

  clear_workspace (session);

  assert_strings (session->ls_calls, NULL);
  assert_strings (session->rm_calls, NULL);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  agents_s3mount_register_types ();

  g_test_add_func (
    "/sandbox/session/sandbox_session_aclose_runs_public_cleanup_lifecycle",
    test_aclose_runs_public_cleanup_lifecycle);
  g_test_add_func ("/sandbox/session/"
                   "sandbox_session_aclose_closes_dependencies_when_stop_fails",
                   test_aclose_closes_dependencies_when_stop_fails);
  g_test_add_func ("/sandbox/session/"
                   "sandbox_session_routes_helper_path_checks_to_inner_session",
                   test_routes_helper_path_checks_to_inner_session);
  g_test_add_func (
    "/sandbox/session/remote_realpath_guard_fails_closed_on_symlink_cycle",
    test_remote_realpath_guard_fails_closed_on_symlink_cycle);
  g_test_add_func (
    "/sandbox/session/remote_realpath_empty_success_output_is_transport_error",
    test_remote_realpath_empty_success_output_is_transport_error);
  g_test_add_func (
    "/sandbox/session/runtime_helper_install_replaces_tampered_executable",
    test_runtime_helper_install_replaces_tampered_executable);
  g_test_add_func (
    "/sandbox/session/runtime_helper_reinstalls_when_cached_binary_is_missing",
    test_runtime_helper_reinstalls_when_cached_binary_is_missing);
  g_test_add_func (
    "/sandbox/session/apply_manifest_raises_on_account_provisioning_failures",
    test_apply_manifest_raises_on_account_provisioning_failures);
  g_test_add_func (
    "/sandbox/session/"
    "apply_manifest_only_ephemeral_skips_account_provisioning_failures",
    test_apply_manifest_only_ephemeral_skips_account_provisioning_failures);
  g_test_add_func (
    "/sandbox/session/"
    "resume_reprovisions_manifest_accounts_before_reapplying_ephemeral_entries",
    test_resume_reprovisions_manifest_accounts_before_reapplying_ephemeral_entries);
  g_test_add_func (
    "/sandbox/session/"
    "resume_can_skip_manifest_account_reprovisioning_when_os_state_is_"
    "preserved",
    test_resume_can_skip_manifest_account_reprovisioning_when_os_state_is_preserved);
  g_test_add_func (
    "/sandbox/session/clear_workspace_root_on_resume_preserves_nested_mounts",
    test_clear_workspace_root_on_resume_preserves_nested_mounts);
  g_test_add_func (
    "/sandbox/session/"
    "clear_workspace_root_on_resume_deletes_file_ancestor_of_skipped_mount",
    test_clear_workspace_root_on_resume_deletes_file_ancestor_of_skipped_mount);
  g_test_add_func (
    "/sandbox/session/"
    "clear_workspace_root_on_resume_preserves_workspace_root_mount",
    test_clear_workspace_root_on_resume_preserves_workspace_root_mount);

  return g_test_run ();
}
