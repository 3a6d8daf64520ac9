/* agents-run-config.h - settings of a whole run
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

#include "agents-agent.h"
#include "agents-model-settings.h"
#include "models/agents-model.h"
#include "agents-run-context.h"
#include "agents-version-macros.h"

G_BEGIN_DECLS

/* AgentsModelInputData */

#define AGENTS_TYPE_MODEL_INPUT_DATA (agents_model_input_data_get_type ())

typedef struct _AgentsModelInputData AgentsModelInputData;

AGENTS_AVAILABLE_IN_1_0
GType agents_model_input_data_get_type (void) G_GNUC_CONST;
AGENTS_AVAILABLE_IN_1_0
AgentsModelInputData *agents_model_input_data_new (const char *instructions,
                                                   JsonArray *input);
AGENTS_AVAILABLE_IN_1_0
AgentsModelInputData *agents_model_input_data_ref (AgentsModelInputData *self);
AGENTS_AVAILABLE_IN_1_0
void agents_model_input_data_unref (AgentsModelInputData *self);
AGENTS_AVAILABLE_IN_1_0
const char *
agents_model_input_data_get_instructions (AgentsModelInputData *self);
AGENTS_AVAILABLE_IN_1_0
JsonArray *agents_model_input_data_get_input (AgentsModelInputData *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AgentsModelInputData,
                               agents_model_input_data_unref)

/* AgentsCallModelData */

#define AGENTS_TYPE_CALL_MODEL_DATA (agents_call_model_data_get_type ())

typedef struct _AgentsCallModelData AgentsCallModelData;

AGENTS_AVAILABLE_IN_1_0
GType agents_call_model_data_get_type (void) G_GNUC_CONST;
AGENTS_AVAILABLE_IN_1_0
AgentsCallModelData *agents_call_model_data_new (
  AgentsAgent *agent, GObject *context, AgentsModelInputData *model_data);
AGENTS_AVAILABLE_IN_1_0
AgentsCallModelData *agents_call_model_data_ref (AgentsCallModelData *self);
AGENTS_AVAILABLE_IN_1_0
void agents_call_model_data_unref (AgentsCallModelData *self);
AGENTS_AVAILABLE_IN_1_0
AgentsAgent *agents_call_model_data_get_agent (AgentsCallModelData *self);
AGENTS_AVAILABLE_IN_1_0
GObject *agents_call_model_data_get_context (AgentsCallModelData *self);
AGENTS_AVAILABLE_IN_1_0
AgentsModelInputData *
agents_call_model_data_get_model_data (AgentsCallModelData *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AgentsCallModelData,
                               agents_call_model_data_unref)

/**
 * AgentsCallModelInputFilter:
 * @data: the agent, the user context and what the model would be given
 * @user_data: the data given with the function
 *
 * Edits what the model is given, just before each model call.
 *
 * Returns: (transfer full): what the model is given
 */
typedef AgentsModelInputData *(*AgentsCallModelInputFilter) (
  AgentsCallModelData *data, gpointer user_data);

/* AgentsRunConfig */

#define AGENTS_TYPE_RUN_CONFIG (agents_run_config_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (
  AgentsRunConfig, agents_run_config, AGENTS, RUN_CONFIG, GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsRunConfig *agents_run_config_new (void);

AGENTS_AVAILABLE_IN_1_0
AgentsModel *agents_run_config_get_model (AgentsRunConfig *self);
AGENTS_AVAILABLE_IN_1_0
void agents_run_config_set_model (AgentsRunConfig *self, AgentsModel *model);
AGENTS_AVAILABLE_IN_1_0
AgentsModelSettings *
agents_run_config_get_model_settings (AgentsRunConfig *self);
AGENTS_AVAILABLE_IN_1_0
void agents_run_config_set_model_settings (AgentsRunConfig *self,
                                           AgentsModelSettings *settings);
AGENTS_AVAILABLE_IN_1_0
guint agents_run_config_get_max_turns (AgentsRunConfig *self);
AGENTS_AVAILABLE_IN_1_0
void agents_run_config_set_max_turns (AgentsRunConfig *self, guint max_turns);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_run_config_get_tracing_disabled (AgentsRunConfig *self);
AGENTS_AVAILABLE_IN_1_0
void agents_run_config_set_tracing_disabled (AgentsRunConfig *self,
                                             gboolean disabled);
AGENTS_AVAILABLE_IN_1_0
gboolean
agents_run_config_get_trace_include_sensitive_data (AgentsRunConfig *self);
AGENTS_AVAILABLE_IN_1_0
void agents_run_config_set_trace_include_sensitive_data (AgentsRunConfig *self,
                                                         gboolean include);
AGENTS_AVAILABLE_IN_1_0
const char *agents_run_config_get_workflow_name (AgentsRunConfig *self);
AGENTS_AVAILABLE_IN_1_0
void agents_run_config_set_workflow_name (AgentsRunConfig *self,
                                          const char *workflow_name);
AGENTS_AVAILABLE_IN_1_0
const char *agents_run_config_get_group_id (AgentsRunConfig *self);
AGENTS_AVAILABLE_IN_1_0
void agents_run_config_set_group_id (AgentsRunConfig *self,
                                     const char *group_id);
AGENTS_AVAILABLE_IN_1_0
JsonObject *agents_run_config_get_trace_metadata (AgentsRunConfig *self);
AGENTS_AVAILABLE_IN_1_0
void agents_run_config_set_trace_metadata (AgentsRunConfig *self,
                                           JsonObject *metadata);
AGENTS_AVAILABLE_IN_1_0
GObject *agents_run_config_get_sandbox (AgentsRunConfig *self);
AGENTS_AVAILABLE_IN_1_0
void agents_run_config_set_sandbox (AgentsRunConfig *self, GObject *sandbox);
AGENTS_AVAILABLE_IN_1_0
void agents_run_config_set_call_model_input_filter (
  AgentsRunConfig *self,
  AgentsCallModelInputFilter filter,
  gpointer user_data,
  GDestroyNotify destroy);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_run_config_has_call_model_input_filter (AgentsRunConfig *self);
AGENTS_AVAILABLE_IN_1_0
AgentsModelInputData *agents_run_config_apply_call_model_input_filter (
  AgentsRunConfig *self, AgentsCallModelData *data) G_GNUC_WARN_UNUSED_RESULT;

G_END_DECLS
