/* test-builtin-tools.c - the model-facing tools of the built-in capabilities
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The tools run against a real unix_local session: what the model reads
 * back is what a sandboxed agent would see.
 */

#include "config.h"

#include <string.h>

#include "agents-shell-tools-private.h"
#include "agents-unix-local-client.h"
#include "test-utils.h"

/* The reference's tests patch uuid4 and perf_counter: every command
 * seems to take a quarter of a second and its chunk is "123456". */
static double fake_now;

static double
fake_clock (void)
{
  fake_now += 0.25;
  return fake_now;
}

#define FRAME(exit_line) \
  "Chunk ID: 123456\nWall time: 0.2500 seconds\n" exit_line "Output:\n"

typedef struct
{
  AgentsSandboxClient *client;
  AgentsSandboxSession *session;
  AgentsCapability *filesystem;
  AgentsCapability *shell;
  AgentsRunContext *ctx;
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;

  f->client = agents_unix_local_client_new ();
  agents_sandbox_client_create_async (f->client, manifest, NULL, NULL, NULL,
                                      agents_test_async_cb, &result);
  f->session = agents_sandbox_client_create_finish (
    f->client, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
  g_clear_object (&result);

  agents_sandbox_session_start_async (f->session, NULL, agents_test_async_cb,
                                      &result);
  g_assert_true (agents_sandbox_session_start_finish (
    f->session, agents_test_wait_result (&result), &error));
  g_assert_no_error (error);

  f->filesystem = agents_filesystem_capability_new ();
  agents_filesystem_capability_set_file_tools (
    AGENTS_FILESYSTEM_CAPABILITY (f->filesystem), TRUE);
  f->shell = agents_shell_capability_new ();
  agents_capability_bind (f->filesystem, f->session);
  agents_capability_bind (f->shell, f->session);
  f->ctx = agents_run_context_new (NULL);
}

static gboolean (*real_supports_pty) (AgentsSandboxSession *self);

static gboolean
no_pty (AgentsSandboxSession *self)
{
  return FALSE;
}

/* The one-shot path, as on a backend without PTYs: unix_local with its
 * supports_pty answering no for the test's length. */
static void
one_shot_set_up (Fixture *f, gconstpointer data)
{
  AgentsSandboxSessionInterface *iface;

  fixture_set_up (f, data);
  iface = g_type_interface_peek (G_OBJECT_GET_CLASS (f->session),
                                 AGENTS_TYPE_SANDBOX_SESSION);
  real_supports_pty = iface->supports_pty;
  iface->supports_pty = no_pty;
}

static void fixture_tear_down (Fixture *f, gconstpointer data);

static void
one_shot_tear_down (Fixture *f, gconstpointer data)
{
  AgentsSandboxSessionInterface *iface = g_type_interface_peek (
    G_OBJECT_GET_CLASS (f->session), AGENTS_TYPE_SANDBOX_SESSION);

  iface->supports_pty = real_supports_pty;
  fixture_tear_down (f, data);
}

static void (*real_start_process) (AgentsSandboxSession *self,
                                   const char *const *argv,
                                   gboolean tty,
                                   GTask *task);

/* A PTY transport that fails before anything ran, as docker's does when
 * the engine refuses the exec. */
static void
failing_start_process (AgentsSandboxSession *self,
                       const char *const *argv,
                       gboolean tty,
                       GTask *task)
{
  g_task_return_error (task, agents_sandbox_error_new (
                               AGENTS_SANDBOX_ERROR_EXEC_TRANSPORT,
                               g_variant_new_parsed ("{'retry_safe': <true>}"),
                               "no PTY today"));
}

static void
failing_pty_set_up (Fixture *f, gconstpointer data)
{
  AgentsSandboxSessionInterface *iface;

  fixture_set_up (f, data);
  iface = g_type_interface_peek (G_OBJECT_GET_CLASS (f->session),
                                 AGENTS_TYPE_SANDBOX_SESSION);
  real_start_process = iface->start_process;
  iface->start_process = failing_start_process;
}

static void
failing_pty_tear_down (Fixture *f, gconstpointer data)
{
  AgentsSandboxSessionInterface *iface = g_type_interface_peek (
    G_OBJECT_GET_CLASS (f->session), AGENTS_TYPE_SANDBOX_SESSION);

  iface->start_process = real_start_process;
  fixture_tear_down (f, data);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;

  g_clear_object (&f->filesystem);
  g_clear_object (&f->shell);
  g_clear_object (&f->ctx);
  agents_sandbox_session_close_async (f->session, NULL, agents_test_async_cb,
                                      &result);
  agents_sandbox_session_close_finish (f->session,
                                       agents_test_wait_result (&result), NULL);
  g_clear_object (&result);
  agents_sandbox_client_delete_async (f->client, f->session, NULL,
                                      agents_test_async_cb, &result);
  g_assert_true (agents_sandbox_client_delete_finish (
    f->client, agents_test_wait_result (&result), &error));
  g_assert_no_error (error);
  g_clear_object (&f->session);
  g_clear_object (&f->client);
}

static AgentsTool *
find_tool (AgentsCapability *capability, const char *name)
{
  g_autoptr (GPtrArray) tools = agents_capability_get_tools (capability);
  /* The array owns its tools (get_tools is transfer full). */
  if (tools != NULL)
    g_ptr_array_set_free_func (tools, g_object_unref);

  for (guint i = 0; i < tools->len; i++)
    if (g_str_equal (agents_tool_get_name (tools->pdata[i]), name))
      return g_object_ref (tools->pdata[i]);
  g_assert_not_reached ();
}

/* Calls a tool of @capability as the runner would; returns its output. */
static char *
call (Fixture *f,
      AgentsCapability *capability,
      const char *name,
      const char *arguments)
{
  g_autoptr (AgentsTool) tool = find_tool (capability, name);
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) output = NULL;

  agents_tool_invoke_async (tool, f->ctx, "call_1", arguments, NULL,
                            agents_test_async_cb, &result);
  output =
    agents_tool_invoke_finish (tool, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_nonnull (output);
  g_assert_true (JSON_NODE_HOLDS_VALUE (output));
  return g_strdup (json_node_get_string (output));
}

static void
test_write_read_list_exec (Fixture *f, gconstpointer data)
{
  g_autofree char *wrote = NULL;
  g_autofree char *read = NULL;
  g_autofree char *listing = NULL;
  g_autofree char *exec = NULL;

  wrote = call (f, f->filesystem, "write_file",
                "{\"path\": \"notes/a.txt\", \"content\": \"héllo\\n\"}");
  g_assert_cmpstr (wrote, ==, "wrote 7 bytes to notes/a.txt");

  read = call (f, f->filesystem, "read_file", "{\"path\": \"notes/a.txt\"}");
  g_assert_cmpstr (read, ==, "héllo\n");

  listing = call (f, f->filesystem, "list_dir", "{\"path\": \".\"}");
  /* A directory's size depends on the file system. */
  g_assert_true (g_str_has_prefix (listing, "dir   "));
  g_assert_true (g_str_has_suffix (listing, "  notes/"));
  g_assert_null (strchr (listing, '\n'));
  g_clear_pointer (&listing, g_free);
  listing = call (f, f->filesystem, "list_dir", "{\"path\": \"notes\"}");
  g_assert_cmpstr (listing, ==, "file           7  a.txt");

  exec = call (f, f->shell, "exec_command",
               "{\"cmd\": \"wc -c < notes/a.txt\", \"workdir\": null}");
  g_assert_cmpstr (exec, ==, FRAME ("Process exited with code 0\n") "7\n");
}

static void
test_escape_is_an_error_text (Fixture *f, gconstpointer data)
{
  const char *const cases[][2] = {
    { "read_file", "{\"path\": \"../x\"}" },
    { "write_file", "{\"path\": \"../x\", \"content\": \"out\"}" },
    { "list_dir", "{\"path\": \"../\"}" },
    { "read_file", "{\"path\": \"/etc/passwd\"}" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *output =
        call (f, f->filesystem, cases[i][0], cases[i][1]);

      g_test_message ("%s %s → %s", cases[i][0], cases[i][1], output);
      g_assert_true (g_str_has_prefix (output, "error: "));
    }
}

static void
test_missing_file_is_an_error_text (Fixture *f, gconstpointer data)
{
  g_autofree char *output =
    call (f, f->filesystem, "read_file", "{\"path\": \"nope.txt\"}");

  g_assert_true (g_str_has_prefix (output, "error: "));
  g_assert_nonnull (strstr (output, "nope.txt"));
}

#define TOOL_ERROR \
  "An error occurred while running the tool. Please try again. Error: "

static void
test_bad_arguments_are_an_error_text (Fixture *f, gconstpointer data)
{
  const char *const cases[][2] = {
    { "{}", "`cmd` must be a non-empty string" },
    { "{\"cmd\": 5}", "`cmd` must be a non-empty string" },
    { "{\"cmd\": \"\"}", "`cmd` must be a non-empty string" },
    { "{\"cmd\": \"true\", \"yield_time_ms\": -1}",
      "`yield_time_ms` must be an integer >= 0" },
    { "{\"cmd\": \"true\", \"yield_time_ms\": 1.5}",
      "`yield_time_ms` must be an integer >= 0" },
    { "{\"cmd\": \"true\", \"max_output_tokens\": 0}",
      "`max_output_tokens` must be a positive integer" },
    { "{\"cmd\": \"true\", \"max_output_tokens\": 1e300}",
      "`max_output_tokens` must be a positive integer" },
    { "{\"cmd\": \"true\", \"login\": \"yes\"}", "`login` must be a boolean" },
    { "{\"cmd\": \"true\", \"tty\": 1}", "`tty` must be a boolean" },
    { "{\"cmd\": \"true\", \"workdir\": 3}",
      "`workdir` must be a string or null" },
    { "{\"cmd\": \"true\", \"shell\": \"\"}",
      "`shell` must be a non-empty string or null" },
    { "[1]", "Invalid JSON input for tool exec_command: [1]" },
    /* Not `true` alone: a command never loses what follows a NUL. */
    { "{\"cmd\": \"true\\u0000; rm -rf .\"}",
      "Invalid JSON input for tool exec_command: "
      "{\"cmd\": \"true\\u0000; rm -rf .\"}" },
  };
  g_autofree char *not_json = call (f, f->filesystem, "read_file", "[1");

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *output = call (f, f->shell, "exec_command", cases[i][0]);
      g_autofree char *expected =
        g_str_has_prefix (cases[i][1], "`")
          ? g_strconcat (TOOL_ERROR "exec_command argument ", cases[i][1], NULL)
          : g_strconcat (TOOL_ERROR, cases[i][1], NULL);

      g_assert_cmpstr (output, ==, expected);
    }
  g_assert_true (g_str_has_prefix (not_json, "error: "));
}

static void
test_binary_file_is_refused (Fixture *f, gconstpointer data)
{
  g_autofree char *made = call (f, f->shell, "exec_command",
                                "{\"cmd\": \"printf 'a\\\\000b' > bin\"}");
  g_autofree char *output =
    call (f, f->filesystem, "read_file", "{\"path\": \"bin\"}");

  g_assert_cmpstr (made, ==, FRAME ("Process exited with code 0\n"));
  g_assert_cmpstr (output, ==,
                   "bin is a binary file, not text; read_file only returns "
                   "text.");
}

/* The reference's pinned example (test_shell_capability.py). */
static void
test_exec_pinned_output (Fixture *f, gconstpointer data)
{
  g_autofree char *output =
    call (f, f->shell, "exec_command",
          "{\"cmd\": \"printf 'stdout: pwd'; printf 'stderr: pwd' >&2; exit "
          "7\"}");

  g_assert_cmpstr (output, ==,
                   "Chunk ID: 123456\nWall time: 0.2500 seconds\nProcess "
                   "exited with code 7\nOutput:\nstdout: pwd\nstderr: pwd");
}

static void
test_exec_joins_streams (Fixture *f, gconstpointer data)
{
  g_autofree char *both =
    call (f, f->shell, "exec_command",
          "{\"cmd\": \"echo out; echo err >&2\", \"yield_time_ms\": 5000}");
  g_autofree char *err_only =
    call (f, f->shell, "exec_command", "{\"cmd\": \"echo err >&2; exit 1\"}");

  g_assert_cmpstr (both, ==,
                   FRAME ("Process exited with code 0\n") "out\nerr\n");
  g_assert_cmpstr (err_only, ==,
                   FRAME ("Process exited with code 1\n") "err\n");
}

/* The reference's token truncation example, through the tool. */
static void
test_exec_max_output_tokens (Fixture *f, gconstpointer data)
{
  g_autofree char *output = call (
    f, f->shell, "exec_command",
    "{\"cmd\": \"i=0; while [ $i -lt 100 ]; do printf 'line %03d\\\\n' $i; "
    "i=$((i+1)); done\", \"max_output_tokens\": 20}");

  g_assert_cmpstr (output, ==,
                   FRAME ("Process exited with code 0\nOriginal token count: "
                          "225\n") "Total output lines: 100\n\nline 000\nline "
                                   "…218 tokens truncated…e 098\nline 099\n");
}

/* Without max_output_tokens, output past 1 MiB is truncated the same
 * way (a deviation: the reference returns it all). */
static void
test_exec_byte_backstop (Fixture *f, gconstpointer data)
{
  g_autofree char *small =
    call (f, f->shell, "exec_command",
          "{\"cmd\": \"head -c 1048576 /dev/zero | tr '\\\\000' a\"}");
  g_autofree char *huge =
    call (f, f->shell, "exec_command",
          "{\"cmd\": \"head -c 2097152 /dev/zero | tr '\\\\000' a\"}");
  const char *body = strstr (huge, "Output:\n");

  g_assert_cmpuint (strlen (small), ==,
                    strlen (FRAME ("Process exited with code 0\n")) + 1048576);
  g_assert_true (g_str_has_prefix (
    huge,
    FRAME ("Process exited with code 0\nOriginal token count: 524288\n")));
  g_assert_nonnull (body);
  body += strlen ("Output:\n");
  g_assert_cmpuint (strlen (body), <=, AGENTS_EXEC_COMMAND_MAX_OUTPUT_BYTES);
  g_assert_cmpuint (strlen (body), >,
                    AGENTS_EXEC_COMMAND_MAX_OUTPUT_BYTES - 64);
  g_assert_true (g_str_has_prefix (body, "Total output lines: 1\n\naaaa"));
  g_assert_nonnull (strstr (body, "a…262"));
  g_assert_nonnull (strstr (body, " tokens truncated…aaaa"));
  g_assert_true (g_str_has_suffix (body, "aaaa"));
}

/* When the PTY transport fails before anything ran, a command without a
 * terminal runs one-shot, with the reference's notice first; one that
 * asked for a terminal fails. */
static void
test_exec_pty_fallback (Fixture *f, gconstpointer data)
{
  g_autofree char *piped =
    call (f, f->shell, "exec_command", "{\"cmd\": \"echo hi\"}");
  g_autofree char *on_tty =
    call (f, f->shell, "exec_command", "{\"cmd\": \"echo hi\", \"tty\": true}");

  g_assert_cmpstr (piped, ==,
                   FRAME ("Process exited with code 0\n") "PTY transport "
                                                          "failed before the "
                                                          "interactive "
                                                          "session opened; "
                                                          "fell back to "
                                                          "one-shot exec.\n"
                                                          "hi\n");
  g_assert_cmpstr (on_tty, ==, TOOL_ERROR "no PTY today");
}

/* In one-shot mode (no PTYs) the yield time is the kill timeout. */
static void
test_exec_timeout (Fixture *f, gconstpointer data)
{
  gint64 start = g_get_monotonic_time ();
  g_autofree char *output =
    call (f, f->shell, "exec_command",
          "{\"cmd\": \"sleep 30\", \"yield_time_ms\": 200}");

  g_autofree char *at_once =
    call (f, f->shell, "exec_command",
          "{\"cmd\": \"sleep 30\", \"yield_time_ms\": 0}");
  g_autofree char *long_yield =
    call (f, f->shell, "exec_command",
          "{\"cmd\": \"echo ok\", \"yield_time_ms\": 100000000000000}");

  g_assert_cmpstr (output, ==,
                   FRAME ("") "Command timed out after 0.200 seconds.");
  g_assert_cmpstr (at_once, ==,
                   FRAME ("") "Command timed out after 0.000 seconds.");
  g_assert_cmpstr (long_yield, ==,
                   FRAME ("Process exited with code 0\n") "ok\n");
  g_assert_cmpint (g_get_monotonic_time () - start, <, 20 * G_USEC_PER_SEC);
}

static void
test_exec_workdir (Fixture *f, gconstpointer data)
{
  g_autofree char *made =
    call (f, f->shell, "exec_command", "{\"cmd\": \"mkdir -p 'a b/c'\"}");
  g_autofree char *inside = call (f, f->shell, "exec_command",
                                  "{\"cmd\": \"pwd\", \"workdir\": \"a b/c\"}");
  g_autofree char *blank = call (f, f->shell, "exec_command",
                                 "{\"cmd\": \"ls\", \"workdir\": \"  \"}");
  const char *const escapes[] = { "..", "a b/../../x", "/etc" };

  g_assert_cmpstr (made, ==, FRAME ("Process exited with code 0\n"));
  g_assert_true (
    g_str_has_prefix (inside, FRAME ("Process exited with code 0\n")));
  g_assert_true (g_str_has_suffix (inside, "/a b/c\n"));
  g_assert_cmpstr (blank, ==, FRAME ("Process exited with code 0\n") "a b\n");
  for (guint i = 0; i < G_N_ELEMENTS (escapes); i++)
    {
      g_autofree char *args = g_strdup_printf (
        "{\"cmd\": \"touch escaped\", \"workdir\": \"%s\"}", escapes[i]);
      g_autofree char *output = call (f, f->shell, "exec_command", args);

      g_test_message ("workdir %s → %s", escapes[i], output);
      g_assert_true (g_str_has_prefix (output, TOOL_ERROR));
      g_assert_nonnull (strstr (output, escapes[i]));
    }
}

static void
test_exec_shell_and_login (Fixture *f, gconstpointer data)
{
  const char *script = "shopt -q login_shell && echo login || echo plain";
  g_autofree char *bash = g_find_program_in_path ("bash");
  g_autofree char *login_args =
    g_strdup_printf ("{\"cmd\": \"%s\", \"shell\": \"bash\"}", script);
  g_autofree char *plain_args = g_strdup_printf (
    "{\"cmd\": \"%s\", \"shell\": \"bash\", \"login\": false}", script);
  g_autofree char *login = NULL;
  g_autofree char *plain = NULL;
  g_autofree char *own = call (f, f->shell, "exec_command",
                               "{\"cmd\": \"echo $0\", \"login\": false}");

  g_assert_cmpstr (own, ==, FRAME ("Process exited with code 0\n") "sh\n");
  if (bash == NULL)
    {
      g_test_skip ("no bash");
      return;
    }
  login = call (f, f->shell, "exec_command", login_args);
  plain = call (f, f->shell, "exec_command", plain_args);
  g_assert_cmpstr (login, ==, FRAME ("Process exited with code 0\n") "login\n");
  g_assert_cmpstr (plain, ==, FRAME ("Process exited with code 0\n") "plain\n");
}

static void
test_huge_file_is_truncated (Fixture *f, gconstpointer data)
{
  g_autofree char *made =
    call (f, f->shell, "exec_command",
          "{\"cmd\": \"head -c 300000 /dev/zero | tr '\\\\000' b > big\"}");
  g_autofree char *output =
    call (f, f->filesystem, "read_file", "{\"path\": \"big\"}");

  g_assert_cmpstr (made, ==, FRAME ("Process exited with code 0\n"));
  /* Only the first 256 KiB (and one byte more) are read. */
  g_assert_cmpuint (strlen (output), <, 262144 + 100);
  g_assert_true (g_str_has_prefix (output, "bbbb"));
  g_assert_true (g_str_has_suffix (
    output, "b\n[file truncated: only its first 262144 bytes shown]"));
}

static void
test_unbound_capability_is_an_error_text (void)
{
  g_autoptr (AgentsCapability) shell = agents_shell_capability_new ();
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);
  Fixture f = { .ctx = ctx };
  g_autofree char *output =
    call (&f, shell, "exec_command", "{\"cmd\": \"true\"}");

  g_assert_cmpstr (
    output, ==, TOOL_ERROR "Shell capability is not bound to a SandboxSession");
}

