/* test-sandbox-bad-input.c - sandbox runs given hostile or wrong input
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A run of a SandboxAgent with the real unix_local client, resumed from a
 * run state whose `sandbox` payload is wrong (recorded by another
 * backend, malformed, naming an unknown snapshot type), or started with
 * invalid limits, must fail with a clear error before any sandbox is
 * created or resumed. The client is wrapped to count what reaches the
 * backend, and the process's temporary directory (private to this
 * program) is checked for workspaces (`sandbox-local-*`) left behind.
 */

#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agents-unix-local-client.h"
#include "agents-unix-local-session.h"
#include "test-utils.h"

/* ---- CountingClient: unix_local, with its calls counted ------------------ */

#define COUNTING_TYPE_CLIENT (counting_client_get_type ())
G_DECLARE_FINAL_TYPE (
  CountingClient, counting_client, COUNTING, CLIENT, GObject)

struct _CountingClient
{
  GObject parent_instance;

  AgentsSandboxClient *inner;
  guint creates;
  guint resumes;
  guint deletes;
  guint deserializes;
};

static void counting_client_iface_init (AgentsSandboxClientInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  CountingClient,
  counting_client,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_SANDBOX_CLIENT,
                         counting_client_iface_init))

static const char *
counting_backend_id (AgentsSandboxClient *client)
{
  return agents_sandbox_client_get_backend_id (COUNTING_CLIENT (client)->inner);
}

static gboolean
counting_supports_default_options (AgentsSandboxClient *client)
{
  return agents_sandbox_client_supports_default_options (
    COUNTING_CLIENT (client)->inner);
}

/* Completes the outer task with the inner call's session. */
static void
session_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  AgentsSandboxClient *inner = AGENTS_SANDBOX_CLIENT (source);
  GError *error = NULL;
  AgentsSandboxSession *session =
    g_task_get_source_tag (task) == (gpointer) counting_backend_id
      ? agents_sandbox_client_create_finish (inner, result, &error)
      : agents_sandbox_client_resume_finish (inner, result, &error);

  if (session == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, session, g_object_unref);
}

static void
counting_create (AgentsSandboxClient *client,
                 AgentsManifest *manifest,
                 GVariant *options,
                 GObject *snapshot,
                 GTask *task)
{
  CountingClient *self = COUNTING_CLIENT (client);
  g_autoptr (GTask) outer = g_object_ref (task);

  self->creates++;
  /* Marks the task as a create for session_done(). */
  g_task_set_source_tag (outer, counting_backend_id);
  agents_sandbox_client_create_async (self->inner, manifest, options, snapshot,
                                      g_task_get_cancellable (task),
                                      session_done, g_steal_pointer (&outer));
}

static void
counting_resume (AgentsSandboxClient *client,
                 AgentsSandboxSessionState *state,
                 GTask *task)
{
  CountingClient *self = COUNTING_CLIENT (client);

  self->resumes++;
  agents_sandbox_client_resume_async (self->inner, state,
                                      g_task_get_cancellable (task),
                                      session_done, g_object_ref (task));
}

