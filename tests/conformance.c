/* conformance.c - one test suite that every sandbox backend must pass
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every test creates a session of the backend from a manifest, starts
 * it, works on it through the public session API only, and tears it down
 * (shutdown, then client delete). Backends whose workspace root is a
 * host directory are also inspected on the host: the suite then places
 * the root in a fresh temporary directory next to an "outside" sentinel
 * directory that holds a canary, and checks after every single operation
 * that nothing outside the root changed.
 */

#include "config.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "conformance.h"
#include "test-utils.h"

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

#define SESSION(f) ((f)->session)

/* ---- async calls ------------------------------------------------------ */

static AgentsSandboxSession *
client_create (AgentsSandboxClient *client,
               AgentsManifest      *manifest,
               GVariant            *options,
               GError             **error)
{
  g_autoptr (GAsyncResult) res = NULL;

  AGENTS_TEST_AWAIT (res, agents_sandbox_client_create_async (
                            client, manifest, options, NULL, NULL,
                            agents_test_async_cb, &res));
  return agents_sandbox_client_create_finish (client, res, error);
}

static gboolean
client_delete (AgentsSandboxClient  *client,
               AgentsSandboxSession *session,
               GError              **error)
{
  g_autoptr (GAsyncResult) res = NULL;

  AGENTS_TEST_AWAIT (res, agents_sandbox_client_delete_async (
                            client, session, NULL, agents_test_async_cb,
                            &res));
  return agents_sandbox_client_delete_finish (client, res, error);
}

static gboolean
session_start (AgentsSandboxSession *session,
               GError              **error)
{
  g_autoptr (GAsyncResult) res = NULL;

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_start_async (
                            session, NULL, agents_test_async_cb, &res));
  return agents_sandbox_session_start_finish (session, res, error);
}

static gboolean
session_shutdown (AgentsSandboxSession *session,
                  GError              **error)
{
  g_autoptr (GAsyncResult) res = NULL;

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_shutdown_async (
                            session, NULL, agents_test_async_cb, &res));
  return agents_sandbox_session_shutdown_finish (session, res, error);
}

static GBytes *
session_read (AgentsSandboxSession *session,
              const char           *path,
              GError              **error)
{
  g_autoptr (GAsyncResult) res = NULL;

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_read_bytes_async (
                            session, path, NULL, NULL, agents_test_async_cb,
                            &res));
  return agents_sandbox_session_read_bytes_finish (session, res, error);
}

static gboolean
session_write_bytes (AgentsSandboxSession *session,
                     const char           *path,
                     GBytes               *data,
                     GError              **error)
{
  g_autoptr (GAsyncResult) res = NULL;

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_write_bytes_async (
                            session, path, data, NULL, NULL,
                            agents_test_async_cb, &res));
  return agents_sandbox_session_write_bytes_finish (session, res, error);
}

static gboolean
session_write (AgentsSandboxSession *session,
               const char           *path,
               const char           *text,
               GError              **error)
{
  g_autoptr (GBytes) data = g_bytes_new (text, strlen (text));

  return session_write_bytes (session, path, data, error);
}

static GListModel *
session_ls (AgentsSandboxSession *session,
            const char           *path,
            GError              **error)
{
  g_autoptr (GAsyncResult) res = NULL;

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_ls_async (
                            session, path, NULL, agents_test_async_cb, &res));
  return agents_sandbox_session_ls_finish (session, res, error);
}

static gboolean
session_mkdir (AgentsSandboxSession *session,
               const char           *path,
               gboolean              parents,
               GError              **error)
{
  g_autoptr (GAsyncResult) res = NULL;

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_mkdir_async (
                            session, path, parents, NULL,
                            agents_test_async_cb, &res));
  return agents_sandbox_session_mkdir_finish (session, res, error);
}

static gboolean
session_rm (AgentsSandboxSession *session,
            const char           *path,
            gboolean              recursive,
            GError              **error)
{
  g_autoptr (GAsyncResult) res = NULL;

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_rm_async (
                            session, path, recursive, NULL,
                            agents_test_async_cb, &res));
  return agents_sandbox_session_rm_finish (session, res, error);
}

