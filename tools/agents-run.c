/* agents-run.c - `agents run` and `agents resume`
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Runs a sandbox agent described by an agent file (docs/agent-file.md),
 * streamed: each item is printed as the run produces it, as text or as
 * one JSON object per line. A run that stops for a tool approval is saved
 * to a state file and continued by `agents resume`.
 */

#include "config.h"

#include <glib-unix.h>
#include <inttypes.h>
#include <glib/gi18n.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents-agent-file.h"
#include "agents-cli.h"
#include "agents-file-private.h"
#include "agents-json-private.h"

typedef AgentsCliOptions Options;

/* ---- waiting on async calls ------------------------------------------ */

static void
on_ready (GObject *source, GAsyncResult *result, gpointer user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

/* Spins the default main context until the call whose callback is
 * on_ready with @slot as data completes. */
static GAsyncResult *
wait_for (GAsyncResult **slot)
{
  while (*slot == NULL)
    g_main_context_iteration (NULL, TRUE);
  return *slot;
}

/* ---- progress ----------------------------------------------------------- */

/* The operation whose progress line is on the terminal, if any. */
static char *progress_operation;

/* Ends the progress line on the terminal, so that what comes next starts
 * on a line of its own; the line stays as the last report left it. */
void
agents_cli_end_progress_line (void)
{
  if (progress_operation == NULL)
    return;
  g_printerr ("\n");
  g_clear_pointer (&progress_operation, g_free);
}

static void
print_progress_line (const char *operation, gint64 done, gint64 total)
{
  g_autofree char *done_text = g_format_size (done);
  g_autofree char *total_text = total >= 0 ? g_format_size (total) : NULL;
  const char *what = g_str_equal (operation, "persist")   ? _ ("saving")
                     : g_str_equal (operation, "hydrate") ? _ ("restoring")
                                                          : operation;

  if (progress_operation != NULL &&
      !g_str_equal (progress_operation, operation))
    agents_cli_end_progress_line ();
  if (progress_operation == NULL)
    progress_operation = g_strdup (operation);
  /* \r and erase-line: the line is rewritten in place. */
  g_printerr ("\r\033[K");
  if (g_str_equal (operation, "apply"))
    g_printerr (
      _ ("agents: preparing the workspace: %" PRId64 " of %" PRId64 " entries"),
      (int64_t) done, (int64_t) total);
  else if (total > 0)
    g_printerr (_ ("agents: %s the workspace: %s of %s (%d%%)"), what,
                done_text, total_text, (int) (done * 100 / total));
  else
    g_printerr (_ ("agents: %s the workspace: %s"), what, done_text);
}

static void
print_progress_json (const char *operation, gint64 done, gint64 total)
{
  /* The unit follows the operation (AgentsSandboxSession::progress). */
  gboolean entries = g_str_equal (operation, "apply");
  const char *done_member = entries ? "entries_done" : "bytes_done";
  const char *total_member = entries ? "entries_total" : "bytes_total";
  g_autoptr (JsonObject) object = json_object_new ();

  json_object_set_string_member (object, "type", "progress");
  json_object_set_string_member (object, "operation", operation);
  json_object_set_int_member (object, done_member, done);
  if (total >= 0)
    json_object_set_int_member (object, total_member, total);
  else
    json_object_set_null_member (object, total_member);
  agents_cli_print_json_line (object);
  fflush (stdout);
}

/* AgentsSandboxRunConfig::progress: an event under --json, else a line
 * on standard error when it is a terminal. */
static void
on_progress (AgentsSandboxRunConfig *config,
             AgentsSandboxSession *session,
             const char *operation,
             gint64 done,
             gint64 total,
             gpointer user_data)
{
  gboolean json = GPOINTER_TO_INT (user_data);

  if (json)
    print_progress_json (operation, done, total);
  /* A transfer's line starts with its first bytes: the start of a
   * persist comes before the run's last items are printed. */
  else if (isatty (STDERR_FILENO) &&
           (done > 0 || g_str_equal (operation, "apply")))
    print_progress_line (operation, done, total);
}

/* ---- printing events -------------------------------------------------- */

typedef struct
{
  gboolean json;
  GHashTable *tool_names; /* call id → tool name */
} Printer;

void
agents_cli_print_json_line (JsonObject *object)
{
  g_autoptr (JsonNode) node =
    json_node_init_object (json_node_alloc (), object);
  g_autofree char *text = json_to_string (node, FALSE);

  g_print ("%s\n", text);
}

/* Prints @text with every line indented, so that multi-line outputs stay
 * visibly attached to the event they belong to. */
static void
print_indented (const char *text)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  guint n = g_strv_length (lines);

  /* A final newline does not make an empty last line. */
  if (n > 1 && *lines[n - 1] == '\0')
    n--;
  for (guint i = 0; i < n; i++)
    g_print ("    %s\n", lines[i]);
}

static char *
node_to_text (JsonNode *node)
{
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return g_strdup ("");
  if (JSON_NODE_HOLDS_VALUE (node) &&
      json_node_get_value_type (node) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (node));
  return json_to_string (node, TRUE);
}

static const char *
agent_name (AgentsAgent *agent)
{
  return agent != NULL ? agents_agent_get_name (agent) : "";
}

static const char *
raw_string (AgentsRunItem *item, const char *member)
{
  JsonObject *raw = agents_run_item_get_raw_item (item);

  return raw ? json_object_get_string_member_with_default (raw, member, NULL)
             : NULL;
}

/* The arguments of a call as the model gave them: a function call's
 * `arguments`, a custom tool call's `input` (as a JSON string, on one
 * line), a local shell call's `action`. */
