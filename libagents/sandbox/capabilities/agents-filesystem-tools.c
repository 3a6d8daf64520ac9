/* agents-filesystem-tools.c - apply_patch and view_image
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The reference's filesystem tools (wave2-reference §2.1, §2.3). Their
 * schemas, grammar and output texts are wire format, kept exactly; the
 * descriptions are our own. Outputs and errors are read by the model, so
 * they are not translated.
 */

#include "config.h"

#include <string.h>

#include "agents-apply-diff-private.h"
#include "agents-apply-patch-parse-private.h"
#include "agents-capability-private.h"
#include "agents-filesystem-tools-private.h"
#include "agents-json-private.h"
#include "agents-manifest-private.h"
#include "agents-pytext-private.h"
#include "agents-workspace-scope-private.h"
#include "agents-sandbox-error.h"
#include "agents-sandbox-session.h"
#include "run/agents-custom-tool.h"
#include "run/agents-tool-output.h"

static AgentsSandboxSession *
session_of (AgentsCapability *capability, GError **error)
{
  AgentsSandboxSession *session = agents_capability_get_session (capability);

  if (session == NULL)
    g_set_error (error, AGENTS_SANDBOX_ERROR,
                 AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                 "Filesystem capability is not bound to a SandboxSession");
  return session;
}

/* ---- view_image -------------------------------------------------------- */

static gboolean
has_prefix (const guchar *data, gsize size, const char *prefix, gsize length)
{
  return size >= length && memcmp (data, prefix, length) == 0;
}

static gboolean
looks_like_svg (const guchar *data, gsize size)
{
  g_autofree char *head =
    g_ascii_strdown ((const char *) data, MIN (size, 2048));
  const char *start = head;

  while (*start != '\0' && g_ascii_isspace (*start))
    start++;
  return g_str_has_prefix (start, "<svg") ||
         (g_str_has_prefix (start, "<?xml") && strstr (start, "<svg") != NULL);
}

const char *
agents_sniff_image_type (const guchar *data, gsize size, const char *path)
{
  g_autofree char *lower = g_ascii_strdown (path ? path : "", -1);

  if (has_prefix (data, size, "\x89PNG\r\n\x1a\n", 8))
    return "image/png";
  if (has_prefix (data, size, "\xff\xd8\xff", 3))
    return "image/jpeg";
  if (has_prefix (data, size, "GIF87a", 6) ||
      has_prefix (data, size, "GIF89a", 6))
    return "image/gif";
  if (size >= 12 && memcmp (data, "RIFF", 4) == 0 &&
      memcmp (data + 8, "WEBP", 4) == 0)
    return "image/webp";
  if (has_prefix (data, size, "BM", 2))
    return "image/bmp";
  if (has_prefix (data, size, "II*\0", 4) ||
      has_prefix (data, size, "MM\0*", 4))
    return "image/tiff";
  if (looks_like_svg (data, size) || g_str_has_suffix (lower, ".svg") ||
      g_str_has_suffix (lower, ".svgz"))
    return "image/svg+xml";
  return NULL;
}

typedef struct
{
  char *path;
  GInputStream *stream;
  guchar *buffer;
} ViewImage;

static void
view_image_free (ViewImage *view)
{
  g_free (view->path);
  g_clear_object (&view->stream);
  g_free (view->buffer);
  g_free (view);
}

static void return_view_text (GTask *task, const char *format, ...)
  G_GNUC_PRINTF (2, 3);

static void
return_view_text (GTask *task, const char *format, ...)
{
  g_autofree char *text = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  agents_tool_return_text (task, text);
}

/* What the model reads for a failed read: the error's kind, never its
 * message (which may name host paths). */
static void
return_read_failure (GTask *task, const char *path, GError *error)
{
  g_autofree char *text = NULL;

  if (g_error_matches (error, AGENTS_SANDBOX_ERROR,
                       AGENTS_SANDBOX_ERROR_WORKSPACE_READ_NOT_FOUND) ||
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    {
      return_view_text (task, "image path `%s` was not found", path);
      return;
    }
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
      g_error_matches (error, AGENTS_SANDBOX_ERROR,
                       AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH))
    {
      g_task_return_error (task, g_error_copy (error));
      return;
    }
  text = g_strdup_printf ("unable to read image at `%s`: %s", path,
                          g_quark_to_string (error->domain));
  agents_tool_return_text (task, text);
}

