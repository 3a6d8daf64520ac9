/* agents-dependencies.h - objects a session hands to what it drives
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include <glib-object.h>

#include "agents-version-macros.h"

G_BEGIN_DECLS

#define AGENTS_TYPE_DEPENDENCIES (agents_dependencies_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (
  AgentsDependencies, agents_dependencies, AGENTS, DEPENDENCIES, GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsDependencies *agents_dependencies_new (void);
AGENTS_AVAILABLE_IN_1_0
void agents_dependencies_bind_value (AgentsDependencies *self,
                                     const char *key,
                                     GObject *value);
AGENTS_AVAILABLE_IN_1_0
GObject *agents_dependencies_get (AgentsDependencies *self, const char *key);

G_END_DECLS
