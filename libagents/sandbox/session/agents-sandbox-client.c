/* agents-sandbox-client.c - the sandbox backend contract
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-sandbox-client.h"
#include "agents-sandbox-error-private.h"

/**
 * AgentsSandboxClient:
 *
 * A sandbox backend: it creates sessions from manifests, rebuilds them
 * from serialized states, and deletes what it created. Clients are found
 * by backend id with agents_registry_new_sandbox_client().
 */

G_DEFINE_INTERFACE (AgentsSandboxClient, agents_sandbox_client, G_TYPE_OBJECT)

static JsonNode *
default_serialize_session_state (AgentsSandboxClient *self,
                                 AgentsSandboxSessionState *state)
{
  return agents_sandbox_session_state_to_json (state);
}

/* Any registered state type, by its `type` (see #AgentsTypedJson). */
static AgentsSandboxSessionState *
default_deserialize_session_state (AgentsSandboxClient *self,
                                   JsonNode *payload,
                                   GError **error)
{
  return agents_sandbox_session_state_new_from_json (payload, error);
}

static gboolean
default_supports_default_options (AgentsSandboxClient *self)
{
  return FALSE;
}

static void
default_not_supported (AgentsSandboxClient *self,
                       GTask *task,
                       const char *operation)
{
  g_task_return_error (
    task, agents_sandbox_error_new (AGENTS_SANDBOX_ERROR_NOT_SUPPORTED, NULL,
                                    _ ("%s does not support %s"),
                                    G_OBJECT_TYPE_NAME (self), operation));
}

static void
default_create (AgentsSandboxClient *self,
                AgentsManifest *manifest,
                GVariant *options,
                GObject *snapshot,
                GTask *task)
{
  default_not_supported (self, task, "create");
}

static void
default_resume (AgentsSandboxClient *self,
                AgentsSandboxSessionState *state,
                GTask *task)
{
  default_not_supported (self, task, "resume");
}

static void
default_resume_with_options (AgentsSandboxClient *self,
                             AgentsSandboxSessionState *state,
                             GVariant *options,
                             GObject *snapshot,
                             GTask *task)
{
  AGENTS_SANDBOX_CLIENT_GET_IFACE (self)->resume (self, state, task);
}

static void
default_delete (AgentsSandboxClient *self,
                AgentsSandboxSession *session,
                GTask *task)
{
  g_task_return_boolean (task, TRUE);
}

static void
default_reap (AgentsSandboxClient *self,
              GVariant *options,
              gboolean all,
              GTask *task)
{
  default_not_supported (self, task, "reap");
}

static void
agents_sandbox_client_default_init (AgentsSandboxClientInterface *iface)
{
  iface->reap = default_reap;
  iface->create = default_create;
  iface->resume = default_resume;
  iface->resume_with_options = default_resume_with_options;
  iface->delete = default_delete;
  iface->serialize_session_state = default_serialize_session_state;
  iface->deserialize_session_state = default_deserialize_session_state;
  iface->supports_default_options = default_supports_default_options;
}

#define IFACE(self) AGENTS_SANDBOX_CLIENT_GET_IFACE (self)

/**
 * agents_sandbox_client_get_backend_id:
 * @self: a client
 *
 * Gets the backend id, e.g. `"unix_local"`.
 *
 * Returns: the backend id, e.g. `"unix_local"`
 */
const char *
agents_sandbox_client_get_backend_id (AgentsSandboxClient *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_CLIENT (self), NULL);
  g_return_val_if_fail (IFACE (self)->get_backend_id != NULL, NULL);

  return IFACE (self)->get_backend_id (self);
}

/**
 * agents_sandbox_client_supports_default_options:
 * @self: a client
 *
 * Gets whether sessions can be created without options.
 *
 * Returns: whether sessions can be created without options
 */
gboolean
agents_sandbox_client_supports_default_options (AgentsSandboxClient *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_CLIENT (self), FALSE);

  return IFACE (self)->supports_default_options (self);
}

/**
 * agents_sandbox_client_create_async:
 * @self: a client
 * @manifest: (nullable): the manifest; the client works on a copy
 * @options: (nullable): backend options, an `a{sv}`
 * @snapshot: (nullable): an #AgentsSnapshot or an #AgentsLocalSnapshotSpec
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the session
 * @user_data: data for @callback
 *
 * Creates a session. The session is not started.
 */
