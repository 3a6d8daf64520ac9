/* test-openai.c - the OpenAI Responses and Chat Completions models against a
 * loopback server replaying recorded streams
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "agents-openai-chat-stream-private.h"
#include "agents-openai-private.h"
#include "agents-openai-responses-stream-private.h"
#include "model-server.h"
#include "test-utils.h"

#define API_KEY "sk-test-secret-key"

typedef struct
{
  AgentsTestModelServer *server;
  AgentsOpenAIProvider *provider;
  AgentsModelEventSink *sink;
  GPtrArray *events; /* JsonObject */
} Fixture;

static void
on_event (AgentsModelEventSink *sink, JsonObject *event, gpointer user_data)
{
  Fixture *fx = user_data;

  g_ptr_array_add (fx->events, json_object_ref (event));
}

static void
fixture_setup (Fixture *fx, gconstpointer data)
{
  g_autofree char *dir =
    g_test_build_filename (G_TEST_DIST, "data", "models", NULL);

  fx->server = agents_test_model_server_new (dir);
  fx->provider = agents_openai_provider_new ();
  agents_openai_provider_set_base_url (
    fx->provider, agents_test_model_server_get_base_url (fx->server));
  agents_openai_provider_set_api_key (fx->provider, API_KEY);
  agents_openai_provider_set_retry_base_delay (fx->provider, 0.01);
  fx->sink = agents_model_event_sink_new ();
  fx->events =
    g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  g_signal_connect (fx->sink, "event", G_CALLBACK (on_event), fx);
}

static void
fixture_teardown (Fixture *fx, gconstpointer data)
{
  g_assert_cmpstr (agents_test_model_server_get_problems (fx->server), ==,
                   NULL);
  g_ptr_array_unref (fx->events);
  g_object_unref (fx->sink);
  /* The client's kept-alive connections close first, then the server
   * sees them go before it is freed. */
  g_object_unref (fx->provider);
  for (guint i = 0; i < 20; i++)
    {
      while (g_main_context_iteration (NULL, FALSE))
        ;
      g_usleep (1000);
    }
  agents_test_model_server_free (fx->server);
}

static AgentsModelRequest *
simple_request (const char *text)
{
  AgentsModelRequest *request = agents_model_request_new ();
  g_autoptr (JsonArray) input = json_array_new ();
  JsonObject *message = json_object_new ();

  json_object_set_string_member (message, "role", "user");
  json_object_set_string_member (message, "content", text);
  json_array_add_object_element (input, message);
  agents_model_request_set_input (request, input);
  agents_model_request_set_system_instructions (request, "Be brief.");
  return request;
}

static AgentsModelResponse *
run_model (Fixture *fx,
           AgentsModel *model,
           AgentsModelRequest *request,
           gboolean stream,
           GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  if (stream)
    {
      AGENTS_TEST_AWAIT (result, agents_model_stream_response_async (
                                   model, request, fx->sink, NULL,
                                   agents_test_async_cb, &result));
      return agents_model_stream_response_finish (model, result, error);
    }
  AGENTS_TEST_AWAIT (
    result, agents_model_get_response_async (model, request, NULL,
                                             agents_test_async_cb, &result));
  return agents_model_get_response_finish (model, result, error);
}

static AgentsModel *
responses_model (Fixture *fx)
{
  return AGENTS_MODEL (
    agents_openai_responses_model_new ("gpt-test", fx->provider));
}

static char *
node_string (JsonNode *node)
{
  return json_to_string (node, FALSE);
}

static char *
object_string (JsonObject *object)
{
  g_autoptr (JsonNode) node =
    json_node_init_object (json_node_alloc (), object);

  return node_string (node);
}

static char *
array_to_string (JsonArray *array)
{
  g_autoptr (JsonNode) node = json_node_init_array (json_node_alloc (), array);

  return node_string (node);
}

static const char *
event_type (Fixture *fx, guint i)
{
  return json_object_get_string_member (fx->events->pdata[i], "type");
}

static JsonObject *
output_item (AgentsModelResponse *response, guint i)
{
  return json_array_get_object_element (
    agents_model_response_get_output (response), i);
}

/* The models seal the items they answer, so that a run shares them
 * instead of copying them. */
static void
assert_output_sealed (AgentsModelResponse *response)
{
  JsonArray *output = agents_model_response_get_output (response);

  g_assert_cmpuint (json_array_get_length (output), >, 0);
  for (guint i = 0; i < json_array_get_length (output); i++)
    g_assert_true (
      json_object_is_immutable (json_array_get_object_element (output, i)));
}

static gint64
usage_int (AgentsModelResponse *response, const char *member)
{
  return json_object_get_int_member (agents_model_response_get_usage (response),
                                     member);
}

static void
assert_no_key (const GError *error)
{
  g_autoptr (GVariant) context = NULL;
  g_autofree char *printed = NULL;

  g_assert_null (strstr (error->message, API_KEY));
  if (error->domain != AGENTS_RUN_ERROR)
    return;
  context = agents_run_error_get_context (error);
  printed = g_variant_print (context, TRUE);
  g_assert_null (strstr (printed, API_KEY));
}

/* ---- Responses --------------------------------------------------------- */

static void
test_responses_text (Fixture *fx, gconstpointer data)
{
  g_autoptr (AgentsModel) model = responses_model (fx);
  g_autoptr (AgentsModelRequest) request = simple_request ("Hi");
  g_autoptr (AgentsModelResponse) response = NULL;
  g_autoptr (GError) error = NULL;
  JsonObject *message;

  agents_test_model_server_add (
    fx->server, "{\"path\": \"/v1/responses\", \"auth\": \"Bearer " API_KEY
                "\", \"expect\": \"responses-text.request.json\","
                " \"body\": \"responses-text.sse\"}");
  response = run_model (fx, model, request, TRUE, &error);
  g_assert_no_error (error);

  /* Every event reached the sink as the server sent it. */
  g_assert_cmpuint (fx->events->len, ==, 10);
  g_assert_cmpstr (event_type (fx, 0), ==, "response.created");
  g_assert_cmpstr (event_type (fx, 4), ==, "response.output_text.delta");
  g_assert_cmpstr (
    json_object_get_string_member (fx->events->pdata[4], "delta"), ==,
    "Héllo, ");
  g_assert_cmpint (
    json_object_get_int_member (fx->events->pdata[4], "sequence_number"), ==,
    5);
  g_assert_cmpstr (event_type (fx, 9), ==, "response.completed");

  g_assert_cmpstr (agents_model_response_get_response_id (response), ==,
                   "resp_1");
  message = output_item (response, 0);
  g_assert_cmpstr (json_object_get_string_member (message, "type"), ==,
                   "message");
  g_assert_cmpstr (json_object_get_string_member (
                     json_array_get_object_element (
                       json_object_get_array_member (message, "content"), 0),
                     "text"),
                   ==, "Héllo, wörld 🎉");
  g_assert_cmpint (usage_int (response, "requests"), ==, 1);
  g_assert_cmpint (usage_int (response, "input_tokens"), ==, 12);
  g_assert_cmpint (usage_int (response, "output_tokens"), ==, 5);
  g_assert_cmpint (usage_int (response, "total_tokens"), ==, 17);
  g_assert_cmpint (
    json_object_get_int_member (
      json_object_get_object_member (agents_model_response_get_usage (response),
                                     "input_tokens_details"),
      "cached_tokens"),
    ==, 2);
}

