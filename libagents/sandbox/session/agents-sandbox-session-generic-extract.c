/* agents-sandbox-session-generic-extract.c - extracting an archive into the
 * workspace through the write primitive
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "agents-archive-private.h"
#include "agents-fs-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-sandbox-session-generic-private.h"
#include "agents-sandbox-session-generic-task-private.h"
#include "agents-sandbox-session-private.h"

/* ---- extract ---------------------------------------------------------- */

/*
 * The generic extract works for any backend: the archive is spooled to a
 * host temp file, validated and extracted into a host temp directory (all
 * the archive rules and limits apply there), and the result is then
 * recreated in the workspace through the session's own primitives, so the
 * backend's path confinement applies to every file as well.
 */

typedef enum
{
  ITEM_DIR,
  ITEM_FILE,
  ITEM_SYMLINK,
} ItemKind;

typedef struct
{
  ItemKind kind;
  char *rel;
  char *target; /* symlinks */
} ExtractItem;

typedef struct
{
  char *abs; /* where the archive goes */
  GInputStream *data;
  AgentsCompressionScheme scheme;
  AgentsArchiveLimits *limits;
  char *spool; /* host temp file */
  char *tree;  /* host temp dir */
  GPtrArray *items;
  guint next;
} ExtractOp;

static void
extract_item_free (ExtractItem *item)
{
  g_free (item->rel);
  g_free (item->target);
  g_free (item);
}

static void
extract_op_free (ExtractOp *op)
{
  if (op->spool != NULL)
    g_unlink (op->spool);
  if (op->tree != NULL)
    agents_fs_rm_rf_in_background (op->tree);
  g_free (op->abs);
  g_clear_object (&op->data);
  g_clear_pointer (&op->limits, agents_archive_limits_free);
  g_free (op->spool);
  g_free (op->tree);
  g_clear_pointer (&op->items, g_ptr_array_unref);
  g_free (op);
}