static char *
call_arguments (AgentsRunItem *item)
{
  JsonObject *raw = agents_run_item_get_raw_item (item);
  JsonNode *action = raw ? json_object_get_member (raw, "action") : NULL;
  JsonNode *input = raw ? json_object_get_member (raw, "input") : NULL;

  if (raw_string (item, "arguments") != NULL)
    return g_strdup (raw_string (item, "arguments"));
  if (input != NULL && raw_string (item, "input") != NULL)
    return json_to_string (input, FALSE);
  return action ? json_to_string (action, FALSE) : g_strdup ("");
}

static const char *
output_tool_name (Printer *printer, AgentsRunItem *item)
{
  const char *call_id = agents_run_item_get_call_id (item);
  const char *name =
    call_id ? g_hash_table_lookup (printer->tool_names, call_id) : NULL;

  if (name == NULL)
    name = agents_run_item_get_tool_name (item);
  return name ? name : call_id ? call_id : "?";
}

static void
print_item_text (Printer *printer, const char *event, AgentsRunItem *item)
{
  g_autofree char *text = NULL;
  g_autofree char *arguments = NULL;

  switch (agents_run_item_get_kind (item))
    {
    case AGENTS_RUN_ITEM_KIND_MESSAGE_OUTPUT:
      text = agents_run_item_get_text (item);
      g_print ("[assistant] %s\n", text ? text : "");
      break;
    case AGENTS_RUN_ITEM_KIND_TOOL_CALL:
      arguments = call_arguments (item);
      g_print ("[tool call] %s %s\n", agents_run_item_get_tool_name (item),
               arguments);
      break;
    case AGENTS_RUN_ITEM_KIND_TOOL_CALL_OUTPUT:
      text = node_to_text (agents_run_item_get_output (item));
      g_print ("[tool output] %s\n", output_tool_name (printer, item));
      print_indented (text);
      break;
    case AGENTS_RUN_ITEM_KIND_HANDOFF_CALL:
      g_print ("[handoff call] %s\n", agents_run_item_get_tool_name (item));
      break;
    case AGENTS_RUN_ITEM_KIND_HANDOFF_OUTPUT:
      g_print ("[handoff] %s -> %s\n",
               agent_name (agents_run_item_get_source_agent (item)),
               agent_name (agents_run_item_get_target_agent (item)));
      break;
    case AGENTS_RUN_ITEM_KIND_REASONING:
      g_print ("[reasoning]\n");
      break;
    case AGENTS_RUN_ITEM_KIND_TOOL_APPROVAL:
      arguments = call_arguments (item);
      g_print ("[approval needed] %s %s\n",
               agents_run_item_get_tool_name (item), arguments);
      break;
    default:
      g_print ("[%s]\n", event);
    }
}

static void
print_item_json (Printer *printer, const char *event, AgentsRunItem *item)
{
  g_autoptr (JsonObject) object = json_object_new ();
  JsonObject *raw = agents_run_item_get_raw_item (item);
  JsonNode *output = agents_run_item_get_output (item);

  json_object_set_string_member (object, "type", "run_item");
  json_object_set_string_member (object, "name", event);
  json_object_set_string_member (object, "agent",
                                 agent_name (agents_run_item_get_agent (item)));
  if (agents_run_item_get_kind (item) == AGENTS_RUN_ITEM_KIND_TOOL_CALL_OUTPUT)
    json_object_set_string_member (object, "tool",
                                   output_tool_name (printer, item));
  else if (agents_run_item_get_tool_name (item) != NULL)
    json_object_set_string_member (object, "tool",
                                   agents_run_item_get_tool_name (item));
  if (raw != NULL)
    json_object_set_object_member (object, "item", json_object_ref (raw));
  if (output != NULL)
    json_object_set_member (object, "output", json_node_copy (output));
  if (agents_run_item_get_kind (item) == AGENTS_RUN_ITEM_KIND_HANDOFF_OUTPUT)
    {
      json_object_set_string_member (
        object, "source", agent_name (agents_run_item_get_source_agent (item)));
      json_object_set_string_member (
        object, "target", agent_name (agents_run_item_get_target_agent (item)));
    }
  agents_cli_print_json_line (object);
}

static void
print_event (Printer *printer, AgentsStreamEvent *event)
{
  AgentsRunItem *item = agents_stream_event_get_item (event);
  const char *name = agents_stream_event_get_name (event);

  agents_cli_end_progress_line ();
  switch (agents_stream_event_get_kind (event))
    {
    case AGENTS_STREAM_EVENT_KIND_AGENT_UPDATED:
      if (printer->json)
        {
          g_autoptr (JsonObject) object = json_object_new ();

          json_object_set_string_member (object, "type", "agent_updated");
          json_object_set_string_member (
            object, "agent",
            agent_name (agents_stream_event_get_agent (event)));
          agents_cli_print_json_line (object);
        }
      else
        g_print ("[agent] %s\n",
                 agent_name (agents_stream_event_get_agent (event)));
      break;
    case AGENTS_STREAM_EVENT_KIND_RUN_ITEM:
      if (item == NULL)
        break;
      if (agents_run_item_get_kind (item) == AGENTS_RUN_ITEM_KIND_TOOL_CALL &&
          agents_run_item_get_call_id (item) != NULL)
        g_hash_table_replace (printer->tool_names,
                              g_strdup (agents_run_item_get_call_id (item)),
                              g_strdup (agents_run_item_get_tool_name (item)));
      if (printer->json)
        print_item_json (printer, name ? name : "", item);
      else
        print_item_text (printer, name ? name : "", item);
      break;
    case AGENTS_STREAM_EVENT_KIND_RAW_RESPONSE:
    default:
      /* Token deltas: the items above already carry their content. */
      break;
    }
  fflush (stdout);
}

