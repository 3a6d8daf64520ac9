/* agents-docker-container.h - blocking operations on one container
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gio/gio.h>

#include "agents-docker-engine.h"
#include "agents-docker-exec-server.h"
#include "agents-docker-session.h"
#include "agents.h"

G_BEGIN_DECLS

/* Private to the docker plugin. Every function blocks: the session
 * calls them on worker threads. Errors come back in AGENTS_SANDBOX_ERROR
 * with the engine's context (endpoint, status, engine_message) and a
 * `reason`, or as G_IO_ERROR_CANCELLED. */

#define AGENTS_TYPE_DOCKER_CONTAINER (agents_docker_container_get_type ())

G_DECLARE_FINAL_TYPE (AgentsDockerContainer,
                      agents_docker_container,
                      AGENTS,
                      DOCKER_CONTAINER,
                      GObject)

AgentsDockerContainer *agents_docker_container_new (AgentsDockerEngine *engine,
                                                    const char *id);

/* Runs @argv (as @user, or the image's user when NULL) and collects its
 * output, each stream capped at @limit; through the first free one of
 * @servers (AgentsDockerExecServer, may be NULL), otherwise as an exec of
 * its own. Cancelling @cancellable
 * kills the command inside the container and fails with
 * G_IO_ERROR_CANCELLED. Engine failures are returned in the
 * AGENTS_DOCKER_ERROR domain, a broken server's as G_IO_ERROR. */
AgentsExecResult *agents_docker_container_exec (AgentsDockerContainer *self,
                                                GPtrArray *servers,
                                                const char *const *argv,
                                                const char *user,
                                                gsize limit,
                                                GCancellable *cancellable,
                                                GError **error);

GInputStream *agents_docker_container_read_file (AgentsDockerContainer *self,
                                                 const char *abs,
                                                 GCancellable *cancellable,
                                                 GError **error);
gboolean agents_docker_container_write_file (AgentsDockerContainer *self,
                                             const char *abs,
                                             GInputStream *data,
                                             guint mode,
                                             GCancellable *cancellable,
                                             GError **error);

/* The workspace @root as a workspace-relative tar, @exclude left out,
 * streamed as the caller reads. */
GInputStream *agents_docker_container_persist (AgentsDockerContainer *self,
                                               const char *root,
                                               const char *const *exclude,
                                               GError **error);
gboolean agents_docker_container_hydrate (AgentsDockerContainer *self,
                                          const char *root,
                                          GInputStream *data,
                                          const AgentsArchiveLimits *limits,
                                          GCancellable *cancellable,
                                          GError **error);

/* A container that is gone is not running. */
gboolean agents_docker_container_inspect_running (AgentsDockerContainer *self,
                                                  gboolean *running,
                                                  GCancellable *cancellable,
                                                  GError **error);
gboolean agents_docker_container_stop (AgentsDockerContainer *self,
                                       GCancellable *cancellable,
                                       GError **error);
/* Removes the container with its anonymous volumes, but only when it
 * carries the libagents labels of @session_id; gone is not an error. */
gboolean agents_docker_container_remove_owned (AgentsDockerContainer *self,
                                               const char *session_id,
                                               GCancellable *cancellable,
                                               GError **error);

/* Finds the state's container again (with @reuse: it exists, was made
 * by libagents for this session from this image; it is started if it
 * stopped) or creates and starts a new one. Returns its id; *@reused
 * says which. */
char *agents_docker_container_ensure (AgentsDockerEngine *engine,
                                      AgentsDockerSessionState *state,
                                      gboolean reuse,
                                      gboolean *reused,
                                      GCancellable *cancellable,
                                      GError **error);

/* Removes the libagents containers whose owner process is gone (or all
 * of them with @all); returns how many, or -1 with @error. */
gssize agents_docker_reap (AgentsDockerEngine *engine,
                           gboolean all,
                           GCancellable *cancellable,
                           GError **error);

/* An engine error as a sandbox error of @code, keeping the engine's
 * context; with @argv, the command's context too. */
GError *agents_docker_map_error (const GError *engine_error,
                                 int code,
                                 const char *const *argv);

/* The owner label of this process:
 * "MACHINE_ID:BOOT_ID:PIDNS:PID:START_TIME" (agents-docker-owner.c). */
char *agents_docker_owner_label (void);
/* Whether the process an owner label names is provably gone: same
 * machine and pid namespace, and the pid is free or reused (or an
 * earlier boot of this machine). Unreadable or foreign labels are not. */
gboolean agents_docker_owner_gone (const char *label);

G_END_DECLS
