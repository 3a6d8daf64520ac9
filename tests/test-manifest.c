/* test-manifest.c - manifests, entries and their materialization
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "agents-sandbox-error-private.h"
#include "test-utils.h"

/* ---- a tiny mount entry ---------------------------------------------- */

#define TEST_TYPE_MOUNT (test_mount_get_type ())
G_DECLARE_FINAL_TYPE (TestMount, test_mount, TEST, MOUNT, AgentsMount)

struct _TestMount
{
  AgentsMount parent_instance;

  char *bucket;
};

G_DEFINE_FINAL_TYPE (TestMount, test_mount, AGENTS_TYPE_MOUNT)

static GPtrArray *mounted_paths; /* dests the test mounts were mounted at */

static void
test_mount_finalize (GObject *object)
{
  g_free (TEST_MOUNT (object)->bucket);
  G_OBJECT_CLASS (test_mount_parent_class)->finalize (object);
}

static void
test_mount_serialize (AgentsManifestEntry *entry, JsonBuilder *builder)
{
  json_builder_set_member_name (builder, "bucket");
  json_builder_add_string_value (builder, TEST_MOUNT (entry)->bucket);
}

static gboolean
test_mount_deserialize (AgentsManifestEntry *entry,
                        JsonObject *object,
                        GError **error)
{
  TestMount *self = TEST_MOUNT (entry);

  if (json_object_has_member (object, "bucket"))
    {
      g_free (self->bucket);
      self->bucket =
        g_strdup (json_object_get_string_member (object, "bucket"));
    }
  return TRUE;
}

static void
test_mount_copy (AgentsManifestEntry *entry, AgentsManifestEntry *dest)
{
  g_free (TEST_MOUNT (dest)->bucket);
  TEST_MOUNT (dest)->bucket = g_strdup (TEST_MOUNT (entry)->bucket);
}

static gboolean
test_mount_equal (AgentsManifestEntry *a, AgentsManifestEntry *b)
{
  return g_strcmp0 (TEST_MOUNT (a)->bucket, TEST_MOUNT (b)->bucket) == 0;
}

static void
test_mount_mount (AgentsMount *self,
                  AgentsSandboxSession *session,
                  const char *dest,
                  const char *base_dir,
                  GTask *task)
{
  g_ptr_array_add (mounted_paths, g_strdup (dest));
  g_task_return_boolean (task, TRUE);
}

static void
test_mount_class_init (TestMountClass *klass)
{
  AgentsManifestEntryClass *entry_class = AGENTS_MANIFEST_ENTRY_CLASS (klass);
  AgentsMountClass *mount_class = AGENTS_MOUNT_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = test_mount_finalize;
  entry_class->type_name = "test_mount";
  entry_class->serialize_fields = test_mount_serialize;
  entry_class->deserialize_fields = test_mount_deserialize;
  entry_class->copy_fields = test_mount_copy;
  entry_class->equal_fields = test_mount_equal;
  mount_class->mount = test_mount_mount;
}

static void
test_mount_init (TestMount *self)
{
  self->bucket = g_strdup ("b");
}

static AgentsManifestEntry *
test_mount_new (void)
{
  return g_object_new (TEST_TYPE_MOUNT, NULL);
}

/* A mount that implements nothing: the base class's defaults apply. */
#define TEST_TYPE_BARE_MOUNT (test_bare_mount_get_type ())
G_DECLARE_FINAL_TYPE (
  TestBareMount, test_bare_mount, TEST, BARE_MOUNT, AgentsMount)

struct _TestBareMount
{
  AgentsMount parent_instance;
};

G_DEFINE_FINAL_TYPE (TestBareMount, test_bare_mount, AGENTS_TYPE_MOUNT)

static void
test_bare_mount_class_init (TestBareMountClass *klass)
{
  AGENTS_MANIFEST_ENTRY_CLASS (klass)->type_name = "test_bare_mount";
}

static void
test_bare_mount_init (TestBareMount *self)
{
}

/* ---- a fake session over a host directory ---------------------------- */

#define FAKE_TYPE_SESSION (fake_session_get_type ())
G_DECLARE_FINAL_TYPE (FakeSession, fake_session, FAKE, SESSION, GObject)

struct _FakeSession
{
  GObject parent_instance;

  AgentsSandboxSessionState *state;
  char *root;
  GPtrArray *commands; /* joined argv of exec calls */
  GPtrArray *writes;   /* paths written */
  guint writes_in_flight;
  guint max_writes_in_flight;
};

static void fake_session_iface_init (AgentsSandboxSessionInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  FakeSession,
  fake_session,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_SANDBOX_SESSION, fake_session_iface_init))

static void
fake_session_finalize (GObject *object)
{
  FakeSession *self = FAKE_SESSION (object);

  g_clear_object (&self->state);
  g_free (self->root);
  g_ptr_array_unref (self->commands);
  g_ptr_array_unref (self->writes);
  G_OBJECT_CLASS (fake_session_parent_class)->finalize (object);
}

static void
fake_session_class_init (FakeSessionClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = fake_session_finalize;
}

static void
fake_session_init (FakeSession *self)
{
  self->commands = g_ptr_array_new_with_free_func (g_free);
  self->writes = g_ptr_array_new_with_free_func (g_free);
}

static AgentsSandboxSessionState *
fake_get_state (AgentsSandboxSession *session)
{
  return g_object_ref (FAKE_SESSION (session)->state);
}

static void
fake_succeed (AgentsSandboxSession *session, GTask *task)
{
  g_task_return_boolean (task, TRUE);
}

/* Every path the session touches must lie in its root. */
static void
assert_in_root (FakeSession *self, const char *path)
{
  g_autofree char *prefix = g_strconcat (self->root, "/", NULL);

  if (!g_str_equal (path, self->root) && !g_str_has_prefix (path, prefix))
    g_error ("fake session asked to touch %s outside %s", path, self->root);
}

