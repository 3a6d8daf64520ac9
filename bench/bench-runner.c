/* bench-runner.c - the cost of the agent runner's turn loop
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Runs one agent for N turns with the scripted model: every turn but the
 * last is one function-tool call, the last a final message. Measures, in
 * one process and interleaved:
 *
 *  - `runner`: agents_runner_run_async() with the default run config
 *    (tracing on, no processor) and max-turns N;
 *  - `runner-notrace`: the same with tracing disabled;
 *  - `baseline`: the obvious loop without the runner, over the same
 *    public async API: build a request on the growing history, call the
 *    same scripted model, invoke the same tool, append the call and its
 *    output to the history (sealed, so that copies of the input share
 *    them, as the runner shares its items), until the final message.
 *
 * Both sides feed the scripted model one turn at a time (the runner from
 * its llm-start signal, which also timestamps the turn; the baseline at
 * the same point of its loop), so the model's queue never holds more than
 * one turn and memory reflects what the run keeps.
 *
 * With --lean-model, both sides use instead a minimal model defined here,
 * which answers the queued items, sealed as the in-tree OpenAI models
 * seal theirs, and records nothing: the scripted model
 * deep-copies every request (for get_last_turn_args()), a cost that grows
 * with the history and hides the runner's own.
 *
 * Then, in child processes (this program re-executed with --phase rss),
 * the peak RSS and the heap kept after runs of 100, 1,000 and 5,000
 * turns.
 *
 * Not a test: `meson test` does not run it; see docs/performance.md.
 */

#include "config.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "agents.h"

/* Target, from the performance brief (see docs/performance.md). */
#define TARGET_OVERHEAD_US 20.0

/* ---- options --------------------------------------------------------- */

static int opt_turns = 1000;
static int opt_reps = 5;
static char *opt_rss_turns;
static gboolean opt_quick;
static gboolean opt_skip_rss;
static gboolean opt_only_runner;
static gboolean opt_lean_model;
/* internal: the child phase */
static char *opt_phase;
static char *opt_variant;

static GOptionEntry entries[] = {
  { "turns", 'n', 0, G_OPTION_ARG_INT, &opt_turns,
    "Turns per timed run (1000; quick: 200)", "N" },
  { "reps", 'r', 0, G_OPTION_ARG_INT, &opt_reps,
    "Timed runs per variant, interleaved (5; quick: 3)", "N" },
  { "rss-turns", 0, 0, G_OPTION_ARG_STRING, &opt_rss_turns,
    "Comma-separated turn counts of the memory runs (100,1000,5000)", "LIST" },
  { "quick", 'q', 0, G_OPTION_ARG_NONE, &opt_quick,
    "Few turns and reps, memory runs of 100 and 500 turns", NULL },
  { "skip-rss", 0, 0, G_OPTION_ARG_NONE, &opt_skip_rss, "Skip the memory runs",
    NULL },
  { "only-runner", 0, 0, G_OPTION_ARG_NONE, &opt_only_runner,
    "Time only the runner with the default config (for profiling)", NULL },
  { "lean-model", 0, 0, G_OPTION_ARG_NONE, &opt_lean_model,
    "Use a minimal model that copies nothing instead of the scripted model",
    NULL },
  { "phase", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, &opt_phase, NULL,
    NULL },
  { "variant", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, &opt_variant, NULL,
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
  fprintf (stderr, "bench-runner: ");
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

/* CPU time (user + system) of the process so far. */
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

/* The 1-minute load average. */
static double
load_average (void)
{
  g_autofree char *text = NULL;

  if (!g_file_get_contents ("/proc/loadavg", &text, NULL, NULL))
    return -1;
  return g_ascii_strtod (text, NULL);
}

/* Bytes the heap hands out now, once the main context has run what is
 * pending (a run may drop its last references from an idle). */
static gint64
heap_in_use (void)
{
  struct mallinfo2 info;

  while (g_main_context_pending (NULL))
    g_main_context_iteration (NULL, FALSE);
  info = mallinfo2 ();

  return (gint64) (info.uordblks + info.hblkhd);
}

typedef struct
{
  GAsyncResult *result;
} Waiter;

static void
waiter_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Waiter *waiter = user_data;

  waiter->result = g_object_ref (result);
}

/* Iterates the thread-default context until the call completes. */
static GAsyncResult *
waiter_wait (Waiter *waiter)
{
  while (waiter->result == NULL)
    g_main_context_iteration (NULL, TRUE);
  return g_steal_pointer (&waiter->result);
}

/* ---- a lean model ------------------------------------------------------ */

/* Answers the queued turns, in order; keeps nothing of the requests. */
#define BENCH_TYPE_LEAN_MODEL (bench_lean_model_get_type ())
G_DECLARE_FINAL_TYPE (
  BenchLeanModel, bench_lean_model, BENCH, LEAN_MODEL, GObject)

struct _BenchLeanModel
{
  GObject parent_instance;
  GQueue turns; /* of JsonArray */
};

static void bench_lean_model_iface_init (AgentsModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  BenchLeanModel,
  bench_lean_model,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_MODEL, bench_lean_model_iface_init))

