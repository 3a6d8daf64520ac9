/* test-reference-runtime.c - reference cases RT-*: runtime, session
 * manager, lifecycle (../shared/spec/reference-cases.md)
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "fake-sandbox.h"
#include "test-utils.h"

/* RT-02 */
static void
test_runner_allows_fresh_sessions_with_default_options (void)
{
  g_autoptr (JsonArray) items =
    agents_testing_items (agents_testing_final_output_message ("done"), NULL);
  g_autoptr (AgentsScriptedModel) model =
    agents_scripted_model_new_with_initial_output (items);
  g_autoptr (AgentsSandboxAgent) agent = agents_sandbox_agent_new ("sandbox");
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeManifestClient) client = fake_manifest_client_new ();
  g_autoptr (AgentsSandboxRunConfig) sandbox = agents_sandbox_run_config_new ();
  g_autoptr (AgentsRunConfig) config = agents_run_config_new ();
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (JsonNode) input = agents_test_str_node ("hello");
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  JsonNode *output;

  agents_agent_set_model (AGENTS_AGENT (agent), AGENTS_MODEL (model));
  agents_sandbox_agent_set_default_manifest (agent, manifest);
  agents_sandbox_run_config_set_client (sandbox,
                                        AGENTS_SANDBOX_CLIENT (client));
  agents_run_config_set_sandbox (config, G_OBJECT (sandbox));

  AGENTS_TEST_AWAIT (res, agents_runner_run_async (
                            runner, AGENTS_AGENT (agent), input, config, NULL,
                            NULL, NULL, agents_test_async_cb, &res));
  result = agents_runner_run_finish (runner, res, &error);
  g_assert_no_error (error);
  output = agents_run_result_get_final_output (result);
  g_assert_nonnull (output);
  g_assert_cmpstr (json_node_get_string (output), ==, "done");
  g_assert_cmpuint (client->created_manifests->len, ==, 1);
  g_assert_nonnull (g_ptr_array_index (client->created_manifests, 0));
}

/* ---- RT-04, RT-06: the run's workspace cwd ---------------------------- */

/* A runtime over @session (probes answered, the reference's probe-recording
 * session) with the run cwd «tasks/a» and options set. */
static AgentsSandboxRuntime *
cwd_runtime (AgentsSandboxAgent *agent, FakeSession *session)
{
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsSandboxRunConfig) sandbox = agents_sandbox_run_config_new ();
  g_autoptr (AgentsRunConfig) config = agents_run_config_new ();
  GVariantDict options;

  session->exec_mode = FAKE_EXEC_EMPTY;
  agents_sandbox_run_config_set_client (sandbox,
                                        AGENTS_SANDBOX_CLIENT (client));
  g_variant_dict_init (&options, NULL);
  g_variant_dict_insert (&options, "image", "s", "sandbox");
  agents_sandbox_run_config_set_options (sandbox,
                                         g_variant_dict_end (&options));
  agents_sandbox_run_config_set_workspace_cwd (sandbox, "tasks/a");
  agents_run_config_set_sandbox (config, G_OBJECT (sandbox));
  return agents_sandbox_runtime_new (AGENTS_AGENT (agent), config, NULL);
}

static AgentsSandboxPreparedAgent *
prepare_cwd_agent (AgentsSandboxRuntime *runtime, AgentsSandboxAgent *agent)
{
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);
  g_autoptr (JsonNode) input = agents_test_str_node ("hello");
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GError) error = NULL;
  AgentsSandboxPreparedAgent *prepared;

  AGENTS_TEST_AWAIT (res, agents_sandbox_runtime_prepare_agent_async (
                            runtime, AGENTS_AGENT (agent), input, ctx, FALSE,
                            NULL, agents_test_async_cb, &res));
  prepared = agents_sandbox_runtime_prepare_agent_finish (runtime, res, &error);
  g_assert_no_error (error);
  g_assert_nonnull (prepared);
  return prepared;
}

static AgentsSandboxAgent *
execution_agent_of (AgentsSandboxPreparedAgent *prepared)
{
  return AGENTS_SANDBOX_AGENT (
    agents_sandbox_prepared_agent_get_execution_agent (prepared));
}

/* A probe as the session ran it: `test FLAG PATH`, no `sh -c`, through
 * `sudo -n -u USER --` when there is a user. */
