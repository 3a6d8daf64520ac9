/* test-reference-archive.c - reference cases ARC-* (archive extraction
 * through a session) and TAR-* (the workspace tar policy)
 * (../shared/spec/reference-cases.md)
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <archive.h>
#include <archive_entry.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gunixinputstream.h>
#include <glib/gstdio.h>

#include "agents-archive-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-unix-local-client.h"
#include "test-utils.h"

/* ---- archives in memory ------------------------------------------------ */

typedef struct
{
  struct archive *a;
  GByteArray *out;
} Builder;

static la_ssize_t
builder_write (struct archive *a, void *data, const void *buf, size_t len)
{
  g_byte_array_append (((Builder *) data)->out, buf, len);
  return len;
}

static Builder *
builder_new (gboolean zip)
{
  Builder *b = g_new0 (Builder, 1);

  b->out = g_byte_array_new ();
  b->a = archive_write_new ();
  if (zip)
    archive_write_set_format_zip (b->a);
  else
    archive_write_set_format_pax_restricted (b->a);
  archive_write_set_bytes_in_last_block (b->a, 1);
  g_assert_cmpint (archive_write_open (b->a, b, NULL, builder_write, NULL), ==,
                   ARCHIVE_OK);
  return b;
}

static void
builder_add (Builder *b,
             const char *name,
             mode_t type,
             mode_t perm,
             const char *contents,
             const char *link)
{
  struct archive_entry *entry = archive_entry_new ();
  gsize len = contents ? strlen (contents) : 0;

  archive_entry_set_pathname (entry, name);
  archive_entry_set_filetype (entry, type);
  archive_entry_set_perm (entry, perm);
  archive_entry_set_size (entry, len);
  if (type == AE_IFLNK)
    archive_entry_set_symlink (entry, link);
  g_assert_cmpint (archive_write_header (b->a, entry), ==, ARCHIVE_OK);
  if (len > 0)
    g_assert_cmpint (archive_write_data (b->a, contents, len), ==, len);
  archive_entry_free (entry);
}

static void
add_file (Builder *b, const char *name, const char *contents)
{
  builder_add (b, name, AE_IFREG, 0644, contents, NULL);
}

static void
add_symlink (Builder *b, const char *name, const char *target)
{
  builder_add (b, name, AE_IFLNK, 0777, NULL, target);
}

static void
add_dir (Builder *b, const char *name)
{
  builder_add (b, name, AE_IFDIR, 0755, NULL, NULL);
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

/* ---- session S --------------------------------------------------------- */

typedef struct
{
  char *tmp;
  char *ws;
  AgentsSandboxClient *client;
  AgentsSandboxSession *session;
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  g_autoptr (AgentsManifest) manifest = agents_manifest_new ();
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;

  f->tmp = agents_test_make_tmp_dir ("reference-archive-");
  f->ws = g_build_filename (f->tmp, "workspace", NULL);
  g_assert_no_errno (g_mkdir (f->ws, 0755));
  agents_manifest_set_root (manifest, f->ws);
  f->client = agents_unix_local_client_new ();
  agents_sandbox_client_create_async (f->client, manifest, NULL, NULL, NULL,
                                      agents_test_async_cb, &result);
  f->session = agents_sandbox_client_create_finish (
    f->client, agents_test_wait_result (&result), &error);
  g_assert_no_error (error);
  g_clear_object (&result);
  agents_sandbox_session_start_async (f->session, NULL, agents_test_async_cb,
                                      &result);
  g_assert_true (agents_sandbox_session_start_finish (
    f->session, agents_test_wait_result (&result), &error));
  g_assert_no_error (error);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;

  agents_sandbox_client_delete_async (f->client, f->session, NULL,
                                      agents_test_async_cb, &result);
  g_assert_true (agents_sandbox_client_delete_finish (
    f->client, agents_test_wait_result (&result), &error));
  g_clear_object (&f->session);
  g_clear_object (&f->client);
  agents_test_rm_rf (f->tmp);
  g_free (f->tmp);
  g_free (f->ws);
}

static gboolean
extract_stream (Fixture *f,
                const char *path,
                GInputStream *in,
                AgentsCompressionScheme scheme,
                GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  agents_sandbox_session_extract_async (f->session, path, in, scheme, NULL,
                                        agents_test_async_cb, &result);
  return agents_sandbox_session_extract_finish (
    f->session, agents_test_wait_result (&result), error);
}

static gboolean
extract_with_limits (Fixture *f,
                     const char *path,
                     GInputStream *in,
                     AgentsCompressionScheme scheme,
                     const AgentsArchiveLimits *limits,
                     GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  agents_sandbox_session_extract_with_limits_async (
    f->session, path, in, scheme, limits, NULL, agents_test_async_cb, &result);
  return agents_sandbox_session_extract_finish (
    f->session, agents_test_wait_result (&result), error);
}

static gboolean
extract (Fixture *f, const char *path, GBytes *archive, GError **error)
{
  g_autoptr (GInputStream) in = g_memory_input_stream_new_from_bytes (archive);

  return extract_stream (f, path, in,
                         g_str_has_suffix (path, ".zip")
                           ? AGENTS_COMPRESSION_SCHEME_ZIP
                           : AGENTS_COMPRESSION_SCHEME_TAR,
                         error);
}

static gboolean
ws_exists (Fixture *f, const char *rel)
{
  g_autofree char *path = g_build_filename (f->ws, rel, NULL);

  return g_file_test (path, G_FILE_TEST_EXISTS | G_FILE_TEST_IS_SYMLINK);
}

static void
assert_ws_file (Fixture *f, const char *rel, const char *contents)
{
  g_autofree char *path = g_build_filename (f->ws, rel, NULL);
  g_autofree char *text = agents_test_read_file (path);

  g_assert_cmpstr (text, ==, contents);
}

static void
remove_ws_file (Fixture *f, const char *rel)
{
  g_autofree char *path = g_build_filename (f->ws, rel, NULL);

  g_assert_no_errno (g_unlink (path));
}

static void
assert_context_int (const GError *error, const char *key, gint64 value)
{
  g_autoptr (GVariant) ctx = agents_sandbox_error_get_context (error);
  gint64 actual = -1;

  g_assert_true (g_variant_lookup (ctx, key, "x", &actual));
  g_assert_cmpint (actual, ==, value);
}

/* WorkspaceArchiveWrite for the archive at @rel, with {member, reason}. */
static void
assert_archive_write (Fixture *f,
                      const GError *error,
                      const char *rel,
                      const char *member,
                      const char *reason)
{
  g_autofree char *path = g_build_filename (f->ws, rel, NULL);
  g_autofree char *message =
    g_strdup_printf ("failed to write archive for path: %s", path);

  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE);
  g_assert_cmpstr (error->message, ==, message);
  agents_test_assert_context_str (error, "path", path);
  if (member != NULL)
    agents_test_assert_context_str (error, "member", member);
  agents_test_assert_context_str (error, "reason", reason);
}

