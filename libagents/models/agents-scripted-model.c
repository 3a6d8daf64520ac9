/* agents-scripted-model.c - a model that replays scripted outputs
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-run-private.h"
#include "agents-scripted-model.h"

/**
 * AgentsScriptedModel:
 *
 * A model that answers from a script: the reference test suite's
 * `FakeModel`. Each call (streamed or not) takes the next turn output
 * from the queue — a list of output items, or an error to fail the call
 * with — and answers with an empty output once the queue is empty. It
 * records the request of its first and of its last call.
 *
 * ```c
 * g_autoptr (JsonArray) items = json_array_new ();
 * json_array_add_object_element (items,
 *   agents_testing_final_output_message ("done"));
 * model = agents_scripted_model_new_with_initial_output (items);
 * ```
 */

/* A turn output: items, or an error. */
typedef struct
{
  JsonArray *items;
  GError *error;
} Turn;

static void
turn_free (gpointer data)
{
  Turn *turn = data;

  g_clear_pointer (&turn->items, json_array_unref);
  g_clear_error (&turn->error);
  g_free (turn);
}

struct _AgentsScriptedModel
{
  GObject parent_instance;

  GQueue turns;
  JsonObject *hardcoded_usage;
  AgentsModelRequest *first_turn_args;
  AgentsModelRequest *last_turn_args;
};

static void agents_scripted_model_iface_init (AgentsModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  AgentsScriptedModel,
  agents_scripted_model,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_MODEL, agents_scripted_model_iface_init))

static void
agents_scripted_model_finalize (GObject *object)
{
  AgentsScriptedModel *self = AGENTS_SCRIPTED_MODEL (object);

  g_queue_clear_full (&self->turns, turn_free);
  g_clear_pointer (&self->hardcoded_usage, json_object_unref);
  g_clear_object (&self->first_turn_args);
  g_clear_object (&self->last_turn_args);

  G_OBJECT_CLASS (agents_scripted_model_parent_class)->finalize (object);
}

static void
agents_scripted_model_class_init (AgentsScriptedModelClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = agents_scripted_model_finalize;
}

static void
agents_scripted_model_init (AgentsScriptedModel *self)
{
  g_queue_init (&self->turns);
}

static void
record (AgentsScriptedModel *self, AgentsModelRequest *request)
{
  AgentsModelRequest *copy = agents_model_request_copy (request);

  if (self->first_turn_args == NULL)
    self->first_turn_args = g_object_ref (copy);
  g_clear_object (&self->last_turn_args);
  self->last_turn_args = copy;
}

/* Takes the next turn; returns the response, or NULL with @error set. */
static AgentsModelResponse *
next_response (AgentsScriptedModel *self, GError **error)
{
  Turn *turn = g_queue_pop_head (&self->turns);
  g_autoptr (JsonArray) items = NULL;
  g_autoptr (JsonObject) usage = NULL;

  if (turn != NULL && turn->error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&turn->error));
      turn_free (turn);
      return NULL;
    }
  items =
    turn ? agents_run_private_json_array_copy (turn->items) : json_array_new ();
  if (turn != NULL)
    turn_free (turn);
  usage = agents_run_private_json_object_copy (self->hardcoded_usage);
  return agents_model_response_new (items, usage, "resp-789");
}

static void
scripted_get_response (AgentsModel *model,
                       AgentsModelRequest *request,
                       GTask *task)
{
  AgentsScriptedModel *self = AGENTS_SCRIPTED_MODEL (model);
  g_autoptr (AgentsModelResponse) response = NULL;
  GError *error = NULL;

  if (g_task_return_error_if_cancelled (task))
    return;
  record (self, request);
  response = next_response (self, &error);
  if (response == NULL)
    g_task_return_error (task, error);
  else
    agents_model_return_response (task, response);
}

