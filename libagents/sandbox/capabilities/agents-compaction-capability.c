/* agents-compaction-capability.c - server-side compaction of long contexts
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-compaction-capability.h"
#include "agents-compaction-windows-private.h"
#include "agents-sandbox-error-private.h"

/**
 * AgentsCompactionCapability:
 *
 * The `compaction` capability: asks the model service to compact long
 * contexts, and drops the model input that precedes the last
 * `compaction` item (the service's summary of everything before it).
 *
 * Every model call carries, in the model settings' extra arguments,
 *
 * |[
 * {"context_management": [{"type": "compaction", "compact_threshold": N}]}
 * ]|
 *
 * where `N` comes from #AgentsCompactionCapability:policy:
 *
 * - `{"type": "static", "threshold": N}`: `N` tokens (240,000 when
 *   `threshold` is left out);
 * - `{"type": "dynamic", "model_info": {"context_window": W},
 *   "threshold": S}`: `W × S` tokens, truncated (`S` is a share between 0
 *   and 1, 0.9 when left out);
 * - no policy (the default): 90 % of the context window of the model the
 *   agent runs with when it is a model the reference knows (for instance
 *   942,818 tokens for `gpt-5.6-sol`, 360,000 for `gpt-5.1`), else
 *   240,000 tokens. The model name is looked up lowercased, without an
 *   `openai/` prefix and without `.` and `-`.
 *
 * Only the Responses API understands `context_management`; the Chat
 * Completions API has no compaction.
 *
 * In an agent file: `{"type": "compaction", "policy": {"type": "static",
 * "threshold": 200000}}`. An unknown policy type is refused when the
 * capability is initialized (#GInitable) or the policy set with
 * agents_compaction_capability_set_policy().
 */

typedef enum
{
  POLICY_NONE,
  POLICY_STATIC,
  POLICY_DYNAMIC,
} PolicyKind;

struct _AgentsCompactionCapability
{
  GObject parent_instance;

  JsonNode *policy; /* as configured, NULL for none */
  PolicyKind kind;
  gint64 threshold;      /* static */
  gint64 context_window; /* dynamic */
  double share;          /* dynamic */
  GError *policy_error;  /* why @policy is unusable, or NULL */
};

enum
{
  PROP_0,
  PROP_POLICY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void compaction_initable_iface_init (GInitableIface *iface);
static void compaction_capability_iface_init (AgentsCapabilityInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  AgentsCompactionCapability,
  agents_compaction_capability,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (G_TYPE_INITABLE, compaction_initable_iface_init)
    G_IMPLEMENT_INTERFACE (AGENTS_TYPE_CAPABILITY,
                           compaction_capability_iface_init))

/* ---- policies ---------------------------------------------------------- */

static void
policy_error (GError **error, const char *message)
{
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, NULL,
                            "%s", message);
}

static gboolean
is_integer (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
         json_node_get_value_type (node) == G_TYPE_INT64;
}

static gboolean
is_number (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
         (json_node_get_value_type (node) == G_TYPE_INT64 ||
          json_node_get_value_type (node) == G_TYPE_DOUBLE);
}

static gboolean
parse_static (AgentsCompactionCapability *self,
              JsonObject *object,
              GError **error)
{
  JsonNode *threshold = json_object_get_member (object, "threshold");

  if (threshold != NULL && !is_integer (threshold))
    {
      policy_error (error, _ ("a static compaction threshold must be an "
                              "integer number of tokens"));
      return FALSE;
    }
  self->kind = POLICY_STATIC;
  self->threshold = threshold ? json_node_get_int (threshold)
                              : AGENTS_COMPACTION_DEFAULT_THRESHOLD;
  return TRUE;
}

static gboolean
parse_dynamic (AgentsCompactionCapability *self,
               JsonObject *object,
               GError **error)
{
  JsonNode *info = json_object_get_member (object, "model_info");
  JsonNode *share = json_object_get_member (object, "threshold");
  JsonNode *window = NULL;

  if (info != NULL && JSON_NODE_HOLDS_OBJECT (info))
    window =
      json_object_get_member (json_node_get_object (info), "context_window");
  if (!is_integer (window))
    {
      policy_error (error, _ ("a dynamic compaction policy needs "
                              "model_info.context_window, an integer"));
      return FALSE;
    }
  if (share != NULL &&
      (!is_number (share) || json_node_get_double (share) < 0.0 ||
       json_node_get_double (share) > 1.0))
    {
      policy_error (error, _ ("a dynamic compaction threshold must be a "
                              "number between 0 and 1"));
      return FALSE;
    }
  self->kind = POLICY_DYNAMIC;
  self->context_window = json_node_get_int (window);
  self->share =
    share ? json_node_get_double (share) : AGENTS_COMPACTION_DEFAULT_SHARE;
  return TRUE;
}

