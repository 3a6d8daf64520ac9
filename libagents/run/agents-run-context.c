/* agents-run-context.c - what a run carries from turn to turn
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-run-config.h"
#include "agents-run-context.h"
#include "agents-run-error.h"
#include "agents-run-private.h"

/**
 * AgentsRunContext:
 *
 * The reference's `RunContextWrapper`: the user's context object, the
 * token usage of the run so far, and the approvals of tool calls. Hooks,
 * tools, guardrails and instruction functions receive it.
 */

/* An approval record: `approved` and `rejected` are each TRUE, FALSE, or
 * a list of call ids (the reference's `bool | list[str]`). */
typedef struct
{
  int approved; /* -1: the list; 0: false; 1: true */
  GPtrArray *approved_ids;
  int rejected;
  GPtrArray *rejected_ids;
} ApprovalRecord;

struct _AgentsRunContext
{
  GObject parent_instance;

  GObject *context;
  guint64 requests;
  guint64 input_tokens;
  guint64 cached_tokens;
  guint64 output_tokens;
  guint64 reasoning_tokens;
  guint64 total_tokens;
  GHashTable *approvals;     /* tool name → ApprovalRecord */
  GPtrArray *approval_order; /* tool names, first approval first */

  GObject *runner;
  AgentsRunConfig *run_config;
};

G_DEFINE_FINAL_TYPE (AgentsRunContext, agents_run_context, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_CONTEXT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static ApprovalRecord *
approval_record_new (void)
{
  ApprovalRecord *record = g_new0 (ApprovalRecord, 1);

  record->approved = -1;
  record->approved_ids = g_ptr_array_new_with_free_func (g_free);
  record->rejected = -1;
  record->rejected_ids = g_ptr_array_new_with_free_func (g_free);
  return record;
}

static void
approval_record_free (gpointer data)
{
  ApprovalRecord *record = data;

  g_ptr_array_unref (record->approved_ids);
  g_ptr_array_unref (record->rejected_ids);
  g_free (record);
}

static void
agents_run_context_dispose (GObject *object)
{
  AgentsRunContext *self = AGENTS_RUN_CONTEXT (object);

  g_clear_object (&self->context);
  g_clear_object (&self->runner);
  g_clear_object (&self->run_config);

  G_OBJECT_CLASS (agents_run_context_parent_class)->dispose (object);
}

static void
agents_run_context_finalize (GObject *object)
{
  AgentsRunContext *self = AGENTS_RUN_CONTEXT (object);

  g_hash_table_unref (self->approvals);
  g_ptr_array_unref (self->approval_order);

  G_OBJECT_CLASS (agents_run_context_parent_class)->finalize (object);
}

static void
agents_run_context_get_property (GObject *object,
                                 guint prop_id,
                                 GValue *value,
                                 GParamSpec *pspec)
{
  AgentsRunContext *self = AGENTS_RUN_CONTEXT (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      g_value_set_object (value, self->context);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_run_context_set_property (GObject *object,
                                 guint prop_id,
                                 const GValue *value,
                                 GParamSpec *pspec)
{
  AgentsRunContext *self = AGENTS_RUN_CONTEXT (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      agents_run_context_set_context (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_run_context_class_init (AgentsRunContextClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = agents_run_context_dispose;
  object_class->finalize = agents_run_context_finalize;
  object_class->get_property = agents_run_context_get_property;
  object_class->set_property = agents_run_context_set_property;

  /**
   * AgentsRunContext:context:
   *
   * The user's context object, passed through the run untouched.
   */
  properties[PROP_CONTEXT] = g_param_spec_object (
    "context", NULL, NULL, G_TYPE_OBJECT,
    G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
agents_run_context_init (AgentsRunContext *self)
{
  self->approvals = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                           approval_record_free);
  self->approval_order = g_ptr_array_new ();
}

/**
 * agents_run_context_new:
 * @context: (nullable): the user's context object
 *
 * Creates a run context with no usage and no approvals.
 *
 * Returns: (transfer full): the run context
 */
AgentsRunContext *
agents_run_context_new (GObject *context)
{
  g_return_val_if_fail (context == NULL || G_IS_OBJECT (context), NULL);

  return g_object_new (AGENTS_TYPE_RUN_CONTEXT, "context", context, NULL);
}

/**
 * agents_run_context_get_context:
 * @self: a run context
 *
 * Gets the user's context object.
 *
 * Returns: (transfer none) (nullable): the user's context
 */
GObject *
agents_run_context_get_context (AgentsRunContext *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_CONTEXT (self), NULL);
  return self->context;
}

/**
 * agents_run_context_set_context:
 * @self: a run context
 * @context: (nullable): the user's context object
 *
 * Sets the user's context object.
 */
void
agents_run_context_set_context (AgentsRunContext *self, GObject *context)
{
  g_return_if_fail (AGENTS_IS_RUN_CONTEXT (self));
  g_return_if_fail (context == NULL || G_IS_OBJECT (context));

  if (g_set_object (&self->context, context))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CONTEXT]);
}

/**
 * agents_run_context_get_requests:
 * @self: a run context
 *
 * Gets the number of model requests of the run.
 *
 * Returns: the number of requests
 */
guint64
agents_run_context_get_requests (AgentsRunContext *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_CONTEXT (self), 0);
  return self->requests;
}

/**
 * agents_run_context_get_input_tokens:
 * @self: a run context
 *
 * Gets the number of input tokens of the run.
 *
 * Returns: the number of input tokens
 */
guint64
agents_run_context_get_input_tokens (AgentsRunContext *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_CONTEXT (self), 0);
  return self->input_tokens;
}

/**
 * agents_run_context_get_output_tokens:
 * @self: a run context
 *
 * Gets the number of output tokens of the run.
 *
 * Returns: the number of output tokens
 */
guint64
agents_run_context_get_output_tokens (AgentsRunContext *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_CONTEXT (self), 0);
  return self->output_tokens;
}

/**
 * agents_run_context_get_total_tokens:
 * @self: a run context
 *
 * Gets the total number of tokens of the run.
 *
 * Returns: the total number of tokens
 */
guint64
agents_run_context_get_total_tokens (AgentsRunContext *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_CONTEXT (self), 0);
  return self->total_tokens;
}

