/* agents-openai-chat-convert.c - Responses items ↔ Chat Completions messages
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "agents-openai-private.h"
#include "agents-run-error.h"

/* The reference's Converter.items_to_messages, with two deliberate
 * degradations for what Chat Completions cannot express: a custom
 * (freeform) tool call travels as a function call whose one argument
 * `input` holds the raw text, and a structured tool output keeps its text
 * parts (joined by newlines); its images are dropped, an output left empty
 * becomes "[tool output omitted]", unless keep_tool_images sends them as
 * image_url parts. */

#define FAKE_ID "__fake_id__"
#define OMITTED "[tool output omitted]"

typedef struct
{
  JsonArray *messages;
  JsonObject *assistant; /* the message tool calls attach to, or NULL */
  const AgentsChatConvertOptions *options;
} Converter;

static gboolean
unhandled (JsonObject *item, GError **error)
{
  g_autoptr (JsonNode) node = json_node_init_object (json_node_alloc (), item);
  g_autofree char *text = agents_openai_json_to_string (node);

  agents_run_error_set (error, AGENTS_RUN_ERROR_USER_ERROR, NULL,
                        "Unhandled item type or structure: %s", text);
  return FALSE;
}

static void
flush_assistant (Converter *cv)
{
  if (cv->assistant == NULL)
    return;
  json_array_add_object_element (cv->messages, cv->assistant);
  cv->assistant = NULL;
}

static JsonObject *
ensure_assistant (Converter *cv)
{
  if (cv->assistant == NULL)
    {
      cv->assistant = json_object_new ();
      json_object_set_string_member (cv->assistant, "role", "assistant");
      json_object_set_null_member (cv->assistant, "content");
    }
  return cv->assistant;
}

/* The text of a content that is a string or an array of text parts. */
static char *
content_text (JsonNode *content,
              const char *refusal_sink_member,
              JsonObject *refusal_sink)
{
  GString *text = g_string_new (NULL);
  JsonArray *parts;

  if (content == NULL)
    return g_string_free (text, FALSE);
  if (JSON_NODE_HOLDS_VALUE (content) &&
      json_node_get_value_type (content) == G_TYPE_STRING)
    {
      g_string_append (text, json_node_get_string (content));
      return g_string_free (text, FALSE);
    }
  if (!JSON_NODE_HOLDS_ARRAY (content))
    return g_string_free (text, FALSE);
  parts = json_node_get_array (content);
  for (guint i = 0; i < json_array_get_length (parts); i++)
    {
      JsonNode *node = json_array_get_element (parts, i);
      JsonObject *part =
        JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      const char *value = agents_openai_json_string (part, "text");
      const char *refusal = agents_openai_json_string (part, "refusal");

      if (refusal != NULL && refusal_sink != NULL)
        json_object_set_string_member (refusal_sink, refusal_sink_member,
                                       refusal);
      if (value == NULL)
        continue;
      if (text->len > 0)
        g_string_append_c (text, '\n');
      g_string_append (text, value);
    }
  return g_string_free (text, FALSE);
}

static JsonObject *
image_part (const char *url, const char *detail)
{
  JsonObject *part = json_object_new ();
  JsonObject *image = json_object_new ();

  json_object_set_string_member (image, "url", url);
  json_object_set_string_member (image, "detail", detail ? detail : "auto");
  json_object_set_string_member (part, "type", "image_url");
  json_object_set_object_member (part, "image_url", image);
  return part;
}

static JsonObject *
text_part (const char *text)
{
  JsonObject *part = json_object_new ();

  json_object_set_string_member (part, "type", "text");
  json_object_set_string_member (part, "text", text);
  return part;
}

/* A user message keeps all its parts. */
static gboolean
user_content (JsonNode *content, JsonNode **out, GError **error)
{
  JsonArray *parts;
  JsonArray *converted;

  if (JSON_NODE_HOLDS_VALUE (content) &&
      json_node_get_value_type (content) == G_TYPE_STRING)
    {
      *out = json_node_copy (content);
      return TRUE;
    }
  if (!JSON_NODE_HOLDS_ARRAY (content))
    {
      agents_run_error_set (error, AGENTS_RUN_ERROR_USER_ERROR, NULL,
                            "Unknown content: not a string or a list");
      return FALSE;
    }
  parts = json_node_get_array (content);
  converted = json_array_new ();
  for (guint i = 0; i < json_array_get_length (parts); i++)
    {
      JsonObject *part = json_array_get_object_element (parts, i);
      const char *type = agents_openai_json_string (part, "type");

      if (g_strcmp0 (type, "input_text") == 0 || g_strcmp0 (type, "text") == 0)
        json_array_add_object_element (
          converted, text_part (agents_openai_json_string (part, "text")
                                  ? agents_openai_json_string (part, "text")
                                  : ""));
      else if (g_strcmp0 (type, "input_image") == 0 &&
               agents_openai_json_string (part, "image_url") != NULL)
        json_array_add_object_element (
          converted, image_part (agents_openai_json_string (part, "image_url"),
                                 agents_openai_json_string (part, "detail")));
      else
        {
          json_array_unref (converted);
          agents_run_error_set (
            error, AGENTS_RUN_ERROR_USER_ERROR, NULL,
            "Unknown content part for the ChatCompletions API: %s",
            type ? type : "(no type)");
          return FALSE;
        }
    }
  *out = json_node_init_array (json_node_alloc (), converted);
  json_array_unref (converted);
  return TRUE;
}

