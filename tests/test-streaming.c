/* test-streaming.c - streamed runs
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-run-private.h"
#include "test-utils.h"

/* ---- Helpers ----------------------------------------------------------- */

static AgentsRunResultStreaming *
stream (AgentsRunner *runner,
        AgentsAgent *agent,
        const char *input,
        AgentsRunConfig *config)
{
  g_autoptr (JsonNode) node = agents_test_str_node (input);

  return agents_runner_run_streamed (runner, agent, node, config, NULL, NULL);
}

/* Pulls events until the end; returns them, and the error the stream
 * ended with. */
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

static gboolean
wait_run (AgentsRunResultStreaming *streaming, GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  AGENTS_TEST_AWAIT (result, agents_run_result_streaming_wait_async (
                               streaming, NULL, agents_test_async_cb, &result));
  return agents_run_result_streaming_wait_finish (streaming, result, error);
}

static char *
event_label (AgentsStreamEvent *event)
{
  switch (agents_stream_event_get_kind (event))
    {
    case AGENTS_STREAM_EVENT_KIND_RAW_RESPONSE:
      return g_strdup ("raw");
    case AGENTS_STREAM_EVENT_KIND_AGENT_UPDATED:
      return g_strdup_printf (
        "agent_updated %s",
        agents_agent_get_name (agents_stream_event_get_agent (event)));
    default:
      return g_strdup (agents_stream_event_get_name (event));
    }
}

/* The labels of the events, consecutive raw events as one "raw". */
static char *
summarize (GPtrArray *events)
{
  GString *text = g_string_new (NULL);
  gboolean last_raw = FALSE;

  for (guint i = 0; i < events->len; i++)
    {
      g_autofree char *label = event_label (events->pdata[i]);
      gboolean raw = g_str_equal (label, "raw");

      if (raw && last_raw)
        continue;
      last_raw = raw;
      if (text->len > 0)
        g_string_append (text, ", ");
      g_string_append (text, label);
    }
  return g_string_free (text, FALSE);
}

static void
on_event (AgentsRunResultStreaming *streaming,
          AgentsStreamEvent *event,
          GPtrArray *events)
{
  g_ptr_array_add (events, g_object_ref (event));
}

static void
assert_final_text (AgentsRunResultStreaming *streaming, const char *text)
{
  JsonNode *output = agents_run_result_streaming_get_final_output (streaming);

  g_assert_nonnull (output);
  g_assert_cmpstr (json_node_get_string (output), ==, text);
}

/* ---- A preparer that executes clones ----------------------------------- */

#define TEST_TYPE_PREPARER (test_preparer_get_type ())
G_DECLARE_FINAL_TYPE (TestPreparer, test_preparer, TEST, PREPARER, GObject)

struct _TestPreparer
{
  GObject parent_instance;

  guint prepare_calls;
  guint cleanup_calls;
  guint cleanups_done;
  GPtrArray *seen_public;
  gboolean hold_cleanup;
  GTask *held_cleanup;
};

