/* agents-archive-extract-private.h - the extraction engine
 * (agents-archive-extract.c) as the public entry points of agents-archive.c
 * call it
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-archive.h"

G_BEGIN_DECLS

typedef enum
{
  AGENTS_ARCHIVE_LINKS_INSIDE, /* links that stay beneath the root */
  AGENTS_ARCHIVE_LINKS_KEEP,   /* a snapshot: symlinks may point anywhere */
  AGENTS_ARCHIVE_LINKS_NONE,   /* a user's extract: no link members */
  AGENTS_ARCHIVE_LINKS_KEEP_INSIDE, /* a workspace hydrate: a snapshot,
                                       links inside */
} AgentsArchiveLinkPolicy;

/* Extracts @archive beneath @root (which must exist) with @links.
 * @archive_name: what errors about the archive name (NULL: @root). */
gboolean agents_archive_extract_full (GInputStream *archive,
                                      const char *archive_name,
                                      const char *root,
                                      AgentsCompressionScheme scheme,
                                      const AgentsArchiveLimits *limits,
                                      AgentsArchiveLinkPolicy links,
                                      GCancellable *cancellable,
                                      GError **error);

G_END_DECLS
