/* test-docker-tar.c - the tar streams of the docker backend, without
 * Docker: in-memory streams and archives built with libarchive
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <archive.h>
#include <archive_entry.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "agents-docker-tar.h"
#include "agents-sandbox-error-private.h"
#include "test-utils.h"

/* ---- building archives ------------------------------------------------ */

typedef struct
{
  struct archive *a;
  GByteArray *bytes;
} Builder;

static la_ssize_t
builder_write (struct archive *a, void *data, const void *buffer, size_t len)
{
  g_byte_array_append (data, buffer, len);
  return len;
}

static Builder *builder_new_format (gboolean gzip, int format);

static Builder *
builder_new (gboolean gzip)
{
  return builder_new_format (gzip, ARCHIVE_FORMAT_TAR_PAX_RESTRICTED);
}

static Builder *
builder_new_format (gboolean gzip, int format)
{
  Builder *b = g_new0 (Builder, 1);

  b->bytes = g_byte_array_new ();
  b->a = archive_write_new ();
  g_assert_cmpint (archive_write_set_format (b->a, format), ==, ARCHIVE_OK);
  if (gzip)
    archive_write_add_filter_gzip (b->a);
  g_assert_cmpint (
    archive_write_open (b->a, b->bytes, NULL, builder_write, NULL), ==,
    ARCHIVE_OK);
  return b;
}

/* Adds a member; @size -1 means the length of @data. */
static void
builder_entry (Builder *b,
               const char *name,
               mode_t type,
               mode_t perm,
               const char *data,
               gssize size,
               const char *symlink,
               const char *hardlink)
{
  struct archive_entry *entry = archive_entry_new ();

  archive_entry_set_pathname (entry, name);
  archive_entry_set_filetype (entry, type);
  archive_entry_set_perm (entry, perm);
  archive_entry_set_uid (entry, 1000);
  archive_entry_set_gid (entry, 100);
  archive_entry_set_mtime (entry, 1700000000, 0);
  if (size < 0)
    size = data ? strlen (data) : 0;
  archive_entry_set_size (entry, type == AE_IFREG ? size : 0);
  if (symlink != NULL)
    archive_entry_set_symlink (entry, symlink);
  if (hardlink != NULL)
    {
      archive_entry_set_hardlink (entry, hardlink);
      archive_entry_set_size (entry, 0);
    }
  g_assert_cmpint (archive_write_header (b->a, entry), ==, ARCHIVE_OK);
  if (data != NULL && hardlink == NULL)
    g_assert_cmpint (archive_write_data (b->a, data, size), ==, size);
  archive_entry_free (entry);
}

static void
add_dir (Builder *b, const char *name)
{
  builder_entry (b, name, AE_IFDIR, 0755, NULL, 0, NULL, NULL);
}

static void
add_file (Builder *b, const char *name, const char *data)
{
  builder_entry (b, name, AE_IFREG, 0644, data, -1, NULL, NULL);
}

static void
add_symlink (Builder *b, const char *name, const char *target)
{
  builder_entry (b, name, AE_IFLNK, 0777, NULL, 0, target, NULL);
}

static void
add_hardlink (Builder *b, const char *name, const char *target)
{
  builder_entry (b, name, AE_IFREG, 0644, NULL, 0, NULL, target);
}

/* A file of @size bytes: @fill, or pseudo-random when @fill is 0. */
static void
add_file_fill (Builder *b, const char *name, gsize size, char fill)
{
  g_autofree char *data = g_malloc (size);

  if (fill != 0)
    memset (data, fill, size);
  else
    for (gsize i = 0; i < size; i++)
      data[i] = g_test_rand_int_range (0, 256);
  builder_entry (b, name, AE_IFREG, 0644, data, size, NULL, NULL);
}

static GBytes *
builder_finish (Builder *b)
{
  GBytes *bytes;

  g_assert_cmpint (archive_write_close (b->a), ==, ARCHIVE_OK);
  archive_write_free (b->a);
  bytes = g_byte_array_free_to_bytes (b->bytes);
  g_free (b);
  return bytes;
}

/* ---- reading archives ------------------------------------------------- */

/* One line per member: "name type perm uid:gid mtime [-> symlink]
 * [=> hardlink] [size:data]", data shown when shorter than 32 bytes. */
static char *
describe_archive (GBytes *bytes)
{
  struct archive *a = archive_read_new ();
  struct archive_entry *entry;
  GString *out = g_string_new (NULL);
  gsize len;
  const void *data = g_bytes_get_data (bytes, &len);
  int r;

  archive_read_support_format_tar (a);
  archive_read_support_filter_gzip (a);
  g_assert_cmpint (archive_read_open_memory (a, data, len), ==, ARCHIVE_OK);
  while ((r = archive_read_next_header (a, &entry)) == ARCHIVE_OK)
    {
      mode_t type = archive_entry_filetype (entry);
      char kind = type == AE_IFDIR ? 'd' : type == AE_IFLNK ? 'l' : 'f';

      g_string_append_printf (
        out, "%s %c %o %d:%d %ld", archive_entry_pathname (entry), kind,
        (guint) archive_entry_perm (entry), (int) archive_entry_uid (entry),
        (int) archive_entry_gid (entry), (long) archive_entry_mtime (entry));
      if (type == AE_IFLNK)
        g_string_append_printf (out, " -> %s", archive_entry_symlink (entry));
      if (archive_entry_hardlink (entry) != NULL)
        g_string_append_printf (out, " => %s", archive_entry_hardlink (entry));
      if (type == AE_IFREG && archive_entry_hardlink (entry) == NULL)
        {
          char buffer[32];
          la_ssize_t n = archive_read_data (a, buffer, sizeof buffer);

          g_assert_cmpint (n, >=, 0);
          g_string_append_printf (out, " %" G_GINT64_FORMAT ":%.*s",
                                  (gint64) archive_entry_size (entry), (int) n,
                                  buffer);
        }
      g_string_append_c (out, '\n');
    }
  g_assert_cmpint (r, ==, ARCHIVE_EOF);
  archive_read_free (a);
  return g_string_free (out, FALSE);
}

/* Whether @bytes reads to the end-of-archive blocks without an error. */
static gboolean
archive_is_complete (GBytes *bytes)
{
  struct archive *a = archive_read_new ();
  struct archive_entry *entry;
  gsize len;
  const void *data = g_bytes_get_data (bytes, &len);
  int r;

  archive_read_support_format_tar (a);
  r = archive_read_open_memory (a, data, len);
  while (r == ARCHIVE_OK &&
         (r = archive_read_next_header (a, &entry)) == ARCHIVE_OK)
    r = archive_read_data_skip (a);
  archive_read_free (a);
  return r == ARCHIVE_EOF;
}