static void
fake_exec_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GSubprocess *process = G_SUBPROCESS (source);
  g_autoptr (GBytes) out = NULL;
  g_autoptr (GBytes) err = NULL;
  GError *error = NULL;

  if (!g_subprocess_communicate_finish (process, result, &out, &err, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  g_task_return_pointer (
    task,
    agents_exec_result_new (out, err, g_subprocess_get_exit_status (process)),
    g_object_unref);
}

static void
fake_exec (AgentsSandboxSession *session,
           const char *const *argv,
           double timeout,
           GTask *task)
{
  FakeSession *self = FAKE_SESSION (session);
  g_autoptr (GSubprocessLauncher) launcher = g_subprocess_launcher_new (
    G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_autoptr (GSubprocess) process = NULL;
  GError *error = NULL;

  g_ptr_array_add (self->commands, g_strjoinv (" ", (char **) argv));
  g_subprocess_launcher_set_cwd (launcher, self->root);
  process = g_subprocess_launcher_spawnv (launcher, argv, &error);
  if (process == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  g_subprocess_communicate_async (process, NULL, NULL, fake_exec_done,
                                  g_object_ref (task));
}

static void
fake_read (AgentsSandboxSession *session,
           const char *path,
           const char *user,
           GTask *task)
{
  g_autoptr (GFile) file = g_file_new_for_path (path);
  GError *error = NULL;
  GFileInputStream *stream;

  assert_in_root (FAKE_SESSION (session), path);
  stream = g_file_read (file, NULL, &error);
  if (stream == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, stream, g_object_unref);
}

static gboolean
fake_write_complete (gpointer user_data)
{
  GTask *task = user_data;
  FakeSession *self = g_task_get_source_object (task);

  self->writes_in_flight--;
  g_task_return_boolean (task, TRUE);
  return G_SOURCE_REMOVE;
}

/* Writes at once but completes later, so that concurrent writes overlap
 * and can be counted. */
static void
fake_write (AgentsSandboxSession *session,
            const char *path,
            GInputStream *data,
            const char *user,
            GTask *task)
{
  FakeSession *self = FAKE_SESSION (session);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GFileOutputStream) out = NULL;
  GError *error = NULL;

  assert_in_root (self, path);
  g_ptr_array_add (self->writes, g_strdup (path));
  out = g_file_replace (file, NULL, FALSE, G_FILE_CREATE_NONE, NULL, &error);
  if (out == NULL || g_output_stream_splice (
                       G_OUTPUT_STREAM (out), data,
                       G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL, &error) < 0)
    {
      g_task_return_error (task, error);
      return;
    }
  self->writes_in_flight++;
  self->max_writes_in_flight =
    MAX (self->max_writes_in_flight, self->writes_in_flight);
  g_timeout_add_full (G_PRIORITY_DEFAULT, 5, fake_write_complete,
                      g_object_ref (task), g_object_unref);
}

static void
fake_mkdir (AgentsSandboxSession *session,
            const char *path,
            gboolean parents,
            GTask *task)
{
  FakeSession *self = FAKE_SESSION (session);

  assert_in_root (self, path);
  g_ptr_array_add (self->commands,
                   g_strdup_printf ("mkdir %s%s", parents ? "-p " : "", path));
  if ((parents ? g_mkdir_with_parents (path, 0755) : g_mkdir (path, 0755)) != 0)
    {
      int saved_errno = errno;

      g_task_return_new_error (task, G_IO_ERROR,
                               g_io_error_from_errno (saved_errno),
                               "mkdir %s: %s", path, g_strerror (saved_errno));
      return;
    }
  g_task_return_boolean (task, TRUE);
}

static void
fake_session_iface_init (AgentsSandboxSessionInterface *iface)
{
  iface->get_state = fake_get_state;
  iface->start = fake_succeed;
  iface->stop = fake_succeed;
  iface->running = fake_succeed;
  iface->exec = fake_exec;
  iface->read = fake_read;
  iface->write = fake_write;
  iface->mkdir = fake_mkdir;
}

static FakeSession *
fake_session_new (AgentsManifest *manifest)
{
  FakeSession *self = g_object_new (FAKE_TYPE_SESSION, NULL);

  self->root = g_strdup (agents_manifest_get_root (manifest));
  self->state = agents_sandbox_session_state_new (manifest, NULL);
  return self;
}

/* ---- fixture for materialization tests ------------------------------ */

typedef struct
{
  char *workspace; /* the session root */
  char *base;      /* the base directory of local sources */
  char *outside;   /* a directory outside the base */
  AgentsManifest *manifest;
  FakeSession *session;
} ApplyFixture;

static void
apply_fixture_setup (ApplyFixture *fixture, gconstpointer data)
{
  fixture->workspace = agents_test_make_tmp_dir ("workspace-");
  fixture->base = agents_test_make_tmp_dir ("base-");
  fixture->outside = agents_test_make_tmp_dir ("outside-");
  fixture->manifest = agents_manifest_new ();
  agents_manifest_set_root (fixture->manifest, fixture->workspace);
  fixture->session = fake_session_new (fixture->manifest);
}

static void
apply_fixture_teardown (ApplyFixture *fixture, gconstpointer data)
{
  g_clear_object (&fixture->session);
  g_clear_object (&fixture->manifest);
  agents_test_rm_rf (fixture->workspace);
  agents_test_rm_rf (fixture->base);
  agents_test_rm_rf (fixture->outside);
  g_free (fixture->workspace);
  g_free (fixture->base);
  g_free (fixture->outside);
}

static GPtrArray *
apply_entry (ApplyFixture *fixture,
             AgentsManifestEntry *entry,
             const char *rel_dest,
             const char *base_dir,
             GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autofree char *dest = g_build_filename (fixture->workspace, rel_dest, NULL);

  agents_manifest_entry_apply_async (
    entry, AGENTS_SANDBOX_SESSION (fixture->session), dest, base_dir, NULL,
    agents_test_async_cb, &result);
  agents_test_wait_result (&result);
  return agents_manifest_entry_apply_finish (entry, result, error);
}

static char *
workspace_path (ApplyFixture *fixture, const char *rel)
{
  return g_build_filename (fixture->workspace, rel, NULL);
}

static void
assert_workspace_file (ApplyFixture *fixture,
                       const char *rel,
                       const char *contents)
{
  g_autofree char *path = workspace_path (fixture, rel);
  g_autofree char *actual = NULL;

  g_test_message ("expecting %s", rel);
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  g_assert_false (g_file_test (path, G_FILE_TEST_IS_SYMLINK));
  actual = agents_test_read_file (path);
  g_assert_cmpstr (actual, ==, contents);
}

static void
assert_workspace_missing (ApplyFixture *fixture, const char *rel)
{
  g_autofree char *path = workspace_path (fixture, rel);
  struct stat st;

  g_test_message ("not expecting %s", rel);
  g_assert_cmpint (g_lstat (path, &st), !=, 0);
}

static guint
file_mode (const char *path)
{
  struct stat st;

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  return st.st_mode & 07777;
}

static void
assert_materialized (GPtrArray *files,
                     guint index,
                     const char *path,
                     const char *contents)
{
  AgentsMaterializedFile *file = files->pdata[index];
  g_autofree char *sha =
    g_compute_checksum_for_string (G_CHECKSUM_SHA256, contents, -1);

  g_assert_cmpstr (file->path, ==, path);
  g_assert_cmpstr (file->sha256, ==, sha);
}

static gboolean
commands_contain (FakeSession *session, const char *prefix)
{
  for (guint i = 0; i < session->commands->len; i++)
    if (g_str_has_prefix (session->commands->pdata[i], prefix))
      return TRUE;
  return FALSE;
}

/* ---- JSON helpers ---------------------------------------------------- */

static AgentsManifestEntry *
entry_from_text (const char *text, GError **error)
{
  g_autoptr (JsonNode) node = json_from_string (text, NULL);

  g_assert_nonnull (node);
  return agents_manifest_entry_new_from_json (node, error);
}

static char *
entry_to_text (AgentsManifestEntry *entry)
{
  g_autoptr (JsonNode) node = agents_manifest_entry_to_json (entry);

  return json_to_string (node, FALSE);
}

#define DEFAULT_PERMISSIONS \
  "{\"owner\":7,\"group\":5,\"other\":5,\"directory\":false}"
#define DIR_PERMISSIONS \
  "{\"owner\":7,\"group\":5,\"other\":5,\"directory\":true}"
#define DEFAULT_ALLOWLIST                                                      \
  "[\"ls\",\"find\",\"stat\",\"cat\",\"less\",\"head\",\"tail\",\"du\","       \
  "\"grep\",\"rg\",\"wc\",\"sort\",\"cut\",\"cp\",\"tee\",\"echo\",\"mkdir\"," \
  "\"rm\"]"

/* A manifest with one entry of every type. */
static AgentsManifest *
build_full_manifest (void)
{
  AgentsManifest *manifest = agents_manifest_new ();
  g_autoptr (AgentsUser) alice = agents_user_new ("alice");
  AgentsUser *users[] = { alice };
  g_autoptr (AgentsGroup) devs = agents_group_new ("devs", users, 1);
  g_autoptr (AgentsSandboxPathGrant) grant =
    agents_sandbox_path_grant_new ("/tmp", TRUE, "scratch");
  g_autoptr (AgentsManifestEntry) readme = agents_file_new_from_text ("hello");
  g_autoptr (GBytes) binary = g_bytes_new_static ("\x00\xff", 2);
  g_autoptr (AgentsManifestEntry) bin = agents_file_new (binary);
  g_autoptr (AgentsPermissions) bin_mode =
    agents_permissions_new_full (6, 4, 4, FALSE);
  g_autoptr (AgentsManifestEntry) docs = agents_dir_new ();
  g_autoptr (AgentsManifestEntry) a_txt = agents_file_new_from_text ("A");
  g_autoptr (AgentsManifestEntry) mount = test_mount_new ();
  g_autoptr (AgentsManifestEntry) local =
    agents_local_file_new ("data/local.txt");
  g_autoptr (AgentsManifestEntry) tree = agents_local_dir_new ("data");
  g_autoptr (AgentsManifestEntry) repo =
    agents_git_repo_new (NULL, "openai/agents", NULL);

  agents_manifest_entry_set_description (readme, "readme");
  agents_manifest_entry_set_permissions (bin, bin_mode);
  agents_manifest_entry_set_ephemeral (bin, TRUE);
  agents_manifest_entry_set_group (docs, devs);
  agents_mount_set_mount_path (AGENTS_MOUNT (mount), "real/mnt");
  agents_dir_set_child (AGENTS_DIR (docs), "a.txt", a_txt);
  agents_dir_set_child (AGENTS_DIR (docs), "mnt", mount);
  agents_git_repo_set_subpath (AGENTS_GIT_REPO (repo), "src");

  agents_manifest_set_entry (manifest, "README.md", readme);
  agents_manifest_set_entry (manifest, "bin.dat", bin);
  agents_manifest_set_entry (manifest, "docs", docs);
  agents_manifest_set_entry (manifest, "local.txt", local);
  agents_manifest_set_entry (manifest, "tree", tree);
  agents_manifest_set_entry (manifest, "repo", repo);
  agents_manifest_set_env (manifest, "B", "2");
  agents_manifest_set_env (manifest, "A", "1");
  agents_manifest_add_user (manifest, alice);
  agents_manifest_add_group (manifest, devs);
  agents_manifest_add_extra_path_grant (manifest, grant);
  return manifest;
}

static const char full_manifest_json[] =
  "{\"version\":1,\"root\":\"/workspace\",\"entries\":{"
  "\"README.md\":{\"type\":\"file\",\"description\":\"readme\","
  "\"ephemeral\":false,\"group\":null,\"permissions\":" DEFAULT_PERMISSIONS ","
  "\"content\":\"hello\"},"
  "\"bin.dat\":{\"type\":\"file\",\"description\":null,\"ephemeral\":true,"
  "\"group\":null,\"permissions\":{\"owner\":6,\"group\":4,\"other\":4,"
  "\"directory\":false},\"content\":{\"encoding\":\"base64\",\"data\":\"AP8=\"}"
  "},"
  "\"docs\":{\"type\":\"dir\",\"description\":null,\"ephemeral\":false,"
  "\"group\":{\"name\":\"devs\",\"users\":[{\"name\":\"alice\"}]},"
  "\"permissions\":" DIR_PERMISSIONS ",\"children\":{"
  "\"a.txt\":{\"type\":\"file\",\"description\":null,\"ephemeral\":false,"
  "\"group\":null,\"permissions\":" DEFAULT_PERMISSIONS ",\"content\":\"A\"},"
  "\"mnt\":{\"type\":\"test_mount\",\"description\":null,\"ephemeral\":true,"
  "\"group\":null,\"permissions\":" DEFAULT_PERMISSIONS ","
  "\"mount_path\":\"real/mnt\",\"read_only\":true,\"bucket\":\"b\"}}},"
  "\"local.txt\":{\"type\":\"local_file\",\"description\":null,"
  "\"ephemeral\":false,\"group\":null,\"permissions\":" DEFAULT_PERMISSIONS ","
  "\"src\":\"data/local.txt\"},"
  "\"tree\":{\"type\":\"local_dir\",\"description\":null,\"ephemeral\":false,"
  "\"group\":null,\"permissions\":" DEFAULT_PERMISSIONS ",\"src\":\"data\"},"
  "\"repo\":{\"type\":\"git_repo\",\"description\":null,\"ephemeral\":false,"
  "\"group\":null,\"permissions\":" DEFAULT_PERMISSIONS ","
  "\"host\":\"github.com\",\"repo\":\"openai/agents\",\"ref\":\"main\","
  "\"subpath\":\"src\"}},"
  "\"environment\":{\"value\":{\"B\":\"2\",\"A\":\"1\"}},"
  "\"users\":[{\"name\":\"alice\"}],"
  "\"groups\":[{\"name\":\"devs\",\"users\":[{\"name\":\"alice\"}]}],"
  "\"extra_path_grants\":[{\"path\":\"/tmp\",\"read_only\":true,"
  "\"description\":\"scratch\"}],"
  "\"remote_mount_command_allowlist\":" DEFAULT_ALLOWLIST "}";

/* ---- defaults -------------------------------------------------------- */

static void
test_manifest_defaults (void)
{
  static const char *expected_allowlist[] = {
    "ls", "find", "stat", "cat", "less", "head", "tail",  "du", "grep", "rg",
    "wc", "sort", "cut",  "cp",  "tee",  "echo", "mkdir", "rm", NULL,
  };
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_auto (GStrv) paths = agents_manifest_get_entry_paths (manifest);
  g_autofree char *data = agents_manifest_to_data (manifest, NULL);

  g_assert_cmpint (agents_manifest_get_version (manifest), ==, 1);
  g_assert_cmpstr (agents_manifest_get_root (manifest), ==, "/workspace");
  g_assert_cmpstr (AGENTS_MANIFEST_DEFAULT_ROOT, ==, "/workspace");
  g_assert_cmpuint (agents_manifest_get_n_entries (manifest), ==, 0);
  g_assert_cmpstrv (paths, (char **) (const char *const[]){ NULL });
  g_assert_cmpuint (agents_manifest_get_users (manifest)->len, ==, 0);
  g_assert_cmpuint (agents_manifest_get_groups (manifest)->len, ==, 0);
  g_assert_cmpuint (agents_manifest_get_extra_path_grants (manifest)->len, ==,
                    0);
  g_assert_cmpuint (g_strv_length ((char **) expected_allowlist), ==, 18);
  g_assert_cmpstrv (
    agents_manifest_get_remote_mount_command_allowlist (manifest),
    expected_allowlist);
  g_assert_cmpstrv (
    agents_manifest_get_default_remote_mount_command_allowlist (),
    expected_allowlist);
  g_assert_cmpstr (data, ==,
                   "{\"version\":1,\"root\":\"/workspace\",\"entries\":{},"
                   "\"environment\":{\"value\":{}},\"users\":[],\"groups\":[],"
                   "\"extra_path_grants\":[],"
                   "\"remote_mount_command_allowlist\":" DEFAULT_ALLOWLIST "}");
}

static void
test_entry_defaults (void)
{
  g_autoptr (AgentsManifestEntry) file = agents_file_new (NULL);
  g_autoptr (AgentsManifestEntry) dir = agents_dir_new ();
  g_autoptr (AgentsManifestEntry) local_file = agents_local_file_new ("x");
  g_autoptr (AgentsManifestEntry) local_dir = agents_local_dir_new ("y");
  g_autoptr (AgentsManifestEntry) repo =
    agents_git_repo_new (NULL, "o/n", NULL);
  g_autoptr (AgentsManifestEntry) mount = test_mount_new ();
  const AgentsPermissions *permissions;

  g_assert_cmpstr (agents_manifest_entry_get_type_name (file), ==, "file");
  g_assert_cmpstr (agents_manifest_entry_get_type_name (dir), ==, "dir");
  g_assert_cmpstr (agents_manifest_entry_get_type_name (local_file), ==,
                   "local_file");
  g_assert_cmpstr (agents_manifest_entry_get_type_name (local_dir), ==,
                   "local_dir");
  g_assert_cmpstr (agents_manifest_entry_get_type_name (repo), ==, "git_repo");

  g_assert_cmpuint (
    g_bytes_get_size (agents_file_get_content (AGENTS_FILE (file))), ==, 0);
  g_assert_null (agents_manifest_entry_get_description (file));
  g_assert_false (agents_manifest_entry_get_ephemeral (file));
  g_assert_null (agents_manifest_entry_get_group (file));
  g_assert_false (agents_manifest_entry_is_mount (file));
  permissions = agents_manifest_entry_get_permissions (file);
  g_assert_cmpuint (agents_permissions_to_mode (permissions), ==, 0755);
  g_assert_false (permissions->directory);

  permissions = agents_manifest_entry_get_permissions (dir);
  g_assert_cmpuint (agents_permissions_to_mode (permissions), ==, 040755);
  g_assert_true (permissions->directory);

  g_assert_cmpstr (agents_local_file_get_src (AGENTS_LOCAL_FILE (local_file)),
                   ==, "x");
  g_assert_cmpstr (agents_local_dir_get_src (AGENTS_LOCAL_DIR (local_dir)), ==,
                   "y");

  g_assert_cmpstr (agents_git_repo_get_host (AGENTS_GIT_REPO (repo)), ==,
                   "github.com");
  g_assert_cmpstr (agents_git_repo_get_repo (AGENTS_GIT_REPO (repo)), ==,
                   "o/n");
  g_assert_cmpstr (agents_git_repo_get_ref (AGENTS_GIT_REPO (repo)), ==,
                   "main");
  g_assert_null (agents_git_repo_get_subpath (AGENTS_GIT_REPO (repo)));

  g_assert_true (agents_manifest_entry_is_mount (mount));
  g_assert_true (agents_manifest_entry_get_ephemeral (mount));
  g_assert_true (agents_mount_get_read_only (AGENTS_MOUNT (mount)));
  g_assert_null (agents_mount_get_mount_path (AGENTS_MOUNT (mount)));
}

static void
test_git_clone_url (void)
{
  static const struct
  {
    const char *host;
    const char *repo;
    const char *url;
  } cases[] = {
    { NULL, "openai/agents", "https://github.com/openai/agents.git" },
    { "gitlab.example.com", "a/b", "https://gitlab.example.com/a/b.git" },
    { "/srv/git", "owner/name", "file:///srv/git/owner/name" },
    { "file:///srv/git", "owner/name", "file:///srv/git/owner/name" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (AgentsManifestEntry) repo =
        agents_git_repo_new (cases[i].host, cases[i].repo, NULL);
      g_autofree char *url =
        agents_git_repo_dup_clone_url (AGENTS_GIT_REPO (repo));

      g_assert_cmpstr (url, ==, cases[i].url);
    }
}

/* ---- JSON ------------------------------------------------------------ */

static void
test_manifest_serialize_exact (void)
{
  g_autoptr (AgentsManifest) manifest = build_full_manifest ();
  gsize length = 0;
  g_autofree char *data = agents_manifest_to_data (manifest, &length);

  g_assert_cmpstr (data, ==, full_manifest_json);
  g_assert_cmpuint (length, ==, strlen (full_manifest_json));
}

static void
test_manifest_round_trip (void)
{
  g_autoptr (AgentsManifest) manifest = build_full_manifest ();
  g_autoptr (JsonNode) node = agents_manifest_to_json (manifest);
  g_autoptr (AgentsManifest) back = NULL;
  g_autoptr (AgentsManifest) parsed = NULL;
  g_autofree char *again = NULL;
  g_auto (GStrv) paths = NULL;
  g_auto (GStrv) env = NULL;
  g_autoptr (GError) error = NULL;
  GBytes *content;

  back = agents_manifest_new_from_json (node, &error);
  g_assert_no_error (error);
  g_assert_true (agents_manifest_equal (back, manifest));
  g_assert_true (agents_manifest_entries_equal (back, manifest));

  parsed = agents_manifest_new_from_data (full_manifest_json, -1, &error);
  g_assert_no_error (error);
  g_assert_true (agents_manifest_equal (parsed, manifest));
  again = agents_manifest_to_data (parsed, NULL);
  g_assert_cmpstr (again, ==, full_manifest_json);

  paths = agents_manifest_get_entry_paths (parsed);
  g_assert_cmpstrv (
    paths, ((const char *const[]){ "README.md", "bin.dat", "docs", "local.txt",
                                   "tree", "repo", NULL }));
  env = agents_manifest_get_env_names (parsed);
  g_assert_cmpstrv (env, ((const char *const[]){ "B", "A", NULL }));
  content = agents_file_get_content (
    AGENTS_FILE (agents_manifest_get_entry (parsed, "bin.dat")));
  g_assert_cmpmem (g_bytes_get_data (content, NULL), g_bytes_get_size (content),
                   "\x00\xff", 2);
  g_assert_true (TEST_IS_MOUNT (agents_dir_get_child (
    AGENTS_DIR (agents_manifest_get_entry (parsed, "docs")), "mnt")));
}

static void
test_manifest_minimal_json (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsManifest) manifest = agents_manifest_new_from_data (
    "{\"entries\":{\"a\":{\"type\":\"file\",\"content\":\"x\"},"
    "\"d\":{\"type\":\"dir\",\"permissions\":{\"owner\":7,\"group\":0,"
    "\"other\":0}},\"m\":{\"type\":\"test_mount\"},"
    "\"g\":{\"type\":\"git_repo\",\"repo\":\"o/n\"},"
    "\"b\":{\"type\":\"file\",\"content\":{\"encoding\":\"base64\","
    "\"data\":\"aGk=\"}}}}",
    -1, &error);
  AgentsManifestEntry *file, *dir, *mount, *repo, *b64;
  GBytes *content;

  g_assert_no_error (error);
  g_assert_cmpstr (agents_manifest_get_root (manifest), ==, "/workspace");
  g_assert_cmpuint (
    g_strv_length (
      (char **) agents_manifest_get_remote_mount_command_allowlist (manifest)),
    ==, 18);

  file = agents_manifest_get_entry (manifest, "a");
  g_assert_true (AGENTS_IS_FILE (file));
  g_assert_false (agents_manifest_entry_get_ephemeral (file));
  g_assert_cmpuint (
    agents_permissions_to_mode (agents_manifest_entry_get_permissions (file)),
    ==, 0755);

  dir = agents_manifest_get_entry (manifest, "d");
  g_assert_cmpuint (
    agents_permissions_to_mode (agents_manifest_entry_get_permissions (dir)),
    ==, 040700);
  g_assert_true (agents_manifest_entry_get_permissions (dir)->directory);

  mount = agents_manifest_get_entry (manifest, "m");
  g_assert_true (agents_manifest_entry_get_ephemeral (mount));
  g_assert_true (agents_mount_get_read_only (AGENTS_MOUNT (mount)));

  repo = agents_manifest_get_entry (manifest, "g");
  g_assert_cmpstr (agents_git_repo_get_host (AGENTS_GIT_REPO (repo)), ==,
                   "github.com");
  g_assert_cmpstr (agents_git_repo_get_ref (AGENTS_GIT_REPO (repo)), ==,
                   "main");

  b64 = agents_manifest_get_entry (manifest, "b");
  content = agents_file_get_content (AGENTS_FILE (b64));
  g_assert_cmpmem (g_bytes_get_data (content, NULL), g_bytes_get_size (content),
                   "hi", 2);
}

static void
test_entry_json_round_trip (void)
{
  g_autoptr (AgentsManifest) manifest = build_full_manifest ();
  g_auto (GStrv) paths = agents_manifest_get_entry_paths (manifest);

  for (guint i = 0; paths[i] != NULL; i++)
    {
      AgentsManifestEntry *entry =
        agents_manifest_get_entry (manifest, paths[i]);
      g_autofree char *text = entry_to_text (entry);
      g_autoptr (GError) error = NULL;
      g_autoptr (AgentsManifestEntry) back = entry_from_text (text, &error);
      g_autofree char *again = NULL;

      g_assert_no_error (error);
      g_assert_true (G_OBJECT_TYPE (back) == G_OBJECT_TYPE (entry));
      g_assert_true (agents_manifest_entry_equal (back, entry));
      again = entry_to_text (back);
      g_assert_cmpstr (again, ==, text);
    }
}

static void
test_entry_equal (void)
{
  g_autoptr (AgentsManifestEntry) a = agents_file_new_from_text ("x");
  g_autoptr (AgentsManifestEntry) b = agents_file_new_from_text ("x");
  g_autoptr (AgentsManifestEntry) c = agents_file_new_from_text ("y");
  g_autoptr (AgentsManifestEntry) local = agents_local_file_new ("x");
  g_autoptr (AgentsManifestEntry) local_dir = agents_local_dir_new ("x");
  g_autoptr (AgentsManifestEntry) dir1 = agents_dir_new ();
  g_autoptr (AgentsManifestEntry) dir2 = agents_dir_new ();
  g_autoptr (AgentsManifestEntry) m1 = test_mount_new ();
  g_autoptr (AgentsManifestEntry) m2 = test_mount_new ();
  g_autoptr (AgentsGroup) group = agents_group_new ("g", NULL, 0);

  g_assert_true (agents_manifest_entry_equal (a, b));
  g_assert_false (agents_manifest_entry_equal (a, c));
  g_assert_false (agents_manifest_entry_equal (a, local));
  g_assert_false (agents_manifest_entry_equal (local, local_dir));
  g_assert_false (agents_manifest_entry_equal (a, NULL));

  agents_manifest_entry_set_description (b, "different");
  g_assert_false (agents_manifest_entry_equal (a, b));
  agents_manifest_entry_set_description (b, NULL);
  agents_manifest_entry_set_group (b, group);
  g_assert_false (agents_manifest_entry_equal (a, b));

  agents_dir_set_child (AGENTS_DIR (dir1), "a", a);
  agents_dir_set_child (AGENTS_DIR (dir2), "a", c);
  g_assert_false (agents_manifest_entry_equal (dir1, dir2));
  agents_dir_set_child (AGENTS_DIR (dir2), "a", a);
  g_assert_true (agents_manifest_entry_equal (dir1, dir2));
  agents_dir_set_child (AGENTS_DIR (dir2), "a", NULL);
  g_assert_false (agents_manifest_entry_equal (dir1, dir2));
  g_assert_null (agents_dir_get_child (AGENTS_DIR (dir2), "a"));

  g_assert_true (agents_manifest_entry_equal (m1, m2));
  agents_mount_set_read_only (AGENTS_MOUNT (m2), FALSE);
  g_assert_false (agents_manifest_entry_equal (m1, m2));
}

/* ---- copies ---------------------------------------------------------- */

static void
test_manifest_deep_copy (void)
{
  g_autoptr (AgentsManifest) manifest = build_full_manifest ();
  g_autoptr (AgentsManifest) copy = agents_manifest_copy (manifest);
  g_autofree char *before = agents_manifest_to_data (manifest, NULL);
  g_autofree char *after = NULL;
  g_autoptr (AgentsManifestEntry) extra = agents_file_new_from_text ("extra");
  g_autoptr (AgentsUser) mallory = agents_user_new ("mallory");
  g_autoptr (AgentsPermissions) locked =
    agents_permissions_new_full (4, 0, 0, FALSE);
  AgentsManifestEntry *docs_copy;
  AgentsGroup *group_copy;

  g_assert_true (agents_manifest_equal (copy, manifest));
  g_assert_true (agents_manifest_get_entry (copy, "docs") !=
                 agents_manifest_get_entry (manifest, "docs"));

  /* Mutate everything reachable from the copy. */
  agents_manifest_entry_set_description (
    agents_manifest_get_entry (copy, "README.md"), "changed");
  agents_manifest_entry_set_permissions (
    agents_manifest_get_entry (copy, "README.md"), locked);
  docs_copy = agents_manifest_get_entry (copy, "docs");
  agents_dir_set_child (AGENTS_DIR (docs_copy), "extra.txt", extra);
  agents_manifest_entry_set_description (
    agents_dir_get_child (AGENTS_DIR (docs_copy), "a.txt"), "child changed");
  agents_mount_set_read_only (
    AGENTS_MOUNT (agents_dir_get_child (AGENTS_DIR (docs_copy), "mnt")), FALSE);
  group_copy = agents_manifest_entry_get_group (docs_copy);
  agents_group_add_user (group_copy, mallory);
  agents_group_add_user (
    g_ptr_array_index (agents_manifest_get_groups (copy), 0), mallory);
  agents_manifest_add_user (copy, mallory);
  agents_manifest_set_entry (copy, "new.txt", extra);
  agents_manifest_remove_entry (copy, "tree");
  agents_manifest_set_env (copy, "A", "changed");
  agents_manifest_set_root (copy, "/elsewhere");
  agents_manifest_set_remote_mount_command_allowlist (
    copy, (const char *const[]){ "ls", NULL });

  after = agents_manifest_to_data (manifest, NULL);
  g_assert_cmpstr (after, ==, before);
  g_assert_cmpstr (after, ==, full_manifest_json);
  g_assert_false (agents_manifest_equal (copy, manifest));
  g_assert_false (agents_manifest_entries_equal (copy, manifest));
}

static void
test_entry_copy (void)
{
  g_autoptr (AgentsManifest) manifest = build_full_manifest ();
  g_auto (GStrv) paths = agents_manifest_get_entry_paths (manifest);

  for (guint i = 0; paths[i] != NULL; i++)
    {
      AgentsManifestEntry *entry =
        agents_manifest_get_entry (manifest, paths[i]);
      g_autoptr (AgentsManifestEntry) copy = agents_manifest_entry_copy (entry);

      g_assert_true (copy != entry);
      g_assert_true (agents_manifest_entry_equal (copy, entry));
      agents_manifest_entry_set_description (copy, "changed");
      g_assert_false (agents_manifest_entry_equal (copy, entry));
    }
}

static void
test_manifest_equality (void)
{
  g_autoptr (AgentsManifest) a = build_full_manifest ();
  g_autoptr (AgentsManifest) b = build_full_manifest ();
  g_autoptr (AgentsManifestEntry) replacement =
    agents_file_new_from_text ("bye");
  g_auto (GStrv) paths = NULL;

  g_assert_true (agents_manifest_equal (a, b));
  agents_manifest_set_env (b, "C", "3");
  g_assert_false (agents_manifest_equal (a, b));
  g_assert_true (agents_manifest_entries_equal (a, b));
  agents_manifest_set_env (b, "C", NULL);
  g_assert_true (agents_manifest_equal (a, b));

  /* Replacing keeps the place of the entry. */
  agents_manifest_set_entry (b, "README.md", replacement);
  g_assert_false (agents_manifest_entries_equal (a, b));
  paths = agents_manifest_get_entry_paths (b);
  g_assert_cmpstr (paths[0], ==, "README.md");
  g_assert_true (agents_manifest_remove_entry (b, "README.md"));
  g_assert_false (agents_manifest_remove_entry (b, "README.md"));
  g_assert_cmpuint (agents_manifest_get_n_entries (b), ==, 5);
}

/* ---- paths ----------------------------------------------------------- */

/* The reference's InvalidManifestPathError: an absolute path is told to
 * be relative (reason `absolute`), a relative one not to escape. */
static void
assert_escape_error (const GError *error, const char *given)
{
  gboolean absolute = g_path_is_absolute (given);
  /* An absolute path is named normalized (ENT-02). */
  g_autofree char *path =
    absolute ? g_canonicalize_filename (given, "/") : g_strdup (given);
  g_autofree char *message =
    g_strdup_printf (absolute ? "manifest path must be relative: %s"
                              : "manifest path must not escape root: %s",
                     path);

  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH);
  g_assert_cmpstr (error->message, ==, message);
  agents_test_assert_context_str (error, "rel", path);
  agents_test_assert_context_str (error, "reason",
                                  absolute ? "absolute" : "escape_root");
}

static void
test_validate_relative_path (void)
{
  static const char *good[] = {
    ".", "a", "a/b", "./a", "a/./b", "a//b", "a/", "...", "..a", "a..", "a/..b",
  };
  static const char *bad[] = {
    "", "/", "/a", "..", "../a", "a/..", "a/../b", "a/b/../../c", "./..",
  };

  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autoptr (GError) error = NULL;

      g_test_message ("good “%s”", good[i]);
      g_assert_true (agents_manifest_validate_relative_path (good[i], &error));
      g_assert_no_error (error);
    }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;

      g_test_message ("bad “%s”", bad[i]);
      g_assert_false (agents_manifest_validate_relative_path (bad[i], &error));
      assert_escape_error (error, bad[i]);
    }

  /* A Windows drive path is absolute (reference MAN-08), shown with
   * slashes. */
  {
    g_autoptr (GError) error = NULL;

    g_assert_false (
      agents_manifest_validate_relative_path ("C:\\tmp\\mount", &error));
    g_assert_error (error, AGENTS_SANDBOX_ERROR,
                    AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH);
    g_assert_cmpstr (error->message, ==,
                     "manifest path must be relative: C:/tmp/mount");
    agents_test_assert_context_str (error, "rel", "C:/tmp/mount");
    agents_test_assert_context_str (error, "reason", "absolute");
  }
}

