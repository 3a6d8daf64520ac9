/* test-reference-state.c - reference cases STATE-*: session-state JSON
 * (../shared/spec/reference-cases.md)
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "agents-sandbox-error-private.h"
#include "agents-unix-local-client.h"
#include "agents-unix-local-session.h"
#include "fake-sandbox.h"
#include "test-utils.h"

/* ---- the reference tests' stub states --------------------------------- */

/* One state type per name the reference's tests register. */
#define DEFINE_STUB_STATE(T, t, NAME)                             \
  typedef struct                                                  \
  {                                                               \
    AgentsSandboxSessionState parent_instance;                    \
  } T;                                                            \
  typedef struct                                                  \
  {                                                               \
    AgentsSandboxSessionStateClass parent_class;                  \
  } T##Class;                                                     \
  GType t##_get_type (void);                                      \
  G_DEFINE_TYPE (T, t, AGENTS_TYPE_SANDBOX_SESSION_STATE)         \
  static void t##_class_init (T##Class *klass)                    \
  {                                                               \
    AGENTS_SANDBOX_SESSION_STATE_CLASS (klass)->type_name = NAME; \
  }                                                               \
  static void t##_init (T *self)                                  \
  {                                                               \
  }

DEFINE_STUB_STATE (StubRoundtripState, stub_roundtrip_state, "stub-roundtrip")
DEFINE_STUB_STATE (SimpleRoundtripState,
                   simple_roundtrip_state,
                   "simple-roundtrip")
DEFINE_STUB_STATE (StubState, stub_state, "stub")

static void
register_stub_states (void)
{
  static const struct
  {
    const char *name;
    GType (*get_type) (void);
  } types[] = {
    { "stub-roundtrip", stub_roundtrip_state_get_type },
    { "simple-roundtrip", simple_roundtrip_state_get_type },
    { "stub", stub_state_get_type },
  };

  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    {
      g_autoptr (GError) error = NULL;

      if (agents_registry_lookup (AGENTS_REGISTRY_KIND_SESSION_STATE,
                                  types[i].name, NULL) != G_TYPE_INVALID)
        continue;
      g_assert_true (
        agents_registry_register (AGENTS_REGISTRY_KIND_SESSION_STATE,
                                  types[i].name, types[i].get_type (), &error));
      g_assert_no_error (error);
    }
}

/* A client with the default state (de)serialization. */
static AgentsSandboxClient *
default_client (void)
{
  register_stub_states ();
  return AGENTS_SANDBOX_CLIENT (fake_manifest_client_new ());
}

static AgentsSandboxSessionState *
parse_text (AgentsSandboxClient *client, const char *text, GError **error)
{
  g_autoptr (GError) local = NULL;
  g_autoptr (JsonNode) node = json_from_string (text, &local);

  g_assert_no_error (local);
  return agents_sandbox_client_deserialize_session_state (client, node, error);
}

static void
assert_payload_invalid (const GError *error)
{
  g_autoptr (GVariant) context = agents_sandbox_error_get_context (error);

  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_JSON);
  g_assert_cmpstr (error->message, ==,
                   "sandbox session state payload is invalid");
  g_assert_cmpuint (g_variant_n_children (context), ==, 0);
}

static char *
node_to_string (JsonNode *node)
{
  return json_to_string (node, FALSE);
}

/* STATE-02 */
static void
test_type_survives_serialization (void)
{
  g_autoptr (AgentsSnapshot) snapshot =
    agents_local_snapshot_new ("snap-1", "/tmp/snapshots");
  g_autoptr (AgentsSandboxSessionState) state = NULL;
  g_autoptr (JsonNode) node = NULL;
  JsonObject *object;
  JsonObject *snapshot_json;

  register_stub_states ();
  state =
    g_object_new (stub_roundtrip_state_get_type (), "snapshot", snapshot, NULL);
  node = agents_sandbox_session_state_to_json (state);
  object = json_node_get_object (node);
  g_assert_cmpstr (json_object_get_string_member (object, "type"), ==,
                   "stub-roundtrip");
  snapshot_json = json_object_get_object_member (object, "snapshot");
  g_assert_cmpstr (json_object_get_string_member (snapshot_json, "type"), ==,
                   "local");
  g_assert_cmpstr (json_object_get_string_member (snapshot_json, "base_path"),
                   ==, "/tmp/snapshots");
}

