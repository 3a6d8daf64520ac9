/* test-archive.c - streaming tar creation and safe extraction
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <linux/openat2.h>
#include <sys/syscall.h>

#include "agents-archive-private.h"
#include "agents-sandbox-error-private.h"
#include "test-utils.h"

/* ---- helpers ---------------------------------------------------------- */

static GBytes *
read_all (GInputStream *stream, GError **error)
{
  g_autoptr (GByteArray) out = g_byte_array_new ();
  guint8 buffer[16 * 1024];

  for (;;)
    {
      gssize n =
        g_input_stream_read (stream, buffer, sizeof buffer, NULL, error);

      if (n < 0)
        return NULL;
      if (n == 0)
        return g_byte_array_free_to_bytes (g_steal_pointer (&out));
      g_byte_array_append (out, buffer, n);
    }
}

static GBytes *
tar_directory_bytes (const char *root, const char *const *exclude)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GInputStream) stream =
    agents_archive_tar_directory (root, exclude, NULL, &error);
  GBytes *bytes;

  g_assert_no_error (error);
  bytes = read_all (stream, &error);
  g_assert_no_error (error);
  return bytes;
}

/* The member names, with the trailing slash of directories removed (as
 * Python's tarfile reports them). */
static GPtrArray *
tar_names (GBytes *tar)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  struct archive *a = archive_read_new ();
  struct archive_entry *entry;
  gsize size;
  gconstpointer data = g_bytes_get_data (tar, &size);

  archive_read_support_format_tar (a);
  g_assert_cmpint (archive_read_open_memory (a, data, size), ==, ARCHIVE_OK);
  while (archive_read_next_header (a, &entry) == ARCHIVE_OK)
    {
      char *name = g_strdup (archive_entry_pathname (entry));
      gsize len = strlen (name);

      while (len > 1 && name[len - 1] == '/')
        name[--len] = '\0';
      g_ptr_array_add (names, name);
    }
  archive_read_free (a);
  return names;
}

static void
assert_names (GPtrArray *names, const char *const *expected)
{
  g_autofree char *got = NULL;
  g_autofree char *want = NULL;

  g_ptr_array_add (names, NULL);
  got = g_strjoinv (",", (char **) names->pdata);
  want = g_strjoinv (",", (char **) expected);
  g_ptr_array_remove_index (names, names->len - 1);
  g_assert_cmpstr (got, ==, want);
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

static GPtrArray *
sorted_listing (const char *dir)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_strings);
  return names;
}

/* One line per file below @dir: type, relative path, mode, contents
 * digest or link target. */
static void
describe_tree_at (GString *out,
                  const char *dir,
                  const char *rel,
                  const char *skip)
{
  g_autofree char *here =
    *rel ? g_build_filename (dir, rel, NULL) : g_strdup (dir);
  g_autoptr (GPtrArray) names = sorted_listing (here);

  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      g_autofree char *child_rel =
        *rel ? g_build_filename (rel, name, NULL) : g_strdup (name);
      g_autofree char *path = g_build_filename (dir, child_rel, NULL);
      struct stat st;

      if (skip != NULL && *rel == '\0' && strcmp (name, skip) == 0)
        continue;
      g_assert_cmpint (lstat (path, &st), ==, 0);
      if (S_ISLNK (st.st_mode))
        {
          g_autofree char *target = g_file_read_link (path, NULL);

          g_string_append_printf (out, "l %s -> %s\n", child_rel, target);
        }
      else if (S_ISDIR (st.st_mode))
        {
          g_string_append_printf (out, "d %s %o\n", child_rel,
                                  st.st_mode & 07777);
          describe_tree_at (out, dir, child_rel, NULL);
        }
      else if (S_ISREG (st.st_mode))
        {
          g_autofree char *contents = NULL;
          gsize length = 0;
          g_autofree char *digest = NULL;

          g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
          digest = g_compute_checksum_for_data (
            G_CHECKSUM_SHA256, (const guchar *) contents, length);
          g_string_append_printf (out, "f %s %o %s\n", child_rel,
                                  st.st_mode & 07777, digest);
        }
      else
        g_string_append_printf (out, "o %s %o\n", child_rel, st.st_mode);
    }
}

static char *
describe_tree (const char *dir, const char *skip)
{
  GString *out = g_string_new (NULL);

  describe_tree_at (out, dir, "", skip);
  return g_string_free (out, FALSE);
}

static void
write_file_mode (const char *path, const void *data, gsize size, mode_t mode)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_file_set_contents (path, data, size, &error);
  g_assert_no_error (error);
  g_assert_cmpint (chmod (path, mode), ==, 0);
}

static void
make_tree (const char *root)
{
  g_autofree char *a = g_build_filename (root, "a.txt", NULL);
  g_autofree char *spaces =
    g_build_filename (root, "dir with spaces", "file with spaces.txt", NULL);
  g_autofree char *binary =
    g_build_filename (root, "nested", "deeper", "blob.bin", NULL);
  g_autofree char *script = g_build_filename (root, "nested", "run.sh", NULL);
  g_autofree char *secret = g_build_filename (root, "nested", "secret", NULL);
  g_autofree char *empty = g_build_filename (root, "empty-dir", NULL);
  g_autofree char *locked = g_build_filename (root, "locked-dir", NULL);
  g_autofree char *locked_file = g_build_filename (locked, "inside.txt", NULL);
  g_autofree char *link = g_build_filename (root, "link-to-a", NULL);
  g_autofree char *dir_link = g_build_filename (root, "nested", "up", NULL);
  g_autofree char *dangling = g_build_filename (root, "dangling", NULL);
  g_autofree char *utf8 = g_build_filename (root, "café ☕.txt", NULL);
  guint8 blob[70000];

  for (gsize i = 0; i < sizeof blob; i++)
    blob[i] = (guint8) (i * 7 + (i >> 8));
  write_file_mode (a, "alpha\n", 6, 0644);
  write_file_mode (spaces, "spaces\n", 7, 0600);
  write_file_mode (binary, blob, sizeof blob, 0640);
  write_file_mode (script, "#!/bin/sh\nexit 0\n", 17, 0755);
  write_file_mode (secret, "", 0, 0400);
  write_file_mode (utf8, "utf-8\n", 6, 0644);
  write_file_mode (locked_file, "locked\n", 7, 0644);
  g_assert_cmpint (chmod (locked, 0555), ==, 0);
  g_assert_cmpint (g_mkdir (empty, 0750), ==, 0);
  g_assert_cmpint (symlink ("a.txt", link), ==, 0);
  g_assert_cmpint (symlink ("..", dir_link), ==, 0);
  g_assert_cmpint (symlink ("does-not-exist", dangling), ==, 0);
}

static void
make_writable (const char *path)
{
  g_autoptr (GPtrArray) names = NULL;
  struct stat st;

  if (lstat (path, &st) < 0 || !S_ISDIR (st.st_mode))
    return;
  chmod (path, (st.st_mode & 07777) | 0700);
  names = sorted_listing (path);
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *child =
        g_build_filename (path, g_ptr_array_index (names, i), NULL);

      make_writable (child);
    }
}

