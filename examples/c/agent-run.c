/* agent-run.c - a minimal agent run from C, offline
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * An agent with one function tool runs on the scripted model, which
 * answers from a script instead of the network: first a call of the
 * tool, then a final message. The runner calls the tool, feeds its output
 * back to the model and stops at the final message.
 *
 *   agent-run
 */

#include <agents.h>

/* The tool's body: the model gives its arguments as a JSON object. */
static char *
get_weather (AgentsRunContext *ctx,
             const char *arguments,
             gpointer user_data,
             GError **error)
{
  g_autoptr (JsonNode) args = json_from_string (arguments, error);

  if (args == NULL)
    return NULL;
  return g_strdup_printf ("Sunny in %s",
                          json_object_get_string_member_with_default (
                            json_node_get_object (args), "city", "?"));
}

/* Queues a model turn made of one item (taken). */
static void
add_turn (AgentsScriptedModel *model, JsonObject *item)
{
  g_autoptr (JsonArray) items = agents_testing_items (item, NULL);

  agents_scripted_model_set_next_output (model, items);
}

static void
on_run (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AgentsRunResult **out = user_data;
  GError *error = NULL;

  *out = agents_runner_run_finish (AGENTS_RUNNER (source), result, &error);
  if (*out == NULL)
    g_error ("run failed: %s", error->message);
}

int
main (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsAgent) agent = agents_agent_new ("assistant");
  g_autoptr (AgentsFunctionTool) tool =
    agents_function_tool_new ("get_weather", "Tells the weather in a city.",
                              NULL, get_weather, NULL, NULL);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (JsonNode) input =
    json_node_init_string (json_node_alloc (), "What is the weather in Paris?");
  g_autoptr (AgentsRunResult) result = NULL;
  g_autofree char *output = NULL;
  GListModel *items;

  /* What the model will answer, turn by turn: the items a real model
   * would send, in the OpenAI Responses shapes. */
  add_turn (model, agents_testing_function_tool_call (
                     "get_weather", "{\"city\": \"Paris\"}", "call_1"));
  add_turn (model,
            agents_testing_final_output_message ("It is sunny in Paris."));

  agents_agent_set_instructions (agent, "You answer questions.");
  agents_agent_set_model (agent, AGENTS_MODEL (model));
  agents_agent_add_tool (agent, AGENTS_TOOL (tool));

  agents_runner_run_async (runner, agent, input, NULL /* config */,
                           NULL /* session */, NULL /* context */, NULL, on_run,
                           &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);

  /* What happened, item by item. */
  items = agents_run_result_get_new_items (result);
  for (guint i = 0; i < g_list_model_get_n_items (items); i++)
    {
      g_autoptr (AgentsRunItem) item = g_list_model_get_item (items, i);
      g_autofree char *text = NULL;

      switch (agents_run_item_get_kind (item))
        {
        case AGENTS_RUN_ITEM_KIND_TOOL_CALL:
          g_print ("the model calls %s\n",
                   agents_run_item_get_tool_name (item));
          break;
        case AGENTS_RUN_ITEM_KIND_TOOL_CALL_OUTPUT:
          g_print ("the tool returns \"%s\"\n",
                   json_node_get_string (agents_run_item_get_output (item)));
          break;
        case AGENTS_RUN_ITEM_KIND_MESSAGE_OUTPUT:
          text = agents_run_item_get_text (item);
          g_print ("%s says \"%s\"\n",
                   agents_agent_get_name (agents_run_item_get_agent (item)),
                   text);
          break;
        default:
          break;
        }
    }
  output = agents_run_result_dup_final_output_text (result);
  g_print ("final output: %s\n", output);
  return 0;
}
