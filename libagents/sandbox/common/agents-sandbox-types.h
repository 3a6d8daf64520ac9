/* agents-sandbox-types.h - small value types of the sandbox
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "agents-version-macros.h"

G_BEGIN_DECLS

/**
 * AgentsFileMode:
 * @AGENTS_FILE_MODE_NONE: no access
 * @AGENTS_FILE_MODE_EXEC: execute (or search, for directories)
 * @AGENTS_FILE_MODE_WRITE: write
 * @AGENTS_FILE_MODE_READ: read
 * @AGENTS_FILE_MODE_ALL: read, write and execute
 *
 * The access bits of one class (owner, group, other) of a file mode.
 */
typedef enum /*< flags >*/
{
  AGENTS_FILE_MODE_NONE = 0,
  AGENTS_FILE_MODE_EXEC = 1 << 0,
  AGENTS_FILE_MODE_WRITE = 1 << 1,
  AGENTS_FILE_MODE_READ = 1 << 2,
  AGENTS_FILE_MODE_ALL = 7,
} AgentsFileMode;

/**
 * AgentsEntryKind:
 * @AGENTS_ENTRY_KIND_FILE: a regular file
 * @AGENTS_ENTRY_KIND_DIRECTORY: a directory
 * @AGENTS_ENTRY_KIND_SYMLINK: a symbolic link
 * @AGENTS_ENTRY_KIND_OTHER: anything else (device, socket, fifo)
 *
 * The kind of a file in a workspace listing.
 */
typedef enum
{
  AGENTS_ENTRY_KIND_FILE,
  AGENTS_ENTRY_KIND_DIRECTORY,
  AGENTS_ENTRY_KIND_SYMLINK,
  AGENTS_ENTRY_KIND_OTHER,
} AgentsEntryKind;

/**
 * AgentsCompressionScheme:
 * @AGENTS_COMPRESSION_SCHEME_TAR: a tar archive, possibly compressed
 * @AGENTS_COMPRESSION_SCHEME_ZIP: a zip archive
 * @AGENTS_COMPRESSION_SCHEME_FROM_SUFFIX: the one the last suffix of the
 *   archive's path names, `.tar` or `.zip` (see
 *   agents_archive_compression_scheme_for_path())
 *
 * The archive formats agents_sandbox_session_extract_async() accepts.
 */
typedef enum
{
  AGENTS_COMPRESSION_SCHEME_TAR,
  AGENTS_COMPRESSION_SCHEME_ZIP,
  AGENTS_COMPRESSION_SCHEME_FROM_SUFFIX,
} AgentsCompressionScheme;

/* ---- Permissions ------------------------------------------------------ */

#define AGENTS_TYPE_PERMISSIONS (agents_permissions_get_type ())

typedef struct _AgentsPermissions AgentsPermissions;

/**
 * AgentsPermissions:
 * @owner: #AgentsFileMode bits of the owner (default: all)
 * @group: #AgentsFileMode bits of the group (default: none; read and
 *   exec for a manifest entry)
 * @other: #AgentsFileMode bits of others (default: none; read and exec
 *   for a manifest entry)
 * @directory: whether the permissions describe a directory
 *
 * The permissions of a manifest entry or a listed file.
 */
struct _AgentsPermissions
{
  guint owner;
  guint group;
  guint other;
  gboolean directory;
};

AGENTS_AVAILABLE_IN_1_0
GType agents_permissions_get_type (void) G_GNUC_CONST;
AGENTS_AVAILABLE_IN_1_0
AgentsPermissions *agents_permissions_new (void);
AGENTS_AVAILABLE_IN_1_0
AgentsPermissions *agents_permissions_new_full (guint owner,
                                                guint group,
                                                guint other,
                                                gboolean directory);
AGENTS_AVAILABLE_IN_1_0
AgentsPermissions *agents_permissions_new_from_string (const char *mode,
                                                       GError **error);
AGENTS_AVAILABLE_IN_1_0
AgentsPermissions *agents_permissions_new_from_mode (guint mode);
AGENTS_AVAILABLE_IN_1_0
AgentsPermissions *agents_permissions_copy (const AgentsPermissions *self);
AGENTS_AVAILABLE_IN_1_0
void agents_permissions_free (AgentsPermissions *self);
AGENTS_AVAILABLE_IN_1_0
guint agents_permissions_to_mode (const AgentsPermissions *self);
AGENTS_AVAILABLE_IN_1_0
char *agents_permissions_to_string (const AgentsPermissions *self);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_permissions_equal (const AgentsPermissions *a,
                                   const AgentsPermissions *b);
AGENTS_AVAILABLE_IN_1_0
JsonNode *agents_permissions_to_json (const AgentsPermissions *self);
AGENTS_AVAILABLE_IN_1_0
AgentsPermissions *agents_permissions_new_from_json (JsonNode *node,
                                                     GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AgentsPermissions, agents_permissions_free)

