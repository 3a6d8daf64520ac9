/* agents-remote-snapshot.c - snapshots kept wherever a client puts them
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-remote-snapshot.h"

#include "agents-json-private.h"
#include "agents-sandbox-error-private.h"

/**
 * AgentsRemoteSnapshotClient:
 *
 * The store behind an #AgentsRemoteSnapshot. Implement it (in C,
 * Python or JavaScript) to keep workspace archives anywhere, and bind the
 * object in the session's #AgentsDependencies under the snapshot's
 * `client_dependency_key`.
 */

G_DEFINE_INTERFACE (AgentsRemoteSnapshotClient,
                    agents_remote_snapshot_client,
                    G_TYPE_OBJECT)

static void
agents_remote_snapshot_client_default_init (
  AgentsRemoteSnapshotClientInterface *iface)
{
}

/**
 * AgentsRemoteSnapshot:
 *
 * A snapshot whose archive a client (#AgentsRemoteSnapshotClient) keeps,
 * as the reference's `RemoteSnapshot`: `{"type": "remote", "id": …,
 * "client_dependency_key": …}`. The client is not part of the snapshot
 * (nor of a saved state): persist, restore and restorable find it in the
 * dependencies the session passes (agents_sandbox_session_set_dependencies()).
 */
struct _AgentsRemoteSnapshot
{
  GObject parent_instance;

  char *id;
  char *client_dependency_key;
};

enum
{
  PROP_0,
  PROP_ID,
  PROP_CLIENT_DEPENDENCY_KEY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void agents_remote_snapshot_iface_init (AgentsSnapshotInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  AgentsRemoteSnapshot,
  agents_remote_snapshot,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_SNAPSHOT,
                         agents_remote_snapshot_iface_init))

static void
agents_remote_snapshot_finalize (GObject *object)
{
  AgentsRemoteSnapshot *self = AGENTS_REMOTE_SNAPSHOT (object);

  g_free (self->id);
  g_free (self->client_dependency_key);

  G_OBJECT_CLASS (agents_remote_snapshot_parent_class)->finalize (object);
}

