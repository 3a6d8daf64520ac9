/* test-reference-typed-json.c - reference cases of the typed-JSON
 * families: SNAP-02/04 (snapshot types), MAN-20 (entry types), MAN-12/22/24
 * (environment values) (../shared/spec/reference-cases.md)
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "agents-sandbox-error-private.h"
#include "test-utils.h"

static JsonNode *
parse (const char *text)
{
  g_autoptr (GError) error = NULL;
  JsonNode *node = json_from_string (text, &error);

  g_assert_no_error (error);
  return node;
}

static char *
to_text (JsonNode *node)
{
  return json_to_string (node, FALSE);
}

/* ---- a snapshot type of the test's own -------------------------------- */

#define TEST_TYPE_NOOP_SNAPSHOT (test_noop_snapshot_get_type ())
G_DECLARE_FINAL_TYPE (
  TestNoopSnapshot, test_noop_snapshot, TEST, NOOP_SNAPSHOT, GObject)

struct _TestNoopSnapshot
{
  GObject parent_instance;
  char *id;
};

static void test_noop_snapshot_iface_init (AgentsSnapshotInterface *iface);

G_DEFINE_TYPE_WITH_CODE (TestNoopSnapshot,
                         test_noop_snapshot,
                         G_TYPE_OBJECT,
                         G_IMPLEMENT_INTERFACE (AGENTS_TYPE_SNAPSHOT,
                                                test_noop_snapshot_iface_init))

static void
test_noop_snapshot_iface_init (AgentsSnapshotInterface *iface)
{
}

static void
test_noop_snapshot_get_property (GObject *object,
                                 guint prop_id,
                                 GValue *value,
                                 GParamSpec *pspec)
{
  g_value_set_string (value, TEST_NOOP_SNAPSHOT (object)->id);
}

static void
test_noop_snapshot_set_property (GObject *object,
                                 guint prop_id,
                                 const GValue *value,
                                 GParamSpec *pspec)
{
  g_free (TEST_NOOP_SNAPSHOT (object)->id);
  TEST_NOOP_SNAPSHOT (object)->id = g_value_dup_string (value);
}

static void
test_noop_snapshot_finalize (GObject *object)
{
  g_free (TEST_NOOP_SNAPSHOT (object)->id);
  G_OBJECT_CLASS (test_noop_snapshot_parent_class)->finalize (object);
}

