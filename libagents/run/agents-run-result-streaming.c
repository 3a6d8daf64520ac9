/* agents-run-result-streaming.c - a run whose events are read as they come
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-run-private.h"
#include "agents-run-result.h"

/**
 * AgentsRunResultStreaming:
 *
 * A run in progress, from agents_runner_run_streamed(). Its accessors
 * give what the run produced so far; events come as the
 * #AgentsRunResultStreaming::event signal and, for bindings that prefer
 * pulling, through agents_run_result_streaming_next_event_async(), which
 * returns %NULL once the stream is over.
 *
 * The run starts from the thread-default main context once control
 * returns to it, so handlers connected right after
 * agents_runner_run_streamed() see every event.
 * agents_run_result_streaming_wait_async() completes when the run is
 * over, after all its post-run work. A failed run's error is given by
 * the last next_event_async() and by wait_async().
 */

typedef struct
{
  GTask *task;
  GCancellable *cancellable;
  gulong handler;
} Waiter;

struct _AgentsRunResultStreaming
{
  GObject parent_instance;

  AgentsRunResult *result;
  AgentsAgent *current_agent;
  GQueue events;
  GQueue event_waiters; /* Waiter */
  GQueue run_waiters;   /* Waiter */
  gboolean stream_done;
  GError *stream_error; /* given once, to the last next_event */
  gboolean run_done;
  GError *run_error;

  AgentsRunCancelFunc cancel_func;
  gpointer cancel_data;
  GDestroyNotify cancel_destroy;
};

G_DEFINE_FINAL_TYPE (AgentsRunResultStreaming,
                     agents_run_result_streaming,
                     G_TYPE_OBJECT)

enum
{
  STREAMING_PROP_0,
  STREAMING_PROP_RESULT,
  STREAMING_PROP_CURRENT_AGENT,
  STREAMING_PROP_IS_COMPLETE,
  STREAMING_N_PROPS
};

static GParamSpec *streaming_properties[STREAMING_N_PROPS];

enum
{
  SIGNAL_EVENT,
  N_SIGNALS
};

static guint streaming_signals[N_SIGNALS];

static void
waiter_free (Waiter *waiter)
{
  if (waiter->handler != 0)
    g_cancellable_disconnect (waiter->cancellable, waiter->handler);
  g_clear_object (&waiter->cancellable);
  g_clear_object (&waiter->task);
  g_free (waiter);
}

static void
clear_cancel_func (AgentsRunResultStreaming *self)
{
  if (self->cancel_destroy != NULL)
    self->cancel_destroy (self->cancel_data);
  self->cancel_func = NULL;
  self->cancel_data = NULL;
  self->cancel_destroy = NULL;
}

static void
agents_run_result_streaming_dispose (GObject *object)
{
  AgentsRunResultStreaming *self = AGENTS_RUN_RESULT_STREAMING (object);

  clear_cancel_func (self);

  G_OBJECT_CLASS (agents_run_result_streaming_parent_class)->dispose (object);
}

static void
agents_run_result_streaming_finalize (GObject *object)
{
  AgentsRunResultStreaming *self = AGENTS_RUN_RESULT_STREAMING (object);

  /* Waiters hold references to self: none is left by now. */
  g_queue_clear_full (&self->events, g_object_unref);
  g_clear_object (&self->result);
  g_clear_object (&self->current_agent);
  g_clear_error (&self->stream_error);
  g_clear_error (&self->run_error);

  G_OBJECT_CLASS (agents_run_result_streaming_parent_class)->finalize (object);
}

