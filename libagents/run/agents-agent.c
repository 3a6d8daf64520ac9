/* agents-agent.c - agents
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-agent-private.h"
#include "agents-enums.h"
#include "agents-json-private.h"
#include "agents-run-error.h"
#include "agents-run-private.h"

/**
 * AgentsAgent:
 *
 * An agent: instructions, a model, tools, handoffs to other agents and
 * guardrails. Run it with an #AgentsRunner.
 *
 * The agent's hooks are signals, emitted with the agent the user built:
 * #AgentsAgent::start, #AgentsAgent::end, #AgentsAgent::llm-start,
 * #AgentsAgent::llm-end, #AgentsAgent::tool-start and
 * #AgentsAgent::tool-end (detailed by the tool's name, e.g.
 * `tool-start::write_file`), and #AgentsAgent::handoff.
 *
 * Agents referring to each other through handoffs hold references to each
 * other; C programs that build such cycles break them with
 * agents_agent_set_handoffs() (with no handoffs) when done.
 */

typedef struct
{
  char *name;
  char *instructions;
  AgentsCallback *instructions_func;
  JsonObject *prompt;
  AgentsCallback *prompt_func;
  AgentsModel *model;
  char *model_name;
  AgentsModelSettings *model_settings;
  JsonObject *output_schema;
  AgentsToolUseBehavior tool_use_behavior;
  char **stop_at_tool_names;
  gboolean reset_tool_choice;
  char *handoff_description;
  GListStore *tools;
  GListStore *handoffs;
  GListStore *input_guardrails;
  GListStore *output_guardrails;
} AgentsAgentPrivate;

