/* agents-unix-local-confine-clone.c - spawning without copying the caller
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A process that runs on between calls (start_process) is spawned here
 * with clone(CLONE_VM | CLONE_VFORK), as posix_spawn() does, instead of
 * through GSubprocess, which forks as soon as there is a child setup:
 * a fork copies the caller's page tables and then takes a copy-on-write
 * fault for each page either side writes until the child has exec'd,
 * the largest cost of a short command on a PTY. The child shares the
 * caller's memory while the calling thread is suspended, so it only
 * makes system calls on data prepared beforehand (ChildSetup), and its
 * identity changes are raw system calls: glibc's would change the
 * identity of every thread of the caller.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef __linux__
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#endif

#include <glib-unix.h>
#include <glib/gi18n-lib.h>

#include "agents-sandbox-error-private.h"
#include "agents-unix-local-confine-private.h"

#ifdef __linux__

/* The child's stack: its setup calls no library code that needs more. */
#define CHILD_STACK_SIZE (256 * 1024)

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

typedef struct
{
  const char *const *argv;
  char *const *envp;
  const char *cwd;
  int fds[3]; /* what becomes the child's 0, 1 and 2 */
  ChildSetup *setup;
  sigset_t mask;  /* the caller's, restored before exec */
  int exec_errno; /* set by the child when execve() failed */
} CloneSpawn;

/* Handlers of the caller would run on the caller's memory: reset to the
 * default, as exec would. Ignored signals stay ignored, but for those
 * GLib's spawning resets as well (a caller ignoring SIGPIPE must not
 * have the command ignore it). */
static void
child_reset_handlers (void)
{
  const int reset[] = { SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGPIPE };

  for (int sig = 1; sig < NSIG; sig++)
    {
      struct sigaction action;
      gboolean always = FALSE;

      for (guint i = 0; i < G_N_ELEMENTS (reset); i++)
        always = always || reset[i] == sig;
      if (sigaction (sig, NULL, &action) < 0 || action.sa_handler == SIG_DFL ||
          (action.sa_handler == SIG_IGN && !always))
        continue;
      memset (&action, 0, sizeof action);
      action.sa_handler = SIG_DFL;
      sigaction (sig, &action, NULL);
    }
}

/* Every descriptor but 0, 1 and 2 closes on exec; the setup still uses
 * some of them (its report pipe, the cgroup, the ruleset). */
static void
child_cloexec_rest (void)
{
  struct rlimit limit;

  if (syscall (__NR_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
    return;
  if (getrlimit (RLIMIT_NOFILE, &limit) < 0 || limit.rlim_cur == RLIM_INFINITY)
    limit.rlim_cur = 65536;
  for (int fd = 3; fd < (int) limit.rlim_cur; fd++)
    fcntl (fd, F_SETFD, FD_CLOEXEC);
}

static int
child_main (void *data)
{
  CloneSpawn *spawn = data;
  int fds[3];

  child_reset_handlers ();
  if (spawn->cwd != NULL && chdir (spawn->cwd) < 0)
    agents_unix_local_child_report (spawn->setup, "chdir");
  /* Above 2 first, so that no target overwrites a source. */
  for (int i = 0; i < 3; i++)
    if ((fds[i] = fcntl (spawn->fds[i], F_DUPFD_CLOEXEC, 3)) < 0)
      agents_unix_local_child_report (spawn->setup, "dup");
  for (int i = 0; i < 3; i++)
    if (dup2 (fds[i], i) < 0)
      agents_unix_local_child_report (spawn->setup, "dup2");
  child_cloexec_rest ();
  agents_unix_local_child_setup (spawn->setup);
  sigprocmask (SIG_SETMASK, &spawn->mask, NULL);
  execve (spawn->argv[0], (char *const *) spawn->argv, spawn->envp);
  spawn->exec_errno = errno;
  _exit (127);
}

/* Reads what a failed child setup reported ("step:errno") into @error. */
static gboolean
read_report (int fd, GError **error)
{
  char buf[256];
  ssize_t n;
  char *colon;

  do
    n = read (fd, buf, sizeof buf - 1);
  while (n < 0 && errno == EINTR);
  if (n <= 0)
    return TRUE;
  buf[n] = '\0';
  colon = strrchr (buf, ':');
  if (colon != NULL)
    *colon++ = '\0';
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_FAILED, NULL, "%s: %s",
                            buf, colon ? g_strerror (atoi (colon)) : "failed");
  return FALSE;
}

static void
reap (pid_t pid)
{
  int status;

  while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
    ;
}

/* Runs the child on a stack of its own; the calling thread resumes once
 * it exec'd or exited, with all signals blocked meanwhile (a handler of
 * the caller must not run on the child). */
static pid_t
clone_child (CloneSpawn *spawn, GError **error)
{
  sigset_t all;
  void *stack;
  pid_t pid;
  int err;

  stack = mmap (NULL, CHILD_STACK_SIZE, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED)
    {
      err = errno;
      g_set_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_FORK,
                   _ ("could not start a process: %s"), g_strerror (err));
      return -1;
    }
  sigfillset (&all);
  pthread_sigmask (SIG_BLOCK, &all, &spawn->mask);
  pid = clone (child_main, (char *) stack + CHILD_STACK_SIZE,
               CLONE_VM | CLONE_VFORK | SIGCHLD, spawn);
  err = errno;
  pthread_sigmask (SIG_SETMASK, &spawn->mask, NULL);
  munmap (stack, CHILD_STACK_SIZE);
  if (pid < 0)
    g_set_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_FORK,
                 _ ("could not start a process: %s"), g_strerror (err));
  return pid;
}

