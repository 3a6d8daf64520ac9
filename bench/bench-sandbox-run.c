/* bench-sandbox-run.c - one sandboxed agent run, end to end
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Runs a demo-like AgentsSandboxAgent (filesystem and shell
 * capabilities) on the scripted model with the real, confined unix_local
 * backend: the session is created from a manifest of F files (100), the
 * model makes T tool turns (20), each an `exec_command` of
 * `wc -c file_N`, then answers; the run's cleanup stops the session
 * (which persists the workspace to a local snapshot under
 * $XDG_CACHE_HOME, a temporary directory here), shuts it down and
 * deletes it. Measured, interleaved with the baseline:
 *
 *  - `run`: the whole agents_runner_run_async() call, the time up to the
 *    first model call (create the session, write the manifest, start),
 *    each tool turn (the runner's llm-start stamps, split at tool-start
 *    and tool-end), the cleanup after the last model call, the sandbox.*
 *    spans of the run's trace, and the CPU time of the process;
 *  - `bare`: the same work without the runner and the runtime, over the
 *    session API: create with the same manifest and snapshot spec, start,
 *    the same T confined execs, stop, shutdown, delete.
 *
 * The ratio of the per-turn times shows what the runner and the runtime
 * add to a confined exec. Then the cost of one build of the filesystem
 * section of the system prompt, which every turn rebuilds, and, in child
 * processes (this program re-executed with --phase), the peak RSS
 * (VmHWM) of one run and of one bare sequence in a fresh process.
 *
 * Not a test: `meson test` does not run it; see docs/performance.md.
 */

#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "agents-unix-local-client.h"
#include "agents.h"

/* ---- options --------------------------------------------------------- */

static int opt_turns = 20;
static int opt_files = 100;
static int opt_file_bytes = 1024;
static int opt_reps = 15;
static int opt_rss_reps = 3;
static gboolean opt_quick;
/* internal: the child phase */
static char *opt_phase;

static GOptionEntry entries[] = {
  { "turns", 'n', 0, G_OPTION_ARG_INT, &opt_turns,
    "Tool turns per run, each one exec_command (20)", "N" },
  { "files", 0, 0, G_OPTION_ARG_INT, &opt_files, "Files in the manifest (100)",
    "N" },
  { "file-bytes", 0, 0, G_OPTION_ARG_INT, &opt_file_bytes,
    "Bytes per manifest file (1024)", "N" },
  { "reps", 'r', 0, G_OPTION_ARG_INT, &opt_reps,
    "Timed runs per variant, interleaved (15; quick: 2)", "N" },
  { "rss-reps", 0, 0, G_OPTION_ARG_INT, &opt_rss_reps,
    "Child processes per variant for the peak RSS (3; quick: 1)", "N" },
  { "quick", 'q', 0, G_OPTION_ARG_NONE, &opt_quick,
    "Two reps, one RSS child (smoke test)", NULL },
  { "phase", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, &opt_phase, NULL,
    NULL },
  G_OPTION_ENTRY_NULL
};

/* ---- helpers --------------------------------------------------------- */

static void die (const char *format, ...) G_GNUC_NORETURN G_GNUC_PRINTF (1, 2);

static void
die (const char *format, ...)
{
  va_list args;

  va_start (args, format);
  fprintf (stderr, "bench-sandbox-run: ");
  vfprintf (stderr, format, args);
  fprintf (stderr, "\n");
  va_end (args);
  exit (1);
}

static void
check (GError *error, const char *what)
{
  if (error != NULL)
    die ("%s: %s", what, error->message);
}

static gint64
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (gint64) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* CPU time (user + system) of this process's threads so far; children
 * (the sandboxed commands) are not included. */
