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

static AgentsModelResponse *
response_from_completion (JsonObject *completion,
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
  return agents_model_response_new (items, usage, NULL);
}

typedef struct
{
  GHashTable *custom;
  AgentsModelEventSink *sink;
  struct ChatStream *stream;
} Call;

static void chat_stream_free (struct ChatStream *stream);

static void
call_free (Call *call)
{
  g_hash_table_unref (call->custom);
  g_clear_object (&call->sink);
  if (call->stream != NULL)
    chat_stream_free (call->stream);
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
    response = response_from_completion (answer, call->custom, &error);
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

static void
chat_get_response (AgentsModel *model, AgentsModelRequest *request, GTask *task)
{
  AgentsOpenAIChatCompletionsModel *self =
    AGENTS_OPENAI_CHAT_COMPLETIONS_MODEL (model);
  Call *call = call_new ();
  GError *error = NULL;
  g_autoptr (JsonObject) body = NULL;

  g_task_set_task_data (task, call, (GDestroyNotify) call_free);
  body = build_body (self, request, FALSE, call->custom, &error);
  if (body == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  agents_openai_request_send_async (
    agents_openai_chat_completions_model_get_provider (self),
    "/chat/completions", body, NULL, NULL, NULL, g_task_get_cancellable (task),
    get_done, g_object_ref (task));
}

/* ---- the answer, streamed ---------------------------------------------- */

/* A streamed chat completion becomes the Responses events it stands for.
 * Output items get their output_index when they start: reasoning, text,
 * then each tool call as its name and id are known. */

#define MAX_TOOL_CALLS 1024

typedef struct
{
  guint output_index;
  GString *text;
  gboolean started;
} Part;

typedef struct
{
  char *call_id;
  char *name;
  GString *arguments;
  gint output_index; /* -1 until announced */
} PendingCall;

struct ChatStream
{
  AgentsModelEventSink *sink;
  GHashTable *custom;
  char *model_name;
  gint64 sequence;
  guint n_outputs;
  gboolean created;
  Part reasoning;
  Part text;
  Part refusal;
  GPtrArray *calls; /* PendingCall, by index */
  char *finish_reason;
  JsonObject *usage;
  gboolean done;
};

static void
pending_call_free (PendingCall *call)
{
  if (call == NULL)
    return;
  g_free (call->call_id);
  g_free (call->name);
  g_string_free (call->arguments, TRUE);
  g_free (call);
}

static void
chat_stream_reset (struct ChatStream *stream)
{
  stream->sequence = 0;
  stream->n_outputs = 0;
  stream->created = FALSE;
  for (Part *p = &stream->reasoning; p <= &stream->refusal; p++)
    {
      g_string_truncate (p->text, 0);
      p->started = FALSE;
    }
  g_ptr_array_set_size (stream->calls, 0);
  g_clear_pointer (&stream->finish_reason, g_free);
  g_clear_pointer (&stream->usage, json_object_unref);
  stream->done = FALSE;
}

static struct ChatStream *
chat_stream_new (AgentsModelEventSink *sink,
                 GHashTable *custom,
                 const char *model_name)
{
  struct ChatStream *stream = g_new0 (struct ChatStream, 1);

  stream->sink = sink;
  stream->custom = custom;
  stream->model_name = g_strdup (model_name);
  stream->reasoning.text = g_string_new (NULL);
  stream->text.text = g_string_new (NULL);
  stream->refusal.text = g_string_new (NULL);
  stream->calls =
    g_ptr_array_new_with_free_func ((GDestroyNotify) pending_call_free);
  return stream;
}

static void
chat_stream_free (struct ChatStream *stream)
{
  g_free (stream->model_name);
  for (Part *p = &stream->reasoning; p <= &stream->refusal; p++)
    g_string_free (p->text, TRUE);
  g_ptr_array_unref (stream->calls);
  g_free (stream->finish_reason);
  g_clear_pointer (&stream->usage, json_object_unref);
  g_free (stream);
}

static void
chat_stream_restart (gpointer user_data)
{
  Call *call = user_data;

  chat_stream_reset (call->stream);
}

static JsonObject *
new_event (struct ChatStream *stream, const char *type)
{
  JsonObject *event = json_object_new ();

  json_object_set_string_member (event, "type", type);
  json_object_set_int_member (event, "sequence_number", stream->sequence++);
  return event;
}

static void
push (struct ChatStream *stream, JsonObject *event)
{
  agents_model_event_sink_push (stream->sink, event);
  json_object_unref (event);
}

static JsonObject *
response_object (struct ChatStream *stream,
                 const char *status,
                 JsonArray *output)
{
  JsonObject *response = json_object_new ();

  json_object_set_string_member (response, "id", "__fake_id__");
  json_object_set_string_member (response, "object", "response");
  json_object_set_string_member (response, "status", status);
  json_object_set_string_member (response, "model", stream->model_name);
  json_object_set_array_member (
    response, "output", output ? json_array_ref (output) : json_array_new ());
  return response;
}

static void
push_item_event (struct ChatStream *stream,
                 const char *type,
                 JsonObject *item,
                 guint output_index)
{
  JsonObject *event = new_event (stream, type);

  json_object_set_int_member (event, "output_index", output_index);
  json_object_set_object_member (event, "item", item);
  push (stream, event);
}

static JsonObject *
part_event (struct ChatStream *stream,
            const char *type,
            Part *part,
            const char *index_member)
{
  JsonObject *event = new_event (stream, type);

  json_object_set_string_member (event, "item_id", "__fake_id__");
  json_object_set_int_member (event, "output_index", part->output_index);
  json_object_set_int_member (event, index_member, 0);
  return event;
}

static JsonObject *
reasoning_item (const char *text)
{
  JsonObject *item = json_object_new ();
  JsonArray *summary = json_array_new ();

  json_object_set_string_member (item, "id", "__fake_id__");
  json_object_set_string_member (item, "type", "reasoning");
  if (text != NULL)
    {
      JsonObject *part = json_object_new ();

      json_object_set_string_member (part, "type", "summary_text");
      json_object_set_string_member (part, "text", text);
      json_array_add_object_element (summary, part);
    }
  json_object_set_array_member (item, "summary", summary);
  return item;
}

static JsonObject *
empty_message_item (void)
{
  JsonObject *item = json_object_new ();

  json_object_set_string_member (item, "id", "__fake_id__");
  json_object_set_string_member (item, "type", "message");
  json_object_set_string_member (item, "role", "assistant");
  json_object_set_string_member (item, "status", "in_progress");
  json_object_set_array_member (item, "content", json_array_new ());
  return item;
}

static JsonObject *
text_part_json (Part *part, gboolean refusal)
{
  JsonObject *json = json_object_new ();

  json_object_set_string_member (json, "type",
                                 refusal ? "refusal" : "output_text");
  json_object_set_string_member (json, refusal ? "refusal" : "text",
                                 part->text->str);
  if (!refusal)
    json_object_set_array_member (json, "annotations", json_array_new ());
  return json;
}

static void
reasoning_delta (struct ChatStream *stream, const char *delta)
{
  Part *part = &stream->reasoning;
  JsonObject *event;

  if (!part->started)
    {
      JsonObject *added;
      JsonObject *summary = json_object_new ();

      part->started = TRUE;
      part->output_index = stream->n_outputs++;
      push_item_event (stream, "response.output_item.added",
                       reasoning_item (NULL), part->output_index);
      added = part_event (stream, "response.reasoning_summary_part.added", part,
                          "summary_index");
      json_object_set_string_member (summary, "type", "summary_text");
      json_object_set_string_member (summary, "text", "");
      json_object_set_object_member (added, "part", summary);
      push (stream, added);
    }
  g_string_append (part->text, delta);
  event = part_event (stream, "response.reasoning_summary_text.delta", part,
                      "summary_index");
  json_object_set_string_member (event, "delta", delta);
  push (stream, event);
}

/* Text and refusal share the message item. */
static void
message_delta (struct ChatStream *stream, const char *delta, gboolean refusal)
{
  Part *part = refusal ? &stream->refusal : &stream->text;
  Part *other = refusal ? &stream->text : &stream->refusal;
  JsonObject *event;

  if (!part->started)
    {
      JsonObject *added;

      part->started = TRUE;
      if (other->started)
        part->output_index = other->output_index;
      else
        {
          part->output_index = stream->n_outputs++;
          push_item_event (stream, "response.output_item.added",
                           empty_message_item (), part->output_index);
        }
      added = part_event (stream, "response.content_part.added", part,
                          "content_index");
      json_object_set_object_member (added, "part",
                                     text_part_json (part, refusal));
      push (stream, added);
    }
  g_string_append (part->text, delta);
  event = part_event (
    stream, refusal ? "response.refusal.delta" : "response.output_text.delta",
    part, "content_index");
  json_object_set_string_member (event, "delta", delta);
  if (!refusal)
    json_object_set_array_member (event, "logprobs", json_array_new ());
  push (stream, event);
}

static gboolean
is_custom (struct ChatStream *stream, PendingCall *call)
{
  return call->name != NULL &&
         g_hash_table_contains (stream->custom, call->name);
}

static JsonObject *
call_item (struct ChatStream *stream, PendingCall *call, gboolean done)
{
  g_autoptr (JsonObject) chat_call = json_object_new ();
  JsonObject *function = json_object_new ();
  g_autoptr (JsonObject) message = json_object_new ();
  JsonArray *calls = json_array_new ();
  g_autoptr (JsonArray) items = NULL;
  JsonObject *item;

  json_object_set_string_member (chat_call, "id", call->call_id);
  json_object_set_string_member (function, "name", call->name);
  json_object_set_string_member (function, "arguments",
                                 done ? call->arguments->str : "");
  json_object_set_object_member (chat_call, "function", function);
  json_array_add_object_element (calls, json_object_ref (chat_call));
  json_object_set_array_member (message, "tool_calls", calls);
  items = agents_openai_chat_items_from_message (message, stream->custom);
  item = json_object_ref (json_array_get_object_element (items, 0));
  json_object_set_string_member (item, "status",
                                 done ? "completed" : "in_progress");
  return item;
}

static void
arguments_delta (struct ChatStream *stream,
                 PendingCall *call,
                 const char *delta)
{
  JsonObject *event;

  if (is_custom (stream, call) || *delta == '\0')
    return; /* its raw input is known only once its JSON is whole */
  event = new_event (stream, "response.function_call_arguments.delta");
  json_object_set_string_member (event, "item_id", "__fake_id__");
  json_object_set_int_member (event, "output_index", call->output_index);
  json_object_set_string_member (event, "delta", delta);
  push (stream, event);
}

static gboolean
tool_call_delta (struct ChatStream *stream, JsonObject *delta, GError **error)
{
  JsonNode *index_node = json_object_get_member (delta, "index");
  JsonObject *function = agents_openai_json_object (delta, "function");
  const char *id = agents_openai_json_string (delta, "id");
  const char *name = agents_openai_json_string (function, "name");
  const char *arguments = agents_openai_json_string (function, "arguments");
  gint64 index = index_node && JSON_NODE_HOLDS_VALUE (index_node)
                   ? json_node_get_int (index_node)
                   : stream->calls->len;
  PendingCall *call;

  if (index < 0 || index >= MAX_TOOL_CALLS)
    {
      agents_run_error_set (
        error, AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
        _ ("a streamed tool call has index %" PRId64 ", out of 0…%d"),
        (int64_t) index, MAX_TOOL_CALLS - 1);
      return FALSE;
    }
  if ((guint) index >= stream->calls->len)
    g_ptr_array_set_size (stream->calls, index + 1);
  call = stream->calls->pdata[index];
  if (call == NULL)
    {
      call = g_new0 (PendingCall, 1);
      call->arguments = g_string_new (NULL);
      call->output_index = -1;
      stream->calls->pdata[index] = call;
    }
  if (id != NULL && *id != '\0' && call->call_id == NULL)
    call->call_id = g_strdup (id);
  if (name != NULL && *name != '\0' && call->name == NULL)
    call->name = g_strdup (name);
  if (arguments != NULL)
    g_string_append (call->arguments, arguments);
  if (call->output_index < 0 && call->call_id != NULL && call->name != NULL)
    {
      call->output_index = stream->n_outputs++;
      push_item_event (stream, "response.output_item.added",
                       call_item (stream, call, FALSE), call->output_index);
      arguments_delta (stream, call, call->arguments->str);
    }
  else if (call->output_index >= 0 && arguments != NULL)
    arguments_delta (stream, call, arguments);
  return TRUE;
}

static gboolean
chunk (struct ChatStream *stream, JsonObject *object, GError **error)
{
  JsonArray *choices = agents_openai_json_array (object, "choices");
  JsonObject *choice = NULL;
  JsonObject *delta;
  JsonArray *calls;
  const char *text;

  if (agents_openai_json_object (object, "usage") != NULL)
    {
      g_clear_pointer (&stream->usage, json_object_unref);
      stream->usage =
        json_object_ref (agents_openai_json_object (object, "usage"));
    }
  if (choices != NULL && json_array_get_length (choices) > 0 &&
      JSON_NODE_HOLDS_OBJECT (json_array_get_element (choices, 0)))
    choice = json_array_get_object_element (choices, 0);
  if (choice == NULL)
    return TRUE;
  if (agents_openai_json_string (choice, "finish_reason") != NULL)
    {
      g_free (stream->finish_reason);
      stream->finish_reason =
        g_strdup (agents_openai_json_string (choice, "finish_reason"));
    }
  delta = agents_openai_json_object (choice, "delta");
  if (delta == NULL)
    return TRUE;
  if ((text = agents_openai_json_string (delta, "reasoning_content")) ||
      (text = agents_openai_json_string (delta, "reasoning")))
    if (*text != '\0')
      reasoning_delta (stream, text);
  if ((text = agents_openai_json_string (delta, "content")) && *text != '\0')
    message_delta (stream, text, FALSE);
  if ((text = agents_openai_json_string (delta, "refusal")) && *text != '\0')
    message_delta (stream, text, TRUE);
  calls = agents_openai_json_array (delta, "tool_calls");
  for (guint i = 0; calls && i < json_array_get_length (calls); i++)
    if (JSON_NODE_HOLDS_OBJECT (json_array_get_element (calls, i)) &&
        !tool_call_delta (stream, json_array_get_object_element (calls, i),
                          error))
      return FALSE;
  return TRUE;
}

static gboolean
server_error (JsonObject *object, GError **error)
{
  JsonObject *err = agents_openai_json_object (object, "error");
  const char *message = agents_openai_json_string (err, "message");

  if (err == NULL)
    return FALSE;
  agents_run_error_set (error, AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
                        _ ("the model server sent an error in the stream: %s"),
                        message ? message : "");
  return TRUE;
}

static gboolean
chat_stream_event (AgentsOpenAIRequest *request,
                   const char *event_name,
                   const char *data,
                   gsize data_len,
                   gpointer user_data,
                   GError **error)
{
  Call *call = user_data;
  struct ChatStream *stream = call->stream;
  g_autoptr (JsonNode) node = NULL;

  if (g_str_equal (data, "[DONE]"))
    {
      stream->done = TRUE;
      agents_openai_request_mark_end (request);
      return TRUE;
    }
  node = agents_openai_parse_json (data, data_len, error);
  if (node == NULL)
    return FALSE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      agents_run_error_set (error, AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
                            _ ("a chat completion chunk is not a JSON "
                               "object"));
      return FALSE;
    }
  if (server_error (json_node_get_object (node), error))
    return FALSE;
  if (!stream->created)
    {
      JsonObject *event = new_event (stream, "response.created");

      stream->created = TRUE;
      json_object_set_object_member (
        event, "response", response_object (stream, "in_progress", NULL));
      push (stream, event);
    }
  if (!chunk (stream, json_node_get_object (node), error))
    return FALSE;
  if (stream->n_outputs > 0)
    agents_openai_request_mark_output (request);
  return TRUE;
}

/* ---- the end of a stream ----------------------------------------------- */

static void
finish_reasoning (struct ChatStream *stream, JsonObject **items)
{
  Part *part = &stream->reasoning;
  JsonObject *event;
  JsonObject *summary = json_object_new ();

  event = part_event (stream, "response.reasoning_summary_text.done", part,
                      "summary_index");
  json_object_set_string_member (event, "text", part->text->str);
  push (stream, event);
  event = part_event (stream, "response.reasoning_summary_part.done", part,
                      "summary_index");
  json_object_set_string_member (summary, "type", "summary_text");
  json_object_set_string_member (summary, "text", part->text->str);
  json_object_set_object_member (event, "part", summary);
  push (stream, event);
  items[part->output_index] = reasoning_item (part->text->str);
  push_item_event (stream, "response.output_item.done",
                   json_object_ref (items[part->output_index]),
                   part->output_index);
}

static void
finish_message (struct ChatStream *stream, JsonObject **items)
{
  guint output_index = stream->text.started ? stream->text.output_index
                                            : stream->refusal.output_index;
  JsonObject *item = empty_message_item ();
  JsonArray *content = json_object_get_array_member (item, "content");

  for (Part *part = &stream->text; part <= &stream->refusal; part++)
    {
      gboolean refusal = part == &stream->refusal;
      JsonObject *event;

      if (!part->started)
        continue;
      if (!refusal)
        {
          event = part_event (stream, "response.output_text.done", part,
                              "content_index");
          json_object_set_string_member (event, "text", part->text->str);
          json_object_set_array_member (event, "logprobs", json_array_new ());
          push (stream, event);
        }
      else
        {
          event =
            part_event (stream, "response.refusal.done", part, "content_index");
          json_object_set_string_member (event, "refusal", part->text->str);
          push (stream, event);
        }
      event = part_event (stream, "response.content_part.done", part,
                          "content_index");
      json_object_set_object_member (event, "part",
                                     text_part_json (part, refusal));
      push (stream, event);
      json_array_add_object_element (content, text_part_json (part, refusal));
    }
  json_object_set_string_member (item, "status", "completed");
  items[output_index] = item;
  push_item_event (stream, "response.output_item.done", json_object_ref (item),
                   output_index);
}

static void
finish_call (struct ChatStream *stream, PendingCall *call, JsonObject **items)
{
  JsonObject *item = call_item (stream, call, TRUE);

  if (!is_custom (stream, call))
    {
      JsonObject *event =
        new_event (stream, "response.function_call_arguments.done");

      json_object_set_string_member (event, "item_id", "__fake_id__");
      json_object_set_int_member (event, "output_index", call->output_index);
      json_object_set_string_member (event, "arguments", call->arguments->str);
      push (stream, event);
    }
  items[call->output_index] = item;
  push_item_event (stream, "response.output_item.done", json_object_ref (item),
                   call->output_index);
}

static AgentsModelResponse *
chat_stream_finish (struct ChatStream *stream, GError **error)
{
  g_autofree JsonObject **items = g_new0 (JsonObject *, stream->n_outputs + 1);
  g_autoptr (JsonArray) output = json_array_new ();
  g_autoptr (JsonObject) usage = agents_openai_usage_from_chat (stream->usage);
  JsonObject *event;
  JsonObject *response;
  gboolean has_call = FALSE;

  if (stream->reasoning.started)
    finish_reasoning (stream, items);
  if (stream->text.started || stream->refusal.started)
    finish_message (stream, items);
  for (guint i = 0; i < stream->calls->len; i++)
    {
      PendingCall *call = stream->calls->pdata[i];

      if (call == NULL || call->output_index < 0)
        continue;
      finish_call (stream, call, items);
      has_call = TRUE;
    }
  if (g_strcmp0 (stream->finish_reason, "tool_calls") == 0 && !has_call)
    {
      agents_run_error_set (error, AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
                            _ ("the model stopped for tool calls but gave no "
                               "usable tool call (each needs an id and a "
                               "name)"));
      return NULL;
    }
  for (guint i = 0; i < stream->n_outputs; i++)
    json_array_add_object_element (output, items[i]);

  event = new_event (stream, "response.completed");
  response = response_object (stream, "completed", output);
  json_object_set_object_member (response, "usage",
                                 agents_openai_usage_responses_shape (usage));
  json_object_set_object_member (event, "response", response);
  push (stream, event);
  return agents_model_response_new (output, usage, NULL);
}

static void
stream_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  Call *call = g_task_get_task_data (task);
  g_autoptr (AgentsModelResponse) response = NULL;
  GError *error = NULL;

  if (agents_openai_request_send_finish (result, NULL, &error))
    response = chat_stream_finish (call->stream, &error);
  if (response == NULL)
    g_task_return_error (task, error);
  else
    agents_model_return_response (task, response);
}

static void
chat_stream_response (AgentsModel *model,
                      AgentsModelRequest *request,
                      AgentsModelEventSink *sink,
                      GTask *task)
{
  AgentsOpenAIChatCompletionsModel *self =
    AGENTS_OPENAI_CHAT_COMPLETIONS_MODEL (model);
  Call *call = call_new ();
  GError *error = NULL;
  g_autoptr (JsonObject) body = NULL;

  g_task_set_task_data (task, call, (GDestroyNotify) call_free);
  call->sink = g_object_ref (sink);
  call->stream = chat_stream_new (sink, call->custom, self->model_name);
  body = build_body (self, request, TRUE, call->custom, &error);
  if (body == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  agents_openai_request_send_async (
    agents_openai_chat_completions_model_get_provider (self),
    "/chat/completions", body, chat_stream_event, chat_stream_restart, call,
    g_task_get_cancellable (task), stream_done, g_object_ref (task));
}

static void
agents_openai_chat_completions_model_iface_init (AgentsModelInterface *iface)
{
  iface->get_response = chat_get_response;
  iface->stream_response = chat_stream_response;
}
