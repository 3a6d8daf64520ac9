/* agents-tracing-private.h - what the tracing files share
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Traces (agents-trace.c), spans (agents-span.c) and the processor
 * contract (agents-tracing-processor.c) have a file each; the state of the
 * process they share (whether tracing is disabled, the registered
 * processors, the per-thread current trace and span) is in
 * agents-tracing.c. The processors shipped with the library each have a
 * file of their own (agents-jsonl-exporter.c,
 * agents-test-tracing-processor.c) and read traces and spans through these
 * structures.
 */

#pragma once

#include "agents-tracing.h"

G_BEGIN_DECLS

struct _AgentsTrace
{
  GObject parent_instance;

  char *workflow_name;
  char *trace_id;
  char *group_id;
  JsonObject *metadata;
  gboolean noop;
  gint64 started_us;
  gint64 ended_us;
  int ended; /* atomic */
};

struct _AgentsSpan
{
  GObject parent_instance;

  AgentsSpanKind kind;
  char *span_id;
  char *trace_id;
  char *parent_id;
  gboolean recording;
  /* The span data. A lazy span (the runner's) builds it on first use,
   * from @pending: until then nobody can see it, and a span that no
   * processor receives and nobody asks for never builds it. */
  JsonObject *data; /* atomic; built under a lock when lazy */
  gboolean lazy;
  JsonNode *pending[6]; /* the reference's members, in its order; NULL for
                         * the default */
  JsonObject *error;
  guint64 sequence; /* start order, for processors */
  gint64 started_us;
  gint64 ended_us;
  int ended; /* atomic */
};

/* Sets @member of @object to @usec as an ISO 8601 time, or to null when
 * @usec is 0. */
void agents_tracing_set_time_member (JsonObject *object,
                                     const char *member,
                                     gint64 usec);

typedef enum
{
  AGENTS_TRACING_EVENT_TRACE_START,
  AGENTS_TRACING_EVENT_TRACE_END,
  AGENTS_TRACING_EVENT_SPAN_START,
  AGENTS_TRACING_EVENT_SPAN_END,
} AgentsTracingEvent;

/* Tells every registered processor of @event on @object (a trace or a
 * span). */
void agents_tracing_private_dispatch (AgentsTracingEvent event,
                                      gpointer object);

/* The next span's start order. */
guint64 agents_tracing_private_next_span_sequence (void);

/* The calling thread's stack of current traces and spans. */
void agents_tracing_private_push_current (gpointer entry);
void agents_tracing_private_remove_current (gpointer entry);
/* Finds the topmost live trace and the topmost live span above it. */
void agents_tracing_private_find_current (AgentsTrace **trace,
                                          AgentsSpan **span);

/* @prefix then @digits (at most 32) random hexadecimal digits, those of
 * a version 4 UUID. */
char *agents_tracing_private_new_id (const char *prefix, guint digits);
/* ISO 8601 as Python's datetime.isoformat() gives, or %NULL when @usec is
 * 0. */
char *agents_tracing_private_format_time (gint64 usec);
void agents_tracing_private_set_string_or_null (JsonObject *object,
                                                const char *member,
                                                const char *value);

/* As agents_trace_start_span() with the values of the reference's members
 * of @kind, in its order (@members, transfer full: @n_members nodes, each
 * %NULL for the member's default), without building the span data: it is
 * built when first needed (agents_span_get_data(), a processor), with the
 * same content as agents_trace_start_span() would have given it. */
AgentsSpan *agents_tracing_private_start_span_lazy (AgentsTrace *trace,
                                                    AgentsSpan *parent,
                                                    AgentsSpanKind kind,
                                                    JsonNode **members,
                                                    guint n_members);

/* The span data of @span, built if it is lazy; %NULL if it does not
 * record. */
JsonObject *agents_tracing_private_span_data (AgentsSpan *span);

/* Sets @member of @span's data to an array of @names (%NULL-terminated),
 * unless it already is an array of exactly those strings. */
void agents_tracing_private_span_set_strv (AgentsSpan *span,
                                           const char *member,
                                           const char *const *names);

G_END_DECLS
