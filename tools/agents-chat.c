/* agents-chat.c - `agents chat`: an interactive session with an agent
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A prompt line (GNU readline on a terminal when built with it, else
 * plain standard input), the agent's answer streamed as it comes, tool
 * calls shown on one line each and approvals asked inline. The sandbox
 * is created once and kept across turns (an injected session: the runs
 * of the turns never close it); at the end of input it is stopped, which
 * persists its workspace, and the chat is saved to a state file that
 * `agents chat --resume` continues. Ctrl-C cancels the turn under way,
 * not the chat. With --json, every line of standard output is a JSON
 * event (those of `agents run --json`, and the chat's own) and every
 * line of standard input a message or the answer to an approval.
 */

#include "config.h"

#include <errno.h>
#include <glib-unix.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_READLINE
#include <readline/history.h>
#include <readline/readline.h>
#endif

#include "agents-agent-file.h"
#include "agents-cli.h"
#include "agents-json-private.h"

#define CHAT_STATE_TYPE "agents_chat"
#define CHAT_STATE_VERSION 1
/* A tool call or output is shown on one line of at most this many
 * characters. */
#define COMPACT_WIDTH 100

typedef enum
{
  MODE_BUSY,   /* neither reading nor running a turn */
  MODE_PROMPT, /* reading a line */
  MODE_TURN,   /* a turn is running */
} Mode;

typedef struct
{
  AgentsCliOptions options;
  char *state_file;  /* where the chat is saved at the end */
  char *resume_file; /* --resume */
  AgentsAgent *agent;
  AgentsRunConfig *config;
  AgentsSandboxRunConfig *sandbox; /* of config */
  AgentsSandboxSessionManager *manager;
  AgentsSandboxSession *session;
  AgentsRunner *runner;
  JsonArray *history;     /* the conversation, as input items */
  GHashTable *always;     /* tool names approved for the whole chat */
  GHashTable *tool_names; /* call id → tool name, for --json */
  guint model_turns;      /* model responses used so far */

  Mode mode;
  GCancellable *turn_cancellable;
  AgentsRunResultStreaming *streaming; /* the turn's run */
  gboolean streamed_text; /* text deltas printed for this message */

  gboolean use_readline;
  gboolean line_done;
  char *line;       /* the line read; NULL at the end of input */
  gboolean eof;     /* standard input ended */
  GString *pending; /* plain input read but not yet taken */
  const char *prompt;
} Chat;

static void
chat_clear (Chat *chat)
{
  agents_cli_options_clear (&chat->options);
  g_free (chat->state_file);
  g_free (chat->resume_file);
  if (chat->agent != NULL)
    agents_cli_release_models (chat->agent, 0);
  g_clear_object (&chat->agent);
  g_clear_object (&chat->config);
  g_clear_object (&chat->manager);
  g_clear_object (&chat->session);
  g_clear_object (&chat->runner);
  g_clear_pointer (&chat->history, json_array_unref);
  g_clear_pointer (&chat->always, g_hash_table_unref);
  g_clear_pointer (&chat->tool_names, g_hash_table_unref);
  g_clear_object (&chat->turn_cancellable);
  g_free (chat->line);
  if (chat->pending != NULL)
    g_string_free (chat->pending, TRUE);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Chat, chat_clear)

/* ---- waiting on async calls ------------------------------------------ */