/* The reference's texts for the extractor's reason codes. */
static char *
archive_reason_text (const char *code, const char *detail)
{
  static const struct
  {
    const char *code;
    const char *text;
  } texts[] = {
    { "empty_name", "empty path" },
    { "absolute_path", "absolute path" },
    { "parent_reference", "parent traversal" },
    { "windows_drive_path", "windows drive path" },
    { "windows_path_separator", "windows path separator" },
    { "name_too_long", "path too long" },
    { "link_member", "link member not allowed" },
    { "special_file", "special file member not allowed" },
    { "invalid_root_member", "invalid archive root member" },
    { "symlink_escape", "path escapes root after resolution" },
    { "duplicate_path", "duplicate archive path: " },
    { "parent_not_directory", "parent path is not a directory: " },
    { "destination_is_directory", "destination directory already exists: " },
    { "max_members", "archive member count exceeds limit" },
    { "max_input_bytes", "archive input size exceeds limit" },
    { "max_extracted_bytes", "archive extracted size exceeds limit" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    if (g_strcmp0 (code, texts[i].code) == 0)
      return g_str_has_suffix (texts[i].text, ": ")
               ? g_strconcat (texts[i].text, detail ? detail : "", NULL)
               : g_strdup (texts[i].text);
  return g_strdup (code);
}

static void
ctx_copy (GVariantBuilder *ctx, GVariant *from, const char *key, const char *as)
{
  g_autoptr (GVariant) value = g_variant_lookup_value (from, key, NULL);

  if (value != NULL)
    g_variant_builder_add (ctx, "{sv}", as, value);
}

/* An unsafe member or an archive over a limit, as the reference reports
 * them: a WORKSPACE_ARCHIVE_WRITE for the archive's path, with the member,
 * the reason's text (and its code), and for a limit the limit and the
 * amount reached. Other errors pass unchanged. */
static void
archive_error_to_write_error (GError **error, const char *archive_path)
{
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  g_autoptr (GVariant) from = NULL;
  g_autofree char *reason = NULL;
  g_autofree char *display = NULL;
  const char *code = NULL;
  const char *detail = NULL;
  gboolean limit;

  if (!g_error_matches (*error, AGENTS_SANDBOX_ERROR,
                        AGENTS_SANDBOX_ERROR_UNSAFE_ARCHIVE_MEMBER) &&
      !g_error_matches (*error, AGENTS_SANDBOX_ERROR,
                        AGENTS_SANDBOX_ERROR_ARCHIVE_LIMIT))
    return;
  limit = (*error)->code == AGENTS_SANDBOX_ERROR_ARCHIVE_LIMIT;
  from = agents_sandbox_error_get_context (*error);
  g_variant_lookup (from, limit ? "limit" : "reason", "&s", &code);
  g_variant_lookup (from, "detail", "&s", &detail);
  reason = archive_reason_text (code, detail);
  display = g_utf8_make_valid (archive_path, -1);

  g_variant_builder_add (&ctx, "{sv}", "path", g_variant_new_string (display));
  ctx_copy (&ctx, from, "member", "member");
  g_variant_builder_add (&ctx, "{sv}", "reason", g_variant_new_string (reason));
  g_variant_builder_add (&ctx, "{sv}", "code",
                         g_variant_new_string (code ? code : ""));
  if (limit)
    {
      ctx_copy (&ctx, from, "value", "limit");
      ctx_copy (&ctx, from, "actual", "actual");
    }
  g_clear_error (error);
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE,
                            g_variant_builder_end (&ctx),
                            _ ("failed to write archive for path: %s"),
                            display);
}

static gboolean
spool_archive (ExtractOp *op, GCancellable *cancellable, GError **error)
{
  g_autoptr (GFileIOStream) io = NULL;
  g_autoptr (GFile) file =
    g_file_new_tmp ("agents-extract-XXXXXX.archive", &io, error);
  GOutputStream *out;
  char buffer[64 * 1024];
  gint64 total = 0;
  gssize n;

  if (file == NULL)
    return FALSE;
  op->spool = g_file_get_path (file);
  out = g_io_stream_get_output_stream (G_IO_STREAM (io));

  while ((n = g_input_stream_read (op->data, buffer, sizeof buffer, cancellable,
                                   error)) > 0)
    {
      total += n;
      if (total > op->limits->max_input_bytes)
        return agents_archive_set_limit_error_full (
          error, "max_input_bytes", op->limits->max_input_bytes, NULL, total);
      if (!g_output_stream_write_all (out, buffer, n, NULL, cancellable, error))
        return FALSE;
    }
  if (n < 0)
    return FALSE;
  return g_io_stream_close (G_IO_STREAM (io), cancellable, error);
}

static gboolean
collect_items (GPtrArray *items,
               const char *tree,
               const char *rel,
               GError **error)
{
  g_autofree char *dir_path =
    rel ? g_build_filename (tree, rel, NULL) : g_strdup (tree);
  g_autoptr (GDir) dir = g_dir_open (dir_path, 0, error);
  const char *name;

  if (dir == NULL)
    return FALSE;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child_rel =
        rel ? g_build_filename (rel, name, NULL) : g_strdup (name);
      g_autofree char *child = g_build_filename (tree, child_rel, NULL);
      ExtractItem *item = g_new0 (ExtractItem, 1);
      GStatBuf st;

      if (g_lstat (child, &st) != 0)
        {
          extract_item_free (item);
          continue;
        }
      item->rel = g_strdup (child_rel);
      if (S_ISLNK (st.st_mode))
        {
          item->kind = ITEM_SYMLINK;
          item->target = g_file_read_link (child, NULL);
        }
      else if (S_ISDIR (st.st_mode))
        item->kind = ITEM_DIR;
      else
        item->kind = ITEM_FILE;
      g_ptr_array_add (items, item);

      if (item->kind == ITEM_DIR &&
          !collect_items (items, tree, child_rel, error))
        return FALSE;
    }
  return TRUE;
}

