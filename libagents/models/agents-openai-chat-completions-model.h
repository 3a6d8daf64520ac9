/* agents-openai-chat-completions-model.h - a model behind the Chat Completions
 * API
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

#define AGENTS_TYPE_OPENAI_CHAT_COMPLETIONS_MODEL \
  (agents_openai_chat_completions_model_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (AgentsOpenAIChatCompletionsModel,
                      agents_openai_chat_completions_model,
                      AGENTS,
                      OPENAI_CHAT_COMPLETIONS_MODEL,
                      GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsOpenAIChatCompletionsModel *
agents_openai_chat_completions_model_new (const char *model_name,
                                          AgentsOpenAIProvider *provider);
AGENTS_AVAILABLE_IN_1_0
const char *agents_openai_chat_completions_model_get_model_name (
  AgentsOpenAIChatCompletionsModel *self);
AGENTS_AVAILABLE_IN_1_0
AgentsOpenAIProvider *agents_openai_chat_completions_model_get_provider (
  AgentsOpenAIChatCompletionsModel *self);
AGENTS_AVAILABLE_IN_1_0
void agents_openai_chat_completions_model_set_provider (
  AgentsOpenAIChatCompletionsModel *self, AgentsOpenAIProvider *provider);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_openai_chat_completions_model_get_keep_tool_images (
  AgentsOpenAIChatCompletionsModel *self);
AGENTS_AVAILABLE_IN_1_0
void agents_openai_chat_completions_model_set_keep_tool_images (
  AgentsOpenAIChatCompletionsModel *self, gboolean keep);

G_END_DECLS
