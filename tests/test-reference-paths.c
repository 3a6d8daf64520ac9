/* test-reference-paths.c - reference cases PATH-*: workspace path policy
 * and extra path grants (../shared/spec/reference-cases.md)
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "agents-sandbox-error-private.h"
#include "test-utils.h"

/* "policy P": root /workspace, which does not exist on the host. */
static AgentsWorkspacePathPolicy *
policy_p (AgentsSandboxPathGrant *grant)
{
  g_autoptr (GError) error = NULL;
  AgentsWorkspacePathPolicy *policy = agents_workspace_path_policy_new (
    "/workspace", grant ? &grant : NULL, grant ? 1 : 0, &error);

  g_assert_no_error (error);
  g_assert_false (
    agents_workspace_path_policy_get_root_is_existing_host_path (policy));
  return policy;
}

/* Asserts an error with exactly the context keys of @keys. */
static void
assert_context_keys (const GError *error, const char *const *keys)
{
  g_autoptr (GVariant) context = agents_sandbox_error_get_context (error);

  g_assert_cmpuint (g_variant_n_children (context), ==,
                    g_strv_length ((char **) keys));
  for (guint i = 0; keys[i] != NULL; i++)
    g_assert_true (g_variant_lookup (context, keys[i], "*", NULL));
}

static void
assert_invalid_path (const GError *error,
                     const char *message,
                     const char *rel,
                     const char *reason)
{
  static const char *const keys[] = { "rel", "reason", NULL };

  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH);
  g_assert_cmpstr (error->message, ==, message);
  agents_test_assert_context_str (error, "rel", rel);
  agents_test_assert_context_str (error, "reason", reason);
  assert_context_keys (error, keys);
}

static void
assert_normalized (AgentsWorkspacePathPolicy *policy,
                   const char *path,
                   const char *expected)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *host = agents_workspace_path_policy_normalize_path (
    policy, path, AGENTS_WORKSPACE_PATH_FLAGS_NONE, &error);
  g_autofree char *sandbox = NULL;

  g_test_message ("normalize “%s”", path);
  g_assert_no_error (error);
  g_assert_cmpstr (host, ==, expected);
  sandbox = agents_workspace_path_policy_normalize_sandbox_path (policy, path,
                                                                 FALSE, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (sandbox, ==, expected);
}

static void
assert_normalize_refused (AgentsWorkspacePathPolicy *policy,
                          const char *path,
                          const char *message,
                          const char *rel,
                          const char *reason)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) sandbox_error = NULL;
  g_autofree char *host = agents_workspace_path_policy_normalize_path (
    policy, path, AGENTS_WORKSPACE_PATH_FLAGS_NONE, &error);
  g_autofree char *sandbox =
    agents_workspace_path_policy_normalize_sandbox_path (policy, path, FALSE,
                                                         &sandbox_error);

  g_test_message ("refuse “%s”", path);
  g_assert_null (host);
  assert_invalid_path (error, message, rel, reason);
  g_assert_null (sandbox);
  assert_invalid_path (sandbox_error, message, rel, reason);
}

