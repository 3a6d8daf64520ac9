/* test-sandbox-runner.c - the runner running sandbox agents
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Ports of the reference tests (spec/test_runtime.py) that run
 * SandboxAgents through Runner.run / Runner.run_streamed with the
 * reference's fake sessions and clients.
 */

#include "config.h"

#include <string.h>

#include "agents-run-private.h"
#include "agents-s3-mount.h"
#include "agents-sandbox-agent.h"
#include "agents-sandbox-instructions-private.h"
#include "agents-sandbox-run-config.h"
#include "fake-sandbox.h"
#include "test-utils.h"

/* ---- Helpers ----------------------------------------------------------- */

/* FakeModel(initial_output=[get_final_output_message(text)]) */
static AgentsScriptedModel *
model_final (const char *text)
{
  g_autoptr (JsonArray) items =
    agents_testing_items (agents_testing_final_output_message (text), NULL);

  return agents_scripted_model_new_with_initial_output (items);
}

/* model.add_multiple_turn_outputs ([[…], […]]): each argument is one
 * turn's items (taken), NULL-terminated. */
static void
add_turns (AgentsScriptedModel *model, JsonArray *first, ...)
{
  g_autoptr (GPtrArray) turns =
    g_ptr_array_new_with_free_func ((GDestroyNotify) json_array_unref);
  va_list args;

  va_start (args, first);
  for (JsonArray *turn = first; turn != NULL; turn = va_arg (args, JsonArray *))
    g_ptr_array_add (turns, turn);
  va_end (args);
  agents_scripted_model_add_multiple_turn_outputs (model, turns);
}

static JsonArray *
turn1 (JsonObject *item)
{
  return agents_testing_items (item, NULL);
}

static AgentsSandboxAgent *
sandbox_agent (const char *name,
               AgentsScriptedModel *model,
               const char *instructions)
{
  AgentsSandboxAgent *agent = agents_sandbox_agent_new (name);

  if (model != NULL)
    agents_agent_set_model (AGENTS_AGENT (agent), AGENTS_MODEL (model));
  if (instructions != NULL)
    agents_agent_set_instructions (AGENTS_AGENT (agent), instructions);
  return agent;
}

/* capabilities=[capability] */
static void
set_capability (AgentsSandboxAgent *agent, AgentsCapability *capability)
{
  agents_sandbox_agent_set_capabilities (agent, &capability, 1);
}

/* Manifest(entries={path: File(content=text)}) */
static AgentsManifest *
manifest_with_file (const char *path, const char *text)
{
  AgentsManifest *manifest = agents_manifest_new ();
  g_autoptr (AgentsManifestEntry) file = agents_file_new_from_text (text);

  agents_manifest_set_entry (manifest, path, file);
  return manifest;
}

/* S3Mount(bucket=..., mount_strategy=InContainerMountStrategy(
 *   pattern=MountpointMountPattern())) */
static AgentsManifestEntry *
new_s3_mount (const char *bucket)
{
  g_autoptr (AgentsMountPattern) pattern =
    agents_mountpoint_mount_pattern_new ();
  g_autoptr (AgentsMountStrategy) strategy =
    agents_in_container_mount_strategy_new (pattern);

  return agents_s3_mount_new (bucket, strategy);
}

/* SandboxRunConfig(client=client, options={"image": "sandbox"} if client
 * else None) */
static AgentsSandboxRunConfig *
sandbox_config_for (AgentsSandboxClient *client)
{
  AgentsSandboxRunConfig *config = agents_sandbox_run_config_new ();

  if (client != NULL)
    {
      agents_sandbox_run_config_set_client (config, client);
      agents_sandbox_run_config_set_options (
        config, g_variant_new_parsed ("{'image': <'sandbox'>}"));
    }
  return config;
}

static AgentsRunConfig *
run_config_with (AgentsSandboxRunConfig *sandbox)
{
  AgentsRunConfig *config = agents_run_config_new ();

  agents_run_config_set_sandbox (config, G_OBJECT (sandbox));
  return config;
}

/* _sandbox_run_config(client) */
static AgentsRunConfig *
sandbox_run_config (FakeClient *client)
{
  g_autoptr (AgentsSandboxRunConfig) sandbox =
    sandbox_config_for (client ? AGENTS_SANDBOX_CLIENT (client) : NULL);

  return run_config_with (sandbox);
}

/* RunConfig(sandbox=SandboxRunConfig(session=session)) */
static AgentsRunConfig *
injected_run_config (FakeSession *session, AgentsManifest *manifest)
{
  g_autoptr (AgentsSandboxRunConfig) sandbox = agents_sandbox_run_config_new ();

  agents_sandbox_run_config_set_session (sandbox,
                                         AGENTS_SANDBOX_SESSION (session));
  if (manifest != NULL)
    agents_sandbox_run_config_set_manifest (sandbox, manifest);
  return run_config_with (sandbox);
}

static AgentsRunResult *
run_node (AgentsRunner *runner,
          gpointer agent,
          JsonNode *input,
          AgentsRunConfig *config,
          AgentsConversationSession *session,
          GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  AGENTS_TEST_AWAIT (
    result, agents_runner_run_async (runner, AGENTS_AGENT (agent), input,
                                     config, session, NULL, NULL,
                                     agents_test_async_cb, &result));
  return agents_runner_run_finish (runner, result, error);
}

/* await Runner.run (agent, input, run_config=config) */
static AgentsRunResult *
run_text (AgentsRunner *runner,
          gpointer agent,
          const char *input,
          AgentsRunConfig *config,
          GError **error)
{
  g_autoptr (JsonNode) node = agents_test_str_node (input);

  return run_node (runner, agent, node, config, NULL, error);
}

/* await Runner.run (agent, state, run_config=config) */
static AgentsRunResult *
resume_run (AgentsRunner *runner,
            gpointer agent,
            AgentsRunState *state,
            AgentsRunConfig *config,
            GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  AGENTS_TEST_AWAIT (result, agents_runner_resume_async (
                               runner, AGENTS_AGENT (agent), state, config,
                               NULL, NULL, agents_test_async_cb, &result));
  return agents_runner_resume_finish (runner, result, error);
}

static AgentsRunResultStreaming *
run_streamed (AgentsRunner *runner,
              gpointer agent,
              const char *input,
              AgentsRunConfig *config)
{
  g_autoptr (JsonNode) node = agents_test_str_node (input);

  return agents_runner_run_streamed (runner, AGENTS_AGENT (agent), node, config,
                                     NULL, NULL);
}

static AgentsStreamEvent *
next_event (AgentsRunResultStreaming *streaming, GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  AGENTS_TEST_AWAIT (result, agents_run_result_streaming_next_event_async (
                               streaming, NULL, agents_test_async_cb, &result));
  return agents_run_result_streaming_next_event_finish (streaming, result,
                                                        error);
}

/* [event async for event in result.stream_events()] */
static GPtrArray *
stream_all (AgentsRunResultStreaming *streaming, GError **error)
{
  GPtrArray *events = g_ptr_array_new_with_free_func (g_object_unref);
  AgentsStreamEvent *event;

  while ((event = next_event (streaming, error)) != NULL)
    g_ptr_array_add (events, event);
  return events;
}

static gboolean
wait_run (AgentsRunResultStreaming *streaming, GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  AGENTS_TEST_AWAIT (result, agents_run_result_streaming_wait_async (
                               streaming, NULL, agents_test_async_cb, &result));
  return agents_run_result_streaming_wait_finish (streaming, result, error);
}

static gboolean
set_flag (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Spins the main context for @ms milliseconds. */
static void
spin_for (guint ms)
{
  gboolean done = FALSE;

  g_timeout_add (ms, set_flag, &done);
  agents_test_wait_for (&done);
}

/* Spins the main context until @cond holds, failing after 10 s (a hung
 * test would otherwise only end at meson's timeout). */
#define SPIN_UNTIL(cond)                                              \
  G_STMT_START                                                        \
  {                                                                   \
    gint64 _deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC; \
    while (!(cond))                                                   \
      {                                                               \
        g_assert_cmpint (g_get_monotonic_time (), <, _deadline);      \
        g_main_context_iteration (NULL, FALSE);                       \
      }                                                               \
  }                                                                   \
  G_STMT_END

/* Runs what is ready (asyncio.sleep(0) and a bit more). */
static void
spin_pending (void)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static void
assert_output_text (JsonNode *output, const char *text)
{
  g_assert_nonnull (output);
  g_assert_true (JSON_NODE_HOLDS_VALUE (output));
  g_assert_cmpstr (json_node_get_string (output), ==, text);
}

static void
assert_final (AgentsRunResult *result, const char *text)
{
  g_assert_nonnull (result);
  assert_output_text (agents_run_result_get_final_output (result), text);
}

static void
assert_streamed_final (AgentsRunResultStreaming *streaming, const char *text)
{
  assert_output_text (agents_run_result_streaming_get_final_output (streaming),
                      text);
}

static AgentsModelRequest *
first_turn_args (AgentsScriptedModel *model)
{
  AgentsModelRequest *request =
    agents_scripted_model_get_first_turn_args (model);

  g_assert_nonnull (request);
  return request;
}

static const char *
first_system_instructions (AgentsScriptedModel *model)
{
  return agents_model_request_get_system_instructions (first_turn_args (model));
}

/* _extract_user_text() */
static const char *
extract_user_text (JsonObject *item)
{
  JsonNode *content = json_object_get_member (item, "content");

  g_assert_nonnull (content);
  if (JSON_NODE_HOLDS_VALUE (content))
    return json_node_get_string (content);
  if (JSON_NODE_HOLDS_ARRAY (content))
    {
      JsonArray *parts = json_node_get_array (content);
      JsonNode *first = json_array_get_element (parts, 0);

      if (JSON_NODE_HOLDS_OBJECT (first))
        return json_object_get_string_member_with_default (
          json_node_get_object (first), "text", "");
    }
  g_assert_not_reached ();
}

/* f"{base}\n\n# Agent instructions\n\n{agent}\n\n# Sandbox capability
 * instructions\n\n{cap}\n\n{_filesystem_instructions(manifest)}", the
 * parts given as NULL left out. */
static char *
expected_prompt (const char *base,
                 const char *agent_text,
                 const char *capability_text,
                 AgentsManifest *manifest)
{
  GString *text = g_string_new (NULL);
  g_autofree char *filesystem =
    agents_sandbox_filesystem_instructions (manifest);

  if (base != NULL)
    g_string_append_printf (text, "%s\n\n", base);
  if (agent_text != NULL)
    g_string_append_printf (text, "# Agent instructions\n\n%s\n\n", agent_text);
  if (capability_text != NULL)
    g_string_append_printf (text, "# Sandbox capability instructions\n\n%s\n\n",
                            capability_text);
  g_string_append (text, filesystem);
  return g_string_free (text, FALSE);
}

/* get_default_sandbox_instructions() */
static const char *
default_instructions (void)
{
  const char *text = agents_sandbox_get_default_instructions ();

  g_assert_nonnull (text);
  return text;
}

static JsonObject *
payload_of (AgentsRunState *state)
{
  JsonObject *payload = agents_run_state_get_sandbox (state);

  g_assert_nonnull (payload);
  return payload;
}

/* The checks on state._sandbox after one runner-owned session of
 * @agent_name on the "fake" backend. */
static void
assert_fake_payload (AgentsRunState *state, const char *agent_name)
{
  JsonObject *payload = payload_of (state);
  JsonObject *sessions_by_agent;
  g_autoptr (JsonObject) expected = json_object_new ();
  g_autoptr (JsonNode) expected_node = NULL;

  g_assert_cmpstr (json_object_get_string_member (payload, "backend_id"), ==,
                   "fake");
  g_assert_cmpstr (
    json_object_get_string_member (payload, "current_agent_name"), ==,
    agent_name);
  g_assert_cmpstr (json_object_get_string_member (payload, "current_agent_key"),
                   ==, agent_name);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (
    json_object_get_member (payload, "sessions_by_agent")));
  sessions_by_agent =
    json_object_get_object_member (payload, "sessions_by_agent");
  g_assert_true (json_object_has_member (sessions_by_agent, agent_name));

  json_object_set_string_member (expected, "agent_name", agent_name);
  json_object_set_member (
    expected, "session_state",
    json_node_copy (json_object_get_member (payload, "session_state")));
  expected_node = json_node_init_object (json_node_alloc (), expected);
  g_assert_true (json_node_equal (
    json_object_get_member (sessions_by_agent, agent_name), expected_node));
}

