/* test-sandbox-runtime.c - the sandbox runtime: session manager, agent
 * preparation and sandbox runs that are resumed from run states
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Ports of the reference's test_runtime.py (session manager, runtime and
 * resume tests). The unix_local tests use the real, confined backend.
 */

#include "config.h"

#include <string.h>

#include "agents-run-private.h"
#include "agents-sandbox-runtime-private.h"
#include "agents-unix-local-client.h"
#include "agents-unix-local-session.h"
#include "fake-sandbox.h"
#include "fake-session.h"
#include "test-utils.h"

/* ---- JSON helpers ------------------------------------------------------ */

static JsonNode *
parse_node (const char *json)
{
  g_autoptr (GError) error = NULL;
  JsonNode *node = json_from_string (json, &error);

  g_assert_no_error (error);
  return node;
}

static JsonNode *
object_node (JsonObject *object)
{
  return json_node_init_object (json_node_alloc (), object);
}

static char *
node_text (JsonNode *node)
{
  return node != NULL ? json_to_string (node, FALSE) : g_strdup ("NULL");
}

/* assert a == b, as the reference compares dicts */
static void
assert_json_equal (JsonNode *a, JsonNode *b)
{
  if (a != NULL && b != NULL && json_node_equal (a, b))
    return;

  {
    g_autofree char *ta = node_text (a);
    g_autofree char *tb = node_text (b);

    g_assert_cmpstr (ta, ==, tb);
    g_assert_not_reached ();
  }
}

static void
assert_json_object_equal (JsonObject *a, JsonObject *b)
{
  g_autoptr (JsonNode) na = a ? object_node (a) : NULL;
  g_autoptr (JsonNode) nb = b ? object_node (b) : NULL;

  assert_json_equal (na, nb);
}

static JsonObject *
member_object (JsonObject *object, const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  g_assert_nonnull (node);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  return json_node_get_object (node);
}

/* {"agent_name": NAME, "session_state": STATE} */
static JsonNode *
session_entry (const char *agent_name, JsonNode *session_state)
{
  JsonObject *entry = json_object_new ();
  JsonNode *node;

  json_object_set_string_member (entry, "agent_name", agent_name);
  json_object_set_member (entry, "session_state",
                          json_node_copy (session_state));
  node = object_node (entry);
  json_object_unref (entry);
  return node;
}

/* The run state "sandbox" payload: {"backend_id", "current_agent_key",
 * "current_agent_name", "session_state", "sessions_by_agent": {}}; add
 * sessions with payload_add_session(). */
static JsonObject *
payload_new (const char *backend_id,
             const char *current_key,
             const char *current_name,
             JsonNode *session_state)
{
  JsonObject *payload = json_object_new ();

  json_object_set_string_member (payload, "backend_id", backend_id);
  json_object_set_string_member (payload, "current_agent_key", current_key);
  json_object_set_string_member (payload, "current_agent_name", current_name);
  json_object_set_member (payload, "session_state",
                          json_node_copy (session_state));
  json_object_set_object_member (payload, "sessions_by_agent",
                                 json_object_new ());
  return payload;
}

static void
payload_add_session (JsonObject *payload,
                     const char *key,
                     const char *agent_name,
                     JsonNode *session_state)
{
  json_object_set_member (member_object (payload, "sessions_by_agent"), key,
                          session_entry (agent_name, session_state));
}

/* client.serialize_session_state(TestSessionState(manifest=Manifest(),
 * snapshot=NoopSnapshot(id=ID))) */
static JsonNode *
serialized_noop_state (FakeClient *client, const char *snapshot_id)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsSnapshot) snapshot = agents_noop_snapshot_new (snapshot_id);
  g_autoptr (AgentsSandboxSessionState) state =
    agents_sandbox_session_state_new (manifest, snapshot);

  return agents_sandbox_client_serialize_session_state (
    AGENTS_SANDBOX_CLIENT (client), state);
}

static AgentsSandboxSessionState *
noop_state (const char *snapshot_id)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsSnapshot) snapshot = agents_noop_snapshot_new (snapshot_id);

  return agents_sandbox_session_state_new (manifest, snapshot);
}

/* ---- Agents, models, tools --------------------------------------------- */

/* Adds one turn output per NULL-terminated list of JsonArray (taken). */
static void
add_turns (AgentsScriptedModel *model, JsonArray *first, ...)
{
  g_autoptr (GPtrArray) outputs =
    g_ptr_array_new_with_free_func ((GDestroyNotify) json_array_unref);
  va_list args;

  va_start (args, first);
  for (JsonArray *turn = first; turn != NULL; turn = va_arg (args, JsonArray *))
    g_ptr_array_add (outputs, turn);
  va_end (args);
  agents_scripted_model_add_multiple_turn_outputs (model, outputs);
}

/* FakeModel(initial_output=[get_final_output_message(TEXT)]) */
static AgentsScriptedModel *
final_output_model (const char *text)
{
  g_autoptr (JsonArray) items =
    agents_testing_items (agents_testing_final_output_message (text), NULL);

  return agents_scripted_model_new_with_initial_output (items);
}

static JsonArray *
call_turn (const char *name, const char *arguments, const char *call_id)
{
  return agents_testing_items (
    agents_testing_function_tool_call (name, arguments, call_id), NULL);
}

static JsonArray *
handoff_turn (AgentsAgent *to)
{
  return agents_testing_items (agents_testing_handoff_tool_call (to), NULL);
}

static JsonArray *
final_turn (const char *text)
{
  return agents_testing_items (agents_testing_final_output_message (text),
                               NULL);
}

/* @function_tool(name_override="approval_tool", needs_approval=True) */
static AgentsTool *
approval_tool_new (void)
{
  AgentsTool *tool = agents_testing_function_tool ("approval_tool", "approved");

  agents_tool_set_needs_approval (tool, TRUE);
  return tool;
}

/* SandboxAgent(name=, model=, instructions=); capabilities stay the
 * default list, as when the reference passes none. */
static AgentsSandboxAgent *
sandbox_agent_new (const char *name,
                   AgentsScriptedModel *model,
                   const char *instructions)
{
  AgentsSandboxAgent *agent = agents_sandbox_agent_new (name);

  if (model != NULL)
    agents_agent_set_model (AGENTS_AGENT (agent), AGENTS_MODEL (model));
  if (instructions != NULL)
    agents_agent_set_instructions (AGENTS_AGENT (agent), instructions);
  return agent;
}

/* capabilities=[...] (NULL-terminated, taken) */
static void
set_capabilities (AgentsSandboxAgent *agent, AgentsCapability *first, ...)
{
  g_autoptr (GPtrArray) caps = g_ptr_array_new_with_free_func (g_object_unref);
  va_list args;

  va_start (args, first);
  for (AgentsCapability *cap = first; cap != NULL;
       cap = va_arg (args, AgentsCapability *))
    g_ptr_array_add (caps, cap);
  va_end (args);
  agents_sandbox_agent_set_capabilities (
    agent, (AgentsCapability **) caps->pdata, caps->len);
}

/* agent.handoffs = [...] (NULL-terminated) */
static void
set_handoffs (gpointer agent, gpointer first, ...)
{
  g_autoptr (GPtrArray) handoffs = g_ptr_array_new ();
  va_list args;

  va_start (args, first);
  for (gpointer handoff = first; handoff != NULL;
       handoff = va_arg (args, gpointer))
    g_ptr_array_add (handoffs, handoff);
  va_end (args);
  agents_agent_set_handoffs (AGENTS_AGENT (agent), (GObject **) handoffs->pdata,
                             handoffs->len);
}

/* Handoff lists that point back make reference cycles, and so do scripted
 * models, whose recorded requests keep the handoffs: break them. */
static void
clear_handoffs (gpointer first, ...)
{
  va_list args;

  va_start (args, first);
  for (gpointer agent = first; agent != NULL; agent = va_arg (args, gpointer))
    {
      agents_agent_set_handoffs (AGENTS_AGENT (agent), NULL, 0);
      agents_agent_set_model (AGENTS_AGENT (agent), NULL);
    }
  va_end (args);
}

/* ---- Run configs ------------------------------------------------------- */

/* options={"image": "sandbox"} */
static GVariant *
image_options (void)
{
  GVariantDict dict;

  g_variant_dict_init (&dict, NULL);
  g_variant_dict_insert (&dict, "image", "s", "sandbox");
  return g_variant_ref_sink (g_variant_dict_end (&dict));
}

/* SandboxRunConfig(client=client, options={"image": "sandbox"}) */
static AgentsSandboxRunConfig *
fake_sandbox_config (FakeClient *client)
{
  AgentsSandboxRunConfig *config = agents_sandbox_run_config_new ();
  g_autoptr (GVariant) options = image_options ();

  agents_sandbox_run_config_set_client (config, AGENTS_SANDBOX_CLIENT (client));
  agents_sandbox_run_config_set_options (config, options);
  return config;
}

static AgentsRunConfig *
run_config_with (AgentsSandboxRunConfig *sandbox)
{
  AgentsRunConfig *config = agents_run_config_new ();

  agents_run_config_set_sandbox (config, G_OBJECT (sandbox));
  return config;
}

/* _sandbox_run_config(client) */
static AgentsRunConfig *
sandbox_run_config (FakeClient *client)
{
  g_autoptr (AgentsSandboxRunConfig) sandbox = fake_sandbox_config (client);

  return run_config_with (sandbox);
}

/* _unix_local_run_config(client=, session_state=, manifest=) */
static AgentsRunConfig *
unix_local_run_config (AgentsSandboxClient *client,
                       AgentsSandboxSessionState *session_state,
                       AgentsManifest *manifest)
{
  g_autoptr (AgentsSandboxRunConfig) sandbox = agents_sandbox_run_config_new ();
  g_autoptr (AgentsSandboxClient) own_client = NULL;
  g_autoptr (AgentsManifest) own_manifest = NULL;

  if (client == NULL)
    client = own_client = agents_unix_local_client_new ();
  agents_sandbox_run_config_set_client (sandbox, client);
  if (session_state != NULL)
    agents_sandbox_run_config_set_session_state (sandbox, session_state);
  else
    {
      if (manifest == NULL)
        manifest = own_manifest = agents_manifest_new ();
      agents_sandbox_run_config_set_manifest (sandbox, manifest);
    }
  return run_config_with (sandbox);
}

/* ---- Running ----------------------------------------------------------- */

static AgentsRunResult *
run_agent (gpointer agent,
           const char *input,
           AgentsRunConfig *config,
           GError **error)
{
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (JsonNode) node = agents_test_str_node (input);

  AGENTS_TEST_AWAIT (result, agents_runner_run_async (
                               runner, AGENTS_AGENT (agent), node, config, NULL,
                               NULL, NULL, agents_test_async_cb, &result));
  return agents_runner_run_finish (runner, result, error);
}

static AgentsRunResult *
resume_agent (gpointer agent,
              AgentsRunState *state,
              AgentsRunConfig *config,
              GError **error)
{
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (GAsyncResult) result = NULL;

  AGENTS_TEST_AWAIT (result, agents_runner_resume_async (
                               runner, AGENTS_AGENT (agent), state, config,
                               NULL, NULL, agents_test_async_cb, &result));
  return agents_runner_resume_finish (runner, result, error);
}

static void
assert_final_output (AgentsRunResult *result, const char *text)
{
  JsonNode *output = agents_run_result_get_final_output (result);

  g_assert_nonnull (output);
  g_assert_true (JSON_NODE_HOLDS_VALUE (output));
  g_assert_cmpstr (json_node_get_string (output), ==, text);
}

/* any(isinstance(item, ToolCallOutputItem) and item.output == TEXT and
 *     item.agent is AGENT for item in result.new_items) */
static gboolean
has_tool_output (AgentsRunResult *result, const char *text, gpointer agent)
{
  GListModel *items = agents_run_result_get_new_items (result);

  for (guint i = 0; i < g_list_model_get_n_items (items); i++)
    {
      g_autoptr (AgentsRunItem) item = g_list_model_get_item (items, i);
      JsonNode *output = agents_run_item_get_output (item);

      if (agents_run_item_get_kind (item) !=
            AGENTS_RUN_ITEM_KIND_TOOL_CALL_OUTPUT ||
          output == NULL || !JSON_NODE_HOLDS_VALUE (output) ||
          json_node_get_value_type (output) != G_TYPE_STRING)
        continue;
      if (g_strcmp0 (json_node_get_string (output), text) == 0 &&
          agents_run_item_get_agent (item) == AGENTS_AGENT (agent))
        return TRUE;
    }
  return FALSE;
}

static AgentsRunItem *
first_interruption (GListModel *interruptions)
{
  g_autoptr (AgentsRunItem) item = NULL;

  g_assert_cmpuint (g_list_model_get_n_items (interruptions), >=, 1);
  item = g_list_model_get_item (interruptions, 0);
  return item; /* the list keeps it alive */
}

static AgentsRunState *
state_from_json (gpointer starting_agent, const char *json)
{
  g_autoptr (GError) error = NULL;
  AgentsRunState *state = agents_run_state_new_from_json (
    AGENTS_AGENT (starting_agent), json, &error);

  g_assert_no_error (error);
  g_assert_nonnull (state);
  return state;
}