static gint64
cpu_ns (void)
{
  struct rusage usage;

  getrusage (RUSAGE_SELF, &usage);
  return ((gint64) usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000000000 +
         ((gint64) usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1000;
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of @n values (sorts a copy). */
static double
percentile (const double *values, guint n, double p)
{
  g_autofree double *sorted = g_memdup2 (values, n * sizeof (double));
  guint rank;

  qsort (sorted, n, sizeof (double), compare_doubles);
  rank = (guint) (p / 100.0 * n + 0.999999);
  return sorted[CLAMP (rank, 1, n) - 1];
}

static double
median (const double *values, guint n)
{
  return percentile (values, n, 50);
}

static long
proc_status_kb (const char *field)
{
  g_autofree char *status = NULL;
  g_auto (GStrv) lines = NULL;
  gsize len = strlen (field);

  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    return -1;
  lines = g_strsplit (status, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (strncmp (lines[i], field, len) == 0 && lines[i][len] == ':')
      return strtol (lines[i] + len + 1, NULL, 10);
  return -1;
}

static double
load_average (void)
{
  g_autofree char *text = NULL;

  if (!g_file_get_contents ("/proc/loadavg", &text, NULL, NULL))
    return -1;
  return g_ascii_strtod (text, NULL);
}

static GAsyncResult *
await (GAsyncResult **slot)
{
  while (*slot == NULL)
    g_main_context_iteration (NULL, TRUE);
  return *slot;
}

static void
on_ready (GObject *source, GAsyncResult *result, gpointer user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

#define AWAIT(slot, call)     \
  G_STMT_START                \
  {                           \
    g_clear_object (&(slot)); \
    call;                     \
    await (&(slot));          \
  }                           \
  G_STMT_END

/* ---- the workspace ----------------------------------------------------- */

/* F files `file_N` of B bytes each: one line of N's digits, repeated. */
static AgentsManifest *
workspace_manifest (void)
{
  g_autoptr (JsonBuilder) json = json_builder_new ();
  g_autoptr (JsonNode) root = NULL;
  g_autoptr (GError) error = NULL;
  AgentsManifest *manifest;

  json_builder_begin_object (json);
  json_builder_set_member_name (json, "entries");
  json_builder_begin_object (json);
  for (int i = 0; i < opt_files; i++)
    {
      g_autofree char *name = g_strdup_printf ("file_%d", i);
      g_autofree char *content = g_malloc (opt_file_bytes + 1);

      for (int j = 0; j < opt_file_bytes; j++)
        content[j] = (j + 1) % 64 == 0 ? '\n' : '0' + (i + j) % 10;
      content[opt_file_bytes] = '\0';
      json_builder_set_member_name (json, name);
      json_builder_begin_object (json);
      json_builder_set_member_name (json, "type");
      json_builder_add_string_value (json, "file");
      json_builder_set_member_name (json, "content");
      json_builder_add_string_value (json, content);
      json_builder_end_object (json);
    }
  json_builder_end_object (json);
  json_builder_end_object (json);
  root = json_builder_get_root (json);
  manifest = agents_manifest_new_from_json (root, &error);
  check (error, "manifest");
  return manifest;
}

static char *
turn_command (guint turn)
{
  return g_strdup_printf ("wc -c file_%u", turn % (guint) opt_files);
}

/* What `wc -c file_N` prints. */
static char *
expected_wc (guint turn)
{
  return g_strdup_printf ("%d file_%u", opt_file_bytes,
                          turn % (guint) opt_files);
}

/* The snapshots the runs persisted. */
static guint
count_snapshots (void)
{
  g_autofree char *dir =
    g_build_filename (g_get_user_cache_dir (), "agents-1.0", "snapshots", NULL);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;

  while (d != NULL && g_dir_read_name (d) != NULL)
    n++;
  return n;
}

/* ---- span timer: a tracing processor ----------------------------------- */

#define SPAN_TIMER_TYPE (span_timer_get_type ())
G_DECLARE_FINAL_TYPE (SpanTimer, span_timer, SPAN, TIMER, GObject)

/* Sums the durations of the sandbox.* custom spans by name. Processors
 * may be called on any thread, hence the lock. */
struct _SpanTimer
{
  GObject parent_instance;

  GMutex lock;
  GHashTable *started; /* AgentsSpan* → gint64* start */
  GHashTable *totals;  /* name → gint64* total ns */
};

static void span_timer_iface_init (AgentsTracingProcessorInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  SpanTimer,
  span_timer,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_TRACING_PROCESSOR, span_timer_iface_init))

static const char *
sandbox_span_name (AgentsSpan *span)
{
  JsonObject *data = agents_span_get_data (span);
  const char *name =
    data ? json_object_get_string_member_with_default (data, "name", NULL)
         : NULL;

  if (agents_span_get_kind (span) != AGENTS_SPAN_KIND_CUSTOM || name == NULL ||
      !g_str_has_prefix (name, "sandbox."))
    return NULL;
  return name;
}

static void
span_timer_on_span_start (AgentsTracingProcessor *processor, AgentsSpan *span)
{
  SpanTimer *self = SPAN_TIMER (processor);
  gint64 *start;

  if (sandbox_span_name (span) == NULL)
    return;
  start = g_new (gint64, 1);
  *start = now_ns ();
  g_mutex_lock (&self->lock);
  g_hash_table_replace (self->started, span, start);
  g_mutex_unlock (&self->lock);
}

static void
span_timer_on_span_end (AgentsTracingProcessor *processor, AgentsSpan *span)
{
  SpanTimer *self = SPAN_TIMER (processor);
  const char *name = sandbox_span_name (span);
  gint64 end = now_ns ();
  gint64 *start, *total;

  if (name == NULL)
    return;
  g_mutex_lock (&self->lock);
  start = g_hash_table_lookup (self->started, span);
  if (start != NULL)
    {
      total = g_hash_table_lookup (self->totals, name);
      if (total == NULL)
        {
          total = g_new0 (gint64, 1);
          g_hash_table_insert (self->totals, g_strdup (name), total);
        }
      *total += end - *start;
      g_hash_table_remove (self->started, span);
    }
  g_mutex_unlock (&self->lock);
}

static void
span_timer_iface_init (AgentsTracingProcessorInterface *iface)
{
  iface->on_span_start = span_timer_on_span_start;
  iface->on_span_end = span_timer_on_span_end;
}

static void
span_timer_finalize (GObject *object)
{
  SpanTimer *self = SPAN_TIMER (object);

  g_hash_table_unref (self->started);
  g_hash_table_unref (self->totals);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (span_timer_parent_class)->finalize (object);
}

static void
span_timer_class_init (SpanTimerClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = span_timer_finalize;
}

static void
span_timer_init (SpanTimer *self)
{
  g_mutex_init (&self->lock);
  self->started = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  self->totals =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

static void
span_timer_reset (SpanTimer *self)
{
  g_mutex_lock (&self->lock);
  g_hash_table_remove_all (self->started);
  g_hash_table_remove_all (self->totals);
  g_mutex_unlock (&self->lock);
}

static double
span_timer_ms (SpanTimer *self, const char *name)
{
  gint64 *total;
  double ms;

  g_mutex_lock (&self->lock);
  total = g_hash_table_lookup (self->totals, name);
  ms = total ? *total / 1e6 : -1;
  g_mutex_unlock (&self->lock);
  return ms;
}

static SpanTimer *span_timer;

/* The spans reported, in the order a run opens them. */
static const char *const span_names[] = {
  "sandbox.prepare_agent", "sandbox.create_session",   "sandbox.start",
  "sandbox.cleanup",       "sandbox.cleanup_sessions", "sandbox.stop",
  "sandbox.shutdown",
};

/* ---- one measurement ---------------------------------------------------- */

typedef struct
{
  double wall_ms;
  double cpu_ms;    /* of this process, the sandboxed commands excluded */
  double create_ms; /* to the first model call / create + start */
  double *turn_ms;  /* per tool turn / per exec */
  /* run only, per tool turn: llm-start → tool-start (the model call and
   * the runner's dispatch), tool-start → tool-end (the exec_command
   * tool), tool-end → next llm-start (the runner, the runtime's
   * prepare_agent, the instructions) */
  double *before_tool_ms;
  double *tool_ms;
  double *after_tool_ms;
  double persist_ms; /* sandbox.stop / stop */
  double end_ms;     /* after the last model call / stop + shutdown + delete */
  double spans_ms[G_N_ELEMENTS (span_names)];
} Sample;

static void
sample_clear (Sample *sample)
{
  g_clear_pointer (&sample->turn_ms, g_free);
  g_clear_pointer (&sample->before_tool_ms, g_free);
  g_clear_pointer (&sample->tool_ms, g_free);
  g_clear_pointer (&sample->after_tool_ms, g_free);
}

/* ---- the run ------------------------------------------------------------ */

typedef struct
{
  gint64 *stamps; /* each llm-start */
  guint n_stamps;
  gint64 *tool_starts;
  guint n_tool_starts;
  gint64 *tool_ends;
  guint n_tool_ends;
  guint capacity;
} Stamps;

static void
stamp (gint64 *stamps, guint *n, guint capacity)
{
  if (*n < capacity)
    stamps[(*n)++] = now_ns ();
}

static void
on_llm_start (AgentsRunner *runner,
              AgentsRunContext *ctx,
              AgentsAgent *agent,
              const char *system_prompt,
              JsonArray *input,
              Stamps *stamps)
{
  stamp (stamps->stamps, &stamps->n_stamps, stamps->capacity);
}

static void
on_tool_start (AgentsRunner *runner,
               AgentsRunContext *ctx,
               AgentsAgent *agent,
               AgentsTool *tool,
               Stamps *stamps)
{
  stamp (stamps->tool_starts, &stamps->n_tool_starts, stamps->capacity);
}

static void
on_tool_end (AgentsRunner *runner,
             AgentsRunContext *ctx,
             AgentsAgent *agent,
             AgentsTool *tool,
             JsonNode *output,
             Stamps *stamps)
{
  stamp (stamps->tool_ends, &stamps->n_tool_ends, stamps->capacity);
}

static AgentsScriptedModel *
scripted_model (void)
{
  AgentsScriptedModel *model = agents_scripted_model_new ();
  g_autoptr (GPtrArray) turns =
    g_ptr_array_new_with_free_func ((GDestroyNotify) json_array_unref);

  for (int i = 0; i < opt_turns; i++)
    {
      g_autofree char *cmd = turn_command (i);
      g_autofree char *call_id = g_strdup_printf ("call_%d", i);
      g_autoptr (JsonObject) args = json_object_new ();
      g_autoptr (JsonNode) node = NULL;
      g_autofree char *arguments = NULL;

      json_object_set_string_member (args, "cmd", cmd);
      node = json_node_init_object (json_node_alloc (), args);
      arguments = json_to_string (node, FALSE);
      g_ptr_array_add (
        turns, agents_testing_items (agents_testing_function_tool_call (
                                       "exec_command", arguments, call_id),
                                     NULL));
    }
  g_ptr_array_add (
    turns, agents_testing_items (
             agents_testing_final_output_message ("All files counted."), NULL));
  agents_scripted_model_add_multiple_turn_outputs (model, turns);
  return model;
}

static AgentsSandboxAgent *
bench_agent (AgentsManifest *manifest, AgentsScriptedModel *model)
{
  AgentsSandboxAgent *agent = agents_sandbox_agent_new ("Counter");
  AgentsCapability *caps[] = { agents_filesystem_capability_new (),
                               agents_shell_capability_new () };

  agents_agent_set_instructions (AGENTS_AGENT (agent),
                                 "Count the bytes of the workspace files.");
  agents_agent_set_model (AGENTS_AGENT (agent), AGENTS_MODEL (model));
  agents_sandbox_agent_set_default_manifest (agent, manifest);
  agents_sandbox_agent_set_capabilities (agent, caps, G_N_ELEMENTS (caps));
  for (guint i = 0; i < G_N_ELEMENTS (caps); i++)
    g_object_unref (caps[i]);
  return agent;
}

/* Every exec_command output is exit code 0 and the count of its file. */
static void
check_run_result (AgentsRunResult *result)
{
  GListModel *items = agents_run_result_get_new_items (result);
  guint outputs = 0;

  for (guint i = 0; i < g_list_model_get_n_items (items); i++)
    {
      g_autoptr (AgentsRunItem) item = g_list_model_get_item (items, i);
      JsonNode *output = agents_run_item_get_output (item);
      g_autofree char *expected = expected_wc (outputs);
      const char *text;

      if (agents_run_item_get_kind (item) !=
          AGENTS_RUN_ITEM_KIND_TOOL_CALL_OUTPUT)
        continue;
      text = output ? json_node_get_string (output) : NULL;
      if (text == NULL ||
          strstr (text, "\nProcess exited with code 0\nOutput:\n") == NULL ||
          strstr (text, expected) == NULL)
        die ("run: tool output %u is “%s”, expected “%s”", outputs,
             text ? text : "(null)", expected);
      outputs++;
    }
  if (outputs != (guint) opt_turns)
    die ("run: %u tool outputs, expected %d", outputs, opt_turns);
  if (g_strcmp0 (
        json_node_get_string (agents_run_result_get_final_output (result)),
        "All files counted.") != 0)
    die ("run: unexpected final output");
}

static void
run_once (AgentsManifest *manifest, Sample *sample)
{
  g_autoptr (AgentsScriptedModel) model = scripted_model ();
  g_autoptr (AgentsSandboxAgent) agent = bench_agent (manifest, model);
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autoptr (AgentsSandboxRunConfig) sandbox = agents_sandbox_run_config_new ();
  g_autoptr (AgentsRunConfig) config = agents_run_config_new ();
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (JsonNode) input =
    json_node_init_string (json_node_alloc (), "Count the bytes.");
  g_autoptr (GAsyncResult) async_result = NULL;
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree gint64 *stamp_array = g_new0 (gint64, 3 * (opt_turns + 1));
  Stamps stamps = { stamp_array,
                    0,
                    stamp_array + opt_turns + 1,
                    0,
                    stamp_array + 2 * (opt_turns + 1),
                    0,
                    opt_turns + 1 };
  guint snapshots = count_snapshots ();
  gint64 start, end;

  agents_sandbox_run_config_set_client (sandbox, client);
  agents_run_config_set_sandbox (config, G_OBJECT (sandbox));
  agents_run_config_set_max_turns (config, opt_turns + 1);
  g_signal_connect (runner, "llm-start", G_CALLBACK (on_llm_start), &stamps);
  g_signal_connect (runner, "tool-start", G_CALLBACK (on_tool_start), &stamps);
  g_signal_connect (runner, "tool-end", G_CALLBACK (on_tool_end), &stamps);
  span_timer_reset (span_timer);

  start = now_ns ();
  AWAIT (async_result,
         agents_runner_run_async (runner, AGENTS_AGENT (agent), input, config,
                                  NULL, NULL, NULL, on_ready, &async_result));
  end = now_ns ();
  result = agents_runner_run_finish (runner, async_result, &error);
  check (error, "run");
  check_run_result (result);
  if (stamps.n_stamps != (guint) opt_turns + 1 ||
      stamps.n_tool_starts != (guint) opt_turns ||
      stamps.n_tool_ends != (guint) opt_turns)
    die ("run: %u model calls, %u tool starts, %u tool ends; expected %d, %d, "
         "%d",
         stamps.n_stamps, stamps.n_tool_starts, stamps.n_tool_ends,
         opt_turns + 1, opt_turns, opt_turns);
  if (count_snapshots () != snapshots + 1)
    die ("run: the cleanup did not persist one snapshot");

  sample->wall_ms = (end - start) / 1e6;
  sample->create_ms = (stamps.stamps[0] - start) / 1e6;
  sample->turn_ms = g_new (double, opt_turns);
  sample->before_tool_ms = g_new (double, opt_turns);
  sample->tool_ms = g_new (double, opt_turns);
  sample->after_tool_ms = g_new (double, opt_turns);
  for (int i = 0; i < opt_turns; i++)
    {
      sample->turn_ms[i] = (stamps.stamps[i + 1] - stamps.stamps[i]) / 1e6;
      sample->before_tool_ms[i] =
        (stamps.tool_starts[i] - stamps.stamps[i]) / 1e6;
      sample->tool_ms[i] = (stamps.tool_ends[i] - stamps.tool_starts[i]) / 1e6;
      sample->after_tool_ms[i] =
        (stamps.stamps[i + 1] - stamps.tool_ends[i]) / 1e6;
    }
  sample->end_ms = (end - stamps.stamps[opt_turns]) / 1e6;
  sample->persist_ms = span_timer_ms (span_timer, "sandbox.stop");
  for (guint i = 0; i < G_N_ELEMENTS (span_names); i++)
    sample->spans_ms[i] = span_timer_ms (span_timer, span_names[i]);
}

/* ---- the bare session -----------------------------------------------------
 */

static void
bare_once (AgentsManifest *manifest, Sample *sample)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autoptr (AgentsManifest) copy = agents_manifest_copy (manifest);
  g_autoptr (AgentsLocalSnapshotSpec) spec =
    agents_local_snapshot_spec_new (NULL);
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GError) error = NULL;
  guint snapshots = count_snapshots ();
  gint64 start, created, stopped, end, t;

  start = now_ns ();
  AWAIT (res, agents_sandbox_client_create_async (
                client, copy, NULL, G_OBJECT (spec), NULL, on_ready, &res));
  session = agents_sandbox_client_create_finish (client, res, &error);
  check (error, "create");
  AWAIT (res,
         agents_sandbox_session_start_async (session, NULL, on_ready, &res));
  agents_sandbox_session_start_finish (session, res, &error);
  check (error, "start");
  created = now_ns ();

  sample->turn_ms = g_new (double, opt_turns);
  t = created;
  for (int i = 0; i < opt_turns; i++)
    {
      g_autofree char *cmd = turn_command (i);
      g_autofree char *expected = expected_wc (i);
      const char *argv[] = { cmd, NULL };
      g_autoptr (AgentsExecResult) exec = NULL;
      g_autofree char *out = NULL;
      gint64 done;

      AWAIT (res, agents_sandbox_session_exec_async (
                    session, argv, 60, TRUE, NULL, NULL, on_ready, &res));
      exec = agents_sandbox_session_exec_finish (session, res, &error);
      check (error, "exec");
      out = agents_exec_result_dup_stdout_text (exec);
      if (agents_exec_result_get_exit_code (exec) != 0 ||
          strstr (out, expected) == NULL)
        die ("bare: exec %d printed “%s”", i, out);
      done = now_ns ();
      sample->turn_ms[i] = (done - t) / 1e6;
      t = done;
    }

  AWAIT (res,
         agents_sandbox_session_stop_async (session, NULL, on_ready, &res));
  agents_sandbox_session_stop_finish (session, res, &error);
  check (error, "stop");
  stopped = now_ns ();
  AWAIT (res,
         agents_sandbox_session_shutdown_async (session, NULL, on_ready, &res));
  agents_sandbox_session_shutdown_finish (session, res, &error);
  check (error, "shutdown");
  AWAIT (res, agents_sandbox_client_delete_async (client, session, NULL,
                                                  on_ready, &res));
  agents_sandbox_client_delete_finish (client, res, &error);
  check (error, "delete");
  end = now_ns ();
  if (count_snapshots () != snapshots + 1)
    die ("bare: stop did not persist one snapshot");

  sample->wall_ms = (end - start) / 1e6;
  sample->create_ms = (created - start) / 1e6;
  sample->persist_ms = (stopped - t) / 1e6;
  sample->end_ms = (end - t) / 1e6;
  for (guint i = 0; i < G_N_ELEMENTS (span_names); i++)
    sample->spans_ms[i] = -1;
}

static void
measure (const char *variant, AgentsManifest *manifest, Sample *sample)
{
  gint64 cpu_start;

  memset (sample, 0, sizeof *sample);
  cpu_start = cpu_ns ();
  if (g_str_equal (variant, "run"))
    run_once (manifest, sample);
  else
    bare_once (manifest, sample);
  sample->cpu_ms = (cpu_ns () - cpu_start) / 1e6;
}

/* ---- the child phase: peak RSS ------------------------------------------- */

static void
add_double (JsonBuilder *json, const char *name, double value)
{
  json_builder_set_member_name (json, name);
  json_builder_add_double_value (json, value);
}

static void
add_int (JsonBuilder *json, const char *name, gint64 value)
{
  json_builder_set_member_name (json, name);
  json_builder_add_int_value (json, value);
}

static char *
builder_text (JsonBuilder *json)
{
  g_autoptr (JsonGenerator) generator = json_generator_new ();
  g_autoptr (JsonNode) root = json_builder_get_root (json);

  json_generator_set_root (generator, root);
  return json_generator_to_data (generator, NULL);
}

/* --phase run|bare: one cold measurement in this fresh process (the
 * confinement probe included); prints its VmHWM as JSON. */
static int
phase_child (const char *variant)
{
  g_autoptr (AgentsManifest) manifest = workspace_manifest ();
  g_autoptr (JsonBuilder) json = json_builder_new ();
  g_autofree char *text = NULL;
  long before = proc_status_kb ("VmHWM");
  Sample sample;

  measure (variant, manifest, &sample);
  json_builder_begin_object (json);
  add_int (json, "vmhwm_before_kb", before);
  add_int (json, "vmhwm_kb", proc_status_kb ("VmHWM"));
  add_double (json, "cold_wall_ms", sample.wall_ms);
  add_double (json, "cold_create_ms", sample.create_ms);
  json_builder_end_object (json);
  text = builder_text (json);
  printf ("%s\n", text);
  sample_clear (&sample);
  return 0;
}

static JsonObject *
spawn_child (const char *variant)
{
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *phase = g_strdup_printf ("--phase=%s", variant);
  g_autofree char *turns = g_strdup_printf ("--turns=%d", opt_turns);
  g_autofree char *files = g_strdup_printf ("--files=%d", opt_files);
  g_autofree char *bytes = g_strdup_printf ("--file-bytes=%d", opt_file_bytes);
  const char *argv[] = { self, phase, turns, files, bytes, NULL };
  g_autofree char *out = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) node = NULL;
  int status;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                     &out, NULL, &status, &error) ||
      !g_spawn_check_wait_status (status, &error))
    die ("%s child: %s", variant, error->message);
  node = json_from_string (out, &error);
  check (error, "child output");
  return json_object_ref (json_node_get_object (node));
}

