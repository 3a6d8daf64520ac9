/* agents-docker-state.c - the state of a docker session
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "agents-docker-session.h"

#define LABEL_NAMESPACE "org.gnome.agents."
#define MAX_PORT 65535
/* Limits a container gets unless the caller sets others: room for a
 * build or a test suite, not for a fork bomb or a memory hog to take
 * the host down. */
#define DEFAULT_MEMORY_BYTES (G_GINT64_CONSTANT (2) << 30)
#define DEFAULT_PIDS_LIMIT 1024

/**
 * AgentsDockerSessionState:
 *
 * What finds a docker session again: the image, the container and how
 * it was configured. Read from JSON it is hostile: every member is type
 * checked, and delete only ever removes a container that carries the
 * libagents labels of the state's session.
 */
struct _AgentsDockerSessionState
{
  AgentsSandboxSessionState parent_instance;

  char *image;
  char *container_id;
  char *network_mode;    /* NULL: no network */
  GArray *exposed_ports; /* int */
  GHashTable *labels;    /* char* -> char* */
  gint64 memory_bytes;   /* 0: unset */
  gint64 nano_cpus;
  gint64 pids_limit;
  char *docker_host;
  gboolean read_only_root;
  /* The caller's explicit consent to network "host"; never saved, so a
   * state alone can never ask for it. */
  gboolean allow_host_network;
};

G_DEFINE_FINAL_TYPE (AgentsDockerSessionState,
                     agents_docker_session_state,
                     AGENTS_TYPE_SANDBOX_SESSION_STATE)

/* ---- errors --------------------------------------------------------- */

static void
set_member_error (GError **error,
                  const char *member,
                  const char *reason,
                  const char *message)
{
  agents_sandbox_error_set (
    error, AGENTS_SANDBOX_ERROR_INVALID_JSON,
    g_variant_new_parsed ("{'member': <%s>, 'reason': <%s>}", member, reason),
    _ ("session state member “%s” %s"), member, message);
}

static void
set_option_error (GError **error, const char *option, const char *message)
{
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                            g_variant_new_parsed ("{'option': <%s>}", option),
                            _ ("docker option “%s”: %s"), option, message);
}

/* ---- checks shared by options and JSON ------------------------------ */

static gboolean
label_key_allowed (const char *key)
{
  return *key != '\0' && !g_str_has_prefix (key, LABEL_NAMESPACE);
}

/* A network mode is "none", "bridge", "host" or a network's name: the
 * engine's own name rules ([a-zA-Z0-9][a-zA-Z0-9_.-]*). */
static gboolean
network_name_valid (const char *name)
{
  if (!g_ascii_isalnum (*name))
    return FALSE;
  for (const char *p = name; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && strchr ("_.-", *p) == NULL)
      return FALSE;
  return strlen (name) <= 128;
}

static gboolean
image_name_valid (const char *image)
{
  if (*image == '\0' || strlen (image) > 512 || *image == '-')
    return FALSE;
  for (const char *p = image; *p != '\0'; p++)
    if ((guchar) *p <= ' ' || (guchar) *p >= 0x7f)
      return FALSE;
  return TRUE;
}

/* ---- options -------------------------------------------------------- */

static gboolean
read_string_option (GVariantDict *dict,
                    const char *name,
                    char **out,
                    GError **error)
{
  g_autoptr (GVariant) value = g_variant_dict_lookup_value (dict, name, NULL);

  if (value == NULL)
    return TRUE;
  if (!g_variant_is_of_type (value, G_VARIANT_TYPE_STRING))
    {
      set_option_error (error, name, _ ("must be a string"));
      return FALSE;
    }
  g_free (*out);
  *out = g_variant_dup_string (value, NULL);
  return TRUE;
}

static gboolean
read_int_option (GVariantDict *dict,
                 const char *name,
                 gint64 *out,
                 GError **error)
{
  g_autoptr (GVariant) value = g_variant_dict_lookup_value (dict, name, NULL);
  gint64 v;

  if (value == NULL)
    return TRUE;
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_INT64))
    v = g_variant_get_int64 (value);
  else if (g_variant_is_of_type (value, G_VARIANT_TYPE_INT32))
    v = g_variant_get_int32 (value);
  else if (g_variant_is_of_type (value, G_VARIANT_TYPE_UINT32))
    v = g_variant_get_uint32 (value);
  else
    {
      set_option_error (error, name, _ ("must be an integer"));
      return FALSE;
    }
  if (v <= 0)
    {
      set_option_error (error, name, _ ("must be positive"));
      return FALSE;
    }
  *out = v;
  return TRUE;
}

