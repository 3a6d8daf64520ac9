/* agents-unix-local-confine-private.h - what the confinement files share
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Confinement is one file per responsibility: the policy and the choice
 * of a mechanism (agents-unix-local-confine.c), handing the workspace
 * over (-confine-handover.c), the bubblewrap command line
 * (-confine-bwrap.c), spawning and its cache (-confine-spawn.c), the
 * child between fork and exec (-confine-child.c), probing the host
 * (-confine-probe.c), Landlock (agents-unix-local-landlock.c), seccomp
 * (agents-unix-local-seccomp.c), cgroups (agents-unix-local-cgroup.c)
 * and the macOS profile (agents-unix-local-macos.c).
 */

#pragma once

#include "agents-unix-local-confine.h"

#ifdef __linux__
#include <linux/filter.h>
#include <sys/resource.h>
#include <sys/types.h>
#endif

G_BEGIN_DECLS

/* The PATH commands run with. */
#define AGENTS_UNIX_LOCAL_DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

/* Read-only system directories (or symlinks to them) shown to commands. */
#define AGENTS_UNIX_LOCAL_N_SYSTEM_DIRS 8
extern const char
  *const agents_unix_local_system_dirs[AGENTS_UNIX_LOCAL_N_SYSTEM_DIRS];

/* Whether @path is @dir or lies beneath it (both normalized). */
gboolean agents_unix_local_path_is_at_or_under (const char *path,
                                                const char *dir);

/* Sets a FAILED sandbox error for @what on @path; returns FALSE. */
gboolean agents_unix_local_set_errno_error (GError **error,
                                            const char *what,
                                            const char *path,
                                            int saved_errno);

/* Sets an EXEC_TRANSPORT error for @argv whose message also tells what
 * failed (@reason, the @requested confinement, @detail). */
void agents_unix_local_set_transport_error (GError **error,
                                            const char *const *argv,
                                            const char *reason,
                                            const char *requested,
                                            const char *detail);

/* Sets the "confinement unavailable" transport error for @argv. */
void agents_unix_local_set_unavailable (GError **error,
                                        const char *const *argv,
                                        const char *requested,
                                        const char *detail);

/* The secrets of /etc that commands must not read. */
GPtrArray *agents_unix_local_etc_secrets (void);

/* Every path bound into the sandbox from the host, parents first. */
GPtrArray *agents_unix_local_bound_paths (const AgentsUnixLocalPolicy *policy);

/* The bwrap arguments up to and including "--", before the command. */
GPtrArray *agents_unix_local_bwrap_prefix (const AgentsUnixLocalPolicy *policy,
                                           const char *bwrap_path);

/* @prefix then @argv, as a command on a PTY runs (@tty) or not; see
 * agents_unix_local_bwrap_argv_full() for @setsid_path. */
char **agents_unix_local_bwrap_argv_from_prefix (const char *const *prefix,
                                                 const char *const *argv,
                                                 gboolean tty,
                                                 const char *setsid_path);

/* Spawns @argv under @mechanism without wrapping errors: sandbox errors
 * are confinement failures, other domains spawn failures. */
GSubprocess *
agents_unix_local_confine_spawn_raw (const AgentsUnixLocalProbe *probe,
                                     AgentsUnixLocalConfinement mechanism,
                                     const AgentsUnixLocalPolicy *policy,
                                     AgentsUnixLocalSpawnCache *cache,
                                     const char *const *argv,
                                     GError **error);

/* A cgroup per command (agents-unix-local-cgroup.c); spawning writes the
 * child into @procs. */
struct _AgentsUnixLocalCgroup
{
  char **paths; /* one directory per controller */
  int *procs;   /* their cgroup.procs, open for writing */
};

#ifdef __linux__
/* How a child running as the sandbox uid still reaches the paths bound
 * for it (a workspace in /root, in a 0700 temp dir…) without the host's
 * modes changing: in a mount namespace of its own, each bound path is
 * cloned, the topmost ancestor that the sandbox uid cannot search is
 * covered with a read-only tmpfs holding the path's chain of
 * directories, and each clone is moved back at its path, nosuid and
 * nodev. The arrays are NULL-terminated. */
typedef struct
{
  char **paths;  /* bound paths, parents first */
  int *is_dir;   /* per path */
  int *trees;    /* per path: the clone's descriptor (child only) */
  char **covers; /* ancestors covered with a tmpfs */
  char **dirs;   /* directories to make in the covers, parents first */
  const char *cwd;
} MountPlan;

MountPlan *
agents_unix_local_mount_plan_new (const AgentsUnixLocalPolicy *policy,
                                  GPtrArray *bound);
void agents_unix_local_mount_plan_free (MountPlan *plan);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (MountPlan, agents_unix_local_mount_plan_free)

/* Everything the child needs between fork and exec, prepared in the
 * parent: only async-signal-safe calls happen in the child. */
typedef struct
{
  pid_t parent_pid;
  gboolean restrict_self;
  int ruleset_fd;
  struct sock_fprog program;
  gboolean has_program;
  int report_fd;
  /* Dropping to the sandbox identity. */
  gboolean drop;
  uid_t uid;
  gid_t gid;
  const MountPlan *plan;
  struct rlimit nproc, data, cpu;
  gboolean has_nproc, has_data, has_cpu;
  const int *cgroup_procs; /* -1-terminated, or NULL */
  gboolean tty;         /* stdin is a PTY slave: make it the controlling tty */
  gboolean ctty_inside; /* … but the command does it in the sandbox */
} ChildSetup;

/* The GSpawnChildSetupFunc of a confined command; @data: a ChildSetup. */
void agents_unix_local_child_setup (gpointer data);

/* Writes "@step:errno" to the report pipe of @setup and exits. */
G_NORETURN void agents_unix_local_child_report (const ChildSetup *setup,
                                                const char *step);

/* Spawns @argv (its program a path) as GSubprocess would, on the fds of
 * @policy (tty_fd, or /dev/null and two pipes), in the workspace, with
 * @setup run in the child, but without copying the caller
 * (agents-unix-local-confine-clone.c). */
gboolean agents_unix_local_clone_spawn (const char *const *argv,
                                        char **envp,
                                        const AgentsUnixLocalPolicy *policy,
                                        ChildSetup *setup,
                                        AgentsUnixLocalChild *child,
                                        GError **error);

/* The Landlock ruleset of @policy; *@reusable stays TRUE when the rules
 * will hold for later commands of the session. */
int agents_unix_local_landlock_ruleset_reusable (
  const AgentsUnixLocalPolicy *policy,
  int abi,
  gboolean *reusable,
  GError **error);

/* The BPF program that refuses sockets other than AF_UNIX, built once per
 * process; NULL with @error set when it cannot be built. */
GBytes *agents_unix_local_seccomp_no_network_program (GError **error);
#endif

G_END_DECLS
