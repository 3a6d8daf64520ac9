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

static void
skip_cwd (void)
{
  g_test_skip ("the run cwd workspace scope (sandbox.cwd: probes, "
               "capability clones bound to it) is not built");
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
  g_test_add_func ("/reference-cases/RT-04", skip_cwd);
  g_test_add_func ("/reference-cases/RT-06", skip_cwd);
  g_test_add_func ("/reference-cases/RT-08", test_pre_stop_cancellation);
  g_test_add_func ("/sandbox/pre-stop/run-once-before-stop",
                   test_pre_stop_hooks_run_once_before_stop);
  g_test_add_func ("/reference-cases/RT-10",
                   test_validates_running_manifest_update);

  return g_test_run ();
}
