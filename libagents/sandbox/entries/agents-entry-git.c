/* agents-entry-git.c - shallow checkouts of git repositories
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>

#include "agents-entry-apply-private.h"
#include "agents-entry-git-private.h"
#include "agents-json-private.h"
#include "agents-manifest.h"
#include "agents-sandbox-error-private.h"
#include "agents-sandbox-session-private.h"
#include "agents-sandbox-session.h"

/* ---- GitRepo --------------------------------------------------------- */

/**
 * AgentsGitRepo:
 *
 * A shallow checkout of a git repository. In a sandbox whose workspace
 * is not a host directory (a container, a remote sandbox) it is cloned
 * inside the sandbox with the sandbox's git, as the reference does, and
 * copied with `cp -R`; for a workspace that is a host directory
 * (`unix_local`) and for a repository on the host's file system, the
 * host's git clones it and the files are copied in without the `.git`
 * directory and without symlinks.
 */
G_DEFINE_FINAL_TYPE (AgentsGitRepo, agents_git_repo, AGENTS_TYPE_MANIFEST_ENTRY)

enum
{
  GIT_PROP_0,
  GIT_PROP_HOST,
  GIT_PROP_REPO,
  GIT_PROP_REF,
  GIT_PROP_SUBPATH,
  GIT_N_PROPS
};

static GParamSpec *git_properties[GIT_N_PROPS];

#define DEFAULT_GIT_HOST "github.com"
#define DEFAULT_GIT_REF "main"

static void
agents_git_repo_finalize (GObject *object)
{
  AgentsGitRepo *self = AGENTS_GIT_REPO (object);

  g_free (self->host);
  g_free (self->repo);
  g_free (self->ref);
  g_free (self->subpath);

  G_OBJECT_CLASS (agents_git_repo_parent_class)->finalize (object);
}

