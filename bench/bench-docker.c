/* bench-docker.c - ratios of the docker backend against the docker CLI
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Measures, in one process, how the docker backend compares with doing
 * the same work through the `docker` command line on the same engine:
 *
 *  - the round trip of exec(["true"]) in a started session, through the
 *    session's exec server and through a plain engine exec, against
 *    `docker exec CONTAINER true` on the same container;
 *  - writing and reading one large file against `docker cp`;
 *  - persist_workspace and hydrate_workspace of a generated workspace
 *    against `docker cp CONTAINER:/workspace -` and
 *    `docker cp - CONTAINER:/workspace`, with the peak RSS of our side.
 *
 * Each of our archive phases runs in a child process (this program
 * re-executed with --phase, resuming the session from its JSON state) so
 * that its VmHWM is its own.
 *
 * Not a test: `meson test` does not run it; see bench/run.sh and
 * docs/performance.md.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
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

#include "agents-docker-client.h"
#include "agents-docker-container.h"
#include "agents-docker-engine.h"
#include "agents-docker-session.h"
#include "agents-sandbox-session-private.h"
#include "agents-fs-private.h"
#include "agents.h"
#include "bench-workspace.h"

#define MB 1000000.0
#define DEFAULT_IMAGE "libagents-test:busybox"

/* Target, from the docker issue ("Performance"): our exec round trip at
 * most 0.75 times the CLI's. The file and archive ratios have none. */
#define TARGET_EXEC_RATIO 0.75

/* ---- options --------------------------------------------------------- */

static gboolean opt_quick;
static char *opt_image;
static int opt_iterations = -1;
static int opt_cli_iterations = -1;
static int opt_warmup = -1;
static int opt_file_mb = -1;
static int opt_files = -1;
static int opt_mb = -1;
static int opt_reps = -1;
static gboolean opt_skip_exec;
static gboolean opt_skip_files;
static gboolean opt_skip_archive;
/* internal: the child phases */
static char *opt_phase;
static char *opt_state;
static char *opt_archive;

static GOptionEntry entries[] = {
  { "quick", 'q', 0, G_OPTION_ARG_NONE, &opt_quick,
    "Small sizes and few iterations (smoke test)", NULL },
  { "image", 0, 0, G_OPTION_ARG_STRING, &opt_image,
    "Image of the containers (" DEFAULT_IMAGE ")", "IMAGE" },
  { "iterations", 'n', 0, G_OPTION_ARG_INT, &opt_iterations,
    "Timed exec calls per variant of ours (200; quick: 30)", "N" },
  { "cli-iterations", 0, 0, G_OPTION_ARG_INT, &opt_cli_iterations,
    "Timed `docker exec` calls (50; quick: 10)", "N" },
  { "warmup", 0, 0, G_OPTION_ARG_INT, &opt_warmup,
    "Untimed exec calls per variant first (10; quick: 3)", "N" },
  { "file-mb", 0, 0, G_OPTION_ARG_INT, &opt_file_mb,
    "Size of the file written and read, in MB of 10^6 bytes (200; quick: "
    "20)",
    "N" },
  { "files", 0, 0, G_OPTION_ARG_INT, &opt_files,
    "Number of files in the workspace (20000; quick: 2000)", "N" },
  { "mb", 0, 0, G_OPTION_ARG_INT, &opt_mb,
    "Workspace size in MB of 10^6 bytes (300; quick: 30)", "N" },
  { "reps", 0, 0, G_OPTION_ARG_INT, &opt_reps,
    "Runs of each file and archive phase; the median is kept (3; quick: 1)",
    "N" },
  { "skip-exec", 0, 0, G_OPTION_ARG_NONE, &opt_skip_exec,
    "Do not run the exec benchmark", NULL },
  { "skip-files", 0, 0, G_OPTION_ARG_NONE, &opt_skip_files,
    "Do not run the file write/read benchmark", NULL },
  { "skip-archive", 0, 0, G_OPTION_ARG_NONE, &opt_skip_archive,
    "Do not run the persist/hydrate benchmark", NULL },
  { "phase", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, &opt_phase, NULL,
    NULL },
  { "state", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME, &opt_state, NULL,
    NULL },
  { "archive", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_FILENAME, &opt_archive,
    NULL, NULL },
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
  set_default (&opt_iterations, 200, 30);
  set_default (&opt_cli_iterations, 50, 10);
  set_default (&opt_warmup, 10, 3);
  set_default (&opt_file_mb, 200, 20);
  set_default (&opt_files, 20000, 2000);
  set_default (&opt_mb, 300, 30);
  set_default (&opt_reps, 3, 1);
  opt_iterations = MAX (opt_iterations, 1);
  opt_cli_iterations = MAX (opt_cli_iterations, 1);
  opt_file_mb = MAX (opt_file_mb, 1);
  opt_files = MAX (opt_files, 1);
  opt_reps = MAX (opt_reps, 1);
  if (opt_image == NULL)
    opt_image = g_strdup (DEFAULT_IMAGE);
}

/* ---- small helpers --------------------------------------------------- */

static void die (const char *format, ...) G_GNUC_NORETURN G_GNUC_PRINTF (1, 2);

