/* agents-shell-tools.c - exec_command
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The reference's shell tools (wave2-reference §1): on a session with
 * processes (agents_sandbox_session_supports_pty()) `exec_command` starts
 * the command in the session's process table and returns after the
 * yield time with the output so far and, while it runs, the id that
 * `write_stdin` takes; elsewhere it runs one-shot and `yield_time_ms` is
 * its kill timeout. Schemas and output text are wire format, kept
 * exactly; descriptions and instructions are our own. Outputs and errors
 * are read by the model, so they are not translated.
 */

#include "config.h"

#include <string.h>

#include "agents-capability-private.h"
#include "agents-manifest-private.h"
#include "agents-pty-rules-private.h"
#include "agents-sandbox-error.h"
#include "agents-sandbox-process.h"
#include "agents-sandbox-session.h"
#include "agents-shell-format-private.h"
#include "agents-json-private.h"
#include "agents-shell-tools-private.h"
#include "agents-token-truncation-private.h"

const char agents_shell_instructions[] =
  "Shell use:\n"
  "- Run commands with `exec_command`.\n"
  "- When `write_stdin` is offered, use it to type into a command that is "
  "still running, or to poll it with empty input.\n"
  "- A command you may need to interrupt must be started with `tty=true`; "
  "interrupt it by writing Ctrl-C (`\\u0003`) with `write_stdin`.\n"
  "- To find text or files, prefer `rg` and `rg --files` where they "
  "exist.\n"
  "- Do not write Python scripts only to print large parts of files.";

/* The reference's ExecCommandArgs schema, byte for byte. */
static const char exec_command_schema[] =
  "{\"properties\": {"
  "\"cmd\": {\"description\": \"Shell command to execute.\", \"minLength\": "
  "1, \"title\": \"Cmd\", \"type\": \"string\"}, "
  "\"workdir\": {\"anyOf\": [{\"type\": \"string\"}, {\"type\": \"null\"}], "
  "\"default\": null, \"description\": \"Optional working directory to run "
  "the command in; defaults to the turn cwd.\", \"title\": \"Workdir\"}, "
  "\"shell\": {\"anyOf\": [{\"type\": \"string\"}, {\"type\": \"null\"}], "
  "\"default\": null, \"description\": \"Shell binary to launch. Defaults to "
  "the user's default shell.\", \"title\": \"Shell\"}, "
  "\"login\": {\"default\": true, \"description\": \"Whether to run the "
  "shell with -l/-i semantics. Defaults to true.\", \"title\": \"Login\", "
  "\"type\": \"boolean\"}, "
  "\"tty\": {\"default\": false, \"description\": \"Whether to allocate a "
  "TTY for the command. Defaults to false (plain pipes); set to true to "
  "open a PTY and access TTY process.\", \"title\": \"Tty\", \"type\": "
  "\"boolean\"}, "
  "\"yield_time_ms\": {\"default\": 10000, \"description\": \"How long to "
  "wait (in milliseconds) for output before yielding.\", \"minimum\": 0, "
  "\"title\": \"Yield Time Ms\", \"type\": \"integer\"}, "
  "\"max_output_tokens\": {\"anyOf\": [{\"minimum\": 1, \"type\": "
  "\"integer\"}, {\"type\": \"null\"}], \"default\": null, \"description\": "
  "\"Maximum number of tokens to return. Excess output will be "
  "truncated.\", \"title\": \"Max Output Tokens\"}}, "
  "\"required\": [\"cmd\"], \"title\": \"ExecCommandArgs\", \"type\": "
  "\"object\"}";

/* The longest kill timeout handed to the session (24 days): backends
 * keep timeouts in 32-bit milliseconds. */
#define MAX_KILL_TIMEOUT (G_MAXINT32 / 1000.0)

static char *test_chunk_id;
static AgentsShellClockFunc test_clock;

void
agents_shell_set_test_hooks (const char *chunk_id, AgentsShellClockFunc clock)
{
  g_free (test_chunk_id);
  test_chunk_id = g_strdup (chunk_id);
  test_clock = clock;
}

static double
clock_seconds (void)
{
  return test_clock ? test_clock () : g_get_monotonic_time () / 1e6;
}

