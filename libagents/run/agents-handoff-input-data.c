/* agents-handoff-input-data.c - what the agent handed off to sees
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

/* AgentsHandoffInputData */

/**
 * AgentsHandoffInputData:
 *
 * What the agent a run hands off to sees: the run's input history, the
 * items before the turn that handed off, and that turn's new items.
 */
struct _AgentsHandoffInputData
{
  gatomicrefcount ref_count;
  JsonNode *input_history;
  GPtrArray *pre_handoff_items;
  GPtrArray *new_items;
  AgentsRunContext *ctx;
};

G_DEFINE_BOXED_TYPE (AgentsHandoffInputData,
                     agents_handoff_input_data,
                     agents_handoff_input_data_ref,
                     agents_handoff_input_data_unref)

static GPtrArray *
copy_items (GPtrArray *items)
{
  GPtrArray *copy = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; items != NULL && i < items->len; i++)
    g_ptr_array_add (copy, g_object_ref (items->pdata[i]));
  return copy;
}

/**
 * agents_handoff_input_data_new:
 * @input_history: (nullable): the run's input: a string or an array of
 *   input items
 * @pre_handoff_items: (nullable) (element-type AgentsRunItem): the items
 *   before the turn that handed off
 * @new_items: (nullable) (element-type AgentsRunItem): the new items of
 *   that turn
 * @ctx: (nullable): the run context
 *
 * Creates handoff input data.
 *
 * Returns: (transfer full): the data
 */
AgentsHandoffInputData *
agents_handoff_input_data_new (JsonNode *input_history,
                               GPtrArray *pre_handoff_items,
                               GPtrArray *new_items,
                               AgentsRunContext *ctx)
{
  AgentsHandoffInputData *self = g_new0 (AgentsHandoffInputData, 1);

  g_atomic_ref_count_init (&self->ref_count);
  if (input_history != NULL)
    self->input_history = json_node_copy (input_history);
  else
    {
      self->input_history = json_node_new (JSON_NODE_ARRAY);
      json_node_take_array (self->input_history, json_array_new ());
    }
  self->pre_handoff_items = copy_items (pre_handoff_items);
  self->new_items = copy_items (new_items);
  self->ctx = ctx ? g_object_ref (ctx) : NULL;
  return self;
}

/**
 * agents_handoff_input_data_ref:
 * @self: handoff input data
 *
 * Takes a reference.
 *
 * Returns: (transfer full): @self
 */
AgentsHandoffInputData *
agents_handoff_input_data_ref (AgentsHandoffInputData *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/**
 * agents_handoff_input_data_unref:
 * @self: (transfer full): handoff input data
 *
 * Drops a reference.
 */
void
agents_handoff_input_data_unref (AgentsHandoffInputData *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  json_node_unref (self->input_history);
  g_ptr_array_unref (self->pre_handoff_items);
  g_ptr_array_unref (self->new_items);
  g_clear_object (&self->ctx);
  g_free (self);
}

/**
 * agents_handoff_input_data_get_input_history:
 * @self: handoff input data
 *
 * Gets the run's input history.
 *
 * Returns: (transfer none): a string or an array of input items
 */
JsonNode *
agents_handoff_input_data_get_input_history (AgentsHandoffInputData *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->input_history;
}

/**
 * agents_handoff_input_data_get_pre_handoff_items:
 * @self: handoff input data
 *
 * Gets the items before the turn that handed off.
 *
 * Returns: (transfer none) (element-type AgentsRunItem): the items
 */
GPtrArray *
agents_handoff_input_data_get_pre_handoff_items (AgentsHandoffInputData *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->pre_handoff_items;
}

/**
 * agents_handoff_input_data_get_new_items:
 * @self: handoff input data
 *
 * Gets the new items of the turn that handed off.
 *
 * Returns: (transfer none) (element-type AgentsRunItem): the items
 */
GPtrArray *
agents_handoff_input_data_get_new_items (AgentsHandoffInputData *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->new_items;
}

/**
 * agents_handoff_input_data_get_run_context:
 * @self: handoff input data
 *
 * Gets the run context.
 *
 * Returns: (transfer none) (nullable): the run context
 */
AgentsRunContext *
agents_handoff_input_data_get_run_context (AgentsHandoffInputData *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->ctx;
}
