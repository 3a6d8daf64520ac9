/* agents-host-bind.c - host directories shown inside a sandbox
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-host-bind-private.h"

/* The binds live on the session object itself, so that any backend can
 * carry them without a field of its own. Mounts are applied on the
 * owner's thread, but commands may be built on others: a lock guards
 * the list. */
typedef struct
{
  GMutex lock;
  gboolean supported;
  GPtrArray *binds; /* AgentsHostBind */
} HostBinds;

static GQuark
host_binds_quark (void)
{
  return g_quark_from_static_string ("agents-host-binds");
}

AgentsHostBind *
agents_host_bind_new (const char *host_path,
                      const char *sandbox_path,
                      gboolean read_only)
{
  AgentsHostBind *bind = g_new0 (AgentsHostBind, 1);

  bind->host_path = g_strdup (host_path);
  bind->sandbox_path = g_strdup (sandbox_path);
  bind->read_only = read_only;
  return bind;
}

AgentsHostBind *
agents_host_bind_copy (const AgentsHostBind *bind)
{
  return agents_host_bind_new (bind->host_path, bind->sandbox_path,
                               bind->read_only);
}

void
agents_host_bind_free (AgentsHostBind *bind)
{
  if (bind == NULL)
    return;
  g_free (bind->host_path);
  g_free (bind->sandbox_path);
  g_free (bind);
}

static void
host_binds_free (HostBinds *hb)
{
  g_mutex_clear (&hb->lock);
  g_ptr_array_unref (hb->binds);
  g_free (hb);
}

static HostBinds *
get_host_binds (AgentsSandboxSession *session)
{
  static GMutex create_lock;
  HostBinds *hb;

  g_mutex_lock (&create_lock);
  hb = g_object_get_qdata (G_OBJECT (session), host_binds_quark ());
  if (hb == NULL)
    {
      hb = g_new0 (HostBinds, 1);
      g_mutex_init (&hb->lock);
      hb->binds =
        g_ptr_array_new_with_free_func ((GDestroyNotify) agents_host_bind_free);
      g_object_set_qdata_full (G_OBJECT (session), host_binds_quark (), hb,
                               (GDestroyNotify) host_binds_free);
    }
  g_mutex_unlock (&create_lock);
  return hb;
}

gboolean
agents_sandbox_session_get_host_binds_supported (AgentsSandboxSession *session)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION (session), FALSE);

  return get_host_binds (session)->supported;
}

void
agents_sandbox_session_set_host_binds_supported (AgentsSandboxSession *session,
                                                 gboolean supported)
{
  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (session));

  get_host_binds (session)->supported = !!supported;
}

static int
find_bind (GPtrArray *binds, const char *sandbox_path)
{
  for (guint i = 0; i < binds->len; i++)
    {
      AgentsHostBind *bind = g_ptr_array_index (binds, i);

      if (g_str_equal (bind->sandbox_path, sandbox_path))
        return (int) i;
    }
  return -1;
}

static int
compare_shallowest_first (gconstpointer a, gconstpointer b)
{
  const AgentsHostBind *ba = *(AgentsHostBind *const *) a;
  const AgentsHostBind *bb = *(AgentsHostBind *const *) b;

  return strcmp (ba->sandbox_path, bb->sandbox_path);
}

void
agents_sandbox_session_add_host_bind (AgentsSandboxSession *session,
                                      const AgentsHostBind *bind)
{
  HostBinds *hb;
  int i;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (session));
  g_return_if_fail (bind != NULL && g_path_is_absolute (bind->host_path) &&
                    g_path_is_absolute (bind->sandbox_path));

  hb = get_host_binds (session);
  g_mutex_lock (&hb->lock);
  i = find_bind (hb->binds, bind->sandbox_path);
  if (i >= 0)
    g_ptr_array_remove_index (hb->binds, i);
  g_ptr_array_add (hb->binds, agents_host_bind_copy (bind));
  /* A parent bound after its child would hide the child. */
  g_ptr_array_sort (hb->binds, compare_shallowest_first);
  g_mutex_unlock (&hb->lock);
}

gboolean
agents_sandbox_session_remove_host_bind (AgentsSandboxSession *session,
                                         const char *sandbox_path)
{
  HostBinds *hb;
  int i;

  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION (session), FALSE);
  g_return_val_if_fail (sandbox_path != NULL, FALSE);

  hb = get_host_binds (session);
  g_mutex_lock (&hb->lock);
  i = find_bind (hb->binds, sandbox_path);
  if (i >= 0)
    g_ptr_array_remove_index (hb->binds, i);
  g_mutex_unlock (&hb->lock);
  return i >= 0;
}

AgentsHostBind *
agents_sandbox_session_lookup_host_bind (AgentsSandboxSession *session,
                                         const char *sandbox_path)
{
  AgentsHostBind *copy = NULL;
  HostBinds *hb;
  int i;

  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION (session), NULL);
  g_return_val_if_fail (sandbox_path != NULL, NULL);

  hb = get_host_binds (session);
  g_mutex_lock (&hb->lock);
  i = find_bind (hb->binds, sandbox_path);
  if (i >= 0)
    copy = agents_host_bind_copy (g_ptr_array_index (hb->binds, i));
  g_mutex_unlock (&hb->lock);
  return copy;
}

static gpointer
copy_bind (gconstpointer bind, gpointer user_data)
{
  return agents_host_bind_copy (bind);
}

GPtrArray *
agents_sandbox_session_dup_host_binds (AgentsSandboxSession *session)
{
  GPtrArray *copy;
  HostBinds *hb;

  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION (session), NULL);

  hb = get_host_binds (session);
  g_mutex_lock (&hb->lock);
  copy = g_ptr_array_copy (hb->binds, copy_bind, NULL);
  g_ptr_array_set_free_func (copy, (GDestroyNotify) agents_host_bind_free);
  g_mutex_unlock (&hb->lock);
  return copy;
}
