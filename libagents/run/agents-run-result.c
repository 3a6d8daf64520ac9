/* agents-run-result.c - what a run produced
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-object-list-private.h"
#include "agents-run-private.h"
#include "agents-run-result.h"

/**
 * AgentsRunResult:
 *
 * What a run produced: its final output (%NULL when the run stopped on
 * interruptions, see #AgentsRunResult:interruptions), the items it
 * generated, the model's raw responses and the agent that produced the
 * final output. agents_run_result_to_input_list() gives the input of a
 * follow-up run; agents_run_result_to_state() a state to approve tool
 * calls in and resume with agents_runner_resume_async().
 */

struct _AgentsRunResult
{
  GObject parent_instance;

  AgentsRunContext *ctx;
  AgentsAgent *starting_agent;
  AgentsAgent *last_agent;
  JsonNode *input;
  JsonNode *final_output;
  AgentsObjectList *new_items;
  AgentsObjectList *raw_responses;
  AgentsObjectList *interruptions;
  guint current_turn;
  guint max_turns;
  AgentsToolUseTracker *tracker;
  GObject *sandbox_session;
  JsonObject *sandbox_resume_state;
  GError *sandbox_error;
};

G_DEFINE_FINAL_TYPE (AgentsRunResult, agents_run_result, G_TYPE_OBJECT)

enum
{
  RESULT_PROP_0,
  RESULT_PROP_FINAL_OUTPUT,
  RESULT_PROP_NEW_ITEMS,
  RESULT_PROP_RAW_RESPONSES,
  RESULT_PROP_INTERRUPTIONS,
  RESULT_PROP_INPUT,
  RESULT_PROP_LAST_AGENT,
  RESULT_PROP_CONTEXT,
  RESULT_N_PROPS
};

static GParamSpec *result_properties[RESULT_N_PROPS];

static void
agents_run_result_dispose (GObject *object)
{
  AgentsRunResult *self = AGENTS_RUN_RESULT (object);

  g_clear_object (&self->sandbox_session);

  G_OBJECT_CLASS (agents_run_result_parent_class)->dispose (object);
}

static void
agents_run_result_finalize (GObject *object)
{
  AgentsRunResult *self = AGENTS_RUN_RESULT (object);

  g_clear_object (&self->ctx);
  g_clear_object (&self->starting_agent);
  g_clear_object (&self->last_agent);
  g_clear_pointer (&self->input, json_node_unref);
  g_clear_pointer (&self->final_output, json_node_unref);
  g_clear_object (&self->new_items);
  g_clear_object (&self->raw_responses);
  g_clear_object (&self->interruptions);
  g_clear_pointer (&self->tracker, agents_tool_use_tracker_free);
  g_clear_pointer (&self->sandbox_resume_state, json_object_unref);
  g_clear_error (&self->sandbox_error);

  G_OBJECT_CLASS (agents_run_result_parent_class)->finalize (object);
}

