/* agents-archive-private.h - archive internals for tests and backends
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-archive.h"
#include "agents-archive-stream.h"

struct archive;
struct archive_entry;

G_BEGIN_DECLS

/* Tests only: resolve paths component by component as on kernels without
 * openat2(). */
void agents_archive_set_openat2_disabled_for_testing (gboolean disabled);

/* agents_archive_extract_to_directory(), with errors about reading or
 * writing the archive naming @archive_name (the caller's name for it,
 * such as its path in a workspace) instead of @root, which may be a
 * temporary directory of the library's own. */
gboolean agents_archive_extract_named (GInputStream *archive,
                                       const char *archive_name,
                                       const char *root,
                                       AgentsCompressionScheme scheme,
                                       const AgentsArchiveLimits *limits,
                                       GCancellable *cancellable,
                                       GError **error);

/* agents_archive_extract_named() for a user's extract: link members are
 * refused ("link_member"), as the reference does. */
gboolean agents_archive_extract_user (GInputStream *archive,
                                      const char *archive_name,
                                      const char *root,
                                      AgentsCompressionScheme scheme,
                                      const AgentsArchiveLimits *limits,
                                      GCancellable *cancellable,
                                      GError **error);

/* ---- the reader's libarchive side (agents-archive-reader.c) ----------- */

/* Errors about reading name @name (the caller's name for the archive)
 * instead of the member or ".". */
void agents_archive_reader_set_name (AgentsArchiveReader *self,
                                     const char *name);
/* The next member's libarchive entry (NULL at the end), counted against
 * max_members; valid until the next call. */
gboolean agents_archive_reader_next_entry (AgentsArchiveReader *self,
                                           struct archive_entry **entry,
                                           GCancellable *cancellable,
                                           GError **error);
struct archive *agents_archive_reader_get_archive (AgentsArchiveReader *self);
/* The error of the input, or libarchive's as WORKSPACE_ARCHIVE_READ. */
gboolean agents_archive_reader_fail (AgentsArchiveReader *self, GError **error);
/* Whether a member announcing @size bytes fits max_extracted_bytes. */
gboolean agents_archive_reader_check_size (AgentsArchiveReader *self,
                                           const char *member,
                                           gint64 size,
                                           GError **error);
/* Counts @n bytes of data produced against max_extracted_bytes. */
gboolean agents_archive_reader_count_extracted (AgentsArchiveReader *self,
                                                gsize n,
                                                GError **error);
const char *agents_archive_entry_pathname (struct archive_entry *entry);
/* pwrite() of all @size bytes; FALSE with errno set. */
gboolean agents_archive_write_all_at (int fd,
                                      const void *data,
                                      size_t size,
                                      off_t offset);

/* The normalized paths of @exclude; *@exclude_all when one is the root.
 * (agents-archive-strip.c) */
GHashTable *agents_archive_normalize_excludes (const char *const *exclude,
                                               gboolean *exclude_all);

/* ---- the extraction rules that need no file system --------------------
 * (agents-archive-rules.c) */

typedef enum
{
  AGENTS_ARCHIVE_SEEN_FILE = 1, /* anything that cannot hold members */
  AGENTS_ARCHIVE_SEEN_DIR,
  AGENTS_ARCHIVE_SEEN_SYMLINK, /* judged by the walk when used as a dir */
} AgentsArchiveSeenKind;

/* A path may be named once in an archive, except a directory
 * ("duplicate_path", detail: the path); with @parents, nothing may go
 * under a member that cannot hold it ("parent_not_directory"). Checked on
 * the names alone; @seen maps the paths named so far to their kind. */
gboolean agents_archive_check_member_path (GHashTable *seen,
                                           GPtrArray *components,
                                           const char *member,
                                           const char *rel,
                                           AgentsArchiveSeenKind kind,
                                           gboolean parents,
                                           GError **error);

/* A WORKSPACE_ARCHIVE_READ or _WRITE error for @rel beneath @root, with
 * the context {path, reason}. */
void agents_archive_set_path_error (GError **error,
                                    int code,
                                    const char *root,
                                    const char *rel,
                                    const char *reason);
/* ARCHIVE_LIMIT {limit, value}; returns FALSE. */
gboolean agents_archive_set_limit_error (GError **error,
                                         const char *limit,
                                         gint64 value);
/* ARCHIVE_LIMIT {limit, value, member, actual}: @member (nullable) is
 * the member that went over, @actual (-1: unknown) the amount reached. */
gboolean agents_archive_set_limit_error_full (GError **error,
                                              const char *limit,
                                              gint64 value,
                                              const char *member,
                                              gint64 actual);
/* UNSAFE_ARCHIVE_MEMBER {member, reason}; returns FALSE. */
gboolean agents_archive_set_unsafe_error (GError **error,
                                          const char *member,
                                          const char *reason);
/* The same, with {detail} (nullable): the path the reason is about. */
gboolean agents_archive_set_unsafe_error_full (GError **error,
                                               const char *member,
                                               const char *reason,
                                               const char *detail);

/* The components of @path, without empty and "." ones. */
GPtrArray *agents_archive_split_components (const char *path);
char *agents_archive_join_components (GPtrArray *components, guint n);

/* The components of a member name, or NULL with the reason it is unsafe
 * ("empty_name", "absolute_path", "windows_drive_path",
 * "windows_path_separator", "name_too_long", "parent_reference"). */
GPtrArray *agents_archive_member_components (const char *name,
                                             const char **reason);

/* Looks at @rel (beneath the root, symlinks on the way already expanded):
 * whether it exists, is a directory, and its target if it is a symlink
 * (*@link_target, newly allocated, or NULL). An unknown path is reported
 * existing or not as the caller's model has it; a missing one stops the
 * lookups of the walk. Returns FALSE on an error, which the walk takes for
 * an escape. */
typedef gboolean (*AgentsArchiveInspectFunc) (const char *rel,
                                              gboolean *exists,
                                              gboolean *is_dir,
                                              char **link_target,
                                              gpointer user_data);

/* Walks the first @n_dir of @components (a directory, followed through
 * its symlinks), then @target (a symlink target placed in that directory;
 * NULL for none) the way the kernel resolves paths, and returns whether
 * the walk stays beneath the root. Absolute targets and more than 40
 * symlink expansions count as escapes; ".." may leave only a directory
 * that exists and was reached without a symlink of the target (see
 * agents-archive-rules.c). On success *@resolved (if not NULL) receives
 * the path reached, symlinks expanded. */
gboolean agents_archive_walk_inside (GPtrArray *components,
                                     guint n_dir,
                                     const char *target,
                                     AgentsArchiveInspectFunc inspect,
                                     gpointer user_data,
                                     char **resolved);

G_END_DECLS
