/* agents-local-snapshot.c - snapshots as tar files in a local
 * directory, and the spec that names them
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "agents-json-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-snapshot-private.h"
#include "agents-snapshot.h"

/* ---- local ------------------------------------------------------------ */

/**
 * AgentsLocalSnapshot:
 *
 * A snapshot kept as a tar file `ID.tar` in a local directory. JSON:
 * `{"type": "local", "id": …, "base_path": …}`.
 *
 * The id becomes a file name, so it must be a plain one: not empty, not
 * `.` or `..`, without `/`. Operations on a snapshot with any other id
 * fail with %AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT.
 */

struct _AgentsLocalSnapshot
{
  GObject parent_instance;

  char *id;
  char *base_path;
};

enum
{
  LOCAL_PROP_0,
  LOCAL_PROP_ID,
  LOCAL_PROP_BASE_PATH,
  LOCAL_N_PROPS
};

static GParamSpec *local_properties[LOCAL_N_PROPS];

static void agents_local_snapshot_iface_init (AgentsSnapshotInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  AgentsLocalSnapshot,
  agents_local_snapshot,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_SNAPSHOT,
                         agents_local_snapshot_iface_init))

static char *
default_base_path (void)
{
  return g_build_filename (g_get_user_cache_dir (), "agents-1.0", "snapshots",
                           NULL);
}

/* "ID.tar.XXXXXX" must still be a valid file name. */
#define MAX_ID_LENGTH (NAME_MAX - 11)

static gboolean
is_valid_id (const char *id)
{
  return id != NULL && *id != '\0' && strcmp (id, ".") != 0 &&
         strcmp (id, "..") != 0 && strpbrk (id, "/\\") == NULL &&
         strlen (id) <= MAX_ID_LENGTH;
}

static gboolean
check_id (AgentsLocalSnapshot *self, GError **error)
{
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  if (is_valid_id (self->id))
    return TRUE;
  /* A backslash too: a separator on Windows, as the reference checks. */
  agents_snapshot_add_context (&ctx, self->id, NULL, "invalid_id");
  agents_sandbox_error_set (
    error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, g_variant_builder_end (&ctx),
    _ ("LocalSnapshot id must be a single path segment"));
  return FALSE;
}

static void
agents_local_snapshot_finalize (GObject *object)
{
  AgentsLocalSnapshot *self = AGENTS_LOCAL_SNAPSHOT (object);

  g_free (self->id);
  g_free (self->base_path);
  G_OBJECT_CLASS (agents_local_snapshot_parent_class)->finalize (object);
}

static void
agents_local_snapshot_constructed (GObject *object)
{
  AgentsLocalSnapshot *self = AGENTS_LOCAL_SNAPSHOT (object);

  G_OBJECT_CLASS (agents_local_snapshot_parent_class)->constructed (object);

  if (self->base_path == NULL)
    self->base_path = default_base_path ();
}

