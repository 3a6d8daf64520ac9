/* agents-concurrency-limits.c - AgentsConcurrencyLimits, apply concurrency
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-sandbox-types-private.h"

G_DEFINE_BOXED_TYPE (AgentsConcurrencyLimits,
                     agents_concurrency_limits,
                     agents_concurrency_limits_copy,
                     agents_concurrency_limits_free)

/**
 * agents_concurrency_limits_new:
 *
 * Creates the default limits: 4 entries and 4 files at once.
 *
 * Returns: (transfer full): new limits
 */
AgentsConcurrencyLimits *
agents_concurrency_limits_new (void)
{
  return agents_concurrency_limits_new_full (4, 4);
}

/**
 * agents_concurrency_limits_new_full:
 * @manifest_entries: how many manifest entries are materialized at once
 * @local_dir_files: how many files of a `local_dir` entry are copied at
 *   once
 *
 * Creates limits. They are checked by
 * agents_concurrency_limits_validate(), not here.
 *
 * Returns: (transfer full): new limits
 */
AgentsConcurrencyLimits *
agents_concurrency_limits_new_full (gint64 manifest_entries,
                                    gint64 local_dir_files)
{
  AgentsConcurrencyLimits *self = g_new0 (AgentsConcurrencyLimits, 1);

  self->manifest_entries = manifest_entries;
  self->local_dir_files = local_dir_files;
  return self;
}

/**
 * agents_concurrency_limits_copy:
 * @self: limits
 *
 * Copies @self.
 *
 * Returns: (transfer full): a copy
 */
AgentsConcurrencyLimits *
agents_concurrency_limits_copy (const AgentsConcurrencyLimits *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return g_memdup2 (self, sizeof *self);
}

/**
 * agents_concurrency_limits_free:
 * @self: (nullable): limits
 *
 * Frees @self.
 */
void
agents_concurrency_limits_free (AgentsConcurrencyLimits *self)
{
  g_free (self);
}

/**
 * agents_concurrency_limits_equal:
 * @a: limits
 * @b: limits
 *
 * Compares two limits.
 *
 * Returns: whether @a and @b are equal
 */
gboolean
agents_concurrency_limits_equal (const AgentsConcurrencyLimits *a,
                                 const AgentsConcurrencyLimits *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  return a->manifest_entries == b->manifest_entries &&
         a->local_dir_files == b->local_dir_files;
}

/**
 * agents_concurrency_limits_validate:
 * @self: limits
 * @error: return location for a #GError
 *
 * Checks that every limit is at least 1. The error message names the
 * first offending field, e.g.
 * `"concurrency_limits.manifest_entries must be at least 1"`.
 *
 * Returns: %TRUE if the limits are valid
 */
gboolean
agents_concurrency_limits_validate (const AgentsConcurrencyLimits *self,
                                    GError **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return agents_sandbox_types_check_at_least_one (
           self->manifest_entries, "concurrency_limits.manifest_entries",
           error) &&
         agents_sandbox_types_check_at_least_one (
           self->local_dir_files, "concurrency_limits.local_dir_files", error);
}