static void
agents_git_repo_get_property (GObject *object,
                              guint prop_id,
                              GValue *value,
                              GParamSpec *pspec)
{
  AgentsGitRepo *self = AGENTS_GIT_REPO (object);

  switch (prop_id)
    {
    case GIT_PROP_HOST:
      g_value_set_string (value, self->host);
      break;
    case GIT_PROP_REPO:
      g_value_set_string (value, self->repo);
      break;
    case GIT_PROP_REF:
      g_value_set_string (value, self->ref);
      break;
    case GIT_PROP_SUBPATH:
      g_value_set_string (value, self->subpath);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
replace_string (char **slot, const char *value, const char *fallback)
{
  g_free (*slot);
  *slot = g_strdup (value ? value : fallback);
}

static void
agents_git_repo_set_property (GObject *object,
                              guint prop_id,
                              const GValue *value,
                              GParamSpec *pspec)
{
  AgentsGitRepo *self = AGENTS_GIT_REPO (object);
  const char *str = g_value_get_string (value);

  switch (prop_id)
    {
    case GIT_PROP_HOST:
      replace_string (&self->host, str, DEFAULT_GIT_HOST);
      break;
    case GIT_PROP_REPO:
      replace_string (&self->repo, str, "");
      break;
    case GIT_PROP_REF:
      replace_string (&self->ref, str, DEFAULT_GIT_REF);
      break;
    case GIT_PROP_SUBPATH:
      agents_git_repo_set_subpath (self, str);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
git_serialize_fields (AgentsManifestEntry *entry, JsonBuilder *builder)
{
  AgentsGitRepo *self = AGENTS_GIT_REPO (entry);

  agents_json_add_string (builder, "host", self->host);
  agents_json_add_string (builder, "repo", self->repo);
  agents_json_add_string (builder, "ref", self->ref);
  agents_json_add_nullable_string (builder, "subpath", self->subpath);
}

static const char *subpath_problem (const char *subpath);

/* Checks what ends up on git's command line and in the clone URL. */
static gboolean
git_repo_check (AgentsGitRepo *self, const char **bad_member)
{
  g_auto (GStrv) parts = g_strsplit (self->repo, "/", -1);

  *bad_member = "host";
  if (*self->host == '\0' || *self->host == '-')
    return FALSE;
  *bad_member = "repo";
  if (*self->repo == '\0' || *self->repo == '-' || *self->repo == '/')
    return FALSE;
  for (guint i = 0; parts[i] != NULL; i++)
    if (g_str_equal (parts[i], ".."))
      return FALSE;
  *bad_member = "ref";
  if (*self->ref == '\0' || *self->ref == '-')
    return FALSE;
  *bad_member = "subpath";
  return self->subpath == NULL || subpath_problem (self->subpath) == NULL;
}

static gboolean
git_deserialize_fields (AgentsManifestEntry *entry,
                        JsonObject *object,
                        GError **error)
{
  AgentsGitRepo *self = AGENTS_GIT_REPO (entry);
  const char *host = NULL;
  const char *repo = NULL;
  const char *ref = NULL;
  const char *subpath = NULL;
  const char *bad_member;

  if (!agents_json_read_string (object, "host", FALSE, FALSE, &host, error) ||
      !agents_json_read_string (object, "repo", FALSE, TRUE, &repo, error) ||
      !agents_json_read_string (object, "ref", FALSE, FALSE, &ref, error) ||
      !agents_json_read_string (object, "subpath", TRUE, FALSE, &subpath,
                                error))
    return FALSE;

  replace_string (&self->host, host, DEFAULT_GIT_HOST);
  replace_string (&self->repo, repo, "");
  replace_string (&self->ref, ref, DEFAULT_GIT_REF);
  g_free (self->subpath);
  self->subpath = g_strdup (subpath);

  if (!git_repo_check (self, &bad_member))
    {
      agents_json_set_error (error, bad_member, "invalid_value",
                             _ ("invalid git_repo member “%s”"), bad_member);
      return FALSE;
    }
  return TRUE;
}

static void
git_copy_fields (AgentsManifestEntry *entry, AgentsManifestEntry *dest)
{
  AgentsGitRepo *self = AGENTS_GIT_REPO (entry);
  AgentsGitRepo *copy = AGENTS_GIT_REPO (dest);

  replace_string (&copy->host, self->host, DEFAULT_GIT_HOST);
  replace_string (&copy->repo, self->repo, "");
  replace_string (&copy->ref, self->ref, DEFAULT_GIT_REF);
  g_free (copy->subpath);
  copy->subpath = g_strdup (self->subpath);
}

static gboolean
git_equal_fields (AgentsManifestEntry *a, AgentsManifestEntry *b)
{
  AgentsGitRepo *ga = AGENTS_GIT_REPO (a);
  AgentsGitRepo *gb = AGENTS_GIT_REPO (b);

  return g_str_equal (ga->host, gb->host) && g_str_equal (ga->repo, gb->repo) &&
         g_str_equal (ga->ref, gb->ref) &&
         g_strcmp0 (ga->subpath, gb->subpath) == 0;
}

typedef struct
{
  char *url;
  char *clone_dir;
  GError *error; /* kept while the clone is removed */
} GitData;

static void
rm_tree_at (int parent_fd, const char *name)
{
  int fd =
    openat (parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  struct dirent *dent;
  DIR *dir;

  if (fd < 0)
    {
      unlinkat (parent_fd, name, 0);
      return;
    }
  dir = fdopendir (fd);
  if (dir == NULL)
    {
      close (fd);
      return;
    }
  while ((dent = readdir (dir)) != NULL)
    if (!g_str_equal (dent->d_name, ".") && !g_str_equal (dent->d_name, ".."))
      rm_tree_at (dirfd (dir), dent->d_name);
  closedir (dir);
  unlinkat (parent_fd, name, AT_REMOVEDIR);
}

static void
git_data_free (GitData *data)
{
  /* Normally removed already, in a thread; this is the last resort. */
  if (data->clone_dir != NULL)
    rm_tree_at (AT_FDCWD, data->clone_dir);
  g_free (data->url);
  g_free (data->clone_dir);
  g_clear_error (&data->error);
  g_free (data);
}

static void
git_cleanup_thread (GTask *task,
                    gpointer source_object,
                    gpointer task_data,
                    GCancellable *cancellable)
{
  GitData *git = task_data;

  rm_tree_at (AT_FDCWD, git->clone_dir);
  g_clear_pointer (&git->clone_dir, g_free);
  g_task_return_boolean (task, TRUE);
}

static void
git_cleaned_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GitData *git = g_task_get_task_data (G_TASK (result));

  if (git->error != NULL)
    g_task_return_error (task, g_steal_pointer (&git->error));
  else
    agents_apply_data_return_results (task);
}

/* Removes the clone, then completes the apply task with @error or the
 * results; takes the apply task reference and the git data. */
static void
git_finish (GTask *task, GitData *git, GError *error)
{
  g_autoptr (GTask) cleanup = g_task_new (NULL, NULL, git_cleaned_cb, task);

  git->error = error;
  g_task_set_task_data (cleanup, git, (GDestroyNotify) git_data_free);
  g_task_run_in_thread (cleanup, git_cleanup_thread);
}

static void
git_copied_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  AgentsApplyData *data = g_task_get_task_data (task);
  GitData *git = g_object_steal_data (G_OBJECT (task), "agents-git");
  g_autoptr (GPtrArray) files = NULL;
  GError *error = NULL;

  files = agents_entry_copy_tree_finish (result, &error);
  if (files != NULL)
    {
      g_ptr_array_unref (data->results);
      data->results = g_steal_pointer (&files);
    }
  git_finish (task, git, error);
}

static void
git_opened_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  AgentsApplyData *data = g_task_get_task_data (task);
  GError *error = NULL;
  int fd = agents_local_source_open_finish (result, &error);
  g_autofree char *src = NULL;

  if (fd < 0)
    {
      git_finish (task, g_object_steal_data (G_OBJECT (task), "agents-git"),
                  error);
      return;
    }
  src = agents_git_repo_dup_clone_url (AGENTS_GIT_REPO (data->entry));
  agents_entry_copy_tree_async (data->entry, data->session, fd, data->dest, src,
                                AGENTS_SANDBOX_ERROR_GIT_CLONE, TRUE,
                                g_task_get_cancellable (task), git_copied_cb,
                                task);
}

/* As the reference reports a failed clone. */
void
agents_git_clone_error (GError **error,
                        AgentsGitRepo *self,
                        const char *url,
                        const char *stderr_text)
{
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  g_variant_builder_add (&ctx, "{sv}", "url", g_variant_new_string (url));
  g_variant_builder_add (&ctx, "{sv}", "ref", g_variant_new_string (self->ref));
  g_variant_builder_add (&ctx, "{sv}", "stderr",
                         g_variant_new_string (stderr_text));
  g_variant_builder_add (&ctx, "{sv}", "repo",
                         g_variant_new_string (self->repo));
  if (self->subpath != NULL)
    g_variant_builder_add (&ctx, "{sv}", "subpath",
                           g_variant_new_string (self->subpath));
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_GIT_CLONE,
                            g_variant_builder_end (&ctx),
                            _ ("git clone failed for %s@%s"), url, self->ref);
}

static void
git_open_clone (GTask *task, GitData *git)
{
  AgentsApplyData *data = g_task_get_task_data (task);
  AgentsGitRepo *self = AGENTS_GIT_REPO (data->entry);
  const char *subpath = self->subpath ? self->subpath : ".";

  /* The subpath is confined to the clone like a local directory. */
  g_object_set_data_full (G_OBJECT (task), "agents-git", git,
                          (GDestroyNotify) git_data_free);
  agents_local_source_open_async (
    agents_local_source_new_dir (subpath, git->clone_dir, subpath,
                                 AGENTS_SANDBOX_ERROR_GIT_CLONE),
    g_task_get_cancellable (task), git_opened_cb, task);
}

typedef struct
{
  GTask *task;
  GitData *git;
  GSubprocess *process;
  GError *error;
} GitClone;

static void
git_clone_free (GitClone *clone)
{
  g_object_unref (clone->process);
  g_free (clone);
}

static void
git_killed_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GitClone *clone = user_data;

  g_subprocess_wait_finish (clone->process, result, NULL);
  git_finish (clone->task, clone->git, clone->error);
  git_clone_free (clone);
}

