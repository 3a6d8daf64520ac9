/* test-run-state.c - saving and resuming runs
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-run-private.h"
#include "test-utils.h"

/* ---- Helpers ----------------------------------------------------------- */

static AgentsRunResult *
run_agent (AgentsAgent *agent, const char *input, GError **error)
{
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (JsonNode) node = agents_test_str_node (input);

  AGENTS_TEST_AWAIT (
    result, agents_runner_run_async (runner, agent, node, NULL, NULL, NULL,
                                     NULL, agents_test_async_cb, &result));
  return agents_runner_run_finish (runner, result, error);
}

static AgentsRunResult *
resume (AgentsAgent *agent, AgentsRunState *state, GError **error)
{
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (GAsyncResult) result = NULL;

  AGENTS_TEST_AWAIT (
    result, agents_runner_resume_async (runner, agent, state, NULL, NULL, NULL,
                                        agents_test_async_cb, &result));
  return agents_runner_resume_finish (runner, result, error);
}

static const char *
final_text (AgentsRunResult *result)
{
  JsonNode *output = agents_run_result_get_final_output (result);

  g_assert_nonnull (output);
  return json_node_get_string (output);
}

/* Whether some tool output item has @output and belongs to @agent. */
static gboolean
has_output_of (AgentsRunResult *result, const char *output, AgentsAgent *agent)
{
  GListModel *items = agents_run_result_get_new_items (result);

  for (guint i = 0; i < g_list_model_get_n_items (items); i++)
    {
      g_autoptr (AgentsRunItem) item = g_list_model_get_item (items, i);
      JsonNode *value = agents_run_item_get_output (item);

      if (agents_run_item_get_kind (item) ==
            AGENTS_RUN_ITEM_KIND_TOOL_CALL_OUTPUT &&
          value != NULL && JSON_NODE_HOLDS_VALUE (value) &&
          g_strcmp0 (json_node_get_string (value), output) == 0 &&
          agents_run_item_get_agent (item) == agent)
        return TRUE;
    }
  return FALSE;
}

/* Agents that hand off to each other, and scripted models that record the
 * handoffs they were given, make reference cycles. */
static void
break_cycle (AgentsAgent *agent)
{
  g_list_store_remove_all (G_LIST_STORE (agents_agent_get_handoffs (agent)));
  agents_agent_set_model (agent, NULL);
}

/* A "workspace" that outlives runs: write_file and read_file tools. */

static char *
write_file (AgentsRunContext *ctx,
            const char *arguments,
            gpointer user_data,
            GError **error)
{
  GHashTable *files = user_data;
  g_autoptr (JsonNode) node = json_from_string (arguments, error);
  JsonObject *args;

  if (node == NULL)
    return NULL;
  args = json_node_get_object (node);
  g_hash_table_insert (
    files, g_strdup (json_object_get_string_member (args, "path")),
    g_strdup (json_object_get_string_member (args, "content")));
  return g_strdup ("wrote");
}

static char *
read_file (AgentsRunContext *ctx,
           const char *arguments,
           gpointer user_data,
           GError **error)
{
  GHashTable *files = user_data;
  g_autoptr (JsonNode) node = json_from_string (arguments, error);

  if (node == NULL)
    return NULL;
  return g_strdup (g_hash_table_lookup (
    files,
    json_object_get_string_member (json_node_get_object (node), "path")));
}

static void
add_file_tools (AgentsAgent *agent, GHashTable *files)
{
  g_autoptr (AgentsFunctionTool) writer = agents_function_tool_new (
    "write_file", NULL, NULL, write_file, g_hash_table_ref (files),
    (GDestroyNotify) g_hash_table_unref);
  g_autoptr (AgentsFunctionTool) reader = agents_function_tool_new (
    "read_file", NULL, NULL, read_file, g_hash_table_ref (files),
    (GDestroyNotify) g_hash_table_unref);

  agents_agent_add_tool (agent, AGENTS_TOOL (writer));
  agents_agent_add_tool (agent, AGENTS_TOOL (reader));
}

static AgentsTool *
approval_tool_new (void)
{
  AgentsTool *tool = agents_testing_function_tool ("approval_tool", "approved");

  agents_tool_set_needs_approval (tool, TRUE);
  return tool;
}

