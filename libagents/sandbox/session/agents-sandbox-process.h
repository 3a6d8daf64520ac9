/* agents-sandbox-process.h - processes that outlive one call
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include <gio/gio.h>

#include "agents-sandbox-session.h"

G_BEGIN_DECLS

#define AGENTS_TYPE_SANDBOX_PROCESS (agents_sandbox_process_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_DERIVABLE_TYPE (AgentsSandboxProcess,
                          agents_sandbox_process,
                          AGENTS,
                          SANDBOX_PROCESS,
                          GObject)

/**
 * AgentsSandboxProcessClass:
 * @parent_class: the parent class
 * @write_stdin: writes @data to the process's input (its terminal, when
 *   it has one); the task returns a boolean
 * @terminate: kills the process and everything in its process group (or
 *   container exec); the backend reports the exit later with
 *   agents_sandbox_process_set_exit_status()
 *
 * The class a backend derives its running processes from. The backend
 * feeds what the process prints with agents_sandbox_process_push_output(),
 * says when its output ended with agents_sandbox_process_close_output()
 * and when it exited with agents_sandbox_process_set_exit_status(); the
 * base class collects the output for its readers.
 */
struct _AgentsSandboxProcessClass
{
  GObjectClass parent_class;

  void (*write_stdin) (AgentsSandboxProcess *self, GBytes *data, GTask *task);
  void (*terminate) (AgentsSandboxProcess *self);

  /*< private >*/
  gpointer padding[8];
};

AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_process_get_tty (AgentsSandboxProcess *self);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_process_has_exited (AgentsSandboxProcess *self);
AGENTS_AVAILABLE_IN_1_0
int agents_sandbox_process_get_exit_status (AgentsSandboxProcess *self);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_process_is_finished (AgentsSandboxProcess *self);

AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_process_push_output (AgentsSandboxProcess *self,
                                         GBytes *chunk);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_process_close_output (AgentsSandboxProcess *self);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_process_set_exit_status (AgentsSandboxProcess *self,
                                             int status);

AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_process_write_stdin_async (AgentsSandboxProcess *self,
                                               GBytes *data,
                                               GCancellable *cancellable,
                                               GAsyncReadyCallback callback,
                                               gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_process_write_stdin_finish (AgentsSandboxProcess *self,
                                                    GAsyncResult *result,
                                                    GError **error);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_process_terminate (AgentsSandboxProcess *self);

AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_process_collect_async (AgentsSandboxProcess *self,
                                           guint timeout_ms,
                                           GCancellable *cancellable,
                                           GAsyncReadyCallback callback,
                                           gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
GBytes *agents_sandbox_process_collect_finish (AgentsSandboxProcess *self,
                                               GAsyncResult *result,
                                               GError **error);

/* ---- what one call to a process returns ------------------------------ */

#define AGENTS_TYPE_PTY_EXEC_UPDATE (agents_pty_exec_update_get_type ())

typedef struct _AgentsPtyExecUpdate AgentsPtyExecUpdate;

AGENTS_AVAILABLE_IN_1_0
GType agents_pty_exec_update_get_type (void) G_GNUC_CONST;
AGENTS_AVAILABLE_IN_1_0
AgentsPtyExecUpdate *agents_pty_exec_update_ref (AgentsPtyExecUpdate *self);
AGENTS_AVAILABLE_IN_1_0
void agents_pty_exec_update_unref (AgentsPtyExecUpdate *self);
AGENTS_AVAILABLE_IN_1_0
gint64 agents_pty_exec_update_get_process_id (AgentsPtyExecUpdate *self);
AGENTS_AVAILABLE_IN_1_0
GBytes *agents_pty_exec_update_get_output (AgentsPtyExecUpdate *self);
AGENTS_AVAILABLE_IN_1_0
int agents_pty_exec_update_get_exit_code (AgentsPtyExecUpdate *self);
AGENTS_AVAILABLE_IN_1_0
gint64
agents_pty_exec_update_get_original_token_count (AgentsPtyExecUpdate *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AgentsPtyExecUpdate,
                               agents_pty_exec_update_unref)

/* ---- the session's process table ------------------------------------- */

AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_session_supports_pty (AgentsSandboxSession *self);

AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_start_process_async (AgentsSandboxSession *self,
                                                 const char *const *command,
                                                 gboolean shell,
                                                 gboolean tty,
                                                 const char *user,
                                                 GCancellable *cancellable,
                                                 GAsyncReadyCallback callback,
                                                 gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
AgentsSandboxProcess *agents_sandbox_session_start_process_finish (
  AgentsSandboxSession *self, GAsyncResult *result, GError **error);

AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_pty_exec_start_async (AgentsSandboxSession *self,
                                                  const char *const *command,
                                                  gboolean shell,
                                                  gboolean tty,
                                                  const char *user,
                                                  gint64 yield_time_ms,
                                                  gint64 max_output_tokens,
                                                  GCancellable *cancellable,
                                                  GAsyncReadyCallback callback,
                                                  gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
AgentsPtyExecUpdate *agents_sandbox_session_pty_exec_start_finish (
  AgentsSandboxSession *self, GAsyncResult *result, GError **error);

AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_pty_write_stdin_async (AgentsSandboxSession *self,
                                                   gint64 process_id,
                                                   const char *chars,
                                                   gint64 yield_time_ms,
                                                   gint64 max_output_tokens,
                                                   GCancellable *cancellable,
                                                   GAsyncReadyCallback callback,
                                                   gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
AgentsPtyExecUpdate *agents_sandbox_session_pty_write_stdin_finish (
  AgentsSandboxSession *self, GAsyncResult *result, GError **error);

AGENTS_AVAILABLE_IN_1_0
guint agents_sandbox_session_pty_get_n_processes (AgentsSandboxSession *self);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_session_pty_terminate_all (AgentsSandboxSession *self);

G_END_DECLS
