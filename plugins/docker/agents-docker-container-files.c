/* agents-docker-container-files.c - files in and out of one container
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>

#include "agents-docker-container-private.h"
#include "agents-docker-pipe.h"
#include "agents-docker-tar.h"

static char *
archive_path (AgentsDockerContainer *self, const char *abs)
{
  g_autofree char *escaped = agents_docker_engine_escape (abs);

  return agents_docker_container_path (self, "/archive?path=%s", escaped);
}

/* ---- files ---------------------------------------------------------- */

static void
set_not_found (GError **error, const char *abs)
{
  /* Names need not be UTF-8; messages and contexts must be. */
  g_autofree char *shown = g_utf8_make_valid (abs, -1);

  agents_sandbox_error_set (error,
                            AGENTS_SANDBOX_ERROR_WORKSPACE_READ_NOT_FOUND,
                            g_variant_new_parsed ("{'path': <%s>}", shown),
                            _ ("workspace file not found: %s"), shown);
}

static void
set_io_error (GError **error, int code, const char *abs, const char *reason)
{
  g_autofree char *shown = g_utf8_make_valid (abs, -1);

  agents_sandbox_error_set (
    error, code,
    g_variant_new_parsed ("{'path': <%s>, 'reason': <%s>}", shown, reason),
    code == AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ
      ? _ ("could not read %s from the workspace: %s")
      : _ ("could not write %s into the workspace: %s"),
    shown, reason);
}

#define CAT_READ_LIMIT (256 * 1024 * 1024)

/* The engine's archives cannot carry names that are not UTF-8 (it sends
 * an empty one): such files are read with cat, whole. */
static GInputStream *
read_file_by_exec (AgentsDockerContainer *self,
                   const char *abs,
                   GCancellable *cancellable,
                   GError **error)
{
  const char *argv[] = { "cat", "--", abs, NULL };
  g_autoptr (AgentsExecResult) result = NULL;
  g_autofree char *err = NULL;
  GError *local = NULL;

  result = agents_docker_container_exec (
    self, NULL, argv, "0", CAT_READ_LIMIT + 1, cancellable, &local);
  if (result == NULL)
    {
      g_propagate_error (
        error, agents_docker_map_error (
                 local, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ, NULL));
      g_error_free (local);
      return NULL;
    }
  err = agents_exec_result_dup_stderr_text (result);
  if (agents_exec_result_get_exit_code (result) != 0 &&
      strstr (err, "No such file") != NULL)
    {
      set_not_found (error, abs);
      return NULL;
    }
  if (agents_exec_result_get_exit_code (result) != 0 ||
      g_bytes_get_size (agents_exec_result_get_stdout (result)) >
        CAT_READ_LIMIT)
    {
      set_io_error (error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ, abs,
                    agents_exec_result_get_exit_code (result) != 0
                      ? "not_a_regular_file"
                      : "too_large");
      return NULL;
    }
  return g_memory_input_stream_new_from_bytes (
    agents_exec_result_get_stdout (result));
}

GInputStream *
agents_docker_container_read_file (AgentsDockerContainer *self,
                                   const char *abs,
                                   GCancellable *cancellable,
                                   GError **error)
{
  g_autofree char *path = archive_path (self, abs);
  g_autoptr (GInputStream) tar = NULL;
  GInputStream *file;
  GError *local = NULL;

  if (!g_utf8_validate (abs, -1, NULL))
    return read_file_by_exec (self, abs, cancellable, error);
  tar = agents_docker_engine_call_stream (self->engine, "GET", path, NULL, -1,
                                          NULL, cancellable, &local);
  if (tar == NULL &&
      g_error_matches (local, AGENTS_DOCKER_ERROR,
                       AGENTS_DOCKER_ERROR_NOT_FOUND) &&
      !agents_docker_is_container_gone (local))
    {
      g_error_free (local);
      set_not_found (error, abs);
      return NULL;
    }
  if (tar == NULL)
    {
      g_propagate_error (error, local);
      agents_docker_map_error_in_place (
        error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ);
      return NULL;
    }
  file = agents_docker_tar_open_single_file (tar, cancellable, &local);
  if (file == NULL && local->domain == G_IO_ERROR &&
      (local->code == G_IO_ERROR_IS_DIRECTORY ||
       local->code == G_IO_ERROR_NOT_REGULAR_FILE))
    {
      g_error_free (local);
      set_io_error (error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ, abs,
                    "not_a_regular_file");
      return NULL;
    }
  if (file == NULL)
    g_propagate_error (error, local);
  return file;
}

