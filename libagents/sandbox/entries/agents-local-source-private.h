/* agents-local-source-private.h - what the local entry files share
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gio/gio.h>

#include "agents-entry-apply-private.h"

G_BEGIN_DECLS

/* Sets an error about a local source; @detail defaults to a text for
 * @reason. */
void agents_local_source_set_error_full (GError **error,
                                         int code,
                                         const char *src,
                                         const char *reason,
                                         const char *detail,
                                         const char *child);

/* Opens @rel below @dirfd one component at a time, never following a
 * symbolic link. The last component is opened with @flags. On failure
 * returns -1 and sets *reason. */
int agents_local_open_beneath (
  int parent_fd, const char *rel, int flags, const char **reason, char **child);

void agents_local_source_run_test_hook (AgentsLocalSourceHookPoint point,
                                        const char *rel);

/* Local files are never held in memory: the backend reads them from a
 * stream that computes their SHA-256 on the way. */
#define AGENTS_TYPE_CHECKSUM_STREAM (agents_checksum_stream_get_type ())
G_DECLARE_FINAL_TYPE (AgentsChecksumStream,
                      agents_checksum_stream,
                      AGENTS,
                      CHECKSUM_STREAM,
                      GFilterInputStream)

/* Streams the regular file open on @fd, which the stream owns. */
AgentsChecksumStream *agents_checksum_stream_new_for_fd (int fd);

/* Ends the streamed write of @self, @written telling whether the backend
 * succeeded (with @error set if not). A failure to read the source
 * replaces whatever error the backend made of it. On success *sha256 is
 * the digest of the content, or NULL if the backend stopped reading
 * before the end. */
gboolean agents_checksum_stream_write_finish (AgentsChecksumStream *self,
                                              gboolean written,
                                              int code,
                                              const char *src,
                                              char **sha256,
                                              GError **error);

G_END_DECLS
