/* agents-runner-turn.c - the turn loop: the model's response, handoffs
 * and final outputs; preparing a turn and calling the model are in
 * agents-runner-model-call.c
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
#include "agents-tracing-private.h"

/* ---- Turns ------------------------------------------------------------- */

void
tool_run_free (ToolRun *tool_run)
{
  g_clear_object (&tool_run->tool);
  g_clear_pointer (&tool_run->call, json_object_unref);
  g_free (tool_run->call_id);
  g_free (tool_run->arguments);
  span_finish (&tool_run->span, NULL);
  g_clear_pointer (&tool_run->output, json_node_unref);
  g_free (tool_run);
}

void
turn_free (Turn *turn)
{
  g_clear_object (&turn->execution_agent);
  g_free (turn->system_prompt);
  g_clear_pointer (&turn->input, json_array_unref);
  g_clear_pointer (&turn->tools, g_ptr_array_unref);
  g_clear_pointer (&turn->handoffs, g_ptr_array_unref);
  g_clear_object (&turn->settings);
  g_clear_object (&turn->response);
  g_clear_object (&turn->sink);
  span_finish (&turn->generation_span, NULL);
  g_clear_error (&turn->error);
  g_clear_error (&turn->guardrail_error);
  g_clear_pointer (&turn->tool_runs, g_ptr_array_unref);
  g_clear_pointer (&turn->handoff_calls, g_ptr_array_unref);
  g_clear_pointer (&turn->handoff_targets, g_ptr_array_unref);
  g_clear_pointer (&turn->interruptions, g_ptr_array_unref);
  g_free (turn);
}

Turn *
turn_new (Run *run)
{
  Turn *turn = g_new0 (Turn, 1);

  turn->run = run;
  turn->first_new_item = run->items->len;
  turn->tool_runs =
    g_ptr_array_new_with_free_func ((GDestroyNotify) tool_run_free);
  turn->handoff_calls =
    g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  turn->handoff_targets = g_ptr_array_new_with_free_func (g_object_unref);
  turn->interruptions = g_ptr_array_new_with_free_func (g_object_unref);
  return turn;
}

/* Schedules the next step from the main loop, so that long runs of
 * synchronous steps do not grow the stack. */
static gboolean
turn_begin_idle (gpointer user_data)
{
  turn_begin (user_data);
  return G_SOURCE_REMOVE;
}

void
run_schedule (Run *run, GSourceFunc func, const char *name)
{
  GSource *source = g_idle_source_new ();

  g_source_set_callback (source, func, run_ref (run),
                         (GDestroyNotify) run_unref);
  g_source_set_static_name (source, name);
  g_source_attach (source, run->context);
  g_source_unref (source);
}

static void
schedule_next_turn (Run *run)
{
  g_clear_pointer (&run->turn, turn_free);
  run_schedule (run, turn_begin_idle, "[agents] next turn");
}

/* ---- Final output ------------------------------------------------------ */

static void
output_guardrails_done (Run *run, GError *error)
{
  JsonNode *output;

  if (error != NULL)
    {
      run_fail (run, error);
      return;
    }
  output = agents_run_result_get_final_output (run->result);
  g_signal_emit (run->runner, agents_runner_signals[SIGNAL_AGENT_END], 0,
                 run->ctx, run->current_agent, output);
  agents_agent_emit_end (run->current_agent, run->ctx, output);
  run_finish (run);
}

static void
finish_with_output (Run *run, JsonNode *output)
{
  GListModel *list = agents_agent_get_output_guardrails (run->current_agent);

  agents_run_private_result_set_final_output (run->result, output);
  span_finish (&run->turn->generation_span, NULL);
  run_guardrails (run, list_model_to_array (list), run->current_agent,
                  agents_run_result_get_final_output (run->result), TRUE,
                  output_guardrails_done);
}

/* The structured final output: @text parsed and validated. */
static JsonNode *
parse_structured_output (const char *text, JsonObject *schema, GError **error)
{
  g_autoptr (GError) parse_error = NULL;
  g_autoptr (GString) reason = g_string_new (NULL);
  g_autoptr (JsonNode) root =
    agents_json_parse_bounded (text, -1, _ ("final output"), &parse_error);

  if (root == NULL)
    {
      agents_run_error_set (error, AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
                            _ ("Invalid JSON when parsing the final output: "
                               "%s"),
                            parse_error->message);
      return NULL;
    }
  if (!agents_json_schema_validate (schema, root, reason))
    {
      agents_run_error_set (error, AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
                            _ ("Invalid JSON when parsing %s: %s"), text,
                            reason->str);
      return NULL;
    }
  return g_steal_pointer (&root);
}