static void
test_resolve_path (void)
{
  static const struct
  {
    const char *path;
    const char *resolved; /* NULL: escapes */
  } cases[] = {
    { ".", "/workspace" },
    { "a", "/workspace/a" },
    { "a/b/c.txt", "/workspace/a/b/c.txt" },
    { "./a", "/workspace/a" },
    { "a/./b", "/workspace/a/b" },
    { "a//b/", "/workspace/a/b" },
    { "a/..", "/workspace" },
    { "a/../b", "/workspace/b" },
    { "a/b/../c", "/workspace/a/c" },
    { "...", "/workspace/..." },
    { "", "/workspace" }, /* Path("") is Path(".") in the reference */
    { "..", NULL },
    { "../x", NULL },
    { "a/../../b", NULL },
    { "a/b/../../..", NULL },
    /* Lexical, as posixpath.normpath: it comes back inside the root. */
    { "../workspace/a", "/workspace/a" },
    { "/workspace", "/workspace" },
    { "/workspace/", "/workspace" },
    { "/workspace/a/../b", "/workspace/b" },
    { "//workspace//a", "/workspace/a" },
    { "/workspace/../etc/passwd", NULL },
    { "/workspacex", NULL },
    { "/workspacex/a", NULL },
    { "/etc/passwd", NULL },
    { "/", NULL },
    { "/../workspace/a", "/workspace/a" }, /* normpath: `..` of `/` is `/` */
    { "/tmp/grant", "/tmp/grant" },
    { "/tmp/grant/x/y", "/tmp/grant/x/y" },
    { "/tmp/grant/./x", "/tmp/grant/x" },
    { "/tmp/grantx", NULL },
    { "/tmp/grant/../other", NULL },
    { "/tmp", NULL },
    { "/data/ro/file", "/data/ro/file" },
    { "/data/ro", "/data/ro" },
    { "/data", NULL },
  };
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsSandboxPathGrant) grant =
    agents_sandbox_path_grant_new ("/tmp/grant", FALSE, NULL);
  g_autoptr (AgentsSandboxPathGrant) ro =
    agents_sandbox_path_grant_new ("/data/ro/", TRUE, "read-only data");

  agents_manifest_add_extra_path_grant (manifest, grant);
  agents_manifest_add_extra_path_grant (manifest, ro);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *resolved =
        agents_manifest_resolve_path (manifest, cases[i].path, &error);

      g_test_message ("case “%s”", cases[i].path);
      if (cases[i].resolved != NULL)
        {
          g_assert_no_error (error);
          g_assert_cmpstr (resolved, ==, cases[i].resolved);
        }
      else
        {
          g_assert_null (resolved);
          assert_escape_error (error, cases[i].path);
        }
    }
}