static void
on_ready (GObject *source, GAsyncResult *result, gpointer user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static GAsyncResult *
wait_for (GAsyncResult **slot)
{
  while (*slot == NULL)
    g_main_context_iteration (NULL, TRUE);
  return *slot;
}

/* ---- reading lines ------------------------------------------------------ */

/* readline calls back without user data. */
static Chat *reading_chat;

#ifdef HAVE_READLINE
static void
on_readline_line (char *line)
{
  Chat *chat = reading_chat;

  rl_callback_handler_remove ();
  chat->line_done = TRUE;
  if (line == NULL)
    {
      /* Ctrl-D on an empty line; readline ended the prompt line. */
      chat->eof = TRUE;
      return;
    }
  if (*line != '\0')
    add_history (line);
  chat->line = g_strdup (line);
  free (line);
}
#endif

/* Takes the first complete line out of the plain input read so far. */
static gboolean
take_pending_line (Chat *chat)
{
  char *newline = memchr (chat->pending->str, '\n', chat->pending->len);

  if (newline == NULL)
    return FALSE;
  chat->line = g_strndup (chat->pending->str, newline - chat->pending->str);
  g_string_erase (chat->pending, 0, newline - chat->pending->str + 1);
  chat->line_done = TRUE;
  return TRUE;
}

static void
read_plain (Chat *chat)
{
  char buffer[4096];
  ssize_t n = read (STDIN_FILENO, buffer, sizeof buffer);

  if (n < 0 && (errno == EINTR || errno == EAGAIN))
    return;
  if (n <= 0)
    {
      /* The end of input ends the line being typed, if any. */
      chat->eof = TRUE;
      chat->line_done = TRUE;
      if (chat->pending->len > 0)
        chat->line = g_strdup (chat->pending->str);
      g_string_truncate (chat->pending, 0);
      return;
    }
  g_string_append_len (chat->pending, buffer, n);
  take_pending_line (chat);
}

static gboolean
on_stdin (int fd, GIOCondition condition, gpointer user_data)
{
  Chat *chat = user_data;

#ifdef HAVE_READLINE
  if (chat->use_readline)
    {
      rl_callback_read_char ();
      return G_SOURCE_CONTINUE;
    }
#endif
  read_plain (chat);
  return G_SOURCE_CONTINUE;
}

static void
show_prompt (Chat *chat)
{
  /* Under --json, standard output holds events only. */
  if (chat->options.json)
    return;
#ifdef HAVE_READLINE
  if (chat->use_readline)
    {
      rl_callback_handler_install (chat->prompt, on_readline_line);
      return;
    }
#endif
  g_print ("%s", chat->prompt);
  fflush (stdout);
}

/* Reads one line after showing @prompt; %NULL at the end of input. */
static char *
read_line (Chat *chat, const char *prompt)
{
  guint watch;

  chat->line_done = FALSE;
  g_clear_pointer (&chat->line, g_free);
  if (chat->eof)
    return NULL;
  chat->prompt = prompt;
  if (!chat->use_readline && take_pending_line (chat))
    {
      /* Typed ahead: shown as if typed at the prompt. */
      if (!chat->options.json)
        g_print ("%s%s\n", prompt, chat->line);
      return g_steal_pointer (&chat->line);
    }
  reading_chat = chat;
  chat->mode = MODE_PROMPT;
  show_prompt (chat);
  watch =
    g_unix_fd_add (STDIN_FILENO, G_IO_IN | G_IO_HUP | G_IO_ERR, on_stdin, chat);
  while (!chat->line_done)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (watch);
  /* Input that is not typed is not echoed: shown as if it were. */
  if (!chat->use_readline && !chat->options.json && chat->line != NULL &&
      !isatty (STDIN_FILENO))
    g_print ("%s\n", chat->line);
  chat->mode = MODE_BUSY;
  reading_chat = NULL;
  return g_steal_pointer (&chat->line);
}

/* Ctrl-C at the prompt: the line typed so far goes, a new prompt comes. */
static void
discard_line (Chat *chat)
{
#ifdef HAVE_READLINE
  if (chat->use_readline)
    {
      /* readline does not echo it: the terminal echo is off. */
      g_print ("^C\n");
      rl_replace_line ("", 0);
      rl_on_new_line ();
      rl_redisplay ();
      return;
    }
#endif
  g_string_truncate (chat->pending, 0);
  if (chat->options.json)
    return;
  g_print ("\n%s", chat->prompt);
  fflush (stdout);
}

/* SIGTERM: the chat ends as at the end of input, saved. */
static gboolean
on_terminate (gpointer user_data)
{
  Chat *chat = user_data;

  chat->eof = TRUE;
  if (chat->mode == MODE_PROMPT)
    chat->line_done = TRUE;
  else if (chat->mode == MODE_TURN)
    g_cancellable_cancel (chat->turn_cancellable);
  return G_SOURCE_CONTINUE;
}

static gboolean
on_interrupt (gpointer user_data)
{
  Chat *chat = user_data;

  switch (chat->mode)
    {
    case MODE_PROMPT:
      discard_line (chat);
      break;
    case MODE_TURN:
      if (!g_cancellable_is_cancelled (chat->turn_cancellable))
        {
          if (!chat->options.json)
            g_print ("\n");
          g_printerr (_ ("agents: cancelling the turn\n"));
          g_cancellable_cancel (chat->turn_cancellable);
        }
      break;
    case MODE_BUSY:
    default:
      break;
    }
  return G_SOURCE_CONTINUE;
}

/* ---- printing ----------------------------------------------------------- */

/* The string @member of @object; %NULL when missing or not a string. */
static const char *
string_member (JsonObject *object, const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

/* @text on one line of at most @width characters. */
static char *
compact (const char *text, guint width)
{
  g_autoptr (GString) line = g_string_new (NULL);
  const char *p;
  guint n = 0;

  for (p = text; p != NULL && *p != '\0' && n < width;
       p = g_utf8_next_char (p), n++)
    {
      gunichar c = g_utf8_get_char_validated (p, -1);

      if (c == (gunichar) -1 || c == (gunichar) -2)
        break;
      if (c == '\n' || c == '\t' || c == '\r')
        g_string_append_c (line, ' ');
      else if (g_unichar_iscntrl (c))
        g_string_append_c (line, '?');
      else
        g_string_append_unichar (line, c);
    }
  while (line->len > 0 && line->str[line->len - 1] == ' ')
    g_string_truncate (line, line->len - 1);
  if (p != NULL && *p != '\0')
    g_string_append (line, "…");
  return g_string_free (g_steal_pointer (&line), FALSE);
}

static char *
node_to_text (JsonNode *node)
{
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return g_strdup ("");
  if (JSON_NODE_HOLDS_VALUE (node) &&
      json_node_get_value_type (node) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (node));
  return json_to_string (node, FALSE);
}

/* The arguments of a call as the model gave them. */
static char *
call_arguments (AgentsRunItem *item)
{
  JsonObject *raw = agents_run_item_get_raw_item (item);
  JsonNode *member;

  if (raw == NULL)
    return g_strdup ("");
  if ((member = json_object_get_member (raw, "arguments")) != NULL ||
      (member = json_object_get_member (raw, "input")) != NULL ||
      (member = json_object_get_member (raw, "action")) != NULL)
    return node_to_text (member);
  return g_strdup ("");
}

/* "• NAME ARGUMENTS", on one line. */
static void
print_tool_call (Chat *chat, AgentsRunItem *item)
{
  const char *name = agents_run_item_get_tool_name (item);
  g_autofree char *arguments = call_arguments (item);
  g_autofree char *line = NULL;
  g_autofree char *text = NULL;

  text = g_strdup_printf ("%s %s", name ? name : "?", arguments);
  line = compact (text, COMPACT_WIDTH);
  g_print ("• %s\n", line);
}

/* "  └ FIRST LINE (+N lines)". */
static void
print_tool_output (Chat *chat, AgentsRunItem *item)
{
  g_autofree char *text = node_to_text (agents_run_item_get_output (item));
  /* A command's output follows the header the shell tools give it. */
  const char *output = strstr (text, "\nOutput:\n");
  g_auto (GStrv) lines = NULL;
  g_autofree char *first = NULL;
  guint n;

  g_strchomp (text);
  lines =
    g_strsplit (output ? output + strlen ("\nOutput:\n") : text, "\n", -1);
  n = g_strv_length (lines);
  first = compact (n > 0 ? lines[0] : "", COMPACT_WIDTH - 4);
  if (n > 1)
    {
      g_autofree char *more = g_strdup_printf (
        g_dngettext (GETTEXT_PACKAGE, "(+%u line)", "(+%u lines)", n - 1),
        n - 1);

      g_print ("  └ %s %s\n", first, more);
    }
  else
    g_print ("  └ %s\n", first);
}

static void
print_item (Chat *chat, AgentsRunItem *item)
{
  g_autofree char *text = NULL;

  switch (agents_run_item_get_kind (item))
    {
    case AGENTS_RUN_ITEM_KIND_MESSAGE_OUTPUT:
      /* Its text came as deltas, unless the model streams none. */
      if (!chat->streamed_text)
        {
          text = agents_run_item_get_text (item);
          g_print ("%s", text ? text : "");
        }
      g_print ("\n");
      chat->streamed_text = FALSE;
      break;
    case AGENTS_RUN_ITEM_KIND_TOOL_CALL:
      print_tool_call (chat, item);
      break;
    case AGENTS_RUN_ITEM_KIND_TOOL_CALL_OUTPUT:
      print_tool_output (chat, item);
      break;
    case AGENTS_RUN_ITEM_KIND_HANDOFF_OUTPUT:
      {
        AgentsAgent *target = agents_run_item_get_target_agent (item);

        g_print (_ ("[handed off to %s]\n"),
                 target ? agents_agent_get_name (target) : "?");
      }
      break;
    default:
      /* Approvals are asked once the run stops; reasoning and handoff
       * calls are not shown. */
      break;
    }
}

/* `{"type": "text_delta", "agent", "delta"}`: the answer as it streams. */
static void
print_delta_json (AgentsStreamEvent *event, const char *delta)
{
  g_autoptr (JsonObject) object = json_object_new ();
  AgentsAgent *agent = agents_stream_event_get_agent (event);

  json_object_set_string_member (object, "type", "text_delta");
  json_object_set_string_member (object, "agent",
                                 agent ? agents_agent_get_name (agent) : "");
  json_object_set_string_member (object, "delta", delta);
  agents_cli_print_json_line (object);
}

/* Under --json: the events of `agents run --json`, and the deltas. */
static void
print_event_json (Chat *chat, AgentsStreamEvent *event)
{
  JsonObject *raw = agents_stream_event_get_raw_event (event);
  const char *type = raw ? string_member (raw, "type") : NULL;

  if (agents_stream_event_get_kind (event) ==
        AGENTS_STREAM_EVENT_KIND_RAW_RESPONSE &&
      type != NULL && g_str_equal (type, "response.output_text.delta") &&
      string_member (raw, "delta") != NULL)
    print_delta_json (event, string_member (raw, "delta"));
  else
    agents_cli_print_event_json (chat->tool_names, event);
  fflush (stdout);
}

static void
print_event (Chat *chat, AgentsStreamEvent *event)
{
  AgentsRunItem *item = agents_stream_event_get_item (event);
  JsonObject *raw = agents_stream_event_get_raw_event (event);
  const char *type;

  if (chat->options.json)
    {
      print_event_json (chat, event);
      return;
    }
  agents_cli_end_progress_line ();
  switch (agents_stream_event_get_kind (event))
    {
    case AGENTS_STREAM_EVENT_KIND_RAW_RESPONSE:
      type = raw ? string_member (raw, "type") : NULL;
      if (type != NULL && g_str_equal (type, "response.output_text.delta") &&
          string_member (raw, "delta") != NULL)
        {
          g_print ("%s", string_member (raw, "delta"));
          chat->streamed_text = TRUE;
        }
      break;
    case AGENTS_STREAM_EVENT_KIND_RUN_ITEM:
      if (item != NULL)
        print_item (chat, item);
      break;
    case AGENTS_STREAM_EVENT_KIND_AGENT_UPDATED:
    default:
      break;
    }
  fflush (stdout);
}

/* `{"type": TYPE}`, with a string @member when it is not %NULL. */
static void
print_simple_event_json (const char *type,
                         const char *member,
                         const char *value)
{
  g_autoptr (JsonObject) object = json_object_new ();

  json_object_set_string_member (object, "type", type);
  if (member != NULL)
    json_object_set_string_member (object, member, value);
  agents_cli_print_json_line (object);
  fflush (stdout);
}

/* ---- turns -------------------------------------------------------------- */

static void
on_turn_cancelled (GCancellable *cancellable, gpointer user_data)
{
  Chat *chat = user_data;

  if (chat->streaming != NULL)
    agents_run_result_streaming_cancel (chat->streaming,
                                        AGENTS_CANCEL_MODE_IMMEDIATE);
}

/* Streams the run of the turn until it ends, its own end included. */
static gboolean
drain (Chat *chat, GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) wait_error = NULL;
  GError *local_error = NULL;

  for (;;)
    {
      g_autoptr (AgentsStreamEvent) event = NULL;

      agents_run_result_streaming_next_event_async (chat->streaming, NULL,
                                                    on_ready, &result);
      event = agents_run_result_streaming_next_event_finish (
        chat->streaming, wait_for (&result), &local_error);
      g_clear_object (&result);
      if (event == NULL)
        break;
      print_event (chat, event);
    }
  if (chat->streamed_text && !chat->options.json)
    g_print ("\n");
  chat->streamed_text = FALSE;

  agents_run_result_streaming_wait_async (chat->streaming, NULL, on_ready,
                                          &result);
  if (!agents_run_result_streaming_wait_finish (
        chat->streaming, wait_for (&result), &wait_error) &&
      local_error == NULL)
    local_error = g_steal_pointer (&wait_error);
  if (local_error != NULL)
    {
      g_propagate_error (error, local_error);
      return FALSE;
    }
  return TRUE;
}

/* Drops the turn's run; a cancelled one releases the agent once its
 * cleanup is done, which the next turn needs: this waits for that. */
static void
release_streaming (Chat *chat)
{
  gpointer weak = chat->streaming;

  if (weak == NULL)
    return;
  g_object_add_weak_pointer (weak, &weak);
  g_clear_object (&chat->streaming);
  while (weak != NULL)
    g_main_context_iteration (NULL, TRUE);
}

/* `{"type": "approval_requested", "agent", "tool", "call_id",
 * "arguments"}`: the next line of input answers it. */
static void
print_approval_request_json (AgentsRunItem *item)
{
  g_autoptr (JsonObject) object = json_object_new ();
  AgentsAgent *agent = agents_run_item_get_agent (item);
  const char *name = agents_run_item_get_tool_name (item);
  const char *call_id = agents_run_item_get_call_id (item);
  g_autofree char *arguments = call_arguments (item);

  json_object_set_string_member (object, "type", "approval_requested");
  json_object_set_string_member (object, "agent",
                                 agent ? agents_agent_get_name (agent) : "");
  json_object_set_string_member (object, "tool", name ? name : "");
  if (call_id != NULL)
    json_object_set_string_member (object, "call_id", call_id);
  else
    json_object_set_null_member (object, "call_id");
  json_object_set_string_member (object, "arguments", arguments);
  agents_cli_print_json_line (object);
  fflush (stdout);
}

/* `{"type": "approval_decided", "tool", "call_id", "decision"}`, the
 * decision being "yes", "no" or "always" (asked, or remembered). */
static void
print_approval_decision_json (AgentsRunItem *item, char answer)
{
  g_autoptr (JsonObject) object = json_object_new ();
  const char *name = agents_run_item_get_tool_name (item);
  const char *call_id = agents_run_item_get_call_id (item);

  json_object_set_string_member (object, "type", "approval_decided");
  json_object_set_string_member (object, "tool", name ? name : "");
  if (call_id != NULL)
    json_object_set_string_member (object, "call_id", call_id);
  else
    json_object_set_null_member (object, "call_id");
  json_object_set_string_member (object, "decision",
                                 answer == 'y'   ? "yes"
                                 : answer == 'a' ? "always"
                                                 : "no");
  agents_cli_print_json_line (object);
  fflush (stdout);
}

/* The answer to an approval question: 'y', 'n' or 'a'; 'n' at the end
 * of input. */
static char
ask_approval (Chat *chat, AgentsRunItem *item)
{
  const char *name = agents_run_item_get_tool_name (item);
  g_autofree char *arguments = call_arguments (item);
  g_autofree char *call = g_strdup_printf ("%s %s", name, arguments);
  g_autofree char *shown = compact (call, COMPACT_WIDTH);
  g_autofree char *prompt = NULL;

  if (!chat->options.json)
    g_print (_ ("The agent wants to run: %s\n"), shown);
  prompt = g_strdup (_ ("Allow it? [y]es, [n]o, [a]lways: "));
  for (;;)
    {
      g_autofree char *answer = NULL;

      /* Asked again after an answer that is none of these. */
      if (chat->options.json)
        print_approval_request_json (item);
      answer = read_line (chat, prompt);

      if (answer == NULL)
        return 'n';
      g_strstrip (answer);
      if (g_ascii_strcasecmp (answer, "y") == 0 ||
          g_ascii_strcasecmp (answer, "yes") == 0)
        return 'y';
      if (g_ascii_strcasecmp (answer, "n") == 0 ||
          g_ascii_strcasecmp (answer, "no") == 0)
        return 'n';
      if (g_ascii_strcasecmp (answer, "a") == 0 ||
          g_ascii_strcasecmp (answer, "always") == 0)
        return 'a';
    }
}

/* Decides every pending call of @state: asked, or approved without a
 * question when the tool was approved "always" in this chat. */
static void
decide (Chat *chat, AgentsRunState *state)
{
  GListModel *pending = agents_run_state_get_interruptions (state);

  for (guint i = 0; i < g_list_model_get_n_items (pending); i++)
    {
      g_autoptr (AgentsRunItem) item = g_list_model_get_item (pending, i);
      const char *name = agents_run_item_get_tool_name (item);
      gboolean remembered =
        name != NULL && g_hash_table_contains (chat->always, name);
      char answer = remembered ? 'y' : ask_approval (chat, item);

      if (chat->options.json)
        print_approval_decision_json (item, remembered ? 'a' : answer);
      if (answer == 'a' && name != NULL)
        g_hash_table_add (chat->always, g_strdup (name));
      if (answer == 'n')
        agents_run_state_reject (state, item, FALSE);
      else
        agents_run_state_approve (state, item, answer == 'a');
    }
}

static guint
n_responses (AgentsRunResultStreaming *streaming)
{
  GListModel *responses =
    agents_run_result_streaming_get_raw_responses (streaming);

  return responses ? g_list_model_get_n_items (responses) : 0;
}

/* The input of a turn: the conversation so far, then @text. */
static JsonNode *
turn_input (Chat *chat, const char *text)
{
  JsonNode *input = json_node_new (JSON_NODE_ARRAY);
  JsonArray *items = json_array_new ();
  JsonObject *message = json_object_new ();

  for (guint i = 0; i < json_array_get_length (chat->history); i++)
    json_array_add_element (
      items, json_node_copy (json_array_get_element (chat->history, i)));
  json_object_set_string_member (message, "role", "user");
  json_object_set_string_member (message, "content", text);
  json_array_add_object_element (items, message);
  json_node_take_array (input, items);
  return input;
}

/* The run stopped for approvals: asks for them and resumes it. */
static void
resume_after_approvals (Chat *chat)
{
  g_autoptr (AgentsRunState) state =
    agents_run_result_streaming_to_state (chat->streaming);

  chat->model_turns += n_responses (chat->streaming);
  release_streaming (chat);
  decide (chat, state);
  chat->mode = MODE_TURN;
  chat->streaming = agents_runner_resume_streamed (chat->runner, chat->agent,
                                                   state, chat->config, NULL);
  /* A resumed run's responses start with those of the state. */
  chat->model_turns -= MIN (
    chat->model_turns,
    g_list_model_get_n_items (agents_run_state_get_model_responses (state)));
}

static gboolean
has_interruptions (AgentsRunResultStreaming *streaming)
{
  GListModel *pending =
    agents_run_result_streaming_get_interruptions (streaming);

  return pending != NULL && g_list_model_get_n_items (pending) > 0;
}

/* Runs one turn of the conversation: the user's @text, then the runs
 * its approvals resume, until the agent answers. A failed or cancelled
 * turn leaves the conversation as it was. */
static void
run_turn (Chat *chat, const char *text)
{
  g_autoptr (JsonNode) input = turn_input (chat, text);
  g_autoptr (GError) error = NULL;
  gulong handler;

  g_clear_object (&chat->turn_cancellable);
  chat->turn_cancellable = g_cancellable_new ();
  handler = g_cancellable_connect (chat->turn_cancellable,
                                   G_CALLBACK (on_turn_cancelled), chat, NULL);
  chat->mode = MODE_TURN;
  chat->streaming = agents_runner_run_streamed (
    chat->runner, chat->agent, input, chat->config, NULL, NULL);
  while (drain (chat, &error) && has_interruptions (chat->streaming))
    resume_after_approvals (chat);
  chat->mode = MODE_BUSY;
  /* The responses of a failed turn were used all the same. */
  chat->model_turns += n_responses (chat->streaming);
  if (error == NULL)
    {
      g_clear_pointer (&chat->history, json_array_unref);
      chat->history =
        agents_run_result_streaming_to_input_list (chat->streaming);
      if (chat->options.json)
        agents_cli_print_final_output_json (
          agents_run_result_streaming_get_current_agent (chat->streaming),
          agents_run_result_streaming_get_final_output (chat->streaming));
    }
  else if (g_cancellable_is_cancelled (chat->turn_cancellable))
    {
      g_printerr (_ ("agents: the turn was cancelled\n"));
      if (chat->options.json)
        print_simple_event_json ("turn_cancelled", NULL, NULL);
    }
  else
    {
      g_printerr (_ ("agents: the turn failed: %s\n"), error->message);
      if (chat->options.json)
        agents_cli_print_error_json (error);
    }
  g_cancellable_disconnect (chat->turn_cancellable, handler);
  release_streaming (chat);
}

/* ---- the sandbox -------------------------------------------------------- */

/* The session of the chat, created (or resumed from the state's
 * @payload) by a session manager of its own, as a run would: a saved
 * payload goes through the checks of a resumed run state (its backend,
 * its shape, its snapshot directory, its workspace root). Then injected
 * into the run config, so that the turns' runs use it and leave it
 * running. */
static gboolean
open_sandbox (Chat *chat, JsonObject *payload, GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (AgentsRunState) saved = NULL;

  if (!AGENTS_IS_SANDBOX_AGENT (chat->agent))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _ ("the agent “%s” is not a sandbox agent"),
                   agents_agent_get_name (chat->agent));
      return FALSE;
    }
  if (payload != NULL)
    {
      saved = agents_run_state_new (NULL, NULL, chat->agent);
      agents_run_state_set_sandbox (saved, payload);
    }
  chat->manager =
    agents_sandbox_session_manager_new (chat->agent, chat->sandbox, saved);
  if (!agents_sandbox_session_manager_acquire_agent (chat->manager, chat->agent,
                                                     error))
    return FALSE;
  agents_sandbox_session_manager_ensure_session_async (
    chat->manager, AGENTS_SANDBOX_AGENT (chat->agent), NULL, saved != NULL,
    NULL, on_ready, &result);
  chat->session = agents_sandbox_session_manager_ensure_session_finish (
    chat->manager, wait_for (&result), error);
  /* The turns' runs take the agent in their turn. */
  agents_sandbox_session_manager_release_agents (chat->manager);
  if (chat->session == NULL)
    return FALSE;
  agents_sandbox_run_config_set_session (chat->sandbox, chat->session);
  return TRUE;
}

