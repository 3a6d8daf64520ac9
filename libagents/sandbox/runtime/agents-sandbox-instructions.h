/* agents-sandbox-instructions.h - the system prompt of sandbox agents
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include <glib.h>

#include "sandbox/manifest/agents-manifest.h"

G_BEGIN_DECLS

AGENTS_AVAILABLE_IN_1_0
const char *agents_sandbox_get_default_instructions (void);
AGENTS_AVAILABLE_IN_1_0
char *agents_sandbox_filesystem_instructions (AgentsManifest *manifest)
  G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
char *agents_sandbox_filesystem_instructions_with_cwd (
  AgentsManifest *manifest,
  const char *workspace_cwd,
  GError **error) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
char *
agents_sandbox_describe_manifest (AgentsManifest *manifest,
                                  int depth,
                                  int max_chars,
                                  GError **error) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
const char *agents_sandbox_get_remote_mount_policy_template (void);
AGENTS_AVAILABLE_IN_1_0
char *agents_sandbox_remote_mount_policy (AgentsManifest *manifest)
  G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
char *agents_sandbox_remote_mount_edit_instructions (
  gboolean read_only, gboolean read_write) G_GNUC_WARN_UNUSED_RESULT;

G_END_DECLS
