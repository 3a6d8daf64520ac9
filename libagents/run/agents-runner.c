/* agents-runner.c - the turn loop that runs agents
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
#include "agents-runner.h"

/* The reference's texts, which the model reads: not translated. */
#define REJECTION_MESSAGE "Tool execution was not approved."
#define MULTIPLE_HANDOFFS_MESSAGE \
  "Multiple handoffs detected, ignoring this one."

/**
 * AgentsRunner:
 *
 * Runs agents: the reference SDK's `Runner`. A run calls the model of the
 * current agent turn after turn, executes the tools it calls, follows
 * its handoffs, and ends with a final output, on tool calls that wait for
 * approval (interruptions), or with an error.
 *
 * Run-level hooks are the runner's signals
 * (#AgentsRunner::agent-start, #AgentsRunner::llm-start, …), emitted for
 * every run of the runner; agent-level hooks are the agent's own signals.
 * Both always carry the agents the user built, even when the run
 * executes prepared copies of them (sandbox agents).
 *
 * One turn:
 *
 * 1. on the first turn, the input guardrails of the starting agent that
 *    do not run in parallel, before anything else;
 * 2. agent-start hooks when the current agent changed;
 * 3. the system prompt, the agent's tools then its handoffs, the model
 *    settings (run config's over agent's; the tool choice reset once the
 *    agent used tools, with #AgentsAgent:reset-tool-choice), the run
 *    config's call-model input filter;
 * 4. llm-start hooks, the model call (with the parallel input guardrails
 *    on the first turn), llm-end hooks;
 * 5. the items of the response; tool calls that need approval become
 *    interruptions, rejected ones get the output
 *    "Tool execution was not approved.", the others run in parallel;
 * 6. the first handoff switches the current agent, or a final output (a
 *    tool's under #AgentsAgent:tool-use-behavior, else the last message
 *    when no tool ran, parsed and validated with an output schema) ends
 *    the run after its output guardrails and agent-end hooks.
 */

struct _AgentsRunner
{
  GObject parent_instance;
};

G_DEFINE_FINAL_TYPE (AgentsRunner, agents_runner, G_TYPE_OBJECT)

G_DEFINE_INTERFACE (AgentsRunPreparer, agents_run_preparer, G_TYPE_OBJECT)

enum
{
  SIGNAL_AGENT_START,
  SIGNAL_AGENT_END,
  SIGNAL_LLM_START,
  SIGNAL_LLM_END,
  SIGNAL_TOOL_START,
  SIGNAL_TOOL_END,
  SIGNAL_HANDOFF,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* ---- Runs -------------------------------------------------------------- */

typedef struct _Run Run;
typedef struct _Turn Turn;

struct _AgentsRunPreparation
{
  Run *run;
  gpointer data;
  GDestroyNotify destroy;
};

struct _Run
{
  AgentsRunner *runner;
  AgentsRunConfig *config;
  AgentsConversationSession *session;
  AgentsRunContext *ctx;
  AgentsRunState *resume_state;
  AgentsRunResult *result;
  AgentsRunResultStreaming *streaming;
  GTask *task; /* the caller's task, for runs that are not streamed */
  GMainContext *context;

  GCancellable *cancellable; /* the run's own, cancelled by the caller's */
  GCancellable *user_cancellable;
  gulong user_cancel_handler;
  gboolean cancel_after_turn;

  AgentsAgent *starting_agent;
  AgentsAgent *current_agent; /* public */
  gboolean agent_span_open;
  gboolean agent_started;
  JsonNode *input;            /* a string or items, history first */
  JsonArray *new_input_items; /* for the conversation session */
  GPtrArray *items;           /* generated items, earlier runs' too */
  GPtrArray *run_items;       /* those of this invocation */
  JsonArray *model_input;     /* the input and items, grown turn by turn */
  guint model_input_items;    /* how many of items are in model_input */
  guint model_input_length;   /* to notice a change made in place */
  JsonNode *model_input_last; /* the same */
  guint current_turn;
  guint max_turns;
  AgentsToolUseTracker *tracker;
  gboolean resumed;
  GPtrArray *pending_interruptions; /* of the resumed state */

  AgentsRunPreparer *preparer;
  AgentsRunPreparation *preparation;

  AgentsTrace *trace;
  gboolean owns_trace;
  AgentsSpan *parent_span;
  AgentsSpan *agent_span;

  Turn *turn;
  gboolean completing;
  GError *error;
};

typedef struct
{
  Turn *turn;
  AgentsTool *tool;
  JsonObject *call;
  char *call_id;
  char *arguments;
  gboolean is_local_shell;
  gboolean is_custom_call; /* a custom_tool_call, answered in kind */
  gboolean rejected;
  AgentsSpan *span;
  JsonNode *output;
} ToolRun;

struct _Turn
{
  Run *run;
  AgentsAgent *execution_agent;
  char *system_prompt;
  JsonArray *input;
  GPtrArray *tools;    /* AgentsTool */
  GPtrArray *handoffs; /* AgentsHandoff */
  AgentsModelSettings *settings;
  AgentsModelResponse *response;
  AgentsModelEventSink *sink;
  AgentsSpan *generation_span;
  guint pending;
  GError *error;
  GError *guardrail_error;

  guint first_new_item; /* index in run->items */
  GPtrArray *tool_runs; /* ToolRun */
  guint next_tool;
  guint tools_running;
  gboolean sequential;
  gboolean pumping;
  gboolean tools_over;
  GPtrArray *handoff_calls;   /* JsonObject */
  GPtrArray *handoff_targets; /* AgentsHandoff */
  GPtrArray *interruptions;   /* AgentsRunItem */
  gboolean has_tools_or_handoffs;
};

static GQuark
run_quark (void)
{
  return g_quark_from_static_string ("agents-runner-run");
}

static GQuark
owned_trace_quark (void)
{
  return g_quark_from_static_string ("agents-runner-owned-trace");
}

static void turn_free (Turn *turn);

/* The history was replaced: the next turn builds its input anew. */
static void
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
  g_clear_error (&run->error);
}

static Run *
run_ref (Run *run)
{
  return g_rc_box_acquire (run);
}

static void
run_unref (Run *run)
{
  g_rc_box_release_full (run, (GDestroyNotify) run_clear);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Run, run_unref)

/* ---- Small helpers ----------------------------------------------------- */

static const char *
name_of (AgentsAgent *agent)
{
  const char *name = agents_agent_get_name (agent);

  return name != NULL ? name : "";
}

static JsonNode *
string_node (const char *text)
{
  return json_node_init_string (json_node_alloc (), text ? text : "");
}

/* The reference's ItemHelpers.input_to_new_input_list(). */
static JsonArray *
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

static GPtrArray *
list_model_to_array (GListModel *list)
{
  guint n = g_list_model_get_n_items (list);
  GPtrArray *array = g_ptr_array_new_full (n, g_object_unref);

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (array, g_list_model_get_item (list, i));
  return array;
}