/* The reference's message names the type as Python's repr() does. */
static char *
type_repr (JsonNode *type)
{
  if (type == NULL || JSON_NODE_HOLDS_NULL (type))
    return g_strdup ("None");
  if (JSON_NODE_HOLDS_VALUE (type) &&
      json_node_get_value_type (type) == G_TYPE_STRING)
    return agents_compaction_py_repr (json_node_get_string (type));
  return json_to_string (type, FALSE);
}

static gboolean
parse_policy (AgentsCompactionCapability *self,
              JsonNode *policy,
              GError **error)
{
  JsonObject *object;
  const char *type;

  self->kind = POLICY_NONE;
  if (policy == NULL || JSON_NODE_HOLDS_NULL (policy))
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (policy))
    {
      policy_error (error,
                    _ ("a compaction policy is an object with a “type”"));
      return FALSE;
    }
  object = json_node_get_object (policy);
  type = json_object_get_string_member_with_default (object, "type", NULL);
  if (g_strcmp0 (type, "static") == 0)
    return parse_static (self, object, error);
  if (g_strcmp0 (type, "dynamic") == 0)
    return parse_dynamic (self, object, error);
  {
    g_autofree char *shown =
      type_repr (json_object_get_member (object, "type"));

    /* The reference's wording, untranslated like its other errors. */
    agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                              NULL, "Unsupported compaction policy type: %s",
                              shown);
  }
  return FALSE;
}

/* Stores @policy (a copy) and what it says; an unusable one is kept with
 * its error, which init and the setter report. */
static void
store_policy (AgentsCompactionCapability *self, JsonNode *policy)
{
  g_clear_pointer (&self->policy, json_node_unref);
  g_clear_error (&self->policy_error);
  if (policy != NULL && !JSON_NODE_HOLDS_NULL (policy))
    self->policy = json_node_copy (policy);
  if (!parse_policy (self, self->policy, &self->policy_error))
    self->kind = POLICY_NONE;
}

static gint64
threshold_for (AgentsCompactionCapability *self, const char *model)
{
  gint64 window;

  switch (self->kind)
    {
    case POLICY_STATIC:
      return self->threshold;
    case POLICY_DYNAMIC:
      return (gint64) ((double) self->context_window * self->share);
    case POLICY_NONE:
    default:
      break;
    }
  window =
    model && *model ? agents_compaction_lookup_context_window (model) : 0;
  if (window == 0)
    return AGENTS_COMPACTION_DEFAULT_THRESHOLD;
  return (gint64) ((double) window * AGENTS_COMPACTION_DEFAULT_SHARE);
}

/* ---- the capability ---------------------------------------------------- */

static const char *
compaction_get_capability_type (AgentsCapability *self)
{
  return "compaction";
}

static gboolean
is_compaction_item (JsonNode *node)
{
  JsonObject *object;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return FALSE;
  object = json_node_get_object (node);
  return g_strcmp0 (
           json_object_get_string_member_with_default (object, "type", NULL),
           "compaction") == 0;
}

static JsonArray *
compaction_process_context (AgentsCapability *self, JsonArray *context)
{
  guint n = json_array_get_length (context);
  JsonArray *kept;
  guint start = 0;

  for (guint i = n; i > 0; i--)
    if (is_compaction_item (json_array_get_element (context, i - 1)))
      {
        start = i - 1;
        break;
      }
  if (start == 0)
    return json_array_ref (context);

  kept = json_array_sized_new (n - start);
  for (guint i = start; i < n; i++)
    json_array_add_element (
      kept, json_node_copy (json_array_get_element (context, i)));
  return kept;
}