static void
bench_lean_model_finalize (GObject *object)
{
  BenchLeanModel *self = BENCH_LEAN_MODEL (object);

  g_queue_clear_full (&self->turns, (GDestroyNotify) json_array_unref);
  G_OBJECT_CLASS (bench_lean_model_parent_class)->finalize (object);
}

static void
bench_lean_model_class_init (BenchLeanModelClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = bench_lean_model_finalize;
}

static void
bench_lean_model_init (BenchLeanModel *self)
{
  g_queue_init (&self->turns);
}

static void
lean_get_response (AgentsModel *model, AgentsModelRequest *request, GTask *task)
{
  BenchLeanModel *self = BENCH_LEAN_MODEL (model);
  g_autoptr (JsonArray) items = g_queue_pop_head (&self->turns);
  g_autoptr (AgentsModelResponse) response = NULL;

  if (items == NULL)
    items = json_array_new ();
  for (guint i = 0; i < json_array_get_length (items); i++)
    json_object_seal (json_array_get_object_element (items, i));
  response = agents_model_response_new (items, NULL, "resp");
  agents_model_return_response (task, response);
}

static void
bench_lean_model_iface_init (AgentsModelInterface *iface)
{
  iface->get_response = lean_get_response;
}

/* ---- the script -------------------------------------------------------- */

/* One run's script and clock: turn i (0-based) of @turns is a call of the
 * `step` tool, the last one a final message. */
typedef struct
{
  guint turns;
  guint queued;
  AgentsModel *model; /* scripted, or lean */
  gint64 *stamps;     /* start of each turn */
  guint n_stamps;
  gint64 end;
} Script;

static void
script_init (Script *script, guint turns, gboolean timed)
{
  memset (script, 0, sizeof *script);
  script->turns = turns;
  script->model = opt_lean_model ? g_object_new (BENCH_TYPE_LEAN_MODEL, NULL)
                                 : AGENTS_MODEL (agents_scripted_model_new ());
  if (timed)
    script->stamps = g_new0 (gint64, turns);
}

static void
script_clear (Script *script)
{
  g_clear_object (&script->model);
  g_clear_pointer (&script->stamps, g_free);
}

/* Marks the start of a turn and queues the model's output for it. */
static void
script_turn (Script *script)
{
  g_autoptr (JsonArray) items = json_array_new ();

  if (script->stamps != NULL && script->n_stamps < script->turns)
    script->stamps[script->n_stamps++] = now_ns ();
  if (++script->queued < script->turns)
    {
      char call_id[32], arguments[48];

      g_snprintf (call_id, sizeof call_id, "call_%u", script->queued);
      g_snprintf (arguments, sizeof arguments, "{\"step\": %u}",
                  script->queued);
      json_array_add_object_element (
        items, agents_testing_function_tool_call ("step", arguments, call_id));
    }
  else
    json_array_add_object_element (
      items, agents_testing_final_output_message ("done"));
  if (BENCH_IS_LEAN_MODEL (script->model))
    g_queue_push_tail (&BENCH_LEAN_MODEL (script->model)->turns,
                       g_steal_pointer (&items));
  else
    agents_scripted_model_set_next_output (
      AGENTS_SCRIPTED_MODEL (script->model), items);
}