/* ---- reporting -------------------------------------------------------------
 */

typedef struct
{
  Sample *samples; /* per rep */
} Series;

static double
series_median (Series *s, guint reps, gsize offset)
{
  g_autofree double *values = g_new (double, reps);

  for (guint r = 0; r < reps; r++)
    values[r] = G_STRUCT_MEMBER (double, &s->samples[r], offset);
  return median (values, reps);
}

/* All the per-turn times of all reps, of the array at @offset. */
static double *
all_of (Series *s, guint reps, gsize offset, guint *n)
{
  double *values = g_new (double, reps *opt_turns);

  *n = 0;
  for (guint r = 0; r < reps; r++)
    for (int i = 0; i < opt_turns; i++)
      values[(*n)++] = G_STRUCT_MEMBER (double *, &s->samples[r], offset)[i];
  return values;
}

static double *
all_turns (Series *s, guint reps, guint *n)
{
  return all_of (s, reps, G_STRUCT_OFFSET (Sample, turn_ms), n);
}

static double
median_of (Series *s, guint reps, gsize offset)
{
  guint n;
  g_autofree double *values = all_of (s, reps, offset, &n);

  return median (values, n);
}

static double
turn_mean (Sample *sample)
{
  double sum = 0;

  for (int i = 0; i < opt_turns; i++)
    sum += sample->turn_ms[i];
  return sum / opt_turns;
}

