/* agents-model-settings.c - sampling and request parameters of a model
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-model-settings.h"
#include "agents-run-error.h"

/**
 * AgentsModelSettings:
 *
 * The reference's `ModelSettings`: optional parameters of a model
 * request. Every field starts unset; a set field of the run config's
 * settings wins over the agent's (agents_model_settings_merge()).
 *
 * Setting a property marks it set, so
 * `Agents.ModelSettings(tool_choice="required")` leaves the others unset.
 * Numbers and booleans have `has_*()` and `unset_*()` functions; strings
 * and JSON objects are unset when %NULL.
 */

typedef enum
{
  HAS_TEMPERATURE = 1 << 0,
  HAS_TOP_P = 1 << 1,
  HAS_MAX_TOKENS = 1 << 2,
  HAS_PARALLEL_TOOL_CALLS = 1 << 3,
  HAS_STORE = 1 << 4,
  HAS_TOP_LOGPROBS = 1 << 5,
} SetFlags;

struct _AgentsModelSettings
{
  GObject parent_instance;

  guint set;
  char *tool_choice;
  double temperature;
  double top_p;
  int max_tokens;
  gboolean parallel_tool_calls;
  char *truncation;
  gboolean store;
  JsonObject *reasoning;
  JsonObject *metadata;
  JsonObject *extra_args;
  int top_logprobs;
  GStrv response_include;
};

