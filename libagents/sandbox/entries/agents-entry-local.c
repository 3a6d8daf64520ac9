/* agents-entry-local.c - entries copied from the host: local files and
 * directories, read without ever following a symbolic link
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-entry-apply-private.h"
#include "agents-local-source-private.h"
#include "agents-json-private.h"
#include "agents-manifest-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-sandbox-session.h"

/* ---- LocalFile ------------------------------------------------------- */

/**
 * AgentsLocalFile:
 *
 * A copy of a file of the host. The source must lie inside the base
 * directory given when the manifest is applied (or inside an extra path
 * grant of the session's manifest, read from the grant's host path when
 * it has one), and is opened without following symbolic links: a link on
 * the way gives the context reason `symlink_not_supported`, with the
 * path up to the link as `child`.
 */
struct _AgentsLocalFile
{
  AgentsManifestEntry parent_instance;

  char *src;
};

G_DEFINE_FINAL_TYPE (AgentsLocalFile,
                     agents_local_file,
                     AGENTS_TYPE_MANIFEST_ENTRY)

/* LocalFile and LocalDir share their "src" member. */
enum
{
  SRC_PROP_0,
  SRC_PROP_SRC,
  SRC_N_PROPS
};

static GParamSpec *local_file_properties[SRC_N_PROPS];
static GParamSpec *local_dir_properties[SRC_N_PROPS];

struct _AgentsLocalDir
{
  AgentsManifestEntry parent_instance;

  char *src;
};

static char **
src_slot (GObject *object)
{
  if (AGENTS_IS_LOCAL_FILE (object))
    return &AGENTS_LOCAL_FILE (object)->src;
  return &AGENTS_LOCAL_DIR (object)->src;
}

static void
src_get_property (GObject *object,
                  guint prop_id,
                  GValue *value,
                  GParamSpec *pspec)
{
  if (prop_id != SRC_PROP_SRC)
    {
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      return;
    }
  g_value_set_string (value, *src_slot (object));
}

static void
src_set_property (GObject *object,
                  guint prop_id,
                  const GValue *value,
                  GParamSpec *pspec)
{
  char **slot = src_slot (object);

  if (prop_id != SRC_PROP_SRC)
    {
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      return;
    }
  g_free (*slot);
  *slot =
    g_strdup (g_value_get_string (value) ? g_value_get_string (value) : "");
}

static void
src_finalize (GObject *object, GObjectClass *parent_class)
{
  g_free (*src_slot (object));
  parent_class->finalize (object);
}

static void
src_serialize_fields (AgentsManifestEntry *entry, JsonBuilder *builder)
{
  agents_json_add_string (builder, "src", *src_slot (G_OBJECT (entry)));
}

static gboolean
src_deserialize_fields (AgentsManifestEntry *entry,
                        JsonObject *object,
                        GError **error)
{
  char **slot = src_slot (G_OBJECT (entry));
  const char *src = NULL;

  if (!agents_json_read_string (object, "src", FALSE, TRUE, &src, error))
    return FALSE;
  g_free (*slot);
  *slot = g_strdup (src);
  return TRUE;
}

static void
src_copy_fields (AgentsManifestEntry *entry, AgentsManifestEntry *dest)
{
  char **slot = src_slot (G_OBJECT (dest));

  g_free (*slot);
  *slot = g_strdup (*src_slot (G_OBJECT (entry)));
}

static gboolean
src_equal_fields (AgentsManifestEntry *a, AgentsManifestEntry *b)
{
  return g_strcmp0 (*src_slot (G_OBJECT (a)), *src_slot (G_OBJECT (b))) == 0;
}

static void local_file_opened_cb (GObject *source,
                                  GAsyncResult *result,
                                  gpointer user_data);
static void
local_dir_opened_cb (GObject *source, GAsyncResult *result, gpointer user_data);

/* The apply of both: resolves and opens the source of @entry in a
 * thread, then goes on with the apply @task as a file or a directory. */
