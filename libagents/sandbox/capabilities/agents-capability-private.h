/* agents-capability-private.h - capability checks the runtime makes
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-capability.h"

G_BEGIN_DECLS

/* Whether every capability of @capabilities (#AgentsCapability items)
 * has the capabilities it requires beside it; else
 * %AGENTS_RUN_ERROR_USER_ERROR "<Type> requires missing capabilities:
 * <types, sorted>", as the reference's preparation says it. */
gboolean agents_capabilities_check_required (GListModel *capabilities,
                                             GError **error);

/* What a built-in tool is bound to: its capability, and the run-as user
 * and run cwd the capability had when the tool was made. A tool keeps
 * them: when the runtime binds the capability to another user, the
 * tools made before still run as the first one (the runtime makes new
 * tools, with a new execution agent). The user data of the tools of the
 * shell and filesystem capabilities. */
typedef struct
{
  AgentsCapability *capability;
  char *run_as; /* user name, or NULL */
  char *cwd;    /* normalized, workspace-relative, or NULL */
} AgentsToolBinding;

AgentsToolBinding *agents_tool_binding_new (AgentsCapability *capability);
void agents_tool_binding_free (AgentsToolBinding *binding);

/* @path as a tool of @binding resolves it: a relative path from the
 * bound cwd (as is without one), an absolute one as is. The result is
 * to be checked by the session's path policy. */
char *agents_tool_binding_anchor (const AgentsToolBinding *binding,
                                  const char *path);

G_END_DECLS