/* ---- Limits ----------------------------------------------------------- */

#define AGENTS_TYPE_CONCURRENCY_LIMITS (agents_concurrency_limits_get_type ())

typedef struct _AgentsConcurrencyLimits AgentsConcurrencyLimits;

/**
 * AgentsConcurrencyLimits:
 * @manifest_entries: how many manifest entries are materialized at once
 *   (default 4)
 * @local_dir_files: how many files of a `local_dir` entry are copied at
 *   once (default 4)
 *
 * Bounds on the concurrency of manifest materialization.
 */
struct _AgentsConcurrencyLimits
{
  gint64 manifest_entries;
  gint64 local_dir_files;
};

AGENTS_AVAILABLE_IN_1_0
GType agents_concurrency_limits_get_type (void) G_GNUC_CONST;
AGENTS_AVAILABLE_IN_1_0
AgentsConcurrencyLimits *agents_concurrency_limits_new (void);
AGENTS_AVAILABLE_IN_1_0
AgentsConcurrencyLimits *
agents_concurrency_limits_new_full (gint64 manifest_entries,
                                    gint64 local_dir_files);
AGENTS_AVAILABLE_IN_1_0
AgentsConcurrencyLimits *
agents_concurrency_limits_copy (const AgentsConcurrencyLimits *self);
AGENTS_AVAILABLE_IN_1_0
void agents_concurrency_limits_free (AgentsConcurrencyLimits *self);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_concurrency_limits_equal (const AgentsConcurrencyLimits *a,
                                          const AgentsConcurrencyLimits *b);
AGENTS_AVAILABLE_IN_1_0
gboolean
agents_concurrency_limits_validate (const AgentsConcurrencyLimits *self,
                                    GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AgentsConcurrencyLimits,
                               agents_concurrency_limits_free)

#define AGENTS_TYPE_ARCHIVE_LIMITS (agents_archive_limits_get_type ())

typedef struct _AgentsArchiveLimits AgentsArchiveLimits;

/**
 * AgentsArchiveLimits:
 * @max_input_bytes: the largest archive accepted (default 1 GiB)
 * @max_extracted_bytes: the most bytes an archive may expand to
 *   (default 4 GiB)
 * @max_members: the most members an archive may have (default 100,000)
 *
 * Resource limits applied when an archive is extracted into a workspace.
 */
struct _AgentsArchiveLimits
{
  gint64 max_input_bytes;
  gint64 max_extracted_bytes;
  gint64 max_members;
};

AGENTS_AVAILABLE_IN_1_0
GType agents_archive_limits_get_type (void) G_GNUC_CONST;
AGENTS_AVAILABLE_IN_1_0
AgentsArchiveLimits *agents_archive_limits_new (void);
AGENTS_AVAILABLE_IN_1_0
AgentsArchiveLimits *agents_archive_limits_new_full (gint64 max_input_bytes,
                                                     gint64 max_extracted_bytes,
                                                     gint64 max_members);
AGENTS_AVAILABLE_IN_1_0
AgentsArchiveLimits *
agents_archive_limits_copy (const AgentsArchiveLimits *self);
AGENTS_AVAILABLE_IN_1_0
void agents_archive_limits_free (AgentsArchiveLimits *self);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_archive_limits_equal (const AgentsArchiveLimits *a,
                                      const AgentsArchiveLimits *b);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_archive_limits_validate (const AgentsArchiveLimits *self,
                                         GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AgentsArchiveLimits, agents_archive_limits_free)

/* ---- ExecResult ------------------------------------------------------- */

#define AGENTS_TYPE_EXEC_RESULT (agents_exec_result_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (
  AgentsExecResult, agents_exec_result, AGENTS, EXEC_RESULT, GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsExecResult *agents_exec_result_new (GBytes *stdout_bytes,
                                          GBytes *stderr_bytes,
                                          int exit_code);
AGENTS_AVAILABLE_IN_1_0
GBytes *agents_exec_result_get_stdout (AgentsExecResult *self);
AGENTS_AVAILABLE_IN_1_0
GBytes *agents_exec_result_get_stderr (AgentsExecResult *self);
AGENTS_AVAILABLE_IN_1_0
char *agents_exec_result_dup_stdout_text (AgentsExecResult *self);
AGENTS_AVAILABLE_IN_1_0
char *agents_exec_result_dup_stderr_text (AgentsExecResult *self);
AGENTS_AVAILABLE_IN_1_0
int agents_exec_result_get_exit_code (AgentsExecResult *self);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_exec_result_ok (AgentsExecResult *self);

/* ---- FileEntry (a listing row) ---------------------------------------- */

