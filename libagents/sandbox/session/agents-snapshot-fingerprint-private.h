/* agents-snapshot-fingerprint-private.h - whether a live workspace is
 * still what its snapshot holds
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-sandbox-session.h"

G_BEGIN_DECLS

#define AGENTS_SNAPSHOT_FINGERPRINT_VERSION "workspace_tar_sha256_v1"

/* The fingerprint of a workspace whose archive (as the backend's persist
 * makes it) has the SHA-256 @archive_sha256, under the session's
 * manifest: a manifest that changed is a workspace that changed. */
char *agents_snapshot_fingerprint_compose (AgentsSandboxSession *self,
                                           const char *archive_sha256);

/* Archives the live workspace and returns its fingerprint (a string). */
void agents_snapshot_fingerprint_compute_async (AgentsSandboxSession *self,
                                                GCancellable *cancellable,
                                                GAsyncReadyCallback callback,
                                                gpointer user_data);
char *agents_snapshot_fingerprint_compute_finish (AgentsSandboxSession *self,
                                                  GAsyncResult *result,
                                                  GError **error);

/* Where the record {"fingerprint", "version"} of the session is kept:
 * `/tmp/openai-agents/session-state/<session id hex>/fingerprint.json`,
 * on the host when the workspace root is a host directory, else inside
 * the sandbox. */
char *agents_snapshot_fingerprint_cache_path (AgentsSandboxSession *self);

/* Writes the record; the task returns a boolean. */
void
agents_snapshot_fingerprint_cache_write_async (AgentsSandboxSession *self,
                                               const char *fingerprint,
                                               GCancellable *cancellable,
                                               GAsyncReadyCallback callback,
                                               gpointer user_data);
gboolean agents_snapshot_fingerprint_cache_write_finish (
  AgentsSandboxSession *self, GAsyncResult *result, GError **error);

/* Removes the record, best effort, without waiting. */
void agents_snapshot_fingerprint_cache_delete (AgentsSandboxSession *self);

/* Removes a record kept on the host, and its directory (a shutdown: the
 * fingerprint a start compares with is the state's, not the record). */
void agents_snapshot_fingerprint_cache_forget (AgentsSandboxSession *self);

G_END_DECLS
