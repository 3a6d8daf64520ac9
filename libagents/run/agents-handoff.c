/* agents-handoff.c - AgentsHandoff, a handoff to another agent
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

/* AgentsHandoff */

/**
 * AgentsHandoff:
 *
 * A handoff to an agent, as the model sees it: a function tool, by
 * default `transfer_to_<agent name in function style>`, whose call makes
 * that agent the current one. An input filter may rewrite what the next
 * agent sees.
 */

struct _AgentsHandoff
{
  GObject parent_instance;

  AgentsAgent *agent;
  char *tool_name;
  char *tool_description;
  JsonObject *input_json_schema;
  gboolean strict;
  AgentsCallback *input_filter;
};

G_DEFINE_FINAL_TYPE (AgentsHandoff, agents_handoff, G_TYPE_OBJECT)

enum
{
  H_PROP_0,
  H_PROP_AGENT,
  H_PROP_TOOL_NAME,
  H_PROP_TOOL_DESCRIPTION,
  H_PROP_INPUT_JSON_SCHEMA,
  H_PROP_STRICT,
  H_N_PROPS
};

static GParamSpec *handoff_properties[H_N_PROPS];

static void
agents_handoff_finalize (GObject *object)
{
  AgentsHandoff *self = AGENTS_HANDOFF (object);

  g_clear_object (&self->agent);
  g_free (self->tool_name);
  g_free (self->tool_description);
  g_clear_pointer (&self->input_json_schema, json_object_unref);
  agents_callback_unref (self->input_filter);

  G_OBJECT_CLASS (agents_handoff_parent_class)->finalize (object);
}

