/* agents-runner-run.c - the state of one run: items, tracing, events,
 * completion, hooks and guardrails
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-custom-tool.h"
#include "agents-json-private.h"
#include "agents-json-schema-private.h"
#include "agents-run-private.h"
#include "agents-runner-private.h"
#include "agents-runner.h"
#include "agents-tracing-private.h"

/* ---- Runs -------------------------------------------------------------- */

GQuark
run_quark (void)
{
  return g_quark_from_static_string ("agents-runner-run");
}

static GQuark
owned_trace_quark (void)
{
  return g_quark_from_static_string ("agents-runner-owned-trace");
}

/* The history was replaced: the next turn builds its input anew. */
void
forget_model_input (Run *run)
{
  g_clear_pointer (&run->model_input, json_array_unref);
  run->model_input_items = 0;
}

static void
run_clear (Run *run)
{
  g_clear_pointer (&run->turn, turn_free);
  g_clear_object (&run->runner);
  g_clear_object (&run->config);
  g_clear_object (&run->session);
  g_clear_object (&run->ctx);
  g_clear_object (&run->resume_state);
  g_clear_object (&run->result);
  g_clear_object (&run->streaming);
  g_clear_object (&run->task);
  g_clear_pointer (&run->context, g_main_context_unref);
  if (run->user_cancel_handler != 0)
    g_cancellable_disconnect (run->user_cancellable, run->user_cancel_handler);
  g_clear_object (&run->user_cancellable);
  g_clear_object (&run->cancellable);
  g_clear_object (&run->starting_agent);
  g_clear_object (&run->current_agent);
  g_clear_pointer (&run->input, json_node_unref);
  g_clear_pointer (&run->new_input_items, json_array_unref);
  g_clear_pointer (&run->items, g_ptr_array_unref);
  g_clear_pointer (&run->model_input, json_array_unref);
  g_clear_pointer (&run->run_items, g_ptr_array_unref);
  g_clear_pointer (&run->tracker, agents_tool_use_tracker_free);
  g_clear_pointer (&run->pending_interruptions, g_ptr_array_unref);
  g_clear_object (&run->preparer);
  if (run->preparation != NULL)
    {
      if (run->preparation->destroy != NULL)
        run->preparation->destroy (run->preparation->data);
      g_free (run->preparation);
    }
  g_clear_object (&run->trace);
  g_clear_object (&run->parent_span);
  g_clear_object (&run->agent_span);
  g_free (run->prompt_cache_key);
  g_clear_error (&run->error);
}

Run *
run_ref (Run *run)
{
  return g_rc_box_acquire (run);
}

void
run_unref (Run *run)
{
  g_rc_box_release_full (run, (GDestroyNotify) run_clear);
}

/* ---- Small helpers ----------------------------------------------------- */

const char *
name_of (AgentsAgent *agent)
{
  const char *name = agents_agent_get_name (agent);

  return name != NULL ? name : "";
}

JsonNode *
string_node (const char *text)
{
  return json_node_init_string (json_node_alloc (), text ? text : "");
}

/* The reference's ItemHelpers.input_to_new_input_list(). */
JsonArray *
input_to_list (JsonNode *input)
{
  JsonArray *list;
  JsonObject *message;

  if (input != NULL && JSON_NODE_HOLDS_ARRAY (input))
    return agents_run_private_json_array_copy (json_node_get_array (input));
  list = json_array_new ();
  if (input == NULL || !JSON_NODE_HOLDS_VALUE (input) ||
      json_node_get_value_type (input) != G_TYPE_STRING)
    return list;
  message = json_object_new ();
  json_object_set_string_member (message, "content",
                                 json_node_get_string (input));
  json_object_set_string_member (message, "role", "user");
  json_array_add_object_element (list, message);
  return list;
}

static void
append_items_as_input (JsonArray *list, GPtrArray *items)
{
  for (guint i = 0; i < items->len; i++)
    {
      AgentsRunItem *item = items->pdata[i];

      if (agents_run_item_get_kind (item) == AGENTS_RUN_ITEM_KIND_TOOL_APPROVAL)
        continue;
      json_array_add_object_element (list,
                                     agents_run_item_to_input_item (item));
    }
}

