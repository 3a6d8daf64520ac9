/* agents-sandbox-session-files.c - reading and writing files, and the
 * generic file operations (ls, mkdir, rm, extract, apply_manifest)
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-archive.h"
#include "agents-sandbox-error-private.h"
#include "agents-sandbox-session-call-private.h"
#include "agents-sandbox-session-private.h"

/* ---- files ------------------------------------------------------------ */

/**
 * agents_sandbox_session_read_async:
 * @self: a session
 * @path: a path in the workspace (relative to the root, or absolute)
 * @user: (nullable): the user to read as
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the stream
 * @user_data: data for @callback
 *
 * Opens a file of the workspace for reading.
 */
void
agents_sandbox_session_read_async (AgentsSandboxSession *self,
                                   const char *path,
                                   const char *user,
                                   GCancellable *cancellable,
                                   GAsyncReadyCallback callback,
                                   gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));
  g_return_if_fail (path != NULL);

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_read_async);
  IFACE (self)->read (self, path, user, task);
}

/**
 * agents_sandbox_session_read_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_read_async().
 *
 * Returns: (transfer full): a stream of the file's content
 */
GInputStream *
agents_sandbox_session_read_finish (AgentsSandboxSession *self,
                                    GAsyncResult *result,
                                    GError **error)
{
  return finish_pointer (self, result, error);
}

static void
read_bytes_splice_done (GObject *source,
                        GAsyncResult *result,
                        gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GMemoryOutputStream *out = G_MEMORY_OUTPUT_STREAM (source);
  GError *error = NULL;

  if (g_output_stream_splice_finish (G_OUTPUT_STREAM (out), result, &error) < 0)
    {
      g_task_return_error (task, error);
      return;
    }
  g_task_return_pointer (task, g_memory_output_stream_steal_as_bytes (out),
                         (GDestroyNotify) g_bytes_unref);
}

static void
read_bytes_open_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  GError *error = NULL;
  g_autoptr (GInputStream) in = NULL;
  g_autoptr (GOutputStream) out = NULL;

  in = agents_sandbox_session_read_finish (AGENTS_SANDBOX_SESSION (source),
                                           result, &error);
  if (in == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  out = g_memory_output_stream_new_resizable ();
  g_output_stream_splice_async (
    out, in,
    G_OUTPUT_STREAM_SPLICE_CLOSE_SOURCE | G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET,
    G_PRIORITY_DEFAULT, g_task_get_cancellable (task), read_bytes_splice_done,
    task);
}

/**
 * agents_sandbox_session_read_bytes_async:
 * @self: a session
 * @path: a path in the workspace
 * @user: (nullable): the user to read as
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the content
 * @user_data: data for @callback
 *
 * Reads a whole file of the workspace into memory. Prefer
 * agents_sandbox_session_read_async() for large files.
 */
void
agents_sandbox_session_read_bytes_async (AgentsSandboxSession *self,
                                         const char *path,
                                         const char *user,
                                         GCancellable *cancellable,
                                         GAsyncReadyCallback callback,
                                         gpointer user_data)
{
  GTask *task;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_read_bytes_async);
  agents_sandbox_session_read_async (self, path, user, cancellable,
                                     read_bytes_open_done, task);
}

/**
 * agents_sandbox_session_read_bytes_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_read_bytes_async().
 *
 * Returns: (transfer full): the file's content
 */
GBytes *
agents_sandbox_session_read_bytes_finish (AgentsSandboxSession *self,
                                          GAsyncResult *result,
                                          GError **error)
{
  return finish_pointer (self, result, error);
}

/**
 * agents_sandbox_session_write_async:
 * @self: a session
 * @path: a path in the workspace
 * @data: the content, read to its end
 * @user: (nullable): the user to write as
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when written
 * @user_data: data for @callback
 *
 * Writes a file of the workspace, creating missing parent directories.
 */