static void
agents_local_snapshot_get_property (GObject *object,
                                    guint prop_id,
                                    GValue *value,
                                    GParamSpec *pspec)
{
  AgentsLocalSnapshot *self = AGENTS_LOCAL_SNAPSHOT (object);

  switch (prop_id)
    {
    case LOCAL_PROP_ID:
      g_value_set_string (value, self->id);
      break;
    case LOCAL_PROP_BASE_PATH:
      g_value_set_string (value, self->base_path);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_local_snapshot_set_property (GObject *object,
                                    guint prop_id,
                                    const GValue *value,
                                    GParamSpec *pspec)
{
  AgentsLocalSnapshot *self = AGENTS_LOCAL_SNAPSHOT (object);

  switch (prop_id)
    {
    case LOCAL_PROP_ID:
      g_free (self->id);
      self->id = g_value_dup_string (value);
      break;
    case LOCAL_PROP_BASE_PATH:
      g_free (self->base_path);
      self->base_path = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_local_snapshot_class_init (AgentsLocalSnapshotClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = agents_local_snapshot_finalize;
  object_class->constructed = agents_local_snapshot_constructed;
  object_class->get_property = agents_local_snapshot_get_property;
  object_class->set_property = agents_local_snapshot_set_property;

  /**
   * AgentsLocalSnapshot:id:
   *
   * The snapshot id, also the name of its archive without `.tar`.
   */
  local_properties[LOCAL_PROP_ID] =
    g_param_spec_string ("id", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                           G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * AgentsLocalSnapshot:base-path:
   *
   * The directory the archive is kept in (by default
   * `$XDG_CACHE_HOME/agents-1.0/snapshots`).
   */
  local_properties[LOCAL_PROP_BASE_PATH] =
    g_param_spec_string ("base-path", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                           G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, LOCAL_N_PROPS,
                                     local_properties);
}

static void
agents_local_snapshot_init (AgentsLocalSnapshot *self)
{
}

static const char *
agents_local_snapshot_get_snapshot_type (AgentsSnapshot *snapshot)
{
  return "local";
}

static const char *
agents_local_snapshot_get_id (AgentsSnapshot *snapshot)
{
  return AGENTS_LOCAL_SNAPSHOT (snapshot)->id;
}

static GError *
local_error (AgentsLocalSnapshot *self,
             int code,
             const char *path,
             const char *reason)
{
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  g_autofree char *display = g_utf8_make_valid (path, -1);

  agents_snapshot_add_context (&ctx, self->id, path, reason);
  if (code == AGENTS_SANDBOX_ERROR_SNAPSHOT_PERSIST)
    return agents_sandbox_error_new (code, g_variant_builder_end (&ctx),
                                     _ ("failed to persist snapshot to %s: %s"),
                                     display, reason);
  return agents_sandbox_error_new (code, g_variant_builder_end (&ctx),
                                   _ ("failed to restore snapshot from %s: %s"),
                                   display, reason);
}

/* persist: the stream is read on the owner context (it may be bound to
 * it) and written into a temporary file that replaces ID.tar only once
 * complete and synced. The file is an unnamed O_TMPFILE one where the
 * file system allows: a persist killed midway then leaves nothing behind;
 * it gets a name (ID.tar.XXXXXX, renamed over ID.tar at once) only when
 * complete. Elsewhere it is ID.tar.XXXXXX from the start. */

/* 0: O_TMPFILE is tried; 1: disabled by a test */
static int tmpfile_disabled;

void
agents_local_snapshot_set_tmpfile_disabled_for_testing (gboolean disabled)
{
  g_atomic_int_set (&tmpfile_disabled, disabled ? 1 : 0);
}

/* An unnamed file in @dir, or -1 where O_TMPFILE is not supported (or
 * /proc, through which it is linked, is missing). */
static int
open_unnamed (const char *dir)
{
  if (g_atomic_int_get (&tmpfile_disabled) ||
      !g_file_test ("/proc/self/fd", G_FILE_TEST_IS_DIR))
    return -1;
  return open (dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
}

/* Gives the unnamed file @fd the name @final_path.XXXXXX; returns 0 and
 * sets *@linked_path, or an errno. */
static int
link_unnamed (int fd, const char *final_path, char **linked_path)
{
  static const char letters[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  g_autofree char *proc = g_strdup_printf ("/proc/self/fd/%d", fd);

  for (guint attempt = 0; attempt < 100; attempt++)
    {
      g_autofree char *name = g_strconcat (final_path, ".XXXXXX", NULL);
      char *x = name + strlen (name) - 6;

      for (guint i = 0; i < 6; i++)
        x[i] = letters[g_random_int_range (0, sizeof letters - 1)];
      if (linkat (AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0)
        {
          *linked_path = g_steal_pointer (&name);
          return 0;
        }
      if (errno != EEXIST)
        return errno;
    }
  return EEXIST;
}

typedef struct
{
  GInputStream *input;
  GOutputStream *output;
  char *final_path;
  char *tmp_path;
  int fd;
  GBytes *chunk;
} PersistData;

static void
persist_data_free (gpointer data)
{
  PersistData *pd = data;

  g_clear_object (&pd->input);
  g_clear_object (&pd->output);
  if (pd->fd >= 0)
    close (pd->fd);
  if (pd->tmp_path != NULL)
    g_unlink (pd->tmp_path);
  g_free (pd->final_path);
  g_free (pd->tmp_path);
  g_clear_pointer (&pd->chunk, g_bytes_unref);
  g_free (pd);
}

/* Fails the persist: the temporary file goes, ID.tar stays as it was. */
static void
persist_fail (GTask *task, GError *error)
{
  AgentsLocalSnapshot *self = g_task_get_source_object (task);
  PersistData *pd = g_task_get_task_data (task);

  if (pd->fd >= 0)
    close (pd->fd);
  pd->fd = -1;
  if (pd->tmp_path != NULL)
    g_unlink (pd->tmp_path);
  g_clear_pointer (&pd->tmp_path, g_free);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
      g_error_matches (error, AGENTS_SANDBOX_ERROR,
                       AGENTS_SANDBOX_ERROR_SNAPSHOT_PERSIST))
    g_task_return_error (task, error);
  else
    {
      g_task_return_error (
        task, local_error (self, AGENTS_SANDBOX_ERROR_SNAPSHOT_PERSIST,
                           pd->final_path, error->message));
      g_error_free (error);
    }
}

static void
persist_prepare_thread (GTask *task,
                        gpointer source_object,
                        gpointer task_data,
                        GCancellable *cancellable)
{
  AgentsLocalSnapshot *self = source_object;
  PersistData *pd = task_data;
  g_autofree char *tmp_path = NULL;
  int errsv;

  if (g_mkdir_with_parents (self->base_path, 0700) < 0)
    {
      errsv = errno;
      g_task_return_error (
        task, local_error (self, AGENTS_SANDBOX_ERROR_SNAPSHOT_PERSIST,
                           pd->final_path, g_strerror (errsv)));
      return;
    }
  pd->fd = open_unnamed (self->base_path);
  if (pd->fd >= 0)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  tmp_path = g_strconcat (pd->final_path, ".XXXXXX", NULL);
  pd->fd = g_mkstemp_full (tmp_path, O_RDWR | O_CLOEXEC, 0600);
  if (pd->fd < 0)
    {
      errsv = errno;
      g_task_return_error (
        task, local_error (self, AGENTS_SANDBOX_ERROR_SNAPSHOT_PERSIST,
                           pd->final_path, g_strerror (errsv)));
      return;
    }
  pd->tmp_path = g_steal_pointer (&tmp_path);
  g_task_return_boolean (task, TRUE);
}

static void
persist_commit_thread (GTask *task,
                       gpointer source_object,
                       gpointer task_data,
                       GCancellable *cancellable)
{
  AgentsLocalSnapshot *self = source_object;
  PersistData *pd = task_data;
  int fd = pd->fd;
  int dir_fd = -1;
  int errsv = 0;

  /* Every step is checked: a full or failing disk (ENOSPC, EIO, often
   * only reported by fsync or close) leaves ID.tar as it was. */
  pd->fd = -1;
  if (fsync (fd) < 0)
    errsv = errno;
  if (errsv == 0 && pd->tmp_path == NULL)
    errsv = link_unnamed (fd, pd->final_path, &pd->tmp_path);
  if (close (fd) < 0 && errsv == 0)
    errsv = errno;
  if (errsv == 0 && rename (pd->tmp_path, pd->final_path) < 0)
    errsv = errno;
  if (errsv == 0)
    {
      g_clear_pointer (&pd->tmp_path, g_free);
      /* Make the rename itself durable. */
      dir_fd = open (self->base_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (dir_fd < 0 || fsync (dir_fd) < 0)
        errsv = errno;
      if (dir_fd >= 0)
        close (dir_fd);
    }
  if (errsv != 0)
    {
      g_task_return_error (
        task, local_error (self, AGENTS_SANDBOX_ERROR_SNAPSHOT_PERSIST,
                           pd->final_path, g_strerror (errsv)));
      return;
    }
  g_task_return_boolean (task, TRUE);
}

static void
persist_committed_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    persist_fail (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void persist_read_next (GTask *task);

static void
persist_written_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;

  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL,
                                         &error))
    persist_fail (task, error);
  else
    persist_read_next (g_steal_pointer (&task));
}

static void
persist_commit (GTask *task)
{
  g_autoptr (GTask) commit = NULL;

  commit =
    g_task_new (g_task_get_source_object (task), g_task_get_cancellable (task),
                persist_committed_cb, task);
  g_task_set_task_data (commit, g_task_get_task_data (task), NULL);
  g_task_run_in_thread (commit, persist_commit_thread);
}

static void
persist_read_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  PersistData *pd = g_task_get_task_data (task);
  GCancellable *cancellable;
  GError *error = NULL;
  gconstpointer data;
  gsize size;

  g_clear_pointer (&pd->chunk, g_bytes_unref);
  pd->chunk =
    g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result, &error);
  if (pd->chunk == NULL)
    {
      persist_fail (task, error);
      return;
    }
  data = g_bytes_get_data (pd->chunk, &size);
  if (size == 0)
    {
      persist_commit (g_steal_pointer (&task));
      return;
    }
  cancellable = g_task_get_cancellable (task);
  g_output_stream_write_all_async (pd->output, data, size, G_PRIORITY_DEFAULT,
                                   cancellable, persist_written_cb,
                                   g_steal_pointer (&task));
}

static void
persist_read_next (GTask *task)
{
  PersistData *pd = g_task_get_task_data (task);

  g_input_stream_read_bytes_async (
    pd->input, AGENTS_SNAPSHOT_CHUNK_SIZE, G_PRIORITY_DEFAULT,
    g_task_get_cancellable (task), persist_read_cb, task);
}

static void
persist_prepared_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  PersistData *pd = g_task_get_task_data (task);
  GError *error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      persist_fail (task, error);
      return;
    }
  pd->output = g_unix_output_stream_new (pd->fd, FALSE);
  persist_read_next (g_steal_pointer (&task));
}

static void
agents_local_snapshot_persist (AgentsSnapshot *snapshot,
                               GInputStream *data,
                               GTask *task)
{
  AgentsLocalSnapshot *self = AGENTS_LOCAL_SNAPSHOT (snapshot);
  g_autoptr (GTask) prepare = NULL;
  GError *error = NULL;
  PersistData *pd;

  if (!check_id (self, &error))
    {
      g_task_return_error (task, error);
      return;
    }

  pd = g_new0 (PersistData, 1);
  pd->fd = -1;
  pd->input = g_object_ref (data);
  pd->final_path = agents_local_snapshot_dup_archive_path (self);
  g_task_set_task_data (task, pd, persist_data_free);

  prepare = g_task_new (self, g_task_get_cancellable (task),
                        persist_prepared_cb, g_object_ref (task));
  g_task_set_task_data (prepare, pd, NULL);
  g_task_run_in_thread (prepare, persist_prepare_thread);
}

static void
restore_thread (GTask *task,
                gpointer source_object,
                gpointer task_data,
                GCancellable *cancellable)
{
  AgentsLocalSnapshot *self = source_object;
  g_autofree char *path = agents_local_snapshot_dup_archive_path (self);
  struct stat st;
  int errsv = 0;
  int fd;

  fd = open (path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0 || fstat (fd, &st) < 0)
    errsv = errno;
  else if (!S_ISREG (st.st_mode))
    errsv = EINVAL;
  if (errsv != 0)
    {
      if (fd >= 0)
        close (fd);
      g_task_return_error (
        task, local_error (self, AGENTS_SANDBOX_ERROR_SNAPSHOT_RESTORE, path,
                           g_strerror (errsv)));
      return;
    }
  /* Reads must block normally: O_NONBLOCK only guarded the open. */
  fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) & ~O_NONBLOCK);
  g_task_return_pointer (task, g_unix_input_stream_new (fd, TRUE),
                         g_object_unref);
}