static void
print_final_output (Printer *printer, AgentsAgent *agent, JsonNode *output)
{
  g_autofree char *text = NULL;

  agents_cli_end_progress_line ();
  if (printer->json)
    {
      g_autoptr (JsonObject) object = json_object_new ();

      json_object_set_string_member (object, "type", "final_output");
      json_object_set_string_member (object, "agent", agent_name (agent));
      json_object_set_member (object, "output",
                              output ? json_node_copy (output)
                                     : json_node_new (JSON_NODE_NULL));
      agents_cli_print_json_line (object);
      return;
    }
  text = node_to_text (output);
  g_print ("[final output]\n%s\n", text);
}

/* One stream event as `agents run --json` prints it; @tool_names maps
 * the call ids of a run's tool calls to their names (for its tool
 * outputs) and grows with the calls printed. */
void
agents_cli_print_event_json (GHashTable *tool_names, AgentsStreamEvent *event)
{
  Printer printer = { TRUE, tool_names };

  print_event (&printer, event);
}

/* `{"type": "final_output", "agent", "output"}`. */
void
agents_cli_print_final_output_json (AgentsAgent *agent, JsonNode *output)
{
  Printer printer = { TRUE, NULL };

  print_final_output (&printer, agent, output);
}

/* ---- errors ------------------------------------------------------------ */

/* The context dictionary @error carries, whichever library domain it is
 * of (empty for others). */
static JsonNode *
error_context_json (const GError *error)
{
  g_autoptr (GVariant) context = error->domain == AGENTS_RUN_ERROR
                                   ? agents_run_error_get_context (error)
                                   : agents_sandbox_error_get_context (error);

  return json_gvariant_serialize (context);
}

/* `{"type": "error", …}`: a failure as one more event of the stream, for
 * programs that read --json. Library messages are already redacted. */
void
agents_cli_print_error_json (const GError *error)
{
  g_autoptr (JsonObject) object = json_object_new ();

  json_object_set_string_member (object, "type", "error");
  json_object_set_string_member (object, "message", error->message);
  json_object_set_string_member (object, "domain",
                                 g_quark_to_string (error->domain));
  json_object_set_int_member (object, "code", error->code);
  json_object_set_member (object, "context", error_context_json (error));
  agents_cli_print_json_line (object);
  fflush (stdout);
}

/* Reports @error on standard error as "PREFIX: MESSAGE" and, under
 * --json, as an error event on standard output; returns @status. */
static int
report_error (const Options *options,
              const char *prefix,
              const GError *error,
              int status)
{
  agents_cli_end_progress_line ();
  g_printerr ("%s: %s\n", prefix, error->message);
  if (options->json)
    agents_cli_print_error_json (error);
  return status;
}

/* ---- interruptions and state files ------------------------------------- */

static gboolean
save_state (AgentsRunResultStreaming *streaming,
            const char *state_file,
            GError **error)
{
  g_autoptr (AgentsRunState) state =
    agents_run_result_streaming_to_state (streaming);
  g_autofree char *json = agents_run_state_to_json (state);

  /* The state holds the conversation: readable by its owner only. */
  return g_file_set_contents_full (state_file, json, -1,
                                   G_FILE_SET_CONTENTS_CONSISTENT, 0600, error);
}

static void
print_interruptions_json (GListModel *interruptions, const char *state_file)
{
  g_autoptr (JsonObject) object = json_object_new ();
  JsonArray *items = json_array_new ();

  for (guint i = 0; i < g_list_model_get_n_items (interruptions); i++)
    {
      g_autoptr (AgentsRunItem) item = g_list_model_get_item (interruptions, i);
      JsonObject *raw = agents_run_item_get_raw_item (item);

      if (raw != NULL)
        json_array_add_object_element (items, json_object_ref (raw));
    }
  json_object_set_string_member (object, "type", "interrupted");
  json_object_set_array_member (object, "interruptions", items);
  if (state_file != NULL)
    json_object_set_string_member (object, "state_file", state_file);
  agents_cli_print_json_line (object);
}

/* Whether the run's sandbox sessions closed cleanly, their workspaces
 * saved; says why when they did not. A state saved without them would
 * resume with an empty workspace. */
static gboolean
sandbox_saved (AgentsRunResultStreaming *streaming, const Options *options)
{
  const GError *error = agents_run_result_get_sandbox_error (
    agents_run_result_streaming_get_result (streaming));

  if (error == NULL)
    return TRUE;
  report_error (options, _ ("agents: closing the sandbox failed"), error,
                AGENTS_CLI_EXIT_FAILED);
  return FALSE;
}

/* " -o KEY=VALUE…" as given (a resume needs the same), shell-quoted. */
static char *
quoted_sandbox_options (const Options *options)
{
  g_autoptr (GString) text = g_string_new (NULL);

  for (guint i = 0;
       options->sandbox_options != NULL && options->sandbox_options[i] != NULL;
       i++)
    {
      g_autofree char *quoted = g_shell_quote (options->sandbox_options[i]);

      g_string_append_printf (text, " -o %s", quoted);
    }
  return g_string_free (g_steal_pointer (&text), FALSE);
}

