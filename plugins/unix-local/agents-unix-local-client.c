/* agents-unix-local-client.c - the unix_local sandbox backend
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "agents-fs-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-host-bind-private.h"
#include "agents-unix-local-client.h"
#include "agents-unix-local-confine.h"
#include "agents-unix-local-session.h"

#define BACKEND_ID "unix_local"
#define OWNED_ROOT_PREFIX "sandbox-local-"

/**
 * AgentsUnixLocalClient:
 *
 * The `unix_local` backend: workspaces are directories of the host and
 * commands run as host processes confined to them. A manifest with the
 * default root gets a fresh temporary directory, which the client owns
 * and removes on delete; any other root belongs to the caller and is
 * kept.
 */
struct _AgentsUnixLocalClient
{
  GObject parent_instance;
};

static void client_iface_init (AgentsSandboxClientInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  AgentsUnixLocalClient,
  agents_unix_local_client,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_SANDBOX_CLIENT, client_iface_init))

static AgentsUnixLocalRmtreeFunc rmtree_func;

static void
agents_unix_local_client_class_init (AgentsUnixLocalClientClass *klass)
{
}

static void
agents_unix_local_client_init (AgentsUnixLocalClient *self)
{
}

AgentsSandboxClient *
agents_unix_local_client_new (void)
{
  return g_object_new (AGENTS_TYPE_UNIX_LOCAL_CLIENT, NULL);
}

gboolean
agents_unix_local_rmtree (const char *path, GError **error)
{
  return agents_fs_rm_rf (path, error);
}

void
agents_unix_local_client_set_rmtree_func (AgentsUnixLocalRmtreeFunc func)
{
  g_atomic_pointer_set (&rmtree_func, func);
}

static const char *
client_get_backend_id (AgentsSandboxClient *client)
{
  return BACKEND_ID;
}

static gboolean
client_supports_default_options (AgentsSandboxClient *client)
{
  return TRUE;
}

/* ---- create and resume ---------------------------------------------- */

static char *
make_owned_root (GError **error)
{
  g_autofree char *dir = g_dir_make_tmp (OWNED_ROOT_PREFIX "XXXXXX", error);
  char *real;
  char *result;

  if (dir == NULL)
    return NULL;
  real = realpath (dir, NULL);
  result = g_strdup (real ? real : dir);
  free (real);
  return result;
}

static void
client_create (AgentsSandboxClient *client,
               AgentsManifest *manifest,
               GVariant *options,
               GObject *snapshot,
               GTask *task)
{
  g_autoptr (AgentsManifest) copy = NULL;
  g_autoptr (AgentsSandboxSessionState) state = NULL;
  g_autoptr (AgentsSnapshot) resolved = NULL;
  gboolean owned = FALSE;
  GError *error = NULL;

  if (!agents_unix_local_session_options_validate (options, &error))
    {
      g_task_return_error (task, error);
      return;
    }

  copy =
    manifest != NULL ? agents_manifest_copy (manifest) : agents_manifest_new ();
  if (g_strcmp0 (agents_manifest_get_root (copy),
                 AGENTS_MANIFEST_DEFAULT_ROOT) == 0)
    {
      g_autofree char *root = make_owned_root (&error);

      if (root == NULL)
        {
          g_task_return_error (task, error);
          return;
        }
      agents_manifest_set_root (copy, root);
      owned = TRUE;
    }

  state = agents_unix_local_session_state_new (copy, NULL, owned);
  resolved = agents_snapshot_resolve (
    snapshot, agents_sandbox_session_state_get_session_id (state));
  agents_sandbox_session_state_set_snapshot (state, resolved);
  g_task_return_pointer (
    task, agents_unix_local_session_new_from_state (state, options),
    g_object_unref);
}

static void
client_resume (AgentsSandboxClient *client,
               AgentsSandboxSessionState *state,
               GTask *task)
{
  g_task_return_pointer (task,
                         agents_unix_local_session_new_from_state (state, NULL),
                         g_object_unref);
}