static void test_preparer_iface_init (AgentsRunPreparerInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (TestPreparer,
                               test_preparer,
                               G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (AGENTS_TYPE_RUN_PREPARER,
                                                      test_preparer_iface_init))

static void
test_preparer_finalize (GObject *object)
{
  TestPreparer *self = TEST_PREPARER (object);

  g_ptr_array_unref (self->seen_public);
  g_assert_null (self->held_cleanup);
  G_OBJECT_CLASS (test_preparer_parent_class)->finalize (object);
}

static void
test_preparer_class_init (TestPreparerClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_preparer_finalize;
}

static void
test_preparer_init (TestPreparer *self)
{
  self->seen_public = g_ptr_array_new_with_free_func (g_object_unref);
}

static void
test_preparer_prepare_agent (AgentsRunPreparer *preparer,
                             AgentsRunPreparation *preparation,
                             AgentsAgent *public_agent,
                             JsonArray *input,
                             gboolean is_resumed,
                             GTask *task)
{
  TestPreparer *self = TEST_PREPARER (preparer);
  AgentsAgent *clone = agents_run_preparation_get_data (preparation);

  self->prepare_calls++;
  g_ptr_array_add (self->seen_public, g_object_ref (public_agent));
  if (clone == NULL)
    {
      clone = agents_agent_clone (public_agent);
      agents_run_preparation_set_data (preparation, clone, g_object_unref);
    }
  agents_run_preparer_return_prepared (task, clone, NULL);
}

static void
return_payload (TestPreparer *self, GTask *task)
{
  JsonObject *payload = json_object_new ();

  json_object_set_string_member (payload, "backend_id", "fake");
  json_object_set_string_member (payload, "marker", "persisted");
  self->cleanups_done++;
  g_task_return_pointer (task, payload, (GDestroyNotify) json_object_unref);
}

static void
test_preparer_cleanup (AgentsRunPreparer *preparer,
                       AgentsRunPreparation *preparation,
                       GTask *task)
{
  TestPreparer *self = TEST_PREPARER (preparer);

  self->cleanup_calls++;
  if (self->hold_cleanup)
    self->held_cleanup = g_object_ref (task);
  else
    return_payload (self, task);
}

static void
test_preparer_release (TestPreparer *self)
{
  g_autoptr (GTask) task = g_steal_pointer (&self->held_cleanup);

  g_assert_nonnull (task);
  self->hold_cleanup = FALSE;
  return_payload (self, task);
}

static void
test_preparer_iface_init (AgentsRunPreparerInterface *iface)
{
  iface->prepare_agent = test_preparer_prepare_agent;
  iface->cleanup = test_preparer_cleanup;
}

static AgentsRunConfig *
preparer_config (TestPreparer *preparer)
{
  AgentsRunConfig *config = agents_run_config_new ();

  agents_run_config_set_sandbox (config, G_OBJECT (preparer));
  return config;
}

static void
spin (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;

  while (g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, FALSE);
}

static void
spin_until (guint *counter, guint value)
{
  gint64 end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;

  while (*counter < value && g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (*counter, >=, value);
}

/* ---- Tests ------------------------------------------------------------- */

static void
test_event_order_and_names (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsTool) tool = agents_testing_function_tool ("tool1", "ok");
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResultStreaming) streaming = NULL;
  g_autoptr (GPtrArray) pulled = NULL;
  g_autoptr (GPtrArray) signalled =
    g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GError) error = NULL;
  g_autofree char *summary = NULL;
  AgentsStreamEvent *first_raw = NULL;

  agents_agent_add_tool (agent, tool);
  agents_test_add_turn (model, agents_testing_reasoning_item ("r1", "thinking"),
                        agents_testing_function_tool_call ("tool1", "{}", "c1"),
                        NULL);
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);

  streaming = stream (runner, agent, "hello", NULL);
  g_signal_connect (streaming, "event", G_CALLBACK (on_event), signalled);
  g_assert_false (agents_run_result_streaming_get_is_complete (streaming));
  pulled = pull_all (streaming, &error);
  g_assert_no_error (error);

  summary = summarize (pulled);
  g_assert_cmpstr (summary, ==,
                   "agent_updated test, raw, reasoning_item_created, "
                   "tool_called, tool_output, raw, message_output_created");
  /* The signal and the pull API see the same events. */
  g_assert_cmpuint (signalled->len, ==, pulled->len);
  for (guint i = 0; i < pulled->len; i++)
    g_assert_true (signalled->pdata[i] == pulled->pdata[i]);
  for (guint i = 0; i < pulled->len && first_raw == NULL; i++)
    if (agents_stream_event_get_kind (pulled->pdata[i]) ==
        AGENTS_STREAM_EVENT_KIND_RAW_RESPONSE)
      first_raw = pulled->pdata[i];
  g_assert_nonnull (first_raw);
  g_assert_cmpstr (json_object_get_string_member (
                     agents_stream_event_get_raw_event (first_raw), "type"),
                   ==, "response.created");

  g_assert_true (agents_run_result_streaming_get_is_complete (streaming));
  assert_final_text (streaming, "done");
  g_assert_cmpuint (g_list_model_get_n_items (
                      agents_run_result_streaming_get_new_items (streaming)),
                    ==, 4);
  g_assert_cmpuint (
    g_list_model_get_n_items (
      agents_run_result_streaming_get_raw_responses (streaming)),
    ==, 2);
  g_assert_true (wait_run (streaming, &error));
  g_assert_no_error (error);

  /* Past the end, the stream stays over. */
  g_clear_pointer (&pulled, g_ptr_array_unref);
  pulled = pull_all (streaming, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pulled->len, ==, 0);
}