static char *
new_chunk_id (void)
{
  return test_chunk_id ? g_strdup (test_chunk_id)
                       : agents_shell_new_chunk_id ();
}

/* ---- arguments ---------------------------------------------------------- */

void
agents_exec_args_free (AgentsExecArgs *args)
{
  g_free (args->cmd);
  g_free (args->workdir);
  g_free (args->shell);
  g_free (args);
}

/* The tool whose arguments are being read, for the error text. */
typedef struct
{
  const char *tool;
  JsonObject *object;
} Arguments;

static gboolean
bad_argument (GError **error,
              const Arguments *args,
              const char *name,
              const char *expected)
{
  g_set_error (error, AGENTS_SANDBOX_ERROR,
               AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
               "%s argument `%s` must be %s", args->tool, name, expected);
  return FALSE;
}

static GType
value_type (JsonNode *node)
{
  return JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node)
                                      : G_TYPE_INVALID;
}

/* A string, or NULL when absent or null. */
static gboolean
get_optional_string (const Arguments *args,
                     const char *name,
                     char **value,
                     GError **error)
{
  JsonNode *node = json_object_get_member (args->object, name);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (value_type (node) != G_TYPE_STRING)
    return bad_argument (error, args, name, "a string or null");
  *value = g_strdup (json_node_get_string (node));
  return TRUE;
}

static gboolean
get_boolean (const Arguments *args,
             const char *name,
             gboolean *value,
             GError **error)
{
  JsonNode *node = json_object_get_member (args->object, name);

  if (node == NULL)
    return TRUE;
  if (value_type (node) != G_TYPE_BOOLEAN)
    return bad_argument (error, args, name, "a boolean");
  *value = json_node_get_boolean (node);
  return TRUE;
}

/* An integer of at least @minimum (a number with no fraction counts, as
 * pydantic accepts 10.0); null only when @nullable, leaving @value. */
static gboolean
get_integer (const Arguments *args,
             const char *name,
             gint64 minimum,
             gboolean nullable,
             const char *expected,
             gint64 *value,
             GError **error)
{
  JsonNode *node = json_object_get_member (args->object, name);
  double number;

  if (node == NULL || (nullable && JSON_NODE_HOLDS_NULL (node)))
    return TRUE;
  if (value_type (node) == G_TYPE_INT64)
    number = json_node_get_int (node);
  else if (value_type (node) == G_TYPE_DOUBLE)
    number = json_node_get_double (node);
  else
    return bad_argument (error, args, name, expected);
  if (!(number >= minimum && number <= AGENTS_SHELL_MAX_INTEGER_ARGUMENT) ||
      number != (double) (gint64) number)
    return bad_argument (error, args, name, expected);
  *value = (gint64) number;
  return TRUE;
}

/* @tool's @arguments as a node holding an object; a document the bounded
 * parser refuses is an error that says why (the model reads it). */
static JsonNode *
parse_object_node (const char *tool, const char *arguments, GError **error)
{
  g_autofree char *document = g_strdup_printf ("%s arguments", tool);
  g_autoptr (GError) parse_error = NULL;
  g_autoptr (JsonNode) node =
    agents_json_parse_bounded (arguments, -1, document, &parse_error);

  if (node == NULL)
    {
      g_set_error_literal (error, AGENTS_SANDBOX_ERROR,
                           AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                           parse_error->message);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, AGENTS_SANDBOX_ERROR,
                   AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "%s must be a JSON object", document);
      return NULL;
    }
  return g_steal_pointer (&node);
}

