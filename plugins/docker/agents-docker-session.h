/* agents-docker-session.h - sessions of the docker backend
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gio/gio.h>

#include "agents-docker-engine.h"
#include "agents.h"

G_BEGIN_DECLS

/* Private API: the types are found by name through the registry. */

/* Every container the backend creates carries these labels. */
#define AGENTS_DOCKER_LABEL_MANAGED "org.gnome.agents.managed"
#define AGENTS_DOCKER_LABEL_SESSION "org.gnome.agents.session-id"
/* "MACHINE_ID:BOOT_ID:PIDNS:PID:START_TIME" of the process that created
 * the container (agents_docker_owner_label()): the owner whose end makes
 * the container a leak. */
#define AGENTS_DOCKER_LABEL_OWNER "org.gnome.agents.owner"
/* A digest of the container's configuration: a container is reused only
 * when it runs as the caller configured. */
#define AGENTS_DOCKER_LABEL_CONFIG "org.gnome.agents.config"

#define AGENTS_TYPE_DOCKER_SESSION_STATE \
  (agents_docker_session_state_get_type ())

G_DECLARE_FINAL_TYPE (AgentsDockerSessionState,
                      agents_docker_session_state,
                      AGENTS,
                      DOCKER_SESSION_STATE,
                      AgentsSandboxSessionState)

/* The JSON shape, after the generic members:
 *   "image": s, "container_id": s or null, "network_mode": s or null
 *   (null: no network), "exposed_ports": [int], "labels": {s: s},
 *   "memory_bytes": int or null, "nano_cpus": int or null,
 *   "pids_limit": int or null, "docker_host": s or null,
 *   "read_only_root": bool */
const char *
agents_docker_session_state_get_image (AgentsDockerSessionState *self);
const char *
agents_docker_session_state_get_container_id (AgentsDockerSessionState *self);
void
agents_docker_session_state_set_container_id (AgentsDockerSessionState *self,
                                              const char *container_id);
const char *
agents_docker_session_state_get_network_mode (AgentsDockerSessionState *self);
GArray *
agents_docker_session_state_get_exposed_ports (AgentsDockerSessionState *self);
GHashTable *
agents_docker_session_state_get_labels (AgentsDockerSessionState *self);
void agents_docker_session_state_get_limits (AgentsDockerSessionState *self,
                                             gint64 *memory_bytes,
                                             gint64 *nano_cpus,
                                             gint64 *pids_limit);
const char *
agents_docker_session_state_get_docker_host (AgentsDockerSessionState *self);
gboolean
agents_docker_session_state_get_read_only_root (AgentsDockerSessionState *self);

/* Checks a saved state (read from JSON: hostile) against what the caller
 * configured: @options as for create (the image may be left out) and
 * @snapshot (a snapshot, a spec, or NULL for the default local one).
 * Every member that says where or how the container runs, and a local
 * snapshot's directory, must be the caller's; otherwise an
 * AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT naming the member (context
 * `member`, `saved`, `configured`, reason `not_configured`). */
gboolean
agents_docker_session_state_check_configuration (AgentsDockerSessionState *self,
                                                 GVariant *options,
                                                 GObject *snapshot,
                                                 GError **error);

/* Builds a state from a manifest and the create options (see
 * agents_docker_client options in agents-docker-client.h); validates
 * the options. */
AgentsSandboxSessionState *agents_docker_session_state_new (
  AgentsManifest *manifest, GVariant *options, GError **error);

#define AGENTS_TYPE_DOCKER_SESSION (agents_docker_session_get_type ())

G_DECLARE_FINAL_TYPE (AgentsDockerSession,
                      agents_docker_session,
                      AGENTS,
                      DOCKER_SESSION,
                      AgentsSandboxSessionBase)

AgentsDockerSession *
agents_docker_session_new (AgentsDockerEngine *engine,
                           AgentsDockerSessionState *state);

AgentsDockerEngine *
agents_docker_session_get_engine (AgentsDockerSession *self);

/* Creates (or, with @reuse, finds again) the container: the client's
 * create and resume. The task returns a boolean. */
void agents_docker_session_ensure_container_async (AgentsDockerSession *self,
                                                   gboolean reuse,
                                                   GCancellable *cancellable,
                                                   GAsyncReadyCallback callback,
                                                   gpointer user_data);
gboolean agents_docker_session_ensure_container_finish (
  AgentsDockerSession *self, GAsyncResult *result, GError **error);

/* Removes the container (force) and its anonymous volumes; a container
 * that is gone already is not an error. The task returns a boolean. */
void agents_docker_session_remove_container_async (AgentsDockerSession *self,
                                                   GCancellable *cancellable,
                                                   GAsyncReadyCallback callback,
                                                   gpointer user_data);
gboolean agents_docker_session_remove_container_finish (
  AgentsDockerSession *self, GAsyncResult *result, GError **error);

/* Tests: caps each of stdout and stderr at @limit bytes (default
 * 64 MiB). */
void agents_docker_session_set_output_limit (AgentsDockerSession *self,
                                             gsize limit);

G_END_DECLS
