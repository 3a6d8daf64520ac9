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
#include <signal.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "conformance.h"
#include "test-utils.h"

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

/* ---- async calls ------------------------------------------------------ */

static AgentsSandboxSession *
client_create (AgentsSandboxClient *client,
               AgentsManifest *manifest,
               GVariant *options,
               GError **error)
{
  g_autoptr (GAsyncResult) res = NULL;

  AGENTS_TEST_AWAIT (
    res, agents_sandbox_client_create_async (client, manifest, options, NULL,
                                             NULL, agents_test_async_cb, &res));
  return agents_sandbox_client_create_finish (client, res, error);
}

static gboolean
client_delete (AgentsSandboxClient *client,
               AgentsSandboxSession *session,
               GError **error)
{
  g_autoptr (GAsyncResult) res = NULL;

  AGENTS_TEST_AWAIT (res, agents_sandbox_client_delete_async (
                            client, session, NULL, agents_test_async_cb, &res));
  return agents_sandbox_client_delete_finish (client, res, error);
}

static gboolean
session_start (AgentsSandboxSession *session, GError **error)
{
  g_autoptr (GAsyncResult) res = NULL;

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_start_async (
                            session, NULL, agents_test_async_cb, &res));
  return agents_sandbox_session_start_finish (session, res, error);
}

/* The generic path check installs its runtime helper outside the root
 * on first use, as the library means to: done before the outside is
 * recorded, it is not taken for an escape. */
static void
session_install_helpers (AgentsSandboxSession *session)
{
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *abs = NULL;

  AGENTS_TEST_AWAIT (res,
                     agents_sandbox_session_validate_path_access_async (
                       session, ".", FALSE, NULL, agents_test_async_cb, &res));
  abs =
    agents_sandbox_session_validate_path_access_finish (session, res, &error);
  g_assert_no_error (error);
}

static gboolean
session_shutdown (AgentsSandboxSession *session, GError **error)
{
  g_autoptr (GAsyncResult) res = NULL;

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_shutdown_async (
                            session, NULL, agents_test_async_cb, &res));
  return agents_sandbox_session_shutdown_finish (session, res, error);
}

static GBytes *
session_read (AgentsSandboxSession *session, const char *path, GError **error)
{
  g_autoptr (GAsyncResult) res = NULL;

  AGENTS_TEST_AWAIT (
    res, agents_sandbox_session_read_bytes_async (session, path, NULL, NULL,
                                                  agents_test_async_cb, &res));
  return agents_sandbox_session_read_bytes_finish (session, res, error);
}

static gboolean
session_write_bytes (AgentsSandboxSession *session,
                     const char *path,
                     GBytes *data,
                     GError **error)
{
  g_autoptr (GAsyncResult) res = NULL;

  AGENTS_TEST_AWAIT (
    res, agents_sandbox_session_write_bytes_async (
           session, path, data, NULL, NULL, agents_test_async_cb, &res));
  return agents_sandbox_session_write_bytes_finish (session, res, error);
}

static gboolean
session_write (AgentsSandboxSession *session,
               const char *path,
               const char *text,
               GError **error)
{
  g_autoptr (GBytes) data = g_bytes_new (text, strlen (text));

  return session_write_bytes (session, path, data, error);
}

static GListModel *
session_ls (AgentsSandboxSession *session, const char *path, GError **error)
{
  g_autoptr (GAsyncResult) res = NULL;

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_ls_async (
                            session, path, NULL, agents_test_async_cb, &res));
  return agents_sandbox_session_ls_finish (session, res, error);
}

static gboolean
session_mkdir (AgentsSandboxSession *session,
               const char *path,
               gboolean parents,
               GError **error)
{
  g_autoptr (GAsyncResult) res = NULL;

  AGENTS_TEST_AWAIT (
    res, agents_sandbox_session_mkdir_async (session, path, parents, NULL,
                                             agents_test_async_cb, &res));
  return agents_sandbox_session_mkdir_finish (session, res, error);
}

static gboolean
session_rm (AgentsSandboxSession *session,
            const char *path,
            gboolean recursive,
            GError **error)
{
  g_autoptr (GAsyncResult) res = NULL;

  AGENTS_TEST_AWAIT (
    res, agents_sandbox_session_rm_async (session, path, recursive, NULL,
                                          agents_test_async_cb, &res));
  return agents_sandbox_session_rm_finish (session, res, error);
}

static gboolean
session_extract (AgentsSandboxSession *session,
                 const char *path,
                 GBytes *archive,
                 AgentsCompressionScheme scheme,
                 GError **error)
{
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GInputStream) data =
    g_memory_input_stream_new_from_bytes (archive);

  AGENTS_TEST_AWAIT (
    res, agents_sandbox_session_extract_async (
           session, path, data, scheme, NULL, agents_test_async_cb, &res));
  return agents_sandbox_session_extract_finish (session, res, error);
}

static gboolean
session_hydrate (AgentsSandboxSession *session, GBytes *archive, GError **error)
{
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GInputStream) data =
    g_memory_input_stream_new_from_bytes (archive);

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_hydrate_workspace_async (
                            session, data, NULL, agents_test_async_cb, &res));
  return agents_sandbox_session_hydrate_workspace_finish (session, res, error);
}

static GBytes *
read_stream (GInputStream *stream, GError **error)
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
session_persist (AgentsSandboxSession *session, GError **error)
{
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (GInputStream) stream = NULL;

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_persist_workspace_async (
                            session, NULL, agents_test_async_cb, &res));
  stream =
    agents_sandbox_session_persist_workspace_finish (session, res, error);
  if (stream == NULL)
    return NULL;
  return read_stream (stream, error);
}

static GPtrArray *
session_apply_manifest (AgentsSandboxSession *session, GError **error)
{
  g_autoptr (GAsyncResult) res = NULL;

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_apply_manifest_async (
                            session, FALSE, NULL, agents_test_async_cb, &res));
  return agents_sandbox_session_apply_manifest_finish (session, res, error);
}

static AgentsExecResult *
session_exec (AgentsSandboxSession *session,
              const char *const *command,
              gboolean shell,
              double timeout,
              GError **error)
{
  g_autoptr (GAsyncResult) res = NULL;

  AGENTS_TEST_AWAIT (res, agents_sandbox_session_exec_async (
                            session, command, timeout, shell, NULL, NULL,
                            agents_test_async_cb, &res));
  return agents_sandbox_session_exec_finish (session, res, error);
}

static AgentsExecResult *
session_sh (AgentsSandboxSession *session, const char *script, GError **error)
{
  const char *command[] = { script, NULL };

  return session_exec (session, command, TRUE, 0, error);
}

/* Runs @script and asserts that it succeeded; returns its stdout. */
static char *
session_sh_ok (AgentsSandboxSession *session, const char *script)
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
rm_tree_at (int parent, const char *name)
{
  struct stat st;
  int fd;
  DIR *dir;
  struct dirent *de;

  if (fstatat (parent, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
    return;
  if (!S_ISDIR (st.st_mode))
    {
      unlinkat (parent, name, 0);
      return;
    }
  fchmodat (parent, name, 0700, 0);
  fd = openat (parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
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
  unlinkat (parent, name, AT_REMOVEDIR);
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
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* One line per file below @dir (except @skip, relative to the top):
 * kind, path, mode, link count, inode, size, mtime and a digest of the
 * contents, or the target of a symlink. Any write, link, rename or
 * removal changes it. */
static void
describe_tree_at (GString *out,
                  const char *top,
                  const char *rel,
                  const char *skip)
{
  g_autofree char *here =
    *rel ? g_build_filename (top, rel, NULL) : g_strdup (top);
  g_autoptr (GDir) dir = g_dir_open (here, 0, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_strings);

  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *child = *rel
                                 ? g_build_filename (rel, names->pdata[i], NULL)
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
          digest = g_compute_checksum_for_data (
            G_CHECKSUM_SHA256, (const guchar *) contents, length);
          g_string_append_printf (
            out, "f %s %o n%lu i%lu s%ld m%ld.%09ld %s\n", child,
            st.st_mode & 07777, (unsigned long) st.st_nlink,
            (unsigned long) st.st_ino, (long) st.st_size,
            (long) st.st_mtim.tv_sec, st.st_mtim.tv_nsec, digest);
        }
      else
        g_string_append_printf (out, "o %s %o\n", child, st.st_mode);
    }
}

static char *
describe_tree (const char *dir, const char *skip)
{
  GString *out = g_string_new (NULL);

  describe_tree_at (out, dir, "", skip);
  return g_string_free (out, FALSE);
}

static gboolean
bytes_contain (GBytes *bytes, const char *needle)
{
  gsize size = 0;
  const char *data = bytes ? g_bytes_get_data (bytes, &size) : NULL;

  return data != NULL && memmem (data, size, needle, strlen (needle)) != NULL;
}

/* ---- the fixture ------------------------------------------------------ */

typedef struct
{
  const AgentsConformanceBackend *backend;
  AgentsSandboxClient *client;
  AgentsSandboxSession *session;
  char *tmp;            /* host mode: holds all */
  char *root;           /* the root, as sessions see it */
  char *outside;        /* the sentinel, or NULL */
  char *sibling;        /* root + "-sib" */
  char *canary;         /* only ever placed outside */
  char *token;          /* a unique file name */
  char *before;         /* what lies outside the root */
  char *archive_prefix; /* "@X" of templates */
  guint escapes;
} Fixture;

static gboolean
fixture_host (Fixture *f)
{
  return f->backend->host_visible_root;
}

static gboolean
backend_has_outside (const AgentsConformanceBackend *backend)
{
  return backend->host_visible_root || backend->outside_dir != NULL;
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
  g_ptr_array_add (dirs, g_get_current_dir ());
  g_ptr_array_add (dirs, g_strdup (f->root));
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
 * directory except the root; otherwise, as commands see them, the
 * sentinel and sibling trees (if any) and the listings of the root's
 * ancestors, and always any file named after the token. */
static char *
describe_outside (Fixture *f)
{
  g_autoptr (GString) script = NULL;
  g_autoptr (GPtrArray) dirs = NULL;
  g_autofree char *rel = NULL;

  if (fixture_host (f))
    {
      rel = g_strdup (f->root + strlen (f->tmp) + 1);
      return describe_tree (f->tmp, rel);
    }

  script = g_string_new (describe_script);
  dirs = token_dirs (f);
  for (guint i = 0; i < dirs->len; i++)
    {
      g_autofree char *path = g_build_filename (dirs->pdata[i], f->token, NULL);
      g_autofree char *q = g_shell_quote (path);

      g_string_append_printf (script,
                              "if [ -e %s ] || [ -L %s ]; then "
                              "echo created %s; fi; ",
                              q, q, q);
    }
  if (!fixture_has_outside (f))
    return session_sh_ok (f->session, script->str);

  for (const char *dir = f->outside; dir != NULL;
       dir = dir == f->outside ? f->sibling : NULL)
    {
      g_autofree char *q = g_shell_quote (dir);

      g_string_append_printf (script, "describe %s; ", q);
    }
  for (guint i = 0; i < dirs->len; i++)
    {
      g_autofree char *q = g_shell_quote (dirs->pdata[i]);

      if (!g_str_equal (dirs->pdata[i], f->root))
        /* Docker's archive endpoint pivots into the container through a
         * transient /.pivot_rootNNN, gone a moment after an aborted
         * upload: the engine's, not an escape. */
        g_string_append_printf (
          script, "ls -a %s | grep -v '^\\.pivot_root' | LC_ALL=C sort; ", q);
    }
  return session_sh_ok (f->session, script->str);
}

static void
host_write (const char *path, const char *contents, mode_t mode)
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
  mode_t mode;
} sentinel_files[] = {
  { "canary.txt", 0644 },         { "f.txt", 0644 },
  { "inner.txt", 0644 },          { "passwd", 0644 },
  { "outside-only.txt", 0644 },   { "sub/nested-outside.txt", 0600 },
  { "d/keep-outside.txt", 0644 },
};

static void
fixture_make_sentinel (Fixture *f)
{
  g_autoptr (GString) script = NULL;
  g_autofree char *q_canary = NULL;

  if (fixture_host (f))
    {
      g_autofree char *secret =
        g_build_filename (f->sibling, "secret-outside.txt", NULL);

      for (guint i = 0; i < G_N_ELEMENTS (sentinel_files); i++)
        {
          g_autofree char *path =
            g_build_filename (f->outside, sentinel_files[i].rel, NULL);

          host_write (path, f->canary, sentinel_files[i].mode);
        }
      host_write (secret, f->canary, 0644);
      return;
    }

  q_canary = g_shell_quote (f->canary);
  script = g_string_new ("set -e; ");
  for (guint i = 0; i < G_N_ELEMENTS (sentinel_files); i++)
    {
      g_autofree char *path =
        g_build_filename (f->outside, sentinel_files[i].rel, NULL);
      g_autofree char *dir = g_path_get_dirname (path);
      g_autofree char *q_path = g_shell_quote (path);
      g_autofree char *q_dir = g_shell_quote (dir);

      g_string_append_printf (script,
                              "mkdir -p %s; printf %%s %s > %s; "
                              "chmod %o %s; ",
                              q_dir, q_canary, q_path,
                              (guint) sentinel_files[i].mode, q_path);
    }
  {
    g_autofree char *q_sib = g_shell_quote (f->sibling);

    g_string_append_printf (script,
                            "mkdir -p %s; printf %%s %s > %s/"
                            "secret-outside.txt; ",
                            q_sib, q_canary, q_sib);
  }
  g_free (session_sh_ok (f->session, script->str));
}

/* Reports a file named after the token in a directory outside the root,
 * and removes it (host mode; exec mode describes them). */
static void
fixture_check_token (Fixture *f, const char *what)
{
  g_autoptr (GPtrArray) dirs = token_dirs (f);

  for (guint i = 0; i < dirs->len; i++)
    {
      g_autofree char *path = g_build_filename (dirs->pdata[i], f->token, NULL);
      struct stat st;

      if (lstat (path, &st) < 0)
        continue;
      rm_tree (path);
      f->escapes++;
      g_test_message ("ESCAPE after %s: created %s", what, path);
      g_test_fail ();
    }
}

static void
fixture_compare_outside (Fixture *f, const char *what)
{
  g_autofree char *now = describe_outside (f);

  if (g_strcmp0 (now, f->before) == 0)
    return;
  f->escapes++;
  g_test_message ("ESCAPE after %s: outside the root changed\n"
                  "--- before\n%s--- after\n%s",
                  what, f->before, now);
  g_test_fail ();
  g_free (f->before);
  f->before = g_steal_pointer (&now);
}

/* Checks that nothing outside the root changed since the last check.
 * Without a sentinel, backends that are not host visible are only
 * checked when the fixture closes: every check costs a command. */
static void
fixture_check_outside (Fixture *f, const char *what)
{
  if (fixture_host (f))
    fixture_check_token (f, what);
  if (fixture_host (f) || fixture_has_outside (f))
    fixture_compare_outside (f, what);
}

static void
fixture_open (Fixture *f,
              const AgentsConformanceBackend *backend,
              AgentsManifest *manifest_or_null)
{
  g_autoptr (AgentsManifest) manifest =
    manifest_or_null ? g_object_ref (manifest_or_null) : agents_manifest_new ();
  g_autoptr (GVariant) options = NULL;
  g_autoptr (GError) error = NULL;

  memset (f, 0, sizeof *f);
  f->backend = backend;
  f->canary = g_strdup_printf ("CANARY-%08x%08x-must-never-be-read",
                               g_random_int (), g_random_int ());
  f->token = g_strdup_printf ("agents-conformance-%d-%08x", (int) getpid (),
                              g_random_int ());
  f->archive_prefix = g_strdup ("");

  if (fixture_host (f))
    {
      g_autofree char *tmp = agents_test_make_tmp_dir ("agents-conformance-");

      f->tmp = g_canonicalize_filename (tmp, "/");
      f->root = g_build_filename (f->tmp, "w", "s", "root", NULL);
      f->outside = g_build_filename (f->tmp, "outside", NULL);
      f->sibling = g_strconcat (f->root, "-sib", NULL);
      g_assert_cmpint (g_mkdir_with_parents (f->root, 0755), ==, 0);
      agents_manifest_set_root (manifest, f->root);
      fixture_make_sentinel (f);
    }
  else if (backend->root != NULL)
    agents_manifest_set_root (manifest, backend->root);

  f->client = backend->new_client ();
  g_assert_true (AGENTS_IS_SANDBOX_CLIENT (f->client));
  if (backend->options != NULL)
    options = backend->options ();
  if (options != NULL)
    g_variant_ref_sink (options);
  f->session = client_create (f->client, manifest, options, &error);
  g_assert_no_error (error);
  g_assert_true (session_start (f->session, &error));
  g_assert_no_error (error);

  if (!fixture_host (f))
    {
      AgentsManifest *used = agents_sandbox_session_get_manifest (f->session);

      f->root = g_canonicalize_filename (agents_manifest_get_root (used), "/");
      f->sibling = g_strconcat (f->root, "-sib", NULL);
      session_install_helpers (f->session);
      if (backend->outside_dir != NULL)
        {
          f->outside = g_build_filename (backend->outside_dir, f->token, NULL);
          fixture_make_sentinel (f);
        }
    }
  f->before = describe_outside (f);
}

static void
fixture_close (Fixture *f)
{
  g_autoptr (GError) error = NULL;

  fixture_check_outside (f, "the test");
  if (!fixture_host (f) && !fixture_has_outside (f))
    fixture_compare_outside (f, "the test");
  if (f->escapes > 0)
    g_test_message ("%u escapes from the root", f->escapes);
  if (!fixture_host (f) && fixture_has_outside (f))
    {
      g_autofree char *q_out = g_shell_quote (f->outside);
      g_autofree char *q_sib = g_shell_quote (f->sibling);
      g_autofree char *script = g_strdup_printf ("rm -rf %s %s", q_out, q_sib);

      g_free (session_sh_ok (f->session, script));
    }
  g_assert_true (session_shutdown (f->session, &error));
  g_assert_no_error (error);
  g_assert_true (client_delete (f->client, f->session, &error));
  g_assert_no_error (error);
  if (f->tmp != NULL)
    rm_tree (f->tmp);

  g_clear_object (&f->session);
  g_clear_object (&f->client);
  g_free (f->tmp);
  g_free (f->root);
  g_free (f->outside);
  g_free (f->sibling);
  g_free (f->canary);
  g_free (f->token);
  g_free (f->before);
  g_free (f->archive_prefix);
}

static char *
fixture_host_path (Fixture *f, const char *rel)
{
  g_assert_true (fixture_host (f));
  return g_build_filename (f->root, rel, NULL);
}

/* Fails the test when @data holds the canary. */
static void
fixture_check_read (Fixture *f, GBytes *data, const char *what)
{
  if (!bytes_contain (data, f->canary))
    return;
  f->escapes++;
  g_test_message ("ESCAPE: %s returned the canary that lies outside the root",
                  what);
  g_test_fail ();
}

/* ---- templates -------------------------------------------------------- */

/* Tokens of path templates:
 *   @R the root           @O the sentinel outside
 *   @S the root's sibling (root + "-sib")
 *   @U the sentinel, relative to the root   @V the sibling, relative
 *   @P a file name unique to the test      @X the archive prefix
 *   @UPS 64 times "../"    @LUPS 2200 times "../"
 *   @LONG 4200 bytes, 210 components   @NAME a 300-byte name
 *   @HOPS 500 times "../sub/"
 */
static char *
repeat (const char *unit, guint n)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    g_string_append (out, unit);
  return g_string_free (out, FALSE);
}

static char *
relative_to_root (Fixture *f, const char *abs)
{
  GString *out = g_string_new (NULL);

  for (const char *p = f->root; *p != '\0'; p++)
    if (*p == '/' && p[1] != '\0')
      g_string_append (out, "../");
  g_string_append (out, abs + 1);
  return g_string_free (out, FALSE);
}

static char *
expand (Fixture *f, const char *template)
{
  static const struct
  {
    const char *token;
    const char *unit;
    guint n;
  } repeats[] = {
    { "@LONG", "0123456789abcdefghi/", 210 },
    { "@LUPS", "../", 2200 },
    { "@NAME", "n", 300 },
    { "@UPS", "../", 64 },
    { "@HOPS", "../sub/", 500 },
  };
  GString *out = g_string_new (NULL);
  const char *p = template;

  while (*p != '\0')
    {
      gboolean matched = FALSE;

      if (*p != '@')
        {
          g_string_append_c (out, *p++);
          continue;
        }
      for (guint i = 0; i < G_N_ELEMENTS (repeats) && !matched; i++)
        if (g_str_has_prefix (p, repeats[i].token))
          {
            g_autofree char *text = repeat (repeats[i].unit, repeats[i].n);

            g_string_append (out, text);
            p += strlen (repeats[i].token);
            matched = TRUE;
          }
      if (matched)
        continue;

      switch (p[1])
        {
        case 'R':
          g_string_append (out, f->root);
          break;
        case 'O':
          g_assert_nonnull (f->outside);
          g_string_append (out, f->outside);
          break;
        case 'S':
          g_string_append (out, f->sibling);
          break;
        case 'U':
          {
            g_autofree char *rel = NULL;

            g_assert_nonnull (f->outside);
            rel = relative_to_root (f, f->outside);
            g_string_append (out, rel);
          }
          break;
        case 'V':
          {
            g_autofree char *base = g_path_get_basename (f->sibling);

            g_string_append_printf (out, "../%s", base);
          }
          break;
        case 'P':
          g_string_append (out, f->token);
          break;
        case 'X':
          g_string_append (out, f->archive_prefix);
          break;
        default:
          g_error ("unknown template token in %s", template);
        }
      p += 2;
    }
  return g_string_free (out, FALSE);
}

static gboolean
template_needs_outside (const char *template)
{
  return template != NULL &&
         (strstr (template, "@O") != NULL || strstr (template, "@U") != NULL);
}

/* ---- setup steps ------------------------------------------------------ */

typedef enum
{
  STEP_END,
  STEP_DIR,
  STEP_FILE,
  STEP_SYMLINK,
  STEP_FIFO,
  STEP_EXEC,
} StepKind;

/* @a: a path relative to the root (a command for STEP_EXEC); @b: the
 * contents of a file or the target of a symlink. Both are templates. */
typedef struct
{
  StepKind kind;
  const char *a;
  const char *b;
} Step;

#define STEPS(...) ((const Step[]){ __VA_ARGS__, { STEP_END, NULL, NULL } })
#define MKDIR(p)      \
  {                   \
    STEP_DIR, p, NULL \
  }
#define FILE_AT(p)     \
  {                    \
    STEP_FILE, p, NULL \
  }
#define LINK(p, target)     \
  {                         \
    STEP_SYMLINK, p, target \
  }
#define FIFO(p)        \
  {                    \
    STEP_FIFO, p, NULL \
  }
#define SH(cmd)          \
  {                      \
    STEP_EXEC, cmd, NULL \
  }

#define INSIDE_CONTENT "inside content\n"

static gboolean
steps_need_outside (const Step *steps)
{
  for (; steps != NULL && steps->kind != STEP_END; steps++)
    if (template_needs_outside (steps->a) || template_needs_outside (steps->b))
      return TRUE;
  return FALSE;
}

static void
run_exec_step (Fixture *f, const char *command)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsExecResult) result =
    session_sh (f->session, command, &error);

  /* Whether the command succeeds is the backend's business. */
  g_assert_no_error (error);
  g_assert_nonnull (result);
}

