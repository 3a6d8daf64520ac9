/* agents-run-result.c - what a run produced, and streamed runs
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-enums.h"
#include "agents-run-private.h"
#include "agents-run-result.h"

/* ---- AgentsStreamEvent ------------------------------------------------- */

/**
 * AgentsStreamEvent:
 *
 * One event of a streamed run (#AgentsRunResultStreaming):
 *
 * - %AGENTS_STREAM_EVENT_KIND_RAW_RESPONSE: #AgentsStreamEvent:raw-event
 *   is an event of the model's response stream (`response.created`,
 *   `response.output_text.delta`, …);
 * - %AGENTS_STREAM_EVENT_KIND_RUN_ITEM: the run produced
 *   #AgentsStreamEvent:item; #AgentsStreamEvent:name is one of
 *   `message_output_created`, `tool_called`, `tool_output`,
 *   `reasoning_item_created`, `handoff_requested`, `handoff_occured` (the
 *   reference's spelling) or `tool_approval_requested`;
 * - %AGENTS_STREAM_EVENT_KIND_AGENT_UPDATED: #AgentsStreamEvent:agent
 *   became the current agent.
 *
 * Agents are always the ones the user built.
 */

struct _AgentsStreamEvent
{
  GObject parent_instance;

  AgentsStreamEventKind kind;
  char *name;
  AgentsRunItem *item;
  JsonObject *raw_event;
  AgentsAgent *agent;
};

G_DEFINE_FINAL_TYPE (AgentsStreamEvent, agents_stream_event, G_TYPE_OBJECT)

enum
{
  EVENT_PROP_0,
  EVENT_PROP_KIND,
  EVENT_PROP_NAME,
  EVENT_PROP_ITEM,
  EVENT_PROP_RAW_EVENT,
  EVENT_PROP_AGENT,
  EVENT_N_PROPS
};

static GParamSpec *event_properties[EVENT_N_PROPS];

static void
agents_stream_event_finalize (GObject *object)
{
  AgentsStreamEvent *self = AGENTS_STREAM_EVENT (object);

  g_free (self->name);
  g_clear_object (&self->item);
  g_clear_pointer (&self->raw_event, json_object_unref);
  g_clear_object (&self->agent);

  G_OBJECT_CLASS (agents_stream_event_parent_class)->finalize (object);
}