static void
agents_run_result_get_property (GObject *object,
                                guint prop_id,
                                GValue *value,
                                GParamSpec *pspec)
{
  AgentsRunResult *self = AGENTS_RUN_RESULT (object);

  switch (prop_id)
    {
    case RESULT_PROP_FINAL_OUTPUT:
      g_value_set_boxed (value, self->final_output);
      break;
    case RESULT_PROP_NEW_ITEMS:
      g_value_set_object (value, self->new_items);
      break;
    case RESULT_PROP_RAW_RESPONSES:
      g_value_set_object (value, self->raw_responses);
      break;
    case RESULT_PROP_INTERRUPTIONS:
      g_value_set_object (value, self->interruptions);
      break;
    case RESULT_PROP_INPUT:
      g_value_set_boxed (value, self->input);
      break;
    case RESULT_PROP_LAST_AGENT:
      g_value_set_object (value, self->last_agent);
      break;
    case RESULT_PROP_CONTEXT:
      g_value_set_object (value, self->ctx);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_run_result_class_init (AgentsRunResultClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags =
    G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->dispose = agents_run_result_dispose;
  object_class->finalize = agents_run_result_finalize;
  object_class->get_property = agents_run_result_get_property;

  /**
   * AgentsRunResult:final-output:
   *
   * The final output: a string node for text, the parsed JSON for agents
   * with an output schema, %NULL while unknown or when the run stopped on
   * interruptions.
   */
  result_properties[RESULT_PROP_FINAL_OUTPUT] =
    g_param_spec_boxed ("final-output", NULL, NULL, JSON_TYPE_NODE, flags);
  /**
   * AgentsRunResult:new-items:
   *
   * The items the run generated, a list of #AgentsRunItem.
   */
  result_properties[RESULT_PROP_NEW_ITEMS] =
    g_param_spec_object ("new-items", NULL, NULL, G_TYPE_LIST_MODEL, flags);
  /**
   * AgentsRunResult:raw-responses:
   *
   * The model's responses, a list of #AgentsModelResponse.
   */
  result_properties[RESULT_PROP_RAW_RESPONSES] =
    g_param_spec_object ("raw-responses", NULL, NULL, G_TYPE_LIST_MODEL, flags);
  /**
   * AgentsRunResult:interruptions:
   *
   * The tool calls waiting for approval, a list of #AgentsRunItem of kind
   * %AGENTS_RUN_ITEM_KIND_TOOL_APPROVAL; empty unless the run stopped on
   * them.
   */
  result_properties[RESULT_PROP_INTERRUPTIONS] =
    g_param_spec_object ("interruptions", NULL, NULL, G_TYPE_LIST_MODEL, flags);
  /**
   * AgentsRunResult:input:
   *
   * The run's input (with a conversation session's history first): a
   * string or an array of input items.
   */
  result_properties[RESULT_PROP_INPUT] =
    g_param_spec_boxed ("input", NULL, NULL, JSON_TYPE_NODE, flags);
  /**
   * AgentsRunResult:last-agent:
   *
   * The current agent when the run ended, as the user built it.
   */
  result_properties[RESULT_PROP_LAST_AGENT] =
    g_param_spec_object ("last-agent", NULL, NULL, AGENTS_TYPE_AGENT, flags);
  /**
   * AgentsRunResult:context:
   *
   * The run context: usage and tool approvals.
   */
  result_properties[RESULT_PROP_CONTEXT] =
    g_param_spec_object ("context", NULL, NULL, AGENTS_TYPE_RUN_CONTEXT, flags);

  g_object_class_install_properties (object_class, RESULT_N_PROPS,
                                     result_properties);
}

static void
agents_run_result_init (AgentsRunResult *self)
{
  self->new_items = agents_object_list_new (AGENTS_TYPE_RUN_ITEM);
  self->raw_responses = agents_object_list_new (AGENTS_TYPE_MODEL_RESPONSE);
  self->interruptions = agents_object_list_new (AGENTS_TYPE_RUN_ITEM);
  self->tracker = agents_tool_use_tracker_new ();
  self->max_turns = 10;
}

AgentsRunResult *
agents_run_private_result_new (AgentsRunContext *ctx,
                               AgentsAgent *starting_agent)
{
  AgentsRunResult *self = g_object_new (AGENTS_TYPE_RUN_RESULT, NULL);

  self->ctx = g_object_ref (ctx);
  self->starting_agent = g_object_ref (starting_agent);
  self->last_agent = g_object_ref (starting_agent);
  return self;
}

static void
notify (AgentsRunResult *self, int prop)
{
  g_object_notify_by_pspec (G_OBJECT (self), result_properties[prop]);
}

void
agents_run_private_result_set_input (AgentsRunResult *self, JsonNode *input)
{
  g_clear_pointer (&self->input, json_node_unref);
  self->input = input ? json_node_copy (input) : NULL;
  notify (self, RESULT_PROP_INPUT);
}

void
agents_run_private_result_set_final_output (AgentsRunResult *self,
                                            JsonNode *output)
{
  g_clear_pointer (&self->final_output, json_node_unref);
  self->final_output = output ? json_node_copy (output) : NULL;
  notify (self, RESULT_PROP_FINAL_OUTPUT);
}

void
agents_run_private_result_set_last_agent (AgentsRunResult *self,
                                          AgentsAgent *agent)
{
  if (g_set_object (&self->last_agent, agent))
    notify (self, RESULT_PROP_LAST_AGENT);
}

void
agents_run_private_result_append_item (AgentsRunResult *self,
                                       AgentsRunItem *item)
{
  agents_object_list_append (self->new_items, item);
}

void
agents_run_private_result_set_items (AgentsRunResult *self, GPtrArray *items)
{
  agents_object_list_set (self->new_items, items);
}

static GPtrArray *
list_to_array (GListModel *list)
{
  guint n = g_list_model_get_n_items (list);
  GPtrArray *array = g_ptr_array_new_full (n, g_object_unref);

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (array, g_list_model_get_item (list, i));
  return array;
}

void
agents_run_private_result_append_response (AgentsRunResult *self,
                                           AgentsModelResponse *response)
{
  agents_object_list_append (self->raw_responses, response);
}

void
agents_run_private_result_set_interruptions (AgentsRunResult *self,
                                             GPtrArray *interruptions)
{
  agents_object_list_set (self->interruptions, interruptions);
}

void
agents_run_private_result_set_progress (AgentsRunResult *self,
                                        guint current_turn,
                                        guint max_turns,
                                        AgentsToolUseTracker *tracker)
{
  self->current_turn = current_turn;
  self->max_turns = max_turns;
  if (tracker == NULL)
    {
      g_clear_pointer (&self->tracker, agents_tool_use_tracker_free);
      self->tracker = agents_tool_use_tracker_new ();
    }
  else if (self->tracker != NULL)
    agents_tool_use_tracker_update (self->tracker, tracker); /* each turn */
  else
    self->tracker = agents_tool_use_tracker_copy (tracker);
}

void
agents_run_private_result_set_sandbox_session (AgentsRunResult *self,
                                               GObject *session)
{
  g_set_object (&self->sandbox_session, session);
}

GObject *
agents_run_private_result_get_sandbox_session (AgentsRunResult *self)
{
  return self->sandbox_session;
}

void
agents_run_private_result_set_sandbox_resume_state (AgentsRunResult *self,
                                                    JsonObject *payload)
{
  g_clear_pointer (&self->sandbox_resume_state, json_object_unref);
  self->sandbox_resume_state = payload ? json_object_ref (payload) : NULL;
}

JsonObject *
agents_run_private_result_get_sandbox_resume_state (AgentsRunResult *self)
{
  return self->sandbox_resume_state;
}

void
agents_run_private_result_set_sandbox_error (AgentsRunResult *self,
                                             const GError *error)
{
  g_clear_error (&self->sandbox_error);
  self->sandbox_error = error ? g_error_copy (error) : NULL;
}

/**
 * agents_run_result_get_sandbox_error:
 * @self: a run result
 *
 * Gets the error that closing the run's sandbox sessions ended with, if
 * it failed. The run's outcome stands (as in the reference), but its
 * state then carries no sandbox: the workspace was not saved (for
 * example %AGENTS_SANDBOX_ERROR_SNAPSHOT_PERSIST on a full disk), and
 * a program that saves the state to resume it later should say so
 * rather than save a state that resumes with an empty workspace.
 *
 * Returns: (transfer none) (nullable): the error, %NULL when the sessions
 *   closed cleanly or the run had none
 */
const GError *
agents_run_result_get_sandbox_error (AgentsRunResult *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_RESULT (self), NULL);
  return self->sandbox_error;
}

/**
 * agents_run_result_get_final_output:
 * @self: a run result
 *
 * Gets the final output: a string node for text, the parsed JSON for an
 * agent with an output schema.
 *
 * Returns: (transfer none) (nullable): the final output, %NULL when the
 *   run stopped on interruptions or was cancelled
 */
JsonNode *
agents_run_result_get_final_output (AgentsRunResult *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_RESULT (self), NULL);
  return self->final_output;
}

