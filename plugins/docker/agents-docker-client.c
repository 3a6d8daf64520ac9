/* agents-docker-client.c - the docker sandbox backend
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-docker-client.h"
#include "agents-docker-container.h"
#include "agents-docker-host-mounts.h"
#include "agents-docker-session.h"

#define BACKEND_ID "docker"

/**
 * AgentsDockerClient:
 *
 * The `docker` backend: each session is a container of a Docker engine,
 * local or remote, spoken to over the Engine API. The client keeps one
 * connection per engine endpoint.
 */
struct _AgentsDockerClient
{
  AgentsSandboxClientBase parent_instance;

  GMutex lock;
  GHashTable *engines; /* endpoint or "" -> AgentsDockerEngine */
};

static void client_iface_init (AgentsSandboxClientInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  AgentsDockerClient,
  agents_docker_client,
  AGENTS_TYPE_SANDBOX_CLIENT_BASE,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_SANDBOX_CLIENT, client_iface_init))

static void
agents_docker_client_finalize (GObject *object)
{
  AgentsDockerClient *self = AGENTS_DOCKER_CLIENT (object);

  g_hash_table_unref (self->engines);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (agents_docker_client_parent_class)->finalize (object);
}

static void
agents_docker_client_class_init (AgentsDockerClientClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = agents_docker_client_finalize;
  agents_sandbox_client_base_class_set_session_state_type (
    AGENTS_SANDBOX_CLIENT_BASE_CLASS (klass), AGENTS_TYPE_DOCKER_SESSION_STATE);
}

static void
agents_docker_client_init (AgentsDockerClient *self)
{
  g_mutex_init (&self->lock);
  self->engines =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
}

AgentsSandboxClient *
agents_docker_client_new (void)
{
  return g_object_new (AGENTS_TYPE_DOCKER_CLIENT, NULL);
}

static const char *
client_get_backend_id (AgentsSandboxClient *client)
{
  return BACKEND_ID;
}

static gboolean
client_supports_default_options (AgentsSandboxClient *client)
{
  /* There is no default image. */
  return FALSE;
}

static AgentsDockerEngine *
client_engine (AgentsDockerClient *self, const char *host, GError **error)
{
  g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&self->lock);
  AgentsDockerEngine *engine =
    g_hash_table_lookup (self->engines, host ? host : "");
  g_autoptr (GError) local = NULL;

  if (engine != NULL)
    return g_object_ref (engine);
  engine = agents_docker_engine_new (host, &local);
  if (engine == NULL)
    {
      g_propagate_error (error,
                         agents_docker_map_error (
                           local, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, NULL));
      return NULL;
    }
  g_hash_table_insert (self->engines, g_strdup (host ? host : ""), engine);
  return g_object_ref (engine);
}

/* ---- create and resume ---------------------------------------------- */

static void
session_ensured (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  AgentsDockerSession *session = AGENTS_DOCKER_SESSION (source);
  GError *error = NULL;

  if (!agents_docker_session_ensure_container_finish (session, result, &error))
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, g_object_ref (session), g_object_unref);
}

