/* agents-run-state.c - a run, saved to be resumed
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-json-private.h"
#include "agents-run-private.h"
#include "agents-run-state-private.h"

/**
 * AgentsRunState:
 *
 * A run, saved to be resumed: its input, the items and model responses
 * so far, the current agent, the approvals and usage of its context, the
 * tool calls waiting for approval, and the opaque `sandbox` payload of
 * the sandbox runtime.
 *
 * Get one with agents_run_result_to_state(), approve or reject its
 * interruptions, and resume with agents_runner_resume_async(). Between
 * processes, agents_run_state_to_json() saves it and
 * agents_run_state_new_from_json() restores it against an agent graph
 * built afresh: agents are named by the keys of
 * agents_run_state_build_agent_identity_map(), and the restored items
 * refer to the new agent objects.
 */

G_DEFINE_FINAL_TYPE (AgentsRunState, agents_run_state, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_CONTEXT,
  PROP_STARTING_AGENT,
  PROP_CURRENT_AGENT,
  PROP_CURRENT_TURN,
  PROP_MAX_TURNS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
agents_run_state_finalize (GObject *object)
{
  AgentsRunState *self = AGENTS_RUN_STATE (object);

  g_clear_object (&self->ctx);
  g_clear_pointer (&self->original_input, json_node_unref);
  g_clear_object (&self->starting_agent);
  g_clear_object (&self->current_agent);
  g_clear_object (&self->generated_items);
  g_clear_object (&self->model_responses);
  g_clear_object (&self->interruptions);
  g_clear_pointer (&self->tracker, agents_tool_use_tracker_free);
  g_clear_pointer (&self->sandbox, json_object_unref);

  G_OBJECT_CLASS (agents_run_state_parent_class)->finalize (object);
}

static void
agents_run_state_get_property (GObject *object,
                               guint prop_id,
                               GValue *value,
                               GParamSpec *pspec)
{
  AgentsRunState *self = AGENTS_RUN_STATE (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      g_value_set_object (value, self->ctx);
      break;
    case PROP_STARTING_AGENT:
      g_value_set_object (value, self->starting_agent);
      break;
    case PROP_CURRENT_AGENT:
      g_value_set_object (value, self->current_agent);
      break;
    case PROP_CURRENT_TURN:
      g_value_set_uint (value, self->current_turn);
      break;
    case PROP_MAX_TURNS:
      g_value_set_uint (value, self->max_turns);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_run_state_set_property (GObject *object,
                               guint prop_id,
                               const GValue *value,
                               GParamSpec *pspec)
{
  AgentsRunState *self = AGENTS_RUN_STATE (object);

  switch (prop_id)
    {
    case PROP_CURRENT_AGENT:
      agents_run_state_set_current_agent (self, g_value_get_object (value));
      break;
    case PROP_MAX_TURNS:
      agents_run_state_set_max_turns (self, g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_run_state_class_init (AgentsRunStateClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;
  const GParamFlags rw =
    G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->finalize = agents_run_state_finalize;
  object_class->get_property = agents_run_state_get_property;
  object_class->set_property = agents_run_state_set_property;

  /**
   * AgentsRunState:context:
   *
   * The run context: usage, approvals and the user context.
   */
  properties[PROP_CONTEXT] =
    g_param_spec_object ("context", NULL, NULL, AGENTS_TYPE_RUN_CONTEXT, ro);
  /**
   * AgentsRunState:starting-agent:
   *
   * The agent the run started with; agent keys are relative to it.
   */
  properties[PROP_STARTING_AGENT] =
    g_param_spec_object ("starting-agent", NULL, NULL, AGENTS_TYPE_AGENT, ro);
  /**
   * AgentsRunState:current-agent:
   *
   * The agent a resumed run continues with.
   */
  properties[PROP_CURRENT_AGENT] =
    g_param_spec_object ("current-agent", NULL, NULL, AGENTS_TYPE_AGENT, rw);
  /**
   * AgentsRunState:current-turn:
   *
   * The turns the run took so far.
   */
  properties[PROP_CURRENT_TURN] =
    g_param_spec_uint ("current-turn", NULL, NULL, 0, G_MAXUINT, 0, ro);
  /**
   * AgentsRunState:max-turns:
   *
   * The turns the run may take in all; a resumed run keeps it.
   */
  properties[PROP_MAX_TURNS] =
    g_param_spec_uint ("max-turns", NULL, NULL, 1, G_MAXUINT, 10, rw);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
agents_run_state_init (AgentsRunState *self)
{
  self->max_turns = 10;
  self->generated_items = g_list_store_new (AGENTS_TYPE_RUN_ITEM);
  self->model_responses = g_list_store_new (AGENTS_TYPE_MODEL_RESPONSE);
  self->interruptions = g_list_store_new (AGENTS_TYPE_RUN_ITEM);
  self->tracker = agents_tool_use_tracker_new ();
}

/**
 * agents_run_state_new:
 * @context: (nullable): the run context, %NULL for a new one
 * @original_input: (nullable): the run's input: a string or an array of
 *   input items
 * @starting_agent: the agent the run starts with
 *
 * Creates the state of a run that took no turn yet; its current agent is
 * @starting_agent.
 *
 * Returns: (transfer full): the state
 */
AgentsRunState *
agents_run_state_new (AgentsRunContext *context,
                      JsonNode *original_input,
                      AgentsAgent *starting_agent)
{
  AgentsRunState *self;

  g_return_val_if_fail (context == NULL || AGENTS_IS_RUN_CONTEXT (context),
                        NULL);
  g_return_val_if_fail (AGENTS_IS_AGENT (starting_agent), NULL);

  self = g_object_new (AGENTS_TYPE_RUN_STATE, NULL);
  self->ctx = context ? g_object_ref (context) : agents_run_context_new (NULL);
  self->original_input = original_input
                           ? json_node_copy (original_input)
                           : json_node_init_string (json_node_alloc (), "");
  self->starting_agent = g_object_ref (starting_agent);
  self->current_agent = g_object_ref (starting_agent);
  return self;
}

static void
set_store (GListStore *store, GPtrArray *items)
{
  g_list_store_remove_all (store);
  for (guint i = 0; items != NULL && i < items->len; i++)
    g_list_store_append (store, items->pdata[i]);
}

void
agents_run_private_state_set_progress (AgentsRunState *self,
                                       guint current_turn,
                                       GPtrArray *generated_items,
                                       GPtrArray *model_responses,
                                       GPtrArray *interruptions,
                                       AgentsToolUseTracker *tracker)
{
  self->current_turn = current_turn;
  set_store (self->generated_items, generated_items);
  set_store (self->model_responses, model_responses);
  set_store (self->interruptions, interruptions);
  g_clear_pointer (&self->tracker, agents_tool_use_tracker_free);
  self->tracker = tracker ? agents_tool_use_tracker_copy (tracker)
                          : agents_tool_use_tracker_new ();
}

AgentsToolUseTracker *
agents_run_private_state_get_tool_use_tracker (AgentsRunState *self)
{
  return self->tracker;
}

/**
 * agents_run_state_get_context:
 * @self: a run state
 *
 * Gets the run context. A state restored from JSON has a new one, with
 * the saved usage and approvals and no user context: set it with
 * agents_run_context_set_context().
 *
 * Returns: (transfer none): the run context
 */
AgentsRunContext *
agents_run_state_get_context (AgentsRunState *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_STATE (self), NULL);
  return self->ctx;
}

/**
 * agents_run_state_get_original_input:
 * @self: a run state
 *
 * Gets the run's input.
 *
 * Returns: (transfer none): a string or an array of input items
 */
JsonNode *
agents_run_state_get_original_input (AgentsRunState *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_STATE (self), NULL);
  return self->original_input;
}

/**
 * agents_run_state_get_starting_agent:
 * @self: a run state
 *
 * Gets the agent the run started with.
 *
 * Returns: (transfer none): the agent
 */
AgentsAgent *
agents_run_state_get_starting_agent (AgentsRunState *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_STATE (self), NULL);
  return self->starting_agent;
}

/**
 * agents_run_state_get_current_agent:
 * @self: a run state
 *
 * Gets the agent a resumed run continues with.
 *
 * Returns: (transfer none): the agent
 */
AgentsAgent *
agents_run_state_get_current_agent (AgentsRunState *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_STATE (self), NULL);
  return self->current_agent;
}

/**
 * agents_run_state_set_current_agent:
 * @self: a run state
 * @agent: an agent
 *
 * Sets the agent a resumed run continues with.
 */
void
agents_run_state_set_current_agent (AgentsRunState *self, AgentsAgent *agent)
{
  g_return_if_fail (AGENTS_IS_RUN_STATE (self));
  g_return_if_fail (AGENTS_IS_AGENT (agent));

  if (g_set_object (&self->current_agent, agent))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CURRENT_AGENT]);
}

/**
 * agents_run_state_get_current_turn:
 * @self: a run state
 *
 * Gets the number of turns the run took.
 *
 * Returns: the turns
 */
guint
agents_run_state_get_current_turn (AgentsRunState *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_STATE (self), 0);
  return self->current_turn;
}