#define AGENTS_TYPE_FILE_ENTRY (agents_file_entry_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (
  AgentsFileEntry, agents_file_entry, AGENTS, FILE_ENTRY, GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsFileEntry *agents_file_entry_new (const char *path,
                                        const AgentsPermissions *permissions,
                                        const char *owner,
                                        const char *group,
                                        guint64 size,
                                        AgentsEntryKind kind);
AGENTS_AVAILABLE_IN_1_0
const char *agents_file_entry_get_path (AgentsFileEntry *self);
AGENTS_AVAILABLE_IN_1_0
const AgentsPermissions *
agents_file_entry_get_permissions (AgentsFileEntry *self);
AGENTS_AVAILABLE_IN_1_0
const char *agents_file_entry_get_owner (AgentsFileEntry *self);
AGENTS_AVAILABLE_IN_1_0
const char *agents_file_entry_get_group (AgentsFileEntry *self);
AGENTS_AVAILABLE_IN_1_0
guint64 agents_file_entry_get_size (AgentsFileEntry *self);
AGENTS_AVAILABLE_IN_1_0
AgentsEntryKind agents_file_entry_get_kind (AgentsFileEntry *self);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_file_entry_is_dir (AgentsFileEntry *self);

/* Parses the output of `ls -la` run in @dir (absolute). */
AGENTS_AVAILABLE_IN_1_0
GPtrArray *agents_file_entry_parse_ls (const char *ls_output,
                                       const char *dir,
                                       GError **error);

/* ---- User, Group ------------------------------------------------------ */

#define AGENTS_TYPE_USER (agents_user_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (AgentsUser, agents_user, AGENTS, USER, GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsUser *agents_user_new (const char *name);
AGENTS_AVAILABLE_IN_1_0
const char *agents_user_get_name (AgentsUser *self);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_user_equal (AgentsUser *a, AgentsUser *b);
AGENTS_AVAILABLE_IN_1_0
guint agents_user_hash (AgentsUser *self);
AGENTS_AVAILABLE_IN_1_0
JsonNode *agents_user_to_json (AgentsUser *self);
AGENTS_AVAILABLE_IN_1_0
AgentsUser *agents_user_new_from_json (JsonNode *node, GError **error);

#define AGENTS_TYPE_GROUP (agents_group_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (AgentsGroup, agents_group, AGENTS, GROUP, GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsGroup *
agents_group_new (const char *name, AgentsUser **users, guint n_users);
AGENTS_AVAILABLE_IN_1_0
const char *agents_group_get_name (AgentsGroup *self);
AGENTS_AVAILABLE_IN_1_0
GPtrArray *agents_group_get_users (AgentsGroup *self);
AGENTS_AVAILABLE_IN_1_0
void agents_group_add_user (AgentsGroup *self, AgentsUser *user);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_group_equal (AgentsGroup *a, AgentsGroup *b);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_group_equal_members (AgentsGroup *a, AgentsGroup *b);
AGENTS_AVAILABLE_IN_1_0
guint agents_group_hash (AgentsGroup *self);
AGENTS_AVAILABLE_IN_1_0
JsonNode *agents_group_to_json (AgentsGroup *self);
AGENTS_AVAILABLE_IN_1_0
AgentsGroup *agents_group_new_from_json (JsonNode *node, GError **error);

/* ---- SandboxPathGrant ------------------------------------------------- */

#define AGENTS_TYPE_SANDBOX_PATH_GRANT (agents_sandbox_path_grant_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (AgentsSandboxPathGrant,
                      agents_sandbox_path_grant,
                      AGENTS,
                      SANDBOX_PATH_GRANT,
                      GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsSandboxPathGrant *agents_sandbox_path_grant_new (const char *path,
                                                       gboolean read_only,
                                                       const char *description);
AGENTS_AVAILABLE_IN_1_0
const char *agents_sandbox_path_grant_get_path (AgentsSandboxPathGrant *self);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_path_grant_get_read_only (AgentsSandboxPathGrant *self);
AGENTS_AVAILABLE_IN_1_0
const char *
agents_sandbox_path_grant_get_description (AgentsSandboxPathGrant *self);
AGENTS_AVAILABLE_IN_1_0
const char *
agents_sandbox_path_grant_get_host_path (AgentsSandboxPathGrant *self);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_sandbox_path_grant_equal (AgentsSandboxPathGrant *a,
                                          AgentsSandboxPathGrant *b);
AGENTS_AVAILABLE_IN_1_0
JsonNode *agents_sandbox_path_grant_to_json (AgentsSandboxPathGrant *self);
AGENTS_AVAILABLE_IN_1_0
AgentsSandboxPathGrant *
agents_sandbox_path_grant_new_from_json (JsonNode *node, GError **error);

G_END_DECLS
