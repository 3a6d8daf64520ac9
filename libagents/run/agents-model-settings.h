/* agents-model-settings.h - sampling and request parameters of a model
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "agents-version-macros.h"

G_BEGIN_DECLS

#define AGENTS_TYPE_MODEL_SETTINGS (agents_model_settings_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (
  AgentsModelSettings, agents_model_settings, AGENTS, MODEL_SETTINGS, GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsModelSettings *agents_model_settings_new (void);
AGENTS_AVAILABLE_IN_1_0
AgentsModelSettings *
agents_model_settings_new_from_json (JsonObject *json,
                                     GError **error) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
JsonObject *agents_model_settings_to_json (AgentsModelSettings *self)
  G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
AgentsModelSettings *agents_model_settings_copy (AgentsModelSettings *self)
  G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
AgentsModelSettings *agents_model_settings_merge (AgentsModelSettings *base,
                                                  AgentsModelSettings *override)
  G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
gboolean agents_model_settings_equal (AgentsModelSettings *a,
                                      AgentsModelSettings *b);

AGENTS_AVAILABLE_IN_1_0
const char *agents_model_settings_get_tool_choice (AgentsModelSettings *self);
AGENTS_AVAILABLE_IN_1_0
void agents_model_settings_set_tool_choice (AgentsModelSettings *self,
                                            const char *tool_choice);

AGENTS_AVAILABLE_IN_1_0
gboolean agents_model_settings_has_temperature (AgentsModelSettings *self);
AGENTS_AVAILABLE_IN_1_0
double agents_model_settings_get_temperature (AgentsModelSettings *self);
AGENTS_AVAILABLE_IN_1_0
void agents_model_settings_set_temperature (AgentsModelSettings *self,
                                            double temperature);
AGENTS_AVAILABLE_IN_1_0
void agents_model_settings_unset_temperature (AgentsModelSettings *self);

AGENTS_AVAILABLE_IN_1_0
gboolean agents_model_settings_has_top_p (AgentsModelSettings *self);
AGENTS_AVAILABLE_IN_1_0
double agents_model_settings_get_top_p (AgentsModelSettings *self);
AGENTS_AVAILABLE_IN_1_0
void agents_model_settings_set_top_p (AgentsModelSettings *self, double top_p);
AGENTS_AVAILABLE_IN_1_0
void agents_model_settings_unset_top_p (AgentsModelSettings *self);

AGENTS_AVAILABLE_IN_1_0
gboolean agents_model_settings_has_max_tokens (AgentsModelSettings *self);
AGENTS_AVAILABLE_IN_1_0
int agents_model_settings_get_max_tokens (AgentsModelSettings *self);
AGENTS_AVAILABLE_IN_1_0
void agents_model_settings_set_max_tokens (AgentsModelSettings *self,
                                           int max_tokens);
AGENTS_AVAILABLE_IN_1_0
void agents_model_settings_unset_max_tokens (AgentsModelSettings *self);

AGENTS_AVAILABLE_IN_1_0
gboolean agents_model_settings_has_top_logprobs (AgentsModelSettings *self);
AGENTS_AVAILABLE_IN_1_0
int agents_model_settings_get_top_logprobs (AgentsModelSettings *self);
AGENTS_AVAILABLE_IN_1_0
void agents_model_settings_set_top_logprobs (AgentsModelSettings *self,
                                             int top_logprobs);
AGENTS_AVAILABLE_IN_1_0
void agents_model_settings_unset_top_logprobs (AgentsModelSettings *self);

AGENTS_AVAILABLE_IN_1_0
const char *const *
agents_model_settings_get_response_include (AgentsModelSettings *self);
AGENTS_AVAILABLE_IN_1_0
void agents_model_settings_set_response_include (AgentsModelSettings *self,
                                                 const char *const *include);

AGENTS_AVAILABLE_IN_1_0
gboolean
agents_model_settings_has_parallel_tool_calls (AgentsModelSettings *self);
AGENTS_AVAILABLE_IN_1_0
gboolean
agents_model_settings_get_parallel_tool_calls (AgentsModelSettings *self);
AGENTS_AVAILABLE_IN_1_0
void
agents_model_settings_set_parallel_tool_calls (AgentsModelSettings *self,
                                               gboolean parallel_tool_calls);
AGENTS_AVAILABLE_IN_1_0
void
agents_model_settings_unset_parallel_tool_calls (AgentsModelSettings *self);

AGENTS_AVAILABLE_IN_1_0
const char *agents_model_settings_get_truncation (AgentsModelSettings *self);
AGENTS_AVAILABLE_IN_1_0
void agents_model_settings_set_truncation (AgentsModelSettings *self,
                                           const char *truncation);

AGENTS_AVAILABLE_IN_1_0
gboolean agents_model_settings_has_store (AgentsModelSettings *self);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_model_settings_get_store (AgentsModelSettings *self);
AGENTS_AVAILABLE_IN_1_0
void agents_model_settings_set_store (AgentsModelSettings *self,
                                      gboolean store);
AGENTS_AVAILABLE_IN_1_0
void agents_model_settings_unset_store (AgentsModelSettings *self);

AGENTS_AVAILABLE_IN_1_0
JsonObject *agents_model_settings_get_reasoning (AgentsModelSettings *self);
AGENTS_AVAILABLE_IN_1_0
void agents_model_settings_set_reasoning (AgentsModelSettings *self,
                                          JsonObject *reasoning);
AGENTS_AVAILABLE_IN_1_0
JsonObject *agents_model_settings_get_metadata (AgentsModelSettings *self);
AGENTS_AVAILABLE_IN_1_0
void agents_model_settings_set_metadata (AgentsModelSettings *self,
                                         JsonObject *metadata);
AGENTS_AVAILABLE_IN_1_0
JsonObject *agents_model_settings_get_extra_args (AgentsModelSettings *self);
AGENTS_AVAILABLE_IN_1_0
void agents_model_settings_set_extra_args (AgentsModelSettings *self,
                                           JsonObject *extra_args);

G_END_DECLS