/* The stream cut into 1-byte and 7-byte writes (inside UTF-8 sequences and
 * CRLF pairs), with CRLF line endings. */
static void
test_responses_split (Fixture *fx, gconstpointer data)
{
  const char *variants[] = {
    "{\"body\": \"responses-text.sse\", \"chunk\": 1}",
    "{\"body\": \"responses-text.sse\", \"chunk\": 7, \"crlf\": true}",
    "{\"body\": \"responses-text.sse\", \"chunk\": 3, \"interval_ms\": 1}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (variants); i++)
    {
      g_autoptr (AgentsModel) model = responses_model (fx);
      g_autoptr (AgentsModelRequest) request = simple_request ("Hi");
      g_autoptr (AgentsModelResponse) response = NULL;
      g_autoptr (GError) error = NULL;

      g_ptr_array_set_size (fx->events, 0);
      agents_test_model_server_add (fx->server, variants[i]);
      response = run_model (fx, model, request, TRUE, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (fx->events->len, ==, 10);
      g_assert_cmpstr (
        json_object_get_string_member (fx->events->pdata[5], "delta"), ==,
        "wörld 🎉");
      g_assert_cmpuint (
        json_array_get_length (agents_model_response_get_output (response)), ==,
        1);
    }
}

static void
test_responses_tools (Fixture *fx, gconstpointer data)
{
  g_autoptr (AgentsModel) model = responses_model (fx);
  g_autoptr (AgentsModelRequest) request = simple_request ("Read a and b");
  g_autoptr (AgentsModelResponse) response = NULL;
  g_autoptr (GError) error = NULL;

  agents_test_model_server_add (fx->server,
                                "{\"body\": \"responses-tools.sse\"}");
  response = run_model (fx, model, request, TRUE, &error);
  g_assert_no_error (error);
  /* response.completed had no output: the items of output_item.done are
   * the response, reasoning passed through whole. */
  g_assert_cmpuint (
    json_array_get_length (agents_model_response_get_output (response)), ==, 3);
  g_assert_cmpstr (
    json_object_get_string_member (output_item (response, 0), "type"), ==,
    "reasoning");
  g_assert_cmpstr (json_object_get_string_member (output_item (response, 0),
                                                  "encrypted_content"),
                   ==, "gAAAA==");
  assert_output_sealed (response);
  g_assert_cmpstr (
    json_object_get_string_member (output_item (response, 1), "call_id"), ==,
    "call_a");
  g_assert_cmpstr (
    json_object_get_string_member (output_item (response, 1), "arguments"), ==,
    "{\"cmd\":\"cat a.txt\"}");
  g_assert_cmpstr (
    json_object_get_string_member (output_item (response, 2), "call_id"), ==,
    "call_b");
  g_assert_cmpuint (fx->events->len, ==, 16);
}

static void
test_responses_custom_tool_call (Fixture *fx, gconstpointer data)
{
  g_autoptr (AgentsModel) model = responses_model (fx);
  g_autoptr (AgentsModelRequest) request = simple_request ("Patch");
  g_autoptr (AgentsModelResponse) response = NULL;
  g_autoptr (GError) error = NULL;
  JsonObject *item;

  agents_test_model_server_add (fx->server,
                                "{\"body\": \"responses-custom.sse\"}");
  response = run_model (fx, model, request, TRUE, &error);
  g_assert_no_error (error);
  item = output_item (response, 0);
  g_assert_cmpstr (json_object_get_string_member (item, "type"), ==,
                   "custom_tool_call");
  g_assert_cmpstr (json_object_get_string_member (item, "input"), ==,
                   "*** Begin Patch\n*** Add File: hello.txt\n+hello\n"
                   "*** End Patch\n");
  g_assert_cmpstr (event_type (fx, 2), ==,
                   "response.custom_tool_call_input.delta");
}

static void
test_responses_not_streamed (Fixture *fx, gconstpointer data)
{
  g_autoptr (AgentsModel) model = responses_model (fx);
  g_autoptr (AgentsModelRequest) request = simple_request ("Hi");
  g_autoptr (AgentsModelResponse) response = NULL;
  g_autoptr (GError) error = NULL;
  JsonObject *body;

  agents_test_model_server_add (fx->server,
                                "{\"body\": \"responses-answer.json\"}");
  response = run_model (fx, model, request, FALSE, &error);
  g_assert_no_error (error);
  body = agents_test_model_server_get_request (fx->server, 0);
  g_assert_false (json_object_has_member (body, "stream"));
  g_assert_cmpstr (agents_model_response_get_response_id (response), ==,
                   "resp_1");
  g_assert_cmpint (usage_int (response, "output_tokens"), ==, 5);
  g_assert_cmpstr (
    json_object_get_string_member (output_item (response, 0), "id"), ==,
    "msg_1");
  assert_output_sealed (response);
}

/* A custom (freeform) tool as the plumbing gives it: passed through. */
typedef struct
{
  AgentsTool parent_instance;
} TestCustomTool;
typedef struct
{
  AgentsToolClass parent_class;
} TestCustomToolClass;
GType test_custom_tool_get_type (void);
G_DEFINE_TYPE (TestCustomTool, test_custom_tool, AGENTS_TYPE_TOOL)

static JsonObject *
custom_tool_to_model_json (AgentsTool *tool)
{
  g_autoptr (JsonNode) node = json_from_string (
    "{\"type\": \"custom\", \"name\": \"apply_patch\", \"description\": "
    "\"Edit files.\", \"format\": {\"type\": \"grammar\", \"syntax\": "
    "\"lark\", \"definition\": \"start: /.+/\"}}",
    NULL);

  return json_object_ref (json_node_get_object (node));
}

static void
test_custom_tool_class_init (TestCustomToolClass *klass)
{
  AGENTS_TOOL_CLASS (klass)->to_model_json = custom_tool_to_model_json;
}

static void
test_custom_tool_init (TestCustomTool *self)
{
}

static JsonObject *
json_object_from (const char *text)
{
  g_autoptr (JsonNode) node = json_from_string (text, NULL);

  g_assert_nonnull (node);
  return json_object_ref (json_node_get_object (node));
}

static JsonArray *
json_array_from (const char *text)
{
  g_autoptr (JsonNode) node = json_from_string (text, NULL);

  g_assert_nonnull (node);
  return json_array_ref (json_node_get_array (node));
}

static char *
unused_tool (AgentsRunContext *ctx,
             const char *arguments,
             gpointer user_data,
             GError **error)
{
  g_assert_not_reached ();
}

static GPtrArray *
request_tools (void)
{
  GPtrArray *tools = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (JsonObject) params = json_object_from (
    "{\"type\": \"object\", \"properties\": {\"cmd\": {\"type\": "
    "\"string\"}}, \"required\": [\"cmd\"], \"additionalProperties\": "
    "false}");

  g_ptr_array_add (tools,
                   agents_function_tool_new ("exec_command", "Run a command.",
                                             params, unused_tool, NULL, NULL));
  g_ptr_array_add (tools, g_object_new (test_custom_tool_get_type (), "name",
                                        "apply_patch", NULL));
  return tools;
}

/* Everything a runner request carries, mapped to the body. */
static AgentsModelRequest *
full_request (void)
{
  AgentsModelRequest *request = agents_model_request_new ();
  g_autoptr (AgentsModelSettings) settings = agents_model_settings_new ();
  g_autoptr (GPtrArray) tools = request_tools ();
  g_autoptr (GPtrArray) handoffs =
    g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (AgentsAgent) billing = agents_agent_new ("Billing");
  g_autoptr (JsonObject) schema = json_object_from (
    "{\"type\": \"object\", \"properties\": {\"answer\": {\"type\": "
    "\"string\"}}, \"required\": [\"answer\"], \"additionalProperties\": "
    "false}");
  g_autoptr (JsonObject) reasoning = json_object_from ("{\"effort\": \"low\"}");
  g_autoptr (JsonObject) metadata = json_object_from ("{\"run\": \"7\"}");
  g_autoptr (JsonArray) input = json_array_from (
    "[{\"role\": \"user\", \"content\": \"Fix it\"},"
    " {\"id\": \"__fake_id__\", \"type\": \"message\", \"role\": "
    "\"assistant\", \"content\": [{\"type\": \"output_text\", \"text\": "
    "\"On it.\", \"annotations\": []}]},"
    " {\"type\": \"function_call\", \"call_id\": \"call_a\", \"name\": "
    "\"exec_command\", \"arguments\": \"{\\\"cmd\\\":\\\"ls\\\"}\", "
    "\"provider_data\": {\"x\": 1}},"
    " {\"type\": \"function_call_output\", \"call_id\": \"call_a\", "
    "\"output\": \"a.txt\"},"
    " {\"type\": \"custom_tool_call\", \"call_id\": \"call_p\", \"name\": "
    "\"apply_patch\", \"input\": \"*** Begin Patch\\n*** End Patch\\n\"},"
    " {\"type\": \"custom_tool_call_output\", \"call_id\": \"call_p\", "
    "\"output\": \"Done\"},"
    " {\"type\": \"function_call\", \"call_id\": \"call_v\", \"name\": "
    "\"view_image\", \"arguments\": \"{}\"},"
    " {\"type\": \"function_call_output\", \"call_id\": \"call_v\", "
    "\"output\": [{\"type\": \"input_text\", \"text\": \"a cat\"}, "
    "{\"type\": \"input_image\", \"image_url\": "
    "\"data:image/png;base64,iVBO\"}]}]");

  g_ptr_array_add (handoffs, agents_handoff_new (billing));
  agents_model_settings_set_temperature (settings, 0.5);
  agents_model_settings_set_top_p (settings, 0.25);
  agents_model_settings_set_max_tokens (settings, 300);
  agents_model_settings_set_tool_choice (settings, "required");
  agents_model_settings_set_parallel_tool_calls (settings, TRUE);
  agents_model_settings_set_truncation (settings, "auto");
  agents_model_settings_set_store (settings, FALSE);
  agents_model_settings_set_reasoning (settings, reasoning);
  agents_model_settings_set_metadata (settings, metadata);
  agents_model_settings_set_top_logprobs (settings, 3);
  agents_model_settings_set_response_include (
    settings, (const char *[]){ "reasoning.encrypted_content", NULL });

  agents_model_request_set_system_instructions (request, "You fix code.");
  /* Not OpenAI's own endpoint: the key must not be sent. */
  agents_model_request_set_prompt_cache_key (request, "run-key");
  agents_model_request_set_input (request, input);
  agents_model_request_set_model_settings (request, settings);
  agents_model_request_set_tools (request, tools);
  agents_model_request_set_handoffs (request, handoffs);
  agents_model_request_set_output_schema (request, schema);
  agents_model_request_set_previous_response_id (request, "resp_0");
  agents_model_request_set_conversation_id (request, "conv_1");
  return request;
}

static void
test_responses_request_body (Fixture *fx, gconstpointer data)
{
  g_autoptr (AgentsModel) model = responses_model (fx);
  g_autoptr (AgentsModelRequest) request = full_request ();
  g_autoptr (AgentsModelResponse) response = NULL;
  g_autoptr (GError) error = NULL;

  agents_test_model_server_add (
    fx->server, "{\"expect\": \"responses-full.request.json\", \"body\": "
                "\"responses-text.sse\"}");
  response = run_model (fx, model, request, TRUE, &error);
  g_assert_no_error (error);
}

static void
test_responses_extra_args_clash (Fixture *fx, gconstpointer data)
{
  g_autoptr (AgentsModel) model = responses_model (fx);
  g_autoptr (AgentsModelRequest) request = simple_request ("Hi");
  g_autoptr (AgentsModelSettings) settings = agents_model_settings_new ();
  g_autoptr (JsonObject) extra =
    json_object_from ("{\"temperature\": 1, \"user\": \"u\"}");
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsModelResponse) response = NULL;

  agents_model_settings_set_temperature (settings, 0.5);
  agents_model_settings_set_extra_args (settings, extra);
  agents_model_request_set_model_settings (request, settings);
  response = run_model (fx, model, request, TRUE, &error);
  g_assert_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_USER_ERROR);
  g_assert_cmpstr (error->message, ==,
                   "responses.create() got multiple values for keyword "
                   "argument 'temperature'");
  g_assert_cmpuint (agents_test_model_server_get_n_requests (fx->server), ==,
                    0);
}

