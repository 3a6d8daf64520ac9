/* agents-sandbox-session-call-private.h - what the wrappers of the
 * session contract share: the interface, the task, its result
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-mount-security-private.h"
#include "agents-sandbox-session.h"

G_BEGIN_DECLS

#define IFACE(self) AGENTS_SANDBOX_SESSION_GET_IFACE (self)

static inline GTask *
new_task (AgentsSandboxSession *self,
          GCancellable *cancellable,
          GAsyncReadyCallback callback,
          gpointer user_data,
          gpointer source_tag)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, source_tag);
  return task;
}

static inline gboolean
finish_boolean (AgentsSandboxSession *self,
                GAsyncResult *result,
                GError **error)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

static inline gpointer
finish_pointer (AgentsSandboxSession *self,
                GAsyncResult *result,
                GError **error)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* The credential boundary holds before any snapshot or workspace work:
 * a manifest changed after start to expose unacknowledged mount
 * credentials is refused there too. */
static inline gboolean
check_boundary (AgentsSandboxSession *self, GTask *task)
{
  GError *error = NULL;

  if (agents_manifest_check_mount_credential_boundary (
        agents_sandbox_session_get_manifest (self), &error))
    return TRUE;
  g_task_return_error (task, error);
  return FALSE;
}

G_END_DECLS
