/* agents-openai-responses-model.c - a model behind the OpenAI Responses API
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-agent.h"
#include "agents-openai-private.h"
#include "agents-openai-responses-model.h"
#include "agents-openai-responses-stream-private.h"
#include "agents-run-error.h"
#include "agents-tool.h"

/**
 * AgentsOpenAIResponsesModel:
 *
 * A model answered by `POST {base_url}/responses`, streamed (server-sent
 * events read as they arrive) or not. Registered as the model provider
 * `openai`, so an agent file's `"model": "openai:gpt-4.1"` uses it with
 * the default #AgentsOpenAIProvider (configured from `OPENAI_API_KEY`,
 * `OPENAI_BASE_URL`); an empty name means `OPENAI_DEFAULT_MODEL`.
 *
 * Every streamed event is pushed to the caller's sink as it is; the
 * response comes from `response.completed` (its output, or the items of
 * the `response.output_item.done` events when it has none) and the
 * failure endings `response.failed`, `response.incomplete` and `error`
 * fail the call with %AGENTS_RUN_ERROR_MODEL_BEHAVIOR.
 */

struct _AgentsOpenAIResponsesModel
{
  GObject parent_instance;

  char *model_name;
  AgentsOpenAIProvider *provider;
};

static void
agents_openai_responses_model_iface_init (AgentsModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  AgentsOpenAIResponsesModel,
  agents_openai_responses_model,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_MODEL,
                         agents_openai_responses_model_iface_init))

