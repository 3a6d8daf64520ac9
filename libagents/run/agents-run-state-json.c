/* agents-run-state-json.c - a run state saved as JSON and restored
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-json-private.h"
#include "agents-run-private.h"
#include "agents-run-state-private.h"

/* ---- Saving ------------------------------------------------------------ */

static const struct
{
  AgentsRunItemKind kind;
  const char *type;
} item_types[] = {
  { AGENTS_RUN_ITEM_KIND_MESSAGE_OUTPUT, "message_output_item" },
  { AGENTS_RUN_ITEM_KIND_TOOL_CALL, "tool_call_item" },
  { AGENTS_RUN_ITEM_KIND_TOOL_CALL_OUTPUT, "tool_call_output_item" },
  { AGENTS_RUN_ITEM_KIND_HANDOFF_CALL, "handoff_call_item" },
  { AGENTS_RUN_ITEM_KIND_HANDOFF_OUTPUT, "handoff_output_item" },
  { AGENTS_RUN_ITEM_KIND_REASONING, "reasoning_item" },
  { AGENTS_RUN_ITEM_KIND_TOOL_APPROVAL, "tool_approval_item" },
};

/* The identity map a state's agents are keyed by: the starting agent's
 * graph, extended with agents outside it (so nothing goes unnamed). */
static AgentsAgentIdentityMap *
state_identity_map (AgentsRunState *self)
{
  g_autoptr (GPtrArray) roots = g_ptr_array_new ();
  GListModel *items = G_LIST_MODEL (self->generated_items);

  g_ptr_array_add (roots, self->starting_agent);
  g_ptr_array_add (roots, self->current_agent);
  for (guint i = 0; i < g_list_model_get_n_items (items); i++)
    {
      g_autoptr (AgentsRunItem) item = g_list_model_get_item (items, i);

      if (agents_run_item_get_agent (item) != NULL)
        g_ptr_array_add (roots, agents_run_item_get_agent (item));
    }
  return agents_run_private_identity_map_new ((AgentsAgent **) roots->pdata,
                                              roots->len);
}

static JsonNode *
agent_ref (AgentsAgentIdentityMap *map, AgentsAgent *agent)
{
  JsonObject *ref;

  if (agent == NULL)
    return json_node_new (JSON_NODE_NULL);
  ref = json_object_new ();
  json_object_set_string_member (ref, "name",
                                 agents_run_private_agent_name (agent));
  json_object_set_string_member (
    ref, "key", agents_agent_identity_map_find_key (map, agent));
  {
    JsonNode *node = json_node_new (JSON_NODE_OBJECT);

    json_node_take_object (node, ref);
    return node;
  }
}

static JsonObject *
item_to_json (AgentsAgentIdentityMap *map, AgentsRunItem *item)
{
  JsonObject *json = json_object_new ();
  AgentsRunItemKind kind = agents_run_item_get_kind (item);

  for (guint i = 0; i < G_N_ELEMENTS (item_types); i++)
    if (item_types[i].kind == kind)
      json_object_set_string_member (json, "type", item_types[i].type);
  json_object_set_member (json, "agent",
                          agent_ref (map, agents_run_item_get_agent (item)));
  json_object_set_object_member (
    json, "raw_item",
    agents_run_private_json_object_copy (agents_run_item_get_raw_item (item)));
  if (kind == AGENTS_RUN_ITEM_KIND_TOOL_CALL_OUTPUT)
    json_object_set_member (
      json, "output",
      agents_run_item_get_output (item)
        ? json_node_copy (agents_run_item_get_output (item))
        : json_node_new (JSON_NODE_NULL));
  if (kind == AGENTS_RUN_ITEM_KIND_HANDOFF_OUTPUT)
    {
      json_object_set_member (
        json, "source_agent",
        agent_ref (map, agents_run_item_get_source_agent (item)));
      json_object_set_member (
        json, "target_agent",
        agent_ref (map, agents_run_item_get_target_agent (item)));
    }
  if (kind == AGENTS_RUN_ITEM_KIND_TOOL_APPROVAL &&
      agents_run_item_get_tool_name (item) != NULL)
    json_object_set_string_member (json, "tool_name",
                                   agents_run_item_get_tool_name (item));
  return json;
}

