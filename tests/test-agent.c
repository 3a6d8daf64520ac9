/* test-agent.c - agents, tools, guardrails, items and the run context
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-run-private.h"
#include "test-utils.h"

static char *
object_to_string (JsonObject *object)
{
  g_autoptr (JsonNode) node =
    json_node_init_object (json_node_alloc (), object);

  return json_to_string (node, FALSE);
}

static JsonObject *
object_from_string (const char *text)
{
  g_autoptr (JsonNode) node = json_from_string (text, NULL);

  g_assert_nonnull (node);
  return json_object_ref (json_node_get_object (node));
}

#define assert_object_json(object, expected)            \
  G_STMT_START                                          \
  {                                                     \
    g_autofree char *_text = object_to_string (object); \
    g_assert_cmpstr (_text, ==, expected);              \
  }                                                     \
  G_STMT_END

/* Invokes a tool and returns its output, asserting success. */
static JsonNode *
invoke (AgentsTool *tool,
        AgentsRunContext *ctx,
        const char *arguments,
        GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  AGENTS_TEST_AWAIT (
    result, agents_tool_invoke_async (tool, ctx, "call_1", arguments, NULL,
                                      agents_test_async_cb, &result));
  return agents_tool_invoke_finish (tool, result, error);
}

static char *
invoke_text (AgentsTool *tool, const char *arguments)
{
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) output = invoke (tool, ctx, arguments, &error);

  g_assert_no_error (error);
  g_assert_nonnull (output);
  g_assert_true (JSON_NODE_HOLDS_VALUE (output));
  return g_strdup (json_node_get_string (output));
}

/* Agent properties */

static void
test_agent_properties (void)
{
  g_autoptr (AgentsAgent) agent = agents_agent_new ("triage");
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsModelSettings) settings = NULL;
  const char *names[] = { "stop_here", NULL };
  g_autofree char *instructions = NULL;
  AgentsToolUseBehavior behavior;

  g_assert_cmpstr (agents_agent_get_name (agent), ==, "triage");
  g_assert_null (agents_agent_get_instructions (agent));
  g_assert_null (agents_agent_get_model (agent));
  g_assert_nonnull (agents_agent_get_model_settings (agent));
  g_assert_true (agents_agent_get_reset_tool_choice (agent));
  g_assert_cmpint (agents_agent_get_tool_use_behavior (agent), ==,
                   AGENTS_TOOL_USE_BEHAVIOR_RUN_LLM_AGAIN);
  g_assert_cmpuint (g_list_model_get_n_items (agents_agent_get_tools (agent)),
                    ==, 0);

  settings =
    g_object_new (AGENTS_TYPE_MODEL_SETTINGS, "tool-choice", "required", NULL);
  g_object_set (agent, "instructions", "Be brief.", "model", model,
                "model-settings", settings, "tool-use-behavior",
                AGENTS_TOOL_USE_BEHAVIOR_STOP_AT_TOOL_NAMES,
                "stop-at-tool-names", names, "reset-tool-choice", FALSE,
                "handoff-description", "Triages.", NULL);
  g_object_get (agent, "instructions", &instructions, "tool-use-behavior",
                &behavior, NULL);
  g_assert_cmpstr (instructions, ==, "Be brief.");
  g_assert_cmpint (behavior, ==, AGENTS_TOOL_USE_BEHAVIOR_STOP_AT_TOOL_NAMES);
  g_assert_true (agents_agent_get_model (agent) == AGENTS_MODEL (model));
  g_assert_true (agents_agent_get_model_settings (agent) == settings);
  g_assert_cmpstr (agents_agent_get_stop_at_tool_names (agent)[0], ==,
                   "stop_here");
  g_assert_false (agents_agent_get_reset_tool_choice (agent));
  g_assert_cmpstr (agents_agent_get_handoff_description (agent), ==,
                   "Triages.");
  g_assert_null (agents_agent_identity_fingerprint (agent));
}

static char *
dynamic_instructions (AgentsRunContext *ctx,
                      AgentsAgent *agent,
                      gpointer user_data)
{
  return g_strdup_printf ("%s for %s", (const char *) user_data,
                          agents_agent_get_name (agent));
}

static char *
system_prompt (AgentsAgent *agent)
{
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  char *prompt;

  AGENTS_TEST_AWAIT (result,
                     agents_agent_get_system_prompt_async (
                       agent, ctx, NULL, agents_test_async_cb, &result));
  prompt = agents_agent_get_system_prompt_finish (agent, result, &error);
  g_assert_no_error (error);
  return prompt;
}

static void
test_agent_system_prompt (void)
{
  g_autoptr (AgentsAgent) agent = agents_agent_new ("worker");
  g_autofree char *none = system_prompt (agent);
  g_autofree char *fixed = NULL;
  g_autofree char *dynamic = NULL;

  g_assert_null (none);
  agents_agent_set_instructions (agent, "Static.");
  fixed = system_prompt (agent);
  g_assert_cmpstr (fixed, ==, "Static.");

  agents_agent_set_instructions_func (agent, dynamic_instructions,
                                      g_strdup ("Dynamic"), g_free);
  g_assert_true (agents_agent_has_instructions_func (agent));
  dynamic = system_prompt (agent);
  g_assert_cmpstr (dynamic, ==, "Dynamic for worker");
}

static JsonObject *
dynamic_prompt (AgentsRunContext *ctx, AgentsAgent *agent, gpointer user_data)
{
  return object_from_string ("{\"id\":\"dyn\"}");
}

static void
test_agent_prompt (void)
{
  g_autoptr (AgentsAgent) agent = agents_agent_new ("worker");
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);
  g_autoptr (JsonObject) prompt =
    object_from_string ("{\"id\":\"p1\",\"version\":\"2\",\"variables\":{}}");
  g_autoptr (JsonObject) none = agents_agent_resolve_prompt (agent, ctx);
  g_autoptr (JsonObject) fixed = NULL;
  g_autoptr (JsonObject) dynamic = NULL;

  g_assert_null (none);
  agents_agent_set_prompt (agent, prompt);
  fixed = agents_agent_resolve_prompt (agent, ctx);
  assert_object_json (fixed, "{\"id\":\"p1\",\"version\":\"2\","
                             "\"variables\":{}}");
  agents_agent_set_prompt_func (agent, dynamic_prompt, NULL, NULL);
  dynamic = agents_agent_resolve_prompt (agent, ctx);
  assert_object_json (dynamic, "{\"id\":\"dyn\"}");
}

