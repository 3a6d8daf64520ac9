/* agents-unix-local-session-files.c - the file operations of a unix_local
 * session (read, write, validate_path_access, ls, mkdir, rm) on the host paths
 * of its workspace and grants
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <inttypes.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "agents-archive-private.h"
#include "agents-fs-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-sandbox-session-private.h"
#include "agents-unix-local-confine.h"
#include "agents-unix-local-fs.h"
#include "agents-unix-local-owner.h"
#include "agents-unix-local-pty.h"
#include "agents-unix-local-session-private.h"

/* ---- host paths ----------------------------------------------------- */

/* A path of the workspace (or of a grant) as seen on the host. */
typedef struct
{
  char *abs;        /* normalized absolute path */
  char *base;       /* the root or grant directory holding it */
  char *rel;        /* @abs relative to @base, "." for @base itself */
  char *grant_path; /* the grant's path as configured, NULL for root */
  gboolean read_only;
  gboolean is_root;
} HostTarget;

static void
host_target_clear (HostTarget *target)
{
  g_free (target->abs);
  g_free (target->base);
  g_free (target->rel);
  g_free (target->grant_path);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (HostTarget, host_target_clear)

gboolean
agents_unix_local_session_is_at_or_under (const char *path, const char *dir)
{
  size_t len = strlen (dir);

  if (g_str_equal (dir, "/"))
    return TRUE;
  return strncmp (path, dir, len) == 0 &&
         (path[len] == '\0' || path[len] == '/');
}

static void
set_escape_error (GError **error, const char *path)
{
  agents_sandbox_path_error_for (error, path);
}

/* An absolute path outside the root and every grant as configured may
 * lie in a grant once both are resolved on the host: a grant set up
 * through a symlinked alias holds the paths of its target, as in the
 * reference. The deepest such grant is the base, opened as resolved. */
static gboolean
match_grant_alias (AgentsUnixLocalSession *self,
                   const char *path,
                   HostTarget *target)
{
  GPtrArray *grants = agents_manifest_get_extra_path_grants (
    agents_unix_local_session_manifest (self));
  g_autofree char *resolved = NULL;
  size_t best_len = 0;

  if (!g_path_is_absolute (path) || grants == NULL || grants->len == 0)
    return FALSE;
  resolved = agents_path_resolve_loose (path);
  for (guint i = 0; i < grants->len; i++)
    {
      AgentsSandboxPathGrant *grant = g_ptr_array_index (grants, i);
      const char *grant_path = agents_sandbox_path_grant_get_path (grant);
      g_autofree char *dir = NULL;

      if (!g_path_is_absolute (grant_path))
        continue;
      dir = agents_path_resolve_loose (grant_path);
      if (g_str_equal (dir, "/") ||
          !agents_unix_local_session_is_at_or_under (resolved, dir) ||
          strlen (dir) <= best_len)
        continue;
      best_len = strlen (dir);
      g_free (target->base);
      g_free (target->grant_path);
      target->base = g_steal_pointer (&dir);
      target->grant_path = g_strdup (grant_path);
      target->read_only = agents_sandbox_path_grant_get_read_only (grant);
    }
  if (target->base == NULL)
    return FALSE;
  target->abs = g_steal_pointer (&resolved);
  return TRUE;
}

/* Lexical resolution: @path must stay in the root or a grant; the deepest
 * of those that holds it is its base. */
static gboolean
resolve_target (AgentsUnixLocalSession *self,
                const char *path,
                HostTarget *target,
                GError **error)
{
  AgentsManifest *manifest = agents_unix_local_session_manifest (self);
  GPtrArray *grants = agents_manifest_get_extra_path_grants (manifest);
  g_autofree char *root = agents_unix_local_session_root (self);
  g_autoptr (GError) lexical_error = NULL;
  g_autoptr (AgentsWorkspacePathPolicy) policy = NULL;
  size_t best_len = 0;
  const char *rel;

  policy = agents_manifest_new_path_policy (manifest);
  target->abs = agents_workspace_path_policy_normalize_path (
    policy, path, AGENTS_WORKSPACE_PATH_HOST_NAMES, &lexical_error);
  if (target->abs == NULL && match_grant_alias (self, path, target))
    goto have_base;
  if (target->abs == NULL)
    {
      g_propagate_error (error, g_steal_pointer (&lexical_error));
      return FALSE;
    }
  if (agents_unix_local_session_is_at_or_under (target->abs, root))
    {
      target->base = g_strdup (root);
      target->is_root = TRUE;
      best_len = strlen (root);
    }
  for (guint i = 0; grants != NULL && i < grants->len; i++)
    {
      AgentsSandboxPathGrant *grant = g_ptr_array_index (grants, i);
      const char *grant_path = agents_sandbox_path_grant_get_path (grant);
      g_autofree char *dir = g_canonicalize_filename (grant_path, "/");

      if (!agents_unix_local_session_is_at_or_under (target->abs, dir) ||
          (target->base != NULL && strlen (dir) <= best_len))
        continue;
      best_len = strlen (dir);
      g_free (target->base);
      g_free (target->grant_path);
      target->base = g_steal_pointer (&dir);
      target->grant_path = g_strdup (grant_path);
      target->read_only = agents_sandbox_path_grant_get_read_only (grant);
      target->is_root = FALSE;
    }
  if (target->base == NULL)
    {
      set_escape_error (error, path);
      return FALSE;
    }

have_base:
  rel = target->abs + strlen (target->base);
  while (*rel == '/')
    rel++;
  target->rel = g_strdup (*rel ? rel : ".");
  return TRUE;
}

static gboolean
check_writable (const HostTarget *target, GError **error)
{
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  if (!target->read_only)
    return TRUE;
  g_variant_builder_add (&ctx, "{sv}", "path",
                         g_variant_new_string (target->abs));
  g_variant_builder_add (&ctx, "{sv}", "reason",
                         g_variant_new_string ("read_only_extra_path_grant"));
  g_variant_builder_add (&ctx, "{sv}", "grant_path",
                         g_variant_new_string (target->grant_path));
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE,
                            g_variant_builder_end (&ctx),
                            _ ("failed to write archive for path: %s"),
                            target->abs);
  return FALSE;
}

