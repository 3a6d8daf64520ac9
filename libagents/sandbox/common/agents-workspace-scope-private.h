/* agents-workspace-scope-private.h - the run cwd workspace scope
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Validates a run cwd (workspace-relative, POSIX, no `..`) and returns it
 * without empty and `.` segments (`.` for the root); %NULL with
 * %AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT otherwise. */
char *agents_workspace_scope_normalize_cwd (const char *cwd, GError **error);

/* The absolute path of a session resource @path (workspace-relative)
 * below @root (POSIX absolute). */
char *agents_workspace_scope_resource_path (const char *root,
                                            const char *path,
                                            GError **error);

/* How a workspace-relative @path reads from @cwd (`..` where needed). */
char *agents_workspace_scope_model_path (const char *cwd, const char *path);

/* The path shown for a path the model gave as @original, resolved to the
 * workspace-relative @relative: a relative original as given, an
 * absolute one by its workspace-relative form. */
char *agents_workspace_scope_display_path (const char *original,
                                           const char *relative);

G_END_DECLS
