/* agents-docker-tar.h - the tar streams the docker backend exchanges
 * with the engine's archive endpoint
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gio/gio.h>

#include "agents.h"

G_BEGIN_DECLS

/* Private to the docker plugin. All functions block; the session calls
 * them from worker threads. Errors are in AGENTS_SANDBOX_ERROR with the
 * same codes, messages and context keys as the foundation's extractor
 * (agents-archive.c): UNSAFE_ARCHIVE_MEMBER {member, reason},
 * ARCHIVE_LIMIT {limit, value}, WORKSPACE_ARCHIVE_READ/WRITE. */

/* GET /containers/{id}/archive?path=ROOT answers a tar whose members are
 * named "<basename of ROOT>/…" (and "<basename>" itself). Copies it to
 * @out as a workspace-relative tar: members renamed to "…", the member
 * of the root itself dropped, hard link targets renamed the same way, and every
 * member at or under one of @exclude (workspace-relative, normalized, no
 * leading "./") left out. Member data streams through; nothing is held whole.
 */
gboolean agents_docker_tar_rebase_workspace (GInputStream *in,
                                             const char *root_name,
                                             const char *const *exclude,
                                             GOutputStream *out,
                                             GCancellable *cancellable,
                                             GError **error);

/* Validates the tar (optionally gzip-compressed: libarchive's format and
 * filter detection) on @in member by member with the foundation's
 * extraction rules and @limits, and copies each accepted member to @out
 * as a plain tar, streaming. Rules: names relative, normalized, no ".."
 * component, not empty; types regular, directory, symlink, hard link
 * only; symlink targets, resolved lexically against earlier members'
 * symlinks and @existing_links, stay inside the root; hard link targets
 * are earlier regular members; no member is written through a symlink
 * (from the archive or @existing_links) whose resolution leaves the root;
 * limits max_input_bytes (compressed bytes read), max_extracted_bytes,
 * max_members. @existing_links maps workspace-relative paths of
 * symlinks already in the workspace to their targets (may be NULL).
 * With @keep_links (a snapshot restore, never a user's archive) symlink
 * members are kept whatever their target, as the foundation restores
 * snapshots, except a relative target that lexically leaves the root: the
 * engine refuses to extract that one (symlink_escape here, before the
 * upload). Writing through a link that leaves the root is still refused.
 * On failure @out has received the members before the bad one and the
 * caller must abort the upload. */
gboolean agents_docker_tar_validate_copy (GInputStream *in,
                                          const AgentsArchiveLimits *limits,
                                          GHashTable *existing_links,
                                          gboolean keep_links,
                                          GOutputStream *out,
                                          GCancellable *cancellable,
                                          GError **error);

/* Reads the headers of a workspace-relative tar (as made by
 * agents_docker_tar_rebase_workspace(), or an archive endpoint tar with
 * @root_name stripped when @root_name is not NULL) and returns its
 * symlinks: relative path -> target. */
GHashTable *agents_docker_tar_list_symlinks (GInputStream *in,
                                             const char *root_name,
                                             GCancellable *cancellable,
                                             GError **error);

/* The answer of GET /containers/{id}/archive?path=FILE: a tar with one
 * member. Returns a stream over the data of that member, read as it is
 * consumed (blocking reads). A member that is not a regular file is a
 * G_IO_ERROR_IS_DIRECTORY (directory) or G_IO_ERROR_NOT_REGULAR_FILE
 * error; the caller maps it. The returned stream owns @in. */
GInputStream *agents_docker_tar_open_single_file (GInputStream *in,
                                                  GCancellable *cancellable,
                                                  GError **error);

/* A stream that reads as a one-member tar: a regular file @name
 * (a single path component) of @size bytes and @mode whose data is read
 * from @data, then padding and the end-of-archive blocks. Reading fails
 * with WORKSPACE_ARCHIVE_WRITE if @data ends before @size bytes or has
 * more. agents_docker_tar_single_file_length() gives the total length,
 * for a Content-Length. */
GInputStream *agents_docker_tar_single_file_stream (const char *name,
                                                    guint mode,
                                                    GInputStream *data,
                                                    guint64 size);
guint64 agents_docker_tar_single_file_length (const char *name, guint64 size);

G_END_DECLS
