/* test-runner.c - the turn loop of AgentsRunner
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-object-list-private.h"
#include "agents-run-private.h"
#include "test-utils.h"

/* ---- Helpers ----------------------------------------------------------- */

static AgentsRunResult *
run_agent (AgentsRunner *runner,
           AgentsAgent *agent,
           const char *input,
           AgentsRunConfig *config,
           AgentsConversationSession *session,
           GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (JsonNode) node = agents_test_str_node (input);

  AGENTS_TEST_AWAIT (
    result, agents_runner_run_async (runner, agent, node, config, session, NULL,
                                     NULL, agents_test_async_cb, &result));
  return agents_runner_run_finish (runner, result, error);
}

static AgentsRunResult *
run_simple (AgentsAgent *agent, const char *input, GError **error)
{
  g_autoptr (AgentsRunner) runner = agents_runner_new ();

  return run_agent (runner, agent, input, NULL, NULL, error);
}

/* Runs @agent of @model with the tool "foo" (returning "result"): the
 * first turn calls foo, the second answers "done". */
static AgentsRunResult *
run_foo_then_done (AgentsScriptedModel *model, AgentsAgent *agent)
{
  g_autoptr (AgentsTool) tool = agents_testing_function_tool ("foo", "result");
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;

  agents_agent_add_tool (agent, tool);
  agents_test_add_turn (
    model, agents_testing_function_tool_call ("foo", "{}", "call_1"), NULL);
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  result = run_simple (agent, "hello", &error);
  g_assert_no_error (error);
  return g_steal_pointer (&result);
}

static AgentsRunResult *
resume (AgentsRunner *runner,
        AgentsAgent *agent,
        AgentsRunState *state,
        AgentsRunConfig *config,
        GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  AGENTS_TEST_AWAIT (
    result, agents_runner_resume_async (runner, agent, state, config, NULL,
                                        NULL, agents_test_async_cb, &result));
  return agents_runner_resume_finish (runner, result, error);
}

static void
assert_final_text (AgentsRunResult *result, const char *text)
{
  JsonNode *output = agents_run_result_get_final_output (result);

  g_assert_nonnull (output);
  g_assert_true (JSON_NODE_HOLDS_VALUE (output));
  g_assert_cmpstr (json_node_get_string (output), ==, text);
}

static AgentsRunItem *
item_at (GListModel *items, guint i)
{
  g_autoptr (AgentsRunItem) item = g_list_model_get_item (items, i);

  g_assert_nonnull (item);
  return item; /* the list keeps it alive */
}

static char *
input_text (JsonArray *input, guint i)
{
  JsonObject *item = json_array_get_object_element (input, i);
  g_autoptr (JsonNode) node = json_node_init_object (json_node_alloc (), item);

  return json_to_string (node, FALSE);
}

static const char *
user_text (JsonArray *input, guint i)
{
  JsonObject *item = json_array_get_object_element (input, i);

  g_assert_cmpstr (json_object_get_string_member (item, "role"), ==, "user");
  return json_object_get_string_member (item, "content");
}

/* A tool function that fails. */
static char *
failing_tool (AgentsRunContext *ctx,
              const char *arguments,
              gpointer user_data,
              GError **error)
{
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, "boom");
  return NULL;
}

/* A tool function that echoes its arguments. */
static char *
echo_tool (AgentsRunContext *ctx,
           const char *arguments,
           gpointer user_data,
           GError **error)
{
  return g_strdup (arguments);
}

/* A local shell executor that echoes the action. */
static char *
echo_shell (AgentsRunContext *ctx,
            JsonObject *action,
            gpointer user_data,
            GError **error)
{
  g_autoptr (JsonNode) node =
    json_node_init_object (json_node_alloc (), action);

  return json_to_string (node, FALSE);
}

/* ---- A slow async tool ------------------------------------------------- */

typedef struct
{
  guint delay_ms;
  gint64 *started;
  gint64 *ended;
  guint *running;
  guint *max_running;
  char *output;
} SlowTool;

typedef struct
{
  GTask *task;
  SlowTool *tool;
  guint source;
  gulong cancel_handler;
} SlowCall;

static void
slow_call_finish (SlowCall *call, gboolean cancelled)
{
  GCancellable *cancellable = g_task_get_cancellable (call->task);

  (*call->tool->running)--;
  *call->tool->ended = g_get_monotonic_time ();
  if (call->cancel_handler != 0)
    g_signal_handler_disconnect (cancellable, call->cancel_handler);
  if (cancelled)
    g_task_return_new_error (call->task, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                             "cancelled");
  else
    agents_tool_return_text (call->task, call->tool->output);
  g_object_unref (call->task);
  g_free (call);
}

static gboolean
slow_call_timeout (gpointer user_data)
{
  SlowCall *call = user_data;

  call->source = 0;
  slow_call_finish (call, FALSE);
  return G_SOURCE_REMOVE;
}

static gboolean
slow_call_cancel_idle (gpointer user_data)
{
  SlowCall *call = user_data;

  if (call->source != 0)
    g_source_remove (call->source);
  call->source = 0;
  slow_call_finish (call, TRUE);
  return G_SOURCE_REMOVE;
}

static void
slow_call_cancelled (GCancellable *cancellable, gpointer user_data)
{
  g_idle_add (slow_call_cancel_idle, user_data);
}

static void
slow_tool_func (AgentsRunContext *ctx,
                const char *arguments,
                GTask *task,
                gpointer user_data)
{
  SlowTool *tool = user_data;
  SlowCall *call = g_new0 (SlowCall, 1);
  GCancellable *cancellable = g_task_get_cancellable (task);

  call->task = g_object_ref (task);
  call->tool = tool;
  *tool->started = g_get_monotonic_time ();
  (*tool->running)++;
  *tool->max_running = MAX (*tool->max_running, *tool->running);
  call->source = g_timeout_add (tool->delay_ms, slow_call_timeout, call);
  if (cancellable != NULL)
    call->cancel_handler = g_signal_connect (
      cancellable, "cancelled", G_CALLBACK (slow_call_cancelled), call);
}

static AgentsTool *
slow_tool_new (const char *name, SlowTool *spec)
{
  return AGENTS_TOOL (agents_function_tool_new_async (
    name, NULL, NULL, slow_tool_func, spec, NULL));
}

/* ---- An execution agent that composes the public agent's prompt -------- */

#define TEST_TYPE_EXEC_AGENT (test_exec_agent_get_type ())
G_DECLARE_FINAL_TYPE (
  TestExecAgent, test_exec_agent, TEST, EXEC_AGENT, AgentsAgent)

struct _TestExecAgent
{
  AgentsAgent parent_instance;
  AgentsAgent *public_agent;
};

G_DEFINE_FINAL_TYPE (TestExecAgent, test_exec_agent, AGENTS_TYPE_AGENT)

static void
public_prompt_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;
  g_autofree char *own = agents_agent_get_system_prompt_finish (
    AGENTS_AGENT (source), result, &error);

  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (
      task, g_strdup_printf ("Sandbox preamble.\n\n%s", own), g_free);
}

/* The prepared agent's prompt: the sandbox's part, then the public agent's
 * own, computed by the public agent (so its functions see it). */
static void
exec_agent_get_system_prompt (AgentsAgent *agent,
                              AgentsRunContext *ctx,
                              GTask *task)
{
  TestExecAgent *self = TEST_EXEC_AGENT (agent);

  agents_agent_get_system_prompt_async (
    self->public_agent, ctx, g_task_get_cancellable (task), public_prompt_done,
    g_object_ref (task));
}

static void
test_exec_agent_dispose (GObject *object)
{
  g_clear_object (&TEST_EXEC_AGENT (object)->public_agent);
  G_OBJECT_CLASS (test_exec_agent_parent_class)->dispose (object);
}

static void
test_exec_agent_class_init (TestExecAgentClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = test_exec_agent_dispose;
  AGENTS_AGENT_CLASS (klass)->get_system_prompt = exec_agent_get_system_prompt;
}

static void
test_exec_agent_init (TestExecAgent *self)
{
}

static AgentsAgent *
exec_agent_new (AgentsAgent *public_agent)
{
  TestExecAgent *self = g_object_new (
    TEST_TYPE_EXEC_AGENT, "name", agents_agent_get_name (public_agent), "model",
    agents_agent_get_model (public_agent), NULL);
  GListModel *tools = agents_agent_get_tools (public_agent);

  self->public_agent = g_object_ref (public_agent);
  for (guint i = 0; i < g_list_model_get_n_items (tools); i++)
    {
      g_autoptr (AgentsTool) tool = g_list_model_get_item (tools, i);

      agents_agent_add_tool (AGENTS_AGENT (self), tool);
    }
  return AGENTS_AGENT (self);
}

/* ---- A preparer that executes clones ----------------------------------- */

#define TEST_TYPE_PREPARER (test_preparer_get_type ())
G_DECLARE_FINAL_TYPE (TestPreparer, test_preparer, TEST, PREPARER, GObject)

struct _TestPreparer
{
  GObject parent_instance;

  guint prepare_calls;
  guint cleanup_calls;
  GPtrArray *seen_public; /* agents */
  GPtrArray *executed;    /* clones */
  gboolean hold_cleanup;
  GTask *held_cleanup;
  gboolean compose_prompt;
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
  g_ptr_array_unref (self->executed);
  g_clear_object (&self->held_cleanup);
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
  self->executed = g_ptr_array_new_with_free_func (g_object_unref);
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
  /* One execution clone per run, reused across turns. */
  if (clone == NULL && self->compose_prompt)
    {
      clone = exec_agent_new (public_agent);
      agents_run_preparation_set_data (preparation, clone, g_object_unref);
      g_ptr_array_add (self->executed, g_object_ref (clone));
    }
  else if (clone == NULL)
    {
      clone = agents_agent_clone (public_agent);
      agents_agent_set_instructions (clone, "Execution instructions.");
      agents_run_preparation_set_data (preparation, clone, g_object_unref);
      g_ptr_array_add (self->executed, g_object_ref (clone));
    }
  agents_run_preparer_return_prepared (task, clone, NULL);
}

static void
test_preparer_cleanup (AgentsRunPreparer *preparer,
                       AgentsRunPreparation *preparation,
                       GTask *task)
{
  TestPreparer *self = TEST_PREPARER (preparer);
  JsonObject *payload = json_object_new ();

  self->cleanup_calls++;
  json_object_set_string_member (payload, "backend_id", "fake");
  json_object_set_string_member (payload, "marker", "persisted");
  if (self->hold_cleanup)
    {
      json_object_unref (payload);
      self->held_cleanup = g_object_ref (task);
      return;
    }
  g_task_return_pointer (task, payload, (GDestroyNotify) json_object_unref);
}

static void
test_preparer_iface_init (AgentsRunPreparerInterface *iface)
{
  iface->prepare_agent = test_preparer_prepare_agent;
  iface->cleanup = test_preparer_cleanup;
}

/* ---- Recording hooks --------------------------------------------------- */