/* ---- delete --------------------------------------------------------- */

typedef struct
{
  AgentsSandboxSession *session;
  GPtrArray *mounts; /* AgentsEntryTarget, deepest first */
  guint next;
  gboolean unmount_failed;
  char *root;
  gboolean remove_root;
} DeleteOp;

static void
delete_op_free (DeleteOp *op)
{
  g_clear_object (&op->session);
  g_clear_pointer (&op->mounts, g_ptr_array_unref);
  g_free (op->root);
  g_free (op);
}

static guint
count_components (const char *path)
{
  guint n = 0;

  for (const char *p = path; *p != '\0'; p++)
    if (*p == '/' && p[1] != '/' && p[1] != '\0')
      n++;
  return n;
}

static int
compare_deepest_first (gconstpointer a, gconstpointer b)
{
  const AgentsEntryTarget *ta = *(AgentsEntryTarget *const *) a;
  const AgentsEntryTarget *tb = *(AgentsEntryTarget *const *) b;
  guint da = count_components (ta->path);
  guint db = count_components (tb->path);

  if (da != db)
    return da > db ? -1 : 1;
  return -strcmp (ta->path, tb->path);
}

/* Only a root the client made itself is ever removed: a state read from
 * JSON cannot make delete remove an arbitrary tree. */
static gboolean
should_remove_root (AgentsSandboxSessionState *state, const char *root)
{
  g_autofree char *base = g_path_get_basename (root);

  return AGENTS_IS_UNIX_LOCAL_SESSION_STATE (state) &&
         agents_unix_local_session_state_get_workspace_root_owned (
           AGENTS_UNIX_LOCAL_SESSION_STATE (state)) &&
         g_path_is_absolute (root) && !g_str_equal (root, "/") &&
         g_str_has_prefix (base, OWNED_ROOT_PREFIX);
}

static void
rmtree_thread (GTask *task,
               gpointer source_object,
               gpointer task_data,
               GCancellable *cancellable)
{
  DeleteOp *op = task_data;
  AgentsUnixLocalRmtreeFunc func = g_atomic_pointer_get (&rmtree_func);
  g_autoptr (GError) error = NULL;

  if (func == NULL)
    func = agents_unix_local_rmtree;
  if (!func (op->root, &error))
    g_warning ("Could not remove the workspace %s: %s", op->root,
               error ? error->message : "unknown error");
  g_task_return_boolean (task, TRUE);
}

static void delete_next_unmount (GTask *task);

static void
delete_unmounted (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  DeleteOp *op = g_task_get_task_data (task);
  AgentsEntryTarget *target = g_ptr_array_index (op->mounts, op->next - 1);
  g_autoptr (GError) error = NULL;

  if (!agents_mount_unmount_finish (AGENTS_MOUNT (source), result, &error))
    {
      op->unmount_failed = TRUE;
      g_warning ("Could not unmount %s, keeping the workspace %s: %s",
                 target->path, op->root, error->message);
    }
  delete_next_unmount (g_steal_pointer (&task));
}

static void
delete_next_unmount (GTask *task)
{
  DeleteOp *op = g_task_get_task_data (task);
  AgentsEntryTarget *target;

  if (op->next < op->mounts->len)
    {
      target = g_ptr_array_index (op->mounts, op->next++);
      agents_mount_unmount_async (
        AGENTS_MOUNT (target->entry), op->session, target->path, op->root,
        g_task_get_cancellable (task), delete_unmounted, task);
      return;
    }
  if (op->unmount_failed || !op->remove_root)
    {
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }
  g_task_run_in_thread (task, rmtree_thread);
  g_object_unref (task);
}