static void
assert_probe (GStrv argv, const char *user, const char *flag)
{
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
  g_auto (GStrv) expected = NULL;

  if (user != NULL)
    g_strv_builder_add_many (builder, "sudo", "-n", "-u", user, "--", NULL);
  g_strv_builder_add_many (builder, "test", flag, "/workspace/tasks/a", NULL);
  expected = g_strv_builder_end (builder);
  g_assert_cmpstrv (argv, expected);
}

/* The session's commands that are probes: `test` after the user switch,
 * or first. */
static GPtrArray *
probes_of (FakeSession *session)
{
  GPtrArray *probes = g_ptr_array_new ();

  for (guint i = 0; i < session->exec_commands->len; i++)
    {
      GStrv argv = session->exec_commands->pdata[i];
      guint skip = g_str_equal (argv[0], "sudo") ? 5 : 0;

      if (g_strv_length (argv) > skip && g_str_equal (argv[skip], "test"))
        g_ptr_array_add (probes, argv);
    }
  return probes;
}

/* RT-04: test_prepare_agent_binds_and_validates_run_workspace_scope */
static void
test_binds_and_validates_run_workspace_scope (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (manifest);
  g_autoptr (AgentsCapability) capability =
    fake_recording_capability_new (NULL, NULL, NULL);
  g_autoptr (AgentsSandboxAgent) agent = agents_sandbox_agent_new ("sandbox");
  g_autoptr (AgentsSandboxRuntime) runtime = NULL;
  g_autoptr (AgentsSandboxPreparedAgent) prepared = NULL;
  g_autoptr (AgentsCapability) clone = NULL;

  agents_sandbox_agent_set_capabilities (agent, &capability, 1);
  agents_sandbox_agent_set_run_as_name (agent, "sandbox-user");
  runtime = cwd_runtime (agent, session);

  prepared = prepare_cwd_agent (runtime, agent);

  clone = g_list_model_get_item (
    agents_sandbox_agent_get_capabilities (execution_agent_of (prepared)), 0);
  g_assert_true (clone != capability);
  g_assert_cmpstr (agents_capability_get_cwd (clone), ==, "tasks/a");
  g_assert_null (agents_capability_get_cwd (capability));
  g_assert_cmpuint (session->exec_commands->len, ==, 2);
  assert_probe (session->exec_commands->pdata[0], "sandbox-user", "-d");
  assert_probe (session->exec_commands->pdata[1], "sandbox-user", "-x");
}

/* Invokes the tool @name of @agent; returns its output text. */
static char *
invoke_tool (AgentsSandboxAgent *agent, const char *name, const char *input)
{
  AgentsTool *tool = agents_agent_find_tool (AGENTS_AGENT (agent), name);
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) output = NULL;

  g_assert_nonnull (tool);
  AGENTS_TEST_AWAIT (res,
                     agents_tool_invoke_async (tool, ctx, "call_1", input, NULL,
                                               agents_test_async_cb, &res));
  output = agents_tool_invoke_finish (tool, res, &error);
  g_assert_no_error (error);
  g_assert_nonnull (output);
  return JSON_NODE_HOLDS_VALUE (output)
           ? g_strdup (json_node_get_string (output))
           : json_to_string (output, FALSE);
}

/* The built-in tools of @agent run as @user, relative paths from the
 * cwd: exec_command (its command), view_image and apply_patch (their
 * reads; the fake refuses them, which the tools report as output). */
static void
assert_tools_bound_to (AgentsSandboxAgent *agent,
                       FakeSession *session,
                       const char *user)
{
  g_autofree char *exec = NULL;
  g_autofree char *view = NULL;
  g_autofree char *patch = NULL;
  g_autofree char *expected_image = NULL;
  g_autofree char *expected_patch = NULL;
  GStrv argv;

  exec = invoke_tool (agent, "exec_command", "{\"cmd\": \"pwd\"}");
  argv =
    g_ptr_array_index (session->exec_commands, session->exec_commands->len - 1);
  {
    const char *expected[] = { "sudo", "-n",
                               "-u",   user,
                               "--",   "sh",
                               "-c",   "cd '/workspace/tasks/a' && pwd",
                               NULL };

    g_assert_cmpstrv (argv, expected);
  }

  g_ptr_array_set_size (session->read_calls, 0);
  view = invoke_tool (agent, "view_image", "{\"path\": \"plot.png\"}");
  g_assert_cmpuint (session->read_calls->len, ==, 1);
  expected_image = g_strdup_printf ("%s|tasks/a/plot.png", user);
  g_assert_cmpstr (session->read_calls->pdata[0], ==, expected_image);

  g_ptr_array_set_size (session->read_calls, 0);
  patch = invoke_tool (agent, "apply_patch",
                       "*** Begin Patch\n*** Delete File: old.txt\n"
                       "*** End Patch");
  g_assert_cmpuint (session->read_calls->len, ==, 1);
  expected_patch = g_strdup_printf ("%s|/workspace/tasks/a/old.txt", user);
  g_assert_cmpstr (session->read_calls->pdata[0], ==, expected_patch);
}

