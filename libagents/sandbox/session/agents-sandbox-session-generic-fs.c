/* agents-sandbox-session-generic-fs.c - ls, mkdir and rm over exec, and
 * clearing the workspace root on resume
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "agents-sandbox-error-private.h"
#include "agents-sandbox-session-generic-private.h"
#include "agents-sandbox-session-generic-task-private.h"
#include "agents-sandbox-session-private.h"

/* ---- ls, mkdir, rm ---------------------------------------------------- */

typedef enum
{
  PATH_OP_LS,
  PATH_OP_MKDIR,
  PATH_OP_RM,
} PathOpKind;

typedef struct
{
  PathOpKind kind;
  gboolean flag; /* parents / recursive */
  char *path;    /* validated, absolute */
  char *given;
  char *leaf; /* rm: the last component, kept as given */
  gboolean plain_ls;
} PathOp;

/* For an `ls` without -q (BusyBox's): lists like `ls -la`, one entry at
 * a time, with the newlines of names printed as '?' as -q would, so that
 * a name cannot forge listing lines. */
#define PLAIN_LS_SCRIPT                                            \
  "q () { printf '%s' \"$1\" | tr '\\n' '?'; echo; }; "            \
  "if [ ! -d \"$1\" ] || [ -L \"$1\" ]; then "                     \
  "l=$(ls -ld -- \"$1\") || exit 2; q \"$l\"; exit 0; fi; "        \
  "cd -- \"$1\" || exit 2; echo 'total 0'; "                       \
  "for f in .* *; do [ -e \"$f\" ] || [ -L \"$f\" ] || continue; " \
  "l=$(ls -ld -- \"$f\") || exit 2; q \"$l\"; done"

/* Empties the root, which stays: removing it would change its parent,
 * outside the workspace (and it may be a mount point). */
#define EMPTY_ROOT_SCRIPT                                                    \
  "cd -- \"$1\" || exit 1; for f in * .[!.]* ..?*; do "                      \
  "[ -e \"$f\" ] || [ -L \"$f\" ] || continue; rm -rf -- \"$f\" || exit 1; " \
  "done"

static void
path_op_exec_done (GObject *source, GAsyncResult *result, gpointer user_data);

/* Whether @error is an `ls` that does not know -q. */
static gboolean
ls_lacks_q (const GError *error)
{
  g_autoptr (GVariant) context = NULL;
  const char *stderr_text = NULL;

  if (!g_error_matches (error, AGENTS_SANDBOX_ERROR,
                        AGENTS_SANDBOX_ERROR_EXEC_NONZERO))
    return FALSE;
  context = agents_sandbox_error_get_context (error);
  return g_variant_lookup (context, "stderr", "&s", &stderr_text) &&
         (strstr (stderr_text, "invalid option") != NULL ||
          strstr (stderr_text, "unrecognized option") != NULL ||
          strstr (stderr_text, "illegal option") != NULL);
}

static gboolean
retry_ls_without_q (GTask *task, GError *error)
{
  PathOp *op = g_task_get_task_data (task);
  const char *argv[] = { "sh", "-c", PLAIN_LS_SCRIPT, "sh", op->path, NULL };

  if (op->kind != PATH_OP_LS || op->plain_ls || !ls_lacks_q (error))
    return FALSE;
  op->plain_ls = TRUE;
  agents_sandbox_session_exec_checked_async (
    task_session (task), argv, g_task_get_cancellable (task), path_op_exec_done,
    g_object_ref (task));
  return TRUE;
}

static void
path_op_free (PathOp *op)
{
  g_free (op->path);
  g_free (op->given);
  g_free (op->leaf);
  g_free (op);
}

static void
path_op_exec_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  PathOp *op = g_task_get_task_data (task);
  g_autoptr (AgentsExecResult) exec_result = NULL;
  g_autoptr (GPtrArray) entries = NULL;
  g_autofree char *out = NULL;
  GListStore *store;
  GError *error = NULL;

  exec_result = agents_sandbox_session_exec_checked_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  if (exec_result == NULL && retry_ls_without_q (task, error))
    {
      g_error_free (error);
      return;
    }
  if (exec_result == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  if (op->kind != PATH_OP_LS)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }

  out = agents_exec_result_dup_stdout_text (exec_result);
  entries = agents_file_entry_parse_ls (out, op->path, &error);
  if (entries == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  store = g_list_store_new (AGENTS_TYPE_FILE_ENTRY);
  g_list_store_splice (store, 0, 0, entries->pdata, entries->len);
  g_task_return_pointer (task, store, g_object_unref);
}

static void
path_op_validated (GObject *source, GAsyncResult *result, gpointer user_data);

