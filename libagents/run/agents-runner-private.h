/* agents-runner-private.h - what the parts of the runner share
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The runner is five files: agents-runner.c (the type, its API, starting
 * and resuming runs), agents-runner-run.c (the state of one run: items,
 * tracing, the preparation seam, events, completion, hooks and
 * guardrails), agents-runner-turn.c (the turn loop: the model's response,
 * handoffs and final outputs), agents-runner-model-call.c (preparing a
 * turn and calling the model) and agents-runner-tools.c (tool execution).
 */

#pragma once

#include "agents-run-private.h"
#include "agents-runner.h"

G_BEGIN_DECLS

/* The reference's texts, which the model reads: not translated. */
#define REJECTION_MESSAGE "Tool execution was not approved."
#define MULTIPLE_HANDOFFS_MESSAGE \
  "Multiple handoffs detected, ignoring this one."

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

/* The runner's signals, emitted by all parts of a run. */
extern guint agents_runner_signals[N_SIGNALS];

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
  char *prompt_cache_key; /* one per run, for the provider's prompt cache */

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

typedef struct
{
  AgentsAgent *execution_agent;
  JsonArray *input;
} Prepared;

typedef void (*GuardrailsDone) (Run *run, GError *error);

/* ---- agents-runner-run.c ---- */

GQuark run_quark (void);
void forget_model_input (Run *run);
Run *run_ref (Run *run);
void run_unref (Run *run);
const char *name_of (AgentsAgent *agent);
JsonNode *string_node (const char *text);
JsonArray *input_to_list (JsonNode *input);
GPtrArray *list_model_to_array (GListModel *list);
gboolean is_cancelled_error (const GError *error);
gboolean span_records (Run *run, AgentsSpan *parent);
AgentsSpan *span_start (Run *run,
                        AgentsSpan *parent,
                        AgentsSpanKind kind,
                        JsonNode **members,
                        guint n_members);
JsonNode *string_or_null_node (const char *text);
void span_set (AgentsSpan *span, const char *member, JsonNode *value);
void span_finish (AgentsSpan **span, const GError *error);
JsonNode *take_array (JsonArray *array);
JsonNode *take_object (JsonObject *object);
JsonNode *strv_node (GPtrArray *names);
void begin_trace (Run *run);
void prepared_free (Prepared *prepared);
void push_event (Run *run,
                 AgentsStreamEventKind kind,
                 const char *name,
                 AgentsRunItem *item,
                 JsonObject *raw_event);
void add_item (Run *run, AgentsRunItem *item);
void run_fail (Run *run, GError *error);
void run_finish (Run *run);
void ensure_agent_span (Run *run);
void ensure_agent_started (Run *run);
void run_guardrails (Run *run,
                     GPtrArray *guardrails,
                     AgentsAgent *agent,
                     JsonNode *input,
                     gboolean output,
                     GuardrailsDone done);
GPtrArray *input_guardrails (Run *run, gboolean in_parallel);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Run, run_unref)

/* ---- agents-runner-turn.c ---- */

void tool_run_free (ToolRun *tool_run);
void turn_free (Turn *turn);
Turn *turn_new (Run *run);
void run_schedule (Run *run, GSourceFunc func, const char *name);
void turn_decide (Run *run, Turn *turn);
AgentsTool *find_tool (Turn *turn, const char *name, gboolean local_shell);
void process_response (Run *run, Turn *turn);

/* ---- agents-runner-model-call.c ---- */

JsonArray *model_input (Run *run);
void prepare_agent (Run *run, Turn *turn);
void turn_begin (Run *run);

/* ---- agents-runner-tools.c ---- */

void run_tools (Turn *turn);
void add_tool_call (Run *run, Turn *turn, AgentsTool *tool, JsonObject *call);

G_END_DECLS
