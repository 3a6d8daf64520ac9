/* agents-run-private.h - internals shared by the run/ and models/ modules
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-agent.h"
#include "agents-json-private.h"
#include "agents-guardrail.h"
#include "models/agents-model.h"
#include "agents-run-config.h"
#include "agents-run-context.h"
#include "agents-run-error.h"
#include "agents-run-item.h"
#include "agents-tool.h"

G_BEGIN_DECLS

/* Errors */

/* Sets an AGENTS_RUN_ERROR_INPUT_GUARDRAIL_TRIPWIRE or
 * AGENTS_RUN_ERROR_OUTPUT_GUARDRAIL_TRIPWIRE error: message
 * "Guardrail InputGuardrail triggered tripwire" (resp. OutputGuardrail, the
 * reference's text), context {"guardrail": name, "output_info": JSON text}. */
void agents_run_error_set_guardrail_tripwire (GError **error,
                                              int code,
                                              const char *guardrail_name,
                                              AgentsGuardrailResult *result);

/* Run context: the runner of the current run and its config, set by the
 * runner before the first turn (agents used as tools need them). The
 * runner is an AgentsRunner, kept as a GObject here. Both are strong
 * references; the runner clears them when the run ends. */
void agents_run_context_set_runner (AgentsRunContext *self, GObject *runner);
GObject *agents_run_context_get_runner (AgentsRunContext *self);
void agents_run_context_set_run_config (AgentsRunContext *self,
                                        AgentsRunConfig *config);
AgentsRunConfig *agents_run_context_get_run_config (AgentsRunContext *self);

/* Agent hooks: the runner emits the agent's signals through these, always
 * with the public agent. @tool-start/@tool-end are emitted with the tool's
 * name as detail. */
void agents_agent_emit_start (AgentsAgent *agent, AgentsRunContext *ctx);
void agents_agent_emit_end (AgentsAgent *agent,
                            AgentsRunContext *ctx,
                            JsonNode *output);
void agents_agent_emit_llm_start (AgentsAgent *agent,
                                  AgentsRunContext *ctx,
                                  const char *system_prompt,
                                  JsonArray *input);
void agents_agent_emit_llm_end (AgentsAgent *agent,
                                AgentsRunContext *ctx,
                                AgentsModelResponse *response);
void agents_agent_emit_tool_start (AgentsAgent *agent,
                                   AgentsRunContext *ctx,
                                   AgentsTool *tool);
void agents_agent_emit_tool_end (AgentsAgent *agent,
                                 AgentsRunContext *ctx,
                                 AgentsTool *tool,
                                 JsonNode *result);
void agents_agent_emit_handoff (AgentsAgent *agent,
                                AgentsRunContext *ctx,
                                AgentsAgent *source);

/* Agents as tools. agents_agent_as_tool() makes a function tool whose
 * invocation calls this hook with the runner and run config of the current
 * run (from the run context; either may be NULL when the tool is invoked
 * outside a run) and the `input` member of the model's arguments. The
 * runner (agents-runner.c) installs the hook, e.g. in its class_init; it
 * runs @agent as a sub-run and completes @task (transfer none; take a
 * reference to complete it later) with a JsonNode, the sub-run's final
 * output (g_task_return_pointer (task, node, json_node_unref)), or an
 * error. While the hook is NULL, invoking such a tool fails with
 * AGENTS_RUN_ERROR_USER_ERROR. */
typedef void (*AgentsRunAgentAsToolFunc) (GObject *runner,
                                          AgentsRunConfig *config,
                                          AgentsAgent *agent,
                                          AgentsRunContext *ctx,
                                          const char *input,
                                          GTask *task);
extern AgentsRunAgentAsToolFunc agents_run_private_run_agent_as_tool;

/* The agent an agents_agent_as_tool() tool runs, or NULL for other tools
 * (the run state's identity map walks agents used as tools). */
AgentsAgent *agents_run_private_tool_get_agent (AgentsTool *tool);