static const char *
tool_name_at (GPtrArray *tools, guint i)
{
  return agents_tool_get_name (g_ptr_array_index (tools, i));
}

static AgentsGuardrailResult *
tripwire_input_guardrail (AgentsRunContext *ctx,
                          AgentsAgent *agent,
                          JsonNode *input,
                          gpointer user_data)
{
  return agents_guardrail_result_new (NULL, TRUE);
}

/* input_guardrails=[InputGuardrail(_tripwire_input_guardrail,
 * run_in_parallel=False)] */
static void
add_blocking_tripwire (gpointer agent)
{
  g_autoptr (AgentsInputGuardrail) guardrail = agents_input_guardrail_new (
    "tripwire_input_guardrail", tripwire_input_guardrail, NULL, NULL);

  agents_input_guardrail_set_run_in_parallel (guardrail, FALSE);
  agents_agent_add_input_guardrail (AGENTS_AGENT (agent), guardrail);
}

static char *
approved_tool_func (AgentsRunContext *ctx,
                    const char *arguments,
                    gpointer user_data,
                    GError **error)
{
  return g_strdup ("approved");
}

/* @function_tool(name_override="approval_tool", needs_approval=True) */
static AgentsTool *
approval_tool_new (void)
{
  AgentsTool *tool = AGENTS_TOOL (agents_function_tool_new (
    "approval_tool", NULL, NULL, approved_tool_func, NULL, NULL));

  agents_tool_set_needs_approval (tool, TRUE);
  return tool;
}

static AgentsRunItem *
item_at (GListModel *items, guint i)
{
  g_autoptr (AgentsRunItem) item = g_list_model_get_item (items, i);

  g_assert_nonnull (item);
  return item; /* the list keeps it alive */
}

/* Records agents seen by callbacks, by identity. */
static void
assert_seen (GPtrArray *seen, gpointer first, ...)
{
  va_list args;
  guint n = 0;

  va_start (args, first);
  for (gpointer agent = first; agent != NULL; agent = va_arg (args, gpointer))
    {
      g_assert_cmpuint (n, <, seen->len);
      g_assert_true (g_ptr_array_index (seen, n) == agent);
      n++;
    }
  va_end (args);
  g_assert_cmpuint (seen->len, ==, n);
}

/* ---- Instructions and tools -------------------------------------------- */

static void
test_runner_merges_sandbox_instructions_and_tools (void)
{
  g_autoptr (AgentsScriptedModel) model = model_final ("done");
  g_autoptr (AgentsTool) capability_tool =
    agents_testing_function_tool ("capability_tool", "ok");
  g_autoptr (AgentsCapability) capability = fake_recording_capability_new (
    "Capability instructions.", capability_tool, NULL);
  g_autoptr (AgentsManifest) manifest =
    manifest_with_file ("README.md", "Follow the repo contract.");
  g_autoptr (FakeSession) session = fake_session_new (manifest);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent ("sandbox", model, "Additional instructions.");
  g_autoptr (AgentsRunConfig) config = sandbox_run_config (client);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (GVariant) expected_options =
    g_variant_ref_sink (g_variant_new_parsed ("{'image': <'sandbox'>}"));
  g_autoptr (GError) error = NULL;
  g_autofree char *expected = NULL;
  AgentsModelRequest *request;
  GPtrArray *tools;
  JsonArray *input_items;

  agents_sandbox_agent_set_default_manifest (agent, manifest);
  set_capability (agent, capability);

  result = run_text (runner, agent, "hello", config, &error);
  g_assert_no_error (error);

  assert_final (result, "done");
  g_assert_null (agents_capability_get_session (capability));
  g_assert_cmpuint (session->start_calls, ==, 1);
  g_assert_cmpuint (session->stop_calls, ==, 1);
  g_assert_cmpuint (session->shutdown_calls, ==, 1);
  g_assert_cmpuint (session->close_dependency_calls, ==, 1);
  g_assert_cmpuint (client->delete_calls, ==, 1);

  state = agents_run_result_to_state (result);
  assert_fake_payload (state, "sandbox");

  g_assert_true (client->created);
  g_assert_true (client->create_manifest != manifest);
  g_assert_nonnull (client->create_options);
  g_assert_true (g_variant_equal (client->create_options, expected_options));
  g_assert_true (AGENTS_IS_LOCAL_SNAPSHOT_SPEC (client->create_snapshot));

  request = first_turn_args (model);
  expected =
    expected_prompt (default_instructions (), "Additional instructions.",
                     "Capability instructions.", manifest);
  g_assert_cmpstr (agents_model_request_get_system_instructions (request), ==,
                   expected);
  tools = agents_model_request_get_tools (request);
  g_assert_cmpuint (tools->len, ==, 1);
  g_assert_cmpstr (tool_name_at (tools, 0), ==, "capability_tool");

  input_items = agents_model_request_get_input (request);
  g_assert_nonnull (input_items);
  g_assert_cmpstr (
    extract_user_text (json_array_get_object_element (input_items, 0)), ==,
    "hello");
}

static void
test_filesystem_instructions_omit_extra_path_grants (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsSandboxPathGrant) tmp =
    agents_sandbox_path_grant_new ("/tmp", FALSE, "temporary files");
  g_autoptr (AgentsSandboxPathGrant) toolchain =
    agents_sandbox_path_grant_new ("/opt/toolchain", TRUE, "compiler runtime");
  g_autofree char *text = NULL;

  agents_manifest_set_root (manifest, "/workspace");
  agents_manifest_add_extra_path_grant (manifest, tmp);
  agents_manifest_add_extra_path_grant (manifest, toolchain);

  text = agents_sandbox_filesystem_instructions (manifest);
  g_assert_cmpstr (text, ==,
                   "# Filesystem\n"
                   "You have access to a container with a filesystem. The "
                   "filesystem layout is:\n"
                   "\n"
                   "/workspace");
}

static void
test_runner_adds_run_as_user_to_created_manifest_without_default_manifest (void)
{
  g_autoptr (AgentsScriptedModel) model = model_final ("done");
  g_autoptr (AgentsManifest) empty = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (empty);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsUser) run_as = agents_user_new ("sandbox-user");
  g_autoptr (AgentsSandboxAgent) agent = sandbox_agent ("sandbox", model, NULL);
  g_autoptr (AgentsRunConfig) config = sandbox_run_config (client);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  GPtrArray *users;

  agents_sandbox_agent_set_run_as (agent, run_as);

  result = run_text (runner, agent, "hello", config, &error);
  g_assert_no_error (error);

  assert_final (result, "done");
  g_assert_true (client->created);
  g_assert_nonnull (client->create_manifest);
  users = agents_manifest_get_users (client->create_manifest);
  g_assert_cmpuint (users->len, ==, 1);
  g_assert_true (agents_user_equal (g_ptr_array_index (users, 0), run_as));
  users = agents_manifest_get_users (
    agents_sandbox_session_get_manifest (AGENTS_SANDBOX_SESSION (session)));
  g_assert_cmpuint (users->len, ==, 1);
  g_assert_true (agents_user_equal (g_ptr_array_index (users, 0), run_as));
}

static void
test_runner_uses_default_sandbox_prompt_when_instructions_missing (void)
{
  g_autoptr (AgentsScriptedModel) model = model_final ("done");
  g_autoptr (AgentsCapability) capability =
    fake_recording_capability_new ("Capability instructions.", NULL, NULL);
  g_autoptr (AgentsManifest) empty = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (empty);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsSandboxAgent) agent = sandbox_agent ("sandbox", model, NULL);
  g_autoptr (AgentsRunConfig) config = sandbox_run_config (client);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *expected = NULL;

  set_capability (agent, capability);

  result = run_text (runner, agent, "hello", config, &error);
  g_assert_no_error (error);

  assert_final (result, "done");
  expected = expected_prompt (
    default_instructions (), NULL, "Capability instructions.",
    agents_sandbox_session_get_manifest (AGENTS_SANDBOX_SESSION (session)));
  g_assert_cmpstr (first_system_instructions (model), ==, expected);
}

static void
test_runner_handles_missing_default_sandbox_prompt_resource (void)
{
  g_autoptr (AgentsScriptedModel) model = model_final ("done");
  g_autoptr (AgentsCapability) capability =
    fake_recording_capability_new ("Capability instructions.", NULL, NULL);
  g_autoptr (AgentsManifest) empty = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (empty);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent ("sandbox", model, "Additional instructions.");
  g_autoptr (AgentsRunConfig) config = sandbox_run_config (client);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *expected = NULL;

  set_capability (agent, capability);

  /* monkeypatch files() to raise FileNotFoundError; cache_clear () */
  agents_sandbox_instructions_set_resource_missing (TRUE);
  result = run_text (runner, agent, "hello", config, &error);
  agents_sandbox_instructions_set_resource_missing (FALSE);
  g_assert_no_error (error);

  assert_final (result, "done");
  expected = expected_prompt (
    NULL, "Additional instructions.", "Capability instructions.",
    agents_sandbox_session_get_manifest (AGENTS_SANDBOX_SESSION (session)));
  g_assert_cmpstr (first_system_instructions (model), ==, expected);
}

static char *
empty_instructions (AgentsRunContext *ctx,
                    AgentsAgent *agent,
                    gpointer user_data)
{
  return g_strdup ("");
}

static void
test_runner_dynamic_instructions_do_not_override_default_sandbox_prompt (void)
{
  g_autoptr (AgentsScriptedModel) model = model_final ("done");
  g_autoptr (AgentsCapability) capability =
    fake_recording_capability_new ("Capability instructions.", NULL, NULL);
  g_autoptr (AgentsManifest) empty = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (empty);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsSandboxAgent) agent = sandbox_agent ("sandbox", model, NULL);
  g_autoptr (AgentsRunConfig) config = sandbox_run_config (client);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *expected = NULL;

  agents_agent_set_instructions_func (AGENTS_AGENT (agent), empty_instructions,
                                      NULL, NULL);
  set_capability (agent, capability);

  result = run_text (runner, agent, "hello", config, &error);
  g_assert_no_error (error);

  assert_final (result, "done");
  expected = expected_prompt (
    default_instructions (), NULL, "Capability instructions.",
    agents_sandbox_session_get_manifest (AGENTS_SANDBOX_SESSION (session)));
  g_assert_cmpstr (first_system_instructions (model), ==, expected);
}

static void
test_runner_base_instructions_override_default_sandbox_prompt (void)
{
  g_autoptr (AgentsScriptedModel) model = model_final ("done");
  g_autoptr (AgentsCapability) capability =
    fake_recording_capability_new ("Capability instructions.", NULL, NULL);
  g_autoptr (AgentsManifest) empty = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (empty);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent ("sandbox", model, "Additional instructions.");
  g_autoptr (AgentsRunConfig) config = sandbox_run_config (client);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *expected = NULL;

  agents_sandbox_agent_set_base_instructions (agent,
                                              "Custom base instructions.");
  set_capability (agent, capability);

  result = run_text (runner, agent, "hello", config, &error);
  g_assert_no_error (error);

  assert_final (result, "done");
  expected = expected_prompt (
    "Custom base instructions.", "Additional instructions.",
    "Capability instructions.",
    agents_sandbox_session_get_manifest (AGENTS_SANDBOX_SESSION (session)));
  g_assert_cmpstr (first_system_instructions (model), ==, expected);
}

/* ---- Remote mount policy ----------------------------------------------- */

/* Runs an agent with instructions "Base instructions." and @manifest as
 * default manifest; returns the model's first system instructions. */
