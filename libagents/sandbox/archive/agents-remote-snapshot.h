/* agents-remote-snapshot.h - snapshots kept wherever a client puts them
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include <gio/gio.h>

#include "agents-snapshot.h"

G_BEGIN_DECLS

#define AGENTS_TYPE_REMOTE_SNAPSHOT_CLIENT \
  (agents_remote_snapshot_client_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_INTERFACE (AgentsRemoteSnapshotClient,
                     agents_remote_snapshot_client,
                     AGENTS,
                     REMOTE_SNAPSHOT_CLIENT,
                     GObject)

/**
 * AgentsRemoteSnapshotClientInterface:
 * @upload: stores the archive read from @data as @snapshot_id; the task
 *   returns a boolean
 * @download: opens the archive stored as @snapshot_id; the task returns a
 *   #GInputStream
 * @exists: whether an archive is stored as @snapshot_id; the task returns
 *   a boolean. A client without it cannot say whether a snapshot is
 *   restorable
 *
 * Where an #AgentsRemoteSnapshot keeps its archives: an object storage,
 * a database, another machine — anything that can store, fetch and
 * find a stream by name.
 */
struct _AgentsRemoteSnapshotClientInterface
{
  GTypeInterface g_iface;

  void (*upload) (AgentsRemoteSnapshotClient *self,
                  const char *snapshot_id,
                  GInputStream *data,
                  GTask *task);
  void (*download) (AgentsRemoteSnapshotClient *self,
                    const char *snapshot_id,
                    GTask *task);
  void (*exists) (AgentsRemoteSnapshotClient *self,
                  const char *snapshot_id,
                  GTask *task);

  /*< private >*/
  gpointer padding[8];
};

#define AGENTS_TYPE_REMOTE_SNAPSHOT (agents_remote_snapshot_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (AgentsRemoteSnapshot,
                      agents_remote_snapshot,
                      AGENTS,
                      REMOTE_SNAPSHOT,
                      GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsSnapshot *agents_remote_snapshot_new (const char *id,
                                            const char *client_dependency_key);
AGENTS_AVAILABLE_IN_1_0
const char *
agents_remote_snapshot_get_client_dependency_key (AgentsRemoteSnapshot *self);

G_END_DECLS
