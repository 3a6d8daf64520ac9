/* agents-runner-model-call.c - the turn loop: preparing a turn (agent,
 * system prompt, input, tools) and calling the model
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-json-private.h"
#include "agents-run-private.h"
#include "agents-runner-private.h"
#include "agents-runner.h"
#include "agents-tracing-private.h"

/* ---- The model call ---------------------------------------------------- */

static void
turn_joined (Run *run, Turn *turn)
{
  AgentsModelResponse *response = turn->response;
  JsonObject *usage;

  if (turn->guardrail_error != NULL)
    {
      run_fail (run, g_steal_pointer (&turn->guardrail_error));
      return;
    }
  if (turn->error != NULL)
    {
      span_finish (&turn->generation_span, turn->error);
      run_fail (run, g_steal_pointer (&turn->error));
      return;
    }
  usage = agents_model_response_get_usage (response);
  if (usage != NULL)
    agents_run_context_add_usage (run->ctx, usage);
  agents_run_private_result_append_response (run->result, response);
  if (turn->generation_span != NULL)
    {
      JsonArray *output = agents_model_response_get_output (response);
      /* Snapshots for processors; without any, nobody sees the data. */
      gboolean copy = agents_tracing_private_has_processors ();

      if (output != NULL)
        span_set (turn->generation_span, "output",
                  take_array (copy ? agents_run_private_json_array_copy (output)
                                   : json_array_ref (output)));
      if (usage != NULL)
        span_set (turn->generation_span, "usage",
                  take_object (copy
                                 ? agents_run_private_json_object_copy (usage)
                                 : json_object_ref (usage)));
    }
  span_finish (&turn->generation_span, NULL);

  g_signal_emit (run->runner, agents_runner_signals[SIGNAL_LLM_END], 0,
                 run->ctx, run->current_agent, response);
  agents_agent_emit_llm_end (run->current_agent, run->ctx, response);
  process_response (run, turn);
}

static void
turn_join_one (Run *run, Turn *turn)
{
  if (--turn->pending > 0)
    return;
  if (run->completing || run->turn != turn)
    return;
  turn_joined (run, turn);
}

static void
model_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (Run) run = user_data;
  Turn *turn = run->turn;
  GError *error = NULL;
  AgentsModelResponse *response;

  if (run->streaming != NULL)
    response = agents_model_stream_response_finish (AGENTS_MODEL (source),
                                                    result, &error);
  else
    response =
      agents_model_get_response_finish (AGENTS_MODEL (source), result, &error);
  if (turn == NULL || run->completing)
    {
      g_clear_error (&error);
      g_clear_object (&response);
      return;
    }
  if (turn->sink != NULL)
    g_signal_handlers_disconnect_by_data (turn->sink, run);
  if (response == NULL && error == NULL)
    error = agents_run_error_new (AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
                                  _ ("The model returned no response"));
  if (error != NULL)
    turn->error = error;
  else
    turn->response = response;
  turn_join_one (run, turn);
}

static void
parallel_guardrails_done (Run *run, GError *error)
{
  Turn *turn = run->turn;

  if (turn == NULL || run->completing)
    {
      g_clear_error (&error);
      return;
    }
  turn->guardrail_error = error;
  turn_join_one (run, turn);
}

static void
raw_model_event (AgentsModelEventSink *sink,
                 JsonObject *event,
                 gpointer user_data)
{
  Run *run = user_data;

  push_event (run, AGENTS_STREAM_EVENT_KIND_RAW_RESPONSE, NULL, NULL, event);
}

static AgentsModel *
resolve_model (Run *run, AgentsAgent *exec, GError **error)
{
  AgentsModel *model = agents_run_config_get_model (run->config);

  if (model == NULL)
    model = agents_agent_get_model (exec);
  if (model == NULL)
    agents_run_error_set (error, AGENTS_RUN_ERROR_USER_ERROR, NULL,
                          _ ("Agent %s has no model and the run config sets "
                             "none"),
                          name_of (run->current_agent));
  return model;
}

static AgentsModelRequest *
build_request (Run *run, Turn *turn, JsonObject *prompt)
{
  AgentsModelRequest *request = agents_model_request_new ();

  agents_model_request_set_system_instructions (request, turn->system_prompt);
  agents_model_request_set_input (request, turn->input);
  agents_model_request_set_model_settings (request, turn->settings);
  agents_model_request_set_tools (request, turn->tools);
  agents_model_request_set_handoffs (request, turn->handoffs);
  agents_model_request_set_output_schema (
    request, agents_agent_get_output_schema (turn->execution_agent));
  agents_model_request_set_prompt (request, prompt);
  agents_model_request_set_tracing (
    request, agents_run_config_get_tracing_disabled (run->config)
               ? AGENTS_MODEL_TRACING_DISABLED
             : agents_run_config_get_trace_include_sensitive_data (run->config)
               ? AGENTS_MODEL_TRACING_ENABLED
               : AGENTS_MODEL_TRACING_ENABLED_WITHOUT_DATA);
  return request;
}