static void
set_io_error (GError **error,
              int code,
              const HostTarget *target,
              const char *reason)
{
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  g_variant_builder_add (&ctx, "{sv}", "path",
                         g_variant_new_string (target->abs));
  g_variant_builder_add (&ctx, "{sv}", "reason", g_variant_new_string (reason));
  if (code == AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ)
    agents_sandbox_error_set (error, code, g_variant_builder_end (&ctx),
                              _ ("failed to read archive for path: %s"),
                              target->abs);
  else
    agents_sandbox_error_set (error, code, g_variant_builder_end (&ctx),
                              _ ("failed to write archive for path: %s"),
                              target->abs);
}

void
agents_unix_local_session_set_openat2_disabled_for_testing (gboolean disabled)
{
  agents_unix_local_set_openat2_disabled (disabled);
}

/* Opens @rel beneath @dirfd; nothing, not even a symlink, may lead out of
 * it (EXDEV). */
static int
open_beneath (int dirfd, const char *rel, int flags, mode_t mode)
{
  return agents_unix_local_open_beneath (dirfd, rel, flags, mode);
}

static int
open_base (const HostTarget *target)
{
  return open (target->base, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

static gboolean
is_escape_errno (int err)
{
  return agents_unix_local_is_escape_errno (err);
}

/* ---- read ----------------------------------------------------------- */

static GInputStream *
read_file (AgentsUnixLocalSession *self, const char *path, GError **error)
{
  g_auto (HostTarget) target = { 0 };
  struct stat st;
  int base, fd, err;

  if (!resolve_target (self, path, &target, error))
    return NULL;

  base = open_base (&target);
  fd = base < 0
         ? -1
         : open_beneath (base, target.rel, O_RDONLY | O_NOCTTY | O_NONBLOCK, 0);
  err = errno;
  if (base >= 0)
    close (base);
  if (fd < 0 && is_escape_errno (err))
    set_escape_error (error, path);
  else if (fd < 0 && (err == ENOENT || err == ENOTDIR))
    agents_sandbox_error_set (
      error, AGENTS_SANDBOX_ERROR_WORKSPACE_READ_NOT_FOUND,
      g_variant_new_parsed ("{'path': <%s>}", target.abs),
      _ ("workspace file not found: %s"), target.abs);
  else if (fd < 0)
    set_io_error (error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ, &target,
                  g_strerror (err));
  if (fd < 0)
    return NULL;

  if (fstat (fd, &st) < 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      set_io_error (error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ, &target,
                    "not_a_regular_file");
      return NULL;
    }
  /* O_NONBLOCK only kept a fifo from blocking the open. */
  fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) & ~O_NONBLOCK);
  return g_unix_input_stream_new (fd, TRUE);
}