AgentsExecArgs *
agents_exec_args_parse (const char *arguments, GError **error)
{
  g_autoptr (JsonNode) node = NULL;
  g_autoptr (AgentsExecArgs) args = g_new0 (AgentsExecArgs, 1);
  Arguments reader = { "exec_command", NULL };
  JsonObject *object;
  JsonNode *cmd;

  args->login = TRUE;
  args->yield_time_ms = 10000;
  args->max_output_tokens = -1;
  if ((node = parse_object_node ("exec_command", arguments, error)) == NULL)
    return NULL;
  object = json_node_get_object (node);
  reader.object = object;
  cmd = json_object_get_member (object, "cmd");
  if (cmd == NULL || value_type (cmd) != G_TYPE_STRING ||
      json_node_get_string (cmd)[0] == '\0')
    {
      bad_argument (error, &reader, "cmd", "a non-empty string");
      return NULL;
    }
  args->cmd = g_strdup (json_node_get_string (cmd));
  if (!get_optional_string (&reader, "workdir", &args->workdir, error) ||
      !get_optional_string (&reader, "shell", &args->shell, error) ||
      !get_boolean (&reader, "login", &args->login, error) ||
      !get_boolean (&reader, "tty", &args->tty, error) ||
      !get_integer (&reader, "yield_time_ms", 0, FALSE, "an integer >= 0",
                    &args->yield_time_ms, error) ||
      !get_integer (&reader, "max_output_tokens", 1, TRUE, "a positive integer",
                    &args->max_output_tokens, error))
    return NULL;
  if (args->shell != NULL && args->shell[0] == '\0')
    {
      bad_argument (error, &reader, "shell", "a non-empty string or null");
      return NULL;
    }
  return g_steal_pointer (&args);
}

/* ---- the command -------------------------------------------------------- */

static gboolean
is_blank (const char *text)
{
  if (text == NULL)
    return TRUE;
  while (g_ascii_isspace (*text))
    text++;
  return *text == '\0';
}

/* The script with the working directory the model asked for, anchored
 * at the run's working directory (the workspace root without one) and
 * checked by the manifest's path policy (grants allowed, escapes
 * refused). With neither a workdir nor a run cwd, the script is the
 * command itself. */
static char *
script_in_workdir (AgentsSandboxSession *session,
                   const AgentsToolBinding *binding,
                   const AgentsExecArgs *args,
                   GError **error)
{
  g_autofree char *anchored = NULL;
  g_autofree char *resolved = NULL;
  g_autofree char *quoted = NULL;

  if (is_blank (args->workdir) && binding->cwd == NULL)
    return g_strdup (args->cmd);
  anchored = agents_tool_binding_anchor (
    binding, is_blank (args->workdir) ? "." : args->workdir);
  resolved = agents_manifest_resolve_path (
    agents_sandbox_session_get_manifest (session), anchored, error);
  if (resolved == NULL)
    return NULL;
  quoted = g_shell_quote (resolved);
  return g_strdup_printf ("cd %s && %s", quoted, args->cmd);
}

typedef struct
{
  double started;
  double timeout;
  gint64 max_output_tokens;
  const char *notice; /* put before the output, or NULL */
  char *script;
  char **command;
  gboolean session_shell;
  char *user;
} ExecCall;

static void
exec_call_free (ExecCall *call)
{
  g_free (call->script);
  g_strfreev (call->command);
  g_free (call->user);
  g_free (call);
}

/* The output the model reads: token-truncated as it asked, else cut at
 * the byte backstop. */
static char *
truncate_output (const char *output, gint64 max_tokens, gint64 *original)
{
  gsize length = strlen (output);

  *original = -1;
  if (max_tokens < 0 && length <= AGENTS_EXEC_COMMAND_MAX_OUTPUT_BYTES)
    return g_strdup (output);
  if (max_tokens < 0)
    max_tokens =
      AGENTS_EXEC_COMMAND_MAX_OUTPUT_BYTES / AGENTS_APPROX_BYTES_PER_TOKEN;
  return agents_truncate_to_tokens (output, length, max_tokens, original);
}

static char *
with_notice (ExecCall *call, const char *output)
{
  if (call->notice == NULL)
    return g_strdup (output);
  return g_strconcat (call->notice, "\n", output, NULL);
}

static char *
format_result (ExecCall *call, AgentsExecResult *result)
{
  gsize out_len = 0, err_len = 0;
  GBytes *out = agents_exec_result_get_stdout (result);
  GBytes *err = agents_exec_result_get_stderr (result);
  const char *out_data = out ? g_bytes_get_data (out, &out_len) : NULL;
  const char *err_data = err ? g_bytes_get_data (err, &err_len) : NULL;
  g_autofree char *joined =
    agents_shell_join_output (out_data, out_len, err_data, err_len);
  gint64 original = -1;
  g_autofree char *output =
    truncate_output (joined, call->max_output_tokens, &original);
  g_autofree char *shown = with_notice (call, output);
  g_autofree char *chunk_id = new_chunk_id ();

  return agents_shell_format_response (
    chunk_id, clock_seconds () - call->started,
    agents_exec_result_get_exit_code (result), -1, original, shown);
}