static gboolean
is_cancelled_error (const GError *error)
{
  return g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

/* ---- Tracing ----------------------------------------------------------- */

static AgentsSpan *
span_start (Run *run, AgentsSpan *parent, AgentsSpanKind kind, JsonObject *data)
{
  g_autoptr (JsonObject) owned = data;

  if (run->trace == NULL)
    return NULL;
  return agents_trace_start_span (run->trace, parent, kind, owned);
}

static void
span_set (AgentsSpan *span, const char *member, JsonNode *value)
{
  g_autoptr (JsonNode) owned = value;

  if (span != NULL)
    agents_span_set_data_member (span, member, owned);
}

static void
span_finish (AgentsSpan **span, const GError *error)
{
  if (*span == NULL)
    return;
  agents_span_end (*span, error);
  g_clear_object (span);
}

static JsonNode *
take_array (JsonArray *array)
{
  JsonNode *node = json_node_new (JSON_NODE_ARRAY);

  json_node_take_array (node, array);
  return node;
}

static JsonNode *
take_object (JsonObject *object)
{
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_node_take_object (node, object);
  return node;
}

static JsonNode *
strv_node (GPtrArray *names)
{
  JsonArray *array = json_array_new ();

  for (guint i = 0; i < names->len; i++)
    json_array_add_string_element (array, names->pdata[i]);
  return take_array (array);
}

static void
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

typedef struct
{
  AgentsAgent *execution_agent;
  JsonArray *input;
} Prepared;

static void
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

static void
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
static void
add_item (Run *run, AgentsRunItem *item)
{
  g_ptr_array_add (run->items, g_object_ref (item));
  g_ptr_array_add (run->run_items, g_object_ref (item));
  agents_run_private_result_append_item (run->result, item);
  push_event (run, AGENTS_STREAM_EVENT_KIND_RUN_ITEM, item_event_name (item),
              item, NULL);
}

/* ---- Completion -------------------------------------------------------- */

static void run_finish (Run *run);

static void
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
static void
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

/* ---- Turns ------------------------------------------------------------- */

static void
tool_run_free (ToolRun *tool_run)
{
  g_clear_object (&tool_run->tool);
  g_clear_pointer (&tool_run->call, json_object_unref);
  g_free (tool_run->call_id);
  g_free (tool_run->arguments);
  span_finish (&tool_run->span, NULL);
  g_clear_pointer (&tool_run->output, json_node_unref);
  g_free (tool_run);
}

static void
turn_free (Turn *turn)
{
  g_clear_object (&turn->execution_agent);
  g_free (turn->system_prompt);
  g_clear_pointer (&turn->input, json_array_unref);
  g_clear_pointer (&turn->tools, g_ptr_array_unref);
  g_clear_pointer (&turn->handoffs, g_ptr_array_unref);
  g_clear_object (&turn->settings);
  g_clear_object (&turn->response);
  g_clear_object (&turn->sink);
  span_finish (&turn->generation_span, NULL);
  g_clear_error (&turn->error);
  g_clear_error (&turn->guardrail_error);
  g_clear_pointer (&turn->tool_runs, g_ptr_array_unref);
  g_clear_pointer (&turn->handoff_calls, g_ptr_array_unref);
  g_clear_pointer (&turn->handoff_targets, g_ptr_array_unref);
  g_clear_pointer (&turn->interruptions, g_ptr_array_unref);
  g_free (turn);
}

static Turn *
turn_new (Run *run)
{
  Turn *turn = g_new0 (Turn, 1);

  turn->run = run;
  turn->first_new_item = run->items->len;
  turn->tool_runs =
    g_ptr_array_new_with_free_func ((GDestroyNotify) tool_run_free);
  turn->handoff_calls =
    g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  turn->handoff_targets = g_ptr_array_new_with_free_func (g_object_unref);
  turn->interruptions = g_ptr_array_new_with_free_func (g_object_unref);
  return turn;
}

static void turn_begin (Run *run);
static void run_tools (Turn *turn);

/* Schedules the next step from the main loop, so that long runs of
 * synchronous steps do not grow the stack. */
static gboolean
turn_begin_idle (gpointer user_data)
{
  turn_begin (user_data);
  return G_SOURCE_REMOVE;
}

static void
run_schedule (Run *run, GSourceFunc func, const char *name)
{
  GSource *source = g_idle_source_new ();

  g_source_set_callback (source, func, run_ref (run),
                         (GDestroyNotify) run_unref);
  g_source_set_static_name (source, name);
  g_source_attach (source, run->context);
  g_source_unref (source);
}

static void
schedule_next_turn (Run *run)
{
  g_clear_pointer (&run->turn, turn_free);
  run_schedule (run, turn_begin_idle, "[agents] next turn");
}

/* ---- Hooks ------------------------------------------------------------- */

static void
emit_agent_start (Run *run)
{
  g_signal_emit (run->runner, signals[SIGNAL_AGENT_START], 0, run->ctx,
                 run->current_agent);
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

static JsonObject *
agent_span_data (AgentsAgent *agent)
{
  JsonObject *data = json_object_new ();
  g_autoptr (GPtrArray) handoffs = agents_agent_get_handoff_objects (agent);
  g_autoptr (GPtrArray) names = g_ptr_array_new ();

  for (guint i = 0; i < handoffs->len; i++)
    g_ptr_array_add (
      names, (gpointer) agents_handoff_get_agent_name (handoffs->pdata[i]));
  json_object_set_string_member (data, "name", name_of (agent));
  json_object_set_member (data, "handoffs", strv_node (names));
  json_object_set_null_member (data, "tools");
  json_object_set_string_member (data, "output_type", output_type_name (agent));
  return data;
}

/* The current agent begins: its span (the parent of the first turn's
 * input guardrails) and the stream's agent updated event. */
static void
ensure_agent_span (Run *run)
{
  if (run->agent_span_open)
    return;
  run->agent_span_open = TRUE;
  run->agent_span = span_start (run, run->parent_span, AGENTS_SPAN_KIND_AGENT,
                                agent_span_data (run->current_agent));
  if (run->streaming != NULL)
    agents_run_private_streaming_set_current_agent (run->streaming,
                                                    run->current_agent);
  push_event (run, AGENTS_STREAM_EVENT_KIND_AGENT_UPDATED, NULL, NULL, NULL);
}

/* Then its first turn: the agent-start hooks. */
static void
ensure_agent_started (Run *run)
{
  ensure_agent_span (run);
  if (run->agent_started)
    return;
  run->agent_started = TRUE;
  emit_agent_start (run);
}

/* ---- Guardrails -------------------------------------------------------- */

typedef void (*GuardrailsDone) (Run *run, GError *error);

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

static JsonObject *
guardrail_span_data (GObject *guardrail)
{
  JsonObject *data = json_object_new ();

  json_object_set_string_member (data, "name", guardrail_name (guardrail));
  json_object_set_boolean_member (data, "triggered", FALSE);
  return data;
}

/* Runs @guardrails concurrently on @input, then calls @done with the
 * first error or tripwire, if any. */
static void
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
      AgentsSpan *span =
        span_start (run, run->agent_span, AGENTS_SPAN_KIND_GUARDRAIL,
                    guardrail_span_data (guardrails->pdata[i]));

      g_ptr_array_add (gr->spans, span);
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

static GPtrArray *
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

/* ---- Final output ------------------------------------------------------ */

static void
output_guardrails_done (Run *run, GError *error)
{
  JsonNode *output;

  if (error != NULL)
    {
      run_fail (run, error);
      return;
    }
  output = agents_run_result_get_final_output (run->result);
  g_signal_emit (run->runner, signals[SIGNAL_AGENT_END], 0, run->ctx,
                 run->current_agent, output);
  agents_agent_emit_end (run->current_agent, run->ctx, output);
  run_finish (run);
}

static void
finish_with_output (Run *run, JsonNode *output)
{
  GListModel *list = agents_agent_get_output_guardrails (run->current_agent);

  agents_run_private_result_set_final_output (run->result, output);
  span_finish (&run->turn->generation_span, NULL);
  run_guardrails (run, list_model_to_array (list), run->current_agent,
                  agents_run_result_get_final_output (run->result), TRUE,
                  output_guardrails_done);
}

/* The structured final output: @text parsed and validated. */
static JsonNode *
parse_structured_output (const char *text, JsonObject *schema, GError **error)
{
  g_autoptr (GError) parse_error = NULL;
  g_autoptr (GString) reason = g_string_new (NULL);
  g_autoptr (JsonNode) root =
    agents_json_parse_bounded (text, -1, _ ("final output"), &parse_error);

  if (root == NULL)
    {
      agents_run_error_set (error, AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
                            _ ("Invalid JSON when parsing the final output: "
                               "%s"),
                            parse_error->message);
      return NULL;
    }
  if (!agents_json_schema_validate (schema, root, reason))
    {
      agents_run_error_set (error, AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
                            _ ("Invalid JSON when parsing %s: %s"), text,
                            reason->str);
      return NULL;
    }
  return g_steal_pointer (&root);
}

/* ---- Handoffs ---------------------------------------------------------- */

static JsonObject *
call_output_item (const char *call_id, const char *output)
{
  JsonObject *item = json_object_new ();

  json_object_set_string_member (item, "call_id", call_id ? call_id : "");
  json_object_set_string_member (item, "output", output);
  json_object_set_string_member (item, "type", "function_call_output");
  return item;
}

static void
apply_handoff_filter (Run *run, Turn *turn, AgentsHandoff *handoff)
{
  g_autoptr (GPtrArray) before = g_ptr_array_new ();
  g_autoptr (GPtrArray) during = g_ptr_array_new ();
  g_autoptr (AgentsHandoffInputData) data = NULL;
  g_autoptr (AgentsHandoffInputData) filtered = NULL;
  GPtrArray *pre, *new_items;
  g_autoptr (GPtrArray) items = NULL;

  if (!agents_handoff_has_input_filter (handoff))
    return;
  for (guint i = 0; i < run->items->len; i++)
    g_ptr_array_add (i < turn->first_new_item ? before : during,
                     run->items->pdata[i]);
  data = agents_handoff_input_data_new (run->input, before, during, run->ctx);
  filtered = agents_handoff_apply_input_filter (handoff, data);

  g_clear_pointer (&run->input, json_node_unref);
  run->input =
    json_node_copy (agents_handoff_input_data_get_input_history (filtered));
  pre = agents_handoff_input_data_get_pre_handoff_items (filtered);
  new_items = agents_handoff_input_data_get_new_items (filtered);
  items = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; pre != NULL && i < pre->len; i++)
    g_ptr_array_add (items, g_object_ref (pre->pdata[i]));
  for (guint i = 0; new_items != NULL && i < new_items->len; i++)
    g_ptr_array_add (items, g_object_ref (new_items->pdata[i]));
  g_ptr_array_unref (run->items);
  run->items = g_ptr_array_ref (items);
  forget_model_input (run);
  agents_run_private_result_set_items (run->result, items);
  agents_run_private_result_set_input (run->result, run->input);
}

static JsonObject *
handoff_span_data (AgentsAgent *from, AgentsAgent *to)
{
  JsonObject *data = json_object_new ();

  json_object_set_string_member (data, "from_agent", name_of (from));
  json_object_set_string_member (data, "to_agent", name_of (to));
  return data;
}

/* The first handoff call wins; later ones are told they were ignored. */
static void
execute_handoff (Run *run, Turn *turn)
{
  AgentsHandoff *handoff = turn->handoff_targets->pdata[0];
  JsonObject *call = turn->handoff_calls->pdata[0];
  AgentsAgent *source = run->current_agent;
  AgentsAgent *target = agents_handoff_get_agent (handoff);
  const char *call_id = agents_run_private_json_string (call, "call_id");
  g_autoptr (AgentsSpan) span = NULL;
  g_autoptr (JsonObject) raw = NULL;
  g_autoptr (AgentsRunItem) item = NULL;
  g_autoptr (JsonNode) name = NULL;
  g_autofree char *output = NULL;
  g_autofree char *quoted = NULL;

  if (target == NULL)
    {
      run_fail (run,
                agents_run_error_new (AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
                                      _ ("Handoff %s has no agent"),
                                      agents_handoff_get_tool_name (handoff)));
      return;
    }
  span = span_start (run, run->agent_span, AGENTS_SPAN_KIND_HANDOFF,
                     handoff_span_data (source, target));
  for (guint i = 1; i < turn->handoff_calls->len; i++)
    {
      JsonObject *extra = turn->handoff_calls->pdata[i];
      g_autoptr (JsonObject) ignored =
        call_output_item (agents_run_private_json_string (extra, "call_id"),
                          MULTIPLE_HANDOFFS_MESSAGE);
      g_autoptr (JsonNode) text = string_node (MULTIPLE_HANDOFFS_MESSAGE);
      g_autoptr (AgentsRunItem) ignored_item =
        agents_run_item_new_tool_output (source, ignored, text);

      add_item (run, ignored_item);
    }

  /* json.dumps({"assistant": name}) of the reference. */
  name = string_node (name_of (target));
  quoted = json_to_string (name, FALSE);
  output = g_strdup_printf ("{\"assistant\": %s}", quoted);
  raw = call_output_item (call_id, output);
  item = agents_run_item_new_handoff_output (source, raw, source, target);
  add_item (run, item);

  g_signal_emit (run->runner, signals[SIGNAL_HANDOFF], 0, run->ctx, source,
                 target);
  agents_agent_emit_handoff (target, run->ctx, source);
  apply_handoff_filter (run, turn, handoff);
  span_finish (&span, NULL);

  span_finish (&run->agent_span, NULL);
  g_set_object (&run->current_agent, target);
  run->agent_span_open = FALSE;
  run->agent_started = FALSE;
  agents_run_private_result_set_last_agent (run->result, target);
  schedule_next_turn (run);
}

/* ---- After the tools --------------------------------------------------- */

static gboolean
tool_stops_run (AgentsAgent *agent, ToolRun *tool_run)
{
  const char *const *names;

  if (tool_run->is_local_shell || tool_run->rejected ||
      tool_run->output == NULL)
    return FALSE;
  switch (agents_agent_get_tool_use_behavior (agent))
    {
    case AGENTS_TOOL_USE_BEHAVIOR_STOP_ON_FIRST_TOOL:
      return TRUE;
    case AGENTS_TOOL_USE_BEHAVIOR_STOP_AT_TOOL_NAMES:
      names = agents_agent_get_stop_at_tool_names (agent);
      return names != NULL &&
             g_strv_contains (names, agents_tool_get_name (tool_run->tool));
    default:
      return FALSE;
    }
}

static void
finish_interrupted (Run *run, Turn *turn)
{
  for (guint i = 0; i < turn->interruptions->len; i++)
    add_item (run, turn->interruptions->pdata[i]);
  run_finish (run);
}

/* What follows a turn's tools: interruptions, a handoff, a tool's final
 * output, a message's final output, or another turn. */
static void
turn_decide (Run *run, Turn *turn)
{
  AgentsAgent *exec = turn->execution_agent;
  JsonObject *schema = exec ? agents_agent_get_output_schema (exec) : NULL;
  g_autofree char *text = NULL;

  if (turn->interruptions->len > 0)
    {
      finish_interrupted (run, turn);
      return;
    }
  if (turn->handoff_calls->len > 0)
    {
      execute_handoff (run, turn);
      return;
    }
  for (guint i = 0; i < turn->tool_runs->len; i++)
    {
      ToolRun *tool_run = turn->tool_runs->pdata[i];

      if (tool_stops_run (exec ? exec : run->current_agent, tool_run))
        {
          finish_with_output (run, tool_run->output);
          return;
        }
    }

  for (guint i = run->items->len; i > turn->first_new_item; i--)
    if (agents_run_item_get_kind (run->items->pdata[i - 1]) ==
        AGENTS_RUN_ITEM_KIND_MESSAGE_OUTPUT)
      {
        text = agents_run_item_get_text (run->items->pdata[i - 1]);
        break;
      }
  if (turn->response != NULL && schema != NULL && text != NULL && *text != '\0')
    {
      GError *error = NULL;
      g_autoptr (JsonNode) output =
        parse_structured_output (text, schema, &error);

      if (output == NULL)
        run_fail (run, error);
      else
        finish_with_output (run, output);
      return;
    }
  if (turn->response != NULL && schema == NULL && !turn->has_tools_or_handoffs)
    {
      g_autoptr (JsonNode) output = string_node (text);

      finish_with_output (run, output);
      return;
    }
  schedule_next_turn (run);
}

/* ---- Tools ------------------------------------------------------------- */

/* The answer to a call, of the call's own kind: function_call_output,
 * custom_tool_call_output (whose output may be structured parts, see
 * agents_run_private_tool_output_to_wire()) or local_shell_call_output. */
static JsonObject *
tool_output_item (ToolRun *tool_run)
{
  g_autofree char *text = NULL;
  JsonObject *item = json_object_new ();

  if (tool_run->is_custom_call)
    json_object_set_string_member (item, "type", "custom_tool_call_output");
  if (!tool_run->is_local_shell)
    {
      json_object_set_string_member (item, "call_id", tool_run->call_id);
      json_object_set_member (
        item, "output",
        agents_run_private_tool_output_to_wire (tool_run->output));
      if (!tool_run->is_custom_call)
        json_object_set_string_member (item, "type", "function_call_output");
      return item;
    }
  text = agents_run_private_output_to_text (tool_run->output);
  json_object_set_string_member (item, "type", "local_shell_call_output");
  json_object_set_string_member (item, "id", tool_run->call_id);
  json_object_set_string_member (item, "call_id", tool_run->call_id);
  json_object_set_string_member (item, "output", text);
  return item;
}

static void
tools_done (Run *run, Turn *turn)
{
  for (guint i = 0; i < turn->tool_runs->len; i++)
    {
      ToolRun *tool_run = turn->tool_runs->pdata[i];
      g_autoptr (JsonObject) raw = tool_output_item (tool_run);
      g_autoptr (AgentsRunItem) item = agents_run_item_new_tool_output (
        run->current_agent, raw, tool_run->output);

      add_item (run, item);
    }
  turn_decide (run, turn);
}

static void pump_tools (Turn *turn);

static void
tool_finished (Turn *turn, ToolRun *tool_run, GError *error)
{
  span_finish (&tool_run->span, error);
  if (error != NULL && turn->error == NULL)
    turn->error = error;
  else if (error != NULL)
    g_error_free (error);
  turn->tools_running--;
  pump_tools (turn);
}

static void
tool_invoked (GObject *source, GAsyncResult *result, gpointer user_data)
{
  ToolRun *tool_run = user_data;
  Turn *turn = tool_run->turn;
  g_autoptr (Run) run = turn->run; /* the reference start_tool took */
  GError *error = NULL;
  JsonNode *output =
    agents_tool_invoke_finish (AGENTS_TOOL (source), result, &error);

  if (run->completing || run->turn != turn)
    {
      g_clear_error (&error);
      g_clear_pointer (&output, json_node_unref);
      return;
    }
  if (output == NULL && error == NULL)
    output = string_node ("");
  if (error != NULL && !is_cancelled_error (error) &&
      error->domain != AGENTS_RUN_ERROR)
    {
      GError *wrapped = agents_run_error_new (
        AGENTS_RUN_ERROR_TOOL_FAILED, NULL, _ ("Error running tool %s: %s"),
        agents_tool_get_name (tool_run->tool), error->message);

      g_error_free (error);
      error = wrapped;
    }
  if (output != NULL)
    {
      g_autofree char *text = agents_run_private_output_to_text (output);

      tool_run->output = output;
      span_set (tool_run->span, "output", string_node (text));
      g_signal_emit (
        run->runner, signals[SIGNAL_TOOL_END],
        g_quark_from_string (agents_tool_get_name (tool_run->tool)), run->ctx,
        run->current_agent, tool_run->tool, output);
      agents_agent_emit_tool_end (run->current_agent, run->ctx, tool_run->tool,
                                  output);
    }
  tool_finished (turn, tool_run, error);
}

static JsonObject *
function_span_data (ToolRun *tool_run)
{
  JsonObject *data = json_object_new ();

  json_object_set_string_member (data, "name",
                                 agents_tool_get_name (tool_run->tool));
  json_object_set_string_member (data, "input", tool_run->arguments);
  json_object_set_null_member (data, "output");
  return data;
}

static void
start_tool (Turn *turn, ToolRun *tool_run)
{
  Run *run = turn->run;

  turn->tools_running++;
  tool_run->span = span_start (run, run->agent_span, AGENTS_SPAN_KIND_FUNCTION,
                               function_span_data (tool_run));
  if (g_cancellable_is_cancelled (run->cancellable))
    {
      GError *error = NULL;

      g_cancellable_set_error_if_cancelled (run->cancellable, &error);
      tool_finished (turn, tool_run, error);
      return;
    }
  if (tool_run->rejected)
    {
      tool_run->output = string_node (REJECTION_MESSAGE);
      span_set (tool_run->span, "output", string_node (REJECTION_MESSAGE));
      tool_finished (turn, tool_run, NULL);
      return;
    }
  g_signal_emit (run->runner, signals[SIGNAL_TOOL_START],
                 g_quark_from_string (agents_tool_get_name (tool_run->tool)),
                 run->ctx, run->current_agent, tool_run->tool);
  agents_agent_emit_tool_start (run->current_agent, run->ctx, tool_run->tool);
  run_ref (run);
  agents_tool_invoke_async (tool_run->tool, run->ctx, tool_run->call_id,
                            tool_run->arguments, run->cancellable, tool_invoked,
                            tool_run);
}

/* Starts the tools that may start; once all are over (or one failed and
 * the running ones are over), goes on with the turn. Reentrant calls,
 * from tools that finish at once, only count. */
static void
pump_tools (Turn *turn)
{
  Run *run = turn->run;

  if (turn->pumping || turn->tools_over)
    return;
  turn->pumping = TRUE;
  while (turn->error == NULL && turn->next_tool < turn->tool_runs->len &&
         (!turn->sequential || turn->tools_running == 0))
    start_tool (turn, turn->tool_runs->pdata[turn->next_tool++]);
  turn->pumping = FALSE;
  if (turn->tools_running > 0 ||
      (turn->error == NULL && turn->next_tool < turn->tool_runs->len))
    return;
  turn->tools_over = TRUE;
  if (turn->error != NULL)
    run_fail (run, g_steal_pointer (&turn->error));
  else
    tools_done (run, turn);
}

/* Function tools run in parallel, unless the model settings say
 * parallel_tool_calls = false; then one after the other. */
static void
run_tools (Turn *turn)
{
  turn->sequential =
    turn->settings != NULL &&
    agents_model_settings_has_parallel_tool_calls (turn->settings) &&
    !agents_model_settings_get_parallel_tool_calls (turn->settings);
  pump_tools (turn);
}

/* The input of a custom tool offered as a function tool (to models that
 * have no freeform tools): the `input` member of the arguments, else the
 * arguments as they are. */
static char *
custom_input_of_arguments (const char *arguments)
{
  g_autoptr (JsonNode) node = NULL;
  const char *input = NULL;

  if (arguments == NULL)
    return g_strdup ("");
  node = agents_json_parse_bounded (arguments, -1, NULL, NULL);
  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
    input =
      agents_run_private_json_string (json_node_get_object (node), "input");
  return g_strdup (input ? input : arguments);
}

/* What the tool is invoked with: the whole call for local shell tools, the
 * raw input for custom tools, else the JSON arguments. */
static char *
call_arguments (AgentsTool *tool, JsonObject *call, gboolean is_custom_call)
{
  const char *arguments = agents_run_private_json_string (call, "arguments");

  if (AGENTS_IS_LOCAL_SHELL_TOOL (tool))
    {
      g_autoptr (JsonNode) node =
        json_node_init_object (json_node_alloc (), call);

      return json_to_string (node, FALSE);
    }
  if (is_custom_call)
    {
      const char *input = agents_run_private_json_string (call, "input");

      return g_strdup (input ? input : "");
    }
  if (AGENTS_IS_CUSTOM_TOOL (tool))
    return custom_input_of_arguments (arguments);
  return g_strdup (arguments ? arguments : "");
}

/* A tool call of the model: it runs, waits for approval, or is rejected. */
static void
add_tool_call (Run *run, Turn *turn, AgentsTool *tool, JsonObject *call)
{
  ToolRun *tool_run = g_new0 (ToolRun, 1);
  const char *call_id = agents_run_private_json_string (call, "call_id");
  AgentsApprovalStatus status = AGENTS_APPROVAL_STATUS_APPROVED;

  tool_run->turn = turn;
  tool_run->tool = g_object_ref (tool);
  tool_run->call = json_object_ref (call);
  tool_run->call_id = g_strdup (call_id ? call_id : "");
  tool_run->is_local_shell = AGENTS_IS_LOCAL_SHELL_TOOL (tool);
  tool_run->is_custom_call =
    g_strcmp0 (agents_run_private_json_string (call, "type"),
               "custom_tool_call") == 0;
  tool_run->arguments = call_arguments (tool, call, tool_run->is_custom_call);

  if (agents_tool_call_needs_approval (tool, run->ctx, tool_run->arguments))
    status = agents_run_context_is_tool_approved (
      run->ctx, agents_tool_get_name (tool), tool_run->call_id);
  if (status == AGENTS_APPROVAL_STATUS_UNKNOWN)
    {
      g_ptr_array_add (turn->interruptions, agents_run_item_new_tool_approval (
                                              run->current_agent, call,
                                              agents_tool_get_name (tool)));
      tool_run_free (tool_run);
      return;
    }
  tool_run->rejected = status == AGENTS_APPROVAL_STATUS_REJECTED;
  g_ptr_array_add (turn->tool_runs, tool_run);
}

/* ---- The model's response ---------------------------------------------- */

static AgentsTool *
find_tool (Turn *turn, const char *name, gboolean local_shell)
{
  for (guint i = 0; i < turn->tools->len; i++)
    {
      AgentsTool *tool = turn->tools->pdata[i];

      if (local_shell ? AGENTS_IS_LOCAL_SHELL_TOOL (tool)
                      : g_strcmp0 (agents_tool_get_name (tool), name) == 0)
        return tool;
    }
  return NULL;
}

static AgentsHandoff *
find_handoff (Turn *turn, const char *name)
{
  for (guint i = 0; i < turn->handoffs->len; i++)
    if (g_strcmp0 (agents_handoff_get_tool_name (turn->handoffs->pdata[i]),
                   name) == 0)
      return turn->handoffs->pdata[i];
  return NULL;
}

/* A call of one of the agent's tools, by name. */
static gboolean
process_tool_call (Run *run, Turn *turn, JsonObject *call, GError **error)
{
  const char *name = agents_run_private_json_string (call, "name");
  AgentsTool *tool = find_tool (turn, name, FALSE);
  g_autoptr (AgentsRunItem) item = NULL;

  if (tool == NULL)
    {
      agents_run_error_set (error, AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
                            _ ("Tool %s not found in agent %s"),
                            name ? name : "(null)",
                            name_of (run->current_agent));
      return FALSE;
    }
  item = agents_run_item_new (AGENTS_RUN_ITEM_KIND_TOOL_CALL,
                              run->current_agent, call);
  agents_tool_use_tracker_add (run->tracker, run->current_agent, name);
  add_item (run, item);
  add_tool_call (run, turn, tool, call);
  return TRUE;
}

static gboolean
process_function_call (Run *run, Turn *turn, JsonObject *call, GError **error)
{
  const char *name = agents_run_private_json_string (call, "name");
  AgentsHandoff *handoff = find_handoff (turn, name);
  g_autoptr (AgentsRunItem) item = NULL;

  turn->has_tools_or_handoffs = TRUE;
  if (handoff != NULL)
    {
      item = agents_run_item_new (AGENTS_RUN_ITEM_KIND_HANDOFF_CALL,
                                  run->current_agent, call);
      g_ptr_array_add (turn->handoff_calls, json_object_ref (call));
      g_ptr_array_add (turn->handoff_targets, g_object_ref (handoff));
      agents_tool_use_tracker_add (run->tracker, run->current_agent, name);
      add_item (run, item);
      return TRUE;
    }
  return process_tool_call (run, turn, call, error);
}

/* A custom (freeform) tool call: `{"type": "custom_tool_call", "call_id",
 * "name", "input"}`, whose input is raw text. */
static gboolean
process_custom_tool_call (Run *run,
                          Turn *turn,
                          JsonObject *call,
                          GError **error)
{
  turn->has_tools_or_handoffs = TRUE;
  if (agents_run_private_json_string (call, "input") == NULL)
    {
      /* The reference's ModelBehaviorError text. */
      agents_run_error_set (error, AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
                            "Custom tool call is missing input.");
      return FALSE;
    }
  return process_tool_call (run, turn, call, error);
}

static gboolean
process_output_item (Run *run, Turn *turn, JsonObject *raw, GError **error)
{
  const char *type = agents_run_private_json_string (raw, "type");
  g_autoptr (AgentsRunItem) item = NULL;
  AgentsTool *tool;

  if (g_strcmp0 (type, "message") == 0)
    item = agents_run_item_new (AGENTS_RUN_ITEM_KIND_MESSAGE_OUTPUT,
                                run->current_agent, raw);
  else if (g_strcmp0 (type, "reasoning") == 0)
    item = agents_run_item_new (AGENTS_RUN_ITEM_KIND_REASONING,
                                run->current_agent, raw);
  else if (g_strcmp0 (type, "function_call") == 0)
    return process_function_call (run, turn, raw, error);
  else if (g_strcmp0 (type, "custom_tool_call") == 0)
    return process_custom_tool_call (run, turn, raw, error);
  else if (g_strcmp0 (type, "local_shell_call") == 0)
    {
      tool = find_tool (turn, NULL, TRUE);
      if (tool == NULL)
        {
          agents_run_error_set (
            error, AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
            _ ("Model produced local shell call without a local shell tool."));
          return FALSE;
        }
      turn->has_tools_or_handoffs = TRUE;
      item = agents_run_item_new (AGENTS_RUN_ITEM_KIND_TOOL_CALL,
                                  run->current_agent, raw);
      agents_tool_use_tracker_add (run->tracker, run->current_agent,
                                   agents_tool_get_name (tool));
      add_item (run, item);
      add_tool_call (run, turn, tool, raw);
      return TRUE;
    }
  else if (type != NULL && g_str_has_suffix (type, "_call"))
    /* Hosted tools (web search, file search, …) ran at the provider. */
    item = agents_run_item_new (AGENTS_RUN_ITEM_KIND_TOOL_CALL,
                                run->current_agent, raw);
  else
    {
      g_debug ("ignoring model output item of type %s", type);
      return TRUE;
    }
  add_item (run, item);
  return TRUE;
}

static void
process_response (Run *run, Turn *turn)
{
  AgentsModelResponse *response = turn->response;
  JsonArray *output = agents_model_response_get_output (response);
  GError *error = NULL;

  for (guint i = 0; output != NULL && i < json_array_get_length (output); i++)
    {
      JsonNode *node = json_array_get_element (output, i);
      g_autoptr (JsonObject) raw = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      raw = agents_run_private_json_object_copy (json_node_get_object (node));
      if (!process_output_item (run, turn, raw, &error))
        {
          run_fail (run, error);
          return;
        }
    }
  run_tools (turn);
}

/* ---- The model call ---------------------------------------------------- */

static void
turn_joined (Run *run, Turn *turn)
{
  AgentsModelResponse *response = turn->response;
  JsonObject *usage;

  if (turn->guardrail_error != NULL)
    {
      run_fail (run, g_steal_pointer (&turn->guardrail_error));
      return;
    }
  if (turn->error != NULL)
    {
      span_finish (&turn->generation_span, turn->error);
      run_fail (run, g_steal_pointer (&turn->error));
      return;
    }
  usage = agents_model_response_get_usage (response);
  if (usage != NULL)
    agents_run_context_add_usage (run->ctx, usage);
  agents_run_private_result_append_response (run->result, response);
  if (turn->generation_span != NULL)
    {
      JsonArray *output = agents_model_response_get_output (response);
      /* Snapshots for processors; without any, nobody sees the data. */
      gboolean copy = agents_tracing_private_has_processors ();

      if (output != NULL)
        span_set (turn->generation_span, "output",
                  take_array (copy ? agents_run_private_json_array_copy (output)
                                   : json_array_ref (output)));
      if (usage != NULL)
        span_set (turn->generation_span, "usage",
                  take_object (copy
                                 ? agents_run_private_json_object_copy (usage)
                                 : json_object_ref (usage)));
    }
  span_finish (&turn->generation_span, NULL);

  g_signal_emit (run->runner, signals[SIGNAL_LLM_END], 0, run->ctx,
                 run->current_agent, response);
  agents_agent_emit_llm_end (run->current_agent, run->ctx, response);
  process_response (run, turn);
}

static void
turn_join_one (Run *run, Turn *turn)
{
  if (--turn->pending > 0)
    return;
  if (run->completing || run->turn != turn)
    return;
  turn_joined (run, turn);
}

static void
model_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (Run) run = user_data;
  Turn *turn = run->turn;
  GError *error = NULL;
  AgentsModelResponse *response;

  if (run->streaming != NULL)
    response = agents_model_stream_response_finish (AGENTS_MODEL (source),
                                                    result, &error);
  else
    response =
      agents_model_get_response_finish (AGENTS_MODEL (source), result, &error);
  if (turn == NULL || run->completing)
    {
      g_clear_error (&error);
      g_clear_object (&response);
      return;
    }
  if (turn->sink != NULL)
    g_signal_handlers_disconnect_by_data (turn->sink, run);
  if (response == NULL && error == NULL)
    error = agents_run_error_new (AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
                                  _ ("The model returned no response"));
  if (error != NULL)
    turn->error = error;
  else
    turn->response = response;
  turn_join_one (run, turn);
}

