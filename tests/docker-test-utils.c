/* docker-test-utils.c - what the docker tests share
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-docker-container.h"
#include "agents-docker-engine.h"
#include "docker-test-utils.h"

char *
agents_docker_test_unavailable (void)
{
  g_autoptr (AgentsDockerEngine) engine = NULL;
  g_autoptr (JsonNode) image = NULL;
  g_autoptr (GError) error = NULL;

  engine = agents_docker_engine_new (NULL, &error);
  if (engine == NULL || !agents_docker_engine_negotiate (engine, NULL, &error))
    return g_strdup_printf ("no Docker engine: %s", error->message);
  image = agents_docker_engine_call_json (
    engine, "GET", "/images/" AGENTS_DOCKER_TEST_IMAGE "/json", NULL, NULL,
    NULL, &error);
  if (image == NULL)
    return g_strdup_printf ("no test image (tests/docker/build-image.sh): %s",
                            error->message);
  return NULL;
}

void
agents_docker_test_skip (gconstpointer reason)
{
  g_test_skip (reason);
}

static JsonArray *
list_own (AgentsDockerEngine *engine, JsonNode **holder)
{
  g_autofree char *owner = agents_docker_owner_label ();
  g_autofree char *filter = g_strdup_printf (
    "{\"label\":[\"" AGENTS_DOCKER_LABEL_OWNER "=%s\"]}", owner);
  g_autofree char *escaped = agents_docker_engine_escape (filter);
  g_autofree char *path =
    g_strdup_printf ("/containers/json?all=true&filters=%s", escaped);
  g_autoptr (GError) error = NULL;

  *holder = agents_docker_engine_call_json (engine, "GET", path, NULL, NULL,
                                            NULL, &error);
  g_assert_no_error (error);
  return json_node_get_array (*holder);
}

guint
agents_docker_test_count_own_containers (void)
{
  g_autoptr (AgentsDockerEngine) engine = agents_docker_engine_new (NULL, NULL);
  g_autoptr (JsonNode) holder = NULL;

  return json_array_get_length (list_own (engine, &holder));
}

int
agents_docker_test_run_and_reap (void)
{
  g_autoptr (AgentsDockerEngine) engine = agents_docker_engine_new (NULL, NULL);
  g_autoptr (JsonNode) holder = NULL;
  JsonArray *left;
  int status = g_test_run ();

  left = list_own (engine, &holder);
  for (guint i = 0; i < json_array_get_length (left); i++)
    {
      const char *id = json_object_get_string_member (
        json_array_get_object_element (left, i), "Id");
      g_autofree char *path =
        g_strdup_printf ("/containers/%s?force=true&v=true", id);
      g_autoptr (JsonNode) answer = NULL;

      g_printerr ("# left behind: container %s\n", id);
      answer = agents_docker_engine_call_json (engine, "DELETE", path, NULL,
                                               NULL, NULL, NULL);
    }
  if (json_array_get_length (left) > 0)
    return 1;
  return status;
}
