/* agents-agent-file.h - agents described in JSON files
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <agents.h>

G_BEGIN_DECLS

/* Loads the agent described by the JSON file @path (docs/agent-file.md):
 * a sandbox agent with its capabilities, default manifest, model and
 * handoffs. Nothing is created in any sandbox. Errors name the file and
 * the member at fault. */
AgentsAgent *agents_cli_load_agent_file (const char *path, GError **error);

/* A resumed run goes on where the saved one stopped: drops the first
 * @n_used turns of the script of @agent's model (the responses the saved
 * run got), when it is a scripted model. Handoffs sharing that model
 * share its queue; a handoff with a script of its own starts it over. */
void agents_cli_skip_scripted_turns (AgentsAgent *agent, guint n_used);

/* Unsets the models of @agent and its handoffs (@depth: 0). A scripted
 * model keeps the requests it got, which hold the agents, which hold the
 * model: this breaks that cycle once the run is over. */
/* `--model PROVIDER:NAME` and `--base-url URL`: every agent of the tree
 * uses that model (either may be NULL). */
gboolean agents_cli_override_model (AgentsAgent *agent,
                                    const char *spec,
                                    const char *base_url,
                                    GError **error);

void agents_cli_release_models (AgentsAgent *agent, guint depth);

G_END_DECLS
