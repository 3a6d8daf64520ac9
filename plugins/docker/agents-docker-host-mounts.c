/* agents-docker-host-mounts.c - host-mounted entries bound into a container
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The s3_mount strategies of the docker backend.
 *
 * docker_volume: the entry is mounted on the host by the s3mount plugin
 * (rclone or mount-s3, in a directory the library owns) and the engine
 * gives that directory to the container at the entry's path when it
 * creates the container. The container needs neither /dev/fuse nor
 * SYS_ADMIN. Because the engine binds only at creation, the mounts are
 * made before the container and undone after it is stopped or removed
 * (a FUSE mount still bound into a running container would keep its
 * daemon alive).
 *
 * in_container: the s3mount plugin runs the tool inside the container
 * when the manifest is applied; the container is created with /dev/fuse
 * and SYS_ADMIN for that (agents_docker_host_mounts_need_fuse()), and
 * the mounts are undone before it is stopped or removed.
 */

#include "config.h"

#include <string.h>

#include "agents-docker-host-mounts.h"
#include "agents-host-bind-private.h"

#define S3_MOUNT_TYPE "s3_mount"
#define DOCKER_VOLUME "docker_volume"
#define IN_CONTAINER "in_container"

typedef gboolean (*EntryFilter) (AgentsManifestEntry *entry);

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
  gboolean in_container; /* unmounting in the container, not the host */
} MountsOp;

static void
mounts_op_free (MountsOp *op)
{
  g_ptr_array_unref (op->targets);
  g_clear_error (&op->first_error);
  g_free (op);
}

/* The `type` of @entry's `mount_strategy` if it is an s3_mount. */
static char *
s3_strategy_type (AgentsManifestEntry *entry)
{
  g_autoptr (JsonNode) node = NULL;
  JsonObject *object;
  JsonNode *strategy;

  if (g_strcmp0 (agents_manifest_entry_get_type_name (entry), S3_MOUNT_TYPE) !=
      0)
    return NULL;
  node = agents_manifest_entry_to_json (entry);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  object = json_node_get_object (node);
  strategy = json_object_get_member (object, "mount_strategy");
  if (strategy == NULL || !JSON_NODE_HOLDS_OBJECT (strategy))
    return NULL;
  return g_strdup (json_object_get_string_member_with_default (
    json_node_get_object (strategy), "type", NULL));
}

static gboolean
has_strategy (AgentsManifestEntry *entry, const char *type)
{
  g_autofree char *actual = s3_strategy_type (entry);

  return g_strcmp0 (actual, type) == 0;
}

/* Mounted on the host and given to the container as a volume. */
static gboolean
is_host_mounted (AgentsManifestEntry *entry)
{
  return has_strategy (entry, DOCKER_VOLUME);
}

/* Mounted by the FUSE tool inside the container. */
static gboolean
is_in_container (AgentsManifestEntry *entry)
{
  return has_strategy (entry, IN_CONTAINER);
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
filtered_targets (AgentsManifest *manifest,
                  EntryFilter filter,
                  gboolean deepest_first)
{
  g_autoptr (GPtrArray) all = agents_manifest_list_mounts (manifest);
  GPtrArray *targets =
    g_ptr_array_new_with_free_func ((GDestroyNotify) agents_entry_target_free);

  for (guint i = 0; i < all->len; i++)
    {
      AgentsEntryTarget *target = g_ptr_array_index (all, i);

      if (filter (target->entry))
        g_ptr_array_add (targets, agents_entry_target_copy (target));
    }
  g_ptr_array_sort (targets, deepest_first ? compare_deepest_first
                                           : compare_shallowest_first);
  return targets;
}

static GPtrArray *
host_mounted_targets (AgentsDockerSession *session, gboolean deepest_first)
{
  return filtered_targets (
    agents_sandbox_session_get_manifest (AGENTS_SANDBOX_SESSION (session)),
    is_host_mounted, deepest_first);
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
        "Could not unmount %s%s: %s",
        ((AgentsEntryTarget *) g_ptr_array_index (op->targets, op->next - 1))
          ->path,
        op->in_container ? " in the container" : "", error->message);
      if (op->first_error == NULL)
        op->first_error = error;
      else
        g_error_free (error);
    }
  unmount_next (g_steal_pointer (&task));
}

/* Unmounts the targets one after the other, on the host or in the
 * container. */
