/* agents-docker-container-private.h - what the container files share
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-docker-container.h"

G_BEGIN_DECLS

struct _AgentsDockerContainer
{
  GObject parent_instance;

  AgentsDockerEngine *engine;
  char *id;
  char *escaped_id;
};

/* Replaces *@error, an engine error, by its sandbox form. */
void agents_docker_map_error_in_place (GError **error, int code);
/* A 404 about the container itself, not about a path in it. */
gboolean agents_docker_is_container_gone (const GError *error);

/* The engine path of the container, @format appended. */
char *agents_docker_container_path (AgentsDockerContainer *self,
                                    const char *format,
                                    ...) G_GNUC_PRINTF (2, 3);

JsonNode *agents_docker_argv_node (const char *const *argv);
/* The string or object member @member of @node, or NULL. */
const char *agents_docker_object_string (JsonNode *node, const char *member);
JsonObject *agents_docker_object_member (JsonNode *node, const char *member);

/* Runs @argv as root and fails on a non-zero exit. */
gboolean agents_docker_container_exec_checked (AgentsDockerContainer *self,
                                               const char *const *argv,
                                               GCancellable *cancellable,
                                               GError **error);

/* The engine's description of the container; NULL with *@gone set and
 * no error when it does not exist. */
JsonNode *agents_docker_container_inspect (AgentsDockerContainer *self,
                                           gboolean *gone,
                                           GCancellable *cancellable,
                                           GError **error);
/* POSTs @path; with @ignore_gone a 404 is a success. */
gboolean agents_docker_container_post (AgentsDockerContainer *self,
                                       const char *path,
                                       gboolean ignore_gone,
                                       GCancellable *cancellable,
                                       GError **error);
/* Whether @info is of a container libagents made for @session_id. */
gboolean agents_docker_labels_match (JsonNode *info, const char *session_id);
/* Removes the container with its anonymous volumes; gone is removed. */
gboolean agents_docker_container_remove (AgentsDockerContainer *self,
                                         GCancellable *cancellable,
                                         GError **error);

G_END_DECLS