static void
test_agent_clone (void)
{
  g_autoptr (AgentsAgent) agent = agents_agent_new ("worker");
  g_autoptr (AgentsAgent) other = agents_agent_new ("other");
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsTool) tool = agents_testing_function_tool ("t1", "x");
  g_autoptr (AgentsTool) extra = agents_testing_function_tool ("t2", "y");
  g_autoptr (AgentsAgent) clone = NULL;
  g_autoptr (AgentsTool) cloned_tool = NULL;
  g_autofree char *prompt = NULL;

  agents_agent_set_model (agent, AGENTS_MODEL (model));
  agents_agent_set_instructions (agent, "Static.");
  agents_agent_set_instructions_func (agent, dynamic_instructions,
                                      g_strdup ("Dynamic"), g_free);
  agents_agent_add_tool (agent, tool);
  agents_agent_add_handoff (agent, G_OBJECT (other));
  agents_agent_set_reset_tool_choice (agent, FALSE);

  clone = agents_agent_clone (agent);
  g_assert_true (clone != agent);
  g_assert_true (G_OBJECT_TYPE (clone) == G_OBJECT_TYPE (agent));
  g_assert_cmpstr (agents_agent_get_name (clone), ==, "worker");
  g_assert_true (agents_agent_get_model (clone) == AGENTS_MODEL (model));
  g_assert_true (agents_agent_get_model_settings (clone) ==
                 agents_agent_get_model_settings (agent));
  g_assert_false (agents_agent_get_reset_tool_choice (clone));

  /* New lists with the same members. */
  g_assert_true (agents_agent_get_tools (clone) !=
                 agents_agent_get_tools (agent));
  cloned_tool = g_list_model_get_item (agents_agent_get_tools (clone), 0);
  g_assert_true (cloned_tool == tool);
  g_assert_cmpuint (
    g_list_model_get_n_items (agents_agent_get_handoffs (clone)), ==, 1);
  agents_agent_add_tool (clone, extra);
  g_assert_cmpuint (g_list_model_get_n_items (agents_agent_get_tools (agent)),
                    ==, 1);

  /* The instructions function is shared. */
  prompt = system_prompt (clone);
  g_assert_cmpstr (prompt, ==, "Dynamic for worker");

  /* Break the cycle-free references explicitly for tidiness. */
  agents_agent_set_handoffs (agent, NULL, 0);
}

static void
test_agent_find_tool (void)
{
  g_autoptr (AgentsAgent) agent = agents_agent_new ("worker");
  g_autoptr (AgentsTool) t1 = agents_testing_function_tool ("t1", "x");
  g_autoptr (AgentsTool) t2 = agents_testing_function_tool ("t2", "y");

  agents_agent_add_tool (agent, t1);
  agents_agent_add_tool (agent, t2);
  g_assert_true (agents_agent_find_tool (agent, "t2") == t2);
  g_assert_null (agents_agent_find_tool (agent, "missing"));
}

/* Handoffs */

static void
test_handoff_names (void)
{
  g_autoptr (AgentsAgent) billing = agents_agent_new ("Billing Agent");
  g_autoptr (AgentsAgent) odd = agents_agent_new ("a-b.c Ünï");
  g_autoptr (AgentsAgent) triage = agents_agent_new ("triage");
  g_autofree char *name = agents_handoff_default_tool_name (billing);
  g_autofree char *odd_name = agents_handoff_default_tool_name (odd);
  g_autofree char *description = NULL;
  g_autofree char *described = NULL;
  g_autoptr (AgentsHandoff) custom = agents_handoff_new (billing);
  g_autoptr (GPtrArray) handoffs = NULL;
  g_autoptr (JsonObject) json = NULL;
  AgentsHandoff *wrapped;

  g_assert_cmpstr (name, ==, "transfer_to_billing_agent");
  g_assert_cmpstr (odd_name, ==, "transfer_to_a_b_c__n_");

  description = agents_handoff_default_tool_description (billing);
  g_assert_cmpstr (
    description, ==,
    "Handoff to the Billing Agent agent to handle the request. ");
  agents_agent_set_handoff_description (billing, "Handles bills.");
  described = agents_handoff_default_tool_description (billing);
  g_assert_cmpstr (described, ==,
                   "Handoff to the Billing Agent agent to handle the request. "
                   "Handles bills.");

  agents_handoff_set_tool_name (custom, "to_billing");
  agents_agent_add_handoff (triage, G_OBJECT (odd));
  agents_agent_add_handoff (triage, G_OBJECT (custom));
  handoffs = agents_agent_get_handoff_objects (triage);
  g_assert_cmpuint (handoffs->len, ==, 2);
  wrapped = handoffs->pdata[0];
  g_assert_true (AGENTS_IS_HANDOFF (wrapped));
  g_assert_true (agents_handoff_get_agent (wrapped) == odd);
  g_assert_cmpstr (agents_handoff_get_tool_name (wrapped), ==,
                   "transfer_to_a_b_c__n_");
  g_assert_true (handoffs->pdata[1] == custom);
  g_assert_cmpstr (agents_handoff_get_agent_name (custom), ==, "Billing Agent");

  json = agents_handoff_to_model_json (custom);
  assert_object_json (
    json, "{\"type\":\"function\",\"name\":\"to_billing\",\"description\":"
          "\"Handoff to the Billing Agent agent to handle the request. \","
          "\"parameters\":{\"additionalProperties\":false,\"type\":\"object\","
          "\"properties\":{},\"required\":[]},\"strict\":true}");

  agents_handoff_set_tool_name (custom, NULL);
  g_assert_cmpstr (agents_handoff_get_tool_name (custom), ==,
                   "transfer_to_billing_agent");
}

static AgentsHandoffInputData *
drop_history (AgentsHandoffInputData *data, gpointer user_data)
{
  (*(int *) user_data)++;
  return agents_handoff_input_data_new (
    NULL, NULL, agents_handoff_input_data_get_new_items (data),
    agents_handoff_input_data_get_run_context (data));
}

