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

#include "agents-unix-local-client.h"
#include "test-utils.h"

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
  f->shell = agents_shell_capability_new ();
  agents_capability_bind (f->filesystem, f->session);
  agents_capability_bind (f->shell, f->session);
  f->ctx = agents_run_context_new (NULL);
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
               "{\"cmd\": \"wc -c < notes/a.txt\", \"timeout_seconds\": null}");
  g_assert_cmpstr (exec, ==, "exit_code: 0\nstdout:\n7\nstderr:\n");
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

static void
test_bad_arguments_are_an_error_text (Fixture *f, gconstpointer data)
{
  g_autofree char *no_cmd = call (f, f->shell, "exec_command", "{}");
  g_autofree char *number = call (f, f->shell, "exec_command", "{\"cmd\": 5}");
  g_autofree char *timeout = call (f, f->shell, "exec_command",
                                   "{\"cmd\": \"true\", \"timeout_seconds\": "
                                   "-1}");
  g_autofree char *not_json = call (f, f->filesystem, "read_file", "[1");

  g_assert_cmpstr (no_cmd, ==, "error: the argument “cmd” must be a string");
  g_assert_cmpstr (number, ==, "error: the argument “cmd” must be a string");
  g_assert_cmpstr (timeout, ==,
                   "error: the argument “timeout_seconds” must be positive");
  g_assert_true (g_str_has_prefix (not_json, "error: "));
}

static void
test_binary_file_is_refused (Fixture *f, gconstpointer data)
{
  g_autofree char *made = call (f, f->shell, "exec_command",
                                "{\"cmd\": \"printf 'a\\\\000b' > bin\"}");
  g_autofree char *output =
    call (f, f->filesystem, "read_file", "{\"path\": \"bin\"}");

  g_assert_cmpstr (made, ==, "exit_code: 0\nstdout:\nstderr:\n");
  g_assert_cmpstr (output, ==,
                   "bin is a binary file, not text; read_file only returns "
                   "text.");
}

static void
test_exec_reports_exit_code_and_stderr (Fixture *f, gconstpointer data)
{
  g_autofree char *output = call (f, f->shell, "exec_command",
                                  "{\"cmd\": \"echo out; echo err >&2; exit "
                                  "3\", \"timeout_seconds\": 10}");

  g_assert_cmpstr (output, ==, "exit_code: 3\nstdout:\nout\nstderr:\nerr\n");
}

static void
test_huge_output_is_truncated (Fixture *f, gconstpointer data)
{
  g_autofree char *output =
    call (f, f->shell, "exec_command",
          "{\"cmd\": \"head -c 100000 /dev/zero | tr '\\\\000' a\"}");

  g_assert_true (g_str_has_prefix (output, "exit_code: 0\nstdout:\naaa"));
  g_assert_nonnull (
    strstr (output, "\n[output truncated: 16384 of 100000 bytes shown]"));
  g_assert_cmpuint (strlen (output), <, 17000);
}

static void
test_huge_file_is_truncated (Fixture *f, gconstpointer data)
{
  g_autofree char *made =
    call (f, f->shell, "exec_command",
          "{\"cmd\": \"head -c 300000 /dev/zero | tr '\\\\000' b > big\"}");
  g_autofree char *output =
    call (f, f->filesystem, "read_file", "{\"path\": \"big\"}");

  g_assert_cmpstr (made, ==, "exit_code: 0\nstdout:\nstderr:\n");
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
    output, ==,
    "error: the shell capability is not bound to a sandbox session");
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

static void
test_tool_definitions (void)
{
  g_autoptr (AgentsCapability) shell = agents_shell_capability_new ();
  g_autoptr (AgentsCapability) filesystem = agents_filesystem_capability_new ();
  g_autoptr (GPtrArray) fs_tools = agents_capability_get_tools (filesystem);
  g_autoptr (AgentsTool) exec = NULL;
  g_autoptr (AgentsCapability) clone = NULL;
  g_autoptr (AgentsTool) approved_exec = NULL;
  g_autofree char *shell_text = instructions (shell);
  g_autofree char *fs_text = instructions (filesystem);
  g_autoptr (JsonObject) definition = NULL;
  g_autoptr (JsonNode) node = json_node_alloc ();
  g_autoptr (JsonNode) dump = NULL;
  g_autofree char *json = NULL;

  g_assert_cmpuint (fs_tools->len, ==, 3);
  g_assert_cmpstr (agents_tool_get_name (fs_tools->pdata[0]), ==, "read_file");
  g_assert_cmpstr (agents_tool_get_name (fs_tools->pdata[1]), ==, "write_file");
  g_assert_cmpstr (agents_tool_get_name (fs_tools->pdata[2]), ==, "list_dir");
  g_assert_nonnull (strstr (shell_text, "`exec_command`"));
  g_assert_nonnull (strstr (fs_text, "`read_file`"));

  exec = find_tool (shell, "exec_command");
  g_assert_false (agents_tool_get_needs_approval (exec));
  definition = agents_tool_to_model_json (exec);
  json_node_init_object (node, definition);
  json = json_to_string (node, FALSE);
  g_assert_nonnull (
    strstr (json, "\"required\":[\"cmd\",\"timeout_seconds\"]"));
  g_assert_nonnull (strstr (json, "\"type\":[\"number\",\"null\"]"));
  g_assert_nonnull (strstr (json, "\"additionalProperties\":false"));

  /* The approval setting survives the per-run clone, and stays out of
   * the capability's JSON (the reference's Shell() dumps as its type). */
  g_object_set (shell, "needs-approval", TRUE, NULL);
  g_assert_true (agents_shell_capability_get_needs_approval (
    AGENTS_SHELL_CAPABILITY (shell)));
  clone = agents_capability_clone (shell);
  approved_exec = find_tool (clone, "exec_command");
  g_assert_true (agents_tool_get_needs_approval (approved_exec));
  dump = agents_capability_to_json (clone);
  g_free (json);
  json = json_to_string (dump, FALSE);
  g_assert_cmpstr (json, ==, "{\"type\":\"shell\"}");
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  /* The backend is linked in statically. */
  g_unsetenv ("AGENTS_PLUGIN_PATH");

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
  ADD ("/sandbox/builtin-tools/exec-reports-exit-code-and-stderr",
       test_exec_reports_exit_code_and_stderr);
  ADD ("/sandbox/builtin-tools/huge-output-is-truncated",
       test_huge_output_is_truncated);
  ADD ("/sandbox/builtin-tools/huge-file-is-truncated",
       test_huge_file_is_truncated);
#undef ADD
  g_test_add_func ("/sandbox/builtin-tools/unbound-capability-is-an-error-text",
                   test_unbound_capability_is_an_error_text);
  g_test_add_func ("/sandbox/builtin-tools/tool-definitions",
                   test_tool_definitions);
  return g_test_run ();
}
