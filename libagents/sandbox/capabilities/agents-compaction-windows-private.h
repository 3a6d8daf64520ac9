/* agents-compaction-windows-private.h - context windows by model name
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The compaction threshold, in tokens, for a model whose context window
 * is unknown (the reference's static default). */
#define AGENTS_COMPACTION_DEFAULT_THRESHOLD 240000

/* The share of a known context window the dynamic policy compacts at. */
#define AGENTS_COMPACTION_DEFAULT_SHARE 0.9

/* The reference's CompactionModelInfo.maybe_for_model(): the context
 * window of @model in tokens, or 0 when the table does not list it. The
 * name is looked up lowercased, without an `openai/` prefix and without
 * `.` and `-` (`openai/GPT-5.4` and `gpt54` are the same row). */
gint64 agents_compaction_lookup_context_window (const char *model);

/* Python's repr() of a string, for messages worded as the reference's. */
char *agents_compaction_py_repr (const char *text);

G_END_DECLS
