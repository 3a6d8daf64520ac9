/* test-s3-live.c - s3_mount entries mounted for real (suite "s3")
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A real S3 server (s3rver, started by scripts/s3-service.sh, endpoint in
 * the file $AGENTS_TEST_S3_ENDPOINT_FILE), real FUSE (rclone), real
 * unix_local sessions under bubblewrap. Every test skips, saying why,
 * when one of those is missing.
 */

#include "config.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "agents-host-bind-private.h"
#include "agents-docker-client.h"
#include "agents-docker-engine.h"
#include "agents-docker-session.h"
#include "agents-s3-mount.h"
#include "agents-sandbox-session-private.h"
#include "agents-unix-local-client.h"
#include "agents-unix-local-confine.h"
#include "docker-test-utils.h"
#include "test-utils.h"

#define ACCESS_KEY "S3RVER"

static char *endpoint;
static char *skip_reason;
static char *secret; /* distinctive, so that any leak is found */
static guint bucket_serial;

/* ---- environment ------------------------------------------------------ */

static char *
find_skip_reason (void)
{
  const char *file = g_getenv ("AGENTS_TEST_S3_ENDPOINT_FILE");
  const AgentsUnixLocalProbe *probe;
  g_autofree char *rclone = g_find_program_in_path ("rclone");

  if (file == NULL || !g_file_get_contents (file, &endpoint, NULL, NULL))
    return g_strdup ("no S3 server (run scripts/s3-service.sh start)");
  g_strstrip (endpoint);
  if (rclone == NULL)
    return g_strdup ("rclone is not installed (apt install rclone fuse3)");
  if (!g_file_test ("/dev/fuse", G_FILE_TEST_EXISTS))
    return g_strdup ("no /dev/fuse");
  probe = agents_unix_local_confine_probe ();
  if (probe->bwrap_path == NULL)
    return g_strdup_printf ("bubblewrap is unusable: %s", probe->bwrap_error);
  return NULL;
}

static gboolean
skip_if_unavailable (void)
{
  if (skip_reason == NULL)
    return FALSE;
  g_test_skip (skip_reason);
  return TRUE;
}

/* ---- the S3 API, through curl ----------------------------------------- */

static int
curl (const char *method, const char *path, const char *data, char **body)
{
  g_autofree char *url = g_strconcat (endpoint, path, NULL);
  g_autofree char *out = NULL;
  g_autoptr (GError) error = NULL;
  int status = -1;
  const char *argv[] = { "curl",          "-sf", "-X", method,
                         "--data-binary", "@-",  url,  NULL };
  g_autoptr (GSubprocess) proc = g_subprocess_newv (
    argv,
    G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
      G_SUBPROCESS_FLAGS_STDERR_SILENCE,
    &error);

  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (proc, data ? data : "", NULL, &out, NULL,
                                 &error);
  g_assert_no_error (error);
  status = g_subprocess_get_exit_status (proc);
  if (body != NULL)
    *body = g_steal_pointer (&out);
  return status;
}

static char *
new_bucket (void)
{
  char *bucket =
    g_strdup_printf ("bkt-%d-%u", (int) getpid (), ++bucket_serial);
  g_autofree char *path = g_strconcat ("/", bucket, NULL);
  g_autofree char *object = g_strconcat (path, "/dir/a.txt", NULL);

  g_assert_cmpint (curl ("PUT", path, NULL, NULL), ==, 0);
  g_assert_cmpint (curl ("PUT", object, "hello from s3\n", NULL), ==, 0);
  return bucket;
}

/* ---- sessions --------------------------------------------------------- */

static AgentsManifestEntry *
new_mount (const char *bucket, const char *url, gboolean read_only)
{
  g_autoptr (AgentsMountPattern) pattern = agents_rclone_mount_pattern_new ();
  g_autoptr (AgentsMountStrategy) strategy =
    agents_in_container_mount_strategy_new (pattern);
  AgentsManifestEntry *entry = agents_s3_mount_new (bucket, strategy);
  AgentsS3Mount *mount = AGENTS_S3_MOUNT (entry);

  agents_s3_mount_set_endpoint_url (mount, url);
  agents_s3_mount_set_region (mount, "us-east-1");
  agents_s3_mount_set_access_key_id (mount, ACCESS_KEY);
  agents_s3_mount_set_secret_access_key (mount, secret);
  agents_mount_set_read_only (AGENTS_MOUNT (entry), read_only);
  return entry;
}

/* The docker_volume strategy, rclone's: mounted on the host. */
static void
use_docker_volume (AgentsManifestEntry *entry)
{
  g_autoptr (AgentsMountStrategy) strategy =
    agents_docker_volume_mount_strategy_new ("rclone");

  agents_s3_mount_set_mount_strategy (AGENTS_S3_MOUNT (entry), strategy);
}

static AgentsManifest *
manifest_with_mount (AgentsManifestEntry *entry)
{
  AgentsManifest *manifest = agents_manifest_new ();

  agents_manifest_set_entry (manifest, "data", entry);
  return manifest;
}

