/* agents-archive-strip.c - the tar policy over a stream: renaming
 * members beneath a prefix, listing symlinks
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "agents-archive-private.h"
#include "agents-archive-validate-private.h"
#include "agents-sandbox-error-private.h"

/* ======================================================================
 * Renaming beneath a prefix: "<prefix>/…" to "…"
 * ====================================================================== */

typedef struct
{
  Copy copy;
  GPtrArray *prefix; /* NULL: no prefix */
  char *prefix_rel;
  GHashTable *exclude;
  gboolean exclude_all;
  gboolean keep_root;
} Strip;

/* The components of @member below the prefix; an empty array for the
 * prefix itself. */
static GPtrArray *
strip_components (Strip *s, const char *member, GError **error)
{
  const char *reason = NULL;
  g_autoptr (GPtrArray) components =
    agents_archive_member_components (member, &reason);

  if (components == NULL)
    {
      agents_archive_set_unsafe_error (error, member ? member : "", reason);
      return NULL;
    }
  if (s->prefix == NULL)
    return g_steal_pointer (&components);
  for (guint i = 0; i < s->prefix->len; i++)
    if (i >= components->len || strcmp (g_ptr_array_index (components, i),
                                        g_ptr_array_index (s->prefix, i)) != 0)
      {
        agents_archive_set_unsafe_error_full (error, member, "outside_root",
                                              s->prefix_rel);
        return NULL;
      }
  g_ptr_array_remove_range (components, 0, s->prefix->len);
  return g_steal_pointer (&components);
}

static gboolean
is_excluded (Strip *s, GPtrArray *components)
{
  return s->exclude_all || agents_archive_in_subtree (s->exclude, components);
}

static gboolean
strip_member (Strip *s, const AgentsArchiveMember *m, GError **error)
{
  g_autoptr (GPtrArray) components = NULL;
  g_autoptr (GPtrArray) source = NULL;
  g_autofree char *source_rel = NULL;
  g_autofree char *rel = NULL;

  components = strip_components (s, m->name, error);
  if (components == NULL)
    return FALSE;
  if (components->len == 0)
    {
      if (s->keep_root && !s->exclude_all &&
          m->type == AGENTS_ARCHIVE_MEMBER_DIRECTORY)
        return agents_archive_copy_member (&s->copy, m, ".", 07777, NULL,
                                           error);
      return TRUE;
    }
  if (is_excluded (s, components))
    return TRUE;
  rel = agents_archive_join_components (components, components->len);

  if (m->type == AGENTS_ARCHIVE_MEMBER_HARDLINK)
    {
      source = strip_components (s, m->link_target, error);
      if (source == NULL)
        return FALSE;
      /* The data went with the excluded member: nothing to link to. */
      if (source->len == 0 || is_excluded (s, source))
        return TRUE;
      source_rel = agents_archive_join_components (source, source->len);
      return agents_archive_copy_member (&s->copy, m, rel, 07777, source_rel,
                                         error);
    }
  if (m->type == AGENTS_ARCHIVE_MEMBER_OTHER)
    return TRUE; /* sockets, fifos and devices are not archived */
  return agents_archive_copy_member (&s->copy, m, rel, 07777, NULL, error);
}

GHashTable *
agents_archive_normalize_excludes (const char *const *exclude,
                                   gboolean *exclude_all)
{
  GHashTable *set =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  *exclude_all = FALSE;
  for (guint i = 0; exclude != NULL && exclude[i] != NULL; i++)
    {
      char *rel = agents_archive_normalize_path (exclude[i]);

      if (rel == NULL)
        *exclude_all = TRUE;
      else
        g_hash_table_add (set, rel);
    }
  return set;
}

static gboolean
check_prefix (const char *prefix, GPtrArray **components, GError **error)
{
  if (prefix == NULL)
    return TRUE;
  *components = agents_archive_split_components (prefix);
  if ((*components)->len > 0)
    return TRUE;
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, NULL,
                            _ ("tar member prefix must not be empty"));
  return FALSE;
}

/**
 * agents_archive_strip_prefix:
 * @input: a tar whose members are all named `<prefix>/…` (and `<prefix>`
 *   itself), as the Docker engine's archive endpoint answers
 * @prefix: (nullable): the prefix, a relative path; %NULL to keep the
 *   names
 * @exclude: (array zero-terminated=1) (nullable): paths relative to the
 *   prefix left out together with everything below them
 * @flags: how to rename
 * @output: where the renamed tar goes
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Copies @input to @output with the members renamed relative to @prefix,
 * hard link targets too, streaming (long names get PAX path headers).
 * The member of the prefix itself is left out, or named `.` with
 * %AGENTS_ARCHIVE_STRIP_KEEP_ROOT. A hard link whose target is excluded
 * is left out too; sockets, fifos and devices are left out, as
 * agents_archive_tar_directory() leaves them out. Permission bits and
 * owners are kept.
 *
 * A @prefix naming no directory (empty, `.`) is an
 * %AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT error; a member outside it an
 * %AGENTS_SANDBOX_ERROR_UNSAFE_ARCHIVE_MEMBER error with the reason
 * `outside_root` and the detail @prefix.
 *
 * Returns: %TRUE on success
 */
