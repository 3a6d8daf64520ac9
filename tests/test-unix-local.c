/* test-unix-local.c - the unix_local backend
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/openat2.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "agents-s3-mount.h"
#include "agents-sandbox-session-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-unix-local-client.h"
#include "agents-unix-local-confine.h"
#include "agents-unix-local-fs.h"
#include "agents-unix-local-session.h"
#include "test-utils.h"

#define PYTHON "/usr/bin/python3"

/* ---- synchronous wrappers ------------------------------------------- */

static AgentsSandboxSession *
create_session (AgentsSandboxClient *client,
                AgentsManifest *manifest,
                GVariant *options)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  AgentsSandboxSession *session;

  agents_sandbox_client_create_async (client, manifest, options, NULL, NULL,
                                      agents_test_async_cb, &result);
  session = agents_sandbox_client_create_finish (
    client, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_true (AGENTS_IS_UNIX_LOCAL_SESSION (session));
  return session;
}

static void
delete_session (AgentsSandboxClient *client, AgentsSandboxSession *session)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;

  agents_sandbox_client_delete_async (client, session, NULL,
                                      agents_test_async_cb, &result);
  g_assert_true (agents_sandbox_client_delete_finish (
    client, agents_test_wait_result (&result), &error));
  g_assert_no_error (error);
}

static gboolean
start_session (AgentsSandboxSession *session, GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  agents_sandbox_session_start_async (session, NULL, agents_test_async_cb,
                                      &result);
  return agents_sandbox_session_start_finish (
    session, agents_test_wait_result (&result), error);
}

static void
close_session (AgentsSandboxSession *session)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;

  agents_sandbox_session_close_async (session, NULL, agents_test_async_cb,
                                      &result);
  agents_sandbox_session_close_finish (
    session, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
}

static AgentsExecResult *
exec_shell_full (AgentsSandboxSession *session,
                 const char *script,
                 double timeout,
                 GCancellable *cancellable,
                 GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;
  const char *command[] = { script, NULL };

  agents_sandbox_session_exec_async (session, command, timeout, TRUE, NULL,
                                     cancellable, agents_test_async_cb,
                                     &result);
  return agents_sandbox_session_exec_finish (
    session, agents_test_wait_result (&result), error);
}

static AgentsExecResult *
exec_shell (AgentsSandboxSession *session, const char *script)
{
  g_autoptr (GError) error = NULL;
  AgentsExecResult *result = exec_shell_full (session, script, 0, NULL, &error);

  g_assert_no_error (error);
  return result;
}

static char *
stdout_text (AgentsExecResult *result)
{
  char *text = agents_exec_result_dup_stdout_text (result);

  return g_strstrip (text);
}

static gboolean
write_text (AgentsSandboxSession *session,
            const char *path,
            const char *text,
            GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GInputStream) data = g_memory_input_stream_new_from_data (
    g_strdup (text), strlen (text), g_free);

  agents_sandbox_session_write_async (session, path, data, NULL, NULL,
                                      agents_test_async_cb, &result);
  return agents_sandbox_session_write_finish (
    session, agents_test_wait_result (&result), error);
}

static char *
read_text (AgentsSandboxSession *session, const char *path, GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GInputStream) stream = NULL;
  g_autoptr (GOutputStream) out = g_memory_output_stream_new_resizable ();

  agents_sandbox_session_read_async (session, path, NULL, NULL,
                                     agents_test_async_cb, &result);
  stream = agents_sandbox_session_read_finish (
    session, agents_test_wait_result (&result), error);
  if (stream == NULL)
    return NULL;
  g_assert_cmpint (g_output_stream_splice (out, stream,
                                           G_OUTPUT_STREAM_SPLICE_CLOSE_SOURCE,
                                           NULL, NULL),
                   >=, 0);
  g_output_stream_write (out, "", 1, NULL, NULL);
  g_output_stream_close (out, NULL, NULL);
  return g_memory_output_stream_steal_data (G_MEMORY_OUTPUT_STREAM (out));
}

static gboolean
rm_path (AgentsSandboxSession *session,
         const char *path,
         gboolean recursive,
         GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  agents_sandbox_session_rm_async (session, path, recursive, NULL,
                                   agents_test_async_cb, &result);
  return agents_sandbox_session_rm_finish (
    session, agents_test_wait_result (&result), error);
}

static gboolean
mkdir_path (AgentsSandboxSession *session,
            const char *path,
            gboolean parents,
            GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  agents_sandbox_session_mkdir_async (session, path, parents, NULL,
                                      agents_test_async_cb, &result);
  return agents_sandbox_session_mkdir_finish (
    session, agents_test_wait_result (&result), error);
}

static gboolean
ls_path (AgentsSandboxSession *session, const char *path, GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;
  gpointer listing;

  agents_sandbox_session_ls_async (session, path, NULL, agents_test_async_cb,
                                   &result);
  listing = agents_sandbox_session_ls_finish (
    session, agents_test_wait_result (&result), error);
  /* Only failures are inspected here. */
  g_assert_null (listing);
  return FALSE;
}

static AgentsManifest *
manifest_with_root (const char *root)
{
  AgentsManifest *manifest = agents_manifest_new ();

  if (root != NULL)
    agents_manifest_set_root (manifest, root);
  return manifest;
}

static AgentsManifestEntry *
new_s3_mount (void)
{
  g_autoptr (AgentsMountPattern) pattern =
    agents_mountpoint_mount_pattern_new ();
  g_autoptr (AgentsMountStrategy) strategy =
    agents_in_container_mount_strategy_new (pattern);

  return agents_s3_mount_new ("bucket", strategy);
}

static AgentsSandboxSession *
session_from_state (AgentsManifest *manifest,
                    const char *snapshot_id,
                    GVariant *options)
{
  g_autoptr (AgentsSnapshot) snapshot = agents_noop_snapshot_new (snapshot_id);
  g_autoptr (AgentsSandboxSessionState) state =
    agents_unix_local_session_state_new (manifest, snapshot, FALSE);

  return AGENTS_SANDBOX_SESSION (
    agents_unix_local_session_new_from_state (state, options));
}

static GVariant *
confinement_options (const char *confinement, gboolean network)
{
  GVariantDict dict;

  g_variant_dict_init (&dict, NULL);
  g_variant_dict_insert (&dict, "confinement", "s", confinement);
  g_variant_dict_insert (&dict, "network", "b", network);
  return g_variant_ref_sink (g_variant_dict_end (&dict));
}

static void
assert_escape_error (GError *error)
{
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH);
  g_assert_nonnull (strstr (error->message, "must not escape root"));
}

/* Counts live processes whose argv is exactly @program @arg. */
static guint
count_processes (const char *program, const char *arg)
{
  g_autoptr (GDir) proc = g_dir_open ("/proc", 0, NULL);
  const char *name;
  guint count = 0;

  while (proc != NULL && (name = g_dir_read_name (proc)) != NULL)
    {
      g_autofree char *path = g_build_filename ("/proc", name, "cmdline", NULL);
      g_autofree char *cmdline = NULL;
      gsize length = 0;

      if (!g_ascii_isdigit (*name) ||
          !g_file_get_contents (path, &cmdline, &length, NULL) || length == 0)
        continue;
      if (g_str_has_suffix (cmdline, program) &&
          strlen (cmdline) + 1 < length &&
          g_str_equal (cmdline + strlen (cmdline) + 1, arg))
        count++;
    }
  return count;
}

/* A sleep duration no other test process uses, to find our sleepers. */
static char *
unique_seconds (guint salt)
{
  return g_strdup_printf ("%u", 1000000 + (guint) getpid () * 4 + salt);
}

static gboolean
wait_no_processes (const char *program, const char *arg)
{
  for (guint i = 0; i < 100; i++)
    {
      if (count_processes (program, arg) == 0)
        return TRUE;
      g_usleep (20 * 1000);
    }
  return FALSE;
}

static gboolean
mechanism_available (const char *name)
{
  const AgentsUnixLocalProbe *probe = agents_unix_local_confine_probe ();

  if (g_str_equal (name, "none"))
    return TRUE;
  if (g_str_equal (name, "bwrap"))
    return probe->bwrap_path != NULL;
  return probe->landlock_abi > 0 && probe->landlock_error == NULL;
}

static gboolean
skip_unless_available (const char *name)
{
  if (mechanism_available (name))
    return FALSE;
  g_test_skip ("this confinement mechanism is not usable here");
  return TRUE;
}

/* ---- unmount fakes (the reference monkeypatches S3Mount.unmount) ---- */

static GMutex calls_lock;
static GPtrArray *calls;
static gboolean unmount_fails;
static gboolean rmtree_called;

static void
record_call (const char *call)
{
  g_mutex_lock (&calls_lock);
  g_ptr_array_add (calls, g_strdup (call));
  g_mutex_unlock (&calls_lock);
}

static void
fake_unmount (AgentsMount *self,
              AgentsSandboxSession *session,
              const char *dest,
              const char *base_dir,
              GTask *task)
{
  if (unmount_fails)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_BUSY, "busy");
      return;
    }
  record_call ("unmount");
  record_call (dest);
  g_task_return_boolean (task, TRUE);
}

static gboolean
fake_rmtree (const char *path, GError **error)
{
  record_call ("rmtree");
  rmtree_called = TRUE;
  return agents_unix_local_rmtree (path, error);
}

static gboolean
fake_rmtree_noop (const char *path, GError **error)
{
  rmtree_called = TRUE;
  return TRUE;
}

typedef struct
{
  AgentsMountClass *klass;
  gpointer real_unmount;
} UnmountPatch;

static void
patch_unmount (UnmountPatch *patch)
{
  patch->klass = g_type_class_ref (AGENTS_TYPE_S3_MOUNT);
  patch->real_unmount = patch->klass->unmount;
  patch->klass->unmount = fake_unmount;
  calls = g_ptr_array_new_with_free_func (g_free);
  unmount_fails = FALSE;
  rmtree_called = FALSE;
}

static void
unpatch_unmount (UnmountPatch *patch)
{
  patch->klass->unmount = patch->real_unmount;
  g_type_class_unref (patch->klass);
  agents_unix_local_client_set_rmtree_func (NULL);
  g_clear_pointer (&calls, g_ptr_array_unref);
}

/* Only the "unmount"/"rmtree" markers, without the recorded paths. */
static char *
call_names (void)
{
  GString *names = g_string_new (NULL);

  for (guint i = 0; i < calls->len; i++)
    {
      const char *call = g_ptr_array_index (calls, i);

      if (*call == '/')
        continue;
      if (names->len > 0)
        g_string_append_c (names, ',');
      g_string_append (names, call);
    }
  return g_string_free (names, FALSE);
}

/* ---- ported reference tests ----------------------------------------- */

static void
test_client_rewrites_default_manifest_root_to_temp_workspace (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsManifestEntry) file = agents_file_new_from_text ("default");
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autofree char *workspace_root = NULL;
  g_autofree char *name = NULL;
  AgentsSandboxSessionState *session_state;
  AgentsManifest *session_manifest;

  agents_manifest_set_entry (manifest, "default.txt", file);
  session = create_session (client, manifest, NULL);
  session_state = agents_sandbox_session_peek_state (session);
  session_manifest = agents_sandbox_session_state_get_manifest (session_state);
  workspace_root = g_strdup (agents_manifest_get_root (session_manifest));
  name = g_path_get_basename (workspace_root);

  g_assert_true (session_manifest != manifest);
  g_assert_true (agents_manifest_entries_equal (session_manifest, manifest));
  g_assert_cmpstr (agents_manifest_get_root (session_manifest), !=,
                   agents_manifest_get_root (manifest));
  g_assert_true (g_path_is_absolute (workspace_root));
  g_assert_true (g_str_has_prefix (name, "sandbox-local-"));
  g_assert_true (AGENTS_IS_UNIX_LOCAL_SESSION_STATE (session_state));
  g_assert_true (agents_unix_local_session_state_get_workspace_root_owned (
    AGENTS_UNIX_LOCAL_SESSION_STATE (session_state)));
  g_assert_cmpstr (agents_manifest_get_root (manifest), ==, "/workspace");

  delete_session (client, session);
  g_assert_false (g_file_test (workspace_root, G_FILE_TEST_EXISTS));
}

static void
test_client_delete_unmounts_workspace_mounts_before_rmtree (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsManifestEntry) remote = new_s3_mount ();
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autofree char *workspace_root = NULL;
  g_autofree char *names = NULL;
  UnmountPatch patch;

  agents_manifest_set_entry (manifest, "remote", remote);
  session = create_session (client, manifest, NULL);
  workspace_root = g_strdup (
    agents_manifest_get_root (agents_sandbox_session_get_manifest (session)));
  patch_unmount (&patch);
  agents_unix_local_client_set_rmtree_func (fake_rmtree);

  delete_session (client, session);

  names = call_names ();
  g_assert_cmpstr (names, ==, "unmount,rmtree");
  g_assert_false (g_file_test (workspace_root, G_FILE_TEST_EXISTS));
  unpatch_unmount (&patch);
}

static void
test_client_delete_unmounts_nested_mounts_deepest_first (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsManifestEntry) outer = new_s3_mount ();
  g_autoptr (AgentsManifestEntry) child = new_s3_mount ();
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autofree char *outer_dest = NULL;
  g_autofree char *child_dest = NULL;
  const char *root;
  UnmountPatch patch;

  agents_manifest_set_entry (manifest, "outer", outer);
  agents_manifest_set_entry (manifest, "outer/child", child);
  session = create_session (client, manifest, NULL);
  patch_unmount (&patch);

  delete_session (client, session);

  root =
    agents_manifest_get_root (agents_sandbox_session_get_manifest (session));
  outer_dest = g_build_filename (root, "outer", NULL);
  child_dest = g_build_filename (root, "outer", "child", NULL);
  g_assert_cmpuint (calls->len, ==, 4);
  g_assert_cmpstr (g_ptr_array_index (calls, 1), ==, child_dest);
  g_assert_cmpstr (g_ptr_array_index (calls, 3), ==, outer_dest);
  unpatch_unmount (&patch);
}

