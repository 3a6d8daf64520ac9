/* s3mount-host-private.h - mounting a bucket on the host
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-host-bind-private.h"
#include "agents-s3-mount-private.h"

G_BEGIN_DECLS

/* Mounts @mount with @pattern's tool on the host, in a directory the
 * library owns, and shows it at @dest in @session (a host bind). On
 * failure nothing is left behind; the error (MOUNT_FAILED, or
 * MOUNT_CONFIG) names bucket and endpoint, never a secret. */
void s3mount_host_mount (AgentsS3Mount *mount,
                         AgentsMountPattern *pattern,
                         AgentsSandboxSession *session,
                         const char *dest,
                         GTask *task);

/* Unmounts what s3mount_host_mount() bound at @bind->sandbox_path; only
 * once nothing is mounted there any more are the bind and the owned
 * directory removed. */
void s3mount_host_unmount (AgentsS3Mount *mount,
                           AgentsSandboxSession *session,
                           const AgentsHostBind *bind,
                           GTask *task);

/* The mount command of @pattern for @mount at @mnt_dir, with rclone's
 * configuration file @config and cache @cache (unless the pattern names
 * one), and allow_other when asked. */
char **s3mount_tool_argv (AgentsS3Mount *mount,
                          AgentsMountPattern *pattern,
                          const char *mnt_dir,
                          const char *config,
                          const char *cache,
                          gboolean allow_other,
                          GError **error);

/* @envp with the entries of @more added or replaced (@more is
 * consumed). */
char **s3mount_merge_environ (char **envp, char **more);

/* Whether a mount of @mount, whose strategy names @pattern, may be made
 * by s3fs rather than rclone where s3fs is installed: read-only,
 * rclone's pattern without settings of rclone's own and keys in the
 * entry (see s3mount-read-tool.c). */
gboolean s3mount_read_only_may_use_s3fs (AgentsS3Mount *mount,
                                         AgentsMountPattern *pattern);

/* Whether the host mount of @mount, whose strategy names @pattern, is
 * made by s3fs rather than rclone: read-only, rclone's pattern without
 * settings of rclone's own, keys in the entry and s3fs installed (see
 * s3mount-read-tool.c). */
gboolean s3mount_read_only_uses_s3fs (AgentsS3Mount *mount,
                                      AgentsMountPattern *pattern);

/* Mounts @mount with @pattern's tool (s3fs in rclone's place where
 * s3mount_read_only_may_use_s3fs() and the container has s3fs) run
 * inside @session's sandbox (a docker container with /dev/fuse and
 * SYS_ADMIN) at @dest. The
 * credentials travel in a 0600 file of a 0700 directory, sourced by sh
 * and removed before the tool starts; on failure nothing is left
 * behind and the error names bucket and endpoint, never a secret. */
void s3mount_sandbox_mount (AgentsS3Mount *mount,
                            AgentsMountPattern *pattern,
                            AgentsSandboxSession *session,
                            const char *dest,
                            GTask *task);

/* Unmounts what s3mount_sandbox_mount() mounted at @dest, after the
 * files written to it are uploaded. */
void s3mount_sandbox_unmount (AgentsS3Mount *mount,
                              AgentsSandboxSession *session,
                              const char *dest,
                              GTask *task);

/* `export NAME='value'` lines for sh, one per entry of @envp. */
char *s3mount_env_file_text (char **envp);

/* Error context: the path, bucket, endpoint and (redacted) stderr. */
GVariant *s3mount_error_context (AgentsS3Mount *mount,
                                 const char *dest,
                                 const char *stderr_text);

/* @text with @mount's secrets and any URL userinfo replaced by
 * REDACTED. */
char *s3mount_redact (AgentsS3Mount *mount, const char *text);

/* Whether @path is a mount point in this process's mount namespace. */
gboolean s3mount_path_is_mounted (const char *path);

G_END_DECLS