/* STATE-04: a `type` that is not a string is no state either, for the
 * default deserializer and for a backend's (which reads it by GType). */
static void
test_parse_rejects_non_string_types (void)
{
  static const char *const texts[] = {
    "{\"type\": {}}",
    "{\"type\": [\"stub\"]}",
    "{\"type\": 7}",
    "{\"type\": null}",
  };
  g_autoptr (AgentsSandboxClient) client = default_client ();
  g_autoptr (AgentsSandboxClient) unix_local = agents_unix_local_client_new ();
  AgentsSandboxClient *clients[] = { client, unix_local };

  for (guint i = 0; i < G_N_ELEMENTS (clients); i++)
    for (guint j = 0; j < G_N_ELEMENTS (texts); j++)
      {
        g_autoptr (GError) error = NULL;
        g_autoptr (AgentsSandboxSessionState) state =
          parse_text (clients[i], texts[j], &error);

        g_test_message ("%s", texts[j]);
        g_assert_null (state);
        assert_payload_invalid (error);
      }
}

/* STATE-04 */
static void
test_parse_rejects_invalid_payloads (void)
{
  g_autoptr (AgentsSandboxClient) client = default_client ();
  static const char *const invalid[] = { "{}", "{\"type\": \"missing\"}" };
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsSandboxSessionState) state = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (invalid); i++)
    {
      g_autoptr (AgentsSandboxSessionState) refused =
        parse_text (client, invalid[i], &error);

      g_assert_null (refused);
      assert_payload_invalid (error);
      g_clear_error (&error);
    }

  state = parse_text (client, "\"not-a-state\"", &error);
  g_assert_null (state);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==,
                   "session state payload must be a JSON object");
}

/* STATE-04: the secret in an unknown type name is never echoed, by the
 * default deserializer nor by a backend's. */
static void
test_parse_redacts_unknown_type (void)
{
  const char *text = "{\"type\": \"session-state-parse-secret\"}";
  g_autoptr (AgentsSandboxClient) client = default_client ();
  g_autoptr (AgentsSandboxClient) unix_local = agents_unix_local_client_new ();
  AgentsSandboxClient *clients[] = { client, unix_local };

  for (guint i = 0; i < G_N_ELEMENTS (clients); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (AgentsSandboxSessionState) state =
        parse_text (clients[i], text, &error);

      g_assert_null (state);
      assert_payload_invalid (error);
      g_assert_null (strstr (error->message, "secret"));
    }
}

/* STATE-06 */
static void
test_redacts_non_mapping_manifest (void)
{
  const char *sentinel = "non-mapping-manifest-secret";
  const char *text =
    "{\"type\": \"simple-roundtrip\", \"snapshot\": {\"type\": \"noop\", "
    "\"id\": \"snapshot\"}, \"manifest\": [\"non-mapping-manifest-secret\"]}";
  g_autoptr (AgentsSandboxClient) client = default_client ();
  g_autoptr (GError) local = NULL;
  g_autoptr (JsonNode) node = json_from_string (text, &local);
  g_autoptr (GError) from_object = NULL;
  g_autoptr (GError) from_text = NULL;
  g_autoptr (AgentsSandboxSessionState) a = NULL;
  g_autoptr (AgentsSandboxSessionState) b = NULL;
  GError *errors[2];

  g_assert_no_error (local);
  a = agents_sandbox_client_deserialize_session_state (client, node,
                                                       &from_object);
  b = parse_text (client, text, &from_text);
  g_assert_null (a);
  g_assert_null (b);
  errors[0] = from_object;
  errors[1] = from_text;
  for (guint i = 0; i < G_N_ELEMENTS (errors); i++)
    {
      g_autoptr (GVariant) context =
        agents_sandbox_error_get_context (errors[i]);
      g_autofree char *printed = g_variant_print (context, FALSE);

      assert_payload_invalid (errors[i]);
      g_assert_null (strstr (errors[i]->message, sentinel));
      g_assert_null (strstr (printed, sentinel));
    }
}

