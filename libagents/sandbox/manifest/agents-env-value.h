/* agents-env-value.h - typed values of a manifest's environment
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

#include "agents-version-macros.h"

G_BEGIN_DECLS

#define AGENTS_TYPE_ENV_VALUE (agents_env_value_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_DERIVABLE_TYPE (
  AgentsEnvValue, agents_env_value, AGENTS, ENV_VALUE, GObject)

/**
 * AgentsEnvValueClass:
 * @serialize_fields: adds the members after `type` to an open JSON
 *   object; never the resolved text of a secret
 * @deserialize_fields: reads those members back from an untrusted object
 * @resolve: finds the variable's text; the task returns a string
 *   (`g_task_return_pointer (task, text, g_free)`, or
 *   agents_task_return_string() from Python or JavaScript) and should
 *   end early when the task's cancellable is cancelled
 *
 * The class of typed environment values. Subclasses are registered by
 * their JSON `type` with agents_typed_json_register() in the
 * %AGENTS_TYPE_ENV_VALUE family, from C, Python or JavaScript.
 */
struct _AgentsEnvValueClass
{
  GObjectClass parent_class;

  void (*serialize_fields) (AgentsEnvValue *self, JsonBuilder *builder);
  gboolean (*deserialize_fields) (AgentsEnvValue *self,
                                  JsonObject *object,
                                  GError **error);
  void (*resolve) (AgentsEnvValue *self, GTask *task);

  /*< private >*/
  gpointer padding[8];
};

AGENTS_AVAILABLE_IN_1_0
const char *agents_env_value_get_value_type (AgentsEnvValue *self);
AGENTS_AVAILABLE_IN_1_0
const char *agents_env_value_get_description (AgentsEnvValue *self);
AGENTS_AVAILABLE_IN_1_0
void agents_env_value_set_description (AgentsEnvValue *self,
                                       const char *description);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_env_value_get_ephemeral (AgentsEnvValue *self);
AGENTS_AVAILABLE_IN_1_0
void agents_env_value_set_ephemeral (AgentsEnvValue *self, gboolean ephemeral);
AGENTS_AVAILABLE_IN_1_0
void agents_env_value_resolve_async (AgentsEnvValue *self,
                                     GCancellable *cancellable,
                                     GAsyncReadyCallback callback,
                                     gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
char *agents_env_value_resolve_finish (AgentsEnvValue *self,
                                       GAsyncResult *result,
                                       GError **error);
AGENTS_AVAILABLE_IN_1_0
JsonNode *agents_env_value_to_json (AgentsEnvValue *self);
AGENTS_AVAILABLE_IN_1_0
AgentsEnvValue *agents_env_value_new_from_json (JsonNode *node, GError **error);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_env_value_equal (AgentsEnvValue *a, AgentsEnvValue *b);

/* ---- str --------------------------------------------------------------- */

#define AGENTS_TYPE_STR_ENV_VALUE (agents_str_env_value_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (AgentsStrEnvValue,
                      agents_str_env_value,
                      AGENTS,
                      STR_ENV_VALUE,
                      AgentsEnvValue)

AGENTS_AVAILABLE_IN_1_0
AgentsEnvValue *agents_str_env_value_new (const char *value);
AGENTS_AVAILABLE_IN_1_0
const char *agents_str_env_value_get_value (AgentsStrEnvValue *self);

G_END_DECLS
