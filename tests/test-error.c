/* test-error.c - the sandbox error domain and its contexts
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-sandbox-error-private.h"
#include "test-utils.h"

static void
test_invalid_path_message_and_context (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) context = NULL;
  const char *value = NULL;

  agents_sandbox_error_set_invalid_path (&error, "../secret.txt",
                                         "escape_root");

  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH);
  g_assert_cmpstr (error->message, ==,
                   "manifest path must not escape root: ../secret.txt");
  context = agents_sandbox_error_get_context (error);
  g_assert_true (g_variant_lookup (context, "rel", "&s", &value));
  g_assert_cmpstr (value, ==, "../secret.txt");
  g_assert_cmpstr (agents_sandbox_error_get_reason (error), ==, "escape_root");
}

static void
test_exec_nonzero_message_and_context (void)
{
  const char *const argv[] = { "useradd", "-U", "sandbox-user", NULL };
  g_autoptr (GBytes) out = g_bytes_new_static ("attempted", 9);
  g_autoptr (GBytes) err = g_bytes_new_static ("missing\xff", 8);
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) context = NULL;
  const char *value = NULL;
  int exit_code = 0;

  agents_sandbox_error_set_exec_nonzero (&error, argv, 3, out, err);

  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_EXEC_NONZERO);
  /* Invalid UTF-8 in the output is replaced, never passed on. */
  g_assert_true (g_utf8_validate (error->message, -1, NULL));
  g_assert_true (
    g_str_has_prefix (error->message, "stdout: attempted\nstderr: missing"));
  context = agents_sandbox_error_get_context (error);
  g_assert_true (g_variant_lookup (context, "command_str", "&s", &value));
  g_assert_cmpstr (value, ==, "useradd -U sandbox-user");
  g_assert_true (g_variant_lookup (context, "exit_code", "i", &exit_code));
  g_assert_cmpint (exit_code, ==, 3);
}

static void
test_context_survives_copy_and_lookup (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) copy = NULL;
  g_autoptr (GVariant) copied_context = NULL;
  g_autoptr (GVariant) looked_up = NULL;
  g_autoptr (GVariant) unknown = NULL;
  const char *value = NULL;

  agents_sandbox_error_set_invalid_path (&error, "a/../../b", "escape_root");
  copy = g_error_copy (error);
  copied_context = agents_sandbox_error_get_context (copy);
  g_assert_true (g_variant_lookup (copied_context, "rel", "&s", &value));
  g_assert_cmpstr (value, ==, "a/../../b");

  /* What a binding keeps of an error is enough to find its context. */
  looked_up = agents_sandbox_error_lookup_context (error->domain, error->code,
                                                   error->message);
  g_assert_true (g_variant_equal (looked_up, copied_context));

  unknown = agents_sandbox_error_lookup_context (error->domain, error->code,
                                                 "never raised");
  g_assert_cmpuint (g_variant_n_children (unknown), ==, 0);
}

static void
test_foreign_error_has_empty_context (void)
{
  g_autoptr (GError) error =
    g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED, "boom");
  g_autoptr (GVariant) context = agents_sandbox_error_get_context (error);

  g_assert_cmpuint (g_variant_n_children (context), ==, 0);
  g_assert_null (agents_sandbox_error_get_reason (error));
}

/* A plugin's own domain, defined the way a third-party plugin does. */
#define TEST_PLUGIN_ERROR (test_plugin_error_quark ())
static GQuark test_plugin_error_quark (void);
static AGENTS_DEFINE_ERROR_QUARK (test_plugin_error, "test-plugin-error-quark")

  static GVariant *plugin_context (const char *bucket)
{
  g_auto (GVariantBuilder) builder =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  g_variant_builder_add (&builder, "{sv}", "bucket",
                         g_variant_new_string (bucket));
  g_variant_builder_add (&builder, "{sv}", "attempts", g_variant_new_int32 (3));
  return g_variant_builder_end (&builder);
}