typedef struct
{
  GPtrArray *events; /* strings */
  GPtrArray *agents; /* the agent each hook saw, not referenced */
} Recorder;

static void
recorder_init (Recorder *rec)
{
  rec->events = g_ptr_array_new_with_free_func (g_free);
  rec->agents = g_ptr_array_new ();
}

static void
recorder_clear (Recorder *rec)
{
  g_ptr_array_unref (rec->events);
  g_ptr_array_unref (rec->agents);
}

static void
record (Recorder *rec, AgentsAgent *agent, const char *what)
{
  g_ptr_array_add (
    rec->events,
    g_strdup_printf ("%s %s", what, agents_agent_get_name (agent)));
  g_ptr_array_add (rec->agents, agent);
}

static void
on_run_agent_start (AgentsRunner *r,
                    AgentsRunContext *c,
                    AgentsAgent *a,
                    Recorder *rec)
{
  record (rec, a, "run:agent-start");
}

static void
on_run_agent_end (AgentsRunner *r,
                  AgentsRunContext *c,
                  AgentsAgent *a,
                  JsonNode *o,
                  Recorder *rec)
{
  record (rec, a, "run:agent-end");
}

static void
on_run_llm_start (AgentsRunner *r,
                  AgentsRunContext *c,
                  AgentsAgent *a,
                  const char *p,
                  JsonArray *i,
                  Recorder *rec)
{
  record (rec, a, "run:llm-start");
}

static void
on_run_llm_end (AgentsRunner *r,
                AgentsRunContext *c,
                AgentsAgent *a,
                AgentsModelResponse *resp,
                Recorder *rec)
{
  record (rec, a, "run:llm-end");
}

static void
on_run_tool_start (AgentsRunner *r,
                   AgentsRunContext *c,
                   AgentsAgent *a,
                   AgentsTool *t,
                   Recorder *rec)
{
  record (rec, a, "run:tool-start");
}

static void
on_run_tool_end (AgentsRunner *r,
                 AgentsRunContext *c,
                 AgentsAgent *a,
                 AgentsTool *t,
                 JsonNode *o,
                 Recorder *rec)
{
  record (rec, a, "run:tool-end");
}

static void
on_run_handoff (AgentsRunner *r,
                AgentsRunContext *c,
                AgentsAgent *from,
                AgentsAgent *to,
                Recorder *rec)
{
  record (rec, from, "run:handoff-from");
  record (rec, to, "run:handoff-to");
}

static void
connect_run_hooks (AgentsRunner *runner, Recorder *rec)
{
  g_signal_connect (runner, "agent-start", G_CALLBACK (on_run_agent_start),
                    rec);
  g_signal_connect (runner, "agent-end", G_CALLBACK (on_run_agent_end), rec);
  g_signal_connect (runner, "llm-start", G_CALLBACK (on_run_llm_start), rec);
  g_signal_connect (runner, "llm-end", G_CALLBACK (on_run_llm_end), rec);
  g_signal_connect (runner, "tool-start", G_CALLBACK (on_run_tool_start), rec);
  g_signal_connect (runner, "tool-end", G_CALLBACK (on_run_tool_end), rec);
  g_signal_connect (runner, "handoff", G_CALLBACK (on_run_handoff), rec);
}

static void
on_agent_start (AgentsAgent *a, AgentsRunContext *c, Recorder *rec)
{
  record (rec, a, "agent:start");
}

static void
on_agent_end (AgentsAgent *a, AgentsRunContext *c, JsonNode *o, Recorder *rec)
{
  record (rec, a, "agent:end");
}

static void
on_agent_llm_start (AgentsAgent *a,
                    AgentsRunContext *c,
                    const char *p,
                    JsonArray *i,
                    Recorder *rec)
{
  record (rec, a, "agent:llm-start");
}

static void
on_agent_llm_end (AgentsAgent *a,
                  AgentsRunContext *c,
                  AgentsModelResponse *r,
                  Recorder *rec)
{
  record (rec, a, "agent:llm-end");
}

static void
on_agent_tool_start (AgentsAgent *a,
                     AgentsRunContext *c,
                     AgentsTool *t,
                     Recorder *rec)
{
  record (rec, a, "agent:tool-start");
}

static void
on_agent_tool_end (AgentsAgent *a,
                   AgentsRunContext *c,
                   AgentsTool *t,
                   JsonNode *o,
                   Recorder *rec)
{
  record (rec, a, "agent:tool-end");
}

static void
on_agent_handoff (AgentsAgent *a,
                  AgentsRunContext *c,
                  AgentsAgent *source,
                  Recorder *rec)
{
  record (rec, a, "agent:handoff");
}

static void
connect_agent_hooks (AgentsAgent *agent, Recorder *rec)
{
  g_signal_connect (agent, "start", G_CALLBACK (on_agent_start), rec);
  g_signal_connect (agent, "end", G_CALLBACK (on_agent_end), rec);
  g_signal_connect (agent, "llm-start", G_CALLBACK (on_agent_llm_start), rec);
  g_signal_connect (agent, "llm-end", G_CALLBACK (on_agent_llm_end), rec);
  g_signal_connect (agent, "tool-start", G_CALLBACK (on_agent_tool_start), rec);
  g_signal_connect (agent, "tool-end", G_CALLBACK (on_agent_tool_end), rec);
  g_signal_connect (agent, "handoff", G_CALLBACK (on_agent_handoff), rec);
}

static void
assert_events (Recorder *rec, const char *const *expected)
{
  guint n = g_strv_length ((char **) expected);

  for (guint i = 0; i < MIN (n, rec->events->len); i++)
    g_assert_cmpstr (rec->events->pdata[i], ==, expected[i]);
  g_assert_cmpuint (rec->events->len, ==, n);
}

/* ---- Guardrails -------------------------------------------------------- */

typedef struct
{
  gboolean trip;
  GPtrArray *seen_agents;
  guint calls;
} GuardrailSpec;

static AgentsGuardrailResult *
input_guardrail_func (AgentsRunContext *ctx,
                      AgentsAgent *agent,
                      JsonNode *input,
                      gpointer user_data)
{
  GuardrailSpec *spec = user_data;
  g_autoptr (JsonNode) info = agents_test_str_node ("checked");

  spec->calls++;
  if (spec->seen_agents != NULL)
    g_ptr_array_add (spec->seen_agents, agent);
  return agents_guardrail_result_new (info, spec->trip);
}

static AgentsGuardrailResult *
output_guardrail_func (AgentsRunContext *ctx,
                       AgentsAgent *agent,
                       JsonNode *output,
                       gpointer user_data)
{
  return input_guardrail_func (ctx, agent, output, user_data);
}

/* ---- Tests: the loop --------------------------------------------------- */

static void
test_simple_final_output (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  AgentsModelRequest *args;

  agents_agent_set_instructions (agent, "Be brief.");
  {
    g_autoptr (JsonObject) usage = json_object_new ();

    json_object_set_int_member (usage, "input_tokens", 7);
    agents_scripted_model_set_hardcoded_usage (model, usage);
  }
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  result = run_simple (agent, "hello", &error);
  g_assert_no_error (error);

  assert_final_text (result, "done");
  g_assert_true (agents_run_result_get_last_agent (result) == agent);
  g_assert_cmpuint (
    g_list_model_get_n_items (agents_run_result_get_new_items (result)), ==, 1);
  g_assert_cmpint (agents_run_item_get_kind (
                     item_at (agents_run_result_get_new_items (result), 0)),
                   ==, AGENTS_RUN_ITEM_KIND_MESSAGE_OUTPUT);
  g_assert_cmpuint (
    g_list_model_get_n_items (agents_run_result_get_raw_responses (result)), ==,
    1);
  g_assert_cmpuint (
    g_list_model_get_n_items (agents_run_result_get_interruptions (result)), ==,
    0);

  args = agents_scripted_model_get_first_turn_args (model);
  g_assert_cmpstr (agents_model_request_get_system_instructions (args), ==,
                   "Be brief.");
  g_assert_cmpuint (
    json_array_get_length (agents_model_request_get_input (args)), ==, 1);
  g_assert_cmpstr (user_text (agents_model_request_get_input (args), 0), ==,
                   "hello");
  g_assert_cmpuint (agents_run_context_get_input_tokens (
                      agents_run_result_get_context (result)),
                    ==, 7);
}

static void
test_to_input_list (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (JsonArray) list = NULL;
  g_autofree char *output = NULL;

  result = run_foo_then_done (model, agent);

  list = agents_run_result_to_input_list (result);
  g_assert_cmpuint (json_array_get_length (list), ==, 4);
  g_assert_cmpstr (user_text (list, 0), ==, "hello");
  g_assert_cmpstr (json_object_get_string_member (
                     json_array_get_object_element (list, 1), "type"),
                   ==, "function_call");
  output = input_text (list, 2);
  g_assert_cmpstr (output, ==,
                   "{\"call_id\":\"call_1\",\"output\":\"result\","
                   "\"type\":\"function_call_output\"}");
  g_assert_cmpstr (json_object_get_string_member (
                     json_array_get_object_element (list, 3), "type"),
                   ==, "message");
}

static void
test_tool_call_then_output (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsRunResult) result = NULL;
  GListModel *items;
  AgentsRunItem *output;
  JsonArray *input;

  result = run_foo_then_done (model, agent);

  assert_final_text (result, "done");
  items = agents_run_result_get_new_items (result);
  g_assert_cmpuint (g_list_model_get_n_items (items), ==, 3);
  g_assert_cmpint (agents_run_item_get_kind (item_at (items, 0)), ==,
                   AGENTS_RUN_ITEM_KIND_TOOL_CALL);
  output = item_at (items, 1);
  g_assert_cmpint (agents_run_item_get_kind (output), ==,
                   AGENTS_RUN_ITEM_KIND_TOOL_CALL_OUTPUT);
  g_assert_cmpstr (json_node_get_string (agents_run_item_get_output (output)),
                   ==, "result");
  g_assert_true (agents_run_item_get_agent (output) == agent);
  g_assert_cmpint (agents_run_item_get_kind (item_at (items, 2)), ==,
                   AGENTS_RUN_ITEM_KIND_MESSAGE_OUTPUT);

  /* The second turn sees the call and its output. */
  input = agents_model_request_get_input (
    agents_scripted_model_get_last_turn_args (model));
  g_assert_cmpuint (json_array_get_length (input), ==, 3);
  g_assert_cmpstr (json_object_get_string_member (
                     json_array_get_object_element (input, 2), "output"),
                   ==, "result");
  g_assert_cmpuint (agents_model_request_get_tools (
                      agents_scripted_model_get_last_turn_args (model))
                      ->len,
                    ==, 1);
}

/* Empties the input array it is handed at the second turn, in place. */
static void
clear_input_on_llm_start (AgentsRunner *runner,
                          AgentsRunContext *ctx,
                          AgentsAgent *agent,
                          const char *system_prompt,
                          JsonArray *input,
                          guint *calls)
{
  if ((*calls)++ == 1)
    while (json_array_get_length (input) > 0)
      json_array_remove_element (input, 0);
}

