/* agents-openai-chat-completions-model.c - a model behind the Chat
 * Completions API
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <inttypes.h>
#include <glib/gi18n-lib.h>

#include "agents-agent.h"
#include "agents-openai-chat-completions-model.h"
#include "agents-openai-chat-stream-private.h"
#include "agents-openai-private.h"
#include "agents-run-error.h"
#include "agents-tool.h"

/**
 * AgentsOpenAIChatCompletionsModel:
 *
 * A model answered by `POST {base_url}/chat/completions`, the API that
 * Ollama, llama.cpp's server, vLLM, LM Studio and other OpenAI-compatible
 * servers speak. Registered as the model provider `chat`:
 * `agents run --model chat:llama3.2 --base-url http://127.0.0.1:11434/v1`.
 *
 * Responses items are turned into chat messages and the answer back into
 * items; a streamed answer (`chat.completion.chunk` events, tool-call
 * deltas merged by `index`, `[DONE]`) is pushed to the sink as the
 * Responses events it stands for (`response.created`,
 * `response.output_item.added`, `response.output_text.delta`,
 * `response.function_call_arguments.delta`, …, `response.completed`), so
 * streaming callers see one shape whatever the model.
 *
 * What the API cannot express is degraded on purpose: a custom (freeform)
 * tool is offered as a function tool with one string argument `input`,
 * and the model's call of it comes back as a `custom_tool_call` item; the
 * images of tool outputs are dropped unless
 * #AgentsOpenAIChatCompletionsModel:keep-tool-images is set;
 * `previous_response_id`, conversations and prompts are not sent.
 */

struct _AgentsOpenAIChatCompletionsModel
{
  GObject parent_instance;

  char *model_name;
  AgentsOpenAIProvider *provider;
  gboolean keep_tool_images;
};

static void
agents_openai_chat_completions_model_iface_init (AgentsModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  AgentsOpenAIChatCompletionsModel,
  agents_openai_chat_completions_model,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_MODEL,
                         agents_openai_chat_completions_model_iface_init))

