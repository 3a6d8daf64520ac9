/* bench-workspace.c - the deterministic workspace both sandbox
 * benchmarks build (bench-unix-local, bench-docker)
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "bench-workspace.h"

static void G_GNUC_PRINTF (1, 2) G_GNUC_NORETURN die (const char *format, ...)
{
  va_list ap;

  va_start (ap, format);
  fprintf (stderr, "%s: ", program_invocation_short_name);
  vfprintf (stderr, format, ap);
  fputc ('\n', stderr);
  va_end (ap);
  exit (1);
}

/* xorshift64*: deterministic, fast, good enough for file content. */
guint64
bench_rng_next (guint64 *state)
{
  guint64 x = *state;

  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return x * G_GUINT64_CONSTANT (0x2545F4914F6CDD1D);
}

/* Many small files, a twentieth of medium ones (16-144 KiB), one in 500
 * large (several MB) taking what the total leaves. */
static guint64 *
plan_sizes (guint n, guint64 total)
{
  guint64 *sizes = g_new0 (guint64, n);
  guint n_large = MAX (1, n / 500);
  guint n_medium = MIN (n / 20, n - n_large);
  guint64 state = 0x9E3779B97F4A7C15;
  guint64 rest = 0, weights = 0, assigned = 0;

  for (guint i = n_large; i < n; i++)
    {
      sizes[i] = i < n_large + n_medium
                   ? 16384 + bench_rng_next (&state) % 131072
                   : bench_rng_next (&state) % 4096;
      rest += sizes[i];
    }
  /* Small workspaces: small and medium files take half of the total. */
  if (rest > total / 2)
    {
      double scale = (double) (total / 2) / rest;

      rest = 0;
      for (guint i = n_large; i < n; i++)
        rest += sizes[i] = (guint64) (sizes[i] * scale);
    }
  for (guint i = 0; i < n_large; i++)
    weights += sizes[i] = 3 + bench_rng_next (&state) % 6;
  for (guint i = 0; i < n_large; i++)
    {
      guint64 share = (total - rest) * sizes[i] / weights;

      sizes[i] = i + 1 < n_large ? share : total - rest - assigned;
      assigned += share;
    }
  return sizes;
}

static char *
plan_dir (guint64 *state)
{
  guint top = bench_rng_next (state) % 16;
  guint mid = bench_rng_next (state) % 12;
  guint leaf = bench_rng_next (state) % 6;

  switch (bench_rng_next (state) % 4)
    {
    case 0:
      return g_strdup_printf ("t%02u", top);
    case 1:
      return g_strdup_printf ("t%02u/m%02u", top, mid);
    case 2:
      return g_strdup_printf ("t%02u/m%02u/l%u", top, mid, leaf);
    default:
      return g_strdup_printf ("t%02u/m%02u/l%u/deep", top, mid, leaf);
    }
}

void
bench_write_file (const char *path,
                  guint64 size,
                  guint64 seed,
                  guint64 *buffer,
                  gsize buffer_size)
{
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  guint64 state = seed * 2 + 1;

  if (fd < 0)
    die ("create %s: %s", path, g_strerror (errno));
  while (size > 0)
    {
      gsize chunk = MIN (size, buffer_size);

      for (gsize w = 0; w < (chunk + 7) / 8; w++)
        buffer[w] = bench_rng_next (&state);
      if (write (fd, buffer, chunk) != (gssize) chunk)
        die ("write %s: %s", path, g_strerror (errno));
      size -= chunk;
    }
  close (fd);
}

/* Creates @dir and the ancestors not seen yet. */
static void
make_dirs (const char *root, const char *dir, GHashTable *seen)
{
  g_autofree char *path = NULL;
  g_autofree char *parent = NULL;

  if (g_str_equal (dir, ".") || g_hash_table_contains (seen, dir))
    return;
  parent = g_path_get_dirname (dir);
  make_dirs (root, parent, seen);
  path = g_build_filename (root, dir, NULL);
  if (g_mkdir (path, 0755) < 0 && errno != EEXIST)
    die ("mkdir %s: %s", path, g_strerror (errno));
  g_hash_table_add (seen, g_strdup (dir));
}

WorkspaceInfo
bench_generate_workspace (const char *root, guint n_files, guint64 total)
{
  static const char *const exts[] = { "c", "h", "py", "json", "md", "txt" };
  g_autofree guint64 *sizes = plan_sizes (n_files, total);
  g_autoptr (GHashTable) seen =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gsize buffer_size = 1 << 20;
  g_autofree guint64 *buffer = g_malloc (buffer_size);
  guint64 state = 0xC0FFEE;
  WorkspaceInfo info = { 0 };

  for (guint i = 0; i < n_files; i++)
    {
      g_autofree char *dir = plan_dir (&state);
      g_autofree char *name = NULL;
      g_autofree char *path = NULL;

      make_dirs (root, dir, seen);
      name = g_strdup_printf (
        "f%05u.%s", i,
        sizes[i] > (1 << 20) ? "bin" : exts[i % G_N_ELEMENTS (exts)]);
      path = g_build_filename (root, dir, name, NULL);
      bench_write_file (path, sizes[i], i + 1, buffer, buffer_size);
      info.bytes += sizes[i];
      info.largest = MAX (info.largest, sizes[i]);
    }
  info.files = n_files;
  info.dirs = g_hash_table_size (seen);
  return info;
}
