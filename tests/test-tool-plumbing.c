/* test-tool-plumbing.c - custom tools, structured tool outputs, and the
 * model a capability's sampling params hook sees
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "agents-run-private.h"
#include "fake-sandbox.h"
#include "test-utils.h"

/* ---- Helpers ----------------------------------------------------------- */

static char *
object_text (JsonObject *object)
{
  g_autoptr (JsonNode) node =
    json_node_init_object (json_node_alloc (), object);

  return json_to_string (node, FALSE);
}

static char *
input_item_text (AgentsScriptedModel *model, guint index)
{
  JsonArray *input = agents_model_request_get_input (
    agents_scripted_model_get_last_turn_args (model));

  g_assert_cmpuint (index, <, json_array_get_length (input));
  return object_text (json_array_get_object_element (input, index));
}

/* {"type": "custom_tool_call", "call_id", "name", "input", "id"} */
static JsonObject *
custom_tool_call (const char *name, const char *input, const char *call_id)
{
  JsonObject *item = json_object_new ();

  json_object_set_string_member (item, "type", "custom_tool_call");
  json_object_set_string_member (item, "call_id", call_id);
  json_object_set_string_member (item, "name", name);
  if (input != NULL)
    json_object_set_string_member (item, "input", input);
  json_object_set_string_member (item, "id", "ctc_1");
  return item;
}

static AgentsRunResult *
run_agent (AgentsRunner *runner, AgentsAgent *agent, GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (JsonNode) node = agents_test_str_node ("hello");

  AGENTS_TEST_AWAIT (
    result, agents_runner_run_async (runner, agent, node, NULL, NULL, NULL,
                                     NULL, agents_test_async_cb, &result));
  return agents_runner_run_finish (runner, result, error);
}

static AgentsRunResult *
resume_agent (AgentsRunner *runner,
              AgentsAgent *agent,
              AgentsRunState *state,
              GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  AGENTS_TEST_AWAIT (
    result, agents_runner_resume_async (runner, agent, state, NULL, NULL, NULL,
                                        agents_test_async_cb, &result));
  return agents_runner_resume_finish (runner, result, error);
}

static AgentsRunItem *
item_at (GListModel *items, guint i)
{
  g_autoptr (AgentsRunItem) item = g_list_model_get_item (items, i);

  g_assert_nonnull (item);
  return item; /* the list keeps it alive */
}

/* A custom tool that records its input and answers "patched: INPUT". */
typedef struct
{
  GPtrArray *inputs;
  gboolean fail;
} CustomSpec;

static char *
recording_custom_tool (AgentsRunContext *ctx,
                       const char *input,
                       gpointer user_data,
                       GError **error)
{
  CustomSpec *spec = user_data;

  g_ptr_array_add (spec->inputs, g_strdup (input));
  if (spec->fail)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                           "Invalid Context 0:\nq\nb");
      return NULL;
    }
  return g_strconcat ("patched: ", input, NULL);
}

static AgentsTool *
new_custom_tool (CustomSpec *spec)
{
  g_autoptr (JsonObject) format = json_object_new ();

  json_object_set_string_member (format, "type", "grammar");
  json_object_set_string_member (format, "syntax", "lark");
  json_object_set_string_member (format, "definition", "start: /.+/");
  return AGENTS_TOOL (agents_custom_tool_new (
    "apply_patch", "Edits files.", format, recording_custom_tool, spec, NULL));
}

static void
count_tool_end (AgentsRunner *runner,
                AgentsRunContext *ctx,
                AgentsAgent *agent,
                AgentsTool *tool,
                JsonNode *output,
                gpointer user_data)
{
  GPtrArray *outputs = user_data;

  g_ptr_array_add (outputs, agents_run_private_output_to_text (output));
}

/* ---- Custom tools ------------------------------------------------------ */