static JsonObject *
compaction_sampling_params_for_model (AgentsCapability *capability,
                                      JsonObject *model_params)
{
  AgentsCompactionCapability *self = AGENTS_COMPACTION_CAPABILITY (capability);
  JsonObject *params = json_object_new ();
  JsonArray *management = json_array_new ();
  JsonObject *compaction = json_object_new ();
  const char *model =
    json_object_get_string_member_with_default (model_params, "model", NULL);

  if (self->policy_error != NULL)
    g_warning ("compaction capability: %s; using the default policy",
               self->policy_error->message);
  json_object_set_string_member (compaction, "type", "compaction");
  json_object_set_int_member (compaction, "compact_threshold",
                              threshold_for (self, model));
  json_array_add_object_element (management, compaction);
  json_object_set_array_member (params, "context_management", management);
  return params;
}

static void
compaction_capability_iface_init (AgentsCapabilityInterface *iface)
{
  iface->get_capability_type = compaction_get_capability_type;
  iface->process_context = compaction_process_context;
  iface->sampling_params_for_model = compaction_sampling_params_for_model;
}

static gboolean
compaction_initable_init (GInitable *initable,
                          GCancellable *cancellable,
                          GError **error)
{
  AgentsCompactionCapability *self = AGENTS_COMPACTION_CAPABILITY (initable);

  if (self->policy_error != NULL)
    {
      g_propagate_error (error, g_error_copy (self->policy_error));
      return FALSE;
    }
  return TRUE;
}

static void
compaction_initable_iface_init (GInitableIface *iface)
{
  iface->init = compaction_initable_init;
}

/* ---- GObject ----------------------------------------------------------- */

static void
agents_compaction_capability_finalize (GObject *object)
{
  AgentsCompactionCapability *self = AGENTS_COMPACTION_CAPABILITY (object);

  g_clear_pointer (&self->policy, json_node_unref);
  g_clear_error (&self->policy_error);
  G_OBJECT_CLASS (agents_compaction_capability_parent_class)->finalize (object);
}

