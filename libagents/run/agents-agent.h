/* agents-agent.h - agents and handoffs
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

#include "agents-guardrail.h"
#include "agents-model-settings.h"
#include "models/agents-model.h"
#include "agents-run-context.h"
#include "agents-run-item.h"
#include "agents-tool.h"
#include "agents-version-macros.h"

G_BEGIN_DECLS

/**
 * AgentsToolUseBehavior:
 * @AGENTS_TOOL_USE_BEHAVIOR_RUN_LLM_AGAIN: after tools ran, the model is
 *   called again with their outputs
 * @AGENTS_TOOL_USE_BEHAVIOR_STOP_ON_FIRST_TOOL: the output of the first
 *   tool called is the final output
 * @AGENTS_TOOL_USE_BEHAVIOR_STOP_AT_TOOL_NAMES: the output of a tool named
 *   in #AgentsAgent:stop-at-tool-names is the final output
 *
 * What a run does after an agent's tools ran.
 */
typedef enum
{
  AGENTS_TOOL_USE_BEHAVIOR_RUN_LLM_AGAIN,
  AGENTS_TOOL_USE_BEHAVIOR_STOP_ON_FIRST_TOOL,
  AGENTS_TOOL_USE_BEHAVIOR_STOP_AT_TOOL_NAMES,
} AgentsToolUseBehavior;

/* AgentsAgent */

#define AGENTS_TYPE_AGENT (agents_agent_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_DERIVABLE_TYPE (AgentsAgent, agents_agent, AGENTS, AGENT, GObject)

/**
 * AgentsAgentClass:
 * @parent_class: the parent class
 * @get_system_prompt: computes the system prompt for a turn; the task
 *   returns a string or %NULL. The default returns the instructions
 *   function's result if one is set, else #AgentsAgent:instructions
 * @identity_fingerprint: returns a text that tells this agent apart from
 *   other agents of the same name, or %NULL (the default); used to order
 *   agents of the same name deterministically when a run state is saved
 * @clone: returns a copy; the default copies every readable and writable
 *   property, the lists (not their elements), and the functions
 *
 * The class of agents. Subclasses (a sandbox agent) override these.
 */
struct _AgentsAgentClass
{
  GObjectClass parent_class;

  void (*get_system_prompt) (AgentsAgent *self,
                             AgentsRunContext *ctx,
                             GTask *task);
  char *(*identity_fingerprint) (AgentsAgent *self);
  AgentsAgent *(*clone) (AgentsAgent *self);

  /*< private >*/
  gpointer padding[12];
};

/**
 * AgentsInstructionsFunc:
 * @ctx: the run context
 * @agent: the agent, as the user built it
 * @user_data: the data given with the function
 *
 * Computes an agent's instructions for a turn.
 *
 * Returns: (transfer full) (nullable): the instructions
 */
typedef char *(*AgentsInstructionsFunc) (AgentsRunContext *ctx,
                                         AgentsAgent *agent,
                                         gpointer user_data);

/**
 * AgentsPromptFunc:
 * @ctx: the run context
 * @agent: the agent, as the user built it
 * @user_data: the data given with the function
 *
 * Computes an agent's prompt reference for a turn: a JSON object
 * `{"id", "version", "variables"}`.
 *
 * Returns: (transfer full) (nullable): the prompt
 */
typedef JsonObject *(*AgentsPromptFunc) (AgentsRunContext *ctx,
                                         AgentsAgent *agent,
                                         gpointer user_data);

AGENTS_AVAILABLE_IN_1_0
AgentsAgent *agents_agent_new (const char *name);

AGENTS_AVAILABLE_IN_1_0
const char *agents_agent_get_name (AgentsAgent *self);
AGENTS_AVAILABLE_IN_1_0
void agents_agent_set_name (AgentsAgent *self, const char *name);
AGENTS_AVAILABLE_IN_1_0
const char *agents_agent_get_instructions (AgentsAgent *self);
AGENTS_AVAILABLE_IN_1_0
void agents_agent_set_instructions (AgentsAgent *self,
                                    const char *instructions);
AGENTS_AVAILABLE_IN_1_0
void agents_agent_set_instructions_func (AgentsAgent *self,
                                         AgentsInstructionsFunc func,
                                         gpointer user_data,
                                         GDestroyNotify destroy);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_agent_has_instructions_func (AgentsAgent *self);
AGENTS_AVAILABLE_IN_1_0
JsonObject *agents_agent_get_prompt (AgentsAgent *self);
AGENTS_AVAILABLE_IN_1_0
void agents_agent_set_prompt (AgentsAgent *self, JsonObject *prompt);
AGENTS_AVAILABLE_IN_1_0
void agents_agent_set_prompt_func (AgentsAgent *self,
                                   AgentsPromptFunc func,
                                   gpointer user_data,
                                   GDestroyNotify destroy);