static void
src_apply (AgentsManifestEntry *entry,
           AgentsSandboxSession *session,
           const char *dest,
           const char *base_dir,
           GTask *task)
{
  g_auto (GStrv) grants = agents_local_source_dup_grant_paths (session);
  GAsyncReadyCallback opened_cb =
    AGENTS_IS_LOCAL_DIR (entry) ? local_dir_opened_cb : local_file_opened_cb;
  AgentsLocalSource *source;
  GError *error = NULL;

  agents_apply_data_new (entry, session, dest, base_dir, task);
  source = agents_local_source_resolve (*src_slot (G_OBJECT (entry)), base_dir,
                                        (const char *const *) grants,
                                        AGENTS_IS_LOCAL_DIR (entry), &error);
  if (source == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  agents_local_source_open_async (source, g_task_get_cancellable (task),
                                  opened_cb, g_object_ref (task));
}

/* Fills in the class of LocalFile or LocalDir but for finalize,
 * installing the "src" property in @properties. */
static void
src_class_init (AgentsManifestEntryClass *entry_class,
                const char *type_name,
                GParamSpec **properties)
{
  GObjectClass *object_class = G_OBJECT_CLASS (entry_class);

  object_class->get_property = src_get_property;
  object_class->set_property = src_set_property;

  entry_class->type_name = type_name;
  entry_class->apply = src_apply;
  entry_class->serialize_fields = src_serialize_fields;
  entry_class->deserialize_fields = src_deserialize_fields;
  entry_class->copy_fields = src_copy_fields;
  entry_class->equal_fields = src_equal_fields;

  properties[SRC_PROP_SRC] =
    g_param_spec_string ("src", NULL, NULL, "",
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                           G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, SRC_N_PROPS, properties);
}

static void
agents_local_file_finalize (GObject *object)
{
  src_finalize (object, G_OBJECT_CLASS (agents_local_file_parent_class));
}

typedef struct
{
  GTask *task; /* the apply task */
  AgentsChecksumStream *content;
} LocalFileWrite;

static void
local_file_written_cb (GObject *source,
                       GAsyncResult *result,
                       gpointer user_data)
{
  LocalFileWrite *write = user_data;
  g_autoptr (GTask) task = write->task;
  g_autoptr (AgentsChecksumStream) content = write->content;
  AgentsApplyData *data = g_task_get_task_data (task);
  g_autofree char *sha = NULL;
  GError *error = NULL;
  gboolean written;

  g_free (write);
  written = agents_entry_write_file_finish (result, &error);
  if (!agents_checksum_stream_write_finish (
        content, written, AGENTS_SANDBOX_ERROR_LOCAL_FILE_READ,
        AGENTS_LOCAL_FILE (data->entry)->src, &sha, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  g_ptr_array_add (data->results,
                   agents_materialized_file_new (data->dest, sha));
  agents_apply_data_return_results (task);
}

static void
local_file_opened_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  AgentsApplyData *data = g_task_get_task_data (task);
  LocalFileWrite *write;
  GError *error = NULL;
  int fd = agents_local_source_open_finish (result, &error);

  if (fd < 0)
    {
      g_task_return_error (task, error);
      return;
    }
  write = g_new0 (LocalFileWrite, 1);
  write->task = g_steal_pointer (&task);
  write->content = agents_checksum_stream_new_for_fd (fd);
  agents_entry_write_file_async (
    data->entry, data->session, data->dest, G_INPUT_STREAM (write->content),
    g_task_get_cancellable (write->task), local_file_written_cb, write);
}

static void
agents_local_file_class_init (AgentsLocalFileClass *klass)
{
  AgentsManifestEntryClass *entry_class = AGENTS_MANIFEST_ENTRY_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = agents_local_file_finalize;

  /**
   * AgentsLocalFile:src:
   *
   * The host path of the file, relative to the base directory or
   * absolute.
   */
  src_class_init (entry_class, "local_file", local_file_properties);
}

static void
agents_local_file_init (AgentsLocalFile *self)
{
  self->src = g_strdup ("");
}

/**
 * agents_local_file_new:
 * @src: (type filename): the host path of the file
 *
 * Creates a local file entry.
 *
 * Returns: (transfer full): a new #AgentsLocalFile
 */
AgentsManifestEntry *
agents_local_file_new (const char *src)
{
  g_return_val_if_fail (src != NULL, NULL);

  return g_object_new (AGENTS_TYPE_LOCAL_FILE, "src", src, NULL);
}

/**
 * agents_local_file_get_src:
 * @self: an #AgentsLocalFile
 *
 * Gets the host path of the file.
 *
 * Returns: (type filename): the path
 */
const char *
agents_local_file_get_src (AgentsLocalFile *self)
{
  g_return_val_if_fail (AGENTS_IS_LOCAL_FILE (self), NULL);

  return self->src;
}

/* ---- LocalDir -------------------------------------------------------- */

/**
 * AgentsLocalDir:
 *
 * A copy of a directory tree of the host. The source is confined like
 * that of #AgentsLocalFile. A symbolic link anywhere in the tree refuses
 * it whole, before anything is copied: %AGENTS_SANDBOX_ERROR_LOCAL_DIR_READ
 * with the context reason `symlink_not_supported` and the link's path
 * below the source as `child`.
 */
G_DEFINE_FINAL_TYPE (AgentsLocalDir,
                     agents_local_dir,
                     AGENTS_TYPE_MANIFEST_ENTRY)

static void
agents_local_dir_finalize (GObject *object)
{
  src_finalize (object, G_OBJECT_CLASS (agents_local_dir_parent_class));
}

static void
local_dir_copied_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GPtrArray *files;
  GError *error = NULL;

  files = agents_entry_copy_tree_finish (result, &error);
  if (files == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, files, (GDestroyNotify) g_ptr_array_unref);
}

static void
local_dir_opened_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  AgentsApplyData *data = g_task_get_task_data (task);
  GError *error = NULL;
  int fd = agents_local_source_open_finish (result, &error);

  if (fd < 0)
    {
      g_task_return_error (task, error);
      return;
    }
  agents_entry_copy_tree_async (data->entry, data->session, fd, data->dest,
                                AGENTS_LOCAL_DIR (data->entry)->src,
                                AGENTS_SANDBOX_ERROR_LOCAL_DIR_READ, FALSE,
                                g_task_get_cancellable (task),
                                local_dir_copied_cb, g_object_ref (task));
}