static void
test_handoff_events (void)
{
  g_autoptr (AgentsScriptedModel) triage_model = agents_scripted_model_new ();
  g_autoptr (AgentsScriptedModel) worker_model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) triage =
    agents_test_new_agent ("triage", triage_model);
  g_autoptr (AgentsAgent) worker =
    agents_test_new_agent ("worker", worker_model);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResultStreaming) streaming = NULL;
  g_autoptr (GPtrArray) events = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *summary = NULL;

  agents_agent_add_handoff (triage, G_OBJECT (worker));
  agents_test_add_turn (triage_model, agents_testing_handoff_tool_call (worker),
                        NULL);
  agents_test_add_turn (worker_model,
                        agents_testing_final_output_message ("done"), NULL);
  streaming = stream (runner, triage, "route this", NULL);
  g_assert_true (agents_run_result_streaming_get_current_agent (streaming) ==
                 triage);
  events = pull_all (streaming, &error);
  g_assert_no_error (error);

  summary = summarize (events);
  g_assert_cmpstr (summary, ==,
                   "agent_updated triage, raw, handoff_requested, "
                   "handoff_occured, agent_updated worker, raw, "
                   "message_output_created");
  g_assert_true (agents_run_result_streaming_get_current_agent (streaming) ==
                 worker);
  assert_final_text (streaming, "done");
}

static void
test_tool_approval_event (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsTool) tool = agents_testing_function_tool ("danger", "ran");
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResultStreaming) streaming = NULL;
  g_autoptr (AgentsRunResultStreaming) resumed = NULL;
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (GPtrArray) events = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *summary = NULL;
  g_autoptr (AgentsRunItem) approval = NULL;

  agents_tool_set_needs_approval (tool, TRUE);
  agents_agent_add_tool (agent, tool);
  agents_test_add_turn (
    model, agents_testing_function_tool_call ("danger", "{}", "c1"), NULL);
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  streaming = stream (runner, agent, "hello", NULL);
  events = pull_all (streaming, &error);
  g_assert_no_error (error);
  summary = summarize (events);
  g_assert_cmpstr (summary, ==,
                   "agent_updated test, raw, tool_called, "
                   "tool_approval_requested");
  g_assert_null (agents_run_result_streaming_get_final_output (streaming));
  g_assert_cmpuint (
    g_list_model_get_n_items (
      agents_run_result_streaming_get_interruptions (streaming)),
    ==, 1);

  state = agents_run_result_streaming_to_state (streaming);
  approval =
    g_list_model_get_item (agents_run_state_get_interruptions (state), 0);
  agents_run_state_approve (state, approval, FALSE);
  resumed = agents_runner_resume_streamed (runner, agent, state, NULL, NULL);
  g_clear_pointer (&events, g_ptr_array_unref);
  g_clear_pointer (&summary, g_free);
  events = pull_all (resumed, &error);
  g_assert_no_error (error);
  summary = summarize (events);
  g_assert_cmpstr (summary, ==,
                   "agent_updated test, tool_output, raw, "
                   "message_output_created");
  assert_final_text (resumed, "done");
}

static void
test_error_at_end (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResultStreaming) streaming = NULL;
  g_autoptr (GPtrArray) events = NULL;
  g_autoptr (GError) model_error =
    g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED, "down");
  g_autoptr (GError) error = NULL;

  agents_scripted_model_set_next_error (model, model_error);
  streaming = stream (runner, agent, "hello", NULL);
  events = pull_all (streaming, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED);
  g_assert_cmpuint (events->len, ==, 1);
  g_clear_error (&error);
  g_assert_false (wait_run (streaming, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED);
}

/* The reference's test_runner_streamed_guardrail_trip_blocks_runner_owned_
 * sandbox_creation, the preparer standing in for the sandbox. */
static AgentsGuardrailResult *
tripwire_input_guardrail (AgentsRunContext *ctx,
                          AgentsAgent *agent,
                          JsonNode *input,
                          gpointer user_data)
{
  return agents_guardrail_result_new (NULL, TRUE);
}

