/* agents-apply-diff-private.h - the V4A diff format of apply_patch
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  AGENTS_APPLY_DIFF_UPDATE,
  AGENTS_APPLY_DIFF_CREATE,
} AgentsApplyDiffMode;

/* The reference's apply_diff() (src/agents/apply_diff.py): applies a V4A
 * @diff to @input. CREATE takes only `+` lines and joins them, with no
 * final line end; UPDATE locates `@@` sections by anchors and context
 * (exact, then right-trimmed, then trimmed) and applies their `-`/`+`
 * lines. A CRLF input keeps CRLF. Fails with AGENTS_SANDBOX_ERROR
 * INVALID_ARGUMENT and the reference's message (which the model reads).
 * Both strings are valid UTF-8. */
char *agents_apply_diff (const char *input,
                         const char *diff,
                         AgentsApplyDiffMode mode,
                         GError **error);

G_END_DECLS