static GHashTable *
files_new (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

static AgentsRunState *
roundtrip (AgentsRunState *state, AgentsAgent *new_starting_agent)
{
  g_autofree char *json = agents_run_state_to_json (state);
  g_autoptr (GError) error = NULL;
  AgentsRunState *restored =
    agents_run_state_new_from_json (new_starting_agent, json, &error);

  g_assert_no_error (error);
  g_assert_nonnull (restored);
  return restored;
}

static void
approve_first (AgentsRunState *state)
{
  g_autoptr (AgentsRunItem) item =
    g_list_model_get_item (agents_run_state_get_interruptions (state), 0);

  g_assert_nonnull (item);
  agents_run_state_approve (state, item, FALSE);
}

/* ---- Resuming against a fresh agent graph ------------------------------ */

/* The reference's test_runner_persists_workspace_and_tool_choice_state_
 * across_sandbox_resume, a shared table standing in for the workspace. */
static void
test_runner_persists_workspace_and_tool_choice_state_across_sandbox_resume (
  void)
{
  g_autoptr (GHashTable) files = files_new ();
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsScriptedModel) resumed_model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("sandbox", model);
  g_autoptr (AgentsAgent) resumed_agent =
    agents_test_new_agent ("sandbox", resumed_model);
  g_autoptr (AgentsTool) approval = approval_tool_new ();
  g_autoptr (AgentsModelSettings) settings = agents_model_settings_new ();
  g_autoptr (AgentsRunResult) first_run = NULL;
  g_autoptr (AgentsRunResult) resumed = NULL;
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (AgentsRunState) restored = NULL;
  g_autoptr (GError) error = NULL;
  GListModel *restored_items;

  agents_model_settings_set_tool_choice (settings, "required");
  agents_agent_set_instructions (agent, "Base instructions.");
  agents_agent_add_tool (agent, approval);
  add_file_tools (agent, files);
  agents_agent_set_model_settings (agent, settings);
  agents_test_add_turn (
    model,
    agents_testing_function_tool_call (
      "write_file", "{\"path\": \"note.txt\", \"content\": \"persist me\"}",
      "call_write"),
    NULL);
  agents_test_add_turn (
    model,
    agents_testing_function_tool_call ("approval_tool", "{}", "call_approval"),
    NULL);
  first_run = run_agent (agent, "hello", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (
    g_list_model_get_n_items (agents_run_result_get_interruptions (first_run)),
    ==, 1);
  state = agents_run_result_to_state (first_run);

  agents_agent_set_instructions (resumed_agent, "Base instructions.");
  agents_agent_add_tool (resumed_agent, approval);
  add_file_tools (resumed_agent, files);
  agents_agent_set_model_settings (resumed_agent, settings);
  agents_test_add_turn (resumed_model,
                        agents_testing_function_tool_call (
                          "read_file", "{\"path\": \"note.txt\"}", "call_read"),
                        NULL);
  agents_test_add_turn (resumed_model,
                        agents_testing_final_output_message ("done"), NULL);

  restored = roundtrip (state, resumed_agent);
  g_assert_true (agents_run_state_get_current_agent (restored) ==
                 resumed_agent);
  restored_items = agents_run_state_get_generated_items (restored);
  for (guint i = 0; i < g_list_model_get_n_items (restored_items); i++)
    {
      g_autoptr (AgentsRunItem) item =
        g_list_model_get_item (restored_items, i);

      g_assert_true (agents_run_item_get_agent (item) == resumed_agent);
    }
  approve_first (restored);
  resumed = resume (resumed_agent, restored, &error);
  g_assert_no_error (error);

  g_assert_cmpstr (final_text (resumed), ==, "done");
  g_assert_null (agents_model_settings_get_tool_choice (
    agents_model_request_get_model_settings (
      agents_scripted_model_get_last_turn_args (resumed_model))));
  g_assert_true (has_output_of (resumed, "persist me", resumed_agent));
  g_assert_true (has_output_of (resumed, "approved", resumed_agent));
}

/* The reference's test_runner_restores_all_sandbox_agents_from_run_state_
 * across_handoffs. */
static void
test_runner_restores_all_sandbox_agents_from_run_state_across_handoffs (void)
{
  g_autoptr (GHashTable) files = files_new ();
  g_autoptr (AgentsTool) approval = approval_tool_new ();
  g_autoptr (AgentsScriptedModel) triage_model = agents_scripted_model_new ();
  g_autoptr (AgentsScriptedModel) worker_model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) triage =
    agents_test_new_agent ("triage", triage_model);
  g_autoptr (AgentsAgent) worker =
    agents_test_new_agent ("worker", worker_model);
  g_autoptr (AgentsScriptedModel) resumed_triage_model =
    agents_scripted_model_new ();
  g_autoptr (AgentsScriptedModel) resumed_worker_model =
    agents_scripted_model_new ();
  g_autoptr (AgentsAgent) resumed_triage =
    agents_test_new_agent ("triage", resumed_triage_model);
  g_autoptr (AgentsAgent) resumed_worker =
    agents_test_new_agent ("worker", resumed_worker_model);
  g_autoptr (AgentsRunResult) first_run = NULL;
  g_autoptr (AgentsRunResult) resumed = NULL;
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (AgentsRunState) restored = NULL;
  g_autoptr (GError) error = NULL;

  agents_agent_add_tool (worker, approval);
  add_file_tools (triage, files);
  agents_agent_add_handoff (triage, G_OBJECT (worker));
  agents_agent_add_handoff (worker, G_OBJECT (triage));
  agents_test_add_turn (
    triage_model,
    agents_testing_function_tool_call (
      "write_file", "{\"path\": \"note.txt\", \"content\": \"persist triage\"}",
      "call_write"),
    NULL);
  agents_test_add_turn (triage_model, agents_testing_handoff_tool_call (worker),
                        NULL);
  agents_test_add_turn (
    worker_model,
    agents_testing_function_tool_call ("approval_tool", "{}", "call_approval"),
    NULL);
  first_run = run_agent (triage, "hello", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (
    g_list_model_get_n_items (agents_run_result_get_interruptions (first_run)),
    ==, 1);
  state = agents_run_result_to_state (first_run);
  g_assert_true (agents_run_state_get_current_agent (state) == worker);

  agents_agent_add_tool (resumed_worker, approval);
  add_file_tools (resumed_triage, files);
  agents_agent_add_handoff (resumed_triage, G_OBJECT (resumed_worker));
  agents_agent_add_handoff (resumed_worker, G_OBJECT (resumed_triage));
  agents_test_add_turn (resumed_worker_model,
                        agents_testing_handoff_tool_call (resumed_triage),
                        NULL);
  agents_test_add_turn (resumed_triage_model,
                        agents_testing_function_tool_call (
                          "read_file", "{\"path\": \"note.txt\"}", "call_read"),
                        NULL);
  agents_test_add_turn (resumed_triage_model,
                        agents_testing_final_output_message ("done"), NULL);

  restored = roundtrip (state, resumed_triage);
  g_assert_true (agents_run_state_get_current_agent (restored) ==
                 resumed_worker);
  approve_first (restored);
  resumed = resume (resumed_triage, restored, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (final_text (resumed), ==, "done");
  g_assert_true (has_output_of (resumed, "persist triage", resumed_triage));
  g_assert_true (has_output_of (resumed, "wrote", resumed_triage));
  g_assert_true (has_output_of (resumed, "approved", resumed_worker));

  break_cycle (triage);
  break_cycle (worker);
  break_cycle (resumed_triage);
  break_cycle (resumed_worker);
}

/* The reference's test_runner_restores_duplicate_name_sandbox_sessions_
 * after_json_roundtrip. */
static void
test_runner_restores_duplicate_name_sandbox_sessions_after_json_roundtrip (void)
{
  g_autoptr (GHashTable) files = files_new ();
  g_autoptr (AgentsTool) approval = approval_tool_new ();
  g_autoptr (AgentsScriptedModel) first_model = agents_scripted_model_new ();
  g_autoptr (AgentsScriptedModel) second_model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) first =
    agents_test_new_agent ("sandbox", first_model);
  g_autoptr (AgentsAgent) second =
    agents_test_new_agent ("sandbox", second_model);
  g_autoptr (AgentsScriptedModel) resumed_first_model =
    agents_scripted_model_new ();
  g_autoptr (AgentsScriptedModel) resumed_second_model =
    agents_scripted_model_new ();
  g_autoptr (AgentsAgent) resumed_first =
    agents_test_new_agent ("sandbox", resumed_first_model);
  g_autoptr (AgentsAgent) resumed_second =
    agents_test_new_agent ("sandbox", resumed_second_model);
  g_autoptr (AgentsHandoff) to_second = NULL;
  g_autoptr (AgentsHandoff) to_first = NULL;
  g_autoptr (AgentsHandoff) resumed_to_second = NULL;
  g_autoptr (AgentsHandoff) resumed_to_first = NULL;
  g_autoptr (AgentsRunResult) first_run = NULL;
  g_autoptr (AgentsRunResult) resumed = NULL;
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (AgentsRunState) restored = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *json = NULL;

  /* Both agents are named "sandbox": handoff tools need their own names. */
  to_second = agents_handoff_new (second);
  agents_handoff_set_tool_name (to_second, "transfer_to_second");
  to_first = agents_handoff_new (first);
  agents_handoff_set_tool_name (to_first, "transfer_to_first");
  resumed_to_second = agents_handoff_new (resumed_second);
  agents_handoff_set_tool_name (resumed_to_second, "transfer_to_second");
  resumed_to_first = agents_handoff_new (resumed_first);
  agents_handoff_set_tool_name (resumed_to_first, "transfer_to_first");

  agents_agent_set_instructions (first, "First instructions.");
  agents_agent_set_instructions (second, "Second instructions.");
  add_file_tools (first, files);
  agents_agent_add_tool (second, approval);
  agents_agent_add_handoff (first, G_OBJECT (to_second));
  agents_agent_add_handoff (second, G_OBJECT (to_first));
  agents_test_add_turn (first_model,
                        agents_testing_function_tool_call (
                          "write_file",
                          "{\"path\": \"note.txt\", \"content\": \"first\"}",
                          "call_write"),
                        NULL);
  agents_test_add_turn (first_model,
                        agents_testing_function_tool_call (
                          "transfer_to_second", "{}", "call_handoff"),
                        NULL);
  agents_test_add_turn (
    second_model,
    agents_testing_function_tool_call ("approval_tool", "{}", "call_approval"),
    NULL);
  first_run = run_agent (first, "hello", &error);
  g_assert_no_error (error);
  state = agents_run_result_to_state (first_run);
  json = agents_run_state_to_json (state);
  g_assert_nonnull (strstr (json, "\"current_agent\":{\"name\":\"sandbox\","
                                  "\"key\":\"sandbox#2\"}"));

  agents_agent_set_instructions (resumed_first, "First instructions.");
  agents_agent_set_instructions (resumed_second, "Second instructions.");
  add_file_tools (resumed_first, files);
  agents_agent_add_tool (resumed_second, approval);
  agents_agent_add_handoff (resumed_first, G_OBJECT (resumed_to_second));
  agents_agent_add_handoff (resumed_second, G_OBJECT (resumed_to_first));
  agents_test_add_turn (
    resumed_second_model,
    agents_testing_function_tool_call ("transfer_to_first", "{}", "call_back"),
    NULL);
  agents_test_add_turn (resumed_first_model,
                        agents_testing_function_tool_call (
                          "read_file", "{\"path\": \"note.txt\"}", "call_read"),
                        NULL);
  agents_test_add_turn (resumed_first_model,
                        agents_testing_final_output_message ("done"), NULL);

  restored = agents_run_state_new_from_json (resumed_first, json, &error);
  g_assert_no_error (error);
  g_assert_true (agents_run_state_get_current_agent (restored) ==
                 resumed_second);
  approve_first (restored);
  resumed = resume (resumed_first, restored, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (final_text (resumed), ==, "done");
  g_assert_true (has_output_of (resumed, "first", resumed_first));

  break_cycle (first);
  break_cycle (second);
  break_cycle (resumed_first);
  break_cycle (resumed_second);
}

static void
test_tool_choice_reset_survives_resume (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsTool) approval = approval_tool_new ();
  g_autoptr (AgentsModelSettings) settings = agents_model_settings_new ();
  g_autoptr (AgentsRunResult) first_run = NULL;
  g_autoptr (AgentsRunResult) resumed = NULL;
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (AgentsRunState) restored = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) used = NULL;

  agents_model_settings_set_tool_choice (settings, "required");
  agents_agent_set_model_settings (agent, settings);
  agents_agent_add_tool (agent, approval);
  agents_test_add_turn (
    model, agents_testing_function_tool_call ("approval_tool", "{}", "c1"),
    NULL);
  first_run = run_agent (agent, "hello", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (agents_model_settings_get_tool_choice (
                     agents_model_request_get_model_settings (
                       agents_scripted_model_get_last_turn_args (model))),
                   ==, "required");
  state = agents_run_result_to_state (first_run);
  restored = roundtrip (state, agent);
  used = agents_run_state_get_tools_used (restored, agent);
  g_assert_nonnull (used);
  g_assert_cmpstr (used[0], ==, "approval_tool");

  approve_first (restored);
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  resumed = resume (agent, restored, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (final_text (resumed), ==, "done");
  /* The first model call after the resume already has it reset. */
  g_assert_null (agents_model_settings_get_tool_choice (
    agents_model_request_get_model_settings (
      agents_scripted_model_get_last_turn_args (model))));
}

static void
test_resume_in_process_keeps_items (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsTool) approval = approval_tool_new ();
  g_autoptr (AgentsRunResult) first_run = NULL;
  g_autoptr (AgentsRunResult) resumed = NULL;
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (GError) error = NULL;
  JsonArray *input;

  agents_agent_add_tool (agent, approval);
  agents_test_add_turn (
    model, agents_testing_function_tool_call ("approval_tool", "{}", "c1"),
    NULL);
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  first_run = run_agent (agent, "hello", &error);
  g_assert_no_error (error);
  state = agents_run_result_to_state (first_run);
  g_assert_cmpuint (agents_run_state_get_current_turn (state), ==, 1);
  approve_first (state);
  resumed = resume (agent, state, &error);
  g_assert_no_error (error);

  /* user message, function call, its output */
  input = agents_model_request_get_input (
    agents_scripted_model_get_last_turn_args (model));
  g_assert_cmpuint (json_array_get_length (input), ==, 3);
  g_assert_cmpstr (json_object_get_string_member (
                     json_array_get_object_element (input, 2), "output"),
                   ==, "approved");
  g_assert_cmpuint (
    g_list_model_get_n_items (agents_run_result_get_raw_responses (resumed)),
    ==, 2);
}

/* ---- Identity maps ----------------------------------------------------- */

/* An agent whose fingerprint is a property, standing in for sandbox agents
 * that only their manifest and capabilities tell apart. */
#define TEST_TYPE_PRINTED_AGENT (test_printed_agent_get_type ())
G_DECLARE_FINAL_TYPE (
  TestPrintedAgent, test_printed_agent, TEST, PRINTED_AGENT, AgentsAgent)

struct _TestPrintedAgent
{
  AgentsAgent parent_instance;
  char *fingerprint;
};

G_DEFINE_FINAL_TYPE (TestPrintedAgent, test_printed_agent, AGENTS_TYPE_AGENT)

static char *
printed_identity_fingerprint (AgentsAgent *agent)
{
  return g_strdup (TEST_PRINTED_AGENT (agent)->fingerprint);
}

static void
test_printed_agent_finalize (GObject *object)
{
  g_free (TEST_PRINTED_AGENT (object)->fingerprint);
  G_OBJECT_CLASS (test_printed_agent_parent_class)->finalize (object);
}

static void
test_printed_agent_class_init (TestPrintedAgentClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_printed_agent_finalize;
  AGENTS_AGENT_CLASS (klass)->identity_fingerprint =
    printed_identity_fingerprint;
}

static void
test_printed_agent_init (TestPrintedAgent *self)
{
}

static AgentsAgent *
printed_agent_new (const char *name, const char *fingerprint)
{
  TestPrintedAgent *agent =
    g_object_new (TEST_TYPE_PRINTED_AGENT, "name", name, NULL);

  agent->fingerprint = g_strdup (fingerprint);
  return AGENTS_AGENT (agent);
}

static const char *
identity_for (AgentsAgentIdentityMap *map, AgentsAgent *agent)
{
  const char *key = agents_agent_identity_map_find_key (map, agent);

  g_assert_nonnull (key);
  g_assert_true (agents_agent_identity_map_lookup (map, key) == agent);
  return key;
}

/* The reference's test_duplicate_name_sandbox_identity_map_uses_capability_
 * and_manifest_config: what tells the duplicates apart is their
 * fingerprint (for sandbox agents: manifest and capabilities), whatever
 * the order in which the graph reaches them. */
static void
test_duplicate_name_sandbox_identity_map_uses_capability_and_manifest_config (
  void)
{
  g_autoptr (AgentsAgent) first_alpha = printed_agent_new ("sandbox", "alpha");
  g_autoptr (AgentsAgent) first_beta = printed_agent_new ("sandbox", "beta");
  g_autoptr (AgentsAgent) first_root = agents_agent_new ("triage");
  g_autoptr (AgentsAgent) second_alpha = printed_agent_new ("sandbox", "alpha");
  g_autoptr (AgentsAgent) second_beta = printed_agent_new ("sandbox", "beta");
  g_autoptr (AgentsAgent) second_root = agents_agent_new ("triage");
  g_autoptr (AgentsAgentIdentityMap) first_map = NULL;
  g_autoptr (AgentsAgentIdentityMap) second_map = NULL;

  agents_agent_add_handoff (first_root, G_OBJECT (first_beta));
  agents_agent_add_handoff (first_root, G_OBJECT (first_alpha));
  agents_agent_add_handoff (first_alpha, G_OBJECT (first_root));
  agents_agent_add_handoff (first_beta, G_OBJECT (first_root));
  agents_agent_add_handoff (second_root, G_OBJECT (second_alpha));
  agents_agent_add_handoff (second_root, G_OBJECT (second_beta));
  agents_agent_add_handoff (second_alpha, G_OBJECT (second_root));
  agents_agent_add_handoff (second_beta, G_OBJECT (second_root));

  first_map = agents_run_state_build_agent_identity_map (first_root);
  second_map = agents_run_state_build_agent_identity_map (second_root);

  g_assert_cmpstr (identity_for (first_map, first_alpha), ==,
                   identity_for (second_map, second_alpha));
  g_assert_cmpstr (identity_for (first_map, first_beta), ==,
                   identity_for (second_map, second_beta));
  g_assert_cmpstr (identity_for (first_map, first_alpha), ==, "sandbox");
  g_assert_cmpstr (identity_for (first_map, first_beta), ==, "sandbox#2");
  g_assert_cmpstr (identity_for (first_map, first_root), ==, "triage");

  /* Entries come in traversal order. */
  g_assert_cmpuint (agents_agent_identity_map_get_n_entries (first_map), ==, 3);
  g_assert_true (agents_agent_identity_map_get_agent (first_map, 0) ==
                 first_root);
  g_assert_true (agents_agent_identity_map_get_agent (first_map, 1) ==
                 first_beta);
  g_assert_cmpstr (agents_agent_identity_map_get_key (first_map, 1), ==,
                   "sandbox#2");
  g_assert_null (agents_agent_identity_map_get_key (first_map, 3));

  break_cycle (first_alpha);
  break_cycle (first_beta);
  break_cycle (second_alpha);
  break_cycle (second_beta);
}

/* The keys of the reference's test_session_manager_generates_collision_
 * free_resume_keys_for_literal_suffix_names: a suffix key never takes an
 * agent's actual name. */
static void
test_session_manager_generates_collision_free_resume_keys_for_literal_suffix_names (
  void)
{
  g_autoptr (AgentsAgent) first = agents_agent_new ("sandbox");
  g_autoptr (AgentsAgent) literal_suffix = agents_agent_new ("sandbox#2");
  g_autoptr (AgentsAgent) second = agents_agent_new ("sandbox");
  g_autoptr (AgentsAgentIdentityMap) map = NULL;

  agents_agent_add_handoff (first, G_OBJECT (literal_suffix));
  agents_agent_add_handoff (first, G_OBJECT (second));
  agents_agent_add_handoff (literal_suffix, G_OBJECT (first));
  agents_agent_add_handoff (literal_suffix, G_OBJECT (second));
  agents_agent_add_handoff (second, G_OBJECT (first));
  agents_agent_add_handoff (second, G_OBJECT (literal_suffix));

  map = agents_run_state_build_agent_identity_map (first);
  g_assert_cmpstr (identity_for (map, first), ==, "sandbox");
  g_assert_cmpstr (identity_for (map, literal_suffix), ==, "sandbox#2");
  g_assert_cmpstr (identity_for (map, second), ==, "sandbox#3");

  break_cycle (first);
  break_cycle (literal_suffix);
  break_cycle (second);
}

/* Duplicates with equal fingerprints keep the order of traversal, from the
 * starting agent: the reference's
 * test_session_manager_uses_run_state_starting_agent_for_duplicate_resume_
 * keys relies on that. */
static void
test_duplicate_names_follow_traversal_order (void)
{
  g_autoptr (AgentsAgent) first = agents_agent_new ("sandbox");
  g_autoptr (AgentsAgent) second = agents_agent_new ("sandbox");
  g_autoptr (AgentsAgent) approver = agents_agent_new ("approver");
  g_autoptr (AgentsAgentIdentityMap) from_first = NULL;
  g_autoptr (AgentsAgentIdentityMap) from_approver = NULL;

  agents_agent_add_handoff (approver, G_OBJECT (second));
  agents_agent_add_handoff (approver, G_OBJECT (first));
  agents_agent_add_handoff (first, G_OBJECT (second));
  agents_agent_add_handoff (second, G_OBJECT (approver));

  from_first = agents_run_state_build_agent_identity_map (first);
  g_assert_cmpstr (identity_for (from_first, first), ==, "sandbox");
  g_assert_cmpstr (identity_for (from_first, second), ==, "sandbox#2");
  g_assert_cmpstr (identity_for (from_first, approver), ==, "approver");
  from_approver = agents_run_state_build_agent_identity_map (approver);
  g_assert_cmpstr (identity_for (from_approver, second), ==, "sandbox");
  g_assert_cmpstr (identity_for (from_approver, first), ==, "sandbox#2");

  break_cycle (first);
  break_cycle (second);
  break_cycle (approver);
}

static void
test_identity_map_visits_agents_used_as_tools (void)
{
  g_autoptr (AgentsAgent) parent = agents_agent_new ("parent");
  g_autoptr (AgentsAgent) child = agents_agent_new ("child");
  g_autoptr (AgentsAgent) grandchild = agents_agent_new ("grandchild");
  g_autoptr (AgentsTool) tool = agents_agent_as_tool (child, NULL, NULL);
  g_autoptr (AgentsAgentIdentityMap) map = NULL;

  agents_agent_add_tool (parent, tool);
  agents_agent_add_handoff (child, G_OBJECT (grandchild));
  map = agents_run_state_build_agent_identity_map (parent);
  g_assert_cmpuint (agents_agent_identity_map_get_n_entries (map), ==, 3);
  g_assert_true (agents_agent_identity_map_lookup (map, "child") == child);
  g_assert_true (agents_agent_identity_map_lookup (map, "grandchild") ==
                 grandchild);
  g_assert_null (agents_agent_identity_map_lookup (map, "stranger"));
}

/* The run-state half of the reference's test_session_manager_restores_
 * duplicate_name_sessions_when_only_sandbox_config_differs. */
static void
test_restores_duplicate_current_agent_by_fingerprint (void)
{
  g_autoptr (AgentsAgent) first = printed_agent_new ("sandbox", "first");
  g_autoptr (AgentsAgent) second = printed_agent_new ("sandbox", "second");
  g_autoptr (AgentsAgent) root = agents_agent_new ("triage");
  g_autoptr (AgentsAgent) restored_first =
    printed_agent_new ("sandbox", "first");
  g_autoptr (AgentsAgent) restored_second =
    printed_agent_new ("sandbox", "second");
  g_autoptr (AgentsAgent) restored_root = agents_agent_new ("triage");
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);
  g_autoptr (JsonNode) input = agents_test_str_node ("hello");
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (AgentsRunState) restored = NULL;
  g_autoptr (JsonObject) sandbox = json_object_new ();

  agents_agent_add_handoff (root, G_OBJECT (second));
  agents_agent_add_handoff (root, G_OBJECT (first));
  agents_agent_add_handoff (first, G_OBJECT (root));
  agents_agent_add_handoff (second, G_OBJECT (root));
  agents_agent_add_handoff (restored_root, G_OBJECT (restored_first));
  agents_agent_add_handoff (restored_root, G_OBJECT (restored_second));
  agents_agent_add_handoff (restored_first, G_OBJECT (restored_root));
  agents_agent_add_handoff (restored_second, G_OBJECT (restored_root));

  state = agents_run_state_new (ctx, input, root);
  agents_run_state_set_current_agent (state, second);
  json_object_set_string_member (sandbox, "backend_id", "fake");
  json_object_set_string_member (sandbox, "current_agent_key", "sandbox#2");
  agents_run_state_set_sandbox (state, sandbox);

  restored = roundtrip (state, restored_root);
  g_assert_true (agents_run_state_get_current_agent (restored) ==
                 restored_second);
  g_assert_cmpstr (
    json_object_get_string_member (agents_run_state_get_sandbox (restored),
                                   "current_agent_key"),
    ==, "sandbox#2");

  break_cycle (first);
  break_cycle (second);
  break_cycle (restored_first);
  break_cycle (restored_second);
}