static void
assert_stream_fails (Fixture *fx,
                     const char *exchange,
                     int code,
                     const char *message)
{
  g_autoptr (AgentsModel) model = responses_model (fx);
  g_autoptr (AgentsModelRequest) request = simple_request ("Hi");
  g_autoptr (AgentsModelResponse) response = NULL;
  g_autoptr (GError) error = NULL;

  agents_test_model_server_add (fx->server, exchange);
  response = run_model (fx, model, request, TRUE, &error);
  g_assert_null (response);
  g_assert_error (error, AGENTS_RUN_ERROR, code);
  if (message != NULL)
    g_assert_cmpstr (error->message, ==, message);
  assert_no_key (error);
}

static void
test_responses_failure_endings (Fixture *fx, gconstpointer data)
{
  assert_stream_fails (
    fx, "{\"body\": \"responses-failed.sse\"}", AGENTS_RUN_ERROR_MODEL_BEHAVIOR,
    "Responses stream ended with terminal event `response.failed`. "
    "status=failed; error={\"code\":\"server_error\",\"message\":\"The model "
    "crashed.\"}.");
  assert_stream_fails (
    fx, "{\"body\": \"responses-incomplete.sse\"}",
    AGENTS_RUN_ERROR_MODEL_BEHAVIOR,
    "Responses stream ended with terminal event `response.incomplete`. "
    "status=incomplete; incomplete_details={\"reason\":\"max_output_"
    "tokens\"}.");
  assert_stream_fails (fx, "{\"body\": \"responses-error.sse\"}",
                       AGENTS_RUN_ERROR_MODEL_BEHAVIOR,
                       "Responses stream ended with terminal event `error`. "
                       "code=rate_limit_exceeded; message=Slow down..");
  /* Failure endings are answers, not transport errors: never retried. */
  g_assert_cmpuint (agents_test_model_server_get_n_requests (fx->server), ==,
                    3);
}

static void
test_responses_malformed (Fixture *fx, gconstpointer data)
{
  assert_stream_fails (fx, "{\"body\": \"responses-malformed.sse\"}",
                       AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL);
  /* A stream that ends without response.completed. */
  assert_stream_fails (
    fx,
    "{\"text\": \"event: response.created\\ndata: {\\\"type\\\": "
    "\\\"response.created\\\"}\\n\\nevent: x\\ndata: {\\\"type\\\": "
    "\\\"response.output_text.delta\\\"}\\n\\n\"}",
    AGENTS_RUN_ERROR_MODEL_HTTP, NULL);
  g_assert_cmpuint (agents_test_model_server_get_n_requests (fx->server), ==,
                    2);
}

