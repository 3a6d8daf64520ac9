/* test-json.c - the one bounded entry point for hostile JSON, and the
 * regular-file rule for the files that users name
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "agents-file-private.h"
#include "agents-json-private.h"
#include "test-utils.h"

/* @depth opening brackets (alternating arrays and objects), a value,
 * then the closing ones: a valid document of exactly @depth levels. */
static char *
nested (guint depth)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < depth; i++)
    g_string_append (text, i % 2 ? "{\"k\": " : "[");
  g_string_append (text, "1");
  for (guint i = depth; i > 0; i--)
    g_string_append_c (text, (i - 1) % 2 ? '}' : ']');
  return g_string_free (text, FALSE);
}

static void
assert_refused (const char *text,
                gssize length,
                const char *reason,
                const char *fragment)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) root =
    agents_json_parse_bounded (text, length, "test document", &error);
  g_autoptr (GVariant) ctx = NULL;
  const char *value = NULL;

  g_assert_null (root);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_JSON);
  g_assert_true (g_str_has_prefix (error->message, "test document: "));
  if (strstr (error->message, fragment) == NULL)
    g_error ("“%s” lacks “%s”", error->message, fragment);
  ctx = agents_sandbox_error_get_context (error);
  g_assert_nonnull (ctx);
  g_assert_true (g_variant_lookup (ctx, "reason", "&s", &value));
  g_assert_cmpstr (value, ==, reason);
  g_assert_true (g_variant_lookup (ctx, "document", "&s", &value));
  g_assert_cmpstr (value, ==, "test document");
}

static JsonNode *
parse_ok (const char *text)
{
  g_autoptr (GError) error = NULL;
  JsonNode *root = agents_json_parse_bounded (text, -1, "doc", &error);

  g_assert_no_error (error);
  g_assert_nonnull (root);
  return root;
}

/* 200,000 levels crashed json-glib's recursive parser: refused at once. */
static void
test_deep_refused (void)
{
  g_autofree char *deep = g_strnfill (200000, '[');
  g_autofree char *objects = NULL;
  GString *text = g_string_new (NULL);
  gint64 begin = g_get_monotonic_time ();

  assert_refused (deep, -1, "too_deep", "JSON nested deeper than 512 levels");
  g_assert_cmpint (g_get_monotonic_time () - begin, <, G_USEC_PER_SEC);

  for (guint i = 0; i < 200000; i++)
    g_string_append (text, "{\"a\":");
  objects = g_string_free (text, FALSE);
  assert_refused (objects, -1, "too_deep", "deeper than 512 levels");
}

/* The limit is exact; and a document of the limit's depth can be
 * generated, copied and compared (json-glib recurses there too). */
static void
test_depth_limit (void)
{
  g_autofree char *at_limit = nested (AGENTS_JSON_MAX_DEPTH);
  g_autofree char *beyond = nested (AGENTS_JSON_MAX_DEPTH + 1);
  g_autoptr (JsonNode) root = parse_ok (at_limit);
  g_autoptr (JsonNode) copy = json_node_copy (root);
  g_autofree char *again = json_to_string (copy, FALSE);
  g_autoptr (JsonNode) reparsed = parse_ok (again);

  g_assert_true (json_node_equal (root, copy));
  g_assert_true (json_node_equal (root, reparsed));
  assert_refused (beyond, -1, "too_deep", "deeper than 512 levels");
}

/* Brackets inside strings, after escaped quotes, do not count. */
static void
test_strings_not_counted (void)
{
  GString *text = g_string_new ("[\"");
  g_autofree char *doc = NULL;
  g_autoptr (JsonNode) root = NULL;

  for (guint i = 0; i < 5000; i++)
    g_string_append (text, "[{\\\"\\\\");
  g_string_append (text, "\"]");
  doc = g_string_free (text, FALSE);
  root = parse_ok (doc);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (root));
}

/* json-glib accepts comments and single-quoted strings, in which the
 * scan could not see brackets the way the parser does: refused. */
