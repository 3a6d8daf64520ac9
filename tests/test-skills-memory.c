/* test-skills-memory.c - the skills, memory and compaction capabilities
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Skills and memory run against real unix_local sessions; the memory
 * phases are answered by scripted models whose requests are checked.
 */

#include "config.h"

#include <string.h>

#include "agents-memory-capability-private.h"
#include "agents-unix-local-client.h"
#include "test-utils.h"

/* ---- helpers ----------------------------------------------------------- */

static char *
object_text (JsonObject *object)
{
  g_autoptr (JsonNode) node =
    json_node_init_object (json_node_alloc (), object);

  return json_to_string (node, FALSE);
}

static JsonObject *
model_params (const char *model)
{
  JsonObject *params = json_object_new ();

  if (model != NULL)
    json_object_set_string_member (params, "model", model);
  return params;
}

static gint64
threshold_for (AgentsCapability *compaction, const char *model)
{
  g_autoptr (JsonObject) params = model_params (model);
  g_autoptr (JsonObject) extra =
    agents_capability_sampling_params_for_model (compaction, params);
  JsonArray *management =
    json_object_get_array_member (extra, "context_management");

  g_assert_cmpuint (json_array_get_length (management), ==, 1);
  return json_object_get_int_member (
    json_array_get_object_element (management, 0), "compact_threshold");
}

typedef struct
{
  AgentsSandboxClient *client;
  AgentsSandboxSession *session;
  char *root;
} Sandbox;

static void
sandbox_open (Sandbox *sb, AgentsManifest *manifest)
{
  g_autoptr (GAsyncResult) result = NULL;
  gboolean started;
  g_autoptr (GError) error = NULL;

  sb->root = agents_test_make_tmp_dir ("skills-ws-");
  agents_manifest_set_root (manifest, sb->root);
  sb->client = agents_unix_local_client_new ();
  agents_sandbox_client_create_async (sb->client, manifest, NULL, NULL, NULL,
                                      agents_test_async_cb, &result);
  sb->session = agents_sandbox_client_create_finish (
    sb->client, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
  g_clear_object (&result);
  agents_sandbox_session_start_async (sb->session, NULL, agents_test_async_cb,
                                      &result);
  started = agents_sandbox_session_start_finish (
    sb->session, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_true (started);
}

static void
sandbox_close (Sandbox *sb)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;

  agents_sandbox_session_close_async (sb->session, NULL, agents_test_async_cb,
                                      &result);
  agents_sandbox_session_close_finish (sb->session,
                                       agents_test_wait_result (&result), NULL);
  g_clear_object (&result);
  agents_sandbox_client_delete_async (sb->client, sb->session, NULL,
                                      agents_test_async_cb, &result);
  g_assert_true (agents_sandbox_client_delete_finish (
    sb->client, agents_test_wait_result (&result), &error));
  g_assert_no_error (error);
  g_clear_object (&sb->session);
  g_clear_object (&sb->client);
  agents_test_rm_rf (sb->root);
  g_clear_pointer (&sb->root, g_free);
}

static char *
instructions (AgentsCapability *capability, GError **error)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (GAsyncResult) result = NULL;

  agents_capability_instructions_async (capability, manifest, NULL,
                                        agents_test_async_cb, &result);
  return agents_capability_instructions_finish (
    capability, agents_test_wait_result (&result), error);
}

static AgentsTool *
find_tool (AgentsCapability *capability, const char *name)
{
  g_autoptr (GPtrArray) tools = agents_capability_get_tools (capability);
  /* The array owns its tools (get_tools is transfer full). */
  if (tools != NULL)
    g_ptr_array_set_free_func (tools, g_object_unref);

  for (guint i = 0; i < tools->len; i++)
    if (g_str_equal (agents_tool_get_name (tools->pdata[i]), name))
      return g_object_ref (tools->pdata[i]);
  return NULL;
}

static char *
call_tool (AgentsCapability *capability,
           const char *name,
           const char *arguments)
{
  g_autoptr (AgentsTool) tool = find_tool (capability, name);
  g_autoptr (AgentsRunContext) ctx = agents_run_context_new (NULL);
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) output = NULL;

  g_assert_nonnull (tool);
  agents_tool_invoke_async (tool, ctx, "call_1", arguments, NULL,
                            agents_test_async_cb, &result);
  output =
    agents_tool_invoke_finish (tool, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
  return g_strdup (json_node_get_string (output));
}

static void
write_host_file (const char *dir, const char *name, const char *text)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *parent = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (parent, 0755), ==, 0);
  agents_test_write_file (path, text);
}

/* ---- compaction (COMP) ------------------------------------------------- */

static void
test_comp_02_unknown_model (void)
{
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (
    agents_compaction_context_window_for_model ("not-a-model", &error), ==, 0);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==,
                   "Unknown context window for model: 'not-a-model'");
  g_assert_cmpint (agents_compaction_context_window_for_model ("gpt-5.4", NULL),
                   ==, 1047576);
}

static void
test_comp_04_static_threshold (void)
{
  g_autoptr (AgentsCapability) compaction =
    agents_compaction_capability_new_static (123);
  g_autoptr (JsonObject) params =
    agents_capability_sampling_params (compaction);
  g_autofree char *text = object_text (params);

  g_assert_cmpstr (text, ==,
                   "{\"context_management\":[{\"type\":\"compaction\","
                   "\"compact_threshold\":123}]}");
}

static void
test_comp_06_dynamic_by_model (void)
{
  g_autoptr (AgentsCapability) compaction = agents_compaction_capability_new ();

  g_assert_cmpint (threshold_for (compaction, "gpt-5.6-sol"), ==, 942818);
}

