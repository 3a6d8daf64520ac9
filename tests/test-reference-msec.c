/* test-reference-msec.c - reference cases MSEC-*: mount credential
 * boundary and redaction (../shared/spec/reference-cases.md)
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "fake-sandbox.h"
#include "test-utils.h"

static void
skip_boundary (void)
{
  g_test_skip ("the mount credential boundary (MountConfig refusal of an "
               "unsafe manifest before persist/hydrate, mount "
               "acknowledgements) is not built");
}

static void
skip_redaction (void)
{
  g_test_skip ("redaction of errors as “protected mount configuration” "
               "(client delete, pre-stop hooks, capability failures) is "
               "not built");
}

/* ---- host_path grants on resume (MSEC-08, MSEC-12) -------------------- */

/* A capability whose process_manifest adds a host-directory grant. */
typedef struct
{
  GObject parent_instance;
  AgentsSandboxPathGrant *grant;
  guint process_calls;
} GrantCapability;

typedef struct
{
  GObjectClass parent_class;
} GrantCapabilityClass;

static void grant_capability_iface_init (AgentsCapabilityInterface *iface);
GType grant_capability_get_type (void);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GrantCapability, g_object_unref)
G_DEFINE_TYPE_WITH_CODE (GrantCapability,
                         grant_capability,
                         G_TYPE_OBJECT,
                         G_IMPLEMENT_INTERFACE (AGENTS_TYPE_CAPABILITY,
                                                grant_capability_iface_init))

static const char *
grant_capability_type (AgentsCapability *capability)
{
  return "host-grant";
}

static AgentsManifest *
grant_capability_process_manifest (AgentsCapability *capability,
                                   AgentsManifest *manifest)
{
  GrantCapability *self = (GrantCapability *) capability;
  AgentsManifest *copy = agents_manifest_copy (manifest);

  self->process_calls++;
  agents_manifest_add_extra_path_grant (copy, self->grant);
  return copy;
}

static void
grant_capability_iface_init (AgentsCapabilityInterface *iface)
{
  iface->get_capability_type = grant_capability_type;
  iface->process_manifest = grant_capability_process_manifest;
}

static void
grant_capability_finalize (GObject *object)
{
  g_clear_object (&((GrantCapability *) object)->grant);
  G_OBJECT_CLASS (grant_capability_parent_class)->finalize (object);
}

static void
grant_capability_class_init (GrantCapabilityClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = grant_capability_finalize;
}

static void
grant_capability_init (GrantCapability *self)
{
}

static AgentsSandboxPathGrant *
host_grant (const char *host)
{
  g_autoptr (GError) error = NULL;
  AgentsSandboxPathGrant *grant = agents_sandbox_path_grant_try_new_full (
    "/mnt/shared-data", host, TRUE, NULL, &error);

  g_assert_no_error (error);
  return grant;
}

/* The run-state envelope of one agent's @session_state. */
static AgentsRunState *
run_state_with (AgentsAgent *agent, JsonNode *session_state)
{
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);
  g_autoptr (JsonNode) input = agents_test_str_node ("hello");
  AgentsRunState *state = agents_run_state_new (ctx, input, agent);
  g_autoptr (JsonObject) envelope = json_object_new ();
  JsonObject *sessions = json_object_new ();
  JsonObject *entry = json_object_new ();
  const char *name = agents_agent_get_name (agent);

  json_object_set_string_member (entry, "agent_name", name);
  json_object_set_member (entry, "session_state",
                          json_node_copy (session_state));
  json_object_set_object_member (sessions, name, entry);
  json_object_set_string_member (envelope, "backend_id", "fake");
  json_object_set_string_member (envelope, "current_agent_key", name);
  json_object_set_string_member (envelope, "current_agent_name", name);
  json_object_set_member (envelope, "session_state",
                          json_node_copy (session_state));
  json_object_set_object_member (envelope, "sessions_by_agent", sessions);
  agents_run_state_set_sandbox (state, envelope);
  return state;
}

typedef struct
{
  char *tmp;
  FakeSession *session;
  FakeClient *client;
  AgentsSandboxAgent *agent;
  AgentsSandboxRunConfig *sandbox;
  AgentsSandboxPathGrant *grant;
} Resume;

static void
resume_init (Resume *r)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();

  r->tmp = agents_test_make_tmp_dir ("msec-");
  r->session = fake_session_new (manifest);
  r->client = fake_client_new (r->session);
  r->agent = agents_sandbox_agent_new ("worker");
  r->sandbox = agents_sandbox_run_config_new ();
  r->grant = host_grant (r->tmp);
  agents_sandbox_run_config_set_client (r->sandbox,
                                        AGENTS_SANDBOX_CLIENT (r->client));
}

static void
resume_clear (Resume *r)
{
  agents_test_rm_rf (r->tmp);
  g_free (r->tmp);
  g_clear_object (&r->session);
  g_clear_object (&r->client);
  g_clear_object (&r->agent);
  g_clear_object (&r->sandbox);
  g_clear_object (&r->grant);
}

/* The client-serialized state of a session whose manifest has the host
 * grant. */
