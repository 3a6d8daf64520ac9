/* test-s3mount.c - the "s3_mount" entry, its strategies and patterns
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <unistd.h>

#include "agents-host-bind-private.h"
#include "agents-mount-security-private.h"
#include "agents-s3-mount.h"
#include "fake-session.h"
#include "s3mount-host-private.h"
#include "test-utils.h"

#define MOUNT_PATH "/workspace/remote"
#define SECRET_KEY_ID "AKIATESTKEYID0000001"
#define SECRET_ACCESS "s3cr3t/Access+Key/VALUE"
#define SECRET_TOKEN "SESSION-TOKEN-VALUE-123"

/* ---- a session whose exec runs argv on the host ----------------------- */

#define TEST_TYPE_FAKE_SESSION (test_fake_session_get_type ())
G_DECLARE_FINAL_TYPE (
  TestFakeSession, test_fake_session, TEST, FAKE_SESSION, GObject)

struct _TestFakeSession
{
  GObject parent_instance;

  char *path_env; /* PATH of the commands, NULL for the test's own */
  AgentsSandboxSessionState *state;
  guint exec_calls;
};

static void test_fake_session_iface_init (AgentsSandboxSessionInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  TestFakeSession,
  test_fake_session,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_SANDBOX_SESSION,
                         test_fake_session_iface_init))

static AgentsSandboxSessionState *
fake_get_state (AgentsSandboxSession *session)
{
  TestFakeSession *self = TEST_FAKE_SESSION (session);

  if (self->state == NULL)
    {
      g_autoptr (AgentsManifest) manifest = agents_manifest_new ();

      self->state = agents_sandbox_session_state_new (manifest, NULL);
    }
  return g_object_ref (self->state);
}

