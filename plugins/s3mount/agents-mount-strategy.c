/* agents-mount-strategy.c - where the command that mounts a bucket runs
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-sandbox-error-private.h"
#include "agents-s3-mount-private.h"
#include "agents-typed-json-private.h"

/**
 * AgentsMountStrategy:
 *
 * How an #AgentsS3Mount gets mounted: plain data with a JSON form
 * (`{"type": "in_container", …}`) that builds the mount and unmount
 * command lines and the mount command's environment.
 *
 * Strategies are a family of the typed-JSON mechanism (#AgentsTypedJson),
 * registered under their `type` (`docker_volume`, `in_container`).
 */

G_DEFINE_ABSTRACT_TYPE (AgentsMountStrategy,
                        agents_mount_strategy,
                        G_TYPE_OBJECT)

static AgentsTypedJsonFamily strategy_family;

static void
agents_mount_strategy_class_init (AgentsMountStrategyClass *klass)
{
  strategy_family.base = G_TYPE_FROM_CLASS (klass);
  agents_typed_json_define_family (&strategy_family);
}

static void
agents_mount_strategy_init (AgentsMountStrategy *self)
{
}

const char *
agents_mount_strategy_get_type_name (AgentsMountStrategy *self)
{
  g_return_val_if_fail (AGENTS_IS_MOUNT_STRATEGY (self), NULL);

  return AGENTS_MOUNT_STRATEGY_GET_CLASS (self)->type_name;
}

/* ---- JSON: the typed-JSON family of mount strategies ----------------- */

static void
write_strategy_fields (GObject *object, JsonBuilder *builder)
{
  AgentsMountStrategy *self = AGENTS_MOUNT_STRATEGY (object);
  AgentsMountStrategyClass *klass = AGENTS_MOUNT_STRATEGY_GET_CLASS (self);

  if (klass->serialize_fields != NULL)
    klass->serialize_fields (self, builder);
}

/* Reads the shape of the members without judging their values. */
static gboolean
read_strategy_fields (GObject *object, JsonObject *json, GError **error)
{
  AgentsMountStrategy *self = AGENTS_MOUNT_STRATEGY (object);
  AgentsMountStrategyClass *klass = AGENTS_MOUNT_STRATEGY_GET_CLASS (self);

  return klass->deserialize_fields == NULL ||
         klass->deserialize_fields (self, json, error);
}

static char *
unknown_strategy_message (const char *type_name, const char *known)
{
  return g_strdup_printf (_ ("unknown mount strategy “%s” (known: %s)"),
                          type_name, known);
}

static gboolean
read_strategy_type_name (JsonNode *node, char **type_name, GError **error)
{
  return s3mount_typed_read_type_name ("mount strategy", node, type_name,
                                       error);
}

static const char *
strategy_type_name_of (GObject *self)
{
  return AGENTS_MOUNT_STRATEGY_GET_CLASS (self)->type_name;
}

/* Completed (its base) when the class is initialized. */
static AgentsTypedJsonFamily strategy_family = {
  .label = N_ ("mount strategy"),
  .member = "mount strategy",
  .unknown_type_message = unknown_strategy_message,
  .read_type_name = read_strategy_type_name,
  .type_name_of = strategy_type_name_of,
  .write_fields = write_strategy_fields,
  .read_fields = read_strategy_fields,
};

JsonNode *
agents_mount_strategy_to_json (AgentsMountStrategy *self)
{
  g_return_val_if_fail (AGENTS_IS_MOUNT_STRATEGY (self), NULL);

  return agents_typed_json_to_json (AGENTS_TYPE_MOUNT_STRATEGY,
                                    G_OBJECT (self));
}

AgentsMountStrategy *
agents_mount_strategy_new_from_json (JsonNode *node, GError **error)
{
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return s3mount_typed_new_valid (
    AGENTS_TYPE_MOUNT_STRATEGY, node,
    (S3mountValidateFunc) agents_mount_strategy_validate, error);
}

AgentsMountStrategy *
agents_mount_strategy_copy (AgentsMountStrategy *self)
{
  g_return_val_if_fail (AGENTS_IS_MOUNT_STRATEGY (self), NULL);

  return AGENTS_MOUNT_STRATEGY (
    agents_typed_json_copy (AGENTS_TYPE_MOUNT_STRATEGY, G_OBJECT (self)));
}

