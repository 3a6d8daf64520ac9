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

G_END_DECLS