static void
die (const char *format, ...)
{
  va_list ap;

  va_start (ap, format);
  fputs ("bench-docker: ", stderr);
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
median (const double *values, guint n)
{
  g_autofree double *copy = g_memdup2 (values, n * sizeof (double));

  qsort (copy, n, sizeof (double), compare_doubles);
  if (n % 2 == 1)
    return copy[n / 2];
  return (copy[n / 2 - 1] + copy[n / 2]) / 2;
}

static double
timeval_seconds (const struct timeval *tv)
{
  return tv->tv_sec + tv->tv_usec / 1e6;
}

/* User + system CPU time of this process so far, all threads. */
static double
cpu_seconds (void)
{
  struct rusage usage;

  getrusage (RUSAGE_SELF, &usage);
  return timeval_seconds (&usage.ru_utime) + timeval_seconds (&usage.ru_stime);
}

/* The local dockerd, whose CPU time the file and archive phases report;
 * 0 when the engine is not the local default one. */
static int engine_pid;

static void
find_engine_pid (AgentsDockerEngine *engine)
{
  g_autofree char *pid = NULL;
  g_autofree char *comm_path = NULL;
  g_autofree char *comm = NULL;

  if (!g_str_equal (agents_docker_engine_get_endpoint (engine),
                    "unix:///var/run/docker.sock") ||
      !g_file_get_contents ("/var/run/docker.pid", &pid, NULL, NULL))
    return;
  comm_path = g_strdup_printf ("/proc/%d/comm", atoi (pid));
  if (g_file_get_contents (comm_path, &comm, NULL, NULL) &&
      g_str_equal (g_strstrip (comm), "dockerd"))
    engine_pid = atoi (pid);
}

/* User + system CPU time of dockerd and of its children it reaped (the
 * untar processes), or 0 when unknown. */
static double
engine_cpu_seconds (void)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", engine_pid);
  g_autofree char *contents = NULL;
  g_auto (GStrv) fields = NULL;
  const char *end;
  double ticks = 0;

  if (engine_pid <= 0 || !g_file_get_contents (path, &contents, NULL, NULL) ||
      (end = strrchr (contents, ')')) == NULL)
    return 0;
  /* After the command: state, then fields 4 to 13; 14 to 17 are utime,
   * stime, cutime and cstime. */
  fields = g_strsplit (end + 2, " ", 20);
  if (g_strv_length (fields) < 16)
    return 0;
  for (guint i = 11; i <= 14; i++)
    ticks += g_ascii_strtod (fields[i], NULL);
  return ticks / sysconf (_SC_CLK_TCK);
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

static void
json_member_double (JsonBuilder *json, const char *name, double value)
{
  json_builder_set_member_name (json, name);
  json_builder_add_double_value (json, value);
}

static void
json_member_int (JsonBuilder *json, const char *name, gint64 value)
{
  json_builder_set_member_name (json, name);
  json_builder_add_int_value (json, value);
}

static void
json_member_string (JsonBuilder *json, const char *name, const char *value)
{
  json_builder_set_member_name (json, name);
  json_builder_add_string_value (json, value);
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

/* ---- containers left behind ------------------------------------------ */

/* The containers of the sessions this process created and has not
 * deleted yet. At exit (also after die()) they are removed through the
 * engine; on SIGINT/SIGTERM/SIGHUP with `docker rm -f -v`, from a fixed
 * array the signal handler can read. */
#define MAX_TRACKED 64

static char *tracked[MAX_TRACKED];
static char *tmp_base;

static void
track_container (const char *id)
{
  for (guint i = 0; i < MAX_TRACKED; i++)
    if (tracked[i] == NULL)
      {
        tracked[i] = g_strdup (id);
        return;
      }
}

static void
untrack_container (const char *id)
{
  for (guint i = 0; i < MAX_TRACKED; i++)
    if (g_strcmp0 (tracked[i], id) == 0)
      {
        char *old = tracked[i];

        tracked[i] = NULL;
        g_free (old);
        return;
      }
}

static void
remove_tracked_containers (void)
{
  g_autoptr (AgentsDockerEngine) engine = agents_docker_engine_new (NULL, NULL);

  for (guint i = 0; i < MAX_TRACKED; i++)
    if (tracked[i] != NULL && engine != NULL)
      {
        g_autofree char *path =
          g_strdup_printf ("/containers/%s?force=true&v=true", tracked[i]);
        g_autoptr (JsonNode) answer = agents_docker_engine_call_json (
          engine, "DELETE", path, NULL, NULL, NULL, NULL);

        g_printerr ("bench-docker: removed container %.12s left behind\n",
                    tracked[i]);
        g_clear_pointer (&tracked[i], g_free);
      }
}

static void
remove_tmp_base (void)
{
  GError *error = NULL;

  if (tmp_base == NULL)
    return;
  if (!agents_fs_rm_rf (tmp_base, &error))
    {
      g_printerr ("bench-docker: cannot remove %s: %s\n", tmp_base,
                  error->message);
      g_error_free (error);
    }
  g_clear_pointer (&tmp_base, g_free);
}

static void
at_exit (void)
{
  remove_tracked_containers ();
  remove_tmp_base ();
}

/* The handler only forks, builds argv on the child's stack and execs,
 * which is async-signal-safe. */
static char *rm_dir_argv[5];
static char *docker_path;

static void
run_and_wait (char **argv)
{
  pid_t pid = fork ();

  if (pid == 0)
    {
      execv (argv[0], argv);
      _exit (127);
    }
  if (pid > 0)
    waitpid (pid, NULL, 0);
}

static void
on_signal (int signum)
{
  char *argv[MAX_TRACKED + 5];
  guint n = 0;

  argv[n++] = docker_path;
  argv[n++] = (char *) "rm";
  argv[n++] = (char *) "-f";
  argv[n++] = (char *) "-v";
  for (guint i = 0; i < MAX_TRACKED; i++)
    if (tracked[i] != NULL)
      argv[n++] = tracked[i];
  argv[n] = NULL;
  if (n > 4)
    run_and_wait (argv);
  run_and_wait (rm_dir_argv);
  signal (signum, SIG_DFL);
  raise (signum);
}

static void
clean_up_on_signals (const char *path)
{
  static const int signals[] = { SIGINT, SIGTERM, SIGHUP };

  rm_dir_argv[0] = (char *) "/bin/rm";
  rm_dir_argv[1] = (char *) "-rf";
  rm_dir_argv[2] = (char *) "--";
  rm_dir_argv[3] = g_strdup (path);
  for (guint i = 0; i < G_N_ELEMENTS (signals); i++)
    signal (signals[i], on_signal);
}

/* ---- sessions -------------------------------------------------------- */

static GVariant *
session_options (void)
{
  return g_variant_ref_sink (
    g_variant_new_parsed ("{'image': <%s>}", opt_image));
}

static const char *
session_container (AgentsSandboxSession *session)
{
  return agents_docker_session_state_get_container_id (
    AGENTS_DOCKER_SESSION_STATE (agents_sandbox_session_peek_state (session)));
}

/* Creates and starts a session with a fresh container. */
static AgentsSandboxSession *
session_open (AgentsSandboxClient *client)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (GVariant) options = session_options ();
  g_autoptr (AgentsSandboxSession) session = NULL;
  Waiter waiter = { NULL };
  GError *error = NULL;

  WAIT_FOR (agents_sandbox_client_create_async, client, manifest, options,
            NULL);
  session = agents_sandbox_client_create_finish (client, waiter.result, &error);
  check (error, "create a docker session");
  track_container (session_container (session));
  WAIT_FOR (agents_sandbox_session_start_async, session);
  agents_sandbox_session_start_finish (session, waiter.result, &error);
  check (error, "start a docker session");
  g_clear_object (&waiter.result);
  return g_steal_pointer (&session);
}

/* Deletes the session: its container is removed. */
static void
session_delete (AgentsSandboxClient *client, AgentsSandboxSession *session)
{
  g_autofree char *id = g_strdup (session_container (session));
  Waiter waiter = { NULL };
  GError *error = NULL;

  WAIT_FOR (agents_sandbox_client_delete_async, client, session);
  agents_sandbox_client_delete_finish (client, waiter.result, &error);
  check (error, "delete a docker session");
  g_clear_object (&waiter.result);
  untrack_container (id);
}

/* Another session object on the same container (a resume of a copy of
 * the state). It must not be deleted: that would remove the container. */
static AgentsSandboxSession *
session_twin (AgentsSandboxClient *client, AgentsSandboxSession *session)
{
  g_autoptr (JsonNode) json = agents_sandbox_client_serialize_session_state (
    client, agents_sandbox_session_peek_state (session));
  g_autoptr (AgentsSandboxSessionState) state = NULL;
  AgentsSandboxSession *twin;
  Waiter waiter = { NULL };
  GError *error = NULL;

  state =
    agents_sandbox_client_deserialize_session_state (client, json, &error);
  check (error, "copy a session state");
  WAIT_FOR (agents_sandbox_client_resume_async, client, state);
  twin = agents_sandbox_client_resume_finish (client, waiter.result, &error);
  check (error, "resume a docker session");
  g_clear_object (&waiter.result);
  if (g_strcmp0 (session_container (twin), session_container (session)) != 0)
    die ("the resumed session got another container");
  return twin;
}

static void
save_state (AgentsSandboxClient *client,
            AgentsSandboxSession *session,
            const char *path)
{
  g_autoptr (JsonNode) json = agents_sandbox_client_serialize_session_state (
    client, agents_sandbox_session_peek_state (session));
  g_autofree char *text = json_to_string (json, FALSE);
  GError *error = NULL;

  g_file_set_contents (path, text, -1, &error);
  check (error, "save a session state");
}

/* The session of --state, resumed on its container (a child phase). */
static AgentsSandboxSession *
session_load (AgentsSandboxClient *client, const char *path)
{
  g_autofree char *text = NULL;
  g_autoptr (JsonNode) json = NULL;
  g_autoptr (AgentsSandboxSessionState) state = NULL;
  AgentsSandboxSession *session;
  Waiter waiter = { NULL };
  GError *error = NULL;

  g_file_get_contents (path, &text, NULL, &error);
  check (error, "read the session state");
  json = json_from_string (text, &error);
  check (error, "parse the session state");
  state =
    agents_sandbox_client_deserialize_session_state (client, json, &error);
  check (error, "load the session state");
  WAIT_FOR (agents_sandbox_client_resume_async, client, state);
  session = agents_sandbox_client_resume_finish (client, waiter.result, &error);
  check (error, "resume the session");
  g_clear_object (&waiter.result);
  return session;
}

static AgentsExecResult *
session_exec (AgentsSandboxSession *session,
              const char *const *argv,
              GError **error)
{
  AgentsExecResult *result;
  Waiter waiter = { NULL };

  WAIT_FOR (agents_sandbox_session_exec_raw_async, session, argv, 0);
  result =
    agents_sandbox_session_exec_raw_finish (session, waiter.result, error);
  g_clear_object (&waiter.result);
  return result;
}

/* The stdout of a command that must succeed, stripped. */
static char *
session_output (AgentsSandboxSession *session, const char *script)
{
  const char *argv[] = { "sh", "-c", script, NULL };
  g_autoptr (AgentsExecResult) result = NULL;
  GError *error = NULL;
  GBytes *out;

  result = session_exec (session, argv, &error);
  check (error, script);
  if (agents_exec_result_get_exit_code (result) != 0)
    die ("`%s` exited with %d", script,
         agents_exec_result_get_exit_code (result));
  out = agents_exec_result_get_stdout (result);
  return g_strstrip (
    g_strndup (g_bytes_get_data (out, NULL), g_bytes_get_size (out)));
}

/* ---- child processes ------------------------------------------------- */

typedef enum
{
  OUT_NULL,  /* stdout to /dev/null */
  OUT_COUNT, /* read and counted here */
  OUT_KEEP,  /* read and kept */
} OutMode;

typedef struct
{
  double seconds; /* wall time seen by the parent */
  double cpu_s;   /* user + system, from wait4() */
  guint64 out_bytes;
  long maxrss_kb;
  GString *out; /* stdout, with OUT_KEEP */
} ProcRun;

static int
open_or_die (const char *path, int flags)
{
  int fd = open (path, flags | O_CLOEXEC, 0600);

  if (fd < 0)
    die ("open %s: %s", path, g_strerror (errno));
  return fd;
}

/* An unlinked file for a child's stderr. */
static int
stderr_file (void)
{
  g_autofree char *name = NULL;
  GError *error = NULL;
  int fd = g_file_open_tmp ("bench-docker-err-XXXXXX", &name, &error);

  check (error, "create a temporary file");
  g_unlink (name);
  return fd;
}

static char *
read_back (int fd)
{
  char buffer[2048];
  gssize n = pread (fd, buffer, sizeof buffer - 1, 0);

  buffer[MAX (n, 0)] = '\0';
  return g_strdup (g_strstrip (buffer));
}

/* Runs @argv with @stdin_fd (or /dev/null when -1) as its stdin, and
 * reaps it with wait4() for its peak RSS. Timed from spawn to reap. */
static void
run_process (const char *const *argv, int stdin_fd, OutMode mode, ProcRun *run)
{
  g_autofree char *buffer = g_malloc (1 << 16);
  int null_fd = mode == OUT_NULL ? open_or_die ("/dev/null", O_WRONLY) : -1;
  int err_fd = stderr_file ();
  GError *error = NULL;
  struct rusage usage;
  int out_fd = -1, status;
  GPid pid;
  double start = now ();
  gssize n;

  memset (run, 0, sizeof *run);
  if (!g_spawn_async_with_pipes_and_fds (
        NULL, argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_SEARCH_PATH, NULL,
        NULL, stdin_fd, null_fd, err_fd, NULL, NULL, 0, &pid, NULL,
        mode == OUT_NULL ? NULL : &out_fd, NULL, &error))
    check (error, argv[0]);
  run->out = mode == OUT_KEEP ? g_string_new (NULL) : NULL;
  while (out_fd >= 0 && (n = read (out_fd, buffer, 1 << 16)) != 0)
    {
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        die ("read from %s: %s", argv[0], g_strerror (errno));
      run->out_bytes += n;
      if (run->out != NULL)
        g_string_append_len (run->out, buffer, n);
    }
  while (wait4 (pid, &status, 0, &usage) < 0)
    if (errno != EINTR)
      die ("wait4: %s", g_strerror (errno));
  run->seconds = now () - start;
  run->maxrss_kb = usage.ru_maxrss;
  run->cpu_s =
    timeval_seconds (&usage.ru_utime) + timeval_seconds (&usage.ru_stime);
  if (out_fd >= 0)
    close (out_fd);
  if (null_fd >= 0)
    close (null_fd);
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    {
      g_autofree char *message = read_back (err_fd);

      die ("%s %s %s failed (status %d): %s", argv[0], argv[1],
           argv[2] ? argv[2] : "", status, message);
    }
  close (err_fd);
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
report_rss (JsonBuilder *json, long hwm_before, double cpu_before)
{
  json_member_double (json, "cpu_seconds", cpu_seconds () - cpu_before);
  json_member_int (json, "vmhwm_before_kb", hwm_before);
  json_member_int (json, "vmhwm_kb", proc_status_kb ("VmHWM"));
  json_member_int (json, "vmrss_kb", proc_status_kb ("VmRSS"));
}

/* --phase persist: persist the workspace of the session in --state and
 * read the stream to the end, throwing it away. */
static int
phase_persist (AgentsSandboxClient *client)
{
  g_autoptr (AgentsSandboxSession) session = session_load (client, opt_state);
  g_autoptr (JsonBuilder) json = json_builder_new ();
  g_autoptr (GInputStream) stream = NULL;
  g_autofree char *buffer = g_malloc (1 << 16);
  long hwm_before = proc_status_kb ("VmHWM");
  double cpu_before = cpu_seconds ();
  Waiter waiter = { NULL };
  GError *error = NULL;
  guint64 bytes = 0;
  double start;
  gssize n;

  start = now ();
  WAIT_FOR (agents_sandbox_session_persist_workspace_async, session);
  stream = agents_sandbox_session_persist_workspace_finish (
    session, waiter.result, &error);
  check (error, "persist_workspace");
  while ((n = g_input_stream_read (stream, buffer, 1 << 16, NULL, &error)) > 0)
    bytes += n;
  check (error, "read the persisted workspace");
  g_input_stream_close (stream, NULL, &error);
  check (error, "close the persisted workspace");
  json_builder_begin_object (json);
  json_member_double (json, "seconds", now () - start);
  json_member_int (json, "bytes", bytes);
  report_rss (json, hwm_before, cpu_before);
  json_builder_end_object (json);
  g_clear_object (&waiter.result);
  /* The container is the parent's: the session is dropped, not deleted. */
  print_report (json);
  return 0;
}

/* Generous limits when the workspace outgrows the defaults (1 GiB in,
 * 100000 members). */
static void
maybe_raise_limits (AgentsSandboxSession *session, const char *archive)
{
  GStatBuf st;

  if (g_stat (archive, &st) == 0 && st.st_size < (1 << 29))
    return;
  {
    g_autoptr (AgentsArchiveLimits) limits = agents_archive_limits_new_full (
      G_MAXINT64 / 4, G_MAXINT64 / 4, G_MAXINT64 / 4);

    agents_sandbox_session_set_archive_limits (session, limits);
  }
}

static void
hydrate_file (AgentsSandboxSession *session, const char *archive)
{
  g_autoptr (GFile) file = g_file_new_for_path (archive);
  g_autoptr (GInputStream) stream = NULL;
  Waiter waiter = { NULL };
  GError *error = NULL;

  maybe_raise_limits (session, archive);
  stream = G_INPUT_STREAM (g_file_read (file, NULL, &error));
  check (error, "open the archive");
  WAIT_FOR (agents_sandbox_session_hydrate_workspace_async, session, stream);
  agents_sandbox_session_hydrate_workspace_finish (session, waiter.result,
                                                   &error);
  check (error, "hydrate_workspace");
  g_clear_object (&waiter.result);
}

/* --phase hydrate: hydrate the (empty) workspace of the session in
 * --state from the file --archive. */
static int
phase_hydrate (AgentsSandboxClient *client)
{
  g_autoptr (AgentsSandboxSession) session = session_load (client, opt_state);
  g_autoptr (JsonBuilder) json = json_builder_new ();
  long hwm_before = proc_status_kb ("VmHWM");
  double cpu_before = cpu_seconds ();
  double start;

  start = now ();
  hydrate_file (session, opt_archive);
  json_builder_begin_object (json);
  json_member_double (json, "seconds", now () - start);
  report_rss (json, hwm_before, cpu_before);
  json_builder_end_object (json);
  print_report (json);
  return 0;
}

/* ---- exec ------------------------------------------------------------ */

typedef gboolean (*ExecFunc) (gpointer data, GError **error);

typedef struct
{
  const char *key;   /* in the JSON */
  const char *label; /* in the table */
  ExecFunc func;
  gpointer data;
  int n;
  double *samples;
  double median;
  double p90;
} ExecVariant;

static gboolean
exit_ok (AgentsExecResult *result, GError **error)
{
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

static const char *const true_argv[] = { "true", NULL };

/* Ours, through the public API: the exec server when it is free. */
static gboolean
exec_session (gpointer data, GError **error)
{
  g_autoptr (AgentsExecResult) result = session_exec (data, true_argv, error);

  return exit_ok (result, error);
}

/* Ours, the plain engine exec (create, start and attach, inspect),
 * called directly on this thread, without the session layer. */
static gboolean
exec_plain (gpointer data, GError **error)
{
  g_autoptr (AgentsExecResult) result = agents_docker_container_exec (
    data, NULL, true_argv, NULL, 1 << 20, NULL, error);

  return exit_ok (result, error);
}

/* The baseline: spawn the CLI, capture stdout and stderr, wait. */
static gboolean
exec_cli (gpointer data, GError **error)
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

static void
exec_call (ExecVariant *variant, double *sample)
{
  GError *error = NULL;
  double start = now ();

  if (!variant->func (variant->data, &error))
    check (error, variant->label);
  if (sample != NULL)
    *sample = now () - start;
}

/* Rounds as many as the variant with the fewest calls has; in each,
 * every variant makes its share, in an order that rotates, so that drift
 * of the machine hits every variant alike. */
static void
exec_measure (ExecVariant *variants, guint n_variants)
{
  int rounds = G_MAXINT;

  for (guint v = 0; v < n_variants; v++)
    {
      variants[v].samples = g_new0 (double, variants[v].n);
      rounds = MIN (rounds, variants[v].n);
      for (int i = 0; i < opt_warmup; i++)
        exec_call (&variants[v], NULL);
    }
  for (int r = 0; r < rounds; r++)
    for (guint k = 0; k < n_variants; k++)
      {
        ExecVariant *variant = &variants[(r + k) % n_variants];
        int from = (gint64) r * variant->n / rounds;
        int to = (gint64) (r + 1) * variant->n / rounds;

        for (int i = from; i < to; i++)
          exec_call (variant, &variant->samples[i]);
      }
  for (guint v = 0; v < n_variants; v++)
    {
      variants[v].p90 = percentile (variants[v].samples, variants[v].n, 0.9);
      variants[v].median = median (variants[v].samples, variants[v].n);
    }
}

static const char *
verdict (gboolean ok)
{
  return ok ? "ok" : "MISSED";
}

static void
exec_ratio (JsonBuilder *json,
            const char *name,
            const ExecVariant *a,
            const ExecVariant *b)
{
  double ratio = a->median / b->median;

  printf ("  ratio %-28s %6.2f   (median %s / %s; target <= %.2f)  %s\n", name,
          ratio, a->key, b->key, TARGET_EXEC_RATIO,
          verdict (ratio <= TARGET_EXEC_RATIO));
  json_builder_set_member_name (json, name);
  json_builder_begin_object (json);
  json_member_double (json, "value", ratio);
  json_member_double (json, "p90_ratio", a->p90 / b->p90);
  json_member_double (json, "target_max", TARGET_EXEC_RATIO);
  json_builder_set_member_name (json, "met");
  json_builder_add_boolean_value (json, ratio <= TARGET_EXEC_RATIO);
  json_builder_end_object (json);
}

static void
exec_report (JsonBuilder *json, ExecVariant *variants, guint n_variants)
{
  printf ("\nexec round trip of `true` (argv [\"true\"], no shell), "
          "%d warm-up calls each, interleaved in %d rounds\n",
          opt_warmup, opt_cli_iterations);
  printf ("  %-52s %6s %10s %10s\n", "", "calls", "median", "p90");
  json_builder_set_member_name (json, "exec");
  json_builder_begin_object (json);
  for (guint v = 0; v < n_variants; v++)
    {
      printf ("  %-52s %6d %7.3f ms %7.3f ms\n", variants[v].label,
              variants[v].n, variants[v].median * 1e3, variants[v].p90 * 1e3);
      json_builder_set_member_name (json, variants[v].key);
      json_builder_begin_object (json);
      json_member_int (json, "calls", variants[v].n);
      json_member_double (json, "median_ms", variants[v].median * 1e3);
      json_member_double (json, "p90_ms", variants[v].p90 * 1e3);
      json_builder_end_object (json);
    }
  exec_ratio (json, "server_vs_cli", &variants[0], &variants[3]);
  exec_ratio (json, "plain_session_vs_cli", &variants[1], &variants[3]);
  exec_ratio (json, "plain_direct_vs_cli", &variants[2], &variants[3]);
  json_builder_end_object (json);
}

/* Whether commands of @session run in the exec server: there, `sh` is a
 * child of the server's shell; a plain exec's parent is outside the
 * container's pid namespace, so its $PPID is 0. */
static gboolean
runs_in_server (AgentsSandboxSession *session)
{
  g_autofree char *ppid = session_output (session, "echo $PPID");

  return !g_str_equal (ppid, "0");
}

/* Commands that keep exec servers busy until they are cancelled. */
typedef struct
{
  GCancellable *cancel;
  guint running;
} Busy;

#define MAX_BUSY 16

static void
busy_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Busy *busy = user_data;
  g_autoptr (AgentsExecResult) exec_result = NULL;
  g_autoptr (GError) error = NULL;

  exec_result = agents_sandbox_session_exec_raw_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_printerr ("bench-docker: a busy command ended early: %s\n",
                error ? error->message : "no error");
  busy->running--;
}

static void
spin_for (double seconds)
{
  double end = now () + seconds;

  while (now () < end)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (10000);
    }
}

/* Starts `sleep`s in @twin, one at a time, until its commands no longer
 * find a free exec server and take a plain engine exec; returns how many
 * it took (the size of the session's server pool). */
static guint
occupy_servers (AgentsSandboxSession *twin, Busy *busy)
{
  static const char *const sleep_argv[] = { "sleep", "3600", NULL };
  guint started = 0;

  while (runs_in_server (twin))
    {
      if (started == MAX_BUSY)
        die ("%u busy commands and the exec servers are still free", started);
      busy->running++;
      started++;
      agents_sandbox_session_exec_raw_async (twin, sleep_argv, 0, busy->cancel,
                                             busy_done, busy);
      spin_for (1.0);
    }
  return started;
}

static void
release_servers (Busy *busy)
{
  g_cancellable_cancel (busy->cancel);
  while (busy->running > 0)
    g_main_context_iteration (NULL, TRUE);
  g_clear_object (&busy->cancel);
}

static void
bench_exec (AgentsSandboxClient *client, JsonBuilder *json)
{
  g_autoptr (AgentsSandboxSession) session = session_open (client);
  g_autoptr (AgentsSandboxSession) twin = NULL;
  g_autoptr (AgentsDockerContainer) container = NULL;
  const char *cli_argv[] = { docker_path, "exec", session_container (session),
                             "true", NULL };
  Busy busy = { g_cancellable_new (), 0 };
  ExecVariant variants[4];
  guint servers;

  /* The twin's exec servers are all kept busy, so that its commands take
   * the plain engine exec through the whole session path. */
  twin = session_twin (client, session);
  servers = occupy_servers (twin, &busy);
  if (!runs_in_server (session))
    die ("the session's commands do not run in an exec server");
  container = agents_docker_container_new (
    agents_docker_session_get_engine (AGENTS_DOCKER_SESSION (session)),
    session_container (session));

  variants[0] = (ExecVariant){ "server", "ours: exec_raw (exec server)",
                               exec_session, session, opt_iterations };
  variants[1] =
    (ExecVariant){ "plain_session", "ours: exec_raw, servers busy (plain exec)",
                   exec_session, twin, opt_iterations };
  variants[2] = (ExecVariant){ "plain_direct",
                               "ours: agents_docker_container_exec, no server",
                               exec_plain, container, opt_iterations };
  variants[3] = (ExecVariant){ "cli", "docker exec CONTAINER true (CLI)",
                               exec_cli, cli_argv, opt_cli_iterations };
  exec_measure (variants, G_N_ELEMENTS (variants));
  if (!runs_in_server (session) || runs_in_server (twin))
    die ("the exec variants changed paths during the measurement");
  exec_report (json, variants, G_N_ELEMENTS (variants));
  printf ("  (plain_session: the %u exec servers of a second session on the "
          "same container were kept busy with `sleep`)\n",
          servers);
  json_member_int (json, "busy_exec_servers", servers);

  release_servers (&busy);
  for (guint v = 0; v < G_N_ELEMENTS (variants); v++)
    g_free (variants[v].samples);
  g_clear_object (&twin);
  session_delete (client, session);
}

/* ---- reporting the file and archive phases --------------------------- */

typedef struct
{
  double *cli_s; /* per rep; the median is kept */
  double *ours_s;
  double *cli_cpu_s; /* CPU time, user + system, per rep */
  double *ours_cpu_s;
  double *cli_engine_s; /* CPU time of dockerd meanwhile, per rep */
  double *ours_engine_s;
  long cli_rss_kb;  /* max over the reps, from wait4() */
  long ours_rss_kb; /* VmHWM of our child, max over the reps */
  long ours_rss_before_kb;
  long ours_maxrss_kb; /* the same seen by wait4, for cross-checking */
} Stats;

static void
stats_init (Stats *stats)
{
  memset (stats, 0, sizeof *stats);
  stats->cli_s = g_new0 (double, opt_reps);
  stats->ours_s = g_new0 (double, opt_reps);
  stats->cli_cpu_s = g_new0 (double, opt_reps);
  stats->ours_cpu_s = g_new0 (double, opt_reps);
  stats->cli_engine_s = g_new0 (double, opt_reps);
  stats->ours_engine_s = g_new0 (double, opt_reps);
}

static void
stats_clear (Stats *stats)
{
  g_free (stats->cli_s);
  g_free (stats->ours_s);
  g_free (stats->cli_cpu_s);
  g_free (stats->ours_cpu_s);
  g_free (stats->cli_engine_s);
  g_free (stats->ours_engine_s);
}

static void
note_cli (Stats *stats, int rep, const ProcRun *run)
{
  stats->cli_s[rep] = run->seconds;
  stats->cli_cpu_s[rep] = run->cpu_s;
  stats->cli_rss_kb = MAX (stats->cli_rss_kb, run->maxrss_kb);
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

/* Prints and records one phase: MB/s from @bytes, ratio of times. */
static void
phase_report (JsonBuilder *json,
              const char *name,
              const char *cli_label,
              const char *ours_label,
              guint64 bytes,
              const Stats *stats)
{
  double cli = median (stats->cli_s, opt_reps);
  double ours = median (stats->ours_s, opt_reps);
  double cli_cpu = median (stats->cli_cpu_s, opt_reps);
  double ours_cpu = median (stats->ours_cpu_s, opt_reps);
  double cli_engine = median (stats->cli_engine_s, opt_reps);
  double ours_engine = median (stats->ours_engine_s, opt_reps);
  double ratio = ours / cli;

  printf ("  %-44s %7.3f s %6.1f MB/s  CPU %6.3f s  dockerd %6.3f s  "
          "peak RSS %5.1f MiB",
          cli_label, cli, bytes / MB / cli, cli_cpu, cli_engine,
          stats->cli_rss_kb / 1024.0);
  printf ("\n  %-44s %7.3f s %6.1f MB/s  CPU %6.3f s  dockerd %6.3f s",
          ours_label, ours, bytes / MB / ours, ours_cpu, ours_engine);
  if (stats->ours_rss_kb > 0)
    printf ("  peak RSS %5.1f MiB (%.1f before the phase)",
            stats->ours_rss_kb / 1024.0, stats->ours_rss_before_kb / 1024.0);
  printf ("\n  ratio ours/CLI time %27s %6.2f   (no target; < 1: ours "
          "faster)\n",
          "", ratio);

  json_builder_set_member_name (json, name);
  json_builder_begin_object (json);
  json_member_double (json, "cli_seconds", cli);
  json_member_double (json, "cli_mb_per_s", bytes / MB / cli);
  json_member_double (json, "ours_seconds", ours);
  json_member_double (json, "ours_mb_per_s", bytes / MB / ours);
  json_member_double (json, "ratio_time", ratio);
  json_member_double (json, "cli_cpu_seconds", cli_cpu);
  json_member_double (json, "ours_cpu_seconds", ours_cpu);
  if (engine_pid > 0)
    {
      json_member_double (json, "cli_dockerd_cpu_seconds", cli_engine);
      json_member_double (json, "ours_dockerd_cpu_seconds", ours_engine);
    }
  add_runs (json, "cli_runs_s", stats->cli_s);
  add_runs (json, "ours_runs_s", stats->ours_s);
  if (stats->cli_rss_kb > 0)
    json_member_int (json, "cli_maxrss_kb", stats->cli_rss_kb);
  if (stats->ours_rss_kb > 0)
    {
      json_member_int (json, "ours_vmhwm_kb", stats->ours_rss_kb);
      json_member_int (json, "ours_vmhwm_before_phase_kb",
                       stats->ours_rss_before_kb);
      json_member_int (json, "ours_wait4_maxrss_kb", stats->ours_maxrss_kb);
    }
  json_builder_end_object (json);
}

/* ---- one large file --------------------------------------------------- */

static void
file_write_ours (AgentsSandboxSession *session, const char *host_file)
{
  g_autoptr (GFile) file = g_file_new_for_path (host_file);
  g_autoptr (GInputStream) stream = NULL;
  Waiter waiter = { NULL };
  GError *error = NULL;

  stream = G_INPUT_STREAM (g_file_read (file, NULL, &error));
  check (error, "open the file to write");
  WAIT_FOR (agents_sandbox_session_write_async, session, "bench.bin", stream,
            NULL);
  agents_sandbox_session_write_finish (session, waiter.result, &error);
  check (error, "write the file");
  g_clear_object (&waiter.result);
}

static void
file_read_ours (AgentsSandboxSession *session, const char *host_file)
{
  g_autoptr (GInputStream) stream = NULL;
  g_autofree char *buffer = g_malloc (1 << 16);
  int fd = open_or_die (host_file, O_WRONLY | O_CREAT | O_TRUNC);
  Waiter waiter = { NULL };
  GError *error = NULL;
  gssize n;

  WAIT_FOR (agents_sandbox_session_read_async, session, "bench.bin", NULL);
  stream = agents_sandbox_session_read_finish (session, waiter.result, &error);
  check (error, "read the file");
  while ((n = g_input_stream_read (stream, buffer, 1 << 16, NULL, &error)) > 0)
    {
      if (write (fd, buffer, n) != n)
        die ("write %s: %s", host_file, g_strerror (errno));
    }
  check (error, "read the file's stream");
  g_input_stream_close (stream, NULL, NULL);
  close (fd);
  g_clear_object (&waiter.result);
}

/* Compares two host files byte for byte. */
static void
same_content (const char *a, const char *b)
{
  g_autofree char *x = g_malloc (1 << 20);
  g_autofree char *y = g_malloc (1 << 20);
  int fa = open_or_die (a, O_RDONLY), fb = open_or_die (b, O_RDONLY);
  gssize n, m;

  do
    {
      n = read (fa, x, 1 << 20);
      m = read (fb, y, 1 << 20);
      if (n != m || (n > 0 && memcmp (x, y, n) != 0))
        die ("%s and %s differ", a, b);
    }
  while (n > 0);
  close (fa);
  close (fb);
}

typedef void (*FileOp) (AgentsSandboxSession *session, const char *host_file);

/* One timed run of each side; who goes first alternates between reps. */
static void
file_pair (AgentsSandboxSession *session,
           const char *const *cli_argv,
           FileOp ours,
           const char *host_file,
           int rep,
           Stats *stats)
{
  for (int turn = 0; turn < 2; turn++)
    {
      double engine;

      sync ();
      engine = engine_cpu_seconds ();
      if ((turn + rep) % 2 == 0)
        {
          ProcRun run;

          run_process (cli_argv, -1, OUT_NULL, &run);
          note_cli (stats, rep, &run);
          stats->cli_engine_s[rep] = engine_cpu_seconds () - engine;
        }
      else
        {
          double start = now (), cpu = cpu_seconds ();

          ours (session, host_file);
          stats->ours_s[rep] = now () - start;
          stats->ours_cpu_s[rep] = cpu_seconds () - cpu;
          stats->ours_engine_s[rep] = engine_cpu_seconds () - engine;
        }
    }
}

static void
file_rep (AgentsSandboxSession *session,
          const char *base,
          const char *source,
          int rep,
          Stats *writes,
          Stats *reads)
{
  g_autofree char *target =
    g_strdup_printf ("%s:/workspace/bench.bin", session_container (session));
  g_autofree char *ours_copy = g_build_filename (base, "ours-read.bin", NULL);
  g_autofree char *cli_copy = g_build_filename (base, "cli-read.bin", NULL);
  const char *cp_in[] = { docker_path, "cp", source, target, NULL };
  const char *cp_out[] = { docker_path, "cp", target, cli_copy, NULL };

  file_pair (session, cp_in, file_write_ours, source, rep, writes);
  g_unlink (ours_copy);
  g_unlink (cli_copy);
  file_pair (session, cp_out, file_read_ours, ours_copy, rep, reads);
  /* Both sides read back what was written (untimed). */
  same_content (source, ours_copy);
  same_content (source, cli_copy);
}

static void
bench_files (AgentsSandboxClient *client, const char *base, JsonBuilder *json)
{
  g_autofree char *source = g_build_filename (base, "source.bin", NULL);
  g_autofree guint64 *buffer = g_malloc (1 << 20);
  guint64 bytes = (guint64) opt_file_mb * 1000000;
  g_autoptr (AgentsSandboxSession) session = NULL;
  long hwm_before = proc_status_kb ("VmHWM");
  Stats writes, reads;

  bench_write_file (source, bytes, 42, buffer, 1 << 20);
  session = session_open (client);
  stats_init (&writes);
  stats_init (&reads);
  for (int rep = 0; rep < opt_reps; rep++)
    file_rep (session, base, source, rep, &writes, &reads);

  printf ("\none file of %.0f MB (random bytes), host file <-> "
          "/workspace/bench.bin; median of %d run(s)\n",
          bytes / MB, opt_reps);
  json_builder_set_member_name (json, "file");
  json_builder_begin_object (json);
  json_member_int (json, "bytes", bytes);
  json_member_int (json, "reps", opt_reps);
  printf ("write\n");
  phase_report (json, "write", "docker cp HOSTFILE CONTAINER:/workspace/x",
                "write_async from a GFileInputStream", bytes, &writes);
  printf ("read\n");
  phase_report (json, "read", "docker cp CONTAINER:/workspace/x HOSTFILE",
                "read_async, streamed to a host file", bytes, &reads);
  printf ("  (this process: VmHWM %.1f MiB before the file phase, %.1f MiB "
          "after)\n",
          hwm_before / 1024.0, proc_status_kb ("VmHWM") / 1024.0);
  json_member_int (json, "process_vmhwm_before_kb", hwm_before);
  json_member_int (json, "process_vmhwm_after_kb", proc_status_kb ("VmHWM"));
  json_builder_end_object (json);
  stats_clear (&writes);
  stats_clear (&reads);
  session_delete (client, session);
}

/* ---- persist and hydrate --------------------------------------------- */

static void
note_ours (Stats *stats, int rep, ProcRun *run, JsonObject *report)
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

/* Checks that the session's workspace holds what was generated. */
static void
check_workspace (AgentsSandboxSession *session, const WorkspaceInfo *info)
{
  g_autofree char *files =
    session_output (session, "find /workspace -type f | wc -l");
  g_autofree char *bytes =
    session_output (session, "find /workspace -type f -exec cat {} + | wc -c");

  if (g_ascii_strtoull (files, NULL, 10) != info->files ||
      g_ascii_strtoull (bytes, NULL, 10) != info->bytes)
    die ("the workspace has %s files, %s bytes; expected %u files, "
         "%" G_GUINT64_FORMAT " bytes",
         files, bytes, info->files, info->bytes);
}

static void
persist_rep (const char *self_exe,
             const char *state,
             const char *container,
             int rep,
             Stats *stats,
             guint64 *ours_bytes)
{
  g_autofree char *source = g_strdup_printf ("%s:/workspace", container);
  const char *cli_argv[] = { docker_path, "cp", source, "-", NULL };
  const char *ours_argv[] = { self_exe, "--phase=persist", "--state", state,
                              NULL };
  g_autoptr (JsonObject) report = NULL;
  ProcRun run;

  for (int turn = 0; turn < 2; turn++)
    {
      double engine = engine_cpu_seconds ();

      if ((turn + rep) % 2 == 0)
        {
          run_process (cli_argv, -1, OUT_NULL, &run);
          note_cli (stats, rep, &run);
          stats->cli_engine_s[rep] = engine_cpu_seconds () - engine;
          continue;
        }
      run_process (ours_argv, -1, OUT_KEEP, &run);
      stats->ours_engine_s[rep] = engine_cpu_seconds () - engine;
      report = parse_report (&run);
      note_ours (stats, rep, &run, report);
      *ours_bytes = json_object_get_int_member (report, "bytes");
    }
}

/* Each rep hydrates two fresh containers, which are removed only at the
 * end of the phase: removing thousands of files just before a run slows
 * the file creations of that run (see "ext4 without a journal" in
 * docs/performance.md). */
static void
hydrate_rep (AgentsSandboxClient *client,
             const char *self_exe,
             const char *base,
             const char *archive,
             const WorkspaceInfo *info,
             int rep,
             Stats *stats,
             GPtrArray *sessions)
{
  AgentsSandboxSession *cli_session = session_open (client);
  AgentsSandboxSession *ours_session = session_open (client);
  g_autofree char *state_name = g_strdup_printf ("hydrate-%d.json", rep);
  g_autofree char *state = g_build_filename (base, state_name, NULL);
  g_autofree char *target =
    g_strdup_printf ("%s:/workspace", session_container (cli_session));
  const char *cli_argv[] = { docker_path, "cp", "-", target, NULL };
  const char *ours_argv[] = { self_exe,    "--phase=hydrate", "--state", state,
                              "--archive", archive,           NULL };
  g_autoptr (JsonObject) report = NULL;
  ProcRun run;

  g_ptr_array_add (sessions, cli_session);
  g_ptr_array_add (sessions, ours_session);
  save_state (client, ours_session, state);
  for (int turn = 0; turn < 2; turn++)
    {
      double engine;

      sync ();
      engine = engine_cpu_seconds ();
      if ((turn + rep) % 2 == 0)
        {
          int fd = open_or_die (archive, O_RDONLY);

          run_process (cli_argv, fd, OUT_NULL, &run);
          close (fd);
          note_cli (stats, rep, &run);
          stats->cli_engine_s[rep] = engine_cpu_seconds () - engine;
          continue;
        }
      run_process (ours_argv, -1, OUT_KEEP, &run);
      stats->ours_engine_s[rep] = engine_cpu_seconds () - engine;
      report = parse_report (&run);
      note_ours (stats, rep, &run, report);
    }
  check_workspace (cli_session, info);
  check_workspace (ours_session, info);
}

/* The size of `docker cp CONTAINER:/workspace -`'s stream (untimed). */
static guint64
cli_archive_bytes (const char *container)
{
  g_autofree char *source = g_strdup_printf ("%s:/workspace", container);
  const char *argv[] = { docker_path, "cp", source, "-", NULL };
  ProcRun run;

  run_process (argv, -1, OUT_COUNT, &run);
  return run.out_bytes;
}

static guint64
file_size (const char *path)
{
  GStatBuf st;

  if (g_stat (path, &st) < 0)
    die ("stat %s: %s", path, g_strerror (errno));
  return st.st_size;
}

static void
make_archive (const char *ws, const char *archive)
{
  /* GNU tar; the members are workspace-relative ("./t00/..."). */
  const char *argv[] = { "tar", "-c", "-f", archive, "-C", ws, ".", NULL };
  ProcRun run;

  run_process (argv, -1, OUT_NULL, &run);
}

static void
archive_json_workspace (JsonBuilder *json,
                        const WorkspaceInfo *info,
                        guint64 ours_bytes,
                        guint64 cli_bytes)
{
  json_builder_set_member_name (json, "workspace");
  json_builder_begin_object (json);
  json_member_int (json, "files", info->files);
  json_member_int (json, "dirs", info->dirs);
  json_member_int (json, "bytes", info->bytes);
  json_member_int (json, "reps", opt_reps);
  json_member_int (json, "ours_archive_bytes", ours_bytes);
  json_member_int (json, "cli_archive_bytes", cli_bytes);
  json_builder_end_object (json);
}

static void
bench_archive (AgentsSandboxClient *client, const char *base, JsonBuilder *json)
{
  g_autofree char *self_exe = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *ws = g_build_filename (base, "ws", NULL);
  g_autofree char *archive = g_build_filename (base, "workspace.tar", NULL);
  g_autofree char *persist_state =
    g_build_filename (base, "persist.json", NULL);
  g_autoptr (GPtrArray) sessions = g_ptr_array_new_with_free_func (NULL);
  g_autoptr (AgentsSandboxSession) source = NULL;
  guint64 ours_bytes = 0, cli_bytes;
  Stats persist, hydrate;
  WorkspaceInfo info;
  double start = now ();

  if (g_mkdir_with_parents (ws, 0755) < 0)
    die ("mkdir %s: %s", ws, g_strerror (errno));
  info = bench_generate_workspace (ws, opt_files, (guint64) opt_mb * 1000000);
  make_archive (ws, archive);
  sync ();
  printf ("\nworkspace: %u files in %u directories, %.1f MB (largest file "
          "%.1f MB), generated and archived in %.1f s\n",
          info.files, info.dirs, info.bytes / MB, info.largest / MB,
          now () - start);

  /* The container persist reads from: hydrated once, untimed. */
  source = session_open (client);
  hydrate_file (source, archive);
  check_workspace (source, &info);
  save_state (client, source, persist_state);
  cli_bytes = cli_archive_bytes (session_container (source));

  stats_init (&persist);
  stats_init (&hydrate);
  for (int rep = 0; rep < opt_reps; rep++)
    persist_rep (self_exe, persist_state, session_container (source), rep,
                 &persist, &ours_bytes);
  for (int rep = 0; rep < opt_reps; rep++)
    hydrate_rep (client, self_exe, base, archive, &info, rep, &hydrate,
                 sessions);

  printf ("MB/s = workspace file bytes / wall time; median of %d run(s); "
          "RSS = peak\n",
          opt_reps);
  archive_json_workspace (json, &info, ours_bytes, cli_bytes);
  printf ("persist\n");
  phase_report (json, "persist", "docker cp CONTAINER:/workspace - >/dev/null",
                "persist_workspace + read to end", info.bytes, &persist);
  printf ("hydrate\n");
  phase_report (json, "hydrate", "docker cp - CONTAINER:/workspace <tar",
                "hydrate_workspace from the tar file", info.bytes, &hydrate);
  printf ("  (stream: ours %.1f MB, the CLI's %.1f MB; hydrate reads a GNU "
          "tar of %.1f MB)\n",
          ours_bytes / MB, cli_bytes / MB, file_size (archive) / MB);

  stats_clear (&persist);
  stats_clear (&hydrate);
  for (guint i = 0; i < sessions->len; i++)
    {
      session_delete (client, g_ptr_array_index (sessions, i));
      g_object_unref (g_ptr_array_index (sessions, i));
    }
  session_delete (client, source);
}

/* ---- machine and engine ---------------------------------------------- */

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
engine_string (AgentsDockerEngine *engine, const char *path, const char *member)
{
  g_autoptr (JsonNode) answer = agents_docker_engine_call_json (
    engine, "GET", path, NULL, NULL, NULL, NULL);

  if (answer == NULL || !JSON_NODE_HOLDS_OBJECT (answer))
    return g_strdup ("unknown");
  return g_strdup (json_object_get_string_member_with_default (
    json_node_get_object (answer), member, "unknown"));
}

static void
report_machine (AgentsDockerEngine *engine, JsonBuilder *json)
{
  g_autofree char *cpu = cpu_model ();
  g_autofree char *cli = NULL;
  g_autofree char *server = engine_string (engine, "/version", "Version");
  g_autofree char *driver = engine_string (engine, "/info", "Driver");
  g_autofree char *command =
    g_strdup_printf ("%s version --format {{.Client.Version}}", docker_path);
  struct utsname uts;

  cli = first_line_of (command);
  uname (&uts);
  printf ("libagents %s docker benchmark\n", PACKAGE_VERSION);
  printf ("machine: %u CPUs, %s, %s %s\n", g_get_num_processors (), cpu,
          uts.sysname, uts.release);
  printf ("engine: %s, Docker %s (API %s), storage driver %s; CLI %s; image "
          "%s\n",
          agents_docker_engine_get_endpoint (engine), server,
          agents_docker_engine_get_server_api_version (engine), driver, cli,
          opt_image);
  json_builder_set_member_name (json, "machine");
  json_builder_begin_object (json);
  json_member_int (json, "nproc", g_get_num_processors ());
  json_member_string (json, "cpu", cpu);
  json_member_string (json, "kernel", uts.release);
  json_member_string (json, "engine", server);
  json_member_string (json, "engine_api",
                      agents_docker_engine_get_server_api_version (engine));
  json_member_string (json, "storage_driver", driver);
  json_member_string (json, "cli", cli);
  json_member_string (json, "image", opt_image);
  json_builder_end_object (json);
}

/* NULL when the engine answers, has the image and the CLI is there;
 * otherwise why not. */
static char *
unavailable (AgentsDockerEngine *engine)
{
  g_autoptr (JsonNode) image = NULL;
  g_autofree char *escaped = agents_docker_engine_escape (opt_image);
  g_autofree char *path = g_strdup_printf ("/images/%s/json", escaped);
  g_autoptr (GError) error = NULL;

  if (!agents_docker_engine_negotiate (engine, NULL, &error))
    return g_strdup_printf ("no Docker engine: %s", error->message);
  image = agents_docker_engine_call_json (engine, "GET", path, NULL, NULL, NULL,
                                          &error);
  if (image == NULL)
    return g_strdup_printf ("no image %s (tests/docker/build-image.sh "
                            "builds the default one): %s",
                            opt_image, error->message);
  if (docker_path == NULL)
    return g_strdup ("no `docker` command in PATH, nothing to compare with");
  return NULL;
}

/* ---- main ------------------------------------------------------------ */

static void
report_load (JsonBuilder *json, const char *name, const char *when)
{
  g_autofree char *load = load_average ();

  printf ("load average %s: %s\n", when, load);
  json_member_string (json, name, load);
}

static int
run_benchmarks (AgentsSandboxClient *client)
{
  g_autoptr (JsonBuilder) json = json_builder_new ();
  g_autoptr (AgentsDockerEngine) engine = NULL;
  g_autofree char *why = NULL;
  GError *error = NULL;

  engine = agents_docker_engine_new (NULL, &error);
  check (error, "the Docker endpoint");
  json_builder_begin_object (json);
  json_member_string (json, "benchmark", "docker");
  why = unavailable (engine);
  if (why != NULL)
    {
      printf ("bench-docker: skipped: %s\n", why);
      json_member_string (json, "skipped", why);
      json_builder_end_object (json);
      print_report (json);
      return 0;
    }

  tmp_base = g_dir_make_tmp ("agents-bench-docker-XXXXXX", &error);
  check (error, "create a temporary directory");
  atexit (at_exit);
  clean_up_on_signals (tmp_base);

  json_builder_set_member_name (json, "quick");
  json_builder_add_boolean_value (json, opt_quick);
  report_machine (engine, json);
  find_engine_pid (engine);
  report_load (json, "load_before", "before");
  if (!opt_skip_exec)
    bench_exec (client, json);
  if (!opt_skip_files)
    bench_files (client, tmp_base, json);
  if (!opt_skip_archive)
    bench_archive (client, tmp_base, json);
  printf ("\n");
  report_load (json, "load_after", "after");
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

  context = g_option_context_new ("- docker benchmark");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    die ("%s", error->message);
  apply_defaults ();
  make_absolute (&opt_state);
  make_absolute (&opt_archive);

  agents_docker_register_types ();
  client = agents_docker_client_new ();

  if (g_strcmp0 (opt_phase, "persist") == 0 && opt_state != NULL)
    return phase_persist (client);
  if (g_strcmp0 (opt_phase, "hydrate") == 0 && opt_state != NULL &&
      opt_archive != NULL)
    return phase_hydrate (client);
  if (opt_phase != NULL)
    die ("unknown phase %s", opt_phase);
  docker_path = g_find_program_in_path ("docker");
  setvbuf (stdout, NULL, _IOLBF, 0);
  return run_benchmarks (client);
}
