/* agents-testing.c - helpers for tests of agents
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-testing.h"

/**
 * agents_testing_final_output_message:
 * @text: the message text
 *
 * Makes an assistant message item, the reference's
 * `get_final_output_message()`: `{"id": "1", "type": "message", "role":
 * "assistant", "content": [{"type": "output_text", "text": TEXT,
 * "annotations": []}], "status": "completed"}`.
 *
 * Returns: (transfer full): the item
 */
JsonObject *
agents_testing_final_output_message (const char *text)
{
  JsonObject *item;
  JsonObject *part;
  JsonArray *content;

  g_return_val_if_fail (text != NULL, NULL);

  part = json_object_new ();
  json_object_set_string_member (part, "type", "output_text");
  json_object_set_string_member (part, "text", text);
  json_object_set_array_member (part, "annotations", json_array_new ());
  content = json_array_new ();
  json_array_add_object_element (content, part);

  item = json_object_new ();
  json_object_set_string_member (item, "id", "1");
  json_object_set_string_member (item, "type", "message");
  json_object_set_string_member (item, "role", "assistant");
  json_object_set_array_member (item, "content", content);
  json_object_set_string_member (item, "status", "completed");
  return item;
}

/**
 * agents_testing_function_tool_call:
 * @name: the tool's name
 * @arguments: (nullable): the arguments, JSON text; %NULL for `""`
 * @call_id: (nullable): the call id; %NULL for `"2"`
 *
 * Makes a function call item, the reference's `get_function_tool_call()`:
 * `{"id": "1", "call_id": CALL_ID, "type": "function_call", "name": NAME,
 * "arguments": ARGUMENTS}`.
 *
 * Returns: (transfer full): the item
 */
JsonObject *
agents_testing_function_tool_call (const char *name,
                                   const char *arguments,
                                   const char *call_id)
{
  JsonObject *item;

  g_return_val_if_fail (name != NULL, NULL);

  item = json_object_new ();
  json_object_set_string_member (item, "id", "1");
  json_object_set_string_member (item, "call_id", call_id ? call_id : "2");
  json_object_set_string_member (item, "type", "function_call");
  json_object_set_string_member (item, "name", name);
  json_object_set_string_member (item, "arguments", arguments ? arguments : "");
  return item;
}

/**
 * agents_testing_handoff_tool_call:
 * @to_agent: the agent to hand off to
 *
 * Makes a call of the default handoff tool of @to_agent
 * (`transfer_to_<name>`), with arguments `{}`.
 *
 * Returns: (transfer full): the item
 */
JsonObject *
agents_testing_handoff_tool_call (AgentsAgent *to_agent)
{
  g_autofree char *name = NULL;

  g_return_val_if_fail (AGENTS_IS_AGENT (to_agent), NULL);

  name = agents_handoff_default_tool_name (to_agent);
  return agents_testing_function_tool_call (name, "{}", NULL);
}

/**
 * agents_testing_reasoning_item:
 * @id: the item id
 * @summary: the summary text
 *
 * Makes a reasoning item: `{"id": ID, "type": "reasoning", "summary":
 * [{"type": "summary_text", "text": SUMMARY}]}`.
 *
 * Returns: (transfer full): the item
 */
JsonObject *
agents_testing_reasoning_item (const char *id, const char *summary)
{
  JsonObject *item;
  JsonObject *part;
  JsonArray *parts;

  g_return_val_if_fail (id != NULL, NULL);
  g_return_val_if_fail (summary != NULL, NULL);

  part = json_object_new ();
  json_object_set_string_member (part, "type", "summary_text");
  json_object_set_string_member (part, "text", summary);
  parts = json_array_new ();
  json_array_add_object_element (parts, part);

  item = json_object_new ();
  json_object_set_string_member (item, "id", id);
  json_object_set_string_member (item, "type", "reasoning");
  json_object_set_array_member (item, "summary", parts);
  return item;
}

static char *
return_value_func (AgentsRunContext *ctx,
                   const char *arguments,
                   gpointer user_data,
                   GError **error)
{
  return g_strdup (user_data);
}

/**
 * agents_testing_function_tool:
 * @name: the tool's name
 * @return_value: what every call returns
 *
 * Makes a function tool without parameters that returns @return_value,
 * the reference's `get_function_tool()`.
 *
 * Returns: (transfer full): the tool
 */
AgentsTool *
agents_testing_function_tool (const char *name, const char *return_value)
{
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (return_value != NULL, NULL);

  return AGENTS_TOOL (agents_function_tool_new (
    name, NULL, NULL, return_value_func, g_strdup (return_value), g_free));
}

/**
 * agents_testing_items: (skip)
 * @first: (transfer full): the first item
 * @...: (transfer full): more items, then %NULL
 *
 * Makes an array of items, taking them over.
 *
 * Returns: (transfer full): the array
 */
JsonArray *
agents_testing_items (JsonObject *first, ...)
{
  JsonArray *array = json_array_new ();
  va_list args;

  va_start (args, first);
  for (JsonObject *item = first; item != NULL;
       item = va_arg (args, JsonObject *))
    json_array_add_object_element (array, item);
  va_end (args);
  return array;
}