/* ---- JSON -------------------------------------------------------------- */

static void
test_to_json_shape (void)
{
  g_autoptr (AgentsAgent) agent = agents_agent_new ("solo");
  g_autoptr (JsonNode) input = agents_test_str_node ("hello");
  g_autoptr (AgentsRunState) state = agents_run_state_new (NULL, input, agent);
  g_autofree char *json = agents_run_state_to_json (state);
  g_autoptr (JsonNode) root = json_from_string (json, NULL);
  JsonObject *object = json_node_get_object (root);
  const char *members[] = {
    "$schemaVersion",  "current_turn",    "current_agent",    "original_input",
    "model_responses", "generated_items", "tool_use_tracker", "context",
    "current_step",    "max_turns",       "sandbox"
  };

  for (guint i = 0; i < G_N_ELEMENTS (members); i++)
    g_assert_true (json_object_has_member (object, members[i]));
  g_assert_cmpstr (json_object_get_string_member (object, "$schemaVersion"), ==,
                   "1.0");
  g_assert_cmpstr (
    json_object_get_string_member (
      json_object_get_object_member (object, "current_agent"), "key"),
    ==, "solo");
  g_assert_cmpint (json_object_get_int_member (object, "max_turns"), ==, 10);
  g_assert_true (json_object_get_null_member (object, "sandbox"));
  g_assert_true (json_object_get_null_member (object, "current_step"));
  g_assert_true (agents_run_state_get_current_agent (state) == agent);
  g_assert_true (agents_run_state_get_starting_agent (state) == agent);
}