static gboolean
read_bool_option (GVariantDict *dict,
                  const char *name,
                  gboolean *out,
                  GError **error)
{
  g_autoptr (GVariant) value = g_variant_dict_lookup_value (dict, name, NULL);

  if (value == NULL)
    return TRUE;
  if (!g_variant_is_of_type (value, G_VARIANT_TYPE_BOOLEAN))
    {
      set_option_error (error, name, _ ("must be true or false"));
      return FALSE;
    }
  *out = g_variant_get_boolean (value);
  return TRUE;
}

static gboolean
read_cpus_option (GVariantDict *dict, gint64 *nano_cpus, GError **error)
{
  g_autoptr (GVariant) value = g_variant_dict_lookup_value (dict, "cpus", NULL);
  double cpus;

  if (value == NULL)
    return TRUE;
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_DOUBLE))
    cpus = g_variant_get_double (value);
  else if (g_variant_is_of_type (value, G_VARIANT_TYPE_INT32))
    cpus = g_variant_get_int32 (value);
  else if (g_variant_is_of_type (value, G_VARIANT_TYPE_INT64))
    cpus = (double) g_variant_get_int64 (value);
  else
    {
      set_option_error (error, "cpus", _ ("must be a number"));
      return FALSE;
    }
  if (!(cpus > 0 && cpus <= 1024))
    {
      set_option_error (error, "cpus", _ ("must be between 0 and 1024"));
      return FALSE;
    }
  *nano_cpus = (gint64) (cpus * 1e9);
  return TRUE;
}

static gboolean
add_port (GArray *ports, gint64 port, GError **error)
{
  int p = (int) port;

  if (port < 1 || port > MAX_PORT)
    {
      set_option_error (error, "exposed_ports",
                        _ ("ports must be between 1 and 65535"));
      return FALSE;
    }
  for (guint i = 0; i < ports->len; i++)
    if (g_array_index (ports, int, i) == p)
      return TRUE;
  g_array_append_val (ports, p);
  return TRUE;
}

