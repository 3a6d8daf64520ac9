/* agents-apply-patch-parse.c - apply_patch tool input
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The two forms the reference's apply_patch tool accepts, parsed with its
 * rules and its error messages (the model reads them).
 */

#include "config.h"

#include <json-glib/json-glib.h>

#include "agents-apply-patch-parse-private.h"
#include "agents-json-private.h"
#include "agents-pytext-private.h"
#include "agents-sandbox-error.h"

#define BEGIN_PATCH "*** Begin Patch"
#define END_PATCH "*** End Patch"
#define ADD_FILE "*** Add File: "
#define DELETE_FILE "*** Delete File: "
#define UPDATE_FILE "*** Update File: "
#define MOVE_TO "*** Move to: "

static const char *const op_type_names[] = {
  [AGENTS_APPLY_PATCH_CREATE_FILE] = "create_file",
  [AGENTS_APPLY_PATCH_UPDATE_FILE] = "update_file",
  [AGENTS_APPLY_PATCH_DELETE_FILE] = "delete_file",
};

const char *
agents_apply_patch_op_type_name (AgentsApplyPatchOpType type)
{
  g_return_val_if_fail (type <= AGENTS_APPLY_PATCH_DELETE_FILE, NULL);
  return op_type_names[type];
}

void
agents_apply_patch_operation_free (AgentsApplyPatchOperation *op)
{
  if (op == NULL)
    return;
  g_free (op->path);
  g_free (op->diff);
  g_free (op->move_to);
  g_free (op);
}

static AgentsApplyPatchOperation *
operation_new (AgentsApplyPatchOpType type,
               const char *path,
               const char *diff,
               const char *move_to)
{
  AgentsApplyPatchOperation *op = g_new0 (AgentsApplyPatchOperation, 1);

  op->type = type;
  op->path = g_strdup (path);
  op->diff = g_strdup (diff);
  op->move_to = g_strdup (move_to);
  return op;
}

static gpointer set_error (GError **error, const char *format, ...)
  G_GNUC_PRINTF (2, 3);

static gpointer
set_error (GError **error, const char *format, ...)
{
  va_list args;
  g_autofree char *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error_literal (error, AGENTS_SANDBOX_ERROR,
                       AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, message);
  return NULL;
}

static GPtrArray *
new_operations (void)
{
  return g_ptr_array_new_with_free_func (
    (GDestroyNotify) agents_apply_patch_operation_free);
}

/* ---- The JSON form ----------------------------------------------------- */

/* A JSON value as Python's str() shows it in the reference's message. */
static char *
python_text (JsonNode *node)
{
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return g_strdup ("None");
  if (JSON_NODE_HOLDS_VALUE (node))
    switch (json_node_get_value_type (node))
      {
      case G_TYPE_STRING:
        return g_strdup (json_node_get_string (node));
      case G_TYPE_BOOLEAN:
        return g_strdup (json_node_get_boolean (node) ? "True" : "False");
      case G_TYPE_INT64:
        return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (node));
      default:
        break;
      }
  return json_to_string (node, FALSE);
}

static gboolean
is_string (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
         json_node_get_value_type (node) == G_TYPE_STRING;
}

static gboolean
parse_op_type (JsonNode *node, AgentsApplyPatchOpType *type)
{
  for (guint i = 0; is_string (node) && i < G_N_ELEMENTS (op_type_names); i++)
    if (g_str_equal (json_node_get_string (node), op_type_names[i]))
      {
        *type = i;
        return TRUE;
      }
  return FALSE;
}