static void
read_thread (GTask *task,
             gpointer source_object,
             gpointer task_data,
             GCancellable *cancellable)
{
  GError *error = NULL;
  GInputStream *stream =
    read_file (AGENTS_UNIX_LOCAL_SESSION (source_object), task_data, &error);

  if (stream == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, stream, g_object_unref);
}

void
agents_unix_local_session_read (AgentsSandboxSession *session,
                                const char *path,
                                const char *user,
                                GTask *task)
{
  /* Files are read as the host user; @user cannot be switched to. */
  g_task_set_task_data (task, g_strdup (path), g_free);
  g_task_run_in_thread (task, read_thread);
}

/* ---- write ---------------------------------------------------------- */

/* Opens (creating as needed) the directory @rel beneath @base_fd. */
static int
ensure_dirs_beneath (int base_fd, const char *rel)
{
  g_auto (GStrv) parts = g_strsplit (rel, "/", -1);
  int cur = fcntl (base_fd, F_DUPFD_CLOEXEC, 3);

  for (guint i = 0; cur >= 0 && parts[i] != NULL; i++)
    {
      int next;

      if (*parts[i] == '\0' || g_str_equal (parts[i], "."))
        continue;
      next = open_beneath (cur, parts[i], O_PATH | O_DIRECTORY, 0);
      if (next < 0 && errno == ENOENT)
        {
          if (mkdirat (cur, parts[i], 0777) < 0 && errno != EEXIST)
            next = -1;
          else
            next = open_beneath (cur, parts[i], O_PATH | O_DIRECTORY, 0);
        }
      {
        int err = errno;

        close (cur);
        errno = err;
      }
      cur = next;
    }
  return cur;
}

static int
create_temp_beside (int dirfd, const char *name, char **tmp_name)
{
  for (guint attempt = 0; attempt < 100; attempt++)
    {
      g_autofree char *candidate =
        g_strdup_printf (".%s.%08x.tmp", name, g_random_int ());
      int fd =
        openat (dirfd, candidate,
                O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);

      if (fd >= 0)
        {
          *tmp_name = g_steal_pointer (&candidate);
          return fd;
        }
      if (errno != EEXIST)
        return -1;
    }
  errno = EEXIST;
  return -1;
}

/* Streams @data into a temporary file beside the target, then renames it
 * over the target: readers never see a half-written file, and a symlink
 * at the target is replaced, never followed. */
