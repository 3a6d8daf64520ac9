/* bench-prompt.c - the cost per turn of the manifest's prompt sections
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every turn of a sandbox agent asks for the two sections of its system
 * prompt that depend on the session's manifest: the filesystem layout
 * (agents_sandbox_filesystem_instructions()) and the remote mount policy
 * (agents_sandbox_remote_mount_policy()). For manifests of 100, 1,000
 * and 10,000 files (by default `file_N` at the root, as bench-sandbox-run
 * makes them; with --dirs, spread over directories of 100), measures in
 * one process, interleaved:
 *
 *  - `turn`: both sections for an unchanged manifest, what every turn
 *    after the first pays;
 *  - `rebuild`: both sections after a change of the manifest (an entry's
 *    description toggled), what the first turn after a change pays;
 *  - `baseline`: copying the same finished texts (g_strdup()), the least
 *    a turn can do to have them.
 *
 * Goal: the `turn` cost independent of the manifest's size, i.e. its
 * ratio to the baseline the same at every size.
 *
 * Not a test: `meson test` does not run it; see docs/performance.md.
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glib.h>

#include "agents.h"
#include "agents-s3-mount.h"

static int opt_reps = 5;
static gboolean opt_dirs;
static char *opt_sizes;

static GOptionEntry entries[] = {
  { "reps", 'r', 0, G_OPTION_ARG_INT, &opt_reps,
    "Timed rounds per variant, interleaved (5)", "N" },
  { "dirs", 0, 0, G_OPTION_ARG_NONE, &opt_dirs,
    "Spread the files over directories of 100", NULL },
  { "sizes", 0, 0, G_OPTION_ARG_STRING, &opt_sizes,
    "Comma-separated file counts (100,1000,10000)", "LIST" },
  G_OPTION_ENTRY_NULL
};

static gint64
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (gint64) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static double
load_average (void)
{
  g_autofree char *text = NULL;

  if (!g_file_get_contents ("/proc/loadavg", &text, NULL, NULL))
    return -1;
  return g_ascii_strtod (text, NULL);
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static double
median (double *values, guint n)
{
  qsort (values, n, sizeof (double), compare_doubles);
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/* @files files, and one read-only mount so that the policy is not empty. */
static AgentsManifest *
make_manifest (guint files, AgentsManifestEntry **first)
{
  AgentsManifest *manifest = agents_manifest_new ();
  g_autoptr (AgentsMountPattern) pattern =
    agents_mountpoint_mount_pattern_new ();
  g_autoptr (AgentsMountStrategy) strategy =
    agents_in_container_mount_strategy_new (pattern);
  g_autoptr (AgentsManifestEntry) mount =
    agents_s3_mount_new ("bucket", strategy);

  for (guint i = 0; i < files; i++)
    {
      g_autoptr (AgentsManifestEntry) file = agents_file_new_from_text ("x");
      g_autofree char *path = opt_dirs
                                ? g_strdup_printf ("dir_%u/file_%u", i / 100, i)
                                : g_strdup_printf ("file_%u", i);

      agents_manifest_set_entry (manifest, path, file);
      if (i == 0)
        *first = file;
    }
  agents_mount_set_read_only (AGENTS_MOUNT (mount), TRUE);
  agents_manifest_set_entry (manifest, "remote", mount);
  return manifest;
}

/* Both sections, as a turn asks for them; returns their length. */
static gsize
sections (AgentsManifest *manifest)
{
  g_autofree char *filesystem =
    agents_sandbox_filesystem_instructions (manifest);
  g_autofree char *policy = agents_sandbox_remote_mount_policy (manifest);

  return strlen (filesystem) + (policy ? strlen (policy) : 0);
}

typedef enum
{
  VARIANT_TURN,
  VARIANT_REBUILD,
  VARIANT_BASELINE,
  N_VARIANTS
} Variant;

/* Mean ns per call of @variant over about 50 ms (at least 5 calls). */
static double
time_variant (Variant variant,
              AgentsManifest *manifest,
              AgentsManifestEntry *first,
              const char *filesystem,
              const char *policy)
{
  gint64 start = now_ns (), spent = 0;
  guint n = 0;
  volatile gsize sink = 0;

  while (n < 5 || spent < 50000000)
    {
      gint64 t;

      if (variant == VARIANT_REBUILD)
        agents_manifest_entry_set_description (first, n % 2 ? "a" : "b");
      t = now_ns ();
      if (variant == VARIANT_BASELINE)
        {
          g_autofree char *a = g_strdup (filesystem);
          g_autofree char *b = g_strdup (policy);

          sink += strlen (a) + strlen (b);
        }
      else
        sink += sections (manifest);
      spent += now_ns () - t;
      n++;
      if (now_ns () - start > 5000000000)
        break;
    }
  (void) sink;
  return (double) spent / n;
}

int
main (int argc, char **argv)
{
  g_autoptr (GOptionContext) context =
    g_option_context_new ("- the cost per turn of the prompt's sections");
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) sizes = NULL;

  g_setenv ("AGENTS_DISABLE_PLUGINS", "1", TRUE);
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "bench-prompt: %s\n", error->message);
      return 2;
    }
  sizes = g_strsplit (opt_sizes ? opt_sizes : "100,1000,10000", ",", -1);
  printf ("bench-prompt: %s, %d rounds per variant; load average %.2f\n",
          opt_dirs ? "files in directories of 100" : "files at the root",
          opt_reps, load_average ());
  printf ("%8s %10s %12s %12s %12s %8s %8s\n", "files", "bytes", "turn us",
          "rebuild us", "baseline us", "turn/bl", "rebuild/bl");

  for (guint s = 0; sizes[s] != NULL; s++)
    {
      guint files = (guint) g_ascii_strtoull (sizes[s], NULL, 10);
      AgentsManifestEntry *first = NULL;
      g_autoptr (AgentsManifest) manifest = make_manifest (files, &first);
      g_autofree char *filesystem =
        agents_sandbox_filesystem_instructions (manifest);
      g_autofree char *policy = agents_sandbox_remote_mount_policy (manifest);
      g_autofree double *times = g_new0 (double, N_VARIANTS *opt_reps);
      double med[N_VARIANTS];

      for (int r = 0; r < opt_reps; r++)
        for (guint k = 0; k < N_VARIANTS; k++)
          {
            Variant v = (k + r) % N_VARIANTS; /* rotating order */

            times[v * opt_reps + r] =
              time_variant (v, manifest, first, filesystem, policy);
          }
      for (guint v = 0; v < N_VARIANTS; v++)
        med[v] = median (times + v * opt_reps, opt_reps);
      printf ("%8u %10zu %12.2f %12.2f %12.2f %8.2f %8.1f\n", files,
              strlen (filesystem) + strlen (policy), med[VARIANT_TURN] / 1e3,
              med[VARIANT_REBUILD] / 1e3, med[VARIANT_BASELINE] / 1e3,
              med[VARIANT_TURN] / med[VARIANT_BASELINE],
              med[VARIANT_REBUILD] / med[VARIANT_BASELINE]);
    }
  printf ("load average after: %.2f\n", load_average ());
  return 0;
}