static char *
instructions (AgentsCapability *capability)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  char *text;

  agents_capability_instructions_async (capability, manifest, NULL,
                                        agents_test_async_cb, &result);
  text = agents_capability_instructions_finish (
    capability, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
  return text;
}

/* The reference's ExecCommandArgs, as pydantic dumps it. */
static const char exec_command_parameters[] =
  "{\"properties\": {"
  "\"cmd\": {\"description\": \"Shell command to execute.\", \"minLength\": 1, "
  "\"title\": \"Cmd\", \"type\": \"string\"},"
  "\"workdir\": {\"anyOf\": [{\"type\": \"string\"}, {\"type\": \"null\"}], "
  "\"default\": null, \"description\": \"Optional working directory to run the "
  "command in; defaults to the turn cwd.\", \"title\": \"Workdir\"},"
  "\"shell\": {\"anyOf\": [{\"type\": \"string\"}, {\"type\": \"null\"}], "
  "\"default\": null, \"description\": \"Shell binary to launch. Defaults to "
  "the "
  "user's default shell.\", \"title\": \"Shell\"},"
  "\"login\": {\"default\": true, \"description\": \"Whether to run the shell "
  "with -l/-i semantics. Defaults to true.\", \"title\": \"Login\", \"type\": "
  "\"boolean\"},"
  "\"tty\": {\"default\": false, \"description\": \"Whether to allocate a TTY "
  "for the command. Defaults to false (plain pipes); set to true to open a "
  "PTY and access TTY process.\", \"title\": \"Tty\", \"type\": \"boolean\"},"
  "\"yield_time_ms\": {\"default\": 10000, \"description\": \"How long to wait "
  "(in milliseconds) for output before yielding.\", \"minimum\": 0, \"title\": "
  "\"Yield Time Ms\", \"type\": \"integer\"},"
  "\"max_output_tokens\": {\"anyOf\": [{\"minimum\": 1, \"type\": "
  "\"integer\"}, {\"type\": \"null\"}], \"default\": null, \"description\": "
  "\"Maximum number of tokens to return. Excess output will be "
  "truncated.\", \"title\": \"Max Output Tokens\"}},"
  "\"required\": [\"cmd\"], \"title\": \"ExecCommandArgs\", \"type\": "
  "\"object\"}";

