/* agents-archive-rules.c - the extraction rules that need no file system
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Shared by the extractor (agents-archive.c) and the validator of
 * archives handed to someone else to extract (agents-archive-validate.c).
 */

#include "config.h"

#include <inttypes.h>
#include <limits.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "agents-archive-private.h"
#include "agents-sandbox-error-private.h"

static void
ctx_add_string (GVariantBuilder *builder, const char *key, const char *value)
{
  g_autofree char *valid = g_utf8_make_valid (value, -1);

  g_variant_builder_add (builder, "{sv}", key, g_variant_new_string (valid));
}

static char *
join_path (const char *root, const char *rel)
{
  if (rel == NULL || *rel == '\0')
    return g_strdup (root);
  return g_build_filename (root, rel, NULL);
}

void
agents_archive_set_path_error (GError **error,
                               int code,
                               const char *root,
                               const char *rel,
                               const char *reason)
{
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  g_autofree char *path = join_path (root, rel);
  g_autofree char *display = g_utf8_make_valid (path, -1);

  ctx_add_string (&ctx, "path", path);
  ctx_add_string (&ctx, "reason", reason);
  if (code == AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ)
    agents_sandbox_error_set (error, code, g_variant_builder_end (&ctx),
                              _ ("failed to read archive for path: %s"),
                              display);
  else
    agents_sandbox_error_set (error, code, g_variant_builder_end (&ctx),
                              _ ("failed to write archive for path: %s"),
                              display);
}

gboolean
agents_archive_set_limit_error (GError **error, const char *limit, gint64 value)
{
  return agents_archive_set_limit_error_full (error, limit, value, NULL, -1);
}

gboolean
agents_archive_set_limit_error_full (GError **error,
                                     const char *limit,
                                     gint64 value,
                                     const char *member,
                                     gint64 actual)
{
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  g_variant_builder_add (&ctx, "{sv}", "limit", g_variant_new_string (limit));
  g_variant_builder_add (&ctx, "{sv}", "value", g_variant_new_int64 (value));
  if (member != NULL)
    ctx_add_string (&ctx, "member", member);
  if (actual >= 0)
    g_variant_builder_add (&ctx, "{sv}", "actual",
                           g_variant_new_int64 (actual));
  agents_sandbox_error_set (
    error, AGENTS_SANDBOX_ERROR_ARCHIVE_LIMIT, g_variant_builder_end (&ctx),
    _ ("archive exceeds archive_limits.%s (%" PRId64 ")"), limit,
    (int64_t) value);
  return FALSE;
}

gboolean
agents_archive_set_unsafe_error (GError **error,
                                 const char *member,
                                 const char *reason)
{
  return agents_archive_set_unsafe_error_full (error, member, reason, NULL);
}

gboolean
agents_archive_set_unsafe_error_full (GError **error,
                                      const char *member,
                                      const char *reason,
                                      const char *detail)
{
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  g_autofree char *display = g_utf8_make_valid (member, -1);

  ctx_add_string (&ctx, "member", member);
  ctx_add_string (&ctx, "reason", reason);
  if (detail != NULL)
    ctx_add_string (&ctx, "detail", detail);
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_UNSAFE_ARCHIVE_MEMBER,
                            g_variant_builder_end (&ctx),
                            _ ("unsafe archive member: %s (%s)"), display,
                            reason);
  return FALSE;
}

GPtrArray *
agents_archive_split_components (const char *path)
{
  GPtrArray *components = g_ptr_array_new_with_free_func (g_free);
  const char *start = path;

  while (*start != '\0')
    {
      const char *end = strchrnul (start, '/');
      gsize len = end - start;

      if (len > 0 && !(len == 1 && *start == '.'))
        g_ptr_array_add (components, g_strndup (start, len));
      start = *end ? end + 1 : end;
    }
  return components;
}

char *
agents_archive_join_components (GPtrArray *components, guint n)
{
  GString *rel = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    {
      if (i > 0)
        g_string_append_c (rel, '/');
      g_string_append (rel, g_ptr_array_index (components, i));
    }
  return g_string_free (rel, FALSE);
}

GPtrArray *
agents_archive_member_components (const char *name, const char **reason)
{
  g_autoptr (GPtrArray) components = NULL;

  if (name == NULL || *name == '\0')
    return (*reason = "empty_name", NULL);
  if (*name == '/')
    return (*reason = "absolute_path", NULL);
  /* Windows names would be taken apart differently by a Windows client
   * than here: refused rather than guessed at. */
  if (g_ascii_isalpha (name[0]) && name[1] == ':')
    return (*reason = "windows_drive_path", NULL);
  if (strchr (name, '\\') != NULL)
    return (*reason = "windows_path_separator", NULL);
  if (strlen (name) >= PATH_MAX)
    return (*reason = "name_too_long", NULL);

  components = agents_archive_split_components (name);
  for (guint i = 0; i < components->len; i++)
    {
      const char *component = g_ptr_array_index (components, i);

      if (strcmp (component, "..") == 0)
        return (*reason = "parent_reference", NULL);
      if (strlen (component) > NAME_MAX)
        return (*reason = "name_too_long", NULL);
    }
  return g_steal_pointer (&components);
}

/*
 * The walk judges a symlink like realpath(): the member's directory and
 * the target are walked from the root, expanding the symlinks met.
 *
 * A symlink is followed when it is used, not when it is made, so the walk
 * also makes sure its verdict cannot be changed by what is extracted (or
 * replaced) later: ".." may only step out of a directory that exists and
 * was named by the target itself. Stepping out of a missing directory,
 * or out of where another symlink led, is refused: that symlink might be
 * replaced, or the directory created as a symlink, by a later member.
 */
