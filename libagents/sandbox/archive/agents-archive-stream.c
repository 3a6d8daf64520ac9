/* agents-archive-stream.c - archives as streams of members: the member
 * header they share; the reader is in agents-archive-reader.c, the writer
 * in agents-archive-writer.c
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <archive_entry.h>

#include "agents-archive-private.h"

/* ======================================================================
 * Members
 * ====================================================================== */

G_DEFINE_BOXED_TYPE (AgentsArchiveMember,
                     agents_archive_member,
                     agents_archive_member_copy,
                     agents_archive_member_free)

/**
 * agents_archive_member_new:
 * @name: the member's name
 * @type: what it is
 *
 * Creates a member header: mode 0644 (0755 for a directory, 0777 for a
 * link), owner 0:0, no modification time (a writer then uses the current
 * time), size 0.
 *
 * Returns: (transfer full): the member
 */
AgentsArchiveMember *
agents_archive_member_new (const char *name, AgentsArchiveMemberType type)
{
  AgentsArchiveMember *self;

  g_return_val_if_fail (name != NULL, NULL);

  self = g_new0 (AgentsArchiveMember, 1);
  self->name = g_strdup (name);
  self->type = type;
  self->mode = type == AGENTS_ARCHIVE_MEMBER_DIRECTORY ? 0755
               : type == AGENTS_ARCHIVE_MEMBER_SYMLINK ? 0777
                                                       : 0644;
  return self;
}

/**
 * agents_archive_member_copy:
 * @self: a member
 *
 * Copies @self, its name and link target included.
 *
 * Returns: (transfer full): a copy of @self
 */
AgentsArchiveMember *
agents_archive_member_copy (const AgentsArchiveMember *self)
{
  AgentsArchiveMember *copy;

  g_return_val_if_fail (self != NULL, NULL);

  copy = g_memdup2 (self, sizeof *self);
  copy->name = g_strdup (self->name);
  copy->link_target = g_strdup (self->link_target);
  return copy;
}

/**
 * agents_archive_member_free:
 * @self: (nullable): a member
 *
 * Frees @self.
 */
void
agents_archive_member_free (AgentsArchiveMember *self)
{
  if (self == NULL)
    return;
  g_free (self->name);
  g_free (self->link_target);
  g_free (self);
}

/**
 * agents_archive_member_set_name:
 * @self: a member
 * @name: the new name
 *
 * Renames @self.
 */
void
agents_archive_member_set_name (AgentsArchiveMember *self, const char *name)
{
  g_return_if_fail (self != NULL && name != NULL);

  g_free (self->name);
  self->name = g_strdup (name);
}

/**
 * agents_archive_member_set_link_target:
 * @self: a member
 * @link_target: (nullable): the symlink target, or the member a hard link
 *   links to
 *
 * Replaces the link target of @self.
 */
void
agents_archive_member_set_link_target (AgentsArchiveMember *self,
                                       const char *link_target)
{
  g_return_if_fail (self != NULL);

  g_free (self->link_target);
  self->link_target = g_strdup (link_target);
}

const char *
agents_archive_entry_pathname (struct archive_entry *entry)
{
  const char *name = archive_entry_pathname (entry);

  return name ? name : archive_entry_pathname_utf8 (entry);
}
