/* test-reference-msec.c - reference cases MSEC-*: mount credential
 * boundary and redaction (../shared/spec/reference-cases.md)
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "agents-mount-security-private.h"
#include "agents-s3-mount.h"
#include "fake-sandbox.h"
#include "test-utils.h"

#define SECRET "msec-secret-access-key-value"

/* A manifest with an in-container s3 mount at `data` whose keys no one
 * acknowledged. */
static AgentsManifest *
unsafe_manifest (void)
{
  AgentsManifest *manifest = agents_manifest_new ();
  g_autoptr (AgentsManifestEntry) mount = agents_s3_mount_new ("bucket", NULL);

  agents_s3_mount_set_access_key_id (AGENTS_S3_MOUNT (mount),
                                     "msec-access-key-id");
  agents_s3_mount_set_secret_access_key (AGENTS_S3_MOUNT (mount), SECRET);
  agents_manifest_set_entry (manifest, "data", mount);
  return manifest;
}

static void
assert_boundary_error (const GError *error, const char *first_message)
{
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_MOUNT_CONFIG);
  g_assert_true (g_str_has_prefix (error->message,
                                   "mount-scoped credentials cannot be "
                                   "exposed to a helper inside a "
                                   "model-controlled sandbox by default"));
  g_assert_null (strstr (error->message, SECRET));
  if (first_message != NULL)
    g_assert_cmpstr (error->message, ==, first_message);
}

/* MSEC-02 */
static void
test_rejects_unsafe_mount_before_workspace_work (void)
{
  g_autoptr (AgentsManifest) clean = agents_manifest_new ();
  g_autoptr (AgentsManifest) unsafe = unsafe_manifest ();
  g_autoptr (FakeSession) session = fake_session_new (unsafe);
  g_autoptr (FakeSession) mutated = fake_session_new (clean);
  AgentsSandboxSession *s = AGENTS_SANDBOX_SESSION (session);
  g_autoptr (GInputStream) data = g_memory_input_stream_new ();
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GInputStream) archive = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *message = NULL;

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_stop_async (
                            s, NULL, agents_test_async_cb, &res));
  g_assert_false (agents_sandbox_session_stop_finish (s, res, &error));
  assert_boundary_error (error, NULL);
  message = g_strdup (error->message);
  g_clear_error (&error);

  /* A manifest that became unsafe after start. */
  agents_sandbox_session_state_set_manifest (mutated->state, unsafe);
  AGENTS_TEST_AWAIT (
    res, agents_sandbox_session_stop_async (AGENTS_SANDBOX_SESSION (mutated),
                                            NULL, agents_test_async_cb, &res));
  g_assert_false (agents_sandbox_session_stop_finish (
    AGENTS_SANDBOX_SESSION (mutated), res, &error));
  assert_boundary_error (error, message);
  g_clear_error (&error);

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_persist_workspace_async (
                            s, NULL, agents_test_async_cb, &res));
  archive = agents_sandbox_session_persist_workspace_finish (s, res, &error);
  g_assert_null (archive);
  assert_boundary_error (error, message);
  g_clear_error (&error);

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_hydrate_workspace_async (
                            s, data, NULL, agents_test_async_cb, &res));
  g_assert_false (
    agents_sandbox_session_hydrate_workspace_finish (s, res, &error));
  assert_boundary_error (error, message);

  g_assert_cmpuint (session->stop_calls + mutated->stop_calls, ==, 0);
  g_assert_cmpuint (session->persist_calls + mutated->persist_calls, ==, 0);
  g_assert_cmpuint (session->hydrate_calls + mutated->hydrate_calls, ==, 0);
}

/* The acknowledged path (relative or absolute) passes the boundary. */
static void
test_acknowledged_mount_passes (void)
{
  g_autoptr (AgentsManifest) unsafe = unsafe_manifest ();
  g_autoptr (AgentsManifest) other = unsafe_manifest ();
  const char *const relative[] = { "data", NULL };
  const char *const absolute[] = { "/workspace/data", NULL };
  g_autoptr (GError) error = NULL;

  agents_manifest_acknowledge_mount_credential_exposure (unsafe, relative);
  g_assert_true (
    agents_manifest_check_mount_credential_boundary (unsafe, &error));
  g_assert_no_error (error);
  agents_manifest_acknowledge_mount_credential_exposure (other, absolute);
  g_assert_true (
    agents_manifest_check_mount_credential_boundary (other, &error));
  g_assert_no_error (error);
}

/* ---- redaction of cleanup failures (MSEC-04) --------------------------- */

static void
secret_hook (AgentsSandboxSession *session, GTask *task, gpointer user_data)
{
  g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED,
                           "pre-stop hook failed with %s", SECRET);
}