static AgentsSandboxSession *
create_session (AgentsSandboxClient *client, AgentsManifest *manifest)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  AgentsSandboxSession *session;

  agents_sandbox_client_create_async (client, manifest, NULL, NULL, NULL,
                                      agents_test_async_cb, &result);
  session = agents_sandbox_client_create_finish (
    client, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
  return session;
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

static gboolean
delete_session (AgentsSandboxClient *client,
                AgentsSandboxSession *session,
                GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  agents_sandbox_client_delete_async (client, session, NULL,
                                      agents_test_async_cb, &result);
  return agents_sandbox_client_delete_finish (
    client, agents_test_wait_result (&result), error);
}

static AgentsExecResult *
run (AgentsSandboxSession *session, const char *script)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  const char *command[] = { script, NULL };
  AgentsExecResult *exec_result;

  agents_sandbox_session_exec_async (session, command, 60, TRUE, NULL, NULL,
                                     agents_test_async_cb, &result);
  exec_result = agents_sandbox_session_exec_finish (
    session, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
  return exec_result;
}

static char *
session_path (AgentsSandboxSession *session, const char *rel)
{
  return g_build_filename (
    agents_manifest_get_root (agents_sandbox_session_get_manifest (session)),
    rel, NULL);
}

/* ---- leak checks ------------------------------------------------------ */

static char *
mounts_base (void)
{
  return g_build_filename (g_get_user_runtime_dir (), "agents-1.0", "mounts",
                           NULL);
}

static guint
count_owned_dirs (void)
{
  g_autofree char *base = mounts_base ();
  g_autoptr (GDir) dir = g_dir_open (base, 0, NULL);
  guint n = 0;

  while (dir != NULL && g_dir_read_name (dir) != NULL)
    n++;
  return n;
}

static guint
count_test_mounts (void)
{
  g_autofree char *base = mounts_base ();
  g_autofree char *mountinfo = NULL;
  g_auto (GStrv) lines = NULL;
  guint n = 0;

  g_assert_true (
    g_file_get_contents ("/proc/self/mountinfo", &mountinfo, NULL, NULL));
  lines = g_strsplit (mountinfo, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (strstr (lines[i], base) != NULL)
      n++;
  return n;
}

/* Whether any process's command line holds @needle. */
static gboolean
any_cmdline_contains (const char *needle)
{
  g_autoptr (GDir) proc = g_dir_open ("/proc", 0, NULL);
  const char *name;

  while ((name = g_dir_read_name (proc)) != NULL)
    {
      g_autofree char *path = NULL;
      g_autofree char *contents = NULL;
      gsize len;

      if (!g_ascii_isdigit (name[0]))
        continue;
      path = g_build_filename ("/proc", name, "cmdline", NULL);
      if (!g_file_get_contents (path, &contents, &len, NULL))
        continue;
      for (gsize i = 0; i < len; i++)
        if (contents[i] == '\0')
          contents[i] = ' ';
      if (strstr (contents, needle) != NULL)
        return TRUE;
    }
  return FALSE;
}

/* Processes whose command line has @tool and the mounts' base. */
static guint
count_tool_processes (const char *tool)
{
  g_autoptr (GDir) proc = g_dir_open ("/proc", 0, NULL);
  g_autofree char *base = mounts_base ();
  const char *name;
  guint n = 0;

  while ((name = g_dir_read_name (proc)) != NULL)
    {
      g_autofree char *path = g_build_filename ("/proc", name, "cmdline", NULL);
      g_autofree char *contents = NULL;
      gsize len;

      if (!g_ascii_isdigit (name[0]) ||
          !g_file_get_contents (path, &contents, &len, NULL))
        continue;
      for (gsize i = 0; i + 1 < len; i++)
        if (contents[i] == '\0')
          contents[i] = ' ';
      if (strstr (contents, tool) != NULL && strstr (contents, base) != NULL)
        n++;
    }
  return n;
}

static guint
count_rclone_mounts (void)
{
  return count_tool_processes ("rclone mount ");
}

static guint
count_s3fs_mounts (void)
{
  return count_tool_processes ("s3fs ");
}

/* rclone's mounts and s3fs's (a read-only rclone mount is s3fs's when
 * s3fs is installed). */
static guint
count_tool_mounts (void)
{
  return count_rclone_mounts () + count_s3fs_mounts ();
}

static gboolean
have_s3fs (void)
{
  g_autofree char *s3fs = g_find_program_in_path ("s3fs");

  return s3fs != NULL;
}

/* ---- tests ------------------------------------------------------------ */

static void
test_read_only_mount (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autofree char *bucket = NULL;
  g_autoptr (AgentsManifestEntry) entry = NULL;
  g_autoptr (AgentsManifest) manifest = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (AgentsExecResult) listing = NULL;
  g_autoptr (AgentsExecResult) write = NULL;
  g_autoptr (AgentsHostBind) bind = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *dest = NULL;
  g_autofree char *owned = NULL;
  g_autofree char *env_file = NULL;
  g_autofree char *root = NULL;
  guint owned_before = count_owned_dirs ();
  struct stat st;

  if (skip_if_unavailable ())
    return;
  bucket = new_bucket ();
  entry = new_mount (bucket, endpoint, TRUE);
  manifest = manifest_with_mount (entry);
  agents_manifest_acknowledge_mount_credential_exposure (
    manifest, (const char *const[]){ "data", NULL });
  session = create_session (client, manifest);
  g_assert_true (start_session (session, &error));
  g_assert_no_error (error);

  /* The command sees the bucket at the mount path. */
  listing = run (session, "ls data/dir && cat data/dir/a.txt");
  out = agents_exec_result_dup_stdout_text (listing);
  if (agents_exec_result_get_exit_code (listing) != 0)
    g_test_message ("%s", agents_exec_result_dup_stderr_text (listing));
  g_assert_cmpint (agents_exec_result_get_exit_code (listing), ==, 0);
  g_assert_cmpstr (out, ==, "a.txt\nhello from s3\n");

  /* Read-only: writing fails and nothing reaches the bucket. */
  write = run (session, "echo no > data/new.txt");
  g_assert_cmpint (agents_exec_result_get_exit_code (write), !=, 0);

  /* The bucket is mounted outside the workspace, in a 0711 directory
   * of the library's, with the credentials in a 0600 file (gone once mounted),
   * never on a command line. */
  dest = session_path (session, "data");
  bind = agents_sandbox_session_lookup_host_bind (session, dest);
  g_assert_nonnull (bind);
  g_assert_true (bind->read_only);
  root = g_strdup (
    agents_manifest_get_root (agents_sandbox_session_get_manifest (session)));
  g_assert_false (g_str_has_prefix (bind->host_path, root));
  owned = g_path_get_dirname (bind->host_path);
  g_assert_cmpint (g_stat (owned, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0711);
  env_file = g_build_filename (owned, "env", NULL);
  g_assert_false (g_file_test (env_file, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (count_tool_mounts (), ==, 1);
  /* Read-only and nothing of rclone's own asked for: s3fs reads it,
   * when the host has it (s3mount-read-tool.c). */
  g_assert_cmpuint (count_s3fs_mounts (), ==, have_s3fs () ? 1 : 0);
  g_assert_false (any_cmdline_contains (secret));
  g_assert_cmpuint (count_test_mounts (), ==, 1);

  g_assert_true (delete_session (client, session, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (count_test_mounts (), ==, 0);
  g_assert_false (g_file_test (owned, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (root, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (count_owned_dirs (), ==, owned_before);
}

static gboolean
object_has (const char *path, const char *expected)
{
  g_autofree char *body = NULL;

  return curl ("GET", path, NULL, &body) == 0 &&
         g_strcmp0 (body, expected) == 0;
}

static void
test_writable_mount (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autofree char *bucket = NULL;
  g_autofree char *object = NULL;
  g_autoptr (AgentsManifestEntry) entry = NULL;
  g_autoptr (AgentsManifest) manifest = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (AgentsExecResult) write = NULL;
  g_autoptr (GError) error = NULL;

  if (skip_if_unavailable ())
    return;
  bucket = new_bucket ();
  entry = new_mount (bucket, endpoint, FALSE);
  manifest = manifest_with_mount (entry);
  agents_manifest_acknowledge_mount_credential_exposure (
    manifest, (const char *const[]){ "data", NULL });
  session = create_session (client, manifest);
  g_assert_true (start_session (session, &error));
  g_assert_no_error (error);

  /* Writable: rclone, whose cache uploads what is written. */
  g_assert_cmpuint (count_rclone_mounts (), ==, 1);
  g_assert_cmpuint (count_s3fs_mounts (), ==, 0);
  write = run (session, "mkdir -p data/out && echo written by the agent > "
                        "data/out/result.txt && cat data/dir/a.txt");
  g_assert_cmpint (agents_exec_result_get_exit_code (write), ==, 0);

  /* Deleted right away: the unmount waits for the upload, and the
   * object is in the bucket (seen through the S3 API) as soon as delete
   * returns. */
  g_assert_true (delete_session (client, session, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (count_test_mounts (), ==, 0);
  object = g_strdup_printf ("/%s/out/result.txt", bucket);
  g_assert_true (object_has (object, "written by the agent\n"));
}

static void
assert_entry_mount_fails (AgentsManifestEntry *entry,
                          const char *bucket,
                          const char *url)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autoptr (AgentsManifest) manifest = manifest_with_mount (entry);
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) context = NULL;
  guint owned_before = count_owned_dirs ();
  const char *value = NULL;

  agents_manifest_acknowledge_mount_credential_exposure (
    manifest, (const char *const[]){ "data", NULL });
  session = create_session (client, manifest);
  g_assert_false (start_session (session, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_MOUNT_FAILED);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, bucket));
  g_assert_nonnull (strstr (error->message, url));
  g_assert_null (strstr (error->message, secret));
  context = agents_sandbox_error_get_context (error);
  g_assert_true (g_variant_lookup (context, "bucket", "&s", &value));
  g_assert_cmpstr (value, ==, bucket);
  g_assert_true (g_variant_lookup (context, "endpoint_url", "&s", &value));
  g_assert_cmpstr (value, ==, url);

  /* Nothing left: no mount, no owned directory, no bind. */
  g_assert_cmpuint (count_test_mounts (), ==, 0);
  g_assert_cmpuint (count_owned_dirs (), ==, owned_before);
  g_assert_cmpuint (count_tool_mounts (), ==, 0);

  g_clear_error (&error);
  g_assert_true (delete_session (client, session, &error));
  g_assert_no_error (error);
}

static void
assert_mount_fails (const char *bucket, const char *url)
{
  g_autoptr (AgentsManifestEntry) entry = new_mount (bucket, url, TRUE);

  assert_entry_mount_fails (entry, bucket, url);
}

static void
test_unreachable_endpoint (void)
{
  if (skip_if_unavailable ())
    return;
  /* Port 9 (discard) on loopback: nothing listens there. */
  assert_mount_fails ("some-bucket", "http://127.0.0.1:9");
}

static void
test_missing_bucket (void)
{
  if (skip_if_unavailable ())
    return;
  assert_mount_fails ("no-such-bucket", endpoint);
}

static void
test_credentials_from_environment (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autofree char *bucket = NULL;
  g_autoptr (AgentsManifestEntry) entry = NULL;
  g_autoptr (AgentsManifest) manifest = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (AgentsExecResult) listing = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL;

  if (skip_if_unavailable ())
    return;
  bucket = new_bucket ();
  entry = new_mount (bucket, endpoint, TRUE);
  agents_s3_mount_set_access_key_id (AGENTS_S3_MOUNT (entry), NULL);
  agents_s3_mount_set_secret_access_key (AGENTS_S3_MOUNT (entry), NULL);
  g_setenv ("AWS_ACCESS_KEY_ID", ACCESS_KEY, TRUE);
  g_setenv ("AWS_SECRET_ACCESS_KEY", secret, TRUE);
  /* No keys in the entry: no acknowledgement needed. */
  manifest = manifest_with_mount (entry);
  session = create_session (client, manifest);
  g_assert_true (start_session (session, &error));
  g_assert_no_error (error);
  g_unsetenv ("AWS_ACCESS_KEY_ID");
  g_unsetenv ("AWS_SECRET_ACCESS_KEY");

  listing = run (session, "cat data/dir/a.txt");
  out = agents_exec_result_dup_stdout_text (listing);
  g_assert_cmpstr (out, ==, "hello from s3\n");
  g_assert_false (any_cmdline_contains (secret));

  g_assert_true (delete_session (client, session, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (count_test_mounts (), ==, 0);
}

static void
test_unacknowledged_keys_refused (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autoptr (AgentsManifestEntry) entry = NULL;
  g_autoptr (AgentsManifest) manifest = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GError) error = NULL;
  guint owned_before = count_owned_dirs ();

  if (skip_if_unavailable ())
    return;
  entry = new_mount ("any-bucket", endpoint, TRUE);
  manifest = manifest_with_mount (entry);
  session = create_session (client, manifest);
  g_assert_false (start_session (session, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_MOUNT_CONFIG);
  g_assert_true (g_str_has_prefix (error->message,
                                   "mount-scoped credentials cannot be "
                                   "exposed to a helper"));
  g_assert_cmpuint (count_owned_dirs (), ==, owned_before);
  g_assert_cmpuint (count_tool_mounts (), ==, 0);
  g_clear_error (&error);
  g_assert_true (delete_session (client, session, &error));
  g_assert_no_error (error);
}

/* A saved state holds no secret; resumed with the trusted manifest, the
 * mount works again. */
static void
test_resume_rebinds_credentials (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autofree char *bucket = NULL;
  g_autoptr (AgentsManifestEntry) entry = NULL;
  g_autoptr (AgentsManifest) manifest = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (AgentsSandboxSession) resumed = NULL;
  g_autoptr (AgentsSandboxSessionState) state = NULL;
  g_autoptr (AgentsExecResult) listing = NULL;
  g_autoptr (JsonNode) payload = NULL;
  g_autoptr (JsonNode) parsed = NULL;
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *out = NULL;

  if (skip_if_unavailable ())
    return;
  bucket = new_bucket ();
  entry = new_mount (bucket, endpoint, TRUE);
  manifest = manifest_with_mount (entry);
  agents_manifest_acknowledge_mount_credential_exposure (
    manifest, (const char *const[]){ "data", NULL });
  session = create_session (client, manifest);
  g_assert_true (start_session (session, &error));
  g_assert_no_error (error);

  payload = agents_sandbox_client_serialize_session_state (
    client, agents_sandbox_session_peek_state (session));
  text = json_to_string (payload, FALSE);
  g_assert_null (strstr (text, secret));
  g_assert_nonnull (strstr (text, "__openai_agents_redacted_mount_authority"));
  g_assert_true (delete_session (client, session, &error));
  g_assert_no_error (error);

  parsed = json_from_string (text, &error);
  g_assert_no_error (error);
  state =
    agents_sandbox_client_deserialize_session_state (client, parsed, &error);
  g_assert_no_error (error);
  g_assert_true (agents_manifest_rebind_mount_authority (
    agents_sandbox_session_state_get_manifest (state), manifest, &error));
  g_assert_no_error (error);
  agents_sandbox_client_resume_async (client, state, NULL, agents_test_async_cb,
                                      &result);
  resumed = agents_sandbox_client_resume_finish (
    client, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_true (start_session (resumed, &error));
  g_assert_no_error (error);

  listing = run (resumed, "cat data/dir/a.txt");
  out = agents_exec_result_dup_stdout_text (listing);
  g_assert_cmpstr (out, ==, "hello from s3\n");
  g_assert_true (delete_session (client, resumed, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (count_test_mounts (), ==, 0);
}

/* s3fs instead of rclone: the same mount, another tool. */
static void
test_s3fs_mount (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autoptr (AgentsMountPattern) pattern = agents_s3fs_mount_pattern_new ();
  g_autoptr (AgentsMountStrategy) strategy =
    agents_in_container_mount_strategy_new (pattern);
  g_autofree char *s3fs = g_find_program_in_path ("s3fs");
  g_autofree char *bucket = NULL;
  g_autoptr (AgentsManifestEntry) entry = NULL;
  g_autoptr (AgentsManifest) manifest = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (AgentsExecResult) listing = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL;

  if (skip_if_unavailable ())
    return;
  if (s3fs == NULL)
    {
      g_test_skip ("s3fs is not installed (apt install s3fs)");
      return;
    }
  bucket = new_bucket ();
  entry = new_mount (bucket, endpoint, TRUE);
  agents_s3_mount_set_mount_strategy (AGENTS_S3_MOUNT (entry), strategy);
  manifest = manifest_with_mount (entry);
  agents_manifest_acknowledge_mount_credential_exposure (
    manifest, (const char *const[]){ "data", NULL });
  session = create_session (client, manifest);
  g_assert_true (start_session (session, &error));
  g_assert_no_error (error);

  listing = run (session, "cat data/dir/a.txt");
  out = agents_exec_result_dup_stdout_text (listing);
  g_assert_cmpstr (out, ==, "hello from s3\n");
  g_assert_false (any_cmdline_contains (secret));

  g_assert_true (delete_session (client, session, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (count_test_mounts (), ==, 0);
}

/* s3fs checks the bucket once it has mounted and returned 0: a missing
 * bucket leaves a mount that does not answer, which must fail the
 * start and go. */
static void
test_s3fs_missing_bucket (void)
{
  g_autoptr (AgentsMountPattern) pattern = agents_s3fs_mount_pattern_new ();
  g_autoptr (AgentsMountStrategy) strategy =
    agents_in_container_mount_strategy_new (pattern);
  g_autoptr (AgentsManifestEntry) entry = NULL;

  if (skip_if_unavailable ())
    return;
  if (!have_s3fs ())
    {
      g_test_skip ("s3fs is not installed (apt install s3fs)");
      return;
    }
  entry = new_mount ("no-such-bucket", endpoint, TRUE);
  agents_s3_mount_set_mount_strategy (AGENTS_S3_MOUNT (entry), strategy);
  assert_entry_mount_fails (entry, "no-such-bucket", endpoint);
}

/* Puts large.txt, 25 MB, in @bucket: large enough for s3fs's parallel
 * ranged GETs (two parts or more). Returns its SHA-256. */
static char *
put_large_object (const char *bucket)
{
  g_autofree char *object = g_strdup_printf ("/%s/large.txt", bucket);
  GString *data = g_string_sized_new (25 * 1000 * 1000);
  char *sum;

  for (guint i = 0; data->len < 25 * 1000 * 1000; i++)
    g_string_append_printf (data, "line %08u of the large object\n", i);
  g_assert_cmpint (curl ("PUT", object, data->str, NULL), ==, 0);
  sum = g_compute_checksum_for_string (G_CHECKSUM_SHA256, data->str, data->len);
  g_string_free (data, TRUE);
  return sum;
}

/* A read-only rclone mount read by s3fs gives the object's bytes. */
static void
test_read_only_large_object (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autofree char *bucket = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *out = NULL;
  g_autoptr (AgentsManifestEntry) entry = NULL;
  g_autoptr (AgentsManifest) manifest = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (AgentsExecResult) sum = NULL;
  g_autoptr (GError) error = NULL;

  if (skip_if_unavailable ())
    return;
  bucket = new_bucket ();
  expected = put_large_object (bucket);

  entry = new_mount (bucket, endpoint, TRUE);
  manifest = manifest_with_mount (entry);
  agents_manifest_acknowledge_mount_credential_exposure (
    manifest, (const char *const[]){ "data", NULL });
  session = create_session (client, manifest);
  g_assert_true (start_session (session, &error));
  g_assert_no_error (error);
  sum = run (session, "sha256sum < data/large.txt");
  out = agents_exec_result_dup_stdout_text (sum);
  g_assert_cmpint (agents_exec_result_get_exit_code (sum), ==, 0);
  g_assert_true (g_str_has_prefix (out, expected));

  g_assert_true (delete_session (client, session, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (count_test_mounts (), ==, 0);
}

/* rclone's own settings on a read-only mount keep rclone. */
static void
test_read_only_rclone_kept (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autoptr (AgentsMountPattern) pattern = agents_rclone_mount_pattern_new ();
  g_autoptr (AgentsMountStrategy) strategy =
    agents_in_container_mount_strategy_new (pattern);
  g_autofree char *bucket = NULL;
  g_autofree char *out = NULL;
  g_autoptr (AgentsManifestEntry) entry = NULL;
  g_autoptr (AgentsManifest) manifest = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (AgentsExecResult) listing = NULL;
  g_autoptr (GError) error = NULL;

  if (skip_if_unavailable ())
    return;
  agents_rclone_mount_pattern_set_vfs_cache_mode (
    AGENTS_RCLONE_MOUNT_PATTERN (pattern), "off");
  bucket = new_bucket ();
  entry = new_mount (bucket, endpoint, TRUE);
  agents_s3_mount_set_mount_strategy (AGENTS_S3_MOUNT (entry), strategy);
  manifest = manifest_with_mount (entry);
  agents_manifest_acknowledge_mount_credential_exposure (
    manifest, (const char *const[]){ "data", NULL });
  session = create_session (client, manifest);
  g_assert_true (start_session (session, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (count_rclone_mounts (), ==, 1);
  g_assert_cmpuint (count_s3fs_mounts (), ==, 0);
  listing = run (session, "cat data/dir/a.txt");
  out = agents_exec_result_dup_stdout_text (listing);
  g_assert_cmpstr (out, ==, "hello from s3\n");

  g_assert_true (delete_session (client, session, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (count_test_mounts (), ==, 0);
}

/* A whole agent run: the run state it leaves holds no secret. */
static void
test_run_state_has_no_secret (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsSandboxAgent) agent = agents_sandbox_agent_new ("bucket");
  g_autoptr (AgentsSandboxRunConfig) sandbox = agents_sandbox_run_config_new ();
  g_autoptr (AgentsRunConfig) config = agents_run_config_new ();
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (JsonNode) input = NULL;
  g_autoptr (JsonArray) answer = NULL;
  g_autofree char *bucket = NULL;
  g_autoptr (AgentsManifestEntry) entry = NULL;
  g_autoptr (AgentsManifest) manifest = NULL;
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (AgentsRunResult) run_result = NULL;
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *state_json = NULL;

  if (skip_if_unavailable ())
    return;
  bucket = new_bucket ();
  entry = new_mount (bucket, endpoint, TRUE);
  manifest = manifest_with_mount (entry);
  agents_manifest_acknowledge_mount_credential_exposure (
    manifest, (const char *const[]){ "data", NULL });
  agents_sandbox_agent_set_default_manifest (agent, manifest);
  answer =
    agents_testing_items (agents_testing_final_output_message ("done"), NULL);
  agents_scripted_model_set_next_output (model, answer);
  agents_agent_set_model (AGENTS_AGENT (agent), AGENTS_MODEL (model));
  agents_sandbox_run_config_set_client (sandbox, client);
  agents_run_config_set_sandbox (config, G_OBJECT (sandbox));
  input = json_node_init_string (json_node_alloc (), "list the bucket");

  agents_runner_run_async (runner, AGENTS_AGENT (agent), input, config, NULL,
                           NULL, NULL, agents_test_async_cb, &result);
  run_result = agents_runner_run_finish (
    runner, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
  state = agents_run_result_to_state (run_result);
  state_json = agents_run_state_to_json (state);
  g_assert_nonnull (strstr (state_json, bucket));
  g_assert_null (strstr (state_json, secret));
  g_assert_nonnull (
    strstr (state_json, "__openai_agents_redacted_mount_authority"));
  g_assert_cmpuint (count_test_mounts (), ==, 0);
}

/* A process killed with a mount up leaves the FUSE daemon behind;
 * reaping unmounts it and removes the library's directory. */
static void
mount_and_die (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autofree char *bucket = new_bucket ();
  g_autoptr (AgentsManifestEntry) entry = new_mount (bucket, endpoint, TRUE);
  g_autoptr (AgentsManifest) manifest = manifest_with_mount (entry);
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GError) error = NULL;

  agents_manifest_set_root (manifest, g_getenv ("S3_LIVE_REAP_ROOT"));
  agents_manifest_acknowledge_mount_credential_exposure (
    manifest, (const char *const[]){ "data", NULL });
  session = create_session (client, manifest);
  g_assert_true (start_session (session, &error));
  g_assert_no_error (error);
  _exit (0);
}

static void
test_reap_after_kill (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autofree char *root = NULL;
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  guint mounts_before = count_test_mounts ();
  gssize removed;

  if (skip_if_unavailable ())
    return;
  if (g_test_subprocess ())
    {
      mount_and_die ();
      return;
    }
  root = agents_test_make_tmp_dir ("test-s3-live-reap-");
  g_setenv ("S3_LIVE_REAP_ROOT", root, TRUE);
  g_test_trap_subprocess (NULL, 120 * G_USEC_PER_SEC,
                          G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
  g_assert_cmpuint (count_test_mounts (), ==, mounts_before + 1);

  /* Live processes' mounts stay (this one has none); the dead one's go. */
  agents_sandbox_client_reap_async (client, NULL, FALSE, NULL,
                                    agents_test_async_cb, &result);
  removed = agents_sandbox_client_reap_finish (
    client, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_cmpint (removed, ==, 1);
  g_assert_cmpuint (count_test_mounts (), ==, mounts_before);
  for (guint i = 0; i < 40 && count_tool_mounts () > 0; i++)
    g_usleep (100 * 1000);
  g_assert_cmpuint (count_tool_mounts (), ==, 0);
  agents_test_rm_rf (root);
}

/* ---- docker: the host mount bound into the container ------------------ */

static char *docker_skip_reason;

static gboolean
docker_skip_if_unavailable (void)
{
  if (skip_if_unavailable ())
    return TRUE;
  if (docker_skip_reason == NULL)
    return FALSE;
  g_test_skip (docker_skip_reason);
  return TRUE;
}

static AgentsSandboxSession *
create_docker_session (AgentsSandboxClient *client, AgentsManifest *manifest)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  AgentsSandboxSession *session;

  agents_sandbox_client_create_async (
    client, manifest,
    g_variant_new_parsed ("{'image': <%s>}", AGENTS_DOCKER_TEST_IMAGE), NULL,
    NULL, agents_test_async_cb, &result);
  session = agents_sandbox_client_create_finish (
    client, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
  return session;
}

static gboolean
shutdown_session (AgentsSandboxSession *session, GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  agents_sandbox_session_shutdown_async (session, NULL, agents_test_async_cb,
                                         &result);
  return agents_sandbox_session_shutdown_finish (
    session, agents_test_wait_result (&result), error);
}

/* The libagents volumes of the engine (docker_volume). */
static guint
count_managed_volumes (void)
{
  g_autoptr (AgentsDockerEngine) engine = agents_docker_engine_new (NULL, NULL);
  g_autofree char *filter = agents_docker_engine_escape (
    "{\"label\":[\"" AGENTS_DOCKER_LABEL_MANAGED "=true\"]}");
  g_autofree char *path = g_strdup_printf ("/volumes?filters=%s", filter);
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) answer = agents_docker_engine_call_json (
    engine, "GET", path, NULL, NULL, NULL, &error);
  JsonObject *object;
  JsonNode *volumes;

  g_assert_no_error (error);
  object = json_node_get_object (answer);
  volumes = json_object_get_member (object, "Volumes");
  if (volumes == NULL || !JSON_NODE_HOLDS_ARRAY (volumes))
    return 0;
  return json_array_get_length (json_node_get_array (volumes));
}

/* Whether the container @id was given capability @cap and the FUSE
 * device (HostConfig.CapAdd, HostConfig.Devices). */
static void
container_privileges (const char *id, gboolean *sys_admin, gboolean *fuse)
{
  g_autoptr (AgentsDockerEngine) engine = agents_docker_engine_new (NULL, NULL);
  g_autofree char *path = g_strdup_printf ("/containers/%s/json", id);
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) info = agents_docker_engine_call_json (
    engine, "GET", path, NULL, NULL, NULL, &error);
  JsonObject *host_config;
  JsonNode *caps, *devices;

  g_assert_no_error (error);
  host_config =
    json_object_get_object_member (json_node_get_object (info), "HostConfig");
  caps = json_object_get_member (host_config, "CapAdd");
  devices = json_object_get_member (host_config, "Devices");
  *sys_admin = FALSE;
  *fuse = FALSE;
  for (guint i = 0; caps != NULL && JSON_NODE_HOLDS_ARRAY (caps) &&
                    i < json_array_get_length (json_node_get_array (caps));
       i++)
    if (g_str_has_suffix (
          json_array_get_string_element (json_node_get_array (caps), i),
          "SYS_ADMIN"))
      *sys_admin = TRUE;
  for (guint i = 0; devices != NULL && JSON_NODE_HOLDS_ARRAY (devices) &&
                    i < json_array_get_length (json_node_get_array (devices));
       i++)
    if (g_strcmp0 (
          json_object_get_string_member_with_default (
            json_array_get_object_element (json_node_get_array (devices), i),
            "PathOnHost", NULL),
          "/dev/fuse") == 0)
      *fuse = TRUE;
}

static const char *
session_container_id (AgentsSandboxSession *session)
{
  return agents_docker_session_state_get_container_id (
    AGENTS_DOCKER_SESSION_STATE (agents_sandbox_session_peek_state (session)));
}

/* @session's state saved (without secrets) and read back, its keys
 * given back from the trusted @manifest, and resumed with @options. */
static AgentsSandboxSession *
resume_docker_session (AgentsSandboxClient *client,
                       AgentsSandboxSession *session,
                       AgentsManifest *manifest,
                       GVariant *options)
{
  g_autoptr (JsonNode) payload = agents_sandbox_client_serialize_session_state (
    client, agents_sandbox_session_peek_state (session));
  g_autofree char *text = json_to_string (payload, FALSE);
  g_autoptr (JsonNode) parsed = NULL;
  g_autoptr (AgentsSandboxSessionState) state = NULL;
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  AgentsSandboxSession *resumed;

  g_assert_null (strstr (text, secret));
  parsed = json_from_string (text, &error);
  g_assert_no_error (error);
  state =
    agents_sandbox_client_deserialize_session_state (client, parsed, &error);
  g_assert_no_error (error);
  g_assert_true (agents_manifest_rebind_mount_authority (
    agents_sandbox_session_state_get_manifest (state), manifest, &error));
  g_assert_no_error (error);
  if (options == NULL)
    options =
      g_variant_new_parsed ("{'image': <%s>}", AGENTS_DOCKER_TEST_IMAGE);
  agents_sandbox_client_resume_with_options_async (
    client, state, options, NULL, NULL, agents_test_async_cb, &result);
  resumed = agents_sandbox_client_resume_finish (
    client, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
  return resumed;
}

static void
wait_for_no_rclone (void)
{
  for (guint i = 0; i < 100 && count_tool_mounts () > 0; i++)
    g_usleep (100 * 1000);
  g_assert_cmpuint (count_tool_mounts (), ==, 0);
}

static void
assert_docker_sees_bucket (AgentsSandboxSession *session)
{
  g_autoptr (AgentsExecResult) listing = NULL;
  g_autoptr (AgentsExecResult) write = NULL;
  g_autoptr (AgentsExecResult) fuse = NULL;
  g_autofree char *out = NULL;

  listing = run (session, "ls data/dir && cat data/dir/a.txt");
  out = agents_exec_result_dup_stdout_text (listing);
  if (agents_exec_result_get_exit_code (listing) != 0)
    g_test_message ("%s", agents_exec_result_dup_stderr_text (listing));
  g_assert_cmpint (agents_exec_result_get_exit_code (listing), ==, 0);
  g_assert_cmpstr (out, ==, "a.txt\nhello from s3\n");

  /* Read-only in the container too. */
  write = run (session, "echo no > data/new.txt");
  g_assert_cmpint (agents_exec_result_get_exit_code (write), !=, 0);

  /* The container needs no FUSE device of its own. */
  fuse = run (session, "test -e /dev/fuse");
  g_assert_cmpint (agents_exec_result_get_exit_code (fuse), !=, 0);
}

static void
test_docker_volume (void)
{
  g_autoptr (AgentsSandboxClient) client = NULL;
  g_autoptr (AgentsSandboxSession) resumed = NULL;
  g_autofree char *container_id = NULL;
  guint volumes_before = 0;
  gboolean sys_admin, fuse;
  g_autofree char *bucket = NULL;
  g_autoptr (AgentsManifestEntry) entry = NULL;
  g_autoptr (AgentsManifest) manifest = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (AgentsHostBind) bind = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *dest = NULL;
  g_autofree char *owned = NULL;
  guint owned_before = count_owned_dirs ();
  gboolean dest_existed_on_host;

  if (docker_skip_if_unavailable ())
    return;
  client = agents_docker_client_new ();
  volumes_before = count_managed_volumes ();
  bucket = new_bucket ();
  entry = new_mount (bucket, endpoint, TRUE);
  use_docker_volume (entry);
  /* The keys stay on the host: no acknowledgement is needed. */
  manifest = manifest_with_mount (entry);
  session = create_docker_session (client, manifest);
  container_id = g_strdup (session_container_id (session));
  {
    g_autofree char *target = session_path (session, "data");

    dest_existed_on_host = g_file_test (target, G_FILE_TEST_EXISTS);
  }
  g_assert_true (start_session (session, &error));
  g_assert_no_error (error);

  assert_docker_sees_bucket (session);

  /* Mounted once, on the host, outside the container. */
  dest = session_path (session, "data");
  bind = agents_sandbox_session_lookup_host_bind (session, dest);
  g_assert_nonnull (bind);
  /* The mount point is the container's: nothing is made at that path on
   * the host. */
  if (!dest_existed_on_host)
    g_assert_false (g_file_test (dest, G_FILE_TEST_EXISTS));
  g_assert_true (bind->read_only);
  owned = g_path_get_dirname (bind->host_path);
  g_assert_cmpuint (count_test_mounts (), ==, 1);
  /* The container has it as a named Docker volume, and no privilege
   * for FUSE. */
  g_assert_cmpuint (count_managed_volumes (), ==, volumes_before + 1);
  container_privileges (container_id, &sys_admin, &fuse);
  g_assert_false (sys_admin);
  g_assert_false (fuse);
  g_assert_cmpuint (count_tool_mounts (), ==, 1);
  g_assert_false (any_cmdline_contains (secret));

  /* Shut down, the container lets go and the mount goes. */
  g_assert_true (shutdown_session (session, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (count_test_mounts (), ==, 0);
  g_assert_false (g_file_test (owned, G_FILE_TEST_EXISTS));
  wait_for_no_rclone ();

  /* Started again, the bucket is mounted again at the same host path,
   * so the stopped container is used again, not replaced. */
  g_assert_true (start_session (session, &error));
  g_assert_no_error (error);
  assert_docker_sees_bucket (session);
  g_assert_cmpuint (count_test_mounts (), ==, 1);
  g_assert_cmpuint (agents_docker_test_count_own_containers (), ==, 1);
  g_assert_cmpstr (session_container_id (session), ==, container_id);

  /* Resumed from its saved state (shut down, as another process would
   * find it), it keeps its container too. */
  g_assert_true (shutdown_session (session, &error));
  g_assert_no_error (error);
  resumed = resume_docker_session (client, session, manifest, NULL);
  g_assert_true (start_session (resumed, &error));
  g_assert_no_error (error);
  assert_docker_sees_bucket (resumed);
  g_assert_cmpstr (session_container_id (resumed), ==, container_id);
  g_assert_cmpuint (agents_docker_test_count_own_containers (), ==, 1);
  g_clear_object (&session);
  session = g_steal_pointer (&resumed);

  g_assert_true (delete_session (client, session, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (count_test_mounts (), ==, 0);
  g_assert_cmpuint (count_owned_dirs (), ==, owned_before);
  wait_for_no_rclone ();
  g_assert_cmpuint (agents_docker_test_count_own_containers (), ==, 0);
  g_assert_cmpuint (count_managed_volumes (), ==, volumes_before);
}

/* Deleted while running: the container goes first, then the mount. */
static void
test_docker_delete_unmounts (void)
{
  g_autoptr (AgentsManifestEntry) late = NULL;
  g_autofree char *late_dest = NULL;
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (AgentsSandboxClient) client = NULL;
  g_autofree char *bucket = NULL;
  g_autoptr (AgentsManifestEntry) entry = NULL;
  g_autoptr (AgentsManifest) manifest = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GError) error = NULL;
  guint owned_before = count_owned_dirs ();

  if (docker_skip_if_unavailable ())
    return;
  client = agents_docker_client_new ();
  bucket = new_bucket ();
  entry = new_mount (bucket, endpoint, TRUE);
  use_docker_volume (entry);
  manifest = manifest_with_mount (entry);
  session = create_docker_session (client, manifest);
  g_assert_true (start_session (session, &error));
  g_assert_no_error (error);
  assert_docker_sees_bucket (session);
  g_assert_cmpuint (count_test_mounts (), ==, 1);

  /* The engine cannot bind into the running container: a bucket mounted
   * later is refused, not mounted where the container never sees it. */
  late = new_mount (bucket, endpoint, TRUE);
  use_docker_volume (late);
  late_dest = session_path (session, "late");
  agents_mount_mount_async (AGENTS_MOUNT (late), session, late_dest, NULL, NULL,
                            agents_test_async_cb, &result);
  g_assert_false (agents_mount_mount_finish (
    AGENTS_MOUNT (late), agents_test_wait_result (&result), &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_NOT_SUPPORTED);
  g_clear_error (&error);
  g_assert_cmpuint (count_test_mounts (), ==, 1);

  g_assert_true (delete_session (client, session, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (count_test_mounts (), ==, 0);
  g_assert_cmpuint (count_owned_dirs (), ==, owned_before);
  wait_for_no_rclone ();
  g_assert_cmpuint (agents_docker_test_count_own_containers (), ==, 0);
}

/* A mount that cannot start leaves no container, mount or directory. */
static void
test_docker_mount_fails (void)
{
  guint volumes_before = 0;
  g_autoptr (AgentsSandboxClient) client = NULL;
  g_autoptr (AgentsManifestEntry) entry = NULL;
  g_autoptr (AgentsManifest) manifest = NULL;
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GError) error = NULL;
  guint owned_before = count_owned_dirs ();

  if (docker_skip_if_unavailable ())
    return;
  client = agents_docker_client_new ();
  volumes_before = count_managed_volumes ();
  entry = new_mount ("no-such-bucket", endpoint, TRUE);
  use_docker_volume (entry);
  manifest = manifest_with_mount (entry);
  agents_sandbox_client_create_async (
    client, manifest,
    g_variant_new_parsed ("{'image': <%s>}", AGENTS_DOCKER_TEST_IMAGE), NULL,
    NULL, agents_test_async_cb, &result);
  session = agents_sandbox_client_create_finish (
    client, agents_test_wait_result (&result), &error);
  g_assert_null (session);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "no-such-bucket"));
  g_assert_null (strstr (error->message, secret));
  g_assert_cmpuint (count_test_mounts (), ==, 0);
  g_assert_cmpuint (count_owned_dirs (), ==, owned_before);
  g_assert_cmpuint (agents_docker_test_count_own_containers (), ==, 0);
  g_assert_cmpuint (count_managed_volumes (), ==, volumes_before);
}

/* ---- docker: the FUSE tool inside the container ---------------------- */

#define FUSE_IMAGE "libagents-test:fuse"

static char *fuse_skip_reason;

/* The image with rclone, s3fs and fusermount3 (tests/docker/build-image.sh
 * --fuse), built when missing. */
static char *
find_fuse_skip_reason (void)
{
  g_autofree char *script =
    g_test_build_filename (G_TEST_DIST, "docker", "build-image.sh", NULL);
  const char *argv[] = { "sh", script, "--fuse", NULL };
  g_autofree char *err = NULL;
  g_autoptr (GError) error = NULL;
  int status = 0;

  if (!g_file_test ("/dev/fuse", G_FILE_TEST_EXISTS))
    return g_strdup ("no /dev/fuse for the container");
  if (!g_spawn_sync (NULL, (char **) argv, NULL,
                     G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
                     NULL, NULL, &err, &status, &error) ||
      !g_spawn_check_wait_status (status, NULL))
    return g_strdup_printf ("cannot build %s: %s", FUSE_IMAGE,
                            error ? error->message : err);
  return NULL;
}

static gboolean
fuse_skip_if_unavailable (void)
{
  if (docker_skip_if_unavailable ())
    return TRUE;
  if (fuse_skip_reason == NULL)
    return FALSE;
  g_test_skip (fuse_skip_reason);
  return TRUE;
}

/* The FUSE image, on the host's network: the S3 server listens on the
 * host's 127.0.0.1. */
static GVariant *
fuse_options (void)
{
  return g_variant_new_parsed ("{'image': <%s>, 'network': <'host'>, "
                               "'allow_host_network': <true>}",
                               FUSE_IMAGE);
}

static AgentsSandboxSession *
create_fuse_session (AgentsSandboxClient *client, AgentsManifest *manifest)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  AgentsSandboxSession *session;

  agents_sandbox_client_create_async (client, manifest, fuse_options (), NULL,
                                      NULL, agents_test_async_cb, &result);
  session = agents_sandbox_client_create_finish (
    client, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
  return session;
}

static char *
run_stdout (AgentsSandboxSession *session, const char *script, int *status)
{
  g_autoptr (AgentsExecResult) result = run (session, script);

  if (status != NULL)
    *status = agents_exec_result_get_exit_code (result);
  else if (agents_exec_result_get_exit_code (result) != 0)
    {
      g_autofree char *err = agents_exec_result_dup_stderr_text (result);

      g_test_message ("%s: %s", script, err);
      g_assert_cmpint (agents_exec_result_get_exit_code (result), ==, 0);
    }
  return agents_exec_result_dup_stdout_text (result);
}

static void
test_docker_in_container (void)
{
  g_autoptr (AgentsSandboxClient) client = NULL;
  g_autofree char *bucket = NULL;
  g_autofree char *object = NULL;
  g_autofree char *container_id = NULL;
  g_autoptr (AgentsManifestEntry) entry = NULL;
  g_autoptr (AgentsManifest) manifest = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (AgentsSandboxSession) resumed = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *mounts = NULL;
  guint host_mounts_before = count_test_mounts ();
  gboolean sys_admin, fuse;
  int status;

  if (fuse_skip_if_unavailable ())
    return;
  client = agents_docker_client_new ();
  bucket = new_bucket ();
  entry = new_mount (bucket, endpoint, FALSE);
  manifest = manifest_with_mount (entry);
  agents_manifest_acknowledge_mount_credential_exposure (
    manifest, (const char *const[]){ "data", NULL });
  session = create_fuse_session (client, manifest);
  container_id = g_strdup (session_container_id (session));
  start_session (session, &error);
  g_assert_no_error (error);

  /* The tool runs in the container, which has the FUSE device: the
   * mount is the container's, not the host's. */
  out = run_stdout (session, "ls data/dir && cat data/dir/a.txt", NULL);
  g_assert_cmpstr (out, ==, "a.txt\nhello from s3\n");
  mounts = run_stdout (session, "grep \" $PWD/data \" /proc/mounts", NULL);
  g_assert_nonnull (strstr (mounts, "fuse"));
  g_assert_cmpuint (count_test_mounts (), ==, host_mounts_before);
  g_clear_pointer (&out, g_free);
  out = run_stdout (session, "test -c /dev/fuse && echo fuse", NULL);
  g_assert_cmpstr (out, ==, "fuse\n");
  container_privileges (container_id, &sys_admin, &fuse);
  g_assert_true (sys_admin);
  g_assert_true (fuse);

  /* The credentials went through a file that is gone, and are on no
   * command line (the container's processes are the host's too). */
  g_clear_pointer (&out, g_free);
  out = run_stdout (session, "test -e .sandbox-s3mount", &status);
  g_assert_cmpint (status, !=, 0);
  g_assert_false (any_cmdline_contains (secret));

  /* Writable: an object written in the container is in the bucket. */
  g_clear_pointer (&out, g_free);
  out = run_stdout (session,
                    "mkdir -p data/out && echo written in the container > "
                    "data/out/result.txt",
                    NULL);

  /* Shut down (the mount goes first, its upload done), started again:
   * the same container, mounted again. */
  g_assert_true (shutdown_session (session, &error));
  g_assert_no_error (error);
  object = g_strdup_printf ("/%s/out/result.txt", bucket);
  g_assert_true (object_has (object, "written in the container\n"));
  start_session (session, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (session_container_id (session), ==, container_id);
  g_clear_pointer (&out, g_free);
  out = run_stdout (session, "cat data/out/result.txt", NULL);
  g_assert_cmpstr (out, ==, "written in the container\n");

  /* Resumed from its saved state while the container runs: the same
   * container, and the mount it has is kept. */
  resumed = resume_docker_session (client, session, manifest, fuse_options ());
  start_session (resumed, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (session_container_id (resumed), ==, container_id);
  g_clear_pointer (&out, g_free);
  out = run_stdout (resumed, "cat data/dir/a.txt", NULL);
  g_assert_cmpstr (out, ==, "hello from s3\n");
  g_assert_cmpuint (agents_docker_test_count_own_containers (), ==, 1);

  g_assert_true (delete_session (client, resumed, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (agents_docker_test_count_own_containers (), ==, 0);
  g_assert_cmpuint (count_test_mounts (), ==, host_mounts_before);
  g_assert_false (any_cmdline_contains (secret));
}

/* The FUSE type of the mount at data/ in @session's container:
 * `fuse.s3fs` or `fuse.rclone`. */
static char *
container_mount_type (AgentsSandboxSession *session)
{
  g_autofree char *line =
    run_stdout (session, "grep \" $PWD/data \" /proc/mounts", NULL);
  g_auto (GStrv) fields = g_strsplit (g_strstrip (line), " ", -1);

  g_assert_cmpuint (g_strv_length (fields), >=, 3);
  return g_strdup (fields[2]);
}

/* A read-only mount whose strategy names rclone is made by s3fs in a
 * container that has it (the FUSE image does), as on the host, and
 * reads a large object's bytes; the keys went through a file that is
 * gone and are on no command line. An image built before it had s3fs
 * gets rclone: that is checked, and the test says to rebuild it. */
static void
test_docker_in_container_read_only_large_object (void)
{
  g_autoptr (AgentsSandboxClient) client = NULL;
  g_autofree char *bucket = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *out = NULL;
  g_autofree char *type = NULL;
  g_autoptr (AgentsManifestEntry) entry = NULL;
  g_autoptr (AgentsManifest) manifest = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GError) error = NULL;
  gboolean has_s3fs;
  int status;

  if (fuse_skip_if_unavailable ())
    return;
  client = agents_docker_client_new ();
  bucket = new_bucket ();
  expected = put_large_object (bucket);
  entry = new_mount (bucket, endpoint, TRUE);
  manifest = manifest_with_mount (entry);
  agents_manifest_acknowledge_mount_credential_exposure (
    manifest, (const char *const[]){ "data", NULL });
  session = create_fuse_session (client, manifest);
  start_session (session, &error);
  g_assert_no_error (error);

  out = run_stdout (session, "command -v s3fs", &status);
  has_s3fs = status == 0;
  type = container_mount_type (session);
  g_assert_cmpstr (type, ==, has_s3fs ? "fuse.s3fs" : "fuse.rclone");
  g_clear_pointer (&out, g_free);
  out = run_stdout (session, "sha256sum < data/large.txt", NULL);
  g_assert_true (g_str_has_prefix (out, expected));
  g_clear_pointer (&out, g_free);
  out = run_stdout (session, "cat data/dir/a.txt", NULL);
  g_assert_cmpstr (out, ==, "hello from s3\n");
  /* Read-only: s3fs was given `-o ro`. */
  g_clear_pointer (&out, g_free);
  out = run_stdout (session, "echo x > data/new.txt", &status);
  g_assert_cmpint (status, !=, 0);

  g_clear_pointer (&out, g_free);
  out = run_stdout (session, "test -e .sandbox-s3mount", &status);
  g_assert_cmpint (status, !=, 0);
  g_assert_false (any_cmdline_contains (secret));

  g_assert_true (delete_session (client, session, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (agents_docker_test_count_own_containers (), ==, 0);
  if (!has_s3fs)
    g_test_skip ("the FUSE image has no s3fs: rclone's mount was checked "
                 "(tests/docker/build-image.sh --fuse --force)");
}

/* rclone's own settings on a read-only in-container mount keep rclone,
 * s3fs or not. */
static void
test_docker_in_container_rclone_kept (void)
{
  g_autoptr (AgentsSandboxClient) client = NULL;
  g_autoptr (AgentsMountPattern) pattern = agents_rclone_mount_pattern_new ();
  g_autoptr (AgentsMountStrategy) strategy =
    agents_in_container_mount_strategy_new (pattern);
  g_autofree char *bucket = NULL;
  g_autofree char *out = NULL;
  g_autofree char *type = NULL;
  g_autoptr (AgentsManifestEntry) entry = NULL;
  g_autoptr (AgentsManifest) manifest = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GError) error = NULL;

  if (fuse_skip_if_unavailable ())
    return;
  client = agents_docker_client_new ();
  agents_rclone_mount_pattern_set_vfs_cache_mode (
    AGENTS_RCLONE_MOUNT_PATTERN (pattern), "off");
  bucket = new_bucket ();
  entry = new_mount (bucket, endpoint, TRUE);
  agents_s3_mount_set_mount_strategy (AGENTS_S3_MOUNT (entry), strategy);
  manifest = manifest_with_mount (entry);
  agents_manifest_acknowledge_mount_credential_exposure (
    manifest, (const char *const[]){ "data", NULL });
  session = create_fuse_session (client, manifest);
  start_session (session, &error);
  g_assert_no_error (error);

  type = container_mount_type (session);
  g_assert_cmpstr (type, ==, "fuse.rclone");
  out = run_stdout (session, "cat data/dir/a.txt", NULL);
  g_assert_cmpstr (out, ==, "hello from s3\n");

  g_assert_true (delete_session (client, session, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (agents_docker_test_count_own_containers (), ==, 0);
}

/* A bucket that does not exist: the error names it and the endpoint but
 * no secret, and the container keeps no mount point, mount or file of
 * the attempt. */
static void
test_docker_in_container_fails (void)
{
  g_autoptr (AgentsSandboxClient) client = NULL;
  g_autoptr (AgentsManifestEntry) entry = NULL;
  g_autoptr (AgentsManifest) manifest = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL;
  int status;

  if (fuse_skip_if_unavailable ())
    return;
  client = agents_docker_client_new ();
  entry = new_mount ("no-such-bucket", endpoint, TRUE);
  manifest = manifest_with_mount (entry);
  agents_manifest_acknowledge_mount_credential_exposure (
    manifest, (const char *const[]){ "data", NULL });
  session = create_fuse_session (client, manifest);
  g_assert_false (start_session (session, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_MOUNT_FAILED);
  g_assert_nonnull (strstr (error->message, "no-such-bucket"));
  g_assert_nonnull (strstr (error->message, endpoint));
  g_assert_null (strstr (error->message, secret));
  g_assert_null (strstr (error->message, ACCESS_KEY "="));
  g_clear_error (&error);

  out = run_stdout (session,
                    "test -e data || test -e .sandbox-s3mount || "
                    "test -e /tmp/.agents-s3mount/* || grep -q fuse "
                    "/proc/mounts",
                    &status);
  g_assert_cmpint (status, !=, 0);
  g_assert_false (any_cmdline_contains (secret));

  g_assert_true (delete_session (client, session, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (agents_docker_test_count_own_containers (), ==, 0);
}

/* docker_volume is the docker backend's: unix_local refuses it. */
static void
test_unix_local_refuses_docker_volume (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autoptr (AgentsManifestEntry) entry = NULL;
  g_autoptr (AgentsManifest) manifest = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GError) error = NULL;
  guint owned_before = count_owned_dirs ();

  if (skip_if_unavailable ())
    return;
  entry = new_mount ("any-bucket", endpoint, TRUE);
  use_docker_volume (entry);
  manifest = manifest_with_mount (entry);
  session = create_session (client, manifest);
  g_assert_false (start_session (session, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_MOUNT_CONFIG);
  g_assert_cmpstr (error->message, ==,
                   "docker-volume mounts are not supported by this sandbox "
                   "backend");
  g_assert_cmpuint (count_owned_dirs (), ==, owned_before);
  g_clear_error (&error);
  g_assert_true (delete_session (client, session, &error));
  g_assert_no_error (error);
}

/* A docker_volume volume whose container is gone (its process died
 * before deleting it, and the container was reaped) goes at the next
 * reap; one a container still uses stays. */
static gboolean
volume_exists (AgentsDockerEngine *engine, const char *name)
{
  g_autofree char *path = g_strdup_printf ("/volumes/%s", name);
  g_autoptr (JsonNode) answer = NULL;
  g_autoptr (GError) error = NULL;

  answer = agents_docker_engine_call_json (engine, "GET", path, NULL, NULL,
                                           NULL, &error);
  if (g_error_matches (error, AGENTS_DOCKER_ERROR,
                       AGENTS_DOCKER_ERROR_NOT_FOUND))
    return FALSE;
  g_assert_no_error (error);
  return TRUE;
}

static void
test_docker_reap_volumes (void)
{
  g_autoptr (AgentsSandboxClient) client = NULL;
  g_autoptr (AgentsDockerEngine) engine = NULL;
  g_autoptr (JsonNode) body = NULL;
  g_autoptr (JsonNode) answer = NULL;
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *name = NULL;
  g_autofree char *text = NULL;

  if (docker_skip_if_unavailable ())
    return;
  client = agents_docker_client_new ();
  engine = agents_docker_engine_new (NULL, &error);
  g_assert_no_error (error);
  name = g_strdup_printf ("sandbox_test_reap_%d", (int) getpid ());
  text = g_strdup_printf (
    "{\"Name\":\"%s\",\"Labels\":{\"" AGENTS_DOCKER_LABEL_MANAGED
    "\":\"true\"}}",
    name);
  body = json_from_string (text, &error);
  g_assert_no_error (error);
  answer = agents_docker_engine_call_json (engine, "POST", "/volumes/create",
                                           body, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (volume_exists (engine, name));

  agents_sandbox_client_reap_async (client, NULL, FALSE, NULL,
                                    agents_test_async_cb, &result);
  agents_sandbox_client_reap_finish (client, agents_test_wait_result (&result),
                                     &error);
  g_assert_no_error (error);
  g_assert_false (volume_exists (engine, name));
}

/* Runs last: every mount the tests made is gone. */
static void
test_no_mounts_left (void)
{
  if (skip_if_unavailable ())
    return;
  g_assert_cmpuint (count_test_mounts (), ==, 0);
  g_assert_cmpuint (count_tool_mounts (), ==, 0);
}

int
main (int argc, char *argv[])
{
  g_autofree char *runtime_dir = NULL;

  /* Mount directories of this program's own: another test's `agents
   * reap` (test-cli) must not take the dead child's mount first. */
  runtime_dir = g_build_filename (g_getenv ("G_TEST_BUILDDIR")
                                    ? g_getenv ("G_TEST_BUILDDIR")
                                    : g_get_tmp_dir (),
                                  "s3-live-runtime", NULL);
  g_mkdir_with_parents (runtime_dir, 0711);
  g_chmod (runtime_dir, 0711);
  g_setenv ("XDG_RUNTIME_DIR", runtime_dir, TRUE);
  g_setenv ("AGENTS_PLUGIN_PATH", "", TRUE);
  g_test_init (&argc, &argv, NULL);

  agents_unix_local_register_types ();
  agents_docker_register_types ();
  agents_s3mount_register_types ();
  secret = g_strdup_printf ("Sec%08xRET%08x", g_random_int (), g_random_int ());
  skip_reason = find_skip_reason ();
  docker_skip_reason = agents_docker_test_unavailable ();
  if (skip_reason == NULL && docker_skip_reason == NULL)
    fuse_skip_reason = find_fuse_skip_reason ();

  g_test_add_func ("/s3/unix-local/read-only", test_read_only_mount);
  g_test_add_func ("/s3/unix-local/writable", test_writable_mount);
  g_test_add_func ("/s3/unix-local/unreachable-endpoint",
                   test_unreachable_endpoint);
  g_test_add_func ("/s3/unix-local/missing-bucket", test_missing_bucket);
  g_test_add_func ("/s3/unix-local/credentials-from-environment",
                   test_credentials_from_environment);
  g_test_add_func ("/s3/unix-local/unacknowledged-keys-refused",
                   test_unacknowledged_keys_refused);
  g_test_add_func ("/s3/unix-local/resume-rebinds-credentials",
                   test_resume_rebinds_credentials);
  g_test_add_func ("/s3/unix-local/s3fs", test_s3fs_mount);
  g_test_add_func ("/s3/unix-local/s3fs-missing-bucket",
                   test_s3fs_missing_bucket);
  g_test_add_func ("/s3/unix-local/read-only-large-object",
                   test_read_only_large_object);
  g_test_add_func ("/s3/unix-local/read-only-rclone-kept",
                   test_read_only_rclone_kept);
  g_test_add_func ("/s3/unix-local/run-state-has-no-secret",
                   test_run_state_has_no_secret);
  g_test_add_func ("/s3/unix-local/reap-after-kill", test_reap_after_kill);
  g_test_add_func ("/s3/unix-local/docker-volume-refused",
                   test_unix_local_refuses_docker_volume);
  g_test_add_func ("/s3/docker/volume", test_docker_volume);
  g_test_add_func ("/s3/docker/delete-unmounts", test_docker_delete_unmounts);
  g_test_add_func ("/s3/docker/mount-fails", test_docker_mount_fails);
  g_test_add_func ("/s3/docker/reap-volumes", test_docker_reap_volumes);
  g_test_add_func ("/s3/docker/in-container", test_docker_in_container);
  g_test_add_func ("/s3/docker/in-container-fails",
                   test_docker_in_container_fails);
  g_test_add_func ("/s3/docker/in-container-read-only-large-object",
                   test_docker_in_container_read_only_large_object);
  g_test_add_func ("/s3/docker/in-container-rclone-kept",
                   test_docker_in_container_rclone_kept);
  g_test_add_func ("/s3/zz-leaks/no-mounts-left", test_no_mounts_left);

  return agents_docker_test_run_and_reap ();
}
