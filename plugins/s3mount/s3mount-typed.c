/* s3mount-typed.c - what mount patterns and strategies share as
 * families of typed JSON
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-s3-mount-private.h"
#include "agents-typed-json-private.h"

/* The built-in patterns and strategies, by their `type`. */
static const struct
{
  GType (*family) (void);
  const char *name;
  GType (*get_type) (void);
} builtin_types[] = {
  { agents_mount_pattern_get_type, "mountpoint",
    agents_mountpoint_mount_pattern_get_type },
  { agents_mount_pattern_get_type, "rclone",
    agents_rclone_mount_pattern_get_type },
  { agents_mount_pattern_get_type, "s3fs", agents_s3fs_mount_pattern_get_type },
  { agents_mount_strategy_get_type, "docker_volume",
    agents_docker_volume_mount_strategy_get_type },
  { agents_mount_strategy_get_type, "in_container",
    agents_in_container_mount_strategy_get_type },
};

void
s3mount_register_types (void)
{
  static gsize registered = 0;

  if (!g_once_init_enter (&registered))
    return;
  for (guint i = 0; i < G_N_ELEMENTS (builtin_types); i++)
    {
      g_autoptr (GError) error = NULL;

      if (!agents_typed_json_register (builtin_types[i].family (),
                                       builtin_types[i].name,
                                       builtin_types[i].get_type (), &error))
        g_critical ("%s", error->message);
    }
  g_once_init_leave (&registered, 1);
}

/* The reference reads a missing or null `type` as the unknown name "":
 * an unknown-type error, not a malformed document. */
gboolean
s3mount_typed_read_type_name (const char *owner,
                              JsonNode *node,
                              char **type_name,
                              GError **error)
{
  JsonObject *object = agents_json_typed_require_object (node, owner, error);

  return object != NULL &&
         agents_json_typed_dup_string (object, owner, "type", type_name, error);
}

gpointer
s3mount_typed_new_valid (GType family,
                         JsonNode *node,
                         S3mountValidateFunc validate,
                         GError **error)
{
  g_autoptr (GObject) self = NULL;

  s3mount_register_types ();
  self = agents_typed_json_new_from_json (family, node, error);
  if (self == NULL || !validate (self, error))
    return NULL;
  return g_steal_pointer (&self);
}
