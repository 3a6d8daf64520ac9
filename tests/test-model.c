/* test-model.c - model settings, the scripted model, testing helpers
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

static char *
array_to_string (JsonArray *array)
{
  g_autoptr (JsonNode) node = json_node_init_array (json_node_alloc (), array);

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

/* Model settings */

static void
test_settings_unset_by_default (void)
{
  g_autoptr (AgentsModelSettings) settings =
    g_object_new (AGENTS_TYPE_MODEL_SETTINGS, "tool-choice", "required", NULL);
  g_autoptr (JsonObject) json = agents_model_settings_to_json (settings);

  g_assert_cmpstr (agents_model_settings_get_tool_choice (settings), ==,
                   "required");
  g_assert_false (agents_model_settings_has_temperature (settings));
  g_assert_false (agents_model_settings_has_top_p (settings));
  g_assert_false (agents_model_settings_has_max_tokens (settings));
  g_assert_false (agents_model_settings_has_parallel_tool_calls (settings));
  g_assert_false (agents_model_settings_has_store (settings));
  g_assert_null (agents_model_settings_get_truncation (settings));
  g_assert_null (agents_model_settings_get_extra_args (settings));
  assert_object_json (json, "{\"tool_choice\":\"required\"}");

  agents_model_settings_set_temperature (settings, 0.0);
  g_assert_true (agents_model_settings_has_temperature (settings));
  agents_model_settings_unset_temperature (settings);
  g_assert_false (agents_model_settings_has_temperature (settings));
  agents_model_settings_set_tool_choice (settings, NULL);
  g_assert_null (agents_model_settings_get_tool_choice (settings));
}

static void
test_settings_merge (void)
{
  g_autoptr (AgentsModelSettings) base = agents_model_settings_new ();
  g_autoptr (AgentsModelSettings) override = agents_model_settings_new ();
  g_autoptr (AgentsModelSettings) merged = NULL;
  g_autoptr (JsonObject) base_extra = object_from_string ("{\"a\":1,\"b\":2}");
  g_autoptr (JsonObject) over_extra = object_from_string ("{\"b\":3,\"c\":4}");
  g_autoptr (JsonObject) json = NULL;

  agents_model_settings_set_temperature (base, 0.5);
  agents_model_settings_set_tool_choice (base, "auto");
  agents_model_settings_set_store (base, TRUE);
  agents_model_settings_set_extra_args (base, base_extra);
  agents_model_settings_set_tool_choice (override, "required");
  agents_model_settings_set_max_tokens (override, 10);
  agents_model_settings_set_store (override, FALSE);
  agents_model_settings_set_extra_args (override, over_extra);

  merged = agents_model_settings_merge (base, override);
  json = agents_model_settings_to_json (merged);
  assert_object_json (json, "{\"temperature\":0.5,\"tool_choice\":\"required\","
                            "\"max_tokens\":10,\"store\":false,"
                            "\"extra_args\":{\"a\":1,\"b\":3,\"c\":4}}");

  /* Neither input changed. */
  g_assert_cmpstr (agents_model_settings_get_tool_choice (base), ==, "auto");
  g_assert_false (agents_model_settings_has_max_tokens (base));
  assert_object_json (agents_model_settings_get_extra_args (base),
                      "{\"a\":1,\"b\":2}");

  /* NULL on either side. */
  g_clear_object (&merged);
  merged = agents_model_settings_merge (NULL, override);
  g_assert_true (agents_model_settings_equal (merged, override));
  g_clear_object (&merged);
  merged = agents_model_settings_merge (base, NULL);
  g_assert_true (agents_model_settings_equal (merged, base));
}

