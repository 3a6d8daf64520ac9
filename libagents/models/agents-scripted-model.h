/* agents-scripted-model.h - a model that replays scripted outputs
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "agents-model.h"
#include "agents-version-macros.h"

G_BEGIN_DECLS

#define AGENTS_TYPE_SCRIPTED_MODEL (agents_scripted_model_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (
  AgentsScriptedModel, agents_scripted_model, AGENTS, SCRIPTED_MODEL, GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsScriptedModel *agents_scripted_model_new (void);
AGENTS_AVAILABLE_IN_1_0
AgentsScriptedModel *
agents_scripted_model_new_with_initial_output (JsonArray *items);

AGENTS_AVAILABLE_IN_1_0
void agents_scripted_model_set_next_output (AgentsScriptedModel *self,
                                            JsonArray *items);
AGENTS_AVAILABLE_IN_1_0
void agents_scripted_model_set_next_error (AgentsScriptedModel *self,
                                           const GError *error);
AGENTS_AVAILABLE_IN_1_0
void agents_scripted_model_add_multiple_turn_outputs (AgentsScriptedModel *self,
                                                      GPtrArray *outputs);
AGENTS_AVAILABLE_IN_1_0
void agents_scripted_model_set_turn_outputs (AgentsScriptedModel *self,
                                             GPtrArray *outputs);
AGENTS_AVAILABLE_IN_1_0
guint agents_scripted_model_get_n_turn_outputs (AgentsScriptedModel *self);
AGENTS_AVAILABLE_IN_1_0
void agents_scripted_model_set_hardcoded_usage (AgentsScriptedModel *self,
                                                JsonObject *usage);

AGENTS_AVAILABLE_IN_1_0
AgentsModelRequest *
agents_scripted_model_get_first_turn_args (AgentsScriptedModel *self);
AGENTS_AVAILABLE_IN_1_0
AgentsModelRequest *
agents_scripted_model_get_last_turn_args (AgentsScriptedModel *self);

G_END_DECLS