/* Stops the sandbox, which persists its workspace; returns the run
 * state's `sandbox` payload that resumes it. */
static JsonObject *
close_sandbox (Chat *chat, GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  agents_sandbox_run_config_set_session (chat->sandbox, NULL);
  agents_sandbox_session_manager_cleanup_async (chat->manager, NULL, on_ready,
                                                &result);
  return agents_sandbox_session_manager_cleanup_finish (
    chat->manager, wait_for (&result), error);
}

/* ---- state files -------------------------------------------------------- */

static gboolean
save_chat (Chat *chat, JsonObject *sandbox, GError **error)
{
  g_autoptr (JsonObject) root = json_object_new ();
  g_autoptr (JsonNode) node = NULL;
  g_autofree char *text = NULL;
  g_autofree char *dir = g_path_get_dirname (chat->state_file);
  JsonArray *always = json_array_new ();
  GHashTableIter iter;
  const char *name;

  g_hash_table_iter_init (&iter, chat->always);
  while (g_hash_table_iter_next (&iter, (gpointer *) &name, NULL))
    json_array_add_string_element (always, name);
  json_object_set_string_member (root, "type", CHAT_STATE_TYPE);
  json_object_set_int_member (root, "version", CHAT_STATE_VERSION);
  json_object_set_int_member (root, "model_turns", chat->model_turns);
  json_object_set_array_member (root, "always_approved", always);
  json_object_set_array_member (root, "history",
                                json_array_ref (chat->history));
  json_object_set_object_member (root, "sandbox", json_object_ref (sandbox));
  node = json_node_init_object (json_node_alloc (), root);
  text = json_to_string (node, TRUE);
  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   "%s: %s", dir, g_strerror (saved_errno));
      return FALSE;
    }
  /* The conversation is its owner's only. */
  return g_file_set_contents_full (chat->state_file, text, -1,
                                   G_FILE_SET_CONTENTS_CONSISTENT, 0600, error);
}