static gboolean
read_ports_option (GVariantDict *dict, GArray *ports, GError **error)
{
  g_autoptr (GVariant) value =
    g_variant_dict_lookup_value (dict, "exposed_ports", NULL);
  GVariantIter iter;
  GVariant *child;

  if (value == NULL)
    return TRUE;
  if (!g_variant_is_of_type (value, G_VARIANT_TYPE ("ai")) &&
      !g_variant_is_of_type (value, G_VARIANT_TYPE ("aq")) &&
      !g_variant_is_of_type (value, G_VARIANT_TYPE ("ax")))
    {
      set_option_error (error, "exposed_ports",
                        _ ("must be an array of integers"));
      return FALSE;
    }
  g_variant_iter_init (&iter, value);
  while ((child = g_variant_iter_next_value (&iter)) != NULL)
    {
      gint64 port = g_variant_is_of_type (child, G_VARIANT_TYPE_INT32)
                      ? g_variant_get_int32 (child)
                    : g_variant_is_of_type (child, G_VARIANT_TYPE_UINT16)
                      ? g_variant_get_uint16 (child)
                      : g_variant_get_int64 (child);

      g_variant_unref (child);
      if (!add_port (ports, port, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
read_labels_option (GVariantDict *dict, GHashTable *labels, GError **error)
{
  g_autoptr (GVariant) value =
    g_variant_dict_lookup_value (dict, "labels", NULL);
  GVariantIter iter;
  const char *key, *val;

  if (value == NULL)
    return TRUE;
  if (!g_variant_is_of_type (value, G_VARIANT_TYPE ("a{ss}")))
    {
      set_option_error (error, "labels",
                        _ ("must be a dictionary of strings (a{ss})"));
      return FALSE;
    }
  g_variant_iter_init (&iter, value);
  while (g_variant_iter_next (&iter, "{&s&s}", &key, &val))
    {
      if (!label_key_allowed (key))
        {
          g_autofree char *message = g_strdup_printf (
            _ ("label “%s” is reserved (the %s namespace belongs to "
               "libagents) or empty"),
            key, LABEL_NAMESPACE);

          set_option_error (error, "labels", message);
          return FALSE;
        }
      g_hash_table_insert (labels, g_strdup (key), g_strdup (val));
    }
  return TRUE;
}

static const char *const known_options[] = {
  "image",
  "network",
  "exposed_ports",
  "labels",
  "memory",
  "cpus",
  "pids_limit",
  "host",
  "read_only_root",
  "allow_host_network",
  NULL,
};

static gboolean
check_unknown_options (GVariant *options, GError **error)
{
  GVariantIter iter;
  const char *key;

  g_variant_iter_init (&iter, options);
  while (g_variant_iter_next (&iter, "{&sv}", &key, NULL))
    if (!g_strv_contains (known_options, key))
      {
        set_option_error (error, key, _ ("unknown option"));
        return FALSE;
      }
  return TRUE;
}

static gboolean
check_network (AgentsDockerSessionState *self, GError **error)
{
  if (self->network_mode != NULL && g_str_equal (self->network_mode, "none"))
    g_clear_pointer (&self->network_mode, g_free);
  if (self->network_mode != NULL && !network_name_valid (self->network_mode))
    {
      set_option_error (error, "network", _ ("not a valid network name"));
      return FALSE;
    }
  if (self->network_mode != NULL && g_str_equal (self->network_mode, "host") &&
      !self->allow_host_network)
    {
      set_option_error (
        error, "network",
        _ ("“host” shares the host's network (and its 127.0.0.1) with the "
           "sandbox: it needs allow_host_network=true as well"));
      return FALSE;
    }
  if (self->network_mode == NULL && self->exposed_ports->len > 0)
    {
      set_option_error (
        error, "exposed_ports",
        _ ("ports cannot be exposed without a network; set “network” to "
           "“bridge” or a network's name"));
      return FALSE;
    }
  return TRUE;
}

/* Reads @options into @self; with @image_required FALSE (a resume
 * that does not pin the image) the image may be left out. */
static gboolean
state_read_options (AgentsDockerSessionState *self,
                    GVariant *options,
                    gboolean image_required,
                    GError **error)
{
  g_autoptr (GVariantDict) dict = g_variant_dict_new (options);

  self->memory_bytes = DEFAULT_MEMORY_BYTES;
  self->pids_limit = DEFAULT_PIDS_LIMIT;
  if (options != NULL && !check_unknown_options (options, error))
    return FALSE;
  if (!read_string_option (dict, "image", &self->image, error) ||
      !read_bool_option (dict, "read_only_root", &self->read_only_root,
                         error) ||
      !read_bool_option (dict, "allow_host_network", &self->allow_host_network,
                         error) ||
      !read_string_option (dict, "network", &self->network_mode, error) ||
      !read_string_option (dict, "host", &self->docker_host, error) ||
      !read_ports_option (dict, self->exposed_ports, error) ||
      !read_labels_option (dict, self->labels, error) ||
      !read_int_option (dict, "memory", &self->memory_bytes, error) ||
      !read_int_option (dict, "pids_limit", &self->pids_limit, error) ||
      !read_cpus_option (dict, &self->nano_cpus, error))
    return FALSE;
  if (self->image == NULL && image_required)
    {
      set_option_error (error, "image",
                        _ ("is required: the image the container runs"));
      return FALSE;
    }
  if (self->image != NULL && !image_name_valid (self->image))
    {
      set_option_error (error, "image", _ ("not a valid image reference"));
      return FALSE;
    }
  return check_network (self, error);
}

static gboolean
check_options_type (GVariant *options, GError **error)
{
  if (options == NULL || g_variant_is_of_type (options, G_VARIANT_TYPE_VARDICT))
    return TRUE;
  agents_sandbox_error_set (
    error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, NULL,
    _ ("docker options must be a dictionary (a{sv}), not “%s”"),
    g_variant_get_type_string (options));
  return FALSE;
}

static gboolean
check_root (AgentsManifest *manifest, GError **error)
{
  const char *root = agents_manifest_get_root (manifest);

  if (root[0] != '/' || root[1] == '\0')
    {
      agents_sandbox_error_set (
        error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
        g_variant_new_parsed ("{'root': <%s>}", root),
        _ ("the docker backend needs an absolute workspace root below “/”, "
           "not “%s”"),
        root);
      return FALSE;
    }
  return TRUE;
}

AgentsSandboxSessionState *
agents_docker_session_state_new (AgentsManifest *manifest,
                                 GVariant *options,
                                 GError **error)
{
  g_autoptr (AgentsDockerSessionState) self = NULL;

  if (!check_options_type (options, error) || !check_root (manifest, error))
    return NULL;
  self =
    g_object_new (AGENTS_TYPE_DOCKER_SESSION_STATE, "manifest", manifest, NULL);
  if (!state_read_options (self, options, TRUE, error))
    return NULL;
  return AGENTS_SANDBOX_SESSION_STATE (g_steal_pointer (&self));
}

/* ---- JSON ----------------------------------------------------------- */

static void
add_nullable_string (JsonBuilder *builder, const char *name, const char *value)
{
  json_builder_set_member_name (builder, name);
  if (value != NULL)
    json_builder_add_string_value (builder, value);
  else
    json_builder_add_null_value (builder);
}

static void
add_nullable_int (JsonBuilder *builder, const char *name, gint64 value)
{
  json_builder_set_member_name (builder, name);
  if (value > 0)
    json_builder_add_int_value (builder, value);
  else
    json_builder_add_null_value (builder);
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

static void
add_labels (JsonBuilder *builder, GHashTable *labels)
{
  g_autofree gpointer *keys = g_hash_table_get_keys_as_array (labels, NULL);
  guint n = g_hash_table_size (labels);

  qsort (keys, n, sizeof (gpointer), compare_strings);
  json_builder_set_member_name (builder, "labels");
  json_builder_begin_object (builder);
  for (guint i = 0; i < n; i++)
    {
      json_builder_set_member_name (builder, keys[i]);
      json_builder_add_string_value (builder,
                                     g_hash_table_lookup (labels, keys[i]));
    }
  json_builder_end_object (builder);
}

static void
state_serialize_fields (AgentsSandboxSessionState *state, JsonBuilder *builder)
{
  AgentsDockerSessionState *self = AGENTS_DOCKER_SESSION_STATE (state);

  json_builder_set_member_name (builder, "image");
  json_builder_add_string_value (builder, self->image);
  add_nullable_string (builder, "container_id", self->container_id);
  add_nullable_string (builder, "network_mode", self->network_mode);
  json_builder_set_member_name (builder, "exposed_ports");
  json_builder_begin_array (builder);
  for (guint i = 0; i < self->exposed_ports->len; i++)
    json_builder_add_int_value (builder,
                                g_array_index (self->exposed_ports, int, i));
  json_builder_end_array (builder);
  add_labels (builder, self->labels);
  add_nullable_int (builder, "memory_bytes", self->memory_bytes);
  add_nullable_int (builder, "nano_cpus", self->nano_cpus);
  add_nullable_int (builder, "pids_limit", self->pids_limit);
  add_nullable_string (builder, "docker_host", self->docker_host);
  json_builder_set_member_name (builder, "read_only_root");
  json_builder_add_boolean_value (builder, self->read_only_root);
}

static gboolean
node_is (JsonNode *node, GType type)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
         json_node_get_value_type (node) == type;
}

static gboolean
load_string (JsonObject *object,
             const char *name,
             gboolean nullable,
             char **out,
             GError **error)
{
  JsonNode *node = json_object_get_member (object, name);

  if ((node == NULL || JSON_NODE_HOLDS_NULL (node)) && nullable)
    return TRUE;
  if (node == NULL)
    {
      set_member_error (error, name, "missing", _ ("is missing"));
      return FALSE;
    }
  if (!node_is (node, G_TYPE_STRING))
    {
      set_member_error (error, name, "wrong_type", _ ("must be a string"));
      return FALSE;
    }
  g_free (*out);
  *out = g_strdup (json_node_get_string (node));
  return TRUE;
}

static gboolean
load_int (JsonObject *object, const char *name, gint64 *out, GError **error)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!node_is (node, G_TYPE_INT64) || json_node_get_int (node) <= 0)
    {
      set_member_error (error, name, "wrong_type",
                        _ ("must be a positive integer or null"));
      return FALSE;
    }
  *out = json_node_get_int (node);
  return TRUE;
}

static gboolean
load_bool (JsonObject *object, const char *name, gboolean *out, GError **error)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!node_is (node, G_TYPE_BOOLEAN))
    {
      set_member_error (error, name, "wrong_type",
                        _ ("must be true, false or null"));
      return FALSE;
    }
  *out = json_node_get_boolean (node);
  return TRUE;
}

