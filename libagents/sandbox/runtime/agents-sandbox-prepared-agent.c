/* agents-sandbox-prepared-agent.c - what the runtime prepared for a turn
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-sandbox-runtime-private.h"

/**
 * AgentsSandboxPreparedAgent:
 *
 * What agents_sandbox_runtime_prepare_agent_async() prepared for a turn:
 * the agent to execute and the model input.
 */
G_DEFINE_FINAL_TYPE (AgentsSandboxPreparedAgent,
                     agents_sandbox_prepared_agent,
                     G_TYPE_OBJECT)

static void
agents_sandbox_prepared_agent_finalize (GObject *object)
{
  AgentsSandboxPreparedAgent *self = AGENTS_SANDBOX_PREPARED_AGENT (object);

  g_clear_object (&self->agent);
  g_clear_object (&self->execution_agent);
  g_clear_pointer (&self->input, json_node_unref);
  g_clear_object (&self->session);

  G_OBJECT_CLASS (agents_sandbox_prepared_agent_parent_class)
    ->finalize (object);
}

static void
agents_sandbox_prepared_agent_class_init (
  AgentsSandboxPreparedAgentClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = agents_sandbox_prepared_agent_finalize;
}

static void
agents_sandbox_prepared_agent_init (AgentsSandboxPreparedAgent *self)
{
}

AgentsSandboxPreparedAgent *
agents_sandbox_prepared_agent_new (AgentsAgent *agent,
                                   AgentsAgent *execution_agent,
                                   JsonNode *input,
                                   AgentsSandboxSession *session)
{
  AgentsSandboxPreparedAgent *self =
    g_object_new (AGENTS_TYPE_SANDBOX_PREPARED_AGENT, NULL);

  self->agent = g_object_ref (agent);
  self->execution_agent = g_object_ref (execution_agent);
  self->input = input ? json_node_ref (input) : NULL;
  self->session = session ? g_object_ref (session) : NULL;
  return self;
}

/**
 * agents_sandbox_prepared_agent_get_agent:
 * @self: a prepared agent
 *
 * Gets the agent that was prepared, as the user built it.
 *
 * Returns: (transfer none): the public agent
 */
AgentsAgent *
agents_sandbox_prepared_agent_get_agent (AgentsSandboxPreparedAgent *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_PREPARED_AGENT (self), NULL);
  return self->agent;
}

/**
 * agents_sandbox_prepared_agent_get_execution_agent:
 * @self: a prepared agent
 *
 * Gets the agent to execute: for a sandbox agent, its execution agent (an
 * #AgentsSandboxAgent bound to the agent's session, the same object for
 * every turn while the session lives); for other agents, the agent
 * itself.
 *
 * Returns: (transfer none): the execution agent
 */
AgentsAgent *
agents_sandbox_prepared_agent_get_execution_agent (
  AgentsSandboxPreparedAgent *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_PREPARED_AGENT (self), NULL);
  return self->execution_agent;
}

/**
 * agents_sandbox_prepared_agent_get_input:
 * @self: a prepared agent
 *
 * Gets the model input: item arrays have been through the capabilities'
 * agents_capability_process_context(); strings are as given.
 *
 * Returns: (transfer none): the input
 */
JsonNode *
agents_sandbox_prepared_agent_get_input (AgentsSandboxPreparedAgent *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_PREPARED_AGENT (self), NULL);
  return self->input;
}

/**
 * agents_sandbox_prepared_agent_get_session:
 * @self: a prepared agent
 *
 * Gets the live session of a sandbox agent.
 *
 * Returns: (transfer none) (nullable): the session, or %NULL for agents
 *   that are not sandbox agents
 */
AgentsSandboxSession *
agents_sandbox_prepared_agent_get_session (AgentsSandboxPreparedAgent *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_PREPARED_AGENT (self), NULL);
  return self->session;
}
