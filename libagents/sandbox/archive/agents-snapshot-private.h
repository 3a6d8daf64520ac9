/* agents-snapshot-private.h - what the snapshot types of the archive room
 * share (agents-snapshot.c, agents-noop-snapshot.c, agents-local-snapshot.c)
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-snapshot.h"

G_BEGIN_DECLS

/* How much a snapshot reads of an archive stream at a time. */
#define AGENTS_SNAPSHOT_CHUNK_SIZE (64 * 1024)

/* Sets a JSON error: snapshot member MEMBER must be EXPECTED. */
gboolean agents_snapshot_invalid_member (GError **error,
                                         const char *member,
                                         const char *expected);

/* Adds snapshot_id, and path and reason unless NULL, to an error's
 * context. */
void agents_snapshot_add_context (GVariantBuilder *ctx,
                                  const char *id,
                                  const char *path,
                                  const char *reason);

/* Makes local snapshots write through a named temporary file, as where
 * O_TMPFILE is not supported. */
void agents_local_snapshot_set_tmpfile_disabled_for_testing (gboolean disabled);

G_END_DECLS