static void
run_host_step (Fixture *f, const Step *step)
{
  g_autofree char *rel = expand (f, step->a);
  g_autofree char *path = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *b = step->b ? expand (f, step->b) : NULL;

  if (step->kind == STEP_EXEC)
    {
      run_exec_step (f, rel);
      return;
    }
  path = g_build_filename (f->root, rel, NULL);
  dir = g_path_get_dirname (path);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  switch (step->kind)
    {
    case STEP_DIR:
      g_assert_cmpint (g_mkdir_with_parents (path, 0755), ==, 0);
      break;
    case STEP_FILE:
      host_write (path, b ? b : INSIDE_CONTENT, 0644);
      break;
    case STEP_SYMLINK:
      g_assert_cmpint (symlink (b, path), ==, 0);
      break;
    case STEP_FIFO:
      g_assert_cmpint (mkfifo (path, 0644), ==, 0);
      break;
    default:
      g_assert_not_reached ();
    }
}

static void
append_exec_step (Fixture *f, GString *script, const Step *step)
{
  g_autofree char *rel = expand (f, step->a);
  g_autofree char *b = step->b ? expand (f, step->b) : NULL;
  g_autofree char *path = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *q_path = NULL;
  g_autofree char *q_dir = NULL;
  g_autofree char *q_b = NULL;

  if (step->kind == STEP_EXEC)
    {
      g_string_append_printf (script, "(%s) || true; ", rel);
      return;
    }
  path = g_build_filename (f->root, rel, NULL);
  dir = g_path_get_dirname (path);
  q_path = g_shell_quote (path);
  q_dir = g_shell_quote (dir);
  q_b = g_shell_quote (b ? b : INSIDE_CONTENT);
  g_string_append_printf (script, "mkdir -p -- %s; ", q_dir);
  switch (step->kind)
    {
    case STEP_DIR:
      g_string_append_printf (script, "mkdir -p -- %s; ", q_path);
      break;
    case STEP_FILE:
      g_string_append_printf (script, "printf %%s %s > %s; ", q_b, q_path);
      break;
    case STEP_SYMLINK:
      g_string_append_printf (script, "ln -s -- %s %s; ", q_b, q_path);
      break;
    case STEP_FIFO:
      g_string_append_printf (script, "mkfifo -- %s; ", q_path);
      break;
    default:
      g_assert_not_reached ();
    }
}

static void
fixture_run_steps (Fixture *f, const Step *steps)
{
  g_autoptr (GString) script = NULL;

  if (steps == NULL)
    return;
  if (fixture_host (f))
    {
      for (; steps->kind != STEP_END; steps++)
        run_host_step (f, steps);
      return;
    }
  script = g_string_new ("set -e; ");
  for (; steps->kind != STEP_END; steps++)
    append_exec_step (f, script, steps);
  g_free (session_sh_ok (f->session, script->str));
}

/* Empties the root, then runs @steps. */
static void
fixture_reset (Fixture *f, const Step *steps)
{
  if (fixture_host (f))
    {
      g_assert_cmpint (g_mkdir_with_parents (f->root, 0755), ==, 0);
      clear_dir (f->root);
    }
  else
    {
      g_autofree char *q = g_shell_quote (f->root);
      g_autofree char *script = g_strdup_printf (
        "mkdir -p %s && find %s -mindepth 1 -maxdepth 1 -exec rm -rf {} +", q,
        q);

      g_free (session_sh_ok (f->session, script));
    }
  fixture_run_steps (f, steps);
}

/* ---- archives --------------------------------------------------------- */

typedef enum
{
  FORMAT_TAR,
  FORMAT_TAR_GZ,
  FORMAT_ZIP,
} Format;

typedef struct
{
  struct archive *a;
  GByteArray *out;
  Fixture *f;
} Builder;

static la_ssize_t
builder_write (struct archive *a, void *data, const void *buffer, size_t length)
{
  g_byte_array_append (((Builder *) data)->out, buffer, length);
  return length;
}

static Builder *
builder_new (Format format, Fixture *f)
{
  Builder *b = g_new0 (Builder, 1);

  b->a = archive_write_new ();
  b->out = g_byte_array_new ();
  b->f = f;
  if (format == FORMAT_ZIP)
    archive_write_set_format_zip (b->a);
  else
    archive_write_set_format_pax_restricted (b->a);
  if (format == FORMAT_TAR_GZ)
    archive_write_add_filter_gzip (b->a);
  archive_write_set_bytes_per_block (b->a, 0);
  g_assert_cmpint (archive_write_open (b->a, b, NULL, builder_write, NULL), ==,
                   ARCHIVE_OK);
  return b;
}

/* Adds a member; @name, @symlink and @hardlink are templates. */
static void
builder_entry (Builder *b,
               const char *name,
               mode_t type,
               mode_t perm,
               gint64 size,
               const char *symlink_target,
               const char *hardlink_target)
{
  struct archive_entry *entry = archive_entry_new ();
  g_autofree char *x_name = expand (b->f, name);

  archive_entry_set_pathname (entry, x_name);
  archive_entry_set_filetype (entry, type);
  archive_entry_set_perm (entry, perm);
  archive_entry_set_size (entry, size);
  archive_entry_set_mtime (entry, 1700000000, 0);
  if (symlink_target != NULL)
    {
      g_autofree char *target = expand (b->f, symlink_target);

      archive_entry_set_symlink (entry, target);
    }
  if (hardlink_target != NULL)
    {
      g_autofree char *target = expand (b->f, hardlink_target);

      archive_entry_set_hardlink (entry, target);
    }
  if (type == AE_IFCHR || type == AE_IFBLK)
    archive_entry_set_rdev (entry, makedev (1, 3));
  g_assert_cmpint (archive_write_header (b->a, entry), >=, ARCHIVE_WARN);
  archive_entry_free (entry);
}

static void
add_file_data (
  Builder *b, const char *name, const void *data, gsize len, mode_t perm)
{
  builder_entry (b, name, AE_IFREG, perm, len, NULL, NULL);
  if (len > 0)
    g_assert_cmpint (archive_write_data (b->a, data, len), ==,
                     (la_ssize_t) len);
}

static void
add_file (Builder *b, const char *name, const char *contents)
{
  add_file_data (b, name, contents, strlen (contents), 0644);
}

static void
add_file_fill (Builder *b, const char *name, gsize size, guint8 fill)
{
  g_autofree guint8 *data = g_malloc (size);

  for (gsize i = 0; i < size; i++)
    data[i] = fill ? fill : (guint8) g_random_int ();
  add_file_data (b, name, data, size, 0644);
}

static void
add_dir (Builder *b, const char *name)
{
  builder_entry (b, name, AE_IFDIR, 0755, 0, NULL, NULL);
}

static void
add_symlink (Builder *b, const char *name, const char *target)
{
  builder_entry (b, name, AE_IFLNK, 0777, 0, target, NULL);
}

static void
add_hardlink (Builder *b, const char *name, const char *target)
{
  builder_entry (b, name, AE_IFREG, 0644, 0, NULL, target);
}

static GBytes *
builder_finish (Builder *b)
{
  GBytes *bytes;

  g_assert_cmpint (archive_write_close (b->a), ==, ARCHIVE_OK);
  archive_write_free (b->a);
  bytes = g_byte_array_free_to_bytes (b->out);
  g_free (b);
  return bytes;
}

typedef void (*BuildFunc) (Builder *b);

static GBytes *
build_archive (Fixture *f, Format format, BuildFunc build)
{
  Builder *b = builder_new (format, f);

  build (b);
  return builder_finish (b);
}