static gboolean
bad_state (const char *path, const char *member, GError **error)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
               _ ("chat state %s: “%s” is missing or of the wrong type"), path,
               member);
  return FALSE;
}

/* Loads the saved chat @path; @payload gets its sandbox payload. */
static gboolean
load_chat (Chat *chat, const char *path, JsonObject **payload, GError **error)
{
  g_autoptr (JsonNode) root =
    agents_json_load_file (path, _ ("chat state"), error);
  JsonObject *object;
  JsonNode *member;
  const char *backend;
  gint64 turns;

  if (root == NULL)
    return FALSE;
  if (!JSON_NODE_HOLDS_OBJECT (root))
    return bad_state (path, "type", error);
  object = json_node_get_object (root);
  if (g_strcmp0 (string_member (object, "type"), CHAT_STATE_TYPE) != 0 ||
      json_object_get_int_member_with_default (object, "version", 0) !=
        CHAT_STATE_VERSION)
    return bad_state (path, "type", error);
  member = json_object_get_member (object, "history");
  if (member == NULL || !JSON_NODE_HOLDS_ARRAY (member))
    return bad_state (path, "history", error);
  chat->history = json_array_ref (json_node_get_array (member));
  member = json_object_get_member (object, "sandbox");
  if (member == NULL || !JSON_NODE_HOLDS_OBJECT (member))
    return bad_state (path, "sandbox", error);
  *payload = json_object_ref (json_node_get_object (member));
  turns = json_object_get_int_member_with_default (object, "model_turns", -1);
  if (turns < 0 || turns > G_MAXUINT)
    return bad_state (path, "model_turns", error);
  chat->model_turns = turns;
  member = json_object_get_member (object, "always_approved");
  if (member != NULL && JSON_NODE_HOLDS_ARRAY (member))
    {
      JsonArray *names = json_node_get_array (member);

      for (guint i = 0; i < json_array_get_length (names); i++)
        {
          JsonNode *name = json_array_get_element (names, i);

          if (JSON_NODE_HOLDS_VALUE (name) &&
              json_node_get_value_type (name) == G_TYPE_STRING)
            g_hash_table_add (chat->always,
                              g_strdup (json_node_get_string (name)));
        }
    }
  backend = string_member (*payload, "backend_id");
  if (backend == NULL)
    return bad_state (path, "sandbox.backend_id", error);
  if (chat->options.backend != NULL &&
      !g_str_equal (chat->options.backend, backend))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _ ("%s: the chat was saved with the “%s” sandbox backend, "
                      "not “%s”"),
                   path, backend, chat->options.backend);
      return FALSE;
    }
  g_free (chat->options.backend);
  chat->options.backend = g_strdup (backend);
  return TRUE;
}