static char *
run_with_manifest (AgentsManifest *manifest)
{
  g_autoptr (AgentsScriptedModel) model = model_final ("done");
  g_autoptr (FakeSession) session = fake_session_new (manifest);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent ("sandbox", model, "Base instructions.");
  g_autoptr (AgentsRunConfig) config = sandbox_run_config (client);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  const char *text;

  agents_sandbox_agent_set_default_manifest (agent, manifest);

  result = run_text (runner, agent, "hello", config, &error);
  g_assert_no_error (error);

  assert_final (result, "done");
  text = first_system_instructions (model);
  g_assert_nonnull (text);
  return g_strdup (text);
}

static char *
replace_all (const char *text, const char *from, const char *to)
{
  g_auto (GStrv) parts = g_strsplit (text, from, -1);

  return g_strjoinv (to, parts);
}

static gsize
index_of (const char *haystack, const char *needle)
{
  const char *found = strstr (haystack, needle);

  g_assert_nonnull (found);
  return found - haystack;
}

static void
test_runner_adds_remote_mount_policy_instructions (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsManifestEntry) mount = new_s3_mount ("bucket");
  g_autoptr (GString) allowlist = g_string_new (NULL);
  g_autofree char *with_paths = NULL;
  g_autofree char *with_allowlist = NULL;
  g_autofree char *expected_policy = NULL;
  g_autofree char *system_instructions = NULL;
  const char *const *commands;
  gsize agent_index, capability_index, remote_policy_index, filesystem_index;

  agents_manifest_set_entry (manifest, "remote", mount);
  commands = agents_manifest_get_remote_mount_command_allowlist (manifest);
  for (guint i = 0; commands != NULL && commands[i] != NULL; i++)
    g_string_append_printf (allowlist, "%s`%s`", i > 0 ? ", " : "",
                            commands[i]);

  system_instructions = run_with_manifest (manifest);

  /* re.search of the escaped template with its placeholders replaced is
   * a substring search. */
  with_paths = replace_all (agents_sandbox_get_remote_mount_policy_template (),
                            "{path_lines}",
                            "- /workspace/remote (mounted in read-only mode)");
  with_allowlist = replace_all (
    with_paths, "{REMOTE_MOUNT_COMMAND_ALLOWLIST_TEXT}", allowlist->str);
  expected_policy = replace_all (
    with_allowlist, "{edit_instructions}",
    "Do not edit paths marked read-only in place, including with "
    "`apply_patch`, and do not write edited files back to them. Copy "
    "read-only files to a normal local workspace path only if you need an "
    "editable scratch copy.");
  g_assert_nonnull (strstr (system_instructions, expected_policy));

  agent_index = index_of (system_instructions, "# Agent instructions");
  capability_index =
    index_of (system_instructions, "# Sandbox capability instructions");
  remote_policy_index =
    index_of (system_instructions, "# Sandbox remote mount policy");
  filesystem_index = index_of (system_instructions, "# Filesystem");
  g_assert_cmpuint (agent_index, <, capability_index);
  g_assert_cmpuint (capability_index, <, remote_policy_index);
  g_assert_cmpuint (remote_policy_index, <, filesystem_index);
}

static void
test_runner_adds_remote_mount_policy_for_non_ephemeral_mounts (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsManifestEntry) mount = new_s3_mount ("bucket");
  g_autofree char *system_instructions = NULL;

  agents_manifest_entry_set_ephemeral (mount, FALSE);
  agents_manifest_set_entry (manifest, "remote", mount);

  system_instructions = run_with_manifest (manifest);

  g_assert_nonnull (strstr (system_instructions,
                            "- /workspace/remote (mounted in read-only mode)"));
}

static void
test_runner_marks_writable_remote_mounts_in_policy (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsManifestEntry) mount = new_s3_mount ("bucket");
  g_autofree char *system_instructions = NULL;

  agents_mount_set_read_only (AGENTS_MOUNT (mount), FALSE);
  agents_manifest_set_entry (manifest, "remote", mount);

  system_instructions = run_with_manifest (manifest);

  g_assert_nonnull (strstr (
    system_instructions, "- /workspace/remote (mounted in read+write mode)"));
  g_assert_nonnull (
    strstr (system_instructions,
            "Use `apply_patch` directly for text edits on read+write mounts."));
  g_assert_nonnull (strstr (
    system_instructions,
    "For shell-based edits on read+write mounts, first `cp` the mounted file "
    "to a normal local workspace path, edit the local copy there, then copy "
    "it back."));
}

static void
test_runner_uses_manifest_remote_mount_command_allowlist_override (void)
{
  static const char *const commands[] = { "ls", "cp", NULL };
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsManifestEntry) mount = new_s3_mount ("bucket");
  g_autofree char *system_instructions = NULL;

  agents_manifest_set_entry (manifest, "remote", mount);
  agents_manifest_set_remote_mount_command_allowlist (manifest, commands);

  system_instructions = run_with_manifest (manifest);

  g_assert_nonnull (
    strstr (system_instructions, "Only use these commands on remote mounts:"));
  g_assert_nonnull (strstr (system_instructions, "`ls`, `cp`"));
}

/* ---- Capabilities, input and model settings ----------------------------- */

static JsonObject *
message_item (const char *role, const char *content)
{
  JsonObject *item = json_object_new ();

  json_object_set_string_member (item, "type", "message");
  json_object_set_string_member (item, "role", role);
  json_object_set_string_member (item, "content", content);
  return item;
}

static void
test_runner_applies_compaction_capability_to_input_and_model_settings (void)
{
  g_autoptr (AgentsScriptedModel) model = model_final ("done");
  g_autoptr (AgentsManifest) empty = agents_manifest_new ();
  g_autoptr (AgentsManifest) default_manifest = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (empty);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsCapability) compaction =
    agents_compaction_capability_new_static (123);
  g_autoptr (AgentsSandboxAgent) agent = sandbox_agent ("sandbox", model, NULL);
  g_autoptr (AgentsRunConfig) config = sandbox_run_config (client);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (JsonArray) input_items = json_array_new ();
  g_autoptr (JsonArray) expected_input = json_array_new ();
  g_autoptr (JsonNode) input = NULL;
  g_autoptr (JsonNode) expected_input_node = NULL;
  g_autoptr (JsonNode) actual_input_node = NULL;
  g_autoptr (JsonNode) expected_extra = NULL;
  g_autoptr (JsonNode) actual_extra = NULL;
  g_autoptr (GError) error = NULL;
  AgentsModelRequest *request;
  AgentsModelSettings *settings;
  JsonObject *compaction_item = json_object_new ();

  agents_sandbox_agent_set_default_manifest (agent, default_manifest);
  set_capability (agent, compaction);

  json_object_set_string_member (compaction_item, "type", "compaction");
  json_object_set_string_member (compaction_item, "summary",
                                 "compacted-up-to-here");
  json_array_add_object_element (input_items,
                                 message_item ("user", "old-user"));
  json_array_add_object_element (input_items, compaction_item);
  json_array_add_object_element (
    input_items, message_item ("assistant", "recent-assistant"));
  json_array_add_object_element (input_items,
                                 message_item ("user", "new-user"));
  for (guint i = 1; i < json_array_get_length (input_items); i++)
    json_array_add_element (
      expected_input, json_node_copy (json_array_get_element (input_items, i)));
  input = json_node_init_array (json_node_alloc (), input_items);

  result = run_node (runner, agent, input, config, NULL, &error);
  g_assert_no_error (error);

  assert_final (result, "done");
  request = first_turn_args (model);
  expected_input_node =
    json_node_init_array (json_node_alloc (), expected_input);
  actual_input_node = json_node_init_array (
    json_node_alloc (), agents_model_request_get_input (request));
  g_assert_true (json_node_equal (actual_input_node, expected_input_node));

  settings = agents_model_request_get_model_settings (request);
  g_assert_true (AGENTS_IS_MODEL_SETTINGS (settings));
  g_assert_nonnull (agents_model_settings_get_extra_args (settings));
  expected_extra =
    json_from_string ("{\"context_management\": [{\"type\": \"compaction\", "
                      "\"compact_threshold\": 123}]}",
                      NULL);
  actual_extra = json_node_init_object (
    json_node_alloc (), agents_model_settings_get_extra_args (settings));
  g_assert_true (json_node_equal (actual_extra, expected_extra));
}

/* ---- Run config, lifecycle of sessions ---------------------------------- */

static void
test_runner_requires_sandbox_config_for_sandbox_agent (void)
{
  g_autoptr (AgentsScriptedModel) model = model_final ("done");
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent ("sandbox", model, "Base instructions.");
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;

  result = run_text (runner, agent, "hello", NULL, &error);

  g_assert_null (result);
  g_assert_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_USER_ERROR);
  g_assert_true (
    g_regex_match_simple ("RunConfig\\(sandbox=.*\\)", error->message, 0, 0));
}

static void
test_runner_streamed_cleans_runner_owned_session (void)
{
  g_autoptr (AgentsScriptedModel) model = model_final ("done");
  g_autoptr (AgentsManifest) empty = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (empty);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent ("sandbox", model, "Base instructions.");
  g_autoptr (AgentsRunConfig) config = sandbox_run_config (client);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResultStreaming) result = NULL;
  g_autoptr (GPtrArray) events = NULL;
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (GError) error = NULL;

  result = run_streamed (runner, agent, "hello", config);
  events = stream_all (result, &error);
  g_assert_no_error (error);

  g_assert_cmpuint (events->len, >, 0);
  assert_streamed_final (result, "done");
  g_assert_cmpuint (session->start_calls, ==, 1);
  g_assert_cmpuint (session->stop_calls, ==, 1);
  g_assert_cmpuint (session->shutdown_calls, ==, 1);
  g_assert_cmpuint (session->close_dependency_calls, ==, 1);
  g_assert_cmpuint (client->delete_calls, ==, 1);

  state = agents_run_result_streaming_to_state (result);
  assert_fake_payload (state, "sandbox");
}

static void
assert_session_untouched (FakeSession *session, FakeClient *client)
{
  if (client != NULL)
    g_assert_false (client->created);
  g_assert_cmpuint (session->start_calls, ==, 0);
  g_assert_cmpuint (session->stop_calls, ==, 0);
  g_assert_cmpuint (session->shutdown_calls, ==, 0);
  g_assert_cmpuint (session->close_dependency_calls, ==, 0);
}

static void
test_runner_streamed_guardrail_trip_blocks_runner_owned_sandbox_creation (void)
{
  g_autoptr (AgentsScriptedModel) model = model_final ("done");
  g_autoptr (AgentsManifest) empty = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (empty);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent ("sandbox", model, "Base instructions.");
  g_autoptr (AgentsRunConfig) config = sandbox_run_config (client);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResultStreaming) result = NULL;
  g_autoptr (GPtrArray) events = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) run_error = NULL;

  add_blocking_tripwire (agent);

  result = run_streamed (runner, agent, "hello", config);
  events = stream_all (result, &error);
  g_assert_error (error, AGENTS_RUN_ERROR,
                  AGENTS_RUN_ERROR_INPUT_GUARDRAIL_TRIPWIRE);

  assert_session_untouched (session, client);

  /* Nothing happens later either. */
  g_assert_false (wait_run (result, &run_error));
  assert_session_untouched (session, client);
}

