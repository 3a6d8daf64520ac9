/* test-reference-instructions.c - reference cases INSTR-*: instruction
 * assembly and the remote mount policy (../shared/spec/reference-cases.md)
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "agents-s3-mount.h"
#include "agents-sandbox-runtime-private.h"
#include "fake-session.h"
#include "test-utils.h"

/* The reference tests' _Capability: a fixed instructions fragment, and a
 * record of what its sampling-params hook was given. */
#define TEST_TYPE_CAPABILITY (test_capability_get_type ())
G_DECLARE_FINAL_TYPE (
  TestCapability, test_capability, TEST, CAPABILITY, GObject)

struct _TestCapability
{
  GObject parent_instance;

  char *fragment;
  GPtrArray *sampling_calls; /* of char *, the JSON each call was given */
};

static void test_capability_iface_init (AgentsCapabilityInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  TestCapability,
  test_capability,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_CAPABILITY, test_capability_iface_init))

static void
test_capability_finalize (GObject *object)
{
  TestCapability *self = TEST_CAPABILITY (object);

  g_free (self->fragment);
  g_ptr_array_unref (self->sampling_calls);
  G_OBJECT_CLASS (test_capability_parent_class)->finalize (object);
}

static void
test_capability_class_init (TestCapabilityClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_capability_finalize;
}

static void
test_capability_init (TestCapability *self)
{
  self->sampling_calls = g_ptr_array_new_with_free_func (g_free);
}

static const char *
test_capability_type (AgentsCapability *capability)
{
  return "test";
}

static void
test_capability_instructions (AgentsCapability *capability,
                              AgentsManifest *manifest,
                              GTask *task)
{
  g_task_return_pointer (
    task, g_strdup (TEST_CAPABILITY (capability)->fragment), g_free);
}

static JsonObject *
test_capability_sampling_params (AgentsCapability *capability,
                                 JsonObject *model_params)
{
  g_autoptr (JsonNode) node =
    json_node_init_object (json_node_alloc (), model_params);

  g_ptr_array_add (TEST_CAPABILITY (capability)->sampling_calls,
                   json_to_string (node, FALSE));
  return json_object_new ();
}

static void
test_capability_iface_init (AgentsCapabilityInterface *iface)
{
  iface->get_capability_type = test_capability_type;
  iface->instructions = test_capability_instructions;
  iface->sampling_params_for_model = test_capability_sampling_params;
}

static TestCapability *
test_capability_new (const char *fragment)
{
  TestCapability *self = g_object_new (TEST_TYPE_CAPABILITY, NULL);

  self->fragment = g_strdup (fragment);
  return self;
}

/* The reference's prepare_sandbox_agent(): an execution agent of @agent
 * over a session of @manifest with @capability, for a run whose working
 * directory is @cwd (nullable). */
static AgentsSandboxAgent *
prepare_in (AgentsSandboxAgent *agent,
            AgentsManifest *manifest,
            TestCapability *capability,
            const char *cwd)
{
  g_autoptr (FakeSession) session = fake_session_new (manifest);
  g_autoptr (GPtrArray) capabilities = g_ptr_array_new ();

  g_ptr_array_add (capabilities, capability);
  return agents_sandbox_agent_new_execution (
    agent, capabilities, AGENTS_SANDBOX_SESSION (session), NULL, cwd);
}

static AgentsSandboxAgent *
prepare (AgentsSandboxAgent *agent,
         AgentsManifest *manifest,
         TestCapability *capability)
{
  return prepare_in (agent, manifest, capability, NULL);
}

static AgentsManifestEntry *
s3_mount (gboolean read_only)
{
  g_autoptr (AgentsMountPattern) pattern =
    agents_mountpoint_mount_pattern_new ();
  g_autoptr (AgentsMountStrategy) strategy =
    agents_in_container_mount_strategy_new (pattern);
  AgentsManifestEntry *mount = agents_s3_mount_new ("bucket", strategy);

  agents_mount_set_read_only (AGENTS_MOUNT (mount), read_only);
  return mount;
}

