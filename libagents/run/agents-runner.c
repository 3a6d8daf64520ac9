/* agents-runner.c - the turn loop that runs agents
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-custom-tool.h"
#include "agents-json-private.h"
#include "agents-json-schema-private.h"
#include "agents-run-private.h"
#include "agents-runner-private.h"
#include "agents-runner.h"

/**
 * AgentsRunner:
 *
 * Runs agents: the reference SDK's `Runner`. A run calls the model of the
 * current agent turn after turn, executes the tools it calls, follows
 * its handoffs, and ends with a final output, on tool calls that wait for
 * approval (interruptions), or with an error.
 *
 * Run-level hooks are the runner's signals
 * (#AgentsRunner::agent-start, #AgentsRunner::llm-start, …), emitted for
 * every run of the runner; agent-level hooks are the agent's own signals.
 * Both always carry the agents the user built, even when the run
 * executes prepared copies of them (sandbox agents).
 *
 * One turn:
 *
 * 1. on the first turn, the input guardrails of the starting agent that
 *    do not run in parallel, before anything else;
 * 2. agent-start hooks when the current agent changed;
 * 3. the system prompt, the agent's tools then its handoffs, the model
 *    settings (run config's over agent's; the tool choice reset once the
 *    agent used tools, with #AgentsAgent:reset-tool-choice), the run
 *    config's call-model input filter;
 * 4. llm-start hooks, the model call (with the parallel input guardrails
 *    on the first turn), llm-end hooks;
 * 5. the items of the response; tool calls that need approval become
 *    interruptions, rejected ones get the output
 *    "Tool execution was not approved.", the others run in parallel;
 * 6. the first handoff switches the current agent, or a final output (a
 *    tool's under #AgentsAgent:tool-use-behavior, else the last message
 *    when no tool ran, parsed and validated with an output schema) ends
 *    the run after its output guardrails and agent-end hooks.
 */

struct _AgentsRunner
{
  GObject parent_instance;
};

G_DEFINE_FINAL_TYPE (AgentsRunner, agents_runner, G_TYPE_OBJECT)

guint agents_runner_signals[N_SIGNALS];

/* ---- Starting ---------------------------------------------------------- */

static void
blocking_guardrails_done (Run *run, GError *error)
{
  if (error != NULL)
    {
      run_fail (run, error);
      return;
    }
  turn_begin (run);
}

static void
input_ready (Run *run)
{
  agents_run_private_result_set_input (run->result, run->input);
  ensure_agent_span (run);
  run_guardrails (run, input_guardrails (run, FALSE), run->starting_agent,
                  run->input, FALSE, blocking_guardrails_done);
}

static void
history_loaded (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (Run) run = user_data;
  GError *error = NULL;
  g_autoptr (JsonArray) history = agents_conversation_session_get_items_finish (
    AGENTS_CONVERSATION_SESSION (source), result, &error);
  JsonArray *combined;

  if (history == NULL && error != NULL)
    {
      run_fail (run, error);
      return;
    }
  combined =
    history ? agents_run_private_json_array_copy (history) : json_array_new ();
  for (guint i = 0; i < json_array_get_length (run->new_input_items); i++)
    json_array_add_element (combined, json_node_copy (json_array_get_element (
                                        run->new_input_items, i)));
  g_clear_pointer (&run->input, json_node_unref);
  run->input = json_node_init_array (json_node_alloc (), combined);
  json_array_unref (combined);
  forget_model_input (run);
  input_ready (run);
}

static gboolean
setup_preparer (Run *run, GError **error)
{
  GObject *sandbox = agents_run_config_get_sandbox (run->config);

  if (sandbox == NULL)
    return TRUE;
  if (!AGENTS_IS_RUN_PREPARER (sandbox))
    {
      agents_run_error_set (error, AGENTS_RUN_ERROR_USER_ERROR, NULL,
                            _ ("The run config’s sandbox (a %s) cannot prepare "
                               "agents"),
                            G_OBJECT_TYPE_NAME (sandbox));
      return FALSE;
    }
  run->preparer = AGENTS_RUN_PREPARER (g_object_ref (sandbox));
  run->preparation = g_new0 (AgentsRunPreparation, 1);
  run->preparation->run = run;
  return TRUE;
}