/* The median over the reps of each rep's mean turn time. */
static double
turn_mean_median (Series *s, guint reps)
{
  g_autofree double *means = g_new (double, reps);

  for (guint r = 0; r < reps; r++)
    means[r] = turn_mean (&s->samples[r]);
  return median (means, reps);
}

/* The median over the reps of the difference of the mean turn times of
 * the run and the bare sequence of the same rep (they ran back to back). */
static double
paired_overhead_median (Series *run, Series *bare, guint reps)
{
  g_autofree double *differences = g_new (double, reps);

  for (guint r = 0; r < reps; r++)
    differences[r] =
      turn_mean (&run->samples[r]) - turn_mean (&bare->samples[r]);
  return median (differences, reps);
}

static double
span_median (Series *s, guint reps, guint span)
{
  g_autofree double *values = g_new (double, reps);

  for (guint r = 0; r < reps; r++)
    values[r] = s->samples[r].spans_ms[span];
  return median (values, reps);
}

static void
report_timing (JsonBuilder *json, Series *run, Series *bare, guint reps)
{
  guint n_run, n_bare;
  g_autofree double *run_turns = all_turns (run, reps, &n_run);
  g_autofree double *bare_turns = all_turns (bare, reps, &n_bare);
  double run_turn = median (run_turns, n_run);
  double bare_turn = median (bare_turns, n_bare);
  double run_mean = turn_mean_median (run, reps);
  double bare_mean = turn_mean_median (bare, reps);

#define MED(series, field) \
  series_median (series, reps, G_STRUCT_OFFSET (Sample, field))

  printf ("\n%-44s %12s %12s %8s\n", "(median of the reps, ms)", "run", "bare",
          "ratio");
  printf ("%-44s %12.2f %12.2f %8.2f\n", "wall, whole run", MED (run, wall_ms),
          MED (bare, wall_ms), MED (run, wall_ms) / MED (bare, wall_ms));
  printf ("%-44s %12.2f %12.2f %8.2f\n", "CPU of this process, whole run",
          MED (run, cpu_ms), MED (bare, cpu_ms),
          MED (run, cpu_ms) / MED (bare, cpu_ms));
  printf ("%-44s %12.3f\n", "  difference per turn",
          (MED (run, cpu_ms) - MED (bare, cpu_ms)) / opt_turns);
  printf ("%-44s %12.2f %12.2f %8.2f\n", "create + apply manifest (+ start)",
          MED (run, create_ms), MED (bare, create_ms),
          MED (run, create_ms) / MED (bare, create_ms));
  printf ("%-44s %12.3f %12.3f %8.2f\n", "per turn / per exec: median",
          run_turn, bare_turn, run_turn / bare_turn);
  printf ("%-44s %12.3f %12.3f %8.2f\n", "per turn / per exec: mean", run_mean,
          bare_mean, run_mean / bare_mean);
  printf ("%-44s %12.3f %12.3f\n", "per turn / per exec: p90",
          percentile (run_turns, n_run, 90),
          percentile (bare_turns, n_bare, 90));
  printf ("%-44s %12.3f\n", "runner + runtime overhead per turn (median)",
          run_turn - bare_turn);
  printf ("%-44s %12.3f\n", "  the same, paired by rep (median)",
          paired_overhead_median (run, bare, reps));
  printf ("%-44s %12.3f\n", "  llm-start to tool-start (median)",
          median_of (run, reps, G_STRUCT_OFFSET (Sample, before_tool_ms)));
  printf ("%-44s %12.3f %12.3f %8.2f\n", "  tool-start to tool-end / exec",
          median_of (run, reps, G_STRUCT_OFFSET (Sample, tool_ms)), bare_turn,
          median_of (run, reps, G_STRUCT_OFFSET (Sample, tool_ms)) / bare_turn);
  printf ("%-44s %12.3f\n", "  tool-end to next llm-start (median)",
          median_of (run, reps, G_STRUCT_OFFSET (Sample, after_tool_ms)));
  printf ("%-44s %12.2f %12.2f %8.2f\n", "persist (sandbox.stop / stop)",
          MED (run, persist_ms), MED (bare, persist_ms),
          MED (run, persist_ms) / MED (bare, persist_ms));
  printf ("%-44s %12.2f %12.2f %8.2f\n",
          "end: last model call / last exec to the end", MED (run, end_ms),
          MED (bare, end_ms), MED (run, end_ms) / MED (bare, end_ms));
  printf ("\nspans of the run (median ms):");
  for (guint i = 0; i < G_N_ELEMENTS (span_names); i++)
    printf ("%s %s %.2f", i ? "," : "", span_names[i],
            span_median (run, reps, i));
  printf ("\n");

  json_builder_set_member_name (json, "timing");
  json_builder_begin_object (json);
  add_double (json, "run_wall_ms", MED (run, wall_ms));
  add_double (json, "bare_wall_ms", MED (bare, wall_ms));
  add_double (json, "run_cpu_ms", MED (run, cpu_ms));
  add_double (json, "bare_cpu_ms", MED (bare, cpu_ms));
  add_double (json, "run_create_ms", MED (run, create_ms));
  add_double (json, "bare_create_ms", MED (bare, create_ms));
  add_double (json, "run_turn_median_ms", run_turn);
  add_double (json, "bare_exec_median_ms", bare_turn);
  add_double (json, "turn_ratio", run_turn / bare_turn);
  add_double (json, "run_turn_mean_ms", run_mean);
  add_double (json, "bare_exec_mean_ms", bare_mean);
  add_double (json, "turn_mean_ratio", run_mean / bare_mean);
  add_double (json, "run_turn_p90_ms", percentile (run_turns, n_run, 90));
  add_double (json, "bare_exec_p90_ms", percentile (bare_turns, n_bare, 90));
  add_double (json, "overhead_per_turn_ms", run_turn - bare_turn);
  add_double (json, "overhead_per_turn_paired_ms",
              paired_overhead_median (run, bare, reps));
  add_double (json, "run_llm_to_tool_start_median_ms",
              median_of (run, reps, G_STRUCT_OFFSET (Sample, before_tool_ms)));
  add_double (json, "run_tool_median_ms",
              median_of (run, reps, G_STRUCT_OFFSET (Sample, tool_ms)));
  add_double (json, "run_tool_end_to_llm_median_ms",
              median_of (run, reps, G_STRUCT_OFFSET (Sample, after_tool_ms)));
  add_double (json, "run_persist_ms", MED (run, persist_ms));
  add_double (json, "bare_persist_ms", MED (bare, persist_ms));
  add_double (json, "run_end_ms", MED (run, end_ms));
  add_double (json, "bare_end_ms", MED (bare, end_ms));
  json_builder_set_member_name (json, "run_spans_ms");
  json_builder_begin_object (json);
  for (guint i = 0; i < G_N_ELEMENTS (span_names); i++)
    add_double (json, span_names[i], span_median (run, reps, i));
  json_builder_end_object (json);
  json_builder_set_member_name (json, "run_walls_ms");
  json_builder_begin_array (json);
  for (guint r = 0; r < reps; r++)
    json_builder_add_double_value (json, run->samples[r].wall_ms);
  json_builder_end_array (json);
  json_builder_set_member_name (json, "bare_walls_ms");
  json_builder_begin_array (json);
  for (guint r = 0; r < reps; r++)
    json_builder_add_double_value (json, bare->samples[r].wall_ms);
  json_builder_end_array (json);
  json_builder_end_object (json);
#undef MED
}