/* The model input is kept between turns and extended: every turn still
 * sees the whole history, even after a handler changed the array it was
 * handed in place. */
static void
test_model_input_across_turns (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsTool) tool = agents_testing_function_tool ("foo", "result");
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  guint calls = 0;
  JsonArray *input;

  agents_agent_add_tool (agent, tool);
  for (guint i = 1; i <= 3; i++)
    {
      g_autofree char *id = g_strdup_printf ("call_%u", i);

      agents_test_add_turn (
        model, agents_testing_function_tool_call ("foo", "{}", id), NULL);
    }
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  g_signal_connect (runner, "llm-start", G_CALLBACK (clear_input_on_llm_start),
                    &calls);
  result = run_agent (runner, agent, "hello", NULL, NULL, &error);
  g_assert_no_error (error);
  assert_final_text (result, "done");
  g_assert_cmpuint (calls, ==, 4);

  /* The user message, then three calls and their outputs. */
  input = agents_model_request_get_input (
    agents_scripted_model_get_last_turn_args (model));
  g_assert_cmpuint (json_array_get_length (input), ==, 7);
  g_assert_cmpstr (json_object_get_string_member (
                     json_array_get_object_element (input, 0), "content"),
                   ==, "hello");
  for (guint i = 1; i <= 3; i++)
    {
      g_autofree char *id = g_strdup_printf ("call_%u", i);
      JsonObject *call = json_array_get_object_element (input, 2 * i - 1);
      JsonObject *output = json_array_get_object_element (input, 2 * i);

      g_assert_cmpstr (json_object_get_string_member (call, "call_id"), ==, id);
      g_assert_cmpstr (json_object_get_string_member (output, "call_id"), ==,
                       id);
      g_assert_cmpstr (json_object_get_string_member (output, "output"), ==,
                       "result");
    }
}

/* The raw items a run makes are sealed, and the next turn's model input
 * holds those very objects instead of copies of them. */
static void
test_items_shared_with_model_input (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsRunResult) result = NULL;
  GListModel *items;
  JsonArray *input;

  result = run_foo_then_done (model, agent);
  assert_final_text (result, "done");

  items = agents_run_result_get_new_items (result);
  input = agents_model_request_get_input (
    agents_scripted_model_get_last_turn_args (model));
  g_assert_cmpuint (json_array_get_length (input), ==, 3);
  for (guint i = 0; i < 2; i++)
    {
      JsonObject *raw = agents_run_item_get_raw_item (item_at (items, i));

      g_assert_true (json_object_is_immutable (raw));
      g_assert_true (json_array_get_object_element (input, i + 1) == raw);
    }
}

static void
record_change (
  GListModel *list, guint position, guint removed, guint added, GString *log)
{
  g_string_append_printf (log, "%u-%u+%u;", position, removed, added);
}

/* The result's lists: items in order, each change announced. */
static void
test_object_list (void)
{
  g_autoptr (AgentsObjectList) list =
    agents_object_list_new (AGENTS_TYPE_MODEL_RESPONSE);
  g_autoptr (GPtrArray) responses =
    g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GString) log = g_string_new (NULL);
  GListModel *model = G_LIST_MODEL (list);

  for (guint i = 0; i < 3; i++)
    g_ptr_array_add (responses, agents_model_response_new (NULL, NULL, NULL));
  g_signal_connect (list, "items-changed", G_CALLBACK (record_change), log);
  g_assert_true (g_list_model_get_item_type (model) ==
                 AGENTS_TYPE_MODEL_RESPONSE);
  agents_object_list_append (list, responses->pdata[0]);
  agents_object_list_append (list, responses->pdata[1]);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 2);
  {
    g_autoptr (GObject) second = g_list_model_get_object (model, 1);

    g_assert_true (second == responses->pdata[1]);
  }
  g_assert_null (g_list_model_get_item (model, 2));
  /* Replacing keeps the objects both lists share alive. */
  g_ptr_array_remove_index (responses, 0);
  agents_object_list_set (list, responses);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 2);
  g_assert_true (G_IS_OBJECT (responses->pdata[0]));
  agents_object_list_set (list, NULL);
  agents_object_list_set (list, NULL);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 0);
  g_assert_cmpstr (log->str, ==, "0-0+1;1-0+1;0-2+2;0-2+0;");
}

static void
test_max_turns (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsTool) tool = agents_testing_function_tool ("foo", "result");
  g_autoptr (AgentsRunConfig) config = agents_run_config_new ();
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;

  agents_agent_add_tool (agent, tool);
  for (guint i = 0; i < 5; i++)
    agents_test_add_turn (
      model, agents_testing_function_tool_call ("foo", "{}", NULL), NULL);
  agents_run_config_set_max_turns (config, 3);
  result = run_agent (runner, agent, "hello", config, NULL, &error);
  g_assert_null (result);
  g_assert_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_MAX_TURNS_EXCEEDED);
  g_assert_cmpstr (error->message, ==, "Max turns (3) exceeded");
  g_assert_cmpuint (agents_scripted_model_get_n_turn_outputs (model), ==, 2);
}

static void
test_unknown_tool (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;

  agents_test_add_turn (
    model, agents_testing_function_tool_call ("missing", "{}", NULL), NULL);
  result = run_simple (agent, "hello", &error);
  g_assert_null (result);
  g_assert_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_MODEL_BEHAVIOR);
  g_assert_cmpstr (error->message, ==, "Tool missing not found in agent test");
}

static const char *
tool_output_text (AgentsRunResult *result, guint index)
{
  AgentsRunItem *item =
    item_at (agents_run_result_get_new_items (result), index);

  g_assert_cmpint (agents_run_item_get_kind (item), ==,
                   AGENTS_RUN_ITEM_KIND_TOOL_CALL_OUTPUT);
  return json_object_get_string_member (agents_run_item_get_raw_item (item),
                                        "output");
}

static void
test_tool_errors_become_output (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsTool) failing = AGENTS_TOOL (
    agents_function_tool_new ("fail", NULL, NULL, failing_tool, NULL, NULL));
  g_autoptr (AgentsTool) echo = AGENTS_TOOL (
    agents_function_tool_new ("echo", NULL, NULL, echo_tool, NULL, NULL));
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;

  agents_agent_add_tool (agent, failing);
  agents_agent_add_tool (agent, echo);
  agents_test_add_turn (
    model, agents_testing_function_tool_call ("fail", "{}", "c1"),
    agents_testing_function_tool_call ("echo", "{bad json", "c2"),
    agents_testing_function_tool_call ("echo", "{\"a\": 1}", "c3"), NULL);
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  result = run_simple (agent, "hello", &error);
  g_assert_no_error (error);

  assert_final_text (result, "done");
  g_assert_cmpstr (tool_output_text (result, 3), ==,
                   "An error occurred while running the tool. Please try "
                   "again. Error: boom");
  g_assert_cmpstr (tool_output_text (result, 4), ==,
                   "An error occurred while running the tool. Please try "
                   "again. Error: Invalid JSON input for tool echo: {bad json");
  g_assert_cmpstr (tool_output_text (result, 5), ==, "{\"a\": 1}");
}

/* A function tool's arguments are checked against its parameters schema
 * before it runs; a mismatch is answered as invalid JSON input is, through
 * the tool's failure function, and the tool never runs. */
static guint echo_runs;

static char *
counting_echo_tool (AgentsRunContext *ctx,
                    const char *arguments,
                    gpointer user_data,
                    GError **error)
{
  echo_runs++;
  return g_strdup (arguments);
}

static char *
custom_failure (AgentsRunContext *ctx, const GError *error, gpointer user_data)
{
  return g_strdup_printf ("custom: %s", error->message);
}

static void
test_tool_arguments_checked_against_schema (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (JsonObject) schema = NULL;
  g_autoptr (AgentsTool) echo = NULL;
  g_autoptr (AgentsTool) custom = NULL;
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) schema_node = json_from_string (
    "{\"type\": \"object\", \"properties\": {\"n\": {\"type\": "
    "\"integer\"}, \"tag\": {\"anyOf\": [{\"type\": \"string\"}, "
    "{\"type\": \"null\"}]}}, \"required\": [\"n\"], "
    "\"additionalProperties\": false}",
    &error);

  g_assert_no_error (error);
  schema = json_node_dup_object (schema_node);
  echo = AGENTS_TOOL (agents_function_tool_new (
    "echo", NULL, schema, counting_echo_tool, NULL, NULL));
  custom = AGENTS_TOOL (agents_function_tool_new (
    "custom", NULL, schema, counting_echo_tool, NULL, NULL));
  agents_function_tool_set_error_func (AGENTS_FUNCTION_TOOL (custom),
                                       custom_failure, NULL, NULL);
  agents_agent_add_tool (agent, echo);
  agents_agent_add_tool (agent, custom);
  echo_runs = 0;
  agents_test_add_turn (
    model, agents_testing_function_tool_call ("echo", "{\"n\": \"1\"}", "c1"),
    agents_testing_function_tool_call ("echo", "", "c2"),
    agents_testing_function_tool_call ("echo", "{\"n\": 1, \"x\": 2}", "c3"),
    agents_testing_function_tool_call ("custom", "{\"tag\": 3, \"n\": 1}",
                                       "c4"),
    agents_testing_function_tool_call ("echo", "{\"n\": 2, \"tag\": null}",
                                       "c5"),
    NULL);
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  result = run_simple (agent, "hello", &error);
  g_assert_no_error (error);

  assert_final_text (result, "done");
  g_assert_cmpstr (tool_output_text (result, 5), ==,
                   "An error occurred while running the tool. Please try "
                   "again. Error: Invalid JSON input for tool echo: $.n: "
                   "expected integer");
  g_assert_cmpstr (tool_output_text (result, 6), ==,
                   "An error occurred while running the tool. Please try "
                   "again. Error: Invalid JSON input for tool echo: $: "
                   "missing member “n”");
  g_assert_cmpstr (tool_output_text (result, 7), ==,
                   "An error occurred while running the tool. Please try "
                   "again. Error: Invalid JSON input for tool echo: $.x: "
                   "unexpected member");
  g_assert_cmpstr (tool_output_text (result, 8), ==,
                   "custom: Invalid JSON input for tool custom: $.tag: "
                   "matches none of “anyOf”");
  g_assert_cmpstr (tool_output_text (result, 9), ==,
                   "{\"n\": 2, \"tag\": null}");
  /* Only the valid call ran. */
  g_assert_cmpuint (echo_runs, ==, 1);
}