static void
resume_begin (Run *run)
{
  AgentsRunState *state = run->resume_state;
  g_autoptr (GPtrArray) items =
    list_model_to_array (agents_run_state_get_generated_items (state));
  GListModel *responses = agents_run_state_get_model_responses (state);
  GListModel *interruptions = agents_run_state_get_interruptions (state);

  run->current_turn = agents_run_state_get_current_turn (state);
  run->max_turns = agents_run_state_get_max_turns (state);
  g_clear_pointer (&run->tracker, agents_tool_use_tracker_free);
  run->tracker = agents_tool_use_tracker_copy (
    agents_run_private_state_get_tool_use_tracker (state));
  for (guint i = 0; i < items->len; i++)
    {
      /* Decided approvals are replaced by their outputs. */
      if (agents_run_item_get_kind (items->pdata[i]) ==
          AGENTS_RUN_ITEM_KIND_TOOL_APPROVAL)
        continue;
      g_ptr_array_add (run->items, g_object_ref (items->pdata[i]));
      agents_run_private_result_append_item (run->result, items->pdata[i]);
    }
  for (guint i = 0; i < g_list_model_get_n_items (responses); i++)
    {
      g_autoptr (AgentsModelResponse) response =
        g_list_model_get_item (responses, i);

      agents_run_private_result_append_response (run->result, response);
    }
  agents_run_private_result_set_input (run->result, run->input);

  if (g_list_model_get_n_items (interruptions) == 0)
    {
      turn_begin (run);
      return;
    }
  /* The interrupted turn goes on: its decided tool calls run, without a
   * new model call or turn. */
  run->pending_interruptions = list_model_to_array (interruptions);
  g_clear_pointer (&run->turn, turn_free);
  run->turn = turn_new (run);
  ensure_agent_started (run);
  prepare_agent (run, run->turn);
}

static gboolean
run_start (gpointer user_data)
{
  Run *run = user_data;
  GError *error = NULL;

  g_object_set_qdata (G_OBJECT (run->ctx), run_quark (), run);
  agents_run_context_set_runner (run->ctx, G_OBJECT (run->runner));
  agents_run_context_set_run_config (run->ctx, run->config);
  begin_trace (run);
  if (!setup_preparer (run, &error))
    {
      run_fail (run, error);
      return G_SOURCE_REMOVE;
    }
  if (run->resume_state != NULL)
    resume_begin (run);
  else if (run->session != NULL)
    agents_conversation_session_get_items_async (
      run->session, 0, run->cancellable, history_loaded, run_ref (run));
  else
    input_ready (run);
  return G_SOURCE_REMOVE;
}

static void
user_cancelled (GCancellable *cancellable, gpointer user_data)
{
  GCancellable *own = user_data;

  g_cancellable_cancel (own);
}

static Run *
run_new (AgentsRunner *self,
         AgentsAgent *agent,
         AgentsRunConfig *config,
         AgentsConversationSession *session,
         AgentsRunContext *ctx,
         GCancellable *cancellable)
{
  Run *run = g_rc_box_new0 (Run);

  run->context = g_main_context_ref_thread_default ();
  run->runner = g_object_ref (self);
  run->config = config ? g_object_ref (config) : agents_run_config_new ();
  run->session = session ? g_object_ref (session) : NULL;
  run->ctx = g_object_ref (ctx);
  run->starting_agent = g_object_ref (agent);
  run->current_agent = g_object_ref (agent);
  run->items = g_ptr_array_new_with_free_func (g_object_unref);
  run->run_items = g_ptr_array_new_with_free_func (g_object_unref);
  run->tracker = agents_tool_use_tracker_new ();
  run->max_turns = agents_run_config_get_max_turns (run->config);
  run->cancellable = g_cancellable_new ();
  if (cancellable != NULL)
    {
      run->user_cancellable = g_object_ref (cancellable);
      run->user_cancel_handler = g_cancellable_connect (
        cancellable, G_CALLBACK (user_cancelled), run->cancellable, NULL);
    }
  run->result = agents_run_private_result_new (ctx, agent);
  return run;
}

