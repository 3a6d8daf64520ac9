/* agents-openai-responses-model.h - a model behind the OpenAI Responses API
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include <gio/gio.h>

#include "agents-model.h"
#include "agents-openai-provider.h"
#include "agents-version-macros.h"

G_BEGIN_DECLS

#define AGENTS_TYPE_OPENAI_RESPONSES_MODEL \
  (agents_openai_responses_model_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (AgentsOpenAIResponsesModel,
                      agents_openai_responses_model,
                      AGENTS,
                      OPENAI_RESPONSES_MODEL,
                      GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsOpenAIResponsesModel *
agents_openai_responses_model_new (const char *model_name,
                                   AgentsOpenAIProvider *provider);
AGENTS_AVAILABLE_IN_1_0
const char *
agents_openai_responses_model_get_model_name (AgentsOpenAIResponsesModel *self);
AGENTS_AVAILABLE_IN_1_0
AgentsOpenAIProvider *
agents_openai_responses_model_get_provider (AgentsOpenAIResponsesModel *self);
AGENTS_AVAILABLE_IN_1_0
void
agents_openai_responses_model_set_provider (AgentsOpenAIResponsesModel *self,
                                            AgentsOpenAIProvider *provider);

G_END_DECLS