static void
test_comp_08_keeps_from_last_compaction (void)
{
  g_autoptr (AgentsCapability) compaction = agents_compaction_capability_new ();
  g_autoptr (JsonNode) context =
    json_from_string ("[{\"role\":\"user\",\"content\":\"old-1\"},"
                      "{\"type\":\"compaction\",\"summary\":\"first\"},"
                      "{\"role\":\"assistant\",\"content\":\"between\"},"
                      "{\"type\":\"compaction\",\"summary\":\"second\"},"
                      "{\"role\":\"assistant\",\"content\":\"latest\"}]",
                      NULL);
  g_autoptr (JsonArray) kept = agents_capability_process_context (
    compaction, json_node_get_array (context));
  g_autoptr (JsonNode) kept_node =
    json_node_init_array (json_node_alloc (), kept);
  g_autofree char *text = json_to_string (kept_node, FALSE);

  g_assert_cmpstr (text, ==,
                   "[{\"type\":\"compaction\",\"summary\":\"second\"},"
                   "{\"role\":\"assistant\",\"content\":\"latest\"}]");
}

static void
test_comp_10_unsupported_policy (void)
{
  g_autoptr (JsonNode) policy =
    json_from_string ("{\"type\":\"unknown\"}", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsCompactionCapability) compaction = NULL;
  GObject *object = g_initable_new (AGENTS_TYPE_COMPACTION_CAPABILITY, NULL,
                                    &error, "policy", policy, NULL);

  g_assert_null (object);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==,
                   "Unsupported compaction policy type: 'unknown'");
  g_clear_error (&error);

  compaction =
    AGENTS_COMPACTION_CAPABILITY (agents_compaction_capability_new ());
  g_assert_false (
    agents_compaction_capability_set_policy (compaction, policy, &error));
  g_assert_cmpstr (error->message, ==,
                   "Unsupported compaction policy type: 'unknown'");
  g_assert_null (agents_compaction_capability_get_policy (compaction));
}

static void
test_compaction_table_and_defaults (void)
{
  g_autoptr (AgentsCapability) compaction = agents_compaction_capability_new ();
  g_autoptr (AgentsCapability) dynamic =
    agents_compaction_capability_new_dynamic (1000, 0.5);
  g_autoptr (JsonNode) json = agents_capability_to_json (compaction);
  g_autofree char *json_text = json_to_string (json, FALSE);

  /* Unknown model, no model: the static default, never omitted. */
  g_assert_cmpint (threshold_for (compaction, "my-local-model"), ==, 240000);
  g_assert_cmpint (threshold_for (compaction, NULL), ==, 240000);
  g_assert_cmpint (threshold_for (compaction, ""), ==, 240000);
  /* Lowercased, openai/ stripped, dots and dashes deleted. */
  g_assert_cmpint (threshold_for (compaction, "openai/GPT-5.1"), ==, 360000);
  g_assert_cmpint (threshold_for (compaction, "gpt51"), ==, 360000);
  g_assert_cmpint (threshold_for (compaction, "o3-mini"), ==, 180000);
  g_assert_cmpint (threshold_for (compaction, "gpt-4o"), ==, 115200);
  /* A policy wins over the model. */
  g_assert_cmpint (threshold_for (dynamic, "gpt-5.6-sol"), ==, 500);
  g_assert_cmpstr (json_text, ==, "{\"type\":\"compaction\",\"policy\":null}");
}

