/* bench-unix-local.c - ratios of the unix_local backend against baselines
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Measures, in one process, how far the unix_local backend is from what
 * the same work costs without the library:
 *
 *  - the round trip of exec(["true"]) in a started session, unconfined
 *    against a bare GSubprocess of /bin/true, and confined by bubblewrap
 *    against a bare bwrap run with the very same flags;
 *  - persist_workspace and hydrate_workspace of a generated workspace
 *    against GNU tar -c / tar -x, with the peak RSS of our side.
 *
 * Each of our archive phases runs in a child process (this program
 * re-executed with --phase) so that its VmHWM is its own.
 *
 * Not a test: `meson test` does not run it; see bench/run.sh and
 * docs/performance.md.
 */

#include "config.h"

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <grp.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "agents.h"
#include "agents-fs-private.h"
#include "agents-unix-local-client.h"
#include "agents-unix-local-confine.h"
#include "agents-unix-local-session.h"
#include "bench-workspace.h"

#define MB 1000000.0

/* Targets, from the performance brief (see docs/performance.md). */
#define TARGET_EXEC_RATIO 1.2
#define TARGET_ARCHIVE_RATIO 0.8
#define TARGET_PEAK_RSS_MB 32.0

/* ---- options --------------------------------------------------------- */

static gboolean opt_quick;
static int opt_files = -1;
static int opt_mb = -1;
static int opt_iterations = -1;
static int opt_warmup = -1;
static int opt_reps = -1;
static gboolean opt_skip_exec;
static gboolean opt_skip_archive;
static char *opt_keep_dir;
/* internal: the child phases */
static char *opt_phase;
static char *opt_root;
static char *opt_archive;
static char *opt_out;

static GOptionEntry entries[] = {
  { "quick", 'q', 0, G_OPTION_ARG_NONE, &opt_quick,
    "Small workspace and few iterations (smoke test)", NULL },
  { "files", 0, 0, G_OPTION_ARG_INT, &opt_files,
    "Number of files in the workspace (20000; quick: 2000)", "N" },
  { "mb", 0, 0, G_OPTION_ARG_INT, &opt_mb,
    "Workspace size in MB of 10^6 bytes (300; quick: 30)", "N" },
  { "iterations", 'n', 0, G_OPTION_ARG_INT, &opt_iterations,
    "Timed exec calls per variant (200; quick: 30)", "N" },
  { "warmup", 0, 0, G_OPTION_ARG_INT, &opt_warmup,
    "Untimed exec calls per variant first (20; quick: 5)", "N" },
  { "reps", 0, 0, G_OPTION_ARG_INT, &opt_reps,
    "Runs of each archive phase; the median is kept (3; quick: 1)", "N" },
  { "skip-exec", 0, 0, G_OPTION_ARG_NONE, &opt_skip_exec,
    "Do not run the exec benchmark", NULL },
  { "skip-archive", 0, 0, G_OPTION_ARG_NONE, &opt_skip_archive,
    "Do not run the persist/hydrate benchmark", NULL },
  { "keep-workspace", 0, 0, G_OPTION_ARG_FILENAME, &opt_keep_dir,
    "Generate the workspace into DIR (created if missing) and keep it", "DIR" },
  { "phase", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, &opt_phase, NULL,
    NULL },
  { "root", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME, &opt_root, NULL,
    NULL },
  { "archive", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME, &opt_archive,
    NULL, NULL },
  { "out", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME, &opt_out, NULL,
    NULL },
  { NULL }
};

static void
set_default (int *var, int normal, int quick)
{
  if (*var < 0)
    *var = opt_quick ? quick : normal;
}

static void
apply_defaults (void)
{
  set_default (&opt_files, 20000, 2000);
  set_default (&opt_mb, 300, 30);
  set_default (&opt_iterations, 200, 30);
  set_default (&opt_warmup, 20, 5);
  set_default (&opt_reps, 3, 1);
  opt_files = MAX (opt_files, 1);
  opt_iterations = MAX (opt_iterations, 1);
  opt_reps = MAX (opt_reps, 1);
}

/* ---- small helpers --------------------------------------------------- */

static void die (const char *format, ...) G_GNUC_NORETURN G_GNUC_PRINTF (1, 2);

static void
die (const char *format, ...)
{
  va_list ap;

  va_start (ap, format);
  fputs ("bench-unix-local: ", stderr);
  vfprintf (stderr, format, ap);
  fputc ('\n', stderr);
  va_end (ap);
  exit (1);
}

static void
check (GError *error, const char *what)
{
  if (error != NULL)
    die ("%s: %s", what, error->message);
}

static double
now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* Sorts @values in place. */
static double
percentile (double *values, guint n, double p)
{
  guint index;

  qsort (values, n, sizeof (double), compare_doubles);
  index = (guint) ceil (p * n);
  return values[CLAMP (index, 1, n) - 1];
}

static double
median (double *values, guint n)
{
  qsort (values, n, sizeof (double), compare_doubles);
  if (n % 2 == 1)
    return values[n / 2];
  return (values[n / 2 - 1] + values[n / 2]) / 2;
}

/* A field of /proc/self/status, in kB; -1 when missing. */
static long
proc_status_kb (const char *field)
{
  g_autofree char *contents = NULL;
  g_autofree char *key = g_strdup_printf ("\n%s:", field);
  const char *line;

  if (!g_file_get_contents ("/proc/self/status", &contents, NULL, NULL))
    return -1;
  line = strstr (contents, key);
  if (line == NULL)
    return -1;
  return strtol (line + strlen (key), NULL, 10);
}

/* Spins the thread-default main context until an async call is done. */
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

static GAsyncResult *
waiter_wait (Waiter *waiter)
{
  while (waiter->result == NULL)
    g_main_context_iteration (NULL, TRUE);
  return waiter->result;
}

