/* agents-workspace-path-policy-private.h - lexical path helpers
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-workspace-path-policy.h"

G_BEGIN_DECLS

/* `C:\…` or `C:/…`: absolute on Windows, relative on POSIX. */
gboolean agents_path_is_windows_absolute (const char *path);
/* Backslashes made slashes: sandbox paths are POSIX paths. */
char *agents_path_coerce_posix (const char *path);
/* What Python's PurePosixPath keeps: no empty or `.` components. */
char *agents_path_pure_posix (const char *path);
/* posixpath.normpath(), but `//` is `/`. */
char *agents_path_normpath (const char *path);
/* @path under @dir (both normalized), "." for @dir, NULL if outside. */
char *agents_path_relative_to (const char *path, const char *dir);

G_END_DECLS