static void
test_settings_json (void)
{
  const char *text =
    "{\"temperature\":0.25,\"top_p\":1.0,\"tool_choice\":\"none\","
    "\"parallel_tool_calls\":true,\"truncation\":\"auto\",\"max_tokens\":7,"
    "\"reasoning\":{\"effort\":\"low\"},\"metadata\":{\"k\":\"v\"},"
    "\"store\":true,\"top_logprobs\":2,"
    "\"response_include\":[\"reasoning.encrypted_content\"],"
    "\"extra_args\":{\"x\":[1,2]}}";
  g_autoptr (JsonObject) input = object_from_string (text);
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsModelSettings) settings =
    agents_model_settings_new_from_json (input, &error);
  g_autoptr (AgentsModelSettings) copy = NULL;
  g_autoptr (JsonObject) output = NULL;

  g_assert_no_error (error);
  output = agents_model_settings_to_json (settings);
  assert_object_json (output, text);
  g_assert_cmpfloat (agents_model_settings_get_temperature (settings), ==,
                     0.25);
  g_assert_true (agents_model_settings_get_parallel_tool_calls (settings));
  g_assert_cmpint (agents_model_settings_get_top_logprobs (settings), ==, 2);
  g_assert_cmpstr (agents_model_settings_get_response_include (settings)[0], ==,
                   "reasoning.encrypted_content");

  copy = agents_model_settings_copy (settings);
  g_assert_true (agents_model_settings_equal (copy, settings));
  /* A deep copy: changing the copy's JSON leaves the original alone. */
  json_object_set_string_member (agents_model_settings_get_metadata (copy), "k",
                                 "changed");
  g_assert_false (agents_model_settings_equal (copy, settings));
}

static void
test_settings_json_errors (void)
{
  g_autoptr (JsonObject) bad = object_from_string ("{\"temperature\":\"hot\"}");
  g_autoptr (JsonObject) bad_include =
    object_from_string ("{\"response_include\":[\"a\",3]}");
  g_autoptr (JsonObject) nulls =
    object_from_string ("{\"temperature\":null,\"future_member\":1,"
                        "\"max_tokens\":3}");
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsModelSettings) settings = NULL;

  settings = agents_model_settings_new_from_json (bad, &error);
  g_assert_null (settings);
  g_assert_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_USER_ERROR);
  g_clear_error (&error);

  settings = agents_model_settings_new_from_json (bad_include, &error);
  g_assert_null (settings);
  g_assert_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_USER_ERROR);
  g_assert_nonnull (strstr (error->message, "response_include"));
  g_clear_error (&error);

  settings = agents_model_settings_new_from_json (nulls, &error);
  g_assert_no_error (error);
  g_assert_false (agents_model_settings_has_temperature (settings));
  g_assert_cmpint (agents_model_settings_get_max_tokens (settings), ==, 3);
}

/* Run errors */

static void
test_run_error_context (void)
{
  g_auto (GVariantBuilder) builder =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) context = NULL;
  g_autoptr (GVariant) looked_up = NULL;
  g_autoptr (GError) copy = NULL;
  g_autoptr (GVariant) copy_context = NULL;
  const char *value = NULL;

  g_variant_builder_add (&builder, "{sv}", "turns", g_variant_new_int32 (3));
  agents_run_error_set (&error, AGENTS_RUN_ERROR_MAX_TURNS_EXCEEDED,
                        g_variant_builder_end (&builder),
                        "Max turns (%d) exceeded", 3);
  g_assert_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_MAX_TURNS_EXCEEDED);
  g_assert_cmpstr (error->message, ==, "Max turns (3) exceeded");
  context = agents_run_error_get_context (error);
  g_assert_true (g_variant_is_of_type (context, G_VARIANT_TYPE_VARDICT));
  g_assert_cmpuint (g_variant_n_children (context), ==, 1);

  /* What a binding does: only domain, code and message survive. */
  looked_up = agents_run_error_lookup_context (error->domain, error->code,
                                               error->message);
  g_assert_true (g_variant_equal (looked_up, context));

  copy = g_error_copy (error);
  copy_context = agents_run_error_get_context (copy);
  g_assert_true (g_variant_equal (copy_context, context));

  g_clear_error (&error);
  agents_run_error_set (&error, AGENTS_RUN_ERROR_FAILED, NULL, "plain");
  g_clear_pointer (&context, g_variant_unref);
  context = agents_run_error_get_context (error);
  g_assert_cmpuint (g_variant_n_children (context), ==, 0);
  g_assert_false (g_variant_lookup (context, "x", "&s", &value));
}

