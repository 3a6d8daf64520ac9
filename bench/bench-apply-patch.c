/* bench-apply-patch.c - apply_patch on a 10,000-line file
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A 10,000-line file (about 400 KB) in a real unix_local workspace; a V4A
 * patch with three hunks (near the start, the middle and the end, three
 * lines of context each) is applied, then its inverse, alternately, so
 * the file never grows. Measured, interleaved, in one process:
 *
 *  - `apply_patch`: the filesystem capability's `apply_patch` tool, as the
 *    runner calls it (parse, path checks, read through the session, the
 *    V4A algorithm, write through the session);
 *  - `diff-only`: the V4A algorithm alone on the text in memory;
 *  - `baseline`: what any edit of the file costs at least: read it and
 *    write it back through the same session.
 *
 * Goal (issue #11): apply_patch ≤ 10 ms. Not a test: `meson test` does
 * not run it; see docs/performance.md.
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "agents-apply-diff-private.h"
#include "agents-filesystem-tools-private.h"
#include "agents-unix-local-client.h"
#include "agents.h"

#define N_LINES 10000
#define GOAL_MS 10.0

static int opt_reps = 200;

static GOptionEntry entries[] = {
  { "reps", 'n', 0, G_OPTION_ARG_INT, &opt_reps, "Repetitions (200)", "N" },
  { NULL },
};

static void
on_ready (GObject *source, GAsyncResult *result, gpointer user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static void
await (GAsyncResult **slot)
{
  while (*slot == NULL)
    g_main_context_iteration (NULL, TRUE);
}

#define AWAIT(slot, call)     \
  G_STMT_START                \
  {                           \
    g_clear_object (&(slot)); \
    call;                     \
    await (&(slot));          \
  }                           \
  G_STMT_END

static void
check (GError *error, const char *what)
{
  if (error == NULL)
    return;
  g_printerr ("bench-apply-patch: %s: %s\n", what, error->message);
  exit (1);
}

static char *
line_text (int i, const char *word)
{
  return g_strdup_printf ("line %05d: the quick brown fox, %s", i, word);
}

static char *
file_text (void)
{
  GString *text = g_string_new (NULL);

  for (int i = 0; i < N_LINES; i++)
    {
      g_autofree char *line = line_text (i, "alpha");

      g_string_append_printf (text, "%s\n", line);
    }
  return g_string_free (text, FALSE);
}

/* One hunk turning line @at's @from into @to, three lines of context. */
static void
append_hunk (GString *patch, int at, const char *from, const char *to)
{
  g_string_append (patch, "@@\n");
  for (int i = at - 3; i < at; i++)
    {
      g_autofree char *line = line_text (i, "alpha");

      g_string_append_printf (patch, " %s\n", line);
    }
  {
    g_autofree char *old_line = line_text (at, from);
    g_autofree char *new_line = line_text (at, to);

    g_string_append_printf (patch, "-%s\n+%s\n", old_line, new_line);
  }
  for (int i = at + 1; i <= at + 3; i++)
    {
      g_autofree char *line = line_text (i, "alpha");

      g_string_append_printf (patch, " %s\n", line);
    }
}

static char *
hunks (const char *from, const char *to)
{
  GString *diff = g_string_new (NULL);
  const int at[] = { 100, N_LINES / 2, N_LINES - 100 };

  for (guint i = 0; i < G_N_ELEMENTS (at); i++)
    append_hunk (diff, at[i], from, to);
  return g_string_free (diff, FALSE);
}

static char *
envelope (const char *from, const char *to)
{
  g_autofree char *body = hunks (from, to);

  return g_strdup_printf ("*** Begin Patch\n*** Update File: big.txt\n%s"
                          "*** End Patch",
                          body);
}

/* The process's CPU time (all threads), in ms: on a loaded machine the
 * wall clock mostly measures waiting for a core. */
static double last_cpu_ms;

static double
cpu_now_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

static double cpu_start_ms;

static gint64
start_clocks (void)
{
  cpu_start_ms = cpu_now_ms ();
  return g_get_monotonic_time ();
}

static double
ms_since (gint64 start)
{
  last_cpu_ms = cpu_now_ms () - cpu_start_ms;
  return (g_get_monotonic_time () - start) / 1000.0;
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static void
report (const char *name, double *samples, double *cpu, int n)
{
  qsort (samples, n, sizeof *samples, compare_doubles);
  qsort (cpu, n, sizeof *cpu, compare_doubles);
  printf ("%-12s wall median %7.3f  p90 %7.3f  min %7.3f | cpu median %7.3f "
          "ms\n",
          name, samples[n / 2], samples[n * 9 / 10], samples[0], cpu[n / 2]);
}

static const char *
load_average (void)
{
  static char text[128] = "unknown\n";
  FILE *file = fopen ("/proc/loadavg", "r");

  if (file != NULL)
    {
      if (fgets (text, sizeof text, file) == NULL)
        strcpy (text, "unknown\n");
      fclose (file);
    }
  return text;
}

static double
time_tool (AgentsTool *tool, AgentsRunContext *ctx, const char *patch)
{
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) output = NULL;
  gint64 start = start_clocks ();
  double ms;

  AWAIT (res, agents_tool_invoke_async (tool, ctx, "call", patch, NULL,
                                        on_ready, &res));
  output = agents_tool_invoke_finish (tool, res, &error);
  ms = ms_since (start);
  check (error, "apply_patch");
  if (g_strcmp0 (json_node_get_string (output), "Updated big.txt") != 0)
    {
      g_printerr ("bench-apply-patch: unexpected output: %s\n",
                  json_node_get_string (output));
      exit (1);
    }
  return ms;
}