static void
test_parallel_tool_calls (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  gint64 started[2] = { 0 }, ended[2] = { 0 };
  guint running = 0, max_running = 0;
  SlowTool one = { 200, &started[0], &ended[0], &running, &max_running, "one" };
  SlowTool two = { 200, &started[1], &ended[1], &running, &max_running, "two" };
  g_autoptr (AgentsTool) tool_one = slow_tool_new ("one", &one);
  g_autoptr (AgentsTool) tool_two = slow_tool_new ("two", &two);
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  gint64 begin;

  agents_agent_add_tool (agent, tool_one);
  agents_agent_add_tool (agent, tool_two);
  agents_test_add_turn (
    model, agents_testing_function_tool_call ("one", "{}", "c1"),
    agents_testing_function_tool_call ("two", "{}", "c2"), NULL);
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);

  begin = g_get_monotonic_time ();
  result = run_simple (agent, "hello", &error);
  g_assert_no_error (error);
  assert_final_text (result, "done");

  /* Both ran at once: each started before the other ended. */
  g_assert_cmpuint (max_running, ==, 2);
  g_assert_cmpint (started[0], <, ended[1]);
  g_assert_cmpint (started[1], <, ended[0]);
  g_assert_cmpint (g_get_monotonic_time () - begin, <, 390 * 1000);
  /* Outputs keep the order of the calls. */
  g_assert_cmpstr (tool_output_text (result, 2), ==, "one");
  g_assert_cmpstr (tool_output_text (result, 3), ==, "two");
}

static void
test_sequential_tool_calls (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsModelSettings) settings = agents_model_settings_new ();
  gint64 started[2] = { 0 }, ended[2] = { 0 };
  guint running = 0, max_running = 0;
  SlowTool one = { 50, &started[0], &ended[0], &running, &max_running, "one" };
  SlowTool two = { 50, &started[1], &ended[1], &running, &max_running, "two" };
  g_autoptr (AgentsTool) tool_one = slow_tool_new ("one", &one);
  g_autoptr (AgentsTool) tool_two = slow_tool_new ("two", &two);
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;

  agents_model_settings_set_parallel_tool_calls (settings, FALSE);
  agents_agent_set_model_settings (agent, settings);
  agents_agent_add_tool (agent, tool_one);
  agents_agent_add_tool (agent, tool_two);
  agents_test_add_turn (
    model, agents_testing_function_tool_call ("one", "{}", "c1"),
    agents_testing_function_tool_call ("two", "{}", "c2"), NULL);
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  result = run_simple (agent, "hello", &error);
  g_assert_no_error (error);

  g_assert_cmpuint (max_running, ==, 1);
  g_assert_cmpint (ended[0], <=, started[1]);
}

static void
test_handoff (void)
{
  g_autoptr (AgentsScriptedModel) triage_model = agents_scripted_model_new ();
  g_autoptr (AgentsScriptedModel) worker_model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) triage =
    agents_test_new_agent ("triage", triage_model);
  g_autoptr (AgentsAgent) worker =
    agents_test_new_agent ("worker", worker_model);
  g_autoptr (AgentsAgent) other = agents_test_new_agent ("other", NULL);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  GListModel *items;
  AgentsRunItem *handoff_output;
  JsonArray *worker_input;
  Recorder rec;
  const char *expected[] = {
    "run:agent-start triage",
    "run:handoff-from triage",
    "run:handoff-to worker",
    "agent:handoff worker",
    "run:agent-start worker",
    "run:agent-end worker",
    NULL,
  };

  recorder_init (&rec);
  g_signal_connect (runner, "agent-start", G_CALLBACK (on_run_agent_start),
                    &rec);
  g_signal_connect (runner, "agent-end", G_CALLBACK (on_run_agent_end), &rec);
  g_signal_connect (runner, "handoff", G_CALLBACK (on_run_handoff), &rec);
  g_signal_connect (worker, "handoff", G_CALLBACK (on_agent_handoff), &rec);

  agents_agent_add_handoff (triage, G_OBJECT (worker));
  agents_agent_add_handoff (triage, G_OBJECT (other));
  agents_test_add_turn (triage_model, agents_testing_handoff_tool_call (worker),
                        agents_testing_handoff_tool_call (other), NULL);
  agents_test_add_turn (worker_model,
                        agents_testing_final_output_message ("done"), NULL);
  result = run_agent (runner, triage, "route this", NULL, NULL, &error);
  g_assert_no_error (error);

  assert_final_text (result, "done");
  g_assert_true (agents_run_result_get_last_agent (result) == worker);
  items = agents_run_result_get_new_items (result);
  g_assert_cmpuint (g_list_model_get_n_items (items), ==, 5);
  g_assert_cmpint (agents_run_item_get_kind (item_at (items, 0)), ==,
                   AGENTS_RUN_ITEM_KIND_HANDOFF_CALL);
  g_assert_cmpint (agents_run_item_get_kind (item_at (items, 1)), ==,
                   AGENTS_RUN_ITEM_KIND_HANDOFF_CALL);
  /* The second handoff is ignored, the first one wins. */
  g_assert_cmpstr (tool_output_text (result, 2), ==,
                   "Multiple handoffs detected, ignoring this one.");
  handoff_output = item_at (items, 3);
  g_assert_cmpint (agents_run_item_get_kind (handoff_output), ==,
                   AGENTS_RUN_ITEM_KIND_HANDOFF_OUTPUT);
  g_assert_cmpstr (json_object_get_string_member (
                     agents_run_item_get_raw_item (handoff_output), "output"),
                   ==, "{\"assistant\": \"worker\"}");
  g_assert_true (agents_run_item_get_source_agent (handoff_output) == triage);
  g_assert_true (agents_run_item_get_target_agent (handoff_output) == worker);
  g_assert_true (agents_run_item_get_agent (handoff_output) == triage);
  g_assert_true (agents_run_item_get_agent (item_at (items, 4)) == worker);

  worker_input = agents_model_request_get_input (
    agents_scripted_model_get_first_turn_args (worker_model));
  g_assert_cmpuint (json_array_get_length (worker_input), ==, 5);
  assert_events (&rec, expected);
  recorder_clear (&rec);
}

static AgentsHandoffInputData *
drop_history_filter (AgentsHandoffInputData *data, gpointer user_data)
{
  g_autoptr (JsonNode) history = agents_test_str_node ("filtered");
  guint *calls = user_data;

  (*calls)++;
  g_assert_cmpuint (agents_handoff_input_data_get_pre_handoff_items (data)->len,
                    ==, 2);
  g_assert_cmpuint (agents_handoff_input_data_get_new_items (data)->len, ==, 2);
  return agents_handoff_input_data_new (
    history, NULL, agents_handoff_input_data_get_new_items (data),
    agents_handoff_input_data_get_run_context (data));
}

static void
test_handoff_input_filter (void)
{
  g_autoptr (AgentsScriptedModel) triage_model = agents_scripted_model_new ();
  g_autoptr (AgentsScriptedModel) worker_model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) triage =
    agents_test_new_agent ("triage", triage_model);
  g_autoptr (AgentsAgent) worker =
    agents_test_new_agent ("worker", worker_model);
  g_autoptr (AgentsHandoff) handoff = agents_handoff_new (worker);
  g_autoptr (AgentsTool) tool = agents_testing_function_tool ("foo", "result");
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  JsonArray *worker_input;
  guint calls = 0;

  agents_agent_add_tool (triage, tool);
  agents_handoff_set_input_filter (handoff, drop_history_filter, &calls, NULL);
  agents_agent_add_handoff (triage, G_OBJECT (handoff));
  agents_test_add_turn (
    triage_model, agents_testing_function_tool_call ("foo", "{}", "c1"), NULL);
  agents_test_add_turn (triage_model, agents_testing_handoff_tool_call (worker),
                        NULL);
  agents_test_add_turn (worker_model,
                        agents_testing_final_output_message ("done"), NULL);
  result = run_simple (triage, "secret history", &error);
  g_assert_no_error (error);

  assert_final_text (result, "done");
  g_assert_cmpuint (calls, ==, 1);
  /* The worker sees the filtered history and the handoff turn only. */
  worker_input = agents_model_request_get_input (
    agents_scripted_model_get_first_turn_args (worker_model));
  g_assert_cmpuint (json_array_get_length (worker_input), ==, 3);
  g_assert_cmpstr (user_text (worker_input, 0), ==, "filtered");
  g_assert_cmpstr (json_object_get_string_member (
                     json_array_get_object_element (worker_input, 1), "type"),
                   ==, "function_call");
  g_assert_cmpuint (
    g_list_model_get_n_items (agents_run_result_get_new_items (result)), ==, 3);
}

static void
test_agent_as_tool (void)
{
  g_autoptr (AgentsScriptedModel) parent_model = agents_scripted_model_new ();
  g_autoptr (AgentsScriptedModel) child_model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) parent =
    agents_test_new_agent ("parent", parent_model);
  g_autoptr (AgentsAgent) child = agents_test_new_agent ("child", child_model);
  g_autoptr (AgentsTool) tool = NULL;
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunConfig) config = agents_run_config_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  JsonArray *child_input;
  Recorder rec;
  const char *expected[] = {
    "run:agent-start parent",
    "run:agent-start child",
    "run:agent-end child",
    "run:agent-end parent",
    NULL,
  };

  recorder_init (&rec);
  g_signal_connect (runner, "agent-start", G_CALLBACK (on_run_agent_start),
                    &rec);
  g_signal_connect (runner, "agent-end", G_CALLBACK (on_run_agent_end), &rec);
  agents_agent_set_instructions (child, "Child instructions.");
  tool = agents_agent_as_tool (child, "delegate_to_child", "Delegate.");
  agents_agent_add_tool (parent, tool);
  agents_test_add_turn (
    parent_model,
    agents_testing_function_tool_call ("delegate_to_child",
                                       "{\"input\": \"check this\"}", "c1"),
    NULL);
  agents_test_add_turn (
    parent_model, agents_testing_final_output_message ("parent done"), NULL);
  agents_test_add_turn (
    child_model, agents_testing_final_output_message ("child done"), NULL);
  agents_run_config_set_workflow_name (config, "as tool");
  {
    g_autoptr (AgentsModelSettings) settings = agents_model_settings_new ();

    agents_model_settings_set_temperature (settings, 0.25);
    agents_run_config_set_model_settings (config, settings);
  }
  result = run_agent (runner, parent, "hello", config, NULL, &error);
  g_assert_no_error (error);

  assert_final_text (result, "parent done");
  g_assert_cmpstr (tool_output_text (result, 1), ==, "child done");
  child_input = agents_model_request_get_input (
    agents_scripted_model_get_first_turn_args (child_model));
  g_assert_cmpuint (json_array_get_length (child_input), ==, 1);
  g_assert_cmpstr (user_text (child_input, 0), ==, "check this");
  g_assert_cmpstr (agents_model_request_get_system_instructions (
                     agents_scripted_model_get_first_turn_args (child_model)),
                   ==, "Child instructions.");
  /* The sub-run has the caller's run config. */
  g_assert_cmpfloat (
    agents_model_settings_get_temperature (
      agents_model_request_get_model_settings (
        agents_scripted_model_get_first_turn_args (child_model))),
    ==, 0.25);
  assert_events (&rec, expected);
  recorder_clear (&rec);
}

