/* test-tracing.c - traces, spans and tracing processors
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "test-utils.h"

/* A processor that logs "<name>:<event>" into a shared log. */
#define TEST_TYPE_RECORDER (test_recorder_get_type ())
G_DECLARE_FINAL_TYPE (TestRecorder, test_recorder, TEST, RECORDER, GObject)

struct _TestRecorder
{
  GObject parent_instance;
  const char *name;
  GPtrArray *log;
};

static void test_recorder_iface_init (AgentsTracingProcessorInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  TestRecorder,
  test_recorder,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_TRACING_PROCESSOR,
                         test_recorder_iface_init))

static void
recorder_log (AgentsTracingProcessor *processor, const char *event)
{
  TestRecorder *self = TEST_RECORDER (processor);

  g_ptr_array_add (self->log, g_strdup_printf ("%s:%s", self->name, event));
}

static void
recorder_trace_start (AgentsTracingProcessor *p, AgentsTrace *trace)
{
  recorder_log (p, "trace_start");
}

static void
recorder_trace_end (AgentsTracingProcessor *p, AgentsTrace *trace)
{
  recorder_log (p, "trace_end");
}

static void
recorder_span_start (AgentsTracingProcessor *p, AgentsSpan *span)
{
  recorder_log (p, "span_start");
}

static void
recorder_span_end (AgentsTracingProcessor *p, AgentsSpan *span)
{
  recorder_log (p, "span_end");
}

static void
recorder_shutdown (AgentsTracingProcessor *p)
{
  recorder_log (p, "shutdown");
}

static void
test_recorder_iface_init (AgentsTracingProcessorInterface *iface)
{
  iface->on_trace_start = recorder_trace_start;
  iface->on_trace_end = recorder_trace_end;
  iface->on_span_start = recorder_span_start;
  iface->on_span_end = recorder_span_end;
  iface->shutdown = recorder_shutdown;
}

static void
test_recorder_class_init (TestRecorderClass *klass)
{
}

static void
test_recorder_init (TestRecorder *self)
{
}

static TestRecorder *
test_recorder_new (const char *name, GPtrArray *log)
{
  TestRecorder *self = g_object_new (TEST_TYPE_RECORDER, NULL);

  self->name = name;
  self->log = log;
  return self;
}

/* ---- fixture and helpers ---------------------------------------------------
 */

typedef struct
{
  AgentsTestTracingProcessor *processor;
} Fixture;

static void
fixture_set_up (Fixture *fixture, gconstpointer user_data)
{
  AgentsTracingProcessor *list[1];

  fixture->processor = agents_test_tracing_processor_new ();
  list[0] = AGENTS_TRACING_PROCESSOR (fixture->processor);
  agents_tracing_set_processors (list, 1);
  agents_tracing_set_disabled (FALSE);
}

static void
fixture_tear_down (Fixture *fixture, gconstpointer user_data)
{
  agents_tracing_set_processors (NULL, 0);
  agents_tracing_set_disabled (FALSE);
  g_assert_null (agents_tracing_get_current_trace ());
  g_assert_null (agents_tracing_get_current_span ());
  g_clear_object (&fixture->processor);
}

static char *
normalized (Fixture *fixture)
{
  g_autoptr (JsonArray) traces =
    agents_test_tracing_processor_fetch_normalized_spans (fixture->processor);
  g_autoptr (JsonNode) node = json_node_init_array (json_node_alloc (), traces);

  return json_to_string (node, FALSE);
}

static JsonObject *
parse_object (const char *json)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) node = json_from_string (json, &error);

  g_assert_no_error (error);
  return json_object_ref (json_node_get_object (node));
}

static void
end_span (AgentsSpan *span)
{
  agents_span_end_simple (span);
  g_object_unref (span);
}

static char *
joined_events (Fixture *fixture)
{
  g_auto (GStrv) events =
    agents_test_tracing_processor_get_events (fixture->processor);

  return g_strjoinv (",", events);
}

/* ---- tests -----------------------------------------------------------------
 */

