/* bench-pty.c - processes on a PTY against a bare openpty and spawn
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Two measures, each ours against the same work done by hand:
 *
 *  - the round trip of `true` on a PTY through the session's process
 *    table (agents_sandbox_session_pty_exec_start_async(), which returns
 *    as soon as the process ended and its output is read) against
 *    openpty() + spawn + read to EOF + wait; unconfined, and confined by
 *    bubblewrap against a bare bwrap with the backend's flags;
 *  - the echo latency of `cat` on a PTY: from writing a line until the
 *    terminal's echo and cat's copy of it came back, through
 *    agents_sandbox_process_write_stdin_async() and the ::output signal,
 *    against write() and poll() on a bare PTY master.
 *
 * Not a test: `meson test` does not run it; see bench/run.sh and
 * docs/performance.md.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <math.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "agents.h"
#include "agents-unix-local-client.h"
#include "agents-unix-local-confine.h"

#define TARGET_ROUND_TRIP_RATIO 1.2
#define TARGET_ECHO_MS 2.0
#define TARGET_ECHO_RATIO 1.2

static int opt_iterations = 200;
/* Which rows to measure (bench-pty N ROWS): any of "b" (bare), "u"
 * (unix_local unconfined), "B" (bare bwrap), "w" (unix_local bwrap);
 * all by default. One row alone is what a profiler wants. */
static const char *opt_rows = "buBw";

static gboolean
want (char row)
{
  return strchr (opt_rows, row) != NULL;
}

static void
check (GError *error, const char *what)
{
  if (error == NULL)
    return;
  g_printerr ("bench-pty: %s: %s\n", what, error->message);
  exit (1);
}

static double
now (void)
{
  return g_get_monotonic_time () / 1e6;
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

static double
median (double *values, guint n)
{
  qsort (values, n, sizeof *values, compare_doubles);
  return values[n / 2];
}

/* The 10th percentile of @values, sorted by median(). */
static double
low_decile (const double *values, guint n)
{
  return values[n / 10];
}

/* ---- waiting -------------------------------------------------------- */

static void
got_result (GObject *source, GAsyncResult *result, gpointer user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static GAsyncResult *
wait_result (GAsyncResult **result)
{
  while (*result == NULL)
    g_main_context_iteration (NULL, TRUE);
  return *result;
}

static AgentsSandboxSession *
session_open (AgentsSandboxClient *client, const char *confinement)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  GVariant *options =
    confinement ? g_variant_new_parsed ("{'confinement': <%s>}", confinement)
                : NULL;
  GError *error = NULL;

  agents_sandbox_client_create_async (client, manifest, options, NULL, NULL,
                                      got_result, &result);
  session =
    agents_sandbox_client_create_finish (client, wait_result (&result), &error);
  check (error, "create a session");
  g_clear_object (&result);
  agents_sandbox_session_start_async (session, NULL, got_result, &result);
  agents_sandbox_session_start_finish (session, wait_result (&result), &error);
  check (error, "start a session");
  return g_steal_pointer (&session);
}

static void
session_close (AgentsSandboxClient *client, AgentsSandboxSession *session)
{
  g_autoptr (GAsyncResult) result = NULL;

  agents_sandbox_session_close_async (session, NULL, got_result, &result);
  agents_sandbox_session_close_finish (session, wait_result (&result), NULL);
  g_clear_object (&result);
  agents_sandbox_client_delete_async (client, session, NULL, got_result,
                                      &result);
  agents_sandbox_client_delete_finish (client, wait_result (&result), NULL);
}

/* ---- bare ----------------------------------------------------------- */

typedef struct
{
  gboolean drop; /* become the sandbox uid, as the backend's bwrap does */
  gboolean ctty; /* take the PTY as the controlling terminal (not when
                    setsid -c does it inside bwrap) */
} BareSetup;

static void
bare_child_setup (gpointer data)
{
  const BareSetup *setup = data;

  setsid ();
  if (setup->ctty)
    ioctl (0, TIOCSCTTY, 0);
  if (setup->drop && (setgroups (0, NULL) < 0 ||
                      setresgid (AGENTS_UNIX_LOCAL_DEFAULT_SANDBOX_GID,
                                 AGENTS_UNIX_LOCAL_DEFAULT_SANDBOX_GID,
                                 AGENTS_UNIX_LOCAL_DEFAULT_SANDBOX_GID) < 0 ||
                      setresuid (AGENTS_UNIX_LOCAL_DEFAULT_SANDBOX_UID,
                                 AGENTS_UNIX_LOCAL_DEFAULT_SANDBOX_UID,
                                 AGENTS_UNIX_LOCAL_DEFAULT_SANDBOX_UID) < 0))
    _exit (126);
}

static GPid
bare_spawn (const char *const *argv, gboolean drop, gboolean ctty, int *master)
{
  int slave;
  GPid pid;
  GError *error = NULL;
  BareSetup setup = { drop, ctty };

  if (openpty (master, &slave, NULL, NULL, NULL) < 0)
    {
      g_printerr ("bench-pty: openpty: %s\n", g_strerror (errno));
      exit (1);
    }
  g_spawn_async_with_fds (
    NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_SEARCH_PATH,
    bare_child_setup, &setup, &pid, slave, slave, slave, &error);
  check (error, "spawn");
  close (slave);
  return pid;
}

static void
bare_round_trip (const char *const *argv, gboolean drop, gboolean ctty)
{
  int master, status;
  GPid pid = bare_spawn (argv, drop, ctty, &master);
  char buffer[16384];

  while (read (master, buffer, sizeof buffer) > 0)
    ;
  waitpid (pid, &status, 0);
  close (master);
}

/* Writes a line and waits for it twice: the echo and cat's copy. */
static double
bare_echo (int master)
{
  static const char line[] = "x\n";
  char buffer[256];
  gsize seen = 0;
  double start = now ();

  if (write (master, line, 2) != 2)
    exit (1);
  while (seen < 6) /* "x\r\n" twice */
    {
      struct pollfd p = { master, POLLIN, 0 };
      ssize_t n;

      poll (&p, 1, 5000);
      n = read (master, buffer, sizeof buffer);
      if (n <= 0)
        exit (1);
      seen += n;
    }
  return now () - start;
}

/* ---- ours ----------------------------------------------------------- */

static void
our_round_trip (AgentsSandboxSession *session, const char *const *argv)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (AgentsPtyExecUpdate) update = NULL;
  GError *error = NULL;

  agents_sandbox_session_pty_exec_start_async (
    session, argv, FALSE, TRUE, NULL, 10000, -1, NULL, got_result, &result);
  update = agents_sandbox_session_pty_exec_start_finish (
    session, wait_result (&result), &error);
  check (error, "pty_exec_start");
  if (agents_pty_exec_update_get_exit_code (update) != 0)
    {
      g_printerr ("bench-pty: the command failed\n");
      exit (1);
    }
}

