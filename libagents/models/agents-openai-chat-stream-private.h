/* agents-openai-chat-stream-private.h - a streamed chat completion as the
 * Responses events it stands for
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-model.h"
#include "agents-openai-private.h"

G_BEGIN_DECLS

/* The state of one streamed chat completion: chunks in, Responses events
 * pushed to the sink, the whole answer at the end. */
typedef struct _AgentsOpenAIChatStream AgentsOpenAIChatStream;

/* @sink and @custom (the custom tools' names, filled while the request
 * is built) must outlive the stream. */
AgentsOpenAIChatStream *agents_openai_chat_stream_new (
  AgentsModelEventSink *sink, GHashTable *custom, const char *model_name);
void agents_openai_chat_stream_free (AgentsOpenAIChatStream *stream);

/* An #AgentsOpenAIEventFunc and an #AgentsOpenAIRestartFunc whose
 * user_data is the stream. */
gboolean agents_openai_chat_stream_event (AgentsOpenAIRequest *request,
                                          const char *event_name,
                                          const char *data,
                                          gsize data_len,
                                          gpointer user_data,
                                          GError **error);
void agents_openai_chat_stream_restart (gpointer user_data);

/* The answer the stream made once it ended, pushing its last events. */
AgentsModelResponse *
agents_openai_chat_stream_finish (AgentsOpenAIChatStream *stream,
                                  GError **error);

G_END_DECLS