static void
test_client_delete_skips_rmtree_when_unmount_fails (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsManifestEntry) remote = new_s3_mount ();
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autofree char *workspace_root = NULL;
  GLogLevelFlags fatal;
  UnmountPatch patch;

  agents_manifest_set_entry (manifest, "remote", remote);
  session = create_session (client, manifest, NULL);
  workspace_root = g_strdup (
    agents_manifest_get_root (agents_sandbox_session_get_manifest (session)));
  patch_unmount (&patch);
  unmount_fails = TRUE;
  agents_unix_local_client_set_rmtree_func (fake_rmtree_noop);

  /* delete logs a warning about the failed unmount. */
  fatal = g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  delete_session (client, session);
  g_log_set_always_fatal (fatal);

  g_assert_false (rmtree_called);
  g_assert_true (g_file_test (workspace_root, G_FILE_TEST_EXISTS));

  agents_test_rm_rf (workspace_root);
  unpatch_unmount (&patch);
}

static char **
tar_names (GBytes *payload)
{
  struct archive *a = archive_read_new ();
  struct archive_entry *entry;
  GPtrArray *names = g_ptr_array_new ();
  gsize size;
  gconstpointer data = g_bytes_get_data (payload, &size);

  archive_read_support_filter_all (a);
  archive_read_support_format_all (a);
  g_assert_cmpint (archive_read_open_memory (a, data, size), ==, ARCHIVE_OK);
  while (archive_read_next_header (a, &entry) == ARCHIVE_OK)
    {
      char *name = g_strdup (archive_entry_pathname (entry));

      /* Python's tarfile, which the reference reads with, drops the
       * trailing slashes of directory names. */
      while (archive_entry_filetype (entry) == AE_IFDIR && strlen (name) > 1 &&
             g_str_has_suffix (name, "/"))
        name[strlen (name) - 1] = '\0';
      g_ptr_array_add (names, name);
    }
  archive_read_free (a);
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_free (names, FALSE);
}

static void
test_persist_workspace_excludes_mounted_directory_contents (void)
{
  g_autofree char *workspace_root =
    agents_test_make_tmp_dir ("workspace-root-");
  g_autofree char *marker =
    g_build_filename (workspace_root, "logical", "marker.txt", NULL);
  g_autofree char *mounted =
    g_build_filename (workspace_root, "actual", "mounted.txt", NULL);
  g_autoptr (AgentsManifest) manifest = manifest_with_root (workspace_root);
  g_autoptr (AgentsManifestEntry) logical = new_s3_mount ();
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GInputStream) archive = NULL;
  g_autoptr (GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr (GBytes) payload = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) names = NULL;
  const char *expected[] = { ".", NULL };

  agents_test_write_file (marker, "logical");
  agents_test_write_file (mounted, "mounted");
  agents_mount_set_mount_path (AGENTS_MOUNT (logical), "actual");
  agents_manifest_set_entry (manifest, "logical", logical);
  session = session_from_state (manifest, "snapshot", NULL);

  agents_sandbox_session_persist_workspace_async (
    session, NULL, agents_test_async_cb, &result);
  archive = agents_sandbox_session_persist_workspace_finish (
    session, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
  g_output_stream_splice (out, archive,
                          G_OUTPUT_STREAM_SPLICE_CLOSE_SOURCE |
                            G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET,
                          NULL, &error);
  g_assert_no_error (error);
  payload =
    g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (out));
  names = tar_names (payload);
  agents_test_rm_rf (workspace_root);

  g_assert_cmpstrv (names, expected);
}

static void
test_client_delete_preserves_caller_owned_workspace_root (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autofree char *workspace_root = agents_test_make_tmp_dir ("caller-owned-");
  g_autoptr (AgentsManifest) manifest = manifest_with_root (workspace_root);
  g_autoptr (AgentsSandboxSession) session = NULL;

  session = create_session (client, manifest, NULL);
  g_assert_false (agents_unix_local_session_state_get_workspace_root_owned (
    AGENTS_UNIX_LOCAL_SESSION_STATE (
      agents_sandbox_session_peek_state (session))));

  delete_session (client, session);

  g_assert_true (g_file_test (workspace_root, G_FILE_TEST_IS_DIR));
  agents_test_rm_rf (workspace_root);
}