static void
set_limits (Fixture *f, gint64 input, gint64 extracted, gint64 members)
{
  g_autoptr (AgentsArchiveLimits) limits =
    agents_archive_limits_new_full (input, extracted, members);

  agents_sandbox_session_set_archive_limits (f->session, limits);
}

static GBytes *
one_two (gboolean zip)
{
  Builder *b = builder_new (zip);

  add_file (b, "one.txt", "1");
  add_file (b, "two.txt", "2");
  return builder_finish (b);
}

/* ---- ARC --------------------------------------------------------------- */

static void
test_arc_02 (Fixture *f, gconstpointer data)
{
  g_autoptr (GBytes) tar = one_two (FALSE);
  g_autoptr (GError) error = NULL;

  g_assert_true (extract (f, "bundle.tar", tar, &error));
  g_assert_no_error (error);
  assert_ws_file (f, "one.txt", "1");
  assert_ws_file (f, "two.txt", "2");
}

static void
test_arc_04 (void)
{
  static const struct
  {
    gint64 input, extracted, members;
    const char *message;
  } cases[] = {
    { 0, 1, 1, "archive_limits.max_input_bytes must be at least 1" },
    { -1, 1, 1, "archive_limits.max_input_bytes must be at least 1" },
    { 1, 0, 1, "archive_limits.max_extracted_bytes must be at least 1" },
    { 1, -1, 1, "archive_limits.max_extracted_bytes must be at least 1" },
    { 1, 1, 0, "archive_limits.max_members must be at least 1" },
    { 1, 1, -1, "archive_limits.max_members must be at least 1" },
    { 0, 0, 0, "archive_limits.max_input_bytes must be at least 1" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (AgentsArchiveLimits) limits = agents_archive_limits_new_full (
        cases[i].input, cases[i].extracted, cases[i].members);
      g_autoptr (GError) error = NULL;

      g_assert_false (agents_archive_limits_validate (limits, &error));
      g_assert_error (error, AGENTS_SANDBOX_ERROR,
                      AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
      g_assert_cmpstr (error->message, ==, cases[i].message);
    }
}

static void
test_arc_06 (Fixture *f, gconstpointer data)
{
  static const struct
  {
    const char *path;
    const char *scheme;
  } bad[] = {
    { "bundle.rar", "rar" },
    { "bundle.tar.gz", "gz" }, /* only the last suffix counts */
  };
  g_autoptr (GBytes) tar = one_two (FALSE);
  g_autoptr (GBytes) zip = one_two (TRUE);

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GInputStream) in = g_memory_input_stream_new_from_bytes (tar);
      g_autoptr (GError) error = NULL;

      g_assert_false (extract_stream (
        f, bad[i].path, in, AGENTS_COMPRESSION_SCHEME_FROM_SUFFIX, &error));
      g_assert_error (error, AGENTS_SANDBOX_ERROR,
                      AGENTS_SANDBOX_ERROR_INVALID_COMPRESSION_SCHEME);
      g_assert_cmpstr (error->message, ==,
                       "compression scheme must be one of 'zip' 'tar'");
      agents_test_assert_context_str (error, "scheme", bad[i].scheme);
      g_assert_false (ws_exists (f, bad[i].path));
      g_assert_false (ws_exists (f, "one.txt"));
    }

  /* The suffix says the scheme... */
  {
    g_autoptr (GInputStream) in = g_memory_input_stream_new_from_bytes (zip);
    g_autoptr (GError) error = NULL;

    g_assert_true (extract_stream (
      f, "bundle.zip", in, AGENTS_COMPRESSION_SCHEME_FROM_SUFFIX, &error));
    g_assert_no_error (error);
    assert_ws_file (f, "two.txt", "2");
    remove_ws_file (f, "one.txt");
    remove_ws_file (f, "two.txt");
  }
  /* ...unless one is given. */
  {
    g_autoptr (GInputStream) in = g_memory_input_stream_new_from_bytes (tar);
    g_autoptr (GError) error = NULL;

    g_assert_true (extract_stream (f, "bundle.rar", in,
                                   AGENTS_COMPRESSION_SCHEME_TAR, &error));
    g_assert_no_error (error);
    assert_ws_file (f, "one.txt", "1");
  }
}

