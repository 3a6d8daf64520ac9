/* agents-entry-local.c - entries copied from the host: local files and
 * directories, read without ever following a symbolic link
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gunixinputstream.h>
#include <glib/gi18n-lib.h>

#include "agents-entry-apply-private.h"
#include "agents-json-private.h"
#include "agents-manifest-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-sandbox-session.h"

/* ---- local sources: confinement and reading without symlinks -------- */

struct _AgentsLocalSource
{
  char *src; /* as written in the entry */
  char *walk_base;
  char *walk_rel;
  gboolean is_dir; /* local_dir (vs local_file) */
  int code;        /* the error code of read failures */
  int fd;          /* the opened directory, until taken */
};

static AgentsLocalSource *
local_source_new (const char *src, gboolean is_dir)
{
  AgentsLocalSource *source = g_new0 (AgentsLocalSource, 1);

  source->src = g_strdup (src);
  source->is_dir = is_dir;
  source->code = is_dir ? AGENTS_SANDBOX_ERROR_LOCAL_DIR_READ
                        : AGENTS_SANDBOX_ERROR_LOCAL_FILE_READ;
  source->fd = -1;
  return source;
}

AgentsLocalSource *
agents_local_source_new_dir (const char *src,
                             const char *walk_base,
                             const char *walk_rel,
                             int code)
{
  AgentsLocalSource *source = local_source_new (src, TRUE);

  source->walk_base = g_strdup (walk_base);
  source->walk_rel = g_strdup (walk_rel);
  source->code = code;
  return source;
}

void
agents_local_source_free (AgentsLocalSource *source)
{
  if (source->fd >= 0)
    close (source->fd);
  g_free (source->src);
  g_free (source->walk_base);
  g_free (source->walk_rel);
  g_free (source);
}

static const char *
reason_text (const char *reason)
{
  if (g_str_equal (reason, "symlink_not_supported"))
    return _ ("symbolic links are not followed");
  if (g_str_equal (reason, "not_found"))
    return _ ("no such file or directory");
  if (g_str_equal (reason, "not_a_directory"))
    return _ ("not a directory");
  if (g_str_equal (reason, "not_a_file"))
    return _ ("not a regular file");
  if (g_str_equal (reason, "permission_denied"))
    return _ ("permission denied");
  return _ ("cannot be read");
}

/* Sets an error about a local source; @detail defaults to a text for
 * @reason. */
static void
set_source_error_full (GError **error,
                       int code,
                       const char *src,
                       const char *reason,
                       const char *detail,
                       const char *child)
{
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  GVariant *context;

  g_variant_builder_add (&ctx, "{sv}", "src", g_variant_new_string (src));
  g_variant_builder_add (&ctx, "{sv}", "reason", g_variant_new_string (reason));
  /* The path below the source's base that was refused, as the reference
   * names it. */
  if (child != NULL)
    g_variant_builder_add (&ctx, "{sv}", "child", g_variant_new_string (child));
  context = g_variant_builder_end (&ctx);
  if (detail == NULL)
    detail = reason_text (reason);

  switch (code)
    {
    case AGENTS_SANDBOX_ERROR_LOCAL_ARTIFACT_NOT_ALLOWED:
      agents_sandbox_error_set (
        error, code, context,
        _ ("local source is outside the allowed base directory: %s"), src);
      break;
    case AGENTS_SANDBOX_ERROR_LOCAL_DIR_READ:
      agents_sandbox_error_set (error, code, context,
                                _ ("cannot read local directory %s: %s"), src,
                                detail);
      break;
    case AGENTS_SANDBOX_ERROR_GIT_CLONE:
      agents_sandbox_error_set (error, code, context,
                                _ ("cannot copy %s from the git checkout: %s"),
                                src, detail);
      break;
    default:
      agents_sandbox_error_set (
        error, code, context, _ ("cannot read local file %s: %s"), src, detail);
    }
}

/* The reference's LocalDirReadError / LocalFileReadError for a source
 * outside the base directory (and every grant): {src, reason, base_dir}. */
static void
set_outside_base_error (GError **error,
                        gboolean is_dir,
                        const char *src,
                        const char *base_dir)
{
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  g_autofree char *display = g_utf8_make_valid (src, -1);

  g_variant_builder_add (&ctx, "{sv}", "src", g_variant_new_string (display));
  g_variant_builder_add (&ctx, "{sv}", "reason",
                         g_variant_new_string ("outside_base_dir"));
  if (base_dir != NULL)
    {
      g_autofree char *valid = g_utf8_make_valid (base_dir, -1);

      g_variant_builder_add (&ctx, "{sv}", "base_dir",
                             g_variant_new_string (valid));
    }
  if (is_dir)
    agents_sandbox_error_set (
      error, AGENTS_SANDBOX_ERROR_LOCAL_DIR_READ, g_variant_builder_end (&ctx),
      _ ("failed to read local dir artifact: %s"), display);
  else
    agents_sandbox_error_set (
      error, AGENTS_SANDBOX_ERROR_LOCAL_FILE_READ, g_variant_builder_end (&ctx),
      _ ("failed to read local file artifact: %s"), display);
}

static void
set_source_error (GError **error,
                  int code,
                  const char *src,
                  const char *reason,
                  const char *detail)
{
  set_source_error_full (error, code, src, reason, detail, NULL);
}