static void
test_runner_does_not_close_injected_sandbox_session (void)
{
  g_autoptr (AgentsScriptedModel) model = model_final ("done");
  g_autoptr (AgentsManifest) default_manifest =
    manifest_with_file ("default.txt", "default");
  g_autoptr (AgentsManifest) session_manifest =
    manifest_with_file ("session.txt", "session");
  g_autoptr (AgentsManifest) override_manifest =
    manifest_with_file ("override.txt", "override");
  g_autoptr (FakeSession) injected_session =
    fake_session_new (session_manifest);
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent ("sandbox", model, "Base instructions.");
  g_autoptr (AgentsRunConfig) config =
    injected_run_config (injected_session, override_manifest);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;

  agents_sandbox_agent_set_default_manifest (agent, default_manifest);

  result = run_text (runner, agent, "hello", config, &error);
  g_assert_no_error (error);

  assert_final (result, "done");
  g_assert_cmpuint (injected_session->start_calls, ==, 1);
  g_assert_cmpuint (injected_session->stop_calls, ==, 0);
  g_assert_cmpuint (injected_session->shutdown_calls, ==, 0);
  g_assert_cmpuint (injected_session->close_dependency_calls, ==, 0);

  g_assert_nonnull (agents_model_request_get_input (first_turn_args (model)));
  g_assert_true (
    agents_manifest_entries_equal (agents_sandbox_session_get_manifest (
                                     AGENTS_SANDBOX_SESSION (injected_session)),
                                   session_manifest));
}

static void
test_runner_does_not_restart_running_injected_sandbox_session (void)
{
  g_autoptr (AgentsScriptedModel) model = model_final ("done");
  g_autoptr (AgentsManifest) session_manifest =
    manifest_with_file ("session.txt", "session");
  g_autoptr (FakeSession) injected_session =
    fake_session_new (session_manifest);
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent ("sandbox", model, "Base instructions.");
  g_autoptr (AgentsRunConfig) config =
    injected_run_config (injected_session, NULL);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;

  injected_session->running = TRUE;

  result = run_text (runner, agent, "hello", config, &error);
  g_assert_no_error (error);

  assert_final (result, "done");
  g_assert_cmpuint (injected_session->start_calls, ==, 0);
  g_assert_cmpuint (injected_session->stop_calls, ==, 0);
  g_assert_cmpuint (injected_session->shutdown_calls, ==, 0);
}

static void
test_runner_guardrail_trip_blocks_runner_owned_sandbox_creation (void)
{
  g_autoptr (AgentsScriptedModel) model = model_final ("done");
  g_autoptr (AgentsManifest) empty = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (empty);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent ("sandbox", model, "Base instructions.");
  g_autoptr (AgentsRunConfig) config = sandbox_run_config (client);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;

  add_blocking_tripwire (agent);

  result = run_text (runner, agent, "hello", config, &error);
  g_assert_null (result);
  g_assert_error (error, AGENTS_RUN_ERROR,
                  AGENTS_RUN_ERROR_INPUT_GUARDRAIL_TRIPWIRE);

  assert_session_untouched (session, client);
}

/* _LiveSessionDeltaRecorder(Manifest()) with _running = True */
static FakeSession *
running_delta_recorder (void)
{
  g_autoptr (AgentsManifest) empty = agents_manifest_new ();
  FakeSession *session = fake_session_new (empty);

  session->delta_recorder = TRUE;
  session->running = TRUE;
  return session;
}

static AgentsSandboxAgent *
mutating_tripwire_agent (void)
{
  g_autoptr (AgentsScriptedModel) model = model_final ("done");
  g_autoptr (AgentsCapability) mutation =
    fake_capability_new (FAKE_CAPABILITY_MANIFEST_MUTATION);
  AgentsSandboxAgent *agent =
    sandbox_agent ("sandbox", model, "Base instructions.");

  set_capability (agent, mutation);
  add_blocking_tripwire (agent);
  return agent;
}

static void
assert_live_session_unmutated (FakeSession *live_session)
{
  AgentsManifest *manifest =
    agents_sandbox_session_get_manifest (AGENTS_SANDBOX_SESSION (live_session));

  g_assert_null (agents_manifest_get_entry (manifest, "cap.txt"));
  g_assert_cmpuint (live_session->start_calls, ==, 0);
  g_assert_cmpuint (live_session->applied_entry_batches->len, ==, 0);
  g_assert_cmpuint (live_session->stop_calls, ==, 0);
  g_assert_cmpuint (live_session->shutdown_calls, ==, 0);
}

static void
test_runner_guardrail_trip_blocks_running_injected_session_mutation (void)
{
  g_autoptr (FakeSession) live_session = running_delta_recorder ();
  g_autoptr (AgentsSandboxAgent) agent = mutating_tripwire_agent ();
  g_autoptr (AgentsRunConfig) config = injected_run_config (live_session, NULL);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;

  result = run_text (runner, agent, "hello", config, &error);
  g_assert_null (result);
  g_assert_error (error, AGENTS_RUN_ERROR,
                  AGENTS_RUN_ERROR_INPUT_GUARDRAIL_TRIPWIRE);

  assert_live_session_unmutated (live_session);
}

static void
test_runner_streamed_guardrail_trip_blocks_running_injected_session_mutation (
  void)
{
  g_autoptr (FakeSession) live_session = running_delta_recorder ();
  g_autoptr (AgentsSandboxAgent) agent = mutating_tripwire_agent ();
  g_autoptr (AgentsRunConfig) config = injected_run_config (live_session, NULL);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResultStreaming) result = NULL;
  g_autoptr (GPtrArray) events = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) run_error = NULL;

  result = run_streamed (runner, agent, "hello", config);
  events = stream_all (result, &error);
  g_assert_error (error, AGENTS_RUN_ERROR,
                  AGENTS_RUN_ERROR_INPUT_GUARDRAIL_TRIPWIRE);

  assert_live_session_unmutated (live_session);

  g_assert_false (wait_run (result, &run_error));
  assert_live_session_unmutated (live_session);
}

/* ---- Public agent identity ---------------------------------------------- */

typedef struct
{
  GPtrArray *seen; /* agents, not referenced */
  gpointer public_agent;
} SeenAgents;

static char *
record_dynamic_instructions (AgentsRunContext *ctx,
                             AgentsAgent *current_agent,
                             gpointer user_data)
{
  SeenAgents *seen = user_data;

  g_ptr_array_add (seen->seen, current_agent);
  return g_strdup ((gpointer) current_agent == seen->public_agent
                     ? "Saw public agent."
                     : "Saw execution clone.");
}

static void
test_runner_uses_public_sandbox_agent_for_dynamic_instructions (void)
{
  g_autoptr (AgentsScriptedModel) model = model_final ("done");
  g_autoptr (AgentsManifest) empty = agents_manifest_new ();
  g_autoptr (AgentsManifest) expected_manifest = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (empty);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsTool) capability_tool =
    agents_testing_function_tool ("capability_tool", "ok");
  g_autoptr (AgentsCapability) capability = fake_recording_capability_new (
    "Capability instructions.", capability_tool, NULL);
  g_autoptr (AgentsSandboxAgent) agent = sandbox_agent ("sandbox", model, NULL);
  g_autoptr (AgentsRunConfig) config = sandbox_run_config (client);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GPtrArray) seen_agents = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *expected = NULL;
  SeenAgents seen = { seen_agents, agent };

  agents_agent_set_instructions_func (AGENTS_AGENT (agent),
                                      record_dynamic_instructions, &seen, NULL);
  set_capability (agent, capability);

  result = run_text (runner, agent, "hello", config, &error);
  g_assert_no_error (error);

  assert_final (result, "done");
  assert_seen (seen_agents, agent, NULL);
  expected = expected_prompt (default_instructions (), "Saw public agent.",
                              "Capability instructions.", expected_manifest);
  g_assert_cmpstr (first_system_instructions (model), ==, expected);
}

static JsonObject *
record_dynamic_prompt (AgentsRunContext *ctx,
                       AgentsAgent *agent,
                       gpointer user_data)
{
  GPtrArray *seen_agents = user_data;
  JsonObject *prompt = json_object_new ();
  JsonObject *variables = json_object_new ();

  g_ptr_array_add (seen_agents, agent);
  json_object_set_string_member (variables, "agent_name",
                                 agents_agent_get_name (agent));
  json_object_set_string_member (prompt, "id", "prompt_test");
  json_object_set_object_member (prompt, "variables", variables);
  return prompt;
}

/* A SandboxAgent with "Base instructions.", a recording capability with
 * "Capability instructions." and a scripted final output. */
static AgentsSandboxAgent *
recording_agent (const char *name, AgentsScriptedModel *model)
{
  g_autoptr (AgentsCapability) capability =
    fake_recording_capability_new ("Capability instructions.", NULL, NULL);
  AgentsSandboxAgent *agent = sandbox_agent (name, model, "Base instructions.");

  set_capability (agent, capability);
  return agent;
}

/* _sandbox_run_config(_FakeClient(_FakeSession(Manifest()))) */
static AgentsRunConfig *
fresh_fake_run_config (void)
{
  g_autoptr (AgentsManifest) empty = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (empty);
  g_autoptr (FakeClient) client = fake_client_new (session);

  return sandbox_run_config (client);
}

static void
test_runner_uses_public_sandbox_agent_for_dynamic_prompts (void)
{
  g_autoptr (AgentsScriptedModel) model = model_final ("done");
  g_autoptr (AgentsScriptedModel) streamed_model =
    model_final ("streamed done");
  g_autoptr (AgentsSandboxAgent) agent = recording_agent ("sandbox", model);
  g_autoptr (AgentsSandboxAgent) streamed_agent =
    recording_agent ("streamed-sandbox", streamed_model);
  g_autoptr (AgentsRunConfig) config = fresh_fake_run_config ();
  g_autoptr (AgentsRunConfig) streamed_config = fresh_fake_run_config ();
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (AgentsRunResultStreaming) streamed = NULL;
  g_autoptr (GPtrArray) events = NULL;
  g_autoptr (GPtrArray) seen_agents = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;

  agents_agent_set_prompt_func (AGENTS_AGENT (agent), record_dynamic_prompt,
                                seen_agents, NULL);
  agents_agent_set_prompt_func (AGENTS_AGENT (streamed_agent),
                                record_dynamic_prompt, seen_agents, NULL);

  result = run_text (runner, agent, "hello", config, &error);
  g_assert_no_error (error);

  assert_final (result, "done");
  assert_seen (seen_agents, agent, NULL);

  streamed = run_streamed (runner, streamed_agent, "hello", streamed_config);
  events = stream_all (streamed, &error);
  g_assert_no_error (error);

  assert_streamed_final (streamed, "streamed done");
  assert_seen (seen_agents, agent, streamed_agent, NULL);
}

static AgentsModelInputData *
capture_model_input (AgentsCallModelData *data, gpointer user_data)
{
  GPtrArray *seen_agents = user_data;

  g_ptr_array_add (seen_agents, agents_call_model_data_get_agent (data));
  return agents_model_input_data_ref (
    agents_call_model_data_get_model_data (data));
}

static void
test_runner_uses_public_agent_for_call_model_input_filter (void)
{
  g_autoptr (AgentsScriptedModel) model = model_final ("done");
  g_autoptr (AgentsSandboxAgent) agent = recording_agent ("sandbox", model);
  g_autoptr (AgentsRunConfig) config = fresh_fake_run_config ();
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GPtrArray) seen_agents = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;

  agents_run_config_set_call_model_input_filter (config, capture_model_input,
                                                 seen_agents, NULL);

  result = run_text (runner, agent, "hello", config, &error);
  g_assert_no_error (error);

  assert_final (result, "done");
  assert_seen (seen_agents, agent, NULL);
}

static void
test_runner_streamed_uses_public_agent_for_call_model_input_filter (void)
{
  g_autoptr (AgentsScriptedModel) model = model_final ("done");
  g_autoptr (AgentsSandboxAgent) agent = recording_agent ("sandbox", model);
  g_autoptr (AgentsRunConfig) config = fresh_fake_run_config ();
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResultStreaming) result = NULL;
  g_autoptr (GPtrArray) events = NULL;
  g_autoptr (GPtrArray) seen_agents = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;

  agents_run_config_set_call_model_input_filter (config, capture_model_input,
                                                 seen_agents, NULL);

  result = run_streamed (runner, agent, "hello", config);
  events = stream_all (result, &error);
  g_assert_no_error (error);

  g_assert_cmpuint (events->len, >, 0);
  assert_streamed_final (result, "done");
  assert_seen (seen_agents, agent, NULL);
}