static char *
step_tool (AgentsRunContext *ctx,
           const char *arguments,
           gpointer user_data,
           GError **error)
{
  return g_strdup ("ok");
}

static AgentsTool *
new_step_tool (void)
{
  return AGENTS_TOOL (agents_function_tool_new ("step", "Does one step.", NULL,
                                                step_tool, NULL, NULL));
}

/* ---- the runner -------------------------------------------------------- */

static void
on_llm_start (AgentsRunner *runner,
              AgentsRunContext *ctx,
              AgentsAgent *agent,
              const char *system_prompt,
              JsonArray *input,
              Script *script)
{
  script_turn (script);
}

/* Runs the script through the runner; returns the wall time in ns. The
 * result is returned in @out_result when not %NULL. */
static gint64
run_runner (Script *script,
            gboolean tracing_disabled,
            AgentsRunResult **out_result)
{
  g_autoptr (AgentsAgent) agent = agents_agent_new ("bench");
  g_autoptr (AgentsTool) tool = new_step_tool ();
  g_autoptr (AgentsRunConfig) config = agents_run_config_new ();
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (JsonNode) input = json_node_init_string (json_node_alloc (), "go");
  g_autoptr (GAsyncResult) async_result = NULL;
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  Waiter waiter = { NULL };
  gint64 start;
  guint n_items;

  agents_agent_set_instructions (agent, "Take steps.");
  agents_agent_set_model (agent, script->model);
  agents_agent_add_tool (agent, tool);
  agents_run_config_set_max_turns (config, script->turns);
  agents_run_config_set_tracing_disabled (config, tracing_disabled);
  g_signal_connect (runner, "llm-start", G_CALLBACK (on_llm_start), script);

  start = now_ns ();
  agents_runner_run_async (runner, agent, input, config, NULL, NULL, NULL,
                           waiter_cb, &waiter);
  async_result = waiter_wait (&waiter);
  script->end = now_ns ();
  result = agents_runner_run_finish (runner, async_result, &error);
  check (error, "run");

  n_items = g_list_model_get_n_items (agents_run_result_get_new_items (result));
  if (n_items != 2 * (script->turns - 1) + 1)
    die ("runner: %u new items, expected %u", n_items,
         2 * (script->turns - 1) + 1);
  if (g_strcmp0 (
        json_node_get_string (agents_run_result_get_final_output (result)),
        "done") != 0)
    die ("runner: unexpected final output");
  if (out_result != NULL)
    *out_result = g_steal_pointer (&result);
  return script->end - start;
}

/* ---- the baseline ------------------------------------------------------ */

static JsonObject *
call_output_item (const char *call_id, const char *output)
{
  JsonObject *item = json_object_new ();

  json_object_set_string_member (item, "type", "function_call_output");
  json_object_set_string_member (item, "call_id", call_id);
  json_object_set_string_member (item, "output", output);
  return item;
}

static JsonNode *
invoke_tool (AgentsTool *tool, AgentsRunContext *ctx, JsonObject *call)
{
  Waiter waiter = { NULL };
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  JsonNode *output;

  agents_tool_invoke_async (tool, ctx,
                            json_object_get_string_member (call, "call_id"),
                            json_object_get_string_member (call, "arguments"),
                            NULL, waiter_cb, &waiter);
  result = waiter_wait (&waiter);
  output = agents_tool_invoke_finish (tool, result, &error);
  check (error, "tool");
  return output;
}

/* Appends @object (taken) to @history sealed, as the runner keeps its
 * items: a sealed item is shared, not copied, by whoever copies the input
 * (agents_model_request_copy() in the scripted model). */
static void
add_sealed (JsonArray *history, JsonObject *object)
{
  JsonNode *node = json_node_init_object (json_node_alloc (), object);

  json_object_unref (object);
  json_node_seal (node);
  json_array_add_element (history, node);
}