static void
test_custom_tool_model_json (void)
{
  CustomSpec spec = { g_ptr_array_new_with_free_func (g_free), FALSE };
  g_autoptr (AgentsTool) tool = new_custom_tool (&spec);
  g_autoptr (AgentsTool) plain = AGENTS_TOOL (agents_custom_tool_new (
    "freeform", NULL, NULL, recording_custom_tool, &spec, NULL));
  g_autoptr (JsonObject) json = agents_tool_to_model_json (tool);
  g_autoptr (JsonObject) plain_json = agents_tool_to_model_json (plain);
  g_autofree char *text = object_text (json);
  g_autofree char *plain_text = object_text (plain_json);

  g_assert_cmpstr (text, ==,
                   "{\"type\":\"custom\",\"name\":\"apply_patch\","
                   "\"description\":\"Edits files.\",\"format\":{\"type\":"
                   "\"grammar\",\"syntax\":\"lark\",\"definition\":"
                   "\"start: /.+/\"}}");
  g_assert_cmpstr (plain_text, ==,
                   "{\"type\":\"custom\",\"name\":\"freeform\","
                   "\"description\":\"\"}");
  g_ptr_array_unref (spec.inputs);
}

/* The form for models without freeform tools, whose call the runner
 * answers (test_custom_tool_called_as_function). */
static void
test_custom_tool_function_form (void)
{
  CustomSpec spec = { g_ptr_array_new_with_free_func (g_free), FALSE };
  g_autoptr (AgentsTool) tool = new_custom_tool (&spec);
  g_autoptr (AgentsTool) plain = AGENTS_TOOL (agents_custom_tool_new (
    "freeform", NULL, NULL, recording_custom_tool, &spec, NULL));
  g_autoptr (JsonObject) json =
    agents_custom_tool_to_function_json (AGENTS_CUSTOM_TOOL (tool));
  g_autoptr (JsonObject) plain_json =
    agents_custom_tool_to_function_json (AGENTS_CUSTOM_TOOL (plain));
  g_autofree char *text = object_text (json);
  g_autofree char *plain_text = object_text (plain_json);

  g_assert_cmpstr (text, ==,
                   "{\"type\":\"function\",\"name\":\"apply_patch\","
                   "\"description\":\"Edits files.\",\"parameters\":{"
                   "\"type\":\"object\",\"properties\":{\"input\":{"
                   "\"type\":\"string\",\"description\":\"The raw input "
                   "text for the tool. It must follow this lark grammar:\\n"
                   "start: /.+/\"}},\"required\":[\"input\"],"
                   "\"additionalProperties\":false},\"strict\":true}");
  g_assert_cmpstr (plain_text, ==,
                   "{\"type\":\"function\",\"name\":\"freeform\","
                   "\"description\":\"\",\"parameters\":{\"type\":"
                   "\"object\",\"properties\":{\"input\":{\"type\":"
                   "\"string\",\"description\":\"The raw input text for "
                   "the tool.\"}},\"required\":[\"input\"],"
                   "\"additionalProperties\":false},\"strict\":true}");
  g_ptr_array_unref (spec.inputs);
}

static void
test_custom_tool_call (void)
{
  CustomSpec spec = { g_ptr_array_new_with_free_func (g_free), FALSE };
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsTool) tool = new_custom_tool (&spec);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (GPtrArray) ends = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *call_text = NULL;
  g_autofree char *output_text = NULL;
  const char *patch = "*** Begin Patch\n*** Add File: a.txt\n+hi\n"
                      "*** End Patch\n";
  GListModel *items;

  agents_agent_add_tool (agent, tool);
  g_signal_connect (runner, "tool-end::apply_patch",
                    G_CALLBACK (count_tool_end), ends);
  agents_test_add_turn (model, custom_tool_call ("apply_patch", patch, "c1"),
                        NULL);
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  result = run_agent (runner, agent, &error);
  g_assert_no_error (error);

  g_assert_cmpuint (spec.inputs->len, ==, 1);
  g_assert_cmpstr (spec.inputs->pdata[0], ==, patch);
  g_assert_cmpuint (ends->len, ==, 1);
  {
    g_autofree char *expected = g_strconcat ("patched: ", patch, NULL);

    g_assert_cmpstr (ends->pdata[0], ==, expected);
  }

  items = agents_run_result_get_new_items (result);
  g_assert_cmpuint (g_list_model_get_n_items (items), ==, 3);
  g_assert_cmpint (agents_run_item_get_kind (item_at (items, 0)), ==,
                   AGENTS_RUN_ITEM_KIND_TOOL_CALL);
  g_assert_cmpstr (agents_run_item_get_tool_name (item_at (items, 0)), ==,
                   "apply_patch");
  g_assert_cmpint (agents_run_item_get_kind (item_at (items, 1)), ==,
                   AGENTS_RUN_ITEM_KIND_TOOL_CALL_OUTPUT);

  /* The second turn sees the call as it came and the output in kind. */
  call_text = input_item_text (model, 1);
  g_assert_cmpstr (call_text, ==,
                   "{\"type\":\"custom_tool_call\",\"call_id\":\"c1\","
                   "\"name\":\"apply_patch\",\"input\":\"*** Begin Patch\\n"
                   "*** Add File: a.txt\\n+hi\\n*** End Patch\\n\","
                   "\"id\":\"ctc_1\"}");
  output_text = input_item_text (model, 2);
  g_assert_cmpstr (output_text, ==,
                   "{\"type\":\"custom_tool_call_output\",\"call_id\":\"c1\","
                   "\"output\":\"patched: *** Begin Patch\\n*** Add File: "
                   "a.txt\\n+hi\\n*** End Patch\\n\"}");
  g_ptr_array_unref (spec.inputs);
}