static gboolean
session_extract (AgentsSandboxSession   *session,
                 const char             *path,
                 GBytes                 *archive,
                 AgentsCompressionScheme scheme,
                 GError                **error)
{
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GInputStream) data = g_memory_input_stream_new_from_bytes (archive);

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_extract_async (
                            session, path, data, scheme, NULL,
                            agents_test_async_cb, &res));
  return agents_sandbox_session_extract_finish (session, res, error);
}

static gboolean
session_hydrate (AgentsSandboxSession *session,
                 GBytes               *archive,
                 GError              **error)
{
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GInputStream) data = g_memory_input_stream_new_from_bytes (archive);

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_hydrate_workspace_async (
                            session, data, NULL, agents_test_async_cb, &res));
  return agents_sandbox_session_hydrate_workspace_finish (session, res, error);
}

static GBytes *
read_stream (GInputStream *stream,
             GError      **error)
{
  g_autoptr (GOutputStream) out = g_memory_output_stream_new_resizable ();

  if (g_output_stream_splice (out, stream,
                              G_OUTPUT_STREAM_SPLICE_CLOSE_SOURCE |
                                G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET,
                              NULL, error) < 0)
    return NULL;
  return g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (out));
}

static GBytes *
session_persist (AgentsSandboxSession *session,
                 GError              **error)
{
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GInputStream) stream = NULL;

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_persist_workspace_async (
                            session, NULL, agents_test_async_cb, &res));
  stream = agents_sandbox_session_persist_workspace_finish (session, res, error);
  if (stream == NULL)
    return NULL;
  return read_stream (stream, error);
}

static GPtrArray *
session_apply_manifest (AgentsSandboxSession *session,
                        GError              **error)
{
  g_autoptr (GAsyncResult) res = NULL;

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_apply_manifest_async (
                            session, FALSE, NULL, agents_test_async_cb, &res));
  return agents_sandbox_session_apply_manifest_finish (session, res, error);
}

static AgentsExecResult *
session_exec (AgentsSandboxSession *session,
              const char * const   *command,
              gboolean              shell,
              double                timeout,
              GError              **error)
{
  g_autoptr (GAsyncResult) res = NULL;

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_exec_async (
                            session, command, timeout, shell, NULL, NULL,
                            agents_test_async_cb, &res));
  return agents_sandbox_session_exec_finish (session, res, error);
}

static AgentsExecResult *
session_sh (AgentsSandboxSession *session,
            const char           *script,
            GError              **error)
{
  const char *command[] = { script, NULL };

  return session_exec (session, command, TRUE, 0, error);
}

/* Runs @script and asserts that it succeeded; returns its stdout. */
static char *
session_sh_ok (AgentsSandboxSession *session,
               const char           *script)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsExecResult) result = session_sh (session, script, &error);
  g_autofree char *err = NULL;

  g_assert_no_error (error);
  err = agents_exec_result_dup_stderr_text (result);
  if (agents_exec_result_get_exit_code (result) != 0)
    g_error ("command failed (%d): %s\n%s",
             agents_exec_result_get_exit_code (result), script, err);
  return agents_exec_result_dup_stdout_text (result);
}