/* PATH-02 */
static void
test_absolute_workspace_path (void)
{
  g_autoptr (AgentsWorkspacePathPolicy) policy = policy_p (NULL);
  static const char *const cases[][2] = {
    { "pkg/file.py", "/workspace/pkg/file.py" },
    { "/workspace/pkg/file.py", "/workspace/pkg/file.py" },
    { "/workspace/pkg/../file.py", "/workspace/file.py" },
    { "pkg/../secret.txt", "/workspace/secret.txt" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *path =
        agents_workspace_path_policy_absolute_workspace_path (
          policy, cases[i][0], &error);

      g_assert_no_error (error);
      g_assert_cmpstr (path, ==, cases[i][1]);
    }
}

/* PATH-03: the refusals of absolute-workspace-path, context exactly
 * {rel, reason}, rel as given. */
static void
test_absolute_workspace_path_refusals (void)
{
  g_autoptr (AgentsWorkspacePathPolicy) policy = policy_p (NULL);
  static const char *const refused[][4] = {
    { "/tmp/secret.txt", "manifest path must be relative: /tmp/secret.txt",
      "/tmp/secret.txt", "absolute" },
    { "../secret.txt", "manifest path must not escape root: ../secret.txt",
      "../secret.txt", "escape_root" },
    { "pkg/../../secret.txt",
      "manifest path must not escape root: pkg/../../secret.txt",
      "pkg/../../secret.txt", "escape_root" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *path =
        agents_workspace_path_policy_absolute_workspace_path (
          policy, refused[i][0], &error);

      g_test_message ("refuse “%s”", refused[i][0]);
      g_assert_null (path);
      assert_invalid_path (error, refused[i][1], refused[i][2], refused[i][3]);
    }
}

/* PATH-04 */
static void
test_relative_path (void)
{
  g_autoptr (AgentsWorkspacePathPolicy) policy = policy_p (NULL);
  static const char *const cases[][2] = {
    { "pkg/file.py", "pkg/file.py" },
    { "/workspace/pkg/file.py", "pkg/file.py" },
    { "pkg/../secret.txt", "secret.txt" },
    { "/workspace", "." },
    { "/workspace/a/..", "." },
  };
  static const char *const refused[][4] = {
    { "/", "manifest path must be relative: /", "/", "absolute" },
    { "/tmp/secret.txt", "manifest path must be relative: /tmp/secret.txt",
      "/tmp/secret.txt", "absolute" },
    { "../secret.txt", "manifest path must not escape root: ../secret.txt",
      "../secret.txt", "escape_root" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *rel = agents_workspace_path_policy_relative_path (
        policy, cases[i][0], &error);

      g_assert_no_error (error);
      g_assert_cmpstr (rel, ==, cases[i][1]);
    }
  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *rel = agents_workspace_path_policy_relative_path (
        policy, refused[i][0], &error);

      g_assert_null (rel);
      assert_invalid_path (error, refused[i][1], refused[i][2], refused[i][3]);
    }
}

/* PATH-06 */
static void
test_normalize_path_lexical (void)
{
  g_autoptr (AgentsWorkspacePathPolicy) policy = policy_p (NULL);

  assert_normalized (policy, ".", "/workspace");
  assert_normalized (policy, "", "/workspace");
  assert_normalized (policy, "/workspace/", "/workspace");
  assert_normalized (policy, "a//b/./c", "/workspace/a/b/c");
}

/* PATH-08 */
static void
test_normalize_path_with_symlink_resolution (void)
{
  g_autofree char *made = agents_test_make_tmp_dir ("ref-path08-XXXXXX");
  g_autofree char *tmp = realpath (made, NULL);
  g_autofree char *ws = g_build_filename (tmp, "workspace", NULL);
  g_autofree char *outside = g_build_filename (tmp, "outside", NULL);
  g_autofree char *alias = g_build_filename (tmp, "workspace-alias", NULL);
  g_autofree char *target = g_build_filename (ws, "target.txt", NULL);
  g_autofree char *link = g_build_filename (ws, "link.txt", NULL);
  g_autofree char *outside_link = g_build_filename (ws, "outside-link", NULL);
  g_autofree char *via_alias = g_build_filename (alias, "target.txt", NULL);
  g_autofree char *expected = NULL;
  g_autoptr (AgentsWorkspacePathPolicy) policy = NULL;
  g_autoptr (GError) error = NULL;
  const char *inputs[] = { "target.txt", "nested/../target.txt", "link.txt",
                           via_alias, target };

  agents_test_write_file (target, "hello");
  g_assert_no_errno (g_mkdir (outside, 0755));
  g_assert_no_errno (symlink ("target.txt", link));
  g_assert_no_errno (symlink (outside, outside_link));
  g_assert_no_errno (symlink (ws, alias));
  expected = realpath (target, NULL);

  policy = agents_workspace_path_policy_new (alias, NULL, 0, &error);
  g_assert_no_error (error);
  g_assert_true (
    agents_workspace_path_policy_get_root_is_existing_host_path (policy));
  for (guint i = 0; i < G_N_ELEMENTS (inputs); i++)
    {
      g_autofree char *path = agents_workspace_path_policy_normalize_path (
        policy, inputs[i], AGENTS_WORKSPACE_PATH_RESOLVE_SYMLINKS, &error);

      g_test_message ("normalize “%s”", inputs[i]);
      g_assert_no_error (error);
      g_assert_cmpstr (path, ==, expected);
    }

  /* A link that leads out of the root is refused once resolved. */
  {
    g_autofree char *path = agents_workspace_path_policy_normalize_path (
      policy, "outside-link/x", AGENTS_WORKSPACE_PATH_RESOLVE_SYMLINKS, &error);

    g_assert_null (path);
    assert_invalid_path (error,
                         "manifest path must not escape root: outside-link/x",
                         "outside-link/x", "escape_root");
  }
  agents_test_rm_rf (tmp);
}

/* PATH-10 */
static void
test_windows_style_inputs (void)
{
  g_autoptr (AgentsWorkspacePathPolicy) policy = policy_p (NULL);
  g_autoptr (AgentsWorkspacePathPolicy) backslash_root = NULL;
  g_autofree char *root =
    agents_workspace_path_policy_dup_sandbox_root (policy);
  g_autofree char *other_root = NULL;
  g_autofree char *path = NULL;
  g_autoptr (GError) error = NULL;

  assert_normalized (policy, "\\workspace\\pkg\\file.py",
                     "/workspace/pkg/file.py");
  assert_normalized (policy, "pkg\\file.py", "/workspace/pkg/file.py");
  g_assert_cmpstr (root, ==, "/workspace");

  backslash_root =
    agents_workspace_path_policy_new ("\\workspace", NULL, 0, &error);
  g_assert_no_error (error);
  other_root = agents_workspace_path_policy_dup_sandbox_root (backslash_root);
  g_assert_cmpstr (other_root, ==, "/workspace");

  path = agents_workspace_path_policy_absolute_workspace_path (
    policy, "\\tmp\\secret.txt", &error);
  g_assert_null (path);
  assert_invalid_path (error, "manifest path must be relative: /tmp/secret.txt",
                       "/tmp/secret.txt", "absolute");

  /* A drive path is absolute and never inside a POSIX root. */
  assert_normalize_refused (policy, "C:\\tmp\\evil.txt",
                            "manifest path must be relative: C:/tmp/evil.txt",
                            "C:/tmp/evil.txt", "absolute");
}

/* PATH-12 */
static void
test_inaccessible_root_is_treated_as_remote_path (void)
{
  g_autofree char *tmp = agents_test_make_tmp_dir ("ref-path12-XXXXXX");
  g_autofree char *locked = g_build_filename (tmp, "locked", NULL);
  g_autofree char *root = g_build_filename (locked, "project", NULL);
  g_autofree char *expected = g_build_filename (root, "pkg/file.py", NULL);
  g_autoptr (AgentsWorkspacePathPolicy) policy = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;

  g_assert_no_errno (g_mkdir_with_parents (root, 0755));
  g_assert_no_errno (g_chmod (locked, 0));
  if (geteuid () == 0)
    g_test_message ("running as root: EACCES cannot happen, the root is "
                    "checked as a missing one");
  if (geteuid () == 0)
    agents_test_rm_rf (root);

  policy = agents_workspace_path_policy_new (root, NULL, 0, &error);
  g_assert_no_error (error);
  g_assert_false (
    agents_workspace_path_policy_get_root_is_existing_host_path (policy));
  path = agents_workspace_path_policy_normalize_path (
    policy, "pkg/file.py", AGENTS_WORKSPACE_PATH_FLAGS_NONE, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (path, ==, expected);

  g_chmod (locked, 0755);
  agents_test_rm_rf (tmp);
}

static void
assert_grant_refused (const char *path, const char *message)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsSandboxPathGrant) grant =
    agents_sandbox_path_grant_try_new (path, FALSE, NULL, &error);

  g_test_message ("grant “%s”", path);
  g_assert_null (grant);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==, message);
  agents_test_assert_context_str (error, "field", "path");
}

