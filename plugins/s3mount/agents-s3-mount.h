/* agents-s3-mount.h - the "s3_mount" manifest entry
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Private to the s3mount plugin and its tests: applications reach these
 * types through the registry and JSON ("type": "s3_mount").
 */

#pragma once

#include <agents.h>

G_BEGIN_DECLS

typedef struct _AgentsS3Mount AgentsS3Mount;

/* ---- MountPattern: the FUSE tool that mounts a bucket ----------------- */

#define AGENTS_TYPE_MOUNT_PATTERN (agents_mount_pattern_get_type ())

G_DECLARE_DERIVABLE_TYPE (
  AgentsMountPattern, agents_mount_pattern, AGENTS, MOUNT_PATTERN, GObject)

/*
 * AgentsMountPatternClass:
 * @type_name: the JSON `type` discriminator
 * @serialize_fields: adds the subclass's members after the common ones
 * @deserialize_fields: reads them back, judging only their JSON types
 * @validate: checks the subclass's members
 * @build_mount_argv: appends the mount command line to @argv; the mount is
 *   already validated and @path is absolute
 * @build_environ: adds the credentials to @envp (`NAME=value` strings)
 */
struct _AgentsMountPatternClass
{
  GObjectClass parent_class;

  const char *type_name;

  void (*serialize_fields) (AgentsMountPattern *self, JsonBuilder *builder);
  gboolean (*deserialize_fields) (AgentsMountPattern *self,
                                  JsonObject *object,
                                  GError **error);
  gboolean (*validate) (AgentsMountPattern *self, GError **error);
  void (*build_mount_argv) (AgentsMountPattern *self,
                            AgentsS3Mount *mount,
                            const char *path,
                            GPtrArray *argv);
  char **(*build_environ) (AgentsMountPattern *self,
                           AgentsS3Mount *mount,
                           char **envp);
};

const char *agents_mount_pattern_get_type_name (AgentsMountPattern *self);
const char *agents_mount_pattern_get_cache_dir (AgentsMountPattern *self);
void agents_mount_pattern_set_cache_dir (AgentsMountPattern *self,
                                         const char *cache_dir);
const char *const *
agents_mount_pattern_get_extra_args (AgentsMountPattern *self);
void agents_mount_pattern_set_extra_args (AgentsMountPattern *self,
                                          const char *const *extra_args);

JsonNode *agents_mount_pattern_to_json (AgentsMountPattern *self);
AgentsMountPattern *agents_mount_pattern_new_from_json (JsonNode *node,
                                                        GError **error);
AgentsMountPattern *agents_mount_pattern_copy (AgentsMountPattern *self);
gboolean agents_mount_pattern_equal (AgentsMountPattern *a,
                                     AgentsMountPattern *b);
gboolean agents_mount_pattern_validate (AgentsMountPattern *self,
                                        GError **error);

char **agents_mount_pattern_build_mount_argv (AgentsMountPattern *self,
                                              AgentsS3Mount *mount,
                                              const char *path,
                                              GError **error);
char **agents_mount_pattern_build_unmount_argv (AgentsMountPattern *self,
                                                const char *path,
                                                GError **error);
char **agents_mount_pattern_build_environ (AgentsMountPattern *self,
                                           AgentsS3Mount *mount);

#define AGENTS_TYPE_MOUNTPOINT_MOUNT_PATTERN \
  (agents_mountpoint_mount_pattern_get_type ())
G_DECLARE_FINAL_TYPE (AgentsMountpointMountPattern,
                      agents_mountpoint_mount_pattern,
                      AGENTS,
                      MOUNTPOINT_MOUNT_PATTERN,
                      AgentsMountPattern)

AgentsMountPattern *agents_mountpoint_mount_pattern_new (void);

