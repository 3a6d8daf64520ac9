/* test-sandbox-core.c - SandboxAgent, its runtime and session manager
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The implementer's own checks; the reference's tests are ported in
 * test-sandbox-runtime.c.
 */

#include "config.h"

#include "agents-run-private.h"
#include "agents-s3-mount.h"
#include "agents-sandbox-instructions-private.h"
#include "fake-sandbox.h"
#include "test-utils.h"

/* ---- Helpers ----------------------------------------------------------- */

static AgentsScriptedModel *
final_model (const char *text)
{
  g_autoptr (JsonArray) items =
    agents_testing_items (agents_testing_final_output_message (text), NULL);

  return agents_scripted_model_new_with_initial_output (items);
}

static AgentsSandboxAgent *
sandbox_agent (const char *name, AgentsScriptedModel *model)
{
  AgentsSandboxAgent *agent = agents_sandbox_agent_new (name);

  if (model != NULL)
    agents_agent_set_model (AGENTS_AGENT (agent), AGENTS_MODEL (model));
  return agent;
}

static AgentsSandboxRunConfig *
sandbox_config (FakeClient *client)
{
  AgentsSandboxRunConfig *config = agents_sandbox_run_config_new ();
  GVariantDict options;

  agents_sandbox_run_config_set_client (config, AGENTS_SANDBOX_CLIENT (client));
  g_variant_dict_init (&options, NULL);
  g_variant_dict_insert (&options, "image", "s", "sandbox");
  agents_sandbox_run_config_set_options (config, g_variant_dict_end (&options));
  return config;
}

static AgentsRunConfig *
run_config_for (AgentsSandboxRunConfig *sandbox)
{
  AgentsRunConfig *config = agents_run_config_new ();

  agents_run_config_set_sandbox (config, G_OBJECT (sandbox));
  return config;
}

static AgentsRunResult *
run_agent (AgentsAgent *agent,
           const char *input,
           AgentsRunConfig *config,
           GError **error)
{
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (JsonNode) node = json_node_init_string (json_node_alloc (), input);

  AGENTS_TEST_AWAIT (
    result, agents_runner_run_async (runner, agent, node, config, NULL, NULL,
                                     NULL, agents_test_async_cb, &result));
  return agents_runner_run_finish (runner, result, error);
}

static void
assert_final_text (AgentsRunResult *result, const char *text)
{
  g_autofree char *output = agents_run_result_dup_final_output_text (result);

  g_assert_cmpstr (output, ==, text);
}

static AgentsManifest *
readme_manifest (const char *text)
{
  AgentsManifest *manifest = agents_manifest_new ();
  g_autoptr (AgentsManifestEntry) readme = agents_file_new_from_text (text);

  agents_manifest_set_entry (manifest, "README.md", readme);
  return manifest;
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

/* ---- Instructions ------------------------------------------------------ */

static void
test_filesystem_without_entries (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsSandboxPathGrant) grant =
    agents_sandbox_path_grant_new ("/tmp", FALSE, "temporary files");
  g_autofree char *text = NULL;

  agents_manifest_add_extra_path_grant (manifest, grant);
  text = agents_sandbox_filesystem_instructions (manifest);
  g_assert_cmpstr (text, ==,
                   "# Filesystem\n"
                   "You have access to a container with a filesystem. The "
                   "filesystem layout is:\n"
                   "\n"
                   "/workspace");
}

static void
test_filesystem_tree (void)
{
  g_autoptr (AgentsManifest) manifest = readme_manifest ("hello");
  g_autoptr (AgentsManifestEntry) dir = agents_dir_new ();
  g_autoptr (AgentsManifestEntry) child = agents_file_new_from_text ("x");
  g_autoptr (AgentsManifestEntry) nested = agents_file_new_from_text ("y");
  g_autoptr (AgentsManifestEntry) mount = s3_mount (TRUE);
  g_autofree char *text = NULL;

  agents_dir_set_child (AGENTS_DIR (dir), "input.csv", child);
  agents_manifest_entry_set_description (dir, "Input data");
  agents_manifest_set_entry (manifest, "data", dir);
  agents_manifest_set_entry (manifest, "src/lib/main.c", nested);
  agents_manifest_set_entry (manifest, "remote", mount);
  text = agents_sandbox_filesystem_instructions (manifest);
  g_assert_cmpstr (text, ==,
                   "# Filesystem\n"
                   "You have access to a container with a filesystem. The "
                   "filesystem layout is:\n"
                   "\n"
                   "/workspace\n"
                   "├── README.md       # /workspace/README.md\n"
                   "├── data/           # /workspace/data — Input data\n"
                   "│   └── input.csv   # /workspace/data/input.csv\n"
                   "├── remote/         # /workspace/remote\n"
                   "└── src/            # /workspace/src\n"
                   "    └── lib/        # /workspace/src/lib\n"
                   "        └── main.c  # /workspace/src/lib/main.c");
}