/* A pipe: a stream that cannot seek, written beforehand. */
static GInputStream *
pipe_stream (const char *first, const char *second)
{
  int fds[2];

  g_assert_no_errno (pipe (fds));
  g_assert_cmpint (write (fds[1], first, strlen (first)), ==, strlen (first));
  g_assert_cmpint (write (fds[1], second, strlen (second)), ==,
                   strlen (second));
  close (fds[1]);
  return g_unix_input_stream_new (fds[0], TRUE);
}

static void
test_arc_08 (Fixture *f, gconstpointer data)
{
  g_autoptr (GInputStream) in = pipe_stream ("123", "45");
  g_autoptr (GError) error = NULL;

  g_autoptr (AgentsArchiveLimits) limits =
    agents_archive_limits_new_full (4, G_MAXINT64, G_MAXINT64);

  g_assert_false (extract_with_limits (
    f, "bundle.zip", in, AGENTS_COMPRESSION_SCHEME_ZIP, limits, &error));
  assert_archive_write (f, error, "bundle.zip", NULL,
                        "archive input size exceeds limit");
  assert_context_int (error, "limit", 4);
  assert_context_int (error, "actual", 5);
  g_assert_false (ws_exists (f, "bundle.zip"));
}

static void
test_arc_10 (Fixture *f, gconstpointer data)
{
  set_limits (f, G_MAXINT64, G_MAXINT64, 1);
  for (int zip = 0; zip <= 1; zip++)
    {
      g_autoptr (GBytes) archive = one_two (zip);
      g_autoptr (GError) error = NULL;
      const char *name = zip ? "bundle.zip" : "bundle.tar";

      g_assert_false (extract (f, name, archive, &error));
      assert_archive_write (f, error, name, "two.txt",
                            "archive member count exceeds limit");
      assert_context_int (error, "limit", 1);
      assert_context_int (error, "actual", 2);
      g_assert_false (ws_exists (f, "one.txt"));
      g_assert_false (ws_exists (f, "two.txt"));
    }
}

static void
test_arc_12 (Fixture *f, gconstpointer data)
{
  g_autoptr (GBytes) tar = one_two (FALSE);
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsArchiveLimits) two =
    agents_archive_limits_new_full (G_MAXINT64, G_MAXINT64, 2);
  g_autoptr (GInputStream) in = g_memory_input_stream_new_from_bytes (tar);
  g_autofree char *one_path = g_build_filename (f->ws, "one.txt", NULL);
  g_autofree char *two_path = g_build_filename (f->ws, "two.txt", NULL);

  set_limits (f, G_MAXINT64, G_MAXINT64, 1);
  /* (a) per-call limits win over the session's */
  g_assert_true (extract_with_limits (
    f, "bundle.tar", in, AGENTS_COMPRESSION_SCHEME_TAR, two, &error));
  g_assert_no_error (error);
  assert_ws_file (f, "one.txt", "1");
  assert_ws_file (f, "two.txt", "2");
  g_assert_no_errno (g_unlink (one_path));
  g_assert_no_errno (g_unlink (two_path));

  /* (b) otherwise the session's apply */
  g_assert_false (extract (f, "bundle.tar", tar, &error));
  assert_archive_write (f, error, "bundle.tar", "two.txt",
                        "archive member count exceeds limit");
  assert_context_int (error, "limit", 1);
  assert_context_int (error, "actual", 2);
  g_assert_false (ws_exists (f, "one.txt"));
}