/* One event of 300 KB, more than several reads. */
static void
test_responses_large_event (Fixture *fx, gconstpointer data)
{
  g_autoptr (AgentsModel) model = responses_model (fx);
  g_autoptr (AgentsModelRequest) request = simple_request ("Hi");
  g_autoptr (AgentsModelResponse) response = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GString) text = g_string_new (NULL);
  g_autoptr (GString) sse = g_string_new (NULL);
  g_autoptr (JsonObject) exchange = json_object_new ();
  g_autofree char *exchange_json = NULL;
  JsonObject *item;

  for (guint i = 0; i < 300 * 1024 / 16; i++)
    g_string_append (text, "0123456789abcdé ");
  g_string_append_printf (
    sse,
    "event: response.output_item.done\ndata: {\"type\": "
    "\"response.output_item.done\", \"item\": {\"type\": \"message\", "
    "\"role\": \"assistant\", \"content\": [{\"type\": \"output_text\", "
    "\"text\": \"%s\"}]}}\n\n"
    "event: response.completed\ndata: {\"type\": \"response.completed\", "
    "\"response\": {\"id\": \"r\", \"output\": []}}\n\n",
    text->str);
  json_object_set_string_member (exchange, "text", sse->str);
  json_object_set_int_member (exchange, "chunk", 50000);
  exchange_json = object_string (exchange);
  agents_test_model_server_add (fx->server, exchange_json);
  response = run_model (fx, model, request, TRUE, &error);
  g_assert_no_error (error);
  item = output_item (response, 0);
  g_assert_cmpstr (json_object_get_string_member (
                     json_array_get_object_element (
                       json_object_get_array_member (item, "content"), 0),
                     "text"),
                   ==, text->str);
}

/* ---- faults ------------------------------------------------------------ */

static void
test_retry_429 (Fixture *fx, gconstpointer data)
{
  g_autoptr (AgentsModel) model = responses_model (fx);
  g_autoptr (AgentsModelRequest) request = simple_request ("Hi");
  g_autoptr (AgentsModelResponse) response = NULL;
  g_autoptr (GError) error = NULL;
  gint64 start = g_get_monotonic_time ();

  /* The base delay is 10 ms: the 300 ms wait is the server's advice. */
  agents_test_model_server_add (
    fx->server, "{\"status\": 429, \"headers\": {\"retry-after-ms\": \"300\"},"
                " \"text\": \"{\\\"error\\\": {\\\"message\\\": \\\"Rate "
                "limited\\\"}}\"}");
  agents_test_model_server_add (fx->server,
                                "{\"body\": \"responses-text.sse\"}");
  response = run_model (fx, model, request, TRUE, &error);
  g_assert_no_error (error);
  g_assert_nonnull (response);
  g_assert_cmpuint (agents_test_model_server_get_n_requests (fx->server), ==,
                    2);
  g_assert_cmpint (g_get_monotonic_time () - start, >=, 300 * 1000);
}

static void
test_retry_500_then_success (Fixture *fx, gconstpointer data)
{
  g_autoptr (AgentsModel) model = responses_model (fx);
  g_autoptr (AgentsModelRequest) request = simple_request ("Hi");
  g_autoptr (AgentsModelResponse) response = NULL;
  g_autoptr (GError) error = NULL;

  agents_test_model_server_add (fx->server,
                                "{\"status\": 500, \"text\": \"oops\"}");
  agents_test_model_server_add (fx->server,
                                "{\"status\": 503, \"text\": \"busy\"}");
  agents_test_model_server_add (fx->server,
                                "{\"body\": \"responses-text.sse\"}");
  response = run_model (fx, model, request, TRUE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (agents_test_model_server_get_n_requests (fx->server), ==,
                    3);
  /* The failed attempts streamed nothing to the caller. */
  g_assert_cmpuint (fx->events->len, ==, 10);
}

static void
test_retry_bounded (Fixture *fx, gconstpointer data)
{
  g_autoptr (AgentsModel) model = responses_model (fx);
  g_autoptr (AgentsModelRequest) request = simple_request ("Hi");
  g_autoptr (AgentsModelResponse) response = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) context = NULL;
  guint32 status = 0;
  const char *message = NULL;
  const char *request_id = NULL;

  agents_openai_provider_set_max_retries (fx->provider, 1);
  for (guint i = 0; i < 2; i++)
    agents_test_model_server_add (
      fx->server, "{\"status\": 502, \"headers\": {\"x-request-id\": "
                  "\"req_42\"}, \"text\": \"{\\\"error\\\": {\\\"message\\\":"
                  " \\\"Bad gateway\\\", \\\"type\\\": \\\"server_error\\\"}}"
                  "\"}");
  response = run_model (fx, model, request, TRUE, &error);
  g_assert_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_MODEL_HTTP);
  g_assert_cmpstr (error->message, ==,
                   "the model server answered HTTP 502: Bad gateway");
  context = agents_run_error_get_context (error);
  g_assert_true (g_variant_lookup (context, "status", "u", &status));
  g_assert_cmpuint (status, ==, 502);
  g_assert_true (g_variant_lookup (context, "message", "&s", &message));
  g_assert_cmpstr (message, ==, "Bad gateway");
  g_assert_true (g_variant_lookup (context, "request_id", "&s", &request_id));
  g_assert_cmpstr (request_id, ==, "req_42");
  g_assert_cmpuint (agents_test_model_server_get_n_requests (fx->server), ==,
                    2);
}

/* 400 is not retried; x-should-retry overrides the status either way; a
 * server echoing the key does not put it in the error. */
static void
test_retry_decisions (Fixture *fx, gconstpointer data)
{
  assert_stream_fails (
    fx,
    "{\"status\": 401, \"text\": \"{\\\"error\\\": {\\\"message\\\": "
    "\\\"Incorrect API key provided: " API_KEY "\\\"}}\"}",
    AGENTS_RUN_ERROR_MODEL_HTTP,
    "the model server answered HTTP 401: Incorrect API key provided: "
    "<redacted>");
  g_assert_cmpuint (agents_test_model_server_get_n_requests (fx->server), ==,
                    1);
  assert_stream_fails (fx,
                       "{\"status\": 500, \"headers\": {\"x-should-retry\":"
                       " \"false\"}, \"text\": \"no\"}",
                       AGENTS_RUN_ERROR_MODEL_HTTP,
                       "the model server answered HTTP 500: no");
  g_assert_cmpuint (agents_test_model_server_get_n_requests (fx->server), ==,
                    2);
  agents_test_model_server_add (
    fx->server,
    "{\"status\": 400, \"headers\": {\"x-should-retry\": \"true\"}}");
  assert_stream_fails (fx, "{\"status\": 400, \"text\": \"bad\"}",
                       AGENTS_RUN_ERROR_MODEL_HTTP,
                       "the model server answered HTTP 400: bad");
  g_assert_cmpuint (agents_test_model_server_get_n_requests (fx->server), ==,
                    4);
}