/* The sections are kept per manifest between turns: each kind of change
 * must still show, as in a copy that was never asked before. */
static void
assert_sections_current (AgentsManifest *manifest)
{
  g_autoptr (AgentsManifest) copy = agents_manifest_copy (manifest);
  g_autofree char *text = agents_sandbox_filesystem_instructions (manifest);
  g_autofree char *fresh = agents_sandbox_filesystem_instructions (copy);
  g_autofree char *policy = agents_sandbox_remote_mount_policy (manifest);
  g_autofree char *fresh_policy = agents_sandbox_remote_mount_policy (copy);

  g_assert_cmpstr (text, ==, fresh);
  g_assert_cmpstr (policy, ==, fresh_policy);
}

static void
test_sections_follow_changes (void)
{
  g_autoptr (AgentsManifest) manifest = readme_manifest ("hello");
  g_autoptr (AgentsManifestEntry) dir = agents_dir_new ();
  g_autoptr (AgentsManifestEntry) child = agents_file_new_from_text ("x");
  g_autoptr (AgentsManifestEntry) mount = s3_mount (TRUE);
  g_autofree char *before = agents_sandbox_filesystem_instructions (manifest);
  g_autofree char *again = agents_sandbox_filesystem_instructions (manifest);
  const char *const allowlist[] = { "ls", NULL };
  g_autofree char *text = NULL;

  g_assert_cmpstr (before, ==, again);
  g_assert_null (agents_sandbox_remote_mount_policy (manifest));
  agents_manifest_set_entry (manifest, "data", dir);
  assert_sections_current (manifest);
  agents_dir_set_child (AGENTS_DIR (dir), "input.csv", child);
  assert_sections_current (manifest);
  agents_manifest_entry_set_description (child, "rows");
  assert_sections_current (manifest);
  agents_manifest_set_entry (manifest, "remote", mount);
  assert_sections_current (manifest);
  agents_mount_set_read_only (AGENTS_MOUNT (mount), FALSE);
  assert_sections_current (manifest);
  agents_manifest_set_remote_mount_command_allowlist (manifest, allowlist);
  assert_sections_current (manifest);
  agents_manifest_set_root (manifest, "/work");
  assert_sections_current (manifest);
  agents_dir_set_child (AGENTS_DIR (dir), "input.csv", NULL);
  g_assert_true (agents_manifest_remove_entry (manifest, "remote"));
  assert_sections_current (manifest);

  text = agents_sandbox_filesystem_instructions (manifest);
  g_assert_cmpstr (text, ==,
                   "# Filesystem\n"
                   "You have access to a container with a filesystem. The "
                   "filesystem layout is:\n"
                   "\n"
                   "/work\n"
                   "├── README.md  # /work/README.md\n"
                   "└── data/      # /work/data");
}

/* Many siblings, each added twice: each appears once, sorted by name. */
static void
test_filesystem_many_siblings (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (GString) expected = g_string_new (
    "# Filesystem\n"
    "You have access to a container with a filesystem. The filesystem "
    "layout is:\n\n/workspace\n└── d/       # /workspace/d");
  g_autofree char *text = NULL;

  for (guint i = 0; i < 40; i++)
    {
      g_autofree char *path = g_strdup_printf ("d/f%02u", 39 - i);
      g_autofree char *again = g_strdup_printf ("d/f%02u", 39 - i / 2);
      g_autoptr (AgentsManifestEntry) file = agents_file_new_from_text ("x");

      agents_manifest_set_entry (manifest, path, file);
      agents_manifest_set_entry (manifest, again, file);
    }
  for (guint i = 0; i < 40; i++)
    g_string_append_printf (expected, "\n    %s f%02u  # /workspace/d/f%02u",
                            i == 39 ? "└──" : "├──", i, i);
  text = agents_sandbox_filesystem_instructions (manifest);
  g_assert_cmpstr (text, ==, expected->str);
}

static void
test_default_prompt_resource (void)
{
  const char *text = agents_sandbox_get_default_instructions ();

  g_assert_nonnull (text);
  g_assert_true (g_str_has_prefix (text, "# Sandbox"));
  g_assert_false (g_str_has_suffix (text, "\n"));
  agents_sandbox_instructions_set_resource_missing (TRUE);
  g_assert_null (agents_sandbox_get_default_instructions ());
  agents_sandbox_instructions_set_resource_missing (FALSE);
  g_assert_cmpstr (agents_sandbox_get_default_instructions (), ==, text);
}