/* The policy JSON of the agent file, and its defaults. */
static void
test_compaction_policy_json (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) fixed = json_from_string ("{\"type\":\"static\"}", NULL);
  g_autoptr (JsonNode) share = json_from_string (
    "{\"type\":\"dynamic\",\"model_info\":{\"context_window\":200000}}", NULL);
  g_autoptr (JsonNode) bad_share = json_from_string (
    "{\"type\":\"dynamic\",\"model_info\":{\"context_window\":1},"
    "\"threshold\":1.5}",
    NULL);
  g_autoptr (AgentsCapability) compaction = agents_compaction_capability_new ();
  AgentsCompactionCapability *self = AGENTS_COMPACTION_CAPABILITY (compaction);

  g_assert_true (agents_compaction_capability_set_policy (self, fixed, &error));
  g_assert_cmpint (threshold_for (compaction, "gpt-5.4"), ==, 240000);
  g_assert_true (agents_compaction_capability_set_policy (self, share, &error));
  g_assert_cmpint (threshold_for (compaction, NULL), ==, 180000);
  g_assert_false (
    agents_compaction_capability_set_policy (self, bad_share, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_cmpint (threshold_for (compaction, NULL), ==, 180000);
}

/* ---- skills ------------------------------------------------------------ */

static const char *const skills_json =
  "[{\"name\":\"pdf\",\"description\":\"Read PDF files.\","
  "\"content\":\"---\\nname: pdf\\n---\\nUse pdftotext.\\n\"},"
  "{\"name\":\"csv\",\"description\":\"Clean CSV data.\","
  "\"content\":\"Use python.\\n\"}]";

static void
test_skills_inline (void)
{
  g_autoptr (JsonNode) skills = json_from_string (skills_json, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsCapability) capability =
    agents_skills_capability_new_from_json (skills, &error);
  g_autoptr (AgentsManifest) base = agents_manifest_new ();
  g_autoptr (AgentsManifest) manifest = NULL;
  g_autofree char *text = NULL;
  g_autofree char *skill_md = NULL;
  g_autofree char *path = NULL;
  Sandbox sb = { 0 };

  g_assert_no_error (error);
  g_assert_cmpstr (agents_capability_get_capability_type (capability), ==,
                   "skills");
  manifest = agents_capability_process_manifest (capability, base);
  g_assert_nonnull (agents_manifest_get_entry (manifest, ".agents/pdf"));
  g_assert_nonnull (agents_manifest_get_entry (manifest, ".agents/csv"));
  g_assert_null (agents_manifest_get_entry (base, ".agents/pdf"));
  /* No tools without lazy loading. */
  g_assert_null (find_tool (capability, "load_skill"));

  sandbox_open (&sb, manifest);
  path = g_build_filename (sb.root, ".agents", "pdf", "SKILL.md", NULL);
  skill_md = agents_test_read_file (path);
  g_assert_cmpstr (skill_md, ==, "---\nname: pdf\n---\nUse pdftotext.\n");

  text = instructions (capability, &error);
  g_assert_no_error (error);
  g_assert_true (g_str_has_prefix (text, "## Skills\n"));
  g_assert_nonnull (
    strstr (text, "### Available skills\n"
                  "- csv: Clean CSV data. (file: .agents/csv/SKILL.md)\n"
                  "- pdf: Read PDF files. (file: .agents/pdf/SKILL.md)\n"));
  g_assert_nonnull (strstr (text, "\n### How to use skills\n"));
  g_assert_null (strstr (text, "### Lazy loading"));
  sandbox_close (&sb);
}

/* A run with a working directory of its own sees its skills by their
 * absolute workspace paths, with the run-scoped rules; without one, as
 * the skills path has them. The binding is validated and cloned. */
static void
test_skills_run_scoped_paths (void)
{
  g_autoptr (JsonNode) skills = json_from_string (skills_json, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsCapability) capability =
    agents_skills_capability_new_from_json (skills, &error);
  g_autoptr (AgentsCapability) clone = NULL;
  g_autofree char *scoped = NULL;
  g_autofree char *cloned = NULL;
  g_autofree char *plain = NULL;

  g_assert_no_error (error);
  g_assert_true (agents_capability_bind_cwd (capability, "tasks/./a/", &error));
  g_assert_no_error (error);
  g_assert_cmpstr (agents_capability_get_cwd (capability), ==, "tasks/a");
  scoped = instructions (capability, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (
    scoped, "### Available skills\n"
            "- csv: Clean CSV data. (file: /workspace/.agents/csv/SKILL.md)\n"
            "- pdf: Read PDF files. (file: /workspace/.agents/pdf/SKILL.md)\n"
            "\n### Run-scoped skill paths\n- "));
  g_assert_nonnull (strstr (scoped, "\n### How to use skills\n"));

  clone = agents_capability_clone (capability);
  g_assert_cmpstr (agents_capability_get_cwd (clone), ==, "tasks/a");
  cloned = instructions (clone, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (cloned, ==, scoped);

  g_assert_false (agents_capability_bind_cwd (capability, "../a", &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "sandbox.cwd"));
  g_clear_error (&error);
  g_assert_cmpstr (agents_capability_get_cwd (capability), ==, "tasks/a");

  g_assert_true (agents_capability_bind_cwd (capability, NULL, &error));
  g_assert_null (agents_capability_get_cwd (capability));
  plain = instructions (capability, &error);
  g_assert_no_error (error);
  g_assert_nonnull (
    strstr (plain, "- csv: Clean CSV data. (file: .agents/csv/SKILL.md)\n"));
  g_assert_null (strstr (plain, "Run-scoped"));
}

/* from_: a local_dir of skills materialized with the manifest, listed
 * from the sandbox (a folder without SKILL.md is none). */
static void
test_skills_from_entry (void)
{
  /* Manifest sources must be under the working directory. */
  g_autofree char *host = g_mkdtemp (g_strdup ("skills-src-XXXXXX"));
  g_autoptr (AgentsManifestEntry) entry = agents_local_dir_new (host);
  g_autoptr (AgentsCapability) capability = NULL;
  g_autoptr (AgentsManifest) base = agents_manifest_new ();
  g_autoptr (AgentsManifest) manifest = NULL;
  g_autoptr (AgentsUser) user = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  Sandbox sb = { 0 };

  write_host_file (host, "zip/SKILL.md",
                   "---\nname: zipper\ndescription: \"Pack files.\"\n---\n");
  write_host_file (host, "bare/SKILL.md", "No front matter here.\n");
  write_host_file (host, "notes/README.md", "not a skill\n");
  capability = agents_skills_capability_new_from_entry (entry);
  agents_skills_capability_set_skills_path (
    AGENTS_SKILLS_CAPABILITY (capability), "skills");
  manifest = agents_capability_process_manifest (capability, base);
  sandbox_open (&sb, manifest);
  agents_capability_bind (capability, sb.session);

  text = instructions (capability, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (
    text, "### Available skills\n"
          "- bare: No description provided. (file: skills/bare/SKILL.md)\n"
          "- zipper: Pack files. (file: skills/zip/SKILL.md)\n\n"));
  g_assert_null (strstr (text, "notes"));
  sandbox_close (&sb);
  agents_test_rm_rf (host);
}

static void
test_skills_lazy_load (void)
{
  g_autofree char *host = agents_test_make_tmp_dir ("skills-lazy-");
  g_autofree char *outside = agents_test_make_tmp_dir ("skills-outside-");
  g_autofree char *link = g_build_filename (host, "linked", NULL);
  g_autoptr (AgentsCapability) capability =
    agents_skills_capability_new_from_dir (host, TRUE);
  g_autoptr (AgentsManifest) base = agents_manifest_new ();
  g_autoptr (AgentsManifest) manifest = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *loaded = NULL;
  g_autofree char *again = NULL;
  g_autofree char *scoped = NULL;
  g_autofree char *scoped_expected = NULL;
  g_autofree char *scoped_text = NULL;
  g_autofree char *scoped_listing = NULL;
  g_autoptr (GAsyncResult) result = NULL;
  g_autofree char *missing = NULL;
  g_autofree char *copied_path = NULL;
  g_autofree char *copied = NULL;
  g_autofree char *script_path = NULL;
  Sandbox sb = { 0 };

  write_host_file (host, "deploy/SKILL.md",
                   "---\nname: deploy\ndescription: Ship the app.\n---\nRun "
                   "scripts/ship.sh\n");
  write_host_file (host, "deploy/scripts/ship.sh", "echo ship\n");
  write_host_file (outside, "evil/SKILL.md",
                   "---\nname: evil\ndescription: Symlinked.\n---\n");
  g_assert_cmpint (symlink (outside, link), ==, 0);

  /* Nothing is copied up front. */
  manifest = agents_capability_process_manifest (capability, base);
  g_assert_cmpuint (agents_manifest_get_n_entries (manifest), ==, 0);
  sandbox_open (&sb, manifest);
  agents_capability_bind (capability, sb.session);

  text = instructions (capability, &error);
  g_assert_no_error (error);
  g_assert_nonnull (
    strstr (text, "### Available skills\n"
                  "- deploy: Ship the app. (file: .agents/deploy/SKILL.md)\n\n"
                  "### Lazy loading\n"));
  g_assert_null (strstr (text, "evil"));

  loaded = call_tool (capability, "load_skill", "{\"skill_name\": \"deploy\"}");
  g_assert_cmpstr (loaded, ==,
                   "{\"status\":\"loaded\",\"skill_name\":\"deploy\","
                   "\"path\":\".agents/deploy\"}");
  copied_path = g_build_filename (sb.root, ".agents/deploy/SKILL.md", NULL);
  copied = agents_test_read_file (copied_path);
  g_assert_true (g_str_has_prefix (copied, "---\nname: deploy"));
  script_path =
    g_build_filename (sb.root, ".agents/deploy/scripts/ship.sh", NULL);
  g_assert_true (g_file_test (script_path, G_FILE_TEST_IS_REGULAR));

  again = call_tool (capability, "load_skill", "{\"skill_name\": \"deploy\"}");
  g_assert_cmpstr (again, ==,
                   "{\"status\":\"already_loaded\",\"skill_name\":\"deploy\","
                   "\"path\":\".agents/deploy\"}");
  /* With a run cwd, the path reads the same from it: absolute, as the
   * listing shows it. */
  g_assert_true (agents_capability_bind_cwd (capability, "tasks/a", &error));
  scoped = call_tool (capability, "load_skill", "{\"skill_name\": \"deploy\"}");
  scoped_expected =
    g_strdup_printf ("{\"status\":\"already_loaded\",\"skill_name\":\"deploy\","
                     "\"path\":\"%s/.agents/deploy\"}",
                     agents_manifest_get_root (
                       agents_sandbox_session_get_manifest (sb.session)));
  g_assert_cmpstr (scoped, ==, scoped_expected);
  /* The prompt lists them from the session's manifest. */
  agents_capability_instructions_async (
    capability, agents_sandbox_session_get_manifest (sb.session), NULL,
    agents_test_async_cb, &result);
  scoped_text = agents_capability_instructions_finish (
    capability, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
  scoped_listing =
    g_strdup_printf ("(file: %s/.agents/deploy/SKILL.md)",
                     agents_manifest_get_root (
                       agents_sandbox_session_get_manifest (sb.session)));
  g_assert_nonnull (strstr (scoped_text, scoped_listing));
  missing = call_tool (capability, "load_skill", "{\"skill_name\": \"evil\"}");
  g_assert_cmpstr (missing, ==, "error: lazy skill not found");
  sandbox_close (&sb);
  agents_test_rm_rf (host);
  agents_test_rm_rf (outside);
}

static void
test_skills_lazy_ambiguous (void)
{
  g_autofree char *host = agents_test_make_tmp_dir ("skills-amb-");
  g_autoptr (AgentsCapability) capability =
    agents_skills_capability_new_from_dir (host, TRUE);
  g_autofree char *answer = NULL;

  write_host_file (host, "one/SKILL.md", "---\nname: twin\n---\n");
  write_host_file (host, "two/SKILL.md", "---\nname: twin\n---\n");
  answer = call_tool (capability, "load_skill", "{\"skill_name\": \"twin\"}");
  g_assert_cmpstr (answer, ==, "error: lazy skill name is ambiguous");
  g_free (answer);
  answer = call_tool (capability, "load_skill", "{}");
  g_assert_cmpstr (answer, ==,
                   "error: the argument “skill_name” must be a "
                   "string");
  agents_test_rm_rf (host);
}

static void
test_skills_config_errors (void)
{
  g_autoptr (JsonNode) skills = json_from_string (skills_json, NULL);
  g_autoptr (JsonNode) lazy = json_from_string (
    "{\"source\":{\"type\":\"local_dir\",\"src\":\"/tmp\"}}", NULL);
  g_autoptr (JsonNode) bad_name = json_from_string (
    "[{\"name\":\"../x\",\"description\":\"d\",\"content\":\"c\"}]", NULL);
  g_autoptr (GError) error = NULL;
  GObject *object;

  object = g_initable_new (AGENTS_TYPE_SKILLS_CAPABILITY, NULL, &error, NULL);
  g_assert_null (object);
  g_assert_cmpstr (error->message, ==,
                   "skills capability requires `skills`, `from_`, or "
                   "`lazy_from`");
  g_clear_error (&error);

  object = g_initable_new (AGENTS_TYPE_SKILLS_CAPABILITY, NULL, &error,
                           "skills", skills, "lazy-from", lazy, NULL);
  g_assert_null (object);
  g_assert_cmpstr (error->message, ==,
                   "skills capability accepts only one of `skills`, `from_`, "
                   "or `lazy_from`");
  g_clear_error (&error);

  object = g_initable_new (AGENTS_TYPE_SKILLS_CAPABILITY, NULL, &error,
                           "skills", bad_name, NULL);
  g_assert_null (object);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  object = g_initable_new (AGENTS_TYPE_SKILLS_CAPABILITY, NULL, &error,
                           "lazy-from", lazy, "skills-path", "../up", NULL);
  g_assert_null (object);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
}

/* Both capabilities come by name from the registry, like the others. */
static void
test_registry_names (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsCapability) skills =
    agents_registry_new_capability ("skills", &error);
  g_autoptr (AgentsCapability) memory = NULL;

  g_assert_no_error (error);
  g_assert_true (AGENTS_IS_SKILLS_CAPABILITY (skills));
  memory = agents_registry_new_capability ("memory", &error);
  g_assert_no_error (error);
  g_assert_true (AGENTS_IS_MEMORY_CAPABILITY (memory));
}

/* ---- memory: read phase ------------------------------------------------ */

static char *
memory_instructions_with (const char *summary, gboolean live_update)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsCapability) memory = agents_memory_capability_new ();
  g_autoptr (GError) error = NULL;
  char *text;
  Sandbox sb = { 0 };

  g_object_set (memory, "live-update", live_update, NULL);
  sandbox_open (&sb, manifest);
  if (summary != NULL)
    write_host_file (sb.root, "memories/memory_summary.md", summary);
  agents_capability_bind (memory, sb.session);
  text = instructions (memory, &error);
  g_assert_no_error (error);
  sandbox_close (&sb);
  return text;
}

