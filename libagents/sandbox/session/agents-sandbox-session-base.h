/* agents-sandbox-session-base.h - a base class for sandbox sessions
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

#define AGENTS_TYPE_SANDBOX_SESSION_BASE \
  (agents_sandbox_session_base_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_DERIVABLE_TYPE (AgentsSandboxSessionBase,
                          agents_sandbox_session_base,
                          AGENTS,
                          SANDBOX_SESSION_BASE,
                          GObject)

/**
 * AgentsSandboxSessionBaseClass:
 * @parent_class: the parent class
 * @start_backend: brings the backend up (creates or starts a container,
 *   makes the workspace root …); the base prepares the workspace after
 *   it. The task returns a boolean; the default succeeds
 * @shutdown_backend: tears the backend down; the task returns a boolean;
 *   the default succeeds
 * @exec_raw: runs @argv as is, without shell wrapping or user
 *   switching; the task returns an #AgentsExecResult. The base enforces
 *   the timeout: the task's cancellable is cancelled when it expires,
 *   and the base turns the cancellation into
 *   %AGENTS_SANDBOX_ERROR_EXEC_TIMEOUT. The default fails with
 *   %AGENTS_SANDBOX_ERROR_NOT_SUPPORTED
 *
 * The class of #AgentsSandboxSessionBase: the primitives that the base
 * builds the #AgentsSandboxSession lifecycle and exec on. The other
 * primitives (@read, @write, @running, @persist_workspace,
 * @hydrate_workspace) are the #AgentsSandboxSessionInterface vfuncs,
 * which a subclass implements directly.
 */
struct _AgentsSandboxSessionBaseClass
{
  GObjectClass parent_class;

  void (*start_backend) (AgentsSandboxSessionBase *self, GTask *task);
  void (*shutdown_backend) (AgentsSandboxSessionBase *self, GTask *task);
  void (*exec_raw) (AgentsSandboxSessionBase *self,
                    const char *const *argv,
                    double timeout,
                    GTask *task);

  /*< private >*/
  gpointer padding[12];
};

AGENTS_AVAILABLE_IN_1_0
gboolean
agents_sandbox_session_base_is_started (AgentsSandboxSessionBase *self);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_session_base_is_restoring_snapshot (
  AgentsSandboxSessionBase *self);

G_END_DECLS
