/* agents-unix-local-confine.h - confinement of unix_local commands
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gio/gio.h>

#include "agents.h"
#include "agents-host-bind-private.h"

G_BEGIN_DECLS

/*
 * Private API of the unix_local backend: how a command is confined to its
 * workspace.
 *
 * On Linux a confined command may write only to the workspace root, the
 * writable extra path grants and a private temporary directory; it may
 * read the system directories (with the secrets of /etc masked), the
 * workspace and the grants, never $HOME or other users' files; it has no
 * network unless the session allows it; it dies with its parent.
 *
 * Two mechanisms do this. bubblewrap builds a private mount namespace with
 * only those paths in it, and a pid, network, ipc and uts namespace. When
 * bwrap is unusable, Landlock (file system and, from ABI 4, TCP rules)
 * plus a seccomp filter refusing non-unix sockets restrict the process in
 * place; that mechanism has no pid namespace, so a command that calls
 * setsid() itself may outlive a kill of its process group, and, below
 * Landlock ABI 6, may signal other processes of the same user. On macOS,
 * `sandbox-exec` runs the command under a generated profile.
 */

typedef enum
{
  AGENTS_UNIX_LOCAL_CONFINEMENT_AUTO,
  AGENTS_UNIX_LOCAL_CONFINEMENT_BWRAP,
  AGENTS_UNIX_LOCAL_CONFINEMENT_LANDLOCK,
  AGENTS_UNIX_LOCAL_CONFINEMENT_SANDBOX_EXEC,
  AGENTS_UNIX_LOCAL_CONFINEMENT_NONE,
} AgentsUnixLocalConfinement;

/* The `reason` of the exec error when no mechanism is usable. */
#define AGENTS_UNIX_LOCAL_CONFINEMENT_UNAVAILABLE \
  "unix_local_confinement_unavailable"

gboolean agents_unix_local_confinement_from_string (
  const char *name, AgentsUnixLocalConfinement *confinement, GError **error);
const char *agents_unix_local_confinement_to_string (
  AgentsUnixLocalConfinement confinement);

/* ---- grants --------------------------------------------------------- */

typedef struct
{
  char *path; /* resolved, absolute */
  gboolean read_only;
} AgentsUnixLocalGrant;

void agents_unix_local_grant_free (AgentsUnixLocalGrant *grant);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AgentsUnixLocalGrant,
                               agents_unix_local_grant_free)

/* realpath() of @path, or of its deepest existing ancestor with the rest
 * appended lexically when it does not exist (Python's Path.resolve()). */
char *agents_unix_local_resolve_path (const char *path);

/* The extra path grants of @manifest with their paths resolved, parents
 * before the paths nested in them. A grant resolving to "/" is an
 * INVALID_ARGUMENT error. Returns a GPtrArray of AgentsUnixLocalGrant. */
GPtrArray *agents_unix_local_extra_path_grant_roots (AgentsManifest *manifest,
                                                     GError **error);
GPtrArray *
agents_unix_local_darwin_extra_path_grant_roots (AgentsManifest *manifest,
                                                 GError **error);

/* ---- policy --------------------------------------------------------- */

/* The host identity confined commands run as when the library runs as
 * root: a root-owned file is then someone else's file to them, whatever
 * the mount layout shows. nobody/nogroup unless configured. */
#define AGENTS_UNIX_LOCAL_DEFAULT_SANDBOX_UID 65534
#define AGENTS_UNIX_LOCAL_DEFAULT_SANDBOX_GID 65534

/* Per-command resource limits; 0 is "no limit". */
typedef struct
{
  guint64 processes;   /* RLIMIT_NPROC of the sandbox uid */
  guint64 memory;      /* bytes: RLIMIT_DATA, and the size of /tmp */
  guint64 cpu_seconds; /* RLIMIT_CPU of each process */
} AgentsUnixLocalLimits;

#define AGENTS_UNIX_LOCAL_DEFAULT_PROCESSES 512
/* The default memory limit: half the host's RAM, at most 8 GiB. */
guint64 agents_unix_local_default_memory_limit (void);
void agents_unix_local_limits_init_default (AgentsUnixLocalLimits *limits);