static gboolean
load_ports (AgentsDockerSessionState *self, JsonObject *object, GError **error)
{
  JsonNode *node = json_object_get_member (object, "exposed_ports");
  JsonArray *array;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      set_member_error (error, "exposed_ports", "wrong_type",
                        _ ("must be an array of ports"));
      return FALSE;
    }
  array = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      int port;

      if (!node_is (element, G_TYPE_INT64) || json_node_get_int (element) < 1 ||
          json_node_get_int (element) > MAX_PORT)
        {
          set_member_error (error, "exposed_ports", "wrong_type",
                            _ ("must be an array of ports"));
          return FALSE;
        }
      port = (int) json_node_get_int (element);
      g_array_append_val (self->exposed_ports, port);
    }
  return TRUE;
}

static gboolean
load_labels (AgentsDockerSessionState *self, JsonObject *object, GError **error)
{
  JsonNode *node = json_object_get_member (object, "labels");
  JsonObjectIter iter;
  const char *key;
  JsonNode *value;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      set_member_error (error, "labels", "wrong_type",
                        _ ("must be an object of strings"));
      return FALSE;
    }
  json_object_iter_init (&iter, json_node_get_object (node));
  while (json_object_iter_next (&iter, &key, &value))
    {
      if (!node_is (value, G_TYPE_STRING) || !label_key_allowed (key))
        {
          set_member_error (error, "labels", "wrong_type",
                            _ ("must be an object of strings outside the "
                               "org.gnome.agents. namespace"));
          return FALSE;
        }
      g_hash_table_insert (self->labels, g_strdup (key),
                           g_strdup (json_node_get_string (value)));
    }
  return TRUE;
}

