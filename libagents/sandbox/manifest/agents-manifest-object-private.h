/* agents-manifest-object-private.h - the manifest's instance, for the
 * files that implement it (agents-manifest*.c) and no other
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-env-value.h"
#include "agents-manifest.h"

G_BEGIN_DECLS

#define MANIFEST_VERSION 1

struct _AgentsManifest
{
  GObject parent_instance;

  int version;
  char *root;
  GPtrArray *entry_paths; /* insertion order */
  GHashTable *entries;    /* path → AgentsManifestEntry */
  GPtrArray *env_names;   /* insertion order */
  GHashTable *env;        /* name → EnvSlot */
  GPtrArray *users;
  GPtrArray *groups;
  GPtrArray *grants;
  GStrv allowlist;
};

/* A variable is a plain string or a typed value (never both). */
typedef struct
{
  char *plain;
  AgentsEnvValue *value;
} EnvSlot;

gboolean agents_manifest_env_slot_equal (const EnvSlot *a, const EnvSlot *b);

G_END_DECLS