static void
agents_run_result_streaming_get_property (GObject *object,
                                          guint prop_id,
                                          GValue *value,
                                          GParamSpec *pspec)
{
  AgentsRunResultStreaming *self = AGENTS_RUN_RESULT_STREAMING (object);

  switch (prop_id)
    {
    case STREAMING_PROP_RESULT:
      g_value_set_object (value, self->result);
      break;
    case STREAMING_PROP_CURRENT_AGENT:
      g_value_set_object (value, self->current_agent);
      break;
    case STREAMING_PROP_IS_COMPLETE:
      g_value_set_boolean (value, self->stream_done);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_run_result_streaming_class_init (AgentsRunResultStreamingClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags =
    G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->dispose = agents_run_result_streaming_dispose;
  object_class->finalize = agents_run_result_streaming_finalize;
  object_class->get_property = agents_run_result_streaming_get_property;

  /**
   * AgentsRunResultStreaming:result:
   *
   * The result, filled as the run progresses.
   */
  streaming_properties[STREAMING_PROP_RESULT] =
    g_param_spec_object ("result", NULL, NULL, AGENTS_TYPE_RUN_RESULT, flags);
  /**
   * AgentsRunResultStreaming:current-agent:
   *
   * The current agent of the run, as the user built it.
   */
  streaming_properties[STREAMING_PROP_CURRENT_AGENT] =
    g_param_spec_object ("current-agent", NULL, NULL, AGENTS_TYPE_AGENT, flags);
  /**
   * AgentsRunResultStreaming:is-complete:
   *
   * Whether the stream is over: the run ended or was cancelled.
   */
  streaming_properties[STREAMING_PROP_IS_COMPLETE] =
    g_param_spec_boolean ("is-complete", NULL, NULL, FALSE, flags);

  g_object_class_install_properties (object_class, STREAMING_N_PROPS,
                                     streaming_properties);

  /**
   * AgentsRunResultStreaming::event:
   * @self: the streamed run
   * @event: the event
   *
   * The run produced an event. Handlers run on the run's main context,
   * in the order of the events.
   */
  streaming_signals[SIGNAL_EVENT] =
    g_signal_new ("event", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1, AGENTS_TYPE_STREAM_EVENT);
}

static void
agents_run_result_streaming_init (AgentsRunResultStreaming *self)
{
  g_queue_init (&self->events);
  g_queue_init (&self->event_waiters);
  g_queue_init (&self->run_waiters);
}

AgentsRunResultStreaming *
agents_run_private_streaming_new (AgentsRunResult *result)
{
  AgentsRunResultStreaming *self =
    g_object_new (AGENTS_TYPE_RUN_RESULT_STREAMING, NULL);

  self->result = g_object_ref (result);
  self->current_agent =
    g_object_ref (agents_run_result_get_last_agent (result));
  return self;
}

static void
give_next_event (AgentsRunResultStreaming *self, GTask *task)
{
  if (!g_queue_is_empty (&self->events))
    g_task_return_pointer (task, g_queue_pop_head (&self->events),
                           g_object_unref);
  else if (self->stream_error != NULL)
    {
      g_task_return_error (task, self->stream_error);
      self->stream_error = NULL;
    }
  else
    g_task_return_pointer (task, NULL, NULL);
}

static void
serve_event_waiters (AgentsRunResultStreaming *self)
{
  while (!g_queue_is_empty (&self->event_waiters) &&
         (!g_queue_is_empty (&self->events) || self->stream_done))
    {
      Waiter *waiter = g_queue_pop_head (&self->event_waiters);

      give_next_event (self, waiter->task);
      waiter_free (waiter);
    }
}

void
agents_run_private_streaming_push (AgentsRunResultStreaming *self,
                                   AgentsStreamEvent *event)
{
  g_autoptr (AgentsRunResultStreaming) keep = g_object_ref (self);

  if (self->stream_done)
    return;
  g_signal_emit (self, streaming_signals[SIGNAL_EVENT], 0, event);
  if (self->stream_done)
    return;
  g_queue_push_tail (&self->events, g_object_ref (event));
  serve_event_waiters (self);
}

void
agents_run_private_streaming_set_current_agent (AgentsRunResultStreaming *self,
                                                AgentsAgent *agent)
{
  if (g_set_object (&self->current_agent, agent))
    g_object_notify_by_pspec (
      G_OBJECT (self), streaming_properties[STREAMING_PROP_CURRENT_AGENT]);
}

void
agents_run_private_streaming_finish_stream (AgentsRunResultStreaming *self,
                                            const GError *error)
{
  g_autoptr (AgentsRunResultStreaming) keep = g_object_ref (self);

  if (self->stream_done)
    return;
  self->stream_done = TRUE;
  if (error != NULL)
    self->stream_error = g_error_copy (error);
  g_object_notify_by_pspec (G_OBJECT (self),
                            streaming_properties[STREAMING_PROP_IS_COMPLETE]);
  serve_event_waiters (self);
}

void
agents_run_private_streaming_finish_run (AgentsRunResultStreaming *self,
                                         const GError *error)
{
  g_autoptr (AgentsRunResultStreaming) keep = g_object_ref (self);

  if (self->run_done)
    return;
  self->run_done = TRUE;
  if (error != NULL)
    self->run_error = g_error_copy (error);
  clear_cancel_func (self);
  while (!g_queue_is_empty (&self->run_waiters))
    {
      Waiter *waiter = g_queue_pop_head (&self->run_waiters);

      if (self->run_error != NULL)
        g_task_return_error (waiter->task, g_error_copy (self->run_error));
      else
        g_task_return_boolean (waiter->task, TRUE);
      waiter_free (waiter);
    }
}

void
agents_run_private_streaming_set_cancel_func (AgentsRunResultStreaming *self,
                                              AgentsRunCancelFunc func,
                                              gpointer data,
                                              GDestroyNotify destroy)
{
  clear_cancel_func (self);
  self->cancel_func = func;
  self->cancel_data = data;
  self->cancel_destroy = destroy;
}

/**
 * agents_run_result_streaming_get_result:
 * @self: a streamed run
 *
 * Gets the result, filled as the run progresses.
 *
 * Returns: (transfer none): the result
 */
AgentsRunResult *
agents_run_result_streaming_get_result (AgentsRunResultStreaming *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_RESULT_STREAMING (self), NULL);
  return self->result;
}

/**
 * agents_run_result_streaming_get_final_output:
 * @self: a streamed run
 *
 * Gets the final output, see agents_run_result_get_final_output().
 *
 * Returns: (transfer none) (nullable): the final output, %NULL until the
 *   run produced it
 */
JsonNode *
agents_run_result_streaming_get_final_output (AgentsRunResultStreaming *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_RESULT_STREAMING (self), NULL);
  return agents_run_result_get_final_output (self->result);
}