static gboolean
add_message (Converter *cv, JsonObject *item, const char *role, GError **error)
{
  JsonNode *content = json_object_get_member (item, "content");
  JsonObject *message;

  if (g_str_equal (role, "assistant"))
    {
      g_autofree char *text = NULL;

      flush_assistant (cv);
      message = ensure_assistant (cv);
      text = content_text (content, "refusal", message);
      if (*text != '\0')
        json_object_set_string_member (message, "content", text);
      return TRUE;
    }
  flush_assistant (cv);
  message = json_object_new ();
  json_object_set_string_member (message, "role", role);
  if (g_str_equal (role, "user"))
    {
      JsonNode *converted = NULL;

      if (content == NULL || !user_content (content, &converted, error))
        {
          json_object_unref (message);
          return content == NULL ? unhandled (item, error) : FALSE;
        }
      json_object_set_member (message, "content", converted);
    }
  else
    {
      g_autofree char *text = content_text (content, NULL, NULL);

      json_object_set_string_member (message, "content", text);
    }
  json_array_add_object_element (cv->messages, message);
  return TRUE;
}

static void
add_tool_call (Converter *cv,
               const char *call_id,
               const char *name,
               const char *arguments)
{
  JsonObject *assistant = ensure_assistant (cv);
  JsonArray *calls = agents_openai_json_array (assistant, "tool_calls");
  JsonObject *call = json_object_new ();
  JsonObject *function = json_object_new ();

  if (calls == NULL)
    {
      calls = json_array_new ();
      json_object_set_array_member (assistant, "tool_calls", calls);
    }
  json_object_set_string_member (function, "name", name ? name : "");
  json_object_set_string_member (function, "arguments",
                                 arguments && *arguments ? arguments : "{}");
  json_object_set_string_member (call, "id", call_id ? call_id : "");
  json_object_set_string_member (call, "type", "function");
  json_object_set_object_member (call, "function", function);
  json_array_add_object_element (calls, call);
}

static void
add_custom_tool_call (Converter *cv, JsonObject *item)
{
  g_autoptr (JsonObject) arguments = json_object_new ();
  g_autoptr (JsonNode) node = NULL;
  g_autofree char *text = NULL;
  const char *input = agents_openai_json_string (item, "input");

  json_object_set_string_member (arguments, "input", input ? input : "");
  node = json_node_init_object (json_node_alloc (), arguments);
  text = agents_openai_json_to_string (node);
  add_tool_call (cv, agents_openai_json_string (item, "call_id"),
                 agents_openai_json_string (item, "name"), text);
}

/* A tool output: a string, or text and image parts. */
static JsonNode *
tool_content (Converter *cv, JsonNode *output)
{
  g_autoptr (GString) text = g_string_new (NULL);
  g_autoptr (JsonArray) parts = json_array_new ();
  g_autoptr (JsonArray) single = NULL;
  JsonArray *array;
  gboolean has_image = FALSE;

  if (output == NULL || JSON_NODE_HOLDS_NULL (output))
    return json_node_init_string (json_node_alloc (), "");
  if (JSON_NODE_HOLDS_VALUE (output))
    {
      g_autofree char *printed = NULL;

      if (json_node_get_value_type (output) == G_TYPE_STRING)
        return json_node_copy (output);
      printed = agents_openai_json_to_string (output);
      return json_node_init_string (json_node_alloc (), printed);
    }
  if (JSON_NODE_HOLDS_OBJECT (output))
    {
      single = json_array_new ();
      json_array_add_element (single, json_node_copy (output));
      array = single;
    }
  else
    array = json_node_get_array (output);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *node = json_array_get_element (array, i);
      JsonObject *part =
        JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      const char *value = agents_openai_json_string (part, "text");
      const char *url = agents_openai_json_string (part, "image_url");

      if (value != NULL)
        {
          if (text->len > 0)
            g_string_append_c (text, '\n');
          g_string_append (text, value);
          json_array_add_object_element (parts, text_part (value));
        }
      else if (url != NULL && cv->options && cv->options->keep_tool_images)
        {
          has_image = TRUE;
          json_array_add_object_element (
            parts,
            image_part (url, agents_openai_json_string (part, "detail")));
        }
    }
  if (has_image)
    return json_node_init_array (json_node_alloc (), parts);
  if (text->len == 0)
    {
      g_message ("a tool output had no text for the ChatCompletions API: "
                 "sent as “%s”",
                 OMITTED);
      return json_node_init_string (json_node_alloc (), OMITTED);
    }
  return json_node_init_string (json_node_alloc (), text->str);
}

