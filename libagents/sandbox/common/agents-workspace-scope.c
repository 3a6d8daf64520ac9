/* agents-workspace-scope.c - the run cwd workspace scope: the reference's
 * normalize_sandbox_cwd() and SandboxWorkspaceScope path rules
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "agents-sandbox-error-private.h"
#include "agents-workspace-scope-private.h"

static void
set_invalid (GError **error, const char *field, const char *message)
{
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                            g_variant_new_parsed ("{'field': <%s>}", field),
                            "%s", message);
}

static gboolean
is_drive_path (const char *path)
{
  return g_ascii_isalpha (path[0]) && path[1] == ':';
}

/* Joins the segments of @path but empty and `.` ones; NULL when one is
 * `..`. */
static char *
join_segments (const char *path)
{
  g_auto (GStrv) parts = g_strsplit (path, "/", -1);
  g_autoptr (GString) out = g_string_new (NULL);

  for (guint i = 0; parts[i] != NULL; i++)
    {
      if (*parts[i] == '\0' || g_str_equal (parts[i], "."))
        continue;
      if (g_str_equal (parts[i], ".."))
        return NULL;
      g_string_append_printf (out, "%s%s", out->len ? "/" : "", parts[i]);
    }
  return out->len ? g_string_free (g_steal_pointer (&out), FALSE)
                  : g_strdup (".");
}

char *
agents_workspace_scope_normalize_cwd (const char *cwd, GError **error)
{
  char *normalized;

  g_return_val_if_fail (cwd != NULL, NULL);

  if (*cwd == '\0')
    {
      set_invalid (error, "cwd", _ ("sandbox.cwd must be non-empty"));
      return NULL;
    }
  if (*cwd == '/' || is_drive_path (cwd))
    {
      set_invalid (error, "cwd", _ ("sandbox.cwd must be workspace-relative"));
      return NULL;
    }
  if (strchr (cwd, '\\') != NULL)
    {
      set_invalid (error, "cwd",
                   _ ("sandbox.cwd must use POSIX path separators"));
      return NULL;
    }
  normalized = join_segments (cwd);
  if (normalized == NULL)
    set_invalid (error, "cwd",
                 _ ("sandbox.cwd must not contain parent segments"));
  return normalized;
}

char *
agents_workspace_scope_resource_path (const char *root,
                                      const char *path,
                                      GError **error)
{
  g_autofree char *rel = NULL;

  g_return_val_if_fail (root != NULL && path != NULL, NULL);

  if (*root != '/' || strchr (root, '\\') != NULL)
    {
      set_invalid (error, "root",
                   _ ("sandbox workspace root must be POSIX absolute"));
      return NULL;
    }
  if (*path == '\0')
    {
      set_invalid (error, "path",
                   _ ("sandbox resource path must be non-empty"));
      return NULL;
    }
  if (*path == '/' || is_drive_path (path))
    {
      set_invalid (error, "path",
                   _ ("sandbox resource path must be workspace-relative"));
      return NULL;
    }
  if (strchr (path, '\\') != NULL)
    {
      set_invalid (error, "path",
                   _ ("sandbox resource path must use POSIX path separators"));
      return NULL;
    }
  rel = join_segments (path);
  if (rel == NULL)
    {
      set_invalid (error, "path",
                   _ ("sandbox resource path must be workspace-relative"));
      return NULL;
    }
  if (g_str_equal (rel, "."))
    return g_strdup (root);
  return g_build_path ("/", root, rel, NULL);
}

char *
agents_workspace_scope_model_path (const char *cwd, const char *path)
{
  g_auto (GStrv) from = g_strsplit (cwd, "/", -1);
  g_auto (GStrv) to = g_strsplit (path, "/", -1);
  g_autoptr (GString) out = g_string_new (NULL);
  guint common = 0;

  if (g_str_equal (cwd, "."))
    return g_strdup (path);
  while (from[common] != NULL && to[common] != NULL &&
         g_str_equal (from[common], to[common]))
    common++;
  for (guint i = common; from[i] != NULL; i++)
    g_string_append (out, out->len ? "/.." : "..");
  for (guint i = common; to[i] != NULL; i++)
    g_string_append_printf (out, "%s%s", out->len ? "/" : "", to[i]);
  return out->len ? g_string_free (g_steal_pointer (&out), FALSE)
                  : g_strdup (".");
}

char *
agents_workspace_scope_display_path (const char *original, const char *relative)
{
  return g_strdup (*original == '/' ? relative : original);
}