static AgentsRunState *
new_run_state (gpointer starting_agent)
{
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);
  g_autoptr (JsonNode) input = agents_test_str_node ("hello");

  return agents_run_state_new (ctx, input, AGENTS_AGENT (starting_agent));
}

/* ---- Session manager --------------------------------------------------- */

static AgentsSandboxSession *
ensure_session (AgentsSandboxSessionManager *manager,
                gpointer agent,
                GPtrArray *capabilities,
                gboolean is_resumed_state,
                GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  AGENTS_TEST_AWAIT (result,
                     agents_sandbox_session_manager_ensure_session_async (
                       manager, AGENTS_SANDBOX_AGENT (agent), capabilities,
                       is_resumed_state, NULL, agents_test_async_cb, &result));
  return agents_sandbox_session_manager_ensure_session_finish (manager, result,
                                                               error);
}

static JsonObject *
manager_cleanup (AgentsSandboxSessionManager *manager)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  JsonObject *payload;

  AGENTS_TEST_AWAIT (result, agents_sandbox_session_manager_cleanup_async (
                               manager, NULL, agents_test_async_cb, &result));
  payload =
    agents_sandbox_session_manager_cleanup_finish (manager, result, &error);
  g_assert_no_error (error);
  return payload;
}

static void
acquire (AgentsSandboxSessionManager *manager, gpointer agent)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (agents_sandbox_session_manager_acquire_agent (
    manager, AGENTS_AGENT (agent), &error));
  g_assert_no_error (error);
}

static GPtrArray *
capability_list (AgentsCapability *first, ...)
{
  GPtrArray *caps = g_ptr_array_new_with_free_func (g_object_unref);
  va_list args;

  va_start (args, first);
  for (AgentsCapability *cap = first; cap != NULL;
       cap = va_arg (args, AgentsCapability *))
    g_ptr_array_add (caps, g_object_ref (cap));
  va_end (args);
  return caps;
}

/* entries[PATH] == File(content=TEXT) */
static void
assert_file_entry (AgentsManifest *manifest, const char *path, const char *text)
{
  AgentsManifestEntry *entry = agents_manifest_get_entry (manifest, path);
  g_autoptr (AgentsManifestEntry) expected = agents_file_new_from_text (text);

  g_assert_nonnull (entry);
  g_assert_true (agents_manifest_entry_equal (entry, expected));
}

/* users == [USER] */
static void
assert_users_are (AgentsManifest *manifest, AgentsUser *user)
{
  GPtrArray *users = agents_manifest_get_users (manifest);

  g_assert_cmpuint (users->len, ==, 1);
  g_assert_true (agents_user_equal (g_ptr_array_index (users, 0), user));
}

/* applied_entry_batches[I] == [(Path("/workspace/cap.txt"),
 *                               File(content=b"capability"))] */
static void
assert_cap_batch (FakeSession *session, guint i)
{
  GPtrArray *batch = g_ptr_array_index (session->applied_entry_batches, i);
  AgentsEntryTarget *target;
  g_autoptr (AgentsManifestEntry) expected =
    agents_file_new_from_text ("capability");

  g_assert_cmpuint (batch->len, ==, 1);
  target = g_ptr_array_index (batch, 0);
  g_assert_cmpstr (target->path, ==, "/workspace/cap.txt");
  g_assert_true (agents_manifest_entry_equal (target->entry, expected));
}

/* ---- Runtime ----------------------------------------------------------- */

static AgentsSandboxPreparedAgent *
prepare_agent (AgentsSandboxRuntime *runtime,
               gpointer agent,
               JsonNode *input,
               AgentsRunContext *ctx)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  AgentsSandboxPreparedAgent *prepared;

  AGENTS_TEST_AWAIT (result, agents_sandbox_runtime_prepare_agent_async (
                               runtime, AGENTS_AGENT (agent), input, ctx, FALSE,
                               NULL, agents_test_async_cb, &result));
  prepared =
    agents_sandbox_runtime_prepare_agent_finish (runtime, result, &error);
  g_assert_no_error (error);
  g_assert_nonnull (prepared);
  return prepared;
}

static AgentsSandboxPreparedAgent *
prepare_agent_text (AgentsSandboxRuntime *runtime,
                    gpointer agent,
                    const char *input,
                    AgentsRunContext *ctx)
{
  g_autoptr (JsonNode) node = agents_test_str_node (input);

  return prepare_agent (runtime, agent, node, ctx);
}

static JsonObject *
runtime_cleanup (AgentsSandboxRuntime *runtime)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  JsonObject *payload;

  AGENTS_TEST_AWAIT (result, agents_sandbox_runtime_cleanup_async (
                               runtime, NULL, agents_test_async_cb, &result));
  payload = agents_sandbox_runtime_cleanup_finish (runtime, result, &error);
  g_assert_no_error (error);
  return payload;
}

/* ======================================================================
 * unix_local runs
 * ====================================================================== */

static void
test_runner_allows_fresh_unix_local_sessions_without_options (void)
{
  g_autoptr (AgentsScriptedModel) model = final_output_model ("done");
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent_new ("sandbox", model, "Base instructions.");
  g_autoptr (AgentsRunConfig) config = unix_local_run_config (NULL, NULL, NULL);
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;

  result = run_agent (agent, "hello", config, &error);
  g_assert_no_error (error);

  assert_final_output (result, "done");
}

static void
test_unix_local_runner_cleanup_preserves_resumed_caller_owned_workspace_root (
  void)
{
  g_autofree char *workspace_root = agents_test_make_tmp_dir ("resumed-owned-");
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autofree char *snapshot_id = g_uuid_string_random ();
  g_autoptr (AgentsSnapshot) snapshot = NULL;
  g_autoptr (AgentsSandboxSessionState) state = NULL;
  g_autoptr (AgentsScriptedModel) model = final_output_model ("done");
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent_new ("sandbox", model, "Base instructions.");
  g_autoptr (AgentsRunConfig) config = NULL;
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GError) error = NULL;

  agents_manifest_set_root (manifest, workspace_root);
  snapshot = agents_noop_snapshot_new (snapshot_id);
  /* UnixLocalSandboxSessionState(session_id=uuid4() (a new state gets a
   * random id), manifest=…,
   * snapshot=NoopSnapshot(…)): workspace_root_owned defaults to False */
  state = agents_unix_local_session_state_new (manifest, snapshot, FALSE);
  config = unix_local_run_config (NULL, state, NULL);

  result = run_agent (agent, "hello", config, &error);

  /* finally: */
  g_assert_true (g_file_test (workspace_root, G_FILE_TEST_IS_DIR));
  agents_test_rm_rf (workspace_root);

  g_assert_no_error (error);
  assert_final_output (result, "done");
}

static void
test_runner_persists_workspace_and_tool_choice_state_across_sandbox_resume (
  void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autoptr (AgentsTool) approval_tool = approval_tool_new ();
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsScriptedModel) resumed_model = agents_scripted_model_new ();
  g_autoptr (AgentsSandboxAgent) agent = NULL;
  g_autoptr (AgentsSandboxAgent) resumed_agent = NULL;
  g_autoptr (AgentsModelSettings) settings = agents_model_settings_new ();
  g_autoptr (AgentsRunConfig) first_config = NULL;
  g_autoptr (AgentsRunConfig) resumed_config = NULL;
  g_autoptr (AgentsRunResult) first_run = NULL;
  g_autoptr (AgentsRunResult) resumed = NULL;
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (AgentsRunState) restored_state = NULL;
  g_autoptr (JsonNode) expected_entry = NULL;
  g_autofree char *state_json = NULL;
  g_autoptr (GError) error = NULL;
  JsonObject *sandbox, *session_state, *snapshot_payload, *sessions_by_agent;
  AgentsModelRequest *last_args;

  add_turns (model,
             call_turn ("write_file",
                        "{\"path\": \"note.txt\", \"content\": \"persist me\"}",
                        "call_write"),
             call_turn ("approval_tool", "{}", "call_approval"), NULL);
  agents_model_settings_set_tool_choice (settings, "required");
  agent = sandbox_agent_new ("sandbox", model, "Base instructions.");
  agents_agent_add_tool (AGENTS_AGENT (agent), approval_tool);
  set_capabilities (agent, fake_capability_new (FAKE_CAPABILITY_SESSION_FILES),
                    NULL);
  agents_agent_set_model_settings (AGENTS_AGENT (agent), settings);

  first_config = unix_local_run_config (client, NULL, NULL);
  first_run = run_agent (agent, "hello", first_config, &error);
  g_assert_no_error (error);

  g_assert_cmpuint (
    g_list_model_get_n_items (agents_run_result_get_interruptions (first_run)),
    ==, 1);
  state = agents_run_result_to_state (first_run);
  sandbox = agents_run_state_get_sandbox (state);
  g_assert_nonnull (sandbox);
  g_assert_cmpstr (json_object_get_string_member (sandbox, "backend_id"), ==,
                   "unix_local");
  session_state = member_object (sandbox, "session_state");
  snapshot_payload = member_object (session_state, "snapshot");
  g_assert_cmpstr (
    json_object_get_string_member_with_default (snapshot_payload, "type", NULL),
    ==, "local");
  sessions_by_agent = member_object (sandbox, "sessions_by_agent");
  expected_entry = session_entry (
    "sandbox", json_object_get_member (sandbox, "session_state"));
  assert_json_equal (json_object_get_member (sessions_by_agent, "sandbox"),
                     expected_entry);

  state_json = agents_run_state_to_json (state);
  add_turns (resumed_model,
             call_turn ("read_file", "{\"path\": \"note.txt\"}", "call_read"),
             final_turn ("done"), NULL);
  resumed_agent =
    sandbox_agent_new ("sandbox", resumed_model, "Base instructions.");
  agents_agent_add_tool (AGENTS_AGENT (resumed_agent), approval_tool);
  set_capabilities (resumed_agent,
                    fake_capability_new (FAKE_CAPABILITY_SESSION_FILES), NULL);
  agents_agent_set_model_settings (AGENTS_AGENT (resumed_agent), settings);

  restored_state = state_from_json (resumed_agent, state_json);
  agents_run_state_approve (
    restored_state,
    first_interruption (agents_run_state_get_interruptions (restored_state)),
    FALSE);
  resumed_config = unix_local_run_config (client, NULL, NULL);
  resumed =
    resume_agent (resumed_agent, restored_state, resumed_config, &error);
  g_assert_no_error (error);

  assert_final_output (resumed, "done");
  last_args = agents_scripted_model_get_last_turn_args (resumed_model);
  g_assert_nonnull (last_args);
  g_assert_null (agents_model_settings_get_tool_choice (
    agents_model_request_get_model_settings (last_args)));
  g_assert_true (has_tool_output (resumed, "persist me", resumed_agent));
}

static void
test_runner_restores_all_sandbox_agents_from_run_state_across_handoffs (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autoptr (AgentsTool) approval_tool = approval_tool_new ();
  g_autoptr (AgentsScriptedModel) triage_model = agents_scripted_model_new ();
  g_autoptr (AgentsScriptedModel) worker_model = agents_scripted_model_new ();
  g_autoptr (AgentsScriptedModel) resumed_triage_model =
    agents_scripted_model_new ();
  g_autoptr (AgentsScriptedModel) resumed_worker_model =
    agents_scripted_model_new ();
  g_autoptr (AgentsSandboxAgent) worker = NULL;
  g_autoptr (AgentsSandboxAgent) triage = NULL;
  g_autoptr (AgentsSandboxAgent) resumed_worker = NULL;
  g_autoptr (AgentsSandboxAgent) resumed_triage = NULL;
  g_autoptr (AgentsRunConfig) first_config = NULL;
  g_autoptr (AgentsRunConfig) resumed_config = NULL;
  g_autoptr (AgentsRunResult) first_run = NULL;
  g_autoptr (AgentsRunResult) resumed = NULL;
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (AgentsRunState) restored_state = NULL;
  g_autofree char *state_json = NULL;
  g_autoptr (GError) error = NULL;
  JsonObject *sandbox, *sessions_by_agent;

  worker = sandbox_agent_new ("worker", worker_model, "Worker instructions.");
  agents_agent_add_tool (AGENTS_AGENT (worker), approval_tool);
  triage = sandbox_agent_new ("triage", triage_model, "Triage instructions.");
  set_capabilities (triage, fake_capability_new (FAKE_CAPABILITY_SESSION_FILES),
                    NULL);
  set_handoffs (triage, worker, NULL);
  set_handoffs (worker, triage, NULL);
  add_turns (triage_model,
             call_turn ("write_file",
                        "{\"path\": \"note.txt\", \"content\": "
                        "\"persist triage\"}",
                        "call_write"),
             handoff_turn (AGENTS_AGENT (worker)), NULL);
  add_turns (worker_model, call_turn ("approval_tool", "{}", "call_approval"),
             NULL);

  first_config = unix_local_run_config (client, NULL, NULL);
  first_run = run_agent (triage, "hello", first_config, &error);
  g_assert_no_error (error);

  g_assert_cmpuint (
    g_list_model_get_n_items (agents_run_result_get_interruptions (first_run)),
    ==, 1);
  state = agents_run_result_to_state (first_run);
  sandbox = agents_run_state_get_sandbox (state);
  g_assert_nonnull (sandbox);
  g_assert_cmpstr (json_object_get_string_member (sandbox, "backend_id"), ==,
                   "unix_local");
  g_assert_cmpstr (
    json_object_get_string_member (sandbox, "current_agent_name"), ==,
    "worker");
  sessions_by_agent = member_object (sandbox, "sessions_by_agent");
  g_assert_cmpuint (json_object_get_size (sessions_by_agent), ==, 2);
  g_assert_true (json_object_has_member (sessions_by_agent, "triage"));
  g_assert_true (json_object_has_member (sessions_by_agent, "worker"));

  state_json = agents_run_state_to_json (state);
  resumed_worker =
    sandbox_agent_new ("worker", resumed_worker_model, "Worker instructions.");
  agents_agent_add_tool (AGENTS_AGENT (resumed_worker), approval_tool);
  resumed_triage =
    sandbox_agent_new ("triage", resumed_triage_model, "Triage instructions.");
  set_capabilities (resumed_triage,
                    fake_capability_new (FAKE_CAPABILITY_SESSION_FILES), NULL);
  set_handoffs (resumed_triage, resumed_worker, NULL);
  set_handoffs (resumed_worker, resumed_triage, NULL);
  add_turns (resumed_worker_model, handoff_turn (AGENTS_AGENT (resumed_triage)),
             NULL);
  add_turns (resumed_triage_model,
             call_turn ("read_file", "{\"path\": \"note.txt\"}", "call_read"),
             final_turn ("done"), NULL);

  restored_state = state_from_json (resumed_triage, state_json);
  agents_run_state_approve (
    restored_state,
    first_interruption (agents_run_state_get_interruptions (restored_state)),
    FALSE);
  resumed_config = unix_local_run_config (client, NULL, NULL);
  resumed =
    resume_agent (resumed_triage, restored_state, resumed_config, &error);
  g_assert_no_error (error);

  assert_final_output (resumed, "done");
  g_assert_true (has_tool_output (resumed, "persist triage", resumed_triage));

  clear_handoffs (triage, worker, resumed_triage, resumed_worker, NULL);
}

