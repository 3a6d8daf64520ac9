/* fuzz-agent-file.c - libFuzzer harness: the `agents` program's agent
 * files (tools/agents-agent-file.c), read from a memfd by path
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <sys/mman.h>
#include <unistd.h>

#include <agents.h>

#include "agents-agent-file.h"
#include "fuzz-common.h"

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  static int fd = -1;
  static char *path;
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsAgent) agent = NULL;

  fuzz_init ();
  if (fd < 0)
    {
      fd = memfd_create ("agent.json", MFD_CLOEXEC);
      g_assert_cmpint (fd, >=, 0);
      path = g_strdup_printf ("/proc/self/fd/%d", fd);
    }
  g_assert_cmpint (ftruncate (fd, 0), ==, 0);
  g_assert_cmpint (pwrite (fd, data, size, 0), ==, (ssize_t) size);

  agent = agents_cli_load_agent_file (path, &error);
  if (agent == NULL)
    g_assert_nonnull (error);
  else
    agents_cli_release_models (agent, 0);
  return 0;
}