static guint64
usage_member (JsonObject *usage, const char *object, const char *member)
{
  JsonNode *node;

  if (object != NULL)
    {
      node = json_object_get_member (usage, object);
      if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
        return 0;
      usage = json_node_get_object (node);
    }
  node = json_object_get_member (usage, member);
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_INT64 ||
      json_node_get_int (node) < 0)
    return 0;
  return json_node_get_int (node);
}

/**
 * agents_run_context_add_usage:
 * @self: a run context
 * @usage: a usage object (`{"requests", "input_tokens", "output_tokens",
 *   "total_tokens", "input_tokens_details": {"cached_tokens"},
 *   "output_tokens_details": {"reasoning_tokens"}}`, members optional)
 *
 * Adds the usage of a model response to the run's.
 */
void
agents_run_context_add_usage (AgentsRunContext *self, JsonObject *usage)
{
  g_return_if_fail (AGENTS_IS_RUN_CONTEXT (self));
  g_return_if_fail (usage != NULL);

  self->requests += usage_member (usage, NULL, "requests");
  self->input_tokens += usage_member (usage, NULL, "input_tokens");
  self->cached_tokens +=
    usage_member (usage, "input_tokens_details", "cached_tokens");
  self->output_tokens += usage_member (usage, NULL, "output_tokens");
  self->reasoning_tokens +=
    usage_member (usage, "output_tokens_details", "reasoning_tokens");
  self->total_tokens += usage_member (usage, NULL, "total_tokens");
}

static JsonObject *
details (const char *member, guint64 value)
{
  JsonObject *object = json_object_new ();

  json_object_set_int_member (object, member, value);
  return object;
}

/**
 * agents_run_context_get_usage:
 * @self: a run context
 *
 * Gets the run's usage as the reference serializes it.
 *
 * Returns: (transfer full): the usage object
 */
