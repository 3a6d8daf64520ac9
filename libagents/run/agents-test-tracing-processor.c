/* agents-test-tracing-processor.c - a tracing processor that keeps what it saw,
 * for tests
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-tracing-private.h"

/* ---- AgentsTestTracingProcessor ------------------------------------------ */

/**
 * AgentsTestTracingProcessor:
 *
 * A tracing processor for tests, like the reference SDK's
 * `SpanProcessorForTests`: it keeps the traces that began and the spans
 * that ended, and gives them back as a normalized tree.
 */
struct _AgentsTestTracingProcessor
{
  GObject parent_instance;

  GMutex lock;
  GPtrArray *traces; /* AgentsTrace, in start order */
  GPtrArray *spans;  /* AgentsSpan, in end order */
  GPtrArray *events; /* "trace_start", "span_end", … */
};

static void agents_test_tracing_processor_iface_init (
  AgentsTracingProcessorInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  AgentsTestTracingProcessor,
  agents_test_tracing_processor,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_TRACING_PROCESSOR,
                         agents_test_tracing_processor_iface_init))

static void
record (AgentsTestTracingProcessor *self,
        GPtrArray *list,
        gpointer object,
        const char *event)
{
  g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&self->lock);

  if (list != NULL)
    g_ptr_array_add (list, g_object_ref (object));
  g_ptr_array_add (self->events, (gpointer) event);
}

static void
test_on_trace_start (AgentsTracingProcessor *processor, AgentsTrace *trace)
{
  AgentsTestTracingProcessor *self = AGENTS_TEST_TRACING_PROCESSOR (processor);

  record (self, self->traces, trace, "trace_start");
}

static void
test_on_trace_end (AgentsTracingProcessor *processor, AgentsTrace *trace)
{
  record (AGENTS_TEST_TRACING_PROCESSOR (processor), NULL, trace, "trace_end");
}

static void
test_on_span_start (AgentsTracingProcessor *processor, AgentsSpan *span)
{
  record (AGENTS_TEST_TRACING_PROCESSOR (processor), NULL, span, "span_start");
}

static void
test_on_span_end (AgentsTracingProcessor *processor, AgentsSpan *span)
{
  AgentsTestTracingProcessor *self = AGENTS_TEST_TRACING_PROCESSOR (processor);

  record (self, self->spans, span, "span_end");
}

static void
agents_test_tracing_processor_iface_init (
  AgentsTracingProcessorInterface *iface)
{
  iface->on_trace_start = test_on_trace_start;
  iface->on_trace_end = test_on_trace_end;
  iface->on_span_start = test_on_span_start;
  iface->on_span_end = test_on_span_end;
}

static void
agents_test_tracing_processor_finalize (GObject *object)
{
  AgentsTestTracingProcessor *self = AGENTS_TEST_TRACING_PROCESSOR (object);

  g_ptr_array_unref (self->traces);
  g_ptr_array_unref (self->spans);
  g_ptr_array_unref (self->events);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (agents_test_tracing_processor_parent_class)
    ->finalize (object);
}

static void
agents_test_tracing_processor_class_init (
  AgentsTestTracingProcessorClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = agents_test_tracing_processor_finalize;
}

static void
agents_test_tracing_processor_init (AgentsTestTracingProcessor *self)
{
  g_mutex_init (&self->lock);
  self->traces = g_ptr_array_new_with_free_func (g_object_unref);
  self->spans = g_ptr_array_new_with_free_func (g_object_unref);
  self->events = g_ptr_array_new ();
}

/**
 * agents_test_tracing_processor_new:
 *
 * Creates a processor that keeps traces and spans for tests; add it with
 * agents_tracing_set_processors() or agents_tracing_add_processor().
 *
 * Returns: (transfer full): a new #AgentsTestTracingProcessor
 */
AgentsTestTracingProcessor *
agents_test_tracing_processor_new (void)
{
  return g_object_new (AGENTS_TYPE_TEST_TRACING_PROCESSOR, NULL);
}

static int
compare_span_start (gconstpointer a, gconstpointer b)
{
  const AgentsSpan *sa = *(AgentsSpan *const *) a;
  const AgentsSpan *sb = *(AgentsSpan *const *) b;

  return (sa->sequence > sb->sequence) - (sa->sequence < sb->sequence);
}

static char *
node_key (const char *trace_id, const char *span_id)
{
  return g_strconcat (trace_id, "\n", span_id != NULL ? span_id : "", NULL);
}

static JsonObject *
normalize_trace (AgentsTrace *trace)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "workflow_name", trace->workflow_name);
  if (trace->group_id != NULL)
    json_object_set_string_member (object, "group_id", trace->group_id);
  if (trace->metadata != NULL)
    json_object_set_object_member (object, "metadata",
                                   json_object_ref (trace->metadata));
  return object;
}

static gpointer
copy_ref (gconstpointer object, gpointer user_data)
{
  return g_object_ref ((gpointer) object);
}

