/* test-reference-apply.c - reference cases APPLY-*: manifest application
 * and accounts (../shared/spec/reference-cases.md)
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "agents-sandbox-error-private.h"
#include "record-session.h"
#include "test-utils.h"

static GPtrArray *
apply_manifest (RecordSession *session, gboolean only_ephemeral, GError **error)
{
  g_autoptr (GAsyncResult) res = NULL;

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_apply_manifest_async (
                            AGENTS_SANDBOX_SESSION (session), only_ephemeral,
                            NULL, agents_test_async_cb, &res));
  return agents_sandbox_session_apply_manifest_finish (
    AGENTS_SANDBOX_SESSION (session), res, error);
}

static GPtrArray *
apply_batch (RecordSession *session,
             GPtrArray *targets,
             const char *base_dir,
             GError **error)
{
  g_autoptr (GAsyncResult) res = NULL;

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_apply_entry_batch_async (
                            AGENTS_SANDBOX_SESSION (session), targets, base_dir,
                            NULL, agents_test_async_cb, &res));
  return agents_sandbox_session_apply_entry_batch_finish (
    AGENTS_SANDBOX_SESSION (session), res, error);
}

static GPtrArray *
new_targets (void)
{
  return g_ptr_array_new_with_free_func (
    (GDestroyNotify) agents_entry_target_free);
}

static void
add_target (GPtrArray *targets, const char *path, AgentsManifestEntry *entry)
{
  g_ptr_array_add (targets, agents_entry_target_new (path, entry));
  g_object_unref (entry);
}

/* APPLY-02 */
static void
test_only_ephemeral_reapplies_nested_children (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsManifestEntry) dir = agents_dir_new ();
  g_autoptr (AgentsManifestEntry) keep = agents_file_new_from_text ("keep");
  g_autoptr (AgentsManifestEntry) tmp = agents_file_new_from_text ("tmp");
  g_autoptr (RecordSession) session = NULL;
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GError) error = NULL;

  agents_manifest_entry_set_ephemeral (tmp, TRUE);
  agents_dir_set_child (AGENTS_DIR (dir), "keep.txt", keep);
  agents_dir_set_child (AGENTS_DIR (dir), "tmp.txt", tmp);
  agents_manifest_set_entry (manifest, "dir", dir);
  session = record_session_new (manifest);

  files = apply_manifest (session, TRUE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (session->writes->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (session->writes, 0), ==,
                   "/workspace/dir/tmp.txt");
  g_assert_cmpstr (record_session_written (session, "/workspace/dir/tmp.txt"),
                   ==, "tmp");
}

/* APPLY-04 */
static void
test_respects_explicit_base_dir (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (RecordSession) session = record_session_new (manifest);
  g_autofree char *tmp = agents_test_make_tmp_dir ("apply-base");
  g_autofree char *project = g_build_filename (tmp, "project", NULL);
  g_autofree char *source = g_build_filename (project, "file.txt", NULL);
  g_autoptr (GPtrArray) targets = new_targets ();
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_no_errno (g_mkdir_with_parents (project, 0700));
  agents_test_write_file (source, "from project");
  add_target (targets, "/workspace/file.txt",
              agents_local_file_new ("file.txt"));

  files = apply_batch (session, targets, project, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (files->len, ==, 1);
  g_assert_cmpstr (record_session_written (session, "/workspace/file.txt"), ==,
                   "from project");
  agents_test_rm_rf (tmp);
}

static guint
count_commands (RecordSession *session, const char *command)
{
  guint n = 0;

  for (guint i = 0; i < session->commands->len; i++)
    if (g_str_equal (g_ptr_array_index (session->commands, i), command))
      n++;
  return n;
}

/* APPLY-06 */
static void
test_provisions_groups_and_unique_users (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsUser) alice = agents_user_new ("alice");
  g_autoptr (AgentsUser) bob = agents_user_new ("bob");
  AgentsUser *members[] = { alice, bob };
  g_autoptr (AgentsGroup) dev = agents_group_new ("dev", members, 2);
  g_autoptr (AgentsManifestEntry) file = agents_file_new_from_text ("x");
  g_autoptr (RecordSession) session = NULL;
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GError) error = NULL;
  int groupadd;

  agents_manifest_add_user (manifest, alice);
  agents_manifest_add_group (manifest, dev);
  agents_manifest_set_entry (manifest, "file.txt", file);
  session = record_session_new (manifest);

  files = apply_manifest (session, FALSE, &error);
  g_assert_no_error (error);
  groupadd = record_session_find (session, "groupadd");
  g_assert_cmpint (groupadd, >=, 0);
  g_assert_cmpstr (g_ptr_array_index (session->commands, groupadd), ==,
                   "groupadd dev");
  /* No account command runs before groupadd dev. */
  for (int i = 0; i < groupadd; i++)
    {
      const char *command = g_ptr_array_index (session->commands, i);

      g_assert_false (g_str_has_prefix (command, "useradd"));
      g_assert_false (g_str_has_prefix (command, "usermod"));
    }
  g_assert_false (record_session_ran (session, "groupadd alice"));
  g_assert_false (record_session_ran (session, "groupadd bob"));
  g_assert_cmpuint (
    count_commands (session, "useradd -U -M -s /usr/sbin/nologin alice"), ==,
    1);
  g_assert_cmpuint (
    count_commands (session, "useradd -U -M -s /usr/sbin/nologin bob"), ==, 1);
  g_assert_true (record_session_ran (session, "usermod -aG dev alice"));
  g_assert_true (record_session_ran (session, "usermod -aG dev bob"));
  /* Accounts exist before the entries are written. */
  g_assert_cmpuint (session->writes->len, ==, 1);
}