static void
report_rss (JsonBuilder *json)
{
  static const char *const variants[] = { "run", "bare" };

  printf ("\npeak RSS, one cold run per fresh process (median of %d)\n",
          opt_rss_reps);
  json_builder_set_member_name (json, "rss");
  json_builder_begin_object (json);
  for (guint v = 0; v < G_N_ELEMENTS (variants); v++)
    {
      g_autofree double *hwm = g_new (double, opt_rss_reps);
      g_autofree double *before = g_new (double, opt_rss_reps);
      g_autofree double *wall = g_new (double, opt_rss_reps);
      g_autofree double *create = g_new (double, opt_rss_reps);

      for (int r = 0; r < opt_rss_reps; r++)
        {
          g_autoptr (JsonObject) m = spawn_child (variants[v]);

          hwm[r] = json_object_get_int_member (m, "vmhwm_kb");
          before[r] = json_object_get_int_member (m, "vmhwm_before_kb");
          wall[r] = json_object_get_double_member (m, "cold_wall_ms");
          create[r] = json_object_get_double_member (m, "cold_create_ms");
        }
      printf ("  %-5s VmHWM %.1f MiB (%.1f MiB before the run); cold wall "
              "%.1f ms, cold create %.1f ms\n",
              variants[v], median (hwm, opt_rss_reps) / 1024,
              median (before, opt_rss_reps) / 1024, median (wall, opt_rss_reps),
              median (create, opt_rss_reps));
      json_builder_set_member_name (json, variants[v]);
      json_builder_begin_object (json);
      add_double (json, "vmhwm_kb", median (hwm, opt_rss_reps));
      add_double (json, "vmhwm_before_kb", median (before, opt_rss_reps));
      add_double (json, "cold_wall_ms", median (wall, opt_rss_reps));
      add_double (json, "cold_create_ms", median (create, opt_rss_reps));
      json_builder_end_object (json);
    }
  json_builder_end_object (json);
}