/* STATE-08 */
static void
test_state_json_key_order (void)
{
  g_autoptr (AgentsSandboxClient) client = default_client ();
  g_autoptr (AgentsSnapshot) snapshot =
    agents_local_snapshot_new ("snap-1", "/tmp/snapshots");
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsSandboxSessionState) state = NULL;
  g_autoptr (AgentsSandboxSessionState) fresh = NULL;
  g_autoptr (AgentsSandboxSessionState) other = NULL;
  g_autoptr (JsonNode) node = NULL;
  g_autoptr (JsonNode) manifest_json = agents_manifest_to_json (manifest);
  g_autofree char *manifest_text = node_to_string (manifest_json);
  g_autofree char *text = NULL;
  g_autofree char *expected = NULL;
  g_autoptr (GError) error = NULL;

  state = g_object_new (stub_state_get_type (), "session-id",
                        "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa", "snapshot",
                        snapshot, "manifest", manifest, NULL);
  node = agents_sandbox_client_serialize_session_state (client, state);
  text = node_to_string (node);
  expected = g_strdup_printf (
    "{\"type\":\"stub\",\"session_id\":\"aaaaaaaa-aaaa-aaaa-aaaa-"
    "aaaaaaaaaaaa\",\"snapshot\":{\"type\":\"local\",\"id\":\"snap-1\","
    "\"base_path\":\"/tmp/snapshots\"},\"manifest\":%s,\"exposed_ports\":[],"
    "\"snapshot_fingerprint\":null,\"snapshot_fingerprint_version\":null,"
    "\"workspace_root_ready\":false}",
    manifest_text);
  g_assert_cmpstr (text, ==, expected);

  /* Without a session id: a fresh UUID each time. */
  fresh = parse_text (client, "{\"type\": \"stub\"}", &error);
  g_assert_no_error (error);
  other = parse_text (client, "{\"type\": \"stub\"}", &error);
  g_assert_no_error (error);
  g_assert_true (G_TYPE_CHECK_INSTANCE_TYPE (fresh, stub_state_get_type ()));
  g_assert_true (g_uuid_string_is_valid (
    agents_sandbox_session_state_get_session_id (fresh)));
  g_assert_cmpstr (agents_sandbox_session_state_get_session_id (fresh), !=,
                   agents_sandbox_session_state_get_session_id (other));
}

/* STATE-10 */
static void
test_local_snapshot_fields_survive (void)
{
  g_autoptr (AgentsSnapshot) snapshot =
    agents_local_snapshot_new ("local-snapshot", "/tmp/snapshots");
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autoptr (AgentsSandboxSessionState) test_state = NULL;
  g_autoptr (AgentsSandboxSessionState) unix_state = NULL;
  g_autoptr (AgentsSandboxSessionState) back = NULL;
  g_autoptr (JsonNode) alone = agents_snapshot_to_json (snapshot);
  g_autoptr (JsonNode) test_json = NULL;
  g_autoptr (JsonNode) unix_json = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *alone_text = node_to_string (alone);
  const char *expected = "{\"type\":\"local\",\"id\":\"local-snapshot\","
                         "\"base_path\":\"/tmp/snapshots\"}";
  AgentsSnapshot *restored;

  register_stub_states ();
  g_assert_cmpstr (alone_text, ==, expected);

  test_state = g_object_new (simple_roundtrip_state_get_type (), "snapshot",
                             snapshot, NULL);
  test_json = agents_sandbox_session_state_to_json (test_state);
  {
    g_autofree char *inner = node_to_string (
      json_object_get_member (json_node_get_object (test_json), "snapshot"));

    g_assert_cmpstr (inner, ==, expected);
  }

  unix_state = agents_unix_local_session_state_new (NULL, snapshot, FALSE);
  unix_json =
    agents_sandbox_client_serialize_session_state (client, unix_state);
  back =
    agents_sandbox_client_deserialize_session_state (client, unix_json, &error);
  g_assert_no_error (error);
  restored = agents_sandbox_session_state_get_snapshot (back);
  g_assert_true (AGENTS_IS_LOCAL_SNAPSHOT (restored));
  g_assert_cmpstr (agents_snapshot_get_id (restored), ==, "local-snapshot");
  g_assert_cmpstr (
    agents_local_snapshot_get_base_path (AGENTS_LOCAL_SNAPSHOT (restored)), ==,
    "/tmp/snapshots");
}