static void
count_output (AgentsSandboxProcess *process, GBytes *chunk, gpointer data)
{
  *(gsize *) data += g_bytes_get_size (chunk);
}

static double
our_echo (AgentsSandboxProcess *process, gsize *seen)
{
  g_autoptr (GBytes) line = g_bytes_new_static ("x\n", 2);
  g_autoptr (GAsyncResult) result = NULL;
  double start = now ();

  *seen = 0;
  agents_sandbox_process_write_stdin_async (process, line, NULL, got_result,
                                            &result);
  while (*seen < 6 || result == NULL)
    g_main_context_iteration (NULL, TRUE);
  return now () - start;
}

/* ---- the measures --------------------------------------------------- */

typedef struct
{
  const char *name;
  double round_trip;
  double echo;
  double echo_p10; /* less sensitive than the median to a wake-up of an
                      idle CPU, which takes ~0.1 ms in some VMs */
} Row;

static void
measure_ours (AgentsSandboxClient *client, const char *confinement, Row *row)
{
  const char *const argv[] = { "true", NULL };
  const char *const cat[] = { "cat", NULL };
  g_autoptr (AgentsSandboxSession) session = session_open (client, confinement);
  g_autofree double *samples = g_new (double, opt_iterations);
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (AgentsSandboxProcess) process = NULL;
  GError *error = NULL;
  gsize seen = 0;

  our_round_trip (session, argv);
  for (int i = 0; i < opt_iterations; i++)
    {
      double start = now ();

      our_round_trip (session, argv);
      samples[i] = now () - start;
    }
  row->round_trip = median (samples, opt_iterations);

  agents_sandbox_session_start_process_async (session, cat, FALSE, TRUE, NULL,
                                              NULL, got_result, &result);
  process = agents_sandbox_session_start_process_finish (
    session, wait_result (&result), &error);
  check (error, "start cat");
  g_signal_connect (process, "output", G_CALLBACK (count_output), &seen);
  our_echo (process, &seen);
  for (int i = 0; i < opt_iterations; i++)
    samples[i] = our_echo (process, &seen);
  row->echo = median (samples, opt_iterations);
  row->echo_p10 = low_decile (samples, opt_iterations);
  agents_sandbox_process_terminate (process);
  session_close (client, session);
}

static void
measure_bare (const char *const *prefix, gboolean drop, gboolean ctty, Row *row)
{
  g_autofree double *samples = g_new (double, opt_iterations);
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
  g_autoptr (GStrvBuilder) cat_builder = g_strv_builder_new ();
  g_auto (GStrv) argv = NULL;
  g_auto (GStrv) cat = NULL;
  int master, status;
  GPid pid;

  if (prefix != NULL)
    {
      g_strv_builder_addv (builder, (const char **) prefix);
      g_strv_builder_addv (cat_builder, (const char **) prefix);
    }
  g_strv_builder_add (builder, "true");
  g_strv_builder_add (cat_builder, "cat");
  argv = g_strv_builder_end (builder);
  cat = g_strv_builder_end (cat_builder);

  bare_round_trip ((const char *const *) argv, drop, ctty);
  for (int i = 0; i < opt_iterations; i++)
    {
      double start = now ();

      bare_round_trip ((const char *const *) argv, drop, ctty);
      samples[i] = now () - start;
    }
  row->round_trip = median (samples, opt_iterations);

  pid = bare_spawn ((const char *const *) cat, drop, ctty, &master);
  bare_echo (master);
  for (int i = 0; i < opt_iterations; i++)
    samples[i] = bare_echo (master);
  row->echo = median (samples, opt_iterations);
  row->echo_p10 = low_decile (samples, opt_iterations);
  kill (-pid, SIGKILL);
  waitpid (pid, &status, 0);
  close (master);
}

