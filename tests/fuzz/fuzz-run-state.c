/* fuzz-run-state.c - libFuzzer harness: run states read from hostile
 * JSON text, then written back and read again
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <agents.h>

#include "fuzz-common.h"

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  g_autofree char *text = fuzz_strndup (data, size);
  g_autoptr (AgentsAgent) agent = NULL;
  g_autoptr (AgentsAgent) helper = NULL;
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (AgentsRunState) again = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *json = NULL;

  fuzz_init ();
  /* A graph of two agents, so that saved names can be found or not. */
  agent = agents_agent_new ("Tester");
  helper = agents_agent_new ("Helper");
  agents_agent_add_handoff (agent, G_OBJECT (helper));
  state = agents_run_state_new_from_json (agent, text, &error);
  if (state == NULL)
    {
      g_assert_nonnull (error);
      return 0;
    }
  json = agents_run_state_to_json (state);
  again = agents_run_state_new_from_json (agent, json, &error);
  g_assert_no_error (error);
  g_assert_nonnull (again);
  return 0;
}