static char *
default_state_file (void)
{
  g_autoptr (GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *stamp = g_date_time_format (now, "%Y%m%d-%H%M%S");
  g_autofree char *name = g_strdup_printf ("chat-%s-%d.json", stamp, getpid ());

  return g_build_filename (g_get_user_state_dir (), "agents-1.0", "chats", name,
                           NULL);
}

/* ---- the command -------------------------------------------------------- */

/* Reports @error on standard error after @prefix and, under --json, as
 * an error event; returns %FALSE. */
static gboolean
usage_error (Chat *chat, const char *prefix, const GError *error)
{
  g_printerr ("%s%s\n", prefix, error->message);
  if (chat->options.json)
    agents_cli_print_error_json (error);
  return FALSE;
}

static gboolean
parse_chat_options (Chat *chat, int *argc, char ***argv)
{
  const GOptionEntry entries[] = {
    { "resume", 'r', 0, G_OPTION_ARG_FILENAME, &chat->resume_file,
      N_ ("Continue the chat saved in FILE"), N_ ("FILE") },
    { "state", 's', 0, G_OPTION_ARG_FILENAME, &chat->state_file,
      N_ ("Save the chat to FILE when it ends (default: the --resume file, "
          "else a new file in $XDG_STATE_HOME/agents-1.0/chats)"),
      N_ ("FILE") },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context = g_option_context_new (_ ("AGENT.json"));
  g_autoptr (GError) error = NULL;
  gboolean json = agents_cli_wants_json (*argc, *argv);

  g_set_prgname ("agents chat");
  g_option_context_set_summary (
    context, _ ("Talks with an agent in a sandbox kept across turns. Type a "
                "message and Enter;\nCtrl-C cancels the turn under way, "
                "Ctrl-D (or /exit) ends the chat and saves it."));
  g_option_context_set_description (
    context, _ ("Tool calls that need an approval are asked about inline: "
                "y approves the call,\nn rejects it, a approves every call "
                "of that tool for the rest of the chat.\n\nWith --json, "
                "each line of output is a JSON event and each line of "
                "input\na message, or the answer (y, n, a) to an "
                "approval_requested event.\n\nExit status: 0 "
                "the chat ended and was saved, 1 it failed, 2 usage error."));
  agents_cli_add_run_entries (context, &chat->options, TRUE);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, argc, argv, &error) ||
      !agents_cli_parse_sandbox_options (&chat->options, &error))
    {
      /* A failed parse reverts what it set, --json included. */
      chat->options.json = json;
      return usage_error (chat, "agents chat: ", error);
    }
  if (chat->options.max_turns < 0)
    {
      error = g_error_new_literal (G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                                   _ ("--max-turns must be positive"));
      return usage_error (chat, "agents chat: ", error);
    }
  if (*argc != 2)
    {
      error = g_error_new_literal (
        G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
        _ ("Usage: agents chat AGENT.json [--resume FILE] [OPTION…]"));
      return usage_error (chat, "", error);
    }
  return TRUE;
}