static void
assert_same_capabilities (AgentsSandboxAgent *a, AgentsSandboxAgent *b)
{
  GListModel *first = agents_sandbox_agent_get_capabilities (a);
  GListModel *second = agents_sandbox_agent_get_capabilities (b);
  guint n = g_list_model_get_n_items (first);

  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpuint (g_list_model_get_n_items (second), ==, n);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GObject) x = g_list_model_get_item (first, i);
      g_autoptr (GObject) y = g_list_model_get_item (second, i);

      g_assert_true (x == y);
    }
}

/* RT-06 (a): test_prepare_agent_rematerializes_cached_tools_when_run_as_
 * changes. AgentsUser names are fixed: the agent gets a new user object
 * named «second-user», the C form of renaming its user. */
static void
test_rematerializes_tools_when_run_as_changes (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (manifest);
  AgentsCapability *capabilities[] = { agents_shell_capability_new (),
                                       agents_filesystem_capability_new () };
  g_autoptr (AgentsSandboxAgent) agent = agents_sandbox_agent_new ("sandbox");
  g_autoptr (AgentsSandboxRuntime) runtime = NULL;
  g_autoptr (AgentsSandboxPreparedAgent) first = NULL;
  g_autoptr (AgentsSandboxPreparedAgent) second = NULL;
  g_autoptr (AgentsSandboxPreparedAgent) third = NULL;
  g_autoptr (GPtrArray) probes = NULL;

  agents_sandbox_agent_set_capabilities (agent, capabilities, 2);
  g_object_unref (capabilities[0]);
  g_object_unref (capabilities[1]);
  agents_sandbox_agent_set_run_as_name (agent, "first-user");
  runtime = cwd_runtime (agent, session);

  first = prepare_cwd_agent (runtime, agent);
  assert_tools_bound_to (execution_agent_of (first), session, "first-user");

  agents_sandbox_agent_set_run_as_name (agent, "second-user");
  second = prepare_cwd_agent (runtime, agent);
  g_assert_true (execution_agent_of (second) != execution_agent_of (first));
  assert_same_capabilities (execution_agent_of (first),
                            execution_agent_of (second));
  assert_tools_bound_to (execution_agent_of (second), session, "second-user");

  third = prepare_cwd_agent (runtime, agent);
  g_assert_true (execution_agent_of (third) == execution_agent_of (second));

  probes = probes_of (session);
  g_assert_cmpuint (probes->len, ==, 6);
  assert_probe (probes->pdata[0], "first-user", "-d");
  assert_probe (probes->pdata[1], "first-user", "-x");
  for (guint i = 2; i < 6; i++)
    assert_probe (probes->pdata[i], "second-user", i % 2 ? "-x" : "-d");
}

/* RT-06 (b): test_prepare_agent_serializes_cwd_probe_with_posix_sandbox_
 * semantics: the session's path normalizer answers Windows paths; the
 * probes are POSIX all the same. */
static void
test_cwd_probe_uses_posix_paths (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (manifest);
  g_autoptr (AgentsSandboxAgent) agent = agents_sandbox_agent_new ("sandbox");
  g_autoptr (AgentsSandboxRuntime) runtime = NULL;
  g_autoptr (AgentsSandboxPreparedAgent) prepared = NULL;

  session->windows_paths = TRUE;
  runtime = cwd_runtime (agent, session);

  prepared = prepare_cwd_agent (runtime, agent);

  g_assert_cmpuint (session->exec_commands->len, ==, 2);
  assert_probe (session->exec_commands->pdata[0], NULL, "-d");
  assert_probe (session->exec_commands->pdata[1], NULL, "-x");
}

static void
test_rematerializes_when_run_as_changes (void)
{
  test_rematerializes_tools_when_run_as_changes ();
  test_cwd_probe_uses_posix_paths ();
}

/* RT-08: a pre-stop hook raising cancellation. */
static void
cancelling_hook (AgentsSandboxSession *session, GTask *task, gpointer user_data)
{
  guint *calls = user_data;

  (*calls)++;
  g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                           "pre-stop hook cancelled");
}