static void
fake_communicate_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GSubprocess *proc = G_SUBPROCESS (source);
  g_autoptr (GBytes) out = NULL;
  g_autoptr (GBytes) err = NULL;
  g_autoptr (GError) error = NULL;
  int status;

  if (!g_subprocess_communicate_finish (proc, result, &out, &err, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  status = g_subprocess_get_if_exited (proc)
             ? g_subprocess_get_exit_status (proc)
             : -1;
  g_task_return_pointer (task, agents_exec_result_new (out, err, status),
                         g_object_unref);
}

static void
fake_exec (AgentsSandboxSession *session,
           const char *const *argv,
           double timeout,
           GTask *task)
{
  TestFakeSession *self = TEST_FAKE_SESSION (session);
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (GSubprocess) proc = NULL;
  GError *error = NULL;

  self->exec_calls++;
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                        G_SUBPROCESS_FLAGS_STDERR_PIPE);
  if (self->path_env != NULL)
    g_subprocess_launcher_setenv (launcher, "PATH", self->path_env, TRUE);
  proc = g_subprocess_launcher_spawnv (launcher, argv, &error);
  if (proc == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  g_subprocess_communicate_async (proc, NULL, g_task_get_cancellable (task),
                                  fake_communicate_cb, g_object_ref (task));
}

static void
test_fake_session_iface_init (AgentsSandboxSessionInterface *iface)
{
  iface->get_state = fake_get_state;
  iface->exec = fake_exec;
}

static void
test_fake_session_finalize (GObject *object)
{
  TestFakeSession *self = TEST_FAKE_SESSION (object);

  g_free (self->path_env);
  g_clear_object (&self->state);

  G_OBJECT_CLASS (test_fake_session_parent_class)->finalize (object);
}

static void
test_fake_session_class_init (TestFakeSessionClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_fake_session_finalize;
}

static void
test_fake_session_init (TestFakeSession *self)
{
}

/* ---- helpers ---------------------------------------------------------- */

static AgentsManifestEntry *
new_mount (AgentsMountPattern *pattern)
{
  g_autoptr (AgentsMountStrategy) strategy =
    agents_in_container_mount_strategy_new (pattern);

  return agents_s3_mount_new ("bucket", strategy);
}

static AgentsManifestEntry *
new_mountpoint_mount (void)
{
  g_autoptr (AgentsMountPattern) pattern =
    agents_mountpoint_mount_pattern_new ();

  return new_mount (pattern);
}

/* Everything optional set, read-write. */
static void
configure_fully (AgentsS3Mount *mount)
{
  AgentsInContainerMountStrategy *strategy =
    AGENTS_IN_CONTAINER_MOUNT_STRATEGY (
      agents_s3_mount_get_mount_strategy (mount));
  AgentsMountPattern *pattern =
    agents_in_container_mount_strategy_get_pattern (strategy);
  const char *const extra_args[] = { "--debug", NULL };

  agents_mount_set_read_only (AGENTS_MOUNT (mount), FALSE);
  agents_s3_mount_set_prefix (mount, "/data/set/");
  agents_s3_mount_set_region (mount, "eu-west-1");
  agents_s3_mount_set_endpoint_url (mount, "https://s3.example.com");
  agents_mount_pattern_set_cache_dir (pattern, "/var/cache/s3");
  agents_mount_pattern_set_extra_args (pattern, extra_args);
}

static void
set_credentials (AgentsS3Mount *mount)
{
  agents_s3_mount_set_access_key_id (mount, SECRET_KEY_ID);
  agents_s3_mount_set_secret_access_key (mount, SECRET_ACCESS);
  agents_s3_mount_set_session_token (mount, SECRET_TOKEN);
}

static char *
node_to_string (JsonNode *node)
{
  return json_to_string (node, FALSE);
}

static JsonNode *
parse_json (const char *text)
{
  g_autoptr (GError) error = NULL;
  JsonNode *node = json_from_string (text, &error);

  g_assert_no_error (error);
  return node;
}

static void
assert_argv (char **argv, ...)
{
  va_list args;
  guint i = 0;
  const char *expected;

  g_assert_nonnull (argv);
  va_start (args, argv);
  while ((expected = va_arg (args, const char *)) != NULL)
    {
      g_assert_nonnull (argv[i]);
      g_assert_cmpstr (argv[i], ==, expected);
      i++;
    }
  va_end (args);
  g_assert_null (argv[i]);
}

static char **
build_argv (AgentsManifestEntry *entry)
{
  AgentsS3Mount *mount = AGENTS_S3_MOUNT (entry);
  g_autoptr (GError) error = NULL;
  char **argv = agents_mount_strategy_build_mount_argv (
    agents_s3_mount_get_mount_strategy (mount), mount, MOUNT_PATH, &error);

  g_assert_no_error (error);
  return argv;
}

/* ---- JSON ------------------------------------------------------------- */

static const char *const entry_members[] = { "type",
                                             "description",
                                             "ephemeral",
                                             "group",
                                             "permissions",
                                             "mount_path",
                                             "read_only",
                                             "bucket",
                                             "access_key_id",
                                             "secret_access_key",
                                             "session_token",
                                             "prefix",
                                             "region",
                                             "endpoint_url",
                                             "s3_provider",
                                             "mount_strategy",
                                             NULL };

static void
assert_member_order (JsonNode *node, const char *const *expected)
{
  GList *members = json_object_get_members (json_node_get_object (node));
  guint i = 0;

  for (GList *l = members; l != NULL; l = l->next, i++)
    g_assert_cmpstr (l->data, ==, expected[i]);
  g_assert_null (expected[i]);
  g_list_free (members);
}

static void
test_json_round_trip (void)
{
  g_autoptr (AgentsManifestEntry) entry = new_mountpoint_mount ();
  g_autoptr (AgentsManifestEntry) back = NULL;
  g_autoptr (JsonNode) node = NULL;
  g_autoptr (JsonNode) node_back = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *text_back = NULL;
  JsonObject *object;

  configure_fully (AGENTS_S3_MOUNT (entry));
  set_credentials (AGENTS_S3_MOUNT (entry));
  node = agents_manifest_entry_to_json (entry);
  assert_member_order (node, entry_members);

  object = json_node_get_object (node);
  g_assert_cmpstr (json_object_get_string_member (object, "type"), ==,
                   "s3_mount");
  g_assert_cmpstr (json_object_get_string_member (object, "bucket"), ==,
                   "bucket");
  g_assert_false (json_object_get_boolean_member (object, "read_only"));
  /* The JSON form keeps the credentials, as the reference's does. */
  g_assert_cmpstr (json_object_get_string_member (object, "secret_access_key"),
                   ==, SECRET_ACCESS);
  text = node_to_string (json_object_get_member (object, "mount_strategy"));
  g_assert_cmpstr (text, ==,
                   "{\"type\":\"in_container\",\"pattern\":{\"type\":"
                   "\"mountpoint\",\"cache_dir\":\"/var/cache/s3\","
                   "\"extra_args\":[\"--debug\"]}}");
  g_clear_pointer (&text, g_free);

  back = agents_manifest_entry_new_from_json (node, &error);
  g_assert_no_error (error);
  g_assert_true (AGENTS_IS_S3_MOUNT (back));
  g_assert_true (agents_manifest_entry_equal (entry, back));
  node_back = agents_manifest_entry_to_json (back);
  text = node_to_string (node);
  text_back = node_to_string (node_back);
  g_assert_cmpstr (text, ==, text_back);
}

static void
test_json_defaults (void)
{
  g_autoptr (AgentsManifestEntry) entry = new_mountpoint_mount ();
  g_autoptr (JsonNode) node = agents_manifest_entry_to_json (entry);
  JsonObject *object = json_node_get_object (node);
  const char *const nullable[] = { "access_key_id", "secret_access_key",
                                   "session_token", "prefix",
                                   "region",        "endpoint_url" };

  assert_member_order (node, entry_members);
  g_assert_true (json_object_get_boolean_member (object, "read_only"));
  g_assert_true (json_object_get_boolean_member (object, "ephemeral"));
  g_assert_true (agents_manifest_entry_is_mount (entry));
  for (guint i = 0; i < G_N_ELEMENTS (nullable); i++)
    g_assert_true (json_object_get_null_member (object, nullable[i]));
}

static void
test_json_patterns (void)
{
  const char *const docs[] = {
    "{\"type\":\"mountpoint\",\"cache_dir\":null,\"extra_args\":[]}",
    "{\"type\":\"s3fs\",\"cache_dir\":\"/c\",\"extra_args\":[\"-o\","
    "\"allow_other\"]}",
    "{\"type\":\"rclone\",\"cache_dir\":null,\"extra_args\":[],"
    "\"vfs_cache_mode\":\"full\"}",
    /* The reference's mountpoint options and rclone members. */
    "{\"type\":\"mountpoint\",\"cache_dir\":null,\"extra_args\":[],"
    "\"options\":{\"prefix\":\"p/q\",\"region\":\"eu-west-1\","
    "\"endpoint_url\":null}}",
    "{\"type\":\"rclone\",\"cache_dir\":null,\"extra_args\":[],"
    "\"vfs_cache_mode\":null,\"mode\":\"fuse\",\"remote_name\":\"data_1\"}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (docs); i++)
    {
      g_autoptr (JsonNode) node = parse_json (docs[i]);
      g_autoptr (GError) error = NULL;
      g_autoptr (AgentsMountPattern) pattern = NULL;
      g_autoptr (AgentsMountPattern) copy = NULL;
      g_autoptr (JsonNode) node_back = NULL;
      g_autofree char *text = NULL;

      pattern = agents_mount_pattern_new_from_json (node, &error);
      g_assert_no_error (error);
      node_back = agents_mount_pattern_to_json (pattern);
      text = node_to_string (node_back);
      g_assert_cmpstr (text, ==, docs[i]);

      copy = agents_mount_pattern_copy (pattern);
      g_assert_true (copy != pattern);
      g_assert_true (agents_mount_pattern_equal (pattern, copy));
    }
}

static void
test_copy_equal (void)
{
  g_autoptr (AgentsManifestEntry) entry = new_mountpoint_mount ();
  g_autoptr (AgentsManifestEntry) copy = NULL;
  g_autoptr (AgentsManifestEntry) other = NULL;
  g_autoptr (AgentsMountPattern) s3fs = agents_s3fs_mount_pattern_new ();
  AgentsS3Mount *mount = AGENTS_S3_MOUNT (entry);
  AgentsMountStrategy *strategy;

  configure_fully (mount);
  set_credentials (mount);
  copy = agents_manifest_entry_copy (entry);
  g_assert_true (AGENTS_IS_S3_MOUNT (copy));
  g_assert_true (agents_manifest_entry_equal (entry, copy));

  /* Deep: the copy has its own strategy and pattern. */
  strategy = agents_s3_mount_get_mount_strategy (AGENTS_S3_MOUNT (copy));
  g_assert_true (strategy != agents_s3_mount_get_mount_strategy (mount));
  g_assert_true (agents_mount_strategy_equal (
    strategy, agents_s3_mount_get_mount_strategy (mount)));

  agents_mount_pattern_set_cache_dir (
    agents_in_container_mount_strategy_get_pattern (
      AGENTS_IN_CONTAINER_MOUNT_STRATEGY (strategy)),
    "/elsewhere");
  g_assert_false (agents_manifest_entry_equal (entry, copy));

  other = agents_manifest_entry_copy (entry);
  agents_s3_mount_set_session_token (AGENTS_S3_MOUNT (other), NULL);
  g_assert_false (agents_manifest_entry_equal (entry, other));
  agents_s3_mount_set_session_token (AGENTS_S3_MOUNT (other), SECRET_TOKEN);
  g_assert_true (agents_manifest_entry_equal (entry, other));
  agents_in_container_mount_strategy_set_pattern (
    AGENTS_IN_CONTAINER_MOUNT_STRATEGY (
      agents_s3_mount_get_mount_strategy (AGENTS_S3_MOUNT (other))),
    s3fs);
  g_assert_false (agents_manifest_entry_equal (entry, other));
}

/* ---- command lines ---------------------------------------------------- */

static void
test_mountpoint_argv (void)
{
  g_autoptr (AgentsManifestEntry) entry = new_mountpoint_mount ();
  g_auto (GStrv) ro = build_argv (entry);
  g_auto (GStrv) rw = NULL;

  assert_argv (ro, "mount-s3", "--read-only", "--", "bucket", MOUNT_PATH, NULL);

  configure_fully (AGENTS_S3_MOUNT (entry));
  rw = build_argv (entry);
  assert_argv (rw, "mount-s3", "--allow-delete", "--allow-overwrite",
               "--prefix=data/set/", "--region=eu-west-1",
               "--endpoint-url=https://s3.example.com", "--cache=/var/cache/s3",
               "--debug", "--", "bucket", MOUNT_PATH, NULL);
}

static void
test_s3fs_argv (void)
{
  g_autoptr (AgentsMountPattern) pattern = agents_s3fs_mount_pattern_new ();
  g_autoptr (AgentsManifestEntry) entry = new_mount (pattern);
  g_auto (GStrv) ro = build_argv (entry);
  g_auto (GStrv) rw = NULL;

  assert_argv (ro, "s3fs", "bucket", MOUNT_PATH, "-o", "ro", NULL);

  configure_fully (AGENTS_S3_MOUNT (entry));
  rw = build_argv (entry);
  assert_argv (rw, "s3fs", "bucket:/data/set", MOUNT_PATH, "-o",
               "endpoint=eu-west-1", "-o", "url=https://s3.example.com", "-o",
               "use_cache=/var/cache/s3", "--debug", NULL);
}

/* Which read-only mounts s3fs takes over from rclone
 * (s3mount-read-tool.c): only rclone's pattern, read-only, with keys,
 * nothing of rclone's own set, and s3fs on the host. */
static void
test_read_only_tool (void)
{
  g_autoptr (AgentsMountPattern) rclone = agents_rclone_mount_pattern_new ();
  g_autoptr (AgentsMountPattern) s3fs = agents_s3fs_mount_pattern_new ();
  g_autoptr (AgentsManifestEntry) entry = new_mount (rclone);
  AgentsS3Mount *mount = AGENTS_S3_MOUNT (entry);
  g_autofree char *installed = g_find_program_in_path ("s3fs");
  const char *const extra[] = { "--fast-list", NULL };

  agents_s3_mount_set_access_key_id (mount, "AKIA");
  agents_s3_mount_set_secret_access_key (mount, "secret");
  agents_s3_mount_set_endpoint_url (mount, "http://127.0.0.1:9000");
  g_assert_cmpint (s3mount_read_only_uses_s3fs (mount, rclone), ==,
                   installed != NULL);

  /* Not for another pattern, nor a writable mount. */
  g_assert_false (s3mount_read_only_uses_s3fs (mount, s3fs));
  agents_mount_set_read_only (AGENTS_MOUNT (mount), FALSE);
  g_assert_false (s3mount_read_only_uses_s3fs (mount, rclone));
  agents_mount_set_read_only (AGENTS_MOUNT (mount), TRUE);

  /* rclone's own settings keep rclone. */
  agents_rclone_mount_pattern_set_vfs_cache_mode (
    AGENTS_RCLONE_MOUNT_PATTERN (rclone), "off");
  g_assert_false (s3mount_read_only_uses_s3fs (mount, rclone));
  agents_rclone_mount_pattern_set_vfs_cache_mode (
    AGENTS_RCLONE_MOUNT_PATTERN (rclone), NULL);
  agents_mount_pattern_set_extra_args (rclone, extra);
  g_assert_false (s3mount_read_only_uses_s3fs (mount, rclone));
  agents_mount_pattern_set_extra_args (rclone, NULL);
  agents_mount_pattern_set_cache_dir (rclone, "/var/cache/rclone");
  g_assert_false (s3mount_read_only_uses_s3fs (mount, rclone));
  agents_mount_pattern_set_cache_dir (rclone, NULL);
  g_assert_cmpint (s3mount_read_only_uses_s3fs (mount, rclone), ==,
                   installed != NULL);

  /* Ambient credentials are rclone's (env_auth). */
  agents_s3_mount_set_access_key_id (mount, NULL);
  agents_s3_mount_set_secret_access_key (mount, NULL);
  g_assert_false (s3mount_read_only_uses_s3fs (mount, rclone));
}

static void
test_rclone_argv (void)
{
  g_autoptr (AgentsMountPattern) pattern = agents_rclone_mount_pattern_new ();
  g_autoptr (AgentsManifestEntry) entry = new_mount (pattern);
  g_auto (GStrv) ro = build_argv (entry);
  g_auto (GStrv) rw = NULL;
  g_auto (GStrv) full = NULL;

  assert_argv (ro, "rclone", "mount", "--daemon", "--read-only", "--",
               "s3mount:bucket", MOUNT_PATH, NULL);

  configure_fully (AGENTS_S3_MOUNT (entry));
  rw = build_argv (entry);
  assert_argv (rw, "rclone", "mount", "--daemon", "--vfs-cache-mode=writes",
               "--cache-dir=/var/cache/s3", "--debug", "--",
               "s3mount:bucket/data/set", MOUNT_PATH, NULL);

  agents_rclone_mount_pattern_set_vfs_cache_mode (
    AGENTS_RCLONE_MOUNT_PATTERN (pattern), "full");
  full = build_argv (entry);
  g_assert_cmpstr (full[3], ==, "--vfs-cache-mode=full");
}

/* The reference's mountpoint options take the place of the entry's. */
static void
test_mountpoint_options (void)
{
  g_autoptr (JsonNode) node = parse_json (
    "{\"type\":\"mountpoint\",\"options\":{\"prefix\":\"p/q/\","
    "\"region\":\"eu-west-1\",\"endpoint_url\":\"http://s3.test\"}}");
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsMountPattern) pattern =
    agents_mount_pattern_new_from_json (node, &error);
  g_autoptr (AgentsManifestEntry) entry = NULL;
  g_auto (GStrv) argv = NULL;

  g_assert_no_error (error);
  entry = new_mount (pattern);
  argv = build_argv (entry);
  assert_argv (argv, "mount-s3", "--read-only", "--prefix=p/q/",
               "--region=eu-west-1", "--endpoint-url=http://s3.test", "--",
               "bucket", MOUNT_PATH, NULL);
}

/* The reference's remote_name names the remote on the command line and
 * in the configuration variables. */
static void
test_rclone_remote_name (void)
{
  g_autoptr (JsonNode) node =
    parse_json ("{\"type\":\"rclone\",\"mode\":\"fuse\","
                "\"remote_name\":\"Data_1\"}");
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsMountPattern) pattern =
    agents_mount_pattern_new_from_json (node, &error);
  g_autoptr (AgentsManifestEntry) entry = NULL;
  g_auto (GStrv) argv = NULL;
  g_auto (GStrv) envp = NULL;

  g_assert_no_error (error);
  entry = new_mount (pattern);
  argv = build_argv (entry);
  assert_argv (argv, "rclone", "mount", "--daemon", "--read-only", "--",
               "Data_1:bucket", MOUNT_PATH, NULL);
  envp = agents_mount_pattern_build_environ (pattern, AGENTS_S3_MOUNT (entry));
  g_assert_cmpstr (g_environ_getenv (envp, "RCLONE_CONFIG_DATA_1_TYPE"), ==,
                   "s3");
  g_assert_null (g_environ_getenv (envp, "RCLONE_CONFIG_S3MOUNT_TYPE"));
}

