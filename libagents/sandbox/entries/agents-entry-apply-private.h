/* agents-entry-apply-private.h - what the built-in entries share to
 * materialize themselves
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The steps entries take to materialize themselves in a session
 * (agents-entry-apply.c), inline files and directories
 * (agents-entry-file.c), copies of the host (agents-entry-local.c) and git
 * checkouts (agents-entry-git.c). These files sit above the session: they
 * write into it through its public operations.
 */

#pragma once

#include "agents-manifest-entry-private.h"
#include "agents-sandbox-session.h"

G_BEGIN_DECLS

/* ---- applying (agents-entry-apply.c) ----------------------------------- */

/* Common state of the apply state machines: the task is the caller's. */
typedef struct
{
  AgentsManifestEntry *entry;
  AgentsSandboxSession *session;
  char *dest;
  char *base_dir;
  GPtrArray *results;
  guint next; /* the next child of a directory */
} AgentsApplyData;

/* Sets a new AgentsApplyData as the data of @task and returns it. */
AgentsApplyData *agents_apply_data_new (AgentsManifestEntry *entry,
                                        AgentsSandboxSession *session,
                                        const char *dest,
                                        const char *base_dir,
                                        GTask *task);
/* Completes @task with the results gathered in its AgentsApplyData. */
void agents_apply_data_return_results (GTask *task);

/* Joins @name under @dir, collapsing `.` and repeated slashes. */
char *agents_entry_join_dest (const char *dir, const char *name);

/* Applies the permissions and group of @entry to @dest. */
void agents_entry_apply_metadata_async (AgentsManifestEntry *entry,
                                        AgentsSandboxSession *session,
                                        const char *dest,
                                        GCancellable *cancellable,
                                        GAsyncReadyCallback callback,
                                        gpointer user_data);
gboolean agents_entry_apply_metadata_finish (GAsyncResult *result,
                                             GError **error);

/* Writes @content (read to its end by the backend) at @dest, creating its
 * parent first, then applies the metadata of @entry (if not NULL). */
void agents_entry_write_file_async (AgentsManifestEntry *entry,
                                    AgentsSandboxSession *session,
                                    const char *dest,
                                    GInputStream *content,
                                    GCancellable *cancellable,
                                    GAsyncReadyCallback callback,
                                    gpointer user_data);
gboolean agents_entry_write_file_finish (GAsyncResult *result, GError **error);

/* ---- local sources (agents-entry-local.c) ------------------------------ */

/* Where a local source lives: a trusted directory and a path below it. */
typedef struct _AgentsLocalSource AgentsLocalSource;

void agents_local_source_free (AgentsLocalSource *source);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AgentsLocalSource, agents_local_source_free)

/* The extra path grants of the session's manifest, as paths. */
char **agents_local_source_dup_grant_paths (AgentsSandboxSession *session);

/* Decides where @src may be read from: inside @base_dir (the current
 * directory when NULL) or inside one of @grants. Purely lexical; the
 * walk that follows refuses symbolic links. */
AgentsLocalSource *agents_local_source_resolve (const char *src,
                                                const char *base_dir,
                                                const char *const *grants,
                                                gboolean is_dir,
                                                GError **error);

/* A directory @walk_rel below the trusted @walk_base; read failures are
 * @code errors about @src. */
AgentsLocalSource *agents_local_source_new_dir (const char *src,
                                                const char *walk_base,
                                                const char *walk_rel,
                                                int code);

/* Opens @source (taken) in a thread, never following a symbolic link;
 * the finish function returns the fd, or -1 with @error set. */
void agents_local_source_open_async (AgentsLocalSource *source,
                                     GCancellable *cancellable,
                                     GAsyncReadyCallback callback,
                                     gpointer user_data);
int agents_local_source_open_finish (GAsyncResult *result, GError **error);

/* Tests only: where a local copy may be interrupted to change the source
 * under it. OPEN_ROOT runs after the source was validated, before its
 * root is opened (@rel: the source below its base); OPEN_FILE after a
 * directory was listed, before one of its files is opened (@rel: the file
 * below the source root). The hook runs in worker threads. */
typedef enum
{
  AGENTS_LOCAL_SOURCE_HOOK_OPEN_ROOT,
  AGENTS_LOCAL_SOURCE_HOOK_OPEN_FILE,
} AgentsLocalSourceHookPoint;

typedef void (*AgentsLocalSourceTestHook) (AgentsLocalSourceHookPoint point,
                                           const char *rel,
                                           gpointer user_data);

void agents_local_source_set_test_hook (AgentsLocalSourceTestHook hook,
                                        gpointer user_data);

/* Copies the tree below the directory open on @root_fd (taken) to @dest
 * and applies the metadata of @entry to @dest. Symbolic links, devices,
 * sockets and fifos are skipped; so is `.git` with @skip_git. Read
 * failures are @error_code errors about @src. The finish function
 * returns the files written, sorted by path. */
void agents_entry_copy_tree_async (AgentsManifestEntry *entry,
                                   AgentsSandboxSession *session,
                                   int root_fd,
                                   const char *dest,
                                   const char *src,
                                   int error_code,
                                   gboolean skip_git,
                                   GCancellable *cancellable,
                                   GAsyncReadyCallback callback,
                                   gpointer user_data);
GPtrArray *agents_entry_copy_tree_finish (GAsyncResult *result, GError **error);

G_END_DECLS