static void
delete_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;

  if (agents_sandbox_client_delete_finish (AGENTS_SANDBOX_CLIENT (source),
                                           result, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
counting_delete (AgentsSandboxClient *client,
                 AgentsSandboxSession *session,
                 GTask *task)
{
  CountingClient *self = COUNTING_CLIENT (client);

  self->deletes++;
  agents_sandbox_client_delete_async (self->inner, session,
                                      g_task_get_cancellable (task),
                                      delete_done, g_object_ref (task));
}

static JsonNode *
counting_serialize (AgentsSandboxClient *client,
                    AgentsSandboxSessionState *state)
{
  return agents_sandbox_client_serialize_session_state (
    COUNTING_CLIENT (client)->inner, state);
}

static AgentsSandboxSessionState *
counting_deserialize (AgentsSandboxClient *client,
                      JsonNode *payload,
                      GError **error)
{
  CountingClient *self = COUNTING_CLIENT (client);

  self->deserializes++;
  return agents_sandbox_client_deserialize_session_state (self->inner, payload,
                                                          error);
}

static void
counting_client_iface_init (AgentsSandboxClientInterface *iface)
{
  iface->get_backend_id = counting_backend_id;
  iface->supports_default_options = counting_supports_default_options;
  iface->create = counting_create;
  iface->resume = counting_resume;
  iface->delete = counting_delete;
  iface->serialize_session_state = counting_serialize;
  iface->deserialize_session_state = counting_deserialize;
}

static void
counting_client_finalize (GObject *object)
{
  g_clear_object (&COUNTING_CLIENT (object)->inner);
  G_OBJECT_CLASS (counting_client_parent_class)->finalize (object);
}

static void
counting_client_class_init (CountingClientClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = counting_client_finalize;
}

static void
counting_client_init (CountingClient *self)
{
  self->inner = agents_unix_local_client_new ();
}

/* ---- the temporary directory -------------------------------------------- */

/* The workspaces unix_local made in the temporary directory. */
static guint
count_workspaces (void)
{
  g_autoptr (GDir) dir = g_dir_open (g_get_tmp_dir (), 0, NULL);
  const char *name;
  guint n = 0;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_prefix (name, "sandbox-local-"))
      n++;
  return n;
}

static char *unused_root (void);

/* Nothing reached the backend and no workspace was made. */
static void
assert_nothing_created (CountingClient *client)
{
  g_autofree char *root = unused_root ();

  g_assert_cmpuint (client->creates, ==, 0);
  g_assert_cmpuint (client->resumes, ==, 0);
  g_assert_cmpuint (client->deletes, ==, 0);
  g_assert_cmpuint (count_workspaces (), ==, 0);
  g_assert_false (g_file_test (root, G_FILE_TEST_EXISTS));
}

/* ---- agents, configs, states ----------------------------------------------
 */

static AgentsSandboxAgent *
sandbox_agent_new (const char *name)
{
  AgentsSandboxAgent *agent = agents_sandbox_agent_new (name);
  g_autoptr (JsonArray) answer =
    agents_testing_items (agents_testing_final_output_message ("done"), NULL);
  g_autoptr (AgentsScriptedModel) model =
    agents_scripted_model_new_with_initial_output (answer);
  g_autoptr (AgentsCapability) shell = agents_shell_capability_new ();

  agents_agent_set_model (AGENTS_AGENT (agent), AGENTS_MODEL (model));
  agents_agent_set_instructions (AGENTS_AGENT (agent), "Work.");
  agents_sandbox_agent_set_capabilities (agent, &shell, 1);
  return agent;
}

/* Agents hold their model, whose recorded requests hold the agent. */
static void
release_agent (AgentsSandboxAgent *agent)
{
  agents_agent_set_model (AGENTS_AGENT (agent), NULL);
}

static AgentsRunConfig *
run_config_new (CountingClient *client, AgentsSandboxRunConfig **out_sandbox)
{
  g_autoptr (AgentsSandboxRunConfig) sandbox = agents_sandbox_run_config_new ();
  AgentsRunConfig *config = agents_run_config_new ();

  agents_sandbox_run_config_set_client (sandbox,
                                        AGENTS_SANDBOX_CLIENT (client));
  agents_run_config_set_sandbox (config, G_OBJECT (sandbox));
  if (out_sandbox != NULL)
    *out_sandbox = g_steal_pointer (&sandbox);
  return config;
}

static char *private_tmp;

/* The workspace root of the states that must never be resumed: in the
 * private temporary directory, and never made. */
static char *
unused_root (void)
{
  return g_build_filename (private_tmp, "never-made", NULL);
}

/* A serialized unix_local session state whose workspace is @root (owned
 * by the caller; %NULL: unused_root()) and whose snapshot is a noop
 * one. */
static JsonNode *
serialized_state (CountingClient *client, const char *root)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsSnapshot) snapshot = agents_noop_snapshot_new ("bad-input");
  g_autoptr (AgentsSandboxSessionState) state = NULL;
  g_autofree char *default_root = unused_root ();

  agents_manifest_set_root (manifest, root ? root : default_root);
  state = agents_unix_local_session_state_new (manifest, snapshot, FALSE);
  return agents_sandbox_client_serialize_session_state (
    AGENTS_SANDBOX_CLIENT (client), state);
}