#define AGENTS_TYPE_S3FS_MOUNT_PATTERN (agents_s3fs_mount_pattern_get_type ())
G_DECLARE_FINAL_TYPE (AgentsS3fsMountPattern,
                      agents_s3fs_mount_pattern,
                      AGENTS,
                      S3FS_MOUNT_PATTERN,
                      AgentsMountPattern)

AgentsMountPattern *agents_s3fs_mount_pattern_new (void);

#define AGENTS_TYPE_RCLONE_MOUNT_PATTERN \
  (agents_rclone_mount_pattern_get_type ())
G_DECLARE_FINAL_TYPE (AgentsRcloneMountPattern,
                      agents_rclone_mount_pattern,
                      AGENTS,
                      RCLONE_MOUNT_PATTERN,
                      AgentsMountPattern)

/* The rclone remote that the RCLONE_CONFIG_S3MOUNT_* variables define. */
#define AGENTS_RCLONE_REMOTE_NAME "s3mount"

AgentsMountPattern *agents_rclone_mount_pattern_new (void);
const char *
agents_rclone_mount_pattern_get_vfs_cache_mode (AgentsRcloneMountPattern *self);
void
agents_rclone_mount_pattern_set_vfs_cache_mode (AgentsRcloneMountPattern *self,
                                                const char *vfs_cache_mode);

/* ---- MountStrategy: where the mount command runs ---------------------- */

#define AGENTS_TYPE_MOUNT_STRATEGY (agents_mount_strategy_get_type ())

G_DECLARE_DERIVABLE_TYPE (
  AgentsMountStrategy, agents_mount_strategy, AGENTS, MOUNT_STRATEGY, GObject)

/*
 * AgentsMountStrategyClass:
 * @type_name: the JSON `type` discriminator
 * @serialize_fields: adds the subclass's members after `type`
 * @deserialize_fields: reads them back
 * @validate: checks the strategy's members
 * @build_mount_argv: the command that mounts @mount at @path
 * @build_unmount_argv: the command that unmounts @path
 * @build_environ: the environment (credentials) of the mount command
 */
struct _AgentsMountStrategyClass
{
  GObjectClass parent_class;

  const char *type_name;

  void (*serialize_fields) (AgentsMountStrategy *self, JsonBuilder *builder);
  gboolean (*deserialize_fields) (AgentsMountStrategy *self,
                                  JsonObject *object,
                                  GError **error);
  gboolean (*validate) (AgentsMountStrategy *self, GError **error);
  char **(*build_mount_argv) (AgentsMountStrategy *self,
                              AgentsS3Mount *mount,
                              const char *path,
                              GError **error);
  char **(*build_unmount_argv) (AgentsMountStrategy *self,
                                const char *path,
                                GError **error);
  char **(*build_environ) (AgentsMountStrategy *self, AgentsS3Mount *mount);
};

const char *agents_mount_strategy_get_type_name (AgentsMountStrategy *self);
JsonNode *agents_mount_strategy_to_json (AgentsMountStrategy *self);
AgentsMountStrategy *agents_mount_strategy_new_from_json (JsonNode *node,
                                                          GError **error);
AgentsMountStrategy *agents_mount_strategy_copy (AgentsMountStrategy *self);
gboolean agents_mount_strategy_equal (AgentsMountStrategy *a,
                                      AgentsMountStrategy *b);
gboolean agents_mount_strategy_validate (AgentsMountStrategy *self,
                                         GError **error);
char **agents_mount_strategy_build_mount_argv (AgentsMountStrategy *self,
                                               AgentsS3Mount *mount,
                                               const char *path,
                                               GError **error);
char **agents_mount_strategy_build_unmount_argv (AgentsMountStrategy *self,
                                                 const char *path,
                                                 GError **error);
char **agents_mount_strategy_build_environ (AgentsMountStrategy *self,
                                            AgentsS3Mount *mount);

#define AGENTS_TYPE_IN_CONTAINER_MOUNT_STRATEGY \
  (agents_in_container_mount_strategy_get_type ())