static void
parallel_guardrails_done (Run *run, GError *error)
{
  Turn *turn = run->turn;

  if (turn == NULL || run->completing)
    {
      g_clear_error (&error);
      return;
    }
  turn->guardrail_error = error;
  turn_join_one (run, turn);
}

static void
raw_model_event (AgentsModelEventSink *sink,
                 JsonObject *event,
                 gpointer user_data)
{
  Run *run = user_data;

  push_event (run, AGENTS_STREAM_EVENT_KIND_RAW_RESPONSE, NULL, NULL, event);
}

static AgentsModel *
resolve_model (Run *run, AgentsAgent *exec, GError **error)
{
  AgentsModel *model = agents_run_config_get_model (run->config);

  if (model == NULL)
    model = agents_agent_get_model (exec);
  if (model == NULL)
    agents_run_error_set (error, AGENTS_RUN_ERROR_USER_ERROR, NULL,
                          _ ("Agent %s has no model and the run config sets "
                             "none"),
                          name_of (run->current_agent));
  return model;
}

static AgentsModelRequest *
build_request (Run *run, Turn *turn, JsonObject *prompt)
{
  AgentsModelRequest *request = agents_model_request_new ();

  agents_model_request_set_system_instructions (request, turn->system_prompt);
  agents_model_request_set_input (request, turn->input);
  agents_model_request_set_model_settings (request, turn->settings);
  agents_model_request_set_tools (request, turn->tools);
  agents_model_request_set_handoffs (request, turn->handoffs);
  agents_model_request_set_output_schema (
    request, agents_agent_get_output_schema (turn->execution_agent));
  agents_model_request_set_prompt (request, prompt);
  agents_model_request_set_tracing (
    request, agents_run_config_get_tracing_disabled (run->config)
               ? AGENTS_MODEL_TRACING_DISABLED
             : agents_run_config_get_trace_include_sensitive_data (run->config)
               ? AGENTS_MODEL_TRACING_ENABLED
               : AGENTS_MODEL_TRACING_ENABLED_WITHOUT_DATA);
  return request;
}