static gboolean
open_fds (const AgentsUnixLocalPolicy *policy,
          int fds[3],
          AgentsUnixLocalChild *child,
          GError **error)
{
  int out[2] = { -1, -1 }, err[2] = { -1, -1 };

  if (policy->tty_fd >= 0)
    {
      fds[0] = fds[1] = fds[2] = policy->tty_fd;
      return TRUE;
    }
  fds[0] = open ("/dev/null", O_RDONLY | O_CLOEXEC);
  if (fds[0] < 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "/dev/null: %s", g_strerror (saved));
      return FALSE;
    }
  if (!g_unix_open_pipe (out, FD_CLOEXEC, error) ||
      !g_unix_open_pipe (err, FD_CLOEXEC, error))
    {
      close (fds[0]);
      if (out[0] >= 0)
        {
          close (out[0]);
          close (out[1]);
        }
      return FALSE;
    }
  fds[1] = out[1];
  fds[2] = err[1];
  child->stdout_fd = out[0];
  child->stderr_fd = err[0];
  return TRUE;
}

static void
close_child_ends (const AgentsUnixLocalPolicy *policy, const int fds[3])
{
  if (policy->tty_fd >= 0)
    return;
  for (int i = 0; i < 3; i++)
    close (fds[i]);
}

static void
close_parent_ends (AgentsUnixLocalChild *child)
{
  if (child->stdout_fd >= 0)
    close (child->stdout_fd);
  if (child->stderr_fd >= 0)
    close (child->stderr_fd);
  child->stdout_fd = child->stderr_fd = -1;
}

gboolean
agents_unix_local_clone_spawn (const char *const *argv,
                               char **envp,
                               const AgentsUnixLocalPolicy *policy,
                               ChildSetup *setup,
                               AgentsUnixLocalChild *child,
                               GError **error)
{
  CloneSpawn spawn = { argv, envp, policy->workspace_root };
  int report[2];
  gboolean ok;

  child->pid = -1;
  child->pidfd = child->stdout_fd = child->stderr_fd = -1;
  if (!g_unix_open_pipe (report, FD_CLOEXEC, error))
    return FALSE;
  if (!open_fds (policy, spawn.fds, child, error))
    {
      close (report[0]);
      close (report[1]);
      return FALSE;
    }
  setup->parent_pid = getpid ();
  setup->report_fd = report[1];
  setup->tty = policy->tty_fd >= 0;
  spawn.setup = setup;
  child->pid = clone_child (&spawn, error);
  close (report[1]);
  close_child_ends (policy, spawn.fds);
  ok = child->pid > 0 && read_report (report[0], error);
  close (report[0]);
  if (ok && spawn.exec_errno != 0)
    {
      g_set_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED,
                   _ ("could not run “%s”: %s"), argv[0],
                   g_strerror (spawn.exec_errno));
      ok = FALSE;
    }
  if (!ok)
    {
      if (child->pid > 0)
        reap (child->pid);
      child->pid = -1;
      close_parent_ends (child);
      return FALSE;
    }
  /* The child is not reaped yet: its pid cannot have been reused. */
  child->pidfd = syscall (__NR_pidfd_open, child->pid, 0);
  return TRUE;
}

#endif /* __linux__ */
