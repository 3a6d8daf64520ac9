/* agents-sandbox-session-manager-cleanup.c - closing the run's
 * sessions once, building the run state's `sandbox` payload
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-manifest-private.h"
#include "agents-mount-security-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-sandbox-runtime-private.h"
#include "agents-sandbox-session-private.h"
#include "agents-sandbox-session-manager.h"
#include "agents-sandbox-session-manager-private.h"

/* ---- cleanup ----------------------------------------------------------- */

typedef struct
{
  GPtrArray *sessions; /* distinct sessions to close, AgentsSandboxSession */
  guint next;
  AgentsSandboxSession *session; /* being closed */
  GError *error;                 /* the first failure */
  AgentsSpan *span;              /* sandbox.cleanup_sessions */
  AgentsSpan *step_span;         /* sandbox.stop or sandbox.shutdown */
} CleanupOp;

static void
cleanup_op_free (CleanupOp *op)
{
  g_ptr_array_unref (op->sessions);
  g_clear_object (&op->session);
  g_clear_error (&op->error);
  agents_sandbox_span_finish (&op->step_span, NULL);
  agents_sandbox_span_finish (&op->span, NULL);
  g_free (op);
}

static void
note_error (CleanupOp *op, GError *error)
{
  if (error == NULL)
    return;
  /* A failure met while closing a session whose mounts carry
   * credentials may quote them: only its code is kept. */
  if (agents_manifest_has_mount_authority (
        agents_sandbox_session_get_manifest (op->session)))
    error = agents_mount_error_redact (error);
  g_debug ("Closing a sandbox session failed: %s", error->message);
  if (op->error == NULL)
    op->error = error;
  else
    g_error_free (error);
}

static void
save_state (AgentsSandboxSessionManager *self, AgentsSandboxSession *session)
{
  AgentsSandboxSessionState *state =
    agents_sandbox_session_peek_state (session);
  g_autoptr (JsonNode) node =
    agents_sandbox_client_serialize_session_state (config_client (self), state);

  for (guint i = 0; i < self->entries->len; i++)
    {
      Entry *entry = self->entries->pdata[i];

      if (entry->session != session)
        continue;
      g_clear_pointer (&entry->saved_state, json_node_unref);
      entry->saved_state = json_node_copy (node);
    }
}

static void close_next (GTask *task);
static JsonObject *build_payload (AgentsSandboxSessionManager *self);

static void
deleted (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  CleanupOp *op = g_task_get_task_data (task);
  GError *error = NULL;

  agents_sandbox_client_delete_finish (AGENTS_SANDBOX_CLIENT (source), result,
                                       &error);
  note_error (op, error);
  close_next (task);
}

static void
dependencies_closed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  AgentsSandboxSessionManager *self = g_task_get_source_object (task);
  CleanupOp *op = g_task_get_task_data (task);
  GError *error = NULL;

  agents_sandbox_session_close_dependencies_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  note_error (op, error);
  agents_sandbox_client_delete_async (config_client (self), op->session, NULL,
                                      deleted, task);
}

static void
close_dependencies (GTask *task)
{
  CleanupOp *op = g_task_get_task_data (task);

  agents_sandbox_session_close_dependencies_async (op->session, NULL,
                                                   dependencies_closed, task);
}

static void
shut_down (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  CleanupOp *op = g_task_get_task_data (task);
  GError *error = NULL;

  agents_sandbox_session_shutdown_finish (AGENTS_SANDBOX_SESSION (source),
                                          result, &error);
  agents_sandbox_span_finish (&op->step_span, error);
  note_error (op, error);
  close_dependencies (task);
}

static void
stopped (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  AgentsSandboxSessionManager *self = g_task_get_source_object (task);
  CleanupOp *op = g_task_get_task_data (task);
  GError *error = NULL;

  agents_sandbox_session_stop_finish (AGENTS_SANDBOX_SESSION (source), result,
                                      &error);
  agents_sandbox_span_finish (&op->step_span, error);
  if (error != NULL)
    {
      /* Like agents_sandbox_session_close_async(): no shutdown after a
       * failed stop, but the dependencies are closed. */
      note_error (op, error);
      close_dependencies (task);
      return;
    }
  /* Stopping persisted the workspace: the state is final now. */
  save_state (self, op->session);
  op->step_span =
    agents_sandbox_session_manager_start_span (self, "sandbox.shutdown", NULL);
  agents_sandbox_session_shutdown_async (op->session, NULL, shut_down, task);
}

