/* agents-sandbox-client-base.h - a base class for sandbox backends
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include <gio/gio.h>

#include "agents-sandbox-client.h"

G_BEGIN_DECLS

#define AGENTS_TYPE_SANDBOX_CLIENT_BASE (agents_sandbox_client_base_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_DERIVABLE_TYPE (AgentsSandboxClientBase,
                          agents_sandbox_client_base,
                          AGENTS,
                          SANDBOX_CLIENT_BASE,
                          GObject)

/**
 * AgentsSandboxClientBaseClass:
 * @parent_class: the parent class
 *
 * The class of #AgentsSandboxClientBase. A subclass implements the
 * #AgentsSandboxClient primitives it needs (@create, @resume,
 * @get_backend_id …) and names the type of its session states with
 * agents_sandbox_client_base_class_set_session_state_type().
 */
struct _AgentsSandboxClientBaseClass
{
  GObjectClass parent_class;

  /*< private >*/
  gpointer padding[12];
};

AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_client_base_class_set_session_state_type (
  AgentsSandboxClientBaseClass *klass, GType state_type);
AGENTS_AVAILABLE_IN_1_0
GType agents_sandbox_client_base_get_session_state_type (
  AgentsSandboxClientBase *self);

G_END_DECLS