/* rm acts on a link itself, not on what it points to. Once the path as
 * given passed the check (as the reference checks it), its parent is
 * resolved too, and the last component put back as given. Returns
 * whether that second check was started. */
static gboolean
rm_check_parent (GTask *task, PathOp *op)
{
  Session *self = task_session (task);
  AgentsManifest *manifest = agents_sandbox_session_get_manifest (self);
  g_autofree char *abs =
    agents_manifest_resolve_path (manifest, op->given, NULL);
  g_autofree char *parent = NULL;

  if (abs == NULL || g_str_equal (abs, agents_manifest_get_root (manifest)) ||
      g_str_equal (abs, "/"))
    return FALSE;
  op->leaf = g_path_get_basename (abs);
  parent = g_path_get_dirname (abs);
  g_clear_pointer (&op->path, g_free);
  agents_sandbox_session_validate_path_access_async (
    self, parent, TRUE, g_task_get_cancellable (task), path_op_validated, task);
  return TRUE;
}

static void
path_op_validated (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  PathOp *op = g_task_get_task_data (task);
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  GError *error = NULL;

  op->path = agents_sandbox_session_validate_path_access_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  if (op->path == NULL)
    {
      fail_task (task, error);
      return;
    }
  if (op->kind == PATH_OP_RM && op->leaf == NULL && rm_check_parent (task, op))
    return;
  if (op->leaf != NULL)
    {
      char *full = g_build_filename (op->path, op->leaf, NULL);

      g_free (op->path);
      op->path = full;
    }

  if (op->kind == PATH_OP_RM && op->flag &&
      g_str_equal (
        op->path, agents_manifest_get_root (
                    agents_sandbox_session_get_manifest (task_session (task)))))
    {
      const char *empty_root[] = { "sh", "-c",     EMPTY_ROOT_SCRIPT,
                                   "sh", op->path, NULL };

      agents_sandbox_session_exec_checked_async (
        task_session (task), empty_root, g_task_get_cancellable (task),
        path_op_exec_done, task);
      return;
    }

  switch (op->kind)
    {
    case PATH_OP_LS:
      g_ptr_array_add (argv, "ls");
      /* -q (POSIX): non-printable characters in names print as '?', so
       * a name holding a newline cannot forge listing lines. */
      g_ptr_array_add (argv, "-laq");
      break;
    case PATH_OP_MKDIR:
      g_ptr_array_add (argv, "mkdir");
      if (op->flag)
        g_ptr_array_add (argv, "-p");
      break;
    case PATH_OP_RM:
      g_ptr_array_add (argv, "rm");
      if (op->flag)
        g_ptr_array_add (argv, "-rf");
      break;
    }
  g_ptr_array_add (argv, "--");
  g_ptr_array_add (argv, op->path);
  g_ptr_array_add (argv, NULL);

  agents_sandbox_session_exec_checked_async (
    task_session (task), (const char *const *) argv->pdata,
    g_task_get_cancellable (task), path_op_exec_done, task);
}

static void
run_path_op (
  Session *self, GTask *task, PathOpKind kind, const char *path, gboolean flag)
{
  PathOp *op = g_new0 (PathOp, 1);

  op->kind = kind;
  op->flag = flag;
  op->given = g_strdup (path);
  g_task_set_task_data (task, op, (GDestroyNotify) path_op_free);
  agents_sandbox_session_validate_path_access_async (
    self, path, kind != PATH_OP_LS, g_task_get_cancellable (task),
    path_op_validated, g_object_ref (task));
}

void
agents_sandbox_session_real_ls (Session *self, const char *path, GTask *task)
{
  run_path_op (self, task, PATH_OP_LS, path, FALSE);
}

void
agents_sandbox_session_real_mkdir (Session *self,
                                   const char *path,
                                   gboolean parents,
                                   GTask *task)
{
  run_path_op (self, task, PATH_OP_MKDIR, path, parents);
}

void
agents_sandbox_session_real_rm (Session *self,
                                const char *path,
                                gboolean recursive,
                                GTask *task)
{
  run_path_op (self, task, PATH_OP_RM, path, recursive);
}

/* ---- clear_workspace_root_on_resume ----------------------------------- */

/**
 * agents_manifest_get_mount_paths:
 * @self: a manifest
 *
 * Gets the absolute paths of the manifest's mounts: the logical path of
 * each mount entry and, when it has one, its mount path. Workspace
 * archives leave these out and clearing a workspace on resume keeps them.
 *
 * Returns: (transfer container) (element-type filename): the paths
 */