static void
add_cancelling_hook (FakeSession *session, guint *calls)
{
  guint id = agents_sandbox_session_add_pre_stop_hook (
    AGENTS_SANDBOX_SESSION (session), cancelling_hook, calls, NULL);

  g_assert_cmpuint (id, !=, 0);
  g_assert_true (agents_sandbox_session_has_pre_stop_hooks (
    AGENTS_SANDBOX_SESSION (session)));
}

/* RT-08 (a): the runner-owned resources' cleanup. */
static void
test_pre_stop_cancellation_runner_owned (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (manifest);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsSandboxAgent) agent = agents_sandbox_agent_new ("sandbox");
  g_autoptr (AgentsSandboxRunConfig) sandbox = agents_sandbox_run_config_new ();
  g_autoptr (AgentsSandboxSessionManager) manager = NULL;
  g_autoptr (GPtrArray) capabilities = g_ptr_array_new ();
  g_autoptr (AgentsSandboxSession) live = NULL;
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (JsonObject) payload = NULL;
  g_autoptr (GError) error = NULL;
  guint hook_calls = 0;
  GVariantDict options;

  agents_sandbox_run_config_set_client (sandbox,
                                        AGENTS_SANDBOX_CLIENT (client));
  g_variant_dict_init (&options, NULL);
  g_variant_dict_insert (&options, "image", "s", "sandbox");
  agents_sandbox_run_config_set_options (sandbox,
                                         g_variant_dict_end (&options));
  manager =
    agents_sandbox_session_manager_new (AGENTS_AGENT (agent), sandbox, NULL);
  AGENTS_TEST_AWAIT (res, agents_sandbox_session_manager_ensure_session_async (
                            manager, agent, capabilities, FALSE, NULL,
                            agents_test_async_cb, &res));
  live =
    agents_sandbox_session_manager_ensure_session_finish (manager, res, &error);
  g_assert_no_error (error);
  g_assert_true (live == AGENTS_SANDBOX_SESSION (session));
  add_cancelling_hook (session, &hook_calls);

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_manager_cleanup_async (
                            manager, NULL, agents_test_async_cb, &res));
  payload =
    agents_sandbox_session_manager_cleanup_finish (manager, res, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (payload);
  g_assert_cmpuint (hook_calls, ==, 1);
  g_assert_cmpuint (session->stop_calls, ==, 0);
  g_assert_cmpuint (session->shutdown_calls, ==, 1);
  g_assert_cmpuint (session->close_dependency_calls, ==, 1);
  g_assert_cmpuint (client->delete_calls, ==, 1);
  g_assert_false (agents_sandbox_session_has_pre_stop_hooks (
    AGENTS_SANDBOX_SESSION (session)));
}

