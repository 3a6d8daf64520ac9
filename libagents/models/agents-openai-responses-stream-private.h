/* agents-openai-responses-stream-private.h - a streamed Responses answer
 * and the Responses answer object
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-model.h"
#include "agents-openai-private.h"

G_BEGIN_DECLS

/* The state of one streamed Responses answer: events in, each pushed to
 * the sink as it is, the whole answer at the end. */
typedef struct _AgentsOpenAIResponsesStream AgentsOpenAIResponsesStream;

/* The stream holds a reference on @sink. */
AgentsOpenAIResponsesStream *
agents_openai_responses_stream_new (AgentsModelEventSink *sink);
void agents_openai_responses_stream_free (AgentsOpenAIResponsesStream *stream);

/* An #AgentsOpenAIEventFunc and an #AgentsOpenAIRestartFunc whose
 * user_data is the stream. */
gboolean agents_openai_responses_stream_event (AgentsOpenAIRequest *request,
                                               const char *event_name,
                                               const char *data,
                                               gsize data_len,
                                               gpointer user_data,
                                               GError **error);
void agents_openai_responses_stream_restart (gpointer user_data);

/* The answer of `response.completed`; an error when none came. */
AgentsModelResponse *
agents_openai_responses_stream_finish (AgentsOpenAIResponsesStream *stream,
                                       GError **error);

/* The answer a Responses response object stands for; @fallback_output
 * (nullable) is used when the object has no output. */
AgentsModelResponse *
agents_openai_responses_response_from_json (JsonObject *response,
                                            JsonArray *fallback_output);

G_END_DECLS
