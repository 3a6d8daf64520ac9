/* agents-tracing-private.h - what the tracing files share
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Traces, spans, the processor contract and the global processor list are
 * in agents-tracing.c; the processors shipped with the library each have a
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
  JsonObject *data; /* NULL when not recording */
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

G_END_DECLS