/* APPLY-08 */
static void
test_provision_failure_carries_command_output (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsGroup) dev = agents_group_new ("dev", NULL, 0);
  g_autoptr (RecordSession) session = NULL;
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) context = NULL;
  g_autoptr (GVariant) command = NULL;
  g_autofree const char **argv = NULL;

  agents_manifest_add_group (manifest, dev);
  session = record_session_new (manifest);
  record_session_answer (session, "groupadd", 9, "groupadd output",
                         "groupadd failed");

  files = apply_manifest (session, FALSE, &error);
  g_assert_null (files);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_EXEC_NONZERO);
  g_assert_cmpstr (error->message, ==,
                   "stdout: groupadd output\nstderr: groupadd failed");
  agents_test_assert_context_str (error, "command_str", "groupadd dev");
  agents_test_assert_context_str (error, "stdout", "groupadd output");
  agents_test_assert_context_str (error, "stderr", "groupadd failed");
  context = agents_sandbox_error_get_context (error);
  command = g_variant_lookup_value (context, "command", G_VARIANT_TYPE ("as"));
  g_assert_nonnull (command);
  argv = g_variant_get_strv (command, NULL);
  g_assert_cmpuint (g_strv_length ((char **) argv), ==, 2);
  g_assert_cmpstr (argv[0], ==, "groupadd");
  g_assert_cmpstr (argv[1], ==, "dev");
}

static int
event_index (RecordSession *session, const char *event)
{
  for (guint i = 0; i < session->events->len; i++)
    if (g_str_equal (g_ptr_array_index (session->events, i), event))
      return (int) i;
  g_error ("no event “%s”", event);
}

/* APPLY-10 */
static void
test_batch_flushes_before_overlapping_paths (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (RecordSession) session = record_session_new (manifest);
  g_autoptr (GPtrArray) targets = new_targets ();
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GError) error = NULL;
  static const char *const order[] = {
    "/workspace/alpha.txt",
    "/workspace/beta.txt",
    "/workspace/nested/child.txt",
  };
  int child_start;

  add_target (targets, "/workspace/alpha.txt",
              agents_file_new_from_text ("alpha"));
  add_target (targets, "/workspace/beta.txt",
              agents_file_new_from_text ("beta"));
  add_target (targets, "/workspace/nested", agents_dir_new ());
  add_target (targets, "/workspace/nested/child.txt",
              agents_file_new_from_text ("child"));

  files = apply_batch (session, targets, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (files->len, ==, G_N_ELEMENTS (order));
  for (guint i = 0; i < G_N_ELEMENTS (order); i++)
    g_assert_cmpstr (
      ((AgentsMaterializedFile *) g_ptr_array_index (files, i))->path, ==,
      order[i]);
  child_start = event_index (session, "start /workspace/nested/child.txt");
  g_assert_cmpint (event_index (session, "end /workspace/alpha.txt"), <,
                   child_start);
  g_assert_cmpint (event_index (session, "end /workspace/beta.txt"), <,
                   child_start);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/reference-cases/APPLY-02",
                   test_only_ephemeral_reapplies_nested_children);
  g_test_add_func ("/reference-cases/APPLY-04",
                   test_respects_explicit_base_dir);
  g_test_add_func ("/reference-cases/APPLY-06",
                   test_provisions_groups_and_unique_users);
  g_test_add_func ("/reference-cases/APPLY-08",
                   test_provision_failure_carries_command_output);
  g_test_add_func ("/reference-cases/APPLY-10",
                   test_batch_flushes_before_overlapping_paths);

  return g_test_run ();
}