static void
test_local_shell_call (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  AgentsLocalShellTool *tool;
  AgentsRunItem *output;

  tool = agents_local_shell_tool_new (echo_shell, NULL, NULL);
  agents_agent_add_tool (agent, AGENTS_TOOL (tool));
  g_object_unref (tool);
  g_assert_true (json_parser_load_from_data (
    parser,
    "{\"id\": \"lsh_1\", \"type\": \"local_shell_call\", \"call_id\": "
    "\"call_shell\", \"status\": \"completed\", \"action\": {\"type\": "
    "\"exec\", \"command\": [\"echo\", \"hi\"], \"env\": {}}}",
    -1, NULL));
  agents_test_add_turn (
    model,
    json_object_ref (json_node_get_object (json_parser_get_root (parser))),
    NULL);
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  result = run_simple (agent, "hello", &error);
  g_assert_no_error (error);

  assert_final_text (result, "done");
  output = item_at (agents_run_result_get_new_items (result), 1);
  g_assert_cmpint (agents_run_item_get_kind (output), ==,
                   AGENTS_RUN_ITEM_KIND_TOOL_CALL_OUTPUT);
  g_assert_cmpstr (json_object_get_string_member (
                     agents_run_item_get_raw_item (output), "type"),
                   ==, "local_shell_call_output");
  g_assert_cmpstr (json_object_get_string_member (
                     agents_run_item_get_raw_item (output), "call_id"),
                   ==, "call_shell");
  g_assert_true (agents_run_item_get_agent (output) == agent);
  /* The executor received the action. */
  g_assert_true (
    g_str_has_prefix (json_object_get_string_member (
                        agents_run_item_get_raw_item (output), "output"),
                      "{\"type\":\"exec\""));
}

static void
test_structured_output (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  JsonNode *output;

  g_assert_true (json_parser_load_from_data (
    parser,
    "{\"type\": \"object\", \"properties\": {\"answer\": {\"type\": "
    "\"integer\"}}, \"required\": [\"answer\"], \"additionalProperties\": "
    "false}",
    -1, NULL));
  agents_agent_set_output_schema (
    agent, json_node_get_object (json_parser_get_root (parser)));
  agents_test_add_turn (
    model, agents_testing_final_output_message ("{\"answer\": 42}"), NULL);
  result = run_simple (agent, "hello", &error);
  g_assert_no_error (error);
  output = agents_run_result_get_final_output (result);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (output));
  g_assert_cmpint (
    json_object_get_int_member (json_node_get_object (output), "answer"), ==,
    42);
  g_clear_object (&result);

  agents_test_add_turn (
    model, agents_testing_final_output_message ("{\"answer\": \"no\"}"), NULL);
  result = run_simple (agent, "hello", &error);
  g_assert_null (result);
  g_assert_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_MODEL_BEHAVIOR);
  g_assert_true (
    g_str_has_prefix (error->message, "Invalid JSON when parsing"));
  g_clear_error (&error);

  agents_test_add_turn (model, agents_testing_final_output_message ("not json"),
                        NULL);
  result = run_simple (agent, "hello", &error);
  g_assert_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_MODEL_BEHAVIOR);
  g_clear_error (&error);

  /* Hostile output nested 100,000 levels deep is refused, not parsed. */
  {
    g_autofree char *deep = g_strnfill (100000, '[');

    agents_test_add_turn (model, agents_testing_final_output_message (deep),
                          NULL);
    result = run_simple (agent, "hello", &error);
    g_assert_null (result);
    g_assert_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_MODEL_BEHAVIOR);
  }
}

static void
test_tool_use_behavior_stop_on_first_tool (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsTool) tool =
    agents_testing_function_tool ("foo", "tool says");
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;

  agents_agent_add_tool (agent, tool);
  agents_agent_set_tool_use_behavior (
    agent, AGENTS_TOOL_USE_BEHAVIOR_STOP_ON_FIRST_TOOL);
  agents_test_add_turn (
    model, agents_testing_function_tool_call ("foo", "{}", "c1"), NULL);
  agents_test_add_turn (model, agents_testing_final_output_message ("never"),
                        NULL);
  result = run_simple (agent, "hello", &error);
  g_assert_no_error (error);
  assert_final_text (result, "tool says");
  g_assert_cmpuint (agents_scripted_model_get_n_turn_outputs (model), ==, 1);
}

static void
test_tool_choice_reset (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsTool) tool = agents_testing_function_tool ("foo", "ok");
  g_autoptr (AgentsModelSettings) settings = agents_model_settings_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;

  agents_model_settings_set_tool_choice (settings, "required");
  agents_agent_set_model_settings (agent, settings);
  agents_agent_add_tool (agent, tool);
  agents_test_add_turn (
    model, agents_testing_function_tool_call ("foo", "{}", "c1"), NULL);
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  result = run_simple (agent, "hello", &error);
  g_assert_no_error (error);

  assert_final_text (result, "done");
  g_assert_cmpstr (agents_model_settings_get_tool_choice (
                     agents_model_request_get_model_settings (
                       agents_scripted_model_get_first_turn_args (model))),
                   ==, "required");
  g_assert_null (agents_model_settings_get_tool_choice (
    agents_model_request_get_model_settings (
      agents_scripted_model_get_last_turn_args (model))));
}

static void
test_tool_choice_kept_without_reset (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsTool) tool = agents_testing_function_tool ("foo", "ok");
  g_autoptr (AgentsModelSettings) settings = agents_model_settings_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;

  agents_model_settings_set_tool_choice (settings, "required");
  agents_agent_set_model_settings (agent, settings);
  agents_agent_set_reset_tool_choice (agent, FALSE);
  agents_agent_add_tool (agent, tool);
  agents_test_add_turn (
    model, agents_testing_function_tool_call ("foo", "{}", "c1"), NULL);
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  result = run_simple (agent, "hello", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (agents_model_settings_get_tool_choice (
                     agents_model_request_get_model_settings (
                       agents_scripted_model_get_last_turn_args (model))),
                   ==, "required");
}

static void
test_run_config_model_settings_win (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsScriptedModel) config_model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsModelSettings) agent_settings = agents_model_settings_new ();
  g_autoptr (AgentsModelSettings) run_settings = agents_model_settings_new ();
  g_autoptr (AgentsRunConfig) config = agents_run_config_new ();
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  AgentsModelSettings *seen;

  agents_model_settings_set_temperature (agent_settings, 0.1);
  agents_model_settings_set_top_p (agent_settings, 0.5);
  agents_model_settings_set_temperature (run_settings, 0.9);
  agents_agent_set_model_settings (agent, agent_settings);
  agents_run_config_set_model_settings (config, run_settings);
  agents_run_config_set_model (config, AGENTS_MODEL (config_model));
  agents_test_add_turn (config_model,
                        agents_testing_final_output_message ("done"), NULL);
  result = run_agent (runner, agent, "hello", config, NULL, &error);
  g_assert_no_error (error);

  g_assert_null (agents_scripted_model_get_first_turn_args (model));
  seen = agents_model_request_get_model_settings (
    agents_scripted_model_get_first_turn_args (config_model));
  g_assert_cmpfloat (agents_model_settings_get_temperature (seen), ==, 0.9);
  g_assert_cmpfloat (agents_model_settings_get_top_p (seen), ==, 0.5);
}

static void
test_no_model (void)
{
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", NULL);
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;

  result = run_simple (agent, "hello", &error);
  g_assert_null (result);
  g_assert_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_USER_ERROR);
}

static void
test_model_error (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (GError) model_error =
    g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED, "down");
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;

  agents_scripted_model_set_next_error (model, model_error);
  result = run_simple (agent, "hello", &error);
  g_assert_null (result);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED);
}

/* ---- Guardrails -------------------------------------------------------- */

static void
check_input_guardrail (gboolean in_parallel, gboolean trip)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) seen = g_ptr_array_new ();
  GuardrailSpec spec = { trip, seen, 0 };
  g_autoptr (AgentsInputGuardrail) guardrail =
    agents_input_guardrail_new ("check", input_guardrail_func, &spec, NULL);

  agents_input_guardrail_set_run_in_parallel (guardrail, in_parallel);
  agents_agent_add_input_guardrail (agent, guardrail);
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  result = run_simple (agent, "hello", &error);

  g_assert_cmpuint (spec.calls, ==, 1);
  g_assert_true (seen->pdata[0] == agent);
  if (!trip)
    {
      g_assert_no_error (error);
      assert_final_text (result, "done");
      return;
    }
  g_assert_null (result);
  g_assert_error (error, AGENTS_RUN_ERROR,
                  AGENTS_RUN_ERROR_INPUT_GUARDRAIL_TRIPWIRE);
  g_assert_cmpstr (error->message, ==,
                   "Guardrail InputGuardrail triggered tripwire");
  {
    g_autoptr (GVariant) context = agents_run_error_get_context (error);
    const char *name = NULL;

    g_assert_true (g_variant_lookup (context, "guardrail", "&s", &name));
    g_assert_cmpstr (name, ==, "check");
  }
  /* A blocking guardrail that trips keeps the model from being called. */
  if (in_parallel)
    g_assert_nonnull (agents_scripted_model_get_first_turn_args (model));
  else
    g_assert_null (agents_scripted_model_get_first_turn_args (model));
}

static void
test_input_guardrail_blocking_trip (void)
{
  check_input_guardrail (FALSE, TRUE);
}

static void
test_input_guardrail_parallel_trip (void)
{
  check_input_guardrail (TRUE, TRUE);
}

static void
test_input_guardrail_blocking_pass (void)
{
  check_input_guardrail (FALSE, FALSE);
}

static void
test_input_guardrail_parallel_pass (void)
{
  check_input_guardrail (TRUE, FALSE);
}

static void
test_output_guardrail (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) seen = g_ptr_array_new ();
  GuardrailSpec pass = { FALSE, seen, 0 };
  GuardrailSpec trip = { TRUE, seen, 0 };
  g_autoptr (AgentsOutputGuardrail) passing =
    agents_output_guardrail_new ("pass", output_guardrail_func, &pass, NULL);
  g_autoptr (AgentsOutputGuardrail) tripping =
    agents_output_guardrail_new ("trip", output_guardrail_func, &trip, NULL);

  agents_agent_add_output_guardrail (agent, passing);
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  result = run_simple (agent, "hello", &error);
  g_assert_no_error (error);
  assert_final_text (result, "done");
  g_assert_cmpuint (pass.calls, ==, 1);
  g_assert_true (seen->pdata[0] == agent);
  g_clear_object (&result);

  agents_agent_add_output_guardrail (agent, tripping);
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  result = run_simple (agent, "hello", &error);
  g_assert_null (result);
  g_assert_error (error, AGENTS_RUN_ERROR,
                  AGENTS_RUN_ERROR_OUTPUT_GUARDRAIL_TRIPWIRE);
  g_assert_cmpstr (error->message, ==,
                   "Guardrail OutputGuardrail triggered tripwire");
  g_assert_cmpuint (trip.calls, ==, 1);
}