/* Handles one model response: appends its items (and the outputs of its
 * tool calls) to @history; returns TRUE at the final message. */
static gboolean
baseline_handle (AgentsModelResponse *response,
                 GHashTable *tools,
                 AgentsRunContext *ctx,
                 JsonArray *history)
{
  JsonArray *output = agents_model_response_get_output (response);
  gboolean final = FALSE;

  for (guint i = 0; i < json_array_get_length (output); i++)
    {
      JsonObject *item = json_array_get_object_element (output, i);
      const char *type = json_object_get_string_member (item, "type");

      add_sealed (history, json_object_ref (item));
      if (g_strcmp0 (type, "function_call") == 0)
        {
          AgentsTool *tool = g_hash_table_lookup (
            tools, json_object_get_string_member (item, "name"));
          g_autoptr (JsonNode) result = NULL;

          if (tool == NULL)
            die ("baseline: unknown tool");
          result = invoke_tool (tool, ctx, item);
          add_sealed (
            history,
            call_output_item (json_object_get_string_member (item, "call_id"),
                              json_node_get_string (result)));
        }
      else if (g_strcmp0 (type, "message") == 0)
        final = TRUE;
    }
  return final;
}

/* The same work without the runner; returns the wall time in ns. The
 * history is returned in @out_history when not %NULL. */
static gint64
run_baseline (Script *script, JsonArray **out_history)
{
  g_autoptr (AgentsTool) tool = new_step_tool ();
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);
  g_autoptr (GPtrArray) tool_list = g_ptr_array_new ();
  g_autoptr (GHashTable) tools = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (JsonArray) history = json_array_new ();
  JsonObject *user = json_object_new ();
  gint64 start;
  gboolean final = FALSE;

  g_ptr_array_add (tool_list, tool);
  g_hash_table_insert (tools, (gpointer) agents_tool_get_name (tool), tool);
  json_object_set_string_member (user, "content", "go");
  json_object_set_string_member (user, "role", "user");
  add_sealed (history, user);

  start = now_ns ();
  while (!final)
    {
      g_autoptr (AgentsModelRequest) request = agents_model_request_new ();
      g_autoptr (AgentsModelResponse) response = NULL;
      g_autoptr (GAsyncResult) result = NULL;
      g_autoptr (GError) error = NULL;
      Waiter waiter = { NULL };

      script_turn (script);
      agents_model_request_set_system_instructions (request, "Take steps.");
      agents_model_request_set_input (request, history);
      agents_model_request_set_tools (request, tool_list);
      agents_model_get_response_async (script->model, request, NULL, waiter_cb,
                                       &waiter);
      result = waiter_wait (&waiter);
      response =
        agents_model_get_response_finish (script->model, result, &error);
      check (error, "model");
      final = baseline_handle (response, tools, ctx, history);
    }
  script->end = now_ns ();
  if (json_array_get_length (history) != 2 * (script->turns - 1) + 2)
    die ("baseline: %u history items", json_array_get_length (history));
  if (out_history != NULL)
    *out_history = g_steal_pointer (&history);
  return script->end - start;
}

/* ---- timing ------------------------------------------------------------ */

enum
{
  VARIANT_RUNNER,
  VARIANT_RUNNER_NOTRACE,
  VARIANT_BASELINE,
  N_VARIANTS
};

static const char *const variant_names[N_VARIANTS] = {
  "runner",
  "runner-notrace",
  "baseline",
};

typedef struct
{
  double *wall_ns;  /* per rep */
  double *cpu_ns;   /* per rep */
  double **turn_ns; /* per rep, per turn */
} Timings;

/* Runs @variant once for @turns turns; fills @turn_ns and @cpu (may be
 * NULL). */