static void
test_read_and_write_reject_paths_outside_workspace_root (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autofree char *workspace_root =
    agents_test_make_tmp_dir ("workspace-root-");
  g_autoptr (AgentsManifest) manifest = manifest_with_root (workspace_root);
  g_autoptr (AgentsSandboxSession) session =
    create_session (client, manifest, NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;

  g_assert_false (write_text (session, "../secret.txt", "nope", &error));
  assert_escape_error (error);
  g_clear_error (&error);
  text = read_text (session, "../secret.txt", &error);
  g_assert_null (text);
  assert_escape_error (error);

  delete_session (client, session);
  agents_test_rm_rf (workspace_root);
}

/* Extracting garbage names the archive the caller gave, not the
 * temporary directory it was unpacked in first. */
static void
test_extract_garbage_names_the_archive (void)
{
  static const AgentsCompressionScheme schemes[] = {
    AGENTS_COMPRESSION_SCHEME_TAR,
    AGENTS_COMPRESSION_SCHEME_ZIP,
  };
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autofree char *workspace_root =
    agents_test_make_tmp_dir ("workspace-root-");
  g_autoptr (AgentsManifest) manifest = manifest_with_root (workspace_root);
  g_autoptr (AgentsSandboxSession) session =
    create_session (client, manifest, NULL);
  g_autofree char *archive =
    g_build_filename (workspace_root, "bundle.tar", NULL);

  for (guint i = 0; i < G_N_ELEMENTS (schemes); i++)
    {
      static const char garbage[] = "this is not an archive, not at all\n";
      g_autoptr (GInputStream) data =
        g_memory_input_stream_new_from_data (garbage, sizeof garbage - 1, NULL);
      g_autoptr (GAsyncResult) result = NULL;
      g_autoptr (GError) error = NULL;
      g_autoptr (GVariant) ctx = NULL;
      const char *path = NULL;

      agents_sandbox_session_extract_async (session, "bundle.tar", data,
                                            schemes[i], NULL,
                                            agents_test_async_cb, &result);
      g_assert_false (agents_sandbox_session_extract_finish (
        session, agents_test_wait_result (&result), &error));
      g_assert_error (error, AGENTS_SANDBOX_ERROR,
                      AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ);
      g_assert_null (strstr (error->message, "agents-extract"));
      g_assert_nonnull (strstr (error->message, archive));
      ctx = agents_sandbox_error_get_context (error);
      g_assert_true (g_variant_lookup (ctx, "path", "&s", &path));
      g_assert_cmpstr (path, ==, archive);
    }

  delete_session (client, session);
  agents_test_rm_rf (workspace_root);
}

static void
test_rm_recursive_ignores_missing_paths (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autofree char *workspace_root =
    agents_test_make_tmp_dir ("workspace-root-");
  g_autoptr (AgentsManifest) manifest = manifest_with_root (workspace_root);
  g_autoptr (AgentsSandboxSession) session =
    create_session (client, manifest, NULL);
  g_autoptr (GError) error = NULL;

  g_assert_true (rm_path (session, "missing-dir", TRUE, &error));
  g_assert_no_error (error);

  delete_session (client, session);
  agents_test_rm_rf (workspace_root);
}

static void
test_rm_non_recursive_still_errors_for_missing_paths (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autofree char *workspace_root =
    agents_test_make_tmp_dir ("workspace-root-");
  g_autoptr (AgentsManifest) manifest = manifest_with_root (workspace_root);
  g_autoptr (AgentsSandboxSession) session =
    create_session (client, manifest, NULL);
  g_autoptr (GError) error = NULL;

  g_assert_false (rm_path (session, "missing-dir", FALSE, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_EXEC_NONZERO);

  delete_session (client, session);
  agents_test_rm_rf (workspace_root);
}

static void
test_wrapped_helpers_reject_symlink_escape_paths (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autofree char *tmp_path = agents_test_make_tmp_dir ("unix-local-");
  g_autofree char *workspace_root =
    g_build_filename (tmp_path, "workspace", NULL);
  g_autofree char *outside = g_build_filename (tmp_path, "outside", NULL);
  g_autofree char *link = g_build_filename (workspace_root, "link", NULL);
  g_autofree char *nested = g_build_filename (outside, "nested", NULL);
  g_autoptr (AgentsManifest) manifest = manifest_with_root (workspace_root);
  g_autoptr (AgentsSandboxSession) session =
    create_session (client, manifest, NULL);
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (workspace_root, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (outside, 0755), ==, 0);
  g_assert_cmpint (symlink (outside, link), ==, 0);

  g_assert_false (mkdir_path (session, "link/nested", TRUE, &error));
  assert_escape_error (error);
  g_clear_error (&error);
  g_assert_false (ls_path (session, "link", &error));
  assert_escape_error (error);
  g_clear_error (&error);
  g_assert_false (rm_path (session, "link/file.txt", FALSE, &error));
  assert_escape_error (error);

  g_assert_false (g_file_test (nested, G_FILE_TEST_EXISTS));
  delete_session (client, session);
  agents_test_rm_rf (tmp_path);
}

static void
test_runner_rejects_manifest_user_and_group_provisioning (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autofree char *workspace_root =
    agents_test_make_tmp_dir ("unix-local-users-");
  g_autoptr (AgentsManifest) manifest = manifest_with_root (workspace_root);
  g_autoptr (AgentsUser) user = agents_user_new ("sandbox-user");
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GError) error = NULL;

  agents_manifest_add_user (manifest, user);
  session = create_session (client, manifest, NULL);

  g_assert_false (start_session (session, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (
    strstr (error->message, "does not support manifest users or groups"));

  agents_test_rm_rf (workspace_root);
}

static char *
which_nothing (const char *name, const char *path, gpointer user_data)
{
  return NULL;
}

static void
test_exec_rejects_when_confinement_is_unavailable (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autofree char *workspace_root =
    agents_test_make_tmp_dir ("unix-local-exec-");
  g_autoptr (AgentsManifest) manifest = manifest_with_root (workspace_root);
  g_autoptr (AgentsSandboxSession) session =
    create_session (client, manifest, NULL);
  AgentsUnixLocalProbeOverride override = { "darwin", which_nothing, NULL, -1 };
  g_autoptr (AgentsExecResult) result = NULL;
  g_autoptr (GError) error = NULL;

  agents_unix_local_confine_set_probe_override (&override);
  result = exec_shell_full (session, "pwd", 0, NULL, &error);
  agents_unix_local_confine_set_probe_override (NULL);
  agents_test_rm_rf (workspace_root);

  g_assert_null (result);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_EXEC_TRANSPORT);
  agents_test_assert_context_str (error, "reason",
                                  "unix_local_confinement_unavailable");
}

static void
test_exec_runs_without_wrapper_on_linux (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autofree char *workspace_root =
    agents_test_make_tmp_dir ("unix-local-exec-");
  g_autoptr (AgentsManifest) manifest = manifest_with_root (workspace_root);
  g_autoptr (AgentsSandboxSession) session =
    create_session (client, manifest, NULL);
  AgentsUnixLocalProbeOverride override = { "linux", NULL, NULL, -1 };
  g_autoptr (AgentsExecResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *resolved = realpath (workspace_root, NULL);
  g_autofree char *out = NULL;

  agents_unix_local_confine_set_probe_override (&override);
  g_assert_true (start_session (session, &error));
  g_assert_no_error (error);
  result = exec_shell (session, "pwd");
  close_session (session);
  agents_unix_local_confine_set_probe_override (NULL);
  agents_test_rm_rf (workspace_root);

  g_assert_true (agents_exec_result_ok (result));
  out = stdout_text (result);
  g_assert_cmpstr (out, ==, resolved);
}

static void
test_file_io_allows_extra_path_grant (void)
{
  g_autofree char *tmp_path = agents_test_make_tmp_dir ("unix-local-");
  g_autofree char *workspace_root =
    g_build_filename (tmp_path, "workspace", NULL);
  g_autofree char *allowed_root = g_build_filename (tmp_path, "allowed", NULL);
  g_autofree char *result_path =
    g_build_filename (allowed_root, "result.txt", NULL);
  g_autoptr (AgentsManifest) manifest = manifest_with_root (workspace_root);
  g_autoptr (AgentsSandboxPathGrant) grant =
    agents_sandbox_path_grant_new (allowed_root, FALSE, NULL);
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *payload = NULL;

  g_assert_cmpint (g_mkdir (workspace_root, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (allowed_root, 0755), ==, 0);
  agents_manifest_add_extra_path_grant (manifest, grant);
  session = session_from_state (manifest, "extra-path-grant", NULL);

  g_assert_true (write_text (session, result_path, "scratch output", &error));
  g_assert_no_error (error);
  payload = read_text (session, result_path, &error);
  g_assert_no_error (error);

  g_assert_cmpstr (payload, ==, "scratch output");
  agents_test_rm_rf (tmp_path);
}

/* A grant configured through a symlinked alias holds the paths of its
 * target (reference test_host_io_rejects_write_under_resolved_read_only_
 * extra_path_grant): reads there are allowed, writes refused as the
 * grant is read-only, the error naming the grant as configured. */
static void
test_file_io_matches_grant_through_symlinked_alias (void)
{
  g_autofree char *made = agents_test_make_tmp_dir ("unix-local-");
  g_autofree char *tmp_path = realpath (made, NULL);
  g_autofree char *workspace_root =
    g_build_filename (tmp_path, "workspace", NULL);
  g_autofree char *allowed_root = g_build_filename (tmp_path, "allowed", NULL);
  g_autofree char *alias = g_build_filename (tmp_path, "allowed-alias", NULL);
  g_autofree char *existing =
    g_build_filename (allowed_root, "existing.txt", NULL);
  g_autofree char *cache = g_build_filename (allowed_root, "cache.db", NULL);
  g_autofree char *message = NULL;
  g_autoptr (AgentsManifest) manifest = manifest_with_root (workspace_root);
  g_autoptr (AgentsSandboxPathGrant) grant =
    agents_sandbox_path_grant_new (alias, TRUE, NULL);
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *payload = NULL;

  g_assert_cmpint (g_mkdir (workspace_root, 0755), ==, 0);
  agents_test_write_file (existing, "readable");
  g_assert_cmpint (symlink (allowed_root, alias), ==, 0);
  agents_manifest_add_extra_path_grant (manifest, grant);
  session = session_from_state (manifest, "alias-extra-path-grant", NULL);

  payload = read_text (session, existing, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (payload, ==, "readable");

  g_assert_false (write_text (session, cache, "x", &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE);
  message = g_strdup_printf ("failed to write archive for path: %s", cache);
  g_assert_cmpstr (error->message, ==, message);
  agents_test_assert_context_str (error, "path", cache);
  agents_test_assert_context_str (error, "reason",
                                  "read_only_extra_path_grant");
  agents_test_assert_context_str (error, "grant_path", alias);
  g_assert_false (g_file_test (cache, G_FILE_TEST_EXISTS));
  agents_test_rm_rf (tmp_path);
}

static void
test_file_io_rejects_write_under_read_only_extra_path_grant (void)
{
  g_autofree char *tmp_path = agents_test_make_tmp_dir ("unix-local-");
  g_autofree char *workspace_root =
    g_build_filename (tmp_path, "workspace", NULL);
  g_autofree char *allowed_root = g_build_filename (tmp_path, "allowed", NULL);
  g_autofree char *existing =
    g_build_filename (allowed_root, "existing.txt", NULL);
  g_autofree char *result_path =
    g_build_filename (allowed_root, "result.txt", NULL);
  g_autofree char *message = NULL;
  g_autoptr (AgentsManifest) manifest = manifest_with_root (workspace_root);
  g_autoptr (AgentsSandboxPathGrant) grant =
    agents_sandbox_path_grant_new (allowed_root, TRUE, NULL);
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) context = NULL;
  g_autofree char *payload = NULL;

  g_assert_cmpint (g_mkdir (workspace_root, 0755), ==, 0);
  agents_test_write_file (existing, "readable");
  agents_manifest_add_extra_path_grant (manifest, grant);
  session = session_from_state (manifest, "read-only-extra-path-grant", NULL);

  payload = read_text (session, existing, &error);
  g_assert_no_error (error);
  g_assert_false (write_text (session, result_path, "scratch output", &error));

  g_assert_cmpstr (payload, ==, "readable");
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE);
  message =
    g_strdup_printf ("failed to write archive for path: %s", result_path);
  g_assert_cmpstr (error->message, ==, message);
  context = agents_sandbox_error_get_context (error);
  g_assert_cmpuint (g_variant_n_children (context), ==, 3);
  agents_test_assert_context_str (error, "path", result_path);
  agents_test_assert_context_str (error, "reason",
                                  "read_only_extra_path_grant");
  agents_test_assert_context_str (error, "grant_path", allowed_root);
  g_assert_false (g_file_test (result_path, G_FILE_TEST_EXISTS));
  agents_test_rm_rf (tmp_path);
}

/* macOS-only in the reference (sandbox-exec); the same intent with each
 * Linux mechanism. */
static void
test_exec_confines_commands_to_workspace_root (gconstpointer data)
{
  const char *mechanism = data;
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autofree char *workspace_root =
    agents_test_make_tmp_dir ("unix-local-exec-");
  g_autofree char *secret_dir = agents_test_make_tmp_dir ("unix-local-secret-");
  g_autofree char *secret = g_build_filename (secret_dir, "secret.txt", NULL);
  g_autofree char *parent = g_path_get_dirname (workspace_root);
  g_autofree char *sibling = g_build_filename (parent, "escape.txt", NULL);
  g_autofree char *read_secret = g_strdup_printf ("cat %s", secret);
  g_autoptr (GVariant) options = confinement_options (mechanism, FALSE);
  g_autoptr (AgentsManifest) manifest = manifest_with_root (workspace_root);
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (AgentsExecResult) result = NULL;
  g_autoptr (AgentsExecResult) forbidden = NULL;
  g_autoptr (AgentsExecResult) outside_write = NULL;
  g_autoptr (AgentsExecResult) escaped = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL;

  if (skip_unless_available (mechanism))
    goto out;
  agents_test_write_file (secret, "s3cr3t");
  session = create_session (client, manifest, options);
  g_assert_true (start_session (session, &error));
  g_assert_no_error (error);

  result = exec_shell (session, "echo hi > note.txt && cat note.txt");
  g_assert_true (agents_exec_result_ok (result));
  out = stdout_text (result);
  g_assert_true (g_str_has_suffix (out, "hi"));

  forbidden = exec_shell (session, read_secret);
  g_assert_false (agents_exec_result_ok (forbidden));

  outside_write = exec_shell (session, "echo nope > /usr/local/test-sandbox");
  g_assert_false (agents_exec_result_ok (outside_write));

  g_unlink (sibling);
  escaped = exec_shell (session, "echo nope > ../escape.txt");
  g_assert_false (agents_exec_result_ok (escaped));
  g_assert_false (g_file_test (sibling, G_FILE_TEST_EXISTS));

  close_session (session);
  delete_session (client, session);
out:
  agents_test_rm_rf (secret_dir);
  agents_test_rm_rf (workspace_root);
}

/* ---- more behaviour ------------------------------------------------- */

typedef struct
{
  AgentsSandboxClient *client;
  AgentsSandboxSession *session;
  char *root;
  const char *mechanism;
} Fixture;

static void
fixture_setup (Fixture *fixture, gconstpointer data)
{
  g_autoptr (GVariant) options = NULL;
  g_autoptr (AgentsManifest) manifest = NULL;

  fixture->mechanism = data;
  fixture->client = agents_unix_local_client_new ();
  fixture->root = agents_test_make_tmp_dir ("unix-local-exec-");
  if (!mechanism_available (fixture->mechanism))
    return;
  options = confinement_options (fixture->mechanism, FALSE);
  manifest = manifest_with_root (fixture->root);
  fixture->session = create_session (fixture->client, manifest, options);
}

static void
fixture_teardown (Fixture *fixture, gconstpointer data)
{
  if (fixture->session != NULL)
    {
      delete_session (fixture->client, fixture->session);
      g_assert_cmpuint (agents_unix_local_session_get_n_running (
                          AGENTS_UNIX_LOCAL_SESSION (fixture->session)),
                        ==, 0);
    }
  g_clear_object (&fixture->session);
  g_clear_object (&fixture->client);
  agents_test_rm_rf (fixture->root);
  g_free (fixture->root);
}

static AgentsSandboxSession *
fixture_session_with (Fixture *fixture, gboolean network)
{
  g_autoptr (GVariant) options =
    confinement_options (fixture->mechanism, network);
  g_autoptr (AgentsManifest) manifest = manifest_with_root (fixture->root);

  return create_session (fixture->client, manifest, options);
}

static void
test_network (Fixture *fixture, gconstpointer data)
{
  g_autoptr (GSocketListener) listener = g_socket_listener_new ();
  g_autoptr (AgentsSandboxSession) online = NULL;
  g_autoptr (AgentsExecResult) denied = NULL;
  g_autoptr (AgentsExecResult) allowed = NULL;
  g_autoptr (GInetAddress) lo =
    g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr (GSocketAddress) address = g_inet_socket_address_new (lo, 0);
  g_autoptr (GSocketAddress) effective = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *script = NULL;

  if (skip_unless_available (fixture->mechanism))
    return;
  if (!g_file_test (PYTHON, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("needs " PYTHON);
      return;
    }
  g_socket_listener_add_address (listener, address, G_SOCKET_TYPE_STREAM,
                                 G_SOCKET_PROTOCOL_TCP, NULL, &effective,
                                 &error);
  g_assert_no_error (error);
  script = g_strdup_printf (
    PYTHON " -c \"import socket; socket.create_connection(('127.0.0.1', %u), "
           "timeout=5)\"",
    g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (effective)));

  denied = exec_shell (fixture->session, script);
  g_assert_false (agents_exec_result_ok (denied));

  /* The "network" option lets the same connection through. */
  online = fixture_session_with (fixture, TRUE);
  allowed = exec_shell (online, script);
  g_assert_true (agents_exec_result_ok (allowed));
  delete_session (fixture->client, online);
  g_socket_listener_close (listener);
}

static void
test_pid_namespace (Fixture *fixture, gconstpointer data)
{
  g_autoptr (AgentsExecResult) result = NULL;
  g_autofree char *out = NULL;

  if (skip_unless_available (fixture->mechanism))
    return;
  result =
    exec_shell (fixture->session, "echo $$; ls /proc | grep -c '^[0-9]'");
  out = stdout_text (result);
  g_test_message ("pid and process count in the sandbox: %s", out);
  g_assert_cmpint (atoi (out), <, 10);
}

static void
test_timeout_kills_process_tree (Fixture *fixture, gconstpointer data)
{
  g_autofree char *seconds = NULL;
  g_autofree char *script = NULL;
  g_autoptr (AgentsExecResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) context = NULL;
  gint64 start = g_get_monotonic_time ();
  double timeout = 0;
  const char *command_str = NULL;

  if (skip_unless_available (fixture->mechanism))
    return;
  seconds = unique_seconds (0);
  script = g_strdup_printf ("sleep %s; sleep %s", seconds, seconds);
  result = exec_shell_full (fixture->session, script, 1.0, NULL, &error);

  g_assert_null (result);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_EXEC_TIMEOUT);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 4 * G_USEC_PER_SEC);
  context = agents_sandbox_error_get_context (error);
  g_assert_true (g_variant_lookup (context, "timeout", "d", &timeout));
  g_assert_cmpfloat (timeout, ==, 1.0);
  g_assert_true (g_variant_lookup (context, "command_str", "&s", &command_str));
  g_assert_nonnull (strstr (command_str, script));
  g_assert_true (g_variant_lookup (context, "command", "^a&s", NULL));
  g_assert_true (wait_no_processes ("sleep", seconds));
}

static gboolean
cancel_later (gpointer user_data)
{
  g_cancellable_cancel (user_data);
  return G_SOURCE_REMOVE;
}

static void
test_cancel_kills_command (Fixture *fixture, gconstpointer data)
{
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autofree char *seconds = unique_seconds (1);
  g_autofree char *script = g_strdup_printf ("sleep %s", seconds);
  g_autoptr (AgentsExecResult) result = NULL;
  g_autoptr (GError) error = NULL;

  if (skip_unless_available (fixture->mechanism))
    return;
  g_timeout_add (300, cancel_later, cancellable);
  result = exec_shell_full (fixture->session, script, 0, cancellable, &error);

  g_assert_null (result);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_true (wait_no_processes ("sleep", seconds));
}

static void
test_output_is_capped (Fixture *fixture, gconstpointer data)
{
  g_autoptr (AgentsExecResult) result = NULL;
  g_autofree char *err = NULL;

  if (skip_unless_available (fixture->mechanism))
    return;
  agents_unix_local_session_set_output_limit (
    AGENTS_UNIX_LOCAL_SESSION (fixture->session), 1024 * 1024);
  result =
    exec_shell (fixture->session, "head -c 5000000 /dev/zero; echo done >&2");

  g_assert_cmpint (agents_exec_result_get_exit_code (result), ==, 0);
  g_assert_cmpuint (g_bytes_get_size (agents_exec_result_get_stdout (result)),
                    ==, 1024 * 1024);
  err = agents_exec_result_dup_stderr_text (result);
  g_assert_true (g_str_has_prefix (err, "done\n"));
  g_assert_nonnull (strstr (err, "stdout truncated: 3951424 bytes discarded"));
}

static void
test_home_is_not_readable (Fixture *fixture, gconstpointer data)
{
  g_autofree char *script = g_strdup_printf ("ls -a %s", g_get_home_dir ());
  g_autoptr (AgentsExecResult) result = NULL;
  g_autoptr (AgentsExecResult) home = NULL;
  g_autofree char *out = NULL;
  g_autofree char *resolved = realpath (fixture->root, NULL);

  if (skip_unless_available (fixture->mechanism))
    return;
  if (g_str_has_prefix (fixture->root, g_get_home_dir ()))
    {
      g_test_skip ("the temporary directory is in $HOME");
      return;
    }
  result = exec_shell (fixture->session, script);
  g_assert_false (agents_exec_result_ok (result));

  /* HOME is the workspace. */
  home = exec_shell (fixture->session, "echo $HOME");
  out = stdout_text (home);
  g_assert_cmpstr (out, ==, resolved);
}

static void
test_confinement_none (Fixture *fixture, gconstpointer data)
{
  g_autoptr (AgentsExecResult) result = NULL;
  g_autofree char *out = NULL;
  g_autofree char *resolved = realpath (fixture->root, NULL);
  g_autofree char *expected =
    g_strdup_printf ("%s\n%s\n/dev/null\nnon", resolved, resolved);

  result = exec_shell (fixture->session,
                       "pwd; echo $HOME; readlink -f /proc/self/fd/0; "
                       "echo $DEBIAN_FRONTEND | head -c 3");
  g_assert_true (agents_exec_result_ok (result));
  out = agents_exec_result_dup_stdout_text (result);
  g_assert_cmpstr (out, ==, expected);
}

static void
test_delete_leaves_nothing_behind (Fixture *fixture, gconstpointer data)
{
  g_autoptr (GVariant) options = NULL;
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (AgentsExecResult) tmp = NULL;
  g_autoptr (GAsyncResult) pending = NULL;
  g_autoptr (AgentsExecResult) killed = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *root = NULL;
  g_autofree char *tmp_dir = NULL;
  g_autofree char *seconds = unique_seconds (2);
  g_autofree char *script = g_strdup_printf ("sleep %s", seconds);
  const char *sleeper[] = { script, NULL };

  if (skip_unless_available (fixture->mechanism))
    return;
  options = confinement_options (fixture->mechanism, FALSE);
  session = create_session (fixture->client, manifest, options);
  root = g_strdup (
    agents_manifest_get_root (agents_sandbox_session_get_manifest (session)));
  g_assert_true (start_session (session, &error));
  g_assert_no_error (error);
  tmp = exec_shell (session, "echo $TMPDIR; echo x > \"$TMPDIR/x\"");
  tmp_dir = stdout_text (tmp);

  agents_sandbox_session_exec_async (session, sleeper, 0, TRUE, NULL, NULL,
                                     agents_test_async_cb, &pending);
  while (count_processes ("sleep", seconds) == 0)
    g_main_context_iteration (NULL, FALSE);

  delete_session (fixture->client, session);
  killed = agents_sandbox_session_exec_finish (
    session, agents_test_wait_result (&pending), &error);
  g_assert_no_error (error);
  g_assert_cmpint (agents_exec_result_get_exit_code (killed), ==, 128 + 9);

  g_assert_true (wait_no_processes ("sleep", seconds));
  g_assert_false (g_file_test (root, G_FILE_TEST_EXISTS));
  if (!g_str_equal (fixture->mechanism, "bwrap"))
    g_assert_false (g_file_test (tmp_dir, G_FILE_TEST_EXISTS));
}

/* ---- state, client, registry ---------------------------------------- */

static void
test_state_json_round_trip (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autoptr (AgentsManifest) manifest = manifest_with_root ("/srv/ws");
  g_autoptr (AgentsSandboxSessionState) state =
    agents_unix_local_session_state_new (manifest, NULL, TRUE);
  g_autoptr (JsonNode) node =
    agents_sandbox_client_serialize_session_state (client, state);
  g_autoptr (AgentsSandboxSessionState) back = NULL;
  g_autoptr (JsonNode) other = NULL;
  g_autoptr (GError) error = NULL;
  JsonObject *object = json_node_get_object (node);

  g_assert_cmpstr (json_object_get_string_member (object, "type"), ==,
                   "unix_local");
  g_assert_true (
    json_object_get_boolean_member (object, "workspace_root_owned"));
  back = agents_sandbox_client_deserialize_session_state (client, node, &error);
  g_assert_no_error (error);
  g_assert_true (AGENTS_IS_UNIX_LOCAL_SESSION_STATE (back));
  g_assert_true (agents_unix_local_session_state_get_workspace_root_owned (
    AGENTS_UNIX_LOCAL_SESSION_STATE (back)));
  g_assert_cmpstr (agents_sandbox_session_state_get_session_id (back), ==,
                   agents_sandbox_session_state_get_session_id (state));
  g_assert_cmpstr (
    agents_manifest_get_root (agents_sandbox_session_state_get_manifest (back)),
    ==, "/srv/ws");

  other =
    json_from_string ("{\"type\": \"docker\", \"session_id\": \"x\"}", NULL);
  g_clear_object (&back);
  back =
    agents_sandbox_client_deserialize_session_state (client, other, &error);
  g_assert_null (back);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_JSON);
}

static void
test_client_basics (void)
{
  g_autoptr (AgentsSandboxClient) client = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) bad = confinement_options ("chroot", FALSE);
  g_autoptr (AgentsManifest) manifest = manifest_with_root ("/srv/ws");
  g_autoptr (GAsyncResult) result = NULL;
  AgentsSandboxSession *session;

  agents_unix_local_register_types ();
  client = agents_registry_new_sandbox_client ("unix_local", &error);
  g_assert_no_error (error);
  g_assert_true (AGENTS_IS_UNIX_LOCAL_CLIENT (client));
  g_assert_cmpstr (
    agents_sandbox_client_get_backend_id (AGENTS_SANDBOX_CLIENT (client)), ==,
    "unix_local");
  g_assert_true (agents_sandbox_client_supports_default_options (
    AGENTS_SANDBOX_CLIENT (client)));
  g_assert_true (agents_registry_lookup (AGENTS_REGISTRY_KIND_SESSION_STATE,
                                         "unix_local", &error) ==
                 AGENTS_TYPE_UNIX_LOCAL_SESSION_STATE);

  /* Unknown confinement names are refused when the session is made. */
  agents_sandbox_client_create_async (AGENTS_SANDBOX_CLIENT (client), manifest,
                                      bad, NULL, NULL, agents_test_async_cb,
                                      &result);
  session = agents_sandbox_client_create_finish (
    AGENTS_SANDBOX_CLIENT (client), agents_test_wait_result (&result), &error);
  g_assert_null (session);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
}

