/* agents-archive-private.h - archive internals for tests
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-archive.h"

G_BEGIN_DECLS

/* Tests only: resolve paths component by component as on kernels without
 * openat2(). */
void agents_archive_set_openat2_disabled_for_testing (gboolean disabled);

G_END_DECLS