static void
test_runner_serializes_unique_sandbox_resume_keys_for_duplicate_agent_names (
  void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autoptr (AgentsTool) approval_tool = approval_tool_new ();
  g_autoptr (AgentsScriptedModel) first_model = agents_scripted_model_new ();
  g_autoptr (AgentsScriptedModel) second_model = agents_scripted_model_new ();
  g_autoptr (AgentsSandboxAgent) first = NULL;
  g_autoptr (AgentsSandboxAgent) second = NULL;
  g_autoptr (AgentsRunConfig) first_config = NULL;
  g_autoptr (AgentsRunConfig) resumed_config = NULL;
  g_autoptr (AgentsRunResult) first_run = NULL;
  g_autoptr (AgentsRunResult) resumed = NULL;
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (GError) error = NULL;
  JsonObject *sandbox, *sessions_by_agent;

  first = sandbox_agent_new ("sandbox", first_model, "First instructions.");
  set_capabilities (first, fake_capability_new (FAKE_CAPABILITY_SESSION_FILES),
                    NULL);
  second = sandbox_agent_new ("sandbox", second_model, "Second instructions.");
  agents_agent_add_tool (AGENTS_AGENT (second), approval_tool);
  set_handoffs (first, second, NULL);
  set_handoffs (second, first, NULL);
  add_turns (first_model,
             call_turn ("write_file",
                        "{\"path\": \"note.txt\", \"content\": \"first\"}",
                        "call_write"),
             handoff_turn (AGENTS_AGENT (second)),
             call_turn ("read_file", "{\"path\": \"note.txt\"}", "call_read"),
             final_turn ("done"), NULL);
  add_turns (second_model, call_turn ("approval_tool", "{}", "call_approval"),
             handoff_turn (AGENTS_AGENT (first)), NULL);

  first_config = unix_local_run_config (client, NULL, NULL);
  first_run = run_agent (first, "hello", first_config, &error);
  g_assert_no_error (error);

  state = agents_run_result_to_state (first_run);
  sandbox = agents_run_state_get_sandbox (state);
  g_assert_nonnull (sandbox);
  sessions_by_agent = member_object (sandbox, "sessions_by_agent");
  g_assert_cmpuint (json_object_get_size (sessions_by_agent), ==, 2);
  g_assert_true (json_object_has_member (
    sessions_by_agent,
    json_object_get_string_member (sandbox, "current_agent_key")));

  agents_run_state_approve (
    state, first_interruption (agents_run_result_get_interruptions (first_run)),
    FALSE);
  resumed_config = unix_local_run_config (client, NULL, NULL);
  resumed = resume_agent (first, state, resumed_config, &error);
  g_assert_no_error (error);

  assert_final_output (resumed, "done");
  g_assert_true (has_tool_output (resumed, "first", first));

  clear_handoffs (first, second, NULL);
}

static void
test_runner_restores_duplicate_name_sandbox_sessions_after_json_roundtrip (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autoptr (AgentsTool) approval_tool = approval_tool_new ();
  g_autoptr (AgentsScriptedModel) first_model = agents_scripted_model_new ();
  g_autoptr (AgentsScriptedModel) second_model = agents_scripted_model_new ();
  g_autoptr (AgentsScriptedModel) resumed_first_model =
    agents_scripted_model_new ();
  g_autoptr (AgentsScriptedModel) resumed_second_model =
    agents_scripted_model_new ();
  g_autoptr (AgentsSandboxAgent) first = NULL;
  g_autoptr (AgentsSandboxAgent) second = NULL;
  g_autoptr (AgentsSandboxAgent) resumed_first = NULL;
  g_autoptr (AgentsSandboxAgent) resumed_second = NULL;
  g_autoptr (AgentsRunConfig) first_config = NULL;
  g_autoptr (AgentsRunConfig) resumed_config = NULL;
  g_autoptr (AgentsRunResult) first_run = NULL;
  g_autoptr (AgentsRunResult) resumed = NULL;
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (AgentsRunState) restored_state = NULL;
  g_autofree char *state_json = NULL;
  g_autoptr (GError) error = NULL;

  first = sandbox_agent_new ("sandbox", first_model, "First instructions.");
  set_capabilities (first, fake_capability_new (FAKE_CAPABILITY_SESSION_FILES),
                    NULL);
  second = sandbox_agent_new ("sandbox", second_model, "Second instructions.");
  agents_agent_add_tool (AGENTS_AGENT (second), approval_tool);
  set_handoffs (first, second, NULL);
  set_handoffs (second, first, NULL);
  add_turns (first_model,
             call_turn ("write_file",
                        "{\"path\": \"note.txt\", \"content\": \"first\"}",
                        "call_write"),
             handoff_turn (AGENTS_AGENT (second)), NULL);
  add_turns (second_model, call_turn ("approval_tool", "{}", "call_approval"),
             NULL);

  first_config = unix_local_run_config (client, NULL, NULL);
  first_run = run_agent (first, "hello", first_config, &error);
  g_assert_no_error (error);

  state = agents_run_result_to_state (first_run);
  state_json = agents_run_state_to_json (state);

  resumed_first =
    sandbox_agent_new ("sandbox", resumed_first_model, "First instructions.");
  set_capabilities (resumed_first,
                    fake_capability_new (FAKE_CAPABILITY_SESSION_FILES), NULL);
  resumed_second =
    sandbox_agent_new ("sandbox", resumed_second_model, "Second instructions.");
  agents_agent_add_tool (AGENTS_AGENT (resumed_second), approval_tool);
  set_handoffs (resumed_first, resumed_second, NULL);
  set_handoffs (resumed_second, resumed_first, NULL);
  add_turns (resumed_second_model, handoff_turn (AGENTS_AGENT (resumed_first)),
             NULL);
  add_turns (resumed_first_model,
             call_turn ("read_file", "{\"path\": \"note.txt\"}", "call_read"),
             final_turn ("done"), NULL);

  restored_state = state_from_json (resumed_first, state_json);
  agents_run_state_approve (
    restored_state,
    first_interruption (agents_run_state_get_interruptions (restored_state)),
    FALSE);
  resumed_config = unix_local_run_config (client, NULL, NULL);
  resumed =
    resume_agent (resumed_first, restored_state, resumed_config, &error);
  g_assert_no_error (error);

  assert_final_output (resumed, "done");
  g_assert_true (has_tool_output (resumed, "first", resumed_first));

  clear_handoffs (first, second, resumed_first, resumed_second, NULL);
}

static void
test_runner_restores_legacy_current_sandbox_payload_after_json_roundtrip (void)
{
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autoptr (AgentsTool) approval_tool = approval_tool_new ();
  g_autoptr (AgentsScriptedModel) initial_model = agents_scripted_model_new ();
  g_autoptr (AgentsScriptedModel) resumed_model = agents_scripted_model_new ();
  g_autoptr (AgentsSandboxAgent) agent = NULL;
  g_autoptr (AgentsSandboxAgent) resumed_agent = NULL;
  g_autoptr (AgentsRunConfig) first_config = NULL;
  g_autoptr (AgentsRunConfig) resumed_config = NULL;
  g_autoptr (AgentsRunResult) first_run = NULL;
  g_autoptr (AgentsRunResult) resumed = NULL;
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (AgentsRunState) restored_state = NULL;
  g_autoptr (JsonObject) legacy = NULL;
  g_autofree char *agent_id = NULL;
  g_autofree char *state_json = NULL;
  g_autoptr (GError) error = NULL;
  JsonObject *sandbox, *sessions_by_agent;
  JsonNode *session_state;

  add_turns (initial_model,
             call_turn ("write_file",
                        "{\"path\": \"note.txt\", \"content\": \"legacy\"}",
                        NULL),
             call_turn ("approval_tool", "{}", "call_approval"), NULL);
  agent = sandbox_agent_new ("sandbox", initial_model, "Base instructions.");
  agents_agent_add_tool (AGENTS_AGENT (agent), approval_tool);
  set_capabilities (agent, fake_capability_new (FAKE_CAPABILITY_SESSION_FILES),
                    NULL);

  first_config = unix_local_run_config (client, NULL, NULL);
  first_run = run_agent (agent, "hello", first_config, &error);
  g_assert_no_error (error);
  state = agents_run_result_to_state (first_run);
  sandbox = agents_run_state_get_sandbox (state);
  g_assert_nonnull (sandbox);
  session_state = json_object_get_member (sandbox, "session_state");
  g_assert_nonnull (session_state);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (session_state));

  /* {"backend_id": "unix_local", "current_agent_id": id(agent),
   *  "session_state": …, "sessions_by_agent": {str(id(agent)): …}} */
  legacy = json_object_new ();
  agent_id = g_strdup_printf ("%" G_GUINTPTR_FORMAT, (guintptr) agent);
  json_object_set_string_member (legacy, "backend_id", "unix_local");
  json_object_set_int_member (legacy, "current_agent_id",
                              (gint64) (guintptr) agent);
  json_object_set_member (legacy, "session_state",
                          json_node_copy (session_state));
  sessions_by_agent = json_object_new ();
  json_object_set_member (sessions_by_agent, agent_id,
                          json_node_copy (session_state));
  json_object_set_object_member (legacy, "sessions_by_agent",
                                 sessions_by_agent);
  agents_run_state_set_sandbox (state, legacy);

  add_turns (resumed_model,
             call_turn ("read_file", "{\"path\": \"note.txt\"}", "call_read"),
             final_turn ("done"), NULL);
  resumed_agent =
    sandbox_agent_new ("sandbox", resumed_model, "Base instructions.");
  agents_agent_add_tool (AGENTS_AGENT (resumed_agent), approval_tool);
  set_capabilities (resumed_agent,
                    fake_capability_new (FAKE_CAPABILITY_SESSION_FILES), NULL);

  state_json = agents_run_state_to_json (state);
  restored_state = state_from_json (resumed_agent, state_json);
  agents_run_state_approve (
    restored_state,
    first_interruption (agents_run_state_get_interruptions (restored_state)),
    FALSE);
  resumed_config = unix_local_run_config (client, NULL, NULL);
  resumed =
    resume_agent (resumed_agent, restored_state, resumed_config, &error);
  g_assert_no_error (error);

  assert_final_output (resumed, "done");
  g_assert_true (has_tool_output (resumed, "legacy", resumed_agent));
}

/* ======================================================================
 * Identity maps and resume keys
 * ====================================================================== */

static AgentsSandboxAgent *
make_config_agent (const char *readme, const char *capability_text)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  AgentsSandboxAgent *agent =
    sandbox_agent_new ("sandbox", model, "Base instructions.");
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsManifestEntry) file = agents_file_new_from_text (readme);

  agents_manifest_set_entry (manifest, "README.md", file);
  agents_sandbox_agent_set_default_manifest (agent, manifest);
  set_capabilities (
    agent, fake_recording_capability_new (capability_text, NULL, NULL), NULL);
  return agent;
}

static const char *
identity_for (AgentsAgentIdentityMap *map, gpointer target)
{
  const char *key = agents_agent_identity_map_find_key (map, target);

  g_assert_nonnull (key);
  return key;
}