static void
view_image_read_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  ViewImage *view = g_task_get_task_data (task);
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsToolOutput) output = NULL;
  g_autoptr (GBytes) bytes = NULL;
  const char *mime;
  gsize size = 0;

  if (!g_input_stream_read_all_finish (G_INPUT_STREAM (source), result, &size,
                                       &error))
    {
      return_read_failure (task, view->path, error);
      return;
    }
  if (size > AGENTS_VIEW_IMAGE_MAX_BYTES)
    {
      return_view_text (task,
                        "image path `%s` exceeded the allowed size of 10MB; "
                        "resize or compress the image and try again",
                        view->path);
      return;
    }
  mime = agents_sniff_image_type (view->buffer, size, view->path);
  if (mime == NULL)
    {
      return_view_text (task, "image path `%s` is not a supported image file",
                        view->path);
      return;
    }
  bytes = g_bytes_new_static (view->buffer, size);
  output = agents_tool_output_new ();
  agents_tool_output_add_image_data (output, bytes, mime, NULL);
  agents_tool_return_parts (task, output);
}

static void
view_image_open_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  ViewImage *view = g_task_get_task_data (task);
  g_autoptr (GError) error = NULL;

  view->stream = agents_sandbox_session_read_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  if (view->stream == NULL)
    {
      return_read_failure (task, view->path, error);
      return;
    }
  /* One byte more than allowed tells a file that is too large. */
  view->buffer = g_malloc (AGENTS_VIEW_IMAGE_MAX_BYTES + 1);
  g_input_stream_read_all_async (
    view->stream, view->buffer, AGENTS_VIEW_IMAGE_MAX_BYTES + 1,
    G_PRIORITY_DEFAULT, g_task_get_cancellable (task), view_image_read_done,
    g_object_ref (task));
}

char *
agents_view_image_parse_path (const char *arguments, GError **error)
{
  g_autoptr (JsonNode) node =
    agents_json_parse_bounded (arguments, -1, NULL, NULL);
  JsonObject *args =
    node && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
  JsonNode *path_node = args ? json_object_get_member (args, "path") : NULL;

  if (path_node == NULL || !JSON_NODE_HOLDS_VALUE (path_node) ||
      json_node_get_value_type (path_node) != G_TYPE_STRING ||
      json_node_get_string (path_node)[0] == '\0')
    {
      g_set_error_literal (error, AGENTS_SANDBOX_ERROR,
                           AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                           "view_image needs a non-empty string `path`");
      return NULL;
    }
  return g_strdup (json_node_get_string (path_node));
}