static void
test_resolve_path_other_roots (void)
{
  static const struct
  {
    const char *root;
    const char *path;
    const char *resolved;
  } cases[] = {
    { "/", "a", "/a" },
    { "/", "/etc/passwd", "/etc/passwd" },
    { "/", ".", "/" },
    { "/srv/ws/", "a", "/srv/ws/a" },
    { "/srv/ws/", "/srv/ws/a", "/srv/ws/a" },
    { "/srv/./ws", "b", "/srv/ws/b" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
      g_autoptr (GError) error = NULL;
      g_autofree char *resolved = NULL;

      agents_manifest_set_root (manifest, cases[i].root);
      resolved = agents_manifest_resolve_path (manifest, cases[i].path, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (resolved, ==, cases[i].resolved);
    }
}

/* ---- hostile JSON ---------------------------------------------------- */

static void
test_manifest_hostile_json (void)
{
  static const struct
  {
    const char *json;
    int code;
  } cases[] = {
    { "{", AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "", AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "[]", AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "null", AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"version\":2}", AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"version\":\"1\"}", AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"root\":5}", AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"root\":\"relative\"}", AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"entries\":[]}", AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"entries\":null}", AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"entries\":{\"/etc/passwd\":{\"type\":\"file\",\"content\":\"x\"}}}",
      AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH },
    { "{\"entries\":{\"../x\":{\"type\":\"file\",\"content\":\"x\"}}}",
      AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH },
    { "{\"entries\":{\"a/../../x\":{\"type\":\"file\",\"content\":\"x\"}}}",
      AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH },
    { "{\"entries\":{\"\":{\"type\":\"file\",\"content\":\"x\"}}}",
      AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH },
    { "{\"entries\":{\"a\":\"file\"}}", AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"entries\":{\"a\":[1]}}", AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"entries\":{\"a\":{\"content\":\"x\"}}}",
      AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"entries\":{\"a\":{\"type\":7}}}", AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"entries\":{\"a\":{\"type\":\"nope\"}}}",
      AGENTS_SANDBOX_ERROR_UNKNOWN_TYPE },
    { "{\"entries\":{\"a\":{\"type\":\"file\"}}}",
      AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"entries\":{\"a\":{\"type\":\"file\",\"content\":5}}}",
      AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"entries\":{\"a\":{\"type\":\"file\",\"content\":{\"encoding\":"
      "\"hex\",\"data\":\"00\"}}}}",
      AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"entries\":{\"a\":{\"type\":\"file\",\"content\":{\"encoding\":"
      "\"base64\",\"data\":\"!!\"}}}}",
      AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"entries\":{\"a\":{\"type\":\"file\",\"content\":\"x\","
      "\"permissions\":{\"owner\":9}}}}",
      AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"entries\":{\"a\":{\"type\":\"file\",\"content\":\"x\","
      "\"permissions\":\"0755\"}}}",
      AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"entries\":{\"a\":{\"type\":\"file\",\"content\":\"x\","
      "\"ephemeral\":\"yes\"}}}",
      AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"entries\":{\"a\":{\"type\":\"file\",\"content\":\"x\","
      "\"description\":[]}}}",
      AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"entries\":{\"a\":{\"type\":\"file\",\"content\":\"x\","
      "\"group\":\"devs\"}}}",
      AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"entries\":{\"a\":{\"type\":\"dir\",\"children\":[]}}}",
      AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"entries\":{\"a\":{\"type\":\"dir\",\"children\":{\"b\":1}}}}",
      AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"entries\":{\"a\":{\"type\":\"dir\",\"children\":{\"../x\":"
      "{\"type\":\"file\",\"content\":\"\"}}}}}",
      AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH },
    { "{\"entries\":{\"a\":{\"type\":\"dir\",\"children\":{\"/x\":"
      "{\"type\":\"file\",\"content\":\"\"}}}}}",
      AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH },
    { "{\"entries\":{\"a\":{\"type\":\"dir\",\"children\":{\".\":"
      "{\"type\":\"file\",\"content\":\"\"}}}}}",
      AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH },
    { "{\"entries\":{\"a\":{\"type\":\"dir\",\"children\":{\"b\":"
      "{\"type\":\"unknown\"}}}}}",
      AGENTS_SANDBOX_ERROR_UNKNOWN_TYPE },
    { "{\"entries\":{\"a\":{\"type\":\"local_file\"}}}",
      AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"entries\":{\"a\":{\"type\":\"local_dir\",\"src\":null}}}",
      AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"entries\":{\"a\":{\"type\":\"git_repo\"}}}",
      AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"entries\":{\"a\":{\"type\":\"git_repo\",\"repo\":"
      "\"--upload-pack=evil\"}}}",
      AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"entries\":{\"a\":{\"type\":\"git_repo\",\"repo\":\"a/b\","
      "\"ref\":\"-x\"}}}",
      AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"entries\":{\"a\":{\"type\":\"git_repo\",\"repo\":\"../../etc\"}}}",
      AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"entries\":{\"a\":{\"type\":\"git_repo\",\"repo\":\"a/b\","
      "\"subpath\":\"../x\"}}}",
      AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"entries\":{\"a\":{\"type\":\"git_repo\",\"repo\":\"a/b\","
      "\"host\":\"-oProxyCommand=x\"}}}",
      AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"entries\":{\"a\":{\"type\":\"test_mount\",\"read_only\":0}}}",
      AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"environment\":[]}", AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"environment\":{\"A\":1}}", AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"environment\":{\"A=B\":\"x\"}}", AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"environment\":{\"\":\"x\"}}", AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"users\":{}}", AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"users\":[{\"name\":1}]}", AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"users\":[\"alice\"]}", AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"groups\":[{\"name\":\"g\",\"users\":\"x\"}]}",
      AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"extra_path_grants\":[{\"path\":\"rel\"}]}",
      AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"extra_path_grants\":{}}", AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"remote_mount_command_allowlist\":[\"ls\",1]}",
      AGENTS_SANDBOX_ERROR_INVALID_JSON },
    { "{\"remote_mount_command_allowlist\":\"ls\"}",
      AGENTS_SANDBOX_ERROR_INVALID_JSON },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (AgentsManifest) manifest = NULL;
      g_autoptr (GVariant) context = NULL;

      g_test_message ("case %s", cases[i].json);
      manifest = agents_manifest_new_from_data (cases[i].json, -1, &error);
      g_assert_null (manifest);
      g_assert_error (error, AGENTS_SANDBOX_ERROR, cases[i].code);
      g_assert_cmpstr (error->message, !=, "");
      context = agents_sandbox_error_get_context (error);
      g_assert_cmpuint (g_variant_n_children (context), >, 0);
    }
}

static void
test_manifest_hostile_messages (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsManifest) manifest = NULL;

  manifest = agents_manifest_new_from_data (
    "{\"entries\":{\"../../etc/cron.d/x\":{\"type\":\"file\","
    "\"content\":\"x\"}}}",
    -1, &error);
  g_assert_null (manifest);
  assert_escape_error (error, "../../etc/cron.d/x");
  g_clear_error (&error);

  manifest =
    agents_manifest_new_from_data ("{\"users\":[{\"name\":1}]}", -1, &error);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_JSON);
  g_assert_cmpstr (error->message, ==, "JSON member “name” must be a string");
  agents_test_assert_context_str (error, "member", "name");
  agents_test_assert_context_str (error, "reason", "wrong_type");
  g_clear_error (&error);

  manifest =
    agents_manifest_new_from_data ("{\"entries\":{\"a\":7}}", -1, &error);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_JSON);
  agents_test_assert_context_str (error, "member", "entries.a");
  g_clear_error (&error);

  manifest = agents_manifest_new_from_data ("{\"version\":3}", -1, &error);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_JSON);
  agents_test_assert_context_str (error, "reason", "unsupported_version");
}