static char *
format_timeout (ExecCall *call)
{
  g_autofree char *output = agents_shell_timeout_message (call->timeout);
  g_autofree char *shown = with_notice (call, output);
  g_autofree char *chunk_id = new_chunk_id ();

  return agents_shell_format_response (
    chunk_id, clock_seconds () - call->started, -1, -1, -1, shown);
}

/* What a process of the session's table answered; its output is already
 * valid UTF-8 and truncated. */
static char *
format_update (double started, AgentsPtyExecUpdate *update)
{
  GBytes *bytes = agents_pty_exec_update_get_output (update);
  gsize length;
  const char *data = g_bytes_get_data (bytes, &length);
  g_autofree char *output = g_strndup (data ? data : "", length);
  g_autofree char *chunk_id = new_chunk_id ();

  return agents_shell_format_response (
    chunk_id, clock_seconds () - started,
    agents_pty_exec_update_get_exit_code (update),
    agents_pty_exec_update_get_process_id (update),
    agents_pty_exec_update_get_original_token_count (update), output);
}

static void
exec_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  ExecCall *call = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr (AgentsExecResult) exec = agents_sandbox_session_exec_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  g_autofree char *text = NULL;

  if (exec != NULL)
    text = format_result (call, exec);
  else if (g_error_matches (error, AGENTS_SANDBOX_ERROR,
                            AGENTS_SANDBOX_ERROR_EXEC_TIMEOUT))
    {
      text = format_timeout (call);
      g_clear_error (&error);
    }
  else
    {
      g_task_return_error (task, error);
      return;
    }
  agents_tool_return_text (task, text);
}

/* One-shot: the yield time is the kill timeout. */
static void
run_one_shot (AgentsSandboxSession *session, GTask *task)
{
  ExecCall *call = g_task_get_task_data (task);

  /* A zero yield times the command out at once, as asyncio's wait_for()
   * with no time left does (the session reads 0 as "no timeout"); a
   * yield past MAX_KILL_TIMEOUT waits that long, which is long enough. */
  agents_sandbox_session_exec_async (
    session, (const char *const *) call->command,
    CLAMP (call->timeout, 0.001, MAX_KILL_TIMEOUT), call->session_shell,
    call->user, g_task_get_cancellable (task), exec_done, g_object_ref (task));
}

/* The reference falls back to one-shot only when the transport failed
 * before anything ran and says a retry is safe. */
static gboolean
is_retry_safe (const GError *error)
{
  g_autoptr (GVariant) context = NULL;
  gboolean retry_safe = FALSE;

  if (!g_error_matches (error, AGENTS_SANDBOX_ERROR,
                        AGENTS_SANDBOX_ERROR_EXEC_TRANSPORT))
    return FALSE;
  context = agents_sandbox_error_get_context (error);
  return g_variant_lookup (context, "retry_safe", "b", &retry_safe) &&
         retry_safe;
}

static void
pty_started (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  AgentsSandboxSession *session = AGENTS_SANDBOX_SESSION (source);
  ExecCall *call = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr (AgentsPtyExecUpdate) update =
    agents_sandbox_session_pty_exec_start_finish (session, result, &error);
  g_autofree char *text = NULL;

  if (update != NULL)
    {
      text = format_update (call->started, update);
      agents_tool_return_text (task, text);
      return;
    }
  if (!GPOINTER_TO_INT (g_object_get_data (G_OBJECT (task), "tty")) &&
      is_retry_safe (error))
    {
      g_debug ("exec_command: %s; running it one-shot", error->message);
      g_clear_error (&error);
      call->notice = "PTY transport failed before the interactive session "
                     "opened; fell back to one-shot exec.";
      run_one_shot (session, task);
      return;
    }
  g_task_return_error (task, error);
}

/* Runs @script as the reference picks the shell: no shell and a login
 * shell → the session's own `sh -c`; otherwise `<shell> -lc|-c`. On a
 * session with processes the command goes into its process table. */
