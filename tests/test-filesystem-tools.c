/* test-filesystem-tools.c - apply_patch and view_image over a real session
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The reference's filesystem tools (wave2-reference §2.1, §2.3) run
 * against a unix_local session: what the model reads back, and what the
 * workspace holds afterwards.
 */

#include "config.h"

#include <string.h>

#include "agents-filesystem-tools-private.h"
#include "agents-run-private.h"
#include "agents-shell-tools-private.h"
#include "agents-unix-local-client.h"
#include "test-utils.h"

typedef struct
{
  AgentsSandboxClient *client;
  AgentsSandboxSession *session;
  AgentsCapability *filesystem;
  AgentsTool *apply_patch;
  AgentsTool *view_image;
  AgentsRunContext *ctx;
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;

  f->client = agents_unix_local_client_new ();
  agents_sandbox_client_create_async (f->client, manifest, NULL, NULL, NULL,
                                      agents_test_async_cb, &result);
  f->session = agents_sandbox_client_create_finish (
    f->client, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
  g_clear_object (&result);
  agents_sandbox_session_start_async (f->session, NULL, agents_test_async_cb,
                                      &result);
  g_assert_true (agents_sandbox_session_start_finish (
    f->session, agents_test_wait_result (&result), &error));
  g_assert_no_error (error);

  f->filesystem = agents_filesystem_capability_new ();
  agents_capability_bind (f->filesystem, f->session);
  f->apply_patch = agents_apply_patch_tool_new (f->filesystem);
  f->view_image = agents_view_image_tool_new (f->filesystem);
  f->ctx = agents_run_context_new (NULL);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;

  g_clear_object (&f->apply_patch);
  g_clear_object (&f->view_image);
  g_clear_object (&f->filesystem);
  g_clear_object (&f->ctx);
  agents_sandbox_session_close_async (f->session, NULL, agents_test_async_cb,
                                      &result);
  agents_sandbox_session_close_finish (f->session,
                                       agents_test_wait_result (&result), NULL);
  g_clear_object (&result);
  agents_sandbox_client_delete_async (f->client, f->session, NULL,
                                      agents_test_async_cb, &result);
  g_assert_true (agents_sandbox_client_delete_finish (
    f->client, agents_test_wait_result (&result), &error));
  g_assert_no_error (error);
  g_clear_object (&f->session);
  g_clear_object (&f->client);
}

/* Invokes @tool as the runner would; returns the output node. */
static JsonNode *
invoke (Fixture *f, AgentsTool *tool, const char *arguments)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  JsonNode *output;

  agents_tool_invoke_async (tool, f->ctx, "call_1", arguments, NULL,
                            agents_test_async_cb, &result);
  output =
    agents_tool_invoke_finish (tool, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_nonnull (output);
  return output;
}

static char *
invoke_text (Fixture *f, AgentsTool *tool, const char *arguments)
{
  g_autoptr (JsonNode) output = invoke (f, tool, arguments);

  g_assert_true (JSON_NODE_HOLDS_VALUE (output));
  return g_strdup (json_node_get_string (output));
}

static void
put (Fixture *f, const char *path, const char *data, gsize size)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = g_bytes_new (data, size);

  agents_sandbox_session_write_bytes_async (f->session, path, bytes, NULL, NULL,
                                            agents_test_async_cb, &result);
  g_assert_true (agents_sandbox_session_write_bytes_finish (
    f->session, agents_test_wait_result (&result), &error));
  g_assert_no_error (error);
}

/* The file's content, or NULL when it does not exist. */
static char *
get (Fixture *f, const char *path)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = NULL;

  agents_sandbox_session_read_bytes_async (f->session, path, NULL, NULL,
                                           agents_test_async_cb, &result);
  bytes = agents_sandbox_session_read_bytes_finish (
    f->session, agents_test_wait_result (&result), &error);
  if (bytes == NULL)
    return NULL;
  return g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
}

/* ---- apply_patch ------------------------------------------------------- */