/* STATE-12 (B) */
static void
test_client_serialization_redacts_host_paths (void)
{
  g_autoptr (AgentsSandboxClient) client = default_client ();
  g_autofree char *tmp = agents_test_make_tmp_dir ("state-12-");
  g_autoptr (AgentsManifest) trusted = agents_manifest_new ();
  g_autoptr (AgentsSandboxPathGrant) grant = NULL;
  g_autoptr (AgentsSnapshot) snapshot = agents_noop_snapshot_new ("snapshot");
  g_autoptr (AgentsSandboxSessionState) state = NULL;
  g_autoptr (AgentsSandboxSessionState) restored = NULL;
  g_autoptr (AgentsSandboxSessionState) rebound = NULL;
  g_autoptr (JsonNode) payload = NULL;
  g_autofree char *encoded = NULL;
  g_autoptr (GError) error = NULL;
  JsonObject *object;
  JsonArray *redacted;
  const char *const *required;
  GPtrArray *grants;

  grant = agents_sandbox_path_grant_try_new_full ("/mnt/shared-data", tmp, TRUE,
                                                  NULL, &error);
  g_assert_no_error (error);
  agents_manifest_add_extra_path_grant (trusted, grant);
  state = g_object_new (simple_roundtrip_state_get_type (), "manifest", trusted,
                        "snapshot", snapshot, NULL);

  payload = agents_sandbox_client_serialize_session_state (client, state);
  encoded = node_to_string (payload);
  g_assert_null (strstr (encoded, tmp));
  object = json_node_get_object (payload);
  redacted = json_object_get_array_member (
    object, "__openai_agents_redacted_host_path_grant_paths");
  g_assert_nonnull (redacted);
  g_assert_cmpuint (json_array_get_length (redacted), ==, 1);
  g_assert_cmpstr (json_array_get_string_element (redacted, 0), ==,
                   "/mnt/shared-data");
  g_assert_cmpuint (
    json_array_get_length (json_object_get_array_member (
      json_object_get_object_member (object, "manifest"), "extra_path_grants")),
    ==, 0);

  restored =
    agents_sandbox_client_deserialize_session_state (client, payload, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (agents_manifest_get_extra_path_grants (
                      agents_sandbox_session_state_get_manifest (restored))
                      ->len,
                    ==, 0);
  required =
    agents_sandbox_session_state_get_path_grants_require_rebind (restored);
  g_assert_cmpuint (g_strv_length ((char **) required), ==, 1);
  g_assert_cmpstr (required[0], ==, "/mnt/shared-data");

  rebound =
    agents_sandbox_session_state_rebind_path_grants (restored, trusted, &error);
  g_assert_no_error (error);
  grants = agents_manifest_get_extra_path_grants (
    agents_sandbox_session_state_get_manifest (rebound));
  g_assert_cmpuint (grants->len, ==, 1);
  g_assert_true (agents_sandbox_path_grant_equal (grants->pdata[0], grant));
  g_assert_null (
    agents_sandbox_session_state_get_path_grants_require_rebind (rebound)[0]);
  /* The deserialized state itself is unchanged. */
  g_assert_cmpuint (agents_manifest_get_extra_path_grants (
                      agents_sandbox_session_state_get_manifest (restored))
                      ->len,
                    ==, 0);
  g_assert_nonnull (
    agents_sandbox_session_state_get_path_grants_require_rebind (restored)[0]);
  agents_test_rm_rf (tmp);
}

/* STATE-12, the other sides: a plain dump's host path is never taken, a
 * trusted manifest without it is refused, and an unrebound state is not
 * resumed. */
static void
test_unmarked_host_path_is_not_trusted (void)
{
  g_autoptr (AgentsSandboxClient) client = default_client ();
  g_autoptr (AgentsSandboxSessionState) restored = NULL;
  g_autoptr (AgentsSandboxSessionState) rebound = NULL;
  g_autoptr (AgentsManifest) other = agents_manifest_new ();
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (GError) error = NULL;

  restored = parse_text (
    client,
    "{\"type\": \"simple-roundtrip\", \"manifest\": {\"extra_path_grants\": "
    "[{\"path\": \"/mnt/shared-data\", \"host_path\": \"/etc\", "
    "\"read_only\": true}, {\"path\": \"/mnt/plain\", \"read_only\": "
    "true}]}}",
    &error);
  g_assert_no_error (error);
  /* The path-only grant is kept as it is. */
  g_assert_cmpuint (agents_manifest_get_extra_path_grants (
                      agents_sandbox_session_state_get_manifest (restored))
                      ->len,
                    ==, 1);
  g_assert_cmpstr (
    agents_sandbox_session_state_get_path_grants_require_rebind (restored)[0],
    ==, "/mnt/shared-data");

  rebound =
    agents_sandbox_session_state_rebind_path_grants (restored, other, &error);
  g_assert_null (rebound);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==,
                   "Sandbox session state requires current trusted host_path "
                   "values for these path grants: /mnt/shared-data");
  g_clear_error (&error);

  AGENTS_TEST_AWAIT (
    res, agents_sandbox_client_resume_async (client, restored, NULL,
                                             agents_test_async_cb, &res));
  session = agents_sandbox_client_resume_finish (client, res, &error);
  g_assert_null (session);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "must be rebound"));
}