/* Our own words; the points are the reference's: which tool runs
 * commands, write_stdin to interact and poll, tty=true and Ctrl-C
 * (written as the six characters \u0003) to interrupt, rg for search,
 * no Python only to print files. */
static void
assert_shell_instructions (const char *text)
{
  const char *const points[] = {
    "`exec_command`",     "`write_stdin`", "poll",         "`tty=true`",
    "Ctrl-C (`\\u0003`)", "`rg`",          "`rg --files`", "Python",
  };

  g_assert_nonnull (text);
  for (guint i = 0; i < G_N_ELEMENTS (points); i++)
    g_assert_nonnull (strstr (text, points[i]));
  g_assert_cmpstr (text, ==, agents_shell_instructions);
}

/* The reference's WriteStdinArgs, as pydantic dumps it. */
static const char write_stdin_parameters[] =
  "{\"properties\": {"
  "\"session_id\": {\"description\": \"Identifier of the running unified "
  "exec session.\", \"title\": \"Session Id\", \"type\": \"integer\"},"
  "\"chars\": {\"default\": \"\", \"description\": \"Bytes to write to "
  "stdin (may be empty to poll).\", \"title\": \"Chars\", \"type\": "
  "\"string\"},"
  "\"yield_time_ms\": {\"default\": 250, \"description\": \"How long to "
  "wait (in milliseconds) for output before yielding.\", \"minimum\": 0, "
  "\"title\": \"Yield Time Ms\", \"type\": \"integer\"},"
  "\"max_output_tokens\": {\"anyOf\": [{\"minimum\": 1, \"type\": "
  "\"integer\"}, {\"type\": \"null\"}], \"default\": null, "
  "\"description\": \"Maximum number of tokens to return. Excess output "
  "will be truncated.\", \"title\": \"Max Output Tokens\"}},"
  "\"required\": [\"session_id\"], \"title\": \"WriteStdinArgs\", "
  "\"type\": \"object\"}";