static gboolean
have_openat2 (void)
{
  struct open_how how = { .flags = O_PATH | O_CLOEXEC };
  int fd = syscall (SYS_openat2, AT_FDCWD, "/", &how, sizeof how);

  if (fd >= 0)
    close (fd);
  return fd >= 0;
}

/* Host-side file I/O never follows a symlink out of the workspace. */
static void
test_file_io_symlinks (gconstpointer data)
{
  /* Valgrind, for one, does not know openat2(). */
  gboolean without_openat2 = GPOINTER_TO_INT (data) || !have_openat2 ();
  g_autofree char *tmp = agents_test_make_tmp_dir ("unix-local-");
  g_autofree char *root = g_build_filename (tmp, "ws", NULL);
  g_autofree char *outside = g_build_filename (tmp, "outside", NULL);
  g_autofree char *secret = g_build_filename (outside, "secret.txt", NULL);
  g_autofree char *planted = g_build_filename (outside, "new.txt", NULL);
  g_autofree char *link = g_build_filename (root, "link", NULL);
  g_autofree char *inner = g_build_filename (root, "inner", NULL);
  g_autofree char *victim = g_build_filename (outside, "victim.txt", NULL);
  g_autofree char *trap = g_build_filename (root, "trap.txt", NULL);
  g_autofree char *missing = g_build_filename (root, "missing.txt", NULL);
  g_autoptr (AgentsManifest) manifest = manifest_with_root (root);
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *victim_text = NULL;

  agents_test_write_file (secret, "s3cr3t");
  agents_test_write_file (victim, "untouched");
  g_assert_cmpint (g_mkdir (root, 0755), ==, 0);
  g_assert_cmpint (symlink (outside, link), ==, 0);
  g_assert_cmpint (symlink ("sub", inner), ==, 0);
  g_assert_cmpint (symlink (victim, trap), ==, 0);
  session = session_from_state (manifest, "symlinks", NULL);
  agents_unix_local_session_set_openat2_disabled_for_testing (without_openat2);

  /* Parents are created; a symlink inside the workspace is fine, except
   * without openat2(), where every symlink is refused. */
  g_assert_true (write_text (session, "sub/dir/new.txt", "hello", &error));
  g_assert_no_error (error);
  text = read_text (session, "inner/dir/new.txt", &error);
  if (without_openat2)
    {
      assert_escape_error (error);
      g_clear_error (&error);
    }
  else
    {
      g_assert_no_error (error);
      g_assert_cmpstr (text, ==, "hello");
    }
  g_clear_pointer (&text, g_free);

  text = read_text (session, "link/secret.txt", &error);
  g_assert_null (text);
  assert_escape_error (error);
  g_clear_error (&error);
  g_assert_false (write_text (session, "link/new.txt", "nope", &error));
  assert_escape_error (error);
  g_clear_error (&error);
  g_assert_false (g_file_test (planted, G_FILE_TEST_EXISTS));

  /* Writing replaces a symlink rather than writing through it. */
  g_assert_true (write_text (session, "trap.txt", "replaced", &error));
  g_assert_no_error (error);
  victim_text = agents_test_read_file (victim);
  g_assert_cmpstr (victim_text, ==, "untouched");
  g_assert_false (g_file_test (trap, G_FILE_TEST_IS_SYMLINK));

  text = read_text (session, "missing.txt", &error);
  g_assert_null (text);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_WORKSPACE_READ_NOT_FOUND);
  agents_test_assert_context_str (error, "path", missing);

  agents_unix_local_session_set_openat2_disabled_for_testing (FALSE);
  agents_test_rm_rf (tmp);
}

/* ---- ls, mkdir and rm on the host ----------------------------------- */

static GListModel *
ls_listing (AgentsSandboxSession *session, const char *path, GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  agents_sandbox_session_ls_async (session, path, NULL, agents_test_async_cb,
                                   &result);
  return agents_sandbox_session_ls_finish (
    session, agents_test_wait_result (&result), error);
}

static AgentsFileEntry *
listing_entry (GListModel *listing, const char *path)
{
  for (guint i = 0; i < g_list_model_get_n_items (listing); i++)
    {
      g_autoptr (AgentsFileEntry) entry = g_list_model_get_item (listing, i);

      if (g_str_equal (agents_file_entry_get_path (entry), path))
        return entry;
    }
  return NULL;
}

/* The error of the command the operation stands for: its argv, exit
 * status and coreutils-like stderr. */
static void
assert_command_error (GError *error,
                      const char *const *argv,
                      int exit_code,
                      const char *stderr_text)
{
  g_autoptr (GVariant) context = NULL;
  g_autoptr (GVariant) expected = NULL;
  g_autoptr (GVariant) command = NULL;
  gint32 code = -1;

  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_EXEC_NONZERO);
  context = agents_sandbox_error_get_context (error);
  command = g_variant_lookup_value (context, "command", NULL);
  expected = g_variant_ref_sink (agents_sandbox_error_argv_variant (argv));
  g_assert_nonnull (command);
  g_assert_true (g_variant_equal (command, expected));
  g_assert_true (g_variant_lookup (context, "exit_code", "i", &code));
  g_assert_cmpint (code, ==, exit_code);
  agents_test_assert_context_str (error, "stderr", stderr_text);
}

static char *
current_user_name (void)
{
  struct passwd *pw = getpwuid (getuid ());

  return pw != NULL ? g_strdup (pw->pw_name)
                    : g_strdup_printf ("%u", (guint) getuid ());
}

/* ls lists exact names through descriptors: a name with a newline is one
 * entry, a file lists as itself, nothing outside is ever listed. */
static void
test_host_ls (gconstpointer data)
{
  gboolean without_openat2 = GPOINTER_TO_INT (data);
  g_autofree char *tmp = agents_test_make_tmp_dir ("unix-local-");
  g_autofree char *root = g_build_filename (tmp, "ws", NULL);
  g_autofree char *outside = g_build_filename (tmp, "outside", NULL);
  g_autofree char *dir = g_build_filename (root, "dir", NULL);
  g_autofree char *a = g_build_filename (dir, "a.txt", NULL);
  g_autofree char *odd =
    g_build_filename (dir, "x\n-rw-r--r-- 1 a b 9 forged", NULL);
  g_autofree char *sub = g_build_filename (dir, "sub", NULL);
  g_autofree char *link = g_build_filename (dir, "link", NULL);
  g_autofree char *out = g_build_filename (root, "out", NULL);
  g_autofree char *canary = g_build_filename (outside, "canary.txt", NULL);
  g_autofree char *missing = g_build_filename (root, "missing", NULL);
  g_autofree char *missing_stderr = g_strdup_printf (
    "ls: cannot access '%s': No such file or directory\n", missing);
  g_autofree char *user = current_user_name ();
  const char *ls_missing[] = { "ls", "-la", "--", missing, NULL };
  g_autoptr (AgentsManifest) manifest = manifest_with_root (root);
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GListModel) listing = NULL;
  g_autoptr (GError) error = NULL;
  AgentsFileEntry *entry;

  agents_test_write_file (a, "12345");
  agents_test_write_file (odd, "odd");
  agents_test_write_file (canary, "canary");
  g_assert_cmpint (g_mkdir (sub, 0750), ==, 0);
  g_assert_cmpint (symlink ("a.txt", link), ==, 0);
  g_assert_cmpint (symlink (outside, out), ==, 0);
  session = session_from_state (manifest, "host-ls", NULL);
  agents_unix_local_session_set_openat2_disabled_for_testing (without_openat2);

  listing = ls_listing (session, "dir", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_model_get_n_items (listing), ==, 4);
  entry = listing_entry (listing, a);
  g_assert_nonnull (entry);
  g_assert_cmpint (agents_file_entry_get_kind (entry), ==,
                   AGENTS_ENTRY_KIND_FILE);
  g_assert_cmpuint (agents_file_entry_get_size (entry), ==, 5);
  g_assert_cmpstr (agents_file_entry_get_owner (entry), ==, user);
  g_assert_nonnull (listing_entry (listing, odd));
  entry = listing_entry (listing, sub);
  g_assert_nonnull (entry);
  g_assert_true (agents_file_entry_is_dir (entry));
  g_assert_cmpuint (
    agents_permissions_to_mode (agents_file_entry_get_permissions (entry)) &
      0777,
    ==, 0750);
  entry = listing_entry (listing, link);
  g_assert_nonnull (entry);
  g_assert_cmpint (agents_file_entry_get_kind (entry), ==,
                   AGENTS_ENTRY_KIND_SYMLINK);
  g_clear_object (&listing);

  /* A file lists as itself. */
  listing = ls_listing (session, "dir/a.txt", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_model_get_n_items (listing), ==, 1);
  g_assert_nonnull (listing_entry (listing, a));
  g_clear_object (&listing);

  g_assert_null (ls_listing (session, "missing", &error));
  assert_command_error (error, ls_missing, 2, missing_stderr);
  g_clear_error (&error);
  g_assert_null (ls_listing (session, "out", &error));
  assert_escape_error (error);
  g_clear_error (&error);
  g_assert_null (ls_listing (session, "out/canary.txt", &error));
  assert_escape_error (error);

  agents_unix_local_session_set_openat2_disabled_for_testing (FALSE);
  agents_test_rm_rf (tmp);
}

