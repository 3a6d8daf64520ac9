/* agents-docker-client.h - the docker sandbox backend
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gio/gio.h>

#include "agents.h"

G_BEGIN_DECLS

#define AGENTS_TYPE_DOCKER_CLIENT (agents_docker_client_get_type ())

G_DECLARE_FINAL_TYPE (
  AgentsDockerClient, agents_docker_client, AGENTS, DOCKER_CLIENT, GObject)

/* Create options (a{sv}):
 *   "image"         (s)     required: the image to run
 *   "network"       (s)     "none" (default), "bridge", "host" or a
 *                           network's name
 *   "exposed_ports" (ai)    container ports to publish on the host;
 *                           refused with network "none"
 *   "labels"        (a{ss}) extra container labels (not in the
 *                           org.gnome.agents. namespace)
 *   "memory"        (x)     memory limit in bytes
 *   "cpus"          (d)     CPU limit, e.g. 1.5
 *   "pids_limit"    (x)     process limit
 *   "host"          (s)     engine endpoint; default $DOCKER_HOST, then
 *                           unix:///var/run/docker.sock
 * The manifest's root (default /workspace) is the workspace inside the
 * container, and its environment is the container's. */

AgentsSandboxClient *agents_docker_client_new (void);

void agents_docker_register_types (void);

G_END_DECLS