static void
test_manifest_deep_nesting (void)
{
  GString *json = g_string_new ("{\"entries\":{\"a\":");
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsManifest) manifest = NULL;
  g_autofree char *text = NULL;

  for (guint i = 0; i < 200; i++)
    g_string_append (json, "{\"type\":\"dir\",\"children\":{\"d\":");
  g_string_append (json, "{\"type\":\"file\",\"content\":\"x\"}");
  for (guint i = 0; i < 200; i++)
    g_string_append (json, "}}");
  g_string_append (json, "}}");
  text = g_string_free (json, FALSE);

  manifest = agents_manifest_new_from_data (text, -1, &error);
  g_assert_null (manifest);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_JSON);
  agents_test_assert_context_str (error, "reason", "too_deep");
}

static void
test_unknown_entry_type (void)
{
  static const char *known[] = { "dir", "file", "git_repo", "local_dir",
                                 "local_file" };
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsManifestEntry) entry =
    entry_from_text ("{\"type\":\"s4_mount\"}", &error);
  g_autoptr (GVariant) context = NULL;
  g_autofree const char **names = NULL;

  g_assert_null (entry);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_UNKNOWN_TYPE);
  g_assert_nonnull (strstr (error->message, "s4_mount"));
  context = agents_sandbox_error_get_context (error);
  g_assert_true (g_variant_lookup (context, "known", "^a&s", &names));
  for (guint i = 0; i < G_N_ELEMENTS (known); i++)
    {
      g_test_message ("known %s", known[i]);
      g_assert_nonnull (strstr (error->message, known[i]));
      g_assert_true (g_strv_contains (names, known[i]));
    }
}

/* ---- targets --------------------------------------------------------- */

static void
assert_targets (GPtrArray *targets,
                const char *const *paths,
                AgentsManifestEntry **entries)
{
  guint n = g_strv_length ((char **) paths);

  g_assert_cmpuint (targets->len, ==, n);
  for (guint i = 0; i < n; i++)
    {
      AgentsEntryTarget *target = targets->pdata[i];

      g_assert_cmpstr (target->path, ==, paths[i]);
      g_assert_true (target->entry == entries[i]);
    }
}

static void
test_list_targets_and_mounts (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsManifestEntry) a = agents_file_new_from_text ("a");
  g_autoptr (AgentsManifestEntry) eph = agents_file_new_from_text ("e");
  g_autoptr (AgentsManifestEntry) data = agents_dir_new ();
  g_autoptr (AgentsManifestEntry) deeper = agents_dir_new ();
  g_autoptr (AgentsManifestEntry) m1 = test_mount_new ();
  g_autoptr (AgentsManifestEntry) m2 = test_mount_new ();
  g_autoptr (AgentsManifestEntry) top = test_mount_new ();
  g_autoptr (AgentsManifestEntry) root_dir = agents_dir_new ();
  g_autoptr (GPtrArray) all = NULL;
  g_autoptr (GPtrArray) ephemeral = NULL;
  g_autoptr (GPtrArray) mounts = NULL;
  g_autoptr (AgentsEntryTarget) copy = NULL;

  agents_manifest_entry_set_ephemeral (eph, TRUE);
  agents_dir_set_child (AGENTS_DIR (deeper), "m2", m2);
  agents_dir_set_child (AGENTS_DIR (data), "m1", m1);
  agents_dir_set_child (AGENTS_DIR (data), "x/deeper", deeper);
  agents_mount_set_mount_path (AGENTS_MOUNT (top), "elsewhere");

  agents_manifest_set_entry (manifest, "a.txt", a);
  agents_manifest_set_entry (manifest, "nested/eph.txt", eph);
  agents_manifest_set_entry (manifest, "data", data);
  agents_manifest_set_entry (manifest, "top", top);
  agents_manifest_set_entry (manifest, ".", root_dir);

  all = agents_manifest_list_targets (manifest, FALSE);
  assert_targets (all,
                  (const char *const[]){
                    "/workspace/a.txt", "/workspace/nested/eph.txt",
                    "/workspace/data", "/workspace/top", "/workspace", NULL },
                  (AgentsManifestEntry *[]){ a, eph, data, top, root_dir });

  /* Ephemeral children of a directory that is not ephemeral count too
   * (mounts are ephemeral), as in the reference (APPLY-02). */
  ephemeral = agents_manifest_list_targets (manifest, TRUE);
  /* Nested ephemeral entries too (mounts are ephemeral). */
  assert_targets (ephemeral,
                  (const char *const[]){
                    "/workspace/nested/eph.txt", "/workspace/data/m1",
                    "/workspace/data/x/deeper/m2", "/workspace/top", NULL },
                  (AgentsManifestEntry *[]){ eph, m1, m2, top });

  mounts = agents_manifest_list_mounts (manifest);
  assert_targets (mounts,
                  (const char *const[]){ "/workspace/data/m1",
                                         "/workspace/data/x/deeper/m2",
                                         "/workspace/top", NULL },
                  (AgentsManifestEntry *[]){ m1, m2, top });

  copy = agents_entry_target_copy (mounts->pdata[0]);
  g_assert_cmpstr (copy->path, ==, "/workspace/data/m1");
  g_assert_true (copy->entry == m1);
}

/* ---- materialization ------------------------------------------------- */

static void
test_apply_file (ApplyFixture *fixture, gconstpointer data)
{
  g_autoptr (AgentsManifestEntry) plain = agents_file_new_from_text ("plain");
  g_autoptr (AgentsManifestEntry) secret = agents_file_new_from_text ("hello");
  g_autoptr (AgentsPermissions) mode =
    agents_permissions_new_full (6, 4, 0, FALSE);
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *secret_path = workspace_path (fixture, "dir/sub/hello.txt");
  g_autofree char *plain_path = workspace_path (fixture, "plain.txt");
  g_autofree char *chmod = g_strdup_printf ("chmod 0640 %s", secret_path);
  g_autofree char *plain_chmod = g_strdup_printf ("chmod 0755 %s", plain_path);

  files = apply_entry (fixture, plain, "plain.txt", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (files->len, ==, 1);
  assert_materialized (files, 0, plain_path, "plain");
  assert_workspace_file (fixture, "plain.txt", "plain");
  /* Default permissions are applied too, as in the reference (ENT-30). */
  g_assert_true (commands_contain (fixture->session, plain_chmod));
  g_clear_pointer (&files, g_ptr_array_unref);

  agents_manifest_entry_set_permissions (secret, mode);
  files = apply_entry (fixture, secret, "dir/sub/hello.txt", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (files->len, ==, 1);
  assert_materialized (files, 0, secret_path, "hello");
  assert_workspace_file (fixture, "dir/sub/hello.txt", "hello");
  g_assert_true (commands_contain (fixture->session, chmod));
  g_assert_cmpuint (file_mode (secret_path), ==, 0640);
}

static void
test_apply_file_group (ApplyFixture *fixture, gconstpointer data)
{
  struct group *own = getgrgid (getegid ());
  g_autoptr (AgentsGroup) group = NULL;
  g_autoptr (AgentsGroup) missing =
    agents_group_new ("no-such-group-for-libagents-tests", NULL, 0);
  g_autoptr (AgentsManifestEntry) file = agents_file_new_from_text ("g");
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) context = NULL;
  g_autofree char *path = workspace_path (fixture, "g.txt");
  g_autofree char *chgrp = NULL;
  int exit_code = 0;

  if (own == NULL)
    {
      g_test_skip ("the primary group of this process has no name");
      return;
    }
  group = agents_group_new (own->gr_name, NULL, 0);
  chgrp = g_strdup_printf ("chgrp %s %s", own->gr_name, path);

  agents_manifest_entry_set_group (file, group);
  files = apply_entry (fixture, file, "g.txt", NULL, &error);
  g_assert_no_error (error);
  g_assert_true (commands_contain (fixture->session, chgrp));
  g_clear_pointer (&files, g_ptr_array_unref);

  agents_manifest_entry_set_group (file, missing);
  files = apply_entry (fixture, file, "g.txt", NULL, &error);
  g_assert_null (files);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_EXEC_NONZERO);
  context = agents_sandbox_error_get_context (error);
  g_assert_true (g_variant_lookup (context, "exit_code", "i", &exit_code));
  g_assert_cmpint (exit_code, !=, 0);
}