/* Removes a tree even where a test made directories read-only. */
static void
rm_tree (const char *path)
{
  if (path == NULL)
    return;
  make_writable (path);
  agents_test_rm_rf (path);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

/* Writes @contents to @relative under @dir, making the directories. */
static void
write_under (const char *dir, const char *relative, const char *contents)
{
  g_autofree char *path = g_build_filename (dir, relative, NULL);

  agents_test_write_file (path, contents);
}

static guint
count_entries (const char *dir)
{
  g_autoptr (GPtrArray) names = sorted_listing (dir);

  return names->len;
}

static void
assert_context_int64 (const GError *error, const char *key, gint64 value)
{
  g_autoptr (GVariant) ctx = agents_sandbox_error_get_context (error);
  gint64 got = -1;

  g_assert_true (g_variant_lookup (ctx, key, "x", &got));
  g_assert_cmpint (got, ==, value);
}

/* ---- creating --------------------------------------------------------- */

static void
test_round_trip (void)
{
  g_autofree char *base = agents_test_make_tmp_dir ("archive-round-trip-");
  g_autofree char *src = g_build_filename (base, "src", NULL);
  g_autofree char *dst = g_build_filename (base, "dst", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GInputStream) stream = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;

  g_assert_cmpint (g_mkdir (src, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (dst, 0755), ==, 0);
  make_tree (src);

  stream = agents_archive_tar_directory (src, NULL, NULL, &error);
  g_assert_no_error (error);
  agents_archive_extract_to_directory (
    stream, dst, AGENTS_COMPRESSION_SCHEME_TAR, NULL, NULL, &error);
  g_assert_no_error (error);

  before = describe_tree (src, NULL);
  after = describe_tree (dst, NULL);
  g_assert_cmpstr (after, ==, before);
  g_assert_nonnull (strstr (after, "l link-to-a -> a.txt\n"));
  g_assert_nonnull (strstr (after, "d locked-dir 555\n"));
  g_assert_nonnull (strstr (after, "d empty-dir 750\n"));
  g_assert_nonnull (strstr (after, "f nested/secret 400 "));

  rm_tree (base);
}

static void
test_member_order (void)
{
  g_autofree char *root = agents_test_make_tmp_dir ("archive-order-");
  g_autofree char *b = g_build_filename (root, "b", NULL);
  g_autofree char *d = g_build_filename (root, "b", "d", NULL);
  g_autofree char *link = g_build_filename (root, "e-link", NULL);
  g_autofree char *fifo = g_build_filename (root, "fifo", NULL);
  g_autoptr (GBytes) tar = NULL;
  g_autoptr (GPtrArray) names = NULL;
  const char *const expected[] = { ".",     "./a.txt",  "./b", "./b/c.txt",
                                   "./b/d", "./e-link", NULL };

  write_under (root, "a.txt", "a");
  write_under (b, "c.txt", "c");
  g_assert_cmpint (g_mkdir (d, 0755), ==, 0);
  g_assert_cmpint (symlink ("a.txt", link), ==, 0);
  g_assert_cmpint (mkfifo (fifo, 0644), ==, 0); /* skipped */

  tar = tar_directory_bytes (root, NULL);
  names = tar_names (tar);
  assert_names (names, expected);

  rm_tree (root);
}

/* Mirrors unix_local_persist_workspace_excludes_mounted_directory_contents
 * of the reference: the mount and its mount path are both excluded, and
 * only the root remains. */
static void
test_excludes_everything_but_root (void)
{
  g_autofree char *root = agents_test_make_tmp_dir ("workspace-root-");
  g_autofree char *marker =
    g_build_filename (root, "logical", "marker.txt", NULL);
  g_autofree char *mounted =
    g_build_filename (root, "actual", "mounted.txt", NULL);
  const char *const exclude[] = { "logical", "actual", NULL };
  const char *const expected[] = { ".", NULL };
  g_autoptr (GBytes) tar = NULL;
  g_autoptr (GPtrArray) names = NULL;

  agents_test_write_file (marker, "logical");
  agents_test_write_file (mounted, "mounted");

  tar = tar_directory_bytes (root, exclude);
  names = tar_names (tar);
  assert_names (names, expected);

  rm_tree (root);
}

static void
test_excludes_subtree (void)
{
  g_autofree char *root = agents_test_make_tmp_dir ("archive-exclude-");
  g_autofree char *acb = g_build_filename (root, "a", "c", "b", NULL);
  const char *const exclude[] = { "./a/b/", "x//y", "missing", NULL };
  const char *const expected[] = { ".",     "./a",     "./a/b-sibling.txt",
                                   "./a/c", "./a/c/b", "./x",
                                   NULL };
  const char *const everything[] = { ".", NULL };
  const char *const dot[] = { ".", NULL };
  g_autoptr (GBytes) tar = NULL;
  g_autoptr (GBytes) all = NULL;
  g_autoptr (GPtrArray) names = NULL;
  g_autoptr (GPtrArray) all_names = NULL;

  write_under (root, "a/b/in.txt", "x");
  write_under (root, "a/b/deep/z", "z");
  write_under (root, "a/b-sibling.txt", "s");
  g_assert_cmpint (g_mkdir_with_parents (acb, 0755), ==, 0);
  write_under (root, "x/y/gone.txt", "g");

  tar = tar_directory_bytes (root, exclude);
  names = tar_names (tar);
  assert_names (names, expected);

  all = tar_directory_bytes (root, dot);
  all_names = tar_names (all);
  assert_names (all_names, everything);

  rm_tree (root);
}

static guint
count_dir (const char *path)
{
  return count_entries (path);
}

static void
make_big_file (const char *path, goffset size)
{
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, size), ==, 0);
  close (fd);
}

static void
test_early_close_does_not_leak (void)
{
  g_autofree char *root = agents_test_make_tmp_dir ("archive-close-");
  g_autofree char *big = g_build_filename (root, "big.bin", NULL);
  guint fds_before, threads_before;

  make_big_file (big, 16 * 1024 * 1024);
  fds_before = count_dir ("/proc/self/fd");
  threads_before = count_dir ("/proc/self/task");

  for (int variant = 0; variant < 3; variant++)
    {
      g_autoptr (GError) error = NULL;
      GInputStream *stream =
        agents_archive_tar_directory (root, NULL, NULL, &error);
      char buffer[4096];

      g_assert_no_error (error);
      if (variant > 0)
        g_assert_cmpint (
          g_input_stream_read (stream, buffer, sizeof buffer, NULL, &error), >,
          0);
      g_assert_no_error (error);
      /* The worker is now blocked on a full socket. */
      if (variant == 1)
        {
          g_assert_true (g_input_stream_close (stream, NULL, &error));
          g_assert_no_error (error);
          g_assert_cmpint (
            g_input_stream_read (stream, buffer, sizeof buffer, NULL, &error),
            ==, -1);
          g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CLOSED);
        }
      g_object_unref (stream);
      g_assert_cmpuint (count_dir ("/proc/self/fd"), ==, fds_before);
      g_assert_cmpuint (count_dir ("/proc/self/task"), ==, threads_before);
    }

  rm_tree (root);
}

static int
highest_fd (void)
{
  g_autoptr (GPtrArray) names = sorted_listing ("/proc/self/fd");
  int highest = 0;

  for (guint i = 0; i < names->len; i++)
    highest = MAX (highest, atoi (g_ptr_array_index (names, i)));
  return highest;
}

