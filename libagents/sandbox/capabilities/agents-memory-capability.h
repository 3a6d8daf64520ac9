/* agents-memory-capability.h - notes kept across runs in the workspace
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include "agents-capability.h"
#include "models/agents-model.h"

G_BEGIN_DECLS

#define AGENTS_TYPE_MEMORY_CAPABILITY (agents_memory_capability_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (AgentsMemoryCapability,
                      agents_memory_capability,
                      AGENTS,
                      MEMORY_CAPABILITY,
                      GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsCapability *agents_memory_capability_new (void);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_memory_capability_get_generate (AgentsMemoryCapability *self);
AGENTS_AVAILABLE_IN_1_0
void agents_memory_capability_set_generate (AgentsMemoryCapability *self,
                                            gboolean generate);
AGENTS_AVAILABLE_IN_1_0
AgentsModel *agents_memory_capability_get_model (AgentsMemoryCapability *self);
AGENTS_AVAILABLE_IN_1_0
void agents_memory_capability_set_model (AgentsMemoryCapability *self,
                                         AgentsModel *model);
AGENTS_AVAILABLE_IN_1_0
void agents_memory_capability_generate_async (AgentsMemoryCapability *self,
                                              AgentsModel *model,
                                              GCancellable *cancellable,
                                              GAsyncReadyCallback callback,
                                              gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_memory_capability_generate_finish (AgentsMemoryCapability *self,
                                                   GAsyncResult *result,
                                                   GError **error);

G_END_DECLS
