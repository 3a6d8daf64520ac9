/* agents-snapshot.h - where a workspace is persisted between runs
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "agents-version-macros.h"
#include "sandbox/common/agents-dependencies.h"

G_BEGIN_DECLS

#define AGENTS_TYPE_SNAPSHOT (agents_snapshot_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_INTERFACE (AgentsSnapshot, agents_snapshot, AGENTS, SNAPSHOT, GObject)

/**
 * AgentsSnapshotInterface:
 * @get_snapshot_type: returns the JSON `type` discriminator
 * @get_id: returns the snapshot id
 * @persist: stores the workspace archive read from @data; the task returns
 *   a boolean
 * @restore: opens the stored archive; the task returns a #GInputStream
 * @restorable: whether there is something to restore; the task returns a
 *   boolean
 * @serialize_fields: adds members beyond `type` and `id` to an open JSON
 *   object
 * @deserialize_fields: reads those members back
 *
 * A place a workspace archive is persisted to and restored from. The
 * built-in types are `noop` (#AgentsNoopSnapshot), `local`
 * (#AgentsLocalSnapshot) and `remote` (#AgentsRemoteSnapshot); plugins
 * register more with
 * agents_registry_register_snapshot_type(). Implementations are
 * constructed with g_object_new() and then given their members through
 * @deserialize_fields; they must have an `id` property.
 */
struct _AgentsSnapshotInterface
{
  GTypeInterface g_iface;

  const char *(*get_snapshot_type) (AgentsSnapshot *self);
  const char *(*get_id) (AgentsSnapshot *self);
  void (*persist) (AgentsSnapshot *self, GInputStream *data, GTask *task);
  void (*restore) (AgentsSnapshot *self, GTask *task);
  void (*restorable) (AgentsSnapshot *self, GTask *task);
  void (*serialize_fields) (AgentsSnapshot *self, JsonBuilder *builder);
  gboolean (*deserialize_fields) (AgentsSnapshot *self,
                                  JsonObject *object,
                                  GError **error);

  /*< private >*/
  gpointer padding[8];
};

AGENTS_AVAILABLE_IN_1_0
const char *agents_snapshot_get_snapshot_type (AgentsSnapshot *self);
AGENTS_AVAILABLE_IN_1_0
const char *agents_snapshot_get_id (AgentsSnapshot *self);
AGENTS_AVAILABLE_IN_1_0
void agents_snapshot_persist_async (AgentsSnapshot *self,
                                    GInputStream *data,
                                    GCancellable *cancellable,
                                    GAsyncReadyCallback callback,
                                    gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_snapshot_persist_finish (AgentsSnapshot *self,
                                         GAsyncResult *result,
                                         GError **error);
AGENTS_AVAILABLE_IN_1_0
void agents_snapshot_restore_async (AgentsSnapshot *self,
                                    GCancellable *cancellable,
                                    GAsyncReadyCallback callback,
                                    gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
GInputStream *agents_snapshot_restore_finish (AgentsSnapshot *self,
                                              GAsyncResult *result,
                                              GError **error);
AGENTS_AVAILABLE_IN_1_0
void agents_snapshot_restorable_async (AgentsSnapshot *self,
                                       GCancellable *cancellable,
                                       GAsyncReadyCallback callback,
                                       gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_snapshot_restorable_finish (AgentsSnapshot *self,
                                            GAsyncResult *result,
                                            GError **error);
AGENTS_AVAILABLE_IN_1_0
void agents_snapshot_persist_with_dependencies_async (
  AgentsSnapshot *self,
  GInputStream *data,
  AgentsDependencies *dependencies,
  GCancellable *cancellable,
  GAsyncReadyCallback callback,
  gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
void agents_snapshot_restore_with_dependencies_async (
  AgentsSnapshot *self,
  AgentsDependencies *dependencies,
  GCancellable *cancellable,
  GAsyncReadyCallback callback,
  gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
void agents_snapshot_restorable_with_dependencies_async (
  AgentsSnapshot *self,
  AgentsDependencies *dependencies,
  GCancellable *cancellable,
  GAsyncReadyCallback callback,
  gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
AgentsDependencies *agents_snapshot_task_get_dependencies (GTask *task);

AGENTS_AVAILABLE_IN_1_0
JsonNode *agents_snapshot_to_json (AgentsSnapshot *self);
AGENTS_AVAILABLE_IN_1_0
AgentsSnapshot *agents_snapshot_new_from_json (JsonNode *node, GError **error);

/* ---- noop ------------------------------------------------------------- */

#define AGENTS_TYPE_NOOP_SNAPSHOT (agents_noop_snapshot_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (
  AgentsNoopSnapshot, agents_noop_snapshot, AGENTS, NOOP_SNAPSHOT, GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsSnapshot *agents_noop_snapshot_new (const char *id);

/* ---- local ------------------------------------------------------------ */

#define AGENTS_TYPE_LOCAL_SNAPSHOT (agents_local_snapshot_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (
  AgentsLocalSnapshot, agents_local_snapshot, AGENTS, LOCAL_SNAPSHOT, GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsSnapshot *agents_local_snapshot_new (const char *id,
                                           const char *base_path);
AGENTS_AVAILABLE_IN_1_0
const char *agents_local_snapshot_get_base_path (AgentsLocalSnapshot *self);
AGENTS_AVAILABLE_IN_1_0
char *agents_local_snapshot_dup_archive_path (AgentsLocalSnapshot *self);

/* ---- LocalSnapshotSpec ------------------------------------------------ */

#define AGENTS_TYPE_LOCAL_SNAPSHOT_SPEC (agents_local_snapshot_spec_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (AgentsLocalSnapshotSpec,
                      agents_local_snapshot_spec,
                      AGENTS,
                      LOCAL_SNAPSHOT_SPEC,
                      GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsLocalSnapshotSpec *agents_local_snapshot_spec_new (const char *base_path);
AGENTS_AVAILABLE_IN_1_0
const char *
agents_local_snapshot_spec_get_base_path (AgentsLocalSnapshotSpec *self);
AGENTS_AVAILABLE_IN_1_0
AgentsSnapshot *agents_local_snapshot_spec_build (AgentsLocalSnapshotSpec *self,
                                                  const char *id);

AGENTS_AVAILABLE_IN_1_0
AgentsSnapshot *agents_snapshot_resolve (GObject *snapshot_or_spec,
                                         const char *session_id);

G_END_DECLS