static gboolean
container_id_valid (const char *id)
{
  gsize len = strlen (id);

  if (len < 12 || len > 64)
    return FALSE;
  for (const char *p = id; *p != '\0'; p++)
    if (!g_ascii_isxdigit (*p))
      return FALSE;
  return TRUE;
}

static gboolean
check_loaded (AgentsDockerSessionState *self, GError **error)
{
  if (!image_name_valid (self->image))
    {
      set_member_error (error, "image", "invalid",
                        _ ("is not a valid image reference"));
      return FALSE;
    }
  if (self->container_id != NULL && !container_id_valid (self->container_id))
    {
      set_member_error (error, "container_id", "invalid",
                        _ ("is not a container id"));
      return FALSE;
    }
  if (self->network_mode != NULL && !network_name_valid (self->network_mode))
    {
      set_member_error (error, "network_mode", "invalid",
                        _ ("is not a valid network name"));
      return FALSE;
    }
  if (self->network_mode == NULL && self->exposed_ports->len > 0)
    {
      set_member_error (error, "exposed_ports", "invalid",
                        _ ("needs a network"));
      return FALSE;
    }
  return check_root (agents_sandbox_session_state_get_manifest (
                       AGENTS_SANDBOX_SESSION_STATE (self)),
                     error);
}