static void
extract_prepare_thread (GTask *task,
                        gpointer source,
                        gpointer task_data,
                        GCancellable *cancellable)
{
  ExtractOp *op = task_data;
  g_autoptr (GFile) spool = NULL;
  g_autoptr (GFileInputStream) in = NULL;
  GError *error = NULL;

  if (!agents_archive_limits_validate (op->limits, &error))
    goto out;
  if (!spool_archive (op, cancellable, &error))
    {
      archive_error_to_write_error (&error, op->abs);
      goto out;
    }

  op->tree = g_dir_make_tmp ("agents-extract-XXXXXX", &error);
  if (op->tree == NULL)
    goto out;

  spool = g_file_new_for_path (op->spool);
  in = g_file_read (spool, cancellable, &error);
  /* Errors name the archive the caller gave, not our temp directory. */
  if (in == NULL || !agents_archive_extract_user (
                      G_INPUT_STREAM (in), op->abs, op->tree, op->scheme,
                      op->limits, cancellable, &error))
    {
      archive_error_to_write_error (&error, op->abs);
      goto out;
    }

  op->items =
    g_ptr_array_new_with_free_func ((GDestroyNotify) extract_item_free);
  collect_items (op->items, op->tree, NULL, &error);

out:
  return_error_or_true (task, error);
}

static void extract_next_item (GTask *task);

/* The first member at or beneath the item at @index that is not a
 * directory: the one the reference names (items are depth first). */
static const char *
item_member (ExtractOp *op, guint index)
{
  ExtractItem *item = g_ptr_array_index (op->items, index);
  g_autofree char *prefix = g_strconcat (item->rel, "/", NULL);

  for (guint i = index + 1; i < op->items->len; i++)
    {
      ExtractItem *next = g_ptr_array_index (op->items, i);

      if (!g_str_has_prefix (next->rel, prefix))
        break;
      if (next->kind != ITEM_DIR)
        return next->rel;
    }
  return item->rel;
}

/* A member the workspace refuses to take (a symlink in the workspace on
 * its way leads out of it), as the reference reports it: a
 * WORKSPACE_ARCHIVE_WRITE for the archive's path, with the member and
 * the reason. */
static void
item_error_to_write_error (ExtractOp *op, GError **error)
{
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  ExtractItem *item;
  g_autofree char *reason = NULL;
  g_autofree char *display = NULL;

  if (!g_error_matches (*error, AGENTS_SANDBOX_ERROR,
                        AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH) ||
      op->next == 0)
    return;
  item = g_ptr_array_index (op->items, op->next - 1);
  /* Directories come before what is in them: one that leads out is a
   * symlink on the way of the members beneath it. */
  reason = item->kind == ITEM_DIR
             ? g_strconcat ("symlink in parent path: ", item->rel, NULL)
             : g_strdup ("path escapes root after resolution");
  display = g_utf8_make_valid (op->abs, -1);
  g_variant_builder_add (&ctx, "{sv}", "path", g_variant_new_string (display));
  g_variant_builder_add (&ctx, "{sv}", "member",
                         g_variant_new_string (item_member (op, op->next - 1)));
  g_variant_builder_add (&ctx, "{sv}", "reason", g_variant_new_string (reason));
  g_variant_builder_add (&ctx, "{sv}", "code",
                         g_variant_new_string ("symlink_escape"));
  g_clear_error (error);
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE,
                            g_variant_builder_end (&ctx),
                            _ ("failed to write archive for path: %s"),
                            display);
}

static void
extract_item_written (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  GError *error = NULL;

  if (g_task_get_source_tag (G_TASK (result)) ==
      agents_sandbox_session_exec_checked_async)
    {
      g_autoptr (AgentsExecResult) r =
        agents_sandbox_session_exec_checked_finish (
          AGENTS_SANDBOX_SESSION (source), result, &error);
    }
  else if (g_task_get_source_tag (G_TASK (result)) ==
           agents_sandbox_session_mkdir_async)
    agents_sandbox_session_mkdir_finish (AGENTS_SANDBOX_SESSION (source),
                                         result, &error);
  else
    agents_sandbox_session_write_finish (AGENTS_SANDBOX_SESSION (source),
                                         result, &error);

  if (error != NULL)
    {
      item_error_to_write_error (g_task_get_task_data (task), &error);
      fail_task (task, error);
      return;
    }
  extract_next_item (task);
}

