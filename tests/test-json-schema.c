/* test-json-schema.c - the JSON schema validator of structured outputs
 * (libagents/run/agents-json-schema.c), on its own
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <json-glib/json-glib.h>

#include "agents-json-schema-private.h"
#include "test-utils.h"

static JsonNode *
parse (const char *text)
{
  g_autoptr (GError) error = NULL;
  JsonNode *node = json_from_string (text, &error);

  g_assert_no_error (error);
  g_assert_nonnull (node);
  return node;
}

/* Validates @value against @schema; @reason is the expected failure, or
 * %NULL when the value must conform. */
static void
assert_validates (const char *schema, const char *value, const char *reason)
{
  g_autoptr (JsonNode) schema_node = parse (schema);
  g_autoptr (JsonNode) value_node = parse (value);
  g_autoptr (GString) why = g_string_new (NULL);
  gboolean ok;

  g_assert_true (JSON_NODE_HOLDS_OBJECT (schema_node));
  ok = agents_json_schema_validate (json_node_get_object (schema_node),
                                    value_node, why);
  /* On success @why may hold what a failed anyOf branch said. */
  if (reason == NULL)
    g_assert_true (ok);
  else
    {
      g_assert_false (ok);
      g_assert_cmpstr (why->str, ==, reason);
    }
}

static void
test_types (void)
{
  assert_validates ("{\"type\": \"string\"}", "\"x\"", NULL);
  assert_validates ("{\"type\": \"string\"}", "1", "$: expected string");
  assert_validates ("{\"type\": \"integer\"}", "3", NULL);
  assert_validates ("{\"type\": \"integer\"}", "3.0", NULL);
  assert_validates ("{\"type\": \"integer\"}", "3.5", "$: expected integer");
  assert_validates ("{\"type\": \"number\"}", "3.5", NULL);
  assert_validates ("{\"type\": \"number\"}", "true", "$: expected number");
  assert_validates ("{\"type\": \"boolean\"}", "false", NULL);
  assert_validates ("{\"type\": \"null\"}", "null", NULL);
  assert_validates ("{\"type\": \"null\"}", "0", "$: expected null");
  assert_validates ("{\"type\": \"array\"}", "{}", "$: expected array");
  assert_validates ("{\"type\": \"object\"}", "[]", "$: expected object");
  assert_validates ("{\"type\": [\"string\", \"null\"]}", "null", NULL);
  assert_validates ("{\"type\": [\"string\", \"null\"]}", "1",
                    "$: unexpected type");
  /* Whole numbers beyond gint64 are integers, too (no undefined cast). */
  assert_validates ("{\"type\": \"integer\"}", "1e300", NULL);
  assert_validates ("{\"type\": \"integer\"}", "-1e19", NULL);
  assert_validates ("{\"type\": \"integer\"}", "-9223372036854775808.0", NULL);
  /* Unknown types and schemas without a type accept anything. */
  assert_validates ("{\"type\": \"decimal\"}", "1", NULL);
  assert_validates ("{}", "[1, {\"a\": null}]", NULL);
}

static void
test_enum_const (void)
{
  assert_validates ("{\"enum\": [\"a\", 2, null]}", "2", NULL);
  assert_validates ("{\"enum\": [\"a\", 2, null]}", "\"b\"",
                    "$: not one of the allowed values");
  assert_validates ("{\"const\": {\"k\": 1}}", "{\"k\": 1}", NULL);
  assert_validates ("{\"const\": {\"k\": 1}}", "{\"k\": 2}",
                    "$: not the constant value");
}

static void
test_objects (void)
{
  const char *schema =
    "{\"type\": \"object\", \"required\": [\"name\", \"tags\"],"
    " \"additionalProperties\": false,"
    " \"properties\": {\"name\": {\"type\": \"string\"},"
    "  \"tags\": {\"type\": \"array\", \"items\": {\"type\": \"string\"}}}}";

  assert_validates (schema, "{\"name\": \"n\", \"tags\": [\"a\", \"b\"]}",
                    NULL);
  assert_validates (schema, "{\"name\": \"n\"}", "$: missing member “tags”");
  assert_validates (schema, "{\"name\": 1, \"tags\": []}",
                    "$.name: expected string");
  assert_validates (schema, "{\"name\": \"n\", \"tags\": [\"a\", 2]}",
                    "$.tags[1]: expected string");
  assert_validates (schema, "{\"name\": \"n\", \"tags\": [], \"x\": 0}",
                    "$.x: unexpected member");
  /* additionalProperties as a schema checks the other members. */
  assert_validates ("{\"additionalProperties\": {\"type\": \"integer\"}}",
                    "{\"a\": 1, \"b\": \"2\"}", "$.b: expected integer");
}

static void
test_combinators (void)
{
  const char *any = "{\"anyOf\": [{\"type\": \"string\"}, {\"type\": "
                    "\"integer\"}]}";

  assert_validates (any, "\"s\"", NULL);
  assert_validates (any, "4", NULL);
  assert_validates (any, "true", "$: matches none of “anyOf”");
  assert_validates ("{\"oneOf\": [{\"type\": \"null\"}]}", "1",
                    "$: matches none of “oneOf”");
  assert_validates ("{\"allOf\": [{\"type\": \"integer\"}, {\"enum\": [1]}]}",
                    "2", "$: not one of the allowed values");
  assert_validates ("{\"allOf\": [{\"type\": \"integer\"}, {\"enum\": [1]}]}",
                    "1", NULL);
}