static void
test_duplicate_name_sandbox_identity_map_uses_capability_and_manifest_config (
  void)
{
  g_autoptr (AgentsSandboxAgent) first_alpha =
    make_config_agent ("alpha", "Alpha capability.");
  g_autoptr (AgentsSandboxAgent) first_beta =
    make_config_agent ("beta", "Beta capability.");
  g_autoptr (AgentsAgent) first_root = agents_agent_new ("triage");
  g_autoptr (AgentsSandboxAgent) second_alpha =
    make_config_agent ("alpha", "Alpha capability.");
  g_autoptr (AgentsSandboxAgent) second_beta =
    make_config_agent ("beta", "Beta capability.");
  g_autoptr (AgentsAgent) second_root = agents_agent_new ("triage");
  g_autoptr (AgentsAgentIdentityMap) first_identity_map = NULL;
  g_autoptr (AgentsAgentIdentityMap) second_identity_map = NULL;

  set_handoffs (first_root, first_beta, first_alpha, NULL);
  set_handoffs (first_alpha, first_root, NULL);
  set_handoffs (first_beta, first_root, NULL);
  set_handoffs (second_root, second_alpha, second_beta, NULL);
  set_handoffs (second_alpha, second_root, NULL);
  set_handoffs (second_beta, second_root, NULL);

  first_identity_map = agents_run_state_build_agent_identity_map (first_root);
  second_identity_map = agents_run_state_build_agent_identity_map (second_root);

  g_assert_cmpstr (identity_for (first_identity_map, first_alpha), ==,
                   identity_for (second_identity_map, second_alpha));
  g_assert_cmpstr (identity_for (first_identity_map, first_beta), ==,
                   identity_for (second_identity_map, second_beta));

  clear_handoffs (first_root, first_alpha, first_beta, second_root,
                  second_alpha, second_beta, NULL);
}

static void
test_session_manager_reserves_current_duplicate_resume_key_for_current_agent (
  void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsManifestEntry) readme =
    agents_file_new_from_text ("duplicate resume");
  g_autoptr (FakeSession) session = NULL;
  g_autoptr (FakeClient) client = NULL;
  g_autoptr (AgentsScriptedModel) first_model = agents_scripted_model_new ();
  g_autoptr (AgentsScriptedModel) second_model = agents_scripted_model_new ();
  g_autoptr (AgentsSandboxAgent) first =
    sandbox_agent_new ("sandbox", first_model, "First.");
  g_autoptr (AgentsSandboxAgent) second =
    sandbox_agent_new ("sandbox", second_model, "Second.");
  g_autoptr (JsonNode) first_session_state = NULL;
  g_autoptr (JsonNode) second_session_state = NULL;
  g_autoptr (AgentsRunState) run_state = NULL;
  g_autoptr (JsonObject) payload = NULL;
  g_autoptr (AgentsSandboxRunConfig) config = NULL;
  g_autoptr (AgentsSandboxSessionManager) manager = NULL;
  g_autoptr (JsonNode) first_payload = NULL;
  g_autoptr (JsonNode) second_payload = NULL;

  agents_manifest_set_entry (manifest, "README.md", readme);
  session = fake_session_new (manifest);
  client = fake_client_new (session);
  set_handoffs (first, second, NULL);
  set_handoffs (second, first, NULL);
  first_session_state = serialized_noop_state (client, "first");
  second_session_state = serialized_noop_state (client, "second");
  run_state = new_run_state (first);
  agents_run_state_set_current_agent (run_state, AGENTS_AGENT (second));
  payload = payload_new ("fake", "sandbox#2", "sandbox", second_session_state);
  payload_add_session (payload, "sandbox", "sandbox", first_session_state);
  payload_add_session (payload, "sandbox#2", "sandbox", second_session_state);
  agents_run_state_set_sandbox (run_state, payload);
  config = fake_sandbox_config (client);
  manager = agents_sandbox_session_manager_new (AGENTS_AGENT (first), config,
                                                run_state);

  first_payload =
    agents_sandbox_session_manager_resume_state_payload_for_agent (
      manager, AGENTS_AGENT (first));
  assert_json_equal (first_payload, first_session_state);
  second_payload =
    agents_sandbox_session_manager_resume_state_payload_for_agent (
      manager, AGENTS_AGENT (second));
  assert_json_equal (second_payload, second_session_state);

  g_clear_object (&manager);
  clear_handoffs (first, second, NULL);
}

static void
test_session_manager_generates_collision_free_resume_keys_for_literal_suffix_names (
  void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (manifest);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsSandboxAgent) first =
    sandbox_agent_new ("sandbox", model, "First.");
  g_autoptr (AgentsSandboxAgent) literal_suffix =
    sandbox_agent_new ("sandbox#2", model, "Literal.");
  g_autoptr (AgentsSandboxAgent) second =
    sandbox_agent_new ("sandbox", model, "Second.");
  g_autoptr (AgentsSandboxRunConfig) config = fake_sandbox_config (client);
  g_autoptr (AgentsSandboxSessionManager) manager = NULL;

  set_handoffs (first, literal_suffix, second, NULL);
  set_handoffs (literal_suffix, first, second, NULL);
  set_handoffs (second, first, literal_suffix, NULL);
  manager =
    agents_sandbox_session_manager_new (AGENTS_AGENT (first), config, NULL);

  acquire (manager, first);
  acquire (manager, literal_suffix);
  acquire (manager, second);

  g_assert_cmpstr (agents_sandbox_session_manager_ensure_resume_key (
                     manager, AGENTS_AGENT (first)),
                   ==, "sandbox");
  g_assert_cmpstr (agents_sandbox_session_manager_ensure_resume_key (
                     manager, AGENTS_AGENT (literal_suffix)),
                   ==, "sandbox#2");
  g_assert_cmpstr (agents_sandbox_session_manager_ensure_resume_key (
                     manager, AGENTS_AGENT (second)),
                   ==, "sandbox#3");

  g_clear_object (&manager);
  clear_handoffs (first, literal_suffix, second, NULL);
}

/* ======================================================================
 * Session manager: limits
 * ====================================================================== */

/* The three sources of the parametrised limit tests. */
static AgentsSandboxRunConfig *
limits_source_config (const char *source,
                      FakeSession *live_session,
                      FakeClient *client)
{
  AgentsSandboxRunConfig *config;

  if (g_str_equal (source, "live_session"))
    {
      config = agents_sandbox_run_config_new ();
      agents_sandbox_run_config_set_session (
        config, AGENTS_SANDBOX_SESSION (live_session));
      return config;
    }
  config = fake_sandbox_config (client);
  if (g_str_equal (source, "resume"))
    {
      g_autoptr (AgentsSandboxSessionState) state = noop_state ("resume");

      agents_sandbox_run_config_set_session_state (config, state);
    }
  return config;
}

static void
test_session_manager_passes_concurrency_limits_from_run_config (
  gconstpointer data)
{
  const char *source = data;
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent_new ("worker", model, "Worker.");
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) live_session = fake_session_new (manifest);
  g_autoptr (FakeClient) client = fake_client_new (live_session);
  g_autoptr (AgentsConcurrencyLimits) limits =
    agents_concurrency_limits_new_full (2, 3);
  g_autoptr (AgentsConcurrencyLimits) expected =
    agents_concurrency_limits_new_full (2, 3);
  g_autoptr (AgentsSandboxRunConfig) config = NULL;
  g_autoptr (AgentsSandboxSessionManager) manager = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GError) error = NULL;

  config = limits_source_config (source, live_session, client);
  agents_sandbox_run_config_set_concurrency_limits (config, limits);
  manager =
    agents_sandbox_session_manager_new (AGENTS_AGENT (agent), config, NULL);

  acquire (manager, agent);
  session = ensure_session (manager, agent, NULL,
                            g_str_equal (source, "resume"), &error);
  g_assert_no_error (error);

  g_assert_cmpuint (live_session->concurrency_limit_values->len, ==, 1);
  g_assert_true (agents_concurrency_limits_equal (
    g_ptr_array_index (live_session->concurrency_limit_values, 0), expected));
}

static void
test_session_manager_passes_archive_limits_from_run_config (gconstpointer data)
{
  const char *source = data;
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent_new ("worker", model, "Worker.");
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) live_session = fake_session_new (manifest);
  g_autoptr (FakeClient) client = fake_client_new (live_session);
  g_autoptr (AgentsArchiveLimits) archive_limits =
    agents_archive_limits_new_full (10, 20, 30);
  g_autoptr (AgentsSandboxRunConfig) config = NULL;
  g_autoptr (AgentsSandboxSessionManager) manager = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GError) error = NULL;
  const AgentsArchiveLimits *seen;

  config = limits_source_config (source, live_session, client);
  agents_sandbox_run_config_set_archive_limits (config, archive_limits);
  manager =
    agents_sandbox_session_manager_new (AGENTS_AGENT (agent), config, NULL);

  acquire (manager, agent);
  session = ensure_session (manager, agent, NULL,
                            g_str_equal (source, "resume"), &error);
  g_assert_no_error (error);

  g_assert_cmpuint (live_session->archive_limit_values->len, ==, 1);
  seen = g_ptr_array_index (live_session->archive_limit_values, 0);
  g_assert_nonnull (seen);
  g_assert_true (agents_archive_limits_equal (seen, archive_limits));
}

static void
test_session_manager_default_archive_limits_preserves_no_resource_limits (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent_new ("worker", model, "Worker.");
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) live_session = fake_session_new (manifest);
  g_autoptr (FakeClient) client = fake_client_new (live_session);
  g_autoptr (AgentsSandboxRunConfig) config = fake_sandbox_config (client);
  g_autoptr (AgentsSandboxSessionManager) manager =
    agents_sandbox_session_manager_new (AGENTS_AGENT (agent), config, NULL);
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GError) error = NULL;

  acquire (manager, agent);
  session = ensure_session (manager, agent, NULL, FALSE, &error);
  g_assert_no_error (error);

  /* archive_limit_values == [None] */
  g_assert_cmpuint (live_session->archive_limit_values->len, ==, 1);
  g_assert_null (g_ptr_array_index (live_session->archive_limit_values, 0));
}

static void
test_session_manager_rejects_invalid_archive_limits (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent_new ("worker", model, "Worker.");
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) live_session = fake_session_new (manifest);
  g_autoptr (FakeClient) client = fake_client_new (live_session);
  g_autoptr (AgentsArchiveLimits) limits = agents_archive_limits_new ();
  g_autoptr (AgentsSandboxRunConfig) config = fake_sandbox_config (client);
  g_autoptr (AgentsSandboxSessionManager) manager = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GError) error = NULL;

  /* SandboxArchiveLimits(max_input_bytes=1); then max_input_bytes = 0 */
  limits->max_input_bytes = 1;
  limits->max_input_bytes = 0;
  agents_sandbox_run_config_set_archive_limits (config, limits);
  manager =
    agents_sandbox_session_manager_new (AGENTS_AGENT (agent), config, NULL);

  acquire (manager, agent);
  session = ensure_session (manager, agent, NULL, FALSE, &error);

  g_assert_null (session);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==,
                   "archive_limits.max_input_bytes must be at least 1");
  g_assert_false (client->created);
}

typedef struct
{
  gint64 manifest_entries;
  gint64 local_dir_files;
  const char *message;
} InvalidConcurrencyCase;

static const InvalidConcurrencyCase invalid_concurrency_cases[] = {
  { 0, 1, "concurrency_limits.manifest_entries must be at least 1" },
  { 1, 0, "concurrency_limits.local_dir_files must be at least 1" },
};

static void
test_session_manager_rejects_invalid_concurrency_limits (gconstpointer data)
{
  const InvalidConcurrencyCase *param = data;
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent_new ("worker", model, "Worker.");
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) live_session = fake_session_new (manifest);
  g_autoptr (FakeClient) client = fake_client_new (live_session);
  g_autoptr (AgentsConcurrencyLimits) limits =
    agents_concurrency_limits_new_full (param->manifest_entries,
                                        param->local_dir_files);
  g_autoptr (AgentsSandboxRunConfig) config = fake_sandbox_config (client);
  g_autoptr (AgentsSandboxSessionManager) manager = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GError) error = NULL;

  agents_sandbox_run_config_set_concurrency_limits (config, limits);
  manager =
    agents_sandbox_session_manager_new (AGENTS_AGENT (agent), config, NULL);

  acquire (manager, agent);
  session = ensure_session (manager, agent, NULL, FALSE, &error);

  g_assert_null (session);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==, param->message);
  g_assert_false (client->created);
}

/* ======================================================================
 * Session manager: sources, payloads, manifest mutations
 * ====================================================================== */