/* What a function tool answers the model when it fails with @error: its
 * error function's text, else the default one (agents-tool.c). */
char *agents_function_tool_private_failure_text (AgentsFunctionTool *self,
                                                 AgentsRunContext *ctx,
                                                 const GError *error);

/* The output text of a tool's output node, as the model sees it in a
 * function_call_output: strings as they are, other JSON as JSON text. */
char *agents_run_private_output_to_text (JsonNode *output);

/* The `output` member of a call output item for a tool's output node
 * (agents-tool-output.c): an array of `input_text`/`input_image`/
 * `input_file` parts when the output is such a part or a list of them,
 * else a string (agents_run_private_output_to_text()). */
JsonNode *agents_run_private_tool_output_to_wire (JsonNode *output);

/* The run's JSON helpers are those of agents-json-private.h; the names
 * stay for the run's many callers. */
#define agents_run_private_json_string agents_json_get_string
#define agents_run_private_json_object_copy agents_json_object_copy
#define agents_run_private_json_array_copy agents_json_array_copy

/* ======================================================================
 * Runner, results and run states (agents-runner.c, agents-run-result.c,
 * agents-run-state.c). Everything below this line belongs to them.
 * ====================================================================== */

G_END_DECLS

#include "agents-run-result.h"
#include "agents-run-state.h"
#include "agents-tracing.h"

G_BEGIN_DECLS

/* ---- The preparation seam -------------------------------------------
 *
 * The sandbox runtime prepares agents for execution through this seam.
 * When a run's AgentsRunConfig:sandbox is non-NULL, that object must
 * implement AgentsRunPreparer (else the run fails with
 * AGENTS_RUN_ERROR_USER_ERROR before its first turn). The runner then:
 *
 *  - before every model call (and, when resuming, before executing the
 *    approved tool calls) calls @prepare_agent with the *public* agent —
 *    the one the user built, which is the current agent of the run — and
 *    the model input of the turn. Its task returns, through
 *    agents_run_preparer_return_prepared(), the *execution agent* and the
 *    processed input. The runner takes from the execution agent the model,
 *    model settings, tools, handoffs (which must lead to public agents),
 *    output schema and system prompt
 *    (agents_agent_get_system_prompt_async() on the execution agent: an
 *    execution agent whose instructions call user functions must pass
 *    them the public agent, as the reference's prepared sandbox agents
 *    do — e.g. its class's get_system_prompt asks the public agent's
 *    agents_agent_get_system_prompt_async() for the agent's own part and
 *    adds the sandbox's). Everything else — hooks, stream events, items,
 *    guardrails, the prompt function, the call_model_input_filter, the
 *    tool use tracker and the result's agents — sees the public agent.
 *    Returning the public agent itself is allowed. Blocking input
 *    guardrails run before the first preparation, so a tripwire prepares
 *    nothing.
 *
 *  - once the run is over — finished, interrupted, failed or cancelled,
 *    streamed or not — calls @cleanup exactly once (also when no agent
 *    was prepared). Its task returns a JsonObject or NULL: the payload
 *    the runner stores as the result's sandbox resume state, which
 *    agents_run_result_to_state() puts in the run state's "sandbox"
 *    member (NULL: no member, e.g. when cleanup failed). A failing
 *    cleanup task is logged and otherwise treated as a NULL payload.
 *    The run's result (and the streamed run's wait_async) completes
 *    after cleanup, except after agents_run_result_streaming_cancel()
 *    with AGENTS_CANCEL_MODE_IMMEDIATE: then the stream ends at once and
 *    cleanup goes on unawaited (its task's cancellable is never the
 *    run's, which is cancelled by then).
 *
 * Per-run data lives in the AgentsRunPreparation the runner creates for
 * every run (one object may serve concurrent runs): see
 * agents_run_preparation_set_data(). Both vfuncs receive the task
 * created by the runner (transfer none) and must complete it, on the
 * thread of the run's main context. The preparer may set the result's
 * sandbox session slot (agents_run_preparation_get_result() +
 * agents_run_private_result_set_sandbox_session()); the runner does not
 * touch it. Agents used as tools run as sub-runs with the same run
 * config, so they are prepared by the same preparer, in their own
 * AgentsRunPreparation.
 *
 * A sandbox agent run without a sandbox config must fail with
 * AGENTS_RUN_ERROR_USER_ERROR: its get_system_prompt vfunc can tell
 * (agents_run_context_get_run_config() of the run context). */