static void
view_image_invoke (AgentsRunContext *ctx,
                   const char *arguments,
                   GTask *task,
                   gpointer user_data)
{
  const AgentsToolBinding *binding = user_data;
  AgentsSandboxSession *session;
  GError *error = NULL;
  g_autofree char *path = agents_view_image_parse_path (arguments, &error);
  g_autofree char *anchored = NULL;
  ViewImage *view;

  if (path == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  if ((session = session_of (binding->capability, &error)) == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  view = g_new0 (ViewImage, 1);
  /* Messages show the path as the model gave it. */
  view->path = g_steal_pointer (&path);
  g_task_set_task_data (task, view, (GDestroyNotify) view_image_free);
  anchored = agents_tool_binding_anchor (binding, view->path);
  agents_sandbox_session_read_async (session, anchored, binding->run_as,
                                     g_task_get_cancellable (task),
                                     view_image_open_done, g_object_ref (task));
}

/* The reference's ViewImageArgs schema, byte for byte. */
static const char view_image_schema[] =
  "{\"properties\": {\"path\": {\"description\": \"Path to the image file. "
  "Workspace paths and explicitly granted sandbox paths are supported.\", "
  "\"minLength\": 1, \"title\": \"Path\", \"type\": \"string\"}}, "
  "\"required\": [\"path\"], \"title\": \"ViewImageArgs\", \"type\": "
  "\"object\"}";

AgentsTool *
agents_view_image_tool_new (AgentsCapability *capability)
{
  g_autoptr (JsonNode) schema = json_from_string (view_image_schema, NULL);
  AgentsFunctionTool *tool = agents_function_tool_new_async (
    "view_image",
    "Shows you an image file from the sandbox (a workspace path or a path "
    "the sandbox explicitly grants), returned as an image you can look at.",
    json_node_get_object (schema), view_image_invoke,
    agents_tool_binding_new (capability),
    (GDestroyNotify) agents_tool_binding_free);

  agents_tool_set_strict (AGENTS_TOOL (tool), FALSE);
  return AGENTS_TOOL (tool);
}

/* ---- apply_patch ------------------------------------------------------- */

/* The reference's lark grammar, exactly. */
static const char apply_patch_grammar[] =
  "start: begin_patch hunk+ end_patch\n"
  "begin_patch: \"*** Begin Patch\" LF\n"
  "end_patch: \"*** End Patch\" LF?\n"
  "\n"
  "hunk: add_hunk | delete_hunk | update_hunk\n"
  "add_hunk: \"*** Add File: \" filename LF add_line+\n"
  "delete_hunk: \"*** Delete File: \" filename LF\n"
  "update_hunk: \"*** Update File: \" filename LF change_move? change\n"
  "\n"
  "filename: /(.+)/\n"
  "add_line: \"+\" /(.*)/ LF -> line\n"
  "\n"
  "change_move: \"*** Move to: \" filename LF\n"
  "change: (change_context | change_line)+ eof_line?\n"
  "change_context: (\"@@\" | \"@@ \" /(.+)/) LF\n"
  "change_line: (\"+\" | \"-\" | \" \") /(.*)/ LF\n"
  "eof_line: \"*** End of File\" LF\n"
  "\n"
  "%import common.LF";

static const char apply_patch_description[] =
  "Edit files with a patch. This is a FREEFORM tool: send the patch text "
  "itself, never wrapped in JSON.\n"
  "\n"
  "A patch is an envelope holding one or more file operations:\n"
  "\n"
  "*** Begin Patch\n"
  "[file operations]\n"
  "*** End Patch\n"
  "\n"
  "Every operation starts with a header saying what it does:\n"
  "*** Add File: <path> creates a file; each following line is one line of "
  "its content, prefixed with +.\n"
  "*** Delete File: <path> removes a file; nothing follows it.\n"
  "*** Update File: <path> changes a file in place, optionally renamed by a "
  "*** Move to: <new path> line right after the header.\n"
  "\n"
  "An update is a series of hunks. A hunk starts with @@, optionally "
  "followed by a line of the file (a class or function header) that "
  "locates it; each hunk line starts with a space (context kept as is), - "
  "(a line removed) or + (a line added).\n"
  "\n"
  "Context rules:\n"
  "- Show 3 lines of context above and 3 below each change; when two "
  "changes are closer than that, do not repeat lines between them.\n"
  "- When 3 lines do not identify the place uniquely, name the enclosing "
  "class or function with @@, e.g. `@@ class BaseClass`.\n"
  "- When even that is ambiguous, stack several @@ lines, outermost first, "
  "e.g. `@@ class BaseClass` then `@@     def method():`.\n"
  "- A hunk that must match at the very end of the file ends with "
  "*** End of File.\n"
  "\n"
  "Grammar:\n"
  "Patch := Begin FileOp { FileOp } End\n"
  "Begin := \"*** Begin Patch\" NEWLINE\n"
  "End := \"*** End Patch\" NEWLINE\n"
  "FileOp := AddFile | DeleteFile | UpdateFile\n"
  "AddFile := \"*** Add File: \" path NEWLINE \"+\" line NEWLINE { \"+\" "
  "line NEWLINE }\n"
  "DeleteFile := \"*** Delete File: \" path NEWLINE\n"
  "UpdateFile := \"*** Update File: \" path NEWLINE [ MoveTo ] Hunk { Hunk "
  "}\n"
  "MoveTo := \"*** Move to: \" newPath NEWLINE\n"
  "Hunk := \"@@\" [ header ] NEWLINE { HunkLine } [ \"*** End of File\" "
  "NEWLINE ]\n"
  "HunkLine := (\" \" | \"-\" | \"+\") text NEWLINE\n"
  "\n"
  "Example touching three files:\n"
  "\n"
  "*** Begin Patch\n"
  "*** Add File: notes/todo.txt\n"
  "+write the tests\n"
  "*** Update File: src/app.py\n"
  "*** Move to: src/main.py\n"
  "@@ def greet():\n"
  "-    print(\"Hi\")\n"
  "+    print(\"Hello, world!\")\n"
  "*** Delete File: old.txt\n"
  "*** End Patch\n"
  "\n"
  "Remember: always write the header of each operation, prefix every new "
  "line with + (also in new files), and use relative paths only, NEVER "
  "absolute ones.";

typedef struct
{
  AgentsSandboxSession *session;
  char *run_as;
  char *cwd;        /* the run's, normalized, or NULL */
  char *root;       /* normalized */
  GPtrArray *ops;   /* AgentsApplyPatchOperation */
  GPtrArray *paths; /* resolved absolute path of each op */
  GPtrArray *moves; /* resolved move_to of each op, or NULL */
  guint index;
  char *new_text;   /* the current op's result, to write */
  GPtrArray *lines; /* output lines */
} Patch;

static void
patch_free (Patch *patch)
{
  g_clear_object (&patch->session);
  g_free (patch->run_as);
  g_free (patch->cwd);
  g_free (patch->root);
  g_clear_pointer (&patch->ops, g_ptr_array_unref);
  g_clear_pointer (&patch->paths, g_ptr_array_unref);
  g_clear_pointer (&patch->moves, g_ptr_array_unref);
  g_free (patch->new_text);
  g_clear_pointer (&patch->lines, g_ptr_array_unref);
  g_free (patch);
}

static AgentsApplyPatchOperation *
current_op (Patch *patch)
{
  return patch->ops->pdata[patch->index];
}

/* A path as the model reads it: relative to the workspace root; with a
 * run cwd, a relative path as the model gave it (it reads from the
 * cwd), an absolute one relative to the workspace root. */
static char *
display_path (Patch *patch, const char *absolute, const char *original)
{
  g_autofree char *relative =
    agents_manifest_relative_within (absolute, patch->root);

  if (relative == NULL)
    return g_strdup (absolute);
  if (patch->cwd != NULL)
    return agents_workspace_scope_display_path (original, relative);
  return g_steal_pointer (&relative);
}

static void fail (GTask *task, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
fail (GTask *task, const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_task_return_error (
    task, g_error_new_literal (AGENTS_SANDBOX_ERROR,
                               AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, message));
}

/* The reference's normalize_operation(), for every path before anything
 * is applied: a blank or escaping path fails the whole patch. A relative
 * path reads from the run cwd. */
static char *
resolve (Patch *patch, AgentsManifest *manifest, const char *path, GTask *task)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *anchored = NULL;
  char *resolved;

  if (*agents_py_lstrip_start (path) == '\0')
    {
      g_task_return_new_error (task, AGENTS_SANDBOX_ERROR,
                               AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                               "apply_patch path must be non-empty");
      return NULL;
    }
  if (patch->cwd != NULL && path[0] != '/')
    anchored = g_strconcat (patch->cwd, "/", path, NULL);
  resolved =
    agents_manifest_resolve_path (manifest, anchored ? anchored : path, &error);
  if (resolved == NULL)
    fail (task, "apply_patch path must not escape root: %s", path);
  return resolved;
}

static gboolean
preflight (Patch *patch, GTask *task)
{
  AgentsManifest *manifest =
    agents_sandbox_session_get_manifest (patch->session);

  for (guint i = 0; i < patch->ops->len; i++)
    {
      AgentsApplyPatchOperation *op = patch->ops->pdata[i];
      char *path = resolve (patch, manifest, op->path, task);
      char *move = NULL;

      if (path == NULL)
        return FALSE;
      g_ptr_array_add (patch->paths, path);
      if (op->move_to != NULL &&
          (move = resolve (patch, manifest, op->move_to, task)) == NULL)
        return FALSE;
      g_ptr_array_add (patch->moves, move);
    }
  return TRUE;
}

static void patch_next (GTask *task);

static const char *
op_path (Patch *patch)
{
  return patch->paths->pdata[patch->index];
}

static const char *
op_move (Patch *patch)
{
  return patch->moves->pdata[patch->index];
}

static char *
shown_path (Patch *patch)
{
  return display_path (patch, op_path (patch), current_op (patch)->path);
}

static char *
shown_move (Patch *patch)
{
  return display_path (patch, op_move (patch), current_op (patch)->move_to);
}

static void add_line (Patch *patch, const char *format, ...)
  G_GNUC_PRINTF (2, 3);

static void
add_line (Patch *patch, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  g_ptr_array_add (patch->lines, g_strdup_vprintf (format, args));
  va_end (args);
}

static void
op_done (GTask *task)
{
  Patch *patch = g_task_get_task_data (task);

  patch->index++;
  g_clear_pointer (&patch->new_text, g_free);
  patch_next (task);
}

/* Step results: an error ends the patch with it (the model reads its
 * message); operations already applied stay applied, as upstream. */
static gboolean
step_failed (GTask *task, GError *error)
{
  if (error == NULL)
    return FALSE;
  g_task_return_error (task, error);
  return TRUE;
}

static void
moved_old_removed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;

  agents_sandbox_session_rm_finish (AGENTS_SANDBOX_SESSION (source), result,
                                    &error);
  if (!step_failed (task, error))
    op_done (task);
}

static void
written (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  Patch *patch = g_task_get_task_data (task);
  AgentsApplyPatchOperation *op = current_op (patch);
  g_autofree char *shown = shown_path (patch);
  GError *error = NULL;

  agents_sandbox_session_write_bytes_finish (AGENTS_SANDBOX_SESSION (source),
                                             result, &error);
  if (step_failed (task, error))
    return;
  if (op->type == AGENTS_APPLY_PATCH_CREATE_FILE)
    {
      add_line (patch, "Created %s", shown);
      op_done (task);
      return;
    }
  add_line (patch, "Updated %s", shown);
  if (op_move (patch) == NULL)
    {
      op_done (task);
      return;
    }
  {
    g_autofree char *moved = shown_move (patch);

    add_line (patch, "Moved %s to %s", shown, moved);
  }
  if (g_str_equal (op_move (patch), op_path (patch)))
    {
      op_done (task);
      return;
    }
  agents_sandbox_session_rm_async (patch->session, op_path (patch), FALSE,
                                   g_task_get_cancellable (task),
                                   moved_old_removed, g_object_ref (task));
}

static const char *
write_target (Patch *patch)
{
  return op_move (patch) ? op_move (patch) : op_path (patch);
}

static void
write_text (GTask *task)
{
  Patch *patch = g_task_get_task_data (task);
  gsize size = strlen (patch->new_text);
  g_autoptr (GBytes) bytes =
    g_bytes_new_take (g_steal_pointer (&patch->new_text), size);

  agents_sandbox_session_write_bytes_async (
    patch->session, write_target (patch), bytes, patch->run_as,
    g_task_get_cancellable (task), written, g_object_ref (task));
}

static void
parent_made (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;

  agents_sandbox_session_mkdir_finish (AGENTS_SANDBOX_SESSION (source), result,
                                       &error);
  if (!step_failed (task, error))
    write_text (task);
}

/* mkdir -p of the target's parent, then the write; an update in place
 * writes where it just read, so its folder is there. */
static void
write_new_text (GTask *task)
{
  Patch *patch = g_task_get_task_data (task);
  g_autofree char *parent = NULL;

  if (current_op (patch)->type == AGENTS_APPLY_PATCH_UPDATE_FILE &&
      op_move (patch) == NULL)
    {
      write_text (task);
      return;
    }
  parent = g_path_get_dirname (write_target (patch));
  agents_sandbox_session_mkdir_async (patch->session, parent, TRUE,
                                      g_task_get_cancellable (task),
                                      parent_made, g_object_ref (task));
}

static gboolean
missing_file (GTask *task, Patch *patch, GError *error)
{
  g_autofree char *shown = NULL;

  if (!g_error_matches (error, AGENTS_SANDBOX_ERROR,
                        AGENTS_SANDBOX_ERROR_WORKSPACE_READ_NOT_FOUND) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    return step_failed (task, error);
  shown = shown_path (patch);
  g_error_free (error);
  fail (task, "apply_patch missing file: %s", shown);
  return TRUE;
}

static void
deleted (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  Patch *patch = g_task_get_task_data (task);
  g_autofree char *shown = shown_path (patch);
  GError *error = NULL;

  agents_sandbox_session_rm_finish (AGENTS_SANDBOX_SESSION (source), result,
                                    &error);
  if (step_failed (task, error))
    return;
  add_line (patch, "Deleted %s", shown);
  op_done (task);
}

static void
update_text (GTask *task, Patch *patch, GBytes *bytes)
{
  gsize size;
  const char *data = g_bytes_get_data (bytes, &size);
  g_autofree char *text = NULL;
  GError *error = NULL;

  if (!g_utf8_validate_len (data, size, NULL))
    {
      g_autofree char *shown = shown_path (patch);

      fail (task, "apply_patch could not decode file: %s", shown);
      return;
    }
  text = g_strndup (data, size);
  patch->new_text = agents_apply_diff (text, current_op (patch)->diff,
                                       AGENTS_APPLY_DIFF_UPDATE, &error);
  if (!step_failed (task, error))
    write_new_text (task);
}

static void
existing_read (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  Patch *patch = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr (GBytes) bytes = agents_sandbox_session_read_bytes_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);

  if (bytes == NULL)
    {
      missing_file (task, patch, error);
      return;
    }
  if (current_op (patch)->type == AGENTS_APPLY_PATCH_UPDATE_FILE)
    {
      update_text (task, patch, bytes);
      return;
    }
  agents_sandbox_session_rm_async (patch->session, op_path (patch), FALSE,
                                   g_task_get_cancellable (task), deleted,
                                   g_object_ref (task));
}

static void
patch_next (GTask *task)
{
  Patch *patch = g_task_get_task_data (task);
  AgentsApplyPatchOperation *op;
  GError *error = NULL;

  if (patch->index == patch->ops->len)
    {
      g_ptr_array_add (patch->lines, NULL);
      {
        g_autofree char *text =
          g_strjoinv ("\n", (char **) patch->lines->pdata);

        agents_tool_return_text (task, text);
      }
      return;
    }
  op = current_op (patch);
  if (op->type != AGENTS_APPLY_PATCH_CREATE_FILE)
    {
      /* Reading proves the file exists (and is the update's input). */
      agents_sandbox_session_read_bytes_async (
        patch->session, op_path (patch), patch->run_as,
        g_task_get_cancellable (task), existing_read, g_object_ref (task));
      return;
    }
  patch->new_text =
    agents_apply_diff ("", op->diff, AGENTS_APPLY_DIFF_CREATE, &error);
  if (!step_failed (task, error))
    write_new_text (task);
}

static void
apply_patch_invoke (AgentsRunContext *ctx,
                    const char *input,
                    GTask *task,
                    gpointer user_data)
{
  const AgentsToolBinding *binding = user_data;
  AgentsSandboxSession *session;
  GError *error = NULL;
  Patch *patch;
  g_autoptr (GPtrArray) ops = NULL;

  if ((session = session_of (binding->capability, &error)) == NULL ||
      (ops = agents_apply_patch_parse (input, &error)) == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  patch = g_new0 (Patch, 1);
  patch->session = g_object_ref (session);
  patch->run_as = g_strdup (binding->run_as);
  if (binding->cwd != NULL && !g_str_equal (binding->cwd, "."))
    patch->cwd = g_strdup (binding->cwd);
  patch->root = agents_manifest_normalize_absolute (
    agents_manifest_get_root (agents_sandbox_session_get_manifest (session)));
  if (patch->root == NULL)
    patch->root = g_strdup ("/");
  patch->ops = g_steal_pointer (&ops);
  patch->paths = g_ptr_array_new_with_free_func (g_free);
  patch->moves = g_ptr_array_new_with_free_func (g_free);
  patch->lines = g_ptr_array_new_with_free_func (g_free);
  g_task_set_task_data (task, patch, (GDestroyNotify) patch_free);
  if (preflight (patch, task))
    patch_next (task);
}

AgentsTool *
agents_apply_patch_tool_new (AgentsCapability *capability)
{
  g_autoptr (JsonObject) format = json_object_new ();

  json_object_set_string_member (format, "type", "grammar");
  json_object_set_string_member (format, "syntax", "lark");
  json_object_set_string_member (format, "definition", apply_patch_grammar);
  return AGENTS_TOOL (agents_custom_tool_new_async (
    "apply_patch", apply_patch_description, format, apply_patch_invoke,
    agents_tool_binding_new (capability),
    (GDestroyNotify) agents_tool_binding_free));
}
