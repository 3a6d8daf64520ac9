/* agents-jsonl-exporter.c - a tracing processor that writes JSON lines
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-tracing-private.h"

/* ---- AgentsJsonlExporter ------------------------------------------------- */

/**
 * AgentsJsonlExporter:
 *
 * A tracing processor that writes each ended span and trace as one line
 * of JSON, flushed at once: spans as agents_span_export() gives them,
 * traces as agents_trace_export() gives them plus `started_at` and
 * `ended_at`. Spans come before the trace that contains them.
 */
struct _AgentsJsonlExporter
{
  GObject parent_instance;

  GMutex lock;
  GOutputStream *stream; /* NULL once shut down */
};

static void
agents_jsonl_exporter_iface_init (AgentsTracingProcessorInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  AgentsJsonlExporter,
  agents_jsonl_exporter,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_TRACING_PROCESSOR,
                         agents_jsonl_exporter_iface_init))

static void
write_line (AgentsJsonlExporter *self, JsonObject *object)
{
  g_autoptr (JsonNode) node =
    json_node_init_object (json_node_alloc (), object);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = json_to_string (node, FALSE);
  g_autofree char *line = g_strconcat (text, "\n", NULL);
  g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&self->lock);

  if (self->stream == NULL)
    return;
  if (!g_output_stream_write_all (self->stream, line, strlen (line), NULL, NULL,
                                  &error) ||
      !g_output_stream_flush (self->stream, NULL, &error))
    g_warning ("Could not write a trace line: %s", error->message);
}

static void
jsonl_on_trace_end (AgentsTracingProcessor *processor, AgentsTrace *trace)
{
  g_autoptr (JsonObject) object = agents_trace_export (trace);

  if (object == NULL)
    return;
  agents_tracing_set_time_member (object, "started_at", trace->started_us);
  agents_tracing_set_time_member (object, "ended_at", trace->ended_us);
  write_line (AGENTS_JSONL_EXPORTER (processor), object);
}

static void
jsonl_on_span_end (AgentsTracingProcessor *processor, AgentsSpan *span)
{
  g_autoptr (JsonObject) object = agents_span_export (span);

  if (object != NULL)
    write_line (AGENTS_JSONL_EXPORTER (processor), object);
}

static void
jsonl_shutdown (AgentsTracingProcessor *processor)
{
  AgentsJsonlExporter *self = AGENTS_JSONL_EXPORTER (processor);
  g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&self->lock);

  if (self->stream != NULL)
    g_output_stream_close (self->stream, NULL, NULL);
  g_clear_object (&self->stream);
}

static void
agents_jsonl_exporter_iface_init (AgentsTracingProcessorInterface *iface)
{
  iface->on_trace_end = jsonl_on_trace_end;
  iface->on_span_end = jsonl_on_span_end;
  iface->shutdown = jsonl_shutdown;
}

static void
agents_jsonl_exporter_finalize (GObject *object)
{
  AgentsJsonlExporter *self = AGENTS_JSONL_EXPORTER (object);

  g_clear_object (&self->stream);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (agents_jsonl_exporter_parent_class)->finalize (object);
}

static void
agents_jsonl_exporter_class_init (AgentsJsonlExporterClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = agents_jsonl_exporter_finalize;
}

static void
agents_jsonl_exporter_init (AgentsJsonlExporter *self)
{
  g_mutex_init (&self->lock);
}

/**
 * agents_jsonl_exporter_new:
 * @path: (type filename): the file to append the lines to, created
 *   readable by its owner only if needed
 * @error: return location for a #GError
 *
 * Creates an exporter appending to the file at @path.
 *
 * Returns: (transfer full): a new #AgentsJsonlExporter, or %NULL if the
 *   file cannot be opened
 */
AgentsJsonlExporter *
agents_jsonl_exporter_new (const char *path, GError **error)
{
  g_autoptr (GFile) file = NULL;
  g_autoptr (GFileOutputStream) stream = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  file = g_file_new_for_path (path);
  stream = g_file_append_to (file, G_FILE_CREATE_PRIVATE, NULL, error);
  if (stream == NULL)
    return NULL;
  return agents_jsonl_exporter_new_for_stream (G_OUTPUT_STREAM (stream));
}

/**
 * agents_jsonl_exporter_new_for_stream:
 * @stream: the stream to write the lines to
 *
 * Creates an exporter writing to @stream, which it closes when it is shut
 * down.
 *
 * Returns: (transfer full): a new #AgentsJsonlExporter
 */
AgentsJsonlExporter *
agents_jsonl_exporter_new_for_stream (GOutputStream *stream)
{
  AgentsJsonlExporter *self;

  g_return_val_if_fail (G_IS_OUTPUT_STREAM (stream), NULL);

  self = g_object_new (AGENTS_TYPE_JSONL_EXPORTER, NULL);
  self->stream = g_object_ref (stream);
  return self;
}