static void
test_run_error_guardrail_tripwire (void)
{
  g_autoptr (JsonNode) info = json_from_string ("{\"reason\":\"no\"}", NULL);
  g_autoptr (AgentsGuardrailResult) result =
    agents_guardrail_result_new (info, TRUE);
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) context = NULL;
  const char *name = NULL;
  const char *output_info = NULL;

  agents_run_error_set_guardrail_tripwire (
    &error, AGENTS_RUN_ERROR_INPUT_GUARDRAIL_TRIPWIRE, "blocker", result);
  g_assert_error (error, AGENTS_RUN_ERROR,
                  AGENTS_RUN_ERROR_INPUT_GUARDRAIL_TRIPWIRE);
  g_assert_cmpstr (error->message, ==,
                   "Guardrail InputGuardrail triggered tripwire");
  context = agents_run_error_get_context (error);
  g_assert_true (g_variant_lookup (context, "guardrail", "&s", &name));
  g_assert_cmpstr (name, ==, "blocker");
  g_assert_true (g_variant_lookup (context, "output_info", "&s", &output_info));
  g_assert_cmpstr (output_info, ==, "{\"reason\":\"no\"}");

  g_clear_error (&error);
  agents_run_error_set_guardrail_tripwire (
    &error, AGENTS_RUN_ERROR_OUTPUT_GUARDRAIL_TRIPWIRE, "out", result);
  g_assert_cmpstr (error->message, ==,
                   "Guardrail OutputGuardrail triggered tripwire");
}

/* Testing helpers */

static void
test_testing_helpers_json (void)
{
  g_autoptr (JsonObject) message = agents_testing_final_output_message ("hi");
  g_autoptr (JsonObject) call =
    agents_testing_function_tool_call ("write_file", "{\"path\":\"a\"}", NULL);
  g_autoptr (JsonObject) call2 =
    agents_testing_function_tool_call ("t", NULL, "call_x");
  g_autoptr (JsonObject) reasoning =
    agents_testing_reasoning_item ("r1", "thinking");
  g_autoptr (AgentsAgent) worker = agents_agent_new ("Billing Agent");
  g_autoptr (JsonObject) handoff = agents_testing_handoff_tool_call (worker);

  assert_object_json (
    message, "{\"id\":\"1\",\"type\":\"message\",\"role\":\"assistant\","
             "\"content\":[{\"type\":\"output_text\",\"text\":\"hi\","
             "\"annotations\":[]}],\"status\":\"completed\"}");
  assert_object_json (call, "{\"id\":\"1\",\"call_id\":\"2\",\"type\":"
                            "\"function_call\",\"name\":\"write_file\","
                            "\"arguments\":\"{\\\"path\\\":\\\"a\\\"}\"}");
  assert_object_json (call2, "{\"id\":\"1\",\"call_id\":\"call_x\",\"type\":"
                             "\"function_call\",\"name\":\"t\","
                             "\"arguments\":\"\"}");
  assert_object_json (reasoning,
                      "{\"id\":\"r1\",\"type\":\"reasoning\",\"summary\":[{"
                      "\"type\":\"summary_text\",\"text\":\"thinking\"}]}");
  assert_object_json (handoff, "{\"id\":\"1\",\"call_id\":\"2\",\"type\":"
                               "\"function_call\",\"name\":"
                               "\"transfer_to_billing_agent\","
                               "\"arguments\":\"{}\"}");
}

static void
test_testing_function_tool (void)
{
  g_autoptr (AgentsTool) tool = agents_testing_function_tool ("t1", "result");
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) output = NULL;
  g_autoptr (JsonObject) json = agents_tool_to_model_json (tool);

  assert_object_json (json, "{\"type\":\"function\",\"name\":\"t1\","
                            "\"description\":\"\",\"parameters\":{"
                            "\"additionalProperties\":false,\"type\":"
                            "\"object\",\"properties\":{},\"required\":[]},"
                            "\"strict\":true}");
  AGENTS_TEST_AWAIT (result,
                     agents_tool_invoke_async (tool, ctx, "2", "{}", NULL,
                                               agents_test_async_cb, &result));
  output = agents_tool_invoke_finish (tool, result, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_node_get_string (output), ==, "result");
}

/* Scripted model */

static JsonArray *
message_items (const char *text)
{
  return agents_testing_items (agents_testing_final_output_message (text),
                               NULL);
}

static AgentsModelResponse *
call_model (AgentsScriptedModel *model,
            AgentsModelRequest *request,
            GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  AGENTS_TEST_AWAIT (result, agents_model_get_response_async (
                               AGENTS_MODEL (model), request, NULL,
                               agents_test_async_cb, &result));
  return agents_model_get_response_finish (AGENTS_MODEL (model), result, error);
}