/* The backend's bwrap command line for a command on a PTY, up to the
 * command: no --new-session, and setsid -c when the probe found it. */
static char **
bwrap_prefix (const AgentsUnixLocalProbe *probe, const char *root)
{
  const char *const none[] = { NULL };
  g_autoptr (AgentsUnixLocalPolicy) policy =
    agents_unix_local_policy_new (root, NULL, FALSE);

  policy->tty_fd = 0; /* as for a PTY */
  return agents_unix_local_bwrap_argv_full (policy, probe->bwrap_path,
                                            probe->setsid_path, none);
}

static void
print_row (const Row *row)
{
  if (row->round_trip == 0)
    return;
  printf ("  %-34s %9.3f ms %9.3f ms %9.3f ms\n", row->name,
          row->round_trip * 1e3, row->echo * 1e3, row->echo_p10 * 1e3);
}

static void
print_ratio (const char *what, double ratio, double target)
{
  if (!isfinite (ratio) || ratio == 0)
    return; /* a row not measured */
  printf ("  ratio %-44s %5.2f (goal <= %.1f) %s\n", what, ratio, target,
          ratio <= target ? "ok" : "MISSED");
}

int
main (int argc, char *argv[])
{
  g_autoptr (AgentsSandboxClient) client = NULL;
  const AgentsUnixLocalProbe *probe;
  g_autofree char *root = NULL;
  g_auto (GStrv) prefix = NULL;
  Row bare = { "bare openpty + spawn" }, ours = { "unix_local, unconfined" };
  Row bare_bwrap = { "bare bwrap + openpty" }, bwrap = { "unix_local, bwrap" };
  double load[3] = { 0 };

  if (argc > 1)
    opt_iterations = MAX (5, atoi (argv[1]));
  if (argc > 2)
    opt_rows = argv[2];
  g_setenv ("AGENTS_DISABLE_PLUGINS", "1", TRUE);
  signal (SIGPIPE, SIG_IGN);
  client = agents_unix_local_client_new ();
  probe = agents_unix_local_confine_probe ();

  if (want ('b'))
    measure_bare (NULL, FALSE, TRUE, &bare);
  if (want ('u'))
    measure_ours (client, "none", &ours);
  if (probe->bwrap_path != NULL && (want ('B') || want ('w')))
    {
      root = g_dir_make_tmp ("bench-pty-XXXXXX", NULL);
      if (geteuid () == 0)
        chmod (root, 0777);
      prefix = bwrap_prefix (probe, root);
      /* The prefix ends with "--": the command follows. */
      if (want ('B'))
        measure_bare ((const char *const *) prefix, geteuid () == 0,
                      probe->setsid_path == NULL, &bare_bwrap);
      if (want ('w'))
        measure_ours (client, "bwrap", &bwrap);
      g_rmdir (root);
    }
  getloadavg (load, 3);
  printf ("bench-pty: %d iterations, medians; load average %.2f %.2f %.2f, "
          "%ld CPUs\n",
          opt_iterations, load[0], load[1], load[2],
          sysconf (_SC_NPROCESSORS_ONLN));
  printf ("  %-34s %12s %12s %12s\n", "", "round trip", "echo", "echo p10");
  print_row (&bare);
  print_row (&ours);
  print_ratio ("round trip, unconfined / bare",
               ours.round_trip / bare.round_trip, TARGET_ROUND_TRIP_RATIO);
  if (ours.echo > 0)
    printf ("  echo, unconfined %.3f ms (goal <= %.1f ms) %s\n",
            ours.echo * 1e3, TARGET_ECHO_MS,
            ours.echo * 1e3 <= TARGET_ECHO_MS ? "ok" : "MISSED");
  if (prefix != NULL)
    {
      print_row (&bare_bwrap);
      print_row (&bwrap);
      print_ratio ("round trip, bwrap / bare bwrap",
                   bwrap.round_trip / bare_bwrap.round_trip,
                   TARGET_ROUND_TRIP_RATIO);
      print_ratio ("echo, bwrap / bare bwrap", bwrap.echo / bare_bwrap.echo,
                   TARGET_ECHO_RATIO);
      printf ("  ratio %-44s %5.2f (10th percentiles)\n",
              "echo, bwrap / bare bwrap", bwrap.echo_p10 / bare_bwrap.echo_p10);
    }
  else
    printf ("  bwrap rows skipped: %s\n",
            probe->bwrap_error ? probe->bwrap_error : "no bwrap");
  return 0;
}
