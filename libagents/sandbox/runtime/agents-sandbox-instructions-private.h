/* agents-sandbox-instructions-private.h - internals of the sandbox prompt
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-sandbox-instructions.h"

G_BEGIN_DECLS

/* Where the default prompt (libagents/sandbox/runtime/prompt.md) lives in the
 * library's resources. */
#define AGENTS_SANDBOX_PROMPT_RESOURCE "/org/libagents/Agents/sandbox/prompt.md"

/* Test switch, the reference test's monkeypatched `files()`: while
 * @missing is TRUE the default prompt resource is treated as missing, so
 * agents_sandbox_get_default_instructions() returns NULL and sandbox
 * prompts start with the agent's own instructions. Clears the cached
 * prompt either way. */
void agents_sandbox_instructions_set_resource_missing (gboolean missing);

G_END_DECLS