/* The text of the first output item, or "" for an empty output. */
static char *
call_text (AgentsScriptedModel *model)
{
  g_autoptr (AgentsModelRequest) request = agents_model_request_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsModelResponse) response =
    call_model (model, request, &error);
  JsonArray *output;
  g_autoptr (AgentsRunItem) item = NULL;

  g_assert_no_error (error);
  output = agents_model_response_get_output (response);
  if (json_array_get_length (output) == 0)
    return g_strdup ("");
  item = agents_run_item_new (AGENTS_RUN_ITEM_KIND_MESSAGE_OUTPUT, NULL,
                              json_array_get_object_element (output, 0));
  return agents_run_item_get_text (item);
}

#define assert_next_text(model, expected)       \
  G_STMT_START                                  \
  {                                             \
    g_autofree char *_text = call_text (model); \
    g_assert_cmpstr (_text, ==, expected);      \
  }                                             \
  G_STMT_END

static void
test_scripted_initial_output (void)
{
  g_autoptr (JsonArray) items = message_items ("done");
  g_autoptr (AgentsScriptedModel) model =
    agents_scripted_model_new_with_initial_output (items);
  g_autoptr (JsonArray) empty = json_array_new ();
  g_autoptr (AgentsScriptedModel) empty_model =
    agents_scripted_model_new_with_initial_output (empty);

  g_assert_cmpuint (agents_scripted_model_get_n_turn_outputs (model), ==, 1);
  assert_next_text (model, "done");
  /* The queue is empty now: an empty output, again and again. */
  assert_next_text (model, "");
  assert_next_text (model, "");

  g_assert_cmpuint (agents_scripted_model_get_n_turn_outputs (empty_model), ==,
                    0);
  g_assert_null (agents_scripted_model_get_first_turn_args (empty_model));
}

static void
test_scripted_queue (void)
{
  g_autoptr (JsonArray) initial = message_items ("initial");
  g_autoptr (AgentsScriptedModel) model =
    agents_scripted_model_new_with_initial_output (initial);
  g_autoptr (JsonArray) one = message_items ("one");
  g_autoptr (JsonArray) two = message_items ("two");
  g_autoptr (JsonArray) three = message_items ("three");
  g_autoptr (GPtrArray) outputs = g_ptr_array_new ();

  /* set_next_output appends after the initial output. */
  agents_scripted_model_set_next_output (model, one);
  g_ptr_array_add (outputs, two);
  g_ptr_array_add (outputs, three);
  agents_scripted_model_add_multiple_turn_outputs (model, outputs);
  g_assert_cmpuint (agents_scripted_model_get_n_turn_outputs (model), ==, 4);

  assert_next_text (model, "initial");
  assert_next_text (model, "one");
  assert_next_text (model, "two");
  assert_next_text (model, "three");
  assert_next_text (model, "");

  /* turn_outputs = [...] replaces what is left, the initial output too. */
  agents_scripted_model_set_next_output (model, one);
  agents_scripted_model_set_turn_outputs (model, outputs);
  assert_next_text (model, "two");
  assert_next_text (model, "three");
  assert_next_text (model, "");
}

static void
test_scripted_error (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (JsonArray) after = message_items ("after");
  g_autoptr (GError) queued =
    g_error_new_literal (G_IO_ERROR, G_IO_ERROR_BUSY, "model busy");
  g_autoptr (AgentsModelRequest) request = agents_model_request_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsModelResponse) response = NULL;

  agents_scripted_model_set_next_error (model, queued);
  agents_scripted_model_set_next_output (model, after);

  response = call_model (model, request, &error);
  g_assert_null (response);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_BUSY);
  g_assert_cmpstr (error->message, ==, "model busy");
  /* The failing turn was still recorded. */
  g_assert_nonnull (agents_scripted_model_get_first_turn_args (model));
  assert_next_text (model, "after");
}