/* PATH-14 */
static void
test_grant_path_validation (void)
{
  static const char *const normalized[][2] = {
    { "/tmp/", "/tmp" },
    { "/tmp/../var//cache/.", "/var/cache" },
  };

  assert_grant_refused ("C:/tmp", "sandbox path grant path must be POSIX "
                                  "absolute");
  assert_grant_refused ("C:\\tmp", "sandbox path grant path must be POSIX "
                                   "absolute");
  assert_grant_refused ("tmp",
                        "sandbox path grant path must be POSIX absolute");
  assert_grant_refused ("/", "sandbox path grant path must not be filesystem "
                             "root");
  assert_grant_refused ("//", "sandbox path grant path must not be filesystem "
                              "root");
  assert_grant_refused ("/tmp/..", "sandbox path grant path must not be "
                                   "filesystem root");

  /* A grant read from JSON is validated the same way. */
  for (guint i = 0; i < 2; i++)
    {
      static const char *const json[] = { "{\"path\":\"//\"}",
                                          "{\"path\":\"C:\\\\tmp\"}" };
      static const char *const messages[] = {
        "sandbox path grant path must not be filesystem root",
        "sandbox path grant path must be POSIX absolute",
      };
      g_autoptr (GError) error = NULL;
      g_autoptr (JsonNode) node = json_from_string (json[i], &error);
      g_autoptr (AgentsSandboxPathGrant) grant = NULL;

      g_assert_no_error (error);
      grant = agents_sandbox_path_grant_new_from_json (node, &error);
      g_assert_null (grant);
      g_assert_error (error, AGENTS_SANDBOX_ERROR,
                      AGENTS_SANDBOX_ERROR_INVALID_JSON);
      g_assert_cmpstr (error->message, ==, messages[i]);
    }

  for (guint i = 0; i < G_N_ELEMENTS (normalized); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (AgentsSandboxPathGrant) grant =
        agents_sandbox_path_grant_try_new (normalized[i][0], TRUE, "d", &error);

      g_assert_no_error (error);
      g_assert_cmpstr (agents_sandbox_path_grant_get_path (grant), ==,
                       normalized[i][1]);
      g_assert_true (agents_sandbox_path_grant_get_read_only (grant));
    }
}

