/* agents-tool-use-tracker.c - which tools each agent of a run used
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-run-private.h"
#include "agents-run-state.h"

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
