/* agents-sandbox-types.c - what the small value types of the sandbox share
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each type of agents-sandbox-types.h has a file of its own
 * (agents-permissions.c, agents-concurrency-limits.c,
 * agents-archive-limits.c, agents-exec-result.c, agents-file-entry.c,
 * agents-user.c, agents-group.c, agents-sandbox-path-grant.c); the errors
 * they raise in common are built here.
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-sandbox-error-private.h"
#include "agents-sandbox-types-private.h"

void
agents_sandbox_types_set_invalid_argument (GError **error,
                                           const char *key,
                                           const char *value,
                                           const char *message)
{
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  if (key != NULL)
    {
      g_autofree char *valid = g_utf8_make_valid (value, -1);

      g_variant_builder_add (&ctx, "{sv}", key, g_variant_new_string (valid));
    }
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                            g_variant_builder_end (&ctx), "%s", message);
}

gboolean
agents_sandbox_types_check_at_least_one (gint64 value,
                                         const char *name,
                                         GError **error)
{
  g_autofree char *message = NULL;
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  if (value >= 1)
    return TRUE;

  message = g_strdup_printf (_ ("%s must be at least 1"), name);
  g_variant_builder_add (&ctx, "{sv}", "field", g_variant_new_string (name));
  g_variant_builder_add (&ctx, "{sv}", "value", g_variant_new_int64 (value));
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                            g_variant_builder_end (&ctx), "%s", message);
  return FALSE;
}