static void
test_noop_snapshot_class_init (TestNoopSnapshotClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = test_noop_snapshot_get_property;
  object_class->set_property = test_noop_snapshot_set_property;
  object_class->finalize = test_noop_snapshot_finalize;
  g_object_class_install_property (
    object_class, 1,
    g_param_spec_string ("id", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
}

static void
test_noop_snapshot_init (TestNoopSnapshot *self)
{
}

/* A second type, to clash with the first. */
#define TEST_TYPE_OTHER_SNAPSHOT (test_other_snapshot_get_type ())
G_DECLARE_FINAL_TYPE (
  TestOtherSnapshot, test_other_snapshot, TEST, OTHER_SNAPSHOT, GObject)

struct _TestOtherSnapshot
{
  GObject parent_instance;
};

static void
test_other_snapshot_iface_init (AgentsSnapshotInterface *iface)
{
}

G_DEFINE_TYPE_WITH_CODE (TestOtherSnapshot,
                         test_other_snapshot,
                         G_TYPE_OBJECT,
                         G_IMPLEMENT_INTERFACE (AGENTS_TYPE_SNAPSHOT,
                                                test_other_snapshot_iface_init))

static void
test_other_snapshot_class_init (TestOtherSnapshotClass *klass)
{
}

static void
test_other_snapshot_init (TestOtherSnapshot *self)
{
}

/* SNAP-02 */
static void
test_snapshot_parse_uses_registered_type (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) registered =
    parse ("{\"type\":\"test-noop\",\"id\":\"registered\"}");
  g_autoptr (JsonNode) unknown = parse ("{\"type\":\"nope\",\"id\":\"x\"}");
  g_autoptr (JsonNode) text = parse ("\"not-a-snapshot\"");
  g_autoptr (JsonNode) list = parse ("[]");
  g_autoptr (AgentsSnapshot) snapshot = NULL;
  g_autoptr (JsonNode) back = NULL;
  g_autofree char *back_text = NULL;
  g_autofree const char **known = NULL;
  g_autoptr (GVariant) context = NULL;

  g_assert_true (agents_registry_register_snapshot_type (
    "test-noop", TEST_TYPE_NOOP_SNAPSHOT, &error));
  g_assert_no_error (error);

  snapshot = agents_snapshot_new_from_json (registered, &error);
  g_assert_no_error (error);
  g_assert_true (
    G_TYPE_CHECK_INSTANCE_TYPE (snapshot, TEST_TYPE_NOOP_SNAPSHOT));
  g_assert_cmpstr (agents_snapshot_get_id (snapshot), ==, "registered");
  g_assert_cmpstr (agents_snapshot_get_snapshot_type (snapshot), ==,
                   "test-noop");
  back = agents_snapshot_to_json (snapshot);
  back_text = to_text (back);
  g_assert_cmpstr (back_text, ==,
                   "{\"type\":\"test-noop\",\"id\":\"registered\"}");
  g_clear_object (&snapshot);

  snapshot = agents_snapshot_new_from_json (unknown, &error);
  g_assert_null (snapshot);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_UNKNOWN_TYPE);
  g_assert_cmpstr (error->message, ==, "unknown snapshot type `nope`");
  context = agents_sandbox_error_get_context (error);
  g_assert_true (g_variant_lookup (context, "known", "^a&s", &known));
  g_assert_true (g_strv_contains (known, "test-noop"));
  g_assert_true (g_strv_contains (known, "local"));
  g_clear_error (&error);

  snapshot = agents_snapshot_new_from_json (text, &error);
  g_assert_null (snapshot);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_JSON);
  g_assert_cmpstr (error->message, ==,
                   "snapshot payload must be a JSON object, got string");
  g_clear_error (&error);
  snapshot = agents_snapshot_new_from_json (list, &error);
  g_assert_null (snapshot);
  g_assert_cmpstr (error->message, ==,
                   "snapshot payload must be a JSON object, got array");
}