#define WAIT_FOR(call_async, ...)                       \
  G_STMT_START                                          \
  {                                                     \
    g_clear_object (&waiter.result);                    \
    call_async (__VA_ARGS__, NULL, waiter_cb, &waiter); \
    waiter_wait (&waiter);                              \
  }                                                     \
  G_STMT_END

/* ---- sessions -------------------------------------------------------- */

static GVariant *
session_options (const char *confinement)
{
  GVariantDict dict;

  if (confinement == NULL)
    return NULL;
  g_variant_dict_init (&dict, NULL);
  g_variant_dict_insert (&dict, "confinement", "s", confinement);
  return g_variant_ref_sink (g_variant_dict_end (&dict));
}

/* Creates and starts a session; @root NULL gives a fresh owned root. */
static AgentsSandboxSession *
session_open (AgentsSandboxClient *client,
              const char *root,
              const char *confinement)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (GVariant) options = session_options (confinement);
  g_autoptr (AgentsSandboxSession) session = NULL;
  Waiter waiter = { NULL };
  GError *error = NULL;

  if (root != NULL)
    agents_manifest_set_root (manifest, root);
  WAIT_FOR (agents_sandbox_client_create_async, client, manifest, options,
            NULL);
  session = agents_sandbox_client_create_finish (client, waiter.result, &error);
  check (error, "create a unix_local session");
  WAIT_FOR (agents_sandbox_session_start_async, session);
  agents_sandbox_session_start_finish (session, waiter.result, &error);
  check (error, "start a unix_local session");
  g_clear_object (&waiter.result);
  return g_steal_pointer (&session);
}

static void
session_close (AgentsSandboxClient *client, AgentsSandboxSession *session)
{
  Waiter waiter = { NULL };
  GError *error = NULL;

  WAIT_FOR (agents_sandbox_session_shutdown_async, session);
  agents_sandbox_session_shutdown_finish (session, waiter.result, &error);
  check (error, "shut a session down");
  WAIT_FOR (agents_sandbox_client_delete_async, client, session);
  agents_sandbox_client_delete_finish (client, waiter.result, &error);
  check (error, "delete a session");
  g_clear_object (&waiter.result);
}

static const char *
session_root (AgentsSandboxSession *session)
{
  return agents_manifest_get_root (
    agents_sandbox_session_get_manifest (session));
}

/* ---- exec variants --------------------------------------------------- */

typedef gboolean (*ExecFunc) (gpointer data, GError **error);

typedef struct
{
  const char *key;   /* in the JSON */
  const char *label; /* in the table */
  ExecFunc func;
  gpointer data;
  double *samples;
  double median;
  double p90;
} ExecVariant;

static gboolean
exec_session (gpointer data, GError **error)
{
  AgentsSandboxSession *session = data;
  static const char *const argv[] = { "true", NULL };
  g_autoptr (AgentsExecResult) result = NULL;
  Waiter waiter = { NULL };

  WAIT_FOR (agents_sandbox_session_exec_async, session, argv, 0, FALSE, NULL);
  result = agents_sandbox_session_exec_finish (session, waiter.result, error);
  g_clear_object (&waiter.result);
  if (result == NULL)
    return FALSE;
  if (agents_exec_result_get_exit_code (result) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   "`true` exited with %d",
                   agents_exec_result_get_exit_code (result));
      return FALSE;
    }
  return TRUE;
}

/* The baselines: spawn, capture stdout and stderr, wait. */
static gboolean
exec_bare (gpointer data, GError **error)
{
  const char *const *argv = data;
  g_autoptr (GSubprocess) proc = NULL;
  g_autoptr (GBytes) out = NULL;
  g_autoptr (GBytes) err = NULL;

  proc = g_subprocess_newv (
    argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
    error);
  if (proc == NULL ||
      !g_subprocess_communicate (proc, NULL, NULL, &out, &err, error))
    return FALSE;
  if (!g_subprocess_get_if_exited (proc) ||
      g_subprocess_get_exit_status (proc) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s failed: %.*s",
                   argv[0], (int) g_bytes_get_size (err),
                   (const char *) g_bytes_get_data (err, NULL));
      return FALSE;
    }
  return TRUE;
}

/* What a root caller's confined commands run as (the backend's
 * default): bwrap is then started as that user, as anyone would. */
static void
become_sandbox_user (gpointer data)
{
  if (setgroups (0, NULL) < 0 ||
      setresgid (AGENTS_UNIX_LOCAL_DEFAULT_SANDBOX_GID,
                 AGENTS_UNIX_LOCAL_DEFAULT_SANDBOX_GID,
                 AGENTS_UNIX_LOCAL_DEFAULT_SANDBOX_GID) < 0 ||
      setresuid (AGENTS_UNIX_LOCAL_DEFAULT_SANDBOX_UID,
                 AGENTS_UNIX_LOCAL_DEFAULT_SANDBOX_UID,
                 AGENTS_UNIX_LOCAL_DEFAULT_SANDBOX_UID) < 0)
    _exit (126);
}

static gboolean
exec_bare_bwrap (gpointer data, GError **error)
{
  const char *const *argv = data;
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (GSubprocess) proc = NULL;
  g_autoptr (GBytes) err = NULL;

  if (geteuid () != 0)
    return exec_bare (data, error);
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                        G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_set_child_setup (launcher, become_sandbox_user, NULL,
                                         NULL);
  proc = g_subprocess_launcher_spawnv (launcher, argv, error);
  if (proc == NULL ||
      !g_subprocess_communicate (proc, NULL, NULL, NULL, &err, error))
    return FALSE;
  if (!g_subprocess_get_if_exited (proc) ||
      g_subprocess_get_exit_status (proc) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s failed: %.*s",
                   argv[0], (int) g_bytes_get_size (err),
                   (const char *) g_bytes_get_data (err, NULL));
      return FALSE;
    }
  return TRUE;
}

