/* agents-runtime-helper.h - small scripts installed inside a sandbox
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include <gio/gio.h>

#include "agents-version-macros.h"

G_BEGIN_DECLS

#define AGENTS_TYPE_RUNTIME_HELPER (agents_runtime_helper_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (
  AgentsRuntimeHelper, agents_runtime_helper, AGENTS, RUNTIME_HELPER, GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsRuntimeHelper *agents_runtime_helper_new (const char *name,
                                                const char *content,
                                                const char *install_path);
AGENTS_AVAILABLE_IN_1_0
const char *agents_runtime_helper_get_name (AgentsRuntimeHelper *self);
AGENTS_AVAILABLE_IN_1_0
const char *agents_runtime_helper_get_content (AgentsRuntimeHelper *self);
AGENTS_AVAILABLE_IN_1_0
const char *agents_runtime_helper_get_install_path (AgentsRuntimeHelper *self);
AGENTS_AVAILABLE_IN_1_0
char **agents_runtime_helper_install_command (AgentsRuntimeHelper *self);
AGENTS_AVAILABLE_IN_1_0
AgentsRuntimeHelper *agents_runtime_helper_get_resolve_workspace_path (void);

G_END_DECLS
