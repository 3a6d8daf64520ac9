/* agents-run-state.c - a run, saved to be resumed
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-json-private.h"
#include "agents-run-private.h"
#include "agents-run-state.h"

/* ---- AgentsToolUseTracker ---------------------------------------------- */

struct _AgentsToolUseTracker
{
  GPtrArray *agents; /* AgentsAgent, first user first */
  GHashTable *tools; /* AgentsAgent → GPtrArray of names */
};

AgentsToolUseTracker *
agents_tool_use_tracker_new (void)
{
  AgentsToolUseTracker *self = g_new0 (AgentsToolUseTracker, 1);

  self->agents = g_ptr_array_new_with_free_func (g_object_unref);
  self->tools = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                       (GDestroyNotify) g_ptr_array_unref);
  return self;
}

void
agents_tool_use_tracker_free (AgentsToolUseTracker *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->tools);
  g_ptr_array_unref (self->agents);
  g_free (self);
}

void
agents_tool_use_tracker_add (AgentsToolUseTracker *self,
                             AgentsAgent *agent,
                             const char *tool_name)
{
  GPtrArray *names = g_hash_table_lookup (self->tools, agent);

  if (names == NULL)
    {
      names = g_ptr_array_new_with_free_func (g_free);
      g_ptr_array_add (self->agents, g_object_ref (agent));
      g_hash_table_insert (self->tools, agent, names);
    }
  g_ptr_array_add (names, g_strdup (tool_name));
}

AgentsToolUseTracker *
agents_tool_use_tracker_copy (AgentsToolUseTracker *self)
{
  AgentsToolUseTracker *copy = agents_tool_use_tracker_new ();

  for (guint i = 0; i < self->agents->len; i++)
    {
      AgentsAgent *agent = self->agents->pdata[i];
      GPtrArray *names = g_hash_table_lookup (self->tools, agent);

      for (guint j = 0; j < names->len; j++)
        agents_tool_use_tracker_add (copy, agent, names->pdata[j]);
    }
  return copy;
}

/* Brings @self, an earlier copy of @source, up to date by appending what
 * @source gained since: trackers only grow, so this costs what was added,
 * not the whole history. Anything else is copied anew. */
void
agents_tool_use_tracker_update (AgentsToolUseTracker *self,
                                AgentsToolUseTracker *source)
{
  gboolean prefix = self->agents->len <= source->agents->len;

  for (guint i = 0; prefix && i < self->agents->len; i++)
    {
      GPtrArray *mine =
        g_hash_table_lookup (self->tools, self->agents->pdata[i]);
      GPtrArray *theirs =
        g_hash_table_lookup (source->tools, source->agents->pdata[i]);

      prefix = self->agents->pdata[i] == source->agents->pdata[i] &&
               mine->len <= theirs->len &&
               (mine->len == 0 || g_str_equal (mine->pdata[mine->len - 1],
                                               theirs->pdata[mine->len - 1]));
    }
  if (!prefix)
    {
      g_ptr_array_set_size (self->agents, 0);
      g_hash_table_remove_all (self->tools);
    }
  for (guint i = 0; i < source->agents->len; i++)
    {
      AgentsAgent *agent = source->agents->pdata[i];
      GPtrArray *names = g_hash_table_lookup (source->tools, agent);
      GPtrArray *mine = g_hash_table_lookup (self->tools, agent);

      for (guint j = mine ? mine->len : 0; j < names->len; j++)
        agents_tool_use_tracker_add (self, agent, names->pdata[j]);
    }
}

gboolean
agents_tool_use_tracker_has_used_tools (AgentsToolUseTracker *self,
                                        AgentsAgent *agent)
{
  GPtrArray *names = g_hash_table_lookup (self->tools, agent);

  return names != NULL && names->len > 0;
}

char **
agents_tool_use_tracker_dup_tools (AgentsToolUseTracker *self,
                                   AgentsAgent *agent)
{
  GPtrArray *names = g_hash_table_lookup (self->tools, agent);
  char **tools;

  if (names == NULL)
    return NULL;
  tools = g_new0 (char *, names->len + 1);
  for (guint i = 0; i < names->len; i++)
    tools[i] = g_strdup (names->pdata[i]);
  return tools;
}

GPtrArray *
agents_tool_use_tracker_get_agents (AgentsToolUseTracker *self)
{
  GPtrArray *agents = g_ptr_array_new ();

  for (guint i = 0; i < self->agents->len; i++)
    g_ptr_array_add (agents, self->agents->pdata[i]);
  return agents;
}

/* ---- AgentsAgentIdentityMap -------------------------------------------- */

/**
 * AgentsAgentIdentityMap:
 *
 * Keys that name the agents of an agent graph in a way that survives
 * serialization: the key of an agent is its name, unless several agents
 * of the graph share it. Those are ordered by
 * agents_agent_identity_fingerprint() (then by their order of traversal)
 * and keyed `name`, `name#2`, `name#3`… skipping keys that are some
 * agent's actual name. Built by
 * agents_run_state_build_agent_identity_map(), with entries in the order
 * of a breadth-first traversal of handoffs and agents used as tools.
 */

struct _AgentsAgentIdentityMap
{
  GObject parent_instance;

  GPtrArray *agents;        /* traversal order */
  GPtrArray *keys;          /* same order */
  GHashTable *agent_by_key; /* key → agent */
  GHashTable *key_by_agent; /* agent → key */
};

G_DEFINE_FINAL_TYPE (AgentsAgentIdentityMap,
                     agents_agent_identity_map,
                     G_TYPE_OBJECT)

static void
agents_agent_identity_map_finalize (GObject *object)
{
  AgentsAgentIdentityMap *self = AGENTS_AGENT_IDENTITY_MAP (object);

  g_hash_table_unref (self->agent_by_key);
  g_hash_table_unref (self->key_by_agent);
  g_ptr_array_unref (self->keys);
  g_ptr_array_unref (self->agents);

  G_OBJECT_CLASS (agents_agent_identity_map_parent_class)->finalize (object);
}

static void
agents_agent_identity_map_class_init (AgentsAgentIdentityMapClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = agents_agent_identity_map_finalize;
}

static void
agents_agent_identity_map_init (AgentsAgentIdentityMap *self)
{
  self->agents = g_ptr_array_new_with_free_func (g_object_unref);
  self->keys = g_ptr_array_new_with_free_func (g_free);
  self->agent_by_key = g_hash_table_new (g_str_hash, g_str_equal);
  self->key_by_agent = g_hash_table_new (g_direct_hash, g_direct_equal);
}

static const char *
agent_name (AgentsAgent *agent)
{
  const char *name = agents_agent_get_name (agent);

  return name != NULL ? name : "";
}

