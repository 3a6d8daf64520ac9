/* fuzz-manifest.c - libFuzzer harness: manifests (and their entries)
 * read from hostile JSON text, then written back, copied and compared
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
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsManifest) manifest = NULL;
  g_autoptr (AgentsManifest) copy = NULL;
  g_autoptr (JsonNode) node = NULL;
  g_autoptr (AgentsManifest) again = NULL;

  fuzz_init ();
  manifest = agents_manifest_new_from_data ((const char *) data, size, &error);
  if (manifest == NULL)
    {
      g_assert_nonnull (error);
      return 0;
    }
  copy = agents_manifest_copy (manifest);
  g_assert_true (agents_manifest_equal (manifest, copy));
  node = agents_manifest_to_json (manifest);
  again = agents_manifest_new_from_json (node, &error);
  /* What the library wrote, it reads back as the same manifest. */
  g_assert_no_error (error);
  g_assert_true (agents_manifest_equal (manifest, again));
  return 0;
}
