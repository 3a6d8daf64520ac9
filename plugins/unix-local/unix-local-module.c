/* unix-local-module.c - the unix_local backend as a GIO module
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-unix-local-client.h"
#include "agents-unix-local-session.h"

/* Only these three symbols are exported (plugins/plugin.map). */
G_MODULE_EXPORT void g_io_unixlocal_load (GIOModule *module);
G_MODULE_EXPORT void g_io_unixlocal_unload (GIOModule *module);
G_MODULE_EXPORT char **g_io_unixlocal_query (void);

void
g_io_unixlocal_load (GIOModule *module)
{
  /* The types are registered statically, so the module must never be
   * unloaded: keep one use of it forever. */
  g_type_module_use (G_TYPE_MODULE (module));

  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");

  g_io_extension_point_implement (
    "agents-sandbox-client", AGENTS_TYPE_UNIX_LOCAL_CLIENT, "unix_local", 0);
  g_io_extension_point_implement ("agents-session-state",
                                  AGENTS_TYPE_UNIX_LOCAL_SESSION_STATE,
                                  "unix_local", 0);
}

void
g_io_unixlocal_unload (GIOModule *module)
{
}

char **
g_io_unixlocal_query (void)
{
  char *eps[] = {
    (char *) "agents-sandbox-client",
    (char *) "agents-session-state",
    NULL,
  };

  return g_strdupv (eps);
}