char *
agents_git_bytes_to_text (GBytes *bytes)
{
  if (bytes == NULL || g_bytes_get_size (bytes) == 0)
    return g_strdup ("");
  return g_utf8_make_valid (g_bytes_get_data (bytes, NULL),
                            g_bytes_get_size (bytes));
}

static void
git_cloned_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GitClone *clone = user_data;
  AgentsApplyData *data = g_task_get_task_data (clone->task);
  AgentsGitRepo *self = AGENTS_GIT_REPO (data->entry);
  g_autoptr (GBytes) stderr_bytes = NULL;
  g_autofree char *stderr_text = NULL;
  GError *error = NULL;

  if (!g_subprocess_communicate_finish (clone->process, result, NULL,
                                        &stderr_bytes, &error))
    {
      /* Cancelled: the clone must be dead before it is removed. */
      clone->error = error;
      g_subprocess_force_exit (clone->process);
      g_subprocess_wait_async (clone->process, NULL, git_killed_cb, clone);
      return;
    }

  if (!g_subprocess_get_if_exited (clone->process) ||
      g_subprocess_get_exit_status (clone->process) != 0)
    {
      stderr_text = agents_git_bytes_to_text (stderr_bytes);
      agents_git_clone_error (&error, self, clone->git->url,
                              g_strstrip (stderr_text));
      git_finish (clone->task, clone->git, error);
    }
  else
    git_open_clone (clone->task, clone->git);
  git_clone_free (clone);
}