static gboolean
write_into (int dirfd,
            const char *name,
            GInputStream *data,
            GCancellable *cancellable,
            int *err)
{
  g_autoptr (GOutputStream) out = NULL;
  g_autofree char *tmp_name = NULL;
  struct stat st;
  gboolean ok;
  int fd;

  if (fstatat (dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
      S_ISDIR (st.st_mode))
    {
      *err = EISDIR;
      return FALSE;
    }
  fd = create_temp_beside (dirfd, name, &tmp_name);
  if (fd < 0)
    {
      *err = errno;
      return FALSE;
    }
  if (fstatat (dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
      S_ISREG (st.st_mode))
    fchmod (fd, st.st_mode & 0777); /* never set-id bits */

  out = g_unix_output_stream_new (fd, TRUE);
  ok = g_output_stream_splice (out, data, G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET,
                               cancellable, NULL) >= 0 &&
       renameat (dirfd, tmp_name, dirfd, name) == 0;
  *err = errno ? errno : EIO;
  if (!ok)
    unlinkat (dirfd, tmp_name, 0);
  return ok;
}

static gboolean
write_file (AgentsUnixLocalSession *self,
            const char *path,
            GInputStream *data,
            GCancellable *cancellable,
            GError **error)
{
  g_auto (HostTarget) target = { 0 };
  g_autofree char *parent = NULL;
  g_autofree char *name = NULL;
  int base, dirfd, err = 0;
  gboolean ok = FALSE;

  if (!resolve_target (self, path, &target, error) ||
      !check_writable (&target, error))
    return FALSE;
  if (g_str_equal (target.rel, "."))
    {
      set_io_error (error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE,
                    &target, "is_a_directory");
      return FALSE;
    }
  if (target.is_root)
    g_mkdir_with_parents (target.base, 0755);

  parent = g_path_get_dirname (target.rel);
  name = g_path_get_basename (target.rel);
  base = open_base (&target);
  dirfd = base < 0 ? -1 : ensure_dirs_beneath (base, parent);
  err = errno;
  if (dirfd >= 0)
    ok = write_into (dirfd, name, data, cancellable, &err);
  if (base >= 0)
    close (base);
  if (dirfd >= 0)
    close (dirfd);

  if (ok)
    return TRUE;
  if (dirfd < 0 && is_escape_errno (err))
    set_escape_error (error, path);
  else if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;
  else
    set_io_error (error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE, &target,
                  g_strerror (err));
  return FALSE;
}

typedef struct
{
  char *path;
  GInputStream *data;
} WriteData;

static void
write_data_free (WriteData *wd)
{
  g_free (wd->path);
  g_clear_object (&wd->data);
  g_free (wd);
}

static void
write_thread (GTask *task,
              gpointer source_object,
              gpointer task_data,
              GCancellable *cancellable)
{
  WriteData *wd = task_data;
  GError *error = NULL;
  gboolean ok = write_file (AGENTS_UNIX_LOCAL_SESSION (source_object), wd->path,
                            wd->data, cancellable, &error);

  /* Even a failed write may have made directories. */
  agents_unix_local_session_mark_handover_pending (
    AGENTS_UNIX_LOCAL_SESSION (source_object));
  if (ok)
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

void
agents_unix_local_session_write (AgentsSandboxSession *session,
                                 const char *path,
                                 GInputStream *data,
                                 const char *user,
                                 GTask *task)
{
  WriteData *wd = g_new0 (WriteData, 1);

  wd->path = g_strdup (path);
  wd->data = g_object_ref (data);
  g_task_set_task_data (task, wd, (GDestroyNotify) write_data_free);
  g_task_run_in_thread (task, write_thread);
}

/* ---- validate_path_access ------------------------------------------- */

/* Resolves the deepest existing ancestor of @target beneath its base:
 * a symlink leading out of it is an escape. Only "missing" lets the
 * check go on with the parent; any other failure proves nothing, so the
 * path is refused. */
static gboolean
check_existing_prefix (const HostTarget *target,
                       const char *path,
                       GError **error)
{
  g_autofree char *rel = g_strdup (target->rel);
  int base = open_base (target);
  int err = errno;

  /* Nothing exists beneath a missing base, so nothing can lead out. */
  if (base < 0 && err == ENOENT)
    return TRUE;
  while (base >= 0)
    {
      int fd = open_beneath (base, rel, O_PATH, 0);
      char *parent;

      err = errno;
      if (fd >= 0)
        {
          close (fd);
          close (base);
          return TRUE;
        }
      if ((err != ENOENT && err != ENOTDIR) || g_str_equal (rel, "."))
        break;
      parent = g_path_get_dirname (rel);
      g_free (rel);
      rel = parent;
    }
  if (base >= 0)
    close (base);
  if (is_escape_errno (err))
    set_escape_error (error, path);
  else
    agents_sandbox_error_set_invalid_path (error, path, "unverifiable_path");
  return FALSE;
}

static void
validate_thread (GTask *task,
                 gpointer source_object,
                 gpointer task_data,
                 GCancellable *cancellable)
{
  AgentsUnixLocalSession *self = AGENTS_UNIX_LOCAL_SESSION (source_object);
  const char *path = task_data;
  gboolean for_write =
    GPOINTER_TO_INT (g_object_get_data (G_OBJECT (task), "for-write"));
  g_auto (HostTarget) target = { 0 };
  GError *error = NULL;

  if (!resolve_target (self, path, &target, &error) ||
      (for_write && !check_writable (&target, &error)) ||
      !check_existing_prefix (&target, path, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  g_task_return_pointer (task, g_steal_pointer (&target.abs), g_free);
}

void
agents_unix_local_session_validate_path_access (AgentsSandboxSession *session,
                                                const char *path,
                                                gboolean for_write,
                                                GTask *task)
{
  g_task_set_task_data (task, g_strdup (path), g_free);
  g_object_set_data (G_OBJECT (task), "for-write", GINT_TO_POINTER (for_write));
  g_task_run_in_thread (task, validate_thread);
}

/* ---- ls, mkdir, rm -------------------------------------------------- */

/* Done on the host through directory descriptors rather than by running
 * `ls`, `mkdir` and `rm` on a checked path: a directory swapped for a
 * symlink between the check and the command would redirect them. */

typedef enum
{
  HOST_OP_LS,
  HOST_OP_MKDIR,
  HOST_OP_RM,
} HostOpKind;

typedef struct
{
  HostOpKind kind;
  char *path;
  gboolean flag; /* parents / recursive */
} HostOp;

static void
host_op_free (HostOp *op)
{
  g_free (op->path);
  g_free (op);
}

static gboolean
run_host_op (HostOp *op,
             const HostTarget *target,
             GCancellable *cancellable,
             GListModel **listing,
             GError **error)
{
  switch (op->kind)
    {
    case HOST_OP_LS:
      *listing = agents_unix_local_fs_ls (target->base, target->rel,
                                          target->abs, op->path, error);
      return *listing != NULL;
    case HOST_OP_MKDIR:
      /* The root and grants are the configured directories: made as
       * `mkdir -p` would have made them. */
      if (op->flag)
        g_mkdir_with_parents (target->base, 0755);
      return agents_unix_local_fs_mkdir (target->base, target->rel, target->abs,
                                         op->path, op->flag, error);
    case HOST_OP_RM:
      return agents_unix_local_fs_rm (target->base, target->rel, target->abs,
                                      op->path, op->flag, cancellable, error);
    default:
      g_assert_not_reached ();
    }
}

static void
host_op_thread (GTask *task,
                gpointer source_object,
                gpointer task_data,
                GCancellable *cancellable)
{
  AgentsUnixLocalSession *self = AGENTS_UNIX_LOCAL_SESSION (source_object);
  HostOp *op = task_data;
  g_auto (HostTarget) target = { 0 };
  GListModel *listing = NULL;
  GError *error = NULL;
  gboolean ok = resolve_target (self, op->path, &target, &error) &&
                (op->kind == HOST_OP_LS || check_writable (&target, &error)) &&
                run_host_op (op, &target, cancellable, &listing, &error);

  /* Even a failed `mkdir -p` may have made some directories. */
  if (op->kind == HOST_OP_MKDIR)
    agents_unix_local_session_mark_handover_pending (self);
  if (!ok)
    g_task_return_error (task, error);
  else if (op->kind == HOST_OP_LS)
    g_task_return_pointer (task, listing, g_object_unref);
  else
    g_task_return_boolean (task, TRUE);
}

static void
start_host_op (GTask *task, HostOpKind kind, const char *path, gboolean flag)
{
  HostOp *op = g_new0 (HostOp, 1);

  op->kind = kind;
  op->path = g_strdup (path);
  op->flag = flag;
  g_task_set_task_data (task, op, (GDestroyNotify) host_op_free);
  g_task_run_in_thread (task, host_op_thread);
}

void
agents_unix_local_session_ls (AgentsSandboxSession *session,
                              const char *path,
                              GTask *task)
{
  start_host_op (task, HOST_OP_LS, path, FALSE);
}

void
agents_unix_local_session_mkdir (AgentsSandboxSession *session,
                                 const char *path,
                                 gboolean parents,
                                 GTask *task)
{
  start_host_op (task, HOST_OP_MKDIR, path, parents);
}

void
agents_unix_local_session_rm (AgentsSandboxSession *session,
                              const char *path,
                              gboolean recursive,
                              GTask *task)
{
  start_host_op (task, HOST_OP_RM, path, recursive);
}