/* SNAP-04 */
static void
test_snapshot_registration_errors (void)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (agents_registry_register_snapshot_type (
    "test-duplicate", TEST_TYPE_NOOP_SNAPSHOT, &error));
  g_assert_no_error (error);
  g_assert_false (agents_registry_register_snapshot_type (
    "test-duplicate", TEST_TYPE_OTHER_SNAPSHOT, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "already registered"));
  g_clear_error (&error);
  /* The same through the mechanism itself. */
  g_assert_false (agents_typed_json_register (
    AGENTS_TYPE_SNAPSHOT, "test-duplicate", TEST_TYPE_OTHER_SNAPSHOT, &error));
  g_assert_nonnull (strstr (error->message, "already registered"));
  g_clear_error (&error);

  g_assert_false (agents_registry_register_snapshot_type (
    "", TEST_TYPE_OTHER_SNAPSHOT, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "non-empty `type`"));
  g_clear_error (&error);
  g_assert_false (agents_typed_json_register (
    AGENTS_TYPE_SNAPSHOT, NULL, TEST_TYPE_OTHER_SNAPSHOT, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  /* A type outside the family, and a family that is none. */
  g_assert_false (agents_typed_json_register (
    AGENTS_TYPE_SNAPSHOT, "test-wrong", AGENTS_TYPE_STR_ENV_VALUE, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (
    agents_typed_json_register (G_TYPE_OBJECT, "x", G_TYPE_OBJECT, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  /* None of the failures registered anything. */
  g_assert_true (agents_typed_json_lookup (AGENTS_TYPE_SNAPSHOT,
                                           "test-duplicate",
                                           &error) == TEST_TYPE_NOOP_SNAPSHOT);
  g_assert_true (agents_typed_json_lookup (AGENTS_TYPE_SNAPSHOT, "test-wrong",
                                           &error) == G_TYPE_INVALID);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_UNKNOWN_TYPE);
}

/* ---- MAN-20 ------------------------------------------------------------ */

static void
assert_manifest_error (const char *text, int code, const char *message)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsManifest) manifest =
    agents_manifest_new_from_data (text, -1, &error);

  g_test_message ("%s", text);
  g_assert_null (manifest);
  g_assert_error (error, AGENTS_SANDBOX_ERROR, code);
  if (message != NULL)
    g_assert_cmpstr (error->message, ==, message);
}

static void
test_manifest_entry_parse_errors (void)
{
  g_auto (GStrv) known = agents_typed_json_list (AGENTS_TYPE_MANIFEST_ENTRY);
  g_autofree char *joined = g_strjoinv (", ", known);
  g_autofree char *unknown = g_strdup_printf (
    "Unknown artifact type `nope`. Registered types: %s", joined);
  static const char *const builtins[] = { "dir", "file", "git_repo",
                                          "local_dir", "local_file" };

  /* Sorted, and every built-in type is there. */
  for (guint i = 0; known[i] != NULL && known[i + 1] != NULL; i++)
    g_assert_cmpint (strcmp (known[i], known[i + 1]), <, 0);
  for (guint i = 0; i < G_N_ELEMENTS (builtins); i++)
    g_assert_true (g_strv_contains ((const char *const *) known, builtins[i]));

  assert_manifest_error ("{\"entries\":{\"a\":{\"type\":\"nope\"}}}",
                         AGENTS_SANDBOX_ERROR_UNKNOWN_TYPE, unknown);
  assert_manifest_error (
    "{\"entries\":{\"a\":{\"content\":\"x\"}}}",
    AGENTS_SANDBOX_ERROR_INVALID_JSON,
    "Artifact entry mapping must include a string `type` field");
  assert_manifest_error ("{\"entries\":{\"a\":{\"type\":7}}}",
                         AGENTS_SANDBOX_ERROR_INVALID_JSON,
                         "Artifact entry mapping must include a string "
                         "`type` field");
  assert_manifest_error ("{\"entries\":{\"a\":\"str\"}}",
                         AGENTS_SANDBOX_ERROR_INVALID_JSON,
                         "Artifact entry must be a JSON object, got string");
  assert_manifest_error ("{\"entries\":[]}", AGENTS_SANDBOX_ERROR_INVALID_JSON,
                         "Artifact mapping must be a JSON object, got array");
  assert_manifest_error ("{\"version\":2}", AGENTS_SANDBOX_ERROR_INVALID_JSON,
                         NULL);
  /* Nested entries go through the same mechanism. */
  assert_manifest_error (
    "{\"entries\":{\"d\":{\"type\":\"dir\",\"children\":{\"b\":"
    "{\"type\":\"nope\"}}}}}",
    AGENTS_SANDBOX_ERROR_UNKNOWN_TYPE, unknown);
}

/* ---- environment values ------------------------------------------------ */

/* MAN-12 */
static void
test_env_str_value_round_trip (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsEnvValue) typed = agents_str_env_value_new ("typed");
  g_autoptr (AgentsManifest) back = NULL;
  g_autoptr (JsonNode) json = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *environment = NULL;
  g_autofree char *text = NULL;
  JsonNode *env_node;

  agents_manifest_set_env (manifest, "PLAIN", "plain");
  agents_manifest_set_env_value (manifest, "TYPED", typed);

  json = agents_manifest_to_json (manifest);
  env_node =
    json_object_get_member (json_node_get_object (json), "environment");
  environment = to_text (env_node);
  g_assert_cmpstr (environment, ==,
                   "{\"value\":{\"PLAIN\":\"plain\",\"TYPED\":{\"type\":"
                   "\"str\",\"value\":\"typed\"}}}");

  text = agents_manifest_to_data (manifest, NULL);
  back = agents_manifest_new_from_data (text, -1, &error);
  g_assert_no_error (error);
  g_assert_true (agents_manifest_equal (manifest, back));
  g_assert_null (agents_manifest_get_env_value (back, "PLAIN"));
  g_assert_cmpstr (agents_manifest_get_env (back, "PLAIN"), ==, "plain");
  g_assert_true (
    AGENTS_IS_STR_ENV_VALUE (agents_manifest_get_env_value (back, "TYPED")));
  g_assert_cmpstr (agents_manifest_get_env (back, "TYPED"), ==, "typed");

  /* A plain string is not equal to a str value of the same text. */
  agents_manifest_set_env (back, "TYPED", "typed");
  g_assert_false (agents_manifest_equal (manifest, back));
}

/* A reference to a secret: its JSON holds the key, never the secret. */
#define TEST_TYPE_SECRET_REF (test_secret_ref_get_type ())
G_DECLARE_FINAL_TYPE (
  TestSecretRef, test_secret_ref, TEST, SECRET_REF, AgentsEnvValue)

struct _TestSecretRef
{
  AgentsEnvValue parent_instance;
  char *key;
  char *internal; /* held, never written */
};

G_DEFINE_TYPE (TestSecretRef, test_secret_ref, AGENTS_TYPE_ENV_VALUE)

static void
secret_ref_serialize (AgentsEnvValue *value, JsonBuilder *builder)
{
  json_builder_set_member_name (builder, "key");
  json_builder_add_string_value (builder, TEST_SECRET_REF (value)->key);
}

static gboolean
secret_ref_deserialize (AgentsEnvValue *value,
                        JsonObject *object,
                        GError **error)
{
  TestSecretRef *self = TEST_SECRET_REF (value);
  const char *key =
    json_object_get_string_member_with_default (object, "key", NULL);

  if (key == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           "secret reference without a key");
      return FALSE;
    }
  g_free (self->key);
  self->key = g_strdup (key);
  g_free (self->internal);
  self->internal = g_strdup_printf ("internal-secret-%s", key);
  return TRUE;
}

