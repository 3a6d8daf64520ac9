/* test-registry.c - plugin discovery and lookups by name
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Links the shared library and loads the real plugin modules from
 * AGENTS_PLUGIN_PATH, as an application does.
 */

#include <agents.h>

static void
test_plugins_are_loaded_from_plugin_path (void)
{
  g_auto (GStrv) plugins = agents_registry_list_plugins ();
  gboolean unix_local = FALSE, s3mount = FALSE;

  for (guint i = 0; plugins[i] != NULL; i++)
    {
      unix_local |= g_str_has_suffix (plugins[i], "libunixlocal.so");
      s3mount |= g_str_has_suffix (plugins[i], "libs3mount.so");
    }
  g_assert_true (unix_local);
  g_assert_true (s3mount);
}

static void
test_backends_and_entry_types_by_name (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsSandboxClient) client =
    agents_registry_new_sandbox_client ("unix_local", &error);
  g_auto (GStrv) entry_types =
    agents_registry_list (AGENTS_REGISTRY_KIND_ENTRY_TYPE);

  g_assert_no_error (error);
  g_assert_true (AGENTS_IS_SANDBOX_CLIENT (client));
  /* The registry returns the client's real type: no cast. */
  g_assert_cmpstr (agents_sandbox_client_get_backend_id (client), ==,
                   "unix_local");
  g_assert_true (
    g_strv_contains ((const char *const *) entry_types, "s3_mount"));
  g_assert_true (g_strv_contains ((const char *const *) entry_types, "file"));
  g_assert_true (
    g_strv_contains ((const char *const *) entry_types, "git_repo"));
}

static void
test_unknown_backend_lists_known_ones (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsSandboxClient) client =
    agents_registry_new_sandbox_client ("kubernetes", &error);
  g_autoptr (GVariant) context = NULL;
  g_autofree const char **known = NULL;

  g_assert_null (client);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_UNKNOWN_TYPE);
  g_assert_nonnull (strstr (error->message, "“kubernetes”"));
  g_assert_nonnull (strstr (error->message, "unix_local"));
  context = agents_sandbox_error_get_context (error);
  g_assert_true (g_variant_lookup (context, "known", "^a&s", &known));
  g_assert_true (g_strv_contains (known, "unix_local"));
}

static void
test_register_rejects_wrong_type_and_clash (void)
{
  g_autoptr (GError) error = NULL;

  g_assert_false (agents_registry_register_sandbox_client (
    "not-a-client", G_TYPE_OBJECT, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  /* The same type again under its name is fine; another type is not. */
  g_assert_true (agents_registry_register_snapshot_type (
    "noop", AGENTS_TYPE_NOOP_SNAPSHOT, &error));
  g_assert_no_error (error);
  g_assert_false (agents_registry_register_snapshot_type (
    "noop", AGENTS_TYPE_LOCAL_SNAPSHOT, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
}

static void
test_scan_without_plugin_path (void)
{
  if (g_test_subprocess ())
    {
      g_auto (GStrv) backends = NULL;

      g_unsetenv ("AGENTS_PLUGIN_PATH");
      backends = agents_registry_list (AGENTS_REGISTRY_KIND_SANDBOX_CLIENT);
      /* Only what is installed; the build tree's plugins are not found. */
      g_assert_nonnull (backends);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/registry/plugins-loaded",
                   test_plugins_are_loaded_from_plugin_path);
  g_test_add_func ("/registry/by-name", test_backends_and_entry_types_by_name);
  g_test_add_func ("/registry/unknown-backend",
                   test_unknown_backend_lists_known_ones);
  g_test_add_func ("/registry/register-checks",
                   test_register_rejects_wrong_type_and_clash);
  g_test_add_func ("/registry/scan-without-plugin-path",
                   test_scan_without_plugin_path);

  return g_test_run ();
}