static void
agents_stream_event_get_property (GObject *object,
                                  guint prop_id,
                                  GValue *value,
                                  GParamSpec *pspec)
{
  AgentsStreamEvent *self = AGENTS_STREAM_EVENT (object);

  switch (prop_id)
    {
    case EVENT_PROP_KIND:
      g_value_set_enum (value, self->kind);
      break;
    case EVENT_PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case EVENT_PROP_ITEM:
      g_value_set_object (value, self->item);
      break;
    case EVENT_PROP_RAW_EVENT:
      g_value_set_boxed (value, self->raw_event);
      break;
    case EVENT_PROP_AGENT:
      g_value_set_object (value, self->agent);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_stream_event_class_init (AgentsStreamEventClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = agents_stream_event_finalize;
  object_class->get_property = agents_stream_event_get_property;

  /**
   * AgentsStreamEvent:kind:
   *
   * What the event is about.
   */
  event_properties[EVENT_PROP_KIND] =
    g_param_spec_enum ("kind", NULL, NULL, AGENTS_TYPE_STREAM_EVENT_KIND,
                       AGENTS_STREAM_EVENT_KIND_RAW_RESPONSE, flags);
  /**
   * AgentsStreamEvent:name:
   *
   * For run item events, what happened: `message_output_created`,
   * `tool_called`, `tool_output`, `reasoning_item_created`,
   * `handoff_requested`, `handoff_occured` or `tool_approval_requested`.
   */
  event_properties[EVENT_PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL, NULL, flags);
  /**
   * AgentsStreamEvent:item:
   *
   * For run item events, the item.
   */
  event_properties[EVENT_PROP_ITEM] =
    g_param_spec_object ("item", NULL, NULL, AGENTS_TYPE_RUN_ITEM, flags);
  /**
   * AgentsStreamEvent:raw-event:
   *
   * For raw response events, the model's streaming event.
   */
  event_properties[EVENT_PROP_RAW_EVENT] =
    g_param_spec_boxed ("raw-event", NULL, NULL, JSON_TYPE_OBJECT, flags);
  /**
   * AgentsStreamEvent:agent:
   *
   * The current agent of the run (the new one, for agent updated events).
   */
  event_properties[EVENT_PROP_AGENT] =
    g_param_spec_object ("agent", NULL, NULL, AGENTS_TYPE_AGENT, flags);

  g_object_class_install_properties (object_class, EVENT_N_PROPS,
                                     event_properties);
}

static void
agents_stream_event_init (AgentsStreamEvent *self)
{
}

AgentsStreamEvent *
agents_run_private_stream_event_new (AgentsStreamEventKind kind,
                                     const char *name,
                                     AgentsRunItem *item,
                                     JsonObject *raw_event,
                                     AgentsAgent *agent)
{
  AgentsStreamEvent *self = g_object_new (AGENTS_TYPE_STREAM_EVENT, NULL);

  self->kind = kind;
  self->name = g_strdup (name);
  self->item = item ? g_object_ref (item) : NULL;
  self->raw_event = raw_event ? json_object_ref (raw_event) : NULL;
  self->agent = agent ? g_object_ref (agent) : NULL;
  return self;
}

/**
 * agents_stream_event_get_kind:
 * @self: a stream event
 *
 * Gets what the event is about.
 *
 * Returns: the kind
 */
AgentsStreamEventKind
agents_stream_event_get_kind (AgentsStreamEvent *self)
{
  g_return_val_if_fail (AGENTS_IS_STREAM_EVENT (self), 0);
  return self->kind;
}

/**
 * agents_stream_event_get_name:
 * @self: a stream event
 *
 * Gets the name of a run item event, e.g. `tool_called`.
 *
 * Returns: (nullable): the name, %NULL for other kinds
 */
const char *
agents_stream_event_get_name (AgentsStreamEvent *self)
{
  g_return_val_if_fail (AGENTS_IS_STREAM_EVENT (self), NULL);
  return self->name;
}

/**
 * agents_stream_event_get_item:
 * @self: a stream event
 *
 * Gets the item of a run item event.
 *
 * Returns: (transfer none) (nullable): the item
 */
AgentsRunItem *
agents_stream_event_get_item (AgentsStreamEvent *self)
{
  g_return_val_if_fail (AGENTS_IS_STREAM_EVENT (self), NULL);
  return self->item;
}

/**
 * agents_stream_event_get_raw_event:
 * @self: a stream event
 *
 * Gets the model's event of a raw response event.
 *
 * Returns: (transfer none) (nullable): the raw event
 */
JsonObject *
agents_stream_event_get_raw_event (AgentsStreamEvent *self)
{
  g_return_val_if_fail (AGENTS_IS_STREAM_EVENT (self), NULL);
  return self->raw_event;
}

/**
 * agents_stream_event_get_agent:
 * @self: a stream event
 *
 * Gets the current agent of the run when the event happened.
 *
 * Returns: (transfer none) (nullable): the agent
 */
AgentsAgent *
agents_stream_event_get_agent (AgentsStreamEvent *self)
{
  g_return_val_if_fail (AGENTS_IS_STREAM_EVENT (self), NULL);
  return self->agent;
}

/* ---- AgentsRunResult --------------------------------------------------- */

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
  GListStore *new_items;
  GListStore *raw_responses;
  GListStore *interruptions;
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
  self->new_items = g_list_store_new (AGENTS_TYPE_RUN_ITEM);
  self->raw_responses = g_list_store_new (AGENTS_TYPE_MODEL_RESPONSE);
  self->interruptions = g_list_store_new (AGENTS_TYPE_RUN_ITEM);
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
  g_list_store_append (self->new_items, item);
}

void
agents_run_private_result_set_items (AgentsRunResult *self, GPtrArray *items)
{
  g_list_store_splice (
    self->new_items, 0,
    g_list_model_get_n_items (G_LIST_MODEL (self->new_items)), items->pdata,
    items->len);
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
  g_list_store_append (self->raw_responses, response);
}

void
agents_run_private_result_set_interruptions (AgentsRunResult *self,
                                             GPtrArray *interruptions)
{
  g_list_store_remove_all (self->interruptions);
  for (guint i = 0; interruptions != NULL && i < interruptions->len; i++)
    g_list_store_append (self->interruptions, interruptions->pdata[i]);
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

/* ---- AgentsRunResultStreaming ------------------------------------------ */

/**
 * AgentsRunResultStreaming:
 *
 * A run in progress, from agents_runner_run_streamed(). Its accessors
 * give what the run produced so far; events come as the
 * #AgentsRunResultStreaming::event signal and, for bindings that prefer
 * pulling, through agents_run_result_streaming_next_event_async(), which
 * returns %NULL once the stream is over.
 *
 * The run starts from the thread-default main context once control
 * returns to it, so handlers connected right after
 * agents_runner_run_streamed() see every event.
 * agents_run_result_streaming_wait_async() completes when the run is
 * over, after all its post-run work. A failed run's error is given by
 * the last next_event_async() and by wait_async().
 */

typedef struct
{
  GTask *task;
  GCancellable *cancellable;
  gulong handler;
} Waiter;

struct _AgentsRunResultStreaming
{
  GObject parent_instance;

  AgentsRunResult *result;
  AgentsAgent *current_agent;
  GQueue events;
  GQueue event_waiters; /* Waiter */
  GQueue run_waiters;   /* Waiter */
  gboolean stream_done;
  GError *stream_error; /* given once, to the last next_event */
  gboolean run_done;
  GError *run_error;

  AgentsRunCancelFunc cancel_func;
  gpointer cancel_data;
  GDestroyNotify cancel_destroy;
};

G_DEFINE_FINAL_TYPE (AgentsRunResultStreaming,
                     agents_run_result_streaming,
                     G_TYPE_OBJECT)

enum
{
  STREAMING_PROP_0,
  STREAMING_PROP_RESULT,
  STREAMING_PROP_CURRENT_AGENT,
  STREAMING_PROP_IS_COMPLETE,
  STREAMING_N_PROPS
};

static GParamSpec *streaming_properties[STREAMING_N_PROPS];

enum
{
  SIGNAL_EVENT,
  N_SIGNALS
};

static guint streaming_signals[N_SIGNALS];

static void
waiter_free (Waiter *waiter)
{
  if (waiter->handler != 0)
    g_cancellable_disconnect (waiter->cancellable, waiter->handler);
  g_clear_object (&waiter->cancellable);
  g_clear_object (&waiter->task);
  g_free (waiter);
}

static void
clear_cancel_func (AgentsRunResultStreaming *self)
{
  if (self->cancel_destroy != NULL)
    self->cancel_destroy (self->cancel_data);
  self->cancel_func = NULL;
  self->cancel_data = NULL;
  self->cancel_destroy = NULL;
}

static void
agents_run_result_streaming_dispose (GObject *object)
{
  AgentsRunResultStreaming *self = AGENTS_RUN_RESULT_STREAMING (object);

  clear_cancel_func (self);

  G_OBJECT_CLASS (agents_run_result_streaming_parent_class)->dispose (object);
}

static void
agents_run_result_streaming_finalize (GObject *object)
{
  AgentsRunResultStreaming *self = AGENTS_RUN_RESULT_STREAMING (object);

  /* Waiters hold references to self: none is left by now. */
  g_queue_clear_full (&self->events, g_object_unref);
  g_clear_object (&self->result);
  g_clear_object (&self->current_agent);
  g_clear_error (&self->stream_error);
  g_clear_error (&self->run_error);

  G_OBJECT_CLASS (agents_run_result_streaming_parent_class)->finalize (object);
}

static void
agents_run_result_streaming_get_property (GObject *object,
                                          guint prop_id,
                                          GValue *value,
                                          GParamSpec *pspec)
{
  AgentsRunResultStreaming *self = AGENTS_RUN_RESULT_STREAMING (object);

  switch (prop_id)
    {
    case STREAMING_PROP_RESULT:
      g_value_set_object (value, self->result);
      break;
    case STREAMING_PROP_CURRENT_AGENT:
      g_value_set_object (value, self->current_agent);
      break;
    case STREAMING_PROP_IS_COMPLETE:
      g_value_set_boolean (value, self->stream_done);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_run_result_streaming_class_init (AgentsRunResultStreamingClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags =
    G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->dispose = agents_run_result_streaming_dispose;
  object_class->finalize = agents_run_result_streaming_finalize;
  object_class->get_property = agents_run_result_streaming_get_property;

  /**
   * AgentsRunResultStreaming:result:
   *
   * The result, filled as the run progresses.
   */
  streaming_properties[STREAMING_PROP_RESULT] =
    g_param_spec_object ("result", NULL, NULL, AGENTS_TYPE_RUN_RESULT, flags);
  /**
   * AgentsRunResultStreaming:current-agent:
   *
   * The current agent of the run, as the user built it.
   */
  streaming_properties[STREAMING_PROP_CURRENT_AGENT] =
    g_param_spec_object ("current-agent", NULL, NULL, AGENTS_TYPE_AGENT, flags);
  /**
   * AgentsRunResultStreaming:is-complete:
   *
   * Whether the stream is over: the run ended or was cancelled.
   */
  streaming_properties[STREAMING_PROP_IS_COMPLETE] =
    g_param_spec_boolean ("is-complete", NULL, NULL, FALSE, flags);

  g_object_class_install_properties (object_class, STREAMING_N_PROPS,
                                     streaming_properties);

  /**
   * AgentsRunResultStreaming::event:
   * @self: the streamed run
   * @event: the event
   *
   * The run produced an event. Handlers run on the run's main context,
   * in the order of the events.
   */
  streaming_signals[SIGNAL_EVENT] =
    g_signal_new ("event", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1, AGENTS_TYPE_STREAM_EVENT);
}

static void
agents_run_result_streaming_init (AgentsRunResultStreaming *self)
{
  g_queue_init (&self->events);
  g_queue_init (&self->event_waiters);
  g_queue_init (&self->run_waiters);
}

AgentsRunResultStreaming *
agents_run_private_streaming_new (AgentsRunResult *result)
{
  AgentsRunResultStreaming *self =
    g_object_new (AGENTS_TYPE_RUN_RESULT_STREAMING, NULL);

  self->result = g_object_ref (result);
  self->current_agent =
    g_object_ref (agents_run_result_get_last_agent (result));
  return self;
}

static void
give_next_event (AgentsRunResultStreaming *self, GTask *task)
{
  if (!g_queue_is_empty (&self->events))
    g_task_return_pointer (task, g_queue_pop_head (&self->events),
                           g_object_unref);
  else if (self->stream_error != NULL)
    {
      g_task_return_error (task, self->stream_error);
      self->stream_error = NULL;
    }
  else
    g_task_return_pointer (task, NULL, NULL);
}

static void
serve_event_waiters (AgentsRunResultStreaming *self)
{
  while (!g_queue_is_empty (&self->event_waiters) &&
         (!g_queue_is_empty (&self->events) || self->stream_done))
    {
      Waiter *waiter = g_queue_pop_head (&self->event_waiters);

      give_next_event (self, waiter->task);
      waiter_free (waiter);
    }
}

void
agents_run_private_streaming_push (AgentsRunResultStreaming *self,
                                   AgentsStreamEvent *event)
{
  g_autoptr (AgentsRunResultStreaming) keep = g_object_ref (self);

  if (self->stream_done)
    return;
  g_signal_emit (self, streaming_signals[SIGNAL_EVENT], 0, event);
  if (self->stream_done)
    return;
  g_queue_push_tail (&self->events, g_object_ref (event));
  serve_event_waiters (self);
}

void
agents_run_private_streaming_set_current_agent (AgentsRunResultStreaming *self,
                                                AgentsAgent *agent)
{
  if (g_set_object (&self->current_agent, agent))
    g_object_notify_by_pspec (
      G_OBJECT (self), streaming_properties[STREAMING_PROP_CURRENT_AGENT]);
}

void
agents_run_private_streaming_finish_stream (AgentsRunResultStreaming *self,
                                            const GError *error)
{
  g_autoptr (AgentsRunResultStreaming) keep = g_object_ref (self);

  if (self->stream_done)
    return;
  self->stream_done = TRUE;
  if (error != NULL)
    self->stream_error = g_error_copy (error);
  g_object_notify_by_pspec (G_OBJECT (self),
                            streaming_properties[STREAMING_PROP_IS_COMPLETE]);
  serve_event_waiters (self);
}

void
agents_run_private_streaming_finish_run (AgentsRunResultStreaming *self,
                                         const GError *error)
{
  g_autoptr (AgentsRunResultStreaming) keep = g_object_ref (self);

  if (self->run_done)
    return;
  self->run_done = TRUE;
  if (error != NULL)
    self->run_error = g_error_copy (error);
  clear_cancel_func (self);
  while (!g_queue_is_empty (&self->run_waiters))
    {
      Waiter *waiter = g_queue_pop_head (&self->run_waiters);

      if (self->run_error != NULL)
        g_task_return_error (waiter->task, g_error_copy (self->run_error));
      else
        g_task_return_boolean (waiter->task, TRUE);
      waiter_free (waiter);
    }
}

void
agents_run_private_streaming_set_cancel_func (AgentsRunResultStreaming *self,
                                              AgentsRunCancelFunc func,
                                              gpointer data,
                                              GDestroyNotify destroy)
{
  clear_cancel_func (self);
  self->cancel_func = func;
  self->cancel_data = data;
  self->cancel_destroy = destroy;
}

/**
 * agents_run_result_streaming_get_result:
 * @self: a streamed run
 *
 * Gets the result, filled as the run progresses.
 *
 * Returns: (transfer none): the result
 */
AgentsRunResult *
agents_run_result_streaming_get_result (AgentsRunResultStreaming *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_RESULT_STREAMING (self), NULL);
  return self->result;
}

/**
 * agents_run_result_streaming_get_final_output:
 * @self: a streamed run
 *
 * Gets the final output, see agents_run_result_get_final_output().
 *
 * Returns: (transfer none) (nullable): the final output, %NULL until the
 *   run produced it
 */
JsonNode *
agents_run_result_streaming_get_final_output (AgentsRunResultStreaming *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_RESULT_STREAMING (self), NULL);
  return agents_run_result_get_final_output (self->result);
}

/**
 * agents_run_result_streaming_get_new_items:
 * @self: a streamed run
 *
 * Gets the items generated so far.
 *
 * Returns: (transfer none): a list of #AgentsRunItem
 */
GListModel *
agents_run_result_streaming_get_new_items (AgentsRunResultStreaming *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_RESULT_STREAMING (self), NULL);
  return agents_run_result_get_new_items (self->result);
}

/**
 * agents_run_result_streaming_get_raw_responses:
 * @self: a streamed run
 *
 * Gets the model's responses so far.
 *
 * Returns: (transfer none): a list of #AgentsModelResponse
 */
GListModel *
agents_run_result_streaming_get_raw_responses (AgentsRunResultStreaming *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_RESULT_STREAMING (self), NULL);
  return agents_run_result_get_raw_responses (self->result);
}

