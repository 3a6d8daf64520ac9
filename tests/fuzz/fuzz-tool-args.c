/* fuzz-tool-args.c - libFuzzer harness: the argument strings a model
 * sends to the built-in sandbox tools, read before any session is
 * touched
 *
 * The first byte picks the target, the rest is its input:
 *   0  exec_command's arguments
 *   1  write_stdin's arguments
 *   2  the shell and filesystem capabilities' arguments (read_file,
 *      write_file, …): an object with string members `path`, `content`
 *   3  view_image's arguments
 *   4  an image file as view_image reads it: a path, a NUL byte, then
 *      the file's bytes, sniffed and turned into a data URL part
 *   5  a tool's output JSON as it is turned into the call output the
 *      model reads
 *
 * Paths (`workdir`, `path`) are also resolved as the tools resolve them
 * from a run cwd, by the default manifest's path policy.
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <agents.h>
#include <string.h>

#include "agents-builtin-capabilities-private.h"
#include "agents-capability-private.h"
#include "agents-filesystem-tools-private.h"
#include "agents-json-private.h"
#include "agents-sandbox-error.h"
#include "agents-shell-tools-private.h"
#include "run/agents-run-private.h"

#include "fuzz-common.h"

/* A parser's result: a value, or an INVALID_ARGUMENT error the model
 * reads. */
static void
check_outcome (gconstpointer result, const GError *error)
{
  g_assert_true ((result == NULL) != (error == NULL));
  if (error != NULL)
    {
      g_assert_true (error->domain == AGENTS_SANDBOX_ERROR);
      g_assert_true (g_utf8_validate (error->message, -1, NULL));
    }
}

/* A path argument as the tools resolve it, from a run cwd, by the
 * default manifest's policy: refused, or a normalized absolute path
 * inside the workspace root. */
static void
check_path (const char *path)
{
  static AgentsManifest *manifest;
  AgentsToolBinding binding = { NULL, NULL, (char *) "sub/dir" };
  g_autofree char *anchored = agents_tool_binding_anchor (&binding, path);
  g_autoptr (GError) error = NULL;
  g_autofree char *resolved = NULL;
  g_autofree char *canonical = NULL;
  const char *root;

  if (manifest == NULL)
    manifest = agents_manifest_new ();
  root = agents_manifest_get_root (manifest);
  resolved = agents_manifest_resolve_path (manifest, anchored, &error);
  g_assert_true ((resolved == NULL) != (error == NULL));
  if (resolved == NULL)
    {
      g_assert_error (error, AGENTS_SANDBOX_ERROR,
                      AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH);
      return;
    }
  canonical = g_canonicalize_filename (resolved, "/");
  g_assert_cmpstr (resolved, ==, canonical);
  g_assert_true (
    g_str_equal (resolved, root) ||
    (g_str_has_prefix (resolved, root) && resolved[strlen (root)] == '/'));
}

static void
check_common_bounds (gint64 yield_time_ms, gint64 max_output_tokens)
{
  g_assert_cmpint (yield_time_ms, >=, 0);
  g_assert_cmpfloat (yield_time_ms, <=, AGENTS_SHELL_MAX_INTEGER_ARGUMENT);
  g_assert_true (max_output_tokens == -1 || max_output_tokens >= 1);
  g_assert_cmpfloat (max_output_tokens, <=, AGENTS_SHELL_MAX_INTEGER_ARGUMENT);
}

static void
fuzz_exec_args (const char *arguments)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsExecArgs) args = agents_exec_args_parse (arguments, &error);

  check_outcome (args, error);
  if (args == NULL)
    return;
  g_assert_nonnull (args->cmd);
  g_assert_cmpstr (args->cmd, !=, "");
  g_assert_true (args->shell == NULL || args->shell[0] != '\0');
  if (args->workdir != NULL)
    check_path (args->workdir);
  check_common_bounds (args->yield_time_ms, args->max_output_tokens);
}

static void
fuzz_write_args (const char *arguments)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsWriteArgs) args =
    agents_write_args_parse (arguments, &error);

  check_outcome (args, error);
  if (args == NULL)
    return;
  g_assert_cmpfloat (args->session_id, >=, -AGENTS_SHELL_MAX_INTEGER_ARGUMENT);
  g_assert_cmpfloat (args->session_id, <=, AGENTS_SHELL_MAX_INTEGER_ARGUMENT);
  check_common_bounds (args->yield_time_ms, args->max_output_tokens);
}