static void
test_apply_patch_definition (Fixture *f, gconstpointer data)
{
  g_autoptr (JsonObject) json = agents_tool_to_model_json (f->apply_patch);
  JsonObject *format = json_object_get_object_member (json, "format");

  g_assert_cmpstr (json_object_get_string_member (json, "type"), ==, "custom");
  g_assert_cmpstr (json_object_get_string_member (json, "name"), ==,
                   "apply_patch");
  g_assert_true (g_str_has_prefix (
    json_object_get_string_member (json, "description"), "Edit files"));
  g_assert_cmpstr (json_object_get_string_member (format, "type"), ==,
                   "grammar");
  g_assert_cmpstr (json_object_get_string_member (format, "syntax"), ==,
                   "lark");
  g_assert_cmpstr (
    json_object_get_string_member (format, "definition"), ==,
    "start: begin_patch hunk+ end_patch\n"
    "begin_patch: \"*** Begin Patch\" LF\n"
    "end_patch: \"*** End Patch\" LF?\n\n"
    "hunk: add_hunk | delete_hunk | update_hunk\n"
    "add_hunk: \"*** Add File: \" filename LF add_line+\n"
    "delete_hunk: \"*** Delete File: \" filename LF\n"
    "update_hunk: \"*** Update File: \" filename LF change_move? change\n\n"
    "filename: /(.+)/\n"
    "add_line: \"+\" /(.*)/ LF -> line\n\n"
    "change_move: \"*** Move to: \" filename LF\n"
    "change: (change_context | change_line)+ eof_line?\n"
    "change_context: (\"@@\" | \"@@ \" /(.+)/) LF\n"
    "change_line: (\"+\" | \"-\" | \" \") /(.*)/ LF\n"
    "eof_line: \"*** End of File\" LF\n\n"
    "%import common.LF");
}

static void
test_apply_patch_operations (Fixture *f, gconstpointer data)
{
  g_autofree char *output = NULL;
  g_autofree char *added = NULL;
  g_autofree char *moved = NULL;
  g_autofree char *old = NULL;
  g_autofree char *gone = NULL;

  put (f, "src/app.py", "def greet():\n    print(\"Hi\")\n    return 1\n", 42);
  put (f, "old.txt", "bye\n", 4);
  output = invoke_text (f, f->apply_patch,
                        "*** Begin Patch\n"
                        "*** Add File: notes/todo.txt\n+write tests\n+\n"
                        "*** Update File: src/app.py\n"
                        "*** Move to: src/main.py\n"
                        "@@ def greet():\n-    print(\"Hi\")\n"
                        "+    print(\"Hello, world!\")\n"
                        "*** Delete File: old.txt\n"
                        "*** End Patch\n");
  g_assert_cmpstr (output, ==,
                   "Created notes/todo.txt\nUpdated src/app.py\n"
                   "Moved src/app.py to src/main.py\nDeleted old.txt");
  added = get (f, "notes/todo.txt");
  g_assert_cmpstr (added, ==, "write tests\n");
  moved = get (f, "src/main.py");
  g_assert_cmpstr (moved, ==,
                   "def greet():\n    print(\"Hello, world!\")\n"
                   "    return 1\n");
  old = get (f, "src/app.py");
  g_assert_null (old);
  gone = get (f, "old.txt");
  g_assert_null (gone);
}

static void
test_apply_patch_fuzzy_crlf_eof (Fixture *f, gconstpointer data)
{
  g_autofree char *output = NULL;
  g_autofree char *crlf = NULL;
  g_autofree char *tail = NULL;

  put (f, "win.txt", "one\r\ntwo  \r\nthree\r\n", 19);
  put (f, "tail.txt", "x\ny\nx", 5);
  output = invoke_text (f, f->apply_patch,
                        "*** Begin Patch\n*** Update File: win.txt\n@@\n"
                        " two\n-three\n+3\n*** Update File: tail.txt\n@@\n"
                        "-x\n+z\n*** End of File\n*** End Patch");
  g_assert_cmpstr (output, ==, "Updated win.txt\nUpdated tail.txt");
  crlf = get (f, "win.txt");
  g_assert_cmpstr (crlf, ==, "one\r\ntwo  \r\n3\r\n");
  tail = get (f, "tail.txt");
  g_assert_cmpstr (tail, ==, "x\ny\nz");
}