static void
extract_next_item (GTask *task)
{
  Session *self = task_session (task);
  ExtractOp *op = g_task_get_task_data (task);
  g_autofree char *dest_dir = g_path_get_dirname (op->abs);
  g_autofree char *dest = NULL;
  ExtractItem *item;

  if (op->next >= op->items->len)
    {
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }
  item = g_ptr_array_index (op->items, op->next++);
  dest = g_build_filename (dest_dir, item->rel, NULL);

  switch (item->kind)
    {
    case ITEM_DIR:
      agents_sandbox_session_mkdir_async (self, dest, TRUE,
                                          g_task_get_cancellable (task),
                                          extract_item_written, task);
      break;
    case ITEM_SYMLINK:
      {
        const char *argv[] = { "ln", "-sfn", "--", item->target, dest, NULL };

        agents_sandbox_session_exec_checked_async (
          self, argv, g_task_get_cancellable (task), extract_item_written,
          task);
      }
      break;
    case ITEM_FILE:
      {
        g_autofree char *src = g_build_filename (op->tree, item->rel, NULL);
        g_autoptr (GFile) file = g_file_new_for_path (src);
        g_autoptr (GFileInputStream) in = g_file_read (file, NULL, NULL);

        if (in == NULL)
          {
            extract_next_item (task);
            return;
          }
        agents_sandbox_session_write_async (self, dest, G_INPUT_STREAM (in),
                                            NULL, g_task_get_cancellable (task),
                                            extract_item_written, task);
      }
      break;
    }
}

static void
extract_archive_written (GObject *source,
                         GAsyncResult *result,
                         gpointer user_data)
{
  GTask *task = user_data;
  GError *error = NULL;

  if (!agents_sandbox_session_write_finish (AGENTS_SANDBOX_SESSION (source),
                                            result, &error))
    {
      fail_task (task, error);
      return;
    }
  extract_next_item (task);
}

static void
extract_prepared (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  ExtractOp *op = g_task_get_task_data (task);
  g_autoptr (GFile) spool = NULL;
  g_autoptr (GFileInputStream) in = NULL;
  GError *error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      fail_task (task, error);
      return;
    }
  spool = g_file_new_for_path (op->spool);
  in = g_file_read (spool, NULL, &error);
  if (in == NULL)
    {
      fail_task (task, error);
      return;
    }
  agents_sandbox_session_write_async (
    task_session (task), op->abs, G_INPUT_STREAM (in), NULL,
    g_task_get_cancellable (task), extract_archive_written, task);
}

static void
extract_validated (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  ExtractOp *op = g_task_get_task_data (task);
  g_autoptr (GTask) prepare = NULL;
  GError *error = NULL;

  op->abs = agents_sandbox_session_validate_path_access_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  if (op->abs == NULL)
    {
      fail_task (task, error);
      return;
    }
  prepare =
    g_task_new (source, g_task_get_cancellable (task), extract_prepared, task);
  g_task_set_task_data (prepare, op, NULL);
  g_task_run_in_thread (prepare, extract_prepare_thread);
}

void
agents_sandbox_session_real_extract (Session *self,
                                     const char *path,
                                     GInputStream *data,
                                     AgentsCompressionScheme scheme,
                                     GTask *task)
{
  const AgentsArchiveLimits *limits =
    g_object_get_data (G_OBJECT (task), AGENTS_EXTRACT_LIMITS_KEY);
  ExtractOp *op = g_new0 (ExtractOp, 1);

  if (limits == NULL)
    limits = agents_sandbox_session_get_archive_limits (self);

  op->data = g_object_ref (data);
  op->scheme = scheme;
  op->limits =
    limits ? agents_archive_limits_copy (limits) : agents_archive_limits_new ();
  g_task_set_task_data (task, op, (GDestroyNotify) extract_op_free);

  agents_sandbox_session_validate_path_access_async (
    self, path, TRUE, g_task_get_cancellable (task), extract_validated,
    g_object_ref (task));
}