static void
test_handoff_input_filter (void)
{
  g_autoptr (AgentsAgent) worker = agents_agent_new ("worker");
  g_autoptr (AgentsHandoff) handoff = agents_handoff_new (worker);
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);
  g_autoptr (JsonNode) history =
    json_from_string ("[{\"role\":\"user\"}]", NULL);
  g_autoptr (JsonObject) raw = agents_testing_final_output_message ("m");
  g_autoptr (AgentsRunItem) item =
    agents_run_item_new (AGENTS_RUN_ITEM_KIND_MESSAGE_OUTPUT, worker, raw);
  g_autoptr (GPtrArray) items = g_ptr_array_new ();
  g_autoptr (AgentsHandoffInputData) data = NULL;
  g_autoptr (AgentsHandoffInputData) same = NULL;
  g_autoptr (AgentsHandoffInputData) filtered = NULL;
  int calls = 0;

  g_ptr_array_add (items, item);
  data = agents_handoff_input_data_new (history, items, items, ctx);
  g_assert_false (agents_handoff_has_input_filter (handoff));
  same = agents_handoff_apply_input_filter (handoff, data);
  g_assert_true (same == data);

  agents_handoff_set_input_filter (handoff, drop_history, &calls, NULL);
  filtered = agents_handoff_apply_input_filter (handoff, data);
  g_assert_cmpint (calls, ==, 1);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (
    agents_handoff_input_data_get_input_history (filtered)));
  g_assert_cmpuint (json_array_get_length (json_node_get_array (
                      agents_handoff_input_data_get_input_history (filtered))),
                    ==, 0);
  g_assert_cmpuint (
    agents_handoff_input_data_get_pre_handoff_items (filtered)->len, ==, 0);
  g_assert_true (agents_handoff_input_data_get_new_items (filtered)->pdata[0] ==
                 item);
  g_assert_true (agents_handoff_input_data_get_run_context (filtered) == ctx);
}

/* Function tools */

typedef struct
{
  int calls;
  char *arguments;
} ToolLog;

static char *
echo_tool (AgentsRunContext *ctx,
           const char *arguments,
           gpointer user_data,
           GError **error)
{
  ToolLog *log = user_data;

  log->calls++;
  g_free (log->arguments);
  log->arguments = g_strdup (arguments);
  return g_strdup_printf ("got %s", arguments);
}

static char *
failing_tool (AgentsRunContext *ctx,
              const char *arguments,
              gpointer user_data,
              GError **error)
{
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                       "disk on fire");
  return NULL;
}

static void
test_function_tool_sync (void)
{
  ToolLog log = { 0 };
  g_autoptr (JsonObject) schema = object_from_string (
    "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}},"
    "\"required\":[\"path\"],\"additionalProperties\":false}");
  g_autoptr (AgentsFunctionTool) tool = agents_function_tool_new (
    "write_file", "Writes a file.", schema, echo_tool, &log, NULL);
  g_autoptr (JsonObject) json = agents_tool_to_model_json (AGENTS_TOOL (tool));
  g_autofree char *out = NULL;
  g_autofree char *empty = NULL;

  assert_object_json (
    json, "{\"type\":\"function\",\"name\":\"write_file\",\"description\":"
          "\"Writes a file.\",\"parameters\":{\"type\":\"object\","
          "\"properties\":{\"path\":{\"type\":\"string\"}},\"required\":["
          "\"path\"],\"additionalProperties\":false},\"strict\":true}");
  g_assert_true (agents_tool_get_strict (AGENTS_TOOL (tool)));
  g_assert_false (agents_tool_get_needs_approval (AGENTS_TOOL (tool)));

  out = invoke_text (AGENTS_TOOL (tool), "{\"path\":\"a.txt\"}");
  g_assert_cmpstr (out, ==, "got {\"path\":\"a.txt\"}");
  g_assert_cmpint (log.calls, ==, 1);

  /* No arguments at all is an empty object. */
  empty = invoke_text (AGENTS_TOOL (tool), "");
  g_assert_cmpstr (empty, ==, "got {}");
  g_assert_cmpint (log.calls, ==, 2);
  g_free (log.arguments);
}

static void
test_function_tool_bad_json (void)
{
  ToolLog log = { 0 };
  g_autoptr (AgentsFunctionTool) tool =
    agents_function_tool_new ("t", NULL, NULL, echo_tool, &log, NULL);
  g_autofree char *broken = invoke_text (AGENTS_TOOL (tool), "{oops");
  g_autofree char *not_object = invoke_text (AGENTS_TOOL (tool), "[1]");

  g_assert_cmpint (log.calls, ==, 0);
  g_assert_cmpstr (broken, ==,
                   "An error occurred while running the tool. Please try "
                   "again. Error: Invalid JSON input for tool t: {oops");
  g_assert_cmpstr (not_object, ==,
                   "An error occurred while running the tool. Please try "
                   "again. Error: Invalid JSON input for tool t: [1]");
}

static char *
custom_error (AgentsRunContext *ctx, const GError *error, gpointer user_data)
{
  return g_strdup_printf ("custom: %s", error->message);
}

static void
test_function_tool_error (void)
{
  g_autoptr (AgentsFunctionTool) tool =
    agents_function_tool_new ("t", NULL, NULL, failing_tool, NULL, NULL);
  g_autofree char *out = invoke_text (AGENTS_TOOL (tool), "{}");
  g_autofree char *custom = NULL;
  g_autofree char *back = NULL;

  g_assert_cmpstr (out, ==,
                   "An error occurred while running the tool. Please try "
                   "again. Error: disk on fire");
  agents_function_tool_set_error_func (tool, custom_error, NULL, NULL);
  custom = invoke_text (AGENTS_TOOL (tool), "{}");
  g_assert_cmpstr (custom, ==, "custom: disk on fire");
  agents_function_tool_set_error_func (tool, NULL, NULL, NULL);
  back = invoke_text (AGENTS_TOOL (tool), "{}");
  g_assert_cmpstr (back, ==, out);
}

static gboolean
complete_later (gpointer data)
{
  GTask *task = data;
  const char *arguments = g_task_get_task_data (task);

  if (g_str_equal (arguments, "{\"fail\":true}"))
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED,
                             "async failure");
  else
    agents_tool_return_text (task, "async result");
  g_object_unref (task);
  return G_SOURCE_REMOVE;
}

static void
async_tool (AgentsRunContext *ctx,
            const char *arguments,
            GTask *task,
            gpointer user_data)
{
  (*(int *) user_data)++;
  g_task_set_task_data (task, g_strdup (arguments), g_free);
  g_idle_add (complete_later, g_object_ref (task));
}

