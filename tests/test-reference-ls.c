/* test-reference-ls.c - reference cases LS-*: `ls -la` parsing,
 * Permissions, User and Group (../shared/spec/reference-cases.md)
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "agents-sandbox-error-private.h"
#include "test-utils.h"

static GPtrArray *
parse (const char *output, const char *base)
{
  g_autoptr (GError) error = NULL;
  GPtrArray *entries = agents_file_entry_parse_ls (output, base, &error);

  g_assert_no_error (error);
  g_assert_nonnull (entries);
  return entries;
}

static AgentsFileEntry *
entry_at (GPtrArray *entries, guint i)
{
  return g_ptr_array_index (entries, i);
}

static const AgentsPermissions *
perms_at (GPtrArray *entries, guint i)
{
  return agents_file_entry_get_permissions (entry_at (entries, i));
}

/* LS-02 */
static void
test_prefixes_directory_entries_with_base (void)
{
  g_autoptr (GPtrArray) entries =
    parse ("drwxr-xr-x 2 root root     4096 Jan  1 00:00 .\n"
           "drwxr-xr-x 3 root root     4096 Jan  1 00:00 ..\n"
           "-rw-r--r-- 1 root root      123 Jan  1 00:00 notes.md\n",
           "/workspace/docs");

  g_assert_cmpuint (entries->len, ==, 1);
  g_assert_cmpstr (agents_file_entry_get_path (entry_at (entries, 0)), ==,
                   "/workspace/docs/notes.md");
  g_assert_cmpint (agents_file_entry_get_kind (entry_at (entries, 0)), ==,
                   AGENTS_ENTRY_KIND_FILE);
  g_assert_cmpuint (agents_file_entry_get_size (entry_at (entries, 0)), ==,
                    123);
}

/* A link's name ends where its target of `size` bytes begins, even when
 * the name or the target holds ` -> `; no fitting boundary: left out. */
static void
test_symlink_name_by_target_size (void)
{
  g_autoptr (GPtrArray) entries =
    parse ("lrwxrwxrwx 1 root root 6 Jan 1 00:00 a -> b -> target\n"
           "lrwxrwxrwx 1 root root 11 Jan 1 00:00 c -> d -> target\n"
           "lrwxrwxrwx 1 root root 3 Jan 1 00:00 bad -> target\n"
           "lrwxrwxrwx 1 root root 6 Jan 1 00:00 plain -> target\n",
           "/w");

  g_assert_cmpuint (entries->len, ==, 3);
  g_assert_cmpstr (agents_file_entry_get_path (entry_at (entries, 0)), ==,
                   "/w/a -> b");
  g_assert_cmpstr (agents_file_entry_get_path (entry_at (entries, 1)), ==,
                   "/w/c");
  g_assert_cmpstr (agents_file_entry_get_path (entry_at (entries, 2)), ==,
                   "/w/plain");
  g_assert_cmpint (agents_file_entry_get_kind (entry_at (entries, 2)), ==,
                   AGENTS_ENTRY_KIND_SYMLINK);
}

/* LS-04 */
static void
test_accepts_special_permission_bits (void)
{
  g_autoptr (GPtrArray) entries =
    parse ("drwxrwxrwt 2 root root 4096 Jan 1 00:00 tmp\n"
           "-rwsr-sr-t 1 root root 123 Jan 1 00:00 setuid-tool\n"
           "-rwSr-Sr-T 1 root root 456 Jan 1 00:00 special-no-exec\n",
           "/");
  static const char *const paths[] = { "/tmp", "/setuid-tool",
                                       "/special-no-exec" };

  g_assert_cmpuint (entries->len, ==, 3);
  for (guint i = 0; i < 3; i++)
    g_assert_cmpstr (agents_file_entry_get_path (entry_at (entries, i)), ==,
                     paths[i]);
  g_assert_true (perms_at (entries, 0)->directory);
  g_assert_true (perms_at (entries, 0)->other & AGENTS_FILE_MODE_EXEC);
  g_assert_true (perms_at (entries, 1)->owner & AGENTS_FILE_MODE_EXEC);
  g_assert_true (perms_at (entries, 1)->group & AGENTS_FILE_MODE_EXEC);
  g_assert_true (perms_at (entries, 1)->other & AGENTS_FILE_MODE_EXEC);
  g_assert_false (perms_at (entries, 2)->owner & AGENTS_FILE_MODE_EXEC);
  g_assert_false (perms_at (entries, 2)->group & AGENTS_FILE_MODE_EXEC);
  g_assert_false (perms_at (entries, 2)->other & AGENTS_FILE_MODE_EXEC);
}