G_DEFINE_TYPE_WITH_PRIVATE (AgentsAgent, agents_agent, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_NAME,
  PROP_INSTRUCTIONS,
  PROP_PROMPT,
  PROP_MODEL,
  PROP_MODEL_NAME,
  PROP_MODEL_SETTINGS,
  PROP_OUTPUT_SCHEMA,
  PROP_TOOL_USE_BEHAVIOR,
  PROP_STOP_AT_TOOL_NAMES,
  PROP_RESET_TOOL_CHOICE,
  PROP_HANDOFF_DESCRIPTION,
  PROP_TOOLS,
  PROP_HANDOFFS,
  PROP_INPUT_GUARDRAILS,
  PROP_OUTPUT_GUARDRAILS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum
{
  SIGNAL_START,
  SIGNAL_END,
  SIGNAL_LLM_START,
  SIGNAL_LLM_END,
  SIGNAL_TOOL_START,
  SIGNAL_TOOL_END,
  SIGNAL_HANDOFF,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

#define PRIV(self) \
  ((AgentsAgentPrivate *) agents_agent_get_instance_private (self))

static void
agents_agent_dispose (GObject *object)
{
  AgentsAgentPrivate *priv = PRIV (AGENTS_AGENT (object));

  g_clear_object (&priv->model);
  g_list_store_remove_all (priv->tools);
  g_list_store_remove_all (priv->handoffs);
  g_list_store_remove_all (priv->input_guardrails);
  g_list_store_remove_all (priv->output_guardrails);

  G_OBJECT_CLASS (agents_agent_parent_class)->dispose (object);
}

static void
agents_agent_finalize (GObject *object)
{
  AgentsAgentPrivate *priv = PRIV (AGENTS_AGENT (object));

  g_free (priv->name);
  g_free (priv->instructions);
  agents_callback_unref (priv->instructions_func);
  g_clear_pointer (&priv->prompt, json_object_unref);
  agents_callback_unref (priv->prompt_func);
  g_free (priv->model_name);
  g_clear_object (&priv->model_settings);
  g_clear_pointer (&priv->output_schema, json_object_unref);
  g_strfreev (priv->stop_at_tool_names);
  g_free (priv->handoff_description);
  g_object_unref (priv->tools);
  g_object_unref (priv->handoffs);
  g_object_unref (priv->input_guardrails);
  g_object_unref (priv->output_guardrails);

  G_OBJECT_CLASS (agents_agent_parent_class)->finalize (object);
}

static void
agents_agent_get_property (GObject *object,
                           guint prop_id,
                           GValue *value,
                           GParamSpec *pspec)
{
  AgentsAgent *self = AGENTS_AGENT (object);
  AgentsAgentPrivate *priv = PRIV (self);

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, priv->name);
      break;
    case PROP_INSTRUCTIONS:
      g_value_set_string (value, priv->instructions);
      break;
    case PROP_PROMPT:
      g_value_set_boxed (value, priv->prompt);
      break;
    case PROP_MODEL:
      g_value_set_object (value, priv->model);
      break;
    case PROP_MODEL_NAME:
      g_value_set_string (value, priv->model_name);
      break;
    case PROP_MODEL_SETTINGS:
      g_value_set_object (value, priv->model_settings);
      break;
    case PROP_OUTPUT_SCHEMA:
      g_value_set_boxed (value, priv->output_schema);
      break;
    case PROP_TOOL_USE_BEHAVIOR:
      g_value_set_enum (value, priv->tool_use_behavior);
      break;
    case PROP_STOP_AT_TOOL_NAMES:
      g_value_set_boxed (value, priv->stop_at_tool_names);
      break;
    case PROP_RESET_TOOL_CHOICE:
      g_value_set_boolean (value, priv->reset_tool_choice);
      break;
    case PROP_HANDOFF_DESCRIPTION:
      g_value_set_string (value, priv->handoff_description);
      break;
    case PROP_TOOLS:
      g_value_set_object (value, priv->tools);
      break;
    case PROP_HANDOFFS:
      g_value_set_object (value, priv->handoffs);
      break;
    case PROP_INPUT_GUARDRAILS:
      g_value_set_object (value, priv->input_guardrails);
      break;
    case PROP_OUTPUT_GUARDRAILS:
      g_value_set_object (value, priv->output_guardrails);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_agent_set_property (GObject *object,
                           guint prop_id,
                           const GValue *value,
                           GParamSpec *pspec)
{
  AgentsAgent *self = AGENTS_AGENT (object);

  switch (prop_id)
    {
    case PROP_NAME:
      agents_agent_set_name (self, g_value_get_string (value));
      break;
    case PROP_INSTRUCTIONS:
      agents_agent_set_instructions (self, g_value_get_string (value));
      break;
    case PROP_PROMPT:
      agents_agent_set_prompt (self, g_value_get_boxed (value));
      break;
    case PROP_MODEL:
      agents_agent_set_model (self, g_value_get_object (value));
      break;
    case PROP_MODEL_NAME:
      agents_agent_set_model_name (self, g_value_get_string (value));
      break;
    case PROP_MODEL_SETTINGS:
      agents_agent_set_model_settings (self, g_value_get_object (value));
      break;
    case PROP_OUTPUT_SCHEMA:
      agents_agent_set_output_schema (self, g_value_get_boxed (value));
      break;
    case PROP_TOOL_USE_BEHAVIOR:
      agents_agent_set_tool_use_behavior (self, g_value_get_enum (value));
      break;
    case PROP_STOP_AT_TOOL_NAMES:
      agents_agent_set_stop_at_tool_names (self, g_value_get_boxed (value));
      break;
    case PROP_RESET_TOOL_CHOICE:
      agents_agent_set_reset_tool_choice (self, g_value_get_boolean (value));
      break;
    case PROP_HANDOFF_DESCRIPTION:
      agents_agent_set_handoff_description (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_agent_real_get_system_prompt (AgentsAgent *self,
                                     AgentsRunContext *ctx,
                                     GTask *task)
{
  AgentsAgentPrivate *priv = PRIV (self);
  char *text;

  if (priv->instructions_func != NULL)
    text = ((AgentsInstructionsFunc) priv->instructions_func->func) (
      ctx, self, priv->instructions_func->user_data);
  else
    text = g_strdup (priv->instructions);
  g_task_return_pointer (task, text, g_free);
}

static char *
agents_agent_real_identity_fingerprint (AgentsAgent *self)
{
  return NULL;
}

static gboolean
is_copyable (GParamSpec *pspec)
{
  return (pspec->flags & G_PARAM_READABLE) &&
         (pspec->flags & G_PARAM_WRITABLE) &&
         !(pspec->flags & G_PARAM_DEPRECATED);
}

static void
copy_store (GListStore *dest, GListStore *src)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (src));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GObject) item = g_list_model_get_item (G_LIST_MODEL (src), i);

      g_list_store_append (dest, item);
    }
}

static AgentsAgent *
agents_agent_real_clone (AgentsAgent *self)
{
  guint n_pspecs = 0;
  g_autofree GParamSpec **pspecs =
    g_object_class_list_properties (G_OBJECT_GET_CLASS (self), &n_pspecs);
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  g_autoptr (GArray) values = g_array_new (FALSE, TRUE, sizeof (GValue));
  AgentsAgent *copy;
  AgentsAgentPrivate *priv = PRIV (self);
  AgentsAgentPrivate *copy_priv;

  g_array_set_clear_func (values, (GDestroyNotify) g_value_unset);
  for (guint i = 0; i < n_pspecs; i++)
    {
      GValue value = G_VALUE_INIT;

      if (!is_copyable (pspecs[i]))
        continue;
      g_value_init (&value, pspecs[i]->value_type);
      g_object_get_property (G_OBJECT (self), pspecs[i]->name, &value);
      g_ptr_array_add (names, (gpointer) pspecs[i]->name);
      g_array_append_val (values, value);
    }
  copy = AGENTS_AGENT (g_object_new_with_properties (
    G_OBJECT_TYPE (self), names->len, (const char **) names->pdata,
    (const GValue *) values->data));

  copy_priv = PRIV (copy);
  copy_store (copy_priv->tools, priv->tools);
  copy_store (copy_priv->handoffs, priv->handoffs);
  copy_store (copy_priv->input_guardrails, priv->input_guardrails);
  copy_store (copy_priv->output_guardrails, priv->output_guardrails);
  agents_callback_unref (copy_priv->instructions_func);
  copy_priv->instructions_func = agents_callback_ref (priv->instructions_func);
  agents_callback_unref (copy_priv->prompt_func);
  copy_priv->prompt_func = agents_callback_ref (priv->prompt_func);
  return copy;
}

#define PARAM_FLAGS \
  (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY)
#define LIST_FLAGS (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)

static void
install_properties (GObjectClass *object_class)
{
  /**
   * AgentsAgent:name:
   *
   * The agent's name.
   */
  properties[PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL, NULL, PARAM_FLAGS);
  /**
   * AgentsAgent:instructions:
   *
   * The system prompt, unless an instructions function is set.
   */
  properties[PROP_INSTRUCTIONS] =
    g_param_spec_string ("instructions", NULL, NULL, NULL, PARAM_FLAGS);
  /**
   * AgentsAgent:prompt:
   *
   * A prompt reference `{"id", "version", "variables"}` sent to models
   * that support prompts, unless a prompt function is set.
   */
  properties[PROP_PROMPT] =
    g_param_spec_boxed ("prompt", NULL, NULL, JSON_TYPE_OBJECT, PARAM_FLAGS);
  /**
   * AgentsAgent:model:
   *
   * The model; a run config's model overrides it.
   */
  properties[PROP_MODEL] =
    g_param_spec_object ("model", NULL, NULL, AGENTS_TYPE_MODEL, PARAM_FLAGS);
  /**
   * AgentsAgent:model-name:
   *
   * The name of a model that a model provider resolves, when
   * #AgentsAgent:model is not set.
   */
  properties[PROP_MODEL_NAME] =
    g_param_spec_string ("model-name", NULL, NULL, NULL, PARAM_FLAGS);
  /**
   * AgentsAgent:model-settings:
   *
   * The model settings; a run config's settings are merged over them.
   */
  properties[PROP_MODEL_SETTINGS] = g_param_spec_object (
    "model-settings", NULL, NULL, AGENTS_TYPE_MODEL_SETTINGS, PARAM_FLAGS);
  /**
   * AgentsAgent:output-schema:
   *
   * The JSON schema of a structured final output; %NULL for text.
   */
  properties[PROP_OUTPUT_SCHEMA] = g_param_spec_boxed (
    "output-schema", NULL, NULL, JSON_TYPE_OBJECT, PARAM_FLAGS);
  /**
   * AgentsAgent:tool-use-behavior:
   *
   * What the run does after the agent's tools ran.
   */
  properties[PROP_TOOL_USE_BEHAVIOR] = g_param_spec_enum (
    "tool-use-behavior", NULL, NULL, AGENTS_TYPE_TOOL_USE_BEHAVIOR,
    AGENTS_TOOL_USE_BEHAVIOR_RUN_LLM_AGAIN, PARAM_FLAGS);
  /**
   * AgentsAgent:stop-at-tool-names:
   *
   * The tools whose output is the final output, with
   * %AGENTS_TOOL_USE_BEHAVIOR_STOP_AT_TOOL_NAMES.
   */
  properties[PROP_STOP_AT_TOOL_NAMES] = g_param_spec_boxed (
    "stop-at-tool-names", NULL, NULL, G_TYPE_STRV, PARAM_FLAGS);
  /**
   * AgentsAgent:reset-tool-choice:
   *
   * Whether the tool choice is reset after a tool was used, so that the
   * model does not loop calling tools.
   */
  properties[PROP_RESET_TOOL_CHOICE] = g_param_spec_boolean (
    "reset-tool-choice", NULL, NULL, TRUE, PARAM_FLAGS | G_PARAM_CONSTRUCT);
  /**
   * AgentsAgent:handoff-description:
   *
   * What the agent does, for the agents that can hand off to it.
   */
  properties[PROP_HANDOFF_DESCRIPTION] =
    g_param_spec_string ("handoff-description", NULL, NULL, NULL, PARAM_FLAGS);
  /**
   * AgentsAgent:tools:
   *
   * The agent's tools, a list of #AgentsTool.
   */
  properties[PROP_TOOLS] =
    g_param_spec_object ("tools", NULL, NULL, G_TYPE_LIST_MODEL, LIST_FLAGS);
  /**
   * AgentsAgent:handoffs:
   *
   * The agents it can hand off to: #AgentsAgent or #AgentsHandoff.
   */
  properties[PROP_HANDOFFS] =
    g_param_spec_object ("handoffs", NULL, NULL, G_TYPE_LIST_MODEL, LIST_FLAGS);
  /**
   * AgentsAgent:input-guardrails:
   *
   * The checks of the run's input, a list of #AgentsInputGuardrail.
   */
  properties[PROP_INPUT_GUARDRAILS] = g_param_spec_object (
    "input-guardrails", NULL, NULL, G_TYPE_LIST_MODEL, LIST_FLAGS);
  /**
   * AgentsAgent:output-guardrails:
   *
   * The checks of the final output, a list of #AgentsOutputGuardrail.
   */
  properties[PROP_OUTPUT_GUARDRAILS] = g_param_spec_object (
    "output-guardrails", NULL, NULL, G_TYPE_LIST_MODEL, LIST_FLAGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
install_signals (GType type)
{
  /**
   * AgentsAgent::start:
   * @self: the agent
   * @ctx: the run context
   *
   * The agent becomes the current agent of a run.
   */
  signals[SIGNAL_START] =
    g_signal_new ("start", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, AGENTS_TYPE_RUN_CONTEXT);
  /**
   * AgentsAgent::end:
   * @self: the agent
   * @ctx: the run context
   * @output: the final output
   *
   * The agent produced the final output of a run.
   */
  signals[SIGNAL_END] =
    g_signal_new ("end", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, AGENTS_TYPE_RUN_CONTEXT, JSON_TYPE_NODE);
  /**
   * AgentsAgent::llm-start:
   * @self: the agent
   * @ctx: the run context
   * @system_prompt: (nullable): the system prompt
   * @input: the input items
   *
   * The model is about to be called for the agent.
   */
  signals[SIGNAL_LLM_START] = g_signal_new (
    "llm-start", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 3,
    AGENTS_TYPE_RUN_CONTEXT, G_TYPE_STRING, JSON_TYPE_ARRAY);
  /**
   * AgentsAgent::llm-end:
   * @self: the agent
   * @ctx: the run context
   * @response: the model's response
   *
   * The model answered.
   */
  signals[SIGNAL_LLM_END] = g_signal_new (
    "llm-end", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 2,
    AGENTS_TYPE_RUN_CONTEXT, AGENTS_TYPE_MODEL_RESPONSE);
  /**
   * AgentsAgent::tool-start:
   * @self: the agent
   * @ctx: the run context
   * @tool: the tool
   *
   * A tool of the agent is about to run. The detail is the tool's name.
   */
  signals[SIGNAL_TOOL_START] = g_signal_new (
    "tool-start", type, G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED, 0, NULL, NULL,
    NULL, G_TYPE_NONE, 2, AGENTS_TYPE_RUN_CONTEXT, AGENTS_TYPE_TOOL);
  /**
   * AgentsAgent::tool-end:
   * @self: the agent
   * @ctx: the run context
   * @tool: the tool
   * @result: the tool's output
   *
   * A tool of the agent ran. The detail is the tool's name.
   */
  signals[SIGNAL_TOOL_END] =
    g_signal_new ("tool-end", type, G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 3, AGENTS_TYPE_RUN_CONTEXT,
                  AGENTS_TYPE_TOOL, JSON_TYPE_NODE);
  /**
   * AgentsAgent::handoff:
   * @self: the agent handed off to
   * @ctx: the run context
   * @source: the agent that handed off
   *
   * Another agent handed off to this one.
   */
  signals[SIGNAL_HANDOFF] =
    g_signal_new ("handoff", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, AGENTS_TYPE_RUN_CONTEXT, AGENTS_TYPE_AGENT);
}

static void
agents_agent_class_init (AgentsAgentClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = agents_agent_dispose;
  object_class->finalize = agents_agent_finalize;
  object_class->get_property = agents_agent_get_property;
  object_class->set_property = agents_agent_set_property;

  klass->get_system_prompt = agents_agent_real_get_system_prompt;
  klass->identity_fingerprint = agents_agent_real_identity_fingerprint;
  klass->clone = agents_agent_real_clone;

  install_properties (object_class);
  install_signals (G_TYPE_FROM_CLASS (klass));
}

static void
agents_agent_init (AgentsAgent *self)
{
  AgentsAgentPrivate *priv = PRIV (self);

  priv->reset_tool_choice = TRUE;
  priv->model_settings = agents_model_settings_new ();
  priv->tools = g_list_store_new (AGENTS_TYPE_TOOL);
  priv->handoffs = g_list_store_new (G_TYPE_OBJECT);
  priv->input_guardrails = g_list_store_new (AGENTS_TYPE_INPUT_GUARDRAIL);
  priv->output_guardrails = g_list_store_new (AGENTS_TYPE_OUTPUT_GUARDRAIL);
}

/**
 * agents_agent_new:
 * @name: the agent's name
 *
 * Creates an agent.
 *
 * Returns: (transfer full): the agent
 */
AgentsAgent *
agents_agent_new (const char *name)
{
  g_return_val_if_fail (name != NULL, NULL);

  return g_object_new (AGENTS_TYPE_AGENT, "name", name, NULL);
}

gboolean
agents_agent_set_string (char **field, const char *value)
{
  if (g_strcmp0 (*field, value) == 0)
    return FALSE;
  g_free (*field);
  *field = g_strdup (value);
  return TRUE;
}

static void
set_string_prop (AgentsAgent *self, char **field, const char *value, int prop)
{
  if (agents_agent_set_string (field, value))
    g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

static void
set_object_prop (AgentsAgent *self,
                 JsonObject **field,
                 JsonObject *value,
                 int prop)
{
  if (*field == value)
    return;
  g_clear_pointer (field, json_object_unref);
  *field = value ? json_object_ref (value) : NULL;
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

/**
 * agents_agent_get_name:
 * @self: an agent
 *
 * Gets the agent's name.
 *
 * Returns: the name
 */
const char *
agents_agent_get_name (AgentsAgent *self)
{
  g_return_val_if_fail (AGENTS_IS_AGENT (self), NULL);
  return PRIV (self)->name;
}

/**
 * agents_agent_set_name:
 * @self: an agent
 * @name: the name
 *
 * Sets the agent's name.
 */
void
agents_agent_set_name (AgentsAgent *self, const char *name)
{
  g_return_if_fail (AGENTS_IS_AGENT (self));
  set_string_prop (self, &PRIV (self)->name, name, PROP_NAME);
}

/**
 * agents_agent_get_instructions:
 * @self: an agent
 *
 * Gets the static instructions.
 *
 * Returns: (nullable): the instructions
 */
const char *
agents_agent_get_instructions (AgentsAgent *self)
{
  g_return_val_if_fail (AGENTS_IS_AGENT (self), NULL);
  return PRIV (self)->instructions;
}

/**
 * agents_agent_set_instructions:
 * @self: an agent
 * @instructions: (nullable): the instructions
 *
 * Sets the static instructions.
 */
void
agents_agent_set_instructions (AgentsAgent *self, const char *instructions)
{
  g_return_if_fail (AGENTS_IS_AGENT (self));
  set_string_prop (self, &PRIV (self)->instructions, instructions,
                   PROP_INSTRUCTIONS);
}

/**
 * agents_agent_set_instructions_func:
 * @self: an agent
 * @func: (nullable) (scope notified) (closure user_data) (destroy destroy):
 *   computes the instructions for each turn, or %NULL for the static ones
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data
 *
 * Sets dynamic instructions. Clones share the function.
 */
void
agents_agent_set_instructions_func (AgentsAgent *self,
                                    AgentsInstructionsFunc func,
                                    gpointer user_data,
                                    GDestroyNotify destroy)
{
  AgentsAgentPrivate *priv;

  g_return_if_fail (AGENTS_IS_AGENT (self));

  priv = PRIV (self);
  agents_callback_unref (priv->instructions_func);
  priv->instructions_func = agents_callback_new (func, user_data, destroy);
}

/**
 * agents_agent_has_instructions_func:
 * @self: an agent
 *
 * Tells whether dynamic instructions are set.
 *
 * Returns: %TRUE if an instructions function is set
 */
gboolean
agents_agent_has_instructions_func (AgentsAgent *self)
{
  g_return_val_if_fail (AGENTS_IS_AGENT (self), FALSE);
  return PRIV (self)->instructions_func != NULL;
}

/**
 * agents_agent_get_prompt:
 * @self: an agent
 *
 * Gets the static prompt reference.
 *
 * Returns: (transfer none) (nullable): the prompt
 */
JsonObject *
agents_agent_get_prompt (AgentsAgent *self)
{
  g_return_val_if_fail (AGENTS_IS_AGENT (self), NULL);
  return PRIV (self)->prompt;
}

/**
 * agents_agent_set_prompt:
 * @self: an agent
 * @prompt: (nullable): `{"id", "version", "variables"}`
 *
 * Sets the static prompt reference.
 */
void
agents_agent_set_prompt (AgentsAgent *self, JsonObject *prompt)
{
  g_return_if_fail (AGENTS_IS_AGENT (self));
  set_object_prop (self, &PRIV (self)->prompt, prompt, PROP_PROMPT);
}

/**
 * agents_agent_set_prompt_func:
 * @self: an agent
 * @func: (nullable) (scope notified) (closure user_data) (destroy destroy):
 *   computes the prompt for each turn, or %NULL for the static one
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data
 *
 * Sets a dynamic prompt. Clones share the function.
 */
void
agents_agent_set_prompt_func (AgentsAgent *self,
                              AgentsPromptFunc func,
                              gpointer user_data,
                              GDestroyNotify destroy)
{
  AgentsAgentPrivate *priv;

  g_return_if_fail (AGENTS_IS_AGENT (self));

  priv = PRIV (self);
  agents_callback_unref (priv->prompt_func);
  priv->prompt_func = agents_callback_new (func, user_data, destroy);
}

/**
 * agents_agent_resolve_prompt:
 * @self: an agent
 * @ctx: the run context
 *
 * Gets the prompt for a turn: the prompt function's, else a copy of the
 * static prompt.
 *
 * Returns: (transfer full) (nullable): the prompt
 */
JsonObject *
agents_agent_resolve_prompt (AgentsAgent *self, AgentsRunContext *ctx)
{
  AgentsAgentPrivate *priv;

  g_return_val_if_fail (AGENTS_IS_AGENT (self), NULL);
  g_return_val_if_fail (AGENTS_IS_RUN_CONTEXT (ctx), NULL);

  priv = PRIV (self);
  if (priv->prompt_func != NULL)
    return ((AgentsPromptFunc) priv->prompt_func->func) (
      ctx, self, priv->prompt_func->user_data);
  return agents_run_private_json_object_copy (priv->prompt);
}

/**
 * agents_agent_get_model:
 * @self: an agent
 *
 * Gets the model.
 *
 * Returns: (transfer none) (nullable): the model
 */
AgentsModel *
agents_agent_get_model (AgentsAgent *self)
{
  g_return_val_if_fail (AGENTS_IS_AGENT (self), NULL);
  return PRIV (self)->model;
}

/**
 * agents_agent_set_model:
 * @self: an agent
 * @model: (nullable): the model
 *
 * Sets the model.
 */
void
agents_agent_set_model (AgentsAgent *self, AgentsModel *model)
{
  g_return_if_fail (AGENTS_IS_AGENT (self));
  g_return_if_fail (model == NULL || AGENTS_IS_MODEL (model));

  if (g_set_object (&PRIV (self)->model, model))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODEL]);
}

/**
 * agents_agent_get_model_name:
 * @self: an agent
 *
 * Gets the model's name.
 *
 * Returns: (nullable): the model name
 */
const char *
agents_agent_get_model_name (AgentsAgent *self)
{
  g_return_val_if_fail (AGENTS_IS_AGENT (self), NULL);
  return PRIV (self)->model_name;
}

/**
 * agents_agent_set_model_name:
 * @self: an agent
 * @model_name: (nullable): the model name
 *
 * Sets the model's name, resolved by a model provider.
 */
void
agents_agent_set_model_name (AgentsAgent *self, const char *model_name)
{
  g_return_if_fail (AGENTS_IS_AGENT (self));
  set_string_prop (self, &PRIV (self)->model_name, model_name, PROP_MODEL_NAME);
}

/**
 * agents_agent_get_model_settings:
 * @self: an agent
 *
 * Gets the model settings.
 *
 * Returns: (transfer none): the model settings
 */
AgentsModelSettings *
agents_agent_get_model_settings (AgentsAgent *self)
{
  g_return_val_if_fail (AGENTS_IS_AGENT (self), NULL);
  return PRIV (self)->model_settings;
}

/**
 * agents_agent_set_model_settings:
 * @self: an agent
 * @settings: (nullable): the model settings; %NULL means all unset
 *
 * Sets the model settings.
 */
void
agents_agent_set_model_settings (AgentsAgent *self,
                                 AgentsModelSettings *settings)
{
  g_autoptr (AgentsModelSettings) empty = NULL;

  g_return_if_fail (AGENTS_IS_AGENT (self));
  g_return_if_fail (settings == NULL || AGENTS_IS_MODEL_SETTINGS (settings));

  if (settings == NULL)
    settings = empty = agents_model_settings_new ();
  if (g_set_object (&PRIV (self)->model_settings, settings))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODEL_SETTINGS]);
}

/**
 * agents_agent_get_output_schema:
 * @self: an agent
 *
 * Gets the JSON schema of a structured final output.
 *
 * Returns: (transfer none) (nullable): the schema
 */
JsonObject *
agents_agent_get_output_schema (AgentsAgent *self)
{
  g_return_val_if_fail (AGENTS_IS_AGENT (self), NULL);
  return PRIV (self)->output_schema;
}

/**
 * agents_agent_set_output_schema:
 * @self: an agent
 * @output_schema: (nullable): the schema, %NULL for text output
 *
 * Sets the JSON schema of a structured final output.
 */
void
agents_agent_set_output_schema (AgentsAgent *self, JsonObject *output_schema)
{
  g_return_if_fail (AGENTS_IS_AGENT (self));
  set_object_prop (self, &PRIV (self)->output_schema, output_schema,
                   PROP_OUTPUT_SCHEMA);
}

/**
 * agents_agent_get_tool_use_behavior:
 * @self: an agent
 *
 * Gets what the run does after the agent's tools ran.
 *
 * Returns: the behaviour
 */
AgentsToolUseBehavior
agents_agent_get_tool_use_behavior (AgentsAgent *self)
{
  g_return_val_if_fail (AGENTS_IS_AGENT (self), 0);
  return PRIV (self)->tool_use_behavior;
}

/**
 * agents_agent_set_tool_use_behavior:
 * @self: an agent
 * @behavior: the behaviour
 *
 * Sets what the run does after the agent's tools ran.
 */
void
agents_agent_set_tool_use_behavior (AgentsAgent *self,
                                    AgentsToolUseBehavior behavior)
{
  AgentsAgentPrivate *priv;

  g_return_if_fail (AGENTS_IS_AGENT (self));

  priv = PRIV (self);
  if (priv->tool_use_behavior == behavior)
    return;
  priv->tool_use_behavior = behavior;
  g_object_notify_by_pspec (G_OBJECT (self),
                            properties[PROP_TOOL_USE_BEHAVIOR]);
}

/**
 * agents_agent_get_stop_at_tool_names:
 * @self: an agent
 *
 * Gets the tools whose output is the final output.
 *
 * Returns: (array zero-terminated=1) (nullable) (transfer none): the names
 */
const char *const *
agents_agent_get_stop_at_tool_names (AgentsAgent *self)
{
  g_return_val_if_fail (AGENTS_IS_AGENT (self), NULL);
  return (const char *const *) PRIV (self)->stop_at_tool_names;
}

/**
 * agents_agent_set_stop_at_tool_names:
 * @self: an agent
 * @names: (array zero-terminated=1) (nullable): the names
 *
 * Sets the tools whose output is the final output, with
 * %AGENTS_TOOL_USE_BEHAVIOR_STOP_AT_TOOL_NAMES.
 */
void
agents_agent_set_stop_at_tool_names (AgentsAgent *self,
                                     const char *const *names)
{
  AgentsAgentPrivate *priv;

  g_return_if_fail (AGENTS_IS_AGENT (self));

  priv = PRIV (self);
  if (priv->stop_at_tool_names == NULL && names == NULL)
    return;
  if (priv->stop_at_tool_names != NULL && names != NULL &&
      g_strv_equal ((const char *const *) priv->stop_at_tool_names, names))
    return;
  g_strfreev (priv->stop_at_tool_names);
  priv->stop_at_tool_names = g_strdupv ((char **) names);
  g_object_notify_by_pspec (G_OBJECT (self),
                            properties[PROP_STOP_AT_TOOL_NAMES]);
}

/**
 * agents_agent_get_reset_tool_choice:
 * @self: an agent
 *
 * Gets whether the tool choice is reset after a tool was used.
 *
 * Returns: the flag
 */
gboolean
agents_agent_get_reset_tool_choice (AgentsAgent *self)
{
  g_return_val_if_fail (AGENTS_IS_AGENT (self), TRUE);
  return PRIV (self)->reset_tool_choice;
}

/**
 * agents_agent_set_reset_tool_choice:
 * @self: an agent
 * @reset_tool_choice: whether the tool choice is reset after a tool was used
 *
 * Sets whether the tool choice is reset after a tool was used.
 */
void
agents_agent_set_reset_tool_choice (AgentsAgent *self,
                                    gboolean reset_tool_choice)
{
  AgentsAgentPrivate *priv;

  g_return_if_fail (AGENTS_IS_AGENT (self));

  priv = PRIV (self);
  reset_tool_choice = !!reset_tool_choice;
  if (priv->reset_tool_choice == reset_tool_choice)
    return;
  priv->reset_tool_choice = reset_tool_choice;
  g_object_notify_by_pspec (G_OBJECT (self),
                            properties[PROP_RESET_TOOL_CHOICE]);
}

/**
 * agents_agent_get_handoff_description:
 * @self: an agent
 *
 * Gets what the agent does, for agents handing off to it.
 *
 * Returns: (nullable): the description
 */
const char *
agents_agent_get_handoff_description (AgentsAgent *self)
{
  g_return_val_if_fail (AGENTS_IS_AGENT (self), NULL);
  return PRIV (self)->handoff_description;
}

/**
 * agents_agent_set_handoff_description:
 * @self: an agent
 * @description: (nullable): the description
 *
 * Sets what the agent does, for agents handing off to it.
 */
void
agents_agent_set_handoff_description (AgentsAgent *self,
                                      const char *description)
{
  g_return_if_fail (AGENTS_IS_AGENT (self));
  set_string_prop (self, &PRIV (self)->handoff_description, description,
                   PROP_HANDOFF_DESCRIPTION);
}

/**
 * agents_agent_get_tools:
 * @self: an agent
 *
 * Gets the agent's tools. The list is a #GListStore that may be changed.
 *
 * Returns: (transfer none): a list of #AgentsTool
 */
GListModel *
agents_agent_get_tools (AgentsAgent *self)
{
  g_return_val_if_fail (AGENTS_IS_AGENT (self), NULL);
  return G_LIST_MODEL (PRIV (self)->tools);
}

/**
 * agents_agent_add_tool:
 * @self: an agent
 * @tool: a tool
 *
 * Appends a tool.
 */
void
agents_agent_add_tool (AgentsAgent *self, AgentsTool *tool)
{
  g_return_if_fail (AGENTS_IS_AGENT (self));
  g_return_if_fail (AGENTS_IS_TOOL (tool));

  g_list_store_append (PRIV (self)->tools, tool);
}

/**
 * agents_agent_find_tool:
 * @self: an agent
 * @name: a tool name
 *
 * Finds the first of the agent's tools called @name.
 *
 * Returns: (transfer none) (nullable): the tool
 */
AgentsTool *
agents_agent_find_tool (AgentsAgent *self, const char *name)
{
  GListModel *tools;
  guint n;

  g_return_val_if_fail (AGENTS_IS_AGENT (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  tools = G_LIST_MODEL (PRIV (self)->tools);
  n = g_list_model_get_n_items (tools);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (AgentsTool) tool = g_list_model_get_item (tools, i);

      if (g_strcmp0 (agents_tool_get_name (tool), name) == 0)
        return tool; /* the list keeps a reference */
    }
  return NULL;
}

/**
 * agents_agent_get_handoffs:
 * @self: an agent
 *
 * Gets the agents this one can hand off to. The list is a #GListStore
 * that may be changed.
 *
 * Returns: (transfer none): a list of #AgentsAgent and #AgentsHandoff
 */
GListModel *
agents_agent_get_handoffs (AgentsAgent *self)
{
  g_return_val_if_fail (AGENTS_IS_AGENT (self), NULL);
  return G_LIST_MODEL (PRIV (self)->handoffs);
}

/**
 * agents_agent_add_handoff:
 * @self: an agent
 * @handoff: an #AgentsAgent or an #AgentsHandoff
 *
 * Appends a handoff.
 */
void
agents_agent_add_handoff (AgentsAgent *self, GObject *handoff)
{
  g_return_if_fail (AGENTS_IS_AGENT (self));
  g_return_if_fail (AGENTS_IS_AGENT (handoff) || AGENTS_IS_HANDOFF (handoff));

  g_list_store_append (PRIV (self)->handoffs, handoff);
}

/**
 * agents_agent_set_handoffs:
 * @self: an agent
 * @handoffs: (array length=n_handoffs) (nullable): #AgentsAgent and
 *   #AgentsHandoff objects
 * @n_handoffs: the number of @handoffs
 *
 * Replaces the handoffs.
 */
void
agents_agent_set_handoffs (AgentsAgent *self,
                           GObject **handoffs,
                           guint n_handoffs)
{
  GListStore *store;

  g_return_if_fail (AGENTS_IS_AGENT (self));
  g_return_if_fail (handoffs != NULL || n_handoffs == 0);

  for (guint i = 0; i < n_handoffs; i++)
    g_return_if_fail (AGENTS_IS_AGENT (handoffs[i]) ||
                      AGENTS_IS_HANDOFF (handoffs[i]));
  store = PRIV (self)->handoffs;
  g_list_store_splice (store, 0,
                       g_list_model_get_n_items (G_LIST_MODEL (store)),
                       (gpointer *) handoffs, n_handoffs);
}

/**
 * agents_agent_get_handoff_objects:
 * @self: an agent
 *
 * Gets the handoffs as #AgentsHandoff objects, in order: agents of the
 * list are wrapped in new handoffs with the default tool name and
 * description.
 *
 * Returns: (transfer container) (element-type AgentsHandoff): the handoffs;
 *   the array frees them
 */
GPtrArray *
agents_agent_get_handoff_objects (AgentsAgent *self)
{
  GListModel *list;
  GPtrArray *handoffs;
  guint n;

  g_return_val_if_fail (AGENTS_IS_AGENT (self), NULL);

  list = G_LIST_MODEL (PRIV (self)->handoffs);
  n = g_list_model_get_n_items (list);
  handoffs = g_ptr_array_new_full (n, g_object_unref);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GObject) item = g_list_model_get_item (list, i);

      if (AGENTS_IS_HANDOFF (item))
        g_ptr_array_add (handoffs, g_object_ref (item));
      else
        g_ptr_array_add (handoffs, agents_handoff_new (AGENTS_AGENT (item)));
    }
  return handoffs;
}