static void
unmount_next (GTask *task)
{
  MountsOp *op = g_task_get_task_data (task);
  AgentsSandboxSession *session = g_task_get_source_object (task);

  while (op->next < op->targets->len)
    {
      AgentsEntryTarget *target = g_ptr_array_index (op->targets, op->next++);
      g_autoptr (AgentsHostBind) bind =
        op->in_container
          ? NULL
          : agents_sandbox_session_lookup_host_bind (session, target->path);

      /* On the host only what the host holds: without a bind there is
       * nothing here to undo (the container, and anything in it, is
       * gone). */
      if (!op->in_container && bind == NULL)
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

/* ---- unmount in the container ----------------------------------------- */

/* A container that is not running has nothing mounted in it. */
static void
running_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;

  if (!agents_sandbox_session_running_finish (AGENTS_SANDBOX_SESSION (source),
                                              result, NULL))
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  unmount_next (g_steal_pointer (&task));
}

void
agents_docker_host_mounts_unmount_in_container_async (
  AgentsDockerSession *session,
  GCancellable *cancellable,
  GAsyncReadyCallback callback,
  gpointer user_data)
{
  g_autoptr (GTask) task =
    g_task_new (session, cancellable, callback, user_data);
  MountsOp *op = g_new0 (MountsOp, 1);

  g_task_set_source_tag (task,
                         agents_docker_host_mounts_unmount_in_container_async);
  op->targets = filtered_targets (
    agents_sandbox_session_get_manifest (AGENTS_SANDBOX_SESSION (session)),
    is_in_container, TRUE);
  op->in_container = TRUE;
  g_task_set_task_data (task, op, (GDestroyNotify) mounts_op_free);
  if (op->targets->len == 0)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  agents_sandbox_session_running_async (AGENTS_SANDBOX_SESSION (session),
                                        cancellable, running_cb,
                                        g_steal_pointer (&task));
}

gboolean
agents_docker_host_mounts_unmount_in_container_finish (
  AgentsDockerSession *session, GAsyncResult *result, GError **error)
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
agents_docker_host_mounts_need_fuse (AgentsDockerSessionState *state)
{
  AgentsManifest *manifest = agents_sandbox_session_state_get_manifest (
    AGENTS_SANDBOX_SESSION_STATE (state));
  g_autoptr (GPtrArray) targets = NULL;

  if (manifest == NULL)
    return FALSE;
  targets = filtered_targets (manifest, is_in_container, FALSE);
  return targets->len > 0;
}

gboolean
agents_docker_host_mounts_any (AgentsDockerSessionState *state)
{
  GPtrArray *binds = g_object_get_qdata (G_OBJECT (state), binds_quark ());

  return binds != NULL && binds->len > 0;
}

/* The reference's volume name, `sandbox_<session>_<sha256(path)[:12]>_
 * <path>`, in the characters Docker allows (at most 128 of them). */
static char *
volume_name (AgentsDockerSessionState *state, const char *path)
{
  const char *session_id = agents_sandbox_session_state_get_session_id (
    AGENTS_SANDBOX_SESSION_STATE (state));
  g_autofree char *digest =
    g_compute_checksum_for_string (G_CHECKSUM_SHA256, path, -1);
  GString *name = g_string_new ("sandbox_");

  for (const char *p = session_id; *p != '\0'; p++)
    if (g_ascii_isalnum (*p))
      g_string_append_c (name, g_ascii_tolower (*p));
  g_string_append_printf (name, "_%.12s_", digest);
  for (const char *p = path; *p != '\0' && name->len < 128; p++)
    {
      if (*p == '/' && p == path)
        continue;
      g_string_append_c (
        name, g_ascii_isalnum (*p) || *p == '-' || *p == '.' ? *p : '_');
    }
  return g_string_free (name, FALSE);
}

static void
add_string_member (JsonBuilder *builder, const char *name, const char *value)
{
  json_builder_set_member_name (builder, name);
  json_builder_add_string_value (builder, value);
}

/* A named volume of the `local` driver that binds @bind's host mount:
 * Docker creates it with the container, and mounts it (a bind of the
 * FUSE mount) whenever the container starts. */
static void
add_volume (JsonBuilder *builder,
            AgentsDockerSessionState *state,
            const AgentsHostBind *bind)
{
  g_autofree char *name = volume_name (state, bind->sandbox_path);

  json_builder_begin_object (builder);
  add_string_member (builder, "Type", "volume");
  add_string_member (builder, "Source", name);
  add_string_member (builder, "Target", bind->sandbox_path);
  json_builder_set_member_name (builder, "ReadOnly");
  json_builder_add_boolean_value (builder, bind->read_only);
  json_builder_set_member_name (builder, "VolumeOptions");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "Labels");
  json_builder_begin_object (builder);
  add_string_member (builder, AGENTS_DOCKER_LABEL_MANAGED, "true");
  add_string_member (builder, AGENTS_DOCKER_LABEL_SESSION,
                     agents_sandbox_session_state_get_session_id (
                       AGENTS_SANDBOX_SESSION_STATE (state)));
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "DriverConfig");
  json_builder_begin_object (builder);
  add_string_member (builder, "Name", "local");
  json_builder_set_member_name (builder, "Options");
  json_builder_begin_object (builder);
  add_string_member (builder, "type", "none");
  add_string_member (builder, "o", "bind");
  add_string_member (builder, "device", bind->host_path);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
}