static void
agents_remote_snapshot_get_property (GObject *object,
                                     guint prop_id,
                                     GValue *value,
                                     GParamSpec *pspec)
{
  AgentsRemoteSnapshot *self = AGENTS_REMOTE_SNAPSHOT (object);

  switch (prop_id)
    {
    case PROP_ID:
      g_value_set_string (value, self->id);
      break;
    case PROP_CLIENT_DEPENDENCY_KEY:
      g_value_set_string (value, self->client_dependency_key);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_remote_snapshot_set_property (GObject *object,
                                     guint prop_id,
                                     const GValue *value,
                                     GParamSpec *pspec)
{
  AgentsRemoteSnapshot *self = AGENTS_REMOTE_SNAPSHOT (object);

  switch (prop_id)
    {
    case PROP_ID:
      g_free (self->id);
      self->id = g_value_dup_string (value);
      break;
    case PROP_CLIENT_DEPENDENCY_KEY:
      g_free (self->client_dependency_key);
      self->client_dependency_key = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_remote_snapshot_class_init (AgentsRemoteSnapshotClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags =
    G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS;

  object_class->finalize = agents_remote_snapshot_finalize;
  object_class->get_property = agents_remote_snapshot_get_property;
  object_class->set_property = agents_remote_snapshot_set_property;

  /**
   * AgentsRemoteSnapshot:id:
   *
   * The snapshot id, the name the client stores the archive under.
   */
  properties[PROP_ID] = g_param_spec_string ("id", NULL, NULL, NULL, flags);

  /**
   * AgentsRemoteSnapshot:client-dependency-key:
   *
   * The key the client is bound to in the session's dependencies.
   */
  properties[PROP_CLIENT_DEPENDENCY_KEY] =
    g_param_spec_string ("client-dependency-key", NULL, NULL, NULL, flags);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
agents_remote_snapshot_init (AgentsRemoteSnapshot *self)
{
}

static const char *
remote_get_snapshot_type (AgentsSnapshot *snapshot)
{
  return "remote";
}

static const char *
remote_get_id (AgentsSnapshot *snapshot)
{
  return AGENTS_REMOTE_SNAPSHOT (snapshot)->id;
}

/* The client bound to the snapshot's key, or NULL with the task failed
 * with @code. */
static AgentsRemoteSnapshotClient *
find_client (AgentsRemoteSnapshot *self, GTask *task, int code)
{
  AgentsDependencies *dependencies =
    agents_snapshot_task_get_dependencies (task);
  GObject *client = NULL;
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  if (dependencies != NULL && self->client_dependency_key != NULL)
    client =
      agents_dependencies_get (dependencies, self->client_dependency_key);
  if (client != NULL && AGENTS_IS_REMOTE_SNAPSHOT_CLIENT (client))
    return AGENTS_REMOTE_SNAPSHOT_CLIENT (client);

  g_variant_builder_add (&ctx, "{sv}", "snapshot_id",
                         g_variant_new_string (self->id ? self->id : ""));
  g_variant_builder_add (&ctx, "{sv}", "client_dependency_key",
                         g_variant_new_string (self->client_dependency_key
                                                 ? self->client_dependency_key
                                                 : ""));
  g_task_return_error (
    task,
    agents_sandbox_error_new (
      code, g_variant_builder_end (&ctx),
      client == NULL
        ? _ ("no remote snapshot client is bound to “%s” in the session’s "
             "dependencies")
        : _ ("the object bound to “%s” is not a remote snapshot client"),
      self->client_dependency_key ? self->client_dependency_key : ""));
  return NULL;
}

/* Completes the snapshot's task with the client's answer. */
static void
client_boolean_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;
  gboolean value = g_task_propagate_boolean (G_TASK (result), &error);

  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, value);
}

static void
client_stream_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;
  GInputStream *stream = g_task_propagate_pointer (G_TASK (result), &error);

  if (stream == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, stream, g_object_unref);
}

/* The client's task for the call that @snapshot_task waits for, or NULL
 * with @snapshot_task failed: no client is bound (@code), or it lacks the
 * vfunc at @vfunc_offset of its interface (@missing). */
static GTask *
client_call (AgentsRemoteSnapshot *self,
             GTask *snapshot_task,
             int code,
             gsize vfunc_offset,
             const char *missing,
             GAsyncReadyCallback callback,
             gpointer source_tag,
             AgentsRemoteSnapshotClient **client_out)
{
  AgentsRemoteSnapshotClient *client = find_client (self, snapshot_task, code);
  GTask *task;

  if (client == NULL)
    return NULL;
  if (G_STRUCT_MEMBER (gpointer,
                       AGENTS_REMOTE_SNAPSHOT_CLIENT_GET_IFACE (client),
                       vfunc_offset) == NULL)
    {
      g_task_return_new_error (snapshot_task, AGENTS_SANDBOX_ERROR,
                               AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, "%s",
                               missing);
      return NULL;
    }
  task = g_task_new (client, g_task_get_cancellable (snapshot_task), callback,
                     g_object_ref (snapshot_task));
  g_task_set_source_tag (task, source_tag);
  *client_out = client;
  return task;
}

static void
remote_persist (AgentsSnapshot *snapshot, GInputStream *data, GTask *task)
{
  AgentsRemoteSnapshot *self = AGENTS_REMOTE_SNAPSHOT (snapshot);
  AgentsRemoteSnapshotClient *client = NULL;
  g_autoptr (GTask) upload = client_call (
    self, task, AGENTS_SANDBOX_ERROR_SNAPSHOT_PERSIST,
    G_STRUCT_OFFSET (AgentsRemoteSnapshotClientInterface, upload),
    "Remote snapshot client must implement `upload(snapshot_id, data, ...)`",
    client_boolean_done, remote_persist, &client);

  if (upload != NULL)
    AGENTS_REMOTE_SNAPSHOT_CLIENT_GET_IFACE (client)->upload (client, self->id,
                                                              data, upload);
}

static void
remote_restore (AgentsSnapshot *snapshot, GTask *task)
{
  AgentsRemoteSnapshot *self = AGENTS_REMOTE_SNAPSHOT (snapshot);
  AgentsRemoteSnapshotClient *client = NULL;
  g_autoptr (GTask) download = client_call (
    self, task, AGENTS_SANDBOX_ERROR_SNAPSHOT_RESTORE,
    G_STRUCT_OFFSET (AgentsRemoteSnapshotClientInterface, download),
    "Remote snapshot client must implement `download(snapshot_id, ...)`",
    client_stream_done, remote_restore, &client);

  if (download != NULL)
    AGENTS_REMOTE_SNAPSHOT_CLIENT_GET_IFACE (client)->download (
      client, self->id, download);
}

/* As the reference: without `exists` a stored archive cannot be told from
 * a missing one, and guessing either way is wrong. */
static void
remote_restorable (AgentsSnapshot *snapshot, GTask *task)
{
  AgentsRemoteSnapshot *self = AGENTS_REMOTE_SNAPSHOT (snapshot);
  AgentsRemoteSnapshotClient *client = NULL;
  g_autoptr (GTask) exists = client_call (
    self, task, AGENTS_SANDBOX_ERROR_SNAPSHOT_RESTORE,
    G_STRUCT_OFFSET (AgentsRemoteSnapshotClientInterface, exists),
    "Remote snapshot client must implement `exists(snapshot_id, ...)`",
    client_boolean_done, remote_restorable, &client);

  if (exists != NULL)
    AGENTS_REMOTE_SNAPSHOT_CLIENT_GET_IFACE (client)->exists (client, self->id,
                                                              exists);
}

static void
remote_serialize_fields (AgentsSnapshot *snapshot, JsonBuilder *builder)
{
  agents_json_add_string (
    builder, "client_dependency_key",
    AGENTS_REMOTE_SNAPSHOT (snapshot)->client_dependency_key);
}

static gboolean
remote_deserialize_fields (AgentsSnapshot *snapshot,
                           JsonObject *object,
                           GError **error)
{
  AgentsRemoteSnapshot *self = AGENTS_REMOTE_SNAPSHOT (snapshot);
  const char *key = NULL;

  if (!agents_json_read_string (object, "client_dependency_key", FALSE, TRUE,
                                &key, error))
    return FALSE;
  g_free (self->client_dependency_key);
  self->client_dependency_key = g_strdup (key);
  return TRUE;
}

static void
agents_remote_snapshot_iface_init (AgentsSnapshotInterface *iface)
{
  iface->get_snapshot_type = remote_get_snapshot_type;
  iface->get_id = remote_get_id;
  iface->persist = remote_persist;
  iface->restore = remote_restore;
  iface->restorable = remote_restorable;
  iface->serialize_fields = remote_serialize_fields;
  iface->deserialize_fields = remote_deserialize_fields;
}

/**
 * agents_remote_snapshot_new:
 * @id: the snapshot id
 * @client_dependency_key: the key of the #AgentsRemoteSnapshotClient in
 *   the session's dependencies
 *
 * Creates a snapshot kept by a client.
 *
 * Returns: (transfer full): the snapshot
 */
AgentsSnapshot *
agents_remote_snapshot_new (const char *id, const char *client_dependency_key)
{
  g_return_val_if_fail (id != NULL, NULL);
  g_return_val_if_fail (client_dependency_key != NULL, NULL);

  return g_object_new (AGENTS_TYPE_REMOTE_SNAPSHOT, "id", id,
                       "client-dependency-key", client_dependency_key, NULL);
}

/**
 * agents_remote_snapshot_get_client_dependency_key:
 * @self: a remote snapshot
 *
 * Gets the key of the snapshot's client in the session's dependencies.
 *
 * Returns: the key
 */
const char *
agents_remote_snapshot_get_client_dependency_key (AgentsRemoteSnapshot *self)
{
  g_return_val_if_fail (AGENTS_IS_REMOTE_SNAPSHOT (self), NULL);

  return self->client_dependency_key;
}
