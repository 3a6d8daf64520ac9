/* agents-apply-patch-parse-private.h - apply_patch tool input
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  AGENTS_APPLY_PATCH_CREATE_FILE,
  AGENTS_APPLY_PATCH_UPDATE_FILE,
  AGENTS_APPLY_PATCH_DELETE_FILE,
} AgentsApplyPatchOpType;

/* One file operation: @diff is a V4A diff (NULL for deletions), @move_to
 * the new path of an update (or NULL). Paths are as the model gave them,
 * trimmed when they came from a patch header; nothing is validated. */
typedef struct
{
  AgentsApplyPatchOpType type;
  char *path;
  char *diff;
  char *move_to;
} AgentsApplyPatchOperation;

void agents_apply_patch_operation_free (AgentsApplyPatchOperation *op);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AgentsApplyPatchOperation,
                               agents_apply_patch_operation_free)

/* `create_file`, `update_file` or `delete_file`. */
const char *agents_apply_patch_op_type_name (AgentsApplyPatchOpType type);

/* The reference's _parse_custom_tool_input(): input that starts (after
 * white space) with `{` or `[` is the JSON form (`{"operations": [op…]}`,
 * `{"operation": op}`, one op, or an array of ops; op = `{"type", "path",
 * "diff", "move_to"}`); anything else is a `*** Begin Patch` … `*** End
 * Patch` envelope. Returns the operations in order (at least one for an
 * envelope; a JSON array may be empty), or NULL with AGENTS_SANDBOX_ERROR
 * INVALID_ARGUMENT and the reference's message. @input is valid UTF-8. */
GPtrArray *agents_apply_patch_parse (const char *input, GError **error);

G_END_DECLS