void
agents_sandbox_client_create_async (AgentsSandboxClient *self,
                                    AgentsManifest *manifest,
                                    GVariant *options,
                                    GObject *snapshot,
                                    GCancellable *cancellable,
                                    GAsyncReadyCallback callback,
                                    gpointer user_data)
{
  g_autoptr (GTask) task = NULL;
  g_autoptr (GVariant) owned_options =
    options ? g_variant_ref_sink (options) : NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_CLIENT (self));
  g_return_if_fail (manifest == NULL || AGENTS_IS_MANIFEST (manifest));
  g_return_if_fail (options == NULL ||
                    g_variant_is_of_type (options, G_VARIANT_TYPE_VARDICT));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_sandbox_client_create_async);
  IFACE (self)->create (self, manifest, owned_options, snapshot, task);
}

/**
 * agents_sandbox_client_create_finish:
 * @self: a client
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_client_create_async().
 *
 * Returns: (transfer full): the session
 */
AgentsSandboxSession *
agents_sandbox_client_create_finish (AgentsSandboxClient *self,
                                     GAsyncResult *result,
                                     GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* A state whose host-directory grants were left out of its JSON is
 * resumed only once trusted code gave them back. */
static gboolean
check_grants_rebound (AgentsSandboxSessionState *state, GTask *task)
{
  if (agents_sandbox_session_state_get_path_grants_require_rebind (state)[0] ==
      NULL)
    return TRUE;
  g_task_return_new_error (
    task, AGENTS_SANDBOX_ERROR, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
    _ ("Sandbox session state path grants must be rebound from a current "
       "trusted manifest before resume; resume through Runner with "
       "SandboxRunConfig.manifest"));
  return FALSE;
}

/**
 * agents_sandbox_client_resume_async:
 * @self: a client
 * @state: a session state, e.g. from
 *   agents_sandbox_client_deserialize_session_state()
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the session
 * @user_data: data for @callback
 *
 * Rebuilds a session from its state. The session is not started. A
 * state that still needs its host-directory grants
 * (agents_sandbox_session_state_get_path_grants_require_rebind()) is
 * refused with %AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT.
 */
void
agents_sandbox_client_resume_async (AgentsSandboxClient *self,
                                    AgentsSandboxSessionState *state,
                                    GCancellable *cancellable,
                                    GAsyncReadyCallback callback,
                                    gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_CLIENT (self));
  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION_STATE (state));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_sandbox_client_resume_async);
  if (check_grants_rebound (state, task))
    IFACE (self)->resume (self, state, task);
}

/**
 * agents_sandbox_client_resume_with_options_async:
 * @self: a client
 * @state: a session state, e.g. from
 *   agents_sandbox_client_deserialize_session_state()
 * @options: (nullable): the backend options the caller would create a
 *   session with (an `a{sv}`)
 * @snapshot: (nullable): the snapshot the caller would create a session
 *   with: an #AgentsSnapshot, an #AgentsLocalSnapshotSpec or %NULL
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the session
 * @user_data: data for @callback
 *
 * Rebuilds a session from its state, as the caller configured it: a
 * backend that checks refuses a state whose settings (where and how the
 * session runs, where its snapshot is kept) differ from @options and
 * @snapshot. Backends that do not check resume as
 * agents_sandbox_client_resume_async() does. Finish with
 * agents_sandbox_client_resume_finish().
 */
void
agents_sandbox_client_resume_with_options_async (
  AgentsSandboxClient *self,
  AgentsSandboxSessionState *state,
  GVariant *options,
  GObject *snapshot,
  GCancellable *cancellable,
  GAsyncReadyCallback callback,
  gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_CLIENT (self));
  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION_STATE (state));
  g_return_if_fail (snapshot == NULL || G_IS_OBJECT (snapshot));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_sandbox_client_resume_async);
  if (check_grants_rebound (state, task))
    IFACE (self)->resume_with_options (self, state, options, snapshot, task);
}

/**
 * agents_sandbox_client_resume_finish:
 * @self: a client
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_client_resume_async() or
 * agents_sandbox_client_resume_with_options_async().
 *
 * Returns: (transfer full): the session
 */
AgentsSandboxSession *
agents_sandbox_client_resume_finish (AgentsSandboxClient *self,
                                     GAsyncResult *result,
                                     GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * agents_sandbox_client_delete_async:
 * @self: a client
 * @session: a session the client created or resumed
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: data for @callback
 *
 * Deletes what the client created for @session (a temporary workspace, a
 * container, …). Caller-owned resources are kept.
 */
void
agents_sandbox_client_delete_async (AgentsSandboxClient *self,
                                    AgentsSandboxSession *session,
                                    GCancellable *cancellable,
                                    GAsyncReadyCallback callback,
                                    gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_CLIENT (self));
  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (session));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_sandbox_client_delete_async);
  IFACE (self)->delete (self, session, task);
}