G_DEFINE_FINAL_TYPE (AgentsModelSettings, agents_model_settings, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_TOOL_CHOICE,
  PROP_TEMPERATURE,
  PROP_TOP_P,
  PROP_MAX_TOKENS,
  PROP_PARALLEL_TOOL_CALLS,
  PROP_TRUNCATION,
  PROP_STORE,
  PROP_REASONING,
  PROP_METADATA,
  PROP_EXTRA_ARGS,
  PROP_TOP_LOGPROBS,
  PROP_RESPONSE_INCLUDE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
agents_model_settings_finalize (GObject *object)
{
  AgentsModelSettings *self = AGENTS_MODEL_SETTINGS (object);

  g_free (self->tool_choice);
  g_free (self->truncation);
  g_clear_pointer (&self->reasoning, json_object_unref);
  g_clear_pointer (&self->metadata, json_object_unref);
  g_clear_pointer (&self->extra_args, json_object_unref);

  g_strfreev (self->response_include);

  G_OBJECT_CLASS (agents_model_settings_parent_class)->finalize (object);
}

static void
agents_model_settings_get_property (GObject *object,
                                    guint prop_id,
                                    GValue *value,
                                    GParamSpec *pspec)
{
  AgentsModelSettings *self = AGENTS_MODEL_SETTINGS (object);

  switch (prop_id)
    {
    case PROP_TOOL_CHOICE:
      g_value_set_string (value, self->tool_choice);
      break;
    case PROP_TEMPERATURE:
      g_value_set_double (value, self->temperature);
      break;
    case PROP_TOP_P:
      g_value_set_double (value, self->top_p);
      break;
    case PROP_MAX_TOKENS:
      g_value_set_int (value, self->max_tokens);
      break;
    case PROP_TOP_LOGPROBS:
      g_value_set_int (value, self->top_logprobs);
      break;
    case PROP_RESPONSE_INCLUDE:
      g_value_set_boxed (value, self->response_include);
      break;
    case PROP_PARALLEL_TOOL_CALLS:
      g_value_set_boolean (value, self->parallel_tool_calls);
      break;
    case PROP_TRUNCATION:
      g_value_set_string (value, self->truncation);
      break;
    case PROP_STORE:
      g_value_set_boolean (value, self->store);
      break;
    case PROP_REASONING:
      g_value_set_boxed (value, self->reasoning);
      break;
    case PROP_METADATA:
      g_value_set_boxed (value, self->metadata);
      break;
    case PROP_EXTRA_ARGS:
      g_value_set_boxed (value, self->extra_args);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_model_settings_set_property (GObject *object,
                                    guint prop_id,
                                    const GValue *value,
                                    GParamSpec *pspec)
{
  AgentsModelSettings *self = AGENTS_MODEL_SETTINGS (object);

  switch (prop_id)
    {
    case PROP_TOOL_CHOICE:
      agents_model_settings_set_tool_choice (self, g_value_get_string (value));
      break;
    case PROP_TEMPERATURE:
      agents_model_settings_set_temperature (self, g_value_get_double (value));
      break;
    case PROP_TOP_P:
      agents_model_settings_set_top_p (self, g_value_get_double (value));
      break;
    case PROP_MAX_TOKENS:
      agents_model_settings_set_max_tokens (self, g_value_get_int (value));
      break;
    case PROP_TOP_LOGPROBS:
      agents_model_settings_set_top_logprobs (self, g_value_get_int (value));
      break;
    case PROP_RESPONSE_INCLUDE:
      agents_model_settings_set_response_include (self,
                                                  g_value_get_boxed (value));
      break;
    case PROP_PARALLEL_TOOL_CALLS:
      agents_model_settings_set_parallel_tool_calls (
        self, g_value_get_boolean (value));
      break;
    case PROP_TRUNCATION:
      agents_model_settings_set_truncation (self, g_value_get_string (value));
      break;
    case PROP_STORE:
      agents_model_settings_set_store (self, g_value_get_boolean (value));
      break;
    case PROP_REASONING:
      agents_model_settings_set_reasoning (self, g_value_get_boxed (value));
      break;
    case PROP_METADATA:
      agents_model_settings_set_metadata (self, g_value_get_boxed (value));
      break;
    case PROP_EXTRA_ARGS:
      agents_model_settings_set_extra_args (self, g_value_get_boxed (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

#define PARAM_FLAGS \
  (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY)

static void
agents_model_settings_class_init (AgentsModelSettingsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = agents_model_settings_finalize;
  object_class->get_property = agents_model_settings_get_property;
  object_class->set_property = agents_model_settings_set_property;

  /**
   * AgentsModelSettings:tool-choice:
   *
   * `"auto"`, `"required"`, `"none"` or the name of a tool.
   */
  properties[PROP_TOOL_CHOICE] =
    g_param_spec_string ("tool-choice", NULL, NULL, NULL, PARAM_FLAGS);
  /**
   * AgentsModelSettings:temperature:
   *
   * The sampling temperature; see agents_model_settings_has_temperature().
   */
  properties[PROP_TEMPERATURE] = g_param_spec_double (
    "temperature", NULL, NULL, 0.0, G_MAXDOUBLE, 0.0, PARAM_FLAGS);
  /**
   * AgentsModelSettings:top-p:
   *
   * Nucleus sampling; see agents_model_settings_has_top_p().
   */
  properties[PROP_TOP_P] = g_param_spec_double ("top-p", NULL, NULL, 0.0,
                                                G_MAXDOUBLE, 0.0, PARAM_FLAGS);
  /**
   * AgentsModelSettings:max-tokens:
   *
   * The most output tokens; see agents_model_settings_has_max_tokens().
   */
  properties[PROP_MAX_TOKENS] =
    g_param_spec_int ("max-tokens", NULL, NULL, 0, G_MAXINT, 0, PARAM_FLAGS);
  /**
   * AgentsModelSettings:parallel-tool-calls:
   *
   * Whether the model may call several tools in one turn; see
   * agents_model_settings_has_parallel_tool_calls().
   */
  properties[PROP_PARALLEL_TOOL_CALLS] = g_param_spec_boolean (
    "parallel-tool-calls", NULL, NULL, FALSE, PARAM_FLAGS);
  /**
   * AgentsModelSettings:truncation:
   *
   * The truncation strategy, `"auto"` or `"disabled"`.
   */
  properties[PROP_TRUNCATION] =
    g_param_spec_string ("truncation", NULL, NULL, NULL, PARAM_FLAGS);
  /**
   * AgentsModelSettings:store:
   *
   * Whether the provider stores the response; see
   * agents_model_settings_has_store().
   */
  properties[PROP_STORE] =
    g_param_spec_boolean ("store", NULL, NULL, FALSE, PARAM_FLAGS);
  /**
   * AgentsModelSettings:reasoning:
   *
   * Reasoning options, e.g. `{"effort": "low"}`.
   */
  properties[PROP_REASONING] =
    g_param_spec_boxed ("reasoning", NULL, NULL, JSON_TYPE_OBJECT, PARAM_FLAGS);
  /**
   * AgentsModelSettings:metadata:
   *
   * Metadata sent with the request.
   */
  properties[PROP_METADATA] =
    g_param_spec_boxed ("metadata", NULL, NULL, JSON_TYPE_OBJECT, PARAM_FLAGS);
  /**
   * AgentsModelSettings:extra-args:
   *
   * More members for the request body.
   */
  properties[PROP_EXTRA_ARGS] = g_param_spec_boxed (
    "extra-args", NULL, NULL, JSON_TYPE_OBJECT, PARAM_FLAGS);

  /**
   * AgentsModelSettings:top-logprobs:
   *
   * How many most likely tokens to return with each output token; see
   * agents_model_settings_has_top_logprobs().
   */
  properties[PROP_TOP_LOGPROBS] =
    g_param_spec_int ("top-logprobs", NULL, NULL, 0, G_MAXINT, 0, PARAM_FLAGS);
  /**
   * AgentsModelSettings:response-include:
   *
   * Extra output the Responses API should include (its `include`
   * parameter), e.g. `"reasoning.encrypted_content"`.
   */
  properties[PROP_RESPONSE_INCLUDE] = g_param_spec_boxed (
    "response-include", NULL, NULL, G_TYPE_STRV, PARAM_FLAGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
agents_model_settings_init (AgentsModelSettings *self)
{
}

/**
 * agents_model_settings_new:
 *
 * Creates settings with every field unset.
 *
 * Returns: (transfer full): new settings
 */
AgentsModelSettings *
agents_model_settings_new (void)
{
  return g_object_new (AGENTS_TYPE_MODEL_SETTINGS, NULL);
}

/* json_node_copy() of an object node shares the object; this copies. */
static JsonObject *
deep_copy_object (JsonObject *object)
{
  g_autoptr (JsonNode) node = NULL;
  g_autofree char *text = NULL;
  g_autoptr (JsonNode) parsed = NULL;

  if (object == NULL)
    return NULL;
  node = json_node_init_object (json_node_alloc (), object);
  text = json_to_string (node, FALSE);
  parsed = json_from_string (text, NULL);
  return json_object_ref (json_node_get_object (parsed));
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

static void
replace_object (AgentsModelSettings *self,
                JsonObject **field,
                JsonObject *value,
                GParamSpec *pspec)
{
  if (*field == value)
    return;
  g_clear_pointer (field, json_object_unref);
  *field = value ? json_object_ref (value) : NULL;
  g_object_notify_by_pspec (G_OBJECT (self), pspec);
}

/**
 * agents_model_settings_get_tool_choice:
 * @self: model settings
 *
 * Gets the tool choice.
 *
 * Returns: (nullable): the tool choice, or %NULL when unset
 */
const char *
agents_model_settings_get_tool_choice (AgentsModelSettings *self)
{
  g_return_val_if_fail (AGENTS_IS_MODEL_SETTINGS (self), NULL);
  return self->tool_choice;
}

/**
 * agents_model_settings_set_tool_choice:
 * @self: model settings
 * @tool_choice: (nullable): `"auto"`, `"required"`, `"none"`, a tool name,
 *   or %NULL to unset
 *
 * Sets the tool choice.
 */
void
agents_model_settings_set_tool_choice (AgentsModelSettings *self,
                                       const char *tool_choice)
{
  g_return_if_fail (AGENTS_IS_MODEL_SETTINGS (self));

  if (set_string (&self->tool_choice, tool_choice))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TOOL_CHOICE]);
}

#define NUMBER_FIELD(field, type, flag, prop)                            \
  gboolean agents_model_settings_has_##field (AgentsModelSettings *self) \
  {                                                                      \
    g_return_val_if_fail (AGENTS_IS_MODEL_SETTINGS (self), FALSE);       \
    return (self->set & (flag)) != 0;                                    \
  }                                                                      \
  type agents_model_settings_get_##field (AgentsModelSettings *self)     \
  {                                                                      \
    g_return_val_if_fail (AGENTS_IS_MODEL_SETTINGS (self), 0);           \
    return self->field;                                                  \
  }                                                                      \
  void agents_model_settings_set_##field (AgentsModelSettings *self,     \
                                          type value)                    \
  {                                                                      \
    g_return_if_fail (AGENTS_IS_MODEL_SETTINGS (self));                  \
    if ((self->set & (flag)) && self->field == value)                    \
      return;                                                            \
    self->field = value;                                                 \
    self->set |= (flag);                                                 \
    g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);        \
  }                                                                      \
  void agents_model_settings_unset_##field (AgentsModelSettings *self)   \
  {                                                                      \
    g_return_if_fail (AGENTS_IS_MODEL_SETTINGS (self));                  \
    if (!(self->set & (flag)))                                           \
      return;                                                            \
    self->set &= ~(flag);                                                \
    self->field = 0;                                                     \
    g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);        \
  }

/**
 * agents_model_settings_has_temperature:
 * @self: model settings
 *
 * Tells whether the temperature is set.
 *
 * Returns: %TRUE if set
 */
/**
 * agents_model_settings_get_temperature:
 * @self: model settings
 *
 * Gets the temperature, 0 when unset.
 *
 * Returns: the temperature
 */
/**
 * agents_model_settings_set_temperature:
 * @self: model settings
 * @temperature: the temperature
 *
 * Sets the temperature.
 */
/**
 * agents_model_settings_unset_temperature:
 * @self: model settings
 *
 * Unsets the temperature.
 */
NUMBER_FIELD (temperature, double, HAS_TEMPERATURE, PROP_TEMPERATURE)

/**
 * agents_model_settings_has_top_p:
 * @self: model settings
 *
 * Tells whether top_p is set.
 *
 * Returns: %TRUE if set
 */
/**
 * agents_model_settings_get_top_p:
 * @self: model settings
 *
 * Gets top_p, 0 when unset.
 *
 * Returns: top_p
 */
/**
 * agents_model_settings_set_top_p:
 * @self: model settings
 * @top_p: top_p
 *
 * Sets top_p.
 */
/**
 * agents_model_settings_unset_top_p:
 * @self: model settings
 *
 * Unsets top_p.
 */
NUMBER_FIELD (top_p, double, HAS_TOP_P, PROP_TOP_P)

/**
 * agents_model_settings_has_max_tokens:
 * @self: model settings
 *
 * Tells whether the most output tokens are set.
 *
 * Returns: %TRUE if set
 */
/**
 * agents_model_settings_get_max_tokens:
 * @self: model settings
 *
 * Gets the most output tokens, 0 when unset.
 *
 * Returns: the most output tokens
 */
/**
 * agents_model_settings_set_max_tokens:
 * @self: model settings
 * @max_tokens: the most output tokens
 *
 * Sets the most output tokens.
 */
/**
 * agents_model_settings_unset_max_tokens:
 * @self: model settings
 *
 * Unsets the most output tokens.
 */
NUMBER_FIELD (max_tokens, int, HAS_MAX_TOKENS, PROP_MAX_TOKENS)

/**
 * agents_model_settings_has_top_logprobs:
 * @self: model settings
 *
 * Tells whether top_logprobs is set.
 *
 * Returns: %TRUE if set
 */
/**
 * agents_model_settings_get_top_logprobs:
 * @self: model settings
 *
 * Gets how many most likely tokens come with each output token, 0 when
 * unset.
 *
 * Returns: top_logprobs
 */
/**
 * agents_model_settings_set_top_logprobs:
 * @self: model settings
 * @top_logprobs: how many most likely tokens to return
 *
 * Sets top_logprobs. The Responses model then also asks to include
 * `message.output_text.logprobs`.
 */
/**
 * agents_model_settings_unset_top_logprobs:
 * @self: model settings
 *
 * Unsets top_logprobs.
 */
NUMBER_FIELD (top_logprobs, int, HAS_TOP_LOGPROBS, PROP_TOP_LOGPROBS)

/**
 * agents_model_settings_get_response_include:
 * @self: model settings
 *
 * Gets the extra output the Responses API should include.
 *
 * Returns: (transfer none) (nullable) (array zero-terminated=1): the
 *   values, or %NULL when unset
 */
const char *const *
agents_model_settings_get_response_include (AgentsModelSettings *self)
{
  g_return_val_if_fail (AGENTS_IS_MODEL_SETTINGS (self), NULL);
  return (const char *const *) self->response_include;
}

/**
 * agents_model_settings_set_response_include:
 * @self: model settings
 * @include: (nullable) (array zero-terminated=1): the values, or %NULL to
 *   unset
 *
 * Sets the extra output the Responses API should include (its `include`
 * parameter, merged with what the tools and top_logprobs need).
 */
void
agents_model_settings_set_response_include (AgentsModelSettings *self,
                                            const char *const *include)
{
  g_return_if_fail (AGENTS_IS_MODEL_SETTINGS (self));
  if (self->response_include == NULL && include == NULL)
    return;
  g_strfreev (self->response_include);
  self->response_include = g_strdupv ((char **) include);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RESPONSE_INCLUDE]);
}

/**
 * agents_model_settings_has_parallel_tool_calls:
 * @self: model settings
 *
 * Tells whether parallel tool calls are set.
 *
 * Returns: %TRUE if set
 */
/**
 * agents_model_settings_get_parallel_tool_calls:
 * @self: model settings
 *
 * Gets whether the model may call tools in parallel, %FALSE when unset.
 *
 * Returns: the value
 */
/**
 * agents_model_settings_set_parallel_tool_calls:
 * @self: model settings
 * @parallel_tool_calls: whether the model may call tools in parallel
 *
 * Sets whether the model may call tools in parallel.
 */
/**
 * agents_model_settings_unset_parallel_tool_calls:
 * @self: model settings
 *
 * Unsets parallel tool calls.
 */
NUMBER_FIELD (parallel_tool_calls,
              gboolean,
              HAS_PARALLEL_TOOL_CALLS,
              PROP_PARALLEL_TOOL_CALLS)

/**
 * agents_model_settings_has_store:
 * @self: model settings
 *
 * Tells whether store is set.
 *
 * Returns: %TRUE if set
 */
/**
 * agents_model_settings_get_store:
 * @self: model settings
 *
 * Gets whether the provider stores the response, %FALSE when unset.
 *
 * Returns: the value
 */
/**
 * agents_model_settings_set_store:
 * @self: model settings
 * @store: whether the provider stores the response
 *
 * Sets whether the provider stores the response.
 */
/**
 * agents_model_settings_unset_store:
 * @self: model settings
 *
 * Unsets store.
 */
NUMBER_FIELD (store, gboolean, HAS_STORE, PROP_STORE)

/**
 * agents_model_settings_get_truncation:
 * @self: model settings
 *
 * Gets the truncation strategy.
 *
 * Returns: (nullable): the truncation strategy, or %NULL when unset
 */
const char *
agents_model_settings_get_truncation (AgentsModelSettings *self)
{
  g_return_val_if_fail (AGENTS_IS_MODEL_SETTINGS (self), NULL);
  return self->truncation;
}

/**
 * agents_model_settings_set_truncation:
 * @self: model settings
 * @truncation: (nullable): the truncation strategy, or %NULL to unset
 *
 * Sets the truncation strategy.
 */
void
agents_model_settings_set_truncation (AgentsModelSettings *self,
                                      const char *truncation)
{
  g_return_if_fail (AGENTS_IS_MODEL_SETTINGS (self));

  if (set_string (&self->truncation, truncation))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TRUNCATION]);
}

/**
 * agents_model_settings_get_reasoning:
 * @self: model settings
 *
 * Gets the reasoning options.
 *
 * Returns: (transfer none) (nullable): the reasoning options
 */
JsonObject *
agents_model_settings_get_reasoning (AgentsModelSettings *self)
{
  g_return_val_if_fail (AGENTS_IS_MODEL_SETTINGS (self), NULL);
  return self->reasoning;
}

/**
 * agents_model_settings_set_reasoning:
 * @self: model settings
 * @reasoning: (nullable): the reasoning options, or %NULL to unset
 *
 * Sets the reasoning options. The object is referenced, not copied.
 */
void
agents_model_settings_set_reasoning (AgentsModelSettings *self,
                                     JsonObject *reasoning)
{
  g_return_if_fail (AGENTS_IS_MODEL_SETTINGS (self));
  replace_object (self, &self->reasoning, reasoning,
                  properties[PROP_REASONING]);
}

/**
 * agents_model_settings_get_metadata:
 * @self: model settings
 *
 * Gets the metadata.
 *
 * Returns: (transfer none) (nullable): the metadata
 */
JsonObject *
agents_model_settings_get_metadata (AgentsModelSettings *self)
{
  g_return_val_if_fail (AGENTS_IS_MODEL_SETTINGS (self), NULL);
  return self->metadata;
}

/**
 * agents_model_settings_set_metadata:
 * @self: model settings
 * @metadata: (nullable): the metadata, or %NULL to unset
 *
 * Sets the metadata. The object is referenced, not copied.
 */
void
agents_model_settings_set_metadata (AgentsModelSettings *self,
                                    JsonObject *metadata)
{
  g_return_if_fail (AGENTS_IS_MODEL_SETTINGS (self));
  replace_object (self, &self->metadata, metadata, properties[PROP_METADATA]);
}

/**
 * agents_model_settings_get_extra_args:
 * @self: model settings
 *
 * Gets the extra request members.
 *
 * Returns: (transfer none) (nullable): the extra request members
 */
JsonObject *
agents_model_settings_get_extra_args (AgentsModelSettings *self)
{
  g_return_val_if_fail (AGENTS_IS_MODEL_SETTINGS (self), NULL);
  return self->extra_args;
}

/**
 * agents_model_settings_set_extra_args:
 * @self: model settings
 * @extra_args: (nullable): the extra request members, or %NULL to unset
 *
 * Sets the extra request members. The object is referenced, not copied.
 */
void
agents_model_settings_set_extra_args (AgentsModelSettings *self,
                                      JsonObject *extra_args)
{
  g_return_if_fail (AGENTS_IS_MODEL_SETTINGS (self));
  replace_object (self, &self->extra_args, extra_args,
                  properties[PROP_EXTRA_ARGS]);
}

/* Copies the set fields of @src over @dest, deep-copying JSON. */
static void
copy_set_fields (AgentsModelSettings *dest, AgentsModelSettings *src)
{
  if (src->tool_choice != NULL)
    set_string (&dest->tool_choice, src->tool_choice);
  if (src->truncation != NULL)
    set_string (&dest->truncation, src->truncation);
  if (src->set & HAS_TEMPERATURE)
    dest->temperature = src->temperature;
  if (src->set & HAS_TOP_P)
    dest->top_p = src->top_p;
  if (src->set & HAS_MAX_TOKENS)
    dest->max_tokens = src->max_tokens;
  if (src->set & HAS_PARALLEL_TOOL_CALLS)
    dest->parallel_tool_calls = src->parallel_tool_calls;
  if (src->set & HAS_STORE)
    dest->store = src->store;
  if (src->set & HAS_TOP_LOGPROBS)
    dest->top_logprobs = src->top_logprobs;
  if (src->response_include != NULL)
    {
      g_strfreev (dest->response_include);
      dest->response_include = g_strdupv (src->response_include);
    }
  dest->set |= src->set;
  if (src->reasoning != NULL)
    {
      g_clear_pointer (&dest->reasoning, json_object_unref);
      dest->reasoning = deep_copy_object (src->reasoning);
    }
  if (src->metadata != NULL)
    {
      g_clear_pointer (&dest->metadata, json_object_unref);
      dest->metadata = deep_copy_object (src->metadata);
    }
}

/**
 * agents_model_settings_copy:
 * @self: model settings
 *
 * Makes an independent copy; JSON objects are deep-copied.
 *
 * Returns: (transfer full): the copy
 */
AgentsModelSettings *
agents_model_settings_copy (AgentsModelSettings *self)
{
  AgentsModelSettings *copy;

  g_return_val_if_fail (AGENTS_IS_MODEL_SETTINGS (self), NULL);

  copy = agents_model_settings_new ();
  copy_set_fields (copy, self);
  copy->extra_args = deep_copy_object (self->extra_args);
  return copy;
}

static void
merge_members (JsonObject *into, JsonObject *from)
{
  g_autoptr (JsonObject) copy = deep_copy_object (from);
  JsonObjectIter iter;
  const char *name;
  JsonNode *value;

  json_object_iter_init (&iter, copy);
  while (json_object_iter_next (&iter, &name, &value))
    json_object_set_member (into, name, json_node_copy (value));
}

/**
 * agents_model_settings_merge:
 * @base: (nullable): the settings to start from (an agent's)
 * @override: (nullable): the settings whose set fields win (a run
 *   config's)
 *
 * Resolves two settings the way the reference's `ModelSettings.resolve()`
 * does: every field set in @override wins; the extra arguments are merged
 * member by member, @override's members winning.
 *
 * Returns: (transfer full): new settings
 */
AgentsModelSettings *
agents_model_settings_merge (AgentsModelSettings *base,
                             AgentsModelSettings *override)
{
  AgentsModelSettings *merged;

  g_return_val_if_fail (base == NULL || AGENTS_IS_MODEL_SETTINGS (base), NULL);
  g_return_val_if_fail (override == NULL || AGENTS_IS_MODEL_SETTINGS (override),
                        NULL);

  merged =
    base ? agents_model_settings_copy (base) : agents_model_settings_new ();
  if (override == NULL)
    return merged;

  copy_set_fields (merged, override);
  if (override->extra_args != NULL)
    {
      if (merged->extra_args == NULL)
        merged->extra_args = json_object_new ();
      merge_members (merged->extra_args, override->extra_args);
    }
  return merged;
}

static JsonNode *
object_node (JsonObject *object)
{
  return json_node_init_object (json_node_alloc (), object);
}

/**
 * agents_model_settings_to_json:
 * @self: model settings
 *
 * Serializes the set fields with the reference's member names
 * (`temperature`, `top_p`, `tool_choice`, `parallel_tool_calls`,
 * `truncation`, `max_tokens`, `reasoning`, `metadata`, `store`,
 * `top_logprobs`, `response_include`, `extra_args`).
 *
 * Returns: (transfer full): a JSON object
 */
JsonObject *
agents_model_settings_to_json (AgentsModelSettings *self)
{
  JsonObject *json;

  g_return_val_if_fail (AGENTS_IS_MODEL_SETTINGS (self), NULL);

  json = json_object_new ();
  if (self->set & HAS_TEMPERATURE)
    json_object_set_double_member (json, "temperature", self->temperature);
  if (self->set & HAS_TOP_P)
    json_object_set_double_member (json, "top_p", self->top_p);
  if (self->tool_choice != NULL)
    json_object_set_string_member (json, "tool_choice", self->tool_choice);
  if (self->set & HAS_PARALLEL_TOOL_CALLS)
    json_object_set_boolean_member (json, "parallel_tool_calls",
                                    self->parallel_tool_calls);
  if (self->truncation != NULL)
    json_object_set_string_member (json, "truncation", self->truncation);
  if (self->set & HAS_MAX_TOKENS)
    json_object_set_int_member (json, "max_tokens", self->max_tokens);
  if (self->reasoning != NULL)
    json_object_set_object_member (json, "reasoning",
                                   deep_copy_object (self->reasoning));
  if (self->metadata != NULL)
    json_object_set_object_member (json, "metadata",
                                   deep_copy_object (self->metadata));
  if (self->set & HAS_STORE)
    json_object_set_boolean_member (json, "store", self->store);
  if (self->set & HAS_TOP_LOGPROBS)
    json_object_set_int_member (json, "top_logprobs", self->top_logprobs);
  if (self->response_include != NULL)
    {
      JsonArray *include = json_array_new ();

      for (guint i = 0; self->response_include[i]; i++)
        json_array_add_string_element (include, self->response_include[i]);
      json_object_set_array_member (json, "response_include", include);
    }
  if (self->extra_args != NULL)
    json_object_set_object_member (json, "extra_args",
                                   deep_copy_object (self->extra_args));
  return json;
}

static gboolean
type_error (GError **error, const char *member, const char *expected)
{
  agents_run_error_set (error, AGENTS_RUN_ERROR_USER_ERROR, NULL,
                        _ ("model settings member “%s” must be %s"), member,
                        expected);
  return FALSE;
}

static gboolean
is_number (JsonNode *node)
{
  GType type = json_node_get_value_type (node);

  return JSON_NODE_HOLDS_VALUE (node) &&
         (type == G_TYPE_INT64 || type == G_TYPE_DOUBLE);
}

static gboolean
is_type (JsonNode *node, GType type)
{
  return JSON_NODE_HOLDS_VALUE (node) &&
         json_node_get_value_type (node) == type;
}

static gboolean
load_include (AgentsModelSettings *self, JsonNode *value, GError **error)
{
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
  g_auto (GStrv) include = NULL;
  JsonArray *array;

  if (!JSON_NODE_HOLDS_ARRAY (value))
    return type_error (error, "response_include", _ ("an array of strings"));
  array = json_node_get_array (value);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);

      if (!is_type (element, G_TYPE_STRING))
        return type_error (error, "response_include",
                           _ ("an array of strings"));
      g_strv_builder_add (builder, json_node_get_string (element));
    }
  include = g_strv_builder_end (builder);
  agents_model_settings_set_response_include (self,
                                              (const char *const *) include);
  return TRUE;
}