static void
test_memory_read_phase (void)
{
  g_autofree char *none = memory_instructions_with (NULL, TRUE);
  g_autofree char *blank = memory_instructions_with (" \n\n", TRUE);
  g_autofree char *live =
    memory_instructions_with ("The user likes tabs.\n", TRUE);
  g_autofree char *read_only =
    memory_instructions_with ("The user likes tabs.\n", FALSE);

  g_assert_null (none);
  g_assert_null (blank);
  g_assert_true (g_str_has_prefix (live, "## Memory\n"));
  g_assert_true (g_str_has_suffix (live,
                                   "========= MEMORY_SUMMARY BEGINS =========\n"
                                   "The user likes tabs.\n"
                                   "========= MEMORY_SUMMARY ENDS ========="));
  g_assert_nonnull (strstr (live, "`memories/memory_summary.md`"));
  g_assert_nonnull (strstr (live, "`memories/skills/<skill-name>/SKILL.md`"));
  g_assert_nonnull (strstr (
    live, "### When to update memory (automatic, same turn; required)"));
  g_assert_null (strstr (live, "{memory_dir}"));
  g_assert_nonnull (
    strstr (read_only, "\nNever update memories. You can only read them.\n"));
  g_assert_null (strstr (read_only, "When to update memory"));
}

