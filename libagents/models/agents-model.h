/* agents-model.h - the interface of language models
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "run/agents-model-settings.h"
#include "run/agents-tracing.h"
#include "agents-version-macros.h"

G_BEGIN_DECLS

/**
 * AgentsModelTracing:
 * @AGENTS_MODEL_TRACING_DISABLED: the model records no trace
 * @AGENTS_MODEL_TRACING_ENABLED: the model traces, with inputs and outputs
 * @AGENTS_MODEL_TRACING_ENABLED_WITHOUT_DATA: the model traces, without
 *   inputs and outputs
 *
 * What a model records in the trace of a request.
 */
typedef enum
{
  AGENTS_MODEL_TRACING_DISABLED,
  AGENTS_MODEL_TRACING_ENABLED,
  AGENTS_MODEL_TRACING_ENABLED_WITHOUT_DATA,
} AgentsModelTracing;

/* AgentsModelRequest */

#define AGENTS_TYPE_MODEL_REQUEST (agents_model_request_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (
  AgentsModelRequest, agents_model_request, AGENTS, MODEL_REQUEST, GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsModelRequest *agents_model_request_new (void);
AGENTS_AVAILABLE_IN_1_0
AgentsModelRequest *
agents_model_request_copy (AgentsModelRequest *self) G_GNUC_WARN_UNUSED_RESULT;

AGENTS_AVAILABLE_IN_1_0
const char *
agents_model_request_get_system_instructions (AgentsModelRequest *self);
AGENTS_AVAILABLE_IN_1_0
void agents_model_request_set_system_instructions (AgentsModelRequest *self,
                                                   const char *instructions);
AGENTS_AVAILABLE_IN_1_0
JsonArray *agents_model_request_get_input (AgentsModelRequest *self);
AGENTS_AVAILABLE_IN_1_0
void agents_model_request_set_input (AgentsModelRequest *self,
                                     JsonArray *input);
AGENTS_AVAILABLE_IN_1_0
AgentsModelSettings *
agents_model_request_get_model_settings (AgentsModelRequest *self);
AGENTS_AVAILABLE_IN_1_0
void agents_model_request_set_model_settings (AgentsModelRequest *self,
                                              AgentsModelSettings *settings);
AGENTS_AVAILABLE_IN_1_0
GPtrArray *agents_model_request_get_tools (AgentsModelRequest *self);
AGENTS_AVAILABLE_IN_1_0
void agents_model_request_set_tools (AgentsModelRequest *self,
                                     GPtrArray *tools);
AGENTS_AVAILABLE_IN_1_0
GPtrArray *agents_model_request_get_handoffs (AgentsModelRequest *self);
AGENTS_AVAILABLE_IN_1_0
void agents_model_request_set_handoffs (AgentsModelRequest *self,
                                        GPtrArray *handoffs);
AGENTS_AVAILABLE_IN_1_0
JsonObject *agents_model_request_get_output_schema (AgentsModelRequest *self);
AGENTS_AVAILABLE_IN_1_0
void agents_model_request_set_output_schema (AgentsModelRequest *self,
                                             JsonObject *output_schema);
AGENTS_AVAILABLE_IN_1_0
JsonObject *agents_model_request_get_prompt (AgentsModelRequest *self);
AGENTS_AVAILABLE_IN_1_0
void agents_model_request_set_prompt (AgentsModelRequest *self,
                                      JsonObject *prompt);
AGENTS_AVAILABLE_IN_1_0
const char *
agents_model_request_get_previous_response_id (AgentsModelRequest *self);
AGENTS_AVAILABLE_IN_1_0
void agents_model_request_set_previous_response_id (AgentsModelRequest *self,
                                                    const char *response_id);
AGENTS_AVAILABLE_IN_1_0
const char *agents_model_request_get_conversation_id (AgentsModelRequest *self);
AGENTS_AVAILABLE_IN_1_0
void agents_model_request_set_conversation_id (AgentsModelRequest *self,
                                               const char *conversation_id);
AGENTS_AVAILABLE_IN_1_0
const char *
agents_model_request_get_prompt_cache_key (AgentsModelRequest *self);
AGENTS_AVAILABLE_IN_1_0
void agents_model_request_set_prompt_cache_key (AgentsModelRequest *self,
                                                const char *key);
