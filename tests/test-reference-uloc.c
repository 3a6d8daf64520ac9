/* test-reference-uloc.c - reference cases ULOC-*: unix_local specifics
 * (../shared/spec/reference-cases.md)
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "agents-unix-local-confine.h"
#include "agents-unix-local-client.h"
#include "test-utils.h"

/* "session S": unix_local, caller-owned root <tmp>/workspace, noop
 * snapshot, started. */
typedef struct
{
  char *tmp;
  char *ws;
  AgentsSandboxClient *client;
  AgentsSandboxSession *session;
} SessionS;

static void
session_s_setup (SessionS *s, gconstpointer data)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GError) error = NULL;

  s->tmp = agents_test_make_tmp_dir ("reference-uloc");
  s->ws = g_build_filename (s->tmp, "workspace", NULL);
  g_assert_no_errno (g_mkdir (s->ws, 0700));
  agents_manifest_set_root (manifest, s->ws);
  s->client = agents_unix_local_client_new ();
  AGENTS_TEST_AWAIT (
    res, agents_sandbox_client_create_async (s->client, manifest, NULL, NULL,
                                             NULL, agents_test_async_cb, &res));
  s->session = agents_sandbox_client_create_finish (s->client, res, &error);
  g_assert_no_error (error);
  AGENTS_TEST_AWAIT (res, agents_sandbox_session_start_async (
                            s->session, NULL, agents_test_async_cb, &res));
  g_assert_true (agents_sandbox_session_start_finish (s->session, res, &error));
  g_assert_no_error (error);
}

static void
session_s_teardown (SessionS *s, gconstpointer data)
{
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GError) error = NULL;

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_close_async (
                            s->session, NULL, agents_test_async_cb, &res));
  agents_sandbox_session_close_finish (s->session, res, &error);
  g_assert_no_error (error);
  g_clear_object (&s->session);
  g_clear_object (&s->client);
  agents_test_rm_rf (s->tmp);
  g_free (s->tmp);
  g_free (s->ws);
}

/* ULOC-02 */
static void
test_hydrate_rejects_external_symlink (SessionS *s, gconstpointer data)
{
  g_autofree char *src = g_build_filename (s->tmp, "src", NULL);
  g_autofree char *link = g_build_filename (src, "leak", NULL);
  g_autofree char *tar = g_build_filename (s->tmp, "bundle.tar", NULL);
  g_autofree char *leak = g_build_filename (s->ws, "leak", NULL);
  g_autoptr (GFile) tar_file = g_file_new_for_path (tar);
  g_autoptr (GFileInputStream) stream = NULL;
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GError) error = NULL;
  const char *argv[] = { "tar", "-C", src, "-cf", tar, "leak", NULL };
  int status = 0;

  g_assert_no_errno (g_mkdir (src, 0700));
  g_assert_no_errno (symlink ("/etc/passwd", link));
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH,
                               NULL, NULL, NULL, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, &error));
  stream = g_file_read (tar_file, NULL, &error);
  g_assert_no_error (error);

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_hydrate_workspace_async (
                            s->session, G_INPUT_STREAM (stream), NULL,
                            agents_test_async_cb, &res));
  g_assert_false (
    agents_sandbox_session_hydrate_workspace_finish (s->session, res, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE);
  agents_test_assert_context_str (error, "path", s->ws);
  agents_test_assert_context_str (error, "member", "leak");
  agents_test_assert_context_str (
    error, "reason", "absolute symlink target not allowed: /etc/passwd");
  g_assert_false (g_file_test (leak, G_FILE_TEST_EXISTS) ||
                  g_file_test (leak, G_FILE_TEST_IS_SYMLINK));
}

static void
assert_path_error (GError *error, const char *fragment)
{
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH);
  g_assert_nonnull (strstr (error->message, fragment));
}