static gint64
time_one (int variant, guint turns, double *turn_ns, double *cpu)
{
  Script script;
  gint64 wall, cpu_start = cpu_ns ();

  script_init (&script, turns, TRUE);
  if (variant == VARIANT_BASELINE)
    wall = run_baseline (&script, NULL);
  else
    wall = run_runner (&script, variant == VARIANT_RUNNER_NOTRACE, NULL);
  if (cpu != NULL)
    *cpu = cpu_ns () - cpu_start;
  if (script.n_stamps != turns)
    die ("%s: %u turns timed, expected %u", variant_names[variant],
         script.n_stamps, turns);
  for (guint i = 0; turn_ns != NULL && i < turns; i++)
    turn_ns[i] =
      (i + 1 < turns ? script.stamps[i + 1] : script.end) - script.stamps[i];
  script_clear (&script);
  return wall;
}

/* Per turn index, the median over the reps. */
static double *
turn_medians (Timings *t, guint reps, guint turns)
{
  double *medians = g_new (double, turns);
  g_autofree double *column = g_new (double, reps);

  for (guint i = 0; i < turns; i++)
    {
      for (guint r = 0; r < reps; r++)
        column[r] = t->turn_ns[r][i];
      medians[i] = median (column, reps);
    }
  return medians;
}

static double
mean_range (const double *values, guint from, guint to)
{
  double sum = 0;

  for (guint i = from; i < to; i++)
    sum += values[i];
  return to > from ? sum / (to - from) : 0;
}

/* Least-squares fit values[i] = a + b * i. */
static void
fit_line (const double *values, guint n, double *a, double *b)
{
  double sx = 0, sy = 0, sxx = 0, sxy = 0;

  for (guint i = 0; i < n; i++)
    {
      sx += i;
      sy += values[i];
      sxx += (double) i * i;
      sxy += i * values[i];
    }
  *b = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  *a = (sy - *b * sx) / n;
}

static void
add_double (JsonBuilder *json, const char *name, double value)
{
  json_builder_set_member_name (json, name);
  json_builder_add_double_value (json, value);
}

/* Reports one runner variant against the baseline. */
static void
report_variant (JsonBuilder *json,
                const char *name,
                Timings *runner,
                Timings *baseline,
                guint reps,
                guint turns)
{
  g_autofree double *r_turn = turn_medians (runner, reps, turns);
  g_autofree double *b_turn = turn_medians (baseline, reps, turns);
  g_autofree double *overhead = g_new (double, turns);
  double r_wall = median (runner->wall_ns, reps);
  double b_wall = median (baseline->wall_ns, reps);
  double r_cpu = median (runner->cpu_ns, reps);
  double b_cpu = median (baseline->cpu_ns, reps);
  guint ten = MIN (turns, 10);
  double wall_overhead_us = (r_wall - b_wall) / turns / 1000.0;
  guint tenth = MAX (turns / 10, 1);
  double a, b, first, last, first_ten;

  for (guint i = 0; i < turns; i++)
    overhead[i] = r_turn[i] - b_turn[i];
  fit_line (overhead, turns, &a, &b);
  first = mean_range (overhead, 0, tenth) / 1000.0;
  last = mean_range (overhead, turns - tenth, turns) / 1000.0;
  first_ten = mean_range (overhead, 0, ten) / 1000.0;

  printf ("\n%s against baseline (%u turns, median of %u runs)\n", name, turns,
          reps);
  printf ("  wall: %.1f ms against %.1f ms, ratio %.2f\n", r_wall / 1e6,
          b_wall / 1e6, r_wall / b_wall);
  printf ("  cpu: %.1f ms against %.1f ms, ratio %.2f\n", r_cpu / 1e6,
          b_cpu / 1e6, r_cpu / b_cpu);
  printf ("  per turn (wall / turns): %.1f us against %.1f us, overhead "
          "%.1f us\n",
          r_wall / turns / 1000.0, b_wall / turns / 1000.0, wall_overhead_us);
  printf (
    "  per turn (llm-start stamps): runner median %.1f us p90 %.1f us; "
    "baseline median %.1f us p90 %.1f us\n",
    median (r_turn, turns) / 1000.0, percentile (r_turn, turns, 90) / 1000.0,
    median (b_turn, turns) / 1000.0, percentile (b_turn, turns, 90) / 1000.0);
  printf ("  overhead per turn: median %.1f us, p90 %.1f us (target <= %.0f "
          "us: %s)\n",
          median (overhead, turns) / 1000.0,
          percentile (overhead, turns, 90) / 1000.0, TARGET_OVERHEAD_US,
          median (overhead, turns) / 1000.0 <= TARGET_OVERHEAD_US ? "met"
                                                                  : "MISSED");
  printf ("  overhead growth: first %u turns %.1f us, first %u %.1f us, last "
          "%u %.1f us; fit %.1f us + %.3f us x turn index\n",
          ten, first_ten, tenth, first, tenth, last, a / 1000.0, b / 1000.0);

  json_builder_set_member_name (json, name);
  json_builder_begin_object (json);
  add_double (json, "wall_ms", r_wall / 1e6);
  add_double (json, "baseline_wall_ms", b_wall / 1e6);
  add_double (json, "wall_ratio", r_wall / b_wall);
  add_double (json, "cpu_ms", r_cpu / 1e6);
  add_double (json, "baseline_cpu_ms", b_cpu / 1e6);
  add_double (json, "cpu_ratio", r_cpu / b_cpu);
  add_double (json, "wall_overhead_us_per_turn", wall_overhead_us);
  add_double (json, "turn_median_us", median (r_turn, turns) / 1000.0);
  add_double (json, "turn_p90_us", percentile (r_turn, turns, 90) / 1000.0);
  add_double (json, "baseline_turn_median_us", median (b_turn, turns) / 1000.0);
  add_double (json, "baseline_turn_p90_us",
              percentile (b_turn, turns, 90) / 1000.0);
  add_double (json, "overhead_median_us", median (overhead, turns) / 1000.0);
  add_double (json, "overhead_p90_us",
              percentile (overhead, turns, 90) / 1000.0);
  add_double (json, "overhead_first_10_turns_us", first_ten);
  add_double (json, "overhead_first_tenth_us", first);
  add_double (json, "overhead_last_tenth_us", last);
  add_double (json, "overhead_fit_intercept_us", a / 1000.0);
  add_double (json, "overhead_fit_slope_us_per_turn", b / 1000.0);
  json_builder_end_object (json);
}