/* ---- Hooks ------------------------------------------------------------- */

static void
test_hooks_order (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsTool) tool = agents_testing_function_tool ("foo", "ok");
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  Recorder rec;
  const char *expected[] = {
    "run:agent-start test",
    "agent:start test",
    "run:llm-start test",
    "agent:llm-start test",
    "run:llm-end test",
    "agent:llm-end test",
    "run:tool-start test",
    "agent:tool-start test",
    "run:tool-end test",
    "agent:tool-end test",
    "run:llm-start test",
    "agent:llm-start test",
    "run:llm-end test",
    "agent:llm-end test",
    "run:agent-end test",
    "agent:end test",
    NULL,
  };

  recorder_init (&rec);
  connect_run_hooks (runner, &rec);
  connect_agent_hooks (agent, &rec);
  agents_agent_add_tool (agent, tool);
  agents_test_add_turn (
    model, agents_testing_function_tool_call ("foo", "{}", "c1"), NULL);
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  result = run_agent (runner, agent, "hello", NULL, NULL, &error);
  g_assert_no_error (error);
  assert_events (&rec, expected);
  for (guint i = 0; i < rec.agents->len; i++)
    g_assert_true (rec.agents->pdata[i] == agent);
  recorder_clear (&rec);
}

/* ---- Tool approvals ---------------------------------------------------- */

static void
test_tool_approval_resume (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsTool) tool =
    agents_testing_function_tool ("approval_tool", "approved");
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) first = NULL;
  g_autoptr (AgentsRunResult) resumed = NULL;
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (GError) error = NULL;
  AgentsRunItem *approval;
  GListModel *items;
  guint n;

  agents_tool_set_needs_approval (tool, TRUE);
  agents_agent_add_tool (agent, tool);
  agents_test_add_turn (
    model,
    agents_testing_function_tool_call ("approval_tool", "{}", "call_resume"),
    NULL);
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  first = run_agent (runner, agent, "hello", NULL, NULL, &error);
  g_assert_no_error (error);

  g_assert_null (agents_run_result_get_final_output (first));
  g_assert_cmpuint (
    g_list_model_get_n_items (agents_run_result_get_interruptions (first)), ==,
    1);
  approval = item_at (agents_run_result_get_interruptions (first), 0);
  g_assert_cmpint (agents_run_item_get_kind (approval), ==,
                   AGENTS_RUN_ITEM_KIND_TOOL_APPROVAL);
  g_assert_cmpstr (agents_run_item_get_tool_name (approval), ==,
                   "approval_tool");
  g_assert_true (agents_run_item_get_agent (approval) == agent);
  /* The approval request is no model input. */
  {
    g_autoptr (JsonArray) list = agents_run_result_to_input_list (first);

    g_assert_cmpuint (json_array_get_length (list), ==, 2);
  }

  state = agents_run_result_to_state (first);
  agents_run_state_approve (state, approval, FALSE);
  resumed = resume (runner, agent, state, NULL, &error);
  g_assert_no_error (error);
  assert_final_text (resumed, "done");
  items = agents_run_result_get_new_items (resumed);
  n = g_list_model_get_n_items (items);
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpstr (tool_output_text (resumed, 1), ==, "approved");
  g_assert_true (agents_run_item_get_agent (item_at (items, 1)) == agent);
  /* The second model call saw the call and its output. */
  g_assert_cmpuint (json_array_get_length (agents_model_request_get_input (
                      agents_scripted_model_get_last_turn_args (model))),
                    ==, 3);
}

static void
test_tool_rejection (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsTool) tool = agents_testing_function_tool ("danger", "ran");
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) first = NULL;
  g_autoptr (AgentsRunResult) resumed = NULL;
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (GError) error = NULL;

  agents_tool_set_needs_approval (tool, TRUE);
  agents_agent_add_tool (agent, tool);
  agents_test_add_turn (
    model, agents_testing_function_tool_call ("danger", "{}", "c1"), NULL);
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  first = run_agent (runner, agent, "hello", NULL, NULL, &error);
  g_assert_no_error (error);
  state = agents_run_result_to_state (first);
  agents_run_state_reject (
    state, item_at (agents_run_state_get_interruptions (state), 0), FALSE);
  resumed = resume (runner, agent, state, NULL, &error);
  g_assert_no_error (error);
  assert_final_text (resumed, "done");
  g_assert_cmpstr (tool_output_text (resumed, 1), ==,
                   "Tool execution was not approved.");
}

static void
test_tool_approval_undecided_interrupts_again (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsTool) tool = agents_testing_function_tool ("danger", "ran");
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) first = NULL;
  g_autoptr (AgentsRunResult) again = NULL;
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (GError) error = NULL;

  agents_tool_set_needs_approval (tool, TRUE);
  agents_agent_add_tool (agent, tool);
  agents_test_add_turn (
    model, agents_testing_function_tool_call ("danger", "{}", "c1"), NULL);
  first = run_agent (runner, agent, "hello", NULL, NULL, &error);
  g_assert_no_error (error);
  state = agents_run_result_to_state (first);
  again = resume (runner, agent, state, NULL, &error);
  g_assert_no_error (error);
  g_assert_null (agents_run_result_get_final_output (again));
  g_assert_cmpuint (
    g_list_model_get_n_items (agents_run_result_get_interruptions (again)), ==,
    1);
  g_assert_cmpuint (agents_scripted_model_get_n_turn_outputs (model), ==, 0);
}

/* ---- Cancellation ------------------------------------------------------ */

static gboolean
cancel_later (gpointer user_data)
{
  g_cancellable_cancel (user_data);
  return G_SOURCE_REMOVE;
}

static void
test_cancel (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  gint64 started = 0, ended = 0;
  guint running = 0, max_running = 0;
  SlowTool spec = { 10000, &started, &ended, &running, &max_running, "late" };
  g_autoptr (AgentsTool) tool = slow_tool_new ("slow", &spec);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (JsonNode) input = agents_test_str_node ("hello");
  g_autoptr (AgentsRunResult) run_result = NULL;
  g_autoptr (GError) error = NULL;
  gint64 begin = g_get_monotonic_time ();

  agents_agent_add_tool (agent, tool);
  agents_test_add_turn (
    model, agents_testing_function_tool_call ("slow", "{}", "c1"), NULL);
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  g_timeout_add (50, cancel_later, cancellable);
  AGENTS_TEST_AWAIT (result, agents_runner_run_async (
                               runner, agent, input, NULL, NULL, NULL,
                               cancellable, agents_test_async_cb, &result));
  run_result = agents_runner_run_finish (runner, result, &error);
  g_assert_null (run_result);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (g_get_monotonic_time () - begin, <, 2 * G_USEC_PER_SEC);
  g_assert_cmpuint (running, ==, 0);
}

/* ---- Sessions ---------------------------------------------------------- */

static void
check_session_across_runs (AgentsConversationSession *session)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) first = NULL;
  g_autoptr (AgentsRunResult) second = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (JsonArray) saved = NULL;
  JsonArray *input;

  agents_test_add_turn (
    model, agents_testing_final_output_message ("first answer"), NULL);
  agents_test_add_turn (
    model, agents_testing_final_output_message ("second answer"), NULL);
  first = run_agent (runner, agent, "hi", NULL, session, &error);
  g_assert_no_error (error);
  second = run_agent (runner, agent, "again", NULL, session, &error);
  g_assert_no_error (error);
  assert_final_text (second, "second answer");

  input = agents_model_request_get_input (
    agents_scripted_model_get_last_turn_args (model));
  g_assert_cmpuint (json_array_get_length (input), ==, 3);
  g_assert_cmpstr (user_text (input, 0), ==, "hi");
  g_assert_cmpstr (json_object_get_string_member (
                     json_array_get_object_element (input, 1), "type"),
                   ==, "message");
  g_assert_cmpstr (user_text (input, 2), ==, "again");

  AGENTS_TEST_AWAIT (result,
                     agents_conversation_session_get_items_async (
                       session, 0, NULL, agents_test_async_cb, &result));
  saved =
    agents_conversation_session_get_items_finish (session, result, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (saved), ==, 4);
  g_assert_cmpstr (user_text (saved, 0), ==, "hi");
  g_assert_cmpstr (user_text (saved, 2), ==, "again");
}

static void
test_memory_session (void)
{
  g_autoptr (AgentsMemorySession) session = agents_memory_session_new ("s1");

  check_session_across_runs (AGENTS_CONVERSATION_SESSION (session));
}

static void
test_sqlite_session (void)
{
  g_autofree char *dir = agents_test_make_tmp_dir ("agents-runner-sqlite-");
  g_autofree char *path = g_build_filename (dir, "history.db", NULL);
  AgentsSqliteSession *session = agents_sqlite_session_new ("s1", path);

  check_session_across_runs (AGENTS_CONVERSATION_SESSION (session));
  g_object_unref (session);
  agents_test_rm_rf (dir);
}

static JsonObject *
user_item (const char *text)
{
  JsonObject *item = json_object_new ();

  json_object_set_string_member (item, "role", "user");
  json_object_set_string_member (item, "content", text);
  return item;
}

/* The reference's test_sandbox_run_persists_only_new_session_input_items,
 * with a preparer standing in for the sandbox. */
static void
test_sandbox_run_persists_only_new_session_input_items (void)
{
  g_autoptr (AgentsMemorySession) session = agents_memory_session_new ("s");
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("sandbox", model);
  g_autoptr (TestPreparer) preparer = g_object_new (TEST_TYPE_PREPARER, NULL);
  g_autoptr (AgentsRunConfig) config = agents_run_config_new ();
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (JsonArray) history = json_array_new ();
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (AgentsRunResult) run_result = NULL;
  g_autoptr (JsonArray) saved = NULL;
  g_autoptr (GPtrArray) users = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;

  json_array_add_object_element (history, user_item ("old"));
  AGENTS_TEST_AWAIT (result, agents_conversation_session_add_items_async (
                               AGENTS_CONVERSATION_SESSION (session), history,
                               NULL, agents_test_async_cb, &result));
  g_assert_true (agents_conversation_session_add_items_finish (
    AGENTS_CONVERSATION_SESSION (session), result, &error));
  agents_agent_set_instructions (agent, "Base instructions.");
  agents_run_config_set_sandbox (config, G_OBJECT (preparer));
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);

  run_result = run_agent (runner, agent, "new", config,
                          AGENTS_CONVERSATION_SESSION (session), &error);
  g_assert_no_error (error);
  assert_final_text (run_result, "done");

  AGENTS_TEST_AWAIT (result, agents_conversation_session_get_items_async (
                               AGENTS_CONVERSATION_SESSION (session), 0, NULL,
                               agents_test_async_cb, &result));
  saved = agents_conversation_session_get_items_finish (
    AGENTS_CONVERSATION_SESSION (session), result, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < json_array_get_length (saved); i++)
    {
      JsonObject *item = json_array_get_object_element (saved, i);

      if (g_strcmp0 (
            json_object_get_string_member_with_default (item, "role", ""),
            "user") == 0)
        g_ptr_array_add (users, item);
    }
  g_assert_cmpuint (users->len, ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr (JsonNode) node =
        json_node_init_object (json_node_alloc (), users->pdata[i]);
      g_autoptr (JsonObject) expected = user_item (i == 0 ? "old" : "new");
      g_autoptr (JsonNode) expected_node =
        json_node_init_object (json_node_alloc (), expected);

      g_assert_true (json_node_equal (node, expected_node));
    }
}