enum
{
  PROP_0,
  PROP_MODEL_NAME,
  PROP_PROVIDER,
  PROP_KEEP_TOOL_IMAGES,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
agents_openai_chat_completions_model_finalize (GObject *object)
{
  AgentsOpenAIChatCompletionsModel *self =
    AGENTS_OPENAI_CHAT_COMPLETIONS_MODEL (object);

  g_free (self->model_name);
  g_clear_object (&self->provider);

  G_OBJECT_CLASS (agents_openai_chat_completions_model_parent_class)
    ->finalize (object);
}

static void
agents_openai_chat_completions_model_get_property (GObject *object,
                                                   guint prop_id,
                                                   GValue *value,
                                                   GParamSpec *pspec)
{
  AgentsOpenAIChatCompletionsModel *self =
    AGENTS_OPENAI_CHAT_COMPLETIONS_MODEL (object);

  switch (prop_id)
    {
    case PROP_MODEL_NAME:
      g_value_set_string (value, self->model_name);
      break;
    case PROP_PROVIDER:
      g_value_set_object (
        value, agents_openai_chat_completions_model_get_provider (self));
      break;
    case PROP_KEEP_TOOL_IMAGES:
      g_value_set_boolean (value, self->keep_tool_images);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_openai_chat_completions_model_set_property (GObject *object,
                                                   guint prop_id,
                                                   const GValue *value,
                                                   GParamSpec *pspec)
{
  AgentsOpenAIChatCompletionsModel *self =
    AGENTS_OPENAI_CHAT_COMPLETIONS_MODEL (object);
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
      agents_openai_chat_completions_model_set_provider (
        self, g_value_get_object (value));
      break;
    case PROP_KEEP_TOOL_IMAGES:
      agents_openai_chat_completions_model_set_keep_tool_images (
        self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_openai_chat_completions_model_class_init (
  AgentsOpenAIChatCompletionsModelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = agents_openai_chat_completions_model_finalize;
  object_class->get_property =
    agents_openai_chat_completions_model_get_property;
  object_class->set_property =
    agents_openai_chat_completions_model_set_property;

  /**
   * AgentsOpenAIChatCompletionsModel:model-name:
   *
   * The model, e.g. `llama3.2`; empty or %NULL for the default.
   */
  properties[PROP_MODEL_NAME] = g_param_spec_string (
    "model-name", NULL, NULL, NULL,
    G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * AgentsOpenAIChatCompletionsModel:provider:
   *
   * Where the model is reached; the default provider when unset.
   */
  properties[PROP_PROVIDER] = g_param_spec_object (
    "provider", NULL, NULL, AGENTS_TYPE_OPENAI_PROVIDER,
    G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * AgentsOpenAIChatCompletionsModel:keep-tool-images:
   *
   * Whether the image parts of tool outputs are sent as `image_url` parts
   * of the tool message (not every server accepts them); by default they
   * are dropped, and an output left without text is sent as
   * `[tool output omitted]`.
   */
  properties[PROP_KEEP_TOOL_IMAGES] = g_param_spec_boolean (
    "keep-tool-images", NULL, NULL, FALSE,
    G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
agents_openai_chat_completions_model_init (
  AgentsOpenAIChatCompletionsModel *self)
{
  self->model_name = g_strdup (agents_openai_default_model_name ());
}

/**
 * agents_openai_chat_completions_model_new:
 * @model_name: (nullable): the model, e.g. `gpt-4.1`; %NULL for
 *   `OPENAI_DEFAULT_MODEL`
 * @provider: (nullable): where the model is reached; %NULL for the
 *   default provider
 *
 * Creates a Chat Completions model.
 *
 * Returns: (transfer full): the model
 */
AgentsOpenAIChatCompletionsModel *
agents_openai_chat_completions_model_new (const char *model_name,
                                          AgentsOpenAIProvider *provider)
{
  return g_object_new (AGENTS_TYPE_OPENAI_CHAT_COMPLETIONS_MODEL, "model-name",
                       model_name, "provider", provider, NULL);
}

/**
 * agents_openai_chat_completions_model_get_model_name:
 * @self: a model
 *
 * Gets the model's name.
 *
 * Returns: the model name
 */
const char *
agents_openai_chat_completions_model_get_model_name (
  AgentsOpenAIChatCompletionsModel *self)
{
  g_return_val_if_fail (AGENTS_IS_OPENAI_CHAT_COMPLETIONS_MODEL (self), NULL);
  return self->model_name;
}

/**
 * agents_openai_chat_completions_model_get_provider:
 * @self: a model
 *
 * Gets the provider the model's requests go through.
 *
 * Returns: (transfer none): the provider
 */
AgentsOpenAIProvider *
agents_openai_chat_completions_model_get_provider (
  AgentsOpenAIChatCompletionsModel *self)
{
  g_return_val_if_fail (AGENTS_IS_OPENAI_CHAT_COMPLETIONS_MODEL (self), NULL);
  return self->provider ? self->provider
                        : agents_openai_provider_get_default ();
}

/**
 * agents_openai_chat_completions_model_set_provider:
 * @self: a model
 * @provider: (nullable): a provider; %NULL for the default one
 *
 * Sets the provider the model's requests go through.
 */
void
agents_openai_chat_completions_model_set_provider (
  AgentsOpenAIChatCompletionsModel *self, AgentsOpenAIProvider *provider)
{
  g_return_if_fail (AGENTS_IS_OPENAI_CHAT_COMPLETIONS_MODEL (self));

  if (g_set_object (&self->provider, provider))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROVIDER]);
}

/**
 * agents_openai_chat_completions_model_get_keep_tool_images:
 * @self: a model
 *
 * Gets #AgentsOpenAIChatCompletionsModel:keep-tool-images.
 *
 * Returns: whether tool output images are sent
 */
gboolean
agents_openai_chat_completions_model_get_keep_tool_images (
  AgentsOpenAIChatCompletionsModel *self)
{
  g_return_val_if_fail (AGENTS_IS_OPENAI_CHAT_COMPLETIONS_MODEL (self), FALSE);
  return self->keep_tool_images;
}

/**
 * agents_openai_chat_completions_model_set_keep_tool_images:
 * @self: a model
 * @keep: whether tool output images are sent
 *
 * Sets #AgentsOpenAIChatCompletionsModel:keep-tool-images.
 */
void
agents_openai_chat_completions_model_set_keep_tool_images (
  AgentsOpenAIChatCompletionsModel *self, gboolean keep)
{
  g_return_if_fail (AGENTS_IS_OPENAI_CHAT_COMPLETIONS_MODEL (self));

  keep = !!keep;
  if (self->keep_tool_images == keep)
    return;
  self->keep_tool_images = keep;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_KEEP_TOOL_IMAGES]);
}

/* ---- the request body -------------------------------------------------- */

/* The tools as chat tools; the names of custom tools go to @custom. */
static JsonArray *
chat_tools (AgentsModelRequest *request, GHashTable *custom, GError **error)
{
  GPtrArray *tools = agents_model_request_get_tools (request);
  GPtrArray *handoffs = agents_model_request_get_handoffs (request);
  g_autoptr (JsonArray) array = json_array_new ();

  for (guint i = 0; tools && i < tools->len; i++)
    {
      g_autoptr (JsonObject) tool = agents_tool_to_model_json (tools->pdata[i]);
      JsonObject *chat = agents_openai_chat_tool_from_responses (tool, error);
      const char *name = agents_openai_json_string (tool, "name");

      if (chat == NULL)
        return NULL;
      if (g_strcmp0 (agents_openai_json_string (tool, "type"), "custom") == 0 &&
          name != NULL)
        g_hash_table_add (custom, g_strdup (name));
      json_array_add_object_element (array, chat);
    }
  for (guint i = 0; handoffs && i < handoffs->len; i++)
    {
      g_autoptr (JsonObject) tool =
        agents_handoff_to_model_json (handoffs->pdata[i]);

      json_array_add_object_element (
        array, agents_openai_chat_tool_from_responses (tool, NULL));
    }
  return g_steal_pointer (&array);
}

static JsonNode *
tool_choice_json (const char *choice)
{
  JsonObject *object;
  JsonObject *function;

  if (g_str_equal (choice, "auto") || g_str_equal (choice, "required") ||
      g_str_equal (choice, "none"))
    return json_node_init_string (json_node_alloc (), choice);
  object = json_object_new ();
  function = json_object_new ();
  json_object_set_string_member (function, "name", choice);
  json_object_set_string_member (object, "type", "function");
  json_object_set_object_member (object, "function", function);
  return json_node_init_object (json_node_alloc (), object);
}

static JsonObject *
response_format (JsonObject *schema)
{
  JsonObject *format = json_object_new ();
  JsonObject *json_schema = json_object_new ();

  json_object_set_string_member (json_schema, "name", "final_output");
  json_object_set_boolean_member (json_schema, "strict", TRUE);
  json_object_set_object_member (json_schema, "schema",
                                 json_object_ref (schema));
  json_object_set_string_member (format, "type", "json_schema");
  json_object_set_object_member (format, "json_schema", json_schema);
  return format;
}

static void
set_settings (AgentsOpenAIChatCompletionsModel *self,
              JsonObject *body,
              AgentsModelRequest *request,
              gboolean has_tools,
              gboolean stream)
{
  AgentsModelSettings *settings =
    agents_model_request_get_model_settings (request);
  JsonObject *reasoning = agents_model_settings_get_reasoning (settings);
  JsonObject *schema = agents_model_request_get_output_schema (request);

  if (agents_model_settings_has_temperature (settings))
    json_object_set_double_member (
      body, "temperature", agents_model_settings_get_temperature (settings));
  if (agents_model_settings_has_top_p (settings))
    json_object_set_double_member (body, "top_p",
                                   agents_model_settings_get_top_p (settings));
  if (agents_model_settings_has_max_tokens (settings))
    json_object_set_int_member (
      body, "max_tokens", agents_model_settings_get_max_tokens (settings));
  if (agents_model_settings_get_tool_choice (settings) != NULL)
    json_object_set_member (
      body, "tool_choice",
      tool_choice_json (agents_model_settings_get_tool_choice (settings)));
  if (schema != NULL)
    json_object_set_object_member (body, "response_format",
                                   response_format (schema));
  if (has_tools && agents_model_settings_has_parallel_tool_calls (settings))
    json_object_set_boolean_member (
      body, "parallel_tool_calls",
      agents_model_settings_get_parallel_tool_calls (settings));
  if (stream)
    {
      json_object_set_boolean_member (body, "stream", TRUE);
      /* Other servers may refuse stream_options (the reference's rule). */
      if (agents_openai_provider_is_official (
            agents_openai_chat_completions_model_get_provider (self)))
        {
          JsonObject *options = json_object_new ();

          json_object_set_boolean_member (options, "include_usage", TRUE);
          json_object_set_object_member (body, "stream_options", options);
        }
    }
  if (agents_model_settings_has_store (settings))
    json_object_set_boolean_member (body, "store",
                                    agents_model_settings_get_store (settings));
  if (agents_model_settings_has_top_logprobs (settings))
    {
      json_object_set_int_member (
        body, "top_logprobs",
        agents_model_settings_get_top_logprobs (settings));
      json_object_set_boolean_member (body, "logprobs", TRUE);
    }
  if (agents_openai_json_string (reasoning, "effort") != NULL)
    json_object_set_string_member (
      body, "reasoning_effort",
      agents_openai_json_string (reasoning, "effort"));
  if (agents_model_settings_get_metadata (settings) != NULL)
    json_object_set_object_member (
      body, "metadata",
      json_object_ref (agents_model_settings_get_metadata (settings)));
}

static gboolean
merge_extra_args (JsonObject *body, JsonObject *extra, GError **error)
{
  g_autoptr (GList) names = extra ? json_object_get_members (extra) : NULL;

  for (GList *l = names; l != NULL; l = l->next)
    {
      if (json_object_has_member (body, l->data))
        {
          agents_run_error_set (error, AGENTS_RUN_ERROR_USER_ERROR, NULL,
                                "chat.completions.create() got multiple "
                                "values for keyword argument '%s'",
                                (const char *) l->data);
          return FALSE;
        }
      json_object_set_member (
        body, l->data,
        json_node_copy (json_object_get_member (extra, l->data)));
    }
  return TRUE;
}

static void
warn_unsupported (AgentsModelRequest *request)
{
  if (agents_model_request_get_previous_response_id (request) != NULL ||
      agents_model_request_get_conversation_id (request) != NULL)
    g_message ("the ChatCompletions API has no previous_response_id or "
               "conversation: ignored");
  if (agents_model_request_get_prompt (request) != NULL)
    g_message ("the ChatCompletions API has no prompt: ignored");
}

static JsonObject *
build_body (AgentsOpenAIChatCompletionsModel *self,
            AgentsModelRequest *request,
            gboolean stream,
            GHashTable *custom,
            GError **error)
{
  g_autoptr (JsonObject) body = json_object_new ();
  AgentsChatConvertOptions options = { self->keep_tool_images };
  g_autoptr (JsonArray) tools = NULL;
  JsonArray *messages;

  messages = agents_openai_chat_messages_from_items (
    agents_model_request_get_system_instructions (request),
    agents_model_request_get_input (request), &options, error);
  if (messages == NULL)
    return NULL;
  tools = chat_tools (request, custom, error);
  if (tools == NULL)
    {
      json_array_unref (messages);
      return NULL;
    }
  warn_unsupported (request);
  json_object_set_string_member (body, "model", self->model_name);
  json_object_set_array_member (body, "messages", messages);
  if (json_array_get_length (tools) > 0)
    json_object_set_array_member (body, "tools", json_array_ref (tools));
  set_settings (self, body, request, json_array_get_length (tools) > 0, stream);
  if (!merge_extra_args (body,
                         agents_model_settings_get_extra_args (
                           agents_model_request_get_model_settings (request)),
                         error))
    return NULL;
  return g_steal_pointer (&body);
}

/* ---- the answer, not streamed ------------------------------------------ */

AgentsModelResponse *
agents_openai_chat_response_from_completion (JsonObject *completion,
                                             GHashTable *custom,
                                             GError **error)
{
  JsonArray *choices = agents_openai_json_array (completion, "choices");
  JsonObject *choice = NULL;
  g_autoptr (JsonArray) items = NULL;
  g_autoptr (JsonObject) usage = agents_openai_usage_from_chat (
    agents_openai_json_object (completion, "usage"));

  if (choices != NULL && json_array_get_length (choices) > 0 &&
      JSON_NODE_HOLDS_OBJECT (json_array_get_element (choices, 0)))
    choice = json_array_get_object_element (choices, 0);
  if (choice == NULL || agents_openai_json_object (choice, "message") == NULL)
    {
      agents_run_error_set (error, AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
                            _ ("the chat completion has no message"));
      return NULL;
    }
  items = agents_openai_chat_items_from_message (
    agents_openai_json_object (choice, "message"), custom);
  return agents_openai_response_new (items, usage, NULL);
}

typedef struct
{
  GHashTable *custom;
  AgentsModelEventSink *sink;
  AgentsOpenAIChatStream *stream;
} Call;

static void
call_free (Call *call)
{
  g_hash_table_unref (call->custom);
  g_clear_object (&call->sink);
  if (call->stream != NULL)
    agents_openai_chat_stream_free (call->stream);
  g_free (call);
}

static void
get_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  Call *call = g_task_get_task_data (task);
  g_autoptr (JsonObject) answer = NULL;
  g_autoptr (AgentsModelResponse) response = NULL;
  GError *error = NULL;

  if (agents_openai_request_send_finish (result, &answer, &error))
    response = agents_openai_chat_response_from_completion (
      answer, call->custom, &error);
  if (response == NULL)
    g_task_return_error (task, error);
  else
    agents_model_return_response (task, response);
}

static Call *
call_new (void)
{
  Call *call = g_new0 (Call, 1);

  call->custom = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  return call;
}

/* ---- the answer, streamed ---------------------------------------------- */
static void
stream_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  Call *call = g_task_get_task_data (task);
  g_autoptr (AgentsModelResponse) response = NULL;
  GError *error = NULL;

  if (agents_openai_request_send_finish (result, NULL, &error))
    response = agents_openai_chat_stream_finish (call->stream, &error);
  if (response == NULL)
    g_task_return_error (task, error);
  else
    agents_model_return_response (task, response);
}

/* Sends @request, its answer streamed to @sink when there is one. */
static void
send_request (AgentsOpenAIChatCompletionsModel *self,
              AgentsModelRequest *request,
              AgentsModelEventSink *sink,
              GTask *task)
{
  Call *call = call_new ();
  GError *error = NULL;
  g_autoptr (JsonObject) body = NULL;

  g_task_set_task_data (task, call, (GDestroyNotify) call_free);
  if (sink != NULL)
    {
      call->sink = g_object_ref (sink);
      call->stream =
        agents_openai_chat_stream_new (sink, call->custom, self->model_name);
    }
  body = build_body (self, request, sink != NULL, call->custom, &error);
  if (body == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  agents_openai_request_send_async (
    agents_openai_chat_completions_model_get_provider (self),
    "/chat/completions", body,
    sink != NULL ? agents_openai_chat_stream_event : NULL,
    sink != NULL ? agents_openai_chat_stream_restart : NULL, call->stream,
    g_task_get_cancellable (task), sink != NULL ? stream_done : get_done,
    g_object_ref (task));
}

static void
chat_get_response (AgentsModel *model, AgentsModelRequest *request, GTask *task)
{
  send_request (AGENTS_OPENAI_CHAT_COMPLETIONS_MODEL (model), request, NULL,
                task);
}

static void
chat_stream_response (AgentsModel *model,
                      AgentsModelRequest *request,
                      AgentsModelEventSink *sink,
                      GTask *task)
{
  send_request (AGENTS_OPENAI_CHAT_COMPLETIONS_MODEL (model), request, sink,
                task);
}

static void
agents_openai_chat_completions_model_iface_init (AgentsModelInterface *iface)
{
  iface->get_response = chat_get_response;
  iface->stream_response = chat_stream_response;
}
