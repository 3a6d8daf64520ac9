/* agents-unix-local-owner.c - records of the workspace roots unix_local
 * made, and of the processes that own them
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "agents.h"
#include "agents-unix-local-owner.h"

#define GROUP "workspace"
#define RECORD_SUFFIX ".owner"

/* ---- who owns a record ------------------------------------------------ */

static char *
read_trimmed (const char *path)
{
  g_autofree char *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return g_strdup ("");
  return g_strdup (g_strstrip (text));
}

static char *
machine_id (void)
{
  char *id = read_trimmed ("/etc/machine-id");

  if (*id == '\0')
    {
      g_free (id);
      id = read_trimmed ("/var/lib/dbus/machine-id");
    }
  return id;
}

static char *
boot_id (void)
{
  return read_trimmed ("/proc/sys/kernel/random/boot_id");
}

/* Field 22 of /proc/PID/stat, in clock ticks since boot; 0 when the
 * process does not exist. */
static guint64
process_start_time (gint64 pid)
{
  g_autofree char *path =
    g_strdup_printf ("/proc/%" G_GINT64_FORMAT "/stat", pid);
  g_autofree char *text = NULL;
  g_auto (GStrv) fields = NULL;
  const char *rest;

  if (pid <= 0 || !g_file_get_contents (path, &text, NULL, NULL))
    return 0;
  /* The command name may hold spaces and parentheses: skip to the last
   * ')'; field 3 follows it. */
  rest = strrchr (text, ')');
  if (rest == NULL)
    return 0;
  fields = g_strsplit (g_strstrip ((char *) rest + 1), " ", -1);
  if (g_strv_length (fields) < 20)
    return 0;
  return g_ascii_strtoull (fields[19], NULL, 10);
}

/* ---- records ------------------------------------------------------------ */

char *
agents_unix_local_owner_dir (void)
{
  return g_build_filename (g_get_user_cache_dir (), "agents-1.0", "workspaces",
                           NULL);
}

static char *
record_path (const char *root)
{
  g_autofree char *dir = agents_unix_local_owner_dir ();
  g_autofree char *base = g_path_get_basename (root);
  g_autofree char *name = g_strconcat (base, RECORD_SUFFIX, NULL);

  return g_build_filename (dir, name, NULL);
}

static char *
new_token (void)
{
  GString *token = g_string_new (NULL);

  /* GRand seeds from /dev/urandom. */
  for (int i = 0; i < 8; i++)
    g_string_append_printf (token, "%08x", g_random_int ());
  return g_string_free (token, FALSE);
}

char *
agents_unix_local_owner_record_root (const char *root,
                                     const char *token_or_null,
                                     GError **error)
{
  g_autoptr (GKeyFile) record = g_key_file_new ();
  g_autofree char *dir = agents_unix_local_owner_dir ();
  g_autofree char *path = record_path (root);
  g_autofree char *token =
    token_or_null ? g_strdup (token_or_null) : new_token ();
  g_autofree char *machine = machine_id ();
  g_autofree char *boot = boot_id ();
  g_autofree char *data = NULL;
  struct stat st;
  gsize length;

  if (lstat (root, &st) < 0 || !S_ISDIR (st.st_mode))
    {
      int errsv = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _ ("cannot record the workspace root %s: %s"), root,
                   g_strerror (errsv ? errsv : ENOTDIR));
      return NULL;
    }
  g_key_file_set_string (record, GROUP, "root", root);
  g_key_file_set_string (record, GROUP, "token", token);
  g_key_file_set_uint64 (record, GROUP, "device", st.st_dev);
  g_key_file_set_uint64 (record, GROUP, "inode", st.st_ino);
  g_key_file_set_string (record, GROUP, "machine_id", machine);
  g_key_file_set_string (record, GROUP, "boot_id", boot);
  g_key_file_set_int64 (record, GROUP, "pid", getpid ());
  g_key_file_set_uint64 (record, GROUP, "start_time",
                         process_start_time (getpid ()));
  data = g_key_file_to_data (record, &length, NULL);
  if (g_mkdir_with_parents (dir, 0700) < 0)
    {
      int errsv = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _ ("cannot create %s: %s"), dir, g_strerror (errsv));
      return NULL;
    }
  if (!g_file_set_contents_full (path, data, length,
                                 G_FILE_SET_CONTENTS_CONSISTENT, 0600, error))
    return NULL;
  return g_steal_pointer (&token);
}

static GKeyFile *
load_record (const char *path)
{
  GKeyFile *record = g_key_file_new ();

  if (!g_key_file_load_from_file (record, path, G_KEY_FILE_NONE, NULL))
    g_clear_pointer (&record, g_key_file_unref);
  return record;
}