/* The member names of a tar, without "./" and trailing slashes. */
static GPtrArray *
tar_member_names (GBytes *tar)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  struct archive *a = archive_read_new ();
  struct archive_entry *entry;
  gsize size;
  gconstpointer data = g_bytes_get_data (tar, &size);

  archive_read_support_format_tar (a);
  archive_read_support_filter_all (a);
  g_assert_cmpint (archive_read_open_memory (a, data, size), ==, ARCHIVE_OK);
  while (archive_read_next_header (a, &entry) == ARCHIVE_OK)
    {
      const char *name = archive_entry_pathname (entry);
      char *copy;
      gsize len;

      while (g_str_has_prefix (name, "./"))
        name += 2;
      copy = g_strdup (name);
      len = strlen (copy);
      while (len > 0 && copy[len - 1] == '/')
        copy[--len] = '\0';
      g_ptr_array_add (names, copy);
    }
  archive_read_free (a);
  return names;
}

static void
build_payload (Builder *b)
{
  add_file (b, "inner.txt", "extracted\n");
}

static void
build_happy (Builder *b)
{
  add_dir (b, "docs/");
  add_file (b, "docs/readme.txt", "archive readme\n");
  add_file_fill (b, "docs/data.bin", 50000, 'z');
  add_file (b, "top.txt", "top\n");
  add_dir (b, "lib/");
  add_file (b, "lib/libfoo.so.1", "elf\n");
  add_symlink (b, "lib/libfoo.so", "libfoo.so.1");
}

/* build_happy() without its symlink: what a user's extract accepts. */
static void
build_happy_no_links (Builder *b)
{
  add_dir (b, "docs/");
  add_file (b, "docs/readme.txt", "archive readme\n");
  add_file_fill (b, "docs/data.bin", 50000, 'z');
  add_file (b, "top.txt", "top\n");
  add_dir (b, "lib/");
  add_file (b, "lib/libfoo.so.1", "elf\n");
}

/* ---- error classes ---------------------------------------------------- */

/* One letter per outcome, for compact expectations:
 *   S success   E INVALID_MANIFEST_PATH   N WORKSPACE_READ_NOT_FOUND
 *   Z EXEC_NONZERO   A WORKSPACE_ARCHIVE_READ   W WORKSPACE_ARCHIVE_WRITE
 *   I INVALID_ARGUMENT   U UNSAFE_ARCHIVE_MEMBER   L ARCHIVE_LIMIT
 *   T EXEC_TRANSPORT   ? another sandbox error   ! another domain */
static char
error_letter (const GError *error)
{
  if (error == NULL)
    return 'S';
  if (error->domain != AGENTS_SANDBOX_ERROR)
    return '!';
  switch (error->code)
    {
    case AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH:
      return 'E';
    case AGENTS_SANDBOX_ERROR_WORKSPACE_READ_NOT_FOUND:
      return 'N';
    case AGENTS_SANDBOX_ERROR_EXEC_NONZERO:
      return 'Z';
    case AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ:
      return 'A';
    case AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE:
      return 'W';
    case AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT:
      return 'I';
    case AGENTS_SANDBOX_ERROR_UNSAFE_ARCHIVE_MEMBER:
      return 'U';
    case AGENTS_SANDBOX_ERROR_ARCHIVE_LIMIT:
      return 'L';
    case AGENTS_SANDBOX_ERROR_EXEC_TRANSPORT:
      return 'T';
    default:
      return '?';
    }
}

/* A refused path is the reference's InvalidManifestPathError: an
 * absolute one is told to be relative (reason `absolute`), any other
 * not to escape the root. */
static void
assert_sandbox_error (const GError *error, int code)
{
  const char *reason;

  g_assert_error (error, AGENTS_SANDBOX_ERROR, code);
  if (code != AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH)
    return;
  reason = agents_sandbox_error_get_reason (error);
  if (g_strcmp0 (reason, "absolute") == 0)
    g_assert_nonnull (strstr (error->message, "must be relative"));
  else
    g_assert_nonnull (strstr (error->message, "must not escape root"));
}

static AgentsFileEntry *
find_entry (GListModel *entries, const char *path)
{
  for (guint i = 0; i < g_list_model_get_n_items (entries); i++)
    {
      g_autoptr (AgentsFileEntry) entry = g_list_model_get_item (entries, i);

      if (g_str_equal (agents_file_entry_get_path (entry), path))
        return entry;
    }
  return NULL;
}

static void
assert_entry (Fixture *f,
              GListModel *entries,
              const char *rel,
              AgentsEntryKind kind,
              gint64 size,
              guint mode)
{
  g_autofree char *path = g_build_filename (f->root, rel, NULL);
  AgentsFileEntry *entry = find_entry (entries, path);

  if (entry == NULL)
    g_error ("no listing entry %s", path);
  g_assert_cmpint (agents_file_entry_get_kind (entry), ==, kind);
  if (size >= 0)
    g_assert_cmpuint (agents_file_entry_get_size (entry), ==, (guint64) size);
  if (mode != 0)
    g_assert_cmpint (
      agents_permissions_to_mode (agents_file_entry_get_permissions (entry)) &
        0777,
      ==, mode);
}

static void
assert_read (Fixture *f, const char *path, const void *expected, gsize length)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) data = session_read (f->session, path, &error);
  g_autoptr (GBytes) want = g_bytes_new (expected, length);

  g_assert_no_error (error);
  g_assert_nonnull (data);
  g_assert_cmpuint (g_bytes_get_size (data), ==, length);
  g_assert_true (g_bytes_equal (data, want));
}

static void
assert_read_text (Fixture *f, const char *path, const char *expected)
{
  assert_read (f, path, expected, strlen (expected));
}

static void
assert_read_fails (Fixture *f, const char *path, int code)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) data = session_read (f->session, path, &error);

  g_assert_null (data);
  assert_sandbox_error (error, code);
}

static void
write_ok (Fixture *f, const char *path, const char *text)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (session_write (f->session, path, text, &error));
  g_assert_no_error (error);
}

static void
symlink_in_root (Fixture *f, const char *rel, const char *target)
{
  fixture_run_steps (f, STEPS (LINK (rel, target)));
}

/* ---- basic operations ------------------------------------------------- */

static void
test_round_trip (gconstpointer data)
{
  static const char binary[] =
    "\0\1\2NUL\0\xff\xfe\x80 invalid \xc3\x28 utf8\0";
  Fixture f;
  g_autoptr (GByteArray) big = g_byte_array_sized_new (5 * 1024 * 1024);
  g_autoptr (GBytes) big_bytes = NULL;
  g_autoptr (GBytes) bin_bytes = g_bytes_new (binary, sizeof binary);
  g_autoptr (GBytes) empty = g_bytes_new ("", 0);
  g_autoptr (GError) error = NULL;
  g_autofree char *abs = NULL;
  struct
  {
    const char *path;
    GBytes *bytes;
  } files[] = {
    { "text.txt", NULL },
    { "binary.bin", NULL },
    { "empty", NULL },
    { "big.bin", NULL },
    { "nested/parents/are/created/file.txt", NULL },
    { "with space/\xc3\xbcn\xc3\xaf"
      "c\xc3\xb6"
      "d\xc3\xa9.txt",
      NULL },
  };

  fixture_open (&f, data, NULL);
  for (guint i = 0; i < 5 * 1024 * 1024; i++)
    {
      guint8 byte = (guint8) (i * 2654435761u >> 13);

      g_byte_array_append (big, &byte, 1);
    }
  big_bytes = g_byte_array_free_to_bytes (g_steal_pointer (&big));
  files[0].bytes = g_bytes_new_static ("hello, world\n", 13);
  files[1].bytes = g_bytes_ref (bin_bytes);
  files[2].bytes = g_bytes_ref (empty);
  files[3].bytes = g_bytes_ref (big_bytes);
  files[4].bytes = g_bytes_new_static ("nested\n", 7);
  files[5].bytes = g_bytes_new_static ("unicode\n", 8);

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autoptr (GBytes) back = NULL;

      g_assert_true (
        session_write_bytes (f.session, files[i].path, files[i].bytes, &error));
      g_assert_no_error (error);
      back = session_read (f.session, files[i].path, &error);
      g_assert_no_error (error);
      g_assert_true (g_bytes_equal (back, files[i].bytes));
      if (fixture_host (&f))
        {
          g_autofree char *host = fixture_host_path (&f, files[i].path);
          g_autofree char *contents = NULL;
          gsize length = 0;

          g_assert_true (g_file_get_contents (host, &contents, &length, NULL));
          g_assert_cmpmem (contents, length,
                           g_bytes_get_data (files[i].bytes, NULL),
                           g_bytes_get_size (files[i].bytes));
        }
    }
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autoptr (GBytes) back = session_read (f.session, files[i].path, &error);

      g_assert_no_error (error);
      g_assert_true (g_bytes_equal (back, files[i].bytes));
    }

  /* Overwriting truncates. */
  write_ok (&f, "big.bin", "short");
  assert_read_text (&f, "big.bin", "short");
  /* An absolute path inside the root is the same file. */
  abs = g_build_filename (f.root, "text.txt", NULL);
  write_ok (&f, abs, "absolute\n");
  assert_read_text (&f, "text.txt", "absolute\n");

  assert_read_fails (&f, "missing.txt",
                     AGENTS_SANDBOX_ERROR_WORKSPACE_READ_NOT_FOUND);
  assert_read_fails (&f, "nested/missing/deeper.txt",
                     AGENTS_SANDBOX_ERROR_WORKSPACE_READ_NOT_FOUND);
  assert_read_fails (&f, "nested", AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ);
  g_assert_false (session_write (f.session, "nested", "x", &error));
  assert_sandbox_error (error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE);
  g_clear_error (&error);

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    g_bytes_unref (files[i].bytes);
  fixture_close (&f);
}

static AgentsExecResult *
exec_ok (Fixture *f, const char *const *command, gboolean shell)
{
  g_autoptr (GError) error = NULL;
  AgentsExecResult *result =
    session_exec (f->session, command, shell, 0, &error);

  g_assert_no_error (error);
  g_assert_nonnull (result);
  return result;
}

static void
assert_exec (Fixture *f,
             const char *const *command,
             gboolean shell,
             const char *out,
             const char *err,
             int status)
{
  g_autoptr (AgentsExecResult) result = exec_ok (f, command, shell);
  g_autofree char *got_out = agents_exec_result_dup_stdout_text (result);
  g_autofree char *got_err = agents_exec_result_dup_stderr_text (result);

  if (out != NULL)
    g_assert_cmpstr (got_out, ==, out);
  if (err != NULL)
    g_assert_cmpstr (got_err, ==, err);
  g_assert_cmpint (agents_exec_result_get_exit_code (result), ==, status);
  g_assert_true (agents_exec_result_ok (result) == (status == 0));
}

static void
test_exec (gconstpointer data)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsExecResult) big = NULL;
  g_autofree char *pwd = NULL;
  Fixture f;

  agents_manifest_set_env (manifest, "CONFORMANCE_VAR", "value with  spaces");
  fixture_open (&f, data, manifest);

  /* stdout and stderr are kept apart; the status is reported, not
   * raised. */
  assert_exec (&f, (const char *[]){ "echo out; echo err >&2; exit 3", NULL },
               TRUE, "out\n", "err\n", 3);
  assert_exec (&f, (const char *[]){ "sh", "-c", "exit 7", NULL }, FALSE, "",
               "", 7);
  assert_exec (&f, (const char *[]){ "true", NULL }, FALSE, "", "", 0);

  /* argv is not interpreted by a shell; a shell command is. */
  assert_exec (&f,
               (const char *[]){ "printf", "%s|", "a  b", "$HOME", "*", ";",
                                 "`id`", NULL },
               FALSE, "a  b|$HOME|*|;|`id`|", "", 0);
  assert_exec (&f, (const char *[]){ "printf", "'%s|'", "x", "y", NULL }, TRUE,
               "x|y|", "", 0);

  /* The manifest's environment reaches commands. */
  assert_exec (&f, (const char *[]){ "printenv", "CONFORMANCE_VAR", NULL },
               FALSE, "value with  spaces\n", "", 0);
  assert_exec (&f, (const char *[]){ "printf %s \"$CONFORMANCE_VAR\"", NULL },
               TRUE, "value with  spaces", "", 0);

  /* Commands run in the root, and what they write is the workspace. */
  pwd = g_strconcat (f.root, "\n", NULL);
  assert_exec (&f, (const char *[]){ "pwd", NULL }, FALSE, pwd, "", 0);
  assert_exec (&f, (const char *[]){ "printf made-by-exec > made.txt", NULL },
               TRUE, "", "", 0);
  assert_read_text (&f, "made.txt", "made-by-exec");
  write_ok (&f, "given.txt", "given by write\n");
  assert_exec (&f, (const char *[]){ "cat", "given.txt", NULL }, FALSE,
               "given by write\n", "", 0);

  /* Binary and large output arrive whole. */
  big = exec_ok (
    &f, (const char *[]){ "head -c 1000000 /dev/zero | tr '\\0' a", NULL },
    TRUE);
  g_assert_cmpuint (g_bytes_get_size (agents_exec_result_get_stdout (big)), ==,
                    1000000);
  assert_exec (&f, (const char *[]){ "printf", "a\\000b", NULL }, FALSE, NULL,
               "", 0);

  fixture_close (&f);
}

/* Whether a process of the host has @needle in its command line. */
static gboolean
host_process_running (const char *needle)
{
  g_autoptr (GDir) proc = g_dir_open ("/proc", 0, NULL);
  const char *name;

  while (proc != NULL && (name = g_dir_read_name (proc)) != NULL)
    {
      g_autofree char *path = NULL;
      g_autofree char *cmdline = NULL;
      gsize length = 0;

      if (!g_ascii_isdigit (name[0]))
        continue;
      path = g_build_filename ("/proc", name, "cmdline", NULL);
      if (!g_file_get_contents (path, &cmdline, &length, NULL))
        continue;
      for (gsize i = 0; i < length; i++)
        if (cmdline[i] == '\0')
          cmdline[i] = ' ';
      if (strstr (cmdline, needle) != NULL)
        return TRUE;
    }
  return FALSE;
}

static void
test_exec_timeout (gconstpointer data)
{
  Fixture f;
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsExecResult) result = NULL;
  g_autofree char *marker =
    g_strdup_printf ("1.6%04u", g_random_int_range (1000, 9999));
  g_autofree char *script = g_strdup_printf (
    "(sleep %s; echo late > late-bg.txt) & sleep %s; echo late > late.txt",
    marker, marker);
  const char *command[] = { script, NULL };
  gint64 started, elapsed;

  fixture_open (&f, data, NULL);
  started = g_get_monotonic_time ();
  result = session_exec (f.session, command, TRUE, 0.3, &error);
  elapsed = g_get_monotonic_time () - started;
  g_assert_null (result);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_EXEC_TIMEOUT);
  g_assert_cmpint (elapsed, <, 1200 * 1000);

  /* Neither the command nor what it started outlives the timeout. */
  if (fixture_host (&f))
    {
      gint64 deadline = g_get_monotonic_time () + G_USEC_PER_SEC;

      while (host_process_running (marker) &&
             g_get_monotonic_time () < deadline)
        spin_for (20);
      g_assert_false (host_process_running (marker));
    }
  spin_for (2000);
  assert_read_fails (&f, "late.txt",
                     AGENTS_SANDBOX_ERROR_WORKSPACE_READ_NOT_FOUND);
  assert_read_fails (&f, "late-bg.txt",
                     AGENTS_SANDBOX_ERROR_WORKSPACE_READ_NOT_FOUND);

  /* The session is still usable. */
  assert_exec (&f, (const char *[]){ "echo", "alive", NULL }, FALSE, "alive\n",
               "", 0);
  fixture_close (&f);
}

