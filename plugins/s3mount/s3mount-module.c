/* s3mount-module.c - the s3mount plugin as a GIO module
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-s3-mount.h"

/* From agents-s3-mount-private.h, which only the library's own sources
 * may include. */
void s3mount_register_types (void);

/* Only these three symbols are exported (plugins/plugin.map). */
G_MODULE_EXPORT void g_io_s3mount_load (GIOModule *module);
G_MODULE_EXPORT void g_io_s3mount_unload (GIOModule *module);
G_MODULE_EXPORT char **g_io_s3mount_query (void);

void
g_io_s3mount_load (GIOModule *module)
{
  /* The types are registered statically, so the module must never be
   * unloaded: keep one use of it forever. */
  g_type_module_use (G_TYPE_MODULE (module));

  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");

  g_io_extension_point_implement ("agents-entry-type", AGENTS_TYPE_S3_MOUNT,
                                  "s3_mount", 0);
  s3mount_register_types ();
}

void
g_io_s3mount_unload (GIOModule *module)
{
}

char **
g_io_s3mount_query (void)
{
  char *eps[] = { (char *) "agents-entry-type", NULL };

  return g_strdupv (eps);
}