/* Copies the model input; sealed items cannot change, so they are shared. */
static JsonArray *
copy_input (JsonArray *input)
{
  JsonArray *copy = json_array_sized_new (json_array_get_length (input));

  for (guint i = 0; i < json_array_get_length (input); i++)
    {
      JsonNode *node = json_array_get_element (input, i);
      g_autoptr (JsonArray) single = NULL;
      g_autoptr (JsonArray) copied = NULL;

      if (json_node_is_immutable (node))
        {
          json_array_add_element (copy, json_node_ref (node));
          continue;
        }
      single = json_array_new ();
      json_array_add_element (single, json_node_ref (node));
      copied = agents_run_private_json_array_copy (single);
      json_array_add_element (copy, json_array_dup_element (copied, 0));
    }
  return copy;
}

/* The agent's model name, else the model's own `model-name` (the HTTP
 * models have one), else its type's name. */
static char *
span_model_name (AgentsAgent *agent, AgentsModel *model)
{
  const char *name = agents_agent_get_model_name (agent);
  char *own = NULL;

  if (name != NULL)
    return g_strdup (name);
  if (g_object_class_find_property (G_OBJECT_GET_CLASS (model), "model-name"))
    g_object_get (model, "model-name", &own, NULL);
  return own ? own : g_strdup (G_OBJECT_TYPE_NAME (model));
}