static void
test_mount_policy (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsManifestEntry) ro = s3_mount (TRUE);
  g_autoptr (AgentsManifestEntry) rw = s3_mount (FALSE);
  const char *commands[] = { "ls", "cp", NULL };
  g_autofree char *none = agents_sandbox_remote_mount_policy (manifest);
  g_autofree char *policy = NULL;

  g_assert_null (none);
  agents_manifest_set_entry (manifest, "remote", ro);
  agents_manifest_set_entry (manifest, "writable", rw);
  agents_manifest_set_remote_mount_command_allowlist (manifest, commands);
  policy = agents_sandbox_remote_mount_policy (manifest);
  g_assert_nonnull (strstr (policy, "- /workspace/remote (mounted in read-only "
                                    "mode)\n- /workspace/writable (mounted in "
                                    "read+write mode)"));
  g_assert_nonnull (strstr (policy, "Only use these commands on remote mounts: "
                                    "`ls`, `cp`."));
  g_assert_nonnull (
    strstr (policy, "Use `apply_patch` directly for text edits on read+write "
                    "mounts."));
  g_assert_nonnull (strstr (policy, "Do not edit paths marked read-only"));
  g_assert_null (strchr (policy, '{'));
}

/* ---- Runs -------------------------------------------------------------- */

static void
test_run_merges_instructions_and_tools (void)
{
  g_autoptr (AgentsScriptedModel) model = final_model ("done");
  g_autoptr (AgentsTool) tool =
    agents_testing_function_tool ("capability_tool", "ok");
  g_autoptr (AgentsCapability) capability =
    fake_recording_capability_new ("Capability instructions.", tool, NULL);
  g_autoptr (AgentsManifest) manifest =
    readme_manifest ("Follow the repo contract.");
  g_autoptr (FakeSession) session = fake_session_new (manifest);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsSandboxAgent) agent = sandbox_agent ("sandbox", model);
  g_autoptr (AgentsSandboxRunConfig) sandbox = sandbox_config (client);
  g_autoptr (AgentsRunConfig) config = run_config_for (sandbox);
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *filesystem = NULL;
  g_autofree char *options = NULL;
  AgentsModelRequest *request;
  JsonObject *payload, *sessions, *entry;
  GPtrArray *tools;

  agents_agent_set_instructions (AGENTS_AGENT (agent),
                                 "Additional instructions.");
  agents_sandbox_agent_set_default_manifest (agent, manifest);
  agents_sandbox_agent_set_capabilities (agent, &capability, 1);

  result = run_agent (AGENTS_AGENT (agent), "hello", config, &error);
  g_assert_no_error (error);
  assert_final_text (result, "done");
  g_assert_null (agents_capability_get_session (capability));
  g_assert_cmpuint (session->start_calls, ==, 1);
  g_assert_cmpuint (session->stop_calls, ==, 1);
  g_assert_cmpuint (session->shutdown_calls, ==, 1);
  g_assert_cmpuint (session->close_dependency_calls, ==, 1);
  g_assert_cmpuint (client->delete_calls, ==, 1);
  g_assert_null (agents_run_private_result_get_sandbox_session (result));

  state = agents_run_result_to_state (result);
  payload = agents_run_state_get_sandbox (state);
  g_assert_nonnull (payload);
  g_assert_cmpstr (json_object_get_string_member (payload, "backend_id"), ==,
                   "fake");
  g_assert_cmpstr (
    json_object_get_string_member (payload, "current_agent_name"), ==,
    "sandbox");
  g_assert_cmpstr (json_object_get_string_member (payload, "current_agent_key"),
                   ==, "sandbox");
  sessions = json_object_get_object_member (payload, "sessions_by_agent");
  entry = json_object_get_object_member (sessions, "sandbox");
  g_assert_cmpuint (json_object_get_size (entry), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (entry, "agent_name"), ==,
                   "sandbox");
  g_assert_true (
    json_node_equal (json_object_get_member (entry, "session_state"),
                     json_object_get_member (payload, "session_state")));

  g_assert_true (client->created);
  g_assert_true (client->create_manifest != manifest);
  g_assert_true (AGENTS_IS_LOCAL_SNAPSHOT_SPEC (client->create_snapshot));
  options = g_variant_print (client->create_options, FALSE);
  g_assert_cmpstr (options, ==, "{'image': <'sandbox'>}");

  request = agents_scripted_model_get_first_turn_args (model);
  filesystem = agents_sandbox_filesystem_instructions (manifest);
  expected =
    g_strdup_printf ("%s\n\n"
                     "# Agent instructions\n\n"
                     "Additional instructions.\n\n"
                     "# Sandbox capability instructions\n\n"
                     "Capability instructions.\n\n"
                     "%s",
                     agents_sandbox_get_default_instructions (), filesystem);
  g_assert_cmpstr (agents_model_request_get_system_instructions (request), ==,
                   expected);
  tools = agents_model_request_get_tools (request);
  g_assert_cmpuint (tools->len, ==, 1);
  g_assert_cmpstr (agents_tool_get_name (tools->pdata[0]), ==,
                   "capability_tool");
}

static void
test_run_requires_sandbox_config (void)
{
  g_autoptr (AgentsScriptedModel) model = final_model ("done");
  g_autoptr (AgentsSandboxAgent) agent = sandbox_agent ("sandbox", model);
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;

  result = run_agent (AGENTS_AGENT (agent), "hello", NULL, &error);
  g_assert_null (result);
  g_assert_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_USER_ERROR);
  g_assert_true (
    g_regex_match_simple ("RunConfig\\(sandbox=.*\\)", error->message, 0, 0));
}