typedef struct
{
  char *name;
  gboolean solid; /* an existing directory, safe to leave with ".." */
} WalkStep;

typedef enum
{
  PART_PARENT, /* the member's own directory: where the link physically is */
  PART_TARGET,
  PART_EXPANSION, /* what a symlink met in the target expands to */
} WalkPart;

typedef struct
{
  char *name; /* NULL: the marker between the parent and the target */
  WalkPart part;
} Pending;

#define MAX_SYMLINK_EXPANSIONS 40

static void
walk_step_free (gpointer data)
{
  g_free (((WalkStep *) data)->name);
  g_free (data);
}

static void
pending_free (gpointer data)
{
  g_free (((Pending *) data)->name);
  g_free (data);
}

static void
push_pending (
  GQueue *pending, GPtrArray *names, guint n, WalkPart part, gboolean at_head)
{
  for (guint i = n; i > 0; i--)
    {
      Pending *p = g_new0 (Pending, 1);

      p->name = g_strdup (g_ptr_array_index (names, at_head ? i - 1 : n - i));
      p->part = part;
      if (at_head)
        g_queue_push_head (pending, p);
      else
        g_queue_push_tail (pending, p);
    }
}

static char *
join_steps (GPtrArray *stack)
{
  GString *rel = g_string_new (NULL);

  for (guint i = 0; i < stack->len; i++)
    {
      if (i > 0)
        g_string_append_c (rel, '/');
      g_string_append (rel, ((WalkStep *) g_ptr_array_index (stack, i))->name);
    }
  return g_string_free (rel, FALSE);
}

/* One name of the walk; returns whether the walk is still inside. */
static gboolean
walk_name (GPtrArray *stack,
           GQueue *pending,
           Pending *p,
           gboolean *exists,
           int *expansions,
           AgentsArchiveInspectFunc inspect,
           gpointer user_data)
{
  g_autofree char *link_target = NULL;
  gboolean is_dir = FALSE;
  gboolean inside = TRUE;
  WalkStep *step;

  if (strcmp (p->name, "..") == 0)
    {
      step = stack->len ? g_ptr_array_index (stack, stack->len - 1) : NULL;
      if (step == NULL || !(p->part == PART_PARENT || step->solid))
        return FALSE;
      g_ptr_array_remove_index (stack, stack->len - 1);
      return TRUE;
    }

  step = g_new0 (WalkStep, 1);
  step->name = g_strdup (p->name);
  g_ptr_array_add (stack, step);
  if (*exists)
    {
      g_autofree char *rel = join_steps (stack);

      inside = inspect (rel, exists, &is_dir, &link_target, user_data);
    }
  step->solid = *exists && is_dir && p->part != PART_EXPANSION;
  if (link_target != NULL)
    {
      g_autoptr (GPtrArray) expansion =
        agents_archive_split_components (link_target);

      inside = *link_target != '/' && ++*expansions <= MAX_SYMLINK_EXPANSIONS;
      g_ptr_array_remove_index (stack, stack->len - 1);
      push_pending (pending, expansion, expansion->len,
                    p->part == PART_PARENT ? PART_PARENT : PART_EXPANSION,
                    TRUE);
    }
  return inside;
}

gboolean
agents_archive_walk_inside (GPtrArray *components,
                            guint n_dir,
                            const char *target,
                            AgentsArchiveInspectFunc inspect,
                            gpointer user_data,
                            char **resolved)
{
  g_autoptr (GPtrArray) stack = g_ptr_array_new_with_free_func (walk_step_free);
  GQueue pending = G_QUEUE_INIT;
  gboolean exists = TRUE;
  gboolean inside = TRUE;
  int expansions = 0;
  Pending *p;

  if (target != NULL && *target == '/')
    return FALSE;
  push_pending (&pending, components, n_dir, PART_PARENT, FALSE);
  if (target != NULL)
    {
      g_autoptr (GPtrArray) target_names =
        agents_archive_split_components (target);

      g_queue_push_tail (&pending, g_new0 (Pending, 1));
      push_pending (&pending, target_names, target_names->len, PART_TARGET,
                    FALSE);
    }

  while (inside && (p = g_queue_pop_head (&pending)) != NULL)
    {
      if (p->name != NULL) /* NULL: the marker */
        inside = walk_name (stack, &pending, p, &exists, &expansions, inspect,
                            user_data);
      pending_free (p);
    }
  g_queue_clear_full (&pending, pending_free);
  if (inside && resolved != NULL)
    *resolved = join_steps (stack);
  return inside;
}

gboolean
agents_archive_check_member_path (GHashTable *seen,
                                  GPtrArray *components,
                                  const char *member,
                                  const char *rel,
                                  AgentsArchiveSeenKind kind,
                                  gboolean parents,
                                  GError **error)
{
  AgentsArchiveSeenKind known;

  for (guint n = 1; parents && n < components->len; n++)
    {
      g_autofree char *prefix = agents_archive_join_components (components, n);

      if (GPOINTER_TO_INT (g_hash_table_lookup (seen, prefix)) ==
          AGENTS_ARCHIVE_SEEN_FILE)
        return agents_archive_set_unsafe_error_full (
          error, member, "parent_not_directory", prefix);
    }
  known = GPOINTER_TO_INT (g_hash_table_lookup (seen, rel));
  if (known != 0 &&
      !(kind == AGENTS_ARCHIVE_SEEN_DIR && known == AGENTS_ARCHIVE_SEEN_DIR))
    return agents_archive_set_unsafe_error_full (error, member,
                                                 "duplicate_path", rel);
  g_hash_table_insert (seen, g_strdup (rel), GINT_TO_POINTER (kind));
  return TRUE;
}
