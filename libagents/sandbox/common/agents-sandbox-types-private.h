/* agents-sandbox-types-private.h - what the sandbox value types share
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-sandbox-types.h"

G_BEGIN_DECLS

/* Sets an INVALID_ARGUMENT sandbox error with @message; its context holds
 * @key (when not NULL) set to @value. */
void agents_sandbox_types_set_invalid_argument (GError **error,
                                                const char *key,
                                                const char *value,
                                                const char *message);

/* Sets an INVALID_ARGUMENT error naming @name unless @value is at least 1. */
gboolean agents_sandbox_types_check_at_least_one (gint64 value,
                                                  const char *name,
                                                  GError **error);

/* `rwxr-xr-x`: what manifest entries start with (agents-permissions.c). */
AgentsPermissions *agents_permissions_new_entry_default (void);

G_END_DECLS