static gboolean
state_deserialize_fields (AgentsSandboxSessionState *state,
                          JsonObject *object,
                          GError **error)
{
  AgentsDockerSessionState *self = AGENTS_DOCKER_SESSION_STATE (state);

  if (!load_string (object, "image", FALSE, &self->image, error) ||
      !load_string (object, "container_id", TRUE, &self->container_id, error) ||
      !load_string (object, "network_mode", TRUE, &self->network_mode, error) ||
      !load_string (object, "docker_host", TRUE, &self->docker_host, error) ||
      !load_ports (self, object, error) || !load_labels (self, object, error) ||
      !load_int (object, "memory_bytes", &self->memory_bytes, error) ||
      !load_int (object, "nano_cpus", &self->nano_cpus, error) ||
      !load_int (object, "pids_limit", &self->pids_limit, error) ||
      !load_bool (object, "read_only_root", &self->read_only_root, error))
    return FALSE;
  if (self->network_mode != NULL && g_str_equal (self->network_mode, "none"))
    g_clear_pointer (&self->network_mode, g_free);
  return check_loaded (self, error);
}

static void
state_copy_fields (AgentsSandboxSessionState *state,
                   AgentsSandboxSessionState *dest_state)
{
  AgentsDockerSessionState *self = AGENTS_DOCKER_SESSION_STATE (state);
  AgentsDockerSessionState *dest = AGENTS_DOCKER_SESSION_STATE (dest_state);
  GHashTableIter iter;
  gpointer key, value;

  dest->image = g_strdup (self->image);
  dest->container_id = g_strdup (self->container_id);
  dest->network_mode = g_strdup (self->network_mode);
  dest->docker_host = g_strdup (self->docker_host);
  g_array_append_vals (dest->exposed_ports, self->exposed_ports->data,
                       self->exposed_ports->len);
  g_hash_table_iter_init (&iter, self->labels);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_hash_table_insert (dest->labels, g_strdup (key), g_strdup (value));
  dest->memory_bytes = self->memory_bytes;
  dest->nano_cpus = self->nano_cpus;
  dest->pids_limit = self->pids_limit;
  dest->read_only_root = self->read_only_root;
  dest->allow_host_network = self->allow_host_network;
}

static void
agents_docker_session_state_finalize (GObject *object)
{
  AgentsDockerSessionState *self = AGENTS_DOCKER_SESSION_STATE (object);

  g_free (self->image);
  g_free (self->container_id);
  g_free (self->network_mode);
  g_free (self->docker_host);
  g_array_unref (self->exposed_ports);
  g_hash_table_unref (self->labels);

  G_OBJECT_CLASS (agents_docker_session_state_parent_class)->finalize (object);
}

static void
agents_docker_session_state_class_init (AgentsDockerSessionStateClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  AgentsSandboxSessionStateClass *state_class =
    AGENTS_SANDBOX_SESSION_STATE_CLASS (klass);

  object_class->finalize = agents_docker_session_state_finalize;
  state_class->type_name = "docker";
  state_class->serialize_fields = state_serialize_fields;
  state_class->deserialize_fields = state_deserialize_fields;
  state_class->copy_fields = state_copy_fields;
}