static void
test_nesting_and_order (Fixture *fixture, gconstpointer user_data)
{
  g_autoptr (AgentsTrace) trace =
    agents_trace_begin ("workflow", NULL, NULL, NULL);
  g_autoptr (JsonObject) inner_data = parse_object ("{\"k\":1}");
  g_autoptr (JsonNode) output =
    json_node_init_string (json_node_alloc (), "result");
  g_autofree char *tree = NULL;
  g_autofree char *events = NULL;
  AgentsSpan *outer, *inner, *tool;

  g_assert_true (agents_trace_is_recording (trace));
  g_assert_true (agents_tracing_get_current_trace () == trace);
  g_assert_true (
    g_str_has_prefix (agents_trace_get_trace_id (trace), "trace_"));
  g_assert_cmpuint (strlen (agents_trace_get_trace_id (trace)), ==, 6 + 32);

  outer = agents_span_begin_custom ("outer", NULL);
  g_assert_true (agents_tracing_get_current_span () == outer);
  g_assert_null (agents_span_get_parent_id (outer));
  g_assert_cmpstr (agents_span_get_trace_id (outer), ==,
                   agents_trace_get_trace_id (trace));
  g_assert_true (g_str_has_prefix (agents_span_get_span_id (outer), "span_"));
  g_assert_cmpuint (strlen (agents_span_get_span_id (outer)), ==, 5 + 24);

  inner = agents_span_begin_custom ("inner", inner_data);
  g_assert_cmpstr (agents_span_get_parent_id (inner), ==,
                   agents_span_get_span_id (outer));
  g_assert_true (agents_tracing_get_current_span () == inner);
  end_span (inner);
  g_assert_true (agents_tracing_get_current_span () == outer);
  end_span (outer);
  g_assert_null (agents_tracing_get_current_span ());

  tool = agents_span_begin_function ("tool", "{}", NULL);
  g_assert_null (agents_span_get_parent_id (tool));
  agents_span_set_data_member (tool, "output", output);
  end_span (tool);

  agents_trace_end (trace);
  g_assert_null (agents_tracing_get_current_trace ());

  tree = normalized (fixture);
  g_assert_cmpstr (
    tree, ==,
    "[{\"workflow_name\":\"workflow\",\"children\":["
    "{\"type\":\"custom\",\"data\":{\"name\":\"outer\",\"data\":{}},"
    "\"children\":[{\"type\":\"custom\",\"data\":{\"name\":\"inner\","
    "\"data\":{\"k\":1}}}]},"
    "{\"type\":\"function\",\"data\":{\"name\":\"tool\",\"input\":\"{}\","
    "\"output\":\"result\"}}]}]");
  events = joined_events (fixture);
  g_assert_cmpstr (events, ==,
                   "trace_start,span_start,span_start,span_end,span_end,"
                   "span_start,span_end,trace_end");
}

static void
collect_custom_names (JsonObject *node, GPtrArray *names)
{
  JsonArray *children;

  if (!json_object_has_member (node, "children"))
    return;
  children = json_object_get_array_member (node, "children");
  for (guint i = 0; i < json_array_get_length (children); i++)
    {
      JsonObject *child = json_array_get_object_element (children, i);

      if (g_strcmp0 (json_object_get_string_member (child, "type"), "custom") ==
          0)
        g_ptr_array_add (
          names, (gpointer) json_object_get_string_member (
                   json_object_get_object_member (child, "data"), "name"));
      collect_custom_names (child, names);
    }
}

static void
custom (const char *name)
{
  g_autoptr (AgentsSpan) span = agents_span_begin_custom (name, NULL);

  agents_span_end (span, NULL);
}