static void
test_function_tool_async (void)
{
  int calls = 0;
  g_autoptr (AgentsFunctionTool) tool = agents_function_tool_new_async (
    "slow", NULL, NULL, async_tool, &calls, NULL);
  g_autofree char *out = invoke_text (AGENTS_TOOL (tool), "{}");
  g_autofree char *failed = invoke_text (AGENTS_TOOL (tool), "{\"fail\":true}");
  g_autofree char *bad = invoke_text (AGENTS_TOOL (tool), "nope");

  g_assert_cmpstr (out, ==, "async result");
  g_assert_cmpstr (failed, ==,
                   "An error occurred while running the tool. Please try "
                   "again. Error: async failure");
  g_assert_cmpstr (bad, ==,
                   "An error occurred while running the tool. Please try "
                   "again. Error: Invalid JSON input for tool slow: nope");
  g_assert_cmpint (calls, ==, 2);
}

static void
test_function_tool_cancelled (void)
{
  int calls = 0;
  g_autoptr (AgentsFunctionTool) tool = agents_function_tool_new_async (
    "slow", NULL, NULL, async_tool, &calls, NULL);
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) output = NULL;

  g_cancellable_cancel (cancellable);
  AGENTS_TEST_AWAIT (result, agents_tool_invoke_async (
                               AGENTS_TOOL (tool), ctx, "c", "{}", cancellable,
                               agents_test_async_cb, &result));
  output = agents_tool_invoke_finish (AGENTS_TOOL (tool), result, &error);
  /* Even though this body ignores the cancellable, the call is cancelled,
   * and not turned into output for the model. */
  g_assert_null (output);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (calls, ==, 1);
}

static gboolean
needs_approval_for_rm (AgentsRunContext *ctx,
                       const char *arguments,
                       gpointer user_data)
{
  return strstr (arguments, "rm") != NULL;
}

static void
test_tool_needs_approval (void)
{
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);
  g_autoptr (AgentsTool) tool = agents_testing_function_tool ("shell", "ok");
  gboolean flag = FALSE;

  g_assert_false (agents_tool_call_needs_approval (tool, ctx, "{}"));
  g_object_set (tool, "needs-approval", TRUE, NULL);
  g_object_get (tool, "needs-approval", &flag, NULL);
  g_assert_true (flag);
  g_assert_true (agents_tool_call_needs_approval (tool, ctx, "{}"));

  /* A function decides per call, whatever the flag says. */
  agents_tool_set_needs_approval_func (tool, needs_approval_for_rm, NULL, NULL);
  g_assert_false (
    agents_tool_call_needs_approval (tool, ctx, "{\"c\":\"ls\"}"));
  g_assert_true (agents_tool_call_needs_approval (tool, ctx, "{\"c\":\"rm\"}"));
  agents_tool_set_needs_approval_func (tool, NULL, NULL, NULL);
  g_assert_true (agents_tool_call_needs_approval (tool, ctx, "{}"));
}

/* Local shell */

static char *
shell_executor (AgentsRunContext *ctx,
                JsonObject *action,
                gpointer user_data,
                GError **error)
{
  JsonArray *command = json_object_get_array_member (action, "command");
  g_autofree char *joined = NULL;
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < json_array_get_length (command); i++)
    g_string_append_printf (out, "%s%s", i ? " " : "",
                            json_array_get_string_element (command, i));
  joined = g_string_free (out, FALSE);
  if (g_str_equal (joined, "false"))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, "exit 1");
      return NULL;
    }
  return g_strdup_printf ("ran: %s", joined);
}

static void
test_local_shell_tool (void)
{
  g_autoptr (AgentsLocalShellTool) tool =
    agents_local_shell_tool_new (shell_executor, NULL, NULL);
  g_autoptr (JsonObject) json = agents_tool_to_model_json (AGENTS_TOOL (tool));
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);
  g_autofree char *from_action = NULL;
  g_autofree char *from_item = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) output = NULL;

  g_assert_cmpstr (agents_tool_get_name (AGENTS_TOOL (tool)), ==,
                   "local_shell");
  assert_object_json (json, "{\"type\":\"local_shell\"}");

  from_action = invoke_text (AGENTS_TOOL (tool),
                             "{\"type\":\"exec\",\"command\":[\"echo\",\"hi\"],"
                             "\"env\":{}}");
  g_assert_cmpstr (from_action, ==, "ran: echo hi");
  from_item = invoke_text (
    AGENTS_TOOL (tool),
    "{\"type\":\"local_shell_call\",\"id\":\"ls1\",\"call_id\":\"c1\","
    "\"status\":\"completed\",\"action\":{\"type\":\"exec\",\"command\":["
    "\"ls\"],\"env\":{}}}");
  g_assert_cmpstr (from_item, ==, "ran: ls");

  output =
    invoke (AGENTS_TOOL (tool), ctx, "{\"command\":[\"false\"]}", &error);
  g_assert_null (output);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_FAILED);
  g_clear_error (&error);

  output = invoke (AGENTS_TOOL (tool), ctx, "not json", &error);
  g_assert_null (output);
  g_assert_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_MODEL_BEHAVIOR);
}

/* Guardrails */

static AgentsGuardrailResult *
block_if_secret (AgentsRunContext *ctx,
                 AgentsAgent *agent,
                 JsonNode *input,
                 gpointer user_data)
{
  g_autoptr (JsonNode) info = json_from_string ("{\"checked\":true}", NULL);
  gboolean secret = JSON_NODE_HOLDS_VALUE (input) &&
                    g_strcmp0 (json_node_get_string (input), "secret") == 0;

  *(AgentsAgent **) user_data = agent;
  return agents_guardrail_result_new (info, secret);
}

static void
async_guardrail (AgentsRunContext *ctx,
                 AgentsAgent *agent,
                 JsonNode *output,
                 GTask *task,
                 gpointer user_data)
{
  g_autoptr (AgentsGuardrailResult) result =
    agents_guardrail_result_new (NULL, TRUE);

  agents_guardrail_return_result (task, result);
}

