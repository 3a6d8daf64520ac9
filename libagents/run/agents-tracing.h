/* agents-tracing.h - traces and spans of agent runs
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

#include "agents-version-macros.h"

G_BEGIN_DECLS

/**
 * AgentsSpanKind:
 * @AGENTS_SPAN_KIND_AGENT: an agent's turns (`"agent"`)
 * @AGENTS_SPAN_KIND_GENERATION: a model call (`"generation"`)
 * @AGENTS_SPAN_KIND_FUNCTION: a tool call (`"function"`)
 * @AGENTS_SPAN_KIND_HANDOFF: a handoff between agents (`"handoff"`)
 * @AGENTS_SPAN_KIND_GUARDRAIL: a guardrail check (`"guardrail"`)
 * @AGENTS_SPAN_KIND_CUSTOM: anything else, named by its data (`"custom"`)
 * @AGENTS_SPAN_KIND_RESPONSE: one request to the OpenAI Responses API,
 *   made by the model inside a generation (`"response"`)
 *
 * What a span records. The name in parentheses is the span data's
 * `type` member, as in the reference SDK. Values are only ever appended.
 */
typedef enum
{
  AGENTS_SPAN_KIND_AGENT,
  AGENTS_SPAN_KIND_GENERATION,
  AGENTS_SPAN_KIND_FUNCTION,
  AGENTS_SPAN_KIND_HANDOFF,
  AGENTS_SPAN_KIND_GUARDRAIL,
  AGENTS_SPAN_KIND_CUSTOM,
  AGENTS_SPAN_KIND_RESPONSE,
} AgentsSpanKind;

AGENTS_AVAILABLE_IN_1_0
const char *agents_span_kind_to_string (AgentsSpanKind kind);

#define AGENTS_TYPE_TRACE (agents_trace_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (AgentsTrace, agents_trace, AGENTS, TRACE, GObject)

#define AGENTS_TYPE_SPAN (agents_span_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (AgentsSpan, agents_span, AGENTS, SPAN, GObject)

/* ---- traces ------------------------------------------------------------ */

AGENTS_AVAILABLE_IN_1_0
AgentsTrace *
agents_trace_begin (const char *workflow_name,
                    const char *trace_id,
                    const char *group_id,
                    JsonObject *metadata) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
AgentsTrace *
agents_trace_begin_full (const char *workflow_name,
                         const char *trace_id,
                         const char *group_id,
                         JsonObject *metadata,
                         gboolean disabled) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
void agents_trace_end (AgentsTrace *trace);

AGENTS_AVAILABLE_IN_1_0
gboolean agents_trace_is_recording (AgentsTrace *self);
AGENTS_AVAILABLE_IN_1_0
const char *agents_trace_get_workflow_name (AgentsTrace *self);
AGENTS_AVAILABLE_IN_1_0
const char *agents_trace_get_trace_id (AgentsTrace *self);
AGENTS_AVAILABLE_IN_1_0
const char *agents_trace_get_group_id (AgentsTrace *self);
AGENTS_AVAILABLE_IN_1_0
JsonObject *agents_trace_get_metadata (AgentsTrace *self);
AGENTS_AVAILABLE_IN_1_0
char *agents_trace_dup_started_at (AgentsTrace *self) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
char *agents_trace_dup_ended_at (AgentsTrace *self) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
JsonObject *agents_trace_export (AgentsTrace *self) G_GNUC_WARN_UNUSED_RESULT;

AGENTS_AVAILABLE_IN_1_0
AgentsSpan *
agents_trace_start_span (AgentsTrace *self,
                         AgentsSpan *parent,
                         AgentsSpanKind kind,
                         JsonObject *data) G_GNUC_WARN_UNUSED_RESULT;

/* ---- spans ------------------------------------------------------------- */

AGENTS_AVAILABLE_IN_1_0
AgentsSpan *agents_span_begin (AgentsSpanKind kind,
                               JsonObject *data) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
AgentsSpan *
agents_span_begin_agent (const char *name,
                         const char *const *handoffs,
                         const char *const *tools,
                         const char *output_type) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
AgentsSpan *
agents_span_begin_function (const char *name,
                            const char *input,
                            const char *output) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
AgentsSpan *
agents_span_begin_generation (JsonArray *input,
                              JsonArray *output,
                              const char *model,
                              JsonObject *model_config,
                              JsonObject *usage) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
AgentsSpan *
agents_span_begin_handoff (const char *from_agent,
                           const char *to_agent) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
AgentsSpan *agents_span_begin_guardrail (const char *name, gboolean triggered)
  G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
AgentsSpan *agents_span_begin_custom (const char *name, JsonObject *data)
  G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
AgentsSpan *
agents_span_start_child (AgentsSpan *parent,
                         AgentsSpanKind kind,
                         JsonObject *data) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
void agents_span_end (AgentsSpan *span, const GError *error);
AGENTS_AVAILABLE_IN_1_0
void agents_span_end_simple (AgentsSpan *span);

AGENTS_AVAILABLE_IN_1_0
gboolean agents_span_is_recording (AgentsSpan *self);
AGENTS_AVAILABLE_IN_1_0
AgentsSpanKind agents_span_get_kind (AgentsSpan *self);
AGENTS_AVAILABLE_IN_1_0
const char *agents_span_get_span_id (AgentsSpan *self);
AGENTS_AVAILABLE_IN_1_0
const char *agents_span_get_trace_id (AgentsSpan *self);
AGENTS_AVAILABLE_IN_1_0
const char *agents_span_get_parent_id (AgentsSpan *self);
AGENTS_AVAILABLE_IN_1_0
JsonObject *agents_span_get_data (AgentsSpan *self);
AGENTS_AVAILABLE_IN_1_0
void agents_span_set_data_member (AgentsSpan *self,
                                  const char *member,
                                  JsonNode *value);