/* Copies the model input; sealed items cannot change, so they are shared. */
static JsonArray *
copy_input (JsonArray *input)
{
  JsonArray *copy = json_array_sized_new (json_array_get_length (input));

  for (guint i = 0; i < json_array_get_length (input); i++)
    {
      JsonNode *node = json_array_get_element (input, i);
      g_autoptr (JsonArray) single = NULL;
      g_autoptr (JsonArray) copied = NULL;

      if (json_node_is_immutable (node))
        {
          json_array_add_element (copy, json_node_ref (node));
          continue;
        }
      single = json_array_new ();
      json_array_add_element (single, json_node_ref (node));
      copied = agents_run_private_json_array_copy (single);
      json_array_add_element (copy, json_array_dup_element (copied, 0));
    }
  return copy;
}

/* The agent's model name, else the model's own `model-name` (the HTTP
 * models have one), else its type's name. */
static char *
span_model_name (AgentsAgent *agent, AgentsModel *model)
{
  const char *name = agents_agent_get_model_name (agent);
  char *own = NULL;

  if (name != NULL)
    return g_strdup (name);
  if (g_object_class_find_property (G_OBJECT_GET_CLASS (model), "model-name"))
    g_object_get (model, "model-name", &own, NULL);
  return own ? own : g_strdup (G_OBJECT_TYPE_NAME (model));
}

/* The generation span: input, output and usage (null until the model
 * answers), model, model_config. */
static AgentsSpan *
generation_span_start (Run *run, Turn *turn, AgentsModel *model)
{
  JsonNode *members[5] = { NULL };

  if (span_records (run, run->agent_span))
    {
      g_autofree char *model_name =
        span_model_name (turn->execution_agent, model);

      /* The input grows in place turn after turn: processors, which may
       * keep the span, get a snapshot; without any, nobody sees it. */
      members[0] = take_array (agents_tracing_private_has_processors ()
                                 ? copy_input (turn->input)
                                 : json_array_ref (turn->input));
      members[2] = string_or_null_node (model_name);
      members[3] = take_object (agents_model_settings_to_json (turn->settings));
    }
  return span_start (run, run->agent_span, AGENTS_SPAN_KIND_GENERATION, members,
                     G_N_ELEMENTS (members));
}

/* Applies the run config's call-model input filter, which sees the public
 * agent. */
static void
filter_model_input (Run *run, Turn *turn)
{
  g_autoptr (AgentsModelInputData) data = NULL;
  g_autoptr (AgentsCallModelData) call = NULL;
  g_autoptr (AgentsModelInputData) filtered = NULL;

  if (!agents_run_config_has_call_model_input_filter (run->config))
    return;
  data = agents_model_input_data_new (turn->system_prompt, turn->input);
  call = agents_call_model_data_new (
    run->current_agent, agents_run_context_get_context (run->ctx), data);
  filtered =
    agents_run_config_apply_call_model_input_filter (run->config, call);
  g_free (turn->system_prompt);
  turn->system_prompt =
    g_strdup (agents_model_input_data_get_instructions (filtered));
  g_clear_pointer (&turn->input, json_array_unref);
  turn->input = json_array_ref (agents_model_input_data_get_input (filtered));
}

static void
call_model (Run *run, Turn *turn)
{
  g_autoptr (JsonObject) prompt = NULL;
  g_autoptr (AgentsModelRequest) request = NULL;
  g_autoptr (GPtrArray) parallel = NULL;
  GError *error = NULL;
  AgentsModel *model;

  model = resolve_model (run, turn->execution_agent, &error);
  if (model == NULL)
    {
      run_fail (run, error);
      return;
    }
  prompt = agents_agent_resolve_prompt (run->current_agent, run->ctx);
  filter_model_input (run, turn);
  request = build_request (run, turn, prompt);

  g_signal_emit (run->runner, agents_runner_signals[SIGNAL_LLM_START], 0,
                 run->ctx, run->current_agent, turn->system_prompt,
                 turn->input);
  agents_agent_emit_llm_start (run->current_agent, run->ctx,
                               turn->system_prompt, turn->input);

  /* The parallel input guardrails run alongside the first model call. */
  parallel = run->current_turn == 1 && !run->resumed
               ? input_guardrails (run, TRUE)
               : g_ptr_array_new ();
  turn->pending = 1 + (parallel->len > 0 ? 1 : 0);
  turn->generation_span = generation_span_start (run, turn, model);
  agents_model_request_set_span (request, turn->generation_span);
  if (run->prompt_cache_key == NULL)
    run->prompt_cache_key = g_uuid_string_random ();
  agents_model_request_set_prompt_cache_key (request, run->prompt_cache_key);
  if (run->streaming != NULL)
    {
      turn->sink = agents_model_event_sink_new ();
      g_signal_connect (turn->sink, "event", G_CALLBACK (raw_model_event), run);
      agents_model_stream_response_async (model, request, turn->sink,
                                          run->cancellable, model_done,
                                          run_ref (run));
    }
  else
    agents_model_get_response_async (model, request, run->cancellable,
                                     model_done, run_ref (run));
  if (parallel->len > 0)
    run_guardrails (run, g_steal_pointer (&parallel), run->starting_agent,
                    run->input, FALSE, parallel_guardrails_done);
}