/* The run stopped for approvals: saves it when a state file was given. */
static int
handle_interruptions (AgentsRunResultStreaming *streaming,
                      GListModel *interruptions,
                      const Options *options,
                      const char *agent_file)
{
  g_autoptr (GError) error = NULL;

  agents_cli_end_progress_line ();
  if (options->json)
    print_interruptions_json (interruptions, options->state_file);
  if (options->state_file == NULL)
    {
      g_set_error_literal (
        &error, G_IO_ERROR, G_IO_ERROR_FAILED,
        _ ("the run stopped for a tool approval; run it again with --state "
           "FILE to save it and resume it later"));
      agents_cli_release_snapshots (streaming);
      return report_error (options, "agents", error, AGENTS_CLI_EXIT_FAILED);
    }
  if (!sandbox_saved (streaming, options))
    {
      g_set_error (&error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   _ ("the run state was not saved to %s: its workspace "
                      "could not be saved"),
                   options->state_file);
      return report_error (options, "agents", error, AGENTS_CLI_EXIT_FAILED);
    }
  if (!save_state (streaming, options->state_file, &error))
    return report_error (options, _ ("agents: cannot save the run state"),
                         error, AGENTS_CLI_EXIT_FAILED);
  agents_cli_claim_snapshots (streaming, options->state_file);
  agents_cli_end_progress_line ();
  if (!options->json)
    {
      g_print (_ ("The run is waiting for approval; its state is saved in "
                  "%s.\n"),
               options->state_file);
      g_autofree char *sandbox_options = quoted_sandbox_options (options);

      g_print (_ ("Continue it with:\n  agents resume %s %s --approve%s   (or "
                  "--reject)\n"),
               agent_file, options->state_file, sandbox_options);
    }
  return AGENTS_CLI_EXIT_NEEDS_APPROVAL;
}

/* ---- running ---------------------------------------------------------- */

static gboolean interrupted;

/* A first Ctrl-C cancels the run (its sandbox is still cleaned up);
 * another one exits at once. */
static gboolean
on_interrupt (gpointer user_data)
{
  AgentsRunResultStreaming *streaming = user_data;

  if (interrupted)
    exit (130);
  interrupted = TRUE;
  g_printerr (_ ("agents: interrupted, stopping the run (again to quit at "
                 "once)\n"));
  agents_run_result_streaming_cancel (streaming, AGENTS_CANCEL_MODE_IMMEDIATE);
  return G_SOURCE_CONTINUE;
}

/* Pulls events until the stream ends, then waits for the run's own end
 * (sandbox cleanup included). */
static gboolean
drain_stream (AgentsRunResultStreaming *streaming,
              Printer *printer,
              GError **error)
{
  g_autoptr (GError) wait_error = NULL;
  g_autoptr (GAsyncResult) result = NULL;

  for (;;)
    {
      g_autoptr (AgentsStreamEvent) event = NULL;

      agents_run_result_streaming_next_event_async (streaming, NULL, on_ready,
                                                    &result);
      event = agents_run_result_streaming_next_event_finish (
        streaming, wait_for (&result), error);
      g_clear_object (&result);
      if (event == NULL)
        break;
      print_event (printer, event);
    }

  agents_run_result_streaming_wait_async (streaming, NULL, on_ready, &result);
  if (!agents_run_result_streaming_wait_finish (streaming, wait_for (&result),
                                                &wait_error) &&
      (error == NULL || *error == NULL))
    g_propagate_error (error, g_steal_pointer (&wait_error));
  return error == NULL || *error == NULL;
}

static void
remember_tool_names (GHashTable *tool_names, GListModel *items)
{
  guint n = items ? g_list_model_get_n_items (items) : 0;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr (AgentsRunItem) item = g_list_model_get_item (items, i);
      const char *call_id = agents_run_item_get_call_id (item);
      const char *name = agents_run_item_get_tool_name (item);

      if (call_id != NULL && name != NULL)
        g_hash_table_replace (tool_names, g_strdup (call_id), g_strdup (name));
    }
}

/* Streams the run; @state is the saved run a resumed one continues, whose
 * calls the outputs to come may answer. */
static int
stream_run (AgentsRunResultStreaming *streaming,
            AgentsRunState *state,
            const Options *options,
            const char *agent_file)
{
  Printer printer = { options->json, NULL };
  g_autoptr (GError) error = NULL;
  GListModel *interruptions;
  guint sigint, sigterm;
  gboolean ok;

  printer.tool_names =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  if (state != NULL)
    {
      remember_tool_names (printer.tool_names,
                           agents_run_state_get_generated_items (state));
      remember_tool_names (printer.tool_names,
                           agents_run_state_get_interruptions (state));
    }
  sigint = g_unix_signal_add (SIGINT, on_interrupt, streaming);
  sigterm = g_unix_signal_add (SIGTERM, on_interrupt, streaming);
  ok = drain_stream (streaming, &printer, &error);
  agents_cli_end_progress_line ();
  g_source_remove (sigint);
  g_source_remove (sigterm);
  g_hash_table_unref (printer.tool_names);

  if (!ok)
    {
      /* A resumed run's snapshot is still the saved state's. */
      if (state == NULL)
        agents_cli_release_snapshots (streaming);
      return report_error (options, _ ("agents: the run failed"), error,
                           AGENTS_CLI_EXIT_FAILED);
    }
  interruptions = agents_run_result_streaming_get_interruptions (streaming);
  if (interruptions != NULL && g_list_model_get_n_items (interruptions) > 0)
    return handle_interruptions (streaming, interruptions, options, agent_file);
  print_final_output (&printer,
                      agents_run_result_streaming_get_current_agent (streaming),
                      agents_run_result_streaming_get_final_output (streaming));
  /* Finished: nothing will resume it. */
  agents_cli_release_snapshots (streaming);
  return sandbox_saved (streaming, options) ? AGENTS_CLI_EXIT_OK
                                            : AGENTS_CLI_EXIT_FAILED;
}

