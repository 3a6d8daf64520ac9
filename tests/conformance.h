/* conformance.h - one test suite that every sandbox backend must pass
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <agents.h>

G_BEGIN_DECLS

/**
 * AgentsConformanceBackend:
 * @name: the backend's name in the test paths, `/conformance/<name>/…`
 * @new_client: returns a new client of the backend (transfer full)
 * @options: returns the `a{sv}` options given to create (transfer full
 *   or floating), or %NULL for the backend's defaults; may itself be
 *   %NULL
 * @host_visible_root: whether the workspace root is a directory of the
 *   host that the suite may choose and inspect. The suite then creates a
 *   fresh temporary directory per test, with the root and an "outside"
 *   sentinel directory in it, and checks both on the host.
 * @root: the manifest root for backends whose root is not host visible
 *   (%NULL: %AGENTS_MANIFEST_DEFAULT_ROOT)
 * @outside_dir: for backends whose root is not host visible, an absolute
 *   directory outside the root that commands run with exec can create and
 *   inspect; the suite keeps its sentinel there. %NULL: the tests that
 *   need a sentinel are skipped.
 * @confined_exec: whether commands run with exec are confined to the
 *   root, so that the suite may check that what the agent runs cannot
 *   reach the sentinel either (only with @host_visible_root)
 *
 * How the conformance suite reaches a backend. Tests only use the public
 * session API, plus direct host inspection when @host_visible_root is set.
 */
typedef struct
{
  const char *name;
  AgentsSandboxClient *(*new_client) (void);
  GVariant *(*options) (void);
  gboolean host_visible_root;
  const char *root;
  const char *outside_dir;
  gboolean confined_exec;
  /* A snapshot's relative symlink that leaves the root cannot be restored
   * (the Docker engine refuses to extract it): refused as symlink_escape. */
  gboolean refuses_outward_relative_links;
  /* Hydrate is strict, as the reference's unix_local hydrate: a symlink
   * member leading out of the root (absolute, or relative and outward) is
   * refused as WORKSPACE_ARCHIVE_WRITE naming the member, where other
   * backends keep it (or fail on the write through it). */
  gboolean strict_hydrate_links;
} AgentsConformanceBackend;

/* Registers the suite's tests for @backend, which must stay valid until
 * g_test_run() returns. */
void agents_conformance_add_tests (const AgentsConformanceBackend *backend);

/* The number of cases of the hostile path corpus. */
guint agents_conformance_get_n_hostile_paths (void);

G_END_DECLS
