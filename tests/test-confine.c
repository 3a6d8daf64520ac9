/* test-confine.c - confinement of unix_local commands
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "agents-unix-local-confine.h"
#include "test-utils.h"

#define PYTHON "/usr/bin/python3"

/* ---- helpers -------------------------------------------------------- */

static gboolean
lines_contain (const char *text, const char *line)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);

  return g_strv_contains ((const char *const *) lines, line);
}

static int
line_index (const char *text, const char *line)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);

  for (int i = 0; lines[i] != NULL; i++)
    if (g_str_equal (lines[i], line))
      return i;
  return -1;
}

/* The index of the first occurrence of the sequence @seq in @argv. */
static int
argv_find (char *const *argv, const char *first, ...)
{
  g_autoptr (GPtrArray) seq = g_ptr_array_new ();
  const char *arg;
  va_list ap;

  g_ptr_array_add (seq, (gpointer) first);
  va_start (ap, first);
  while ((arg = va_arg (ap, const char *)) != NULL)
    g_ptr_array_add (seq, (gpointer) arg);
  va_end (ap);

  for (int i = 0; argv[i] != NULL; i++)
    {
      guint j;

      for (j = 0; j < seq->len && argv[i + j] != NULL; j++)
        if (!g_str_equal (argv[i + j], g_ptr_array_index (seq, j)))
          break;
      if (j == seq->len)
        return i;
    }
  return -1;
}

static void
add_grant (AgentsManifest *manifest, const char *path, gboolean read_only)
{
  g_autoptr (AgentsSandboxPathGrant) grant =
    agents_sandbox_path_grant_new (path, read_only, NULL);

  agents_manifest_add_extra_path_grant (manifest, grant);
}

static AgentsManifest *
manifest_with_root (const char *root)
{
  AgentsManifest *manifest = agents_manifest_new ();

  agents_manifest_set_root (manifest, root);
  return manifest;
}

/* ---- the reference's darwin tests ----------------------------------- */

typedef struct
{
  const char *path_env;
} FakeWhich;

static char *
fake_which (const char *name, const char *path, gpointer user_data)
{
  FakeWhich *fake = user_data;

  if (g_str_equal (name, "sandbox-exec"))
    return g_strdup ("/usr/bin/sandbox-exec");
  if (g_str_equal (name, "python3"))
    {
      g_assert_cmpstr (path, ==, fake->path_env);
      return g_strdup ("/opt/homebrew/bin/python3");
    }
  return NULL;
}

static void
test_confined_exec_command_allows_common_darwin_interpreter_roots (void)
{
  g_autofree char *workspace_root =
    agents_test_make_tmp_dir ("unix-local-exec-");
  g_autoptr (AgentsManifest) manifest = manifest_with_root (workspace_root);
  g_autoptr (GPtrArray) grants = NULL;
  const char *host_home = g_get_home_dir ();
  g_autofree char *local_bin =
    g_build_filename (host_home, ".local", "bin", NULL);
  g_autofree char *path_env =
    g_strjoin (G_SEARCHPATH_SEPARATOR_S, "/opt/homebrew/bin", "/usr/local/bin",
               local_bin, NULL);
  FakeWhich fake = { path_env };
  const char *command_parts[] = { "python3", "-V", NULL };
  g_autofree char *home_local = g_build_filename (host_home, ".local", NULL);
  g_autofree char *home_local_read = g_strdup_printf (
    "(allow file-read-data file-read-metadata (subpath \"%s\"))", home_local);
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) command = NULL;
  const char *profile;

  grants = agents_unix_local_darwin_extra_path_grant_roots (manifest, &error);
  g_assert_no_error (error);
  command = agents_unix_local_confined_exec_command (
    "darwin", fake_which, &fake, command_parts, workspace_root, grants,
    path_env, FALSE, &error);
  g_assert_no_error (error);
  profile = command[2];

  g_assert_cmpstr (command[0], ==, "/usr/bin/sandbox-exec");
  g_assert_cmpstr (command[1], ==, "-p");
  g_assert_nonnull (strstr (profile, "(allow file-read-data file-read-metadata "
                                     "(subpath \"/opt/homebrew\"))"));
  g_assert_nonnull (strstr (profile, "(allow file-read-data file-read-metadata "
                                     "(subpath \"/usr/local\"))"));
  g_assert_nonnull (strstr (profile, home_local_read));
  g_assert_nonnull (strstr (profile, "(deny file-write* (subpath \"/opt\"))"));
  g_assert_null (
    strstr (profile, "(allow file-write* (subpath \"/opt/homebrew\"))"));

  agents_test_rm_rf (workspace_root);
}

