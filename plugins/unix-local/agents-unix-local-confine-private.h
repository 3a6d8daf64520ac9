/* agents-unix-local-confine-private.h - what the confinement files share
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Confinement is one file per mechanism: the policy, bubblewrap, spawning
 * and probing (agents-unix-local-confine.c), Landlock
 * (agents-unix-local-landlock.c), seccomp (agents-unix-local-seccomp.c),
 * cgroups (agents-unix-local-cgroup.c) and the macOS profile
 * (agents-unix-local-macos.c).
 */

#pragma once

#include "agents-unix-local-confine.h"

G_BEGIN_DECLS

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

/* Sets the "confinement unavailable" transport error for @argv. */
void agents_unix_local_set_unavailable (GError **error,
                                        const char *const *argv,
                                        const char *requested,
                                        const char *detail);

/* The secrets of /etc that commands must not read. */
GPtrArray *agents_unix_local_etc_secrets (void);

/* A cgroup per command (agents-unix-local-cgroup.c); spawning writes the
 * child into @procs. */
struct _AgentsUnixLocalCgroup
{
  char **paths; /* one directory per controller */
  int *procs;   /* their cgroup.procs, open for writing */
};

#ifdef __linux__
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