/* ULOC-04 */
static void
test_helpers_reject_paths_outside_root (SessionS *s, gconstpointer data)
{
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GInputStream) empty = g_memory_input_stream_new ();
  gpointer listing;

  AGENTS_TEST_AWAIT (
    res, agents_sandbox_session_ls_async (s->session, "../outside", NULL,
                                          agents_test_async_cb, &res));
  listing = agents_sandbox_session_ls_finish (s->session, res, &error);
  g_assert_null (listing);
  assert_path_error (error, "must not escape root");
  g_clear_error (&error);

  AGENTS_TEST_AWAIT (
    res, agents_sandbox_session_mkdir_async (s->session, "../outside", TRUE,
                                             NULL, agents_test_async_cb, &res));
  g_assert_false (
    agents_sandbox_session_mkdir_finish (s->session, res, &error));
  assert_path_error (error, "must not escape root");
  g_clear_error (&error);

  AGENTS_TEST_AWAIT (
    res, agents_sandbox_session_rm_async (s->session, "../outside", FALSE, NULL,
                                          agents_test_async_cb, &res));
  g_assert_false (agents_sandbox_session_rm_finish (s->session, res, &error));
  assert_path_error (error, "must not escape root");
  g_clear_error (&error);

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_extract_async (
                            s->session, "/tmp/bundle.tar", empty,
                            AGENTS_COMPRESSION_SCHEME_TAR, NULL,
                            agents_test_async_cb, &res));
  g_assert_false (
    agents_sandbox_session_extract_finish (s->session, res, &error));
  assert_path_error (error, "must be relative");
}

typedef struct
{
  const char *python;
} VenvWhich;

static char *
venv_which (const char *name, const char *path, gpointer user_data)
{
  VenvWhich *which = user_data;

  if (g_str_equal (name, "sandbox-exec"))
    return g_strdup ("/usr/bin/sandbox-exec");
  if (g_str_equal (name, "python"))
    return g_strdup (which->python);
  return NULL;
}

/* ULOC-06 */
static void
test_darwin_profile_allows_venv_root (void)
{
  g_autofree char *tmp = agents_test_make_tmp_dir ("reference-uloc-venv");
  g_autofree char *ws = g_build_filename (tmp, "workspace", NULL);
  g_autofree char *project = g_build_filename (tmp, "host-project", NULL);
  g_autofree char *venv = g_build_filename (project, ".venv", NULL);
  g_autofree char *bin = g_build_filename (venv, "bin", NULL);
  g_autofree char *python = g_build_filename (bin, "python", NULL);
  g_autofree char *cfg = g_build_filename (venv, "pyvenv.cfg", NULL);
  g_autofree char *venv_read = g_strdup_printf (
    "(allow file-read-data file-read-metadata (subpath \"%s\"))", venv);
  g_autofree char *project_read = g_strdup_printf (
    "(allow file-read-data file-read-metadata (subpath \"%s\"))", project);
  g_autofree char *venv_write =
    g_strdup_printf ("(allow file-write* (subpath \"%s\"))", venv);
  g_autoptr (GPtrArray) grants = g_ptr_array_new ();
  VenvWhich which = { python };
  const char *argv[] = { "python", "-V", NULL };
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) command = NULL;

  g_assert_no_errno (g_mkdir_with_parents (bin, 0700));
  g_assert_no_errno (g_mkdir (ws, 0700));
  agents_test_write_file (cfg, "home = /usr/bin\n");
  agents_test_write_file (python, "");

  command = agents_unix_local_confined_exec_command (
    "darwin", venv_which, &which, argv, ws, grants, bin, FALSE, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (command[2], venv_read));
  g_assert_null (strstr (command[2], project_read));
  g_assert_null (strstr (command[2], venv_write));
  agents_test_rm_rf (tmp);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/reference-cases/ULOC-02", SessionS, NULL, session_s_setup,
              test_hydrate_rejects_external_symlink, session_s_teardown);
  g_test_add ("/reference-cases/ULOC-04", SessionS, NULL, session_s_setup,
              test_helpers_reject_paths_outside_root, session_s_teardown);
  g_test_add_func ("/reference-cases/ULOC-06",
                   test_darwin_profile_allows_venv_root);

  return g_test_run ();
}