static void
visit (GPtrArray *order, GHashTable *seen, GQueue *queue, AgentsAgent *agent)
{
  if (agent == NULL || g_hash_table_contains (seen, agent))
    return;
  g_hash_table_add (seen, agent);
  g_ptr_array_add (order, g_object_ref (agent));
  g_queue_push_tail (queue, agent);
}

static void
visit_neighbours (GPtrArray *order,
                  GHashTable *seen,
                  GQueue *queue,
                  AgentsAgent *agent)
{
  GListModel *handoffs = agents_agent_get_handoffs (agent);
  GListModel *tools = agents_agent_get_tools (agent);

  for (guint i = 0; i < g_list_model_get_n_items (handoffs); i++)
    {
      g_autoptr (GObject) item = g_list_model_get_item (handoffs, i);

      if (AGENTS_IS_HANDOFF (item))
        visit (order, seen, queue,
               agents_handoff_get_agent (AGENTS_HANDOFF (item)));
      else if (AGENTS_IS_AGENT (item))
        visit (order, seen, queue, AGENTS_AGENT (item));
    }
  for (guint i = 0; i < g_list_model_get_n_items (tools); i++)
    {
      g_autoptr (AgentsTool) tool = g_list_model_get_item (tools, i);

      visit (order, seen, queue, agents_run_private_tool_get_agent (tool));
    }
}

/* Breadth-first, from each root in turn: agents reachable from the first
 * root come first. */
static GPtrArray *
traverse (AgentsAgent **roots, guint n_roots)
{
  GPtrArray *order = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);
  GQueue queue = G_QUEUE_INIT;

  for (guint r = 0; r < n_roots; r++)
    {
      visit (order, seen, &queue, roots[r]);
      while (!g_queue_is_empty (&queue))
        visit_neighbours (order, seen, &queue, g_queue_pop_head (&queue));
    }
  return order;
}

typedef struct
{
  AgentsAgent *agent;
  char *fingerprint;
  guint position;
} Duplicate;

static int
compare_duplicates (gconstpointer a, gconstpointer b)
{
  const Duplicate *x = a, *y = b;
  int cmp;

  if (x->fingerprint == NULL || y->fingerprint == NULL)
    cmp = (x->fingerprint != NULL) - (y->fingerprint != NULL);
  else
    cmp = strcmp (x->fingerprint, y->fingerprint);
  if (cmp != 0)
    return cmp;
  return (x->position > y->position) - (x->position < y->position);
}

static void
add_entry (GHashTable *keys, AgentsAgent *agent, const char *key)
{
  g_hash_table_insert (keys, agent, g_strdup (key));
}

/* Keys the agents named @name, which are several. */
static void
key_duplicates (GPtrArray *order,
                const char *name,
                GHashTable *literal_names,
                GHashTable *used,
                GHashTable *keys)
{
  g_autoptr (GArray) dups = g_array_new (FALSE, FALSE, sizeof (Duplicate));
  guint suffix = 2;

  for (guint i = 0; i < order->len; i++)
    {
      Duplicate dup = { order->pdata[i], NULL, i };

      if (strcmp (agent_name (dup.agent), name) != 0)
        continue;
      dup.fingerprint = agents_agent_identity_fingerprint (dup.agent);
      g_array_append_val (dups, dup);
    }
  g_array_sort (dups, compare_duplicates);
  for (guint i = 0; i < dups->len; i++)
    {
      Duplicate *dup = &g_array_index (dups, Duplicate, i);
      g_autofree char *key = NULL;

      if (i == 0)
        key = g_strdup (name);
      while (key == NULL ||
             (i > 0 && g_hash_table_contains (literal_names, key)) ||
             g_hash_table_contains (used, key))
        {
          g_free (key);
          key = g_strdup_printf ("%s#%u", name, suffix++);
        }
      g_hash_table_add (used, g_strdup (key));
      add_entry (keys, dup->agent, key);
      g_free (dup->fingerprint);
    }
}

static AgentsAgentIdentityMap *
identity_map_new (AgentsAgent **roots, guint n_roots)
{
  AgentsAgentIdentityMap *self =
    g_object_new (AGENTS_TYPE_AGENT_IDENTITY_MAP, NULL);
  g_autoptr (GPtrArray) order = traverse (roots, n_roots);
  g_autoptr (GHashTable) counts = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) used =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GHashTable) keys =
    g_hash_table_new_full (NULL, NULL, NULL, g_free);

  for (guint i = 0; i < order->len; i++)
    {
      const char *name = agent_name (order->pdata[i]);

      g_hash_table_insert (
        counts, (gpointer) name,
        GUINT_TO_POINTER (
          GPOINTER_TO_UINT (g_hash_table_lookup (counts, name)) + 1));
    }
  /* Unique names keep their name; it is never a duplicate's key. */
  for (guint i = 0; i < order->len; i++)
    {
      const char *name = agent_name (order->pdata[i]);

      if (GPOINTER_TO_UINT (g_hash_table_lookup (counts, name)) == 1)
        {
          g_hash_table_add (used, g_strdup (name));
          add_entry (keys, order->pdata[i], name);
        }
    }
  for (guint i = 0; i < order->len; i++)
    {
      const char *name = agent_name (order->pdata[i]);

      if (!g_hash_table_contains (keys, order->pdata[i]))
        key_duplicates (order, name, counts, used, keys);
    }

  for (guint i = 0; i < order->len; i++)
    {
      AgentsAgent *agent = order->pdata[i];
      char *key = g_strdup (g_hash_table_lookup (keys, agent));

      g_ptr_array_add (self->agents, g_object_ref (agent));
      g_ptr_array_add (self->keys, key);
      g_hash_table_insert (self->agent_by_key, key, agent);
      g_hash_table_insert (self->key_by_agent, agent, key);
    }
  return self;
}

/**
 * agents_run_state_build_agent_identity_map:
 * @starting_agent: the agent a run starts with
 *
 * Keys every agent reachable from @starting_agent through handoffs and
 * agents used as tools, see #AgentsAgentIdentityMap. Run states name
 * agents by these keys, so that a state saved by one process resumes
 * against the same agent graph built afresh by another.
 *
 * Returns: (transfer full): the map
 */
AgentsAgentIdentityMap *
agents_run_state_build_agent_identity_map (AgentsAgent *starting_agent)
{
  g_return_val_if_fail (AGENTS_IS_AGENT (starting_agent), NULL);

  return identity_map_new (&starting_agent, 1);
}

/**
 * agents_agent_identity_map_get_n_entries:
 * @self: an identity map
 *
 * Gets the number of agents in the map.
 *
 * Returns: the number of entries
 */
guint
agents_agent_identity_map_get_n_entries (AgentsAgentIdentityMap *self)
{
  g_return_val_if_fail (AGENTS_IS_AGENT_IDENTITY_MAP (self), 0);
  return self->agents->len;
}