AGENTS_AVAILABLE_IN_1_0
void
agents_span_set_error (AgentsSpan *self, const char *message, JsonObject *data);
AGENTS_AVAILABLE_IN_1_0
JsonObject *agents_span_get_error (AgentsSpan *self);
AGENTS_AVAILABLE_IN_1_0
char *agents_span_dup_started_at (AgentsSpan *self) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
char *agents_span_dup_ended_at (AgentsSpan *self) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
JsonObject *agents_span_export (AgentsSpan *self) G_GNUC_WARN_UNUSED_RESULT;

/* ---- the current trace and span, processors ---------------------------- */

AGENTS_AVAILABLE_IN_1_0
AgentsTrace *agents_tracing_get_current_trace (void);
AGENTS_AVAILABLE_IN_1_0
AgentsSpan *agents_tracing_get_current_span (void);
AGENTS_AVAILABLE_IN_1_0
void agents_tracing_set_disabled (gboolean disabled);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_tracing_get_disabled (void);

#define AGENTS_TYPE_TRACING_PROCESSOR (agents_tracing_processor_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_INTERFACE (AgentsTracingProcessor,
                     agents_tracing_processor,
                     AGENTS,
                     TRACING_PROCESSOR,
                     GObject)

/**
 * AgentsTracingProcessorInterface:
 * @on_trace_start: a trace began
 * @on_trace_end: a trace ended
 * @on_span_start: a span began
 * @on_span_end: a span ended; its end time and error are set
 * @shutdown: the program is done tracing: write out what is pending
 *   and release resources
 * @force_flush: write out what is pending now
 *
 * Receives traces and spans as they begin and end. Every vfunc is
 * optional (the defaults do nothing).
 *
 * Processors are called synchronously, on the thread where the trace or
 * span begins or ends, possibly on several threads at once: they must be
 * thread-safe and must not block (queue slow work).
 */
struct _AgentsTracingProcessorInterface
{
  GTypeInterface g_iface;

  void (*on_trace_start) (AgentsTracingProcessor *self, AgentsTrace *trace);
  void (*on_trace_end) (AgentsTracingProcessor *self, AgentsTrace *trace);
  void (*on_span_start) (AgentsTracingProcessor *self, AgentsSpan *span);
  void (*on_span_end) (AgentsTracingProcessor *self, AgentsSpan *span);
  void (*shutdown) (AgentsTracingProcessor *self);
  void (*force_flush) (AgentsTracingProcessor *self);

  /*< private >*/
  gpointer padding[8];
};

AGENTS_AVAILABLE_IN_1_0
void agents_tracing_processor_on_trace_start (AgentsTracingProcessor *self,
                                              AgentsTrace *trace);
AGENTS_AVAILABLE_IN_1_0
void agents_tracing_processor_on_trace_end (AgentsTracingProcessor *self,
                                            AgentsTrace *trace);
AGENTS_AVAILABLE_IN_1_0
void agents_tracing_processor_on_span_start (AgentsTracingProcessor *self,
                                             AgentsSpan *span);
AGENTS_AVAILABLE_IN_1_0
void agents_tracing_processor_on_span_end (AgentsTracingProcessor *self,
                                           AgentsSpan *span);
AGENTS_AVAILABLE_IN_1_0
void agents_tracing_processor_shutdown (AgentsTracingProcessor *self);
AGENTS_AVAILABLE_IN_1_0
void agents_tracing_processor_force_flush (AgentsTracingProcessor *self);

AGENTS_AVAILABLE_IN_1_0
void agents_tracing_add_processor (AgentsTracingProcessor *processor);
AGENTS_AVAILABLE_IN_1_0
void agents_tracing_remove_processor (AgentsTracingProcessor *processor);
AGENTS_AVAILABLE_IN_1_0
void agents_tracing_set_processors (AgentsTracingProcessor **processors,
                                    guint n_processors);
AGENTS_AVAILABLE_IN_1_0
void agents_tracing_force_flush (void);
AGENTS_AVAILABLE_IN_1_0
void agents_tracing_shutdown (void);

/* ---- processors -------------------------------------------------------- */

#define AGENTS_TYPE_JSONL_EXPORTER (agents_jsonl_exporter_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (
  AgentsJsonlExporter, agents_jsonl_exporter, AGENTS, JSONL_EXPORTER, GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsJsonlExporter *
agents_jsonl_exporter_new (const char *path,
                           GError **error) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
AgentsJsonlExporter *agents_jsonl_exporter_new_for_stream (
  GOutputStream *stream) G_GNUC_WARN_UNUSED_RESULT;

#define AGENTS_TYPE_TEST_TRACING_PROCESSOR \
  (agents_test_tracing_processor_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (AgentsTestTracingProcessor,
                      agents_test_tracing_processor,
                      AGENTS,
                      TEST_TRACING_PROCESSOR,
                      GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsTestTracingProcessor *
agents_test_tracing_processor_new (void) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
JsonArray *agents_test_tracing_processor_fetch_normalized_spans (
  AgentsTestTracingProcessor *self) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
char **agents_test_tracing_processor_get_events (
  AgentsTestTracingProcessor *self) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
void agents_test_tracing_processor_clear (AgentsTestTracingProcessor *self);

G_END_DECLS