static void
test_refs (void)
{
  const char *schema =
    "{\"$defs\": {\"Node\": {\"type\": \"object\","
    "  \"properties\": {\"next\": {\"anyOf\": [{\"$ref\": \"#/$defs/Node\"},"
    "   {\"type\": \"null\"}]}, \"v\": {\"type\": \"integer\"}}}},"
    " \"$ref\": \"#/$defs/Node\"}";

  assert_validates (schema, "{\"v\": 1, \"next\": {\"v\": 2, \"next\": null}}",
                    NULL);
  assert_validates (schema, "{\"v\": \"1\"}", "$.v: expected integer");
  assert_validates ("{\"$ref\": \"#/definitions/Missing\"}", "1",
                    "$: unresolved reference #/definitions/Missing");
  assert_validates ("{\"$ref\": \"http://example.com/s.json\"}", "1",
                    "$: unresolved reference http://example.com/s.json");
}

/* A schema that refers to itself must not recurse without end. */
static void
test_self_reference (void)
{
  assert_validates ("{\"$ref\": \"#\"}", "1", "$: unresolved reference #");
  assert_validates ("{\"$defs\": {\"A\": {\"$ref\": \"#/$defs/A\"}},"
                    " \"$ref\": \"#/$defs/A\"}",
                    "1", "$: the schema nests too deep");
}

/* Nesting in the value is bounded through the schema: each level of this
 * array costs two steps (the reference, then the items), so the check
 * stops 32 levels down, at a depth of 64 steps. */
static void
test_deep_value (void)
{
  g_autoptr (GString) value = g_string_new (NULL);
  g_autoptr (GString) reason = g_string_new ("$");

  for (guint i = 0; i < 100; i++)
    g_string_append (value, "[");
  for (guint i = 0; i < 100; i++)
    g_string_append (value, "]");
  for (guint i = 0; i < 32; i++)
    g_string_append (reason, "[0]");
  g_string_append (reason, ": the schema nests too deep");
  assert_validates ("{\"$defs\": {\"L\": {\"type\": \"array\","
                    " \"items\": {\"$ref\": \"#/$defs/L\"}}},"
                    " \"$ref\": \"#/$defs/L\"}",
                    value->str, reason->str);
}

/* anyOf over self-references branches at every level: 2^32 paths within
 * the depth limit. The work is bounded instead (fuzz-json-schema). */
static void
test_branching_reference (void)
{
  assert_validates (
    "{\"$defs\": {\"A\": {\"anyOf\": [{\"$ref\": \"#/$defs/A\"},"
    " {\"$ref\": \"#/$defs/A\"}]}}, \"$ref\": \"#/$defs/A\"}",
    "1", "$: the schema takes too long to check");
  assert_validates ("{\"anyOf\": [{\"$ref\": \"#/\"}, {\"$ref\": \"#/\"}]}",
                    "1", "$: the schema takes too long to check");
}

/* Comparing with a const or an enum value costs its size: under anyOf
 * over self-references, a large const met on every path is bounded by
 * the budget too. */
static void
test_branching_large_const (void)
{
  g_autoptr (GString) big = g_string_new ("[");
  g_autofree char *value = NULL;
  g_autofree char *schema = NULL;

  for (guint i = 0; i < 20000; i++)
    g_string_append_printf (big, "%s%u", i ? ", " : "", i % 7);
  value = g_strconcat (big->str, ", 1]", NULL);
  g_string_append (big, ", 2]");
  schema =
    g_strdup_printf ("{\"$defs\": {\"A\": {\"anyOf\": [{\"const\": %s},"
                     " {\"$ref\": \"#/$defs/A\"}, {\"$ref\": \"#/$defs/A\"}]}},"
                     " \"$ref\": \"#/$defs/A\"}",
                     big->str);
  assert_validates (schema, value, "$: the schema takes too long to check");
  /* Without the branching, the same comparison is a plain mismatch. */
  g_free (schema);
  schema = g_strdup_printf ("{\"enum\": [%s]}", big->str);
  assert_validates (schema, value, "$: not one of the allowed values");
}

/* The budget leaves room for large values that conform. */
static void
test_large_value (void)
{
  g_autoptr (GString) value = g_string_new ("[");

  for (guint i = 0; i < 100000; i++)
    g_string_append_printf (value, "%s{\"n\": %u}", i ? ", " : "", i);
  g_string_append (value, "]");
  assert_validates ("{\"type\": \"array\", \"items\": {\"type\": \"object\","
                    " \"required\": [\"n\"], \"additionalProperties\": false,"
                    " \"properties\": {\"n\": {\"type\": \"integer\"}}}}",
                    value->str, NULL);
}

/* A reason's path is cut at 256 bytes, on a character boundary. */
static void
test_long_path (void)
{
  g_autoptr (GString) name = g_string_new (NULL);
  g_autoptr (GString) reason = g_string_new ("$.");
  g_autofree char *value = NULL;

  for (guint i = 0; i < 300; i++)
    g_string_append (name, "é");
  for (guint i = 0; i < 127; i++)
    g_string_append (reason, "é");
  g_string_append (reason, "…: unexpected member");
  value = g_strdup_printf ("{\"%s\": 1}", name->str);
  assert_validates ("{\"additionalProperties\": false}", value, reason->str);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/json-schema/types", test_types);
  g_test_add_func ("/json-schema/enum-const", test_enum_const);
  g_test_add_func ("/json-schema/objects", test_objects);
  g_test_add_func ("/json-schema/combinators", test_combinators);
  g_test_add_func ("/json-schema/refs", test_refs);
  g_test_add_func ("/json-schema/self-reference", test_self_reference);
  g_test_add_func ("/json-schema/deep-value", test_deep_value);
  g_test_add_func ("/json-schema/branching-reference",
                   test_branching_reference);
  g_test_add_func ("/json-schema/branching-large-const",
                   test_branching_large_const);
  g_test_add_func ("/json-schema/large-value", test_large_value);
  g_test_add_func ("/json-schema/long-path", test_long_path);
  return g_test_run ();
}
