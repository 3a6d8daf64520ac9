/* agents-entry-git-sandbox.c - git repositories cloned inside the sandbox, as
 * the\n * reference does
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "agents-entry-apply-private.h"
#include "agents-entry-git-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-sandbox-session-private.h"
#include "agents-sandbox-session.h"

typedef enum
{
  SANDBOX_GIT_PROBE,
  SANDBOX_GIT_CLEAR,
  SANDBOX_GIT_INIT,
  SANDBOX_GIT_REMOTE,
  SANDBOX_GIT_FETCH,
  SANDBOX_GIT_CHECKOUT,
  SANDBOX_GIT_CLEAR_AGAIN,
  SANDBOX_GIT_CLONE,
  SANDBOX_GIT_MKDIR,
  SANDBOX_GIT_COPY,
  SANDBOX_GIT_CLEANUP,
  SANDBOX_GIT_METADATA,
} SandboxGitStep;

typedef struct
{
  SandboxGitStep step;
  char *url;
  char *tmp;
  char *src_root;
  AgentsExecResult *fetch_failure; /* the commit fetch that failed first */
  GError *error;                   /* kept while the clone is removed */
} SandboxGit;

static void
sandbox_git_free (SandboxGit *git)
{
  g_free (git->url);
  g_free (git->tmp);
  g_free (git->src_root);
  g_clear_object (&git->fetch_failure);
  g_clear_error (&git->error);
  g_free (git);
}

static gboolean
looks_like_commit (const char *ref)
{
  gsize len = strlen (ref);

  if (len < 7 || len > 40)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isxdigit (ref[i]))
      return FALSE;
  return TRUE;
}

static void sandbox_git_step (GTask *task, AgentsExecResult *previous);
static void sandbox_git_cleanup (GTask *task);

static void
sandbox_git_exec_done (GObject *source,
                       GAsyncResult *result,
                       gpointer user_data)
{
  GTask *task = user_data;
  SandboxGit *git = g_object_get_data (G_OBJECT (task), "agents-sandbox-git");
  g_autoptr (AgentsExecResult) exec_result = NULL;
  GError *error = NULL;

  exec_result = agents_sandbox_session_exec_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  if (exec_result == NULL)
    {
      /* A transport failure: nothing more runs but the cleanup. */
      if (git->step >= SANDBOX_GIT_CLEANUP || git->step == SANDBOX_GIT_PROBE)
        {
          /* The first failure is the one to report. */
          if (git->error != NULL)
            {
              g_error_free (error);
              error = g_steal_pointer (&git->error);
            }
          g_task_return_error (task, error);
          g_object_unref (task);
          return;
        }
      g_clear_error (&git->error);
      git->error = error;
      sandbox_git_cleanup (task);
      return;
    }
  sandbox_git_step (task, exec_result);
}

static void
sandbox_git_exec (GTask *task, gboolean shell, const char *const *argv)
{
  AgentsApplyData *data = g_task_get_task_data (task);

  agents_sandbox_session_exec_async (data->session, argv, 0, shell, NULL,
                                     g_task_get_cancellable (task),
                                     sandbox_git_exec_done, task);
}

static char *
exec_stderr (AgentsExecResult *result)
{
  GBytes *bytes =
    result != NULL ? agents_exec_result_get_stderr (result) : NULL;

  return agents_git_bytes_to_text (bytes);
}

static void
sandbox_git_fail_clone (GTask *task, AgentsExecResult *failure)
{
  AgentsApplyData *data = g_task_get_task_data (task);
  SandboxGit *git = g_object_get_data (G_OBJECT (task), "agents-sandbox-git");
  g_autofree char *stderr_text = exec_stderr (failure);

  agents_git_clone_error (&git->error, AGENTS_GIT_REPO (data->entry), git->url,
                          stderr_text);
}

static void
sandbox_git_fail_copy (GTask *task, AgentsExecResult *failure)
{
  AgentsApplyData *data = g_task_get_task_data (task);
  AgentsGitRepo *self = AGENTS_GIT_REPO (data->entry);
  SandboxGit *git = g_object_get_data (G_OBJECT (task), "agents-sandbox-git");
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  g_autofree char *stderr_text = exec_stderr (failure);

  g_variant_builder_add (&ctx, "{sv}", "src_root",
                         g_variant_new_string (git->src_root));
  g_variant_builder_add (&ctx, "{sv}", "dest",
                         g_variant_new_string (data->dest));
  g_variant_builder_add (&ctx, "{sv}", "stderr",
                         g_variant_new_string (stderr_text));
  g_variant_builder_add (&ctx, "{sv}", "repo",
                         g_variant_new_string (self->repo));
  g_variant_builder_add (&ctx, "{sv}", "ref", g_variant_new_string (self->ref));
  if (self->subpath != NULL)
    g_variant_builder_add (&ctx, "{sv}", "subpath",
                           g_variant_new_string (self->subpath));
  agents_sandbox_error_set (
    &git->error, AGENTS_SANDBOX_ERROR_GIT_COPY, g_variant_builder_end (&ctx),
    _ ("failed to copy git repo %s into %s"), git->src_root, data->dest);
}