static void
test_dropped_before_output (Fixture *fx, gconstpointer data)
{
  g_autoptr (AgentsModel) model = responses_model (fx);
  g_autoptr (AgentsModelRequest) request = simple_request ("Hi");
  g_autoptr (AgentsModelResponse) response = NULL;
  g_autoptr (GError) error = NULL;

  /* Cut inside the second event (response.in_progress): only
   * response.created reached the caller, so the request is retried. */
  agents_test_model_server_add (
    fx->server, "{\"body\": \"responses-text.sse\", \"drop_after\": 250}");
  agents_test_model_server_add (fx->server,
                                "{\"body\": \"responses-text.sse\"}");
  response = run_model (fx, model, request, TRUE, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (agents_test_model_server_get_n_requests (fx->server), ==,
                    2);
  /* The cut attempt's response.created, then the whole second stream. */
  g_assert_cmpuint (fx->events->len, ==, 1 + 10);
  g_assert_cmpstr (event_type (fx, 0), ==, "response.created");
  g_assert_cmpstr (event_type (fx, 1), ==, "response.created");
}

static void
test_dropped_after_output (Fixture *fx, gconstpointer data)
{
  /* Cut after the first text delta: output was streamed, no retry. */
  assert_stream_fails (
    fx, "{\"body\": \"responses-text.sse\", \"drop_after\": 1300}",
    AGENTS_RUN_ERROR_MODEL_HTTP, NULL);
  g_assert_cmpuint (agents_test_model_server_get_n_requests (fx->server), ==,
                    1);
  g_assert_cmpstr (event_type (fx, fx->events->len - 1), ==,
                   "response.output_text.delta");
}

static void
test_connection_refused (Fixture *fx, gconstpointer data)
{
  g_autoptr (AgentsModel) model = responses_model (fx);
  g_autoptr (AgentsModelRequest) request = simple_request ("Hi");
  g_autoptr (AgentsModelResponse) response = NULL;
  g_autoptr (GError) error = NULL;

  /* Port 1 on loopback: nothing listens there. */
  agents_openai_provider_set_base_url (fx->provider, "http://127.0.0.1:1/v1");
  response = run_model (fx, model, request, TRUE, &error);
  g_assert_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_MODEL_HTTP);
  g_assert_true (g_str_has_prefix (
    error->message, "cannot reach the model server at http://127.0.0.1:1/v1"));
}

/* A run on the Responses model records a generation span with the
 * model's name and the server's usage. */
/* The reference's `response` span sits inside the generation span and
 * names the response. Spans of a normalized trace nest as "children". */
static gboolean
find_response_span (JsonArray *spans,
                    const char *parent_type,
                    const char *response_id)
{
  for (guint i = 0; spans != NULL && i < json_array_get_length (spans); i++)
    {
      JsonObject *span = json_array_get_object_element (spans, i);
      JsonObject *data = json_object_has_member (span, "data")
                           ? json_object_get_object_member (span, "data")
                           : NULL;
      const char *type = json_object_get_string_member (span, "type");
      JsonArray *children = json_object_has_member (span, "children")
                              ? json_object_get_array_member (span, "children")
                              : NULL;

      if (g_strcmp0 (type, "response") == 0 &&
          g_strcmp0 (parent_type, "generation") == 0 && data != NULL &&
          g_strcmp0 (json_object_get_string_member (data, "response_id"),
                     response_id) == 0)
        return TRUE;
      if (find_response_span (children, type, response_id))
        return TRUE;
    }
  return FALSE;
}

static void
assert_response_span_in_generation (JsonArray *traces, const char *id)
{
  JsonObject *trace = json_array_get_object_element (traces, 0);

  g_assert_true (find_response_span (
    json_object_get_array_member (trace, "children"), "trace", id));
}

static void
test_generation_span (Fixture *fx, gconstpointer data)
{
  g_autoptr (AgentsTestTracingProcessor) processor =
    agents_test_tracing_processor_new ();
  AgentsTracingProcessor *list[] = { AGENTS_TRACING_PROCESSOR (processor) };
  g_autoptr (AgentsModel) model = responses_model (fx);
  g_autoptr (AgentsAgent) agent = agents_agent_new ("Greeter");
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (JsonNode) input = json_node_init_string (json_node_alloc (), "Hi");
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (AgentsRunResult) run = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonArray) traces = NULL;
  g_autofree char *text = NULL;

  agents_tracing_set_processors (list, 1);
  agents_agent_set_model (agent, model);
  /* Not streamed: the runner asks for a whole answer. */
  agents_test_model_server_add (fx->server,
                                "{\"body\": \"responses-answer.json\"}");
  AGENTS_TEST_AWAIT (
    result, agents_runner_run_async (runner, agent, input, NULL, NULL, NULL,
                                     NULL, agents_test_async_cb, &result));
  run = agents_runner_run_finish (runner, result, &error);
  g_assert_no_error (error);
  agents_tracing_force_flush ();
  traces = agents_test_tracing_processor_fetch_normalized_spans (processor);
  text = array_to_string (traces);
  agents_tracing_set_processors (NULL, 0);
  g_assert_nonnull (strstr (text, "\"type\":\"generation\""));
  g_assert_nonnull (strstr (text, "\"model\":\"gpt-test\""));
  g_assert_nonnull (strstr (text, "\"input_tokens\":12"));
  g_assert_nonnull (strstr (text, "\"total_tokens\":17"));
  assert_response_span_in_generation (traces, "resp_1");
}

/* The runner's per-run key goes to OpenAI's own endpoint only, and an
 * explicit extra argument wins. */
static void
test_responses_prompt_cache_key (void)
{
  g_autoptr (AgentsOpenAIProvider) provider = agents_openai_provider_new ();
  g_autoptr (AgentsOpenAIResponsesModel) model = NULL;
  g_autoptr (AgentsModelRequest) request = simple_request ("Hi");
  g_autoptr (AgentsModelSettings) settings = agents_model_settings_new ();
  g_autoptr (JsonObject) extra =
    json_object_from ("{\"prompt_cache_key\": \"mine\"}");
  g_autoptr (JsonObject) body = NULL;
  g_autoptr (JsonObject) explicit_body = NULL;
  g_autoptr (JsonObject) local_body = NULL;
  g_autoptr (GError) error = NULL;

  agents_openai_provider_set_base_url (provider, "https://api.openai.com/v1");
  model = agents_openai_responses_model_new ("gpt-test", provider);
  agents_model_request_set_prompt_cache_key (request, "run-key");
  body =
    agents_openai_responses_model_build_body (model, request, TRUE, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (body, "prompt_cache_key"), ==,
                   "run-key");

  agents_model_settings_set_extra_args (settings, extra);
  agents_model_request_set_model_settings (request, settings);
  explicit_body =
    agents_openai_responses_model_build_body (model, request, TRUE, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (
    json_object_get_string_member (explicit_body, "prompt_cache_key"), ==,
    "mine");

  agents_openai_provider_set_base_url (provider, "http://127.0.0.1:11434/v1");
  agents_model_request_set_model_settings (request, NULL);
  local_body =
    agents_openai_responses_model_build_body (model, request, TRUE, &error);
  g_assert_no_error (error);
  g_assert_false (json_object_has_member (local_body, "prompt_cache_key"));
}

/* OpenAI's own URL without a key fails before any request. */
static void
test_missing_key (Fixture *fx, gconstpointer data)
{
  g_autoptr (AgentsModel) model = responses_model (fx);
  g_autoptr (AgentsModelRequest) request = simple_request ("Hi");
  g_autoptr (AgentsModelResponse) response = NULL;
  g_autoptr (GError) error = NULL;

  agents_openai_provider_set_base_url (fx->provider, NULL);
  g_assert_cmpstr (agents_openai_provider_get_base_url (fx->provider), ==,
                   "https://api.openai.com/v1");
  agents_openai_provider_set_api_key (fx->provider, NULL);
  g_assert_false (agents_openai_provider_has_api_key (fx->provider));
  response = run_model (fx, model, request, TRUE, &error);
  g_assert_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_USER_ERROR);
  g_assert_nonnull (strstr (error->message, "OPENAI_API_KEY"));
}

