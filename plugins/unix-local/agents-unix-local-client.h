/* agents-unix-local-client.h - the unix_local sandbox backend
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gio/gio.h>

#include "agents.h"

G_BEGIN_DECLS

/* Private API: the client is found by its backend id, "unix_local",
 * through the registry. */

#define AGENTS_TYPE_UNIX_LOCAL_CLIENT (agents_unix_local_client_get_type ())

G_DECLARE_FINAL_TYPE (AgentsUnixLocalClient,
                      agents_unix_local_client,
                      AGENTS,
                      UNIX_LOCAL_CLIENT,
                      AgentsSandboxClientBase)

AgentsSandboxClient *agents_unix_local_client_new (void);

/* Removes a workspace tree without following symlinks; called from a
 * worker thread. */
typedef gboolean (*AgentsUnixLocalRmtreeFunc) (const char *path,
                                               GError **error);

/* The default tree removal. */
gboolean agents_unix_local_rmtree (const char *path, GError **error);

/* Tests: replaces the tree removal of delete (NULL restores it). */
void agents_unix_local_client_set_rmtree_func (AgentsUnixLocalRmtreeFunc func);

/* The system directory @root is or is under (see the client's
 * allow-system-root property), or NULL. */
char *agents_unix_local_system_root (const char *root);

/* Registers the client and session state types with the registry, for
 * programs that link the backend statically (the tests). */
void agents_unix_local_register_types (void);

G_END_DECLS