static void
test_custom_tool_error_is_output (void)
{
  CustomSpec spec = { g_ptr_array_new_with_free_func (g_free), TRUE };
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsTool) tool = new_custom_tool (&spec);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *output_text = NULL;

  agents_agent_add_tool (agent, tool);
  agents_test_add_turn (model, custom_tool_call ("apply_patch", "x", "c2"),
                        NULL);
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  result = run_agent (runner, agent, &error);
  g_assert_no_error (error);

  /* The message as it is: no "Please try again" wrapper. */
  output_text = input_item_text (model, 2);
  g_assert_cmpstr (output_text, ==,
                   "{\"type\":\"custom_tool_call_output\",\"call_id\":\"c2\","
                   "\"output\":\"Invalid Context 0:\\nq\\nb\"}");
  g_ptr_array_unref (spec.inputs);
}

static void
test_custom_tool_missing_input (void)
{
  CustomSpec spec = { g_ptr_array_new_with_free_func (g_free), FALSE };
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsTool) tool = new_custom_tool (&spec);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;

  agents_agent_add_tool (agent, tool);
  agents_test_add_turn (model, custom_tool_call ("apply_patch", NULL, "c3"),
                        NULL);
  result = run_agent (runner, agent, &error);
  g_assert_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_MODEL_BEHAVIOR);
  g_assert_cmpstr (error->message, ==, "Custom tool call is missing input.");
  g_assert_null (result);
  g_assert_cmpuint (spec.inputs->len, ==, 0);
  g_ptr_array_unref (spec.inputs);
}

/* A custom tool offered as a function tool with one string argument. */
static void
test_custom_tool_called_as_function (void)
{
  CustomSpec spec = { g_ptr_array_new_with_free_func (g_free), FALSE };
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsTool) tool = new_custom_tool (&spec);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *output_text = NULL;

  agents_agent_add_tool (agent, tool);
  agents_test_add_turn (model,
                        agents_testing_function_tool_call (
                          "apply_patch", "{\"input\":\"raw\\ntext\"}", "f1"),
                        NULL);
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  result = run_agent (runner, agent, &error);
  g_assert_no_error (error);

  g_assert_cmpuint (spec.inputs->len, ==, 1);
  g_assert_cmpstr (spec.inputs->pdata[0], ==, "raw\ntext");
  output_text = input_item_text (model, 2);
  g_assert_cmpstr (output_text, ==,
                   "{\"call_id\":\"f1\",\"output\":\"patched: raw\\ntext\","
                   "\"type\":\"function_call_output\"}");
  g_ptr_array_unref (spec.inputs);
}

static gboolean
approve_patches (AgentsRunContext *ctx, const char *input, gpointer user_data)
{
  GPtrArray *seen = user_data;

  g_ptr_array_add (seen, g_strdup (input));
  return g_str_has_prefix (input, "*** Begin Patch");
}