AGENTS_AVAILABLE_IN_1_0
JsonObject *
agents_agent_resolve_prompt (AgentsAgent *self,
                             AgentsRunContext *ctx) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
AgentsModel *agents_agent_get_model (AgentsAgent *self);
AGENTS_AVAILABLE_IN_1_0
void agents_agent_set_model (AgentsAgent *self, AgentsModel *model);
AGENTS_AVAILABLE_IN_1_0
const char *agents_agent_get_model_name (AgentsAgent *self);
AGENTS_AVAILABLE_IN_1_0
void agents_agent_set_model_name (AgentsAgent *self, const char *model_name);
AGENTS_AVAILABLE_IN_1_0
AgentsModelSettings *agents_agent_get_model_settings (AgentsAgent *self);
AGENTS_AVAILABLE_IN_1_0
void agents_agent_set_model_settings (AgentsAgent *self,
                                      AgentsModelSettings *settings);
AGENTS_AVAILABLE_IN_1_0
JsonObject *agents_agent_get_output_schema (AgentsAgent *self);
AGENTS_AVAILABLE_IN_1_0
void agents_agent_set_output_schema (AgentsAgent *self,
                                     JsonObject *output_schema);
AGENTS_AVAILABLE_IN_1_0
AgentsToolUseBehavior agents_agent_get_tool_use_behavior (AgentsAgent *self);
AGENTS_AVAILABLE_IN_1_0
void agents_agent_set_tool_use_behavior (AgentsAgent *self,
                                         AgentsToolUseBehavior behavior);
AGENTS_AVAILABLE_IN_1_0
const char *const *agents_agent_get_stop_at_tool_names (AgentsAgent *self);
AGENTS_AVAILABLE_IN_1_0
void agents_agent_set_stop_at_tool_names (AgentsAgent *self,
                                          const char *const *names);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_agent_get_reset_tool_choice (AgentsAgent *self);
AGENTS_AVAILABLE_IN_1_0
void agents_agent_set_reset_tool_choice (AgentsAgent *self,
                                         gboolean reset_tool_choice);
AGENTS_AVAILABLE_IN_1_0
const char *agents_agent_get_handoff_description (AgentsAgent *self);
AGENTS_AVAILABLE_IN_1_0
void agents_agent_set_handoff_description (AgentsAgent *self,
                                           const char *description);

AGENTS_AVAILABLE_IN_1_0
GListModel *agents_agent_get_tools (AgentsAgent *self);
AGENTS_AVAILABLE_IN_1_0
void agents_agent_add_tool (AgentsAgent *self, AgentsTool *tool);
AGENTS_AVAILABLE_IN_1_0
AgentsTool *agents_agent_find_tool (AgentsAgent *self, const char *name);
AGENTS_AVAILABLE_IN_1_0
GListModel *agents_agent_get_handoffs (AgentsAgent *self);
AGENTS_AVAILABLE_IN_1_0
void agents_agent_add_handoff (AgentsAgent *self, GObject *handoff);
AGENTS_AVAILABLE_IN_1_0
void agents_agent_set_handoffs (AgentsAgent *self,
                                GObject **handoffs,
                                guint n_handoffs);
AGENTS_AVAILABLE_IN_1_0
GPtrArray *
agents_agent_get_handoff_objects (AgentsAgent *self) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
GListModel *agents_agent_get_input_guardrails (AgentsAgent *self);
AGENTS_AVAILABLE_IN_1_0
void agents_agent_add_input_guardrail (AgentsAgent *self,
                                       AgentsInputGuardrail *guardrail);
AGENTS_AVAILABLE_IN_1_0
GListModel *agents_agent_get_output_guardrails (AgentsAgent *self);
AGENTS_AVAILABLE_IN_1_0
void agents_agent_add_output_guardrail (AgentsAgent *self,
                                        AgentsOutputGuardrail *guardrail);