static void
test_unmount_argv (void)
{
  g_autoptr (AgentsManifestEntry) entry = new_mountpoint_mount ();
  AgentsMountStrategy *strategy =
    agents_s3_mount_get_mount_strategy (AGENTS_S3_MOUNT (entry));
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) argv = NULL;
  char **relative;

  argv =
    agents_mount_strategy_build_unmount_argv (strategy, MOUNT_PATH, &error);
  g_assert_no_error (error);
  assert_argv (argv, "fusermount", "-u", MOUNT_PATH, NULL);

  relative =
    agents_mount_strategy_build_unmount_argv (strategy, "remote", &error);
  g_assert_null (relative);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
}

static AgentsMountPattern *
new_pattern (guint i)
{
  switch (i)
    {
    case 0:
      return agents_mountpoint_mount_pattern_new ();
    case 1:
      return agents_s3fs_mount_pattern_new ();
    default:
      return agents_rclone_mount_pattern_new ();
    }
}

static void
test_secrets_not_in_argv (void)
{
  const char *const secrets[] = { SECRET_KEY_ID, SECRET_ACCESS, SECRET_TOKEN };

  for (guint i = 0; i < 3; i++)
    {
      g_autoptr (AgentsMountPattern) pattern = new_pattern (i);
      g_autoptr (AgentsManifestEntry) entry = new_mount (pattern);
      AgentsS3Mount *mount = AGENTS_S3_MOUNT (entry);
      g_auto (GStrv) argv = NULL;
      g_auto (GStrv) envp = NULL;
      g_autofree char *joined_argv = NULL;
      g_autofree char *joined_env = NULL;

      configure_fully (mount);
      set_credentials (mount);
      argv = build_argv (entry);
      envp = agents_mount_strategy_build_environ (
        agents_s3_mount_get_mount_strategy (mount), mount);
      joined_argv = g_strjoinv ("\n", argv);
      joined_env = g_strjoinv ("\n", envp);
      for (guint j = 0; j < G_N_ELEMENTS (secrets); j++)
        {
          g_assert_null (strstr (joined_argv, secrets[j]));
          g_assert_nonnull (strstr (joined_env, secrets[j]));
        }
    }
}