/* A new provider starts from the environment. */
static void
test_provider_environment (void)
{
  g_autoptr (AgentsOpenAIProvider) provider = NULL;
  g_autoptr (AgentsOpenAIResponsesModel) model = NULL;

  g_setenv ("OPENAI_BASE_URL", "http://127.0.0.1:9/v1/", TRUE);
  g_setenv ("OPENAI_ORG_ID", "org-1", TRUE);
  g_setenv ("OPENAI_DEFAULT_MODEL", "gpt-env", TRUE);
  provider = agents_openai_provider_new ();
  g_assert_cmpstr (agents_openai_provider_get_base_url (provider), ==,
                   "http://127.0.0.1:9/v1/");
  g_assert_cmpstr (agents_openai_provider_get_organization (provider), ==,
                   "org-1");
  g_assert_true (agents_openai_provider_has_api_key (provider));
  g_assert_cmpuint (agents_openai_provider_get_max_retries (provider), ==, 2);
  g_assert_cmpuint (agents_openai_provider_get_timeout (provider), ==, 600);
  model = agents_openai_responses_model_new (NULL, provider);
  g_assert_cmpstr (agents_openai_responses_model_get_model_name (model), ==,
                   "gpt-env");
  g_unsetenv ("OPENAI_BASE_URL");
  g_unsetenv ("OPENAI_ORG_ID");
  g_unsetenv ("OPENAI_DEFAULT_MODEL");
}

static gboolean
cancel_later (gpointer user_data)
{
  g_cancellable_cancel (user_data);
  return G_SOURCE_REMOVE;
}

static void
cancel_soon (GCancellable *cancellable)
{
  g_timeout_add (100, cancel_later, cancellable);
}

static void
test_cancel_never_ending (Fixture *fx, gconstpointer data)
{
  g_autoptr (AgentsModel) model = responses_model (fx);
  g_autoptr (AgentsModelRequest) request = simple_request ("Hi");
  g_autoptr (AgentsModelResponse) response = NULL;
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  gint64 cancelled_at;

  agents_test_model_server_add (
    fx->server, "{\"text\": \"event: response.created\\ndata: "
                "{\\\"type\\\": \\\"response.created\\\"}\\n\\n\", "
                "\"never_end\": true}");
  /* Cancelled once the stream is flowing. */
  g_signal_connect_swapped (fx->sink, "event", G_CALLBACK (cancel_soon),
                            cancellable);
  AGENTS_TEST_AWAIT (result, agents_model_stream_response_async (
                               model, request, fx->sink, cancellable,
                               agents_test_async_cb, &result));
  cancelled_at = g_get_monotonic_time ();
  response = agents_model_stream_response_finish (model, result, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (fx->events->len, ==, 1);
  /* The server notices the client left and stops. */
  while (agents_test_model_server_get_n_streaming (fx->server) > 0)
    {
      g_main_context_iteration (NULL, TRUE);
      g_assert_cmpint (g_get_monotonic_time () - cancelled_at, <,
                       2 * G_USEC_PER_SEC);
    }
}

/* A retry's wait ends at once when the caller cancels. */
static void
test_cancel_during_backoff (Fixture *fx, gconstpointer data)
{
  g_autoptr (AgentsModel) model = responses_model (fx);
  g_autoptr (AgentsModelRequest) request = simple_request ("Hi");
  g_autoptr (AgentsModelResponse) response = NULL;
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  gint64 start = g_get_monotonic_time ();

  agents_test_model_server_add (
    fx->server, "{\"status\": 429, \"headers\": {\"retry-after\": \"30\"}}");
  g_timeout_add (200, cancel_later, cancellable);
  AGENTS_TEST_AWAIT (result, agents_model_stream_response_async (
                               model, request, fx->sink, cancellable,
                               agents_test_async_cb, &result));
  response = agents_model_stream_response_finish (model, result, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 5 * G_USEC_PER_SEC);
}

static void
test_timeout (Fixture *fx, gconstpointer data)
{
  g_autoptr (AgentsModel) model = responses_model (fx);
  g_autoptr (AgentsModelRequest) request = simple_request ("Hi");
  g_autoptr (AgentsModelResponse) response = NULL;
  g_autoptr (GError) error = NULL;

  /* Headers, then silence: the first byte comes after 3 s. */
  agents_openai_provider_set_timeout (fx->provider, 1);
  agents_openai_provider_set_max_retries (fx->provider, 0);
  agents_test_model_server_add (
    fx->server, "{\"text\": \"event: x\\n\", \"chunk\": 1, \"interval_ms\": "
                "3000}");
  response = run_model (fx, model, request, TRUE, &error);
  g_assert_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_MODEL_HTTP);
  g_assert_nonnull (strstr (error->message, "no answer for 1 seconds"));
}

/* ---- Chat Completions -------------------------------------------------- */

static AgentsModel *
chat_model (Fixture *fx)
{
  return AGENTS_MODEL (
    agents_openai_chat_completions_model_new ("llama-test", fx->provider));
}

static void
assert_event_types (Fixture *fx, const char *const *types)
{
  g_autoptr (GString) got = g_string_new (NULL);
  g_autoptr (GString) expected = g_string_new (NULL);

  for (guint i = 0; i < fx->events->len; i++)
    {
      g_string_append_printf (got, "%s\n", event_type (fx, i));
      /* Synthesized events are numbered like the server's. */
      g_assert_cmpint (
        json_object_get_int_member (fx->events->pdata[i], "sequence_number"),
        ==, i);
    }
  for (guint i = 0; types[i] != NULL; i++)
    g_string_append_printf (expected, "%s\n", types[i]);
  g_assert_cmpstr (got->str, ==, expected->str);
}

static void
test_chat_text (Fixture *fx, gconstpointer data)
{
  g_autoptr (AgentsModel) model = chat_model (fx);
  g_autoptr (AgentsModelRequest) request = simple_request ("Hi");
  g_autoptr (AgentsModelResponse) response = NULL;
  g_autoptr (GError) error = NULL;
  const char *types[] = { "response.created",
                          "response.output_item.added",
                          "response.content_part.added",
                          "response.output_text.delta",
                          "response.output_text.delta",
                          "response.output_text.done",
                          "response.content_part.done",
                          "response.output_item.done",
                          "response.completed",
                          NULL };
  JsonObject *completed;

  agents_test_model_server_add (
    fx->server,
    "{\"path\": \"/v1/chat/completions\", \"auth\": \"Bearer " API_KEY
    "\", \"expect\": \"chat-text.request.json\", \"body\": "
    "\"chat-text.sse\", \"chunk\": 2}");
  response = run_model (fx, model, request, TRUE, &error);
  g_assert_no_error (error);
  assert_event_types (fx, types);
  g_assert_cmpstr (
    json_object_get_string_member (fx->events->pdata[4], "delta"), ==,
    "wörld 🎉");
  completed = json_object_get_object_member (fx->events->pdata[8], "response");
  g_assert_cmpint (
    json_object_get_int_member (
      json_object_get_object_member (completed, "usage"), "input_tokens"),
    ==, 12);
  g_assert_cmpstr (
    json_object_get_string_member (
      json_array_get_object_element (
        json_object_get_array_member (output_item (response, 0), "content"), 0),
      "text"),
    ==, "Héllo, wörld 🎉");
  g_assert_cmpint (usage_int (response, "input_tokens"), ==, 12);
  g_assert_cmpint (usage_int (response, "output_tokens"), ==, 5);
  g_assert_cmpint (usage_int (response, "requests"), ==, 1);
}