static void
exec_measure (ExecVariant *variants, guint n_variants)
{
  for (guint v = 0; v < n_variants; v++)
    {
      GError *error = NULL;

      variants[v].samples = g_new0 (double, opt_iterations);
      for (int i = 0; i < opt_warmup; i++)
        if (!variants[v].func (variants[v].data, &error))
          check (error, variants[v].label);
    }

  /* Interleaved, so that drift of the machine hits every variant alike. */
  for (int i = 0; i < opt_iterations; i++)
    for (guint v = 0; v < n_variants; v++)
      {
        GError *error = NULL;
        double start = now ();

        if (!variants[v].func (variants[v].data, &error))
          check (error, variants[v].label);
        variants[v].samples[i] = now () - start;
      }

  for (guint v = 0; v < n_variants; v++)
    {
      variants[v].p90 = percentile (variants[v].samples, opt_iterations, 0.9);
      variants[v].median = median (variants[v].samples, opt_iterations);
    }
}

static ExecVariant *
find_variant (ExecVariant *variants, guint n_variants, const char *key)
{
  for (guint v = 0; v < n_variants; v++)
    if (g_str_equal (variants[v].key, key))
      return &variants[v];
  return NULL;
}

static const char *
verdict (gboolean ok)
{
  return ok ? "ok" : "MISSED";
}

/* @target: the largest ratio allowed, or 0 for a ratio given for
 * information only. */
static void
exec_ratio (JsonBuilder *json,
            ExecVariant *variants,
            guint n_variants,
            const char *name,
            const char *ours,
            const char *base,
            double target)
{
  ExecVariant *a = find_variant (variants, n_variants, ours);
  ExecVariant *b = find_variant (variants, n_variants, base);
  g_autofree char *goal = NULL;
  double ratio;

  if (a == NULL || b == NULL)
    return;
  ratio = a->median / b->median;
  goal = target > 0 ? g_strdup_printf ("target <= %.1f)  %s", target,
                                       verdict (ratio <= target))
                    : g_strdup ("no target)");
  printf ("  ratio %-30s %6.2f   (median %s / %s; %s\n", name, ratio, ours,
          base, goal);
  json_builder_set_member_name (json, name);
  json_builder_begin_object (json);
  json_builder_set_member_name (json, "value");
  json_builder_add_double_value (json, ratio);
  json_builder_set_member_name (json, "p90_ratio");
  json_builder_add_double_value (json, a->p90 / b->p90);
  if (target > 0)
    {
      json_builder_set_member_name (json, "target_max");
      json_builder_add_double_value (json, target);
      json_builder_set_member_name (json, "met");
      json_builder_add_boolean_value (json, ratio <= target);
    }
  json_builder_end_object (json);
}

static void
exec_report (JsonBuilder *json,
             ExecVariant *variants,
             guint n_variants,
             const char *confinement)
{
  printf ("\nexec round trip of `true` (argv [\"true\"], no shell): "
          "%d calls after %d warm-up\n",
          opt_iterations, opt_warmup);
  printf ("  %-44s %10s %10s\n", "", "median", "p90");
  json_builder_set_member_name (json, "exec");
  json_builder_begin_object (json);
  json_builder_set_member_name (json, "iterations");
  json_builder_add_int_value (json, opt_iterations);
  json_builder_set_member_name (json, "default_confinement");
  json_builder_add_string_value (json, confinement);
  for (guint v = 0; v < n_variants; v++)
    {
      printf ("  %-44s %7.3f ms %7.3f ms\n", variants[v].label,
              variants[v].median * 1e3, variants[v].p90 * 1e3);
      json_builder_set_member_name (json, variants[v].key);
      json_builder_begin_object (json);
      json_builder_set_member_name (json, "median_ms");
      json_builder_add_double_value (json, variants[v].median * 1e3);
      json_builder_set_member_name (json, "p90_ms");
      json_builder_add_double_value (json, variants[v].p90 * 1e3);
      json_builder_end_object (json);
    }
  exec_ratio (json, variants, n_variants, "unconfined_vs_bare_spawn",
              "unconfined", "bare_spawn", TARGET_EXEC_RATIO);
  exec_ratio (json, variants, n_variants, "bwrap_vs_bare_bwrap", "bwrap",
              "bare_bwrap", TARGET_EXEC_RATIO);
  exec_ratio (json, variants, n_variants, "landlock_vs_bare_spawn", "landlock",
              "bare_spawn", 0);
  json_builder_end_object (json);
}

/* The bwrap command line the backend would build for `true` in @root. */
static char **
bare_bwrap_argv (const AgentsUnixLocalProbe *probe, const char *root)
{
  static const char *const argv[] = { "true", NULL };
  g_autoptr (AgentsUnixLocalPolicy) policy =
    agents_unix_local_policy_new (root, NULL, FALSE);

  return agents_unix_local_bwrap_argv (policy, probe->bwrap_path, argv);
}

static AgentsUnixLocalConfinement
default_confinement (const AgentsUnixLocalProbe *probe)
{
  static const char *const argv[] = { "true", NULL };
  AgentsUnixLocalConfinement selected;
  g_autoptr (GError) error = NULL;

  if (!agents_unix_local_confine_select (
        probe, AGENTS_UNIX_LOCAL_CONFINEMENT_AUTO, argv, &selected, &error))
    return AGENTS_UNIX_LOCAL_CONFINEMENT_NONE;
  return selected;
}