static JsonObject *
generation_span_data (Turn *turn, AgentsModel *model)
{
  JsonObject *data = json_object_new ();
  g_autofree char *model_name = span_model_name (turn->execution_agent, model);

  /* The input grows in place turn after turn: processors, which may keep
   * the span, get a snapshot; without any, nobody sees it. */
  json_object_set_array_member (data, "input",
                                agents_tracing_private_has_processors ()
                                  ? copy_input (turn->input)
                                  : json_array_ref (turn->input));
  json_object_set_null_member (data, "output");
  json_object_set_string_member (data, "model", model_name);
  json_object_set_object_member (
    data, "model_config", agents_model_settings_to_json (turn->settings));
  json_object_set_null_member (data, "usage");
  return data;
}

/* Applies the run config's call-model input filter, which sees the public
 * agent. */
static void
filter_model_input (Run *run, Turn *turn)
{
  g_autoptr (AgentsModelInputData) data = NULL;
  g_autoptr (AgentsCallModelData) call = NULL;
  g_autoptr (AgentsModelInputData) filtered = NULL;

  if (!agents_run_config_has_call_model_input_filter (run->config))
    return;
  data = agents_model_input_data_new (turn->system_prompt, turn->input);
  call = agents_call_model_data_new (
    run->current_agent, agents_run_context_get_context (run->ctx), data);
  filtered =
    agents_run_config_apply_call_model_input_filter (run->config, call);
  g_free (turn->system_prompt);
  turn->system_prompt =
    g_strdup (agents_model_input_data_get_instructions (filtered));
  g_clear_pointer (&turn->input, json_array_unref);
  turn->input = json_array_ref (agents_model_input_data_get_input (filtered));
}

static void
call_model (Run *run, Turn *turn)
{
  g_autoptr (JsonObject) prompt = NULL;
  g_autoptr (AgentsModelRequest) request = NULL;
  g_autoptr (GPtrArray) parallel = NULL;
  GError *error = NULL;
  AgentsModel *model;

  model = resolve_model (run, turn->execution_agent, &error);
  if (model == NULL)
    {
      run_fail (run, error);
      return;
    }
  prompt = agents_agent_resolve_prompt (run->current_agent, run->ctx);
  filter_model_input (run, turn);
  request = build_request (run, turn, prompt);

  g_signal_emit (run->runner, signals[SIGNAL_LLM_START], 0, run->ctx,
                 run->current_agent, turn->system_prompt, turn->input);
  agents_agent_emit_llm_start (run->current_agent, run->ctx,
                               turn->system_prompt, turn->input);

  /* The parallel input guardrails run alongside the first model call. */
  parallel = run->current_turn == 1 && !run->resumed
               ? input_guardrails (run, TRUE)
               : g_ptr_array_new ();
  turn->pending = 1 + (parallel->len > 0 ? 1 : 0);
  turn->generation_span =
    span_start (run, run->agent_span, AGENTS_SPAN_KIND_GENERATION,
                generation_span_data (turn, model));
  if (run->streaming != NULL)
    {
      turn->sink = agents_model_event_sink_new ();
      g_signal_connect (turn->sink, "event", G_CALLBACK (raw_model_event), run);
      agents_model_stream_response_async (model, request, turn->sink,
                                          run->cancellable, model_done,
                                          run_ref (run));
    }
  else
    agents_model_get_response_async (model, request, run->cancellable,
                                     model_done, run_ref (run));
  if (parallel->len > 0)
    run_guardrails (run, g_steal_pointer (&parallel), run->starting_agent,
                    run->input, FALSE, parallel_guardrails_done);
}