static gboolean
return_resolved (gpointer data)
{
  GTask *task = data;
  TestSecretRef *self = g_task_get_source_object (task);

  g_task_return_pointer (
    task, g_strdup_printf ("resolved-secret-for-%s", self->key), g_free);
  return G_SOURCE_REMOVE;
}

/* Asynchronous, as a secret store would be. */
static void
secret_ref_resolve (AgentsEnvValue *value, GTask *task)
{
  g_idle_add_full (G_PRIORITY_DEFAULT, return_resolved, g_object_ref (task),
                   g_object_unref);
}

static void
test_secret_ref_finalize (GObject *object)
{
  g_free (TEST_SECRET_REF (object)->key);
  g_free (TEST_SECRET_REF (object)->internal);
  G_OBJECT_CLASS (test_secret_ref_parent_class)->finalize (object);
}

static void
test_secret_ref_class_init (TestSecretRefClass *klass)
{
  AgentsEnvValueClass *value_class = AGENTS_ENV_VALUE_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = test_secret_ref_finalize;
  value_class->serialize_fields = secret_ref_serialize;
  value_class->deserialize_fields = secret_ref_deserialize;
  value_class->resolve = secret_ref_resolve;
}

static void
test_secret_ref_init (TestSecretRef *self)
{
}

static AgentsEnvValue *
secret_ref_new (const char *key)
{
  TestSecretRef *self = g_object_new (TEST_TYPE_SECRET_REF, NULL);

  self->key = g_strdup (key);
  self->internal = g_strdup_printf ("internal-secret-%s", key);
  return AGENTS_ENV_VALUE (self);
}

static GHashTable *
resolve_environment (AgentsManifest *manifest, GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  agents_manifest_resolve_environment_async (manifest, NULL,
                                             agents_test_async_cb, &result);
  return agents_manifest_resolve_environment_finish (
    manifest, agents_test_wait_result (&result), error);
}

static void
register_secret_ref (void)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (agents_typed_json_register (AGENTS_TYPE_ENV_VALUE,
                                             "test.secret_reference",
                                             TEST_TYPE_SECRET_REF, &error));
  g_assert_no_error (error);
}

