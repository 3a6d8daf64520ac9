/* agents-capability.h - what a sandbox agent can do in its sandbox
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

#include "sandbox/manifest/agents-manifest.h"
#include "sandbox/session/agents-sandbox-session.h"

G_BEGIN_DECLS

/**
 * AGENTS_CAPABILITY_PARAM_SHARED:
 *
 * A #GParamFlags bit for properties of a capability whose value keeps its
 * identity when the capability is cloned (a synchronization object, a
 * shared service), instead of being deep-copied like the rest of its
 * state.
 */
#define AGENTS_CAPABILITY_PARAM_SHARED (1 << G_PARAM_USER_SHIFT)

#define AGENTS_TYPE_CAPABILITY (agents_capability_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_INTERFACE (
  AgentsCapability, agents_capability, AGENTS, CAPABILITY, GObject)

/**
 * AgentsCapabilityInterface:
 * @get_capability_type: returns the capability's type name (`"shell"`, …)
 * @clone: returns an independent copy; the default deep-copies every
 *   readable and writable property and keeps the bound session and
 *   run-as user by identity
 * @bind: binds the capability to a live session; the default remembers it
 *   for agents_capability_get_session()
 * @bind_run_as: binds the user commands run as; the default remembers it
 * @get_tools: returns the tools the capability gives the model, a
 *   #GPtrArray of #GObject; the caller owns the array and a reference on
 *   each tool
 * @instructions: returns text for the system prompt, or %NULL; the task
 *   returns a string
 * @process_manifest: may change the manifest a session is created from;
 *   returns it (the same object or a new one)
 * @process_manifest_checked: @process_manifest for a capability that can
 *   fail: returns the manifest, or %NULL with @error set; when
 *   implemented, it is used instead of @process_manifest (Since: 1.0)
 * @process_context: may rewrite the model input; returns the new items
 * @sampling_params: returns members to merge into the model settings'
 *   extra arguments, or %NULL
 * @sampling_params_for_model: the same, knowing the model the agent runs
 *   with: @model_params holds the resolved model settings
 *   (agents_model_settings_to_json()) and, when known, `model` (the model's
 *   name) and `provider` (the name its model provider is registered
 *   under); the default calls @sampling_params
 * @get_required_types: returns the types of the capabilities this one
 *   needs beside it on the same agent, a %NULL-terminated array the
 *   caller frees, or %NULL for none (the default); a sandbox agent
 *   without them is refused when it is prepared for a run
 *
 * A capability of a sandbox agent. Built-in types are `shell`,
 * `filesystem`, `compaction`, `memory` and `skills`; more are registered with
 * agents_registry_register_capability().
 */
struct _AgentsCapabilityInterface
{
  GTypeInterface g_iface;

  const char *(*get_capability_type) (AgentsCapability *self);
  AgentsCapability *(*clone) (AgentsCapability *self);
  void (*bind) (AgentsCapability *self, AgentsSandboxSession *session);
  void (*bind_run_as) (AgentsCapability *self, AgentsUser *user);
  GPtrArray *(*get_tools) (AgentsCapability *self);
  void (*instructions) (AgentsCapability *self,
                        AgentsManifest *manifest,
                        GTask *task);
  AgentsManifest *(*process_manifest) (AgentsCapability *self,
                                       AgentsManifest *manifest);
  JsonArray *(*process_context) (AgentsCapability *self, JsonArray *context);
  JsonObject *(*sampling_params) (AgentsCapability *self);
  JsonObject *(*sampling_params_for_model) (AgentsCapability *self,
                                            JsonObject *model_params);
  char **(*get_required_types) (AgentsCapability *self);
  AgentsManifest *(*process_manifest_checked) (AgentsCapability *self,
                                               AgentsManifest *manifest,
                                               GError **error);

  /*< private >*/
  gpointer padding[9];
};

AGENTS_AVAILABLE_IN_1_0
const char *agents_capability_get_capability_type (AgentsCapability *self);
AGENTS_AVAILABLE_IN_1_0
AgentsCapability *agents_capability_clone (AgentsCapability *self);
AGENTS_AVAILABLE_IN_1_0
void agents_capability_bind (AgentsCapability *self,
                             AgentsSandboxSession *session);
AGENTS_AVAILABLE_IN_1_0
AgentsSandboxSession *agents_capability_get_session (AgentsCapability *self);
AGENTS_AVAILABLE_IN_1_0
void agents_capability_bind_run_as (AgentsCapability *self, AgentsUser *user);
AGENTS_AVAILABLE_IN_1_0
AgentsUser *agents_capability_get_run_as (AgentsCapability *self);
AGENTS_AVAILABLE_IN_1_0
GPtrArray *agents_capability_get_tools (AgentsCapability *self);
AGENTS_AVAILABLE_IN_1_0
void agents_capability_instructions_async (AgentsCapability *self,
                                           AgentsManifest *manifest,
                                           GCancellable *cancellable,
                                           GAsyncReadyCallback callback,
                                           gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
char *agents_capability_instructions_finish (AgentsCapability *self,
                                             GAsyncResult *result,
                                             GError **error);
AGENTS_AVAILABLE_IN_1_0
AgentsManifest *agents_capability_process_manifest (AgentsCapability *self,
                                                    AgentsManifest *manifest);
AGENTS_AVAILABLE_IN_1_0
AgentsManifest *agents_capability_process_manifest_checked (
  AgentsCapability *self, AgentsManifest *manifest, GError **error);
AGENTS_AVAILABLE_IN_1_0
JsonArray *agents_capability_process_context (AgentsCapability *self,
                                              JsonArray *context);
AGENTS_AVAILABLE_IN_1_0
JsonObject *agents_capability_sampling_params (AgentsCapability *self);
AGENTS_AVAILABLE_IN_1_0
JsonObject *
agents_capability_sampling_params_for_model (AgentsCapability *self,
                                             JsonObject *model_params);
AGENTS_AVAILABLE_IN_1_0
JsonNode *agents_capability_to_json (AgentsCapability *self);
AGENTS_AVAILABLE_IN_1_0
char **agents_capability_get_required_types (AgentsCapability *self);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_capability_bind_cwd (AgentsCapability *self,
                                     const char *cwd,
                                     GError **error);
AGENTS_AVAILABLE_IN_1_0
const char *agents_capability_get_cwd (AgentsCapability *self);

G_END_DECLS