static void
test_sandbox_member_roundtrip (void)
{
  g_autoptr (AgentsAgent) agent = agents_agent_new ("solo");
  g_autoptr (JsonNode) input = agents_test_str_node ("hello");
  g_autoptr (AgentsRunState) state = agents_run_state_new (NULL, input, agent);
  g_autoptr (AgentsRunState) restored = NULL;
  g_autoptr (JsonObject) sandbox = json_object_new ();
  g_autoptr (JsonObject) sessions = json_object_new ();
  g_autoptr (JsonNode) expected = NULL;
  g_autoptr (JsonNode) actual = NULL;

  json_object_set_string_member (sandbox, "backend_id", "fake");
  json_object_set_object_member (sandbox, "sessions_by_agent",
                                 json_object_ref (sessions));
  agents_run_state_set_sandbox (state, sandbox);
  agents_run_state_set_max_turns (state, 7);
  restored = roundtrip (state, agent);
  g_assert_cmpuint (agents_run_state_get_max_turns (restored), ==, 7);
  expected = json_node_init_object (json_node_alloc (), sandbox);
  actual = json_node_init_object (json_node_alloc (),
                                  agents_run_state_get_sandbox (restored));
  g_assert_true (json_node_equal (expected, actual));
  g_assert_true (agents_run_state_get_sandbox (restored) != sandbox);
}

