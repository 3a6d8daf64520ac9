/* test-types.c - the small value types of the sandbox
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "agents-sandbox-error-private.h"
#include "test-utils.h"

static JsonNode *
parse_json (const char *text)
{
  g_autoptr (GError) error = NULL;
  JsonNode *node = json_from_string (text, &error);

  g_assert_no_error (error);
  return node;
}

static char *
node_to_string (JsonNode *node)
{
  return json_to_string (node, FALSE);
}

/* ---- reference port -------------------------------------------------- */

static void
test_sandbox_package_exports_permission_types (void)
{
  g_autoptr (AgentsUser) user = agents_user_new ("sandbox-user");
  g_autoptr (AgentsGroup) group = agents_group_new ("sandbox-group", NULL, 0);
  g_autoptr (AgentsPermissions) permissions = agents_permissions_new ();

  g_assert_cmpstr (agents_user_get_name (user), ==, "sandbox-user");
  g_assert_cmpuint (agents_group_get_users (group)->len, ==, 0);
  g_assert_cmpuint (permissions->owner, ==, (guint) AGENTS_FILE_MODE_ALL);
}

/* ---- permissions ----------------------------------------------------- */

static void
test_permissions_defaults (void)
{
  g_autoptr (AgentsPermissions) permissions = agents_permissions_new ();
  g_autofree char *text = agents_permissions_to_string (permissions);
  g_autoptr (AgentsManifestEntry) file = agents_file_new_from_text ("");

  g_assert_cmpuint (AGENTS_FILE_MODE_NONE, ==, 0);
  g_assert_cmpuint (AGENTS_FILE_MODE_EXEC, ==, 1);
  g_assert_cmpuint (AGENTS_FILE_MODE_WRITE, ==, 2);
  g_assert_cmpuint (AGENTS_FILE_MODE_READ, ==, 4);
  g_assert_cmpuint (AGENTS_FILE_MODE_ALL, ==, 7);

  /* The reference's bare Permissions(); entries start from rwxr-xr-x. */
  g_assert_cmpuint (permissions->owner, ==, 7);
  g_assert_cmpuint (permissions->group, ==, 0);
  g_assert_cmpuint (permissions->other, ==, 0);
  g_assert_false (permissions->directory);
  g_assert_cmpuint (agents_permissions_to_mode (permissions), ==, 0700);
  g_assert_cmpstr (text, ==, "-rwx------");
  g_assert_cmpuint (
    agents_permissions_to_mode (agents_manifest_entry_get_permissions (file)),
    ==, 0755);
}