static void
test_chat_tools (Fixture *fx, gconstpointer data)
{
  g_autoptr (AgentsModel) model = chat_model (fx);
  g_autoptr (AgentsModelRequest) request = full_request ();
  g_autoptr (AgentsModelResponse) response = NULL;
  g_autoptr (GError) error = NULL;
  const char *types[] = { "response.created",
                          "response.output_item.added",
                          "response.reasoning_summary_part.added",
                          "response.reasoning_summary_text.delta",
                          "response.output_item.added",
                          "response.content_part.added",
                          "response.output_text.delta",
                          "response.output_item.added",
                          "response.function_call_arguments.delta",
                          "response.output_item.added",
                          "response.function_call_arguments.delta",
                          "response.reasoning_summary_text.done",
                          "response.reasoning_summary_part.done",
                          "response.output_item.done",
                          "response.output_text.done",
                          "response.content_part.done",
                          "response.output_item.done",
                          "response.function_call_arguments.done",
                          "response.output_item.done",
                          "response.output_item.done",
                          "response.completed",
                          NULL };
  JsonObject *item;

  /* Tool-call deltas split across chunks and interleaved by index; the
   * stream cut every 5 bytes. */
  agents_test_model_server_add (
    fx->server, "{\"expect\": \"chat-full.request.json\", \"body\": "
                "\"chat-tools.sse\", \"chunk\": 5}");
  response = run_model (fx, model, request, TRUE, &error);
  g_assert_no_error (error);
  assert_event_types (fx, types);
  g_assert_cmpuint (
    json_array_get_length (agents_model_response_get_output (response)), ==, 4);
  item = output_item (response, 0);
  g_assert_cmpstr (json_object_get_string_member (item, "type"), ==,
                   "reasoning");
  item = output_item (response, 1);
  g_assert_cmpstr (json_object_get_string_member (item, "type"), ==, "message");
  item = output_item (response, 2);
  g_assert_cmpstr (json_object_get_string_member (item, "type"), ==,
                   "function_call");
  g_assert_cmpstr (json_object_get_string_member (item, "call_id"), ==,
                   "call_a");
  g_assert_cmpstr (json_object_get_string_member (item, "arguments"), ==,
                   "{\"cmd\":\"cat a.txt\"}");
  /* The custom tool's call comes back as a custom_tool_call. */
  item = output_item (response, 3);
  g_assert_cmpstr (json_object_get_string_member (item, "type"), ==,
                   "custom_tool_call");
  g_assert_cmpstr (json_object_get_string_member (item, "call_id"), ==,
                   "call_p");
  g_assert_cmpstr (json_object_get_string_member (item, "input"), ==,
                   "*** Begin Patch\n*** Add File: hello.txt\n+hello\n"
                   "*** End Patch\n");
  g_assert_cmpint (usage_int (response, "total_tokens"), ==, 39);
  assert_output_sealed (response);
}

static void
test_chat_not_streamed (Fixture *fx, gconstpointer data)
{
  g_autoptr (AgentsModel) model = chat_model (fx);
  g_autoptr (AgentsModelRequest) request = simple_request ("Hi");
  g_autoptr (AgentsModelResponse) response = NULL;
  g_autoptr (GError) error = NULL;

  agents_test_model_server_add (fx->server, "{\"body\": \"chat-answer.json\"}");
  response = run_model (fx, model, request, FALSE, &error);
  g_assert_no_error (error);
  g_assert_false (json_object_has_member (
    agents_test_model_server_get_request (fx->server, 0), "stream"));
  g_assert_cmpstr (
    json_object_get_string_member (output_item (response, 0), "id"), ==,
    "__fake_id__");
  g_assert_cmpstr (
    json_object_get_string_member (output_item (response, 1), "type"), ==,
    "function_call");
  g_assert_cmpint (usage_int (response, "total_tokens"), ==, 10);
  assert_output_sealed (response);
}

static JsonObject *
converted_tool_message (const char *output_json, gboolean keep_images)
{
  g_autofree char *text = g_strdup_printf (
    "[{\"type\": \"function_call_output\", \"call_id\": \"c\", \"output\": "
    "%s}]",
    output_json);
  g_autoptr (JsonArray) items = json_array_from (text);
  AgentsChatConvertOptions options = { keep_images };
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonArray) messages =
    agents_openai_chat_messages_from_items (NULL, items, &options, &error);

  g_assert_no_error (error);
  return json_object_ref (json_array_get_object_element (messages, 0));
}

static void
assert_tool_content (const char *output_json,
                     gboolean keep_images,
                     const char *expected)
{
  g_autoptr (JsonObject) message =
    converted_tool_message (output_json, keep_images);
  g_autofree char *content =
    node_string (json_object_get_member (message, "content"));

  g_assert_cmpstr (json_object_get_string_member (message, "role"), ==, "tool");
  g_assert_cmpstr (content, ==, expected);
}

static void
test_chat_tool_outputs (void)
{
  const char *image = "{\"type\": \"input_image\", \"image_url\": "
                      "\"data:image/png;base64,iVBO\"}";
  g_autofree char *image_only = g_strdup_printf ("[%s]", image);
  g_autofree char *mixed =
    g_strdup_printf ("[{\"type\": \"input_text\", \"text\": \"a\"}, %s, "
                     "{\"type\": \"input_text\", \"text\": \"b\"}]",
                     image);

  assert_tool_content ("\"plain\"", FALSE, "\"plain\"");
  assert_tool_content (mixed, FALSE, "\"a\\nb\"");
  assert_tool_content (image_only, FALSE, "\"[tool output omitted]\"");
  assert_tool_content (image, FALSE, "\"[tool output omitted]\"");
  assert_tool_content (
    image_only, TRUE,
    "[{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;"
    "base64,iVBO\",\"detail\":\"auto\"}}]");
  assert_tool_content (
    mixed, TRUE,
    "[{\"type\":\"text\",\"text\":\"a\"},{\"type\":\"image_url\","
    "\"image_url\":{\"url\":\"data:image/png;base64,iVBO\",\"detail\":"
    "\"auto\"}},{\"type\":\"text\",\"text\":\"b\"}]");
}

static void
test_chat_conversion_errors (void)
{
  const char *bad[] = {
    "[{\"type\": \"item_reference\", \"id\": \"x\"}]",
    "[{\"type\": \"web_search_call\", \"id\": \"x\"}]",
    "[{\"role\": \"wizard\", \"content\": \"x\"}]",
    "[42]",
  };
  g_autoptr (JsonObject) hosted =
    json_object_from ("{\"type\": \"web_search\"}");
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonObject) tool = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (JsonArray) items = json_array_from (bad[i]);
      g_autoptr (JsonArray) messages =
        agents_openai_chat_messages_from_items (NULL, items, NULL, &error);

      g_assert_null (messages);
      g_assert_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_USER_ERROR);
      g_clear_error (&error);
    }
  tool = agents_openai_chat_tool_from_responses (hosted, &error);
  g_assert_null (tool);
  g_assert_cmpstr (error->message, ==,
                   "Hosted tools are not supported with the ChatCompletions "
                   "API. Got tool type: web_search");
}