char **
agents_local_source_dup_grant_paths (AgentsSandboxSession *session)
{
  AgentsManifest *manifest = agents_sandbox_session_get_manifest (session);
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
  GPtrArray *grants;

  if (manifest == NULL)
    return g_strv_builder_end (builder);
  grants = agents_manifest_get_extra_path_grants (manifest);
  /* A grant with a host path lets local sources be read from there. */
  for (guint i = 0; i < grants->len; i++)
    {
      AgentsSandboxPathGrant *grant = grants->pdata[i];
      const char *host_path = agents_sandbox_path_grant_get_host_path (grant);

      g_strv_builder_add (
        builder,
        host_path ? host_path : agents_sandbox_path_grant_get_path (grant));
    }
  return g_strv_builder_end (builder);
}

AgentsLocalSource *
agents_local_source_resolve (const char *src,
                             const char *base_dir,
                             const char *const *grants,
                             gboolean is_dir,
                             GError **error)
{
  g_autoptr (AgentsLocalSource) source = local_source_new (src, is_dir);
  g_autofree char *cwd = g_get_current_dir ();
  g_autofree char *base_abs = NULL;
  g_autofree char *base = NULL;
  g_autofree char *src_abs = NULL;
  g_autofree char *path = NULL;

  base_abs = base_dir == NULL ? g_strdup (cwd)
             : g_path_is_absolute (base_dir)
               ? g_strdup (base_dir)
               : g_build_filename (cwd, base_dir, NULL);
  base = agents_manifest_normalize_absolute (base_abs);
  src_abs = g_path_is_absolute (src) ? g_strdup (src)
                                     : g_build_filename (base_abs, src, NULL);
  path = agents_manifest_normalize_absolute (src_abs);

  if (base != NULL && path != NULL &&
      (source->walk_rel = agents_manifest_relative_within (path, base)) != NULL)
    {
      source->walk_base = g_steal_pointer (&base);
      return g_steal_pointer (&source);
    }
  for (guint i = 0; path != NULL && grants != NULL && grants[i] != NULL; i++)
    {
      g_autofree char *grant = agents_manifest_normalize_absolute (grants[i]);

      if (grant != NULL && g_path_is_absolute (grants[i]) &&
          (source->walk_rel = agents_manifest_relative_within (path, grant)) !=
            NULL)
        {
          source->walk_base = g_steal_pointer (&grant);
          return g_steal_pointer (&source);
        }
    }

  set_outside_base_error (error, is_dir, src, base);
  return NULL;
}