static void
test_session_manager_preserves_untouched_run_state_sessions_on_cleanup (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsManifestEntry) readme =
    agents_file_new_from_text ("duplicate resume");
  g_autoptr (FakeSession) fake = NULL;
  g_autoptr (FakeClient) client = NULL;
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsSandboxAgent) triage =
    sandbox_agent_new ("triage", model, "Triage.");
  g_autoptr (AgentsSandboxAgent) worker =
    sandbox_agent_new ("worker", model, "Worker.");
  g_autoptr (JsonNode) triage_session_state = NULL;
  g_autoptr (JsonNode) worker_session_state = NULL;
  g_autoptr (JsonNode) expected_triage = NULL;
  g_autoptr (JsonNode) expected_worker = NULL;
  g_autoptr (AgentsRunState) run_state = NULL;
  g_autoptr (JsonObject) existing = NULL;
  g_autoptr (AgentsSandboxRunConfig) config = NULL;
  g_autoptr (AgentsSandboxSessionManager) manager = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (JsonObject) payload = NULL;
  g_autoptr (GError) error = NULL;
  JsonObject *sessions_by_agent;

  agents_manifest_set_entry (manifest, "README.md", readme);
  fake = fake_session_new (manifest);
  client = fake_client_new (fake);
  set_handoffs (triage, worker, NULL);
  set_handoffs (worker, triage, NULL);
  triage_session_state = serialized_noop_state (client, "triage");
  worker_session_state = serialized_noop_state (client, "worker");
  run_state = new_run_state (triage);
  agents_run_state_set_current_agent (run_state, AGENTS_AGENT (worker));
  existing = payload_new ("fake", "worker", "worker", worker_session_state);
  payload_add_session (existing, "triage", "triage", triage_session_state);
  payload_add_session (existing, "worker", "worker", worker_session_state);
  agents_run_state_set_sandbox (run_state, existing);
  config = fake_sandbox_config (client);
  manager = agents_sandbox_session_manager_new (AGENTS_AGENT (triage), config,
                                                run_state);

  acquire (manager, worker);
  session = ensure_session (manager, worker, NULL, TRUE, &error);
  g_assert_no_error (error);
  payload = manager_cleanup (manager);

  g_assert_nonnull (payload);
  sessions_by_agent = member_object (payload, "sessions_by_agent");
  g_assert_cmpuint (json_object_get_size (sessions_by_agent), ==, 2);
  g_assert_true (json_object_has_member (sessions_by_agent, "triage"));
  g_assert_true (json_object_has_member (sessions_by_agent, "worker"));
  expected_triage = session_entry ("triage", triage_session_state);
  assert_json_equal (json_object_get_member (sessions_by_agent, "triage"),
                     expected_triage);
  expected_worker = session_entry ("worker", worker_session_state);
  assert_json_equal (json_object_get_member (sessions_by_agent, "worker"),
                     expected_worker);

  g_clear_object (&manager);
  clear_handoffs (triage, worker, NULL);
}

static void
test_session_manager_reapplies_capability_manifest_mutations_on_resume (
  gconstpointer data)
{
  const char *resume_source = data;
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) fake = fake_session_new (manifest);
  g_autoptr (FakeClient) client = fake_client_new (fake);
  g_autoptr (AgentsCapability) capability =
    fake_capability_new (FAKE_CAPABILITY_MANIFEST_MUTATION);
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent_new ("worker", model, "Worker.");
  g_autoptr (AgentsSandboxSessionState) session_state = noop_state ("resume");
  g_autoptr (AgentsRunState) run_state = NULL;
  g_autoptr (AgentsSandboxRunConfig) config = fake_sandbox_config (client);
  g_autoptr (AgentsSandboxSessionManager) manager = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GPtrArray) capabilities = capability_list (capability, NULL);
  g_autoptr (GError) error = NULL;

  if (g_str_equal (resume_source, "run_state"))
    {
      g_autoptr (JsonNode) serialized_state =
        agents_sandbox_client_serialize_session_state (
          AGENTS_SANDBOX_CLIENT (client), session_state);
      g_autoptr (JsonObject) payload = payload_new (
        agents_sandbox_client_get_backend_id (AGENTS_SANDBOX_CLIENT (client)),
        "worker", "worker", serialized_state);

      run_state = new_run_state (agent);
      agents_run_state_set_current_agent (run_state, AGENTS_AGENT (agent));
      payload_add_session (payload, "worker", "worker", serialized_state);
      agents_run_state_set_sandbox (run_state, payload);
    }
  else
    agents_sandbox_run_config_set_session_state (config, session_state);

  manager = agents_sandbox_session_manager_new (AGENTS_AGENT (agent), config,
                                                run_state);

  acquire (manager, agent);
  session = ensure_session (manager, agent, capabilities, TRUE, &error);
  g_assert_no_error (error);

  assert_file_entry (agents_sandbox_session_get_manifest (session), "cap.txt",
                     "capability");
  g_assert_nonnull (client->resume_state);
  assert_file_entry (
    agents_sandbox_session_state_get_manifest (client->resume_state), "cap.txt",
    "capability");
}

static void
test_session_manager_adds_run_as_user_on_resume (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) fake = fake_session_new (manifest);
  g_autoptr (FakeClient) client = fake_client_new (fake);
  g_autoptr (AgentsUser) run_as = agents_user_new ("sandbox-user");
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent_new ("worker", model, "Worker.");
  g_autoptr (AgentsSandboxSessionState) session_state = noop_state ("resume");
  g_autoptr (AgentsSandboxRunConfig) config = fake_sandbox_config (client);
  g_autoptr (AgentsSandboxSessionManager) manager = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GError) error = NULL;

  agents_sandbox_agent_set_run_as (agent, run_as);
  agents_sandbox_run_config_set_session_state (config, session_state);
  manager =
    agents_sandbox_session_manager_new (AGENTS_AGENT (agent), config, NULL);

  acquire (manager, agent);
  session = ensure_session (manager, agent, NULL, TRUE, &error);
  g_assert_no_error (error);

  assert_users_are (agents_sandbox_session_get_manifest (session), run_as);
  g_assert_nonnull (client->resume_state);
  assert_users_are (
    agents_sandbox_session_state_get_manifest (client->resume_state), run_as);
}

static void
test_session_manager_does_not_duplicate_run_as_user_from_group (void)
{
  g_autoptr (AgentsUser) run_as = agents_user_new ("sandbox-user");
  g_autoptr (AgentsGroup) group =
    agents_group_new ("sandbox-group", &run_as, 1);
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsManifest) processed = NULL;

  agents_manifest_add_group (manifest, group);

  processed =
    agents_sandbox_session_manager_manifest_with_run_as_user (manifest, run_as);

  g_assert_true (processed == manifest);
  g_assert_cmpuint (agents_manifest_get_users (processed)->len, ==, 0);
}

static void
test_session_manager_applies_capability_manifest_mutations_with_session_parity (
  gconstpointer data)
{
  const char *source = data;
  g_autoptr (AgentsCapability) capability =
    fake_capability_new (FAKE_CAPABILITY_MANIFEST_MUTATION);
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent_new ("worker", model, "Worker.");
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) fake = fake_session_new (manifest);
  g_autoptr (FakeClient) client = NULL;
  g_autoptr (AgentsSandboxRunConfig) config = NULL;
  g_autoptr (AgentsSandboxSessionManager) manager = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GPtrArray) capabilities = capability_list (capability, NULL);
  g_autoptr (GError) error = NULL;

  if (g_str_equal (source, "live_session"))
    {
      config = agents_sandbox_run_config_new ();
      agents_sandbox_run_config_set_session (config,
                                             AGENTS_SANDBOX_SESSION (fake));
    }
  else
    {
      client = fake_client_new (fake);
      config = fake_sandbox_config (client);
      if (g_str_equal (source, "session_state"))
        {
          g_autoptr (AgentsSandboxSessionState) state = noop_state ("resume");

          agents_sandbox_run_config_set_session_state (config, state);
        }
      else
        {
          g_autoptr (AgentsManifest) empty = agents_manifest_new ();

          agents_sandbox_run_config_set_manifest (config, empty);
        }
    }

  manager =
    agents_sandbox_session_manager_new (AGENTS_AGENT (agent), config, NULL);

  acquire (manager, agent);
  session = ensure_session (manager, agent, capabilities, FALSE, &error);
  g_assert_no_error (error);

  assert_file_entry (agents_sandbox_session_get_manifest (session), "cap.txt",
                     "capability");
  if (g_str_equal (source, "session_state"))
    {
      g_assert_nonnull (client->resume_state);
      assert_file_entry (
        agents_sandbox_session_state_get_manifest (client->resume_state),
        "cap.txt", "capability");
    }
  if (g_str_equal (source, "create"))
    {
      g_assert_true (client->created);
      g_assert_nonnull (client->create_manifest);
      assert_file_entry (client->create_manifest, "cap.txt", "capability");
    }
}

/* _LiveSessionDeltaRecorder(Manifest(), fail_entry_batch_times=N) */
static FakeSession *
delta_recorder_new (guint fail_entry_batch_times, gboolean running)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  FakeSession *session = fake_session_new (manifest);

  session->delta_recorder = TRUE;
  session->fail_entry_batch_times = fail_entry_batch_times;
  session->running = running;
  return session;
}

static AgentsSandboxRunConfig *
injected_config (FakeSession *live_session)
{
  AgentsSandboxRunConfig *config = agents_sandbox_run_config_new ();

  agents_sandbox_run_config_set_session (config,
                                         AGENTS_SANDBOX_SESSION (live_session));
  return config;
}

static void
test_session_manager_starts_stopped_injected_session_with_manifest_mutation (
  void)
{
  g_autoptr (FakeSession) live_session = delta_recorder_new (0, FALSE);
  g_autoptr (AgentsCapability) capability =
    fake_capability_new (FAKE_CAPABILITY_MANIFEST_MUTATION);
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent_new ("worker", model, "Worker.");
  g_autoptr (AgentsSandboxRunConfig) config = injected_config (live_session);
  g_autoptr (AgentsSandboxSessionManager) manager =
    agents_sandbox_session_manager_new (AGENTS_AGENT (agent), config, NULL);
  g_autoptr (GPtrArray) capabilities = capability_list (capability, NULL);
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (JsonObject) payload = NULL;
  g_autoptr (GError) error = NULL;

  acquire (manager, agent);
  session = ensure_session (manager, agent, capabilities, FALSE, &error);
  g_assert_no_error (error);
  payload = manager_cleanup (manager);

  g_assert_true (session == AGENTS_SANDBOX_SESSION (live_session));
  g_assert_cmpuint (live_session->start_calls, ==, 1);
  g_assert_cmpuint (live_session->apply_manifest_calls, ==, 0);
  g_assert_cmpuint (live_session->stop_calls, ==, 0);
  g_assert_cmpuint (live_session->shutdown_calls, ==, 0);
  assert_file_entry (agents_sandbox_session_get_manifest (session), "cap.txt",
                     "capability");
  g_assert_null (payload);
}

static void
test_session_manager_materializes_running_injected_session_manifest_mutation (
  void)
{
  g_autoptr (FakeSession) live_session = delta_recorder_new (0, TRUE);
  g_autoptr (AgentsCapability) capability =
    fake_capability_new (FAKE_CAPABILITY_MANIFEST_MUTATION);
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent_new ("worker", model, "Worker.");
  g_autoptr (AgentsSandboxRunConfig) config = injected_config (live_session);
  g_autoptr (AgentsSandboxSessionManager) manager =
    agents_sandbox_session_manager_new (AGENTS_AGENT (agent), config, NULL);
  g_autoptr (GPtrArray) capabilities = capability_list (capability, NULL);
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (JsonObject) payload = NULL;
  g_autoptr (GError) error = NULL;

  acquire (manager, agent);
  session = ensure_session (manager, agent, capabilities, FALSE, &error);
  g_assert_no_error (error);
  payload = manager_cleanup (manager);

  g_assert_true (session == AGENTS_SANDBOX_SESSION (live_session));
  g_assert_cmpuint (live_session->start_calls, ==, 0);
  g_assert_cmpuint (live_session->apply_manifest_calls, ==, 0);
  g_assert_cmpuint (live_session->applied_entry_batches->len, ==, 1);
  assert_cap_batch (live_session, 0);
  assert_file_entry (agents_sandbox_session_get_manifest (session), "cap.txt",
                     "capability");
  g_assert_cmpuint (live_session->stop_calls, ==, 0);
  g_assert_cmpuint (live_session->shutdown_calls, ==, 0);
  g_assert_null (payload);
}

static void
test_session_manager_retries_running_injected_session_delta_apply_after_failure (
  void)
{
  g_autoptr (FakeSession) live_session = delta_recorder_new (1, TRUE);
  g_autoptr (AgentsCapability) capability =
    fake_capability_new (FAKE_CAPABILITY_MANIFEST_MUTATION);
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent_new ("worker", model, "Worker.");
  g_autoptr (AgentsSandboxRunConfig) config = injected_config (live_session);
  g_autoptr (AgentsSandboxSessionManager) manager =
    agents_sandbox_session_manager_new (AGENTS_AGENT (agent), config, NULL);
  g_autoptr (GPtrArray) capabilities = capability_list (capability, NULL);
  g_autoptr (AgentsSandboxSession) failed = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (JsonObject) payload = NULL;
  g_autoptr (GError) error = NULL;

  acquire (manager, agent);
  failed = ensure_session (manager, agent, capabilities, FALSE, &error);
  g_assert_null (failed);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "delta apply failed"));
  g_clear_error (&error);

  g_assert_cmpuint (
    agents_manifest_get_n_entries (agents_sandbox_session_get_manifest (
      AGENTS_SANDBOX_SESSION (live_session))),
    ==, 0);
  g_assert_cmpuint (live_session->applied_entry_batches->len, ==, 1);
  assert_cap_batch (live_session, 0);

  session = ensure_session (manager, agent, capabilities, FALSE, &error);
  g_assert_no_error (error);
  payload = manager_cleanup (manager);

  g_assert_true (session == AGENTS_SANDBOX_SESSION (live_session));
  assert_file_entry (
    agents_sandbox_session_get_manifest (AGENTS_SANDBOX_SESSION (live_session)),
    "cap.txt", "capability");
  g_assert_cmpuint (live_session->applied_entry_batches->len, ==, 2);
  assert_cap_batch (live_session, 0);
  assert_cap_batch (live_session, 1);
  g_assert_null (payload);
}