static GBytes *
read_all (GInputStream *stream, GError **error)
{
  g_autoptr (GByteArray) out = g_byte_array_new ();
  g_autofree guint8 *buffer = g_malloc (100 * 1000); /* not a block size */

  for (;;)
    {
      gssize n = g_input_stream_read (stream, buffer, 100 * 1000, NULL, error);

      if (n < 0)
        return NULL;
      if (n == 0)
        return g_byte_array_free_to_bytes (g_steal_pointer (&out));
      g_byte_array_append (out, buffer, n);
    }
}

static void
assert_unsafe (GError *error, const char *member, const char *reason)
{
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_UNSAFE_ARCHIVE_MEMBER);
  agents_test_assert_context_str (error, "reason", reason);
  if (member != NULL)
    agents_test_assert_context_str (error, "member", member);
}

static void
assert_limit (GError *error, const char *limit, gint64 value)
{
  g_autoptr (GVariant) ctx = NULL;
  gint64 got = -1;

  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_ARCHIVE_LIMIT);
  agents_test_assert_context_str (error, "limit", limit);
  ctx = agents_sandbox_error_get_context (error);
  g_assert_true (g_variant_lookup (ctx, "value", "x", &got));
  g_assert_cmpint (got, ==, value);
}

/* ---- rebase ----------------------------------------------------------- */

static gboolean
rebase (GBytes *archive,
        const char *root_name,
        const char *const *exclude,
        char **description,
        GError **error)
{
  g_autoptr (GInputStream) in = g_memory_input_stream_new_from_bytes (archive);
  g_autoptr (GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr (GBytes) bytes = NULL;

  if (!agents_docker_tar_rebase_workspace (in, root_name, exclude, out, NULL,
                                           error))
    return FALSE;
  g_assert_true (g_output_stream_close (out, NULL, NULL));
  bytes = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (out));
  *description = describe_archive (bytes);
  return TRUE;
}