static void
agents_local_dir_class_init (AgentsLocalDirClass *klass)
{
  AgentsManifestEntryClass *entry_class = AGENTS_MANIFEST_ENTRY_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = agents_local_dir_finalize;

  /**
   * AgentsLocalDir:src:
   *
   * The host path of the directory, relative to the base directory or
   * absolute.
   */
  src_class_init (entry_class, "local_dir", local_dir_properties);
}

static void
agents_local_dir_init (AgentsLocalDir *self)
{
  self->src = g_strdup ("");
}

/**
 * agents_local_dir_new:
 * @src: (type filename): the host path of the directory
 *
 * Creates a local directory entry.
 *
 * Returns: (transfer full): a new #AgentsLocalDir
 */
AgentsManifestEntry *
agents_local_dir_new (const char *src)
{
  g_return_val_if_fail (src != NULL, NULL);

  return g_object_new (AGENTS_TYPE_LOCAL_DIR, "src", src, NULL);
}

/**
 * agents_local_dir_get_src:
 * @self: an #AgentsLocalDir
 *
 * Gets the host path of the directory.
 *
 * Returns: (type filename): the path
 */
const char *
agents_local_dir_get_src (AgentsLocalDir *self)
{
  g_return_val_if_fail (AGENTS_IS_LOCAL_DIR (self), NULL);

  return self->src;
}