static void
test_runner_streamed_guardrail_trip_blocks_runner_owned_sandbox_creation (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("sandbox", model);
  g_autoptr (TestPreparer) preparer = g_object_new (TEST_TYPE_PREPARER, NULL);
  g_autoptr (AgentsRunConfig) config = preparer_config (preparer);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsInputGuardrail) guardrail = agents_input_guardrail_new (
    "tripwire", tripwire_input_guardrail, NULL, NULL);
  g_autoptr (AgentsRunResultStreaming) streaming = NULL;
  g_autoptr (GPtrArray) events = NULL;
  g_autoptr (GError) error = NULL;

  agents_agent_set_instructions (agent, "Base instructions.");
  agents_input_guardrail_set_run_in_parallel (guardrail, FALSE);
  agents_agent_add_input_guardrail (agent, guardrail);
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  streaming = stream (runner, agent, "hello", config);
  events = pull_all (streaming, &error);
  g_assert_error (error, AGENTS_RUN_ERROR,
                  AGENTS_RUN_ERROR_INPUT_GUARDRAIL_TRIPWIRE);
  g_assert_cmpuint (preparer->prepare_calls, ==, 0);
  g_assert_null (agents_scripted_model_get_first_turn_args (model));
  g_assert_cmpuint (preparer->cleanup_calls, ==, 1);
}

/* The reference's test_runner_streamed_immediate_cancel_skips_waiting_for_
 * sandbox_cleanup. */
static void
on_event_cancel_immediately (AgentsRunResultStreaming *streaming,
                             AgentsStreamEvent *event,
                             gpointer user_data)
{
  agents_run_result_streaming_cancel (streaming, AGENTS_CANCEL_MODE_IMMEDIATE);
}

static void
test_runner_streamed_immediate_cancel_skips_waiting_for_sandbox_cleanup (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("sandbox", model);
  g_autoptr (TestPreparer) preparer = g_object_new (TEST_TYPE_PREPARER, NULL);
  g_autoptr (AgentsRunConfig) config = preparer_config (preparer);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResultStreaming) streaming = NULL;
  g_autoptr (GPtrArray) events = NULL;
  g_autoptr (GError) error = NULL;
  gint64 begin;

  preparer->hold_cleanup = TRUE;
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  begin = g_get_monotonic_time ();
  streaming = stream (runner, agent, "hello", config);
  g_signal_connect (streaming, "event",
                    G_CALLBACK (on_event_cancel_immediately), NULL);
  events = pull_all (streaming, &error);
  g_assert_no_error (error);
  /* The first event was the last: queued ones were dropped. */
  g_assert_cmpuint (events->len, ==, 0);
  g_assert_true (agents_run_result_streaming_get_is_complete (streaming));
  g_assert_false (wait_run (streaming, &error));
  g_assert_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_CANCELLED);
  g_assert_cmpint (g_get_monotonic_time () - begin, <, 200 * 1000);

  /* Cleanup still happens, unawaited. */
  spin_until (&preparer->cleanup_calls, 1);
  test_preparer_release (preparer);
  spin (20);
  g_assert_cmpuint (preparer->cleanups_done, ==, 1);
}

static void
on_tool_called_cancel_after_turn (AgentsRunResultStreaming *streaming,
                                  AgentsStreamEvent *event,
                                  gpointer user_data)
{
  if (g_strcmp0 (agents_stream_event_get_name (event), "tool_called") == 0)
    agents_run_result_streaming_cancel (streaming,
                                        AGENTS_CANCEL_MODE_AFTER_TURN);
}

static void
test_cancel_after_turn (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsTool) tool = agents_testing_function_tool ("tool1", "ok");
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResultStreaming) streaming = NULL;
  g_autoptr (GPtrArray) events = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *summary = NULL;
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (AgentsRunResult) resumed = NULL;

  agents_agent_add_tool (agent, tool);
  agents_test_add_turn (
    model, agents_testing_function_tool_call ("tool1", "{}", "c1"), NULL);
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  streaming = stream (runner, agent, "hello", NULL);
  g_signal_connect (streaming, "event",
                    G_CALLBACK (on_tool_called_cancel_after_turn), NULL);
  events = pull_all (streaming, &error);
  g_assert_no_error (error);
  summary = summarize (events);
  /* The turn finished: its tool ran; no other turn began. */
  g_assert_cmpstr (summary, ==,
                   "agent_updated test, raw, tool_called, tool_output");
  g_assert_null (agents_run_result_streaming_get_final_output (streaming));
  g_assert_cmpuint (agents_scripted_model_get_n_turn_outputs (model), ==, 1);
  g_assert_true (wait_run (streaming, &error));
  g_assert_no_error (error);

  /* The run goes on from its state. */
  state = agents_run_result_streaming_to_state (streaming);
  AGENTS_TEST_AWAIT (
    result, agents_runner_resume_async (runner, agent, state, NULL, NULL, NULL,
                                        agents_test_async_cb, &result));
  resumed = agents_runner_resume_finish (runner, result, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (
    json_node_get_string (agents_run_result_get_final_output (resumed)), ==,
    "done");
}