static gboolean
on_release_timeout (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Drops the last reference the program holds on a streamed run. A
 * cancelled run cleans its sandbox up after its stream ended; the run
 * releases the streamed result when that is done, so this waits for it
 * (for a while) before the program exits. */
static int
release_run (AgentsRunResultStreaming *streaming, int status)
{
  gpointer weak = streaming;
  gboolean timed_out = FALSE;
  guint timeout;

  if (!interrupted)
    {
      g_object_unref (streaming);
      return status;
    }
  g_object_add_weak_pointer (weak, &weak);
  g_object_unref (streaming);
  timeout = g_timeout_add_seconds (60, on_release_timeout, &timed_out);
  while (weak != NULL && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  if (weak != NULL)
    g_object_remove_weak_pointer (weak, &weak);
  if (!timed_out)
    g_source_remove (timeout);
  return status;
}

/* The options given to the sandbox client: those of the command line;
 * without any, none for a backend that has defaults, and an empty
 * dictionary for one that has not, so that the backend itself says
 * which option is required. */
static GVariant *
client_options (AgentsSandboxClient *client, const Options *options)
{
  if (options->sandbox_variant != NULL)
    return g_variant_ref (options->sandbox_variant);
  if (agents_sandbox_client_supports_default_options (client))
    return NULL;
  return g_variant_ref_sink (g_variant_new ("a{sv}", NULL));
}

AgentsRunConfig *
agents_cli_build_run_config (const Options *options,
                             const char *backend,
                             GError **error)
{
  g_autoptr (AgentsSandboxClient) client = agents_registry_new_sandbox_client (
    backend ? backend : "unix_local", error);
  g_autoptr (AgentsSandboxRunConfig) sandbox = NULL;
  g_autoptr (AgentsRunConfig) config = NULL;
  g_autoptr (GVariant) sandbox_options = NULL;

  if (client == NULL)
    return NULL;
  if (options->allow_system_root &&
      g_object_class_find_property (G_OBJECT_GET_CLASS (client),
                                    "allow-system-root") != NULL)
    g_object_set (client, "allow-system-root", TRUE, NULL);
  sandbox = agents_sandbox_run_config_new ();
  g_signal_connect (sandbox, "progress", G_CALLBACK (on_progress),
                    GINT_TO_POINTER (options->json));
  agents_sandbox_run_config_set_client (sandbox,
                                        AGENTS_SANDBOX_CLIENT (client));
  sandbox_options = client_options (AGENTS_SANDBOX_CLIENT (client), options);
  if (sandbox_options != NULL)
    agents_sandbox_run_config_set_options (sandbox, sandbox_options);
  config = agents_run_config_new ();
  agents_run_config_set_sandbox (config, G_OBJECT (sandbox));
  agents_run_config_set_workflow_name (config, "agents run");
  if (options->max_turns > 0)
    agents_run_config_set_max_turns (config, options->max_turns);
  return g_steal_pointer (&config);
}

/* ---- sandbox options ---------------------------------------------------- */

/* [-+]DIGITS */
static gboolean
is_integer_literal (const char *text)
{
  if (*text == '-' || *text == '+')
    text++;
  if (*text == '\0')
    return FALSE;
  for (; *text != '\0'; text++)
    if (!g_ascii_isdigit (*text))
      return FALSE;
  return TRUE;
}

/* [-+]DIGITS.DIGITS */
static gboolean
is_decimal_literal (const char *text)
{
  g_autofree char *copy = g_strdup (text);
  char *point = strchr (copy, '.');

  if (point == NULL)
    return FALSE;
  *point = '\0';
  return is_integer_literal (copy) && g_ascii_isdigit (point[1]) &&
         is_integer_literal (point + 1);
}

/* A comma-separated list of integers, as an `ai`. */
static GVariant *
parse_int_list (const char *text)
{
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);
  g_auto (GVariantBuilder) builder =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("ai"));
  gint64 v;

  for (guint i = 0; parts[i] != NULL; i++)
    {
      g_strstrip (parts[i]);
      if (!is_integer_literal (parts[i]) ||
          !g_ascii_string_to_signed (parts[i], 10, G_MININT32, G_MAXINT32, &v,
                                     NULL))
        return NULL;
      g_variant_builder_add (&builder, "i", (gint32) v);
    }
  return g_variant_builder_end (&builder);
}

/* The value of one KEY=VALUE, typed by its look (docs/agent-file.md):
 * a key ending in "ports" takes a list of integers (`ai`); otherwise an
 * integer is an `x`, a decimal a `d`, true and false a `b`, anything
 * else a string. Returns a floating reference, or NULL when the value
 * does not fit. */
static GVariant *
parse_option_value (const char *key, const char *value)
{
  gint64 v;

  if (g_str_has_suffix (key, "ports"))
    return parse_int_list (value);
  if (is_integer_literal (value))
    return g_ascii_string_to_signed (value, 10, G_MININT64, G_MAXINT64, &v,
                                     NULL)
             ? g_variant_new_int64 (v)
             : NULL;
  if (is_decimal_literal (value))
    return g_variant_new_double (g_ascii_strtod (value, NULL));
  if (g_str_equal (value, "true") || g_str_equal (value, "false"))
    return g_variant_new_boolean (g_str_equal (value, "true"));
  return g_variant_new_string (value);
}

/* Builds the a{sv} of the --sandbox-option arguments; a later KEY
 * replaces an earlier one. */