JsonObject *
agents_run_context_get_usage (AgentsRunContext *self)
{
  JsonObject *usage;

  g_return_val_if_fail (AGENTS_IS_RUN_CONTEXT (self), NULL);

  usage = json_object_new ();
  json_object_set_int_member (usage, "requests", self->requests);
  json_object_set_int_member (usage, "input_tokens", self->input_tokens);
  json_object_set_object_member (
    usage, "input_tokens_details",
    details ("cached_tokens", self->cached_tokens));
  json_object_set_int_member (usage, "output_tokens", self->output_tokens);
  json_object_set_object_member (
    usage, "output_tokens_details",
    details ("reasoning_tokens", self->reasoning_tokens));
  json_object_set_int_member (usage, "total_tokens", self->total_tokens);
  return usage;
}

/**
 * agents_run_context_set_usage:
 * @self: a run context
 * @usage: a usage object, as agents_run_context_get_usage() makes
 *
 * Replaces the run's usage (when a run state is restored).
 */
void
agents_run_context_set_usage (AgentsRunContext *self, JsonObject *usage)
{
  g_return_if_fail (AGENTS_IS_RUN_CONTEXT (self));
  g_return_if_fail (usage != NULL);

  self->requests = self->input_tokens = self->cached_tokens = 0;
  self->output_tokens = self->reasoning_tokens = self->total_tokens = 0;
  agents_run_context_add_usage (self, usage);
}

static ApprovalRecord *
ensure_record (AgentsRunContext *self, const char *tool_name)
{
  ApprovalRecord *record = g_hash_table_lookup (self->approvals, tool_name);

  if (record == NULL)
    {
      char *key = g_strdup (tool_name);

      record = approval_record_new ();
      g_hash_table_insert (self->approvals, key, record);
      g_ptr_array_add (self->approval_order, key);
    }
  return record;
}

static void
replace_record (AgentsRunContext *self,
                const char *tool_name,
                ApprovalRecord *record)
{
  ApprovalRecord *old = ensure_record (self, tool_name);

  g_ptr_array_unref (old->approved_ids);
  g_ptr_array_unref (old->rejected_ids);
  *old = *record;
  g_free (record);
}

/**
 * agents_run_context_approve_tool_call:
 * @self: a run context
 * @tool_name: the tool's name
 * @call_id: (nullable): the call to approve
 * @always: whether every call of the tool is approved from now on
 *
 * Approves one call of a tool, or all of them.
 */
void
agents_run_context_approve_tool_call (AgentsRunContext *self,
                                      const char *tool_name,
                                      const char *call_id,
                                      gboolean always)
{
  ApprovalRecord *record;

  g_return_if_fail (AGENTS_IS_RUN_CONTEXT (self));
  g_return_if_fail (tool_name != NULL);

  if (always)
    {
      record = approval_record_new ();
      record->approved = 1;
      replace_record (self, tool_name, record);
      return;
    }
  record = ensure_record (self, tool_name);
  /* As in the reference: a call is added only to a list, never to a
   * blanket decision. */
  if (record->approved == -1 && call_id != NULL)
    g_ptr_array_add (record->approved_ids, g_strdup (call_id));
}

/**
 * agents_run_context_reject_tool_call:
 * @self: a run context
 * @tool_name: the tool's name
 * @call_id: (nullable): the call to reject
 * @always: whether every call of the tool is rejected from now on
 *
 * Rejects one call of a tool, or all of them.
 */
void
agents_run_context_reject_tool_call (AgentsRunContext *self,
                                     const char *tool_name,
                                     const char *call_id,
                                     gboolean always)
{
  ApprovalRecord *record;

  g_return_if_fail (AGENTS_IS_RUN_CONTEXT (self));
  g_return_if_fail (tool_name != NULL);

  if (always)
    {
      record = approval_record_new ();
      record->approved = 0;
      record->rejected = 1;
      replace_record (self, tool_name, record);
      return;
    }
  record = ensure_record (self, tool_name);
  if (record->rejected == -1 && call_id != NULL)
    g_ptr_array_add (record->rejected_ids, g_strdup (call_id));
}

/**
 * agents_run_context_approve_tool:
 * @self: a run context
 * @approval_item: an %AGENTS_RUN_ITEM_KIND_TOOL_APPROVAL item
 * @always: whether every call of the tool is approved from now on
 *
 * Approves the tool call an interruption of the run waits for.
 */