static void
test_host_mkdir_rm (gconstpointer data)
{
  gboolean without_openat2 = GPOINTER_TO_INT (data);
  g_autofree char *tmp = agents_test_make_tmp_dir ("unix-local-");
  g_autofree char *root = g_build_filename (tmp, "ws", NULL);
  g_autofree char *outside = g_build_filename (tmp, "outside", NULL);
  g_autofree char *canary = g_build_filename (outside, "canary.txt", NULL);
  g_autofree char *abc = g_build_filename (root, "a", "b", "c", NULL);
  g_autofree char *tree = g_build_filename (root, "tree", NULL);
  g_autofree char *tree_f = g_build_filename (tree, "f.txt", NULL);
  g_autofree char *tree_g = g_build_filename (tree, "d", "g.txt", NULL);
  g_autofree char *tree_dl = g_build_filename (tree, "dl", NULL);
  g_autofree char *tree_fl = g_build_filename (tree, "fl", NULL);
  g_autofree char *out = g_build_filename (root, "out", NULL);
  g_autofree char *outside_new = g_build_filename (outside, "new", NULL);
  g_autofree char *missing = g_build_filename (root, "missing", NULL);
  g_autofree char *exists_stderr =
    g_strdup_printf ("mkdir: cannot create directory '%s': File exists\n", abc);
  g_autofree char *missing_stderr = g_strdup_printf (
    "rm: cannot remove '%s': No such file or directory\n", missing);
  g_autofree char *dir_stderr =
    g_strdup_printf ("rm: cannot remove '%s': Is a directory\n", tree);
  const char *mkdir_abc[] = { "mkdir", "--", abc, NULL };
  const char *rm_missing[] = { "rm", "--", missing, NULL };
  const char *rm_tree[] = { "rm", "--", tree, NULL };
  g_autoptr (AgentsManifest) manifest = manifest_with_root (root);
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GListModel) listing = NULL;
  g_autoptr (GError) error = NULL;

  agents_test_write_file (canary, "canary");
  agents_test_write_file (tree_f, "f");
  agents_test_write_file (tree_g, "g");
  g_assert_cmpint (symlink (outside, tree_dl), ==, 0);
  g_assert_cmpint (symlink (canary, tree_fl), ==, 0);
  g_assert_cmpint (symlink (outside, out), ==, 0);
  session = session_from_state (manifest, "host-mkdir-rm", NULL);
  agents_unix_local_session_set_openat2_disabled_for_testing (without_openat2);

  g_assert_true (mkdir_path (session, "a/b/c", TRUE, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (abc, G_FILE_TEST_IS_DIR));
  g_assert_true (mkdir_path (session, "a/b/c", TRUE, &error));
  g_assert_no_error (error);
  g_assert_false (mkdir_path (session, "a/b/c", FALSE, &error));
  assert_command_error (error, mkdir_abc, 1, exists_stderr);
  g_clear_error (&error);
  g_assert_false (mkdir_path (session, "out/new", TRUE, &error));
  assert_escape_error (error);
  g_clear_error (&error);
  g_assert_false (mkdir_path (session, "out/new", FALSE, &error));
  assert_escape_error (error);
  g_clear_error (&error);
  g_assert_false (g_file_test (outside_new, G_FILE_TEST_EXISTS));

  g_assert_false (rm_path (session, "missing", FALSE, &error));
  assert_command_error (error, rm_missing, 1, missing_stderr);
  g_clear_error (&error);
  g_assert_false (rm_path (session, "tree", FALSE, &error));
  assert_command_error (error, rm_tree, 1, dir_stderr);
  g_clear_error (&error);
  g_assert_false (rm_path (session, "out/canary.txt", TRUE, &error));
  assert_escape_error (error);
  g_clear_error (&error);

  /* Symlinks in a removed tree are unlinked, never followed. */
  g_assert_true (rm_path (session, "tree", TRUE, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (tree, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (canary, G_FILE_TEST_IS_REGULAR));

  /* The root is emptied but stays. */
  g_assert_true (rm_path (session, ".", TRUE, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (root, G_FILE_TEST_IS_DIR));
  listing = ls_listing (session, ".", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_model_get_n_items (listing), ==, 0);
  g_assert_true (g_file_test (canary, G_FILE_TEST_IS_REGULAR));

  agents_unix_local_session_set_openat2_disabled_for_testing (FALSE);
  agents_test_rm_rf (tmp);
}

static void
test_host_ops_respect_read_only_grants (void)
{
  g_autofree char *tmp = agents_test_make_tmp_dir ("unix-local-");
  g_autofree char *root = g_build_filename (tmp, "ws", NULL);
  g_autofree char *ro = g_build_filename (tmp, "ro", NULL);
  g_autofree char *file = g_build_filename (ro, "kept.txt", NULL);
  g_autofree char *newdir = g_build_filename (ro, "new", NULL);
  g_autoptr (AgentsManifest) manifest = manifest_with_root (root);
  g_autoptr (AgentsSandboxPathGrant) grant =
    agents_sandbox_path_grant_new (ro, TRUE, NULL);
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GListModel) listing = NULL;
  g_autoptr (GError) error = NULL;

  agents_test_write_file (file, "kept");
  agents_manifest_add_extra_path_grant (manifest, grant);
  session = session_from_state (manifest, "host-ro-grant", NULL);

  listing = ls_listing (session, ro, &error);
  g_assert_no_error (error);
  g_assert_nonnull (listing_entry (listing, file));
  g_assert_false (mkdir_path (session, newdir, TRUE, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE);
  agents_test_assert_context_str (error, "reason",
                                  "read_only_extra_path_grant");
  g_clear_error (&error);
  g_assert_false (rm_path (session, file, TRUE, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE);
  g_assert_false (g_file_test (newdir, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (file, G_FILE_TEST_IS_REGULAR));
  agents_test_rm_rf (tmp);
}

typedef struct
{
  char *a;
  char *b;
  gint stop;
} Renamer;

static gpointer
renamer_thread (gpointer data)
{
  Renamer *renamer = data;

  while (!g_atomic_int_get (&renamer->stop))
    if (g_rename (renamer->a, renamer->b) == 0)
      g_rename (renamer->b, renamer->a);
  return NULL;
}

/* openat2() fails with EAGAIN when any rename races with a lookup of
 * "..": that must never pass for "missing", let alone "inside". */
static void
test_open_beneath_during_renames (void)
{
  g_autofree char *tmp = agents_test_make_tmp_dir ("unix-local-");
  g_autofree char *root = g_build_filename (tmp, "ws", NULL);
  g_autofree char *sub = g_build_filename (root, "sub", NULL);
  g_autofree char *canary =
    g_build_filename (tmp, "outside", "canary.txt", NULL);
  g_autofree char *esc = g_build_filename (sub, "esc", NULL);
  g_autoptr (GString) target = g_string_new (NULL);
  g_autoptr (AgentsManifest) manifest = manifest_with_root (root);
  g_autoptr (AgentsSandboxSession) session = NULL;
  Renamer renamer = { 0 };
  GThread *thread;
  int root_fd;

  renamer.a = g_build_filename (root, "churn", "a", NULL);
  renamer.b = g_build_filename (root, "churn", "b", NULL);
  agents_test_write_file (canary, "canary");
  agents_test_write_file (renamer.a, "a");
  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  /* Many ".." below the root before it leaves. */
  for (guint i = 0; i < 500; i++)
    g_string_append (target, "../sub/");
  g_string_append (target, "../../outside");
  g_assert_cmpint (symlink (target->str, esc), ==, 0);
  thread = g_thread_new ("renamer", renamer_thread, &renamer);

  root_fd = open (root, O_PATH | O_DIRECTORY | O_CLOEXEC);
  g_assert_cmpint (root_fd, >=, 0);
  for (guint i = 0; i < 300; i++)
    {
      int fd = agents_unix_local_open_beneath (root_fd, "sub/esc/canary.txt",
                                               O_RDONLY, 0);
      int err = errno;

      g_assert_cmpint (fd, <, 0);
      g_assert_true (agents_unix_local_is_escape_errno (err));
    }
  close (root_fd);

  session = session_from_state (manifest, "renames", NULL);
  for (guint i = 0; i < 30; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *text = read_text (session, "sub/esc/canary.txt", &error);

      g_assert_null (text);
      assert_escape_error (error);
      g_clear_error (&error);
      g_assert_false (mkdir_path (session, "sub/esc/new", TRUE, &error));
      assert_escape_error (error);
    }

  g_atomic_int_set (&renamer.stop, 1);
  g_thread_join (thread);
  g_free (renamer.a);
  g_free (renamer.b);
  agents_test_rm_rf (tmp);
}

/* A session whose resume fails to restore its snapshot never persists
 * over it (issue 15, finding 14): the snapshot stays for another try. */
static void
test_failed_restore_keeps_snapshot (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autofree char *workspace_root = agents_test_make_tmp_dir ("unix-local-ws-");
  g_autofree char *snapshots = agents_test_make_tmp_dir ("unix-local-snap-");
  g_autoptr (AgentsManifest) manifest = manifest_with_root (workspace_root);
  g_autoptr (AgentsLocalSnapshotSpec) spec =
    agents_local_snapshot_spec_new (snapshots);
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (AgentsSandboxSession) resumed = NULL;
  g_autoptr (AgentsSandboxSessionState) state = NULL;
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (JsonNode) json = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *tar = NULL;
  g_autofree char *after = NULL;
  const char *broken = "not a tar archive, but the only copy of the work";

  agents_sandbox_client_create_async (client, manifest, NULL, G_OBJECT (spec),
                                      NULL, agents_test_async_cb, &result);
  session = agents_sandbox_client_create_finish (
    client, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
  g_clear_object (&result);
  g_assert_true (start_session (session, &error));
  g_assert_true (write_text (session, "a.txt", "alpha", &error));
  g_assert_no_error (error);
  close_session (session);
  json = agents_sandbox_client_serialize_session_state (
    client, agents_sandbox_session_peek_state (session));
  tar = agents_local_snapshot_dup_archive_path (
    AGENTS_LOCAL_SNAPSHOT (agents_sandbox_session_state_get_snapshot (
      agents_sandbox_session_peek_state (session))));
  delete_session (client, session);
  /* The archive cannot be restored (damaged, or refused). */
  g_assert_true (g_file_set_contents (tar, broken, -1, NULL));

  state =
    agents_sandbox_client_deserialize_session_state (client, json, &error);
  g_assert_no_error (error);
  agents_sandbox_session_state_set_root_vouched (state, TRUE);
  agents_sandbox_client_resume_async (client, state, NULL, agents_test_async_cb,
                                      &result);
  resumed = agents_sandbox_client_resume_finish (
    client, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_false (start_session (resumed, &error));
  g_assert_nonnull (error);
  g_test_message ("restore failed: %s", error->message);
  close_session (resumed);
  delete_session (client, resumed);

  g_assert_true (g_file_get_contents (tar, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, broken);

  agents_test_rm_rf (workspace_root);
  agents_test_rm_rf (snapshots);
}

/* Resumes @json (a serialized state, never vouched for) and returns the
 * error. */
static GError *
resume_error (AgentsSandboxClient *client, JsonNode *json)
{
  g_autoptr (AgentsSandboxSessionState) state = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GAsyncResult) result = NULL;
  GError *error = NULL;

  state =
    agents_sandbox_client_deserialize_session_state (client, json, &error);
  g_assert_no_error (error);
  agents_sandbox_client_resume_async (client, state, NULL, agents_test_async_cb,
                                      &result);
  session = agents_sandbox_client_resume_finish (
    client, agents_test_wait_result (&result), &error);
  g_assert_null (session);
  return error;
}

static JsonNode *
state_json_naming (AgentsSandboxClient *client,
                   const char *root,
                   gboolean owned)
{
  g_autoptr (AgentsManifest) manifest = manifest_with_root (root);
  g_autoptr (AgentsSandboxSessionState) state =
    agents_unix_local_session_state_new (manifest, NULL, owned);

  return agents_sandbox_client_serialize_session_state (client, state);
}

/* A state read from JSON names a host directory: without the caller's
 * word or the library's proof, it is refused, naming the root, and the
 * directory is untouched (issue 15, finding 2). */
static void
test_hostile_state_roots_refused (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autofree char *victim = agents_test_make_tmp_dir ("unix-local-victim-");
  g_autofree char *data = g_build_filename (victim, "data", NULL);
  g_autofree char *lookalike =
    g_build_filename (g_get_tmp_dir (), "sandbox-local-lookalike-victim", NULL);
  g_autofree char *lookalike_data = g_build_filename (lookalike, "data", NULL);
  g_autoptr (JsonNode) wipe = NULL;
  g_autoptr (JsonNode) claim = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;

  g_assert_true (g_file_set_contents (data, "precious", -1, NULL));
  g_assert_cmpint (g_mkdir_with_parents (lookalike, 0700), ==, 0);
  g_assert_true (g_file_set_contents (lookalike_data, "precious", -1, NULL));

  wipe = state_json_naming (client, victim, FALSE);
  error = resume_error (client, wipe);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH);
  g_assert_nonnull (strstr (error->message, victim));
  g_clear_error (&error);

  claim = state_json_naming (client, lookalike, TRUE);
  error = resume_error (client, claim);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH);
  g_assert_nonnull (strstr (error->message, lookalike));

  g_assert_true (g_file_get_contents (data, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "precious");
  g_clear_pointer (&text, g_free);
  g_assert_true (g_file_get_contents (lookalike_data, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "precious");

  agents_test_rm_rf (victim);
  agents_test_rm_rf (lookalike);
}

/* A system directory as the root is refused unless the client allows it
 * (issue 15, finding 5). */
static void
test_system_root_refused (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  const char *roots[] = { "/etc", "/usr", "/usr/share", "/", "/home" };

  for (guint i = 0; i < G_N_ELEMENTS (roots); i++)
    {
      g_autoptr (AgentsManifest) manifest = manifest_with_root (roots[i]);
      g_autoptr (AgentsSandboxSession) session = NULL;
      g_autoptr (GAsyncResult) result = NULL;
      g_autoptr (GError) error = NULL;

      agents_sandbox_client_create_async (client, manifest, NULL, NULL, NULL,
                                          agents_test_async_cb, &result);
      session = agents_sandbox_client_create_finish (
        client, agents_test_wait_result (&result), &error);
      g_assert_null (session);
      g_assert_error (error, AGENTS_SANDBOX_ERROR,
                      AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH);
      g_assert_nonnull (strstr (error->message, roots[i]));
    }
  g_object_set (client, "allow-system-root", TRUE, NULL);
  {
    g_autoptr (AgentsManifest) manifest = manifest_with_root ("/etc");
    g_autoptr (AgentsSandboxSession) session = NULL;
    g_autoptr (GAsyncResult) result = NULL;
    g_autoptr (GError) error = NULL;

    /* Created only: nothing is started in /etc. */
    agents_sandbox_client_create_async (client, manifest, NULL, NULL, NULL,
                                        agents_test_async_cb, &result);
    session = agents_sandbox_client_create_finish (
      client, agents_test_wait_result (&result), &error);
    g_assert_no_error (error);
    g_assert_nonnull (session);
  }
}

/* A workspace persisted into a local snapshot comes back when a session
 * resumed from the serialized state starts. */
static void
test_persist_and_resume (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autofree char *workspace_root = agents_test_make_tmp_dir ("unix-local-ws-");
  g_autofree char *snapshots = agents_test_make_tmp_dir ("unix-local-snap-");
  g_autofree char *restored =
    g_build_filename (workspace_root, "d", "b.txt", NULL);
  g_autoptr (AgentsManifest) manifest = manifest_with_root (workspace_root);
  g_autoptr (AgentsLocalSnapshotSpec) spec =
    agents_local_snapshot_spec_new (snapshots);
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (AgentsSandboxSession) resumed = NULL;
  g_autoptr (AgentsSandboxSessionState) state = NULL;
  g_autoptr (AgentsExecResult) made = NULL;
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (JsonNode) json = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;

  agents_sandbox_client_create_async (client, manifest, NULL, G_OBJECT (spec),
                                      NULL, agents_test_async_cb, &result);
  session = agents_sandbox_client_create_finish (
    client, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
  g_clear_object (&result);
  g_assert_true (start_session (session, &error));
  g_assert_no_error (error);
  g_assert_true (write_text (session, "a.txt", "alpha", &error));
  g_assert_no_error (error);
  made = exec_shell (session, "mkdir d && echo beta > d/b.txt");
  g_assert_true (agents_exec_result_ok (made));
  close_session (session);
  json = agents_sandbox_client_serialize_session_state (
    client, agents_sandbox_session_peek_state (session));
  delete_session (client, session);

  /* Another process, another day: the workspace is gone. */
  agents_test_rm_rf (workspace_root);
  state =
    agents_sandbox_client_deserialize_session_state (client, json, &error);
  g_assert_no_error (error);
  /* The root is the caller's own (its manifest named it): it says so. */
  agents_sandbox_session_state_set_root_vouched (state, TRUE);
  agents_sandbox_client_resume_async (client, state, NULL, agents_test_async_cb,
                                      &result);
  resumed = agents_sandbox_client_resume_finish (
    client, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_true (start_session (resumed, &error));
  g_assert_no_error (error);

  text = read_text (resumed, "a.txt", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, "alpha");
  g_assert_true (g_file_test (restored, G_FILE_TEST_IS_REGULAR));

  close_session (resumed);
  delete_session (client, resumed);
  agents_test_rm_rf (workspace_root);
  agents_test_rm_rf (snapshots);
}

/* ---- progress ---------------------------------------------------------- */

typedef struct
{
  GThread *owner;
  GArray *done;   /* of gint64, in order */
  gint64 total;   /* of the last report */
  guint detailed; /* reports seen through the detailed signal */
} ProgressLog;

static void
on_progress (AgentsSandboxSession *session,
             const char *operation,
             gint64 done,
             gint64 total,
             gpointer user_data)
{
  ProgressLog *log = user_data;

  g_assert_true (g_thread_self () == log->owner);
  g_array_append_val (log->done, done);
  log->total = total;
}

static void
on_detailed_progress (AgentsSandboxSession *session,
                      const char *operation,
                      gint64 done,
                      gint64 total,
                      gpointer user_data)
{
  (*(guint *) user_data)++;
}

/* The reports of one operation start at 0, only grow, and end with every
 * byte of the archive, @size bytes. */
static void
check_progress (ProgressLog *log, gint64 size)
{
  g_assert_cmpuint (log->done->len, >=, 2);
  g_assert_cmpint (g_array_index (log->done, gint64, 0), ==, 0);
  for (guint i = 1; i < log->done->len; i++)
    g_assert_cmpint (g_array_index (log->done, gint64, i), >=,
                     g_array_index (log->done, gint64, i - 1));
  g_assert_cmpint (g_array_index (log->done, gint64, log->done->len - 1), ==,
                   size);
  g_assert_cmpuint (log->detailed, ==, log->done->len);
}

static gint64
only_snapshot_size (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name = d ? g_dir_read_name (d) : NULL;
  g_autofree char *path = NULL;
  GStatBuf st;

  g_assert_nonnull (name);
  g_assert_null (g_dir_read_name (d));
  path = g_build_filename (dir, name, NULL);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  return st.st_size;
}

/* Persisting and hydrating a workspace of a few MB report their byte
 * progress as AgentsSandboxSession::progress, on the owner thread, the
 * archive's size known when hydrating. */
static void
test_persist_hydrate_progress (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autofree char *root = agents_test_make_tmp_dir ("unix-local-progress-");
  g_autofree char *snapshots = agents_test_make_tmp_dir ("unix-local-snap-");
  g_autofree char *big = g_build_filename (root, "big.bin", NULL);
  g_autofree char *content = g_strnfill (3 * 1024 * 1024, 'x');
  g_autoptr (AgentsManifest) manifest = manifest_with_root (root);
  g_autoptr (AgentsLocalSnapshotSpec) spec =
    agents_local_snapshot_spec_new (snapshots);
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (AgentsSandboxSession) resumed = NULL;
  g_autoptr (AgentsSandboxSessionState) state = NULL;
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (JsonNode) json = NULL;
  g_autoptr (GError) error = NULL;
  ProgressLog persist = { g_thread_self (), g_array_new (FALSE, FALSE, 8), 0 };
  ProgressLog hydrate = { g_thread_self (), g_array_new (FALSE, FALSE, 8), 0 };
  gint64 size;

  agents_sandbox_client_create_async (client, manifest, NULL, G_OBJECT (spec),
                                      NULL, agents_test_async_cb, &result);
  session = agents_sandbox_client_create_finish (
    client, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
  g_clear_object (&result);
  g_assert_true (start_session (session, &error));
  g_assert_no_error (error);
  agents_test_write_file (big, content);
  g_signal_connect (session, "progress", G_CALLBACK (on_progress), &persist);
  g_signal_connect (session, "progress::persist",
                    G_CALLBACK (on_detailed_progress), &persist.detailed);
  g_signal_connect (session, "progress::hydrate",
                    G_CALLBACK (on_detailed_progress), &hydrate.detailed);
  close_session (session);
  while (g_main_context_iteration (NULL, FALSE))
    ;

  /* Every byte of the snapshot went through, in more than one report. */
  size = only_snapshot_size (snapshots);
  g_assert_cmpint (size, >, 3 * 1024 * 1024);
  check_progress (&persist, size);
  g_assert_cmpuint (hydrate.detailed, ==, 0);
  json = agents_sandbox_client_serialize_session_state (
    client, agents_sandbox_session_peek_state (session));
  delete_session (client, session);

  agents_test_rm_rf (root);
  state =
    agents_sandbox_client_deserialize_session_state (client, json, &error);
  g_assert_no_error (error);
  agents_sandbox_session_state_set_root_vouched (state, TRUE);
  agents_sandbox_client_resume_async (client, state, NULL, agents_test_async_cb,
                                      &result);
  resumed = agents_sandbox_client_resume_finish (
    client, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
  g_signal_connect (resumed, "progress", G_CALLBACK (on_progress), &hydrate);
  g_signal_connect (resumed, "progress::hydrate",
                    G_CALLBACK (on_detailed_progress), &hydrate.detailed);
  g_assert_true (start_session (resumed, &error));
  g_assert_no_error (error);
  /* The last report may still be queued behind the start's completion. */
  while (g_main_context_iteration (NULL, FALSE))
    ;
  check_progress (&hydrate, size);
  g_assert_cmpint (hydrate.total, ==, size);
  g_assert_true (g_file_test (big, G_FILE_TEST_IS_REGULAR));

  g_signal_handlers_disconnect_by_data (resumed, &hydrate);
  g_signal_handlers_disconnect_by_data (resumed, &hydrate.detailed);
  close_session (resumed);
  delete_session (client, resumed);
  g_array_unref (persist.done);
  g_array_unref (hydrate.done);
  agents_test_rm_rf (root);
  agents_test_rm_rf (snapshots);
}

static void
record_done (AgentsSandboxSession *session,
             const char *operation,
             gint64 done,
             gint64 total,
             gpointer user_data)
{
  GString *log = user_data;

  g_string_append_printf (log, "%s %" G_GINT64_FORMAT "/%" G_GINT64_FORMAT ";",
                          operation, done, total);
}

/* Applying a manifest reports the top-level entries materialized, batch
 * after batch. */
static void
test_apply_progress (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autofree char *root = agents_test_make_tmp_dir ("unix-local-apply-");
  g_autoptr (AgentsManifest) manifest = manifest_with_root (root);
  g_autoptr (AgentsConcurrencyLimits) limits =
    agents_concurrency_limits_new_full (2, 4);
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GString) log = g_string_new (NULL);
  g_autoptr (GError) error = NULL;

  for (guint i = 0; i < 5; i++)
    {
      g_autofree char *name = g_strdup_printf ("f%u.txt", i);
      g_autoptr (AgentsManifestEntry) entry = agents_file_new_from_text (name);

      agents_manifest_set_entry (manifest, name, entry);
    }
  session = create_session (client, manifest, NULL);
  agents_sandbox_session_set_concurrency_limits (session, limits);
  g_signal_connect (session, "progress::apply", G_CALLBACK (record_done), log);
  g_assert_true (start_session (session, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (log->str, ==, "apply 0/5;apply 2/5;apply 4/5;apply 5/5;");

  g_signal_handlers_disconnect_by_data (session, log);
  close_session (session);
  delete_session (client, session);
  agents_test_rm_rf (root);
}

/* What a session keeps between commands (bwrap arguments, a Landlock
 * ruleset) never hides a directory made after the first command, with
 * or without a read-only grant nested in the workspace. */
static void
check_exec_after_host_changes (const char *mechanism, gboolean nested_grant)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autofree char *root = agents_test_make_tmp_dir ("unix-local-exec-");
  g_autofree char *ro = g_build_filename (root, "ro", NULL);
  g_autofree char *kept = g_build_filename (ro, "kept.txt", NULL);
  g_autoptr (GVariant) options = confinement_options (mechanism, FALSE);
  g_autoptr (AgentsManifest) manifest = manifest_with_root (root);
  g_autoptr (AgentsSandboxPathGrant) grant =
    agents_sandbox_path_grant_new (ro, TRUE, NULL);
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GError) error = NULL;

  agents_test_write_file (kept, "kept");
  if (nested_grant)
    agents_manifest_add_extra_path_grant (manifest, grant);
  session = create_session (client, manifest, options);
  g_assert_true (start_session (session, &error));
  g_assert_no_error (error);

  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *dir = g_strdup_printf ("later%u/deeper", i);
      g_autofree char *script = g_strdup_printf (
        "echo %u > %s/file.txt && cat %s/file.txt", i, dir, dir);
      g_autofree char *expected = g_strdup_printf ("%u", i);
      g_autoptr (AgentsExecResult) result = NULL;
      g_autoptr (AgentsExecResult) denied = NULL;
      g_autofree char *out = NULL;
      g_autofree char *text = NULL;

      g_assert_true (mkdir_path (session, dir, TRUE, &error));
      g_assert_no_error (error);
      result = exec_shell (session, script);
      out = stdout_text (result);
      g_assert_cmpstr (out, ==, expected);
      g_assert_true (agents_exec_result_ok (result));

      denied = exec_shell (session, "echo changed > ro/kept.txt");
      text = agents_test_read_file (kept);
      if (nested_grant && !g_str_equal (mechanism, "none"))
        {
          g_assert_false (agents_exec_result_ok (denied));
          g_assert_cmpstr (text, ==, "kept");
        }
      agents_test_write_file (kept, "kept");
    }

  close_session (session);
  delete_session (client, session);
  agents_test_rm_rf (root);
}

static void
test_exec_after_host_changes (Fixture *fixture, gconstpointer data)
{
  if (skip_unless_available (fixture->mechanism))
    return;
  check_exec_after_host_changes (fixture->mechanism, FALSE);
  check_exec_after_host_changes (fixture->mechanism, TRUE);
}

/* ---- identity, set-id bits and limits -------------------------------- */

static gboolean
skip_unless_root (const char *mechanism)
{
  if (skip_unless_available (mechanism))
    return TRUE;
  if (geteuid () == 0)
    return FALSE;
  g_test_skip ("the sandbox identity is only switched for a root caller");
  return TRUE;
}

static GVariant *
options_with (const char *mechanism, const char *name, GVariant *value)
{
  GVariantDict dict;

  g_variant_dict_init (&dict, NULL);
  g_variant_dict_insert (&dict, "confinement", "s", mechanism);
  if (name != NULL)
    g_variant_dict_insert_value (&dict, name, value);
  return g_variant_ref_sink (g_variant_dict_end (&dict));
}

/* A root-only file that the sandbox can see (in a read-only grant) is
 * not readable by a root caller's command; a public one is. */
static void
test_root_only_files_unreadable (Fixture *fixture, gconstpointer data)
{
  g_autofree char *shared = g_strconcat (fixture->root, "-shared", NULL);
  g_autofree char *secret = g_build_filename (shared, "key.json", NULL);
  g_autofree char *public = g_build_filename (shared, "public.txt", NULL);
  g_autoptr (AgentsManifest) manifest = manifest_with_root (fixture->root);
  g_autoptr (AgentsSandboxPathGrant) grant =
    agents_sandbox_path_grant_new (shared, TRUE, NULL);
  g_autoptr (GVariant) options = options_with (fixture->mechanism, NULL, NULL);
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (AgentsExecResult) id = NULL;
  g_autoptr (AgentsExecResult) denied = NULL;
  g_autoptr (AgentsExecResult) allowed = NULL;
  g_autofree char *script = g_strdup_printf ("cat %s", secret);
  g_autofree char *out = NULL;
  g_autoptr (GError) error = NULL;

  if (skip_unless_root (fixture->mechanism))
    return;
  agents_test_write_file (secret, "{\"private\": 1}");
  agents_test_write_file (public, "hello");
  g_assert_cmpint (chmod (secret, 0600), ==, 0);
  g_assert_cmpint (chmod (public, 0644), ==, 0);
  g_assert_cmpint (chmod (shared, 0755), ==, 0);
  agents_manifest_add_extra_path_grant (manifest, grant);
  session = create_session (fixture->client, manifest, options);
  g_assert_true (start_session (session, &error));
  g_assert_no_error (error);

  id = exec_shell (session, "id -u");
  out = stdout_text (id);
  g_assert_cmpstr (out, ==, "65534");
  denied = exec_shell (session, script);
  g_assert_false (agents_exec_result_ok (denied));
  g_clear_pointer (&script, g_free);
  script = g_strdup_printf ("cat %s", public);
  allowed = exec_shell (session, script);
  g_assert_true (agents_exec_result_ok (allowed));

  close_session (session);
  delete_session (fixture->client, session);
  agents_test_rm_rf (shared);
}

/* What the library writes is the command's to change; what the command
 * makes is the caller's again after the session, with no set-id bit. */
static void
test_workspace_handed_over_and_back (Fixture *fixture, gconstpointer data)
{
  g_autofree char *note = g_build_filename (fixture->root, "note.txt", NULL);
  g_autofree char *made = g_build_filename (fixture->root, "d", "sh", NULL);
  g_autoptr (AgentsExecResult) edit = NULL;
  g_autoptr (AgentsExecResult) suid = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  GStatBuf st;

  if (skip_unless_root (fixture->mechanism))
    return;
  g_assert_true (start_session (fixture->session, &error));
  g_assert_no_error (error);
  g_assert_true (write_text (fixture->session, note, "one\n", &error));
  g_assert_no_error (error);
  edit = exec_shell (fixture->session, "echo two >> note.txt && mkdir d");
  g_assert_true (agents_exec_result_ok (edit));
  g_assert_cmpint (g_stat (note, &st), ==, 0);
  g_assert_cmpuint (st.st_uid, ==, 65534);

  suid = exec_shell (fixture->session,
                     "cp /bin/sh d/sh && chmod 6755 d/sh && stat -c %a d/sh");
  g_assert_true (agents_exec_result_ok (suid));
  close_session (fixture->session);

  text = agents_test_read_file (note);
  g_assert_cmpstr (text, ==, "one\ntwo\n");
  g_assert_cmpint (g_stat (made, &st), ==, 0);
  g_assert_cmpuint (st.st_uid, ==, geteuid ());
  g_assert_cmpuint (st.st_gid, ==, getegid ());
  g_assert_cmpuint (st.st_mode & 07777, ==, 0755);
  g_assert_cmpint (g_stat (note, &st), ==, 0);
  g_assert_cmpuint (st.st_uid, ==, geteuid ());
  g_assert_cmpint (g_stat (fixture->root, &st), ==, 0);
  g_assert_cmpuint (st.st_uid, ==, geteuid ());
}

static void
assert_option_refused (AgentsSandboxClient *client,
                       const char *name,
                       GVariant *value)
{
  g_autoptr (GVariant) options = options_with ("auto", name, value);
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GError) error = NULL;

  agents_sandbox_client_create_async (client, NULL, options, NULL, NULL,
                                      agents_test_async_cb, &result);
  session = agents_sandbox_client_create_finish (
    client, agents_test_wait_result (&result), &error);
  g_assert_null (session);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, name));
  agents_test_assert_context_str (error, "option", name);
}

static void
test_limit_options_validated (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();

  assert_option_refused (client, "sandbox_uid", g_variant_new_int64 (0));
  assert_option_refused (client, "sandbox_gid", g_variant_new_int64 (-5));
  assert_option_refused (client, "pids_limit", g_variant_new_int64 (-1));
  assert_option_refused (client, "pids_limit", g_variant_new_int64 (2));
  assert_option_refused (client, "memory", g_variant_new_string ("lots"));
  assert_option_refused (client, "memory", g_variant_new_int64 (1024));
  assert_option_refused (client, "cpu_seconds", g_variant_new_double (1.5));
}

/* A session resumed through resume_with_options runs with the caller's
 * options, checked as create checks them: the saved state carries none. */
static void
test_resume_with_options_applies_them (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autofree char *workspace_root = agents_test_make_tmp_dir ("unix-local-ws-");
  g_autoptr (AgentsManifest) manifest = manifest_with_root (workspace_root);
  g_autoptr (GVariant) options =
    options_with ("none", "cpu_seconds", g_variant_new_int64 (7));
  g_autoptr (GVariant) bad =
    options_with ("none", "memory", g_variant_new_string ("lots"));
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (AgentsSandboxSession) resumed = NULL;
  g_autoptr (AgentsSandboxSession) refused = NULL;
  g_autoptr (AgentsSandboxSessionState) state = NULL;
  g_autoptr (AgentsExecResult) limit = NULL;
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;

  agents_sandbox_client_create_async (client, manifest, NULL, NULL, NULL,
                                      agents_test_async_cb, &result);
  session = agents_sandbox_client_create_finish (
    client, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
  g_clear_object (&result);
  state = agents_sandbox_session_get_state (session);
  agents_sandbox_session_state_set_root_vouched (state, TRUE);

  agents_sandbox_client_resume_with_options_async (
    client, state, bad, NULL, NULL, agents_test_async_cb, &result);
  refused = agents_sandbox_client_resume_finish (
    client, agents_test_wait_result (&result), &error);
  g_assert_null (refused);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  agents_test_assert_context_str (error, "option", "memory");
  g_clear_error (&error);
  g_clear_object (&result);

  agents_sandbox_client_resume_with_options_async (
    client, state, options, NULL, NULL, agents_test_async_cb, &result);
  resumed = agents_sandbox_client_resume_finish (
    client, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_true (start_session (resumed, &error));
  g_assert_no_error (error);
  limit = exec_shell (resumed, "ulimit -t");
  g_assert_true (agents_exec_result_ok (limit));
  text = agents_exec_result_dup_stdout_text (limit);
  g_assert_cmpstr (text, ==, "7\n");

  close_session (resumed);
  delete_session (client, resumed);
  agents_test_rm_rf (workspace_root);
}

/* Processes whose command line holds @token. */
static guint
count_with_token (const char *token)
{
  g_autoptr (GDir) proc = g_dir_open ("/proc", 0, NULL);
  const char *name;
  guint count = 0;

  while (proc != NULL && (name = g_dir_read_name (proc)) != NULL)
    {
      g_autofree char *path = g_build_filename ("/proc", name, "cmdline", NULL);
      g_autofree char *cmdline = NULL;
      gsize length = 0;

      if (!g_ascii_isdigit (*name) ||
          !g_file_get_contents (path, &cmdline, &length, NULL))
        continue;
      for (gsize i = 0; i < length; i += strlen (cmdline + i) + 1)
        if (strstr (cmdline + i, token) != NULL)
          {
            count++;
            break;
          }
    }
  return count;
}

/* An archive's set-user-ID and set-group-ID bits are not restored. */
static void
test_hydrate_drops_setid_bits (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autofree char *tmp = agents_test_make_tmp_dir ("unix-local-setid-");
  g_autofree char *src = g_build_filename (tmp, "src", NULL);
  g_autofree char *tool = g_build_filename (src, "tool", NULL);
  g_autofree char *shared = g_build_filename (src, "shared", NULL);
  g_autofree char *archive = g_build_filename (tmp, "ws.tar", NULL);
  g_autofree char *root = g_build_filename (tmp, "ws", NULL);
  g_autofree char *out_tool = g_build_filename (root, "tool", NULL);
  g_autofree char *out_shared = g_build_filename (root, "shared", NULL);
  g_autoptr (AgentsManifest) manifest = manifest_with_root (root);
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GFile) file = g_file_new_for_path (archive);
  g_autoptr (GInputStream) stream = NULL;
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  const char *tar[] = { "tar", "-C", src, "-cf", archive, ".", NULL };
  int status = -1;
  GStatBuf st;

  agents_test_write_file (tool, "#!/bin/sh\n");
  g_assert_cmpint (g_mkdir (shared, 0755), ==, 0);
  g_assert_cmpint (chmod (tool, 06755), ==, 0);
  g_assert_cmpint (chmod (shared, 02775), ==, 0);
  g_assert_true (g_spawn_sync (NULL, (char **) tar, NULL, G_SPAWN_SEARCH_PATH,
                               NULL, NULL, NULL, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_cmpint (status, ==, 0);

  session = create_session (client, manifest, NULL);
  stream = G_INPUT_STREAM (g_file_read (file, NULL, &error));
  g_assert_no_error (error);
  agents_sandbox_session_hydrate_workspace_async (
    session, stream, NULL, agents_test_async_cb, &result);
  g_assert_true (agents_sandbox_session_hydrate_workspace_finish (
    session, agents_test_wait_result (&result), &error));
  g_assert_no_error (error);

  g_assert_cmpint (g_stat (out_tool, &st), ==, 0);
  g_assert_cmpuint (st.st_mode & 07777, ==, 0755);
  g_assert_cmpint (g_stat (out_shared, &st), ==, 0);
  g_assert_cmpuint (st.st_mode & 07777, ==, 0775);
  agents_test_rm_rf (tmp);
}

/* The cgroups this process made for its commands and did not remove
 * yet (in the v1 pids hierarchy, where there is one). */
static guint
count_own_cgroups (void)
{
  g_autofree char *text = NULL;
  g_autofree char *prefix = g_strdup_printf ("agents-%d-", (int) getpid ());
  g_auto (GStrv) lines = NULL;
  guint n = 0;

  if (!g_file_get_contents ("/proc/self/cgroup", &text, NULL, NULL))
    return 0;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto (GStrv) fields = g_strsplit (lines[i], ":", 3);
      g_autofree char *dir = NULL;
      g_autoptr (GDir) listing = NULL;
      const char *name;

      if (g_strv_length (fields) != 3 || !g_str_equal (fields[1], "pids"))
        continue;
      dir = g_build_filename ("/sys/fs/cgroup/pids", fields[2], NULL);
      listing = g_dir_open (dir, 0, NULL);
      while (listing != NULL && (name = g_dir_read_name (listing)) != NULL)
        if (g_str_has_prefix (name, prefix))
          n++;
    }
  return n;
}

/* A fork bomb under pids_limit is contained and timed out, the host can
 * fork meanwhile, and nothing of it is left afterwards. */
static void
test_fork_bomb_contained (Fixture *fixture, gconstpointer data)
{
  g_autoptr (GVariant) options = NULL;
  g_autoptr (AgentsManifest) manifest = manifest_with_root (fixture->root);
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (AgentsExecResult) result = NULL;
  g_autoptr (AgentsExecResult) after = NULL;
  GVariantDict dict;
  g_autofree char *token =
    g_strdup_printf ("bomb%u", (guint) getpid () * 7 + 1);
  g_autofree char *script = g_strdup_printf ("%s() { %s | %s & }; %s; sleep 30",
                                             token, token, token, token);
  g_autoptr (GError) error = NULL;
  int status = -1;

  if (skip_unless_root (fixture->mechanism))
    return;
  /* RLIMIT_NPROC counts every process of the uid on the host: a uid of
   * this test's own keeps tests running side by side out of its count. */
  g_variant_dict_init (&dict, NULL);
  g_variant_dict_insert (&dict, "confinement", "s", fixture->mechanism);
  g_variant_dict_insert (&dict, "pids_limit", "x", (gint64) 64);
  g_variant_dict_insert (&dict, "sandbox_uid", "x",
                         (gint64) (300000 + getpid () % 100000));
  options = g_variant_ref_sink (g_variant_dict_end (&dict));
  session = create_session (fixture->client, manifest, options);
  g_assert_true (start_session (session, &error));
  g_assert_no_error (error);
  /* It times out, unless its last `sleep` could not even start. */
  result = exec_shell_full (session, script, 3.0, NULL, &error);
  if (result != NULL)
    g_assert_false (agents_exec_result_ok (result));
  else
    g_assert_error (error, AGENTS_SANDBOX_ERROR,
                    AGENTS_SANDBOX_ERROR_EXEC_TIMEOUT);
  g_clear_error (&error);

  g_assert_true (g_spawn_sync (NULL, (char *[]){ "true", NULL }, NULL,
                               G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL,
                               &status, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < 250 && count_with_token (token) > 0; i++)
    g_usleep (20 * 1000);
  g_assert_cmpuint (count_with_token (token), ==, 0);
  for (guint i = 0; i < 250 && count_own_cgroups () > 0; i++)
    g_usleep (20 * 1000);
  g_assert_cmpuint (count_own_cgroups (), ==, 0);
  /* The session still runs commands. */
  after = exec_shell (session, "echo alive");
  g_assert_true (agents_exec_result_ok (after));
  close_session (session);
  delete_session (fixture->client, session);
}

static void
become_uid (gpointer data)
{
  uid_t uid = GPOINTER_TO_UINT (data);

  if (setgroups (0, NULL) < 0 || setresgid (uid, uid, uid) < 0 ||
      setresuid (uid, uid, uid) < 0)
    _exit (127);
}

/* pids_limit counts the command's own processes: other processes of the
 * sandbox uid on the machine (another sandbox's, a zombie nobody reaps)
 * do not stop a command from starting, where a cgroup holds it. */
static void
test_pids_limit_counts_own_processes (Fixture *fixture, gconstpointer data)
{
  guint32 uid = 320000 + (guint32) getpid () % 100000;
  GVariantDict dict;
  g_autoptr (GVariant) options = NULL;
  g_autoptr (AgentsManifest) manifest = manifest_with_root (fixture->root);
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (AgentsExecResult) result = NULL;
  g_autoptr (GError) error = NULL;
  GPid others[12];

  if (skip_unless_root (fixture->mechanism))
    return;
  if (!g_file_test ("/sys/fs/cgroup/pids", G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("no cgroup v1 pids hierarchy: pids_limit is RLIMIT_NPROC, "
                   "which counts every process of the uid");
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (others); i++)
    {
      g_assert_true (
        g_spawn_async (NULL, (char *[]){ "sleep", "60", NULL }, NULL,
                       G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD,
                       become_uid, GUINT_TO_POINTER (uid), &others[i], &error));
      g_assert_no_error (error);
    }
  g_variant_dict_init (&dict, NULL);
  g_variant_dict_insert (&dict, "confinement", "s", fixture->mechanism);
  g_variant_dict_insert (&dict, "pids_limit", "x", (gint64) 8);
  g_variant_dict_insert (&dict, "sandbox_uid", "x", (gint64) uid);
  g_variant_dict_insert (&dict, "sandbox_gid", "x", (gint64) uid);
  options = g_variant_ref_sink (g_variant_dict_end (&dict));
  session = create_session (fixture->client, manifest, options);
  g_assert_true (start_session (session, &error));
  g_assert_no_error (error);

  result = exec_shell_full (session, "echo started", 30.0, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (agents_exec_result_ok (result));
  g_clear_object (&result);
  /* The limit still holds the command itself. */
  result = exec_shell_full (
    session, "for i in 1 2 3 4 5 6 7 8 9 10; do sleep 5 & done; wait", 30.0,
    NULL, &error);
  g_assert_no_error (error);
  g_assert_false (agents_exec_result_ok (result));

  for (guint i = 0; i < G_N_ELEMENTS (others); i++)
    {
      kill (others[i], SIGKILL);
      waitpid (others[i], NULL, 0);
      g_spawn_close_pid (others[i]);
    }
  close_session (session);
  delete_session (fixture->client, session);
}

static void
test_memory_hog_stopped (Fixture *fixture, gconstpointer data)
{
  g_autoptr (GVariant) options =
    options_with (fixture->mechanism, "memory", g_variant_new_int64 (64 << 20));
  g_autoptr (AgentsManifest) manifest = manifest_with_root (fixture->root);
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (AgentsExecResult) hog = NULL;
  g_autoptr (AgentsExecResult) tmp = NULL;
  g_autoptr (GError) error = NULL;

  if (skip_unless_available (fixture->mechanism))
    return;
  session = create_session (fixture->client, manifest, options);
  g_assert_true (start_session (session, &error));
  g_assert_no_error (error);
  hog =
    exec_shell_full (session, "awk 'BEGIN { s = \"x\"; while (1) s = s s }'",
                     30.0, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (agents_exec_result_ok (hog));
  /* Nor can /tmp, which is memory, outgrow the limit. */
  if (g_str_equal (fixture->mechanism, "bwrap"))
    {
      tmp = exec_shell (session, "head -c 100000000 /dev/zero > \"$TMPDIR/f\"");
      g_assert_false (agents_exec_result_ok (tmp));
    }
  close_session (session);
  delete_session (fixture->client, session);
}

static void
add_mechanism_tests (const char *name,
                     const char *mechanism,
                     void (*func) (Fixture *, gconstpointer))
{
  g_autofree char *path =
    g_strdup_printf ("/sandbox/unix-local/%s/%s", name, mechanism);

  g_test_add (path, Fixture, mechanism, fixture_setup, func, fixture_teardown);
}

int
main (int argc, char *argv[])
{
  static const char *const confined[] = { "bwrap", "landlock" };
  static const char *const all[] = { "bwrap", "landlock", "none" };

  g_test_init (&argc, &argv, NULL);
  /* The backend is linked in statically: loading the plugin modules too
   * would register its types twice. */
  g_unsetenv ("AGENTS_PLUGIN_PATH");

  g_test_add_func (
    "/sandbox/unix-local/unix_local_client_rewrites_default_"
    "manifest_root_to_temp_workspace",
    test_client_rewrites_default_manifest_root_to_temp_workspace);
  g_test_add_func ("/sandbox/unix-local/unix_local_client_delete_unmounts_"
                   "workspace_mounts_before_rmtree",
                   test_client_delete_unmounts_workspace_mounts_before_rmtree);
  g_test_add_func ("/sandbox/unix-local/unix_local_client_delete_unmounts_"
                   "nested_mounts_deepest_first",
                   test_client_delete_unmounts_nested_mounts_deepest_first);
  g_test_add_func ("/sandbox/unix-local/unix_local_client_delete_skips_rmtree_"
                   "when_unmount_fails",
                   test_client_delete_skips_rmtree_when_unmount_fails);
  g_test_add_func ("/sandbox/unix-local/unix_local_persist_workspace_excludes_"
                   "mounted_directory_contents",
                   test_persist_workspace_excludes_mounted_directory_contents);
  g_test_add_func ("/sandbox/unix-local/unix_local_client_delete_preserves_"
                   "caller_owned_workspace_root",
                   test_client_delete_preserves_caller_owned_workspace_root);
  g_test_add_func ("/sandbox/unix-local/unix_local_read_and_write_reject_paths_"
                   "outside_workspace_root",
                   test_read_and_write_reject_paths_outside_workspace_root);
  g_test_add_func ("/sandbox/unix-local/extract_garbage_names_the_archive",
                   test_extract_garbage_names_the_archive);
  g_test_add_func ("/sandbox/unix-local/unix_local_rm_recursive_ignores_"
                   "missing_paths",
                   test_rm_recursive_ignores_missing_paths);
  g_test_add_func ("/sandbox/unix-local/unix_local_rm_non_recursive_still_"
                   "errors_for_missing_paths",
                   test_rm_non_recursive_still_errors_for_missing_paths);
  g_test_add_func ("/sandbox/unix-local/wrapped_unix_local_helpers_reject_"
                   "symlink_escape_paths",
                   test_wrapped_helpers_reject_symlink_escape_paths);
  g_test_add_func ("/sandbox/unix-local/runner_rejects_unix_local_manifest_"
                   "user_and_group_provisioning",
                   test_runner_rejects_manifest_user_and_group_provisioning);
  g_test_add_func ("/sandbox/unix-local/unix_local_exec_rejects_when_"
                   "confinement_is_unavailable",
                   test_exec_rejects_when_confinement_is_unavailable);
  g_test_add_func ("/sandbox/unix-local/unix_local_exec_runs_without_wrapper_"
                   "on_linux",
                   test_exec_runs_without_wrapper_on_linux);
  g_test_add_func ("/sandbox/unix-local/unix_local_file_io_allows_extra_path_"
                   "grant",
                   test_file_io_allows_extra_path_grant);
  g_test_add_func ("/sandbox/unix-local/unix_local_file_io_rejects_write_under_"
                   "read_only_extra_path_grant",
                   test_file_io_rejects_write_under_read_only_extra_path_grant);
  g_test_add_func ("/sandbox/unix-local/file-io-matches-grant-through-"
                   "symlinked-alias",
                   test_file_io_matches_grant_through_symlinked_alias);
  for (guint i = 0; i < G_N_ELEMENTS (confined); i++)
    {
      g_autofree char *path = g_strdup_printf (
        "/sandbox/unix-local/unix_local_exec_confines_commands_to_workspace_"
        "root/%s",
        confined[i]);

      g_test_add_data_func (path, confined[i],
                            test_exec_confines_commands_to_workspace_root);
      add_mechanism_tests ("network", confined[i], test_network);
      add_mechanism_tests ("home-not-readable", confined[i],
                           test_home_is_not_readable);
      add_mechanism_tests ("root-only-files-unreadable", confined[i],
                           test_root_only_files_unreadable);
      add_mechanism_tests ("workspace-handed-over-and-back", confined[i],
                           test_workspace_handed_over_and_back);
      add_mechanism_tests ("fork-bomb-contained", confined[i],
                           test_fork_bomb_contained);
      add_mechanism_tests ("memory-hog-stopped", confined[i],
                           test_memory_hog_stopped);
      add_mechanism_tests ("pids-limit-counts-own-processes", confined[i],
                           test_pids_limit_counts_own_processes);
    }
  for (guint i = 0; i < G_N_ELEMENTS (all); i++)
    {
      add_mechanism_tests ("timeout", all[i], test_timeout_kills_process_tree);
      add_mechanism_tests ("cancel", all[i], test_cancel_kills_command);
      add_mechanism_tests ("output-cap", all[i], test_output_is_capped);
      add_mechanism_tests ("delete-leaves-nothing", all[i],
                           test_delete_leaves_nothing_behind);
      add_mechanism_tests ("exec-after-host-changes", all[i],
                           test_exec_after_host_changes);
    }
  add_mechanism_tests ("pid-namespace", "bwrap", test_pid_namespace);
  add_mechanism_tests ("confinement-none", "none", test_confinement_none);
  g_test_add_func ("/sandbox/unix-local/hydrate-drops-setid-bits",
                   test_hydrate_drops_setid_bits);
  g_test_add_func ("/sandbox/unix-local/resume-with-options-applies-them",
                   test_resume_with_options_applies_them);
  g_test_add_func ("/sandbox/unix-local/limit-options-validated",
                   test_limit_options_validated);
  g_test_add_func ("/sandbox/unix-local/state-json",
                   test_state_json_round_trip);
  g_test_add_func ("/sandbox/unix-local/client", test_client_basics);
  g_test_add_data_func ("/sandbox/unix-local/file-io-symlinks",
                        GINT_TO_POINTER (FALSE), test_file_io_symlinks);
  g_test_add_data_func ("/sandbox/unix-local/file-io-symlinks-without-openat2",
                        GINT_TO_POINTER (TRUE), test_file_io_symlinks);
  g_test_add_func ("/sandbox/unix-local/failed-restore-keeps-snapshot",
                   test_failed_restore_keeps_snapshot);
  g_test_add_func ("/sandbox/unix-local/hostile-state-roots-refused",
                   test_hostile_state_roots_refused);
  g_test_add_func ("/sandbox/unix-local/system-root-refused",
                   test_system_root_refused);
  g_test_add_func ("/sandbox/unix-local/persist-and-resume",
                   test_persist_and_resume);
  g_test_add_func ("/sandbox/unix-local/persist-hydrate-progress",
                   test_persist_hydrate_progress);
  g_test_add_func ("/sandbox/unix-local/apply-progress", test_apply_progress);
  g_test_add_data_func ("/sandbox/unix-local/host-ls", GINT_TO_POINTER (FALSE),
                        test_host_ls);
  g_test_add_data_func ("/sandbox/unix-local/host-ls-without-openat2",
                        GINT_TO_POINTER (TRUE), test_host_ls);
  g_test_add_data_func ("/sandbox/unix-local/host-mkdir-rm",
                        GINT_TO_POINTER (FALSE), test_host_mkdir_rm);
  g_test_add_data_func ("/sandbox/unix-local/host-mkdir-rm-without-openat2",
                        GINT_TO_POINTER (TRUE), test_host_mkdir_rm);
  g_test_add_func ("/sandbox/unix-local/host-ops-respect-read-only-grants",
                   test_host_ops_respect_read_only_grants);
  g_test_add_func ("/sandbox/unix-local/open-beneath-during-renames",
                   test_open_beneath_during_renames);

  return g_test_run ();
}
