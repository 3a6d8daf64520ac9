/* agents-sandbox-client.h - the sandbox backend contract
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "agents-sandbox-session.h"

G_BEGIN_DECLS

#define AGENTS_TYPE_SANDBOX_CLIENT (agents_sandbox_client_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_INTERFACE (
  AgentsSandboxClient, agents_sandbox_client, AGENTS, SANDBOX_CLIENT, GObject)

/**
 * AgentsSandboxClientInterface:
 * @get_backend_id: returns the backend id (`"unix_local"`, `"docker"`, …)
 * @create: creates a session from @manifest (the client copies it) with
 *   @options (an `a{sv}` of backend options, or %NULL) and @snapshot (an
 *   #AgentsSnapshot, an #AgentsLocalSnapshotSpec, or %NULL); the task
 *   returns the #AgentsSandboxSession
 * @resume: rebuilds a session from a state; the task returns the
 *   #AgentsSandboxSession
 * @delete: deletes what the client created for @session; the task returns
 *   a boolean
 * @serialize_session_state: turns a state into JSON
 * @deserialize_session_state: turns JSON back into a state
 * @supports_default_options: whether @create accepts %NULL options
 * @reap: removes what sessions of earlier processes left behind (the
 *   containers of a process that died, say) with @options (an `a{sv}` as
 *   for @create, for where to look), or everything the backend ever made
 *   with @all; the task returns the number removed as an integer
 *   (g_task_return_int()); the default fails with
 *   %AGENTS_SANDBOX_ERROR_NOT_SUPPORTED
 * @resume_with_options: like @resume, with the caller's configuration:
 *   @options (the `a{sv}` @create would get, or %NULL) and @snapshot
 *   (what @create would get: a snapshot, a spec or %NULL). A backend
 *   refuses a state that disagrees with them (a state read from a file
 *   is not trusted to say where or how a session runs). The default
 *   calls @resume.
 *
 * A sandbox backend. Backends are registered by id with
 * agents_registry_register_sandbox_client().
 */
struct _AgentsSandboxClientInterface
{
  GTypeInterface g_iface;

  const char *(*get_backend_id) (AgentsSandboxClient *self);
  void (*create) (AgentsSandboxClient *self,
                  AgentsManifest *manifest,
                  GVariant *options,
                  GObject *snapshot,
                  GTask *task);
  void (*resume) (AgentsSandboxClient *self,
                  AgentsSandboxSessionState *state,
                  GTask *task);
  void (*delete) (AgentsSandboxClient *self,
                  AgentsSandboxSession *session,
                  GTask *task);
  JsonNode *(*serialize_session_state) (AgentsSandboxClient *self,
                                        AgentsSandboxSessionState *state);
  AgentsSandboxSessionState *(*deserialize_session_state) (
    AgentsSandboxClient *self, JsonNode *payload, GError **error);
  gboolean (*supports_default_options) (AgentsSandboxClient *self);
  void (*reap) (AgentsSandboxClient *self,
                GVariant *options,
                gboolean all,
                GTask *task);
  void (*resume_with_options) (AgentsSandboxClient *self,
                               AgentsSandboxSessionState *state,
                               GVariant *options,
                               GObject *snapshot,
                               GTask *task);

  /*< private >*/
  gpointer padding[10];
};

AGENTS_AVAILABLE_IN_1_0
const char *agents_sandbox_client_get_backend_id (AgentsSandboxClient *self);
AGENTS_AVAILABLE_IN_1_0
gboolean
agents_sandbox_client_supports_default_options (AgentsSandboxClient *self);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_client_create_async (AgentsSandboxClient *self,
                                         AgentsManifest *manifest,
                                         GVariant *options,
                                         GObject *snapshot,
                                         GCancellable *cancellable,
                                         GAsyncReadyCallback callback,
                                         gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
AgentsSandboxSession *agents_sandbox_client_create_finish (
  AgentsSandboxClient *self, GAsyncResult *result, GError **error);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_client_resume_async (AgentsSandboxClient *self,
                                         AgentsSandboxSessionState *state,
                                         GCancellable *cancellable,
                                         GAsyncReadyCallback callback,
                                         gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_client_resume_with_options_async (
  AgentsSandboxClient *self,
  AgentsSandboxSessionState *state,
  GVariant *options,
  GObject *snapshot,
  GCancellable *cancellable,
  GAsyncReadyCallback callback,
  gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
AgentsSandboxSession *agents_sandbox_client_resume_finish (
  AgentsSandboxClient *self, GAsyncResult *result, GError **error);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_client_delete_async (AgentsSandboxClient *self,
                                         AgentsSandboxSession *session,
                                         GCancellable *cancellable,
                                         GAsyncReadyCallback callback,
                                         gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_client_delete_finish (AgentsSandboxClient *self,
                                              GAsyncResult *result,
                                              GError **error);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_client_reap_async (AgentsSandboxClient *self,
                                       GVariant *options,
                                       gboolean all,
                                       GCancellable *cancellable,
                                       GAsyncReadyCallback callback,
                                       gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
gssize agents_sandbox_client_reap_finish (AgentsSandboxClient *self,
                                          GAsyncResult *result,
                                          GError **error);

AGENTS_AVAILABLE_IN_1_0
JsonNode *agents_sandbox_client_serialize_session_state (
  AgentsSandboxClient *self, AgentsSandboxSessionState *state);
AGENTS_AVAILABLE_IN_1_0
AgentsSandboxSessionState *agents_sandbox_client_deserialize_session_state (
  AgentsSandboxClient *self, JsonNode *payload, GError **error);

G_END_DECLS