static void
test_apply_dir (ApplyFixture *fixture, gconstpointer data)
{
  g_autoptr (AgentsManifestEntry) dir = agents_dir_new ();
  g_autoptr (AgentsManifestEntry) sub = agents_dir_new ();
  g_autoptr (AgentsManifestEntry) empty = agents_dir_new ();
  g_autoptr (AgentsManifestEntry) a = agents_file_new_from_text ("A");
  g_autoptr (AgentsManifestEntry) b = agents_file_new_from_text ("B");
  g_autoptr (AgentsManifestEntry) c = agents_file_new_from_text ("C");
  g_autoptr (AgentsPermissions) mode =
    agents_permissions_new_full (7, 5, 0, TRUE);
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *top = workspace_path (fixture, "top");
  g_autofree char *a_path = workspace_path (fixture, "top/a.txt");
  g_autofree char *b_path = workspace_path (fixture, "top/sub/b.txt");
  g_autofree char *c_path = workspace_path (fixture, "top/nested/deep/c.txt");
  g_autofree char *empty_path = workspace_path (fixture, "top/empty");

  agents_manifest_entry_set_permissions (dir, mode);
  agents_dir_set_child (AGENTS_DIR (sub), "b.txt", b);
  agents_dir_set_child (AGENTS_DIR (dir), "a.txt", a);
  agents_dir_set_child (AGENTS_DIR (dir), "sub", sub);
  agents_dir_set_child (AGENTS_DIR (dir), "nested/deep/c.txt", c);
  agents_dir_set_child (AGENTS_DIR (dir), "empty", empty);

  files = apply_entry (fixture, dir, "top", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (files->len, ==, 3);
  assert_materialized (files, 0, a_path, "A");
  assert_materialized (files, 1, b_path, "B");
  assert_materialized (files, 2, c_path, "C");
  assert_workspace_file (fixture, "top/a.txt", "A");
  assert_workspace_file (fixture, "top/sub/b.txt", "B");
  assert_workspace_file (fixture, "top/nested/deep/c.txt", "C");
  g_assert_true (g_file_test (empty_path, G_FILE_TEST_IS_DIR));
  g_assert_cmpuint (file_mode (top), ==, 0750);
}

static void
test_apply_local_file (ApplyFixture *fixture, gconstpointer data)
{
  g_autofree char *src =
    g_build_filename (fixture->base, "data", "in.txt", NULL);
  g_autoptr (AgentsManifestEntry) relative =
    agents_local_file_new ("data/in.txt");
  g_autoptr (AgentsManifestEntry) absolute = agents_local_file_new (src);
  g_autoptr (AgentsManifestEntry) dotted =
    agents_local_file_new ("data/../data/./in.txt");
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *dest = workspace_path (fixture, "copy/in.txt");
  g_autofree char *cwd = g_get_current_dir ();

  agents_test_write_file (src, "local content");

  files = apply_entry (fixture, relative, "copy/in.txt", fixture->base, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (files->len, ==, 1);
  assert_materialized (files, 0, dest, "local content");
  assert_workspace_file (fixture, "copy/in.txt", "local content");
  g_clear_pointer (&files, g_ptr_array_unref);

  files = apply_entry (fixture, absolute, "abs.txt", fixture->base, &error);
  g_assert_no_error (error);
  assert_workspace_file (fixture, "abs.txt", "local content");
  g_clear_pointer (&files, g_ptr_array_unref);

  files = apply_entry (fixture, dotted, "dotted.txt", fixture->base, &error);
  g_assert_no_error (error);
  assert_workspace_file (fixture, "dotted.txt", "local content");
  g_clear_pointer (&files, g_ptr_array_unref);

  /* Without a base directory, the working directory is the base. */
  g_assert_cmpint (g_chdir (fixture->base), ==, 0);
  files = apply_entry (fixture, relative, "cwd.txt", NULL, &error);
  g_assert_cmpint (g_chdir (cwd), ==, 0);
  g_assert_no_error (error);
  assert_workspace_file (fixture, "cwd.txt", "local content");
}

/* The reference's LocalFileReadError / LocalDirReadError, reason
 * outside_base_dir (reference case ENT-16). */
static void
assert_not_allowed (GError *error, int code, const char *src)
{
  const char *prefix = code == AGENTS_SANDBOX_ERROR_LOCAL_DIR_READ
                         ? "failed to read local dir artifact: "
                         : "failed to read local file artifact: ";

  g_assert_error (error, AGENTS_SANDBOX_ERROR, code);
  g_assert_true (g_str_has_prefix (error->message, prefix));
  agents_test_assert_context_str (error, "src", src);
  agents_test_assert_context_str (error, "reason", "outside_base_dir");
}

static void
test_apply_local_file_outside (ApplyFixture *fixture, gconstpointer data)
{
  g_autofree char *outside_file =
    g_build_filename (fixture->outside, "secret.txt", NULL);
  g_autofree char *outside_name = g_path_get_basename (fixture->outside);
  g_autofree char *relative_escape =
    g_strdup_printf ("../%s/secret.txt", outside_name);
  const char *sources[] = { outside_file, relative_escape, "/etc/passwd",
                            "data/../../x" };
  g_autoptr (AgentsSandboxPathGrant) grant =
    agents_sandbox_path_grant_new (fixture->outside, TRUE, NULL);
  g_autoptr (AgentsManifestEntry) granted =
    agents_local_file_new (outside_file);
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GError) error = NULL;

  agents_test_write_file (outside_file, "secret");

  for (guint i = 0; i < G_N_ELEMENTS (sources); i++)
    {
      g_autoptr (AgentsManifestEntry) entry =
        agents_local_file_new (sources[i]);

      g_test_message ("source %s", sources[i]);
      files = apply_entry (fixture, entry, "stolen.txt", fixture->base, &error);
      g_assert_null (files);
      assert_not_allowed (error, AGENTS_SANDBOX_ERROR_LOCAL_FILE_READ,
                          sources[i]);
      g_clear_error (&error);
      assert_workspace_missing (fixture, "stolen.txt");
    }
  g_assert_cmpuint (fixture->session->writes->len, ==, 0);

  /* An extra path grant of the session's manifest allows it. */
  agents_manifest_add_extra_path_grant (fixture->manifest, grant);
  files = apply_entry (fixture, granted, "granted.txt", fixture->base, &error);
  g_assert_no_error (error);
  assert_workspace_file (fixture, "granted.txt", "secret");
}

static void
test_apply_local_file_symlinks (ApplyFixture *fixture, gconstpointer data)
{
  static const struct
  {
    const char *src;
    int code;
    const char *reason;
  } cases[] = {
    { "link_dir/secret.txt", AGENTS_SANDBOX_ERROR_LOCAL_FILE_READ,
      "symlink_not_supported" },
    { "file_link", AGENTS_SANDBOX_ERROR_LOCAL_FILE_READ,
      "symlink_not_supported" },
    { "inner_link", AGENTS_SANDBOX_ERROR_LOCAL_FILE_READ,
      "symlink_not_supported" },
    { "missing.txt", AGENTS_SANDBOX_ERROR_LOCAL_FILE_READ, "not_found" },
    { "missing/x.txt", AGENTS_SANDBOX_ERROR_LOCAL_FILE_READ, "not_found" },
    { "adir", AGENTS_SANDBOX_ERROR_LOCAL_FILE_READ, "not_a_file" },
  };
  g_autofree char *secret =
    g_build_filename (fixture->outside, "secret.txt", NULL);
  g_autofree char *link_dir =
    g_build_filename (fixture->base, "link_dir", NULL);
  g_autofree char *file_link =
    g_build_filename (fixture->base, "file_link", NULL);
  g_autofree char *inner = g_build_filename (fixture->base, "inner.txt", NULL);
  g_autofree char *inner_link =
    g_build_filename (fixture->base, "inner_link", NULL);
  g_autofree char *adir = g_build_filename (fixture->base, "adir", NULL);

  agents_test_write_file (secret, "secret");
  agents_test_write_file (inner, "inner");
  g_assert_cmpint (symlink (fixture->outside, link_dir), ==, 0);
  g_assert_cmpint (symlink (secret, file_link), ==, 0);
  g_assert_cmpint (symlink ("inner.txt", inner_link), ==, 0);
  g_assert_cmpint (g_mkdir (adir, 0755), ==, 0);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (AgentsManifestEntry) entry =
        agents_local_file_new (cases[i].src);
      g_autoptr (GError) error = NULL;
      g_autoptr (GPtrArray) files = NULL;

      g_test_message ("source %s", cases[i].src);
      files = apply_entry (fixture, entry, "out.txt", fixture->base, &error);
      g_assert_null (files);
      g_assert_error (error, AGENTS_SANDBOX_ERROR, cases[i].code);
      agents_test_assert_context_str (error, "src", cases[i].src);
      agents_test_assert_context_str (error, "reason", cases[i].reason);
      assert_workspace_missing (fixture, "out.txt");
    }
  g_assert_cmpuint (fixture->session->writes->len, ==, 0);
}

static void
build_source_tree (ApplyFixture *fixture)
{
  g_autofree char *tree = g_build_filename (fixture->base, "tree", NULL);
  g_autofree char *a = g_build_filename (tree, "a.txt", NULL);
  g_autofree char *b = g_build_filename (tree, "sub", "b.txt", NULL);
  g_autofree char *c = g_build_filename (tree, "sub", "deeper", "c.txt", NULL);
  g_autofree char *empty = g_build_filename (tree, "empty", NULL);
  g_autofree char *secret =
    g_build_filename (fixture->outside, "secret.txt", NULL);
  g_autofree char *dir_link = g_build_filename (tree, "link_out", NULL);
  g_autofree char *file_link =
    g_build_filename (tree, "sub", "file_link", NULL);
  g_autofree char *fifo = g_build_filename (tree, "fifo", NULL);

  agents_test_write_file (a, "A");
  agents_test_write_file (b, "B");
  agents_test_write_file (c, "C");
  agents_test_write_file (secret, "secret");
  g_assert_cmpint (g_mkdir (empty, 0755), ==, 0);
  g_assert_cmpint (symlink (fixture->outside, dir_link), ==, 0);
  g_assert_cmpint (symlink (secret, file_link), ==, 0);
  g_assert_cmpint (mkfifo (fifo, 0644), ==, 0);
}

static void
test_apply_local_dir (ApplyFixture *fixture, gconstpointer data)
{
  g_autoptr (AgentsManifestEntry) entry = agents_local_dir_new ("tree");
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *a = workspace_path (fixture, "copy/a.txt");
  g_autofree char *b = workspace_path (fixture, "copy/sub/b.txt");
  g_autofree char *c = workspace_path (fixture, "copy/sub/deeper/c.txt");
  g_autofree char *empty = workspace_path (fixture, "copy/empty");

  g_autofree char *tree = g_build_filename (fixture->base, "tree", NULL);
  g_autofree char *dir_link = g_build_filename (tree, "link_out", NULL);
  g_autofree char *file_link =
    g_build_filename (tree, "sub", "file_link", NULL);

  build_source_tree (fixture);

  /* A link anywhere in the tree refuses it whole, before any write, as
   * in the reference (ENT-20). */
  files = apply_entry (fixture, entry, "copy", fixture->base, &error);
  g_assert_null (files);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_LOCAL_DIR_READ);
  agents_test_assert_context_str (error, "reason", "symlink_not_supported");
  g_assert_cmpuint (fixture->session->writes->len, ==, 0);
  g_clear_error (&error);
  g_assert_no_errno (g_unlink (dir_link));
  g_assert_no_errno (g_unlink (file_link));

  files = apply_entry (fixture, entry, "copy", fixture->base, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (files->len, ==, 3);
  assert_materialized (files, 0, a, "A");
  assert_materialized (files, 1, b, "B");
  assert_materialized (files, 2, c, "C");
  assert_workspace_file (fixture, "copy/a.txt", "A");
  assert_workspace_file (fixture, "copy/sub/b.txt", "B");
  assert_workspace_file (fixture, "copy/sub/deeper/c.txt", "C");
  g_assert_true (g_file_test (empty, G_FILE_TEST_IS_DIR));

  /* Nothing but directories and regular files is copied. */
  assert_workspace_missing (fixture, "copy/link_out");
  assert_workspace_missing (fixture, "copy/link_out/secret.txt");
  assert_workspace_missing (fixture, "copy/sub/file_link");
  assert_workspace_missing (fixture, "copy/fifo");
  g_assert_cmpuint (fixture->session->writes->len, ==, 3);
}

static void
test_apply_local_dir_refused (ApplyFixture *fixture, gconstpointer data)
{
  g_autofree char *tree_link =
    g_build_filename (fixture->base, "tree_link", NULL);
  g_autofree char *tree = g_build_filename (fixture->base, "tree", NULL);
  g_autofree char *file =
    g_build_filename (fixture->base, "tree", "a.txt", NULL);
  g_autoptr (AgentsManifestEntry) outside =
    agents_local_dir_new (fixture->outside);
  g_autoptr (AgentsManifestEntry) escape = agents_local_dir_new ("..");
  g_autoptr (AgentsManifestEntry) linked = agents_local_dir_new ("tree_link");
  g_autoptr (AgentsManifestEntry) through =
    agents_local_dir_new ("tree_link/sub");
  g_autoptr (AgentsManifestEntry) missing = agents_local_dir_new ("missing");
  g_autoptr (AgentsManifestEntry) not_dir = agents_local_dir_new (file);
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GError) error = NULL;

  build_source_tree (fixture);
  g_assert_cmpint (symlink (tree, tree_link), ==, 0);

  files = apply_entry (fixture, outside, "copy", fixture->base, &error);
  g_assert_null (files);
  assert_not_allowed (error, AGENTS_SANDBOX_ERROR_LOCAL_DIR_READ,
                      fixture->outside);
  g_clear_error (&error);

  files = apply_entry (fixture, escape, "copy", fixture->base, &error);
  g_assert_null (files);
  assert_not_allowed (error, AGENTS_SANDBOX_ERROR_LOCAL_DIR_READ, "..");
  g_clear_error (&error);

  files = apply_entry (fixture, linked, "copy", fixture->base, &error);
  g_assert_null (files);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_LOCAL_DIR_READ);
  agents_test_assert_context_str (error, "reason", "symlink_not_supported");
  g_clear_error (&error);

  files = apply_entry (fixture, through, "copy", fixture->base, &error);
  g_assert_null (files);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_LOCAL_DIR_READ);
  agents_test_assert_context_str (error, "reason", "symlink_not_supported");
  g_clear_error (&error);

  files = apply_entry (fixture, missing, "copy", fixture->base, &error);
  g_assert_null (files);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_LOCAL_DIR_READ);
  agents_test_assert_context_str (error, "reason", "not_found");
  g_clear_error (&error);

  files = apply_entry (fixture, not_dir, "copy", fixture->base, &error);
  g_assert_null (files);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_LOCAL_DIR_READ);
  g_clear_error (&error);

  assert_workspace_missing (fixture, "copy");
  g_assert_cmpuint (fixture->session->writes->len, ==, 0);
}

static void
test_apply_local_dir_concurrency (ApplyFixture *fixture, gconstpointer data)
{
  g_autoptr (AgentsManifestEntry) entry = agents_local_dir_new ("many");
  g_autoptr (AgentsConcurrencyLimits) limits =
    agents_concurrency_limits_new_full (4, 3);
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GError) error = NULL;

  for (guint i = 0; i < 20; i++)
    {
      g_autofree char *name = g_strdup_printf ("f%02u.txt", i);
      g_autofree char *path =
        g_build_filename (fixture->base, "many", name, NULL);

      agents_test_write_file (path, name);
    }
  agents_sandbox_session_set_concurrency_limits (
    AGENTS_SANDBOX_SESSION (fixture->session), limits);

  files = apply_entry (fixture, entry, "many", fixture->base, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (files->len, ==, 20);
  for (guint i = 0; i < 20; i++)
    {
      g_autofree char *name = g_strdup_printf ("f%02u.txt", i);
      g_autofree char *rel = g_build_filename ("many", name, NULL);
      g_autofree char *dest = workspace_path (fixture, rel);

      assert_materialized (files, i, dest, name);
      assert_workspace_file (fixture, rel, name);
    }
  g_assert_cmpuint (fixture->session->max_writes_in_flight, >=, 1);
  g_assert_cmpuint (fixture->session->max_writes_in_flight, <=, 3);
}

