/* agents-run-config.c - settings of a whole run
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-run-config.h"
#include "agents-run-private.h"

/* AgentsModelInputData */

/**
 * AgentsModelInputData:
 *
 * What a model call is given: the system instructions and the input
 * items (the reference's `ModelInputData`).
 */
struct _AgentsModelInputData
{
  gatomicrefcount ref_count;
  char *instructions;
  JsonArray *input;
};

G_DEFINE_BOXED_TYPE (AgentsModelInputData,
                     agents_model_input_data,
                     agents_model_input_data_ref,
                     agents_model_input_data_unref)

/**
 * agents_model_input_data_new:
 * @instructions: (nullable): the system instructions
 * @input: (nullable): the input items; %NULL for none
 *
 * Creates model input data. @input is referenced, not copied.
 *
 * Returns: (transfer full): the data
 */
AgentsModelInputData *
agents_model_input_data_new (const char *instructions, JsonArray *input)
{
  AgentsModelInputData *self = g_new0 (AgentsModelInputData, 1);

  g_atomic_ref_count_init (&self->ref_count);
  self->instructions = g_strdup (instructions);
  self->input = input ? json_array_ref (input) : json_array_new ();
  return self;
}

/**
 * agents_model_input_data_ref:
 * @self: model input data
 *
 * Takes a reference.
 *
 * Returns: (transfer full): @self
 */
