/* agents-mount-pattern-base.c - what every mount pattern has: its members,
 * its typed JSON, its checks
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "agents-sandbox-error-private.h"
#include "agents-s3-mount-private.h"
#include "agents-typed-json-private.h"

/**
 * AgentsMountPattern:
 *
 * How a bucket is mounted: which FUSE tool runs, with which options. A
 * pattern is plain data with a JSON form (`{"type": "mountpoint", …}`);
 * it builds the command line that mounts an #AgentsS3Mount at a path and
 * the environment that carries the credentials to that command. Secrets
 * never appear on a command line, where any process could read them.
 *
 * Members common to every pattern: `cache_dir`, a directory for the
 * tool's local cache (absolute, or null for none), and `extra_args`,
 * arguments passed to the tool as they are, before the positional ones.
 *
 * Patterns are a family of the typed-JSON mechanism (#AgentsTypedJson):
 * each tool's pattern is registered under its `type` (`mountpoint`,
 * `rclone`, `s3fs`), and JSON, copies and equality go through it.
 */

typedef struct
{
  char *cache_dir;
  char **extra_args;
} AgentsMountPatternPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (AgentsMountPattern,
                                     agents_mount_pattern,
                                     G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_CACHE_DIR,
  PROP_EXTRA_ARGS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static const char *const no_args[] = { NULL };

static AgentsTypedJsonFamily pattern_family;

static void
agents_mount_pattern_finalize (GObject *object)
{
  AgentsMountPattern *self = AGENTS_MOUNT_PATTERN (object);
  AgentsMountPatternPrivate *priv =
    agents_mount_pattern_get_instance_private (self);

  g_free (priv->cache_dir);
  g_strfreev (priv->extra_args);

  G_OBJECT_CLASS (agents_mount_pattern_parent_class)->finalize (object);
}

static void
agents_mount_pattern_get_property (GObject *object,
                                   guint prop_id,
                                   GValue *value,
                                   GParamSpec *pspec)
{
  AgentsMountPattern *self = AGENTS_MOUNT_PATTERN (object);

  switch (prop_id)
    {
    case PROP_CACHE_DIR:
      g_value_set_string (value, agents_mount_pattern_get_cache_dir (self));
      break;
    case PROP_EXTRA_ARGS:
      g_value_set_boxed (value, agents_mount_pattern_get_extra_args (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_mount_pattern_set_property (GObject *object,
                                   guint prop_id,
                                   const GValue *value,
                                   GParamSpec *pspec)
{
  AgentsMountPattern *self = AGENTS_MOUNT_PATTERN (object);

  switch (prop_id)
    {
    case PROP_CACHE_DIR:
      agents_mount_pattern_set_cache_dir (self, g_value_get_string (value));
      break;
    case PROP_EXTRA_ARGS:
      agents_mount_pattern_set_extra_args (self, g_value_get_boxed (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_mount_pattern_class_init (AgentsMountPatternClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = agents_mount_pattern_finalize;
  object_class->get_property = agents_mount_pattern_get_property;
  object_class->set_property = agents_mount_pattern_set_property;

  properties[PROP_CACHE_DIR] = g_param_spec_string (
    "cache-dir", NULL, NULL, NULL,
    G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  properties[PROP_EXTRA_ARGS] = g_param_spec_boxed (
    "extra-args", NULL, NULL, G_TYPE_STRV,
    G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  pattern_family.base = G_TYPE_FROM_CLASS (klass);
  agents_typed_json_define_family (&pattern_family);
}

static void
agents_mount_pattern_init (AgentsMountPattern *self)
{
}

const char *
agents_mount_pattern_get_type_name (AgentsMountPattern *self)
{
  g_return_val_if_fail (AGENTS_IS_MOUNT_PATTERN (self), NULL);

  return AGENTS_MOUNT_PATTERN_GET_CLASS (self)->type_name;
}

const char *
agents_mount_pattern_get_cache_dir (AgentsMountPattern *self)
{
  AgentsMountPatternPrivate *priv;

  g_return_val_if_fail (AGENTS_IS_MOUNT_PATTERN (self), NULL);

  priv = agents_mount_pattern_get_instance_private (self);
  return priv->cache_dir;
}

void
agents_mount_pattern_set_cache_dir (AgentsMountPattern *self,
                                    const char *cache_dir)
{
  AgentsMountPatternPrivate *priv;

  g_return_if_fail (AGENTS_IS_MOUNT_PATTERN (self));

  priv = agents_mount_pattern_get_instance_private (self);
  if (s3mount_set_str (&priv->cache_dir, cache_dir))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CACHE_DIR]);
}

/* Never NULL: no extra arguments is an empty list. */
const char *const *
agents_mount_pattern_get_extra_args (AgentsMountPattern *self)
{
  AgentsMountPatternPrivate *priv;

  g_return_val_if_fail (AGENTS_IS_MOUNT_PATTERN (self), NULL);

  priv = agents_mount_pattern_get_instance_private (self);
  return priv->extra_args ? (const char *const *) priv->extra_args : no_args;
}

void
agents_mount_pattern_set_extra_args (AgentsMountPattern *self,
                                     const char *const *extra_args)
{
  AgentsMountPatternPrivate *priv;

  g_return_if_fail (AGENTS_IS_MOUNT_PATTERN (self));

  priv = agents_mount_pattern_get_instance_private (self);
  if (extra_args == NULL)
    extra_args = no_args;
  if (g_strv_equal (agents_mount_pattern_get_extra_args (self), extra_args))
    return;
  g_strfreev (priv->extra_args);
  priv->extra_args = g_strdupv ((char **) extra_args);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_EXTRA_ARGS]);
}

/* ---- JSON: the typed-JSON family of mount patterns ------------------- */

static void
write_pattern_fields (GObject *object, JsonBuilder *builder)
{
  AgentsMountPattern *self = AGENTS_MOUNT_PATTERN (object);
  AgentsMountPatternClass *klass = AGENTS_MOUNT_PATTERN_GET_CLASS (self);
  const char *const *extra_args = agents_mount_pattern_get_extra_args (self);

  agents_json_add_nullable_string (builder, "cache_dir",
                                   agents_mount_pattern_get_cache_dir (self));
  json_builder_set_member_name (builder, "extra_args");
  json_builder_begin_array (builder);
  for (guint i = 0; extra_args[i] != NULL; i++)
    json_builder_add_string_value (builder, extra_args[i]);
  json_builder_end_array (builder);
  if (klass->serialize_fields != NULL)
    klass->serialize_fields (self, builder);
}

/* Reads the shape of the members without judging their values (see
 * agents_mount_pattern_validate()), so that any pattern can be copied
 * through JSON. */
static gboolean
read_pattern_fields (GObject *object, JsonObject *json, GError **error)
{
  AgentsMountPattern *self = AGENTS_MOUNT_PATTERN (object);
  AgentsMountPatternClass *klass = AGENTS_MOUNT_PATTERN_GET_CLASS (self);
  const char *owner = agents_mount_pattern_get_type_name (self);
  g_autofree char *cache_dir = NULL;
  g_auto (GStrv) extra_args = NULL;

  if (!agents_json_typed_dup_string (json, owner, "cache_dir", &cache_dir,
                                     error) ||
      !agents_json_typed_dup_strv (json, owner, "extra_args", &extra_args,
                                   error))
    return FALSE;
  agents_mount_pattern_set_cache_dir (self, cache_dir);
  agents_mount_pattern_set_extra_args (self, (const char *const *) extra_args);
  return klass->deserialize_fields == NULL ||
         klass->deserialize_fields (self, json, error);
}

static char *
unknown_pattern_message (const char *type_name, const char *known)
{
  return g_strdup_printf (_ ("unknown mount pattern “%s” (known: %s)"),
                          type_name, known);
}

static gboolean
read_pattern_type_name (JsonNode *node, char **type_name, GError **error)
{
  return s3mount_typed_read_type_name ("mount pattern", node, type_name, error);
}

static const char *
pattern_type_name_of (GObject *self)
{
  return AGENTS_MOUNT_PATTERN_GET_CLASS (self)->type_name;
}

/* Completed (its base) when the class is initialized. */
static AgentsTypedJsonFamily pattern_family = {
  .label = N_ ("mount pattern"),
  .member = "mount pattern",
  .unknown_type_message = unknown_pattern_message,
  .read_type_name = read_pattern_type_name,
  .type_name_of = pattern_type_name_of,
  .write_fields = write_pattern_fields,
  .read_fields = read_pattern_fields,
};

JsonNode *
agents_mount_pattern_to_json (AgentsMountPattern *self)
{
  g_return_val_if_fail (AGENTS_IS_MOUNT_PATTERN (self), NULL);

  return agents_typed_json_to_json (AGENTS_TYPE_MOUNT_PATTERN, G_OBJECT (self));
}

AgentsMountPattern *
s3mount_pattern_parse (JsonNode *node, GError **error)
{
  s3mount_register_types ();
  return AGENTS_MOUNT_PATTERN (
    agents_typed_json_new_from_json (AGENTS_TYPE_MOUNT_PATTERN, node, error));
}

AgentsMountPattern *
agents_mount_pattern_new_from_json (JsonNode *node, GError **error)
{
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return s3mount_typed_new_valid (
    AGENTS_TYPE_MOUNT_PATTERN, node,
    (S3mountValidateFunc) agents_mount_pattern_validate, error);
}

AgentsMountPattern *
agents_mount_pattern_copy (AgentsMountPattern *self)
{
  g_return_val_if_fail (AGENTS_IS_MOUNT_PATTERN (self), NULL);

  return AGENTS_MOUNT_PATTERN (
    agents_typed_json_copy (AGENTS_TYPE_MOUNT_PATTERN, G_OBJECT (self)));
}

gboolean
agents_mount_pattern_equal (AgentsMountPattern *a, AgentsMountPattern *b)
{
  return agents_typed_json_equal (AGENTS_TYPE_MOUNT_PATTERN, G_OBJECT (a),
                                  G_OBJECT (b));
}

/* ---- validation ------------------------------------------------------ */

gboolean
agents_mount_pattern_validate (AgentsMountPattern *self, GError **error)
{
  const char *type_name = agents_mount_pattern_get_type_name (self);
  const char *cache_dir = agents_mount_pattern_get_cache_dir (self);
  const char *const *extra_args = agents_mount_pattern_get_extra_args (self);

  /* No commas: s3fs gets it inside a comma-separated `-o` list. */
  if (cache_dir != NULL &&
      (!s3mount_path_is_safe (cache_dir) || strchr (cache_dir, ',') != NULL))
    {
      s3mount_set_config_error (
        error, type_name, "cache_dir",
        _ ("the cache directory must be an absolute path without control "
           "characters or commas"));
      return FALSE;
    }
  for (guint i = 0; extra_args[i] != NULL; i++)
    if (*extra_args[i] == '\0' || !s3mount_text_is_safe (extra_args[i]))
      {
        s3mount_set_config_error (
          error, type_name, "extra_args",
          _ ("extra arguments must be non-empty and free of control "
             "characters"));
        return FALSE;
      }
  if (AGENTS_MOUNT_PATTERN_GET_CLASS (self)->validate != NULL)
    return AGENTS_MOUNT_PATTERN_GET_CLASS (self)->validate (self, error);
  return TRUE;
}
