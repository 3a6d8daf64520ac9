/* agents-snapshot-fingerprint.c - whether a live workspace is still what
 * its snapshot holds
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A stop that persists to a snapshot records the SHA-256 of the archive
 * it persisted (hashed as the snapshot reads it) together with a digest
 * of the manifest; a start that finds its workspace preserved archives
 * it again and compares. Equal fingerprints spare a clear and a restore;
 * anything else (no record, a backend whose archives are not the same
 * twice, an error) restores, which is always right.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "agents-snapshot-fingerprint-private.h"

#include "agents-manifest.h"
#include "agents-sandbox-session-private.h"
#include "agents-sandbox-session-state.h"

#define CACHE_BASE "/tmp/openai-agents/session-state"
#define READ_CHUNK (64 * 1024)

static char *
manifest_digest (AgentsSandboxSession *self)
{
  g_autoptr (JsonNode) node =
    agents_manifest_to_json (agents_sandbox_session_get_manifest (self));
  g_autofree char *text = json_to_string (node, FALSE);

  return g_compute_checksum_for_string (G_CHECKSUM_SHA256, text, -1);
}

char *
agents_snapshot_fingerprint_compose (AgentsSandboxSession *self,
                                     const char *archive_sha256)
{
  g_autofree char *manifest = manifest_digest (self);
  g_autofree char *text =
    g_strdup_printf ("%s\n%s\n%s\n", AGENTS_SNAPSHOT_FINGERPRINT_VERSION,
                     manifest, archive_sha256);

  return g_compute_checksum_for_string (G_CHECKSUM_SHA256, text, -1);
}

/* ---- the live workspace ------------------------------------------------ */

typedef struct
{
  GInputStream *archive;
  GChecksum *checksum;
} Compute;

static void
compute_free (Compute *compute)
{
  if (compute->archive != NULL)
    {
      g_input_stream_close (compute->archive, NULL, NULL);
      g_object_unref (compute->archive);
    }
  g_checksum_free (compute->checksum);
  g_free (compute);
}

static void compute_read_next (GTask *task);

static void
compute_read_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  Compute *compute = g_task_get_task_data (task);
  g_autoptr (GBytes) bytes = NULL;
  GError *error = NULL;

  bytes =
    g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result, &error);
  if (bytes == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  if (g_bytes_get_size (bytes) == 0)
    {
      g_task_return_pointer (task,
                             agents_snapshot_fingerprint_compose (
                               g_task_get_source_object (task),
                               g_checksum_get_string (compute->checksum)),
                             g_free);
      return;
    }
  g_checksum_update (compute->checksum, g_bytes_get_data (bytes, NULL),
                     g_bytes_get_size (bytes));
  compute_read_next (g_steal_pointer (&task));
}

static void
compute_read_next (GTask *task)
{
  Compute *compute = g_task_get_task_data (task);

  g_input_stream_read_bytes_async (
    compute->archive, READ_CHUNK, G_PRIORITY_DEFAULT,
    g_task_get_cancellable (task), compute_read_done, task);
}

static void
compute_archived (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Compute *compute = g_task_get_task_data (task);
  GError *error = NULL;

  compute->archive = agents_sandbox_session_persist_workspace_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  if (compute->archive == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  compute_read_next (task);
}

void
agents_snapshot_fingerprint_compute_async (AgentsSandboxSession *self,
                                           GCancellable *cancellable,
                                           GAsyncReadyCallback callback,
                                           gpointer user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  Compute *compute = g_new0 (Compute, 1);

  compute->checksum = g_checksum_new (G_CHECKSUM_SHA256);
  g_task_set_source_tag (task, agents_snapshot_fingerprint_compute_async);
  g_task_set_task_data (task, compute, (GDestroyNotify) compute_free);
  agents_sandbox_session_persist_workspace_async (self, cancellable,
                                                  compute_archived, task);
}

char *
agents_snapshot_fingerprint_compute_finish (AgentsSandboxSession *self,
                                            GAsyncResult *result,
                                            GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- the cached record ------------------------------------------------- */

static char *
session_hex (AgentsSandboxSession *self)
{
  const char *id = agents_sandbox_session_state_get_session_id (
    agents_sandbox_session_peek_state (self));
  GString *hex = g_string_new (NULL);

  for (const char *p = id; *p != '\0'; p++)
    if (g_ascii_isxdigit (*p))
      g_string_append_c (hex, g_ascii_tolower (*p));
  return g_string_free (hex, FALSE);
}

static char *
cache_dir (AgentsSandboxSession *self)
{
  g_autofree char *hex = session_hex (self);

  return g_build_filename (CACHE_BASE, hex, NULL);
}

char *
agents_snapshot_fingerprint_cache_path (AgentsSandboxSession *self)
{
  g_autofree char *dir = cache_dir (self);

  return g_build_filename (dir, "fingerprint.json", NULL);
}

/* Whether the record lives on the host: the workspace root is a host
 * directory (unix_local, and test sessions), as the reference decides. */
static gboolean
cache_on_host (AgentsSandboxSession *self)
{
  const char *root =
    agents_manifest_get_root (agents_sandbox_session_get_manifest (self));

  return g_file_test (root, G_FILE_TEST_IS_DIR);
}

static char *
record_json (const char *fingerprint)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (JsonNode) node = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "fingerprint");
  json_builder_add_string_value (builder, fingerprint);
  json_builder_set_member_name (builder, "version");
  json_builder_add_string_value (builder, AGENTS_SNAPSHOT_FINGERPRINT_VERSION);
  json_builder_end_object (builder);
  node = json_builder_get_root (builder);
  return json_to_string (node, FALSE);
}