static void
test_arc_14 (Fixture *f, gconstpointer data)
{
  g_autoptr (GBytes) tar = NULL;
  g_autoptr (GError) error = NULL;
  Builder *b = builder_new (FALSE);

  add_file (b, "one.txt", "1");
  tar = builder_finish (b);
  g_autoptr (AgentsArchiveLimits) limits =
    agents_archive_limits_new_full (1, G_MAXINT64, G_MAXINT64);
  g_autoptr (GInputStream) in = NULL;

  /* Valid when built, made invalid afterwards: refused at extract time. */
  g_assert_true (agents_archive_limits_validate (limits, NULL));
  limits->max_input_bytes = 0;
  in = g_memory_input_stream_new_from_bytes (tar);
  g_assert_false (extract_with_limits (
    f, "bundle.tar", in, AGENTS_COMPRESSION_SCHEME_TAR, limits, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==,
                   "archive_limits.max_input_bytes must be at least 1");
  g_assert_false (ws_exists (f, "one.txt"));
  g_assert_false (ws_exists (f, "bundle.tar"));
}

static void
test_arc_16 (Fixture *f, gconstpointer data)
{
  g_autofree char *outside = g_build_filename (f->tmp, "outside", NULL);
  g_autofree char *link = g_build_filename (f->ws, "link", NULL);
  g_autofree char *leaked = g_build_filename (outside, "hello.txt", NULL);
  g_autoptr (GBytes) tar = NULL;
  g_autoptr (GError) error = NULL;
  Builder *b = builder_new (FALSE);

  g_assert_no_errno (g_mkdir (outside, 0755));
  g_assert_no_errno (symlink (outside, link));
  add_file (b, "link/hello.txt", "hello");
  tar = builder_finish (b);

  g_assert_false (extract (f, "bundle.tar", tar, &error));
  g_assert_false (g_file_test (leaked, G_FILE_TEST_EXISTS));
  assert_archive_write (f, error, "bundle.tar", "link/hello.txt",
                        "symlink in parent path: link");
}

static void
test_arc_18 (Fixture *f, gconstpointer data)
{
  static const struct
  {
    gboolean zip;
    const char *member;
    const char *reason;
  } cases[] = {
    { FALSE, "C:/tmp/evil.txt", "windows drive path" },
    { TRUE, "C:\\tmp\\evil.txt", "windows drive path" },
    { FALSE, "..\\evil.txt", "windows path separator" },
    { TRUE, "\\evil.txt", "windows path separator" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *name = cases[i].zip ? "bundle.zip" : "bundle.tar";
      g_autoptr (GBytes) archive = NULL;
      g_autoptr (GError) error = NULL;
      Builder *b = builder_new (cases[i].zip);

      g_test_message ("member %s", cases[i].member);
      add_file (b, cases[i].member, "evil");
      archive = builder_finish (b);
      g_assert_false (extract (f, name, archive, &error));
      g_assert_false (ws_exists (f, name));
      assert_archive_write (f, error, name, cases[i].member, cases[i].reason);
    }
}

static void
test_arc_20 (Fixture *f, gconstpointer data)
{
  g_autoptr (GBytes) zip = NULL;
  g_autoptr (GError) error = NULL;
  Builder *b = builder_new (TRUE);

  add_file (b, "nested", "not a directory");
  add_file (b, "nested/file.txt", "under a file");
  zip = builder_finish (b);
  g_assert_false (extract (f, "bundle.zip", zip, &error));
  /* The reason text of the reference is not in the case list: ours. */
  assert_archive_write (f, error, "bundle.zip", "nested/file.txt",
                        "parent path is not a directory: nested");
  g_assert_false (ws_exists (f, "nested"));
}

static void
test_arc_22 (Fixture *f, gconstpointer data)
{
  static const struct
  {
    const char *first;
    const char *second;
    gboolean link;
    const char *member;
    const char *reason;
  } cases[] = {
    { "link", NULL, TRUE, "link", "link member not allowed" },
    { "/etc/x", NULL, FALSE, "/etc/x", "absolute path" },
    { "../x", NULL, FALSE, "../x", "parent traversal" },
    { "a.txt", "a.txt", FALSE, "a.txt", "duplicate archive path: a.txt" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GBytes) zip = NULL;
      g_autoptr (GError) error = NULL;
      Builder *b = builder_new (TRUE);

      g_test_message ("member %s", cases[i].member);
      if (cases[i].link)
        add_symlink (b, cases[i].first, "target.txt");
      else
        add_file (b, cases[i].first, "x");
      if (cases[i].second != NULL)
        add_file (b, cases[i].second, "y");
      zip = builder_finish (b);
      g_assert_false (extract (f, "bundle.zip", zip, &error));
      assert_archive_write (f, error, "bundle.zip", cases[i].member,
                            cases[i].reason);
      g_assert_false (ws_exists (f, "link"));
      g_assert_false (ws_exists (f, "a.txt"));
    }
}

/* A tar member path given twice ("a.txt", "./a.txt") in a user's extract;
 * the TAR-16 rule as the extract applies it. */
static void
test_arc_duplicate_tar (Fixture *f, gconstpointer data)
{
  g_autoptr (GBytes) tar = NULL;
  g_autoptr (GError) error = NULL;
  Builder *b = builder_new (FALSE);

  add_dir (b, "d/");
  add_dir (b, "d/");
  add_file (b, "a.txt", "1");
  add_file (b, "./a.txt", "2");
  tar = builder_finish (b);
  g_assert_false (extract (f, "bundle.tar", tar, &error));
  assert_archive_write (f, error, "bundle.tar", "./a.txt",
                        "duplicate archive path: a.txt");
  g_assert_false (ws_exists (f, "a.txt"));
}

/* The member names of @tar, one a line, read with the library's reader;
 * without the slash that ends a directory's name, as the reference's
 * tarfile shows them. */
static char *
list_names (GBytes *tar)
{
  g_autoptr (GInputStream) in = g_memory_input_stream_new_from_bytes (tar);
  g_autoptr (AgentsArchiveReader) reader =
    agents_archive_reader_new (in, AGENTS_COMPRESSION_SCHEME_TAR, NULL);
  g_autoptr (GString) names = g_string_new (NULL);
  g_autoptr (GError) error = NULL;

  for (;;)
    {
      g_autoptr (AgentsArchiveMember) m = NULL;

      g_assert_true (agents_archive_reader_next (reader, &m, NULL, &error));
      g_assert_no_error (error);
      if (m == NULL)
        return g_string_free (g_steal_pointer (&names), FALSE);
      while (strlen (m->name) > 1 && g_str_has_suffix (m->name, "/"))
        m->name[strlen (m->name) - 1] = '\0';
      g_string_append_printf (names, "%s\n", m->name);
    }
}

/* ---- TAR --------------------------------------------------------------
 * V, strict: agents_archive_extract_to_directory() (links must stay
 * inside); V and X, not strict: the snapshot extractor, which keeps links
 * (agents_archive_extract_snapshot_to_directory_async()). These report
 * UnsafeArchiveMember with the stable reason code; the reference's texts
 * are what a session's extract reports (ARC-*). */

static char *
new_root (void)
{
  return agents_test_make_tmp_dir ("reference-tar-");
}

static gboolean
v_strict (GBytes *tar, const char *root, GError **error)
{
  g_autoptr (GInputStream) in = g_memory_input_stream_new_from_bytes (tar);

  return agents_archive_extract_to_directory (
    in, root, AGENTS_COMPRESSION_SCHEME_TAR, NULL, NULL, error);
}

static gboolean
x_restore (GBytes *tar, const char *root, GError **error)
{
  g_autoptr (GInputStream) in = g_memory_input_stream_new_from_bytes (tar);
  g_autoptr (GAsyncResult) result = NULL;

  agents_archive_extract_snapshot_to_directory_async (
    in, root, NULL, NULL, agents_test_async_cb, &result);
  return agents_archive_extract_to_directory_finish (
    agents_test_wait_result (&result), error);
}

static gboolean
x_user (GBytes *tar, const char *root, GError **error)
{
  g_autoptr (GInputStream) in = g_memory_input_stream_new_from_bytes (tar);

  return agents_archive_extract_user (
    in, root, root, AGENTS_COMPRESSION_SCHEME_TAR, NULL, NULL, error);
}

/* V over a stream (agents_archive_validate_copy()), as the docker plugin
 * validates what the engine will extract; the accepted members, when
 * @names is not NULL, are listed there one a line. */
static gboolean
v_stream (GBytes *tar,
          AgentsArchivePolicy *policy,
          char **names,
          GError **error)
{
  g_autoptr (GInputStream) in = g_memory_input_stream_new_from_bytes (tar);
  g_autoptr (GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr (GBytes) copy = NULL;

  if (!agents_archive_validate_copy (in, policy, NULL, out, NULL, error))
    return FALSE;
  g_assert_true (g_output_stream_close (out, NULL, NULL));
  copy = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (out));
  if (names != NULL)
    *names = list_names (copy);
  return TRUE;
}

static void
assert_unsafe (const GError *error, const char *member, const char *code)
{
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_UNSAFE_ARCHIVE_MEMBER);
  agents_test_assert_context_str (error, "member", member);
  agents_test_assert_context_str (error, "reason", code);
}

static guint
count_children (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;

  g_assert_nonnull (d);
  while (g_dir_read_name (d) != NULL)
    n++;
  return n;
}

static GBytes *
one_symlink (const char *name, const char *target)
{
  Builder *b = builder_new (FALSE);

  add_symlink (b, name, target);
  return builder_finish (b);
}

static GBytes *
one_file (const char *name, const char *contents, mode_t mode)
{
  Builder *b = builder_new (FALSE);

  builder_add (b, name, AE_IFREG, mode, contents, NULL);
  return builder_finish (b);
}

static char *
read_link_at (const char *root, const char *rel)
{
  g_autofree char *path = g_build_filename (root, rel, NULL);

  return g_file_read_link (path, NULL);
}

static void
test_tar_02 (void)
{
  g_autofree char *root = new_root ();
  g_autoptr (GBytes) tar = one_symlink ("link.txt", "target.txt");
  g_autoptr (GError) error = NULL;
  g_autofree char *target = NULL;

  g_assert_false (x_user (tar, root, &error));
  assert_unsafe (error, "link.txt", "link_member");
  g_assert_cmpuint (count_children (root), ==, 0);

  g_assert_true (x_restore (tar, root, NULL));
  target = read_link_at (root, "link.txt");
  g_assert_cmpstr (target, ==, "target.txt");
  agents_test_rm_rf (root);
}

static void
test_tar_04 (void)
{
  static const struct
  {
    const char *member;
    const char *code;
  } cases[] = {
    { "C:/tmp/evil.txt", "windows_drive_path" },
    { "C:\\tmp\\evil.txt", "windows_drive_path" },
    { "..\\evil.txt", "windows_path_separator" },
    { "\\evil.txt", "windows_path_separator" },
    { "nested\\evil.txt", "windows_path_separator" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *root = new_root ();
      g_autoptr (GBytes) tar = one_file (cases[i].member, "evil", 0644);
      g_autoptr (GError) error = NULL;

      g_test_message ("member %s", cases[i].member);
      g_assert_false (v_strict (tar, root, &error));
      assert_unsafe (error, cases[i].member, cases[i].code);
      g_clear_error (&error);
      g_assert_false (x_restore (tar, root, &error));
      assert_unsafe (error, cases[i].member, cases[i].code);
      g_assert_cmpuint (count_children (root), ==, 0);
      agents_test_rm_rf (root);
    }
}

static void
test_tar_06 (void)
{
  g_autofree char *root = new_root ();
  g_autoptr (GBytes) tar = one_symlink ("leak", "/etc/passwd");
  g_autoptr (GError) error = NULL;

  g_assert_false (v_strict (tar, root, &error));
  assert_unsafe (error, "leak", "symlink_escape");
  g_assert_cmpuint (count_children (root), ==, 0);
  agents_test_rm_rf (root);
}

static void
test_tar_08 (void)
{
  g_autofree char *root = new_root ();
  g_autoptr (GBytes) tar = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *python = NULL;
  g_autofree char *leak = NULL;
  Builder *b = builder_new (FALSE);

  add_dir (b, "nested/");
  add_symlink (b, "nested/python", "../bin/python3");
  add_symlink (b, "leak", ".");
  tar = builder_finish (b);
  g_assert_true (v_strict (tar, root, &error));
  g_assert_no_error (error);
  python = read_link_at (root, "nested/python");
  leak = read_link_at (root, "leak");
  g_assert_cmpstr (python, ==, "../bin/python3");
  g_assert_cmpstr (leak, ==, ".");
  agents_test_rm_rf (root);
}

static void
test_tar_10 (void)
{
  g_autofree char *root = new_root ();
  g_autoptr (GBytes) file = one_file ("link.txt", "not a link", 0644);
  g_autoptr (GBytes) link = one_symlink ("link.txt", "target.txt");
  g_autoptr (GBytes) python_link =
    one_symlink ("python", "/usr/local/bin/python3");
  g_autoptr (GBytes) python_file = one_file ("python", "real file", 0644);
  g_autoptr (GError) error = NULL;
  g_autofree char *target = NULL;
  g_autofree char *python = g_build_filename (root, "python", NULL);
  g_autofree char *text = NULL;

  g_assert_true (x_restore (file, root, &error));
  g_assert_true (x_restore (link, root, &error));
  g_assert_no_error (error);
  target = read_link_at (root, "link.txt");
  g_assert_cmpstr (target, ==, "target.txt");

  g_assert_true (x_restore (python_link, root, &error));
  g_assert_true (x_restore (python_file, root, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (python, G_FILE_TEST_IS_SYMLINK));
  text = agents_test_read_file (python);
  g_assert_cmpstr (text, ==, "real file");
  agents_test_rm_rf (root);
}

static void
test_tar_12 (void)
{
  g_autofree char *root = new_root ();
  g_autofree char *dir = g_build_filename (root, "link.txt", NULL);
  g_autoptr (GBytes) tar = one_symlink ("link.txt", "target.txt");
  g_autoptr (GError) error = NULL;

  g_assert_no_errno (g_mkdir (dir, 0755));
  g_assert_false (x_restore (tar, root, &error));
  assert_unsafe (error, "link.txt", "destination_is_directory");
  agents_test_assert_context_str (error, "detail", "link.txt");
  g_assert_true (g_file_test (dir, G_FILE_TEST_IS_DIR));
  g_assert_false (g_file_test (dir, G_FILE_TEST_IS_SYMLINK));
  agents_test_rm_rf (root);
}

static void
test_tar_14 (void)
{
  g_autofree char *tmp = new_root ();
  g_autofree char *root = g_build_filename (tmp, "root", NULL);
  g_autofree char *outside = g_build_filename (tmp, "outside", NULL);
  g_autofree char *escape = g_build_filename (root, "escape", NULL);
  g_autofree char *pwned = g_build_filename (outside, "pwned.txt", NULL);
  g_autofree char *nested = g_build_filename (outside, "nested", NULL);
  g_autoptr (GBytes) file = one_file ("escape/pwned.txt", "pwned", 0644);
  g_autoptr (GBytes) link =
    one_symlink ("escape/nested/link.txt", "target.txt");
  g_autoptr (GError) error = NULL;

  g_assert_no_errno (g_mkdir (root, 0755));
  g_assert_no_errno (g_mkdir (outside, 0755));
  g_assert_no_errno (symlink (outside, escape));

  g_assert_false (x_restore (file, root, &error));
  assert_unsafe (error, "escape/pwned.txt", "symlink_escape");
  g_clear_error (&error);
  g_assert_false (x_restore (link, root, &error));
  assert_unsafe (error, "escape/nested/link.txt", "symlink_escape");
  g_assert_false (g_file_test (pwned, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (nested, G_FILE_TEST_EXISTS));
  agents_test_rm_rf (tmp);
}

static void
test_tar_16 (void)
{
  g_autofree char *root = new_root ();
  g_autoptr (GBytes) tar = NULL;
  g_autoptr (GBytes) dirs = NULL;
  g_autoptr (GError) error = NULL;
  Builder *b = builder_new (FALSE);

  add_file (b, "a.txt", "1");
  add_file (b, "./a.txt", "2");
  tar = builder_finish (b);
  b = builder_new (FALSE);
  add_dir (b, "d/");
  add_dir (b, "d/");
  dirs = builder_finish (b);

  /* A user's extract applies the rule (also ARC-22/tar-duplicate). */
  g_assert_false (x_user (tar, root, &error));
  assert_unsafe (error, "./a.txt", "duplicate_path");
  agents_test_assert_context_str (error, "detail", "a.txt");
  g_clear_error (&error);
  g_assert_true (x_user (dirs, root, &error));
  g_assert_no_error (error);
  g_assert_true (v_strict (dirs, root, &error));
  g_assert_no_error (error);

  /* The validator shared by the extractor, snapshots, hydrate and the
   * docker plugin applies it too. */
  g_assert_false (v_strict (tar, root, &error));
  assert_unsafe (error, "./a.txt", "duplicate_path");
  agents_test_assert_context_str (error, "detail", "a.txt");
  g_clear_error (&error);
  g_assert_false (x_restore (tar, root, &error));
  assert_unsafe (error, "./a.txt", "duplicate_path");
  g_clear_error (&error);
  g_assert_true (x_restore (dirs, root, &error));
  g_assert_no_error (error);
  g_assert_false (v_stream (tar, NULL, NULL, &error));
  assert_unsafe (error, "./a.txt", "duplicate_path");
  agents_test_assert_context_str (error, "detail", "a.txt");
  g_clear_error (&error);
  g_assert_true (v_stream (dirs, NULL, NULL, &error));
  g_assert_no_error (error);
  agents_test_rm_rf (root);
}

static void
test_tar_18 (void)
{
  static const mode_t modes[][2] = {
    { 0755, 0755 },  { 0644, 0644 },  { 0600, 0600 },  { 0700, 0700 },
    { 0444, 0644 },  { 0000, 0600 },  { 0777, 0755 },  { 0655, 0644 },
    { 04755, 0755 }, { 02755, 0755 }, { 01755, 0755 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
    {
      g_autofree char *root = new_root ();
      g_autofree char *path = g_build_filename (root, "run.sh", NULL);
      g_autoptr (GBytes) tar = one_file ("run.sh", "echo\n", modes[i][0]);
      g_autoptr (GError) error = NULL;
      struct stat st;

      g_assert_true (x_restore (tar, root, &error));
      g_assert_no_error (error);
      g_assert_no_errno (lstat (path, &st));
      g_test_message ("mode %04o", modes[i][0]);
      g_assert_cmpint (st.st_mode & 07777, ==, modes[i][1]);
      agents_test_rm_rf (root);
    }
}

static void
test_tar_20 (void)
{
  g_autofree char *root = new_root ();
  g_autofree char *path = g_build_filename (root, "run.sh", NULL);
  g_autoptr (GBytes) v1 = one_file ("run.sh", "v1\n", 0644);
  g_autoptr (GBytes) v2 = one_file ("run.sh", "v2\n", 0755);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  struct stat st;

  g_assert_true (x_restore (v1, root, &error));
  g_assert_true (x_restore (v2, root, &error));
  g_assert_no_error (error);
  text = agents_test_read_file (path);
  g_assert_cmpstr (text, ==, "v2\n");
  g_assert_no_errno (lstat (path, &st));
  g_assert_cmpint (st.st_mode & 07777, ==, 0755);
  agents_test_rm_rf (root);
}

static void
test_tar_22 (void)
{
  g_autoptr (GBytes) a = one_symlink ("workspace", "/tmp/outside");
  g_autoptr (GBytes) b = one_symlink ("./workspace", "/tmp/outside");
  g_autoptr (GBytes) c = NULL;
  g_autoptr (GBytes) d = one_symlink (".runtime/escape", "/tmp/outside");
  g_autoptr (AgentsArchivePolicy) policy = agents_archive_policy_new ();
  g_autoptr (AgentsArchivePolicy) strict = agents_archive_policy_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *names = NULL;
  Builder *builder = builder_new (FALSE);

  add_dir (builder, "workspace/");
  add_symlink (builder, "workspace/link", "target.txt");
  c = builder_finish (builder);
  /* V, not strict: links may point anywhere but where the policy says. */
  agents_archive_policy_set_keep_links (policy, TRUE);
  agents_archive_policy_reject_symlink_at (policy, "workspace");
  agents_archive_policy_skip_path (policy, "./.runtime");

  /* (a), (b) */
  g_assert_false (v_stream (a, policy, NULL, &error));
  assert_unsafe (error, "workspace", "symlink_member");
  agents_test_assert_context_str (error, "detail", "workspace");
  g_clear_error (&error);
  g_assert_false (v_stream (b, policy, NULL, &error));
  assert_unsafe (error, "./workspace", "symlink_member");
  agents_test_assert_context_str (error, "detail", "workspace");
  g_clear_error (&error);
  /* without the option the same link is accepted */
  agents_archive_policy_set_keep_links (strict, TRUE);
  g_assert_true (v_stream (a, strict, NULL, &error));
  g_assert_no_error (error);

  /* (c) children of the path are not concerned */
  g_assert_true (v_stream (c, policy, &names, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (names, ==, "workspace\nworkspace/link\n");
  g_clear_pointer (&names, g_free);

  /* (d) a skipped subtree is not validated (nor passed on), even where
   * links must stay inside */
  agents_archive_policy_set_keep_links (policy, FALSE);
  g_assert_true (v_stream (d, policy, &names, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (names, ==, "");
  agents_archive_policy_set_keep_links (strict, FALSE);
  g_assert_false (v_stream (d, strict, NULL, &error));
  assert_unsafe (error, ".runtime/escape", "symlink_escape");
}

static gboolean
strip (GBytes *tar, const char *prefix, GBytes **out, GError **error)
{
  g_autoptr (GInputStream) in = g_memory_input_stream_new_from_bytes (tar);
  g_autoptr (GOutputStream) mem = g_memory_output_stream_new_resizable ();

  if (!agents_archive_strip_prefix (
        in, prefix, NULL, AGENTS_ARCHIVE_STRIP_KEEP_ROOT, mem, NULL, error))
    return FALSE;
  g_assert_true (g_output_stream_close (mem, NULL, NULL));
  *out = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (mem));
  return TRUE;
}

static void
test_tar_24 (void)
{
  g_autofree char *long_name = g_strnfill (120, 'a');
  g_autofree char *long_file = g_strconcat (long_name, ".txt", NULL);
  g_autofree char *long_member = g_strconcat ("workspace/", long_file, NULL);
  g_autofree char *pax_record = g_strconcat ("path=", long_file, "\n", NULL);
  g_autofree char *expected = g_strconcat (long_file, "\n", NULL);
  g_autoptr (GBytes) a = NULL;
  g_autoptr (GBytes) b = NULL;
  g_autoptr (GBytes) outside = NULL;
  g_autoptr (GBytes) out = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *names = NULL;
  Builder *builder = builder_new (FALSE);

  add_dir (builder, "workspace");
  add_dir (builder, "workspace/pkg");
  add_file (builder, "workspace/pkg/main.py", "print()\n");
  add_symlink (builder, "workspace/pkg/python", "python3");
  a = builder_finish (builder);
  builder = builder_new (FALSE);
  add_file (builder, long_member, "long");
  b = builder_finish (builder);
  builder = builder_new (FALSE);
  add_dir (builder, "workspace");
  add_file (builder, "other/x.txt", "x");
  outside = builder_finish (builder);

  /* (a) */
  g_assert_true (strip (a, "workspace", &out, &error));
  g_assert_no_error (error);
  names = list_names (out);
  g_assert_cmpstr (names, ==, ".\npkg\npkg/main.py\npkg/python\n");
  g_clear_pointer (&out, g_bytes_unref);
  g_clear_pointer (&names, g_free);

  /* (b) the long name is written again in a PAX path record */
  g_assert_true (strip (b, "workspace", &out, &error));
  g_assert_no_error (error);
  names = list_names (out);
  g_assert_cmpstr (names, ==, expected);
  g_assert_nonnull (memmem (g_bytes_get_data (out, NULL),
                            g_bytes_get_size (out), pax_record,
                            strlen (pax_record)));

  /* a member outside the prefix; no prefix at all */
  g_assert_false (strip (outside, "workspace", &out, &error));
  assert_unsafe (error, "other/x.txt", "outside_root");
  agents_test_assert_context_str (error, "detail", "workspace");
  g_clear_error (&error);
  g_assert_false (strip (a, "", &out, &error));
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==, "tar member prefix must not be empty");
}

#define ADD_ARC(id, fn)                                                 \
  g_test_add ("/reference-cases/" id, Fixture, NULL, fixture_setup, fn, \
              fixture_teardown)

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  ADD_ARC ("ARC-02", test_arc_02);
  g_test_add_func ("/reference-cases/ARC-04", test_arc_04);
  ADD_ARC ("ARC-06", test_arc_06);
  ADD_ARC ("ARC-08", test_arc_08);
  ADD_ARC ("ARC-10", test_arc_10);
  ADD_ARC ("ARC-12", test_arc_12);
  ADD_ARC ("ARC-14", test_arc_14);
  ADD_ARC ("ARC-16", test_arc_16);
  ADD_ARC ("ARC-18", test_arc_18);
  ADD_ARC ("ARC-20", test_arc_20);
  ADD_ARC ("ARC-22", test_arc_22);
  ADD_ARC ("ARC-22/tar-duplicate", test_arc_duplicate_tar);
  g_test_add_func ("/reference-cases/TAR-02", test_tar_02);
  g_test_add_func ("/reference-cases/TAR-04", test_tar_04);
  g_test_add_func ("/reference-cases/TAR-06", test_tar_06);
  g_test_add_func ("/reference-cases/TAR-08", test_tar_08);
  g_test_add_func ("/reference-cases/TAR-10", test_tar_10);
  g_test_add_func ("/reference-cases/TAR-12", test_tar_12);
  g_test_add_func ("/reference-cases/TAR-14", test_tar_14);
  g_test_add_func ("/reference-cases/TAR-16", test_tar_16);
  g_test_add_func ("/reference-cases/TAR-18", test_tar_18);
  g_test_add_func ("/reference-cases/TAR-20", test_tar_20);
  g_test_add_func ("/reference-cases/TAR-22", test_tar_22);
  g_test_add_func ("/reference-cases/TAR-24", test_tar_24);

  return g_test_run ();
}
