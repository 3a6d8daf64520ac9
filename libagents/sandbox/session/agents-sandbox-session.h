/* agents-sandbox-session.h - the sandbox session contract
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include <gio/gio.h>

#include "sandbox/manifest/agents-manifest.h"
#include "agents-runtime-helper.h"
#include "agents-sandbox-session-state.h"
#include "sandbox/common/agents-sandbox-types.h"

G_BEGIN_DECLS

#define AGENTS_TYPE_SANDBOX_SESSION (agents_sandbox_session_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_INTERFACE (AgentsSandboxSession,
                     agents_sandbox_session,
                     AGENTS,
                     SANDBOX_SESSION,
                     GObject)

/**
 * AgentsSandboxSessionInterface:
 * @get_state: returns a new reference to the state the session keeps
 *   (manifest, snapshot, id); the default returns the state given to
 *   agents_sandbox_session_set_state()
 * @start: starts the session; the default prepares the workspace, see
 *   agents_sandbox_session_prepare_workspace_async(); the task returns a
 *   boolean
 * @stop: stops the session, persisting the workspace; the default persists
 *   the workspace into the state's snapshot; the task returns a boolean
 * @shutdown: tears the session's backend down; the task returns a boolean
 * @running: whether the backend is running; the task returns a boolean
 * @close_dependencies: releases what the session holds besides its
 *   backend; the task returns a boolean
 * @exec: runs @argv as is, without shell wrapping or user switching;
 *   @timeout is in seconds, 0 or less for none; the task returns an
 *   #AgentsExecResult
 * @read: opens a file of the workspace; the task returns a #GInputStream
 * @write: writes @data to a file of the workspace; the task returns a
 *   boolean
 * @persist_workspace: archives the workspace as a tar stream; the task
 *   returns a #GInputStream
 * @hydrate_workspace: fills the workspace from a tar stream; the task
 *   returns a boolean
 * @ls: lists a directory; the task returns a #GListModel of
 *   #AgentsFileEntry
 * @mkdir: creates a directory; the task returns a boolean
 * @rm: removes a path; the task returns a boolean
 * @extract: writes an archive to a path and extracts it beside it; the
 *   task returns a boolean
 * @apply_manifest: provisions accounts and materializes entries; the task
 *   returns a #GPtrArray of #AgentsMaterializedFile
 * @apply_entry_batch: materializes one batch of entries concurrently; the
 *   task returns a #GPtrArray of #AgentsMaterializedFile
 * @validate_path_access: checks that a path stays in the workspace (or a
 *   grant) and returns it normalized and absolute; the task returns a
 *   string
 * @ensure_runtime_helper_installed: installs a runtime helper if it is
 *   missing or was altered; the task returns the installed path
 * @clear_workspace_root_on_resume: empties the workspace before it is
 *   hydrated, keeping mounts; the task returns a boolean
 * @set_concurrency_limits: receives the run's concurrency limits
 * @set_archive_limits: receives the run's archive limits (%NULL for none)
 * @supports_pty: whether @start_process is implemented; the default says
 *   whether the implementation overrides it
 * @start_process: starts @argv (run as is) in the sandbox, on a new PTY
 *   when @tty is set, else with its output piped, and returns at once; the
 *   task returns an #AgentsSandboxProcess. The default fails with
 *   %AGENTS_SANDBOX_ERROR_NOT_SUPPORTED
 * @validate_manifest_application: refuses @manifest before any of it is
 *   materialized (@session_running: into a session that already runs, as
 *   a delta); synchronous, it must not block. The default checks the
 *   mount credential boundary
 *   (agents_manifest_acknowledge_mount_credential_exposure())
 *
 * The contract of a sandbox backend's session. A backend implements the
 * primitives (@get_state, @exec, @read, @write, @running,
 * @persist_workspace, @hydrate_workspace and the lifecycle); every other
 * operation has a generic implementation written over those primitives,
 * which an implementation may override.
 *
 * Vfuncs take the #GTask that the public `_async` function created and
 * must complete it; they are called on the thread of the task's main
 * context. A vfunc that returns "a boolean" completes the task with
 * g_task_return_boolean() (`task.return_boolean(True)` from Python).
 */