gboolean
agents_archive_strip_prefix (GInputStream *input,
                             const char *prefix,
                             const char *const *exclude,
                             AgentsArchiveStripFlags flags,
                             GOutputStream *output,
                             GCancellable *cancellable,
                             GError **error)
{
  g_autoptr (GHashTable) excluded = NULL;
  g_autoptr (GPtrArray) prefix_components = NULL;
  Strip s = { { 0 } };
  gboolean ok;

  g_return_val_if_fail (G_IS_INPUT_STREAM (input), FALSE);
  g_return_val_if_fail (G_IS_OUTPUT_STREAM (output), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_prefix (prefix, &prefix_components, error))
    return FALSE;
  excluded = agents_archive_normalize_excludes (exclude, &s.exclude_all);
  s.exclude = excluded;
  s.prefix = prefix_components;
  s.prefix_rel = prefix ? agents_archive_normalize_path (prefix) : NULL;
  s.keep_root = (flags & AGENTS_ARCHIVE_STRIP_KEEP_ROOT) != 0;
  s.copy.reader =
    agents_archive_reader_new (input, AGENTS_COMPRESSION_SCHEME_TAR, NULL);
  s.copy.writer = agents_archive_writer_new (output);
  s.copy.cancellable = cancellable;

  for (ok = TRUE; ok;)
    {
      g_autoptr (AgentsArchiveMember) m = NULL;

      ok = agents_archive_reader_next (s.copy.reader, &m, cancellable, error);
      if (!ok || m == NULL)
        break;
      ok = !g_cancellable_set_error_if_cancelled (cancellable, error) &&
           strip_member (&s, m, error);
    }
  ok = ok && agents_archive_copy_finish (&s.copy, error);
  agents_archive_copy_clear (&s.copy);
  g_free (s.prefix_rel);
  return ok;
}

/* ======================================================================
 * Listing symlinks
 * ====================================================================== */

/* Records @m (renamed @rel) in @links if it is a symlink, or a hard link
 * to one; forgets what an earlier member left at @rel otherwise. */
static gboolean
note_symlink (Strip *s,
              GHashTable *links,
              const AgentsArchiveMember *m,
              char *rel,
              GError **error)
{
  const char *target = NULL;

  if (m->type == AGENTS_ARCHIVE_MEMBER_HARDLINK)
    {
      g_autoptr (GPtrArray) source =
        strip_components (s, m->link_target, error);
      g_autofree char *source_rel = NULL;

      if (source == NULL)
        {
          g_free (rel);
          return FALSE;
        }
      source_rel = agents_archive_join_components (source, source->len);
      target = g_hash_table_lookup (links, source_rel);
    }
  else if (m->type == AGENTS_ARCHIVE_MEMBER_SYMLINK)
    target = m->link_target;

  if (target != NULL)
    g_hash_table_replace (links, rel, g_strdup (target));
  else
    {
      g_hash_table_remove (links, rel);
      g_free (rel);
    }
  return TRUE;
}

/**
 * agents_archive_list_symlinks:
 * @input: a tar
 * @prefix: (nullable): a prefix to strip from the member names, as
 *   agents_archive_strip_prefix() does
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads the headers of @input (the data is skipped, not kept) and returns
 * the symlinks it holds; a hard link to a symlink is one too.
 *
 * Returns: (transfer full) (element-type utf8 utf8): relative path to
 *   target, or %NULL with @error set
 */
GHashTable *
agents_archive_list_symlinks (GInputStream *input,
                              const char *prefix,
                              GCancellable *cancellable,
                              GError **error)
{
  g_autoptr (GHashTable) links =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr (GPtrArray) prefix_components = NULL;
  g_autoptr (AgentsArchiveReader) reader = NULL;
  Strip s = { { 0 } };

  g_return_val_if_fail (G_IS_INPUT_STREAM (input), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_prefix (prefix, &prefix_components, error))
    return NULL;
  s.prefix = prefix_components;
  reader =
    agents_archive_reader_new (input, AGENTS_COMPRESSION_SCHEME_TAR, NULL);
  for (;;)
    {
      g_autoptr (AgentsArchiveMember) m = NULL;
      g_autoptr (GPtrArray) components = NULL;

      if (!agents_archive_reader_next (reader, &m, cancellable, error))
        return NULL;
      if (m == NULL)
        return g_steal_pointer (&links);
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
      components = strip_components (&s, m->name, error);
      if (components == NULL)
        return NULL;
      if (components->len > 0 && !note_symlink (&s, links, m,
                                                agents_archive_join_components (
                                                  components, components->len),
                                                error))
        return NULL;
    }
}