/* What one confined command may touch. */
typedef struct
{
  char *workspace_root; /* resolved, absolute */
  GPtrArray *grants;    /* AgentsUnixLocalGrant, parents first */
  gboolean network;
  char *host_tmp_dir; /* private temp dir on the host (landlock, none) */
  GHashTable *env;    /* manifest environment: name → value */
  /* When set (the default when the process runs as root), confined
   * commands run as sandbox_uid/sandbox_gid with no supplementary
   * groups; the workspace, the writable grants and host_tmp_dir must
   * have been handed over to that uid (agents_unix_local_hand_over()). */
  gboolean drop_privileges;
  guint32 sandbox_uid;
  guint32 sandbox_gid;
  AgentsUnixLocalLimits limits;
  /* Where the command is put before it runs; not owned, may be NULL. */
  struct _AgentsUnixLocalCgroup *cgroup;
  GPtrArray *binds; /* AgentsHostBind: host dirs shown inside (bwrap) */
  /* The slave of a PTY to run the command on (stdin, stdout and stderr,
   * and its controlling terminal), or -1 for /dev/null and pipes. Not
   * owned. */
  int tty_fd;
} AgentsUnixLocalPolicy;

AgentsUnixLocalPolicy *agents_unix_local_policy_new (const char *workspace_root,
                                                     GPtrArray *grants,
                                                     gboolean network);
void agents_unix_local_policy_free (AgentsUnixLocalPolicy *policy);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AgentsUnixLocalPolicy,
                               agents_unix_local_policy_free)

/* The paths a command writes to: the workspace, the writable grants
 * and the host temp dir, as a NULL-terminated array. */
char **
agents_unix_local_policy_writable_paths (const AgentsUnixLocalPolicy *policy);

/* Hands the trees at @paths over to @uid:@gid (every entry not already
 * theirs; symlinks are not followed, other file systems not entered,
 * files with several links left alone, since they may be linked from
 * outside). Blocking. */
gboolean agents_unix_local_hand_over (const char *const *paths,
                                      guint32 uid,
                                      guint32 gid,
                                      GError **error);

/* Gives what @uid owns in the trees at @paths back to the calling
 * process's uid and gid, and clears the set-user-ID and set-group-ID
 * bits of every regular file @uid owned. Blocking. */
gboolean agents_unix_local_hand_back (const char *const *paths,
                                      guint32 uid,
                                      GError **error);

/* The non-interactive environment of a command, `NAME=value` strings:
 * PATH, HOME (the workspace), TMPDIR (@tmp_dir), LANG, TERM, PAGER, …,
 * with the manifest environment on top. */
char **agents_unix_local_confine_environ (const AgentsUnixLocalPolicy *policy,
                                          const char *tmp_dir);

/* ---- probing -------------------------------------------------------- */

/* Looks @name up in @path (a PATH value; NULL for the process's PATH),
 * like Python's shutil.which(). Returns a new string or NULL. */
typedef char *(*AgentsUnixLocalWhichFunc) (const char *name,
                                           const char *path,
                                           gpointer user_data);

char *agents_unix_local_which (const char *name,
                               const char *path,
                               gpointer user_data);

/* Test hook: pretend to run on @platform ("linux", "darwin", …; NULL for
 * the real one), look programs up with @which (NULL for the real lookup),
 * and report Landlock ABI @landlock_abi (negative: ask the kernel; 0:
 * unavailable). Resets the cached probe. Pass NULL to undo. */
typedef struct
{
  const char *platform;
  AgentsUnixLocalWhichFunc which;
  gpointer which_data;
  int landlock_abi;
} AgentsUnixLocalProbeOverride;

void agents_unix_local_confine_set_probe_override (
  const AgentsUnixLocalProbeOverride *override);

const char *agents_unix_local_confine_get_platform (void);

