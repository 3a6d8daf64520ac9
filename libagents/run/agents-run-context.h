/* agents-run-context.h - what a run carries from turn to turn
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

#include "agents-run-item.h"
#include "agents-version-macros.h"

G_BEGIN_DECLS

#define AGENTS_TYPE_RUN_CONTEXT (agents_run_context_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (
  AgentsRunContext, agents_run_context, AGENTS, RUN_CONTEXT, GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsRunContext *agents_run_context_new (GObject *context);

AGENTS_AVAILABLE_IN_1_0
GObject *agents_run_context_get_context (AgentsRunContext *self);
AGENTS_AVAILABLE_IN_1_0
void agents_run_context_set_context (AgentsRunContext *self, GObject *context);

AGENTS_AVAILABLE_IN_1_0
guint64 agents_run_context_get_requests (AgentsRunContext *self);
AGENTS_AVAILABLE_IN_1_0
guint64 agents_run_context_get_input_tokens (AgentsRunContext *self);
AGENTS_AVAILABLE_IN_1_0
guint64 agents_run_context_get_output_tokens (AgentsRunContext *self);
AGENTS_AVAILABLE_IN_1_0
guint64 agents_run_context_get_total_tokens (AgentsRunContext *self);
AGENTS_AVAILABLE_IN_1_0
void agents_run_context_add_usage (AgentsRunContext *self, JsonObject *usage);
AGENTS_AVAILABLE_IN_1_0
JsonObject *
agents_run_context_get_usage (AgentsRunContext *self) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
void agents_run_context_set_usage (AgentsRunContext *self, JsonObject *usage);

AGENTS_AVAILABLE_IN_1_0
void agents_run_context_approve_tool (AgentsRunContext *self,
                                      AgentsRunItem *approval_item,
                                      gboolean always);
AGENTS_AVAILABLE_IN_1_0
void agents_run_context_reject_tool (AgentsRunContext *self,
                                     AgentsRunItem *approval_item,
                                     gboolean always);
AGENTS_AVAILABLE_IN_1_0
void agents_run_context_approve_tool_call (AgentsRunContext *self,
                                           const char *tool_name,
                                           const char *call_id,
                                           gboolean always);
AGENTS_AVAILABLE_IN_1_0
void agents_run_context_reject_tool_call (AgentsRunContext *self,
                                          const char *tool_name,
                                          const char *call_id,
                                          gboolean always);
AGENTS_AVAILABLE_IN_1_0
AgentsApprovalStatus agents_run_context_is_tool_approved (
  AgentsRunContext *self, const char *tool_name, const char *call_id);
AGENTS_AVAILABLE_IN_1_0
JsonObject *agents_run_context_get_approvals (AgentsRunContext *self)
  G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
gboolean agents_run_context_set_approvals (AgentsRunContext *self,
                                           JsonObject *approvals,
                                           GError **error);

G_END_DECLS