static JsonArray *
items_to_json (AgentsAgentIdentityMap *map, GListModel *items)
{
  JsonArray *array = json_array_new ();

  for (guint i = 0; i < g_list_model_get_n_items (items); i++)
    {
      g_autoptr (AgentsRunItem) item = g_list_model_get_item (items, i);

      json_array_add_object_element (array, item_to_json (map, item));
    }
  return array;
}

static JsonArray *
responses_to_json (GListModel *responses)
{
  JsonArray *array = json_array_new ();

  for (guint i = 0; i < g_list_model_get_n_items (responses); i++)
    {
      g_autoptr (AgentsModelResponse) response =
        g_list_model_get_item (responses, i);

      json_array_add_object_element (array,
                                     agents_model_response_to_json (response));
    }
  return array;
}

static JsonObject *
tracker_to_json (AgentsAgentIdentityMap *map, AgentsToolUseTracker *tracker)
{
  JsonObject *json = json_object_new ();
  g_autoptr (GPtrArray) agents = agents_tool_use_tracker_get_agents (tracker);

  for (guint i = 0; i < agents->len; i++)
    {
      g_auto (GStrv) names =
        agents_tool_use_tracker_dup_tools (tracker, agents->pdata[i]);
      JsonArray *array = json_array_new ();

      for (guint j = 0; names[j] != NULL; j++)
        json_array_add_string_element (array, names[j]);
      json_object_set_array_member (
        json, agents_agent_identity_map_find_key (map, agents->pdata[i]),
        array);
    }
  return json;
}

static JsonObject *
context_to_json (AgentsRunContext *ctx)
{
  JsonObject *json = json_object_new ();

  json_object_set_object_member (json, "usage",
                                 agents_run_context_get_usage (ctx));
  json_object_set_object_member (json, "approvals",
                                 agents_run_context_get_approvals (ctx));
  json_object_set_object_member (json, "context", json_object_new ());
  return json;
}

static JsonNode *
current_step_to_json (AgentsAgentIdentityMap *map, GListModel *interruptions)
{
  JsonObject *step, *data;

  if (g_list_model_get_n_items (interruptions) == 0)
    return json_node_new (JSON_NODE_NULL);
  step = json_object_new ();
  data = json_object_new ();
  json_object_set_string_member (step, "type", "next_step_interruption");
  json_object_set_array_member (data, "interruptions",
                                items_to_json (map, interruptions));
  json_object_set_object_member (step, "data", data);
  {
    JsonNode *node = json_node_new (JSON_NODE_OBJECT);

    json_node_take_object (node, step);
    return node;
  }
}

/**
 * agents_run_state_to_json:
 * @self: a run state
 *
 * Saves the state as a JSON document: `{"$schemaVersion", "current_turn",
 * "current_agent": {"name", "key"}, "original_input", "model_responses",
 * "generated_items", "tool_use_tracker", "context": {"usage",
 * "approvals", "context"}, "current_step", "max_turns", "sandbox"}`.
 * Agents are named by their identity keys (see
 * agents_run_state_build_agent_identity_map()); the user context object
 * is not saved.
 *
 * Returns: (transfer full): the JSON text
 */