/**
 * agents_run_result_streaming_get_new_items:
 * @self: a streamed run
 *
 * Gets the items generated so far.
 *
 * Returns: (transfer none): a list of #AgentsRunItem
 */
GListModel *
agents_run_result_streaming_get_new_items (AgentsRunResultStreaming *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_RESULT_STREAMING (self), NULL);
  return agents_run_result_get_new_items (self->result);
}

/**
 * agents_run_result_streaming_get_raw_responses:
 * @self: a streamed run
 *
 * Gets the model's responses so far.
 *
 * Returns: (transfer none): a list of #AgentsModelResponse
 */
GListModel *
agents_run_result_streaming_get_raw_responses (AgentsRunResultStreaming *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_RESULT_STREAMING (self), NULL);
  return agents_run_result_get_raw_responses (self->result);
}

/**
 * agents_run_result_streaming_get_interruptions:
 * @self: a streamed run
 *
 * Gets the tool calls the run stopped on, waiting for approval.
 *
 * Returns: (transfer none): a list of #AgentsRunItem
 */
GListModel *
agents_run_result_streaming_get_interruptions (AgentsRunResultStreaming *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_RESULT_STREAMING (self), NULL);
  return agents_run_result_get_interruptions (self->result);
}

/**
 * agents_run_result_streaming_get_current_agent:
 * @self: a streamed run
 *
 * Gets the current agent of the run.
 *
 * Returns: (transfer none) (nullable): the agent, as the user built it
 */
