/* fuzz-ls.c - libFuzzer harness: the parser of `ls -la` output that the
 * generic session's ls reads from a sandbox (agents_file_entry_parse_ls)
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
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) entries = NULL;

  fuzz_init ();
  entries = agents_file_entry_parse_ls (text, "/workspace/dir", &error);
  if (entries == NULL)
    g_assert_nonnull (error);
  return 0;
}
