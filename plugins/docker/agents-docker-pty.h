/* agents-docker-pty.h - docker processes that run on between calls
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents.h"
#include "agents-docker-engine.h"

G_BEGIN_DECLS

#define AGENTS_TYPE_DOCKER_PROCESS (agents_docker_process_get_type ())

G_DECLARE_FINAL_TYPE (AgentsDockerProcess,
                      agents_docker_process,
                      AGENTS,
                      DOCKER_PROCESS,
                      AgentsSandboxProcess)

/* Starts @argv in container @container_id as @user (NULL for the
 * container's), in @workdir, on a terminal when @tty, and completes
 * @task with the AgentsDockerProcess, or an EXEC_TRANSPORT error with
 * `retry_safe` true when nothing could be started. */
void agents_docker_process_start (AgentsDockerEngine *engine,
                                  const char *container_id,
                                  const char *workdir,
                                  const char *const *argv,
                                  const char *user,
                                  gboolean tty,
                                  GTask *task);

G_END_DECLS