static void
test_environ (void)
{
  g_autoptr (AgentsManifestEntry) entry = new_mountpoint_mount ();
  g_autoptr (AgentsMountPattern) rclone = agents_rclone_mount_pattern_new ();
  g_autoptr (AgentsMountPattern) s3fs = agents_s3fs_mount_pattern_new ();
  AgentsS3Mount *mount = AGENTS_S3_MOUNT (entry);
  AgentsMountStrategy *strategy = agents_s3_mount_get_mount_strategy (mount);
  g_auto (GStrv) none = agents_mount_strategy_build_environ (strategy, mount);
  g_auto (GStrv) aws = NULL;
  g_auto (GStrv) anonymous = NULL;
  g_auto (GStrv) keys = NULL;
  g_auto (GStrv) s3fs_env = NULL;

  g_assert_cmpuint (g_strv_length (none), ==, 0);

  set_credentials (mount);
  aws = agents_mount_strategy_build_environ (strategy, mount);
  assert_argv (aws, "AWS_ACCESS_KEY_ID=" SECRET_KEY_ID,
               "AWS_SECRET_ACCESS_KEY=" SECRET_ACCESS,
               "AWS_SESSION_TOKEN=" SECRET_TOKEN, NULL);

  s3fs_env = agents_mount_pattern_build_environ (s3fs, mount);
  g_assert_cmpstr (g_environ_getenv (s3fs_env, "AWSSECRETACCESSKEY"), ==,
                   SECRET_ACCESS);
  g_assert_cmpstr (g_environ_getenv (s3fs_env, "AWS_SECRET_ACCESS_KEY"), ==,
                   SECRET_ACCESS);

  agents_s3_mount_set_region (mount, "eu-west-1");
  agents_s3_mount_set_endpoint_url (mount, "https://s3.example.com");
  keys = agents_mount_pattern_build_environ (rclone, mount);
  assert_argv (keys, "RCLONE_CONFIG_S3MOUNT_TYPE=s3",
               "RCLONE_CONFIG_S3MOUNT_PROVIDER=Other",
               "RCLONE_CONFIG_S3MOUNT_ENV_AUTH=false",
               "RCLONE_CONFIG_S3MOUNT_ACCESS_KEY_ID=" SECRET_KEY_ID,
               "RCLONE_CONFIG_S3MOUNT_SECRET_ACCESS_KEY=" SECRET_ACCESS,
               "RCLONE_CONFIG_S3MOUNT_SESSION_TOKEN=" SECRET_TOKEN,
               "RCLONE_CONFIG_S3MOUNT_REGION=eu-west-1",
               "RCLONE_CONFIG_S3MOUNT_ENDPOINT=https://s3.example.com", NULL);

  agents_s3_mount_set_session_token (mount, NULL);
  agents_s3_mount_set_secret_access_key (mount, NULL);
  agents_s3_mount_set_access_key_id (mount, NULL);
  agents_s3_mount_set_endpoint_url (mount, NULL);
  anonymous = agents_mount_pattern_build_environ (rclone, mount);
  assert_argv (anonymous, "RCLONE_CONFIG_S3MOUNT_TYPE=s3",
               "RCLONE_CONFIG_S3MOUNT_PROVIDER=AWS",
               "RCLONE_CONFIG_S3MOUNT_ENV_AUTH=true",
               "RCLONE_CONFIG_S3MOUNT_REGION=eu-west-1", NULL);
}