/* LS-06 */
static void
test_includes_gnu_device_nodes (void)
{
  g_autoptr (GPtrArray) entries =
    parse ("-rw-r--r-- 1 root root      123 Jan  1 00:00 regular.txt\n"
           "crw-rw-rw- 1 root root     1, 3 Jan  1 00:00 null\n"
           "brw-rw---- 1 root disk     8, 0 Jan  1 00:00 sda\n",
           "/dev");
  g_autoptr (GPtrArray) bsd =
    parse ("crw-rw-rw-  1 root  wheel     0x3000002 Jan  1 00:00 null\n"
           "brw-r-----  1 root  operator  0x1000000 Jan  1 00:00 disk0\n",
           "/dev");
  static const char *const paths[] = { "/dev/regular.txt", "/dev/null",
                                       "/dev/sda" };

  g_assert_cmpuint (entries->len, ==, 3);
  for (guint i = 0; i < 3; i++)
    g_assert_cmpstr (agents_file_entry_get_path (entry_at (entries, i)), ==,
                     paths[i]);
  g_assert_cmpint (agents_file_entry_get_kind (entry_at (entries, 1)), ==,
                   AGENTS_ENTRY_KIND_OTHER);
  g_assert_cmpuint (agents_file_entry_get_size (entry_at (entries, 1)), ==, 0);
  g_assert_cmpstr (agents_file_entry_get_owner (entry_at (entries, 2)), ==,
                   "root");
  g_assert_cmpstr (agents_file_entry_get_group (entry_at (entries, 2)), ==,
                   "disk");

  /* BSD prints one hexadecimal device number instead. */
  g_assert_cmpuint (bsd->len, ==, 2);
  g_assert_cmpstr (agents_file_entry_get_path (entry_at (bsd, 1)), ==,
                   "/dev/disk0");
  g_assert_cmpstr (agents_file_entry_get_group (entry_at (bsd, 1)), ==,
                   "operator");
  g_assert_cmpuint (agents_file_entry_get_size (entry_at (bsd, 1)), ==, 0);
}