/* The shape test_sandbox_runtime_emits_high_level_sdk_spans inspects. */
static void
test_sandbox_custom_spans (Fixture *fixture, gconstpointer user_data)
{
  static const char *const expected[] = {
    "sandbox.prepare_agent", "sandbox.create_session",   "sandbox.start",
    "sandbox.cleanup",       "sandbox.cleanup_sessions", "sandbox.stop",
    "sandbox.shutdown",
  };
  g_autoptr (AgentsTrace) trace =
    agents_trace_begin ("sandbox_runtime_test", NULL, NULL, NULL);
  g_autoptr (JsonArray) traces = NULL;
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  g_autofree char *tree = NULL;
  AgentsSpan *prepare, *cleanup, *sessions;

  prepare = agents_span_begin_custom ("sandbox.prepare_agent", NULL);
  custom ("sandbox.create_session");
  custom ("sandbox.start");
  end_span (prepare);
  cleanup = agents_span_begin_custom ("sandbox.cleanup", NULL);
  sessions = agents_span_begin_custom ("sandbox.cleanup_sessions", NULL);
  custom ("sandbox.stop");
  custom ("sandbox.shutdown");
  end_span (sessions);
  end_span (cleanup);
  agents_trace_end (trace);

  traces =
    agents_test_tracing_processor_fetch_normalized_spans (fixture->processor);
  g_assert_cmpuint (json_array_get_length (traces), ==, 1);
  collect_custom_names (json_array_get_object_element (traces, 0), names);
  g_assert_cmpuint (names->len, ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    g_assert_cmpstr (names->pdata[i], ==, expected[i]);

  tree = normalized (fixture);
  g_assert_cmpstr (
    tree, ==,
    "[{\"workflow_name\":\"sandbox_runtime_test\",\"children\":["
    "{\"type\":\"custom\",\"data\":{\"name\":\"sandbox.prepare_agent\","
    "\"data\":{}},\"children\":["
    "{\"type\":\"custom\",\"data\":{\"name\":\"sandbox.create_session\","
    "\"data\":{}}},"
    "{\"type\":\"custom\",\"data\":{\"name\":\"sandbox.start\",\"data\":{}}}"
    "]},"
    "{\"type\":\"custom\",\"data\":{\"name\":\"sandbox.cleanup\",\"data\":{}},"
    "\"children\":[{\"type\":\"custom\",\"data\":{\"name\":"
    "\"sandbox.cleanup_sessions\",\"data\":{}},\"children\":["
    "{\"type\":\"custom\",\"data\":{\"name\":\"sandbox.stop\",\"data\":{}}},"
    "{\"type\":\"custom\",\"data\":{\"name\":\"sandbox.shutdown\","
    "\"data\":{}}}]}]}]}]");
}

static void
test_span_kinds (Fixture *fixture, gconstpointer user_data)
{
  static const char *const handoffs[] = { "billing", NULL };
  static const char *const tools[] = { "read_file", "exec", NULL };
  g_autoptr (AgentsTrace) trace =
    agents_trace_begin ("kinds", "trace_custom", "group-7", NULL);
  g_autoptr (JsonObject) data =
    parse_object ("{\"type\":\"ignored\",\"name\":\"raw\",\"extra\":[1,null]}");
  g_autoptr (JsonObject) usage = parse_object ("{\"input_tokens\":3}");
  g_autoptr (JsonArray) input = json_array_new ();
  g_autofree char *tree = NULL;
  AgentsSpan *agent;

  g_assert_cmpstr (agents_trace_get_trace_id (trace), ==, "trace_custom");
  g_assert_cmpstr (agents_trace_get_group_id (trace), ==, "group-7");
  agent = agents_span_begin_agent ("triage", handoffs, tools, "str");
  g_assert_cmpint (agents_span_get_kind (agent), ==, AGENTS_SPAN_KIND_AGENT);
  end_span (
    agents_span_begin_generation (input, NULL, "gpt-test", NULL, usage));
  end_span (agents_span_begin_handoff ("triage", "billing"));
  end_span (agents_span_begin_guardrail ("no_secrets", FALSE));
  end_span (agents_span_begin (AGENTS_SPAN_KIND_CUSTOM, data));
  end_span (agents_span_begin (AGENTS_SPAN_KIND_FUNCTION, NULL));
  end_span (agent);
  agents_trace_end (trace);

  tree = normalized (fixture);
  g_assert_cmpstr (
    tree, ==,
    "[{\"workflow_name\":\"kinds\",\"group_id\":\"group-7\",\"children\":["
    "{\"type\":\"agent\",\"data\":{\"name\":\"triage\",\"handoffs\":"
    "[\"billing\"],\"tools\":[\"read_file\",\"exec\"],\"output_type\":"
    "\"str\"},\"children\":["
    "{\"type\":\"generation\",\"data\":{\"input\":[],\"model\":\"gpt-test\","
    "\"usage\":{\"input_tokens\":3}}},"
    "{\"type\":\"handoff\",\"data\":{\"from_agent\":\"triage\","
    "\"to_agent\":\"billing\"}},"
    "{\"type\":\"guardrail\",\"data\":{\"name\":\"no_secrets\","
    "\"triggered\":false}},"
    "{\"type\":\"custom\",\"data\":{\"name\":\"raw\",\"data\":{},"
    "\"extra\":[1,null]}},"
    "{\"type\":\"function\"}]}]}]");
  g_assert_cmpstr (agents_span_kind_to_string (AGENTS_SPAN_KIND_GENERATION), ==,
                   "generation");
}

static void
test_span_data_shapes (Fixture *fixture, gconstpointer user_data)
{
  g_autoptr (AgentsTrace) trace =
    agents_trace_begin ("shapes", NULL, NULL, NULL);
  g_autoptr (AgentsSpan) function =
    agents_span_begin_function ("tool", NULL, NULL);
  g_autoptr (JsonObject) exported = NULL;
  g_autoptr (JsonNode) node = NULL;
  g_autofree char *text = NULL;

  /* The full span data, null members included, in the reference's
   * order. */
  node =
    json_node_init_object (json_node_alloc (), agents_span_get_data (function));
  text = json_to_string (node, FALSE);
  g_assert_cmpstr (text, ==,
                   "{\"type\":\"function\",\"name\":\"tool\",\"input\":null,"
                   "\"output\":null}");
  agents_span_end (function, NULL);

  exported = agents_span_export (function);
  g_assert_cmpstr (json_object_get_string_member (exported, "object"), ==,
                   "trace.span");
  g_assert_cmpstr (json_object_get_string_member (exported, "id"), ==,
                   agents_span_get_span_id (function));
  g_assert_true (json_object_get_null_member (exported, "parent_id"));
  g_assert_true (json_object_get_null_member (exported, "error"));
  g_assert_nonnull (json_object_get_string_member (exported, "ended_at"));
  agents_trace_end (trace);
}

static void
test_disabled (Fixture *fixture, gconstpointer user_data)
{
  g_autoptr (AgentsSpan) orphan = NULL;
  g_autofree char *tree = NULL;
  g_autofree char *events = NULL;

  /* No current trace: spans do not record. */
  orphan = agents_span_begin_custom ("orphan", NULL);
  g_assert_false (agents_span_is_recording (orphan));
  g_assert_null (agents_span_get_data (orphan));
  g_assert_null (agents_tracing_get_current_span ());
  agents_span_set_error (orphan, "ignored", NULL);
  g_assert_null (agents_span_get_error (orphan));
  agents_span_end (orphan, NULL);

  /* Tracing disabled for the process. */
  agents_tracing_set_disabled (TRUE);
  g_assert_true (agents_tracing_get_disabled ());
  {
    g_autoptr (AgentsTrace) trace =
      agents_trace_begin ("disabled", NULL, NULL, NULL);
    g_autoptr (AgentsSpan) span = agents_span_begin_custom ("nope", NULL);
    g_autoptr (AgentsSpan) other =
      agents_span_begin (AGENTS_SPAN_KIND_AGENT, NULL);

    g_assert_false (agents_trace_is_recording (trace));
    g_assert_null (agents_trace_export (trace));
    g_assert_false (agents_span_is_recording (span));
    /* Placeholders are shared: they cost no allocation. */
    g_assert_true (span == other);
    g_assert_null (agents_span_export (span));
    agents_span_end (other, NULL);
    agents_span_end (span, NULL);
    agents_trace_end (trace);
  }
  agents_tracing_set_disabled (FALSE);

  /* A trace begun disabled (a run with tracing disabled) makes the spans
   * under it placeholders, even with tracing enabled. */
  {
    g_autoptr (AgentsTrace) trace =
      agents_trace_begin_full ("run", NULL, NULL, NULL, TRUE);
    g_autoptr (AgentsSpan) span =
      agents_span_begin_function ("tool", "{}", NULL);
    g_autoptr (AgentsSpan) child =
      agents_trace_start_span (trace, NULL, AGENTS_SPAN_KIND_CUSTOM, NULL);

    g_assert_true (agents_tracing_get_current_trace () == trace);
    g_assert_false (agents_span_is_recording (span));
    g_assert_false (agents_span_is_recording (child));
    agents_span_end (child, NULL);
    agents_span_end (span, NULL);
    agents_trace_end (trace);
  }

  tree = normalized (fixture);
  g_assert_cmpstr (tree, ==, "[]");
  events = joined_events (fixture);
  g_assert_cmpstr (events, ==, "");
}

static void
test_errors (Fixture *fixture, gconstpointer user_data)
{
  g_autoptr (AgentsTrace) trace =
    agents_trace_begin ("errors", NULL, NULL, NULL);
  g_autoptr (GError) error =
    g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED, "disk on fire");
  g_autoptr (JsonObject) details =
    parse_object ("{\"tool_name\":\"foo\",\"error\":\"boom\"}");
  g_autofree char *tree = NULL;
  AgentsSpan *span;

  span = agents_span_begin_custom ("fails", NULL);
  agents_span_end (span, error);
  /* Ending twice changes nothing and tells nobody. */
  agents_span_end (span, NULL);
  g_object_unref (span);

  span = agents_span_begin_function ("foo", "{}", NULL);
  agents_span_set_error (span, "Error running tool", details);
  agents_span_end (span, error); /* the detailed error is kept */
  g_object_unref (span);
  agents_trace_end (trace);
  agents_trace_end (trace);

  tree = normalized (fixture);
  g_assert_cmpstr (
    tree, ==,
    "[{\"workflow_name\":\"errors\",\"children\":["
    "{\"type\":\"custom\",\"error\":{\"message\":\"disk on fire\","
    "\"data\":null},\"data\":{\"name\":\"fails\",\"data\":{}}},"
    "{\"type\":\"function\",\"error\":{\"message\":\"Error running tool\","
    "\"data\":{\"tool_name\":\"foo\",\"error\":\"boom\"}},\"data\":"
    "{\"name\":\"foo\",\"input\":\"{}\"}}]}]");
  {
    g_autofree char *events = joined_events (fixture);

    g_assert_cmpstr (events, ==,
                     "trace_start,span_start,span_end,span_start,span_end,"
                     "trace_end");
  }
}