AgentsModelInputData *
agents_model_input_data_ref (AgentsModelInputData *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/**
 * agents_model_input_data_unref:
 * @self: (transfer full): model input data
 *
 * Drops a reference.
 */
void
agents_model_input_data_unref (AgentsModelInputData *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  g_free (self->instructions);
  json_array_unref (self->input);
  g_free (self);
}

/**
 * agents_model_input_data_get_instructions:
 * @self: model input data
 *
 * Gets the system instructions.
 *
 * Returns: (nullable): the instructions
 */
const char *
agents_model_input_data_get_instructions (AgentsModelInputData *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->instructions;
}

/**
 * agents_model_input_data_get_input:
 * @self: model input data
 *
 * Gets the input items.
 *
 * Returns: (transfer none): the input items
 */
JsonArray *
agents_model_input_data_get_input (AgentsModelInputData *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->input;
}

/* AgentsCallModelData */

/**
 * AgentsCallModelData:
 *
 * What a call-model input filter sees: the agent the user built, the
 * user's context and the model input data (the reference's
 * `CallModelData`).
 */
struct _AgentsCallModelData
{
  gatomicrefcount ref_count;
  AgentsAgent *agent;
  GObject *context;
  AgentsModelInputData *model_data;
};

G_DEFINE_BOXED_TYPE (AgentsCallModelData,
                     agents_call_model_data,
                     agents_call_model_data_ref,
                     agents_call_model_data_unref)

/**
 * agents_call_model_data_new:
 * @agent: the agent, as the user built it
 * @context: (nullable): the user's context object
 * @model_data: what the model would be given
 *
 * Creates call-model data.
 *
 * Returns: (transfer full): the data
 */
AgentsCallModelData *
agents_call_model_data_new (AgentsAgent *agent,
                            GObject *context,
                            AgentsModelInputData *model_data)
{
  AgentsCallModelData *self;

  g_return_val_if_fail (AGENTS_IS_AGENT (agent), NULL);
  g_return_val_if_fail (model_data != NULL, NULL);

  self = g_new0 (AgentsCallModelData, 1);
  g_atomic_ref_count_init (&self->ref_count);
  self->agent = g_object_ref (agent);
  self->context = context ? g_object_ref (context) : NULL;
  self->model_data = agents_model_input_data_ref (model_data);
  return self;
}

/**
 * agents_call_model_data_ref:
 * @self: call-model data
 *
 * Takes a reference.
 *
 * Returns: (transfer full): @self
 */
AgentsCallModelData *
agents_call_model_data_ref (AgentsCallModelData *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/**
 * agents_call_model_data_unref:
 * @self: (transfer full): call-model data
 *
 * Drops a reference.
 */
void
agents_call_model_data_unref (AgentsCallModelData *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  g_object_unref (self->agent);
  g_clear_object (&self->context);
  agents_model_input_data_unref (self->model_data);
  g_free (self);
}

/**
 * agents_call_model_data_get_agent:
 * @self: call-model data
 *
 * Gets the agent, as the user built it.
 *
 * Returns: (transfer none): the agent
 */
AgentsAgent *
agents_call_model_data_get_agent (AgentsCallModelData *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->agent;
}

/**
 * agents_call_model_data_get_context:
 * @self: call-model data
 *
 * Gets the user's context object.
 *
 * Returns: (transfer none) (nullable): the context
 */
GObject *
agents_call_model_data_get_context (AgentsCallModelData *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->context;
}

/**
 * agents_call_model_data_get_model_data:
 * @self: call-model data
 *
 * Gets what the model would be given.
 *
 * Returns: (transfer none): the model input data
 */
AgentsModelInputData *
agents_call_model_data_get_model_data (AgentsCallModelData *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->model_data;
}

/* AgentsRunConfig */

/**
 * AgentsRunConfig:
 *
 * Settings of a whole run (the reference's `RunConfig`): a model and
 * model settings that override the agents', the turn limit, tracing, a
 * filter of every model call's input, and the sandbox configuration the
 * sandbox runtime reads.
 */

struct _AgentsRunConfig
{
  GObject parent_instance;

  AgentsModel *model;
  AgentsModelSettings *model_settings;
  guint max_turns;
  gboolean tracing_disabled;
  gboolean trace_include_sensitive_data;
  char *workflow_name;
  char *group_id;
  JsonObject *trace_metadata;
  GObject *sandbox;
  AgentsCallModelInputFilter filter;
  gpointer filter_data;
  GDestroyNotify filter_destroy;
};

G_DEFINE_FINAL_TYPE (AgentsRunConfig, agents_run_config, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_MODEL,
  PROP_MODEL_SETTINGS,
  PROP_MAX_TURNS,
  PROP_TRACING_DISABLED,
  PROP_TRACE_INCLUDE_SENSITIVE_DATA,
  PROP_WORKFLOW_NAME,
  PROP_GROUP_ID,
  PROP_TRACE_METADATA,
  PROP_SANDBOX,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
clear_filter (AgentsRunConfig *self)
{
  if (self->filter_destroy != NULL)
    self->filter_destroy (self->filter_data);
  self->filter = NULL;
  self->filter_data = NULL;
  self->filter_destroy = NULL;
}

static void
agents_run_config_dispose (GObject *object)
{
  AgentsRunConfig *self = AGENTS_RUN_CONFIG (object);

  g_clear_object (&self->model);
  g_clear_object (&self->model_settings);
  g_clear_object (&self->sandbox);
  clear_filter (self);

  G_OBJECT_CLASS (agents_run_config_parent_class)->dispose (object);
}

static void
agents_run_config_finalize (GObject *object)
{
  AgentsRunConfig *self = AGENTS_RUN_CONFIG (object);

  g_free (self->workflow_name);
  g_free (self->group_id);
  g_clear_pointer (&self->trace_metadata, json_object_unref);

  G_OBJECT_CLASS (agents_run_config_parent_class)->finalize (object);
}

static void
agents_run_config_get_property (GObject *object,
                                guint prop_id,
                                GValue *value,
                                GParamSpec *pspec)
{
  AgentsRunConfig *self = AGENTS_RUN_CONFIG (object);

  switch (prop_id)
    {
    case PROP_MODEL:
      g_value_set_object (value, self->model);
      break;
    case PROP_MODEL_SETTINGS:
      g_value_set_object (value, self->model_settings);
      break;
    case PROP_MAX_TURNS:
      g_value_set_uint (value, self->max_turns);
      break;
    case PROP_TRACING_DISABLED:
      g_value_set_boolean (value, self->tracing_disabled);
      break;
    case PROP_TRACE_INCLUDE_SENSITIVE_DATA:
      g_value_set_boolean (value, self->trace_include_sensitive_data);
      break;
    case PROP_WORKFLOW_NAME:
      g_value_set_string (value, self->workflow_name);
      break;
    case PROP_GROUP_ID:
      g_value_set_string (value, self->group_id);
      break;
    case PROP_TRACE_METADATA:
      g_value_set_boxed (value, self->trace_metadata);
      break;
    case PROP_SANDBOX:
      g_value_set_object (value, self->sandbox);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_run_config_set_property (GObject *object,
                                guint prop_id,
                                const GValue *value,
                                GParamSpec *pspec)
{
  AgentsRunConfig *self = AGENTS_RUN_CONFIG (object);

  switch (prop_id)
    {
    case PROP_MODEL:
      agents_run_config_set_model (self, g_value_get_object (value));
      break;
    case PROP_MODEL_SETTINGS:
      agents_run_config_set_model_settings (self, g_value_get_object (value));
      break;
    case PROP_MAX_TURNS:
      agents_run_config_set_max_turns (self, g_value_get_uint (value));
      break;
    case PROP_TRACING_DISABLED:
      agents_run_config_set_tracing_disabled (self,
                                              g_value_get_boolean (value));
      break;
    case PROP_TRACE_INCLUDE_SENSITIVE_DATA:
      agents_run_config_set_trace_include_sensitive_data (
        self, g_value_get_boolean (value));
      break;
    case PROP_WORKFLOW_NAME:
      agents_run_config_set_workflow_name (self, g_value_get_string (value));
      break;
    case PROP_GROUP_ID:
      agents_run_config_set_group_id (self, g_value_get_string (value));
      break;
    case PROP_TRACE_METADATA:
      agents_run_config_set_trace_metadata (self, g_value_get_boxed (value));
      break;
    case PROP_SANDBOX:
      agents_run_config_set_sandbox (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

#define PARAM_FLAGS \
  (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY)

static void
agents_run_config_class_init (AgentsRunConfigClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = agents_run_config_dispose;
  object_class->finalize = agents_run_config_finalize;
  object_class->get_property = agents_run_config_get_property;
  object_class->set_property = agents_run_config_set_property;

  /**
   * AgentsRunConfig:model:
   *
   * The model every agent of the run uses, overriding theirs.
   */
  properties[PROP_MODEL] =
    g_param_spec_object ("model", NULL, NULL, AGENTS_TYPE_MODEL, PARAM_FLAGS);
  /**
   * AgentsRunConfig:model-settings:
   *
   * Settings merged over every agent's (set fields win).
   */
  properties[PROP_MODEL_SETTINGS] = g_param_spec_object (
    "model-settings", NULL, NULL, AGENTS_TYPE_MODEL_SETTINGS, PARAM_FLAGS);
  /**
   * AgentsRunConfig:max-turns:
   *
   * The most turns (model calls) of the run.
   */
  properties[PROP_MAX_TURNS] =
    g_param_spec_uint ("max-turns", NULL, NULL, 1, G_MAXUINT, 10, PARAM_FLAGS);
  /**
   * AgentsRunConfig:tracing-disabled:
   *
   * Whether the run records no trace.
   */
  properties[PROP_TRACING_DISABLED] =
    g_param_spec_boolean ("tracing-disabled", NULL, NULL, FALSE, PARAM_FLAGS);
  /**
   * AgentsRunConfig:trace-include-sensitive-data:
   *
   * Whether traces include model and tool inputs and outputs.
   */
  properties[PROP_TRACE_INCLUDE_SENSITIVE_DATA] = g_param_spec_boolean (
    "trace-include-sensitive-data", NULL, NULL, TRUE, PARAM_FLAGS);
  /**
   * AgentsRunConfig:workflow-name:
   *
   * The name of the run's trace.
   */
  properties[PROP_WORKFLOW_NAME] = g_param_spec_string (
    "workflow-name", NULL, NULL, "Agent workflow", PARAM_FLAGS);
  /**
   * AgentsRunConfig:group-id:
   *
   * Links the traces of several runs, e.g. of one conversation.
   */
  properties[PROP_GROUP_ID] =
    g_param_spec_string ("group-id", NULL, NULL, NULL, PARAM_FLAGS);
  /**
   * AgentsRunConfig:trace-metadata:
   *
   * Metadata of the run's trace.
   */
  properties[PROP_TRACE_METADATA] = g_param_spec_boxed (
    "trace-metadata", NULL, NULL, JSON_TYPE_OBJECT, PARAM_FLAGS);
  /**
   * AgentsRunConfig:sandbox:
   *
   * The sandbox configuration of the run; the sandbox runtime defines its
   * type.
   */
  properties[PROP_SANDBOX] =
    g_param_spec_object ("sandbox", NULL, NULL, G_TYPE_OBJECT, PARAM_FLAGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
agents_run_config_init (AgentsRunConfig *self)
{
  self->max_turns = 10;
  self->trace_include_sensitive_data = TRUE;
  self->workflow_name = g_strdup ("Agent workflow");
}

/**
 * agents_run_config_new:
 *
 * Creates a run config with the defaults.
 *
 * Returns: (transfer full): the run config
 */
AgentsRunConfig *
agents_run_config_new (void)
{
  return g_object_new (AGENTS_TYPE_RUN_CONFIG, NULL);
}

static void
notify (AgentsRunConfig *self, int prop)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

static gboolean
set_string (char **field, const char *value)
{
  if (g_strcmp0 (*field, value) == 0)
    return FALSE;
  g_free (*field);
  *field = g_strdup (value);
  return TRUE;
}

/**
 * agents_run_config_get_model:
 * @self: a run config
 *
 * Gets the model overriding the agents'.
 *
 * Returns: (transfer none) (nullable): the model
 */
AgentsModel *
agents_run_config_get_model (AgentsRunConfig *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_CONFIG (self), NULL);
  return self->model;
}

/**
 * agents_run_config_set_model:
 * @self: a run config
 * @model: (nullable): the model
 *
 * Sets the model overriding the agents'.
 */
void
agents_run_config_set_model (AgentsRunConfig *self, AgentsModel *model)
{
  g_return_if_fail (AGENTS_IS_RUN_CONFIG (self));
  g_return_if_fail (model == NULL || AGENTS_IS_MODEL (model));

  if (g_set_object (&self->model, model))
    notify (self, PROP_MODEL);
}

/**
 * agents_run_config_get_model_settings:
 * @self: a run config
 *
 * Gets the settings merged over the agents'.
 *
 * Returns: (transfer none) (nullable): the settings
 */
AgentsModelSettings *
agents_run_config_get_model_settings (AgentsRunConfig *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_CONFIG (self), NULL);
  return self->model_settings;
}

/**
 * agents_run_config_set_model_settings:
 * @self: a run config
 * @settings: (nullable): the settings
 *
 * Sets the settings merged over the agents'.
 */
void
agents_run_config_set_model_settings (AgentsRunConfig *self,
                                      AgentsModelSettings *settings)
{
  g_return_if_fail (AGENTS_IS_RUN_CONFIG (self));
  g_return_if_fail (settings == NULL || AGENTS_IS_MODEL_SETTINGS (settings));

  if (g_set_object (&self->model_settings, settings))
    notify (self, PROP_MODEL_SETTINGS);
}

/**
 * agents_run_config_get_max_turns:
 * @self: a run config
 *
 * Gets the most turns of the run.
 *
 * Returns: the most turns
 */
guint
agents_run_config_get_max_turns (AgentsRunConfig *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_CONFIG (self), 10);
  return self->max_turns;
}

/**
 * agents_run_config_set_max_turns:
 * @self: a run config
 * @max_turns: the most turns, at least 1
 *
 * Sets the most turns of the run.
 */
void
agents_run_config_set_max_turns (AgentsRunConfig *self, guint max_turns)
{
  g_return_if_fail (AGENTS_IS_RUN_CONFIG (self));
  g_return_if_fail (max_turns >= 1);

  if (self->max_turns == max_turns)
    return;
  self->max_turns = max_turns;
  notify (self, PROP_MAX_TURNS);
}

/**
 * agents_run_config_get_tracing_disabled:
 * @self: a run config
 *
 * Gets whether the run records no trace.
 *
 * Returns: %TRUE if tracing is disabled
 */
gboolean
agents_run_config_get_tracing_disabled (AgentsRunConfig *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_CONFIG (self), FALSE);
  return self->tracing_disabled;
}

/**
 * agents_run_config_set_tracing_disabled:
 * @self: a run config
 * @disabled: whether the run records no trace
 *
 * Sets whether the run records no trace.
 */
void
agents_run_config_set_tracing_disabled (AgentsRunConfig *self,
                                        gboolean disabled)
{
  g_return_if_fail (AGENTS_IS_RUN_CONFIG (self));

  disabled = !!disabled;
  if (self->tracing_disabled == disabled)
    return;
  self->tracing_disabled = disabled;
  notify (self, PROP_TRACING_DISABLED);
}

/**
 * agents_run_config_get_trace_include_sensitive_data:
 * @self: a run config
 *
 * Gets whether traces include inputs and outputs.
 *
 * Returns: the flag
 */
gboolean
agents_run_config_get_trace_include_sensitive_data (AgentsRunConfig *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_CONFIG (self), TRUE);
  return self->trace_include_sensitive_data;
}

/**
 * agents_run_config_set_trace_include_sensitive_data:
 * @self: a run config
 * @include: whether traces include inputs and outputs
 *
 * Sets whether traces include inputs and outputs.
 */
void
agents_run_config_set_trace_include_sensitive_data (AgentsRunConfig *self,
                                                    gboolean include)
{
  g_return_if_fail (AGENTS_IS_RUN_CONFIG (self));

  include = !!include;
  if (self->trace_include_sensitive_data == include)
    return;
  self->trace_include_sensitive_data = include;
  notify (self, PROP_TRACE_INCLUDE_SENSITIVE_DATA);
}

/**
 * agents_run_config_get_workflow_name:
 * @self: a run config
 *
 * Gets the name of the run's trace.
 *
 * Returns: the workflow name
 */
const char *
agents_run_config_get_workflow_name (AgentsRunConfig *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_CONFIG (self), NULL);
  return self->workflow_name;
}

/**
 * agents_run_config_set_workflow_name:
 * @self: a run config
 * @workflow_name: (nullable): the workflow name, %NULL for the default
 *
 * Sets the name of the run's trace.
 */
void
agents_run_config_set_workflow_name (AgentsRunConfig *self,
                                     const char *workflow_name)
{
  g_return_if_fail (AGENTS_IS_RUN_CONFIG (self));

  if (set_string (&self->workflow_name,
                  workflow_name ? workflow_name : "Agent workflow"))
    notify (self, PROP_WORKFLOW_NAME);
}

/**
 * agents_run_config_get_group_id:
 * @self: a run config
 *
 * Gets the trace group id.
 *
 * Returns: (nullable): the group id
 */
const char *
agents_run_config_get_group_id (AgentsRunConfig *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_CONFIG (self), NULL);
  return self->group_id;
}

/**
 * agents_run_config_set_group_id:
 * @self: a run config
 * @group_id: (nullable): the group id
 *
 * Sets the trace group id.
 */
void
agents_run_config_set_group_id (AgentsRunConfig *self, const char *group_id)
{
  g_return_if_fail (AGENTS_IS_RUN_CONFIG (self));

  if (set_string (&self->group_id, group_id))
    notify (self, PROP_GROUP_ID);
}

/**
 * agents_run_config_get_trace_metadata:
 * @self: a run config
 *
 * Gets the metadata of the run's trace.
 *
 * Returns: (transfer none) (nullable): the metadata
 */
JsonObject *
agents_run_config_get_trace_metadata (AgentsRunConfig *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_CONFIG (self), NULL);
  return self->trace_metadata;
}

/**
 * agents_run_config_set_trace_metadata:
 * @self: a run config
 * @metadata: (nullable): the metadata
 *
 * Sets the metadata of the run's trace.
 */
void
agents_run_config_set_trace_metadata (AgentsRunConfig *self,
                                      JsonObject *metadata)
{
  g_return_if_fail (AGENTS_IS_RUN_CONFIG (self));

  if (self->trace_metadata == metadata)
    return;
  g_clear_pointer (&self->trace_metadata, json_object_unref);
  self->trace_metadata = metadata ? json_object_ref (metadata) : NULL;
  notify (self, PROP_TRACE_METADATA);
}

/**
 * agents_run_config_get_sandbox:
 * @self: a run config
 *
 * Gets the sandbox configuration.
 *
 * Returns: (transfer none) (nullable): the sandbox configuration
 */
GObject *
agents_run_config_get_sandbox (AgentsRunConfig *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_CONFIG (self), NULL);
  return self->sandbox;
}

/**
 * agents_run_config_set_sandbox:
 * @self: a run config
 * @sandbox: (nullable): the sandbox configuration
 *
 * Sets the sandbox configuration.
 */
void
agents_run_config_set_sandbox (AgentsRunConfig *self, GObject *sandbox)
{
  g_return_if_fail (AGENTS_IS_RUN_CONFIG (self));
  g_return_if_fail (sandbox == NULL || G_IS_OBJECT (sandbox));

  if (g_set_object (&self->sandbox, sandbox))
    notify (self, PROP_SANDBOX);
}

/**
 * agents_run_config_set_call_model_input_filter:
 * @self: a run config
 * @filter: (nullable) (scope notified) (closure user_data) (destroy destroy):
 *   edits what each model call is given, or %NULL
 * @user_data: data for @filter
 * @destroy: (nullable): frees @user_data
 *
 * Sets the filter of every model call's input.
 */
void
agents_run_config_set_call_model_input_filter (
  AgentsRunConfig *self,
  AgentsCallModelInputFilter filter,
  gpointer user_data,
  GDestroyNotify destroy)
{
  g_return_if_fail (AGENTS_IS_RUN_CONFIG (self));

  clear_filter (self);
  self->filter = filter;
  self->filter_data = user_data;
  self->filter_destroy = destroy;
}

/**
 * agents_run_config_has_call_model_input_filter:
 * @self: a run config
 *
 * Tells whether a call-model input filter is set.
 *
 * Returns: %TRUE if a filter is set
 */
gboolean
agents_run_config_has_call_model_input_filter (AgentsRunConfig *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_CONFIG (self), FALSE);
  return self->filter != NULL;
}

/**
 * agents_run_config_apply_call_model_input_filter:
 * @self: a run config
 * @data: the agent, context and model input of the call
 *
 * Applies the call-model input filter.
 *
 * Returns: (transfer full): what the model is given (the model data of
 *   @data when no filter is set or the filter returned %NULL)
 */
AgentsModelInputData *
agents_run_config_apply_call_model_input_filter (AgentsRunConfig *self,
                                                 AgentsCallModelData *data)
{
  AgentsModelInputData *result = NULL;

  g_return_val_if_fail (AGENTS_IS_RUN_CONFIG (self), NULL);
  g_return_val_if_fail (data != NULL, NULL);

  if (self->filter != NULL)
    result = self->filter (data, self->filter_data);
  if (result == NULL)
    result = agents_model_input_data_ref (data->model_data);
  return result;
}