static void
test_runner_reuses_prepared_sandbox_agent_across_turns_for_tool_choice_reset (
  void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsTool) tool =
    agents_testing_function_tool ("capability_tool", "ok");
  g_autoptr (AgentsManifest) empty = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (empty);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent ("sandbox", model, "Base instructions.");
  g_autoptr (AgentsModelSettings) settings = agents_model_settings_new ();
  g_autoptr (AgentsRunConfig) config = sandbox_run_config (client);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  AgentsModelRequest *last;

  add_turns (
    model,
    turn1 (agents_testing_function_tool_call ("capability_tool", "{}", NULL)),
    turn1 (agents_testing_final_output_message ("done")), NULL);
  agents_agent_add_tool (AGENTS_AGENT (agent), tool);
  agents_model_settings_set_tool_choice (settings, "required");
  agents_agent_set_model_settings (AGENTS_AGENT (agent), settings);

  result = run_text (runner, agent, "hello", config, &error);
  g_assert_no_error (error);

  assert_final (result, "done");
  g_assert_cmpstr (
    agents_model_settings_get_tool_choice (
      agents_model_request_get_model_settings (first_turn_args (model))),
    ==, "required");
  last = agents_scripted_model_get_last_turn_args (model);
  g_assert_nonnull (last);
  g_assert_null (agents_model_settings_get_tool_choice (
    agents_model_request_get_model_settings (last)));
}

/* ---- Handoffs ----------------------------------------------------------- */

/* The reference's triage → worker pair over _ManifestSessionClient, each
 * with a _ManifestInstructionsCapability. */
typedef struct
{
  AgentsScriptedModel *triage_model;
  AgentsScriptedModel *worker_model;
  FakeManifestClient *client;
  AgentsManifest *triage_manifest;
  AgentsManifest *worker_manifest;
  AgentsSandboxAgent *worker;
  AgentsSandboxAgent *triage;
} HandoffPair;

static void
handoff_pair_init (HandoffPair *pair)
{
  g_autoptr (AgentsCapability) worker_capability =
    fake_capability_new (FAKE_CAPABILITY_MANIFEST_INSTRUCTIONS);
  g_autoptr (AgentsCapability) triage_capability =
    fake_capability_new (FAKE_CAPABILITY_MANIFEST_INSTRUCTIONS);

  pair->triage_model = agents_scripted_model_new ();
  pair->worker_model = model_final ("done");
  pair->client = fake_manifest_client_new ();
  pair->triage_manifest = manifest_with_file ("README.md", "Triage workspace");
  pair->worker_manifest = manifest_with_file ("README.md", "Worker workspace");
  pair->worker =
    sandbox_agent ("worker", pair->worker_model, "Worker instructions.");
  agents_sandbox_agent_set_default_manifest (pair->worker,
                                             pair->worker_manifest);
  set_capability (pair->worker, worker_capability);
  pair->triage =
    sandbox_agent ("triage", pair->triage_model, "Triage instructions.");
  agents_sandbox_agent_set_default_manifest (pair->triage,
                                             pair->triage_manifest);
  set_capability (pair->triage, triage_capability);
  agents_agent_add_handoff (AGENTS_AGENT (pair->triage),
                            G_OBJECT (pair->worker));
}

static void
handoff_pair_clear (HandoffPair *pair)
{
  g_clear_object (&pair->triage_model);
  g_clear_object (&pair->worker_model);
  g_clear_object (&pair->client);
  g_clear_object (&pair->triage_manifest);
  g_clear_object (&pair->worker_manifest);
  g_clear_object (&pair->worker);
  g_clear_object (&pair->triage);
}

/* RunConfig(sandbox=SandboxRunConfig(client=client)) */
static AgentsRunConfig *
client_only_run_config (AgentsSandboxClient *client)
{
  g_autoptr (AgentsSandboxRunConfig) sandbox = agents_sandbox_run_config_new ();

  agents_sandbox_run_config_set_client (sandbox, client);
  return run_config_with (sandbox);
}

static void
assert_worker_prompt (HandoffPair *pair)
{
  g_autofree char *expected =
    expected_prompt (default_instructions (), "Worker instructions.",
                     "Worker workspace", pair->worker_manifest);

  g_assert_cmpstr (first_system_instructions (pair->worker_model), ==,
                   expected);
}

static void
test_runner_rebuilds_sandbox_resources_for_handoff_target_agent (void)
{
  HandoffPair pair = { 0 };
  g_autoptr (GPtrArray) turns =
    g_ptr_array_new_with_free_func ((GDestroyNotify) json_array_unref);
  g_autoptr (AgentsRunConfig) config = NULL;
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  GPtrArray *created;

  handoff_pair_init (&pair);
  config = client_only_run_config (AGENTS_SANDBOX_CLIENT (pair.client));
  g_ptr_array_add (turns, turn1 (agents_testing_handoff_tool_call (
                            AGENTS_AGENT (pair.worker))));
  agents_scripted_model_set_turn_outputs (pair.triage_model, turns);

  result = run_text (runner, pair.triage, "route this", config, &error);
  g_assert_no_error (error);

  assert_final (result, "done");
  created = pair.client->created_manifests;
  g_assert_cmpuint (created->len, ==, 2);
  g_assert_nonnull (created->pdata[0]);
  g_assert_nonnull (created->pdata[1]);
  g_assert_false (agents_manifest_entry_equal (
    agents_manifest_get_entry (created->pdata[0], "README.md"),
    agents_manifest_get_entry (created->pdata[1], "README.md")));
  assert_worker_prompt (&pair);

  handoff_pair_clear (&pair);
}

static void
test_runner_resumed_handoff_materializes_manifest_for_new_sandbox_agent (void)
{
  HandoffPair pair = { 0 };
  g_autoptr (AgentsTool) approval_tool = approval_tool_new ();
  g_autoptr (AgentsRunConfig) config = NULL;
  g_autoptr (AgentsRunConfig) resume_config = NULL;
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) first_run = NULL;
  g_autoptr (AgentsRunResult) resumed = NULL;
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (GError) error = NULL;
  GListModel *interruptions;

  handoff_pair_init (&pair);
  agents_agent_add_tool (AGENTS_AGENT (pair.triage), approval_tool);
  add_turns (
    pair.triage_model,
    turn1 (
      agents_testing_function_tool_call ("approval_tool", "{}", "call_resume")),
    turn1 (agents_testing_handoff_tool_call (AGENTS_AGENT (pair.worker))),
    NULL);
  config = client_only_run_config (AGENTS_SANDBOX_CLIENT (pair.client));
  resume_config = client_only_run_config (AGENTS_SANDBOX_CLIENT (pair.client));

  first_run = run_text (runner, pair.triage, "route this", config, &error);
  g_assert_no_error (error);

  interruptions = agents_run_result_get_interruptions (first_run);
  g_assert_cmpuint (g_list_model_get_n_items (interruptions), ==, 1);
  state = agents_run_result_to_state (first_run);
  agents_run_state_approve (state, item_at (interruptions, 0), FALSE);

  resumed = resume_run (runner, pair.triage, state, resume_config, &error);
  g_assert_no_error (error);

  assert_final (resumed, "done");
  g_assert_cmpuint (pair.client->created_manifests->len, ==, 2);
  g_assert_nonnull (pair.client->created_manifests->pdata[1]);
  assert_worker_prompt (&pair);

  handoff_pair_clear (&pair);
}

/* ---- Cleanup ------------------------------------------------------------ */

/* _FailingStopSession(Manifest()) */
static FakeSession *
failing_stop_session (void)
{
  g_autoptr (AgentsManifest) empty = agents_manifest_new ();
  FakeSession *session = fake_session_new (empty);

  session->fail_stop = TRUE;
  return session;
}

static void
test_runner_streamed_ignores_sandbox_cleanup_failures_after_success (void)
{
  g_autoptr (FakeSession) session = failing_stop_session ();
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsScriptedModel) model = model_final ("done");
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent ("sandbox", model, "Base instructions.");
  g_autoptr (AgentsRunConfig) config = sandbox_run_config (client);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResultStreaming) result = NULL;
  g_autoptr (GPtrArray) events = NULL;
  g_autoptr (GError) error = NULL;

  result = run_streamed (runner, agent, "hello", config);
  events = stream_all (result, &error);
  g_assert_no_error (error);

  g_assert_cmpuint (events->len, >, 0);
  assert_streamed_final (result, "done");
  g_assert_null (agents_run_private_result_get_sandbox_session (
    agents_run_result_streaming_get_result (result)));
}

static void
test_runner_omits_sandbox_resume_state_when_cleanup_fails (void)
{
  g_autoptr (FakeSession) session = failing_stop_session ();
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsScriptedModel) model = model_final ("done");
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent ("sandbox", model, "Base instructions.");
  g_autoptr (AgentsRunConfig) config = sandbox_run_config (client);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (GError) error = NULL;

  result = run_text (runner, agent, "hello", config, &error);
  g_assert_no_error (error);
  state = agents_run_result_to_state (result);

  assert_final (result, "done");
  g_assert_null (agents_run_private_result_get_sandbox_resume_state (result));
  g_assert_null (agents_run_private_result_get_sandbox_session (result));
  g_assert_null (agents_run_state_get_sandbox (state));
}

/* The run's outcome stands, but the result says why its workspace was
 * not saved (issue 15, finding 3): a program saving the state can refuse
 * to save one that would resume empty. */
static void
test_runner_reports_sandbox_cleanup_failure (void)
{
  g_autoptr (FakeSession) session = failing_stop_session ();
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsScriptedModel) model = model_final ("done");
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent ("sandbox", model, "Base instructions.");
  g_autoptr (AgentsRunConfig) config = sandbox_run_config (client);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  const GError *sandbox_error;

  result = run_text (runner, agent, "hello", config, &error);
  g_assert_no_error (error);

  assert_final (result, "done");
  sandbox_error = agents_run_result_get_sandbox_error (result);
  g_assert_nonnull (sandbox_error);
  g_assert_cmpstr (sandbox_error->message, !=, "");
}

static void
test_runner_reports_no_sandbox_error_after_clean_close (void)
{
  g_autoptr (AgentsManifest) empty = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (empty);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsScriptedModel) model = model_final ("done");
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent ("sandbox", model, "Base instructions.");
  g_autoptr (AgentsRunConfig) config = sandbox_run_config (client);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;

  result = run_text (runner, agent, "hello", config, &error);
  g_assert_no_error (error);
  g_assert_null (agents_run_result_get_sandbox_error (result));
}

static void
test_runner_clears_sandbox_session_from_non_streamed_results_after_cleanup (
  void)
{
  g_autoptr (AgentsManifest) empty = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (empty);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsScriptedModel) model = model_final ("done");
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent ("sandbox", model, "Base instructions.");
  g_autoptr (AgentsRunConfig) config = sandbox_run_config (client);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;

  result = run_text (runner, agent, "hello", config, &error);
  g_assert_no_error (error);

  assert_final (result, "done");
  g_assert_null (agents_run_private_result_get_sandbox_session (result));
}

static void
test_runner_streamed_cleans_sandbox_once_after_stream_completion (void)
{
  g_autoptr (AgentsManifest) empty = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (empty);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsScriptedModel) model = model_final ("done");
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent ("sandbox", model, "Base instructions.");
  g_autoptr (AgentsRunConfig) config = sandbox_run_config (client);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResultStreaming) result = NULL;
  g_autoptr (GPtrArray) events = NULL;
  g_autoptr (GError) error = NULL;

  result = run_streamed (runner, agent, "hello", config);
  events = stream_all (result, &error);
  g_assert_no_error (error);
  /* await asyncio.sleep(0) */
  g_main_context_iteration (NULL, FALSE);

  g_assert_cmpuint (events->len, >, 0);
  assert_streamed_final (result, "done");
  g_assert_null (agents_run_private_result_get_sandbox_session (
    agents_run_result_streaming_get_result (result)));
  g_assert_cmpuint (session->stop_calls, ==, 1);
  g_assert_cmpuint (session->shutdown_calls, ==, 1);
  g_assert_cmpuint (session->close_dependency_calls, ==, 1);
  g_assert_cmpuint (client->delete_calls, ==, 1);
}

