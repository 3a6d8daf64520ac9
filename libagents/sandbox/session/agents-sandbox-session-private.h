/* agents-sandbox-session-private.h - internals of the session layer
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-sandbox-session-base.h"
#include "agents-sandbox-session.h"

G_BEGIN_DECLS

/* What the library keeps per session: in the instance of a session
 * derived from AgentsSandboxSessionBase, as qdata for other
 * implementations of the interface. */
typedef struct
{
  AgentsSandboxSessionState *state;
  AgentsConcurrencyLimits concurrency;
  AgentsArchiveLimits *archive_limits;
  gboolean workspace_preserved;
  gboolean system_preserved;
  gboolean restore_pending; /* cleared for a snapshot, not yet hydrated */
  AgentsDependencies *dependencies; /* handed to the snapshot */
  GPtrArray
    *pre_stop_hooks; /* not run yet (agents-sandbox-session-pre-stop.c) */
  guint last_pre_stop_hook_id;
} AgentsSandboxSessionData;

void agents_sandbox_session_data_init (AgentsSandboxSessionData *data);

/* The state the session keeps (transfer none), for the library's own
 * callers; agents_sandbox_session_get_state() returns a reference. */
AgentsSandboxSessionState *
agents_sandbox_session_peek_state (AgentsSandboxSession *self);
void agents_sandbox_session_data_clear (AgentsSandboxSessionData *data);
AgentsSandboxSessionData *
agents_sandbox_session_base_get_data (AgentsSandboxSessionBase *self);
/* The data of any session, made on first use. */
AgentsSandboxSessionData *
agents_sandbox_session_get_data (AgentsSandboxSession *self);
void agents_sandbox_session_data_clear_pre_stop_hooks (
  AgentsSandboxSessionData *data);

void agents_sandbox_session_report_progress (AgentsSandboxSession *self,
                                             const char *operation,
                                             gint64 done,
                                             gint64 total);

/* Default implementations of the generic operations
 * (agents-sandbox-session-generic.c). */
void agents_sandbox_session_real_start (AgentsSandboxSession *self,
                                        GTask *task);
void agents_sandbox_session_real_stop (AgentsSandboxSession *self, GTask *task);
void agents_sandbox_session_real_ls (AgentsSandboxSession *self,
                                     const char *path,
                                     GTask *task);
void agents_sandbox_session_real_mkdir (AgentsSandboxSession *self,
                                        const char *path,
                                        gboolean parents,
                                        GTask *task);
void agents_sandbox_session_real_rm (AgentsSandboxSession *self,
                                     const char *path,
                                     gboolean recursive,
                                     GTask *task);
/* Object data on an extract's task: the call's AgentsArchiveLimits. */
#define AGENTS_EXTRACT_LIMITS_KEY "agents-extract-limits"

void agents_sandbox_session_real_extract (AgentsSandboxSession *self,
                                          const char *path,
                                          GInputStream *data,
                                          AgentsCompressionScheme scheme,
                                          GTask *task);
void agents_sandbox_session_real_apply_manifest (AgentsSandboxSession *self,
                                                 gboolean only_ephemeral,
                                                 GTask *task);
void agents_sandbox_session_real_apply_entry_batch (AgentsSandboxSession *self,
                                                    GPtrArray *targets,
                                                    const char *base_dir,
                                                    GTask *task);
void
agents_sandbox_session_real_validate_path_access (AgentsSandboxSession *self,
                                                  const char *path,
                                                  gboolean for_write,
                                                  GTask *task);
void agents_sandbox_session_real_ensure_runtime_helper_installed (
  AgentsSandboxSession *self, AgentsRuntimeHelper *helper, GTask *task);
void agents_sandbox_session_real_clear_workspace_root_on_resume (
  AgentsSandboxSession *self, GTask *task);

/* Runs argv through the exec vfunc and turns a non-zero exit into an
 * ExecNonZero error; the task returns the AgentsExecResult. */
void agents_sandbox_session_exec_checked_async (AgentsSandboxSession *self,
                                                const char *const *argv,
                                                GCancellable *cancellable,
                                                GAsyncReadyCallback callback,
                                                gpointer user_data);
AgentsExecResult *agents_sandbox_session_exec_checked_finish (
  AgentsSandboxSession *self, GAsyncResult *result, GError **error);

/* The manifest's users, including members of its groups, by name, once. */
GPtrArray *agents_sandbox_session_collect_users (AgentsManifest *manifest);

/* Kept for the plugins' older callers; see agents_manifest_get_mount_paths().
 */
static inline GPtrArray *
agents_sandbox_session_mount_skip_paths (AgentsManifest *manifest)
{
  return agents_manifest_get_mount_paths (manifest);
}

G_END_DECLS
