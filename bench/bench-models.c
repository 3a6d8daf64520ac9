/* bench-models.c - streaming a long model answer over loopback HTTP
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: bench-models MODEL_SERVER [--mb N] [--calls N] [--phase text|calls]
 *
 * Generates two Responses streams in a temporary directory: N MB of
 * `response.output_text.delta` events (text), and N function calls
 * (output_item.added, one arguments delta, output_item.done each), and
 * serves them from the loopback model server (tests/model-server, another
 * process, so the CPU measured here is the client's). For each it
 * measures, in a child process of its own (so peak RSS is the stream's):
 *
 *  - `curl -N` of the same request: time to first byte and total;
 *  - AgentsOpenAIResponsesModel streaming it into a sink: time to the
 *    first event, total, client CPU (user+sys), peak RSS, events;
 *  - the SSE parser alone over the same bytes in memory (MB/s).
 *
 * Not a test: `meson test` does not run it; see docs/performance.md.
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "agents-openai-private.h"
#include "agents-sse-parser.h"
#include "agents.h"

static int opt_mb = 10;
static int opt_calls = 1000;
static char *opt_phase;

typedef struct
{
  gint64 start;
  gint64 first_event;
  guint64 events;
  gboolean done;
} Measure;

static double
cpu_seconds (void)
{
  struct rusage usage;

  getrusage (RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 +
         usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

static long
peak_rss_kb (void)
{
  struct rusage usage;

  getrusage (RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

static void
append_event (GString *out, int seq, const char *type, const char *json)
{
  g_string_append_printf (out,
                          "event: %s\ndata: {\"type\":\"%s\","
                          "\"sequence_number\":%d,%s}\n\n",
                          type, type, seq, json);
}

static char *
text_stream (gsize bytes)
{
  GString *out = g_string_new (NULL);
  const char *words = "The quick brown fox jumps over the lazy dog; ";
  g_autoptr (GString) delta = g_string_new (NULL);
  int seq = 0;

  append_event (out, seq++, "response.created",
                "\"response\":{\"id\":\"r\",\"output\":[]}");
  append_event (out, seq++, "response.output_item.added",
                "\"output_index\":0,\"item\":{\"id\":\"m\",\"type\":"
                "\"message\",\"role\":\"assistant\",\"content\":[]}");
  for (int i = 0; i < 4; i++)
    g_string_append (delta, words);
  while (out->len < bytes)
    {
      g_autofree char *json = g_strdup_printf (
        "\"item_id\":\"m\",\"output_index\":0,\"content_index\":0,"
        "\"delta\":\"%s\",\"logprobs\":[]",
        delta->str);

      append_event (out, seq++, "response.output_text.delta", json);
    }
  append_event (out, seq++, "response.completed",
                "\"response\":{\"id\":\"r\",\"output\":[{\"id\":\"m\","
                "\"type\":\"message\",\"role\":\"assistant\",\"content\":"
                "[{\"type\":\"output_text\",\"text\":\"(elided)\"}]}]}");
  return g_string_free (out, FALSE);
}

static char *
calls_stream (int calls)
{
  GString *out = g_string_new (NULL);
  int seq = 0;

  append_event (out, seq++, "response.created",
                "\"response\":{\"id\":\"r\",\"output\":[]}");
  for (int i = 0; i < calls; i++)
    {
      g_autofree char *added = g_strdup_printf (
        "\"output_index\":%d,\"item\":{\"id\":\"fc_%d\",\"type\":"
        "\"function_call\",\"call_id\":\"call_%d\",\"name\":"
        "\"exec_command\",\"arguments\":\"\"}",
        i, i, i);
      g_autofree char *delta =
        g_strdup_printf ("\"item_id\":\"fc_%d\",\"output_index\":%d,\"delta\":"
                         "\"{\\\"cmd\\\":\\\"ls %d\\\"}\"",
                         i, i, i);
      g_autofree char *done = g_strdup_printf (
        "\"output_index\":%d,\"item\":{\"id\":\"fc_%d\",\"type\":"
        "\"function_call\",\"call_id\":\"call_%d\",\"name\":"
        "\"exec_command\",\"arguments\":\"{\\\"cmd\\\":\\\"ls %d\\\"}\"}",
        i, i, i, i);

      append_event (out, seq++, "response.output_item.added", added);
      append_event (out, seq++, "response.function_call_arguments.delta",
                    delta);
      append_event (out, seq++, "response.output_item.done", done);
    }
  append_event (out, seq++, "response.completed",
                "\"response\":{\"id\":\"r\",\"output\":[]}");
  return g_string_free (out, FALSE);
}

/* ---- the server ------------------------------------------------------ */

