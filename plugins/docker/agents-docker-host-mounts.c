/* agents-docker-host-mounts.c - host-mounted entries bound into a container
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The host-mount strategy of the docker backend: an s3_mount entry is
 * mounted on the host by the s3mount plugin (rclone or s3fs, in a
 * directory the library owns) and the engine binds that directory into
 * the container at the entry's path when it creates the container. The
 * container needs neither /dev/fuse nor SYS_ADMIN. Because the engine
 * binds only at creation, the mounts are made before the container and
 * undone after it is stopped or removed (a FUSE mount still bound into
 * a running container would keep its daemon alive).
 */

#include "config.h"

#include <string.h>

#include "agents-docker-host-mounts.h"
#include "agents-host-bind-private.h"

#define S3_MOUNT_TYPE "s3_mount"

static GQuark
binds_quark (void)
{
  return g_quark_from_static_string ("agents-docker-host-binds");
}

/* ---- mount ------------------------------------------------------------ */

typedef struct
{
  GPtrArray *targets; /* AgentsEntryTarget */
  guint next;
  GError *first_error;
} MountsOp;

static void
mounts_op_free (MountsOp *op)
{
  g_ptr_array_unref (op->targets);
  g_clear_error (&op->first_error);
  g_free (op);
}

static gboolean
is_host_mounted (AgentsManifestEntry *entry)
{
  return g_strcmp0 (agents_manifest_entry_get_type_name (entry),
                    S3_MOUNT_TYPE) == 0;
}

static int
compare_deepest_first (gconstpointer a, gconstpointer b)
{
  const AgentsEntryTarget *ta = *(AgentsEntryTarget *const *) a;
  const AgentsEntryTarget *tb = *(AgentsEntryTarget *const *) b;

  return (int) strlen (tb->path) - (int) strlen (ta->path);
}

static int
compare_shallowest_first (gconstpointer a, gconstpointer b)
{
  return compare_deepest_first (b, a);
}

static GPtrArray *
host_mounted_targets (AgentsDockerSession *session, gboolean deepest_first)
{
  AgentsManifest *manifest =
    agents_sandbox_session_get_manifest (AGENTS_SANDBOX_SESSION (session));
  g_autoptr (GPtrArray) all = agents_manifest_list_mounts (manifest);
  GPtrArray *targets =
    g_ptr_array_new_with_free_func ((GDestroyNotify) agents_entry_target_free);

  for (guint i = 0; i < all->len; i++)
    {
      AgentsEntryTarget *target = g_ptr_array_index (all, i);

      if (is_host_mounted (target->entry))
        g_ptr_array_add (targets, agents_entry_target_copy (target));
    }
  g_ptr_array_sort (targets, deepest_first ? compare_deepest_first
                                           : compare_shallowest_first);
  return targets;
}

static void mount_next (GTask *task);

/* The engine binds host directories only into a container it creates:
 * host mounts are possible only while the container is not made yet, so
 * an s3_mount applied to a running container is refused, not mounted
 * where the container would never see it. */
static void
mounts_done (GTask *task)
{
  agents_sandbox_session_set_host_binds_supported (
    AGENTS_SANDBOX_SESSION (g_task_get_source_object (task)), FALSE);
}

static void
undone_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  MountsOp *op = g_task_get_task_data (task);

  /* Failures were logged; the mount's error is the one to report. */
  agents_docker_host_mounts_unmount_finish (AGENTS_DOCKER_SESSION (source),
                                            result, NULL);
  mounts_done (task);
  g_task_return_error (task, g_steal_pointer (&op->first_error));
}

static void
mounted_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;

  if (!agents_mount_mount_finish (AGENTS_MOUNT (source), result, &error))
    {
      /* What was mounted before goes again. */
      MountsOp *op = g_task_get_task_data (task);
      AgentsDockerSession *session = g_task_get_source_object (task);

      op->first_error = error;
      agents_docker_host_mounts_unmount_async (session, NULL, undone_cb,
                                               g_steal_pointer (&task));
      return;
    }
  mount_next (g_steal_pointer (&task));
}

static void
mount_next (GTask *task)
{
  MountsOp *op = g_task_get_task_data (task);
  AgentsSandboxSession *session = g_task_get_source_object (task);

  while (op->next < op->targets->len)
    {
      AgentsEntryTarget *target = g_ptr_array_index (op->targets, op->next++);
      g_autoptr (AgentsHostBind) bind =
        agents_sandbox_session_lookup_host_bind (session, target->path);

      if (bind != NULL)
        continue;
      agents_mount_mount_async (
        AGENTS_MOUNT (target->entry), session, target->path,
        agents_manifest_get_root (
          agents_sandbox_session_get_manifest (session)),
        g_task_get_cancellable (task), mounted_cb, task);
      return;
    }
  mounts_done (task);
  g_task_return_boolean (task, TRUE);
  g_object_unref (task);
}

