/* agents-run-item.h - the items a run produces
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

/* Declared in full in agents-agent.h. */
typedef struct _AgentsAgent AgentsAgent;

/**
 * AgentsRunItemKind:
 * @AGENTS_RUN_ITEM_KIND_MESSAGE_OUTPUT: a message from the model
 * @AGENTS_RUN_ITEM_KIND_TOOL_CALL: a tool call by the model
 * @AGENTS_RUN_ITEM_KIND_TOOL_CALL_OUTPUT: the output of a tool call
 * @AGENTS_RUN_ITEM_KIND_HANDOFF_CALL: a call of a handoff tool
 * @AGENTS_RUN_ITEM_KIND_HANDOFF_OUTPUT: the output of a handoff: the
 *   control went from the source agent to the target agent
 * @AGENTS_RUN_ITEM_KIND_REASONING: a reasoning item
 * @AGENTS_RUN_ITEM_KIND_TOOL_APPROVAL: a tool call waiting for approval
 *
 * The kinds of #AgentsRunItem.
 */
typedef enum
{
  AGENTS_RUN_ITEM_KIND_MESSAGE_OUTPUT,
  AGENTS_RUN_ITEM_KIND_TOOL_CALL,
  AGENTS_RUN_ITEM_KIND_TOOL_CALL_OUTPUT,
  AGENTS_RUN_ITEM_KIND_HANDOFF_CALL,
  AGENTS_RUN_ITEM_KIND_HANDOFF_OUTPUT,
  AGENTS_RUN_ITEM_KIND_REASONING,
  AGENTS_RUN_ITEM_KIND_TOOL_APPROVAL,
} AgentsRunItemKind;

/**
 * AgentsApprovalStatus:
 * @AGENTS_APPROVAL_STATUS_UNKNOWN: no decision was taken yet
 * @AGENTS_APPROVAL_STATUS_APPROVED: the tool call is approved
 * @AGENTS_APPROVAL_STATUS_REJECTED: the tool call is rejected
 *
 * Whether a tool call was approved, see
 * agents_run_context_is_tool_approved().
 */
typedef enum
{
  AGENTS_APPROVAL_STATUS_UNKNOWN,
  AGENTS_APPROVAL_STATUS_APPROVED,
  AGENTS_APPROVAL_STATUS_REJECTED,
} AgentsApprovalStatus;

#define AGENTS_TYPE_RUN_ITEM (agents_run_item_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (AgentsRunItem, agents_run_item, AGENTS, RUN_ITEM, GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsRunItem *agents_run_item_new (AgentsRunItemKind kind,
                                    AgentsAgent *agent,
                                    JsonObject *raw_item);
AGENTS_AVAILABLE_IN_1_0
AgentsRunItem *agents_run_item_new_tool_output (AgentsAgent *agent,
                                                JsonObject *raw_item,
                                                JsonNode *output);
AGENTS_AVAILABLE_IN_1_0
AgentsRunItem *agents_run_item_new_handoff_output (AgentsAgent *agent,
                                                   JsonObject *raw_item,
                                                   AgentsAgent *source_agent,
                                                   AgentsAgent *target_agent);
AGENTS_AVAILABLE_IN_1_0
AgentsRunItem *agents_run_item_new_tool_approval (AgentsAgent *agent,
                                                  JsonObject *raw_item,
                                                  const char *tool_name);

AGENTS_AVAILABLE_IN_1_0
AgentsRunItemKind agents_run_item_get_kind (AgentsRunItem *self);
AGENTS_AVAILABLE_IN_1_0
JsonObject *agents_run_item_get_raw_item (AgentsRunItem *self);
AGENTS_AVAILABLE_IN_1_0
AgentsAgent *agents_run_item_get_agent (AgentsRunItem *self);
AGENTS_AVAILABLE_IN_1_0
JsonNode *agents_run_item_get_output (AgentsRunItem *self);
AGENTS_AVAILABLE_IN_1_0
AgentsAgent *agents_run_item_get_source_agent (AgentsRunItem *self);
AGENTS_AVAILABLE_IN_1_0
AgentsAgent *agents_run_item_get_target_agent (AgentsRunItem *self);
AGENTS_AVAILABLE_IN_1_0
const char *agents_run_item_get_tool_name (AgentsRunItem *self);
AGENTS_AVAILABLE_IN_1_0
const char *agents_run_item_get_call_id (AgentsRunItem *self);

AGENTS_AVAILABLE_IN_1_0
JsonObject *
agents_run_item_to_input_item (AgentsRunItem *self) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
char *agents_run_item_get_text (AgentsRunItem *self) G_GNUC_WARN_UNUSED_RESULT;

G_END_DECLS
