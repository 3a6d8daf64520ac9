/* agents-docker-host-mounts.h - host-mounted entries bound into a container
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

#include "agents-docker-engine.h"
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

/* Unmounts the s3_mount entries mounted inside the container (the
 * in_container strategy), deepest first, after their written files are
 * uploaded: before the container is stopped or removed, which would end
 * the FUSE tool with uploads pending. Every mount is tried; the first
 * failure is returned. */
void agents_docker_host_mounts_unmount_in_container_async (
  AgentsDockerSession *session,
  GCancellable *cancellable,
  GAsyncReadyCallback callback,
  gpointer user_data);
gboolean agents_docker_host_mounts_unmount_in_container_finish (
  AgentsDockerSession *session, GAsyncResult *result, GError **error);

/* Whether the manifest remembered on @state (by
 * agents_docker_host_mounts_sync_state()) mounts a bucket inside the
 * container: the container then needs /dev/fuse and SYS_ADMIN. */
gboolean agents_docker_host_mounts_need_fuse (AgentsDockerSessionState *state);

/* Remembers @session's host binds on its state, for the container's
 * configuration (agents_docker_host_mounts_add_binds()). */
void agents_docker_host_mounts_sync_state (AgentsDockerSession *session,
                                           AgentsDockerSessionState *state);

/* Adds a `volume` mount object to the open `Mounts` array of @builder
 * for every host bind remembered on @state: a named volume of the
 * `local` driver bound to the host mount, created by the engine with
 * the container (the docker_volume strategy). */
void agents_docker_host_mounts_add_binds (JsonBuilder *builder,
                                          AgentsDockerSessionState *state);

/* Removes the docker_volume volumes of @state's manifest (those of a
 * container that is gone). Blocking; failures are logged. */
void agents_docker_host_mounts_remove_volumes (AgentsDockerEngine *engine,
                                               AgentsDockerSessionState *state,
                                               GCancellable *cancellable);

/* Removes the libagents volumes no container uses any more (their
 * container was reaped). Blocking. Returns how many, or -1. */
gssize agents_docker_host_mounts_reap_volumes (AgentsDockerEngine *engine,
                                               GCancellable *cancellable,
                                               GError **error);

/* Whether @state remembers any host bind. */
gboolean agents_docker_host_mounts_any (AgentsDockerSessionState *state);

G_END_DECLS