static void
bench_exec (AgentsSandboxClient *client, JsonBuilder *json)
{
  static const char *const bare_argv[] = { "/bin/true", NULL };
  const AgentsUnixLocalProbe *probe = agents_unix_local_confine_probe ();
  g_autoptr (AgentsSandboxSession) none = NULL;
  g_autoptr (AgentsSandboxSession) bwrap = NULL;
  g_autoptr (AgentsSandboxSession) landlock = NULL;
  g_auto (GStrv) bwrap_argv = NULL;
  ExecVariant variants[5];
  guint n = 0;

  none = session_open (client, NULL, "none");
  variants[n++] = (ExecVariant){ "bare_spawn", "bare GSubprocess /bin/true",
                                 exec_bare, (gpointer) bare_argv };
  variants[n++] = (ExecVariant){ "unconfined", "unix_local, confinement none",
                                 exec_session, none };
  /* The default confinement, "auto", picks bwrap whenever it works. */
  if (default_confinement (probe) == AGENTS_UNIX_LOCAL_CONFINEMENT_BWRAP)
    {
      bwrap = session_open (client, NULL, NULL);
      bwrap_argv = bare_bwrap_argv (probe, session_root (bwrap));
      variants[n++] =
        (ExecVariant){ "bare_bwrap", "bare bwrap, the backend's flags",
                       exec_bare_bwrap, bwrap_argv };
      variants[n++] =
        (ExecVariant){ "bwrap", "unix_local, default confinement (bwrap)",
                       exec_session, bwrap };
    }
  else
    printf ("bwrap unusable or not the default, bwrap rows skipped: %s\n",
            probe->bwrap_error ? probe->bwrap_error : "");
  if (probe->landlock_abi > 0)
    {
      landlock = session_open (client, NULL, "landlock");
      variants[n++] =
        (ExecVariant){ "landlock", "unix_local, confinement landlock",
                       exec_session, landlock };
    }

  exec_measure (variants, n);
  exec_report (
    json, variants, n,
    agents_unix_local_confinement_to_string (default_confinement (probe)));
  if (bwrap_argv != NULL)
    printf ("  (bare bwrap argv: %u arguments, from "
            "agents_unix_local_bwrap_argv())\n",
            g_strv_length (bwrap_argv));

  for (guint v = 0; v < n; v++)
    g_free (variants[v].samples);
  session_close (client, none);
  if (bwrap != NULL)
    session_close (client, bwrap);
  if (landlock != NULL)
    session_close (client, landlock);
}

/* ---- child processes ------------------------------------------------- */

typedef struct
{
  double seconds; /* wall time seen by the parent */
  double cpu_s;   /* user + system CPU of the process, from wait4() */
  guint64 out_bytes;
  long maxrss_kb;
  GString *out; /* stdout, when captured */
} ProcRun;

/* Runs @argv with stdout read (and kept if @capture) to the end by this
 * process, then reaps it with wait4() for its peak RSS. */