/* The summary is cut to 15,000 tokens (60,000 bytes), head and tail. */
static void
test_memory_summary_truncated (void)
{
  GString *summary = g_string_new ("HEAD-MARK ");
  g_autofree char *text = NULL;
  const char *begin, *end;

  while (summary->len < 80000)
    g_string_append (summary, "0123456789abcdef ");
  g_string_append (summary, "TAIL-MARK");
  text = memory_instructions_with (summary->str, TRUE);
  begin = strstr (text, "BEGINS =========\n") + strlen ("BEGINS =========\n");
  end = strstr (text, "\n========= MEMORY_SUMMARY ENDS");
  g_assert_cmpint (end - begin, <=, 60000);
  g_assert_cmpint (end - begin, >, 59000);
  g_assert_true (g_str_has_prefix (begin, "HEAD-MARK "));
  g_assert_nonnull (g_strstr_len (begin, end - begin, " tokens truncated"));
  g_assert_nonnull (g_strstr_len (begin, end - begin, "TAIL-MARK"));
  g_assert_null (g_strstr_len (begin, end - begin, "Total output lines"));
  g_string_free (summary, TRUE);
}

static void
test_memory_config_errors (void)
{
  g_autoptr (GError) error = NULL;
  GObject *object;

  object = g_initable_new (AGENTS_TYPE_MEMORY_CAPABILITY, NULL, &error, "read",
                           FALSE, "generate", FALSE, NULL);
  g_assert_null (object);
  g_assert_cmpstr (error->message, ==,
                   "Memory requires at least one of `read` or `generate`.");
  g_clear_error (&error);
  object = g_initable_new (AGENTS_TYPE_MEMORY_CAPABILITY, NULL, &error,
                           "memories-dir", "/abs", NULL);
  g_assert_null (object);
  g_assert_cmpstr (error->message, ==,
                   "layout.memories_dir must be relative to the sandbox "
                   "workspace root, got: /abs");
  g_clear_error (&error);
  object = g_initable_new (AGENTS_TYPE_MEMORY_CAPABILITY, NULL, &error,
                           "sessions-dir", "a/../..", NULL);
  g_assert_null (object);
  g_assert_cmpstr (error->message, ==,
                   "layout.sessions_dir must be relative to the sandbox "
                   "workspace root, got: a/../..");
}