/* Runner-owned cleanup of a session whose manifest carries (acknowledged)
 * mount credentials; @failing_delete or a failing pre-stop hook. */
static void
check_cleanup_redacted (gboolean failing_delete)
{
  g_autoptr (AgentsManifest) manifest = unsafe_manifest ();
  g_autoptr (AgentsManifest) empty = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (empty);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsSandboxAgent) agent = agents_sandbox_agent_new ("worker");
  g_autoptr (AgentsSandboxRunConfig) sandbox = agents_sandbox_run_config_new ();
  g_autoptr (AgentsSandboxSessionManager) manager = NULL;
  g_autoptr (GPtrArray) capabilities = g_ptr_array_new ();
  g_autoptr (AgentsSandboxSession) live = NULL;
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (JsonObject) payload = NULL;
  g_autoptr (GVariant) context = NULL;
  g_autoptr (GError) error = NULL;
  const char *const data[] = { "data", NULL };
  g_autofree char *delete_message =
    g_strdup_printf ("engine refused: %s", SECRET);
  GVariantDict options;

  agents_manifest_acknowledge_mount_credential_exposure (manifest, data);
  agents_sandbox_run_config_set_manifest (sandbox, manifest);
  agents_sandbox_run_config_set_client (sandbox,
                                        AGENTS_SANDBOX_CLIENT (client));
  g_variant_dict_init (&options, NULL);
  g_variant_dict_insert (&options, "image", "s", "sandbox");
  agents_sandbox_run_config_set_options (sandbox,
                                         g_variant_dict_end (&options));
  if (failing_delete)
    client->delete_error = delete_message;
  manager =
    agents_sandbox_session_manager_new (AGENTS_AGENT (agent), sandbox, NULL);
  AGENTS_TEST_AWAIT (res, agents_sandbox_session_manager_ensure_session_async (
                            manager, agent, capabilities, FALSE, NULL,
                            agents_test_async_cb, &res));
  live =
    agents_sandbox_session_manager_ensure_session_finish (manager, res, &error);
  g_assert_no_error (error);
  if (!failing_delete)
    agents_sandbox_session_add_pre_stop_hook (live, secret_hook, NULL, NULL);

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_manager_cleanup_async (
                            manager, NULL, agents_test_async_cb, &res));
  payload =
    agents_sandbox_session_manager_cleanup_finish (manager, res, &error);
  g_assert_null (payload);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_FAILED);
  g_assert_cmpstr (error->message, ==,
                   "sandbox operation failed while using a protected mount "
                   "configuration");
  g_assert_null (strstr (error->message, SECRET));
  context = agents_sandbox_error_get_context (error);
  g_assert_true (context == NULL || g_variant_n_children (context) == 0);
  g_assert_cmpuint (session->stop_calls, ==, failing_delete ? 1 : 0);
  g_assert_cmpuint (session->shutdown_calls, ==, 1);
  g_assert_cmpuint (session->close_dependency_calls, ==, 1);
  g_assert_cmpuint (client->delete_calls, ==, 1);
}

/* MSEC-04: (a) a client delete failure, (b) a pre-stop hook failure. */
static void
test_runner_owned_cleanup_redacts (void)
{
  check_cleanup_redacted (TRUE);
  check_cleanup_redacted (FALSE);
}

/* ---- redaction of capability failures (MSEC-10) ----------------------- */

/* A capability whose process_manifest_checked fails with an error quoting
 * SECRET, after adding a secret-bearing mount to the manifest when
 * @add_mount. */
typedef struct
{
  GObject parent_instance;
  gboolean add_mount;
} FailingCapability;

typedef struct
{
  GObjectClass parent_class;
} FailingCapabilityClass;

static void failing_capability_iface_init (AgentsCapabilityInterface *iface);
GType failing_capability_get_type (void);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FailingCapability, g_object_unref)
G_DEFINE_TYPE_WITH_CODE (FailingCapability,
                         failing_capability,
                         G_TYPE_OBJECT,
                         G_IMPLEMENT_INTERFACE (AGENTS_TYPE_CAPABILITY,
                                                failing_capability_iface_init))

static const char *
failing_capability_type (AgentsCapability *capability)
{
  return "failing-manifest";
}

static AgentsManifest *
failing_capability_process_manifest (AgentsCapability *capability,
                                     AgentsManifest *manifest,
                                     GError **error)
{
  if (((FailingCapability *) capability)->add_mount)
    {
      g_autoptr (AgentsManifest) secret = unsafe_manifest ();

      agents_manifest_set_entry (manifest, "cap-data",
                                 agents_manifest_get_entry (secret, "data"));
    }
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
               "capability could not use key %s", SECRET);
  return NULL;
}

static void
failing_capability_iface_init (AgentsCapabilityInterface *iface)
{
  iface->get_capability_type = failing_capability_type;
  iface->process_manifest_checked = failing_capability_process_manifest;
}