/* The reference's test_runner_streamed_run_loop_task_waits_for_sandbox_
 * cleanup_and_persisted_state. */
static void
wait_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  gboolean *done = user_data;
  g_autoptr (GError) error = NULL;

  g_assert_true (agents_run_result_streaming_wait_finish (
    AGENTS_RUN_RESULT_STREAMING (source), result, &error));
  g_assert_no_error (error);
  *done = TRUE;
}

static void
test_runner_streamed_run_loop_task_waits_for_sandbox_cleanup_and_persisted_state (
  void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("sandbox", model);
  g_autoptr (TestPreparer) preparer = g_object_new (TEST_TYPE_PREPARER, NULL);
  g_autoptr (AgentsRunConfig) config = preparer_config (preparer);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResultStreaming) streaming = NULL;
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (JsonNode) again = agents_test_str_node ("again");
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (AgentsRunResult) second = NULL;
  g_autoptr (GError) error = NULL;
  gboolean done = FALSE;

  preparer->hold_cleanup = TRUE;
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  agents_test_add_turn (model, agents_testing_final_output_message ("again"),
                        NULL);
  streaming = stream (runner, agent, "hello", config);
  agents_run_result_streaming_wait_async (streaming, NULL, wait_done, &done);

  spin_until (&preparer->cleanup_calls, 1);
  spin (50);
  g_assert_false (done);

  test_preparer_release (preparer);
  agents_test_wait_for (&done);

  state = agents_run_result_streaming_to_state (streaming);
  g_assert_nonnull (agents_run_state_get_sandbox (state));
  g_assert_cmpstr (json_object_get_string_member (
                     agents_run_state_get_sandbox (state), "marker"),
                   ==, "persisted");

  AGENTS_TEST_AWAIT (
    result, agents_runner_run_async (runner, agent, again, config, NULL, NULL,
                                     NULL, agents_test_async_cb, &result));
  second = agents_runner_run_finish (runner, result, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (
    json_node_get_string (agents_run_result_get_final_output (second)), ==,
    "again");
}

/* The reference's test_runner_streamed_cleans_sandbox_once_after_stream_
 * completion. */
static void
test_runner_streamed_cleans_sandbox_once_after_stream_completion (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("sandbox", model);
  g_autoptr (TestPreparer) preparer = g_object_new (TEST_TYPE_PREPARER, NULL);
  g_autoptr (AgentsRunConfig) config = preparer_config (preparer);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResultStreaming) streaming = NULL;
  g_autoptr (GPtrArray) events = NULL;
  g_autoptr (GError) error = NULL;

  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  streaming = stream (runner, agent, "hello", config);
  events = pull_all (streaming, &error);
  g_assert_no_error (error);
  spin (0);
  g_assert_cmpuint (events->len, >, 0);
  assert_final_text (streaming, "done");
  g_assert_null (agents_run_private_result_get_sandbox_session (
    agents_run_result_streaming_get_result (streaming)));
  g_assert_cmpuint (preparer->cleanup_calls, ==, 1);
  g_assert_cmpuint (preparer->cleanups_done, ==, 1);
}

/* The reference's test_runner_streamed_emits_public_agent_for_tool_and_
 * reasoning_events. */