static AgentsModelSettings *
turn_settings (Run *run, AgentsAgent *exec)
{
  AgentsModelSettings *settings = agents_model_settings_merge (
    agents_agent_get_model_settings (exec),
    agents_run_config_get_model_settings (run->config));

  /* The reference's maybe_reset_tool_choice(): once an agent used tools,
   * forcing another tool call would loop. */
  if (agents_agent_get_reset_tool_choice (run->current_agent) &&
      agents_tool_use_tracker_has_used_tools (run->tracker, run->current_agent))
    agents_model_settings_set_tool_choice (settings, NULL);
  return settings;
}

static GPtrArray *
agent_tools (AgentsAgent *agent)
{
  return list_model_to_array (agents_agent_get_tools (agent));
}

static void
system_prompt_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (Run) run = user_data;
  Turn *turn = run->turn;
  GError *error = NULL;
  char *prompt = agents_agent_get_system_prompt_finish (AGENTS_AGENT (source),
                                                        result, &error);

  if (turn == NULL || run->completing)
    {
      g_clear_error (&error);
      g_free (prompt);
      return;
    }
  if (error != NULL)
    {
      run_fail (run, error);
      return;
    }
  turn->system_prompt = prompt;
  call_model (run, turn);
}

/* The execution agent is known: gather what the model call needs. */
static void
turn_prepared (Run *run, Turn *turn)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new ();

  turn->tools = agent_tools (turn->execution_agent);
  turn->handoffs = agents_agent_get_handoff_objects (turn->execution_agent);
  turn->settings = turn_settings (run, turn->execution_agent);
  for (guint i = 0; i < turn->tools->len; i++)
    g_ptr_array_add (names,
                     (gpointer) agents_tool_get_name (turn->tools->pdata[i]));
  span_set (run->agent_span, "tools", strv_node (names));

  if (run->pending_interruptions != NULL)
    {
      /* Resuming: execute the decided tool calls before any model call. */
      g_autoptr (GPtrArray) pending =
        g_steal_pointer (&run->pending_interruptions);
      GError *error = NULL;

      for (guint i = 0; i < pending->len; i++)
        {
          AgentsRunItem *approval = pending->pdata[i];
          JsonObject *call = agents_run_item_get_raw_item (approval);
          gboolean local_shell =
            g_strcmp0 (agents_run_private_json_string (call, "type"),
                       "local_shell_call") == 0;
          const char *name = agents_run_item_get_tool_name (approval);
          AgentsTool *tool = find_tool (turn, name, local_shell);

          if (tool == NULL)
            {
              agents_run_error_set (&error, AGENTS_RUN_ERROR_MODEL_BEHAVIOR,
                                    NULL, _ ("Tool %s not found in agent %s"),
                                    name ? name : "(null)",
                                    name_of (run->current_agent));
              run_fail (run, error);
              return;
            }
          add_tool_call (run, turn, tool, call);
        }
      run_tools (turn);
      return;
    }

  agents_agent_get_system_prompt_async (turn->execution_agent, run->ctx,
                                        run->cancellable, system_prompt_done,
                                        run_ref (run));
}

static void
prepare_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (Run) run = user_data;
  Turn *turn = run->turn;
  GError *error = NULL;
  Prepared *prepared = g_task_propagate_pointer (G_TASK (result), &error);

  if (turn == NULL || run->completing)
    {
      g_clear_error (&error);
      g_clear_pointer (&prepared, prepared_free);
      return;
    }
  if (prepared == NULL)
    {
      run_fail (run, error ? error
                           : agents_run_error_new_literal (
                               AGENTS_RUN_ERROR_FAILED, NULL,
                               _ ("The sandbox preparation returned nothing")));
      return;
    }
  turn->execution_agent = g_steal_pointer (&prepared->execution_agent);
  if (prepared->input != NULL)
    {
      g_clear_pointer (&turn->input, json_array_unref);
      turn->input = g_steal_pointer (&prepared->input);
    }
  prepared_free (prepared);
  turn_prepared (run, turn);
}

static GQuark
input_node_quark (void)
{
  return g_quark_from_static_string ("agents-runner-input-node");
}

/* The item as model input, copied once and sealed so that every later turn
 * shares it instead of copying the whole history again. */
static JsonNode *
item_input_node (AgentsRunItem *item)
{
  JsonNode *node = g_object_get_qdata (G_OBJECT (item), input_node_quark ());

  if (node == NULL)
    {
      node = json_node_alloc ();
      json_node_take_object (json_node_init (node, JSON_NODE_OBJECT),
                             agents_run_item_to_input_item (item));
      json_node_seal (node);
      g_object_set_qdata_full (G_OBJECT (item), input_node_quark (), node,
                               (GDestroyNotify) json_node_unref);
    }
  return json_node_ref (node);
}

/* The model input: the run's input, then its items but approvals. Every
 * turn shares one array and appends only the items added since the last
 * turn, so a turn costs the same however long the history (the reference
 * builds a new list every turn). It is rebuilt when the history is
 * rewritten, or was changed in place by someone it was handed to. */
static JsonArray *
model_input (Run *run)
{
  if (run->model_input == NULL || run->model_input_items > run->items->len ||
      json_array_get_length (run->model_input) != run->model_input_length ||
      (run->model_input_length > 0 &&
       json_array_get_element (run->model_input, run->model_input_length - 1) !=
         run->model_input_last))
    {
      g_clear_pointer (&run->model_input, json_array_unref);
      run->model_input = input_to_list (run->input);
      run->model_input_items = 0;
    }
  for (guint i = run->model_input_items; i < run->items->len; i++)
    {
      AgentsRunItem *item = run->items->pdata[i];

      if (agents_run_item_get_kind (item) == AGENTS_RUN_ITEM_KIND_TOOL_APPROVAL)
        continue;
      json_array_add_element (run->model_input, item_input_node (item));
    }
  run->model_input_items = run->items->len;
  run->model_input_length = json_array_get_length (run->model_input);
  run->model_input_last =
    run->model_input_length > 0
      ? json_array_get_element (run->model_input, run->model_input_length - 1)
      : NULL;
  return json_array_ref (run->model_input);
}

static void
prepare_agent (Run *run, Turn *turn)
{
  GTask *task;

  turn->input = model_input (run);
  if (run->preparer == NULL)
    {
      turn->execution_agent = g_object_ref (run->current_agent);
      turn_prepared (run, turn);
      return;
    }
  task =
    g_task_new (run->preparer, run->cancellable, prepare_done, run_ref (run));
  g_task_set_source_tag (task, prepare_agent);
  AGENTS_RUN_PREPARER_GET_IFACE (run->preparer)
    ->prepare_agent (run->preparer, run->preparation, run->current_agent,
                     turn->input, run->resumed, task);
  g_object_unref (task);
}

static void
turn_begin (Run *run)
{
  if (run->completing)
    return;
  if (g_cancellable_is_cancelled (run->cancellable))
    {
      GError *error = NULL;

      g_cancellable_set_error_if_cancelled (run->cancellable, &error);
      run_fail (run, error);
      return;
    }
  if (run->cancel_after_turn)
    {
      run_finish (run);
      return;
    }
  if (run->current_turn >= run->max_turns)
    {
      run_fail (run, agents_run_error_new (AGENTS_RUN_ERROR_MAX_TURNS_EXCEEDED,
                                           NULL, _ ("Max turns (%u) exceeded"),
                                           run->max_turns));
      return;
    }
  run->current_turn++;
  agents_run_private_result_set_progress (run->result, run->current_turn,
                                          run->max_turns, run->tracker);
  g_clear_pointer (&run->turn, turn_free);
  run->turn = turn_new (run);
  ensure_agent_started (run);
  prepare_agent (run, run->turn);
}

/* ---- Starting ---------------------------------------------------------- */

static void
blocking_guardrails_done (Run *run, GError *error)
{
  if (error != NULL)
    {
      run_fail (run, error);
      return;
    }
  turn_begin (run);
}

static void
input_ready (Run *run)
{
  agents_run_private_result_set_input (run->result, run->input);
  ensure_agent_span (run);
  run_guardrails (run, input_guardrails (run, FALSE), run->starting_agent,
                  run->input, FALSE, blocking_guardrails_done);
}

static void
history_loaded (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (Run) run = user_data;
  GError *error = NULL;
  g_autoptr (JsonArray) history = agents_conversation_session_get_items_finish (
    AGENTS_CONVERSATION_SESSION (source), result, &error);
  JsonArray *combined;

  if (history == NULL && error != NULL)
    {
      run_fail (run, error);
      return;
    }
  combined =
    history ? agents_run_private_json_array_copy (history) : json_array_new ();
  for (guint i = 0; i < json_array_get_length (run->new_input_items); i++)
    json_array_add_element (combined, json_node_copy (json_array_get_element (
                                        run->new_input_items, i)));
  g_clear_pointer (&run->input, json_node_unref);
  run->input = json_node_init_array (json_node_alloc (), combined);
  json_array_unref (combined);
  forget_model_input (run);
  input_ready (run);
}