static void
test_third_party_domain_context (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) copy = NULL;
  g_autoptr (GVariant) context = NULL;
  g_autoptr (GVariant) copied = NULL;
  g_autoptr (GVariant) through_sandbox = NULL;
  const char *bucket = NULL;
  gint32 attempts = 0;

  g_assert_true (agents_error_domain_is_registered (TEST_PLUGIN_ERROR));
  /* Registering again gives the same domain. */
  g_assert_cmpuint (agents_error_register_domain ("test-plugin-error-quark"),
                    ==, TEST_PLUGIN_ERROR);

  agents_error_set (&error, TEST_PLUGIN_ERROR, 7, plugin_context ("logs"),
                    "bucket %s is gone", "logs");
  g_assert_error (error, TEST_PLUGIN_ERROR, 7);
  g_assert_cmpstr (error->message, ==, "bucket logs is gone");

  context = agents_error_get_context (error);
  g_assert_true (g_variant_lookup (context, "bucket", "&s", &bucket));
  g_assert_cmpstr (bucket, ==, "logs");
  g_assert_true (g_variant_lookup (context, "attempts", "i", &attempts));
  g_assert_cmpint (attempts, ==, 3);
  g_assert_true (agents_error_peek_context (error) != NULL);

  /* GLib copies and frees the context with the error. */
  copy = g_error_copy (error);
  g_clear_error (&error);
  copied = agents_error_get_context (copy);
  g_assert_true (g_variant_equal (copied, context));

  /* The sandbox reader reads every registered domain. */
  through_sandbox = agents_sandbox_error_get_context (copy);
  g_assert_true (g_variant_equal (through_sandbox, context));
}

static void
test_third_party_context_after_binding_trip (void)
{
  g_autoptr (GError) made = agents_error_new_literal (
    TEST_PLUGIN_ERROR, 2, plugin_context ("images"), "no such bucket");
  /* What a language binding hands back: domain, code and message only. */
  g_autoptr (GError) rebuilt =
    g_error_new_literal (made->domain, made->code, made->message);
  g_autoptr (GVariant) context = NULL;
  g_autoptr (GVariant) by_name = NULL;
  const char *bucket = NULL;

  g_assert_null (agents_error_peek_context (rebuilt));
  context = agents_error_get_context (rebuilt);
  g_assert_true (g_variant_lookup (context, "bucket", "&s", &bucket));
  g_assert_cmpstr (bucket, ==, "images");

  by_name = agents_error_lookup_context ("test-plugin-error-quark", 2,
                                         "no such bucket");
  g_assert_true (g_variant_equal (by_name, context));
}

static void
test_context_replaced_and_emptied (void)
{
  g_autoptr (GError) error =
    agents_error_new (TEST_PLUGIN_ERROR, 1, NULL, "code %d", 1);
  g_autoptr (GVariant) empty = agents_error_get_context (error);
  g_autoptr (GVariant) replaced = NULL;
  g_autoptr (GVariant) run_context = NULL;
  g_autoptr (GError) run_error = NULL;

  g_assert_cmpstr (error->message, ==, "code 1");
  g_assert_cmpuint (g_variant_n_children (empty), ==, 0);

  agents_error_set_context (error, plugin_context ("after"));
  replaced = agents_error_get_context (error);
  g_assert_cmpuint (g_variant_n_children (replaced), ==, 2);

  /* A third-party error is no run error. */
  run_context = agents_run_error_get_context (error);
  g_assert_cmpuint (g_variant_n_children (run_context), ==, 0);

  run_error = agents_run_error_new_literal (AGENTS_RUN_ERROR_FAILED,
                                            plugin_context ("run"), "failed");
  g_clear_pointer (&run_context, g_variant_unref);
  run_context = agents_error_get_context (run_error);
  g_assert_cmpuint (g_variant_n_children (run_context), ==, 2);
}

static void
test_unregistered_domain_reads_empty (void)
{
  g_autoptr (GError) error =
    g_error_new_literal (G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "gone");
  g_autoptr (GVariant) context = agents_error_get_context (error);

  g_assert_false (agents_error_domain_is_registered (G_IO_ERROR));
  g_assert_null (agents_error_peek_context (error));
  g_assert_cmpuint (g_variant_n_children (context), ==, 0);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/sandbox/error/invalid-path",
                   test_invalid_path_message_and_context);
  g_test_add_func ("/sandbox/error/exec-nonzero",
                   test_exec_nonzero_message_and_context);
  g_test_add_func ("/sandbox/error/context-copy-and-lookup",
                   test_context_survives_copy_and_lookup);
  g_test_add_func ("/sandbox/error/foreign-error",
                   test_foreign_error_has_empty_context);

  g_test_add_func ("/error/third-party-domain",
                   test_third_party_domain_context);
  g_test_add_func ("/error/third-party-binding-trip",
                   test_third_party_context_after_binding_trip);
  g_test_add_func ("/error/context-replaced",
                   test_context_replaced_and_emptied);
  g_test_add_func ("/error/unregistered-domain",
                   test_unregistered_domain_reads_empty);

  return g_test_run ();
}