/* ---- streaming of large local sources -------------------------------- */

#define LARGE_FILE_SIZE (64 * 1024 * 1024)
#define MAX_HWM_GROWTH_KB (16 * 1024)

/* Writes @size pseudo-random bytes to @path in small chunks, so that the
 * test itself never holds the content; returns its SHA-256. */
static char *
write_large_file (const char *path, gsize size)
{
  g_autoptr (GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);
  g_autoptr (GRand) rand = g_rand_new_with_seed (0x5eed);
  g_autofree char *dir = g_path_get_dirname (path);
  guint32 chunk[16384];
  FILE *out;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  out = g_fopen (path, "wb");
  g_assert_nonnull (out);
  for (gsize written = 0; written < size; written += sizeof chunk)
    {
      gsize n = MIN (sizeof chunk, size - written);

      for (guint i = 0; i < G_N_ELEMENTS (chunk); i++)
        chunk[i] = g_rand_int (rand);
      g_assert_cmpuint (fwrite (chunk, 1, n, out), ==, n);
      g_checksum_update (checksum, (const guchar *) chunk, n);
    }
  g_assert_cmpint (fclose (out), ==, 0);
  return g_strdup (g_checksum_get_string (checksum));
}

/* The SHA-256 of a file, read in small chunks. */
static char *
file_sha256 (const char *path)
{
  g_autoptr (GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);
  guchar chunk[65536];
  FILE *in = g_fopen (path, "rb");
  gsize n;

  g_assert_nonnull (in);
  while ((n = fread (chunk, 1, sizeof chunk, in)) > 0)
    g_checksum_update (checksum, chunk, n);
  g_assert_false (ferror (in));
  fclose (in);
  return g_strdup (g_checksum_get_string (checksum));
}

/* The peak resident set size of the process, in KiB. */
static guint64
read_vm_hwm_kb (void)
{
  g_autofree char *status = NULL;
  g_auto (GStrv) lines = NULL;

  g_assert_true (
    g_file_get_contents ("/proc/self/status", &status, NULL, NULL));
  lines = g_strsplit (status, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], "VmHWM:"))
      return g_ascii_strtoull (lines[i] + strlen ("VmHWM:"), NULL, 10);
  g_assert_not_reached ();
}

/* Starts a peak measurement: the peak is reset to the current resident
 * size where the kernel allows it, so that an earlier peak cannot hide
 * growth. Returns the starting peak. */
static guint64
start_hwm_measurement (void)
{
  /* Not g_file_set_contents (): it would replace the file, not write it. */
  int fd = g_open ("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC, 0);

  if (fd < 0 || write (fd, "5", 1) != 1)
    g_test_message ("cannot reset VmHWM; measuring from the current peak");
  if (fd >= 0)
    close (fd);
  return read_vm_hwm_kb ();
}

static void
assert_hwm_growth_below (guint64 before_kb, guint64 limit_kb)
{
  guint64 after_kb = read_vm_hwm_kb ();

  g_test_message ("VmHWM grew from %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT
                  " KiB",
                  before_kb, after_kb);
  g_assert_cmpuint (after_kb, <, before_kb + limit_kb);
}

static void
assert_large_copy (ApplyFixture *fixture,
                   AgentsMaterializedFile *file,
                   const char *rel,
                   const char *source_sha)
{
  g_autofree char *path = workspace_path (fixture, rel);
  g_autofree char *copy_sha = NULL;
  struct stat st;

  g_assert_cmpstr (file->path, ==, path);
  g_assert_cmpint (g_lstat (path, &st), ==, 0);
  g_assert_true (S_ISREG (st.st_mode));
  g_assert_cmpint (st.st_size, ==, LARGE_FILE_SIZE);
  copy_sha = file_sha256 (path);
  g_assert_cmpstr (copy_sha, ==, source_sha);
  g_assert_cmpstr (file->sha256, ==, source_sha);
}

static void
test_apply_local_file_large (ApplyFixture *fixture, gconstpointer data)
{
  g_autofree char *src = g_build_filename (fixture->base, "big.bin", NULL);
  g_autoptr (AgentsManifestEntry) entry = agents_local_file_new ("big.bin");
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *source_sha = write_large_file (src, LARGE_FILE_SIZE);
  guint64 hwm_before;

  hwm_before = start_hwm_measurement ();
  files = apply_entry (fixture, entry, "copy/big.bin", fixture->base, &error);
  assert_hwm_growth_below (hwm_before, MAX_HWM_GROWTH_KB);

  g_assert_no_error (error);
  g_assert_cmpuint (files->len, ==, 1);
  assert_large_copy (fixture, files->pdata[0], "copy/big.bin", source_sha);
  g_assert_cmpuint (fixture->session->writes->len, ==, 1);
}

static void
test_apply_local_dir_large (ApplyFixture *fixture, gconstpointer data)
{
  g_autofree char *big =
    g_build_filename (fixture->base, "bigtree", "sub", "big.bin", NULL);
  g_autofree char *small =
    g_build_filename (fixture->base, "bigtree", "small.txt", NULL);
  g_autofree char *small_dest = workspace_path (fixture, "copy/small.txt");
  g_autoptr (AgentsManifestEntry) entry = agents_local_dir_new ("bigtree");
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *source_sha = write_large_file (big, LARGE_FILE_SIZE);
  guint64 hwm_before;

  agents_test_write_file (small, "small");

  hwm_before = start_hwm_measurement ();
  files = apply_entry (fixture, entry, "copy", fixture->base, &error);
  assert_hwm_growth_below (hwm_before, MAX_HWM_GROWTH_KB);

  g_assert_no_error (error);
  g_assert_cmpuint (files->len, ==, 2);
  assert_materialized (files, 0, small_dest, "small");
  assert_large_copy (fixture, files->pdata[1], "copy/sub/big.bin", source_sha);
  assert_workspace_file (fixture, "copy/small.txt", "small");
  g_assert_cmpuint (fixture->session->writes->len, ==, 2);
}

/* Only regular files are streamed: a device or a fifo would never end
 * (or block), and is refused before anything is written. */
static void
test_apply_local_file_not_regular (ApplyFixture *fixture, gconstpointer data)
{
  g_autofree char *fifo = g_build_filename (fixture->base, "fifo", NULL);
  g_autoptr (AgentsSandboxPathGrant) grant =
    agents_sandbox_path_grant_new ("/dev", TRUE, NULL);
  const char *sources[] = { "fifo", "/dev/zero" };

  g_assert_cmpint (mkfifo (fifo, 0644), ==, 0);
  agents_manifest_add_extra_path_grant (fixture->manifest, grant);

  for (guint i = 0; i < G_N_ELEMENTS (sources); i++)
    {
      g_autoptr (AgentsManifestEntry) entry =
        agents_local_file_new (sources[i]);
      g_autoptr (GPtrArray) files = NULL;
      g_autoptr (GError) error = NULL;

      g_test_message ("source %s", sources[i]);
      files = apply_entry (fixture, entry, "out.bin", fixture->base, &error);
      g_assert_null (files);
      g_assert_error (error, AGENTS_SANDBOX_ERROR,
                      AGENTS_SANDBOX_ERROR_LOCAL_FILE_READ);
      agents_test_assert_context_str (error, "src", sources[i]);
      agents_test_assert_context_str (error, "reason", "not_a_file");
      assert_workspace_missing (fixture, "out.bin");
    }
  g_assert_cmpuint (fixture->session->writes->len, ==, 0);
}

/* A regular file that fails when it is read: the failure is the
 * source's, not the backend's write error. */
static void
test_apply_local_file_read_error (ApplyFixture *fixture, gconstpointer data)
{
  g_autofree char *proc_dir = g_strdup_printf ("/proc/%d", (int) getpid ());
  g_autofree char *mem = g_build_filename (proc_dir, "mem", NULL);
  g_autoptr (AgentsSandboxPathGrant) grant =
    agents_sandbox_path_grant_new (proc_dir, TRUE, NULL);
  g_autoptr (AgentsManifestEntry) entry = agents_local_file_new (mem);
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GError) error = NULL;
  int fd = g_open (mem, O_RDONLY | O_CLOEXEC, 0);

  /* Reading a process's memory at offset 0 fails with EIO. */
  if (fd < 0)
    {
      g_test_skip ("cannot open the process's memory file");
      return;
    }
  close (fd);
  agents_manifest_add_extra_path_grant (fixture->manifest, grant);

  files = apply_entry (fixture, entry, "mem.bin", fixture->base, &error);
  g_assert_null (files);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_LOCAL_FILE_READ);
  agents_test_assert_context_str (error, "src", mem);
  agents_test_assert_context_str (error, "reason", "unreadable");
}

static gboolean
run_git (const char *cwd, const char **args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *err = NULL;
  int status = 0;

  g_ptr_array_add (argv, "git");
  g_ptr_array_add (argv, "-c");
  g_ptr_array_add (argv, "user.name=libagents tests");
  g_ptr_array_add (argv, "-c");
  g_ptr_array_add (argv, "user.email=tests@example.com");
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);

  g_spawn_sync (cwd, (char **) argv->pdata, NULL,
                G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                NULL, &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_test_message ("git failed: %s", err);
  return g_spawn_check_wait_status (status, NULL);
}

/* Creates HOST/owner/name as a repository with one commit on main. */
static char *
make_git_host (ApplyFixture *fixture)
{
  g_autofree char *host = g_build_filename (fixture->base, "githost", NULL);
  g_autofree char *repo = g_build_filename (host, "owner", "name", NULL);
  g_autofree char *readme = g_build_filename (repo, "README.md", NULL);
  g_autofree char *lib = g_build_filename (repo, "src", "lib.c", NULL);
  g_autofree char *link = g_build_filename (repo, "src", "passwd", NULL);

  agents_test_write_file (readme, "# readme\n");
  agents_test_write_file (lib, "int x;\n");
  g_assert_cmpint (symlink ("/etc/passwd", link), ==, 0);
  g_assert_true (run_git (repo, (const char *[]){ "init", "-q", NULL }));
  g_assert_true (
    run_git (repo, (const char *[]){ "checkout", "-q", "-b", "main", NULL }));
  g_assert_true (run_git (repo, (const char *[]){ "add", ".", NULL }));
  g_assert_true (
    run_git (repo, (const char *[]){ "commit", "-q", "-m", "init", NULL }));
  return g_steal_pointer (&host);
}

static guint
count_clone_dirs (void)
{
  GDir *dir = g_dir_open (g_get_tmp_dir (), 0, NULL);
  const char *name;
  guint count = 0;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_prefix (name, "agents-git-"))
      count++;
  if (dir != NULL)
    g_dir_close (dir);
  return count;
}

