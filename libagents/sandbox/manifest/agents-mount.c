/* agents-mount.c - the abstract base of remote mounts
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-json-private.h"
#include "agents-manifest-entry-private.h"
#include "agents-manifest.h"
#include "agents-sandbox-error-private.h"

/**
 * AgentsMount:
 *
 * The abstract base of remote mounts (`s3_mount`, …). Mounts are
 * ephemeral and read-only by default; applying one mounts it.
 */

typedef struct
{
  char *mount_path;
  gboolean read_only;
} AgentsMountPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (AgentsMount,
                                     agents_mount,
                                     AGENTS_TYPE_MANIFEST_ENTRY)

enum
{
  MOUNT_PROP_0,
  MOUNT_PROP_MOUNT_PATH,
  MOUNT_PROP_READ_ONLY,
  MOUNT_N_PROPS
};

static GParamSpec *mount_properties[MOUNT_N_PROPS];

static AgentsMountPrivate *
get_mount_priv (AgentsMount *self)
{
  return agents_mount_get_instance_private (self);
}

static void
agents_mount_finalize (GObject *object)
{
  g_free (get_mount_priv (AGENTS_MOUNT (object))->mount_path);

  G_OBJECT_CLASS (agents_mount_parent_class)->finalize (object);
}

static void
agents_mount_get_property (GObject *object,
                           guint prop_id,
                           GValue *value,
                           GParamSpec *pspec)
{
  AgentsMountPrivate *priv = get_mount_priv (AGENTS_MOUNT (object));

  switch (prop_id)
    {
    case MOUNT_PROP_MOUNT_PATH:
      g_value_set_string (value, priv->mount_path);
      break;
    case MOUNT_PROP_READ_ONLY:
      g_value_set_boolean (value, priv->read_only);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_mount_set_property (GObject *object,
                           guint prop_id,
                           const GValue *value,
                           GParamSpec *pspec)
{
  AgentsMount *self = AGENTS_MOUNT (object);

  switch (prop_id)
    {
    case MOUNT_PROP_MOUNT_PATH:
      agents_mount_set_mount_path (self, g_value_get_string (value));
      break;
    case MOUNT_PROP_READ_ONLY:
      agents_mount_set_read_only (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
mount_applied_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, agents_materialized_array_new (),
                           (GDestroyNotify) g_ptr_array_unref);
}

/* The class's mount vfunc, called directly rather than through
 * agents_mount_mount_async(), which lives in entries/ (a room above). */
static void
mount_apply (AgentsManifestEntry *entry,
             AgentsSandboxSession *session,
             const char *dest,
             const char *base_dir,
             GTask *task)
{
  g_autoptr (GTask) mount_task =
    g_task_new (entry, g_task_get_cancellable (task), mount_applied_cb,
                g_object_ref (task));

  AGENTS_MOUNT_GET_CLASS (entry)->mount (AGENTS_MOUNT (entry), session, dest,
                                         base_dir, mount_task);
}

static void
mount_not_supported (AgentsMount *self, GTask *task)
{
  g_task_return_error (
    task, agents_sandbox_error_new (AGENTS_SANDBOX_ERROR_NOT_SUPPORTED, NULL,
                                    _ ("%s does not support mounting"),
                                    G_OBJECT_TYPE_NAME (self)));
}

static void
agents_mount_real_mount (AgentsMount *self,
                         AgentsSandboxSession *session,
                         const char *dest,
                         const char *base_dir,
                         GTask *task)
{
  mount_not_supported (self, task);
}

static void
agents_mount_real_unmount (AgentsMount *self,
                           AgentsSandboxSession *session,
                           const char *dest,
                           const char *base_dir,
                           GTask *task)
{
  mount_not_supported (self, task);
}

static void
agents_mount_class_init (AgentsMountClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  AgentsManifestEntryClass *entry_class = AGENTS_MANIFEST_ENTRY_CLASS (klass);

  object_class->finalize = agents_mount_finalize;
  object_class->get_property = agents_mount_get_property;
  object_class->set_property = agents_mount_set_property;

  entry_class->is_mount = TRUE;
  entry_class->apply = mount_apply;
  klass->mount = agents_mount_real_mount;
  klass->unmount = agents_mount_real_unmount;

  /**
   * AgentsMount:mount-path:
   *
   * Where the storage is really mounted, when it differs from the
   * entry's path: relative to the root, or absolute; %NULL otherwise.
   * As in the reference it is checked when the mount targets are
   * computed, not when it is set: use the paths of
   * agents_manifest_list_mount_targets(), never this one as it is.
   */
  mount_properties[MOUNT_PROP_MOUNT_PATH] = g_param_spec_string (
    "mount-path", NULL, NULL, NULL,
    G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * AgentsMount:read-only:
   *
   * Whether the mount is read-only.
   */
  mount_properties[MOUNT_PROP_READ_ONLY] = g_param_spec_boolean (
    "read-only", NULL, NULL, TRUE,
    G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, MOUNT_N_PROPS,
                                     mount_properties);
}

static void
agents_mount_init (AgentsMount *self)
{
  get_mount_priv (self)->read_only = TRUE;
  agents_manifest_entry_get_private (AGENTS_MANIFEST_ENTRY (self))->ephemeral =
    TRUE;
}

/* ---- the members every mount has ---------------------------------------- */

void
agents_mount_serialize_common (AgentsMount *self, JsonBuilder *builder)
{
  AgentsMountPrivate *priv = get_mount_priv (self);

  agents_json_add_nullable_string (builder, "mount_path", priv->mount_path);
  agents_json_add_boolean (builder, "read_only", priv->read_only);
}

gboolean
agents_mount_deserialize_common (AgentsMount *self,
                                 JsonObject *object,
                                 GError **error)
{
  const char *mount_path = agents_mount_get_mount_path (self);
  gboolean read_only = agents_mount_get_read_only (self);

  /* Checked with the manifest's root, by
   * agents_manifest_list_mount_targets(). */
  if (!agents_json_read_string (object, "mount_path", TRUE, FALSE, &mount_path,
                                error) ||
      !agents_json_read_boolean (object, "read_only", &read_only, error))
    return FALSE;
  agents_mount_set_mount_path (self, mount_path);
  agents_mount_set_read_only (self, read_only);
  return TRUE;
}

void
agents_mount_copy_common (AgentsMount *self, AgentsMount *dest)
{
  agents_mount_set_mount_path (dest, get_mount_priv (self)->mount_path);
  agents_mount_set_read_only (dest, get_mount_priv (self)->read_only);
}

gboolean
agents_mount_equal_common (AgentsMount *a, AgentsMount *b)
{
  AgentsMountPrivate *ma = get_mount_priv (a);
  AgentsMountPrivate *mb = get_mount_priv (b);

  return g_strcmp0 (ma->mount_path, mb->mount_path) == 0 &&
         ma->read_only == mb->read_only;
}

/* ---- accessors and vfunc wrappers --------------------------------------- */

/**
 * agents_mount_get_mount_path:
 * @self: an #AgentsMount
 *
 * Gets where the storage is really mounted, as it was set: not checked,
 * see agents_manifest_list_mount_targets().
 *
 * Returns: (nullable): the mount path
 */
const char *
agents_mount_get_mount_path (AgentsMount *self)
{
  g_return_val_if_fail (AGENTS_IS_MOUNT (self), NULL);

  return get_mount_priv (self)->mount_path;
}

/**
 * agents_mount_set_mount_path:
 * @self: an #AgentsMount
 * @mount_path: (nullable): a path relative to the root, or an absolute
 *   path
 *
 * Sets where the storage is really mounted. The path is checked against
 * the manifest's root when the mount targets are computed
 * (agents_manifest_list_mount_targets()), as the reference does.
 */
void
agents_mount_set_mount_path (AgentsMount *self, const char *mount_path)
{
  AgentsMountPrivate *priv;

  g_return_if_fail (AGENTS_IS_MOUNT (self));

  priv = get_mount_priv (self);
  if (g_strcmp0 (priv->mount_path, mount_path) == 0)
    return;
  g_free (priv->mount_path);
  priv->mount_path = g_strdup (mount_path);
  g_object_notify_by_pspec (G_OBJECT (self),
                            mount_properties[MOUNT_PROP_MOUNT_PATH]);
}

/**
 * agents_mount_get_read_only:
 * @self: an #AgentsMount
 *
 * Gets whether the mount is read-only.
 *
 * Returns: whether the mount is read-only
 */
gboolean
agents_mount_get_read_only (AgentsMount *self)
{
  g_return_val_if_fail (AGENTS_IS_MOUNT (self), TRUE);

  return get_mount_priv (self)->read_only;
}

/**
 * agents_mount_set_read_only:
 * @self: an #AgentsMount
 * @read_only: whether the mount is read-only
 *
 * Sets whether the mount is read-only.
 */
void
agents_mount_set_read_only (AgentsMount *self, gboolean read_only)
{
  AgentsMountPrivate *priv;

  g_return_if_fail (AGENTS_IS_MOUNT (self));

  priv = get_mount_priv (self);
  read_only = !!read_only;
  if (priv->read_only == read_only)
    return;
  priv->read_only = read_only;
  g_object_notify_by_pspec (G_OBJECT (self),
                            mount_properties[MOUNT_PROP_READ_ONLY]);
}

/* ---- materializing, through the class (the code that drives the
 * session lives in entries/) ------------------------------------------ */

/**
 * agents_mount_mount_async:
 * @self: an #AgentsMount
 * @session: the session to mount into
 * @dest: (type filename): the absolute mount point in the workspace
 * @base_dir: (type filename) (nullable): the base directory of local
 *   sources
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the storage is mounted
 * @user_data: data for @callback
 *
 * Mounts the storage at @dest through the class's @mount vfunc.
 */
void
agents_mount_mount_async (AgentsMount *self,
                          AgentsSandboxSession *session,
                          const char *dest,
                          const char *base_dir,
                          GCancellable *cancellable,
                          GAsyncReadyCallback callback,
                          gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_MOUNT (self));
  g_return_if_fail (G_IS_OBJECT (session));
  g_return_if_fail (dest != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_mount_mount_async);
  AGENTS_MOUNT_GET_CLASS (self)->mount (self, session, dest, base_dir, task);
}

/**
 * agents_mount_mount_finish:
 * @self: an #AgentsMount
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Finishes agents_mount_mount_async().
 *
 * Returns: %TRUE if the storage was mounted
 */
gboolean
agents_mount_mount_finish (AgentsMount *self,
                           GAsyncResult *result,
                           GError **error)
{
  g_return_val_if_fail (AGENTS_IS_MOUNT (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * agents_mount_unmount_async:
 * @self: an #AgentsMount
 * @session: the session to unmount from
 * @dest: (type filename): the absolute mount point in the workspace
 * @base_dir: (type filename) (nullable): the base directory of local
 *   sources
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the storage is unmounted
 * @user_data: data for @callback
 *
 * Unmounts the storage at @dest through the class's @unmount vfunc.
 */
void
agents_mount_unmount_async (AgentsMount *self,
                            AgentsSandboxSession *session,
                            const char *dest,
                            const char *base_dir,
                            GCancellable *cancellable,
                            GAsyncReadyCallback callback,
                            gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_MOUNT (self));
  g_return_if_fail (G_IS_OBJECT (session));
  g_return_if_fail (dest != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_mount_unmount_async);
  AGENTS_MOUNT_GET_CLASS (self)->unmount (self, session, dest, base_dir, task);
}

/**
 * agents_mount_unmount_finish:
 * @self: an #AgentsMount
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Finishes agents_mount_unmount_async().
 *
 * Returns: %TRUE if the storage was unmounted
 */
gboolean
agents_mount_unmount_finish (AgentsMount *self,
                             GAsyncResult *result,
                             GError **error)
{
  g_return_val_if_fail (AGENTS_IS_MOUNT (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