static void
agents_handoff_get_property (GObject *object,
                             guint prop_id,
                             GValue *value,
                             GParamSpec *pspec)
{
  AgentsHandoff *self = AGENTS_HANDOFF (object);

  switch (prop_id)
    {
    case H_PROP_AGENT:
      g_value_set_object (value, self->agent);
      break;
    case H_PROP_TOOL_NAME:
      g_value_set_string (value, self->tool_name);
      break;
    case H_PROP_TOOL_DESCRIPTION:
      g_value_set_string (value, self->tool_description);
      break;
    case H_PROP_INPUT_JSON_SCHEMA:
      g_value_set_boxed (value, self->input_json_schema);
      break;
    case H_PROP_STRICT:
      g_value_set_boolean (value, self->strict);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_handoff_set_property (GObject *object,
                             guint prop_id,
                             const GValue *value,
                             GParamSpec *pspec)
{
  AgentsHandoff *self = AGENTS_HANDOFF (object);

  switch (prop_id)
    {
    case H_PROP_AGENT:
      self->agent = g_value_dup_object (value);
      break;
    case H_PROP_TOOL_NAME:
      agents_handoff_set_tool_name (self, g_value_get_string (value));
      break;
    case H_PROP_TOOL_DESCRIPTION:
      agents_handoff_set_tool_description (self, g_value_get_string (value));
      break;
    case H_PROP_INPUT_JSON_SCHEMA:
      agents_handoff_set_input_json_schema (self, g_value_get_boxed (value));
      break;
    case H_PROP_STRICT:
      agents_handoff_set_strict (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_handoff_constructed (GObject *object)
{
  AgentsHandoff *self = AGENTS_HANDOFF (object);

  G_OBJECT_CLASS (agents_handoff_parent_class)->constructed (object);

  g_return_if_fail (AGENTS_IS_AGENT (self->agent));
  if (self->tool_name == NULL)
    self->tool_name = agents_handoff_default_tool_name (self->agent);
  if (self->tool_description == NULL)
    self->tool_description =
      agents_handoff_default_tool_description (self->agent);
}

static void
agents_handoff_class_init (AgentsHandoffClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = agents_handoff_finalize;
  object_class->get_property = agents_handoff_get_property;
  object_class->set_property = agents_handoff_set_property;
  object_class->constructed = agents_handoff_constructed;

  /**
   * AgentsHandoff:agent:
   *
   * The agent handed off to.
   */
  handoff_properties[H_PROP_AGENT] = g_param_spec_object (
    "agent", NULL, NULL, AGENTS_TYPE_AGENT,
    G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * AgentsHandoff:tool-name:
   *
   * The name of the handoff's tool.
   */
  handoff_properties[H_PROP_TOOL_NAME] = g_param_spec_string (
    "tool-name", NULL, NULL, NULL, AGENTS_AGENT_PARAM_FLAGS);
  /**
   * AgentsHandoff:tool-description:
   *
   * The description of the handoff's tool.
   */
  handoff_properties[H_PROP_TOOL_DESCRIPTION] = g_param_spec_string (
    "tool-description", NULL, NULL, NULL, AGENTS_AGENT_PARAM_FLAGS);
  /**
   * AgentsHandoff:input-json-schema:
   *
   * The JSON schema of the handoff tool's arguments; %NULL for none.
   */
  handoff_properties[H_PROP_INPUT_JSON_SCHEMA] =
    g_param_spec_boxed ("input-json-schema", NULL, NULL, JSON_TYPE_OBJECT,
                        AGENTS_AGENT_PARAM_FLAGS);
  /**
   * AgentsHandoff:strict:
   *
   * Whether the model must follow the schema strictly.
   */
  handoff_properties[H_PROP_STRICT] = g_param_spec_boolean (
    "strict", NULL, NULL, TRUE, AGENTS_AGENT_PARAM_FLAGS | G_PARAM_CONSTRUCT);

  g_object_class_install_properties (object_class, H_N_PROPS,
                                     handoff_properties);
}

static void
agents_handoff_init (AgentsHandoff *self)
{
  self->strict = TRUE;
}

/**
 * agents_handoff_new:
 * @agent: the agent to hand off to
 *
 * Creates a handoff with the default tool name and description.
 *
 * Returns: (transfer full): the handoff
 */
AgentsHandoff *
agents_handoff_new (AgentsAgent *agent)
{
  g_return_val_if_fail (AGENTS_IS_AGENT (agent), NULL);

  return g_object_new (AGENTS_TYPE_HANDOFF, "agent", agent, NULL);
}

/**
 * agents_handoff_get_agent:
 * @self: a handoff
 *
 * Gets the agent handed off to.
 *
 * Returns: (transfer none): the agent
 */
AgentsAgent *
agents_handoff_get_agent (AgentsHandoff *self)
{
  g_return_val_if_fail (AGENTS_IS_HANDOFF (self), NULL);
  return self->agent;
}

/**
 * agents_handoff_get_agent_name:
 * @self: a handoff
 *
 * Gets the name of the agent handed off to.
 *
 * Returns: the name
 */
const char *
agents_handoff_get_agent_name (AgentsHandoff *self)
{
  g_return_val_if_fail (AGENTS_IS_HANDOFF (self), NULL);
  return agents_agent_get_name (self->agent);
}

/**
 * agents_handoff_get_tool_name:
 * @self: a handoff
 *
 * Gets the name of the handoff's tool.
 *
 * Returns: the tool name
 */
const char *
agents_handoff_get_tool_name (AgentsHandoff *self)
{
  g_return_val_if_fail (AGENTS_IS_HANDOFF (self), NULL);
  return self->tool_name;
}

/**
 * agents_handoff_set_tool_name:
 * @self: a handoff
 * @tool_name: (nullable): the tool name, %NULL for the default
 *
 * Sets the name of the handoff's tool.
 */
void
agents_handoff_set_tool_name (AgentsHandoff *self, const char *tool_name)
{
  g_return_if_fail (AGENTS_IS_HANDOFF (self));

  if (tool_name == NULL && self->agent == NULL)
    return; /* construction: the default comes in constructed() */
  if (tool_name == NULL)
    {
      g_autofree char *name = agents_handoff_default_tool_name (self->agent);

      if (agents_agent_set_string (&self->tool_name, name))
        g_object_notify_by_pspec (G_OBJECT (self),
                                  handoff_properties[H_PROP_TOOL_NAME]);
      return;
    }
  if (agents_agent_set_string (&self->tool_name, tool_name))
    g_object_notify_by_pspec (G_OBJECT (self),
                              handoff_properties[H_PROP_TOOL_NAME]);
}

/**
 * agents_handoff_get_tool_description:
 * @self: a handoff
 *
 * Gets the description of the handoff's tool.
 *
 * Returns: the description
 */
const char *
agents_handoff_get_tool_description (AgentsHandoff *self)
{
  g_return_val_if_fail (AGENTS_IS_HANDOFF (self), NULL);
  return self->tool_description;
}

/**
 * agents_handoff_set_tool_description:
 * @self: a handoff
 * @description: the description
 *
 * Sets the description of the handoff's tool.
 */
void
agents_handoff_set_tool_description (AgentsHandoff *self,
                                     const char *description)
{
  g_return_if_fail (AGENTS_IS_HANDOFF (self));

  if (agents_agent_set_string (&self->tool_description, description))
    g_object_notify_by_pspec (G_OBJECT (self),
                              handoff_properties[H_PROP_TOOL_DESCRIPTION]);
}

/**
 * agents_handoff_get_input_json_schema:
 * @self: a handoff
 *
 * Gets the JSON schema of the handoff tool's arguments.
 *
 * Returns: (transfer none) (nullable): the schema
 */
JsonObject *
agents_handoff_get_input_json_schema (AgentsHandoff *self)
{
  g_return_val_if_fail (AGENTS_IS_HANDOFF (self), NULL);
  return self->input_json_schema;
}

/**
 * agents_handoff_set_input_json_schema:
 * @self: a handoff
 * @schema: (nullable): the schema, %NULL for none
 *
 * Sets the JSON schema of the handoff tool's arguments. It is copied.
 */
void
agents_handoff_set_input_json_schema (AgentsHandoff *self, JsonObject *schema)
{
  g_return_if_fail (AGENTS_IS_HANDOFF (self));

  if (self->input_json_schema == schema)
    return;
  g_clear_pointer (&self->input_json_schema, json_object_unref);
  self->input_json_schema = agents_run_private_json_object_copy (schema);
  g_object_notify_by_pspec (G_OBJECT (self),
                            handoff_properties[H_PROP_INPUT_JSON_SCHEMA]);
}

/**
 * agents_handoff_get_strict:
 * @self: a handoff
 *
 * Gets whether the model must follow the schema strictly.
 *
 * Returns: the flag
 */
gboolean
agents_handoff_get_strict (AgentsHandoff *self)
{
  g_return_val_if_fail (AGENTS_IS_HANDOFF (self), TRUE);
  return self->strict;
}

/**
 * agents_handoff_set_strict:
 * @self: a handoff
 * @strict: whether the model must follow the schema strictly
 *
 * Sets whether the model must follow the schema strictly.
 */
void
agents_handoff_set_strict (AgentsHandoff *self, gboolean strict)
{
  g_return_if_fail (AGENTS_IS_HANDOFF (self));

  strict = !!strict;
  if (self->strict == strict)
    return;
  self->strict = strict;
  g_object_notify_by_pspec (G_OBJECT (self), handoff_properties[H_PROP_STRICT]);
}

/**
 * agents_handoff_set_input_filter:
 * @self: a handoff
 * @filter: (nullable) (scope notified) (closure user_data) (destroy destroy):
 *   rewrites what the next agent sees, or %NULL
 * @user_data: data for @filter
 * @destroy: (nullable): frees @user_data
 *
 * Sets the handoff's input filter.
 */
void
agents_handoff_set_input_filter (AgentsHandoff *self,
                                 AgentsHandoffInputFilter filter,
                                 gpointer user_data,
                                 GDestroyNotify destroy)
{
  g_return_if_fail (AGENTS_IS_HANDOFF (self));

  agents_callback_unref (self->input_filter);
  self->input_filter = agents_callback_new (filter, user_data, destroy);
}

/**
 * agents_handoff_has_input_filter:
 * @self: a handoff
 *
 * Tells whether an input filter is set.
 *
 * Returns: %TRUE if an input filter is set
 */
gboolean
agents_handoff_has_input_filter (AgentsHandoff *self)
{
  g_return_val_if_fail (AGENTS_IS_HANDOFF (self), FALSE);
  return self->input_filter != NULL;
}

/**
 * agents_handoff_apply_input_filter:
 * @self: a handoff
 * @data: what the next agent would see
 *
 * Applies the input filter, if any.
 *
 * Returns: (transfer full): what the next agent sees (@data itself when no
 *   filter is set)
 */
AgentsHandoffInputData *
agents_handoff_apply_input_filter (AgentsHandoff *self,
                                   AgentsHandoffInputData *data)
{
  AgentsHandoffInputData *filtered;

  g_return_val_if_fail (AGENTS_IS_HANDOFF (self), NULL);
  g_return_val_if_fail (data != NULL, NULL);

  if (self->input_filter == NULL)
    return agents_handoff_input_data_ref (data);
  filtered = ((AgentsHandoffInputFilter) self->input_filter->func) (
    data, self->input_filter->user_data);
  return filtered ? filtered : agents_handoff_input_data_ref (data);
}

/* The schema of a handoff without input, as the reference's strict schema
 * conversion makes it from `{}`. */
static JsonObject *
empty_schema (void)
{
  JsonObject *schema = json_object_new ();

  json_object_set_boolean_member (schema, "additionalProperties", FALSE);
  json_object_set_string_member (schema, "type", "object");
  json_object_set_object_member (schema, "properties", json_object_new ());
  json_object_set_array_member (schema, "required", json_array_new ());
  return schema;
}

/**
 * agents_handoff_to_model_json:
 * @self: a handoff
 *
 * Gets the handoff's tool definition as the model receives it.
 *
 * Returns: (transfer full): the definition
 */
JsonObject *
agents_handoff_to_model_json (AgentsHandoff *self)
{
  JsonObject *json;

  g_return_val_if_fail (AGENTS_IS_HANDOFF (self), NULL);

  json = json_object_new ();
  json_object_set_string_member (json, "type", "function");
  json_object_set_string_member (json, "name", self->tool_name);
  json_object_set_string_member (json, "description", self->tool_description);
  json_object_set_object_member (
    json, "parameters",
    self->input_json_schema
      ? agents_run_private_json_object_copy (self->input_json_schema)
      : empty_schema ());
  json_object_set_boolean_member (json, "strict", self->strict);
  return json;
}

/**
 * agents_handoff_default_tool_name:
 * @agent: an agent
 *
 * Gets the default name of the tool handing off to @agent:
 * `transfer_to_` and the agent's name in function style (`Billing Agent`
 * → `transfer_to_billing_agent`).
 *
 * Returns: (transfer full): the tool name
 */
char *
agents_handoff_default_tool_name (AgentsAgent *agent)
{
  g_autofree char *name = NULL;

  g_return_val_if_fail (AGENTS_IS_AGENT (agent), NULL);

  name = agents_agent_function_style (
    agents_agent_get_name (agent) ? agents_agent_get_name (agent) : "");
  return g_strconcat ("transfer_to_", name, NULL);
}

/**
 * agents_handoff_default_tool_description:
 * @agent: an agent
 *
 * Gets the default description of the tool handing off to @agent, the
 * reference's text.
 *
 * Returns: (transfer full): the description
 */
char *
agents_handoff_default_tool_description (AgentsAgent *agent)
{
  const char *description;

  g_return_val_if_fail (AGENTS_IS_AGENT (agent), NULL);

  description = agents_agent_get_handoff_description (agent);
  /* The model reads this text, so it is not translated. */
  return g_strdup_printf ("Handoff to the %s agent to handle the request. %s",
                          agents_agent_get_name (agent),
                          description ? description : "");
}
