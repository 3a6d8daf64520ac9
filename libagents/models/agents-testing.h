/* agents-testing.h - helpers for tests of agents
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include <json-glib/json-glib.h>

#include "run/agents-agent.h"
#include "run/agents-tool.h"
#include "agents-version-macros.h"

G_BEGIN_DECLS

AGENTS_AVAILABLE_IN_1_0
JsonObject *agents_testing_final_output_message (const char *text)
  G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
JsonObject *agents_testing_function_tool_call (const char *name,
                                               const char *arguments,
                                               const char *call_id)
  G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
JsonObject *agents_testing_handoff_tool_call (AgentsAgent *to_agent)
  G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
JsonObject *agents_testing_reasoning_item (const char *id, const char *summary)
  G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
AgentsTool *agents_testing_function_tool (
  const char *name, const char *return_value) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
JsonArray *agents_testing_items (JsonObject *first, ...)
  G_GNUC_NULL_TERMINATED G_GNUC_WARN_UNUSED_RESULT;

G_END_DECLS