/**
 * agents_run_result_dup_final_output_text:
 * @self: a run result
 *
 * Gets the final output as text: strings as they are, other JSON as JSON
 * text.
 *
 * Returns: (transfer full) (nullable): the text, or %NULL without a final
 *   output
 */
char *
agents_run_result_dup_final_output_text (AgentsRunResult *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_RESULT (self), NULL);

  if (self->final_output == NULL)
    return NULL;
  return agents_run_private_output_to_text (self->final_output);
}

/**
 * agents_run_result_get_new_items:
 * @self: a run result
 *
 * Gets the items the run generated (for a resumed run, those of the runs
 * before it too).
 *
 * Returns: (transfer none): a list of #AgentsRunItem
 */
GListModel *
agents_run_result_get_new_items (AgentsRunResult *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_RESULT (self), NULL);
  return G_LIST_MODEL (self->new_items);
}

/**
 * agents_run_result_get_raw_responses:
 * @self: a run result
 *
 * Gets the model's responses.
 *
 * Returns: (transfer none): a list of #AgentsModelResponse
 */
GListModel *
agents_run_result_get_raw_responses (AgentsRunResult *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_RESULT (self), NULL);
  return G_LIST_MODEL (self->raw_responses);
}

/**
 * agents_run_result_get_interruptions:
 * @self: a run result
 *
 * Gets the tool calls the run stopped on, waiting for approval.
 *
 * Returns: (transfer none): a list of #AgentsRunItem
 */
