/* agents-archive-stream.h - archives as streams of members: reading,
 * writing, validating and renaming them without a directory
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include <gio/gio.h>

#include "sandbox/common/agents-sandbox-types.h"
#include "agents-version-macros.h"

G_BEGIN_DECLS

/**
 * AgentsArchiveMemberType:
 * @AGENTS_ARCHIVE_MEMBER_REGULAR: a regular file
 * @AGENTS_ARCHIVE_MEMBER_DIRECTORY: a directory
 * @AGENTS_ARCHIVE_MEMBER_SYMLINK: a symbolic link
 * @AGENTS_ARCHIVE_MEMBER_HARDLINK: a hard link to an earlier member
 * @AGENTS_ARCHIVE_MEMBER_OTHER: a device, fifo or socket
 *
 * What an archive member is.
 */
typedef enum
{
  AGENTS_ARCHIVE_MEMBER_REGULAR,
  AGENTS_ARCHIVE_MEMBER_DIRECTORY,
  AGENTS_ARCHIVE_MEMBER_SYMLINK,
  AGENTS_ARCHIVE_MEMBER_HARDLINK,
  AGENTS_ARCHIVE_MEMBER_OTHER,
} AgentsArchiveMemberType;

#define AGENTS_TYPE_ARCHIVE_MEMBER (agents_archive_member_get_type ())

typedef struct _AgentsArchiveMember AgentsArchiveMember;

/**
 * AgentsArchiveMember:
 * @name: the member's name as the archive has it
 * @type: what the member is
 * @mode: its permission bits
 * @uid: the owner's user id
 * @gid: the owner's group id
 * @has_mtime: whether @mtime is known
 * @mtime: the modification time, in seconds since the epoch
 * @mtime_nsec: the nanoseconds of @mtime
 * @size: the size of a regular member's data
 * @link_target: (nullable): a symlink's target, or the name of the member
 *   a hard link links to
 *
 * The header of an archive member.
 */
struct _AgentsArchiveMember
{
  char *name;
  AgentsArchiveMemberType type;
  guint mode;
  gint64 uid;
  gint64 gid;
  gboolean has_mtime;
  gint64 mtime;
  gint32 mtime_nsec;
  gint64 size;
  char *link_target;
};

AGENTS_AVAILABLE_IN_1_0
GType agents_archive_member_get_type (void) G_GNUC_CONST;
AGENTS_AVAILABLE_IN_1_0
AgentsArchiveMember *agents_archive_member_new (const char *name,
                                                AgentsArchiveMemberType type);
AGENTS_AVAILABLE_IN_1_0
AgentsArchiveMember *
agents_archive_member_copy (const AgentsArchiveMember *self);
AGENTS_AVAILABLE_IN_1_0
void agents_archive_member_free (AgentsArchiveMember *self);
AGENTS_AVAILABLE_IN_1_0
void agents_archive_member_set_name (AgentsArchiveMember *self,
                                     const char *name);
AGENTS_AVAILABLE_IN_1_0
void agents_archive_member_set_link_target (AgentsArchiveMember *self,
                                            const char *link_target);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AgentsArchiveMember, agents_archive_member_free)

/* ---- reading ---------------------------------------------------------- */

#define AGENTS_TYPE_ARCHIVE_READER (agents_archive_reader_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (
  AgentsArchiveReader, agents_archive_reader, AGENTS, ARCHIVE_READER, GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsArchiveReader *
agents_archive_reader_new (GInputStream *input,
                           AgentsCompressionScheme scheme,
                           const AgentsArchiveLimits *limits);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_archive_reader_next (AgentsArchiveReader *self,
                                     AgentsArchiveMember **member,
                                     GCancellable *cancellable,
                                     GError **error);
AGENTS_AVAILABLE_IN_1_0
gssize agents_archive_reader_read_data (AgentsArchiveReader *self,
                                        void *buffer,
                                        gsize count,
                                        GCancellable *cancellable,
                                        GError **error);
