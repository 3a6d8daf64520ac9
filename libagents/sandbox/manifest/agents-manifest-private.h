/* agents-manifest-private.h - helpers shared with the entries
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-manifest.h"

G_BEGIN_DECLS

/* Lexically normalizes an absolute path (a relative one is read as if it
 * started with `/`); NULL if `..` climbs above `/`. */
char *agents_manifest_normalize_absolute (const char *path);

/* If the normalized absolute @path is @dir or inside it, returns the
 * relative rest ("." for @dir itself); NULL otherwise. */
char *agents_manifest_relative_within (const char *path, const char *dir);

/* A deep copy of @group: its users are copied too. */
AgentsGroup *agents_manifest_copy_group (AgentsGroup *group);

/* Copies the runtime-only credential acknowledgements
 * (agents-mount-security.c). */
void agents_manifest_copy_mount_acknowledgements (AgentsManifest *self,
                                                  AgentsManifest *copy);

/* A process-wide counter of changes to manifests and their entries: any
 * change of any manifest, entry or directory child bumps it, so text
 * derived from a manifest (the prompt's filesystem section) can be kept
 * while the counter has not moved. */
void agents_manifest_private_changed (void);
gsize agents_manifest_private_get_generation (void);

G_END_DECLS