GPtrArray *
list_model_to_array (GListModel *list)
{
  guint n = g_list_model_get_n_items (list);
  GPtrArray *array = g_ptr_array_new_full (n, g_object_unref);

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (array, g_list_model_get_item (list, i));
  return array;
}

gboolean
is_cancelled_error (const GError *error)
{
  return g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

/* ---- Tracing ----------------------------------------------------------- */

/* Whether a span started under @parent would record: the condition of
 * agents_trace_start_span(). Its data need not be built otherwise. */
gboolean
span_records (Run *run, AgentsSpan *parent)
{
  return run->trace != NULL && agents_trace_is_recording (run->trace) &&
         !agents_tracing_get_disabled () &&
         (parent == NULL || agents_span_is_recording (parent));
}

/* Starts a span whose data is built only if somebody looks at it (see
 * agents_tracing_private_start_span_lazy()): @members (transfer full) are
 * the values of the reference's members of @kind, in its order. */
AgentsSpan *
span_start (Run *run,
            AgentsSpan *parent,
            AgentsSpanKind kind,
            JsonNode **members,
            guint n_members)
{
  if (run->trace == NULL)
    {
      for (guint i = 0; i < n_members; i++)
        g_clear_pointer (&members[i], json_node_unref);
      return NULL;
    }
  return agents_tracing_private_start_span_lazy (run->trace, parent, kind,
                                                 members, n_members);
}

/* A string node, or a null one for %NULL. */
JsonNode *
string_or_null_node (const char *text)
{
  if (text == NULL)
    return json_node_new (JSON_NODE_NULL);
  return json_node_init_string (json_node_alloc (), text);
}

void
span_set (AgentsSpan *span, const char *member, JsonNode *value)
{
  g_autoptr (JsonNode) owned = value;

  if (span != NULL)
    agents_span_set_data_member (span, member, owned);
}

void
span_finish (AgentsSpan **span, const GError *error)
{
  if (*span == NULL)
    return;
  agents_span_end (*span, error);
  g_clear_object (span);
}

JsonNode *
take_array (JsonArray *array)
{
  JsonNode *node = json_node_new (JSON_NODE_ARRAY);

  json_node_take_array (node, array);
  return node;
}

JsonNode *
take_object (JsonObject *object)
{
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_node_take_object (node, object);
  return node;
}

JsonNode *
strv_node (GPtrArray *names)
{
  JsonArray *array = json_array_new ();

  for (guint i = 0; i < names->len; i++)
    json_array_add_string_element (array, names->pdata[i]);
  return take_array (array);
}

void
begin_trace (Run *run)
{
  AgentsTrace *current = agents_tracing_get_current_trace ();

  if (run->trace != NULL)
    return; /* a sub-run in its parent's trace */
  /* A trace the caller began is the run's; one another run began is
   * not, though it may be current on this thread. */
  if (current != NULL &&
      g_object_get_qdata (G_OBJECT (current), owned_trace_quark ()) == NULL)
    {
      run->trace = g_object_ref (current);
      return;
    }
  run->trace = agents_trace_begin_full (
    agents_run_config_get_workflow_name (run->config), NULL,
    agents_run_config_get_group_id (run->config),
    agents_run_config_get_trace_metadata (run->config),
    agents_run_config_get_tracing_disabled (run->config));
  g_object_set_qdata (G_OBJECT (run->trace), owned_trace_quark (),
                      GINT_TO_POINTER (1));
  run->owns_trace = TRUE;
}

/* ---- Preparation seam -------------------------------------------------- */

G_DEFINE_INTERFACE (AgentsRunPreparer, agents_run_preparer, G_TYPE_OBJECT)

static void
agents_run_preparer_real_prepare_agent (AgentsRunPreparer *self,
                                        AgentsRunPreparation *preparation,
                                        AgentsAgent *public_agent,
                                        JsonArray *input,
                                        gboolean is_resumed,
                                        GTask *task)
{
  agents_run_preparer_return_prepared (task, public_agent, NULL);
}

static void
agents_run_preparer_real_cleanup (AgentsRunPreparer *self,
                                  AgentsRunPreparation *preparation,
                                  GTask *task)
{
  g_task_return_pointer (task, NULL, NULL);
}

static void
agents_run_preparer_default_init (AgentsRunPreparerInterface *iface)
{
  iface->prepare_agent = agents_run_preparer_real_prepare_agent;
  iface->cleanup = agents_run_preparer_real_cleanup;
}

void
prepared_free (Prepared *prepared)
{
  g_clear_object (&prepared->execution_agent);
  g_clear_pointer (&prepared->input, json_array_unref);
  g_free (prepared);
}

void
agents_run_preparer_return_prepared (GTask *task,
                                     AgentsAgent *execution_agent,
                                     JsonArray *input)
{
  Prepared *prepared = g_new0 (Prepared, 1);

  g_return_if_fail (G_IS_TASK (task));
  g_return_if_fail (AGENTS_IS_AGENT (execution_agent));

  prepared->execution_agent = g_object_ref (execution_agent);
  prepared->input = input ? json_array_ref (input) : NULL;
  g_task_return_pointer (task, prepared, (GDestroyNotify) prepared_free);
}

AgentsRunContext *
agents_run_preparation_get_context (AgentsRunPreparation *self)
{
  return self->run->ctx;
}

AgentsRunConfig *
agents_run_preparation_get_run_config (AgentsRunPreparation *self)
{
  return self->run->config;
}

AgentsAgent *
agents_run_preparation_get_starting_agent (AgentsRunPreparation *self)
{
  return self->run->starting_agent;
}

AgentsRunState *
agents_run_preparation_get_resume_state (AgentsRunPreparation *self)
{
  return self->run->resume_state;
}

AgentsRunResult *
agents_run_preparation_get_result (AgentsRunPreparation *self)
{
  return self->run->result;
}

AgentsTrace *
agents_run_preparation_get_trace (AgentsRunPreparation *self)
{
  return self->run->trace;
}

AgentsSpan *
agents_run_preparation_get_span (AgentsRunPreparation *self)
{
  return self->run->agent_span;
}

gpointer
agents_run_preparation_get_data (AgentsRunPreparation *self)
{
  return self->data;
}

void
agents_run_preparation_set_data (AgentsRunPreparation *self,
                                 gpointer data,
                                 GDestroyNotify destroy)
{
  gpointer old_data = self->data;
  GDestroyNotify old_destroy = self->destroy;

  self->data = data;
  self->destroy = destroy;
  if (old_destroy != NULL)
    old_destroy (old_data);
}

/* ---- Streaming --------------------------------------------------------- */

void
push_event (Run *run,
            AgentsStreamEventKind kind,
            const char *name,
            AgentsRunItem *item,
            JsonObject *raw_event)
{
  g_autoptr (AgentsStreamEvent) event = NULL;

  if (run->streaming == NULL)
    return;
  event = agents_run_private_stream_event_new (kind, name, item, raw_event,
                                               run->current_agent);
  agents_run_private_streaming_push (run->streaming, event);
}

static const char *
item_event_name (AgentsRunItem *item)
{
  switch (agents_run_item_get_kind (item))
    {
    case AGENTS_RUN_ITEM_KIND_MESSAGE_OUTPUT:
      return "message_output_created";
    case AGENTS_RUN_ITEM_KIND_TOOL_CALL:
      return "tool_called";
    case AGENTS_RUN_ITEM_KIND_TOOL_CALL_OUTPUT:
      return "tool_output";
    case AGENTS_RUN_ITEM_KIND_HANDOFF_CALL:
      return "handoff_requested";
    case AGENTS_RUN_ITEM_KIND_HANDOFF_OUTPUT:
      return "handoff_occured"; /* sic, the reference's name */
    case AGENTS_RUN_ITEM_KIND_REASONING:
      return "reasoning_item_created";
    case AGENTS_RUN_ITEM_KIND_TOOL_APPROVAL:
      return "tool_approval_requested";
    default:
      return NULL;
    }
}

/* Records a new item of the run and streams it. */
void
add_item (Run *run, AgentsRunItem *item)
{
  g_ptr_array_add (run->items, g_object_ref (item));
  g_ptr_array_add (run->run_items, g_object_ref (item));
  agents_run_private_result_append_item (run->result, item);
  push_event (run, AGENTS_STREAM_EVENT_KIND_RUN_ITEM, item_event_name (item),
              item, NULL);
}

/* ---- Completion -------------------------------------------------------- */

void
run_fail (Run *run, GError *error)
{
  if (run->completing)
    {
      g_error_free (error);
      return;
    }
  g_debug ("run of agent “%s” failed: %s", name_of (run->current_agent),
           error->message);
  run->error = error;
  run_finish (run);
}

static void
publish_result (Run *run, GPtrArray *interruptions)
{
  agents_run_private_result_set_last_agent (run->result, run->current_agent);
  agents_run_private_result_set_interruptions (run->result, interruptions);
  agents_run_private_result_set_progress (run->result, run->current_turn,
                                          run->max_turns, run->tracker);
}

static void
complete_run (Run *run)
{
  if (run->owns_trace)
    agents_trace_end (run->trace);
  g_object_set_qdata (G_OBJECT (run->ctx), run_quark (), NULL);
  agents_run_context_set_runner (run->ctx, NULL);
  agents_run_context_set_run_config (run->ctx, NULL);

  if (run->streaming != NULL)
    {
      agents_run_private_streaming_finish_stream (run->streaming, run->error);
      agents_run_private_streaming_finish_run (run->streaming, run->error);
    }
  else if (run->error != NULL)
    g_task_return_error (run->task, g_steal_pointer (&run->error));
  else
    g_task_return_pointer (run->task, g_object_ref (run->result),
                           g_object_unref);
}

static void
cleanup_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (Run) run = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonObject) payload =
    g_task_propagate_pointer (G_TASK (result), &error);

  /* The run's outcome stands; the result says the workspace was not
   * saved. */
  if (error != NULL)
    g_debug ("sandbox cleanup failed: %s", error->message);
  agents_run_private_result_set_sandbox_error (run->result, error);
  agents_run_private_result_set_sandbox_resume_state (run->result, payload);
  complete_run (run);
}