static AgentsModelRequest *
full_request (const char *instructions, const char *user_text)
{
  AgentsModelRequest *request = agents_model_request_new ();
  g_autoptr (JsonArray) input = json_array_new ();
  JsonObject *user = json_object_new ();
  g_autoptr (AgentsModelSettings) settings = agents_model_settings_new ();
  g_autoptr (GPtrArray) tools = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GPtrArray) handoffs =
    g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (AgentsAgent) worker = agents_agent_new ("worker");
  g_autoptr (JsonObject) schema = object_from_string ("{\"type\":\"object\"}");

  json_object_set_string_member (user, "role", "user");
  json_object_set_string_member (user, "content", user_text);
  json_array_add_object_element (input, user);
  agents_model_settings_set_tool_choice (settings, "required");
  g_ptr_array_add (tools, agents_testing_function_tool ("tool1", "x"));
  g_ptr_array_add (handoffs, agents_handoff_new (worker));

  agents_model_request_set_system_instructions (request, instructions);
  agents_model_request_set_input (request, input);
  agents_model_request_set_model_settings (request, settings);
  agents_model_request_set_tools (request, tools);
  agents_model_request_set_handoffs (request, handoffs);
  agents_model_request_set_output_schema (request, schema);
  agents_model_request_set_previous_response_id (request, "resp-prev");
  return request;
}

static void
test_scripted_recorded_args (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsModelRequest) first = full_request ("First.", "hello");
  g_autoptr (AgentsModelRequest) second = full_request ("Second.", "again");
  g_autoptr (AgentsModelResponse) r1 = NULL;
  g_autoptr (AgentsModelResponse) r2 = NULL;
  AgentsModelRequest *args;
  GPtrArray *tools;
  GPtrArray *handoffs;
  g_autofree char *input_text = NULL;

  g_assert_null (agents_scripted_model_get_first_turn_args (model));
  g_assert_null (agents_scripted_model_get_last_turn_args (model));

  r1 = call_model (model, first, NULL);
  g_assert_nonnull (r1);
  g_assert_cmpstr (agents_model_response_get_response_id (r1), ==, "resp-789");

  /* Changing the caller's input later does not change what was recorded. */
  json_array_add_null_element (agents_model_request_get_input (first));

  r2 = call_model (model, second, NULL);
  g_assert_nonnull (r2);

  args = agents_scripted_model_get_first_turn_args (model);
  g_assert_cmpstr (agents_model_request_get_system_instructions (args), ==,
                   "First.");
  input_text = array_to_string (agents_model_request_get_input (args));
  g_assert_cmpstr (input_text, ==,
                   "[{\"role\":\"user\",\"content\":\"hello\"}]");
  g_assert_cmpstr (agents_model_settings_get_tool_choice (
                     agents_model_request_get_model_settings (args)),
                   ==, "required");
  tools = agents_model_request_get_tools (args);
  g_assert_cmpuint (tools->len, ==, 1);
  g_assert_cmpstr (agents_tool_get_name (tools->pdata[0]), ==, "tool1");
  handoffs = agents_model_request_get_handoffs (args);
  g_assert_cmpuint (handoffs->len, ==, 1);
  g_assert_cmpstr (agents_handoff_get_tool_name (handoffs->pdata[0]), ==,
                   "transfer_to_worker");
  assert_object_json (agents_model_request_get_output_schema (args),
                      "{\"type\":\"object\"}");
  g_assert_cmpstr (agents_model_request_get_previous_response_id (args), ==,
                   "resp-prev");

  args = agents_scripted_model_get_last_turn_args (model);
  g_assert_cmpstr (agents_model_request_get_system_instructions (args), ==,
                   "Second.");
}

typedef struct
{
  GPtrArray *types;
  GPtrArray *texts;
} EventLog;

static void
on_event (AgentsModelEventSink *sink, JsonObject *event, gpointer user_data)
{
  EventLog *log = user_data;
  const char *type = json_object_get_string_member (event, "type");

  g_ptr_array_add (log->types, g_strdup (type));
  if (g_str_equal (type, "response.output_text.delta"))
    g_ptr_array_add (log->texts,
                     g_strdup (json_object_get_string_member (event, "delta")));
}

static AgentsModelResponse *
stream_model (AgentsScriptedModel *model,
              AgentsModelRequest *request,
              EventLog *log,
              GError **error)
{
  g_autoptr (AgentsModelEventSink) sink = agents_model_event_sink_new ();
  g_autoptr (GAsyncResult) result = NULL;

  g_signal_connect (sink, "event", G_CALLBACK (on_event), log);
  AGENTS_TEST_AWAIT (result, agents_model_stream_response_async (
                               AGENTS_MODEL (model), request, sink, NULL,
                               agents_test_async_cb, &result));
  return agents_model_stream_response_finish (AGENTS_MODEL (model), result,
                                              error);
}

