/* agents-manifest-entry.h - entries of a sandbox manifest
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

#include "sandbox/common/agents-sandbox-types.h"

G_BEGIN_DECLS

typedef struct _AgentsSandboxSession AgentsSandboxSession;

/* ---- MaterializedFile ------------------------------------------------- */

#define AGENTS_TYPE_MATERIALIZED_FILE (agents_materialized_file_get_type ())

typedef struct _AgentsMaterializedFile AgentsMaterializedFile;

/**
 * AgentsMaterializedFile:
 * @path: the absolute path of the file in the workspace
 * @sha256: (nullable): the hex SHA-256 of its content, when known
 *
 * One file written while a manifest was applied.
 */
struct _AgentsMaterializedFile
{
  char *path;
  char *sha256;
};

AGENTS_AVAILABLE_IN_1_0
GType agents_materialized_file_get_type (void) G_GNUC_CONST;
AGENTS_AVAILABLE_IN_1_0
AgentsMaterializedFile *agents_materialized_file_new (const char *path,
                                                      const char *sha256);
AGENTS_AVAILABLE_IN_1_0
AgentsMaterializedFile *
agents_materialized_file_copy (const AgentsMaterializedFile *self);
AGENTS_AVAILABLE_IN_1_0
void agents_materialized_file_free (AgentsMaterializedFile *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AgentsMaterializedFile,
                               agents_materialized_file_free)

/* ---- ManifestEntry (abstract base) ------------------------------------ */

#define AGENTS_TYPE_MANIFEST_ENTRY (agents_manifest_entry_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_DERIVABLE_TYPE (
  AgentsManifestEntry, agents_manifest_entry, AGENTS, MANIFEST_ENTRY, GObject)

/**
 * AgentsManifestEntryClass:
 * @type_name: the JSON `type` discriminator, e.g. `"file"`
 * @is_mount: whether entries of this class are remote mounts
 * @serialize_fields: adds the subclass's members to an open JSON object,
 *   in the reference's order
 * @deserialize_fields: reads the subclass's members from a JSON object
 * @copy_fields: deep-copies the subclass's members into @dest, a new
 *   instance of the same type whose base fields are already copied
 * @equal_fields: compares the subclass's members
 * @apply: materializes the entry at @dest (absolute) in @session; the task
 *   returns a #GPtrArray of #AgentsMaterializedFile
 * @get_child_names: for an entry that holds others (a directory), the
 *   names of its children in order, a %NULL-terminated array; %NULL (the
 *   default) for one that holds none
 * @get_child: the child named so, or %NULL
 *
 * The class of manifest entries. Subclasses are registered by their
 * @type_name with agents_registry_register_entry_type() so that JSON can
 * be turned back into objects.
 */
struct _AgentsManifestEntryClass
{
  GObjectClass parent_class;

  const char *type_name;
  gboolean is_mount;

  void (*serialize_fields) (AgentsManifestEntry *self, JsonBuilder *builder);
  gboolean (*deserialize_fields) (AgentsManifestEntry *self,
                                  JsonObject *object,
                                  GError **error);
  void (*copy_fields) (AgentsManifestEntry *self, AgentsManifestEntry *dest);
  gboolean (*equal_fields) (AgentsManifestEntry *self,
                            AgentsManifestEntry *other);
  void (*apply) (AgentsManifestEntry *self,
                 AgentsSandboxSession *session,
                 const char *dest,
                 const char *base_dir,
                 GTask *task);
  char **(*get_child_names) (AgentsManifestEntry *self);
  AgentsManifestEntry *(*get_child) (AgentsManifestEntry *self,
                                     const char *name);

  /*< private >*/
  gpointer padding[10];
};

AGENTS_AVAILABLE_IN_1_0
const char *agents_manifest_entry_get_type_name (AgentsManifestEntry *self);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_manifest_entry_is_mount (AgentsManifestEntry *self);
AGENTS_AVAILABLE_IN_1_0
const char *agents_manifest_entry_get_description (AgentsManifestEntry *self);
AGENTS_AVAILABLE_IN_1_0
void agents_manifest_entry_set_description (AgentsManifestEntry *self,
                                            const char *description);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_manifest_entry_get_ephemeral (AgentsManifestEntry *self);
AGENTS_AVAILABLE_IN_1_0
void agents_manifest_entry_set_ephemeral (AgentsManifestEntry *self,
                                          gboolean ephemeral);