AGENTS_AVAILABLE_IN_1_0
void agents_agent_get_system_prompt_async (AgentsAgent *self,
                                           AgentsRunContext *ctx,
                                           GCancellable *cancellable,
                                           GAsyncReadyCallback callback,
                                           gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
char *agents_agent_get_system_prompt_finish (AgentsAgent *self,
                                             GAsyncResult *result,
                                             GError **error)
  G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
char *
agents_agent_identity_fingerprint (AgentsAgent *self) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
AgentsAgent *agents_agent_clone (AgentsAgent *self) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
AgentsTool *
agents_agent_as_tool (AgentsAgent *self,
                      const char *tool_name,
                      const char *tool_description) G_GNUC_WARN_UNUSED_RESULT;

/* AgentsHandoffInputData */

#define AGENTS_TYPE_HANDOFF_INPUT_DATA (agents_handoff_input_data_get_type ())

typedef struct _AgentsHandoffInputData AgentsHandoffInputData;

AGENTS_AVAILABLE_IN_1_0
GType agents_handoff_input_data_get_type (void) G_GNUC_CONST;
AGENTS_AVAILABLE_IN_1_0
AgentsHandoffInputData *
agents_handoff_input_data_new (JsonNode *input_history,
                               GPtrArray *pre_handoff_items,
                               GPtrArray *new_items,
                               AgentsRunContext *ctx);
AGENTS_AVAILABLE_IN_1_0
AgentsHandoffInputData *
agents_handoff_input_data_ref (AgentsHandoffInputData *self);
AGENTS_AVAILABLE_IN_1_0
void agents_handoff_input_data_unref (AgentsHandoffInputData *self);
AGENTS_AVAILABLE_IN_1_0
JsonNode *
agents_handoff_input_data_get_input_history (AgentsHandoffInputData *self);
AGENTS_AVAILABLE_IN_1_0
GPtrArray *
agents_handoff_input_data_get_pre_handoff_items (AgentsHandoffInputData *self);
AGENTS_AVAILABLE_IN_1_0
GPtrArray *
agents_handoff_input_data_get_new_items (AgentsHandoffInputData *self);
AGENTS_AVAILABLE_IN_1_0
AgentsRunContext *
agents_handoff_input_data_get_run_context (AgentsHandoffInputData *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AgentsHandoffInputData,
                               agents_handoff_input_data_unref)

/* AgentsHandoff */

/**
 * AgentsHandoffInputFilter:
 * @data: what the next agent would see
 * @user_data: the data given with the function
 *
 * Rewrites what the agent a run hands off to sees.
 *
 * Returns: (transfer full): what the next agent sees
 */
typedef AgentsHandoffInputData *(*AgentsHandoffInputFilter) (
  AgentsHandoffInputData *data, gpointer user_data);

#define AGENTS_TYPE_HANDOFF (agents_handoff_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (AgentsHandoff, agents_handoff, AGENTS, HANDOFF, GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsHandoff *agents_handoff_new (AgentsAgent *agent);
AGENTS_AVAILABLE_IN_1_0
AgentsAgent *agents_handoff_get_agent (AgentsHandoff *self);
AGENTS_AVAILABLE_IN_1_0
const char *agents_handoff_get_agent_name (AgentsHandoff *self);
AGENTS_AVAILABLE_IN_1_0
const char *agents_handoff_get_tool_name (AgentsHandoff *self);
AGENTS_AVAILABLE_IN_1_0
void agents_handoff_set_tool_name (AgentsHandoff *self, const char *tool_name);
AGENTS_AVAILABLE_IN_1_0
const char *agents_handoff_get_tool_description (AgentsHandoff *self);
AGENTS_AVAILABLE_IN_1_0
void agents_handoff_set_tool_description (AgentsHandoff *self,
                                          const char *description);
AGENTS_AVAILABLE_IN_1_0
JsonObject *agents_handoff_get_input_json_schema (AgentsHandoff *self);
AGENTS_AVAILABLE_IN_1_0
void agents_handoff_set_input_json_schema (AgentsHandoff *self,
                                           JsonObject *schema);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_handoff_get_strict (AgentsHandoff *self);
AGENTS_AVAILABLE_IN_1_0
void agents_handoff_set_strict (AgentsHandoff *self, gboolean strict);
AGENTS_AVAILABLE_IN_1_0
void agents_handoff_set_input_filter (AgentsHandoff *self,
                                      AgentsHandoffInputFilter filter,
                                      gpointer user_data,
                                      GDestroyNotify destroy);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_handoff_has_input_filter (AgentsHandoff *self);
AGENTS_AVAILABLE_IN_1_0
AgentsHandoffInputData *agents_handoff_apply_input_filter (
  AgentsHandoff *self, AgentsHandoffInputData *data) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
JsonObject *
agents_handoff_to_model_json (AgentsHandoff *self) G_GNUC_WARN_UNUSED_RESULT;

AGENTS_AVAILABLE_IN_1_0
char *
agents_handoff_default_tool_name (AgentsAgent *agent) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
char *agents_handoff_default_tool_description (AgentsAgent *agent)
  G_GNUC_WARN_UNUSED_RESULT;

G_END_DECLS