/* Loads the agent, the saved chat if any, and opens the sandbox. */
static gboolean
set_up (Chat *chat, const char *agent_file, GError **error)
{
  g_autoptr (JsonObject) payload = NULL;
  GObject *sandbox;

  chat->always = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  chat->tool_names =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  chat->pending = g_string_new (NULL);
  chat->agent = agents_cli_load_agent_file (agent_file, error);
  if (chat->agent == NULL ||
      !agents_cli_override_model (chat->agent, chat->options.model,
                                  chat->options.base_url, error))
    return FALSE;
  if (chat->resume_file != NULL &&
      !load_chat (chat, chat->resume_file, &payload, error))
    return FALSE;
  if (chat->history == NULL)
    chat->history = json_array_new ();
  agents_cli_skip_scripted_turns (chat->agent, chat->model_turns);
  if (chat->state_file == NULL)
    chat->state_file =
      chat->resume_file ? g_strdup (chat->resume_file) : default_state_file ();
  chat->config =
    agents_cli_build_run_config (&chat->options, chat->options.backend, error);
  if (chat->config == NULL)
    return FALSE;
  agents_run_config_set_workflow_name (chat->config, "agents chat");
  sandbox = agents_run_config_get_sandbox (chat->config);
  chat->sandbox = AGENTS_SANDBOX_RUN_CONFIG (sandbox);
  chat->runner = agents_runner_new ();
  return open_sandbox (chat, payload, error);
}