static void
add_tool_output (Converter *cv, JsonObject *item)
{
  JsonObject *message = json_object_new ();
  const char *call_id = agents_openai_json_string (item, "call_id");

  flush_assistant (cv);
  json_object_set_string_member (message, "role", "tool");
  json_object_set_string_member (message, "tool_call_id",
                                 call_id ? call_id : "");
  json_object_set_member (
    message, "content",
    tool_content (cv, json_object_get_member (item, "output")));
  json_array_add_object_element (cv->messages, message);
}

static gboolean
add_item (Converter *cv, JsonObject *item, GError **error)
{
  const char *type = agents_openai_json_string (item, "type");
  const char *role = agents_openai_json_string (item, "role");

  if (role != NULL && (type == NULL || g_str_equal (type, "message")))
    {
      if (!g_str_equal (role, "user") && !g_str_equal (role, "system") &&
          !g_str_equal (role, "developer") && !g_str_equal (role, "assistant"))
        return unhandled (item, error);
      return add_message (cv, item, role, error);
    }
  if (type == NULL)
    return unhandled (item, error);
  if (g_str_equal (type, "function_call"))
    add_tool_call (cv, agents_openai_json_string (item, "call_id"),
                   agents_openai_json_string (item, "name"),
                   agents_openai_json_string (item, "arguments"));
  else if (g_str_equal (type, "custom_tool_call"))
    add_custom_tool_call (cv, item);
  else if (g_str_equal (type, "function_call_output") ||
           g_str_equal (type, "custom_tool_call_output"))
    add_tool_output (cv, item);
  else if (g_str_equal (type, "reasoning"))
    ; /* Chat Completions has no place for it */
  else if (g_str_equal (type, "item_reference"))
    {
      agents_run_error_set (error, AGENTS_RUN_ERROR_USER_ERROR, NULL,
                            "Encountered an item_reference, which is not "
                            "supported");
      return FALSE;
    }
  else
    return unhandled (item, error);
  return TRUE;
}

JsonArray *
agents_openai_chat_messages_from_items (const char *instructions,
                                        JsonArray *items,
                                        const AgentsChatConvertOptions *options,
                                        GError **error)
{
  Converter cv = { json_array_new (), NULL, options };

  if (instructions != NULL)
    {
      JsonObject *system = json_object_new ();

      json_object_set_string_member (system, "role", "system");
      json_object_set_string_member (system, "content", instructions);
      json_array_add_object_element (cv.messages, system);
    }
  for (guint i = 0; items && i < json_array_get_length (items); i++)
    {
      JsonNode *node = json_array_get_element (items, i);

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          agents_run_error_set (error, AGENTS_RUN_ERROR_USER_ERROR, NULL,
                                "Unhandled item type or structure: not an "
                                "object");
          goto fail;
        }
      if (!add_item (&cv, json_node_get_object (node), error))
        goto fail;
    }
  flush_assistant (&cv);
  return cv.messages;

fail:
  g_clear_pointer (&cv.assistant, json_object_unref);
  json_array_unref (cv.messages);
  return NULL;
}

static JsonObject *
custom_parameters (void)
{
  JsonObject *params = json_object_new ();
  JsonObject *properties = json_object_new ();
  JsonObject *input = json_object_new ();
  JsonArray *required = json_array_new ();

  json_object_set_string_member (input, "type", "string");
  json_object_set_string_member (input, "description",
                                 "The tool's raw input text.");
  json_object_set_object_member (properties, "input", input);
  json_array_add_string_element (required, "input");
  json_object_set_string_member (params, "type", "object");
  json_object_set_object_member (params, "properties", properties);
  json_object_set_array_member (params, "required", required);
  json_object_set_boolean_member (params, "additionalProperties", FALSE);
  return params;
}

/* A custom tool's description, with its grammar when it has one, since
 * the function form cannot constrain the input. */
static char *
custom_description (JsonObject *tool)
{
  const char *description = agents_openai_json_string (tool, "description");
  JsonObject *format = agents_openai_json_object (tool, "format");
  const char *definition = agents_openai_json_string (format, "definition");
  const char *syntax = agents_openai_json_string (format, "syntax");

  if (definition == NULL)
    return g_strdup (description ? description : "");
  return g_strdup_printf ("%s\n\nThe `input` argument must follow this %s "
                          "grammar:\n%s",
                          description ? description : "", syntax ? syntax : "",
                          definition);
}