static void
test_rebase_prefix (void)
{
  Builder *b = builder_new (FALSE);
  const char *exclude[] = { "skip", "./sub//deep", NULL };
  g_autoptr (GBytes) archive = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *got = NULL;

  add_dir (b, "workspace/");
  add_file (b, "workspace/a.txt", "alpha");
  add_dir (b, "workspace/sub/");
  builder_entry (b, "workspace/sub/run.sh", AE_IFREG, 04755, "#!", -1, NULL,
                 NULL);
  add_symlink (b, "workspace/link", "sub/../a.txt");
  add_hardlink (b, "workspace/sub/hl", "workspace/a.txt");
  add_dir (b, "workspace/skip/");
  add_file (b, "workspace/skip/x", "x");
  add_hardlink (b, "workspace/to-skipped", "workspace/skip/x");
  add_file (b, "workspace/skipped-not", "kept");
  add_dir (b, "workspace/sub/deep/");
  add_file (b, "workspace/sub/deep/y", "y");
  add_file (b, "workspace/sub/deeper", "z");
  builder_entry (b, "workspace/fifo", AE_IFIFO, 0644, NULL, 0, NULL, NULL);
  archive = builder_finish (b);

  g_assert_true (rebase (archive, "workspace", exclude, &got, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (got, ==,
                   "a.txt f 644 1000:100 1700000000 5:alpha\n"
                   "sub/ d 755 1000:100 1700000000\n"
                   "sub/run.sh f 4755 1000:100 1700000000 2:#!\n"
                   "link l 777 1000:100 1700000000 -> sub/../a.txt\n"
                   "sub/hl f 644 1000:100 1700000000 => a.txt\n"
                   "skipped-not f 644 1000:100 1700000000 4:kept\n"
                   "sub/deeper f 644 1000:100 1700000000 1:z\n");
}

/* Go's archive/tar writes long names as PAX or GNU records. */
static void
test_rebase_long_names (void)
{
  const int formats[] = { ARCHIVE_FORMAT_TAR_GNUTAR,
                          ARCHIVE_FORMAT_TAR_PAX_INTERCHANGE };
  g_autofree char *long_name = g_strnfill (150, 'x');
  g_autofree char *member = g_strconcat ("workspace/d/", long_name, NULL);
  g_autofree char *link = g_strconcat ("workspace/l-", long_name, NULL);
  g_autofree char *expected =
    g_strdup_printf ("d/%s f 644 1000:100 1700000000 4:long\n"
                     "l-%s f 644 1000:100 1700000000 => d/%s\n",
                     long_name, long_name, long_name);

  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      Builder *b = builder_new_format (FALSE, formats[i]);
      g_autoptr (GBytes) archive = NULL;
      g_autoptr (GError) error = NULL;
      g_autofree char *got = NULL;

      add_file (b, member, "long");
      add_hardlink (b, link, member);
      archive = builder_finish (b);
      g_assert_true (rebase (archive, "workspace", NULL, &got, &error));
      g_assert_no_error (error);
      g_assert_cmpstr (got, ==, expected);
    }
}

static void
test_rebase_exclude_all (void)
{
  Builder *b = builder_new (FALSE);
  const char *exclude[] = { ".", NULL };
  g_autoptr (GBytes) archive = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *got = NULL;

  add_dir (b, "workspace");
  add_file (b, "workspace/a.txt", "alpha");
  archive = builder_finish (b);

  g_assert_true (rebase (archive, "workspace", exclude, &got, &error));
  g_assert_cmpstr (got, ==, "");
}

static void
test_rebase_outside_prefix (void)
{
  const char *names[][2] = {
    { "other/x", "outside_root" },
    { "workspacex/x", "outside_root" },
    { "x", "outside_root" },
    { "workspace/../x", "parent_reference" },
    { "/workspace/x", "absolute_path" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      Builder *b = builder_new (FALSE);
      g_autoptr (GBytes) archive = NULL;
      g_autoptr (GError) error = NULL;
      g_autofree char *got = NULL;

      add_dir (b, "workspace/");
      add_file (b, names[i][0], "x");
      archive = builder_finish (b);
      g_assert_false (rebase (archive, "workspace", NULL, &got, &error));
      assert_unsafe (error, names[i][0], names[i][1]);
    }
}

static void
test_rebase_hardlink_outside (void)
{
  Builder *b = builder_new (FALSE);
  g_autoptr (GBytes) archive = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *got = NULL;

  add_dir (b, "workspace/");
  add_hardlink (b, "workspace/hl", "etc/passwd");
  archive = builder_finish (b);
  g_assert_false (rebase (archive, "workspace", NULL, &got, &error));
  assert_unsafe (error, "etc/passwd", "outside_root");
}

static void
test_rebase_corrupt (void)
{
  g_autoptr (GBytes) archive =
    g_bytes_new_static ("this is not a tar archive at all", 32);
  g_autoptr (GError) error = NULL;
  g_autofree char *got = NULL;

  g_assert_false (rebase (archive, "workspace", NULL, &got, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ);
}

/* ---- validate_copy ---------------------------------------------------- */

typedef struct
{
  gint64 max_input_bytes;
  gint64 max_extracted_bytes;
  gint64 max_members;
  const char *const *existing_links; /* path, target, path, target, …, NULL */
  /* Directories of the workspace: the docker model need not know them,
   * the foundation's extractor finds them on disk. */
  const char *const *existing_dirs;
  gboolean keep_links; /* as a snapshot restore */
} ValidateOptions;

static gboolean
validate (GBytes *archive,
          const ValidateOptions *options,
          char **description,
          GBytes **output,
          GError **error)
{
  g_autoptr (GInputStream) in = g_memory_input_stream_new_from_bytes (archive);
  g_autoptr (GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr (GHashTable) links = NULL;
  g_autoptr (GBytes) bytes = NULL;
  AgentsArchiveLimits limits = {
    G_GINT64_CONSTANT (1) << 30,
    G_GINT64_CONSTANT (4) << 30,
    100000,
  };
  gboolean ok;

  if (options != NULL && options->max_input_bytes)
    limits.max_input_bytes = options->max_input_bytes;
  if (options != NULL && options->max_extracted_bytes)
    limits.max_extracted_bytes = options->max_extracted_bytes;
  if (options != NULL && options->max_members)
    limits.max_members = options->max_members;
  if (options != NULL && options->existing_links != NULL)
    {
      links = g_hash_table_new (g_str_hash, g_str_equal);
      for (guint i = 0; options->existing_links[i] != NULL; i += 2)
        g_hash_table_insert (links, (gpointer) options->existing_links[i],
                             (gpointer) options->existing_links[i + 1]);
    }

  ok = agents_docker_tar_validate_copy (in, &limits, links,
                                        options != NULL && options->keep_links,
                                        out, NULL, error);
  g_assert_true (g_output_stream_close (out, NULL, NULL));
  bytes = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (out));
  if (ok)
    g_assert_true (archive_is_complete (bytes));
  if (ok && description != NULL)
    *description = describe_archive (bytes);
  if (output != NULL)
    *output = g_steal_pointer (&bytes);
  return ok;
}

/* Everything but writing through a symlink that stays inside: the
 * foundation refuses that where the kernel lacks openat2() (valgrind). */
static void
build_happy_plain (Builder *b)
{
  add_dir (b, "./");
  add_dir (b, "./dir/");
  add_file (b, "./dir/a.txt", "alpha");
  builder_entry (b, "setuid", AE_IFREG, 04755, "#!", -1, NULL, NULL);
  add_symlink (b, "dir/up", "../setuid");
  add_symlink (b, "self", ".");
  add_hardlink (b, "hl", "./dir/a.txt");
  add_hardlink (b, "hl2", "dir/up");
}

static void
build_happy (Builder *b)
{
  build_happy_plain (b);
  add_file (b, "self/through-inside-link", "in");
  add_file (b, "dir//./b.txt", "beta");
}

static void
check_happy (const char *got)
{
  g_assert_cmpstr (got, ==,
                   "dir/ d 755 1000:100 1700000000\n"
                   "dir/a.txt f 644 1000:100 1700000000 5:alpha\n"
                   "setuid f 755 1000:100 1700000000 2:#!\n"
                   "dir/up l 777 1000:100 1700000000 -> ../setuid\n"
                   "self l 777 1000:100 1700000000 -> .\n"
                   "hl f 644 1000:100 1700000000 => dir/a.txt\n"
                   "hl2 f 644 1000:100 1700000000 => dir/up\n"
                   "self/through-inside-link f 644 1000:100 1700000000 2:in\n"
                   "dir/b.txt f 644 1000:100 1700000000 4:beta\n");
}

static void
test_validate_happy (void)
{
  for (int gzip = 0; gzip < 2; gzip++)
    {
      Builder *b = builder_new (gzip);
      g_autoptr (GBytes) archive = NULL;
      g_autoptr (GError) error = NULL;
      g_autofree char *got = NULL;

      build_happy (b);
      archive = builder_finish (b);
      g_assert_true (validate (archive, NULL, &got, NULL, &error));
      g_assert_no_error (error);
      check_happy (got);
    }
}

static void
test_validate_existing_link_inside (void)
{
  const char *const links[] = { "in", "dir/sub", "dir/up", "../in", NULL };
  ValidateOptions options = { .existing_links = links };
  Builder *b = builder_new (FALSE);
  g_autoptr (GBytes) archive = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *got = NULL;

  add_file (b, "in/file", "x");
  add_dir (b, "in/newdir/");
  add_symlink (b, "in/newdir/back", "../file");
  archive = builder_finish (b);
  g_assert_true (validate (archive, &options, &got, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (got, ==,
                   "in/file f 644 1000:100 1700000000 1:x\n"
                   "in/newdir/ d 755 1000:100 1700000000\n"
                   "in/newdir/back l 777 1000:100 1700000000 -> ../file\n");
}

/* A member replacing an existing symlink is written in its place, not
 * through it. */
static void
test_validate_replaces_existing_link (void)
{
  const char *const links[] = { "evil", "/etc", NULL };
  ValidateOptions options = { .existing_links = links };
  Builder *b = builder_new (FALSE);
  g_autoptr (GBytes) archive = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *got = NULL;

  add_dir (b, "evil/");
  add_file (b, "evil/passwd", "mine");
  archive = builder_finish (b);
  g_assert_true (validate (archive, &options, &got, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (got, ==,
                   "evil/ d 755 1000:100 1700000000\n"
                   "evil/passwd f 644 1000:100 1700000000 4:mine\n");
}

typedef void (*BuildFunc) (Builder *b);

typedef struct
{
  const char *name;
  BuildFunc build;
  ValidateOptions options;
  int code;
  const char *key;   /* "reason" or "limit" */
  const char *value; /* NULL: only the key is checked */
  const char *member;
} HostileCase;

static void
build_absolute (Builder *b)
{
  add_file (b, "ok", "fine");
  add_file (b, "/tmp/evil", "evil");
}

static void
build_parent (Builder *b)
{
  add_file (b, "a/../../evil", "evil");
}

/* libarchive writes a file "./" with an empty name. */
static void
build_empty_name (Builder *b)
{
  builder_entry (b, "./", AE_IFREG, 0644, "x", -1, NULL, NULL);
}

static void
build_symlink_abs_then_write (Builder *b)
{
  add_symlink (b, "link", "/tmp");
  add_file (b, "link/canary.txt", "owned");
}

static void
build_symlink_rel (Builder *b)
{
  add_symlink (b, "up", "../outside");
}

static void
build_symlink_nested_rel (Builder *b)
{
  add_dir (b, "d/");
  add_symlink (b, "d/up", "../../outside");
}

static void
build_symlink_chain (Builder *b)
{
  add_dir (b, "d/");
  add_symlink (b, "d/lnk", "..");
  add_symlink (b, "d/s", "lnk/../x");
  add_file (b, "d/s/canary.txt", "owned");
}

/* ".." out of a directory the archive did not make is refused: it may be
 * a symlink by the time the link is followed. */
static void
build_symlink_unknown_dir_up (Builder *b)
{
  add_symlink (b, "l", "unknown/../../x");
}

static void
build_symlink_write_through (Builder *b)
{
  add_dir (b, "d/");
  add_symlink (b, "d/self", "..");
  add_symlink (b, "esc", "d/self/d/self/..");
}

static void
build_symlink_loop (Builder *b)
{
  add_symlink (b, "a", "b");
  add_symlink (b, "b", "a");
  add_file (b, "a/x", "x");
}

static void
build_empty_link_target (Builder *b)
{
  builder_entry (b, "l", AE_IFLNK, 0777, NULL, 0, "", NULL);
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

static void
build_symlink_via_existing_link (Builder *b)
{
  add_symlink (b, "l", "inside/../../x");
}

static void
build_hardlink_abs (Builder *b)
{
  add_hardlink (b, "hl", "/etc/passwd");
}

static void
build_hardlink_parent (Builder *b)
{
  add_hardlink (b, "hl", "../../../canary.txt");
}

static void
build_hardlink_through_link (Builder *b)
{
  add_hardlink (b, "hl", "evil/canary.txt");
}

static void
build_hardlink_missing (Builder *b)
{
  add_hardlink (b, "hl", "missing.txt");
}

static void
build_hardlink_to_dir (Builder *b)
{
  add_dir (b, "d/");
  add_hardlink (b, "hl", "d");
}

static void
build_file_over_dir (Builder *b)
{
  add_dir (b, "d/");
  add_file (b, "d", "x");
}

static void
build_file_under_file (Builder *b)
{
  add_file (b, "f", "x");
  add_file (b, "f/g", "y");
}

static void
build_root_file (Builder *b)
{
  builder_entry (b, ".", AE_IFREG, 0644, "x", -1, NULL, NULL);
}

static void
build_char_device (Builder *b)
{
  builder_entry (b, "null", AE_IFCHR, 0666, NULL, 0, NULL, NULL);
}

static void
build_block_device (Builder *b)
{
  builder_entry (b, "disk", AE_IFBLK, 0660, NULL, 0, NULL, NULL);
}

static void
build_fifo (Builder *b)
{
  builder_entry (b, "fifo", AE_IFIFO, 0644, NULL, 0, NULL, NULL);
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
build_header_over (Builder *b)
{
  builder_entry (b, "huge", AE_IFREG, 0644, NULL, 10 * 1024 * 1024, NULL, NULL);
}

static void
build_sum_over (Builder *b)
{
  add_file_fill (b, "one", 400 * 1024, 'a');
  add_file_fill (b, "two", 400 * 1024, 'b');
  add_file_fill (b, "three", 400 * 1024, 'c');
}

static void
build_big_input (Builder *b)
{
  add_file_fill (b, "random", 200 * 1024, 0);
}

static const char *const evil_abs[] = { "evil", "/tmp", NULL };
static const char *const evil_up[] = { "evil", "sub/../..", NULL };
static const char *const sub_dir[] = { "sub", NULL };
static const char *const inside_link[] = { "inside", "sub", NULL };

#define UNSAFE(r) AGENTS_SANDBOX_ERROR_UNSAFE_ARCHIVE_MEMBER, "reason", r
#define LIMIT(l) AGENTS_SANDBOX_ERROR_ARCHIVE_LIMIT, "limit", l
#define WRITE AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE, "reason", NULL

static const HostileCase hostile_cases[] = {
  { "absolute", build_absolute, { 0 }, UNSAFE ("absolute_path"), "/tmp/evil" },
  { "parent",
    build_parent,
    { 0 },
    UNSAFE ("parent_reference"),
    "a/../../evil" },
  { "empty-name", build_empty_name, { 0 }, UNSAFE ("empty_name"), "" },
  { "root-file", build_root_file, { 0 }, UNSAFE ("invalid_root_member"), "." },
  { "symlink-abs-then-write",
    build_symlink_abs_then_write,
    { 0 },
    UNSAFE ("symlink_escape"),
    "link" },
  { "symlink-rel", build_symlink_rel, { 0 }, UNSAFE ("symlink_escape"), "up" },
  { "symlink-nested-rel",
    build_symlink_nested_rel,
    { 0 },
    UNSAFE ("symlink_escape"),
    "d/up" },
  { "symlink-chain",
    build_symlink_chain,
    { 0 },
    UNSAFE ("symlink_escape"),
    "d/s" },
  { "symlink-unknown-dir-up",
    build_symlink_unknown_dir_up,
    { 0 },
    UNSAFE ("symlink_escape"),
    "l" },
  { "symlink-through-self",
    build_symlink_write_through,
    { 0 },
    UNSAFE ("symlink_escape"),
    "esc" },
  { "symlink-loop",
    build_symlink_loop,
    { 0 },
    UNSAFE ("symlink_escape"),
    "a/x" },
  { "empty-link-target",
    build_empty_link_target,
    { 0 },
    UNSAFE ("invalid_link_target"),
    "l" },
  { "write-through-existing-link",
    build_through_existing_link,
    { .existing_links = evil_abs },
    UNSAFE ("symlink_escape"),
    "evil/canary.txt" },
  { "mkdir-through-existing-link",
    build_dir_through_existing_link,
    { .existing_links = evil_up, .existing_dirs = sub_dir },
    UNSAFE ("symlink_escape"),
    "evil/newdir/" },
  { "symlink-via-existing-link",
    build_symlink_via_existing_link,
    { .existing_links = inside_link },
    UNSAFE ("symlink_escape"),
    "l" },
  { "hardlink-abs",
    build_hardlink_abs,
    { 0 },
    UNSAFE ("hardlink_escape"),
    "hl" },
  { "hardlink-parent",
    build_hardlink_parent,
    { 0 },
    UNSAFE ("hardlink_escape"),
    "hl" },
  { "hardlink-through-existing-link",
    build_hardlink_through_link,
    { .existing_links = evil_abs },
    UNSAFE ("hardlink_escape"),
    "hl" },
  { "hardlink-missing", build_hardlink_missing, { 0 }, WRITE, NULL },
  { "hardlink-to-dir", build_hardlink_to_dir, { 0 }, WRITE, NULL },
  /* a path named twice (the directory first): the duplicate rule */
  { "file-over-dir",
    build_file_over_dir,
    { 0 },
    UNSAFE ("duplicate_path"),
    "d" },
  { "file-under-file", build_file_under_file, { 0 }, WRITE, NULL },
  { "char-device", build_char_device, { 0 }, UNSAFE ("special_file"), "null" },
  { "block-device",
    build_block_device,
    { 0 },
    UNSAFE ("special_file"),
    "disk" },
  { "fifo", build_fifo, { 0 }, UNSAFE ("special_file"), "fifo" },
  { "over-max-members",
    build_too_many_members,
    { .max_members = 30 },
    LIMIT ("max_members"),
    NULL },
  { "header-over-max-extracted",
    build_header_over,
    { .max_extracted_bytes = 1024 * 1024 },
    LIMIT ("max_extracted_bytes"),
    NULL },
  { "sum-over-max-extracted",
    build_sum_over,
    { .max_extracted_bytes = 1024 * 1024 },
    LIMIT ("max_extracted_bytes"),
    NULL },
  { "over-max-input-bytes",
    build_big_input,
    { .max_input_bytes = 64 * 1024 },
    LIMIT ("max_input_bytes"),
    NULL },
};

static void
test_validate_hostile (gconstpointer data)
{
  const HostileCase *c = data;
  Builder *b = builder_new (FALSE);
  g_autoptr (GBytes) archive = NULL;
  g_autoptr (GError) error = NULL;

  c->build (b);
  archive = builder_finish (b);
  g_assert_false (validate (archive, &c->options, NULL, NULL, &error));
  g_assert_nonnull (error);
  g_test_message ("%s: %s", c->name, error->message);
  g_assert_error (error, AGENTS_SANDBOX_ERROR, c->code);
  if (c->value != NULL)
    agents_test_assert_context_str (error, c->key, c->value);
  else
    {
      g_autoptr (GVariant) ctx = agents_sandbox_error_get_context (error);
      g_autoptr (GVariant) value = g_variant_lookup_value (ctx, c->key, NULL);

      g_assert_nonnull (value);
    }
  if (c->code == AGENTS_SANDBOX_ERROR_UNSAFE_ARCHIVE_MEMBER)
    agents_test_assert_context_str (error, "member", c->member);
  if (c->code == AGENTS_SANDBOX_ERROR_ARCHIVE_LIMIT)
    {
      g_autoptr (GVariant) ctx = agents_sandbox_error_get_context (error);
      g_autoptr (GVariant) value =
        g_variant_lookup_value (ctx, "value", G_VARIANT_TYPE_INT64);

      g_assert_nonnull (value);
    }
}

/* A snapshot restore keeps outward symlinks as they are, but still
 * refuses to write a member through one. */
static void
test_validate_keep_links (void)
{
  ValidateOptions options = { .keep_links = TRUE };
  g_autoptr (GBytes) archive = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *got = NULL;
  Builder *b = builder_new (FALSE);

  add_symlink (b, "etc", "/etc");
  add_dir (b, "d/");
  add_symlink (b, "d/up", "../outside");
  archive = builder_finish (b);
  g_assert_true (validate (archive, &options, &got, NULL, &error));
  g_assert_no_error (error);
  g_assert_nonnull (strstr (got, "etc l "));
  g_assert_nonnull (strstr (got, " -> /etc\n"));
  g_assert_nonnull (strstr (got, " -> ../outside\n"));
  g_clear_pointer (&archive, g_bytes_unref);

  /* The engine refuses a relative target that leaves the root. */
  b = builder_new (FALSE);
  build_symlink_rel (b);
  archive = builder_finish (b);
  g_assert_false (validate (archive, &options, NULL, NULL, &error));
  agents_test_assert_context_str (error, "reason", "symlink_escape");
  agents_test_assert_context_str (error, "member", "up");
  g_clear_error (&error);
  g_clear_pointer (&archive, g_bytes_unref);

  b = builder_new (FALSE);
  build_symlink_abs_then_write (b);
  archive = builder_finish (b);
  g_assert_false (validate (archive, &options, NULL, NULL, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_UNSAFE_ARCHIVE_MEMBER);
  agents_test_assert_context_str (error, "reason", "symlink_escape");
  agents_test_assert_context_str (error, "member", "link/canary.txt");
  g_clear_error (&error);
  g_clear_pointer (&archive, g_bytes_unref);

  b = builder_new (FALSE);
  build_symlink_chain (b);
  archive = builder_finish (b);
  g_assert_false (validate (archive, &options, NULL, NULL, &error));
  agents_test_assert_context_str (error, "reason", "symlink_escape");
}

/* The foundation's extractor, on disk with the same existing symlinks,
 * comes to the same verdict. */
static void
test_validate_as_foundation (gconstpointer data)
{
  const HostileCase *c = data;
  const ValidateOptions *o = &c->options;
  g_autofree char *root = agents_test_make_tmp_dir ("docker-tar");
  Builder *b = builder_new (FALSE);
  g_autoptr (GBytes) archive = NULL;
  g_autoptr (GInputStream) in = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) docker_error = NULL;
  AgentsArchiveLimits limits = {
    o->max_input_bytes ? o->max_input_bytes : G_GINT64_CONSTANT (1) << 30,
    o->max_extracted_bytes ? o->max_extracted_bytes
                           : G_GINT64_CONSTANT (4) << 30,
    o->max_members ? o->max_members : 100000,
  };
  g_autoptr (GVariant) ctx = NULL;
  g_autoptr (GVariant) docker_ctx = NULL;
  const char *value = NULL;
  const char *docker_value = NULL;

  for (guint i = 0; o->existing_dirs && o->existing_dirs[i]; i++)
    {
      g_autofree char *path =
        g_build_filename (root, o->existing_dirs[i], NULL);

      g_assert_no_errno (g_mkdir (path, 0755));
    }
  for (guint i = 0; o->existing_links && o->existing_links[i]; i += 2)
    {
      g_autofree char *path =
        g_build_filename (root, o->existing_links[i], NULL);

      g_assert_no_errno (symlink (o->existing_links[i + 1], path));
    }
  c->build (b);
  archive = builder_finish (b);
  in = g_memory_input_stream_new_from_bytes (archive);
  g_assert_false (agents_archive_extract_to_directory (
    in, root, AGENTS_COMPRESSION_SCHEME_TAR, &limits, NULL, &error));
  g_assert_false (validate (archive, o, NULL, NULL, &docker_error));
  g_assert_error (error, docker_error->domain, docker_error->code);
  ctx = agents_sandbox_error_get_context (error);
  docker_ctx = agents_sandbox_error_get_context (docker_error);
  g_assert_true (g_variant_lookup (ctx, c->key, "&s", &value));
  g_assert_true (g_variant_lookup (docker_ctx, c->key, "&s", &docker_value));
  if (c->code != AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE)
    g_assert_cmpstr (value, ==, docker_value);
  if (c->code == AGENTS_SANDBOX_ERROR_UNSAFE_ARCHIVE_MEMBER)
    {
      g_assert_true (g_variant_lookup (ctx, "member", "&s", &value));
      g_assert_cmpstr (value, ==, c->member);
    }
  if (c->code != AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE)
    g_assert_cmpstr (error->message, ==, docker_error->message);
  agents_test_rm_rf (root);
}

static void
test_validate_happy_as_foundation (void)
{
  g_autofree char *root = agents_test_make_tmp_dir ("docker-tar");
  Builder *b = builder_new (FALSE);
  g_autoptr (GBytes) archive = NULL;
  g_autoptr (GInputStream) in = NULL;
  g_autoptr (GError) error = NULL;

  build_happy_plain (b);
  archive = builder_finish (b);
  in = g_memory_input_stream_new_from_bytes (archive);
  g_assert_true (agents_archive_extract_to_directory (
    in, root, AGENTS_COMPRESSION_SCHEME_TAR, NULL, NULL, &error));
  g_assert_no_error (error);
  agents_test_rm_rf (root);
}

/* The limits carry the values of the foundation's errors. */
static void
test_validate_limit_values (void)
{
  ValidateOptions options = { .max_members = 30 };
  Builder *b = builder_new (FALSE);
  g_autoptr (GBytes) archive = NULL;
  g_autoptr (GError) error = NULL;

  build_too_many_members (b);
  archive = builder_finish (b);
  g_assert_false (validate (archive, &options, NULL, NULL, &error));
  assert_limit (error, "max_members", 30);
  g_assert_cmpstr (error->message, ==,
                   "archive exceeds archive_limits.max_members (30)");
}

static void
test_validate_gzip_bomb (void)
{
  ValidateOptions options = { .max_extracted_bytes = 1024 * 1024 };
  Builder *b = builder_new (TRUE);
  g_autoptr (GBytes) archive = NULL;
  g_autoptr (GError) error = NULL;

  add_file_fill (b, "bomb", 16 * 1024 * 1024, 'A');
  archive = builder_finish (b);
  g_assert_cmpuint (g_bytes_get_size (archive), <, 200 * 1024);
  g_assert_false (validate (archive, &options, NULL, NULL, &error));
  assert_limit (error, "max_extracted_bytes", 1024 * 1024);
}

/* Members stream through: what was accepted before the bad member has
 * (up to libarchive's last 10 KiB block) gone out already. */
static void
test_validate_partial_output (void)
{
  Builder *b = builder_new (FALSE);
  g_autoptr (GBytes) archive = NULL;
  g_autoptr (GBytes) output = NULL;
  g_autoptr (GError) error = NULL;

  add_file_fill (b, "big", 1024 * 1024, 'a');
  add_file (b, "/etc/passwd", "evil");
  archive = builder_finish (b);
  g_assert_false (validate (archive, NULL, NULL, &output, &error));
  assert_unsafe (error, "/etc/passwd", "absolute_path");
  g_assert_cmpuint (g_bytes_get_size (output), >=, 1024 * 1024 - 10240);
  /* No end-of-archive blocks: cut inside a member, it reads as broken.
   * (Cut between two members it would not: the caller must abort the
   * upload.) */
  g_assert_false (archive_is_complete (output));
}

static void
test_validate_unsafe_message (void)
{
  Builder *b = builder_new (FALSE);
  g_autoptr (GBytes) archive = NULL;
  g_autoptr (GError) error = NULL;

  add_file (b, "../x", "x");
  archive = builder_finish (b);
  g_assert_false (validate (archive, NULL, NULL, NULL, &error));
  g_assert_cmpstr (error->message, ==,
                   "unsafe archive member: ../x (parent_reference)");
}

/* A failing reader and a failing writer. */
static void
test_validate_stream_errors (void)
{
  Builder *b = builder_new (FALSE);
  g_autoptr (GBytes) archive = NULL;
  g_autoptr (GInputStream) in = NULL;
  g_autoptr (GOutputStream) out = NULL;
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  guint8 small[1024];

  add_file_fill (b, "big", 64 * 1024, 'a');
  archive = builder_finish (b);

  in = g_memory_input_stream_new_from_bytes (archive);
  out = g_memory_output_stream_new (small, sizeof small, NULL, NULL);
  g_assert_false (
    agents_docker_tar_validate_copy (in, NULL, NULL, FALSE, out, NULL, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE);
  g_clear_error (&error);
  g_clear_object (&in);
  g_clear_object (&out);

  in = g_memory_input_stream_new_from_bytes (archive);
  out = g_memory_output_stream_new_resizable ();
  g_cancellable_cancel (cancellable);
  g_assert_false (agents_docker_tar_validate_copy (in, NULL, NULL, FALSE, out,
                                                   cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

/* ---- list_symlinks ---------------------------------------------------- */

static GHashTable *
list_symlinks (GBytes *archive, const char *root_name, GError **error)
{
  g_autoptr (GInputStream) in = g_memory_input_stream_new_from_bytes (archive);

  return agents_docker_tar_list_symlinks (in, root_name, NULL, error);
}

static void
test_list_symlinks (void)
{
  Builder *b = builder_new (FALSE);
  g_autoptr (GBytes) archive = NULL;
  g_autoptr (GHashTable) links = NULL;
  g_autoptr (GError) error = NULL;

  add_dir (b, "workspace/");
  add_file (b, "workspace/a", "a");
  add_symlink (b, "workspace/l1", "a");
  add_dir (b, "workspace/d/");
  add_symlink (b, "workspace/d/l2", "/etc");
  add_symlink (b, "workspace/gone", "a");
  add_file (b, "workspace/gone", "replaced");
  add_hardlink (b, "workspace/d/hl", "workspace/l1");
  add_file_fill (b, "workspace/big", 200 * 1024, 0);
  archive = builder_finish (b);

  links = list_symlinks (archive, "workspace", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_hash_table_size (links), ==, 3);
  g_assert_cmpstr (g_hash_table_lookup (links, "l1"), ==, "a");
  g_assert_cmpstr (g_hash_table_lookup (links, "d/l2"), ==, "/etc");
  g_assert_cmpstr (g_hash_table_lookup (links, "d/hl"), ==, "a");

  g_clear_pointer (&links, g_hash_table_unref);
  links = list_symlinks (archive, "other", &error);
  g_assert_null (links);
  assert_unsafe (error, "workspace/", "outside_root");
}

static void
test_list_symlinks_relative (void)
{
  Builder *b = builder_new (FALSE);
  g_autoptr (GBytes) archive = NULL;
  g_autoptr (GHashTable) links = NULL;
  g_autoptr (GError) error = NULL;

  add_dir (b, ".");
  add_symlink (b, "./l", "x/y");
  add_symlink (b, "d//m", "..");
  archive = builder_finish (b);

  links = list_symlinks (archive, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_hash_table_size (links), ==, 2);
  g_assert_cmpstr (g_hash_table_lookup (links, "l"), ==, "x/y");
  g_assert_cmpstr (g_hash_table_lookup (links, "d/m"), ==, "..");
}

/* ---- the single-file stream ------------------------------------------- */

static GBytes *
pattern_bytes (gsize size)
{
  guint8 *data = g_malloc (size ? size : 1);

  for (gsize i = 0; i < size; i++)
    data[i] = (i * 7 + i / 511) & 0xff;
  return g_bytes_new_take (data, size);
}

/* Reads @tar with libarchive: one member @name of @size bytes, mode
 * @mode, owned by 0:0, data equal to @data. */
static void
check_single_tar (GBytes *tar, const char *name, guint mode, GBytes *data)
{
  struct archive *a = archive_read_new ();
  struct archive_entry *entry;
  g_autoptr (GByteArray) got = g_byte_array_new ();
  gsize len;
  const void *bytes = g_bytes_get_data (tar, &len);
  gint64 now = g_get_real_time () / G_USEC_PER_SEC;
  guint8 buffer[70000];
  la_ssize_t n;

  archive_read_support_format_tar (a);
  g_assert_cmpint (archive_read_open_memory (a, bytes, len), ==, ARCHIVE_OK);
  g_assert_cmpint (archive_read_next_header (a, &entry), ==, ARCHIVE_OK);
  g_assert_cmpstr (archive_entry_pathname (entry), ==, name);
  g_assert_cmpint (archive_entry_filetype (entry), ==, AE_IFREG);
  g_assert_cmpint (archive_entry_perm (entry), ==, mode);
  g_assert_cmpint (archive_entry_uid (entry), ==, 0);
  g_assert_cmpint (archive_entry_gid (entry), ==, 0);
  g_assert_cmpint (archive_entry_size (entry), ==, g_bytes_get_size (data));
  g_assert_cmpint (ABS (archive_entry_mtime (entry) - now), <=, 5);
  while ((n = archive_read_data (a, buffer, sizeof buffer)) > 0)
    g_byte_array_append (got, buffer, n);
  g_assert_cmpint (n, ==, 0);
  g_assert_cmpmem (got->data, got->len, g_bytes_get_data (data, NULL),
                   g_bytes_get_size (data));
  g_assert_cmpint (archive_read_next_header (a, &entry), ==, ARCHIVE_EOF);
  /* The format is plain ustar when the name fits. */
  if (strlen (name) <= 100)
    g_assert_cmpint (archive_format (a), ==, ARCHIVE_FORMAT_TAR_USTAR);
  archive_read_free (a);
}

static void
round_trip_single (const char *name, gsize size)
{
  g_autoptr (GBytes) data = pattern_bytes (size);
  g_autoptr (GInputStream) in = g_memory_input_stream_new_from_bytes (data);
  g_autoptr (GInputStream) tar_stream =
    agents_docker_tar_single_file_stream (name, 0640, in, size);
  g_autoptr (GBytes) tar = NULL;
  g_autoptr (GError) error = NULL;

  tar = read_all (tar_stream, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (tar), ==,
                    agents_docker_tar_single_file_length (name, size));
  g_assert_cmpuint (g_bytes_get_size (tar) % 512, ==, 0);
  check_single_tar (tar, name, 0640, data);
  g_assert_true (g_input_stream_close (tar_stream, NULL, NULL));
  g_assert_true (g_input_stream_is_closed (in));
}

static void
test_single_file_sizes (void)
{
  const gsize sizes[] = { 0, 1, 511, 512, 513, 5 * 1024 * 1024 };

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    round_trip_single ("file.bin", sizes[i]);
  g_assert_cmpuint (agents_docker_tar_single_file_length ("f", 0), ==, 1536);
  g_assert_cmpuint (agents_docker_tar_single_file_length ("f", 1), ==, 2048);
}

static void
test_single_file_long_name (void)
{
  g_autofree char *name150 = g_strnfill (150, 'n');
  g_autofree char *name100 = g_strnfill (100, 'h');
  g_autofree char *name101 = g_strnfill (101, 'o');

  /* A PAX header block and one block of records. */
  g_assert_cmpuint (agents_docker_tar_single_file_length (name150, 10), ==,
                    512 + 512 + 512 + 512 + 1024);
  g_assert_cmpuint (agents_docker_tar_single_file_length (name100, 10), ==,
                    512 + 512 + 1024);
  round_trip_single (name150, 1000);
  round_trip_single (name100, 3);
  round_trip_single (name101, 0);
  round_trip_single ("h\xc3\xa9llo w\xc3\xb6rld", 5);
}

static void
test_single_file_size_mismatch (void)
{
  const gssize announced[] = { 100, 98 };

  for (guint i = 0; i < G_N_ELEMENTS (announced); i++)
    {
      g_autoptr (GBytes) data = pattern_bytes (99);
      g_autoptr (GInputStream) in = g_memory_input_stream_new_from_bytes (data);
      g_autoptr (GInputStream) tar_stream =
        agents_docker_tar_single_file_stream ("f", 0644, in, announced[i]);
      g_autoptr (GBytes) tar = NULL;
      g_autoptr (GError) error = NULL;

      tar = read_all (tar_stream, &error);
      g_assert_null (tar);
      g_assert_error (error, AGENTS_SANDBOX_ERROR,
                      AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE);
      agents_test_assert_context_str (error, "path", "f");
      g_test_message ("%s", error->message);
      g_assert_nonnull (
        strstr (error->message, i == 0 ? "ended after 99 of 100 bytes"
                                       : "longer than 98 bytes"));
    }
}

/* ---- open_single_file ------------------------------------------------- */

static void
test_open_single_file (void)
{
  Builder *b = builder_new (FALSE);
  g_autoptr (GBytes) archive = NULL;
  g_autoptr (GBytes) got = NULL;
  g_autoptr (GInputStream) in = NULL;
  g_autoptr (GInputStream) file = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *expected = g_malloc (300 * 1024);

  for (gsize i = 0; i < 300 * 1024; i++)
    expected[i] = (i % 251) + 1;
  builder_entry (b, "data.bin", AE_IFREG, 0644, expected, 300 * 1024, NULL,
                 NULL);
  add_file (b, "ignored", "second member");
  archive = builder_finish (b);

  in = g_memory_input_stream_new_from_bytes (archive);
  file = agents_docker_tar_open_single_file (in, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (file);
  got = read_all (file, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (got, NULL), g_bytes_get_size (got),
                   expected, 300 * 1024);
  g_assert_false (g_input_stream_is_closed (in));
  g_assert_true (g_input_stream_close (file, NULL, &error));
  g_assert_true (g_input_stream_is_closed (in));
}

/* The stream is read lazily: a truncated archive fails at the read that
 * reaches the end, not when it is opened. */
static void
test_open_single_file_truncated (void)
{
  Builder *b = builder_new (FALSE);
  g_autoptr (GBytes) archive = NULL;
  g_autoptr (GBytes) cut = NULL;
  g_autoptr (GBytes) got = NULL;
  g_autoptr (GInputStream) in = NULL;
  g_autoptr (GInputStream) file = NULL;
  g_autoptr (GError) error = NULL;

  add_file_fill (b, "big", 200 * 1024, 'q');
  archive = builder_finish (b);
  cut = g_bytes_new_from_bytes (archive, 0, 512 + 100 * 1024);

  in = g_memory_input_stream_new_from_bytes (cut);
  file = agents_docker_tar_open_single_file (in, NULL, &error);
  g_assert_no_error (error);
  got = read_all (file, &error);
  g_assert_null (got);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ);
}

static void
test_open_single_file_not_regular (void)
{
  struct
  {
    void (*add) (Builder *b);
    int code;
  } cases[] = {
    { NULL, G_IO_ERROR_IS_DIRECTORY },
    { NULL, G_IO_ERROR_NOT_REGULAR_FILE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      Builder *b = builder_new (FALSE);
      g_autoptr (GBytes) archive = NULL;
      g_autoptr (GInputStream) in = NULL;
      g_autoptr (GInputStream) file = NULL;
      g_autoptr (GError) error = NULL;

      if (i == 0)
        {
          add_dir (b, "dir/");
          add_file (b, "dir/a", "a");
        }
      else
        add_symlink (b, "link", "target");
      archive = builder_finish (b);
      in = g_memory_input_stream_new_from_bytes (archive);
      file = agents_docker_tar_open_single_file (in, NULL, &error);
      g_assert_null (file);
      g_assert_error (error, G_IO_ERROR, cases[i].code);
      g_assert_true (g_input_stream_is_closed (in));
    }
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/docker/tar/rebase/prefix", test_rebase_prefix);
  g_test_add_func ("/docker/tar/rebase/long-names", test_rebase_long_names);
  g_test_add_func ("/docker/tar/rebase/exclude-all", test_rebase_exclude_all);
  g_test_add_func ("/docker/tar/rebase/outside-prefix",
                   test_rebase_outside_prefix);
  g_test_add_func ("/docker/tar/rebase/hardlink-outside",
                   test_rebase_hardlink_outside);
  g_test_add_func ("/docker/tar/rebase/corrupt", test_rebase_corrupt);

  g_test_add_func ("/docker/tar/validate/happy", test_validate_happy);
  g_test_add_func ("/docker/tar/validate/existing-link-inside",
                   test_validate_existing_link_inside);
  g_test_add_func ("/docker/tar/validate/replaces-existing-link",
                   test_validate_replaces_existing_link);
  for (guint i = 0; i < G_N_ELEMENTS (hostile_cases); i++)
    {
      g_autofree char *path = g_strdup_printf (
        "/docker/tar/validate/hostile/%s", hostile_cases[i].name);

      g_autofree char *as_foundation = g_strdup_printf (
        "/docker/tar/validate/as-foundation/%s", hostile_cases[i].name);

      g_test_add_data_func (path, &hostile_cases[i], test_validate_hostile);
      g_test_add_data_func (as_foundation, &hostile_cases[i],
                            test_validate_as_foundation);
    }
  g_test_add_func ("/docker/tar/validate/as-foundation/happy",
                   test_validate_happy_as_foundation);
  g_test_add_func ("/docker/tar/validate/keep-links", test_validate_keep_links);
  g_test_add_func ("/docker/tar/validate/limit-values",
                   test_validate_limit_values);
  g_test_add_func ("/docker/tar/validate/gzip-bomb", test_validate_gzip_bomb);
  g_test_add_func ("/docker/tar/validate/partial-output",
                   test_validate_partial_output);
  g_test_add_func ("/docker/tar/validate/unsafe-message",
                   test_validate_unsafe_message);
  g_test_add_func ("/docker/tar/validate/stream-errors",
                   test_validate_stream_errors);

  g_test_add_func ("/docker/tar/list-symlinks/prefixed", test_list_symlinks);
  g_test_add_func ("/docker/tar/list-symlinks/relative",
                   test_list_symlinks_relative);

  g_test_add_func ("/docker/tar/single-file/sizes", test_single_file_sizes);
  g_test_add_func ("/docker/tar/single-file/long-name",
                   test_single_file_long_name);
  g_test_add_func ("/docker/tar/single-file/size-mismatch",
                   test_single_file_size_mismatch);

  g_test_add_func ("/docker/tar/open-single-file/file", test_open_single_file);
  g_test_add_func ("/docker/tar/open-single-file/truncated",
                   test_open_single_file_truncated);
  g_test_add_func ("/docker/tar/open-single-file/not-regular",
                   test_open_single_file_not_regular);

  return g_test_run ();
}