/* The size of @data from here to its end, when it can be told without
 * reading it. */
static gboolean
stream_remaining_size (GInputStream *data, guint64 *size)
{
  GSeekable *seekable;
  goffset here, end;

  if (!G_IS_SEEKABLE (data) || !g_seekable_can_seek (G_SEEKABLE (data)))
    return FALSE;
  seekable = G_SEEKABLE (data);
  here = g_seekable_tell (seekable);
  if (!g_seekable_seek (seekable, 0, G_SEEK_END, NULL, NULL))
    return FALSE;
  end = g_seekable_tell (seekable);
  if (!g_seekable_seek (seekable, here, G_SEEK_SET, NULL, NULL) || end < here)
    return FALSE;
  *size = end - here;
  return TRUE;
}

/* Copies @data into an unlinked temporary file to learn its size. */
static GInputStream *
spool (GInputStream *data,
       guint64 *size,
       GCancellable *cancellable,
       GError **error)
{
  g_autoptr (GFileIOStream) io = NULL;
  g_autoptr (GFile) file = g_file_new_tmp ("agents-docker-XXXXXX", &io, error);
  GOutputStream *out;
  GInputStream *in;
  gssize n;

  if (file == NULL)
    return NULL;
  g_file_delete (file, NULL, NULL);
  out = g_io_stream_get_output_stream (G_IO_STREAM (io));
  n = g_output_stream_splice (out, data, G_OUTPUT_STREAM_SPLICE_NONE,
                              cancellable, error);
  if (n < 0 || !g_output_stream_flush (out, cancellable, error) ||
      !g_seekable_seek (G_SEEKABLE (io), 0, G_SEEK_SET, cancellable, error))
    return NULL;
  *size = n;
  /* Dropping the GFileIOStream would close its input stream too, so a
   * stream over that input keeps it; not the input itself, which the
   * GFileIOStream holds (a cycle that leaked both). */
  in = g_buffered_input_stream_new (
    g_io_stream_get_input_stream (G_IO_STREAM (io)));
  g_object_set_data_full (G_OBJECT (in), "agents-docker-spool",
                          g_steal_pointer (&io), g_object_unref);
  return in;
}

#define GO_MODE_DIR (G_GINT64_CONSTANT (1) << 31)

typedef enum
{
  PATH_MISSING,
  PATH_DIRECTORY,
  PATH_OTHER,
} PathKind;

/* What @abs is in the container (HEAD on the archive endpoint stats a
 * path without sending it). */