#define AGENTS_TYPE_RUN_PREPARER (agents_run_preparer_get_type ())
G_DECLARE_INTERFACE (
  AgentsRunPreparer, agents_run_preparer, AGENTS, RUN_PREPARER, GObject)

typedef struct _AgentsRunPreparation AgentsRunPreparation;

struct _AgentsRunPreparerInterface
{
  GTypeInterface g_iface;

  void (*prepare_agent) (AgentsRunPreparer *self,
                         AgentsRunPreparation *preparation,
                         AgentsAgent *public_agent,
                         JsonArray *input,
                         gboolean is_resumed,
                         GTask *task);
  void (*cleanup) (AgentsRunPreparer *self,
                   AgentsRunPreparation *preparation,
                   GTask *task);
};

/* Completes a prepare_agent task. @input: NULL keeps the input as it was
 * given. */
void agents_run_preparer_return_prepared (GTask *task,
                                          AgentsAgent *execution_agent,
                                          JsonArray *input);

/* The per-run handle (owned by the runner, valid until cleanup's task
 * completes). */
AgentsRunContext *
agents_run_preparation_get_context (AgentsRunPreparation *self);
AgentsRunConfig *
agents_run_preparation_get_run_config (AgentsRunPreparation *self);
AgentsAgent *
agents_run_preparation_get_starting_agent (AgentsRunPreparation *self);
/* The state the run resumes, or NULL: its sandbox member and its
 * starting agent (for identity keys) are the preparer's to read. */
AgentsRunState *
agents_run_preparation_get_resume_state (AgentsRunPreparation *self);
AgentsRunResult *agents_run_preparation_get_result (AgentsRunPreparation *self);
gboolean agents_tracing_private_has_processors (void);

/* The run's trace and the span of the current agent (which do not record
 * when tracing is disabled): parents for the preparer's spans, through
 * agents_trace_start_span(). Several runs may interleave on one thread,
 * so the thread's current span is not the run's. */
AgentsTrace *agents_run_preparation_get_trace (AgentsRunPreparation *self);
AgentsSpan *agents_run_preparation_get_span (AgentsRunPreparation *self);
gpointer agents_run_preparation_get_data (AgentsRunPreparation *self);
void agents_run_preparation_set_data (AgentsRunPreparation *self,
                                      gpointer data,
                                      GDestroyNotify destroy);

/* ---- Tool use tracker --------------------------------------------------
 *
 * The tools each (public) agent used during a run, for reset-tool-choice;
 * saved in run states as "tool_use_tracker". */

typedef struct _AgentsToolUseTracker AgentsToolUseTracker;

AgentsToolUseTracker *agents_tool_use_tracker_new (void);
AgentsToolUseTracker *agents_tool_use_tracker_copy (AgentsToolUseTracker *self);
void agents_tool_use_tracker_free (AgentsToolUseTracker *self);
void agents_tool_use_tracker_update (AgentsToolUseTracker *self,
                                     AgentsToolUseTracker *source);
void agents_tool_use_tracker_add (AgentsToolUseTracker *self,
                                  AgentsAgent *agent,
                                  const char *tool_name);
gboolean agents_tool_use_tracker_has_used_tools (AgentsToolUseTracker *self,
                                                 AgentsAgent *agent);
/* (transfer full) NULL-terminated, NULL when the agent used none. */
char **agents_tool_use_tracker_dup_tools (AgentsToolUseTracker *self,
                                          AgentsAgent *agent);