static void
test_runner_streamed_emits_public_agent_for_tool_and_reasoning_events (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("sandbox", model);
  g_autoptr (AgentsTool) tool =
    agents_testing_function_tool ("tool1", "tool result");
  g_autoptr (TestPreparer) preparer = g_object_new (TEST_TYPE_PREPARER, NULL);
  g_autoptr (AgentsRunConfig) config = preparer_config (preparer);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResultStreaming) streaming = NULL;
  g_autoptr (GPtrArray) events = NULL;
  g_autoptr (GError) error = NULL;
  guint relevant = 0;

  agents_agent_set_instructions (agent, "Base instructions.");
  agents_agent_add_tool (agent, tool);
  agents_test_add_turn (
    model, agents_testing_reasoning_item ("r1", "thinking"),
    agents_testing_function_tool_call ("tool1", "{}", "call_tool"), NULL);
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  streaming = stream (runner, agent, "hello", config);
  events = pull_all (streaming, &error);
  g_assert_no_error (error);

  for (guint i = 0; i < events->len; i++)
    {
      AgentsStreamEvent *event = events->pdata[i];
      const char *name = agents_stream_event_get_name (event);

      if (agents_stream_event_get_kind (event) !=
            AGENTS_STREAM_EVENT_KIND_RUN_ITEM ||
          !(g_strcmp0 (name, "reasoning_item_created") == 0 ||
            g_strcmp0 (name, "tool_called") == 0 ||
            g_strcmp0 (name, "tool_output") == 0))
        continue;
      relevant++;
      g_assert_true (agents_run_item_get_agent (
                       agents_stream_event_get_item (event)) == agent);
    }
  g_assert_cmpuint (relevant, ==, 3);
}

/* The streamed half of the reference's test_runner_keeps_public_agent_
 * identity_for_hooks_and_streaming. */
static void
record_agent (GObject *emitter,
              AgentsRunContext *ctx,
              AgentsAgent *agent,
              GPtrArray *seen)
{
  g_ptr_array_add (seen, agent);
}

static void
record_agent_llm_start (AgentsRunner *runner,
                        AgentsRunContext *ctx,
                        AgentsAgent *agent,
                        const char *prompt,
                        JsonArray *input,
                        GPtrArray *seen)
{
  g_ptr_array_add (seen, agent);
}

static void
record_agent_llm_end (AgentsRunner *runner,
                      AgentsRunContext *ctx,
                      AgentsAgent *agent,
                      AgentsModelResponse *response,
                      GPtrArray *seen)
{
  g_ptr_array_add (seen, agent);
}

static void
record_agent_end (AgentsRunner *runner,
                  AgentsRunContext *ctx,
                  AgentsAgent *agent,
                  JsonNode *output,
                  GPtrArray *seen)
{
  g_ptr_array_add (seen, agent);
}

static void
record_self (AgentsAgent *agent, AgentsRunContext *ctx, GPtrArray *seen)
{
  g_ptr_array_add (seen, agent);
}

static void
record_self_llm (AgentsAgent *agent,
                 AgentsRunContext *ctx,
                 gpointer arg1,
                 gpointer arg2,
                 GPtrArray *seen)
{
  g_ptr_array_add (seen, agent);
}

static void
record_self_end (AgentsAgent *agent,
                 AgentsRunContext *ctx,
                 gpointer arg,
                 GPtrArray *seen)
{
  g_ptr_array_add (seen, agent);
}

