/* agents-tool-output.c - structured tool outputs: text and image parts
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-run-private.h"
#include "agents-tool-output.h"

/**
 * AgentsToolOutput:
 *
 * The output of a tool as a list of content parts, for outputs that are
 * more than text: an image the model should look at, text beside it.
 * The model receives the parts as the `output` array of the call's
 * `function_call_output` or `custom_tool_call_output` item, e.g.
 * `[{"type": "input_image", "image_url": "data:image/png;base64,…"}]`.
 *
 * A tool completes its invocation with agents_tool_return_parts(); a tool
 * whose output is plain text keeps using agents_tool_return_text(), which
 * gives the model a string. A part list holding a single text part is
 * still a list, as in the reference SDK (its `ToolOutputText`).
 */

struct _AgentsToolOutput
{
  gatomicrefcount ref_count;
  JsonArray *parts;
};

G_DEFINE_BOXED_TYPE (AgentsToolOutput,
                     agents_tool_output,
                     agents_tool_output_ref,
                     agents_tool_output_unref)

/**
 * agents_tool_output_new:
 *
 * Creates an output without parts; add them with
 * agents_tool_output_add_text() and agents_tool_output_add_image().
 *
 * Returns: (transfer full): the output
 */
AgentsToolOutput *
agents_tool_output_new (void)
{
  AgentsToolOutput *self = g_new0 (AgentsToolOutput, 1);

  g_atomic_ref_count_init (&self->ref_count);
  self->parts = json_array_new ();
  return self;
}

/**
 * agents_tool_output_new_text:
 * @text: the text
 *
 * Creates an output made of one `input_text` part.
 *
 * Returns: (transfer full): the output
 */
AgentsToolOutput *
agents_tool_output_new_text (const char *text)
{
  AgentsToolOutput *self;

  g_return_val_if_fail (text != NULL, NULL);

  self = agents_tool_output_new ();
  agents_tool_output_add_text (self, text);
  return self;
}

/**
 * agents_tool_output_new_image:
 * @image_url: the image's URL, usually a `data:` URL
 * @detail: (nullable): the detail the model looks at it with (`low`,
 *   `high` or `auto`), or %NULL to leave it to the model
 *
 * Creates an output made of one `input_image` part.
 *
 * Returns: (transfer full): the output
 */
AgentsToolOutput *
agents_tool_output_new_image (const char *image_url, const char *detail)
{
  AgentsToolOutput *self;

  g_return_val_if_fail (image_url != NULL, NULL);

  self = agents_tool_output_new ();
  agents_tool_output_add_image (self, image_url, detail);
  return self;
}

/**
 * agents_tool_output_ref:
 * @self: an output
 *
 * Takes a reference.
 *
 * Returns: (transfer full): @self
 */