static GListModel *
ls_ok (Fixture *f, const char *path)
{
  g_autoptr (GError) error = NULL;
  GListModel *entries = session_ls (f->session, path, &error);

  g_assert_no_error (error);
  g_assert_nonnull (entries);
  return entries;
}

static void
test_ls (gconstpointer data)
{
  Fixture f;
  g_autoptr (GListModel) entries = NULL;
  g_autoptr (GListModel) top = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *sub_path = NULL;

  fixture_open (&f, data, NULL);
  write_ok (&f, "dir/a.txt", "12345");
  write_ok (&f, "dir/with space.txt", "0123456789");
  write_ok (&f, "dir/sub/deep.txt", "deep");
  write_ok (&f, "dir/empty", "");
  symlink_in_root (&f, "dir/link", "a.txt");
  symlink_in_root (&f, "dir/dirlink", "sub");

  entries = ls_ok (&f, "dir");
  g_assert_cmpuint (g_list_model_get_n_items (entries), ==, 6);
  assert_entry (&f, entries, "dir/a.txt", AGENTS_ENTRY_KIND_FILE, 5, 0);
  assert_entry (&f, entries, "dir/with space.txt", AGENTS_ENTRY_KIND_FILE, 10,
                0);
  assert_entry (&f, entries, "dir/empty", AGENTS_ENTRY_KIND_FILE, 0, 0);
  assert_entry (&f, entries, "dir/sub", AGENTS_ENTRY_KIND_DIRECTORY, -1, 0);
  assert_entry (&f, entries, "dir/link", AGENTS_ENTRY_KIND_SYMLINK, -1, 0);
  assert_entry (&f, entries, "dir/dirlink", AGENTS_ENTRY_KIND_SYMLINK, -1, 0);
  sub_path = g_build_filename (f.root, "dir", "sub", NULL);
  g_assert_true (agents_file_entry_is_dir (find_entry (entries, sub_path)));

  /* The root itself, by "." and by its absolute path. */
  top = ls_ok (&f, ".");
  assert_entry (&f, top, "dir", AGENTS_ENTRY_KIND_DIRECTORY, -1, 0);
  g_clear_object (&top);
  top = ls_ok (&f, f.root);
  assert_entry (&f, top, "dir", AGENTS_ENTRY_KIND_DIRECTORY, -1, 0);

  /* A file lists as itself. */
  g_clear_object (&entries);
  entries = ls_ok (&f, "dir/with space.txt");
  g_assert_cmpuint (g_list_model_get_n_items (entries), ==, 1);
  assert_entry (&f, entries, "dir/with space.txt", AGENTS_ENTRY_KIND_FILE, 10,
                0);

  g_assert_null (session_ls (f.session, "missing", &error));
  assert_sandbox_error (error, AGENTS_SANDBOX_ERROR_EXEC_NONZERO);
  fixture_close (&f);
}

static void
test_mkdir (gconstpointer data)
{
  Fixture f;
  g_autoptr (GListModel) entries = NULL;
  g_autoptr (GError) error = NULL;

  fixture_open (&f, data, NULL);
  g_assert_true (session_mkdir (f.session, "a/b/c", TRUE, &error));
  g_assert_no_error (error);
  entries = ls_ok (&f, "a/b");
  assert_entry (&f, entries, "a/b/c", AGENTS_ENTRY_KIND_DIRECTORY, -1, 0);

  /* With parents, an existing directory is fine; without, it is not. */
  g_assert_true (session_mkdir (f.session, "a/b/c", TRUE, &error));
  g_assert_no_error (error);
  g_assert_false (session_mkdir (f.session, "a/b/c", FALSE, &error));
  assert_sandbox_error (error, AGENTS_SANDBOX_ERROR_EXEC_NONZERO);
  g_clear_error (&error);
  g_assert_false (session_mkdir (f.session, "x/y", FALSE, &error));
  assert_sandbox_error (error, AGENTS_SANDBOX_ERROR_EXEC_NONZERO);
  g_clear_error (&error);
  g_assert_true (session_mkdir (f.session, "a/new", FALSE, &error));
  g_assert_no_error (error);

  write_ok (&f, "a/file.txt", "file");
  g_assert_false (session_mkdir (f.session, "a/file.txt/sub", TRUE, &error));
  assert_sandbox_error (error, AGENTS_SANDBOX_ERROR_EXEC_NONZERO);
  g_clear_error (&error);

  write_ok (&f, "a/new/inside.txt", "inside");
  assert_read_text (&f, "a/new/inside.txt", "inside");
  if (fixture_host (&f))
    {
      g_autofree char *c = fixture_host_path (&f, "a/b/c");

      g_assert_true (g_file_test (c, G_FILE_TEST_IS_DIR));
    }
  fixture_close (&f);
}

static void
test_rm (gconstpointer data)
{
  Fixture f;
  g_autoptr (GError) error = NULL;
  g_autoptr (GListModel) entries = NULL;
  g_autofree char *l_path = NULL;
  g_autofree char *fl_path = NULL;

  fixture_open (&f, data, NULL);
  l_path = g_build_filename (f.root, "l", NULL);
  fl_path = g_build_filename (f.root, "fl", NULL);

  /* unix_local_rm_recursive_ignores_missing_paths */
  g_assert_true (session_rm (f.session, "missing-dir", TRUE, &error));
  g_assert_no_error (error);
  /* unix_local_rm_non_recursive_still_errors_for_missing_paths */
  g_assert_false (session_rm (f.session, "missing-dir", FALSE, &error));
  assert_sandbox_error (error, AGENTS_SANDBOX_ERROR_EXEC_NONZERO);
  g_clear_error (&error);

  write_ok (&f, "t/a/b.txt", "b");
  g_assert_false (session_rm (f.session, "t", FALSE, &error));
  assert_sandbox_error (error, AGENTS_SANDBOX_ERROR_EXEC_NONZERO);
  g_clear_error (&error);
  assert_read_text (&f, "t/a/b.txt", "b");
  g_assert_true (session_rm (f.session, "t/a/b.txt", FALSE, &error));
  g_assert_no_error (error);
  assert_read_fails (&f, "t/a/b.txt",
                     AGENTS_SANDBOX_ERROR_WORKSPACE_READ_NOT_FOUND);
  write_ok (&f, "t/a/b.txt", "b");
  g_assert_true (session_rm (f.session, "t", TRUE, &error));
  g_assert_no_error (error);
  assert_read_fails (&f, "t/a/b.txt",
                     AGENTS_SANDBOX_ERROR_WORKSPACE_READ_NOT_FOUND);
  g_assert_null (session_ls (f.session, "t", &error));
  assert_sandbox_error (error, AGENTS_SANDBOX_ERROR_EXEC_NONZERO);
  g_clear_error (&error);

  /* Removing a symlink removes the link, not what it points to. */
  write_ok (&f, "keep/x.txt", "kept");
  symlink_in_root (&f, "l", "keep");
  symlink_in_root (&f, "fl", "keep/x.txt");
  g_assert_true (session_rm (f.session, "fl", FALSE, &error));
  g_assert_no_error (error);
  g_assert_true (session_rm (f.session, "l", TRUE, &error));
  g_assert_no_error (error);
  assert_read_text (&f, "keep/x.txt", "kept");
  entries = ls_ok (&f, ".");
  g_assert_null (find_entry (entries, l_path));
  g_assert_null (find_entry (entries, fl_path));
  fixture_close (&f);
}

static void
check_happy_extracted (Fixture *f, const char *prefix)
{
  g_autofree char *readme = g_strconcat (prefix, "docs/readme.txt", NULL);
  g_autofree char *top = g_strconcat (prefix, "top.txt", NULL);
  g_autofree char *libfoo = g_strconcat (prefix, "lib/libfoo.so", NULL);
  g_autofree char *lib = g_strconcat (prefix, "lib", NULL);
  g_autofree char *data_rel = g_strconcat (prefix, "docs/data.bin", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) data = NULL;
  g_autoptr (GListModel) entries = NULL;

  assert_read_text (f, readme, "archive readme\n");
  assert_read_text (f, top, "top\n");
  assert_read_text (f, libfoo, "elf\n");
  data = session_read (f->session, data_rel, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (data), ==, 50000);
  entries = ls_ok (f, *lib ? lib : ".");
  assert_entry (f, entries, libfoo, AGENTS_ENTRY_KIND_SYMLINK, -1, 0);
}

/* What build_happy_no_links() extracts. */
static void
check_happy_extracted_no_links (Fixture *f, const char *prefix)
{
  g_autofree char *readme = g_strconcat (prefix, "docs/readme.txt", NULL);
  g_autofree char *top = g_strconcat (prefix, "top.txt", NULL);
  g_autofree char *lib1 = g_strconcat (prefix, "lib/libfoo.so.1", NULL);
  g_autofree char *data_rel = g_strconcat (prefix, "docs/data.bin", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) data = NULL;

  assert_read_text (f, readme, "archive readme\n");
  assert_read_text (f, top, "top\n");
  assert_read_text (f, lib1, "elf\n");
  data = session_read (f->session, data_rel, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (data), ==, 50000);
}

static void
test_extract (gconstpointer data)
{
  static const struct
  {
    const char *path;
    Format format;
    AgentsCompressionScheme scheme;
    const char *prefix;
  } cases[] = {
    { "sub/bundle.tar", FORMAT_TAR, AGENTS_COMPRESSION_SCHEME_TAR, "sub/" },
    { "gz/deeper/bundle.tar.gz", FORMAT_TAR_GZ, AGENTS_COMPRESSION_SCHEME_TAR,
      "gz/deeper/" },
    { "zipped/bundle.zip", FORMAT_ZIP, AGENTS_COMPRESSION_SCHEME_ZIP,
      "zipped/" },
    { "bundle.tar", FORMAT_TAR, AGENTS_COMPRESSION_SCHEME_TAR, "" },
  };
  Fixture f;

  fixture_open (&f, data, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GBytes) archive =
        build_archive (&f, cases[i].format, build_happy_no_links);
      g_autoptr (GBytes) with_link =
        build_archive (&f, cases[i].format, build_happy);
      g_autoptr (GBytes) stored = NULL;
      g_autoptr (GError) error = NULL;

      /* A user's extract refuses link members, as the reference does. */
      g_assert_false (session_extract (f.session, cases[i].path, with_link,
                                       cases[i].scheme, &error));
      g_assert_error (error, AGENTS_SANDBOX_ERROR,
                      AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE);
      agents_test_assert_context_str (error, "member", "lib/libfoo.so");
      agents_test_assert_context_str (error, "reason",
                                      "link member not allowed");
      g_clear_error (&error);
      g_assert_true (session_extract (f.session, cases[i].path, archive,
                                      cases[i].scheme, &error));
      g_assert_no_error (error);
      /* The archive is kept at its path, its members land beside it. */
      stored = session_read (f.session, cases[i].path, &error);
      g_assert_no_error (error);
      g_assert_true (g_bytes_equal (stored, archive));
      check_happy_extracted_no_links (&f, cases[i].prefix);
    }
  fixture_close (&f);
}

/* ---- a mount entry for the tests: a plain directory ------------------- */

typedef struct
{
  AgentsMount parent_instance;
} ConformanceMount;

typedef struct
{
  AgentsMountClass parent_class;
} ConformanceMountClass;

static GType conformance_mount_get_type (void);

G_DEFINE_TYPE (ConformanceMount, conformance_mount, AGENTS_TYPE_MOUNT)

static void
conformance_mount_mkdir_done (GObject *source,
                              GAsyncResult *result,
                              gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;

  if (agents_sandbox_session_mkdir_finish (AGENTS_SANDBOX_SESSION (source),
                                           result, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
conformance_mount_mount (AgentsMount *self,
                         AgentsSandboxSession *session,
                         const char *dest,
                         const char *base_dir,
                         GTask *task)
{
  agents_sandbox_session_mkdir_async (
    session, dest, TRUE, g_task_get_cancellable (task),
    conformance_mount_mkdir_done, g_object_ref (task));
}

static void
conformance_mount_unmount (AgentsMount *self,
                           AgentsSandboxSession *session,
                           const char *dest,
                           const char *base_dir,
                           GTask *task)
{
  g_task_return_boolean (task, TRUE);
}

static void
conformance_mount_class_init (ConformanceMountClass *klass)
{
  AgentsMountClass *mount_class = AGENTS_MOUNT_CLASS (klass);

  AGENTS_MANIFEST_ENTRY_CLASS (klass)->type_name = "conformance_mount";
  mount_class->mount = conformance_mount_mount;
  mount_class->unmount = conformance_mount_unmount;
}

static void
conformance_mount_init (ConformanceMount *self)
{
}

/* ---- persist and hydrate ---------------------------------------------- */

static void
chmod_ok (Fixture *f, const char *mode, const char *path)
{
  assert_exec (f, (const char *[]){ "chmod", mode, path, NULL }, FALSE, "", "",
               0);
}

static void
test_persist_hydrate (gconstpointer data)
{
  static const char binary[] = "\0\xff\xfe binary \0";
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsManifestEntry) mount =
    g_object_new (conformance_mount_get_type (), NULL);
  g_autoptr (GBytes) tar = NULL;
  g_autoptr (GPtrArray) names = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GListModel) keep = NULL;
  g_autoptr (GListModel) bin = NULL;
  g_autoptr (GListModel) top = NULL;
  g_autoptr (GBytes) bin_bytes = g_bytes_new (binary, sizeof binary);
  Fixture a, b;

  agents_manifest_set_entry (manifest, "mnt", mount);
  fixture_open (&a, data, manifest);
  write_ok (&a, "keep/a.txt", "alpha\n");
  g_assert_true (
    session_write_bytes (a.session, "keep/binary.bin", bin_bytes, &error));
  g_assert_no_error (error);
  write_ok (&a, "keep/bin/tool.sh", "#!/bin/sh\necho tool\n");
  g_assert_true (session_mkdir (a.session, "emptydir", TRUE, &error));
  g_assert_no_error (error);
  chmod_ok (&a, "0600", "keep/a.txt");
  chmod_ok (&a, "0750", "keep/bin/tool.sh");
  chmod_ok (&a, "0710", "keep/bin");
  symlink_in_root (&a, "keep/link", "a.txt");
  symlink_in_root (&a, "dirlink", "keep");
  assert_exec (&a, (const char *[]){ "echo mounted > mnt/mounted.txt", NULL },
               TRUE, "", "", 0);

  tar = session_persist (a.session, &error);
  g_assert_no_error (error);
  names = tar_member_names (tar);
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = names->pdata[i];

      /* Mounts are never archived; nothing names a path outside. */
      g_assert_false (g_str_equal (name, "mnt") ||
                      g_str_has_prefix (name, "mnt/"));
      g_assert_false (g_path_is_absolute (name));
      g_assert_null (strstr (name, ".."));
    }
  g_assert_true (
    g_ptr_array_find_with_equal_func (names, "keep/a.txt", g_str_equal, NULL));
  g_assert_true (
    g_ptr_array_find_with_equal_func (names, "keep/link", g_str_equal, NULL));

  /* A fresh session gets the same workspace, minus the mount. */
  fixture_open (&b, data, NULL);
  g_assert_true (session_hydrate (b.session, tar, &error));
  g_assert_no_error (error);
  assert_read_text (&b, "keep/a.txt", "alpha\n");
  assert_read (&b, "keep/binary.bin", binary, sizeof binary);
  assert_read_text (&b, "keep/link", "alpha\n");
  assert_read_text (&b, "dirlink/a.txt", "alpha\n");
  assert_read_fails (&b, "mnt/mounted.txt",
                     AGENTS_SANDBOX_ERROR_WORKSPACE_READ_NOT_FOUND);
  keep = ls_ok (&b, "keep");
  assert_entry (&b, keep, "keep/a.txt", AGENTS_ENTRY_KIND_FILE, 6, 0600);
  assert_entry (&b, keep, "keep/bin", AGENTS_ENTRY_KIND_DIRECTORY, -1, 0710);
  assert_entry (&b, keep, "keep/link", AGENTS_ENTRY_KIND_SYMLINK, -1, 0);
  bin = ls_ok (&b, "keep/bin");
  assert_entry (&b, bin, "keep/bin/tool.sh", AGENTS_ENTRY_KIND_FILE, -1, 0750);
  top = ls_ok (&b, ".");
  assert_entry (&b, top, "dirlink", AGENTS_ENTRY_KIND_SYMLINK, -1, 0);
  assert_entry (&b, top, "emptydir", AGENTS_ENTRY_KIND_DIRECTORY, -1, 0);
  assert_exec (&b, (const char *[]){ "./keep/bin/tool.sh", NULL }, FALSE,
               "tool\n", "", 0);
  if (fixture_host (&b))
    {
      g_autofree char *link = fixture_host_path (&b, "keep/link");
      g_autofree char *target = g_file_read_link (link, NULL);

      g_assert_cmpstr (target, ==, "a.txt");
    }

  fixture_close (&b);
  fixture_close (&a);
}