static gboolean
stat_path (AgentsDockerContainer *self,
           const char *abs,
           PathKind *kind,
           GCancellable *cancellable,
           GError **error)
{
  g_autofree char *path = archive_path (self, abs);
  g_autoptr (JsonNode) stat = NULL;
  GError *local = NULL;

  stat =
    agents_docker_engine_stat_path (self->engine, path, cancellable, &local);
  if (stat == NULL &&
      g_error_matches (local, AGENTS_DOCKER_ERROR,
                       AGENTS_DOCKER_ERROR_NOT_FOUND) &&
      !agents_docker_is_container_gone (local))
    {
      g_error_free (local);
      *kind = PATH_MISSING;
      return TRUE;
    }
  if (stat == NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  *kind = json_object_get_int_member_with_default (json_node_get_object (stat),
                                                   "mode", 0) &
              GO_MODE_DIR
            ? PATH_DIRECTORY
            : PATH_OTHER;
  return TRUE;
}

/* The engine would replace a directory by the file: refuse that, and
 * make the parent directories the file needs. */
static gboolean
prepare_file_target (AgentsDockerContainer *self,
                     const char *abs,
                     GCancellable *cancellable,
                     GError **error)
{
  g_autofree char *dir = g_path_get_dirname (abs);
  const char *argv[] = { "mkdir", "-p", "--", dir, NULL };
  PathKind kind;

  if (!stat_path (self, abs, &kind, cancellable, error))
    return FALSE;
  if (kind == PATH_DIRECTORY)
    {
      set_io_error (error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE, abs,
                    "is_a_directory");
      return FALSE;
    }
  if (kind == PATH_OTHER)
    return TRUE;
  if (!stat_path (self, dir, &kind, cancellable, error))
    return FALSE;
  if (kind == PATH_DIRECTORY)
    return TRUE;
  if (kind == PATH_OTHER)
    {
      set_io_error (error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE, abs,
                    "parent_not_a_directory");
      return FALSE;
    }
  return agents_docker_container_exec_checked (self, argv, cancellable, error);
}

static gboolean
put_single_file (AgentsDockerContainer *self,
                 const char *abs,
                 GInputStream *data,
                 guint64 size,
                 guint mode,
                 GCancellable *cancellable,
                 GError **error)
{
  g_autofree char *dir = g_path_get_dirname (abs);
  g_autofree char *name = g_path_get_basename (abs);
  g_autofree char *path = archive_path (self, dir);
  g_autoptr (GInputStream) tar =
    agents_docker_tar_single_file_stream (name, mode, data, size);
  g_autoptr (GInputStream) answer = NULL;

  answer = agents_docker_engine_call_stream (
    self->engine, "PUT", path, tar,
    (gint64) agents_docker_tar_single_file_length (name, size),
    "application/x-tar", cancellable, error);
  if (answer == NULL)
    return FALSE;
  return g_input_stream_close (answer, cancellable, error);
}

gboolean
agents_docker_container_write_file (AgentsDockerContainer *self,
                                    const char *abs,
                                    GInputStream *data,
                                    guint mode,
                                    GCancellable *cancellable,
                                    GError **error)
{
  g_autoptr (GInputStream) spooled = NULL;
  guint64 size = 0;

  if (!stream_remaining_size (data, &size))
    {
      spooled = spool (data, &size, cancellable, error);
      if (spooled == NULL)
        {
          agents_docker_map_error_in_place (
            error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE);
          return FALSE;
        }
      data = spooled;
    }
  if (!prepare_file_target (self, abs, cancellable, error) ||
      !put_single_file (self, abs, data, size, mode, cancellable, error))
    {
      agents_docker_map_error_in_place (
        error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE);
      return FALSE;
    }
  return TRUE;
}

/* ---- persist and hydrate -------------------------------------------- */

/* The tar of @root, as the engine gives it: its entries below the
 * basename of @root. */
static GInputStream *
read_archive (AgentsDockerContainer *self,
              const char *root,
              GCancellable *cancellable,
              GError **error)
{
  g_autofree char *path = archive_path (self, root);

  return agents_docker_engine_call_stream (self->engine, "GET", path, NULL, -1,
                                           NULL, cancellable, error);
}

typedef struct
{
  AgentsDockerContainer *container;
  char *root;
  char **exclude;
} PersistJob;

static void
persist_job_free (PersistJob *job)
{
  g_object_unref (job->container);
  g_free (job->root);
  g_strfreev (job->exclude);
  g_free (job);
}

static gboolean
persist_produce (GOutputStream *out,
                 gpointer data,
                 GCancellable *cancellable,
                 GError **error)
{
  PersistJob *job = data;
  g_autofree char *root_name = g_path_get_basename (job->root);
  g_autoptr (GInputStream) tar =
    read_archive (job->container, job->root, cancellable, error);

  if (tar == NULL || !agents_docker_tar_rebase_workspace (
                       tar, root_name, (const char *const *) job->exclude, out,
                       cancellable, error))
    {
      agents_docker_map_error_in_place (
        error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ);
      return FALSE;
    }
  return TRUE;
}

GInputStream *
agents_docker_container_persist (AgentsDockerContainer *self,
                                 const char *root,
                                 const char *const *exclude,
                                 GError **error)
{
  PersistJob *job = g_new0 (PersistJob, 1);

  job->container = g_object_ref (self);
  job->root = g_strdup (root);
  job->exclude = g_strdupv ((char **) exclude);
  return agents_docker_pipe_stream_new (
    persist_produce, job, (GDestroyNotify) persist_job_free, error);
}

static GHashTable *
existing_links (AgentsDockerContainer *self,
                const char *root,
                GCancellable *cancellable,
                GError **error)
{
  g_autofree char *root_name = g_path_get_basename (root);
  g_autoptr (GInputStream) tar = read_archive (self, root, cancellable, error);

  if (tar == NULL)
    return NULL;
  return agents_docker_tar_list_symlinks (tar, root_name, cancellable, error);
}

typedef struct
{
  GInputStream *data;
  AgentsArchiveLimits *limits;
  GHashTable *links;
} ValidateJob;

static void
validate_job_free (ValidateJob *job)
{
  g_object_unref (job->data);
  agents_archive_limits_free (job->limits);
  g_hash_table_unref (job->links);
  g_free (job);
}

static gboolean
validate_produce (GOutputStream *out,
                  gpointer data,
                  GCancellable *cancellable,
                  GError **error)
{
  ValidateJob *job = data;

  /* Only snapshots come this way: their links are kept as they were. */
  return agents_docker_tar_validate_copy (job->data, job->limits, job->links,
                                          TRUE, out, cancellable, error);
}

/* Reads what is left of @stream so that its producer ends, and returns
 * the producer's own error, if it failed. */
static GError *
drain_producer (GInputStream *stream)
{
  char buffer[16 * 1024];
  GError *error = NULL;

  while (g_input_stream_read (stream, buffer, sizeof buffer, NULL, &error) > 0)
    ;
  return error;
}

gboolean
agents_docker_container_hydrate (AgentsDockerContainer *self,
                                 const char *root,
                                 GInputStream *data,
                                 const AgentsArchiveLimits *limits,
                                 GCancellable *cancellable,
                                 GError **error)
{
  g_autofree char *path = archive_path (self, root);
  g_autoptr (GInputStream) validated = NULL;
  g_autoptr (GInputStream) answer = NULL;
  ValidateJob *job;
  GError *local = NULL;

  job = g_new0 (ValidateJob, 1);
  job->links = existing_links (self, root, cancellable, error);
  if (job->links == NULL)
    {
      g_free (job);
      agents_docker_map_error_in_place (
        error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE);
      return FALSE;
    }
  job->data = g_object_ref (data);
  job->limits = agents_archive_limits_copy (limits);
  validated = agents_docker_pipe_stream_new (
    validate_produce, job, (GDestroyNotify) validate_job_free, error);
  if (validated == NULL)
    return FALSE;

  answer =
    agents_docker_engine_call_stream (self->engine, "PUT", path, validated, -1,
                                      "application/x-tar", cancellable, &local);
  if (answer != NULL)
    return g_input_stream_close (answer, cancellable, error);
  {
    /* A refused member ends the upload early: its error is the one
     * to report, not the engine's complaint about a short archive. */
    GError *validation = drain_producer (validated);

    if (validation != NULL)
      {
        g_clear_error (&local);
        local = validation;
      }
  }
  g_propagate_error (error, local);
  agents_docker_map_error_in_place (
    error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE);
  return FALSE;
}
