/* agents-run-item.c - the items a run produces
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-agent.h"
#include "agents-enums.h"
#include "agents-run-item.h"
#include "agents-run-private.h"

/**
 * AgentsRunItem:
 *
 * An item a run produced: a message, a tool call and its output, a
 * handoff, a reasoning item, or a tool call waiting for approval. Its
 * #AgentsRunItem:raw-item is the OpenAI Responses item JSON; its
 * #AgentsRunItem:agent is always the agent the user built, never an
 * internal copy the runner prepared for execution.
 *
 * The raw items of the model outputs and tool outputs a run makes are
 * sealed (json_object_is_immutable()): every later turn's model input
 * shares them instead of copying them. Read them; to change one, copy
 * it.
 */

struct _AgentsRunItem
{
  GObject parent_instance;

  AgentsRunItemKind kind;
  JsonObject *raw_item;
  AgentsAgent *agent;
  JsonNode *output;
  AgentsAgent *source_agent;
  AgentsAgent *target_agent;
  char *tool_name;
};

G_DEFINE_FINAL_TYPE (AgentsRunItem, agents_run_item, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_KIND,
  PROP_RAW_ITEM,
  PROP_AGENT,
  PROP_OUTPUT,
  PROP_SOURCE_AGENT,
  PROP_TARGET_AGENT,
  PROP_TOOL_NAME,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
agents_run_item_finalize (GObject *object)
{
  AgentsRunItem *self = AGENTS_RUN_ITEM (object);

  g_clear_pointer (&self->raw_item, json_object_unref);
  g_clear_object (&self->agent);
  g_clear_pointer (&self->output, json_node_unref);
  g_clear_object (&self->source_agent);
  g_clear_object (&self->target_agent);
  g_free (self->tool_name);

  G_OBJECT_CLASS (agents_run_item_parent_class)->finalize (object);
}

static void
agents_run_item_get_property (GObject *object,
                              guint prop_id,
                              GValue *value,
                              GParamSpec *pspec)
{
  AgentsRunItem *self = AGENTS_RUN_ITEM (object);

  switch (prop_id)
    {
    case PROP_KIND:
      g_value_set_enum (value, self->kind);
      break;
    case PROP_RAW_ITEM:
      g_value_set_boxed (value, self->raw_item);
      break;
    case PROP_AGENT:
      g_value_set_object (value, self->agent);
      break;
    case PROP_OUTPUT:
      g_value_set_boxed (value, self->output);
      break;
    case PROP_SOURCE_AGENT:
      g_value_set_object (value, self->source_agent);
      break;
    case PROP_TARGET_AGENT:
      g_value_set_object (value, self->target_agent);
      break;
    case PROP_TOOL_NAME:
      g_value_set_string (value, agents_run_item_get_tool_name (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_run_item_set_property (GObject *object,
                              guint prop_id,
                              const GValue *value,
                              GParamSpec *pspec)
{
  AgentsRunItem *self = AGENTS_RUN_ITEM (object);

  switch (prop_id)
    {
    case PROP_KIND:
      self->kind = g_value_get_enum (value);
      break;
    case PROP_RAW_ITEM:
      self->raw_item = g_value_dup_boxed (value);
      break;
    case PROP_AGENT:
      self->agent = g_value_dup_object (value);
      break;
    case PROP_OUTPUT:
      self->output = g_value_dup_boxed (value);
      break;
    case PROP_SOURCE_AGENT:
      self->source_agent = g_value_dup_object (value);
      break;
    case PROP_TARGET_AGENT:
      self->target_agent = g_value_dup_object (value);
      break;
    case PROP_TOOL_NAME:
      self->tool_name = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_run_item_constructed (GObject *object)
{
  AgentsRunItem *self = AGENTS_RUN_ITEM (object);

  G_OBJECT_CLASS (agents_run_item_parent_class)->constructed (object);

  if (self->raw_item == NULL)
    self->raw_item = json_object_new ();
}

#define CONSTRUCT_FLAGS \
  (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS)

static void
agents_run_item_class_init (AgentsRunItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = agents_run_item_finalize;
  object_class->get_property = agents_run_item_get_property;
  object_class->set_property = agents_run_item_set_property;
  object_class->constructed = agents_run_item_constructed;

  /**
   * AgentsRunItem:kind:
   *
   * What the item is.
   */
  properties[PROP_KIND] =
    g_param_spec_enum ("kind", NULL, NULL, AGENTS_TYPE_RUN_ITEM_KIND,
                       AGENTS_RUN_ITEM_KIND_MESSAGE_OUTPUT, CONSTRUCT_FLAGS);
  /**
   * AgentsRunItem:raw-item:
   *
   * The OpenAI Responses item.
   */
  properties[PROP_RAW_ITEM] = g_param_spec_boxed (
    "raw-item", NULL, NULL, JSON_TYPE_OBJECT, CONSTRUCT_FLAGS);
  /**
   * AgentsRunItem:agent:
   *
   * The agent the item belongs to, as the user built it.
   */
  properties[PROP_AGENT] = g_param_spec_object (
    "agent", NULL, NULL, AGENTS_TYPE_AGENT, CONSTRUCT_FLAGS);
  /**
   * AgentsRunItem:output:
   *
   * For a tool call output, the output (a string node for function tools).
   */
  properties[PROP_OUTPUT] =
    g_param_spec_boxed ("output", NULL, NULL, JSON_TYPE_NODE, CONSTRUCT_FLAGS);
  /**
   * AgentsRunItem:source-agent:
   *
   * For a handoff output, the agent that handed off.
   */
  properties[PROP_SOURCE_AGENT] = g_param_spec_object (
    "source-agent", NULL, NULL, AGENTS_TYPE_AGENT, CONSTRUCT_FLAGS);
  /**
   * AgentsRunItem:target-agent:
   *
   * For a handoff output, the agent handed off to.
   */
  properties[PROP_TARGET_AGENT] = g_param_spec_object (
    "target-agent", NULL, NULL, AGENTS_TYPE_AGENT, CONSTRUCT_FLAGS);
  /**
   * AgentsRunItem:tool-name:
   *
   * For tool calls and approvals, the name of the tool.
   */
  properties[PROP_TOOL_NAME] =
    g_param_spec_string ("tool-name", NULL, NULL, NULL, CONSTRUCT_FLAGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
agents_run_item_init (AgentsRunItem *self)
{
}

/**
 * agents_run_item_new:
 * @kind: what the item is
 * @agent: (nullable): the agent the item belongs to, as the user built it
 * @raw_item: the OpenAI Responses item (referenced, not copied)
 *
 * Creates a run item.
 *
 * Returns: (transfer full): the item
 */
AgentsRunItem *
agents_run_item_new (AgentsRunItemKind kind,
                     AgentsAgent *agent,
                     JsonObject *raw_item)
{
  g_return_val_if_fail (agent == NULL || AGENTS_IS_AGENT (agent), NULL);
  g_return_val_if_fail (raw_item != NULL, NULL);

  return g_object_new (AGENTS_TYPE_RUN_ITEM, "kind", kind, "agent", agent,
                       "raw-item", raw_item, NULL);
}

/**
 * agents_run_item_new_tool_output:
 * @agent: (nullable): the agent whose tool ran
 * @raw_item: the output item (`function_call_output`,
 *   `local_shell_call_output`, …)
 * @output: (nullable): the tool's output
 *
 * Creates an %AGENTS_RUN_ITEM_KIND_TOOL_CALL_OUTPUT item.
 *
 * Returns: (transfer full): the item
 */
AgentsRunItem *
agents_run_item_new_tool_output (AgentsAgent *agent,
                                 JsonObject *raw_item,
                                 JsonNode *output)
{
  g_return_val_if_fail (agent == NULL || AGENTS_IS_AGENT (agent), NULL);
  g_return_val_if_fail (raw_item != NULL, NULL);

  return g_object_new (AGENTS_TYPE_RUN_ITEM, "kind",
                       AGENTS_RUN_ITEM_KIND_TOOL_CALL_OUTPUT, "agent", agent,
                       "raw-item", raw_item, "output", output, NULL);
}

/**
 * agents_run_item_new_handoff_output:
 * @agent: (nullable): the agent the item belongs to (the source)
 * @raw_item: the `function_call_output` item of the handoff call
 * @source_agent: the agent that handed off
 * @target_agent: the agent handed off to
 *
 * Creates an %AGENTS_RUN_ITEM_KIND_HANDOFF_OUTPUT item.
 *
 * Returns: (transfer full): the item
 */
AgentsRunItem *
agents_run_item_new_handoff_output (AgentsAgent *agent,
                                    JsonObject *raw_item,
                                    AgentsAgent *source_agent,
                                    AgentsAgent *target_agent)
{
  g_return_val_if_fail (agent == NULL || AGENTS_IS_AGENT (agent), NULL);
  g_return_val_if_fail (raw_item != NULL, NULL);
  g_return_val_if_fail (AGENTS_IS_AGENT (source_agent), NULL);
  g_return_val_if_fail (AGENTS_IS_AGENT (target_agent), NULL);

  return g_object_new (AGENTS_TYPE_RUN_ITEM, "kind",
                       AGENTS_RUN_ITEM_KIND_HANDOFF_OUTPUT, "agent", agent,
                       "raw-item", raw_item, "source-agent", source_agent,
                       "target-agent", target_agent, NULL);
}

/**
 * agents_run_item_new_tool_approval:
 * @agent: (nullable): the agent whose tool waits for approval
 * @raw_item: the tool call item
 * @tool_name: (nullable): the tool's name; %NULL takes the item's `name`
 *
 * Creates an %AGENTS_RUN_ITEM_KIND_TOOL_APPROVAL item.
 *
 * Returns: (transfer full): the item
 */
AgentsRunItem *
agents_run_item_new_tool_approval (AgentsAgent *agent,
                                   JsonObject *raw_item,
                                   const char *tool_name)
{
  g_return_val_if_fail (agent == NULL || AGENTS_IS_AGENT (agent), NULL);
  g_return_val_if_fail (raw_item != NULL, NULL);

  return g_object_new (AGENTS_TYPE_RUN_ITEM, "kind",
                       AGENTS_RUN_ITEM_KIND_TOOL_APPROVAL, "agent", agent,
                       "raw-item", raw_item, "tool-name", tool_name, NULL);
}

/**
 * agents_run_item_get_kind:
 * @self: a run item
 *
 * Gets what the item is.
 *
 * Returns: the kind
 */
AgentsRunItemKind
agents_run_item_get_kind (AgentsRunItem *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_ITEM (self), 0);
  return self->kind;
}

/**
 * agents_run_item_get_raw_item:
 * @self: a run item
 *
 * Gets the OpenAI Responses item.
 *
 * Returns: (transfer none): the raw item
 */
JsonObject *
agents_run_item_get_raw_item (AgentsRunItem *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_ITEM (self), NULL);
  return self->raw_item;
}

/**
 * agents_run_item_get_agent:
 * @self: a run item
 *
 * Gets the agent the item belongs to, as the user built it.
 *
 * Returns: (transfer none) (nullable): the agent
 */
AgentsAgent *
agents_run_item_get_agent (AgentsRunItem *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_ITEM (self), NULL);
  return self->agent;
}

/**
 * agents_run_item_get_output:
 * @self: a run item
 *
 * Gets the output of a tool call output item.
 *
 * Returns: (transfer none) (nullable): the output
 */
JsonNode *
agents_run_item_get_output (AgentsRunItem *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_ITEM (self), NULL);
  return self->output;
}

/**
 * agents_run_item_get_source_agent:
 * @self: a run item
 *
 * Gets the agent that handed off, for a handoff output.
 *
 * Returns: (transfer none) (nullable): the source agent
 */
AgentsAgent *
agents_run_item_get_source_agent (AgentsRunItem *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_ITEM (self), NULL);
  return self->source_agent;
}

/**
 * agents_run_item_get_target_agent:
 * @self: a run item
 *
 * Gets the agent handed off to, for a handoff output.
 *
 * Returns: (transfer none) (nullable): the target agent
 */
AgentsAgent *
agents_run_item_get_target_agent (AgentsRunItem *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_ITEM (self), NULL);
  return self->target_agent;
}

static const char *
raw_string (AgentsRunItem *self, const char *member)
{
  return agents_run_private_json_string (self->raw_item, member);
}

/**
 * agents_run_item_get_tool_name:
 * @self: a run item
 *
 * Gets the tool's name: the one given at creation, else the raw item's
 * `name`, else `local_shell` for local shell calls.
 *
 * Returns: (nullable): the tool name
 */
const char *
agents_run_item_get_tool_name (AgentsRunItem *self)
{
  const char *type;

  g_return_val_if_fail (AGENTS_IS_RUN_ITEM (self), NULL);

  if (self->tool_name != NULL)
    return self->tool_name;
  if (raw_string (self, "name") != NULL)
    return raw_string (self, "name");
  type = raw_string (self, "type");
  if (type != NULL && g_str_has_prefix (type, "local_shell_call"))
    return "local_shell";
  return NULL;
}

/**
 * agents_run_item_get_call_id:
 * @self: a run item
 *
 * Gets the raw item's `call_id`.
 *
 * Returns: (nullable): the call id
 */
const char *
agents_run_item_get_call_id (AgentsRunItem *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_ITEM (self), NULL);
  return raw_string (self, "call_id");
}

/**
 * agents_run_item_to_input_item:
 * @self: a run item
 *
 * Gets the item as the model sees it in the input of the next turn: a
 * copy of the raw item.
 *
 * Returns: (transfer full): the input item
 */
JsonObject *
agents_run_item_to_input_item (AgentsRunItem *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_ITEM (self), NULL);

  return agents_run_private_json_object_copy (self->raw_item);
}

/**
 * agents_run_item_get_text:
 * @self: a run item
 *
 * Gets the text of a message: its `output_text` parts, concatenated.
 *
 * Returns: (transfer full) (nullable): the text, or %NULL when the item is
 *   not a message
 */
char *
agents_run_item_get_text (AgentsRunItem *self)
{
  GString *text;
  JsonNode *content;
  JsonArray *parts;

  g_return_val_if_fail (AGENTS_IS_RUN_ITEM (self), NULL);

  if (self->kind != AGENTS_RUN_ITEM_KIND_MESSAGE_OUTPUT)
    return NULL;

  text = g_string_new (NULL);
  content = json_object_get_member (self->raw_item, "content");
  parts = content && JSON_NODE_HOLDS_ARRAY (content)
            ? json_node_get_array (content)
            : NULL;
  for (guint i = 0; parts != NULL && i < json_array_get_length (parts); i++)
    {
      JsonNode *part = json_array_get_element (parts, i);
      JsonObject *object;

      if (!JSON_NODE_HOLDS_OBJECT (part))
        continue;
      object = json_node_get_object (part);
      if (g_strcmp0 (agents_run_private_json_string (object, "type"),
                     "output_text") != 0 ||
          agents_run_private_json_string (object, "text") == NULL)
        continue;
      g_string_append (text, agents_run_private_json_string (object, "text"));
    }
  return g_string_free (text, FALSE);
}