static void
test_processors_in_order (Fixture *fixture, gconstpointer user_data)
{
  g_autoptr (GPtrArray) log = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (TestRecorder) a = test_recorder_new ("a", log);
  g_autoptr (TestRecorder) b = test_recorder_new ("b", log);
  g_autofree char *joined = NULL;

  agents_tracing_set_processors (NULL, 0);
  agents_tracing_add_processor (AGENTS_TRACING_PROCESSOR (a));
  agents_tracing_add_processor (AGENTS_TRACING_PROCESSOR (b));
  {
    g_autoptr (AgentsTrace) trace =
      agents_trace_begin ("order", NULL, NULL, NULL);

    custom ("one");
    agents_tracing_remove_processor (AGENTS_TRACING_PROCESSOR (a));
    agents_trace_end (trace);
  }
  agents_tracing_shutdown ();
  g_ptr_array_add (log, NULL);
  joined = g_strjoinv (",", (char **) log->pdata);
  g_assert_cmpstr (joined, ==,
                   "a:trace_start,b:trace_start,a:span_start,b:span_start,"
                   "a:span_end,b:span_end,b:trace_end,b:shutdown");
}

static void
check_iso_time (JsonObject *object, const char *member, GDateTime **out)
{
  const char *text = json_object_get_string_member (object, member);
  g_autoptr (GDateTime) time = NULL;

  g_assert_nonnull (text);
  g_assert_true (g_str_has_suffix (text, "+00:00"));
  time = g_date_time_new_from_iso8601 (text, NULL);
  g_assert_nonnull (time);
  if (out != NULL)
    *out = g_steal_pointer (&time);
}