static gboolean
load_ports (const char *ports_json, GError **error)
{
  g_autoptr (AgentsSandboxSessionState) state = NULL;
  g_autofree char *text =
    g_strdup_printf ("{\"type\": \"stub\", \"exposed_ports\": %s}", ports_json);
  g_autoptr (JsonNode) node = json_from_string (text, NULL);

  register_stub_states ();
  state = g_object_new (stub_state_get_type (), NULL);
  return agents_sandbox_session_state_load_json (state, node, error);
}

static void
assert_ports (const char *ports_json, const int *expected, gsize n_expected)
{
  g_autoptr (AgentsSandboxClient) client = default_client ();
  g_autofree char *text =
    g_strdup_printf ("{\"type\": \"stub\", \"exposed_ports\": %s}", ports_json);
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsSandboxSessionState) state =
    parse_text (client, text, &error);
  g_autoptr (AgentsSandboxSessionState) copy = NULL;
  const int *ports;
  gsize n_ports = 0;

  g_assert_no_error (error);
  ports = agents_sandbox_session_state_get_exposed_ports (state, &n_ports);
  g_assert_cmpmem (ports, n_ports * sizeof (int), expected,
                   n_expected * sizeof (int));
  copy = agents_sandbox_session_state_copy (state);
  ports = agents_sandbox_session_state_get_exposed_ports (copy, &n_ports);
  g_assert_cmpmem (ports, n_ports * sizeof (int), expected,
                   n_expected * sizeof (int));
}