void
agents_sandbox_session_write_async (AgentsSandboxSession *self,
                                    const char *path,
                                    GInputStream *data,
                                    const char *user,
                                    GCancellable *cancellable,
                                    GAsyncReadyCallback callback,
                                    gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));
  g_return_if_fail (path != NULL);
  g_return_if_fail (G_IS_INPUT_STREAM (data));

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_write_async);
  IFACE (self)->write (self, path, data, user, task);
}

/**
 * agents_sandbox_session_write_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_write_async().
 *
 * Returns: %TRUE on success
 */
gboolean
agents_sandbox_session_write_finish (AgentsSandboxSession *self,
                                     GAsyncResult *result,
                                     GError **error)
{
  return finish_boolean (self, result, error);
}

static void
write_bytes_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;

  if (!agents_sandbox_session_write_finish (AGENTS_SANDBOX_SESSION (source),
                                            result, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

/**
 * agents_sandbox_session_write_bytes_async:
 * @self: a session
 * @path: a path in the workspace
 * @data: the content
 * @user: (nullable): the user to write as
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when written
 * @user_data: data for @callback
 *
 * Writes a file of the workspace from memory.
 */
void
agents_sandbox_session_write_bytes_async (AgentsSandboxSession *self,
                                          const char *path,
                                          GBytes *data,
                                          const char *user,
                                          GCancellable *cancellable,
                                          GAsyncReadyCallback callback,
                                          gpointer user_data)
{
  GTask *task;
  g_autoptr (GInputStream) stream = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));
  g_return_if_fail (data != NULL);

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_write_bytes_async);
  stream = g_memory_input_stream_new_from_bytes (data);
  agents_sandbox_session_write_async (self, path, stream, user, cancellable,
                                      write_bytes_done, task);
}

/**
 * agents_sandbox_session_write_bytes_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_write_bytes_async().
 *
 * Returns: %TRUE on success
 */
gboolean
agents_sandbox_session_write_bytes_finish (AgentsSandboxSession *self,
                                           GAsyncResult *result,
                                           GError **error)
{
  return finish_boolean (self, result, error);
}

/* ---- generic operations ---------------------------------------------- */

/**
 * agents_sandbox_session_ls_async:
 * @self: a session
 * @path: a directory of the workspace
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the listing
 * @user_data: data for @callback
 *
 * Lists a directory of the workspace.
 */
void
agents_sandbox_session_ls_async (AgentsSandboxSession *self,
                                 const char *path,
                                 GCancellable *cancellable,
                                 GAsyncReadyCallback callback,
                                 gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));
  g_return_if_fail (path != NULL);

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_ls_async);
  IFACE (self)->ls (self, path, task);
}

/**
 * agents_sandbox_session_ls_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_ls_async().
 *
 * Returns: (transfer full): a #GListModel of #AgentsFileEntry
 */
GListModel *
agents_sandbox_session_ls_finish (AgentsSandboxSession *self,
                                  GAsyncResult *result,
                                  GError **error)
{
  return finish_pointer (self, result, error);
}

/**
 * agents_sandbox_session_mkdir_async:
 * @self: a session
 * @path: a directory to create
 * @parents: whether to create missing parents (and accept an existing
 *   directory)
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: data for @callback
 *
 * Creates a directory in the workspace.
 */
void
agents_sandbox_session_mkdir_async (AgentsSandboxSession *self,
                                    const char *path,
                                    gboolean parents,
                                    GCancellable *cancellable,
                                    GAsyncReadyCallback callback,
                                    gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));
  g_return_if_fail (path != NULL);

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_mkdir_async);
  IFACE (self)->mkdir (self, path, parents, task);
}

/**
 * agents_sandbox_session_mkdir_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_mkdir_async().
 *
 * Returns: %TRUE on success
 */
gboolean
agents_sandbox_session_mkdir_finish (AgentsSandboxSession *self,
                                     GAsyncResult *result,
                                     GError **error)
{
  return finish_boolean (self, result, error);
}

/**
 * agents_sandbox_session_rm_async:
 * @self: a session
 * @path: a path to remove
 * @recursive: whether to remove directories with their content; a
 *   recursive removal of a missing path succeeds
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: data for @callback
 *
 * Removes a path of the workspace. A non-recursive removal of a missing
 * path fails with %AGENTS_SANDBOX_ERROR_EXEC_NONZERO.
 */