static JsonNode *
serialized_state_with_grant (Resume *r)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsSandboxSessionState) state = NULL;

  agents_manifest_add_extra_path_grant (manifest, r->grant);
  state = agents_sandbox_session_state_new (manifest, NULL);
  return agents_sandbox_client_serialize_session_state (
    AGENTS_SANDBOX_CLIENT (r->client), state);
}

static AgentsSandboxSession *
resume_through_manager (Resume *r,
                        JsonNode *session_state,
                        AgentsCapability *capability,
                        GError **error)
{
  g_autoptr (AgentsRunState) run_state =
    run_state_with (AGENTS_AGENT (r->agent), session_state);
  g_autoptr (AgentsSandboxSessionManager) manager =
    agents_sandbox_session_manager_new (AGENTS_AGENT (r->agent), r->sandbox,
                                        run_state);
  g_autoptr (GPtrArray) capabilities = g_ptr_array_new ();
  g_autoptr (GAsyncResult) res = NULL;
  AgentsSandboxSession *session;

  if (capability != NULL)
    g_ptr_array_add (capabilities, capability);
  g_assert_true (agents_sandbox_session_manager_acquire_agent (
    manager, AGENTS_AGENT (r->agent), NULL));
  AGENTS_TEST_AWAIT (res, agents_sandbox_session_manager_ensure_session_async (
                            manager, r->agent, capabilities, TRUE, NULL,
                            agents_test_async_cb, &res));
  session =
    agents_sandbox_session_manager_ensure_session_finish (manager, res, error);
  agents_sandbox_session_manager_release_agents (manager);
  return session;
}

static void
assert_resumed_with_trusted_grant (Resume *r, AgentsSandboxSession *session)
{
  AgentsSandboxSessionState *state = agents_sandbox_session_get_state (session);
  GPtrArray *grants = agents_manifest_get_extra_path_grants (
    agents_sandbox_session_state_get_manifest (state));

  g_assert_nonnull (r->client->resume_state);
  g_assert_cmpuint (grants->len, ==, 1);
  g_assert_true (agents_sandbox_path_grant_equal (grants->pdata[0], r->grant));
  g_assert_null (
    agents_sandbox_session_state_get_path_grants_require_rebind (state)[0]);
}

/* MSEC-08 (a): the grant comes from a capability. */
static void
test_rebinds_capability_host_grant_once (void)
{
  Resume r = { 0 };
  g_autoptr (JsonNode) saved = NULL;
  g_autoptr (GrantCapability) capability = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GError) error = NULL;

  resume_init (&r);
  saved = serialized_state_with_grant (&r);
  capability = g_object_new (grant_capability_get_type (), NULL);
  capability->grant = g_object_ref (r.grant);
  session =
    resume_through_manager (&r, saved, AGENTS_CAPABILITY (capability), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (capability->process_calls, ==, 1);
  assert_resumed_with_trusted_grant (&r, session);
  resume_clear (&r);
}

/* MSEC-08 (b): the grant comes from the agent's default manifest. */
static void
test_rebinds_default_manifest_host_grant (void)
{
  Resume r = { 0 };
  g_autoptr (JsonNode) saved = NULL;
  g_autoptr (AgentsManifest) trusted = agents_manifest_new ();
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GError) error = NULL;

  resume_init (&r);
  saved = serialized_state_with_grant (&r);
  agents_manifest_add_extra_path_grant (trusted, r.grant);
  agents_sandbox_agent_set_default_manifest (r.agent, trusted);
  session = resume_through_manager (&r, saved, NULL, &error);
  g_assert_no_error (error);
  assert_resumed_with_trusted_grant (&r, session);
  resume_clear (&r);
}

static void
test_rebinds_host_path_grants (void)
{
  test_rebinds_capability_host_grant_once ();
  test_rebinds_default_manifest_host_grant ();
}

/* MSEC-12: a plain state dump (no redaction marker) that names a host
 * directory. */
static void
test_rejects_unmarked_host_path (void)
{
  Resume r = { 0 };
  g_autoptr (JsonNode) dump = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;

  resume_init (&r);
  text = g_strdup_printf (
    "{\"type\": \"sandbox\", \"manifest\": {\"extra_path_grants\": "
    "[{\"path\": \"/mnt/shared-data\", \"host_path\": \"%s\", "
    "\"read_only\": true}]}}",
    r.tmp);
  dump = json_from_string (text, NULL);
  g_assert_nonnull (dump);
  session = resume_through_manager (&r, dump, NULL, &error);
  g_assert_null (session);
  g_assert_nonnull (error);
  g_assert_nonnull (
    strstr (error->message, "requires current trusted host_path"));
  g_assert_null (r.client->resume_state);
  resume_clear (&r);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/reference-cases/MSEC-02", skip_boundary);
  g_test_add_func ("/reference-cases/MSEC-04", skip_redaction);
  g_test_add_func ("/reference-cases/MSEC-06", skip_boundary);
  g_test_add_func ("/reference-cases/MSEC-08", test_rebinds_host_path_grants);
  g_test_add_func ("/reference-cases/MSEC-10", skip_redaction);
  g_test_add_func ("/reference-cases/MSEC-12", test_rejects_unmarked_host_path);

  return g_test_run ();
}