AgentsToolOutput *
agents_tool_output_ref (AgentsToolOutput *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/**
 * agents_tool_output_unref:
 * @self: (transfer full): an output
 *
 * Drops a reference.
 */
void
agents_tool_output_unref (AgentsToolOutput *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  json_array_unref (self->parts);
  g_free (self);
}

/**
 * agents_tool_output_add_text:
 * @self: an output
 * @text: the text
 *
 * Appends an `input_text` part.
 */
void
agents_tool_output_add_text (AgentsToolOutput *self, const char *text)
{
  JsonObject *part;

  g_return_if_fail (self != NULL);
  g_return_if_fail (text != NULL);

  part = json_object_new ();
  json_object_set_string_member (part, "type", "input_text");
  json_object_set_string_member (part, "text", text);
  json_array_add_object_element (self->parts, part);
}

/**
 * agents_tool_output_add_image:
 * @self: an output
 * @image_url: the image's URL, usually a `data:` URL
 * @detail: (nullable): `low`, `high` or `auto`, or %NULL to omit it
 *
 * Appends an `input_image` part.
 */
void
agents_tool_output_add_image (AgentsToolOutput *self,
                              const char *image_url,
                              const char *detail)
{
  JsonObject *part;

  g_return_if_fail (self != NULL);
  g_return_if_fail (image_url != NULL);

  part = json_object_new ();
  json_object_set_string_member (part, "type", "input_image");
  json_object_set_string_member (part, "image_url", image_url);
  if (detail != NULL)
    json_object_set_string_member (part, "detail", detail);
  json_array_add_object_element (self->parts, part);
}

/**
 * agents_tool_output_add_image_data:
 * @self: an output
 * @data: the image file's bytes
 * @mime_type: its MIME type, e.g. `image/png`
 * @detail: (nullable): `low`, `high` or `auto`, or %NULL to omit it
 *
 * Appends an `input_image` part whose URL is a base64 `data:` URL of
 * @data.
 */
void
agents_tool_output_add_image_data (AgentsToolOutput *self,
                                   GBytes *data,
                                   const char *mime_type,
                                   const char *detail)
{
  g_autofree char *base64 = NULL;
  g_autofree char *url = NULL;
  gsize size;
  const guchar *bytes;

  g_return_if_fail (self != NULL);
  g_return_if_fail (data != NULL);
  g_return_if_fail (mime_type != NULL);

  bytes = g_bytes_get_data (data, &size);
  base64 = g_base64_encode (bytes, size);
  url = g_strconcat ("data:", mime_type, ";base64,", base64, NULL);
  agents_tool_output_add_image (self, url, detail);
}

/**
 * agents_tool_output_get_n_parts:
 * @self: an output
 *
 * Gets the number of parts.
 *
 * Returns: the number of parts
 */
guint
agents_tool_output_get_n_parts (AgentsToolOutput *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return json_array_get_length (self->parts);
}

/**
 * agents_tool_output_to_json:
 * @self: an output
 *
 * Gets the parts as the model receives them: a JSON array of
 * `input_text` and `input_image` objects.
 *
 * Returns: (transfer full): a new array node
 */
JsonNode *
agents_tool_output_to_json (AgentsToolOutput *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  JsonNode *node = json_node_new (JSON_NODE_ARRAY);

  json_node_take_array (node, agents_run_private_json_array_copy (self->parts));
  return node;
}

/**
 * agents_tool_return_parts:
 * @task: the task of a tool invocation
 * @output: the output
 *
 * Completes the task of a tool invocation with a structured output.
 */
void
agents_tool_return_parts (GTask *task, AgentsToolOutput *output)
{
  g_return_if_fail (G_IS_TASK (task));
  g_return_if_fail (output != NULL);

  g_task_return_pointer (task, agents_tool_output_to_json (output),
                         (GDestroyNotify) json_node_unref);
}

/* ---- Outputs as the model receives them -------------------------------- */

static const char *const image_details[] = { "low", "high", "auto", NULL };

/* Copies the members of @part named in @members that are strings (NULL
 * or absent members are left out); fails on any other type. Returns the
 * number copied, -1 on a wrong type. */
static int
copy_string_members (JsonObject *part,
                     JsonObject *copy,
                     const char *const *members)
{
  int copied = 0;

  for (guint i = 0; members[i] != NULL; i++)
    {
      JsonNode *value = json_object_get_member (part, members[i]);

      if (value == NULL || JSON_NODE_HOLDS_NULL (value))
        continue;
      if (agents_run_private_json_string (part, members[i]) == NULL)
        return -1;
      json_object_set_string_member (
        copy, members[i], agents_run_private_json_string (part, members[i]));
      copied++;
    }
  return copied;
}

static gboolean
valid_image_detail (JsonObject *part)
{
  JsonNode *detail = json_object_get_member (part, "detail");
  const char *value = agents_run_private_json_string (part, "detail");

  if (detail == NULL || JSON_NODE_HOLDS_NULL (detail))
    return TRUE;
  return value != NULL && g_strv_contains (image_details, value);
}

/* The reference's structured output parts (ToolOutputText, ToolOutputImage,
 * ToolOutputFileContent): a copy with only their members, or NULL when
 * @node is not one of them. */
static JsonObject *
normalize_part (JsonNode *node)
{
  static const char *const text_members[] = { "text", NULL };
  static const char *const image_members[] = { "image_url", "file_id", "detail",
                                               NULL };
  static const char *const image_sources[] = { "image_url", "file_id", NULL };
  static const char *const file_members[] = { "file_data", "file_url",
                                              "file_id", "filename", NULL };
  static const char *const file_sources[] = { "file_data", "file_url",
                                              "file_id", NULL };
  g_autoptr (JsonObject) copy = json_object_new ();
  g_autoptr (JsonObject) sources = json_object_new ();
  JsonObject *part;
  const char *type;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  part = json_node_get_object (node);
  type = agents_run_private_json_string (part, "type");
  json_object_set_string_member (copy, "type", type ? type : "");
  if (g_strcmp0 (type, "input_text") == 0)
    return copy_string_members (part, copy, text_members) == 1
             ? g_steal_pointer (&copy)
             : NULL;
  if (g_strcmp0 (type, "input_image") == 0)
    return valid_image_detail (part) &&
               copy_string_members (part, sources, image_sources) > 0 &&
               copy_string_members (part, copy, image_members) > 0
             ? g_steal_pointer (&copy)
             : NULL;
  if (g_strcmp0 (type, "input_file") == 0)
    return copy_string_members (part, sources, file_sources) > 0 &&
               copy_string_members (part, copy, file_members) > 0
             ? g_steal_pointer (&copy)
             : NULL;
  return NULL;
}

static JsonNode *
parts_from_array (JsonArray *array)
{
  g_autoptr (JsonArray) parts = json_array_new ();

  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonObject *part = normalize_part (json_array_get_element (array, i));

      if (part == NULL)
        return NULL;
      json_array_add_object_element (parts, part);
    }
  return json_node_init_array (json_node_alloc (), parts);
}

/* The `output` member of a call output item for a tool's output node, the
 * reference's ItemHelpers._convert_tool_output(): a structured part or a
 * list of them becomes an array of parts; anything else is text. */
JsonNode *
agents_run_private_tool_output_to_wire (JsonNode *output)
{
  g_autofree char *text = NULL;
  JsonNode *parts = NULL;

  if (output != NULL && JSON_NODE_HOLDS_ARRAY (output))
    parts = parts_from_array (json_node_get_array (output));
  else if (output != NULL && JSON_NODE_HOLDS_OBJECT (output))
    {
      g_autoptr (JsonArray) single = json_array_new ();

      json_array_add_element (single, json_node_ref (output));
      parts = parts_from_array (single);
    }
  if (parts != NULL)
    return parts;
  text = agents_run_private_output_to_text (output);
  return json_node_init_string (json_node_alloc (), text);
}
