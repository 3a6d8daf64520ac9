/* test-reference-scope.c - reference cases SCOPE-*: the run cwd workspace
 * scope (../shared/spec/reference-cases.md)
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "agents-sandbox-error-private.h"
#include "agents-workspace-scope-private.h"
#include "test-utils.h"

/* SCOPE-02 */
static void
test_renders_model_paths (void)
{
  g_autofree char *cwd = agents_workspace_scope_normalize_cwd ("tasks/a", NULL);
  g_autofree char *plot = NULL;
  g_autofree char *skill = NULL;
  g_autofree char *shared = NULL;
  g_autofree char *absolute = NULL;

  g_assert_cmpstr (cwd, ==, "tasks/a");
  plot = agents_workspace_scope_model_path (cwd, "tasks/a/plot.png");
  g_assert_cmpstr (plot, ==, "plot.png");
  skill = agents_workspace_scope_model_path (cwd, "shared/skill/SKILL.md");
  g_assert_cmpstr (skill, ==, "../../shared/skill/SKILL.md");
  shared =
    agents_workspace_scope_display_path ("../shared.txt", "tasks/shared.txt");
  g_assert_cmpstr (shared, ==, "../shared.txt");
  absolute =
    agents_workspace_scope_display_path ("/workspace/shared.txt", "shared.txt");
  g_assert_cmpstr (absolute, ==, "shared.txt");
}

static void
assert_refused (char *result, GError *error, const char *fragment)
{
  g_test_message ("expecting “%s”", fragment);
  g_assert_null (result);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, fragment));
}

/* SCOPE-04 */
static void
test_rejects_invalid_resource_paths (void)
{
  static const char *const cases[][2] = {
    { "/workspace/.agents/my-skill", "must be workspace-relative" },
    { "../my-skill", "must be workspace-relative" },
    { "C:/skills/my-skill", "must be workspace-relative" },
    { ".agents\\my-skill", "must use POSIX path separators" },
    { "", "must be non-empty" },
  };
  static const char *const roots[] = { "\\workspace", "workspace" };
  g_autofree char *good = NULL;
  g_autoptr (GError) error = NULL;

  good = agents_workspace_scope_resource_path ("/workspace", ".agents/my-skill",
                                               &error);
  g_assert_no_error (error);
  g_assert_cmpstr (good, ==, "/workspace/.agents/my-skill");
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      char *path = agents_workspace_scope_resource_path ("/workspace",
                                                         cases[i][0], &error);

      assert_refused (path, error, cases[i][1]);
      g_clear_error (&error);
    }
  for (guint i = 0; i < G_N_ELEMENTS (roots); i++)
    {
      char *path =
        agents_workspace_scope_resource_path (roots[i], "my-skill", &error);

      assert_refused (path, error,
                      "sandbox workspace root must be POSIX absolute");
      g_clear_error (&error);
    }
}

/* SCOPE-06 */
static void
test_normalize_cwd_rejects_invalid_values (void)
{
  static const char *const cases[][2] = {
    { "", "sandbox.cwd must be non-empty" },
    { "/workspace/tasks/a", "sandbox.cwd must be workspace-relative" },
    { "tasks/../a", "sandbox.cwd must not contain parent segments" },
    { "tasks\\a", "sandbox.cwd must use POSIX path separators" },
    { "C:/tasks/a", "sandbox.cwd must be workspace-relative" },
  };
  g_autoptr (GError) error = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      char *cwd = agents_workspace_scope_normalize_cwd (cases[i][0], &error);

      assert_refused (cwd, error, cases[i][1]);
      g_assert_cmpstr (error->message, ==, cases[i][1]);
      g_clear_error (&error);
    }
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/reference-cases/SCOPE-02", test_renders_model_paths);
  g_test_add_func ("/reference-cases/SCOPE-04",
                   test_rejects_invalid_resource_paths);
  g_test_add_func ("/reference-cases/SCOPE-06",
                   test_normalize_cwd_rejects_invalid_values);

  return g_test_run ();
}
