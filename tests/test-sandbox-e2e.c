/* test-sandbox-e2e.c - one scripted run of a SandboxAgent end to end
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A SandboxAgent with the default tool set, on a real unix_local
 * session, fixes a bug with apply_patch, runs the project's tests with
 * exec_command and looks at a plot with view_image, as a scripted model
 * asks; what each tool gave back is checked in the model's next request.
 */

#include "config.h"

#include <string.h>

#include "agents-unix-local-client.h"
#include "test-utils.h"

static const char png[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

static const char patch[] = "*** Begin Patch\n"
                            "*** Update File: calc.sh\n"
                            "@@\n"
                            "-add() { echo $(( $1 - $2 )); }\n"
                            "+add() { echo $(( $1 + $2 )); }\n"
                            "*** End Patch";

static JsonObject *
custom_tool_call (const char *name, const char *input, const char *call_id)
{
  JsonObject *item = json_object_new ();

  json_object_set_string_member (item, "type", "custom_tool_call");
  json_object_set_string_member (item, "call_id", call_id);
  json_object_set_string_member (item, "name", name);
  json_object_set_string_member (item, "input", input);
  json_object_set_string_member (item, "id", "ctc_1");
  return item;
}

static void
write_workspace (const char *root)
{
  g_autofree char *calc = g_build_filename (root, "calc.sh", NULL);
  g_autofree char *test = g_build_filename (root, "test.sh", NULL);
  g_autofree char *plot = g_build_filename (root, "plot.png", NULL);
  g_autoptr (GError) error = NULL;

  agents_test_write_file (calc, "add() { echo $(( $1 - $2 )); }\n");
  agents_test_write_file (test, ". ./calc.sh\n"
                                "r=$(add 2 3)\n"
                                "if [ \"$r\" = 5 ]; then echo PASS; else echo "
                                "\"FAIL: $r\"; exit 1; fi\n");
  g_assert_true (g_file_set_contents (plot, png, sizeof png - 1, &error));
  g_assert_no_error (error);
}

/* The output the model got for @call_id, in the input of @request. */
static JsonNode *
output_for (AgentsModelRequest *request, const char *call_id)
{
  JsonArray *input = agents_model_request_get_input (request);

  for (guint i = 0; i < json_array_get_length (input); i++)
    {
      JsonObject *item = json_array_get_object_element (input, i);

      if (g_strcmp0 (
            json_object_get_string_member_with_default (item, "call_id", ""),
            call_id) == 0 &&
          json_object_has_member (item, "output"))
        return json_object_get_member (item, "output");
    }
  g_assert_not_reached ();
}

static gboolean
has_tool (AgentsModelRequest *request, const char *name)
{
  GPtrArray *tools = agents_model_request_get_tools (request);

  for (guint i = 0; tools != NULL && i < tools->len; i++)
    if (g_str_equal (agents_tool_get_name (tools->pdata[i]), name))
      return TRUE;
  return FALSE;
}

static void
check_last_request (AgentsModelRequest *last)
{
  JsonNode *patched = output_for (last, "call_patch");
  JsonNode *tests = output_for (last, "call_tests");
  JsonNode *image = output_for (last, "call_image");
  g_autofree char *image_text = json_to_string (image, FALSE);
  JsonObject *extra = agents_model_settings_get_extra_args (
    agents_model_request_get_model_settings (last));
  g_autoptr (JsonNode) extra_node =
    json_node_init_object (json_node_alloc (), extra);
  g_autofree char *extra_text = json_to_string (extra_node, FALSE);
  const char *test_output = json_node_get_string (tests);

  g_assert_cmpstr (json_node_get_string (patched), ==, "Updated calc.sh");
  g_assert_true (g_str_has_prefix (test_output, "Chunk ID: "));
  g_assert_nonnull (strstr (test_output, "\nProcess exited with code 0\n"));
  g_assert_true (g_str_has_suffix (test_output, "Output:\nPASS\n"));
  g_assert_cmpstr (image_text, ==,
                   "[{\"type\":\"input_image\",\"image_url\":\"data:image/"
                   "png;base64,iVBORw0KGgoAAAANSUhEUg==\"}]");
  /* The default tool set is the reference's; compaction follows the
   * model (gpt-5.4: 90 % of 1,047,576). */
  g_assert_true (has_tool (last, "exec_command"));
  g_assert_true (has_tool (last, "apply_patch"));
  g_assert_true (has_tool (last, "view_image"));
  g_assert_false (has_tool (last, "read_file"));
  g_assert_cmpstr (extra_text, ==,
                   "{\"context_management\":[{\"type\":\"compaction\","
                   "\"compact_threshold\":942818}]}");
}

static void
test_patch_test_and_look (void)
{
  g_autofree char *root = agents_test_make_tmp_dir ("e2e-ws-");
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsSandboxClient) client = agents_unix_local_client_new ();
  g_autoptr (AgentsSandboxRunConfig) sandbox = agents_sandbox_run_config_new ();
  g_autoptr (AgentsRunConfig) config = agents_run_config_new ();
  g_autoptr (AgentsSandboxAgent) agent = agents_sandbox_agent_new ("fixer");
  g_autoptr (AgentsScriptedModel) model = agents_scripted_model_new ();
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autoptr (AgentsRunResult) result = NULL;
  g_autoptr (GAsyncResult) async_result = NULL;
  g_autoptr (JsonNode) input = agents_test_str_node ("make the tests pass");
  g_autoptr (GError) error = NULL;
  g_autofree char *calc_path = g_build_filename (root, "calc.sh", NULL);
  g_autofree char *calc = NULL;
  g_autofree char *final = NULL;

  write_workspace (root);
  agents_manifest_set_root (manifest, root);
  agents_sandbox_run_config_set_client (sandbox, client);
  agents_sandbox_run_config_set_manifest (sandbox, manifest);
  agents_run_config_set_sandbox (config, G_OBJECT (sandbox));
  agents_agent_set_model (AGENTS_AGENT (agent), AGENTS_MODEL (model));
  agents_agent_set_model_name (AGENTS_AGENT (agent), "gpt-5.4");

  agents_test_add_turn (
    model, custom_tool_call ("apply_patch", patch, "call_patch"), NULL);
  agents_test_add_turn (
    model,
    agents_testing_function_tool_call (
      "exec_command", "{\"cmd\": \"sh test.sh\"}", "call_tests"),
    NULL);
  agents_test_add_turn (
    model,
    agents_testing_function_tool_call ("view_image", "{\"path\": \"plot.png\"}",
                                       "call_image"),
    NULL);
  agents_test_add_turn (model, agents_testing_final_output_message ("fixed"),
                        NULL);

  AGENTS_TEST_AWAIT (
    async_result,
    agents_runner_run_async (runner, AGENTS_AGENT (agent), input, config, NULL,
                             NULL, NULL, agents_test_async_cb, &async_result));
  result = agents_runner_run_finish (runner, async_result, &error);
  g_assert_no_error (error);
  final = agents_run_result_dup_final_output_text (result);
  g_assert_cmpstr (final, ==, "fixed");

  calc = agents_test_read_file (calc_path);
  g_assert_cmpstr (calc, ==, "add() { echo $(( $1 + $2 )); }\n");
  check_last_request (agents_scripted_model_get_last_turn_args (model));
  agents_test_rm_rf (root);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/sandbox/e2e/patch-test-and-look",
                   test_patch_test_and_look);
  return g_test_run ();
}