/* ---- The preparation seam ---------------------------------------------- */

static JsonObject *
prompt_func (AgentsRunContext *ctx, AgentsAgent *agent, gpointer user_data)
{
  GPtrArray *seen = user_data;
  JsonObject *prompt = json_object_new ();

  g_ptr_array_add (seen, agent);
  json_object_set_string_member (prompt, "id", "prompt_test");
  return prompt;
}

static AgentsModelInputData *
capture_model_input (AgentsCallModelData *data, gpointer user_data)
{
  GPtrArray *seen = user_data;

  g_ptr_array_add (seen, agents_call_model_data_get_agent (data));
  return agents_model_input_data_ref (
    agents_call_model_data_get_model_data (data));
}

/* The reference's test_runner_keeps_public_agent_identity_for_hooks_and_
 * streaming (its non-streamed half; test-streaming has the other), with
 * every other seam that must see the public agent. */
static void
test_runner_keeps_public_agent_identity_for_hooks_and_streaming (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("sandbox", model);
  g_autoptr (AgentsTool) tool = agents_testing_function_tool ("tool1", "ok");
  g_autoptr (TestPreparer) preparer = g_object_new (TEST_TYPE_PREPARER, NULL);
  g_autoptr (AgentsRunConfig) config = agents_run_config_new ();
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) seen = g_ptr_array_new ();
  g_autoptr (GPtrArray) prompts = g_ptr_array_new ();
  g_autoptr (GPtrArray) filtered = g_ptr_array_new ();
  GuardrailSpec in_spec = { FALSE, seen, 0 };
  GuardrailSpec out_spec = { FALSE, seen, 0 };
  g_autoptr (AgentsInputGuardrail) in_guard =
    agents_input_guardrail_new ("in", input_guardrail_func, &in_spec, NULL);
  g_autoptr (AgentsOutputGuardrail) out_guard =
    agents_output_guardrail_new ("out", output_guardrail_func, &out_spec, NULL);
  GListModel *items;
  Recorder rec;
  AgentsAgent *clone;

  recorder_init (&rec);
  connect_run_hooks (runner, &rec);
  connect_agent_hooks (agent, &rec);
  agents_agent_set_instructions (agent, "Base instructions.");
  agents_agent_add_tool (agent, tool);
  agents_agent_add_input_guardrail (agent, in_guard);
  agents_agent_add_output_guardrail (agent, out_guard);
  agents_agent_set_prompt_func (agent, prompt_func, prompts, NULL);
  agents_run_config_set_sandbox (config, G_OBJECT (preparer));
  agents_run_config_set_call_model_input_filter (config, capture_model_input,
                                                 filtered, NULL);
  agents_test_add_turn (model, agents_testing_reasoning_item ("r1", "thinking"),
                        agents_testing_function_tool_call ("tool1", "{}", "c1"),
                        NULL);
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  result = run_agent (runner, agent, "hello", config, NULL, &error);
  g_assert_no_error (error);
  assert_final_text (result, "done");

  /* The model ran the execution clone... */
  g_assert_cmpuint (preparer->executed->len, ==, 1);
  clone = preparer->executed->pdata[0];
  g_assert_true (clone != agent);
  g_assert_cmpstr (agents_model_request_get_system_instructions (
                     agents_scripted_model_get_first_turn_args (model)),
                   ==, "Execution instructions.");
  /* ...but everything else saw the public agent. */
  g_assert_cmpuint (preparer->prepare_calls, ==, 2);
  for (guint i = 0; i < preparer->seen_public->len; i++)
    g_assert_true (preparer->seen_public->pdata[i] == agent);
  g_assert_true (agents_run_result_get_last_agent (result) == agent);
  g_assert_cmpuint (rec.events->len, >, 0);
  for (guint i = 0; i < rec.agents->len; i++)
    g_assert_true (rec.agents->pdata[i] == agent);
  items = agents_run_result_get_new_items (result);
  g_assert_cmpuint (g_list_model_get_n_items (items), ==, 4);
  for (guint i = 0; i < g_list_model_get_n_items (items); i++)
    g_assert_true (agents_run_item_get_agent (item_at (items, i)) == agent);
  g_assert_cmpuint (seen->len, ==, 2);
  g_assert_true (seen->pdata[0] == agent && seen->pdata[1] == agent);
  g_assert_cmpuint (prompts->len, ==, 2);
  g_assert_true (prompts->pdata[0] == agent && prompts->pdata[1] == agent);
  g_assert_cmpuint (filtered->len, ==, 2);
  g_assert_true (filtered->pdata[0] == agent && filtered->pdata[1] == agent);

  /* Cleanup ran once and its payload is the state's sandbox member. */
  g_assert_cmpuint (preparer->cleanup_calls, ==, 1);
  state = agents_run_result_to_state (result);
  g_assert_nonnull (agents_run_state_get_sandbox (state));
  g_assert_cmpstr (json_object_get_string_member (
                     agents_run_state_get_sandbox (state), "marker"),
                   ==, "persisted");
  recorder_clear (&rec);
}

static char *
dynamic_instructions (AgentsRunContext *ctx,
                      AgentsAgent *agent,
                      gpointer user_data)
{
  GPtrArray *seen = user_data;
  AgentsAgent *public_agent = seen->pdata[0];

  g_ptr_array_add (seen, agent);
  return g_strdup (agent == public_agent ? "Saw public agent."
                                         : "Saw execution clone.");
}

/* The reference's test_runner_uses_public_sandbox_agent_for_dynamic_
 * instructions: a prepared agent composing its prompt through the public
 * agent's. */
static void
test_runner_uses_public_sandbox_agent_for_dynamic_instructions (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("sandbox", model);
  g_autoptr (TestPreparer) preparer = g_object_new (TEST_TYPE_PREPARER, NULL);
  g_autoptr (AgentsRunConfig) config = agents_run_config_new ();
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) seen = g_ptr_array_new ();

  g_ptr_array_add (seen, agent);
  preparer->compose_prompt = TRUE;
  agents_agent_set_instructions_func (agent, dynamic_instructions, seen, NULL);
  agents_run_config_set_sandbox (config, G_OBJECT (preparer));
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  result = run_agent (runner, agent, "hello", config, NULL, &error);
  g_assert_no_error (error);

  assert_final_text (result, "done");
  g_assert_cmpuint (seen->len, ==, 2);
  g_assert_true (seen->pdata[1] == agent);
  g_assert_cmpstr (agents_model_request_get_system_instructions (
                     agents_scripted_model_get_first_turn_args (model)),
                   ==, "Sandbox preamble.\n\nSaw public agent.");
  g_assert_true (TEST_IS_EXEC_AGENT (preparer->executed->pdata[0]));
}

static void
test_guardrail_trip_blocks_preparation (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("sandbox", model);
  g_autoptr (TestPreparer) preparer = g_object_new (TEST_TYPE_PREPARER, NULL);
  g_autoptr (AgentsRunConfig) config = agents_run_config_new ();
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  GuardrailSpec spec = { TRUE, NULL, 0 };
  g_autoptr (AgentsInputGuardrail) guardrail =
    agents_input_guardrail_new ("trip", input_guardrail_func, &spec, NULL);

  agents_input_guardrail_set_run_in_parallel (guardrail, FALSE);
  agents_agent_add_input_guardrail (agent, guardrail);
  agents_run_config_set_sandbox (config, G_OBJECT (preparer));
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  result = run_agent (runner, agent, "hello", config, NULL, &error);
  g_assert_error (error, AGENTS_RUN_ERROR,
                  AGENTS_RUN_ERROR_INPUT_GUARDRAIL_TRIPWIRE);
  g_assert_cmpuint (preparer->prepare_calls, ==, 0);
  g_assert_cmpuint (preparer->cleanup_calls, ==, 1);
}

static void
test_sandbox_must_prepare (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsRunConfig) config = agents_run_config_new ();
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (GObject) not_a_preparer = g_object_new (G_TYPE_OBJECT, NULL);
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;

  agents_run_config_set_sandbox (config, not_a_preparer);
  result = run_agent (runner, agent, "hello", config, NULL, &error);
  g_assert_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_USER_ERROR);
}

/* ---- Tracing ----------------------------------------------------------- */

static JsonObject *
child_at (JsonObject *node, guint i)
{
  return json_array_get_object_element (
    json_object_get_array_member (node, "children"), i);
}

static guint
n_children (JsonObject *node)
{
  if (!json_object_has_member (node, "children"))
    return 0;
  return json_array_get_length (
    json_object_get_array_member (node, "children"));
}

static void
test_tracing_tree (void)
{
  g_autoptr (AgentsTestTracingProcessor) processor =
    agents_test_tracing_processor_new ();
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsTool) tool = agents_testing_function_tool ("foo", "result");
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonArray) traces = NULL;
  JsonObject *trace, *agent_span, *data, *function;
  GuardrailSpec spec = { FALSE, NULL, 0 };
  g_autoptr (AgentsInputGuardrail) guardrail =
    agents_input_guardrail_new ("check", input_guardrail_func, &spec, NULL);

  agents_tracing_add_processor (AGENTS_TRACING_PROCESSOR (processor));
  agents_agent_add_tool (agent, tool);
  agents_input_guardrail_set_run_in_parallel (guardrail, FALSE);
  agents_agent_add_input_guardrail (agent, guardrail);
  agents_test_add_turn (
    model, agents_testing_function_tool_call ("foo", "{}", "c1"), NULL);
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  result = run_simple (agent, "hello", &error);
  g_assert_no_error (error);
  agents_tracing_remove_processor (AGENTS_TRACING_PROCESSOR (processor));

  traces = agents_test_tracing_processor_fetch_normalized_spans (processor);
  g_assert_cmpuint (json_array_get_length (traces), ==, 1);
  trace = json_array_get_object_element (traces, 0);
  g_assert_cmpstr (json_object_get_string_member (trace, "workflow_name"), ==,
                   "Agent workflow");
  g_assert_cmpuint (n_children (trace), ==, 1);
  agent_span = child_at (trace, 0);
  g_assert_cmpstr (json_object_get_string_member (agent_span, "type"), ==,
                   "agent");
  data = json_object_get_object_member (agent_span, "data");
  g_assert_cmpstr (json_object_get_string_member (data, "name"), ==, "test");
  g_assert_cmpstr (json_object_get_string_member (data, "output_type"), ==,
                   "str");
  g_assert_cmpuint (
    json_array_get_length (json_object_get_array_member (data, "tools")), ==,
    1);
  /* guardrail, generation, function, generation */
  g_assert_cmpuint (n_children (agent_span), ==, 4);
  g_assert_cmpstr (
    json_object_get_string_member (child_at (agent_span, 0), "type"), ==,
    "guardrail");
  g_assert_cmpstr (
    json_object_get_string_member (child_at (agent_span, 1), "type"), ==,
    "generation");
  function = child_at (agent_span, 2);
  g_assert_cmpstr (json_object_get_string_member (function, "type"), ==,
                   "function");
  data = json_object_get_object_member (function, "data");
  g_assert_cmpstr (json_object_get_string_member (data, "name"), ==, "foo");
  g_assert_cmpstr (json_object_get_string_member (data, "input"), ==, "{}");
  g_assert_cmpstr (json_object_get_string_member (data, "output"), ==,
                   "result");
  g_assert_cmpstr (
    json_object_get_string_member (child_at (agent_span, 3), "type"), ==,
    "generation");
}

