/* agents-manifest-entry-private.h - what the entry types share
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The entry model lives in manifest/: the abstract base
 * (agents-manifest-entry.c) and remote mounts (agents-mount.c). How the
 * built-in entries materialize themselves in a session is in entries/
 * (agents-entry-apply-private.h), which may include the session; this
 * room may not.
 */

#pragma once

#include "agents-manifest-entry.h"

G_BEGIN_DECLS

/* ---- the base (agents-manifest-entry.c) -------------------------------- */

typedef struct
{
  char *description;
  gboolean ephemeral;
  AgentsGroup *group;
  AgentsPermissions *permissions;
} AgentsManifestEntryPrivate;

/* The base members, for the subclasses' defaults (set without notify). */
AgentsManifestEntryPrivate *
agents_manifest_entry_get_private (AgentsManifestEntry *self);

/* The children of an entry that holds others (a directory), through its
 * class: their names in order (NULL for an entry that holds none), and
 * one of them by name. The manifest walks nested entries this way,
 * without knowing the built-in entry types, which live in entries/. */
char **agents_manifest_entry_get_child_names (AgentsManifestEntry *self);
AgentsManifestEntry *agents_manifest_entry_get_child (AgentsManifestEntry *self,
                                                      const char *name);

/* A new array of AgentsMaterializedFile. */
GPtrArray *agents_materialized_array_new (void);

/* ---- the members of every mount (agents-mount.c) ----------------------- */

/* The base handles `mount_path` and `read_only` itself, so that mount
 * subclasses in plugins never have to chain up for them. */
void agents_mount_serialize_common (AgentsMount *self, JsonBuilder *builder);
gboolean agents_mount_deserialize_common (AgentsMount *self,
                                          JsonObject *object,
                                          GError **error);
void agents_mount_copy_common (AgentsMount *self, AgentsMount *dest);
gboolean agents_mount_equal_common (AgentsMount *a, AgentsMount *b);

G_END_DECLS