static void
test_runner_keeps_public_agent_identity_for_hooks_and_streaming (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent =
    agents_test_new_agent ("streamed-sandbox", model);
  g_autoptr (TestPreparer) preparer = g_object_new (TEST_TYPE_PREPARER, NULL);
  g_autoptr (AgentsRunConfig) config = preparer_config (preparer);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResultStreaming) streaming = NULL;
  g_autoptr (GPtrArray) events = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) run_seen = g_ptr_array_new ();
  g_autoptr (GPtrArray) agent_seen = g_ptr_array_new ();
  GListModel *items;
  guint run_item_events = 0;

  g_signal_connect (runner, "agent-start", G_CALLBACK (record_agent), run_seen);
  g_signal_connect (runner, "llm-start", G_CALLBACK (record_agent_llm_start),
                    run_seen);
  g_signal_connect (runner, "llm-end", G_CALLBACK (record_agent_llm_end),
                    run_seen);
  g_signal_connect (runner, "agent-end", G_CALLBACK (record_agent_end),
                    run_seen);
  g_signal_connect (agent, "start", G_CALLBACK (record_self), agent_seen);
  g_signal_connect (agent, "llm-start", G_CALLBACK (record_self_llm),
                    agent_seen);
  g_signal_connect (agent, "llm-end", G_CALLBACK (record_self_end), agent_seen);
  g_signal_connect (agent, "end", G_CALLBACK (record_self_end), agent_seen);
  agents_agent_set_instructions (agent, "Base instructions.");
  agents_test_add_turn (
    model, agents_testing_final_output_message ("streamed done"), NULL);

  streaming = stream (runner, agent, "hello", config);
  events = pull_all (streaming, &error);
  g_assert_no_error (error);

  g_assert_true (agents_run_result_streaming_get_current_agent (streaming) ==
                 agent);
  g_assert_cmpuint (run_seen->len, ==, 4);
  g_assert_cmpuint (agent_seen->len, ==, 4);
  for (guint i = 0; i < 4; i++)
    {
      g_assert_true (run_seen->pdata[i] == agent);
      g_assert_true (agent_seen->pdata[i] == agent);
    }
  items = agents_run_result_streaming_get_new_items (streaming);
  for (guint i = 0; i < g_list_model_get_n_items (items); i++)
    {
      g_autoptr (AgentsRunItem) item = g_list_model_get_item (items, i);

      g_assert_true (agents_run_item_get_agent (item) == agent);
    }
  for (guint i = 0; i < events->len; i++)
    {
      AgentsStreamEvent *event = events->pdata[i];

      if (agents_stream_event_get_kind (event) !=
          AGENTS_STREAM_EVENT_KIND_RUN_ITEM)
        continue;
      run_item_events++;
      g_assert_true (agents_run_item_get_agent (
                       agents_stream_event_get_item (event)) == agent);
    }
  g_assert_cmpuint (run_item_events, >, 0);
  for (guint i = 0; i < preparer->seen_public->len; i++)
    g_assert_true (preparer->seen_public->pdata[i] == agent);
}

static void
test_next_event_cancellable (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResultStreaming) streaming = NULL;
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) events = NULL;
  AgentsStreamEvent *event;

  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  streaming = stream (runner, agent, "hello", NULL);
  /* Nothing is queued before the run starts: the call waits, then its
   * cancellation completes it. */
  agents_run_result_streaming_next_event_async (streaming, cancellable,
                                                agents_test_async_cb, &result);
  g_cancellable_cancel (cancellable);
  agents_test_wait_result (&result);
  event =
    agents_run_result_streaming_next_event_finish (streaming, result, &error);
  g_assert_null (event);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  events = pull_all (streaming, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (events->len, >, 0);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/run/streaming/event-order-and-names",
                   test_event_order_and_names);
  g_test_add_func ("/run/streaming/handoff-events", test_handoff_events);
  g_test_add_func ("/run/streaming/tool-approval-event",
                   test_tool_approval_event);
  g_test_add_func ("/run/streaming/error-at-end", test_error_at_end);
  g_test_add_func (
    "/run/streaming/"
    "runner_streamed_guardrail_trip_blocks_runner_owned_sandbox_creation",
    test_runner_streamed_guardrail_trip_blocks_runner_owned_sandbox_creation);
  g_test_add_func (
    "/run/streaming/"
    "runner_streamed_immediate_cancel_skips_waiting_for_sandbox_cleanup",
    test_runner_streamed_immediate_cancel_skips_waiting_for_sandbox_cleanup);
  g_test_add_func ("/run/streaming/cancel-after-turn", test_cancel_after_turn);
  g_test_add_func (
    "/run/streaming/"
    "runner_streamed_run_loop_task_waits_for_sandbox_cleanup_and_persisted_"
    "state",
    test_runner_streamed_run_loop_task_waits_for_sandbox_cleanup_and_persisted_state);
  g_test_add_func (
    "/run/streaming/"
    "runner_streamed_cleans_sandbox_once_after_stream_completion",
    test_runner_streamed_cleans_sandbox_once_after_stream_completion);
  g_test_add_func (
    "/run/streaming/"
    "runner_streamed_emits_public_agent_for_tool_and_reasoning_events",
    test_runner_streamed_emits_public_agent_for_tool_and_reasoning_events);
  g_test_add_func (
    "/run/streaming/"
    "runner_keeps_public_agent_identity_for_hooks_and_streaming",
    test_runner_keeps_public_agent_identity_for_hooks_and_streaming);
  g_test_add_func ("/run/streaming/next-event-cancellable",
                   test_next_event_cancellable);

  return g_test_run ();
}
