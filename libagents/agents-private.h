/* agents-private.h - library-internal helpers
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents.h"

G_BEGIN_DECLS

void agents_init (void);

/* Registers the built-in entry, snapshot and capability types. */
void agents_registry_ensure_builtins (void);

G_END_DECLS