/**
 * agents_run_result_streaming_get_interruptions:
 * @self: a streamed run
 *
 * Gets the tool calls the run stopped on, waiting for approval.
 *
 * Returns: (transfer none): a list of #AgentsRunItem
 */
GListModel *
agents_run_result_streaming_get_interruptions (AgentsRunResultStreaming *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_RESULT_STREAMING (self), NULL);
  return agents_run_result_get_interruptions (self->result);
}

/**
 * agents_run_result_streaming_get_current_agent:
 * @self: a streamed run
 *
 * Gets the current agent of the run.
 *
 * Returns: (transfer none) (nullable): the agent, as the user built it
 */
AgentsAgent *
agents_run_result_streaming_get_current_agent (AgentsRunResultStreaming *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_RESULT_STREAMING (self), NULL);
  return self->current_agent;
}

/**
 * agents_run_result_streaming_get_is_complete:
 * @self: a streamed run
 *
 * Gets whether the stream is over.
 *
 * Returns: %TRUE once the run ended or was cancelled
 */
gboolean
agents_run_result_streaming_get_is_complete (AgentsRunResultStreaming *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_RESULT_STREAMING (self), FALSE);
  return self->stream_done;
}

/**
 * agents_run_result_streaming_to_input_list:
 * @self: a streamed run
 *
 * See agents_run_result_to_input_list().
 *
 * Returns: (transfer full): an array of input items
 */