gboolean
agents_cli_parse_sandbox_options (Options *options, GError **error)
{
  g_autoptr (GVariantDict) dict = NULL;

  if (options->sandbox_options == NULL)
    return TRUE;
  dict = g_variant_dict_new (NULL);
  for (guint i = 0; options->sandbox_options[i] != NULL; i++)
    {
      const char *arg = options->sandbox_options[i];
      const char *eq = strchr (arg, '=');
      g_autofree char *key = eq ? g_strndup (arg, eq - arg) : NULL;
      GVariant *value = key && *key ? parse_option_value (key, eq + 1) : NULL;

      if (value == NULL)
        {
          if (key == NULL || *key == '\0')
            g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                         _ ("--sandbox-option “%s”: expected KEY=VALUE with a "
                            "non-empty KEY"),
                         arg);
          else
            g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                         _ ("--sandbox-option “%s”: “%s” takes a "
                            "comma-separated list of integers"),
                         arg, key);
          return FALSE;
        }
      g_variant_dict_insert_value (dict, key, value);
    }
  options->sandbox_variant = g_variant_ref_sink (g_variant_dict_end (dict));
  return TRUE;
}

/* ---- command lines ------------------------------------------------------ */

static gboolean
check_options (Options *options, GError **error)
{
  if (options->max_turns < 0)
    {
      g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           _ ("--max-turns must be positive"));
      return FALSE;
    }
  if (options->approve && options->reject)
    {
      g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           _ ("--approve and --reject exclude each other"));
      return FALSE;
    }
  return agents_cli_parse_sandbox_options (options, error);
}

/* A usage error found once the options are known: under --json it is an
 * event too. */
static int
report_usage_error (const char *command,
                    const Options *options,
                    const GError *error)
{
  g_autofree char *prefix = g_strdup_printf ("agents %s", command);

  return report_error (options, prefix, error, AGENTS_CLI_EXIT_USAGE);
}

/* The wrong number of arguments, reported as a usage error. */
static int
report_usage (const Options *options, const char *usage)
{
  g_autoptr (GError) error =
    g_error_new_literal (G_OPTION_ERROR, G_OPTION_ERROR_FAILED, usage);

  g_printerr ("%s\n", usage);
  if (options->json)
    agents_cli_print_error_json (error);
  return AGENTS_CLI_EXIT_USAGE;
}

/* Whether the command line asks for --json, before it is parsed: an
 * option the parser refuses is then reported as an event too. */
gboolean
agents_cli_wants_json (int argc, char **argv)
{
  for (int i = 1; i < argc && !g_str_equal (argv[i], "--"); i++)
    if (g_str_equal (argv[i], "--json") || g_str_equal (argv[i], "-j"))
      return TRUE;
  return FALSE;
}

/* The options `run`, `resume` and `chat` share; --json with @json. */
void
agents_cli_add_run_entries (GOptionContext *context,
                            Options *options,
                            gboolean json)
{
  const GOptionEntry common[] = {
    { "backend", 'b', 0, G_OPTION_ARG_STRING, &options->backend,
      N_ ("The sandbox backend (default: unix_local; for resume, the "
          "saved run's)"),
      N_ ("NAME") },
    { "sandbox-option", 'o', 0, G_OPTION_ARG_STRING_ARRAY,
      &options->sandbox_options,
      N_ ("Give the sandbox backend an option, e.g. image=IMAGE (repeatable)"),
      N_ ("KEY=VALUE") },
    { "max-turns", 0, 0, G_OPTION_ARG_INT, &options->max_turns,
      N_ ("Stop after N model turns (default: 10)"), N_ ("N") },
    { "allow-system-root", 0, 0, G_OPTION_ARG_NONE, &options->allow_system_root,
      N_ ("Let the workspace root be a system directory (/, /etc, /usr, "
          "$HOME…): it becomes read-write (unix_local)"),
      NULL },
    { "model", 'm', 0, G_OPTION_ARG_STRING, &options->model,
      N_ ("Use this model for every agent, e.g. openai:gpt-4.1 or "
          "chat:llama3.2"),
      N_ ("PROVIDER:NAME") },
    { "base-url", 0, 0, G_OPTION_ARG_STRING, &options->base_url,
      N_ ("The model server's base URL (default: $OPENAI_BASE_URL, else "
          "OpenAI's)"),
      N_ ("URL") },
    G_OPTION_ENTRY_NULL
  };
  const GOptionEntry json_entries[] = {
    { "json", 'j', 0, G_OPTION_ARG_NONE, &options->json,
      N_ ("Print one JSON object per event line"), NULL },
    G_OPTION_ENTRY_NULL
  };

  g_option_context_add_main_entries (context, common, GETTEXT_PACKAGE);
  if (json)
    g_option_context_add_main_entries (context, json_entries, GETTEXT_PACKAGE);
}