char *
agents_run_state_to_json (AgentsRunState *self)
{
  g_autoptr (AgentsAgentIdentityMap) map = NULL;
  g_autoptr (JsonObject) json = json_object_new ();
  g_autoptr (JsonNode) root = NULL;

  g_return_val_if_fail (AGENTS_IS_RUN_STATE (self), NULL);

  map = state_identity_map (self);
  json_object_set_string_member (json, "$schemaVersion",
                                 AGENTS_RUN_STATE_SCHEMA_VERSION);
  json_object_set_int_member (json, "current_turn", self->current_turn);
  json_object_set_member (json, "current_agent",
                          agent_ref (map, self->current_agent));
  json_object_set_member (json, "original_input",
                          json_node_copy (self->original_input));
  json_object_set_array_member (
    json, "model_responses",
    responses_to_json (G_LIST_MODEL (self->model_responses)));
  json_object_set_array_member (
    json, "generated_items",
    items_to_json (map, G_LIST_MODEL (self->generated_items)));
  json_object_set_object_member (json, "tool_use_tracker",
                                 tracker_to_json (map, self->tracker));
  json_object_set_object_member (json, "context", context_to_json (self->ctx));
  json_object_set_member (
    json, "current_step",
    current_step_to_json (map, G_LIST_MODEL (self->interruptions)));
  json_object_set_int_member (json, "max_turns", self->max_turns);
  if (self->sandbox != NULL)
    json_object_set_object_member (
      json, "sandbox", agents_run_private_json_object_copy (self->sandbox));
  else
    json_object_set_null_member (json, "sandbox");

  root = json_node_init_object (json_node_alloc (), json);
  return json_to_string (root, FALSE);
}

/* ---- Restoring --------------------------------------------------------- */

static gboolean G_GNUC_PRINTF (2, 3)
  invalid (GError **error, const char *format, ...)
{
  va_list args;
  g_autofree char *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error_literal (error, AGENTS_RUN_ERROR,
                       AGENTS_RUN_ERROR_INVALID_RUN_STATE, message);
  if (error != NULL && *error != NULL)
    agents_run_error_set_context (
      *error, g_variant_new_parsed ("{'reason': <%s>}", message));
  return FALSE;
}

static JsonNode *
member (JsonObject *object, const char *name)
{
  return json_object_get_member (object, name);
}

static gboolean
holds_type (JsonNode *node, GType type)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
         json_node_get_value_type (node) == type;
}

static JsonObject *
require_object (JsonObject *object, const char *name, GError **error)
{
  JsonNode *node = member (object, name);

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      invalid (error, _ ("The run state’s “%s” is not an object"), name);
      return NULL;
    }
  return json_node_get_object (node);
}

static JsonArray *
require_array (JsonObject *object, const char *name, GError **error)
{
  JsonNode *node = member (object, name);

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    {
      invalid (error, _ ("The run state’s “%s” is not an array"), name);
      return NULL;
    }
  return json_node_get_array (node);
}

static gboolean
read_count (JsonObject *object, const char *name, guint *value, GError **error)
{
  JsonNode *node = member (object, name);

  if (!holds_type (node, G_TYPE_INT64) || json_node_get_int (node) < 0 ||
      json_node_get_int (node) > G_MAXINT32)
    return invalid (
      error, _ ("The run state’s “%s” is not a non-negative integer"), name);
  *value = json_node_get_int (node);
  return TRUE;
}

/* Resolves an agent reference {"name", "key"} against the new graph. */
static AgentsAgent *
resolve_agent (AgentsAgentIdentityMap *map,
               JsonNode *ref,
               const char *what,
               GError **error)
{
  JsonObject *object;
  const char *key;
  AgentsAgent *agent;

  if (ref == NULL || !JSON_NODE_HOLDS_OBJECT (ref))
    {
      invalid (error, _ ("The run state’s %s is not an agent reference"), what);
      return NULL;
    }
  object = json_node_get_object (ref);
  key = agents_run_private_json_string (object, "key");
  if (key == NULL)
    key = agents_run_private_json_string (object, "name");
  if (key == NULL)
    {
      invalid (error, _ ("The run state’s %s names no agent"), what);
      return NULL;
    }
  agent = agents_agent_identity_map_lookup (map, key);
  if (agent == NULL)
    invalid (error,
             _ ("Agent “%s” of the run state is not in the agent graph of "
                "the starting agent"),
             key);
  return agent;
}

static gboolean
kind_from_type (const char *type, AgentsRunItemKind *kind)
{
  for (guint i = 0; type != NULL && i < G_N_ELEMENTS (item_types); i++)
    if (g_str_equal (item_types[i].type, type))
      {
        *kind = item_types[i].kind;
        return TRUE;
      }
  return FALSE;
}