/* `{"type": "chat_started", "agent", "state_file", "resumed"}`. */
static void
print_chat_started_json (Chat *chat)
{
  g_autoptr (JsonObject) object = json_object_new ();

  json_object_set_string_member (object, "type", "chat_started");
  json_object_set_string_member (object, "agent",
                                 agents_agent_get_name (chat->agent));
  json_object_set_string_member (object, "state_file", chat->state_file);
  json_object_set_boolean_member (object, "resumed", chat->resume_file != NULL);
  agents_cli_print_json_line (object);
  fflush (stdout);
}

/* Reads prompts and runs turns until the end of input or /exit. */
static void
converse (Chat *chat)
{
  for (;;)
    {
      g_autofree char *line = read_line (chat, "> ");

      if (line == NULL)
        return;
      g_strstrip (line);
      if (*line == '\0')
        continue;
      if (g_str_equal (line, "/exit") || g_str_equal (line, "/quit"))
        return;
      run_turn (chat, line);
    }
}

/* Closes the sandbox and saves the chat. */
static int
finish (Chat *chat)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonObject) payload = NULL;

  if (!chat->options.json)
    g_print ("%s\n", _ ("Saving the chat…"));
  payload = close_sandbox (chat, &error);
  agents_cli_end_progress_line ();
  if (payload == NULL)
    {
      if (error == NULL)
        g_set_error_literal (&error, G_IO_ERROR, G_IO_ERROR_FAILED, "?");
      g_printerr (_ ("agents chat: closing the sandbox failed: %s\n"),
                  error->message);
      if (chat->options.json)
        agents_cli_print_error_json (error);
      return AGENTS_CLI_EXIT_FAILED;
    }
  if (!save_chat (chat, payload, &error))
    {
      g_printerr (_ ("agents chat: cannot save the chat: %s\n"),
                  error->message);
      if (chat->options.json)
        agents_cli_print_error_json (error);
      agents_cli_release_payload_snapshots (payload);
      return AGENTS_CLI_EXIT_FAILED;
    }
  agents_cli_claim_payload_snapshots (payload, chat->state_file);
  if (chat->options.json)
    print_simple_event_json ("chat_saved", "state_file", chat->state_file);
  else
    g_print (_ ("The chat is saved in %s.\n"), chat->state_file);
  return AGENTS_CLI_EXIT_OK;
}