static gboolean
parse_options (const char *command,
               const char *parameters,
               gboolean resume,
               int *argc,
               char ***argv,
               Options *options)
{
  const GOptionEntry run_only[] = {
    { "state", 's', 0, G_OPTION_ARG_FILENAME, &options->state_file,
      N_ ("Save the run state to FILE when it stops for an approval"),
      N_ ("FILE") },
    G_OPTION_ENTRY_NULL
  };
  const GOptionEntry resume_only[] = {
    { "approve", 0, 0, G_OPTION_ARG_NONE, &options->approve,
      N_ ("Approve the pending tool calls"), NULL },
    { "reject", 0, 0, G_OPTION_ARG_NONE, &options->reject,
      N_ ("Reject the pending tool calls"), NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context = g_option_context_new (parameters);
  g_autoptr (GError) error = NULL;
  g_autofree char *prgname = g_strdup_printf ("agents %s", command);
  gboolean json;

  g_set_prgname (prgname);
  g_option_context_set_description (
    context,
    _ ("Sandbox options (-o KEY=VALUE) are typed by their look: an integer "
       "is an int64,\na decimal (1.5) a double, true and false booleans, "
       "anything else a string;\na KEY ending in “ports” takes a "
       "comma-separated list of integers (ai).\nThe docker backend: "
       "-o image=IMAGE (required), network=none|bridge|NAME,\n"
       "exposed_ports=8080,8443, memory=BYTES (default 2 GiB), cpus=1.5, "
       "pids_limit=N (default 1024),\nread_only_root=true, "
       "host=URL (tcp://HOST:2376 or unix:///PATH; default $DOCKER_HOST);\n"
       "network=host only with allow_host_network=true. Resume with the "
       "same options:\na saved state that differs from them is refused.\n\n"
       "Exit status: 0 the run finished, 1 it failed, 2 usage error, 3 it "
       "stopped\nfor an approval and was saved (continue it with agents "
       "resume)."));
  agents_cli_add_run_entries (context, options, TRUE);
  g_option_context_add_main_entries (context, resume ? resume_only : run_only,
                                     GETTEXT_PACKAGE);
  json = agents_cli_wants_json (*argc, *argv);
  if (!g_option_context_parse (context, argc, argv, &error))
    {
      /* A failed parse reverts what it set, --json included. */
      options->json = json;
      report_usage_error (command, options, error);
      return FALSE;
    }
  if (!check_options (options, &error))
    {
      report_usage_error (command, options, error);
      return FALSE;
    }
  return TRUE;
}

/**
 * agents_cli_run:
 *
 * `agents run AGENT.json PROMPT [--backend NAME] [-o KEY=VALUE…] [--json]
 * [--state FILE] [--max-turns N]`
 */
int
agents_cli_run (int argc, char **argv)
{
  g_auto (AgentsCliOptions) options = { 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsAgent) agent = NULL;
  g_autoptr (AgentsRunConfig) config = NULL;
  g_autoptr (AgentsRunner) runner = NULL;
  AgentsRunResultStreaming *streaming;
  g_autoptr (JsonNode) input = NULL;
  int status;

  if (!parse_options ("run", _ ("AGENT.json PROMPT"), FALSE, &argc, &argv,
                      &options))
    return AGENTS_CLI_EXIT_USAGE;
  if (argc != 3)
    return report_usage (&options,
                         _ ("Usage: agents run AGENT.json PROMPT [OPTION…]"));

  agent = agents_cli_load_agent_file (argv[1], &error);
  if (agent != NULL && !agents_cli_override_model (agent, options.model,
                                                   options.base_url, &error))
    g_clear_object (&agent);
  if (agent != NULL)
    config = agents_cli_build_run_config (&options, options.backend, &error);
  if (config == NULL)
    return report_error (&options, "agents", error, AGENTS_CLI_EXIT_FAILED);

  input = json_node_init_string (json_node_alloc (), argv[2]);
  runner = agents_runner_new ();
  streaming =
    agents_runner_run_streamed (runner, agent, input, config, NULL, NULL);
  status =
    release_run (streaming, stream_run (streaming, NULL, &options, argv[1]));
  agents_cli_release_models (agent, 0);
  return status;
}

static AgentsRunState *
load_state (AgentsAgent *agent, const char *path, GError **error)
{
  g_autofree char *json = NULL;
  g_autoptr (GError) local_error = NULL;
  AgentsRunState *state;

  /* A regular file only (a FIFO would block); no larger than a JSON
   * document may be. */
  if (!agents_file_read_regular (path, AGENTS_JSON_MAX_SIZE, &json, NULL,
                                 error))
    return NULL;
  state = agents_run_state_new_from_json (agent, json, &local_error);
  if (state == NULL)
    g_set_error (error, local_error->domain, local_error->code, "%s: %s", path,
                 local_error->message);
  return state;
}

/* Approves or rejects every pending call; with neither option given,
 * pending calls are an error that says what is pending. */
static gboolean
decide_interruptions (AgentsRunState *state,
                      const Options *options,
                      GError **error)
{
  GListModel *pending = agents_run_state_get_interruptions (state);
  guint n = pending ? g_list_model_get_n_items (pending) : 0;

  if (n > 0 && !options->approve && !options->reject)
    {
      g_autoptr (AgentsRunItem) first = g_list_model_get_item (pending, 0);

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   _ ("the run waits for an approval of “%s”: pass --approve "
                      "or --reject"),
                   agents_run_item_get_tool_name (first));
      return FALSE;
    }
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (AgentsRunItem) item = g_list_model_get_item (pending, i);

      if (options->approve)
        agents_run_state_approve (state, item, FALSE);
      else
        agents_run_state_reject (state, item, FALSE);
    }
  return TRUE;
}

/* The backend a resumed run uses: the one its sandbox sessions were
 * saved by. --backend may repeat it but not name another. */
static gboolean
resume_backend (AgentsRunState *state,
                const char *path,
                const Options *options,
                const char **backend,
                GError **error)
{
  JsonObject *sandbox = agents_run_state_get_sandbox (state);
  const char *saved =
    sandbox
      ? json_object_get_string_member_with_default (sandbox, "backend_id", NULL)
      : NULL;

  *backend = options->backend ? options->backend : saved;
  if (options->backend == NULL || saved == NULL ||
      g_str_equal (options->backend, saved))
    return TRUE;
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
               _ ("%s: the run was saved with the “%s” sandbox backend, not "
                  "“%s”: leave --backend out or pass --backend %s"),
               path, saved, options->backend, saved);
  return FALSE;
}

/**
 * agents_cli_resume:
 *
 * `agents resume AGENT.json STATE_FILE [--approve|--reject] [--backend
 * NAME] [-o KEY=VALUE…] [--json] [--max-turns N]`; the backend is the
 * saved run's unless --backend names it; a new interruption is saved to
 * STATE_FILE again.
 */
