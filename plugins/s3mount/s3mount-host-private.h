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

/* @text with @mount's secrets and any URL userinfo replaced by
 * REDACTED. */
char *s3mount_redact (AgentsS3Mount *mount, const char *text);

/* Whether @path is a mount point in this process's mount namespace. */
gboolean s3mount_path_is_mounted (const char *path);

G_END_DECLS
