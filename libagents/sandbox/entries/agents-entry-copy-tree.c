/* agents-entry-copy-tree.c - copying a host directory tree into the session
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

#include "agents-entry-apply-private.h"
#include "agents-local-source-private.h"
#include "agents-json-private.h"
#include "agents-manifest-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-sandbox-session.h"

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
  int fd = *rel ? agents_local_open_beneath (
                    copy->root_fd, rel, O_RDONLY | O_DIRECTORY, &reason, &child)
                : dup (copy->root_fd);

  if (fd < 0 || (dir = fdopendir (fd)) == NULL)
    {
      if (fd >= 0)
        close (fd);
      agents_local_source_set_error_full (error, copy->error_code, copy->src,
                                          reason, NULL, child);
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
          agents_local_source_set_error_full (
            error, copy->error_code, copy->src, "symlink_not_supported", NULL,
            link);
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

  agents_local_source_run_test_hook (AGENTS_LOCAL_SOURCE_HOOK_OPEN_FILE,
                                     file->rel);
  fd = agents_local_open_beneath (file->copy->root_fd, file->rel,
                                  O_RDONLY | O_NONBLOCK, &reason, &child);
  if (fd >= 0 && (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode)))
    {
      close (fd);
      fd = -1;
      reason = "not_a_file";
    }
  if (fd < 0)
    {
      agents_local_source_set_error_full (&error, file->copy->error_code,
                                          file->copy->src, reason, NULL, child);
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
  if (agents_checksum_stream_write_finish (
        write->content, written, copy->error_code, copy->src, &sha, &error))
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
  write->content = agents_checksum_stream_new_for_fd (file->fd);
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