static void
run_script (const AgentsToolBinding *binding,
            AgentsSandboxSession *session,
            const AgentsExecArgs *args,
            GTask *task)
{
  ExecCall *call = g_task_get_task_data (task);
  const char *chosen_shell[] = { args->shell ? args->shell : "sh",
                                 args->login ? "-lc" : "-c", call->script,
                                 NULL };
  const char *own_shell[] = { call->script, NULL };

  call->session_shell = args->shell == NULL && args->login;
  call->command =
    g_strdupv ((char **) (call->session_shell ? own_shell : chosen_shell));
  call->user = g_strdup (binding->run_as);
  call->timeout = args->yield_time_ms / 1000.0;
  call->started = clock_seconds ();
  if (!agents_sandbox_session_supports_pty (session))
    {
      run_one_shot (session, task);
      return;
    }
  g_object_set_data (G_OBJECT (task), "tty", GINT_TO_POINTER (args->tty));
  agents_sandbox_session_pty_exec_start_async (
    session, (const char *const *) call->command, call->session_shell,
    args->tty, call->user, args->yield_time_ms, args->max_output_tokens,
    g_task_get_cancellable (task), pty_started, g_object_ref (task));
}

static gboolean
check_bound (AgentsSandboxSession *session, GError **error)
{
  if (session != NULL)
    return TRUE;
  g_set_error_literal (error, AGENTS_SANDBOX_ERROR,
                       AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                       "Shell capability is not bound to a SandboxSession");
  return FALSE;
}

static void
exec_command_invoke (AgentsRunContext *ctx,
                     const char *arguments,
                     GTask *task,
                     gpointer user_data)
{
  const AgentsToolBinding *binding = user_data;
  AgentsSandboxSession *session =
    agents_capability_get_session (binding->capability);
  GError *error = NULL;
  g_autoptr (AgentsExecArgs) args = agents_exec_args_parse (arguments, &error);
  g_autofree char *script = NULL;
  ExecCall *call;

  if (args != NULL && check_bound (session, &error))
    script = script_in_workdir (session, binding, args, &error);
  if (script == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  call = g_new0 (ExecCall, 1);
  call->max_output_tokens = args->max_output_tokens;
  call->script = g_steal_pointer (&script);
  g_task_set_task_data (task, call, (GDestroyNotify) exec_call_free);
  run_script (binding, session, args, task);
}

AgentsTool *
agents_exec_command_tool_new (AgentsCapability *capability)
{
  g_autoptr (JsonNode) schema = json_from_string (exec_command_schema, NULL);
  AgentsFunctionTool *tool = agents_function_tool_new_async (
    "exec_command",
    "Runs a shell command in the sandbox. Returns its output and exit code "
    "once it ends, or, when it is still running after the yield time, the "
    "output so far and a session ID to continue with.",
    json_node_get_object (schema), exec_command_invoke,
    agents_tool_binding_new (capability),
    (GDestroyNotify) agents_tool_binding_free);

  agents_tool_set_strict (AGENTS_TOOL (tool), FALSE);
  return AGENTS_TOOL (tool);
}

/* ---- write_stdin ------------------------------------------------------ */

/* The reference's WriteStdinArgs schema, byte for byte. */
static const char write_stdin_schema[] =
  "{\"properties\": {"
  "\"session_id\": {\"description\": \"Identifier of the running unified "
  "exec session.\", \"title\": \"Session Id\", \"type\": \"integer\"}, "
  "\"chars\": {\"default\": \"\", \"description\": \"Bytes to write to "
  "stdin (may be empty to poll).\", \"title\": \"Chars\", \"type\": "
  "\"string\"}, "
  "\"yield_time_ms\": {\"default\": 250, \"description\": \"How long to "
  "wait (in milliseconds) for output before yielding.\", \"minimum\": 0, "
  "\"title\": \"Yield Time Ms\", \"type\": \"integer\"}, "
  "\"max_output_tokens\": {\"anyOf\": [{\"minimum\": 1, \"type\": "
  "\"integer\"}, {\"type\": \"null\"}], \"default\": null, \"description\": "
  "\"Maximum number of tokens to return. Excess output will be "
  "truncated.\", \"title\": \"Max Output Tokens\"}}, "
  "\"required\": [\"session_id\"], \"title\": \"WriteStdinArgs\", "
  "\"type\": \"object\"}";

void
agents_write_args_free (AgentsWriteArgs *args)
{
  g_free (args->chars);
  g_free (args);
}

AgentsWriteArgs *
agents_write_args_parse (const char *arguments, GError **error)
{
  g_autoptr (JsonNode) node = NULL;
  g_autoptr (AgentsWriteArgs) args = g_new0 (AgentsWriteArgs, 1);
  Arguments reader = { "write_stdin", NULL };

  args->session_id = G_MININT64;
  args->yield_time_ms = AGENTS_PTY_WRITE_YIELD_TIME_MS;
  args->max_output_tokens = -1;
  if ((node = parse_object_node ("write_stdin", arguments, error)) == NULL)
    return NULL;
  reader.object = json_node_get_object (node);
  if (!get_integer (&reader, "session_id", -AGENTS_SHELL_MAX_INTEGER_ARGUMENT,
                    FALSE, "an integer", &args->session_id, error) ||
      !get_optional_string (&reader, "chars", &args->chars, error) ||
      !get_integer (&reader, "yield_time_ms", 0, FALSE, "an integer >= 0",
                    &args->yield_time_ms, error) ||
      !get_integer (&reader, "max_output_tokens", 1, TRUE, "a positive integer",
                    &args->max_output_tokens, error))
    return NULL;
  if (args->session_id == G_MININT64)
    {
      bad_argument (error, &reader, "session_id", "an integer");
      return NULL;
    }
  return g_steal_pointer (&args);
}

static void
written (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  double *started = g_task_get_task_data (task);
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsPtyExecUpdate) update =
    agents_sandbox_session_pty_write_stdin_finish (
      AGENTS_SANDBOX_SESSION (source), result, &error);
  g_autofree char *text = NULL;
  g_autofree char *chunk_id = NULL;
  g_autofree char *output = NULL;

  if (update != NULL)
    {
      text = format_update (*started, update);
      agents_tool_return_text (task, text);
      return;
    }
  /* The reference answers these as a process that exited with 1. */
  if (g_error_matches (error, AGENTS_SANDBOX_ERROR,
                       AGENTS_SANDBOX_ERROR_NOT_SUPPORTED))
    output = g_strdup (error->message);
  else
    output = g_strconcat ("write_stdin failed: ", error->message, NULL);
  chunk_id = new_chunk_id ();
  text = agents_shell_format_response (chunk_id, clock_seconds () - *started, 1,
                                       -1, -1, output);
  agents_tool_return_text (task, text);
}