AGENTS_AVAILABLE_IN_1_0
AgentsSpan *agents_model_request_get_span (AgentsModelRequest *self);
AGENTS_AVAILABLE_IN_1_0
void agents_model_request_set_span (AgentsModelRequest *self, AgentsSpan *span);
AGENTS_AVAILABLE_IN_1_0
AgentsModelTracing agents_model_request_get_tracing (AgentsModelRequest *self);
AGENTS_AVAILABLE_IN_1_0
void agents_model_request_set_tracing (AgentsModelRequest *self,
                                       AgentsModelTracing tracing);

/* AgentsModelResponse */

#define AGENTS_TYPE_MODEL_RESPONSE (agents_model_response_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (
  AgentsModelResponse, agents_model_response, AGENTS, MODEL_RESPONSE, GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsModelResponse *agents_model_response_new (JsonArray *output,
                                                JsonObject *usage,
                                                const char *response_id);
AGENTS_AVAILABLE_IN_1_0
AgentsModelResponse *
agents_model_response_new_from_json (JsonObject *json,
                                     GError **error) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
JsonObject *agents_model_response_to_json (AgentsModelResponse *self)
  G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
JsonArray *agents_model_response_get_output (AgentsModelResponse *self);
AGENTS_AVAILABLE_IN_1_0
JsonObject *agents_model_response_get_usage (AgentsModelResponse *self);
AGENTS_AVAILABLE_IN_1_0
const char *agents_model_response_get_response_id (AgentsModelResponse *self);

/* AgentsModelEventSink */

#define AGENTS_TYPE_MODEL_EVENT_SINK (agents_model_event_sink_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (AgentsModelEventSink,
                      agents_model_event_sink,
                      AGENTS,
                      MODEL_EVENT_SINK,
                      GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsModelEventSink *agents_model_event_sink_new (void);
AGENTS_AVAILABLE_IN_1_0
void agents_model_event_sink_push (AgentsModelEventSink *self,
                                   JsonObject *event);
AGENTS_AVAILABLE_IN_1_0
void agents_model_event_sink_push_response (AgentsModelEventSink *self,
                                            AgentsModelResponse *response);

/* AgentsModel */

#define AGENTS_TYPE_MODEL (agents_model_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_INTERFACE (AgentsModel, agents_model, AGENTS, MODEL, GObject)

/**
 * AgentsModelInterface:
 * @get_response: asks the model for a complete response; the task
 *   returns an #AgentsModelResponse
 * @stream_response: asks the model for a response, pushing the raw
 *   streaming events into the sink as they come; the task returns the
 *   final #AgentsModelResponse. The default calls @get_response and
 *   pushes the events of the whole response at once, see
 *   agents_model_event_sink_push_response()
 *
 * A language model. The vfuncs receive the task the public `_async`
 * function created (transfer none) and must complete it; its
 * #GCancellable is the caller's.
 */
struct _AgentsModelInterface
{
  GTypeInterface g_iface;

  void (*get_response) (AgentsModel *self,
                        AgentsModelRequest *request,
                        GTask *task);
  void (*stream_response) (AgentsModel *self,
                           AgentsModelRequest *request,
                           AgentsModelEventSink *sink,
                           GTask *task);

  /*< private >*/
  gpointer padding[12];
};

AGENTS_AVAILABLE_IN_1_0
void agents_model_get_response_async (AgentsModel *self,
                                      AgentsModelRequest *request,
                                      GCancellable *cancellable,
                                      GAsyncReadyCallback callback,
                                      gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
AgentsModelResponse *
agents_model_get_response_finish (AgentsModel *self,
                                  GAsyncResult *result,
                                  GError **error) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
void agents_model_stream_response_async (AgentsModel *self,
                                         AgentsModelRequest *request,
                                         AgentsModelEventSink *sink,
                                         GCancellable *cancellable,
                                         GAsyncReadyCallback callback,
                                         gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
AgentsModelResponse *
agents_model_stream_response_finish (AgentsModel *self,
                                     GAsyncResult *result,
                                     GError **error) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
void agents_model_return_response (GTask *task, AgentsModelResponse *response);

AGENTS_AVAILABLE_IN_1_0
const char *agents_model_get_default_name (void);

G_END_DECLS
