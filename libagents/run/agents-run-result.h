/* agents-run-result.h - what a run produced, and streamed runs
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

#include "agents-agent.h"
#include "agents-run-context.h"
#include "agents-run-item.h"
#include "agents-run-state.h"
#include "agents-version-macros.h"

G_BEGIN_DECLS

/**
 * AgentsStreamEventKind:
 * @AGENTS_STREAM_EVENT_KIND_RAW_RESPONSE: a raw event of the model's
 *   response stream, in the OpenAI Responses streaming shapes
 * @AGENTS_STREAM_EVENT_KIND_RUN_ITEM: the run produced an item; the
 *   event's name tells what happened
 * @AGENTS_STREAM_EVENT_KIND_AGENT_UPDATED: another agent became the
 *   current agent of the run
 *
 * The kinds of #AgentsStreamEvent. Values are only ever appended.
 */
typedef enum
{
  AGENTS_STREAM_EVENT_KIND_RAW_RESPONSE,
  AGENTS_STREAM_EVENT_KIND_RUN_ITEM,
  AGENTS_STREAM_EVENT_KIND_AGENT_UPDATED,
} AgentsStreamEventKind;

/**
 * AgentsCancelMode:
 * @AGENTS_CANCEL_MODE_IMMEDIATE: stop now: the stream ends at once and
 *   the run's pending work is cancelled
 * @AGENTS_CANCEL_MODE_AFTER_TURN: let the current turn finish (its tools
 *   run, its items are streamed), then stop without a final output
 *
 * How agents_run_result_streaming_cancel() stops a streamed run.
 */
typedef enum
{
  AGENTS_CANCEL_MODE_IMMEDIATE,
  AGENTS_CANCEL_MODE_AFTER_TURN,
} AgentsCancelMode;

/* AgentsStreamEvent */

#define AGENTS_TYPE_STREAM_EVENT (agents_stream_event_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (
  AgentsStreamEvent, agents_stream_event, AGENTS, STREAM_EVENT, GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsStreamEventKind agents_stream_event_get_kind (AgentsStreamEvent *self);
AGENTS_AVAILABLE_IN_1_0
const char *agents_stream_event_get_name (AgentsStreamEvent *self);
AGENTS_AVAILABLE_IN_1_0
AgentsRunItem *agents_stream_event_get_item (AgentsStreamEvent *self);
AGENTS_AVAILABLE_IN_1_0
JsonObject *agents_stream_event_get_raw_event (AgentsStreamEvent *self);
AGENTS_AVAILABLE_IN_1_0
AgentsAgent *agents_stream_event_get_agent (AgentsStreamEvent *self);

/* AgentsRunResult */

#define AGENTS_TYPE_RUN_RESULT (agents_run_result_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (
  AgentsRunResult, agents_run_result, AGENTS, RUN_RESULT, GObject)

AGENTS_AVAILABLE_IN_1_0
JsonNode *agents_run_result_get_final_output (AgentsRunResult *self);
AGENTS_AVAILABLE_IN_1_0
char *agents_run_result_dup_final_output_text (AgentsRunResult *self)
  G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
GListModel *agents_run_result_get_new_items (AgentsRunResult *self);
AGENTS_AVAILABLE_IN_1_0
GListModel *agents_run_result_get_raw_responses (AgentsRunResult *self);
AGENTS_AVAILABLE_IN_1_0
GListModel *agents_run_result_get_interruptions (AgentsRunResult *self);
AGENTS_AVAILABLE_IN_1_0
JsonNode *agents_run_result_get_input (AgentsRunResult *self);
AGENTS_AVAILABLE_IN_1_0
AgentsAgent *agents_run_result_get_last_agent (AgentsRunResult *self);
AGENTS_AVAILABLE_IN_1_0
AgentsRunContext *agents_run_result_get_context (AgentsRunResult *self);
AGENTS_AVAILABLE_IN_1_0
JsonArray *agents_run_result_to_input_list (AgentsRunResult *self)
  G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
AgentsRunState *
agents_run_result_to_state (AgentsRunResult *self) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
const GError *agents_run_result_get_sandbox_error (AgentsRunResult *self);

/* AgentsRunResultStreaming */

#define AGENTS_TYPE_RUN_RESULT_STREAMING \
  (agents_run_result_streaming_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (AgentsRunResultStreaming,
                      agents_run_result_streaming,
                      AGENTS,
                      RUN_RESULT_STREAMING,
                      GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsRunResult *
agents_run_result_streaming_get_result (AgentsRunResultStreaming *self);
AGENTS_AVAILABLE_IN_1_0
JsonNode *
agents_run_result_streaming_get_final_output (AgentsRunResultStreaming *self);
AGENTS_AVAILABLE_IN_1_0
GListModel *
agents_run_result_streaming_get_new_items (AgentsRunResultStreaming *self);
AGENTS_AVAILABLE_IN_1_0
GListModel *
agents_run_result_streaming_get_raw_responses (AgentsRunResultStreaming *self);
AGENTS_AVAILABLE_IN_1_0
GListModel *
agents_run_result_streaming_get_interruptions (AgentsRunResultStreaming *self);
AGENTS_AVAILABLE_IN_1_0
AgentsAgent *
agents_run_result_streaming_get_current_agent (AgentsRunResultStreaming *self);
AGENTS_AVAILABLE_IN_1_0
gboolean
agents_run_result_streaming_get_is_complete (AgentsRunResultStreaming *self);
AGENTS_AVAILABLE_IN_1_0
JsonArray *agents_run_result_streaming_to_input_list (
  AgentsRunResultStreaming *self) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
AgentsRunState *agents_run_result_streaming_to_state (
  AgentsRunResultStreaming *self) G_GNUC_WARN_UNUSED_RESULT;

AGENTS_AVAILABLE_IN_1_0
void
agents_run_result_streaming_next_event_async (AgentsRunResultStreaming *self,
                                              GCancellable *cancellable,
                                              GAsyncReadyCallback callback,
                                              gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
AgentsStreamEvent *agents_run_result_streaming_next_event_finish (
  AgentsRunResultStreaming *self,
  GAsyncResult *result,
  GError **error) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
void agents_run_result_streaming_wait_async (AgentsRunResultStreaming *self,
                                             GCancellable *cancellable,
                                             GAsyncReadyCallback callback,
                                             gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_run_result_streaming_wait_finish (
  AgentsRunResultStreaming *self, GAsyncResult *result, GError **error);
AGENTS_AVAILABLE_IN_1_0
void agents_run_result_streaming_cancel (AgentsRunResultStreaming *self,
                                         AgentsCancelMode mode);

G_END_DECLS