static AgentsRunItem *
item_from_json (AgentsAgentIdentityMap *map, JsonNode *node, GError **error)
{
  JsonObject *json, *raw;
  AgentsRunItemKind kind;
  AgentsAgent *agent, *source, *target;
  const char *type;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      invalid (error, _ ("A run item of the run state is not an object"));
      return NULL;
    }
  json = json_node_get_object (node);
  type = agents_run_private_json_string (json, "type");
  if (!kind_from_type (type, &kind))
    {
      invalid (error, _ ("Unknown run item type “%s” in the run state"),
               type ? type : "(none)");
      return NULL;
    }
  if ((raw = require_object (json, "raw_item", error)) == NULL ||
      (agent = resolve_agent (map, member (json, "agent"), "item agent",
                              error)) == NULL)
    return NULL;
  raw = agents_run_private_json_object_copy (raw);

  switch (kind)
    {
    case AGENTS_RUN_ITEM_KIND_TOOL_CALL_OUTPUT:
      {
        JsonNode *output = member (json, "output");
        AgentsRunItem *item = agents_run_item_new_tool_output (
          agent, raw, output && !JSON_NODE_HOLDS_NULL (output) ? output : NULL);

        json_object_unref (raw);
        return item;
      }
    case AGENTS_RUN_ITEM_KIND_HANDOFF_OUTPUT:
      source = resolve_agent (map, member (json, "source_agent"),
                              "handoff source agent", error);
      target = source ? resolve_agent (map, member (json, "target_agent"),
                                       "handoff target agent", error)
                      : NULL;
      if (target == NULL)
        {
          json_object_unref (raw);
          return NULL;
        }
      {
        AgentsRunItem *item =
          agents_run_item_new_handoff_output (agent, raw, source, target);

        json_object_unref (raw);
        return item;
      }
    case AGENTS_RUN_ITEM_KIND_TOOL_APPROVAL:
      {
        AgentsRunItem *item = agents_run_item_new_tool_approval (
          agent, raw, agents_run_private_json_string (json, "tool_name"));

        json_object_unref (raw);
        return item;
      }
    default:
      {
        AgentsRunItem *item = agents_run_item_new (kind, agent, raw);

        json_object_unref (raw);
        return item;
      }
    }
}

static GPtrArray *
items_from_json (AgentsAgentIdentityMap *map, JsonArray *array, GError **error)
{
  g_autoptr (GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      AgentsRunItem *item =
        item_from_json (map, json_array_get_element (array, i), error);

      if (item == NULL)
        return NULL;
      g_ptr_array_add (items, item);
    }
  return g_steal_pointer (&items);
}

static GPtrArray *
responses_from_json (JsonArray *array, GError **error)
{
  g_autoptr (GPtrArray) responses =
    g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *node = json_array_get_element (array, i);
      g_autoptr (GError) local_error = NULL;
      AgentsModelResponse *response = NULL;

      if (JSON_NODE_HOLDS_OBJECT (node))
        response = agents_model_response_new_from_json (
          json_node_get_object (node), &local_error);
      if (response == NULL)
        {
          invalid (error,
                   _ ("Model response %u of the run state is invalid: %s"), i,
                   local_error ? local_error->message : _ ("not an object"));
          return NULL;
        }
      g_ptr_array_add (responses, response);
    }
  return g_steal_pointer (&responses);
}

static AgentsToolUseTracker *
tracker_from_json (AgentsAgentIdentityMap *map,
                   JsonObject *json,
                   GError **error)
{
  g_autoptr (AgentsToolUseTracker) tracker = agents_tool_use_tracker_new ();
  JsonObjectIter iter;
  const char *key;
  JsonNode *value;

  json_object_iter_init (&iter, json);
  while (json_object_iter_next (&iter, &key, &value))
    {
      AgentsAgent *agent = agents_agent_identity_map_lookup (map, key);
      JsonArray *names;

      if (agent == NULL)
        {
          invalid (error,
                   _ ("Agent “%s” of the run state’s tool use tracker is not "
                      "in the agent graph of the starting agent"),
                   key);
          return NULL;
        }
      if (!JSON_NODE_HOLDS_ARRAY (value))
        {
          invalid (error, _ ("The tools used by “%s” are not an array"), key);
          return NULL;
        }
      names = json_node_get_array (value);
      for (guint i = 0; i < json_array_get_length (names); i++)
        {
          JsonNode *name = json_array_get_element (names, i);

          if (!holds_type (name, G_TYPE_STRING))
            {
              invalid (error, _ ("A tool used by “%s” is not a string"), key);
              return NULL;
            }
          agents_tool_use_tracker_add (tracker, agent,
                                       json_node_get_string (name));
        }
    }
  return g_steal_pointer (&tracker);
}