static void
write_stdin_invoke (AgentsRunContext *ctx,
                    const char *arguments,
                    GTask *task,
                    gpointer user_data)
{
  AgentsCapability *capability = user_data;
  AgentsSandboxSession *session = agents_capability_get_session (capability);
  GError *error = NULL;
  g_autoptr (AgentsWriteArgs) args =
    agents_write_args_parse (arguments, &error);
  double *started;

  if (args == NULL || !check_bound (session, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  if (!agents_sandbox_session_supports_pty (session))
    {
      g_task_return_new_error (
        task, AGENTS_SANDBOX_ERROR, AGENTS_SANDBOX_ERROR_NOT_SUPPORTED,
        "write_stdin is not available for non-PTY sandboxes");
      return;
    }
  started = g_new (double, 1);
  *started = clock_seconds ();
  g_task_set_task_data (task, started, g_free);
  agents_sandbox_session_pty_write_stdin_async (
    session, args->session_id, args->chars, args->yield_time_ms,
    args->max_output_tokens, g_task_get_cancellable (task), written,
    g_object_ref (task));
}

AgentsTool *
agents_write_stdin_tool_new (AgentsCapability *capability)
{
  g_autoptr (JsonNode) schema = json_from_string (write_stdin_schema, NULL);
  AgentsFunctionTool *tool = agents_function_tool_new_async (
    "write_stdin",
    "Types characters into a command that `exec_command` left running and "
    "returns what it printed since; empty characters only poll it.",
    json_node_get_object (schema), write_stdin_invoke,
    g_object_ref (capability), g_object_unref);

  agents_tool_set_strict (AGENTS_TOOL (tool), FALSE);
  return AGENTS_TOOL (tool);
}