static void
failing_capability_class_init (FailingCapabilityClass *klass)
{
}

static void
failing_capability_init (FailingCapability *self)
{
}

typedef enum
{
  SECRET_FROM_CAPABILITY,
  SECRET_FROM_RUN_CONFIG,
  SECRET_FROM_AGENT_DEFAULT,
  SECRET_NOWHERE,
} SecretSource;

/* Ensures a session through a manager whose capability fails, the
 * secret-bearing mount coming from @source; returns the error. */
static GError *
ensure_with_failing_capability (SecretSource source)
{
  g_autoptr (AgentsManifest) manifest = unsafe_manifest ();
  g_autoptr (AgentsManifest) empty = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (empty);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsSandboxAgent) agent = agents_sandbox_agent_new ("worker");
  g_autoptr (AgentsSandboxRunConfig) sandbox = agents_sandbox_run_config_new ();
  g_autoptr (AgentsSandboxSessionManager) manager = NULL;
  g_autoptr (FailingCapability) capability =
    g_object_new (failing_capability_get_type (), NULL);
  g_autoptr (GPtrArray) capabilities = g_ptr_array_new ();
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (AgentsSandboxSession) live = NULL;
  const char *const data[] = { "data", NULL };
  GError *error = NULL;
  GVariantDict options;

  capability->add_mount = source == SECRET_FROM_CAPABILITY;
  g_ptr_array_add (capabilities, capability);
  agents_manifest_acknowledge_mount_credential_exposure (manifest, data);
  if (source == SECRET_FROM_RUN_CONFIG)
    agents_sandbox_run_config_set_manifest (sandbox, manifest);
  else if (source == SECRET_FROM_AGENT_DEFAULT)
    agents_sandbox_agent_set_default_manifest (agent, manifest);
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
  g_assert_null (live);
  g_assert_nonnull (error);
  g_assert_false (client->created);
  g_assert_null (client->create_manifest);
  return error;
}

static void
assert_capability_failure_redacted (SecretSource source)
{
  g_autoptr (GError) error = ensure_with_failing_capability (source);
  g_autoptr (GVariant) context = NULL;

  g_assert_nonnull (strstr (error->message, "protected mount configuration"));
  g_assert_null (strstr (error->message, SECRET));
  /* Nothing of the capability's failure is carried along. */
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_FAILED);
  context = agents_sandbox_error_get_context (error);
  g_assert_true (context == NULL || g_variant_n_children (context) == 0);
}

/* MSEC-10: (a) the failing capability added the secret mount itself;
 * (b) the secret mount comes from the run config or the agent's default
 * manifest. Without any credentials in play the failure is reported as
 * it is. */
static void
test_capability_failure_redacted (void)
{
  g_autoptr (GError) plain = NULL;

  assert_capability_failure_redacted (SECRET_FROM_CAPABILITY);
  assert_capability_failure_redacted (SECRET_FROM_RUN_CONFIG);
  assert_capability_failure_redacted (SECRET_FROM_AGENT_DEFAULT);

  plain = ensure_with_failing_capability (SECRET_NOWHERE);
  g_assert_error (plain, G_IO_ERROR, G_IO_ERROR_FAILED);
  g_assert_cmpstr (plain->message, ==, "capability could not use key " SECRET);
}

/* ---- acknowledgements across manifest replacement (MSEC-06) ---------- */

/* A capability that replaces the manifest: a new one at @root (NULL: the
 * same root) with the same entries and `cap.txt`. */
typedef struct
{
  GObject parent_instance;
  char *root;
} ReplaceCapability;

typedef struct
{
  GObjectClass parent_class;
} ReplaceCapabilityClass;

static void replace_capability_iface_init (AgentsCapabilityInterface *iface);
GType replace_capability_get_type (void);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ReplaceCapability, g_object_unref)
G_DEFINE_TYPE_WITH_CODE (ReplaceCapability,
                         replace_capability,
                         G_TYPE_OBJECT,
                         G_IMPLEMENT_INTERFACE (AGENTS_TYPE_CAPABILITY,
                                                replace_capability_iface_init))

static const char *
replace_capability_type (AgentsCapability *capability)
{
  return "replace-manifest";
}

static AgentsManifest *
replace_capability_process_manifest (AgentsCapability *capability,
                                     AgentsManifest *manifest)
{
  ReplaceCapability *self = (ReplaceCapability *) capability;
  AgentsManifest *next = agents_manifest_new ();
  g_auto (GStrv) paths = agents_manifest_get_entry_paths (manifest);
  g_autoptr (AgentsManifestEntry) file = agents_file_new_from_text ("cap");

  agents_manifest_set_root (
    next, self->root ? self->root : agents_manifest_get_root (manifest));
  for (guint i = 0; paths[i] != NULL; i++)
    agents_manifest_set_entry (next, paths[i],
                               agents_manifest_get_entry (manifest, paths[i]));
  agents_manifest_set_entry (next, "cap.txt", file);
  return next;
}

