/* test-reference-manifest.c - reference cases MAN-*: manifest validation,
 * mount targets, describe, JSON (../shared/spec/reference-cases.md)
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "agents-sandbox-error-private.h"
#include "test-utils.h"

static AgentsManifest *
parse_manifest (const char *text, GError **error)
{
  return agents_manifest_new_from_data (text, -1, error);
}

/* A mount entry that mounts nothing: the reference tests' GCSMount. */
#define TEST_TYPE_MOUNT (test_mount_get_type ())
G_DECLARE_FINAL_TYPE (TestMount, test_mount, TEST, MOUNT, AgentsMount)

struct _TestMount
{
  AgentsMount parent_instance;
};

G_DEFINE_FINAL_TYPE (TestMount, test_mount, AGENTS_TYPE_MOUNT)

static void
test_mount_class_init (TestMountClass *klass)
{
  AGENTS_MANIFEST_ENTRY_CLASS (klass)->type_name = "reference_test_mount";
}

static void
test_mount_init (TestMount *self)
{
}

static AgentsManifestEntry *
mount_at (const char *mount_path)
{
  AgentsManifestEntry *mount = g_object_new (TEST_TYPE_MOUNT, NULL);

  agents_mount_set_mount_path (AGENTS_MOUNT (mount), mount_path);
  return mount;
}

/* MAN-02 */
static void
test_rejects_nested_absolute_child_paths (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsManifest) manifest = parse_manifest (
    "{\"entries\": {\"safe\": {\"type\": \"dir\", \"children\": "
    "{\"/tmp/outside.txt\": {\"type\": \"file\", \"content\": \"x\"}}}}}",
    &error);

  g_assert_null (manifest);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (
    error->message, "manifest path must be relative: /tmp/outside.txt"));
}

/* MAN-04 */
static void
test_ephemeral_entry_paths_include_nested_children (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsManifestEntry) dir = agents_dir_new ();
  g_autoptr (AgentsManifestEntry) keep = agents_file_new_from_text ("keep");
  g_autoptr (AgentsManifestEntry) tmp = agents_file_new_from_text ("tmp");
  g_autoptr (GPtrArray) targets = NULL;

  agents_manifest_entry_set_ephemeral (tmp, TRUE);
  agents_dir_set_child (AGENTS_DIR (dir), "keep.txt", keep);
  agents_dir_set_child (AGENTS_DIR (dir), "tmp.txt", tmp);
  agents_manifest_set_entry (manifest, "dir", dir);

  targets = agents_manifest_list_targets (manifest, TRUE);
  g_assert_cmpuint (targets->len, ==, 1);
  g_assert_cmpstr (((AgentsEntryTarget *) targets->pdata[0])->path, ==,
                   "/workspace/dir/tmp.txt");
}

/* MAN-06 */
static void
test_ephemeral_mount_targets_sort_by_resolved_depth (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsManifestEntry) parent = mount_at ("repo");
  g_autoptr (AgentsManifestEntry) child = mount_at ("repo/sub");
  g_autoptr (AgentsManifestEntry) nested = agents_dir_new ();
  g_autoptr (GPtrArray) targets = NULL;
  g_autoptr (GError) error = NULL;
  AgentsEntryTarget *first, *second;

  agents_dir_set_child (AGENTS_DIR (nested), "child", child);
  agents_manifest_set_root (manifest, "/workspace");
  agents_manifest_set_entry (manifest, "parent", parent);
  agents_manifest_set_entry (manifest, "nested", nested);

  targets = agents_manifest_list_mount_targets (manifest, TRUE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (targets->len, ==, 2);
  first = targets->pdata[0];
  second = targets->pdata[1];
  g_assert_true (first->entry == child);
  g_assert_cmpstr (first->path, ==, "/workspace/repo/sub");
  g_assert_true (second->entry == parent);
  g_assert_cmpstr (second->path, ==, "/workspace/repo");
}