static void
set_given_input (Run *run, JsonNode *input)
{
  run->input = json_node_copy (input);
  run->new_input_items = input_to_list (input);
}

static Run *
run_new_from_state (AgentsRunner *self,
                    AgentsAgent *agent,
                    AgentsRunState *state,
                    AgentsRunConfig *config,
                    AgentsConversationSession *session,
                    GCancellable *cancellable)
{
  Run *run = run_new (self, agent, config, session,
                      agents_run_state_get_context (state), cancellable);

  run->resume_state = g_object_ref (state);
  run->resumed = TRUE;
  g_set_object (&run->current_agent,
                agents_run_state_get_current_agent (state));
  run->agent_started = FALSE;
  run->input = json_node_copy (agents_run_state_get_original_input (state));
  agents_run_private_result_set_last_agent (run->result, run->current_agent);
  return run;
}

static gboolean
check_input (JsonNode *input)
{
  return input != NULL && (JSON_NODE_HOLDS_ARRAY (input) ||
                           (JSON_NODE_HOLDS_VALUE (input) &&
                            json_node_get_value_type (input) == G_TYPE_STRING));
}

/* ---- Agents as tools --------------------------------------------------- */

static void
sub_run_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;
  g_autoptr (AgentsRunResult) run_result =
    agents_runner_run_finish (AGENTS_RUNNER (source), result, &error);
  JsonNode *output;

  if (run_result == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  output = agents_run_result_get_final_output (run_result);
  g_task_return_pointer (task,
                         output ? json_node_copy (output) : string_node (""),
                         (GDestroyNotify) json_node_unref);
}

/* Runs @agent on @input through the runner (and with the run config) of
 * the run that invoked the tool; the sub-run's spans nest in that run's
 * trace. */
static void
run_agent_as_tool (GObject *runner,
                   AgentsRunConfig *config,
                   AgentsAgent *agent,
                   AgentsRunContext *ctx,
                   const char *input,
                   GTask *task)
{
  g_autoptr (AgentsRunner) own_runner = NULL;
  g_autoptr (AgentsRunContext) sub_ctx =
    agents_run_context_new (agents_run_context_get_context (ctx));
  g_autoptr (JsonNode) input_node = string_node (input);
  Run *parent = g_object_get_qdata (G_OBJECT (ctx), run_quark ());
  Run *run;
  GTask *outer;

  if (!AGENTS_IS_RUNNER (runner))
    runner = G_OBJECT (own_runner = agents_runner_new ());
  run = run_new (AGENTS_RUNNER (runner), agent, config, NULL, sub_ctx,
                 g_task_get_cancellable (task));
  set_given_input (run, input_node);
  if (parent != NULL && parent->trace != NULL)
    {
      run->trace = g_object_ref (parent->trace);
      run->parent_span =
        parent->agent_span ? g_object_ref (parent->agent_span) : NULL;
    }
  outer = g_task_new (runner, NULL, sub_run_done, g_object_ref (task));
  g_task_set_source_tag (outer, agents_runner_run_async);
  run->task = outer;
  run_start (run);
  run_unref (run);
}

/* ---- The runner -------------------------------------------------------- */