static void
replace_capability_iface_init (AgentsCapabilityInterface *iface)
{
  iface->get_capability_type = replace_capability_type;
  iface->process_manifest = replace_capability_process_manifest;
}

static void
replace_capability_finalize (GObject *object)
{
  g_free (((ReplaceCapability *) object)->root);
  G_OBJECT_CLASS (replace_capability_parent_class)->finalize (object);
}

static void
replace_capability_class_init (ReplaceCapabilityClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = replace_capability_finalize;
}

static void
replace_capability_init (ReplaceCapability *self)
{
}

/* The manifest a new session is created from when the agent's default
 * manifest is @manifest and the capability replaces it. */
static AgentsManifest *
created_manifest (AgentsManifest *manifest, const char *root)
{
  g_autoptr (AgentsManifest) empty = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (empty);
  g_autoptr (FakeClient) client = fake_client_new (session);
  g_autoptr (AgentsSandboxAgent) agent = agents_sandbox_agent_new ("worker");
  g_autoptr (AgentsSandboxRunConfig) sandbox = agents_sandbox_run_config_new ();
  g_autoptr (AgentsSandboxSessionManager) manager = NULL;
  g_autoptr (ReplaceCapability) capability =
    g_object_new (replace_capability_get_type (), NULL);
  g_autoptr (GPtrArray) capabilities = g_ptr_array_new ();
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (AgentsSandboxSession) created = NULL;
  g_autoptr (GError) error = NULL;
  GVariantDict options;

  capability->root = g_strdup (root);
  g_ptr_array_add (capabilities, capability);
  agents_sandbox_agent_set_default_manifest (agent, manifest);
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
  created =
    agents_sandbox_session_manager_ensure_session_finish (manager, res, &error);
  g_assert_no_error (error);
  g_assert_nonnull (client->create_manifest);
  return g_object_ref (client->create_manifest);
}

/* MSEC-06 */
static void
test_acknowledgement_survives_replacement (void)
{
  const char *const relative[] = { "data", NULL };
  const char *const absolute[] = { "/workspace/data", NULL };
  const char *const *acks[] = { relative, absolute };

  for (guint i = 0; i < G_N_ELEMENTS (acks); i++)
    {
      g_autoptr (AgentsManifest) manifest = unsafe_manifest ();
      g_autoptr (AgentsManifest) same = NULL;
      g_autoptr (AgentsManifest) other = NULL;
      g_autoptr (GError) error = NULL;
      gboolean passes;

      agents_manifest_acknowledge_mount_credential_exposure (manifest, acks[i]);
      same = created_manifest (manifest, NULL);
      g_assert_nonnull (agents_manifest_get_entry (same, "cap.txt"));
      g_assert_true (agents_manifest_is_mount_credential_exposure_acknowledged (
        same, "data"));
      g_assert_true (
        agents_manifest_check_mount_credential_boundary (same, &error));
      g_assert_no_error (error);

      /* Another root: a relative acknowledgement follows the entry, an
       * absolute one stays at /workspace/data. */
      other = created_manifest (manifest, "/other");
      passes = agents_manifest_check_mount_credential_boundary (other, &error);
      if (acks[i] == relative)
        {
          g_assert_no_error (error);
          g_assert_true (passes);
        }
      else
        {
          g_assert_false (passes);
          assert_boundary_error (error, NULL);
        }
    }
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
  g_autoptr (AgentsSandboxSessionState) state =
    agents_sandbox_session_get_state (session);
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
  /* The s3mount plugin is linked in statically. */
  g_setenv ("AGENTS_PLUGIN_PATH", "", TRUE);
  g_test_init (&argc, &argv, NULL);
  agents_s3mount_register_types ();

  g_test_add_func ("/reference-cases/MSEC-02",
                   test_rejects_unsafe_mount_before_workspace_work);
  g_test_add_func ("/reference-msec/acknowledged-mount-passes",
                   test_acknowledged_mount_passes);
  g_test_add_func ("/reference-cases/MSEC-04",
                   test_runner_owned_cleanup_redacts);
  g_test_add_func ("/reference-cases/MSEC-06",
                   test_acknowledgement_survives_replacement);
  g_test_add_func ("/reference-cases/MSEC-08", test_rebinds_host_path_grants);
  g_test_add_func ("/reference-cases/MSEC-10",
                   test_capability_failure_redacted);
  g_test_add_func ("/reference-cases/MSEC-12", test_rejects_unmarked_host_path);

  return g_test_run ();
}
