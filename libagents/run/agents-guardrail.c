/* agents-guardrail.c - checks of a run's input and final output
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-agent.h"
#include "agents-guardrail.h"
#include "agents-run-error.h"

/* AgentsGuardrailResult */

/**
 * AgentsGuardrailResult:
 *
 * What a guardrail found: free-form output info, and whether the
 * tripwire was triggered (which fails the run).
 */
struct _AgentsGuardrailResult
{
  gatomicrefcount ref_count;
  JsonNode *output_info;
  gboolean tripwire_triggered;
};

G_DEFINE_BOXED_TYPE (AgentsGuardrailResult,
                     agents_guardrail_result,
                     agents_guardrail_result_ref,
                     agents_guardrail_result_unref)

/**
 * agents_guardrail_result_new:
 * @output_info: (nullable): what the guardrail found, any JSON
 * @tripwire_triggered: whether the run must stop
 *
 * Creates a guardrail result (the reference's `GuardrailFunctionOutput`).
 *
 * Returns: (transfer full): the result
 */
AgentsGuardrailResult *
agents_guardrail_result_new (JsonNode *output_info, gboolean tripwire_triggered)
{
  AgentsGuardrailResult *self = g_new0 (AgentsGuardrailResult, 1);

  g_atomic_ref_count_init (&self->ref_count);
  self->output_info =
    output_info ? json_node_copy (output_info) : json_node_new (JSON_NODE_NULL);
  self->tripwire_triggered = !!tripwire_triggered;
  return self;
}

/**
 * agents_guardrail_result_ref:
 * @self: a guardrail result
 *
 * Takes a reference.
 *
 * Returns: (transfer full): @self
 */