static AgentsGuardrailResult *
record_output_guardrail (AgentsRunContext *ctx,
                         AgentsAgent *guardrail_agent,
                         JsonNode *output,
                         gpointer user_data)
{
  g_ptr_array_add (user_data, guardrail_agent);
  return agents_guardrail_result_new (NULL, FALSE);
}

static void
test_runner_uses_public_agent_for_non_streaming_output_guardrails (void)
{
  g_autoptr (AgentsScriptedModel) model = model_final ("done");
  g_autoptr (AgentsSandboxAgent) agent = recording_agent ("sandbox", model);
  g_autoptr (AgentsRunConfig) config = fresh_fake_run_config ();
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GPtrArray) seen_agents = g_ptr_array_new ();
  g_autoptr (AgentsOutputGuardrail) guardrail = agents_output_guardrail_new (
    "output_guardrail", record_output_guardrail, seen_agents, NULL);
  g_autoptr (GError) error = NULL;

  agents_agent_add_output_guardrail (AGENTS_AGENT (agent), guardrail);

  result = run_text (runner, agent, "hello", config, &error);
  g_assert_no_error (error);

  assert_final (result, "done");
  assert_seen (seen_agents, agent, NULL);
}

static void
test_runner_streamed_immediate_cancel_skips_waiting_for_sandbox_cleanup (void)
{
  g_autoptr (FakeGate) stop_gate = fake_gate_new ();
  g_autoptr (AgentsManifest) empty = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (empty);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsScriptedModel) model = model_final ("done");
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent ("sandbox", model, "Base instructions.");
  g_autoptr (AgentsRunConfig) config = sandbox_run_config (client);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResultStreaming) result = NULL;
  g_autoptr (AgentsStreamEvent) first = NULL;
  g_autoptr (AgentsStreamEvent) after_cancel = NULL;
  g_autoptr (GError) error = NULL;
  gint64 start;

  /* _BlockingStopSession(Manifest(), stop_gate) */
  session->stop_gate = g_object_ref (G_OBJECT (stop_gate));

  result = run_streamed (runner, agent, "hello", config);

  /* asyncio.wait_for (consume_with_cancel (), timeout=0.2): the first
   * event, cancel (mode="immediate"), and the stream is over. */
  start = g_get_monotonic_time ();
  first = next_event (result, &error);
  g_assert_no_error (error);
  g_assert_nonnull (first);
  agents_run_result_streaming_cancel (result, AGENTS_CANCEL_MODE_IMMEDIATE);
  after_cancel = next_event (result, &error);
  g_assert_no_error (error);
  g_assert_null (after_cancel);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 200 * 1000);

  /* finally: stop_gate.set (); await asyncio.sleep (0) */
  fake_gate_open (stop_gate);
  spin_pending ();
  /* Let the unawaited cleanup end before the objects go (not asserted:
   * the reference does not look at it). */
  {
    gint64 deadline = g_get_monotonic_time () + G_USEC_PER_SEC;

    while (client->delete_calls == 0 && g_get_monotonic_time () < deadline)
      g_main_context_iteration (NULL, FALSE);
  }
}

static void
test_runner_streamed_run_loop_task_waits_for_sandbox_cleanup_and_persisted_state (
  void)
{
  g_autoptr (FakeGate) stop_gate = fake_gate_new ();
  g_autoptr (AgentsManifest) empty = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (empty);
  g_autoptr (AgentsSnapshot) marker =
    fake_marker_snapshot_new ("marker", "initial");
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent ("sandbox", model, "Base instructions.");
  g_autoptr (AgentsRunConfig) run_config = sandbox_run_config (client);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResultStreaming) result = NULL;
  g_autoptr (GAsyncResult) wait_result = NULL;
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (AgentsRunResult) second = NULL;
  g_autoptr (GError) error = NULL;
  JsonObject *session_state;
  JsonObject *snapshot;

  /* _PersistingStopSession(Manifest(), stop_gate) */
  session->stop_gate = g_object_ref (G_OBJECT (stop_gate));
  session->persist_marker = TRUE;
  agents_sandbox_session_state_set_snapshot (session->state, marker);
  add_turns (model, turn1 (agents_testing_final_output_message ("done")),
             turn1 (agents_testing_final_output_message ("again")), NULL);

  result = run_streamed (runner, agent, "hello", run_config);
  g_assert_nonnull (result);

  SPIN_UNTIL (session->stop_calls > 0);

  /* asyncio.wait_for (asyncio.shield (result.run_loop_task), 0.05) times
   * out. */
  agents_run_result_streaming_wait_async (result, NULL, agents_test_async_cb,
                                          &wait_result);
  spin_for (50);
  g_assert_null (wait_result);

  fake_gate_open (stop_gate);
  agents_test_wait_result (&wait_result);
  g_assert_true (
    agents_run_result_streaming_wait_finish (result, wait_result, &error));
  g_assert_no_error (error);

  state = agents_run_result_streaming_to_state (result);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (
    json_object_get_member (payload_of (state), "session_state")));
  session_state =
    json_object_get_object_member (payload_of (state), "session_state");
  g_assert_true (JSON_NODE_HOLDS_OBJECT (
    json_object_get_member (session_state, "snapshot")));
  snapshot = json_object_get_object_member (session_state, "snapshot");
  g_assert_cmpstr (json_object_get_string_member (snapshot, "marker"), ==,
                   "persisted");

  second = run_text (runner, agent, "again", run_config, &error);
  g_assert_no_error (error);

  assert_final (second, "again");
}

static void
test_sandbox_run_persists_only_new_session_input_items (void)
{
  g_autoptr (AgentsMemorySession) session = agents_memory_session_new (NULL);
  g_autoptr (JsonArray) history = json_array_new ();
  g_autoptr (AgentsScriptedModel) model = model_final ("done");
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent ("sandbox", model, "Base instructions.");
  g_autoptr (AgentsRunConfig) config = fresh_fake_run_config ();
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (JsonNode) input = agents_test_str_node ("new");
  g_autoptr (GAsyncResult) async_result = NULL;
  g_autoptr (JsonArray) items = NULL;
  g_autoptr (JsonArray) saved_user_items = json_array_new ();
  g_autoptr (JsonNode) saved = NULL;
  g_autoptr (JsonNode) expected = NULL;
  g_autoptr (GError) error = NULL;
  JsonObject *old = json_object_new ();

  /* SimpleListSession(history=[{"role": "user", "content": "old"}]) */
  json_object_set_string_member (old, "role", "user");
  json_object_set_string_member (old, "content", "old");
  json_array_add_object_element (history, old);
  AGENTS_TEST_AWAIT (async_result,
                     agents_conversation_session_add_items_async (
                       AGENTS_CONVERSATION_SESSION (session), history, NULL,
                       agents_test_async_cb, &async_result));
  g_assert_true (agents_conversation_session_add_items_finish (
    AGENTS_CONVERSATION_SESSION (session), async_result, &error));
  g_assert_no_error (error);

  result = run_node (runner, agent, input, config,
                     AGENTS_CONVERSATION_SESSION (session), &error);
  g_assert_no_error (error);

  assert_final (result, "done");
  AGENTS_TEST_AWAIT (async_result,
                     agents_conversation_session_get_items_async (
                       AGENTS_CONVERSATION_SESSION (session), 0, NULL,
                       agents_test_async_cb, &async_result));
  items = agents_conversation_session_get_items_finish (
    AGENTS_CONVERSATION_SESSION (session), async_result, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < json_array_get_length (items); i++)
    {
      JsonNode *item = json_array_get_element (items, i);

      if (JSON_NODE_HOLDS_OBJECT (item) &&
          g_strcmp0 (json_object_get_string_member_with_default (
                       json_node_get_object (item), "role", NULL),
                     "user") == 0)
        json_array_add_element (saved_user_items, json_node_copy (item));
    }
  saved = json_node_init_array (json_node_alloc (), saved_user_items);
  expected = json_from_string ("[{\"role\": \"user\", \"content\": \"old\"}, "
                               "{\"role\": \"user\", \"content\": \"new\"}]",
                               NULL);
  g_assert_true (json_node_equal (saved, expected));
}

static gboolean
is_relevant_event (AgentsStreamEvent *event)
{
  static const char *const names[] = { "reasoning_item_created", "tool_called",
                                       "tool_output", NULL };

  return agents_stream_event_get_kind (event) ==
           AGENTS_STREAM_EVENT_KIND_RUN_ITEM &&
         g_strv_contains (names, agents_stream_event_get_name (event));
}

static void
test_runner_streamed_emits_public_agent_for_tool_and_reasoning_events (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsTool) tool1 =
    agents_testing_function_tool ("tool1", "tool result");
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent ("sandbox", model, "Base instructions.");
  g_autoptr (AgentsRunConfig) config = fresh_fake_run_config ();
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResultStreaming) result = NULL;
  g_autoptr (GPtrArray) events = NULL;
  g_autoptr (GError) error = NULL;
  guint relevant = 0;

  add_turns (model,
             agents_testing_items (
               agents_testing_reasoning_item ("rid", "thinking"),
               agents_testing_function_tool_call ("tool1", "{}", "call_tool"),
               NULL),
             turn1 (agents_testing_final_output_message ("done")), NULL);
  agents_agent_add_tool (AGENTS_AGENT (agent), tool1);

  result = run_streamed (runner, agent, "hello", config);
  events = stream_all (result, &error);
  g_assert_no_error (error);

  for (guint i = 0; i < events->len; i++)
    {
      AgentsStreamEvent *event = events->pdata[i];

      if (!is_relevant_event (event))
        continue;
      relevant++;
      g_assert_true (agents_run_item_get_agent (agents_stream_event_get_item (
                       event)) == AGENTS_AGENT (agent));
    }
  g_assert_cmpuint (relevant, >, 0);
}

static char *
shell_result_executor (AgentsRunContext *ctx,
                       JsonObject *action,
                       gpointer user_data,
                       GError **error)
{
  return g_strdup ("shell result");
}

static JsonObject *
local_shell_call_item (void)
{
  g_autoptr (JsonNode) node = json_from_string (
    "{\"id\": \"lsh_sandbox\", \"type\": \"local_shell_call\", "
    "\"call_id\": \"call_local_shell\", \"status\": \"completed\", "
    "\"action\": {\"command\": [\"bash\", \"-lc\", \"echo sandbox\"], "
    "\"env\": {}, \"type\": \"exec\", \"timeout_ms\": 1000, "
    "\"working_directory\": \"/workspace\"}}",
    NULL);

  return json_object_ref (json_node_get_object (node));
}

static void
test_runner_uses_public_agent_for_non_function_tool_outputs (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsLocalShellTool) tool =
    agents_local_shell_tool_new (shell_result_executor, NULL, NULL);
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent ("sandbox", model, "Base instructions.");
  g_autoptr (AgentsRunConfig) config = fresh_fake_run_config ();
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  GListModel *new_items;
  guint output_items = 0;

  add_turns (model, turn1 (local_shell_call_item ()),
             turn1 (agents_testing_final_output_message ("done")), NULL);
  agents_agent_add_tool (AGENTS_AGENT (agent), AGENTS_TOOL (tool));

  result = run_text (runner, agent, "hello", config, &error);
  g_assert_no_error (error);

  new_items = agents_run_result_get_new_items (result);
  for (guint i = 0; i < g_list_model_get_n_items (new_items); i++)
    {
      AgentsRunItem *item = item_at (new_items, i);
      JsonObject *raw = agents_run_item_get_raw_item (item);

      if (agents_run_item_get_kind (item) !=
            AGENTS_RUN_ITEM_KIND_TOOL_CALL_OUTPUT ||
          raw == NULL ||
          g_strcmp0 (
            json_object_get_string_member_with_default (raw, "type", NULL),
            "local_shell_call_output") != 0)
        continue;
      output_items++;
      g_assert_true (agents_run_item_get_agent (item) == AGENTS_AGENT (agent));
    }
  g_assert_cmpuint (output_items, >, 0);
}