/**
 * agents_agent_get_input_guardrails:
 * @self: an agent
 *
 * Gets the checks of the run's input. The list is a #GListStore that may
 * be changed.
 *
 * Returns: (transfer none): a list of #AgentsInputGuardrail
 */
GListModel *
agents_agent_get_input_guardrails (AgentsAgent *self)
{
  g_return_val_if_fail (AGENTS_IS_AGENT (self), NULL);
  return G_LIST_MODEL (PRIV (self)->input_guardrails);
}

/**
 * agents_agent_add_input_guardrail:
 * @self: an agent
 * @guardrail: an input guardrail
 *
 * Appends an input guardrail.
 */
void
agents_agent_add_input_guardrail (AgentsAgent *self,
                                  AgentsInputGuardrail *guardrail)
{
  g_return_if_fail (AGENTS_IS_AGENT (self));
  g_return_if_fail (AGENTS_IS_INPUT_GUARDRAIL (guardrail));

  g_list_store_append (PRIV (self)->input_guardrails, guardrail);
}

/**
 * agents_agent_get_output_guardrails:
 * @self: an agent
 *
 * Gets the checks of the final output. The list is a #GListStore that may
 * be changed.
 *
 * Returns: (transfer none): a list of #AgentsOutputGuardrail
 */
GListModel *
agents_agent_get_output_guardrails (AgentsAgent *self)
{
  g_return_val_if_fail (AGENTS_IS_AGENT (self), NULL);
  return G_LIST_MODEL (PRIV (self)->output_guardrails);
}

