/* agents-sandbox-session-state-private.h - what the session state files
 * share (agents-sandbox-session-state.c, -state-json.c) and no other
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-sandbox-session-state.h"

G_BEGIN_DECLS

typedef struct
{
  char *session_id;
  AgentsManifest *manifest;
  AgentsSnapshot *snapshot;
  gboolean workspace_root_ready;
  GArray *exposed_ports; /* of int, 1..65535, no duplicates */
  char *snapshot_fingerprint;
  char *snapshot_fingerprint_version;
  gboolean root_vouched;       /* in memory only */
  GStrv grants_require_rebind; /* grant paths whose host_path was dropped */
} AgentsSandboxSessionStatePrivate;

/* The instance data of @self (GET_PRIV in agents-sandbox-session-state.c). */
AgentsSandboxSessionStatePrivate *
agents_sandbox_session_state_peek_private (AgentsSandboxSessionState *self);

/* Defines the typed-JSON family of the states, whose base is @base (the
 * state class, from its class_init). */
void agents_sandbox_session_state_define_json_family (GType base);

G_END_DECLS