typedef struct
{
  GPid pid;
  int stdin_fd;
  char *url;
} Server;

static void
server_start (Server *server,
              const char *program,
              const char *dir,
              const char *exchanges)
{
  const char *argv[] = { program, dir, exchanges, NULL };
  g_autoptr (GError) error = NULL;
  int out_fd;
  char line[256] = { 0 };
  FILE *out;

  if (!g_spawn_async_with_pipes (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT,
                                 NULL, NULL, &server->pid, &server->stdin_fd,
                                 &out_fd, NULL, &error))
    g_error ("%s", error->message);
  out = fdopen (out_fd, "r");
  if (fgets (line, sizeof line, out) == NULL)
    g_error ("the model server printed no URL");
  g_strchomp (line);
  server->url = g_strdup (line);
  fclose (out);
}

static void
server_stop (Server *server)
{
  int status;

  close (server->stdin_fd);
  waitpid (server->pid, &status, 0);
  g_free (server->url);
}

/* ---- measurements ---------------------------------------------------- */

#define ROUNDS 21

static int
compare_doubles (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a;
  double y = *(const double *) b;

  return (x > y) - (x < y);
}

static double
median (double *values, guint n)
{
  qsort (values, n, sizeof *values, compare_doubles);
  return values[n / 2];
}

/* With descriptors left open GLib spawns with posix_spawn (vfork), not
 * fork: a fork marks this process's pages copy-on-write, and the next
 * client round would pay the page faults (5–6 ms here) in its time to
 * the first event. */
#define CURL_SPAWN_FLAGS (G_SPAWN_SEARCH_PATH | G_SPAWN_LEAVE_DESCRIPTORS_OPEN)

static void
run_curl (const char *url, double *first, double *total)
{
  g_autofree char *endpoint = g_strconcat (url, "/responses", NULL);
  const char *argv[] = { "curl",
                         "-N",
                         "-s",
                         "-o",
                         "/dev/null",
                         "-w",
                         "%{time_starttransfer} %{time_total}",
                         "-H",
                         "Content-Type: application/json",
                         "-H",
                         "Accept: text/event-stream",
                         "-d",
                         "{\"model\":\"bench\",\"input\":[],\"stream\":true}",
                         endpoint,
                         NULL };
  g_autofree char *out = NULL;
  g_autoptr (GError) error = NULL;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, CURL_SPAWN_FLAGS, NULL, NULL,
                     &out, NULL, NULL, &error))
    g_error ("%s", error->message);
  if (sscanf (out, "%lf %lf", first, total) != 2)
    g_error ("curl said “%s”", out);
}

static void
on_event (AgentsModelEventSink *sink, JsonObject *event, gpointer user_data)
{
  Measure *m = user_data;

  if (m->events++ == 0)
    m->first_event = g_get_monotonic_time ();
}

static void
stream_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Measure *m = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsModelResponse) response =
    agents_model_stream_response_finish (AGENTS_MODEL (source), result, &error);

  if (response == NULL)
    g_error ("%s", error->message);
  m->done = TRUE;
}