/* Opens (making it, 0700) the directory @name beneath @parent_fd, never
 * through a symlink, and only when this user owns it: /tmp is shared, and
 * a directory another user made there could be swapped under us. */
static int
open_owned_dir (int parent_fd, const char *name, gboolean create)
{
  struct stat st;
  int fd;

  if (create && mkdirat (parent_fd, name, 0700) < 0 && errno != EEXIST)
    return -1;
  fd =
    openat (parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return -1;
  if (fstat (fd, &st) < 0 || st.st_uid != geteuid ())
    {
      close (fd);
      errno = EPERM;
      return -1;
    }
  return fd;
}

static gboolean
write_all (int fd, const char *data, gsize len)
{
  while (len > 0)
    {
      ssize_t n = write (fd, data, len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      data += n;
      len -= n;
    }
  return TRUE;
}

/* Opens the record's directory of the session, never through a link
 * nor another user's directory; -1 on failure. */
static int
open_record_dir_full (AgentsSandboxSession *self, guint depth, gboolean create)
{
  g_autofree char *hex = session_hex (self);
  const char *parts[] = { "openai-agents", "session-state", hex };
  int dir_fd = open ("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  for (guint i = 0; dir_fd >= 0 && i < depth; i++)
    {
      int next = open_owned_dir (dir_fd, parts[i], create);

      close (dir_fd);
      dir_fd = next;
    }
  return dir_fd;
}

static int
open_record_dir (AgentsSandboxSession *self, gboolean create)
{
  return open_record_dir_full (self, 3, create);
}

static gboolean
write_host_record (AgentsSandboxSession *self, const char *json, GError **error)
{
  int dir_fd = open_record_dir (self, TRUE);
  int fd;
  gboolean ok;

  if (dir_fd < 0)
    goto failed;
  fd = openat (dir_fd, "fingerprint.json.tmp",
               O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  ok = fd >= 0 && write_all (fd, json, strlen (json));
  if (fd >= 0)
    ok = close (fd) == 0 && ok;
  ok = ok && renameat (dir_fd, "fingerprint.json.tmp", dir_fd,
                       "fingerprint.json") == 0;
  if (!ok)
    unlinkat (dir_fd, "fingerprint.json.tmp", 0);
  close (dir_fd);
  if (ok)
    return TRUE;

failed:
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno),
               _ ("could not record the snapshot fingerprint under %s: %s"),
               CACHE_BASE, g_strerror (errno));
  return FALSE;
}

static void
cache_written_in_sandbox (GObject *source,
                          GAsyncResult *result,
                          gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  g_autoptr (AgentsExecResult) exec_result = NULL;
  GError *error = NULL;

  exec_result = agents_sandbox_session_exec_raw_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  if (exec_result == NULL)
    g_task_return_error (task, error);
  else if (!agents_exec_result_ok (exec_result))
    g_task_return_new_error (
      task, G_IO_ERROR, G_IO_ERROR_FAILED,
      _ ("could not record the snapshot fingerprint in the sandbox"));
  else
    g_task_return_boolean (task, TRUE);
}

void
agents_snapshot_fingerprint_cache_write_async (AgentsSandboxSession *self,
                                               const char *fingerprint,
                                               GCancellable *cancellable,
                                               GAsyncReadyCallback callback,
                                               gpointer user_data)
{
  g_autoptr (GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_autofree char *json = record_json (fingerprint);
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  GError *error = NULL;

  g_task_set_source_tag (task, agents_snapshot_fingerprint_cache_write_async);
  if (cache_on_host (self))
    {
      if (write_host_record (self, json, &error))
        g_task_return_boolean (task, TRUE);
      else
        g_task_return_error (task, error);
      return;
    }

  dir = cache_dir (self);
  path = agents_snapshot_fingerprint_cache_path (self);
  {
    const char *argv[] = {
      "sh",
      "-c",
      "umask 077 && mkdir -p -- \"$1\" && printf '%s' \"$3\" > \"$2\"",
      "sh",
      dir,
      path,
      json,
      NULL,
    };

    agents_sandbox_session_exec_raw_async (self, argv, 10, cancellable,
                                           cache_written_in_sandbox,
                                           g_steal_pointer (&task));
  }
}

gboolean
agents_snapshot_fingerprint_cache_write_finish (AgentsSandboxSession *self,
                                                GAsyncResult *result,
                                                GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
cache_deleted (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (AgentsExecResult) exec_result =
    agents_sandbox_session_exec_raw_finish (AGENTS_SANDBOX_SESSION (source),
                                            result, NULL);
}

void
agents_snapshot_fingerprint_cache_delete (AgentsSandboxSession *self)
{
  g_autofree char *path = agents_snapshot_fingerprint_cache_path (self);
  const char *argv[] = { "rm", "-f", "--", path, NULL };

  if (cache_on_host (self))
    {
      agents_snapshot_fingerprint_cache_forget (self);
      return;
    }
  agents_sandbox_session_exec_raw_async (self, argv, 10, NULL, cache_deleted,
                                         NULL);
}

void
agents_snapshot_fingerprint_cache_forget (AgentsSandboxSession *self)
{
  g_autofree char *hex = NULL;
  int dir_fd;
  int parent_fd;

  if (!cache_on_host (self))
    return;
  dir_fd = open_record_dir (self, FALSE);
  if (dir_fd < 0)
    return;
  unlinkat (dir_fd, "fingerprint.json", 0);
  close (dir_fd);
  /* The session's directory goes too, when nothing else is in it. */
  hex = session_hex (self);
  parent_fd = open_record_dir_full (self, 2, FALSE);
  if (parent_fd >= 0)
    {
      unlinkat (parent_fd, hex, AT_REMOVEDIR);
      close (parent_fd);
    }
}