static void
agents_local_snapshot_restore (AgentsSnapshot *snapshot, GTask *task)
{
  GError *error = NULL;

  if (!check_id (AGENTS_LOCAL_SNAPSHOT (snapshot), &error))
    g_task_return_error (task, error);
  else
    g_task_run_in_thread (task, restore_thread);
}

static void
restorable_thread (GTask *task,
                   gpointer source_object,
                   gpointer task_data,
                   GCancellable *cancellable)
{
  g_autofree char *path = agents_local_snapshot_dup_archive_path (
    AGENTS_LOCAL_SNAPSHOT (source_object));
  struct stat st;

  g_task_return_boolean (task, lstat (path, &st) == 0 && S_ISREG (st.st_mode));
}

static void
agents_local_snapshot_restorable (AgentsSnapshot *snapshot, GTask *task)
{
  GError *error = NULL;

  if (!check_id (AGENTS_LOCAL_SNAPSHOT (snapshot), &error))
    g_task_return_error (task, error);
  else
    g_task_run_in_thread (task, restorable_thread);
}

static void
agents_local_snapshot_serialize_fields (AgentsSnapshot *snapshot,
                                        JsonBuilder *builder)
{
  agents_json_add_string (builder, "base_path",
                          AGENTS_LOCAL_SNAPSHOT (snapshot)->base_path);
}

