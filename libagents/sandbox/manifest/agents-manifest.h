/* agents-manifest.h - what a sandbox workspace is made of
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "agents-env-value.h"
#include "agents-manifest-entry.h"
#include "sandbox/common/agents-sandbox-types.h"
#include "sandbox/common/agents-workspace-path-policy.h"

G_BEGIN_DECLS

/**
 * AGENTS_MANIFEST_DEFAULT_ROOT:
 *
 * The workspace root of a manifest that names none.
 */
#define AGENTS_MANIFEST_DEFAULT_ROOT "/workspace"

#define AGENTS_TYPE_MANIFEST (agents_manifest_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (
  AgentsManifest, agents_manifest, AGENTS, MANIFEST, GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsManifest *agents_manifest_new (void);
AGENTS_AVAILABLE_IN_1_0
AgentsManifest *agents_manifest_new_from_json (JsonNode *node, GError **error);
AGENTS_AVAILABLE_IN_1_0
AgentsManifest *
agents_manifest_new_from_data (const char *json, gssize length, GError **error);
AGENTS_AVAILABLE_IN_1_0
JsonNode *agents_manifest_to_json (AgentsManifest *self);
AGENTS_AVAILABLE_IN_1_0
char *agents_manifest_to_data (AgentsManifest *self, gsize *length);
AGENTS_AVAILABLE_IN_1_0
AgentsManifest *agents_manifest_copy (AgentsManifest *self);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_manifest_equal (AgentsManifest *a, AgentsManifest *b);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_manifest_entries_equal (AgentsManifest *a, AgentsManifest *b);

AGENTS_AVAILABLE_IN_1_0
int agents_manifest_get_version (AgentsManifest *self);
AGENTS_AVAILABLE_IN_1_0
const char *agents_manifest_get_root (AgentsManifest *self);
AGENTS_AVAILABLE_IN_1_0
void agents_manifest_set_root (AgentsManifest *self, const char *root);

AGENTS_AVAILABLE_IN_1_0
void agents_manifest_set_entry (AgentsManifest *self,
                                const char *path,
                                AgentsManifestEntry *entry);
AGENTS_AVAILABLE_IN_1_0
AgentsManifestEntry *agents_manifest_get_entry (AgentsManifest *self,
                                                const char *path);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_manifest_remove_entry (AgentsManifest *self, const char *path);
AGENTS_AVAILABLE_IN_1_0
char **agents_manifest_get_entry_paths (AgentsManifest *self);
AGENTS_AVAILABLE_IN_1_0
guint agents_manifest_get_n_entries (AgentsManifest *self);

AGENTS_AVAILABLE_IN_1_0
void agents_manifest_set_env (AgentsManifest *self,
                              const char *name,
                              const char *value);
AGENTS_AVAILABLE_IN_1_0
const char *agents_manifest_get_env (AgentsManifest *self, const char *name);
AGENTS_AVAILABLE_IN_1_0
char **agents_manifest_get_env_names (AgentsManifest *self);
AGENTS_AVAILABLE_IN_1_0
void agents_manifest_set_env_value (AgentsManifest *self,
                                    const char *name,
                                    AgentsEnvValue *value);
AGENTS_AVAILABLE_IN_1_0
AgentsEnvValue *agents_manifest_get_env_value (AgentsManifest *self,
                                               const char *name);
AGENTS_AVAILABLE_IN_1_0
void agents_manifest_resolve_environment_async (AgentsManifest *self,
                                                GCancellable *cancellable,
                                                GAsyncReadyCallback callback,
                                                gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
GHashTable *agents_manifest_resolve_environment_finish (AgentsManifest *self,
                                                        GAsyncResult *result,
                                                        GError **error);

AGENTS_AVAILABLE_IN_1_0
GPtrArray *agents_manifest_get_users (AgentsManifest *self);
AGENTS_AVAILABLE_IN_1_0
void agents_manifest_add_user (AgentsManifest *self, AgentsUser *user);
AGENTS_AVAILABLE_IN_1_0
GPtrArray *agents_manifest_get_groups (AgentsManifest *self);
AGENTS_AVAILABLE_IN_1_0
void agents_manifest_add_group (AgentsManifest *self, AgentsGroup *group);
AGENTS_AVAILABLE_IN_1_0
GPtrArray *agents_manifest_get_extra_path_grants (AgentsManifest *self);
AGENTS_AVAILABLE_IN_1_0
void agents_manifest_add_extra_path_grant (AgentsManifest *self,
                                           AgentsSandboxPathGrant *grant);
AGENTS_AVAILABLE_IN_1_0
const char *const *
agents_manifest_get_remote_mount_command_allowlist (AgentsManifest *self);
AGENTS_AVAILABLE_IN_1_0
void agents_manifest_set_remote_mount_command_allowlist (
  AgentsManifest *self, const char *const *commands);
AGENTS_AVAILABLE_IN_1_0
const char *const *
agents_manifest_get_default_remote_mount_command_allowlist (void);

AGENTS_AVAILABLE_IN_1_0
GPtrArray *agents_manifest_list_targets (AgentsManifest *self,
                                         gboolean only_ephemeral);
AGENTS_AVAILABLE_IN_1_0
GPtrArray *agents_manifest_list_mounts (AgentsManifest *self);
AGENTS_AVAILABLE_IN_1_0
GPtrArray *agents_manifest_get_mount_paths (AgentsManifest *self);
AGENTS_AVAILABLE_IN_1_0
GPtrArray *agents_manifest_list_mount_targets (AgentsManifest *self,
                                               gboolean only_ephemeral,
                                               GError **error);
AGENTS_AVAILABLE_IN_1_0
char **agents_manifest_get_ephemeral_persistence_paths (AgentsManifest *self,
                                                        GError **error);
AGENTS_AVAILABLE_IN_1_0
AgentsWorkspacePathPolicy *
agents_manifest_new_path_policy (AgentsManifest *self);
AGENTS_AVAILABLE_IN_1_0
char *agents_manifest_resolve_path (AgentsManifest *self,
                                    const char *path,
                                    GError **error);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_manifest_validate_relative_path (const char *path,
                                                 GError **error);

AGENTS_AVAILABLE_IN_1_0
void agents_manifest_acknowledge_mount_credential_exposure (
  AgentsManifest *self, const char *const *paths);
AGENTS_AVAILABLE_IN_1_0
gboolean
agents_manifest_is_mount_credential_exposure_acknowledged (AgentsManifest *self,
                                                           const char *path);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_manifest_rebind_mount_authority (AgentsManifest *self,
                                                 AgentsManifest *trusted,
                                                 GError **error);

G_END_DECLS