static void
fuzz_builtin_args (const char *arguments)
{
  const char *const names[] = { "path", "content", NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonObject) args =
    agents_builtin_parse_arguments (arguments, &error);

  check_outcome (args, error);
  if (args == NULL)
    return;
  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autoptr (GError) member_error = NULL;
      const char *value =
        agents_builtin_get_string_argument (args, names[i], &member_error);

      check_outcome (value, member_error);
      if (value != NULL && g_str_equal (names[i], "path"))
        check_path (value);
    }
}

static void
fuzz_view_image_args (const char *arguments)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = agents_view_image_parse_path (arguments, &error);

  check_outcome (path, error);
  if (path == NULL)
    return;
  g_assert_cmpstr (path, !=, "");
  check_path (path);
}

/* The part view_image returns: a data URL of the sniffed type whose
 * base64 gives back the file's bytes. */
static void
fuzz_image (const guint8 *data, size_t size)
{
  const guint8 *nul = memchr (data, '\0', size);
  g_autofree char *path = nul ? fuzz_strndup (data, nul - data) : NULL;
  const guint8 *file = nul ? nul + 1 : data;
  gsize file_size = nul ? size - (nul - data) - 1 : size;
  const char *mime = agents_sniff_image_type (file, file_size, path);
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (AgentsToolOutput) output = NULL;
  g_autoptr (JsonNode) json = NULL;
  g_autofree char *prefix = NULL;
  g_autofree guchar *decoded = NULL;
  JsonObject *part;
  const char *url;
  gsize decoded_size;

  if (mime == NULL)
    return;
  g_assert_true (g_str_has_prefix (mime, "image/"));
  bytes = g_bytes_new_static (file, file_size);
  output = agents_tool_output_new ();
  agents_tool_output_add_image_data (output, bytes, mime, NULL);
  g_assert_cmpuint (agents_tool_output_get_n_parts (output), ==, 1);
  json = agents_tool_output_to_json (output);
  part = json_array_get_object_element (json_node_get_array (json), 0);
  g_assert_cmpstr (json_object_get_string_member (part, "type"), ==,
                   "input_image");
  url = json_object_get_string_member (part, "image_url");
  prefix = g_strconcat ("data:", mime, ";base64,", NULL);
  g_assert_true (g_str_has_prefix (url, prefix));
  decoded = g_base64_decode (url + strlen (prefix), &decoded_size);
  g_assert_cmpmem (decoded, decoded_size, file, file_size);
}

static void
check_wire_part (JsonNode *node)
{
  static const char *const types[] = { "input_text", "input_image",
                                       "input_file", NULL };
  JsonObject *part;

  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  part = json_node_get_object (node);
  g_assert_true (
    g_strv_contains (types, json_object_get_string_member (part, "type")));
}

/* What the model reads: a string, or an array of parts of known types. */
static void
fuzz_tool_output (const char *text)
{
  g_autoptr (JsonNode) output =
    agents_json_parse_bounded (text, -1, NULL, NULL);
  g_autoptr (JsonNode) wire = NULL;
  g_autofree char *serialized = NULL;

  if (output == NULL)
    return;
  wire = agents_run_private_tool_output_to_wire (output);
  g_assert_nonnull (wire);
  if (JSON_NODE_HOLDS_ARRAY (wire))
    {
      JsonArray *parts = json_node_get_array (wire);

      for (guint i = 0; i < json_array_get_length (parts); i++)
        check_wire_part (json_array_get_element (parts, i));
    }
  else
    g_assert_true (JSON_NODE_HOLDS_VALUE (wire) &&
                   json_node_get_value_type (wire) == G_TYPE_STRING);
  serialized = json_to_string (wire, FALSE);
  g_assert_nonnull (serialized);
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  g_autofree char *text = NULL;

  fuzz_init ();
  if (size == 0)
    return 0;
  text = fuzz_strndup (data + 1, size - 1);
  switch (data[0] % 6)
    {
    case 0:
      fuzz_exec_args (text);
      break;
    case 1:
      fuzz_write_args (text);
      break;
    case 2:
      fuzz_builtin_args (text);
      break;
    case 3:
      fuzz_view_image_args (text);
      break;
    case 4:
      fuzz_image (data + 1, size - 1);
      break;
    default:
      fuzz_tool_output (text);
      break;
    }
  return 0;
}