static GSubprocess *
spawn_git_clone (const char *git_path,
                 const char *url,
                 const char *ref,
                 const char *clone_dir,
                 GError **error)
{
  g_autoptr (GSubprocessLauncher) launcher = g_subprocess_launcher_new (
    G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  const char *argv[] = {
    git_path,
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "protocol.file.allow=always",
    "clone",
    "--depth",
    "1",
    "--branch",
    ref,
    "--",
    url,
    clone_dir,
    NULL,
  };

  g_subprocess_launcher_setenv (launcher, "GIT_TERMINAL_PROMPT", "0", TRUE);
  return g_subprocess_launcher_spawnv (launcher, argv, error);
}

/* ---- validating the subpath ----------------------------------------- */

/* Why @subpath is not a relative path inside the repository, or NULL. */
static const char *
subpath_problem (const char *subpath)
{
  g_auto (GStrv) parts = NULL;
  g_autofree char *stripped = g_strstrip (g_strdup (subpath));

  if (*stripped == '\0')
    return "empty";
  if (strchr (subpath, '\\') != NULL ||
      (g_ascii_isalpha (subpath[0]) && subpath[1] == ':'))
    return "windows_path";
  if (subpath[0] == '/')
    return "absolute";
  parts = g_strsplit (subpath, "/", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    if (g_str_equal (parts[i], ".."))
      return "parent_traversal";
  return NULL;
}

static gboolean
git_check_subpath (AgentsGitRepo *self, GError **error)
{
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  const char *reason;

  if (self->subpath == NULL ||
      (reason = subpath_problem (self->subpath)) == NULL)
    return TRUE;
  g_variant_builder_add (&ctx, "{sv}", "reason", g_variant_new_string (reason));
  g_variant_builder_add (&ctx, "{sv}", "subpath",
                         g_variant_new_string (self->subpath));
  g_variant_builder_add (&ctx, "{sv}", "repo",
                         g_variant_new_string (self->repo));
  agents_sandbox_error_set (
    error, AGENTS_SANDBOX_ERROR_GIT_SUBPATH, g_variant_builder_end (&ctx),
    _ ("git repo subpath must be a relative path inside the repository: %s"),
    self->subpath);
  return FALSE;
}

/* The subpath without `.` components and extra slashes ("./docs/" is
 * "docs"), or NULL for the whole repository. */
char *
agents_git_repo_normalized_subpath (AgentsGitRepo *self)
{
  g_auto (GStrv) parts = NULL;
  g_autoptr (GPtrArray) kept = g_ptr_array_new ();

  if (self->subpath == NULL)
    return NULL;
  parts = g_strsplit (self->subpath, "/", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    if (*parts[i] != '\0' && !g_str_equal (parts[i], "."))
      g_ptr_array_add (kept, parts[i]);
  if (kept->len == 0)
    return NULL;
  g_ptr_array_add (kept, NULL);
  return g_strjoinv ("/", (char **) kept->pdata);
}

/* Whether the repository is cloned in the sandbox: a remote host, and a
 * workspace that is not a host directory (a container, a remote
 * sandbox). A unix_local workspace is a host directory whose commands
 * have a private /tmp per command and no network by default: there, and
 * for a repository on the host's file system, the host's git clones. */
static gboolean
git_clones_in_sandbox (AgentsGitRepo *self, AgentsSandboxSession *session)
{
  const char *root =
    agents_manifest_get_root (agents_sandbox_session_get_manifest (session));

  if (g_str_has_prefix (self->host, "file://") ||
      g_path_is_absolute (self->host))
    return FALSE;
  return !g_file_test (root, G_FILE_TEST_IS_DIR);
}

/* A repository on the local file system is a local source like any
 * other: it must lie inside the base directory or an extra path grant. */
static gboolean
git_check_local_host (AgentsGitRepo *self,
                      AgentsSandboxSession *session,
                      const char *base_dir,
                      GError **error)
{
  g_autoptr (AgentsLocalSource) source = NULL;
  g_auto (GStrv) grants = NULL;
  g_autofree char *path = NULL;
  const char *host = self->host;

  if (g_str_has_prefix (host, "file://"))
    host += strlen ("file://");
  else if (!g_path_is_absolute (host))
    return TRUE;

  path = g_build_filename (host, self->repo, NULL);
  grants = agents_local_source_dup_grant_paths (session);
  source = agents_local_source_resolve (
    path, base_dir, (const char *const *) grants, TRUE, error);
  return source != NULL;
}

static void
git_repo_apply (AgentsManifestEntry *entry,
                AgentsSandboxSession *session,
                const char *dest,
                const char *base_dir,
                GTask *task)
{
  AgentsGitRepo *self = AGENTS_GIT_REPO (entry);
  g_autofree char *git_path = g_find_program_in_path ("git");
  GitData *git;
  GitClone *clone;
  const char *bad_member;
  GError *error = NULL;

  agents_apply_data_new (entry, session, dest, base_dir, task);
  /* The subpath first, before anything runs, as the reference. */
  if (!git_check_subpath (self, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  if (!git_repo_check (self, &bad_member))
    {
      g_task_return_error (task,
                           agents_sandbox_error_new (
                             AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, NULL,
                             _ ("invalid git_repo member “%s”"), bad_member));
      return;
    }
  if (!git_check_local_host (self, session, base_dir, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  if (git_clones_in_sandbox (self, session))
    {
      agents_git_repo_apply_in_sandbox (task);
      return;
    }
  if (git_path == NULL)
    {
      g_task_return_error (
        task, agents_sandbox_error_new (AGENTS_SANDBOX_ERROR_GIT_MISSING, NULL,
                                        _ ("git is not installed")));
      return;
    }

  git = g_new0 (GitData, 1);
  git->url = agents_git_repo_dup_clone_url (self);
  git->clone_dir = g_dir_make_tmp ("agents-git-XXXXXX", &error);
  if (git->clone_dir == NULL)
    {
      git_data_free (git);
      g_task_return_error (task, error);
      return;
    }

  clone = g_new0 (GitClone, 1);
  clone->task = g_object_ref (task);
  clone->git = git;
  clone->process =
    spawn_git_clone (git_path, git->url, self->ref, git->clone_dir, &error);
  if (clone->process == NULL)
    {
      GError *missing = agents_sandbox_error_new (
        AGENTS_SANDBOX_ERROR_GIT_MISSING, NULL, _ ("git could not be run: %s"),
        error->message);

      g_error_free (error);
      git_finish (clone->task, git, missing);
      g_free (clone);
      return;
    }
  g_subprocess_communicate_async (
    clone->process, NULL, g_task_get_cancellable (task), git_cloned_cb, clone);
}

static void
agents_git_repo_class_init (AgentsGitRepoClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  AgentsManifestEntryClass *entry_class = AGENTS_MANIFEST_ENTRY_CLASS (klass);
  GParamFlags flags = G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                      G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->finalize = agents_git_repo_finalize;
  object_class->get_property = agents_git_repo_get_property;
  object_class->set_property = agents_git_repo_set_property;

  entry_class->type_name = "git_repo";
  entry_class->serialize_fields = git_serialize_fields;
  entry_class->deserialize_fields = git_deserialize_fields;
  entry_class->copy_fields = git_copy_fields;
  entry_class->equal_fields = git_equal_fields;
  entry_class->apply = git_repo_apply;

  /**
   * AgentsGitRepo:host:
   *
   * The git host, e.g. `github.com`.
   */
  git_properties[GIT_PROP_HOST] =
    g_param_spec_string ("host", NULL, NULL, DEFAULT_GIT_HOST, flags);

  /**
   * AgentsGitRepo:repo:
   *
   * The repository as `owner/name`.
   */
  git_properties[GIT_PROP_REPO] =
    g_param_spec_string ("repo", NULL, NULL, "", flags);

  /**
   * AgentsGitRepo:ref:
   *
   * The branch or tag to check out.
   */
  git_properties[GIT_PROP_REF] =
    g_param_spec_string ("ref", NULL, NULL, DEFAULT_GIT_REF, flags);

  /**
   * AgentsGitRepo:subpath:
   *
   * The directory of the repository to copy, or %NULL for all of it.
   */
  git_properties[GIT_PROP_SUBPATH] = g_param_spec_string (
    "subpath", NULL, NULL, NULL,
    G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, GIT_N_PROPS, git_properties);
}

static void
agents_git_repo_init (AgentsGitRepo *self)
{
  self->host = g_strdup (DEFAULT_GIT_HOST);
  self->repo = g_strdup ("");
  self->ref = g_strdup (DEFAULT_GIT_REF);
}

/**
 * agents_git_repo_new:
 * @host: (nullable): the git host, %NULL for `github.com`
 * @repo: the repository as `owner/name`
 * @ref: (nullable): the branch or tag, %NULL for `main`
 *
 * Creates a git checkout entry.
 *
 * Returns: (transfer full): a new #AgentsGitRepo
 */
AgentsManifestEntry *
agents_git_repo_new (const char *host, const char *repo, const char *ref)
{
  g_return_val_if_fail (repo != NULL, NULL);

  return g_object_new (AGENTS_TYPE_GIT_REPO, "host", host, "repo", repo, "ref",
                       ref, NULL);
}

/**
 * agents_git_repo_get_host:
 * @self: an #AgentsGitRepo
 *
 * Gets the git host.
 *
 * Returns: the host
 */
const char *
agents_git_repo_get_host (AgentsGitRepo *self)
{
  g_return_val_if_fail (AGENTS_IS_GIT_REPO (self), NULL);

  return self->host;
}

/**
 * agents_git_repo_get_repo:
 * @self: an #AgentsGitRepo
 *
 * Gets the repository as `owner/name`.
 *
 * Returns: the repository
 */
const char *
agents_git_repo_get_repo (AgentsGitRepo *self)
{
  g_return_val_if_fail (AGENTS_IS_GIT_REPO (self), NULL);

  return self->repo;
}

/**
 * agents_git_repo_get_ref:
 * @self: an #AgentsGitRepo
 *
 * Gets the branch or tag to check out.
 *
 * Returns: the ref
 */
const char *
agents_git_repo_get_ref (AgentsGitRepo *self)
{
  g_return_val_if_fail (AGENTS_IS_GIT_REPO (self), NULL);

  return self->ref;
}

/**
 * agents_git_repo_get_subpath:
 * @self: an #AgentsGitRepo
 *
 * Gets the directory of the repository to copy.
 *
 * Returns: (nullable): the subpath, %NULL for the whole repository
 */
const char *
agents_git_repo_get_subpath (AgentsGitRepo *self)
{
  g_return_val_if_fail (AGENTS_IS_GIT_REPO (self), NULL);

  return self->subpath;
}

/**
 * agents_git_repo_set_subpath:
 * @self: an #AgentsGitRepo
 * @subpath: (nullable): a relative directory of the repository
 *
 * Sets the directory of the repository to copy. It is checked when the
 * entry is applied: a subpath that is empty, absolute, a Windows path or
 * goes up with `..` fails with %AGENTS_SANDBOX_ERROR_GIT_SUBPATH before
 * anything runs.
 */
void
agents_git_repo_set_subpath (AgentsGitRepo *self, const char *subpath)
{
  g_return_if_fail (AGENTS_IS_GIT_REPO (self));

  if (g_strcmp0 (self->subpath, subpath) == 0)
    return;
  g_free (self->subpath);
  self->subpath = g_strdup (subpath);
  g_object_notify_by_pspec (G_OBJECT (self), git_properties[GIT_PROP_SUBPATH]);
}

/**
 * agents_git_repo_dup_clone_url:
 * @self: an #AgentsGitRepo
 *
 * Builds the URL the repository is cloned from: `https://HOST/REPO.git`,
 * or `file://HOST/REPO` when the host is a local absolute path or a
 * `file://` URL.
 *
 * Returns: (transfer full): the URL
 */
char *
agents_git_repo_dup_clone_url (AgentsGitRepo *self)
{
  g_return_val_if_fail (AGENTS_IS_GIT_REPO (self), NULL);

  if (g_str_has_prefix (self->host, "file://"))
    return g_strconcat (self->host, "/", self->repo, NULL);
  if (g_path_is_absolute (self->host))
    return g_strconcat ("file://", self->host, "/", self->repo, NULL);
  return g_strconcat ("https://", self->host, "/", self->repo, ".git", NULL);
}
