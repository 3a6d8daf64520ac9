/* fuzz-json-schema.c - libFuzzer harness: function tool arguments
 * checked against a parameters schema, both hostile
 *
 * The input is a schema document, a NUL byte, then an instance document
 * (without a NUL, the instance is `{}`), both read as the runner reads
 * them, by the bounded JSON parser. A schema object is also installed on
 * a function tool, whose model JSON (the schema the model is given) is
 * built from it.
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <agents.h>
#include <string.h>

#include "agents-json-private.h"
#include "agents-json-schema-private.h"

#include "fuzz-common.h"

/* ASan's strstr() measures the whole haystack at every call, which makes
 * GLib's g_strsplit() quadratic under it alone; the library splits long
 * hostile text, so that check would only report timeouts of its own. */
const char *__asan_default_options (void);

const char *
__asan_default_options (void)
{
  return "intercept_strstr=0";
}

static JsonNode *
parse (const guint8 *data, size_t size)
{
  g_autoptr (GError) error = NULL;
  JsonNode *node = agents_json_parse_bounded ((const char *) data, size,
                                              "fuzz document", &error);

  g_assert_true ((node == NULL) != (error == NULL));
  return node;
}

static char *
never_called (AgentsRunContext *ctx,
              const char *arguments,
              gpointer user_data,
              GError **error)
{
  g_assert_not_reached ();
}

/* The tool keeps a copy of the schema and gives it to the model. */
static void
check_tool (JsonObject *schema)
{
  g_autoptr (AgentsTool) tool = NULL;
  g_autoptr (JsonObject) json = NULL;

  tool = AGENTS_TOOL (agents_function_tool_new ("fuzz", "A fuzzed tool", schema,
                                                never_called, NULL, NULL));
  json = agents_tool_to_model_json (tool);
  g_assert_nonnull (json);
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  const guint8 *nul = memchr (data, '\0', size);
  size_t schema_size = nul ? (size_t) (nul - data) : size;
  g_autoptr (JsonNode) schema = NULL;
  g_autoptr (JsonNode) instance = NULL;
  g_autoptr (GString) reason = g_string_new (NULL);
  gboolean valid;

  fuzz_init ();
  schema = parse (data, schema_size);
  if (schema == NULL || !JSON_NODE_HOLDS_OBJECT (schema))
    return 0;
  instance = nul ? parse (nul + 1, size - schema_size - 1)
                 : parse ((const guint8 *) "{}", 2);
  if (instance == NULL)
    return 0;
  valid = agents_json_schema_validate (json_node_get_object (schema), instance,
                                       reason);
  /* A refusal always says why (the model reads it). */
  g_assert_true (valid || reason->len > 0);
  check_tool (json_node_get_object (schema));
  return 0;
}