AGENTS_AVAILABLE_IN_1_0
AgentsGroup *agents_manifest_entry_get_group (AgentsManifestEntry *self);
AGENTS_AVAILABLE_IN_1_0
void agents_manifest_entry_set_group (AgentsManifestEntry *self,
                                      AgentsGroup *group);
AGENTS_AVAILABLE_IN_1_0
const AgentsPermissions *
agents_manifest_entry_get_permissions (AgentsManifestEntry *self);
AGENTS_AVAILABLE_IN_1_0
void
agents_manifest_entry_set_permissions (AgentsManifestEntry *self,
                                       const AgentsPermissions *permissions);
AGENTS_AVAILABLE_IN_1_0
JsonNode *agents_manifest_entry_to_json (AgentsManifestEntry *self);
AGENTS_AVAILABLE_IN_1_0
AgentsManifestEntry *agents_manifest_entry_new_from_json (JsonNode *node,
                                                          GError **error);
AGENTS_AVAILABLE_IN_1_0
AgentsManifestEntry *agents_manifest_entry_copy (AgentsManifestEntry *self);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_manifest_entry_equal (AgentsManifestEntry *a,
                                      AgentsManifestEntry *b);
AGENTS_AVAILABLE_IN_1_0
void agents_manifest_entry_apply_async (AgentsManifestEntry *self,
                                        AgentsSandboxSession *session,
                                        const char *dest,
                                        const char *base_dir,
                                        GCancellable *cancellable,
                                        GAsyncReadyCallback callback,
                                        gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
GPtrArray *agents_manifest_entry_apply_finish (AgentsManifestEntry *self,
                                               GAsyncResult *result,
                                               GError **error);

/* ---- EntryTarget: an entry and where it lands ------------------------- */

#define AGENTS_TYPE_ENTRY_TARGET (agents_entry_target_get_type ())

typedef struct _AgentsEntryTarget AgentsEntryTarget;

/**
 * AgentsEntryTarget:
 * @path: where the entry lands: an absolute path in the workspace, or a
 *   path relative to the manifest root, depending on the API
 * @entry: the entry
 *
 * A manifest entry paired with its destination.
 */
struct _AgentsEntryTarget
{
  char *path;
  AgentsManifestEntry *entry;
};

AGENTS_AVAILABLE_IN_1_0
GType agents_entry_target_get_type (void) G_GNUC_CONST;
AGENTS_AVAILABLE_IN_1_0
AgentsEntryTarget *agents_entry_target_new (const char *path,
                                            AgentsManifestEntry *entry);
AGENTS_AVAILABLE_IN_1_0
AgentsEntryTarget *agents_entry_target_copy (const AgentsEntryTarget *self);
AGENTS_AVAILABLE_IN_1_0
void agents_entry_target_free (AgentsEntryTarget *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AgentsEntryTarget, agents_entry_target_free)

/* ---- File ------------------------------------------------------------- */

#define AGENTS_TYPE_FILE (agents_file_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (
  AgentsFile, agents_file, AGENTS, FILE, AgentsManifestEntry)

AGENTS_AVAILABLE_IN_1_0
AgentsManifestEntry *agents_file_new (GBytes *content);
AGENTS_AVAILABLE_IN_1_0
AgentsManifestEntry *agents_file_new_from_text (const char *text);
AGENTS_AVAILABLE_IN_1_0
GBytes *agents_file_get_content (AgentsFile *self);

/* ---- Dir -------------------------------------------------------------- */

#define AGENTS_TYPE_DIR (agents_dir_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (AgentsDir, agents_dir, AGENTS, DIR, AgentsManifestEntry)

AGENTS_AVAILABLE_IN_1_0
AgentsManifestEntry *agents_dir_new (void);
AGENTS_AVAILABLE_IN_1_0
void agents_dir_set_child (AgentsDir *self,
                           const char *name,
                           AgentsManifestEntry *child);
AGENTS_AVAILABLE_IN_1_0
AgentsManifestEntry *agents_dir_get_child (AgentsDir *self, const char *name);
AGENTS_AVAILABLE_IN_1_0
char **agents_dir_get_child_names (AgentsDir *self);

/* ---- LocalFile, LocalDir ---------------------------------------------- */