/* Why opening @name in @dirfd failed, as a context reason. */
static const char *
open_failure_reason (int parent_fd, const char *name, int saved_errno)
{
  struct stat st;

  if (fstatat (parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
      S_ISLNK (st.st_mode))
    return "symlink_not_supported";
  switch (saved_errno)
    {
    case ENOENT:
      return "not_found";
    case ELOOP:
      return "symlink_not_supported";
    case ENOTDIR:
      return "not_a_directory";
    case EACCES:
    case EPERM:
      return "permission_denied";
    default:
      return "unreadable";
    }
}

/* Opens @rel below @dirfd one component at a time, never following a
 * symbolic link. The last component is opened with @flags. On failure
 * returns -1 and sets *reason. */
static int
open_beneath (
  int parent_fd, const char *rel, int flags, const char **reason, char **child)
{
  g_auto (GStrv) parts = g_strsplit (rel, "/", -1);
  g_autoptr (GString) walked = g_string_new (NULL);
  int fd = dup (parent_fd);
  guint last = 0;

  if (fd < 0)
    {
      *reason = "unreadable";
      return -1;
    }
  for (guint i = 0; parts[i] != NULL; i++)
    if (*parts[i] != '\0' && !g_str_equal (parts[i], "."))
      last = i + 1;

  for (guint i = 0; i < last; i++)
    {
      int next, saved_errno;
      gboolean is_last = i + 1 == last;

      if (*parts[i] == '\0' || g_str_equal (parts[i], "."))
        continue;
      if (g_str_equal (parts[i], ".."))
        {
          close (fd);
          *reason = "escape";
          return -1;
        }
      g_string_append_printf (walked, "%s%s", walked->len ? "/" : "", parts[i]);
      next = openat (fd, parts[i],
                     (is_last ? flags : O_RDONLY | O_DIRECTORY) | O_NOFOLLOW |
                       O_CLOEXEC);
      saved_errno = errno;
      if (next < 0)
        {
          *reason = open_failure_reason (fd, parts[i], saved_errno);
          *child = g_strdup (walked->str);
        }
      close (fd);
      if (next < 0)
        return -1;
      fd = next;
    }
  if (last == 0)
    {
      /* The path is the base itself: reopen it with the final flags. */
      int next = openat (fd, ".", flags | O_CLOEXEC);

      close (fd);
      if (next < 0)
        *reason = "unreadable";
      return next;
    }
  return fd;
}

static AgentsLocalSourceTestHook test_hook;
static gpointer test_hook_data;

void
agents_local_source_set_test_hook (AgentsLocalSourceTestHook hook,
                                   gpointer user_data)
{
  test_hook = hook;
  test_hook_data = user_data;
}

static void
run_test_hook (AgentsLocalSourceHookPoint point, const char *rel)
{
  if (G_UNLIKELY (test_hook != NULL))
    test_hook (point, rel, test_hook_data);
}

/* Opens a local source securely and returns its fd. */
static int
local_source_open (AgentsLocalSource *source, GError **error)
{
  int code = source->code;
  int flags = source->is_dir ? O_RDONLY | O_DIRECTORY : O_RDONLY | O_NONBLOCK;
  const char *reason = "unreadable";
  g_autofree char *child = NULL;
  struct stat st;
  int base_fd, fd;

  run_test_hook (AGENTS_LOCAL_SOURCE_HOOK_OPEN_ROOT, source->walk_rel);
  base_fd = open (source->walk_base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (base_fd < 0)
    {
      set_source_error (error, code, source->src,
                        errno == ENOENT ? "not_found" : "unreadable", NULL);
      return -1;
    }
  fd = open_beneath (base_fd, source->walk_rel, flags, &reason, &child);
  close (base_fd);
  if (fd < 0)
    {
      set_source_error_full (error, code, source->src, reason, NULL, child);
      return -1;
    }
  if (fstat (fd, &st) != 0 ||
      (source->is_dir ? !S_ISDIR (st.st_mode) : !S_ISREG (st.st_mode)))
    {
      close (fd);
      set_source_error (error, code, source->src,
                        source->is_dir ? "not_a_directory" : "not_a_file",
                        NULL);
      return -1;
    }
  return fd;
}

/* Opens a local source; the fd stays in the source until taken, so that
 * it is closed if nobody takes it. */
static void
local_source_open_thread (GTask *task,
                          gpointer source_object,
                          gpointer task_data,
                          GCancellable *cancellable)
{
  AgentsLocalSource *source = task_data;
  GError *error = NULL;

  source->fd = local_source_open (source, &error);
  if (source->fd < 0)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

void
agents_local_source_open_async (AgentsLocalSource *source,
                                GCancellable *cancellable,
                                GAsyncReadyCallback callback,
                                gpointer user_data)
{
  g_autoptr (GTask) task = g_task_new (NULL, cancellable, callback, user_data);

  g_task_set_task_data (task, source,
                        (GDestroyNotify) agents_local_source_free);
  g_task_run_in_thread (task, local_source_open_thread);
}

/* Takes the fd opened by local_source_open_thread(), or returns -1. */
int
agents_local_source_open_finish (GAsyncResult *result, GError **error)
{
  AgentsLocalSource *source = g_task_get_task_data (G_TASK (result));
  int fd;

  if (!g_task_propagate_boolean (G_TASK (result), error))
    return -1;
  fd = source->fd;
  source->fd = -1;
  return fd;
}

/* ---- streaming local files ------------------------------------------ */

/* Local files are never held in memory: the backend reads them from a
 * stream that computes their SHA-256 on the way. */
#define AGENTS_TYPE_CHECKSUM_STREAM (agents_checksum_stream_get_type ())
G_DECLARE_FINAL_TYPE (AgentsChecksumStream,
                      agents_checksum_stream,
                      AGENTS,
                      CHECKSUM_STREAM,
                      GFilterInputStream)

struct _AgentsChecksumStream
{
  GFilterInputStream parent_instance;

  GChecksum *checksum;
  GError *read_error; /* the first failure of the source */
  gboolean at_end;
};

G_DEFINE_FINAL_TYPE (AgentsChecksumStream,
                     agents_checksum_stream,
                     G_TYPE_FILTER_INPUT_STREAM)

static void
agents_checksum_stream_finalize (GObject *object)
{
  AgentsChecksumStream *self = AGENTS_CHECKSUM_STREAM (object);

  g_checksum_free (self->checksum);
  g_clear_error (&self->read_error);
  G_OBJECT_CLASS (agents_checksum_stream_parent_class)->finalize (object);
}

static gssize
agents_checksum_stream_read (GInputStream *stream,
                             void *buffer,
                             gsize count,
                             GCancellable *cancellable,
                             GError **error)
{
  AgentsChecksumStream *self = AGENTS_CHECKSUM_STREAM (stream);
  GInputStream *base =
    g_filter_input_stream_get_base_stream (G_FILTER_INPUT_STREAM (stream));
  GError *local_error = NULL;
  gssize n =
    g_input_stream_read (base, buffer, count, cancellable, &local_error);

  if (n < 0)
    {
      if (self->read_error == NULL &&
          !g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        self->read_error = g_error_copy (local_error);
      g_propagate_error (error, local_error);
      return -1;
    }
  /* GInputStream never asks for 0 bytes, so 0 is the end. */
  if (n == 0)
    self->at_end = TRUE;
  g_checksum_update (self->checksum, buffer, n);
  return n;
}

/* The filter's own skip would bypass the checksum. */
static gssize
agents_checksum_stream_skip (GInputStream *stream,
                             gsize count,
                             GCancellable *cancellable,
                             GError **error)
{
  guint8 buffer[8192];

  return agents_checksum_stream_read (
    stream, buffer, MIN (count, sizeof buffer), cancellable, error);
}

static void
agents_checksum_stream_class_init (AgentsChecksumStreamClass *klass)
{
  GInputStreamClass *stream_class = G_INPUT_STREAM_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = agents_checksum_stream_finalize;
  stream_class->read_fn = agents_checksum_stream_read;
  stream_class->skip = agents_checksum_stream_skip;
}

static void
agents_checksum_stream_init (AgentsChecksumStream *self)
{
  self->checksum = g_checksum_new (G_CHECKSUM_SHA256);
}

/* Streams the regular file open on @fd, which the stream owns. */
static AgentsChecksumStream *
checksum_stream_new_for_fd (int fd)
{
  g_autoptr (GInputStream) base = NULL;
  int flags = fcntl (fd, F_GETFL);

  /* Opened non-blocking so that a fifo could not hang the open; the
   * file is known to be regular now. */
  if (flags >= 0)
    fcntl (fd, F_SETFL, flags & ~O_NONBLOCK);
  base = g_unix_input_stream_new (fd, TRUE);
  return g_object_new (AGENTS_TYPE_CHECKSUM_STREAM, "base-stream", base, NULL);
}

/* Ends the streamed write of @self, @written telling whether the backend
 * succeeded (with @error set if not). A failure to read the source
 * replaces whatever error the backend made of it. On success *sha256 is
 * the digest of the content, or NULL if the backend stopped reading
 * before the end. */
static gboolean
streamed_write_finish (AgentsChecksumStream *self,
                       gboolean written,
                       int code,
                       const char *src,
                       char **sha256,
                       GError **error)
{
  /* Releases the fd now, not when the backend drops its reference. */
  g_input_stream_close (G_INPUT_STREAM (self), NULL, NULL);
  if (self->read_error != NULL)
    {
      g_clear_error (error);
      set_source_error (error, code, src, "unreadable",
                        self->read_error->message);
      return FALSE;
    }
  if (!written)
    return FALSE;
  *sha256 =
    self->at_end ? g_strdup (g_checksum_get_string (self->checksum)) : NULL;
  return TRUE;
}

/* ---- copying a directory tree into the session ---------------------- */

/* Copies the tree below an open directory fd (owned) to @dest: the tree
 * is scanned in a thread without following symbolic links (they are
 * skipped), directories are created, then files are opened in threads and
 * streamed into the session with at most @max_in_flight copies at once. */
typedef struct
{
  AgentsManifestEntry *entry;
  AgentsSandboxSession *session;
  char *dest;
  char *src; /* for error messages */
  int root_fd;
  gboolean skip_git;
  int error_code;
  GPtrArray *leaf_dirs; /* relative */
  GPtrArray *files;     /* relative */
  guint next_dir;
  guint next_file;
  guint in_flight;
  guint max_in_flight;
  GPtrArray *results;
  GError *error;
} TreeCopy;

static void
tree_copy_free (TreeCopy *copy)
{
  g_clear_object (&copy->entry);
  g_clear_object (&copy->session);
  g_free (copy->dest);
  g_free (copy->src);
  if (copy->root_fd >= 0)
    close (copy->root_fd);
  g_clear_pointer (&copy->leaf_dirs, g_ptr_array_unref);
  g_clear_pointer (&copy->files, g_ptr_array_unref);
  g_clear_pointer (&copy->results, g_ptr_array_unref);
  g_clear_error (&copy->error);
  g_free (copy);
}

static char *
join_rel (const char *dir, const char *name)
{
  return *dir ? g_strconcat (dir, "/", name, NULL) : g_strdup (name);
}

/* Lists one directory: subdirectories are queued, files collected. */
static gboolean
scan_one_dir (TreeCopy *copy,
              const char *rel,
              GQueue *pending,
              GHashTable *has_subdirs,
              GError **error)
{
  const char *reason = "unreadable";
  g_autofree char *child = NULL;
  struct dirent *dent;
  DIR *dir;
  int fd = *rel ? open_beneath (copy->root_fd, rel, O_RDONLY | O_DIRECTORY,
                                &reason, &child)
                : dup (copy->root_fd);

  if (fd < 0 || (dir = fdopendir (fd)) == NULL)
    {
      if (fd >= 0)
        close (fd);
      set_source_error_full (error, copy->error_code, copy->src, reason, NULL,
                             child);
      return FALSE;
    }
  rewinddir (dir);

  while ((dent = readdir (dir)) != NULL)
    {
      struct stat st;

      if (g_str_equal (dent->d_name, ".") || g_str_equal (dent->d_name, "..") ||
          (copy->skip_git && g_str_equal (dent->d_name, ".git")))
        continue;
      if (fstatat (dirfd (dir), dent->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        continue;
      if (S_ISDIR (st.st_mode))
        {
          g_queue_push_tail (pending, join_rel (rel, dent->d_name));
          g_hash_table_add (has_subdirs, g_strdup (rel));
        }
      else if (S_ISREG (st.st_mode))
        g_ptr_array_add (copy->files, join_rel (rel, dent->d_name));
      else if (S_ISLNK (st.st_mode) &&
               copy->error_code == AGENTS_SANDBOX_ERROR_LOCAL_DIR_READ)
        {
          /* As the reference: a local_dir with a link in it is refused
           * as a whole, before anything is copied. */
          g_autofree char *link = join_rel (rel, dent->d_name);

          closedir (dir);
          set_source_error_full (error, copy->error_code, copy->src,
                                 "symlink_not_supported", NULL, link);
          return FALSE;
        }
      /* Links in a git checkout, devices, sockets and fifos are never
       * copied. */
    }
  closedir (dir);
  return TRUE;
}

static void
tree_scan_thread (GTask *task,
                  gpointer source_object,
                  gpointer task_data,
                  GCancellable *cancellable)
{
  TreeCopy *copy = task_data;
  g_autoptr (GHashTable) has_subdirs =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GPtrArray) dirs = g_ptr_array_new_with_free_func (g_free);
  GQueue pending = G_QUEUE_INIT;
  GError *error = NULL;
  char *rel;

  g_queue_push_tail (&pending, g_strdup (""));
  while ((rel = g_queue_pop_head (&pending)) != NULL)
    {
      g_ptr_array_add (dirs, rel);
      if (g_cancellable_set_error_if_cancelled (cancellable, &error) ||
          !scan_one_dir (copy, rel, &pending, has_subdirs, &error))
        {
          g_queue_clear_full (&pending, g_free);
          g_task_return_error (task, error);
          return;
        }
    }

  /* Creating the leaves with parents creates every directory. */
  for (guint i = 1; i < dirs->len; i++)
    if (!g_hash_table_contains (has_subdirs, dirs->pdata[i]))
      g_ptr_array_add (copy->leaf_dirs, g_strdup (dirs->pdata[i]));
  g_task_return_boolean (task, TRUE);
}

static void tree_copy_pump (GTask *task);

static int
compare_materialized (gconstpointer a, gconstpointer b)
{
  const AgentsMaterializedFile *fa = *(AgentsMaterializedFile *const *) a;
  const AgentsMaterializedFile *fb = *(AgentsMaterializedFile *const *) b;

  return strcmp (fa->path, fb->path);
}

static void
tree_copy_finish_if_done (GTask *task)
{
  TreeCopy *copy = g_task_get_task_data (task);

  if (copy->in_flight > 0)
    return;
  if (copy->error != NULL)
    {
      g_task_return_error (task, g_steal_pointer (&copy->error));
      return;
    }
  /* Files complete in any order; report them in a stable one. */
  g_ptr_array_sort (copy->results, compare_materialized);
  g_task_return_pointer (task, g_steal_pointer (&copy->results),
                         (GDestroyNotify) g_ptr_array_unref);
}

typedef struct
{
  TreeCopy *copy;
  char *rel;
  int fd; /* the opened file, until taken */
} FileCopy;

static void
file_copy_free (FileCopy *file)
{
  if (file->fd >= 0)
    close (file->fd);
  g_free (file->rel);
  g_free (file);
}

static void
file_open_thread (GTask *task,
                  gpointer source_object,
                  gpointer task_data,
                  GCancellable *cancellable)
{
  FileCopy *file = task_data;
  const char *reason = "unreadable";
  g_autofree char *child = NULL;
  GError *error = NULL;
  struct stat st;
  int fd;

  run_test_hook (AGENTS_LOCAL_SOURCE_HOOK_OPEN_FILE, file->rel);
  fd = open_beneath (file->copy->root_fd, file->rel, O_RDONLY | O_NONBLOCK,
                     &reason, &child);
  if (fd >= 0 && (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode)))
    {
      close (fd);
      fd = -1;
      reason = "not_a_file";
    }
  if (fd < 0)
    {
      set_source_error_full (&error, file->copy->error_code, file->copy->src,
                             reason, NULL, child);
      g_task_return_error (task, error);
      return;
    }
  file->fd = fd;
  g_task_return_boolean (task, TRUE);
}

static void
tree_file_done (GTask *task, GError *error)
{
  TreeCopy *copy = g_task_get_task_data (task);

  copy->in_flight--;
  if (error != NULL && copy->error == NULL)
    copy->error = error;
  else if (error != NULL)
    g_error_free (error);
  tree_copy_pump (task);
}

typedef struct
{
  GTask *task; /* the tree copy */
  AgentsChecksumStream *content;
  char *dest;
} FileWrite;

static void
file_write_free (FileWrite *write)
{
  g_object_unref (write->task);
  g_object_unref (write->content);
  g_free (write->dest);
  g_free (write);
}

static void
tree_file_written_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  FileWrite *write = user_data;
  TreeCopy *copy = g_task_get_task_data (write->task);
  g_autofree char *sha = NULL;
  GError *error = NULL;
  gboolean written;

  written = agents_sandbox_session_write_finish (copy->session, result, &error);
  if (streamed_write_finish (write->content, written, copy->error_code,
                             copy->src, &sha, &error))
    g_ptr_array_add (copy->results,
                     agents_materialized_file_new (write->dest, sha));
  tree_file_done (write->task, error);
  file_write_free (write);
}

static void
tree_file_opened_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data; /* the tree copy */
  TreeCopy *copy = g_task_get_task_data (task);
  GTask *open_task = G_TASK (result);
  FileCopy *file = g_task_get_task_data (open_task);
  FileWrite *write;
  GError *error = NULL;

  if (!g_task_propagate_boolean (open_task, &error) || copy->error != NULL)
    {
      tree_file_done (task, error);
      return;
    }

  write = g_new0 (FileWrite, 1);
  write->task = g_object_ref (task);
  write->content = checksum_stream_new_for_fd (file->fd);
  file->fd = -1;
  write->dest = agents_entry_join_dest (copy->dest, file->rel);
  agents_sandbox_session_write_async (
    copy->session, write->dest, G_INPUT_STREAM (write->content), NULL,
    g_task_get_cancellable (task), tree_file_written_cb, write);
}

/* Starts file copies until the limit is reached; returns when all are
 * done or an error stopped new ones. */
static void
tree_copy_pump (GTask *task)
{
  TreeCopy *copy = g_task_get_task_data (task);

  while (copy->error == NULL && copy->in_flight < copy->max_in_flight &&
         copy->next_file < copy->files->len)
    {
      g_autoptr (GTask) open_task = NULL;
      FileCopy *file = g_new0 (FileCopy, 1);

      file->copy = copy;
      file->rel = g_strdup (copy->files->pdata[copy->next_file++]);
      file->fd = -1;
      open_task = g_task_new (NULL, g_task_get_cancellable (task),
                              tree_file_opened_cb, g_object_ref (task));
      g_task_set_task_data (open_task, file, (GDestroyNotify) file_copy_free);
      copy->in_flight++;
      g_task_run_in_thread (open_task, file_open_thread);
    }
  if (copy->error != NULL || copy->next_file >= copy->files->len)
    tree_copy_finish_if_done (task);
}

static void tree_copy_next_dir (GTask *task);

static void
tree_mkdir_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;

  if (!agents_sandbox_session_mkdir_finish (AGENTS_SANDBOX_SESSION (source),
                                            result, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  tree_copy_next_dir (g_steal_pointer (&task));
}

/* Creates the directories one after the other; takes a task reference. */
static void
tree_copy_next_dir (GTask *task)
{
  TreeCopy *copy = g_task_get_task_data (task);
  g_autofree char *dest = NULL;

  if (copy->next_dir >= copy->leaf_dirs->len)
    {
      tree_copy_pump (task);
      g_object_unref (task);
      return;
    }
  dest = agents_entry_join_dest (copy->dest,
                                 copy->leaf_dirs->pdata[copy->next_dir++]);
  agents_sandbox_session_mkdir_async (copy->session, dest, TRUE,
                                      g_task_get_cancellable (task),
                                      tree_mkdir_cb, task);
}

static void
tree_metadata_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;

  if (!agents_entry_apply_metadata_finish (result, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  tree_copy_next_dir (g_steal_pointer (&task));
}

static void
tree_root_mkdir_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  TreeCopy *copy = g_task_get_task_data (task);
  GError *error = NULL;

  if (!agents_sandbox_session_mkdir_finish (copy->session, result, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  agents_entry_apply_metadata_async (copy->entry, copy->session, copy->dest,
                                     g_task_get_cancellable (task),
                                     tree_metadata_cb, g_object_ref (task));
}

static void
tree_scanned_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *scan = G_TASK (result);
  g_autoptr (GTask) task = user_data;
  TreeCopy *copy = g_task_get_task_data (task);
  GError *error = NULL;

  if (!g_task_propagate_boolean (scan, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  agents_sandbox_session_mkdir_async (copy->session, copy->dest, TRUE,
                                      g_task_get_cancellable (task),
                                      tree_root_mkdir_cb, g_object_ref (task));
}

static guint
local_dir_files_limit (AgentsSandboxSession *session)
{
  const AgentsConcurrencyLimits *limits =
    agents_sandbox_session_get_concurrency_limits (session);

  if (limits == NULL || limits->local_dir_files < 1)
    return 4;
  return (guint) MIN (limits->local_dir_files, 1024);
}

void
agents_entry_copy_tree_async (AgentsManifestEntry *entry,
                              AgentsSandboxSession *session,
                              int root_fd,
                              const char *dest,
                              const char *src,
                              int error_code,
                              gboolean skip_git,
                              GCancellable *cancellable,
                              GAsyncReadyCallback callback,
                              gpointer user_data)
{
  GTask *task = g_task_new (entry, cancellable, callback, user_data);
  g_autoptr (GTask) scan = NULL;
  TreeCopy *copy = g_new0 (TreeCopy, 1);

  copy->entry = g_object_ref (entry);
  copy->session = g_object_ref (session);
  copy->dest = g_strdup (dest);
  copy->src = g_strdup (src);
  copy->root_fd = root_fd;
  copy->error_code = error_code;
  copy->skip_git = skip_git;
  copy->leaf_dirs = g_ptr_array_new_with_free_func (g_free);
  copy->files = g_ptr_array_new_with_free_func (g_free);
  copy->max_in_flight = local_dir_files_limit (session);
  copy->results = agents_materialized_array_new ();
  g_task_set_task_data (task, copy, (GDestroyNotify) tree_copy_free);

  /* The scan runs on a task of its own so that the thread never holds the
   * last reference of the copy task. */
  scan = g_task_new (NULL, cancellable, tree_scanned_cb, task);
  g_task_set_task_data (scan, copy, NULL);
  g_task_run_in_thread (scan, tree_scan_thread);
}

GPtrArray *
agents_entry_copy_tree_finish (GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- LocalFile ------------------------------------------------------- */

/**
 * AgentsLocalFile:
 *
 * A copy of a file of the host. The source must lie inside the base
 * directory given when the manifest is applied (or inside an extra path
 * grant of the session's manifest, read from the grant's host path when
 * it has one), and is opened without following symbolic links: a link on
 * the way gives the context reason `symlink_not_supported`, with the
 * path up to the link as `child`.
 */
struct _AgentsLocalFile
{
  AgentsManifestEntry parent_instance;

  char *src;
};

G_DEFINE_FINAL_TYPE (AgentsLocalFile,
                     agents_local_file,
                     AGENTS_TYPE_MANIFEST_ENTRY)

/* LocalFile and LocalDir share their "src" member. */
enum
{
  SRC_PROP_0,
  SRC_PROP_SRC,
  SRC_N_PROPS
};

static GParamSpec *local_file_properties[SRC_N_PROPS];
static GParamSpec *local_dir_properties[SRC_N_PROPS];

struct _AgentsLocalDir
{
  AgentsManifestEntry parent_instance;

  char *src;
};

static char **
src_slot (GObject *object)
{
  if (AGENTS_IS_LOCAL_FILE (object))
    return &AGENTS_LOCAL_FILE (object)->src;
  return &AGENTS_LOCAL_DIR (object)->src;
}

static void
src_get_property (GObject *object,
                  guint prop_id,
                  GValue *value,
                  GParamSpec *pspec)
{
  if (prop_id != SRC_PROP_SRC)
    {
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      return;
    }
  g_value_set_string (value, *src_slot (object));
}

static void
src_set_property (GObject *object,
                  guint prop_id,
                  const GValue *value,
                  GParamSpec *pspec)
{
  char **slot = src_slot (object);

  if (prop_id != SRC_PROP_SRC)
    {
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      return;
    }
  g_free (*slot);
  *slot =
    g_strdup (g_value_get_string (value) ? g_value_get_string (value) : "");
}

static void
src_finalize (GObject *object, GObjectClass *parent_class)
{
  g_free (*src_slot (object));
  parent_class->finalize (object);
}

static void
src_serialize_fields (AgentsManifestEntry *entry, JsonBuilder *builder)
{
  agents_json_add_string (builder, "src", *src_slot (G_OBJECT (entry)));
}

static gboolean
src_deserialize_fields (AgentsManifestEntry *entry,
                        JsonObject *object,
                        GError **error)
{
  char **slot = src_slot (G_OBJECT (entry));
  const char *src = NULL;

  if (!agents_json_read_string (object, "src", FALSE, TRUE, &src, error))
    return FALSE;
  g_free (*slot);
  *slot = g_strdup (src);
  return TRUE;
}

static void
src_copy_fields (AgentsManifestEntry *entry, AgentsManifestEntry *dest)
{
  char **slot = src_slot (G_OBJECT (dest));

  g_free (*slot);
  *slot = g_strdup (*src_slot (G_OBJECT (entry)));
}

static gboolean
src_equal_fields (AgentsManifestEntry *a, AgentsManifestEntry *b)
{
  return g_strcmp0 (*src_slot (G_OBJECT (a)), *src_slot (G_OBJECT (b))) == 0;
}

/* Resolves and opens the source of @entry in a thread; @opened_cb goes
 * on with the apply @task. */
static void
src_apply (AgentsManifestEntry *entry,
           AgentsSandboxSession *session,
           const char *dest,
           const char *base_dir,
           GTask *task,
           GAsyncReadyCallback opened_cb)
{
  g_auto (GStrv) grants = agents_local_source_dup_grant_paths (session);
  AgentsLocalSource *source;
  GError *error = NULL;

  agents_apply_data_new (entry, session, dest, base_dir, task);
  source = agents_local_source_resolve (*src_slot (G_OBJECT (entry)), base_dir,
                                        (const char *const *) grants,
                                        AGENTS_IS_LOCAL_DIR (entry), &error);
  if (source == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  agents_local_source_open_async (source, g_task_get_cancellable (task),
                                  opened_cb, g_object_ref (task));
}

/* Fills in the class of LocalFile or LocalDir but for finalize and
 * apply, installing the "src" property in @properties. */
static void
src_class_init (AgentsManifestEntryClass *entry_class,
                const char *type_name,
                GParamSpec **properties)
{
  GObjectClass *object_class = G_OBJECT_CLASS (entry_class);

  object_class->get_property = src_get_property;
  object_class->set_property = src_set_property;

  entry_class->type_name = type_name;
  entry_class->serialize_fields = src_serialize_fields;
  entry_class->deserialize_fields = src_deserialize_fields;
  entry_class->copy_fields = src_copy_fields;
  entry_class->equal_fields = src_equal_fields;

  properties[SRC_PROP_SRC] =
    g_param_spec_string ("src", NULL, NULL, "",
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                           G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, SRC_N_PROPS, properties);
}

static void
agents_local_file_finalize (GObject *object)
{
  src_finalize (object, G_OBJECT_CLASS (agents_local_file_parent_class));
}

typedef struct
{
  GTask *task; /* the apply task */
  AgentsChecksumStream *content;
} LocalFileWrite;

static void
local_file_written_cb (GObject *source,
                       GAsyncResult *result,
                       gpointer user_data)
{
  LocalFileWrite *write = user_data;
  g_autoptr (GTask) task = write->task;
  g_autoptr (AgentsChecksumStream) content = write->content;
  AgentsApplyData *data = g_task_get_task_data (task);
  g_autofree char *sha = NULL;
  GError *error = NULL;
  gboolean written;

  g_free (write);
  written = agents_entry_write_file_finish (result, &error);
  if (!streamed_write_finish (
        content, written, AGENTS_SANDBOX_ERROR_LOCAL_FILE_READ,
        AGENTS_LOCAL_FILE (data->entry)->src, &sha, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  g_ptr_array_add (data->results,
                   agents_materialized_file_new (data->dest, sha));
  agents_apply_data_return_results (task);
}

static void
local_file_opened_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  AgentsApplyData *data = g_task_get_task_data (task);
  LocalFileWrite *write;
  GError *error = NULL;
  int fd = agents_local_source_open_finish (result, &error);

  if (fd < 0)
    {
      g_task_return_error (task, error);
      return;
    }
  write = g_new0 (LocalFileWrite, 1);
  write->task = g_steal_pointer (&task);
  write->content = checksum_stream_new_for_fd (fd);
  agents_entry_write_file_async (
    data->entry, data->session, data->dest, G_INPUT_STREAM (write->content),
    g_task_get_cancellable (write->task), local_file_written_cb, write);
}

static void
local_file_apply (AgentsManifestEntry *entry,
                  AgentsSandboxSession *session,
                  const char *dest,
                  const char *base_dir,
                  GTask *task)
{
  src_apply (entry, session, dest, base_dir, task, local_file_opened_cb);
}

static void
agents_local_file_class_init (AgentsLocalFileClass *klass)
{
  AgentsManifestEntryClass *entry_class = AGENTS_MANIFEST_ENTRY_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = agents_local_file_finalize;
  entry_class->apply = local_file_apply;

  /**
   * AgentsLocalFile:src:
   *
   * The host path of the file, relative to the base directory or
   * absolute.
   */
  src_class_init (entry_class, "local_file", local_file_properties);
}

static void
agents_local_file_init (AgentsLocalFile *self)
{
  self->src = g_strdup ("");
}

/**
 * agents_local_file_new:
 * @src: (type filename): the host path of the file
 *
 * Creates a local file entry.
 *
 * Returns: (transfer full): a new #AgentsLocalFile
 */
AgentsManifestEntry *
agents_local_file_new (const char *src)
{
  g_return_val_if_fail (src != NULL, NULL);

  return g_object_new (AGENTS_TYPE_LOCAL_FILE, "src", src, NULL);
}

/**
 * agents_local_file_get_src:
 * @self: an #AgentsLocalFile
 *
 * Gets the host path of the file.
 *
 * Returns: (type filename): the path
 */
const char *
agents_local_file_get_src (AgentsLocalFile *self)
{
  g_return_val_if_fail (AGENTS_IS_LOCAL_FILE (self), NULL);

  return self->src;
}

/* ---- LocalDir -------------------------------------------------------- */

/**
 * AgentsLocalDir:
 *
 * A copy of a directory tree of the host. The source is confined like
 * that of #AgentsLocalFile. A symbolic link anywhere in the tree refuses
 * it whole, before anything is copied: %AGENTS_SANDBOX_ERROR_LOCAL_DIR_READ
 * with the context reason `symlink_not_supported` and the link's path
 * below the source as `child`.
 */
G_DEFINE_FINAL_TYPE (AgentsLocalDir,
                     agents_local_dir,
                     AGENTS_TYPE_MANIFEST_ENTRY)

static void
agents_local_dir_finalize (GObject *object)
{
  src_finalize (object, G_OBJECT_CLASS (agents_local_dir_parent_class));
}

static void
local_dir_copied_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GPtrArray *files;
  GError *error = NULL;

  files = agents_entry_copy_tree_finish (result, &error);
  if (files == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, files, (GDestroyNotify) g_ptr_array_unref);
}

static void
local_dir_opened_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  AgentsApplyData *data = g_task_get_task_data (task);
  GError *error = NULL;
  int fd = agents_local_source_open_finish (result, &error);

  if (fd < 0)
    {
      g_task_return_error (task, error);
      return;
    }
  agents_entry_copy_tree_async (data->entry, data->session, fd, data->dest,
                                AGENTS_LOCAL_DIR (data->entry)->src,
                                AGENTS_SANDBOX_ERROR_LOCAL_DIR_READ, FALSE,
                                g_task_get_cancellable (task),
                                local_dir_copied_cb, g_object_ref (task));
}

static void
local_dir_apply (AgentsManifestEntry *entry,
                 AgentsSandboxSession *session,
                 const char *dest,
                 const char *base_dir,
                 GTask *task)
{
  src_apply (entry, session, dest, base_dir, task, local_dir_opened_cb);
}

static void
agents_local_dir_class_init (AgentsLocalDirClass *klass)
{
  AgentsManifestEntryClass *entry_class = AGENTS_MANIFEST_ENTRY_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = agents_local_dir_finalize;
  entry_class->apply = local_dir_apply;

  /**
   * AgentsLocalDir:src:
   *
   * The host path of the directory, relative to the base directory or
   * absolute.
   */
  src_class_init (entry_class, "local_dir", local_dir_properties);
}

static void
agents_local_dir_init (AgentsLocalDir *self)
{
  self->src = g_strdup ("");
}

/**
 * agents_local_dir_new:
 * @src: (type filename): the host path of the directory
 *
 * Creates a local directory entry.
 *
 * Returns: (transfer full): a new #AgentsLocalDir
 */
AgentsManifestEntry *
agents_local_dir_new (const char *src)
{
  g_return_val_if_fail (src != NULL, NULL);

  return g_object_new (AGENTS_TYPE_LOCAL_DIR, "src", src, NULL);
}

/**
 * agents_local_dir_get_src:
 * @self: an #AgentsLocalDir
 *
 * Gets the host path of the directory.
 *
 * Returns: (type filename): the path
 */
const char *
agents_local_dir_get_src (AgentsLocalDir *self)
{
  g_return_val_if_fail (AGENTS_IS_LOCAL_DIR (self), NULL);

  return self->src;
}