static double
run_client (const char *url, const char *label, gsize bytes, gboolean quiet)
{
  g_autoptr (AgentsOpenAIProvider) provider = agents_openai_provider_new ();
  g_autoptr (AgentsOpenAIResponsesModel) model = NULL;
  g_autoptr (AgentsModelRequest) request = agents_model_request_new ();
  g_autoptr (AgentsModelEventSink) sink = agents_model_event_sink_new ();
  Measure m = { 0 };
  double cpu0;
  double cpu;
  double seconds;

  agents_openai_provider_set_base_url (provider, url);
  model = agents_openai_responses_model_new ("bench", provider);
  g_signal_connect (sink, "event", G_CALLBACK (on_event), &m);
  cpu0 = cpu_seconds ();
  m.start = g_get_monotonic_time ();
  agents_model_stream_response_async (AGENTS_MODEL (model), request, sink, NULL,
                                      stream_done, &m);
  while (!m.done)
    g_main_context_iteration (NULL, TRUE);
  seconds = (g_get_monotonic_time () - m.start) / 1e6;
  cpu = cpu_seconds () - cpu0;
  if (quiet)
    return (m.first_event - m.start) / 1e3;
  g_print (
    "{\"phase\":\"%s\",\"client\":\"libagents\",\"bytes\":%" G_GSIZE_FORMAT
    ",\"events\":%" G_GUINT64_FORMAT ",\"first_event_ms\":%.3f,"
    "\"total_s\":%.3f,\"cpu_s\":%.3f,\"cpu_ms_per_mb\":%.2f,"
    "\"cpu_us_per_event\":%.2f,\"peak_rss_kb\":%ld}\n",
    label, bytes, m.events, (m.first_event - m.start) / 1e3, seconds, cpu,
    cpu * 1e3 / (bytes / 1048576.0), cpu * 1e6 / m.events, peak_rss_kb ());
  return (m.first_event - m.start) / 1e3;
}

static gboolean
count_event (const char *event,
             const char *data,
             gsize len,
             gpointer user_data,
             GError **error)
{
  (*(guint64 *) user_data)++;
  return TRUE;
}

/* The parser alone, in 64 KiB pieces as the client reads; the best of
 * five passes (the machine is shared). */
static void
run_parser (const char *label, const char *text)
{
  gsize len = strlen (text);
  guint64 events = 0;
  double best = G_MAXDOUBLE;

  for (guint pass = 0; pass < 5; pass++)
    {
      g_autoptr (AgentsSseParser) parser =
        agents_sse_parser_new (16 * 1024 * 1024, count_event, &events);
      gint64 start = g_get_monotonic_time ();

      events = 0;
      for (gsize off = 0; off < len; off += 65536)
        agents_sse_parser_feed (parser, text + off, MIN (65536, len - off),
                                NULL);
      best = MIN (best, (g_get_monotonic_time () - start) / 1e6);
    }
  g_print (
    "{\"phase\":\"%s\",\"client\":\"sse-parser\",\"bytes\":%" G_GSIZE_FORMAT
    ",\"events\":%" G_GUINT64_FORMAT ",\"mb_per_s\":%.1f}\n",
    label, len, events, len / 1048576.0 / best);
}

/* In a child process: the files are already written, so the peak RSS
 * is the client's alone. */