static void
sandbox_git_metadata_done (GObject *source,
                           GAsyncResult *result,
                           gpointer user_data)
{
  GTask *task = user_data;
  GError *error = NULL;

  if (agents_entry_apply_metadata_finish (result, &error))
    agents_apply_data_return_results (task);
  else
    g_task_return_error (task, error);
  g_object_unref (task);
}

static void
sandbox_git_mkdir_done (GObject *source,
                        GAsyncResult *result,
                        gpointer user_data)
{
  GTask *task = user_data;
  SandboxGit *git = g_object_get_data (G_OBJECT (task), "agents-sandbox-git");
  GError *error = NULL;

  if (!agents_sandbox_session_mkdir_finish (AGENTS_SANDBOX_SESSION (source),
                                            result, &error))
    {
      git->error = error;
      sandbox_git_cleanup (task);
      return;
    }
  sandbox_git_step (task, NULL);
}

static void
sandbox_git_exec (GTask *task, gboolean shell, const char *const *argv);

/* The clone is always removed, whatever happened: also after a
 * cancellation, so the removal itself is not cancellable. */
static void
sandbox_git_cleanup (GTask *task)
{
  AgentsApplyData *data = g_task_get_task_data (task);
  SandboxGit *git = g_object_get_data (G_OBJECT (task), "agents-sandbox-git");
  const char *argv[] = { "rm", "-rf", "--", git->tmp, NULL };

  git->step = SANDBOX_GIT_CLEANUP;
  agents_sandbox_session_exec_async (data->session, argv, 0, FALSE, NULL, NULL,
                                     sandbox_git_exec_done, task);
}

static void
sandbox_git_copy (GTask *task)
{
  AgentsApplyData *data = g_task_get_task_data (task);
  SandboxGit *git = g_object_get_data (G_OBJECT (task), "agents-sandbox-git");

  git->step = SANDBOX_GIT_MKDIR;
  agents_sandbox_session_mkdir_async (data->session, data->dest, TRUE,
                                      g_task_get_cancellable (task),
                                      sandbox_git_mkdir_done, task);
}

/* Runs the step after the one that gave @previous (NULL when it ran no
 * command). */