static void
agents_runner_class_init (AgentsRunnerClass *klass)
{
  GType type = G_TYPE_FROM_CLASS (klass);

  agents_run_private_run_agent_as_tool = run_agent_as_tool;

  /**
   * AgentsRunner::agent-start:
   * @self: the runner
   * @ctx: the run context
   * @agent: the agent
   *
   * An agent becomes the current agent of a run (the run hook
   * `on_agent_start`).
   */
  agents_runner_signals[SIGNAL_AGENT_START] =
    g_signal_new ("agent-start", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, AGENTS_TYPE_RUN_CONTEXT, AGENTS_TYPE_AGENT);
  /**
   * AgentsRunner::agent-end:
   * @self: the runner
   * @ctx: the run context
   * @agent: the agent
   * @output: the final output
   *
   * An agent produced the final output of a run (`on_agent_end`).
   */
  agents_runner_signals[SIGNAL_AGENT_END] = g_signal_new (
    "agent-end", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 3,
    AGENTS_TYPE_RUN_CONTEXT, AGENTS_TYPE_AGENT, JSON_TYPE_NODE);
  /**
   * AgentsRunner::llm-start:
   * @self: the runner
   * @ctx: the run context
   * @agent: the agent
   * @system_prompt: (nullable): the system prompt
   * @input: the input items
   *
   * The model is about to be called for an agent (`on_llm_start`).
   */
  agents_runner_signals[SIGNAL_LLM_START] = g_signal_new (
    "llm-start", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 4,
    AGENTS_TYPE_RUN_CONTEXT, AGENTS_TYPE_AGENT, G_TYPE_STRING, JSON_TYPE_ARRAY);
  /**
   * AgentsRunner::llm-end:
   * @self: the runner
   * @ctx: the run context
   * @agent: the agent
   * @response: the model's response
   *
   * The model answered (`on_llm_end`).
   */
  agents_runner_signals[SIGNAL_LLM_END] = g_signal_new (
    "llm-end", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 3,
    AGENTS_TYPE_RUN_CONTEXT, AGENTS_TYPE_AGENT, AGENTS_TYPE_MODEL_RESPONSE);
  /**
   * AgentsRunner::tool-start:
   * @self: the runner
   * @ctx: the run context
   * @agent: the agent whose tool runs
   * @tool: the tool
   *
   * A tool is about to run (`on_tool_start`). The detail is the tool's
   * name.
   */
  agents_runner_signals[SIGNAL_TOOL_START] =
    g_signal_new ("tool-start", type, G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 3, AGENTS_TYPE_RUN_CONTEXT,
                  AGENTS_TYPE_AGENT, AGENTS_TYPE_TOOL);
  /**
   * AgentsRunner::tool-end:
   * @self: the runner
   * @ctx: the run context
   * @agent: the agent whose tool ran
   * @tool: the tool
   * @result: the tool's output
   *
   * A tool ran (`on_tool_end`). The detail is the tool's name.
   */
  agents_runner_signals[SIGNAL_TOOL_END] =
    g_signal_new ("tool-end", type, G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 4, AGENTS_TYPE_RUN_CONTEXT,
                  AGENTS_TYPE_AGENT, AGENTS_TYPE_TOOL, JSON_TYPE_NODE);
  /**
   * AgentsRunner::handoff:
   * @self: the runner
   * @ctx: the run context
   * @from_agent: the agent that hands off
   * @to_agent: the agent handed off to
   *
   * A run hands off to another agent (`on_handoff`).
   */
  agents_runner_signals[SIGNAL_HANDOFF] = g_signal_new (
    "handoff", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 3,
    AGENTS_TYPE_RUN_CONTEXT, AGENTS_TYPE_AGENT, AGENTS_TYPE_AGENT);
}

static void
agents_runner_init (AgentsRunner *self)
{
}

/**
 * agents_runner_new:
 *
 * Creates a runner. Its signals are the run hooks of every run it runs.
 *
 * Returns: (transfer full): the runner
 */
AgentsRunner *
agents_runner_new (void)
{
  return g_object_new (AGENTS_TYPE_RUNNER, NULL);
}

