/* fuzz-session-state.c - libFuzzer harness: sandbox session states (of
 * the unix_local and docker backends) read from hostile JSON, then
 * serialized and read again
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <agents.h>

#include "agents-docker-client.h"
#include "agents-json-private.h"
#include "agents-unix-local-client.h"
#include "fuzz-common.h"

static void
round_trip (AgentsSandboxClient *client, JsonNode *payload)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsSandboxSessionState) state = NULL;
  g_autoptr (AgentsSandboxSessionState) again = NULL;
  g_autoptr (JsonNode) saved = NULL;

  state =
    agents_sandbox_client_deserialize_session_state (client, payload, &error);
  if (state == NULL)
    {
      g_assert_nonnull (error);
      return;
    }
  saved = agents_sandbox_client_serialize_session_state (client, state);
  g_assert_nonnull (saved);
  again =
    agents_sandbox_client_deserialize_session_state (client, saved, &error);
  /* What the library wrote, it reads back. */
  g_assert_no_error (error);
  g_assert_nonnull (again);
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  static AgentsSandboxClient *unix_local, *docker;
  g_autoptr (JsonNode) payload = NULL;

  fuzz_init ();
  if (unix_local == NULL)
    {
      unix_local = agents_unix_local_client_new ();
      docker = agents_docker_client_new ();
    }
  payload = agents_json_parse_bounded ((const char *) data, size,
                                       "session state", NULL);
  if (payload == NULL)
    return 0;
  round_trip (unix_local, payload);
  round_trip (docker, payload);
  return 0;
}