/* The part of every turn's system prompt that depends on the manifest:
 * its filesystem tree, rebuilt by each prepare. */
static void
report_instructions (JsonBuilder *json, AgentsManifest *manifest)
{
  gsize length = 0;
  gint64 start = now_ns ();
  guint n = 0;
  double us;

  /* 1000 builds, or fewer for a large manifest: at most about 0.2 s. */
  while (n < 1000 && (n < 10 || now_ns () - start < 200000000))
    {
      g_autofree char *text = agents_sandbox_filesystem_instructions (manifest);

      length = strlen (text);
      n++;
    }
  us = (now_ns () - start) / 1e3 / n;
  printf ("\nfilesystem instructions of the manifest: %.1f us per build, %zu "
          "bytes\n",
          us, length);
  add_double (json, "filesystem_instructions_us", us);
  add_int (json, "filesystem_instructions_bytes", length);
}

/* ---- the temporary cache directory ----------------------------------------
 */

static char *cache_dir;

static void
remove_cache_dir (void)
{
  if (cache_dir != NULL)
    agents_fs_rm_rf (cache_dir, NULL);
}

static void
on_signal (int signum)
{
  /* Not async-signal-safe, but the program is dying anyway. */
  remove_cache_dir ();
  signal (signum, SIG_DFL);
  raise (signum);
}