/**
 * agents_agent_identity_map_get_key:
 * @self: an identity map
 * @position: an entry, in traversal order
 *
 * Gets the key of an entry.
 *
 * Returns: (nullable): the key, %NULL past the end
 */
const char *
agents_agent_identity_map_get_key (AgentsAgentIdentityMap *self, guint position)
{
  g_return_val_if_fail (AGENTS_IS_AGENT_IDENTITY_MAP (self), NULL);

  return position < self->keys->len ? self->keys->pdata[position] : NULL;
}

/**
 * agents_agent_identity_map_get_agent:
 * @self: an identity map
 * @position: an entry, in traversal order
 *
 * Gets the agent of an entry.
 *
 * Returns: (transfer none) (nullable): the agent, %NULL past the end
 */
AgentsAgent *
agents_agent_identity_map_get_agent (AgentsAgentIdentityMap *self,
                                     guint position)
{
  g_return_val_if_fail (AGENTS_IS_AGENT_IDENTITY_MAP (self), NULL);

  return position < self->agents->len ? self->agents->pdata[position] : NULL;
}

/**
 * agents_agent_identity_map_lookup:
 * @self: an identity map
 * @key: a key
 *
 * Finds the agent of a key.
 *
 * Returns: (transfer none) (nullable): the agent, or %NULL
 */
AgentsAgent *
agents_agent_identity_map_lookup (AgentsAgentIdentityMap *self, const char *key)
{
  g_return_val_if_fail (AGENTS_IS_AGENT_IDENTITY_MAP (self), NULL);
  g_return_val_if_fail (key != NULL, NULL);

  return g_hash_table_lookup (self->agent_by_key, key);
}

/**
 * agents_agent_identity_map_find_key:
 * @self: an identity map
 * @agent: an agent
 *
 * Finds the key of an agent.
 *
 * Returns: (nullable): the key, or %NULL when @agent is not in the map
 */
const char *
agents_agent_identity_map_find_key (AgentsAgentIdentityMap *self,
                                    AgentsAgent *agent)
{
  g_return_val_if_fail (AGENTS_IS_AGENT_IDENTITY_MAP (self), NULL);

  return g_hash_table_lookup (self->key_by_agent, agent);
}

/* ---- AgentsRunState ---------------------------------------------------- */

/**
 * AgentsRunState:
 *
 * A run, saved to be resumed: its input, the items and model responses
 * so far, the current agent, the approvals and usage of its context, the
 * tool calls waiting for approval, and the opaque `sandbox` payload of
 * the sandbox runtime.
 *
 * Get one with agents_run_result_to_state(), approve or reject its
 * interruptions, and resume with agents_runner_resume_async(). Between
 * processes, agents_run_state_to_json() saves it and
 * agents_run_state_new_from_json() restores it against an agent graph
 * built afresh: agents are named by the keys of
 * agents_run_state_build_agent_identity_map(), and the restored items
 * refer to the new agent objects.
 */

struct _AgentsRunState
{
  GObject parent_instance;

  AgentsRunContext *ctx;
  JsonNode *original_input;
  AgentsAgent *starting_agent;
  AgentsAgent *current_agent;
  guint current_turn;
  guint max_turns;
  GListStore *generated_items;
  GListStore *model_responses;
  GListStore *interruptions;
  AgentsToolUseTracker *tracker;
  JsonObject *sandbox;
};

