/* agents-host-bind-private.h - host directories shown inside a sandbox
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A mount entry whose storage is mounted on the host (an S3 bucket
 * through FUSE) asks the session to show that host directory at the
 * mount path inside the sandbox. A backend that can (unix_local under
 * bubblewrap) says so with agents_sandbox_session_set_host_binds_supported()
 * and adds the binds to every command's view. Exported for the plugins,
 * which link the shared library, but not public API.
 */

#pragma once

#include "agents-sandbox-session.h"

G_BEGIN_DECLS

typedef struct
{
  char *host_path;    /* absolute, outside the workspace */
  char *sandbox_path; /* absolute, where commands see it */
  gboolean read_only;
} AgentsHostBind;

AGENTS_AVAILABLE_IN_1_0
AgentsHostBind *agents_host_bind_new (const char *host_path,
                                      const char *sandbox_path,
                                      gboolean read_only);
AGENTS_AVAILABLE_IN_1_0
AgentsHostBind *agents_host_bind_copy (const AgentsHostBind *bind);
AGENTS_AVAILABLE_IN_1_0
void agents_host_bind_free (AgentsHostBind *bind);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AgentsHostBind, agents_host_bind_free)

/* Whether @session shows host binds to its commands (FALSE unless the
 * backend said so). */
AGENTS_AVAILABLE_IN_1_0
gboolean
agents_sandbox_session_get_host_binds_supported (AgentsSandboxSession *session);
AGENTS_AVAILABLE_IN_1_0
void
agents_sandbox_session_set_host_binds_supported (AgentsSandboxSession *session,
                                                 gboolean supported);

/* Whether the sandbox paths of @session's binds name places in a
 * container, not on the host (docker): the mount code must then not
 * create them on the host. */
AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_session_get_host_binds_in_container (
  AgentsSandboxSession *session);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_set_host_binds_in_container (
  AgentsSandboxSession *session, gboolean in_container);

/* Adds or replaces the bind at @bind->sandbox_path (takes a copy). */
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_add_host_bind (AgentsSandboxSession *session,
                                           const AgentsHostBind *bind);
/* Removes the bind at @sandbox_path; FALSE when there was none. */
AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_session_remove_host_bind (AgentsSandboxSession *session,
                                                  const char *sandbox_path);
/* A copy of the bind at @sandbox_path, or NULL. */
AGENTS_AVAILABLE_IN_1_0
AgentsHostBind *
agents_sandbox_session_lookup_host_bind (AgentsSandboxSession *session,
                                         const char *sandbox_path);
/* Copies of every bind (AgentsHostBind), shallowest sandbox path first. */
AGENTS_AVAILABLE_IN_1_0
GPtrArray *
agents_sandbox_session_dup_host_binds (AgentsSandboxSession *session);

/* ---- directories the library owns for host mounts ------------------ */

/* <user runtime dir>/agents-1.0/mounts: one 0700 directory per mount,
 * each with an `owner` file naming the process that made it. */
AGENTS_AVAILABLE_IN_1_0
char *agents_host_mounts_dir (void);

/* Creates a fresh 0700 directory under agents_host_mounts_dir() named
 * after @prefix, owned by this process. */
AGENTS_AVAILABLE_IN_1_0
char *agents_host_mount_dir_new (const char *prefix, GError **error);

/* Creates the 0711 directory `PREFIX-NAME` under agents_host_mounts_dir(),
 * owned by this process: the same path every time, so that a container
 * configured with it can be used again. What a dead process left there
 * is unmounted and removed first; a live one's is an error. */
AGENTS_AVAILABLE_IN_1_0
char *agents_host_mount_dir_new_named (const char *prefix,
                                       const char *name,
                                       GError **error);

/* Unmounts and removes the directories of processes that are gone (of
 * every process with @all). A directory whose mount cannot be unmounted
 * stays. Blocking. Returns the number removed. */
AGENTS_AVAILABLE_IN_1_0
gssize agents_host_mounts_reap (gboolean all, GError **error);

/* Removes @dir without crossing into another file system: whatever is
 * still mounted below it keeps its contents. */
AGENTS_AVAILABLE_IN_1_0
void agents_host_mount_dir_remove (const char *dir);

G_END_DECLS