static gboolean
setup_preparer (Run *run, GError **error)
{
  GObject *sandbox = agents_run_config_get_sandbox (run->config);

  if (sandbox == NULL)
    return TRUE;
  if (!AGENTS_IS_RUN_PREPARER (sandbox))
    {
      agents_run_error_set (error, AGENTS_RUN_ERROR_USER_ERROR, NULL,
                            _ ("The run config’s sandbox (a %s) cannot prepare "
                               "agents"),
                            G_OBJECT_TYPE_NAME (sandbox));
      return FALSE;
    }
  run->preparer = AGENTS_RUN_PREPARER (g_object_ref (sandbox));
  run->preparation = g_new0 (AgentsRunPreparation, 1);
  run->preparation->run = run;
  return TRUE;
}

static void
resume_begin (Run *run)
{
  AgentsRunState *state = run->resume_state;
  g_autoptr (GPtrArray) items =
    list_model_to_array (agents_run_state_get_generated_items (state));
  GListModel *responses = agents_run_state_get_model_responses (state);
  GListModel *interruptions = agents_run_state_get_interruptions (state);

  run->current_turn = agents_run_state_get_current_turn (state);
  run->max_turns = agents_run_state_get_max_turns (state);
  g_clear_pointer (&run->tracker, agents_tool_use_tracker_free);
  run->tracker = agents_tool_use_tracker_copy (
    agents_run_private_state_get_tool_use_tracker (state));
  for (guint i = 0; i < items->len; i++)
    {
      /* Decided approvals are replaced by their outputs. */
      if (agents_run_item_get_kind (items->pdata[i]) ==
          AGENTS_RUN_ITEM_KIND_TOOL_APPROVAL)
        continue;
      g_ptr_array_add (run->items, g_object_ref (items->pdata[i]));
      agents_run_private_result_append_item (run->result, items->pdata[i]);
    }
  for (guint i = 0; i < g_list_model_get_n_items (responses); i++)
    {
      g_autoptr (AgentsModelResponse) response =
        g_list_model_get_item (responses, i);

      agents_run_private_result_append_response (run->result, response);
    }
  agents_run_private_result_set_input (run->result, run->input);

  if (g_list_model_get_n_items (interruptions) == 0)
    {
      turn_begin (run);
      return;
    }
  /* The interrupted turn goes on: its decided tool calls run, without a
   * new model call or turn. */
  run->pending_interruptions = list_model_to_array (interruptions);
  g_clear_pointer (&run->turn, turn_free);
  run->turn = turn_new (run);
  ensure_agent_started (run);
  prepare_agent (run, run->turn);
}

static gboolean
run_start (gpointer user_data)
{
  Run *run = user_data;
  GError *error = NULL;

  g_object_set_qdata (G_OBJECT (run->ctx), run_quark (), run);
  agents_run_context_set_runner (run->ctx, G_OBJECT (run->runner));
  agents_run_context_set_run_config (run->ctx, run->config);
  begin_trace (run);
  if (!setup_preparer (run, &error))
    {
      run_fail (run, error);
      return G_SOURCE_REMOVE;
    }
  if (run->resume_state != NULL)
    resume_begin (run);
  else if (run->session != NULL)
    agents_conversation_session_get_items_async (
      run->session, 0, run->cancellable, history_loaded, run_ref (run));
  else
    input_ready (run);
  return G_SOURCE_REMOVE;
}

static void
user_cancelled (GCancellable *cancellable, gpointer user_data)
{
  GCancellable *own = user_data;

  g_cancellable_cancel (own);
}

static Run *
run_new (AgentsRunner *self,
         AgentsAgent *agent,
         AgentsRunConfig *config,
         AgentsConversationSession *session,
         AgentsRunContext *ctx,
         GCancellable *cancellable)
{
  Run *run = g_rc_box_new0 (Run);

  run->context = g_main_context_ref_thread_default ();
  run->runner = g_object_ref (self);
  run->config = config ? g_object_ref (config) : agents_run_config_new ();
  run->session = session ? g_object_ref (session) : NULL;
  run->ctx = g_object_ref (ctx);
  run->starting_agent = g_object_ref (agent);
  run->current_agent = g_object_ref (agent);
  run->items = g_ptr_array_new_with_free_func (g_object_unref);
  run->run_items = g_ptr_array_new_with_free_func (g_object_unref);
  run->tracker = agents_tool_use_tracker_new ();
  run->max_turns = agents_run_config_get_max_turns (run->config);
  run->cancellable = g_cancellable_new ();
  if (cancellable != NULL)
    {
      run->user_cancellable = g_object_ref (cancellable);
      run->user_cancel_handler = g_cancellable_connect (
        cancellable, G_CALLBACK (user_cancelled), run->cancellable, NULL);
    }
  run->result = agents_run_private_result_new (ctx, agent);
  return run;
}

static void
set_given_input (Run *run, JsonNode *input)
{
  run->input = json_node_copy (input);
  run->new_input_items = input_to_list (input);
}

static Run *
run_new_from_state (AgentsRunner *self,
                    AgentsAgent *agent,
                    AgentsRunState *state,
                    AgentsRunConfig *config,
                    AgentsConversationSession *session,
                    GCancellable *cancellable)
{
  Run *run = run_new (self, agent, config, session,
                      agents_run_state_get_context (state), cancellable);

  run->resume_state = g_object_ref (state);
  run->resumed = TRUE;
  g_set_object (&run->current_agent,
                agents_run_state_get_current_agent (state));
  run->agent_started = FALSE;
  run->input = json_node_copy (agents_run_state_get_original_input (state));
  agents_run_private_result_set_last_agent (run->result, run->current_agent);
  return run;
}

static gboolean
check_input (JsonNode *input)
{
  return input != NULL && (JSON_NODE_HOLDS_ARRAY (input) ||
                           (JSON_NODE_HOLDS_VALUE (input) &&
                            json_node_get_value_type (input) == G_TYPE_STRING));
}

/* ---- Agents as tools --------------------------------------------------- */

static void
sub_run_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;
  g_autoptr (AgentsRunResult) run_result =
    agents_runner_run_finish (AGENTS_RUNNER (source), result, &error);
  JsonNode *output;

  if (run_result == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  output = agents_run_result_get_final_output (run_result);
  g_task_return_pointer (task,
                         output ? json_node_copy (output) : string_node (""),
                         (GDestroyNotify) json_node_unref);
}

/* Runs @agent on @input through the runner (and with the run config) of
 * the run that invoked the tool; the sub-run's spans nest in that run's
 * trace. */
static void
run_agent_as_tool (GObject *runner,
                   AgentsRunConfig *config,
                   AgentsAgent *agent,
                   AgentsRunContext *ctx,
                   const char *input,
                   GTask *task)
{
  g_autoptr (AgentsRunner) own_runner = NULL;
  g_autoptr (AgentsRunContext) sub_ctx =
    agents_run_context_new (agents_run_context_get_context (ctx));
  g_autoptr (JsonNode) input_node = string_node (input);
  Run *parent = g_object_get_qdata (G_OBJECT (ctx), run_quark ());
  Run *run;
  GTask *outer;

  if (!AGENTS_IS_RUNNER (runner))
    runner = G_OBJECT (own_runner = agents_runner_new ());
  run = run_new (AGENTS_RUNNER (runner), agent, config, NULL, sub_ctx,
                 g_task_get_cancellable (task));
  set_given_input (run, input_node);
  if (parent != NULL && parent->trace != NULL)
    {
      run->trace = g_object_ref (parent->trace);
      run->parent_span =
        parent->agent_span ? g_object_ref (parent->agent_span) : NULL;
    }
  outer = g_task_new (runner, NULL, sub_run_done, g_object_ref (task));
  g_task_set_source_tag (outer, agents_runner_run_async);
  run->task = outer;
  run_start (run);
  run_unref (run);
}

/* ---- The runner -------------------------------------------------------- */

static void
agents_runner_class_init (AgentsRunnerClass *klass)
{
  GType type = G_TYPE_FROM_CLASS (klass);

  agents_run_private_run_agent_as_tool = run_agent_as_tool;

  /**
   * AgentsRunner::agent-start:
   * @self: the runner
   * @ctx: the run context
   * @agent: the agent
   *
   * An agent becomes the current agent of a run (the run hook
   * `on_agent_start`).
   */
  signals[SIGNAL_AGENT_START] =
    g_signal_new ("agent-start", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, AGENTS_TYPE_RUN_CONTEXT, AGENTS_TYPE_AGENT);
  /**
   * AgentsRunner::agent-end:
   * @self: the runner
   * @ctx: the run context
   * @agent: the agent
   * @output: the final output
   *
   * An agent produced the final output of a run (`on_agent_end`).
   */
  signals[SIGNAL_AGENT_END] = g_signal_new (
    "agent-end", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 3,
    AGENTS_TYPE_RUN_CONTEXT, AGENTS_TYPE_AGENT, JSON_TYPE_NODE);
  /**
   * AgentsRunner::llm-start:
   * @self: the runner
   * @ctx: the run context
   * @agent: the agent
   * @system_prompt: (nullable): the system prompt
   * @input: the input items
   *
   * The model is about to be called for an agent (`on_llm_start`).
   */
  signals[SIGNAL_LLM_START] = g_signal_new (
    "llm-start", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 4,
    AGENTS_TYPE_RUN_CONTEXT, AGENTS_TYPE_AGENT, G_TYPE_STRING, JSON_TYPE_ARRAY);
  /**
   * AgentsRunner::llm-end:
   * @self: the runner
   * @ctx: the run context
   * @agent: the agent
   * @response: the model's response
   *
   * The model answered (`on_llm_end`).
   */
  signals[SIGNAL_LLM_END] = g_signal_new (
    "llm-end", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 3,
    AGENTS_TYPE_RUN_CONTEXT, AGENTS_TYPE_AGENT, AGENTS_TYPE_MODEL_RESPONSE);
  /**
   * AgentsRunner::tool-start:
   * @self: the runner
   * @ctx: the run context
   * @agent: the agent whose tool runs
   * @tool: the tool
   *
   * A tool is about to run (`on_tool_start`). The detail is the tool's
   * name.
   */
  signals[SIGNAL_TOOL_START] =
    g_signal_new ("tool-start", type, G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 3, AGENTS_TYPE_RUN_CONTEXT,
                  AGENTS_TYPE_AGENT, AGENTS_TYPE_TOOL);
  /**
   * AgentsRunner::tool-end:
   * @self: the runner
   * @ctx: the run context
   * @agent: the agent whose tool ran
   * @tool: the tool
   * @result: the tool's output
   *
   * A tool ran (`on_tool_end`). The detail is the tool's name.
   */
  signals[SIGNAL_TOOL_END] =
    g_signal_new ("tool-end", type, G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 4, AGENTS_TYPE_RUN_CONTEXT,
                  AGENTS_TYPE_AGENT, AGENTS_TYPE_TOOL, JSON_TYPE_NODE);
  /**
   * AgentsRunner::handoff:
   * @self: the runner
   * @ctx: the run context
   * @from_agent: the agent that hands off
   * @to_agent: the agent handed off to
   *
   * A run hands off to another agent (`on_handoff`).
   */
  signals[SIGNAL_HANDOFF] = g_signal_new (
    "handoff", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 3,
    AGENTS_TYPE_RUN_CONTEXT, AGENTS_TYPE_AGENT, AGENTS_TYPE_AGENT);
}

