/* agents-callback.c - a function with its data, shared by reference
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-agent-private.h"

AgentsCallback *
agents_callback_new (gpointer func, gpointer user_data, GDestroyNotify destroy)
{
  AgentsCallback *callback;

  if (func == NULL)
    {
      if (destroy != NULL)
        destroy (user_data);
      return NULL;
    }
  callback = g_new0 (AgentsCallback, 1);
  g_atomic_ref_count_init (&callback->ref_count);
  callback->func = func;
  callback->user_data = user_data;
  callback->destroy = destroy;
  return callback;
}

AgentsCallback *
agents_callback_ref (AgentsCallback *callback)
{
  if (callback != NULL)
    g_atomic_ref_count_inc (&callback->ref_count);
  return callback;
}

void
agents_callback_unref (AgentsCallback *callback)
{
  if (callback == NULL || !g_atomic_ref_count_dec (&callback->ref_count))
    return;
  if (callback->destroy != NULL)
    callback->destroy (callback->user_data);
  g_free (callback);
}