JsonArray *
agents_run_result_streaming_to_input_list (AgentsRunResultStreaming *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_RESULT_STREAMING (self), NULL);
  return agents_run_result_to_input_list (self->result);
}

/**
 * agents_run_result_streaming_to_state:
 * @self: a streamed run
 *
 * See agents_run_result_to_state().
 *
 * Returns: (transfer full): the run state
 */
AgentsRunState *
agents_run_result_streaming_to_state (AgentsRunResultStreaming *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_RESULT_STREAMING (self), NULL);
  return agents_run_result_to_state (self->result);
}

typedef struct
{
  GWeakRef owner;
  GTask *task;
} CancelledWaiter;

static void
cancelled_waiter_free (CancelledWaiter *data)
{
  g_weak_ref_clear (&data->owner);
  g_object_unref (data->task);
  g_free (data);
}

static gboolean
remove_waiter (GQueue *queue, GTask *task)
{
  for (GList *l = queue->head; l != NULL; l = l->next)
    {
      Waiter *waiter = l->data;

      if (waiter->task != task)
        continue;
      g_queue_delete_link (queue, l);
      g_task_return_error_if_cancelled (waiter->task);
      waiter_free (waiter);
      return TRUE;
    }
  return FALSE;
}

static gboolean
complete_cancelled_waiter (gpointer user_data)
{
  CancelledWaiter *data = user_data;
  g_autoptr (AgentsRunResultStreaming) self = g_weak_ref_get (&data->owner);

  if (self != NULL && !remove_waiter (&self->event_waiters, data->task))
    remove_waiter (&self->run_waiters, data->task);
  return G_SOURCE_REMOVE;
}