/* ---- Handoffs ---------------------------------------------------------- */

static JsonObject *
call_output_item (const char *call_id, const char *output)
{
  JsonObject *item = json_object_new ();

  json_object_set_string_member (item, "call_id", call_id ? call_id : "");
  json_object_set_string_member (item, "output", output);
  json_object_set_string_member (item, "type", "function_call_output");
  return item;
}

static void
apply_handoff_filter (Run *run, Turn *turn, AgentsHandoff *handoff)
{
  g_autoptr (GPtrArray) before = g_ptr_array_new ();
  g_autoptr (GPtrArray) during = g_ptr_array_new ();
  g_autoptr (AgentsHandoffInputData) data = NULL;
  g_autoptr (AgentsHandoffInputData) filtered = NULL;
  GPtrArray *pre, *new_items;
  g_autoptr (GPtrArray) items = NULL;

  if (!agents_handoff_has_input_filter (handoff))
    return;
  for (guint i = 0; i < run->items->len; i++)
    g_ptr_array_add (i < turn->first_new_item ? before : during,
                     run->items->pdata[i]);
  data = agents_handoff_input_data_new (run->input, before, during, run->ctx);
  filtered = agents_handoff_apply_input_filter (handoff, data);

  g_clear_pointer (&run->input, json_node_unref);
  run->input =
    json_node_copy (agents_handoff_input_data_get_input_history (filtered));
  pre = agents_handoff_input_data_get_pre_handoff_items (filtered);
  new_items = agents_handoff_input_data_get_new_items (filtered);
  items = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; pre != NULL && i < pre->len; i++)
    g_ptr_array_add (items, g_object_ref (pre->pdata[i]));
  for (guint i = 0; new_items != NULL && i < new_items->len; i++)
    g_ptr_array_add (items, g_object_ref (new_items->pdata[i]));
  g_ptr_array_unref (run->items);
  run->items = g_ptr_array_ref (items);
  forget_model_input (run);
  agents_run_private_result_set_items (run->result, items);
  agents_run_private_result_set_input (run->result, run->input);
}

static AgentsSpan *
handoff_span_start (Run *run, AgentsAgent *from, AgentsAgent *to)
{
  /* from_agent, to_agent */
  JsonNode *members[2] = { string_or_null_node (name_of (from)),
                           string_or_null_node (name_of (to)) };

  return span_start (run, run->agent_span, AGENTS_SPAN_KIND_HANDOFF, members,
                     G_N_ELEMENTS (members));
}

/* The first handoff call wins; later ones are told they were ignored. */
static void
execute_handoff (Run *run, Turn *turn)
{
  AgentsHandoff *handoff = turn->handoff_targets->pdata[0];
  JsonObject *call = turn->handoff_calls->pdata[0];
  AgentsAgent *source = run->current_agent;
  AgentsAgent *target = agents_handoff_get_agent (handoff);
  const char *call_id = agents_run_private_json_string (call, "call_id");
  g_autoptr (AgentsSpan) span = NULL;
  g_autoptr (JsonObject) raw = NULL;
  g_autoptr (AgentsRunItem) item = NULL;
  g_autoptr (JsonNode) name = NULL;
  g_autofree char *output = NULL;
  g_autofree char *quoted = NULL;

  if (target == NULL)
    {
      run_fail (run,
                agents_run_error_new (AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
                                      _ ("Handoff %s has no agent"),
                                      agents_handoff_get_tool_name (handoff)));
      return;
    }
  span = handoff_span_start (run, source, target);
  for (guint i = 1; i < turn->handoff_calls->len; i++)
    {
      JsonObject *extra = turn->handoff_calls->pdata[i];
      g_autoptr (JsonObject) ignored =
        call_output_item (agents_run_private_json_string (extra, "call_id"),
                          MULTIPLE_HANDOFFS_MESSAGE);
      g_autoptr (JsonNode) text = string_node (MULTIPLE_HANDOFFS_MESSAGE);
      g_autoptr (AgentsRunItem) ignored_item =
        agents_run_item_new_tool_output (source, ignored, text);

      add_item (run, ignored_item);
    }

  /* json.dumps({"assistant": name}) of the reference. */
  name = string_node (name_of (target));
  quoted = json_to_string (name, FALSE);
  output = g_strdup_printf ("{\"assistant\": %s}", quoted);
  raw = call_output_item (call_id, output);
  item = agents_run_item_new_handoff_output (source, raw, source, target);
  add_item (run, item);

  g_signal_emit (run->runner, agents_runner_signals[SIGNAL_HANDOFF], 0,
                 run->ctx, source, target);
  agents_agent_emit_handoff (target, run->ctx, source);
  apply_handoff_filter (run, turn, handoff);
  span_finish (&span, NULL);

  span_finish (&run->agent_span, NULL);
  g_set_object (&run->current_agent, target);
  run->agent_span_open = FALSE;
  run->agent_started = FALSE;
  agents_run_private_result_set_last_agent (run->result, target);
  schedule_next_turn (run);
}