static JsonObject *
line_object (const char *line)
{
  g_autoptr (JsonNode) node = NULL;
  g_autoptr (GError) error = NULL;

  node = json_from_string (line, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  return json_object_ref (json_node_get_object (node));
}

static void
test_jsonl_exporter (Fixture *fixture, gconstpointer user_data)
{
  g_autofree char *dir = agents_test_make_tmp_dir ("agents-tracing-");
  g_autofree char *path = g_build_filename (dir, "traces.jsonl", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsJsonlExporter) exporter = NULL;
  g_autoptr (JsonObject) metadata = parse_object ("{\"user\":\"u1\"}");
  g_autoptr (AgentsTrace) trace = NULL;
  g_autofree char *contents = NULL;
  g_auto (GStrv) lines = NULL;
  g_autoptr (JsonObject) inner = NULL;
  g_autoptr (JsonObject) outer = NULL;
  g_autoptr (JsonObject) trace_line = NULL;
  GDateTime *started = NULL, *ended = NULL;
  AgentsTracingProcessor *list[2];
  AgentsSpan *span, *child;

  exporter = agents_jsonl_exporter_new (path, &error);
  g_assert_no_error (error);
  list[0] = AGENTS_TRACING_PROCESSOR (exporter);
  list[1] = AGENTS_TRACING_PROCESSOR (fixture->processor);
  agents_tracing_set_processors (list, 2);

  trace = agents_trace_begin ("export", NULL, "conv-1", metadata);
  span = agents_span_begin_custom ("outer", NULL);
  child = agents_span_begin_function ("tool", "{\"a\":1}", "ok");
  end_span (child);
  {
    g_autoptr (GError) failure =
      g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED, "late");

    agents_span_end (span, failure);
    g_object_unref (span);
  }
  agents_trace_end (trace);
  agents_tracing_shutdown ();

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_true (g_str_has_suffix (contents, "\n"));
  lines = g_strsplit (contents, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 4);
  g_assert_cmpstr (lines[3], ==, "");

  inner = line_object (lines[0]);
  outer = line_object (lines[1]);
  trace_line = line_object (lines[2]);

  g_assert_cmpstr (json_object_get_string_member (trace_line, "object"), ==,
                   "trace");
  g_assert_cmpstr (json_object_get_string_member (trace_line, "id"), ==,
                   agents_trace_get_trace_id (trace));
  g_assert_cmpstr (json_object_get_string_member (trace_line, "workflow_name"),
                   ==, "export");
  g_assert_cmpstr (json_object_get_string_member (trace_line, "group_id"), ==,
                   "conv-1");
  g_assert_cmpstr (
    json_object_get_string_member (
      json_object_get_object_member (trace_line, "metadata"), "user"),
    ==, "u1");
  check_iso_time (trace_line, "started_at", &started);
  check_iso_time (trace_line, "ended_at", &ended);
  g_assert_cmpint (g_date_time_compare (started, ended), <=, 0);
  g_date_time_unref (started);
  g_date_time_unref (ended);

  g_assert_cmpstr (json_object_get_string_member (outer, "object"), ==,
                   "trace.span");
  g_assert_cmpstr (json_object_get_string_member (outer, "trace_id"), ==,
                   agents_trace_get_trace_id (trace));
  g_assert_true (json_object_get_null_member (outer, "parent_id"));
  g_assert_cmpstr (json_object_get_string_member (
                     json_object_get_object_member (outer, "error"), "message"),
                   ==, "late");
  g_assert_cmpstr (json_object_get_string_member (inner, "parent_id"), ==,
                   json_object_get_string_member (outer, "id"));
  g_assert_cmpstr (json_object_get_string_member (inner, "trace_id"), ==,
                   agents_trace_get_trace_id (trace));
  g_assert_cmpstr (
    json_object_get_string_member (
      json_object_get_object_member (inner, "span_data"), "output"),
    ==, "ok");
  g_assert_true (json_object_get_null_member (inner, "error"));
  check_iso_time (inner, "started_at", &started);
  check_iso_time (inner, "ended_at", &ended);
  g_assert_cmpint (g_date_time_compare (started, ended), <=, 0);
  g_date_time_unref (started);
  g_date_time_unref (ended);

  /* After shutdown the exporter writes nothing more. */
  {
    g_autoptr (AgentsTrace) later =
      agents_trace_begin ("later", NULL, NULL, NULL);

    agents_trace_end (later);
  }
  {
    g_autofree char *again = NULL;

    g_assert_true (g_file_get_contents (path, &again, NULL, NULL));
    g_assert_cmpstr (again, ==, contents);
  }
  agents_test_rm_rf (dir);
}