static void
test_apply_git_repo (ApplyFixture *fixture, gconstpointer data)
{
  g_autofree char *git = g_find_program_in_path ("git");
  g_autofree char *host = NULL;
  g_autofree char *file_url_host = NULL;
  g_autoptr (AgentsManifestEntry) repo = NULL;
  g_autoptr (AgentsManifestEntry) sub = NULL;
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *readme = workspace_path (fixture, "repo/README.md");
  g_autofree char *lib = workspace_path (fixture, "repo/src/lib.c");
  guint clones_before = count_clone_dirs ();

  if (git == NULL)
    {
      g_test_skip ("git is not installed");
      return;
    }
  host = make_git_host (fixture);

  repo = agents_git_repo_new (host, "owner/name", "main");
  files = apply_entry (fixture, repo, "repo", fixture->base, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (files->len, ==, 2);
  assert_materialized (files, 0, readme, "# readme\n");
  assert_materialized (files, 1, lib, "int x;\n");
  assert_workspace_file (fixture, "repo/README.md", "# readme\n");
  assert_workspace_file (fixture, "repo/src/lib.c", "int x;\n");
  assert_workspace_missing (fixture, "repo/.git");
  assert_workspace_missing (fixture, "repo/src/passwd");
  g_clear_pointer (&files, g_ptr_array_unref);

  /* A subpath, and the host given as a file:// URL. */
  file_url_host = g_strconcat ("file://", host, NULL);
  sub = agents_git_repo_new (file_url_host, "owner/name", NULL);
  agents_git_repo_set_subpath (AGENTS_GIT_REPO (sub), "src");
  files = apply_entry (fixture, sub, "only-src", fixture->base, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (files->len, ==, 1);
  assert_workspace_file (fixture, "only-src/lib.c", "int x;\n");
  assert_workspace_missing (fixture, "only-src/README.md");

  g_assert_cmpuint (count_clone_dirs (), ==, clones_before);
}

static void
test_apply_git_repo_failures (ApplyFixture *fixture, gconstpointer data)
{
  g_autofree char *git = g_find_program_in_path ("git");
  g_autofree char *host = NULL;
  g_autofree char *url = NULL;
  g_autoptr (AgentsManifestEntry) bad_ref = NULL;
  g_autoptr (AgentsManifestEntry) bad_repo = NULL;
  g_autoptr (AgentsManifestEntry) bad_sub = NULL;
  g_autoptr (AgentsManifestEntry) outside = NULL;
  g_autofree char *outside_src = NULL;
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) context = NULL;
  const char *stderr_text = NULL;
  guint clones_before = count_clone_dirs ();

  if (git == NULL)
    {
      g_test_skip ("git is not installed");
      return;
    }
  host = make_git_host (fixture);

  bad_ref = agents_git_repo_new (host, "owner/name", "no-such-branch");
  url = agents_git_repo_dup_clone_url (AGENTS_GIT_REPO (bad_ref));
  files = apply_entry (fixture, bad_ref, "repo", fixture->base, &error);
  g_assert_null (files);
  g_assert_error (error, AGENTS_SANDBOX_ERROR, AGENTS_SANDBOX_ERROR_GIT_CLONE);
  agents_test_assert_context_str (error, "url", url);
  agents_test_assert_context_str (error, "ref", "no-such-branch");
  context = agents_sandbox_error_get_context (error);
  g_assert_true (g_variant_lookup (context, "stderr", "&s", &stderr_text));
  g_assert_cmpstr (stderr_text, !=, "");
  g_clear_error (&error);

  bad_repo = agents_git_repo_new (host, "owner/missing", "main");
  files = apply_entry (fixture, bad_repo, "repo", fixture->base, &error);
  g_assert_null (files);
  g_assert_error (error, AGENTS_SANDBOX_ERROR, AGENTS_SANDBOX_ERROR_GIT_CLONE);
  g_clear_error (&error);

  bad_sub = agents_git_repo_new (host, "owner/name", "main");
  agents_git_repo_set_subpath (AGENTS_GIT_REPO (bad_sub), "src/passwd");
  files = apply_entry (fixture, bad_sub, "repo", fixture->base, &error);
  g_assert_null (files);
  g_assert_error (error, AGENTS_SANDBOX_ERROR, AGENTS_SANDBOX_ERROR_GIT_CLONE);
  agents_test_assert_context_str (error, "reason", "symlink_not_supported");
  g_clear_error (&error);

  /* A local repository is confined like any local source. */
  outside = agents_git_repo_new (fixture->outside, "owner/name", "main");
  outside_src = g_build_filename (fixture->outside, "owner/name", NULL);
  files = apply_entry (fixture, outside, "repo", fixture->base, &error);
  g_assert_null (files);
  assert_not_allowed (error, AGENTS_SANDBOX_ERROR_LOCAL_DIR_READ, outside_src);

  assert_workspace_missing (fixture, "repo");
  g_assert_cmpuint (count_clone_dirs (), ==, clones_before);
}

static gboolean
cancel_soon (gpointer data)
{
  g_cancellable_cancel (data);
  return G_SOURCE_REMOVE;
}

/* Applies @entry and cancels after @delay_ms; the operation must end with
 * a CANCELLED error. */
static void
apply_and_cancel (ApplyFixture *fixture,
                  AgentsManifestEntry *entry,
                  guint delay_ms)
{
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *dest = workspace_path (fixture, "cancelled");

  if (delay_ms == 0)
    g_cancellable_cancel (cancellable);
  else
    g_timeout_add (delay_ms, cancel_soon, cancellable);
  agents_manifest_entry_apply_async (
    entry, AGENTS_SANDBOX_SESSION (fixture->session), dest, fixture->base,
    cancellable, agents_test_async_cb, &result);
  agents_test_wait_result (&result);
  files = agents_manifest_entry_apply_finish (entry, result, &error);
  g_assert_null (files);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

static void
test_apply_cancelled (ApplyFixture *fixture, gconstpointer data)
{
  g_autofree char *git = g_find_program_in_path ("git");
  g_autoptr (AgentsManifestEntry) tree = agents_local_dir_new ("tree");
  g_autoptr (AgentsManifestEntry) file = agents_local_file_new ("tree/a.txt");
  g_autoptr (AgentsManifestEntry) repo = NULL;
  g_autofree char *host = NULL;
  guint clones_before = count_clone_dirs ();

  build_source_tree (fixture);
  apply_and_cancel (fixture, tree, 0);
  apply_and_cancel (fixture, file, 0);

  if (git == NULL)
    return;
  host = make_git_host (fixture);
  repo = agents_git_repo_new (host, "owner/name", "main");
  apply_and_cancel (fixture, repo, 0);
  apply_and_cancel (fixture, repo, 1);
  g_assert_cmpuint (count_clone_dirs (), ==, clones_before);
}

static void
test_apply_mount (ApplyFixture *fixture, gconstpointer data)
{
  g_autoptr (AgentsManifestEntry) mount = test_mount_new ();
  g_autoptr (AgentsManifestEntry) bare =
    g_object_new (TEST_TYPE_BARE_MOUNT, NULL);
  g_autoptr (AgentsManifestEntry) dir = agents_dir_new ();
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *dest = workspace_path (fixture, "dir/mnt");
  g_autoptr (GAsyncResult) result = NULL;

  g_ptr_array_set_size (mounted_paths, 0);
  agents_dir_set_child (AGENTS_DIR (dir), "mnt", mount);
  files = apply_entry (fixture, dir, "dir", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (files->len, ==, 0);
  g_assert_cmpuint (mounted_paths->len, ==, 1);
  g_assert_cmpstr (mounted_paths->pdata[0], ==, dest);
  g_clear_pointer (&files, g_ptr_array_unref);

  files = apply_entry (fixture, bare, "bare", NULL, &error);
  g_assert_null (files);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_NOT_SUPPORTED);
  g_clear_error (&error);

  agents_mount_unmount_async (AGENTS_MOUNT (bare),
                              AGENTS_SANDBOX_SESSION (fixture->session), dest,
                              NULL, NULL, agents_test_async_cb, &result);
  agents_test_wait_result (&result);
  g_assert_false (
    agents_mount_unmount_finish (AGENTS_MOUNT (bare), result, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_NOT_SUPPORTED);
}

static void
add_apply_test (const char *name, void (*func) (ApplyFixture *, gconstpointer))
{
  g_autofree char *path = g_strconcat ("/sandbox/manifest/apply/", name, NULL);

  g_test_add (path, ApplyFixture, NULL, apply_fixture_setup, func,
              apply_fixture_teardown);
}

/* A mount path is checked with the manifest's root when the targets are
 * computed, as in the reference: an absolute one outside the root is
 * kept, one that climbs out of the root is refused there. */
static void
test_mount_path_checked_with_root (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsManifest) outside = agents_manifest_new_from_data (
    "{\"entries\":{\"a\":{\"type\":\"test_mount\",\"mount_path\":\"/abs\"}}}",
    -1, &error);
  g_autoptr (AgentsManifest) escaping = NULL;
  g_autoptr (GPtrArray) targets = NULL;
  g_autoptr (GPtrArray) refused = NULL;
  g_auto (GStrv) paths = NULL;

  g_assert_no_error (error);
  targets = agents_manifest_list_mount_targets (outside, FALSE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (targets->len, ==, 1);
  g_assert_cmpstr (((AgentsEntryTarget *) targets->pdata[0])->path, ==, "/abs");
  paths = agents_manifest_get_ephemeral_persistence_paths (outside, &error);
  g_assert_no_error (error);
  g_assert_cmpstrv (paths, ((const char *const[]){ "a", NULL }));

  escaping = agents_manifest_new_from_data (
    "{\"entries\":{\"a\":{\"type\":\"test_mount\",\"mount_path\":"
    "\"x/../../y\"}}}",
    -1, &error);
  g_assert_no_error (error);
  refused = agents_manifest_list_mount_targets (escaping, FALSE, &error);
  g_assert_null (refused);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH);
  g_assert_cmpstr (error->message, ==,
                   "manifest path must not escape root: /workspace/x/../../y");
}

int
main (int argc, char *argv[])
{
  g_autoptr (GError) error = NULL;
  const char *tmp_base = g_getenv ("TMPDIR");
  g_autofree char *tmp = NULL;
  int result;

  /* Not g_get_tmp_dir (): it would remember the value before TMPDIR is set. */
  if (tmp_base == NULL || *tmp_base == '\0')
    tmp_base = "/tmp";
  tmp = g_build_filename (tmp_base, "agents-test-manifest-XXXXXX", NULL);

  /* A private temporary directory, so that leftover clones can be seen. */
  g_assert_nonnull (g_mkdtemp (tmp));
  g_setenv ("TMPDIR", tmp, TRUE);

  g_test_init (&argc, &argv, NULL);
  mounted_paths = g_ptr_array_new_with_free_func (g_free);
  agents_registry_register_entry_type ("test_mount", TEST_TYPE_MOUNT, &error);
  g_assert_no_error (error);

  g_test_add_func ("/sandbox/manifest/defaults", test_manifest_defaults);
  g_test_add_func ("/sandbox/manifest/entry-defaults", test_entry_defaults);
  g_test_add_func ("/sandbox/manifest/git-clone-url", test_git_clone_url);
  g_test_add_func ("/sandbox/manifest/json/serialize-exact",
                   test_manifest_serialize_exact);
  g_test_add_func ("/sandbox/manifest/json/round-trip",
                   test_manifest_round_trip);
  g_test_add_func ("/sandbox/manifest/json/minimal",
                   test_manifest_minimal_json);
  g_test_add_func ("/sandbox/manifest/json/entry-round-trip",
                   test_entry_json_round_trip);
  g_test_add_func ("/sandbox/manifest/json/hostile",
                   test_manifest_hostile_json);
  g_test_add_func ("/sandbox/manifest/json/hostile-messages",
                   test_manifest_hostile_messages);
  g_test_add_func ("/sandbox/manifest/json/deep-nesting",
                   test_manifest_deep_nesting);
  g_test_add_func ("/sandbox/manifest/json/unknown-entry-type",
                   test_unknown_entry_type);
  g_test_add_func ("/sandbox/manifest/entry-equal", test_entry_equal);
  g_test_add_func ("/sandbox/manifest/copy/deep", test_manifest_deep_copy);
  g_test_add_func ("/sandbox/manifest/copy/entries", test_entry_copy);
  g_test_add_func ("/sandbox/manifest/equality", test_manifest_equality);
  g_test_add_func ("/sandbox/manifest/paths/validate-relative",
                   test_validate_relative_path);
  g_test_add_func ("/sandbox/manifest/paths/resolve", test_resolve_path);
  g_test_add_func ("/sandbox/manifest/paths/resolve-other-roots",
                   test_resolve_path_other_roots);
  g_test_add_func ("/sandbox/manifest/targets", test_list_targets_and_mounts);
  g_test_add_func ("/sandbox/manifest/mount-path-checked-with-root",
                   test_mount_path_checked_with_root);

  add_apply_test ("file", test_apply_file);
  add_apply_test ("file-group", test_apply_file_group);
  add_apply_test ("dir", test_apply_dir);
  add_apply_test ("local-file", test_apply_local_file);
  add_apply_test ("local-file-outside", test_apply_local_file_outside);
  add_apply_test ("local-file-symlinks", test_apply_local_file_symlinks);
  add_apply_test ("local-dir", test_apply_local_dir);
  add_apply_test ("local-dir-refused", test_apply_local_dir_refused);
  add_apply_test ("local-dir-concurrency", test_apply_local_dir_concurrency);
  add_apply_test ("local-file-large", test_apply_local_file_large);
  add_apply_test ("local-dir-large", test_apply_local_dir_large);
  add_apply_test ("local-file-not-regular", test_apply_local_file_not_regular);
  add_apply_test ("local-file-read-error", test_apply_local_file_read_error);
  add_apply_test ("git-repo", test_apply_git_repo);
  add_apply_test ("git-repo-failures", test_apply_git_repo_failures);
  add_apply_test ("mount", test_apply_mount);
  add_apply_test ("cancelled", test_apply_cancelled);

  result = g_test_run ();

  g_ptr_array_unref (mounted_paths);
  agents_test_rm_rf (tmp);
  return result;
}