AgentsAgent *
agents_run_result_streaming_get_current_agent (AgentsRunResultStreaming *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_RESULT_STREAMING (self), NULL);
  return self->current_agent;
}

/**
 * agents_run_result_streaming_get_is_complete:
 * @self: a streamed run
 *
 * Gets whether the stream is over.
 *
 * Returns: %TRUE once the run ended or was cancelled
 */
gboolean
agents_run_result_streaming_get_is_complete (AgentsRunResultStreaming *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_RESULT_STREAMING (self), FALSE);
  return self->stream_done;
}

/**
 * agents_run_result_streaming_to_input_list:
 * @self: a streamed run
 *
 * See agents_run_result_to_input_list().
 *
 * Returns: (transfer full): an array of input items
 */
JsonArray *
agents_run_result_streaming_to_input_list (AgentsRunResultStreaming *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_RESULT_STREAMING (self), NULL);
  return agents_run_result_to_input_list (self->result);
}

/**
 * agents_run_result_streaming_to_state:
 * @self: a streamed run
 *
 * See agents_run_result_to_state().
 *
 * Returns: (transfer full): the run state
 */
AgentsRunState *
agents_run_result_streaming_to_state (AgentsRunResultStreaming *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_RESULT_STREAMING (self), NULL);
  return agents_run_result_to_state (self->result);
}

typedef struct
{
  GWeakRef owner;
  GTask *task;
} CancelledWaiter;

static void
cancelled_waiter_free (CancelledWaiter *data)
{
  g_weak_ref_clear (&data->owner);
  g_object_unref (data->task);
  g_free (data);
}

static gboolean
remove_waiter (GQueue *queue, GTask *task)
{
  for (GList *l = queue->head; l != NULL; l = l->next)
    {
      Waiter *waiter = l->data;

      if (waiter->task != task)
        continue;
      g_queue_delete_link (queue, l);
      g_task_return_error_if_cancelled (waiter->task);
      waiter_free (waiter);
      return TRUE;
    }
  return FALSE;
}

static gboolean
complete_cancelled_waiter (gpointer user_data)
{
  CancelledWaiter *data = user_data;
  g_autoptr (AgentsRunResultStreaming) self = g_weak_ref_get (&data->owner);

  if (self != NULL && !remove_waiter (&self->event_waiters, data->task))
    remove_waiter (&self->run_waiters, data->task);
  return G_SOURCE_REMOVE;
}

static void
waiter_cancelled (GCancellable *cancellable, gpointer user_data)
{
  Waiter *waiter = user_data;
  GSource *source = g_idle_source_new ();
  CancelledWaiter *data = g_new0 (CancelledWaiter, 1);

  g_weak_ref_init (&data->owner, g_task_get_source_object (waiter->task));
  data->task = g_object_ref (waiter->task);
  g_source_set_callback (source, complete_cancelled_waiter, data,
                         (GDestroyNotify) cancelled_waiter_free);
  g_source_set_static_name (source, "[agents] cancelled stream waiter");
  g_source_attach (source, g_task_get_context (waiter->task));
  g_source_unref (source);
}

static void
add_waiter (GQueue *queue, GTask *task, GCancellable *cancellable)
{
  Waiter *waiter = g_new0 (Waiter, 1);

  waiter->task = g_object_ref (task);
  g_queue_push_tail (queue, waiter);
  if (cancellable != NULL)
    {
      waiter->cancellable = g_object_ref (cancellable);
      waiter->handler = g_cancellable_connect (
        cancellable, G_CALLBACK (waiter_cancelled), waiter, NULL);
    }
}

/**
 * agents_run_result_streaming_next_event_async:
 * @self: a streamed run
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the next event
 * @user_data: data for @callback
 *
 * Waits for the next event of the run. Events are queued from the start
 * of the run, so none is missed.
 */