static void
test_custom_tool_approval_and_resume (void)
{
  CustomSpec spec = { g_ptr_array_new_with_free_func (g_free), FALSE };
  g_autoptr (GPtrArray) asked = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsTool) tool = new_custom_tool (&spec);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) first = NULL;
  g_autoptr (AgentsRunResult) resumed = NULL;
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (AgentsRunState) loaded = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *saved = NULL;
  g_autofree char *output_text = NULL;
  AgentsRunItem *approval;
  const char *patch = "*** Begin Patch\n*** Delete File: b\n*** End Patch";

  agents_tool_set_needs_approval_func (tool, approve_patches, asked, NULL);
  agents_agent_add_tool (agent, tool);
  agents_test_add_turn (model, custom_tool_call ("apply_patch", patch, "c4"),
                        NULL);
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  first = run_agent (runner, agent, &error);
  g_assert_no_error (error);

  /* The approval function saw the raw input; nothing ran. */
  g_assert_cmpuint (asked->len, ==, 1);
  g_assert_cmpstr (asked->pdata[0], ==, patch);
  g_assert_cmpuint (spec.inputs->len, ==, 0);
  g_assert_cmpuint (
    g_list_model_get_n_items (agents_run_result_get_interruptions (first)), ==,
    1);
  approval = item_at (agents_run_result_get_interruptions (first), 0);
  g_assert_cmpint (agents_run_item_get_kind (approval), ==,
                   AGENTS_RUN_ITEM_KIND_TOOL_APPROVAL);
  g_assert_cmpstr (agents_run_item_get_tool_name (approval), ==, "apply_patch");

  /* Saved, loaded in a new state, approved, resumed. */
  state = agents_run_result_to_state (first);
  saved = agents_run_state_to_json (state);
  loaded = agents_run_state_new_from_json (agent, saved, &error);
  g_assert_no_error (error);
  agents_run_state_approve (
    loaded, item_at (agents_run_state_get_interruptions (loaded), 0), FALSE);
  resumed = resume_agent (runner, agent, loaded, &error);
  g_assert_no_error (error);

  g_assert_cmpuint (spec.inputs->len, ==, 1);
  g_assert_cmpstr (spec.inputs->pdata[0], ==, patch);
  output_text = input_item_text (model, 2);
  g_assert_cmpstr (output_text, ==,
                   "{\"type\":\"custom_tool_call_output\",\"call_id\":\"c4\","
                   "\"output\":\"patched: *** Begin Patch\\n*** Delete File: "
                   "b\\n*** End Patch\"}");
  g_ptr_array_unref (spec.inputs);
}

static void
test_custom_tool_rejection (void)
{
  CustomSpec spec = { g_ptr_array_new_with_free_func (g_free), FALSE };
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsTool) tool = new_custom_tool (&spec);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) first = NULL;
  g_autoptr (AgentsRunResult) resumed = NULL;
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *output_text = NULL;

  agents_tool_set_needs_approval (tool, TRUE);
  agents_agent_add_tool (agent, tool);
  agents_test_add_turn (model, custom_tool_call ("apply_patch", "p", "c5"),
                        NULL);
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  first = run_agent (runner, agent, &error);
  g_assert_no_error (error);
  state = agents_run_result_to_state (first);
  agents_run_state_reject (
    state, item_at (agents_run_state_get_interruptions (state), 0), FALSE);
  resumed = resume_agent (runner, agent, state, &error);
  g_assert_no_error (error);

  g_assert_cmpuint (spec.inputs->len, ==, 0);
  output_text = input_item_text (model, 2);
  g_assert_cmpstr (output_text, ==,
                   "{\"type\":\"custom_tool_call_output\",\"call_id\":\"c5\","
                   "\"output\":\"Tool execution was not approved.\"}");
  g_ptr_array_unref (spec.inputs);
}

/* ---- A model that streams custom tool input deltas --------------------- */

#define TEST_TYPE_DELTA_MODEL (test_delta_model_get_type ())
G_DECLARE_FINAL_TYPE (
  TestDeltaModel, test_delta_model, TEST, DELTA_MODEL, GObject)

struct _TestDeltaModel
{
  GObject parent_instance;
  AgentsScriptedModel *inner;
};

static void test_delta_model_iface_init (AgentsModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  TestDeltaModel,
  test_delta_model,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_MODEL, test_delta_model_iface_init))

static void
test_delta_model_finalize (GObject *object)
{
  g_clear_object (&TEST_DELTA_MODEL (object)->inner);
  G_OBJECT_CLASS (test_delta_model_parent_class)->finalize (object);
}

static void
test_delta_model_class_init (TestDeltaModelClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_delta_model_finalize;
}

static void
test_delta_model_init (TestDeltaModel *self)
{
  self->inner = agents_scripted_model_new ();
}

static void
inner_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;
  g_autoptr (AgentsModelResponse) response =
    agents_model_get_response_finish (AGENTS_MODEL (source), result, &error);

  if (response == NULL)
    g_task_return_error (task, error);
  else
    agents_model_return_response (task, response);
}