/* {"backend_id", "current_agent_key", "current_agent_name",
 * "session_state", "sessions_by_agent": {"sandbox": {"agent_name",
 * "session_state"}}}: what a unix_local run of the agent "sandbox"
 * saves. */
static JsonObject *
payload_new (const char *backend_id, JsonNode *state)
{
  JsonObject *payload = json_object_new ();
  JsonObject *sessions = json_object_new ();
  JsonObject *entry = json_object_new ();

  json_object_set_string_member (entry, "agent_name", "sandbox");
  json_object_set_member (entry, "session_state", json_node_copy (state));
  json_object_set_object_member (sessions, "sandbox", entry);
  json_object_set_string_member (payload, "backend_id", backend_id);
  json_object_set_string_member (payload, "current_agent_key", "sandbox");
  json_object_set_string_member (payload, "current_agent_name", "sandbox");
  json_object_set_member (payload, "session_state", json_node_copy (state));
  json_object_set_object_member (payload, "sessions_by_agent", sessions);
  return payload;
}

/* The JSON of a run of @agent that took no turn yet, with @payload as its
 * sandbox payload: what a program loads from a file. */
static char *
run_state_json (AgentsSandboxAgent *agent, JsonObject *payload)
{
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);
  g_autoptr (JsonNode) input =
    json_node_init_string (json_node_alloc (), "hello");
  g_autoptr (AgentsRunState) state =
    agents_run_state_new (ctx, input, AGENTS_AGENT (agent));

  agents_run_state_set_sandbox (state, payload);
  return agents_run_state_to_json (state);
}

/* Loads @json for a fresh agent "sandbox" and resumes it with @client. */
static AgentsRunResult *
resume_from_json_vouching (CountingClient *client,
                           const char *json,
                           const char *vouched_root,
                           GError **error)
{
  g_autoptr (AgentsSandboxAgent) agent = sandbox_agent_new ("sandbox");
  g_autoptr (AgentsSandboxRunConfig) sandbox = NULL;
  g_autoptr (AgentsRunConfig) config = run_config_new (client, &sandbox);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) local_error = NULL;
  AgentsRunResult *run;

  /* The caller's manifest names @vouched_root: a state may use it. */
  if (vouched_root != NULL)
    {
      g_autoptr (AgentsManifest) manifest = agents_manifest_new ();

      agents_manifest_set_root (manifest, vouched_root);
      agents_sandbox_run_config_set_manifest (sandbox, manifest);
    }
  state =
    agents_run_state_new_from_json (AGENTS_AGENT (agent), json, &local_error);
  g_assert_no_error (local_error);
  AGENTS_TEST_AWAIT (result, agents_runner_resume_async (
                               runner, AGENTS_AGENT (agent), state, config,
                               NULL, NULL, agents_test_async_cb, &result));
  run = agents_runner_resume_finish (runner, result, error);
  release_agent (agent);
  return run;
}

static AgentsRunResult *
resume_from_json (CountingClient *client, const char *json, GError **error)
{
  return resume_from_json_vouching (client, json, NULL, error);
}

/* Resumes the agent "sandbox" from a run state with @payload. */
static AgentsRunResult *
resume_with_payload (CountingClient *client,
                     JsonObject *payload,
                     GError **error)
{
  g_autoptr (AgentsSandboxAgent) agent = sandbox_agent_new ("sandbox");
  g_autofree char *json = run_state_json (agent, payload);

  release_agent (agent);
  return resume_from_json (client, json, error);
}