static void
test_jsonl_exporter_bad_path (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsJsonlExporter) exporter =
    agents_jsonl_exporter_new ("/nonexistent-dir/x/traces.jsonl", &error);

  g_assert_null (exporter);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
}

typedef struct
{
  AgentsTrace *trace;
  AgentsSpan *parent;
  gboolean saw_current;
} ThreadData;

static gpointer
other_thread (gpointer user_data)
{
  ThreadData *data = user_data;
  g_autoptr (JsonNode) name =
    json_node_init_string (json_node_alloc (), "in thread");
  AgentsSpan *span;

  /* The current trace belongs to the main thread. */
  data->saw_current = agents_tracing_get_current_trace () != NULL;
  span = agents_trace_start_span (data->trace, data->parent,
                                  AGENTS_SPAN_KIND_CUSTOM, NULL);
  agents_span_set_data_member (span, "name", name);
  end_span (span);
  return NULL;
}

static void
test_threads_and_explicit_parents (Fixture *fixture, gconstpointer data)
{
  g_autoptr (AgentsTrace) trace =
    agents_trace_begin ("threads", NULL, NULL, NULL);
  ThreadData thread_data = { trace, NULL, FALSE };
  g_autofree char *tree = NULL;
  AgentsSpan *parent = agents_span_begin_custom ("parent", NULL);
  GThread *thread;

  thread_data.parent = parent;
  thread = g_thread_new ("tracing", other_thread, &thread_data);
  g_thread_join (thread);
  g_assert_false (thread_data.saw_current);
  /* The span from the other thread did not become current here. */
  g_assert_true (agents_tracing_get_current_span () == parent);
  end_span (parent);
  agents_trace_end (trace);

  tree = normalized (fixture);
  g_assert_cmpstr (tree, ==,
                   "[{\"workflow_name\":\"threads\",\"children\":["
                   "{\"type\":\"custom\",\"data\":{\"name\":\"parent\","
                   "\"data\":{}},\"children\":[{\"type\":\"custom\","
                   "\"data\":{\"name\":\"in thread\",\"data\":{}}}]}]}]");
}