static gboolean
read_context (AgentsRunState *self, JsonObject *json, GError **error)
{
  JsonObject *context = require_object (json, "context", error);
  JsonNode *usage, *approvals;

  if (context == NULL)
    return FALSE;
  usage = member (context, "usage");
  if (usage != NULL && JSON_NODE_HOLDS_OBJECT (usage))
    agents_run_context_set_usage (self->ctx, json_node_get_object (usage));
  else if (usage != NULL && !JSON_NODE_HOLDS_NULL (usage))
    return invalid (error, _ ("The run state’s usage is not an object"));
  approvals = member (context, "approvals");
  if (approvals == NULL || JSON_NODE_HOLDS_NULL (approvals))
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (approvals))
    return invalid (error, _ ("The run state’s approvals are not an object"));
  return agents_run_context_set_approvals (
    self->ctx, json_node_get_object (approvals), error);
}

static GPtrArray *
read_interruptions (AgentsAgentIdentityMap *map,
                    JsonObject *json,
                    GError **error)
{
  JsonNode *node = member (json, "current_step");
  JsonObject *step, *data;
  JsonArray *array;
  g_autoptr (GPtrArray) items = NULL;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return g_ptr_array_new_with_free_func (g_object_unref);
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      invalid (error, _ ("The run state’s “%s” is not an object"),
               "current_step");
      return NULL;
    }
  step = json_node_get_object (node);
  if (g_strcmp0 (agents_run_private_json_string (step, "type"),
                 "next_step_interruption") != 0)
    {
      invalid (error, _ ("Unknown current step of the run state"));
      return NULL;
    }
  if ((data = require_object (step, "data", error)) == NULL ||
      (array = require_array (data, "interruptions", error)) == NULL)
    return NULL;
  items = items_from_json (map, array, error);
  for (guint i = 0; items != NULL && i < items->len; i++)
    if (agents_run_item_get_kind (items->pdata[i]) !=
        AGENTS_RUN_ITEM_KIND_TOOL_APPROVAL)
      {
        invalid (error,
                 _ ("An interruption of the run state is not a tool approval"));
        return NULL;
      }
  return g_steal_pointer (&items);
}

static gboolean
read_input (AgentsRunState *self, JsonObject *json, GError **error)
{
  JsonNode *input = member (json, "original_input");

  if (holds_type (input, G_TYPE_STRING))
    ;
  else if (input != NULL && JSON_NODE_HOLDS_ARRAY (input))
    {
      JsonArray *array = json_node_get_array (input);

      for (guint i = 0; i < json_array_get_length (array); i++)
        if (!JSON_NODE_HOLDS_OBJECT (json_array_get_element (array, i)))
          return invalid (error, _ ("An input item of the run state is not an "
                                    "object"));
    }
  else
    return invalid (error,
                    _ ("The run state’s original input is neither a string "
                       "nor an array"));
  g_clear_pointer (&self->original_input, json_node_unref);
  self->original_input = json_node_copy (input);
  return TRUE;
}

static gboolean
check_schema_version (JsonObject *json, GError **error)
{
  JsonNode *version = member (json, "$schemaVersion");

  if (version == NULL)
    return invalid (error, _ ("The run state has no $schemaVersion"));
  if (!holds_type (version, G_TYPE_STRING))
    return invalid (error,
                    _ ("The run state’s $schemaVersion is not a string"));
  if (!g_str_equal (json_node_get_string (version),
                    AGENTS_RUN_STATE_SCHEMA_VERSION))
    return invalid (error,
                    _ ("Unsupported run state schema version “%s” (supported: "
                       "%s)"),
                    json_node_get_string (version),
                    AGENTS_RUN_STATE_SCHEMA_VERSION);
  return TRUE;
}