void
agents_run_result_streaming_next_event_async (AgentsRunResultStreaming *self,
                                              GCancellable *cancellable,
                                              GAsyncReadyCallback callback,
                                              gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_RUN_RESULT_STREAMING (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_run_result_streaming_next_event_async);
  if (g_task_return_error_if_cancelled (task))
    return;
  if (!g_queue_is_empty (&self->events) || self->stream_done)
    give_next_event (self, task);
  else
    add_waiter (&self->event_waiters, task, cancellable);
}

/**
 * agents_run_result_streaming_next_event_finish:
 * @self: a streamed run
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_run_result_streaming_next_event_async(). When the
 * stream is over it returns %NULL: with the run's error set, once, if
 * the run failed; without an error otherwise.
 *
 * Returns: (transfer full) (nullable): the next event, or %NULL at the
 *   end of the stream
 */
AgentsStreamEvent *
agents_run_result_streaming_next_event_finish (AgentsRunResultStreaming *self,
                                               GAsyncResult *result,
                                               GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * agents_run_result_streaming_wait_async:
 * @self: a streamed run
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the run is over
 * @user_data: data for @callback
 *
 * Waits for the run to be over, including its post-run work (a sandbox's
 * cleanup and persisted state, conversation session updates). After
 * agents_run_result_streaming_cancel() with
 * %AGENTS_CANCEL_MODE_IMMEDIATE it completes at once.
 */
void
agents_run_result_streaming_wait_async (AgentsRunResultStreaming *self,
                                        GCancellable *cancellable,
                                        GAsyncReadyCallback callback,
                                        gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_RUN_RESULT_STREAMING (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_run_result_streaming_wait_async);
  if (g_task_return_error_if_cancelled (task))
    return;
  if (!self->run_done)
    add_waiter (&self->run_waiters, task, cancellable);
  else if (self->run_error != NULL)
    g_task_return_error (task, g_error_copy (self->run_error));
  else
    g_task_return_boolean (task, TRUE);
}

/**
 * agents_run_result_streaming_wait_finish:
 * @self: a streamed run
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_run_result_streaming_wait_async(). A run cancelled
 * with %AGENTS_CANCEL_MODE_IMMEDIATE fails with
 * %AGENTS_RUN_ERROR_CANCELLED.
 *
 * Returns: %TRUE if the run ended without error
 */
gboolean
agents_run_result_streaming_wait_finish (AgentsRunResultStreaming *self,
                                         GAsyncResult *result,
                                         GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * agents_run_result_streaming_cancel:
 * @self: a streamed run
 * @mode: how to stop
 *
 * Stops the run. With %AGENTS_CANCEL_MODE_IMMEDIATE the stream ends now
 * (queued events are dropped), the run's pending work is cancelled and
 * its cleanup goes on without being waited for. With
 * %AGENTS_CANCEL_MODE_AFTER_TURN the current turn finishes and the run
 * then ends without a final output; its state can be resumed.
 */
void
agents_run_result_streaming_cancel (AgentsRunResultStreaming *self,
                                    AgentsCancelMode mode)
{
  g_autoptr (AgentsRunResultStreaming) keep = NULL;

  g_return_if_fail (AGENTS_IS_RUN_RESULT_STREAMING (self));

  keep = g_object_ref (self);
  if (self->cancel_func != NULL)
    self->cancel_func (mode, self->cancel_data);
  if (mode != AGENTS_CANCEL_MODE_IMMEDIATE)
    return;
  g_queue_clear_full (&self->events, g_object_unref);
  agents_run_private_streaming_finish_stream (self, NULL);
  if (!self->run_done)
    {
      g_autoptr (GError) error = agents_run_error_new_literal (
        AGENTS_RUN_ERROR_CANCELLED, NULL, _ ("The run was cancelled"));

      agents_run_private_streaming_finish_run (self, error);
    }
}