static void
waiter_cancelled (GCancellable *cancellable, gpointer user_data)
{
  Waiter *waiter = user_data;
  GSource *source = g_idle_source_new ();
  CancelledWaiter *data = g_new0 (CancelledWaiter, 1);

  g_weak_ref_init (&data->owner, g_task_get_source_object (waiter->task));
  data->task = g_object_ref (waiter->task);
  g_source_set_callback (source, complete_cancelled_waiter, data,
                         (GDestroyNotify) cancelled_waiter_free);
  g_source_set_static_name (source, "[agents] cancelled stream waiter");
  g_source_attach (source, g_task_get_context (waiter->task));
  g_source_unref (source);
}

static void
add_waiter (GQueue *queue, GTask *task, GCancellable *cancellable)
{
  Waiter *waiter = g_new0 (Waiter, 1);

  waiter->task = g_object_ref (task);
  g_queue_push_tail (queue, waiter);
  if (cancellable != NULL)
    {
      waiter->cancellable = g_object_ref (cancellable);
      waiter->handler = g_cancellable_connect (
        cancellable, G_CALLBACK (waiter_cancelled), waiter, NULL);
    }
}

/**
 * agents_run_result_streaming_next_event_async:
 * @self: a streamed run
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the next event
 * @user_data: data for @callback
 *
 * Waits for the next event of the run. Events are queued from the start
 * of the run, so none is missed.
 */