/* MAN-22 */
static void
test_env_registered_type_round_trip (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsEnvValue) direct = secret_ref_new ("direct");
  g_autoptr (AgentsEnvValue) entry = secret_ref_new ("entry");
  g_autoptr (AgentsManifest) back = NULL;
  g_autoptr (GHashTable) resolved = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) json = NULL;
  g_autofree char *environment = NULL;
  g_autofree char *text = NULL;
  AgentsEnvValue *restored;

  register_secret_ref ();
  agents_env_value_set_description (entry, "secret reference");
  agents_env_value_set_ephemeral (entry, TRUE);
  agents_manifest_set_env_value (manifest, "DIRECT", direct);
  agents_manifest_set_env_value (manifest, "ENTRY", entry);

  json = agents_manifest_to_json (manifest);
  environment = to_text (
    json_object_get_member (json_node_get_object (json), "environment"));
  g_assert_cmpstr (
    environment, ==,
    "{\"value\":{\"DIRECT\":{\"type\":\"test.secret_reference\","
    "\"key\":\"direct\"},\"ENTRY\":{\"value\":{\"type\":"
    "\"test.secret_reference\",\"key\":\"entry\"},\"description\":"
    "\"secret reference\",\"ephemeral\":true}}}");
  text = agents_manifest_to_data (manifest, NULL);
  g_assert_null (strstr (text, "resolved-secret"));
  g_assert_null (strstr (text, "internal-secret"));

  back = agents_manifest_new_from_data (text, -1, &error);
  g_assert_no_error (error);
  g_assert_true (agents_manifest_equal (manifest, back));
  restored = agents_manifest_get_env_value (back, "DIRECT");
  g_assert_true (G_TYPE_CHECK_INSTANCE_TYPE (restored, TEST_TYPE_SECRET_REF));
  g_assert_cmpstr (agents_env_value_get_value_type (restored), ==,
                   "test.secret_reference");
  restored = agents_manifest_get_env_value (back, "ENTRY");
  g_assert_true (G_TYPE_CHECK_INSTANCE_TYPE (restored, TEST_TYPE_SECRET_REF));
  g_assert_cmpstr (agents_env_value_get_description (restored), ==,
                   "secret reference");
  g_assert_true (agents_env_value_get_ephemeral (restored));
  /* Not known without resolving. */
  g_assert_null (agents_manifest_get_env (back, "DIRECT"));

  resolved = resolve_environment (back, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_hash_table_size (resolved), ==, 2);
  g_assert_cmpstr (g_hash_table_lookup (resolved, "DIRECT"), ==,
                   "resolved-secret-for-direct");
  g_assert_cmpstr (g_hash_table_lookup (resolved, "ENTRY"), ==,
                   "resolved-secret-for-entry");
}

/* ---- MAN-24 ------------------------------------------------------------ */

/* A resolver that waits until it is cancelled, and one that fails once the
 * first has started. */
#define TEST_TYPE_SCRIPTED_VALUE (test_scripted_value_get_type ())
G_DECLARE_FINAL_TYPE (
  TestScriptedValue, test_scripted_value, TEST, SCRIPTED_VALUE, AgentsEnvValue)

typedef struct
{
  gboolean started;
  gboolean cancelled;
  gboolean finished;
  gulong handler;
} Blocking;

struct _TestScriptedValue
{
  AgentsEnvValue parent_instance;
  Blocking *blocking;  /* the blocking one's record, or NULL */
  Blocking *waits_for; /* the failing one waits for this to start */
};

G_DEFINE_TYPE (TestScriptedValue, test_scripted_value, AGENTS_TYPE_ENV_VALUE)

static void
blocking_cancelled (GCancellable *cancellable, gpointer data)
{
  GTask *task = data;
  TestScriptedValue *self = g_task_get_source_object (task);

  self->blocking->cancelled = TRUE;
}

static gboolean
blocking_poll (gpointer data)
{
  GTask *task = data;
  TestScriptedValue *self = g_task_get_source_object (task);

  if (!g_cancellable_is_cancelled (g_task_get_cancellable (task)))
    return G_SOURCE_CONTINUE;
  g_cancellable_disconnect (g_task_get_cancellable (task),
                            self->blocking->handler);
  self->blocking->finished = TRUE;
  g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                           "blocking resolver cancelled");
  return G_SOURCE_REMOVE;
}

static gboolean
failing_poll (gpointer data)
{
  GTask *task = data;
  TestScriptedValue *self = g_task_get_source_object (task);

  if (!self->waits_for->started)
    return G_SOURCE_CONTINUE;
  g_task_return_new_error (task, AGENTS_SANDBOX_ERROR,
                           AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                           "secret backend rejected the request");
  return G_SOURCE_REMOVE;
}

static void
scripted_resolve (AgentsEnvValue *value, GTask *task)
{
  TestScriptedValue *self = TEST_SCRIPTED_VALUE (value);

  if (self->blocking != NULL)
    {
      self->blocking->started = TRUE;
      self->blocking->handler = g_cancellable_connect (
        g_task_get_cancellable (task), G_CALLBACK (blocking_cancelled),
        g_object_ref (task), g_object_unref);
      g_timeout_add_full (G_PRIORITY_DEFAULT, 5, blocking_poll,
                          g_object_ref (task), g_object_unref);
      return;
    }
  g_idle_add_full (G_PRIORITY_DEFAULT, failing_poll, g_object_ref (task),
                   g_object_unref);
}

