/* agents-capability-private.h - capability checks the runtime makes
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-capability.h"

G_BEGIN_DECLS

/* Whether every capability of @capabilities (#AgentsCapability items)
 * has the capabilities it requires beside it; else
 * %AGENTS_RUN_ERROR_USER_ERROR "<Type> requires missing capabilities:
 * <types, sorted>", as the reference's preparation says it. */
gboolean agents_capabilities_check_required (GListModel *capabilities,
                                             GError **error);

G_END_DECLS