static AgentsRunResult *
run_fresh (AgentsRunConfig *config, GError **error)
{
  g_autoptr (AgentsSandboxAgent) agent = sandbox_agent_new ("sandbox");
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (JsonNode) input =
    json_node_init_string (json_node_alloc (), "hello");
  g_autoptr (GAsyncResult) result = NULL;
  AgentsRunResult *run;

  AGENTS_TEST_AWAIT (result,
                     agents_runner_run_async (runner, AGENTS_AGENT (agent),
                                              input, config, NULL, NULL, NULL,
                                              agents_test_async_cb, &result));
  run = agents_runner_run_finish (runner, result, error);
  release_agent (agent);
  return run;
}

/* ---- a valid payload: the control -------------------------------------------
 */

/* The harness itself works: a well-formed unix_local payload resumes the
 * saved session (one resume, no create) and the run completes. */
static void
test_valid_payload_resumes (void)
{
  g_autoptr (CountingClient) client = g_object_new (COUNTING_TYPE_CLIENT, NULL);
  g_autofree char *root = agents_test_make_tmp_dir ("bad-input-root-");
  g_autoptr (JsonNode) state = serialized_state (client, root);
  g_autoptr (JsonObject) payload = payload_new ("unix_local", state);
  g_autoptr (AgentsSandboxAgent) agent = sandbox_agent_new ("sandbox");
  g_autofree char *json = run_state_json (agent, payload);
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;

  release_agent (agent);
  result = resume_from_json_vouching (client, json, root, &error);

  g_assert_no_error (error);
  g_assert_cmpstr (
    json_node_get_string (agents_run_result_get_final_output (result)), ==,
    "done");
  g_assert_cmpuint (client->creates, ==, 0);
  g_assert_cmpuint (client->resumes, ==, 1);
  g_assert_cmpuint (client->deletes, ==, 1);
  /* The workspace root was the caller's: kept. */
  g_assert_true (g_file_test (root, G_FILE_TEST_IS_DIR));
  agents_test_rm_rf (root);
  g_assert_cmpuint (count_workspaces (), ==, 0);
}

/* ---- another backend's payload ---------------------------------------------
 */

static void
test_run_state_backend_mismatch (void)
{
  g_autoptr (CountingClient) client = g_object_new (COUNTING_TYPE_CLIENT, NULL);
  g_autoptr (JsonNode) state = serialized_state (client, NULL);
  g_autoptr (JsonObject) payload = payload_new ("docker", state);
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) context = NULL;
  const char *value = NULL;

  result = resume_with_payload (client, payload, &error);

  g_assert_null (result);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (
    error->message, ==,
    "RunState sandbox backend does not match the configured sandbox client");
  context = agents_sandbox_error_get_context (error);
  g_assert_nonnull (context);
  g_assert_true (
    g_variant_lookup (context, "run_state_backend_id", "&s", &value));
  g_assert_cmpstr (value, ==, "docker");
  g_assert_true (
    g_variant_lookup (context, "configured_backend_id", "&s", &value));
  g_assert_cmpstr (value, ==, "unix_local");
  g_assert_cmpuint (client->deserializes, ==, 0);
  assert_nothing_created (client);
}

/* ---- a run state of another agent graph ---------------------------------- */

static void
test_run_state_of_another_agent_graph (void)
{
  g_autoptr (CountingClient) client = g_object_new (COUNTING_TYPE_CLIENT, NULL);
  g_autoptr (JsonNode) state = serialized_state (client, NULL);
  g_autoptr (JsonObject) payload = payload_new ("unix_local", state);
  g_autoptr (AgentsSandboxAgent) other = sandbox_agent_new ("sandbox");
  g_autoptr (AgentsSandboxAgent) agent = sandbox_agent_new ("stranger");
  g_autofree char *json = run_state_json (other, payload);
  g_autoptr (AgentsRunState) loaded = NULL;
  g_autoptr (GError) error = NULL;

  loaded = agents_run_state_new_from_json (AGENTS_AGENT (agent), json, &error);

  g_assert_null (loaded);
  g_assert_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_INVALID_RUN_STATE);
  /* The message names the agent the graph lacks. */
  g_assert_nonnull (strstr (error->message, "“sandbox”"));
  assert_nothing_created (client);
  release_agent (other);
  release_agent (agent);
}

