/* agents-archive-limits.c - AgentsArchiveLimits, bounds on extraction
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-sandbox-types-private.h"

G_DEFINE_BOXED_TYPE (AgentsArchiveLimits,
                     agents_archive_limits,
                     agents_archive_limits_copy,
                     agents_archive_limits_free)

/**
 * agents_archive_limits_new:
 *
 * Creates the default limits: 1 GiB of input, 4 GiB extracted, 100,000
 * members.
 *
 * Returns: (transfer full): new limits
 */
AgentsArchiveLimits *
agents_archive_limits_new (void)
{
  return agents_archive_limits_new_full (G_GINT64_CONSTANT (1) << 30,
                                         G_GINT64_CONSTANT (4) << 30, 100000);
}

/**
 * agents_archive_limits_new_full:
 * @max_input_bytes: the largest archive accepted
 * @max_extracted_bytes: the most bytes an archive may expand to
 * @max_members: the most members an archive may have
 *
 * Creates limits. They are checked by agents_archive_limits_validate(),
 * not here.
 *
 * Returns: (transfer full): new limits
 */
AgentsArchiveLimits *
agents_archive_limits_new_full (gint64 max_input_bytes,
                                gint64 max_extracted_bytes,
                                gint64 max_members)
{
  AgentsArchiveLimits *self = g_new0 (AgentsArchiveLimits, 1);

  self->max_input_bytes = max_input_bytes;
  self->max_extracted_bytes = max_extracted_bytes;
  self->max_members = max_members;
  return self;
}

/**
 * agents_archive_limits_copy:
 * @self: limits
 *
 * Copies @self.
 *
 * Returns: (transfer full): a copy
 */
AgentsArchiveLimits *
agents_archive_limits_copy (const AgentsArchiveLimits *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return g_memdup2 (self, sizeof *self);
}

/**
 * agents_archive_limits_free:
 * @self: (nullable): limits
 *
 * Frees @self.
 */
void
agents_archive_limits_free (AgentsArchiveLimits *self)
{
  g_free (self);
}

/**
 * agents_archive_limits_equal:
 * @a: limits
 * @b: limits
 *
 * Compares two limits.
 *
 * Returns: whether @a and @b are equal
 */
gboolean
agents_archive_limits_equal (const AgentsArchiveLimits *a,
                             const AgentsArchiveLimits *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  return a->max_input_bytes == b->max_input_bytes &&
         a->max_extracted_bytes == b->max_extracted_bytes &&
         a->max_members == b->max_members;
}

/**
 * agents_archive_limits_validate:
 * @self: limits
 * @error: return location for a #GError
 *
 * Checks that every limit is at least 1. The error message names the
 * first offending field, e.g.
 * `"archive_limits.max_input_bytes must be at least 1"`.
 *
 * Returns: %TRUE if the limits are valid
 */
gboolean
agents_archive_limits_validate (const AgentsArchiveLimits *self, GError **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return agents_sandbox_types_check_at_least_one (
           self->max_input_bytes, "archive_limits.max_input_bytes", error) &&
         agents_sandbox_types_check_at_least_one (
           self->max_extracted_bytes, "archive_limits.max_extracted_bytes",
           error) &&
         agents_sandbox_types_check_at_least_one (
           self->max_members, "archive_limits.max_members", error);
}