static AgentsModelSettings *
turn_settings (Run *run, AgentsAgent *exec)
{
  AgentsModelSettings *settings = agents_model_settings_merge (
    agents_agent_get_model_settings (exec),
    agents_run_config_get_model_settings (run->config));

  /* The reference's maybe_reset_tool_choice(): once an agent used tools,
   * forcing another tool call would loop. */
  if (agents_agent_get_reset_tool_choice (run->current_agent) &&
      agents_tool_use_tracker_has_used_tools (run->tracker, run->current_agent))
    agents_model_settings_set_tool_choice (settings, NULL);
  return settings;
}

static GPtrArray *
agent_tools (AgentsAgent *agent)
{
  return list_model_to_array (agents_agent_get_tools (agent));
}

static void
system_prompt_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (Run) run = user_data;
  Turn *turn = run->turn;
  GError *error = NULL;
  char *prompt = agents_agent_get_system_prompt_finish (AGENTS_AGENT (source),
                                                        result, &error);

  if (turn == NULL || run->completing)
    {
      g_clear_error (&error);
      g_free (prompt);
      return;
    }
  if (error != NULL)
    {
      run_fail (run, error);
      return;
    }
  turn->system_prompt = prompt;
  call_model (run, turn);
}

/* The execution agent is known: gather what the model call needs. */
static void
turn_prepared (Run *run, Turn *turn)
{
  turn->tools = agent_tools (turn->execution_agent);
  turn->handoffs = agents_agent_get_handoff_objects (turn->execution_agent);
  turn->settings = turn_settings (run, turn->execution_agent);
  if (run->agent_span != NULL && agents_span_is_recording (run->agent_span))
    {
      g_autoptr (GPtrArray) names = g_ptr_array_new ();

      for (guint i = 0; i < turn->tools->len; i++)
        g_ptr_array_add (
          names, (gpointer) agents_tool_get_name (turn->tools->pdata[i]));
      g_ptr_array_add (names, NULL);
      /* Usually the same tools as the last turn's: nothing to set. */
      agents_tracing_private_span_set_strv (run->agent_span, "tools",
                                            (const char *const *) names->pdata);
    }

  if (run->pending_interruptions != NULL)
    {
      /* Resuming: execute the decided tool calls before any model call. */
      g_autoptr (GPtrArray) pending =
        g_steal_pointer (&run->pending_interruptions);
      GError *error = NULL;

      for (guint i = 0; i < pending->len; i++)
        {
          AgentsRunItem *approval = pending->pdata[i];
          JsonObject *call = agents_run_item_get_raw_item (approval);
          gboolean local_shell =
            g_strcmp0 (agents_run_private_json_string (call, "type"),
                       "local_shell_call") == 0;
          const char *name = agents_run_item_get_tool_name (approval);
          AgentsTool *tool = find_tool (turn, name, local_shell);

          if (tool == NULL)
            {
              agents_run_error_set (&error, AGENTS_RUN_ERROR_MODEL_BEHAVIOR,
                                    NULL, _ ("Tool %s not found in agent %s"),
                                    name ? name : "(null)",
                                    name_of (run->current_agent));
              run_fail (run, error);
              return;
            }
          add_tool_call (run, turn, tool, call);
        }
      run_tools (turn);
      return;
    }

  agents_agent_get_system_prompt_async (turn->execution_agent, run->ctx,
                                        run->cancellable, system_prompt_done,
                                        run_ref (run));
}