/* RT-08 (b): a direct close. */
static void
test_pre_stop_cancellation_direct_close (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (manifest);
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GError) error = NULL;
  guint hook_calls = 0;

  add_cancelling_hook (session, &hook_calls);
  AGENTS_TEST_AWAIT (
    res, agents_sandbox_session_close_async (AGENTS_SANDBOX_SESSION (session),
                                             NULL, agents_test_async_cb, &res));
  g_assert_false (agents_sandbox_session_close_finish (
    AGENTS_SANDBOX_SESSION (session), res, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (hook_calls, ==, 1);
  g_assert_cmpuint (session->stop_calls, ==, 0);
  g_assert_cmpuint (session->shutdown_calls, ==, 1);
  g_assert_cmpuint (session->close_dependency_calls, ==, 1);
}

static void
test_pre_stop_cancellation (void)
{
  test_pre_stop_cancellation_runner_owned ();
  test_pre_stop_cancellation_direct_close ();
}

typedef struct
{
  const char *name;
  GString *log;
  FakeSession *session;
  guint stop_calls_seen; /* the session's stops when the hook ran */
} LateHook;

static gboolean
complete_later (gpointer user_data)
{
  GTask *task = user_data;

  g_task_return_boolean (task, TRUE);
  g_object_unref (task);
  return G_SOURCE_REMOVE;
}

/* Completes from the main loop: the close must wait for it. */
static void
late_hook (AgentsSandboxSession *session, GTask *task, gpointer user_data)
{
  LateHook *hook = user_data;

  hook->stop_calls_seen = hook->session->stop_calls;
  g_string_append (hook->log, hook->name);
  g_idle_add (complete_later, g_object_ref (task));
}

static void
count_destroy (gpointer user_data)
{
  LateHook *hook = user_data;

  g_string_append (hook->log, "~");
}

/* Hooks run in order, each after the previous completed, before stop,
 * once: a second close runs none. */
static void
test_pre_stop_hooks_run_once_before_stop (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (manifest);
  AgentsSandboxSession *s = AGENTS_SANDBOX_SESSION (session);
  g_autoptr (GString) log = g_string_new (NULL);
  LateHook first = { "1", log, session, G_MAXUINT };
  LateHook second = { "2", log, session, G_MAXUINT };
  LateHook removed = { "x", log, session, G_MAXUINT };
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GError) error = NULL;
  guint id;

  agents_sandbox_session_add_pre_stop_hook (s, late_hook, &first,
                                            count_destroy);
  id = agents_sandbox_session_add_pre_stop_hook (s, late_hook, &removed,
                                                 count_destroy);
  agents_sandbox_session_add_pre_stop_hook (s, late_hook, &second,
                                            count_destroy);
  g_assert_true (agents_sandbox_session_remove_pre_stop_hook (s, id));
  g_assert_false (agents_sandbox_session_remove_pre_stop_hook (s, id));

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_close_async (
                            s, NULL, agents_test_async_cb, &res));
  g_assert_true (agents_sandbox_session_close_finish (s, res, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (log->str, ==, "~12~~");
  g_assert_cmpuint (first.stop_calls_seen, ==, 0);
  g_assert_cmpuint (second.stop_calls_seen, ==, 0);
  g_assert_cmpuint (session->stop_calls, ==, 1);
  g_assert_cmpuint (session->shutdown_calls, ==, 1);

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_close_async (
                            s, NULL, agents_test_async_cb, &res));
  g_assert_true (agents_sandbox_session_close_finish (s, res, &error));
  g_assert_cmpstr (log->str, ==, "~12~~");
  g_assert_cmpuint (session->stop_calls, ==, 2);
}

/* RT-10 */
static void
test_validates_running_manifest_update (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) live = fake_session_new (manifest);
  g_autoptr (AgentsCapability) mutation =
    fake_capability_new (FAKE_CAPABILITY_MANIFEST_MUTATION);
  g_autoptr (AgentsSandboxAgent) agent = agents_sandbox_agent_new ("worker");
  g_autoptr (AgentsSandboxRunConfig) sandbox = agents_sandbox_run_config_new ();
  g_autoptr (AgentsSandboxSessionManager) manager = NULL;
  g_autoptr (GPtrArray) capabilities = g_ptr_array_new ();
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GError) error = NULL;

  live->running = TRUE;
  live->delta_recorder = TRUE;
  live->reject_manifest_application = "live manifest update rejected";
  agents_sandbox_run_config_set_session (sandbox,
                                         AGENTS_SANDBOX_SESSION (live));
  manager =
    agents_sandbox_session_manager_new (AGENTS_AGENT (agent), sandbox, NULL);
  g_assert_true (agents_sandbox_session_manager_acquire_agent (
    manager, AGENTS_AGENT (agent), &error));
  g_ptr_array_add (capabilities, mutation);

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_manager_ensure_session_async (
                            manager, agent, capabilities, FALSE, NULL,
                            agents_test_async_cb, &res));
  session =
    agents_sandbox_session_manager_ensure_session_finish (manager, res, &error);
  g_assert_null (session);
  g_assert_nonnull (error);
  g_assert_cmpstr (error->message, ==, "live manifest update rejected");
  g_assert_cmpuint (live->applied_entry_batches->len, ==, 0);
  g_assert_cmpuint (live->apply_manifest_calls, ==, 0);
  g_assert_cmpuint (
    agents_manifest_get_n_entries (
      agents_sandbox_session_get_manifest (AGENTS_SANDBOX_SESSION (live))),
    ==, 0);
  agents_sandbox_session_manager_release_agents (manager);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/reference-cases/RT-02",
                   test_runner_allows_fresh_sessions_with_default_options);
  g_test_add_func ("/reference-cases/RT-04",
                   test_binds_and_validates_run_workspace_scope);
  g_test_add_func ("/reference-cases/RT-06",
                   test_rematerializes_when_run_as_changes);
  g_test_add_func ("/reference-cases/RT-08", test_pre_stop_cancellation);
  g_test_add_func ("/sandbox/pre-stop/run-once-before-stop",
                   test_pre_stop_hooks_run_once_before_stop);
  g_test_add_func ("/reference-cases/RT-10",
                   test_validates_running_manifest_update);

  return g_test_run ();
}
