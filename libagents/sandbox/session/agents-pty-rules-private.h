/* agents-pty-rules-private.h - the limits of interactive processes
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The reference's PTY process table rules (pty_types.py, wave2-reference
 * §1.4), for the per-session process table: pure functions, no process.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define AGENTS_PTY_YIELD_TIME_MS_MIN 250
#define AGENTS_PTY_EMPTY_YIELD_TIME_MS_MIN 5000
#define AGENTS_PTY_YIELD_TIME_MS_MAX 30000
#define AGENTS_PTY_START_YIELD_TIME_MS 10000
#define AGENTS_PTY_WRITE_YIELD_TIME_MS 250

#define AGENTS_PTY_PROCESSES_MAX 64
#define AGENTS_PTY_PROCESSES_WARNING 60
#define AGENTS_PTY_PROCESSES_PROTECTED_RECENT 8

#define AGENTS_PTY_PROCESS_ID_MIN 1000
#define AGENTS_PTY_PROCESS_ID_MAX_EXCLUSIVE 100000

/* The most output exec_command hands back when the model sets no
 * `max_output_tokens` (the reference then returns everything): past
 * 1 MiB the output is token-truncated as if `max_output_tokens` were
 * 1 MiB / 4, with the same head, marker and tail. A deviation from the
 * reference, so that no output is unbounded. */
#define AGENTS_EXEC_COMMAND_MAX_OUTPUT_BYTES (1024 * 1024)

/* clamp(@yield_time_ms, 250, 30 000). */
guint agents_pty_clamp_yield_time_ms (gint64 yield_time_ms);

/* write_stdin's wait: clamped, and at least 5 000 ms to poll with empty
 * input. */
guint agents_pty_write_yield_time_ms (gint64 yield_time_ms,
                                      gboolean input_empty);

/* A random id in [1000, 100000) that is not in @used (a set of
 * GUINT_TO_POINTER ids; NULL for none). */
guint agents_pty_allocate_process_id (GHashTable *used);

typedef struct
{
  guint process_id;
  gint64 last_used; /* any clock; larger is more recent */
  gboolean exited;
} AgentsPtyProcessMeta;

/* The process to end when the table is full: outside the 8 most recently
 * used, the least recently used that has exited, else the least recently
 * used; 0 when every process is protected (or there is none). */
guint agents_pty_process_to_prune (const AgentsPtyProcessMeta *meta,
                                   guint n_meta);

G_END_DECLS