GPtrArray *
agents_manifest_get_mount_paths (AgentsManifest *manifest)
{
  GPtrArray *skip = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) mounts = agents_manifest_list_mounts (manifest);
  const char *root = agents_manifest_get_root (manifest);

  for (guint i = 0; i < mounts->len; i++)
    {
      AgentsEntryTarget *target = g_ptr_array_index (mounts, i);
      const char *mount_path =
        agents_mount_get_mount_path (AGENTS_MOUNT (target->entry));

      g_ptr_array_add (skip, g_canonicalize_filename (target->path, "/"));
      if (mount_path != NULL)
        g_ptr_array_add (skip, g_canonicalize_filename (mount_path, root));
    }
  return skip;
}

typedef struct
{
  GPtrArray *skip;   /* absolute paths */
  GPtrArray *frames; /* stack of ClearFrame */
} ClearOp;

typedef struct
{
  GListModel *entries;
  guint next;
} ClearFrame;

static void
clear_frame_free (ClearFrame *frame)
{
  g_object_unref (frame->entries);
  g_free (frame);
}

static void
clear_op_free (ClearOp *op)
{
  g_ptr_array_unref (op->skip);
  g_ptr_array_unref (op->frames);
  g_free (op);
}

static gboolean
path_in (GPtrArray *paths, const char *path)
{
  for (guint i = 0; i < paths->len; i++)
    if (g_strcmp0 (g_ptr_array_index (paths, i), path) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
path_is_ancestor_of_any (const char *path, GPtrArray *paths)
{
  g_autofree char *prefix = g_str_has_suffix (path, "/")
                              ? g_strdup (path)
                              : g_strconcat (path, "/", NULL);

  for (guint i = 0; i < paths->len; i++)
    if (g_str_has_prefix (g_ptr_array_index (paths, i), prefix))
      return TRUE;
  return FALSE;
}

static void clear_next (GTask *task);

static void
clear_step_done (GTask *task, GError *error)
{
  if (error != NULL)
    {
      fail_task (task, error);
      return;
    }
  clear_next (task);
}

static void
clear_rm_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GError *error = NULL;

  agents_sandbox_session_rm_finish (AGENTS_SANDBOX_SESSION (source), result,
                                    &error);
  clear_step_done (user_data, error);
}

static void
clear_ls_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  ClearOp *op = g_task_get_task_data (task);
  GListModel *entries;
  ClearFrame *frame;
  GError *error = NULL;

  entries = agents_sandbox_session_ls_finish (AGENTS_SANDBOX_SESSION (source),
                                              result, &error);
  if (entries == NULL)
    {
      clear_step_done (task, error);
      return;
    }
  frame = g_new0 (ClearFrame, 1);
  frame->entries = entries;
  g_ptr_array_add (op->frames, frame);
  clear_next (task);
}

static void
clear_next (GTask *task)
{
  ClearOp *op = g_task_get_task_data (task);
  ClearFrame *frame;
  g_autoptr (AgentsFileEntry) entry = NULL;
  g_autofree char *path = NULL;

  while (op->frames->len > 0)
    {
      frame = g_ptr_array_index (op->frames, op->frames->len - 1);
      if (frame->next < g_list_model_get_n_items (frame->entries))
        break;
      g_ptr_array_remove_index (op->frames, op->frames->len - 1);
    }
  if (op->frames->len == 0)
    {
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }

  entry = g_list_model_get_item (frame->entries, frame->next++);
  path = g_canonicalize_filename (agents_file_entry_get_path (entry), "/");
  if (path_in (op->skip, path))
    {
      clear_next (task);
      return;
    }
  if (agents_file_entry_is_dir (entry) &&
      path_is_ancestor_of_any (path, op->skip))
    agents_sandbox_session_ls_async (task_session (task), path,
                                     g_task_get_cancellable (task),
                                     clear_ls_done, task);
  else
    agents_sandbox_session_rm_async (task_session (task), path, TRUE,
                                     g_task_get_cancellable (task),
                                     clear_rm_done, task);
}

void
agents_sandbox_session_real_clear_workspace_root_on_resume (Session *self,
                                                            GTask *task)
{
  AgentsManifest *manifest = agents_sandbox_session_get_manifest (self);
  g_autofree char *root =
    g_canonicalize_filename (agents_manifest_get_root (manifest), "/");
  ClearOp *op = g_new0 (ClearOp, 1);

  op->skip = agents_manifest_get_mount_paths (manifest);
  op->frames =
    g_ptr_array_new_with_free_func ((GDestroyNotify) clear_frame_free);
  g_task_set_task_data (task, op, (GDestroyNotify) clear_op_free);

  if (path_in (op->skip, root))
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  agents_sandbox_session_ls_async (self, root, g_task_get_cancellable (task),
                                   clear_ls_done, g_object_ref (task));
}