static void
delta_get_response (AgentsModel *model,
                    AgentsModelRequest *request,
                    GTask *task)
{
  agents_model_get_response_async (
    AGENTS_MODEL (TEST_DELTA_MODEL (model)->inner), request,
    g_task_get_cancellable (task), inner_done, g_object_ref (task));
}

static void
inner_stream_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;
  g_autoptr (AgentsModelResponse) response =
    agents_model_stream_response_finish (AGENTS_MODEL (source), result, &error);

  if (response == NULL)
    g_task_return_error (task, error);
  else
    agents_model_return_response (task, response);
}

static void
delta_stream_response (AgentsModel *model,
                       AgentsModelRequest *request,
                       AgentsModelEventSink *sink,
                       GTask *task)
{
  g_autoptr (JsonObject) delta = json_object_new ();

  json_object_set_string_member (delta, "type",
                                 "response.custom_tool_call_input.delta");
  json_object_set_string_member (delta, "item_id", "ctc_1");
  json_object_set_int_member (delta, "output_index", 0);
  json_object_set_string_member (delta, "delta", "*** Begin");
  agents_model_event_sink_push (sink, delta);
  agents_model_stream_response_async (
    AGENTS_MODEL (TEST_DELTA_MODEL (model)->inner), request, sink,
    g_task_get_cancellable (task), inner_stream_done, g_object_ref (task));
}

static void
test_delta_model_iface_init (AgentsModelInterface *iface)
{
  iface->get_response = delta_get_response;
  iface->stream_response = delta_stream_response;
}

static GPtrArray *
pull_all (AgentsRunResultStreaming *streaming, GError **error)
{
  GPtrArray *events = g_ptr_array_new_with_free_func (g_object_unref);

  for (;;)
    {
      g_autoptr (GAsyncResult) result = NULL;
      AgentsStreamEvent *event;

      AGENTS_TEST_AWAIT (result,
                         agents_run_result_streaming_next_event_async (
                           streaming, NULL, agents_test_async_cb, &result));
      event = agents_run_result_streaming_next_event_finish (streaming, result,
                                                             error);
      if (event == NULL)
        return events;
      g_ptr_array_add (events, event);
    }
}

static void
test_custom_tool_streamed (void)
{
  CustomSpec spec = { g_ptr_array_new_with_free_func (g_free), FALSE };
  g_autoptr (TestDeltaModel) model = g_object_new (TEST_TYPE_DELTA_MODEL, NULL);
  g_autoptr (AgentsAgent) agent = agents_agent_new ("test");
  g_autoptr (AgentsTool) tool = new_custom_tool (&spec);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (JsonNode) input = agents_test_str_node ("hello");
  g_autoptr (AgentsRunResultStreaming) streaming = NULL;
  g_autoptr (GPtrArray) events = NULL;
  g_autoptr (GError) error = NULL;
  guint deltas = 0;
  gboolean called = FALSE, output = FALSE;

  agents_agent_set_model (agent, AGENTS_MODEL (model));
  agents_agent_add_tool (agent, tool);
  agents_test_add_turn (
    model->inner, custom_tool_call ("apply_patch", "*** Begin", "c6"), NULL);
  agents_test_add_turn (model->inner,
                        agents_testing_final_output_message ("done"), NULL);
  streaming =
    agents_runner_run_streamed (runner, agent, input, NULL, NULL, NULL);
  events = pull_all (streaming, &error);
  g_assert_no_error (error);

  for (guint i = 0; i < events->len; i++)
    {
      AgentsStreamEvent *event = events->pdata[i];
      JsonObject *raw = agents_stream_event_get_raw_event (event);
      AgentsRunItem *item = agents_stream_event_get_item (event);

      if (raw != NULL &&
          g_strcmp0 (
            json_object_get_string_member_with_default (raw, "type", ""),
            "response.custom_tool_call_input.delta") == 0)
        {
          g_assert_cmpstr (json_object_get_string_member (raw, "delta"), ==,
                           "*** Begin");
          deltas++;
        }
      if (item != NULL &&
          g_strcmp0 (agents_stream_event_get_name (event), "tool_called") == 0)
        called = g_strcmp0 (json_object_get_string_member (
                              agents_run_item_get_raw_item (item), "type"),
                            "custom_tool_call") == 0;
      if (item != NULL &&
          g_strcmp0 (agents_stream_event_get_name (event), "tool_output") == 0)
        output = g_strcmp0 (json_object_get_string_member (
                              agents_run_item_get_raw_item (item), "type"),
                            "custom_tool_call_output") == 0;
    }
  /* One delta per model call, both passed through untouched. */
  g_assert_cmpuint (deltas, ==, 2);
  g_assert_true (called);
  g_assert_true (output);
  g_assert_cmpuint (spec.inputs->len, ==, 1);
  g_ptr_array_unref (spec.inputs);
}