/* Local snapshots go to $XDG_CACHE_HOME/agents-1.0/snapshots: point it
 * into a directory of this run before GLib reads it. A child inherits
 * its parent's. */
static void
setup_cache_dir (void)
{
  g_autoptr (GError) error = NULL;

  if (opt_phase != NULL)
    return;
  cache_dir = g_dir_make_tmp ("bench-sandbox-run-XXXXXX", &error);
  check (error, "temporary directory");
  g_setenv ("XDG_CACHE_HOME", cache_dir, TRUE);
  atexit (remove_cache_dir);
  signal (SIGINT, on_signal);
  signal (SIGTERM, on_signal);
  signal (SIGHUP, on_signal);
}

/* ---- main -------------------------------------------------------------- */

int
main (int argc, char **argv)
{
  g_autoptr (GOptionContext) context = g_option_context_new (
    "- one sandboxed agent run against the bare session API");
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonBuilder) json = json_builder_new ();
  g_autoptr (AgentsManifest) manifest = NULL;
  g_autofree char *text = NULL;
  static const char *const variants[] = { "run", "bare" };
  Series series[2];
  Sample warmup;

  g_setenv ("AGENTS_DISABLE_PLUGINS", "1", TRUE);
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    die ("%s", error->message);
  if (opt_quick)
    {
      opt_reps = 2;
      opt_rss_reps = 1;
    }
  if (opt_turns < 1 || opt_files < 1 || opt_file_bytes < 1 || opt_reps < 1 ||
      opt_rss_reps < 0)
    die ("--turns, --files, --file-bytes and --reps must be at least 1");
  setup_cache_dir ();
  agents_unix_local_register_types ();
  span_timer = g_object_new (SPAN_TIMER_TYPE, NULL);
  agents_tracing_add_processor (AGENTS_TRACING_PROCESSOR (span_timer));
  if (opt_phase != NULL)
    {
      if (!g_str_equal (opt_phase, "run") && !g_str_equal (opt_phase, "bare"))
        die ("unknown phase %s", opt_phase);
      return phase_child (opt_phase);
    }

  manifest = workspace_manifest ();
  printf ("bench-sandbox-run: %d files of %d bytes, %d exec_command turns, "
          "%d reps per variant (interleaved); load average %.2f\n",
          opt_files, opt_file_bytes, opt_turns, opt_reps, load_average ());
  json_builder_begin_object (json);
  json_builder_set_member_name (json, "benchmark");
  json_builder_add_string_value (json, "sandbox-run");
  add_int (json, "files", opt_files);
  add_int (json, "file_bytes", opt_file_bytes);
  add_int (json, "turns", opt_turns);
  add_int (json, "reps", opt_reps);
  add_double (json, "load_before", load_average ());

  /* Warm-up: the confinement probe, type registration, caches. */
  for (guint v = 0; v < G_N_ELEMENTS (variants); v++)
    {
      measure (variants[v], manifest, &warmup);
      sample_clear (&warmup);
    }
  for (guint v = 0; v < G_N_ELEMENTS (variants); v++)
    series[v].samples = g_new0 (Sample, opt_reps);
  /* Interleaved, the order alternating, so drift hits both alike. */
  for (int r = 0; r < opt_reps; r++)
    for (guint k = 0; k < G_N_ELEMENTS (variants); k++)
      {
        guint v = (r + k) % G_N_ELEMENTS (variants);

        measure (variants[v], manifest, &series[v].samples[r]);
      }
  report_timing (json, &series[0], &series[1], opt_reps);
  report_instructions (json, manifest);
  add_double (json, "load_after_timing", load_average ());
  if (opt_rss_reps > 0)
    report_rss (json);
  add_double (json, "load_after", load_average ());
  json_builder_end_object (json);

  for (guint v = 0; v < G_N_ELEMENTS (variants); v++)
    {
      for (int r = 0; r < opt_reps; r++)
        sample_clear (&series[v].samples[r]);
      g_free (series[v].samples);
    }
  agents_tracing_remove_processor (AGENTS_TRACING_PROCESSOR (span_timer));
  g_clear_object (&span_timer);
  text = builder_text (json);
  printf ("\n%s\n", text);
  return 0;
}