static void
test_approvals_and_usage_roundtrip (void)
{
  g_autoptr (AgentsAgent) agent = agents_agent_new ("solo");
  g_autoptr (JsonNode) input = agents_test_str_node ("hello");
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);
  g_autoptr (AgentsRunState) state = agents_run_state_new (ctx, input, agent);
  g_autoptr (AgentsRunState) restored = NULL;
  g_autoptr (JsonObject) usage = json_object_new ();
  AgentsRunContext *restored_ctx;

  json_object_set_int_member (usage, "requests", 2);
  json_object_set_int_member (usage, "input_tokens", 11);
  agents_run_context_add_usage (ctx, usage);
  agents_run_context_approve_tool_call (ctx, "tool", "call_1", FALSE);
  agents_run_context_reject_tool_call (ctx, "other", NULL, TRUE);
  restored = roundtrip (state, agent);
  restored_ctx = agents_run_state_get_context (restored);
  g_assert_cmpuint (agents_run_context_get_requests (restored_ctx), ==, 2);
  g_assert_cmpuint (agents_run_context_get_input_tokens (restored_ctx), ==, 11);
  g_assert_cmpint (
    agents_run_context_is_tool_approved (restored_ctx, "tool", "call_1"), ==,
    AGENTS_APPROVAL_STATUS_APPROVED);
  g_assert_cmpint (
    agents_run_context_is_tool_approved (restored_ctx, "other", "any"), ==,
    AGENTS_APPROVAL_STATUS_REJECTED);
}