struct _AgentsSandboxSessionInterface
{
  GTypeInterface g_iface;

  AgentsSandboxSessionState *(*get_state) (AgentsSandboxSession *self);

  void (*start) (AgentsSandboxSession *self, GTask *task);
  void (*stop) (AgentsSandboxSession *self, GTask *task);
  void (*shutdown) (AgentsSandboxSession *self, GTask *task);
  void (*running) (AgentsSandboxSession *self, GTask *task);
  void (*close_dependencies) (AgentsSandboxSession *self, GTask *task);

  void (*exec) (AgentsSandboxSession *self,
                const char *const *argv,
                double timeout,
                GTask *task);
  void (*read) (AgentsSandboxSession *self,
                const char *path,
                const char *user,
                GTask *task);
  void (*write) (AgentsSandboxSession *self,
                 const char *path,
                 GInputStream *data,
                 const char *user,
                 GTask *task);
  void (*persist_workspace) (AgentsSandboxSession *self, GTask *task);
  void (*hydrate_workspace) (AgentsSandboxSession *self,
                             GInputStream *data,
                             GTask *task);

  void (*ls) (AgentsSandboxSession *self, const char *path, GTask *task);
  void (*mkdir) (AgentsSandboxSession *self,
                 const char *path,
                 gboolean parents,
                 GTask *task);
  void (*rm) (AgentsSandboxSession *self,
              const char *path,
              gboolean recursive,
              GTask *task);
  void (*extract) (AgentsSandboxSession *self,
                   const char *path,
                   GInputStream *data,
                   AgentsCompressionScheme scheme,
                   GTask *task);
  void (*apply_manifest) (AgentsSandboxSession *self,
                          gboolean only_ephemeral,
                          GTask *task);
  void (*apply_entry_batch) (AgentsSandboxSession *self,
                             GPtrArray *targets,
                             const char *base_dir,
                             GTask *task);
  void (*validate_path_access) (AgentsSandboxSession *self,
                                const char *path,
                                gboolean for_write,
                                GTask *task);
  void (*ensure_runtime_helper_installed) (AgentsSandboxSession *self,
                                           AgentsRuntimeHelper *helper,
                                           GTask *task);
  void (*clear_workspace_root_on_resume) (AgentsSandboxSession *self,
                                          GTask *task);
  void (*set_concurrency_limits) (AgentsSandboxSession *self,
                                  const AgentsConcurrencyLimits *limits);
  void (*set_archive_limits) (AgentsSandboxSession *self,
                              const AgentsArchiveLimits *limits);
  gboolean (*supports_pty) (AgentsSandboxSession *self);
  void (*start_process) (AgentsSandboxSession *self,
                         const char *const *argv,
                         gboolean tty,
                         GTask *task);
  gboolean (*validate_manifest_application) (AgentsSandboxSession *self,
                                             AgentsManifest *manifest,
                                             gboolean session_running,
                                             GError **error);

  /*< private >*/
  gpointer padding[13];
};

AGENTS_AVAILABLE_IN_1_0
AgentsSandboxSessionState *agents_sandbox_session_get_state (
  AgentsSandboxSession *self) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_set_state (AgentsSandboxSession *self,
                                       AgentsSandboxSessionState *state);
AGENTS_AVAILABLE_IN_1_0
AgentsManifest *
agents_sandbox_session_get_manifest (AgentsSandboxSession *self);

AGENTS_AVAILABLE_IN_1_0
void agents_task_return_object (GTask *task, gpointer object);
AGENTS_AVAILABLE_IN_1_0
void agents_task_return_string (GTask *task, const char *string);

AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_start_async (AgentsSandboxSession *self,
                                         GCancellable *cancellable,
                                         GAsyncReadyCallback callback,
                                         gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_session_start_finish (AgentsSandboxSession *self,
                                              GAsyncResult *result,
                                              GError **error);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_stop_async (AgentsSandboxSession *self,
                                        GCancellable *cancellable,
                                        GAsyncReadyCallback callback,
                                        gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_session_stop_finish (AgentsSandboxSession *self,
                                             GAsyncResult *result,
                                             GError **error);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_shutdown_async (AgentsSandboxSession *self,
                                            GCancellable *cancellable,
                                            GAsyncReadyCallback callback,
                                            gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_session_shutdown_finish (AgentsSandboxSession *self,
                                                 GAsyncResult *result,
                                                 GError **error);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_running_async (AgentsSandboxSession *self,
                                           GCancellable *cancellable,
                                           GAsyncReadyCallback callback,
                                           gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_session_running_finish (AgentsSandboxSession *self,
                                                GAsyncResult *result,
                                                GError **error);
AGENTS_AVAILABLE_IN_1_0
void
agents_sandbox_session_close_dependencies_async (AgentsSandboxSession *self,
                                                 GCancellable *cancellable,
                                                 GAsyncReadyCallback callback,
                                                 gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_session_close_dependencies_finish (
  AgentsSandboxSession *self, GAsyncResult *result, GError **error);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_close_async (AgentsSandboxSession *self,
                                         GCancellable *cancellable,
                                         GAsyncReadyCallback callback,
                                         gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_session_close_finish (AgentsSandboxSession *self,
                                              GAsyncResult *result,
                                              GError **error);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_session_validate_manifest_application (
  AgentsSandboxSession *self,
  AgentsManifest *manifest,
  gboolean session_running,
  GError **error);

typedef void (*AgentsSandboxPreStopHook) (AgentsSandboxSession *session,
                                          GTask *task,
                                          gpointer user_data);

AGENTS_AVAILABLE_IN_1_0
guint agents_sandbox_session_add_pre_stop_hook (AgentsSandboxSession *self,
                                                AgentsSandboxPreStopHook hook,
                                                gpointer user_data,
                                                GDestroyNotify destroy);
AGENTS_AVAILABLE_IN_1_0
gboolean
agents_sandbox_session_remove_pre_stop_hook (AgentsSandboxSession *self,
                                             guint hook_id);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_session_has_pre_stop_hooks (AgentsSandboxSession *self);
AGENTS_AVAILABLE_IN_1_0
void
agents_sandbox_session_run_pre_stop_hooks_async (AgentsSandboxSession *self,
                                                 GCancellable *cancellable,
                                                 GAsyncReadyCallback callback,
                                                 gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_session_run_pre_stop_hooks_finish (
  AgentsSandboxSession *self, GAsyncResult *result, GError **error);
AGENTS_AVAILABLE_IN_1_0
void
agents_sandbox_session_prepare_workspace_async (AgentsSandboxSession *self,
                                                GCancellable *cancellable,
                                                GAsyncReadyCallback callback,
                                                gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_session_prepare_workspace_finish (
  AgentsSandboxSession *self, GAsyncResult *result, GError **error);
AGENTS_AVAILABLE_IN_1_0
void
agents_sandbox_session_persist_to_snapshot_async (AgentsSandboxSession *self,
                                                  GCancellable *cancellable,
                                                  GAsyncReadyCallback callback,
                                                  gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_session_persist_to_snapshot_finish (
  AgentsSandboxSession *self, GAsyncResult *result, GError **error);

AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_exec_async (AgentsSandboxSession *self,
                                        const char *const *command,
                                        double timeout,
                                        gboolean shell,
                                        const char *user,
                                        GCancellable *cancellable,
                                        GAsyncReadyCallback callback,
                                        gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
AgentsExecResult *agents_sandbox_session_exec_finish (
  AgentsSandboxSession *self, GAsyncResult *result, GError **error);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_exec_raw_async (AgentsSandboxSession *self,
                                            const char *const *argv,
                                            double timeout,
                                            GCancellable *cancellable,
                                            GAsyncReadyCallback callback,
                                            gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
AgentsExecResult *agents_sandbox_session_exec_raw_finish (
  AgentsSandboxSession *self, GAsyncResult *result, GError **error);
AGENTS_AVAILABLE_IN_1_0
char **agents_sandbox_session_build_command (AgentsSandboxSession *self,
                                             const char *const *command,
                                             gboolean shell,
                                             const char *user);

AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_read_async (AgentsSandboxSession *self,
                                        const char *path,
                                        const char *user,
                                        GCancellable *cancellable,
                                        GAsyncReadyCallback callback,
                                        gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
GInputStream *agents_sandbox_session_read_finish (AgentsSandboxSession *self,
                                                  GAsyncResult *result,
                                                  GError **error);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_read_bytes_async (AgentsSandboxSession *self,
                                              const char *path,
                                              const char *user,
                                              GCancellable *cancellable,
                                              GAsyncReadyCallback callback,
                                              gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
GBytes *agents_sandbox_session_read_bytes_finish (AgentsSandboxSession *self,
                                                  GAsyncResult *result,
                                                  GError **error);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_write_async (AgentsSandboxSession *self,
                                         const char *path,
                                         GInputStream *data,
                                         const char *user,
                                         GCancellable *cancellable,
                                         GAsyncReadyCallback callback,
                                         gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_session_write_finish (AgentsSandboxSession *self,
                                              GAsyncResult *result,
                                              GError **error);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_write_bytes_async (AgentsSandboxSession *self,
                                               const char *path,
                                               GBytes *data,
                                               const char *user,
                                               GCancellable *cancellable,
                                               GAsyncReadyCallback callback,
                                               gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_session_write_bytes_finish (AgentsSandboxSession *self,
                                                    GAsyncResult *result,
                                                    GError **error);
AGENTS_AVAILABLE_IN_1_0
void
agents_sandbox_session_persist_workspace_async (AgentsSandboxSession *self,
                                                GCancellable *cancellable,
                                                GAsyncReadyCallback callback,
                                                gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
GInputStream *agents_sandbox_session_persist_workspace_finish (
  AgentsSandboxSession *self, GAsyncResult *result, GError **error);
AGENTS_AVAILABLE_IN_1_0
void
agents_sandbox_session_hydrate_workspace_async (AgentsSandboxSession *self,
                                                GInputStream *data,
                                                GCancellable *cancellable,
                                                GAsyncReadyCallback callback,
                                                gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_session_hydrate_workspace_finish (
  AgentsSandboxSession *self, GAsyncResult *result, GError **error);

AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_ls_async (AgentsSandboxSession *self,
                                      const char *path,
                                      GCancellable *cancellable,
                                      GAsyncReadyCallback callback,
                                      gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
GListModel *agents_sandbox_session_ls_finish (AgentsSandboxSession *self,
                                              GAsyncResult *result,
                                              GError **error);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_mkdir_async (AgentsSandboxSession *self,
                                         const char *path,
                                         gboolean parents,
                                         GCancellable *cancellable,
                                         GAsyncReadyCallback callback,
                                         gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_session_mkdir_finish (AgentsSandboxSession *self,
                                              GAsyncResult *result,
                                              GError **error);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_rm_async (AgentsSandboxSession *self,
                                      const char *path,
                                      gboolean recursive,
                                      GCancellable *cancellable,
                                      GAsyncReadyCallback callback,
                                      gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_session_rm_finish (AgentsSandboxSession *self,
                                           GAsyncResult *result,
                                           GError **error);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_extract_async (AgentsSandboxSession *self,
                                           const char *path,
                                           GInputStream *data,
                                           AgentsCompressionScheme scheme,
                                           GCancellable *cancellable,
                                           GAsyncReadyCallback callback,
                                           gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_extract_with_limits_async (
  AgentsSandboxSession *self,
  const char *path,
  GInputStream *data,
  AgentsCompressionScheme scheme,
  const AgentsArchiveLimits *limits,
  GCancellable *cancellable,
  GAsyncReadyCallback callback,
  gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_session_extract_finish (AgentsSandboxSession *self,
                                                GAsyncResult *result,
                                                GError **error);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_apply_manifest_async (AgentsSandboxSession *self,
                                                  gboolean only_ephemeral,
                                                  GCancellable *cancellable,
                                                  GAsyncReadyCallback callback,
                                                  gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
GPtrArray *agents_sandbox_session_apply_manifest_finish (
  AgentsSandboxSession *self, GAsyncResult *result, GError **error);
AGENTS_AVAILABLE_IN_1_0
void
agents_sandbox_session_apply_entry_batch_async (AgentsSandboxSession *self,
                                                GPtrArray *targets,
                                                const char *base_dir,
                                                GCancellable *cancellable,
                                                GAsyncReadyCallback callback,
                                                gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
GPtrArray *agents_sandbox_session_apply_entry_batch_finish (
  AgentsSandboxSession *self, GAsyncResult *result, GError **error);
AGENTS_AVAILABLE_IN_1_0
void
agents_sandbox_session_validate_path_access_async (AgentsSandboxSession *self,
                                                   const char *path,
                                                   gboolean for_write,
                                                   GCancellable *cancellable,
                                                   GAsyncReadyCallback callback,
                                                   gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
char *agents_sandbox_session_validate_path_access_finish (
  AgentsSandboxSession *self, GAsyncResult *result, GError **error);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_validate_remote_path_access_async (
  AgentsSandboxSession *self,
  const char *path,
  gboolean for_write,
  GCancellable *cancellable,
  GAsyncReadyCallback callback,
  gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
char *agents_sandbox_session_validate_remote_path_access_finish (
  AgentsSandboxSession *self, GAsyncResult *result, GError **error);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_ensure_runtime_helper_installed_async (
  AgentsSandboxSession *self,
  AgentsRuntimeHelper *helper,
  GCancellable *cancellable,
  GAsyncReadyCallback callback,
  gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
char *agents_sandbox_session_ensure_runtime_helper_installed_finish (
  AgentsSandboxSession *self, GAsyncResult *result, GError **error);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_clear_workspace_root_on_resume_async (
  AgentsSandboxSession *self,
  GCancellable *cancellable,
  GAsyncReadyCallback callback,
  gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_session_clear_workspace_root_on_resume_finish (
  AgentsSandboxSession *self, GAsyncResult *result, GError **error);

AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_set_concurrency_limits (
  AgentsSandboxSession *self, const AgentsConcurrencyLimits *limits);
AGENTS_AVAILABLE_IN_1_0
const AgentsConcurrencyLimits *
agents_sandbox_session_get_concurrency_limits (AgentsSandboxSession *self);
AGENTS_AVAILABLE_IN_1_0
void
agents_sandbox_session_set_archive_limits (AgentsSandboxSession *self,
                                           const AgentsArchiveLimits *limits);
AGENTS_AVAILABLE_IN_1_0
const AgentsArchiveLimits *
agents_sandbox_session_get_archive_limits (AgentsSandboxSession *self);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_set_dependencies (AgentsSandboxSession *self,
                                              AgentsDependencies *dependencies);
AGENTS_AVAILABLE_IN_1_0
AgentsDependencies *
agents_sandbox_session_get_dependencies (AgentsSandboxSession *self);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_set_start_state_preserved (
  AgentsSandboxSession *self, gboolean workspace, gboolean system);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_get_start_state_preserved (
  AgentsSandboxSession *self, gboolean *workspace, gboolean *system);

G_END_DECLS