static void
test_guardrails (void)
{
  g_autoptr (AgentsAgent) agent = agents_agent_new ("guarded");
  AgentsAgent *seen = NULL;
  g_autoptr (AgentsInputGuardrail) input =
    agents_input_guardrail_new ("secret_check", block_if_secret, &seen, NULL);
  g_autoptr (AgentsInputGuardrail) unnamed =
    agents_input_guardrail_new (NULL, block_if_secret, &seen, NULL);
  g_autoptr (AgentsOutputGuardrail) output =
    agents_output_guardrail_new_async (NULL, async_guardrail, NULL, NULL);
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);
  g_autoptr (JsonNode) secret =
    json_node_init_string (json_node_alloc (), "secret");
  g_autoptr (JsonNode) harmless =
    json_node_init_string (json_node_alloc (), "hello");
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (AgentsGuardrailResult) verdict = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *info = NULL;

  g_assert_cmpstr (agents_input_guardrail_get_name (input), ==, "secret_check");
  g_assert_cmpstr (agents_input_guardrail_get_name (unnamed), ==,
                   "input_guardrail");
  g_assert_cmpstr (agents_output_guardrail_get_name (output), ==,
                   "output_guardrail");
  g_assert_true (agents_input_guardrail_get_run_in_parallel (input));
  agents_input_guardrail_set_run_in_parallel (input, FALSE);
  g_assert_false (agents_input_guardrail_get_run_in_parallel (input));

  agents_agent_add_input_guardrail (agent, input);
  agents_agent_add_output_guardrail (agent, output);
  g_assert_cmpuint (
    g_list_model_get_n_items (agents_agent_get_input_guardrails (agent)), ==,
    1);
  g_assert_cmpuint (
    g_list_model_get_n_items (agents_agent_get_output_guardrails (agent)), ==,
    1);

  AGENTS_TEST_AWAIT (
    result, agents_input_guardrail_run_async (input, ctx, agent, secret, NULL,
                                              agents_test_async_cb, &result));
  verdict = agents_input_guardrail_run_finish (input, result, &error);
  g_assert_no_error (error);
  g_assert_true (seen == agent);
  g_assert_true (agents_guardrail_result_get_tripwire_triggered (verdict));
  info =
    json_to_string (agents_guardrail_result_get_output_info (verdict), FALSE);
  g_assert_cmpstr (info, ==, "{\"checked\":true}");
  g_clear_pointer (&verdict, agents_guardrail_result_unref);

  AGENTS_TEST_AWAIT (
    result, agents_input_guardrail_run_async (input, ctx, agent, harmless, NULL,
                                              agents_test_async_cb, &result));
  verdict = agents_input_guardrail_run_finish (input, result, &error);
  g_assert_false (agents_guardrail_result_get_tripwire_triggered (verdict));
  g_clear_pointer (&verdict, agents_guardrail_result_unref);

  AGENTS_TEST_AWAIT (
    result, agents_output_guardrail_run_async (output, ctx, agent, NULL, NULL,
                                               agents_test_async_cb, &result));
  verdict = agents_output_guardrail_run_finish (output, result, &error);
  g_assert_no_error (error);
  g_assert_true (agents_guardrail_result_get_tripwire_triggered (verdict));
  g_assert_true (
    JSON_NODE_HOLDS_NULL (agents_guardrail_result_get_output_info (verdict)));
}

/* Run items */

static void
test_run_items (void)
{
  g_autoptr (AgentsAgent) agent = agents_agent_new ("a");
  g_autoptr (AgentsAgent) target = agents_agent_new ("b");
  g_autoptr (JsonObject) message = object_from_string (
    "{\"type\":\"message\",\"role\":\"assistant\",\"content\":["
    "{\"type\":\"output_text\",\"text\":\"Hello, \"},"
    "{\"type\":\"refusal\",\"refusal\":\"no\"},"
    "{\"type\":\"output_text\",\"text\":\"world\"},"
    "{\"type\":\"output_text\",\"text\":7}]}");
  g_autoptr (JsonObject) call =
    agents_testing_function_tool_call ("t", "{}", "call_9");
  g_autoptr (JsonObject) shell = object_from_string (
    "{\"type\":\"local_shell_call\",\"call_id\":\"s1\",\"action\":{}}");
  g_autoptr (JsonObject) output_raw = object_from_string (
    "{\"type\":\"function_call_output\",\"call_id\":\"call_9\","
    "\"output\":\"ok\"}");
  g_autoptr (JsonNode) output =
    json_node_init_string (json_node_alloc (), "ok");
  g_autoptr (AgentsRunItem) msg_item =
    agents_run_item_new (AGENTS_RUN_ITEM_KIND_MESSAGE_OUTPUT, agent, message);
  g_autoptr (AgentsRunItem) call_item =
    agents_run_item_new (AGENTS_RUN_ITEM_KIND_TOOL_CALL, agent, call);
  g_autoptr (AgentsRunItem) shell_item =
    agents_run_item_new_tool_approval (agent, shell, NULL);
  g_autoptr (AgentsRunItem) out_item =
    agents_run_item_new_tool_output (agent, output_raw, output);
  g_autoptr (AgentsRunItem) handoff_item =
    agents_run_item_new_handoff_output (agent, output_raw, agent, target);
  g_autoptr (JsonObject) input_item = NULL;
  g_autofree char *text = agents_run_item_get_text (msg_item);
  g_autofree char *no_text = agents_run_item_get_text (call_item);
  AgentsRunItemKind kind;

  g_assert_cmpstr (text, ==, "Hello, world");
  g_assert_null (no_text);
  g_assert_true (agents_run_item_get_agent (msg_item) == agent);
  g_object_get (call_item, "kind", &kind, NULL);
  g_assert_cmpint (kind, ==, AGENTS_RUN_ITEM_KIND_TOOL_CALL);
  g_assert_cmpstr (agents_run_item_get_tool_name (call_item), ==, "t");
  g_assert_cmpstr (agents_run_item_get_call_id (call_item), ==, "call_9");
  g_assert_cmpint (agents_run_item_get_kind (shell_item), ==,
                   AGENTS_RUN_ITEM_KIND_TOOL_APPROVAL);
  g_assert_cmpstr (agents_run_item_get_tool_name (shell_item), ==,
                   "local_shell");
  g_assert_cmpstr (agents_run_item_get_call_id (shell_item), ==, "s1");
  g_assert_cmpstr (json_node_get_string (agents_run_item_get_output (out_item)),
                   ==, "ok");
  g_assert_null (agents_run_item_get_output (call_item));
  g_assert_true (agents_run_item_get_source_agent (handoff_item) == agent);
  g_assert_true (agents_run_item_get_target_agent (handoff_item) == target);
  g_assert_cmpint (agents_run_item_get_kind (handoff_item), ==,
                   AGENTS_RUN_ITEM_KIND_HANDOFF_OUTPUT);

  /* The input item is an independent copy of the raw item. */
  input_item = agents_run_item_to_input_item (call_item);
  assert_object_json (input_item,
                      "{\"id\":\"1\",\"call_id\":\"call_9\",\"type\":"
                      "\"function_call\",\"name\":\"t\",\"arguments\":"
                      "\"{}\"}");
  json_object_set_string_member (input_item, "name", "changed");
  g_assert_cmpstr (agents_run_item_get_tool_name (call_item), ==, "t");
}

