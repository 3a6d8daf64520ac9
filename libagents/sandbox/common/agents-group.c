/* agents-group.c - AgentsGroup, a sandbox group and its members
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
 * AgentsGroup:
 *
 * A group account to provision in a sandbox, with its members.
 */
struct _AgentsGroup
{
  GObject parent_instance;

  char *name;
  GPtrArray *users;
};

G_DEFINE_FINAL_TYPE (AgentsGroup, agents_group, G_TYPE_OBJECT)

enum
{
  GROUP_PROP_0,
  GROUP_PROP_NAME,
  GROUP_N_PROPS
};

static GParamSpec *group_properties[GROUP_N_PROPS];

static void
agents_group_finalize (GObject *object)
{
  AgentsGroup *self = AGENTS_GROUP (object);

  g_free (self->name);
  g_ptr_array_unref (self->users);

  G_OBJECT_CLASS (agents_group_parent_class)->finalize (object);
}

static void
agents_group_get_property (GObject *object,
                           guint prop_id,
                           GValue *value,
                           GParamSpec *pspec)
{
  AgentsGroup *self = AGENTS_GROUP (object);

  switch (prop_id)
    {
    case GROUP_PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_group_set_property (GObject *object,
                           guint prop_id,
                           const GValue *value,
                           GParamSpec *pspec)
{
  AgentsGroup *self = AGENTS_GROUP (object);

  switch (prop_id)
    {
    case GROUP_PROP_NAME:
      g_free (self->name);
      self->name = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_group_class_init (AgentsGroupClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = agents_group_finalize;
  object_class->get_property = agents_group_get_property;
  object_class->set_property = agents_group_set_property;

  /**
   * AgentsGroup:name:
   *
   * The group name.
   */
  group_properties[GROUP_PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL, "",
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                           G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, GROUP_N_PROPS,
                                     group_properties);
}

static void
agents_group_init (AgentsGroup *self)
{
  self->users = g_ptr_array_new_with_free_func (g_object_unref);
}

/**
 * agents_group_new:
 * @name: the group name
 * @users: (array length=n_users) (nullable): the members
 * @n_users: the number of members
 *
 * Creates a group.
 *
 * Returns: (transfer full): a new #AgentsGroup
 */
AgentsGroup *
agents_group_new (const char *name, AgentsUser **users, guint n_users)
{
  AgentsGroup *self;

  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (users != NULL || n_users == 0, NULL);

  self = g_object_new (AGENTS_TYPE_GROUP, "name", name, NULL);
  for (guint i = 0; i < n_users; i++)
    agents_group_add_user (self, users[i]);
  return self;
}

/**
 * agents_group_get_name:
 * @self: an #AgentsGroup
 *
 * Gets the group name.
 *
 * Returns: the name
 */
const char *
agents_group_get_name (AgentsGroup *self)
{
  g_return_val_if_fail (AGENTS_IS_GROUP (self), NULL);

  return self->name;
}

/**
 * agents_group_get_users:
 * @self: an #AgentsGroup
 *
 * Gets the members of the group.
 *
 * Returns: (transfer none) (element-type AgentsUser): the members
 */
GPtrArray *
agents_group_get_users (AgentsGroup *self)
{
  g_return_val_if_fail (AGENTS_IS_GROUP (self), NULL);

  return self->users;
}

/**
 * agents_group_add_user:
 * @self: an #AgentsGroup
 * @user: a member to add
 *
 * Adds a member to the group.
 */
void
agents_group_add_user (AgentsGroup *self, AgentsUser *user)
{
  g_return_if_fail (AGENTS_IS_GROUP (self));
  g_return_if_fail (AGENTS_IS_USER (user));

  g_ptr_array_add (self->users, g_object_ref (user));
}

/**
 * agents_group_equal:
 * @a: (nullable): an #AgentsGroup
 * @b: (nullable): an #AgentsGroup
 *
 * Compares two groups by identity, as the reference does: a group is
 * its name, whatever its members. See agents_group_equal_members() to
 * compare the members too.
 *
 * Returns: whether @a and @b have the same name
 */
gboolean
agents_group_equal (AgentsGroup *a, AgentsGroup *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  return g_strcmp0 (a->name, b->name) == 0;
}

/**
 * agents_group_equal_members:
 * @a: (nullable): an #AgentsGroup
 * @b: (nullable): an #AgentsGroup
 *
 * Compares two groups by value: name and members, in order.
 *
 * Returns: whether @a and @b are equal
 */
gboolean
agents_group_equal_members (AgentsGroup *a, AgentsGroup *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  if (!agents_group_equal (a, b) || a->users->len != b->users->len)
    return FALSE;
  for (guint i = 0; i < a->users->len; i++)
    if (!agents_user_equal (a->users->pdata[i], b->users->pdata[i]))
      return FALSE;
  return TRUE;
}

/**
 * agents_group_hash:
 * @self: an #AgentsGroup
 *
 * Hashes a group by its name, consistently with agents_group_equal().
 *
 * Returns: the hash
 */
guint
agents_group_hash (AgentsGroup *self)
{
  g_return_val_if_fail (AGENTS_IS_GROUP (self), 0);

  return g_str_hash (self->name);
}

/**
 * agents_group_to_json:
 * @self: an #AgentsGroup
 *
 * Serializes @self as `{"name": …, "users": [{"name": …}, …]}`.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
agents_group_to_json (AgentsGroup *self)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();

  g_return_val_if_fail (AGENTS_IS_GROUP (self), NULL);

  json_builder_begin_object (builder);
  agents_json_add_string (builder, "name", self->name);
  json_builder_set_member_name (builder, "users");
  json_builder_begin_array (builder);
  for (guint i = 0; i < self->users->len; i++)
    json_builder_add_value (builder,
                            agents_user_to_json (self->users->pdata[i]));
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

/**
 * agents_group_new_from_json:
 * @node: a JSON object node
 * @error: return location for a #GError
 *
 * Reads a group serialized by agents_group_to_json(). A missing `users`
 * member means no members.
 *
 * Returns: (transfer full): the group, or %NULL with
 *   %AGENTS_SANDBOX_ERROR_INVALID_JSON set
 */
AgentsGroup *
agents_group_new_from_json (JsonNode *node, GError **error)
{
  JsonObject *object = agents_json_require_object (node, "group", error);
  g_autoptr (AgentsGroup) self = NULL;
  const char *name = NULL;
  JsonNode *users;
  JsonArray *array;

  if (object == NULL ||
      !agents_json_read_string (object, "name", FALSE, TRUE, &name, error) ||
      !agents_json_read_container (object, "users", JSON_NODE_ARRAY, &users,
                                   error))
    return NULL;

  self = agents_group_new (name, NULL, 0);
  if (users == NULL)
    return g_steal_pointer (&self);

  array = json_node_get_array (users);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      g_autoptr (AgentsUser) user =
        agents_user_new_from_json (json_array_get_element (array, i), error);

      if (user == NULL)
        return NULL;
      agents_group_add_user (self, user);
    }
  return g_steal_pointer (&self);
}