G_DEFINE_FINAL_TYPE (AgentsRunState, agents_run_state, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_CONTEXT,
  PROP_STARTING_AGENT,
  PROP_CURRENT_AGENT,
  PROP_CURRENT_TURN,
  PROP_MAX_TURNS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
agents_run_state_finalize (GObject *object)
{
  AgentsRunState *self = AGENTS_RUN_STATE (object);

  g_clear_object (&self->ctx);
  g_clear_pointer (&self->original_input, json_node_unref);
  g_clear_object (&self->starting_agent);
  g_clear_object (&self->current_agent);
  g_clear_object (&self->generated_items);
  g_clear_object (&self->model_responses);
  g_clear_object (&self->interruptions);
  g_clear_pointer (&self->tracker, agents_tool_use_tracker_free);
  g_clear_pointer (&self->sandbox, json_object_unref);

  G_OBJECT_CLASS (agents_run_state_parent_class)->finalize (object);
}

static void
agents_run_state_get_property (GObject *object,
                               guint prop_id,
                               GValue *value,
                               GParamSpec *pspec)
{
  AgentsRunState *self = AGENTS_RUN_STATE (object);

  switch (prop_id)
    {
    case PROP_CONTEXT:
      g_value_set_object (value, self->ctx);
      break;
    case PROP_STARTING_AGENT:
      g_value_set_object (value, self->starting_agent);
      break;
    case PROP_CURRENT_AGENT:
      g_value_set_object (value, self->current_agent);
      break;
    case PROP_CURRENT_TURN:
      g_value_set_uint (value, self->current_turn);
      break;
    case PROP_MAX_TURNS:
      g_value_set_uint (value, self->max_turns);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_run_state_set_property (GObject *object,
                               guint prop_id,
                               const GValue *value,
                               GParamSpec *pspec)
{
  AgentsRunState *self = AGENTS_RUN_STATE (object);

  switch (prop_id)
    {
    case PROP_CURRENT_AGENT:
      agents_run_state_set_current_agent (self, g_value_get_object (value));
      break;
    case PROP_MAX_TURNS:
      agents_run_state_set_max_turns (self, g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_run_state_class_init (AgentsRunStateClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;
  const GParamFlags rw =
    G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->finalize = agents_run_state_finalize;
  object_class->get_property = agents_run_state_get_property;
  object_class->set_property = agents_run_state_set_property;

  /**
   * AgentsRunState:context:
   *
   * The run context: usage, approvals and the user context.
   */
  properties[PROP_CONTEXT] =
    g_param_spec_object ("context", NULL, NULL, AGENTS_TYPE_RUN_CONTEXT, ro);
  /**
   * AgentsRunState:starting-agent:
   *
   * The agent the run started with; agent keys are relative to it.
   */
  properties[PROP_STARTING_AGENT] =
    g_param_spec_object ("starting-agent", NULL, NULL, AGENTS_TYPE_AGENT, ro);
  /**
   * AgentsRunState:current-agent:
   *
   * The agent a resumed run continues with.
   */
  properties[PROP_CURRENT_AGENT] =
    g_param_spec_object ("current-agent", NULL, NULL, AGENTS_TYPE_AGENT, rw);
  /**
   * AgentsRunState:current-turn:
   *
   * The turns the run took so far.
   */
  properties[PROP_CURRENT_TURN] =
    g_param_spec_uint ("current-turn", NULL, NULL, 0, G_MAXUINT, 0, ro);
  /**
   * AgentsRunState:max-turns:
   *
   * The turns the run may take in all; a resumed run keeps it.
   */
  properties[PROP_MAX_TURNS] =
    g_param_spec_uint ("max-turns", NULL, NULL, 1, G_MAXUINT, 10, rw);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
agents_run_state_init (AgentsRunState *self)
{
  self->max_turns = 10;
  self->generated_items = g_list_store_new (AGENTS_TYPE_RUN_ITEM);
  self->model_responses = g_list_store_new (AGENTS_TYPE_MODEL_RESPONSE);
  self->interruptions = g_list_store_new (AGENTS_TYPE_RUN_ITEM);
  self->tracker = agents_tool_use_tracker_new ();
}

/**
 * agents_run_state_new:
 * @context: (nullable): the run context, %NULL for a new one
 * @original_input: (nullable): the run's input: a string or an array of
 *   input items
 * @starting_agent: the agent the run starts with
 *
 * Creates the state of a run that took no turn yet; its current agent is
 * @starting_agent.
 *
 * Returns: (transfer full): the state
 */
AgentsRunState *
agents_run_state_new (AgentsRunContext *context,
                      JsonNode *original_input,
                      AgentsAgent *starting_agent)
{
  AgentsRunState *self;

  g_return_val_if_fail (context == NULL || AGENTS_IS_RUN_CONTEXT (context),
                        NULL);
  g_return_val_if_fail (AGENTS_IS_AGENT (starting_agent), NULL);

  self = g_object_new (AGENTS_TYPE_RUN_STATE, NULL);
  self->ctx = context ? g_object_ref (context) : agents_run_context_new (NULL);
  self->original_input = original_input
                           ? json_node_copy (original_input)
                           : json_node_init_string (json_node_alloc (), "");
  self->starting_agent = g_object_ref (starting_agent);
  self->current_agent = g_object_ref (starting_agent);
  return self;
}

static void
set_store (GListStore *store, GPtrArray *items)
{
  g_list_store_remove_all (store);
  for (guint i = 0; items != NULL && i < items->len; i++)
    g_list_store_append (store, items->pdata[i]);
}

void
agents_run_private_state_set_progress (AgentsRunState *self,
                                       guint current_turn,
                                       GPtrArray *generated_items,
                                       GPtrArray *model_responses,
                                       GPtrArray *interruptions,
                                       AgentsToolUseTracker *tracker)
{
  self->current_turn = current_turn;
  set_store (self->generated_items, generated_items);
  set_store (self->model_responses, model_responses);
  set_store (self->interruptions, interruptions);
  g_clear_pointer (&self->tracker, agents_tool_use_tracker_free);
  self->tracker = tracker ? agents_tool_use_tracker_copy (tracker)
                          : agents_tool_use_tracker_new ();
}

AgentsToolUseTracker *
agents_run_private_state_get_tool_use_tracker (AgentsRunState *self)
{
  return self->tracker;
}

/**
 * agents_run_state_get_context:
 * @self: a run state
 *
 * Gets the run context. A state restored from JSON has a new one, with
 * the saved usage and approvals and no user context: set it with
 * agents_run_context_set_context().
 *
 * Returns: (transfer none): the run context
 */
AgentsRunContext *
agents_run_state_get_context (AgentsRunState *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_STATE (self), NULL);
  return self->ctx;
}

/**
 * agents_run_state_get_original_input:
 * @self: a run state
 *
 * Gets the run's input.
 *
 * Returns: (transfer none): a string or an array of input items
 */
JsonNode *
agents_run_state_get_original_input (AgentsRunState *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_STATE (self), NULL);
  return self->original_input;
}

/**
 * agents_run_state_get_starting_agent:
 * @self: a run state
 *
 * Gets the agent the run started with.
 *
 * Returns: (transfer none): the agent
 */
AgentsAgent *
agents_run_state_get_starting_agent (AgentsRunState *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_STATE (self), NULL);
  return self->starting_agent;
}

/**
 * agents_run_state_get_current_agent:
 * @self: a run state
 *
 * Gets the agent a resumed run continues with.
 *
 * Returns: (transfer none): the agent
 */
AgentsAgent *
agents_run_state_get_current_agent (AgentsRunState *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_STATE (self), NULL);
  return self->current_agent;
}

/**
 * agents_run_state_set_current_agent:
 * @self: a run state
 * @agent: an agent
 *
 * Sets the agent a resumed run continues with.
 */
void
agents_run_state_set_current_agent (AgentsRunState *self, AgentsAgent *agent)
{
  g_return_if_fail (AGENTS_IS_RUN_STATE (self));
  g_return_if_fail (AGENTS_IS_AGENT (agent));

  if (g_set_object (&self->current_agent, agent))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CURRENT_AGENT]);
}

/**
 * agents_run_state_get_current_turn:
 * @self: a run state
 *
 * Gets the number of turns the run took.
 *
 * Returns: the turns
 */
guint
agents_run_state_get_current_turn (AgentsRunState *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_STATE (self), 0);
  return self->current_turn;
}

/**
 * agents_run_state_get_max_turns:
 * @self: a run state
 *
 * Gets the turns the run may take in all.
 *
 * Returns: the maximum
 */
guint
agents_run_state_get_max_turns (AgentsRunState *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_STATE (self), 0);
  return self->max_turns;
}

/**
 * agents_run_state_set_max_turns:
 * @self: a run state
 * @max_turns: the maximum, at least 1
 *
 * Sets the turns the run may take in all, resumed turns included.
 */
void
agents_run_state_set_max_turns (AgentsRunState *self, guint max_turns)
{
  g_return_if_fail (AGENTS_IS_RUN_STATE (self));
  g_return_if_fail (max_turns > 0);

  if (self->max_turns == max_turns)
    return;
  self->max_turns = max_turns;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_TURNS]);
}

/**
 * agents_run_state_get_generated_items:
 * @self: a run state
 *
 * Gets the items the run generated so far.
 *
 * Returns: (transfer none): a list of #AgentsRunItem
 */
GListModel *
agents_run_state_get_generated_items (AgentsRunState *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_STATE (self), NULL);
  return G_LIST_MODEL (self->generated_items);
}

/**
 * agents_run_state_get_model_responses:
 * @self: a run state
 *
 * Gets the model's responses so far.
 *
 * Returns: (transfer none): a list of #AgentsModelResponse
 */
GListModel *
agents_run_state_get_model_responses (AgentsRunState *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_STATE (self), NULL);
  return G_LIST_MODEL (self->model_responses);
}

/**
 * agents_run_state_get_interruptions:
 * @self: a run state
 *
 * Gets the tool calls waiting for approval.
 *
 * Returns: (transfer none): a list of #AgentsRunItem of kind
 *   %AGENTS_RUN_ITEM_KIND_TOOL_APPROVAL
 */
