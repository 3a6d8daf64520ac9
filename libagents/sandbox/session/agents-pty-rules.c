/* agents-pty-rules.c - the limits of interactive processes
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-pty-rules-private.h"

guint
agents_pty_clamp_yield_time_ms (gint64 yield_time_ms)
{
  return CLAMP (yield_time_ms, AGENTS_PTY_YIELD_TIME_MS_MIN,
                AGENTS_PTY_YIELD_TIME_MS_MAX);
}

guint
agents_pty_write_yield_time_ms (gint64 yield_time_ms, gboolean input_empty)
{
  guint clamped = agents_pty_clamp_yield_time_ms (yield_time_ms);

  return input_empty ? MAX (clamped, AGENTS_PTY_EMPTY_YIELD_TIME_MS_MIN)
                     : clamped;
}

guint
agents_pty_allocate_process_id (GHashTable *used)
{
  for (;;)
    {
      guint id = g_random_int_range (AGENTS_PTY_PROCESS_ID_MIN,
                                     AGENTS_PTY_PROCESS_ID_MAX_EXCLUSIVE);

      if (used == NULL || !g_hash_table_contains (used, GUINT_TO_POINTER (id)))
        return id;
    }
}

static gint
by_last_used (gconstpointer a, gconstpointer b, gpointer user_data)
{
  const AgentsPtyProcessMeta *x = a;
  const AgentsPtyProcessMeta *y = b;
  gint order = (x->last_used > y->last_used) - (x->last_used < y->last_used);

  return GPOINTER_TO_INT (user_data) ? -order : order;
}

static gboolean
is_protected (const AgentsPtyProcessMeta *recent, guint n, guint process_id)
{
  for (guint i = 0; i < n && i < AGENTS_PTY_PROCESSES_PROTECTED_RECENT; i++)
    if (recent[i].process_id == process_id)
      return TRUE;
  return FALSE;
}

guint
agents_pty_process_to_prune (const AgentsPtyProcessMeta *meta, guint n_meta)
{
  g_autofree AgentsPtyProcessMeta *recent = NULL;
  g_autofree AgentsPtyProcessMeta *lru = NULL;

  if (n_meta == 0)
    return 0;
  /* Stable sorts: ties keep their order, as Python's sorted(). */
  recent = g_memdup2 (meta, n_meta * sizeof *meta);
  g_qsort_with_data (recent, n_meta, sizeof *recent, by_last_used,
                     GINT_TO_POINTER (TRUE));
  lru = g_memdup2 (meta, n_meta * sizeof *meta);
  g_qsort_with_data (lru, n_meta, sizeof *lru, by_last_used,
                     GINT_TO_POINTER (FALSE));

  for (guint i = 0; i < n_meta; i++)
    if (lru[i].exited && !is_protected (recent, n_meta, lru[i].process_id))
      return lru[i].process_id;
  for (guint i = 0; i < n_meta; i++)
    if (!is_protected (recent, n_meta, lru[i].process_id))
      return lru[i].process_id;
  return 0;
}