static void
run_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AgentsRunResult **out = user_data;
  g_autoptr (GError) error = NULL;

  *out = agents_runner_run_finish (AGENTS_RUNNER (source), result, &error);
  g_assert_no_error (error);
}

static void
test_run_rejects_concurrent_reuse (void)
{
  g_autoptr (AgentsScriptedModel) model = final_model ("done");
  g_autoptr (FakeSession) session = NULL;
  g_autoptr (FakeGate) gate = fake_gate_new ();
  g_autoptr (FakeClient) client = NULL;
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsSandboxAgent) agent = sandbox_agent ("sandbox", model);
  g_autoptr (AgentsSandboxRunConfig) sandbox = NULL;
  g_autoptr (AgentsRunConfig) config = NULL;
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (JsonNode) input =
    json_node_init_string (json_node_alloc (), "hello");
  g_autoptr (AgentsRunResult) first = NULL;
  g_autoptr (AgentsRunResult) second = NULL;
  g_autoptr (GError) error = NULL;

  session = fake_session_new (manifest);
  session->start_gate = g_object_ref (G_OBJECT (gate));
  client = fake_client_new (session);
  sandbox = sandbox_config (client);
  config = run_config_for (sandbox);
  agents_runner_run_async (runner, AGENTS_AGENT (agent), input, config, NULL,
                           NULL, NULL, run_done, &first);
  while (session->start_calls == 0)
    g_main_context_iteration (NULL, TRUE);

  second = run_agent (AGENTS_AGENT (agent), "again", config, &error);
  g_assert_null (second);
  g_assert_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_USER_ERROR);
  g_assert_nonnull (strstr (error->message, "cannot be reused concurrently"));

  fake_gate_open (gate);
  while (first == NULL)
    g_main_context_iteration (NULL, TRUE);
  assert_final_text (first, "done");
}

static AgentsTool *
approval_tool (void)
{
  AgentsTool *tool = agents_testing_function_tool ("approval_tool", "approved");

  agents_tool_set_needs_approval (tool, TRUE);
  return tool;
}

static void
test_run_resumes_from_run_state (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsTool) tool = approval_tool ();
  g_autoptr (AgentsManifest) manifest =
    readme_manifest ("Resume with sandbox state.");
  g_autoptr (FakeSession) session = fake_session_new (manifest);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsSandboxAgent) agent = sandbox_agent ("sandbox", model);
  g_autoptr (AgentsSandboxRunConfig) sandbox = sandbox_config (client);
  g_autoptr (AgentsRunConfig) config = run_config_for (sandbox);
  g_autoptr (AgentsRunResult) first = NULL;
  g_autoptr (AgentsRunResult) resumed = NULL;
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (AgentsRunItem) approval = NULL;
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (GAsyncResult) async_result = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonArray) call_turn = agents_testing_items (
    agents_testing_function_tool_call ("approval_tool", "{}", "call_resume"),
    NULL);
  g_autoptr (JsonArray) final_turn =
    agents_testing_items (agents_testing_final_output_message ("done"), NULL);

  agents_agent_add_tool (AGENTS_AGENT (agent), tool);
  agents_sandbox_agent_set_default_manifest (agent, manifest);
  agents_scripted_model_set_next_output (model, call_turn);
  first = run_agent (AGENTS_AGENT (agent), "hello", config, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (
    g_list_model_get_n_items (agents_run_result_get_interruptions (first)), ==,
    1);
  state = agents_run_result_to_state (first);
  g_assert_nonnull (agents_run_state_get_sandbox (state));
  approval =
    g_list_model_get_item (agents_run_result_get_interruptions (first), 0);
  agents_run_state_approve (state, approval, FALSE);

  agents_scripted_model_set_next_output (model, final_turn);
  AGENTS_TEST_AWAIT (async_result,
                     agents_runner_resume_async (
                       runner, AGENTS_AGENT (agent), state, config, NULL, NULL,
                       agents_test_async_cb, &async_result));
  resumed = agents_runner_resume_finish (runner, async_result, &error);
  g_assert_no_error (error);
  assert_final_text (resumed, "done");
  g_assert_nonnull (client->resume_state);
  g_assert_cmpuint (client->delete_calls, ==, 2);
}

/* ---- Session manager --------------------------------------------------- */

static AgentsSandboxSession *
ensure_session (AgentsSandboxSessionManager *manager,
                AgentsSandboxAgent *agent,
                AgentsCapability *capability,
                gboolean is_resumed,
                GError **error)
{
  g_autoptr (GPtrArray) capabilities = g_ptr_array_new ();
  g_autoptr (GAsyncResult) result = NULL;

  if (capability != NULL)
    g_ptr_array_add (capabilities, capability);
  AGENTS_TEST_AWAIT (result,
                     agents_sandbox_session_manager_ensure_session_async (
                       manager, agent, capabilities, is_resumed, NULL,
                       agents_test_async_cb, &result));
  return agents_sandbox_session_manager_ensure_session_finish (manager, result,
                                                               error);
}