/**
 * agents_run_state_get_max_turns:
 * @self: a run state
 *
 * Gets the turns the run may take in all.
 *
 * Returns: the maximum
 */
guint
agents_run_state_get_max_turns (AgentsRunState *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_STATE (self), 0);
  return self->max_turns;
}

/**
 * agents_run_state_set_max_turns:
 * @self: a run state
 * @max_turns: the maximum, at least 1
 *
 * Sets the turns the run may take in all, resumed turns included.
 */
void
agents_run_state_set_max_turns (AgentsRunState *self, guint max_turns)
{
  g_return_if_fail (AGENTS_IS_RUN_STATE (self));
  g_return_if_fail (max_turns > 0);

  if (self->max_turns == max_turns)
    return;
  self->max_turns = max_turns;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_TURNS]);
}

/**
 * agents_run_state_get_generated_items:
 * @self: a run state
 *
 * Gets the items the run generated so far.
 *
 * Returns: (transfer none): a list of #AgentsRunItem
 */
GListModel *
agents_run_state_get_generated_items (AgentsRunState *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_STATE (self), NULL);
  return G_LIST_MODEL (self->generated_items);
}

/**
 * agents_run_state_get_model_responses:
 * @self: a run state
 *
 * Gets the model's responses so far.
 *
 * Returns: (transfer none): a list of #AgentsModelResponse
 */
