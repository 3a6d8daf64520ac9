/* agents-sandbox-path-grant.c - AgentsSandboxPathGrant, a granted host path
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
#include "agents-workspace-path-policy.h"

/**
 * AgentsSandboxPathGrant:
 *
 * An absolute host path outside the workspace root that a session may
 * reach, possibly read-only.
 */
struct _AgentsSandboxPathGrant
{
  GObject parent_instance;

  char *path;
  gboolean read_only;
  char *description;
  char *host_path;
};

G_DEFINE_FINAL_TYPE (AgentsSandboxPathGrant,
                     agents_sandbox_path_grant,
                     G_TYPE_OBJECT)

enum
{
  GRANT_PROP_0,
  GRANT_PROP_PATH,
  GRANT_PROP_READ_ONLY,
  GRANT_PROP_DESCRIPTION,
  GRANT_PROP_HOST_PATH,
  GRANT_N_PROPS
};

static GParamSpec *grant_properties[GRANT_N_PROPS];

static void
agents_sandbox_path_grant_finalize (GObject *object)
{
  AgentsSandboxPathGrant *self = AGENTS_SANDBOX_PATH_GRANT (object);

  g_free (self->path);
  g_free (self->description);
  g_free (self->host_path);

  G_OBJECT_CLASS (agents_sandbox_path_grant_parent_class)->finalize (object);
}

static void
agents_sandbox_path_grant_get_property (GObject *object,
                                        guint prop_id,
                                        GValue *value,
                                        GParamSpec *pspec)
{
  AgentsSandboxPathGrant *self = AGENTS_SANDBOX_PATH_GRANT (object);

  switch (prop_id)
    {
    case GRANT_PROP_PATH:
      g_value_set_string (value, self->path);
      break;
    case GRANT_PROP_READ_ONLY:
      g_value_set_boolean (value, self->read_only);
      break;
    case GRANT_PROP_DESCRIPTION:
      g_value_set_string (value, self->description);
      break;
    case GRANT_PROP_HOST_PATH:
      g_value_set_string (value, self->host_path);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_sandbox_path_grant_set_property (GObject *object,
                                        guint prop_id,
                                        const GValue *value,
                                        GParamSpec *pspec)
{
  AgentsSandboxPathGrant *self = AGENTS_SANDBOX_PATH_GRANT (object);

  switch (prop_id)
    {
    case GRANT_PROP_PATH:
      g_free (self->path);
      self->path = g_value_dup_string (value);
      break;
    case GRANT_PROP_READ_ONLY:
      self->read_only = g_value_get_boolean (value);
      break;
    case GRANT_PROP_DESCRIPTION:
      g_free (self->description);
      self->description = g_value_dup_string (value);
      break;
    case GRANT_PROP_HOST_PATH:
      g_free (self->host_path);
      self->host_path = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_sandbox_path_grant_class_init (AgentsSandboxPathGrantClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                      G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->finalize = agents_sandbox_path_grant_finalize;
  object_class->get_property = agents_sandbox_path_grant_get_property;
  object_class->set_property = agents_sandbox_path_grant_set_property;

  /**
   * AgentsSandboxPathGrant:path:
   *
   * The absolute path granted.
   */
  grant_properties[GRANT_PROP_PATH] =
    g_param_spec_string ("path", NULL, NULL, "/", flags);

  /**
   * AgentsSandboxPathGrant:read-only:
   *
   * Whether the path may only be read.
   */
  grant_properties[GRANT_PROP_READ_ONLY] =
    g_param_spec_boolean ("read-only", NULL, NULL, FALSE, flags);

  /**
   * AgentsSandboxPathGrant:description:
   *
   * What the path is for, shown to the model.
   */
  grant_properties[GRANT_PROP_DESCRIPTION] =
    g_param_spec_string ("description", NULL, NULL, NULL, flags);

  /**
   * AgentsSandboxPathGrant:host-path:
   *
   * The native host source of the grant when it differs from
   * #AgentsSandboxPathGrant:path, the path seen in the sandbox; %NULL
   * when they are the same. See agents_sandbox_path_grant_try_new_full().
   */
  grant_properties[GRANT_PROP_HOST_PATH] =
    g_param_spec_string ("host-path", NULL, NULL, NULL, flags);

  g_object_class_install_properties (object_class, GRANT_N_PROPS,
                                     grant_properties);
}

static void
agents_sandbox_path_grant_init (AgentsSandboxPathGrant *self)
{
}

/**
 * agents_sandbox_path_grant_new:
 * @path: the absolute path granted
 * @read_only: whether the path may only be read
 * @description: (nullable): what the path is for
 *
 * Creates a path grant.
 *
 * Returns: (transfer full): a new #AgentsSandboxPathGrant
 */
AgentsSandboxPathGrant *
agents_sandbox_path_grant_new (const char *path,
                               gboolean read_only,
                               const char *description)
{
  g_return_val_if_fail (path != NULL, NULL);

  return g_object_new (AGENTS_TYPE_SANDBOX_PATH_GRANT, "path", path,
                       "read-only", read_only, "description", description,
                       NULL);
}

/**
 * agents_sandbox_path_grant_get_path:
 * @self: an #AgentsSandboxPathGrant
 *
 * Gets the path granted.
 *
 * Returns: the path
 */
const char *
agents_sandbox_path_grant_get_path (AgentsSandboxPathGrant *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_PATH_GRANT (self), NULL);

  return self->path;
}

/**
 * agents_sandbox_path_grant_get_read_only:
 * @self: an #AgentsSandboxPathGrant
 *
 * Gets whether the path may only be read.
 *
 * Returns: whether the grant is read-only
 */
gboolean
agents_sandbox_path_grant_get_read_only (AgentsSandboxPathGrant *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_PATH_GRANT (self), FALSE);

  return self->read_only;
}

/**
 * agents_sandbox_path_grant_get_description:
 * @self: an #AgentsSandboxPathGrant
 *
 * Gets what the path is for.
 *
 * Returns: (nullable): the description
 */
const char *
agents_sandbox_path_grant_get_description (AgentsSandboxPathGrant *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_PATH_GRANT (self), NULL);

  return self->description;
}

/**
 * agents_sandbox_path_grant_get_host_path:
 * @self: an #AgentsSandboxPathGrant
 *
 * Gets the native host source of the grant, if it has one apart from
 * its path.
 *
 * Returns: (nullable): the host path
 */
const char *
agents_sandbox_path_grant_get_host_path (AgentsSandboxPathGrant *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_PATH_GRANT (self), NULL);

  return self->host_path;
}