static void
test_session_manager_skips_rematerialization_for_unchanged_running_session (
  void)
{
  g_autoptr (FakeSession) live_session = delta_recorder_new (0, TRUE);
  g_autoptr (AgentsCapability) noop =
    fake_capability_new (FAKE_CAPABILITY_NOOP);
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent_new ("worker", model, "Worker.");
  g_autoptr (AgentsSandboxRunConfig) config = injected_config (live_session);
  g_autoptr (AgentsSandboxSessionManager) manager =
    agents_sandbox_session_manager_new (AGENTS_AGENT (agent), config, NULL);
  g_autoptr (GPtrArray) capabilities = capability_list (noop, NULL);
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (JsonObject) payload = NULL;
  g_autoptr (GError) error = NULL;

  acquire (manager, agent);
  session = ensure_session (manager, agent, capabilities, FALSE, &error);
  g_assert_no_error (error);
  payload = manager_cleanup (manager);

  g_assert_true (session == AGENTS_SANDBOX_SESSION (live_session));
  g_assert_cmpuint (live_session->start_calls, ==, 0);
  g_assert_cmpuint (live_session->apply_manifest_calls, ==, 0);
  g_assert_cmpuint (live_session->applied_entry_batches->len, ==, 0);
  g_assert_cmpuint (agents_manifest_get_n_entries (
                      agents_sandbox_session_get_manifest (session)),
                    ==, 0);
  g_assert_cmpuint (live_session->stop_calls, ==, 0);
  g_assert_cmpuint (live_session->shutdown_calls, ==, 0);
  g_assert_null (payload);
}

static void
test_session_manager_rejects_running_injected_session_account_mutation (void)
{
  g_autoptr (FakeSession) live_session = delta_recorder_new (0, TRUE);
  g_autoptr (AgentsCapability) users =
    fake_capability_new (FAKE_CAPABILITY_MANIFEST_USERS);
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent_new ("worker", model, "Worker.");
  g_autoptr (AgentsSandboxRunConfig) config = injected_config (live_session);
  g_autoptr (AgentsSandboxSessionManager) manager =
    agents_sandbox_session_manager_new (AGENTS_AGENT (agent), config, NULL);
  g_autoptr (GPtrArray) capabilities = capability_list (users, NULL);
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GError) error = NULL;

  acquire (manager, agent);
  session = ensure_session (manager, agent, capabilities, FALSE, &error);

  g_assert_null (session);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (
    strstr (error->message, "manifest.users` or `manifest.groups"));
  g_assert_cmpuint (live_session->apply_manifest_calls, ==, 0);
  g_assert_cmpuint (live_session->applied_entry_batches->len, ==, 0);
  g_assert_cmpuint (
    agents_manifest_get_users (agents_sandbox_session_get_manifest (
                                 AGENTS_SANDBOX_SESSION (live_session)))
      ->len,
    ==, 0);
}

/* {"backend_id": "fake", …, "session_state": {"snapshot": {"id":
 * "persisted"}}, "sessions_by_agent": {NAME: {…}}} */
static JsonObject *
persisted_payload (const char *agent_name)
{
  g_autoptr (JsonNode) persisted =
    parse_node ("{\"snapshot\": {\"id\": \"persisted\"}}");
  JsonObject *payload = payload_new ("fake", agent_name, agent_name, persisted);

  payload_add_session (payload, agent_name, agent_name, persisted);
  return payload;
}

static void
test_session_manager_preserves_existing_payload_when_no_sandbox_session_is_used (
  void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) fake = fake_session_new (manifest);
  g_autoptr (FakeClient) client = fake_client_new (fake);
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent_new ("sandbox", model, "Base instructions.");
  g_autoptr (AgentsRunState) run_state = new_run_state (agent);
  g_autoptr (JsonObject) existing_payload = persisted_payload ("sandbox");
  g_autoptr (AgentsSandboxRunConfig) config = fake_sandbox_config (client);
  g_autoptr (AgentsSandboxSessionManager) manager = NULL;
  g_autoptr (JsonObject) payload = NULL;

  agents_run_state_set_sandbox (run_state, existing_payload);
  manager = agents_sandbox_session_manager_new (AGENTS_AGENT (agent), config,
                                                run_state);

  payload = manager_cleanup (manager);

  assert_json_object_equal (payload, existing_payload);
  g_assert_true (payload != existing_payload);
}

static void
test_session_manager_omits_existing_payload_for_injected_live_session (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent_new ("sandbox", model, "Base instructions.");
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) live_session = fake_session_new (manifest);
  g_autoptr (AgentsRunState) run_state = new_run_state (agent);
  g_autoptr (JsonObject) existing_payload = persisted_payload ("sandbox");
  g_autoptr (AgentsSandboxRunConfig) config = injected_config (live_session);
  g_autoptr (AgentsSandboxSessionManager) manager = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (JsonObject) payload = NULL;
  g_autoptr (GError) error = NULL;

  agents_run_state_set_sandbox (run_state, existing_payload);
  manager = agents_sandbox_session_manager_new (AGENTS_AGENT (agent), config,
                                                run_state);

  acquire (manager, agent);
  session = ensure_session (manager, agent, NULL, TRUE, &error);
  g_assert_no_error (error);
  payload = manager_cleanup (manager);

  g_assert_null (payload);
  g_assert_cmpuint (live_session->stop_calls, ==, 0);
  g_assert_cmpuint (live_session->shutdown_calls, ==, 0);
}

static void
test_session_manager_uses_run_state_starting_agent_for_duplicate_resume_keys (
  void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsManifestEntry) readme =
    agents_file_new_from_text ("duplicate resume");
  g_autoptr (FakeSession) fake = NULL;
  g_autoptr (FakeClient) client = NULL;
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsSandboxAgent) first =
    sandbox_agent_new ("sandbox", model, "First.");
  g_autoptr (AgentsSandboxAgent) second =
    sandbox_agent_new ("sandbox", model, "Second.");
  g_autoptr (AgentsAgent) approver = agents_agent_new ("approver");
  g_autoptr (JsonNode) first_session_state = NULL;
  g_autoptr (JsonNode) second_session_state = NULL;
  g_autoptr (AgentsRunState) run_state = NULL;
  g_autoptr (JsonObject) payload = NULL;
  g_autoptr (AgentsSandboxRunConfig) config = NULL;
  g_autoptr (AgentsSandboxSessionManager) manager = NULL;
  g_autoptr (JsonNode) first_payload = NULL;
  g_autoptr (JsonNode) second_payload = NULL;

  agents_manifest_set_entry (manifest, "README.md", readme);
  fake = fake_session_new (manifest);
  client = fake_client_new (fake);
  agents_agent_set_model (approver, AGENTS_MODEL (model));
  agents_agent_set_instructions (approver, "Approve.");
  set_handoffs (approver, second, first, NULL);
  set_handoffs (first, second, NULL);
  set_handoffs (second, approver, NULL);
  first_session_state = serialized_noop_state (client, "first");
  second_session_state = serialized_noop_state (client, "second");
  run_state = new_run_state (first);
  agents_run_state_set_current_agent (run_state, approver);
  /* run_state._starting_agent = first: agents_run_state_new() did. */
  payload = payload_new ("fake", "sandbox#2", "sandbox", second_session_state);
  payload_add_session (payload, "sandbox", "sandbox", first_session_state);
  payload_add_session (payload, "sandbox#2", "sandbox", second_session_state);
  agents_run_state_set_sandbox (run_state, payload);
  config = fake_sandbox_config (client);
  manager = agents_sandbox_session_manager_new (approver, config, run_state);

  first_payload =
    agents_sandbox_session_manager_resume_state_payload_for_agent (
      manager, AGENTS_AGENT (first));
  assert_json_equal (first_payload, first_session_state);
  second_payload =
    agents_sandbox_session_manager_resume_state_payload_for_agent (
      manager, AGENTS_AGENT (second));
  assert_json_equal (second_payload, second_session_state);

  g_clear_object (&manager);
  clear_handoffs (approver, first, second, NULL);
}

static void
test_session_manager_restores_duplicate_name_sessions_when_only_sandbox_config_differs (
  void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) fake = fake_session_new (manifest);
  g_autoptr (FakeClient) client = fake_client_new (fake);
  g_autoptr (AgentsSandboxAgent) first =
    make_config_agent ("first", "First capability.");
  g_autoptr (AgentsSandboxAgent) second =
    make_config_agent ("second", "Second capability.");
  g_autoptr (AgentsAgent) root = agents_agent_new ("triage");
  g_autoptr (AgentsSandboxAgent) restored_first = NULL;
  g_autoptr (AgentsSandboxAgent) restored_second = NULL;
  g_autoptr (AgentsAgent) restored_root = agents_agent_new ("triage");
  g_autoptr (JsonNode) first_session_state = NULL;
  g_autoptr (JsonNode) second_session_state = NULL;
  g_autoptr (AgentsRunState) state = NULL;
  g_autoptr (AgentsRunState) restored_state = NULL;
  g_autoptr (JsonObject) payload = NULL;
  g_autoptr (AgentsSandboxRunConfig) config = NULL;
  g_autoptr (AgentsSandboxSessionManager) manager = NULL;
  g_autoptr (JsonNode) first_payload = NULL;
  g_autoptr (JsonNode) second_payload = NULL;
  g_autofree char *state_json = NULL;

  set_handoffs (root, second, first, NULL);
  set_handoffs (first, root, NULL);
  set_handoffs (second, root, NULL);
  first_session_state = serialized_noop_state (client, "first");
  second_session_state = serialized_noop_state (client, "second");
  state = new_run_state (root);
  agents_run_state_set_current_agent (state, AGENTS_AGENT (second));
  payload = payload_new ("fake", "sandbox#2", "sandbox", second_session_state);
  payload_add_session (payload, "sandbox", "sandbox", first_session_state);
  payload_add_session (payload, "sandbox#2", "sandbox", second_session_state);
  agents_run_state_set_sandbox (state, payload);

  restored_first = make_config_agent ("first", "First capability.");
  restored_second = make_config_agent ("second", "Second capability.");
  set_handoffs (restored_root, restored_first, restored_second, NULL);
  set_handoffs (restored_first, restored_root, NULL);
  set_handoffs (restored_second, restored_root, NULL);

  state_json = agents_run_state_to_json (state);
  restored_state = state_from_json (restored_root, state_json);
  g_assert_true (agents_run_state_get_current_agent (restored_state) ==
                 AGENTS_AGENT (restored_second));

  config = fake_sandbox_config (client);
  manager =
    agents_sandbox_session_manager_new (restored_root, config, restored_state);

  first_payload =
    agents_sandbox_session_manager_resume_state_payload_for_agent (
      manager, AGENTS_AGENT (restored_first));
  assert_json_equal (first_payload, first_session_state);
  second_payload =
    agents_sandbox_session_manager_resume_state_payload_for_agent (
      manager, AGENTS_AGENT (restored_second));
  assert_json_equal (second_payload, second_session_state);

  g_clear_object (&manager);
  clear_handoffs (root, first, second, restored_root, restored_first,
                  restored_second, NULL);
}

/* ======================================================================
 * Runtime: prepare_agent
 * ====================================================================== */

static void
test_prepare_agent_rechecks_session_liveness_before_reusing_cached_agent (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (manifest);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsScriptedModel) model = final_output_model ("done");
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent_new ("sandbox", model, "Base instructions.");
  g_autoptr (AgentsRunConfig) run_config = sandbox_run_config (client);
  g_autoptr (AgentsSandboxRuntime) runtime =
    agents_sandbox_runtime_new (AGENTS_AGENT (agent), run_config, NULL);
  g_autoptr (AgentsRunContext) context_wrapper = agents_run_context_new (NULL);
  g_autoptr (AgentsSandboxPreparedAgent) first_prepared = NULL;
  g_autoptr (AgentsSandboxPreparedAgent) second_prepared = NULL;

  first_prepared =
    prepare_agent_text (runtime, agent, "hello", context_wrapper);
  g_assert_cmpuint (session->start_calls, ==, 1);

  session->running = FALSE;

  second_prepared =
    prepare_agent_text (runtime, agent, "hello again", context_wrapper);

  g_assert_true (
    agents_sandbox_prepared_agent_get_execution_agent (second_prepared) ==
    agents_sandbox_prepared_agent_get_execution_agent (first_prepared));
  g_assert_cmpuint (session->start_calls, ==, 2);
}

