/* agents-snapshot.c - where a workspace is persisted between runs
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "agents-json-private.h"
#include "agents-registry.h"
#include "agents-sandbox-error-private.h"
#include "agents-snapshot-private.h"
#include "agents-snapshot.h"
#include "agents-typed-json-private.h"

/* ---- the interface ---------------------------------------------------- */

/**
 * AgentsSnapshot:
 *
 * Where a workspace archive is persisted and restored from. See
 * #AgentsSnapshotInterface.
 *
 * A snapshot round-trips through JSON as `{"type": …, "id": …}` plus the
 * members its type adds.
 */

G_DEFINE_INTERFACE (AgentsSnapshot, agents_snapshot, G_TYPE_OBJECT)

static void
return_not_supported (AgentsSnapshot *self, GTask *task, const char *operation)
{
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  g_variant_builder_add (&ctx, "{sv}", "operation",
                         g_variant_new_string (operation));
  g_task_return_error (
    task, agents_sandbox_error_new (AGENTS_SANDBOX_ERROR_NOT_SUPPORTED,
                                    g_variant_builder_end (&ctx),
                                    _ ("%s does not support %s"),
                                    G_OBJECT_TYPE_NAME (self), operation));
}

static void
agents_snapshot_real_persist (AgentsSnapshot *self,
                              GInputStream *data,
                              GTask *task)
{
  return_not_supported (self, task, "persist");
}

static void
agents_snapshot_real_restore (AgentsSnapshot *self, GTask *task)
{
  return_not_supported (self, task, "restore");
}

static void
agents_snapshot_real_restorable (AgentsSnapshot *self, GTask *task)
{
  return_not_supported (self, task, "restorable");
}

/* The name the type is registered under. */
static const char *
agents_snapshot_real_get_snapshot_type (AgentsSnapshot *self)
{
  return agents_typed_json_get_type_name (AGENTS_TYPE_SNAPSHOT,
                                          G_OBJECT_TYPE (self));
}

static gboolean
type_has_id_property (GType type)
{
  GObjectClass *klass = g_type_class_ref (type);
  GParamSpec *pspec = g_object_class_find_property (klass, "id");

  g_type_class_unref (klass);
  return pspec != NULL && pspec->value_type == G_TYPE_STRING;
}

/* The value of the "id" property, kept alive on the object. */
static const char *
agents_snapshot_real_get_id (AgentsSnapshot *self)
{
  char *id = NULL;

  if (!type_has_id_property (G_OBJECT_TYPE (self)))
    return NULL;
  g_object_get (self, "id", &id, NULL);
  g_object_set_data_full (G_OBJECT (self), "agents-snapshot-id", id, g_free);
  return id;
}

static AgentsTypedJsonFamily snapshot_family;

static void
agents_snapshot_default_init (AgentsSnapshotInterface *iface)
{
  snapshot_family.base = G_TYPE_FROM_INTERFACE (iface);
  agents_typed_json_define_family (&snapshot_family);
  iface->get_snapshot_type = agents_snapshot_real_get_snapshot_type;
  iface->get_id = agents_snapshot_real_get_id;
  iface->persist = agents_snapshot_real_persist;
  iface->restore = agents_snapshot_real_restore;
  iface->restorable = agents_snapshot_real_restorable;
}

/**
 * agents_snapshot_get_snapshot_type:
 * @self: a snapshot
 *
 * Gets the JSON `type` discriminator of @self, like `local`.
 *
 * Returns: (nullable): the type name
 */
const char *
agents_snapshot_get_snapshot_type (AgentsSnapshot *self)
{
  g_return_val_if_fail (AGENTS_IS_SNAPSHOT (self), NULL);

  return AGENTS_SNAPSHOT_GET_IFACE (self)->get_snapshot_type (self);
}

/**
 * agents_snapshot_get_id:
 * @self: a snapshot
 *
 * Gets the id of @self.
 *
 * Returns: (nullable): the id
 */
const char *
agents_snapshot_get_id (AgentsSnapshot *self)
{
  g_return_val_if_fail (AGENTS_IS_SNAPSHOT (self), NULL);

  return AGENTS_SNAPSHOT_GET_IFACE (self)->get_id (self);
}

#define DEPENDENCIES_KEY "agents-snapshot-dependencies"

