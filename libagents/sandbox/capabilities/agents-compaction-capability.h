/* agents-compaction-capability.h - server-side compaction of long contexts
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include "agents-capability.h"

G_BEGIN_DECLS

#define AGENTS_TYPE_COMPACTION_CAPABILITY \
  (agents_compaction_capability_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (AgentsCompactionCapability,
                      agents_compaction_capability,
                      AGENTS,
                      COMPACTION_CAPABILITY,
                      GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsCapability *agents_compaction_capability_new (void);
AGENTS_AVAILABLE_IN_1_0
AgentsCapability *agents_compaction_capability_new_static (gint64 threshold);
AGENTS_AVAILABLE_IN_1_0
AgentsCapability *
agents_compaction_capability_new_dynamic (gint64 context_window, double share);
AGENTS_AVAILABLE_IN_1_0
gint64
agents_compaction_capability_get_threshold (AgentsCompactionCapability *self);
AGENTS_AVAILABLE_IN_1_0
JsonNode *
agents_compaction_capability_get_policy (AgentsCompactionCapability *self);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_compaction_capability_set_policy (
  AgentsCompactionCapability *self, JsonNode *policy, GError **error);
AGENTS_AVAILABLE_IN_1_0
gint64 agents_compaction_capability_threshold_for_model (
  AgentsCompactionCapability *self, const char *model);
AGENTS_AVAILABLE_IN_1_0
gint64 agents_compaction_context_window_for_model (const char *model,
                                                   GError **error);

G_END_DECLS