/* ---- apply_manifest --------------------------------------------------- */

static void
test_apply_manifest (gconstpointer data)
{
  static const char binary[] = "\0\1\2\xff";
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (AgentsManifestEntry) settings =
    agents_file_new_from_text ("{\"a\": 1}\n");
  g_autoptr (AgentsManifestEntry) dir = agents_dir_new ();
  g_autoptr (AgentsManifestEntry) inner = agents_dir_new ();
  g_autoptr (AgentsManifestEntry) a_txt = agents_file_new_from_text ("A\n");
  g_autoptr (GBytes) bin_bytes = g_bytes_new (binary, sizeof binary);
  g_autoptr (AgentsManifestEntry) b_bin = agents_file_new (bin_bytes);
  g_autoptr (AgentsManifestEntry) secret =
    agents_file_new_from_text ("secret\n");
  g_autoptr (AgentsPermissions) private = agents_permissions_new_full (
    AGENTS_FILE_MODE_READ | AGENTS_FILE_MODE_WRITE, AGENTS_FILE_MODE_NONE,
    AGENTS_FILE_MODE_NONE, FALSE);
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GListModel) entries = NULL;
  g_autoptr (GError) error = NULL;
  Fixture f;

  agents_manifest_entry_set_permissions (secret, private);
  agents_dir_set_child (AGENTS_DIR (inner), "b.bin", b_bin);
  agents_dir_set_child (AGENTS_DIR (dir), "a.txt", a_txt);
  agents_dir_set_child (AGENTS_DIR (dir), "inner", inner);
  agents_dir_set_child (AGENTS_DIR (dir), "secret.txt", secret);
  agents_manifest_set_entry (manifest, "conf/settings.json", settings);
  agents_manifest_set_entry (manifest, "data", dir);

  /* Start materializes the entries. */
  fixture_open (&f, data, manifest);
  assert_read_text (&f, "conf/settings.json", "{\"a\": 1}\n");
  assert_read_text (&f, "data/a.txt", "A\n");
  assert_read (&f, "data/inner/b.bin", binary, sizeof binary);
  entries = ls_ok (&f, "data");
  assert_entry (&f, entries, "data/secret.txt", AGENTS_ENTRY_KIND_FILE, 7,
                0600);
  assert_entry (&f, entries, "data/inner", AGENTS_ENTRY_KIND_DIRECTORY, -1, 0);

  /* Applying again restores the entries. */
  write_ok (&f, "data/a.txt", "changed\n");
  files = session_apply_manifest (f.session, &error);
  g_assert_no_error (error);
  g_assert_nonnull (files);
  assert_read_text (&f, "data/a.txt", "A\n");
  g_clear_pointer (&files, g_ptr_array_unref);

  /* An entry's parent swapped for a symlink that leads outside. */
  if (fixture_has_outside (&f))
    {
      fixture_reset (&f, STEPS (LINK ("conf", "@O"), LINK ("data", "@U")));
      files = session_apply_manifest (f.session, &error);
      g_assert_null (files);
      assert_sandbox_error (error, AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH);
      g_clear_error (&error);
      fixture_check_outside (&f, "apply_manifest through symlinks");
    }
  fixture_close (&f);
}

static void
test_hostile_manifest (gconstpointer data)
{
  static const char *const documents[] = {
    "{\"entries\": {\"../escape.txt\": {\"type\": \"file\", \"content\": "
    "\"x\"}}}",
    "{\"entries\": {\"/etc/escape.txt\": {\"type\": \"file\", \"content\": "
    "\"x\"}}}",
    "{\"entries\": {\"a/../../escape.txt\": {\"type\": \"file\", \"content\": "
    "\"x\"}}}",
    "{\"entries\": {\"d\": {\"type\": \"dir\", \"children\": "
    "{\"../../escape.txt\": "
    "{\"type\": \"file\", \"content\": \"x\"}}}}}",
    "{\"entries\": {\"d\": {\"type\": \"dir\", \"children\": "
    "{\"/etc/escape.txt\": "
    "{\"type\": \"file\", \"content\": \"x\"}}}}}",
    "{\"entries\": {\"..\": {\"type\": \"dir\"}}}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (documents); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (AgentsManifest) manifest =
        agents_manifest_new_from_data (documents[i], -1, &error);

      g_assert_null (manifest);
      g_assert_error (error, AGENTS_SANDBOX_ERROR,
                      AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH);
    }
}

/* ---- the hostile path corpus ------------------------------------------ */

typedef enum
{
  OP_READ,
  OP_WRITE,
  OP_LS,
  OP_MKDIR,
  OP_RM,
  OP_RM_RECURSIVE,
  OP_EXTRACT,
  N_OPS
} Op;

static const char *const op_names[N_OPS] = {
  "read", "write", "ls", "mkdir -p", "rm", "rm -r", "extract",
};

/* The case runs the agent's own attempts as commands: only for backends
 * that confine commands and whose sentinel the host can see. */
#define CONFINED_EXEC (1 << 0)

typedef struct
{
  const char *name;
  const char *path; /* template */
  /* The outcomes allowed for read, write, ls, mkdir (parents), rm,
   * rm (recursive) and extract, in this order, separated by spaces; each
   * a set of letters of error_letter(), "-" to skip the operation and
   * "*" for any of "SENZAWI" (paths that stay inside but that a
   * backend may refuse for length). */
  const char *expect;
  const Step *setup;
  guint flags;
} HostileCase;

#define ESC "E E E E E E E"
#define LOOP "EZ EZ EZ EZ EZ EZ EZ"
#define RO_ESC "E - E - - - -"
/* A symlink as the last component: following it for read, ls, mkdir or
 * extract is refused; write may replace the link and rm may remove it,
 * both inside. */
#define LAST_LINK_OUT "E ES E E ES ES E"
#define INSIDE_FILE "S S S Z S S S"
/* Removing the root may be refused: it can be a mount point. */
#define ROOT_ITSELF "A W S S Z SZ W"
/* The empty path may name the root or be refused. */
#define EMPTY_PATH "AE WE SE SE ZE SZE WE"
#define ANY_INSIDE "* * * * * * *"
#define READ_ONLY "NS - - - - - -"

