/* agents-span.c - AgentsSpan, one timed operation in a trace
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-enums.h"
#include "agents-tracing.h"
#include "agents-tracing-private.h"

/**
 * AgentsSpan:
 *
 * One timed operation in a trace: an agent's turns, a model call, a tool
 * call, a handoff, a guardrail or a custom step, with JSON data in the
 * shapes of the reference SDK (`{"type": "custom", "name": …, "data":
 * …}`, `{"type": "function", "name": …, "input": …, "output": …}`, …).
 *
 * A span that does not record (see agents_span_is_recording()) is a
 * shared placeholder: its data is %NULL and everything done to it is
 * ignored.
 */

G_DEFINE_FINAL_TYPE (AgentsSpan, agents_span, G_TYPE_OBJECT)

/* ---- span kinds ---------------------------------------------------------- */

typedef struct
{
  const char *type;
  const char *members[6]; /* the reference's members, in its order */
} KindInfo;

static const KindInfo kind_info[] = {
  [AGENTS_SPAN_KIND_AGENT] = { "agent",
                               { "name", "handoffs", "tools", "output_type" } },
  [AGENTS_SPAN_KIND_GENERATION] = { "generation",
                                    { "input", "output", "model",
                                      "model_config", "usage" } },
  [AGENTS_SPAN_KIND_FUNCTION] = { "function", { "name", "input", "output" } },
  [AGENTS_SPAN_KIND_HANDOFF] = { "handoff", { "from_agent", "to_agent" } },
  [AGENTS_SPAN_KIND_GUARDRAIL] = { "guardrail", { "name", "triggered" } },
  [AGENTS_SPAN_KIND_CUSTOM] = { "custom", { "name", "data" } },
  [AGENTS_SPAN_KIND_RESPONSE] = { "response", { "response_id" } },
};

/**
 * agents_span_kind_to_string:
 * @kind: a span kind
 *
 * Gets the `type` of span data of @kind, e.g. `"custom"`.
 *
 * Returns: (transfer none): the type name
 */
const char *
agents_span_kind_to_string (AgentsSpanKind kind)
{
  g_return_val_if_fail (kind < G_N_ELEMENTS (kind_info), NULL);

  return kind_info[kind].type;
}

static JsonNode *
default_member (AgentsSpanKind kind, const char *member)
{
  if (kind == AGENTS_SPAN_KIND_GUARDRAIL && g_str_equal (member, "triggered"))
    return json_node_init_boolean (json_node_alloc (), FALSE);
  if (kind == AGENTS_SPAN_KIND_CUSTOM && g_str_equal (member, "data"))
    {
      JsonNode *node = json_node_new (JSON_NODE_OBJECT);

      json_node_take_object (node, json_object_new ());
      return node;
    }
  return json_node_new (JSON_NODE_NULL);
}

static gboolean
is_template_member (AgentsSpanKind kind, const char *member)
{
  for (guint i = 0; kind_info[kind].members[i] != NULL; i++)
    if (g_str_equal (kind_info[kind].members[i], member))
      return TRUE;
  return FALSE;
}

/* The span data: "type", the reference's members in its order (null when
 * @data lacks them), then the other members of @data. */
static JsonObject *
build_span_data (AgentsSpanKind kind, JsonObject *data)
{
  JsonObject *result = json_object_new ();
  g_autoptr (GList) members = NULL;

  json_object_set_string_member (result, "type", kind_info[kind].type);
  for (guint i = 0; kind_info[kind].members[i] != NULL; i++)
    {
      const char *member = kind_info[kind].members[i];
      JsonNode *value =
        data != NULL ? json_object_get_member (data, member) : NULL;

      json_object_set_member (result, member,
                              value != NULL ? json_node_copy (value)
                                            : default_member (kind, member));
    }
  if (data != NULL)
    members = json_object_get_members (data);
  for (GList *l = members; l != NULL; l = l->next)
    {
      if (g_str_equal (l->data, "type") || is_template_member (kind, l->data))
        continue;
      json_object_set_member (result, l->data,
                              json_object_dup_member (data, l->data));
    }
  return result;
}