static char *
valid_state_json (AgentsAgent *agent)
{
  g_autoptr (JsonNode) input = agents_test_str_node ("hello");
  g_autoptr (AgentsRunState) state = agents_run_state_new (NULL, input, agent);

  return agents_run_state_to_json (state);
}

/* Replaces member @name of a valid state document with @value (JSON text),
 * or removes it when @value is NULL. */
static char *
state_json_with (AgentsAgent *agent, const char *name, const char *value)
{
  g_autofree char *json = valid_state_json (agent);
  g_autoptr (JsonNode) root = json_from_string (json, NULL);
  JsonObject *object = json_node_get_object (root);

  if (value == NULL)
    json_object_remove_member (object, name);
  else
    json_object_set_member (object, name, json_from_string (value, NULL));
  return json_to_string (root, FALSE);
}

static void
assert_invalid (AgentsAgent *agent, const char *json, const char *fragment)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsRunState) state =
    agents_run_state_new_from_json (agent, json, &error);

  g_assert_null (state);
  g_assert_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_INVALID_RUN_STATE);
  if (strstr (error->message, fragment) == NULL)
    g_error ("“%s” does not mention “%s”", error->message, fragment);
}

static void
test_schema_errors (void)
{
  g_autoptr (AgentsAgent) agent = agents_agent_new ("solo");
  struct
  {
    const char *member;
    const char *value;
    const char *fragment;
  } cases[] = {
    { "$schemaVersion", NULL, "$schemaVersion" },
    { "$schemaVersion", "\"9.9\"", "9.9" },
    { "$schemaVersion", "1", "$schemaVersion" },
    { "current_turn", "\"one\"", "current_turn" },
    { "current_turn", "-1", "current_turn" },
    { "max_turns", "0", "max_turns" },
    { "current_agent", "\"solo\"", "current agent" },
    { "current_agent", "{\"name\": \"stranger\", \"key\": \"stranger\"}",
      "stranger" },
    { "original_input", "42", "original input" },
    { "original_input", "[1]", "input item" },
    { "model_responses", "{}", "model_responses" },
    { "model_responses", "[3]", "Model response 0" },
    { "generated_items", "[{\"type\": \"bogus_item\"}]", "bogus_item" },
    { "generated_items",
      "[{\"type\": \"message_output_item\", \"raw_item\": {}, \"agent\": "
      "{\"key\": \"ghost\"}}]",
      "ghost" },
    { "generated_items", "[{\"type\": \"message_output_item\"}]", "raw_item" },
    { "tool_use_tracker", "{\"ghost\": [\"t\"]}", "ghost" },
    { "tool_use_tracker", "{\"solo\": [1]}", "solo" },
    { "context", "[]", "context" },
    { "context", "{\"approvals\": {\"t\": {\"approved\": 3}}}", "t" },
    { "current_step", "{\"type\": \"next_step_run_again\"}", "current step" },
    { "current_step",
      "{\"type\": \"next_step_interruption\", \"data\": {\"interruptions\": "
      "[{\"type\": \"message_output_item\", \"raw_item\": {}, \"agent\": "
      "{\"key\": \"solo\"}}]}}",
      "tool approval" },
    { "sandbox", "[]", "sandbox" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *json =
        state_json_with (agent, cases[i].member, cases[i].value);

      assert_invalid (agent, json, cases[i].fragment);
    }
}

static void
test_malformed_documents (void)
{
  g_autoptr (AgentsAgent) agent = agents_agent_new ("solo");
  GString *deep = g_string_new ("{\"$schemaVersion\": \"1.0\", \"x\": ");
  g_autofree char *deep_text = NULL;
  gint64 begin;

  assert_invalid (agent, "", "invalid JSON");
  assert_invalid (agent, "{\"$schemaVersion\": ", "invalid JSON");
  assert_invalid (agent, "[]", "not a JSON object");
  assert_invalid (agent, "\"text\"", "not a JSON object");
  assert_invalid (agent, "{}", "$schemaVersion");

  /* 200,000 levels: refused before any parser recurses. */
  for (guint i = 0; i < 200000; i++)
    g_string_append_c (deep, '[');
  deep_text = g_string_free (deep, FALSE);
  begin = g_get_monotonic_time ();
  assert_invalid (agent, deep_text, "nested deeper than 512 levels");
  g_assert_cmpint (g_get_monotonic_time () - begin, <, G_USEC_PER_SEC);
  /* Brackets in strings do not count. */
  {
    g_autofree char *json = valid_state_json (agent);
    g_autoptr (JsonNode) root = json_from_string (json, NULL);
    g_autoptr (GString) brackets = g_string_new (NULL);
    g_autofree char *text = NULL;
    g_autoptr (AgentsRunState) state = NULL;
    g_autoptr (GError) error = NULL;

    for (guint i = 0; i < 2000; i++)
      g_string_append (brackets, "[{\\\"");
    json_object_set_string_member (json_node_get_object (root),
                                   "original_input", brackets->str);
    text = json_to_string (root, FALSE);
    state = agents_run_state_new_from_json (agent, text, &error);
    g_assert_no_error (error);
    g_assert_nonnull (state);
  }
}

static void
test_foreign_agent_graph (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) alpha = agents_test_new_agent ("alpha", model);
  g_autoptr (AgentsAgent) beta = agents_agent_new ("beta");
  g_autoptr (AgentsTool) approval = approval_tool_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *json = NULL;

  agents_agent_add_tool (alpha, approval);
  agents_test_add_turn (
    model, agents_testing_function_tool_call ("approval_tool", "{}", "c1"),
    NULL);
  result = run_agent (alpha, "hello", &error);
  g_assert_no_error (error);
  state = agents_run_result_to_state (result);
  json = agents_run_state_to_json (state);
  assert_invalid (beta, json, "alpha");
}