gboolean
agents_mount_strategy_equal (AgentsMountStrategy *a, AgentsMountStrategy *b)
{
  return agents_typed_json_equal (AGENTS_TYPE_MOUNT_STRATEGY, G_OBJECT (a),
                                  G_OBJECT (b));
}

gboolean
agents_mount_strategy_validate (AgentsMountStrategy *self, GError **error)
{
  AgentsMountStrategyClass *klass;

  g_return_val_if_fail (AGENTS_IS_MOUNT_STRATEGY (self), FALSE);

  klass = AGENTS_MOUNT_STRATEGY_GET_CLASS (self);
  return klass->validate == NULL || klass->validate (self, error);
}

/**
 * agents_mount_strategy_build_mount_argv:
 * @self: a strategy
 * @mount: the mount
 * @path: where to mount it, an absolute path
 * @error: return location for a #GError
 *
 * Builds the command line that mounts @mount at @path.
 *
 * Returns: (transfer full): the argv, or %NULL with @error set
 */
char **
agents_mount_strategy_build_mount_argv (AgentsMountStrategy *self,
                                        AgentsS3Mount *mount,
                                        const char *path,
                                        GError **error)
{
  g_return_val_if_fail (AGENTS_IS_MOUNT_STRATEGY (self), NULL);

  return AGENTS_MOUNT_STRATEGY_GET_CLASS (self)->build_mount_argv (self, mount,
                                                                   path, error);
}

/**
 * agents_mount_strategy_build_unmount_argv:
 * @self: a strategy
 * @path: the mount point, an absolute path
 * @error: return location for a #GError
 *
 * Builds the command line that unmounts @path.
 *
 * Returns: (transfer full): the argv, or %NULL with @error set
 */
char **
agents_mount_strategy_build_unmount_argv (AgentsMountStrategy *self,
                                          const char *path,
                                          GError **error)
{
  g_return_val_if_fail (AGENTS_IS_MOUNT_STRATEGY (self), NULL);

  return AGENTS_MOUNT_STRATEGY_GET_CLASS (self)->build_unmount_argv (self, path,
                                                                     error);
}

/**
 * agents_mount_strategy_build_environ:
 * @self: a strategy
 * @mount: the mount
 *
 * Builds the environment, with the credentials, of the mount command.
 *
 * Returns: (transfer full): `NAME=value` strings
 */
char **
agents_mount_strategy_build_environ (AgentsMountStrategy *self,
                                     AgentsS3Mount *mount)
{
  g_return_val_if_fail (AGENTS_IS_MOUNT_STRATEGY (self), NULL);

  return AGENTS_MOUNT_STRATEGY_GET_CLASS (self)->build_environ (self, mount);
}

/* ---- in_container ----------------------------------------------------- */

/**
 * AgentsInContainerMountStrategy:
 *
 * Mounts inside the sandbox, by running the FUSE tool of its `pattern`
 * there: `{"type": "in_container", "pattern": {"type": "mountpoint", …}}`.
 */
struct _AgentsInContainerMountStrategy
{
  AgentsMountStrategy parent_instance;

  AgentsMountPattern *pattern;
};

G_DEFINE_FINAL_TYPE (AgentsInContainerMountStrategy,
                     agents_in_container_mount_strategy,
                     AGENTS_TYPE_MOUNT_STRATEGY)