static void
test_scripted_streaming (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (JsonArray) items = agents_testing_items (
    agents_testing_reasoning_item ("r", "think"),
    agents_testing_final_output_message ("streamed done"),
    agents_testing_function_tool_call ("tool1", "{}", NULL), NULL);
  g_autoptr (GError) queued =
    g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED, "stream failed");
  g_autoptr (AgentsModelRequest) request = full_request ("Streamed.", "hi");
  g_autoptr (AgentsModelResponse) response = NULL;
  g_autoptr (GError) error = NULL;
  EventLog log = { g_ptr_array_new_with_free_func (g_free),
                   g_ptr_array_new_with_free_func (g_free) };
  const char *expected[] = {
    "response.created",           "response.output_item.added",
    "response.output_item.done",  "response.output_item.added",
    "response.output_text.delta", "response.output_item.done",
    "response.output_item.added", "response.output_item.done",
    "response.completed",
  };

  agents_scripted_model_set_next_output (model, items);
  agents_scripted_model_set_next_error (model, queued);

  response = stream_model (model, request, &log, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (
    json_array_get_length (agents_model_response_get_output (response)), ==, 3);
  g_assert_cmpuint (log.types->len, ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    g_assert_cmpstr (log.types->pdata[i], ==, expected[i]);
  g_assert_cmpuint (log.texts->len, ==, 1);
  g_assert_cmpstr (log.texts->pdata[0], ==, "streamed done");
  /* Streaming records the request too. */
  g_assert_cmpstr (agents_model_request_get_system_instructions (
                     agents_scripted_model_get_first_turn_args (model)),
                   ==, "Streamed.");

  /* A queued error fails the streamed turn before any event. */
  g_clear_object (&response);
  g_ptr_array_set_size (log.types, 0);
  response = stream_model (model, request, &log, &error);
  g_assert_null (response);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_FAILED);
  g_assert_cmpuint (log.types->len, ==, 0);

  g_ptr_array_unref (log.types);
  g_ptr_array_unref (log.texts);
}

static void
test_scripted_hardcoded_usage (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (JsonObject) usage = object_from_string (
    "{\"requests\":1,\"input_tokens\":10,\"output_tokens\":5,"
    "\"total_tokens\":15}");
  g_autoptr (AgentsModelRequest) request = agents_model_request_new ();
  g_autoptr (AgentsModelResponse) response = NULL;
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);

  response = call_model (model, request, NULL);
  assert_object_json (agents_model_response_get_usage (response),
                      "{\"requests\":0,\"input_tokens\":0,"
                      "\"input_tokens_details\":{\"cached_tokens\":0},"
                      "\"output_tokens\":0,\"output_tokens_details\":{"
                      "\"reasoning_tokens\":0},\"total_tokens\":0}");
  {
    g_autoptr (AgentsModelResponse) other =
      agents_model_response_new (NULL, NULL, NULL);

    /* Responses without a usage share one sealed zero usage. */
    g_assert_true (agents_model_response_get_usage (other) ==
                   agents_model_response_get_usage (response));
    g_assert_true (
      json_object_is_immutable (agents_model_response_get_usage (other)));
  }
  g_clear_object (&response);

  agents_scripted_model_set_hardcoded_usage (model, usage);
  response = call_model (model, request, NULL);
  agents_run_context_add_usage (ctx,
                                agents_model_response_get_usage (response));
  agents_run_context_add_usage (ctx,
                                agents_model_response_get_usage (response));
  g_assert_cmpuint (agents_run_context_get_requests (ctx), ==, 2);
  g_assert_cmpuint (agents_run_context_get_input_tokens (ctx), ==, 20);
  g_assert_cmpuint (agents_run_context_get_output_tokens (ctx), ==, 10);
  g_assert_cmpuint (agents_run_context_get_total_tokens (ctx), ==, 30);
}

static void
test_response_json (void)
{
  g_autoptr (JsonArray) items = message_items ("x");
  g_autoptr (AgentsModelResponse) response =
    agents_model_response_new (items, NULL, "resp-1");
  g_autoptr (JsonObject) json = agents_model_response_to_json (response);
  g_autoptr (AgentsModelResponse) back = NULL;
  g_autoptr (JsonObject) json2 = NULL;
  g_autoptr (JsonObject) bad = object_from_string ("{\"output\":3}");
  g_autoptr (GError) error = NULL;
  g_autofree char *text = object_to_string (json);
  g_autofree char *text2 = NULL;

  back = agents_model_response_new_from_json (json, &error);
  g_assert_no_error (error);
  json2 = agents_model_response_to_json (back);
  text2 = object_to_string (json2);
  g_assert_cmpstr (text, ==, text2);
  g_assert_true (g_str_has_prefix (text, "{\"usage\":{\"requests\":0,"));

  g_clear_object (&back);
  back = agents_model_response_new_from_json (bad, &error);
  g_assert_null (back);
  g_assert_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_INVALID_RUN_STATE);
}

