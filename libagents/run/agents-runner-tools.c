/* agents-runner-tools.c - tool execution: the calls of a turn, run in parallel
 * or in order
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

/* ---- Tools ------------------------------------------------------------- */

/* The answer to a call, of the call's own kind: function_call_output,
 * custom_tool_call_output (whose output may be structured parts, see
 * agents_run_private_tool_output_to_wire()) or local_shell_call_output. */
static JsonObject *
tool_output_item (ToolRun *tool_run)
{
  g_autofree char *text = NULL;
  JsonObject *item = json_object_new ();

  if (tool_run->is_custom_call)
    json_object_set_string_member (item, "type", "custom_tool_call_output");
  if (!tool_run->is_local_shell)
    {
      json_object_set_string_member (item, "call_id", tool_run->call_id);
      json_object_set_member (
        item, "output",
        agents_run_private_tool_output_to_wire (tool_run->output));
      if (!tool_run->is_custom_call)
        json_object_set_string_member (item, "type", "function_call_output");
      return item;
    }
  text = agents_run_private_output_to_text (tool_run->output);
  json_object_set_string_member (item, "type", "local_shell_call_output");
  json_object_set_string_member (item, "id", tool_run->call_id);
  json_object_set_string_member (item, "call_id", tool_run->call_id);
  json_object_set_string_member (item, "output", text);
  return item;
}

static void
tools_done (Run *run, Turn *turn)
{
  for (guint i = 0; i < turn->tool_runs->len; i++)
    {
      ToolRun *tool_run = turn->tool_runs->pdata[i];
      g_autoptr (JsonObject) raw = tool_output_item (tool_run);
      g_autoptr (AgentsRunItem) item = NULL;

      /* Sealed, so that later turns' model input shares it. */
      json_object_seal (raw);
      item = agents_run_item_new_tool_output (run->current_agent, raw,
                                              tool_run->output);
      add_item (run, item);
    }
  turn_decide (run, turn);
}

static void pump_tools (Turn *turn);

static void
tool_finished (Turn *turn, ToolRun *tool_run, GError *error)
{
  span_finish (&tool_run->span, error);
  if (error != NULL && turn->error == NULL)
    turn->error = error;
  else if (error != NULL)
    g_error_free (error);
  turn->tools_running--;
  pump_tools (turn);
}

/* Keeps a tool's answer and tells the hooks. */
static void
tool_answered (Run *run, ToolRun *tool_run, JsonNode *output)
{
  g_autofree char *text = agents_run_private_output_to_text (output);

  tool_run->output = output;
  span_set (tool_run->span, "output", string_node (text));
  g_signal_emit (run->runner, agents_runner_signals[SIGNAL_TOOL_END],
                 g_quark_from_string (agents_tool_get_name (tool_run->tool)),
                 run->ctx, run->current_agent, tool_run->tool, output);
  agents_agent_emit_tool_end (run->current_agent, run->ctx, tool_run->tool,
                              output);
}

static void
tool_invoked (GObject *source, GAsyncResult *result, gpointer user_data)
{
  ToolRun *tool_run = user_data;
  Turn *turn = tool_run->turn;
  g_autoptr (Run) run = turn->run; /* the reference start_tool took */
  GError *error = NULL;
  JsonNode *output =
    agents_tool_invoke_finish (AGENTS_TOOL (source), result, &error);

  if (run->completing || run->turn != turn)
    {
      g_clear_error (&error);
      g_clear_pointer (&output, json_node_unref);
      return;
    }
  if (output == NULL && error == NULL)
    output = string_node ("");
  if (error != NULL && !is_cancelled_error (error) &&
      error->domain != AGENTS_RUN_ERROR)
    {
      GError *wrapped = agents_run_error_new (
        AGENTS_RUN_ERROR_TOOL_FAILED, NULL, _ ("Error running tool %s: %s"),
        agents_tool_get_name (tool_run->tool), error->message);

      g_error_free (error);
      error = wrapped;
    }
  if (output != NULL)
    tool_answered (run, tool_run, output);
  tool_finished (turn, tool_run, error);
}

