/* agents-docker-host-mounts.h - host-mounted entries bound into a container
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

#include "agents-docker-session.h"

G_BEGIN_DECLS

/* Mounts, on the host, every s3_mount entry of @session's manifest that
 * has no host bind yet (see agents-host-bind-private.h), before the
 * container is created: the engine can bind a host directory into a
 * container only when it creates it. */
void agents_docker_host_mounts_mount_async (AgentsDockerSession *session,
                                            GCancellable *cancellable,
                                            GAsyncReadyCallback callback,
                                            gpointer user_data);
gboolean agents_docker_host_mounts_mount_finish (AgentsDockerSession *session,
                                                 GAsyncResult *result,
                                                 GError **error);

/* Unmounts what agents_docker_host_mounts_mount_async() mounted, deepest
 * first, once the container that showed them is stopped or gone. Every
 * mount is tried; the first failure is returned. */
void agents_docker_host_mounts_unmount_async (AgentsDockerSession *session,
                                              GCancellable *cancellable,
                                              GAsyncReadyCallback callback,
                                              gpointer user_data);
gboolean agents_docker_host_mounts_unmount_finish (AgentsDockerSession *session,
                                                   GAsyncResult *result,
                                                   GError **error);

/* Remembers @session's host binds on its state, for the container's
 * configuration (agents_docker_host_mounts_add_binds()). */
void agents_docker_host_mounts_sync_state (AgentsDockerSession *session,
                                           AgentsDockerSessionState *state);

/* Adds a `bind` mount object (Source, Target, ReadOnly) to the open
 * `Mounts` array of @builder for every host bind remembered on @state. */
void agents_docker_host_mounts_add_binds (JsonBuilder *builder,
                                          AgentsDockerSessionState *state);

/* Whether @state remembers any host bind. */
gboolean agents_docker_host_mounts_any (AgentsDockerSessionState *state);

G_END_DECLS