static const HostileCase hostile_cases[] = {
  /* Lexical escapes. */
  { "dotdot", "..", ESC },
  { "dotdot-slash", "../", ESC },
  { "parent-x", "../x", ESC },
  { "grandparent-x", "../../x", ESC },
  { "great-grandparent-x", "../../../x", ESC },
  { "many-ups-to-slash", "@UPS@P", ESC },
  { "many-ups-into-outside", "@UPS@O/canary.txt", ESC },
  { "many-ups-into-outside-new", "@UPS@O/new.txt", ESC },
  { "inner-then-up", "a/../../x", ESC },
  { "inner2-then-up", "a/b/../../../x", ESC },
  { "dot-then-up", "./../x", ESC },
  { "dots-then-up", "./././../x", ESC },
  { "x-up-up", "x/../../y", ESC },
  { "dot-mid-up", "a/./../../x", ESC },
  { "double-slash-up", "a//..//../x", ESC },
  { "dotdot-double-slash", "..//x", ESC },
  { "trailing-dotdot", "sub/../..", ESC },
  { "trailing-dotdot-deep", "a/b/../../..", ESC },
  { "trailing-dotdot-slash", "a/../../", ESC },
  { "up-then-dot", "../.", ESC },
  { "relative-into-outside", "@U/canary.txt", ESC },
  { "relative-into-outside-new", "@U/new.txt", ESC },
  { "relative-into-outside-dir", "@U", ESC },
  { "relative-into-outside-nested", "@U/sub/nested-outside.txt", ESC },
  { "relative-into-outside-newdir", "@U/newdir/deeper", ESC },
  { "relative-into-sibling", "@V/secret-outside.txt", ESC },
  { "relative-into-sibling-new", "@V/new.txt", ESC },
  { "relative-sibling-dir", "@V", ESC },
  { "abs-outside-canary", "@O/canary.txt", ESC },
  { "abs-outside-dir", "@O", ESC },
  { "abs-outside-new", "@O/new.txt", ESC },
  { "abs-outside-newdir", "@O/newdir/deeper", ESC },
  { "abs-outside-nested", "@O/sub/nested-outside.txt", ESC },
  { "abs-sibling-prefix", "@S/secret-outside.txt", ESC },
  { "abs-sibling-dir", "@S", ESC },
  { "abs-sibling-new", "@S/new.txt", ESC },
  { "abs-root-up", "@R/../x", ESC },
  { "abs-root-dot-up", "@R/./../x", ESC },
  { "abs-root-inner-up", "@R/a/../../x", ESC },
  { "abs-root-up-sibling", "@R/@V/secret-outside.txt", ESC },
  { "abs-root-trailing-up", "@R/..", ESC },
  { "abs-root-up-up", "@R/../..", ESC },
  { "abs-root-ups-outside", "@R/@UPS@O/canary.txt", ESC },
  { "abs-root-double-slash-up", "@R//..//x", ESC },
  { "slash", "/", ESC },
  { "slash-dotdot", "/..", ESC },
  { "slash-token", "/@P", ESC },
  { "tmp-token", "/tmp/@P", ESC },
  { "etc-token", "/etc/@P", ESC },
  { "etc-passwd", "/etc/passwd", RO_ESC },
  { "etc-shadow", "/etc/shadow", RO_ESC },
  { "etc", "/etc", RO_ESC },
  { "double-slash-etc-passwd", "//etc/passwd", RO_ESC },
  { "dot-etc-passwd", "/./etc/passwd", RO_ESC },
  { "up-etc-passwd", "/../etc/passwd", RO_ESC },
  { "proc-self-root", "/proc/self/root/etc/passwd", RO_ESC },
  { "proc-self-environ", "/proc/self/environ", RO_ESC },
  { "proc-self-cwd-token", "/proc/self/cwd/@P", ESC },
  { "dev-null", "/dev/null", "E E E - - - -" },
  { "long-escape", "@LONG@LUPS@P", ESC },
  { "long-escape-into-outside", "@LONG@LUPS@O/canary.txt", ESC },
  { "long-abs-outside", "@O/@LONGx", ESC },

  /* Long paths that stay inside. */
  { "long-path", "@LONGx", ANY_INSIDE },
  { "long-name", "@NAME", ANY_INSIDE },
  { "long-name-in-dir", "d/@NAME/x", ANY_INSIDE },

  /* Odd names that stay inside. */
  { "three-dots", "...", INSIDE_FILE, STEPS (FILE_AT ("...")) },
  { "dotdot-x", "..x", INSIDE_FILE, STEPS (FILE_AT ("..x")) },
  { "x-dotdot", "x..", INSIDE_FILE, STEPS (FILE_AT ("x..")) },
  { "dot-space", ". ", INSIDE_FILE, STEPS (FILE_AT (". ")) },
  { "dotdot-space", ".. ", INSIDE_FILE, STEPS (FILE_AT (".. ")) },
  { "backslash-dotdot", "..\\x", INSIDE_FILE, STEPS (FILE_AT ("..\\x")) },
  { "backslash-dotdot-twice", "..\\..\\x", INSIDE_FILE,
    STEPS (FILE_AT ("..\\..\\x")) },
  { "windows-drive", "C:\\evil", INSIDE_FILE, STEPS (FILE_AT ("C:\\evil")) },
  { "url-encoded", "%2e%2e/x", INSIDE_FILE, STEPS (FILE_AT ("%2e%2e/x")) },
  { "url-encoded-slash", "..%2fx", INSIDE_FILE, STEPS (FILE_AT ("..%2fx")) },
  { "one-dot-leaders", "\xe2\x80\xa4\xe2\x80\xa4/x", INSIDE_FILE,
    STEPS (FILE_AT ("\xe2\x80\xa4\xe2\x80\xa4/x")) },
  { "fullwidth-solidus", "..\xef\xbc\x8fx", INSIDE_FILE,
    STEPS (FILE_AT ("..\xef\xbc\x8fx")) },
  { "overlong-utf8-dots", "\xc0\xae\xc0\xae/x", INSIDE_FILE,
    STEPS (FILE_AT ("\xc0\xae\xc0\xae/x")) },
  { "space", "with space.txt", INSIDE_FILE,
    STEPS (FILE_AT ("with space.txt")) },
  { "leading-space", " lead.txt", INSIDE_FILE, STEPS (FILE_AT (" lead.txt")) },
  { "trailing-space", "trail ", INSIDE_FILE, STEPS (FILE_AT ("trail ")) },
  { "newline", "new\nline.txt", "S S SI Z S S S",
    STEPS (FILE_AT ("new\nline.txt")) },
  { "newline-dotdot", "\n../x", "S S SI Z S S S", STEPS (FILE_AT ("\n../x")) },
  /* A name that forges a line of `ls -la`. */
  { "newline-listing-forgery", "dir", "- - SI - - - -",
    STEPS (FILE_AT ("dir/x\n-rw-r--r-- 1 root root 999 Jan  1 00:00 forged")) },
  { "trailing-carriage-return", "cr\r", INSIDE_FILE, STEPS (FILE_AT ("cr\r")) },
  { "carriage-return", "cr\rname", INSIDE_FILE, STEPS (FILE_AT ("cr\rname")) },
  { "tab", "tab\tname", INSIDE_FILE, STEPS (FILE_AT ("tab\tname")) },
  { "control-char",
    "\x01"
    "ctl",
    INSIDE_FILE,
    STEPS (FILE_AT ("\x01"
                    "ctl")) },
  { "escape-sequence", "esc\x1b[31mred", INSIDE_FILE,
    STEPS (FILE_AT ("esc\x1b[31mred")) },
  { "del-char", "del\x7f", INSIDE_FILE, STEPS (FILE_AT ("del\x7f")) },
  { "invalid-utf8", "bad\xff\xfe", INSIDE_FILE,
    STEPS (FILE_AT ("bad\xff\xfe")) },
  { "dash-rf", "-rf", INSIDE_FILE, STEPS (FILE_AT ("-rf")) },
  { "double-dash-help", "--help", INSIDE_FILE, STEPS (FILE_AT ("--help")) },
  { "glob-star", "*", INSIDE_FILE, STEPS (FILE_AT ("*")) },
  { "glob-question", "?", INSIDE_FILE, STEPS (FILE_AT ("?")) },
  { "command-substitution", "$(touch @P)", INSIDE_FILE,
    STEPS (FILE_AT ("$(touch @P)")) },
  { "backticks", "`touch @P`", INSIDE_FILE, STEPS (FILE_AT ("`touch @P`")) },
  { "semicolon", "a;touch @P", INSIDE_FILE, STEPS (FILE_AT ("a;touch @P")) },
  { "pipe", "a|touch @P", INSIDE_FILE, STEPS (FILE_AT ("a|touch @P")) },
  { "ampersand", "a&touch @P&", INSIDE_FILE, STEPS (FILE_AT ("a&touch @P&")) },
  { "single-quote", "it's", INSIDE_FILE, STEPS (FILE_AT ("it's")) },
  { "double-quote", "say \"hi\"", INSIDE_FILE, STEPS (FILE_AT ("say \"hi\"")) },
  { "redirect", "a>b", INSIDE_FILE, STEPS (FILE_AT ("a>b")) },
  { "tilde", "~", INSIDE_FILE, STEPS (FILE_AT ("~")) },
  { "tilde-path", "~/x", INSIDE_FILE, STEPS (FILE_AT ("~/x")) },
  { "dollar-home", "$HOME", INSIDE_FILE, STEPS (FILE_AT ("$HOME")) },
  { "format-string", "%s%n%x", INSIDE_FILE, STEPS (FILE_AT ("%s%n%x")) },
  { "dot-slash-prefix", "./inside.txt", INSIDE_FILE,
    STEPS (FILE_AT ("inside.txt")) },
  { "inner-up-inside", "a/../inside.txt", INSIDE_FILE,
    STEPS (FILE_AT ("inside.txt")) },
  { "abs-inside", "@R/inside.txt", INSIDE_FILE,
    STEPS (FILE_AT ("inside.txt")) },
  { "abs-inside-dotted", "@R/./a/../inside.txt", INSIDE_FILE,
    STEPS (FILE_AT ("inside.txt")) },
  { "double-slashes-inside", "a//b///inside.txt", INSIDE_FILE,
    STEPS (FILE_AT ("a/b/inside.txt")) },

  /* The root itself. */
  { "empty", "", EMPTY_PATH },
  { "dot", ".", ROOT_ITSELF },
  { "sub-dotdot", "sub/..", ROOT_ITSELF, STEPS (MKDIR ("sub")) },
  { "abs-root", "@R", ROOT_ITSELF },

  /* Symlinks inside the root that lead outside. */
  { "link-abs-dir-through", "link/canary.txt", ESC,
    STEPS (LINK ("link", "@O")) },
  { "link-abs-dir-new", "link/new.txt", ESC, STEPS (LINK ("link", "@O")) },
  { "link-abs-dir-newdir", "link/newdir/deeper", ESC,
    STEPS (LINK ("link", "@O")) },
  { "link-abs-dir-nested", "link/sub/nested-outside.txt", ESC,
    STEPS (LINK ("link", "@O")) },
  { "link-abs-dir-itself", "link", LAST_LINK_OUT, STEPS (LINK ("link", "@O")) },
  { "link-rel-dir-through", "link/canary.txt", ESC,
    STEPS (LINK ("link", "@U")) },
  { "link-rel-dir-new", "link/new.txt", ESC, STEPS (LINK ("link", "@U")) },
  { "link-rel-dir-itself", "link", LAST_LINK_OUT, STEPS (LINK ("link", "@U")) },
  { "link-abs-file", "lf", LAST_LINK_OUT,
    STEPS (LINK ("lf", "@O/canary.txt")) },
  { "link-rel-file", "lf", LAST_LINK_OUT,
    STEPS (LINK ("lf", "@U/canary.txt")) },
  { "link-abs-file-through", "lf/x", ESC,
    STEPS (LINK ("lf", "@O/canary.txt")) },
  { "link-chain", "a/canary.txt", ESC,
    STEPS (LINK ("a", "b"), LINK ("b", "c"), LINK ("c", "@O")) },
  { "link-chain-itself", "a", LAST_LINK_OUT,
    STEPS (LINK ("a", "b"), LINK ("b", "c"), LINK ("c", "@O")) },
  { "link-chain-through-dirs", "d1/l1/canary.txt", ESC,
    STEPS (LINK ("d1/l1", "../d2/l2"), LINK ("d2/l2", "../@U")) },
  { "link-chain-to-file", "a", LAST_LINK_OUT,
    STEPS (LINK ("a", "b"), LINK ("b", "@O/canary.txt")) },
  { "link-inner-up", "sub/up/x", ESC, STEPS (LINK ("sub/up", "../..")) },
  { "link-slash-etc", "slash/etc/passwd", RO_ESC, STEPS (LINK ("slash", "/")) },
  { "link-slash-token", "slash/tmp/@P", "- E - E E E E",
    STEPS (LINK ("slash", "/")) },
  { "link-slash-itself", "slash", LAST_LINK_OUT, STEPS (LINK ("slash", "/")) },
  { "link-parent", "parent/x", ESC, STEPS (LINK ("parent", "..")) },
  { "link-parent-itself", "parent", LAST_LINK_OUT,
    STEPS (LINK ("parent", "..")) },
  { "link-rel-sibling", "sib/secret-outside.txt", ESC,
    STEPS (LINK ("sib", "@V")) },
  { "link-abs-sibling", "sib/secret-outside.txt", ESC,
    STEPS (LINK ("sib", "@S")) },
  { "link-abs-sibling-new", "sib/new.txt", ESC, STEPS (LINK ("sib", "@S")) },
  { "link-proc-cwd", "pc/@P", ESC, STEPS (LINK ("pc", "/proc/self/cwd")) },
  { "link-proc-root", "pr/etc/passwd", RO_ESC,
    STEPS (LINK ("pr", "/proc/self/root")) },
  { "link-dev-zero", "z", "E - - - - - -", STEPS (LINK ("z", "/dev/zero")) },
  { "link-etc-passwd", "pw", LAST_LINK_OUT,
    STEPS (LINK ("pw", "/etc/passwd")) },
  { "link-deep-nested", "a/b/c/link/canary.txt", ESC,
    STEPS (LINK ("a/b/c/link", "@O")) },
  { "link-deep-nested-rel", "a/b/c/link/canary.txt", ESC,
    STEPS (LINK ("a/b/c/link", "../../../@U")) },
  { "link-dangling-outside-abs", "dout", LAST_LINK_OUT,
    STEPS (LINK ("dout", "@O/missing-new")) },
  { "link-dangling-outside-rel", "dout", LAST_LINK_OUT,
    STEPS (LINK ("dout", "@U/missing-new")) },
  { "link-dangling-outside-through", "dout/x", ESC,
    STEPS (LINK ("dout", "@O/missing-dir")) },
  { "link-out-then-up", "link/../x", "SE SE SE ZE SE SE SE",
    STEPS (LINK ("link", "@O"), FILE_AT ("x")) },
  { "link-dot-then-up", "sub/l/../../x", "SE SE SE ZE SE SE SE",
    STEPS (LINK ("sub/l", "."), FILE_AT ("x")) },

  /* Loops and dangling links. */
  /* A backend that resolves paths inside the sandbox first (the
   * reference's remote realpath helper) fails loops closed with
   * ExecNonZero ("symlink resolution depth exceeded"), and follows a
   * dangling link that stays inside to its missing target. */
  { "loop-self", "loop", "EZ EZS EZ EZ EZS EZS EZ",
    STEPS (LINK ("loop", "loop")) },
  { "loop-self-through", "loop/x", LOOP, STEPS (LINK ("loop", "loop")) },
  { "loop-mutual", "a/x", LOOP, STEPS (LINK ("a", "b"), LINK ("b", "a")) },
  { "loop-through-dir", "d/l/x", LOOP,
    STEPS (MKDIR ("d"), LINK ("d/l", "../d/l")) },
  { "dangling-inside", "dang", "N S SZ ZS S S S",
    STEPS (LINK ("dang", "missing")) },
  { "dangling-inside-through", "dang/x", "N WS Z ZS Z S WS",
    STEPS (LINK ("dang", "missing")) },

  /* Symlinks that stay inside. */
  { "link-abs-inside", "absin/inside.txt", "ES ES ES EZ ES ES ES",
    STEPS (FILE_AT ("sub/inside.txt"), LINK ("absin", "@R/sub")) },
  { "link-rel-inside", "in/inside.txt", INSIDE_FILE,
    STEPS (FILE_AT ("sub/inside.txt"), LINK ("in", "sub")) },
  { "link-self-dot", "self/self/self/inside.txt", INSIDE_FILE,
    STEPS (FILE_AT ("inside.txt"), LINK ("self", ".")) },
  { "link-inside-via-up", "in2/inside.txt", INSIDE_FILE,
    STEPS (FILE_AT ("sub/inside.txt"), LINK ("in2", "sub/../sub")) },
  { "fifo", "fifo", "A S S Z S S S", STEPS (FIFO ("fifo")) },

  /* What the agent itself may try with commands. */
  { "symlink-by-exec", "sl", LAST_LINK_OUT,
    STEPS (SH ("ln -s @O/canary.txt sl")) },
  { "symlink-by-exec-through", "sl/canary.txt", ESC,
    STEPS (SH ("ln -s @O sl")) },
  { "hardlink-by-exec-abs", "hl", READ_ONLY, STEPS (SH ("ln @O/canary.txt hl")),
    CONFINED_EXEC },
  { "hardlink-by-exec-rel", "hl", READ_ONLY, STEPS (SH ("ln @U/canary.txt hl")),
    CONFINED_EXEC },
  { "hardlink-by-exec-via-link", "hl", READ_ONLY,
    STEPS (LINK ("od", "@O"), SH ("ln od/canary.txt hl")), CONFINED_EXEC },
  { "hardlink-by-exec-sibling", "hl", READ_ONLY,
    STEPS (SH ("ln @S/secret-outside.txt hl")), CONFINED_EXEC },
  { "copy-by-exec", "copied.txt", READ_ONLY,
    STEPS (SH ("cp @O/canary.txt copied.txt")), CONFINED_EXEC },
  { "cat-by-exec", "catted.txt", READ_ONLY,
    STEPS (SH ("cat @O/canary.txt > catted.txt")), CONFINED_EXEC },
  { "move-by-exec", "moved.txt", READ_ONLY,
    STEPS (SH ("mv @O/canary.txt moved.txt")), CONFINED_EXEC },
  { "write-by-exec", "x", "N - - - - - -",
    STEPS (SH ("echo pwned > @O/canary.txt; echo pwned > @U/new.txt; "
               "touch @S/new.txt; mkdir @O/newdir; touch /tmp/@P")),
    CONFINED_EXEC },
  { "remove-by-exec", "x", "N - - - - - -",
    STEPS (SH ("rm -rf @O/d @O/f.txt @S")), CONFINED_EXEC },
  { "chmod-by-exec", "x", "N - - - - - -",
    STEPS (SH ("chmod 777 @O/canary.txt; chmod 777 @O")), CONFINED_EXEC },
  { "remove-through-link-by-exec", "x", "N - - - - - -",
    STEPS (SH ("ln -s @O/d dl; rm -rf dl/; rm -rf dl/*")), CONFINED_EXEC },
};

guint
agents_conformance_get_n_hostile_paths (void)
{
  return G_N_ELEMENTS (hostile_cases);
}

typedef struct
{
  const AgentsConformanceBackend *backend;
  const HostileCase *c;
} HostileRun;

/* Fails the test when a listing names something outside the root. */
static void
check_listing (Fixture *f,
               GListModel *entries,
               gboolean must_exist,
               const char *what)
{
  g_autofree char *prefix = g_strconcat (f->root, "/", NULL);

  for (guint i = 0; i < g_list_model_get_n_items (entries); i++)
    {
      g_autoptr (AgentsFileEntry) entry = g_list_model_get_item (entries, i);
      const char *path = agents_file_entry_get_path (entry);

      struct stat st;

      if (!(g_str_equal (path, f->root) || g_str_has_prefix (path, prefix)) ||
          strstr (path, "-outside") != NULL || strstr (path, "canary") != NULL)
        {
          f->escapes++;
          g_test_message ("ESCAPE: %s listed %s", what, path);
          g_test_fail ();
        }
      else if (must_exist && lstat (path, &st) < 0)
        {
          g_autofree char *shown = g_strescape (path, NULL);

          g_test_message ("%s listed %s, which does not exist", what, shown);
          g_test_fail ();
        }
    }
}

/* Whether @path is a directory of the host, symlinks followed. */
static gboolean
is_host_dir (Fixture *f, const char *path)
{
  g_autofree char *abs = NULL;

  if (!fixture_host (f))
    return FALSE;
  abs = g_path_is_absolute (path) ? g_strdup (path)
                                  : g_build_filename (f->root, path, NULL);
  return g_file_test (abs, G_FILE_TEST_IS_DIR);
}

/* Runs @op on @path. In host mode, the entries of a listed directory
 * must exist, unless @racing. */
static GError *
run_op (Fixture *f,
        Op op,
        const char *path,
        GBytes *payload,
        gboolean racing,
        const char *what)
{
  GError *error = NULL;

  switch (op)
    {
    case OP_READ:
      {
        g_autoptr (GBytes) data = session_read (f->session, path, &error);

        fixture_check_read (f, data, what);
      }
      break;
    case OP_WRITE:
      session_write (f->session, path, "written by the conformance suite\n",
                     &error);
      break;
    case OP_LS:
      {
        gboolean must_exist = !racing && is_host_dir (f, path);
        g_autoptr (GListModel) entries = session_ls (f->session, path, &error);

        if (entries != NULL)
          check_listing (f, entries, must_exist, what);
      }
      break;
    case OP_MKDIR:
      session_mkdir (f->session, path, TRUE, &error);
      break;
    case OP_RM:
      session_rm (f->session, path, FALSE, &error);
      break;
    case OP_RM_RECURSIVE:
      session_rm (f->session, path, TRUE, &error);
      break;
    case OP_EXTRACT:
      session_extract (f->session, path, payload, AGENTS_COMPRESSION_SCHEME_TAR,
                       &error);
      break;
    default:
      g_assert_not_reached ();
    }
  return error;
}

static gboolean
outcome_allowed (const char *allowed, char letter)
{
  if (g_str_equal (allowed, "*"))
    return strchr ("SENZAWI", letter) != NULL;
  return strchr (allowed, letter) != NULL;
}