static JsonObject *
cleanup (AgentsSandboxSessionManager *manager, GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  AGENTS_TEST_AWAIT (result, agents_sandbox_session_manager_cleanup_async (
                               manager, NULL, agents_test_async_cb, &result));
  return agents_sandbox_session_manager_cleanup_finish (manager, result, error);
}

static void
test_manager_running_injected_delta (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) live = fake_session_new (manifest);
  g_autoptr (AgentsCapability) mutation =
    fake_capability_new (FAKE_CAPABILITY_MANIFEST_MUTATION);
  g_autoptr (AgentsSandboxAgent) agent = sandbox_agent ("worker", NULL);
  g_autoptr (AgentsSandboxRunConfig) sandbox = agents_sandbox_run_config_new ();
  g_autoptr (AgentsSandboxSessionManager) manager = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (JsonObject) payload = NULL;
  g_autoptr (GError) error = NULL;
  GPtrArray *batch;
  AgentsEntryTarget *target;

  live->running = TRUE;
  live->delta_recorder = TRUE;
  live->fail_entry_batch_times = 1;
  agents_sandbox_run_config_set_session (sandbox,
                                         AGENTS_SANDBOX_SESSION (live));
  manager =
    agents_sandbox_session_manager_new (AGENTS_AGENT (agent), sandbox, NULL);
  g_assert_true (agents_sandbox_session_manager_acquire_agent (
    manager, AGENTS_AGENT (agent), &error));

  session = ensure_session (manager, agent, mutation, FALSE, &error);
  g_assert_null (session);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_FAILED);
  g_assert_cmpstr (error->message, ==, "delta apply failed");
  g_clear_error (&error);
  g_assert_cmpuint (
    agents_manifest_get_n_entries (
      agents_sandbox_session_get_manifest (AGENTS_SANDBOX_SESSION (live))),
    ==, 0);

  session = ensure_session (manager, agent, mutation, FALSE, &error);
  g_assert_no_error (error);
  g_assert_true (session == AGENTS_SANDBOX_SESSION (live));
  g_assert_cmpuint (live->applied_entry_batches->len, ==, 2);
  batch = live->applied_entry_batches->pdata[1];
  g_assert_cmpuint (batch->len, ==, 1);
  target = batch->pdata[0];
  g_assert_cmpstr (target->path, ==, "/workspace/cap.txt");
  g_assert_nonnull (agents_manifest_get_entry (
    agents_sandbox_session_get_manifest (session), "cap.txt"));
  g_assert_cmpuint (live->start_calls, ==, 0);
  g_assert_cmpuint (live->concurrency_limit_values->len, ==, 1);
  g_assert_cmpuint (live->archive_limit_values->len, ==, 1);
  g_assert_null (live->archive_limit_values->pdata[0]);

  payload = cleanup (manager, &error);
  g_assert_no_error (error);
  g_assert_null (payload);
  g_assert_cmpuint (live->stop_calls, ==, 0);
  g_assert_cmpuint (live->shutdown_calls, ==, 0);
}

static void
test_manager_refuses_running_account_changes (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) live = fake_session_new (manifest);
  g_autoptr (AgentsCapability) users =
    fake_capability_new (FAKE_CAPABILITY_MANIFEST_USERS);
  g_autoptr (AgentsSandboxAgent) agent = sandbox_agent ("worker", NULL);
  g_autoptr (AgentsSandboxRunConfig) sandbox = agents_sandbox_run_config_new ();
  g_autoptr (AgentsSandboxSessionManager) manager = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GError) error = NULL;

  live->running = TRUE;
  live->delta_recorder = TRUE;
  agents_sandbox_run_config_set_session (sandbox,
                                         AGENTS_SANDBOX_SESSION (live));
  manager =
    agents_sandbox_session_manager_new (AGENTS_AGENT (agent), sandbox, NULL);
  session = ensure_session (manager, agent, users, FALSE, &error);
  g_assert_null (session);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (
    strstr (error->message, "manifest.users` or `manifest.groups"));
  g_assert_cmpuint (live->applied_entry_batches->len, ==, 0);
  g_assert_cmpuint (
    agents_manifest_get_users (
      agents_sandbox_session_get_manifest (AGENTS_SANDBOX_SESSION (live)))
      ->len,
    ==, 0);
}