/* A model written the way a binding would: only get_response. */

#define TEST_TYPE_ECHO_MODEL (test_echo_model_get_type ())
G_DECLARE_FINAL_TYPE (TestEchoModel, test_echo_model, TEST, ECHO_MODEL, GObject)

struct _TestEchoModel
{
  GObject parent_instance;
};

static void
echo_get_response (AgentsModel *model, AgentsModelRequest *request, GTask *task)
{
  g_autoptr (JsonArray) items =
    message_items (agents_model_request_get_system_instructions (request));
  g_autoptr (AgentsModelResponse) response =
    agents_model_response_new (items, NULL, NULL);

  agents_model_return_response (task, response);
}

static void
echo_iface_init (AgentsModelInterface *iface)
{
  iface->get_response = echo_get_response;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (TestEchoModel,
                               test_echo_model,
                               G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (AGENTS_TYPE_MODEL,
                                                      echo_iface_init))

static void
test_echo_model_class_init (TestEchoModelClass *klass)
{
}

static void
test_echo_model_init (TestEchoModel *self)
{
}

static void
test_model_default_streaming (void)
{
  g_autoptr (AgentsModel) model = g_object_new (TEST_TYPE_ECHO_MODEL, NULL);
  g_autoptr (AgentsModelEventSink) sink = agents_model_event_sink_new ();
  g_autoptr (AgentsModelRequest) request = agents_model_request_new ();
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (AgentsModelResponse) response = NULL;
  g_autoptr (GError) error = NULL;
  EventLog log = { g_ptr_array_new_with_free_func (g_free),
                   g_ptr_array_new_with_free_func (g_free) };

  agents_model_request_set_system_instructions (request, "echo");
  g_signal_connect (sink, "event", G_CALLBACK (on_event), &log);
  AGENTS_TEST_AWAIT (
    result, agents_model_stream_response_async (model, request, sink, NULL,
                                                agents_test_async_cb, &result));
  response = agents_model_stream_response_finish (model, result, &error);
  g_assert_no_error (error);
  g_assert_nonnull (response);
  g_assert_cmpuint (log.types->len, ==, 5);
  g_assert_cmpstr (log.types->pdata[0], ==, "response.created");
  g_assert_cmpstr (log.types->pdata[4], ==, "response.completed");
  g_assert_cmpstr (log.texts->pdata[0], ==, "echo");

  g_ptr_array_unref (log.types);
  g_ptr_array_unref (log.texts);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/model/settings/unset-by-default",
                   test_settings_unset_by_default);
  g_test_add_func ("/model/settings/merge", test_settings_merge);
  g_test_add_func ("/model/settings/json", test_settings_json);
  g_test_add_func ("/model/settings/json-errors", test_settings_json_errors);
  g_test_add_func ("/model/run-error/context", test_run_error_context);
  g_test_add_func ("/model/run-error/guardrail-tripwire",
                   test_run_error_guardrail_tripwire);
  g_test_add_func ("/model/testing/helpers-json", test_testing_helpers_json);
  g_test_add_func ("/model/testing/function-tool", test_testing_function_tool);
  g_test_add_func ("/model/scripted/initial-output",
                   test_scripted_initial_output);
  g_test_add_func ("/model/scripted/queue", test_scripted_queue);
  g_test_add_func ("/model/scripted/error", test_scripted_error);
  g_test_add_func ("/model/scripted/recorded-args",
                   test_scripted_recorded_args);
  g_test_add_func ("/model/scripted/streaming", test_scripted_streaming);
  g_test_add_func ("/model/scripted/hardcoded-usage",
                   test_scripted_hardcoded_usage);
  g_test_add_func ("/model/response/json", test_response_json);
  g_test_add_func ("/model/model/default-streaming",
                   test_model_default_streaming);

  return g_test_run ();
}
