/* agents-env-value.c - typed values of a manifest's environment
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-env-value.h"
#include "agents-json-private.h"
#include "agents-manifest.h"
#include "agents-registry.h"
#include "agents-sandbox-error-private.h"
#include "agents-typed-json-private.h"

/**
 * AgentsEnvValue:
 *
 * A value of a manifest's environment that is more than a string: the
 * reference's `EnvValue`. Its JSON is `{"type": …}` plus the members of
 * its class (see #AgentsTypedJson); the built-in `str` type
 * (#AgentsStrEnvValue) is `{"type": "str", "value": …}`. Other types —
 * a reference to a secret, say — are registered by programs in any
 * language and find their text asynchronously with
 * agents_env_value_resolve_async(); their JSON holds what finds the
 * text, never the text.
 *
 * A value may carry a description and be ephemeral (the reference's
 * environment *entry*); the manifest then writes it as
 * `{"value": {"type": …}, "description": …, "ephemeral": …}`.
 */

typedef struct
{
  char *description;
  gboolean ephemeral;
} AgentsEnvValuePrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (AgentsEnvValue,
                                     agents_env_value,
                                     G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_DESCRIPTION,
  PROP_EPHEMERAL,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static AgentsTypedJsonFamily env_value_family;

static void
agents_env_value_finalize (GObject *object)
{
  AgentsEnvValuePrivate *priv =
    agents_env_value_get_instance_private (AGENTS_ENV_VALUE (object));

  g_free (priv->description);
  G_OBJECT_CLASS (agents_env_value_parent_class)->finalize (object);
}

static void
agents_env_value_get_property (GObject *object,
                               guint prop_id,
                               GValue *value,
                               GParamSpec *pspec)
{
  AgentsEnvValue *self = AGENTS_ENV_VALUE (object);

  switch (prop_id)
    {
    case PROP_DESCRIPTION:
      g_value_set_string (value, agents_env_value_get_description (self));
      break;
    case PROP_EPHEMERAL:
      g_value_set_boolean (value, agents_env_value_get_ephemeral (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_env_value_set_property (GObject *object,
                               guint prop_id,
                               const GValue *value,
                               GParamSpec *pspec)
{
  AgentsEnvValue *self = AGENTS_ENV_VALUE (object);

  switch (prop_id)
    {
    case PROP_DESCRIPTION:
      agents_env_value_set_description (self, g_value_get_string (value));
      break;
    case PROP_EPHEMERAL:
      agents_env_value_set_ephemeral (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_env_value_real_resolve (AgentsEnvValue *self, GTask *task)
{
  g_task_return_error (
    task, agents_sandbox_error_new (AGENTS_SANDBOX_ERROR_NOT_SUPPORTED, NULL,
                                    _ ("%s does not support %s"),
                                    G_OBJECT_TYPE_NAME (self), "resolve"));
}

static void
agents_env_value_class_init (AgentsEnvValueClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags =
    G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  env_value_family.base = G_TYPE_FROM_CLASS (klass);
  agents_typed_json_define_family (&env_value_family);

  object_class->finalize = agents_env_value_finalize;
  object_class->get_property = agents_env_value_get_property;
  object_class->set_property = agents_env_value_set_property;
  klass->resolve = agents_env_value_real_resolve;

  /**
   * AgentsEnvValue:description:
   *
   * What the variable is for, or %NULL.
   */
  properties[PROP_DESCRIPTION] =
    g_param_spec_string ("description", NULL, NULL, NULL, flags);

  /**
   * AgentsEnvValue:ephemeral:
   *
   * Whether the variable is set again on every resume rather than kept.
   */
  properties[PROP_EPHEMERAL] =
    g_param_spec_boolean ("ephemeral", NULL, NULL, FALSE, flags);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
agents_env_value_init (AgentsEnvValue *self)
{
}

static AgentsEnvValuePrivate *
get_priv (AgentsEnvValue *self)
{
  return agents_env_value_get_instance_private (self);
}

/**
 * agents_env_value_get_value_type:
 * @self: an environment value
 *
 * Gets the JSON `type` that the class of @self is registered under.
 *
 * Returns: (nullable): the type name, %NULL if the class is not
 *   registered
 */
const char *
agents_env_value_get_value_type (AgentsEnvValue *self)
{
  g_return_val_if_fail (AGENTS_IS_ENV_VALUE (self), NULL);

  return agents_typed_json_get_type_name (AGENTS_TYPE_ENV_VALUE,
                                          G_OBJECT_TYPE (self));
}

/**
 * agents_env_value_get_description:
 * @self: an environment value
 *
 * Gets #AgentsEnvValue:description.
 *
 * Returns: (nullable): the description
 */
const char *
agents_env_value_get_description (AgentsEnvValue *self)
{
  g_return_val_if_fail (AGENTS_IS_ENV_VALUE (self), NULL);

  return get_priv (self)->description;
}

/**
 * agents_env_value_set_description:
 * @self: an environment value
 * @description: (nullable): the description
 *
 * Sets #AgentsEnvValue:description.
 */
void
agents_env_value_set_description (AgentsEnvValue *self, const char *description)
{
  AgentsEnvValuePrivate *priv;

  g_return_if_fail (AGENTS_IS_ENV_VALUE (self));

  priv = get_priv (self);
  if (g_strcmp0 (priv->description, description) == 0)
    return;
  g_free (priv->description);
  priv->description = g_strdup (description);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DESCRIPTION]);
}

/**
 * agents_env_value_get_ephemeral:
 * @self: an environment value
 *
 * Gets #AgentsEnvValue:ephemeral.
 *
 * Returns: whether the variable is ephemeral
 */
gboolean
agents_env_value_get_ephemeral (AgentsEnvValue *self)
{
  g_return_val_if_fail (AGENTS_IS_ENV_VALUE (self), FALSE);

  return get_priv (self)->ephemeral;
}

/**
 * agents_env_value_set_ephemeral:
 * @self: an environment value
 * @ephemeral: whether the variable is ephemeral
 *
 * Sets #AgentsEnvValue:ephemeral.
 */
void
agents_env_value_set_ephemeral (AgentsEnvValue *self, gboolean ephemeral)
{
  g_return_if_fail (AGENTS_IS_ENV_VALUE (self));

  ephemeral = !!ephemeral;
  if (get_priv (self)->ephemeral == ephemeral)
    return;
  get_priv (self)->ephemeral = ephemeral;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_EPHEMERAL]);
}

/**
 * agents_env_value_resolve_async:
 * @self: an environment value
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the text
 * @user_data: data for @callback
 *
 * Finds the text of the variable.
 */
void
agents_env_value_resolve_async (AgentsEnvValue *self,
                                GCancellable *cancellable,
                                GAsyncReadyCallback callback,
                                gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_ENV_VALUE (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_env_value_resolve_async);
  AGENTS_ENV_VALUE_GET_CLASS (self)->resolve (self, task);
}

/**
 * agents_env_value_resolve_finish:
 * @self: an environment value
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_env_value_resolve_async().
 *
 * Returns: (transfer full): the text, or %NULL with @error set
 */
char *
agents_env_value_resolve_finish (AgentsEnvValue *self,
                                 GAsyncResult *result,
                                 GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- JSON ------------------------------------------------------------ */

static char *
unknown_env_type_message (const char *type_name, const char *known)
{
  return g_strdup_printf (
    _ ("unknown env value type `%s`. Registered types: %s"), type_name, known);
}

static char *
missing_env_type_message (void)
{
  return g_strdup (_ ("env value mapping must include a string `type` field"));
}

static char *
env_not_object_message (const char *json_type)
{
  return g_strdup_printf (
    _ ("env value must be a string or a JSON object, got %s"), json_type);
}

static void
write_env_fields (GObject *object, JsonBuilder *builder)
{
  AgentsEnvValue *self = AGENTS_ENV_VALUE (object);
  AgentsEnvValueClass *klass = AGENTS_ENV_VALUE_GET_CLASS (self);

  if (klass->serialize_fields != NULL)
    klass->serialize_fields (self, builder);
}

static gboolean
read_env_fields (GObject *object, JsonObject *json, GError **error)
{
  AgentsEnvValue *self = AGENTS_ENV_VALUE (object);
  AgentsEnvValueClass *klass = AGENTS_ENV_VALUE_GET_CLASS (self);

  return klass->deserialize_fields == NULL ||
         klass->deserialize_fields (self, json, error);
}

/* Completed (its base) when the class is initialized. */
static AgentsTypedJsonFamily env_value_family = {
  .label = N_ ("env value type"),
  .member = "env value",
  .unknown_type_message = unknown_env_type_message,
  .missing_type_message = missing_env_type_message,
  .not_object_message = env_not_object_message,
  .write_fields = write_env_fields,
  .read_fields = read_env_fields,
  .load_types = agents_registry_load_plugins,
};

/**
 * agents_env_value_to_json:
 * @self: an environment value
 *
 * Serializes @self as `{"type": …}` plus the members of its class. The
 * description and ephemeral flag are the manifest's to write.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
agents_env_value_to_json (AgentsEnvValue *self)
{
  g_return_val_if_fail (AGENTS_IS_ENV_VALUE (self), NULL);

  return agents_typed_json_to_json (AGENTS_TYPE_ENV_VALUE, G_OBJECT (self));
}

/**
 * agents_env_value_new_from_json:
 * @node: an untrusted JSON node
 * @error: return location for a #GError
 *
 * Creates the value that @node describes, looking its `type` up among
 * the registered environment value types.
 *
 * Returns: (transfer full): the value, or %NULL with @error set
 */
AgentsEnvValue *
agents_env_value_new_from_json (JsonNode *node, GError **error)
{
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return AGENTS_ENV_VALUE (
    agents_typed_json_new_from_json (AGENTS_TYPE_ENV_VALUE, node, error));
}

/**
 * agents_env_value_equal:
 * @a: (nullable): an environment value
 * @b: (nullable): an environment value
 *
 * Compares two values by type, JSON form, description and ephemeral
 * flag.
 *
 * Returns: whether @a and @b are equal
 */
gboolean
agents_env_value_equal (AgentsEnvValue *a, AgentsEnvValue *b)
{
  g_autoptr (JsonNode) ja = NULL;
  g_autoptr (JsonNode) jb = NULL;

  if (a == NULL || b == NULL || a == b)
    return a == b;
  g_return_val_if_fail (AGENTS_IS_ENV_VALUE (a), FALSE);
  g_return_val_if_fail (AGENTS_IS_ENV_VALUE (b), FALSE);

  if (G_OBJECT_TYPE (a) != G_OBJECT_TYPE (b) ||
      g_strcmp0 (get_priv (a)->description, get_priv (b)->description) != 0 ||
      get_priv (a)->ephemeral != get_priv (b)->ephemeral)
    return FALSE;
  ja = agents_env_value_to_json (a);
  jb = agents_env_value_to_json (b);
  return json_node_equal (ja, jb);
}

/* ---- str --------------------------------------------------------------- */

/**
 * AgentsStrEnvValue:
 *
 * A literal text: `{"type": "str", "value": …}`, the reference's
 * `StrEnvValue`.
 */

struct _AgentsStrEnvValue
{
  AgentsEnvValue parent_instance;

  char *value;
};

G_DEFINE_FINAL_TYPE (AgentsStrEnvValue,
                     agents_str_env_value,
                     AGENTS_TYPE_ENV_VALUE)

static void
agents_str_env_value_finalize (GObject *object)
{
  g_free (AGENTS_STR_ENV_VALUE (object)->value);
  G_OBJECT_CLASS (agents_str_env_value_parent_class)->finalize (object);
}

static void
str_serialize_fields (AgentsEnvValue *value, JsonBuilder *builder)
{
  agents_json_add_string (builder, "value",
                          AGENTS_STR_ENV_VALUE (value)->value);
}

static gboolean
str_deserialize_fields (AgentsEnvValue *value,
                        JsonObject *object,
                        GError **error)
{
  AgentsStrEnvValue *self = AGENTS_STR_ENV_VALUE (value);
  JsonNode *text = json_object_get_member (object, "value");

  if (text == NULL || !agents_json_holds (text, G_TYPE_STRING))
    {
      agents_json_set_wrong_type (error, "value", _ ("a string"));
      return FALSE;
    }
  g_free (self->value);
  self->value = g_strdup (json_node_get_string (text));
  return TRUE;
}

static void
str_resolve (AgentsEnvValue *value, GTask *task)
{
  g_task_return_pointer (task, g_strdup (AGENTS_STR_ENV_VALUE (value)->value),
                         g_free);
}

static void
agents_str_env_value_class_init (AgentsStrEnvValueClass *klass)
{
  AgentsEnvValueClass *value_class = AGENTS_ENV_VALUE_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = agents_str_env_value_finalize;
  value_class->serialize_fields = str_serialize_fields;
  value_class->deserialize_fields = str_deserialize_fields;
  value_class->resolve = str_resolve;
}

static void
agents_str_env_value_init (AgentsStrEnvValue *self)
{
  self->value = g_strdup ("");
}

/**
 * agents_str_env_value_new:
 * @value: the text
 *
 * Creates a `str` environment value.
 *
 * Returns: (transfer full): the value
 */
AgentsEnvValue *
agents_str_env_value_new (const char *value)
{
  AgentsStrEnvValue *self;

  g_return_val_if_fail (value != NULL, NULL);

  self = g_object_new (AGENTS_TYPE_STR_ENV_VALUE, NULL);
  g_free (self->value);
  self->value = g_strdup (value);
  return AGENTS_ENV_VALUE (self);
}

/**
 * agents_str_env_value_get_value:
 * @self: a `str` environment value
 *
 * Gets the text.
 *
 * Returns: the text
 */
const char *
agents_str_env_value_get_value (AgentsStrEnvValue *self)
{
  g_return_val_if_fail (AGENTS_IS_STR_ENV_VALUE (self), NULL);

  return self->value;
}

/* ---- resolving a manifest's environment ------------------------------- */

/* Every typed value resolves at once; the first failure cancels the
 * others and the operation ends with it once all have finished, so that
 * no resolver is still running when the caller hears of the failure. */
typedef struct
{
  GHashTable *values;     /* name → text */
  GCancellable *siblings; /* cancels every resolver */
  GCancellable *caller;   /* the task's cancellable, or NULL */
  gulong caller_handler;
  guint pending;
  GError *error; /* the first failure */
} ResolveAll;

static void
resolve_all_free (gpointer data)
{
  ResolveAll *op = data;

  if (op->caller_handler != 0)
    g_cancellable_disconnect (op->caller, op->caller_handler);
  g_clear_object (&op->caller);
  g_clear_object (&op->siblings);
  g_clear_pointer (&op->values, g_hash_table_unref);
  g_clear_error (&op->error);
  g_free (op);
}

static void
cancel_siblings (GCancellable *caller, gpointer data)
{
  g_cancellable_cancel (G_CANCELLABLE (data));
}

typedef struct
{
  GTask *task;
  char *name;
} ResolveOne;

static void
finish_if_done (GTask *task)
{
  ResolveAll *op = g_task_get_task_data (task);

  if (op->pending > 0)
    return;
  if (op->error != NULL)
    g_task_return_error (task, g_steal_pointer (&op->error));
  else
    g_task_return_pointer (task, g_hash_table_ref (op->values),
                           (GDestroyNotify) g_hash_table_unref);
}

static void
on_value_resolved (GObject *source, GAsyncResult *result, gpointer data)
{
  ResolveOne *one = data;
  g_autoptr (GTask) task = one->task;
  g_autofree char *name = one->name;
  ResolveAll *op = g_task_get_task_data (task);
  GError *error = NULL;
  char *text;

  g_free (one);
  text =
    agents_env_value_resolve_finish (AGENTS_ENV_VALUE (source), result, &error);
  if (text != NULL)
    g_hash_table_replace (op->values, g_steal_pointer (&name), text);
  else if (op->error == NULL)
    {
      op->error = error;
      g_cancellable_cancel (op->siblings);
    }
  else
    g_error_free (error);

  op->pending--;
  finish_if_done (task);
}

/**
 * agents_manifest_resolve_environment_async:
 * @self: an #AgentsManifest
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the environment
 * @user_data: data for @callback
 *
 * Finds the text of every variable of the environment: plain strings as
 * they are, typed values (#AgentsEnvValue) through their resolvers, all
 * at once. When one fails, the others are cancelled and the operation
 * fails with the first error after every resolver has finished.
 */
void
agents_manifest_resolve_environment_async (AgentsManifest *self,
                                           GCancellable *cancellable,
                                           GAsyncReadyCallback callback,
                                           gpointer user_data)
{
  g_autoptr (GTask) task = NULL;
  g_auto (GStrv) names = NULL;
  ResolveAll *op;

  g_return_if_fail (AGENTS_IS_MANIFEST (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_manifest_resolve_environment_async);
  op = g_new0 (ResolveAll, 1);
  op->values = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  op->siblings = g_cancellable_new ();
  g_task_set_task_data (task, op, resolve_all_free);
  if (cancellable != NULL)
    {
      op->caller = g_object_ref (cancellable);
      op->caller_handler =
        g_cancellable_connect (cancellable, G_CALLBACK (cancel_siblings),
                               g_object_ref (op->siblings), g_object_unref);
    }

  names = agents_manifest_get_env_names (self);
  /* Counted before any resolver can finish, even synchronously. */
  op->pending = 1;
  for (guint i = 0; names[i] != NULL; i++)
    {
      AgentsEnvValue *value = agents_manifest_get_env_value (self, names[i]);
      ResolveOne *one;

      if (value == NULL)
        {
          g_hash_table_replace (
            op->values, g_strdup (names[i]),
            g_strdup (agents_manifest_get_env (self, names[i])));
          continue;
        }
      one = g_new0 (ResolveOne, 1);
      one->task = g_object_ref (task);
      one->name = g_strdup (names[i]);
      op->pending++;
      agents_env_value_resolve_async (value, op->siblings, on_value_resolved,
                                      one);
    }
  op->pending--;
  finish_if_done (task);
}

/**
 * agents_manifest_resolve_environment_finish:
 * @self: an #AgentsManifest
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_manifest_resolve_environment_async().
 *
 * Returns: (transfer full) (element-type utf8 utf8): the variables and
 *   their texts, or %NULL with @error set
 */
GHashTable *
agents_manifest_resolve_environment_finish (AgentsManifest *self,
                                            GAsyncResult *result,
                                            GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