/* Run context */

static void
test_run_context_approvals (void)
{
  g_autoptr (GObject) user = g_object_new (G_TYPE_OBJECT, NULL);
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (user);
  g_autoptr (AgentsRunContext) restored = agents_run_context_new (NULL);
  g_autoptr (JsonObject) call =
    agents_testing_function_tool_call ("approval_tool", "{}", "call_resume");
  g_autoptr (AgentsRunItem) item =
    agents_run_item_new_tool_approval (NULL, call, NULL);
  g_autoptr (JsonObject) approvals = NULL;
  g_autoptr (JsonObject) bad =
    object_from_string ("{\"x\":{\"approved\":\"yes\"}}");
  g_autoptr (GError) error = NULL;

  g_assert_true (agents_run_context_get_context (ctx) == user);
  g_assert_cmpint (
    agents_run_context_is_tool_approved (ctx, "approval_tool", "call_resume"),
    ==, AGENTS_APPROVAL_STATUS_UNKNOWN);

  agents_run_context_approve_tool (ctx, item, FALSE);
  g_assert_cmpint (
    agents_run_context_is_tool_approved (ctx, "approval_tool", "call_resume"),
    ==, AGENTS_APPROVAL_STATUS_APPROVED);
  g_assert_cmpint (
    agents_run_context_is_tool_approved (ctx, "approval_tool", "other"), ==,
    AGENTS_APPROVAL_STATUS_UNKNOWN);

  agents_run_context_reject_tool_call (ctx, "shell", "c2", FALSE);
  g_assert_cmpint (agents_run_context_is_tool_approved (ctx, "shell", "c2"), ==,
                   AGENTS_APPROVAL_STATUS_REJECTED);
  agents_run_context_reject_tool_call (ctx, "shell", NULL, TRUE);
  g_assert_cmpint (agents_run_context_is_tool_approved (ctx, "shell", "any"),
                   ==, AGENTS_APPROVAL_STATUS_REJECTED);
  /* As in the reference: after a blanket rejection a single approval is
   * not recorded; a blanket approval replaces the rejection. */
  agents_run_context_approve_tool_call (ctx, "shell", "c3", FALSE);
  g_assert_cmpint (agents_run_context_is_tool_approved (ctx, "shell", "c3"), ==,
                   AGENTS_APPROVAL_STATUS_REJECTED);
  agents_run_context_approve_tool_call (ctx, "shell", NULL, TRUE);
  g_assert_cmpint (agents_run_context_is_tool_approved (ctx, "shell", "c3"), ==,
                   AGENTS_APPROVAL_STATUS_APPROVED);

  approvals = agents_run_context_get_approvals (ctx);
  assert_object_json (approvals,
                      "{\"approval_tool\":{\"approved\":[\"call_resume\"],"
                      "\"rejected\":[]},\"shell\":{\"approved\":true,"
                      "\"rejected\":[]}}");
  g_assert_true (
    agents_run_context_set_approvals (restored, approvals, &error));
  g_assert_no_error (error);
  g_assert_cmpint (agents_run_context_is_tool_approved (
                     restored, "approval_tool", "call_resume"),
                   ==, AGENTS_APPROVAL_STATUS_APPROVED);
  g_assert_cmpint (agents_run_context_is_tool_approved (restored, "shell", "x"),
                   ==, AGENTS_APPROVAL_STATUS_APPROVED);

  g_assert_false (agents_run_context_set_approvals (restored, bad, &error));
  g_assert_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_INVALID_RUN_STATE);
  /* Nothing changed. */
  g_assert_cmpint (agents_run_context_is_tool_approved (restored, "shell", "x"),
                   ==, AGENTS_APPROVAL_STATUS_APPROVED);
}

static void
test_run_context_usage (void)
{
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);
  g_autoptr (AgentsRunContext) restored = agents_run_context_new (NULL);
  g_autoptr (JsonObject) usage = object_from_string (
    "{\"requests\":1,\"input_tokens\":3,\"input_tokens_details\":{"
    "\"cached_tokens\":1},\"output_tokens\":4,\"output_tokens_details\":{"
    "\"reasoning_tokens\":2},\"total_tokens\":7}");
  g_autoptr (JsonObject) hostile =
    object_from_string ("{\"requests\":\"many\",\"input_tokens\":-5,"
                        "\"input_tokens_details\":3}");
  g_autoptr (JsonObject) json = NULL;
  g_autoptr (JsonObject) json2 = NULL;
  g_autofree char *text = NULL;
  g_autofree char *text2 = NULL;

  agents_run_context_add_usage (ctx, usage);
  agents_run_context_add_usage (ctx, usage);
  agents_run_context_add_usage (ctx, hostile);
  json = agents_run_context_get_usage (ctx);
  assert_object_json (json, "{\"requests\":2,\"input_tokens\":6,"
                            "\"input_tokens_details\":{\"cached_tokens\":2},"
                            "\"output_tokens\":8,\"output_tokens_details\":{"
                            "\"reasoning_tokens\":4},\"total_tokens\":14}");
  agents_run_context_set_usage (restored, json);
  json2 = agents_run_context_get_usage (restored);
  text = object_to_string (json);
  text2 = object_to_string (json2);
  g_assert_cmpstr (text, ==, text2);
}

/* Signals */

typedef struct
{
  GPtrArray *events;
} SignalLog;

static void log_event (SignalLog *log, const char *format, ...)
  G_GNUC_PRINTF (2, 3);

static void
log_event (SignalLog *log, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  g_ptr_array_add (log->events, g_strdup_vprintf (format, args));
  va_end (args);
}

static void
on_start (AgentsAgent *agent, AgentsRunContext *ctx, SignalLog *log)
{
  log_event (log, "start %s", agents_agent_get_name (agent));
}