/* MAN-08 */
static void
test_ephemeral_mount_targets_reject_bad_mount_paths (void)
{
  static const char *const keys[] = { "rel", "reason", NULL };
  const char *mount_paths[] = { "/workspace/../../tmp", "C:\\tmp\\mount" };
  const char *messages[] = {
    "manifest path must not escape root: /workspace/../../tmp",
    "manifest path must be relative: C:/tmp/mount",
  };

  for (guint i = 0; i < G_N_ELEMENTS (mount_paths); i++)
    {
      g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
      g_autoptr (AgentsManifestEntry) mount = mount_at (mount_paths[i]);
      g_autoptr (GPtrArray) targets = NULL;
      g_auto (GStrv) paths = NULL;
      g_autoptr (GError) error = NULL;
      g_autoptr (GError) paths_error = NULL;

      g_test_message ("mount_path “%s”", mount_paths[i]);
      agents_manifest_set_root (manifest, "/workspace");
      agents_manifest_set_entry (manifest, "logical", mount);

      targets = agents_manifest_list_mount_targets (manifest, TRUE, &error);
      g_assert_null (targets);
      g_assert_error (error, AGENTS_SANDBOX_ERROR,
                      AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH);
      g_assert_cmpstr (error->message, ==, messages[i]);

      paths = agents_manifest_get_ephemeral_persistence_paths (manifest,
                                                               &paths_error);
      g_assert_null (paths);
      g_assert_error (paths_error, AGENTS_SANDBOX_ERROR,
                      AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH);
      g_assert_cmpstr (paths_error->message, ==, messages[i]);
    }

  /* The Windows drive path: context exactly {rel, reason}. */
  {
    g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
    g_autoptr (AgentsManifestEntry) mount = mount_at (mount_paths[1]);
    g_autoptr (GPtrArray) targets = NULL;
    g_autoptr (GError) error = NULL;
    g_autoptr (GVariant) context = NULL;

    agents_manifest_set_entry (manifest, "logical", mount);
    targets = agents_manifest_list_mount_targets (manifest, TRUE, &error);
    g_assert_null (targets);
    agents_test_assert_context_str (error, "rel", "C:/tmp/mount");
    agents_test_assert_context_str (error, "reason", "absolute");
    context = agents_sandbox_error_get_context (error);
    g_assert_cmpuint (g_variant_n_children (context), ==,
                      g_strv_length ((char **) keys));
  }
}

/* The reference's companion cases: a mount path inside the root is
 * normalized, and where it lands is left out of workspace archives. */
static void
test_mount_targets_normalize_and_persistence_paths (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsManifestEntry) mount =
    mount_at ("/workspace/repo/../actual");
  g_autoptr (AgentsManifestEntry) dir = agents_dir_new ();
  g_autoptr (AgentsManifestEntry) tmp = agents_file_new_from_text ("tmp");
  g_autoptr (GPtrArray) targets = NULL;
  g_auto (GStrv) paths = NULL;
  g_autoptr (GError) error = NULL;

  agents_manifest_entry_set_ephemeral (tmp, TRUE);
  agents_dir_set_child (AGENTS_DIR (dir), "tmp.txt", tmp);
  agents_manifest_set_entry (manifest, "logical", mount);
  agents_manifest_set_entry (manifest, "dir", dir);

  targets = agents_manifest_list_mount_targets (manifest, TRUE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (targets->len, ==, 1);
  g_assert_cmpstr (((AgentsEntryTarget *) targets->pdata[0])->path, ==,
                   "/workspace/actual");
  paths = agents_manifest_get_ephemeral_persistence_paths (manifest, &error);
  g_assert_no_error (error);
  g_assert_cmpstrv (
    paths, ((const char *const[]){ "logical", "dir/tmp.txt", "actual", NULL }));
}

/* MAN-10 */
static void
test_describe (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsManifest) empty = agents_manifest_new ();
  g_autoptr (AgentsManifestEntry) d = agents_file_new_from_text ("d");
  g_autoptr (AgentsManifestEntry) notes = agents_file_new_from_text ("n");
  g_autoptr (GError) error = NULL;
  g_autofree char *depth1 = NULL;
  g_autofree char *unbounded = NULL;
  g_autofree char *depth0 = NULL;
  g_autofree char *nothing = NULL;

  agents_manifest_set_root (manifest, "/workspace/");
  agents_manifest_set_entry (manifest, "a/b/c/d.txt", d);
  agents_manifest_set_entry (manifest, "notes.txt", notes);

  depth1 = agents_sandbox_describe_manifest (manifest, 1, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (depth1, ==,
                   "/workspace\n"
                   "├── a/         # /workspace/a\n"
                   "└── notes.txt  # /workspace/notes.txt\n");
  unbounded = agents_sandbox_describe_manifest (manifest, -1, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (unbounded, ==,
                   "/workspace\n"
                   "├── a/                 # /workspace/a\n"
                   "│   └── b/             # /workspace/a/b\n"
                   "│       └── c/         # /workspace/a/b/c\n"
                   "│           └── d.txt  # /workspace/a/b/c/d.txt\n"
                   "└── notes.txt          # /workspace/notes.txt\n");
  depth0 = agents_sandbox_describe_manifest (manifest, 0, -1, &error);
  g_assert_null (depth0);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==,
                   "depth must be a non-zero positive integer or None");
  g_clear_error (&error);
  nothing = agents_sandbox_describe_manifest (empty, 1, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (nothing, ==, "/workspace\n");
}

/* MAN-14 */
static void
test_rejects_discriminator_free_env_values (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsManifest) manifest = parse_manifest (
    "{\"environment\": {\"value\": {\"AMBIGUOUS\": {\"value\": \"plain\", "
    "\"description\": \"not a legacy StrEnvValue\"}}}}",
    &error);
  g_autoptr (AgentsManifest) typed = NULL;

  g_assert_null (manifest);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_JSON);
  g_assert_cmpstr (error->message, ==,
                   "env value mapping must include a string `type` field");
  g_clear_error (&error);

  /* A typed str value and a plain one both resolve to their text. */
  typed = parse_manifest (
    "{\"environment\": {\"value\": {\"PLAIN\": \"plain\", \"TYPED\": "
    "{\"type\": \"str\", \"value\": \"typed\"}}}}",
    &error);
  g_assert_no_error (error);
  g_assert_cmpstr (agents_manifest_get_env (typed, "PLAIN"), ==, "plain");
  g_assert_cmpstr (agents_manifest_get_env (typed, "TYPED"), ==, "typed");
}