/* ---- malformed envelopes ----------------------------------------------------
 */

/* A payload whose member @member (of the payload, or of its session
 * entry with @in_entry) is replaced by @value (JSON). */
static JsonObject *
malformed_payload (CountingClient *client,
                   const char *member,
                   gboolean in_entry,
                   const char *value)
{
  g_autoptr (JsonNode) state = serialized_state (client, NULL);
  JsonObject *payload = payload_new ("unix_local", state);
  JsonObject *target = payload;
  g_autoptr (GError) error = NULL;
  JsonNode *node = json_from_string (value, &error);

  g_assert_no_error (error);
  if (in_entry)
    target = json_object_get_object_member (
      json_object_get_object_member (payload, "sessions_by_agent"), "sandbox");
  json_object_set_member (target, member, node);
  return payload;
}

/* The run fails, with a message that names @what, and nothing reached
 * the backend. A run that succeeds is reported as this test's failure
 * (not an abort), so that every malformed payload gets its verdict. */
static void
assert_refused (CountingClient *client, JsonObject *payload, const char *what)
{
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;

  result = resume_with_payload (client, payload, &error);

  if (result != NULL)
    {
      g_autofree char *root = unused_root ();

      /* A resume made the workspace: keep the next test clean. */
      agents_test_rm_rf (root);
      g_test_fail_printf ("the malformed payload was accepted: the run "
                          "succeeded after %u create(s) and %u resume(s)",
                          client->creates, client->resumes);
      return;
    }
  g_assert_nonnull (error);
  g_test_message ("refused: %s", error->message);
  if (strstr (error->message, what) == NULL)
    g_error ("the error “%s” does not name %s", error->message, what);
  assert_nothing_created (client);
}

static void
test_sessions_by_agent_not_an_object (void)
{
  static const char *const values[] = { "\"sandbox\"", "[]", "42" };

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_autoptr (CountingClient) client =
        g_object_new (COUNTING_TYPE_CLIENT, NULL);
      g_autoptr (JsonObject) payload =
        malformed_payload (client, "sessions_by_agent", FALSE, values[i]);

      g_test_message ("sessions_by_agent: %s", values[i]);
      assert_refused (client, payload, "sessions_by_agent");
    }
}

static void
test_session_entry_not_an_object (void)
{
  g_autoptr (CountingClient) client = g_object_new (COUNTING_TYPE_CLIENT, NULL);
  g_autoptr (JsonObject) payload = malformed_payload (
    client, "sessions_by_agent", FALSE, "{\"sandbox\": \"not an entry\"}");

  assert_refused (client, payload, "sessions_by_agent");
}

static void
test_session_state_not_an_object (void)
{
  static const char *const values[] = { "\"state\"", "[]", "7", "true" };

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_autoptr (CountingClient) client =
        g_object_new (COUNTING_TYPE_CLIENT, NULL);
      g_autoptr (JsonObject) payload =
        malformed_payload (client, "session_state", TRUE, values[i]);

      g_test_message ("session_state: %s", values[i]);
      assert_refused (client, payload, "session_state");
    }
}

static void
test_garbage_snapshot_type (void)
{
  g_autoptr (CountingClient) client = g_object_new (COUNTING_TYPE_CLIENT, NULL);
  g_autoptr (JsonNode) state = serialized_state (client, NULL);
  JsonObject *snapshot =
    json_object_get_object_member (json_node_get_object (state), "snapshot");
  g_autoptr (JsonObject) payload = NULL;

  json_object_set_string_member (snapshot, "type", "garbage");
  payload = payload_new ("unix_local", state);

  /* Refused without quoting the payload, which may hold credentials
   * (reference cases STATE-04 and STATE-06). */
  assert_refused (client, payload, "session state payload is invalid");
}

