/* test-docker-conformance.c - the backend conformance suite against docker
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-docker-client.h"
#include "conformance.h"
#include "docker-test-utils.h"
#include "test-utils.h"

static AgentsSandboxClient *
new_docker_client (void)
{
  return agents_docker_client_new ();
}

static GVariant *
docker_options (void)
{
  return g_variant_new_parsed ("{'image': <%s>}", AGENTS_DOCKER_TEST_IMAGE);
}

/* The workspace is a directory of the container: the suite sees it only
 * through the session API, and keeps its sentinel in the container too,
 * outside the workspace. */
static const AgentsConformanceBackend docker = {
  .name = "docker",
  .new_client = new_docker_client,
  .options = docker_options,
  .host_visible_root = FALSE,
  .root = "/workspace",
  .outside_dir = "/outside",
  .refuses_outward_relative_links = TRUE,
};

int
main (int argc, char *argv[])
{
  g_autofree char *why = NULL;

  g_test_init (&argc, &argv, NULL);
  agents_docker_register_types ();

  why = agents_docker_test_unavailable ();
  if (why != NULL)
    {
      g_test_add_data_func_full ("/conformance/docker/engine", g_strdup (why),
                                 agents_docker_test_skip, g_free);
      return g_test_run ();
    }
  agents_conformance_add_tests (&docker);
  return agents_docker_test_run_and_reap ();
}