void
agents_docker_host_mounts_mount_async (AgentsDockerSession *session,
                                       GCancellable *cancellable,
                                       GAsyncReadyCallback callback,
                                       gpointer user_data)
{
  g_autoptr (GTask) task =
    g_task_new (session, cancellable, callback, user_data);
  MountsOp *op = g_new0 (MountsOp, 1);

  g_task_set_source_tag (task, agents_docker_host_mounts_mount_async);
  op->targets = host_mounted_targets (session, FALSE);
  g_task_set_task_data (task, op, (GDestroyNotify) mounts_op_free);
  agents_sandbox_session_set_host_binds_supported (
    AGENTS_SANDBOX_SESSION (session), TRUE);
  agents_sandbox_session_set_host_binds_in_container (
    AGENTS_SANDBOX_SESSION (session), TRUE);
  mount_next (g_steal_pointer (&task));
}

gboolean
agents_docker_host_mounts_mount_finish (AgentsDockerSession *session,
                                        GAsyncResult *result,
                                        GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, session), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- unmount ---------------------------------------------------------- */

static void unmount_next (GTask *task);

static void
unmounted_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  MountsOp *op = g_task_get_task_data (task);
  GError *error = NULL;

  if (!agents_mount_unmount_finish (AGENTS_MOUNT (source), result, &error))
    {
      g_warning (
        "Could not unmount %s: %s",
        ((AgentsEntryTarget *) g_ptr_array_index (op->targets, op->next - 1))
          ->path,
        error->message);
      if (op->first_error == NULL)
        op->first_error = error;
      else
        g_error_free (error);
    }
  unmount_next (g_steal_pointer (&task));
}

static void
unmount_next (GTask *task)
{
  MountsOp *op = g_task_get_task_data (task);
  AgentsSandboxSession *session = g_task_get_source_object (task);

  while (op->next < op->targets->len)
    {
      AgentsEntryTarget *target = g_ptr_array_index (op->targets, op->next++);
      g_autoptr (AgentsHostBind) bind =
        agents_sandbox_session_lookup_host_bind (session, target->path);

      /* Only what the host holds: without a bind there is nothing here
       * to undo (the container, and anything in it, is gone). */
      if (bind == NULL)
        continue;
      agents_mount_unmount_async (
        AGENTS_MOUNT (target->entry), session, target->path,
        agents_manifest_get_root (
          agents_sandbox_session_get_manifest (session)),
        NULL, unmounted_cb, task);
      return;
    }
  if (op->first_error != NULL)
    g_task_return_error (task, g_steal_pointer (&op->first_error));
  else
    g_task_return_boolean (task, TRUE);
  g_object_unref (task);
}

void
agents_docker_host_mounts_unmount_async (AgentsDockerSession *session,
                                         GCancellable *cancellable,
                                         GAsyncReadyCallback callback,
                                         gpointer user_data)
{
  g_autoptr (GTask) task =
    g_task_new (session, cancellable, callback, user_data);
  MountsOp *op = g_new0 (MountsOp, 1);

  g_task_set_source_tag (task, agents_docker_host_mounts_unmount_async);
  op->targets = host_mounted_targets (session, TRUE);
  g_task_set_task_data (task, op, (GDestroyNotify) mounts_op_free);
  unmount_next (g_steal_pointer (&task));
}

gboolean
agents_docker_host_mounts_unmount_finish (AgentsDockerSession *session,
                                          GAsyncResult *result,
                                          GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, session), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- container configuration ------------------------------------------ */

void
agents_docker_host_mounts_sync_state (AgentsDockerSession *session,
                                      AgentsDockerSessionState *state)
{
  GPtrArray *binds =
    agents_sandbox_session_dup_host_binds (AGENTS_SANDBOX_SESSION (session));

  g_object_set_qdata_full (G_OBJECT (state), binds_quark (), binds,
                           (GDestroyNotify) g_ptr_array_unref);
}

gboolean
agents_docker_host_mounts_any (AgentsDockerSessionState *state)
{
  GPtrArray *binds = g_object_get_qdata (G_OBJECT (state), binds_quark ());

  return binds != NULL && binds->len > 0;
}

void
agents_docker_host_mounts_add_binds (JsonBuilder *builder,
                                     AgentsDockerSessionState *state)
{
  GPtrArray *binds = g_object_get_qdata (G_OBJECT (state), binds_quark ());

  for (guint i = 0; binds != NULL && i < binds->len; i++)
    {
      const AgentsHostBind *bind = g_ptr_array_index (binds, i);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "Type");
      json_builder_add_string_value (builder, "bind");
      json_builder_set_member_name (builder, "Source");
      json_builder_add_string_value (builder, bind->host_path);
      json_builder_set_member_name (builder, "Target");
      json_builder_add_string_value (builder, bind->sandbox_path);
      json_builder_set_member_name (builder, "ReadOnly");
      json_builder_add_boolean_value (builder, bind->read_only);
      json_builder_end_object (builder);
    }
}