/* A function tool's arguments must match its parameters schema before it
 * runs. A call whose arguments do not is answered as the tool answers
 * arguments that are not JSON: the reference's ModelBehaviorError
 * "Invalid JSON input for tool NAME: WHY" through the tool's failure
 * function, which the model reads. The schema is the one the model was
 * given; `strict` only asks the model provider to enforce it, so it adds
 * nothing here. Arguments that are not a JSON object are left to the
 * tool, which refuses them itself. Returns the answer, or NULL when the
 * tool may run. */
static char *
refuse_invalid_arguments (Run *run, ToolRun *tool_run)
{
  const char *arguments = tool_run->arguments;
  JsonObject *schema;
  g_autoptr (JsonNode) node = NULL;
  g_autoptr (GString) reason = NULL;
  g_autoptr (GError) error = NULL;

  if (!AGENTS_IS_FUNCTION_TOOL (tool_run->tool) || tool_run->is_custom_call)
    return NULL;
  schema = agents_tool_get_params_json_schema (tool_run->tool);
  if (schema == NULL)
    return NULL;
  /* Empty arguments are an empty object, as the tool reads them. */
  node = agents_json_parse_bounded (arguments[0] != '\0' ? arguments : "{}", -1,
                                    "arguments", NULL);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  reason = g_string_new (NULL);
  if (agents_json_schema_validate (schema, node, reason))
    return NULL;
  error = agents_run_error_new (
    AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL, "Invalid JSON input for tool %s: %s",
    agents_tool_get_name (tool_run->tool), reason->str);
  return agents_function_tool_private_failure_text (
    AGENTS_FUNCTION_TOOL (tool_run->tool), run->ctx, error);
}

/* The function span: name, input, output (null until the tool ends). */
static AgentsSpan *
function_span_start (Run *run, ToolRun *tool_run)
{
  JsonNode *members[3] = { NULL };

  if (span_records (run, run->agent_span))
    {
      members[0] = string_or_null_node (agents_tool_get_name (tool_run->tool));
      members[1] = string_or_null_node (tool_run->arguments);
    }
  return span_start (run, run->agent_span, AGENTS_SPAN_KIND_FUNCTION, members,
                     G_N_ELEMENTS (members));
}

static void
start_tool (Turn *turn, ToolRun *tool_run)
{
  Run *run = turn->run;
  g_autofree char *refusal = NULL;

  turn->tools_running++;
  tool_run->span = function_span_start (run, tool_run);
  if (g_cancellable_is_cancelled (run->cancellable))
    {
      GError *error = NULL;

      g_cancellable_set_error_if_cancelled (run->cancellable, &error);
      tool_finished (turn, tool_run, error);
      return;
    }
  if (tool_run->rejected)
    {
      tool_run->output = string_node (REJECTION_MESSAGE);
      span_set (tool_run->span, "output", string_node (REJECTION_MESSAGE));
      tool_finished (turn, tool_run, NULL);
      return;
    }
  g_signal_emit (run->runner, agents_runner_signals[SIGNAL_TOOL_START],
                 g_quark_from_string (agents_tool_get_name (tool_run->tool)),
                 run->ctx, run->current_agent, tool_run->tool);
  agents_agent_emit_tool_start (run->current_agent, run->ctx, tool_run->tool);
  refusal = refuse_invalid_arguments (run, tool_run);
  if (refusal != NULL)
    {
      /* As tool_invoked(): a hook may have ended the run meanwhile. */
      if (run->completing || run->turn != turn)
        return;
      tool_answered (run, tool_run, string_node (refusal));
      tool_finished (turn, tool_run, NULL);
      return;
    }
  run_ref (run);
  agents_tool_invoke_async (tool_run->tool, run->ctx, tool_run->call_id,
                            tool_run->arguments, run->cancellable, tool_invoked,
                            tool_run);
}

/* Starts the tools that may start; once all are over (or one failed and
 * the running ones are over), goes on with the turn. Reentrant calls,
 * from tools that finish at once, only count. */