static void
open_session (AgentsDockerClient *self,
              AgentsDockerSessionState *state,
              gboolean reuse,
              GTask *task)
{
  g_autoptr (AgentsDockerEngine) engine = NULL;
  g_autoptr (AgentsDockerSession) session = NULL;
  GError *error = NULL;

  engine = client_engine (
    self, agents_docker_session_state_get_docker_host (state), &error);
  if (engine == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  session = agents_docker_session_new (engine, state);
  agents_docker_session_ensure_container_async (
    session, reuse, g_task_get_cancellable (task), session_ensured,
    g_object_ref (task));
}

static void
client_create (AgentsSandboxClient *client,
               AgentsManifest *manifest,
               GVariant *options,
               GObject *snapshot,
               GTask *task)
{
  g_autoptr (AgentsManifest) copy =
    manifest != NULL ? agents_manifest_copy (manifest) : agents_manifest_new ();
  g_autoptr (AgentsSandboxSessionState) state = NULL;
  g_autoptr (AgentsSnapshot) resolved = NULL;
  GError *error = NULL;

  state = agents_docker_session_state_new (copy, options, &error);
  if (state == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  resolved = agents_snapshot_resolve (
    snapshot, agents_sandbox_session_state_get_session_id (state));
  agents_sandbox_session_state_set_snapshot (state, resolved);
  open_session (AGENTS_DOCKER_CLIENT (client),
                AGENTS_DOCKER_SESSION_STATE (state), FALSE, task);
}

/* A state is resumed only as the caller configured it (@options and
 * @snapshot as for create): never on another engine, network, image,
 * set of limits or snapshot directory than the state names. */
static void
client_resume_with_options (AgentsSandboxClient *client,
                            AgentsSandboxSessionState *state,
                            GVariant *options,
                            GObject *snapshot,
                            GTask *task)
{
  GError *error = NULL;

  if (!AGENTS_IS_DOCKER_SESSION_STATE (state))
    {
      g_task_return_new_error (
        task, AGENTS_SANDBOX_ERROR, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
        _ ("a docker session cannot resume a %s session state"),
        G_OBJECT_TYPE_NAME (state));
      return;
    }
  if (!agents_docker_session_state_check_configuration (
        AGENTS_DOCKER_SESSION_STATE (state), options, snapshot, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  open_session (AGENTS_DOCKER_CLIENT (client),
                AGENTS_DOCKER_SESSION_STATE (state), TRUE, task);
}

/* Without the caller's configuration, the defaults are: the default
 * engine, no network, the default limits and snapshot directory. */
static void
client_resume (AgentsSandboxClient *client,
               AgentsSandboxSessionState *state,
               GTask *task)
{
  client_resume_with_options (client, state, NULL, NULL, task);
}

/* ---- delete --------------------------------------------------------- */

static void
host_unmounted (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;

  if (!agents_docker_host_mounts_unmount_finish (AGENTS_DOCKER_SESSION (source),
                                                 result, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
container_removed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;

  if (!agents_docker_session_remove_container_finish (
        AGENTS_DOCKER_SESSION (source), result, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  /* Gone, the container no longer holds the host mounts. */
  agents_docker_host_mounts_unmount_async (AGENTS_DOCKER_SESSION (source),
                                           g_task_get_cancellable (task),
                                           host_unmounted, g_object_ref (task));
}

static void
unmounted_in_container (GObject *source,
                        GAsyncResult *result,
                        gpointer user_data)
{
  g_autoptr (GTask) task = user_data;

  /* A failure was logged; the container goes all the same (removing it
   * deletes nothing through the mount, which is the container's). */
  agents_docker_host_mounts_unmount_in_container_finish (
    AGENTS_DOCKER_SESSION (source), result, NULL);
  agents_docker_session_remove_container_async (
    AGENTS_DOCKER_SESSION (source), g_task_get_cancellable (task),
    container_removed, g_object_ref (task));
}

static void
client_delete (AgentsSandboxClient *client,
               AgentsSandboxSession *session,
               GTask *task)
{
  if (!AGENTS_IS_DOCKER_SESSION (session))
    {
      g_task_return_new_error (task, AGENTS_SANDBOX_ERROR,
                               AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                               _ ("the docker backend cannot delete a %s"),
                               G_OBJECT_TYPE_NAME (session));
      return;
    }
  /* Mounts inside the container go first, their uploads done. */
  agents_docker_host_mounts_unmount_in_container_async (
    AGENTS_DOCKER_SESSION (session), g_task_get_cancellable (task),
    unmounted_in_container, g_object_ref (task));
}

static void reap_thread (GTask *task,
                         gpointer source,
                         gpointer task_data,
                         GCancellable *cancellable);

typedef struct
{
  char *host;
  gboolean all;
} ReapOp;

static void
reap_op_free (ReapOp *op)
{
  g_free (op->host);
  g_free (op);
}

static void
client_reap (AgentsSandboxClient *client,
             GVariant *options,
             gboolean all,
             GTask *task)
{
  ReapOp *op = g_new0 (ReapOp, 1);

  if (options != NULL)
    g_variant_lookup (options, "host", "s", &op->host);
  op->all = all;
  g_task_set_task_data (task, op, (GDestroyNotify) reap_op_free);
  g_task_run_in_thread (task, reap_thread);
}

static void
client_iface_init (AgentsSandboxClientInterface *iface)
{
  iface->get_backend_id = client_get_backend_id;
  iface->create = client_create;
  iface->resume = client_resume;
  iface->resume_with_options = client_resume_with_options;
  iface->delete = client_delete;
  iface->supports_default_options = client_supports_default_options;
  iface->reap = client_reap;
}

/* ---- reap ----------------------------------------------------------- */

static void
reap_thread (GTask *task,
             gpointer source,
             gpointer task_data,
             GCancellable *cancellable)
{
  ReapOp *op = task_data;
  g_autoptr (AgentsDockerEngine) engine = NULL;
  g_autoptr (GError) local = NULL;
  gssize removed;

  engine = agents_docker_engine_new (op->host, &local);
  removed =
    engine ? agents_docker_reap (engine, op->all, cancellable, &local) : -1;
  if (removed < 0)
    g_task_return_error (
      task, agents_docker_map_error (local, AGENTS_SANDBOX_ERROR_FAILED, NULL));
  else
    g_task_return_int (task, removed);
}

void
agents_docker_register_types (void)
{
  g_autoptr (GError) error = NULL;

  if (!agents_registry_register (AGENTS_REGISTRY_KIND_SANDBOX_CLIENT,
                                 BACKEND_ID, AGENTS_TYPE_DOCKER_CLIENT,
                                 &error) ||
      !agents_registry_register (AGENTS_REGISTRY_KIND_SESSION_STATE, BACKEND_ID,
                                 AGENTS_TYPE_DOCKER_SESSION_STATE, &error))
    g_warning ("Could not register the docker backend: %s", error->message);
}
