/* agents-stream-event.c - one event of a streamed run
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-enums.h"
#include "agents-run-private.h"
#include "agents-run-result.h"

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