static void
test_chat_unusable_tool_call (Fixture *fx, gconstpointer data)
{
  g_autoptr (AgentsModel) model = chat_model (fx);
  g_autoptr (AgentsModelRequest) request = simple_request ("Hi");
  g_autoptr (AgentsModelResponse) response = NULL;
  g_autoptr (GError) error = NULL;

  /* A call with no id never becomes usable. */
  agents_test_model_server_add (
    fx->server,
    "{\"text\": \"data: {\\\"choices\\\": [{\\\"index\\\": 0, \\\"delta\\\": "
    "{\\\"tool_calls\\\": [{\\\"index\\\": 0, \\\"function\\\": "
    "{\\\"name\\\": \\\"f\\\", \\\"arguments\\\": \\\"{}\\\"}}]}}]}\\n\\n"
    "data: {\\\"choices\\\": [{\\\"index\\\": 0, \\\"delta\\\": {}, "
    "\\\"finish_reason\\\": \\\"tool_calls\\\"}]}\\n\\ndata: [DONE]\\n\\n\"}");
  response = run_model (fx, model, request, TRUE, &error);
  g_assert_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_MODEL_BEHAVIOR);
}

/* ---- hostile streams, fed to the handlers directly -------------------- */

/* What tests/fuzz/fuzz-model-stream found, with no request (its NULL is
 * accepted) and no server: the handlers must end in an answer or a
 * GError, and leak nothing (seen under ASan or valgrind). */

static void
feed_responses_events (AgentsOpenAIResponsesStream *stream,
                       const char *const *events)
{
  for (guint i = 0; events[i] != NULL; i++)
    {
      g_autoptr (GError) error = NULL;

      g_assert_true (agents_openai_responses_stream_event (
        NULL, NULL, events[i], strlen (events[i]), stream, &error));
      g_assert_no_error (error);
    }
}

/* The request stops reading at the first completion; fed without one,
 * a second completion replaces the first. */
static void
test_responses_stream_completed_twice (void)
{
  static const char *const events[] = {
    "{\"type\": \"response.completed\", \"response\": {\"id\": \"r1\"}}",
    "{\"type\": \"response.completed\", \"response\": {\"id\": \"r2\"}}",
    NULL,
  };
  g_autoptr (AgentsModelEventSink) sink = agents_model_event_sink_new ();
  AgentsOpenAIResponsesStream *stream =
    agents_openai_responses_stream_new (sink);
  g_autoptr (AgentsModelResponse) response = NULL;
  g_autoptr (GError) error = NULL;

  feed_responses_events (stream, events);
  response = agents_openai_responses_stream_finish (stream, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (agents_model_response_get_response_id (response), ==, "r2");
  agents_openai_responses_stream_free (stream);
}

static void
feed_chat_events (AgentsOpenAIChatStream *stream, const char *const *events)
{
  for (guint i = 0; events[i] != NULL; i++)
    {
      g_autoptr (GError) error = NULL;

      g_assert_true (agents_openai_chat_stream_event (
        NULL, NULL, events[i], strlen (events[i]), stream, &error));
      g_assert_no_error (error);
    }
}

/* Text, then a stop for tool calls that never came: the finished
 * message item is dropped with the error, not leaked. */
static void
test_chat_stream_text_then_no_call (void)
{
  static const char *const events[] = {
    "{\"choices\": [{\"delta\": {\"content\": \"hi\"}}]}",
    "{\"choices\": [{\"delta\": {}, \"finish_reason\": \"tool_calls\"}]}",
    "[DONE]",
    NULL,
  };
  g_autoptr (AgentsModelEventSink) sink = agents_model_event_sink_new ();
  g_autoptr (GHashTable) custom = g_hash_table_new (g_str_hash, g_str_equal);
  AgentsOpenAIChatStream *stream =
    agents_openai_chat_stream_new (sink, custom, "gpt-4.1");
  g_autoptr (AgentsModelResponse) response = NULL;
  g_autoptr (GError) error = NULL;

  feed_chat_events (stream, events);
  response = agents_openai_chat_stream_finish (stream, &error);
  g_assert_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_MODEL_BEHAVIOR);
  g_assert_cmpstr (error->message, ==,
                   "the model stopped for tool calls but gave no usable tool "
                   "call (each needs an id and a name)");
  g_assert_null (response);
  agents_openai_chat_stream_free (stream);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_setenv ("OPENAI_API_KEY", "sk-from-environment", TRUE);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("/openai/responses/text", test_responses_text);
  ADD ("/openai/responses/split", test_responses_split);
  ADD ("/openai/responses/tools", test_responses_tools);
  ADD ("/openai/responses/custom-tool-call", test_responses_custom_tool_call);
  ADD ("/openai/responses/not-streamed", test_responses_not_streamed);
  ADD ("/openai/responses/request-body", test_responses_request_body);
  ADD ("/openai/responses/extra-args-clash", test_responses_extra_args_clash);
  ADD ("/openai/responses/failure-endings", test_responses_failure_endings);
  ADD ("/openai/responses/malformed", test_responses_malformed);
  ADD ("/openai/responses/large-event", test_responses_large_event);
  ADD ("/openai/faults/retry-429", test_retry_429);
  ADD ("/openai/faults/retry-500-then-success", test_retry_500_then_success);
  ADD ("/openai/faults/retry-bounded", test_retry_bounded);
  ADD ("/openai/faults/retry-decisions", test_retry_decisions);
  ADD ("/openai/faults/dropped-before-output", test_dropped_before_output);
  ADD ("/openai/faults/dropped-after-output", test_dropped_after_output);
  ADD ("/openai/faults/connection-refused", test_connection_refused);
  ADD ("/openai/faults/cancel-never-ending", test_cancel_never_ending);
  ADD ("/openai/faults/cancel-during-backoff", test_cancel_during_backoff);
  ADD ("/openai/faults/timeout", test_timeout);
  ADD ("/openai/faults/missing-key", test_missing_key);
  ADD ("/openai/tracing/generation-span", test_generation_span);
  g_test_add_func ("/openai/provider/environment", test_provider_environment);
  g_test_add_func ("/openai/responses/prompt-cache-key",
                   test_responses_prompt_cache_key);
  ADD ("/openai/chat/text", test_chat_text);
  ADD ("/openai/chat/tools", test_chat_tools);
  ADD ("/openai/chat/not-streamed", test_chat_not_streamed);
  ADD ("/openai/chat/unusable-tool-call", test_chat_unusable_tool_call);
  g_test_add_func ("/openai/chat/tool-outputs", test_chat_tool_outputs);
  g_test_add_func ("/openai/chat/conversion-errors",
                   test_chat_conversion_errors);
  g_test_add_func ("/openai/hostile/responses-completed-twice",
                   test_responses_stream_completed_twice);
  g_test_add_func ("/openai/hostile/chat-text-then-no-call",
                   test_chat_stream_text_then_no_call);
#undef ADD
  return g_test_run ();
}
