/* agents-archive.c - safe extraction: the entry points, the async form,
 * telling an archive's scheme from its name
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "agents-archive-extract-private.h"
#include "agents-archive-private.h"
#include "agents-sandbox-error-private.h"

/**
 * agents_archive_extract_to_directory:
 * @archive: the archive
 * @root: (type filename): an existing directory to extract beneath
 * @scheme: the archive format
 * @limits: (nullable): the limits to enforce; %NULL for the defaults of
 *   agents_archive_limits_new()
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Extracts a hostile archive safely. Members that would land outside
 * @root (absolute names, `..`, links escaping it, writes through
 * symlinks), device nodes, fifos and sockets are refused with
 * %AGENTS_SANDBOX_ERROR_UNSAFE_ARCHIVE_MEMBER; an archive beyond @limits
 * fails with %AGENTS_SANDBOX_ERROR_ARCHIVE_LIMIT. Every file is created
 * beneath a directory descriptor of @root with `openat2(RESOLVE_BENEATH)`.
 * On failure the members already extracted stay in @root; nothing is ever
 * written outside it.
 *
 * This blocks: call it from a worker thread, or use
 * agents_archive_extract_to_directory_async().
 *
 * Returns: %TRUE on success
 */
gboolean
agents_archive_extract_to_directory (GInputStream *archive,
                                     const char *root,
                                     AgentsCompressionScheme scheme,
                                     const AgentsArchiveLimits *limits,
                                     GCancellable *cancellable,
                                     GError **error)
{
  g_return_val_if_fail (G_IS_INPUT_STREAM (archive), FALSE);
  g_return_val_if_fail (root != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return agents_archive_extract_full (archive, NULL, root, scheme, limits,
                                      AGENTS_ARCHIVE_LINKS_INSIDE, cancellable,
                                      error);
}

gboolean
agents_archive_extract_named (GInputStream *archive,
                              const char *archive_name,
                              const char *root,
                              AgentsCompressionScheme scheme,
                              const AgentsArchiveLimits *limits,
                              GCancellable *cancellable,
                              GError **error)
{
  return agents_archive_extract_full (archive, archive_name, root, scheme,
                                      limits, AGENTS_ARCHIVE_LINKS_INSIDE,
                                      cancellable, error);
}

gboolean
agents_archive_extract_user (GInputStream *archive,
                             const char *archive_name,
                             const char *root,
                             AgentsCompressionScheme scheme,
                             const AgentsArchiveLimits *limits,
                             GCancellable *cancellable,
                             GError **error)
{
  return agents_archive_extract_full (archive, archive_name, root, scheme,
                                      limits, AGENTS_ARCHIVE_LINKS_NONE,
                                      cancellable, error);
}

static void extract_async (GInputStream *archive,
                           const char *root,
                           AgentsCompressionScheme scheme,
                           const AgentsArchiveLimits *limits,
                           AgentsArchiveLinkPolicy links,
                           GCancellable *cancellable,
                           GAsyncReadyCallback callback,
                           gpointer user_data);

typedef struct
{
  GInputStream *archive;
  char *root;
  AgentsCompressionScheme scheme;
  AgentsArchiveLimits limits;
  gboolean has_limits;
  AgentsArchiveLinkPolicy links;
} ExtractTaskData;

static void
extract_task_data_free (gpointer data)
{
  ExtractTaskData *td = data;

  g_object_unref (td->archive);
  g_free (td->root);
  g_free (td);
}

static void
extract_thread (GTask *task,
                gpointer source_object,
                gpointer task_data,
                GCancellable *cancellable)
{
  ExtractTaskData *td = task_data;
  GError *error = NULL;

  if (agents_archive_extract_full (td->archive, NULL, td->root, td->scheme,
                                   td->has_limits ? &td->limits : NULL,
                                   td->links, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

/**
 * agents_archive_extract_to_directory_async:
 * @archive: the archive
 * @root: (type filename): an existing directory to extract beneath
 * @scheme: the archive format
 * @limits: (nullable): the limits to enforce; %NULL for the defaults
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: data for @callback
 *
 * Runs agents_archive_extract_to_directory() in a worker thread.
 */
void
agents_archive_extract_to_directory_async (GInputStream *archive,
                                           const char *root,
                                           AgentsCompressionScheme scheme,
                                           const AgentsArchiveLimits *limits,
                                           GCancellable *cancellable,
                                           GAsyncReadyCallback callback,
                                           gpointer user_data)
{
  g_return_if_fail (G_IS_INPUT_STREAM (archive));
  g_return_if_fail (root != NULL);

  extract_async (archive, root, scheme, limits, AGENTS_ARCHIVE_LINKS_INSIDE,
                 cancellable, callback, user_data);
}

/**
 * agents_archive_extract_snapshot_to_directory_async:
 * @archive: a tar archive of a workspace, made by
 *   agents_archive_tar_directory() (or a backend's persist)
 * @root: (type filename): an existing directory to extract beneath
 * @limits: (nullable): the limits to enforce; %NULL for the defaults
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: data for @callback
 *
 * Restores a workspace snapshot: like
 * agents_archive_extract_to_directory_async() (finish it with
 * agents_archive_extract_to_directory_finish()), except that symlinks
 * come back as they were, whatever they point to — a snapshot keeps what
 * the workspace held, such as a virtualenv's `bin/python3` pointing at
 * `/usr/bin/python3` or a link to `/etc` a command made. Every other rule
 * stays: no member is ever written through a symlink, nor outside @root.
 * Archives from users go through
 * agents_archive_extract_to_directory_async(), which refuses links
 * leading out.
 */
void
agents_archive_extract_snapshot_to_directory_async (
  GInputStream *archive,
  const char *root,
  const AgentsArchiveLimits *limits,
  GCancellable *cancellable,
  GAsyncReadyCallback callback,
  gpointer user_data)
{
  g_return_if_fail (G_IS_INPUT_STREAM (archive));
  g_return_if_fail (root != NULL);

  extract_async (archive, root, AGENTS_COMPRESSION_SCHEME_TAR, limits,
                 AGENTS_ARCHIVE_LINKS_KEEP, cancellable, callback, user_data);
}

/**
 * agents_archive_extract_workspace_to_directory_async:
 * @archive: a tar archive of a workspace
 * @root: (type filename): an existing directory to extract beneath
 * @limits: (nullable): the limits to enforce; %NULL for the defaults
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: data for @callback
 *
 * Hydrates a workspace strictly, as the reference's unix_local backend
 * does: like agents_archive_extract_snapshot_to_directory_async() (finish
 * it with agents_archive_extract_to_directory_finish()), except that a
 * symlink member must stay beneath @root. Relative links within it (a
 * virtualenv's `bin/python` pointing at `python3`) come back; a link with
 * an absolute target, or one whose relative target leads out of @root,
 * fails with %AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE, context
 * `path` (@root), `member` and `reason` (`absolute symlink target not
 * allowed: TARGET` or `symlink target escapes workspace root: TARGET`),
 * and is never created.
 */
void
agents_archive_extract_workspace_to_directory_async (
  GInputStream *archive,
  const char *root,
  const AgentsArchiveLimits *limits,
  GCancellable *cancellable,
  GAsyncReadyCallback callback,
  gpointer user_data)
{
  g_return_if_fail (G_IS_INPUT_STREAM (archive));
  g_return_if_fail (root != NULL);

  extract_async (archive, root, AGENTS_COMPRESSION_SCHEME_TAR, limits,
                 AGENTS_ARCHIVE_LINKS_KEEP_INSIDE, cancellable, callback,
                 user_data);
}

static void
extract_async (GInputStream *archive,
               const char *root,
               AgentsCompressionScheme scheme,
               const AgentsArchiveLimits *limits,
               AgentsArchiveLinkPolicy links,
               GCancellable *cancellable,
               GAsyncReadyCallback callback,
               gpointer user_data)
{
  g_autoptr (GTask) task = NULL;
  ExtractTaskData *td;

  td = g_new0 (ExtractTaskData, 1);
  td->links = links;
  td->archive = g_object_ref (archive);
  td->root = g_strdup (root);
  td->scheme = scheme;
  if (limits != NULL)
    {
      td->limits = *limits;
      td->has_limits = TRUE;
    }

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_archive_extract_to_directory_async);
  g_task_set_task_data (task, td, extract_task_data_free);
  g_task_run_in_thread (task, extract_thread);
}

/**
 * agents_archive_extract_to_directory_finish:
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_archive_extract_to_directory_async().
 *
 * Returns: %TRUE on success
 */
gboolean
agents_archive_extract_to_directory_finish (GAsyncResult *result,
                                            GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  g_return_val_if_fail (g_async_result_is_tagged (
                          result, agents_archive_extract_to_directory_async),
                        FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* The last suffix of @path's file name, without its dot, as Python's
 * PurePath.suffix has it: none for a name that only starts with a dot or
 * ends with one. */
static char *
last_suffix (const char *path)
{
  g_autofree char *name = g_path_get_basename (path);
  const char *dot = strrchr (name, '.');

  if (dot == NULL || dot == name || dot[1] == '\0')
    return g_strdup ("");
  return g_strdup (dot + 1);
}

/**
 * agents_archive_compression_scheme_for_path:
 * @path: the path of an archive
 * @scheme: (out): the scheme its name says
 * @error: return location for a #GError
 *
 * Tells the scheme of an archive from the last suffix of its file name:
 * `tar` or `zip`. Any other (`bundle.rar`, and `bundle.tar.gz`, whose last
 * suffix is `gz`) is an %AGENTS_SANDBOX_ERROR_INVALID_COMPRESSION_SCHEME
 * error with the context {scheme}.
 *
 * Returns: %TRUE on success
 */
gboolean
agents_archive_compression_scheme_for_path (const char *path,
                                            AgentsCompressionScheme *scheme,
                                            GError **error)
{
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  g_autofree char *suffix = NULL;
  g_autofree char *display = NULL;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (scheme != NULL, FALSE);

  suffix = last_suffix (path);
  if (strcmp (suffix, "tar") == 0 || strcmp (suffix, "zip") == 0)
    {
      *scheme = suffix[0] == 't' ? AGENTS_COMPRESSION_SCHEME_TAR
                                 : AGENTS_COMPRESSION_SCHEME_ZIP;
      return TRUE;
    }
  display = g_utf8_make_valid (suffix, -1);
  g_variant_builder_add (&ctx, "{sv}", "scheme",
                         g_variant_new_string (display));
  agents_sandbox_error_set (error,
                            AGENTS_SANDBOX_ERROR_INVALID_COMPRESSION_SCHEME,
                            g_variant_builder_end (&ctx),
                            _ ("compression scheme must be one of 'zip' "
                               "'tar'"));
  return FALSE;
}