static void
test_backend_id_not_a_string (void)
{
  g_autoptr (CountingClient) client = g_object_new (COUNTING_TYPE_CLIENT, NULL);
  g_autoptr (JsonObject) payload =
    malformed_payload (client, "backend_id", FALSE, "{\"id\": \"docker\"}");

  assert_refused (client, payload, "backend_id");
}

/* ---- invalid limits ---------------------------------------------------------
 */

typedef struct
{
  gboolean archive;
  gint64 values[3];
  const char *message;
} LimitsCase;

static const LimitsCase limits_cases[] = {
  { FALSE, { 0, 4 }, "concurrency_limits.manifest_entries must be at least 1" },
  { FALSE, { 4, 0 }, "concurrency_limits.local_dir_files must be at least 1" },
  { FALSE,
    { -3, 4 },
    "concurrency_limits.manifest_entries must be at least 1" },
  { TRUE, { 0, 1, 1 }, "archive_limits.max_input_bytes must be at least 1" },
  { TRUE,
    { 1, 0, 1 },
    "archive_limits.max_extracted_bytes must be at least 1" },
  { TRUE, { 1, 1, 0 }, "archive_limits.max_members must be at least 1" },
};

static void
set_limits (AgentsSandboxRunConfig *sandbox, const LimitsCase *param)
{
  if (param->archive)
    {
      g_autoptr (AgentsArchiveLimits) limits = agents_archive_limits_new_full (
        param->values[0], param->values[1], param->values[2]);

      agents_sandbox_run_config_set_archive_limits (sandbox, limits);
    }
  else
    {
      g_autoptr (AgentsConcurrencyLimits) limits =
        agents_concurrency_limits_new_full (param->values[0], param->values[1]);

      agents_sandbox_run_config_set_concurrency_limits (sandbox, limits);
    }
}

static void
assert_limits_error (GError *error, const LimitsCase *param)
{
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==, param->message);
}

/* A fresh run: fails before the session is created. */
static void
test_invalid_limits_fresh_run (gconstpointer data)
{
  const LimitsCase *param = data;
  g_autoptr (CountingClient) client = g_object_new (COUNTING_TYPE_CLIENT, NULL);
  g_autoptr (AgentsSandboxRunConfig) sandbox = NULL;
  g_autoptr (AgentsRunConfig) config = run_config_new (client, &sandbox);
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;

  set_limits (sandbox, param);
  result = run_fresh (config, &error);

  g_assert_null (result);
  assert_limits_error (error, param);
  assert_nothing_created (client);
}

/* A resumed run with a valid payload: fails before the resume. */
static void
test_invalid_limits_resumed_run (gconstpointer data)
{
  const LimitsCase *param = data;
  g_autoptr (CountingClient) client = g_object_new (COUNTING_TYPE_CLIENT, NULL);
  g_autoptr (JsonNode) state = serialized_state (client, NULL);
  g_autoptr (JsonObject) payload = payload_new ("unix_local", state);
  g_autoptr (AgentsSandboxAgent) agent = sandbox_agent_new ("sandbox");
  g_autofree char *json = run_state_json (agent, payload);
  g_autoptr (AgentsSandboxRunConfig) sandbox = NULL;
  g_autoptr (AgentsRunConfig) config = run_config_new (client, &sandbox);
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunState) loaded = NULL;
  g_autoptr (GAsyncResult) async_result = NULL;
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;

  set_limits (sandbox, param);
  loaded = agents_run_state_new_from_json (AGENTS_AGENT (agent), json, &error);
  g_assert_no_error (error);
  AGENTS_TEST_AWAIT (async_result,
                     agents_runner_resume_async (
                       runner, AGENTS_AGENT (agent), loaded, config, NULL, NULL,
                       agents_test_async_cb, &async_result));
  result = agents_runner_resume_finish (runner, async_result, &error);
  release_agent (agent);

  g_assert_null (result);
  assert_limits_error (error, param);
  g_assert_cmpuint (client->deserializes, ==, 0);
  assert_nothing_created (client);
}