/**
 * agents_agent_add_output_guardrail:
 * @self: an agent
 * @guardrail: an output guardrail
 *
 * Appends an output guardrail.
 */
void
agents_agent_add_output_guardrail (AgentsAgent *self,
                                   AgentsOutputGuardrail *guardrail)
{
  g_return_if_fail (AGENTS_IS_AGENT (self));
  g_return_if_fail (AGENTS_IS_OUTPUT_GUARDRAIL (guardrail));

  g_list_store_append (PRIV (self)->output_guardrails, guardrail);
}

/**
 * agents_agent_get_system_prompt_async:
 * @self: an agent
 * @ctx: the run context
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the system prompt
 * @user_data: data for @callback
 *
 * Computes the system prompt for a turn.
 */
void
agents_agent_get_system_prompt_async (AgentsAgent *self,
                                      AgentsRunContext *ctx,
                                      GCancellable *cancellable,
                                      GAsyncReadyCallback callback,
                                      gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_AGENT (self));
  g_return_if_fail (AGENTS_IS_RUN_CONTEXT (ctx));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_agent_get_system_prompt_async);
  AGENTS_AGENT_GET_CLASS (self)->get_system_prompt (self, ctx, task);
}

/**
 * agents_agent_get_system_prompt_finish:
 * @self: an agent
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_agent_get_system_prompt_async().
 *
 * Returns: (transfer full) (nullable): the system prompt, or %NULL for
 *   none (and on error)
 */