JsonObject *
agents_openai_chat_tool_from_responses (JsonObject *tool, GError **error)
{
  const char *type = agents_openai_json_string (tool, "type");
  JsonObject *chat = json_object_new ();
  JsonObject *function = json_object_new ();
  const char *name = agents_openai_json_string (tool, "name");

  json_object_set_string_member (chat, "type", "function");
  json_object_set_object_member (chat, "function", function);
  json_object_set_string_member (function, "name", name ? name : "");
  if (g_strcmp0 (type, "function") == 0)
    {
      JsonNode *params = json_object_get_member (tool, "parameters");
      JsonNode *strict = json_object_get_member (tool, "strict");
      const char *description = agents_openai_json_string (tool, "description");

      json_object_set_string_member (function, "description",
                                     description ? description : "");
      if (params != NULL)
        json_object_set_member (function, "parameters",
                                json_node_copy (params));
      if (strict != NULL)
        json_object_set_member (function, "strict", json_node_copy (strict));
      return chat;
    }
  if (g_strcmp0 (type, "custom") == 0)
    {
      g_autofree char *description = custom_description (tool);

      json_object_set_string_member (function, "description", description);
      json_object_set_object_member (function, "parameters",
                                     custom_parameters ());
      return chat;
    }
  json_object_unref (chat);
  agents_run_error_set (error, AGENTS_RUN_ERROR_USER_ERROR, NULL,
                        "Hosted tools are not supported with the "
                        "ChatCompletions API. Got tool type: %s",
                        type ? type : "(none)");
  return NULL;
}

static JsonObject *
message_item (const char *text, const char *refusal)
{
  JsonObject *item = json_object_new ();
  JsonArray *content = json_array_new ();
  JsonObject *part = json_object_new ();

  if (refusal != NULL)
    {
      json_object_set_string_member (part, "type", "refusal");
      json_object_set_string_member (part, "refusal", refusal);
    }
  else
    {
      json_object_set_string_member (part, "type", "output_text");
      json_object_set_string_member (part, "text", text);
      json_object_set_array_member (part, "annotations", json_array_new ());
    }
  json_array_add_object_element (content, part);
  json_object_set_string_member (item, "id", FAKE_ID);
  json_object_set_string_member (item, "type", "message");
  json_object_set_string_member (item, "role", "assistant");
  json_object_set_string_member (item, "status", "completed");
  json_object_set_array_member (item, "content", content);
  return item;
}

/* A chat tool call as a Responses item: function_call, or custom_tool_call
 * with the `input` argument for a custom tool (the raw arguments when the
 * model did not give a JSON object with a string `input`). */
static JsonObject *
call_item (JsonObject *call, GHashTable *custom_tools)
{
  JsonObject *function = agents_openai_json_object (call, "function");
  const char *name = agents_openai_json_string (function, "name");
  const char *arguments = agents_openai_json_string (function, "arguments");
  const char *call_id = agents_openai_json_string (call, "id");
  JsonObject *item = json_object_new ();

  json_object_set_string_member (item, "id", FAKE_ID);
  json_object_set_string_member (item, "call_id", call_id ? call_id : "");
  json_object_set_string_member (item, "name", name ? name : "");
  if (custom_tools != NULL && name != NULL &&
      g_hash_table_contains (custom_tools, name))
    {
      g_autoptr (JsonNode) parsed =
        arguments
          ? agents_openai_parse_json (arguments, strlen (arguments), NULL)
          : NULL;
      const char *input =
        parsed && JSON_NODE_HOLDS_OBJECT (parsed)
          ? agents_openai_json_string (json_node_get_object (parsed), "input")
          : NULL;

      json_object_set_string_member (item, "type", "custom_tool_call");
      json_object_set_string_member (
        item, "input", input ? input : (arguments ? arguments : ""));
      return item;
    }
  json_object_set_string_member (item, "type", "function_call");
  json_object_set_string_member (item, "arguments", arguments ? arguments : "");
  return item;
}

JsonArray *
agents_openai_chat_items_from_message (JsonObject *message,
                                       GHashTable *custom_tools)
{
  JsonArray *items = json_array_new ();
  const char *content = agents_openai_json_string (message, "content");
  const char *refusal = agents_openai_json_string (message, "refusal");
  JsonArray *calls = agents_openai_json_array (message, "tool_calls");

  if ((content != NULL && *content != '\0') || refusal != NULL)
    json_array_add_object_element (items, message_item (content, refusal));
  for (guint i = 0; calls && i < json_array_get_length (calls); i++)
    {
      JsonNode *node = json_array_get_element (calls, i);

      if (JSON_NODE_HOLDS_OBJECT (node))
        json_array_add_object_element (
          items, call_item (json_node_get_object (node), custom_tools));
    }
  return items;
}