static void
agents_runner_init (AgentsRunner *self)
{
}

/**
 * agents_runner_new:
 *
 * Creates a runner. Its signals are the run hooks of every run it runs.
 *
 * Returns: (transfer full): the runner
 */
AgentsRunner *
agents_runner_new (void)
{
  return g_object_new (AGENTS_TYPE_RUNNER, NULL);
}

/**
 * agents_runner_run_async:
 * @self: a runner
 * @agent: the agent to start with
 * @input: the input: a string (a user message) or an array of input items
 * @config: (nullable): the run config, %NULL for the defaults
 * @session: (nullable): a conversation session: its items come before
 *   @input, and the run's new input and items are added to it
 * @context: (nullable): the user context, given to tools, hooks and
 *   guardrails through the run context
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the run is over
 * @user_data: data for @callback
 *
 * Runs @agent on @input until a final output, interruptions or an error.
 * The run starts at once; it works on the thread-default main context.
 */
void
agents_runner_run_async (AgentsRunner *self,
                         AgentsAgent *agent,
                         JsonNode *input,
                         AgentsRunConfig *config,
                         AgentsConversationSession *session,
                         GObject *context,
                         GCancellable *cancellable,
                         GAsyncReadyCallback callback,
                         gpointer user_data)
{
  g_autoptr (AgentsRunContext) ctx = NULL;
  Run *run;

  g_return_if_fail (AGENTS_IS_RUNNER (self));
  g_return_if_fail (AGENTS_IS_AGENT (agent));
  g_return_if_fail (config == NULL || AGENTS_IS_RUN_CONFIG (config));
  g_return_if_fail (session == NULL ||
                    AGENTS_IS_CONVERSATION_SESSION (session));
  g_return_if_fail (context == NULL || G_IS_OBJECT (context));

  ctx = agents_run_context_new (context);
  run = run_new (self, agent, config, session, ctx, cancellable);
  run->task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (run->task, agents_runner_run_async);
  if (!check_input (input))
    {
      g_task_return_new_error (run->task, AGENTS_RUN_ERROR,
                               AGENTS_RUN_ERROR_USER_ERROR,
                               _ ("The input of a run is a string or an array "
                                  "of input items"));
      run_unref (run);
      return;
    }
  set_given_input (run, input);
  run_start (run);
  run_unref (run);
}

/**
 * agents_runner_run_finish:
 * @self: a runner
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_runner_run_async().
 *
 * Returns: (transfer full): the result of the run, or %NULL on error
 */
AgentsRunResult *
agents_runner_run_finish (AgentsRunner *self,
                          GAsyncResult *result,
                          GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * agents_runner_resume_async:
 * @self: a runner
 * @agent: the agent the run started with (the same graph as the state's
 *   agents: for a state restored from JSON, the graph it was restored
 *   against)
 * @state: the run state, its interruptions approved or rejected
 * @config: (nullable): the run config, %NULL for the defaults
 * @session: (nullable): a conversation session, which receives the
 *   resumed run's new items
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the run is over
 * @user_data: data for @callback
 *
 * Resumes a run that stopped on interruptions: its approved tool calls
 * run, its rejected ones are told "Tool execution was not approved.",
 * and the run goes on with the state's current agent. Calls still
 * undecided interrupt the run again. The state's maximum of turns counts
 * the turns before.
 */
void
agents_runner_resume_async (AgentsRunner *self,
                            AgentsAgent *agent,
                            AgentsRunState *state,
                            AgentsRunConfig *config,
                            AgentsConversationSession *session,
                            GCancellable *cancellable,
                            GAsyncReadyCallback callback,
                            gpointer user_data)
{
  Run *run;

  g_return_if_fail (AGENTS_IS_RUNNER (self));
  g_return_if_fail (AGENTS_IS_AGENT (agent));
  g_return_if_fail (AGENTS_IS_RUN_STATE (state));
  g_return_if_fail (config == NULL || AGENTS_IS_RUN_CONFIG (config));
  g_return_if_fail (session == NULL ||
                    AGENTS_IS_CONVERSATION_SESSION (session));

  run = run_new_from_state (self, agent, state, config, session, cancellable);
  run->task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (run->task, agents_runner_resume_async);
  run_start (run);
  run_unref (run);
}

/**
 * agents_runner_resume_finish:
 * @self: a runner
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_runner_resume_async().
 *
 * Returns: (transfer full): the result of the run, or %NULL on error
 */
AgentsRunResult *
agents_runner_resume_finish (AgentsRunner *self,
                             GAsyncResult *result,
                             GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
streaming_cancel (AgentsCancelMode mode, gpointer data)
{
  Run *run = data;

  if (run->completing)
    return;
  if (mode == AGENTS_CANCEL_MODE_AFTER_TURN)
    {
      run->cancel_after_turn = TRUE;
      return;
    }
  g_cancellable_cancel (run->cancellable);
}

static AgentsRunResultStreaming *
start_streamed (Run *run)
{
  AgentsRunResultStreaming *streaming =
    agents_run_private_streaming_new (run->result);

  run->streaming = g_object_ref (streaming);
  agents_run_private_streaming_set_cancel_func (
    streaming, streaming_cancel, run_ref (run), (GDestroyNotify) run_unref);
  /* From the main loop: handlers connected now see every event. */
  run_schedule (run, run_start, "[agents] streamed run");
  run_unref (run);
  return streaming;
}

/**
 * agents_runner_run_streamed:
 * @self: a runner
 * @agent: the agent to start with
 * @input: the input: a string (a user message) or an array of input items
 * @config: (nullable): the run config, %NULL for the defaults
 * @session: (nullable): a conversation session
 * @context: (nullable): the user context
 *
 * Starts a streamed run, see agents_runner_run_async(). The run begins
 * once the thread-default main context runs; its events come through the
 * returned object.
 *
 * Returns: (transfer full): the streamed run
 */
AgentsRunResultStreaming *
agents_runner_run_streamed (AgentsRunner *self,
                            AgentsAgent *agent,
                            JsonNode *input,
                            AgentsRunConfig *config,
                            AgentsConversationSession *session,
                            GObject *context)
{
  g_autoptr (AgentsRunContext) ctx = NULL;
  Run *run;

  g_return_val_if_fail (AGENTS_IS_RUNNER (self), NULL);
  g_return_val_if_fail (AGENTS_IS_AGENT (agent), NULL);
  g_return_val_if_fail (check_input (input), NULL);
  g_return_val_if_fail (config == NULL || AGENTS_IS_RUN_CONFIG (config), NULL);
  g_return_val_if_fail (
    session == NULL || AGENTS_IS_CONVERSATION_SESSION (session), NULL);

  ctx = agents_run_context_new (context);
  run = run_new (self, agent, config, session, ctx, NULL);
  set_given_input (run, input);
  return start_streamed (run);
}

/**
 * agents_runner_resume_streamed:
 * @self: a runner
 * @agent: the agent the run started with
 * @state: the run state, its interruptions approved or rejected
 * @config: (nullable): the run config, %NULL for the defaults
 * @session: (nullable): a conversation session
 *
 * Resumes a run as a streamed run, see agents_runner_resume_async().
 *
 * Returns: (transfer full): the streamed run
 */
AgentsRunResultStreaming *
agents_runner_resume_streamed (AgentsRunner *self,
                               AgentsAgent *agent,
                               AgentsRunState *state,
                               AgentsRunConfig *config,
                               AgentsConversationSession *session)
{
  Run *run;

  g_return_val_if_fail (AGENTS_IS_RUNNER (self), NULL);
  g_return_val_if_fail (AGENTS_IS_AGENT (agent), NULL);
  g_return_val_if_fail (AGENTS_IS_RUN_STATE (state), NULL);
  g_return_val_if_fail (config == NULL || AGENTS_IS_RUN_CONFIG (config), NULL);
  g_return_val_if_fail (
    session == NULL || AGENTS_IS_CONVERSATION_SESSION (session), NULL);

  run = run_new_from_state (self, agent, state, config, session, NULL);
  return start_streamed (run);
}
