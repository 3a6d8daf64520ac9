/* agents-sandbox-session-generic-task-private.h - what the generic
 * operations over the primitives (agents-sandbox-session-generic*.c) share
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-sandbox-session.h"

G_BEGIN_DECLS

typedef AgentsSandboxSession Session;

static inline Session *
task_session (GTask *task)
{
  return AGENTS_SANDBOX_SESSION (g_task_get_source_object (task));
}

static inline void
return_error_or_true (GTask *task, GError *error)
{
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

/* Fails @task with @error and drops the reference the operation held. */
static inline void
fail_task (GTask *task, GError *error)
{
  g_task_return_error (task, error);
  g_object_unref (task);
}

/* Provisions the manifest's groups and users (`groupadd`, `useradd`,
 * `usermod -aG`); finish with agents_sandbox_session_run_commands_finish(). */
void
agents_sandbox_session_provision_accounts_async (Session *self,
                                                 GCancellable *cancellable,
                                                 GAsyncReadyCallback callback,
                                                 gpointer user_data);

G_END_DECLS
