/* agents-unix-local-session-private.h - what the files of a unix_local
 * session share
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The session is split by responsibility: agents-unix-local-session.c
 * (options, lifecycle, persist and hydrate), -session-state.c (its
 * state), -session-files.c (file operations) and -session-exec.c
 * (commands and processes).
 */

#pragma once

#include "agents-sandbox-session-private.h"
#include "agents-unix-local-confine.h"
#include "agents-unix-local-session.h"

G_BEGIN_DECLS

/**
 * AgentsUnixLocalSession:
 *
 * A session whose workspace is a directory of the host and whose
 * commands run as confined host processes.
 */
struct _AgentsUnixLocalSession
{
  AgentsSandboxSessionBase parent_instance;

  AgentsUnixLocalConfinement confinement;
  gboolean network;
  GError *options_error;
  char *host_tmp_dir;
  GPtrArray *running; /* ExecOp, unowned */
  gsize output_limit;
  AgentsUnixLocalSpawnCache *spawn_cache;
  guint32 sandbox_uid;
  guint32 sandbox_gid;
  AgentsUnixLocalLimits limits;
  /* The library wrote into the workspace since it was last handed over
   * to the sandbox uid (atomic: set from worker threads). */
  gint handover_pending;
  gboolean handed_over; /* hand it back at shutdown */
};

/* ---- agents-unix-local-session.c ------------------------------------ */

AgentsManifest *
agents_unix_local_session_manifest (AgentsUnixLocalSession *self);
char *agents_unix_local_session_root (AgentsUnixLocalSession *self);
void
agents_unix_local_session_remove_host_tmp_dir (AgentsUnixLocalSession *self);
gboolean
agents_unix_local_session_return_options_error (AgentsUnixLocalSession *self,
                                                GTask *task);
void
agents_unix_local_session_mark_handover_pending (AgentsUnixLocalSession *self);

/* ---- agents-unix-local-session-files.c ------------------------------ */

gboolean agents_unix_local_session_is_at_or_under (const char *path,
                                                   const char *dir);
void agents_unix_local_session_read (AgentsSandboxSession *session,
                                     const char *path,
                                     const char *user,
                                     GTask *task);
void agents_unix_local_session_write (AgentsSandboxSession *session,
                                      const char *path,
                                      GInputStream *data,
                                      const char *user,
                                      GTask *task);
void
agents_unix_local_session_validate_path_access (AgentsSandboxSession *session,
                                                const char *path,
                                                gboolean for_write,
                                                GTask *task);
void agents_unix_local_session_ls (AgentsSandboxSession *session,
                                   const char *path,
                                   GTask *task);
void agents_unix_local_session_mkdir (AgentsSandboxSession *session,
                                      const char *path,
                                      gboolean parents,
                                      GTask *task);
void agents_unix_local_session_rm (AgentsSandboxSession *session,
                                   const char *path,
                                   gboolean recursive,
                                   GTask *task);

/* ---- agents-unix-local-session-exec.c ------------------------------- */

void agents_unix_local_session_exec (AgentsSandboxSessionBase *base,
                                     const char *const *argv,
                                     double timeout,
                                     GTask *task);
void agents_unix_local_session_start_process (AgentsSandboxSession *session,
                                              const char *const *argv,
                                              gboolean tty,
                                              GTask *task);

G_END_DECLS