static void
run_phase (const char *server_program, const char *dir, const char *phase)
{
  g_autofree char *name = g_strconcat (phase, ".sse", NULL);
  g_autofree char *sse = g_build_filename (dir, name, NULL);
  g_autofree char *exchanges = g_build_filename (dir, phase, NULL);
  g_autofree char *one = g_strdup_printf ("{\"body\": \"%s\"}", name);
  g_autoptr (GString) list = g_string_new ("[");
  double curl_first[ROUNDS];
  double client_first[ROUNDS];
  g_autofree char *text = NULL;
  GStatBuf st;
  Server server = { 0 };
  double first;
  double total;

  for (guint i = 0; i < 2 * ROUNDS; i++)
    g_string_append_printf (list, "%s%s", i ? ", " : "", one);
  g_string_append (list, "]");
  g_file_set_contents (exchanges, list->str, -1, NULL);
  g_stat (sse, &st);
  server_start (&server, server_program, dir, exchanges);
  run_curl (server.url, &first, &total);
  curl_first[0] = first * 1e3;
  g_print ("{\"phase\":\"%s\",\"client\":\"curl -N\",\"bytes\":%zu,"
           "\"first_byte_ms\":%.3f,\"total_s\":%.3f}\n",
           phase, (gsize) st.st_size, first * 1e3, total);
  client_first[0] = run_client (server.url, phase, st.st_size, FALSE);
  /* Time to first event is mostly the server's and the scheduler's on a
   * shared machine: more rounds, in alternating order, and medians. */
  for (guint round = 1; round < ROUNDS; round++)
    {
      if (round % 2)
        client_first[round] = run_client (server.url, phase, st.st_size, TRUE);
      run_curl (server.url, &first, &total);
      curl_first[round] = first * 1e3;
      if (round % 2 == 0)
        client_first[round] = run_client (server.url, phase, st.st_size, TRUE);
    }
  server_stop (&server);
  g_print ("{\"phase\":\"%s\",\"rounds\":%d,\"curl_first_byte_ms_median\":"
           "%.3f,\"first_event_ms_median\":%.3f}\n",
           phase, ROUNDS, median (curl_first, ROUNDS),
           median (client_first, ROUNDS));
  g_file_get_contents (sse, &text, NULL, NULL);
  run_parser (phase, text);
  g_unlink (exchanges);
}

static void
write_stream (const char *dir, const char *phase, char *text)
{
  g_autofree char *name = g_strconcat (phase, ".sse", NULL);
  g_autofree char *path = g_build_filename (dir, name, NULL);

  g_file_set_contents (path, text, -1, NULL);
  g_free (text);
}

int
main (int argc, char **argv)
{
  g_autofree char *opt_dir = NULL;
  const GOptionEntry entries[] = {
    { "mb", 0, 0, G_OPTION_ARG_INT, &opt_mb, "MB of text deltas", "N" },
    { "calls", 0, 0, G_OPTION_ARG_INT, &opt_calls, "function calls", "N" },
    { "phase", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, &opt_phase, NULL,
      NULL },
    { "dir", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME, &opt_dir, NULL,
      NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context =
    g_option_context_new ("MODEL_SERVER - stream model answers");
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = NULL;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || argc != 2)
    {
      g_printerr ("Usage: bench-models MODEL_SERVER [--mb N] [--calls N]\n");
      return 2;
    }
  g_setenv ("AGENTS_DISABLE_PLUGINS", "1", TRUE);
  g_unsetenv ("OPENAI_API_KEY");
  if (opt_phase != NULL)
    {
      run_phase (argv[1], opt_dir, opt_phase);
      return 0;
    }
  dir = g_dir_make_tmp ("bench-models-XXXXXX", NULL);
  write_stream (dir, "text", text_stream ((gsize) opt_mb * 1048576));
  write_stream (dir, "calls", calls_stream (opt_calls));
  /* Each phase in a child of its own: its peak RSS is its own. */
  for (guint i = 0; i < 2; i++)
    {
      const char *phase = i == 0 ? "text" : "calls";
      g_autofree char *phase_arg = g_strdup_printf ("--phase=%s", phase);
      g_autofree char *dir_arg = g_strdup_printf ("--dir=%s", dir);
      g_autofree char *name = g_strconcat (phase, ".sse", NULL);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      const char *child[] = { "/proc/self/exe", phase_arg, dir_arg, argv[1],
                              NULL };
      int status;

      if (!g_spawn_sync (NULL, (char **) child, NULL,
                         G_SPAWN_CHILD_INHERITS_STDIN, NULL, NULL, NULL, NULL,
                         &status, &error))
        g_error ("%s", error->message);
      g_unlink (path);
    }
  g_rmdir (dir);
  return 0;
}