static void
bench_time (JsonBuilder *json, guint turns, guint reps)
{
  Timings timings[N_VARIANTS];
  guint n_variants = opt_only_runner ? 1 : N_VARIANTS;

  /* Warm-up: a short run of each variant (type registration, caches). */
  for (int v = 0; v < (int) n_variants; v++)
    time_one (v, MIN (turns, 50), NULL, NULL);

  for (int v = 0; v < N_VARIANTS; v++)
    {
      timings[v].wall_ns = g_new0 (double, reps);
      timings[v].cpu_ns = g_new0 (double, reps);
      timings[v].turn_ns = g_new0 (double *, reps);
      for (guint r = 0; r < reps; r++)
        timings[v].turn_ns[r] = g_new0 (double, turns);
    }
  /* Interleaved, in a rotating order, so drift hits every variant. */
  for (guint r = 0; r < reps; r++)
    for (guint k = 0; k < n_variants; k++)
      {
        int v = (r + k) % n_variants;

        timings[v].wall_ns[r] =
          time_one (v, turns, timings[v].turn_ns[r], &timings[v].cpu_ns[r]);
      }

  if (opt_only_runner)
    printf ("runner: %.1f ms for %u turns (median of %u)\n",
            median (timings[0].wall_ns, reps) / 1e6, turns, reps);
  else
    {
      report_variant (json, "runner", &timings[VARIANT_RUNNER],
                      &timings[VARIANT_BASELINE], reps, turns);
      report_variant (json, "runner-notrace", &timings[VARIANT_RUNNER_NOTRACE],
                      &timings[VARIANT_BASELINE], reps, turns);
    }

  for (int v = 0; v < N_VARIANTS; v++)
    {
      for (guint r = 0; r < reps; r++)
        g_free (timings[v].turn_ns[r]);
      g_free (timings[v].turn_ns);
      g_free (timings[v].wall_ns);
      g_free (timings[v].cpu_ns);
    }
}

/* ---- memory ------------------------------------------------------------ */