/* MAN-16 (str-only variant): a plain value, a typed value and an entry
 * holding a typed value all resolve to their text, in their order. */
static void
test_environment_resolve_returns_every_value (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsManifest) manifest = parse_manifest (
    "{\"environment\": {\"value\": {\"PLAIN\": \"literal\", "
    "\"TYPED\": {\"type\": \"str\", \"value\": \"v\"}, "
    "\"ENTRY\": {\"description\": \"an entry\", \"ephemeral\": true, "
    "\"value\": {\"type\": \"str\", \"value\": \"e\"}}}}}",
    &error);
  g_autoptr (AgentsManifest) bad = NULL;
  g_auto (GStrv) names = NULL;

  g_assert_no_error (error);
  names = agents_manifest_get_env_names (manifest);
  g_assert_cmpstrv (names,
                    ((const char *const[]){ "PLAIN", "TYPED", "ENTRY", NULL }));
  g_assert_cmpstr (agents_manifest_get_env (manifest, "PLAIN"), ==, "literal");
  g_assert_cmpstr (agents_manifest_get_env (manifest, "TYPED"), ==, "v");
  g_assert_cmpstr (agents_manifest_get_env (manifest, "ENTRY"), ==, "e");

  /* An entry's own members are checked too. */
  bad = parse_manifest (
    "{\"environment\": {\"value\": {\"ENTRY\": {\"ephemeral\": \"yes\", "
    "\"value\": {\"type\": \"str\", \"value\": \"e\"}}}}}",
    &error);
  g_assert_null (bad);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_JSON);
}

/* MAN-18 */
static void
test_default_manifest_json (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsUser) alice = agents_user_new ("a");
  g_autoptr (AgentsGroup) group = NULL;
  g_autoptr (JsonNode) user_json = agents_user_to_json (alice);
  g_autoptr (JsonNode) group_json = NULL;
  g_autofree char *text = agents_manifest_to_data (manifest, NULL);
  g_autofree char *user_text = json_to_string (user_json, FALSE);
  g_autofree char *group_text = NULL;
  AgentsUser *members[] = { alice };

  g_assert_cmpstr (
    text, ==,
    "{\"version\":1,\"root\":\"/workspace\",\"entries\":{},"
    "\"environment\":{\"value\":{}},\"users\":[],\"groups\":[],"
    "\"extra_path_grants\":[],\"remote_mount_command_allowlist\":[\"ls\","
    "\"find\",\"stat\",\"cat\",\"less\",\"head\",\"tail\",\"du\",\"grep\","
    "\"rg\",\"wc\",\"sort\",\"cut\",\"cp\",\"tee\",\"echo\",\"mkdir\","
    "\"rm\"]}");
  group = agents_group_new ("g", members, 1);
  group_json = agents_group_to_json (group);
  group_text = json_to_string (group_json, FALSE);
  g_assert_cmpstr (user_text, ==, "{\"name\":\"a\"}");
  g_assert_cmpstr (group_text, ==,
                   "{\"name\":\"g\",\"users\":[{\"name\":\"a\"}]}");
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/reference-cases/MAN-02",
                   test_rejects_nested_absolute_child_paths);
  g_test_add_func ("/reference-cases/MAN-04",
                   test_ephemeral_entry_paths_include_nested_children);
  g_test_add_func ("/reference-cases/MAN-06",
                   test_ephemeral_mount_targets_sort_by_resolved_depth);
  g_test_add_func ("/reference-cases/MAN-08",
                   test_ephemeral_mount_targets_reject_bad_mount_paths);
  g_test_add_func ("/reference-manifest/mount-targets-normalize",
                   test_mount_targets_normalize_and_persistence_paths);
  g_test_add_func ("/reference-cases/MAN-10", test_describe);
  g_test_add_func ("/reference-cases/MAN-14",
                   test_rejects_discriminator_free_env_values);
  g_test_add_func ("/reference-cases/MAN-16",
                   test_environment_resolve_returns_every_value);
  g_test_add_func ("/reference-cases/MAN-18", test_default_manifest_json);

  return g_test_run ();
}
