/* test-sse.c - the incremental server-sent events parser
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "agents-sse-parser.h"
#include "test-utils.h"

/* Each event as "TYPE|DATA", TYPE "-" when absent. */
static gboolean
collect (const char *event,
         const char *data,
         gsize data_len,
         gpointer user_data,
         GError **error)
{
  GPtrArray *events = user_data;

  g_assert_cmpuint (strlen (data), ==, data_len);
  g_ptr_array_add (events,
                   g_strdup_printf ("%s|%s", event ? event : "-", data));
  return TRUE;
}

/* Feeds @stream in chunks of @chunk bytes (0: all at once). */
static GPtrArray *
parse_chunked (const char *stream, gsize chunk, gsize limit, GError **error)
{
  GPtrArray *events = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (AgentsSseParser) parser =
    agents_sse_parser_new (limit, collect, events);
  gsize len = strlen (stream);

  if (chunk == 0)
    chunk = len ? len : 1;
  for (gsize off = 0; off < len; off += chunk)
    if (!agents_sse_parser_feed (parser, stream + off, MIN (chunk, len - off),
                                 error))
      break;
  return events;
}

static void
assert_events (const char *stream, const char *const *expected)
{
  gsize len = strlen (stream);

  /* Every chunk size splits the stream at every place once: inside CRLF,
   * inside UTF-8 sequences, inside field names. */
  for (gsize chunk = 1; chunk <= len; chunk++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (GPtrArray) events =
        parse_chunked (stream, chunk, 1024, &error);

      g_assert_no_error (error);
      g_assert_cmpuint (events->len, ==, g_strv_length ((char **) expected));
      for (guint i = 0; i < events->len; i++)
        g_assert_cmpstr (events->pdata[i], ==, expected[i]);
    }
}

static void
test_sse_basic (void)
{
  const char *expected[] = { "response.created|{\"a\":1}",
                             "response.done|{\"b\":2}", NULL };

  assert_events ("event: response.created\ndata: {\"a\":1}\n\n"
                 "event: response.done\ndata: {\"b\":2}\n\n",
                 expected);
}

static void
test_sse_line_endings (void)
{
  const char *expected[] = { "x|1", "y|2", "z|3", NULL };

  assert_events ("event: x\r\ndata: 1\r\n\r\n"
                 "event: y\rdata: 2\r\r"
                 "event: z\ndata: 3\r\n\n",
                 expected);
}

static void
test_sse_comments_and_fields (void)
{
  const char *expected[] = { "-|[DONE]", "-|line one\nline two", "-|",
                             "-|nospace", NULL };

  /* Comments (keep-alive pings), id/retry, events without data (not
   * dispatched), multi-line data, an empty data field, no space after
   * the colon. */
  assert_events (": ping\n\n"
                 "id: 7\nretry: 100\n\n"
                 "event: lonely\n\n"
                 "data: [DONE]\n\n"
                 "data: line one\ndata: line two\n\n"
                 "data\n\n"
                 "data:nospace\n\n",
                 expected);
}

static void
test_sse_utf8 (void)
{
  const char *expected[] = { "-|{\"t\":\"héllo → 世界 🎉\"}", NULL };

  assert_events ("data: {\"t\":\"héllo → 世界 🎉\"}\n\n", expected);
}

static void
test_sse_invalid_utf8 (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) events =
    parse_chunked ("data: \xff\xfe\n\n", 0, 1024, &error);

  g_assert_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_MODEL_BEHAVIOR);
  g_assert_cmpuint (events->len, ==, 0);
}

static void
test_sse_limit (void)
{
  g_autoptr (GString) stream = g_string_new ("data: ");
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) events = NULL;

  /* 100 bytes of data pass a limit of 128 whatever the reads... */
  for (int i = 0; i < 100; i++)
    g_string_append_c (stream, 'a' + i % 26);
  g_string_append (stream, "\n\n");
  for (gsize chunk = 1; chunk < 40; chunk += 7)
    {
      g_autoptr (GPtrArray) ok =
        parse_chunked (stream->str, chunk, 128, &error);

      g_assert_no_error (error);
      g_assert_cmpuint (ok->len, ==, 1);
    }
  /* ...but not a limit of 64, whether the line is whole or in pieces. */
  for (gsize chunk = 0; chunk < 40; chunk += 13)
    {
      g_autoptr (GPtrArray) bad =
        parse_chunked (stream->str, chunk, 64, &error);

      g_assert_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_MODEL_BEHAVIOR);
      g_assert_nonnull (strstr (error->message, "larger than the limit of 64"));
      g_assert_cmpuint (bad->len, ==, 0);
      g_clear_error (&error);
    }
  /* Many data lines add up too. */
  events = parse_chunked (
    "data: 0123456789\ndata: 0123456789\ndata: 0123456789\n\n", 5, 24, &error);
  g_assert_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_MODEL_BEHAVIOR);
}

static void
test_sse_partial (void)
{
  GPtrArray *events = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (AgentsSseParser) parser =
    agents_sse_parser_new (1024, collect, events);
  g_autoptr (GError) error = NULL;

  g_assert_false (agents_sse_parser_has_partial_event (parser));
  g_assert_true (
    agents_sse_parser_feed (parser, "data: 1\n\ndata: 2", 16, &error));
  g_assert_cmpuint (events->len, ==, 1);
  g_assert_true (agents_sse_parser_has_partial_event (parser));
  g_assert_true (agents_sse_parser_feed (parser, "\n", 1, &error));
  g_assert_true (agents_sse_parser_has_partial_event (parser));
  g_assert_true (agents_sse_parser_feed (parser, "\n", 1, &error));
  g_assert_false (agents_sse_parser_has_partial_event (parser));
  g_assert_cmpuint (agents_sse_parser_get_n_events (parser), ==, 2);
  g_ptr_array_unref (events);
}

static gboolean
stop_at_second (const char *event,
                const char *data,
                gsize data_len,
                gpointer user_data,
                GError **error)
{
  int *count = user_data;

  if (++*count == 2)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, "stop");
      return FALSE;
    }
  return TRUE;
}

static void
test_sse_callback_stops (void)
{
  int count = 0;
  g_autoptr (AgentsSseParser) parser =
    agents_sse_parser_new (1024, stop_at_second, &count);
  g_autoptr (GError) error = NULL;
  const char *stream = "data: 1\n\ndata: 2\n\ndata: 3\n\n";

  g_assert_false (
    agents_sse_parser_feed (parser, stream, strlen (stream), &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_FAILED);
  g_assert_cmpint (count, ==, 2);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/sse/basic", test_sse_basic);
  g_test_add_func ("/sse/line-endings", test_sse_line_endings);
  g_test_add_func ("/sse/comments-and-fields", test_sse_comments_and_fields);
  g_test_add_func ("/sse/utf8", test_sse_utf8);
  g_test_add_func ("/sse/invalid-utf8", test_sse_invalid_utf8);
  g_test_add_func ("/sse/limit", test_sse_limit);
  g_test_add_func ("/sse/partial", test_sse_partial);
  g_test_add_func ("/sse/callback-stops", test_sse_callback_stops);
  return g_test_run ();
}