static void
agents_docker_session_state_init (AgentsDockerSessionState *self)
{
  self->exposed_ports = g_array_new (FALSE, FALSE, sizeof (int));
  self->labels =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

/* ---- accessors ------------------------------------------------------ */

const char *
agents_docker_session_state_get_image (AgentsDockerSessionState *self)
{
  g_return_val_if_fail (AGENTS_IS_DOCKER_SESSION_STATE (self), NULL);
  return self->image;
}

const char *
agents_docker_session_state_get_container_id (AgentsDockerSessionState *self)
{
  g_return_val_if_fail (AGENTS_IS_DOCKER_SESSION_STATE (self), NULL);
  return self->container_id;
}

void
agents_docker_session_state_set_container_id (AgentsDockerSessionState *self,
                                              const char *container_id)
{
  g_return_if_fail (AGENTS_IS_DOCKER_SESSION_STATE (self));
  g_free (self->container_id);
  self->container_id = g_strdup (container_id);
}

const char *
agents_docker_session_state_get_network_mode (AgentsDockerSessionState *self)
{
  g_return_val_if_fail (AGENTS_IS_DOCKER_SESSION_STATE (self), NULL);
  return self->network_mode;
}

GArray *
agents_docker_session_state_get_exposed_ports (AgentsDockerSessionState *self)
{
  g_return_val_if_fail (AGENTS_IS_DOCKER_SESSION_STATE (self), NULL);
  return self->exposed_ports;
}

GHashTable *
agents_docker_session_state_get_labels (AgentsDockerSessionState *self)
{
  g_return_val_if_fail (AGENTS_IS_DOCKER_SESSION_STATE (self), NULL);
  return self->labels;
}

void
agents_docker_session_state_get_limits (AgentsDockerSessionState *self,
                                        gint64 *memory_bytes,
                                        gint64 *nano_cpus,
                                        gint64 *pids_limit)
{
  g_return_if_fail (AGENTS_IS_DOCKER_SESSION_STATE (self));
  *memory_bytes = self->memory_bytes;
  *nano_cpus = self->nano_cpus;
  *pids_limit = self->pids_limit;
}

const char *
agents_docker_session_state_get_docker_host (AgentsDockerSessionState *self)
{
  g_return_val_if_fail (AGENTS_IS_DOCKER_SESSION_STATE (self), NULL);
  return self->docker_host;
}

gboolean
agents_docker_session_state_get_read_only_root (AgentsDockerSessionState *self)
{
  g_return_val_if_fail (AGENTS_IS_DOCKER_SESSION_STATE (self), FALSE);
  return self->read_only_root;
}

/* ---- a saved state against the caller's configuration --------------- */

static gboolean
refuse_member (GError **error,
               const char *member,
               const char *saved,
               const char *configured)
{
  agents_sandbox_error_set (
    error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
    g_variant_new_parsed ("{'member': <%s>, 'reason': <'not_configured'>, "
                          "'saved': <%s>, 'configured': <%s>}",
                          member, saved, configured),
    _ ("the saved docker session state's “%s” (%s) differs from the "
       "caller's configuration (%s): a saved state cannot choose where or "
       "how its container runs; resume it with the options it was created "
       "with"),
    member, saved, configured);
  return FALSE;
}

static gboolean
check_string (const char *member,
              const char *saved,
              const char *configured,
              const char *unset,
              GError **error)
{
  g_autofree char *s = NULL;
  g_autofree char *c = NULL;

  if (g_strcmp0 (saved, configured) == 0)
    return TRUE;
  s = saved ? g_strdup_printf ("“%s”", saved) : g_strdup (unset);
  c = configured ? g_strdup_printf ("“%s”", configured) : g_strdup (unset);
  return refuse_member (error, member, s, c);
}

static gboolean
check_int (const char *member, gint64 saved, gint64 configured, GError **error)
{
  char s[32], c[32];

  if (saved == configured)
    return TRUE;
  g_snprintf (s, sizeof s, "%" G_GINT64_FORMAT, saved);
  g_snprintf (c, sizeof c, "%" G_GINT64_FORMAT, configured);
  return refuse_member (error, member, saved > 0 ? s : "null",
                        configured > 0 ? c : "null");
}

static gboolean
same_ports (GArray *a, GArray *b)
{
  if (a->len != b->len)
    return FALSE;
  for (guint i = 0; i < a->len; i++)
    {
      gboolean found = FALSE;

      for (guint j = 0; j < b->len && !found; j++)
        found = g_array_index (a, int, i) == g_array_index (b, int, j);
      if (!found)
        return FALSE;
    }
  return TRUE;
}

static gboolean
same_labels (GHashTable *a, GHashTable *b)
{
  GHashTableIter iter;
  gpointer key, value;

  if (g_hash_table_size (a) != g_hash_table_size (b))
    return FALSE;
  g_hash_table_iter_init (&iter, a);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (g_strcmp0 (value, g_hash_table_lookup (b, key)) != 0)
      return FALSE;
  return TRUE;
}

/* Every member that says where or how the container runs. The image is
 * compared only when the caller pins one. */
static gboolean
check_members (AgentsDockerSessionState *saved,
               AgentsDockerSessionState *configured,
               GError **error)
{
  return check_string ("docker_host", saved->docker_host,
                       configured->docker_host, _ ("the default engine"),
                       error) &&
         (configured->image == NULL ||
          check_string ("image", saved->image, configured->image, "", error)) &&
         check_string ("network_mode", saved->network_mode,
                       configured->network_mode, _ ("no network"), error) &&
         (same_ports (saved->exposed_ports, configured->exposed_ports) ||
          refuse_member (error, "exposed_ports", _ ("other ports"),
                         _ ("the configured ports"))) &&
         (same_labels (saved->labels, configured->labels) ||
          refuse_member (error, "labels", _ ("other labels"),
                         _ ("the configured labels"))) &&
         check_int ("memory_bytes", saved->memory_bytes,
                    configured->memory_bytes, error) &&
         check_int ("nano_cpus", saved->nano_cpus, configured->nano_cpus,
                    error) &&
         check_int ("pids_limit", saved->pids_limit, configured->pids_limit,
                    error) &&
         (saved->read_only_root == configured->read_only_root ||
          refuse_member (error, "read_only_root",
                         saved->read_only_root ? "true" : "false",
                         configured->read_only_root ? "true" : "false"));
}

static char *
canonical_dir (const char *path)
{
  g_autofree char *real = realpath (path, NULL);

  return real ? g_strdup (real) : g_canonicalize_filename (path, NULL);
}

/* A local snapshot is read from and written to its base path: only the
 * directory the caller configured will do. A noop snapshot touches
 * nothing; another type must be the caller's type. */
static gboolean
check_snapshot (AgentsDockerSessionState *saved,
                GObject *configured_spec,
                GError **error)
{
  AgentsSandboxSessionState *state = AGENTS_SANDBOX_SESSION_STATE (saved);
  AgentsSnapshot *snapshot = agents_sandbox_session_state_get_snapshot (state);
  g_autoptr (GObject) default_spec = NULL;
  g_autoptr (AgentsSnapshot) configured = NULL;
  g_autofree char *saved_dir = NULL;
  g_autofree char *configured_dir = NULL;
  const char *saved_type, *configured_type;

  if (snapshot == NULL || AGENTS_IS_NOOP_SNAPSHOT (snapshot))
    return TRUE;
  if (configured_spec == NULL)
    configured_spec = default_spec =
      G_OBJECT (agents_local_snapshot_spec_new (NULL));
  configured = agents_snapshot_resolve (
    configured_spec, agents_sandbox_session_state_get_session_id (state));
  saved_type = agents_snapshot_get_snapshot_type (snapshot);
  configured_type = agents_snapshot_get_snapshot_type (configured);
  if (!check_string ("snapshot.type", saved_type, configured_type, "", error))
    return FALSE;
  if (!AGENTS_IS_LOCAL_SNAPSHOT (snapshot))
    return TRUE;
  saved_dir = canonical_dir (
    agents_local_snapshot_get_base_path (AGENTS_LOCAL_SNAPSHOT (snapshot)));
  configured_dir = canonical_dir (
    agents_local_snapshot_get_base_path (AGENTS_LOCAL_SNAPSHOT (configured)));
  if (!check_string ("snapshot.base_path", saved_dir, configured_dir, "",
                     error))
    return FALSE;
  /* From here on the files are found through the caller's own path,
   * not through the state's spelling of it. */
  {
    g_autofree char *id = g_strdup (agents_snapshot_get_id (snapshot));
    g_autoptr (AgentsSnapshot) own = agents_local_snapshot_new (
      id,
      agents_local_snapshot_get_base_path (AGENTS_LOCAL_SNAPSHOT (configured)));

    agents_sandbox_session_state_set_snapshot (state, own);
  }
  return TRUE;
}

gboolean
agents_docker_session_state_check_configuration (AgentsDockerSessionState *self,
                                                 GVariant *options,
                                                 GObject *snapshot,
                                                 GError **error)
{
  g_autoptr (AgentsDockerSessionState) configured = NULL;

  g_return_val_if_fail (AGENTS_IS_DOCKER_SESSION_STATE (self), FALSE);

  if (!check_options_type (options, error))
    return FALSE;
  configured = g_object_new (AGENTS_TYPE_DOCKER_SESSION_STATE, NULL);
  if (!state_read_options (configured, options, FALSE, error) ||
      !check_members (self, configured, error) ||
      !check_snapshot (self, snapshot, error))
    return FALSE;
  self->allow_host_network = configured->allow_host_network;
  return TRUE;
}