static char **
tool_names (AgentsCapability *capability)
{
  g_autoptr (GPtrArray) tools = agents_capability_get_tools (capability);
  /* The array owns its tools (get_tools is transfer full). */
  if (tools != NULL)
    g_ptr_array_set_free_func (tools, g_object_unref);
  GStrvBuilder *builder = g_strv_builder_new ();
  char **names;

  for (guint i = 0; i < tools->len; i++)
    g_strv_builder_add (builder, agents_tool_get_name (tools->pdata[i]));
  names = g_strv_builder_end (builder);
  g_strv_builder_unref (builder);
  return names;
}

static void
test_shell_tool_definition (void)
{
  g_autoptr (AgentsCapability) shell = agents_shell_capability_new ();
  g_auto (GStrv) names = tool_names (shell);
  g_autoptr (AgentsTool) exec = find_tool (shell, "exec_command");
  g_autoptr (JsonObject) definition = agents_tool_to_model_json (exec);
  g_autoptr (JsonNode) expected =
    json_from_string (exec_command_parameters, NULL);
  g_autofree char *text = instructions (shell);

  /* write_stdin only where the session has PTYs: unbound, none. */
  g_assert_cmpstrv (names, ((const char *const[]){ "exec_command", NULL }));
  g_assert_cmpstr (json_object_get_string_member (definition, "type"), ==,
                   "function");
  g_assert_false (json_object_get_boolean_member (definition, "strict"));
  g_assert_true (json_node_equal (
    json_object_get_member (definition, "parameters"), expected));
  g_assert_false (agents_tool_get_needs_approval (exec));
  assert_shell_instructions (text);
}