static JsonObject *
normalize_span (AgentsSpan *span)
{
  JsonObject *object = json_object_new ();
  JsonObject *data = json_object_new ();
  JsonObject *span_data = agents_tracing_private_span_data (span);
  g_autoptr (GList) members = json_object_get_members (span_data);

  json_object_set_string_member (object, "type",
                                 agents_span_kind_to_string (span->kind));
  if (span->error != NULL)
    json_object_set_object_member (object, "error",
                                   json_object_ref (span->error));
  for (GList *l = members; l != NULL; l = l->next)
    {
      JsonNode *value = json_object_get_member (span_data, l->data);

      if (g_str_equal (l->data, "type") || JSON_NODE_HOLDS_NULL (value))
        continue;
      json_object_set_member (data, l->data, json_node_copy (value));
    }
  if (json_object_get_size (data) > 0)
    json_object_set_object_member (object, "data", data);
  else
    json_object_unref (data);
  return object;
}

static void
add_child (JsonObject *parent, JsonObject *child)
{
  if (!json_object_has_member (parent, "children"))
    json_object_set_array_member (parent, "children", json_array_new ());
  json_array_add_object_element (
    json_object_get_array_member (parent, "children"), child);
}

/**
 * agents_test_tracing_processor_fetch_normalized_spans:
 * @self: a test processor
 *
 * Gives the traces and ended spans received so far as a tree without ids
 * and times, like the reference SDK's `fetch_normalized_spans()`: an array
 * of traces `{"workflow_name", "group_id"?, "metadata"?, "children"?}`
 * whose children are spans `{"type", "error"?, "data"?, "children"?}`,
 * nested under their parents in start order. A span's `data` is its span
 * data without `type` and null members, left out when empty. Spans whose
 * trace or parent was not received are left out.
 *
 * Returns: (transfer full): the normalized traces
 */
JsonArray *
agents_test_tracing_processor_fetch_normalized_spans (
  AgentsTestTracingProcessor *self)
{
  g_autoptr (GPtrArray) traces = NULL;
  g_autoptr (GPtrArray) spans = NULL;
  g_autoptr (GHashTable) nodes = NULL;
  JsonArray *result;

  g_return_val_if_fail (AGENTS_IS_TEST_TRACING_PROCESSOR (self), NULL);

  g_mutex_lock (&self->lock);
  traces = g_ptr_array_copy (self->traces, copy_ref, NULL);
  spans = g_ptr_array_copy (self->spans, copy_ref, NULL);
  g_mutex_unlock (&self->lock);
  g_ptr_array_sort (spans, compare_span_start);

  /* Values are borrowed: the tree in @result owns the nodes. */
  nodes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  result = json_array_new ();
  for (guint i = 0; i < traces->len; i++)
    {
      AgentsTrace *trace = traces->pdata[i];
      JsonObject *node = normalize_trace (trace);

      json_array_add_object_element (result, node);
      g_hash_table_insert (nodes, node_key (trace->trace_id, NULL), node);
    }
  for (guint i = 0; i < spans->len; i++)
    {
      AgentsSpan *span = spans->pdata[i];
      g_autofree char *parent_key = node_key (span->trace_id, span->parent_id);
      JsonObject *parent = g_hash_table_lookup (nodes, parent_key);
      JsonObject *node;

      if (parent == NULL)
        continue;
      node = normalize_span (span);
      add_child (parent, node);
      g_hash_table_insert (nodes, node_key (span->trace_id, span->span_id),
                           node);
    }
  return result;
}

/**
 * agents_test_tracing_processor_get_events:
 * @self: a test processor
 *
 * Gets what the processor was told, in order: `"trace_start"`,
 * `"trace_end"`, `"span_start"` and `"span_end"`.
 *
 * Returns: (transfer full) (array zero-terminated=1): the events
 */
char **
agents_test_tracing_processor_get_events (AgentsTestTracingProcessor *self)
{
  g_autoptr (GMutexLocker) locker = NULL;
  GStrvBuilder *builder;
  char **events;

  g_return_val_if_fail (AGENTS_IS_TEST_TRACING_PROCESSOR (self), NULL);

  locker = g_mutex_locker_new (&self->lock);
  builder = g_strv_builder_new ();
  for (guint i = 0; i < self->events->len; i++)
    g_strv_builder_add (builder, self->events->pdata[i]);
  events = g_strv_builder_end (builder);
  g_strv_builder_unref (builder);
  return events;
}

/**
 * agents_test_tracing_processor_clear:
 * @self: a test processor
 *
 * Forgets every trace, span and event received so far.
 */
void
agents_test_tracing_processor_clear (AgentsTestTracingProcessor *self)
{
  g_autoptr (GMutexLocker) locker = NULL;

  g_return_if_fail (AGENTS_IS_TEST_TRACING_PROCESSOR (self));

  locker = g_mutex_locker_new (&self->lock);
  g_ptr_array_set_size (self->traces, 0);
  g_ptr_array_set_size (self->spans, 0);
  g_ptr_array_set_size (self->events, 0);
}