/* ---- After the tools --------------------------------------------------- */

static gboolean
tool_stops_run (AgentsAgent *agent, ToolRun *tool_run)
{
  const char *const *names;

  if (tool_run->is_local_shell || tool_run->rejected ||
      tool_run->output == NULL)
    return FALSE;
  switch (agents_agent_get_tool_use_behavior (agent))
    {
    case AGENTS_TOOL_USE_BEHAVIOR_STOP_ON_FIRST_TOOL:
      return TRUE;
    case AGENTS_TOOL_USE_BEHAVIOR_STOP_AT_TOOL_NAMES:
      names = agents_agent_get_stop_at_tool_names (agent);
      return names != NULL &&
             g_strv_contains (names, agents_tool_get_name (tool_run->tool));
    default:
      return FALSE;
    }
}

static void
finish_interrupted (Run *run, Turn *turn)
{
  for (guint i = 0; i < turn->interruptions->len; i++)
    add_item (run, turn->interruptions->pdata[i]);
  run_finish (run);
}

/* What follows a turn's tools: interruptions, a handoff, a tool's final
 * output, a message's final output, or another turn. */
void
turn_decide (Run *run, Turn *turn)
{
  AgentsAgent *exec = turn->execution_agent;
  JsonObject *schema = exec ? agents_agent_get_output_schema (exec) : NULL;
  g_autofree char *text = NULL;

  if (turn->interruptions->len > 0)
    {
      finish_interrupted (run, turn);
      return;
    }
  if (turn->handoff_calls->len > 0)
    {
      execute_handoff (run, turn);
      return;
    }
  for (guint i = 0; i < turn->tool_runs->len; i++)
    {
      ToolRun *tool_run = turn->tool_runs->pdata[i];

      if (tool_stops_run (exec ? exec : run->current_agent, tool_run))
        {
          finish_with_output (run, tool_run->output);
          return;
        }
    }

  for (guint i = run->items->len; i > turn->first_new_item; i--)
    if (agents_run_item_get_kind (run->items->pdata[i - 1]) ==
        AGENTS_RUN_ITEM_KIND_MESSAGE_OUTPUT)
      {
        text = agents_run_item_get_text (run->items->pdata[i - 1]);
        break;
      }
  if (turn->response != NULL && schema != NULL && text != NULL && *text != '\0')
    {
      GError *error = NULL;
      g_autoptr (JsonNode) output =
        parse_structured_output (text, schema, &error);

      if (output == NULL)
        run_fail (run, error);
      else
        finish_with_output (run, output);
      return;
    }
  if (turn->response != NULL && schema == NULL && !turn->has_tools_or_handoffs)
    {
      g_autoptr (JsonNode) output = string_node (text);

      finish_with_output (run, output);
      return;
    }
  schedule_next_turn (run);
}

/* ---- The model's response ---------------------------------------------- */

AgentsTool *
find_tool (Turn *turn, const char *name, gboolean local_shell)
{
  for (guint i = 0; i < turn->tools->len; i++)
    {
      AgentsTool *tool = turn->tools->pdata[i];

      if (local_shell ? AGENTS_IS_LOCAL_SHELL_TOOL (tool)
                      : g_strcmp0 (agents_tool_get_name (tool), name) == 0)
        return tool;
    }
  return NULL;
}

static AgentsHandoff *
find_handoff (Turn *turn, const char *name)
{
  for (guint i = 0; i < turn->handoffs->len; i++)
    if (g_strcmp0 (agents_handoff_get_tool_name (turn->handoffs->pdata[i]),
                   name) == 0)
      return turn->handoffs->pdata[i];
  return NULL;
}

/* A call of one of the agent's tools, by name. */
static gboolean
process_tool_call (Run *run, Turn *turn, JsonObject *call, GError **error)
{
  const char *name = agents_run_private_json_string (call, "name");
  AgentsTool *tool = find_tool (turn, name, FALSE);
  g_autoptr (AgentsRunItem) item = NULL;

  if (tool == NULL)
    {
      agents_run_error_set (error, AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
                            _ ("Tool %s not found in agent %s"),
                            name ? name : "(null)",
                            name_of (run->current_agent));
      return FALSE;
    }
  item = agents_run_item_new (AGENTS_RUN_ITEM_KIND_TOOL_CALL,
                              run->current_agent, call);
  agents_tool_use_tracker_add (run->tracker, run->current_agent, name);
  add_item (run, item);
  add_tool_call (run, turn, tool, call);
  return TRUE;
}