/* What the once-per-process probe found. */
typedef struct
{
  char *platform;
  char *bwrap_path;  /* usable bwrap, or NULL */
  char *bwrap_error; /* why not */
  int landlock_abi;
  char *landlock_error;
  char *sandbox_exec_path; /* darwin */
  /* setsid(1), with which a command on a PTY takes the PTY as its
   * controlling terminal inside bwrap's pid namespace; or NULL */
  char *setsid_path;
} AgentsUnixLocalProbe;

/* Probes once per process (blocking: runs `bwrap … true` and a confined
 * `true`); later calls return the cached result. Thread-safe. */
const AgentsUnixLocalProbe *agents_unix_local_confine_probe (void);
/* The cached probe, or NULL when no probe ran yet; never blocks. */
const AgentsUnixLocalProbe *agents_unix_local_confine_probe_peek (void);
void agents_unix_local_confine_probe_async (GCancellable *cancellable,
                                            GAsyncReadyCallback callback,
                                            gpointer user_data);
const AgentsUnixLocalProbe *
agents_unix_local_confine_probe_finish (GAsyncResult *result, GError **error);

/* Picks the mechanism for @requested given @probe. When none is usable
 * this is an EXEC_TRANSPORT error with reason
 * AGENTS_UNIX_LOCAL_CONFINEMENT_UNAVAILABLE that names the failing step;
 * @argv goes into its context. */
gboolean agents_unix_local_confine_select (const AgentsUnixLocalProbe *probe,
                                           AgentsUnixLocalConfinement requested,
                                           const char *const *argv,
                                           AgentsUnixLocalConfinement *selected,
                                           GError **error);

/* ---- bubblewrap ----------------------------------------------------- */

/* Where the private temp dir lives inside the bwrap sandbox. */
const char *
agents_unix_local_bwrap_tmp_dir (const AgentsUnixLocalPolicy *policy);

/* The full argv running @argv under bwrap at @bwrap_path. */
char **agents_unix_local_bwrap_argv (const AgentsUnixLocalPolicy *policy,
                                     const char *bwrap_path,
                                     const char *const *argv);

/* The same; a command on a PTY (@policy's tty_fd set) is started by
 * @setsid_path (the probe's), when not NULL, so that the PTY becomes its
 * controlling terminal inside the sandbox. */
char **agents_unix_local_bwrap_argv_full (const AgentsUnixLocalPolicy *policy,
                                          const char *bwrap_path,
                                          const char *setsid_path,
                                          const char *const *argv);

/* ---- Landlock ------------------------------------------------------- */

/* The kernel's Landlock ABI version, 0 when unavailable. */
int agents_unix_local_landlock_abi (void);

/* Builds a Landlock ruleset fd (O_CLOEXEC) for @policy at @abi. */
int agents_unix_local_landlock_ruleset (const AgentsUnixLocalPolicy *policy,
                                        int abi,
                                        GError **error);

/* ---- cgroups -------------------------------------------------------- */

/* A cgroup (v1 pids and memory controllers) holding one command and all
 * it starts, with the processes and memory limits of @limits. */
typedef struct _AgentsUnixLocalCgroup AgentsUnixLocalCgroup;

/* Makes one under the cgroups of the calling process, or returns NULL
 * with an error saying why none can be made (no cgroup v1 hierarchy
 * with these controllers, no permission). Blocking, but short. */
AgentsUnixLocalCgroup *
agents_unix_local_cgroup_new (const AgentsUnixLocalLimits *limits,
                              GError **error);

/* The directories of the cgroup, NULL-terminated. */
const char *const *
agents_unix_local_cgroup_get_paths (AgentsUnixLocalCgroup *cgroup);

/* Sends SIGKILL to every process in the cgroup now, and removes the
 * cgroup if that leaves it empty at once; FALSE when it is still there
 * (agents_unix_local_cgroup_free() waits and removes it). */
gboolean agents_unix_local_cgroup_kill (AgentsUnixLocalCgroup *cgroup);

/* Kills every process left in the cgroup, waits until they are gone and
 * removes it. Blocking. */
void agents_unix_local_cgroup_free (AgentsUnixLocalCgroup *cgroup);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AgentsUnixLocalCgroup,
                               agents_unix_local_cgroup_free)

/* ---- spawning ------------------------------------------------------- */