GListModel *
agents_run_state_get_interruptions (AgentsRunState *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_STATE (self), NULL);
  return G_LIST_MODEL (self->interruptions);
}

/**
 * agents_run_state_approve:
 * @self: a run state
 * @approval_item: a tool approval item, e.g. one of the interruptions
 * @always: whether every later call of the tool is approved too
 *
 * Approves a tool call: the resumed run executes it.
 */
void
agents_run_state_approve (AgentsRunState *self,
                          AgentsRunItem *approval_item,
                          gboolean always)
{
  g_return_if_fail (AGENTS_IS_RUN_STATE (self));
  g_return_if_fail (AGENTS_IS_RUN_ITEM (approval_item));

  agents_run_context_approve_tool (self->ctx, approval_item, always);
}

/**
 * agents_run_state_reject:
 * @self: a run state
 * @approval_item: a tool approval item, e.g. one of the interruptions
 * @always: whether every later call of the tool is rejected too
 *
 * Rejects a tool call: the resumed run tells the model it was not
 * approved, without executing it.
 */
void
agents_run_state_reject (AgentsRunState *self,
                         AgentsRunItem *approval_item,
                         gboolean always)
{
  g_return_if_fail (AGENTS_IS_RUN_STATE (self));
  g_return_if_fail (AGENTS_IS_RUN_ITEM (approval_item));

  agents_run_context_reject_tool (self->ctx, approval_item, always);
}

/**
 * agents_run_state_get_sandbox:
 * @self: a run state
 *
 * Gets the sandbox runtime's payload (its sessions' states), opaque to
 * the runner.
 *
 * Returns: (transfer none) (nullable): the payload
 */
JsonObject *
agents_run_state_get_sandbox (AgentsRunState *self)
{
  g_return_val_if_fail (AGENTS_IS_RUN_STATE (self), NULL);
  return self->sandbox;
}

/**
 * agents_run_state_set_sandbox:
 * @self: a run state
 * @sandbox: (nullable): the payload
 *
 * Sets the sandbox runtime's payload.
 */
void
agents_run_state_set_sandbox (AgentsRunState *self, JsonObject *sandbox)
{
  g_return_if_fail (AGENTS_IS_RUN_STATE (self));

  if (self->sandbox == sandbox)
    return;
  g_clear_pointer (&self->sandbox, json_object_unref);
  self->sandbox = sandbox ? json_object_ref (sandbox) : NULL;
}

/**
 * agents_run_state_get_tools_used:
 * @self: a run state
 * @agent: an agent
 *
 * Gets the tools @agent used during the run (the reference's tool use
 * tracker: an agent with #AgentsAgent:reset-tool-choice that used tools
 * has its tool choice reset).
 *
 * Returns: (transfer full) (nullable) (array zero-terminated=1): the tool
 *   names, or %NULL if the agent used none
 */
char **
agents_run_state_get_tools_used (AgentsRunState *self, AgentsAgent *agent)
{
  g_return_val_if_fail (AGENTS_IS_RUN_STATE (self), NULL);
  g_return_val_if_fail (AGENTS_IS_AGENT (agent), NULL);

  return agents_tool_use_tracker_dup_tools (self->tracker, agent);
}

/* ---- Saving ------------------------------------------------------------ */

static const struct
{
  AgentsRunItemKind kind;
  const char *type;
} item_types[] = {
  { AGENTS_RUN_ITEM_KIND_MESSAGE_OUTPUT, "message_output_item" },
  { AGENTS_RUN_ITEM_KIND_TOOL_CALL, "tool_call_item" },
  { AGENTS_RUN_ITEM_KIND_TOOL_CALL_OUTPUT, "tool_call_output_item" },
  { AGENTS_RUN_ITEM_KIND_HANDOFF_CALL, "handoff_call_item" },
  { AGENTS_RUN_ITEM_KIND_HANDOFF_OUTPUT, "handoff_output_item" },
  { AGENTS_RUN_ITEM_KIND_REASONING, "reasoning_item" },
  { AGENTS_RUN_ITEM_KIND_TOOL_APPROVAL, "tool_approval_item" },
};

/* The identity map a state's agents are keyed by: the starting agent's
 * graph, extended with agents outside it (so nothing goes unnamed). */
static AgentsAgentIdentityMap *
state_identity_map (AgentsRunState *self)
{
  g_autoptr (GPtrArray) roots = g_ptr_array_new ();
  GListModel *items = G_LIST_MODEL (self->generated_items);

  g_ptr_array_add (roots, self->starting_agent);
  g_ptr_array_add (roots, self->current_agent);
  for (guint i = 0; i < g_list_model_get_n_items (items); i++)
    {
      g_autoptr (AgentsRunItem) item = g_list_model_get_item (items, i);

      if (agents_run_item_get_agent (item) != NULL)
        g_ptr_array_add (roots, agents_run_item_get_agent (item));
    }
  return identity_map_new ((AgentsAgent **) roots->pdata, roots->len);
}

static JsonNode *
agent_ref (AgentsAgentIdentityMap *map, AgentsAgent *agent)
{
  JsonObject *ref;

  if (agent == NULL)
    return json_node_new (JSON_NODE_NULL);
  ref = json_object_new ();
  json_object_set_string_member (ref, "name", agent_name (agent));
  json_object_set_string_member (
    ref, "key", agents_agent_identity_map_find_key (map, agent));
  {
    JsonNode *node = json_node_new (JSON_NODE_OBJECT);

    json_node_take_object (node, ref);
    return node;
  }
}

static JsonObject *
item_to_json (AgentsAgentIdentityMap *map, AgentsRunItem *item)
{
  JsonObject *json = json_object_new ();
  AgentsRunItemKind kind = agents_run_item_get_kind (item);

  for (guint i = 0; i < G_N_ELEMENTS (item_types); i++)
    if (item_types[i].kind == kind)
      json_object_set_string_member (json, "type", item_types[i].type);
  json_object_set_member (json, "agent",
                          agent_ref (map, agents_run_item_get_agent (item)));
  json_object_set_object_member (
    json, "raw_item",
    agents_run_private_json_object_copy (agents_run_item_get_raw_item (item)));
  if (kind == AGENTS_RUN_ITEM_KIND_TOOL_CALL_OUTPUT)
    json_object_set_member (
      json, "output",
      agents_run_item_get_output (item)
        ? json_node_copy (agents_run_item_get_output (item))
        : json_node_new (JSON_NODE_NULL));
  if (kind == AGENTS_RUN_ITEM_KIND_HANDOFF_OUTPUT)
    {
      json_object_set_member (
        json, "source_agent",
        agent_ref (map, agents_run_item_get_source_agent (item)));
      json_object_set_member (
        json, "target_agent",
        agent_ref (map, agents_run_item_get_target_agent (item)));
    }
  if (kind == AGENTS_RUN_ITEM_KIND_TOOL_APPROVAL &&
      agents_run_item_get_tool_name (item) != NULL)
    json_object_set_string_member (json, "tool_name",
                                   agents_run_item_get_tool_name (item));
  return json;
}