static void
run_cleanup (Run *run)
{
  GTask *task;

  if (run->preparer == NULL)
    {
      complete_run (run);
      return;
    }
  /* Not the run's cancellable: cleanup runs after cancellation too. */
  task = g_task_new (run->preparer, NULL, cleanup_done, run_ref (run));
  g_task_set_source_tag (task, run_cleanup);
  AGENTS_RUN_PREPARER_GET_IFACE (run->preparer)
    ->cleanup (run->preparer, run->preparation, task);
  g_object_unref (task);
}

static void
session_saved (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (Run) run = user_data;
  g_autoptr (GError) error = NULL;

  if (!agents_conversation_session_add_items_finish (
        AGENTS_CONVERSATION_SESSION (source), result, &error))
    g_warning ("Could not save the run to its conversation session: %s",
               error->message);
  run_cleanup (run);
}

static void
save_session (Run *run)
{
  g_autoptr (JsonArray) items = NULL;

  if (run->session == NULL || run->error != NULL)
    {
      run_cleanup (run);
      return;
    }
  items = run->new_input_items
            ? agents_run_private_json_array_copy (run->new_input_items)
            : json_array_new ();
  append_items_as_input (items, run->run_items);
  agents_conversation_session_add_items_async (run->session, items, NULL,
                                               session_saved, run_ref (run));
}