/* STATE-14 */
static void
test_exposed_ports (void)
{
  static const int one[] = { 8080 };
  static const int two[] = { 8080, 9000 };
  static const char *const refused[][2] = {
    { "\"8080\"", "exposed_ports must be an iterable of TCP port integers" },
    { "[8080, \"9000\"]", "exposed_ports must contain integers" },
    { "[0]", "exposed_ports entries must be between 1 and 65535" },
    { "[65536]", "exposed_ports entries must be between 1 and 65535" },
  };
  static const int zero[] = { 0 };
  g_autoptr (AgentsSandboxSessionState) state =
    agents_sandbox_session_state_new (NULL, NULL);
  g_autoptr (JsonNode) node = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;

  assert_ports ("null", NULL, 0);
  assert_ports ("8080", one, 1);
  assert_ports ("[8080, 9000, 8080]", two, 2);

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autoptr (GError) local = NULL;

      g_assert_false (load_ports (refused[i][0], &local));
      g_assert_error (local, AGENTS_SANDBOX_ERROR,
                      AGENTS_SANDBOX_ERROR_INVALID_JSON);
      g_assert_cmpstr (local->message, ==, refused[i][1]);
    }

  /* Set by code: deduplicated, range-checked, serialized. */
  g_assert_false (
    agents_sandbox_session_state_set_exposed_ports (state, zero, 1, &error));
  g_assert_cmpstr (error->message, ==,
                   "exposed_ports entries must be between 1 and 65535");
  g_clear_error (&error);
  g_assert_true (
    agents_sandbox_session_state_set_exposed_ports (state, two, 2, &error));
  g_assert_no_error (error);
  node = agents_sandbox_session_state_to_json (state);
  text = node_to_string (
    json_object_get_member (json_node_get_object (node), "exposed_ports"));
  g_assert_cmpstr (text, ==, "[8080,9000]");
}

/* Fingerprints round-trip with the state (SNAP-18 writes them). */
static void
test_fingerprint_round_trip (void)
{
  g_autoptr (AgentsSandboxClient) client = default_client ();
  g_autoptr (AgentsSandboxSessionState) state =
    agents_sandbox_session_state_new (NULL, NULL);
  g_autoptr (AgentsSandboxSessionState) back = NULL;
  g_autoptr (AgentsSandboxSessionState) copy = NULL;
  g_autoptr (JsonNode) node = NULL;
  g_autoptr (GError) error = NULL;

  agents_sandbox_session_state_set_snapshot_fingerprint (
    state, "abc123", "workspace_tar_sha256_v1");
  node = agents_sandbox_client_serialize_session_state (client, state);
  back = agents_sandbox_client_deserialize_session_state (client, node, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (agents_sandbox_session_state_get_snapshot_fingerprint (back),
                   ==, "abc123");
  g_assert_cmpstr (
    agents_sandbox_session_state_get_snapshot_fingerprint_version (back), ==,
    "workspace_tar_sha256_v1");
  copy = agents_sandbox_session_state_copy (back);
  g_assert_cmpstr (agents_sandbox_session_state_get_snapshot_fingerprint (copy),
                   ==, "abc123");
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/reference-cases/STATE-02",
                   test_type_survives_serialization);
  g_test_add_func ("/reference-cases/STATE-04",
                   test_parse_rejects_invalid_payloads);
  g_test_add_func ("/reference-state/non-string-type-refused",
                   test_parse_rejects_non_string_types);
  g_test_add_func ("/reference-state/unknown-type-redacted",
                   test_parse_redacts_unknown_type);
  g_test_add_func ("/reference-cases/STATE-06",
                   test_redacts_non_mapping_manifest);
  g_test_add_func ("/reference-cases/STATE-08", test_state_json_key_order);
  g_test_add_func ("/reference-cases/STATE-10",
                   test_local_snapshot_fields_survive);
  g_test_add_func ("/reference-cases/STATE-12",
                   test_client_serialization_redacts_host_paths);
  g_test_add_func ("/reference-state/unmarked-host-path-not-trusted",
                   test_unmarked_host_path_is_not_trusted);
  g_test_add_func ("/reference-cases/STATE-14", test_exposed_ports);
  g_test_add_func ("/reference-state/fingerprint-round-trip",
                   test_fingerprint_round_trip);

  return g_test_run ();
}
