/* agents-entry-file.c - entries with inline content: files, directories
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "agents-entry-apply-private.h"
#include "agents-json-private.h"
#include "agents-manifest-entry-private.h"
#include "agents-manifest-private.h"
#include "agents-manifest.h"
#include "agents-sandbox-error-private.h"
#include "agents-sandbox-session.h"

/* ---- File ------------------------------------------------------------ */

/**
 * AgentsFile:
 *
 * A file with inline content.
 */
struct _AgentsFile
{
  AgentsManifestEntry parent_instance;

  GBytes *content;
};

G_DEFINE_FINAL_TYPE (AgentsFile, agents_file, AGENTS_TYPE_MANIFEST_ENTRY)

enum
{
  FILE_PROP_0,
  FILE_PROP_CONTENT,
  FILE_N_PROPS
};

static GParamSpec *file_properties[FILE_N_PROPS];

static void
agents_file_finalize (GObject *object)
{
  AgentsFile *self = AGENTS_FILE (object);

  g_clear_pointer (&self->content, g_bytes_unref);

  G_OBJECT_CLASS (agents_file_parent_class)->finalize (object);
}

static void
agents_file_get_property (GObject *object,
                          guint prop_id,
                          GValue *value,
                          GParamSpec *pspec)
{
  AgentsFile *self = AGENTS_FILE (object);

  switch (prop_id)
    {
    case FILE_PROP_CONTENT:
      g_value_set_boxed (value, self->content);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
set_content (AgentsFile *self, GBytes *content)
{
  g_clear_pointer (&self->content, g_bytes_unref);
  self->content = content ? g_bytes_ref (content) : g_bytes_new (NULL, 0);
}

static void
agents_file_set_property (GObject *object,
                          guint prop_id,
                          const GValue *value,
                          GParamSpec *pspec)
{
  AgentsFile *self = AGENTS_FILE (object);

  switch (prop_id)
    {
    case FILE_PROP_CONTENT:
      set_content (self, g_value_get_boxed (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
file_serialize_fields (AgentsManifestEntry *entry, JsonBuilder *builder)
{
  AgentsFile *self = AGENTS_FILE (entry);
  gsize size = 0;
  const char *data = g_bytes_get_data (self->content, &size);
  g_autofree char *encoded = NULL;

  if (g_utf8_validate_len (data ? data : "", size, NULL))
    {
      g_autofree char *text = g_strndup (data ? data : "", size);

      agents_json_add_string (builder, "content", text);
      return;
    }

  encoded = g_base64_encode ((const guchar *) data, size);
  json_builder_set_member_name (builder, "content");
  json_builder_begin_object (builder);
  agents_json_add_string (builder, "encoding", "base64");
  agents_json_add_string (builder, "data", encoded);
  json_builder_end_object (builder);
}

static gboolean
is_base64 (const char *text)
{
  for (const char *p = text; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && strchr ("+/=\r\n", *p) == NULL)
      return FALSE;
  return TRUE;
}

static GBytes *
decode_base64_content (JsonObject *object, GError **error)
{
  const char *encoding = NULL;
  const char *data = NULL;
  gsize len = 0;
  guchar *decoded;

  if (!agents_json_read_string (object, "encoding", FALSE, TRUE, &encoding,
                                error) ||
      !agents_json_read_string (object, "data", FALSE, TRUE, &data, error))
    return NULL;
  if (!g_str_equal (encoding, "base64") || !is_base64 (data))
    {
      agents_json_set_error (error, "content", "bad_encoding",
                             _ ("file content must be text or base64 data"));
      return NULL;
    }
  decoded = g_base64_decode (data, &len);
  return g_bytes_new_take (decoded, len);
}

static gboolean
file_deserialize_fields (AgentsManifestEntry *entry,
                         JsonObject *object,
                         GError **error)
{
  AgentsFile *self = AGENTS_FILE (entry);
  JsonNode *node = json_object_get_member (object, "content");
  g_autoptr (GBytes) content = NULL;

  if (node == NULL)
    {
      agents_json_set_missing (error, "content");
      return FALSE;
    }
  if (agents_json_holds (node, G_TYPE_STRING))
    {
      const char *text = json_node_get_string (node);

      content = g_bytes_new (text, strlen (text));
    }
  else if (JSON_NODE_HOLDS_OBJECT (node))
    content = decode_base64_content (json_node_get_object (node), error);
  else
    agents_json_set_wrong_type (error, "content", _ ("a string or an object"));

  if (content == NULL)
    return FALSE;
  set_content (self, content);
  return TRUE;
}

static void
file_copy_fields (AgentsManifestEntry *entry, AgentsManifestEntry *dest)
{
  set_content (AGENTS_FILE (dest), AGENTS_FILE (entry)->content);
}

static gboolean
file_equal_fields (AgentsManifestEntry *a, AgentsManifestEntry *b)
{
  return g_bytes_equal (AGENTS_FILE (a)->content, AGENTS_FILE (b)->content);
}

static void
file_written_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  AgentsApplyData *data = g_task_get_task_data (task);
  AgentsFile *self = AGENTS_FILE (data->entry);
  g_autofree char *sha = NULL;
  GError *error = NULL;

  if (!agents_entry_write_file_finish (result, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  sha = g_compute_checksum_for_bytes (G_CHECKSUM_SHA256, self->content);
  g_ptr_array_add (data->results,
                   agents_materialized_file_new (data->dest, sha));
  agents_apply_data_return_results (task);
}

static void
file_apply (AgentsManifestEntry *entry,
            AgentsSandboxSession *session,
            const char *dest,
            const char *base_dir,
            GTask *task)
{
  g_autoptr (GInputStream) content =
    g_memory_input_stream_new_from_bytes (AGENTS_FILE (entry)->content);

  agents_apply_data_new (entry, session, dest, base_dir, task);
  agents_entry_write_file_async (entry, session, dest, content,
                                 g_task_get_cancellable (task), file_written_cb,
                                 g_object_ref (task));
}

static void
agents_file_class_init (AgentsFileClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  AgentsManifestEntryClass *entry_class = AGENTS_MANIFEST_ENTRY_CLASS (klass);

  object_class->finalize = agents_file_finalize;
  object_class->get_property = agents_file_get_property;
  object_class->set_property = agents_file_set_property;

  entry_class->type_name = "file";
  entry_class->serialize_fields = file_serialize_fields;
  entry_class->deserialize_fields = file_deserialize_fields;
  entry_class->copy_fields = file_copy_fields;
  entry_class->equal_fields = file_equal_fields;
  entry_class->apply = file_apply;

  /**
   * AgentsFile:content:
   *
   * The content of the file.
   */
  file_properties[FILE_PROP_CONTENT] =
    g_param_spec_boxed ("content", NULL, NULL, G_TYPE_BYTES,
                        G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                          G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, FILE_N_PROPS,
                                     file_properties);
}

static void
agents_file_init (AgentsFile *self)
{
  self->content = g_bytes_new (NULL, 0);
}

/**
 * agents_file_new:
 * @content: (nullable): the content of the file
 *
 * Creates a file entry.
 *
 * Returns: (transfer full): a new #AgentsFile
 */
AgentsManifestEntry *
agents_file_new (GBytes *content)
{
  return g_object_new (AGENTS_TYPE_FILE, "content", content, NULL);
}

/**
 * agents_file_new_from_text:
 * @text: the content of the file, as text
 *
 * Creates a file entry from text.
 *
 * Returns: (transfer full): a new #AgentsFile
 */
AgentsManifestEntry *
agents_file_new_from_text (const char *text)
{
  g_autoptr (GBytes) content = NULL;

  g_return_val_if_fail (text != NULL, NULL);

  content = g_bytes_new (text, strlen (text));
  return agents_file_new (content);
}

/**
 * agents_file_get_content:
 * @self: an #AgentsFile
 *
 * Gets the content of the file.
 *
 * Returns: (transfer none): the content
 */
GBytes *
agents_file_get_content (AgentsFile *self)
{
  g_return_val_if_fail (AGENTS_IS_FILE (self), NULL);

  return self->content;
}

/* ---- Dir ------------------------------------------------------------- */

/**
 * AgentsDir:
 *
 * A directory, with child entries in order.
 */
struct _AgentsDir
{
  AgentsManifestEntry parent_instance;

  GPtrArray *names;     /* insertion order */
  GHashTable *children; /* name → AgentsManifestEntry */
};

G_DEFINE_FINAL_TYPE (AgentsDir, agents_dir, AGENTS_TYPE_MANIFEST_ENTRY)

static void
agents_dir_finalize (GObject *object)
{
  AgentsDir *self = AGENTS_DIR (object);

  g_ptr_array_unref (self->names);
  g_hash_table_unref (self->children);

  G_OBJECT_CLASS (agents_dir_parent_class)->finalize (object);
}

static gboolean
child_name_is_valid (const char *name, GError **error)
{
  if (g_str_equal (name, ".") || g_str_equal (name, "./"))
    {
      agents_sandbox_error_set_invalid_path (error, name, "escape_root");
      return FALSE;
    }
  return agents_manifest_validate_relative_path (name, error);
}

static void
dir_serialize_fields (AgentsManifestEntry *entry, JsonBuilder *builder)
{
  AgentsDir *self = AGENTS_DIR (entry);

  json_builder_set_member_name (builder, "children");
  json_builder_begin_object (builder);
  for (guint i = 0; i < self->names->len; i++)
    {
      const char *name = self->names->pdata[i];

      json_builder_set_member_name (builder, name);
      json_builder_add_value (builder,
                              agents_manifest_entry_to_json (
                                g_hash_table_lookup (self->children, name)));
    }
  json_builder_end_object (builder);
}

static gboolean
dir_deserialize_fields (AgentsManifestEntry *entry,
                        JsonObject *object,
                        GError **error)
{
  AgentsDir *self = AGENTS_DIR (entry);
  JsonObjectIter iter;
  const char *name;
  JsonNode *node;
  JsonNode *value;

  if (!agents_json_read_container (object, "children", JSON_NODE_OBJECT, &node,
                                   error))
    return FALSE;
  if (node == NULL)
    return TRUE;

  json_object_iter_init_ordered (&iter, json_node_get_object (node));
  while (json_object_iter_next_ordered (&iter, &name, &value))
    {
      g_autoptr (AgentsManifestEntry) child = NULL;

      if (!child_name_is_valid (name, error))
        return FALSE;
      child = agents_manifest_entry_new_from_json (value, error);
      if (child == NULL)
        return FALSE;
      agents_dir_set_child (self, name, child);
    }
  return TRUE;
}

static void
dir_copy_fields (AgentsManifestEntry *entry, AgentsManifestEntry *dest)
{
  AgentsDir *self = AGENTS_DIR (entry);

  for (guint i = 0; i < self->names->len; i++)
    {
      const char *name = self->names->pdata[i];
      g_autoptr (AgentsManifestEntry) child =
        agents_manifest_entry_copy (g_hash_table_lookup (self->children, name));

      agents_dir_set_child (AGENTS_DIR (dest), name, child);
    }
}

static gboolean
dir_equal_fields (AgentsManifestEntry *a, AgentsManifestEntry *b)
{
  AgentsDir *da = AGENTS_DIR (a);
  AgentsDir *db = AGENTS_DIR (b);

  if (da->names->len != db->names->len)
    return FALSE;
  for (guint i = 0; i < da->names->len; i++)
    {
      const char *name = da->names->pdata[i];
      AgentsManifestEntry *other = g_hash_table_lookup (db->children, name);

      if (other == NULL || !agents_manifest_entry_equal (
                             g_hash_table_lookup (da->children, name), other))
        return FALSE;
    }
  return TRUE;
}

static void dir_apply_next_child (GTask *task);

static void
dir_child_applied_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  AgentsApplyData *data = g_task_get_task_data (task);
  g_autoptr (GPtrArray) files = NULL;
  GError *error = NULL;

  files = agents_manifest_entry_apply_finish (AGENTS_MANIFEST_ENTRY (source),
                                              result, &error);
  if (files == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  for (guint i = 0; i < files->len; i++)
    g_ptr_array_add (data->results,
                     agents_materialized_file_copy (files->pdata[i]));
  dir_apply_next_child (g_steal_pointer (&task));
}

/* Applies the children one after the other; takes a task reference. */
static void
dir_apply_next_child (GTask *task)
{
  AgentsApplyData *data = g_task_get_task_data (task);
  AgentsDir *self = AGENTS_DIR (data->entry);
  g_autofree char *child_dest = NULL;
  const char *name;
  GError *error = NULL;

  if (data->next >= self->names->len)
    {
      agents_apply_data_return_results (task);
      g_object_unref (task);
      return;
    }

  name = self->names->pdata[data->next++];
  if (!child_name_is_valid (name, &error))
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  child_dest = agents_entry_join_dest (data->dest, name);
  agents_manifest_entry_apply_async (
    g_hash_table_lookup (self->children, name), data->session, child_dest,
    data->base_dir, g_task_get_cancellable (task), dir_child_applied_cb, task);
}

static void
dir_metadata_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;

  if (!agents_entry_apply_metadata_finish (result, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  dir_apply_next_child (g_steal_pointer (&task));
}

static void
dir_mkdir_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  AgentsApplyData *data = g_task_get_task_data (task);
  GError *error = NULL;

  if (!agents_sandbox_session_mkdir_finish (data->session, result, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  agents_entry_apply_metadata_async (data->entry, data->session, data->dest,
                                     g_task_get_cancellable (task),
                                     dir_metadata_cb, g_object_ref (task));
}

static void
dir_apply (AgentsManifestEntry *entry,
           AgentsSandboxSession *session,
           const char *dest,
           const char *base_dir,
           GTask *task)
{
  agents_apply_data_new (entry, session, dest, base_dir, task);
  agents_sandbox_session_mkdir_async (session, dest, TRUE,
                                      g_task_get_cancellable (task),
                                      dir_mkdir_cb, g_object_ref (task));
}

static char **
dir_get_child_names (AgentsManifestEntry *entry)
{
  return agents_dir_get_child_names (AGENTS_DIR (entry));
}

static AgentsManifestEntry *
dir_get_child (AgentsManifestEntry *entry, const char *name)
{
  return agents_dir_get_child (AGENTS_DIR (entry), name);
}

static void
agents_dir_class_init (AgentsDirClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  AgentsManifestEntryClass *entry_class = AGENTS_MANIFEST_ENTRY_CLASS (klass);

  object_class->finalize = agents_dir_finalize;

  entry_class->type_name = "dir";
  entry_class->serialize_fields = dir_serialize_fields;
  entry_class->deserialize_fields = dir_deserialize_fields;
  entry_class->copy_fields = dir_copy_fields;
  entry_class->equal_fields = dir_equal_fields;
  entry_class->apply = dir_apply;
  entry_class->get_child_names = dir_get_child_names;
  entry_class->get_child = dir_get_child;
}

static void
agents_dir_init (AgentsDir *self)
{
  AgentsManifestEntryPrivate *priv =
    agents_manifest_entry_get_private (AGENTS_MANIFEST_ENTRY (self));

  self->names = g_ptr_array_new_with_free_func (g_free);
  self->children =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  priv->permissions->directory = TRUE;
}

/**
 * agents_dir_new:
 *
 * Creates an empty directory entry.
 *
 * Returns: (transfer full): a new #AgentsDir
 */
AgentsManifestEntry *
agents_dir_new (void)
{
  return g_object_new (AGENTS_TYPE_DIR, NULL);
}

/**
 * agents_dir_set_child:
 * @self: an #AgentsDir
 * @name: a relative path below the directory
 * @child: (nullable): the entry, or %NULL to remove the child
 *
 * Adds, replaces (keeping its place) or removes a child.
 */
void
agents_dir_set_child (AgentsDir *self,
                      const char *name,
                      AgentsManifestEntry *child)
{
  g_return_if_fail (AGENTS_IS_DIR (self));
  g_return_if_fail (name != NULL && child_name_is_valid (name, NULL));
  g_return_if_fail (child == NULL || AGENTS_IS_MANIFEST_ENTRY (child));

  agents_manifest_private_changed ();
  if (child == NULL)
    {
      if (!g_hash_table_remove (self->children, name))
        return;
      for (guint i = 0; i < self->names->len; i++)
        if (g_str_equal (self->names->pdata[i], name))
          {
            g_ptr_array_remove_index (self->names, i);
            break;
          }
      return;
    }
  if (!g_hash_table_contains (self->children, name))
    g_ptr_array_add (self->names, g_strdup (name));
  g_hash_table_replace (self->children, g_strdup (name), g_object_ref (child));
}

/**
 * agents_dir_get_child:
 * @self: an #AgentsDir
 * @name: the name of a child
 *
 * Gets a child.
 *
 * Returns: (transfer none) (nullable): the child
 */
AgentsManifestEntry *
agents_dir_get_child (AgentsDir *self, const char *name)
{
  g_return_val_if_fail (AGENTS_IS_DIR (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  return g_hash_table_lookup (self->children, name);
}

/**
 * agents_dir_get_child_names:
 * @self: an #AgentsDir
 *
 * Lists the names of the children in order.
 *
 * Returns: (transfer full) (array zero-terminated=1): the names
 */
char **
agents_dir_get_child_names (AgentsDir *self)
{
  char **names;

  g_return_val_if_fail (AGENTS_IS_DIR (self), NULL);

  names = g_new0 (char *, self->names->len + 1);
  for (guint i = 0; i < self->names->len; i++)
    names[i] = g_strdup (self->names->pdata[i]);
  return names;
}