/* ---- Structured tool outputs ------------------------------------------- */

static void
image_tool (AgentsRunContext *ctx,
            const char *arguments,
            GTask *task,
            gpointer user_data)
{
  g_autoptr (AgentsToolOutput) output = agents_tool_output_new ();
  g_autoptr (GBytes) png = g_bytes_new_static ("\x89PNG\r\n\x1a\n", 8);

  agents_tool_output_add_image_data (output, png, "image/png", NULL);
  agents_tool_return_parts (task, output);
}

static void
test_function_tool_image_output (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsTool) tool = AGENTS_TOOL (agents_function_tool_new_async (
    "view_image", "Shows an image.", NULL, image_tool, NULL, NULL));
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *output_text = NULL;
  g_autofree char *saved = NULL;
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (AgentsRunState) loaded = NULL;
  JsonNode *output;

  agents_agent_add_tool (agent, tool);
  agents_test_add_turn (
    model, agents_testing_function_tool_call ("view_image", "{}", "call_img"),
    NULL);
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  result = run_agent (runner, agent, &error);
  g_assert_no_error (error);

  output_text = input_item_text (model, 2);
  g_assert_cmpstr (output_text, ==,
                   "{\"call_id\":\"call_img\",\"output\":[{\"type\":"
                   "\"input_image\",\"image_url\":\"data:image/png;base64,"
                   "iVBORw0KGgo=\"}],\"type\":\"function_call_output\"}");
  /* The run item keeps the structured output. */
  output = agents_run_item_get_output (
    item_at (agents_run_result_get_new_items (result), 1));
  g_assert_true (JSON_NODE_HOLDS_ARRAY (output));

  /* A saved state carries it. */
  state = agents_run_result_to_state (result);
  saved = agents_run_state_to_json (state);
  loaded = agents_run_state_new_from_json (agent, saved, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (saved, "\"output\":[{\"type\":\"input_image\""));
}

static void
test_tool_output_parts (void)
{
  g_autoptr (AgentsToolOutput) output = agents_tool_output_new_text ("seen:");
  g_autoptr (AgentsToolOutput) image =
    agents_tool_output_new_image ("https://example.com/a.png", "low");
  g_autoptr (JsonNode) json = NULL;
  g_autoptr (JsonNode) image_json = agents_tool_output_to_json (image);
  g_autofree char *text = NULL;
  g_autofree char *image_text = json_to_string (image_json, FALSE);

  agents_tool_output_add_image (output, "data:image/gif;base64,R0lG", "high");
  g_assert_cmpuint (agents_tool_output_get_n_parts (output), ==, 2);
  json = agents_tool_output_to_json (output);
  text = json_to_string (json, FALSE);
  g_assert_cmpstr (text, ==,
                   "[{\"type\":\"input_text\",\"text\":\"seen:\"},"
                   "{\"type\":\"input_image\",\"image_url\":"
                   "\"data:image/gif;base64,R0lG\",\"detail\":\"high\"}]");
  g_assert_cmpstr (image_text, ==,
                   "[{\"type\":\"input_image\",\"image_url\":"
                   "\"https://example.com/a.png\",\"detail\":\"low\"}]");
}

static void
assert_wire (const char *tool_output_json, const char *expected)
{
  g_autoptr (JsonNode) output = json_from_string (tool_output_json, NULL);
  g_autoptr (JsonNode) wire = agents_run_private_tool_output_to_wire (output);
  g_autofree char *text = json_to_string (wire, FALSE);

  g_assert_cmpstr (text, ==, expected);
}