static void
on_end (AgentsAgent *agent,
        AgentsRunContext *ctx,
        JsonNode *output,
        SignalLog *log)
{
  log_event (log, "end %s", json_node_get_string (output));
}

static void
on_llm_start (AgentsAgent *agent,
              AgentsRunContext *ctx,
              const char *prompt,
              JsonArray *input,
              SignalLog *log)
{
  log_event (log, "llm-start %s %u", prompt, json_array_get_length (input));
}

static void
on_llm_end (AgentsAgent *agent,
            AgentsRunContext *ctx,
            AgentsModelResponse *response,
            SignalLog *log)
{
  log_event (log, "llm-end %s",
             agents_model_response_get_response_id (response));
}

static void
on_tool_start (AgentsAgent *agent,
               AgentsRunContext *ctx,
               AgentsTool *tool,
               SignalLog *log)
{
  log_event (log, "tool-start %s", agents_tool_get_name (tool));
}

static void
on_write_file_start (AgentsAgent *agent,
                     AgentsRunContext *ctx,
                     AgentsTool *tool,
                     SignalLog *log)
{
  log_event (log, "tool-start::write_file %s", agents_tool_get_name (tool));
}

static void
on_tool_end (AgentsAgent *agent,
             AgentsRunContext *ctx,
             AgentsTool *tool,
             JsonNode *result,
             SignalLog *log)
{
  log_event (log, "tool-end::write_file %s", json_node_get_string (result));
}

static void
on_handoff (AgentsAgent *agent,
            AgentsRunContext *ctx,
            AgentsAgent *source,
            SignalLog *log)
{
  log_event (log, "handoff %s -> %s", agents_agent_get_name (source),
             agents_agent_get_name (agent));
}

static void
test_agent_signals (void)
{
  g_autoptr (AgentsAgent) agent = agents_agent_new ("worker");
  g_autoptr (AgentsAgent) triage = agents_agent_new ("triage");
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);
  g_autoptr (AgentsTool) write_file =
    agents_testing_function_tool ("write_file", "x");
  g_autoptr (AgentsTool) read_file =
    agents_testing_function_tool ("read_file", "y");
  g_autoptr (JsonArray) input = json_array_new ();
  g_autoptr (JsonNode) output =
    json_node_init_string (json_node_alloc (), "done");
  g_autoptr (AgentsModelResponse) response =
    agents_model_response_new (NULL, NULL, "resp-1");
  SignalLog log = { g_ptr_array_new_with_free_func (g_free) };
  const char *expected[] = {
    "start worker",
    "llm-start Prompt. 1",
    "llm-end resp-1",
    "tool-start write_file",
    "tool-start::write_file write_file",
    "tool-start read_file",
    "tool-end::write_file wrote",
    "handoff triage -> worker",
    "end done",
  };

  json_array_add_null_element (input);
  g_signal_connect (agent, "start", G_CALLBACK (on_start), &log);
  g_signal_connect (agent, "end", G_CALLBACK (on_end), &log);
  g_signal_connect (agent, "llm-start", G_CALLBACK (on_llm_start), &log);
  g_signal_connect (agent, "llm-end", G_CALLBACK (on_llm_end), &log);
  g_signal_connect (agent, "tool-start", G_CALLBACK (on_tool_start), &log);
  g_signal_connect (agent, "tool-start::write_file",
                    G_CALLBACK (on_write_file_start), &log);
  g_signal_connect (agent, "tool-end::write_file", G_CALLBACK (on_tool_end),
                    &log);
  g_signal_connect (agent, "handoff", G_CALLBACK (on_handoff), &log);

  agents_agent_emit_start (agent, ctx);
  agents_agent_emit_llm_start (agent, ctx, "Prompt.", input);
  agents_agent_emit_llm_end (agent, ctx, response);
  agents_agent_emit_tool_start (agent, ctx, write_file);
  agents_agent_emit_tool_start (agent, ctx, read_file);
  {
    g_autoptr (JsonNode) wrote =
      json_node_init_string (json_node_alloc (), "wrote");
    g_autoptr (JsonNode) read =
      json_node_init_string (json_node_alloc (), "read");

    agents_agent_emit_tool_end (agent, ctx, write_file, wrote);
    agents_agent_emit_tool_end (agent, ctx, read_file, read);
  }
  agents_agent_emit_handoff (agent, ctx, triage);
  agents_agent_emit_end (agent, ctx, output);

  g_assert_cmpuint (log.events->len, ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    g_assert_cmpstr (log.events->pdata[i], ==, expected[i]);
  g_ptr_array_unref (log.events);
}

/* Agents as tools */

typedef struct
{
  GObject *runner;
  AgentsRunConfig *config;
  AgentsAgent *agent;
  char *input;
} AsToolCall;

static AsToolCall as_tool_call;

static void
fake_run_agent_as_tool (GObject *runner,
                        AgentsRunConfig *config,
                        AgentsAgent *agent,
                        AgentsRunContext *ctx,
                        const char *input,
                        GTask *task)
{
  as_tool_call.runner = runner;
  as_tool_call.config = config;
  as_tool_call.agent = agent;
  g_free (as_tool_call.input);
  as_tool_call.input = g_strdup (input);
  if (g_str_equal (input, "structured"))
    {
      g_autoptr (JsonNode) node = json_from_string ("{\"answer\":42}", NULL);

      agents_tool_return_output (task, node);
    }
  else
    agents_tool_return_text (task, "sub-run output");
}