/* Bound to unix_local, which has PTYs, the shell offers write_stdin with
 * the reference's schema. */
static void
test_shell_tools_with_pty (Fixture *f, gconstpointer data)
{
  g_auto (GStrv) names = tool_names (f->shell);
  g_autoptr (AgentsTool) write_stdin = find_tool (f->shell, "write_stdin");
  g_autoptr (JsonObject) definition = agents_tool_to_model_json (write_stdin);
  g_autoptr (JsonNode) expected =
    json_from_string (write_stdin_parameters, NULL);

  g_assert_true (agents_sandbox_session_supports_pty (f->session));
  g_assert_cmpstrv (
    names, ((const char *const[]){ "exec_command", "write_stdin", NULL }));
  g_assert_false (json_object_get_boolean_member (definition, "strict"));
  g_assert_true (json_node_equal (
    json_object_get_member (definition, "parameters"), expected));
}

static void
test_filesystem_tool_list (void)
{
  g_autoptr (AgentsCapability) filesystem = agents_filesystem_capability_new ();
  g_auto (GStrv) names = tool_names (filesystem);
  g_autofree char *text = instructions (filesystem);
  g_autoptr (AgentsCapability) clone = NULL;
  g_auto (GStrv) all_names = NULL;
  g_autofree char *file_tools_text = NULL;
  g_autoptr (JsonNode) dump = NULL;
  g_autofree char *json = NULL;

  g_assert_cmpstrv (
    names, ((const char *const[]){ "view_image", "apply_patch", NULL }));
  g_assert_null (text);

  /* The project's own file tools, off by default, survive the per-run
   * clone and stay out of the capability's JSON. */
  g_object_set (filesystem, "file-tools", TRUE, NULL);
  clone = agents_capability_clone (filesystem);
  all_names = tool_names (clone);
  g_assert_cmpstrv (
    all_names, ((const char *const[]){ "view_image", "apply_patch", "read_file",
                                       "write_file", "list_dir", NULL }));
  file_tools_text = instructions (clone);
  g_assert_nonnull (strstr (file_tools_text, "`read_file`"));
  dump = agents_capability_to_json (clone);
  json = json_to_string (dump, FALSE);
  g_assert_cmpstr (json, ==, "{\"type\":\"filesystem\"}");
}