static void
test_manager_invalid_limits (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (manifest);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsSandboxAgent) agent = sandbox_agent ("worker", NULL);
  g_autoptr (AgentsSandboxRunConfig) sandbox = sandbox_config (client);
  g_autoptr (AgentsSandboxSessionManager) manager = NULL;
  g_autoptr (AgentsSandboxSession) result = NULL;
  g_autoptr (AgentsConcurrencyLimits) limits =
    agents_concurrency_limits_new_full (1, 0);
  g_autoptr (GError) error = NULL;

  agents_sandbox_run_config_set_concurrency_limits (sandbox, limits);
  manager =
    agents_sandbox_session_manager_new (AGENTS_AGENT (agent), sandbox, NULL);
  result = ensure_session (manager, agent, NULL, FALSE, &error);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==,
                   "concurrency_limits.local_dir_files must be at least 1");
  g_assert_false (client->created);
}

static void
test_manager_resume_keys (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (manifest);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsSandboxAgent) first = sandbox_agent ("sandbox", NULL);
  g_autoptr (AgentsSandboxAgent) literal = sandbox_agent ("sandbox#2", NULL);
  g_autoptr (AgentsSandboxAgent) second = sandbox_agent ("sandbox", NULL);
  g_autoptr (AgentsSandboxRunConfig) sandbox = sandbox_config (client);
  g_autoptr (AgentsSandboxSessionManager) manager = NULL;
  GObject *first_handoffs[] = { G_OBJECT (literal), G_OBJECT (second) };
  GObject *literal_handoffs[] = { G_OBJECT (first), G_OBJECT (second) };
  GObject *second_handoffs[] = { G_OBJECT (first), G_OBJECT (literal) };

  agents_agent_set_handoffs (AGENTS_AGENT (first), first_handoffs, 2);
  agents_agent_set_handoffs (AGENTS_AGENT (literal), literal_handoffs, 2);
  agents_agent_set_handoffs (AGENTS_AGENT (second), second_handoffs, 2);
  manager =
    agents_sandbox_session_manager_new (AGENTS_AGENT (first), sandbox, NULL);
  g_assert_true (agents_sandbox_session_manager_acquire_agent (
    manager, AGENTS_AGENT (first), NULL));
  g_assert_true (agents_sandbox_session_manager_acquire_agent (
    manager, AGENTS_AGENT (literal), NULL));
  g_assert_true (agents_sandbox_session_manager_acquire_agent (
    manager, AGENTS_AGENT (second), NULL));
  g_assert_cmpstr (agents_sandbox_session_manager_ensure_resume_key (
                     manager, AGENTS_AGENT (first)),
                   ==, "sandbox");
  g_assert_cmpstr (agents_sandbox_session_manager_ensure_resume_key (
                     manager, AGENTS_AGENT (literal)),
                   ==, "sandbox#2");
  g_assert_cmpstr (agents_sandbox_session_manager_ensure_resume_key (
                     manager, AGENTS_AGENT (second)),
                   ==, "sandbox#3");

  agents_agent_set_handoffs (AGENTS_AGENT (first), NULL, 0);
  agents_agent_set_handoffs (AGENTS_AGENT (literal), NULL, 0);
  agents_agent_set_handoffs (AGENTS_AGENT (second), NULL, 0);
}

static void
test_manager_run_as_user (void)
{
  g_autoptr (AgentsUser) user = agents_user_new ("sandbox-user");
  g_autoptr (AgentsGroup) group = agents_group_new ("sandbox-group", &user, 1);
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsManifest) empty = agents_manifest_new ();
  g_autoptr (AgentsManifest) same = NULL;
  g_autoptr (AgentsManifest) added = NULL;

  agents_manifest_add_group (manifest, group);
  same =
    agents_sandbox_session_manager_manifest_with_run_as_user (manifest, user);
  g_assert_true (same == manifest);
  g_assert_cmpuint (agents_manifest_get_users (same)->len, ==, 0);
  added =
    agents_sandbox_session_manager_manifest_with_run_as_user (empty, user);
  g_assert_true (added != empty);
  g_assert_cmpuint (agents_manifest_get_users (empty)->len, ==, 0);
  g_assert_cmpuint (agents_manifest_get_users (added)->len, ==, 1);
}

/* ---- Runtime ----------------------------------------------------------- */

static AgentsSandboxPreparedAgent *
prepare (AgentsSandboxRuntime *runtime,
         AgentsAgent *agent,
         JsonNode *input,
         AgentsRunContext *ctx)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  AgentsSandboxPreparedAgent *prepared;

  AGENTS_TEST_AWAIT (result, agents_sandbox_runtime_prepare_agent_async (
                               runtime, agent, input, ctx, FALSE, NULL,
                               agents_test_async_cb, &result));
  prepared =
    agents_sandbox_runtime_prepare_agent_finish (runtime, result, &error);
  g_assert_no_error (error);
  return prepared;
}

static JsonNode *
user_items (const char *text)
{
  g_autoptr (JsonObject) item = json_object_new ();
  g_autoptr (JsonArray) items = json_array_new ();

  json_object_set_string_member (item, "role", "user");
  json_object_set_string_member (item, "content", text);
  json_array_add_object_element (items, json_object_ref (item));
  return json_node_init_array (json_node_alloc (), items);
}