static gboolean
on_timeout_set_flag (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Spins the main context for @ms milliseconds. */
static void
spin_for (guint ms)
{
  gboolean done = FALSE;
  GSource *source = g_timeout_source_new (ms);

  g_source_set_callback (source, on_timeout_set_flag, &done, NULL);
  g_source_attach (source, g_main_context_get_thread_default ());
  agents_test_wait_for (&done);
  g_source_destroy (source);
  g_source_unref (source);
}

/* ---- host file trees -------------------------------------------------- */

/* Removes @name below @dirfd without following symlinks; works for
 * trees deeper than PATH_MAX. */
static void
rm_tree_at (int         dirfd,
            const char *name)
{
  struct stat st;
  int fd;
  DIR *dir;
  struct dirent *de;

  if (fstatat (dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
    return;
  if (!S_ISDIR (st.st_mode))
    {
      unlinkat (dirfd, name, 0);
      return;
    }
  fchmodat (dirfd, name, 0700, 0);
  fd = openat (dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0 && (dir = fdopendir (fd)) != NULL)
    {
      g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);

      while ((de = readdir (dir)) != NULL)
        if (strcmp (de->d_name, ".") != 0 && strcmp (de->d_name, "..") != 0)
          g_ptr_array_add (names, g_strdup (de->d_name));
      for (guint i = 0; i < names->len; i++)
        rm_tree_at (dirfd (dir), g_ptr_array_index (names, i));
      closedir (dir);
    }
  else if (fd >= 0)
    close (fd);
  unlinkat (dirfd, name, AT_REMOVEDIR);
}

static void
rm_tree (const char *path)
{
  if (path != NULL)
    rm_tree_at (AT_FDCWD, path);
}

/* Empties @dir (not following symlinks) and keeps it. */
static void
clear_dir (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    g_ptr_array_add (names, g_build_filename (dir, name, NULL));
  for (guint i = 0; i < names->len; i++)
    rm_tree (g_ptr_array_index (names, i));
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* One line per file below @dir (except @skip, relative to the top):
 * kind, path, mode, link count, inode, size, mtime and a digest of the
 * contents, or the target of a symlink. Any write, link, rename or
 * removal changes it. */
static void
describe_tree_at (GString    *out,
                  const char *top,
                  const char *rel,
                  const char *skip)
{
  g_autofree char *here = *rel ? g_build_filename (top, rel, NULL)
                               : g_strdup (top);
  g_autoptr (GDir) dir = g_dir_open (here, 0, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_strings);

  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *child = *rel ? g_build_filename (rel, names->pdata[i], NULL)
                                    : g_strdup (names->pdata[i]);
      g_autofree char *path = g_build_filename (top, child, NULL);
      struct stat st;

      if (g_strcmp0 (child, skip) == 0)
        continue;
      if (lstat (path, &st) < 0)
        {
          g_string_append_printf (out, "? %s\n", child);
          continue;
        }
      if (S_ISLNK (st.st_mode))
        {
          g_autofree char *target = g_file_read_link (path, NULL);

          g_string_append_printf (out, "l %s -> %s\n", child, target);
        }
      else if (S_ISDIR (st.st_mode))
        {
          g_string_append_printf (out, "d %s %o\n", child, st.st_mode & 07777);
          describe_tree_at (out, top, child, skip);
        }
      else if (S_ISREG (st.st_mode))
        {
          g_autofree char *contents = NULL;
          gsize length = 0;
          g_autofree char *digest = NULL;

          g_file_get_contents (path, &contents, &length, NULL);
          digest = g_compute_checksum_for_data (G_CHECKSUM_SHA256,
                                                (const guchar *) contents,
                                                length);
          g_string_append_printf (out, "f %s %o n%lu i%lu s%ld m%ld.%09ld %s\n",
                                  child, st.st_mode & 07777,
                                  (unsigned long) st.st_nlink,
                                  (unsigned long) st.st_ino,
                                  (long) st.st_size, (long) st.st_mtim.tv_sec,
                                  st.st_mtim.tv_nsec, digest);
        }
      else
        g_string_append_printf (out, "o %s %o\n", child, st.st_mode);
    }
}

static char *
describe_tree (const char *dir,
               const char *skip)
{
  GString *out = g_string_new (NULL);

  describe_tree_at (out, dir, "", skip);
  return g_string_free (out, FALSE);
}

static gboolean
bytes_contain (GBytes     *bytes,
               const char *needle)
{
  gsize size = 0;
  const char *data = bytes ? g_bytes_get_data (bytes, &size) : NULL;

  return data != NULL && memmem (data, size, needle, strlen (needle)) != NULL;
}

/* ---- the fixture ------------------------------------------------------ */

typedef struct
{
  const AgentsConformanceBackend *backend;
  AgentsSandboxClient            *client;
  AgentsSandboxSession           *session;
  char                           *tmp;      /* host mode: holds all */
  char                           *root;     /* the root, as sessions see it */
  char                           *outside;  /* the sentinel, or NULL */
  char                           *sibling;  /* root + "-sib" */
  char                           *canary;   /* only ever placed outside */
  char                           *token;    /* a unique file name */
  char                           *before;   /* what lies outside the root */
  char                           *archive_prefix; /* "@X" of templates */
  guint                           escapes;
} Fixture;

static gboolean
fixture_host (Fixture *f)
{
  return f->backend->host_visible_root;
}

static gboolean
fixture_has_outside (Fixture *f)
{
  return f->outside != NULL;
}

/* Absolute directories whose direct children must never include the
 * fixture's token. */
static GPtrArray *
token_dirs (Fixture *f)
{
  GPtrArray *dirs = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *dir = g_path_get_dirname (f->root);

  g_ptr_array_add (dirs, g_strdup ("/"));
  g_ptr_array_add (dirs, g_strdup ("/etc"));
  g_ptr_array_add (dirs, g_strdup ("/tmp"));
  g_ptr_array_add (dirs, g_strdup (g_get_tmp_dir ()));
  if (f->outside != NULL)
    g_ptr_array_add (dirs, g_strdup (f->outside));
  while (!g_str_equal (dir, "/"))
    {
      char *parent = g_path_get_dirname (dir);

      g_ptr_array_add (dirs, g_steal_pointer (&dir));
      dir = parent;
    }
  return dirs;
}

static const char describe_script[] =
  "describe () { [ -e \"$1\" ] || { echo \"absent $1\"; return; }; "
  "(cd \"$1\" && find . | LC_ALL=C sort | while IFS= read -r p; do "
  "if [ -L \"$p\" ]; then printf 'l %s %s\\n' \"$p\" \"$(readlink \"$p\")\"; "
  "elif [ -f \"$p\" ]; then printf 'f %s %s %s\\n' \"$p\" "
  "\"$(stat -c '%a %h %i %s %Y' \"$p\")\" \"$(cksum < \"$p\")\"; "
  "else printf 'd %s %s\\n' \"$p\" \"$(stat -c %a \"$p\")\"; fi; done); }; ";

/* What lies outside the root: in host mode, the whole temporary
 * directory except the root; otherwise the sentinel and sibling trees
 * and the listings of the root's ancestors, as exec sees them. */
static char *
describe_outside (Fixture *f)
{
  g_autoptr (GString) script = NULL;
  g_autofree char *parent = NULL;
  g_autofree char *rel = NULL;

  if (fixture_host (f))
    {
      rel = g_strdup (f->root + strlen (f->tmp) + 1);
      return describe_tree (f->tmp, rel);
    }
  if (!fixture_has_outside (f))
    return g_strdup ("");

  script = g_string_new (describe_script);
  g_string_append_printf (script, "describe %s; ", f->outside);
  g_string_append_printf (script, "describe %s; ", f->sibling);
  parent = g_path_get_dirname (f->root);
  for (;;)
    {
      char *next;

      g_string_append_printf (script, "ls -a %s | LC_ALL=C sort; ", parent);
      if (g_str_equal (parent, "/"))
        break;
      next = g_path_get_dirname (parent);
      g_free (parent);
      parent = next;
    }
  return session_sh_ok (f->session, script->str);
}

static void
host_write (const char *path,
            const char *contents,
            mode_t      mode)
{
  g_autofree char *dir = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
  g_assert_cmpint (chmod (path, mode), ==, 0);
}

/* The sentinel: files holding the canary, with the names the tests use
 * inside, so that an operation that escapes hits them. */
static const struct
{
  const char *rel;
  mode_t      mode;
} sentinel_files[] = {
  { "canary.txt", 0644 },
  { "f.txt", 0644 },
  { "inner.txt", 0644 },
  { "passwd", 0644 },
  { "outside-only.txt", 0644 },
  { "sub/nested-outside.txt", 0600 },
  { "d/keep-outside.txt", 0644 },
};