void
agents_run_result_streaming_next_event_async (AgentsRunResultStreaming *self,
                                              GCancellable *cancellable,
                                              GAsyncReadyCallback callback,
                                              gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_RUN_RESULT_STREAMING (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_run_result_streaming_next_event_async);
  if (g_task_return_error_if_cancelled (task))
    return;
  if (!g_queue_is_empty (&self->events) || self->stream_done)
    give_next_event (self, task);
  else
    add_waiter (&self->event_waiters, task, cancellable);
}

/**
 * agents_run_result_streaming_next_event_finish:
 * @self: a streamed run
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_run_result_streaming_next_event_async(). When the
 * stream is over it returns %NULL: with the run's error set, once, if
 * the run failed; without an error otherwise.
 *
 * Returns: (transfer full) (nullable): the next event, or %NULL at the
 *   end of the stream
 */
AgentsStreamEvent *
agents_run_result_streaming_next_event_finish (AgentsRunResultStreaming *self,
                                               GAsyncResult *result,
                                               GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * agents_run_result_streaming_wait_async:
 * @self: a streamed run
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the run is over
 * @user_data: data for @callback
 *
 * Waits for the run to be over, including its post-run work (a sandbox's
 * cleanup and persisted state, conversation session updates). After
 * agents_run_result_streaming_cancel() with
 * %AGENTS_CANCEL_MODE_IMMEDIATE it completes at once.
 */
void
agents_run_result_streaming_wait_async (AgentsRunResultStreaming *self,
                                        GCancellable *cancellable,
                                        GAsyncReadyCallback callback,
                                        gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_RUN_RESULT_STREAMING (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_run_result_streaming_wait_async);
  if (g_task_return_error_if_cancelled (task))
    return;
  if (!self->run_done)
    add_waiter (&self->run_waiters, task, cancellable);
  else if (self->run_error != NULL)
    g_task_return_error (task, g_error_copy (self->run_error));
  else
    g_task_return_boolean (task, TRUE);
}

/**
 * agents_run_result_streaming_wait_finish:
 * @self: a streamed run
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_run_result_streaming_wait_async(). A run cancelled
 * with %AGENTS_CANCEL_MODE_IMMEDIATE fails with
 * %AGENTS_RUN_ERROR_CANCELLED.
 *
 * Returns: %TRUE if the run ended without error
 */
gboolean
agents_run_result_streaming_wait_finish (AgentsRunResultStreaming *self,
                                         GAsyncResult *result,
                                         GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * agents_run_result_streaming_cancel:
 * @self: a streamed run
 * @mode: how to stop
 *
 * Stops the run. With %AGENTS_CANCEL_MODE_IMMEDIATE the stream ends now
 * (queued events are dropped), the run's pending work is cancelled and
 * its cleanup goes on without being waited for. With
 * %AGENTS_CANCEL_MODE_AFTER_TURN the current turn finishes and the run
 * then ends without a final output; its state can be resumed.
 */
void
agents_run_result_streaming_cancel (AgentsRunResultStreaming *self,
                                    AgentsCancelMode mode)
{
  g_autoptr (AgentsRunResultStreaming) keep = NULL;

  g_return_if_fail (AGENTS_IS_RUN_RESULT_STREAMING (self));

  keep = g_object_ref (self);
  if (self->cancel_func != NULL)
    self->cancel_func (mode, self->cancel_data);
  if (mode != AGENTS_CANCEL_MODE_IMMEDIATE)
    return;
  g_queue_clear_full (&self->events, g_object_unref);
  agents_run_private_streaming_finish_stream (self, NULL);
  if (!self->run_done)
    {
      g_autoptr (GError) error = agents_run_error_new_literal (
        AGENTS_RUN_ERROR_CANCELLED, NULL, _ ("The run was cancelled"));

      agents_run_private_streaming_finish_run (self, error);
    }
}