static gboolean
read_sandbox (AgentsRunState *self, JsonObject *json, GError **error)
{
  JsonNode *sandbox = member (json, "sandbox");

  if (sandbox == NULL || JSON_NODE_HOLDS_NULL (sandbox))
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (sandbox))
    return invalid (error, _ ("The run state’s “%s” is not an object"),
                    "sandbox");
  self->sandbox =
    agents_run_private_json_object_copy (json_node_get_object (sandbox));
  return TRUE;
}

static gboolean
read_state (AgentsRunState *self, JsonObject *json, GError **error)
{
  g_autoptr (AgentsAgentIdentityMap) map =
    agents_run_state_build_agent_identity_map (self->starting_agent);
  g_autoptr (GPtrArray) items = NULL;
  g_autoptr (GPtrArray) responses = NULL;
  g_autoptr (GPtrArray) interruptions = NULL;
  g_autoptr (AgentsToolUseTracker) tracker = NULL;
  JsonArray *array;
  JsonObject *object;
  AgentsAgent *current;
  guint turn, max_turns;

  if (!check_schema_version (json, error) ||
      !read_count (json, "current_turn", &turn, error) ||
      !read_count (json, "max_turns", &max_turns, error))
    return FALSE;
  if (max_turns == 0)
    return invalid (error, _ ("The run state’s max_turns is 0"));
  if ((current = resolve_agent (map, member (json, "current_agent"),
                                "current agent", error)) == NULL ||
      !read_input (self, json, error) ||
      (array = require_array (json, "model_responses", error)) == NULL ||
      (responses = responses_from_json (array, error)) == NULL ||
      (array = require_array (json, "generated_items", error)) == NULL ||
      (items = items_from_json (map, array, error)) == NULL ||
      (object = require_object (json, "tool_use_tracker", error)) == NULL ||
      (tracker = tracker_from_json (map, object, error)) == NULL ||
      !read_context (self, json, error) ||
      (interruptions = read_interruptions (map, json, error)) == NULL ||
      !read_sandbox (self, json, error))
    return FALSE;

  g_set_object (&self->current_agent, current);
  self->max_turns = max_turns;
  agents_run_private_state_set_progress (self, turn, items, responses,
                                         interruptions, tracker);
  return TRUE;
}

/**
 * agents_run_state_new_from_json:
 * @starting_agent: the agent the run started with, in an agent graph
 *   built like the one of the saved run
 * @json: a document made by agents_run_state_to_json()
 * @error: return location for a #GError
 *
 * Restores a run state. The saved agents are found in the graph of
 * @starting_agent by their identity keys, so the restored items, current
 * agent and tool use refer to the agents of that graph. A malformed or
 * hostile document, an unknown `$schemaVersion`, or one naming agents
 * that the graph lacks fails with %AGENTS_RUN_ERROR_INVALID_RUN_STATE,
 * whose message tells what is wrong.
 *
 * Returns: (transfer full): the state, or %NULL on error
 */
AgentsRunState *
agents_run_state_new_from_json (AgentsAgent *starting_agent,
                                const char *json,
                                GError **error)
{
  g_autoptr (AgentsRunState) self = NULL;
  g_autoptr (GError) parse_error = NULL;
  g_autoptr (JsonNode) root = NULL;

  g_return_val_if_fail (AGENTS_IS_AGENT (starting_agent), NULL);
  g_return_val_if_fail (json != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* Bounded in depth and size: a hostile state cannot make the parser
   * recurse. */
  root = agents_json_parse_bounded (json, -1, _ ("run state"), &parse_error);
  if (root == NULL)
    {
      invalid (error, "%s", parse_error->message);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      invalid (error, _ ("The run state is not a JSON object"));
      return NULL;
    }

  self = agents_run_state_new (NULL, NULL, starting_agent);
  if (!read_state (self, json_node_get_object (root), error))
    return NULL;
  return g_steal_pointer (&self);
}