/* Ends the run: publishes the result, saves the session, cleans the
 * preparation up, ends the trace, completes the caller's task. */
void
run_finish (Run *run)
{
  g_autoptr (GPtrArray) interruptions = NULL;

  if (run->completing)
    return;
  run->completing = TRUE;
  span_finish (&run->agent_span, run->error);
  interruptions = run->turn && run->turn->interruptions
                    ? g_ptr_array_ref (run->turn->interruptions)
                    : g_ptr_array_new ();
  publish_result (run, run->error ? NULL : interruptions);
  g_clear_pointer (&run->turn, turn_free);
  save_session (run);
}

/* ---- Hooks ------------------------------------------------------------- */

static void
emit_agent_start (Run *run)
{
  g_signal_emit (run->runner, agents_runner_signals[SIGNAL_AGENT_START], 0,
                 run->ctx, run->current_agent);
  agents_agent_emit_start (run->current_agent, run->ctx);
}

static const char *
output_type_name (AgentsAgent *agent)
{
  JsonObject *schema = agents_agent_get_output_schema (agent);
  const char *title;

  if (schema == NULL)
    return "str";
  title = agents_run_private_json_string (schema, "title");
  return title != NULL ? title : "json_schema";
}

/* The agent span: name, handoffs, tools (null until the first turn sets
 * them), output_type. */