GListModel *
agents_run_state_get_model_responses (AgentsRunState *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_STATE (self), NULL);
  return G_LIST_MODEL (self->model_responses);
}

/**
 * agents_run_state_get_interruptions:
 * @self: a run state
 *
 * Gets the tool calls waiting for approval.
 *
 * Returns: (transfer none): a list of #AgentsRunItem of kind
 *   %AGENTS_RUN_ITEM_KIND_TOOL_APPROVAL
 */
GListModel *
agents_run_state_get_interruptions (AgentsRunState *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_STATE (self), NULL);
  return G_LIST_MODEL (self->interruptions);
}

/**
 * agents_run_state_approve:
 * @self: a run state
 * @approval_item: a tool approval item, e.g. one of the interruptions
 * @always: whether every later call of the tool is approved too
 *
 * Approves a tool call: the resumed run executes it.
 */
void
agents_run_state_approve (AgentsRunState *self,
                          AgentsRunItem *approval_item,
                          gboolean always)
{
  g_return_if_fail (AGENTS_IS_RUN_STATE (self));
  g_return_if_fail (AGENTS_IS_RUN_ITEM (approval_item));

  agents_run_context_approve_tool (self->ctx, approval_item, always);
}

/**
 * agents_run_state_reject:
 * @self: a run state
 * @approval_item: a tool approval item, e.g. one of the interruptions
 * @always: whether every later call of the tool is rejected too
 *
 * Rejects a tool call: the resumed run tells the model it was not
 * approved, without executing it.
 */
void
agents_run_state_reject (AgentsRunState *self,
                         AgentsRunItem *approval_item,
                         gboolean always)
{
  g_return_if_fail (AGENTS_IS_RUN_STATE (self));
  g_return_if_fail (AGENTS_IS_RUN_ITEM (approval_item));

  agents_run_context_reject_tool (self->ctx, approval_item, always);
}

/**
 * agents_run_state_get_sandbox:
 * @self: a run state
 *
 * Gets the sandbox runtime's payload (its sessions' states), opaque to
 * the runner.
 *
 * Returns: (transfer none) (nullable): the payload
 */
JsonObject *
agents_run_state_get_sandbox (AgentsRunState *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_STATE (self), NULL);
  return self->sandbox;
}

/**
 * agents_run_state_set_sandbox:
 * @self: a run state
 * @sandbox: (nullable): the payload
 *
 * Sets the sandbox runtime's payload.
 */
void
agents_run_state_set_sandbox (AgentsRunState *self, JsonObject *sandbox)
{
  g_return_if_fail (AGENTS_IS_RUN_STATE (self));

  if (self->sandbox == sandbox)
    return;
  g_clear_pointer (&self->sandbox, json_object_unref);
  self->sandbox = sandbox ? json_object_ref (sandbox) : NULL;
}

/**
 * agents_run_state_get_tools_used:
 * @self: a run state
 * @agent: an agent
 *
 * Gets the tools @agent used during the run (the reference's tool use
 * tracker: an agent with #AgentsAgent:reset-tool-choice that used tools
 * has its tool choice reset).
 *
 * Returns: (transfer full) (nullable) (array zero-terminated=1): the tool
 *   names, or %NULL if the agent used none
 */
char **
agents_run_state_get_tools_used (AgentsRunState *self, AgentsAgent *agent)
{
  g_return_val_if_fail (AGENTS_IS_RUN_STATE (self), NULL);
  g_return_val_if_fail (AGENTS_IS_AGENT (agent), NULL);

  return agents_tool_use_tracker_dup_tools (self->tracker, agent);
}
