/* agents-workspace-path-policy.h - workspace paths and extra path grants
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include <glib-object.h>

#include "agents-sandbox-types.h"
#include "agents-version-macros.h"

G_BEGIN_DECLS

/**
 * AgentsWorkspacePathFlags:
 * @AGENTS_WORKSPACE_PATH_FLAGS_NONE: a lexical check for reading
 * @AGENTS_WORKSPACE_PATH_FOR_WRITE: the path will be written: refuse
 *   paths of read-only grants
 * @AGENTS_WORKSPACE_PATH_RESOLVE_SYMLINKS: follow symbolic links on the
 *   host (only for a workspace that is a host directory)
 * @AGENTS_WORKSPACE_PATH_NO_FOLLOW_LEAF: with
 *   %AGENTS_WORKSPACE_PATH_RESOLVE_SYMLINKS, resolve only the parents and
 *   keep the last component (for operations on a link itself)
 * @AGENTS_WORKSPACE_PATH_HOST_NAMES: the path names a host directory's
 *   files: a backslash and a drive letter are ordinary name characters
 *   (unix_local), not a separator and a Windows root
 *
 * How agents_workspace_path_policy_normalize_path() checks a path.
 */
typedef enum
{
  AGENTS_WORKSPACE_PATH_FLAGS_NONE = 0,
  AGENTS_WORKSPACE_PATH_FOR_WRITE = 1 << 0,
  AGENTS_WORKSPACE_PATH_RESOLVE_SYMLINKS = 1 << 1,
  AGENTS_WORKSPACE_PATH_NO_FOLLOW_LEAF = 1 << 2,
  AGENTS_WORKSPACE_PATH_HOST_NAMES = 1 << 3,
} AgentsWorkspacePathFlags;

#define AGENTS_TYPE_WORKSPACE_PATH_POLICY \
  (agents_workspace_path_policy_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (AgentsWorkspacePathPolicy,
                      agents_workspace_path_policy,
                      AGENTS,
                      WORKSPACE_PATH_POLICY,
                      GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsWorkspacePathPolicy *
agents_workspace_path_policy_new (const char *root,
                                  AgentsSandboxPathGrant **grants,
                                  guint n_grants,
                                  GError **error);
AGENTS_AVAILABLE_IN_1_0
char *
agents_workspace_path_policy_dup_sandbox_root (AgentsWorkspacePathPolicy *self);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_workspace_path_policy_get_root_is_existing_host_path (
  AgentsWorkspacePathPolicy *self);
AGENTS_AVAILABLE_IN_1_0
char *agents_workspace_path_policy_absolute_workspace_path (
  AgentsWorkspacePathPolicy *self, const char *path, GError **error);
AGENTS_AVAILABLE_IN_1_0
char *agents_workspace_path_policy_relative_path (
  AgentsWorkspacePathPolicy *self, const char *path, GError **error);
AGENTS_AVAILABLE_IN_1_0
char *
agents_workspace_path_policy_normalize_path (AgentsWorkspacePathPolicy *self,
                                             const char *path,
                                             AgentsWorkspacePathFlags flags,
                                             GError **error);
AGENTS_AVAILABLE_IN_1_0
char *agents_workspace_path_policy_normalize_sandbox_path (
  AgentsWorkspacePathPolicy *self,
  const char *path,
  gboolean for_write,
  GError **error);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_workspace_path_policy_check_extra_path_grants (
  AgentsWorkspacePathPolicy *self, GError **error);

AGENTS_AVAILABLE_IN_1_0
char *agents_sandbox_path_normalize_grant_path (const char *path,
                                                GError **error);
AGENTS_AVAILABLE_IN_1_0
AgentsSandboxPathGrant *
agents_sandbox_path_grant_try_new (const char *path,
                                   gboolean read_only,
                                   const char *description,
                                   GError **error);
AGENTS_AVAILABLE_IN_1_0
AgentsSandboxPathGrant *
agents_sandbox_path_grant_try_new_full (const char *path,
                                        const char *host_path,
                                        gboolean read_only,
                                        const char *description,
                                        GError **error);
AGENTS_AVAILABLE_IN_1_0
char *
agents_sandbox_path_grant_resolve_host_source (AgentsSandboxPathGrant *grant,
                                               GError **error);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_path_error_for (GError **error, const char *path);
AGENTS_AVAILABLE_IN_1_0
char *agents_path_resolve_loose (const char *path);

G_END_DECLS