void
agents_sandbox_session_rm_async (AgentsSandboxSession *self,
                                 const char *path,
                                 gboolean recursive,
                                 GCancellable *cancellable,
                                 GAsyncReadyCallback callback,
                                 gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));
  g_return_if_fail (path != NULL);

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_rm_async);
  IFACE (self)->rm (self, path, recursive, task);
}

/**
 * agents_sandbox_session_rm_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_rm_async().
 *
 * Returns: %TRUE on success
 */
gboolean
agents_sandbox_session_rm_finish (AgentsSandboxSession *self,
                                  GAsyncResult *result,
                                  GError **error)
{
  return finish_boolean (self, result, error);
}

/* Implementations see a scheme, never FROM_SUFFIX. */
static void
extract_with_scheme (AgentsSandboxSession *self,
                     const char *path,
                     GInputStream *data,
                     AgentsCompressionScheme scheme,
                     GTask *task)
{
  GError *error = NULL;

  if (scheme == AGENTS_COMPRESSION_SCHEME_FROM_SUFFIX &&
      !agents_archive_compression_scheme_for_path (path, &scheme, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  IFACE (self)->extract (self, path, data, scheme, task);
}

/**
 * agents_sandbox_session_extract_async:
 * @self: a session
 * @path: where the archive is written in the workspace; its members are
 *   extracted into the directory that contains it
 * @data: the archive
 * @scheme: the archive format; %AGENTS_COMPRESSION_SCHEME_FROM_SUFFIX
 *   for the one @path's last suffix names (any other suffix is an
 *   %AGENTS_SANDBOX_ERROR_INVALID_COMPRESSION_SCHEME error)
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: data for @callback
 *
 * Writes an archive into the workspace and extracts it beside itself.
 * Members that would land outside the workspace, link members, device
 * nodes, paths named twice, Windows drive or backslash names and archives
 * beyond the session's archive limits (the default limits when none were
 * set) are refused before anything is written, with
 * %AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE whose context names the
 * `member` and the `reason` (and for a limit, the `limit` and the
 * `actual` amount).
 */
void
agents_sandbox_session_extract_async (AgentsSandboxSession *self,
                                      const char *path,
                                      GInputStream *data,
                                      AgentsCompressionScheme scheme,
                                      GCancellable *cancellable,
                                      GAsyncReadyCallback callback,
                                      gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));
  g_return_if_fail (path != NULL);
  g_return_if_fail (G_IS_INPUT_STREAM (data));

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_extract_async);
  extract_with_scheme (self, path, data, scheme, task);
}

/**
 * agents_sandbox_session_extract_with_limits_async:
 * @self: a session
 * @path: where the archive is written in the workspace; its members are
 *   extracted into the directory that contains it
 * @data: the archive
 * @scheme: the archive format
 * @limits: (nullable): the archive limits of this call, instead of the
 *   session's; %NULL for the session's
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: data for @callback
 *
 * Like agents_sandbox_session_extract_async(), with limits for this call
 * only. Invalid limits are refused when the extract runs. Finish with
 * agents_sandbox_session_extract_finish().
 */
void
agents_sandbox_session_extract_with_limits_async (
  AgentsSandboxSession *self,
  const char *path,
  GInputStream *data,
  AgentsCompressionScheme scheme,
  const AgentsArchiveLimits *limits,
  GCancellable *cancellable,
  GAsyncReadyCallback callback,
  gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));
  g_return_if_fail (path != NULL);
  g_return_if_fail (G_IS_INPUT_STREAM (data));

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_extract_async);
  if (limits != NULL)
    g_object_set_data_full (G_OBJECT (task), AGENTS_EXTRACT_LIMITS_KEY,
                            agents_archive_limits_copy (limits),
                            (GDestroyNotify) agents_archive_limits_free);
  extract_with_scheme (self, path, data, scheme, task);
}

/**
 * agents_sandbox_session_extract_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_extract_async().
 *
 * Returns: %TRUE on success
 */