char *
agents_agent_get_system_prompt_finish (AgentsAgent *self,
                                       GAsyncResult *result,
                                       GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * agents_agent_identity_fingerprint:
 * @self: an agent
 *
 * Gets what tells this agent apart from others of the same name.
 *
 * Returns: (transfer full) (nullable): the fingerprint, or %NULL
 */
char *
agents_agent_identity_fingerprint (AgentsAgent *self)
{
  g_return_val_if_fail (AGENTS_IS_AGENT (self), NULL);

  return AGENTS_AGENT_GET_CLASS (self)->identity_fingerprint (self);
}

/**
 * agents_agent_clone:
 * @self: an agent
 *
 * Makes a shallow copy: the same model, settings and functions; new lists
 * holding the same tools, handoffs and guardrails.
 *
 * Returns: (transfer full): the copy
 */
AgentsAgent *
agents_agent_clone (AgentsAgent *self)
{
  g_return_val_if_fail (AGENTS_IS_AGENT (self), NULL);

  return AGENTS_AGENT_GET_CLASS (self)->clone (self);
}

/* Hooks */

void
agents_agent_emit_start (AgentsAgent *agent, AgentsRunContext *ctx)
{
  g_signal_emit (agent, signals[SIGNAL_START], 0, ctx);
}

void
agents_agent_emit_end (AgentsAgent *agent,
                       AgentsRunContext *ctx,
                       JsonNode *output)
{
  g_signal_emit (agent, signals[SIGNAL_END], 0, ctx, output);
}

void
agents_agent_emit_llm_start (AgentsAgent *agent,
                             AgentsRunContext *ctx,
                             const char *system_prompt,
                             JsonArray *input)
{
  g_signal_emit (agent, signals[SIGNAL_LLM_START], 0, ctx, system_prompt,
                 input);
}

void
agents_agent_emit_llm_end (AgentsAgent *agent,
                           AgentsRunContext *ctx,
                           AgentsModelResponse *response)
{
  g_signal_emit (agent, signals[SIGNAL_LLM_END], 0, ctx, response);
}

static GQuark
tool_detail (AgentsTool *tool)
{
  const char *name = agents_tool_get_name (tool);

  return name ? g_quark_from_string (name) : 0;
}

void
agents_agent_emit_tool_start (AgentsAgent *agent,
                              AgentsRunContext *ctx,
                              AgentsTool *tool)
{
  g_signal_emit (agent, signals[SIGNAL_TOOL_START], tool_detail (tool), ctx,
                 tool);
}

void
agents_agent_emit_tool_end (AgentsAgent *agent,
                            AgentsRunContext *ctx,
                            AgentsTool *tool,
                            JsonNode *result)
{
  g_signal_emit (agent, signals[SIGNAL_TOOL_END], tool_detail (tool), ctx, tool,
                 result);
}

void
agents_agent_emit_handoff (AgentsAgent *agent,
                           AgentsRunContext *ctx,
                           AgentsAgent *source)
{
  g_signal_emit (agent, signals[SIGNAL_HANDOFF], 0, ctx, source);
}
