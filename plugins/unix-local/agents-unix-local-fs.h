/* agents-unix-local-fs.h - host file operations beneath a directory
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gio/gio.h>
#include <sys/types.h>

G_BEGIN_DECLS

/*
 * Private API of the unix_local backend: file operations of the host that
 * never leave a directory, whatever symlinks or concurrent renames the
 * workspace holds. Paths are resolved through directory descriptors only.
 */

/* Opens @rel beneath @dirfd (always O_CLOEXEC): nothing, not even a
 * symlink, may lead out of @dirfd (EXDEV; ELOOP for loops). Resolution
 * uses openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS); a lookup that
 * openat2() abandons because a rename raced with ".." (EAGAIN) is retried
 * a few times, then done by a component-wise walk that refuses ".." and
 * every symlink, as on kernels without openat2(). Returns -1 with errno
 * set on failure. */
int agents_unix_local_open_beneath (int dirfd,
                                    const char *rel,
                                    int flags,
                                    mode_t mode);

/* Whether @err, from agents_unix_local_open_beneath(), means that the path
 * leads out of the directory (or loops). */
gboolean agents_unix_local_is_escape_errno (int err);

/* Tests: resolve as on kernels without openat2(). */
void agents_unix_local_set_openat2_disabled (gboolean disabled);

/*
 * The operations below work on @rel (normalized, "." for @base itself)
 * beneath the directory @base, which is trusted (the workspace root or an
 * extra path grant). @abs is @rel as an absolute path, used in listings and
 * in the errors of the command the operation stands for (`ls -la -- ABS`,
 * `mkdir [-p] -- ABS`, `rm [-rf] -- ABS`: EXEC_NONZERO, with a stderr like
 * coreutils'); @given is the path as the caller gave it, used in
 * INVALID_MANIFEST_PATH errors when the path leads out of @base. They
 * block.
 */

/* Lists the directory @rel (its entries, without "." and ".."), or @rel
 * itself when it is not a directory. Entries carry their exact names.
 * Returns: (transfer full): a GListModel of AgentsFileEntry. */
GListModel *agents_unix_local_fs_ls (const char *base,
                                     const char *rel,
                                     const char *abs,
                                     const char *given,
                                     GError **error);

/* Creates the directory @rel; with @parents, creates the missing parents
 * too and accepts an existing directory. */
gboolean agents_unix_local_fs_mkdir (const char *base,
                                     const char *rel,
                                     const char *abs,
                                     const char *given,
                                     gboolean parents,
                                     GError **error);

/* Removes @rel without following it if it is a symlink; with @recursive,
 * removes a directory with its contents and accepts a missing @rel. @base
 * itself is only emptied, never removed. */
gboolean agents_unix_local_fs_rm (const char *base,
                                  const char *rel,
                                  const char *abs,
                                  const char *given,
                                  gboolean recursive,
                                  GCancellable *cancellable,
                                  GError **error);

G_END_DECLS
