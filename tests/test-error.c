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

  return g_test_run ();
}