static void
run_process (const char *const *argv, gboolean capture, ProcRun *run)
{
  g_autofree char *buffer = g_malloc (1 << 16);
  GError *error = NULL;
  struct rusage usage;
  GPid pid;
  int out_fd, status;
  double start = now ();
  gssize n;

  memset (run, 0, sizeof *run);
  if (!g_spawn_async_with_pipes (NULL, (char **) argv, NULL,
                                 G_SPAWN_DO_NOT_REAP_CHILD |
                                   G_SPAWN_SEARCH_PATH,
                                 NULL, NULL, &pid, NULL, &out_fd, NULL, &error))
    check (error, argv[0]);
  run->out = capture ? g_string_new (NULL) : NULL;
  while ((n = read (out_fd, buffer, 1 << 16)) != 0)
    {
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        die ("read from %s: %s", argv[0], g_strerror (errno));
      run->out_bytes += n;
      if (capture)
        g_string_append_len (run->out, buffer, n);
    }
  close (out_fd);
  while (wait4 (pid, &status, 0, &usage) < 0)
    if (errno != EINTR)
      die ("wait4: %s", g_strerror (errno));
  run->seconds = now () - start;
  run->maxrss_kb = usage.ru_maxrss;
  run->cpu_s = usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
               (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    die ("%s %s failed (status %d)", argv[0], argv[1] ? argv[1] : "", status);
}

/* Our phases report one JSON object on stdout. */
static JsonObject *
parse_report (ProcRun *run)
{
  g_autoptr (JsonNode) node = NULL;
  GError *error = NULL;

  node = json_from_string (run->out->str, &error);
  check (error, "read the report of a phase");
  g_string_free (run->out, TRUE);
  run->out = NULL;
  return json_object_ref (json_node_get_object (node));
}

static void
print_report (JsonBuilder *json)
{
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = json_builder_get_root (json);

  json_generator_set_root (gen, root);
  printf ("%s\n", json_generator_to_data (gen, NULL));
  fflush (stdout);
}

/* User + system CPU time of this process (all its threads) so far. */
static double
self_cpu (void)
{
  struct rusage usage;

  getrusage (RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
         (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

static void
report_rss (JsonBuilder *json)
{
  json_builder_set_member_name (json, "vmhwm_kb");
  json_builder_add_int_value (json, proc_status_kb ("VmHWM"));
  json_builder_set_member_name (json, "vmrss_kb");
  json_builder_add_int_value (json, proc_status_kb ("VmRSS"));
}

/* --phase persist: persist the workspace at --root, read the stream to
 * the end (into --out when given). */
static int
phase_persist (AgentsSandboxClient *client)
{
  g_autoptr (AgentsSandboxSession) session =
    session_open (client, opt_root, "none");
  g_autoptr (JsonBuilder) json = json_builder_new ();
  g_autoptr (GInputStream) stream = NULL;
  g_autofree char *buffer = g_malloc (1 << 16);
  long hwm_before = proc_status_kb ("VmHWM");
  Waiter waiter = { NULL };
  GError *error = NULL;
  guint64 bytes = 0;
  int out_fd = -1;
  double start, cpu;
  gssize n;

  if (opt_out != NULL &&
      (out_fd =
         open (opt_out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0)
    die ("create %s: %s", opt_out, g_strerror (errno));

  start = now ();
  cpu = self_cpu ();
  WAIT_FOR (agents_sandbox_session_persist_workspace_async, session);
  stream = agents_sandbox_session_persist_workspace_finish (
    session, waiter.result, &error);
  check (error, "persist_workspace");
  while ((n = g_input_stream_read (stream, buffer, 1 << 16, NULL, &error)) > 0)
    {
      bytes += n;
      if (out_fd >= 0 && write (out_fd, buffer, n) != n)
        die ("write %s: %s", opt_out, g_strerror (errno));
    }
  check (error, "read the persisted workspace");
  g_input_stream_close (stream, NULL, NULL);
  json_builder_begin_object (json);
  json_builder_set_member_name (json, "seconds");
  json_builder_add_double_value (json, now () - start);
  json_builder_set_member_name (json, "cpu_seconds");
  json_builder_add_double_value (json, self_cpu () - cpu);
  json_builder_set_member_name (json, "bytes");
  json_builder_add_int_value (json, bytes);
  json_builder_set_member_name (json, "vmhwm_before_kb");
  json_builder_add_int_value (json, hwm_before);
  report_rss (json);
  json_builder_end_object (json);
  if (out_fd >= 0)
    close (out_fd);
  g_clear_object (&waiter.result);
  /* The root is ours (the caller's): delete keeps it. */
  session_close (client, session);
  print_report (json);
  return 0;
}

static guint64 walk_files, walk_bytes;

static int
walk_cb (const char *path, const struct stat *st, int type, struct FTW *ftw)
{
  if (type == FTW_F && S_ISREG (st->st_mode))
    {
      walk_files++;
      walk_bytes += st->st_size;
    }
  return 0;
}

/* Generous limits when the workspace outgrows the defaults (1 GiB in,
 * 100000 members). */
static void
maybe_raise_limits (AgentsSandboxSession *session)
{
  GStatBuf st;

  if (g_stat (opt_archive, &st) == 0 && st.st_size < (1 << 29))
    return;
  {
    g_autoptr (AgentsArchiveLimits) limits = agents_archive_limits_new_full (
      G_MAXINT64 / 4, G_MAXINT64 / 4, G_MAXINT64 / 4);

    agents_sandbox_session_set_archive_limits (session, limits);
  }
}

/* --phase hydrate: hydrate a fresh session whose root is --root (which
 * the parent removes) from the file --archive. */
static int
phase_hydrate (AgentsSandboxClient *client)
{
  g_autoptr (AgentsSandboxSession) session =
    session_open (client, opt_root, "none");
  g_autoptr (JsonBuilder) json = json_builder_new ();
  g_autoptr (GFile) file = g_file_new_for_path (opt_archive);
  g_autoptr (GInputStream) stream = NULL;
  long hwm_before = proc_status_kb ("VmHWM");
  Waiter waiter = { NULL };
  GError *error = NULL;
  double start, seconds, cpu;

  maybe_raise_limits (session);
  start = now ();
  cpu = self_cpu ();
  stream = G_INPUT_STREAM (g_file_read (file, NULL, &error));
  check (error, "open the archive");
  WAIT_FOR (agents_sandbox_session_hydrate_workspace_async, session, stream);
  agents_sandbox_session_hydrate_workspace_finish (session, waiter.result,
                                                   &error);
  check (error, "hydrate_workspace");
  seconds = now () - start;
  cpu = self_cpu () - cpu;

  json_builder_begin_object (json);
  json_builder_set_member_name (json, "seconds");
  json_builder_add_double_value (json, seconds);
  json_builder_set_member_name (json, "cpu_seconds");
  json_builder_add_double_value (json, cpu);
  json_builder_set_member_name (json, "vmhwm_before_kb");
  json_builder_add_int_value (json, hwm_before);
  report_rss (json);
  if (nftw (session_root (session), walk_cb, 64, FTW_PHYS) != 0)
    die ("walk %s: %s", session_root (session), g_strerror (errno));
  json_builder_set_member_name (json, "files");
  json_builder_add_int_value (json, walk_files);
  json_builder_set_member_name (json, "bytes");
  json_builder_add_int_value (json, walk_bytes);
  json_builder_end_object (json);
  g_clear_object (&waiter.result);
  session_close (client, session);
  print_report (json);
  return 0;
}

/* ---- the archive benchmark ------------------------------------------- */

typedef struct
{
  double *gnu_s; /* per rep; the median is kept */
  double *ours_s;
  double *gnu_cpu_s; /* CPU: GNU tar's process, our phase */
  double *ours_cpu_s;
  long gnu_rss_kb;  /* max over the reps */
  long ours_rss_kb; /* VmHWM, max over the reps */
  long ours_rss_before_kb;
  long ours_maxrss_kb; /* the same seen by wait4, for cross-checking */
  guint64 gnu_stream_bytes;
  guint64 ours_stream_bytes;
} ArchiveStats;

static void
archive_stats_init (ArchiveStats *stats)
{
  memset (stats, 0, sizeof *stats);
  stats->gnu_s = g_new0 (double, opt_reps);
  stats->ours_s = g_new0 (double, opt_reps);
  stats->gnu_cpu_s = g_new0 (double, opt_reps);
  stats->ours_cpu_s = g_new0 (double, opt_reps);
}

static void
note_ours (ArchiveStats *stats, int rep, ProcRun *run, JsonObject *report)
{
  stats->ours_s[rep] = json_object_get_double_member (report, "seconds");
  stats->ours_cpu_s[rep] =
    json_object_get_double_member (report, "cpu_seconds");
  stats->ours_rss_kb =
    MAX (stats->ours_rss_kb, json_object_get_int_member (report, "vmhwm_kb"));
  stats->ours_rss_before_kb =
    MAX (stats->ours_rss_before_kb,
         json_object_get_int_member (report, "vmhwm_before_kb"));
  stats->ours_maxrss_kb = MAX (stats->ours_maxrss_kb, run->maxrss_kb);
}

static void
persist_rep (const char *self_exe, const char *ws, int rep, ArchiveStats *stats)
{
  const char *tar_argv[] = { "tar", "-c", "-f", "-", "-C", ws, ".", NULL };
  const char *ours_argv[] = { self_exe, "--phase=persist", "--root", ws, NULL };
  g_autoptr (JsonObject) report = NULL;
  ProcRun run;

  /* Who goes first alternates between the reps. */
  for (int turn = 0; turn < 2; turn++)
    if ((turn + rep) % 2 == 0)
      {
        run_process (tar_argv, FALSE, &run);
        stats->gnu_s[rep] = run.seconds;
        stats->gnu_cpu_s[rep] = run.cpu_s;
        stats->gnu_rss_kb = MAX (stats->gnu_rss_kb, run.maxrss_kb);
        stats->gnu_stream_bytes = run.out_bytes;
      }
    else
      {
        run_process (ours_argv, TRUE, &run);
        report = parse_report (&run);
        note_ours (stats, rep, &run, report);
        stats->ours_stream_bytes = json_object_get_int_member (report, "bytes");
      }
}

/* Each run extracts into a directory of its own, and nothing is removed
 * before the end: on ext4 without a journal, creating files shortly after
 * many were deleted is much slower (the allocator skips recently deleted
 * inodes), which would penalize whichever side runs after a removal. */
static void
hydrate_rep (const char *self_exe,
             const char *base,
             const char *archive,
             const WorkspaceInfo *info,
             int rep,
             ArchiveStats *stats)
{
  g_autofree char *gnu_name = g_strdup_printf ("gnu-x-%d", rep);
  g_autofree char *ours_name = g_strdup_printf ("ours-x-%d", rep);
  g_autofree char *gnu_dest = g_build_filename (base, gnu_name, NULL);
  g_autofree char *ours_dest = g_build_filename (base, ours_name, NULL);
  const char *tar_argv[] = { "tar", "-x", "-f", archive, "-C", gnu_dest, NULL };
  const char *ours_argv[] = { self_exe, "--phase=hydrate", "--archive", archive,
                              "--root", ours_dest,         NULL };
  g_autoptr (JsonObject) report = NULL;
  ProcRun run;

  g_mkdir (gnu_dest, 0755);
  for (int turn = 0; turn < 2; turn++)
    {
      /* Each run starts without the previous one's dirty pages. */
      sync ();
      if ((turn + rep) % 2 == 0)
        {
          run_process (tar_argv, FALSE, &run);
          stats->gnu_s[rep] = run.seconds;
          stats->gnu_cpu_s[rep] = run.cpu_s;
          stats->gnu_rss_kb = MAX (stats->gnu_rss_kb, run.maxrss_kb);
        }
      else
        {
          run_process (ours_argv, TRUE, &run);
          report = parse_report (&run);
          note_ours (stats, rep, &run, report);
        }
    }
  if ((guint64) json_object_get_int_member (report, "files") != info->files ||
      (guint64) json_object_get_int_member (report, "bytes") != info->bytes)
    die ("hydrate produced %" G_GINT64_FORMAT " files, %" G_GINT64_FORMAT
         " bytes; expected %u files, %" G_GUINT64_FORMAT " bytes",
         json_object_get_int_member (report, "files"),
         json_object_get_int_member (report, "bytes"), info->files,
         info->bytes);
}

static void
add_runs (JsonBuilder *json, const char *name, const double *seconds)
{
  json_builder_set_member_name (json, name);
  json_builder_begin_array (json);
  for (int rep = 0; rep < opt_reps; rep++)
    json_builder_add_double_value (json, seconds[rep]);
  json_builder_end_array (json);
}

static void
archive_report (JsonBuilder *json,
                const char *name,
                const char *gnu_label,
                const char *ours_label,
                const WorkspaceInfo *info,
                ArchiveStats *stats)
{
  double time_ratios[opt_reps], cpu_ratios[opt_reps];
  double gnu, ours, gnu_mbs, ours_mbs, ratio, rss_mb, gnu_cpu, ours_cpu;

  /* Per rep first (median() sorts): the two sides of a rep ran back to
   * back, under about the same load. */
  for (int rep = 0; rep < opt_reps; rep++)
    {
      time_ratios[rep] = stats->ours_s[rep] / stats->gnu_s[rep];
      cpu_ratios[rep] = stats->ours_cpu_s[rep] / stats->gnu_cpu_s[rep];
    }
  gnu = median (stats->gnu_s, opt_reps);
  ours = median (stats->ours_s, opt_reps);
  gnu_cpu = median (stats->gnu_cpu_s, opt_reps);
  ours_cpu = median (stats->ours_cpu_s, opt_reps);
  gnu_mbs = info->bytes / MB / gnu;
  ours_mbs = info->bytes / MB / ours;
  ratio = ours_mbs / gnu_mbs;
  rss_mb = stats->ours_rss_kb / 1024.0;

  printf ("  %-34s %8.3f s %8.1f MB/s %8.1f MiB\n", gnu_label, gnu, gnu_mbs,
          stats->gnu_rss_kb / 1024.0);
  printf ("  %-34s %8.3f s %8.1f MB/s %8.1f MiB   (before the phase: %.1f "
          "MiB)\n",
          ours_label, ours, ours_mbs, rss_mb,
          stats->ours_rss_before_kb / 1024.0);
  printf ("  ratio ours/GNU tar %15s %6.2f   (target >= %.1f)  %s\n", "", ratio,
          TARGET_ARCHIVE_RATIO, verdict (ratio >= TARGET_ARCHIVE_RATIO));
  printf ("  CPU GNU tar / ours %16s %6.3f s / %.3f s\n", "", gnu_cpu,
          ours_cpu);
  printf ("  ours/GNU tar per rep, median: time %.2f, CPU %.2f\n",
          median (time_ratios, opt_reps), median (cpu_ratios, opt_reps));
  printf ("  peak RSS ours %20s %6.1f MiB (target <= %.0f MiB)  %s\n", "",
          rss_mb, TARGET_PEAK_RSS_MB, verdict (rss_mb <= TARGET_PEAK_RSS_MB));

  json_builder_set_member_name (json, name);
  json_builder_begin_object (json);
#define MEMBER(key, type, value)            \
  json_builder_set_member_name (json, key); \
  json_builder_add_##type##_value (json, value)
  MEMBER ("gnu_tar_seconds", double, gnu);
  MEMBER ("gnu_tar_mb_per_s", double, gnu_mbs);
  MEMBER ("gnu_tar_maxrss_kb", int, stats->gnu_rss_kb);
  MEMBER ("ours_seconds", double, ours);
  MEMBER ("ours_mb_per_s", double, ours_mbs);
  MEMBER ("ours_vmhwm_kb", int, stats->ours_rss_kb);
  MEMBER ("ours_vmhwm_before_phase_kb", int, stats->ours_rss_before_kb);
  MEMBER ("ours_wait4_maxrss_kb", int, stats->ours_maxrss_kb);
  MEMBER ("ratio", double, ratio);
  MEMBER ("ratio_target_min", double, TARGET_ARCHIVE_RATIO);
  MEMBER ("ratio_met", boolean, ratio >= TARGET_ARCHIVE_RATIO);
  MEMBER ("rss_target_max_kb", int, (gint64) (TARGET_PEAK_RSS_MB * 1024));
  MEMBER ("rss_met", boolean, rss_mb <= TARGET_PEAK_RSS_MB);
  MEMBER ("gnu_tar_cpu_seconds", double, gnu_cpu);
  MEMBER ("ours_cpu_seconds", double, ours_cpu);
  MEMBER ("time_ratio_median", double, median (time_ratios, opt_reps));
  MEMBER ("cpu_ratio_median", double, median (cpu_ratios, opt_reps));
  add_runs (json, "gnu_tar_runs_s", stats->gnu_s);
  add_runs (json, "ours_runs_s", stats->ours_s);
  add_runs (json, "gnu_tar_cpu_runs_s", stats->gnu_cpu_s);
  add_runs (json, "ours_cpu_runs_s", stats->ours_cpu_s);
  if (stats->gnu_stream_bytes > 0)
    {
      MEMBER ("gnu_tar_archive_bytes", int, stats->gnu_stream_bytes);
      MEMBER ("ours_archive_bytes", int, stats->ours_stream_bytes);
    }
#undef MEMBER
  json_builder_end_object (json);
}

static void
bench_archive (const char *base, JsonBuilder *json)
{
  g_autofree char *self_exe = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *ws = opt_keep_dir ? g_strdup (opt_keep_dir)
                                     : g_build_filename (base, "ws", NULL);
  g_autofree char *archive = g_build_filename (base, "workspace.tar", NULL);
  const char *make_archive[] = { self_exe, "--phase=persist", "--root", ws,
                                 "--out",  archive,           NULL };
  ArchiveStats persist, hydrate;
  WorkspaceInfo info;
  double start = now ();
  ProcRun run;

  if (g_mkdir_with_parents (ws, 0755) < 0)
    die ("mkdir %s: %s", ws, g_strerror (errno));
  info = bench_generate_workspace (ws, opt_files, (guint64) opt_mb * 1000000);
  sync ();
  printf ("\nworkspace: %u files in %u directories, %.1f MB (largest file "
          "%.1f MB), generated in %.1f s\n",
          info.files, info.dirs, info.bytes / MB, info.largest / MB,
          now () - start);

  /* The archive hydrate reads: ours, made once, untimed. */
  run_process (make_archive, TRUE, &run);
  g_string_free (run.out, TRUE);

  archive_stats_init (&persist);
  archive_stats_init (&hydrate);
  for (int rep = 0; rep < opt_reps; rep++)
    {
      persist_rep (self_exe, ws, rep, &persist);
      hydrate_rep (self_exe, base, archive, &info, rep, &hydrate);
    }

  printf ("MB/s = workspace file bytes / wall time; median of %d run(s); "
          "RSS = peak\n",
          opt_reps);
  json_builder_set_member_name (json, "workspace");
  json_builder_begin_object (json);
  json_builder_set_member_name (json, "files");
  json_builder_add_int_value (json, info.files);
  json_builder_set_member_name (json, "dirs");
  json_builder_add_int_value (json, info.dirs);
  json_builder_set_member_name (json, "bytes");
  json_builder_add_int_value (json, info.bytes);
  json_builder_set_member_name (json, "reps");
  json_builder_add_int_value (json, opt_reps);
  json_builder_end_object (json);
  printf ("persist\n");
  archive_report (json, "persist", "GNU tar -c -f - | pipe reader",
                  "persist_workspace + read to end", &info, &persist);
  printf ("hydrate\n");
  archive_report (json, "hydrate", "GNU tar -x -f archive",
                  "hydrate_workspace from a file", &info, &hydrate);
  printf ("  (archive: ours %.1f MB, GNU tar %.1f MB)\n",
          persist.ours_stream_bytes / MB, persist.gnu_stream_bytes / MB);

  g_free (persist.gnu_s);
  g_free (persist.gnu_cpu_s);
  g_free (persist.ours_cpu_s);
  g_free (persist.ours_s);
  g_free (hydrate.gnu_s);
  g_free (hydrate.gnu_cpu_s);
  g_free (hydrate.ours_cpu_s);
  g_free (hydrate.ours_s);
}

/* ---- machine --------------------------------------------------------- */

static char *
cpu_model (void)
{
  g_autofree char *contents = NULL;
  g_auto (GStrv) lines = NULL;

  if (!g_file_get_contents ("/proc/cpuinfo", &contents, NULL, NULL))
    return g_strdup ("unknown");
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], "model name"))
      return g_strdup (g_strstrip (strchr (lines[i], ':') + 1));
  return g_strdup ("unknown");
}

static char *
first_line_of (const char *command)
{
  g_autofree char *out = NULL;

  if (!g_spawn_command_line_sync (command, &out, NULL, NULL, NULL) ||
      out == NULL)
    return g_strdup ("unknown");
  out[strcspn (out, "\n")] = '\0';
  return g_steal_pointer (&out);
}

static char *
load_average (void)
{
  g_autofree char *contents = NULL;
  g_auto (GStrv) fields = NULL;

  if (!g_file_get_contents ("/proc/loadavg", &contents, NULL, NULL))
    return g_strdup ("unknown");
  fields = g_strsplit (contents, " ", 4);
  return g_strjoinv (" ", (char *[]){ fields[0], fields[1], fields[2], NULL });
}

static void
report_machine (JsonBuilder *json)
{
  g_autofree char *cpu = cpu_model ();
  g_autofree char *tar = first_line_of ("tar --version");
  g_autofree char *bwrap = first_line_of ("bwrap --version");
  struct utsname uts;

  uname (&uts);
  printf ("libagents %s unix_local benchmark\n", PACKAGE_VERSION);
  printf ("machine: %u CPUs, %s, %s %s; %s; %s\n", g_get_num_processors (), cpu,
          uts.sysname, uts.release, tar, bwrap);
  json_builder_set_member_name (json, "machine");
  json_builder_begin_object (json);
  json_builder_set_member_name (json, "nproc");
  json_builder_add_int_value (json, g_get_num_processors ());
  json_builder_set_member_name (json, "cpu");
  json_builder_add_string_value (json, cpu);
  json_builder_set_member_name (json, "kernel");
  json_builder_add_string_value (json, uts.release);
  json_builder_set_member_name (json, "tar");
  json_builder_add_string_value (json, tar);
  json_builder_set_member_name (json, "bwrap");
  json_builder_add_string_value (json, bwrap);
  json_builder_end_object (json);
}

/* ---- main ------------------------------------------------------------ */

static char *tmp_base;

static void
remove_tmp_base (void)
{
  GError *error = NULL;

  if (tmp_base == NULL)
    return;
  if (!agents_fs_rm_rf (tmp_base, &error))
    {
      g_printerr ("bench-unix-local: cannot remove %s: %s\n", tmp_base,
                  error->message);
      g_error_free (error);
    }
  g_clear_pointer (&tmp_base, g_free);
}

/* An interrupted run removes its temporary directory too: the handler
 * only forks and execs, which is async-signal-safe. */
static char *rm_argv[5];

static void
on_signal (int signum)
{
  pid_t pid = fork ();

  if (pid == 0)
    {
      execv (rm_argv[0], rm_argv);
      _exit (127);
    }
  if (pid > 0)
    waitpid (pid, NULL, 0);
  signal (signum, SIG_DFL);
  raise (signum);
}

static void
remove_on_signals (const char *path)
{
  static const int signals[] = { SIGINT, SIGTERM, SIGHUP };

  rm_argv[0] = (char *) "/bin/rm";
  rm_argv[1] = (char *) "-rf";
  rm_argv[2] = (char *) "--";
  rm_argv[3] = g_strdup (path);
  for (guint i = 0; i < G_N_ELEMENTS (signals); i++)
    signal (signals[i], on_signal);
}

static int
run_benchmarks (AgentsSandboxClient *client)
{
  g_autoptr (JsonBuilder) json = json_builder_new ();
  g_autofree char *load_before = NULL;
  g_autofree char *load_after = NULL;
  GError *error = NULL;

  tmp_base = g_dir_make_tmp ("agents-bench-XXXXXX", &error);
  check (error, "create a temporary directory");
  atexit (remove_tmp_base);
  remove_on_signals (tmp_base);

  json_builder_begin_object (json);
  json_builder_set_member_name (json, "benchmark");
  json_builder_add_string_value (json, "unix-local");
  json_builder_set_member_name (json, "quick");
  json_builder_add_boolean_value (json, opt_quick);
  report_machine (json);
  load_before = load_average ();
  printf ("load average before: %s\n", load_before);
  if (!opt_skip_exec)
    bench_exec (client, json);
  if (!opt_skip_archive)
    bench_archive (tmp_base, json);
  load_after = load_average ();
  printf ("\nload average after: %s\n", load_after);
  json_builder_set_member_name (json, "load_average");
  json_builder_begin_object (json);
  json_builder_set_member_name (json, "before");
  json_builder_add_string_value (json, load_before);
  json_builder_set_member_name (json, "after");
  json_builder_add_string_value (json, load_after);
  json_builder_end_object (json);
  json_builder_end_object (json);
  printf ("\n");
  print_report (json);
  remove_tmp_base ();
  return 0;
}

static void
make_absolute (char **path)
{
  char *absolute;

  if (*path == NULL)
    return;
  absolute = g_canonicalize_filename (*path, NULL);
  g_free (*path);
  *path = absolute;
}

int
main (int argc, char *argv[])
{
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (AgentsSandboxClient) client = NULL;
  GError *error = NULL;

  /* The backend is linked in; the module must not register it twice. */
  g_setenv ("AGENTS_DISABLE_PLUGINS", "1", TRUE);

  context = g_option_context_new ("- unix_local benchmark");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    die ("%s", error->message);
  apply_defaults ();
  make_absolute (&opt_root);
  make_absolute (&opt_archive);
  make_absolute (&opt_out);
  make_absolute (&opt_keep_dir);

  agents_unix_local_register_types ();
  client = agents_unix_local_client_new ();

  if (g_strcmp0 (opt_phase, "persist") == 0 && opt_root != NULL)
    return phase_persist (client);
  if (g_strcmp0 (opt_phase, "hydrate") == 0 && opt_archive != NULL &&
      opt_root != NULL)
    return phase_hydrate (client);
  if (opt_phase != NULL)
    die ("unknown phase %s", opt_phase);
  setvbuf (stdout, NULL, _IOLBF, 0);
  return run_benchmarks (client);
}