enum
{
  PROP_0,
  PROP_PATTERN,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

#define IN_CONTAINER(s) AGENTS_IN_CONTAINER_MOUNT_STRATEGY (s)

static void
in_container_serialize_fields (AgentsMountStrategy *strategy,
                               JsonBuilder *builder)
{
  AgentsInContainerMountStrategy *self = IN_CONTAINER (strategy);

  json_builder_set_member_name (builder, "pattern");
  if (self->pattern != NULL)
    json_builder_add_value (builder,
                            agents_mount_pattern_to_json (self->pattern));
  else
    json_builder_add_null_value (builder);
}

static gboolean
in_container_deserialize_fields (AgentsMountStrategy *strategy,
                                 JsonObject *object,
                                 GError **error)
{
  JsonNode *node = json_object_get_member (object, "pattern");
  g_autoptr (AgentsMountPattern) pattern = NULL;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;

  pattern = s3mount_pattern_parse (node, error);
  if (pattern == NULL)
    return FALSE;
  agents_in_container_mount_strategy_set_pattern (IN_CONTAINER (strategy),
                                                  pattern);
  return TRUE;
}

static gboolean
in_container_validate (AgentsMountStrategy *strategy, GError **error)
{
  AgentsInContainerMountStrategy *self = IN_CONTAINER (strategy);

  if (self->pattern == NULL)
    {
      s3mount_set_config_error (error, "in_container", "pattern",
                                _ ("a mount pattern is required"));
      return FALSE;
    }
  return agents_mount_pattern_validate (self->pattern, error);
}

static char **
in_container_build_mount_argv (AgentsMountStrategy *strategy,
                               AgentsS3Mount *mount,
                               const char *path,
                               GError **error)
{
  AgentsInContainerMountStrategy *self = IN_CONTAINER (strategy);

  if (!in_container_validate (strategy, error))
    return NULL;
  return agents_mount_pattern_build_mount_argv (self->pattern, mount, path,
                                                error);
}

static char **
in_container_build_unmount_argv (AgentsMountStrategy *strategy,
                                 const char *path,
                                 GError **error)
{
  AgentsInContainerMountStrategy *self = IN_CONTAINER (strategy);

  if (!in_container_validate (strategy, error))
    return NULL;
  return agents_mount_pattern_build_unmount_argv (self->pattern, path, error);
}

static char **
in_container_build_environ (AgentsMountStrategy *strategy, AgentsS3Mount *mount)
{
  AgentsInContainerMountStrategy *self = IN_CONTAINER (strategy);

  if (self->pattern == NULL)
    return g_new0 (char *, 1);
  return agents_mount_pattern_build_environ (self->pattern, mount);
}

static void
agents_in_container_mount_strategy_dispose (GObject *object)
{
  AgentsInContainerMountStrategy *self = IN_CONTAINER (object);

  g_clear_object (&self->pattern);

  G_OBJECT_CLASS (agents_in_container_mount_strategy_parent_class)
    ->dispose (object);
}

static void
agents_in_container_mount_strategy_get_property (GObject *object,
                                                 guint prop_id,
                                                 GValue *value,
                                                 GParamSpec *pspec)
{
  AgentsInContainerMountStrategy *self = IN_CONTAINER (object);

  switch (prop_id)
    {
    case PROP_PATTERN:
      g_value_set_object (value, self->pattern);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_in_container_mount_strategy_set_property (GObject *object,
                                                 guint prop_id,
                                                 const GValue *value,
                                                 GParamSpec *pspec)
{
  AgentsInContainerMountStrategy *self = IN_CONTAINER (object);

  switch (prop_id)
    {
    case PROP_PATTERN:
      agents_in_container_mount_strategy_set_pattern (
        self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_in_container_mount_strategy_class_init (
  AgentsInContainerMountStrategyClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  AgentsMountStrategyClass *strategy_class =
    AGENTS_MOUNT_STRATEGY_CLASS (klass);

  object_class->dispose = agents_in_container_mount_strategy_dispose;
  object_class->get_property = agents_in_container_mount_strategy_get_property;
  object_class->set_property = agents_in_container_mount_strategy_set_property;

  strategy_class->type_name = "in_container";
  strategy_class->serialize_fields = in_container_serialize_fields;
  strategy_class->deserialize_fields = in_container_deserialize_fields;
  strategy_class->validate = in_container_validate;
  strategy_class->build_mount_argv = in_container_build_mount_argv;
  strategy_class->build_unmount_argv = in_container_build_unmount_argv;
  strategy_class->build_environ = in_container_build_environ;

  properties[PROP_PATTERN] = g_param_spec_object (
    "pattern", NULL, NULL, AGENTS_TYPE_MOUNT_PATTERN,
    G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
agents_in_container_mount_strategy_init (AgentsInContainerMountStrategy *self)
{
}

/**
 * agents_in_container_mount_strategy_new:
 * @pattern: (nullable): the FUSE tool to run in the sandbox
 *
 * Creates a strategy that mounts inside the sandbox.
 *
 * Returns: (transfer full): the strategy
 */
AgentsMountStrategy *
agents_in_container_mount_strategy_new (AgentsMountPattern *pattern)
{
  g_return_val_if_fail (pattern == NULL || AGENTS_IS_MOUNT_PATTERN (pattern),
                        NULL);

  return g_object_new (AGENTS_TYPE_IN_CONTAINER_MOUNT_STRATEGY, "pattern",
                       pattern, NULL);
}

AgentsMountPattern *
agents_in_container_mount_strategy_get_pattern (
  AgentsInContainerMountStrategy *self)
{
  g_return_val_if_fail (AGENTS_IS_IN_CONTAINER_MOUNT_STRATEGY (self), NULL);

  return self->pattern;
}

void
agents_in_container_mount_strategy_set_pattern (
  AgentsInContainerMountStrategy *self, AgentsMountPattern *pattern)
{
  g_return_if_fail (AGENTS_IS_IN_CONTAINER_MOUNT_STRATEGY (self));
  g_return_if_fail (pattern == NULL || AGENTS_IS_MOUNT_PATTERN (pattern));

  if (g_set_object (&self->pattern, pattern))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PATTERN]);
}

/* ---- docker_volume ---------------------------------------------------- */

/**
 * AgentsDockerVolumeMountStrategy:
 *
 * Docker only: the container gets the bucket as a volume, mounted on the
 * host, so that neither the FUSE tool nor the credentials enter it:
 * `{"type": "docker_volume", "driver": "rclone", "driver_options": {}}`.
 *
 * The reference hands the credentials to a Docker volume plugin of that
 * name. This release needs no plugin: the library mounts the bucket on
 * the host with the driver's tool (`rclone`, or `mount-s3` for
 * `mountpoint`) and backs a Docker volume of the `local` driver with that
 * mount. `driver_options` (the plugin's options) have no meaning then and
 * must be empty.
 */
struct _AgentsDockerVolumeMountStrategy
{
  AgentsMountStrategy parent_instance;

  char *driver;
  JsonObject *driver_options;
};

G_DEFINE_FINAL_TYPE (AgentsDockerVolumeMountStrategy,
                     agents_docker_volume_mount_strategy,
                     AGENTS_TYPE_MOUNT_STRATEGY)

#define DOCKER_VOLUME(s) AGENTS_DOCKER_VOLUME_MOUNT_STRATEGY (s)

static const char *const volume_drivers[] = { "mountpoint", "rclone", NULL };

static void
docker_volume_serialize_fields (AgentsMountStrategy *strategy,
                                JsonBuilder *builder)
{
  AgentsDockerVolumeMountStrategy *self = DOCKER_VOLUME (strategy);
  g_autoptr (JsonNode) options = json_node_new (JSON_NODE_OBJECT);

  agents_json_add_nullable_string (builder, "driver", self->driver);
  json_node_set_object (options, self->driver_options);
  json_builder_set_member_name (builder, "driver_options");
  json_builder_add_value (builder, json_node_copy (options));
}

static gboolean
docker_volume_deserialize_fields (AgentsMountStrategy *strategy,
                                  JsonObject *object,
                                  GError **error)
{
  AgentsDockerVolumeMountStrategy *self = DOCKER_VOLUME (strategy);
  JsonNode *node = json_object_get_member (object, "driver_options");
  g_autofree char *driver = NULL;
  JsonObject *options;

  if (!agents_json_typed_dup_string (object, "docker_volume", "driver", &driver,
                                     error))
    return FALSE;
  s3mount_set_str (&self->driver, driver ? driver : "rclone");
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  options = agents_json_typed_require_object (
    node, "docker_volume.driver_options", error);
  if (options == NULL)
    return FALSE;
  g_clear_pointer (&self->driver_options, json_object_unref);
  self->driver_options = json_object_ref (options);
  return TRUE;
}

static gboolean
docker_volume_validate (AgentsMountStrategy *strategy, GError **error)
{
  AgentsDockerVolumeMountStrategy *self = DOCKER_VOLUME (strategy);

  if (self->driver == NULL || !g_strv_contains (volume_drivers, self->driver))
    {
      s3mount_set_config_error (error, "docker_volume", "driver",
                                _ ("the volume driver must be rclone or "
                                   "mountpoint"));
      return FALSE;
    }
  if (json_object_get_size (self->driver_options) > 0)
    {
      s3mount_set_config_error (
        error, "docker_volume", "driver_options",
        _ ("volume driver options are not supported: this release backs the "
           "volume with a mount of its own on the host, not a volume "
           "plugin"));
      return FALSE;
    }
  return TRUE;
}

/* The pattern whose tool mounts the volume's bucket on the host. */
AgentsMountPattern *
agents_docker_volume_mount_strategy_dup_pattern (
  AgentsDockerVolumeMountStrategy *self)
{
  g_return_val_if_fail (AGENTS_IS_DOCKER_VOLUME_MOUNT_STRATEGY (self), NULL);

  if (g_strcmp0 (self->driver, "mountpoint") == 0)
    return agents_mountpoint_mount_pattern_new ();
  return agents_rclone_mount_pattern_new ();
}

static char **
docker_volume_build_mount_argv (AgentsMountStrategy *strategy,
                                AgentsS3Mount *mount,
                                const char *path,
                                GError **error)
{
  g_autoptr (AgentsMountPattern) pattern = NULL;

  if (!docker_volume_validate (strategy, error))
    return NULL;
  pattern =
    agents_docker_volume_mount_strategy_dup_pattern (DOCKER_VOLUME (strategy));
  return agents_mount_pattern_build_mount_argv (pattern, mount, path, error);
}

static char **
docker_volume_build_unmount_argv (AgentsMountStrategy *strategy,
                                  const char *path,
                                  GError **error)
{
  g_autoptr (AgentsMountPattern) pattern = NULL;

  if (!docker_volume_validate (strategy, error))
    return NULL;
  pattern =
    agents_docker_volume_mount_strategy_dup_pattern (DOCKER_VOLUME (strategy));
  return agents_mount_pattern_build_unmount_argv (pattern, path, error);
}

static char **
docker_volume_build_environ (AgentsMountStrategy *strategy,
                             AgentsS3Mount *mount)
{
  g_autoptr (AgentsMountPattern) pattern =
    agents_docker_volume_mount_strategy_dup_pattern (DOCKER_VOLUME (strategy));

  return agents_mount_pattern_build_environ (pattern, mount);
}

static void
agents_docker_volume_mount_strategy_finalize (GObject *object)
{
  AgentsDockerVolumeMountStrategy *self = DOCKER_VOLUME (object);

  g_free (self->driver);
  g_clear_pointer (&self->driver_options, json_object_unref);

  G_OBJECT_CLASS (agents_docker_volume_mount_strategy_parent_class)
    ->finalize (object);
}

static void
agents_docker_volume_mount_strategy_class_init (
  AgentsDockerVolumeMountStrategyClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  AgentsMountStrategyClass *strategy_class =
    AGENTS_MOUNT_STRATEGY_CLASS (klass);

  object_class->finalize = agents_docker_volume_mount_strategy_finalize;

  strategy_class->type_name = "docker_volume";
  strategy_class->serialize_fields = docker_volume_serialize_fields;
  strategy_class->deserialize_fields = docker_volume_deserialize_fields;
  strategy_class->validate = docker_volume_validate;
  strategy_class->build_mount_argv = docker_volume_build_mount_argv;
  strategy_class->build_unmount_argv = docker_volume_build_unmount_argv;
  strategy_class->build_environ = docker_volume_build_environ;
}

static void
agents_docker_volume_mount_strategy_init (AgentsDockerVolumeMountStrategy *self)
{
  self->driver = g_strdup ("rclone");
  self->driver_options = json_object_new ();
}

/**
 * agents_docker_volume_mount_strategy_new:
 * @driver: `rclone` or `mountpoint`
 *
 * Creates a strategy that gives a docker container the bucket as a
 * volume mounted on the host.
 *
 * Returns: (transfer full): the strategy
 */
AgentsMountStrategy *
agents_docker_volume_mount_strategy_new (const char *driver)
{
  AgentsDockerVolumeMountStrategy *self =
    g_object_new (AGENTS_TYPE_DOCKER_VOLUME_MOUNT_STRATEGY, NULL);

  s3mount_set_str (&self->driver, driver);
  return AGENTS_MOUNT_STRATEGY (self);
}

const char *
agents_docker_volume_mount_strategy_get_driver (
  AgentsDockerVolumeMountStrategy *self)
{
  g_return_val_if_fail (AGENTS_IS_DOCKER_VOLUME_MOUNT_STRATEGY (self), NULL);

  return self->driver;
}

/* The pattern whose tool mounts @self: the in-container strategy's, or
 * the docker volume's driver's. */
AgentsMountPattern *
s3mount_strategy_dup_pattern (AgentsMountStrategy *self)
{
  if (AGENTS_IS_IN_CONTAINER_MOUNT_STRATEGY (self))
    {
      AgentsMountPattern *pattern =
        agents_in_container_mount_strategy_get_pattern (IN_CONTAINER (self));

      return pattern ? g_object_ref (pattern) : NULL;
    }
  if (AGENTS_IS_DOCKER_VOLUME_MOUNT_STRATEGY (self))
    return agents_docker_volume_mount_strategy_dup_pattern (
      DOCKER_VOLUME (self));
  return NULL;
}