static void
test_extensions_refused (void)
{
  g_autofree char *hidden = g_strconcat ("/* \" */", "[[[[", NULL);
  static const char nul_text[] = "[\"a\0\"]";

  assert_refused ("{\"a\": /* x */ 1}", -1, "parse_error", "unexpected “/”");
  assert_refused ("['a']", -1, "parse_error", "unexpected “'”");
  assert_refused (hidden, -1, "parse_error", "not JSON");
  assert_refused (nul_text, sizeof nul_text - 1, "parse_error",
                  "unexpected “\\x00”");
  assert_refused ("\xef\xbb\xbf[1]", -1, "parse_error", "unexpected “\\xef”");
  assert_refused ("[1, @]", -1, "parse_error", "invalid JSON");
  /* json-glib would end the string at a \u0000 without a word. */
  assert_refused ("{\"cmd\": \"ls\\u0000; rm -rf x\"}", -1, "parse_error",
                  "a NUL character (\\u0000) in a string at byte 11");
  {
    /* Where losing the rest is better than failing (a model's text). */
    g_autoptr (JsonNode) root = agents_json_parse_bounded_allowing_nul (
      "[\"ab\\u0000c\"]", -1, "test document", NULL);

    g_assert_cmpstr (
      json_array_get_string_element (json_node_get_array (root), 0), ==, "ab");
  }
  /* Inside double-quoted strings they are only characters. */
  g_clear_pointer (&hidden, g_free);
  {
    /* An escaped backslash, then the text "u0000". */
    g_autoptr (JsonNode) root = parse_ok ("[\"a\\\\u0000\"]");

    g_assert_cmpstr (
      json_array_get_string_element (json_node_get_array (root), 0), ==,
      "a\\u0000");
  }
  {
    g_autoptr (JsonNode) root = parse_ok ("[\"/* it's */\"]");

    g_assert_cmpstr (
      json_array_get_string_element (json_node_get_array (root), 0), ==,
      "/* it's */");
  }
}

/* json-glib reads value after value, keeps the last and leaks the others
 * (found by tests/fuzz/fuzz-agent-file): one value per document. */
static void
test_one_value (void)
{
  static const char *const seconds[] = {
    "\"\"[[[[[[[]]]]]]]", "[1] [2]",     "{}[]", "1 2", "1[2]",
    "true\"x\"",          "\"a\" \"b\"", "{} x",
  };
  static const char *const singles[] = {
    "1", " -1.5e3 ", "true", "null", "\"s\"", " [1, [2]] ", "{\"a\": {}}\n",
  };

  for (guint i = 0; i < G_N_ELEMENTS (seconds); i++)
    assert_refused (seconds[i], -1, "parse_error", "a second value at byte");
  for (guint i = 0; i < G_N_ELEMENTS (singles); i++)
    {
      g_autoptr (JsonNode) root = parse_ok (singles[i]);
    }
}

static void
test_size_and_syntax (void)
{
  gsize big_size = AGENTS_JSON_MAX_SIZE + 1;
  g_autofree char *big = g_malloc (big_size + 1);

  memset (big, ' ', big_size);
  big[0] = '1';
  big[big_size] = '\0';
  assert_refused (big, -1, "too_large", "larger than");
  assert_refused (big, big_size, "too_large", "larger than");

  assert_refused ("", -1, "empty", "the document is empty");
  assert_refused ("  ", -1, "empty", "the document is empty");
  assert_refused ("{\"a\": ", -1, "parse_error", "invalid JSON");
  /* An explicit length is obeyed. */
  {
    g_autoptr (JsonNode) root = NULL;
    g_autoptr (GError) error = NULL;

    root = agents_json_parse_bounded ("[1]garbage", 3, "doc", &error);
    g_assert_no_error (error);
    g_assert_true (JSON_NODE_HOLDS_ARRAY (root));
  }
}