static void
test_hostile_case (gconstpointer data)
{
  const HostileRun *run = data;
  const HostileCase *c = run->c;
  g_auto (GStrv) expect = g_strsplit (c->expect, " ", -1);
  g_autoptr (GBytes) payload = NULL;
  g_autofree char *path = NULL;
  g_autofree char *shown = NULL;
  gboolean fresh;
  Fixture f;

  g_assert_cmpuint (g_strv_length (expect), ==, N_OPS);
  if ((c->flags & CONFINED_EXEC) &&
      !(run->backend->host_visible_root && run->backend->confined_exec))
    {
      g_test_skip ("the backend's commands can reach the sentinel");
      return;
    }
  if (!backend_has_outside (run->backend) &&
      (template_needs_outside (c->path) || steps_need_outside (c->setup)))
    {
      g_test_skip ("no sentinel directory");
      return;
    }
  fixture_open (&f, run->backend, NULL);

  path = expand (&f, c->path);
  shown = g_strescape (path, NULL);
  if (strlen (shown) > 200)
    strcpy (shown + 180, "…");
  payload = build_archive (&f, FORMAT_TAR, build_payload);

  /* The root holds what the setup made until an operation is not
   * refused outright. */
  fixture_run_steps (&f, c->setup);
  fresh = TRUE;
  for (guint op = 0; op < N_OPS; op++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *what = NULL;
      char letter;

      if (g_str_equal (expect[op], "-"))
        continue;
      if (!fresh)
        fixture_reset (&f, c->setup);
      what = g_strdup_printf ("%s(\"%s\")", op_names[op], shown);
      error = run_op (&f, op, path, payload, FALSE, what);
      letter = error_letter (error);
      fresh = letter == 'E';
      if (g_test_verbose ())
        g_test_message ("%s: %c%s%s", what, letter, error ? " " : "",
                        error ? error->message : "");
      if (!outcome_allowed (expect[op], letter))
        {
          g_test_message ("%s: %c (%s), expected one of \"%s\"", what, letter,
                          error ? error->message : "success", expect[op]);
          g_test_fail ();
        }
      else if (letter == 'E')
        assert_sandbox_error (error,
                              AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH);
      fixture_check_outside (&f, what);
    }
  fixture_close (&f);
}

/* ---- a directory swapped for a symlink during operations -------------- */

typedef struct
{
  char *dir;
  char *swap;
  gint stop;
  guint swaps;
} Swapper;

static gpointer
swapper_thread (gpointer data)
{
  Swapper *s = data;

  while (!g_atomic_int_get (&s->stop))
    {
      if (syscall (SYS_renameat2, AT_FDCWD, s->dir, AT_FDCWD, s->swap,
                   RENAME_EXCHANGE) == 0)
        s->swaps++;
      /* Both states last long enough to be seen, and change often
       * enough to fall between a check and its use. */
      g_usleep (g_random_int_range (0, 300));
    }
  return NULL;
}

/* How often each operation ended with each outcome letter. */
typedef struct
{
  guint counts[N_OPS][128];
} RaceStats;

static void
race_expect (Fixture *f,
             Op op,
             const char *path,
             GBytes *payload,
             const char *allowed,
             RaceStats *stats)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *what =
    g_strdup_printf ("%s(\"%s\") during swaps", op_names[op], path);
  char letter;

  error = run_op (f, op, path, payload, TRUE, what);
  letter = error_letter (error);
  stats->counts[op][(guchar) letter & 127]++;
  if (!outcome_allowed (allowed, letter))
    {
      g_test_message ("%s: %c (%s), expected one of \"%s\"", what, letter,
                      error ? error->message : "success", allowed);
      g_test_fail ();
    }
  fixture_check_outside (f, what);
}

static void
test_symlink_swap_race (gconstpointer data)
{
  Fixture f;
  Swapper s = { 0 };
  GThread *thread;
  g_autoptr (GBytes) payload = NULL;
  g_autoptr (GString) summary = g_string_new (NULL);
  RaceStats stats = { 0 };

  if (!((const AgentsConformanceBackend *) data)->host_visible_root)
    {
      g_test_skip ("needs a host-visible root");
      return;
    }
  fixture_open (&f, data, NULL);
  fixture_reset (&f, STEPS (FILE_AT ("race/f.txt"), MKDIR ("race/d"),
                            LINK ("race.swap", "@O")));
  s.dir = fixture_host_path (&f, "race");
  s.swap = fixture_host_path (&f, "race.swap");
  payload = build_archive (&f, FORMAT_TAR, build_payload);
  thread = g_thread_new ("swapper", swapper_thread, &s);

  for (guint i = 0; i < 200; i++)
    {
      race_expect (&f, OP_WRITE, "race/f.txt", NULL, "SE", &stats);
      race_expect (&f, OP_READ, "race/f.txt", NULL, "SEN", &stats);
      race_expect (&f, OP_READ, "race/d/keep-outside.txt", NULL, "EN", &stats);
    }
  for (guint i = 0; i < 40; i++)
    {
      race_expect (&f, OP_LS, "race", NULL, "SEZ", &stats);
      race_expect (&f, OP_LS, "race/d", NULL, "SEZ", &stats);
      race_expect (&f, OP_MKDIR, "race/d/e", NULL, "SEZ", &stats);
      race_expect (&f, OP_RM, "race/f.txt", NULL, "SEZ", &stats);
      race_expect (&f, OP_RM_RECURSIVE, "race/d/keep-outside.txt", NULL, "SEZ",
                   &stats);
      race_expect (&f, OP_RM_RECURSIVE, "race/d/e", NULL, "SEZ", &stats);
      race_expect (&f, OP_EXTRACT, "race/bundle.tar", payload, "SEZW", &stats);
    }

  g_atomic_int_set (&s.stop, 1);
  g_thread_join (thread);
  for (guint op = 0; op < N_OPS; op++)
    for (guint c = 0; c < 128; c++)
      if (stats.counts[op][c] > 0)
        g_string_append_printf (summary, " %s:%c=%u", op_names[op], c,
                                stats.counts[op][c]);
  g_test_message ("%u swaps;%s", s.swaps, summary->str);
  g_assert_cmpuint (s.swaps, >, 100);
  /* The race really took both ways. */
  g_assert_cmpuint (stats.counts[OP_WRITE]['S'], >, 0);
  g_assert_cmpuint (stats.counts[OP_WRITE]['E'], >, 0);
  fixture_check_outside (&f, "operations during swaps");

  g_free (s.dir);
  g_free (s.swap);
  fixture_close (&f);
}

/* Path checks made while another process renames files: openat2()
 * fails with EAGAIN when a rename (or mount) anywhere races with a
 * lookup that resolves "..", which must not pass for "the path stays
 * inside". Any process of the host can cause this. */
static pid_t
start_renamer (const char *a, const char *b)
{
  pid_t pid = fork ();

  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      /* Only async-signal-safe calls in the child. */
      for (;;)
        if (rename (a, b) < 0 || rename (b, a) < 0)
          _exit (1);
    }
  return pid;
}

static void
stop_renamer (pid_t pid)
{
  int status = 0;

  kill (pid, SIGKILL);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  /* It was still renaming when it was killed. */
  g_assert_true (WIFSIGNALED (status));
}

static void
test_checks_during_renames (gconstpointer data)
{
  Fixture f;
  pid_t renamer;
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  g_autoptr (GString) summary = g_string_new (NULL);
  RaceStats stats = { 0 };
  static const char *const paths[] = {
    "sub/esc/canary.txt",
    "sub/esc/new/deeper",
    "d/l/x",
    "link/canary.txt",
  };

  if (!((const AgentsConformanceBackend *) data)->host_visible_root)
    {
      g_test_skip ("needs a host-visible root");
      return;
    }
  fixture_open (&f, data, NULL);
  /* sub/esc resolves ".." below the root 500 times before it leaves. */
  fixture_reset (&f, STEPS (LINK ("sub/esc", "@HOPS../@U"), MKDIR ("d"),
                            LINK ("d/l", "../d/l"), LINK ("link", "@U"),
                            FILE_AT ("churn/a")));
  a = fixture_host_path (&f, "churn/a");
  b = fixture_host_path (&f, "churn/b");
  renamer = start_renamer (a, b);

  for (guint i = 0; i < 25; i++)
    for (guint p = 0; p < G_N_ELEMENTS (paths); p++)
      {
        race_expect (&f, OP_READ, paths[p], NULL, "E", &stats);
        race_expect (&f, OP_WRITE, paths[p], NULL, "E", &stats);
        race_expect (&f, OP_LS, paths[p], NULL, "E", &stats);
        race_expect (&f, OP_MKDIR, paths[p], NULL, "E", &stats);
        race_expect (&f, OP_RM_RECURSIVE, paths[p], NULL, "E", &stats);
      }

  stop_renamer (renamer);
  for (guint op = 0; op < N_OPS; op++)
    for (guint c = 0; c < 128; c++)
      if (stats.counts[op][c] > 0)
        g_string_append_printf (summary, " %s:%c=%u", op_names[op], c,
                                stats.counts[op][c]);
  g_test_message ("outcomes:%s", summary->str);
  fixture_check_outside (&f, "path checks during renames");
  fixture_close (&f);
}

/* ---- the archive corpus ----------------------------------------------- */

static void
build_slip_parent (Builder *b)
{
  add_file (b, "../@P", "evil");
}

static void
build_slip_nested (Builder *b)
{
  add_dir (b, "a/");
  add_file (b, "a/../../@P", "evil");
}

static void
build_slip_deep (Builder *b)
{
  add_file (b, "@UPStmp/@P", "evil");
}

static void
build_absolute_outside (Builder *b)
{
  add_file (b, "@O/@P", "evil");
}

static void
build_absolute_tmp (Builder *b)
{
  add_file (b, "/tmp/@P", "evil");
}

static void
build_symlink_abs_then_write (Builder *b)
{
  add_symlink (b, "link", "@O");
  add_file (b, "link/canary.txt", "owned");
}

static void
build_symlink_rel_then_write (Builder *b)
{
  add_symlink (b, "up", "../../../../../../../../..@O");
  add_file (b, "up/canary.txt", "owned");
}

static void
build_symlink_lone_abs (Builder *b)
{
  add_symlink (b, "etc", "/etc");
}

static void
build_symlink_lone_rel (Builder *b)
{
  add_symlink (b, "up", "../@P");
}

static void
build_symlink_chain (Builder *b)
{
  add_dir (b, "d/");
  add_symlink (b, "d/lnk", "..");
  add_symlink (b, "d/s", "lnk/../@P");
  add_file (b, "d/s/canary.txt", "owned");
}

static void
build_hardlink_abs (Builder *b)
{
  add_hardlink (b, "hl", "@O/canary.txt");
}

static void
build_hardlink_parent (Builder *b)
{
  add_hardlink (b, "hl", "../../../canary.txt");
}

static void
build_hardlink_etc (Builder *b)
{
  add_hardlink (b, "hl", "/etc/passwd");
}

static void
build_hardlink_through_link (Builder *b)
{
  add_hardlink (b, "hl", "evil/canary.txt");
}

static void
build_char_device (Builder *b)
{
  builder_entry (b, "null", AE_IFCHR, 0666, 0, NULL, NULL);
}

static void
build_block_device (Builder *b)
{
  builder_entry (b, "disk", AE_IFBLK, 0660, 0, NULL, NULL);
}

static void
build_fifo (Builder *b)
{
  builder_entry (b, "fifo", AE_IFIFO, 0644, 0, NULL, NULL);
}

static void
build_big_input (Builder *b)
{
  add_file_fill (b, "random", 200 * 1024, 0);
}

static void
build_too_many_members (Builder *b)
{
  for (int i = 0; i < 31; i++)
    {
      g_autofree char *name = g_strdup_printf ("f%02d", i);

      add_file (b, name, "x");
    }
}

static void
build_bomb (Builder *b)
{
  add_file_fill (b, "bomb", 16 * 1024 * 1024, 'A');
}

static void
build_header_over (Builder *b)
{
  /* The header announces 10 MiB; libarchive pads with zeros. */
  builder_entry (b, "huge", AE_IFREG, 0644, 10 * 1024 * 1024, NULL, NULL);
}

static void
build_sum_over (Builder *b)
{
  add_file_fill (b, "one", 400 * 1024, 'a');
  add_file_fill (b, "two", 400 * 1024, 'b');
  add_file_fill (b, "three", 400 * 1024, 'c');
}

static void
build_through_existing_link (Builder *b)
{
  add_file (b, "evil/canary.txt", "owned");
}

static void
build_dir_through_existing_link (Builder *b)
{
  add_dir (b, "evil/newdir/");
}

typedef struct
{
  int code;        /* -1: success */
  const char *key; /* context member: "reason" or "limit" */
  const char *value;
} ArchiveOutcome;

typedef struct
{
  const char *name;
  Format format;
  BuildFunc build;
  const Step *setup; /* "@X" is where the members land */
  gint64 max_input_bytes;
  gint64 max_extracted_bytes;
  gint64 max_members;
  ArchiveOutcome hydrate;
  ArchiveOutcome extract; /* code 0 (never expected): as hydrate */
  /* KEPT_LINK: the symlink member restored and its target (a template). */
  const char *link;
  const char *link_target;
} ArchiveCase;

#define UNSAFE(r)                                           \
  {                                                         \
    AGENTS_SANDBOX_ERROR_UNSAFE_ARCHIVE_MEMBER, "reason", r \
  }
#define LIMIT(l)                                   \
  {                                                \
    AGENTS_SANDBOX_ERROR_ARCHIVE_LIMIT, "limit", l \
  }
#define ESCAPE_PATH                                            \
  {                                                            \
    AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH, "reason", NULL \
  }
#define AS_HYDRATE \
  {                \
    0, NULL, NULL  \
  }
#define SUCCESS    \
  {                \
    -1, NULL, NULL \
  }
/* A snapshot keeps its symlinks whatever they point to, as the reference's
 * non-strict validator does; user archives are held to the root. */
#define KEPT_LINK_CODE (-2)
#define KEPT_LINK              \
  {                            \
    KEPT_LINK_CODE, NULL, NULL \
  }

