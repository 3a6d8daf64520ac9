/* agents-openai-private.h - internals of the OpenAI-style models
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

#include "agents-model.h"
#include "agents-openai-provider.h"
#include "agents-openai-responses-model.h"

G_BEGIN_DECLS

/* The provider */

SoupSession *agents_openai_provider_get_session (AgentsOpenAIProvider *self);
/* Authorization, organization, project, user agent and extra headers. */
void agents_openai_provider_apply_headers (AgentsOpenAIProvider *self,
                                           SoupMessageHeaders *headers);
/* @text with the API key, if it appears, replaced by "<redacted>". */
char *agents_openai_provider_redact (AgentsOpenAIProvider *self,
                                     const char *text);
/* Whether the base URL is OpenAI's own (some defaults depend on it). */
gboolean agents_openai_provider_is_official (AgentsOpenAIProvider *self);

/* The request body; exposed for the tests. */
JsonObject *
agents_openai_responses_model_build_body (AgentsOpenAIResponsesModel *self,
                                          AgentsModelRequest *request,
                                          gboolean stream,
                                          GError **error);
/* The first retry's base delay in seconds (0.5 as in the SDK). */
double agents_openai_provider_get_retry_base_delay (AgentsOpenAIProvider *self);
void agents_openai_provider_set_retry_base_delay (AgentsOpenAIProvider *self,
                                                  double seconds);
/* OPENAI_DEFAULT_MODEL, else the reference's default. */
const char *agents_openai_default_model_name (void);

/* One HTTP exchange with retries (agents-openai-request.c) */

typedef struct _AgentsOpenAIRequest AgentsOpenAIRequest;

/* Called with each server-sent event of a streamed answer. */
typedef gboolean (*AgentsOpenAIEventFunc) (AgentsOpenAIRequest *request,
                                           const char *event,
                                           const char *data,
                                           gsize data_len,
                                           gpointer user_data,
                                           GError **error);
/* Called before a retried attempt: forget what the failed one streamed. */
typedef void (*AgentsOpenAIRestartFunc) (gpointer user_data);

void agents_openai_request_send_async (AgentsOpenAIProvider *provider,
                                       const char *path,
                                       JsonObject *body,
                                       AgentsOpenAIEventFunc event_func,
                                       AgentsOpenAIRestartFunc restart_func,
                                       gpointer user_data,
                                       GCancellable *cancellable,
                                       GAsyncReadyCallback callback,
                                       gpointer callback_data);
/* The answer's JSON object without streaming; with streaming %TRUE only. */
gboolean agents_openai_request_send_finish (GAsyncResult *result,
                                            JsonObject **answer,
                                            GError **error);
/* Output reached the caller: the request can no longer be retried. @self
 * may be %NULL (an event handler fed without a request, as by the fuzz
 * harness): nothing is marked. */
void agents_openai_request_mark_output (AgentsOpenAIRequest *self);
/* The stream's last event came: stop reading, the exchange succeeded.
 * @self may be %NULL, as above. */
void agents_openai_request_mark_end (AgentsOpenAIRequest *self);
/* How many attempts were made so far (1 for the first). */
guint agents_openai_request_get_attempts (AgentsOpenAIRequest *self);

/* Parses the JSON of an event or answer. The one place that does, so a
 * bounded parser can replace json-glib's. */
JsonNode *
agents_openai_parse_json (const char *data, gsize len, GError **error);

/* Shared helpers of both models */

/* A Responses usage object ({input_tokens, …}) in the run's shape, with
 * requests = 1; %NULL or missing members count as zero. */
JsonObject *agents_openai_usage_from_responses (JsonObject *usage);
/* A Chat Completions usage object ({prompt_tokens, …}), likewise. */
JsonObject *agents_openai_usage_from_chat (JsonObject *usage);
/* A run usage object back in the Responses API's shape. */
JsonObject *agents_openai_usage_responses_shape (JsonObject *usage);
const char *agents_openai_json_string (JsonObject *object, const char *member);
JsonObject *agents_openai_json_object (JsonObject *object, const char *member);
JsonArray *agents_openai_json_array (JsonObject *object, const char *member);
char *agents_openai_json_to_string (JsonNode *node);
/* A response whose output items are sealed. */
AgentsModelResponse *agents_openai_response_new (JsonArray *output,
                                                 JsonObject *usage,
                                                 const char *response_id);

/* Chat Completions conversion (agents-openai-chat-convert.c) */

typedef struct
{
  gboolean keep_tool_images; /* image parts of tool outputs as image_url */
} AgentsChatConvertOptions;

JsonArray *
agents_openai_chat_messages_from_items (const char *instructions,
                                        JsonArray *items,
                                        const AgentsChatConvertOptions *options,
                                        GError **error);
/* A Responses tool definition as a chat tool; custom tools become function
 * tools with one string argument `input`. */
JsonObject *agents_openai_chat_tool_from_responses (JsonObject *tool,
                                                    GError **error);
/* The Responses output items of a chat completion message; @custom_tools
 * names the tools to turn back into custom_tool_call items. */
JsonArray *agents_openai_chat_items_from_message (JsonObject *message,
                                                  GHashTable *custom_tools);
/* The answer of a chat completion (not streamed), from its first choice's
 * message (agents-openai-chat-completions-model.c). */
AgentsModelResponse *agents_openai_chat_response_from_completion (
  JsonObject *completion, GHashTable *custom_tools, GError **error);

G_END_DECLS