/* The task of a call, with the caller's @dependencies (nullable) for
 * agents_snapshot_task_get_dependencies(). */
static GTask *
snapshot_task_new (AgentsSnapshot *self,
                   AgentsDependencies *dependencies,
                   GCancellable *cancellable,
                   GAsyncReadyCallback callback,
                   gpointer user_data,
                   gpointer source_tag)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, source_tag);
  if (dependencies != NULL)
    g_object_set_data_full (G_OBJECT (task), DEPENDENCIES_KEY,
                            g_object_ref (dependencies), g_object_unref);
  return task;
}

/**
 * agents_snapshot_persist_async:
 * @self: a snapshot
 * @data: the workspace archive
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the archive is stored
 * @user_data: data for @callback
 *
 * Stores the archive read from @data. The stream is read to its end but
 * not closed.
 */
void
agents_snapshot_persist_async (AgentsSnapshot *self,
                               GInputStream *data,
                               GCancellable *cancellable,
                               GAsyncReadyCallback callback,
                               gpointer user_data)
{
  agents_snapshot_persist_with_dependencies_async (
    self, data, NULL, cancellable, callback, user_data);
}

/**
 * agents_snapshot_task_get_dependencies:
 * @task: the task an #AgentsSnapshotInterface vfunc was given
 *
 * Gets the dependencies the caller passed to
 * agents_snapshot_persist_with_dependencies_async() (or the restore and
 * restorable variants), for a snapshot that needs objects of the session
 * (such as the client of #AgentsRemoteSnapshot).
 *
 * Returns: (transfer none) (nullable): the dependencies, or %NULL
 */
AgentsDependencies *
agents_snapshot_task_get_dependencies (GTask *task)
{
  g_return_val_if_fail (G_IS_TASK (task), NULL);

  return g_object_get_data (G_OBJECT (task), DEPENDENCIES_KEY);
}

/**
 * agents_snapshot_persist_with_dependencies_async:
 * @self: a snapshot
 * @data: the workspace archive
 * @dependencies: (nullable): the session's dependencies
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the archive is stored
 * @user_data: data for @callback
 *
 * Like agents_snapshot_persist_async(), with @dependencies for a snapshot
 * that needs them (see agents_snapshot_task_get_dependencies()). Finish
 * it with agents_snapshot_persist_finish().
 */
void
agents_snapshot_persist_with_dependencies_async (
  AgentsSnapshot *self,
  GInputStream *data,
  AgentsDependencies *dependencies,
  GCancellable *cancellable,
  GAsyncReadyCallback callback,
  gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SNAPSHOT (self));
  g_return_if_fail (G_IS_INPUT_STREAM (data));
  g_return_if_fail (dependencies == NULL ||
                    AGENTS_IS_DEPENDENCIES (dependencies));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = snapshot_task_new (self, dependencies, cancellable, callback,
                            user_data, agents_snapshot_persist_async);
  AGENTS_SNAPSHOT_GET_IFACE (self)->persist (self, data, task);
}

/**
 * agents_snapshot_persist_finish:
 * @self: a snapshot
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_snapshot_persist_async().
 *
 * Returns: %TRUE if the archive was stored
 */
gboolean
agents_snapshot_persist_finish (AgentsSnapshot *self,
                                GAsyncResult *result,
                                GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * agents_snapshot_restore_async:
 * @self: a snapshot
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the archive is open
 * @user_data: data for @callback
 *
 * Opens the stored workspace archive.
 */
void
agents_snapshot_restore_async (AgentsSnapshot *self,
                               GCancellable *cancellable,
                               GAsyncReadyCallback callback,
                               gpointer user_data)
{
  agents_snapshot_restore_with_dependencies_async (self, NULL, cancellable,
                                                   callback, user_data);
}

/**
 * agents_snapshot_restore_with_dependencies_async:
 * @self: a snapshot
 * @dependencies: (nullable): the session's dependencies
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the archive is open
 * @user_data: data for @callback
 *
 * Like agents_snapshot_restore_async(), with @dependencies. Finish it
 * with agents_snapshot_restore_finish().
 */
void
agents_snapshot_restore_with_dependencies_async (
  AgentsSnapshot *self,
  AgentsDependencies *dependencies,
  GCancellable *cancellable,
  GAsyncReadyCallback callback,
  gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SNAPSHOT (self));
  g_return_if_fail (dependencies == NULL ||
                    AGENTS_IS_DEPENDENCIES (dependencies));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = snapshot_task_new (self, dependencies, cancellable, callback,
                            user_data, agents_snapshot_restore_async);
  AGENTS_SNAPSHOT_GET_IFACE (self)->restore (self, task);
}