static void
test_s3_provider (void)
{
  const char *doc = "{\"type\":\"s3_mount\",\"bucket\":\"b\",\"endpoint_url\":"
                    "\"http://127.0.0.1:9000\",\"mount_strategy\":{\"type\":"
                    "\"in_container\",\"pattern\":{\"type\":\"rclone\"}}}";
  g_autoptr (JsonNode) node = json_from_string (doc, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsManifestEntry) entry =
    agents_manifest_entry_new_from_json (node, &error);
  AgentsS3Mount *mount = AGENTS_S3_MOUNT (entry);
  AgentsMountPattern *rclone = agents_in_container_mount_strategy_get_pattern (
    AGENTS_IN_CONTAINER_MOUNT_STRATEGY (
      agents_s3_mount_get_mount_strategy (mount)));
  g_auto (GStrv) env = NULL;
  g_auto (GStrv) ceph = NULL;
  g_autoptr (JsonNode) out = NULL;

  /* Absent means the reference's default, written out again. */
  g_assert_no_error (error);
  g_assert_cmpstr (agents_s3_mount_get_s3_provider (mount), ==, "AWS");
  out = agents_manifest_entry_to_json (entry);
  g_assert_cmpstr (
    json_object_get_string_member (json_node_get_object (out), "s3_provider"),
    ==, "AWS");
  env = agents_mount_pattern_build_environ (rclone, mount);
  g_assert_cmpstr (g_environ_getenv (env, "RCLONE_CONFIG_S3MOUNT_PROVIDER"), ==,
                   "Other");

  agents_s3_mount_set_s3_provider (mount, "Ceph");
  ceph = agents_mount_pattern_build_environ (rclone, mount);
  g_assert_cmpstr (g_environ_getenv (ceph, "RCLONE_CONFIG_S3MOUNT_PROVIDER"),
                   ==, "Ceph");

  agents_s3_mount_set_s3_provider (mount, "a b");
  g_assert_false (agents_s3_mount_validate (mount, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_MOUNT_CONFIG);
}

static void
test_to_string_redacts (void)
{
  g_autoptr (AgentsManifestEntry) entry = new_mountpoint_mount ();
  g_autofree char *text = NULL;

  configure_fully (AGENTS_S3_MOUNT (entry));
  set_credentials (AGENTS_S3_MOUNT (entry));
  text = agents_s3_mount_to_string (AGENTS_S3_MOUNT (entry));
  g_assert_cmpstr (text, ==,
                   "s3://bucket/data/set (read-write, in_container, "
                   "credentials: <redacted>)");
  g_assert_null (strstr (text, SECRET_KEY_ID));
  g_assert_null (strstr (text, SECRET_ACCESS));
  g_assert_null (strstr (text, SECRET_TOKEN));
}

/* ---- hostile JSON ----------------------------------------------------- */

#define STRATEGY \
  "{\"type\":\"in_container\",\"pattern\":{\"type\":\"mountpoint\"}}"

static const struct
{
  const char *json;
  int code;
} hostile_entries[] = {
  { "{\"type\":\"s3_mount\",\"mount_strategy\":" STRATEGY "}",
    AGENTS_SANDBOX_ERROR_MOUNT_CONFIG },
  { "{\"type\":\"s3_mount\",\"bucket\":42,\"mount_strategy\":" STRATEGY "}",
    AGENTS_SANDBOX_ERROR_INVALID_JSON },
  { "{\"type\":\"s3_mount\",\"bucket\":\"--allow-other\",\"mount_"
    "strategy\":" STRATEGY "}",
    AGENTS_SANDBOX_ERROR_MOUNT_CONFIG },
  { "{\"type\":\"s3_mount\",\"bucket\":\"b/../../"
    "etc\",\"mount_strategy\":" STRATEGY "}",
    AGENTS_SANDBOX_ERROR_MOUNT_CONFIG },
  { "{\"type\":\"s3_mount\",\"bucket\":\"b\\nc\",\"mount_strategy\":" STRATEGY
    "}",
    AGENTS_SANDBOX_ERROR_MOUNT_CONFIG },
  { "{\"type\":\"s3_mount\",\"bucket\":\"b\",\"prefix\":\"a/../b\","
    "\"mount_strategy\":" STRATEGY "}",
    AGENTS_SANDBOX_ERROR_MOUNT_CONFIG },
  { "{\"type\":\"s3_mount\",\"bucket\":\"b\",\"prefix\":[\"a\"],"
    "\"mount_strategy\":" STRATEGY "}",
    AGENTS_SANDBOX_ERROR_INVALID_JSON },
  { "{\"type\":\"s3_mount\",\"bucket\":\"b\",\"region\":\"x --debug\","
    "\"mount_strategy\":" STRATEGY "}",
    AGENTS_SANDBOX_ERROR_MOUNT_CONFIG },
  { "{\"type\":\"s3_mount\",\"bucket\":\"b\",\"endpoint_url\":"
    "\"file:///etc/passwd\",\"mount_strategy\":" STRATEGY "}",
    AGENTS_SANDBOX_ERROR_MOUNT_CONFIG },
  { "{\"type\":\"s3_mount\",\"bucket\":\"b\",\"endpoint_url\":"
    "\"https://h,allow_other\",\"mount_strategy\":" STRATEGY "}",
    AGENTS_SANDBOX_ERROR_MOUNT_CONFIG },
  { "{\"type\":\"s3_mount\",\"bucket\":\"b\",\"secret_access_key\":"
    "\"" SECRET_ACCESS "\",\"mount_strategy\":" STRATEGY "}",
    AGENTS_SANDBOX_ERROR_MOUNT_CONFIG },
  { "{\"type\":\"s3_mount\",\"bucket\":\"b\",\"access_key_id\":\"\","
    "\"secret_access_key\":\"" SECRET_ACCESS "\",\"mount_strategy\":" STRATEGY
    "}",
    AGENTS_SANDBOX_ERROR_MOUNT_CONFIG },
  { "{\"type\":\"s3_mount\",\"bucket\":\"b\"}",
    AGENTS_SANDBOX_ERROR_MOUNT_CONFIG },
  { "{\"type\":\"s3_mount\",\"bucket\":\"b\",\"mount_strategy\":"
    "\"in_container\"}",
    AGENTS_SANDBOX_ERROR_INVALID_JSON },
  { "{\"type\":\"s3_mount\",\"bucket\":\"b\",\"mount_strategy\":"
    "{\"type\":\"host\"}}",
    AGENTS_SANDBOX_ERROR_UNKNOWN_TYPE },
};

static const struct
{
  const char *json;
  int code;
} hostile_strategies[] = {
  { "[]", AGENTS_SANDBOX_ERROR_INVALID_JSON },
  { "{\"pattern\":{\"type\":\"mountpoint\"}}",
    AGENTS_SANDBOX_ERROR_UNKNOWN_TYPE },
  { "{\"type\":\"in_container\"}", AGENTS_SANDBOX_ERROR_MOUNT_CONFIG },
  { "{\"type\":\"docker_volume\",\"driver\":\"local\"}",
    AGENTS_SANDBOX_ERROR_MOUNT_CONFIG },
  { "{\"type\":\"docker_volume\",\"driver\":1}",
    AGENTS_SANDBOX_ERROR_INVALID_JSON },
  { "{\"type\":\"docker_volume\",\"driver_options\":[]}",
    AGENTS_SANDBOX_ERROR_INVALID_JSON },
  { "{\"type\":\"docker_volume\",\"driver\":\"rclone\","
    "\"driver_options\":{\"s3-access-key-id\":\"k\"}}",
    AGENTS_SANDBOX_ERROR_MOUNT_CONFIG },
  { "{\"type\":\"in_container\",\"pattern\":{\"type\":\"nfs\"}}",
    AGENTS_SANDBOX_ERROR_UNKNOWN_TYPE },
  { "{\"type\":\"in_container\",\"pattern\":\"mountpoint\"}",
    AGENTS_SANDBOX_ERROR_INVALID_JSON },
  { "{\"type\":\"in_container\",\"pattern\":{\"type\":\"mountpoint\","
    "\"extra_args\":\"--allow-other\"}}",
    AGENTS_SANDBOX_ERROR_INVALID_JSON },
  { "{\"type\":\"in_container\",\"pattern\":{\"type\":\"mountpoint\","
    "\"extra_args\":[1]}}",
    AGENTS_SANDBOX_ERROR_INVALID_JSON },
  { "{\"type\":\"in_container\",\"pattern\":{\"type\":\"mountpoint\","
    "\"extra_args\":[\"--a\\nb\"]}}",
    AGENTS_SANDBOX_ERROR_MOUNT_CONFIG },
  { "{\"type\":\"in_container\",\"pattern\":{\"type\":\"s3fs\","
    "\"cache_dir\":\"relative\"}}",
    AGENTS_SANDBOX_ERROR_MOUNT_CONFIG },
  { "{\"type\":\"in_container\",\"pattern\":{\"type\":\"s3fs\","
    "\"cache_dir\":\"/c,allow_other\"}}",
    AGENTS_SANDBOX_ERROR_MOUNT_CONFIG },
  { "{\"type\":\"in_container\",\"pattern\":{\"type\":\"rclone\","
    "\"vfs_cache_mode\":\"bogus\"}}",
    AGENTS_SANDBOX_ERROR_MOUNT_CONFIG },
  { "{\"type\":\"in_container\",\"pattern\":{\"type\":\"rclone\","
    "\"vfs_cache_mode\":true}}",
    AGENTS_SANDBOX_ERROR_INVALID_JSON },
  { "{\"type\":\"in_container\",\"pattern\":{\"type\":\"mountpoint\","
    "\"options\":[]}}",
    AGENTS_SANDBOX_ERROR_INVALID_JSON },
  { "{\"type\":\"in_container\",\"pattern\":{\"type\":\"mountpoint\","
    "\"options\":{\"region\":3}}}",
    AGENTS_SANDBOX_ERROR_INVALID_JSON },
  { "{\"type\":\"in_container\",\"pattern\":{\"type\":\"mountpoint\","
    "\"options\":{\"prefix\":\"a/../b\"}}}",
    AGENTS_SANDBOX_ERROR_MOUNT_CONFIG },
  { "{\"type\":\"in_container\",\"pattern\":{\"type\":\"mountpoint\","
    "\"options\":{\"prefix\":\"--allow-other\"}}}",
    AGENTS_SANDBOX_ERROR_MOUNT_CONFIG },
  { "{\"type\":\"in_container\",\"pattern\":{\"type\":\"mountpoint\","
    "\"options\":{\"region\":\"EU WEST\"}}}",
    AGENTS_SANDBOX_ERROR_MOUNT_CONFIG },
  { "{\"type\":\"in_container\",\"pattern\":{\"type\":\"mountpoint\","
    "\"options\":{\"endpoint_url\":\"file:///etc\"}}}",
    AGENTS_SANDBOX_ERROR_MOUNT_CONFIG },
  /* The reference's rclone members: nfs and a whole configuration file
   * are refused, remote names are plain words. */
  { "{\"type\":\"in_container\",\"pattern\":{\"type\":\"rclone\","
    "\"mode\":\"nfs\"}}",
    AGENTS_SANDBOX_ERROR_MOUNT_CONFIG },
  { "{\"type\":\"in_container\",\"pattern\":{\"type\":\"rclone\","
    "\"mode\":\"smb\"}}",
    AGENTS_SANDBOX_ERROR_MOUNT_CONFIG },
  { "{\"type\":\"in_container\",\"pattern\":{\"type\":\"rclone\","
    "\"mode\":1}}",
    AGENTS_SANDBOX_ERROR_INVALID_JSON },
  { "{\"type\":\"in_container\",\"pattern\":{\"type\":\"rclone\","
    "\"nfs_addr\":\"127.0.0.1:2049\"}}",
    AGENTS_SANDBOX_ERROR_MOUNT_CONFIG },
  { "{\"type\":\"in_container\",\"pattern\":{\"type\":\"rclone\","
    "\"remote_name\":\"x:y\"}}",
    AGENTS_SANDBOX_ERROR_MOUNT_CONFIG },
  { "{\"type\":\"in_container\",\"pattern\":{\"type\":\"rclone\","
    "\"remote_name\":\"a b\\n\"}}",
    AGENTS_SANDBOX_ERROR_MOUNT_CONFIG },
  { "{\"type\":\"in_container\",\"pattern\":{\"type\":\"rclone\","
    "\"remote_name\":\"\"}}",
    AGENTS_SANDBOX_ERROR_MOUNT_CONFIG },
  { "{\"type\":\"in_container\",\"pattern\":{\"type\":\"rclone\","
    "\"config_file_path\":\"/root/.config/rclone/rclone.conf\"}}",
    AGENTS_SANDBOX_ERROR_MOUNT_CONFIG },
};

static void
test_hostile_entries (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (hostile_entries); i++)
    {
      g_autoptr (JsonNode) node = parse_json (hostile_entries[i].json);
      g_autoptr (GError) error = NULL;
      g_autoptr (AgentsManifestEntry) entry = NULL;

      g_test_message ("%s", hostile_entries[i].json);
      entry = agents_manifest_entry_new_from_json (node, &error);
      g_assert_null (entry);
      g_assert_error (error, AGENTS_SANDBOX_ERROR, hostile_entries[i].code);
      g_assert_null (strstr (error->message, SECRET_ACCESS));
    }
}

static void
test_hostile_strategies (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (hostile_strategies); i++)
    {
      g_autoptr (JsonNode) node = parse_json (hostile_strategies[i].json);
      g_autoptr (GError) error = NULL;
      g_autoptr (AgentsMountStrategy) strategy = NULL;

      g_test_message ("%s", hostile_strategies[i].json);
      strategy = agents_mount_strategy_new_from_json (node, &error);
      g_assert_null (strategy);
      g_assert_error (error, AGENTS_SANDBOX_ERROR, hostile_strategies[i].code);
    }
}

/* Patterns and strategies are typed-JSON families: the registry knows
 * the built-in names, and an unknown or missing `type` is an unknown
 * type whose message lists them. */