gboolean
agents_sandbox_session_extract_finish (AgentsSandboxSession *self,
                                       GAsyncResult *result,
                                       GError **error)
{
  return finish_boolean (self, result, error);
}

/**
 * agents_sandbox_session_apply_manifest_async:
 * @self: a session
 * @only_ephemeral: whether to apply only the ephemeral entries (and
 *   skip account provisioning), as on resume
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: data for @callback
 *
 * Materializes the manifest: creates the root, provisions the manifest's
 * groups and users (`groupadd NAME`, `useradd -U -M -s /usr/sbin/nologin
 * NAME`, `usermod -aG GROUP USER`), then applies the entries in batches
 * of at most the concurrency limit's `manifest_entries`.
 */
void
agents_sandbox_session_apply_manifest_async (AgentsSandboxSession *self,
                                             gboolean only_ephemeral,
                                             GCancellable *cancellable,
                                             GAsyncReadyCallback callback,
                                             gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_apply_manifest_async);
  IFACE (self)->apply_manifest (self, only_ephemeral, task);
}

/**
 * agents_sandbox_session_apply_manifest_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_apply_manifest_async().
 *
 * Returns: (transfer container) (element-type AgentsMaterializedFile): the
 *   files written
 */
GPtrArray *
agents_sandbox_session_apply_manifest_finish (AgentsSandboxSession *self,
                                              GAsyncResult *result,
                                              GError **error)
{
  return finish_pointer (self, result, error);
}

/**
 * agents_sandbox_session_apply_entry_batch_async:
 * @self: a session
 * @targets: (element-type AgentsEntryTarget): entries with absolute
 *   destinations
 * @base_dir: (nullable) (type filename): the directory local sources are
 *   relative to; the working directory when %NULL
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: data for @callback
 *
 * Materializes a batch of entries concurrently.
 */
void
agents_sandbox_session_apply_entry_batch_async (AgentsSandboxSession *self,
                                                GPtrArray *targets,
                                                const char *base_dir,
                                                GCancellable *cancellable,
                                                GAsyncReadyCallback callback,
                                                gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));
  g_return_if_fail (targets != NULL);

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_apply_entry_batch_async);
  IFACE (self)->apply_entry_batch (self, targets, base_dir, task);
}

/**
 * agents_sandbox_session_apply_entry_batch_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_apply_entry_batch_async().
 *
 * Returns: (transfer container) (element-type AgentsMaterializedFile): the
 *   files written
 */
GPtrArray *
agents_sandbox_session_apply_entry_batch_finish (AgentsSandboxSession *self,
                                                 GAsyncResult *result,
                                                 GError **error)
{
  return finish_pointer (self, result, error);
}

/**
 * agents_sandbox_session_validate_path_access_async:
 * @self: a session
 * @path: a path as given by a caller (relative to the root, or absolute)
 * @for_write: whether the path will be written
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the normalized path
 * @user_data: data for @callback
 *
 * Checks that @path stays inside the workspace root or an extra path
 * grant (a writable one when @for_write), following symlinks as the
 * sandbox sees them. A path that escapes is an
 * %AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH error
 * (`manifest path must not escape root: PATH`).
 */
void
agents_sandbox_session_validate_path_access_async (AgentsSandboxSession *self,
                                                   const char *path,
                                                   gboolean for_write,
                                                   GCancellable *cancellable,
                                                   GAsyncReadyCallback callback,
                                                   gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));
  g_return_if_fail (path != NULL);

  task = new_task (self, cancellable, callback, user_data,
                   agents_sandbox_session_validate_path_access_async);
  IFACE (self)->validate_path_access (self, path, for_write, task);
}

/**
 * agents_sandbox_session_validate_path_access_finish:
 * @self: a session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_validate_path_access_async().
 *
 * Returns: (transfer full): the absolute, normalized path
 */
char *
agents_sandbox_session_validate_path_access_finish (AgentsSandboxSession *self,
                                                    GAsyncResult *result,
                                                    GError **error)
{
  return finish_pointer (self, result, error);
}