void
agents_run_context_approve_tool (AgentsRunContext *self,
                                 AgentsRunItem *approval_item,
                                 gboolean always)
{
  g_return_if_fail (AGENTS_IS_RUN_ITEM (approval_item));
  g_return_if_fail (agents_run_item_get_tool_name (approval_item) != NULL);

  agents_run_context_approve_tool_call (
    self, agents_run_item_get_tool_name (approval_item),
    agents_run_item_get_call_id (approval_item), always);
}

/**
 * agents_run_context_reject_tool:
 * @self: a run context
 * @approval_item: an %AGENTS_RUN_ITEM_KIND_TOOL_APPROVAL item
 * @always: whether every call of the tool is rejected from now on
 *
 * Rejects the tool call an interruption of the run waits for.
 */
void
agents_run_context_reject_tool (AgentsRunContext *self,
                                AgentsRunItem *approval_item,
                                gboolean always)
{
  g_return_if_fail (AGENTS_IS_RUN_ITEM (approval_item));
  g_return_if_fail (agents_run_item_get_tool_name (approval_item) != NULL);

  agents_run_context_reject_tool_call (
    self, agents_run_item_get_tool_name (approval_item),
    agents_run_item_get_call_id (approval_item), always);
}

static gboolean
ids_contain (GPtrArray *ids, const char *call_id)
{
  for (guint i = 0; call_id != NULL && i < ids->len; i++)
    if (g_str_equal (ids->pdata[i], call_id))
      return TRUE;
  return FALSE;
}

/**
 * agents_run_context_is_tool_approved:
 * @self: a run context
 * @tool_name: the tool's name
 * @call_id: (nullable): the call
 *
 * Tells whether a call of a tool was approved or rejected. A blanket
 * approval wins over a blanket rejection, which wins over decisions on
 * single calls.
 *
 * Returns: the decision, or %AGENTS_APPROVAL_STATUS_UNKNOWN
 */
AgentsApprovalStatus
agents_run_context_is_tool_approved (AgentsRunContext *self,
                                     const char *tool_name,
                                     const char *call_id)
{
  ApprovalRecord *record;

  g_return_val_if_fail (AGENTS_IS_RUN_CONTEXT (self),
                        AGENTS_APPROVAL_STATUS_UNKNOWN);
  g_return_val_if_fail (tool_name != NULL, AGENTS_APPROVAL_STATUS_UNKNOWN);

  record = g_hash_table_lookup (self->approvals, tool_name);
  if (record == NULL)
    return AGENTS_APPROVAL_STATUS_UNKNOWN;
  if (record->approved == 1)
    return AGENTS_APPROVAL_STATUS_APPROVED;
  if (record->rejected == 1)
    return AGENTS_APPROVAL_STATUS_REJECTED;
  if (record->approved == -1 && ids_contain (record->approved_ids, call_id))
    return AGENTS_APPROVAL_STATUS_APPROVED;
  if (record->rejected == -1 && ids_contain (record->rejected_ids, call_id))
    return AGENTS_APPROVAL_STATUS_REJECTED;
  return AGENTS_APPROVAL_STATUS_UNKNOWN;
}

static JsonNode *
decision_to_json (int decision, GPtrArray *ids)
{
  JsonArray *array;
  JsonNode *node;

  if (decision >= 0)
    return json_node_init_boolean (json_node_alloc (), decision == 1);
  array = json_array_new ();
  for (guint i = 0; i < ids->len; i++)
    json_array_add_string_element (array, ids->pdata[i]);
  node = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (node, array);
  return node;
}

/**
 * agents_run_context_get_approvals:
 * @self: a run context
 *
 * Gets the approvals as the reference serializes them: `{TOOL_NAME:
 * {"approved": true | false | [CALL_ID, …], "rejected": …}}`.
 *
 * Returns: (transfer full): the approvals
 */