static void
test_typed_json_families (void)
{
  static const struct
  {
    const char *json;
    const char *message;
  } unknown[] = {
    { "{\"type\":\"in_container\",\"pattern\":{\"type\":\"nfs\"}}",
      "unknown mount pattern “nfs” (known: mountpoint, rclone, s3fs)" },
    { "{\"type\":\"in_container\",\"pattern\":{}}",
      "unknown mount pattern “” (known: mountpoint, rclone, s3fs)" },
    { "{\"type\":\"host\"}",
      "unknown mount strategy “host” (known: docker_volume, in_container)" },
  };
  g_auto (GStrv) patterns = NULL;
  g_auto (GStrv) strategies = NULL;
  const char *const pattern_names[] = { "mountpoint", "rclone", "s3fs", NULL };
  const char *const strategy_names[] = { "docker_volume", "in_container",
                                         NULL };

  for (guint i = 0; i < G_N_ELEMENTS (unknown); i++)
    {
      g_autoptr (JsonNode) node = parse_json (unknown[i].json);
      g_autoptr (GError) error = NULL;
      g_autoptr (AgentsMountStrategy) strategy =
        agents_mount_strategy_new_from_json (node, &error);

      g_assert_null (strategy);
      g_assert_error (error, AGENTS_SANDBOX_ERROR,
                      AGENTS_SANDBOX_ERROR_UNKNOWN_TYPE);
      g_assert_cmpstr (error->message, ==, unknown[i].message);
    }

  patterns = agents_typed_json_list (AGENTS_TYPE_MOUNT_PATTERN);
  strategies = agents_typed_json_list (AGENTS_TYPE_MOUNT_STRATEGY);
  g_assert_true (g_strv_equal ((const char *const *) patterns, pattern_names));
  g_assert_true (
    g_strv_equal ((const char *const *) strategies, strategy_names));
}

/* The reference's docker_volume JSON: read, written back the same, and
 * mounted with the driver's tool. */
static void
test_docker_volume_strategy (void)
{
  g_autoptr (JsonNode) node =
    parse_json ("{\"type\":\"docker_volume\",\"driver\":\"mountpoint\","
                "\"driver_options\":{}}");
  g_autoptr (JsonNode) defaults = parse_json ("{\"type\":\"docker_volume\"}");
  g_autoptr (AgentsMountStrategy) strategy = NULL;
  g_autoptr (AgentsMountStrategy) copy = NULL;
  g_autoptr (AgentsMountStrategy) plain = NULL;
  g_autoptr (AgentsManifestEntry) entry = NULL;
  g_autoptr (JsonNode) back = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) argv = NULL;

  strategy = agents_mount_strategy_new_from_json (node, &error);
  g_assert_no_error (error);
  g_assert_true (AGENTS_IS_DOCKER_VOLUME_MOUNT_STRATEGY (strategy));
  g_assert_cmpstr (agents_docker_volume_mount_strategy_get_driver (
                     AGENTS_DOCKER_VOLUME_MOUNT_STRATEGY (strategy)),
                   ==, "mountpoint");
  back = agents_mount_strategy_to_json (strategy);
  g_assert_true (json_node_equal (back, node));
  copy = agents_mount_strategy_copy (strategy);
  g_assert_true (agents_mount_strategy_equal (copy, strategy));

  entry = agents_s3_mount_new ("bucket", strategy);
  argv = agents_mount_strategy_build_mount_argv (
    strategy, AGENTS_S3_MOUNT (entry), MOUNT_PATH, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (argv[0], ==, "mount-s3");

  /* Without a driver: rclone. */
  plain = agents_mount_strategy_new_from_json (defaults, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (agents_docker_volume_mount_strategy_get_driver (
                     AGENTS_DOCKER_VOLUME_MOUNT_STRATEGY (plain)),
                   ==, "rclone");
  g_assert_false (agents_mount_strategy_equal (plain, strategy));
}

static void
test_argv_refuses_invalid_values (void)
{
  g_autoptr (AgentsManifestEntry) entry = new_mountpoint_mount ();
  AgentsS3Mount *mount = AGENTS_S3_MOUNT (entry);
  AgentsMountStrategy *strategy = agents_s3_mount_get_mount_strategy (mount);
  g_autoptr (GError) error = NULL;
  char **argv;

  /* Values set through the API are checked as JSON ones are. */
  agents_s3_mount_set_bucket (mount, "-o");
  argv = agents_mount_strategy_build_mount_argv (strategy, mount, MOUNT_PATH,
                                                 &error);
  g_assert_null (argv);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_MOUNT_CONFIG);
  g_clear_error (&error);

  agents_s3_mount_set_bucket (mount, "bucket");
  argv = agents_mount_strategy_build_mount_argv (strategy, mount, "rel/path",
                                                 &error);
  g_assert_null (argv);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
}

/* ---- mount and unmount through a session ------------------------------ */

typedef struct
{
  char *tmp; /* removed at teardown */
  char *bin; /* fake commands */
  char *log; /* what the fake umount was asked to unmount */
  TestFakeSession *session;
  AgentsManifestEntry *entry;
} UnmountFixture;

static void
write_script (UnmountFixture *fixture, const char *name, const char *body)
{
  g_autofree char *path = g_build_filename (fixture->bin, name, NULL);
  g_autofree char *script = g_strdup_printf ("#!/bin/sh\n%s\n", body);

  agents_test_write_file (path, script);
  g_assert_cmpint (g_chmod (path, 0755), ==, 0);
}

static void
unmount_setup (UnmountFixture *fixture, gconstpointer data)
{
  g_autofree char *sh = NULL;

  fixture->tmp = agents_test_make_tmp_dir ("test-s3mount-");
  fixture->bin = g_build_filename (fixture->tmp, "bin", NULL);
  fixture->log = g_build_filename (fixture->tmp, "umount.log", NULL);
  g_assert_cmpint (g_mkdir (fixture->bin, 0755), ==, 0);
  sh = g_build_filename (fixture->bin, "sh", NULL);
  g_assert_cmpint (symlink ("/bin/sh", sh), ==, 0);

  fixture->session = g_object_new (TEST_TYPE_FAKE_SESSION, NULL);
  fixture->entry = new_mountpoint_mount ();
}

static void
unmount_teardown (UnmountFixture *fixture, gconstpointer data)
{
  g_clear_object (&fixture->entry);
  g_clear_object (&fixture->session);
  agents_test_rm_rf (fixture->tmp);
  g_free (fixture->tmp);
  g_free (fixture->bin);
  g_free (fixture->log);
}

/* A fake PATH with only `sh` and the fake commands in it. */
static void
use_fake_bin (UnmountFixture *fixture)
{
  g_free (fixture->session->path_env);
  fixture->session->path_env = g_strdup (fixture->bin);
}

/* A mount table that says everything is mounted, and an umount that logs
 * its argument and exits with @umount_status. */
static void
fake_mounted (UnmountFixture *fixture, int umount_status)
{
  g_autofree char *umount =
    g_strdup_printf ("printf '%%s' \"$1\" > '%s'\n"
                     "echo 'umount: target is busy' >&2\n"
                     "exit %d",
                     fixture->log, umount_status);

  use_fake_bin (fixture);
  write_script (fixture, "mountpoint", "exit 0");
  write_script (fixture, "fusermount", "exit 1");
  write_script (fixture, "fusermount3", "exit 1");
  write_script (fixture, "umount", umount);
}

static gboolean
run_unmount (UnmountFixture *fixture, const char *dest, GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  agents_mount_unmount_async (
    AGENTS_MOUNT (fixture->entry), AGENTS_SANDBOX_SESSION (fixture->session),
    dest, fixture->tmp, NULL, agents_test_async_cb, &result);
  agents_test_wait_result (&result);
  return agents_mount_unmount_finish (AGENTS_MOUNT (fixture->entry), result,
                                      error);
}

