/* agents-guardrail.h - checks of a run's input and final output
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

#include "agents-run-context.h"
#include "agents-version-macros.h"

G_BEGIN_DECLS

/* Declared in full in agents-agent.h. */
typedef struct _AgentsAgent AgentsAgent;

/* AgentsGuardrailResult */

#define AGENTS_TYPE_GUARDRAIL_RESULT (agents_guardrail_result_get_type ())

typedef struct _AgentsGuardrailResult AgentsGuardrailResult;

AGENTS_AVAILABLE_IN_1_0
GType agents_guardrail_result_get_type (void) G_GNUC_CONST;
AGENTS_AVAILABLE_IN_1_0
AgentsGuardrailResult *
agents_guardrail_result_new (JsonNode *output_info,
                             gboolean tripwire_triggered);
AGENTS_AVAILABLE_IN_1_0
AgentsGuardrailResult *
agents_guardrail_result_ref (AgentsGuardrailResult *self);
AGENTS_AVAILABLE_IN_1_0
void agents_guardrail_result_unref (AgentsGuardrailResult *self);
AGENTS_AVAILABLE_IN_1_0
JsonNode *agents_guardrail_result_get_output_info (AgentsGuardrailResult *self);
AGENTS_AVAILABLE_IN_1_0
gboolean
agents_guardrail_result_get_tripwire_triggered (AgentsGuardrailResult *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AgentsGuardrailResult,
                               agents_guardrail_result_unref)

/* AgentsInputGuardrail */

/**
 * AgentsInputGuardrailFunc:
 * @ctx: the run context
 * @agent: the agent the run started with, as the user built it
 * @input: the run's input: a string, or an array of input items
 * @user_data: the data given with the function
 *
 * Checks the input of a run.
 *
 * Returns: (transfer full): the result of the check
 */
typedef AgentsGuardrailResult *(*AgentsInputGuardrailFunc) (
  AgentsRunContext *ctx,
  AgentsAgent *agent,
  JsonNode *input,
  gpointer user_data);

/**
 * AgentsInputGuardrailAsyncFunc:
 * @ctx: the run context
 * @agent: the agent the run started with, as the user built it
 * @input: the run's input: a string, or an array of input items
 * @task: the task to complete with an #AgentsGuardrailResult
 * @user_data: the data given with the function
 *
 * Checks the input of a run asynchronously. It must complete @task with
 * agents_guardrail_return_result() or an error, taking its own reference
 * if it does so later.
 */
typedef void (*AgentsInputGuardrailAsyncFunc) (AgentsRunContext *ctx,
                                               AgentsAgent *agent,
                                               JsonNode *input,
                                               GTask *task,
                                               gpointer user_data);

#define AGENTS_TYPE_INPUT_GUARDRAIL (agents_input_guardrail_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (AgentsInputGuardrail,
                      agents_input_guardrail,
                      AGENTS,
                      INPUT_GUARDRAIL,
                      GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsInputGuardrail *agents_input_guardrail_new (const char *name,
                                                  AgentsInputGuardrailFunc func,
                                                  gpointer user_data,
                                                  GDestroyNotify destroy);
AGENTS_AVAILABLE_IN_1_0
AgentsInputGuardrail *
agents_input_guardrail_new_async (const char *name,
                                  AgentsInputGuardrailAsyncFunc func,
                                  gpointer user_data,
                                  GDestroyNotify destroy);
AGENTS_AVAILABLE_IN_1_0
const char *agents_input_guardrail_get_name (AgentsInputGuardrail *self);
AGENTS_AVAILABLE_IN_1_0
gboolean
agents_input_guardrail_get_run_in_parallel (AgentsInputGuardrail *self);
AGENTS_AVAILABLE_IN_1_0
void agents_input_guardrail_set_run_in_parallel (AgentsInputGuardrail *self,
                                                 gboolean run_in_parallel);
AGENTS_AVAILABLE_IN_1_0
void agents_input_guardrail_run_async (AgentsInputGuardrail *self,
                                       AgentsRunContext *ctx,
                                       AgentsAgent *agent,
                                       JsonNode *input,
                                       GCancellable *cancellable,
                                       GAsyncReadyCallback callback,
                                       gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
AgentsGuardrailResult *
agents_input_guardrail_run_finish (AgentsInputGuardrail *self,
                                   GAsyncResult *result,
                                   GError **error) G_GNUC_WARN_UNUSED_RESULT;

/* AgentsOutputGuardrail */

/**
 * AgentsOutputGuardrailFunc:
 * @ctx: the run context
 * @agent: the agent that produced the output, as the user built it
 * @output: the final output of the run
 * @user_data: the data given with the function
 *
 * Checks the final output of a run.
 *
 * Returns: (transfer full): the result of the check
 */
typedef AgentsGuardrailResult *(*AgentsOutputGuardrailFunc) (
  AgentsRunContext *ctx,
  AgentsAgent *agent,
  JsonNode *output,
  gpointer user_data);

/**
 * AgentsOutputGuardrailAsyncFunc:
 * @ctx: the run context
 * @agent: the agent that produced the output, as the user built it
 * @output: the final output of the run
 * @task: the task to complete with an #AgentsGuardrailResult
 * @user_data: the data given with the function
 *
 * Checks the final output of a run asynchronously. It must complete @task
 * with agents_guardrail_return_result() or an error, taking its own
 * reference if it does so later.
 */
typedef void (*AgentsOutputGuardrailAsyncFunc) (AgentsRunContext *ctx,
                                                AgentsAgent *agent,
                                                JsonNode *output,
                                                GTask *task,
                                                gpointer user_data);

#define AGENTS_TYPE_OUTPUT_GUARDRAIL (agents_output_guardrail_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (AgentsOutputGuardrail,
                      agents_output_guardrail,
                      AGENTS,
                      OUTPUT_GUARDRAIL,
                      GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsOutputGuardrail *
agents_output_guardrail_new (const char *name,
                             AgentsOutputGuardrailFunc func,
                             gpointer user_data,
                             GDestroyNotify destroy);
AGENTS_AVAILABLE_IN_1_0
AgentsOutputGuardrail *
agents_output_guardrail_new_async (const char *name,
                                   AgentsOutputGuardrailAsyncFunc func,
                                   gpointer user_data,
                                   GDestroyNotify destroy);
AGENTS_AVAILABLE_IN_1_0
const char *agents_output_guardrail_get_name (AgentsOutputGuardrail *self);
AGENTS_AVAILABLE_IN_1_0
void agents_output_guardrail_run_async (AgentsOutputGuardrail *self,
                                        AgentsRunContext *ctx,
                                        AgentsAgent *agent,
                                        JsonNode *output,
                                        GCancellable *cancellable,
                                        GAsyncReadyCallback callback,
                                        gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
AgentsGuardrailResult *
agents_output_guardrail_run_finish (AgentsOutputGuardrail *self,
                                    GAsyncResult *result,
                                    GError **error) G_GNUC_WARN_UNUSED_RESULT;

AGENTS_AVAILABLE_IN_1_0
void agents_guardrail_return_result (GTask *task,
                                     AgentsGuardrailResult *result);

G_END_DECLS