/* --phase rss: one untimed run in this (fresh) process; prints a JSON
 * object with the peak RSS and the heap the result keeps. */
static int
phase_rss (guint turns, const char *variant)
{
  g_autoptr (JsonBuilder) json = json_builder_new ();
  g_autoptr (JsonGenerator) generator = json_generator_new ();
  g_autoptr (JsonNode) root = NULL;
  g_autofree char *text = NULL;
  gint64 heap_before, heap_kept, heap_after;
  long hwm_before;
  guint kept;
  Script script;

  /* Register the types and warm the allocator before the baseline. */
  script_init (&script, 2, FALSE);
  if (g_strcmp0 (variant, "baseline") == 0)
    run_baseline (&script, NULL);
  else
    run_runner (&script, FALSE, NULL);
  script_clear (&script);
  malloc_trim (0);

  hwm_before = proc_status_kb ("VmHWM");
  heap_before = heap_in_use ();
  script_init (&script, turns, FALSE);
  if (g_strcmp0 (variant, "baseline") == 0)
    {
      g_autoptr (JsonArray) history = NULL;

      run_baseline (&script, &history);
      kept = json_array_get_length (history);
      heap_kept = heap_in_use () - heap_before;
    }
  else
    {
      g_autoptr (AgentsRunResult) result = NULL;

      run_runner (&script, FALSE, &result);
      kept =
        g_list_model_get_n_items (agents_run_result_get_new_items (result)) +
        g_list_model_get_n_items (agents_run_result_get_raw_responses (result));
      heap_kept = heap_in_use () - heap_before;
    }
  script_clear (&script);
  heap_after = heap_in_use () - heap_before;

  json_builder_begin_object (json);
  json_builder_set_member_name (json, "turns");
  json_builder_add_int_value (json, turns);
  json_builder_set_member_name (json, "variant");
  json_builder_add_string_value (json, variant);
  json_builder_set_member_name (json, "kept");
  json_builder_add_int_value (json, kept);
  json_builder_set_member_name (json, "vmhwm_before_kb");
  json_builder_add_int_value (json, hwm_before);
  json_builder_set_member_name (json, "vmhwm_kb");
  json_builder_add_int_value (json, proc_status_kb ("VmHWM"));
  json_builder_set_member_name (json, "heap_kept_bytes");
  json_builder_add_int_value (json, heap_kept);
  json_builder_set_member_name (json, "heap_after_free_bytes");
  json_builder_add_int_value (json, heap_after);
  json_builder_end_object (json);
  root = json_builder_get_root (json);
  json_generator_set_root (generator, root);
  text = json_generator_to_data (generator, NULL);
  printf ("%s\n", text);
  return 0;
}

static JsonObject *
spawn_rss (guint turns, const char *variant)
{
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *turns_arg = g_strdup_printf ("--turns=%u", turns);
  g_autofree char *variant_arg = g_strdup_printf ("--variant=%s", variant);
  const char *argv[] = { self,
                         "--phase=rss",
                         turns_arg,
                         variant_arg,
                         opt_lean_model ? "--lean-model" : NULL,
                         NULL };
  g_autofree char *out = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) node = NULL;
  g_auto (GStrv) envp = g_get_environ ();
  int status;

  /* Exact heap accounting: no GSlice magazines, no malloc tcache (their
   * cached chunks count as in use). */
  envp = g_environ_setenv (envp, "G_SLICE", "always-malloc", TRUE);
  envp = g_environ_setenv (envp, "GLIBC_TUNABLES",
                           "glibc.malloc.tcache_count=0", TRUE);
  if (!g_spawn_sync (NULL, (char **) argv, envp, G_SPAWN_DEFAULT, NULL, NULL,
                     &out, NULL, &status, &error) ||
      !g_spawn_check_wait_status (status, &error))
    die ("memory run of %u turns: %s", turns, error->message);
  node = json_from_string (out, &error);
  check (error, "memory run output");
  return json_object_ref (json_node_get_object (node));
}

