/* agents-agent-identity-map.c - keys naming the agents of an agent graph
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-run-private.h"
#include "agents-run-state-private.h"

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

const char *
agents_run_private_agent_name (AgentsAgent *agent)
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

      if (strcmp (agents_run_private_agent_name (dup.agent), name) != 0)
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

AgentsAgentIdentityMap *
agents_run_private_identity_map_new (AgentsAgent **roots, guint n_roots)
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
      const char *name = agents_run_private_agent_name (order->pdata[i]);

      g_hash_table_insert (
        counts, (gpointer) name,
        GUINT_TO_POINTER (
          GPOINTER_TO_UINT (g_hash_table_lookup (counts, name)) + 1));
    }
  /* Unique names keep their name; it is never a duplicate's key. */
  for (guint i = 0; i < order->len; i++)
    {
      const char *name = agents_run_private_agent_name (order->pdata[i]);

      if (GPOINTER_TO_UINT (g_hash_table_lookup (counts, name)) == 1)
        {
          g_hash_table_add (used, g_strdup (name));
          add_entry (keys, order->pdata[i], name);
        }
    }
  for (guint i = 0; i < order->len; i++)
    {
      const char *name = agents_run_private_agent_name (order->pdata[i]);

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

  return agents_run_private_identity_map_new (&starting_agent, 1);
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