static void
pre_stop_hooks_ran (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  AgentsSandboxSessionManager *self = g_task_get_source_object (task);
  CleanupOp *op = g_task_get_task_data (task);
  GError *error = NULL;

  if (!agents_sandbox_session_run_pre_stop_hooks_finish (
        AGENTS_SANDBOX_SESSION (source), result, &error))
    {
      /* Nothing is persisted after a failed (or cancelled) hook; the
       * session is still shut down, its dependencies closed and the
       * client deletes it. */
      note_error (op, error);
      op->step_span = agents_sandbox_session_manager_start_span (
        self, "sandbox.shutdown", NULL);
      agents_sandbox_session_shutdown_async (op->session, NULL, shut_down,
                                             task);
      return;
    }
  op->step_span =
    agents_sandbox_session_manager_start_span (self, "sandbox.stop", NULL);
  agents_sandbox_session_stop_async (op->session, NULL, stopped, task);
}

/* Closes the sessions one after the other; @task is held until the last
 * one is done. */
static void
close_next (GTask *task)
{
  AgentsSandboxSessionManager *self = g_task_get_source_object (task);
  CleanupOp *op = g_task_get_task_data (task);

  g_clear_object (&op->session);
  if (op->next >= op->sessions->len)
    {
      agents_sandbox_span_finish (&op->span, op->error);
      if (op->error != NULL)
        g_task_return_error (task, g_steal_pointer (&op->error));
      else
        g_task_return_pointer (task, build_payload (self),
                               (GDestroyNotify) json_object_unref);
      g_object_unref (task);
      return;
    }
  op->session = g_object_ref (op->sessions->pdata[op->next++]);
  agents_sandbox_session_run_pre_stop_hooks_async (
    op->session, g_task_get_cancellable (task), pre_stop_hooks_ran, task);
}

static JsonObject *
saved_entry (Entry *entry)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "agent_name",
                                 agents_agent_get_name (entry->agent));
  json_object_set_member (object, "session_state",
                          entry->saved_state
                            ? json_node_copy (entry->saved_state)
                            : json_node_new (JSON_NODE_NULL));
  return object;
}

/* The sessions the run state had that this run did not touch. */
static void
copy_untouched (AgentsSandboxSessionManager *self, JsonObject *sessions)
{
  JsonObject *payload = incoming_payload (self);
  JsonObject *old;
  JsonObjectIter iter;
  const char *key;
  JsonNode *value;

  if (payload == NULL || is_legacy_payload (payload))
    return;
  old = object_member (payload, "sessions_by_agent");
  if (old == NULL)
    return;
  json_object_iter_init (&iter, old);
  while (json_object_iter_next (&iter, &key, &value))
    if (JSON_NODE_HOLDS_OBJECT (value))
      json_object_set_member (sessions, key, json_node_copy (value));
}

static Entry *
current_entry (AgentsSandboxSessionManager *self)
{
  Entry *entry =
    agents_sandbox_session_manager_find_entry (self, self->current_agent);

  if (entry == NULL && self->entries->len > 0)
    entry = self->entries->pdata[self->entries->len - 1];
  return entry;
}