static void
test_unmount_not_mounted (UnmountFixture *fixture, gconstpointer data)
{
  g_autofree char *missing = g_build_filename (fixture->tmp, "missing", NULL);
  g_autoptr (GError) error = NULL;

  /* The real `mountpoint`: a plain directory and a missing path. */
  g_assert_true (run_unmount (fixture, fixture->tmp, &error));
  g_assert_no_error (error);
  g_assert_true (run_unmount (fixture, missing, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (fixture->session->exec_calls, ==, 2);
}

static void
test_unmount_mounted (UnmountFixture *fixture, gconstpointer data)
{
  /* Quotes, spaces and a command substitution stay part of the path. */
  g_autofree char *dest =
    g_build_filename (fixture->tmp, "a b'$(touch pwned)\"", NULL);
  g_autofree char *pwned = g_build_filename (fixture->tmp, "pwned", NULL);
  g_autofree char *logged = NULL;
  g_autoptr (GError) error = NULL;

  fake_mounted (fixture, 0);
  g_assert_true (run_unmount (fixture, dest, &error));
  g_assert_no_error (error);
  logged = agents_test_read_file (fixture->log);
  g_assert_cmpstr (logged, ==, dest);
  g_assert_false (g_file_test (pwned, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test ("pwned", G_FILE_TEST_EXISTS));
}

static void
test_unmount_failure (UnmountFixture *fixture, gconstpointer data)
{
  g_autofree char *dest = g_build_filename (fixture->tmp, "remote", NULL);
  g_autoptr (GError) error = NULL;

  fake_mounted (fixture, 32);
  g_assert_false (run_unmount (fixture, dest, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_MOUNT_FAILED);
  agents_test_assert_context_str (error, "path", dest);
  agents_test_assert_context_str (error, "stderr", "umount: target is busy");
}

static void
test_unmount_without_mountpoint (UnmountFixture *fixture, gconstpointer data)
{
  g_autoptr (GError) error = NULL;

  /* When nothing can tell whether the path is mounted, unmount fails:
   * the caller must not delete what might be a mounted bucket. */
  use_fake_bin (fixture);
  g_assert_false (run_unmount (fixture, fixture->tmp, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_MOUNT_FAILED);
  agents_test_assert_context_str (error, "path", fixture->tmp);
}

static void
test_mount_not_supported (UnmountFixture *fixture, gconstpointer data)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;

  agents_mount_mount_async (
    AGENTS_MOUNT (fixture->entry), AGENTS_SANDBOX_SESSION (fixture->session),
    MOUNT_PATH, fixture->tmp, NULL, agents_test_async_cb, &result);
  agents_test_wait_result (&result);
  g_assert_false (
    agents_mount_mount_finish (AGENTS_MOUNT (fixture->entry), result, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_NOT_SUPPORTED);
  agents_test_assert_context_str (error, "path", MOUNT_PATH);
  g_assert_cmpuint (fixture->session->exec_calls, ==, 0);
}

static guint fake_unmount_calls;

static void
fake_unmount (AgentsMount *mount,
              AgentsSandboxSession *session,
              const char *dest,
              const char *base_dir,
              GTask *task)
{
  fake_unmount_calls++;
  g_task_return_boolean (task, TRUE);
}

static void
test_unmount_vfunc_replaceable (UnmountFixture *fixture, gconstpointer data)
{
  AgentsMountClass *klass = g_type_class_ref (AGENTS_TYPE_S3_MOUNT);
  gpointer real_unmount = klass->unmount;
  g_autoptr (GError) error = NULL;

  /* What the unix-local delete tests do to observe unmounting. */
  klass->unmount = fake_unmount;
  g_assert_true (run_unmount (fixture, MOUNT_PATH, &error));
  klass->unmount = real_unmount;
  g_type_class_unref (klass);

  g_assert_no_error (error);
  g_assert_cmpuint (fake_unmount_calls, ==, 1);
  g_assert_cmpuint (fixture->session->exec_calls, ==, 0);
}

/* ---- credentials: the gate, saved states, redaction -------------------- */

#define STATE_SECRET "wJalrXUtnFEMI-K7MDENG-bPxRfiCYSECRET"
#define STATE_TOKEN "FwoGZXIvYXdzEtokenTOKEN"

static AgentsManifest *
manifest_with_keys (void)
{
  g_autoptr (AgentsManifestEntry) entry = new_mountpoint_mount ();
  AgentsS3Mount *mount = AGENTS_S3_MOUNT (entry);
  AgentsManifest *manifest = agents_manifest_new ();

  agents_s3_mount_set_access_key_id (mount, "AKIDEXAMPLE");
  agents_s3_mount_set_secret_access_key (mount, STATE_SECRET);
  agents_s3_mount_set_session_token (mount, STATE_TOKEN);
  agents_manifest_set_entry (manifest, "data", entry);
  return manifest;
}

static char *
state_json (AgentsManifest *manifest)
{
  g_autoptr (AgentsSandboxSessionState) state =
    agents_sandbox_session_state_new (manifest, NULL);
  g_autoptr (JsonNode) node = agents_sandbox_session_state_to_json (state);

  return json_to_string (node, FALSE);
}

static void
test_state_strips_authority (void)
{
  g_autoptr (AgentsManifest) manifest = manifest_with_keys ();
  g_autofree char *text = state_json (manifest);
  g_autoptr (JsonNode) node = json_from_string (text, NULL);
  JsonObject *entry = json_object_get_object_member (
    json_object_get_object_member (
      json_object_get_object_member (json_node_get_object (node), "manifest"),
      "entries"),
    "data");
  AgentsS3Mount *mount =
    AGENTS_S3_MOUNT (agents_manifest_get_entry (manifest, "data"));

  g_assert_null (strstr (text, STATE_SECRET));
  g_assert_null (strstr (text, STATE_TOKEN));
  g_assert_null (strstr (text, "AKIDEXAMPLE"));
  g_assert_true (json_object_get_null_member (entry, "secret_access_key"));
  g_assert_true (json_object_get_boolean_member (
    entry, "__openai_agents_redacted_mount_authority"));
  /* The bucket and the rest stay; the live manifest keeps its keys. */
  g_assert_cmpstr (json_object_get_string_member (entry, "bucket"), ==,
                   "bucket");
  g_assert_cmpstr (agents_s3_mount_get_secret_access_key (mount), ==,
                   STATE_SECRET);
}

static AgentsManifest *
manifest_from_state (const char *text)
{
  g_autoptr (JsonNode) node = json_from_string (text, NULL);
  g_autoptr (AgentsSandboxSessionState) state =
    agents_sandbox_session_state_new (NULL, NULL);
  g_autoptr (GError) error = NULL;

  g_assert_true (agents_sandbox_session_state_load_json (state, node, &error));
  g_assert_no_error (error);
  return g_object_ref (agents_sandbox_session_state_get_manifest (state));
}

static void
test_state_rebinds_from_trusted_manifest (void)
{
  g_autoptr (AgentsManifest) trusted = manifest_with_keys ();
  g_autofree char *text = NULL;
  g_autofree char *again = NULL;
  g_autoptr (AgentsManifest) loaded = NULL;
  g_autoptr (AgentsManifest) other = agents_manifest_new ();
  g_autoptr (GError) error = NULL;
  AgentsS3Mount *mount;

  agents_manifest_acknowledge_mount_credential_exposure (
    trusted, (const char *const[]){ "data", NULL });
  text = state_json (trusted);
  loaded = manifest_from_state (text);
  mount = AGENTS_S3_MOUNT (agents_manifest_get_entry (loaded, "data"));
  g_assert_null (agents_s3_mount_get_secret_access_key (mount));

  /* Saved again before a rebind, the entry is still marked. */
  again = state_json (loaded);
  g_assert_nonnull (
    strstr (again, "\"__openai_agents_redacted_mount_authority\":true"));

  /* A manifest without that mount gives nothing back. */
  g_assert_true (
    agents_manifest_rebind_mount_authority (loaded, other, &error));
  g_assert_no_error (error);
  mount = AGENTS_S3_MOUNT (agents_manifest_get_entry (loaded, "data"));
  g_assert_null (agents_s3_mount_get_access_key_id (mount));

  g_assert_true (
    agents_manifest_rebind_mount_authority (loaded, trusted, &error));
  g_assert_no_error (error);
  mount = AGENTS_S3_MOUNT (agents_manifest_get_entry (loaded, "data"));
  g_assert_cmpstr (agents_s3_mount_get_access_key_id (mount), ==,
                   "AKIDEXAMPLE");
  g_assert_cmpstr (agents_s3_mount_get_secret_access_key (mount), ==,
                   STATE_SECRET);
  g_assert_cmpstr (agents_s3_mount_get_session_token (mount), ==, STATE_TOKEN);
  g_assert_true (
    agents_manifest_is_mount_credential_exposure_acknowledged (loaded, "data"));
  g_assert_true (agents_manifest_entries_equal (loaded, trusted));
}

static guint
count_owned_dirs (void)
{
  g_autofree char *base =
    g_build_filename (g_get_user_runtime_dir (), "agents-1.0", "mounts", NULL);
  g_autoptr (GDir) dir = g_dir_open (base, 0, NULL);
  guint n = 0;

  while (dir != NULL && g_dir_read_name (dir) != NULL)
    n++;
  return n;
}

/* Mounts the "data" entry of @manifest in a fake session that shows host
 * binds; the fake refuses exec, and nothing may run. */
static GError *
mount_in_fake_session (AgentsManifest *manifest)
{
  g_autoptr (FakeSession) session = fake_session_new (manifest);
  AgentsManifest *session_manifest =
    agents_sandbox_session_get_manifest (AGENTS_SANDBOX_SESSION (session));
  AgentsManifestEntry *entry =
    agents_manifest_get_entry (session_manifest, "data");
  g_autofree char *dest = g_build_filename (
    agents_manifest_get_root (session_manifest), "data", NULL);
  g_autoptr (GAsyncResult) result = NULL;
  GError *error = NULL;
  guint owned_before = count_owned_dirs ();

  agents_sandbox_session_set_host_binds_supported (
    AGENTS_SANDBOX_SESSION (session), TRUE);
  agents_mount_mount_async (AGENTS_MOUNT (entry),
                            AGENTS_SANDBOX_SESSION (session), dest,
                            agents_manifest_get_root (session_manifest), NULL,
                            agents_test_async_cb, &result);
  g_assert_false (agents_mount_mount_finish (
    AGENTS_MOUNT (entry), agents_test_wait_result (&result), &error));
  g_assert_cmpuint (session->exec_commands->len, ==, 0);
  g_assert_cmpuint (count_owned_dirs (), ==, owned_before);
  return error;
}

static void
test_gate_refuses_unacknowledged_keys (void)
{
  g_autoptr (AgentsManifest) manifest = manifest_with_keys ();
  g_autoptr (GError) error = mount_in_fake_session (manifest);

  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_MOUNT_CONFIG);
  g_assert_cmpstr (
    error->message, ==,
    "mount-scoped credentials cannot be exposed to a helper inside a "
    "model-controlled sandbox by default; use a credentialless or "
    "external/provider-native strategy, or explicitly acknowledge exposure "
    "for this exact path with "
    "Manifest.with_in_container_mount_credential_exposure_acknowledged()");
}

static void
test_gate_acknowledgement_is_per_path (void)
{
  g_autoptr (AgentsManifest) manifest = manifest_with_keys ();
  g_autoptr (GError) error = NULL;

  /* Another path does not count. */
  agents_manifest_acknowledge_mount_credential_exposure (
    manifest, (const char *const[]){ "other", "data/sub", NULL });
  error = mount_in_fake_session (manifest);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_MOUNT_CONFIG);
  g_assert_true (g_str_has_prefix (error->message, "mount-scoped credentials"));
}

static void
test_gate_acknowledgement_not_from_json (void)
{
  g_autoptr (AgentsManifest) manifest = manifest_with_keys ();
  g_autoptr (AgentsManifest) copy = NULL;
  g_autoptr (AgentsManifest) back = NULL;
  g_autoptr (JsonNode) node = NULL;
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;

  agents_manifest_acknowledge_mount_credential_exposure (
    manifest, (const char *const[]){ "./data/", NULL });
  g_assert_true (agents_manifest_is_mount_credential_exposure_acknowledged (
    manifest, "data"));
  g_assert_true (agents_manifest_is_mount_credential_exposure_acknowledged (
    manifest, "/workspace/data"));
  copy = agents_manifest_copy (manifest);
  g_assert_true (
    agents_manifest_is_mount_credential_exposure_acknowledged (copy, "data"));

  /* Runtime-only: JSON neither carries nor grants it. */
  node = agents_manifest_to_json (manifest);
  text = json_to_string (node, FALSE);
  g_assert_null (strstr (text, "acknowledg"));
  back = agents_manifest_new_from_json (node, &error);
  g_assert_no_error (error);
  g_assert_false (
    agents_manifest_is_mount_credential_exposure_acknowledged (back, "data"));
}

static void
test_redacted_entry_refuses_to_mount (void)
{
  g_autoptr (AgentsManifest) trusted = manifest_with_keys ();
  g_autofree char *text = NULL;
  g_autoptr (AgentsManifest) loaded = NULL;
  g_autoptr (GError) error = NULL;

  agents_manifest_acknowledge_mount_credential_exposure (
    trusted, (const char *const[]){ "data", NULL });
  text = state_json (trusted);
  loaded = manifest_from_state (text);
  /* Not rebound: mounting without the credentials would silently try
   * another identity. */
  error = mount_in_fake_session (loaded);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_MOUNT_CONFIG);
  g_assert_nonnull (strstr (error->message, "removed from the saved state"));
}

static void
test_redact (void)
{
  g_autoptr (AgentsManifest) manifest = manifest_with_keys ();
  AgentsS3Mount *mount =
    AGENTS_S3_MOUNT (agents_manifest_get_entry (manifest, "data"));
  g_autofree char *text = s3mount_redact (
    mount, "auth failed for AKIDEXAMPLE with " STATE_SECRET
           " and token " STATE_TOKEN " at https://user:pw@example.com/b");

  g_assert_cmpstr (text, ==,
                   "auth failed for REDACTED with REDACTED and token "
                   "REDACTED at https://REDACTED@example.com/b");
}

int
main (int argc, char *argv[])
{
  /* The plugin is linked in statically: loading its module as well would
   * register every type a second time. */
  g_setenv ("AGENTS_PLUGIN_PATH", "", TRUE);
  g_test_init (&argc, &argv, NULL);

  agents_s3mount_register_types ();

  g_test_add_func ("/s3mount/json/round-trip", test_json_round_trip);
  g_test_add_func ("/s3mount/json/defaults", test_json_defaults);
  g_test_add_func ("/s3mount/json/patterns", test_json_patterns);
  g_test_add_func ("/s3mount/json/hostile-entries", test_hostile_entries);
  g_test_add_func ("/s3mount/json/hostile-strategies", test_hostile_strategies);
  g_test_add_func ("/s3mount/json/typed-json-families",
                   test_typed_json_families);
  g_test_add_func ("/s3mount/copy-equal", test_copy_equal);
  g_test_add_func ("/s3mount/json/docker-volume", test_docker_volume_strategy);
  g_test_add_func ("/s3mount/argv/mountpoint", test_mountpoint_argv);
  g_test_add_func ("/s3mount/argv/s3fs", test_s3fs_argv);
  g_test_add_func ("/s3mount/read-only-tool", test_read_only_tool);
  g_test_add_func ("/s3mount/argv/rclone", test_rclone_argv);
  g_test_add_func ("/s3mount/argv/mountpoint-options", test_mountpoint_options);
  g_test_add_func ("/s3mount/argv/rclone-remote-name", test_rclone_remote_name);
  g_test_add_func ("/s3mount/argv/unmount", test_unmount_argv);
  g_test_add_func ("/s3mount/argv/secrets-not-in-argv",
                   test_secrets_not_in_argv);
  g_test_add_func ("/s3mount/argv/refuses-invalid-values",
                   test_argv_refuses_invalid_values);
  g_test_add_func ("/s3mount/environ", test_environ);
  g_test_add_func ("/s3mount/s3-provider", test_s3_provider);
  g_test_add_func ("/s3mount/to-string-redacts", test_to_string_redacts);

#define ADD_SESSION_TEST(path, func) \
  g_test_add (path, UnmountFixture, NULL, unmount_setup, func, unmount_teardown)

  ADD_SESSION_TEST ("/s3mount/unmount/not-mounted", test_unmount_not_mounted);
  ADD_SESSION_TEST ("/s3mount/unmount/mounted", test_unmount_mounted);
  ADD_SESSION_TEST ("/s3mount/unmount/failure", test_unmount_failure);
  ADD_SESSION_TEST ("/s3mount/unmount/without-mountpoint",
                    test_unmount_without_mountpoint);
  ADD_SESSION_TEST ("/s3mount/unmount/vfunc-replaceable",
                    test_unmount_vfunc_replaceable);
  ADD_SESSION_TEST ("/s3mount/mount/not-supported", test_mount_not_supported);

  g_test_add_func ("/s3mount/state/strips-authority",
                   test_state_strips_authority);
  g_test_add_func ("/s3mount/state/rebinds-from-trusted-manifest",
                   test_state_rebinds_from_trusted_manifest);
  g_test_add_func ("/s3mount/state/redacted-entry-refuses-to-mount",
                   test_redacted_entry_refuses_to_mount);
  g_test_add_func ("/s3mount/gate/refuses-unacknowledged-keys",
                   test_gate_refuses_unacknowledged_keys);
  g_test_add_func ("/s3mount/gate/acknowledgement-is-per-path",
                   test_gate_acknowledgement_is_per_path);
  g_test_add_func ("/s3mount/gate/acknowledgement-not-from-json",
                   test_gate_acknowledgement_not_from_json);
  g_test_add_func ("/s3mount/redact", test_redact);

  return g_test_run ();
}