/**
 * agents_sandbox_client_delete_finish:
 * @self: a client
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_client_delete_async().
 *
 * Returns: %TRUE on success
 */
gboolean
agents_sandbox_client_delete_finish (AgentsSandboxClient *self,
                                     GAsyncResult *result,
                                     GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * agents_sandbox_client_serialize_session_state:
 * @self: a client
 * @state: a state of one of the client's sessions
 *
 * Serializes a session state to JSON.
 *
 * Returns: (transfer full): the JSON
 */
JsonNode *
agents_sandbox_client_serialize_session_state (AgentsSandboxClient *self,
                                               AgentsSandboxSessionState *state)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_CLIENT (self), NULL);
  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION_STATE (state), NULL);

  return IFACE (self)->serialize_session_state (self, state);
}

/**
 * agents_sandbox_client_deserialize_session_state:
 * @self: a client
 * @payload: JSON made by agents_sandbox_client_serialize_session_state()
 * @error: return location for a #GError
 *
 * Turns serialized JSON back into a session state. The document is
 * untrusted and validated. A payload that is not a JSON object fails with
 * %AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT; any other refusal (no `type`, an
 * unknown type, a member of the wrong shape) fails with
 * %AGENTS_SANDBOX_ERROR_INVALID_JSON and the message “sandbox session state
 * payload is invalid”, with no context: the message never quotes the
 * payload, which may hold credentials.
 *
 * Returns: (transfer full): the state, or %NULL with @error set
 */
AgentsSandboxSessionState *
agents_sandbox_client_deserialize_session_state (AgentsSandboxClient *self,
                                                 JsonNode *payload,
                                                 GError **error)
{
  g_autoptr (GError) local = NULL;
  AgentsSandboxSessionState *state;

  g_return_val_if_fail (AGENTS_IS_SANDBOX_CLIENT (self), NULL);
  g_return_val_if_fail (payload != NULL, NULL);

  if (!JSON_NODE_HOLDS_OBJECT (payload))
    {
      agents_sandbox_error_set (
        error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, NULL,
        _ ("session state payload must be a JSON object"));
      return NULL;
    }
  state = IFACE (self)->deserialize_session_state (self, payload, &local);
  if (state != NULL)
    return state;
  /* The payload is what carries credentials, and a detailed message would
   * quote them (an unknown type name, a member of the wrong type): say
   * nothing about what was wrong, as the reference does. */
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_JSON, NULL,
                            _ ("sandbox session state payload is invalid"));
  return NULL;
}

/**
 * agents_sandbox_client_reap_async:
 * @self: a client
 * @options: (nullable): backend options, an `a{sv}`, saying where to look
 *   (the docker backend reads `host`)
 * @all: whether to remove everything the backend made, whatever its owner
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: data for @callback
 *
 * Removes what sessions of earlier processes left behind: for the docker
 * backend, the containers labelled as made by libagents whose owner
 * process is gone (or, with @all, all of them). Backends that leave
 * nothing behind fail with %AGENTS_SANDBOX_ERROR_NOT_SUPPORTED.
 */
void
agents_sandbox_client_reap_async (AgentsSandboxClient *self,
                                  GVariant *options,
                                  gboolean all,
                                  GCancellable *cancellable,
                                  GAsyncReadyCallback callback,
                                  gpointer user_data)
{
  g_autoptr (GTask) task = NULL;
  g_autoptr (GVariant) owned = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_CLIENT (self));
  g_return_if_fail (options == NULL ||
                    g_variant_is_of_type (options, G_VARIANT_TYPE_VARDICT));

  if (options != NULL)
    owned = g_variant_ref_sink (options);
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_sandbox_client_reap_async);
  IFACE (self)->reap (self, owned, all, task);
}

/**
 * agents_sandbox_client_reap_finish:
 * @self: a client
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_client_reap_async().
 *
 * Returns: the number of things removed, or -1 with @error set
 */
gssize
agents_sandbox_client_reap_finish (AgentsSandboxClient *self,
                                   GAsyncResult *result,
                                   GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), -1);

  return g_task_propagate_int (G_TASK (result), error);
}
