/* agents-agent-private.h - what agents and handoffs share
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-agent.h"

G_BEGIN_DECLS

/* A user function shared between an agent and its clones. */
typedef struct
{
  gatomicrefcount ref_count;
  gpointer func;
  gpointer user_data;
  GDestroyNotify destroy;
} AgentsCallback;

AgentsCallback *
agents_callback_new (gpointer func, gpointer user_data, GDestroyNotify destroy);
AgentsCallback *agents_callback_ref (AgentsCallback *callback);
void agents_callback_unref (AgentsCallback *callback);

/* Replaces *@field by a copy of @value; FALSE when they were equal. */
gboolean agents_agent_set_string (char **field, const char *value);

/* The reference's transform_string_function_style(). */
char *agents_agent_function_style (const char *name);

#define AGENTS_AGENT_PARAM_FLAGS \
  (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY)

G_END_DECLS