enum
{
  PROP_0,
  PROP_MODEL_NAME,
  PROP_PROVIDER,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
agents_openai_responses_model_finalize (GObject *object)
{
  AgentsOpenAIResponsesModel *self = AGENTS_OPENAI_RESPONSES_MODEL (object);

  g_free (self->model_name);
  g_clear_object (&self->provider);

  G_OBJECT_CLASS (agents_openai_responses_model_parent_class)
    ->finalize (object);
}

static void
agents_openai_responses_model_get_property (GObject *object,
                                            guint prop_id,
                                            GValue *value,
                                            GParamSpec *pspec)
{
  AgentsOpenAIResponsesModel *self = AGENTS_OPENAI_RESPONSES_MODEL (object);

  switch (prop_id)
    {
    case PROP_MODEL_NAME:
      g_value_set_string (value, self->model_name);
      break;
    case PROP_PROVIDER:
      g_value_set_object (value,
                          agents_openai_responses_model_get_provider (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_openai_responses_model_set_property (GObject *object,
                                            guint prop_id,
                                            const GValue *value,
                                            GParamSpec *pspec)
{
  AgentsOpenAIResponsesModel *self = AGENTS_OPENAI_RESPONSES_MODEL (object);
  const char *name;

  switch (prop_id)
    {
    case PROP_MODEL_NAME:
      name = g_value_get_string (value);
      g_free (self->model_name);
      self->model_name =
        g_strdup (name && *name ? name : agents_openai_default_model_name ());
      break;
    case PROP_PROVIDER:
      agents_openai_responses_model_set_provider (self,
                                                  g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_openai_responses_model_class_init (
  AgentsOpenAIResponsesModelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = agents_openai_responses_model_finalize;
  object_class->get_property = agents_openai_responses_model_get_property;
  object_class->set_property = agents_openai_responses_model_set_property;

  /**
   * AgentsOpenAIResponsesModel:model-name:
   *
   * The model, e.g. `gpt-4.1`; empty or %NULL for the default.
   */
  properties[PROP_MODEL_NAME] = g_param_spec_string (
    "model-name", NULL, NULL, NULL,
    G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * AgentsOpenAIResponsesModel:provider:
   *
   * Where the model is reached; the default provider when unset.
   */
  properties[PROP_PROVIDER] = g_param_spec_object (
    "provider", NULL, NULL, AGENTS_TYPE_OPENAI_PROVIDER,
    G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
agents_openai_responses_model_init (AgentsOpenAIResponsesModel *self)
{
  self->model_name = g_strdup (agents_openai_default_model_name ());
}

/**
 * agents_openai_responses_model_new:
 * @model_name: (nullable): the model, e.g. `gpt-4.1`; %NULL for
 *   `OPENAI_DEFAULT_MODEL`
 * @provider: (nullable): where the model is reached; %NULL for the
 *   default provider
 *
 * Creates a Responses API model.
 *
 * Returns: (transfer full): the model
 */
AgentsOpenAIResponsesModel *
agents_openai_responses_model_new (const char *model_name,
                                   AgentsOpenAIProvider *provider)
{
  return g_object_new (AGENTS_TYPE_OPENAI_RESPONSES_MODEL, "model-name",
                       model_name, "provider", provider, NULL);
}

/**
 * agents_openai_responses_model_get_model_name:
 * @self: a model
 *
 * Gets the model's name.
 *
 * Returns: the model name
 */
const char *
agents_openai_responses_model_get_model_name (AgentsOpenAIResponsesModel *self)
{
  g_return_val_if_fail (AGENTS_IS_OPENAI_RESPONSES_MODEL (self), NULL);
  return self->model_name;
}

/**
 * agents_openai_responses_model_get_provider:
 * @self: a model
 *
 * Gets the provider the model's requests go through.
 *
 * Returns: (transfer none): the provider
 */
AgentsOpenAIProvider *
agents_openai_responses_model_get_provider (AgentsOpenAIResponsesModel *self)
{
  g_return_val_if_fail (AGENTS_IS_OPENAI_RESPONSES_MODEL (self), NULL);
  return self->provider ? self->provider
                        : agents_openai_provider_get_default ();
}

/**
 * agents_openai_responses_model_set_provider:
 * @self: a model
 * @provider: (nullable): a provider; %NULL for the default one
 *
 * Sets the provider the model's requests go through.
 */
void
agents_openai_responses_model_set_provider (AgentsOpenAIResponsesModel *self,
                                            AgentsOpenAIProvider *provider)
{
  g_return_if_fail (AGENTS_IS_OPENAI_RESPONSES_MODEL (self));

  if (g_set_object (&self->provider, provider))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROVIDER]);
}

/* ---- the request body -------------------------------------------------- */

/* The input items as sent: provider_data dropped, fake ids removed. */
static JsonArray *
clean_input (JsonArray *input)
{
  JsonArray *clean = json_array_sized_new (json_array_get_length (input));

  for (guint i = 0; i < json_array_get_length (input); i++)
    {
      JsonNode *node = json_array_get_element (input, i);
      JsonObject *item;
      JsonObject *copy;
      GList *names;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          json_array_add_element (clean, json_node_copy (node));
          continue;
        }
      item = json_node_get_object (node);
      if (!json_object_has_member (item, "provider_data") &&
          g_strcmp0 (agents_openai_json_string (item, "id"), "__fake_id__"))
        {
          json_array_add_element (clean, json_node_ref (node));
          continue;
        }
      copy = json_object_new ();
      names = json_object_get_members (item);
      for (GList *l = names; l != NULL; l = l->next)
        {
          const char *name = l->data;

          if (g_str_equal (name, "provider_data") ||
              (g_str_equal (name, "id") &&
               !g_strcmp0 (agents_openai_json_string (item, "id"),
                           "__fake_id__")))
            continue;
          json_object_set_member (
            copy, name, json_node_copy (json_object_get_member (item, name)));
        }
      g_list_free (names);
      json_array_add_object_element (clean, copy);
    }
  return clean;
}

static JsonArray *
tools_json (AgentsModelRequest *request)
{
  GPtrArray *tools = agents_model_request_get_tools (request);
  GPtrArray *handoffs = agents_model_request_get_handoffs (request);
  JsonArray *array = json_array_new ();

  for (guint i = 0; tools && i < tools->len; i++)
    json_array_add_object_element (array,
                                   agents_tool_to_model_json (tools->pdata[i]));
  for (guint i = 0; handoffs && i < handoffs->len; i++)
    json_array_add_object_element (
      array, agents_handoff_to_model_json (handoffs->pdata[i]));
  return array;
}

static gboolean
is_hosted_tool_choice (const char *choice)
{
  static const char *const hosted[] = { "file_search",
                                        "web_search_preview",
                                        "web_search",
                                        "computer_use_preview",
                                        "image_generation",
                                        "code_interpreter",
                                        "mcp",
                                        NULL };

  return g_strv_contains (hosted, choice);
}

static JsonNode *
tool_choice_json (const char *choice)
{
  JsonObject *object;

  if (g_str_equal (choice, "auto") || g_str_equal (choice, "required") ||
      g_str_equal (choice, "none"))
    return json_node_init_string (json_node_alloc (), choice);
  object = json_object_new ();
  if (is_hosted_tool_choice (choice))
    json_object_set_string_member (object, "type", choice);
  else
    {
      json_object_set_string_member (object, "type", "function");
      json_object_set_string_member (object, "name", choice);
    }
  return json_node_init_object (json_node_alloc (), object);
}

static void
set_settings (JsonObject *body,
              AgentsModelSettings *settings,
              gboolean has_tools)
{
  if (agents_model_settings_has_temperature (settings))
    json_object_set_double_member (
      body, "temperature", agents_model_settings_get_temperature (settings));
  if (agents_model_settings_has_top_p (settings))
    json_object_set_double_member (body, "top_p",
                                   agents_model_settings_get_top_p (settings));
  if (agents_model_settings_get_truncation (settings) != NULL)
    json_object_set_string_member (
      body, "truncation", agents_model_settings_get_truncation (settings));
  if (agents_model_settings_has_max_tokens (settings))
    json_object_set_int_member (
      body, "max_output_tokens",
      agents_model_settings_get_max_tokens (settings));
  if (agents_model_settings_get_tool_choice (settings) != NULL)
    json_object_set_member (
      body, "tool_choice",
      tool_choice_json (agents_model_settings_get_tool_choice (settings)));
  if (has_tools && agents_model_settings_has_parallel_tool_calls (settings))
    json_object_set_boolean_member (
      body, "parallel_tool_calls",
      agents_model_settings_get_parallel_tool_calls (settings));
}

static JsonObject *
text_format (JsonObject *schema)
{
  JsonObject *text = json_object_new ();
  JsonObject *format = json_object_new ();

  json_object_set_string_member (format, "type", "json_schema");
  json_object_set_string_member (format, "name", "final_output");
  json_object_set_object_member (format, "schema", json_object_ref (schema));
  json_object_set_boolean_member (format, "strict", TRUE);
  json_object_set_object_member (text, "format", format);
  return text;
}

/* extra_args go at the top level; one that a set field already gave is
 * the reference's TypeError. */
static gboolean
merge_extra_args (JsonObject *body, JsonObject *extra, GError **error)
{
  g_autoptr (GList) names = extra ? json_object_get_members (extra) : NULL;

  for (GList *l = names; l != NULL; l = l->next)
    {
      if (json_object_has_member (body, l->data))
        {
          agents_run_error_set (error, AGENTS_RUN_ERROR_USER_ERROR, NULL,
                                "responses.create() got multiple values for "
                                "keyword argument '%s'",
                                (const char *) l->data);
          return FALSE;
        }
      json_object_set_member (
        body, l->data,
        json_node_copy (json_object_get_member (extra, l->data)));
    }
  return TRUE;
}

static gboolean
has_extra_arg (AgentsModelSettings *settings, const char *name)
{
  JsonObject *extra = agents_model_settings_get_extra_args (settings);

  return extra != NULL && json_object_has_member (extra, name);
}

/* `include` is the settings' response_include plus what top_logprobs
 * needs; none of the tools this library offers adds to it. */
static void
set_include_and_logprobs (JsonObject *body, AgentsModelSettings *settings)
{
  const char *const *include =
    agents_model_settings_get_response_include (settings);
  gboolean logprobs = agents_model_settings_has_top_logprobs (settings);
  g_autoptr (JsonArray) array = json_array_new ();

  for (guint i = 0; include != NULL && include[i] != NULL; i++)
    json_array_add_string_element (array, include[i]);
  if (logprobs &&
      !g_strv_contains (include ? include : (const char *[]){ NULL },
                        "message.output_text.logprobs"))
    json_array_add_string_element (array, "message.output_text.logprobs");
  if (json_array_get_length (array) > 0)
    json_object_set_array_member (body, "include", json_array_ref (array));
  if (logprobs)
    json_object_set_int_member (
      body, "top_logprobs", agents_model_settings_get_top_logprobs (settings));
}

JsonObject *
agents_openai_responses_model_build_body (AgentsOpenAIResponsesModel *self,
                                          AgentsModelRequest *request,
                                          gboolean stream,
                                          GError **error)
{
  g_autoptr (JsonObject) body = json_object_new ();
  AgentsModelSettings *settings =
    agents_model_request_get_model_settings (request);
  g_autoptr (JsonArray) tools = tools_json (request);
  JsonObject *prompt = agents_model_request_get_prompt (request);
  const char *value;

  if ((value = agents_model_request_get_previous_response_id (request)))
    json_object_set_string_member (body, "previous_response_id", value);
  if ((value = agents_model_request_get_conversation_id (request)))
    json_object_set_string_member (body, "conversation", value);
  if ((value = agents_model_request_get_system_instructions (request)))
    json_object_set_string_member (body, "instructions", value);
  json_object_set_string_member (body, "model", self->model_name);
  json_object_set_array_member (
    body, "input", clean_input (agents_model_request_get_input (request)));
  if (json_array_get_length (tools) > 0)
    json_object_set_array_member (body, "tools", json_array_ref (tools));
  if (prompt != NULL)
    json_object_set_object_member (body, "prompt", json_object_ref (prompt));
  set_settings (body, settings,
                json_array_get_length (tools) > 0 || prompt != NULL);
  if (stream)
    json_object_set_boolean_member (body, "stream", TRUE);
  if (agents_model_request_get_output_schema (request) != NULL)
    json_object_set_object_member (
      body, "text",
      text_format (agents_model_request_get_output_schema (request)));
  if (agents_model_settings_has_store (settings))
    json_object_set_boolean_member (body, "store",
                                    agents_model_settings_get_store (settings));
  if (agents_model_settings_get_reasoning (settings) != NULL)
    json_object_set_object_member (
      body, "reasoning",
      json_object_ref (agents_model_settings_get_reasoning (settings)));
  if (agents_model_settings_get_metadata (settings) != NULL)
    json_object_set_object_member (
      body, "metadata",
      json_object_ref (agents_model_settings_get_metadata (settings)));
  set_include_and_logprobs (body, settings);
  if ((value = agents_model_request_get_prompt_cache_key (request)) &&
      agents_openai_provider_is_official (
        agents_openai_responses_model_get_provider (self)) &&
      !has_extra_arg (settings, "prompt_cache_key"))
    json_object_set_string_member (body, "prompt_cache_key", value);
  if (!merge_extra_args (body, agents_model_settings_get_extra_args (settings),
                         error))
    return NULL;
  return g_steal_pointer (&body);
}

/* ---- answers ----------------------------------------------------------- */

/* The reference's `response` span: one per request, under the runner's
 * generation span, naming the response it produced. */
static AgentsSpan *
response_span_begin (AgentsModelRequest *request)
{
  AgentsSpan *parent = agents_model_request_get_span (request);

  if (parent == NULL || agents_model_request_get_tracing (request) ==
                          AGENTS_MODEL_TRACING_DISABLED)
    return NULL;
  return agents_span_start_child (parent, AGENTS_SPAN_KIND_RESPONSE, NULL);
}

static void
response_span_end (AgentsSpan **span,
                   AgentsModelResponse *response,
                   const GError *error)
{
  const char *id;

  if (*span == NULL)
    return;
  if (response != NULL &&
      (id = agents_model_response_get_response_id (response)) != NULL)
    {
      g_autoptr (JsonNode) node = json_node_new (JSON_NODE_VALUE);

      json_node_set_string (node, id);
      agents_span_set_data_member (*span, "response_id", node);
    }
  agents_span_end (*span, error);
  g_clear_object (span);
}

static void
return_response (GTask *task,
                 AgentsSpan **span,
                 AgentsModelResponse *response,
                 GError *error)
{
  response_span_end (span, response, error);
  if (error != NULL)
    g_task_return_error (task, error);
  else
    agents_model_return_response (task, response);
}

/* What a streamed call keeps: the stream and its span. */
typedef struct
{
  AgentsOpenAIResponsesStream *stream;
  AgentsSpan *span;
} StreamCall;

static void
stream_call_free (StreamCall *call)
{
  g_clear_object (&call->span);
  agents_openai_responses_stream_free (call->stream);
  g_free (call);
}

static void
stream_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  StreamCall *call = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr (AgentsModelResponse) response = NULL;

  if (agents_openai_request_send_finish (result, NULL, &error))
    response = agents_openai_responses_stream_finish (call->stream, &error);
  return_response (task, &call->span, response, error);
}

static void
responses_stream_response (AgentsModel *model,
                           AgentsModelRequest *request,
                           AgentsModelEventSink *sink,
                           GTask *task)
{
  AgentsOpenAIResponsesModel *self = AGENTS_OPENAI_RESPONSES_MODEL (model);
  GError *error = NULL;
  g_autoptr (JsonObject) body =
    agents_openai_responses_model_build_body (self, request, TRUE, &error);
  StreamCall *call;

  if (body == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  call = g_new0 (StreamCall, 1);
  call->stream = agents_openai_responses_stream_new (sink);
  call->span = response_span_begin (request);
  g_task_set_task_data (task, call, (GDestroyNotify) stream_call_free);
  agents_openai_request_send_async (
    agents_openai_responses_model_get_provider (self), "/responses", body,
    agents_openai_responses_stream_event,
    agents_openai_responses_stream_restart, call->stream,
    g_task_get_cancellable (task), stream_done, g_object_ref (task));
}

static void
get_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  g_autoptr (JsonObject) answer = NULL;
  g_autoptr (AgentsModelResponse) response = NULL;
  AgentsSpan **span = g_task_get_task_data (task);
  GError *error = NULL;

  if (!agents_openai_request_send_finish (result, &answer, &error))
    {
      return_response (task, span, NULL, error);
      return;
    }
  response = agents_openai_responses_response_from_json (answer, NULL);
  return_response (task, span, response, NULL);
}

static void
span_slot_free (AgentsSpan **span)
{
  g_clear_object (span);
  g_free (span);
}

static void
responses_get_response (AgentsModel *model,
                        AgentsModelRequest *request,
                        GTask *task)
{
  AgentsOpenAIResponsesModel *self = AGENTS_OPENAI_RESPONSES_MODEL (model);
  GError *error = NULL;
  g_autoptr (JsonObject) body =
    agents_openai_responses_model_build_body (self, request, FALSE, &error);
  AgentsSpan **span;

  if (body == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  span = g_new0 (AgentsSpan *, 1);
  *span = response_span_begin (request);
  g_task_set_task_data (task, span, (GDestroyNotify) span_slot_free);
  agents_openai_request_send_async (
    agents_openai_responses_model_get_provider (self), "/responses", body, NULL,
    NULL, NULL, g_task_get_cancellable (task), get_done, g_object_ref (task));
}

static void
agents_openai_responses_model_iface_init (AgentsModelInterface *iface)
{
  iface->get_response = responses_get_response;
  iface->stream_response = responses_stream_response;
}
