/* agents-archive-validate-private.h - what agents-archive-validate.c
 * shares with agents-archive-strip.c and no other
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-archive-private.h"

G_BEGIN_DECLS

/* Passing members on, from a reader to a writer (or nowhere). */
typedef struct
{
  AgentsArchiveReader *reader;
  AgentsArchiveWriter *writer; /* NULL: nothing is passed on */
  GCancellable *cancellable;
  guint8 *scratch;
} Copy;

/* Passes on @from named @rel, with its type and permission bits masked
 * with @perm_mask; a hard link links to @hardlink. */
gboolean agents_archive_copy_member (Copy *c,
                                     const AgentsArchiveMember *from,
                                     const char *rel,
                                     guint perm_mask,
                                     const char *hardlink,
                                     GError **error);
gboolean agents_archive_copy_finish (Copy *c, GError **error);
void agents_archive_copy_clear (Copy *c);

/* The normalized form of a root-relative @path, or NULL for the root. */
char *agents_archive_normalize_path (const char *path);
/* Whether @components, or one of its parents, is in @set. */
gboolean agents_archive_in_subtree (GHashTable *set, GPtrArray *components);

G_END_DECLS
