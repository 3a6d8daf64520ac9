/* agents-skills-capability.h - skills the model can read and load
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

#define AGENTS_TYPE_SKILLS_CAPABILITY (agents_skills_capability_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (AgentsSkillsCapability,
                      agents_skills_capability,
                      AGENTS,
                      SKILLS_CAPABILITY,
                      GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsCapability *agents_skills_capability_new_from_dir (const char *host_dir,
                                                         gboolean lazy);
AGENTS_AVAILABLE_IN_1_0
AgentsCapability *
agents_skills_capability_new_from_entry (AgentsManifestEntry *entry);
AGENTS_AVAILABLE_IN_1_0
AgentsCapability *agents_skills_capability_new_from_json (JsonNode *skills,
                                                          GError **error);
AGENTS_AVAILABLE_IN_1_0
const char *
agents_skills_capability_get_skills_path (AgentsSkillsCapability *self);
AGENTS_AVAILABLE_IN_1_0
void agents_skills_capability_set_skills_path (AgentsSkillsCapability *self,
                                               const char *skills_path);

G_END_DECLS