static double
time_read_write (AgentsSandboxSession *session)
{
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = NULL;
  gint64 start = start_clocks ();
  double ms;

  AWAIT (res, agents_sandbox_session_read_bytes_async (session, "big.txt", NULL,
                                                       NULL, on_ready, &res));
  bytes = agents_sandbox_session_read_bytes_finish (session, res, &error);
  check (error, "read");
  AWAIT (res, agents_sandbox_session_write_bytes_async (
                session, "big.txt", bytes, NULL, NULL, on_ready, &res));
  agents_sandbox_session_write_bytes_finish (session, res, &error);
  ms = ms_since (start);
  check (error, "write");
  return ms;
}

static double
time_diff (const char *input, const char *diff)
{
  g_autoptr (GError) error = NULL;
  gint64 start = start_clocks ();
  g_autofree char *out =
    agents_apply_diff (input, diff, AGENTS_APPLY_DIFF_UPDATE, &error);
  double ms = ms_since (start);

  check (error, "apply_diff");
  return ms;
}

static AgentsSandboxSession *
open_session (AgentsSandboxClient *client, const char *root)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GError) error = NULL;
  AgentsSandboxSession *session;

  agents_manifest_set_root (manifest, root);
  AWAIT (res, agents_sandbox_client_create_async (client, manifest, NULL, NULL,
                                                  NULL, on_ready, &res));
  session = agents_sandbox_client_create_finish (client, res, &error);
  check (error, "create");
  AWAIT (res,
         agents_sandbox_session_start_async (session, NULL, on_ready, &res));
  agents_sandbox_session_start_finish (session, res, &error);
  check (error, "start");
  return session;
}

static void
close_session (AgentsSandboxClient *client, AgentsSandboxSession *session)
{
  g_autoptr (GAsyncResult) res = NULL;

  AWAIT (res,
         agents_sandbox_session_close_async (session, NULL, on_ready, &res));
  agents_sandbox_session_close_finish (session, res, NULL);
  AWAIT (res, agents_sandbox_client_delete_async (client, session, NULL,
                                                  on_ready, &res));
  agents_sandbox_client_delete_finish (client, res, NULL);
}

int
main (int argc, char *argv[])
{
  g_autoptr (GOptionContext) options = g_option_context_new (NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *root = NULL;
  g_autofree char *path = NULL;
  g_autofree char *text = file_text ();
  g_autofree char *forward = envelope ("alpha", "beta");
  g_autofree char *backward = envelope ("beta", "alpha");
  g_autofree char *forward_diff = hunks ("alpha", "beta");
  g_autoptr (AgentsSandboxClient) client = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (AgentsCapability) filesystem = NULL;
  g_autoptr (AgentsTool) tool = NULL;
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);
  g_autofree double *tool_ms = NULL;
  g_autofree double *diff_ms = NULL;
  g_autofree double *base_ms = NULL;
  g_autofree double *tool_cpu = NULL;
  g_autofree double *diff_cpu = NULL;
  g_autofree double *base_cpu = NULL;
  double tool_median;

  g_setenv ("AGENTS_DISABLE_PLUGINS", "1", TRUE);
  g_option_context_add_main_entries (options, entries, NULL);
  if (!g_option_context_parse (options, &argc, &argv, &error) || opt_reps < 2)
    {
      g_printerr ("bench-apply-patch: %s\n",
                  error ? error->message : "--reps must be at least 2");
      return 2;
    }

  root = g_dir_make_tmp ("bench-apply-patch-XXXXXX", &error);
  check (error, "tmp dir");
  path = g_build_filename (root, "big.txt", NULL);
  g_file_set_contents (path, text, -1, &error);
  check (error, "write big.txt");
  client = agents_unix_local_client_new ();
  session = open_session (client, root);
  filesystem = agents_filesystem_capability_new ();
  agents_capability_bind (filesystem, session);
  tool = agents_apply_patch_tool_new (filesystem);

  tool_ms = g_new (double, opt_reps);
  diff_ms = g_new (double, opt_reps);
  base_ms = g_new (double, opt_reps);
  tool_cpu = g_new (double, opt_reps);
  diff_cpu = g_new (double, opt_reps);
  base_cpu = g_new (double, opt_reps);
  /* Warm-up: caches, the confinement probe. */
  time_tool (tool, ctx, forward);
  time_tool (tool, ctx, backward);
  time_read_write (session);
  for (int i = 0; i < opt_reps; i++)
    {
      tool_ms[i] = time_tool (tool, ctx, i % 2 ? backward : forward);
      tool_cpu[i] = last_cpu_ms;
      diff_ms[i] = time_diff (text, forward_diff);
      diff_cpu[i] = last_cpu_ms;
      base_ms[i] = time_read_write (session);
      base_cpu[i] = last_cpu_ms;
    }

  printf ("apply_patch on a %d-line file (%zu bytes), 3 hunks, %d reps\n",
          N_LINES, strlen (text), opt_reps);
  report ("apply_patch", tool_ms, tool_cpu, opt_reps);
  report ("diff-only", diff_ms, diff_cpu, opt_reps);
  report ("baseline", base_ms, base_cpu, opt_reps);
  tool_median = tool_ms[opt_reps / 2];
  printf ("load average %s", load_average ());
  printf ("apply_patch − baseline (wall medians): %.3f ms; goal ≤ %.0f ms "
          "(wall median): %s\n",
          tool_median - base_ms[opt_reps / 2], GOAL_MS,
          tool_median <= GOAL_MS ? "met" : "NOT met");

  close_session (client, session);
  g_unlink (path);
  g_rmdir (root);
  return 0;
}