static gboolean
load_member (AgentsModelSettings *self,
             const char *name,
             JsonNode *value,
             GError **error)
{
  if (JSON_NODE_HOLDS_NULL (value))
    return TRUE;

  if (g_str_equal (name, "temperature") || g_str_equal (name, "top_p"))
    {
      if (!is_number (value))
        return type_error (error, name, _ ("a number"));
      if (g_str_equal (name, "temperature"))
        agents_model_settings_set_temperature (self,
                                               json_node_get_double (value));
      else
        agents_model_settings_set_top_p (self, json_node_get_double (value));
    }
  else if (g_str_equal (name, "max_tokens") ||
           g_str_equal (name, "top_logprobs"))
    {
      if (!is_type (value, G_TYPE_INT64) || json_node_get_int (value) < 0 ||
          json_node_get_int (value) > G_MAXINT)
        return type_error (error, name, _ ("a non-negative integer"));
      if (g_str_equal (name, "max_tokens"))
        agents_model_settings_set_max_tokens (self, json_node_get_int (value));
      else
        agents_model_settings_set_top_logprobs (self,
                                                json_node_get_int (value));
    }
  else if (g_str_equal (name, "response_include"))
    return load_include (self, value, error);
  else if (g_str_equal (name, "tool_choice") ||
           g_str_equal (name, "truncation"))
    {
      if (!is_type (value, G_TYPE_STRING))
        return type_error (error, name, _ ("a string"));
      if (g_str_equal (name, "tool_choice"))
        agents_model_settings_set_tool_choice (self,
                                               json_node_get_string (value));
      else
        agents_model_settings_set_truncation (self,
                                              json_node_get_string (value));
    }
  else if (g_str_equal (name, "parallel_tool_calls") ||
           g_str_equal (name, "store"))
    {
      if (!is_type (value, G_TYPE_BOOLEAN))
        return type_error (error, name, _ ("a boolean"));
      if (g_str_equal (name, "store"))
        agents_model_settings_set_store (self, json_node_get_boolean (value));
      else
        agents_model_settings_set_parallel_tool_calls (
          self, json_node_get_boolean (value));
    }
  else if (g_str_equal (name, "reasoning") || g_str_equal (name, "metadata") ||
           g_str_equal (name, "extra_args"))
    {
      g_autoptr (JsonObject) copy = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (value))
        return type_error (error, name, _ ("an object"));
      copy = deep_copy_object (json_node_get_object (value));
      if (g_str_equal (name, "reasoning"))
        agents_model_settings_set_reasoning (self, copy);
      else if (g_str_equal (name, "metadata"))
        agents_model_settings_set_metadata (self, copy);
      else
        agents_model_settings_set_extra_args (self, copy);
    }
  /* Members of newer versions or other implementations are ignored. */
  return TRUE;
}