static void
client_delete (AgentsSandboxClient *client,
               AgentsSandboxSession *session,
               GTask *task)
{
  AgentsSandboxSessionState *state = agents_sandbox_session_get_state (session);
  AgentsManifest *manifest = agents_sandbox_session_state_get_manifest (state);
  DeleteOp *op = g_new0 (DeleteOp, 1);

  if (AGENTS_IS_UNIX_LOCAL_SESSION (session))
    agents_unix_local_session_cleanup (AGENTS_UNIX_LOCAL_SESSION (session));

  op->session = g_object_ref (session);
  op->root = g_canonicalize_filename (agents_manifest_get_root (manifest), "/");
  op->remove_root = should_remove_root (state, op->root);
  op->mounts = agents_manifest_list_mounts (manifest);
  g_ptr_array_sort (op->mounts, compare_deepest_first);
  g_task_set_task_data (task, op, (GDestroyNotify) delete_op_free);
  delete_next_unmount (g_object_ref (task));
}

/* ---- state JSON ----------------------------------------------------- */

static JsonNode *
client_serialize_session_state (AgentsSandboxClient *client,
                                AgentsSandboxSessionState *state)
{
  return agents_sandbox_session_state_to_json (state);
}

static AgentsSandboxSessionState *
client_deserialize_session_state (AgentsSandboxClient *client,
                                  JsonNode *payload,
                                  GError **error)
{
  g_autoptr (AgentsSandboxSessionState) state = NULL;
  const char *type = NULL;

  if (payload != NULL && JSON_NODE_HOLDS_OBJECT (payload))
    type = json_object_get_string_member_with_default (
      json_node_get_object (payload), "type", NULL);
  if (g_strcmp0 (type, BACKEND_ID) != 0)
    {
      agents_sandbox_error_set (
        error, AGENTS_SANDBOX_ERROR_INVALID_JSON,
        g_variant_new_parsed ("{'type': <%s>}", type ? type : ""),
        _ ("session state of type “%s” is not a %s session state"),
        type ? type : "", BACKEND_ID);
      return NULL;
    }

  state = g_object_new (AGENTS_TYPE_UNIX_LOCAL_SESSION_STATE, NULL);
  if (!agents_sandbox_session_state_load_json (state, payload, error))
    return NULL;
  return g_steal_pointer (&state);
}

/* ---- reap ----------------------------------------------------------- */

/* What a killed process leaves behind: host mounts (s3_mount) in the
 * library's directory, whose FUSE daemons outlive it. */
static void
reap_thread (GTask *task,
             gpointer source_object,
             gpointer task_data,
             GCancellable *cancellable)
{
  GError *error = NULL;
  gssize removed =
    agents_host_mounts_reap (GPOINTER_TO_INT (task_data), &error);

  if (removed < 0)
    g_task_return_error (task, error);
  else
    g_task_return_int (task, removed);
}

static void
client_reap (AgentsSandboxClient *client,
             GVariant *options,
             gboolean all,
             GTask *task)
{
  g_task_set_task_data (task, GINT_TO_POINTER (all), NULL);
  g_task_run_in_thread (task, reap_thread);
}

static void
client_iface_init (AgentsSandboxClientInterface *iface)
{
  iface->get_backend_id = client_get_backend_id;
  iface->create = client_create;
  iface->resume = client_resume;
  iface->delete = client_delete;
  iface->serialize_session_state = client_serialize_session_state;
  iface->deserialize_session_state = client_deserialize_session_state;
  iface->supports_default_options = client_supports_default_options;
  iface->reap = client_reap;
}

void
agents_unix_local_register_types (void)
{
  g_autoptr (GError) error = NULL;

  if (!agents_registry_register (AGENTS_REGISTRY_KIND_SANDBOX_CLIENT,
                                 BACKEND_ID, AGENTS_TYPE_UNIX_LOCAL_CLIENT,
                                 &error) ||
      !agents_registry_register (AGENTS_REGISTRY_KIND_SESSION_STATE, BACKEND_ID,
                                 AGENTS_TYPE_UNIX_LOCAL_SESSION_STATE, &error))
    g_warning ("Could not register the unix_local backend: %s", error->message);
}