static JsonNode *strv_node (const char *const *strv);

/* ---- AgentsSpan ---------------------------------------------------------- */

enum
{
  SPAN_PROP_0,
  SPAN_PROP_KIND,
  SPAN_PROP_SPAN_ID,
  SPAN_PROP_TRACE_ID,
  SPAN_PROP_PARENT_ID,
  SPAN_N_PROPS
};

static GParamSpec *span_properties[SPAN_N_PROPS];

static void
agents_span_finalize (GObject *object)
{
  AgentsSpan *self = AGENTS_SPAN (object);

  g_free (self->span_id);
  g_free (self->trace_id);
  g_free (self->parent_id);
  g_clear_pointer (&self->data, json_object_unref);
  for (guint i = 0; i < G_N_ELEMENTS (self->pending); i++)
    g_clear_pointer (&self->pending[i], json_node_unref);
  g_clear_pointer (&self->error, json_object_unref);

  G_OBJECT_CLASS (agents_span_parent_class)->finalize (object);
}

static void
agents_span_get_property (GObject *object,
                          guint prop_id,
                          GValue *value,
                          GParamSpec *pspec)
{
  AgentsSpan *self = AGENTS_SPAN (object);

  switch (prop_id)
    {
    case SPAN_PROP_KIND:
      g_value_set_enum (value, self->kind);
      break;
    case SPAN_PROP_SPAN_ID:
      g_value_set_string (value, self->span_id);
      break;
    case SPAN_PROP_TRACE_ID:
      g_value_set_string (value, self->trace_id);
      break;
    case SPAN_PROP_PARENT_ID:
      g_value_set_string (value, self->parent_id);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_span_class_init (AgentsSpanClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = agents_span_finalize;
  object_class->get_property = agents_span_get_property;

  /**
   * AgentsSpan:kind:
   *
   * What the span records.
   */
  span_properties[SPAN_PROP_KIND] = g_param_spec_enum (
    "kind", NULL, NULL, AGENTS_TYPE_SPAN_KIND, AGENTS_SPAN_KIND_CUSTOM,
    G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AgentsSpan:span-id:
   *
   * The span's id, `span_` and 24 hexadecimal digits; %NULL if the span
   * does not record.
   */
  span_properties[SPAN_PROP_SPAN_ID] = g_param_spec_string (
    "span-id", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AgentsSpan:trace-id:
   *
   * The id of the span's trace.
   */
  span_properties[SPAN_PROP_TRACE_ID] = g_param_spec_string (
    "trace-id", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AgentsSpan:parent-id:
   *
   * The id of the enclosing span, or %NULL for a span directly under its
   * trace.
   */
  span_properties[SPAN_PROP_PARENT_ID] = g_param_spec_string (
    "parent-id", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, SPAN_N_PROPS,
                                     span_properties);
}

static void
agents_span_init (AgentsSpan *self)
{
  self->kind = AGENTS_SPAN_KIND_CUSTOM;
}

/* The placeholder for spans that do not record; never "ends". */
static AgentsSpan *
noop_span (void)
{
  static gsize initialized = 0;
  static AgentsSpan *noop;

  if (g_once_init_enter (&initialized))
    {
      noop = g_object_new (AGENTS_TYPE_SPAN, NULL);
      g_once_init_leave (&initialized, 1);
    }
  return g_object_ref (noop);
}

/* A recording span without data yet. */
static AgentsSpan *
span_new_bare (const char *trace_id, AgentsSpan *parent, AgentsSpanKind kind)
{
  AgentsSpan *self = g_object_new (AGENTS_TYPE_SPAN, NULL);

  self->kind = kind;
  self->recording = TRUE;
  self->span_id = agents_tracing_private_new_id ("span_", 24);
  self->trace_id = g_strdup (trace_id);
  self->parent_id = parent != NULL ? g_strdup (parent->span_id) : NULL;
  self->sequence = agents_tracing_private_next_span_sequence ();
  self->started_us = g_get_real_time ();
  return self;
}

static AgentsSpan *
span_new_in (const char *trace_id,
             AgentsSpan *parent,
             AgentsSpanKind kind,
             JsonObject *data)
{
  AgentsSpan *self = span_new_bare (trace_id, parent, kind);

  self->data = build_span_data (kind, data);
  return self;
}

static AgentsSpan *
span_new (AgentsTrace *trace,
          AgentsSpan *parent,
          AgentsSpanKind kind,
          JsonObject *data)
{
  return span_new_in (trace->trace_id, parent, kind, data);
}

static gboolean
span_recording (AgentsSpan *span)
{
  return span->recording;
}

/* Guards the building of lazy spans' data and their pending members. */
static GMutex lazy_lock;

/* The data of a lazy span, as build_span_data() makes it from the
 * pending members; they are given to it. Called with lazy_lock held. */
static JsonObject *
build_lazy_data (AgentsSpan *self)
{
  const KindInfo *info = &kind_info[self->kind];
  JsonObject *data = json_object_new ();

  json_object_set_string_member (data, "type", info->type);
  for (guint i = 0; info->members[i] != NULL; i++)
    {
      JsonNode *value = g_steal_pointer (&self->pending[i]);

      json_object_set_member (
        data, info->members[i],
        value != NULL ? value : default_member (self->kind, info->members[i]));
    }
  return data;
}

JsonObject *
agents_tracing_private_span_data (AgentsSpan *span)
{
  JsonObject *data = g_atomic_pointer_get (&span->data);

  if (data != NULL || !span->lazy)
    return data;
  g_mutex_lock (&lazy_lock);
  data = g_atomic_pointer_get (&span->data);
  if (data == NULL)
    {
      data = build_lazy_data (span);
      g_atomic_pointer_set (&span->data, data);
    }
  g_mutex_unlock (&lazy_lock);
  return data;
}

static int
member_index (AgentsSpanKind kind, const char *member)
{
  for (guint i = 0; kind_info[kind].members[i] != NULL; i++)
    if (g_str_equal (kind_info[kind].members[i], member))
      return (int) i;
  return -1;
}

/* Sets @member of a lazy span whose data is not built yet, taking @value;
 * FALSE (@value untouched) when the data is built or @member is not one
 * of the reference's. */
static gboolean
set_pending (AgentsSpan *self, const char *member, JsonNode *value)
{
  int index = member_index (self->kind, member);
  gboolean done = FALSE;

  if (!self->lazy || index < 0)
    return FALSE;
  g_mutex_lock (&lazy_lock);
  if (g_atomic_pointer_get (&self->data) == NULL)
    {
      g_clear_pointer (&self->pending[index], json_node_unref);
      self->pending[index] = value;
      done = TRUE;
    }
  g_mutex_unlock (&lazy_lock);
  return done;
}

/* The current value of @member of a lazy span's pending members or of its
 * data (a value that is not the member's default). */
static JsonNode *
peek_member (AgentsSpan *self, const char *member)
{
  int index = member_index (self->kind, member);
  JsonNode *value = NULL;

  if (self->lazy && index >= 0)
    {
      gboolean built;

      g_mutex_lock (&lazy_lock);
      built = g_atomic_pointer_get (&self->data) != NULL;
      if (!built && self->pending[index] != NULL)
        value = json_node_ref (self->pending[index]);
      g_mutex_unlock (&lazy_lock);
      if (!built)
        return value;
    }
  value =
    json_object_get_member (agents_tracing_private_span_data (self), member);
  return value != NULL ? json_node_ref (value) : NULL;
}

static gboolean
node_is_strv (JsonNode *node, const char *const *names)
{
  JsonArray *array;
  guint n = names != NULL ? g_strv_length ((char **) names) : 0;

  if (node == NULL || names == NULL)
    return FALSE;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    return FALSE;
  array = json_node_get_array (node);
  if (json_array_get_length (array) != n)
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      JsonNode *element = json_array_get_element (array, i);

      if (json_node_get_value_type (element) != G_TYPE_STRING ||
          g_strcmp0 (json_node_get_string (element), names[i]) != 0)
        return FALSE;
    }
  return TRUE;
}

/**
 * agents_span_start_child:
 * @parent: the enclosing span
 * @kind: what the span records
 * @data: (nullable): the span data's members (see agents_span_begin())
 *
 * Starts a span nested under @parent, in @parent's trace, without making
 * it the current span: for code that runs asynchronously inside a span
 * it was handed, such as a model called by the runner (see
 * agents_model_request_get_span()). When @parent does not record, the
 * span is a placeholder that does not record either.
 *
 * Returns: (transfer full): the span; end it with agents_span_end()
 */
AgentsSpan *
agents_span_start_child (AgentsSpan *parent,
                         AgentsSpanKind kind,
                         JsonObject *data)
{
  AgentsSpan *span;

  g_return_val_if_fail (AGENTS_IS_SPAN (parent), NULL);
  g_return_val_if_fail (kind < G_N_ELEMENTS (kind_info), NULL);

  if (agents_tracing_get_disabled () || !span_recording (parent))
    return noop_span ();
  span = span_new_in (parent->trace_id, parent, kind, data);
  agents_tracing_private_dispatch (AGENTS_TRACING_EVENT_SPAN_START, span);
  return span;
}

static gboolean
would_start (AgentsTrace *trace, AgentsSpan *parent)
{
  return !trace->noop && !agents_tracing_get_disabled () &&
         (parent == NULL || span_recording (parent));
}

static AgentsSpan *
start_span (AgentsTrace *trace,
            AgentsSpan *parent,
            AgentsSpanKind kind,
            JsonObject *data)
{
  AgentsSpan *span;

  if (!would_start (trace, parent))
    return noop_span ();
  span = span_new (trace, parent, kind, data);
  agents_tracing_private_dispatch (AGENTS_TRACING_EVENT_SPAN_START, span);
  return span;
}

/**
 * agents_trace_start_span:
 * @self: a trace
 * @parent: (nullable): the enclosing span, or %NULL for a span directly
 *   under @self
 * @kind: what the span records
 * @data: (nullable): the span data's members (see agents_span_begin())
 *
 * Begins a span with explicit parents, without making it current: for
 * work that continues on other threads, or runs interleaved on one
 * thread. End it with agents_span_end().
 *
 * Returns: (transfer full): the span
 */
AgentsSpan *
agents_trace_start_span (AgentsTrace *self,
                         AgentsSpan *parent,
                         AgentsSpanKind kind,
                         JsonObject *data)
{
  g_return_val_if_fail (AGENTS_IS_TRACE (self), NULL);
  g_return_val_if_fail (parent == NULL || AGENTS_IS_SPAN (parent), NULL);
  g_return_val_if_fail (kind < G_N_ELEMENTS (kind_info), NULL);

  return start_span (self, parent, kind, data);
}

/* See agents-tracing-private.h. */
AgentsSpan *
agents_tracing_private_start_span_lazy (AgentsTrace *trace,
                                        AgentsSpan *parent,
                                        AgentsSpanKind kind,
                                        JsonNode **members,
                                        guint n_members)
{
  AgentsSpan *span = NULL;

  g_return_val_if_fail (AGENTS_IS_TRACE (trace), NULL);
  g_return_val_if_fail (parent == NULL || AGENTS_IS_SPAN (parent), NULL);
  g_return_val_if_fail (kind < G_N_ELEMENTS (kind_info), NULL);
  g_return_val_if_fail (n_members <= G_N_ELEMENTS (span->pending), NULL);

  if (!would_start (trace, parent))
    {
      for (guint i = 0; i < n_members; i++)
        g_clear_pointer (&members[i], json_node_unref);
      return noop_span ();
    }
  span = span_new_bare (trace->trace_id, parent, kind);
  span->lazy = TRUE;
  for (guint i = 0; i < n_members; i++)
    {
      if (kind_info[kind].members[i] == NULL)
        g_clear_pointer (&members[i], json_node_unref);
      else
        span->pending[i] = g_steal_pointer (&members[i]);
    }
  agents_tracing_private_dispatch (AGENTS_TRACING_EVENT_SPAN_START, span);
  return span;
}

/* See agents-tracing-private.h. */
void
agents_tracing_private_span_set_strv (AgentsSpan *span,
                                      const char *member,
                                      const char *const *names)
{
  g_autoptr (JsonNode) current = NULL;
  g_autoptr (JsonNode) value = NULL;

  if (!span_recording (span))
    return;
  current = peek_member (span, member);
  if (node_is_strv (current, names))
    return;
  value = strv_node (names);
  agents_span_set_data_member (span, member, value);
}

/**
 * agents_span_begin:
 * @kind: what the span records
 * @data: (nullable): the span data's members
 *
 * Begins a span in the calling thread's current trace, nested under the
 * current span, and makes it the current span.
 *
 * The span data is `{"type": …}` followed by the reference SDK's members
 * for @kind, taken from @data (members are shared, not copied) or null
 * when @data lacks them, then any other members of @data. For example
 * %AGENTS_SPAN_KIND_CUSTOM with `{"name": "sandbox.start"}` gives
 * `{"type": "custom", "name": "sandbox.start", "data": {}}`.
 *
 * Without a current trace, or when the current trace does not record,
 * the span is a placeholder that does not record.
 *
 * Returns: (transfer full): the span; end it with agents_span_end()
 */
AgentsSpan *
agents_span_begin (AgentsSpanKind kind, JsonObject *data)
{
  AgentsTrace *trace;
  AgentsSpan *parent, *span;

  g_return_val_if_fail (kind < G_N_ELEMENTS (kind_info), NULL);

  if (agents_tracing_get_disabled ())
    return noop_span ();
  agents_tracing_private_find_current (&trace, &parent);
  if (trace == NULL || trace->noop)
    return noop_span ();
  span = span_new (trace, parent, kind, data);
  agents_tracing_private_push_current (span);
  agents_tracing_private_dispatch (AGENTS_TRACING_EVENT_SPAN_START, span);
  return span;
}

static gboolean
would_record (void)
{
  AgentsTrace *trace = agents_tracing_get_current_trace ();

  return trace != NULL && !trace->noop && !agents_tracing_get_disabled ();
}

static JsonNode *
strv_node (const char *const *strv)
{
  JsonArray *array;
  JsonNode *node;

  if (strv == NULL)
    return json_node_new (JSON_NODE_NULL);
  array = json_array_new ();
  for (guint i = 0; strv[i] != NULL; i++)
    json_array_add_string_element (array, strv[i]);
  node = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (node, array);
  return node;
}

static JsonNode *
string_node (const char *value)
{
  if (value == NULL)
    return json_node_new (JSON_NODE_NULL);
  return json_node_init_string (json_node_alloc (), value);
}

static AgentsSpan *
begin_with_members (AgentsSpanKind kind, JsonObject *data)
{
  g_autoptr (JsonObject) owned = data;

  return agents_span_begin (kind, owned);
}

/**
 * agents_span_begin_agent:
 * @name: the agent's name
 * @handoffs: (nullable) (array zero-terminated=1): names of the agents
 *   it can hand off to
 * @tools: (nullable) (array zero-terminated=1): names of its tools
 * @output_type: (nullable): the name of its output type
 *
 * Begins an agent span, see agents_span_begin().
 *
 * Returns: (transfer full): the span
 */
AgentsSpan *
agents_span_begin_agent (const char *name,
                         const char *const *handoffs,
                         const char *const *tools,
                         const char *output_type)
{
  JsonObject *data;

  if (!would_record ())
    return noop_span ();
  data = json_object_new ();
  json_object_set_member (data, "name", string_node (name));
  json_object_set_member (data, "handoffs", strv_node (handoffs));
  json_object_set_member (data, "tools", strv_node (tools));
  json_object_set_member (data, "output_type", string_node (output_type));
  return begin_with_members (AGENTS_SPAN_KIND_AGENT, data);
}

/**
 * agents_span_begin_function:
 * @name: the tool's name
 * @input: (nullable): the call's arguments
 * @output: (nullable): the call's output, usually set later with
 *   agents_span_set_data_member()
 *
 * Begins a function (tool call) span, see agents_span_begin().
 *
 * Returns: (transfer full): the span
 */
AgentsSpan *
agents_span_begin_function (const char *name,
                            const char *input,
                            const char *output)
{
  JsonObject *data;

  if (!would_record ())
    return noop_span ();
  data = json_object_new ();
  json_object_set_member (data, "name", string_node (name));
  json_object_set_member (data, "input", string_node (input));
  json_object_set_member (data, "output", string_node (output));
  return begin_with_members (AGENTS_SPAN_KIND_FUNCTION, data);
}

static void
set_boxed_member (JsonObject *data,
                  const char *member,
                  JsonArray *array,
                  JsonObject *object)
{
  if (array != NULL)
    json_object_set_array_member (data, member, json_array_ref (array));
  else if (object != NULL)
    json_object_set_object_member (data, member, json_object_ref (object));
  else
    json_object_set_null_member (data, member);
}

/**
 * agents_span_begin_generation:
 * @input: (nullable): the input items of the model call
 * @output: (nullable): the output items
 * @model: (nullable): the model's name
 * @model_config: (nullable): the model settings
 * @usage: (nullable): the token usage
 *
 * Begins a generation (model call) span, see agents_span_begin().
 *
 * Returns: (transfer full): the span
 */
AgentsSpan *
agents_span_begin_generation (JsonArray *input,
                              JsonArray *output,
                              const char *model,
                              JsonObject *model_config,
                              JsonObject *usage)
{
  JsonObject *data;

  if (!would_record ())
    return noop_span ();
  data = json_object_new ();
  set_boxed_member (data, "input", input, NULL);
  set_boxed_member (data, "output", output, NULL);
  json_object_set_member (data, "model", string_node (model));
  set_boxed_member (data, "model_config", NULL, model_config);
  set_boxed_member (data, "usage", NULL, usage);
  return begin_with_members (AGENTS_SPAN_KIND_GENERATION, data);
}

/**
 * agents_span_begin_handoff:
 * @from_agent: (nullable): the name of the agent handing off
 * @to_agent: (nullable): the name of the agent taking over
 *
 * Begins a handoff span, see agents_span_begin().
 *
 * Returns: (transfer full): the span
 */
AgentsSpan *
agents_span_begin_handoff (const char *from_agent, const char *to_agent)
{
  JsonObject *data;

  if (!would_record ())
    return noop_span ();
  data = json_object_new ();
  json_object_set_member (data, "from_agent", string_node (from_agent));
  json_object_set_member (data, "to_agent", string_node (to_agent));
  return begin_with_members (AGENTS_SPAN_KIND_HANDOFF, data);
}

/**
 * agents_span_begin_guardrail:
 * @name: the guardrail's name
 * @triggered: whether its tripwire was triggered
 *
 * Begins a guardrail span, see agents_span_begin().
 *
 * Returns: (transfer full): the span
 */
AgentsSpan *
agents_span_begin_guardrail (const char *name, gboolean triggered)
{
  JsonObject *data;

  if (!would_record ())
    return noop_span ();
  data = json_object_new ();
  json_object_set_member (data, "name", string_node (name));
  json_object_set_boolean_member (data, "triggered", triggered);
  return begin_with_members (AGENTS_SPAN_KIND_GUARDRAIL, data);
}

/**
 * agents_span_begin_custom:
 * @name: the span's name, e.g. `"sandbox.start"`
 * @data: (nullable): its data, or %NULL for `{}`
 *
 * Begins a custom span, see agents_span_begin().
 *
 * Returns: (transfer full): the span
 */
AgentsSpan *
agents_span_begin_custom (const char *name, JsonObject *data)
{
  JsonObject *members;

  if (!would_record ())
    return noop_span ();
  members = json_object_new ();
  json_object_set_member (members, "name", string_node (name));
  if (data != NULL)
    json_object_set_object_member (members, "data", json_object_ref (data));
  return begin_with_members (AGENTS_SPAN_KIND_CUSTOM, members);
}

/**
 * agents_span_end:
 * @span: a span
 * @error: (nullable): the error the operation failed with, or %NULL
 *
 * Ends @span: it stops being current and the processors are told. A
 * non-%NULL @error sets the span's error to `{"message": error's message,
 * "data": null}` unless agents_span_set_error() set one already. Ending a
 * span twice does nothing.
 */
void
agents_span_end (AgentsSpan *span, const GError *error)
{
  g_return_if_fail (AGENTS_IS_SPAN (span));

  if (!span_recording (span) ||
      !g_atomic_int_compare_and_exchange (&span->ended, 0, 1))
    return;
  if (error != NULL && span->error == NULL)
    agents_span_set_error (span, error->message, NULL);
  span->ended_us = g_get_real_time ();
  agents_tracing_private_remove_current (span);
  agents_tracing_private_dispatch (AGENTS_TRACING_EVENT_SPAN_END, span);
}

/**
 * agents_span_end_simple: (rename-to agents_span_end)
 * @span: a span
 *
 * Ends @span like agents_span_end() without an error. Bindings see this
 * function as `Span.end()`, since some cannot pass a null #GError: set an
 * error with agents_span_set_error() first.
 */
void
agents_span_end_simple (AgentsSpan *span)
{
  agents_span_end (span, NULL);
}

/**
 * agents_span_is_recording:
 * @self: a span
 *
 * Gets whether the span records, i.e. it belongs to a recording trace.
 *
 * Returns: %TRUE if processors receive the span
 */
gboolean
agents_span_is_recording (AgentsSpan *self)
{
  g_return_val_if_fail (AGENTS_IS_SPAN (self), FALSE);

  return span_recording (self);
}

/**
 * agents_span_get_kind:
 * @self: a span
 *
 * Gets what the span records.
 *
 * Returns: the kind
 */
AgentsSpanKind
agents_span_get_kind (AgentsSpan *self)
{
  g_return_val_if_fail (AGENTS_IS_SPAN (self), AGENTS_SPAN_KIND_CUSTOM);

  return self->kind;
}

/**
 * agents_span_get_span_id:
 * @self: a span
 *
 * Gets the span's id.
 *
 * Returns: (transfer none) (nullable): the id, or %NULL if the span does
 *   not record
 */
const char *
agents_span_get_span_id (AgentsSpan *self)
{
  g_return_val_if_fail (AGENTS_IS_SPAN (self), NULL);

  return self->span_id;
}

/**
 * agents_span_get_trace_id:
 * @self: a span
 *
 * Gets the id of the span's trace.
 *
 * Returns: (transfer none) (nullable): the trace id, or %NULL if the span
 *   does not record
 */
const char *
agents_span_get_trace_id (AgentsSpan *self)
{
  g_return_val_if_fail (AGENTS_IS_SPAN (self), NULL);

  return self->trace_id;
}

/**
 * agents_span_get_parent_id:
 * @self: a span
 *
 * Gets the id of the enclosing span.
 *
 * Returns: (transfer none) (nullable): the parent's id, or %NULL for a
 *   span directly under its trace
 */
const char *
agents_span_get_parent_id (AgentsSpan *self)
{
  g_return_val_if_fail (AGENTS_IS_SPAN (self), NULL);

  return self->parent_id;
}

/**
 * agents_span_get_data:
 * @self: a span
 *
 * Gets the span data, which the caller may change until the span ends
 * (e.g. a function span's `output`).
 *
 * Returns: (transfer none) (nullable): the span data, or %NULL if the
 *   span does not record
 */
JsonObject *
agents_span_get_data (AgentsSpan *self)
{
  g_return_val_if_fail (AGENTS_IS_SPAN (self), NULL);

  return agents_tracing_private_span_data (self);
}

/**
 * agents_span_set_data_member:
 * @self: a span
 * @member: the member's name
 * @value: (nullable): the value, or %NULL for null
 *
 * Sets a member of the span data; nothing happens if the span does not
 * record.
 */
void
agents_span_set_data_member (AgentsSpan *self,
                             const char *member,
                             JsonNode *value)
{
  JsonNode *copy;

  g_return_if_fail (AGENTS_IS_SPAN (self));
  g_return_if_fail (member != NULL);

  if (!span_recording (self))
    return;
  copy =
    value != NULL ? json_node_copy (value) : json_node_new (JSON_NODE_NULL);
  if (!set_pending (self, member, copy))
    json_object_set_member (agents_tracing_private_span_data (self), member,
                            copy);
}

/**
 * agents_span_set_error:
 * @self: a span
 * @message: what went wrong
 * @data: (nullable): details, or %NULL
 *
 * Sets the span's error to `{"message": @message, "data": @data}`, the
 * reference SDK's `SpanError`; nothing happens if the span does not
 * record.
 */
void
agents_span_set_error (AgentsSpan *self, const char *message, JsonObject *data)
{
  JsonObject *error;

  g_return_if_fail (AGENTS_IS_SPAN (self));
  g_return_if_fail (message != NULL);

  if (!span_recording (self))
    return;
  error = json_object_new ();
  json_object_set_string_member (error, "message", message);
  if (data != NULL)
    json_object_set_object_member (error, "data", json_object_ref (data));
  else
    json_object_set_null_member (error, "data");
  g_clear_pointer (&self->error, json_object_unref);
  self->error = error;
}

/**
 * agents_span_get_error:
 * @self: a span
 *
 * Gets the span's error, `{"message": …, "data": …}`.
 *
 * Returns: (transfer none) (nullable): the error, or %NULL
 */
JsonObject *
agents_span_get_error (AgentsSpan *self)
{
  g_return_val_if_fail (AGENTS_IS_SPAN (self), NULL);

  return self->error;
}

/**
 * agents_span_dup_started_at:
 * @self: a span
 *
 * Gets when the span began, in ISO 8601 (UTC).
 *
 * Returns: (transfer full) (nullable): the start time, or %NULL if the
 *   span does not record
 */
char *
agents_span_dup_started_at (AgentsSpan *self)
{
  g_return_val_if_fail (AGENTS_IS_SPAN (self), NULL);

  return agents_tracing_private_format_time (self->started_us);
}

/**
 * agents_span_dup_ended_at:
 * @self: a span
 *
 * Gets when the span ended, in ISO 8601 (UTC).
 *
 * Returns: (transfer full) (nullable): the end time, or %NULL if the span
 *   has not ended
 */
char *
agents_span_dup_ended_at (AgentsSpan *self)
{
  g_return_val_if_fail (AGENTS_IS_SPAN (self), NULL);

  return agents_tracing_private_format_time (
    g_atomic_int_get (&self->ended) ? self->ended_us : 0);
}

/**
 * agents_span_export:
 * @self: a span
 *
 * Exports the span as the reference SDK does: `{"object": "trace.span",
 * "id", "trace_id", "parent_id", "started_at", "ended_at", "span_data",
 * "error"}`.
 *
 * Returns: (transfer full) (nullable): the exported span, or %NULL if the
 *   span does not record
 */
JsonObject *
agents_span_export (AgentsSpan *self)
{
  JsonObject *object;

  g_return_val_if_fail (AGENTS_IS_SPAN (self), NULL);

  if (!span_recording (self))
    return NULL;
  object = json_object_new ();
  json_object_set_string_member (object, "object", "trace.span");
  json_object_set_string_member (object, "id", self->span_id);
  json_object_set_string_member (object, "trace_id", self->trace_id);
  agents_tracing_private_set_string_or_null (object, "parent_id",
                                             self->parent_id);
  agents_tracing_set_time_member (object, "started_at", self->started_us);
  agents_tracing_set_time_member (
    object, "ended_at", g_atomic_int_get (&self->ended) ? self->ended_us : 0);
  json_object_set_object_member (
    object, "span_data",
    json_object_ref (agents_tracing_private_span_data (self)));
  if (self->error != NULL)
    json_object_set_object_member (object, "error",
                                   json_object_ref (self->error));
  else
    json_object_set_null_member (object, "error");
  return object;
}