/**
 * agents_cli_chat:
 *
 * `agents chat AGENT.json [--resume FILE] [--state FILE] [--backend NAME]
 * [-o KEY=VALUE…] [--model PROVIDER:NAME] [--base-url URL]`
 */
int
agents_cli_chat (int argc, char **argv)
{
  g_auto (Chat) chat = { 0 };
  g_autoptr (GError) error = NULL;
  guint sigint, sigterm;
  g_autofree char *resume_hint = NULL;
  int status;

  if (!parse_chat_options (&chat, &argc, &argv))
    return AGENTS_CLI_EXIT_USAGE;
  /* Under --json, lines are read as they come, without an editor. */
  chat.use_readline = isatty (STDIN_FILENO) && !chat.options.json;
#ifdef HAVE_READLINE
  rl_catch_signals = 0;
  rl_readline_name = "agents";
#else
  chat.use_readline = FALSE;
#endif
  sigint = g_unix_signal_add (SIGINT, on_interrupt, &chat);
  sigterm = g_unix_signal_add (SIGTERM, on_terminate, &chat);
  if (!set_up (&chat, argv[1], &error))
    {
      g_printerr ("agents chat: %s\n", error->message);
      if (chat.options.json)
        agents_cli_print_error_json (error);
      status = AGENTS_CLI_EXIT_FAILED;
    }
  else
    {
      if (chat.options.json)
        print_chat_started_json (&chat);
      else
        g_print (_ ("Chatting with %s. Ctrl-C cancels a turn, Ctrl-D ends "
                    "the chat.\n"),
                 agents_agent_get_name (chat.agent));
      converse (&chat);
      status = finish (&chat);
      if (status == AGENTS_CLI_EXIT_OK && !chat.options.json)
        g_print (_ ("Continue it with: agents chat %s --resume %s\n"), argv[1],
                 chat.state_file);
    }
  g_source_remove (sigint);
  g_source_remove (sigterm);
  return status;
}