/* Whether the directory at @root is the one @record was made for. */
static gboolean
record_matches_disk (GKeyFile *record, const char *root)
{
  struct stat st;

  return lstat (root, &st) == 0 && S_ISDIR (st.st_mode) &&
         st.st_uid == getuid () &&
         (guint64) st.st_dev ==
           g_key_file_get_uint64 (record, GROUP, "device", NULL) &&
         (guint64) st.st_ino ==
           g_key_file_get_uint64 (record, GROUP, "inode", NULL);
}

gboolean
agents_unix_local_owner_verify (const char *root, const char *token)
{
  g_autofree char *path = record_path (root);
  g_autoptr (GKeyFile) record = NULL;
  g_autofree char *recorded_root = NULL;
  g_autofree char *recorded_token = NULL;

  if (token == NULL || *token == '\0')
    return FALSE;
  record = load_record (path);
  if (record == NULL)
    return FALSE;
  recorded_root = g_key_file_get_string (record, GROUP, "root", NULL);
  recorded_token = g_key_file_get_string (record, GROUP, "token", NULL);
  return g_strcmp0 (recorded_root, root) == 0 &&
         g_strcmp0 (recorded_token, token) == 0 &&
         record_matches_disk (record, root);
}

void
agents_unix_local_owner_forget (const char *root)
{
  g_autofree char *path = record_path (root);

  g_unlink (path);
}

static gboolean
record_owner_gone (GKeyFile *record)
{
  g_autofree char *machine = machine_id ();
  g_autofree char *boot = boot_id ();
  g_autofree char *their_machine =
    g_key_file_get_string (record, GROUP, "machine_id", NULL);
  g_autofree char *their_boot =
    g_key_file_get_string (record, GROUP, "boot_id", NULL);
  gint64 pid = g_key_file_get_int64 (record, GROUP, "pid", NULL);
  guint64 start = g_key_file_get_uint64 (record, GROUP, "start_time", NULL);

  if (their_machine == NULL || g_strcmp0 (their_machine, machine) != 0)
    return FALSE;
  if (g_strcmp0 (their_boot, boot) != 0)
    return TRUE;
  return process_start_time (pid) != start || start == 0;
}

gboolean
agents_unix_local_owner_is_gone (const char *record_path)
{
  g_autoptr (GKeyFile) record = load_record (record_path);

  return record != NULL && record_owner_gone (record);
}

/* The root a record names, if the record is well formed: an absolute
 * path whose name is the record's and carries the owned-root prefix. */
static char *
record_root (GKeyFile *record, const char *file_name)
{
  g_autofree char *root = g_key_file_get_string (record, GROUP, "root", NULL);
  g_autofree char *base = NULL;
  g_autofree char *expected = NULL;

  if (root == NULL || !g_path_is_absolute (root))
    return NULL;
  base = g_path_get_basename (root);
  expected = g_strconcat (base, RECORD_SUFFIX, NULL);
  if (!g_str_has_prefix (base, AGENTS_UNIX_LOCAL_OWNED_ROOT_PREFIX) ||
      !g_str_equal (expected, file_name))
    return NULL;
  return g_steal_pointer (&root);
}

/* Removes one leftover: the root only when it is the very directory the
 * record was made for, the record in any case. Returns whether a root
 * went (or would go). */
static gboolean
reap_one (const char *path,
          const char *file_name,
          gboolean all,
          gboolean dry_run,
          GPtrArray *removed)
{
  g_autoptr (GKeyFile) record = load_record (path);
  g_autofree char *root = NULL;
  g_autoptr (GError) error = NULL;
  gboolean matches;

  if (record == NULL || (!all && !record_owner_gone (record)))
    return FALSE;
  root = record_root (record, file_name);
  matches = root != NULL && record_matches_disk (record, root);
  if (dry_run)
    {
      if (matches && removed != NULL)
        g_ptr_array_add (removed, g_strdup (root));
      return matches;
    }
  if (matches && !agents_fs_rm_rf (root, &error))
    {
      g_debug ("Could not remove the workspace %s: %s", root, error->message);
      return FALSE;
    }
  g_unlink (path);
  if (matches && removed != NULL)
    g_ptr_array_add (removed, g_strdup (root));
  return matches;
}

gssize
agents_unix_local_owner_reap (gboolean all,
                              gboolean dry_run,
                              GPtrArray *removed,
                              GError **error)
{
  g_autofree char *dir_path = agents_unix_local_owner_dir ();
  g_autoptr (GDir) dir = NULL;
  g_autoptr (GError) local_error = NULL;
  const char *name;
  gssize count = 0;

  dir = g_dir_open (dir_path, 0, &local_error);
  if (dir == NULL)
    {
      if (g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return 0;
      g_propagate_error (error, g_steal_pointer (&local_error));
      return -1;
    }
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = NULL;

      if (!g_str_has_suffix (name, RECORD_SUFFIX))
        continue;
      path = g_build_filename (dir_path, name, NULL);
      if (reap_one (path, name, all, dry_run, removed))
        count++;
    }
  return count;
}