static JsonObject *
build_payload (AgentsSandboxSessionManager *self)
{
  JsonObject *payload = json_object_new ();
  JsonObject *sessions = json_object_new ();
  Entry *current = current_entry (self);

  copy_untouched (self, sessions);
  for (guint i = 0; i < self->entries->len; i++)
    {
      Entry *entry = self->entries->pdata[i];
      const char *key =
        agents_sandbox_session_manager_ensure_resume_key (self, entry->agent);

      json_object_set_object_member (sessions, key, saved_entry (entry));
    }
  json_object_set_string_member (
    payload, "backend_id",
    agents_sandbox_client_get_backend_id (config_client (self)));
  json_object_set_string_member (
    payload, "current_agent_key",
    agents_sandbox_session_manager_ensure_resume_key (self, current->agent));
  json_object_set_string_member (payload, "current_agent_name",
                                 agents_agent_get_name (current->agent));
  json_object_set_member (payload, "session_state",
                          current->saved_state
                            ? json_node_copy (current->saved_state)
                            : json_node_new (JSON_NODE_NULL));
  json_object_set_object_member (payload, "sessions_by_agent", sessions);
  return payload;
}

static GPtrArray *
sessions_to_close (AgentsSandboxSessionManager *self)
{
  GPtrArray *sessions = g_ptr_array_new_with_free_func (g_object_unref);

  /* A backend may give several agents the same session object: it is
   * closed once. */
  for (guint i = 0; i < self->entries->len; i++)
    {
      Entry *entry = self->entries->pdata[i];

      if (entry->source != SOURCE_INJECTED &&
          !g_ptr_array_find (sessions, entry->session, NULL))
        g_ptr_array_add (sessions, g_object_ref (entry->session));
    }
  return sessions;
}

static JsonObject *
incoming_copy (AgentsSandboxSessionManager *self)
{
  JsonObject *payload = incoming_payload (self);

  return payload ? agents_run_private_json_object_copy (payload) : NULL;
}

/**
 * agents_sandbox_session_manager_cleanup_async:
 * @self: a session manager
 * @cancellable: (nullable): a #GCancellable, given to the sessions'
 *   pre-stop hooks (closing itself is not interrupted: sessions must not
 *   leak)
 * @callback: (scope async): called with the run state's payload
 * @user_data: data for @callback
 *
 * Ends the run's use of its sessions, once: releases the agents, closes
 * the sessions the run created or resumed (their pre-stop hooks, stop,
 * which persists them, then shutdown; their dependencies are closed and
 * the client deletes them even when that fails; a failed pre-stop hook
 * skips stop, so nothing is persisted), and builds the `sandbox` payload of the
 * run state from their states as they are after stop. Sessions of the
 * run state the run did not use are kept in the payload.
 *
 * The payload is %NULL with an injected session (the caller owns it), a
 * copy of the run state's payload when the run used no session, and
 * %NULL after the first call. If closing a session fails, the others are
 * still closed and the first error is returned instead of a payload.
 */
void
agents_sandbox_session_manager_cleanup_async (AgentsSandboxSessionManager *self,
                                              GCancellable *cancellable,
                                              GAsyncReadyCallback callback,
                                              gpointer user_data)
{
  g_autoptr (GTask) task = NULL;
  CleanupOp *op;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION_MANAGER (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_sandbox_session_manager_cleanup_async);
  agents_sandbox_session_manager_release_agents (self);
  if (self->cleaned_up ||
      agents_sandbox_run_config_get_session (self->config) != NULL)
    {
      self->cleaned_up = TRUE;
      g_task_return_pointer (task, NULL, NULL);
      return;
    }
  self->cleaned_up = TRUE;
  if (self->entries->len == 0)
    {
      g_task_return_pointer (task, incoming_copy (self),
                             (GDestroyNotify) json_object_unref);
      return;
    }
  op = g_new0 (CleanupOp, 1);
  op->sessions = sessions_to_close (self);
  g_task_set_task_data (task, op, (GDestroyNotify) cleanup_op_free);
  op->span = agents_sandbox_session_manager_start_span (
    self, "sandbox.cleanup_sessions", NULL);
  close_next (g_steal_pointer (&task));
}

/**
 * agents_sandbox_session_manager_cleanup_finish:
 * @self: a session manager
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_session_manager_cleanup_async().
 *
 * Returns: (transfer full) (nullable): the run state's `sandbox` payload,
 *   or %NULL (with @error unset when there is none)
 */
JsonObject *
agents_sandbox_session_manager_cleanup_finish (
  AgentsSandboxSessionManager *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
