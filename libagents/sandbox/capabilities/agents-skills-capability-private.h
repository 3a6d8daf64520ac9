/* agents-skills-capability-private.h - what the skills capability's files
 * (agents-skills-capability.c, -catalog.c, -load.c) share
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-skills-capability.h"

G_BEGIN_DECLS

/* SKILL.md files larger than this are not read for the listing. */
#define MAX_SKILL_MD_BYTES (1024 * 1024)

typedef struct
{
  char *name;
  char *description;
  char *dir;       /* the folder's name under the skills path */
  char *host_path; /* lazy skills: the host folder */
} Skill;

struct _AgentsSkillsCapability
{
  GObject parent_instance;

  JsonNode *skills;
  JsonNode *from;
  JsonNode *lazy_from;
  char *skills_path;

  GPtrArray *lazy_catalog; /* Skill, scanned once */
  GHashTable *loaded;      /* folder names load_skill copied */
};

static inline gboolean
is_set (JsonNode *node)
{
  return node != NULL && !JSON_NODE_HOLDS_NULL (node);
}

void agents_skills_skill_free (Skill *skill);

Skill *agents_skills_skill_new (const char *name,
                                const char *description,
                                const char *dir);

/* A skill from its SKILL.md text, defaulting as the reference does. */
Skill *agents_skills_skill_from_markdown (const char *markdown,
                                          const char *dir);

void agents_skills_config_error (GError **error, const char *message);

const char *agents_skills_string_member (JsonObject *object,
                                         const char *member);

/* The host folder of `lazy_from`: {"source": {"type": "local_dir",
 * "src": …}}. */
const char *agents_skills_lazy_source_dir (JsonNode *lazy_from);

gboolean agents_skills_check_config (AgentsSkillsCapability *self,
                                     GError **error);

GPtrArray *agents_skills_lazy_catalog (AgentsSkillsCapability *self);

/* Where the listed skills are: the skills path as it is, or, when the
 * run has a working directory of its own, the skills' absolute path in
 * the workspace, so that it reads the same from any directory. */
char *agents_skills_listed_dir (AgentsSkillsCapability *self,
                                AgentsManifest *manifest,
                                GError **error);

void agents_skills_instructions (AgentsCapability *capability,
                                 AgentsManifest *manifest,
                                 GTask *task);

char *agents_skills_entry_path (AgentsSkillsCapability *self, const char *dir);

AgentsTool *agents_skills_load_tool_new (AgentsSkillsCapability *self);

G_END_DECLS