static JsonArray *
items_to_json (AgentsAgentIdentityMap *map, GListModel *items)
{
  JsonArray *array = json_array_new ();

  for (guint i = 0; i < g_list_model_get_n_items (items); i++)
    {
      g_autoptr (AgentsRunItem) item = g_list_model_get_item (items, i);

      json_array_add_object_element (array, item_to_json (map, item));
    }
  return array;
}

static JsonArray *
responses_to_json (GListModel *responses)
{
  JsonArray *array = json_array_new ();

  for (guint i = 0; i < g_list_model_get_n_items (responses); i++)
    {
      g_autoptr (AgentsModelResponse) response =
        g_list_model_get_item (responses, i);

      json_array_add_object_element (array,
                                     agents_model_response_to_json (response));
    }
  return array;
}

static JsonObject *
tracker_to_json (AgentsAgentIdentityMap *map, AgentsToolUseTracker *tracker)
{
  JsonObject *json = json_object_new ();
  g_autoptr (GPtrArray) agents = agents_tool_use_tracker_get_agents (tracker);

  for (guint i = 0; i < agents->len; i++)
    {
      g_auto (GStrv) names =
        agents_tool_use_tracker_dup_tools (tracker, agents->pdata[i]);
      JsonArray *array = json_array_new ();

      for (guint j = 0; names[j] != NULL; j++)
        json_array_add_string_element (array, names[j]);
      json_object_set_array_member (
        json, agents_agent_identity_map_find_key (map, agents->pdata[i]),
        array);
    }
  return json;
}

static JsonObject *
context_to_json (AgentsRunContext *ctx)
{
  JsonObject *json = json_object_new ();

  json_object_set_object_member (json, "usage",
                                 agents_run_context_get_usage (ctx));
  json_object_set_object_member (json, "approvals",
                                 agents_run_context_get_approvals (ctx));
  json_object_set_object_member (json, "context", json_object_new ());
  return json;
}

static JsonNode *
current_step_to_json (AgentsAgentIdentityMap *map, GListModel *interruptions)
{
  JsonObject *step, *data;

  if (g_list_model_get_n_items (interruptions) == 0)
    return json_node_new (JSON_NODE_NULL);
  step = json_object_new ();
  data = json_object_new ();
  json_object_set_string_member (step, "type", "next_step_interruption");
  json_object_set_array_member (data, "interruptions",
                                items_to_json (map, interruptions));
  json_object_set_object_member (step, "data", data);
  {
    JsonNode *node = json_node_new (JSON_NODE_OBJECT);

    json_node_take_object (node, step);
    return node;
  }
}

/**
 * agents_run_state_to_json:
 * @self: a run state
 *
 * Saves the state as a JSON document: `{"$schemaVersion", "current_turn",
 * "current_agent": {"name", "key"}, "original_input", "model_responses",
 * "generated_items", "tool_use_tracker", "context": {"usage",
 * "approvals", "context"}, "current_step", "max_turns", "sandbox"}`.
 * Agents are named by their identity keys (see
 * agents_run_state_build_agent_identity_map()); the user context object
 * is not saved.
 *
 * Returns: (transfer full): the JSON text
 */
char *
agents_run_state_to_json (AgentsRunState *self)
{
  g_autoptr (AgentsAgentIdentityMap) map = NULL;
  g_autoptr (JsonObject) json = json_object_new ();
  g_autoptr (JsonNode) root = NULL;

  g_return_val_if_fail (AGENTS_IS_RUN_STATE (self), NULL);

  map = state_identity_map (self);
  json_object_set_string_member (json, "$schemaVersion",
                                 AGENTS_RUN_STATE_SCHEMA_VERSION);
  json_object_set_int_member (json, "current_turn", self->current_turn);
  json_object_set_member (json, "current_agent",
                          agent_ref (map, self->current_agent));
  json_object_set_member (json, "original_input",
                          json_node_copy (self->original_input));
  json_object_set_array_member (
    json, "model_responses",
    responses_to_json (G_LIST_MODEL (self->model_responses)));
  json_object_set_array_member (
    json, "generated_items",
    items_to_json (map, G_LIST_MODEL (self->generated_items)));
  json_object_set_object_member (json, "tool_use_tracker",
                                 tracker_to_json (map, self->tracker));
  json_object_set_object_member (json, "context", context_to_json (self->ctx));
  json_object_set_member (
    json, "current_step",
    current_step_to_json (map, G_LIST_MODEL (self->interruptions)));
  json_object_set_int_member (json, "max_turns", self->max_turns);
  if (self->sandbox != NULL)
    json_object_set_object_member (
      json, "sandbox", agents_run_private_json_object_copy (self->sandbox));
  else
    json_object_set_null_member (json, "sandbox");

  root = json_node_init_object (json_node_alloc (), json);
  return json_to_string (root, FALSE);
}

/* ---- Restoring --------------------------------------------------------- */

static gboolean G_GNUC_PRINTF (2, 3)
  invalid (GError **error, const char *format, ...)
{
  va_list args;
  g_autofree char *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error_literal (error, AGENTS_RUN_ERROR,
                       AGENTS_RUN_ERROR_INVALID_RUN_STATE, message);
  if (error != NULL && *error != NULL)
    agents_run_error_set_context (
      *error, g_variant_new_parsed ("{'reason': <%s>}", message));
  return FALSE;
}

static JsonNode *
member (JsonObject *object, const char *name)
{
  return json_object_get_member (object, name);
}

static gboolean
holds_type (JsonNode *node, GType type)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
         json_node_get_value_type (node) == type;
}

static JsonObject *
require_object (JsonObject *object, const char *name, GError **error)
{
  JsonNode *node = member (object, name);

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      invalid (error, _ ("The run state’s “%s” is not an object"), name);
      return NULL;
    }
  return json_node_get_object (node);
}

static JsonArray *
require_array (JsonObject *object, const char *name, GError **error)
{
  JsonNode *node = member (object, name);

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    {
      invalid (error, _ ("The run state’s “%s” is not an array"), name);
      return NULL;
    }
  return json_node_get_array (node);
}

static gboolean
read_count (JsonObject *object, const char *name, guint *value, GError **error)
{
  JsonNode *node = member (object, name);

  if (!holds_type (node, G_TYPE_INT64) || json_node_get_int (node) < 0 ||
      json_node_get_int (node) > G_MAXINT32)
    return invalid (
      error, _ ("The run state’s “%s” is not a non-negative integer"), name);
  *value = json_node_get_int (node);
  return TRUE;
}