AGENTS_AVAILABLE_IN_1_0
GInputStream *agents_archive_reader_open_data (AgentsArchiveReader *self);

/* ---- writing ---------------------------------------------------------- */

#define AGENTS_TYPE_ARCHIVE_WRITER (agents_archive_writer_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (
  AgentsArchiveWriter, agents_archive_writer, AGENTS, ARCHIVE_WRITER, GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsArchiveWriter *agents_archive_writer_new (GOutputStream *output);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_archive_writer_add (AgentsArchiveWriter *self,
                                    const AgentsArchiveMember *member,
                                    GCancellable *cancellable,
                                    GError **error);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_archive_writer_write_data (AgentsArchiveWriter *self,
                                           const void *data,
                                           gsize size,
                                           GCancellable *cancellable,
                                           GError **error);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_archive_writer_copy_data (AgentsArchiveWriter *self,
                                          AgentsArchiveReader *reader,
                                          GCancellable *cancellable,
                                          GError **error);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_archive_writer_close (AgentsArchiveWriter *self,
                                      GCancellable *cancellable,
                                      GError **error);

/* ---- the tar policy --------------------------------------------------- */

#define AGENTS_TYPE_ARCHIVE_POLICY (agents_archive_policy_get_type ())

typedef struct _AgentsArchivePolicy AgentsArchivePolicy;

AGENTS_AVAILABLE_IN_1_0
GType agents_archive_policy_get_type (void) G_GNUC_CONST;
AGENTS_AVAILABLE_IN_1_0
AgentsArchivePolicy *agents_archive_policy_new (void);
AGENTS_AVAILABLE_IN_1_0
AgentsArchivePolicy *agents_archive_policy_ref (AgentsArchivePolicy *self);
AGENTS_AVAILABLE_IN_1_0
void agents_archive_policy_unref (AgentsArchivePolicy *self);
AGENTS_AVAILABLE_IN_1_0
void agents_archive_policy_set_keep_links (AgentsArchivePolicy *self,
                                           gboolean keep_links);
AGENTS_AVAILABLE_IN_1_0
void agents_archive_policy_add_existing_link (AgentsArchivePolicy *self,
                                              const char *path,
                                              const char *target);
AGENTS_AVAILABLE_IN_1_0
void agents_archive_policy_reject_symlink_at (AgentsArchivePolicy *self,
                                              const char *path);
AGENTS_AVAILABLE_IN_1_0
void agents_archive_policy_skip_path (AgentsArchivePolicy *self,
                                      const char *path);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AgentsArchivePolicy, agents_archive_policy_unref)

AGENTS_AVAILABLE_IN_1_0
gboolean agents_archive_validate_copy (GInputStream *input,
                                       AgentsArchivePolicy *policy,
                                       const AgentsArchiveLimits *limits,
                                       GOutputStream *output,
                                       GCancellable *cancellable,
                                       GError **error);

/**
 * AgentsArchiveStripFlags:
 * @AGENTS_ARCHIVE_STRIP_NONE: no flag
 * @AGENTS_ARCHIVE_STRIP_KEEP_ROOT: the member that is the prefix itself
 *   is kept, named `.`
 *
 * How agents_archive_strip_prefix() renames an archive.
 */
typedef enum /*< flags >*/
{
  AGENTS_ARCHIVE_STRIP_NONE = 0,
  AGENTS_ARCHIVE_STRIP_KEEP_ROOT = 1 << 0,
} AgentsArchiveStripFlags;

AGENTS_AVAILABLE_IN_1_0
gboolean agents_archive_strip_prefix (GInputStream *input,
                                      const char *prefix,
                                      const char *const *exclude,
                                      AgentsArchiveStripFlags flags,
                                      GOutputStream *output,
                                      GCancellable *cancellable,
                                      GError **error);

AGENTS_AVAILABLE_IN_1_0
GHashTable *agents_archive_list_symlinks (GInputStream *input,
                                          const char *prefix,
                                          GCancellable *cancellable,
                                          GError **error);

G_END_DECLS