/* (transfer container) the agents that used tools, first user first. */
GPtrArray *agents_tool_use_tracker_get_agents (AgentsToolUseTracker *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AgentsToolUseTracker,
                               agents_tool_use_tracker_free)

/* ---- Results (filled by the runner) ------------------------------------ */

AgentsRunResult *agents_run_private_result_new (AgentsRunContext *ctx,
                                                AgentsAgent *starting_agent);
void agents_run_private_result_set_input (AgentsRunResult *self,
                                          JsonNode *input);
void agents_run_private_result_set_final_output (AgentsRunResult *self,
                                                 JsonNode *output);
void agents_run_private_result_set_last_agent (AgentsRunResult *self,
                                               AgentsAgent *agent);
void agents_run_private_result_append_item (AgentsRunResult *self,
                                            AgentsRunItem *item);
/* (element-type AgentsRunItem) replaces every new item. */
void agents_run_private_result_set_items (AgentsRunResult *self,
                                          GPtrArray *items);
void agents_run_private_result_append_response (AgentsRunResult *self,
                                                AgentsModelResponse *response);
void agents_run_private_result_set_interruptions (AgentsRunResult *self,
                                                  GPtrArray *interruptions);
/* Turn counter, max turns and a copy of the tracker, for to_state(). */
void agents_run_private_result_set_progress (AgentsRunResult *self,
                                             guint current_turn,
                                             guint max_turns,
                                             AgentsToolUseTracker *tracker);
/* The sandbox runtime's slots. */
void agents_run_private_result_set_sandbox_session (AgentsRunResult *self,
                                                    GObject *session);
GObject *agents_run_private_result_get_sandbox_session (AgentsRunResult *self);
void agents_run_private_result_set_sandbox_resume_state (AgentsRunResult *self,
                                                         JsonObject *payload);
JsonObject *
agents_run_private_result_get_sandbox_resume_state (AgentsRunResult *self);
void agents_run_private_result_set_sandbox_error (AgentsRunResult *self,
                                                  const GError *error);

/* ---- Run states (read and filled by the runner) ------------------------ */

void agents_run_private_state_set_progress (AgentsRunState *self,
                                            guint current_turn,
                                            GPtrArray *generated_items,
                                            GPtrArray *model_responses,
                                            GPtrArray *interruptions,
                                            AgentsToolUseTracker *tracker);
AgentsToolUseTracker *
agents_run_private_state_get_tool_use_tracker (AgentsRunState *self);

/* ---- Streamed results (fed by the runner) ------------------------------ */

AgentsRunResultStreaming *
agents_run_private_streaming_new (AgentsRunResult *result);
/* Emits "event" and queues @event for next_event_async(). */
void agents_run_private_streaming_push (AgentsRunResultStreaming *self,
                                        AgentsStreamEvent *event);
void
agents_run_private_streaming_set_current_agent (AgentsRunResultStreaming *self,
                                                AgentsAgent *agent);
/* The stream ends (next_event returns NULL, or @error once); @error
 * (nullable) is the run's error. */
void agents_run_private_streaming_finish_stream (AgentsRunResultStreaming *self,
                                                 const GError *error);
/* The run loop task is over (wait_async completes). */
void agents_run_private_streaming_finish_run (AgentsRunResultStreaming *self,
                                              const GError *error);
/* How the runner learns about cancel(): called once per cancel() call. */
typedef void (*AgentsRunCancelFunc) (AgentsCancelMode mode, gpointer data);
void
agents_run_private_streaming_set_cancel_func (AgentsRunResultStreaming *self,
                                              AgentsRunCancelFunc func,
                                              gpointer data,
                                              GDestroyNotify destroy);
AgentsStreamEvent *
agents_run_private_stream_event_new (AgentsStreamEventKind kind,
                                     const char *name,
                                     AgentsRunItem *item,
                                     JsonObject *raw_event,
                                     AgentsAgent *agent);

G_END_DECLS
