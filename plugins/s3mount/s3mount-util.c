/* s3mount-util.c - helpers shared by the s3mount sources
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-sandbox-error-private.h"
#include "agents-s3-mount-private.h"

void
s3mount_set_config_error (GError **error,
                          const char *owner,
                          const char *member,
                          const char *message)
{
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_MOUNT_CONFIG,
                            agents_json_typed_context (owner, member), "%s: %s",
                            owner, message);
}

gboolean
s3mount_text_is_safe (const char *text)
{
  if (text == NULL || !g_utf8_validate (text, -1, NULL))
    return FALSE;
  for (const char *p = text; *p != '\0'; p++)
    if ((guchar) *p < 0x20 || *p == 0x7f)
      return FALSE;
  return TRUE;
}

gboolean
s3mount_path_is_safe (const char *path)
{
  return s3mount_text_is_safe (path) && g_path_is_absolute (path);
}

char **
s3mount_environ_add (char **envp, const char *name, const char *value)
{
  if (value == NULL)
    return envp;
  return g_environ_setenv (envp, name, value, TRUE);
}

gboolean
s3mount_set_str (char **field, const char *value)
{
  if (g_strcmp0 (*field, value) == 0)
    return FALSE;
  g_free (*field);
  *field = g_strdup (value);
  return TRUE;
}