static gboolean
rlimit_enforced (void)
{
  int fds[16];
  int n = 0;

  while (n < (int) G_N_ELEMENTS (fds) &&
         (fds[n] = open ("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
    n++;
  for (int i = 0; i < n; i++)
    close (fds[i]);
  return n < (int) G_N_ELEMENTS (fds);
}

/* The worker runs out of file descriptors half-way: the reader must get
 * that error, not a clean end of a truncated archive. */
static void
test_worker_error_is_a_read_error (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *root =
        agents_test_make_tmp_dir ("archive-worker-error-");
      g_autoptr (GString) deep = g_string_new (root);
      g_autoptr (GError) error = NULL;
      g_autoptr (GInputStream) stream = NULL;
      g_autoptr (GBytes) bytes = NULL;
      struct rlimit limit;

      g_autofree char *big = g_build_filename (root, "a-big", NULL);

      for (int i = 0; i < 40; i++)
        g_string_append (deep, "/d");
      g_assert_cmpint (g_mkdir_with_parents (deep->str, 0755), ==, 0);
      /* Sorted first and larger than the socket buffer: the worker waits
       * on it until the limit is in place. */
      make_big_file (big, 8 * 1024 * 1024);

      stream = agents_archive_tar_directory (root, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpint (getrlimit (RLIMIT_NOFILE, &limit), ==, 0);
      limit.rlim_cur = highest_fd () + 4;
      g_assert_cmpint (setrlimit (RLIMIT_NOFILE, &limit), ==, 0);
      if (!rlimit_enforced ())
        {
          g_test_skip ("RLIMIT_NOFILE is not enforced here (valgrind?)");
          limit.rlim_cur = limit.rlim_max;
          setrlimit (RLIMIT_NOFILE, &limit);
          g_clear_object (&stream);
          rm_tree (root);
          return;
        }

      bytes = read_all (stream, &error);
      g_assert_null (bytes);
      g_assert_error (error, AGENTS_SANDBOX_ERROR,
                      AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ);
      agents_test_assert_context_str (error, "reason", g_strerror (EMFILE));
      g_assert_true (
        g_str_has_prefix (error->message, "failed to read archive for path: "));
      g_clear_object (&stream);
      limit.rlim_cur = limit.rlim_max;
      g_assert_cmpint (setrlimit (RLIMIT_NOFILE, &limit), ==, 0);
      rm_tree (root);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

static void
test_cancelled_worker_is_a_read_error (void)
{
  g_autofree char *root = agents_test_make_tmp_dir ("archive-cancel-");
  g_autofree char *big = g_build_filename (root, "big.bin", NULL);
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (GInputStream) stream = NULL;
  char buffer[4096];
  gssize n;

  make_big_file (big, 16 * 1024 * 1024);
  stream = agents_archive_tar_directory (root, NULL, cancellable, &error);
  g_assert_no_error (error);
  g_assert_cmpint (
    g_input_stream_read (stream, buffer, sizeof buffer, NULL, &error), >, 0);
  g_cancellable_cancel (cancellable);
  do
    n = g_input_stream_read (stream, buffer, sizeof buffer, NULL, &error);
  while (n > 0);
  g_assert_cmpint (n, ==, -1);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  rm_tree (root);
}

static void
test_missing_root (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GInputStream) stream = agents_archive_tar_directory (
    "/nonexistent/agents-root", NULL, NULL, &error);

  g_assert_null (stream);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ);
  agents_test_assert_context_str (error, "path", "/nonexistent/agents-root");
  g_assert_cmpstr (error->message, ==,
                   "failed to read archive for path: /nonexistent/agents-root");
}

typedef struct
{
  GByteArray *out;
  guint8 buffer[8192];
  GError *error;
  gboolean done;
} AsyncRead;

static void
async_read_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AsyncRead *state = user_data;
  gssize n =
    g_input_stream_read_finish (G_INPUT_STREAM (source), result, &state->error);

  if (n <= 0)
    {
      state->done = TRUE;
      return;
    }
  g_byte_array_append (state->out, state->buffer, n);
  g_input_stream_read_async (G_INPUT_STREAM (source), state->buffer,
                             sizeof state->buffer, G_PRIORITY_DEFAULT, NULL,
                             async_read_cb, state);
}

/* The stream is pollable: async reads run on the main context. */
static void
test_async_read_matches (void)
{
  g_autofree char *root = agents_test_make_tmp_dir ("archive-async-");
  g_autoptr (GError) error = NULL;
  g_autoptr (GInputStream) stream = NULL;
  g_autoptr (GBytes) sync_bytes = NULL;
  g_autoptr (GBytes) async_bytes = NULL;
  AsyncRead state = { 0 };

  make_tree (root);
  sync_bytes = tar_directory_bytes (root, NULL);

  stream = agents_archive_tar_directory (root, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (G_IS_POLLABLE_INPUT_STREAM (stream));
  g_assert_true (
    g_pollable_input_stream_can_poll (G_POLLABLE_INPUT_STREAM (stream)));
  state.out = g_byte_array_new ();
  g_input_stream_read_async (stream, state.buffer, sizeof state.buffer,
                             G_PRIORITY_DEFAULT, NULL, async_read_cb, &state);
  agents_test_wait_for (&state.done);
  g_assert_no_error (state.error);
  async_bytes = g_byte_array_free_to_bytes (state.out);
  g_assert_true (g_bytes_equal (sync_bytes, async_bytes));

  rm_tree (root);
}

static gint64
peak_rss_kib (void)
{
  g_autofree char *status = NULL;
  const char *line;

  g_assert_true (
    g_file_get_contents ("/proc/self/status", &status, NULL, NULL));
  line = strstr (status, "VmHWM:");
  g_assert_nonnull (line);
  return g_ascii_strtoll (line + strlen ("VmHWM:"), NULL, 10);
}

static void
test_memory_stays_bounded (void)
{
  g_autofree char *base = agents_test_make_tmp_dir ("archive-memory-");
  g_autofree char *src = g_build_filename (base, "src", NULL);
  g_autofree char *dst = g_build_filename (base, "dst", NULL);
  g_autofree char *big = g_build_filename (src, "big.bin", NULL);
  g_autofree char *copy = g_build_filename (dst, "big.bin", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GInputStream) stream = NULL;
  struct stat st;
  gint64 before;

  g_assert_cmpint (g_mkdir (src, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (dst, 0755), ==, 0);
  make_big_file (big, 64 * 1024 * 1024);

  before = peak_rss_kib ();
  stream = agents_archive_tar_directory (src, NULL, NULL, &error);
  g_assert_no_error (error);
  agents_archive_extract_to_directory (
    stream, dst, AGENTS_COMPRESSION_SCHEME_TAR, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (stat (copy, &st), ==, 0);
  g_assert_cmpint (st.st_size, ==, 64 * 1024 * 1024);
  g_assert_cmpint (peak_rss_kib () - before, <, 16 * 1024);

  rm_tree (base);
}

/* ---- building hostile archives ---------------------------------------- */

typedef enum
{
  FORMAT_TAR,
  FORMAT_TAR_GZ,
  FORMAT_TAR_BZ2,
  FORMAT_TAR_XZ,
  FORMAT_TAR_ZSTD,
  FORMAT_ZIP,
} Format;

typedef struct
{
  struct archive *a;
  GByteArray *out;
} Builder;

static la_ssize_t
builder_write (struct archive *a, void *data, const void *buffer, size_t length)
{
  g_byte_array_append (((Builder *) data)->out, buffer, length);
  return length;
}

static Builder *
builder_new (Format format)
{
  Builder *b = g_new0 (Builder, 1);

  b->a = archive_write_new ();
  b->out = g_byte_array_new ();
  if (format == FORMAT_ZIP)
    archive_write_set_format_zip (b->a);
  else
    archive_write_set_format_pax_restricted (b->a);
  switch (format)
    {
    case FORMAT_TAR_GZ:
      archive_write_add_filter_gzip (b->a);
      break;
    case FORMAT_TAR_BZ2:
      archive_write_add_filter_bzip2 (b->a);
      break;
    case FORMAT_TAR_XZ:
      archive_write_add_filter_xz (b->a);
      break;
    case FORMAT_TAR_ZSTD:
      archive_write_add_filter_zstd (b->a);
      break;
    default:
      break;
    }
  archive_write_set_bytes_per_block (b->a, 0);
  g_assert_cmpint (archive_write_open (b->a, b, NULL, builder_write, NULL), ==,
                   ARCHIVE_OK);
  return b;
}

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

  archive_entry_set_pathname (entry, name);
  archive_entry_set_filetype (entry, type);
  archive_entry_set_perm (entry, perm);
  archive_entry_set_size (entry, size);
  archive_entry_set_mtime (entry, 1700000000, 0);
  if (symlink_target != NULL)
    archive_entry_set_symlink (entry, symlink_target);
  if (hardlink_target != NULL)
    archive_entry_set_hardlink (entry, hardlink_target);
  if (type == AE_IFCHR || type == AE_IFBLK)
    archive_entry_set_rdev (entry, makedev (1, 3));
  g_assert_cmpint (archive_write_header (b->a, entry), >=, ARCHIVE_WARN);
  archive_entry_free (entry);
}

static void
add_file (Builder *b, const char *name, const char *contents)
{
  gsize len = strlen (contents);

  builder_entry (b, name, AE_IFREG, 0644, len, NULL, NULL);
  g_assert_cmpint (archive_write_data (b->a, contents, len), ==,
                   (la_ssize_t) len);
}

static void
add_file_bytes (Builder *b, const char *name, gsize size, guint8 fill)
{
  g_autofree guint8 *data = g_malloc (size);

  for (gsize i = 0; i < size; i++)
    data[i] = fill ? fill : (guint8) g_random_int ();
  builder_entry (b, name, AE_IFREG, 0644, size, NULL, NULL);
  g_assert_cmpint (archive_write_data (b->a, data, size), ==,
                   (la_ssize_t) size);
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
  g_assert_cmpint (archive_write_close (b->a), ==, ARCHIVE_OK);
  archive_write_free (b->a);
  return g_byte_array_free_to_bytes (g_steal_pointer (&b->out));
}

/* ---- the corpus ------------------------------------------------------- */

typedef struct
{
  const char *name;
  Format format;
  void (*build) (Builder *b, const char *outside);
  void (*setup) (const char *root, const char *outside);
  GBytes *(*mangle) (GBytes *archive);
  gint64 max_input_bytes;
  gint64 max_extracted_bytes;
  gint64 max_members;
  int code;          /* -1: must succeed */
  const char *key;   /* context member checked: "reason" or "limit" */
  const char *value; /* NULL: present, any value */
  void (*check) (const char *root, const char *outside);
  gboolean follows_inside_symlink; /* refused without openat2() */
} CorpusCase;

static void
build_parent_name (Builder *b, const char *outside)
{
  add_file (b, "../evil", "evil");
}

static void
build_nested_parent_name (Builder *b, const char *outside)
{
  add_dir (b, "a/");
  add_file (b, "a/../../evil", "evil");
}

static void
build_absolute_name (Builder *b, const char *outside)
{
  g_autofree char *name = g_build_filename (outside, "evil", NULL);

  add_file (b, name, "evil");
}

static void
build_absolute_symlink_then_write (Builder *b, const char *outside)
{
  g_autofree char *target = g_build_filename (outside, "sentinel", NULL);

  add_symlink (b, "link", target);
  add_file (b, "link/passwd", "owned");
}

static void
build_etc_symlink_then_write (Builder *b, const char *outside)
{
  add_symlink (b, "link", "/etc");
  add_file (b, "link/passwd", "owned");
}

static void
build_parent_symlink_then_write (Builder *b, const char *outside)
{
  add_symlink (b, "up", "../sentinel");
  add_file (b, "up/passwd", "owned");
}

static void
build_symlink_escaping_through_dir (Builder *b, const char *outside)
{
  add_dir (b, "a/");
  add_symlink (b, "x", "a/../../sentinel");
  add_file (b, "x/passwd", "owned");
}

static void
build_symlink_chain_escape (Builder *b, const char *outside)
{
  add_dir (b, "d/");
  add_symlink (b, "d/lnk", "..");            /* the root: fine */
  add_symlink (b, "d/s", "lnk/../sentinel"); /* lexically d/sentinel */
  add_file (b, "d/s/passwd", "owned");
}

static void
build_symlink_through_missing_dir (Builder *b, const char *outside)
{
  add_symlink (b, "s", "m/../sentinel");
  add_symlink (b, "m", "."); /* would make s point outside */
}

static void
build_hardlink_absolute (Builder *b, const char *outside)
{
  g_autofree char *target =
    g_build_filename (outside, "sentinel", "passwd", NULL);

  add_hardlink (b, "hl", target);
}

static void
build_hardlink_etc_passwd (Builder *b, const char *outside)
{
  add_hardlink (b, "hl", "/etc/passwd");
}

static void
build_hardlink_parent (Builder *b, const char *outside)
{
  add_hardlink (b, "hl", "../sentinel/passwd");
}

static void
build_hardlink_through_symlink (Builder *b, const char *outside)
{
  add_hardlink (b, "hl", "evil/passwd");
}

static void
build_hardlink_missing (Builder *b, const char *outside)
{
  add_hardlink (b, "hl", "missing");
}

static void
build_char_device (Builder *b, const char *outside)
{
  builder_entry (b, "null", AE_IFCHR, 0666, 0, NULL, NULL);
}

static void
build_block_device (Builder *b, const char *outside)
{
  builder_entry (b, "disk", AE_IFBLK, 0660, 0, NULL, NULL);
}

static void
build_fifo (Builder *b, const char *outside)
{
  builder_entry (b, "fifo", AE_IFIFO, 0644, 0, NULL, NULL);
}

static void
build_root_as_file (Builder *b, const char *outside)
{
  add_file (b, ".", "not a directory");
}

static void
build_too_many_members (Builder *b, const char *outside)
{
  for (int i = 0; i < 31; i++)
    {
      g_autofree char *name = g_strdup_printf ("f%02d", i);

      add_file (b, name, "x");
    }
}

static void
build_exactly_max_members (Builder *b, const char *outside)
{
  for (int i = 0; i < 30; i++)
    {
      g_autofree char *name = g_strdup_printf ("f%02d", i);

      add_file (b, name, "x");
    }
}

static void
build_header_over_extracted (Builder *b, const char *outside)
{
  /* The header announces 10 MiB; libarchive pads the data with zeros. */
  builder_entry (b, "huge", AE_IFREG, 0644, 10 * 1024 * 1024, NULL, NULL);
}

static void
build_bomb (Builder *b, const char *outside)
{
  add_file_bytes (b, "bomb", 16 * 1024 * 1024, 'A');
}

static void
build_sum_over_extracted (Builder *b, const char *outside)
{
  add_file_bytes (b, "one", 400 * 1024, 'a');
  add_file_bytes (b, "two", 400 * 1024, 'b');
  add_file_bytes (b, "three", 400 * 1024, 'c');
}

static void
build_big_input (Builder *b, const char *outside)
{
  add_file_bytes (b, "random", 200 * 1024, 0);
}

static void
build_small_file (Builder *b, const char *outside)
{
  add_dir (b, "./");
  add_file (b, "./dir/file.txt", "hello\n");
  add_file_bytes (b, "./dir/more", 100 * 1024, 0);
}

static void
build_through_preexisting_symlink (Builder *b, const char *outside)
{
  add_file (b, "evil/passwd", "owned");
}

static void
build_dir_through_preexisting_symlink (Builder *b, const char *outside)
{
  add_dir (b, "evil2/newdir/");
}

static void
build_replace_preexisting_symlink (Builder *b, const char *outside)
{
  add_file (b, "target", "replaced");
}

static void
build_component_too_long (Builder *b, const char *outside)
{
  g_autofree char *name = g_strnfill (300, 'n');

  add_file (b, name, "long");
}

static char *
long_path (int components, int length)
{
  GString *name = g_string_new (NULL);

  for (int i = 0; i < components; i++)
    {
      g_autofree char *part = g_strnfill (length, 'a' + i % 26);

      if (i > 0)
        g_string_append_c (name, '/');
      g_string_append (name, part);
    }
  return g_string_free (name, FALSE);
}

static void
build_path_too_long (Builder *b, const char *outside)
{
  g_autofree char *name = long_path (20, 250);

  add_file (b, name, "long");
}

static void
build_long_but_fine (Builder *b, const char *outside)
{
  g_autofree char *name = long_path (8, 200);

  add_file (b, name, "long");
}

static void
build_inside_symlinks (Builder *b, const char *outside)
{
  add_dir (b, "lib/");
  add_file (b, "lib/libfoo.so.1", "elf");
  add_symlink (b, "lib/libfoo.so", "libfoo.so.1");
  add_dir (b, "bin/");
  add_symlink (b, "bin/foo", "../lib/libfoo.so");
  add_symlink (b, "dangling", "not/yet/there");
  add_file (b, "a.txt", "a");
  add_hardlink (b, "b.txt", "a.txt");
}

static void
build_write_through_inside_symlink (Builder *b, const char *outside)
{
  add_dir (b, "real/");
  add_symlink (b, "alias", "real");
  add_file (b, "alias/file.txt", "through");
}

static void
build_modes (Builder *b, const char *outside)
{
  builder_entry (b, "ro/", AE_IFDIR, 0555, 0, NULL, NULL);
  builder_entry (b, "ro/setuid", AE_IFREG, 04755, 0, NULL, NULL);
  builder_entry (b, "sticky/", AE_IFDIR, 01777, 0, NULL, NULL);
}

static void
build_zip_happy (Builder *b, const char *outside)
{
  add_dir (b, "docs/");
  add_file (b, "docs/readme.txt", "zip contents\n");
  add_file_bytes (b, "docs/data.bin", 50000, 'z');
  add_file (b, "top.txt", "top\n");
}

static GBytes *
mangle_truncate (GBytes *archive)
{
  return g_bytes_new_from_bytes (archive, 0, g_bytes_get_size (archive) / 2);
}

static GBytes *
mangle_garbage (GBytes *archive)
{
  guint8 garbage[4096];

  for (gsize i = 0; i < sizeof garbage; i++)
    garbage[i] = (guint8) g_random_int ();
  return g_bytes_new (garbage, sizeof garbage);
}

/* A zip whose member "d/\xcfb.txt" is flagged UTF-8 (bit 11) but is
 * not: libarchive reads its header with a warning and no name. */
static GBytes *
mangle_unreadable_zip_name (GBytes *archive)
{
  static const char hex[] =
    "504b0304140000080000487b825d7a7a6fed030000000300000008000000642fcf62"
    "2e74787468690a504b01021403140000080000487b825d7a7a6fed03000000030000"
    "00080000000000000000000000800100000000642fcf622e747874504b0506000000"
    "000100010036000000290000000000";
  gsize len = strlen (hex) / 2;
  guint8 *bytes = g_malloc (len);

  for (gsize i = 0; i < len; i++)
    bytes[i] = (g_ascii_xdigit_value (hex[2 * i]) << 4) |
               g_ascii_xdigit_value (hex[2 * i + 1]);
  return g_bytes_new_take (bytes, len);
}

static void
setup_preexisting_symlinks (const char *root, const char *outside)
{
  g_autofree char *sentinel = g_build_filename (outside, "sentinel", NULL);
  g_autofree char *sentinel_passwd =
    g_build_filename (sentinel, "passwd", NULL);
  g_autofree char *evil = g_build_filename (root, "evil", NULL);
  g_autofree char *evil2 = g_build_filename (root, "evil2", NULL);
  g_autofree char *target = g_build_filename (root, "target", NULL);

  g_assert_cmpint (symlink (sentinel, evil), ==, 0);
  g_assert_cmpint (symlink ("../sentinel", evil2), ==, 0);
  g_assert_cmpint (symlink (sentinel_passwd, target), ==, 0);
}

static void
check_replaced_symlink (const char *root, const char *outside)
{
  g_autofree char *target = g_build_filename (root, "target", NULL);
  g_autofree char *contents = agents_test_read_file (target);

  g_assert_false (g_file_test (target, G_FILE_TEST_IS_SYMLINK));
  g_assert_cmpstr (contents, ==, "replaced");
}

static void
check_small_file (const char *root, const char *outside)
{
  g_autofree char *path = g_build_filename (root, "dir", "file.txt", NULL);
  g_autofree char *contents = agents_test_read_file (path);

  g_assert_cmpstr (contents, ==, "hello\n");
}

static void
check_long_but_fine (const char *root, const char *outside)
{
  g_autofree char *name = long_path (8, 200);
  g_autofree char *path = g_build_filename (root, name, NULL);
  g_autofree char *contents = agents_test_read_file (path);

  g_assert_cmpstr (contents, ==, "long");
}

static void
check_inside_symlinks (const char *root, const char *outside)
{
  g_autofree char *foo = g_build_filename (root, "bin", "foo", NULL);
  g_autofree char *so = g_build_filename (root, "lib", "libfoo.so", NULL);
  g_autofree char *foo_target = g_file_read_link (foo, NULL);
  g_autofree char *so_target = g_file_read_link (so, NULL);
  g_autofree char *through = agents_test_read_file (foo);
  g_autofree char *a = g_build_filename (root, "a.txt", NULL);
  g_autofree char *b = g_build_filename (root, "b.txt", NULL);
  struct stat sa, sb;

  g_assert_cmpstr (foo_target, ==, "../lib/libfoo.so");
  g_assert_cmpstr (so_target, ==, "libfoo.so.1");
  g_assert_cmpstr (through, ==, "elf");
  g_assert_cmpint (stat (a, &sa), ==, 0);
  g_assert_cmpint (stat (b, &sb), ==, 0);
  g_assert_cmpint (sa.st_ino, ==, sb.st_ino);
}

static void
check_write_through_inside_symlink (const char *root, const char *outside)
{
  g_autofree char *path = g_build_filename (root, "real", "file.txt", NULL);
  g_autofree char *contents = agents_test_read_file (path);

  g_assert_cmpstr (contents, ==, "through");
}

static void
check_modes (const char *root, const char *outside)
{
  g_autofree char *ro = g_build_filename (root, "ro", NULL);
  g_autofree char *setuid = g_build_filename (root, "ro", "setuid", NULL);
  g_autofree char *sticky = g_build_filename (root, "sticky", NULL);
  struct stat st;

  g_assert_cmpint (stat (ro, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0555);
  g_assert_cmpint (stat (setuid, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0755);
  g_assert_cmpint (stat (sticky, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0777);
}

static void
check_zip_happy (const char *root, const char *outside)
{
  g_autofree char *readme = g_build_filename (root, "docs", "readme.txt", NULL);
  g_autofree char *data = g_build_filename (root, "docs", "data.bin", NULL);
  g_autofree char *top = g_build_filename (root, "top.txt", NULL);
  g_autofree char *contents = agents_test_read_file (readme);
  g_autofree char *top_contents = agents_test_read_file (top);
  struct stat st;

  g_assert_cmpstr (contents, ==, "zip contents\n");
  g_assert_cmpstr (top_contents, ==, "top\n");
  g_assert_cmpint (stat (data, &st), ==, 0);
  g_assert_cmpint (st.st_size, ==, 50000);
}

#define UNSAFE AGENTS_SANDBOX_ERROR_UNSAFE_ARCHIVE_MEMBER
#define LIMIT AGENTS_SANDBOX_ERROR_ARCHIVE_LIMIT
#define READ AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ
#define WRITE AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE

static const CorpusCase corpus[] = {
  { "zip-slip-parent", FORMAT_TAR, build_parent_name, .code = UNSAFE,
    .key = "reason", .value = "parent_reference" },
  { "zip-slip-nested-parent", FORMAT_TAR, build_nested_parent_name,
    .code = UNSAFE, .key = "reason", .value = "parent_reference" },
  { "absolute-name", FORMAT_TAR, build_absolute_name, .code = UNSAFE,
    .key = "reason", .value = "absolute_path" },
  { "absolute-symlink-then-write", FORMAT_TAR,
    build_absolute_symlink_then_write, .code = UNSAFE, .key = "reason",
    .value = "symlink_escape" },
  { "etc-symlink-then-write", FORMAT_TAR, build_etc_symlink_then_write,
    .code = UNSAFE, .key = "reason", .value = "symlink_escape" },
  { "parent-symlink-then-write", FORMAT_TAR, build_parent_symlink_then_write,
    .code = UNSAFE, .key = "reason", .value = "symlink_escape" },
  { "symlink-escaping-through-dir", FORMAT_TAR,
    build_symlink_escaping_through_dir, .code = UNSAFE, .key = "reason",
    .value = "symlink_escape" },
  { "symlink-chain-escape", FORMAT_TAR, build_symlink_chain_escape,
    .code = UNSAFE, .key = "reason", .value = "symlink_escape" },
  { "symlink-through-missing-dir", FORMAT_TAR,
    build_symlink_through_missing_dir, .code = UNSAFE, .key = "reason",
    .value = "symlink_escape" },
  { "hardlink-absolute", FORMAT_TAR, build_hardlink_absolute, .code = UNSAFE,
    .key = "reason", .value = "hardlink_escape" },
  { "hardlink-etc-passwd", FORMAT_TAR, build_hardlink_etc_passwd,
    .code = UNSAFE, .key = "reason", .value = "hardlink_escape" },
  { "hardlink-parent", FORMAT_TAR, build_hardlink_parent, .code = UNSAFE,
    .key = "reason", .value = "hardlink_escape" },
  { "hardlink-through-preexisting-symlink", FORMAT_TAR,
    build_hardlink_through_symlink, setup_preexisting_symlinks, .code = UNSAFE,
    .key = "reason", .value = "hardlink_escape" },
  { "hardlink-missing", FORMAT_TAR, build_hardlink_missing, .code = WRITE,
    .key = "reason", .value = "No such file or directory" },
  { "char-device", FORMAT_TAR, build_char_device, .code = UNSAFE,
    .key = "reason", .value = "special_file" },
  { "block-device", FORMAT_TAR, build_block_device, .code = UNSAFE,
    .key = "reason", .value = "special_file" },
  { "fifo", FORMAT_TAR, build_fifo, .code = UNSAFE, .key = "reason",
    .value = "special_file" },
  { "root-as-file", FORMAT_TAR, build_root_as_file, .code = UNSAFE,
    .key = "reason", .value = "invalid_root_member" },
  { "too-many-members", FORMAT_TAR, build_too_many_members, .max_members = 30,
    .code = LIMIT, .key = "limit", .value = "max_members" },
  { "exactly-max-members", FORMAT_TAR, build_exactly_max_members,
    .max_members = 30, .code = -1 },
  { "header-over-max-extracted", FORMAT_TAR, build_header_over_extracted,
    .max_extracted_bytes = 1024 * 1024, .code = LIMIT, .key = "limit",
    .value = "max_extracted_bytes" },
  { "gzip-bomb", FORMAT_TAR_GZ, build_bomb, .max_extracted_bytes = 1024 * 1024,
    .code = LIMIT, .key = "limit", .value = "max_extracted_bytes" },
  { "sum-over-max-extracted", FORMAT_TAR, build_sum_over_extracted,
    .max_extracted_bytes = 1024 * 1024, .code = LIMIT, .key = "limit",
    .value = "max_extracted_bytes" },
  { "input-over-max-input", FORMAT_TAR, build_big_input,
    .max_input_bytes = 64 * 1024, .code = LIMIT, .key = "limit",
    .value = "max_input_bytes" },
  { "zip-input-over-max-input", FORMAT_ZIP, build_big_input,
    .max_input_bytes = 64 * 1024, .code = LIMIT, .key = "limit",
    .value = "max_input_bytes" },
  { "truncated", FORMAT_TAR, build_small_file, .mangle = mangle_truncate,
    .code = READ, .key = "reason" },
  { "truncated-gzip", FORMAT_TAR_GZ, build_small_file,
    .mangle = mangle_truncate, .code = READ, .key = "reason" },
  { "garbage", FORMAT_TAR, build_small_file, .mangle = mangle_garbage,
    .code = READ, .key = "reason" },
  { "garbage-zip", FORMAT_ZIP, build_small_file, .mangle = mangle_garbage,
    .code = READ, .key = "reason" },
  { "zip-unreadable-name", FORMAT_ZIP, build_small_file,
    .mangle = mangle_unreadable_zip_name, .code = READ, .key = "reason" },
  { "write-through-preexisting-symlink", FORMAT_TAR,
    build_through_preexisting_symlink, setup_preexisting_symlinks,
    .code = UNSAFE, .key = "reason", .value = "symlink_escape" },
  { "mkdir-through-preexisting-symlink", FORMAT_TAR,
    build_dir_through_preexisting_symlink, setup_preexisting_symlinks,
    .code = UNSAFE, .key = "reason", .value = "symlink_escape" },
  { "replace-preexisting-symlink", FORMAT_TAR,
    build_replace_preexisting_symlink, setup_preexisting_symlinks, .code = -1,
    .check = check_replaced_symlink },
  { "component-too-long", FORMAT_TAR, build_component_too_long, .code = UNSAFE,
    .key = "reason", .value = "name_too_long" },
  { "path-too-long", FORMAT_TAR, build_path_too_long, .code = UNSAFE,
    .key = "reason", .value = "name_too_long" },
  { "long-but-fine", FORMAT_TAR, build_long_but_fine, .code = -1,
    .check = check_long_but_fine },
  { "inside-symlinks-and-hardlinks", FORMAT_TAR, build_inside_symlinks,
    .code = -1, .check = check_inside_symlinks },
  { "write-through-inside-symlink", FORMAT_TAR,
    build_write_through_inside_symlink, .code = -1,
    .check = check_write_through_inside_symlink,
    .follows_inside_symlink = TRUE },
  { "modes-are-sanitized", FORMAT_TAR, build_modes, .code = -1,
    .check = check_modes },
  { "tar-gz", FORMAT_TAR_GZ, build_small_file, .code = -1,
    .check = check_small_file },
  { "tar-bz2", FORMAT_TAR_BZ2, build_small_file, .code = -1,
    .check = check_small_file },
  { "tar-xz", FORMAT_TAR_XZ, build_small_file, .code = -1,
    .check = check_small_file },
  { "tar-zstd", FORMAT_TAR_ZSTD, build_small_file, .code = -1,
    .check = check_small_file },
  { "zip-happy-path", FORMAT_ZIP, build_zip_happy, .code = -1,
    .check = check_zip_happy },
  { "zip-slip-parent", FORMAT_ZIP, build_parent_name, .code = UNSAFE,
    .key = "reason", .value = "parent_reference" },
  { "zip-absolute-name", FORMAT_ZIP, build_absolute_name, .code = UNSAFE,
    .key = "reason", .value = "absolute_path" },
  { "zip-symlink-escape", FORMAT_ZIP, build_parent_symlink_then_write,
    .code = UNSAFE, .key = "reason", .value = "symlink_escape" },
};

typedef struct
{
  const CorpusCase *c;
  gboolean fallback;
} CorpusRun;

static void
make_outside (const char *outside)
{
  g_autofree char *passwd =
    g_build_filename (outside, "sentinel", "passwd", NULL);
  g_autofree char *nested =
    g_build_filename (outside, "sentinel", "dir", "x", NULL);

  write_file_mode (passwd, "root:x:0:0\n", 11, 0644);
  write_file_mode (nested, "nested\n", 7, 0600);
}

/* Without openat2() (old kernels, valgrind) the fallback is used. */
static gboolean
kernel_has_openat2 (void)
{
  struct open_how how = { .flags = O_PATH | O_CLOEXEC };
  int fd = syscall (SYS_openat2, AT_FDCWD, ".", &how, sizeof how);

  if (fd >= 0)
    close (fd);
  return fd >= 0;
}

static void
test_corpus_case (gconstpointer data)
{
  const CorpusRun *run = data;
  const CorpusCase *c = run->c;
  g_autofree char *outside = agents_test_make_tmp_dir ("archive-corpus-");
  g_autofree char *root = g_build_filename (outside, "root", NULL);
  AgentsArchiveLimits limits = {
    c->max_input_bytes ? c->max_input_bytes : G_GINT64_CONSTANT (1) << 30,
    c->max_extracted_bytes ? c->max_extracted_bytes
                           : G_GINT64_CONSTANT (4) << 30,
    c->max_members ? c->max_members : 100000,
  };
  gboolean default_limits =
    !c->max_input_bytes && !c->max_extracted_bytes && !c->max_members;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) archive = NULL;
  g_autoptr (GInputStream) stream = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  int expected_code = c->code;
  const char *expected_value = c->value;
  Builder *b;
  gboolean ok;

  g_assert_cmpint (g_mkdir (root, 0755), ==, 0);
  make_outside (outside);
  if (c->setup != NULL)
    c->setup (root, outside);
  before = describe_tree (outside, "root");

  b = builder_new (c->format);
  c->build (b, outside);
  archive = builder_finish (b);
  g_free (b);
  if (c->mangle != NULL)
    {
      GBytes *mangled = c->mangle (archive);

      g_bytes_unref (archive);
      archive = mangled;
    }
  if (c->format == FORMAT_TAR_GZ && c->build == build_bomb)
    g_assert_cmpuint (g_bytes_get_size (archive), <, 100 * 1024);

  agents_archive_set_openat2_disabled_for_testing (run->fallback);
  stream = g_memory_input_stream_new_from_bytes (archive);
  ok = agents_archive_extract_to_directory (
    stream, root,
    c->format == FORMAT_ZIP ? AGENTS_COMPRESSION_SCHEME_ZIP
                            : AGENTS_COMPRESSION_SCHEME_TAR,
    default_limits ? NULL : &limits, NULL, &error);
  agents_archive_set_openat2_disabled_for_testing (FALSE);

  if ((run->fallback || !kernel_has_openat2 ()) && c->follows_inside_symlink)
    {
      expected_code = UNSAFE;
      expected_value = "symlink_escape";
    }
  if (expected_code < 0)
    {
      g_assert_no_error (error);
      g_assert_true (ok);
      if (c->check != NULL)
        c->check (root, outside);
    }
  else
    {
      g_autoptr (GVariant) ctx = NULL;
      const char *value = NULL;

      g_assert_false (ok);
      g_assert_error (error, AGENTS_SANDBOX_ERROR, expected_code);
      ctx = agents_sandbox_error_get_context (error);
      g_assert_true (
        g_variant_lookup (ctx, c->key ? c->key : "reason", "&s", &value));
      if (expected_value != NULL)
        g_assert_cmpstr (value, ==, expected_value);
      else
        g_assert_cmpstr (value, !=, "");
      if (expected_code == UNSAFE)
        g_assert_true (g_variant_lookup (ctx, "member", "&s", &value));
    }

  /* Not one byte changed next to the root. */
  after = describe_tree (outside, "root");
  g_assert_cmpstr (after, ==, before);

  rm_tree (outside);
}

static void
test_limit_messages (void)
{
  g_autofree char *root = agents_test_make_tmp_dir ("archive-limits-");
  AgentsArchiveLimits limits = { G_GINT64_CONSTANT (1) << 30,
                                 G_GINT64_CONSTANT (4) << 30, 30 };
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) archive = NULL;
  g_autoptr (GInputStream) stream = NULL;
  Builder *b = builder_new (FORMAT_TAR);

  build_too_many_members (b, NULL);
  archive = builder_finish (b);
  g_free (b);
  stream = g_memory_input_stream_new_from_bytes (archive);
  g_assert_false (agents_archive_extract_to_directory (
    stream, root, AGENTS_COMPRESSION_SCHEME_TAR, &limits, NULL, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_ARCHIVE_LIMIT);
  g_assert_cmpstr (error->message, ==,
                   "archive exceeds archive_limits.max_members (30)");
  agents_test_assert_context_str (error, "limit", "max_members");
  assert_context_int64 (error, "value", 30);
  /* Members before the limit stay; the caller clears them. */
  g_assert_cmpuint (count_entries (root), ==, 30);

  rm_tree (root);
}

static void
test_unsafe_message (void)
{
  g_autofree char *root = agents_test_make_tmp_dir ("archive-unsafe-");
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) archive = NULL;
  g_autoptr (GInputStream) stream = NULL;
  Builder *b = builder_new (FORMAT_TAR);

  build_parent_name (b, NULL);
  archive = builder_finish (b);
  g_free (b);
  stream = g_memory_input_stream_new_from_bytes (archive);
  g_assert_false (agents_archive_extract_to_directory (
    stream, root, AGENTS_COMPRESSION_SCHEME_TAR, NULL, NULL, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_UNSAFE_ARCHIVE_MEMBER);
  agents_test_assert_context_str (error, "member", "../evil");
  agents_test_assert_context_str (error, "reason", "parent_reference");
  g_assert_cmpstr (error->message, ==,
                   "unsafe archive member: ../evil (parent_reference)");

  rm_tree (root);
}

static void
test_extract_async (void)
{
  g_autofree char *root = agents_test_make_tmp_dir ("archive-extract-async-");
  g_autofree char *file = g_build_filename (root, "dir", "file.txt", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) archive = NULL;
  g_autoptr (GInputStream) stream = NULL;
  g_autoptr (GAsyncResult) result = NULL;
  g_autofree char *contents = NULL;
  Builder *b = builder_new (FORMAT_TAR_GZ);

  build_small_file (b, NULL);
  archive = builder_finish (b);
  g_free (b);
  stream = g_memory_input_stream_new_from_bytes (archive);
  agents_archive_extract_to_directory_async (
    stream, root, AGENTS_COMPRESSION_SCHEME_TAR, NULL, NULL,
    agents_test_async_cb, &result);
  agents_test_wait_result (&result);
  g_assert_true (agents_archive_extract_to_directory_finish (result, &error));
  g_assert_no_error (error);
  contents = agents_test_read_file (file);
  g_assert_cmpstr (contents, ==, "hello\n");

  rm_tree (root);
}

/* A snapshot restore keeps the workspace's symlinks wherever they point
 * (issue 15, finding 14), while user extraction still refuses them; and
 * the restore never writes through one. */
static gboolean
extract_snapshot (GBytes *archive, const char *root, GError **error)
{
  g_autoptr (GInputStream) stream =
    g_memory_input_stream_new_from_bytes (archive);
  g_autoptr (GAsyncResult) result = NULL;

  agents_archive_extract_snapshot_to_directory_async (
    stream, root, NULL, NULL, agents_test_async_cb, &result);
  agents_test_wait_result (&result);
  return agents_archive_extract_to_directory_finish (result, error);
}

static void
test_snapshot_keeps_outward_symlinks (void)
{
  g_autofree char *root = agents_test_make_tmp_dir ("archive-snap-links-");
  g_autofree char *strict = agents_test_make_tmp_dir ("archive-strict-links-");
  g_autofree char *out = g_build_filename (root, "venv", "python3", NULL);
  g_autofree char *up = g_build_filename (root, "up", NULL);
  g_autofree char *target = NULL;
  g_autoptr (GInputStream) stream = NULL;
  g_autoptr (GBytes) archive = NULL;
  g_autoptr (GError) error = NULL;
  Builder *b = builder_new (FORMAT_TAR);

  add_dir (b, "venv");
  add_symlink (b, "venv/python3", "/usr/bin/python3");
  add_symlink (b, "up", "../../..");
  add_file (b, "note.txt", "kept\n");
  archive = builder_finish (b);
  g_free (b);

  g_assert_true (extract_snapshot (archive, root, &error));
  g_assert_no_error (error);
  target = g_file_read_link (out, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (target, ==, "/usr/bin/python3");
  g_clear_pointer (&target, g_free);
  target = g_file_read_link (up, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (target, ==, "../../..");

  /* User archives stay strict. */
  stream = g_memory_input_stream_new_from_bytes (archive);
  g_assert_false (agents_archive_extract_to_directory (
    stream, strict, AGENTS_COMPRESSION_SCHEME_TAR, NULL, NULL, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_UNSAFE_ARCHIVE_MEMBER);

  rm_tree (root);
  rm_tree (strict);
}

static void
test_snapshot_never_writes_through_symlinks (void)
{
  g_autofree char *root = agents_test_make_tmp_dir ("archive-snap-through-");
  g_autofree char *outside = agents_test_make_tmp_dir ("archive-snap-victim-");
  g_autofree char *victim = g_build_filename (outside, "evil", NULL);
  g_autoptr (GBytes) archive = NULL;
  g_autoptr (GError) error = NULL;
  Builder *b = builder_new (FORMAT_TAR);

  add_symlink (b, "link", outside);
  add_file (b, "link/evil", "written through\n");
  archive = builder_finish (b);
  g_free (b);

  g_assert_false (extract_snapshot (archive, root, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_UNSAFE_ARCHIVE_MEMBER);
  g_assert_false (g_file_test (victim, G_FILE_TEST_EXISTS));

  rm_tree (root);
  rm_tree (outside);
}

static void
test_extract_empty_input (void)
{
  g_autofree char *root = agents_test_make_tmp_dir ("archive-empty-");
  g_autoptr (GError) error = NULL;
  g_autoptr (GInputStream) stream =
    g_memory_input_stream_new_from_data ("", 0, NULL);

  g_assert_false (agents_archive_extract_to_directory (
    stream, root, AGENTS_COMPRESSION_SCHEME_TAR, NULL, NULL, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ);
  g_test_message ("%s", agents_sandbox_error_get_reason (error));

  rm_tree (root);
}

static void
test_extract_missing_root (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GInputStream) stream =
    g_memory_input_stream_new_from_data ("", 0, NULL);

  g_assert_false (agents_archive_extract_to_directory (
    stream, "/nonexistent/agents-root", AGENTS_COMPRESSION_SCHEME_TAR, NULL,
    NULL, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE);
  agents_test_assert_context_str (error, "path", "/nonexistent/agents-root");
}

/* ---- the stream-level API --------------------------------------------- */

/* A tar made with the writer, from member headers. */
static GBytes *
write_members (void)
{
  g_autoptr (GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr (AgentsArchiveWriter) writer = agents_archive_writer_new (out);
  g_autoptr (AgentsArchiveMember) dir =
    agents_archive_member_new ("d", AGENTS_ARCHIVE_MEMBER_DIRECTORY);
  g_autoptr (AgentsArchiveMember) file =
    agents_archive_member_new ("d/f.txt", AGENTS_ARCHIVE_MEMBER_REGULAR);
  g_autoptr (AgentsArchiveMember) link =
    agents_archive_member_new ("d/l", AGENTS_ARCHIVE_MEMBER_SYMLINK);
  g_autoptr (AgentsArchiveMember) hard =
    agents_archive_member_new ("h", AGENTS_ARCHIVE_MEMBER_HARDLINK);
  g_autoptr (GError) error = NULL;

  file->size = 5;
  file->mode = 0600;
  file->has_mtime = TRUE;
  file->mtime = 1700000000;
  agents_archive_member_set_link_target (link, "f.txt");
  agents_archive_member_set_link_target (hard, "d/f.txt");
  g_assert_true (agents_archive_writer_add (writer, dir, NULL, &error));
  g_assert_true (agents_archive_writer_add (writer, file, NULL, &error));
  g_assert_true (
    agents_archive_writer_write_data (writer, "hello", 5, NULL, &error));
  g_assert_true (agents_archive_writer_add (writer, link, NULL, &error));
  g_assert_true (agents_archive_writer_add (writer, hard, NULL, &error));
  g_assert_true (agents_archive_writer_close (writer, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_output_stream_close (out, NULL, NULL));
  return g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (out));
}

static void
test_stream_round_trip (void)
{
  g_autoptr (GBytes) tar = write_members ();
  g_autoptr (GInputStream) in = g_memory_input_stream_new_from_bytes (tar);
  g_autoptr (AgentsArchiveReader) reader =
    agents_archive_reader_new (in, AGENTS_COMPRESSION_SCHEME_TAR, NULL);
  g_autoptr (GString) got = g_string_new (NULL);
  g_autoptr (GError) error = NULL;

  for (;;)
    {
      g_autoptr (AgentsArchiveMember) m = NULL;
      char data[16] = { 0 };
      gssize n;

      g_assert_true (agents_archive_reader_next (reader, &m, NULL, &error));
      g_assert_no_error (error);
      if (m == NULL)
        break;
      n = agents_archive_reader_read_data (reader, data, sizeof data - 1, NULL,
                                           &error);
      g_assert_no_error (error);
      g_string_append_printf (got, "%s %d %o %s %s\n", m->name, m->type,
                              m->mode, m->link_target ? m->link_target : "-",
                              n > 0 ? data : "-");
    }
  g_assert_cmpstr (got->str, ==,
                   "d/ 1 755 - -\n"
                   "d/f.txt 0 600 - hello\n"
                   "d/l 2 777 f.txt -\n"
                   "h 3 644 d/f.txt -\n");
}

/* The data of a member as a stream; closing it closes the input. */
static void
test_stream_open_data (void)
{
  g_autoptr (GBytes) tar = write_members ();
  g_autoptr (GInputStream) in = g_memory_input_stream_new_from_bytes (tar);
  g_autoptr (AgentsArchiveReader) reader =
    agents_archive_reader_new (in, AGENTS_COMPRESSION_SCHEME_TAR, NULL);
  g_autoptr (AgentsArchiveMember) m = NULL;
  g_autoptr (GInputStream) data = NULL;
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_true (agents_archive_reader_next (reader, &m, NULL, &error));
  g_clear_pointer (&m, agents_archive_member_free);
  g_assert_true (agents_archive_reader_next (reader, &m, NULL, &error));
  g_assert_cmpstr (m->name, ==, "d/f.txt");
  data = agents_archive_reader_open_data (reader);
  g_clear_object (&reader);
  bytes = read_all (data, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                   "hello", 5);
  g_assert_true (g_input_stream_close (data, NULL, &error));
  g_assert_true (g_input_stream_is_closed (in));
}

/* The reader enforces the limits it is given: members, data produced. */
static void
test_stream_reader_limits (void)
{
  g_autoptr (GBytes) tar = write_members ();
  g_autoptr (AgentsArchiveLimits) few_members =
    agents_archive_limits_new_full (G_MAXINT64, G_MAXINT64, 1);
  g_autoptr (AgentsArchiveLimits) little_data =
    agents_archive_limits_new_full (G_MAXINT64, 3, G_MAXINT64);
  g_autoptr (GInputStream) in = g_memory_input_stream_new_from_bytes (tar);
  g_autoptr (AgentsArchiveReader) reader =
    agents_archive_reader_new (in, AGENTS_COMPRESSION_SCHEME_TAR, few_members);
  g_autoptr (AgentsArchiveMember) m = NULL;
  g_autoptr (GError) error = NULL;
  char data[16];

  g_assert_true (agents_archive_reader_next (reader, &m, NULL, &error));
  g_clear_pointer (&m, agents_archive_member_free);
  g_assert_false (agents_archive_reader_next (reader, &m, NULL, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_ARCHIVE_LIMIT);
  agents_test_assert_context_str (error, "limit", "max_members");
  agents_test_assert_context_str (error, "member", "d/f.txt");
  g_clear_error (&error);
  g_clear_object (&reader);
  g_clear_object (&in);

  in = g_memory_input_stream_new_from_bytes (tar);
  reader =
    agents_archive_reader_new (in, AGENTS_COMPRESSION_SCHEME_TAR, little_data);
  g_assert_true (agents_archive_reader_next (reader, &m, NULL, &error));
  g_clear_pointer (&m, agents_archive_member_free);
  g_assert_true (agents_archive_reader_next (reader, &m, NULL, &error));
  g_assert_cmpint (
    agents_archive_reader_read_data (reader, data, sizeof data, NULL, &error),
    ==, -1);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_ARCHIVE_LIMIT);
  agents_test_assert_context_str (error, "limit", "max_extracted_bytes");
}

/* A writer dropped before it is closed leaves no end-of-archive: the
 * partial archive cannot pass for a complete one. */
static void
test_stream_writer_abandoned (void)
{
  g_autoptr (GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr (AgentsArchiveWriter) writer = agents_archive_writer_new (out);
  g_autoptr (AgentsArchiveMember) file =
    agents_archive_member_new ("f", AGENTS_ARCHIVE_MEMBER_REGULAR);
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (GError) error = NULL;

  file->size = 1;
  g_assert_true (agents_archive_writer_add (writer, file, NULL, &error));
  g_assert_true (
    agents_archive_writer_write_data (writer, "x", 1, NULL, &error));
  g_clear_object (&writer);
  g_assert_true (g_output_stream_close (out, NULL, NULL));
  bytes = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (out));
  /* A complete archive is at least the header, the data block and the
   * two end blocks. */
  g_assert_cmpuint (g_bytes_get_size (bytes), <, 4 * 512);
}

/* validate_copy without an output validates only; its errors are the
 * extractor's. */
static void
test_stream_validate_only (void)
{
  g_autoptr (GBytes) tar = write_members ();
  g_autoptr (GInputStream) in = g_memory_input_stream_new_from_bytes (tar);
  g_autoptr (GError) error = NULL;
  g_autoptr (GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr (AgentsArchiveWriter) writer = agents_archive_writer_new (out);
  g_autoptr (AgentsArchiveMember) escape =
    agents_archive_member_new ("up", AGENTS_ARCHIVE_MEMBER_SYMLINK);
  g_autoptr (GBytes) bad = NULL;

  g_assert_true (
    agents_archive_validate_copy (in, NULL, NULL, NULL, NULL, &error));
  g_assert_no_error (error);

  agents_archive_member_set_link_target (escape, "../etc");
  g_assert_true (agents_archive_writer_add (writer, escape, NULL, &error));
  g_assert_true (agents_archive_writer_close (writer, NULL, &error));
  g_assert_true (g_output_stream_close (out, NULL, NULL));
  bad = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (out));
  g_clear_object (&in);
  in = g_memory_input_stream_new_from_bytes (bad);
  g_assert_false (
    agents_archive_validate_copy (in, NULL, NULL, NULL, NULL, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_UNSAFE_ARCHIVE_MEMBER);
  agents_test_assert_context_str (error, "reason", "symlink_escape");
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/sandbox/archive/round-trip", test_round_trip);
  g_test_add_func ("/sandbox/archive/member-order", test_member_order);
  g_test_add_func ("/sandbox/archive/excludes-everything-but-root",
                   test_excludes_everything_but_root);
  g_test_add_func ("/sandbox/archive/excludes-subtree", test_excludes_subtree);
  g_test_add_func ("/sandbox/archive/early-close-does-not-leak",
                   test_early_close_does_not_leak);
  g_test_add_func ("/sandbox/archive/worker-error-is-a-read-error",
                   test_worker_error_is_a_read_error);
  g_test_add_func ("/sandbox/archive/cancelled-worker-is-a-read-error",
                   test_cancelled_worker_is_a_read_error);
  g_test_add_func ("/sandbox/archive/missing-root", test_missing_root);
  g_test_add_func ("/sandbox/archive/async-read-matches",
                   test_async_read_matches);
  g_test_add_func ("/sandbox/archive/memory-stays-bounded",
                   test_memory_stays_bounded);
  g_test_add_func ("/sandbox/archive/limit-messages", test_limit_messages);
  g_test_add_func ("/sandbox/archive/unsafe-message", test_unsafe_message);
  g_test_add_func ("/sandbox/archive/extract-async", test_extract_async);
  g_test_add_func ("/sandbox/archive/snapshot-keeps-outward-symlinks",
                   test_snapshot_keeps_outward_symlinks);
  g_test_add_func ("/sandbox/archive/snapshot-never-writes-through-symlinks",
                   test_snapshot_never_writes_through_symlinks);
  g_test_add_func ("/sandbox/archive/extract-empty-input",
                   test_extract_empty_input);
  g_test_add_func ("/sandbox/archive/extract-missing-root",
                   test_extract_missing_root);
  g_test_add_func ("/sandbox/archive/stream/round-trip",
                   test_stream_round_trip);
  g_test_add_func ("/sandbox/archive/stream/open-data", test_stream_open_data);
  g_test_add_func ("/sandbox/archive/stream/reader-limits",
                   test_stream_reader_limits);
  g_test_add_func ("/sandbox/archive/stream/writer-abandoned",
                   test_stream_writer_abandoned);
  g_test_add_func ("/sandbox/archive/stream/validate-only",
                   test_stream_validate_only);

  /* Static: GTest frees test data only after running the test, and a
   * subprocess runs one test of all. */
  static CorpusRun runs[G_N_ELEMENTS (corpus)][2];
  for (guint i = 0; i < G_N_ELEMENTS (corpus); i++)
    for (int fallback = 0; fallback < 2; fallback++)
      {
        CorpusRun *run = &runs[i][fallback];
        g_autofree char *path = NULL;

        run->c = &corpus[i];
        run->fallback = fallback;
        path = g_strdup_printf (
          "/sandbox/archive/corpus/%s/%s%s", fallback ? "fallback" : "openat2",
          corpus[i].format == FORMAT_ZIP ? "zip/" : "", corpus[i].name);
        g_test_add_data_func (path, run, test_corpus_case);
      }

  return g_test_run ();
}