/* ---- memory: rollouts and the generate phases -------------------------- */

typedef struct
{
  char *root;
  AgentsScriptedModel *agent_model;
  AgentsScriptedModel *memory_model;
  AgentsRunResult *result;
  char *rollout_id;
} MemoryRun;

static void
memory_run_clear (MemoryRun *run)
{
  agents_test_rm_rf (run->root);
  g_clear_pointer (&run->root, g_free);
  g_clear_object (&run->agent_model);
  g_clear_object (&run->memory_model);
  g_clear_object (&run->result);
  g_clear_pointer (&run->rollout_id, g_free);
}

/* The single rollout file of the workspace, by its id. */
static char *
find_rollout_id (const char *root)
{
  g_autofree char *dir = g_build_filename (root, "sessions", NULL);
  g_autoptr (GDir) listing = g_dir_open (dir, 0, NULL);
  const char *name;
  char *id = NULL;

  g_assert_nonnull (listing);
  while ((name = g_dir_read_name (listing)) != NULL)
    {
      g_assert_null (id);
      g_assert_true (g_str_has_suffix (name, ".jsonl"));
      id = g_strndup (name, strlen (name) - strlen (".jsonl"));
    }
  g_assert_nonnull (id);
  return id;
}

/* A runner-owned unix_local session whose workspace (a caller-owned
 * root) outlives the run, with a summary already in memory. */
static void
run_with_memory (MemoryRun *run)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autoptr (AgentsSandboxRunConfig) sandbox = agents_sandbox_run_config_new ();
  g_autoptr (AgentsRunConfig) config = agents_run_config_new ();
  g_autoptr (AgentsSandboxAgent) agent = agents_sandbox_agent_new ("worker");
  g_autoptr (AgentsCapability) memory = agents_memory_capability_new ();
  /* Memory needs shell and filesystem beside it. */
  g_autoptr (AgentsCapability) shell = agents_shell_capability_new ();
  g_autoptr (AgentsCapability) filesystem = agents_filesystem_capability_new ();
  AgentsCapability *capabilities[] = { memory, shell, filesystem };
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (GAsyncResult) async_result = NULL;
  g_autoptr (JsonNode) input = agents_test_str_node ("use tabs please");
  g_autoptr (GError) error = NULL;

  run->root = agents_test_make_tmp_dir ("memory-ws-");
  write_host_file (run->root, "memories/memory_summary.md",
                   "Earlier: the user likes short answers.\n");
  agents_manifest_set_root (manifest, run->root);
  agents_sandbox_run_config_set_client (sandbox, client);
  agents_sandbox_run_config_set_manifest (sandbox, manifest);
  agents_run_config_set_sandbox (config, G_OBJECT (sandbox));

  agents_memory_capability_set_model (AGENTS_MEMORY_CAPABILITY (memory),
                                      AGENTS_MODEL (run->memory_model));
  agents_sandbox_agent_set_capabilities (agent, capabilities,
                                         G_N_ELEMENTS (capabilities));
  agents_agent_set_model (AGENTS_AGENT (agent),
                          AGENTS_MODEL (run->agent_model));
  agents_test_add_turn (run->agent_model,
                        agents_testing_final_output_message ("done"), NULL);

  AGENTS_TEST_AWAIT (
    async_result,
    agents_runner_run_async (runner, AGENTS_AGENT (agent), input, config, NULL,
                             NULL, NULL, agents_test_async_cb, &async_result));
  run->result = agents_runner_run_finish (runner, async_result, &error);
  g_assert_no_error (error);
  run->rollout_id = find_rollout_id (run->root);
}

static char *workspace_file (MemoryRun *run, const char *format, ...)
  G_GNUC_PRINTF (2, 3);

static char *
workspace_file (MemoryRun *run, const char *format, ...)
{
  g_autofree char *name = NULL;
  g_autofree char *path = NULL;
  va_list args;

  va_start (args, format);
  name = g_strdup_vprintf (format, args);
  va_end (args);
  path = g_build_filename (run->root, name, NULL);
  return agents_test_read_file (path);
}

static void
check_rollout_line (MemoryRun *run)
{
  g_autofree char *text =
    workspace_file (run, "sessions/%s.jsonl", run->rollout_id);
  g_autoptr (JsonNode) line = NULL;
  JsonObject *object;
  g_autofree char *input = NULL;
  g_autoptr (JsonNode) input_node = NULL;

  /* One line, ending the file. */
  g_assert_true (g_str_has_suffix (text, "}\n"));
  g_assert_true (strchr (text, '\n') == text + strlen (text) - 1);
  line = json_from_string (text, NULL);
  object = json_node_get_object (line);
  g_assert_cmpstr (json_object_get_string_member (object, "rollout_id"), ==,
                   run->rollout_id);
  g_assert_nonnull (json_object_get_string_member (object, "updated_at"));
  g_assert_cmpstr (json_object_get_string_member (object, "final_output"), ==,
                   "done");
  input_node = json_node_init_array (
    json_node_alloc (), json_object_get_array_member (object, "input"));
  input = json_to_string (input_node, FALSE);
  g_assert_cmpstr (input, ==,
                   "[{\"role\":\"user\",\"content\":\"use tabs please\"}]");
  g_assert_cmpuint (json_array_get_length (
                      json_object_get_array_member (object, "generated_items")),
                    ==, 1);
  g_assert_cmpstr (
    json_object_get_string_member (
      json_object_get_object_member (object, "terminal_metadata"),
      "last_agent"),
    ==, "worker");
}

