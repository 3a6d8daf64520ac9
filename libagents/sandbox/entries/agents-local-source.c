/* agents-local-source.c - host files and directories opened beneath their
 * source,\n * never through a symbolic link, and read with a checksum
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
#include "agents-local-source-private.h"
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
void
agents_local_source_set_error_full (GError **error,
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
  agents_local_source_set_error_full (error, code, src, reason, detail, NULL);
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
int
agents_local_open_beneath (
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

void
agents_local_source_run_test_hook (AgentsLocalSourceHookPoint point,
                                   const char *rel)
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

  agents_local_source_run_test_hook (AGENTS_LOCAL_SOURCE_HOOK_OPEN_ROOT,
                                     source->walk_rel);
  base_fd = open (source->walk_base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (base_fd < 0)
    {
      set_source_error (error, code, source->src,
                        errno == ENOENT ? "not_found" : "unreadable", NULL);
      return -1;
    }
  fd = agents_local_open_beneath (base_fd, source->walk_rel, flags, &reason,
                                  &child);
  close (base_fd);
  if (fd < 0)
    {
      agents_local_source_set_error_full (error, code, source->src, reason,
                                          NULL, child);
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
AgentsChecksumStream *
agents_checksum_stream_new_for_fd (int fd)
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
gboolean
agents_checksum_stream_write_finish (AgentsChecksumStream *self,
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