static void
test_nested_traces_and_clear (Fixture *fixture, gconstpointer user_data)
{
  g_autoptr (AgentsTrace) outer =
    agents_trace_begin ("outer", NULL, NULL, NULL);
  g_autoptr (AgentsTrace) inner = NULL;
  AgentsSpan *span = agents_span_begin_custom ("in outer", NULL);
  g_autofree char *tree = NULL;

  /* A trace begun inside another takes over until it ends; spans begin
   * directly under it. */
  inner = agents_trace_begin ("inner", NULL, NULL, NULL);
  g_assert_true (agents_tracing_get_current_trace () == inner);
  g_assert_null (agents_tracing_get_current_span ());
  custom ("in inner");
  agents_trace_end (inner);
  g_assert_true (agents_tracing_get_current_trace () == outer);
  g_assert_true (agents_tracing_get_current_span () == span);
  end_span (span);
  agents_trace_end (outer);

  tree = normalized (fixture);
  g_assert_cmpstr (tree, ==,
                   "[{\"workflow_name\":\"outer\",\"children\":["
                   "{\"type\":\"custom\",\"data\":{\"name\":\"in outer\","
                   "\"data\":{}}}]},"
                   "{\"workflow_name\":\"inner\",\"children\":["
                   "{\"type\":\"custom\",\"data\":{\"name\":\"in inner\","
                   "\"data\":{}}}]}]");

  agents_test_tracing_processor_clear (fixture->processor);
  g_free (tree);
  tree = normalized (fixture);
  g_assert_cmpstr (tree, ==, "[]");
}

