/* agents-agent-as-tool.c - an agent run as a tool of another agent
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-agent-private.h"
#include "agents-json-private.h"
#include "agents-run-error.h"
#include "agents-run-private.h"

AgentsRunAgentAsToolFunc agents_run_private_run_agent_as_tool = NULL;

static GQuark
as_tool_quark (void)
{
  return g_quark_from_static_string ("agents-as-tool-agent");
}

AgentsAgent *
agents_run_private_tool_get_agent (AgentsTool *tool)
{
  g_return_val_if_fail (AGENTS_IS_TOOL (tool), NULL);
  return g_object_get_qdata (G_OBJECT (tool), as_tool_quark ());
}

/* The reference's transform_string_function_style(): spaces and other
 * characters than ASCII letters, digits and `_` become `_`; lower case. */
char *
agents_agent_function_style (const char *name)
{
  GString *out = g_string_new (NULL);

  for (const char *p = name; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (c < 128 && (g_ascii_isalnum (c) || c == '_'))
        g_string_append_c (out, g_ascii_tolower (c));
      else
        g_string_append_c (out, '_');
    }
  return g_string_free (out, FALSE);
}

static JsonObject *
as_tool_schema (void)
{
  JsonObject *schema = json_object_new ();
  JsonObject *props = json_object_new ();
  JsonObject *input = json_object_new ();
  JsonArray *required = json_array_new ();

  json_object_set_string_member (input, "type", "string");
  json_object_set_object_member (props, "input", input);
  json_array_add_string_element (required, "input");
  json_object_set_object_member (schema, "properties", props);
  json_object_set_array_member (schema, "required", required);
  json_object_set_string_member (schema, "type", "object");
  json_object_set_boolean_member (schema, "additionalProperties", FALSE);
  return schema;
}

static void
as_tool_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;
  g_autoptr (JsonNode) output =
    g_task_propagate_pointer (G_TASK (result), &error);
  g_autofree char *text = NULL;

  if (error != NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  text = agents_run_private_output_to_text (output);
  agents_tool_return_text (task, text);
}

static char *
as_tool_input (const char *arguments, GError **error)
{
  g_autoptr (JsonNode) node =
    agents_json_parse_bounded (arguments, -1, "arguments", NULL);
  const char *input = NULL;

  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
    input =
      agents_run_private_json_string (json_node_get_object (node), "input");
  if (input == NULL)
    {
      /* The model reads this message, as with the reference. */
      agents_run_error_set (error, AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
                            "Invalid JSON input for tool: %s", arguments);
      return NULL;
    }
  return g_strdup (input);
}

static void
as_tool_invoke (AgentsRunContext *ctx,
                const char *arguments,
                GTask *task,
                gpointer user_data)
{
  AgentsAgent *agent = user_data;
  GError *error = NULL;
  g_autofree char *input = as_tool_input (arguments, &error);
  GTask *inner;

  if (input == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  if (agents_run_private_run_agent_as_tool == NULL)
    {
      g_task_return_new_error (task, AGENTS_RUN_ERROR,
                               AGENTS_RUN_ERROR_USER_ERROR,
                               _ ("agents used as tools need a runner"));
      return;
    }
  inner = g_task_new (agent, g_task_get_cancellable (task), as_tool_done,
                      g_object_ref (task));
  g_task_set_source_tag (inner, as_tool_invoke);
  agents_run_private_run_agent_as_tool (agents_run_context_get_runner (ctx),
                                        agents_run_context_get_run_config (ctx),
                                        agent, ctx, input, inner);
  g_object_unref (inner);
}

/**
 * agents_agent_as_tool:
 * @self: an agent
 * @tool_name: (nullable): the tool's name; %NULL for the agent's name in
 *   function style (`My Agent` → `my_agent`)
 * @tool_description: (nullable): what the tool does
 *
 * Makes a tool that runs this agent: the model gives it an `input`
 * string, the agent runs on it through the runner of the current run
 * (same run config and hooks), and the sub-run's final output, as text,
 * is the tool's output.
 *
 * Returns: (transfer full): the tool
 */
AgentsTool *
agents_agent_as_tool (AgentsAgent *self,
                      const char *tool_name,
                      const char *tool_description)
{
  g_autofree char *default_name = NULL;
  g_autoptr (JsonObject) schema = as_tool_schema ();
  AgentsFunctionTool *tool;

  g_return_val_if_fail (AGENTS_IS_AGENT (self), NULL);

  if (tool_name == NULL)
    tool_name = default_name = agents_agent_function_style (
      agents_agent_get_name (self) ? agents_agent_get_name (self) : "");
  tool = agents_function_tool_new_async (
    tool_name, tool_description ? tool_description : "", schema, as_tool_invoke,
    g_object_ref (self), g_object_unref);
  g_object_set_qdata (G_OBJECT (tool), as_tool_quark (), self);
  return AGENTS_TOOL (tool);
}
