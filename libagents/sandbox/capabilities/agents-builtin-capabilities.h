/* agents-builtin-capabilities.h - shell and filesystem
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include "agents-capability.h"
#include "agents-compaction-capability.h"
#include "agents-memory-capability.h"
#include "agents-skills-capability.h"

G_BEGIN_DECLS

#define AGENTS_TYPE_SHELL_CAPABILITY (agents_shell_capability_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (AgentsShellCapability,
                      agents_shell_capability,
                      AGENTS,
                      SHELL_CAPABILITY,
                      GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsCapability *agents_shell_capability_new (void);
AGENTS_AVAILABLE_IN_1_0
gboolean
agents_shell_capability_get_needs_approval (AgentsShellCapability *self);
AGENTS_AVAILABLE_IN_1_0
void agents_shell_capability_set_needs_approval (AgentsShellCapability *self,
                                                 gboolean needs_approval);

#define AGENTS_TYPE_FILESYSTEM_CAPABILITY \
  (agents_filesystem_capability_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (AgentsFilesystemCapability,
                      agents_filesystem_capability,
                      AGENTS,
                      FILESYSTEM_CAPABILITY,
                      GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsCapability *agents_filesystem_capability_new (void);
AGENTS_AVAILABLE_IN_1_0
gboolean
agents_filesystem_capability_get_file_tools (AgentsFilesystemCapability *self);
AGENTS_AVAILABLE_IN_1_0
void
agents_filesystem_capability_set_file_tools (AgentsFilesystemCapability *self,
                                             gboolean file_tools);

G_END_DECLS