static gboolean
process_function_call (Run *run, Turn *turn, JsonObject *call, GError **error)
{
  const char *name = agents_run_private_json_string (call, "name");
  AgentsHandoff *handoff = find_handoff (turn, name);
  g_autoptr (AgentsRunItem) item = NULL;

  turn->has_tools_or_handoffs = TRUE;
  if (handoff != NULL)
    {
      item = agents_run_item_new (AGENTS_RUN_ITEM_KIND_HANDOFF_CALL,
                                  run->current_agent, call);
      g_ptr_array_add (turn->handoff_calls, json_object_ref (call));
      g_ptr_array_add (turn->handoff_targets, g_object_ref (handoff));
      agents_tool_use_tracker_add (run->tracker, run->current_agent, name);
      add_item (run, item);
      return TRUE;
    }
  return process_tool_call (run, turn, call, error);
}

/* A custom (freeform) tool call: `{"type": "custom_tool_call", "call_id",
 * "name", "input"}`, whose input is raw text. */
static gboolean
process_custom_tool_call (Run *run,
                          Turn *turn,
                          JsonObject *call,
                          GError **error)
{
  turn->has_tools_or_handoffs = TRUE;
  if (agents_run_private_json_string (call, "input") == NULL)
    {
      /* The reference's ModelBehaviorError text. */
      agents_run_error_set (error, AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
                            "Custom tool call is missing input.");
      return FALSE;
    }
  return process_tool_call (run, turn, call, error);
}

static gboolean
process_output_item (Run *run, Turn *turn, JsonObject *raw, GError **error)
{
  const char *type = agents_run_private_json_string (raw, "type");
  g_autoptr (AgentsRunItem) item = NULL;
  AgentsTool *tool;

  if (g_strcmp0 (type, "message") == 0)
    item = agents_run_item_new (AGENTS_RUN_ITEM_KIND_MESSAGE_OUTPUT,
                                run->current_agent, raw);
  else if (g_strcmp0 (type, "reasoning") == 0)
    item = agents_run_item_new (AGENTS_RUN_ITEM_KIND_REASONING,
                                run->current_agent, raw);
  else if (g_strcmp0 (type, "function_call") == 0)
    return process_function_call (run, turn, raw, error);
  else if (g_strcmp0 (type, "custom_tool_call") == 0)
    return process_custom_tool_call (run, turn, raw, error);
  else if (g_strcmp0 (type, "local_shell_call") == 0)
    {
      tool = find_tool (turn, NULL, TRUE);
      if (tool == NULL)
        {
          agents_run_error_set (
            error, AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
            _ ("Model produced local shell call without a local shell tool."));
          return FALSE;
        }
      turn->has_tools_or_handoffs = TRUE;
      item = agents_run_item_new (AGENTS_RUN_ITEM_KIND_TOOL_CALL,
                                  run->current_agent, raw);
      agents_tool_use_tracker_add (run->tracker, run->current_agent,
                                   agents_tool_get_name (tool));
      add_item (run, item);
      add_tool_call (run, turn, tool, raw);
      return TRUE;
    }
  else if (type != NULL && g_str_has_suffix (type, "_call"))
    /* Hosted tools (web search, file search, …) ran at the provider. */
    item = agents_run_item_new (AGENTS_RUN_ITEM_KIND_TOOL_CALL,
                                run->current_agent, raw);
  else
    {
      g_debug ("ignoring model output item of type %s", type);
      return TRUE;
    }
  add_item (run, item);
  return TRUE;
}

void
process_response (Run *run, Turn *turn)
{
  AgentsModelResponse *response = turn->response;
  JsonArray *output = agents_model_response_get_output (response);
  GError *error = NULL;

  for (guint i = 0; output != NULL && i < json_array_get_length (output); i++)
    {
      JsonNode *node = json_array_get_element (output, i);
      g_autoptr (JsonObject) raw = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      /* The item's own copy, sealed: the model input of every later turn
       * shares it instead of copying it. A sealed output item cannot
       * change, so it is shared as it is. */
      if (json_object_is_immutable (json_node_get_object (node)))
        raw = json_object_ref (json_node_get_object (node));
      else
        {
          raw =
            agents_run_private_json_object_copy (json_node_get_object (node));
          json_object_seal (raw);
        }
      if (!process_output_item (run, turn, raw, &error))
        {
          run_fail (run, error);
          return;
        }
    }
  run_tools (turn);
}
