/* agents-user.c - AgentsUser, a sandbox user
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include "agents-json-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-sandbox-types-private.h"

/**
 * AgentsUser:
 *
 * A user account to provision in a sandbox.
 */
struct _AgentsUser
{
  GObject parent_instance;

  char *name;
};

G_DEFINE_FINAL_TYPE (AgentsUser, agents_user, G_TYPE_OBJECT)

enum
{
  USER_PROP_0,
  USER_PROP_NAME,
  USER_N_PROPS
};

static GParamSpec *user_properties[USER_N_PROPS];

static void
agents_user_finalize (GObject *object)
{
  AgentsUser *self = AGENTS_USER (object);

  g_free (self->name);

  G_OBJECT_CLASS (agents_user_parent_class)->finalize (object);
}

static void
agents_user_get_property (GObject *object,
                          guint prop_id,
                          GValue *value,
                          GParamSpec *pspec)
{
  AgentsUser *self = AGENTS_USER (object);

  switch (prop_id)
    {
    case USER_PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_user_set_property (GObject *object,
                          guint prop_id,
                          const GValue *value,
                          GParamSpec *pspec)
{
  AgentsUser *self = AGENTS_USER (object);

  switch (prop_id)
    {
    case USER_PROP_NAME:
      g_free (self->name);
      self->name = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_user_class_init (AgentsUserClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = agents_user_finalize;
  object_class->get_property = agents_user_get_property;
  object_class->set_property = agents_user_set_property;

  /**
   * AgentsUser:name:
   *
   * The user name.
   */
  user_properties[USER_PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL, "",
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                           G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, USER_N_PROPS,
                                     user_properties);
}

static void
agents_user_init (AgentsUser *self)
{
}

/**
 * agents_user_new:
 * @name: the user name
 *
 * Creates a user.
 *
 * Returns: (transfer full): a new #AgentsUser
 */
AgentsUser *
agents_user_new (const char *name)
{
  g_return_val_if_fail (name != NULL, NULL);

  return g_object_new (AGENTS_TYPE_USER, "name", name, NULL);
}

/**
 * agents_user_get_name:
 * @self: an #AgentsUser
 *
 * Gets the user name.
 *
 * Returns: the name
 */
const char *
agents_user_get_name (AgentsUser *self)
{
  g_return_val_if_fail (AGENTS_IS_USER (self), NULL);

  return self->name;
}

/**
 * agents_user_equal:
 * @a: (nullable): an #AgentsUser
 * @b: (nullable): an #AgentsUser
 *
 * Compares two users by value.
 *
 * Returns: whether @a and @b have the same name
 */
gboolean
agents_user_equal (AgentsUser *a, AgentsUser *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  return g_strcmp0 (a->name, b->name) == 0;
}

/**
 * agents_user_hash:
 * @self: an #AgentsUser
 *
 * Hashes a user by its name, consistently with agents_user_equal().
 *
 * Returns: the hash
 */
guint
agents_user_hash (AgentsUser *self)
{
  g_return_val_if_fail (AGENTS_IS_USER (self), 0);

  return g_str_hash (self->name);
}

/**
 * agents_user_to_json:
 * @self: an #AgentsUser
 *
 * Serializes @self as `{"name": …}`.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
agents_user_to_json (AgentsUser *self)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();

  g_return_val_if_fail (AGENTS_IS_USER (self), NULL);

  json_builder_begin_object (builder);
  agents_json_add_string (builder, "name", self->name);
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

/**
 * agents_user_new_from_json:
 * @node: a JSON object node
 * @error: return location for a #GError
 *
 * Reads a user serialized by agents_user_to_json().
 *
 * Returns: (transfer full): the user, or %NULL with
 *   %AGENTS_SANDBOX_ERROR_INVALID_JSON set
 */
AgentsUser *
agents_user_new_from_json (JsonNode *node, GError **error)
{
  JsonObject *object = agents_json_require_object (node, "user", error);
  const char *name = NULL;

  if (object == NULL ||
      !agents_json_read_string (object, "name", FALSE, TRUE, &name, error))
    return NULL;
  return agents_user_new (name);
}
