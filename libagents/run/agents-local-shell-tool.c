/* agents-local-shell-tool.c - the model's local shell, run by an executor
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-json-private.h"
#include "agents-run-error.h"
#include "agents-run-private.h"
#include "agents-tool.h"

/**
 * AgentsLocalShellTool:
 *
 * The reference's `LocalShellTool`: the model's `local_shell_call` items
 * run through an executor function, whose text becomes the
 * `local_shell_call_output`. The tool's name is `local_shell`.
 *
 * Its @arguments are the `action` object of the call (or the whole
 * `local_shell_call` item) as JSON text.
 */

struct _AgentsLocalShellTool
{
  AgentsTool parent_instance;

  AgentsLocalShellExecutor executor;
  gpointer user_data;
  GDestroyNotify destroy;
};

G_DEFINE_FINAL_TYPE (AgentsLocalShellTool,
                     agents_local_shell_tool,
                     AGENTS_TYPE_TOOL)

static void
agents_local_shell_tool_finalize (GObject *object)
{
  AgentsLocalShellTool *self = AGENTS_LOCAL_SHELL_TOOL (object);

  if (self->destroy != NULL)
    self->destroy (self->user_data);

  G_OBJECT_CLASS (agents_local_shell_tool_parent_class)->finalize (object);
}

static JsonObject *
local_shell_to_model_json (AgentsTool *tool)
{
  JsonObject *json = json_object_new ();

  json_object_set_string_member (json, "type", "local_shell");
  return json;
}

static JsonObject *
parse_action (const char *arguments, GError **error)
{
  g_autoptr (JsonNode) node =
    agents_json_parse_bounded (arguments, -1, "arguments", NULL);
  JsonObject *object;
  JsonNode *action;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      agents_run_error_set (error, AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
                            _ ("invalid local shell call: %s"), arguments);
      return NULL;
    }
  object = json_node_get_object (node);
  action = json_object_get_member (object, "action");
  if (g_strcmp0 (agents_run_private_json_string (object, "type"),
                 "local_shell_call") == 0)
    {
      if (action == NULL || !JSON_NODE_HOLDS_OBJECT (action))
        {
          agents_run_error_set (error, AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
                                _ ("local shell call without an action"));
          return NULL;
        }
      return json_object_ref (json_node_get_object (action));
    }
  return json_object_ref (object);
}

static void
agents_local_shell_tool_invoke (AgentsTool *tool,
                                AgentsRunContext *ctx,
                                const char *call_id,
                                const char *arguments,
                                GTask *task)
{
  AgentsLocalShellTool *self = AGENTS_LOCAL_SHELL_TOOL (tool);
  g_autoptr (JsonObject) action = NULL;
  g_autofree char *output = NULL;
  GError *error = NULL;

  action = parse_action (arguments, &error);
  if (action != NULL)
    output = self->executor (ctx, action, self->user_data, &error);
  if (error != NULL)
    g_task_return_error (task, error);
  else
    agents_tool_return_text (task, output ? output : "");
}

static void
agents_local_shell_tool_class_init (AgentsLocalShellToolClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  AgentsToolClass *tool_class = AGENTS_TOOL_CLASS (klass);

  object_class->finalize = agents_local_shell_tool_finalize;
  tool_class->invoke = agents_local_shell_tool_invoke;
  tool_class->to_model_json = local_shell_to_model_json;
}

static void
agents_local_shell_tool_init (AgentsLocalShellTool *self)
{
}

/**
 * agents_local_shell_tool_new:
 * @executor: (scope notified) (closure user_data) (destroy destroy): runs
 *   the commands
 * @user_data: data for @executor
 * @destroy: (nullable): frees @user_data when the tool is finalized
 *
 * Creates a local shell tool.
 *
 * Returns: (transfer full): the tool
 */
AgentsLocalShellTool *
agents_local_shell_tool_new (AgentsLocalShellExecutor executor,
                             gpointer user_data,
                             GDestroyNotify destroy)
{
  AgentsLocalShellTool *self;

  g_return_val_if_fail (executor != NULL, NULL);

  self =
    g_object_new (AGENTS_TYPE_LOCAL_SHELL_TOOL, "name", "local_shell", NULL);
  self->executor = executor;
  self->user_data = user_data;
  self->destroy = destroy;
  return self;
}