/**
 * agents_snapshot_restore_finish:
 * @self: a snapshot
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_snapshot_restore_async().
 *
 * Returns: (transfer full): the archive, or %NULL with @error set
 */
GInputStream *
agents_snapshot_restore_finish (AgentsSnapshot *self,
                                GAsyncResult *result,
                                GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * agents_snapshot_restorable_async:
 * @self: a snapshot
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the answer
 * @user_data: data for @callback
 *
 * Finds out whether there is a stored archive to restore.
 */
void
agents_snapshot_restorable_async (AgentsSnapshot *self,
                                  GCancellable *cancellable,
                                  GAsyncReadyCallback callback,
                                  gpointer user_data)
{
  agents_snapshot_restorable_with_dependencies_async (self, NULL, cancellable,
                                                      callback, user_data);
}

/**
 * agents_snapshot_restorable_with_dependencies_async:
 * @self: a snapshot
 * @dependencies: (nullable): the session's dependencies
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the answer
 * @user_data: data for @callback
 *
 * Like agents_snapshot_restorable_async(), with @dependencies. Finish it
 * with agents_snapshot_restorable_finish().
 */
void
agents_snapshot_restorable_with_dependencies_async (
  AgentsSnapshot *self,
  AgentsDependencies *dependencies,
  GCancellable *cancellable,
  GAsyncReadyCallback callback,
  gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SNAPSHOT (self));
  g_return_if_fail (dependencies == NULL ||
                    AGENTS_IS_DEPENDENCIES (dependencies));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = snapshot_task_new (self, dependencies, cancellable, callback,
                            user_data, agents_snapshot_restorable_async);
  AGENTS_SNAPSHOT_GET_IFACE (self)->restorable (self, task);
}

/**
 * agents_snapshot_restorable_finish:
 * @self: a snapshot
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_snapshot_restorable_async().
 *
 * Returns: whether there is something to restore; %FALSE with @error set
 *   on failure
 */