AgentsGuardrailResult *
agents_guardrail_result_ref (AgentsGuardrailResult *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/**
 * agents_guardrail_result_unref:
 * @self: (transfer full): a guardrail result
 *
 * Drops a reference.
 */
void
agents_guardrail_result_unref (AgentsGuardrailResult *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  json_node_unref (self->output_info);
  g_free (self);
}

/**
 * agents_guardrail_result_get_output_info:
 * @self: a guardrail result
 *
 * Gets what the guardrail found.
 *
 * Returns: (transfer none): the output info (a `null` node if none)
 */
JsonNode *
agents_guardrail_result_get_output_info (AgentsGuardrailResult *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->output_info;
}

/**
 * agents_guardrail_result_get_tripwire_triggered:
 * @self: a guardrail result
 *
 * Gets whether the tripwire was triggered.
 *
 * Returns: %TRUE if the run must stop
 */
gboolean
agents_guardrail_result_get_tripwire_triggered (AgentsGuardrailResult *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->tripwire_triggered;
}

/**
 * agents_guardrail_return_result:
 * @task: the task an asynchronous guardrail function received
 * @result: the result
 *
 * Completes the task of a guardrail with @result. Guardrail functions in
 * any language use this.
 */
void
agents_guardrail_return_result (GTask *task, AgentsGuardrailResult *result)
{
  g_return_if_fail (G_IS_TASK (task));
  g_return_if_fail (result != NULL);

  g_task_return_pointer (task, agents_guardrail_result_ref (result),
                         (GDestroyNotify) agents_guardrail_result_unref);
}

/* What the two guardrail types share: a name and a sync or async body. */
typedef struct
{
  char *name;
  gpointer func;
  gboolean is_async;
  gpointer user_data;
  GDestroyNotify destroy;
} Body;

static void
body_clear (Body *body)
{
  g_clear_pointer (&body->name, g_free);
  if (body->destroy != NULL)
    body->destroy (body->user_data);
  body->destroy = NULL;
}

typedef AgentsGuardrailResult *(*SyncFunc) (AgentsRunContext *ctx,
                                            AgentsAgent *agent,
                                            JsonNode *value,
                                            gpointer user_data);
typedef void (*AsyncFunc) (AgentsRunContext *ctx,
                           AgentsAgent *agent,
                           JsonNode *value,
                           GTask *task,
                           gpointer user_data);

static void
body_run (Body *body,
          gpointer source,
          gpointer source_tag,
          AgentsRunContext *ctx,
          AgentsAgent *agent,
          JsonNode *value,
          GCancellable *cancellable,
          GAsyncReadyCallback callback,
          gpointer user_data)
{
  g_autoptr (GTask) task =
    g_task_new (source, cancellable, callback, user_data);
  g_autoptr (JsonNode) null_node = NULL;
  AgentsGuardrailResult *result;

  g_task_set_source_tag (task, source_tag);
  if (value == NULL)
    value = null_node = json_node_new (JSON_NODE_NULL);

  if (body->is_async)
    {
      ((AsyncFunc) body->func) (ctx, agent, value, task, body->user_data);
      return;
    }
  result = ((SyncFunc) body->func) (ctx, agent, value, body->user_data);
  if (result == NULL)
    g_task_return_new_error (task, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_FAILED,
                             _ ("guardrail “%s” returned no result"),
                             body->name);
  else
    g_task_return_pointer (task, result,
                           (GDestroyNotify) agents_guardrail_result_unref);
}

/* AgentsInputGuardrail */

/**
 * AgentsInputGuardrail:
 *
 * A check of a run's input. Guardrails that run in parallel (the default)
 * run alongside the first model call; the others run before the agent
 * starts anything. A triggered tripwire fails the run with
 * %AGENTS_RUN_ERROR_INPUT_GUARDRAIL_TRIPWIRE.
 */

struct _AgentsInputGuardrail
{
  GObject parent_instance;

  Body body;
  gboolean run_in_parallel;
};

G_DEFINE_FINAL_TYPE (AgentsInputGuardrail,
                     agents_input_guardrail,
                     G_TYPE_OBJECT)

enum
{
  IN_PROP_0,
  IN_PROP_NAME,
  IN_PROP_RUN_IN_PARALLEL,
  IN_N_PROPS
};

static GParamSpec *input_properties[IN_N_PROPS];

static void
agents_input_guardrail_finalize (GObject *object)
{
  body_clear (&AGENTS_INPUT_GUARDRAIL (object)->body);

  G_OBJECT_CLASS (agents_input_guardrail_parent_class)->finalize (object);
}

static void
agents_input_guardrail_get_property (GObject *object,
                                     guint prop_id,
                                     GValue *value,
                                     GParamSpec *pspec)
{
  AgentsInputGuardrail *self = AGENTS_INPUT_GUARDRAIL (object);

  switch (prop_id)
    {
    case IN_PROP_NAME:
      g_value_set_string (value, self->body.name);
      break;
    case IN_PROP_RUN_IN_PARALLEL:
      g_value_set_boolean (value, self->run_in_parallel);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_input_guardrail_set_property (GObject *object,
                                     guint prop_id,
                                     const GValue *value,
                                     GParamSpec *pspec)
{
  AgentsInputGuardrail *self = AGENTS_INPUT_GUARDRAIL (object);

  switch (prop_id)
    {
    case IN_PROP_NAME:
      g_free (self->body.name);
      self->body.name = g_value_dup_string (value);
      if (self->body.name == NULL)
        self->body.name = g_strdup ("input_guardrail");
      break;
    case IN_PROP_RUN_IN_PARALLEL:
      agents_input_guardrail_set_run_in_parallel (self,
                                                  g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_input_guardrail_class_init (AgentsInputGuardrailClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = agents_input_guardrail_finalize;
  object_class->get_property = agents_input_guardrail_get_property;
  object_class->set_property = agents_input_guardrail_set_property;

  /**
   * AgentsInputGuardrail:name:
   *
   * The guardrail's name (`input_guardrail` unless given).
   */
  input_properties[IN_PROP_NAME] = g_param_spec_string (
    "name", NULL, NULL, NULL,
    G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * AgentsInputGuardrail:run-in-parallel:
   *
   * Whether the guardrail runs alongside the first model call; if not, it
   * runs before the agent starts anything.
   */
  input_properties[IN_PROP_RUN_IN_PARALLEL] = g_param_spec_boolean (
    "run-in-parallel", NULL, NULL, TRUE,
    G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, IN_N_PROPS,
                                     input_properties);
}

static void
agents_input_guardrail_init (AgentsInputGuardrail *self)
{
  self->run_in_parallel = TRUE;
}

static AgentsInputGuardrail *
input_guardrail_new (const char *name,
                     gpointer func,
                     gboolean is_async,
                     gpointer user_data,
                     GDestroyNotify destroy)
{
  AgentsInputGuardrail *self =
    g_object_new (AGENTS_TYPE_INPUT_GUARDRAIL, "name", name, NULL);

  self->body.func = func;
  self->body.is_async = is_async;
  self->body.user_data = user_data;
  self->body.destroy = destroy;
  return self;
}

/**
 * agents_input_guardrail_new:
 * @name: (nullable): the guardrail's name
 * @func: (scope notified) (closure user_data) (destroy destroy): the check
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data
 *
 * Creates an input guardrail from a synchronous function.
 *
 * Returns: (transfer full): the guardrail
 */
AgentsInputGuardrail *
agents_input_guardrail_new (const char *name,
                            AgentsInputGuardrailFunc func,
                            gpointer user_data,
                            GDestroyNotify destroy)
{
  g_return_val_if_fail (func != NULL, NULL);

  return input_guardrail_new (name, func, FALSE, user_data, destroy);
}

/**
 * agents_input_guardrail_new_async:
 * @name: (nullable): the guardrail's name
 * @func: (scope notified) (closure user_data) (destroy destroy): the check
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data
 *
 * Creates an input guardrail from an asynchronous function.
 *
 * Returns: (transfer full): the guardrail
 */
AgentsInputGuardrail *
agents_input_guardrail_new_async (const char *name,
                                  AgentsInputGuardrailAsyncFunc func,
                                  gpointer user_data,
                                  GDestroyNotify destroy)
{
  g_return_val_if_fail (func != NULL, NULL);

  return input_guardrail_new (name, func, TRUE, user_data, destroy);
}

/**
 * agents_input_guardrail_get_name:
 * @self: an input guardrail
 *
 * Gets the guardrail's name.
 *
 * Returns: the name
 */
const char *
agents_input_guardrail_get_name (AgentsInputGuardrail *self)
{
  g_return_val_if_fail (AGENTS_IS_INPUT_GUARDRAIL (self), NULL);
  return self->body.name;
}

/**
 * agents_input_guardrail_get_run_in_parallel:
 * @self: an input guardrail
 *
 * Gets whether the guardrail runs alongside the first model call.
 *
 * Returns: %TRUE if it runs in parallel
 */
gboolean
agents_input_guardrail_get_run_in_parallel (AgentsInputGuardrail *self)
{
  g_return_val_if_fail (AGENTS_IS_INPUT_GUARDRAIL (self), TRUE);
  return self->run_in_parallel;
}

/**
 * agents_input_guardrail_set_run_in_parallel:
 * @self: an input guardrail
 * @run_in_parallel: whether the guardrail runs alongside the first model
 *   call
 *
 * Sets whether the guardrail runs alongside the first model call.
 */
void
agents_input_guardrail_set_run_in_parallel (AgentsInputGuardrail *self,
                                            gboolean run_in_parallel)
{
  g_return_if_fail (AGENTS_IS_INPUT_GUARDRAIL (self));

  run_in_parallel = !!run_in_parallel;
  if (self->run_in_parallel == run_in_parallel)
    return;
  self->run_in_parallel = run_in_parallel;
  g_object_notify_by_pspec (G_OBJECT (self),
                            input_properties[IN_PROP_RUN_IN_PARALLEL]);
}

/**
 * agents_input_guardrail_run_async:
 * @self: an input guardrail
 * @ctx: the run context
 * @agent: the agent the run started with, as the user built it
 * @input: (nullable): the run's input
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the result
 * @user_data: data for @callback
 *
 * Runs the check.
 */
void
agents_input_guardrail_run_async (AgentsInputGuardrail *self,
                                  AgentsRunContext *ctx,
                                  AgentsAgent *agent,
                                  JsonNode *input,
                                  GCancellable *cancellable,
                                  GAsyncReadyCallback callback,
                                  gpointer user_data)
{
  g_return_if_fail (AGENTS_IS_INPUT_GUARDRAIL (self));
  g_return_if_fail (AGENTS_IS_RUN_CONTEXT (ctx));
  g_return_if_fail (AGENTS_IS_AGENT (agent));

  body_run (&self->body, self, agents_input_guardrail_run_async, ctx, agent,
            input, cancellable, callback, user_data);
}

/**
 * agents_input_guardrail_run_finish:
 * @self: an input guardrail
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_input_guardrail_run_async().
 *
 * Returns: (transfer full): the guardrail's result, or %NULL on error
 */
AgentsGuardrailResult *
agents_input_guardrail_run_finish (AgentsInputGuardrail *self,
                                   GAsyncResult *result,
                                   GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* AgentsOutputGuardrail */

/**
 * AgentsOutputGuardrail:
 *
 * A check of a run's final output. A triggered tripwire fails the run
 * with %AGENTS_RUN_ERROR_OUTPUT_GUARDRAIL_TRIPWIRE.
 */

struct _AgentsOutputGuardrail
{
  GObject parent_instance;

  Body body;
};

G_DEFINE_FINAL_TYPE (AgentsOutputGuardrail,
                     agents_output_guardrail,
                     G_TYPE_OBJECT)

enum
{
  OUT_PROP_0,
  OUT_PROP_NAME,
  OUT_N_PROPS
};

static GParamSpec *output_properties[OUT_N_PROPS];

static void
agents_output_guardrail_finalize (GObject *object)
{
  body_clear (&AGENTS_OUTPUT_GUARDRAIL (object)->body);

  G_OBJECT_CLASS (agents_output_guardrail_parent_class)->finalize (object);
}

static void
agents_output_guardrail_get_property (GObject *object,
                                      guint prop_id,
                                      GValue *value,
                                      GParamSpec *pspec)
{
  AgentsOutputGuardrail *self = AGENTS_OUTPUT_GUARDRAIL (object);

  switch (prop_id)
    {
    case OUT_PROP_NAME:
      g_value_set_string (value, self->body.name);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_output_guardrail_set_property (GObject *object,
                                      guint prop_id,
                                      const GValue *value,
                                      GParamSpec *pspec)
{
  AgentsOutputGuardrail *self = AGENTS_OUTPUT_GUARDRAIL (object);

  switch (prop_id)
    {
    case OUT_PROP_NAME:
      g_free (self->body.name);
      self->body.name = g_value_dup_string (value);
      if (self->body.name == NULL)
        self->body.name = g_strdup ("output_guardrail");
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_output_guardrail_class_init (AgentsOutputGuardrailClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = agents_output_guardrail_finalize;
  object_class->get_property = agents_output_guardrail_get_property;
  object_class->set_property = agents_output_guardrail_set_property;

  /**
   * AgentsOutputGuardrail:name:
   *
   * The guardrail's name (`output_guardrail` unless given).
   */
  output_properties[OUT_PROP_NAME] = g_param_spec_string (
    "name", NULL, NULL, NULL,
    G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, OUT_N_PROPS,
                                     output_properties);
}

static void
agents_output_guardrail_init (AgentsOutputGuardrail *self)
{
}

static AgentsOutputGuardrail *
output_guardrail_new (const char *name,
                      gpointer func,
                      gboolean is_async,
                      gpointer user_data,
                      GDestroyNotify destroy)
{
  AgentsOutputGuardrail *self =
    g_object_new (AGENTS_TYPE_OUTPUT_GUARDRAIL, "name", name, NULL);

  self->body.func = func;
  self->body.is_async = is_async;
  self->body.user_data = user_data;
  self->body.destroy = destroy;
  return self;
}

/**
 * agents_output_guardrail_new:
 * @name: (nullable): the guardrail's name
 * @func: (scope notified) (closure user_data) (destroy destroy): the check
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data
 *
 * Creates an output guardrail from a synchronous function.
 *
 * Returns: (transfer full): the guardrail
 */
AgentsOutputGuardrail *
agents_output_guardrail_new (const char *name,
                             AgentsOutputGuardrailFunc func,
                             gpointer user_data,
                             GDestroyNotify destroy)
{
  g_return_val_if_fail (func != NULL, NULL);

  return output_guardrail_new (name, func, FALSE, user_data, destroy);
}

/**
 * agents_output_guardrail_new_async:
 * @name: (nullable): the guardrail's name
 * @func: (scope notified) (closure user_data) (destroy destroy): the check
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data
 *
 * Creates an output guardrail from an asynchronous function.
 *
 * Returns: (transfer full): the guardrail
 */
AgentsOutputGuardrail *
agents_output_guardrail_new_async (const char *name,
                                   AgentsOutputGuardrailAsyncFunc func,
                                   gpointer user_data,
                                   GDestroyNotify destroy)
{
  g_return_val_if_fail (func != NULL, NULL);

  return output_guardrail_new (name, func, TRUE, user_data, destroy);
}

/**
 * agents_output_guardrail_get_name:
 * @self: an output guardrail
 *
 * Gets the guardrail's name.
 *
 * Returns: the name
 */
const char *
agents_output_guardrail_get_name (AgentsOutputGuardrail *self)
{
  g_return_val_if_fail (AGENTS_IS_OUTPUT_GUARDRAIL (self), NULL);
  return self->body.name;
}

/**
 * agents_output_guardrail_run_async:
 * @self: an output guardrail
 * @ctx: the run context
 * @agent: the agent that produced the output, as the user built it
 * @output: (nullable): the final output
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the result
 * @user_data: data for @callback
 *
 * Runs the check.
 */
void
agents_output_guardrail_run_async (AgentsOutputGuardrail *self,
                                   AgentsRunContext *ctx,
                                   AgentsAgent *agent,
                                   JsonNode *output,
                                   GCancellable *cancellable,
                                   GAsyncReadyCallback callback,
                                   gpointer user_data)
{
  g_return_if_fail (AGENTS_IS_OUTPUT_GUARDRAIL (self));
  g_return_if_fail (AGENTS_IS_RUN_CONTEXT (ctx));
  g_return_if_fail (AGENTS_IS_AGENT (agent));

  body_run (&self->body, self, agents_output_guardrail_run_async, ctx, agent,
            output, cancellable, callback, user_data);
}

/**
 * agents_output_guardrail_run_finish:
 * @self: an output guardrail
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_output_guardrail_run_async().
 *
 * Returns: (transfer full): the guardrail's result, or %NULL on error
 */
AgentsGuardrailResult *
agents_output_guardrail_run_finish (AgentsOutputGuardrail *self,
                                    GAsyncResult *result,
                                    GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