static void
sandbox_git_step (GTask *task, AgentsExecResult *previous)
{
  AgentsApplyData *data = g_task_get_task_data (task);
  AgentsGitRepo *self = AGENTS_GIT_REPO (data->entry);
  SandboxGit *git = g_object_get_data (G_OBJECT (task), "agents-sandbox-git");
  gboolean ok = previous == NULL || agents_exec_result_ok (previous);

  switch (git->step)
    {
    case SANDBOX_GIT_PROBE:
      if (!ok)
        {
          g_auto (GVariantBuilder) ctx =
            G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

          g_variant_builder_add (&ctx, "{sv}", "repo",
                                 g_variant_new_string (self->repo));
          g_variant_builder_add (&ctx, "{sv}", "ref",
                                 g_variant_new_string (self->ref));
          g_task_return_error (task,
                               agents_sandbox_error_new (
                                 AGENTS_SANDBOX_ERROR_GIT_MISSING,
                                 g_variant_builder_end (&ctx),
                                 _ ("git is not installed in the sandbox")));
          g_object_unref (task);
          return;
        }
      git->step = SANDBOX_GIT_CLEAR;
      sandbox_git_exec (task, FALSE,
                        (const char *[]){ "rm", "-rf", "--", git->tmp, NULL });
      return;

    case SANDBOX_GIT_CLEAR:
      if (looks_like_commit (self->ref))
        {
          git->step = SANDBOX_GIT_INIT;
          sandbox_git_exec (task, FALSE,
                            (const char *[]){ "git", "init", git->tmp, NULL });
          return;
        }
      git->step = SANDBOX_GIT_CLEAR_AGAIN;
      sandbox_git_step (task, NULL);
      return;

    case SANDBOX_GIT_INIT:
    case SANDBOX_GIT_REMOTE:
    case SANDBOX_GIT_FETCH:
    case SANDBOX_GIT_CHECKOUT:
      if (!ok)
        {
          /* As the reference: a ref that only looks like a commit may be
           * a branch; the first failure is the one reported. */
          git->fetch_failure = g_object_ref (previous);
          git->step = SANDBOX_GIT_CLEAR_AGAIN;
          sandbox_git_exec (
            task, FALSE, (const char *[]){ "rm", "-rf", "--", git->tmp, NULL });
          return;
        }
      if (git->step == SANDBOX_GIT_CHECKOUT)
        {
          sandbox_git_copy (task);
          return;
        }
      git->step++;
      if (git->step == SANDBOX_GIT_REMOTE)
        sandbox_git_exec (task, FALSE,
                          (const char *[]){ "git", "-C", git->tmp, "remote",
                                            "add", "origin", git->url, NULL });
      else if (git->step == SANDBOX_GIT_FETCH)
        sandbox_git_exec (task, FALSE,
                          (const char *[]){ "git", "-C", git->tmp, "fetch",
                                            "--depth", "1", "--no-tags",
                                            "origin", self->ref, NULL });
      else
        sandbox_git_exec (task, FALSE,
                          (const char *[]){ "git", "-C", git->tmp, "checkout",
                                            "--detach", "FETCH_HEAD", NULL });
      return;

    case SANDBOX_GIT_CLEAR_AGAIN:
      git->step = SANDBOX_GIT_CLONE;
      sandbox_git_exec (task, FALSE,
                        (const char *[]){ "git", "clone", "--depth", "1",
                                          "--no-tags", "--branch", self->ref,
                                          git->url, git->tmp, NULL });
      return;

    case SANDBOX_GIT_CLONE:
      if (!ok)
        {
          sandbox_git_fail_clone (
            task, git->fetch_failure != NULL ? git->fetch_failure : previous);
          sandbox_git_cleanup (task);
          return;
        }
      sandbox_git_copy (task);
      return;

    case SANDBOX_GIT_MKDIR:
      {
        g_autofree char *src = g_strconcat (git->src_root, "/.", NULL);
        g_autofree char *dest = g_strconcat (data->dest, "/", NULL);

        git->step = SANDBOX_GIT_COPY;
        sandbox_git_exec (
          task, FALSE, (const char *[]){ "cp", "-R", "--", src, dest, NULL });
        return;
      }

    case SANDBOX_GIT_COPY:
      if (!ok)
        sandbox_git_fail_copy (task, previous);
      sandbox_git_cleanup (task);
      return;

    case SANDBOX_GIT_CLEANUP:
      if (git->error != NULL)
        {
          g_task_return_error (task, g_steal_pointer (&git->error));
          g_object_unref (task);
          return;
        }
      git->step = SANDBOX_GIT_METADATA;
      agents_entry_apply_metadata_async (data->entry, data->session, data->dest,
                                         g_task_get_cancellable (task),
                                         sandbox_git_metadata_done, task);
      return;

    case SANDBOX_GIT_METADATA:
    default:
      g_assert_not_reached ();
    }
}

static char *
sandbox_git_tmp (AgentsSandboxSession *session)
{
  const char *id = agents_sandbox_session_state_get_session_id (
    agents_sandbox_session_peek_state (session));
  g_autofree char *uuid = g_uuid_string_random ();
  GString *tmp = g_string_new ("/tmp/sandbox-git-");

  for (const char *p = id; *p != '\0'; p++)
    if (g_ascii_isxdigit (*p))
      g_string_append_c (tmp, g_ascii_tolower (*p));
  g_string_append_c (tmp, '-');
  for (const char *p = uuid; *p != '\0'; p++)
    if (g_ascii_isxdigit (*p))
      g_string_append_c (tmp, *p);
  return g_string_free (tmp, FALSE);
}

/* Clones in the sandbox, as the reference does: git must be there, the
 * clone goes to a fresh directory under /tmp which is always removed,
 * and `cp -R` copies it (or its subpath) to the destination. */
void
agents_git_repo_apply_in_sandbox (GTask *task)
{
  AgentsApplyData *data = g_task_get_task_data (task);
  AgentsGitRepo *self = AGENTS_GIT_REPO (data->entry);
  SandboxGit *git = g_new0 (SandboxGit, 1);
  g_autofree char *subpath = agents_git_repo_normalized_subpath (self);

  git->url = agents_git_repo_dup_clone_url (self);
  git->tmp = sandbox_git_tmp (data->session);
  git->src_root = subpath != NULL ? g_strconcat (git->tmp, "/", subpath, NULL)
                                  : g_strdup (git->tmp);
  git->step = SANDBOX_GIT_PROBE;
  g_object_set_data_full (G_OBJECT (task), "agents-sandbox-git", git,
                          (GDestroyNotify) sandbox_git_free);
  sandbox_git_exec (g_object_ref (task), TRUE,
                    (const char *[]){ "command -v git >/dev/null 2>&1", NULL });
}