static void
test_prepare_agent_binds_run_as_to_cloned_capabilities (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (manifest);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsCapability) capability =
    fake_recording_capability_new (NULL, NULL, NULL);
  g_autoptr (AgentsScriptedModel) model = final_output_model ("done");
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent_new ("sandbox", model, NULL);
  g_autoptr (AgentsRunConfig) run_config = sandbox_run_config (client);
  g_autoptr (AgentsSandboxRuntime) runtime = NULL;
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);
  g_autoptr (AgentsSandboxPreparedAgent) prepared = NULL;
  g_autoptr (AgentsCapability) prepared_capability = NULL;
  g_autoptr (AgentsUser) expected_user = agents_user_new ("sandbox-user");
  AgentsAgent *execution_agent;

  set_capabilities (agent, g_object_ref (capability), NULL);
  agents_sandbox_agent_set_run_as_name (agent, "sandbox-user");
  runtime = agents_sandbox_runtime_new (AGENTS_AGENT (agent), run_config, NULL);

  prepared = prepare_agent_text (runtime, agent, "hello", ctx);

  execution_agent =
    agents_sandbox_prepared_agent_get_execution_agent (prepared);
  g_assert_true (AGENTS_IS_SANDBOX_AGENT (execution_agent));
  prepared_capability =
    g_list_model_get_item (agents_sandbox_agent_get_capabilities (
                             AGENTS_SANDBOX_AGENT (execution_agent)),
                           0);
  g_assert_nonnull (prepared_capability);
  g_assert_null (agents_capability_get_session (capability));
  g_assert_true (agents_capability_get_session (prepared_capability) ==
                 AGENTS_SANDBOX_SESSION (client->inner_session));
  g_assert_nonnull (agents_capability_get_run_as (prepared_capability));
  g_assert_true (agents_user_equal (
    agents_capability_get_run_as (prepared_capability), expected_user));
}

static void
test_prepare_agent_processes_context_with_bound_cached_capabilities (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (manifest);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsScriptedModel) model = final_output_model ("done");
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent_new ("sandbox", model, NULL);
  g_autoptr (AgentsRunConfig) run_config = sandbox_run_config (client);
  g_autoptr (AgentsSandboxRuntime) runtime = NULL;
  g_autoptr (AgentsRunContext) context_wrapper = agents_run_context_new (NULL);
  g_autoptr (JsonNode) first_input =
    parse_node ("[{\"role\": \"user\", \"content\": \"hello\"}]");
  g_autoptr (JsonNode) second_input =
    parse_node ("[{\"role\": \"user\", \"content\": \"hello again\"}]");
  g_autoptr (JsonNode) first_expected =
    parse_node ("[{\"role\": \"user\", \"content\": \"hello\"},"
                " {\"role\": \"user\", \"content\": \"process_calls=1\"}]");
  g_autoptr (JsonNode) second_expected =
    parse_node ("[{\"role\": \"user\", \"content\": \"hello again\"},"
                " {\"role\": \"user\", \"content\": \"process_calls=2\"}]");
  g_autoptr (AgentsSandboxPreparedAgent) first_prepared = NULL;
  g_autoptr (AgentsSandboxPreparedAgent) second_prepared = NULL;

  set_capabilities (
    agent, fake_capability_new (FAKE_CAPABILITY_PROCESS_CONTEXT), NULL);
  runtime = agents_sandbox_runtime_new (AGENTS_AGENT (agent), run_config, NULL);

  first_prepared = prepare_agent (runtime, agent, first_input, context_wrapper);

  assert_json_equal (agents_sandbox_prepared_agent_get_input (first_prepared),
                     first_expected);

  second_prepared =
    prepare_agent (runtime, agent, second_input, context_wrapper);

  g_assert_true (
    agents_sandbox_prepared_agent_get_execution_agent (second_prepared) ==
    agents_sandbox_prepared_agent_get_execution_agent (first_prepared));
  assert_json_equal (agents_sandbox_prepared_agent_get_input (second_prepared),
                     second_expected);
}

static void
test_prepare_agent_starts_new_live_session_even_when_backend_reports_running (
  void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (manifest);
  g_autoptr (FakeClient) client = NULL;
  g_autoptr (AgentsScriptedModel) model = final_output_model ("done");
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent_new ("sandbox", model, "Base instructions.");
  g_autoptr (AgentsRunConfig) run_config = NULL;
  g_autoptr (AgentsSandboxRuntime) runtime = NULL;
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);
  g_autoptr (AgentsSandboxPreparedAgent) prepared = NULL;

  session->running = TRUE;
  client = fake_client_new (session);
  run_config = sandbox_run_config (client);
  runtime = agents_sandbox_runtime_new (AGENTS_AGENT (agent), run_config, NULL);

  prepared = prepare_agent_text (runtime, agent, "hello", ctx);

  g_assert_cmpuint (session->start_calls, ==, 1);
}

static void
collect_custom_span_names (JsonObject *node, GHashTable *names)
{
  JsonNode *children = json_object_get_member (node, "children");

  if (children == NULL || !JSON_NODE_HOLDS_ARRAY (children))
    return;
  for (guint i = 0; i < json_array_get_length (json_node_get_array (children));
       i++)
    {
      JsonNode *child_node =
        json_array_get_element (json_node_get_array (children), i);
      JsonObject *child;
      JsonNode *data;

      g_assert_true (JSON_NODE_HOLDS_OBJECT (child_node));
      child = json_node_get_object (child_node);
      data = json_object_get_member (child, "data");
      if (g_strcmp0 (
            json_object_get_string_member_with_default (child, "type", NULL),
            "custom") == 0 &&
          data != NULL && JSON_NODE_HOLDS_OBJECT (data))
        {
          JsonNode *name =
            json_object_get_member (json_node_get_object (data), "name");

          if (name != NULL && JSON_NODE_HOLDS_VALUE (name) &&
              json_node_get_value_type (name) == G_TYPE_STRING)
            g_hash_table_add (names, g_strdup (json_node_get_string (name)));
        }
      collect_custom_span_names (child, names);
    }
}

static void
test_sandbox_runtime_emits_high_level_sdk_spans (void)
{
  static const char *const expected[] = {
    "sandbox.prepare_agent", "sandbox.create_session",   "sandbox.start",
    "sandbox.cleanup",       "sandbox.cleanup_sessions", "sandbox.stop",
    "sandbox.shutdown",
  };
  g_autoptr (AgentsTestTracingProcessor) processor =
    agents_test_tracing_processor_new ();
  AgentsTracingProcessor *processors[1] = { AGENTS_TRACING_PROCESSOR (
    processor) };
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (manifest);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsScriptedModel) model = final_output_model ("done");
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent_new ("sandbox", model, "Base instructions.");
  g_autoptr (AgentsRunConfig) run_config = sandbox_run_config (client);
  g_autoptr (AgentsSandboxRuntime) runtime =
    agents_sandbox_runtime_new (AGENTS_AGENT (agent), run_config, NULL);
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);
  g_autoptr (AgentsSandboxPreparedAgent) prepared = NULL;
  g_autoptr (JsonObject) payload = NULL;
  g_autoptr (AgentsTrace) trace = NULL;
  g_autoptr (JsonArray) normalized = NULL;
  g_autoptr (GHashTable) names =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  agents_tracing_set_processors (processors, 1);
  agents_tracing_set_disabled (FALSE);

  /* with trace("sandbox_runtime_test"): */
  trace = agents_trace_begin ("sandbox_runtime_test", NULL, NULL, NULL);
  prepared = prepare_agent_text (runtime, agent, "hello", ctx);
  payload = runtime_cleanup (runtime);
  agents_trace_end (trace);

  normalized = agents_test_tracing_processor_fetch_normalized_spans (processor);
  agents_tracing_set_processors (NULL, 0);

  g_assert_cmpuint (json_array_get_length (normalized), ==, 1);
  collect_custom_span_names (json_array_get_object_element (normalized, 0),
                             names);
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      if (!g_hash_table_contains (names, expected[i]))
        g_error ("custom span %s missing", expected[i]);
    }
}

static void
test_prepare_agent_uses_active_sandbox_agent_memory_capability_for_handoffs (
  void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (manifest);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsScriptedModel) triage_model = agents_scripted_model_new ();
  g_autoptr (AgentsScriptedModel) reviewer_model = agents_scripted_model_new ();
  g_autoptr (AgentsSandboxAgent) triage =
    sandbox_agent_new ("triage", triage_model, NULL);
  g_autoptr (AgentsSandboxAgent) reviewer =
    sandbox_agent_new ("reviewer", reviewer_model, NULL);
  AgentsCapability *reviewer_memory = agents_memory_capability_new ();
  g_autoptr (AgentsRunConfig) run_config = sandbox_run_config (client);
  g_autoptr (AgentsSandboxRuntime) runtime = NULL;
  g_autoptr (AgentsRunContext) context_wrapper = agents_run_context_new (NULL);
  g_autoptr (AgentsSandboxPreparedAgent) first = NULL;
  g_autoptr (AgentsSandboxPreparedAgent) second = NULL;

  set_capabilities (triage, agents_memory_capability_new (),
                    agents_filesystem_capability_new (),
                    agents_shell_capability_new (), NULL);
  /* Memory(generate=None) */
  agents_memory_capability_set_generate (
    AGENTS_MEMORY_CAPABILITY (reviewer_memory), FALSE);
  set_capabilities (reviewer, reviewer_memory,
                    agents_filesystem_capability_new (),
                    agents_shell_capability_new (), NULL);
  runtime =
    agents_sandbox_runtime_new (AGENTS_AGENT (triage), run_config, NULL);

  first = prepare_agent_text (runtime, triage, "hello", context_wrapper);
  g_assert_nonnull (
    agents_sandbox_runtime_get_memory_generation_manager (runtime));

  second =
    prepare_agent_text (runtime, reviewer, "review this", context_wrapper);
  g_assert_null (
    agents_sandbox_runtime_get_memory_generation_manager (runtime));
}

static void
test_prepare_agent_enables_memory_when_handoff_target_adds_capability (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (manifest);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsScriptedModel) triage_model = agents_scripted_model_new ();
  g_autoptr (AgentsScriptedModel) worker_model = agents_scripted_model_new ();
  g_autoptr (AgentsSandboxAgent) triage =
    sandbox_agent_new ("triage", triage_model, NULL);
  g_autoptr (AgentsSandboxAgent) worker =
    sandbox_agent_new ("worker", worker_model, NULL);
  g_autoptr (AgentsRunConfig) run_config = sandbox_run_config (client);
  g_autoptr (AgentsSandboxRuntime) runtime = NULL;
  g_autoptr (AgentsRunContext) context_wrapper = agents_run_context_new (NULL);
  g_autoptr (AgentsSandboxPreparedAgent) first = NULL;
  g_autoptr (AgentsSandboxPreparedAgent) second = NULL;

  set_capabilities (worker, agents_memory_capability_new (),
                    agents_filesystem_capability_new (),
                    agents_shell_capability_new (), NULL);
  runtime =
    agents_sandbox_runtime_new (AGENTS_AGENT (triage), run_config, NULL);

  first = prepare_agent_text (runtime, triage, "hello", context_wrapper);
  g_assert_null (
    agents_sandbox_runtime_get_memory_generation_manager (runtime));

  second = prepare_agent_text (runtime, worker, "do the work", context_wrapper);
  g_assert_nonnull (
    agents_sandbox_runtime_get_memory_generation_manager (runtime));
}

/* test_prepare_sandbox_agent_validates_required_capabilities: memory
 * needs shell, and filesystem too when the model updates it; the agent
 * is refused before any session starts. */
static void
assert_refused (AgentsCapability *memory, const char *message)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (manifest);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent_new ("sandbox", NULL, "base instructions");
  g_autoptr (AgentsRunConfig) run_config = sandbox_run_config (client);
  g_autoptr (AgentsSandboxRuntime) runtime = NULL;
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);
  g_autoptr (JsonNode) input = agents_test_str_node ("hello");
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsSandboxPreparedAgent) prepared = NULL;

  set_capabilities (agent, memory, NULL);
  runtime = agents_sandbox_runtime_new (AGENTS_AGENT (agent), run_config, NULL);
  AGENTS_TEST_AWAIT (result, agents_sandbox_runtime_prepare_agent_async (
                               runtime, AGENTS_AGENT (agent), input, ctx, FALSE,
                               NULL, agents_test_async_cb, &result));
  prepared =
    agents_sandbox_runtime_prepare_agent_finish (runtime, result, &error);
  g_assert_null (prepared);
  g_assert_error (error, AGENTS_RUN_ERROR, AGENTS_RUN_ERROR_USER_ERROR);
  g_assert_cmpstr (error->message, ==, message);
  g_assert_cmpuint (session->start_calls, ==, 0);
}

static void
test_prepare_sandbox_agent_validates_required_capabilities (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (manifest);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent_new ("sandbox", NULL, "base instructions");
  g_autoptr (AgentsRunConfig) run_config = sandbox_run_config (client);
  g_autoptr (AgentsSandboxRuntime) runtime = NULL;
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);
  g_autoptr (AgentsSandboxPreparedAgent) prepared = NULL;
  AgentsCapability *read_only = agents_memory_capability_new ();

  assert_refused (agents_memory_capability_new (),
                  "Memory requires missing capabilities: filesystem, shell");
  /* Memory(read=MemoryReadConfig(live_update=False), generate=None) */
  g_object_set (read_only, "live-update", FALSE, "generate", FALSE, NULL);
  assert_refused (read_only, "Memory requires missing capabilities: shell");

  set_capabilities (agent, agents_memory_capability_new (),
                    agents_filesystem_capability_new (),
                    agents_shell_capability_new (), NULL);
  runtime = agents_sandbox_runtime_new (AGENTS_AGENT (agent), run_config, NULL);
  prepared = prepare_agent_text (runtime, agent, "hello", ctx);
  g_assert_nonnull (prepared);
}

/* ---- The run's workspace cwd ------------------------------------------- */