G_DECLARE_FINAL_TYPE (AgentsInContainerMountStrategy,
                      agents_in_container_mount_strategy,
                      AGENTS,
                      IN_CONTAINER_MOUNT_STRATEGY,
                      AgentsMountStrategy)

AgentsMountStrategy *
agents_in_container_mount_strategy_new (AgentsMountPattern *pattern);
AgentsMountPattern *agents_in_container_mount_strategy_get_pattern (
  AgentsInContainerMountStrategy *self);
void agents_in_container_mount_strategy_set_pattern (
  AgentsInContainerMountStrategy *self, AgentsMountPattern *pattern);

#define AGENTS_TYPE_DOCKER_VOLUME_MOUNT_STRATEGY \
  (agents_docker_volume_mount_strategy_get_type ())
G_DECLARE_FINAL_TYPE (AgentsDockerVolumeMountStrategy,
                      agents_docker_volume_mount_strategy,
                      AGENTS,
                      DOCKER_VOLUME_MOUNT_STRATEGY,
                      AgentsMountStrategy)

AgentsMountStrategy *
agents_docker_volume_mount_strategy_new (const char *driver);
const char *agents_docker_volume_mount_strategy_get_driver (
  AgentsDockerVolumeMountStrategy *self);
AgentsMountPattern *agents_docker_volume_mount_strategy_dup_pattern (
  AgentsDockerVolumeMountStrategy *self);

/* ---- S3Mount ---------------------------------------------------------- */

#define AGENTS_TYPE_S3_MOUNT (agents_s3_mount_get_type ())
G_DECLARE_FINAL_TYPE (
  AgentsS3Mount, agents_s3_mount, AGENTS, S3_MOUNT, AgentsMount)

AgentsManifestEntry *agents_s3_mount_new (const char *bucket,
                                          AgentsMountStrategy *strategy);

const char *agents_s3_mount_get_bucket (AgentsS3Mount *self);
void agents_s3_mount_set_bucket (AgentsS3Mount *self, const char *bucket);
const char *agents_s3_mount_get_access_key_id (AgentsS3Mount *self);
void agents_s3_mount_set_access_key_id (AgentsS3Mount *self,
                                        const char *access_key_id);
const char *agents_s3_mount_get_secret_access_key (AgentsS3Mount *self);
void agents_s3_mount_set_secret_access_key (AgentsS3Mount *self,
                                            const char *secret_access_key);
const char *agents_s3_mount_get_session_token (AgentsS3Mount *self);
void agents_s3_mount_set_session_token (AgentsS3Mount *self,
                                        const char *session_token);
const char *agents_s3_mount_get_prefix (AgentsS3Mount *self);
void agents_s3_mount_set_prefix (AgentsS3Mount *self, const char *prefix);
const char *agents_s3_mount_get_region (AgentsS3Mount *self);
void agents_s3_mount_set_region (AgentsS3Mount *self, const char *region);
const char *agents_s3_mount_get_endpoint_url (AgentsS3Mount *self);
void agents_s3_mount_set_endpoint_url (AgentsS3Mount *self,
                                       const char *endpoint_url);
const char *agents_s3_mount_get_s3_provider (AgentsS3Mount *self);
void agents_s3_mount_set_s3_provider (AgentsS3Mount *self,
                                      const char *s3_provider);
AgentsMountStrategy *agents_s3_mount_get_mount_strategy (AgentsS3Mount *self);
void agents_s3_mount_set_mount_strategy (AgentsS3Mount *self,
                                         AgentsMountStrategy *strategy);

gboolean agents_s3_mount_validate (AgentsS3Mount *self, GError **error);
char *agents_s3_mount_to_string (AgentsS3Mount *self);
char *agents_s3_mount_dup_normalized_prefix (AgentsS3Mount *self);

/* Registers "s3_mount" with the registry (for programs linking the plugin
 * statically; the module registers it through its extension point). */
void agents_s3mount_register_types (void);

G_END_DECLS