static void
test_apply_patch_json_form (Fixture *f, gconstpointer data)
{
  g_autofree char *output = NULL;
  g_autofree char *text = NULL;

  output = invoke_text (f, f->apply_patch,
                        "{\"operations\": [{\"type\": \"create_file\", "
                        "\"path\": \"j.txt\", \"diff\": \"+json\\n\"}]}");
  g_assert_cmpstr (output, ==, "Created j.txt");
  text = get (f, "j.txt");
  g_assert_cmpstr (text, ==, "json");
}

/* Errors reach the model as the output text, the message as it is. */
static void
test_apply_patch_errors (Fixture *f, gconstpointer data)
{
  g_autofree char *context = NULL;
  g_autofree char *missing = NULL;
  g_autofree char *parse = NULL;
  g_autofree char *undecodable = NULL;

  put (f, "a.txt", "a\nb\n", 4);
  context =
    invoke_text (f, f->apply_patch,
                 "*** Begin Patch\n*** Update File: a.txt\n@@\n q\n-b\n+B\n"
                 "*** End Patch");
  g_assert_cmpstr (context, ==, "Invalid Context 0:\nq\nb");
  missing = invoke_text (f, f->apply_patch,
                         "*** Begin Patch\n*** Delete File: nope.txt\n"
                         "*** End Patch");
  g_assert_cmpstr (missing, ==, "apply_patch missing file: nope.txt");
  parse = invoke_text (f, f->apply_patch, "*** Add File: x\n+y");
  g_assert_cmpstr (parse, ==,
                   "apply_patch input must start with '*** Begin Patch'");
  put (f, "bin.dat", "\xff\xfe", 2);
  undecodable = invoke_text (f, f->apply_patch,
                             "*** Begin Patch\n*** Update File: bin.dat\n@@\n"
                             "+x\n*** End Patch");
  g_assert_cmpstr (undecodable, ==,
                   "apply_patch could not decode file: bin.dat");
}

/* Every path is checked before anything changes. */
static void
test_apply_patch_escape_before_change (Fixture *f, gconstpointer data)
{
  g_autofree char *output = NULL;
  g_autofree char *moved = NULL;
  g_autofree char *first = NULL;

  put (f, "keep.txt", "k\n", 2);
  output = invoke_text (f, f->apply_patch,
                        "*** Begin Patch\n*** Add File: first.txt\n+1\n"
                        "*** Delete File: keep.txt\n"
                        "*** Add File: ../escape.txt\n+x\n*** End Patch");
  g_assert_cmpstr (output, ==,
                   "apply_patch path must not escape root: ../escape.txt");
  first = get (f, "first.txt");
  g_assert_null (first);
  g_free (output);
  output = get (f, "keep.txt");
  g_assert_cmpstr (output, ==, "k\n");
  g_free (output);

  /* A move target is checked too. */
  output = invoke_text (f, f->apply_patch,
                        "*** Begin Patch\n*** Update File: keep.txt\n"
                        "*** Move to: /etc/passwd\n@@\n-k\n+m\n*** End Patch");
  g_assert_cmpstr (output, ==,
                   "apply_patch path must not escape root: /etc/passwd");
  moved = get (f, "keep.txt");
  g_assert_cmpstr (moved, ==, "k\n");
}

/* ---- view_image -------------------------------------------------------- */