/**
 * agents_sandbox_path_grant_equal:
 * @a: (nullable): an #AgentsSandboxPathGrant
 * @b: (nullable): an #AgentsSandboxPathGrant
 *
 * Compares two grants by value.
 *
 * Returns: whether @a and @b are equal
 */
gboolean
agents_sandbox_path_grant_equal (AgentsSandboxPathGrant *a,
                                 AgentsSandboxPathGrant *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  return g_strcmp0 (a->path, b->path) == 0 && !a->read_only == !b->read_only &&
         g_strcmp0 (a->description, b->description) == 0 &&
         g_strcmp0 (a->host_path, b->host_path) == 0;
}

/**
 * agents_sandbox_path_grant_to_json:
 * @self: an #AgentsSandboxPathGrant
 *
 * Serializes @self as `{"path": …, "read_only": …, "description": …}`,
 * with `"host_path"` last when the grant has one.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
agents_sandbox_path_grant_to_json (AgentsSandboxPathGrant *self)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();

  g_return_val_if_fail (AGENTS_IS_SANDBOX_PATH_GRANT (self), NULL);

  json_builder_begin_object (builder);
  agents_json_add_string (builder, "path", self->path);
  agents_json_add_boolean (builder, "read_only", self->read_only);
  agents_json_add_nullable_string (builder, "description", self->description);
  if (self->host_path != NULL)
    agents_json_add_string (builder, "host_path", self->host_path);
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

/**
 * agents_sandbox_path_grant_new_from_json:
 * @node: a JSON object node
 * @error: return location for a #GError
 *
 * Reads a grant serialized by agents_sandbox_path_grant_to_json(). The
 * path is validated and normalized as
 * agents_sandbox_path_normalize_grant_path() does.
 *
 * Returns: (transfer full): the grant, or %NULL with
 *   %AGENTS_SANDBOX_ERROR_INVALID_JSON set
 */
AgentsSandboxPathGrant *
agents_sandbox_path_grant_new_from_json (JsonNode *node, GError **error)
{
  JsonObject *object =
    agents_json_require_object (node, "extra_path_grant", error);
  const char *path = NULL;
  const char *description = NULL;
  gboolean read_only = FALSE;
  const char *host_path = NULL;
  g_autofree char *normalized = NULL;
  g_autoptr (GError) invalid = NULL;
  AgentsSandboxPathGrant *grant;

  if (object == NULL ||
      !agents_json_read_string (object, "path", FALSE, TRUE, &path, error) ||
      !agents_json_read_boolean (object, "read_only", &read_only, error) ||
      !agents_json_read_string (object, "description", TRUE, FALSE,
                                &description, error) ||
      !agents_json_read_string (object, "host_path", TRUE, FALSE, &host_path,
                                error))
    return NULL;

  normalized = agents_sandbox_path_normalize_grant_path (path, &invalid);
  if (normalized == NULL)
    {
      agents_json_set_error (error, "path",
                             *path == '/' ? "filesystem_root" : "not_absolute",
                             "%s", invalid->message);
      return NULL;
    }
  grant = agents_sandbox_path_grant_try_new_full (path, host_path, read_only,
                                                  description, &invalid);
  if (grant == NULL)
    agents_json_set_error (error, "host_path", "invalid", "%s",
                           invalid->message);
  return grant;
}