/**
 * agents_model_settings_new_from_json:
 * @json: a JSON object, as agents_model_settings_to_json() makes
 * @error: return location for a #GError
 *
 * Reads settings from JSON. `null` members are unset; unknown members
 * are ignored; a member of the wrong type fails with
 * %AGENTS_RUN_ERROR_USER_ERROR.
 *
 * Returns: (transfer full): new settings, or %NULL on error
 */
AgentsModelSettings *
agents_model_settings_new_from_json (JsonObject *json, GError **error)
{
  g_autoptr (AgentsModelSettings) self = agents_model_settings_new ();
  JsonObjectIter iter;
  const char *name;
  JsonNode *value;

  g_return_val_if_fail (json != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  json_object_iter_init (&iter, json);
  while (json_object_iter_next (&iter, &name, &value))
    if (!load_member (self, name, value, error))
      return NULL;
  return g_steal_pointer (&self);
}

/**
 * agents_model_settings_equal:
 * @a: model settings
 * @b: model settings
 *
 * Compares two settings field by field.
 *
 * Returns: %TRUE if the same fields are set to equal values
 */
gboolean
agents_model_settings_equal (AgentsModelSettings *a, AgentsModelSettings *b)
{
  g_autoptr (JsonObject) ja = NULL;
  g_autoptr (JsonObject) jb = NULL;
  g_autoptr (JsonNode) na = NULL;
  g_autoptr (JsonNode) nb = NULL;

  g_return_val_if_fail (AGENTS_IS_MODEL_SETTINGS (a), FALSE);
  g_return_val_if_fail (AGENTS_IS_MODEL_SETTINGS (b), FALSE);

  if (a == b)
    return TRUE;
  ja = agents_model_settings_to_json (a);
  jb = agents_model_settings_to_json (b);
  na = object_node (ja);
  nb = object_node (jb);
  return json_node_equal (na, nb);
}