/* ---- main -----------------------------------------------------------------
 */

static void
remove_private_tmp_dir (void)
{
  agents_test_rm_rf (private_tmp);
  g_clear_pointer (&private_tmp, g_free);
}

/* Points TMPDIR at a directory of this program, before GLib reads it, so
 * that the workspaces counted are this program's. It is in the build
 * tree under `meson test`, so that even an aborted run leaves nothing
 * elsewhere; a failed test exits, hence the atexit(). */
static void
use_private_tmp_dir (void)
{
  const char *base = g_getenv ("G_TEST_BUILDDIR");
  char *template;

  if (base == NULL || *base == '\0')
    base = g_getenv ("TMPDIR");
  template = g_build_filename (base && *base ? base : "/tmp",
                               "bad-input-tmp-XXXXXX", NULL);
  if (mkdtemp (template) == NULL)
    g_error ("mkdtemp: %s", g_strerror (errno));
  private_tmp = template;
  g_setenv ("TMPDIR", private_tmp, TRUE);
  atexit (remove_private_tmp_dir);
}

static void
add_limits_tests (const char *name, GTestDataFunc func)
{
  static const char *const labels[] = {
    "manifest_entries", "local_dir_files",     "manifest_entries_negative",
    "max_input_bytes",  "max_extracted_bytes", "max_members",
  };

  G_STATIC_ASSERT (G_N_ELEMENTS (labels) == G_N_ELEMENTS (limits_cases));
  for (guint i = 0; i < G_N_ELEMENTS (limits_cases); i++)
    {
      g_autofree char *path =
        g_strdup_printf ("/sandbox/bad-input/%s/%s", name, labels[i]);

      g_test_add_data_func (path, &limits_cases[i], func);
    }
}

int
main (int argc, char *argv[])
{
  int status;

  use_private_tmp_dir ();
  g_test_init (&argc, &argv, NULL);
  /* The backend is linked in statically: loading the plugin modules too
   * would register its types twice. */
  g_unsetenv ("AGENTS_PLUGIN_PATH");
  agents_unix_local_register_types ();
  /* Local snapshots go under XDG_CACHE_HOME, which tests/meson.build
   * points into the build tree; no test here persists one. */

  g_test_add_func ("/sandbox/bad-input/valid_payload_resumes",
                   test_valid_payload_resumes);
  g_test_add_func ("/sandbox/bad-input/run_state_backend_mismatch",
                   test_run_state_backend_mismatch);
  g_test_add_func ("/sandbox/bad-input/run_state_of_another_agent_graph",
                   test_run_state_of_another_agent_graph);
  g_test_add_func ("/sandbox/bad-input/sessions_by_agent_not_an_object",
                   test_sessions_by_agent_not_an_object);
  g_test_add_func ("/sandbox/bad-input/session_entry_not_an_object",
                   test_session_entry_not_an_object);
  g_test_add_func ("/sandbox/bad-input/session_state_not_an_object",
                   test_session_state_not_an_object);
  g_test_add_func ("/sandbox/bad-input/garbage_snapshot_type",
                   test_garbage_snapshot_type);
  g_test_add_func ("/sandbox/bad-input/backend_id_not_a_string",
                   test_backend_id_not_a_string);
  add_limits_tests ("invalid_limits_fresh_run", test_invalid_limits_fresh_run);
  add_limits_tests ("invalid_limits_resumed_run",
                    test_invalid_limits_resumed_run);

  status = g_test_run ();
  remove_private_tmp_dir ();
  return status;
}
