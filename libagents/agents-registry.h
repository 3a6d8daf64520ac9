/* agents-registry.h - plugins and the by-name registry
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include <gio/gio.h>

#include "agents-version-macros.h"

G_BEGIN_DECLS

/* Declared in agents-sandbox-client.h and agents-capability.h. */
typedef struct _AgentsSandboxClient AgentsSandboxClient;
typedef struct _AgentsCapability AgentsCapability;

/**
 * AgentsRegistryKind:
 * @AGENTS_REGISTRY_KIND_SANDBOX_CLIENT: sandbox backends, by backend id;
 *   types implement #AgentsSandboxClient
 * @AGENTS_REGISTRY_KIND_CAPABILITY: capabilities, by type name; types
 *   implement #AgentsCapability
 * @AGENTS_REGISTRY_KIND_ENTRY_TYPE: manifest entry types, by `type`
 *   discriminator; types derive from #AgentsManifestEntry
 * @AGENTS_REGISTRY_KIND_SNAPSHOT_TYPE: snapshot types, by `type`
 *   discriminator; types implement #AgentsSnapshot
 * @AGENTS_REGISTRY_KIND_SESSION_STATE: session state types, by `type`
 *   discriminator (a backend's states are named by its backend id);
 *   types derive from #AgentsSandboxSessionState
 * @AGENTS_REGISTRY_KIND_MODEL_PROVIDER: model providers, by prefix
 *
 * The kinds of names the registry knows.
 */
typedef enum
{
  AGENTS_REGISTRY_KIND_SANDBOX_CLIENT,
  AGENTS_REGISTRY_KIND_CAPABILITY,
  AGENTS_REGISTRY_KIND_ENTRY_TYPE,
  AGENTS_REGISTRY_KIND_SNAPSHOT_TYPE,
  AGENTS_REGISTRY_KIND_SESSION_STATE,
  AGENTS_REGISTRY_KIND_MODEL_PROVIDER,
} AgentsRegistryKind;

AGENTS_AVAILABLE_IN_1_0
void agents_registry_load_plugins (void);
AGENTS_AVAILABLE_IN_1_0
char **agents_registry_list_plugins (void);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_registry_register (AgentsRegistryKind kind,
                                   const char *name,
                                   GType type,
                                   GError **error);
AGENTS_AVAILABLE_IN_1_0
GType agents_registry_lookup (AgentsRegistryKind kind,
                              const char *name,
                              GError **error);
AGENTS_AVAILABLE_IN_1_0
char **agents_registry_list (AgentsRegistryKind kind);

AGENTS_AVAILABLE_IN_1_0
gboolean agents_registry_register_sandbox_client (const char *backend_id,
                                                  GType type,
                                                  GError **error);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_registry_register_capability (const char *name,
                                              GType type,
                                              GError **error);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_registry_register_entry_type (const char *name,
                                              GType type,
                                              GError **error);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_registry_register_snapshot_type (const char *name,
                                                 GType type,
                                                 GError **error);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_registry_register_session_state (const char *backend_id,
                                                 GType type,
                                                 GError **error);

AGENTS_AVAILABLE_IN_1_0
AgentsSandboxClient *
agents_registry_new_sandbox_client (const char *backend_id,
                                    GError **error) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
AgentsCapability *
agents_registry_new_capability (const char *name,
                                GError **error) G_GNUC_WARN_UNUSED_RESULT;

G_END_DECLS