static AgentsApplyPatchOperation *
operation_from_json (JsonNode *node, GError **error)
{
  JsonObject *object;
  JsonNode *path, *diff, *move_to;
  AgentsApplyPatchOpType type;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return set_error (error, "apply_patch operation must be an object");
  object = json_node_get_object (node);
  if (!parse_op_type (json_object_get_member (object, "type"), &type))
    {
      g_autofree char *shown =
        python_text (json_object_get_member (object, "type"));

      return set_error (error, "Invalid apply_patch operation type: %s", shown);
    }
  path = json_object_get_member (object, "path");
  if (!is_string (path) || json_node_get_string (path)[0] == '\0')
    return set_error (error, "apply_patch operation is missing a path");
  diff = json_object_get_member (object, "diff");
  if (type != AGENTS_APPLY_PATCH_DELETE_FILE && !is_string (diff))
    return set_error (error, "apply_patch operation %s is missing a diff",
                      op_type_names[type]);
  move_to = json_object_get_member (object, "move_to");
  if (move_to != NULL && !JSON_NODE_HOLDS_NULL (move_to) &&
      !is_string (move_to))
    return set_error (error, "apply_patch operation move_to must be a string");
  return operation_new (
    type, json_node_get_string (path),
    type != AGENTS_APPLY_PATCH_DELETE_FILE ? json_node_get_string (diff) : NULL,
    is_string (move_to) ? json_node_get_string (move_to) : NULL);
}

static GPtrArray *
operations_from_array (JsonArray *array, GError **error)
{
  g_autoptr (GPtrArray) operations = new_operations ();

  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      AgentsApplyPatchOperation *op =
        operation_from_json (json_array_get_element (array, i), error);

      if (op == NULL)
        return NULL;
      g_ptr_array_add (operations, op);
    }
  return g_steal_pointer (&operations);
}

static GPtrArray *
single_operation (JsonNode *node, GError **error)
{
  AgentsApplyPatchOperation *op = operation_from_json (node, error);
  GPtrArray *operations;

  if (op == NULL)
    return NULL;
  operations = new_operations ();
  g_ptr_array_add (operations, op);
  return operations;
}

static GPtrArray *
parse_json (const char *input, GError **error)
{
  g_autoptr (GError) parse_error = NULL;
  g_autoptr (JsonNode) root =
    agents_json_parse_bounded (input, -1, NULL, &parse_error);
  JsonObject *object;
  JsonNode *member;

  if (root == NULL)
    return set_error (error, "apply_patch JSON input is not valid JSON: %s",
                      parse_error->message);
  if (JSON_NODE_HOLDS_ARRAY (root))
    return operations_from_array (json_node_get_array (root), error);
  if (!JSON_NODE_HOLDS_OBJECT (root))
    return set_error (error,
                      "apply_patch JSON input must be an object or array");
  object = json_node_get_object (root);
  member = json_object_get_member (object, "operations");
  if (member != NULL && JSON_NODE_HOLDS_ARRAY (member))
    return operations_from_array (json_node_get_array (member), error);
  member = json_object_get_member (object, "operation");
  if (member != NULL && !JSON_NODE_HOLDS_NULL (member))
    return single_operation (member, error);
  return single_operation (root, error);
}

/* ---- The envelope ------------------------------------------------------ */

typedef struct
{
  GPtrArray *lines;
  guint index;
  guint last; /* the index of the *** End Patch line */
} Envelope;

static gboolean
is_header (const char *line)
{
  return g_str_has_prefix (line, ADD_FILE) ||
         g_str_has_prefix (line, DELETE_FILE) ||
         g_str_has_prefix (line, UPDATE_FILE);
}

static const char *
line_at (Envelope *envelope)
{
  return envelope->lines->pdata[envelope->index];
}

/* Whether a line of the current operation's body follows. */
static gboolean
in_body (Envelope *envelope)
{
  return envelope->index < envelope->last && !is_header (line_at (envelope));
}

static char *
header_path (const char *line, const char *prefix, GError **error)
{
  char *path = agents_py_strip (line + strlen (prefix));

  if (path[0] != '\0')
    return path;
  g_free (path);
  return set_error (error, "Missing path in apply_patch header: %s", line);
}

static char *
join_diff (GPtrArray *lines)
{
  GString *diff = g_string_new (NULL);

  for (guint i = 0; i < lines->len; i++)
    {
      g_string_append (diff, lines->pdata[i]);
      g_string_append_c (diff, '\n');
    }
  return g_string_free (diff, FALSE);
}