/* Spawns @argv confined by @mechanism under @policy, in the workspace,
 * with stdin from /dev/null and stdout/stderr piped (or all three on
 * policy->tty_fd, its controlling terminal), in its own session
 * (so its process group id is its pid), dying with the calling thread.
 * Must be called on a long-lived thread. */
GSubprocess *
agents_unix_local_confine_spawn (const AgentsUnixLocalProbe *probe,
                                 AgentsUnixLocalConfinement mechanism,
                                 const AgentsUnixLocalPolicy *policy,
                                 const char *const *argv,
                                 GError **error);

/* A process spawned by agents_unix_local_confine_spawn_child(), not
 * reaped yet: the caller waits for it (through @pidfd when the kernel
 * gave one). */
typedef struct
{
  GPid pid;
  int pidfd;     /* -1 without pidfd_open() */
  int stdout_fd; /* the read ends of its pipes; -1 on a PTY */
  int stderr_fd;
} AgentsUnixLocalChild;

/* What one session keeps between its commands: the bwrap arguments and
 * the Landlock ruleset of its policy (a ruleset only when it holds for
 * later commands too). They are rebuilt whenever the mechanism, the
 * probe or the paths, grants and network of the policy change. Used from
 * one thread at a time. */
typedef struct _AgentsUnixLocalSpawnCache AgentsUnixLocalSpawnCache;

AgentsUnixLocalSpawnCache *agents_unix_local_spawn_cache_new (void);
void agents_unix_local_spawn_cache_free (AgentsUnixLocalSpawnCache *cache);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AgentsUnixLocalSpawnCache,
                               agents_unix_local_spawn_cache_free)

/* agents_unix_local_confine_spawn() with what @cache (may be NULL) holds
 * for @policy. */
GSubprocess *
agents_unix_local_confine_spawn_cached (const AgentsUnixLocalProbe *probe,
                                        AgentsUnixLocalConfinement mechanism,
                                        const AgentsUnixLocalPolicy *policy,
                                        AgentsUnixLocalSpawnCache *cache,
                                        const char *const *argv,
                                        GError **error);

/* agents_unix_local_confine_spawn_cached() without GSubprocess: the
 * command is spawned without copying the caller (no fork) and @child
 * says how to watch it. Linux only. */
gboolean
agents_unix_local_confine_spawn_child (const AgentsUnixLocalProbe *probe,
                                       AgentsUnixLocalConfinement mechanism,
                                       const AgentsUnixLocalPolicy *policy,
                                       AgentsUnixLocalSpawnCache *cache,
                                       const char *const *argv,
                                       AgentsUnixLocalChild *child,
                                       GError **error);

/* ---- macOS ---------------------------------------------------------- */

/* The sandbox-exec profile confining a command to @workspace_root and
 * @grants (AgentsUnixLocalGrant, may be NULL), with read access to the
 * interpreter roots in @read_roots (may be NULL). */
char *agents_unix_local_darwin_exec_profile (const char *workspace_root,
                                             GPtrArray *grants,
                                             const char *const *read_roots,
                                             gboolean network);

/* The interpreter roots (/opt/homebrew, /usr/local, ~/.local) that the
 * entries of @path_env and @resolved_program lie under. */
char **
agents_unix_local_darwin_interpreter_roots (const char *path_env,
                                            const char *resolved_program);

/* The confined command: ["/usr/bin/sandbox-exec", "-p", PROFILE, argv…]
 * on darwin, @argv as is on linux; an EXEC_TRANSPORT error with reason
 * AGENTS_UNIX_LOCAL_CONFINEMENT_UNAVAILABLE when sandbox-exec is missing
 * or the platform is unknown. @which looks programs up; @env_path is the
 * command's PATH. */
char **agents_unix_local_confined_exec_command (const char *platform,
                                                AgentsUnixLocalWhichFunc which,
                                                gpointer which_data,
                                                const char *const *argv,
                                                const char *workspace_root,
                                                GPtrArray *grants,
                                                const char *env_path,
                                                gboolean network,
                                                GError **error);

G_END_DECLS