static void
scripted_stream_response (AgentsModel *model,
                          AgentsModelRequest *request,
                          AgentsModelEventSink *sink,
                          GTask *task)
{
  AgentsScriptedModel *self = AGENTS_SCRIPTED_MODEL (model);
  g_autoptr (AgentsModelResponse) response = NULL;
  GError *error = NULL;

  if (g_task_return_error_if_cancelled (task))
    return;
  record (self, request);
  response = next_response (self, &error);
  if (response == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  agents_model_event_sink_push_response (sink, response);
  agents_model_return_response (task, response);
}

static void
agents_scripted_model_iface_init (AgentsModelInterface *iface)
{
  iface->get_response = scripted_get_response;
  iface->stream_response = scripted_stream_response;
}

/**
 * agents_scripted_model_new:
 *
 * Creates a scripted model with an empty queue.
 *
 * Returns: (transfer full): the model
 */
AgentsScriptedModel *
agents_scripted_model_new (void)
{
  return g_object_new (AGENTS_TYPE_SCRIPTED_MODEL, NULL);
}

/**
 * agents_scripted_model_new_with_initial_output:
 * @items: (nullable): the output items of the first turn
 *
 * Creates a scripted model whose first turn answers @items (the
 * reference's `FakeModel(initial_output=…)`). An empty or %NULL @items
 * queues nothing.
 *
 * Returns: (transfer full): the model
 */
AgentsScriptedModel *
agents_scripted_model_new_with_initial_output (JsonArray *items)
{
  AgentsScriptedModel *self = agents_scripted_model_new ();

  if (items != NULL && json_array_get_length (items) > 0)
    agents_scripted_model_set_next_output (self, items);
  return self;
}

/**
 * agents_scripted_model_set_next_output:
 * @self: a scripted model
 * @items: the output items of a turn (copied)
 *
 * Appends a turn output to the queue.
 */
void
agents_scripted_model_set_next_output (AgentsScriptedModel *self,
                                       JsonArray *items)
{
  Turn *turn;

  g_return_if_fail (AGENTS_IS_SCRIPTED_MODEL (self));
  g_return_if_fail (items != NULL);

  turn = g_new0 (Turn, 1);
  turn->items = agents_run_private_json_array_copy (items);
  g_queue_push_tail (&self->turns, turn);
}

/**
 * agents_scripted_model_set_next_error:
 * @self: a scripted model
 * @error: the error a turn fails with (copied)
 *
 * Appends a failing turn to the queue.
 */
void
agents_scripted_model_set_next_error (AgentsScriptedModel *self,
                                      const GError *error)
{
  Turn *turn;

  g_return_if_fail (AGENTS_IS_SCRIPTED_MODEL (self));
  g_return_if_fail (error != NULL);

  turn = g_new0 (Turn, 1);
  turn->error = g_error_copy (error);
  g_queue_push_tail (&self->turns, turn);
}

/**
 * agents_scripted_model_add_multiple_turn_outputs:
 * @self: a scripted model
 * @outputs: (element-type JsonArray): turn outputs
 *
 * Appends several turn outputs to the queue.
 */
void
agents_scripted_model_add_multiple_turn_outputs (AgentsScriptedModel *self,
                                                 GPtrArray *outputs)
{
  g_return_if_fail (AGENTS_IS_SCRIPTED_MODEL (self));
  g_return_if_fail (outputs != NULL);

  for (guint i = 0; i < outputs->len; i++)
    agents_scripted_model_set_next_output (self, outputs->pdata[i]);
}

/**
 * agents_scripted_model_set_turn_outputs:
 * @self: a scripted model
 * @outputs: (nullable) (element-type JsonArray): turn outputs
 *
 * Replaces the whole queue (the reference's `model.turn_outputs = …`).
 */
void
agents_scripted_model_set_turn_outputs (AgentsScriptedModel *self,
                                        GPtrArray *outputs)
{
  g_return_if_fail (AGENTS_IS_SCRIPTED_MODEL (self));

  g_queue_clear_full (&self->turns, turn_free);
  if (outputs != NULL)
    agents_scripted_model_add_multiple_turn_outputs (self, outputs);
}

/**
 * agents_scripted_model_get_n_turn_outputs:
 * @self: a scripted model
 *
 * Gets the number of turn outputs left in the queue.
 *
 * Returns: the number of queued turns
 */
guint
agents_scripted_model_get_n_turn_outputs (AgentsScriptedModel *self)
{
  g_return_val_if_fail (AGENTS_IS_SCRIPTED_MODEL (self), 0);
  return g_queue_get_length (&self->turns);
}

/**
 * agents_scripted_model_set_hardcoded_usage:
 * @self: a scripted model
 * @usage: (nullable): the usage of every response, %NULL for zeros
 *
 * Sets the usage the model reports.
 */
void
agents_scripted_model_set_hardcoded_usage (AgentsScriptedModel *self,
                                           JsonObject *usage)
{
  g_return_if_fail (AGENTS_IS_SCRIPTED_MODEL (self));

  g_clear_pointer (&self->hardcoded_usage, json_object_unref);
  self->hardcoded_usage = agents_run_private_json_object_copy (usage);
}

/**
 * agents_scripted_model_get_first_turn_args:
 * @self: a scripted model
 *
 * Gets a copy of the request of the first call.
 *
 * Returns: (transfer none) (nullable): the request, or %NULL before the
 *   first call
 */
AgentsModelRequest *
agents_scripted_model_get_first_turn_args (AgentsScriptedModel *self)
{
  g_return_val_if_fail (AGENTS_IS_SCRIPTED_MODEL (self), NULL);
  return self->first_turn_args;
}

/**
 * agents_scripted_model_get_last_turn_args:
 * @self: a scripted model
 *
 * Gets a copy of the request of the last call.
 *
 * Returns: (transfer none) (nullable): the request, or %NULL before the
 *   first call
 */
AgentsModelRequest *
agents_scripted_model_get_last_turn_args (AgentsScriptedModel *self)
{
  g_return_val_if_fail (AGENTS_IS_SCRIPTED_MODEL (self), NULL);
  return self->last_turn_args;
}