static void
test_runtime_caches_bound_execution_agent (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (manifest);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsCapability) capability =
    fake_capability_new (FAKE_CAPABILITY_PROCESS_CONTEXT);
  g_autoptr (AgentsCapability) memory = agents_memory_capability_new ();
  g_autoptr (AgentsSandboxAgent) agent = sandbox_agent ("sandbox", NULL);
  g_autoptr (AgentsSandboxRunConfig) sandbox = sandbox_config (client);
  g_autoptr (AgentsRunConfig) config = run_config_for (sandbox);
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);
  g_autoptr (AgentsSandboxRuntime) runtime = NULL;
  g_autoptr (AgentsSandboxPreparedAgent) first = NULL;
  g_autoptr (AgentsSandboxPreparedAgent) second = NULL;
  g_autoptr (JsonNode) hello = user_items ("hello");
  g_autoptr (JsonNode) again = user_items ("hello again");
  g_autoptr (AgentsCapability) bound = NULL;
  /* Memory needs shell and filesystem beside it. */
  g_autoptr (AgentsCapability) shell = agents_shell_capability_new ();
  g_autoptr (AgentsCapability) filesystem = agents_filesystem_capability_new ();
  AgentsCapability *capabilities[] = { capability, memory, shell, filesystem };
  AgentsAgent *exec;
  JsonArray *input;

  agents_sandbox_agent_set_capabilities (agent, capabilities,
                                         G_N_ELEMENTS (capabilities));
  agents_sandbox_agent_set_run_as_name (agent, "sandbox-user");
  runtime = agents_sandbox_runtime_new (AGENTS_AGENT (agent), config, NULL);
  first = prepare (runtime, AGENTS_AGENT (agent), hello, ctx);
  g_assert_cmpuint (session->start_calls, ==, 1);
  exec = agents_sandbox_prepared_agent_get_execution_agent (first);
  g_assert_true (AGENTS_IS_SANDBOX_AGENT (exec));
  g_assert_true (exec != AGENTS_AGENT (agent));
  g_assert_true (agents_sandbox_agent_get_public_agent (
                   AGENTS_SANDBOX_AGENT (exec)) == AGENTS_AGENT (agent));
  bound = g_list_model_get_item (
    agents_sandbox_agent_get_capabilities (AGENTS_SANDBOX_AGENT (exec)), 0);
  g_assert_true (agents_capability_get_session (bound) ==
                 AGENTS_SANDBOX_SESSION (session));
  g_assert_cmpstr (agents_user_get_name (agents_capability_get_run_as (bound)),
                   ==, "sandbox-user");
  g_assert_null (agents_capability_get_session (capability));
  g_assert_nonnull (
    agents_sandbox_runtime_get_memory_generation_manager (runtime));
  input = json_node_get_array (agents_sandbox_prepared_agent_get_input (first));
  g_assert_cmpuint (json_array_get_length (input), ==, 2);

  session->running = FALSE;
  second = prepare (runtime, AGENTS_AGENT (agent), again, ctx);
  g_assert_true (agents_sandbox_prepared_agent_get_execution_agent (second) ==
                 exec);
  g_assert_cmpuint (session->start_calls, ==, 2);
  input =
    json_node_get_array (agents_sandbox_prepared_agent_get_input (second));
  g_assert_cmpstr (json_object_get_string_member (
                     json_array_get_object_element (input, 1), "content"),
                   ==, "process_calls=2");
}

static void
collect_custom_names (JsonArray *nodes, GHashTable *names)
{
  for (guint i = 0; nodes != NULL && i < json_array_get_length (nodes); i++)
    {
      JsonObject *node = json_array_get_object_element (nodes, i);
      JsonObject *data = json_object_get_object_member (node, "data");

      if (g_strcmp0 (
            json_object_get_string_member_with_default (node, "type", ""),
            "custom") == 0 &&
          data != NULL)
        g_hash_table_add (
          names, g_strdup (json_object_get_string_member (data, "name")));
      if (json_object_has_member (node, "children"))
        collect_custom_names (json_object_get_array_member (node, "children"),
                              names);
    }
}