/* Resolves an agent reference {"name", "key"} against the new graph. */
static AgentsAgent *
resolve_agent (AgentsAgentIdentityMap *map,
               JsonNode *ref,
               const char *what,
               GError **error)
{
  JsonObject *object;
  const char *key;
  AgentsAgent *agent;

  if (ref == NULL || !JSON_NODE_HOLDS_OBJECT (ref))
    {
      invalid (error, _ ("The run state’s %s is not an agent reference"), what);
      return NULL;
    }
  object = json_node_get_object (ref);
  key = agents_run_private_json_string (object, "key");
  if (key == NULL)
    key = agents_run_private_json_string (object, "name");
  if (key == NULL)
    {
      invalid (error, _ ("The run state’s %s names no agent"), what);
      return NULL;
    }
  agent = agents_agent_identity_map_lookup (map, key);
  if (agent == NULL)
    invalid (error,
             _ ("Agent “%s” of the run state is not in the agent graph of "
                "the starting agent"),
             key);
  return agent;
}

static gboolean
kind_from_type (const char *type, AgentsRunItemKind *kind)
{
  for (guint i = 0; type != NULL && i < G_N_ELEMENTS (item_types); i++)
    if (g_str_equal (item_types[i].type, type))
      {
        *kind = item_types[i].kind;
        return TRUE;
      }
  return FALSE;
}

static AgentsRunItem *
item_from_json (AgentsAgentIdentityMap *map, JsonNode *node, GError **error)
{
  JsonObject *json, *raw;
  AgentsRunItemKind kind;
  AgentsAgent *agent, *source, *target;
  const char *type;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      invalid (error, _ ("A run item of the run state is not an object"));
      return NULL;
    }
  json = json_node_get_object (node);
  type = agents_run_private_json_string (json, "type");
  if (!kind_from_type (type, &kind))
    {
      invalid (error, _ ("Unknown run item type “%s” in the run state"),
               type ? type : "(none)");
      return NULL;
    }
  if ((raw = require_object (json, "raw_item", error)) == NULL ||
      (agent = resolve_agent (map, member (json, "agent"), "item agent",
                              error)) == NULL)
    return NULL;
  raw = agents_run_private_json_object_copy (raw);

  switch (kind)
    {
    case AGENTS_RUN_ITEM_KIND_TOOL_CALL_OUTPUT:
      {
        JsonNode *output = member (json, "output");
        AgentsRunItem *item = agents_run_item_new_tool_output (
          agent, raw, output && !JSON_NODE_HOLDS_NULL (output) ? output : NULL);

        json_object_unref (raw);
        return item;
      }
    case AGENTS_RUN_ITEM_KIND_HANDOFF_OUTPUT:
      source = resolve_agent (map, member (json, "source_agent"),
                              "handoff source agent", error);
      target = source ? resolve_agent (map, member (json, "target_agent"),
                                       "handoff target agent", error)
                      : NULL;
      if (target == NULL)
        {
          json_object_unref (raw);
          return NULL;
        }
      {
        AgentsRunItem *item =
          agents_run_item_new_handoff_output (agent, raw, source, target);

        json_object_unref (raw);
        return item;
      }
    case AGENTS_RUN_ITEM_KIND_TOOL_APPROVAL:
      {
        AgentsRunItem *item = agents_run_item_new_tool_approval (
          agent, raw, agents_run_private_json_string (json, "tool_name"));

        json_object_unref (raw);
        return item;
      }
    default:
      {
        AgentsRunItem *item = agents_run_item_new (kind, agent, raw);

        json_object_unref (raw);
        return item;
      }
    }
}

static GPtrArray *
items_from_json (AgentsAgentIdentityMap *map, JsonArray *array, GError **error)
{
  g_autoptr (GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      AgentsRunItem *item =
        item_from_json (map, json_array_get_element (array, i), error);

      if (item == NULL)
        return NULL;
      g_ptr_array_add (items, item);
    }
  return g_steal_pointer (&items);
}

static GPtrArray *
responses_from_json (JsonArray *array, GError **error)
{
  g_autoptr (GPtrArray) responses =
    g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *node = json_array_get_element (array, i);
      g_autoptr (GError) local_error = NULL;
      AgentsModelResponse *response = NULL;

      if (JSON_NODE_HOLDS_OBJECT (node))
        response = agents_model_response_new_from_json (
          json_node_get_object (node), &local_error);
      if (response == NULL)
        {
          invalid (error,
                   _ ("Model response %u of the run state is invalid: %s"), i,
                   local_error ? local_error->message : _ ("not an object"));
          return NULL;
        }
      g_ptr_array_add (responses, response);
    }
  return g_steal_pointer (&responses);
}

static AgentsToolUseTracker *
tracker_from_json (AgentsAgentIdentityMap *map,
                   JsonObject *json,
                   GError **error)
{
  g_autoptr (AgentsToolUseTracker) tracker = agents_tool_use_tracker_new ();
  JsonObjectIter iter;
  const char *key;
  JsonNode *value;

  json_object_iter_init (&iter, json);
  while (json_object_iter_next (&iter, &key, &value))
    {
      AgentsAgent *agent = agents_agent_identity_map_lookup (map, key);
      JsonArray *names;

      if (agent == NULL)
        {
          invalid (error,
                   _ ("Agent “%s” of the run state’s tool use tracker is not "
                      "in the agent graph of the starting agent"),
                   key);
          return NULL;
        }
      if (!JSON_NODE_HOLDS_ARRAY (value))
        {
          invalid (error, _ ("The tools used by “%s” are not an array"), key);
          return NULL;
        }
      names = json_node_get_array (value);
      for (guint i = 0; i < json_array_get_length (names); i++)
        {
          JsonNode *name = json_array_get_element (names, i);

          if (!holds_type (name, G_TYPE_STRING))
            {
              invalid (error, _ ("A tool used by “%s” is not a string"), key);
              return NULL;
            }
          agents_tool_use_tracker_add (tracker, agent,
                                       json_node_get_string (name));
        }
    }
  return g_steal_pointer (&tracker);
}

static gboolean
read_context (AgentsRunState *self, JsonObject *json, GError **error)
{
  JsonObject *context = require_object (json, "context", error);
  JsonNode *usage, *approvals;

  if (context == NULL)
    return FALSE;
  usage = member (context, "usage");
  if (usage != NULL && JSON_NODE_HOLDS_OBJECT (usage))
    agents_run_context_set_usage (self->ctx, json_node_get_object (usage));
  else if (usage != NULL && !JSON_NODE_HOLDS_NULL (usage))
    return invalid (error, _ ("The run state’s usage is not an object"));
  approvals = member (context, "approvals");
  if (approvals == NULL || JSON_NODE_HOLDS_NULL (approvals))
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (approvals))
    return invalid (error, _ ("The run state’s approvals are not an object"));
  return agents_run_context_set_approvals (
    self->ctx, json_node_get_object (approvals), error);
}