static const char png[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

static void
test_view_image_png (Fixture *f, gconstpointer data)
{
  g_autoptr (JsonNode) output = NULL;
  g_autoptr (JsonNode) wire = NULL;
  g_autofree char *text = NULL;
  g_autoptr (JsonObject) json = agents_tool_to_model_json (f->view_image);
  g_autoptr (JsonNode) json_node =
    json_node_init_object (json_node_alloc (), json);
  g_autofree char *definition = json_to_string (json_node, FALSE);

  g_assert_nonnull (strstr (
    definition,
    "\"parameters\":{\"properties\":{\"path\":{\"description\":\"Path to the "
    "image file. Workspace paths and explicitly granted sandbox paths are "
    "supported.\",\"minLength\":1,\"title\":\"Path\",\"type\":\"string\"}},"
    "\"required\":[\"path\"],\"title\":\"ViewImageArgs\",\"type\":"
    "\"object\"},\"strict\":false}"));

  put (f, "img/pixel.png", png, sizeof png - 1);
  output = invoke (f, f->view_image, "{\"path\": \"img/pixel.png\"}");
  wire = agents_run_private_tool_output_to_wire (output);
  text = json_to_string (wire, FALSE);
  g_assert_cmpstr (text, ==,
                   "[{\"type\":\"input_image\",\"image_url\":\"data:image/"
                   "png;base64,iVBORw0KGgoAAAANSUhEUg==\"}]");
}

static void
test_view_image_errors (Fixture *f, gconstpointer data)
{
  g_autofree char *missing = NULL;
  g_autofree char *unsupported = NULL;
  g_autofree char *big_text = NULL;
  g_autofree char *big = g_malloc0 (AGENTS_VIEW_IMAGE_MAX_BYTES + 1);

  missing = invoke_text (f, f->view_image, "{\"path\": \"none.png\"}");
  g_assert_cmpstr (missing, ==, "image path `none.png` was not found");
  put (f, "notes.txt", "just text", 9);
  unsupported = invoke_text (f, f->view_image, "{\"path\": \"notes.txt\"}");
  g_assert_cmpstr (unsupported, ==,
                   "image path `notes.txt` is not a supported image file");
  memcpy (big, png, sizeof png - 1);
  put (f, "big.png", big, AGENTS_VIEW_IMAGE_MAX_BYTES + 1);
  big_text = invoke_text (f, f->view_image, "{\"path\": \"big.png\"}");
  g_assert_cmpstr (big_text, ==,
                   "image path `big.png` exceeded the allowed size of 10MB; "
                   "resize or compress the image and try again");
}

/* Exactly 10 MiB is allowed. */
static void
test_view_image_at_limit (Fixture *f, gconstpointer data)
{
  g_autofree char *gif = g_malloc0 (AGENTS_VIEW_IMAGE_MAX_BYTES);
  g_autoptr (JsonNode) output = NULL;

  memcpy (gif, "GIF89a", 6);
  put (f, "max.gif", gif, AGENTS_VIEW_IMAGE_MAX_BYTES);
  output = invoke (f, f->view_image, "{\"path\": \"max.gif\"}");
  g_assert_true (JSON_NODE_HOLDS_ARRAY (output));
  g_assert_true (g_str_has_prefix (
    json_object_get_string_member (
      json_array_get_object_element (json_node_get_array (output), 0),
      "image_url"),
    "data:image/gif;base64,R0lGODlh"));
}

static void
test_sniff (void)
{
  static const struct
  {
    const char *data;
    gsize size;
    const char *path;
    const char *type;
  } cases[] = {
    { "\x89PNG\r\n\x1a\n", 8, "a", "image/png" },
    { "\xff\xd8\xff\xe0", 4, "a", "image/jpeg" },
    { "GIF87a", 6, "a", "image/gif" },
    { "GIF89a", 6, "a", "image/gif" },
    { "RIFF\0\0\0\0WEBPVP8 ", 16, "a", "image/webp" },
    { "RIFF\0\0\0\0WAVE", 12, "a", NULL },
    { "BM\0\0", 4, "a", "image/bmp" },
    { "II*\0", 4, "a", "image/tiff" },
    { "MM\0*", 4, "a", "image/tiff" },
    { "  \n<SVG xmlns=", 14, "a", "image/svg+xml" },
    { "<?xml version=\"1.0\"?><svg>", 26, "a", "image/svg+xml" },
    { "<?xml version=\"1.0\"?><html>", 27, "a", NULL },
    { "\x1f\x8b", 2, "icon.SVGZ", "image/svg+xml" },
    { "plain", 5, "a.svg", "image/svg+xml" },
    { "plain", 5, "a.png", NULL },
    { "", 0, "a", NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    g_assert_cmpstr (agents_sniff_image_type ((const guchar *) cases[i].data,
                                              cases[i].size, cases[i].path),
                     ==, cases[i].type);
}

/* ---- the run's working directory -------------------------------------- */

/* With a run cwd bound to the capabilities, relative paths of
 * apply_patch, view_image and exec_command (its default workdir too)
 * resolve from it; paths still cannot leave the workspace. Tools keep
 * the cwd their capability had when they were made. */
static void
test_run_cwd (Fixture *f, gconstpointer data)
{
  g_autoptr (AgentsCapability) shell = agents_shell_capability_new ();
  g_autoptr (AgentsTool) unbound_patch = NULL;
  g_autoptr (AgentsTool) patch = NULL;
  g_autoptr (AgentsTool) view = NULL;
  g_autoptr (AgentsTool) exec = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) image = NULL;
  g_autofree char *image_json = NULL;
  g_autofree char *out = NULL;
  g_autofree char *escape = NULL;
  g_autofree char *here = NULL;
  g_autofree char *up = NULL;
  g_autofree char *created = NULL;
  g_autofree char *shared = NULL;
  g_autofree char *plain = NULL;

  put (f, "tasks/shared.txt", "s\n", 2);
  unbound_patch = agents_apply_patch_tool_new (f->filesystem);
  g_assert_true (agents_capability_bind_cwd (f->filesystem, "tasks/a", &error));
  g_assert_no_error (error);
  agents_capability_bind (shell, f->session);
  g_assert_true (agents_capability_bind_cwd (shell, "tasks/a", &error));
  patch = agents_apply_patch_tool_new (f->filesystem);
  view = agents_view_image_tool_new (f->filesystem);
  exec = agents_exec_command_tool_new (shell);

  out = invoke_text (f, patch,
                     "*** Begin Patch\n*** Add File: new.txt\n+hello\n"
                     "*** Update File: ../shared.txt\n@@\n-s\n+S\n"
                     "*** End Patch");
  g_assert_cmpstr (out, ==, "Created new.txt\nUpdated ../shared.txt");
  created = get (f, "tasks/a/new.txt");
  g_assert_cmpstr (created, ==, "hello");
  shared = get (f, "tasks/shared.txt");
  g_assert_cmpstr (shared, ==, "S\n");
  escape = invoke_text (f, patch,
                        "*** Begin Patch\n*** Add File: ../../../x\n+y\n"
                        "*** End Patch");
  g_assert_cmpstr (escape, ==,
                   "apply_patch path must not escape root: ../../../x");

  /* A tool made before the cwd was bound keeps the workspace root. */
  plain = invoke_text (f, unbound_patch,
                       "*** Begin Patch\n*** Add File: top.txt\n+t\n"
                       "*** End Patch");
  g_assert_cmpstr (plain, ==, "Created top.txt");
  g_free (plain);
  plain = get (f, "top.txt");
  g_assert_cmpstr (plain, ==, "t");

  put (f, "tasks/a/pixel.png", png, sizeof png - 1);
  image = invoke (f, view, "{\"path\": \"pixel.png\"}");
  image_json = json_to_string (image, FALSE);
  g_assert_nonnull (strstr (image_json, "data:image/png;base64,"));

  here = invoke_text (f, exec, "{\"cmd\": \"pwd\"}");
  g_assert_nonnull (strstr (here, "/tasks/a\n"));
  up = invoke_text (f, exec, "{\"cmd\": \"pwd\", \"workdir\": \"..\"}");
  g_assert_nonnull (strstr (up, "/tasks\n"));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(name)                                                \
  g_test_add ("/sandbox/filesystem-tools/" #name, Fixture, NULL, \
              fixture_set_up, test_##name, fixture_tear_down)
  ADD (apply_patch_definition);
  ADD (apply_patch_operations);
  ADD (apply_patch_fuzzy_crlf_eof);
  ADD (apply_patch_json_form);
  ADD (apply_patch_errors);
  ADD (apply_patch_escape_before_change);
  ADD (view_image_png);
  ADD (view_image_errors);
  ADD (view_image_at_limit);
  ADD (run_cwd);
#undef ADD
  g_test_add_func ("/sandbox/filesystem-tools/sniff", test_sniff);

  return g_test_run ();
}