gboolean
agents_snapshot_restorable_finish (AgentsSnapshot *self,
                                   GAsyncResult *result,
                                   GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- JSON, through the typed-JSON mechanism --------------------------- */

static char *
unknown_snapshot_type_message (const char *type_name, const char *known)
{
  return g_strdup_printf (_ ("unknown snapshot type `%s`"), type_name);
}

static char *
missing_snapshot_type_message (void)
{
  return g_strdup (_ ("snapshot payload must include a string `type` field"));
}

static char *
snapshot_not_object_message (const char *json_type)
{
  return g_strdup_printf (_ ("snapshot payload must be a JSON object, got %s"),
                          json_type);
}

static const char *
snapshot_type_name_of (GObject *self)
{
  return agents_snapshot_get_snapshot_type (AGENTS_SNAPSHOT (self));
}

gboolean
agents_snapshot_invalid_member (GError **error,
                                const char *member,
                                const char *expected)
{
  agents_json_set_error (error, member, NULL,
                         _ ("snapshot member “%s” must be %s"), member,
                         expected);
  return FALSE;
}

/* Snapshots get their id at construction, when their type has an `id`
 * property. */
static GObject *
instantiate_snapshot (GType type, JsonObject *object, GError **error)
{
  const char *id = agents_json_get_string (object, "id");

  if (id == NULL)
    return (agents_snapshot_invalid_member (error, "id", _ ("a string")), NULL);
  if (type_has_id_property (type))
    return g_object_new (type, "id", id, NULL);
  return g_object_new (type, NULL);
}

static void
write_snapshot_fields (GObject *object, JsonBuilder *builder)
{
  AgentsSnapshot *self = AGENTS_SNAPSHOT (object);
  const char *id = agents_snapshot_get_id (self);

  agents_json_add_string (builder, "id", id ? id : "");
  if (AGENTS_SNAPSHOT_GET_IFACE (self)->serialize_fields != NULL)
    AGENTS_SNAPSHOT_GET_IFACE (self)->serialize_fields (self, builder);
}

static gboolean
read_snapshot_fields (GObject *object, JsonObject *json, GError **error)
{
  AgentsSnapshot *self = AGENTS_SNAPSHOT (object);
  AgentsSnapshotInterface *iface = AGENTS_SNAPSHOT_GET_IFACE (self);

  return iface->deserialize_fields == NULL ||
         iface->deserialize_fields (self, json, error);
}

/* Completed (its base) when the interface is initialized. */
static AgentsTypedJsonFamily snapshot_family = {
  .label = N_ ("snapshot type"),
  .member = "snapshot",
  .unknown_type_message = unknown_snapshot_type_message,
  .missing_type_message = missing_snapshot_type_message,
  .not_object_message = snapshot_not_object_message,
  .type_name_of = snapshot_type_name_of,
  .instantiate = instantiate_snapshot,
  .write_fields = write_snapshot_fields,
  .read_fields = read_snapshot_fields,
  .load_types = agents_registry_load_plugins,
};

/**
 * agents_snapshot_to_json:
 * @self: a snapshot
 *
 * Serializes @self as `{"type": …, "id": …, …}`, see #AgentsTypedJson.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
agents_snapshot_to_json (AgentsSnapshot *self)
{
  g_return_val_if_fail (AGENTS_IS_SNAPSHOT (self), NULL);

  return agents_typed_json_to_json (AGENTS_TYPE_SNAPSHOT, G_OBJECT (self));
}

/**
 * agents_snapshot_new_from_json:
 * @node: a JSON object made by agents_snapshot_to_json()
 * @error: return location for a #GError
 *
 * Creates a snapshot from its JSON form, looking its `type` up among
 * the registered snapshot types (see #AgentsTypedJson). The document is
 * untrusted: every member is checked.
 *
 * Returns: (transfer full) (nullable): the snapshot, or %NULL with @error
 *   set
 */
AgentsSnapshot *
agents_snapshot_new_from_json (JsonNode *node, GError **error)
{
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return AGENTS_SNAPSHOT (
    agents_typed_json_new_from_json (AGENTS_TYPE_SNAPSHOT, node, error));
}

void
agents_snapshot_add_context (GVariantBuilder *ctx,
                             const char *id,
                             const char *path,
                             const char *reason)
{
  g_autofree char *valid_id = g_utf8_make_valid (id ? id : "", -1);

  g_variant_builder_add (ctx, "{sv}", "snapshot_id",
                         g_variant_new_string (valid_id));
  if (path != NULL)
    {
      g_autofree char *valid = g_utf8_make_valid (path, -1);

      g_variant_builder_add (ctx, "{sv}", "path", g_variant_new_string (valid));
    }
  if (reason != NULL)
    {
      g_autofree char *valid = g_utf8_make_valid (reason, -1);

      g_variant_builder_add (ctx, "{sv}", "reason",
                             g_variant_new_string (valid));
    }
}

/**
 * agents_snapshot_resolve:
 * @snapshot_or_spec: (nullable): an #AgentsSnapshot, an
 *   #AgentsLocalSnapshotSpec or %NULL
 * @session_id: the id of the session the snapshot is for
 *
 * Turns what a caller configured into a snapshot: a snapshot is used as
 * it is, a spec builds one named @session_id, and %NULL means a noop
 * snapshot named @session_id.
 *
 * Returns: (transfer full): the snapshot
 */
AgentsSnapshot *
agents_snapshot_resolve (GObject *snapshot_or_spec, const char *session_id)
{
  if (snapshot_or_spec == NULL)
    return agents_noop_snapshot_new (session_id);
  if (AGENTS_IS_SNAPSHOT (snapshot_or_spec))
    return g_object_ref (AGENTS_SNAPSHOT (snapshot_or_spec));
  if (AGENTS_IS_LOCAL_SNAPSHOT_SPEC (snapshot_or_spec))
    return agents_local_snapshot_spec_build (
      AGENTS_LOCAL_SNAPSHOT_SPEC (snapshot_or_spec), session_id);

  g_critical ("%s: %s is neither a snapshot nor a snapshot spec", G_STRFUNC,
              G_OBJECT_TYPE_NAME (snapshot_or_spec));
  return agents_noop_snapshot_new (session_id);
}