static gboolean
agents_local_snapshot_deserialize_fields (AgentsSnapshot *snapshot,
                                          JsonObject *object,
                                          GError **error)
{
  AgentsLocalSnapshot *self = AGENTS_LOCAL_SNAPSHOT (snapshot);
  const char *base_path = agents_json_get_string (object, "base_path");

  if (!is_valid_id (self->id))
    return agents_snapshot_invalid_member (error, "id",
                                           _ ("a plain file name"));
  if (base_path == NULL || *base_path == '\0')
    return agents_snapshot_invalid_member (error, "base_path",
                                           _ ("a non-empty string"));
  g_free (self->base_path);
  self->base_path = g_strdup (base_path);
  return TRUE;
}

static void
agents_local_snapshot_iface_init (AgentsSnapshotInterface *iface)
{
  iface->get_snapshot_type = agents_local_snapshot_get_snapshot_type;
  iface->get_id = agents_local_snapshot_get_id;
  iface->persist = agents_local_snapshot_persist;
  iface->restore = agents_local_snapshot_restore;
  iface->restorable = agents_local_snapshot_restorable;
  iface->serialize_fields = agents_local_snapshot_serialize_fields;
  iface->deserialize_fields = agents_local_snapshot_deserialize_fields;
}

/**
 * agents_local_snapshot_new:
 * @id: the snapshot id, a plain file name
 * @base_path: (nullable) (type filename): the directory to keep the
 *   archive in, or %NULL for `$XDG_CACHE_HOME/agents-1.0/snapshots`
 *
 * Creates a snapshot kept in `@base_path/@id.tar`.
 *
 * Returns: (transfer full): the snapshot
 */