/**
 * agents_runner_run_async:
 * @self: a runner
 * @agent: the agent to start with
 * @input: the input: a string (a user message) or an array of input items
 * @config: (nullable): the run config, %NULL for the defaults
 * @session: (nullable): a conversation session: its items come before
 *   @input, and the run's new input and items are added to it
 * @context: (nullable): the user context, given to tools, hooks and
 *   guardrails through the run context
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the run is over
 * @user_data: data for @callback
 *
 * Runs @agent on @input until a final output, interruptions or an error.
 * The run starts at once; it works on the thread-default main context.
 */
void
agents_runner_run_async (AgentsRunner *self,
                         AgentsAgent *agent,
                         JsonNode *input,
                         AgentsRunConfig *config,
                         AgentsConversationSession *session,
                         GObject *context,
                         GCancellable *cancellable,
                         GAsyncReadyCallback callback,
                         gpointer user_data)
{
  g_autoptr (AgentsRunContext) ctx = NULL;
  Run *run;

  g_return_if_fail (AGENTS_IS_RUNNER (self));
  g_return_if_fail (AGENTS_IS_AGENT (agent));
  g_return_if_fail (config == NULL || AGENTS_IS_RUN_CONFIG (config));
  g_return_if_fail (session == NULL ||
                    AGENTS_IS_CONVERSATION_SESSION (session));
  g_return_if_fail (context == NULL || G_IS_OBJECT (context));

  ctx = agents_run_context_new (context);
  run = run_new (self, agent, config, session, ctx, cancellable);
  run->task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (run->task, agents_runner_run_async);
  if (!check_input (input))
    {
      g_task_return_new_error (run->task, AGENTS_RUN_ERROR,
                               AGENTS_RUN_ERROR_USER_ERROR,
                               _ ("The input of a run is a string or an array "
                                  "of input items"));
      run_unref (run);
      return;
    }
  set_given_input (run, input);
  run_start (run);
  run_unref (run);
}

/**
 * agents_runner_run_finish:
 * @self: a runner
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_runner_run_async().
 *
 * Returns: (transfer full): the result of the run, or %NULL on error
 */