static void
check_phase_requests (MemoryRun *run)
{
  AgentsModelRequest *one =
    agents_scripted_model_get_first_turn_args (run->memory_model);
  AgentsModelRequest *two =
    agents_scripted_model_get_last_turn_args (run->memory_model);
  JsonObject *schema = agents_model_request_get_output_schema (one);
  JsonObject *reasoning = agents_model_settings_get_reasoning (
    agents_model_request_get_model_settings (one));
  g_autoptr (JsonNode) input_node = json_node_init_array (
    json_node_alloc (), agents_model_request_get_input (one));
  g_autofree char *input = json_to_string (input_node, FALSE);
  GPtrArray *tools = agents_model_request_get_tools (two);
  gboolean has_exec = FALSE, has_patch = FALSE;

  g_assert_true (
    g_str_has_prefix (agents_model_request_get_system_instructions (one),
                      "You turn the record of one agent run into memory"));
  g_assert_nonnull (schema);
  g_assert_true (json_object_has_member (
    json_object_get_object_member (schema, "properties"), "rollout_slug"));
  g_assert_cmpstr (json_object_get_string_member (reasoning, "effort"), ==,
                   "medium");
  g_assert_nonnull (strstr (input, run->rollout_id));
  g_assert_nonnull (strstr (input, "use tabs please"));

  g_assert_true (two != one);
  g_assert_nonnull (strstr (agents_model_request_get_system_instructions (two),
                            "You maintain the memory folder `memories`"));
  for (guint i = 0; tools && i < tools->len; i++)
    {
      const char *name = agents_tool_get_name (tools->pdata[i]);

      has_exec |= g_str_equal (name, "exec_command");
      has_patch |= g_str_equal (name, "apply_patch");
    }
  g_assert_true (has_exec && has_patch);
}

static void
test_memory_generate_phases (void)
{
  MemoryRun run = { 0 };
  g_autofree char *raw = NULL;
  g_autofree char *summary = NULL;
  g_autofree char *all = NULL;
  g_autofree char *selection = NULL;
  g_autofree char *expected_selection = NULL;
  const char *sent;

  run.agent_model = agents_scripted_model_new ();
  run.memory_model = agents_scripted_model_new ();
  agents_test_add_turn (
    run.memory_model,
    agents_testing_final_output_message (
      "{\"rollout_slug\":\"Tabs Preference!\",\"rollout_summary\":\"Asked "
      "for tabs.\",\"raw_memory\":\"- The user wants tabs.\"}"),
    NULL);
  agents_test_add_turn (run.memory_model,
                        agents_testing_final_output_message ("updated"), NULL);
  run_with_memory (&run);

  /* Read phase: the summary reached the agent's instructions. */
  sent = agents_model_request_get_system_instructions (
    agents_scripted_model_get_first_turn_args (run.agent_model));
  g_assert_nonnull (strstr (sent, "## Memory\n"));
  g_assert_nonnull (strstr (sent, "========= MEMORY_SUMMARY BEGINS =========\n"
                                  "Earlier: the user likes short answers.\n"
                                  "========= MEMORY_SUMMARY ENDS ========="));

  check_rollout_line (&run);
  check_phase_requests (&run);

  raw = workspace_file (&run, "memories/raw_memories/%s.md", run.rollout_id);
  g_assert_cmpstr (raw, ==, "- The user wants tabs.\n");
  summary = workspace_file (
    &run, "memories/rollout_summaries/%s_tabs_preference.md", run.rollout_id);
  g_assert_cmpstr (summary, ==, "Asked for tabs.\n");
  all = workspace_file (&run, "memories/raw_memories.md");
  g_assert_true (g_str_has_prefix (all, "# Raw memories\n\n## Rollout "));
  g_assert_nonnull (strstr (all, "- The user wants tabs."));
  selection = workspace_file (&run, "memories/phase_two_selection.json");
  expected_selection =
    g_strdup_printf ("\"rollout_ids\" : [\n    \"%s\"\n  ]", run.rollout_id);
  g_assert_nonnull (strstr (selection, expected_selection));
  memory_run_clear (&run);
}

/* A failing phase is logged (a warning, checked in a subprocess: the
 * library logs structured); the run still succeeds and is recorded. */
static void
test_memory_failure_is_logged (void)
{
  MemoryRun run = { 0 };
  g_autofree char *selection_path = NULL;
  g_autoptr (GError) model_error =
    g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED, "model down");

  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC,
                              G_TEST_SUBPROCESS_DEFAULT);
      g_test_trap_assert_passed ();
      g_test_trap_assert_stderr (
        "*memory: phase one failed for rollout *: model down*");
      return;
    }
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  run.agent_model = agents_scripted_model_new ();
  run.memory_model = agents_scripted_model_new ();
  agents_scripted_model_set_next_error (run.memory_model, model_error);
  run_with_memory (&run);

  check_rollout_line (&run);
  selection_path =
    g_build_filename (run.root, "memories/phase_two_selection.json", NULL);
  g_assert_false (g_file_test (selection_path, G_FILE_TEST_EXISTS));
  memory_run_clear (&run);
}

/* A session the caller owns: the run records the rollout and leaves a
 * pre-stop hook; the caller's close runs the phases, before stop. */