/* The reference's ItemHelpers._convert_tool_output(). */
static void
test_tool_output_to_wire (void)
{
  /* Strings stay strings; other JSON becomes its text. */
  assert_wire ("\"plain\"", "\"plain\"");
  assert_wire ("42", "\"42\"");
  assert_wire ("{\"a\":1}", "\"{\\\"a\\\":1}\"");
  /* One part becomes a list of one; extra members are dropped. */
  assert_wire ("{\"type\":\"input_text\",\"text\":\"hi\",\"x\":1}",
               "[{\"type\":\"input_text\",\"text\":\"hi\"}]");
  assert_wire ("{\"type\":\"input_image\",\"file_id\":\"f1\"}",
               "[{\"type\":\"input_image\",\"file_id\":\"f1\"}]");
  assert_wire ("[{\"type\":\"input_file\",\"file_data\":\"ZA==\","
               "\"filename\":\"d.txt\"}]",
               "[{\"type\":\"input_file\",\"file_data\":\"ZA==\","
               "\"filename\":\"d.txt\"}]");
  /* Not all parts valid: the whole list is text. */
  assert_wire ("[{\"type\":\"input_text\",\"text\":\"a\"},{\"type\":\"x\"}]",
               "\"[{\\\"type\\\":\\\"input_text\\\",\\\"text\\\":\\\"a\\\"},"
               "{\\\"type\\\":\\\"x\\\"}]\"");
  /* Invalid parts: no image source, bad detail, text not a string. */
  assert_wire ("{\"type\":\"input_image\"}",
               "\"{\\\"type\\\":\\\"input_image\\\"}\"");
  assert_wire ("{\"type\":\"input_image\",\"image_url\":\"u\",\"detail\":"
               "\"huge\"}",
               "\"{\\\"type\\\":\\\"input_image\\\",\\\"image_url\\\":"
               "\\\"u\\\",\\\"detail\\\":\\\"huge\\\"}\"");
  assert_wire ("{\"type\":\"input_text\",\"text\":3}",
               "\"{\\\"type\\\":\\\"input_text\\\",\\\"text\\\":3}\"");
}

/* ---- The model a capability's sampling params hook sees ---------------- */

#define TEST_TYPE_MODEL_CAPABILITY (test_model_capability_get_type ())
G_DECLARE_FINAL_TYPE (
  TestModelCapability, test_model_capability, TEST, MODEL_CAPABILITY, GObject)

struct _TestModelCapability
{
  GObject parent_instance;
};

/* What the hook saw, across the clones the runtime makes. */
static GPtrArray *seen_model_params;

static void test_model_capability_iface_init (AgentsCapabilityInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  TestModelCapability,
  test_model_capability,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_CAPABILITY,
                         test_model_capability_iface_init))

static void
test_model_capability_class_init (TestModelCapabilityClass *klass)
{
}

static void
test_model_capability_init (TestModelCapability *self)
{
}

static const char *
model_capability_type (AgentsCapability *capability)
{
  return "model-aware";
}

static JsonObject *
model_capability_params (AgentsCapability *capability, JsonObject *params)
{
  JsonObject *extra = json_object_new ();
  const char *model =
    json_object_get_string_member_with_default (params, "model", "none");

  g_ptr_array_add (seen_model_params, object_text (params));
  json_object_set_string_member (extra, "chosen_for", model);
  return extra;
}

static void
test_model_capability_iface_init (AgentsCapabilityInterface *iface)
{
  iface->get_capability_type = model_capability_type;
  iface->sampling_params_for_model = model_capability_params;
}