static void
test_sandbox_agent_as_tool_uses_runner_sandbox_prep (void)
{
  g_autoptr (AgentsScriptedModel) child_model = model_final ("child done");
  g_autoptr (JsonArray) parent_initial =
    turn1 (agents_testing_function_tool_call (
      "delegate_to_child", "{\"input\": \"check sandbox\"}", NULL));
  g_autoptr (AgentsScriptedModel) parent_model =
    agents_scripted_model_new_with_initial_output (parent_initial);
  g_autoptr (JsonArray) parent_final =
    turn1 (agents_testing_final_output_message ("parent done"));
  g_autoptr (AgentsCapability) capability =
    fake_recording_capability_new ("Use the sandbox carefully.", NULL, NULL);
  g_autoptr (AgentsManifest) manifest =
    manifest_with_file ("README.md", "Use repo-safe commands only.");
  g_autoptr (FakeSession) session = fake_session_new (manifest);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsSandboxAgent) child =
    sandbox_agent ("child", child_model, "Child base instructions.");
  g_autoptr (AgentsAgent) parent = agents_agent_new ("parent");
  g_autoptr (AgentsTool) delegate = NULL;
  g_autoptr (AgentsRunConfig) config = sandbox_run_config (client);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  JsonArray *child_input;

  agents_scripted_model_set_next_output (parent_model, parent_final);
  agents_sandbox_agent_set_default_manifest (child, manifest);
  set_capability (child, capability);
  agents_agent_set_model (parent, AGENTS_MODEL (parent_model));
  agents_agent_set_instructions (parent, "Parent instructions.");
  delegate = agents_agent_as_tool (AGENTS_AGENT (child), "delegate_to_child",
                                   "Delegate to the sandbox child.");
  agents_agent_add_tool (parent, delegate);

  result = run_text (runner, parent, "hello", config, &error);
  g_assert_no_error (error);

  assert_final (result, "parent done");
  g_assert_null (agents_capability_get_session (capability));
  child_input = agents_model_request_get_input (first_turn_args (child_model));
  g_assert_nonnull (child_input);
  g_assert_cmpstr (
    extract_user_text (json_array_get_object_element (child_input, 0)), ==,
    "check sandbox");
}

static void
test_runner_reapplies_sandbox_prep_on_handoff (void)
{
  g_autoptr (AgentsScriptedModel) triage_model = agents_scripted_model_new ();
  g_autoptr (AgentsScriptedModel) worker_model = model_final ("done");
  g_autoptr (AgentsManifest) manifest =
    manifest_with_file ("README.md", "Shared repo instructions.");
  g_autoptr (FakeSession) session = fake_session_new (manifest);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsCapability) capability_one =
    fake_recording_capability_new ("Triage capability.", NULL, NULL);
  g_autoptr (AgentsCapability) capability_two =
    fake_recording_capability_new ("Worker capability.", NULL, NULL);
  g_autoptr (AgentsSandboxAgent) worker =
    sandbox_agent ("worker", worker_model, "Worker instructions.");
  g_autoptr (AgentsSandboxAgent) triage =
    sandbox_agent ("triage", triage_model, "Triage instructions.");
  g_autoptr (GPtrArray) turns =
    g_ptr_array_new_with_free_func ((GDestroyNotify) json_array_unref);
  g_autoptr (AgentsRunConfig) config = sandbox_run_config (client);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *expected = NULL;

  agents_sandbox_agent_set_default_manifest (worker, manifest);
  set_capability (worker, capability_two);
  agents_sandbox_agent_set_default_manifest (triage, manifest);
  set_capability (triage, capability_one);
  agents_agent_add_handoff (AGENTS_AGENT (triage), G_OBJECT (worker));
  g_ptr_array_add (
    turns, turn1 (agents_testing_handoff_tool_call (AGENTS_AGENT (worker))));
  agents_scripted_model_set_turn_outputs (triage_model, turns);

  result = run_text (runner, triage, "route this", config, &error);
  g_assert_no_error (error);

  assert_final (result, "done");
  g_assert_null (agents_capability_get_session (capability_one));
  g_assert_null (agents_capability_get_session (capability_two));
  expected = expected_prompt (
    default_instructions (), "Worker instructions.", "Worker capability.",
    agents_sandbox_session_get_manifest (AGENTS_SANDBOX_SESSION (session)));
  g_assert_cmpstr (first_system_instructions (worker_model), ==, expected);
}

static void
test_runner_restores_sandbox_from_run_state (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsTool) approval_tool = approval_tool_new ();
  g_autoptr (AgentsManifest) manifest =
    manifest_with_file ("README.md", "Resume with sandbox state.");
  g_autoptr (FakeSession) session = fake_session_new (manifest);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent ("sandbox", model, "Base instructions.");
  g_autoptr (AgentsRunConfig) config = sandbox_run_config (client);
  g_autoptr (AgentsRunConfig) resume_config = sandbox_run_config (client);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) first_run = NULL;
  g_autoptr (AgentsRunResult) resumed = NULL;
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (GError) error = NULL;
  GListModel *interruptions;

  agents_agent_add_tool (AGENTS_AGENT (agent), approval_tool);
  agents_sandbox_agent_set_default_manifest (agent, manifest);
  add_turns (model,
             turn1 (agents_testing_function_tool_call ("approval_tool", "{}",
                                                       "call_resume")),
             turn1 (agents_testing_final_output_message ("done")), NULL);

  first_run = run_text (runner, agent, "hello", config, &error);
  g_assert_no_error (error);

  interruptions = agents_run_result_get_interruptions (first_run);
  g_assert_cmpuint (g_list_model_get_n_items (interruptions), ==, 1);
  state = agents_run_result_to_state (first_run);
  g_assert_nonnull (agents_run_state_get_sandbox (state));
  agents_run_state_approve (state, item_at (interruptions, 0), FALSE);

  resumed = resume_run (runner, agent, state, resume_config, &error);
  g_assert_no_error (error);

  assert_final (resumed, "done");
  g_assert_nonnull (client->resume_state);
}

/* ---- Concurrency -------------------------------------------------------- */

static void
test_runner_rejects_concurrent_reuse_of_same_sandbox_agent (void)
{
  g_autoptr (AgentsScriptedModel) model = model_final ("done");
  g_autoptr (FakeGate) start_gate = fake_gate_new ();
  g_autoptr (AgentsManifest) empty = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (empty);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent ("sandbox", model, "Base instructions.");
  g_autoptr (AgentsRunConfig) run_config = sandbox_run_config (client);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (JsonNode) hello = agents_test_str_node ("hello");
  g_autoptr (GAsyncResult) first_async = NULL;
  g_autoptr (AgentsRunResult) second = NULL;
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;

  session->start_gate = g_object_ref (G_OBJECT (start_gate));

  agents_runner_run_async (runner, AGENTS_AGENT (agent), hello, run_config,
                           NULL, NULL, NULL, agents_test_async_cb,
                           &first_async);
  SPIN_UNTIL (session->start_calls > 0);

  second = run_text (runner, agent, "again", run_config, &error);
  g_assert_null (second);
  g_assert_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_USER_ERROR);
  g_assert_nonnull (strstr (error->message, "cannot be reused concurrently"));
  g_clear_error (&error);

  fake_gate_open (start_gate);
  agents_test_wait_result (&first_async);
  result = agents_runner_run_finish (runner, first_async, &error);
  g_assert_no_error (error);
  assert_final (result, "done");
}

static void
wait_gate (FakeGate *gate)
{
  SPIN_UNTIL (fake_gate_is_open (gate));
}

static void
test_runner_isolates_shared_capabilities_per_run (void)
{
  g_autoptr (FakeGate) release_gate = fake_gate_new ();
  g_autoptr (FakeGate) first_instruction_started = fake_gate_new ();
  g_autoptr (FakeGate) second_instruction_started = fake_gate_new ();
  g_autoptr (AgentsCapability) shared_capability =
    fake_awaitable_capability_new (release_gate, first_instruction_started,
                                   second_instruction_started);
  g_autoptr (AgentsManifest) manifest_one =
    manifest_with_file ("README.md", "Session one instructions.");
  g_autoptr (AgentsManifest) manifest_two =
    manifest_with_file ("README.md", "Session two instructions.");
  g_autoptr (FakeSession) session_one = fake_session_new (manifest_one);
  g_autoptr (FakeSession) session_two = fake_session_new (manifest_two);
  g_autoptr (FakeClient) client_one = fake_client_new (session_one);
  g_autoptr (FakeClient) client_two = fake_client_new (session_two);
  g_autoptr (AgentsScriptedModel) model_one = model_final ("done one");
  g_autoptr (AgentsScriptedModel) model_two = model_final ("done two");
  g_autoptr (AgentsSandboxAgent) agent_one =
    sandbox_agent ("sandbox-one", model_one, "Base instructions.");
  g_autoptr (AgentsSandboxAgent) agent_two =
    sandbox_agent ("sandbox-two", model_two, "Base instructions.");
  g_autoptr (AgentsRunConfig) config_one = sandbox_run_config (client_one);
  g_autoptr (AgentsRunConfig) config_two = sandbox_run_config (client_two);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (JsonNode) hello_one = agents_test_str_node ("hello one");
  g_autoptr (JsonNode) hello_two = agents_test_str_node ("hello two");
  g_autoptr (GAsyncResult) first_async = NULL;
  g_autoptr (GAsyncResult) second_async = NULL;
  g_autoptr (AgentsRunResult) first_result = NULL;
  g_autoptr (AgentsRunResult) second_result = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *expected_one = NULL;
  g_autofree char *expected_two = NULL;

  set_capability (agent_one, shared_capability);
  set_capability (agent_two, shared_capability);

  agents_runner_run_async (runner, AGENTS_AGENT (agent_one), hello_one,
                           config_one, NULL, NULL, NULL, agents_test_async_cb,
                           &first_async);
  wait_gate (first_instruction_started);

  agents_runner_run_async (runner, AGENTS_AGENT (agent_two), hello_two,
                           config_two, NULL, NULL, NULL, agents_test_async_cb,
                           &second_async);
  wait_gate (second_instruction_started);

  fake_gate_open (release_gate);
  agents_test_wait_result (&first_async);
  agents_test_wait_result (&second_async);
  first_result = agents_runner_run_finish (runner, first_async, &error);
  g_assert_no_error (error);
  second_result = agents_runner_run_finish (runner, second_async, &error);
  g_assert_no_error (error);

  assert_final (first_result, "done one");
  assert_final (second_result, "done two");
  expected_one = expected_prompt (
    default_instructions (), "Base instructions.", "Session one instructions.",
    agents_sandbox_session_get_manifest (AGENTS_SANDBOX_SESSION (session_one)));
  expected_two = expected_prompt (
    default_instructions (), "Base instructions.", "Session two instructions.",
    agents_sandbox_session_get_manifest (AGENTS_SANDBOX_SESSION (session_two)));
  g_assert_cmpstr (first_system_instructions (model_one), ==, expected_one);
  g_assert_cmpstr (first_system_instructions (model_two), ==, expected_two);
  g_assert_null (agents_capability_get_session (shared_capability));
}

static void
test_runner_deep_clones_capability_runtime_state (void)
{
  g_autoptr (AgentsScriptedModel) model = model_final ("done");
  g_autoptr (AgentsManifest) manifest =
    manifest_with_file ("README.md", "hello");
  g_autoptr (FakeSession) session = fake_session_new (manifest);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsCapability) capability =
    fake_capability_new (FAKE_CAPABILITY_MUTABLE);
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent ("sandbox", model, "Base instructions.");
  g_autoptr (AgentsRunConfig) config = sandbox_run_config (client);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;

  set_capability (agent, capability);

  result = run_text (runner, agent, "hello", config, &error);
  g_assert_no_error (error);

  assert_final (result, "done");
  g_assert_nonnull (FAKE_CAPABILITY (capability)->bound_labels);
  g_assert_cmpuint (g_strv_length (FAKE_CAPABILITY (capability)->bound_labels),
                    ==, 0);
}

