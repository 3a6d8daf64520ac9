/* agents-dependencies.c - objects a session hands to what it drives
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-dependencies.h"

/**
 * AgentsDependencies:
 *
 * Objects bound to keys, which a session hands to the snapshots it
 * persists and restores: a remote snapshot (#AgentsRemoteSnapshot) finds
 * its client here by its `client_dependency_key`, so that a saved state
 * names the client without holding it. Set them on a session with
 * agents_sandbox_session_set_dependencies().
 */
struct _AgentsDependencies
{
  GObject parent_instance;

  GHashTable *values; /* key -> GObject */
};

G_DEFINE_FINAL_TYPE (AgentsDependencies, agents_dependencies, G_TYPE_OBJECT)

static void
agents_dependencies_finalize (GObject *object)
{
  g_hash_table_unref (AGENTS_DEPENDENCIES (object)->values);

  G_OBJECT_CLASS (agents_dependencies_parent_class)->finalize (object);
}

static void
agents_dependencies_class_init (AgentsDependenciesClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = agents_dependencies_finalize;
}

static void
agents_dependencies_init (AgentsDependencies *self)
{
  self->values =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
}

/**
 * agents_dependencies_new:
 *
 * Creates an empty set of dependencies.
 *
 * Returns: (transfer full): a new #AgentsDependencies
 */
AgentsDependencies *
agents_dependencies_new (void)
{
  return g_object_new (AGENTS_TYPE_DEPENDENCIES, NULL);
}

/**
 * agents_dependencies_bind_value:
 * @self: an #AgentsDependencies
 * @key: the key, such as `"tests.remote_snapshot_client"`
 * @value: the object to bind to @key
 *
 * Binds @value to @key, replacing what was bound to it.
 */
void
agents_dependencies_bind_value (AgentsDependencies *self,
                                const char *key,
                                GObject *value)
{
  g_return_if_fail (AGENTS_IS_DEPENDENCIES (self));
  g_return_if_fail (key != NULL && *key != '\0');
  g_return_if_fail (G_IS_OBJECT (value));

  g_hash_table_replace (self->values, g_strdup (key), g_object_ref (value));
}

/**
 * agents_dependencies_get:
 * @self: an #AgentsDependencies
 * @key: a key
 *
 * Gets what is bound to @key.
 *
 * Returns: (transfer none) (nullable): the object, or %NULL
 */
GObject *
agents_dependencies_get (AgentsDependencies *self, const char *key)
{
  g_return_val_if_fail (AGENTS_IS_DEPENDENCIES (self), NULL);
  g_return_val_if_fail (key != NULL, NULL);

  return g_hash_table_lookup (self->values, key);
}