static AgentsSpan *
agent_span_start (Run *run, AgentsAgent *agent)
{
  g_autoptr (GPtrArray) handoffs = NULL;
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  JsonNode *members[4] = { NULL };

  if (span_records (run, run->parent_span))
    {
      handoffs = agents_agent_get_handoff_objects (agent);
      for (guint i = 0; i < handoffs->len; i++)
        g_ptr_array_add (
          names, (gpointer) agents_handoff_get_agent_name (handoffs->pdata[i]));
      members[0] = string_or_null_node (name_of (agent));
      members[1] = strv_node (names);
      members[3] = string_or_null_node (output_type_name (agent));
    }
  return span_start (run, run->parent_span, AGENTS_SPAN_KIND_AGENT, members,
                     G_N_ELEMENTS (members));
}

/* The current agent begins: its span (the parent of the first turn's
 * input guardrails) and the stream's agent updated event. */
void
ensure_agent_span (Run *run)
{
  if (run->agent_span_open)
    return;
  run->agent_span_open = TRUE;
  run->agent_span = agent_span_start (run, run->current_agent);
  if (run->streaming != NULL)
    agents_run_private_streaming_set_current_agent (run->streaming,
                                                    run->current_agent);
  push_event (run, AGENTS_STREAM_EVENT_KIND_AGENT_UPDATED, NULL, NULL, NULL);
}

/* Then its first turn: the agent-start hooks. */
void
ensure_agent_started (Run *run)
{
  ensure_agent_span (run);
  if (run->agent_started)
    return;
  run->agent_started = TRUE;
  emit_agent_start (run);
}

/* ---- Guardrails -------------------------------------------------------- */

typedef struct
{
  Run *run;
  GPtrArray *guardrails; /* GObject: input or output guardrails */
  GPtrArray *spans;
  GPtrArray *results; /* AgentsGuardrailResult, NULL until done */
  JsonNode *input;
  guint pending;
  GError *error;
  gboolean output;
  GuardrailsDone done;
} GuardrailRun;

static void
object_unref_nullable (gpointer object)
{
  if (object != NULL)
    g_object_unref (object);
}

static void
result_unref_nullable (gpointer result)
{
  if (result != NULL)
    agents_guardrail_result_unref (result);
}

static void
guardrail_run_free (GuardrailRun *gr)
{
  g_ptr_array_unref (gr->guardrails);
  g_ptr_array_unref (gr->spans);
  g_ptr_array_unref (gr->results);
  json_node_unref (gr->input);
  g_clear_error (&gr->error);
  run_unref (gr->run);
  g_free (gr);
}

static const char *
guardrail_name (GObject *guardrail)
{
  if (AGENTS_IS_INPUT_GUARDRAIL (guardrail))
    return agents_input_guardrail_get_name (AGENTS_INPUT_GUARDRAIL (guardrail));
  return agents_output_guardrail_get_name (AGENTS_OUTPUT_GUARDRAIL (guardrail));
}

static void
guardrails_finish (GuardrailRun *gr)
{
  GError *error = g_steal_pointer (&gr->error);

  /* The first tripwire in list order wins, as the reference reports. */
  for (guint i = 0; error == NULL && i < gr->results->len; i++)
    {
      AgentsGuardrailResult *result = gr->results->pdata[i];

      if (result != NULL &&
          agents_guardrail_result_get_tripwire_triggered (result))
        agents_run_error_set_guardrail_tripwire (
          &error,
          gr->output ? AGENTS_RUN_ERROR_OUTPUT_GUARDRAIL_TRIPWIRE
                     : AGENTS_RUN_ERROR_INPUT_GUARDRAIL_TRIPWIRE,
          guardrail_name (gr->guardrails->pdata[i]), result);
    }
  gr->done (gr->run, error);
  guardrail_run_free (gr);
}