static GPtrArray *
read_interruptions (AgentsAgentIdentityMap *map,
                    JsonObject *json,
                    GError **error)
{
  JsonNode *node = member (json, "current_step");
  JsonObject *step, *data;
  JsonArray *array;
  g_autoptr (GPtrArray) items = NULL;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return g_ptr_array_new_with_free_func (g_object_unref);
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      invalid (error, _ ("The run state’s “%s” is not an object"),
               "current_step");
      return NULL;
    }
  step = json_node_get_object (node);
  if (g_strcmp0 (agents_run_private_json_string (step, "type"),
                 "next_step_interruption") != 0)
    {
      invalid (error, _ ("Unknown current step of the run state"));
      return NULL;
    }
  if ((data = require_object (step, "data", error)) == NULL ||
      (array = require_array (data, "interruptions", error)) == NULL)
    return NULL;
  items = items_from_json (map, array, error);
  for (guint i = 0; items != NULL && i < items->len; i++)
    if (agents_run_item_get_kind (items->pdata[i]) !=
        AGENTS_RUN_ITEM_KIND_TOOL_APPROVAL)
      {
        invalid (error,
                 _ ("An interruption of the run state is not a tool approval"));
        return NULL;
      }
  return g_steal_pointer (&items);
}

static gboolean
read_input (AgentsRunState *self, JsonObject *json, GError **error)
{
  JsonNode *input = member (json, "original_input");

  if (holds_type (input, G_TYPE_STRING))
    ;
  else if (input != NULL && JSON_NODE_HOLDS_ARRAY (input))
    {
      JsonArray *array = json_node_get_array (input);

      for (guint i = 0; i < json_array_get_length (array); i++)
        if (!JSON_NODE_HOLDS_OBJECT (json_array_get_element (array, i)))
          return invalid (error, _ ("An input item of the run state is not an "
                                    "object"));
    }
  else
    return invalid (error,
                    _ ("The run state’s original input is neither a string "
                       "nor an array"));
  g_clear_pointer (&self->original_input, json_node_unref);
  self->original_input = json_node_copy (input);
  return TRUE;
}

static gboolean
check_schema_version (JsonObject *json, GError **error)
{
  JsonNode *version = member (json, "$schemaVersion");

  if (version == NULL)
    return invalid (error, _ ("The run state has no $schemaVersion"));
  if (!holds_type (version, G_TYPE_STRING))
    return invalid (error,
                    _ ("The run state’s $schemaVersion is not a string"));
  if (!g_str_equal (json_node_get_string (version),
                    AGENTS_RUN_STATE_SCHEMA_VERSION))
    return invalid (error,
                    _ ("Unsupported run state schema version “%s” (supported: "
                       "%s)"),
                    json_node_get_string (version),
                    AGENTS_RUN_STATE_SCHEMA_VERSION);
  return TRUE;
}

static gboolean
read_sandbox (AgentsRunState *self, JsonObject *json, GError **error)
{
  JsonNode *sandbox = member (json, "sandbox");

  if (sandbox == NULL || JSON_NODE_HOLDS_NULL (sandbox))
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (sandbox))
    return invalid (error, _ ("The run state’s “%s” is not an object"),
                    "sandbox");
  self->sandbox =
    agents_run_private_json_object_copy (json_node_get_object (sandbox));
  return TRUE;
}

static gboolean
read_state (AgentsRunState *self, JsonObject *json, GError **error)
{
  g_autoptr (AgentsAgentIdentityMap) map =
    agents_run_state_build_agent_identity_map (self->starting_agent);
  g_autoptr (GPtrArray) items = NULL;
  g_autoptr (GPtrArray) responses = NULL;
  g_autoptr (GPtrArray) interruptions = NULL;
  g_autoptr (AgentsToolUseTracker) tracker = NULL;
  JsonArray *array;
  JsonObject *object;
  AgentsAgent *current;
  guint turn, max_turns;

  if (!check_schema_version (json, error) ||
      !read_count (json, "current_turn", &turn, error) ||
      !read_count (json, "max_turns", &max_turns, error))
    return FALSE;
  if (max_turns == 0)
    return invalid (error, _ ("The run state’s max_turns is 0"));
  if ((current = resolve_agent (map, member (json, "current_agent"),
                                "current agent", error)) == NULL ||
      !read_input (self, json, error) ||
      (array = require_array (json, "model_responses", error)) == NULL ||
      (responses = responses_from_json (array, error)) == NULL ||
      (array = require_array (json, "generated_items", error)) == NULL ||
      (items = items_from_json (map, array, error)) == NULL ||
      (object = require_object (json, "tool_use_tracker", error)) == NULL ||
      (tracker = tracker_from_json (map, object, error)) == NULL ||
      !read_context (self, json, error) ||
      (interruptions = read_interruptions (map, json, error)) == NULL ||
      !read_sandbox (self, json, error))
    return FALSE;

  g_set_object (&self->current_agent, current);
  self->max_turns = max_turns;
  agents_run_private_state_set_progress (self, turn, items, responses,
                                         interruptions, tracker);
  return TRUE;
}

/**
 * agents_run_state_new_from_json:
 * @starting_agent: the agent the run started with, in an agent graph
 *   built like the one of the saved run
 * @json: a document made by agents_run_state_to_json()
 * @error: return location for a #GError
 *
 * Restores a run state. The saved agents are found in the graph of
 * @starting_agent by their identity keys, so the restored items, current
 * agent and tool use refer to the agents of that graph. A malformed or
 * hostile document, an unknown `$schemaVersion`, or one naming agents
 * that the graph lacks fails with %AGENTS_RUN_ERROR_INVALID_RUN_STATE,
 * whose message tells what is wrong.
 *
 * Returns: (transfer full): the state, or %NULL on error
 */
AgentsRunState *
agents_run_state_new_from_json (AgentsAgent *starting_agent,
                                const char *json,
                                GError **error)
{
  g_autoptr (AgentsRunState) self = NULL;
  g_autoptr (GError) parse_error = NULL;
  g_autoptr (JsonNode) root = NULL;

  g_return_val_if_fail (AGENTS_IS_AGENT (starting_agent), NULL);
  g_return_val_if_fail (json != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* Bounded in depth and size: a hostile state cannot make the parser
   * recurse. */
  root = agents_json_parse_bounded (json, -1, _ ("run state"), &parse_error);
  if (root == NULL)
    {
      invalid (error, "%s", parse_error->message);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      invalid (error, _ ("The run state is not a JSON object"));
      return NULL;
    }

  self = agents_run_state_new (NULL, NULL, starting_agent);
  if (!read_state (self, json_node_get_object (root), error))
    return NULL;
  return g_steal_pointer (&self);
}