/* PATH-16 */
static void
test_grant_rules_reject_unvalidated_grants (void)
{
  static const char *const cases[][2] = {
    { "C:/tmp", "sandbox path grant path must be POSIX absolute" },
    { "/", "sandbox path grant path must not be filesystem root" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (AgentsSandboxPathGrant) raw =
        agents_sandbox_path_grant_new (cases[i][0], FALSE, NULL);
      g_autoptr (AgentsWorkspacePathPolicy) policy = policy_p (raw);
      g_autoptr (GError) error = NULL;

      g_assert_false (
        agents_workspace_path_policy_check_extra_path_grants (policy, &error));
      g_assert_error (error, AGENTS_SANDBOX_ERROR,
                      AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
      g_assert_cmpstr (error->message, ==, cases[i][1]);
    }
}

/* PATH-18 */
static void
test_grant_accepts_granted_absolute_path (void)
{
  g_autoptr (AgentsSandboxPathGrant) grant =
    agents_sandbox_path_grant_new ("/tmp", FALSE, NULL);
  g_autoptr (AgentsWorkspacePathPolicy) policy = policy_p (grant);

  assert_normalized (policy, "/tmp/result.txt", "/tmp/result.txt");
  assert_normalize_refused (policy, "/var/result.txt",
                            "manifest path must be relative: /var/result.txt",
                            "/var/result.txt", "absolute");
}

/* PATH-20 */
static void
test_grant_hostile_inputs (void)
{
  g_autoptr (AgentsSandboxPathGrant) grant =
    agents_sandbox_path_grant_new ("/tmp", FALSE, NULL);
  g_autoptr (AgentsWorkspacePathPolicy) policy = policy_p (grant);

  assert_normalize_refused (policy, "/tmpfoo",
                            "manifest path must be relative: /tmpfoo",
                            "/tmpfoo", "absolute");
  assert_normalize_refused (policy, "../tmp/x",
                            "manifest path must not escape root: ../tmp/x",
                            "../tmp/x", "escape_root");
  assert_normalize_refused (
    policy, "/tmp/../etc/passwd",
    "manifest path must be relative: /tmp/../etc/passwd", "/tmp/../etc/passwd",
    "absolute");
  assert_normalized (policy, "/workspace/../tmp/x", "/tmp/x");
}

/* PATH-22 */
static void
test_write_under_resolved_read_only_grant (void)
{
  static const char *const keys[] = { "path", "reason", "grant_path", NULL };
  g_autofree char *made = agents_test_make_tmp_dir ("ref-path22-XXXXXX");
  g_autofree char *tmp = realpath (made, NULL);
  g_autofree char *ws = g_build_filename (tmp, "workspace", NULL);
  g_autofree char *allowed = g_build_filename (tmp, "allowed", NULL);
  g_autofree char *alias = g_build_filename (tmp, "allowed-alias", NULL);
  g_autofree char *cache = g_build_filename (allowed, "cache.db", NULL);
  g_autofree char *message =
    g_strdup_printf ("failed to write archive for path: %s", cache);
  g_autoptr (AgentsSandboxPathGrant) grant = NULL;
  g_autoptr (AgentsWorkspacePathPolicy) policy = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *read = NULL;
  g_autofree char *written = NULL;

  g_assert_no_errno (g_mkdir (ws, 0755));
  g_assert_no_errno (g_mkdir (allowed, 0755));
  g_assert_no_errno (symlink (allowed, alias));
  grant = agents_sandbox_path_grant_try_new (alias, TRUE, NULL, &error);
  g_assert_no_error (error);
  policy = agents_workspace_path_policy_new (ws, &grant, 1, &error);
  g_assert_no_error (error);

  /* Reading through the alias's target is allowed... */
  read = agents_workspace_path_policy_normalize_path (
    policy, cache, AGENTS_WORKSPACE_PATH_RESOLVE_SYMLINKS, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (read, ==, cache);

  /* ...writing is not. */
  written = agents_workspace_path_policy_normalize_path (
    policy, cache,
    AGENTS_WORKSPACE_PATH_RESOLVE_SYMLINKS | AGENTS_WORKSPACE_PATH_FOR_WRITE,
    &error);
  g_assert_null (written);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE);
  g_assert_cmpstr (error->message, ==, message);
  agents_test_assert_context_str (error, "path", cache);
  agents_test_assert_context_str (error, "reason",
                                  "read_only_extra_path_grant");
  agents_test_assert_context_str (error, "grant_path", alias);
  assert_context_keys (error, keys);
  agents_test_rm_rf (tmp);
}

/* PATH-24 */
static void
test_host_path_grant_construction (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsSandboxPathGrant) grant =
    agents_sandbox_path_grant_try_new_full (
      "/mnt/shared-data", "C:/Users/example/shared-data", TRUE, "d", &error);
  g_autoptr (AgentsSandboxPathGrant) spaced = NULL;
  g_autoptr (AgentsSandboxPathGrant) back = NULL;
  g_autoptr (JsonNode) node = NULL;
  g_autofree char *text = NULL;
  static const char *const refused[][2] = {
    { "//server/share", "sandbox path grant host_path does not support UNC or "
                        "device paths" },
    { "\\\\server\\share", "sandbox path grant host_path does not support "
                           "UNC or device paths" },
    { "/srv/../etc", "sandbox path grant host_path must not contain parent "
                     "segments" },
    { "relative/dir", "sandbox path grant host_path must be an absolute host "
                      "path" },
    { "/", "sandbox path grant path must not be filesystem root" },
    { "C:\\", "sandbox path grant path must not be filesystem root" },
  };

  g_assert_no_error (error);
  g_assert_cmpstr (agents_sandbox_path_grant_get_path (grant), ==,
                   "/mnt/shared-data");
  g_assert_cmpstr (agents_sandbox_path_grant_get_host_path (grant), ==,
                   "C:\\Users\\example\\shared-data");
  g_assert_true (agents_sandbox_path_grant_get_read_only (grant));

  node = agents_sandbox_path_grant_to_json (grant);
  text = json_to_string (node, FALSE);
  g_assert_cmpstr (text, ==,
                   "{\"path\":\"/mnt/shared-data\",\"read_only\":true,"
                   "\"description\":\"d\",\"host_path\":"
                   "\"C:\\\\Users\\\\example\\\\shared-data\"}");
  back = agents_sandbox_path_grant_new_from_json (node, &error);
  g_assert_no_error (error);
  g_assert_true (agents_sandbox_path_grant_equal (back, grant));

  spaced = agents_sandbox_path_grant_try_new_full (
    "/mnt/shared", "/srv/shared ", FALSE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (agents_sandbox_path_grant_get_host_path (spaced), ==,
                   "/srv/shared ");

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autoptr (GError) refusal = NULL;
      g_autoptr (AgentsSandboxPathGrant) bad =
        agents_sandbox_path_grant_try_new_full ("/mnt/x", refused[i][0], FALSE,
                                                NULL, &refusal);

      g_test_message ("host_path “%s”", refused[i][0]);
      g_assert_null (bad);
      g_assert_error (refusal, AGENTS_SANDBOX_ERROR,
                      AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
      g_assert_cmpstr (refusal->message, ==, refused[i][1]);
    }
}

/* PATH-26 */
static void
test_host_path_grant_resolution (void)
{
  g_autofree char *made = agents_test_make_tmp_dir ("ref-path26-XXXXXX");
  g_autofree char *tmp = realpath (made, NULL);
  g_autofree char *to_root = g_build_filename (tmp, "to-root", NULL);
  g_autofree char *source = g_build_filename (tmp, "source", NULL);
  g_autofree char *alias = g_build_filename (tmp, "alias", NULL);
  g_autoptr (AgentsSandboxPathGrant) rooted = NULL;
  g_autoptr (AgentsSandboxPathGrant) aliased = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *refused = NULL;
  g_autofree char *resolved = NULL;

  g_assert_no_errno (symlink ("/", to_root));
  g_assert_no_errno (g_mkdir (source, 0755));
  g_assert_no_errno (symlink (source, alias));

  /* (a) a host path that is a link to / */
  rooted = agents_sandbox_path_grant_try_new_full ("/mnt/data", to_root, TRUE,
                                                   NULL, &error);
  g_assert_no_error (error);
  refused = agents_sandbox_path_grant_resolve_host_source (rooted, &error);
  g_assert_null (refused);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==,
                   "sandbox path grant path must not resolve to filesystem "
                   "root");
  g_clear_error (&error);

  /* (b) resolved once: re-pointing the alias changes nothing after. */
  aliased = agents_sandbox_path_grant_try_new_full ("/mnt/data", alias, TRUE,
                                                    NULL, &error);
  g_assert_no_error (error);
  resolved = agents_sandbox_path_grant_resolve_host_source (aliased, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (resolved, ==, source);
  g_assert_no_errno (g_unlink (alias));
  g_assert_no_errno (symlink ("/", alias));
  g_assert_cmpstr (resolved, ==, source);

  agents_test_rm_rf (tmp);
}

/* The session path check goes through the same policy. */
static void
test_manifest_resolve_path_follows_policy (void)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsSandboxPathGrant) grant =
    agents_sandbox_path_grant_new ("/tmp", FALSE, NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *granted = NULL;
  g_autofree char *refused = NULL;
  g_autofree char *backslash = NULL;

  agents_manifest_add_extra_path_grant (manifest, grant);
  granted =
    agents_manifest_resolve_path (manifest, "/workspace/../tmp/x", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (granted, ==, "/tmp/x");
  backslash = agents_manifest_resolve_path (manifest, "pkg\\a.py", &error);
  g_assert_no_error (error);
  /* Sessions keep a backslash as part of a name (conformance suite). */
  g_assert_cmpstr (backslash, ==, "/workspace/pkg\\a.py");
  refused = agents_manifest_resolve_path (manifest, "/etc/passwd", &error);
  g_assert_null (refused);
  assert_invalid_path (error, "manifest path must be relative: /etc/passwd",
                       "/etc/passwd", "absolute");
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/reference-cases/PATH-02", test_absolute_workspace_path);
  g_test_add_func ("/reference-cases/PATH-03",
                   test_absolute_workspace_path_refusals);
  g_test_add_func ("/reference-cases/PATH-04", test_relative_path);
  g_test_add_func ("/reference-cases/PATH-06", test_normalize_path_lexical);
  g_test_add_func ("/reference-cases/PATH-08",
                   test_normalize_path_with_symlink_resolution);
  g_test_add_func ("/reference-cases/PATH-10", test_windows_style_inputs);
  g_test_add_func ("/reference-cases/PATH-12",
                   test_inaccessible_root_is_treated_as_remote_path);
  g_test_add_func ("/reference-cases/PATH-14", test_grant_path_validation);
  g_test_add_func ("/reference-cases/PATH-16",
                   test_grant_rules_reject_unvalidated_grants);
  g_test_add_func ("/reference-cases/PATH-18",
                   test_grant_accepts_granted_absolute_path);
  g_test_add_func ("/reference-cases/PATH-20", test_grant_hostile_inputs);
  g_test_add_func ("/reference-cases/PATH-22",
                   test_write_under_resolved_read_only_grant);
  g_test_add_func ("/reference-cases/PATH-24",
                   test_host_path_grant_construction);
  g_test_add_func ("/reference-cases/PATH-26", test_host_path_grant_resolution);
  g_test_add_func ("/reference-paths/manifest-resolve-path",
                   test_manifest_resolve_path_follows_policy);

  return g_test_run ();
}
