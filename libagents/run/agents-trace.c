/* agents-trace.c - AgentsTrace, one traced workflow
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-tracing.h"
#include "agents-tracing-private.h"

/**
 * AgentsTrace:
 *
 * One traced workflow, e.g. a run and everything it does: the root of a
 * tree of #AgentsSpan.
 *
 * agents_trace_begin() makes the new trace the *current trace* of the
 * calling thread; spans begun on that thread with agents_span_begin()
 * belong to it, nested under the current span, until agents_trace_end().
 * The current trace and span are per thread: async work that continues on
 * the thread of the same main context keeps them, work moved to another
 * thread does not (start such spans with agents_trace_start_span()).
 *
 * When tracing is disabled (agents_tracing_set_disabled(), the
 * `AGENTS_DISABLE_TRACING` environment variable, or a trace begun with
 * agents_trace_begin_full() and @disabled), traces and spans do not
 * record: processors receive nothing and spans cost almost nothing.
 */

G_DEFINE_FINAL_TYPE (AgentsTrace, agents_trace, G_TYPE_OBJECT)

/* ---- AgentsTrace --------------------------------------------------------- */

enum
{
  TRACE_PROP_0,
  TRACE_PROP_WORKFLOW_NAME,
  TRACE_PROP_TRACE_ID,
  TRACE_PROP_GROUP_ID,
  TRACE_PROP_METADATA,
  TRACE_N_PROPS
};

static GParamSpec *trace_properties[TRACE_N_PROPS];

static void
agents_trace_finalize (GObject *object)
{
  AgentsTrace *self = AGENTS_TRACE (object);

  g_free (self->workflow_name);
  g_free (self->trace_id);
  g_free (self->group_id);
  g_clear_pointer (&self->metadata, json_object_unref);

  G_OBJECT_CLASS (agents_trace_parent_class)->finalize (object);
}