static void
bench_rss (JsonBuilder *json, const char *list)
{
  g_auto (GStrv) counts = g_strsplit (list, ",", -1);
  static const char *const variants[] = { "runner", "baseline" };

  printf ("\nmemory (one run per process; heap = malloc'd bytes the result "
          "keeps)\n");
  printf ("  %-9s %6s %7s %12s %12s %14s %10s %12s\n", "variant", "turns",
          "kept", "VmHWM KiB", "growth KiB", "heap kept B", "B/kept",
          "after free B");
  json_builder_set_member_name (json, "memory");
  json_builder_begin_array (json);
  for (guint i = 0; counts[i] != NULL; i++)
    for (guint v = 0; v < G_N_ELEMENTS (variants); v++)
      {
        guint turns = (guint) g_ascii_strtoull (counts[i], NULL, 10);
        g_autoptr (JsonObject) m = spawn_rss (turns, variants[v]);
        gint64 kept = json_object_get_int_member (m, "kept");
        gint64 hwm = json_object_get_int_member (m, "vmhwm_kb");
        gint64 heap = json_object_get_int_member (m, "heap_kept_bytes");

        printf ("  %-9s %6u %7" G_GINT64_FORMAT " %12" G_GINT64_FORMAT
                " %12" G_GINT64_FORMAT " %14" G_GINT64_FORMAT " %10.0f"
                " %12" G_GINT64_FORMAT "\n",
                variants[v], turns, kept, hwm,
                hwm - json_object_get_int_member (m, "vmhwm_before_kb"), heap,
                (double) heap / MAX (kept, 1),
                json_object_get_int_member (m, "heap_after_free_bytes"));
        json_builder_add_value (json,
                                json_node_init_object (json_node_alloc (), m));
      }
  json_builder_end_array (json);
}

/* ---- main -------------------------------------------------------------- */

int
main (int argc, char **argv)
{
  g_autoptr (GOptionContext) context =
    g_option_context_new ("- agent runner overhead against a bare loop");
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonBuilder) json = json_builder_new ();
  g_autoptr (JsonGenerator) generator = json_generator_new ();
  g_autoptr (JsonNode) root = NULL;
  g_autofree char *text = NULL;

  setvbuf (stdout, NULL, _IOLBF, 0); /* progress shows when redirected */
  g_setenv ("AGENTS_DISABLE_PLUGINS", "1", TRUE);
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    die ("%s", error->message);
  if (opt_quick)
    {
      opt_turns = 200;
      opt_reps = 3;
      if (opt_rss_turns == NULL)
        opt_rss_turns = g_strdup ("100,500");
    }
  if (opt_turns < 2 || opt_reps < 1)
    die ("--turns must be at least 2 and --reps at least 1");
  if (g_strcmp0 (opt_phase, "rss") == 0)
    return phase_rss (opt_turns, opt_variant);
  if (opt_phase != NULL)
    die ("unknown phase %s", opt_phase);

  printf ("bench-runner: %d turns (each a function-tool call, the last a "
          "final message), %d runs per variant, %s model; load average "
          "%.2f\n",
          opt_turns, opt_reps, opt_lean_model ? "lean" : "scripted",
          load_average ());
  json_builder_begin_object (json);
  json_builder_set_member_name (json, "turns");
  json_builder_add_int_value (json, opt_turns);
  json_builder_set_member_name (json, "reps");
  json_builder_add_int_value (json, opt_reps);
  json_builder_set_member_name (json, "model");
  json_builder_add_string_value (json, opt_lean_model ? "lean" : "scripted");
  add_double (json, "load_before", load_average ());
  bench_time (json, opt_turns, opt_reps);
  printf ("\nload average after the timed runs: %.2f\n", load_average ());
  add_double (json, "load_after_timing", load_average ());
  if (!opt_skip_rss && !opt_only_runner)
    bench_rss (json, opt_rss_turns ? opt_rss_turns : "100,1000,5000");
  add_double (json, "load_after", load_average ());
  json_builder_end_object (json);

  root = json_builder_get_root (json);
  json_generator_set_root (generator, root);
  text = json_generator_to_data (generator, NULL);
  printf ("\n%s\n", text);
  return 0;
}
