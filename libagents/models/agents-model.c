/* agents-model.c - the interface of language models
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-enums.h"
#include "agents-model.h"
#include "agents-openai-private.h"
#include "agents-run-error.h"
#include "agents-run-private.h"

/* AgentsModel */

/**
 * AgentsModel:
 *
 * A language model. Implementations answer a request with
 * `get_response` and, optionally, stream with `stream_response`.
 */

G_DEFINE_INTERFACE (AgentsModel, agents_model, G_TYPE_OBJECT)

static void
default_get_response (AgentsModel *self,
                      AgentsModelRequest *request,
                      GTask *task)
{
  g_task_return_new_error (task, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_FAILED,
                           _ ("%s does not implement get_response"),
                           G_OBJECT_TYPE_NAME (self));
}

typedef struct
{
  GTask *task;
  AgentsModelEventSink *sink;
} StreamCall;

static void
stream_get_response_done (GObject *source,
                          GAsyncResult *result,
                          gpointer user_data)
{
  StreamCall *call = user_data;
  GError *error = NULL;
  AgentsModelResponse *response =
    g_task_propagate_pointer (G_TASK (result), &error);

  if (response == NULL)
    g_task_return_error (call->task, error);
  else
    {
      agents_model_event_sink_push_response (call->sink, response);
      agents_model_return_response (call->task, response);
      g_object_unref (response);
    }
  g_object_unref (call->task);
  g_object_unref (call->sink);
  g_free (call);
}

static void
default_stream_response (AgentsModel *self,
                         AgentsModelRequest *request,
                         AgentsModelEventSink *sink,
                         GTask *task)
{
  StreamCall *call = g_new0 (StreamCall, 1);
  g_autoptr (GTask) inner = NULL;

  call->task = g_object_ref (task);
  call->sink = g_object_ref (sink);
  inner = g_task_new (self, g_task_get_cancellable (task),
                      stream_get_response_done, call);
  g_task_set_source_tag (inner, default_stream_response);
  AGENTS_MODEL_GET_IFACE (self)->get_response (self, request, inner);
}

static void
agents_model_default_init (AgentsModelInterface *iface)
{
  iface->get_response = default_get_response;
  iface->stream_response = default_stream_response;
}

/**
 * agents_model_get_response_async:
 * @self: a model
 * @request: the request
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the response
 * @user_data: data for @callback
 *
 * Asks the model for a complete response.
 */
void
agents_model_get_response_async (AgentsModel *self,
                                 AgentsModelRequest *request,
                                 GCancellable *cancellable,
                                 GAsyncReadyCallback callback,
                                 gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_MODEL (self));
  g_return_if_fail (AGENTS_IS_MODEL_REQUEST (request));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_model_get_response_async);
  AGENTS_MODEL_GET_IFACE (self)->get_response (self, request, task);
}

/**
 * agents_model_get_response_finish:
 * @self: a model
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_model_get_response_async().
 *
 * Returns: (transfer full): the response, or %NULL on error
 */
AgentsModelResponse *
agents_model_get_response_finish (AgentsModel *self,
                                  GAsyncResult *result,
                                  GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * agents_model_stream_response_async:
 * @self: a model
 * @request: the request
 * @sink: where the model pushes its raw events
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the final response
 * @user_data: data for @callback
 *
 * Asks the model for a response, streaming raw events into @sink.
 */
void
agents_model_stream_response_async (AgentsModel *self,
                                    AgentsModelRequest *request,
                                    AgentsModelEventSink *sink,
                                    GCancellable *cancellable,
                                    GAsyncReadyCallback callback,
                                    gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_MODEL (self));
  g_return_if_fail (AGENTS_IS_MODEL_REQUEST (request));
  g_return_if_fail (AGENTS_IS_MODEL_EVENT_SINK (sink));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_model_stream_response_async);
  AGENTS_MODEL_GET_IFACE (self)->stream_response (self, request, sink, task);
}

/**
 * agents_model_stream_response_finish:
 * @self: a model
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_model_stream_response_async().
 *
 * Returns: (transfer full): the final response, or %NULL on error
 */
AgentsModelResponse *
agents_model_stream_response_finish (AgentsModel *self,
                                     GAsyncResult *result,
                                     GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * agents_model_return_response:
 * @task: the task a model vfunc received
 * @response: the response
 *
 * Completes the task of a model call with @response. Models in any
 * language use this.
 */
void
agents_model_return_response (GTask *task, AgentsModelResponse *response)
{
  g_return_if_fail (G_IS_TASK (task));
  g_return_if_fail (AGENTS_IS_MODEL_RESPONSE (response));

  g_task_return_pointer (task, g_object_ref (response), g_object_unref);
}

/**
 * agents_model_get_default_name:
 *
 * Gets the name of the model used when an agent names none: the
 * `OPENAI_DEFAULT_MODEL` environment variable when set and not empty,
 * else the library's default (the reference's `get_default_model()`).
 * Capabilities' sampling-params hooks see it as `model` when neither the
 * agent nor the run configuration gives a model.
 *
 * Returns: the model name
 */
const char *
agents_model_get_default_name (void)
{
  return agents_openai_default_model_name ();
}