/* Manifest.new_from_data crashed at 100,000 levels. */
static void
test_manifest_deep (void)
{
  for (guint depth = 100000; depth <= 200000; depth += 100000)
    {
      g_autofree char *brackets = g_strnfill (depth, '[');
      g_autofree char *doc =
        g_strconcat ("{\"entries\": {\"a\": ", brackets, NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (AgentsManifest) manifest =
        agents_manifest_new_from_data (doc, -1, &error);

      g_assert_null (manifest);
      g_assert_error (error, AGENTS_SANDBOX_ERROR,
                      AGENTS_SANDBOX_ERROR_INVALID_JSON);
      g_assert_nonnull (
        strstr (error->message, "manifest: JSON nested deeper than 512"));
    }
}

static void
on_alarm (int sig)
{
  /* A regression blocks in open(): fail instead of hanging the suite. */
  static const char message[] = "Bail out! blocked on a FIFO\n";

  (void) sig;
  (void) !write (STDOUT_FILENO, message, sizeof message - 1);
  _exit (1);
}

/* A FIFO blocks a reader until a writer comes: refused at once. */
static void
test_file_fifo_refused (void)
{
  g_autofree char *dir = g_dir_make_tmp ("test-json-XXXXXX", NULL);
  g_autofree char *fifo = g_build_filename (dir, "fifo.json", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) root = NULL;
  char *contents = NULL;

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  signal (SIGALRM, on_alarm);
  alarm (10);
  root = agents_json_load_file (fifo, "agent file", &error);
  alarm (0);
  g_assert_null (root);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE);
  g_assert_true (g_str_has_prefix (error->message, "agent file "));
  g_assert_nonnull (strstr (error->message, "fifo.json: not a regular file"));
  g_clear_error (&error);

  alarm (10);
  g_assert_false (
    agents_file_read_regular (fifo, 1024, &contents, NULL, &error));
  alarm (0);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE);
  g_assert_null (contents);
  g_clear_error (&error);

  /* A directory and a device neither. */
  g_assert_false (
    agents_file_read_regular (dir, 1024, &contents, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE);
  g_clear_error (&error);
  g_assert_false (
    agents_file_read_regular ("/dev/zero", 1024, &contents, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE);
  g_clear_error (&error);

  g_unlink (fifo);
  g_rmdir (dir);
}

static void
test_file_read (void)
{
  g_autofree char *dir = g_dir_make_tmp ("test-json-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "doc.json", NULL);
  g_autofree char *link = g_build_filename (dir, "link.json", NULL);
  g_autofree char *deep_path = g_build_filename (dir, "deep.json", NULL);
  g_autofree char *deep = g_strnfill (200000, '[');
  g_autoptr (GError) error = NULL;
  g_autofree char *contents = NULL;
  gsize length = 0;
  int fd;

  g_assert_true (g_file_set_contents (path, "{\"a\": [1, 2]}", -1, NULL));
  g_assert_true (
    agents_file_read_regular (path, 1024, &contents, &length, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (length, ==, 13);
  g_assert_cmpstr (contents, ==, "{\"a\": [1, 2]}");
  g_clear_pointer (&contents, g_free);

  /* Larger than the caller allows: refused before reading. */
  g_assert_false (agents_file_read_regular (path, 12, &contents, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE);
  g_assert_nonnull (strstr (error->message, "larger than 12 bytes"));
  g_clear_error (&error);

  /* A symlink to a regular file is followed, unless told not to. */
  g_assert_cmpint (symlink (path, link), ==, 0);
  {
    g_autoptr (JsonNode) root =
      agents_json_load_file (link, "agent file", &error);

    g_assert_no_error (error);
    g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  }
  fd = agents_file_open_regular (link, TRUE, NULL, &error);
  g_assert_cmpint (fd, ==, -1);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_LINKS);
  g_clear_error (&error);

  /* A deep file names itself in the error. */
  g_assert_true (g_file_set_contents (deep_path, deep, -1, NULL));
  {
    g_autoptr (JsonNode) root =
      agents_json_load_file (deep_path, "scripted turns file", &error);
    g_autofree char *expected =
      g_strdup_printf ("scripted turns file %s: JSON nested deeper than "
                       "512 levels",
                       deep_path);

    g_assert_null (root);
    g_assert_error (error, AGENTS_SANDBOX_ERROR,
                    AGENTS_SANDBOX_ERROR_INVALID_JSON);
    g_assert_cmpstr (error->message, ==, expected);
  }

  g_unlink (deep_path);
  g_unlink (link);
  g_unlink (path);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/json/deep-refused", test_deep_refused);
  g_test_add_func ("/json/depth-limit", test_depth_limit);
  g_test_add_func ("/json/strings-not-counted", test_strings_not_counted);
  g_test_add_func ("/json/extensions-refused", test_extensions_refused);
  g_test_add_func ("/json/one-value", test_one_value);
  g_test_add_func ("/json/size-and-syntax", test_size_and_syntax);
  g_test_add_func ("/json/manifest-deep", test_manifest_deep);
  g_test_add_func ("/json/file/fifo-refused", test_file_fifo_refused);
  g_test_add_func ("/json/file/read", test_file_read);
  return g_test_run ();
}