/* Whether @a and @b hold the same agents, in order, with the same tools. */
static void
assert_trackers_equal (AgentsToolUseTracker *a, AgentsToolUseTracker *b)
{
  g_autoptr (GPtrArray) agents_a = agents_tool_use_tracker_get_agents (a);
  g_autoptr (GPtrArray) agents_b = agents_tool_use_tracker_get_agents (b);

  g_assert_cmpuint (agents_a->len, ==, agents_b->len);
  for (guint i = 0; i < agents_a->len; i++)
    {
      g_auto (GStrv) tools_a = NULL;
      g_auto (GStrv) tools_b = NULL;

      g_assert_true (agents_a->pdata[i] == agents_b->pdata[i]);
      tools_a = agents_tool_use_tracker_dup_tools (a, agents_a->pdata[i]);
      tools_b = agents_tool_use_tracker_dup_tools (b, agents_b->pdata[i]);
      g_assert_true (g_strv_equal ((const char *const *) tools_a,
                                   (const char *const *) tools_b));
    }
}

/* The runner brings the result's copy of the tracker up to date each
 * turn with what was added, and copies anew what is not a prefix. */
static void
test_tracker_update (void)
{
  g_autoptr (AgentsAgent) first = agents_agent_new ("first");
  g_autoptr (AgentsAgent) second = agents_agent_new ("second");
  g_autoptr (AgentsToolUseTracker) source = agents_tool_use_tracker_new ();
  g_autoptr (AgentsToolUseTracker) copy = agents_tool_use_tracker_new ();
  g_autoptr (AgentsToolUseTracker) other = agents_tool_use_tracker_new ();
  g_auto (GStrv) tools = NULL;

  agents_tool_use_tracker_add (source, first, "a");
  agents_tool_use_tracker_update (copy, source);
  assert_trackers_equal (copy, source);
  agents_tool_use_tracker_add (source, first, "a");
  agents_tool_use_tracker_add (source, second, "b");
  agents_tool_use_tracker_add (source, first, "c");
  agents_tool_use_tracker_update (copy, source);
  assert_trackers_equal (copy, source);
  tools = agents_tool_use_tracker_dup_tools (copy, first);
  g_assert_cmpstrv (tools, ((const char *const[]){ "a", "a", "c", NULL }));

  /* Not an earlier copy of @source: replaced by a copy. */
  agents_tool_use_tracker_add (other, second, "x");
  agents_tool_use_tracker_update (other, source);
  assert_trackers_equal (other, source);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/run/state/tracker-update", test_tracker_update);
  g_test_add_func (
    "/run/state/"
    "runner_persists_workspace_and_tool_choice_state_across_sandbox_resume",
    test_runner_persists_workspace_and_tool_choice_state_across_sandbox_resume);
  g_test_add_func (
    "/run/state/"
    "runner_restores_all_sandbox_agents_from_run_state_across_handoffs",
    test_runner_restores_all_sandbox_agents_from_run_state_across_handoffs);
  g_test_add_func (
    "/run/state/"
    "runner_restores_duplicate_name_sandbox_sessions_after_json_roundtrip",
    test_runner_restores_duplicate_name_sandbox_sessions_after_json_roundtrip);
  g_test_add_func ("/run/state/tool-choice-reset-survives-resume",
                   test_tool_choice_reset_survives_resume);
  g_test_add_func ("/run/state/resume-in-process-keeps-items",
                   test_resume_in_process_keeps_items);
  g_test_add_func (
    "/run/state/"
    "duplicate_name_sandbox_identity_map_uses_capability_and_manifest_config",
    test_duplicate_name_sandbox_identity_map_uses_capability_and_manifest_config);
  g_test_add_func (
    "/run/state/"
    "session_manager_generates_collision_free_resume_keys_for_literal_suffix_"
    "names",
    test_session_manager_generates_collision_free_resume_keys_for_literal_suffix_names);
  g_test_add_func ("/run/state/duplicate-names-follow-traversal-order",
                   test_duplicate_names_follow_traversal_order);
  g_test_add_func ("/run/state/identity-map-visits-agents-used-as-tools",
                   test_identity_map_visits_agents_used_as_tools);
  g_test_add_func ("/run/state/restores-duplicate-current-agent-by-fingerprint",
                   test_restores_duplicate_current_agent_by_fingerprint);
  g_test_add_func ("/run/state/to-json-shape", test_to_json_shape);
  g_test_add_func ("/run/state/sandbox-member-roundtrip",
                   test_sandbox_member_roundtrip);
  g_test_add_func ("/run/state/approvals-and-usage-roundtrip",
                   test_approvals_and_usage_roundtrip);
  g_test_add_func ("/run/state/schema-errors", test_schema_errors);
  g_test_add_func ("/run/state/malformed-documents", test_malformed_documents);
  g_test_add_func ("/run/state/foreign-agent-graph", test_foreign_agent_graph);

  return g_test_run ();
}