static void
test_shell_needs_approval (void)
{
  g_autoptr (AgentsCapability) shell = agents_shell_capability_new ();
  g_autoptr (AgentsCapability) clone = NULL;
  g_autoptr (AgentsTool) approved_exec = NULL;
  g_autoptr (JsonNode) dump = NULL;
  g_autofree char *json = NULL;

  /* The approval setting survives the per-run clone, and stays out of
   * the capability's JSON (the reference's Shell() dumps as its type). */
  g_object_set (shell, "needs-approval", TRUE, NULL);
  g_assert_true (agents_shell_capability_get_needs_approval (
    AGENTS_SHELL_CAPABILITY (shell)));
  clone = agents_capability_clone (shell);
  approved_exec = find_tool (clone, "exec_command");
  g_assert_true (agents_tool_get_needs_approval (approved_exec));
  dump = agents_capability_to_json (clone);
  json = json_to_string (dump, FALSE);
  g_assert_cmpstr (json, ==, "{\"type\":\"shell\"}");
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  /* The backend is linked in statically. */
  g_unsetenv ("AGENTS_PLUGIN_PATH");
  agents_shell_set_test_hooks ("123456", fake_clock);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/sandbox/builtin-tools/write-read-list-exec",
       test_write_read_list_exec);
  ADD ("/sandbox/builtin-tools/escape-is-an-error-text",
       test_escape_is_an_error_text);
  ADD ("/sandbox/builtin-tools/missing-file-is-an-error-text",
       test_missing_file_is_an_error_text);
  ADD ("/sandbox/builtin-tools/bad-arguments-are-an-error-text",
       test_bad_arguments_are_an_error_text);
  ADD ("/sandbox/builtin-tools/binary-file-is-refused",
       test_binary_file_is_refused);