/* ---- Hooks -------------------------------------------------------------- */

/* _RecordingRunHooks / _RecordingAgentHooks */
typedef struct
{
  GPtrArray *started_agents;
  GPtrArray *ended_agents;
  GPtrArray *llm_started_agents;
  GPtrArray *llm_ended_agents;
} RecordingHooks;

static void
recording_hooks_init (RecordingHooks *hooks)
{
  hooks->started_agents = g_ptr_array_new ();
  hooks->ended_agents = g_ptr_array_new ();
  hooks->llm_started_agents = g_ptr_array_new ();
  hooks->llm_ended_agents = g_ptr_array_new ();
}

static void
recording_hooks_clear (RecordingHooks *hooks)
{
  g_clear_pointer (&hooks->started_agents, g_ptr_array_unref);
  g_clear_pointer (&hooks->ended_agents, g_ptr_array_unref);
  g_clear_pointer (&hooks->llm_started_agents, g_ptr_array_unref);
  g_clear_pointer (&hooks->llm_ended_agents, g_ptr_array_unref);
}

static void
assert_hooks_saw (RecordingHooks *hooks, gpointer agent)
{
  assert_seen (hooks->started_agents, agent, NULL);
  assert_seen (hooks->ended_agents, agent, NULL);
  assert_seen (hooks->llm_started_agents, agent, NULL);
  assert_seen (hooks->llm_ended_agents, agent, NULL);
}

static void
on_run_agent_start (AgentsRunner *runner,
                    AgentsRunContext *ctx,
                    AgentsAgent *agent,
                    RecordingHooks *hooks)
{
  g_ptr_array_add (hooks->started_agents, agent);
}

static void
on_run_agent_end (AgentsRunner *runner,
                  AgentsRunContext *ctx,
                  AgentsAgent *agent,
                  JsonNode *output,
                  RecordingHooks *hooks)
{
  g_ptr_array_add (hooks->ended_agents, agent);
}

static void
on_run_llm_start (AgentsRunner *runner,
                  AgentsRunContext *ctx,
                  AgentsAgent *agent,
                  const char *system_prompt,
                  JsonArray *input,
                  RecordingHooks *hooks)
{
  g_ptr_array_add (hooks->llm_started_agents, agent);
}

static void
on_run_llm_end (AgentsRunner *runner,
                AgentsRunContext *ctx,
                AgentsAgent *agent,
                AgentsModelResponse *response,
                RecordingHooks *hooks)
{
  g_ptr_array_add (hooks->llm_ended_agents, agent);
}

static void
connect_run_hooks (AgentsRunner *runner, RecordingHooks *hooks)
{
  g_signal_connect (runner, "agent-start", G_CALLBACK (on_run_agent_start),
                    hooks);
  g_signal_connect (runner, "agent-end", G_CALLBACK (on_run_agent_end), hooks);
  g_signal_connect (runner, "llm-start", G_CALLBACK (on_run_llm_start), hooks);
  g_signal_connect (runner, "llm-end", G_CALLBACK (on_run_llm_end), hooks);
}

static void
on_agent_start (AgentsAgent *agent,
                AgentsRunContext *ctx,
                RecordingHooks *hooks)
{
  g_ptr_array_add (hooks->started_agents, agent);
}

static void
on_agent_end (AgentsAgent *agent,
              AgentsRunContext *ctx,
              JsonNode *output,
              RecordingHooks *hooks)
{
  g_ptr_array_add (hooks->ended_agents, agent);
}

static void
on_agent_llm_start (AgentsAgent *agent,
                    AgentsRunContext *ctx,
                    const char *system_prompt,
                    JsonArray *input,
                    RecordingHooks *hooks)
{
  g_ptr_array_add (hooks->llm_started_agents, agent);
}

static void
on_agent_llm_end (AgentsAgent *agent,
                  AgentsRunContext *ctx,
                  AgentsModelResponse *response,
                  RecordingHooks *hooks)
{
  g_ptr_array_add (hooks->llm_ended_agents, agent);
}

static void
connect_agent_hooks (gpointer agent, RecordingHooks *hooks)
{
  g_signal_connect (agent, "start", G_CALLBACK (on_agent_start), hooks);
  g_signal_connect (agent, "end", G_CALLBACK (on_agent_end), hooks);
  g_signal_connect (agent, "llm-start", G_CALLBACK (on_agent_llm_start), hooks);
  g_signal_connect (agent, "llm-end", G_CALLBACK (on_agent_llm_end), hooks);
}

static void
assert_items_of (GListModel *items, gpointer agent)
{
  for (guint i = 0; i < g_list_model_get_n_items (items); i++)
    g_assert_true (agents_run_item_get_agent (item_at (items, i)) ==
                   AGENTS_AGENT (agent));
}

static void
test_runner_keeps_public_agent_identity_for_hooks_and_streaming (void)
{
  g_autoptr (AgentsScriptedModel) model = model_final ("done");
  g_autoptr (AgentsManifest) empty = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (empty);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsSandboxAgent) agent = recording_agent ("sandbox", model);
  g_autoptr (AgentsRunConfig) config = sandbox_run_config (client);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (AgentsScriptedModel) streamed_model =
    model_final ("streamed done");
  g_autoptr (AgentsManifest) streamed_empty = agents_manifest_new ();
  g_autoptr (FakeSession) streamed_session = fake_session_new (streamed_empty);
  g_autoptr (FakeClient) streamed_client = fake_client_new (streamed_session);
  g_autoptr (AgentsSandboxAgent) streamed_agent =
    recording_agent ("streamed-sandbox", streamed_model);
  g_autoptr (AgentsRunConfig) streamed_config =
    sandbox_run_config (streamed_client);
  g_autoptr (AgentsRunner) streamed_runner = agents_runner_new ();
  g_autoptr (AgentsRunResultStreaming) streamed_result = NULL;
  g_autoptr (GPtrArray) streamed_events = NULL;
  g_autoptr (GError) error = NULL;
  RecordingHooks run_hooks, agent_hooks;
  RecordingHooks streamed_run_hooks, streamed_agent_hooks;
  guint run_item_events = 0;

  recording_hooks_init (&run_hooks);
  recording_hooks_init (&agent_hooks);
  recording_hooks_init (&streamed_run_hooks);
  recording_hooks_init (&streamed_agent_hooks);
  connect_run_hooks (runner, &run_hooks);
  connect_agent_hooks (agent, &agent_hooks);

  result = run_text (runner, agent, "hello", config, &error);
  g_assert_no_error (error);

  g_assert_true (agents_run_result_get_last_agent (result) ==
                 AGENTS_AGENT (agent));
  assert_hooks_saw (&run_hooks, agent);
  assert_hooks_saw (&agent_hooks, agent);
  assert_items_of (agents_run_result_get_new_items (result), agent);

  connect_run_hooks (streamed_runner, &streamed_run_hooks);
  connect_agent_hooks (streamed_agent, &streamed_agent_hooks);

  streamed_result =
    run_streamed (streamed_runner, streamed_agent, "hello", streamed_config);
  streamed_events = stream_all (streamed_result, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < streamed_events->len; i++)
    if (agents_stream_event_get_kind (streamed_events->pdata[i]) ==
        AGENTS_STREAM_EVENT_KIND_RUN_ITEM)
      run_item_events++;

  g_assert_true (agents_run_result_streaming_get_current_agent (
                   streamed_result) == AGENTS_AGENT (streamed_agent));
  assert_hooks_saw (&streamed_run_hooks, streamed_agent);
  assert_hooks_saw (&streamed_agent_hooks, streamed_agent);
  assert_items_of (agents_run_result_streaming_get_new_items (streamed_result),
                   streamed_agent);
  g_assert_cmpuint (run_item_events, >, 0);

  g_signal_handlers_disconnect_by_data (agent, &agent_hooks);
  g_signal_handlers_disconnect_by_data (streamed_agent, &streamed_agent_hooks);
  recording_hooks_clear (&run_hooks);
  recording_hooks_clear (&agent_hooks);
  recording_hooks_clear (&streamed_run_hooks);
  recording_hooks_clear (&streamed_agent_hooks);
}

/* ------------------------------------------------------------------------ */

#define ADD(name) g_test_add_func ("/sandbox/runtime/" #name, test_##name)

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  agents_s3mount_register_types ();
  fake_sandbox_register_types ();

  ADD (runner_merges_sandbox_instructions_and_tools);
  ADD (filesystem_instructions_omit_extra_path_grants);
  ADD (runner_adds_run_as_user_to_created_manifest_without_default_manifest);
  ADD (runner_uses_default_sandbox_prompt_when_instructions_missing);
  ADD (runner_handles_missing_default_sandbox_prompt_resource);
  ADD (runner_dynamic_instructions_do_not_override_default_sandbox_prompt);
  ADD (runner_base_instructions_override_default_sandbox_prompt);
  ADD (runner_adds_remote_mount_policy_instructions);
  ADD (runner_adds_remote_mount_policy_for_non_ephemeral_mounts);
  ADD (runner_applies_compaction_capability_to_input_and_model_settings);
  ADD (runner_marks_writable_remote_mounts_in_policy);
  ADD (runner_uses_manifest_remote_mount_command_allowlist_override);
  ADD (runner_requires_sandbox_config_for_sandbox_agent);
  ADD (runner_streamed_cleans_runner_owned_session);
  ADD (runner_streamed_guardrail_trip_blocks_runner_owned_sandbox_creation);
  ADD (runner_does_not_close_injected_sandbox_session);
  ADD (runner_does_not_restart_running_injected_sandbox_session);
  ADD (runner_guardrail_trip_blocks_runner_owned_sandbox_creation);
  ADD (runner_guardrail_trip_blocks_running_injected_session_mutation);
  ADD (runner_streamed_guardrail_trip_blocks_running_injected_session_mutation);
  ADD (runner_uses_public_sandbox_agent_for_dynamic_instructions);
  ADD (runner_uses_public_sandbox_agent_for_dynamic_prompts);
  ADD (runner_uses_public_agent_for_call_model_input_filter);
  ADD (runner_streamed_uses_public_agent_for_call_model_input_filter);
  ADD (runner_reuses_prepared_sandbox_agent_across_turns_for_tool_choice_reset);
  ADD (runner_rebuilds_sandbox_resources_for_handoff_target_agent);
  ADD (runner_resumed_handoff_materializes_manifest_for_new_sandbox_agent);
  ADD (runner_streamed_ignores_sandbox_cleanup_failures_after_success);
  ADD (runner_omits_sandbox_resume_state_when_cleanup_fails);
  ADD (runner_reports_sandbox_cleanup_failure);
  ADD (runner_reports_no_sandbox_error_after_clean_close);
  ADD (runner_clears_sandbox_session_from_non_streamed_results_after_cleanup);
  ADD (runner_streamed_cleans_sandbox_once_after_stream_completion);
  ADD (runner_uses_public_agent_for_non_streaming_output_guardrails);
  ADD (runner_streamed_immediate_cancel_skips_waiting_for_sandbox_cleanup);
  ADD (
    runner_streamed_run_loop_task_waits_for_sandbox_cleanup_and_persisted_state);
  ADD (sandbox_run_persists_only_new_session_input_items);
  ADD (runner_streamed_emits_public_agent_for_tool_and_reasoning_events);
  ADD (runner_uses_public_agent_for_non_function_tool_outputs);
  ADD (sandbox_agent_as_tool_uses_runner_sandbox_prep);
  ADD (runner_reapplies_sandbox_prep_on_handoff);
  ADD (runner_restores_sandbox_from_run_state);
  ADD (runner_rejects_concurrent_reuse_of_same_sandbox_agent);
  ADD (runner_isolates_shared_capabilities_per_run);
  ADD (runner_deep_clones_capability_runtime_state);
  ADD (runner_keeps_public_agent_identity_for_hooks_and_streaming);

  return g_test_run ();
}
