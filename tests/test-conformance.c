/* test-conformance.c - the backend conformance suite against unix_local
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-unix-local-client.h"
#include "conformance.h"
#include "test-utils.h"

static AgentsSandboxClient *
new_unix_local_client (void)
{
  g_autoptr (GError) error = NULL;
  AgentsSandboxClient *client =
    agents_registry_new_sandbox_client ("unix_local", &error);

  g_assert_no_error (error);
  return client;
}

static GVariant *
unconfined_options (void)
{
  return g_variant_new_parsed ("{'confinement': <'none'>}");
}

/* The root is a directory of the host that the suite chooses and
 * inspects; commands are confined to it. */
static const AgentsConformanceBackend unix_local = {
  .name = "unix_local",
  .new_client = new_unix_local_client,
  .host_visible_root = TRUE,
  .confined_exec = TRUE,
  .strict_hydrate_links = TRUE,
};

/* Without confinement, as the reference runs commands on Linux: then
 * the path checks alone keep the operations inside. */
static const AgentsConformanceBackend unix_local_unconfined = {
  .name = "unix_local-unconfined",
  .new_client = new_unix_local_client,
  .options = unconfined_options,
  .host_visible_root = TRUE,
  .strict_hydrate_links = TRUE,
};

/* The same backend with its own temporary root, seen only through the
 * session API, as the suite sees a backend whose root the host cannot
 * inspect. */
static const AgentsConformanceBackend unix_local_opaque = {
  .name = "unix_local-opaque",
  .new_client = new_unix_local_client,
  .host_visible_root = FALSE,
  .strict_hydrate_links = TRUE,
};

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  agents_unix_local_register_types ();

  agents_conformance_add_tests (&unix_local);
  agents_conformance_add_tests (&unix_local_unconfined);
  agents_conformance_add_tests (&unix_local_opaque);

  return g_test_run ();
}