#define AGENTS_TYPE_LOCAL_FILE (agents_local_file_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (
  AgentsLocalFile, agents_local_file, AGENTS, LOCAL_FILE, AgentsManifestEntry)

AGENTS_AVAILABLE_IN_1_0
AgentsManifestEntry *agents_local_file_new (const char *src);
AGENTS_AVAILABLE_IN_1_0
const char *agents_local_file_get_src (AgentsLocalFile *self);

#define AGENTS_TYPE_LOCAL_DIR (agents_local_dir_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (
  AgentsLocalDir, agents_local_dir, AGENTS, LOCAL_DIR, AgentsManifestEntry)

AGENTS_AVAILABLE_IN_1_0
AgentsManifestEntry *agents_local_dir_new (const char *src);
AGENTS_AVAILABLE_IN_1_0
const char *agents_local_dir_get_src (AgentsLocalDir *self);

/* ---- GitRepo ---------------------------------------------------------- */

#define AGENTS_TYPE_GIT_REPO (agents_git_repo_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (
  AgentsGitRepo, agents_git_repo, AGENTS, GIT_REPO, AgentsManifestEntry)

AGENTS_AVAILABLE_IN_1_0
AgentsManifestEntry *
agents_git_repo_new (const char *host, const char *repo, const char *ref);
AGENTS_AVAILABLE_IN_1_0
const char *agents_git_repo_get_host (AgentsGitRepo *self);
AGENTS_AVAILABLE_IN_1_0
const char *agents_git_repo_get_repo (AgentsGitRepo *self);
AGENTS_AVAILABLE_IN_1_0
const char *agents_git_repo_get_ref (AgentsGitRepo *self);
AGENTS_AVAILABLE_IN_1_0
const char *agents_git_repo_get_subpath (AgentsGitRepo *self);
AGENTS_AVAILABLE_IN_1_0
void agents_git_repo_set_subpath (AgentsGitRepo *self, const char *subpath);
AGENTS_AVAILABLE_IN_1_0
char *agents_git_repo_dup_clone_url (AgentsGitRepo *self);

/* ---- Mount (abstract base of remote mounts) --------------------------- */

#define AGENTS_TYPE_MOUNT (agents_mount_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_DERIVABLE_TYPE (
  AgentsMount, agents_mount, AGENTS, MOUNT, AgentsManifestEntry)

/**
 * AgentsMountClass:
 * @mount: mounts the remote storage at @dest (absolute) in @session
 * @unmount: unmounts it again
 *
 * The class of remote mount entries (`s3_mount`, …). Mounts are
 * ephemeral and read-only by default, are never archived into
 * snapshots, and are kept when a workspace is cleared on resume.
 */
struct _AgentsMountClass
{
  AgentsManifestEntryClass parent_class;

  void (*mount) (AgentsMount *self,
                 AgentsSandboxSession *session,
                 const char *dest,
                 const char *base_dir,
                 GTask *task);
  void (*unmount) (AgentsMount *self,
                   AgentsSandboxSession *session,
                   const char *dest,
                   const char *base_dir,
                   GTask *task);

  /*< private >*/
  gpointer padding[8];
};

AGENTS_AVAILABLE_IN_1_0
const char *agents_mount_get_mount_path (AgentsMount *self);
AGENTS_AVAILABLE_IN_1_0
void agents_mount_set_mount_path (AgentsMount *self, const char *mount_path);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_mount_get_read_only (AgentsMount *self);
AGENTS_AVAILABLE_IN_1_0
void agents_mount_set_read_only (AgentsMount *self, gboolean read_only);
AGENTS_AVAILABLE_IN_1_0
void agents_mount_mount_async (AgentsMount *self,
                               AgentsSandboxSession *session,
                               const char *dest,
                               const char *base_dir,
                               GCancellable *cancellable,
                               GAsyncReadyCallback callback,
                               gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_mount_mount_finish (AgentsMount *self,
                                    GAsyncResult *result,
                                    GError **error);
AGENTS_AVAILABLE_IN_1_0
void agents_mount_unmount_async (AgentsMount *self,
                                 AgentsSandboxSession *session,
                                 const char *dest,
                                 const char *base_dir,
                                 GCancellable *cancellable,
                                 GAsyncReadyCallback callback,
                                 gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_mount_unmount_finish (AgentsMount *self,
                                      GAsyncResult *result,
                                      GError **error);

G_END_DECLS
