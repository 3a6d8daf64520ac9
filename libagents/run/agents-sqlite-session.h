/* agents-sqlite-session.h - a conversation session in an SQLite database
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include <gio/gio.h>

#include "agents-conversation-session.h"

G_BEGIN_DECLS

#define AGENTS_TYPE_SQLITE_SESSION (agents_sqlite_session_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (
  AgentsSqliteSession, agents_sqlite_session, AGENTS, SQLITE_SESSION, GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsSqliteSession *
agents_sqlite_session_new (const char *session_id,
                           const char *db_path) G_GNUC_WARN_UNUSED_RESULT;

AGENTS_AVAILABLE_IN_1_0
const char *agents_sqlite_session_get_db_path (AgentsSqliteSession *self);

G_END_DECLS