static AgentsApplyPatchOperation *
parse_add_file (Envelope *envelope, GError **error)
{
  g_autofree char *path = header_path (line_at (envelope), ADD_FILE, error);
  g_autoptr (GPtrArray) lines = g_ptr_array_new ();
  g_autofree char *diff = NULL;

  if (path == NULL)
    return NULL;
  for (envelope->index++; in_body (envelope); envelope->index++)
    {
      if (line_at (envelope)[0] != '+')
        return set_error (error, "Invalid Add File line: %s",
                          line_at (envelope));
      g_ptr_array_add (lines, (gpointer) line_at (envelope));
    }
  if (lines->len == 0)
    return set_error (
      error, "Add File patch for %s must include at least one + line", path);
  diff = join_diff (lines);
  return operation_new (AGENTS_APPLY_PATCH_CREATE_FILE, path, diff, NULL);
}

static AgentsApplyPatchOperation *
parse_delete_file (Envelope *envelope, GError **error)
{
  g_autofree char *path = header_path (line_at (envelope), DELETE_FILE, error);

  if (path == NULL)
    return NULL;
  envelope->index++;
  if (in_body (envelope))
    return set_error (error, "Delete File patch for %s must not include a diff",
                      path);
  return operation_new (AGENTS_APPLY_PATCH_DELETE_FILE, path, NULL, NULL);
}

static AgentsApplyPatchOperation *
parse_update_file (Envelope *envelope, GError **error)
{
  g_autofree char *path = header_path (line_at (envelope), UPDATE_FILE, error);
  g_autofree char *move_to = NULL;
  g_autoptr (GPtrArray) lines = g_ptr_array_new ();
  g_autofree char *diff = NULL;

  if (path == NULL)
    return NULL;
  envelope->index++;
  if (envelope->index < envelope->last &&
      g_str_has_prefix (line_at (envelope), MOVE_TO))
    {
      move_to = header_path (line_at (envelope), MOVE_TO, error);
      if (move_to == NULL)
        return NULL;
      envelope->index++;
    }
  for (; in_body (envelope); envelope->index++)
    g_ptr_array_add (lines, (gpointer) line_at (envelope));
  if (lines->len == 0)
    return set_error (error, "Update File patch for %s must include a hunk",
                      path);
  diff = join_diff (lines);
  return operation_new (AGENTS_APPLY_PATCH_UPDATE_FILE, path, diff, move_to);
}

static GPtrArray *
parse_envelope (const char *input, GError **error)
{
  g_autoptr (GPtrArray) lines = agents_py_splitlines (input);
  g_autoptr (GPtrArray) operations = new_operations ();
  Envelope envelope = { lines, 1, lines->len - 1 };

  if (lines->len == 0 || !g_str_equal (lines->pdata[0], BEGIN_PATCH))
    return set_error (error,
                      "apply_patch input must start with '" BEGIN_PATCH "'");
  if (lines->len < 2 || !g_str_equal (lines->pdata[lines->len - 1], END_PATCH))
    return set_error (error, "apply_patch input must end with '" END_PATCH "'");
  while (envelope.index < envelope.last)
    {
      const char *line = line_at (&envelope);
      AgentsApplyPatchOperation *op;

      if (g_str_has_prefix (line, ADD_FILE))
        op = parse_add_file (&envelope, error);
      else if (g_str_has_prefix (line, DELETE_FILE))
        op = parse_delete_file (&envelope, error);
      else if (g_str_has_prefix (line, UPDATE_FILE))
        op = parse_update_file (&envelope, error);
      else
        return set_error (
          error, "Invalid apply_patch file operation header: %s", line);
      if (op == NULL)
        return NULL;
      g_ptr_array_add (operations, op);
    }
  if (operations->len == 0)
    return set_error (error, "apply_patch input must include at least one file "
                             "operation");
  return g_steal_pointer (&operations);
}

GPtrArray *
agents_apply_patch_parse (const char *input, GError **error)
{
  const char *start;

  g_return_val_if_fail (input != NULL, NULL);

  start = agents_py_lstrip_start (input);
  if (start[0] == '{' || start[0] == '[')
    return parse_json (input, error);
  return parse_envelope (input, error);
}
