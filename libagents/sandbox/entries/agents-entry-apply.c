/* agents-entry-apply.c - the steps entries take to materialize themselves
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-entry-apply-private.h"
#include "agents-sandbox-session-generic-private.h"

/* ---- the state of an apply --------------------------------------------- */

static void
apply_data_free (AgentsApplyData *data)
{
  g_clear_object (&data->entry);
  g_clear_object (&data->session);
  g_free (data->dest);
  g_free (data->base_dir);
  g_clear_pointer (&data->results, g_ptr_array_unref);
  g_free (data);
}

AgentsApplyData *
agents_apply_data_new (AgentsManifestEntry *entry,
                       AgentsSandboxSession *session,
                       const char *dest,
                       const char *base_dir,
                       GTask *task)
{
  AgentsApplyData *data = g_new0 (AgentsApplyData, 1);

  data->entry = g_object_ref (entry);
  data->session = g_object_ref (session);
  data->dest = g_strdup (dest);
  data->base_dir = g_strdup (base_dir);
  data->results = agents_materialized_array_new ();
  g_task_set_task_data (task, data, (GDestroyNotify) apply_data_free);
  return data;
}

void
agents_apply_data_return_results (GTask *task)
{
  AgentsApplyData *data = g_task_get_task_data (task);

  g_task_return_pointer (task, g_steal_pointer (&data->results),
                         (GDestroyNotify) g_ptr_array_unref);
}

char *
agents_entry_join_dest (const char *dir, const char *name)
{
  g_autofree char *joined = g_build_filename (dir, name, NULL);
  g_auto (GStrv) parts = g_strsplit (joined, "/", -1);
  GString *path = g_string_new (NULL);

  for (guint i = 0; parts[i] != NULL; i++)
    {
      if (*parts[i] == '\0' || g_str_equal (parts[i], "."))
        continue;
      g_string_append_c (path, '/');
      g_string_append (path, parts[i]);
    }
  if (path->len == 0)
    g_string_append_c (path, '/');
  return g_string_free (path, FALSE);
}

/* ---- metadata: chmod and chgrp of a materialized path ------------------ */

/* As the reference: chgrp first, then chmod with the permission bits
 * only, in four octal digits, whatever the permissions are. */
static GPtrArray *
metadata_commands (AgentsManifestEntry *entry, const char *dest)
{
  GPtrArray *commands =
    g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  guint mode =
    agents_permissions_to_mode (agents_manifest_entry_get_permissions (entry));
  AgentsGroup *group = agents_manifest_entry_get_group (entry);
  g_autofree char *octal = g_strdup_printf ("%04o", mode & 07777);
  const char *chmod_argv[] = { "chmod", octal, dest, NULL };

  if (group != NULL)
    {
      const char *argv[] = { "chgrp", agents_group_get_name (group), dest,
                             NULL };

      g_ptr_array_add (commands, g_strdupv ((char **) argv));
    }
  g_ptr_array_add (commands, g_strdupv ((char **) chmod_argv));
  return commands;
}

void
agents_entry_apply_metadata_async (AgentsManifestEntry *entry,
                                   AgentsSandboxSession *session,
                                   const char *dest,
                                   GCancellable *cancellable,
                                   GAsyncReadyCallback callback,
                                   gpointer user_data)
{
  g_autoptr (GPtrArray) commands = metadata_commands (entry, dest);

  agents_sandbox_session_run_commands_async (session, commands, FALSE,
                                             cancellable, callback, user_data);
}

gboolean
agents_entry_apply_metadata_finish (GAsyncResult *result, GError **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- writing one file: mkdir parent, write, metadata ------------------- */

typedef struct
{
  AgentsManifestEntry *entry; /* for metadata; NULL for none */
  AgentsSandboxSession *session;
  char *dest;
  GInputStream *content;
} WriteData;

static void
write_data_free (WriteData *data)
{
  g_clear_object (&data->entry);
  g_clear_object (&data->session);
  g_free (data->dest);
  g_clear_object (&data->content);
  g_free (data);
}

static void
write_metadata_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;

  if (!agents_entry_apply_metadata_finish (result, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
write_content_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  WriteData *data = g_task_get_task_data (task);
  GError *error = NULL;

  if (!agents_sandbox_session_write_finish (data->session, result, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  if (data->entry == NULL)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  agents_entry_apply_metadata_async (data->entry, data->session, data->dest,
                                     g_task_get_cancellable (task),
                                     write_metadata_cb, g_object_ref (task));
}

static void
write_mkdir_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  WriteData *data = g_task_get_task_data (task);
  GError *error = NULL;

  if (!agents_sandbox_session_mkdir_finish (data->session, result, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  agents_sandbox_session_write_async (data->session, data->dest, data->content,
                                      NULL, g_task_get_cancellable (task),
                                      write_content_cb, g_object_ref (task));
}

void
agents_entry_write_file_async (AgentsManifestEntry *entry,
                               AgentsSandboxSession *session,
                               const char *dest,
                               GInputStream *content,
                               GCancellable *cancellable,
                               GAsyncReadyCallback callback,
                               gpointer user_data)
{
  GTask *task = g_task_new (session, cancellable, callback, user_data);
  WriteData *data = g_new0 (WriteData, 1);
  g_autofree char *parent = g_path_get_dirname (dest);

  data->entry = entry ? g_object_ref (entry) : NULL;
  data->session = g_object_ref (session);
  data->dest = g_strdup (dest);
  data->content = g_object_ref (content);
  g_task_set_task_data (task, data, (GDestroyNotify) write_data_free);
  agents_sandbox_session_mkdir_async (session, parent, TRUE, cancellable,
                                      write_mkdir_cb, task);
}

gboolean
agents_entry_write_file_finish (GAsyncResult *result, GError **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}
