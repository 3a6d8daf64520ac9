/* agents-unix-local-owner.h - records of the workspace roots unix_local
 * made, and of the processes that own them
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Private API. A root the client makes gets a record in
 * $XDG_CACHE_HOME/agents-1.0/workspaces: the root, its device and inode,
 * a random token (also kept in the session state) and its owner process,
 * named by machine id + boot id + pid + start time so that a recycled
 * pid or another machine sharing the cache is never taken for it. */

#define AGENTS_UNIX_LOCAL_OWNED_ROOT_PREFIX "sandbox-local-"

/* Writes the record of @root (an existing directory the caller just
 * made) owned by this process, with @token_or_null or a new random
 * token; returns the token. */
char *agents_unix_local_owner_record_root (const char *root,
                                           const char *token_or_null,
                                           GError **error);

/* Whether @root is one this library made: a record of it exists with
 * @token, for the very directory that is there now (same device and
 * inode, not a symlink). */
gboolean agents_unix_local_owner_verify (const char *root, const char *token);

/* Forgets @root (its record only). */
void agents_unix_local_owner_forget (const char *root);

/* Whether the process that owns @root's record is gone for sure (same
 * machine, and another boot or no process with that pid and start
 * time). A record of another machine is never judged gone. */
gboolean agents_unix_local_owner_is_gone (const char *record_path);

/* The directory holding the records. */
char *agents_unix_local_owner_dir (void);

/* Removes the roots whose owner is gone (all of them with @all), and
 * their records; with @dry_run only counts them. Each root (or would-be
 * removed root) is appended to @removed if not NULL. Returns the count,
 * or -1 with @error set. */
gssize agents_unix_local_owner_reap (gboolean all,
                                     gboolean dry_run,
                                     GPtrArray *removed,
                                     GError **error);

G_END_DECLS
