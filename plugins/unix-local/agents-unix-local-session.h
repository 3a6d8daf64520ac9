/* agents-unix-local-session.h - sessions of the unix_local backend
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gio/gio.h>

#include "agents.h"

G_BEGIN_DECLS

/* Private API: the types are found by name through the registry. */

#define AGENTS_TYPE_UNIX_LOCAL_SESSION_STATE \
  (agents_unix_local_session_state_get_type ())

G_DECLARE_FINAL_TYPE (AgentsUnixLocalSessionState,
                      agents_unix_local_session_state,
                      AGENTS,
                      UNIX_LOCAL_SESSION_STATE,
                      AgentsSandboxSessionState)

AgentsSandboxSessionState *
agents_unix_local_session_state_new (AgentsManifest *manifest,
                                     AgentsSnapshot *snapshot,
                                     gboolean workspace_root_owned);
gboolean agents_unix_local_session_state_get_workspace_root_owned (
  AgentsUnixLocalSessionState *self);
void agents_unix_local_session_state_set_workspace_root_owned (
  AgentsUnixLocalSessionState *self, gboolean owned);
/* The token of the owner record of the root, serialized with the state. */
const char *agents_unix_local_session_state_get_workspace_root_token (
  AgentsUnixLocalSessionState *self);
/* Marks the root as made (or proved made) by this library, with the token
 * of its owner record. Never serialized: a state read from JSON is not
 * proven. */
void agents_unix_local_session_state_set_root_proven (
  AgentsUnixLocalSessionState *self, const char *token);
gboolean agents_unix_local_session_state_get_root_proven (
  AgentsUnixLocalSessionState *self);

#define AGENTS_TYPE_UNIX_LOCAL_SESSION (agents_unix_local_session_get_type ())

G_DECLARE_FINAL_TYPE (AgentsUnixLocalSession,
                      agents_unix_local_session,
                      AGENTS,
                      UNIX_LOCAL_SESSION,
                      AgentsSandboxSessionBase)

/* @options: an a{sv} of session options or NULL:
 *   "confinement" (s): "auto" (default), "bwrap", "landlock",
 *                      "sandbox-exec" or "none"
 *   "network"     (b): whether commands may use the network (FALSE)
 */
AgentsUnixLocalSession *
agents_unix_local_session_new_from_state (AgentsSandboxSessionState *state,
                                          GVariant *options);

/* Checks @options the way agents_unix_local_session_new_from_state()
 * reads them. */
gboolean agents_unix_local_session_options_validate (GVariant *options,
                                                     GError **error);

/* Kills every command still running and removes the private temporary
 * directory. Blocking but quick; safe to call more than once. */
void agents_unix_local_session_cleanup (AgentsUnixLocalSession *self);

/* The number of commands running. */
guint agents_unix_local_session_get_n_running (AgentsUnixLocalSession *self);

/* Tests: caps each of stdout and stderr at @limit bytes (default
 * 64 MiB). */
void agents_unix_local_session_set_output_limit (AgentsUnixLocalSession *self,
                                                 gsize limit);

/* Tests: resolve paths component by component, refusing every symlink,
 * as on kernels without openat2(). */
void
agents_unix_local_session_set_openat2_disabled_for_testing (gboolean disabled);

G_END_DECLS
