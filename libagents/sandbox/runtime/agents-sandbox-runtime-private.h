/* agents-sandbox-runtime-private.h - internals shared by the runtime files
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-sandbox-agent.h"
#include "agents-sandbox-runtime.h"
#include "agents-sandbox-session-manager.h"
#include "run/agents-run-private.h"

G_BEGIN_DECLS

/* AgentsSandboxRunConfig implements the runner's AgentsRunPreparer with
 * these (agents-sandbox-runtime.c): one AgentsSandboxRuntime per run, kept
 * as the run's AgentsRunPreparation data. */
void
agents_sandbox_runtime_preparer_iface_init (AgentsRunPreparerInterface *iface);

/* Spans of the sandbox runtime: a custom span @name under @parent in
 * @trace, or, when @trace is NULL, under the calling thread's current
 * span of its current trace; NULL when there is no trace. Never made the
 * thread's current span (runs interleave on one thread). */
AgentsSpan *agents_sandbox_span_start (AgentsTrace *trace,
                                       AgentsSpan *parent,
                                       const char *name,
                                       JsonObject *data);
/* Ends @span (nullable) with @error (nullable) and drops it. */
void agents_sandbox_span_finish (AgentsSpan **span, const GError *error);

/* Where the session manager's spans go: @parent (nullable) in @trace
 * (nullable: the thread's current trace at the time of each span). */
void agents_sandbox_session_manager_set_trace (
  AgentsSandboxSessionManager *self, AgentsTrace *trace, AgentsSpan *parent);

/* The runner's preparation seam (agents-sandbox-runtime.c) reads it. */
struct _AgentsSandboxPreparedAgent
{
  GObject parent_instance;

  AgentsAgent *agent;
  AgentsAgent *execution_agent;
  JsonNode *input;
  AgentsSandboxSession *session;
};

/* What agents_sandbox_runtime_prepare_agent_async() gives
 * (agents-sandbox-prepared-agent.c): @agent, the @execution_agent that
 * runs the turn, the model @input (nullable) and the @session
 * (nullable). */
AgentsSandboxPreparedAgent *
agents_sandbox_prepared_agent_new (AgentsAgent *agent,
                                   AgentsAgent *execution_agent,
                                   JsonNode *input,
                                   AgentsSandboxSession *session);

/* Execution agents (agents-sandbox-agent.c). A prepared clone of @public
 * whose capabilities are @capabilities (bound to @session), whose tools
 * are the public agent's then the capabilities', whose model settings
 * carry the capabilities' sampling params in extra_args, and whose system
 * prompt is the sandbox prompt built around the public agent's own
 * instructions, its `# Filesystem` section naming @workspace_cwd
 * (normalized, nullable), the run's working directory. */
AgentsSandboxAgent *
agents_sandbox_agent_new_execution (AgentsSandboxAgent *public_agent,
                                    GPtrArray *capabilities,
                                    AgentsSandboxSession *session,
                                    AgentsRunConfig *run_config,
                                    const char *workspace_cwd);

/* The run-as user of a sandbox agent as the runtime uses it. */
AgentsUser *agents_sandbox_agent_dup_run_as (AgentsSandboxAgent *self);

void agents_sandbox_run_config_watch_progress (AgentsSandboxRunConfig *self,
                                               AgentsSandboxSession *session);

G_END_DECLS
