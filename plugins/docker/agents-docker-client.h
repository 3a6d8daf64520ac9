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

G_DECLARE_FINAL_TYPE (AgentsDockerClient,
                      agents_docker_client,
                      AGENTS,
                      DOCKER_CLIENT,
                      AgentsSandboxClientBase)

/* Create options (a{sv}):
 *   "image"         (s)     required: the image to run
 *   "network"       (s)     "none" (default), "bridge", a network's
 *                           name, or "host" with allow_host_network
 *   "allow_host_network" (b) consent to network "host" (the sandbox
 *                           then shares the host's network, 127.0.0.1
 *                           included); never read from a saved state
 *   "exposed_ports" (ai)    container ports to publish on the host;
 *                           refused with network "none"
 *   "labels"        (a{ss}) extra container labels (not in the
 *                           org.gnome.agents. namespace)
 *   "memory"        (x)     memory limit in bytes (default 2 GiB)
 *   "cpus"          (d)     CPU limit, e.g. 1.5 (default none)
 *   "pids_limit"    (x)     process limit (default 1024)
 *   "read_only_root" (b)    a read-only root filesystem, with a tmpfs
 *                           /tmp and the workspace writable
 *   "host"          (s)     engine endpoint; default $DOCKER_HOST, then
 *                           unix:///var/run/docker.sock
 * The manifest's root (default /workspace) is the workspace inside the
 * container, and its environment is the container's. Resume takes the
 * same options (the image may be left out) and refuses a saved state
 * whose settings or snapshot directory differ from them. */

AgentsSandboxClient *agents_docker_client_new (void);

void agents_docker_register_types (void);

G_END_DECLS