/* INSTR-02 */
static void
test_accepts_serialized_manifest_without_path_grants (void)
{
  g_autoptr (AgentsSandboxAgent) agent = agents_sandbox_agent_new ("sandbox");
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (JsonNode) node = NULL;
  g_autoptr (JsonNode) granting = NULL;
  g_autoptr (GError) error = NULL;
  AgentsManifest *set;
  JsonNode *grants;

  agents_manifest_set_root (manifest, "/workspace");
  node = agents_manifest_to_json (manifest);
  grants =
    json_object_get_member (json_node_get_object (node), "extra_path_grants");
  g_assert_nonnull (grants);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (grants)), ==,
                    0);

  g_assert_true (
    agents_sandbox_agent_set_default_manifest_from_json (agent, node, &error));
  g_assert_no_error (error);
  set = agents_sandbox_agent_get_default_manifest (agent);
  g_assert_nonnull (set);
  g_assert_cmpstr (agents_manifest_get_root (set), ==, "/workspace");
  g_assert_cmpuint (agents_manifest_get_extra_path_grants (set)->len, ==, 0);

  /* Grants cannot come from serialized configuration. */
  granting = json_from_string (
    "{\"root\": \"/other\", \"extra_path_grants\": [{\"path\": \"/tmp\"}]}",
    &error);
  g_assert_no_error (error);
  g_assert_false (agents_sandbox_agent_set_default_manifest_from_json (
    agent, granting, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "extra_path_grants"));
  g_assert_true (agents_sandbox_agent_get_default_manifest (agent) == set);
}

/* INSTR-04 */
static void
test_wraps_capabilities_without_agent_instructions (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (TestCapability) capability =
    test_capability_new ("capability fragment");
  g_autoptr (AgentsSandboxAgent) agent = agents_sandbox_agent_new ("sandbox");
  g_autoptr (AgentsSandboxAgent) prepared = NULL;
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *prompt = NULL;

  agents_manifest_set_root (manifest, "/workspace");
  agents_sandbox_agent_set_base_instructions (agent, "base instructions");
  prepared = prepare (agent, manifest, capability);

  AGENTS_TEST_AWAIT (result, agents_agent_get_system_prompt_async (
                               AGENTS_AGENT (prepared), ctx, NULL,
                               agents_test_async_cb, &result));
  prompt = agents_agent_get_system_prompt_finish (AGENTS_AGENT (prepared),
                                                  result, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (prompt, ==,
                   "base instructions\n\n"
                   "# Sandbox capability instructions\n\n"
                   "capability fragment\n\n"
                   "# Filesystem\n"
                   "You have access to a container with a filesystem. The "
                   "filesystem layout is:\n\n"
                   "/workspace");
}

/* INSTR-06 */
static void
test_passes_default_model_to_sampling_params (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (TestCapability) capability = test_capability_new (NULL);
  g_autoptr (AgentsSandboxAgent) agent = agents_sandbox_agent_new ("sandbox");
  g_autoptr (AgentsSandboxAgent) prepared = NULL;
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (JsonNode) expected_node = NULL;
  g_autofree char *expected = NULL;

  agents_manifest_set_root (manifest, "/workspace");
  agents_agent_set_instructions (AGENTS_AGENT (agent), "base instructions");
  prepared = prepare (agent, manifest, capability);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "model");
  json_builder_add_string_value (builder, agents_model_get_default_name ());
  json_builder_end_object (builder);
  expected_node = json_builder_get_root (builder);
  expected = json_to_string (expected_node, FALSE);
  g_assert_cmpuint (capability->sampling_calls->len, ==, 1);
  g_assert_cmpstr (capability->sampling_calls->pdata[0], ==, expected);
}

/* INSTR-08 */
static void
test_truncated_tree_tells_model_to_ls (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *description = g_strnfill (40, 'x');
  g_autofree char *section = NULL;
  g_autofree char *full = NULL;
  g_autofree char *capped = NULL;

  for (guint i = 0; i < 200; i++)
    {
      g_autofree char *name = g_strdup_printf ("file_%03u.txt", i);
      g_autoptr (AgentsManifestEntry) file = agents_file_new_from_text ("");

      agents_manifest_entry_set_description (file, description);
      agents_manifest_set_entry (manifest, name, file);
    }

  section = agents_sandbox_filesystem_instructions (manifest);
  g_assert_nonnull (strstr (section, "... (truncated "));
  g_assert_nonnull (
    strstr (section, "The filesystem layout above was truncated. Use `ls` to "
                     "explore specific directories before relying on omitted "
                     "paths."));

  full = agents_sandbox_describe_manifest (manifest, 3, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_utf8_strlen (full, -1), ==, 17411);
  capped = agents_sandbox_describe_manifest (manifest, 3, 5000, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_utf8_strlen (capped, -1), ==, 5000);
  g_assert_nonnull (strstr (capped, "... (truncated 12558 chars)"));
}

