/* test-reference-instructions.c - reference cases INSTR-*: instruction
 * assembly and the remote mount policy (../shared/spec/reference-cases.md)
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "agents-s3-mount.h"
#include "test-utils.h"

static AgentsManifestEntry *
s3_mount (gboolean read_only)
{
  g_autoptr (AgentsMountPattern) pattern =
    agents_mountpoint_mount_pattern_new ();
  g_autoptr (AgentsMountStrategy) strategy =
    agents_in_container_mount_strategy_new (pattern);
  AgentsManifestEntry *mount = agents_s3_mount_new ("bucket", strategy);

  agents_mount_set_read_only (AGENTS_MOUNT (mount), read_only);
  return mount;
}

/* INSTR-08 */
static void
test_truncated_tree_tells_model_to_ls (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *description = g_strnfill (40, 'x');
  g_autofree char *section = NULL;
  g_autofree char *full = NULL;
  g_autofree char *capped = NULL;

  for (guint i = 0; i < 200; i++)
    {
      g_autofree char *name = g_strdup_printf ("file_%03u.txt", i);
      g_autoptr (AgentsManifestEntry) file = agents_file_new_from_text ("");

      agents_manifest_entry_set_description (file, description);
      agents_manifest_set_entry (manifest, name, file);
    }

  section = agents_sandbox_filesystem_instructions (manifest);
  g_assert_nonnull (strstr (section, "... (truncated "));
  g_assert_nonnull (
    strstr (section, "The filesystem layout above was truncated. Use `ls` to "
                     "explore specific directories before relying on omitted "
                     "paths."));

  full = agents_sandbox_describe_manifest (manifest, 3, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_utf8_strlen (full, -1), ==, 17411);
  capped = agents_sandbox_describe_manifest (manifest, 3, 5000, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_utf8_strlen (capped, -1), ==, 5000);
  g_assert_nonnull (strstr (capped, "... (truncated 12558 chars)"));
}

/* INSTR-10 */
static void
test_remote_mount_policy_read_write (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsManifestEntry) mount = s3_mount (FALSE);
  g_autofree char *policy = NULL;

  agents_manifest_set_entry (manifest, "data", mount);
  policy = agents_sandbox_remote_mount_policy (manifest);
  g_assert_nonnull (policy);
  g_assert_nonnull (
    strstr (policy, "/workspace/data (mounted in read+write mode)"));
  g_assert_nonnull (strstr (
    policy, "Use `apply_patch` directly for text edits on read+write mounts."));
  g_assert_nonnull (
    strstr (policy, "For shell-based edits on read+write mounts"));
  g_assert_nonnull (strstr (policy, "copy it back"));
  g_assert_null (strstr (policy, "Do not edit paths marked read-only"));
}

/* INSTR-12 */
static void
test_remote_mount_policy_none_without_mounts (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsManifestEntry) dir = agents_dir_new ();
  g_autofree char *policy = NULL;

  agents_manifest_set_entry (manifest, "local", dir);
  policy = agents_sandbox_remote_mount_policy (manifest);
  g_assert_null (policy);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/reference-cases/INSTR-08",
                   test_truncated_tree_tells_model_to_ls);
  g_test_add_func ("/reference-cases/INSTR-10",
                   test_remote_mount_policy_read_write);
  g_test_add_func ("/reference-cases/INSTR-12",
                   test_remote_mount_policy_none_without_mounts);

  return g_test_run ();
}