static void
prepare_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (Run) run = user_data;
  Turn *turn = run->turn;
  GError *error = NULL;
  Prepared *prepared = g_task_propagate_pointer (G_TASK (result), &error);

  if (turn == NULL || run->completing)
    {
      g_clear_error (&error);
      g_clear_pointer (&prepared, prepared_free);
      return;
    }
  if (prepared == NULL)
    {
      run_fail (run, error ? error
                           : agents_run_error_new_literal (
                               AGENTS_RUN_ERROR_FAILED, NULL,
                               _ ("The sandbox preparation returned nothing")));
      return;
    }
  turn->execution_agent = g_steal_pointer (&prepared->execution_agent);
  if (prepared->input != NULL)
    {
      g_clear_pointer (&turn->input, json_array_unref);
      turn->input = g_steal_pointer (&prepared->input);
    }
  prepared_free (prepared);
  turn_prepared (run, turn);
}

static GQuark
input_node_quark (void)
{
  return g_quark_from_static_string ("agents-runner-input-node");
}

/* The item as model input, shared by every later turn instead of copied
 * again: a sealed raw item (the runner seals those it makes) is shared as
 * it is; any other is copied once and the copy sealed. */
static JsonNode *
item_input_node (AgentsRunItem *item)
{
  JsonObject *raw = agents_run_item_get_raw_item (item);
  JsonNode *node;

  if (json_object_is_immutable (raw))
    {
      node = json_node_init_object (json_node_alloc (), raw);
      json_node_seal (node);
      return node;
    }
  node = g_object_get_qdata (G_OBJECT (item), input_node_quark ());
  if (node == NULL)
    {
      node = json_node_alloc ();
      json_node_take_object (json_node_init (node, JSON_NODE_OBJECT),
                             agents_run_item_to_input_item (item));
      json_node_seal (node);
      g_object_set_qdata_full (G_OBJECT (item), input_node_quark (), node,
                               (GDestroyNotify) json_node_unref);
    }
  return json_node_ref (node);
}

/* The model input: the run's input, then its items but approvals. Every
 * turn shares one array and appends only the items added since the last
 * turn, so a turn costs the same however long the history (the reference
 * builds a new list every turn). It is rebuilt when the history is
 * rewritten, or was changed in place by someone it was handed to. */
JsonArray *
model_input (Run *run)
{
  if (run->model_input == NULL || run->model_input_items > run->items->len ||
      json_array_get_length (run->model_input) != run->model_input_length ||
      (run->model_input_length > 0 &&
       json_array_get_element (run->model_input, run->model_input_length - 1) !=
         run->model_input_last))
    {
      g_clear_pointer (&run->model_input, json_array_unref);
      run->model_input = input_to_list (run->input);
      run->model_input_items = 0;
    }
  for (guint i = run->model_input_items; i < run->items->len; i++)
    {
      AgentsRunItem *item = run->items->pdata[i];

      if (agents_run_item_get_kind (item) == AGENTS_RUN_ITEM_KIND_TOOL_APPROVAL)
        continue;
      json_array_add_element (run->model_input, item_input_node (item));
    }
  run->model_input_items = run->items->len;
  run->model_input_length = json_array_get_length (run->model_input);
  run->model_input_last =
    run->model_input_length > 0
      ? json_array_get_element (run->model_input, run->model_input_length - 1)
      : NULL;
  return json_array_ref (run->model_input);
}

void
prepare_agent (Run *run, Turn *turn)
{
  GTask *task;

  turn->input = model_input (run);
  if (run->preparer == NULL)
    {
      turn->execution_agent = g_object_ref (run->current_agent);
      turn_prepared (run, turn);
      return;
    }
  task =
    g_task_new (run->preparer, run->cancellable, prepare_done, run_ref (run));
  g_task_set_source_tag (task, prepare_agent);
  AGENTS_RUN_PREPARER_GET_IFACE (run->preparer)
    ->prepare_agent (run->preparer, run->preparation, run->current_agent,
                     turn->input, run->resumed, task);
  g_object_unref (task);
}

void
turn_begin (Run *run)
{
  if (run->completing)
    return;
  if (g_cancellable_is_cancelled (run->cancellable))
    {
      GError *error = NULL;

      g_cancellable_set_error_if_cancelled (run->cancellable, &error);
      run_fail (run, error);
      return;
    }
  if (run->cancel_after_turn)
    {
      run_finish (run);
      return;
    }
  if (run->current_turn >= run->max_turns)
    {
      run_fail (run, agents_run_error_new (AGENTS_RUN_ERROR_MAX_TURNS_EXCEEDED,
                                           NULL, _ ("Max turns (%u) exceeded"),
                                           run->max_turns));
      return;
    }
  run->current_turn++;
  agents_run_private_result_set_progress (run->result, run->current_turn,
                                          run->max_turns, run->tracker);
  g_clear_pointer (&run->turn, turn_free);
  run->turn = turn_new (run);
  ensure_agent_started (run);
  prepare_agent (run, run->turn);
}