static void
test_memory_generate_on_caller_close (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsSandboxRunConfig) sandbox = agents_sandbox_run_config_new ();
  g_autoptr (AgentsRunConfig) config = agents_run_config_new ();
  g_autoptr (AgentsSandboxAgent) agent = agents_sandbox_agent_new ("worker");
  g_autoptr (AgentsCapability) memory = agents_memory_capability_new ();
  /* Memory needs shell and filesystem beside it. */
  g_autoptr (AgentsCapability) shell = agents_shell_capability_new ();
  g_autoptr (AgentsCapability) filesystem = agents_filesystem_capability_new ();
  AgentsCapability *capabilities[] = { memory, shell, filesystem };
  g_autoptr (AgentsScriptedModel) agent_model = agents_scripted_model_new ();
  g_autoptr (AgentsScriptedModel) memory_model = agents_scripted_model_new ();
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (GAsyncResult) async_result = NULL;
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (JsonNode) input = agents_test_str_node ("use tabs please");
  g_autoptr (GError) error = NULL;
  g_autofree char *id = NULL;
  g_autofree char *raw_path = NULL;
  g_autofree char *raw = NULL;
  Sandbox sb = { 0 };

  sandbox_open (&sb, manifest);
  agents_sandbox_run_config_set_session (sandbox, sb.session);
  agents_run_config_set_sandbox (config, G_OBJECT (sandbox));
  agents_memory_capability_set_model (AGENTS_MEMORY_CAPABILITY (memory),
                                      AGENTS_MODEL (memory_model));
  agents_sandbox_agent_set_capabilities (agent, capabilities,
                                         G_N_ELEMENTS (capabilities));
  agents_agent_set_model (AGENTS_AGENT (agent), AGENTS_MODEL (agent_model));
  agents_test_add_turn (agent_model,
                        agents_testing_final_output_message ("done"), NULL);
  agents_test_add_turn (
    memory_model,
    agents_testing_final_output_message (
      "{\"rollout_slug\":\"tabs\",\"rollout_summary\":\"Asked for "
      "tabs.\",\"raw_memory\":\"- The user wants tabs.\"}"),
    NULL);
  agents_test_add_turn (memory_model,
                        agents_testing_final_output_message ("updated"), NULL);

  AGENTS_TEST_AWAIT (
    async_result,
    agents_runner_run_async (runner, AGENTS_AGENT (agent), input, config, NULL,
                             NULL, NULL, agents_test_async_cb, &async_result));
  result = agents_runner_run_finish (runner, async_result, &error);
  g_assert_no_error (error);
  id = find_rollout_id (sb.root);
  raw_path = g_strdup_printf ("%s/memories/raw_memories/%s.md", sb.root, id);
  /* Nothing generated while the caller still holds the session. */
  g_assert_false (g_file_test (raw_path, G_FILE_TEST_EXISTS));
  g_assert_null (agents_scripted_model_get_first_turn_args (memory_model));
  g_assert_true (agents_sandbox_session_has_pre_stop_hooks (sb.session));

  AGENTS_TEST_AWAIT (async_result,
                     agents_sandbox_session_close_async (
                       sb.session, NULL, agents_test_async_cb, &async_result));
  g_assert_true (
    agents_sandbox_session_close_finish (sb.session, async_result, &error));
  g_assert_no_error (error);
  g_assert_false (agents_sandbox_session_has_pre_stop_hooks (sb.session));
  raw = agents_test_read_file (raw_path);
  g_assert_cmpstr (raw, ==, "- The user wants tabs.\n");
  {
    g_autofree char *selection =
      g_build_filename (sb.root, "memories", "phase_two_selection.json", NULL);

    g_assert_true (g_file_test (selection, G_FILE_TEST_IS_REGULAR));
  }
  sandbox_close (&sb);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/reference-cases/COMP-02", test_comp_02_unknown_model);
  g_test_add_func ("/reference-cases/COMP-04", test_comp_04_static_threshold);
  g_test_add_func ("/reference-cases/COMP-06", test_comp_06_dynamic_by_model);
  g_test_add_func ("/reference-cases/COMP-08",
                   test_comp_08_keeps_from_last_compaction);
  g_test_add_func ("/reference-cases/COMP-10", test_comp_10_unsupported_policy);
  g_test_add_func ("/sandbox/compaction/table-and-defaults",
                   test_compaction_table_and_defaults);
  g_test_add_func ("/sandbox/compaction/policy-json",
                   test_compaction_policy_json);
  g_test_add_func ("/sandbox/skills/inline", test_skills_inline);
  g_test_add_func ("/sandbox/skills/run-scoped-paths",
                   test_skills_run_scoped_paths);
  g_test_add_func ("/sandbox/skills/from-entry", test_skills_from_entry);
  g_test_add_func ("/sandbox/skills/lazy-load", test_skills_lazy_load);
  g_test_add_func ("/sandbox/skills/lazy-ambiguous",
                   test_skills_lazy_ambiguous);
  g_test_add_func ("/sandbox/skills/config-errors", test_skills_config_errors);
  g_test_add_func ("/sandbox/capability/registry-names", test_registry_names);
  g_test_add_func ("/sandbox/memory/read-phase", test_memory_read_phase);
  g_test_add_func ("/sandbox/memory/summary-truncated",
                   test_memory_summary_truncated);
  g_test_add_func ("/sandbox/memory/config-errors", test_memory_config_errors);
  g_test_add_func ("/sandbox/memory/generate-phases",
                   test_memory_generate_phases);
  g_test_add_func ("/sandbox/memory/generate-on-caller-close",
                   test_memory_generate_on_caller_close);
  g_test_add_func ("/sandbox/memory/failure-is-logged",
                   test_memory_failure_is_logged);
  return g_test_run ();
}
