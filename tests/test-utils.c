/* test-utils.c - helpers shared by the test programs
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gstdio.h>

#include "test-utils.h"

void
agents_test_wait_for (gboolean *done)
{
  GMainContext *context = g_main_context_get_thread_default ();

  while (!*done)
    g_main_context_iteration (context, TRUE);
}

void
agents_test_async_cb (GObject *source, GAsyncResult *res, gpointer user_data)
{
  GAsyncResult **result = user_data;

  *result = g_object_ref (res);
}

GAsyncResult *
agents_test_wait_result (GAsyncResult **result)
{
  GMainContext *context = g_main_context_get_thread_default ();

  while (*result == NULL)
    g_main_context_iteration (context, TRUE);
  return *result;
}

char *
agents_test_make_tmp_dir (const char *prefix)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *tmpl = g_strdup_printf ("%sXXXXXX", prefix);
  char *path = g_dir_make_tmp (tmpl, &error);

  g_assert_no_error (error);
  return path;
}

static void
rm_rf_at (const char *path)
{
  GDir *dir;
  const char *name;

  if (!g_file_test (path, G_FILE_TEST_IS_DIR) ||
      g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    {
      g_unlink (path);
      return;
    }
  dir = g_dir_open (path, 0, NULL);
  if (dir != NULL)
    {
      while ((name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          rm_rf_at (child);
        }
      g_dir_close (dir);
    }
  g_rmdir (path);
}

void
agents_test_rm_rf (const char *path)
{
  if (path != NULL)
    rm_rf_at (path);
}

void
agents_test_write_file (const char *path, const char *contents)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_file_set_contents (path, contents, -1, &error);
  g_assert_no_error (error);
}

char *
agents_test_read_file (const char *path)
{
  g_autoptr (GError) error = NULL;
  char *contents = NULL;

  g_file_get_contents (path, &contents, NULL, &error);
  g_assert_no_error (error);
  return contents;
}

JsonNode *
agents_test_str_node (const char *text)
{
  return json_node_init_string (json_node_alloc (), text);
}

void
agents_test_add_turn (AgentsScriptedModel *model, JsonObject *first, ...)
{
  g_autoptr (JsonArray) items = json_array_new ();
  va_list args;

  va_start (args, first);
  for (JsonObject *item = first; item != NULL;
       item = va_arg (args, JsonObject *))
    json_array_add_object_element (items, item);
  va_end (args);
  agents_scripted_model_set_next_output (model, items);
}

AgentsAgent *
agents_test_new_agent (const char *name, AgentsScriptedModel *model)
{
  AgentsAgent *agent = agents_agent_new (name);

  if (model != NULL)
    agents_agent_set_model (agent, AGENTS_MODEL (model));
  return agent;
}