static void
test_agent_as_tool (void)
{
  g_autoptr (AgentsAgent) agent = agents_agent_new ("Research Agent");
  g_autoptr (AgentsTool) tool =
    agents_agent_as_tool (agent, NULL, "Researches.");
  g_autoptr (AgentsTool) named = agents_agent_as_tool (agent, "research", NULL);
  g_autoptr (AgentsTool) plain = agents_testing_function_tool ("plain", "x");
  g_autoptr (JsonObject) json = agents_tool_to_model_json (tool);
  g_autoptr (GObject) runner = g_object_new (G_TYPE_OBJECT, NULL);
  g_autoptr (AgentsRunConfig) config = agents_run_config_new ();
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);
  AgentsRunAgentAsToolFunc saved = agents_run_private_run_agent_as_tool;
  g_autofree char *without_runner = NULL;
  g_autofree char *missing_input = NULL;
  g_autoptr (JsonNode) output = NULL;
  g_autoptr (JsonNode) structured = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_cmpstr (agents_tool_get_name (tool), ==, "research_agent");
  g_assert_cmpstr (agents_tool_get_name (named), ==, "research");
  g_assert_true (agents_run_private_tool_get_agent (tool) == agent);
  g_assert_null (agents_run_private_tool_get_agent (plain));
  assert_object_json (
    json, "{\"type\":\"function\",\"name\":\"research_agent\","
          "\"description\":\"Researches.\",\"parameters\":{\"properties\":{"
          "\"input\":{\"type\":\"string\"}},\"required\":[\"input\"],"
          "\"type\":\"object\",\"additionalProperties\":false},"
          "\"strict\":true}");

  /* Without a runner to run it, the model is told so. */
  agents_run_private_run_agent_as_tool = NULL;
  without_runner = invoke_text (tool, "{\"input\":\"hi\"}");
  g_assert_cmpstr (without_runner, ==,
                   "An error occurred while running the tool. Please try "
                   "again. Error: agents used as tools need a runner");

  agents_run_private_run_agent_as_tool = fake_run_agent_as_tool;
  missing_input = invoke_text (tool, "{}");
  g_assert_true (g_str_has_prefix (
    missing_input, "An error occurred while running the tool. Please try "
                   "again. Error: Invalid JSON input for tool"));
  g_assert_null (as_tool_call.agent);

  agents_run_context_set_runner (ctx, runner);
  agents_run_context_set_run_config (ctx, config);
  output = invoke (tool, ctx, "{\"input\":\"hi\"}", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_node_get_string (output), ==, "sub-run output");
  g_assert_true (as_tool_call.runner == runner);
  g_assert_true (as_tool_call.config == config);
  g_assert_true (as_tool_call.agent == agent);
  g_assert_cmpstr (as_tool_call.input, ==, "hi");

  /* Any final output reaches the model as text. */
  structured = invoke (tool, ctx, "{\"input\":\"structured\"}", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_node_get_string (structured), ==, "{\"answer\":42}");

  agents_run_context_set_runner (ctx, NULL);
  agents_run_context_set_run_config (ctx, NULL);
  agents_run_private_run_agent_as_tool = saved;
  g_free (as_tool_call.input);
  memset (&as_tool_call, 0, sizeof as_tool_call);
}

/* Run config */

static AgentsModelInputData *
prefix_instructions (AgentsCallModelData *data, gpointer user_data)
{
  AgentsModelInputData *model_data =
    agents_call_model_data_get_model_data (data);
  g_autofree char *instructions = g_strdup_printf (
    "%s %s", agents_agent_get_name (agents_call_model_data_get_agent (data)),
    agents_model_input_data_get_instructions (model_data));

  return agents_model_input_data_new (
    instructions, agents_model_input_data_get_input (model_data));
}

static void
test_run_config (void)
{
  g_autoptr (AgentsRunConfig) config = agents_run_config_new ();
  g_autoptr (AgentsAgent) agent = agents_agent_new ("filtered");
  g_autoptr (GObject) user = g_object_new (G_TYPE_OBJECT, NULL);
  g_autoptr (JsonArray) input = json_array_new ();
  g_autoptr (AgentsModelInputData) model_data =
    agents_model_input_data_new ("Base.", input);
  g_autoptr (AgentsCallModelData) data =
    agents_call_model_data_new (agent, user, model_data);
  g_autoptr (AgentsModelInputData) same = NULL;
  g_autoptr (AgentsModelInputData) changed = NULL;

  g_assert_cmpuint (agents_run_config_get_max_turns (config), ==, 10);
  g_assert_cmpstr (agents_run_config_get_workflow_name (config), ==,
                   "Agent workflow");
  g_assert_false (agents_run_config_get_tracing_disabled (config));
  g_assert_null (agents_run_config_get_model (config));
  g_assert_null (agents_run_config_get_sandbox (config));
  agents_run_config_set_workflow_name (config, NULL);
  g_assert_cmpstr (agents_run_config_get_workflow_name (config), ==,
                   "Agent workflow");
  g_object_set (config, "max-turns", 3, NULL);
  g_assert_cmpuint (agents_run_config_get_max_turns (config), ==, 3);

  g_assert_true (agents_call_model_data_get_context (data) == user);
  g_assert_false (agents_run_config_has_call_model_input_filter (config));
  same = agents_run_config_apply_call_model_input_filter (config, data);
  g_assert_true (same == model_data);

  agents_run_config_set_call_model_input_filter (config, prefix_instructions,
                                                 NULL, NULL);
  changed = agents_run_config_apply_call_model_input_filter (config, data);
  g_assert_cmpstr (agents_model_input_data_get_instructions (changed), ==,
                   "filtered Base.");
  g_assert_true (agents_model_input_data_get_input (changed) == input);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/agent/agent/properties", test_agent_properties);
  g_test_add_func ("/agent/agent/system-prompt", test_agent_system_prompt);
  g_test_add_func ("/agent/agent/prompt", test_agent_prompt);
  g_test_add_func ("/agent/agent/clone", test_agent_clone);
  g_test_add_func ("/agent/agent/find-tool", test_agent_find_tool);
  g_test_add_func ("/agent/agent/signals", test_agent_signals);
  g_test_add_func ("/agent/agent/as-tool", test_agent_as_tool);
  g_test_add_func ("/agent/handoff/names", test_handoff_names);
  g_test_add_func ("/agent/handoff/input-filter", test_handoff_input_filter);
  g_test_add_func ("/agent/function-tool/sync", test_function_tool_sync);
  g_test_add_func ("/agent/function-tool/bad-json",
                   test_function_tool_bad_json);
  g_test_add_func ("/agent/function-tool/error", test_function_tool_error);
  g_test_add_func ("/agent/function-tool/async", test_function_tool_async);
  g_test_add_func ("/agent/function-tool/cancelled",
                   test_function_tool_cancelled);
  g_test_add_func ("/agent/tool/needs-approval", test_tool_needs_approval);
  g_test_add_func ("/agent/tool/local-shell", test_local_shell_tool);
  g_test_add_func ("/agent/guardrail/input-and-output", test_guardrails);
  g_test_add_func ("/agent/run-item/accessors", test_run_items);
  g_test_add_func ("/agent/run-context/approvals", test_run_context_approvals);
  g_test_add_func ("/agent/run-context/usage", test_run_context_usage);
  g_test_add_func ("/agent/run-config/defaults-and-filter", test_run_config);

  return g_test_run ();
}