typedef struct
{
  GuardrailRun *gr;
  guint index;
} GuardrailCall;

static void
guardrail_done (GObject *source, GAsyncResult *res, gpointer user_data)
{
  GuardrailCall *call = user_data;
  GuardrailRun *gr = call->gr;
  g_autoptr (GError) error = NULL;
  AgentsGuardrailResult *result;
  AgentsSpan *span = gr->spans->pdata[call->index];

  if (AGENTS_IS_INPUT_GUARDRAIL (source))
    result = agents_input_guardrail_run_finish (AGENTS_INPUT_GUARDRAIL (source),
                                                res, &error);
  else
    result = agents_output_guardrail_run_finish (
      AGENTS_OUTPUT_GUARDRAIL (source), res, &error);
  if (result != NULL && span != NULL)
    span_set (span, "triggered",
              json_node_init_boolean (
                json_node_alloc (),
                agents_guardrail_result_get_tripwire_triggered (result)));
  if (span != NULL)
    agents_span_end (span, error);
  if (result != NULL)
    gr->results->pdata[call->index] = result;
  else if (gr->error == NULL)
    gr->error = g_steal_pointer (&error);
  g_free (call);
  if (--gr->pending == 0)
    guardrails_finish (gr);
}

static AgentsSpan *
guardrail_span_start (Run *run, GObject *guardrail)
{
  /* name, triggered (false by default) */
  JsonNode *members[2] = { string_or_null_node (guardrail_name (guardrail)),
                           NULL };

  return span_start (run, run->agent_span, AGENTS_SPAN_KIND_GUARDRAIL, members,
                     G_N_ELEMENTS (members));
}

/* Runs @guardrails concurrently on @input, then calls @done with the
 * first error or tripwire, if any. */
void
run_guardrails (Run *run,
                GPtrArray *guardrails,
                AgentsAgent *agent,
                JsonNode *input,
                gboolean output,
                GuardrailsDone done)
{
  GuardrailRun *gr;

  if (guardrails->len == 0)
    {
      g_ptr_array_unref (guardrails);
      done (run, NULL);
      return;
    }
  gr = g_new0 (GuardrailRun, 1);
  gr->run = run_ref (run);
  gr->guardrails = guardrails;
  gr->spans = g_ptr_array_new_with_free_func (object_unref_nullable);
  gr->results = g_ptr_array_new_with_free_func (result_unref_nullable);
  g_ptr_array_set_size (gr->results, guardrails->len);
  gr->input = json_node_copy (input);
  gr->output = output;
  gr->done = done;
  gr->pending = guardrails->len;

  for (guint i = 0; i < guardrails->len; i++)
    {
      g_ptr_array_add (gr->spans,
                       guardrail_span_start (run, guardrails->pdata[i]));
    }
  for (guint i = 0; i < guardrails->len; i++)
    {
      GuardrailCall *call = g_new0 (GuardrailCall, 1);

      call->gr = gr;
      call->index = i;
      if (output)
        agents_output_guardrail_run_async (guardrails->pdata[i], run->ctx,
                                           agent, gr->input, run->cancellable,
                                           guardrail_done, call);
      else
        agents_input_guardrail_run_async (guardrails->pdata[i], run->ctx, agent,
                                          gr->input, run->cancellable,
                                          guardrail_done, call);
    }
}

GPtrArray *
input_guardrails (Run *run, gboolean in_parallel)
{
  GListModel *list = agents_agent_get_input_guardrails (run->starting_agent);
  GPtrArray *guardrails = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < g_list_model_get_n_items (list); i++)
    {
      g_autoptr (AgentsInputGuardrail) guardrail =
        g_list_model_get_item (list, i);

      if (agents_input_guardrail_get_run_in_parallel (guardrail) == in_parallel)
        g_ptr_array_add (guardrails, g_steal_pointer (&guardrail));
    }
  return guardrails;
}
