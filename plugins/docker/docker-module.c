/* docker-module.c - the docker backend as a GIO module
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-docker-client.h"
#include "agents-docker-session.h"

/* Only these three symbols are exported (plugins/plugin.map). */
G_MODULE_EXPORT void g_io_docker_load (GIOModule *module);
G_MODULE_EXPORT void g_io_docker_unload (GIOModule *module);
G_MODULE_EXPORT char **g_io_docker_query (void);

void
g_io_docker_load (GIOModule *module)
{
  /* The types are registered statically, so the module must never be
   * unloaded: keep one use of it forever. */
  g_type_module_use (G_TYPE_MODULE (module));

  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");

  g_io_extension_point_implement ("agents-sandbox-client",
                                  AGENTS_TYPE_DOCKER_CLIENT, "docker", 0);
  g_io_extension_point_implement (
    "agents-session-state", AGENTS_TYPE_DOCKER_SESSION_STATE, "docker", 0);
}

void
g_io_docker_unload (GIOModule *module)
{
}

char **
g_io_docker_query (void)
{
  char *eps[] = {
    (char *) "agents-sandbox-client",
    (char *) "agents-session-state",
    NULL,
  };

  return g_strdupv (eps);
}
