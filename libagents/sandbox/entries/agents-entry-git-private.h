/* agents-entry-git-private.h - what the git entry files share
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-manifest.h"

G_BEGIN_DECLS

struct _AgentsGitRepo
{
  AgentsManifestEntry parent_instance;

  char *host;
  char *repo;
  char *ref;
  char *subpath;
};

/* The subpath without `.` components and extra slashes ("./docs/" is
 * "docs"), or NULL for the whole repository. */
char *agents_git_repo_normalized_subpath (AgentsGitRepo *self);
/* As the reference reports a failed clone. */
void agents_git_clone_error (GError **error,
                             AgentsGitRepo *self,
                             const char *url,
                             const char *stderr_text);
/* The text of a command's output, made valid UTF-8. */
char *agents_git_bytes_to_text (GBytes *bytes);

/* Clones in the sandbox, as the reference does: git must be there, the
 * clone goes to a fresh directory under /tmp which is always removed,
 * and `cp -R` copies it (or its subpath) to the destination. Goes on
 * with the apply @task. */
void agents_git_repo_apply_in_sandbox (GTask *task);

G_END_DECLS