static void
test_permissions_from_string (void)
{
  static const struct
  {
    const char *text;
    guint owner, group, other;
    gboolean directory;
    guint mode;
    const char *printed;
  } cases[] = {
    { "drwxr-x---", 7, 5, 0, TRUE, 040750, "drwxr-x---" },
    { "-rw-r--r--", 6, 4, 4, FALSE, 0644, "-rw-r--r--" },
    { "----------", 0, 0, 0, FALSE, 0, "----------" },
    { "-rwsr-xr-x", 7, 5, 5, FALSE, 0755, "-rwxr-xr-x" },
    { "-rwSr--r--", 6, 4, 4, FALSE, 0644, "-rw-r--r--" },
    { "-rwxr-sr-x", 7, 5, 5, FALSE, 0755, "-rwxr-xr-x" },
    { "drwxrwxrwt", 7, 7, 7, TRUE, 040777, "drwxrwxrwx" },
    { "drwxrwxrwT", 7, 7, 6, TRUE, 040776, "drwxrwxrw-" },
    { "drwxr-x---+", 7, 5, 0, TRUE, 040750, "drwxr-x---" },
    { "-rw-r--r--@", 6, 4, 4, FALSE, 0644, "-rw-r--r--" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (AgentsPermissions) permissions =
        agents_permissions_new_from_string (cases[i].text, &error);
      g_autofree char *printed = NULL;

      g_test_message ("case %s", cases[i].text);
      g_assert_no_error (error);
      g_assert_cmpuint (permissions->owner, ==, cases[i].owner);
      g_assert_cmpuint (permissions->group, ==, cases[i].group);
      g_assert_cmpuint (permissions->other, ==, cases[i].other);
      g_assert_cmpint (permissions->directory, ==, cases[i].directory);
      g_assert_cmpuint (agents_permissions_to_mode (permissions), ==,
                        cases[i].mode);
      printed = agents_permissions_to_string (permissions);
      g_assert_cmpstr (printed, ==, cases[i].printed);
    }
}

/* The reference's Permissions.from_str() names what is wrong; only `d`
 * and `-` are types (a listing maps the others to `-` itself). */
static void
test_permissions_bad_strings (void)
{
  static const char *bad[][2] = {
    { "", "invalid permissions string length: ''" },
    { "rwxr-xr-x", "invalid permissions string length: 'rwxr-xr-x'" },
    { "drwxr-xr-x-", "invalid permissions string length: 'drwxr-xr-x-'" },
    { "xrwxr-xr-x", "invalid permissions type: 'xrwxr-xr-x'" },
    { "lrwxrwxrwx", "invalid permissions type: 'lrwxrwxrwx'" },
    { "crw-rw-rw-", "invalid permissions type: 'crw-rw-rw-'" },
    { "-rwxr-xr-q", "invalid exec flag: 'r-q'" },
    { "-wrxr-xr-x", "invalid read flag: 'wrx'" },
    { "-rwtr-xr-x", "invalid exec flag: 'rwt'" },
    { "-rwxr-xr-s", "invalid exec flag: 'r-s'" },
    { "-rwxr-tr-x", "invalid exec flag: 'r-t'" },
    { "drwxr-x--", "invalid permissions string length: 'drwxr-x--'" },
    { "-RWXR-XR-X", "invalid read flag: 'RWX'" },
    { "-rxwr-xr-x", "invalid write flag: 'rxw'" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (AgentsPermissions) permissions =
        agents_permissions_new_from_string (bad[i][0], &error);

      g_test_message ("case “%s”", bad[i][0]);
      g_assert_null (permissions);
      g_assert_error (error, AGENTS_SANDBOX_ERROR,
                      AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
      g_assert_cmpstr (error->message, ==, bad[i][1]);
      agents_test_assert_context_str (error, "mode", bad[i][0]);
    }
}

static void
test_permissions_mode (void)
{
  g_autoptr (AgentsPermissions) plain = agents_permissions_new_from_mode (0640);
  g_autoptr (AgentsPermissions) dir = agents_permissions_new_from_mode (040755);
  g_autoptr (AgentsPermissions) full =
    agents_permissions_new_full (7, 5, 5, TRUE);
  g_autoptr (AgentsPermissions) masked =
    agents_permissions_new_full (0xff, 8 | 4, 1, FALSE);
  g_autoptr (AgentsPermissions) copy = agents_permissions_copy (full);

  g_assert_cmpuint (plain->owner, ==, 6);
  g_assert_cmpuint (plain->group, ==, 4);
  g_assert_cmpuint (plain->other, ==, 0);
  g_assert_false (plain->directory);
  g_assert_true (dir->directory);
  /* As the reference's to_mode(): the directory type bit included. */
  g_assert_cmpuint (agents_permissions_to_mode (dir), ==, 040755);
  g_assert_true (agents_permissions_equal (dir, full));
  g_assert_true (agents_permissions_equal (copy, full));
  g_assert_false (agents_permissions_equal (plain, full));
  g_assert_cmpuint (agents_permissions_to_mode (masked), ==, 0741);
  g_assert_true (G_TYPE_IS_BOXED (AGENTS_TYPE_PERMISSIONS));
}

static void
test_permissions_json (void)
{
  g_autoptr (AgentsPermissions) defaults = agents_permissions_new ();
  g_autoptr (AgentsPermissions) dir =
    agents_permissions_new_full (7, 5, 0, TRUE);
  g_autoptr (JsonNode) node = agents_permissions_to_json (defaults);
  g_autoptr (JsonNode) dir_node = agents_permissions_to_json (dir);
  g_autofree char *text = node_to_string (node);
  g_autofree char *dir_text = node_to_string (dir_node);
  g_autoptr (AgentsPermissions) back = NULL;
  g_autoptr (AgentsPermissions) partial = NULL;
  g_autoptr (JsonNode) partial_node = parse_json ("{\"owner\":6}");
  g_autoptr (GError) error = NULL;

  g_assert_cmpstr (text, ==,
                   "{\"owner\":7,\"group\":0,\"other\":0,\"directory\":false}");
  g_assert_cmpstr (dir_text, ==,
                   "{\"owner\":7,\"group\":5,\"other\":0,\"directory\":true}");

  back = agents_permissions_new_from_json (dir_node, &error);
  g_assert_no_error (error);
  g_assert_true (agents_permissions_equal (back, dir));

  partial = agents_permissions_new_from_json (partial_node, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (partial->owner, ==, 6);
  g_assert_cmpuint (partial->group, ==, 0);
  g_assert_cmpuint (partial->other, ==, 0);
  g_assert_false (partial->directory);
}

static void
test_permissions_bad_json (void)
{
  static const struct
  {
    const char *json;
    const char *member;
  } cases[] = {
    { "[]", "permissions" },        { "{\"owner\":\"7\"}", "owner" },
    { "{\"group\":8}", "group" },   { "{\"other\":-1}", "other" },
    { "{\"owner\":1.5}", "owner" }, { "{\"directory\":1}", "directory" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (JsonNode) node = parse_json (cases[i].json);
      g_autoptr (GError) error = NULL;
      g_autoptr (AgentsPermissions) permissions =
        agents_permissions_new_from_json (node, &error);

      g_test_message ("case %s", cases[i].json);
      g_assert_null (permissions);
      g_assert_error (error, AGENTS_SANDBOX_ERROR,
                      AGENTS_SANDBOX_ERROR_INVALID_JSON);
      g_assert_nonnull (strstr (error->message, cases[i].member));
      agents_test_assert_context_str (error, "member", cases[i].member);
    }
}

/* ---- limits ---------------------------------------------------------- */

static void
test_concurrency_limits (void)
{
  g_autoptr (AgentsConcurrencyLimits) limits = agents_concurrency_limits_new ();
  g_autoptr (AgentsConcurrencyLimits) copy =
    agents_concurrency_limits_copy (limits);
  g_autoptr (AgentsConcurrencyLimits) no_entries =
    agents_concurrency_limits_new_full (0, 1);
  g_autoptr (AgentsConcurrencyLimits) no_files =
    agents_concurrency_limits_new_full (1, 0);
  g_autoptr (AgentsConcurrencyLimits) both =
    agents_concurrency_limits_new_full (-3, 0);
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (limits->manifest_entries, ==, 4);
  g_assert_cmpint (limits->local_dir_files, ==, 4);
  g_assert_true (agents_concurrency_limits_validate (limits, &error));
  g_assert_no_error (error);
  g_assert_true (agents_concurrency_limits_equal (limits, copy));
  g_assert_false (agents_concurrency_limits_equal (limits, no_files));

  g_assert_false (agents_concurrency_limits_validate (no_entries, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==,
                   "concurrency_limits.manifest_entries must be at least 1");
  g_clear_error (&error);

  g_assert_false (agents_concurrency_limits_validate (no_files, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==,
                   "concurrency_limits.local_dir_files must be at least 1");
  g_clear_error (&error);

  g_assert_false (agents_concurrency_limits_validate (both, &error));
  g_assert_cmpstr (error->message, ==,
                   "concurrency_limits.manifest_entries must be at least 1");
}

static void
test_archive_limits (void)
{
  static const struct
  {
    gint64 input, extracted, members;
    const char *message;
  } cases[] = {
    { 0, 1, 1, "archive_limits.max_input_bytes must be at least 1" },
    { 1, 0, 1, "archive_limits.max_extracted_bytes must be at least 1" },
    { 1, 1, 0, "archive_limits.max_members must be at least 1" },
    { 1, -1, -1, "archive_limits.max_extracted_bytes must be at least 1" },
  };
  g_autoptr (AgentsArchiveLimits) limits = agents_archive_limits_new ();
  g_autoptr (AgentsArchiveLimits) copy = agents_archive_limits_copy (limits);
  g_autoptr (AgentsArchiveLimits) ones =
    agents_archive_limits_new_full (1, 1, 1);
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (limits->max_input_bytes, ==, G_GINT64_CONSTANT (1) << 30);
  g_assert_cmpint (limits->max_extracted_bytes, ==,
                   G_GINT64_CONSTANT (4) << 30);
  g_assert_cmpint (limits->max_members, ==, 100000);
  g_assert_true (agents_archive_limits_validate (limits, &error));
  g_assert_true (agents_archive_limits_validate (ones, &error));
  g_assert_no_error (error);
  g_assert_true (agents_archive_limits_equal (limits, copy));
  g_assert_false (agents_archive_limits_equal (limits, ones));

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (AgentsArchiveLimits) bad = agents_archive_limits_new_full (
        cases[i].input, cases[i].extracted, cases[i].members);

      g_assert_false (agents_archive_limits_validate (bad, &error));
      g_assert_error (error, AGENTS_SANDBOX_ERROR,
                      AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
      g_assert_cmpstr (error->message, ==, cases[i].message);
      g_clear_error (&error);
    }
}

/* ---- exec result ----------------------------------------------------- */

static void
test_exec_result (void)
{
  g_autoptr (GBytes) out = g_bytes_new_static ("hello\n", 6);
  g_autoptr (GBytes) bad_utf8 = g_bytes_new_static ("a\xff"
                                                    "b",
                                                    3);
  g_autoptr (AgentsExecResult) ok = agents_exec_result_new (out, NULL, 0);
  g_autoptr (AgentsExecResult) failed =
    agents_exec_result_new (NULL, bad_utf8, 2);
  g_autofree char *ok_out = agents_exec_result_dup_stdout_text (ok);
  g_autofree char *ok_err = agents_exec_result_dup_stderr_text (ok);
  g_autofree char *failed_err = agents_exec_result_dup_stderr_text (failed);
  g_autofree char *failed_out = agents_exec_result_dup_stdout_text (failed);

  g_assert_true (agents_exec_result_ok (ok));
  g_assert_cmpint (agents_exec_result_get_exit_code (ok), ==, 0);
  g_assert_true (g_bytes_equal (agents_exec_result_get_stdout (ok), out));
  g_assert_nonnull (agents_exec_result_get_stderr (ok));
  g_assert_cmpuint (g_bytes_get_size (agents_exec_result_get_stderr (ok)), ==,
                    0);
  g_assert_cmpstr (ok_out, ==, "hello\n");
  g_assert_cmpstr (ok_err, ==, "");

  g_assert_false (agents_exec_result_ok (failed));
  g_assert_cmpint (agents_exec_result_get_exit_code (failed), ==, 2);
  g_assert_nonnull (agents_exec_result_get_stdout (failed));
  g_assert_cmpstr (failed_out, ==, "");
  g_assert_true (g_utf8_validate (failed_err, -1, NULL));
  g_assert_true (g_str_has_prefix (failed_err, "a"));
  g_assert_true (g_str_has_suffix (failed_err, "b"));
  g_assert_cmpuint (strlen (failed_err), >, 2);
}

/* ---- ls parsing ------------------------------------------------------ */

typedef struct
{
  const char *path;
  const char *mode;
  const char *owner;
  const char *group;
  guint64 size;
  AgentsEntryKind kind;
} ExpectedEntry;

static void
assert_entries (GPtrArray *entries,
                const ExpectedEntry *expected,
                guint n_expected)
{
  g_assert_cmpuint (entries->len, ==, n_expected);
  for (guint i = 0; i < n_expected; i++)
    {
      AgentsFileEntry *entry = entries->pdata[i];
      g_autofree char *bits = g_strdup (expected[i].mode);
      g_autoptr (AgentsPermissions) mode = NULL;

      /* Permissions keep rwx bits and directory-ness: other types are `-`. */
      if (bits[0] != 'd')
        bits[0] = '-';
      mode = agents_permissions_new_from_string (bits, NULL);

      g_test_message ("entry %s", expected[i].path);
      g_assert_cmpstr (agents_file_entry_get_path (entry), ==,
                       expected[i].path);
      g_assert_true (agents_permissions_equal (
        agents_file_entry_get_permissions (entry), mode));
      g_assert_cmpstr (agents_file_entry_get_owner (entry), ==,
                       expected[i].owner);
      g_assert_cmpstr (agents_file_entry_get_group (entry), ==,
                       expected[i].group);
      g_assert_cmpuint (agents_file_entry_get_size (entry), ==,
                        expected[i].size);
      g_assert_cmpint (agents_file_entry_get_kind (entry), ==,
                       expected[i].kind);
      g_assert_cmpint (agents_file_entry_is_dir (entry), ==,
                       expected[i].kind == AGENTS_ENTRY_KIND_DIRECTORY);
    }
}

static void
test_parse_ls_gnu (void)
{
  const char *output =
    "total 16\n"
    "drwx------  3 root root 4096 Nov 30 08:40 .\n"
    "drwxrwxrwt 13 root root 4096 Nov 30 08:40 ..\n"
    "-rw-r--r--  1 root root    3 Nov 30 08:40 a file  with spaces.txt\n"
    "prw-r--r--  1 root root    0 Nov 30 08:40 fifo\n"
    "lrwxrwxrwx  1 root root   11 Nov 30 08:40 link -> /etc/passwd\n"
    "drwxr-xr-x  2 app  staff 4096 Nov 30 08:40 sub\n"
    "crw-rw-rw-  1 root root  1, 3 Jan  1  2019 null\n"
    "crw-------  1 root root 10, 234 Nov 19 19:44 btrfs-control\n"
    "-rw-r--r--. 1 root root  123 Jan  1  2019 selinux.txt\n"
    "-rw-r--r--+ 1 root root    5 2024-01-31 12:00 iso time\n";
  static const ExpectedEntry expected[] = {
    { "/workspace/a file  with spaces.txt", "-rw-r--r--", "root", "root", 3,
      AGENTS_ENTRY_KIND_FILE },
    { "/workspace/fifo", "prw-r--r--", "root", "root", 0,
      AGENTS_ENTRY_KIND_OTHER },
    { "/workspace/link", "lrwxrwxrwx", "root", "root", 11,
      AGENTS_ENTRY_KIND_SYMLINK },
    { "/workspace/sub", "drwxr-xr-x", "app", "staff", 4096,
      AGENTS_ENTRY_KIND_DIRECTORY },
    { "/workspace/null", "crw-rw-rw-", "root", "root", 0,
      AGENTS_ENTRY_KIND_OTHER },
    { "/workspace/btrfs-control", "crw-------", "root", "root", 0,
      AGENTS_ENTRY_KIND_OTHER },
    { "/workspace/selinux.txt", "-rw-r--r--", "root", "root", 123,
      AGENTS_ENTRY_KIND_FILE },
    { "/workspace/iso time", "-rw-r--r--", "root", "root", 5,
      AGENTS_ENTRY_KIND_FILE },
  };
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) entries =
    agents_file_entry_parse_ls (output, "/workspace", &error);

  g_assert_no_error (error);
  assert_entries (entries, expected, G_N_ELEMENTS (expected));
}

static void
test_parse_ls_busybox (void)
{
  const char *output =
    "total 16\r\n"
    "drwx------    3 root     root          4096 Nov 30 08:40 .\r\n"
    "drwxrwxrwt   13 root     root          4096 Nov 30 08:40 ..\r\n"
    "-rw-r--r--    1 root     root             3 Nov 30 08:40 a file  with "
    "spaces.txt\r\n"
    "lrwxrwxrwx    1 root     root            11 Nov 30 08:40 link -> "
    "/etc/passwd\r\n"
    "-rw-r--r--    1 1000     1000             0 Jan  1  2019 old\r\n"
    "drwxr-xr-x    2 root     root          4096 Nov 30 08:40 sub\r\n"
    "crw-------    1 root     root        5,   1 Nov 19 19:44 console\r\n";
  static const ExpectedEntry expected[] = {
    { "/a file  with spaces.txt", "-rw-r--r--", "root", "root", 3,
      AGENTS_ENTRY_KIND_FILE },
    { "/link", "lrwxrwxrwx", "root", "root", 11, AGENTS_ENTRY_KIND_SYMLINK },
    { "/old", "-rw-r--r--", "1000", "1000", 0, AGENTS_ENTRY_KIND_FILE },
    { "/sub", "drwxr-xr-x", "root", "root", 4096, AGENTS_ENTRY_KIND_DIRECTORY },
    { "/console", "crw-------", "root", "root", 0, AGENTS_ENTRY_KIND_OTHER },
  };
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) entries =
    agents_file_entry_parse_ls (output, "/", &error);

  g_assert_no_error (error);
  assert_entries (entries, expected, G_N_ELEMENTS (expected));
}

static void
test_parse_ls_paths (void)
{
  const char *output = "-rw-r--r-- 1 u g 1 Jan  1 00:00 f\n";
  static const struct
  {
    const char *dir;
    const char *path;
  } cases[] = {
    { "/workspace", "/workspace/f" },
    { "/workspace/", "/workspace/f" },
    { "//workspace//sub/", "/workspace/sub/f" },
    { "/", "/f" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (GPtrArray) entries =
        agents_file_entry_parse_ls (output, cases[i].dir, &error);

      g_assert_no_error (error);
      g_assert_cmpuint (entries->len, ==, 1);
      g_assert_cmpstr (agents_file_entry_get_path (entries->pdata[0]), ==,
                       cases[i].path);
    }
}

static void
test_parse_ls_empty (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) entries =
    agents_file_entry_parse_ls ("total 0\n\n", "/workspace", &error);
  g_autoptr (GPtrArray) nothing =
    agents_file_entry_parse_ls ("", "/workspace", &error);

  g_assert_no_error (error);
  g_assert_cmpuint (entries->len, ==, 0);
  g_assert_cmpuint (nothing->len, ==, 0);
}

static void
test_parse_ls_malformed (void)
{
  static const char *bad[] = {
    "ls: cannot access '/nope': No such file or directory",
    "-rw-r--r-- 1 root root",
    "-rw-r--r-- 1 root root 12 Nov 30 08:40",
    "-rw-r--r-- 1 root root 12 Nov 30 08:40 ",
    "-rw-r--r-- x root root 12 Nov 30 08:40 name",
    "-rw-r--r-- 1 root root twelve Nov 30 08:40 name",
    "-rw-r--r-x-x 1 root root 12 Nov 30 08:40 name",
    "qrw-r--r-- 1 root root 12 Nov 30 08:40 name",
    "crw-r--r-- 1 root root 1, Nov 30 08:40",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *output = g_strdup_printf (
        "total 4\n-rw-r--r-- 1 a b 1 Jan  1 00:00 ok\n%s\n", bad[i]);
      g_autofree char *expected =
        g_strdup_printf ("malformed ls output line: %s", bad[i]);
      g_autoptr (GError) error = NULL;
      g_autoptr (GPtrArray) entries =
        agents_file_entry_parse_ls (output, "/workspace", &error);

      g_test_message ("case “%s”", bad[i]);
      g_assert_null (entries);
      g_assert_error (error, AGENTS_SANDBOX_ERROR,
                      AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
      g_assert_cmpstr (error->message, ==, expected);
      agents_test_assert_context_str (error, "line", bad[i]);
    }
}

/* A sandbox's command prints any bytes: a malformed line that is not
 * UTF-8 is reported (made valid), without a critical (found by
 * tests/fuzz/fuzz-ls). */
static void
test_parse_ls_malformed_not_utf8 (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) entries = agents_file_entry_parse_ls (
    "total 4\n-rw-r--r-- x root root 12 Nov 30 08:40 n\xff\xfe\n", "/workspace",
    &error);

  g_assert_null (entries);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_true (g_utf8_validate (error->message, -1, NULL));
  agents_test_assert_context_str (
    error, "line",
    "-rw-r--r-- x root root 12 Nov 30 08:40 n\xef\xbf\xbd\xef\xbf\xbd");
}

static void
test_file_entry_new (void)
{
  g_autoptr (AgentsPermissions) mode =
    agents_permissions_new_from_string ("drwxr-xr-x", NULL);
  g_autoptr (AgentsFileEntry) entry = agents_file_entry_new (
    "/workspace/a", mode, "root", "root", 0, AGENTS_ENTRY_KIND_DIRECTORY);

  g_assert_true (agents_file_entry_is_dir (entry));
  g_assert_true (
    agents_permissions_equal (agents_file_entry_get_permissions (entry), mode));
  g_assert_cmpstr (agents_file_entry_get_path (entry), ==, "/workspace/a");
}

/* ---- users, groups, grants ------------------------------------------ */

static void
test_user_json (void)
{
  g_autoptr (AgentsUser) user = agents_user_new ("sandbox-user");
  g_autoptr (AgentsUser) same = agents_user_new ("sandbox-user");
  g_autoptr (AgentsUser) other = agents_user_new ("other");
  g_autoptr (JsonNode) node = agents_user_to_json (user);
  g_autofree char *text = node_to_string (node);
  g_autoptr (AgentsUser) back = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_cmpstr (text, ==, "{\"name\":\"sandbox-user\"}");
  back = agents_user_new_from_json (node, &error);
  g_assert_no_error (error);
  g_assert_true (agents_user_equal (back, user));
  g_assert_true (agents_user_equal (user, same));
  g_assert_false (agents_user_equal (user, other));
  g_assert_false (agents_user_equal (user, NULL));
  g_assert_true (agents_user_equal (NULL, NULL));
}

static void
test_group_json (void)
{
  g_autoptr (AgentsUser) alice = agents_user_new ("alice");
  g_autoptr (AgentsUser) bob = agents_user_new ("bob");
  AgentsUser *users[] = { alice, bob };
  g_autoptr (AgentsGroup) group = agents_group_new ("devs", users, 2);
  g_autoptr (AgentsGroup) reversed = agents_group_new ("devs", NULL, 0);
  g_autoptr (AgentsGroup) empty = agents_group_new ("devs", NULL, 0);
  g_autoptr (JsonNode) node = agents_group_to_json (group);
  g_autoptr (JsonNode) empty_node = agents_group_to_json (empty);
  g_autofree char *text = node_to_string (node);
  g_autofree char *empty_text = node_to_string (empty_node);
  g_autoptr (JsonNode) no_users = parse_json ("{\"name\":\"devs\"}");
  g_autoptr (AgentsGroup) back = NULL;
  g_autoptr (AgentsGroup) back_empty = NULL;
  g_autoptr (GError) error = NULL;

  agents_group_add_user (reversed, bob);
  agents_group_add_user (reversed, alice);

  g_assert_cmpstr (text, ==,
                   "{\"name\":\"devs\",\"users\":[{\"name\":\"alice\"},"
                   "{\"name\":\"bob\"}]}");
  g_assert_cmpstr (empty_text, ==, "{\"name\":\"devs\",\"users\":[]}");

  back = agents_group_new_from_json (node, &error);
  g_assert_no_error (error);
  g_assert_true (agents_group_equal_members (back, group));
  g_assert_false (agents_group_equal_members (group, reversed));
  g_assert_false (agents_group_equal_members (group, empty));
  /* A group is its name (reference Group.__eq__). */
  g_assert_true (agents_group_equal (group, reversed));
  g_assert_true (agents_group_equal (group, empty));

  back_empty = agents_group_new_from_json (no_users, &error);
  g_assert_no_error (error);
  g_assert_true (agents_group_equal_members (back_empty, empty));
}

static void
test_grant_json (void)
{
  g_autoptr (AgentsSandboxPathGrant) grant =
    agents_sandbox_path_grant_new ("/tmp", FALSE, "temporary files");
  g_autoptr (AgentsSandboxPathGrant) plain =
    agents_sandbox_path_grant_new ("/opt/data", TRUE, NULL);
  g_autoptr (JsonNode) node = agents_sandbox_path_grant_to_json (grant);
  g_autoptr (JsonNode) plain_node = agents_sandbox_path_grant_to_json (plain);
  g_autofree char *text = node_to_string (node);
  g_autofree char *plain_text = node_to_string (plain_node);
  g_autoptr (JsonNode) minimal = parse_json ("{\"path\":\"/srv\"}");
  g_autoptr (AgentsSandboxPathGrant) back = NULL;
  g_autoptr (AgentsSandboxPathGrant) back_plain = NULL;
  g_autoptr (AgentsSandboxPathGrant) back_minimal = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_cmpstr (text, ==,
                   "{\"path\":\"/tmp\",\"read_only\":false,"
                   "\"description\":\"temporary files\"}");
  g_assert_cmpstr (plain_text, ==,
                   "{\"path\":\"/opt/data\",\"read_only\":true,"
                   "\"description\":null}");

  back = agents_sandbox_path_grant_new_from_json (node, &error);
  g_assert_no_error (error);
  g_assert_true (agents_sandbox_path_grant_equal (back, grant));
  back_plain = agents_sandbox_path_grant_new_from_json (plain_node, &error);
  g_assert_no_error (error);
  g_assert_true (agents_sandbox_path_grant_equal (back_plain, plain));
  g_assert_false (agents_sandbox_path_grant_equal (grant, plain));

  back_minimal = agents_sandbox_path_grant_new_from_json (minimal, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (agents_sandbox_path_grant_get_path (back_minimal), ==,
                   "/srv");
  g_assert_false (agents_sandbox_path_grant_get_read_only (back_minimal));
  g_assert_null (agents_sandbox_path_grant_get_description (back_minimal));
}

typedef gpointer (*FromJson) (JsonNode *node, GError **error);

static void
test_bad_json (void)
{
  static const struct
  {
    FromJson from_json;
    const char *json;
    const char *member;
  } cases[] = {
    { (FromJson) agents_user_new_from_json, "\"bob\"", "user" },
    { (FromJson) agents_user_new_from_json, "{}", "name" },
    { (FromJson) agents_user_new_from_json, "{\"name\":3}", "name" },
    { (FromJson) agents_user_new_from_json, "{\"name\":null}", "name" },
    { (FromJson) agents_group_new_from_json, "[]", "group" },
    { (FromJson) agents_group_new_from_json, "{\"users\":[]}", "name" },
    { (FromJson) agents_group_new_from_json, "{\"name\":[\"g\"]}", "name" },
    { (FromJson) agents_group_new_from_json,
      "{\"name\":\"g\",\"users\":{\"name\":\"u\"}}", "users" },
    { (FromJson) agents_group_new_from_json,
      "{\"name\":\"g\",\"users\":[\"u\"]}", "user" },
    { (FromJson) agents_group_new_from_json,
      "{\"name\":\"g\",\"users\":[{\"name\":false}]}", "name" },
    { (FromJson) agents_sandbox_path_grant_new_from_json, "1",
      "extra_path_grant" },
    { (FromJson) agents_sandbox_path_grant_new_from_json, "{}", "path" },
    { (FromJson) agents_sandbox_path_grant_new_from_json, "{\"path\":7}",
      "path" },
    { (FromJson) agents_sandbox_path_grant_new_from_json,
      "{\"path\":\"relative/dir\"}", "path" },
    { (FromJson) agents_sandbox_path_grant_new_from_json,
      "{\"path\":\"/tmp\",\"read_only\":\"yes\"}", "read_only" },
    { (FromJson) agents_sandbox_path_grant_new_from_json,
      "{\"path\":\"/tmp\",\"description\":5}", "description" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (JsonNode) node = parse_json (cases[i].json);
      g_autoptr (GError) error = NULL;
      gpointer object = cases[i].from_json (node, &error);

      g_test_message ("case %s", cases[i].json);
      g_assert_null (object);
      g_assert_error (error, AGENTS_SANDBOX_ERROR,
                      AGENTS_SANDBOX_ERROR_INVALID_JSON);
      g_assert_nonnull (strstr (error->message, cases[i].member));
      agents_test_assert_context_str (error, "member", cases[i].member);
    }
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/sandbox/types/sandbox_package_exports_permission_types",
                   test_sandbox_package_exports_permission_types);
  g_test_add_func ("/sandbox/types/permissions/defaults",
                   test_permissions_defaults);
  g_test_add_func ("/sandbox/types/permissions/from-string",
                   test_permissions_from_string);
  g_test_add_func ("/sandbox/types/permissions/bad-strings",
                   test_permissions_bad_strings);
  g_test_add_func ("/sandbox/types/permissions/mode", test_permissions_mode);
  g_test_add_func ("/sandbox/types/permissions/json", test_permissions_json);
  g_test_add_func ("/sandbox/types/permissions/bad-json",
                   test_permissions_bad_json);
  g_test_add_func ("/sandbox/types/limits/concurrency",
                   test_concurrency_limits);
  g_test_add_func ("/sandbox/types/limits/archive", test_archive_limits);
  g_test_add_func ("/sandbox/types/exec-result", test_exec_result);
  g_test_add_func ("/sandbox/types/parse-ls/gnu", test_parse_ls_gnu);
  g_test_add_func ("/sandbox/types/parse-ls/busybox", test_parse_ls_busybox);
  g_test_add_func ("/sandbox/types/parse-ls/paths", test_parse_ls_paths);
  g_test_add_func ("/sandbox/types/parse-ls/empty", test_parse_ls_empty);
  g_test_add_func ("/sandbox/types/parse-ls/malformed",
                   test_parse_ls_malformed);
  g_test_add_func ("/sandbox/types/parse-ls/malformed-not-utf8",
                   test_parse_ls_malformed_not_utf8);
  g_test_add_func ("/sandbox/types/file-entry/new", test_file_entry_new);
  g_test_add_func ("/sandbox/types/json/user", test_user_json);
  g_test_add_func ("/sandbox/types/json/group", test_group_json);
  g_test_add_func ("/sandbox/types/json/grant", test_grant_json);
  g_test_add_func ("/sandbox/types/json/bad", test_bad_json);

  return g_test_run ();
}