static void
test_darwin_exec_profile_allows_extra_path_grants (void)
{
  g_autofree char *tmp_path = agents_test_make_tmp_dir ("confine-");
  g_autofree char *workspace_root =
    g_build_filename (tmp_path, "workspace", NULL);
  g_autofree char *read_write_root =
    g_build_filename (tmp_path, "read-write", NULL);
  g_autofree char *read_only_root =
    g_build_filename (tmp_path, "read-only", NULL);
  g_autoptr (AgentsManifest) manifest = NULL;
  g_autoptr (GPtrArray) grants = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *profile = NULL;
  g_autofree char *rw_read = NULL, *rw_write = NULL;
  g_autofree char *ro_read = NULL, *ro_write = NULL;

  g_assert_cmpint (g_mkdir (workspace_root, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (read_write_root, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (read_only_root, 0755), ==, 0);
  manifest = manifest_with_root (workspace_root);
  add_grant (manifest, read_write_root, FALSE);
  add_grant (manifest, read_only_root, TRUE);

  grants = agents_unix_local_darwin_extra_path_grant_roots (manifest, &error);
  g_assert_no_error (error);
  profile =
    agents_unix_local_darwin_exec_profile (workspace_root, grants, NULL, FALSE);

  rw_read = g_strdup_printf (
    "(allow file-read-data file-read-metadata (subpath \"%s\"))",
    read_write_root);
  rw_write =
    g_strdup_printf ("(allow file-write* (subpath \"%s\"))", read_write_root);
  ro_read = g_strdup_printf (
    "(allow file-read-data file-read-metadata (subpath \"%s\"))",
    read_only_root);
  ro_write =
    g_strdup_printf ("(allow file-write* (subpath \"%s\"))", read_only_root);
  g_assert_true (lines_contain (profile, rw_read));
  g_assert_true (lines_contain (profile, rw_write));
  g_assert_true (lines_contain (profile, ro_read));
  g_assert_false (lines_contain (profile, ro_write));

  agents_test_rm_rf (tmp_path);
}

static void
test_darwin_exec_profile_denies_nested_read_only_extra_path_grant (void)
{
  g_autofree char *tmp_path = agents_test_make_tmp_dir ("confine-");
  g_autofree char *workspace_root =
    g_build_filename (tmp_path, "workspace", NULL);
  g_autofree char *read_write_root =
    g_build_filename (tmp_path, "read-write", NULL);
  g_autofree char *read_only_root =
    g_build_filename (read_write_root, "protected", NULL);
  g_autoptr (AgentsManifest) manifest = NULL;
  g_autoptr (GPtrArray) grants = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *profile = NULL;
  g_autofree char *parent_write_allow = NULL;
  g_autofree char *child_write_deny = NULL;
  g_autofree char *child_write_allow = NULL;

  g_assert_cmpint (g_mkdir (workspace_root, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (read_only_root, 0755), ==, 0);
  manifest = manifest_with_root (workspace_root);
  add_grant (manifest, read_write_root, FALSE);
  add_grant (manifest, read_only_root, TRUE);

  grants = agents_unix_local_darwin_extra_path_grant_roots (manifest, &error);
  g_assert_no_error (error);
  profile =
    agents_unix_local_darwin_exec_profile (workspace_root, grants, NULL, FALSE);
  parent_write_allow =
    g_strdup_printf ("(allow file-write* (subpath \"%s\"))", read_write_root);
  child_write_deny =
    g_strdup_printf ("(deny file-write* (subpath \"%s\"))", read_only_root);
  child_write_allow =
    g_strdup_printf ("(allow file-write* (subpath \"%s\"))", read_only_root);

  g_assert_true (lines_contain (profile, parent_write_allow));
  g_assert_true (lines_contain (profile, child_write_deny));
  g_assert_cmpint (line_index (profile, parent_write_allow), <,
                   line_index (profile, child_write_deny));
  g_assert_false (lines_contain (profile, child_write_allow));

  agents_test_rm_rf (tmp_path);
}

static void
test_darwin_exec_profile_rejects_extra_path_grant_symlink_to_root (void)
{
  g_autofree char *tmp_path = agents_test_make_tmp_dir ("confine-");
  g_autofree char *workspace_root =
    g_build_filename (tmp_path, "workspace", NULL);
  g_autofree char *root_alias = g_build_filename (tmp_path, "root-alias", NULL);
  g_autoptr (AgentsManifest) manifest = NULL;
  g_autoptr (GPtrArray) grants = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (g_mkdir (workspace_root, 0755), ==, 0);
  g_assert_cmpint (symlink ("/", root_alias), ==, 0);
  manifest = manifest_with_root (workspace_root);
  add_grant (manifest, root_alias, FALSE);

  grants = agents_unix_local_darwin_extra_path_grant_roots (manifest, &error);

  g_assert_null (grants);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==,
                   "sandbox path grant path must not resolve to filesystem "
                   "root");

  agents_test_rm_rf (tmp_path);
}

/* ---- bubblewrap argv ------------------------------------------------ */

static AgentsUnixLocalPolicy *
policy_for (const char *root, gboolean network)
{
  return agents_unix_local_policy_new (root, NULL, network);
}

static void
add_policy_grant (AgentsUnixLocalPolicy *policy,
                  const char *path,
                  gboolean read_only)
{
  AgentsUnixLocalGrant *grant = g_new0 (AgentsUnixLocalGrant, 1);

  grant->path = g_strdup (path);
  grant->read_only = read_only;
  g_ptr_array_add (policy->grants, grant);
}

static void
test_bwrap_argv_layout (void)
{
  g_autofree char *root = agents_test_make_tmp_dir ("unix-local-exec-");
  g_autoptr (AgentsUnixLocalPolicy) policy = policy_for (root, FALSE);
  const char *command[] = { "sh", "-c", "echo hi", NULL };
  g_auto (GStrv) argv =
    agents_unix_local_bwrap_argv (policy, "/usr/bin/bwrap", command);
  g_autofree char *parent = g_path_get_dirname (policy->workspace_root);
  int end = argv_find (argv, "--", "sh", "-c", "echo hi", NULL);

  g_assert_cmpstr (argv[0], ==, "/usr/bin/bwrap");
  g_assert_cmpint (argv_find (argv, "--die-with-parent", NULL), >, 0);
  g_assert_cmpint (argv_find (argv, "--new-session", NULL), >, 0);
  g_assert_cmpint (argv_find (argv, "--unshare-all", NULL), >, 0);
  g_assert_cmpint (argv_find (argv, "--share-net", NULL), <, 0);
  g_assert_cmpint (argv_find (argv, "--cap-drop", "ALL", NULL), >, 0);
  g_assert_cmpint (argv_find (argv, "--ro-bind", "/usr", "/usr", NULL), >, 0);
  g_assert_cmpint (argv_find (argv, "--proc", "/proc", NULL), >, 0);
  g_assert_cmpint (argv_find (argv, "--dev", "/dev", NULL), >, 0);
  g_assert_cmpint (argv_find (argv, "--bind", policy->workspace_root,
                              policy->workspace_root, NULL),
                   >, 0);
  g_assert_cmpint (argv_find (argv, "--chdir", policy->workspace_root, NULL), >,
                   0);

  /* The workspace lies in /tmp: /tmp is a read-only directory and the
   * private temp dir moves to /var/tmp. */
  g_assert_cmpstr (agents_unix_local_bwrap_tmp_dir (policy), ==, "/var/tmp");
  g_assert_cmpint (argv_find (argv, "--perms", "0555", "--dir", parent, NULL),
                   >, 0);
  g_assert_cmpint (argv_find (argv, "--perms", "0555", "--dir", parent, NULL),
                   <, argv_find (argv, "--bind", policy->workspace_root, NULL));
  g_assert_cmpint (argv_find (argv, "--tmpfs", "/var/tmp", NULL), >, 0);
  g_assert_cmpint (argv_find (argv, "--tmpfs", "/tmp", NULL), <, 0);
  g_assert_cmpint (argv_find (argv, "--remount-ro", "/", NULL), ==, end - 2);

  if (g_file_test ("/etc/shadow", G_FILE_TEST_IS_REGULAR) &&
      !g_file_test ("/etc/shadow", G_FILE_TEST_IS_SYMLINK))
    g_assert_cmpint (
      argv_find (argv, "--ro-bind", "/dev/null", "/etc/shadow", NULL), >, 0);
  if (g_file_test ("/etc/ssh", G_FILE_TEST_IS_DIR) &&
      !g_file_test ("/etc/ssh", G_FILE_TEST_IS_SYMLINK))
    g_assert_cmpint (
      argv_find (argv, "--tmpfs", "/etc/ssh", "--remount-ro", "/etc/ssh", NULL),
      >, 0);

  agents_test_rm_rf (root);
}

/* A command on a PTY keeps no --new-session and is started by setsid -c
 * when the probe found it: the PTY is then its terminal in the sandbox. */
static void
test_bwrap_argv_pty (void)
{
  g_autoptr (AgentsUnixLocalPolicy) policy = policy_for ("/srv/ws", FALSE);
  const char *command[] = { "sh", "-i", NULL };
  g_auto (GStrv) plain = NULL;
  g_auto (GStrv) helped = NULL;
  int end;

  policy->tty_fd = 0;
  plain = agents_unix_local_bwrap_argv (policy, "bwrap", command);
  g_assert_cmpint (argv_find (plain, "--new-session", NULL), <, 0);
  g_assert_cmpint (argv_find (plain, "--", "sh", "-i", NULL), >, 0);
  g_assert_null (plain[argv_find (plain, "--", "sh", "-i", NULL) + 3]);

  helped = agents_unix_local_bwrap_argv_full (policy, "bwrap",
                                              "/usr/bin/setsid", command);
  g_assert_cmpint (argv_find (helped, "--new-session", NULL), <, 0);
  end =
    argv_find (helped, "--", "/usr/bin/setsid", "-c", "--", "sh", "-i", NULL);
  g_assert_cmpint (end, >, 0);
  g_assert_null (helped[end + 6]);
  policy->tty_fd = -1;
}

static void
test_bwrap_argv_network_and_grants (void)
{
  g_autoptr (AgentsUnixLocalPolicy) policy = policy_for ("/srv/ws", TRUE);
  const char *command[] = { "true", NULL };
  g_auto (GStrv) argv = NULL;
  int parent, child;

  add_policy_grant (policy, "/srv/data", FALSE);
  add_policy_grant (policy, "/srv/data/protected", TRUE);
  argv = agents_unix_local_bwrap_argv (policy, "bwrap", command);

  g_assert_cmpint (argv_find (argv, "--unshare-all", "--share-net", NULL), >,
                   0);
  g_assert_cmpstr (agents_unix_local_bwrap_tmp_dir (policy), ==, "/tmp");
  g_assert_cmpint (argv_find (argv, "--tmpfs", "/tmp", NULL), >, 0);
  g_assert_cmpint (argv_find (argv, "--perms", "0555", "--dir", "/srv", NULL),
                   >, 0);
  /* A read-only grant nested in a writable one is bound after it. */
  parent = argv_find (argv, "--bind-try", "/srv/data", "/srv/data", NULL);
  child = argv_find (argv, "--ro-bind-try", "/srv/data/protected",
                     "/srv/data/protected", NULL);
  g_assert_cmpint (parent, >, 0);
  g_assert_cmpint (child, >, parent);
  /* No directory is made inside a bound tree. */
  g_assert_cmpint (argv_find (argv, "--dir", "/srv/data", NULL), <, 0);
}

static void
test_environ (void)
{
  g_autoptr (AgentsUnixLocalPolicy) policy = policy_for ("/srv/ws", FALSE);
  g_auto (GStrv) envp = NULL;

  g_hash_table_insert (policy->env, g_strdup ("FOO"), g_strdup ("bar"));
  g_hash_table_insert (policy->env, g_strdup ("PAGER"), g_strdup ("less"));
  g_hash_table_insert (policy->env, g_strdup ("BAD=NAME"), g_strdup ("x"));
  envp = agents_unix_local_confine_environ (policy, "/var/tmp");

  g_assert_cmpstr (g_environ_getenv (envp, "PATH"), ==,
                   "/usr/local/bin:/usr/bin:/bin");
  g_assert_cmpstr (g_environ_getenv (envp, "HOME"), ==, "/srv/ws");
  g_assert_cmpstr (g_environ_getenv (envp, "TMPDIR"), ==, "/var/tmp");
  g_assert_cmpstr (g_environ_getenv (envp, "LANG"), ==, "C.UTF-8");
  g_assert_cmpstr (g_environ_getenv (envp, "TERM"), ==, "dumb");
  g_assert_cmpstr (g_environ_getenv (envp, "GIT_PAGER"), ==, "cat");
  g_assert_cmpstr (g_environ_getenv (envp, "GIT_TERMINAL_PROMPT"), ==, "0");
  g_assert_cmpstr (g_environ_getenv (envp, "DEBIAN_FRONTEND"), ==,
                   "noninteractive");
  g_assert_cmpstr (g_environ_getenv (envp, "FOO"), ==, "bar");
  g_assert_cmpstr (g_environ_getenv (envp, "PAGER"), ==, "less");
  g_assert_null (g_environ_getenv (envp, "BAD"));
}

static void
test_resolve_path (void)
{
  g_autofree char *tmp = agents_test_make_tmp_dir ("confine-");
  g_autofree char *link = g_build_filename (tmp, "link", NULL);
  g_autofree char *missing =
    g_build_filename (tmp, "link", "a", "..", "b", NULL);
  g_autofree char *real_tmp = realpath (tmp, NULL);
  g_autofree char *resolved = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *nested = g_build_filename (tmp, "x", "y", NULL);

  g_assert_cmpint (symlink ("/usr", link), ==, 0);
  resolved = agents_unix_local_resolve_path (link);
  g_assert_cmpstr (resolved, ==, "/usr");
  g_clear_pointer (&resolved, g_free);

  resolved = agents_unix_local_resolve_path (missing);
  g_assert_cmpstr (resolved, ==, "/usr/b");
  g_clear_pointer (&resolved, g_free);

  expected = g_build_filename (real_tmp, "x", "y", NULL);
  resolved = agents_unix_local_resolve_path (nested);
  g_assert_cmpstr (resolved, ==, expected);

  agents_test_rm_rf (tmp);
}

/* ---- probing -------------------------------------------------------- */

static char *
which_nothing (const char *name, const char *path, gpointer user_data)
{
  return NULL;
}

static void
assert_unavailable (GError *error)
{
  g_autoptr (GVariant) ctx = NULL;
  const char *reason = NULL;

  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_EXEC_TRANSPORT);
  ctx = agents_sandbox_error_get_context (error);
  g_assert_true (g_variant_lookup (ctx, "reason", "&s", &reason));
  g_assert_cmpstr (reason, ==, AGENTS_UNIX_LOCAL_CONFINEMENT_UNAVAILABLE);
}

static void
test_probe_unavailable_on_darwin_without_sandbox_exec (void)
{
  AgentsUnixLocalProbeOverride override = { "darwin", which_nothing, NULL, -1 };
  const char *argv[] = { "pwd", NULL };
  AgentsUnixLocalConfinement selected;
  g_autoptr (GError) error = NULL;

  agents_unix_local_confine_set_probe_override (&override);
  g_assert_false (agents_unix_local_confine_select (
    agents_unix_local_confine_probe (), AGENTS_UNIX_LOCAL_CONFINEMENT_AUTO,
    argv, &selected, &error));
  assert_unavailable (error);
  g_assert_nonnull (strstr (error->message, "sandbox-exec"));
  agents_unix_local_confine_set_probe_override (NULL);
}

static void
test_probe_unavailable_on_linux (void)
{
  AgentsUnixLocalProbeOverride override = { "linux", which_nothing, NULL, 0 };
  const char *argv[] = { "pwd", NULL };
  AgentsUnixLocalConfinement selected;
  const AgentsUnixLocalProbe *probe;
  g_autoptr (GError) error = NULL;

  agents_unix_local_confine_set_probe_override (&override);
  probe = agents_unix_local_confine_probe ();
  g_assert_null (probe->bwrap_path);

  g_assert_false (agents_unix_local_confine_select (
    probe, AGENTS_UNIX_LOCAL_CONFINEMENT_AUTO, argv, &selected, &error));
  assert_unavailable (error);
  g_assert_nonnull (strstr (error->message, "bwrap: not found in PATH"));
  g_assert_nonnull (strstr (error->message, "landlock"));
  g_clear_error (&error);

  g_assert_false (agents_unix_local_confine_select (
    probe, AGENTS_UNIX_LOCAL_CONFINEMENT_LANDLOCK, argv, &selected, &error));
  assert_unavailable (error);
  g_clear_error (&error);

  /* Opting out always works. */
  g_assert_true (agents_unix_local_confine_select (
    probe, AGENTS_UNIX_LOCAL_CONFINEMENT_NONE, argv, &selected, &error));
  g_assert_no_error (error);
  g_assert_cmpint (selected, ==, AGENTS_UNIX_LOCAL_CONFINEMENT_NONE);

  agents_unix_local_confine_set_probe_override (NULL);
}

static void
test_probe_real (void)
{
  const AgentsUnixLocalProbe *probe = agents_unix_local_confine_probe ();

  g_test_message ("platform %s; bwrap: %s; landlock ABI %d: %s",
                  probe->platform,
                  probe->bwrap_path ? probe->bwrap_path : probe->bwrap_error,
                  probe->landlock_abi,
                  probe->landlock_error ? probe->landlock_error : "usable");
  g_assert_cmpstr (probe->platform, ==, "linux");
  /* The same result comes back without probing again. */
  g_assert_true (probe == agents_unix_local_confine_probe ());
  if (probe->bwrap_path == NULL && probe->landlock_error != NULL)
    g_test_skip ("no confinement mechanism works on this machine");
}

static void
test_confinement_names (void)
{
  AgentsUnixLocalConfinement confinement;
  g_autoptr (GError) error = NULL;

  g_assert_true (agents_unix_local_confinement_from_string (
    "landlock", &confinement, &error));
  g_assert_cmpint (confinement, ==, AGENTS_UNIX_LOCAL_CONFINEMENT_LANDLOCK);
  g_assert_false (
    agents_unix_local_confinement_from_string ("chroot", &confinement, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
}

/* ---- real confinement ----------------------------------------------- */

typedef struct
{
  AgentsUnixLocalConfinement mechanism;
  char *tmp;  /* holds the workspace and its siblings */
  char *root; /* the workspace */
  char *host_tmp;
} Confined;

static gboolean
mechanism_available (AgentsUnixLocalConfinement mechanism)
{
  const AgentsUnixLocalProbe *probe = agents_unix_local_confine_probe ();

  if (mechanism == AGENTS_UNIX_LOCAL_CONFINEMENT_BWRAP)
    return probe->bwrap_path != NULL;
  return probe->landlock_abi > 0 && probe->landlock_error == NULL;
}

static void
confined_setup (Confined *fixture, gconstpointer data)
{
  fixture->mechanism = GPOINTER_TO_INT (data);
  fixture->tmp = agents_test_make_tmp_dir ("unix-local-exec-");
  fixture->root = g_build_filename (fixture->tmp, "ws", NULL);
  fixture->host_tmp = g_build_filename (fixture->tmp, "private-tmp", NULL);
  g_assert_cmpint (g_mkdir (fixture->root, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (fixture->host_tmp, 0700), ==, 0);
}

static void
confined_teardown (Confined *fixture, gconstpointer data)
{
  agents_test_rm_rf (fixture->tmp);
  g_free (fixture->tmp);
  g_free (fixture->root);
  g_free (fixture->host_tmp);
}

static int
run_confined_with (Confined *fixture,
                   AgentsUnixLocalPolicy *policy,
                   const char *script,
                   char **out,
                   char **err)
{
  const char *argv[] = { "sh", "-c", script, NULL };
  g_autoptr (GSubprocess) proc = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *stdout_text = NULL;
  g_autofree char *stderr_text = NULL;

  g_free (policy->host_tmp_dir);
  policy->host_tmp_dir = g_strdup (fixture->host_tmp);
  /* As the session does before a command runs. */
  if (policy->drop_privileges)
    {
      g_auto (GStrv) writable =
        agents_unix_local_policy_writable_paths (policy);

      agents_unix_local_hand_over ((const char *const *) writable,
                                   policy->sandbox_uid, policy->sandbox_gid,
                                   &error);
      g_assert_no_error (error);
    }
  proc =
    agents_unix_local_confine_spawn (agents_unix_local_confine_probe (),
                                     fixture->mechanism, policy, argv, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (proc, NULL, NULL, &stdout_text, &stderr_text,
                                 &error);
  g_assert_no_error (error);
  g_test_message ("%s [%s]: exit %d, stderr: %s",
                  agents_unix_local_confinement_to_string (fixture->mechanism),
                  script, g_subprocess_get_status (proc), stderr_text);
  if (out != NULL)
    *out = g_steal_pointer (&stdout_text);
  if (err != NULL)
    *err = g_steal_pointer (&stderr_text);
  if (g_subprocess_get_if_signaled (proc))
    return 128 + g_subprocess_get_term_sig (proc);
  return g_subprocess_get_exit_status (proc);
}

static int
run_confined (Confined *fixture,
              gboolean network,
              const char *script,
              char **out,
              char **err)
{
  g_autoptr (AgentsUnixLocalPolicy) policy =
    policy_for (fixture->root, network);

  return run_confined_with (fixture, policy, script, out, err);
}

static gboolean
skip_unless_available (Confined *fixture)
{
  if (mechanism_available (fixture->mechanism))
    return FALSE;
  g_test_skip ("this confinement mechanism is not usable here");
  return TRUE;
}

static void
test_confined_workspace (Confined *fixture, gconstpointer data)
{
  g_autofree char *secret_dir = g_build_filename (fixture->tmp, "secret", NULL);
  g_autofree char *secret = g_build_filename (secret_dir, "token.txt", NULL);
  g_autofree char *sibling =
    g_build_filename (fixture->tmp, "escape.txt", NULL);
  g_autofree char *note = g_build_filename (fixture->root, "note.txt", NULL);
  g_autofree char *real_root = realpath (fixture->root, NULL);
  g_autofree char *script = NULL;
  g_autofree char *out = NULL;

  if (skip_unless_available (fixture))
    return;
  agents_test_write_file (secret, "s3cr3t");

  g_assert_cmpint (run_confined (fixture, FALSE,
                                 "echo hi > note.txt && cat note.txt", &out,
                                 NULL),
                   ==, 0);
  g_assert_true (g_str_has_suffix (g_strstrip (out), "hi"));
  g_assert_true (g_file_test (note, G_FILE_TEST_IS_REGULAR));
  g_clear_pointer (&out, g_free);

  g_assert_cmpint (run_confined (fixture, FALSE, "pwd; echo $HOME", &out, NULL),
                   ==, 0);
  script = g_strdup_printf ("%s\n%s\n", real_root, real_root);
  g_assert_cmpstr (out, ==, script);
  g_clear_pointer (&script, g_free);

  script = g_strdup_printf ("cat %s", secret);
  g_assert_cmpint (run_confined (fixture, FALSE, script, NULL, NULL), !=, 0);
  g_clear_pointer (&script, g_free);

  g_assert_cmpint (run_confined (fixture, FALSE,
                                 "echo nope > /usr/local/test-sandbox", NULL,
                                 NULL),
                   !=, 0);
  g_assert_false (g_file_test ("/usr/local/test-sandbox", G_FILE_TEST_EXISTS));

  g_assert_cmpint (
    run_confined (fixture, FALSE, "echo nope > ../escape.txt", NULL, NULL), !=,
    0);
  g_assert_false (g_file_test (sibling, G_FILE_TEST_EXISTS));

  /* The private temp dir is writable. */
  g_assert_cmpint (run_confined (fixture, FALSE,
                                 "echo t > \"$TMPDIR/t\" && cat \"$TMPDIR/t\"",
                                 NULL, NULL),
                   ==, 0);
}

static void
test_confined_system (Confined *fixture, gconstpointer data)
{
  g_autofree char *script = NULL;

  if (skip_unless_available (fixture))
    return;

  /* System directories are readable, secrets and $HOME are not. */
  g_assert_cmpint (run_confined (fixture, FALSE,
                                 "cat /etc/passwd > /dev/null && ls /usr/bin "
                                 "> /dev/null",
                                 NULL, NULL),
                   ==, 0);
  if (g_file_test ("/etc/shadow", G_FILE_TEST_EXISTS))
    g_assert_cmpint (
      run_confined (fixture, FALSE, "cat /etc/shadow", NULL, NULL), !=, 0);
  script = g_strdup_printf ("ls -a %s", g_get_home_dir ());
  if (!g_str_has_prefix (fixture->root, g_get_home_dir ()))
    g_assert_cmpint (run_confined (fixture, FALSE, script, NULL, NULL), !=, 0);
  g_assert_cmpint (
    run_confined (fixture, FALSE, "echo x > /etc/agents-test", NULL, NULL), !=,
    0);
}

/* A TCP listener on 127.0.0.1 cannot be reached without network, and can
 * with it (so the first check is not vacuous); no UDP datagram leaves
 * (192.0.2.1 is TEST-NET-1). */
static void
test_confined_network (Confined *fixture, gconstpointer data)
{
  g_autoptr (GSocketListener) listener = g_socket_listener_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *script = NULL;
  guint16 port;

  if (skip_unless_available (fixture))
    return;
  if (!g_file_test (PYTHON, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("needs " PYTHON);
      return;
    }

  {
    g_autoptr (GInetAddress) lo =
      g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
    g_autoptr (GSocketAddress) address = g_inet_socket_address_new (lo, 0);
    g_autoptr (GSocketAddress) effective = NULL;

    g_socket_listener_add_address (listener, address, G_SOCKET_TYPE_STREAM,
                                   G_SOCKET_PROTOCOL_TCP, NULL, &effective,
                                   &error);
    g_assert_no_error (error);
    port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (effective));
  }

  script = g_strdup_printf (PYTHON " -c \"import socket; "
                                   "socket.create_connection(('127.0.0.1', "
                                   "%u), timeout=5)\"",
                            port);
  g_assert_cmpint (run_confined (fixture, FALSE, script, NULL, NULL), !=, 0);
  g_assert_cmpint (run_confined (fixture, FALSE,
                                 PYTHON " -c \"import socket; "
                                        "socket.socket(socket.AF_INET, "
                                        "socket.SOCK_DGRAM).sendto(b'x', "
                                        "('192.0.2.1', 9))\"",
                                 NULL, NULL),
                   !=, 0);
  g_assert_cmpint (run_confined (fixture, TRUE, script, NULL, NULL), ==, 0);
  g_socket_listener_close (listener);
}

static void
test_confined_pid_namespace (Confined *fixture, gconstpointer data)
{
  g_autofree char *out = NULL;

  if (skip_unless_available (fixture))
    return;
  g_assert_cmpint (run_confined (fixture, FALSE, "echo $$", &out, NULL), ==, 0);
  g_assert_cmpint (atoi (out), <, 10);
}

static int
run_in_grants (Confined *fixture,
               AgentsUnixLocalPolicy *policy,
               const char *command,
               const char *path)
{
  g_autofree char *script = g_strconcat (command, path, NULL);

  return run_confined_with (fixture, policy, script, NULL, NULL);
}

/* A read-only grant nested in a writable one stays read-only. */
static void
test_confined_grants (Confined *fixture, gconstpointer data)
{
  g_autoptr (AgentsUnixLocalPolicy) policy = policy_for (fixture->root, FALSE);
  g_autofree char *rw = g_build_filename (fixture->tmp, "data", NULL);
  g_autofree char *ro = g_build_filename (rw, "protected", NULL);
  g_autofree char *ro_file = g_build_filename (ro, "existing.txt", NULL);
  g_autofree char *ro_new = g_build_filename (ro, "new.txt", NULL);
  g_autofree char *rw_new = g_build_filename (rw, "sub", "new.txt", NULL);
  g_autofree char *rw_top = g_build_filename (rw, "top.txt", NULL);
  g_autofree char *missing = g_build_filename (fixture->tmp, "missing", NULL);
  g_autofree char *keep = g_build_filename (rw, "sub", "keep", NULL);
  int top;

  if (skip_unless_available (fixture))
    return;
  agents_test_write_file (ro_file, "readable");
  agents_test_write_file (keep, "");
  add_policy_grant (policy, rw, FALSE);
  add_policy_grant (policy, ro, TRUE);
  add_policy_grant (policy, missing, FALSE);

  g_assert_cmpint (run_in_grants (fixture, policy, "echo x > ", rw_new), ==, 0);
  g_assert_true (g_file_test (rw_new, G_FILE_TEST_IS_REGULAR));
  g_assert_cmpint (run_in_grants (fixture, policy, "cat ", ro_file), ==, 0);
  g_assert_cmpint (run_in_grants (fixture, policy, "echo x > ", ro_new), !=, 0);
  g_assert_cmpint (run_in_grants (fixture, policy, "echo x >> ", ro_file), !=,
                   0);
  g_assert_false (g_file_test (ro_new, G_FILE_TEST_EXISTS));

  /* Landlock can only carve the hole by leaving the directories above it
   * read-only; bwrap binds the nested grant over the writable one. */
  top = run_in_grants (fixture, policy, "echo x > ", rw_top);
  if (fixture->mechanism == AGENTS_UNIX_LOCAL_CONFINEMENT_BWRAP)
    g_assert_cmpint (top, ==, 0);
}

/* ---- identity, set-id bits, limits --------------------------------- */

static gboolean
skip_unless_root (Confined *fixture)
{
  if (skip_unless_available (fixture))
    return TRUE;
  if (geteuid () == 0)
    return FALSE;
  g_test_skip ("the sandbox identity is only switched for a root caller");
  return TRUE;
}

/* A root caller's command runs as the sandbox uid: a root-only file in a
 * path it can see (a read-only grant) stays unreadable to it. */
static void
test_confined_identity (Confined *fixture, gconstpointer data)
{
  g_autoptr (AgentsUnixLocalPolicy) policy = policy_for (fixture->root, FALSE);
  g_autofree char *shared = g_build_filename (fixture->tmp, "shared", NULL);
  g_autofree char *secret = g_build_filename (shared, "secret.txt", NULL);
  g_autofree char *public = g_build_filename (shared, "public.txt", NULL);
  g_autofree char *out = NULL;
  g_autofree char *expected = NULL;

  if (skip_unless_root (fixture))
    return;
  agents_test_write_file (secret, "root only");
  agents_test_write_file (public, "everyone");
  g_assert_cmpint (chmod (secret, 0600), ==, 0);
  g_assert_cmpint (chmod (public, 0644), ==, 0);
  g_assert_cmpint (chmod (shared, 0755), ==, 0);
  add_policy_grant (policy, shared, TRUE);

  g_assert_cmpint (
    run_confined_with (fixture, policy, "id -u; id -g; id -G", &out, NULL), ==,
    0);
  expected = g_strdup_printf ("%u\n%u\n%u\n", policy->sandbox_uid,
                              policy->sandbox_gid, policy->sandbox_gid);
  g_assert_cmpstr (out, ==, expected);
  g_assert_cmpint (run_in_grants (fixture, policy, "cat ", public), ==, 0);
  g_assert_cmpint (run_in_grants (fixture, policy, "cat ", secret), !=, 0);
  if (g_file_test ("/etc/docker/key.json", G_FILE_TEST_EXISTS))
    g_assert_cmpint (run_confined_with (fixture, policy,
                                        "cat /etc/docker/key.json", NULL, NULL),
                     !=, 0);
}

/* The mount options of the mount at @mount_point in a mountinfo text. */
static char *
mount_options (const char *mountinfo, const char *mount_point)
{
  g_auto (GStrv) lines = g_strsplit (mountinfo, "\n", -1);
  char *found = NULL;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto (GStrv) fields = g_strsplit (lines[i], " ", 7);

      if (g_strv_length (fields) >= 6 && g_str_equal (fields[4], mount_point))
        {
          g_free (found);
          found = g_strdup (fields[5]); /* the last one is on top */
        }
    }
  return found;
}

/* The workspace is nosuid inside; a set-id file a command makes is the
 * sandbox user's, and handing the workspace back clears its bits. */
static void
test_confined_setuid (Confined *fixture, gconstpointer data)
{
  g_autoptr (AgentsUnixLocalPolicy) policy = policy_for (fixture->root, FALSE);
  g_autofree char *real_root = realpath (fixture->root, NULL);
  g_autofree char *made = g_build_filename (fixture->root, "sh-suid", NULL);
  g_autofree char *out = NULL;
  g_autofree char *options = NULL;
  g_auto (GStrv) writable = NULL;
  g_autoptr (GError) error = NULL;
  GStatBuf st;

  if (skip_unless_root (fixture))
    return;
  g_assert_cmpint (run_confined_with (fixture, policy,
                                      "cp /bin/sh sh-suid && chmod 6755 "
                                      "sh-suid && cat /proc/self/mountinfo",
                                      &out, NULL),
                   ==, 0);
  options = mount_options (out, real_root);
  g_assert_nonnull (options);
  g_assert_nonnull (strstr (options, "nosuid"));

  g_assert_cmpint (g_stat (made, &st), ==, 0);
  g_assert_cmpuint (st.st_uid, ==, policy->sandbox_uid);
  writable = agents_unix_local_policy_writable_paths (policy);
  g_assert_true (agents_unix_local_hand_back ((const char *const *) writable,
                                              policy->sandbox_uid, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_stat (made, &st), ==, 0);
  g_assert_cmpuint (st.st_uid, ==, geteuid ());
  g_assert_cmpuint (st.st_mode & 07777, ==, 0755);
  g_assert_cmpint (g_stat (fixture->root, &st), ==, 0);
  g_assert_cmpuint (st.st_uid, ==, geteuid ());
}

/* Processes of @uid whose environment holds @mark: those of one test,
 * whatever else runs as that uid on the host. Only those running
 * @program, when it is given. A process in the middle of an execve()
 * may show no environment for a moment. */
static guint
count_marked_running (guint32 uid, const char *mark, const char *program)
{
  g_autoptr (GDir) dir = g_dir_open ("/proc", 0, NULL);
  const char *name;
  guint n = 0;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename ("/proc", name, NULL);
      g_autofree char *environ_path = g_build_filename (path, "environ", NULL);
      g_autofree char *env = NULL;
      gsize len = 0;
      GStatBuf st;

      if (!g_ascii_isdigit (*name) || g_stat (path, &st) != 0 ||
          st.st_uid != uid ||
          !g_file_get_contents (environ_path, &env, &len, NULL))
        continue;
      if (program != NULL)
        {
          g_autofree char *comm_path = g_build_filename (path, "comm", NULL);
          g_autofree char *comm = NULL;

          if (!g_file_get_contents (comm_path, &comm, NULL, NULL) ||
              !g_str_equal (g_strchomp (comm), program))
            continue;
        }
      for (gsize i = 0; i < len; i += strlen (env + i) + 1)
        if (g_str_equal (env + i, mark))
          {
            n++;
            break;
          }
    }
  return n;
}

static guint
count_marked (guint32 uid, const char *mark)
{
  return count_marked_running (uid, mark, NULL);
}

/* Every process of @uid, zombies included: they count against
 * RLIMIT_NPROC too. */
static guint
count_all_of (guint32 uid)
{
  g_autoptr (GDir) dir = g_dir_open ("/proc", 0, NULL);
  const char *name;
  guint n = 0;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename ("/proc", name, NULL);
      GStatBuf st;

      if (g_ascii_isdigit (*name) && g_stat (path, &st) == 0 &&
          st.st_uid == uid)
        n++;
    }
  return n;
}

static GSubprocess *
spawn_confined (AgentsUnixLocalPolicy *policy,
                Confined *fixture,
                const char *script,
                pid_t *pid)
{
  const char *argv[] = { "sh", "-c", script, NULL };
  g_auto (GStrv) writable = NULL;
  g_autoptr (GError) error = NULL;
  GSubprocess *proc;
  const char *id;

  g_free (policy->host_tmp_dir);
  policy->host_tmp_dir = g_strdup (fixture->host_tmp);
  writable = agents_unix_local_policy_writable_paths (policy);
  agents_unix_local_hand_over ((const char *const *) writable,
                               policy->sandbox_uid, policy->sandbox_gid,
                               &error);
  g_assert_no_error (error);
  proc =
    agents_unix_local_confine_spawn (agents_unix_local_confine_probe (),
                                     fixture->mechanism, policy, argv, &error);
  g_assert_no_error (error);
  /* A command that ended already (and was reaped) has no identifier. */
  id = g_subprocess_get_identifier (proc);
  *pid = id != NULL ? atoi (id) : -1;
  return proc;
}

/* Kills what a command left and waits until none of its processes is
 * left. */
static void
kill_all_of (GSubprocess *proc, pid_t pid, guint32 uid, const char *mark)
{
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;

  while (count_marked (uid, mark) > 0 && g_get_monotonic_time () < deadline)
    {
      if (pid > 0)
        {
          kill (-pid, SIGKILL);
          kill (pid, SIGKILL);
        }
      g_usleep (20 * 1000);
    }
  g_subprocess_wait (proc, NULL, NULL);
  g_assert_cmpuint (count_marked (uid, mark), ==, 0);
}

/* Limit tests run as a uid of this test process's own: RLIMIT_NPROC counts
 * every process of the uid on the host, so tests running side by side as
 * the default sandbox uid would count against each other's limits. */
static AgentsUnixLocalPolicy *
policy_with_private_uid (const char *root)
{
  AgentsUnixLocalPolicy *policy = policy_for (root, FALSE);

  policy->sandbox_uid = 400000 + (guint32) getpid () % 100000;
  policy->sandbox_gid = policy->sandbox_uid;
  return policy;
}

static void
test_confined_process_limit (Confined *fixture, gconstpointer data)
{
  g_autoptr (AgentsUnixLocalPolicy) policy =
    policy_with_private_uid (fixture->root);
  g_autoptr (GSubprocess) proc = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *err = NULL;
  g_autofree char *mark =
    g_strdup_printf ("AGENTS_TEST_MARK=%08x", g_random_int ());
  guint peak = 0;
  int status = -1;
  pid_t pid;

  if (skip_unless_root (fixture))
    return;
  /* The limit counts every process of the uid: others may run too. */
  policy->limits.processes = count_all_of (policy->sandbox_uid) + 24;
  g_hash_table_insert (policy->env, g_strdup ("AGENTS_TEST_MARK"),
                       g_strdup (mark + strlen ("AGENTS_TEST_MARK=")));

  /* 100 sleepers cannot all start. */
  proc = spawn_confined (policy, fixture,
                         "for i in $(seq 100); do sleep 30 >/dev/null 2>&1 & "
                         "done",
                         &pid);
  g_subprocess_communicate_utf8 (proc, NULL, NULL, NULL, &err, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (err, "fork"));
  kill_all_of (proc, pid, policy->sandbox_uid, mark);
  g_clear_object (&proc);

  /* A fork bomb stays under the limit, the host can still fork, and
   * nothing of it survives the kill. */
  policy->limits.processes = count_all_of (policy->sandbox_uid) + 24;
  proc = spawn_confined (policy, fixture, "b() { b | b & }; b; sleep 2", &pid);
  for (int i = 0; i < 20; i++)
    {
      peak = MAX (peak, count_marked (policy->sandbox_uid, mark));
      g_usleep (50 * 1000);
    }
  g_test_message ("fork bomb: at most %u processes", peak);
  g_assert_cmpuint (peak, <=, policy->limits.processes);

  g_assert_true (g_spawn_sync (NULL, (char *[]){ "true", NULL }, NULL,
                               G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL,
                               &status, &error));
  g_assert_no_error (error);
  g_assert_cmpint (status, ==, 0);
  g_clear_pointer (&err, g_free);
  g_subprocess_communicate_utf8 (proc, NULL, NULL, NULL, &err, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (err, "fork")); /* it hit the limit */
  kill_all_of (proc, pid, policy->sandbox_uid, mark);
}

static void
test_confined_memory_limit (Confined *fixture, gconstpointer data)
{
  g_autoptr (AgentsUnixLocalPolicy) policy =
    policy_with_private_uid (fixture->root);
  g_autofree char *err = NULL;
  int status;

  if (skip_unless_available (fixture))
    return;
  policy->limits.memory = 64 << 20;
  /* The string doubles until it no longer fits. */
  status = run_confined_with (fixture, policy,
                              "awk 'BEGIN { s = \"x\"; while (1) s = s s }'",
                              NULL, &err);
  g_assert_cmpint (status, !=, 0);
  /* Something that fits still runs. */
  g_assert_cmpint (run_confined_with (fixture, policy,
                                      "awk 'BEGIN { s = \"x\"; for (i = 0; i "
                                      "< 20; i++) s = s s; print length(s) }'",
                                      NULL, NULL),
                   ==, 0);
}

/* A command's cgroup has its limits, catches what escapes its process
 * group (setsid), and takes it all down when freed. */
static void
test_confined_cgroup (Confined *fixture, gconstpointer data)
{
  g_autoptr (AgentsUnixLocalPolicy) policy =
    policy_with_private_uid (fixture->root);
  g_autofree char *mark =
    g_strdup_printf ("AGENTS_TEST_MARK=%08x", g_random_int ());
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocess) proc = NULL;
  AgentsUnixLocalCgroup *cgroup;
  const char *const *paths;
  g_autofree char *pids_max = NULL;
  g_autofree char *max_path = NULL;
  gint64 deadline;
  pid_t pid;

  if (skip_unless_root (fixture))
    return;
  policy->limits.processes = 33;
  cgroup = agents_unix_local_cgroup_new (&policy->limits, &error);
  if (cgroup == NULL)
    {
      g_test_skip_printf ("no cgroup here: %s", error->message);
      return;
    }
  paths = agents_unix_local_cgroup_get_paths (cgroup);
  g_assert_nonnull (paths[0]);
  max_path = g_build_filename (paths[0], "pids.max", NULL);
  g_assert_true (g_file_get_contents (max_path, &pids_max, NULL, NULL));
  g_assert_cmpstr (g_strstrip (pids_max), ==, "33");

  policy->cgroup = cgroup;
  g_hash_table_insert (policy->env, g_strdup ("AGENTS_TEST_MARK"),
                       g_strdup (mark + strlen ("AGENTS_TEST_MARK=")));
  proc = spawn_confined (
    policy, fixture,
    "setsid sleep 30 >/dev/null 2>&1 < /dev/null & sleep 30 >/dev/null 2>&1 &",
    &pid);
  g_subprocess_wait (proc, NULL, NULL);
  /* A loaded machine may take seconds to fork and exec both; until the
   * two run sleep, a count may catch one of them inside an execve(). */
  deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  while (count_marked_running (policy->sandbox_uid, mark, "sleep") < 2 &&
         g_get_monotonic_time () < deadline)
    g_usleep (10 * 1000);
  if (fixture->mechanism == AGENTS_UNIX_LOCAL_CONFINEMENT_LANDLOCK)
    {
      g_assert_cmpuint (
        count_marked_running (policy->sandbox_uid, mark, "sleep"), ==, 2);
      g_assert_cmpuint (count_marked (policy->sandbox_uid, mark), ==, 2);
    }

  agents_unix_local_cgroup_free (cgroup);
  deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  while (count_marked (policy->sandbox_uid, mark) > 0 &&
         g_get_monotonic_time () < deadline)
    g_usleep (10 * 1000);
  g_assert_cmpuint (count_marked (policy->sandbox_uid, mark), ==, 0);
  g_assert_false (g_file_test (max_path, G_FILE_TEST_EXISTS));
}

static void
add_confined_test (const char *name,
                   AgentsUnixLocalConfinement mechanism,
                   void (*func) (Confined *, gconstpointer))
{
  g_autofree char *path =
    g_strdup_printf ("/sandbox/unix-local/confine/%s/%s", name,
                     agents_unix_local_confinement_to_string (mechanism));

  g_test_add (path, Confined, GINT_TO_POINTER (mechanism), confined_setup, func,
              confined_teardown);
}

int
main (int argc, char *argv[])
{
  const AgentsUnixLocalConfinement mechanisms[] = {
    AGENTS_UNIX_LOCAL_CONFINEMENT_BWRAP,
    AGENTS_UNIX_LOCAL_CONFINEMENT_LANDLOCK,
  };

  g_test_init (&argc, &argv, NULL);
  /* The backend is linked in statically: loading the plugin modules too
   * would register its types twice. */
  g_unsetenv ("AGENTS_PLUGIN_PATH");

  g_test_add_func (
    "/sandbox/unix-local/unix_local_confined_exec_command_"
    "allows_common_darwin_interpreter_roots",
    test_confined_exec_command_allows_common_darwin_interpreter_roots);
  g_test_add_func ("/sandbox/unix-local/unix_local_darwin_exec_profile_"
                   "allows_extra_path_grants",
                   test_darwin_exec_profile_allows_extra_path_grants);
  g_test_add_func (
    "/sandbox/unix-local/unix_local_darwin_exec_profile_"
    "denies_nested_read_only_extra_path_grant",
    test_darwin_exec_profile_denies_nested_read_only_extra_path_grant);
  g_test_add_func (
    "/sandbox/unix-local/unix_local_darwin_exec_profile_"
    "rejects_extra_path_grant_symlink_to_root",
    test_darwin_exec_profile_rejects_extra_path_grant_symlink_to_root);

  g_test_add_func ("/sandbox/unix-local/confine/bwrap-argv-pty",
                   test_bwrap_argv_pty);
  g_test_add_func ("/sandbox/unix-local/confine/bwrap-argv-layout",
                   test_bwrap_argv_layout);
  g_test_add_func ("/sandbox/unix-local/confine/bwrap-argv-network-and-grants",
                   test_bwrap_argv_network_and_grants);
  g_test_add_func ("/sandbox/unix-local/confine/environ", test_environ);
  g_test_add_func ("/sandbox/unix-local/confine/resolve-path",
                   test_resolve_path);
  g_test_add_func ("/sandbox/unix-local/confine/names", test_confinement_names);
  g_test_add_func ("/sandbox/unix-local/confine/probe-darwin-unavailable",
                   test_probe_unavailable_on_darwin_without_sandbox_exec);
  g_test_add_func ("/sandbox/unix-local/confine/probe-linux-unavailable",
                   test_probe_unavailable_on_linux);
  g_test_add_func ("/sandbox/unix-local/confine/probe", test_probe_real);

  for (guint i = 0; i < G_N_ELEMENTS (mechanisms); i++)
    {
      add_confined_test ("workspace", mechanisms[i], test_confined_workspace);
      add_confined_test ("system", mechanisms[i], test_confined_system);
      add_confined_test ("network", mechanisms[i], test_confined_network);
      add_confined_test ("grants", mechanisms[i], test_confined_grants);
      add_confined_test ("identity", mechanisms[i], test_confined_identity);
      add_confined_test ("setuid", mechanisms[i], test_confined_setuid);
      add_confined_test ("process-limit", mechanisms[i],
                         test_confined_process_limit);
      add_confined_test ("memory-limit", mechanisms[i],
                         test_confined_memory_limit);
      add_confined_test ("cgroup", mechanisms[i], test_confined_cgroup);
    }
  add_confined_test ("pid-namespace", AGENTS_UNIX_LOCAL_CONFINEMENT_BWRAP,
                     test_confined_pid_namespace);

  return g_test_run ();
}