#define ADD_ONE_SHOT(path, func) \
  g_test_add (path, Fixture, NULL, one_shot_set_up, func, one_shot_tear_down)
  ADD_ONE_SHOT ("/sandbox/builtin-tools/exec-pinned-output",
                test_exec_pinned_output);
  ADD_ONE_SHOT ("/sandbox/builtin-tools/exec-joins-streams",
                test_exec_joins_streams);
  ADD_ONE_SHOT ("/sandbox/builtin-tools/exec-timeout", test_exec_timeout);
  g_test_add ("/sandbox/builtin-tools/exec-pty-fallback", Fixture, NULL,
              failing_pty_set_up, test_exec_pty_fallback,
              failing_pty_tear_down);
  ADD ("/sandbox/builtin-tools/shell-tools-with-pty",
       test_shell_tools_with_pty);
  ADD ("/sandbox/builtin-tools/exec-max-output-tokens",
       test_exec_max_output_tokens);
  ADD ("/sandbox/builtin-tools/exec-byte-backstop", test_exec_byte_backstop);
  ADD ("/sandbox/builtin-tools/exec-workdir", test_exec_workdir);
  ADD ("/sandbox/builtin-tools/exec-shell-and-login",
       test_exec_shell_and_login);
  ADD ("/sandbox/builtin-tools/huge-file-is-truncated",
       test_huge_file_is_truncated);
#undef ADD
#undef ADD_ONE_SHOT
  g_test_add_func ("/sandbox/builtin-tools/unbound-capability-is-an-error-text",
                   test_unbound_capability_is_an_error_text);
  g_test_add_func ("/sandbox/builtin-tools/shell-tool-definition",
                   test_shell_tool_definition);
  g_test_add_func ("/sandbox/builtin-tools/filesystem-tool-list",
                   test_filesystem_tool_list);
  g_test_add_func ("/sandbox/builtin-tools/shell-needs-approval",
                   test_shell_needs_approval);
  return g_test_run ();
}