AgentsSnapshot *
agents_local_snapshot_new (const char *id, const char *base_path)
{
  return g_object_new (AGENTS_TYPE_LOCAL_SNAPSHOT, "id", id, "base-path",
                       base_path, NULL);
}

/**
 * agents_local_snapshot_get_base_path:
 * @self: a local snapshot
 *
 * Gets the directory the archive is kept in.
 *
 * Returns: (type filename): the directory
 */
const char *
agents_local_snapshot_get_base_path (AgentsLocalSnapshot *self)
{
  g_return_val_if_fail (AGENTS_IS_LOCAL_SNAPSHOT (self), NULL);

  return self->base_path;
}

/**
 * agents_local_snapshot_dup_archive_path:
 * @self: a local snapshot
 *
 * Gets the path of the archive, `base_path/ID.tar`.
 *
 * Returns: (transfer full) (nullable) (type filename): the path, or %NULL
 *   when the id is not a plain file name
 */
char *
agents_local_snapshot_dup_archive_path (AgentsLocalSnapshot *self)
{
  g_autofree char *name = NULL;

  g_return_val_if_fail (AGENTS_IS_LOCAL_SNAPSHOT (self), NULL);

  if (!is_valid_id (self->id))
    return NULL;
  name = g_strconcat (self->id, ".tar", NULL);
  return g_build_filename (self->base_path, name, NULL);
}

/* ---- LocalSnapshotSpec ------------------------------------------------ */

/**
 * AgentsLocalSnapshotSpec:
 *
 * Says "keep the workspace in a local snapshot": a session builds an
 * #AgentsLocalSnapshot from it, named after the session id.
 */

struct _AgentsLocalSnapshotSpec
{
  GObject parent_instance;

  char *base_path;
};

