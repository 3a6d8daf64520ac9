/* agents-fs.h - small host filesystem helpers
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include <gio/gio.h>

#include "agents-version-macros.h"

G_BEGIN_DECLS

AGENTS_AVAILABLE_IN_1_0
gboolean agents_fs_rm_rf (const char *path, GError **error);

AGENTS_AVAILABLE_IN_1_0
void agents_fs_rm_rf_in_background (const char *path);

G_END_DECLS