static void
pump_tools (Turn *turn)
{
  Run *run = turn->run;

  if (turn->pumping || turn->tools_over)
    return;
  turn->pumping = TRUE;
  while (turn->error == NULL && turn->next_tool < turn->tool_runs->len &&
         (!turn->sequential || turn->tools_running == 0))
    start_tool (turn, turn->tool_runs->pdata[turn->next_tool++]);
  turn->pumping = FALSE;
  if (turn->tools_running > 0 ||
      (turn->error == NULL && turn->next_tool < turn->tool_runs->len))
    return;
  turn->tools_over = TRUE;
  if (turn->error != NULL)
    run_fail (run, g_steal_pointer (&turn->error));
  else
    tools_done (run, turn);
}

/* Function tools run in parallel, unless the model settings say
 * parallel_tool_calls = false; then one after the other. */
void
run_tools (Turn *turn)
{
  turn->sequential =
    turn->settings != NULL &&
    agents_model_settings_has_parallel_tool_calls (turn->settings) &&
    !agents_model_settings_get_parallel_tool_calls (turn->settings);
  pump_tools (turn);
}

/* The input of a custom tool offered as a function tool (to models that
 * have no freeform tools): the `input` member of the arguments, else the
 * arguments as they are. */
static char *
custom_input_of_arguments (const char *arguments)
{
  g_autoptr (JsonNode) node = NULL;
  const char *input = NULL;

  if (arguments == NULL)
    return g_strdup ("");
  node = agents_json_parse_bounded (arguments, -1, NULL, NULL);
  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
    input =
      agents_run_private_json_string (json_node_get_object (node), "input");
  return g_strdup (input ? input : arguments);
}

/* What the tool is invoked with: the whole call for local shell tools, the
 * raw input for custom tools, else the JSON arguments. */
static char *
call_arguments (AgentsTool *tool, JsonObject *call, gboolean is_custom_call)
{
  const char *arguments = agents_run_private_json_string (call, "arguments");

  if (AGENTS_IS_LOCAL_SHELL_TOOL (tool))
    {
      g_autoptr (JsonNode) node =
        json_node_init_object (json_node_alloc (), call);

      return json_to_string (node, FALSE);
    }
  if (is_custom_call)
    {
      const char *input = agents_run_private_json_string (call, "input");

      return g_strdup (input ? input : "");
    }
  if (AGENTS_IS_CUSTOM_TOOL (tool))
    return custom_input_of_arguments (arguments);
  return g_strdup (arguments ? arguments : "");
}

/* A tool call of the model: it runs, waits for approval, or is rejected. */
void
add_tool_call (Run *run, Turn *turn, AgentsTool *tool, JsonObject *call)
{
  ToolRun *tool_run = g_new0 (ToolRun, 1);
  const char *call_id = agents_run_private_json_string (call, "call_id");
  AgentsApprovalStatus status = AGENTS_APPROVAL_STATUS_APPROVED;

  tool_run->turn = turn;
  tool_run->tool = g_object_ref (tool);
  tool_run->call = json_object_ref (call);
  tool_run->call_id = g_strdup (call_id ? call_id : "");
  tool_run->is_local_shell = AGENTS_IS_LOCAL_SHELL_TOOL (tool);
  tool_run->is_custom_call =
    g_strcmp0 (agents_run_private_json_string (call, "type"),
               "custom_tool_call") == 0;
  tool_run->arguments = call_arguments (tool, call, tool_run->is_custom_call);

  if (agents_tool_call_needs_approval (tool, run->ctx, tool_run->arguments))
    status = agents_run_context_is_tool_approved (
      run->ctx, agents_tool_get_name (tool), tool_run->call_id);
  if (status == AGENTS_APPROVAL_STATUS_UNKNOWN)
    {
      g_ptr_array_add (turn->interruptions, agents_run_item_new_tool_approval (
                                              run->current_agent, call,
                                              agents_tool_get_name (tool)));
      tool_run_free (tool_run);
      return;
    }
  tool_run->rejected = status == AGENTS_APPROVAL_STATUS_REJECTED;
  g_ptr_array_add (turn->tool_runs, tool_run);
}