static void
compaction_get_property (GObject *object,
                         guint prop_id,
                         GValue *value,
                         GParamSpec *pspec)
{
  AgentsCompactionCapability *self = AGENTS_COMPACTION_CAPABILITY (object);

  switch (prop_id)
    {
    case PROP_POLICY:
      g_value_set_boxed (value, self->policy);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
compaction_set_property (GObject *object,
                         guint prop_id,
                         const GValue *value,
                         GParamSpec *pspec)
{
  AgentsCompactionCapability *self = AGENTS_COMPACTION_CAPABILITY (object);

  switch (prop_id)
    {
    case PROP_POLICY:
      store_policy (self, g_value_get_boxed (value));
      g_object_notify_by_pspec (object, pspec);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_compaction_capability_class_init (AgentsCompactionCapabilityClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = agents_compaction_capability_finalize;
  object_class->get_property = compaction_get_property;
  object_class->set_property = compaction_set_property;

  /**
   * AgentsCompactionCapability:policy:
   *
   * The compaction policy as JSON (`{"type": "static", "threshold": N}`
   * or `{"type": "dynamic", "model_info": {"context_window": W},
   * "threshold": S}`), or %NULL to follow the model the agent runs with.
   * A policy of an unknown type is kept but unusable: the default policy
   * is used instead, with a warning, and g_initable_init() fails.
   */
  properties[PROP_POLICY] = g_param_spec_boxed (
    "policy", NULL, NULL, JSON_TYPE_NODE,
    G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
agents_compaction_capability_init (AgentsCompactionCapability *self)
{
}

/**
 * agents_compaction_capability_new:
 *
 * Creates a `compaction` capability without a policy: its threshold
 * follows the model the agent runs with (see
 * #AgentsCompactionCapability).
 *
 * Returns: (transfer full): the capability
 */
AgentsCapability *
agents_compaction_capability_new (void)
{
  return g_object_new (AGENTS_TYPE_COMPACTION_CAPABILITY, NULL);
}

/**
 * agents_compaction_capability_new_static:
 * @threshold: the context size, in tokens, past which to compact
 *
 * Creates a `compaction` capability with a static policy.
 *
 * Returns: (transfer full): the capability
 */
AgentsCapability *
agents_compaction_capability_new_static (gint64 threshold)
{
  g_autoptr (JsonNode) policy = NULL;
  g_autofree char *text = NULL;

  g_return_val_if_fail (threshold > 0, NULL);

  text = g_strdup_printf (
    "{\"type\":\"static\",\"threshold\":%" G_GINT64_FORMAT "}", threshold);
  policy = json_from_string (text, NULL);
  return g_object_new (AGENTS_TYPE_COMPACTION_CAPABILITY, "policy", policy,
                       NULL);
}

/**
 * agents_compaction_capability_new_dynamic:
 * @context_window: the context window of the model, in tokens
 * @share: the share of it past which to compact, between 0 and 1
 *
 * Creates a `compaction` capability with a dynamic policy.
 *
 * Returns: (transfer full): the capability
 */
AgentsCapability *
agents_compaction_capability_new_dynamic (gint64 context_window, double share)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (JsonNode) policy = NULL;

  g_return_val_if_fail (context_window > 0, NULL);
  g_return_val_if_fail (share >= 0.0 && share <= 1.0, NULL);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "dynamic");
  json_builder_set_member_name (builder, "model_info");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "context_window");
  json_builder_add_int_value (builder, context_window);
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "threshold");
  json_builder_add_double_value (builder, share);
  json_builder_end_object (builder);
  policy = json_builder_get_root (builder);
  return g_object_new (AGENTS_TYPE_COMPACTION_CAPABILITY, "policy", policy,
                       NULL);
}

/**
 * agents_compaction_capability_get_threshold:
 * @self: a compaction capability
 *
 * Gets the threshold of a static policy.
 *
 * Returns: the static threshold, or 0 without a static policy
 */
gint64
agents_compaction_capability_get_threshold (AgentsCompactionCapability *self)
{
  g_return_val_if_fail (AGENTS_IS_COMPACTION_CAPABILITY (self), 0);
  return self->kind == POLICY_STATIC ? self->threshold : 0;
}

/**
 * agents_compaction_capability_get_policy:
 * @self: a compaction capability
 *
 * Gets #AgentsCompactionCapability:policy.
 *
 * Returns: (transfer none) (nullable): the policy, or %NULL for none
 */
JsonNode *
agents_compaction_capability_get_policy (AgentsCompactionCapability *self)
{
  g_return_val_if_fail (AGENTS_IS_COMPACTION_CAPABILITY (self), NULL);
  return self->policy;
}

/**
 * agents_compaction_capability_set_policy:
 * @self: a compaction capability
 * @policy: (nullable): the policy, or %NULL to follow the model
 * @error: return location for a #GError
 *
 * Sets #AgentsCompactionCapability:policy, refusing (and leaving the
 * capability unchanged) a policy that is not a static or dynamic one,
 * with %AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT
 * (`Unsupported compaction policy type: 'unknown'`).
 *
 * Returns: whether the policy was set
 */
gboolean
agents_compaction_capability_set_policy (AgentsCompactionCapability *self,
                                         JsonNode *policy,
                                         GError **error)
{
  g_autoptr (AgentsCompactionCapability) probe = NULL;

  g_return_val_if_fail (AGENTS_IS_COMPACTION_CAPABILITY (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  probe = g_object_new (AGENTS_TYPE_COMPACTION_CAPABILITY, NULL);
  if (!parse_policy (probe, policy, error))
    return FALSE;
  g_object_set (self, "policy", policy, NULL);
  return TRUE;
}

/**
 * agents_compaction_capability_threshold_for_model:
 * @self: a compaction capability
 * @model: (nullable): the model name
 *
 * Gets the `compact_threshold` model calls with @model carry.
 *
 * Returns: the threshold, in tokens
 */
gint64
agents_compaction_capability_threshold_for_model (
  AgentsCompactionCapability *self, const char *model)
{
  g_return_val_if_fail (AGENTS_IS_COMPACTION_CAPABILITY (self), 0);
  return threshold_for (self, model);
}

/**
 * agents_compaction_context_window_for_model:
 * @model: a model name, e.g. `gpt-5.4`
 * @error: return location for a #GError
 *
 * Looks @model up in the table of context windows the compaction
 * capability uses (the reference's `CompactionModelInfo.for_model()`).
 * An unknown model fails with %AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT
 * (`Unknown context window for model: 'name'`).
 *
 * Returns: the context window in tokens, or 0 with @error set
 */
gint64
agents_compaction_context_window_for_model (const char *model, GError **error)
{
  gint64 window;
  g_autofree char *shown = NULL;

  g_return_val_if_fail (model != NULL, 0);

  window = agents_compaction_lookup_context_window (model);
  if (window > 0)
    return window;
  shown = agents_compaction_py_repr (model);
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, NULL,
                            "Unknown context window for model: %s", shown);
  return 0;
}
