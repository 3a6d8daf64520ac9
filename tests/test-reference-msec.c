/* test-reference-msec.c - reference cases MSEC-*: mount credential
 * boundary and redaction (../shared/spec/reference-cases.md)
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "test-utils.h"

static void
skip_boundary (void)
{
  g_test_skip ("the mount credential boundary (MountConfig refusal of an "
               "unsafe manifest before persist/hydrate, mount "
               "acknowledgements) is not built");
}

static void
skip_redaction (void)
{
  g_test_skip ("redaction of errors as “protected mount configuration” "
               "(client delete, pre-stop hooks, capability failures) is "
               "not built");
}

static void
skip_host_path_rebind (void)
{
  g_test_skip ("rebinding persisted host_path grants from the trusted "
               "manifest on resume through the session manager is not "
               "built");
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/reference-cases/MSEC-02", skip_boundary);
  g_test_add_func ("/reference-cases/MSEC-04", skip_redaction);
  g_test_add_func ("/reference-cases/MSEC-06", skip_boundary);
  g_test_add_func ("/reference-cases/MSEC-08", skip_host_path_rebind);
  g_test_add_func ("/reference-cases/MSEC-10", skip_redaction);
  g_test_add_func ("/reference-cases/MSEC-12", skip_host_path_rebind);

  return g_test_run ();
}
