/* s3mount-read-tool.c - the tool that mounts a read-only bucket on the host
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * rclone's FUSE mount reads a large object at 1.4 to 1.9 times the time
 * `rclone cat` takes for it: its daemon spends more CPU serving 128 KiB
 * FUSE reads out of its read-ahead buffer than the download itself costs,
 * and no rclone setting (chunk size, buffer size, read-ahead, the go-fuse
 * `mount2`) brings it under 1.2 (docs/performance.md, "S3 mounts").
 * s3fs loads the object in parallel ranged GETs and serves the reads from
 * a local file, at about the cost of `rclone cat`. So a read-only mount
 * whose strategy names rclone, without any of rclone's own settings, is
 * mounted by s3fs when the host has it; rclone still checks the bucket
 * first (its probe gives the error a message). Writable mounts, and any
 * rclone pattern with `vfs_cache_mode`, `cache_dir` or `extra_args` set,
 * stay with rclone.
 *
 * The docker in_container strategy chooses the same way inside the
 * container: s3fs when the container has it (`command -v s3fs`, asked
 * while preparing the mount), rclone otherwise (s3mount-sandbox.c).
 */

#include "config.h"

#include "s3mount-host-private.h"

static gboolean
has_comma (const char *value)
{
  return value != NULL && strchr (value, ',') != NULL;
}

gboolean
s3mount_read_only_may_use_s3fs (AgentsS3Mount *mount,
                                AgentsMountPattern *pattern)
{
  const char *const *extra_args;

  if (!agents_mount_get_read_only (AGENTS_MOUNT (mount)) ||
      !AGENTS_IS_RCLONE_MOUNT_PATTERN (pattern))
    return FALSE;

  /* Settings of rclone's own ask for rclone. */
  extra_args = agents_mount_pattern_get_extra_args (pattern);
  if ((extra_args != NULL && extra_args[0] != NULL) ||
      agents_mount_pattern_get_cache_dir (pattern) != NULL ||
      agents_rclone_mount_pattern_get_vfs_cache_mode (
        AGENTS_RCLONE_MOUNT_PATTERN (pattern)) != NULL)
    return FALSE;

  /* Without keys rclone finds ambient credentials (env_auth) where s3fs
   * would look elsewhere; s3fs reads its `-o` values comma-separated. */
  return agents_s3_mount_get_access_key_id (mount) != NULL &&
         !has_comma (agents_s3_mount_get_endpoint_url (mount)) &&
         !has_comma (agents_s3_mount_get_region (mount));
}

gboolean
s3mount_read_only_uses_s3fs (AgentsS3Mount *mount, AgentsMountPattern *pattern)
{
  g_autofree char *s3fs = NULL;

  if (!s3mount_read_only_may_use_s3fs (mount, pattern))
    return FALSE;
  s3fs = g_find_program_in_path ("s3fs");
  return s3fs != NULL;
}
