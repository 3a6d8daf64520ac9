/* agents-sandbox-session-generic-private.h - generic session steps that
 * the manifest entries reuse
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-sandbox-session.h"

G_BEGIN_DECLS

/* Runs @commands (each a GStrv) one after the other through the exec
 * primitive. A non-zero exit is an EXEC_NONZERO error, but for the exit
 * status of an account that exists already with @tolerate_exists. */
void agents_sandbox_session_run_commands_async (AgentsSandboxSession *self,
                                                GPtrArray *commands,
                                                gboolean tolerate_exists,
                                                GCancellable *cancellable,
                                                GAsyncReadyCallback callback,
                                                gpointer user_data);
gboolean agents_sandbox_session_run_commands_finish (AgentsSandboxSession *self,
                                                     GAsyncResult *result,
                                                     GError **error);

/* Set while a start restores the workspace from its snapshot (after
 * clearing it, until it is hydrated): a stop then does not persist the
 * workspace, so a failed restore never overwrites the snapshot. */
void agents_sandbox_session_set_restore_pending (AgentsSandboxSession *self,
                                                 gboolean pending);
gboolean
agents_sandbox_session_get_restore_pending (AgentsSandboxSession *self);

G_END_DECLS
