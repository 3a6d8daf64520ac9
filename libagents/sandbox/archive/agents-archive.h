/* agents-archive.h - streaming tar creation and safe extraction
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include <gio/gio.h>

#include "sandbox/common/agents-sandbox-types.h"
#include "agents-version-macros.h"

G_BEGIN_DECLS

AGENTS_AVAILABLE_IN_1_0
GInputStream *agents_archive_tar_directory (const char *root,
                                            const char *const *exclude,
                                            GCancellable *cancellable,
                                            GError **error);

AGENTS_AVAILABLE_IN_1_0
gboolean agents_archive_extract_to_directory (GInputStream *archive,
                                              const char *root,
                                              AgentsCompressionScheme scheme,
                                              const AgentsArchiveLimits *limits,
                                              GCancellable *cancellable,
                                              GError **error);

AGENTS_AVAILABLE_IN_1_0
void
agents_archive_extract_to_directory_async (GInputStream *archive,
                                           const char *root,
                                           AgentsCompressionScheme scheme,
                                           const AgentsArchiveLimits *limits,
                                           GCancellable *cancellable,
                                           GAsyncReadyCallback callback,
                                           gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_archive_extract_to_directory_finish (GAsyncResult *result,
                                                     GError **error);
AGENTS_AVAILABLE_IN_1_0
void agents_archive_extract_snapshot_to_directory_async (
  GInputStream *archive,
  const char *root,
  const AgentsArchiveLimits *limits,
  GCancellable *cancellable,
  GAsyncReadyCallback callback,
  gpointer user_data);

AGENTS_AVAILABLE_IN_1_0
void agents_archive_extract_workspace_to_directory_async (
  GInputStream *archive,
  const char *root,
  const AgentsArchiveLimits *limits,
  GCancellable *cancellable,
  GAsyncReadyCallback callback,
  gpointer user_data);

AGENTS_AVAILABLE_IN_1_0
gboolean agents_archive_compression_scheme_for_path (
  const char *path, AgentsCompressionScheme *scheme, GError **error);

G_END_DECLS