/* The generation span's data, as agents_span_get_data() gives it after a
 * two-turn run, with or without a processor receiving the spans. */
static char *
last_generation_data (gboolean with_processor)
{
  g_autoptr (AgentsTestTracingProcessor) processor =
    agents_test_tracing_processor_new ();
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsTool) tool = agents_testing_function_tool ("foo", "result");
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) node = NULL;
  AgentsModelRequest *request;
  AgentsSpan *span;

  if (with_processor)
    agents_tracing_add_processor (AGENTS_TRACING_PROCESSOR (processor));
  agents_agent_add_tool (agent, tool);
  agents_test_add_turn (
    model, agents_testing_function_tool_call ("foo", "{}", "c1"), NULL);
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  result = run_simple (agent, "hello", &error);
  g_assert_no_error (error);
  if (with_processor)
    agents_tracing_remove_processor (AGENTS_TRACING_PROCESSOR (processor));

  request = agents_scripted_model_get_last_turn_args (model);
  span = agents_model_request_get_span (request);
  g_assert_true (agents_span_is_recording (span));
  g_assert_cmpint (agents_span_get_kind (span), ==,
                   AGENTS_SPAN_KIND_GENERATION);
  node =
    json_node_init_object (json_node_alloc (), agents_span_get_data (span));
  return json_to_string (node, FALSE);
}

/* Without a processor the runner's spans build their data only when asked:
 * what agents_span_get_data() gives is what it gives with one. */
static void
test_tracing_data_without_processor (void)
{
  g_autofree char *without = last_generation_data (FALSE);
  g_autofree char *with = last_generation_data (TRUE);
  g_autoptr (JsonNode) parsed = json_from_string (without, NULL);
  JsonObject *data = json_node_get_object (parsed);
  g_autoptr (GList) members = NULL;
  const char *expected[] = { "type",         "input", "output", "model",
                             "model_config", "usage", NULL };
  guint i = 0;

  g_assert_cmpstr (without, ==, with);
  members = json_object_get_members (data);
  for (GList *l = members; l != NULL; l = l->next)
    g_assert_cmpstr (l->data, ==, expected[i++]);
  g_assert_null (expected[i]);
  g_assert_cmpstr (json_object_get_string_member (data, "type"), ==,
                   "generation");
  g_assert_cmpuint (
    json_array_get_length (json_object_get_array_member (data, "input")), ==,
    3);
  g_assert_cmpuint (
    json_array_get_length (json_object_get_array_member (data, "output")), ==,
    1);
}

static void
test_tracing_handoff (void)
{
  g_autoptr (AgentsTestTracingProcessor) processor =
    agents_test_tracing_processor_new ();
  g_autoptr (AgentsScriptedModel) triage_model = agents_scripted_model_new ();
  g_autoptr (AgentsScriptedModel) worker_model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) triage =
    agents_test_new_agent ("triage", triage_model);
  g_autoptr (AgentsAgent) worker =
    agents_test_new_agent ("worker", worker_model);
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonArray) traces = NULL;
  JsonObject *trace, *first, *handoff, *data;

  agents_tracing_add_processor (AGENTS_TRACING_PROCESSOR (processor));
  agents_agent_add_handoff (triage, G_OBJECT (worker));
  agents_test_add_turn (triage_model, agents_testing_handoff_tool_call (worker),
                        NULL);
  agents_test_add_turn (worker_model,
                        agents_testing_final_output_message ("done"), NULL);
  result = run_simple (triage, "route", &error);
  g_assert_no_error (error);
  agents_tracing_remove_processor (AGENTS_TRACING_PROCESSOR (processor));

  traces = agents_test_tracing_processor_fetch_normalized_spans (processor);
  g_assert_cmpuint (json_array_get_length (traces), ==, 1);
  trace = json_array_get_object_element (traces, 0);
  g_assert_cmpuint (n_children (trace), ==, 2);
  first = child_at (trace, 0);
  data = json_object_get_object_member (first, "data");
  g_assert_cmpstr (json_object_get_string_member (data, "name"), ==, "triage");
  g_assert_cmpstr (json_array_get_string_element (
                     json_object_get_array_member (data, "handoffs"), 0),
                   ==, "worker");
  g_assert_cmpuint (n_children (first), ==, 2);
  handoff = child_at (first, 1);
  g_assert_cmpstr (json_object_get_string_member (handoff, "type"), ==,
                   "handoff");
  data = json_object_get_object_member (handoff, "data");
  g_assert_cmpstr (json_object_get_string_member (data, "from_agent"), ==,
                   "triage");
  g_assert_cmpstr (json_object_get_string_member (data, "to_agent"), ==,
                   "worker");
  data = json_object_get_object_member (child_at (trace, 1), "data");
  g_assert_cmpstr (json_object_get_string_member (data, "name"), ==, "worker");
}

static void
test_tracing_disabled (void)
{
  g_autoptr (AgentsTestTracingProcessor) processor =
    agents_test_tracing_processor_new ();
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_test_new_agent ("test", model);
  g_autoptr (AgentsRunConfig) config = agents_run_config_new ();
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonArray) traces = NULL;

  agents_tracing_add_processor (AGENTS_TRACING_PROCESSOR (processor));
  agents_run_config_set_tracing_disabled (config, TRUE);
  agents_test_add_turn (model, agents_testing_final_output_message ("done"),
                        NULL);
  result = run_agent (runner, agent, "hello", config, NULL, &error);
  g_assert_no_error (error);
  agents_tracing_remove_processor (AGENTS_TRACING_PROCESSOR (processor));
  traces = agents_test_tracing_processor_fetch_normalized_spans (processor);
  g_assert_cmpuint (json_array_get_length (traces), ==, 0);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/run/runner/simple-final-output", test_simple_final_output);
  g_test_add_func ("/run/runner/to-input-list", test_to_input_list);
  g_test_add_func ("/run/runner/tool-call-then-output",
                   test_tool_call_then_output);
  g_test_add_func ("/run/runner/object-list", test_object_list);
  g_test_add_func ("/run/runner/items-shared-with-model-input",
                   test_items_shared_with_model_input);
  g_test_add_func ("/run/runner/model-input-across-turns",
                   test_model_input_across_turns);
  g_test_add_func ("/run/runner/max-turns", test_max_turns);
  g_test_add_func ("/run/runner/unknown-tool", test_unknown_tool);
  g_test_add_func ("/run/runner/tool-errors-become-output",
                   test_tool_errors_become_output);
  g_test_add_func ("/run/runner/tool-arguments-checked-against-schema",
                   test_tool_arguments_checked_against_schema);
  g_test_add_func ("/run/runner/parallel-tool-calls", test_parallel_tool_calls);
  g_test_add_func ("/run/runner/sequential-tool-calls",
                   test_sequential_tool_calls);
  g_test_add_func ("/run/runner/handoff", test_handoff);
  g_test_add_func ("/run/runner/handoff-input-filter",
                   test_handoff_input_filter);
  g_test_add_func ("/run/runner/agent-as-tool", test_agent_as_tool);
  g_test_add_func ("/run/runner/local-shell-call", test_local_shell_call);
  g_test_add_func ("/run/runner/structured-output", test_structured_output);
  g_test_add_func ("/run/runner/tool-use-behavior-stop-on-first-tool",
                   test_tool_use_behavior_stop_on_first_tool);
  g_test_add_func ("/run/runner/tool-choice-reset", test_tool_choice_reset);
  g_test_add_func ("/run/runner/tool-choice-kept-without-reset",
                   test_tool_choice_kept_without_reset);
  g_test_add_func ("/run/runner/run-config-model-settings-win",
                   test_run_config_model_settings_win);
  g_test_add_func ("/run/runner/no-model", test_no_model);
  g_test_add_func ("/run/runner/model-error", test_model_error);
  g_test_add_func ("/run/runner/input-guardrail-blocking-trip",
                   test_input_guardrail_blocking_trip);
  g_test_add_func ("/run/runner/input-guardrail-parallel-trip",
                   test_input_guardrail_parallel_trip);
  g_test_add_func ("/run/runner/input-guardrail-blocking-pass",
                   test_input_guardrail_blocking_pass);
  g_test_add_func ("/run/runner/input-guardrail-parallel-pass",
                   test_input_guardrail_parallel_pass);
  g_test_add_func ("/run/runner/output-guardrail", test_output_guardrail);
  g_test_add_func ("/run/runner/hooks-order", test_hooks_order);
  g_test_add_func ("/run/runner/tool-approval-resume",
                   test_tool_approval_resume);
  g_test_add_func ("/run/runner/tool-rejection", test_tool_rejection);
  g_test_add_func ("/run/runner/tool-approval-undecided-interrupts-again",
                   test_tool_approval_undecided_interrupts_again);
  g_test_add_func ("/run/runner/cancel", test_cancel);
  g_test_add_func ("/run/runner/memory-session", test_memory_session);
  g_test_add_func ("/run/runner/sqlite-session", test_sqlite_session);
  g_test_add_func (
    "/run/runner/sandbox_run_persists_only_new_session_input_items",
    test_sandbox_run_persists_only_new_session_input_items);
  g_test_add_func (
    "/run/runner/runner_keeps_public_agent_identity_for_hooks_and_streaming",
    test_runner_keeps_public_agent_identity_for_hooks_and_streaming);
  g_test_add_func (
    "/run/runner/runner_uses_public_sandbox_agent_for_dynamic_instructions",
    test_runner_uses_public_sandbox_agent_for_dynamic_instructions);
  g_test_add_func ("/run/runner/guardrail-trip-blocks-preparation",
                   test_guardrail_trip_blocks_preparation);
  g_test_add_func ("/run/runner/sandbox-must-prepare",
                   test_sandbox_must_prepare);
  g_test_add_func ("/run/runner/tracing-tree", test_tracing_tree);
  g_test_add_func ("/run/runner/tracing-data-without-processor",
                   test_tracing_data_without_processor);
  g_test_add_func ("/run/runner/tracing-handoff", test_tracing_handoff);
  g_test_add_func ("/run/runner/tracing-disabled", test_tracing_disabled);

  return g_test_run ();
}