void
agents_docker_host_mounts_add_binds (JsonBuilder *builder,
                                     AgentsDockerSessionState *state)
{
  GPtrArray *binds = g_object_get_qdata (G_OBJECT (state), binds_quark ());

  for (guint i = 0; binds != NULL && i < binds->len; i++)
    add_volume (builder, state, g_ptr_array_index (binds, i));
}

/* ---- volumes ---------------------------------------------------------- */

static void
remove_volume (AgentsDockerEngine *engine,
               const char *name,
               GCancellable *cancellable)
{
  g_autofree char *escaped = agents_docker_engine_escape (name);
  g_autofree char *path = g_strdup_printf ("/volumes/%s", escaped);
  g_autoptr (JsonNode) answer = NULL;
  g_autoptr (GError) error = NULL;

  answer = agents_docker_engine_call_json (engine, "DELETE", path, NULL, NULL,
                                           cancellable, &error);
  if (answer == NULL && !g_error_matches (error, AGENTS_DOCKER_ERROR,
                                          AGENTS_DOCKER_ERROR_NOT_FOUND))
    g_warning ("Could not remove the docker volume %s: %s", name,
               error->message);
}

void
agents_docker_host_mounts_remove_volumes (AgentsDockerEngine *engine,
                                          AgentsDockerSessionState *state,
                                          GCancellable *cancellable)
{
  AgentsManifest *manifest = agents_sandbox_session_state_get_manifest (
    AGENTS_SANDBOX_SESSION_STATE (state));
  g_autoptr (GPtrArray) targets = NULL;

  if (manifest == NULL)
    return;
  targets = filtered_targets (manifest, is_host_mounted, FALSE);
  for (guint i = 0; i < targets->len; i++)
    {
      AgentsEntryTarget *target = g_ptr_array_index (targets, i);
      g_autofree char *name = volume_name (state, target->path);

      remove_volume (engine, name, cancellable);
    }
}

gssize
agents_docker_host_mounts_reap_volumes (AgentsDockerEngine *engine,
                                        GCancellable *cancellable,
                                        GError **error)
{
  g_autofree char *filter = agents_docker_engine_escape (
    "{\"label\":[\"" AGENTS_DOCKER_LABEL_MANAGED "=true\"],"
    "\"dangling\":[\"true\"]}");
  g_autofree char *path = g_strdup_printf ("/volumes?filters=%s", filter);
  g_autoptr (JsonNode) answer = agents_docker_engine_call_json (
    engine, "GET", path, NULL, NULL, cancellable, error);
  JsonObject *object;
  JsonArray *volumes;
  gssize removed = 0;

  if (answer == NULL)
    return -1;
  object =
    JSON_NODE_HOLDS_OBJECT (answer) ? json_node_get_object (answer) : NULL;
  volumes =
    object && json_object_has_member (object, "Volumes") &&
        JSON_NODE_HOLDS_ARRAY (json_object_get_member (object, "Volumes"))
      ? json_object_get_array_member (object, "Volumes")
      : NULL;
  for (guint i = 0; volumes != NULL && i < json_array_get_length (volumes); i++)
    {
      JsonObject *volume = json_array_get_object_element (volumes, i);
      const char *name =
        volume
          ? json_object_get_string_member_with_default (volume, "Name", NULL)
          : NULL;

      if (name == NULL)
        continue;
      remove_volume (engine, name, cancellable);
      removed++;
    }
  return removed;
}