GListModel *
agents_run_result_get_interruptions (AgentsRunResult *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_RESULT (self), NULL);
  return G_LIST_MODEL (self->interruptions);
}

/**
 * agents_run_result_get_input:
 * @self: a run result
 *
 * Gets the run's input, a conversation session's history first.
 *
 * Returns: (transfer none) (nullable): a string or an array of input items
 */
JsonNode *
agents_run_result_get_input (AgentsRunResult *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_RESULT (self), NULL);
  return self->input;
}

/**
 * agents_run_result_get_last_agent:
 * @self: a run result
 *
 * Gets the current agent when the run ended.
 *
 * Returns: (transfer none) (nullable): the agent, as the user built it
 */
AgentsAgent *
agents_run_result_get_last_agent (AgentsRunResult *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_RESULT (self), NULL);
  return self->last_agent;
}

/**
 * agents_run_result_get_context:
 * @self: a run result
 *
 * Gets the run context: usage, approvals and the user context.
 *
 * Returns: (transfer none): the run context
 */
AgentsRunContext *
agents_run_result_get_context (AgentsRunResult *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_RESULT (self), NULL);
  return self->ctx;
}

/* The reference's ItemHelpers.input_to_new_input_list(). */
static JsonArray *
input_to_list (JsonNode *input)
{
  JsonArray *list;
  JsonObject *message;

  if (input != NULL && JSON_NODE_HOLDS_ARRAY (input))
    return agents_run_private_json_array_copy (json_node_get_array (input));
  list = json_array_new ();
  if (input == NULL || !JSON_NODE_HOLDS_VALUE (input) ||
      json_node_get_value_type (input) != G_TYPE_STRING)
    return list;
  message = json_object_new ();
  json_object_set_string_member (message, "content",
                                 json_node_get_string (input));
  json_object_set_string_member (message, "role", "user");
  json_array_add_object_element (list, message);
  return list;
}

/**
 * agents_run_result_to_input_list:
 * @self: a run result
 *
 * Gets the input for a follow-up run: the run's input items, then its
 * new items as input items (tool approval requests left out).
 *
 * Returns: (transfer full): an array of input items
 */
JsonArray *
agents_run_result_to_input_list (AgentsRunResult *self)
{
  JsonArray *list;
  guint n;

  g_return_val_if_fail (AGENTS_IS_RUN_RESULT (self), NULL);

  list = input_to_list (self->input);
  n = g_list_model_get_n_items (G_LIST_MODEL (self->new_items));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (AgentsRunItem) item =
        g_list_model_get_item (G_LIST_MODEL (self->new_items), i);

      if (agents_run_item_get_kind (item) == AGENTS_RUN_ITEM_KIND_TOOL_APPROVAL)
        continue;
      json_array_add_object_element (list,
                                     agents_run_item_to_input_item (item));
    }
  return list;
}

/**
 * agents_run_result_to_state:
 * @self: a run result
 *
 * Makes a run state from the result: approve or reject its interruptions
 * there, save it with agents_run_state_to_json() if need be, and resume
 * the run with agents_runner_resume_async(). The state shares the run
 * context of the result.
 *
 * Returns: (transfer full): the run state
 */
AgentsRunState *
agents_run_result_to_state (AgentsRunResult *self)
{
  g_autoptr (GPtrArray) items = NULL;
  g_autoptr (GPtrArray) responses = NULL;
  g_autoptr (GPtrArray) interruptions = NULL;
  AgentsRunState *state;

  g_return_val_if_fail (AGENTS_IS_RUN_RESULT (self), NULL);

  state = agents_run_state_new (self->ctx, self->input, self->starting_agent);
  agents_run_state_set_current_agent (state, self->last_agent);
  agents_run_state_set_max_turns (state, self->max_turns);
  items = list_to_array (G_LIST_MODEL (self->new_items));
  responses = list_to_array (G_LIST_MODEL (self->raw_responses));
  interruptions = list_to_array (G_LIST_MODEL (self->interruptions));
  agents_run_private_state_set_progress (
    state, self->current_turn, items, responses, interruptions, self->tracker);
  if (self->sandbox_resume_state != NULL)
    {
      g_autoptr (JsonObject) copy =
        agents_run_private_json_object_copy (self->sandbox_resume_state);

      agents_run_state_set_sandbox (state, copy);
    }
  return state;
}