static void
agents_trace_get_property (GObject *object,
                           guint prop_id,
                           GValue *value,
                           GParamSpec *pspec)
{
  AgentsTrace *self = AGENTS_TRACE (object);

  switch (prop_id)
    {
    case TRACE_PROP_WORKFLOW_NAME:
      g_value_set_string (value, self->workflow_name);
      break;
    case TRACE_PROP_TRACE_ID:
      g_value_set_string (value, self->trace_id);
      break;
    case TRACE_PROP_GROUP_ID:
      g_value_set_string (value, self->group_id);
      break;
    case TRACE_PROP_METADATA:
      g_value_set_boxed (value, self->metadata);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_trace_class_init (AgentsTraceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = agents_trace_finalize;
  object_class->get_property = agents_trace_get_property;

  /**
   * AgentsTrace:workflow-name:
   *
   * The name of the traced workflow, e.g. "Agent workflow".
   */
  trace_properties[TRACE_PROP_WORKFLOW_NAME] =
    g_param_spec_string ("workflow-name", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AgentsTrace:trace-id:
   *
   * The trace's id, `trace_` and 32 hexadecimal digits unless given.
   */
  trace_properties[TRACE_PROP_TRACE_ID] = g_param_spec_string (
    "trace-id", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AgentsTrace:group-id:
   *
   * An id linking several traces, e.g. a conversation's, or %NULL.
   */
  trace_properties[TRACE_PROP_GROUP_ID] = g_param_spec_string (
    "group-id", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AgentsTrace:metadata:
   *
   * Metadata of the trace, or %NULL.
   */
  trace_properties[TRACE_PROP_METADATA] =
    g_param_spec_boxed ("metadata", NULL, NULL, JSON_TYPE_OBJECT,
                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, TRACE_N_PROPS,
                                     trace_properties);
}

static void
agents_trace_init (AgentsTrace *self)
{
}

/**
 * agents_trace_begin:
 * @workflow_name: the name of the workflow
 * @trace_id: (nullable): the trace's id, or %NULL for a new one
 * @group_id: (nullable): an id linking several traces, or %NULL
 * @metadata: (nullable): metadata of the trace, or %NULL
 *
 * Begins a trace and makes it the calling thread's current trace, telling
 * the processors. See agents_trace_begin_full().
 *
 * Returns: (transfer full): the trace; end it with agents_trace_end()
 */
AgentsTrace *
agents_trace_begin (const char *workflow_name,
                    const char *trace_id,
                    const char *group_id,
                    JsonObject *metadata)
{
  return agents_trace_begin_full (workflow_name, trace_id, group_id, metadata,
                                  FALSE);
}

/**
 * agents_trace_begin_full:
 * @workflow_name: the name of the workflow
 * @trace_id: (nullable): the trace's id, or %NULL for a new one
 * @group_id: (nullable): an id linking several traces, or %NULL
 * @metadata: (nullable): metadata of the trace, or %NULL
 * @disabled: %TRUE for a trace that does not record
 *
 * Begins a trace and makes it the calling thread's current trace. Unless
 * @disabled is %TRUE or tracing is disabled, the processors are told;
 * otherwise the trace does not record and neither do spans begun while it
 * is current (a run with tracing disabled).
 *
 * Returns: (transfer full): the trace; end it with agents_trace_end()
 */
AgentsTrace *
agents_trace_begin_full (const char *workflow_name,
                         const char *trace_id,
                         const char *group_id,
                         JsonObject *metadata,
                         gboolean disabled)
{
  AgentsTrace *self;

  g_return_val_if_fail (workflow_name != NULL, NULL);

  self = g_object_new (AGENTS_TYPE_TRACE, NULL);
  self->workflow_name = g_strdup (workflow_name);
  if (trace_id != NULL)
    self->trace_id = g_strdup (trace_id);
  else
    self->trace_id = agents_tracing_private_new_id ("trace_", 32);
  self->group_id = g_strdup (group_id);
  if (metadata != NULL)
    self->metadata = json_object_ref (metadata);
  self->noop = disabled || agents_tracing_get_disabled ();
  self->started_us = g_get_real_time ();
  agents_tracing_private_push_current (self);
  if (!self->noop)
    agents_tracing_private_dispatch (AGENTS_TRACING_EVENT_TRACE_START, self);
  return self;
}

/**
 * agents_trace_end:
 * @trace: a trace
 *
 * Ends @trace: it stops being current and the processors are told. Ending
 * a trace twice does nothing.
 */
void
agents_trace_end (AgentsTrace *trace)
{
  g_return_if_fail (AGENTS_IS_TRACE (trace));

  if (!g_atomic_int_compare_and_exchange (&trace->ended, 0, 1))
    return;
  trace->ended_us = g_get_real_time ();
  agents_tracing_private_remove_current (trace);
  if (!trace->noop)
    agents_tracing_private_dispatch (AGENTS_TRACING_EVENT_TRACE_END, trace);
}

/**
 * agents_trace_is_recording:
 * @self: a trace
 *
 * Gets whether the trace records, i.e. tracing was enabled when it began.
 *
 * Returns: %TRUE if processors receive the trace
 */
gboolean
agents_trace_is_recording (AgentsTrace *self)
{
  g_return_val_if_fail (AGENTS_IS_TRACE (self), FALSE);

  return !self->noop;
}

/**
 * agents_trace_get_workflow_name:
 * @self: a trace
 *
 * Gets the name of the traced workflow.
 *
 * Returns: (transfer none): the workflow name
 */
const char *
agents_trace_get_workflow_name (AgentsTrace *self)
{
  g_return_val_if_fail (AGENTS_IS_TRACE (self), NULL);

  return self->workflow_name;
}

/**
 * agents_trace_get_trace_id:
 * @self: a trace
 *
 * Gets the trace's id.
 *
 * Returns: (transfer none): the id
 */
const char *
agents_trace_get_trace_id (AgentsTrace *self)
{
  g_return_val_if_fail (AGENTS_IS_TRACE (self), NULL);

  return self->trace_id;
}

/**
 * agents_trace_get_group_id:
 * @self: a trace
 *
 * Gets the id linking this trace to others.
 *
 * Returns: (transfer none) (nullable): the group id
 */
const char *
agents_trace_get_group_id (AgentsTrace *self)
{
  g_return_val_if_fail (AGENTS_IS_TRACE (self), NULL);

  return self->group_id;
}

/**
 * agents_trace_get_metadata:
 * @self: a trace
 *
 * Gets the trace's metadata.
 *
 * Returns: (transfer none) (nullable): the metadata
 */
JsonObject *
agents_trace_get_metadata (AgentsTrace *self)
{
  g_return_val_if_fail (AGENTS_IS_TRACE (self), NULL);

  return self->metadata;
}

/**
 * agents_trace_dup_started_at:
 * @self: a trace
 *
 * Gets when the trace began, in ISO 8601 (UTC).
 *
 * Returns: (transfer full): the start time
 */
char *
agents_trace_dup_started_at (AgentsTrace *self)
{
  g_return_val_if_fail (AGENTS_IS_TRACE (self), NULL);

  return agents_tracing_private_format_time (self->started_us);
}

/**
 * agents_trace_dup_ended_at:
 * @self: a trace
 *
 * Gets when the trace ended, in ISO 8601 (UTC).
 *
 * Returns: (transfer full) (nullable): the end time, or %NULL if the
 *   trace has not ended
 */
char *
agents_trace_dup_ended_at (AgentsTrace *self)
{
  g_return_val_if_fail (AGENTS_IS_TRACE (self), NULL);

  return agents_tracing_private_format_time (
    g_atomic_int_get (&self->ended) ? self->ended_us : 0);
}

/**
 * agents_trace_export:
 * @self: a trace
 *
 * Exports the trace as the reference SDK does: `{"object": "trace",
 * "id", "workflow_name", "group_id", "metadata"}`.
 *
 * Returns: (transfer full) (nullable): the exported trace, or %NULL if
 *   the trace does not record
 */
JsonObject *
agents_trace_export (AgentsTrace *self)
{
  JsonObject *object;

  g_return_val_if_fail (AGENTS_IS_TRACE (self), NULL);

  if (self->noop)
    return NULL;
  object = json_object_new ();
  json_object_set_string_member (object, "object", "trace");
  json_object_set_string_member (object, "id", self->trace_id);
  json_object_set_string_member (object, "workflow_name", self->workflow_name);
  agents_tracing_private_set_string_or_null (object, "group_id",
                                             self->group_id);
  if (self->metadata != NULL)
    json_object_set_object_member (object, "metadata",
                                   json_object_ref (self->metadata));
  else
    json_object_set_null_member (object, "metadata");
  return object;
}