static void
test_runtime_spans (void)
{
  g_autoptr (AgentsTestTracingProcessor) processor =
    agents_test_tracing_processor_new ();
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (manifest);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsSandboxAgent) agent = sandbox_agent ("sandbox", NULL);
  g_autoptr (AgentsSandboxRunConfig) sandbox = sandbox_config (client);
  g_autoptr (AgentsRunConfig) config = run_config_for (sandbox);
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);
  g_autoptr (AgentsSandboxRuntime) runtime = NULL;
  g_autoptr (AgentsSandboxPreparedAgent) prepared = NULL;
  g_autoptr (JsonNode) input =
    json_node_init_string (json_node_alloc (), "hello");
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (JsonObject) payload = NULL;
  g_autoptr (JsonArray) traces = NULL;
  g_autoptr (GHashTable) names =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GError) error = NULL;
  const char *expected[] = {
    "sandbox.prepare_agent", "sandbox.create_session",   "sandbox.start",
    "sandbox.cleanup",       "sandbox.cleanup_sessions", "sandbox.stop",
    "sandbox.shutdown"
  };
  AgentsTrace *trace;

  agents_tracing_set_processors ((AgentsTracingProcessor **) &processor, 1);
  runtime = agents_sandbox_runtime_new (AGENTS_AGENT (agent), config, NULL);
  trace = agents_trace_begin ("sandbox_runtime_test", NULL, NULL, NULL);
  prepared = prepare (runtime, AGENTS_AGENT (agent), input, ctx);
  AGENTS_TEST_AWAIT (result, agents_sandbox_runtime_cleanup_async (
                               runtime, NULL, agents_test_async_cb, &result));
  payload = agents_sandbox_runtime_cleanup_finish (runtime, result, &error);
  g_assert_no_error (error);
  g_assert_nonnull (payload);
  agents_trace_end (trace);
  g_object_unref (trace);
  agents_tracing_set_processors (NULL, 0);

  traces = agents_test_tracing_processor_fetch_normalized_spans (processor);
  g_assert_cmpuint (json_array_get_length (traces), ==, 1);
  collect_custom_names (
    json_object_get_array_member (json_array_get_object_element (traces, 0),
                                  "children"),
    names);
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    g_assert_true (g_hash_table_contains (names, expected[i]));
}

static void
test_fingerprint_orders_by_content (void)
{
  g_autoptr (AgentsManifest) alpha_manifest = readme_manifest ("alpha");
  g_autoptr (AgentsManifest) beta_manifest = readme_manifest ("beta");
  g_autoptr (AgentsSandboxAgent) alpha = sandbox_agent ("sandbox", NULL);
  g_autoptr (AgentsSandboxAgent) beta = sandbox_agent ("sandbox", NULL);
  g_autoptr (AgentsAgent) root = agents_agent_new ("triage");
  g_autoptr (AgentsAgentIdentityMap) map = NULL;
  GObject *handoffs[] = { G_OBJECT (beta), G_OBJECT (alpha) };

  agents_sandbox_agent_set_default_manifest (alpha, alpha_manifest);
  agents_sandbox_agent_set_default_manifest (beta, beta_manifest);
  agents_agent_set_handoffs (root, handoffs, 2);
  map = agents_run_state_build_agent_identity_map (root);
  g_assert_cmpstr (
    agents_agent_identity_map_find_key (map, AGENTS_AGENT (alpha)), ==,
    "sandbox");
  g_assert_cmpstr (
    agents_agent_identity_map_find_key (map, AGENTS_AGENT (beta)), ==,
    "sandbox#2");
  agents_agent_set_handoffs (root, NULL, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  fake_sandbox_register_types ();

  g_test_add_func ("/sandbox/core/instructions/filesystem-without-entries",
                   test_filesystem_without_entries);
  g_test_add_func ("/sandbox/core/instructions/filesystem-tree",
                   test_filesystem_tree);
  g_test_add_func ("/sandbox/core/instructions/sections-follow-changes",
                   test_sections_follow_changes);
  g_test_add_func ("/sandbox/core/instructions/filesystem-many-siblings",
                   test_filesystem_many_siblings);
  g_test_add_func ("/sandbox/core/instructions/default-prompt-resource",
                   test_default_prompt_resource);
  g_test_add_func ("/sandbox/core/instructions/mount-policy",
                   test_mount_policy);
  g_test_add_func ("/sandbox/core/run/merges-instructions-and-tools",
                   test_run_merges_instructions_and_tools);
  g_test_add_func ("/sandbox/core/run/requires-sandbox-config",
                   test_run_requires_sandbox_config);
  g_test_add_func ("/sandbox/core/run/rejects-concurrent-reuse",
                   test_run_rejects_concurrent_reuse);
  g_test_add_func ("/sandbox/core/run/resumes-from-run-state",
                   test_run_resumes_from_run_state);
  g_test_add_func ("/sandbox/core/manager/running-injected-delta",
                   test_manager_running_injected_delta);
  g_test_add_func ("/sandbox/core/manager/refuses-running-account-changes",
                   test_manager_refuses_running_account_changes);
  g_test_add_func ("/sandbox/core/manager/invalid-limits",
                   test_manager_invalid_limits);
  g_test_add_func ("/sandbox/core/manager/resume-keys",
                   test_manager_resume_keys);
  g_test_add_func ("/sandbox/core/manager/run-as-user",
                   test_manager_run_as_user);
  g_test_add_func ("/sandbox/core/runtime/caches-bound-execution-agent",
                   test_runtime_caches_bound_execution_agent);
  g_test_add_func ("/sandbox/core/runtime/spans", test_runtime_spans);
  g_test_add_func ("/sandbox/core/agent/fingerprint-orders-by-content",
                   test_fingerprint_orders_by_content);
  return g_test_run ();
}