AgentsRunResult *
agents_runner_run_finish (AgentsRunner *self,
                          GAsyncResult *result,
                          GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * agents_runner_resume_async:
 * @self: a runner
 * @agent: the agent the run started with (the same graph as the state's
 *   agents: for a state restored from JSON, the graph it was restored
 *   against)
 * @state: the run state, its interruptions approved or rejected
 * @config: (nullable): the run config, %NULL for the defaults
 * @session: (nullable): a conversation session, which receives the
 *   resumed run's new items
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the run is over
 * @user_data: data for @callback
 *
 * Resumes a run that stopped on interruptions: its approved tool calls
 * run, its rejected ones are told "Tool execution was not approved.",
 * and the run goes on with the state's current agent. Calls still
 * undecided interrupt the run again. The state's maximum of turns counts
 * the turns before.
 */
void
agents_runner_resume_async (AgentsRunner *self,
                            AgentsAgent *agent,
                            AgentsRunState *state,
                            AgentsRunConfig *config,
                            AgentsConversationSession *session,
                            GCancellable *cancellable,
                            GAsyncReadyCallback callback,
                            gpointer user_data)
{
  Run *run;

  g_return_if_fail (AGENTS_IS_RUNNER (self));
  g_return_if_fail (AGENTS_IS_AGENT (agent));
  g_return_if_fail (AGENTS_IS_RUN_STATE (state));
  g_return_if_fail (config == NULL || AGENTS_IS_RUN_CONFIG (config));
  g_return_if_fail (session == NULL ||
                    AGENTS_IS_CONVERSATION_SESSION (session));

  run = run_new_from_state (self, agent, state, config, session, cancellable);
  run->task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (run->task, agents_runner_resume_async);
  run_start (run);
  run_unref (run);
}

/**
 * agents_runner_resume_finish:
 * @self: a runner
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_runner_resume_async().
 *
 * Returns: (transfer full): the result of the run, or %NULL on error
 */
AgentsRunResult *
agents_runner_resume_finish (AgentsRunner *self,
                             GAsyncResult *result,
                             GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
streaming_cancel (AgentsCancelMode mode, gpointer data)
{
  Run *run = data;

  if (run->completing)
    return;
  if (mode == AGENTS_CANCEL_MODE_AFTER_TURN)
    {
      run->cancel_after_turn = TRUE;
      return;
    }
  g_cancellable_cancel (run->cancellable);
}

static AgentsRunResultStreaming *
start_streamed (Run *run)
{
  AgentsRunResultStreaming *streaming =
    agents_run_private_streaming_new (run->result);

  run->streaming = g_object_ref (streaming);
  agents_run_private_streaming_set_cancel_func (
    streaming, streaming_cancel, run_ref (run), (GDestroyNotify) run_unref);
  /* From the main loop: handlers connected now see every event. */
  run_schedule (run, run_start, "[agents] streamed run");
  run_unref (run);
  return streaming;
}

/**
 * agents_runner_run_streamed:
 * @self: a runner
 * @agent: the agent to start with
 * @input: the input: a string (a user message) or an array of input items
 * @config: (nullable): the run config, %NULL for the defaults
 * @session: (nullable): a conversation session
 * @context: (nullable): the user context
 *
 * Starts a streamed run, see agents_runner_run_async(). The run begins
 * once the thread-default main context runs; its events come through the
 * returned object.
 *
 * Returns: (transfer full): the streamed run
 */
AgentsRunResultStreaming *
agents_runner_run_streamed (AgentsRunner *self,
                            AgentsAgent *agent,
                            JsonNode *input,
                            AgentsRunConfig *config,
                            AgentsConversationSession *session,
                            GObject *context)
{
  g_autoptr (AgentsRunContext) ctx = NULL;
  Run *run;

  g_return_val_if_fail (AGENTS_IS_RUNNER (self), NULL);
  g_return_val_if_fail (AGENTS_IS_AGENT (agent), NULL);
  g_return_val_if_fail (check_input (input), NULL);
  g_return_val_if_fail (config == NULL || AGENTS_IS_RUN_CONFIG (config), NULL);
  g_return_val_if_fail (
    session == NULL || AGENTS_IS_CONVERSATION_SESSION (session), NULL);

  ctx = agents_run_context_new (context);
  run = run_new (self, agent, config, session, ctx, NULL);
  set_given_input (run, input);
  return start_streamed (run);
}

/**
 * agents_runner_resume_streamed:
 * @self: a runner
 * @agent: the agent the run started with
 * @state: the run state, its interruptions approved or rejected
 * @config: (nullable): the run config, %NULL for the defaults
 * @session: (nullable): a conversation session
 *
 * Resumes a run as a streamed run, see agents_runner_resume_async().
 *
 * Returns: (transfer full): the streamed run
 */
AgentsRunResultStreaming *
agents_runner_resume_streamed (AgentsRunner *self,
                               AgentsAgent *agent,
                               AgentsRunState *state,
                               AgentsRunConfig *config,
                               AgentsConversationSession *session)
{
  Run *run;

  g_return_val_if_fail (AGENTS_IS_RUNNER (self), NULL);
  g_return_val_if_fail (AGENTS_IS_AGENT (agent), NULL);
  g_return_val_if_fail (AGENTS_IS_RUN_STATE (state), NULL);
  g_return_val_if_fail (config == NULL || AGENTS_IS_RUN_CONFIG (config), NULL);
  g_return_val_if_fail (
    session == NULL || AGENTS_IS_CONVERSATION_SESSION (session), NULL);

  run = run_new_from_state (self, agent, state, config, session, NULL);
  return start_streamed (run);
}