static void
add_test (const char *name, void (*func) (Fixture *, gconstpointer))
{
  g_test_add (name, Fixture, NULL, fixture_set_up, func, fixture_tear_down);
}

/* Ids are the prefix and the hexadecimal digits of a version 4 UUID, and
 * do not repeat, on one thread or across threads. */
static void
assert_id (const char *id, const char *prefix, guint digits)
{
  const char *hex = id + strlen (prefix);

  g_assert_true (g_str_has_prefix (id, prefix));
  g_assert_cmpuint (strlen (hex), ==, digits);
  for (guint i = 0; i < digits; i++)
    g_assert_true (g_ascii_isxdigit (hex[i]) && !g_ascii_isupper (hex[i]));
  g_assert_cmpint (hex[12], ==, '4');
  g_assert_nonnull (strchr ("89ab", hex[16]));
}

static gpointer
trace_ids_thread (gpointer user_data)
{
  GPtrArray *ids = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < 200; i++)
    {
      g_autoptr (AgentsTrace) trace =
        agents_trace_begin ("ids", NULL, NULL, NULL);

      g_ptr_array_add (ids, g_strdup (agents_trace_get_trace_id (trace)));
      agents_trace_end (trace);
    }
  return ids;
}

static void
test_ids (void)
{
  g_autoptr (GHashTable) seen =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (AgentsTrace) trace = agents_trace_begin ("ids", NULL, NULL, NULL);
  GThread *threads[2];

  assert_id (agents_trace_get_trace_id (trace), "trace_", 32);
  for (guint i = 0; i < 1000; i++)
    {
      g_autoptr (AgentsSpan) span =
        agents_trace_start_span (trace, NULL, AGENTS_SPAN_KIND_CUSTOM, NULL);
      const char *id = agents_span_get_span_id (span);

      assert_id (id, "span_", 24);
      g_assert_true (g_hash_table_add (seen, g_strdup (id)));
      agents_span_end (span, NULL);
    }
  agents_trace_end (trace);

  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("ids", trace_ids_thread, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    {
      g_autoptr (GPtrArray) ids = g_thread_join (threads[i]);

      for (guint j = 0; j < ids->len; j++)
        {
          assert_id (ids->pdata[j], "trace_", 32);
          g_assert_true (g_hash_table_add (seen, g_strdup (ids->pdata[j])));
        }
    }
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  add_test ("/tracing/nesting-and-order", test_nesting_and_order);
  add_test ("/tracing/sandbox-custom-spans", test_sandbox_custom_spans);
  add_test ("/tracing/span-kinds", test_span_kinds);
  add_test ("/tracing/span-data-shapes", test_span_data_shapes);
  add_test ("/tracing/disabled", test_disabled);
  add_test ("/tracing/errors", test_errors);
  add_test ("/tracing/processors-in-order", test_processors_in_order);
  add_test ("/tracing/jsonl-exporter", test_jsonl_exporter);
  add_test ("/tracing/threads-and-explicit-parents",
            test_threads_and_explicit_parents);
  add_test ("/tracing/nested-traces-and-clear", test_nested_traces_and_clear);
  g_test_add_func ("/tracing/ids", test_ids);
  g_test_add_func ("/tracing/jsonl-exporter-bad-path",
                   test_jsonl_exporter_bad_path);

  return g_test_run ();
}