enum
{
  SPEC_PROP_0,
  SPEC_PROP_BASE_PATH,
  SPEC_N_PROPS
};

static GParamSpec *spec_properties[SPEC_N_PROPS];

G_DEFINE_FINAL_TYPE (AgentsLocalSnapshotSpec,
                     agents_local_snapshot_spec,
                     G_TYPE_OBJECT)

static void
agents_local_snapshot_spec_finalize (GObject *object)
{
  g_free (AGENTS_LOCAL_SNAPSHOT_SPEC (object)->base_path);
  G_OBJECT_CLASS (agents_local_snapshot_spec_parent_class)->finalize (object);
}

static void
agents_local_snapshot_spec_constructed (GObject *object)
{
  AgentsLocalSnapshotSpec *self = AGENTS_LOCAL_SNAPSHOT_SPEC (object);

  G_OBJECT_CLASS (agents_local_snapshot_spec_parent_class)
    ->constructed (object);

  if (self->base_path == NULL)
    self->base_path = default_base_path ();
}

static void
agents_local_snapshot_spec_get_property (GObject *object,
                                         guint prop_id,
                                         GValue *value,
                                         GParamSpec *pspec)
{
  AgentsLocalSnapshotSpec *self = AGENTS_LOCAL_SNAPSHOT_SPEC (object);

  switch (prop_id)
    {
    case SPEC_PROP_BASE_PATH:
      g_value_set_string (value, self->base_path);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_local_snapshot_spec_set_property (GObject *object,
                                         guint prop_id,
                                         const GValue *value,
                                         GParamSpec *pspec)
{
  AgentsLocalSnapshotSpec *self = AGENTS_LOCAL_SNAPSHOT_SPEC (object);

  switch (prop_id)
    {
    case SPEC_PROP_BASE_PATH:
      g_free (self->base_path);
      self->base_path = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_local_snapshot_spec_class_init (AgentsLocalSnapshotSpecClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = agents_local_snapshot_spec_finalize;
  object_class->constructed = agents_local_snapshot_spec_constructed;
  object_class->get_property = agents_local_snapshot_spec_get_property;
  object_class->set_property = agents_local_snapshot_spec_set_property;

  /**
   * AgentsLocalSnapshotSpec:base-path:
   *
   * The directory snapshots are kept in (by default
   * `$XDG_CACHE_HOME/agents-1.0/snapshots`).
   */
  spec_properties[SPEC_PROP_BASE_PATH] =
    g_param_spec_string ("base-path", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                           G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, SPEC_N_PROPS,
                                     spec_properties);
}

static void
agents_local_snapshot_spec_init (AgentsLocalSnapshotSpec *self)
{
}

/**
 * agents_local_snapshot_spec_new:
 * @base_path: (nullable) (type filename): the directory to keep snapshots
 *   in, or %NULL for `$XDG_CACHE_HOME/agents-1.0/snapshots`
 *
 * Creates a spec for local snapshots.
 *
 * Returns: (transfer full): the spec
 */
AgentsLocalSnapshotSpec *
agents_local_snapshot_spec_new (const char *base_path)
{
  return g_object_new (AGENTS_TYPE_LOCAL_SNAPSHOT_SPEC, "base-path", base_path,
                       NULL);
}

/**
 * agents_local_snapshot_spec_get_base_path:
 * @self: a spec
 *
 * Gets the directory snapshots are kept in.
 *
 * Returns: (type filename): the directory
 */
const char *
agents_local_snapshot_spec_get_base_path (AgentsLocalSnapshotSpec *self)
{
  g_return_val_if_fail (AGENTS_IS_LOCAL_SNAPSHOT_SPEC (self), NULL);

  return self->base_path;
}

/**
 * agents_local_snapshot_spec_build:
 * @self: a spec
 * @id: the snapshot id
 *
 * Builds the local snapshot @id in the spec's directory.
 *
 * Returns: (transfer full): the snapshot
 */
AgentsSnapshot *
agents_local_snapshot_spec_build (AgentsLocalSnapshotSpec *self, const char *id)
{
  g_return_val_if_fail (AGENTS_IS_LOCAL_SNAPSHOT_SPEC (self), NULL);

  return agents_local_snapshot_new (id, self->base_path);
}
