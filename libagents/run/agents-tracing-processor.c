/* agents-tracing-processor.c - the contract of what receives traces
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-tracing.h"

/**
 * AgentsTracingProcessor:
 *
 * Receives the traces and spans of the process, e.g. to export them. Add
 * processors with agents_tracing_add_processor(); #AgentsJsonlExporter
 * writes them to a file and #AgentsTestTracingProcessor keeps them for
 * tests.
 */

G_DEFINE_INTERFACE (AgentsTracingProcessor,
                    agents_tracing_processor,
                    G_TYPE_OBJECT)

/* ---- AgentsTracingProcessor ---------------------------------------------- */

static void
processor_trace_nothing (AgentsTracingProcessor *self, AgentsTrace *trace)
{
}

static void
processor_span_nothing (AgentsTracingProcessor *self, AgentsSpan *span)
{
}

static void
processor_nothing (AgentsTracingProcessor *self)
{
}

static void
agents_tracing_processor_default_init (AgentsTracingProcessorInterface *iface)
{
  iface->on_trace_start = processor_trace_nothing;
  iface->on_trace_end = processor_trace_nothing;
  iface->on_span_start = processor_span_nothing;
  iface->on_span_end = processor_span_nothing;
  iface->shutdown = processor_nothing;
  iface->force_flush = processor_nothing;
}

#define PROCESSOR_IFACE(self) AGENTS_TRACING_PROCESSOR_GET_IFACE (self)

/**
 * agents_tracing_processor_on_trace_start:
 * @self: a processor
 * @trace: the trace that began
 *
 * Tells @self that @trace began.
 */
void
agents_tracing_processor_on_trace_start (AgentsTracingProcessor *self,
                                         AgentsTrace *trace)
{
  g_return_if_fail (AGENTS_IS_TRACING_PROCESSOR (self));
  g_return_if_fail (AGENTS_IS_TRACE (trace));

  PROCESSOR_IFACE (self)->on_trace_start (self, trace);
}

/**
 * agents_tracing_processor_on_trace_end:
 * @self: a processor
 * @trace: the trace that ended
 *
 * Tells @self that @trace ended.
 */
void
agents_tracing_processor_on_trace_end (AgentsTracingProcessor *self,
                                       AgentsTrace *trace)
{
  g_return_if_fail (AGENTS_IS_TRACING_PROCESSOR (self));
  g_return_if_fail (AGENTS_IS_TRACE (trace));

  PROCESSOR_IFACE (self)->on_trace_end (self, trace);
}

/**
 * agents_tracing_processor_on_span_start:
 * @self: a processor
 * @span: the span that began
 *
 * Tells @self that @span began.
 */
void
agents_tracing_processor_on_span_start (AgentsTracingProcessor *self,
                                        AgentsSpan *span)
{
  g_return_if_fail (AGENTS_IS_TRACING_PROCESSOR (self));
  g_return_if_fail (AGENTS_IS_SPAN (span));

  PROCESSOR_IFACE (self)->on_span_start (self, span);
}

/**
 * agents_tracing_processor_on_span_end:
 * @self: a processor
 * @span: the span that ended
 *
 * Tells @self that @span ended.
 */
void
agents_tracing_processor_on_span_end (AgentsTracingProcessor *self,
                                      AgentsSpan *span)
{
  g_return_if_fail (AGENTS_IS_TRACING_PROCESSOR (self));
  g_return_if_fail (AGENTS_IS_SPAN (span));

  PROCESSOR_IFACE (self)->on_span_end (self, span);
}

/**
 * agents_tracing_processor_shutdown:
 * @self: a processor
 *
 * Tells @self that tracing is over: it writes out what is pending and
 * releases its resources.
 */
void
agents_tracing_processor_shutdown (AgentsTracingProcessor *self)
{
  g_return_if_fail (AGENTS_IS_TRACING_PROCESSOR (self));

  PROCESSOR_IFACE (self)->shutdown (self);
}

/**
 * agents_tracing_processor_force_flush:
 * @self: a processor
 *
 * Asks @self to write out what is pending now.
 */
void
agents_tracing_processor_force_flush (AgentsTracingProcessor *self)
{
  g_return_if_fail (AGENTS_IS_TRACING_PROCESSOR (self));

  PROCESSOR_IFACE (self)->force_flush (self);
}