static void
test_capability_hook_sees_model (void)
{
  g_autoptr (TestDeltaModel) model = g_object_new (TEST_TYPE_DELTA_MODEL, NULL);
  g_autoptr (AgentsCapability) capability =
    g_object_new (TEST_TYPE_MODEL_CAPABILITY, NULL);
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (manifest);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsSandboxAgent) agent = agents_sandbox_agent_new ("sandbox");
  g_autoptr (AgentsSandboxRunConfig) sandbox = agents_sandbox_run_config_new ();
  g_autoptr (AgentsRunConfig) config = agents_run_config_new ();
  g_autoptr (AgentsModelSettings) settings = agents_model_settings_new ();
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GAsyncResult) async_result = NULL;
  g_autoptr (JsonNode) input = agents_test_str_node ("hello");
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonObject) no_model = NULL;
  g_autofree char *no_model_text = NULL;
  AgentsModelSettings *sent;
  JsonObject *extra;

  seen_model_params = g_ptr_array_new_with_free_func (g_free);
  agents_registry_register (AGENTS_REGISTRY_KIND_MODEL_PROVIDER,
                            "plumbing-test", TEST_TYPE_DELTA_MODEL, &error);
  g_assert_no_error (error);

  agents_model_settings_set_temperature (settings, 0.5);
  agents_agent_set_model (AGENTS_AGENT (agent), AGENTS_MODEL (model));
  agents_agent_set_model_name (AGENTS_AGENT (agent), "gpt-5.1");
  agents_agent_set_model_settings (AGENTS_AGENT (agent), settings);
  agents_sandbox_agent_set_capabilities (agent, &capability, 1);
  agents_sandbox_run_config_set_client (sandbox,
                                        AGENTS_SANDBOX_CLIENT (client));
  agents_sandbox_run_config_set_options (
    sandbox, g_variant_new_parsed ("{'image': <'sandbox'>}"));
  agents_run_config_set_sandbox (config, G_OBJECT (sandbox));
  agents_test_add_turn (model->inner,
                        agents_testing_final_output_message ("done"), NULL);

  AGENTS_TEST_AWAIT (
    async_result,
    agents_runner_run_async (runner, AGENTS_AGENT (agent), input, config, NULL,
                             NULL, NULL, agents_test_async_cb, &async_result));
  result = agents_runner_run_finish (runner, async_result, &error);
  g_assert_no_error (error);

  g_assert_cmpuint (seen_model_params->len, ==, 1);
  g_assert_cmpstr (seen_model_params->pdata[0], ==,
                   "{\"temperature\":0.5,\"model\":\"gpt-5.1\","
                   "\"provider\":\"plumbing-test\"}");
  /* What the hook chose reached the model. */
  sent = agents_model_request_get_model_settings (
    agents_scripted_model_get_first_turn_args (model->inner));
  extra = agents_model_settings_get_extra_args (sent);
  g_assert_nonnull (extra);
  g_assert_cmpstr (json_object_get_string_member (extra, "chosen_for"), ==,
                   "gpt-5.1");

  /* Without a model: empty parameters. */
  no_model = agents_capability_sampling_params (capability);
  no_model_text = object_text (no_model);
  g_assert_cmpstr (no_model_text, ==, "{\"chosen_for\":\"none\"}");
  g_assert_cmpstr (seen_model_params->pdata[1], ==, "{}");
  g_clear_pointer (&seen_model_params, g_ptr_array_unref);
}

/* A capability with only the old hook still works through the new one. */
static void
test_capability_old_hook_still_called (void)
{
  g_autoptr (AgentsCapability) compaction =
    agents_compaction_capability_new_static (77);
  g_autoptr (JsonObject) model_params = json_object_new ();
  g_autoptr (JsonObject) params = NULL;
  g_autofree char *text = NULL;

  json_object_set_string_member (model_params, "model", "gpt-5.1");
  params =
    agents_capability_sampling_params_for_model (compaction, model_params);
  text = object_text (params);
  g_assert_cmpstr (text, ==,
                   "{\"context_management\":[{\"type\":\"compaction\","
                   "\"compact_threshold\":77}]}");
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/run/custom-tool/model-json", test_custom_tool_model_json);
  g_test_add_func ("/run/custom-tool/function-form",
                   test_custom_tool_function_form);
  g_test_add_func ("/run/custom-tool/call", test_custom_tool_call);
  g_test_add_func ("/run/custom-tool/error-is-output",
                   test_custom_tool_error_is_output);
  g_test_add_func ("/run/custom-tool/missing-input",
                   test_custom_tool_missing_input);
  g_test_add_func ("/run/custom-tool/called-as-function",
                   test_custom_tool_called_as_function);
  g_test_add_func ("/run/custom-tool/approval-and-resume",
                   test_custom_tool_approval_and_resume);
  g_test_add_func ("/run/custom-tool/rejection", test_custom_tool_rejection);
  g_test_add_func ("/run/custom-tool/streamed", test_custom_tool_streamed);
  g_test_add_func ("/run/tool-output/function-image",
                   test_function_tool_image_output);
  g_test_add_func ("/run/tool-output/parts", test_tool_output_parts);
  g_test_add_func ("/run/tool-output/to-wire", test_tool_output_to_wire);
  g_test_add_func ("/sandbox/capability/hook-sees-model",
                   test_capability_hook_sees_model);
  g_test_add_func ("/sandbox/capability/old-hook-still-called",
                   test_capability_old_hook_still_called);

  return g_test_run ();
}
