/* test-capability.c - capability cloning and the built-in capabilities
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "fake-session.h"
#include "test-utils.h"

/* ---- _NestedStateCapability: state = {"seen": []} --------------------- */

#define TEST_TYPE_NESTED_STATE_CAPABILITY \
  (test_nested_state_capability_get_type ())
G_DECLARE_FINAL_TYPE (TestNestedStateCapability,
                      test_nested_state_capability,
                      TEST,
                      NESTED_STATE_CAPABILITY,
                      GObject)

struct _TestNestedStateCapability
{
  GObject parent_instance;
  JsonNode *state;
};

static const char *
nested_state_type (AgentsCapability *self)
{
  return "nested-state";
}

static void
nested_state_iface_init (AgentsCapabilityInterface *iface)
{
  iface->get_capability_type = nested_state_type;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (TestNestedStateCapability,
                               test_nested_state_capability,
                               G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (AGENTS_TYPE_CAPABILITY,
                                                      nested_state_iface_init))

static void
nested_state_get_property (GObject *object,
                           guint prop_id,
                           GValue *value,
                           GParamSpec *pspec)
{
  g_value_set_boxed (value, TEST_NESTED_STATE_CAPABILITY (object)->state);
}

static void
nested_state_set_property (GObject *object,
                           guint prop_id,
                           const GValue *value,
                           GParamSpec *pspec)
{
  TestNestedStateCapability *self = TEST_NESTED_STATE_CAPABILITY (object);

  g_clear_pointer (&self->state, json_node_unref);
  self->state = g_value_dup_boxed (value);
}

static void
nested_state_finalize (GObject *object)
{
  g_clear_pointer (&TEST_NESTED_STATE_CAPABILITY (object)->state,
                   json_node_unref);
  G_OBJECT_CLASS (test_nested_state_capability_parent_class)->finalize (object);
}

static void
test_nested_state_capability_class_init (TestNestedStateCapabilityClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = nested_state_get_property;
  object_class->set_property = nested_state_set_property;
  object_class->finalize = nested_state_finalize;
  g_object_class_install_property (
    object_class, 1,
    g_param_spec_boxed ("state", NULL, NULL, JSON_TYPE_NODE,
                        G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
}

static void
test_nested_state_capability_init (TestNestedStateCapability *self)
{
  self->state = json_from_string ("{\"seen\": []}", NULL);
}

static char *
state_text (TestNestedStateCapability *capability)
{
  return json_to_string (capability->state, FALSE);
}

static void
test_clone_deep_copies_nested_mutable_state (void)
{
  g_autoptr (TestNestedStateCapability) capability =
    g_object_new (TEST_TYPE_NESTED_STATE_CAPABILITY, NULL);
  g_autoptr (AgentsCapability) cloned =
    agents_capability_clone (AGENTS_CAPABILITY (capability));
  TestNestedStateCapability *clone = TEST_NESTED_STATE_CAPABILITY (cloned);
  g_autofree char *original_text = NULL;
  g_autofree char *cloned_text = NULL;

  json_array_add_string_element (
    json_object_get_array_member (json_node_get_object (clone->state), "seen"),
    "turn-1");

  original_text = state_text (capability);
  cloned_text = state_text (clone);
  g_assert_cmpstr (original_text, ==, "{\"seen\":[]}");
  g_assert_cmpstr (cloned_text, ==, "{\"seen\":[\"turn-1\"]}");
}

/* ---- _NestedObjectCapability: state = _NestedObjectState() ----------- */

#define TEST_TYPE_NESTED_OBJECT_STATE (test_nested_object_state_get_type ())
G_DECLARE_FINAL_TYPE (TestNestedObjectState,
                      test_nested_object_state,
                      TEST,
                      NESTED_OBJECT_STATE,
                      GObject)

struct _TestNestedObjectState
{
  GObject parent_instance;
  GStrv seen;
};

G_DEFINE_FINAL_TYPE (TestNestedObjectState,
                     test_nested_object_state,
                     G_TYPE_OBJECT)

static void
nested_object_state_get_property (GObject *object,
                                  guint prop_id,
                                  GValue *value,
                                  GParamSpec *pspec)
{
  g_value_set_boxed (value, TEST_NESTED_OBJECT_STATE (object)->seen);
}

static void
nested_object_state_set_property (GObject *object,
                                  guint prop_id,
                                  const GValue *value,
                                  GParamSpec *pspec)
{
  TestNestedObjectState *self = TEST_NESTED_OBJECT_STATE (object);

  g_strfreev (self->seen);
  self->seen = g_value_dup_boxed (value);
  if (self->seen == NULL)
    self->seen = g_new0 (char *, 1);
}

static void
nested_object_state_finalize (GObject *object)
{
  g_strfreev (TEST_NESTED_OBJECT_STATE (object)->seen);
  G_OBJECT_CLASS (test_nested_object_state_parent_class)->finalize (object);
}

static void
test_nested_object_state_class_init (TestNestedObjectStateClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = nested_object_state_get_property;
  object_class->set_property = nested_object_state_set_property;
  object_class->finalize = nested_object_state_finalize;
  g_object_class_install_property (
    object_class, 1,
    g_param_spec_boxed ("seen", NULL, NULL, G_TYPE_STRV,
                        G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
}

static void
test_nested_object_state_init (TestNestedObjectState *self)
{
  self->seen = g_new0 (char *, 1);
}

static void
nested_object_state_append (TestNestedObjectState *self, const char *value)
{
  guint n = g_strv_length (self->seen);

  self->seen = g_renew (char *, self->seen, n + 2);
  self->seen[n] = g_strdup (value);
  self->seen[n + 1] = NULL;
}

#define TEST_TYPE_NESTED_OBJECT_CAPABILITY \
  (test_nested_object_capability_get_type ())
G_DECLARE_FINAL_TYPE (TestNestedObjectCapability,
                      test_nested_object_capability,
                      TEST,
                      NESTED_OBJECT_CAPABILITY,
                      GObject)

struct _TestNestedObjectCapability
{
  GObject parent_instance;
  TestNestedObjectState *state;
};

static const char *
nested_object_type (AgentsCapability *self)
{
  return "nested-object-state";
}

static void
nested_object_iface_init (AgentsCapabilityInterface *iface)
{
  iface->get_capability_type = nested_object_type;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (TestNestedObjectCapability,
                               test_nested_object_capability,
                               G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (AGENTS_TYPE_CAPABILITY,
                                                      nested_object_iface_init))

static void
nested_object_get_property (GObject *object,
                            guint prop_id,
                            GValue *value,
                            GParamSpec *pspec)
{
  g_value_set_object (value, TEST_NESTED_OBJECT_CAPABILITY (object)->state);
}

static void
nested_object_set_property (GObject *object,
                            guint prop_id,
                            const GValue *value,
                            GParamSpec *pspec)
{
  TestNestedObjectCapability *self = TEST_NESTED_OBJECT_CAPABILITY (object);

  g_set_object (&self->state, g_value_get_object (value));
}

static void
nested_object_finalize (GObject *object)
{
  g_clear_object (&TEST_NESTED_OBJECT_CAPABILITY (object)->state);
  G_OBJECT_CLASS (test_nested_object_capability_parent_class)
    ->finalize (object);
}

static void
test_nested_object_capability_class_init (
  TestNestedObjectCapabilityClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = nested_object_get_property;
  object_class->set_property = nested_object_set_property;
  object_class->finalize = nested_object_finalize;
  g_object_class_install_property (
    object_class, 1,
    g_param_spec_object ("state", NULL, NULL, TEST_TYPE_NESTED_OBJECT_STATE,
                         G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
}

static void
test_nested_object_capability_init (TestNestedObjectCapability *self)
{
  self->state = g_object_new (TEST_TYPE_NESTED_OBJECT_STATE, NULL);
}

static void
test_clone_deep_copies_nested_object_state (void)
{
  g_autoptr (TestNestedObjectCapability) capability =
    g_object_new (TEST_TYPE_NESTED_OBJECT_CAPABILITY, NULL);
  g_autoptr (AgentsCapability) cloned =
    agents_capability_clone (AGENTS_CAPABILITY (capability));
  TestNestedObjectCapability *clone = TEST_NESTED_OBJECT_CAPABILITY (cloned);

  g_assert_true (clone->state != capability->state);
  nested_object_state_append (clone->state, "turn-1");

  g_assert_cmpuint (g_strv_length (capability->state->seen), ==, 0);
  g_assert_cmpuint (g_strv_length (clone->state->seen), ==, 1);
  g_assert_cmpstr (clone->state->seen[0], ==, "turn-1");
}

/* ---- Shell(): session identity ---------------------------------------- */

static void
test_clone_preserves_session_field_identity (void)
{
  g_autoptr (AgentsCapability) capability = agents_shell_capability_new ();
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (FakeSession) session = fake_session_new (manifest);
  g_autoptr (AgentsCapability) cloned = NULL;
  g_autoptr (JsonNode) dump = NULL;
  g_autoptr (JsonNode) cloned_dump = NULL;
  g_autofree char *text = NULL;
  g_autofree char *cloned_text = NULL;

  agents_capability_bind (capability, AGENTS_SANDBOX_SESSION (session));
  cloned = agents_capability_clone (capability);

  g_assert_true (agents_capability_get_session (capability) ==
                 AGENTS_SANDBOX_SESSION (session));
  g_assert_true (agents_capability_get_session (cloned) ==
                 AGENTS_SANDBOX_SESSION (session));
  dump = agents_capability_to_json (capability);
  cloned_dump = agents_capability_to_json (cloned);
  text = json_to_string (dump, FALSE);
  cloned_text = json_to_string (cloned_dump, FALSE);
  g_assert_cmpstr (text, ==, "{\"type\":\"shell\"}");
  g_assert_cmpstr (cloned_text, ==, "{\"type\":\"shell\"}");
}

/* ---- built-ins -------------------------------------------------------- */

static void
test_compaction_context_and_sampling_params (void)
{
  g_autoptr (AgentsCapability) compaction =
    agents_compaction_capability_new_static (123);
  g_autoptr (JsonNode) input = json_from_string (
    "[{\"type\":\"message\",\"role\":\"user\",\"content\":\"old-user\"},"
    "{\"type\":\"compaction\",\"summary\":\"compacted-up-to-here\"},"
    "{\"type\":\"message\",\"role\":\"assistant\",\"content\":\"recent-"
    "assistant\"},"
    "{\"type\":\"message\",\"role\":\"user\",\"content\":\"new-user\"}]",
    NULL);
  g_autoptr (JsonArray) kept =
    agents_capability_process_context (compaction, json_node_get_array (input));
  g_autoptr (JsonObject) params =
    agents_capability_sampling_params (compaction);
  g_autoptr (JsonNode) params_node =
    json_node_init_object (json_node_alloc (), params);
  g_autofree char *params_text = json_to_string (params_node, FALSE);

  g_assert_cmpuint (json_array_get_length (kept), ==, 3);
  g_assert_cmpstr (json_object_get_string_member (
                     json_array_get_object_element (kept, 0), "type"),
                   ==, "compaction");
  g_assert_cmpstr (params_text, ==,
                   "{\"context_management\":[{\"type\":\"compaction\","
                   "\"compact_threshold\":123}]}");
}

/* ---- a capability whose array holds what is not a tool ----------------- */

#define TEST_TYPE_MIXED_TOOLS_CAPABILITY \
  (test_mixed_tools_capability_get_type ())
G_DECLARE_FINAL_TYPE (TestMixedToolsCapability,
                      test_mixed_tools_capability,
                      TEST,
                      MIXED_TOOLS_CAPABILITY,
                      GObject)

struct _TestMixedToolsCapability
{
  GObject parent_instance;
};

static const char *
mixed_tools_type (AgentsCapability *self)
{
  return "mixed-tools";
}

static char *
answer_pong (AgentsRunContext *ctx,
             const char *arguments,
             gpointer user_data,
             GError **error)
{
  return g_strdup ("pong");
}

/* What a binding's list [None, Manifest(), tool] comes to. */
static GPtrArray *
mixed_tools_get_tools (AgentsCapability *self)
{
  GPtrArray *tools = g_ptr_array_new ();

  g_ptr_array_add (tools, NULL);
  g_ptr_array_add (tools, agents_manifest_new ());
  g_ptr_array_add (tools,
                   agents_function_tool_new ("ping", "Answers pong.", NULL,
                                             answer_pong, NULL, NULL));
  return tools;
}

static void
mixed_tools_iface_init (AgentsCapabilityInterface *iface)
{
  iface->get_capability_type = mixed_tools_type;
  iface->get_tools = mixed_tools_get_tools;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (TestMixedToolsCapability,
                               test_mixed_tools_capability,
                               G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (AGENTS_TYPE_CAPABILITY,
                                                      mixed_tools_iface_init))

static void
test_mixed_tools_capability_class_init (TestMixedToolsCapabilityClass *klass)
{
}

static void
test_mixed_tools_capability_init (TestMixedToolsCapability *self)
{
}

/* The warnings are structured logs, which g_test_expect_message() does
 * not see: the test runs in a subprocess whose stderr is checked. */
static void
test_get_tools_leaves_out_non_tools (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr (AgentsCapability) capability =
        g_object_new (TEST_TYPE_MIXED_TOOLS_CAPABILITY, NULL);
      g_autoptr (GPtrArray) tools = NULL;

      /* Warnings are not fatal here: they are what is checked. */
      g_log_set_always_fatal (G_LOG_FATAL_MASK);
      g_log_set_fatal_mask ("Agents", G_LOG_FATAL_MASK);
      tools = agents_capability_get_tools (capability);
      g_ptr_array_set_free_func (tools, g_object_unref);
      g_assert_cmpuint (tools->len, ==, 1);
      g_assert_true (AGENTS_IS_TOOL (tools->pdata[0]));
      g_assert_cmpstr (agents_tool_get_name (tools->pdata[0]), ==, "ping");
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("*mixed-tools* gave AgentsManifest as a tool*");
  g_test_trap_assert_stderr ("*mixed-tools* gave NULL (None, null) as a tool*");
}

static void
test_builtins_are_registered (void)
{
  const char *names[] = { "shell", "filesystem", "compaction", "memory" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (AgentsCapability) capability =
        agents_registry_new_capability (names[i], &error);

      g_assert_no_error (error);
      g_assert_cmpstr (agents_capability_get_capability_type (capability), ==,
                       names[i]);
    }
}

static void
test_unknown_capability_lists_known_names (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsCapability) capability =
    agents_registry_new_capability ("telepathy", &error);

  g_assert_null (capability);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_UNKNOWN_TYPE);
  g_assert_nonnull (strstr (error->message, "telepathy"));
  g_assert_nonnull (
    strstr (error->message, "compaction, filesystem, memory, shell"));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func (
    "/sandbox/capability/capability_clone_deep_copies_nested_mutable_state",
    test_clone_deep_copies_nested_mutable_state);
  g_test_add_func (
    "/sandbox/capability/capability_clone_deep_copies_nested_object_state",
    test_clone_deep_copies_nested_object_state);
  g_test_add_func (
    "/sandbox/capability/capability_clone_preserves_session_field_identity",
    test_clone_preserves_session_field_identity);
  g_test_add_func ("/sandbox/capability/compaction-context-and-sampling-params",
                   test_compaction_context_and_sampling_params);
  g_test_add_func ("/sandbox/capability/get-tools-leaves-out-non-tools",
                   test_get_tools_leaves_out_non_tools);
  g_test_add_func ("/sandbox/capability/builtins-registered",
                   test_builtins_are_registered);
  g_test_add_func ("/sandbox/capability/unknown-lists-known",
                   test_unknown_capability_lists_known_names);

  return g_test_run ();
}