/* Prepares @agent with the run cwd @cwd over @session; returns the error. */
static GError *
prepare_in_cwd_error (FakeSession *session,
                      AgentsSandboxAgent *agent,
                      const char *cwd)
{
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsSandboxRunConfig) sandbox = fake_sandbox_config (client);
  g_autoptr (AgentsRunConfig) run_config = run_config_with (sandbox);
  g_autoptr (AgentsSandboxRuntime) runtime = NULL;
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);
  g_autoptr (JsonNode) input = agents_test_str_node ("hello");
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (AgentsSandboxPreparedAgent) prepared = NULL;
  GError *error = NULL;

  agents_sandbox_run_config_set_workspace_cwd (sandbox, cwd);
  g_assert_cmpstr (agents_sandbox_run_config_get_workspace_cwd (sandbox), ==,
                   cwd);
  runtime = agents_sandbox_runtime_new (AGENTS_AGENT (agent), run_config, NULL);
  AGENTS_TEST_AWAIT (result, agents_sandbox_runtime_prepare_agent_async (
                               runtime, AGENTS_AGENT (agent), input, ctx, FALSE,
                               NULL, agents_test_async_cb, &result));
  prepared =
    agents_sandbox_runtime_prepare_agent_finish (runtime, result, &error);
  g_assert_null (prepared);
  g_assert_nonnull (error);
  return error;
}

/* An invalid cwd is refused before any session starts or probe runs,
 * by the preparation as by agents_sandbox_run_config_validate(). */
static void
test_prepare_agent_refuses_invalid_workspace_cwd_before_session (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (manifest);
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent_new ("sandbox", NULL, NULL);
  g_autoptr (AgentsSandboxRunConfig) config = agents_sandbox_run_config_new ();
  g_autoptr (GError) error = NULL;

  session->exec_mode = FAKE_EXEC_EMPTY;
  error = prepare_in_cwd_error (session, agent, "tasks/../a");
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==,
                   "sandbox.cwd must not contain parent segments");
  g_assert_cmpuint (session->start_calls, ==, 0);
  g_assert_cmpuint (session->exec_commands->len, ==, 0);
  g_clear_error (&error);

  agents_sandbox_run_config_set_workspace_cwd (config, "/workspace/tasks/a");
  g_assert_false (agents_sandbox_run_config_validate (config, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==,
                   "sandbox.cwd must be workspace-relative");
  g_clear_error (&error);
  agents_sandbox_run_config_set_workspace_cwd (config, "./tasks//a/");
  g_assert_true (agents_sandbox_run_config_validate (config, &error));
  g_assert_no_error (error);
}

/* A failing probe fails the preparation with an error naming the
 * directory; the probes stop at the first failure. */
static void
test_prepare_agent_reports_failing_cwd_probe (void)
{
  static const struct
  {
    const char *flag;
    guint probes;
    const char *message;
  } cases[] = {
    { "-d", 1,
      "sandbox.cwd “tasks/a” is not a directory in the sandbox: "
      "/workspace/tasks/a" },
    { "-x", 2,
      "sandbox.cwd “tasks/a” cannot be entered by the user “sandbox-user”: "
      "/workspace/tasks/a" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
      g_autoptr (FakeSession) session = fake_session_new (manifest);
      g_autoptr (AgentsSandboxAgent) agent =
        sandbox_agent_new ("sandbox", NULL, NULL);
      g_autoptr (GError) error = NULL;
      g_autoptr (GVariant) context = NULL;
      const char *path = NULL;

      session->exec_mode = FAKE_EXEC_EMPTY;
      session->failing_test_flag = cases[i].flag;
      agents_sandbox_agent_set_run_as_name (agent, "sandbox-user");
      error = prepare_in_cwd_error (session, agent, "tasks/a");
      g_assert_error (error, AGENTS_SANDBOX_ERROR,
                      AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
      g_assert_cmpstr (error->message, ==, cases[i].message);
      context = agents_sandbox_error_get_context (error);
      g_assert_true (g_variant_lookup (context, "path", "&s", &path));
      g_assert_cmpstr (path, ==, "/workspace/tasks/a");
      g_assert_cmpuint (session->exec_commands->len, ==, cases[i].probes);
    }
}

/* A run over unix_local with the workspace-cwd «tasks/a»: the probes run
 * in the real session, and the model's `pwd` runs there. A cwd that is
 * not a directory of the workspace fails the run, naming it. */
static void
test_unix_local_run_in_workspace_cwd (void)
{
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (GPtrArray) turns =
    g_ptr_array_new_with_free_func ((GDestroyNotify) json_array_unref);
  g_autoptr (AgentsSandboxAgent) agent =
    sandbox_agent_new ("sandbox", NULL, NULL);
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsManifestEntry) dir = agents_dir_new ();
  g_autoptr (AgentsRunConfig) config = NULL;
  g_autoptr (AgentsRunConfig) missing_config = NULL;
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (AgentsRunResult) failed = NULL;
  g_autoptr (GError) error = NULL;
  GListModel *items;
  gboolean seen = FALSE;

  g_ptr_array_add (turns, agents_testing_items (
                            agents_testing_function_tool_call (
                              "exec_command", "{\"cmd\": \"pwd\"}", "call_1"),
                            NULL));
  g_ptr_array_add (
    turns,
    agents_testing_items (agents_testing_final_output_message ("done"), NULL));
  agents_scripted_model_add_multiple_turn_outputs (model, turns);
  agents_agent_set_model (AGENTS_AGENT (agent), AGENTS_MODEL (model));
  set_capabilities (agent, agents_shell_capability_new (), NULL);
  agents_manifest_set_entry (manifest, "tasks/a", dir);

  config = unix_local_run_config (NULL, NULL, manifest);
  agents_sandbox_run_config_set_workspace_cwd (
    AGENTS_SANDBOX_RUN_CONFIG (agents_run_config_get_sandbox (config)),
    "tasks/a");
  result = run_agent (agent, "where?", config, &error);
  g_assert_no_error (error);
  assert_final_output (result, "done");
  items = agents_run_result_get_new_items (result);
  for (guint i = 0; i < g_list_model_get_n_items (items); i++)
    {
      g_autoptr (AgentsRunItem) item = g_list_model_get_item (items, i);
      JsonObject *raw = agents_run_item_get_raw_item (item);
      const char *output =
        raw && json_object_has_member (raw, "output") &&
            JSON_NODE_HOLDS_VALUE (json_object_get_member (raw, "output"))
          ? json_object_get_string_member (raw, "output")
          : NULL;

      if (output != NULL && strstr (output, "/tasks/a\n") != NULL)
        seen = TRUE;
    }
  g_assert_true (seen);

  missing_config = unix_local_run_config (NULL, NULL, NULL);
  agents_sandbox_run_config_set_workspace_cwd (
    AGENTS_SANDBOX_RUN_CONFIG (agents_run_config_get_sandbox (missing_config)),
    "tasks/a");
  failed = run_agent (agent, "where?", missing_config, &error);
  g_assert_null (failed);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_true (g_str_has_prefix (
    error->message,
    "sandbox.cwd “tasks/a” is not a directory in the sandbox: "));
  g_assert_true (g_str_has_suffix (error->message, "/tasks/a"));
}

/* ---- main -------------------------------------------------------------- */

#define RUNTIME_TEST(name) \
  g_test_add_func ("/sandbox/runtime/" #name, test_##name)

static void
add_param_test (const char *name,
                const char *param,
                gconstpointer data,
                GTestDataFunc func)
{
  g_autofree char *path =
    g_strdup_printf ("/sandbox/runtime/%s/%s", name, param);

  g_test_add_data_func (path, data, func);
}

int
main (int argc, char *argv[])
{
  static const char *const limit_sources[] = { "create", "resume",
                                               "live_session" };
  static const char *const resume_sources[] = { "run_state", "session_state" };
  static const char *const parity_sources[] = { "live_session", "session_state",
                                                "create" };
  g_autofree char *cache_dir = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);
  /* The backend is linked in statically: loading the plugin modules too
   * would register its types twice. */
  g_unsetenv ("AGENTS_PLUGIN_PATH");
  agents_unix_local_register_types ();
  fake_sandbox_register_types ();
  /* Local snapshots go to the user cache directory: keep them in a
   * directory of this run, removed at the end. */
  cache_dir = agents_test_make_tmp_dir ("agents-runtime-cache-");
  g_setenv ("XDG_CACHE_HOME", cache_dir, TRUE);

  RUNTIME_TEST (runner_allows_fresh_unix_local_sessions_without_options);
  RUNTIME_TEST (
    unix_local_runner_cleanup_preserves_resumed_caller_owned_workspace_root);
  RUNTIME_TEST (
    runner_persists_workspace_and_tool_choice_state_across_sandbox_resume);
  RUNTIME_TEST (
    runner_restores_all_sandbox_agents_from_run_state_across_handoffs);
  RUNTIME_TEST (
    runner_serializes_unique_sandbox_resume_keys_for_duplicate_agent_names);
  RUNTIME_TEST (
    duplicate_name_sandbox_identity_map_uses_capability_and_manifest_config);
  RUNTIME_TEST (
    session_manager_reserves_current_duplicate_resume_key_for_current_agent);
  RUNTIME_TEST (
    session_manager_generates_collision_free_resume_keys_for_literal_suffix_names);
  for (guint i = 0; i < G_N_ELEMENTS (limit_sources); i++)
    {
      add_param_test (
        "session_manager_passes_concurrency_limits_from_run_config",
        limit_sources[i], limit_sources[i],
        test_session_manager_passes_concurrency_limits_from_run_config);
      add_param_test (
        "session_manager_passes_archive_limits_from_run_config",
        limit_sources[i], limit_sources[i],
        test_session_manager_passes_archive_limits_from_run_config);
    }
  RUNTIME_TEST (
    session_manager_default_archive_limits_preserves_no_resource_limits);
  RUNTIME_TEST (session_manager_rejects_invalid_archive_limits);
  add_param_test ("session_manager_rejects_invalid_concurrency_limits",
                  "manifest_entries", &invalid_concurrency_cases[0],
                  test_session_manager_rejects_invalid_concurrency_limits);
  add_param_test ("session_manager_rejects_invalid_concurrency_limits",
                  "local_dir_files", &invalid_concurrency_cases[1],
                  test_session_manager_rejects_invalid_concurrency_limits);
  RUNTIME_TEST (
    session_manager_preserves_untouched_run_state_sessions_on_cleanup);
  for (guint i = 0; i < G_N_ELEMENTS (resume_sources); i++)
    add_param_test (
      "session_manager_reapplies_capability_manifest_mutations_on_resume",
      resume_sources[i], resume_sources[i],
      test_session_manager_reapplies_capability_manifest_mutations_on_resume);
  RUNTIME_TEST (session_manager_adds_run_as_user_on_resume);
  RUNTIME_TEST (session_manager_does_not_duplicate_run_as_user_from_group);
  for (guint i = 0; i < G_N_ELEMENTS (parity_sources); i++)
    add_param_test (
      "session_manager_applies_capability_manifest_mutations_with_session_"
      "parity",
      parity_sources[i], parity_sources[i],
      test_session_manager_applies_capability_manifest_mutations_with_session_parity);
  RUNTIME_TEST (
    session_manager_starts_stopped_injected_session_with_manifest_mutation);
  RUNTIME_TEST (
    session_manager_materializes_running_injected_session_manifest_mutation);
  RUNTIME_TEST (
    session_manager_retries_running_injected_session_delta_apply_after_failure);
  RUNTIME_TEST (
    session_manager_skips_rematerialization_for_unchanged_running_session);
  RUNTIME_TEST (
    session_manager_rejects_running_injected_session_account_mutation);
  RUNTIME_TEST (
    session_manager_preserves_existing_payload_when_no_sandbox_session_is_used);
  RUNTIME_TEST (
    session_manager_omits_existing_payload_for_injected_live_session);
  RUNTIME_TEST (
    session_manager_uses_run_state_starting_agent_for_duplicate_resume_keys);
  RUNTIME_TEST (
    session_manager_restores_duplicate_name_sessions_when_only_sandbox_config_differs);
  RUNTIME_TEST (
    runner_restores_duplicate_name_sandbox_sessions_after_json_roundtrip);
  RUNTIME_TEST (
    runner_restores_legacy_current_sandbox_payload_after_json_roundtrip);
  RUNTIME_TEST (
    prepare_agent_rechecks_session_liveness_before_reusing_cached_agent);
  RUNTIME_TEST (prepare_agent_binds_run_as_to_cloned_capabilities);
  RUNTIME_TEST (prepare_sandbox_agent_validates_required_capabilities);
  RUNTIME_TEST (prepare_agent_refuses_invalid_workspace_cwd_before_session);
  RUNTIME_TEST (prepare_agent_reports_failing_cwd_probe);
  RUNTIME_TEST (unix_local_run_in_workspace_cwd);
  RUNTIME_TEST (prepare_agent_processes_context_with_bound_cached_capabilities);
  RUNTIME_TEST (
    prepare_agent_starts_new_live_session_even_when_backend_reports_running);
  RUNTIME_TEST (sandbox_runtime_emits_high_level_sdk_spans);
  RUNTIME_TEST (
    prepare_agent_uses_active_sandbox_agent_memory_capability_for_handoffs);
  RUNTIME_TEST (
    prepare_agent_enables_memory_when_handoff_target_adds_capability);

  status = g_test_run ();
  agents_test_rm_rf (cache_dir);
  return status;
}
