/* agents-docker-exec-server.h - a shell in the container that runs
 * commands without an engine round trip each
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gio/gio.h>

#include "agents-docker-engine.h"
#include "agents.h"

G_BEGIN_DECLS

/* Private to the docker plugin.
 *
 * A docker exec costs the engine tens of milliseconds (runc joins the
 * container's namespaces every time). The exec server is one long-lived
 * exec of /bin/sh, attached through a hijacked connection, that reads
 * commands on its stdin and runs each in a subshell; each command's
 * output is delimited by a marker only the client knows. One command
 * runs at a time. G_IO_ERROR_BUSY (another command runs) and
 * G_IO_ERROR_NOT_CONNECTED (the server could not be started) mean the
 * command was not sent, and the caller may use a plain exec instead; any
 * other error came after it was sent. */

#define AGENTS_TYPE_DOCKER_EXEC_SERVER (agents_docker_exec_server_get_type ())

G_DECLARE_FINAL_TYPE (AgentsDockerExecServer,
                      agents_docker_exec_server,
                      AGENTS,
                      DOCKER_EXEC_SERVER,
                      GObject)

AgentsDockerExecServer *
agents_docker_exec_server_new (AgentsDockerEngine *engine,
                               const char *container_id);

const char *
agents_docker_exec_server_get_container_id (AgentsDockerExecServer *self);

/* Runs @argv; blocks. @kill_token goes into the command's environment as
 * AGENTS_EXEC_ID, so that a timeout can kill what it started. When
 * @cancellable fires, the command is killed and G_IO_ERROR_CANCELLED
 * returned; the server stays usable. */
AgentsExecResult *agents_docker_exec_server_run (AgentsDockerExecServer *self,
                                                 const char *const *argv,
                                                 const char *kill_token,
                                                 gsize limit,
                                                 GCancellable *cancellable,
                                                 GError **error);

/* Ends the server (closing its stdin ends the shell). */
void agents_docker_exec_server_close (AgentsDockerExecServer *self);

G_END_DECLS
