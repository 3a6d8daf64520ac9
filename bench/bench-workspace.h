/* bench-workspace.h - the deterministic workspace both sandbox
 * benchmarks build (bench-unix-local, bench-docker)
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  guint files;
  guint dirs;
  guint64 bytes;
  guint64 largest;
} WorkspaceInfo;

/* xorshift64*: deterministic, fast, good enough for file content. */
guint64 bench_rng_next (guint64 *state);

/* Writes @size bytes of content seeded by @seed to @path, through
 * @buffer (@buffer_size bytes). */
void bench_write_file (const char *path,
                       guint64 size,
                       guint64 seed,
                       guint64 *buffer,
                       gsize buffer_size);

/* Fills @root with @n_files files of @total bytes in all, in a tree of
 * directories; the same tree for the same arguments. */
WorkspaceInfo
bench_generate_workspace (const char *root, guint n_files, guint64 total);

G_END_DECLS