/* LS-08 */
static void
test_rejects_special_bits_in_wrong_position (void)
{
  static const char *const cases[][2] = {
    { "-rwTr--r--", "invalid exec flag: 'rwT'" },
    { "-rwxrwTr--", "invalid exec flag: 'rwT'" },
    { "-rwxrwxr-S", "invalid exec flag: 'r-S'" },
    { "-rwtr--r--", "invalid exec flag: 'rwt'" },
    { "-rwxrwtr--", "invalid exec flag: 'rwt'" },
    { "-rwxrwxr-s", "invalid exec flag: 'r-s'" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *output = g_strdup_printf (
        "%s 1 root root 123 Jan 1 00:00 invalid\n", cases[i][0]);
      g_autoptr (GError) error = NULL;
      g_autoptr (GPtrArray) entries =
        agents_file_entry_parse_ls (output, "/", &error);

      g_test_message ("mode %s", cases[i][0]);
      g_assert_null (entries);
      g_assert_error (error, AGENTS_SANDBOX_ERROR,
                      AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
      g_assert_cmpstr (error->message, ==, cases[i][1]);
    }
}

/* LS-10 */
static void
test_permissions_strings (void)
{
  static const struct
  {
    const char *text;
    guint mode;
    gboolean directory;
    const char *printed;
  } good[] = {
    { "drwxr-x---", 040750, TRUE, "drwxr-x---" },
    { "-rw-r--r--", 0644, FALSE, "-rw-r--r--" },
    { "drwxr-x---+", 040750, TRUE, "drwxr-x---" },
    { "-r-sr-xr-x", 0555, FALSE, "-r-xr-xr-x" },
    { "-rwSr-xr-x", 0655, FALSE, "-rw-r-xr-x" },
  };
  static const char *const bad[][2] = {
    { "lrwxrwxrwx", "invalid permissions type: 'lrwxrwxrwx'" },
    { "-rwxr-xr", "invalid permissions string length: '-rwxr-xr'" },
    { "-rwxr-xr-xx", "invalid permissions string length: '-rwxr-xr-xx'" },
    { "-rwqr-xr-x", "invalid exec flag: 'rwq'" },
  };
  g_autoptr (AgentsPermissions) first = NULL;
  g_autoptr (AgentsPermissions) from_mode = NULL;
  g_autoptr (AgentsPermissions) defaults = NULL;
  g_autofree char *from_mode_text = NULL;
  g_autofree char *defaults_text = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (AgentsPermissions) permissions =
        agents_permissions_new_from_string (good[i].text, &error);
      g_autofree char *printed = NULL;

      g_test_message ("mode %s", good[i].text);
      g_assert_no_error (error);
      g_assert_cmpuint (agents_permissions_to_mode (permissions), ==,
                        good[i].mode);
      g_assert_cmpint (permissions->directory, ==, good[i].directory);
      printed = agents_permissions_to_string (permissions);
      g_assert_cmpstr (printed, ==, good[i].printed);
    }
  first = agents_permissions_new_from_string ("drwxr-x---", NULL);
  g_assert_cmpuint (first->owner, ==, 7);
  g_assert_cmpuint (first->group, ==, 5);
  g_assert_cmpuint (first->other, ==, 0);

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (AgentsPermissions) permissions =
        agents_permissions_new_from_string (bad[i][0], &error);

      g_test_message ("bad mode %s", bad[i][0]);
      g_assert_null (permissions);
      g_assert_error (error, AGENTS_SANDBOX_ERROR,
                      AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
      g_assert_cmpstr (error->message, ==, bad[i][1]);
    }

  from_mode = agents_permissions_new_from_mode (040755);
  from_mode_text = agents_permissions_to_string (from_mode);
  g_assert_cmpstr (from_mode_text, ==, "drwxr-xr-x");

  g_assert_cmpuint (agents_permissions_to_mode (from_mode), ==, 040755);

  /* The bare default is the reference's Permissions(): -rwx------. */
  defaults = agents_permissions_new ();
  defaults_text = agents_permissions_to_string (defaults);
  g_assert_cmpstr (defaults_text, ==, "-rwx------");
  g_assert_cmpuint (agents_permissions_to_mode (defaults), ==, 0700);
}

/* LS-12 */
static void
test_user_and_group_identity (void)
{
  g_autoptr (AgentsUser) alice = agents_user_new ("alice");
  g_autoptr (AgentsUser) alice2 = agents_user_new ("alice");
  g_autoptr (AgentsGroup) admin = agents_group_new ("admin", NULL, 0);
  g_autoptr (AgentsGroup) admin2 = agents_group_new ("admin", NULL, 0);
  g_autoptr (AgentsGroup) with_member = agents_group_new ("g", &alice, 1);
  g_autoptr (AgentsGroup) without = agents_group_new ("g", NULL, 0);

  g_assert_true (agents_user_equal (alice, alice2));
  g_assert_cmpuint (agents_user_hash (alice), ==, agents_user_hash (alice2));
  g_assert_true (agents_group_equal (admin, admin2));
  g_assert_cmpuint (agents_group_hash (admin), ==, agents_group_hash (admin2));
  g_assert_true (agents_group_equal (with_member, without));
  g_assert_cmpuint (agents_group_hash (with_member), ==,
                    agents_group_hash (without));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/reference-cases/LS-02",
                   test_prefixes_directory_entries_with_base);
  g_test_add_func ("/reference-cases/LS-04",
                   test_accepts_special_permission_bits);
  g_test_add_func ("/reference-cases/LS-06", test_includes_gnu_device_nodes);
  g_test_add_func ("/reference-cases/LS-08",
                   test_rejects_special_bits_in_wrong_position);
  g_test_add_func ("/reference-cases/LS-10", test_permissions_strings);
  g_test_add_func ("/reference-cases/LS-12", test_user_and_group_identity);
  g_test_add_func ("/reference-ls/symlink-name-by-target-size",
                   test_symlink_name_by_target_size);

  return g_test_run ();
}