int
agents_cli_resume (int argc, char **argv)
{
  g_auto (AgentsCliOptions) options = { 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsAgent) agent = NULL;
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (AgentsRunConfig) config = NULL;
  g_autoptr (AgentsRunner) runner = NULL;
  const char *backend = NULL;
  AgentsRunResultStreaming *streaming;
  int status;

  if (!parse_options ("resume", _ ("AGENT.json STATE_FILE"), TRUE, &argc, &argv,
                      &options))
    return AGENTS_CLI_EXIT_USAGE;
  if (argc != 3)
    return report_usage (&options,
                         _ ("Usage: agents resume AGENT.json STATE_FILE "
                            "[--approve|--reject] [OPTION…]"));

  options.state_file = g_strdup (argv[2]);
  agent = agents_cli_load_agent_file (argv[1], &error);
  if (agent != NULL && !agents_cli_override_model (agent, options.model,
                                                   options.base_url, &error))
    g_clear_object (&agent);
  if (agent != NULL)
    state = load_state (agent, argv[2], &error);
  if (state != NULL && decide_interruptions (state, &options, &error) &&
      resume_backend (state, argv[2], &options, &backend, &error))
    config = agents_cli_build_run_config (&options, backend, &error);
  if (config != NULL)
    agents_cli_skip_scripted_turns (
      agent,
      g_list_model_get_n_items (agents_run_state_get_model_responses (state)));
  if (config == NULL)
    return report_error (&options, "agents", error, AGENTS_CLI_EXIT_FAILED);

  runner = agents_runner_new ();
  streaming =
    agents_runner_resume_streamed (runner, agent, state, config, NULL);
  status =
    release_run (streaming, stream_run (streaming, state, &options, argv[1]));
  agents_cli_release_models (agent, 0);
  return status;
}

/* ---- reap ------------------------------------------------------------- */

static gboolean
parse_reap_options (int *argc, char ***argv, Options *options)
{
  const GOptionEntry entries[] = {
    { "backend", 'b', 0, G_OPTION_ARG_STRING, &options->backend,
      N_ ("The sandbox backend (required), e.g. docker"), N_ ("NAME") },
    { "sandbox-option", 'o', 0, G_OPTION_ARG_STRING_ARRAY,
      &options->sandbox_options,
      N_ ("Where to look, e.g. host=tcp://HOST:2376 (repeatable)"),
      N_ ("KEY=VALUE") },
    { "all", 0, 0, G_OPTION_ARG_NONE, &options->reap_all,
      N_ ("Remove everything the backend made, even for running programs"),
      NULL },
    { "json", 'j', 0, G_OPTION_ARG_NONE, &options->json,
      N_ ("Print the result (or the error) as one JSON object"), NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context = g_option_context_new (NULL);
  g_autoptr (GError) error = NULL;
  gboolean json = agents_cli_wants_json (*argc, *argv);

  g_set_prgname ("agents reap");
  g_option_context_set_summary (
    context, _ ("Removes what sandboxes of programs that are gone left "
                "behind:\nfor the docker backend, the containers labelled "
                "org.gnome.agents.managed\nwhose owner process ended."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, argc, argv, &error))
    {
      options->json = json;
      report_usage_error ("reap", options, error);
      return FALSE;
    }
  if (*argc != 1 || options->backend == NULL)
    {
      report_usage (options, _ ("Usage: agents reap --backend NAME [--all] "
                                "[-o KEY=VALUE…] [--json]"));
      return FALSE;
    }
  if (!agents_cli_parse_sandbox_options (options, &error))
    {
      report_usage_error ("reap", options, error);
      return FALSE;
    }
  return TRUE;
}

/**
 * agents_cli_reap:
 *
 * `agents reap --backend NAME [--all] [-o KEY=VALUE…] [--json]`; under
 * --json the result is `{"type": "reap", "backend": NAME, "all": BOOL,
 * "removed": N}`, an error `{"type": "error", …}`.
 */
int
agents_cli_reap (int argc, char **argv)
{
  g_auto (AgentsCliOptions) options = { 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsSandboxClient) client = NULL;
  g_autoptr (GAsyncResult) result = NULL;
  gssize removed;

  if (!parse_reap_options (&argc, &argv, &options))
    return AGENTS_CLI_EXIT_USAGE;
  client = agents_registry_new_sandbox_client (options.backend, &error);
  if (client == NULL)
    return report_error (&options, "agents reap", error,
                         AGENTS_CLI_EXIT_FAILED);
  agents_sandbox_client_reap_async (AGENTS_SANDBOX_CLIENT (client),
                                    options.sandbox_variant, options.reap_all,
                                    NULL, on_ready, &result);
  removed = agents_sandbox_client_reap_finish (AGENTS_SANDBOX_CLIENT (client),
                                               wait_for (&result), &error);
  if (removed < 0)
    return report_error (&options, "agents reap", error,
                         AGENTS_CLI_EXIT_FAILED);
  if (options.json)
    {
      g_autoptr (JsonObject) object = json_object_new ();

      json_object_set_string_member (object, "type", "reap");
      json_object_set_string_member (object, "backend", options.backend);
      json_object_set_boolean_member (object, "all", options.reap_all);
      json_object_set_int_member (object, "removed", removed);
      agents_cli_print_json_line (object);
      return AGENTS_CLI_EXIT_OK;
    }
  g_print (g_dngettext (GETTEXT_PACKAGE, "Removed %zd leftover sandbox\n",
                        "Removed %zd leftover sandboxes\n", removed),
           (ssize_t) removed);
  return AGENTS_CLI_EXIT_OK;
}