static void
test_scripted_value_class_init (TestScriptedValueClass *klass)
{
  AGENTS_ENV_VALUE_CLASS (klass)->resolve = scripted_resolve;
}

static void
test_scripted_value_init (TestScriptedValue *self)
{
}

typedef struct
{
  GAsyncResult *result;
  Blocking *blocking;
  gboolean finished_at_callback;
} ResolveWatch;

static void
watch_resolved (GObject *source, GAsyncResult *result, gpointer data)
{
  ResolveWatch *watch = data;

  watch->finished_at_callback = watch->blocking->finished;
  watch->result = g_object_ref (result);
}

static void
test_env_resolve_cancels_siblings (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (TestScriptedValue) blocking =
    g_object_new (TEST_TYPE_SCRIPTED_VALUE, NULL);
  g_autoptr (TestScriptedValue) failing =
    g_object_new (TEST_TYPE_SCRIPTED_VALUE, NULL);
  g_autoptr (GHashTable) resolved = NULL;
  g_autoptr (GError) error = NULL;
  Blocking record = { 0 };
  ResolveWatch watch = { NULL, &record, FALSE };

  blocking->blocking = &record;
  failing->waits_for = &record;
  agents_manifest_set_env_value (manifest, "BLOCKING",
                                 AGENTS_ENV_VALUE (blocking));
  agents_manifest_set_env_value (manifest, "FAILING",
                                 AGENTS_ENV_VALUE (failing));
  agents_manifest_set_env (manifest, "PLAIN", "plain");

  agents_manifest_resolve_environment_async (manifest, NULL, watch_resolved,
                                             &watch);
  while (watch.result == NULL)
    g_main_context_iteration (NULL, TRUE);

  resolved =
    agents_manifest_resolve_environment_finish (manifest, watch.result, &error);
  g_assert_null (resolved);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==, "secret backend rejected the request");
  g_assert_true (record.started);
  g_assert_true (record.cancelled);
  g_assert_true (watch.finished_at_callback);
  g_object_unref (watch.result);
}

/* Unknown and untyped env values go through the family's errors. */
static void
test_env_value_parse_errors (void)
{
  assert_manifest_error (
    "{\"environment\":{\"value\":{\"X\":{\"type\":\"nope\"}}}}",
    AGENTS_SANDBOX_ERROR_UNKNOWN_TYPE, NULL);
  assert_manifest_error (
    "{\"environment\":{\"value\":{\"X\":{\"key\":\"k\"}}}}",
    AGENTS_SANDBOX_ERROR_INVALID_JSON,
    "env value mapping must include a string `type` field");
  assert_manifest_error (
    "{\"environment\":{\"value\":{\"X\":{\"value\":{\"key\":\"k\"},"
    "\"description\":\"d\"}}}}",
    AGENTS_SANDBOX_ERROR_INVALID_JSON,
    "env value mapping must include a string `type` field");
  assert_manifest_error (
    "{\"environment\":{\"value\":{\"X\":{\"type\":\"str\",\"value\":3}}}}",
    AGENTS_SANDBOX_ERROR_INVALID_JSON, NULL);
  assert_manifest_error ("{\"environment\":{\"value\":{\"X\":[\"a\"]}}}",
                         AGENTS_SANDBOX_ERROR_INVALID_JSON, NULL);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/reference-cases/SNAP-02",
                   test_snapshot_parse_uses_registered_type);
  g_test_add_func ("/reference-cases/SNAP-04",
                   test_snapshot_registration_errors);
  g_test_add_func ("/reference-cases/MAN-20", test_manifest_entry_parse_errors);
  g_test_add_func ("/reference-cases/MAN-12", test_env_str_value_round_trip);
  g_test_add_func ("/reference-cases/MAN-22",
                   test_env_registered_type_round_trip);
  g_test_add_func ("/reference-cases/MAN-24",
                   test_env_resolve_cancels_siblings);
  g_test_add_func ("/typed-json/env-value-errors", test_env_value_parse_errors);

  return g_test_run ();
}