JsonObject *
agents_run_context_get_approvals (AgentsRunContext *self)
{
  JsonObject *approvals;

  g_return_val_if_fail (AGENTS_IS_RUN_CONTEXT (self), NULL);

  approvals = json_object_new ();
  for (guint i = 0; i < self->approval_order->len; i++)
    {
      const char *name = self->approval_order->pdata[i];
      ApprovalRecord *record = g_hash_table_lookup (self->approvals, name);
      JsonObject *entry = json_object_new ();

      json_object_set_member (
        entry, "approved",
        decision_to_json (record->approved, record->approved_ids));
      json_object_set_member (
        entry, "rejected",
        decision_to_json (record->rejected, record->rejected_ids));
      json_object_set_object_member (approvals, name, entry);
    }
  return approvals;
}

static gboolean
decision_from_json (JsonNode *node, int *decision, GPtrArray *ids)
{
  JsonArray *array;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (JSON_NODE_HOLDS_VALUE (node) &&
      json_node_get_value_type (node) == G_TYPE_BOOLEAN)
    {
      *decision = json_node_get_boolean (node) ? 1 : 0;
      return TRUE;
    }
  if (!JSON_NODE_HOLDS_ARRAY (node))
    return FALSE;
  array = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *id = json_array_get_element (array, i);

      if (!JSON_NODE_HOLDS_VALUE (id) ||
          json_node_get_value_type (id) != G_TYPE_STRING)
        return FALSE;
      g_ptr_array_add (ids, g_strdup (json_node_get_string (id)));
    }
  return TRUE;
}

/**
 * agents_run_context_set_approvals:
 * @self: a run context
 * @approvals: approvals, as agents_run_context_get_approvals() makes
 * @error: return location for a #GError
 *
 * Replaces the approvals (when a run state is restored). A malformed
 * document fails with %AGENTS_RUN_ERROR_INVALID_RUN_STATE and changes
 * nothing.
 *
 * Returns: %TRUE on success
 */
gboolean
agents_run_context_set_approvals (AgentsRunContext *self,
                                  JsonObject *approvals,
                                  GError **error)
{
  g_autoptr (GHashTable) table = NULL;
  g_autoptr (GPtrArray) order = g_ptr_array_new ();
  JsonObjectIter iter;
  const char *name;
  JsonNode *value;

  g_return_val_if_fail (AGENTS_IS_RUN_CONTEXT (self), FALSE);
  g_return_val_if_fail (approvals != NULL, FALSE);

  table = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                 approval_record_free);
  json_object_iter_init (&iter, approvals);
  while (json_object_iter_next (&iter, &name, &value))
    {
      ApprovalRecord *record = approval_record_new ();
      char *key = g_strdup (name);
      JsonObject *entry;

      g_hash_table_insert (table, key, record);
      g_ptr_array_add (order, key);
      entry =
        JSON_NODE_HOLDS_OBJECT (value) ? json_node_get_object (value) : NULL;
      if (entry == NULL ||
          !decision_from_json (json_object_get_member (entry, "approved"),
                               &record->approved, record->approved_ids) ||
          !decision_from_json (json_object_get_member (entry, "rejected"),
                               &record->rejected, record->rejected_ids))
        {
          agents_run_error_set (error, AGENTS_RUN_ERROR_INVALID_RUN_STATE, NULL,
                                _ ("malformed approval of tool “%s”"), name);
          return FALSE;
        }
    }

  g_hash_table_unref (self->approvals);
  self->approvals = g_steal_pointer (&table);
  g_ptr_array_unref (self->approval_order);
  self->approval_order = g_steal_pointer (&order);
  return TRUE;
}

void
agents_run_context_set_runner (AgentsRunContext *self, GObject *runner)
{
  g_return_if_fail (AGENTS_IS_RUN_CONTEXT (self));
  g_set_object (&self->runner, runner);
}

GObject *
agents_run_context_get_runner (AgentsRunContext *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_CONTEXT (self), NULL);
  return self->runner;
}

void
agents_run_context_set_run_config (AgentsRunContext *self,
                                   AgentsRunConfig *config)
{
  g_return_if_fail (AGENTS_IS_RUN_CONTEXT (self));
  g_set_object (&self->run_config, config);
}

AgentsRunConfig *
agents_run_context_get_run_config (AgentsRunContext *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_CONTEXT (self), NULL);
  return self->run_config;
}
