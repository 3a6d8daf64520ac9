/* agents-run-state-private.h - what the run state files share
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-run-private.h"
#include "agents-run-state.h"

G_BEGIN_DECLS

struct _AgentsRunState
{
  GObject parent_instance;

  AgentsRunContext *ctx;
  JsonNode *original_input;
  AgentsAgent *starting_agent;
  AgentsAgent *current_agent;
  guint current_turn;
  guint max_turns;
  GListStore *generated_items;
  GListStore *model_responses;
  GListStore *interruptions;
  AgentsToolUseTracker *tracker;
  JsonObject *sandbox;
};

/* The name of @agent, "" for none. */
const char *agents_run_private_agent_name (AgentsAgent *agent);
/* The identity map of the graphs of @roots, in this order. */
AgentsAgentIdentityMap *
agents_run_private_identity_map_new (AgentsAgent **roots, guint n_roots);

G_END_DECLS