static const ArchiveCase archive_cases[] = {
  { "tar-slip-parent", FORMAT_TAR, build_slip_parent, NULL, 0, 0, 0,
    UNSAFE ("parent_reference"), AS_HYDRATE },
  { "tar-slip-nested", FORMAT_TAR, build_slip_nested, NULL, 0, 0, 0,
    UNSAFE ("parent_reference"), AS_HYDRATE },
  { "tar-slip-deep", FORMAT_TAR, build_slip_deep, NULL, 0, 0, 0,
    UNSAFE ("parent_reference"), AS_HYDRATE },
  { "zip-slip-parent", FORMAT_ZIP, build_slip_parent, NULL, 0, 0, 0,
    UNSAFE ("parent_reference"), AS_HYDRATE },
  { "zip-slip-nested", FORMAT_ZIP, build_slip_nested, NULL, 0, 0, 0,
    UNSAFE ("parent_reference"), AS_HYDRATE },
  { "tar-absolute-member", FORMAT_TAR, build_absolute_outside, NULL, 0, 0, 0,
    UNSAFE ("absolute_path"), AS_HYDRATE },
  { "tar-absolute-tmp-member", FORMAT_TAR, build_absolute_tmp, NULL, 0, 0, 0,
    UNSAFE ("absolute_path"), AS_HYDRATE },
  { "zip-absolute-member", FORMAT_ZIP, build_absolute_outside, NULL, 0, 0, 0,
    UNSAFE ("absolute_path"), AS_HYDRATE },
  { "tar-symlink-abs-then-write", FORMAT_TAR, build_symlink_abs_then_write,
    NULL, 0, 0, 0, UNSAFE ("symlink_escape"), AS_HYDRATE },
  { "tar-symlink-rel-then-write", FORMAT_TAR, build_symlink_rel_then_write,
    NULL, 0, 0, 0, UNSAFE ("symlink_escape"), AS_HYDRATE },
  { "tar-symlink-lone-abs", FORMAT_TAR, build_symlink_lone_abs, NULL, 0, 0, 0,
    KEPT_LINK, UNSAFE ("symlink_escape"), "etc", "/etc" },
  { "tar-symlink-lone-rel", FORMAT_TAR, build_symlink_lone_rel, NULL, 0, 0, 0,
    KEPT_LINK, UNSAFE ("symlink_escape"), "up", "../@P" },
  { "tar-symlink-chain", FORMAT_TAR, build_symlink_chain, NULL, 0, 0, 0,
    UNSAFE ("symlink_escape"), AS_HYDRATE },
  { "zip-symlink-abs-then-write", FORMAT_ZIP, build_symlink_abs_then_write,
    NULL, 0, 0, 0, UNSAFE ("symlink_escape"), AS_HYDRATE },
  { "tar-hardlink-abs", FORMAT_TAR, build_hardlink_abs, NULL, 0, 0, 0,
    UNSAFE ("hardlink_escape"), AS_HYDRATE },
  { "tar-hardlink-parent", FORMAT_TAR, build_hardlink_parent, NULL, 0, 0, 0,
    UNSAFE ("hardlink_escape"), AS_HYDRATE },
  { "tar-hardlink-etc-passwd", FORMAT_TAR, build_hardlink_etc, NULL, 0, 0, 0,
    UNSAFE ("hardlink_escape"), AS_HYDRATE },
  { "tar-hardlink-through-existing-link",
    FORMAT_TAR,
    build_hardlink_through_link,
    STEPS (LINK ("@Xevil", "@O")),
    0,
    0,
    0,
    UNSAFE ("hardlink_escape"),
    /* The archive alone is extracted apart first: the target is missing. */
    { AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE, "reason", NULL } },
  { "tar-char-device", FORMAT_TAR, build_char_device, NULL, 0, 0, 0,
    UNSAFE ("special_file"), AS_HYDRATE },
  { "tar-block-device", FORMAT_TAR, build_block_device, NULL, 0, 0, 0,
    UNSAFE ("special_file"), AS_HYDRATE },
  { "tar-fifo", FORMAT_TAR, build_fifo, NULL, 0, 0, 0, UNSAFE ("special_file"),
    AS_HYDRATE },
  { "tar-over-max-input-bytes", FORMAT_TAR, build_big_input, NULL, 64 * 1024, 0,
    0, LIMIT ("max_input_bytes"), AS_HYDRATE },
  { "zip-over-max-input-bytes", FORMAT_ZIP, build_big_input, NULL, 64 * 1024, 0,
    0, LIMIT ("max_input_bytes"), AS_HYDRATE },
  { "tar-over-max-members", FORMAT_TAR, build_too_many_members, NULL, 0, 0, 30,
    LIMIT ("max_members"), AS_HYDRATE },
  { "zip-over-max-members", FORMAT_ZIP, build_too_many_members, NULL, 0, 0, 30,
    LIMIT ("max_members"), AS_HYDRATE },
  { "gzip-bomb", FORMAT_TAR_GZ, build_bomb, NULL, 0, 1024 * 1024, 0,
    LIMIT ("max_extracted_bytes"), AS_HYDRATE },
  { "zip-bomb", FORMAT_ZIP, build_bomb, NULL, 0, 1024 * 1024, 0,
    LIMIT ("max_extracted_bytes"), AS_HYDRATE },
  { "tar-header-over-max-extracted", FORMAT_TAR, build_header_over, NULL, 0,
    1024 * 1024, 0, LIMIT ("max_extracted_bytes"), AS_HYDRATE },
  { "tar-sum-over-max-extracted", FORMAT_TAR, build_sum_over, NULL, 0,
    1024 * 1024, 0, LIMIT ("max_extracted_bytes"), AS_HYDRATE },
  { "tar-write-through-existing-link", FORMAT_TAR, build_through_existing_link,
    STEPS (LINK ("@Xevil", "@O")), 0, 0, 0, UNSAFE ("symlink_escape"),
    ESCAPE_PATH },
  { "tar-mkdir-through-existing-link", FORMAT_TAR,
    /* Absolute: "@U" is relative to the root, not to "@X", and from a
     * shallow root such as /workspace it would lead back inside. */
    build_dir_through_existing_link, STEPS (LINK ("@Xevil", "@O/..")), 0, 0, 0,
    UNSAFE ("symlink_escape"), ESCAPE_PATH },
  { "tar-happy-path", FORMAT_TAR, build_happy, NULL, 0, 0, 0, SUCCESS,
    AS_HYDRATE },
  { "tar-gz-happy-path", FORMAT_TAR_GZ, build_happy, NULL, 0, 0, 0, SUCCESS,
    AS_HYDRATE },
  { "zip-happy-path", FORMAT_ZIP, build_happy, NULL, 0, 0, 0, SUCCESS,
    AS_HYDRATE },
};

typedef struct
{
  const AgentsConformanceBackend *backend;
  const ArchiveCase *c;
  gboolean hydrate;
} ArchiveRun;

/* @rel is a symlink to @target (a template), as listed and as read. */
static void
check_kept_link (Fixture *f, const char *rel, const char *target)
{
  g_autofree char *want = expand (f, target);
  g_autofree char *got = NULL;
  g_autoptr (GListModel) entries = ls_ok (f, ".");

  assert_entry (f, entries, rel, AGENTS_ENTRY_KIND_SYMLINK, -1, 0);
  if (fixture_host (f))
    {
      g_autofree char *path = fixture_host_path (f, rel);
      g_autoptr (GError) error = NULL;

      got = g_file_read_link (path, &error);
      g_assert_no_error (error);
    }
  else
    {
      g_autofree char *path = g_build_filename (f->root, rel, NULL);
      g_autofree char *q = g_shell_quote (path);
      g_autofree char *script = g_strdup_printf ("readlink %s", q);

      got = session_sh_ok (f->session, script);
      g_strchomp (got);
    }
  g_assert_cmpstr (got, ==, want);
}

static gboolean
has_link_member (GBytes *archive)
{
  struct archive *a = archive_read_new ();
  struct archive_entry *entry;
  gboolean found = FALSE;
  gsize size;
  const void *data = g_bytes_get_data (archive, &size);

  archive_read_support_filter_all (a);
  archive_read_support_format_all (a);
  if (archive_read_open_memory (a, data, size) == ARCHIVE_OK)
    while (!found && archive_read_next_header (a, &entry) == ARCHIVE_OK)
      found = archive_entry_filetype (entry) == AE_IFLNK ||
              archive_entry_hardlink (entry) != NULL;
  archive_read_free (a);
  return found;
}

/* A user's extract (unlike hydrate) refuses link members, and reports a
 * refused member or an exceeded limit as the reference does: a
 * WORKSPACE_ARCHIVE_WRITE whose "code" is the reason or limit code. */
static const ArchiveOutcome *
extract_outcome (const ArchiveOutcome *want,
                 GBytes *archive,
                 ArchiveOutcome *out)
{
  gboolean links = has_link_member (archive);

  if (want->code == -1 || want->code == KEPT_LINK_CODE ||
      g_strcmp0 (want->value, "symlink_escape") == 0 ||
      g_strcmp0 (want->value, "hardlink_escape") == 0)
    {
      if (!links && want->code != AGENTS_SANDBOX_ERROR_UNSAFE_ARCHIVE_MEMBER)
        return want;
      if (links)
        {
          *out = (ArchiveOutcome){ AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE,
                                   "code", "link_member" };
          return out;
        }
    }
  if (want->code == AGENTS_SANDBOX_ERROR_UNSAFE_ARCHIVE_MEMBER ||
      want->code == AGENTS_SANDBOX_ERROR_ARCHIVE_LIMIT)
    {
      *out = (ArchiveOutcome){ AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE,
                               "code", want->value };
      return out;
    }
  if (want->code == AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH)
    {
      *out = (ArchiveOutcome){ AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE,
                               "code", "symlink_escape" };
      return out;
    }
  return want;
}

/* A strict hydrate (strict_hydrate_links) refuses the outward symlink
 * member itself: a kept link, or one a later member was written through,
 * becomes a WORKSPACE_ARCHIVE_WRITE. @reason, when not %NULL, receives the
 * exact reason of a kept link's refusal. */
static const ArchiveOutcome *
strict_hydrate_outcome (Fixture *f,
                        const ArchiveCase *c,
                        const ArchiveOutcome *want,
                        GBytes *archive,
                        char **reason,
                        ArchiveOutcome *out)
{
  if (want->code == KEPT_LINK_CODE)
    {
      g_autofree char *target = expand (f, c->link_target);

      *reason =
        g_strdup_printf (g_path_is_absolute (c->link_target)
                           ? "absolute symlink target not allowed: %s"
                           : "symlink target escapes workspace root: %s",
                         target);
      *out = (ArchiveOutcome){ AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE,
                               "reason", *reason };
      return out;
    }
  if (g_strcmp0 (want->value, "symlink_escape") == 0 &&
      has_link_member (archive))
    {
      *out = (ArchiveOutcome){ AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE,
                               "reason", NULL };
      return out;
    }
  return want;
}

static void
test_archive_case (gconstpointer data)
{
  const ArchiveRun *run = data;
  const ArchiveCase *c = run->c;
  static const ArchiveOutcome engine_refused = UNSAFE ("symlink_escape");
  const ArchiveOutcome *want =
    run->hydrate || c->extract.code == 0 ? &c->hydrate : &c->extract;
  AgentsArchiveLimits limits = {
    c->max_input_bytes ? c->max_input_bytes : G_GINT64_CONSTANT (1) << 30,
    c->max_extracted_bytes ? c->max_extracted_bytes
                           : G_GINT64_CONSTANT (4) << 30,
    c->max_members ? c->max_members : 100000,
  };
  g_autoptr (GBytes) archive = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *what = NULL;
  gboolean ok;
  ArchiveOutcome extract_want;
  ArchiveOutcome strict_want;
  g_autofree char *strict_reason = NULL;
  Fixture f;

  if (!backend_has_outside (run->backend))
    {
      g_test_skip ("no sentinel directory");
      return;
    }
  if (want->code == KEPT_LINK_CODE && !g_path_is_absolute (c->link_target) &&
      run->backend->refuses_outward_relative_links)
    want = &engine_refused;
  fixture_open (&f, run->backend, NULL);
  g_free (f.archive_prefix);
  f.archive_prefix = g_strdup (run->hydrate ? "" : "dest/");
  fixture_run_steps (&f, c->setup);
  agents_sandbox_session_set_archive_limits (f.session, &limits);
  archive = build_archive (&f, c->format, c->build);
  if (c->build == build_bomb)
    g_assert_cmpuint (g_bytes_get_size (archive), <, 200 * 1024);

  if (run->hydrate)
    ok = session_hydrate (f.session, archive, &error);
  else
    ok = session_extract (
      f.session,
      c->format == FORMAT_ZIP ? "dest/bundle.zip" : "dest/bundle.tar", archive,
      c->format == FORMAT_ZIP ? AGENTS_COMPRESSION_SCHEME_ZIP
                              : AGENTS_COMPRESSION_SCHEME_TAR,
      &error);

  what =
    g_strdup_printf ("%s of %s", run->hydrate ? "hydrate" : "extract", c->name);
  if (!run->hydrate)
    want = extract_outcome (want, archive, &extract_want);
  else if (run->backend->strict_hydrate_links)
    want = strict_hydrate_outcome (&f, c, want, archive, &strict_reason,
                                   &strict_want);
  if (want->code == -1)
    {
      g_assert_no_error (error);
      g_assert_true (ok);
      check_happy_extracted (&f, f.archive_prefix);
    }
  else if (want->code == KEPT_LINK_CODE)
    {
      g_assert_no_error (error);
      g_assert_true (ok);
      check_kept_link (&f, c->link, c->link_target);
    }
  else
    {
      g_autoptr (GVariant) context = NULL;
      const char *value = NULL;

      g_assert_false (ok);
      if (error->domain != AGENTS_SANDBOX_ERROR || error->code != want->code)
        g_test_message ("%s: %s", what, error->message);
      g_assert_error (error, AGENTS_SANDBOX_ERROR, want->code);
      context = agents_sandbox_error_get_context (error);
      g_assert_nonnull (context);
      g_assert_true (g_variant_lookup (context, want->key, "&s", &value));
      if (want->value != NULL)
        g_assert_cmpstr (value, ==, want->value);
      if (want->code == AGENTS_SANDBOX_ERROR_UNSAFE_ARCHIVE_MEMBER ||
          want == &strict_want)
        g_assert_true (g_variant_lookup (context, "member", "&s", &value));
      if (want == &strict_want && c->link != NULL)
        g_assert_cmpstr (value, ==, c->link);
      if (want->code == AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE)
        g_assert_true (g_variant_lookup (context, "reason", "&s", &value));
      if (want->code == AGENTS_SANDBOX_ERROR_ARCHIVE_LIMIT)
        {
          g_autoptr (GVariant) limit =
            g_variant_lookup_value (context, "value", G_VARIANT_TYPE_INT64);

          g_assert_nonnull (limit);
        }
    }
  fixture_check_outside (&f, what);
  fixture_close (&f);
}

/* ---- registration ----------------------------------------------------- */

static void
add_backend_test (const AgentsConformanceBackend *backend,
                  const char *name,
                  GTestDataFunc func)
{
  g_autofree char *path =
    g_strdup_printf ("/conformance/%s/%s", backend->name, name);

  g_test_add_data_func (path, backend, func);
}

/* The data of parameterized cases lives as long as the process: GTest
 * frees test data only after running the test, and a filtered run (-p,
 * -s) skips most of them. */
static gpointer
suite_data_new0 (gsize size)
{
  static GPtrArray *suite_data;

  if (suite_data == NULL)
    suite_data = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (suite_data, g_malloc0 (size));
  return g_ptr_array_index (suite_data, suite_data->len - 1);
}

/**
 * agents_conformance_add_tests:
 * @backend: the backend under test
 *
 * Registers the whole suite for @backend under `/conformance/<name>/`.
 */
void
agents_conformance_add_tests (const AgentsConformanceBackend *backend)
{
  add_backend_test (backend, "write-read-round-trip", test_round_trip);
  add_backend_test (backend, "exec", test_exec);
  add_backend_test (backend, "exec-timeout", test_exec_timeout);
  add_backend_test (backend, "ls", test_ls);
  add_backend_test (backend, "mkdir", test_mkdir);
  add_backend_test (backend, "rm", test_rm);
  add_backend_test (backend, "extract", test_extract);
  add_backend_test (backend, "persist-hydrate", test_persist_hydrate);
  add_backend_test (backend, "apply-manifest", test_apply_manifest);
  add_backend_test (backend, "hostile-manifest", test_hostile_manifest);

  for (guint i = 0; i < G_N_ELEMENTS (hostile_cases); i++)
    {
      HostileRun *run = suite_data_new0 (sizeof (HostileRun));
      g_autofree char *path =
        g_strdup_printf ("/conformance/%s/hostile-paths/%03u-%s", backend->name,
                         i, hostile_cases[i].name);

      run->backend = backend;
      run->c = &hostile_cases[i];
      g_test_add_data_func (path, run, test_hostile_case);
    }
  add_backend_test (backend, "hostile-paths/symlink-swap-race",
                    test_symlink_swap_race);
  add_backend_test (backend, "hostile-paths/checks-during-renames",
                    test_checks_during_renames);

  for (guint i = 0; i < G_N_ELEMENTS (archive_cases); i++)
    for (int hydrate = 0; hydrate < 2; hydrate++)
      {
        ArchiveRun *run;
        g_autofree char *path = NULL;

        if (hydrate && archive_cases[i].format == FORMAT_ZIP)
          continue;
        run = suite_data_new0 (sizeof (ArchiveRun));
        run->backend = backend;
        run->c = &archive_cases[i];
        run->hydrate = hydrate;
        path = g_strdup_printf ("/conformance/%s/archives/%s/%s", backend->name,
                                hydrate ? "hydrate" : "extract",
                                archive_cases[i].name);
        g_test_add_data_func (path, run, test_archive_case);
      }
}
