/* agents-openai-provider.h - where and how OpenAI-style models are reached
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

#define AGENTS_TYPE_OPENAI_PROVIDER (agents_openai_provider_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (AgentsOpenAIProvider,
                      agents_openai_provider,
                      AGENTS,
                      OPENAI_PROVIDER,
                      GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsOpenAIProvider *agents_openai_provider_new (void);
AGENTS_AVAILABLE_IN_1_0
AgentsOpenAIProvider *agents_openai_provider_get_default (void);

AGENTS_AVAILABLE_IN_1_0
const char *agents_openai_provider_get_base_url (AgentsOpenAIProvider *self);
AGENTS_AVAILABLE_IN_1_0
void agents_openai_provider_set_base_url (AgentsOpenAIProvider *self,
                                          const char *base_url);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_openai_provider_has_api_key (AgentsOpenAIProvider *self);
AGENTS_AVAILABLE_IN_1_0
void agents_openai_provider_set_api_key (AgentsOpenAIProvider *self,
                                         const char *api_key);
AGENTS_AVAILABLE_IN_1_0
const char *
agents_openai_provider_get_organization (AgentsOpenAIProvider *self);
AGENTS_AVAILABLE_IN_1_0
void agents_openai_provider_set_organization (AgentsOpenAIProvider *self,
                                              const char *organization);
AGENTS_AVAILABLE_IN_1_0
const char *agents_openai_provider_get_project (AgentsOpenAIProvider *self);
AGENTS_AVAILABLE_IN_1_0
void agents_openai_provider_set_project (AgentsOpenAIProvider *self,
                                         const char *project);
AGENTS_AVAILABLE_IN_1_0
guint agents_openai_provider_get_timeout (AgentsOpenAIProvider *self);
AGENTS_AVAILABLE_IN_1_0
void agents_openai_provider_set_timeout (AgentsOpenAIProvider *self,
                                         guint seconds);
AGENTS_AVAILABLE_IN_1_0
guint agents_openai_provider_get_max_retries (AgentsOpenAIProvider *self);
AGENTS_AVAILABLE_IN_1_0
void agents_openai_provider_set_max_retries (AgentsOpenAIProvider *self,
                                             guint max_retries);
AGENTS_AVAILABLE_IN_1_0
void agents_openai_provider_set_header (AgentsOpenAIProvider *self,
                                        const char *name,
                                        const char *value);

G_END_DECLS
