/* agents-mount-security-private.h - mount credentials kept out of saved state
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Exported for the plugins, which link the shared library, but not
 * public API.
 */

#pragma once

#include "agents-manifest.h"

G_BEGIN_DECLS

/* The member a saved entry carries once its authority was removed
 * (the reference's name, so that either side reads the other's). */
#define AGENTS_MOUNT_REDACTED_AUTHORITY_MEMBER \
  "__openai_agents_redacted_mount_authority"

/* Declares the JSON members of @type (a mount entry type) that carry
 * authority (keys, tokens): they are left out of saved session and run
 * states. @members must be static. */
AGENTS_AVAILABLE_IN_1_0
void agents_mount_type_set_authority_members (GType type,
                                              const char *const *members);
AGENTS_AVAILABLE_IN_1_0
const char *const *agents_mount_type_get_authority_members (GType type);

/* Removes the authority members from every mount entry of @manifest_json
 * (a manifest's JSON, changed in place) and marks those entries. */
AGENTS_AVAILABLE_IN_1_0
void agents_manifest_json_strip_mount_authority (JsonNode *manifest_json);

/* Refuses a manifest whose mounts carry credentials for a helper the
 * sandbox can observe without trusted code's acknowledgement of their
 * paths (%AGENTS_SANDBOX_ERROR_MOUNT_CONFIG). */
AGENTS_AVAILABLE_IN_1_0
gboolean agents_manifest_check_mount_credential_boundary (AgentsManifest *self,
                                                          GError **error);

/* Whether a mount entry of @self carries credentials: then an error met
 * while handling it may quote them. */
AGENTS_AVAILABLE_IN_1_0
gboolean agents_manifest_has_mount_authority (AgentsManifest *self);

/* Replaces @error (taken) by one of the same domain and code that says
 * only that a protected mount configuration was involved, with no
 * context: “sandbox operation failed while using a protected mount
 * configuration”. The library's own MOUNT_CONFIG errors, which never
 * quote credentials, and %NULL are returned as they are. */
AGENTS_AVAILABLE_IN_1_0
GError *agents_mount_error_redact (GError *error) G_GNUC_WARN_UNUSED_RESULT;

G_END_DECLS