/* INSTR-10 */
static void
test_remote_mount_policy_read_write (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsManifestEntry) mount = s3_mount (FALSE);
  g_autofree char *policy = NULL;

  agents_manifest_set_entry (manifest, "data", mount);
  policy = agents_sandbox_remote_mount_policy (manifest);
  g_assert_nonnull (policy);
  g_assert_nonnull (
    strstr (policy, "/workspace/data (mounted in read+write mode)"));
  g_assert_nonnull (strstr (
    policy, "Use `apply_patch` directly for text edits on read+write mounts."));
  g_assert_nonnull (
    strstr (policy, "For shell-based edits on read+write mounts"));
  g_assert_nonnull (strstr (policy, "copy it back"));
  g_assert_null (strstr (policy, "Do not edit paths marked read-only"));
}

/* INSTR-12 */
static void
test_remote_mount_policy_none_without_mounts (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsManifestEntry) dir = agents_dir_new ();
  g_autofree char *policy = NULL;

  agents_manifest_set_entry (manifest, "local", dir);
  policy = agents_sandbox_remote_mount_policy (manifest);
  g_assert_null (policy);
}

/* INSTR-14: test_filesystem_instructions_describe_run_working_directory */
static void
test_describes_run_working_directory (void)
{
  static const char *const sentences[] = {
    "For this run, the working directory is `/workspace/tasks/a`.",
    "Relative paths passed to the built-in `exec_command`, `view_image`, and "
    "`apply_patch` tools resolve from this directory.",
    "Other sandbox tools follow their own path contract.",
    "The session workspace root remains `/workspace`.",
    "The working directory changes path resolution; it does not isolate "
    "this run from the rest of the session workspace.",
    "Files outside the working directory may be visible to or shared with "
    "other runs.",
  };
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsManifestEntry) file = agents_file_new_from_text ("a");
  g_autoptr (TestCapability) capability = test_capability_new (NULL);
  g_autoptr (AgentsSandboxAgent) agent = agents_sandbox_agent_new ("sandbox");
  g_autoptr (AgentsSandboxAgent) prepared = NULL;
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *plain = NULL;
  g_autofree char *section = NULL;
  g_autofree char *prompt = NULL;

  agents_manifest_set_root (manifest, "/workspace");
  agents_manifest_set_entry (manifest, "tasks/a", file);

  section = agents_sandbox_filesystem_instructions_with_cwd (manifest,
                                                             "tasks/a", &error);
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (sentences); i++)
    g_assert_nonnull (strstr (section, sentences[i]));
  plain = agents_sandbox_filesystem_instructions (manifest);
  g_assert_true (g_str_has_prefix (section, plain));
  g_assert_null (strstr (plain, "working directory"));

  /* The execution agent's prompt ends with that section. */
  prepared = prepare_in (agent, manifest, capability, "tasks/a");
  AGENTS_TEST_AWAIT (result, agents_agent_get_system_prompt_async (
                               AGENTS_AGENT (prepared), ctx, NULL,
                               agents_test_async_cb, &result));
  prompt = agents_agent_get_system_prompt_finish (AGENTS_AGENT (prepared),
                                                  result, &error);
  g_assert_no_error (error);
  g_assert_true (g_str_has_suffix (prompt, section));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/reference-cases/INSTR-02",
                   test_accepts_serialized_manifest_without_path_grants);
  g_test_add_func ("/reference-cases/INSTR-04",
                   test_wraps_capabilities_without_agent_instructions);
  g_test_add_func ("/reference-cases/INSTR-06",
                   test_passes_default_model_to_sampling_params);
  g_test_add_func ("/reference-cases/INSTR-08",
                   test_truncated_tree_tells_model_to_ls);
  g_test_add_func ("/reference-cases/INSTR-10",
                   test_remote_mount_policy_read_write);
  g_test_add_func ("/reference-cases/INSTR-12",
                   test_remote_mount_policy_none_without_mounts);
  g_test_add_func ("/reference-cases/INSTR-14",
                   test_describes_run_working_directory);

  return g_test_run ();
}
