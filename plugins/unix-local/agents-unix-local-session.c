/* agents-unix-local-session.c - sessions of the unix_local backend: options,
 * lifecycle, persist and hydrate
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <inttypes.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "agents-archive-private.h"
#include "agents-fs-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-sandbox-session-private.h"
#include "agents-unix-local-confine.h"
#include "agents-unix-local-fs.h"
#include "agents-unix-local-owner.h"
#include "agents-unix-local-pty.h"
#include "agents-unix-local-session-private.h"

#define DEFAULT_OUTPUT_LIMIT (64 * 1024 * 1024)

/* ---- session -------------------------------------------------------- */

static void session_iface_init (AgentsSandboxSessionInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  AgentsUnixLocalSession,
  agents_unix_local_session,
  AGENTS_TYPE_SANDBOX_SESSION_BASE,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_SANDBOX_SESSION, session_iface_init))

static void unix_local_start_backend (AgentsSandboxSessionBase *base,
                                      GTask *task);
static void unix_local_shutdown_backend (AgentsSandboxSessionBase *base,
                                         GTask *task);

typedef struct
{
  AgentsUnixLocalConfinement confinement;
  gboolean network;
  guint32 sandbox_uid;
  guint32 sandbox_gid;
  AgentsUnixLocalLimits limits;
} Options;

static gboolean
set_option_error (GError **error, const char *name, const char *expected)
{
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                            g_variant_new_parsed ("{'option': <%s>}", name),
                            _ ("the “%s” option must be %s"), name, expected);
  return FALSE;
}

/* An integer option in [@min, @max]; absent leaves *@value as is. */
static gboolean
read_count_option (GVariant *options,
                   const char *name,
                   guint64 min,
                   guint64 max,
                   guint64 *value,
                   GError **error)
{
  g_autoptr (GVariant) v = g_variant_lookup_value (options, name, NULL);
  g_autofree char *expected = NULL;
  gint64 n;

  if (v == NULL)
    return TRUE;
  if (g_variant_is_of_type (v, G_VARIANT_TYPE_INT64))
    n = g_variant_get_int64 (v);
  else if (g_variant_is_of_type (v, G_VARIANT_TYPE_INT32))
    n = g_variant_get_int32 (v);
  else if (g_variant_is_of_type (v, G_VARIANT_TYPE_UINT32))
    n = g_variant_get_uint32 (v);
  else if (g_variant_is_of_type (v, G_VARIANT_TYPE_UINT64) &&
           g_variant_get_uint64 (v) <= G_MAXINT64)
    n = (gint64) g_variant_get_uint64 (v);
  else
    n = -1;
  if (n >= 0 && (guint64) n >= min && (guint64) n <= max)
    {
      *value = (guint64) n;
      return TRUE;
    }
  expected = g_strdup_printf (_ ("an integer from %" PRIu64 " to %" PRIu64),
                              (uint64_t) min, (uint64_t) max);
  return set_option_error (error, name, expected);
}

static gboolean
parse_id_options (GVariant *options, Options *parsed, GError **error)
{
  guint64 uid = parsed->sandbox_uid;
  guint64 gid = parsed->sandbox_gid;

  /* 0 would be root again; (uid_t) -1 means "unchanged" to the kernel. */
  if (!read_count_option (options, "sandbox_uid", 1, G_MAXUINT32 - 1, &uid,
                          error) ||
      !read_count_option (options, "sandbox_gid", 1, G_MAXUINT32 - 1, &gid,
                          error))
    return FALSE;
  parsed->sandbox_uid = uid;
  parsed->sandbox_gid = gid;
  return TRUE;
}

static gboolean
parse_limit_options (GVariant *options, Options *parsed, GError **error)
{
  /* A limit of 0 is none; below a few processes nothing can start. */
  return read_count_option (options, "pids_limit", 0, G_MAXINT32,
                            &parsed->limits.processes, error) &&
         (parsed->limits.processes == 0 || parsed->limits.processes >= 4 ||
          set_option_error (error, "pids_limit",
                            _ ("0 (none) or at least 4"))) &&
         read_count_option (options, "memory", 0, G_MAXINT64,
                            &parsed->limits.memory, error) &&
         (parsed->limits.memory == 0 || parsed->limits.memory >= (16 << 20) ||
          set_option_error (error, "memory",
                            _ ("0 (none) or at least 16 MiB (16777216)"))) &&
         read_count_option (options, "cpu_seconds", 0, G_MAXINT32,
                            &parsed->limits.cpu_seconds, error);
}

static gboolean
parse_options (GVariant *options, Options *parsed, GError **error)
{
  g_autoptr (GVariant) value = NULL;

  parsed->confinement = AGENTS_UNIX_LOCAL_CONFINEMENT_AUTO;
  parsed->network = FALSE;
  parsed->sandbox_uid = AGENTS_UNIX_LOCAL_DEFAULT_SANDBOX_UID;
  parsed->sandbox_gid = AGENTS_UNIX_LOCAL_DEFAULT_SANDBOX_GID;
  agents_unix_local_limits_init_default (&parsed->limits);
  if (options == NULL)
    return TRUE;
  if (!g_variant_is_of_type (options, G_VARIANT_TYPE_VARDICT))
    {
      agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                                NULL, "%s",
                                _ ("unix_local options must be an a{sv} "
                                   "dictionary"));
      return FALSE;
    }

  value = g_variant_lookup_value (options, "confinement", NULL);
  if (value != NULL &&
      (!g_variant_is_of_type (value, G_VARIANT_TYPE_STRING) ||
       !agents_unix_local_confinement_from_string (
         g_variant_get_string (value, NULL), &parsed->confinement, error)))
    {
      if (error != NULL && *error == NULL)
        agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                                  NULL, "%s",
                                  _ ("the “confinement” option must be a "
                                     "string"));
      return FALSE;
    }
  g_clear_pointer (&value, g_variant_unref);

  value = g_variant_lookup_value (options, "network", NULL);
  if (value != NULL && !g_variant_is_of_type (value, G_VARIANT_TYPE_BOOLEAN))
    {
      agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                                NULL, "%s",
                                _ ("the “network” option must be a boolean"));
      return FALSE;
    }
  parsed->network = value != NULL && g_variant_get_boolean (value);
  return parse_id_options (options, parsed, error) &&
         parse_limit_options (options, parsed, error);
}

gboolean
agents_unix_local_session_options_validate (GVariant *options, GError **error)
{
  Options parsed;

  return parse_options (options, &parsed, error);
}

AgentsUnixLocalSession *
agents_unix_local_session_new_from_state (AgentsSandboxSessionState *state,
                                          GVariant *options)
{
  AgentsUnixLocalSession *self;
  Options parsed;

  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION_STATE (state), NULL);

  self = g_object_new (AGENTS_TYPE_UNIX_LOCAL_SESSION, "state", state, NULL);
  /* A bad option fails every operation that would depend on it. */
  parse_options (options, &parsed, &self->options_error);
  self->confinement = parsed.confinement;
  self->network = parsed.network;
  self->sandbox_uid = parsed.sandbox_uid;
  self->sandbox_gid = parsed.sandbox_gid;
  self->limits = parsed.limits;
  return self;
}

AgentsManifest *
agents_unix_local_session_manifest (AgentsUnixLocalSession *self)
{
  return agents_sandbox_session_get_manifest (AGENTS_SANDBOX_SESSION (self));
}

char *
agents_unix_local_session_root (AgentsUnixLocalSession *self)
{
  return g_canonicalize_filename (
    agents_manifest_get_root (agents_unix_local_session_manifest (self)), "/");
}

void
agents_unix_local_session_remove_host_tmp_dir (AgentsUnixLocalSession *self)
{
  g_autofree char *dir = g_steal_pointer (&self->host_tmp_dir);

  if (dir != NULL)
    agents_fs_rm_rf (dir, NULL);
}

static void
agents_unix_local_session_finalize (GObject *object)
{
  AgentsUnixLocalSession *self = AGENTS_UNIX_LOCAL_SESSION (object);

  agents_unix_local_session_remove_host_tmp_dir (self);
  g_clear_error (&self->options_error);
  g_clear_pointer (&self->running, g_ptr_array_unref);
  g_clear_pointer (&self->spawn_cache, agents_unix_local_spawn_cache_free);

  G_OBJECT_CLASS (agents_unix_local_session_parent_class)->finalize (object);
}

static void
agents_unix_local_session_class_init (AgentsUnixLocalSessionClass *klass)
{
  AgentsSandboxSessionBaseClass *base_class =
    AGENTS_SANDBOX_SESSION_BASE_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = agents_unix_local_session_finalize;
  base_class->start_backend = unix_local_start_backend;
  base_class->shutdown_backend = unix_local_shutdown_backend;
  base_class->exec_raw = agents_unix_local_session_exec;
}

static void
agents_unix_local_session_init (AgentsUnixLocalSession *self)
{
  self->running = g_ptr_array_new ();
  self->output_limit = DEFAULT_OUTPUT_LIMIT;
  self->spawn_cache = agents_unix_local_spawn_cache_new ();
  /* The workspace is the caller's until a first command needs it. */
  self->handover_pending = TRUE;
  agents_sandbox_session_set_host_binds_supported (
    AGENTS_SANDBOX_SESSION (self), TRUE);
}

void
agents_unix_local_session_set_output_limit (AgentsUnixLocalSession *self,
                                            gsize limit)
{
  g_return_if_fail (AGENTS_IS_UNIX_LOCAL_SESSION (self));
  self->output_limit = limit;
}

guint
agents_unix_local_session_get_n_running (AgentsUnixLocalSession *self)
{
  g_return_val_if_fail (AGENTS_IS_UNIX_LOCAL_SESSION (self), 0);
  return self->running->len;
}

gboolean
agents_unix_local_session_return_options_error (AgentsUnixLocalSession *self,
                                                GTask *task)
{
  if (self->options_error == NULL)
    return FALSE;
  g_task_return_error (task, g_error_copy (self->options_error));
  return TRUE;
}

/* The library wrote into the workspace as the caller: what it made must
 * be handed over to the sandbox uid before the next command. */
void
agents_unix_local_session_mark_handover_pending (AgentsUnixLocalSession *self)
{
  g_atomic_int_set (&self->handover_pending, TRUE);
}

/* ---- lifecycle ------------------------------------------------------ */

static void
start_thread (GTask *task,
              gpointer source_object,
              gpointer task_data,
              GCancellable *cancellable)
{
  AgentsUnixLocalSession *self = AGENTS_UNIX_LOCAL_SESSION (source_object);
  g_autofree char *root = agents_unix_local_session_root (self);
  const char *const argv[] = { "true", NULL };
  AgentsUnixLocalConfinement selected;
  GError *error = NULL;
  int saved_errno;

  if (g_mkdir_with_parents (root, 0755) < 0)
    {
      saved_errno = errno;
      agents_sandbox_error_set (&error, AGENTS_SANDBOX_ERROR_WORKSPACE_START,
                                g_variant_new_parsed ("{'path': <%s>}", root),
                                _ ("cannot create the workspace root %s: %s"),
                                root, g_strerror (saved_errno));
      g_task_return_error (task, error);
      return;
    }
  if (self->confinement != AGENTS_UNIX_LOCAL_CONFINEMENT_NONE &&
      !agents_unix_local_confine_select (agents_unix_local_confine_probe (),
                                         self->confinement, argv, &selected,
                                         &error))
    {
      g_task_return_error (task, error);
      return;
    }
  g_task_return_boolean (task, TRUE);
}

/* The base prepares the workspace after it. */
static void
unix_local_start_backend (AgentsSandboxSessionBase *base, GTask *task)
{
  AgentsUnixLocalSession *self = AGENTS_UNIX_LOCAL_SESSION (base);
  AgentsManifest *manifest = agents_unix_local_session_manifest (self);
  GPtrArray *users = agents_manifest_get_users (manifest);
  GPtrArray *groups = agents_manifest_get_groups (manifest);

  if ((users != NULL && users->len > 0) || (groups != NULL && groups->len > 0))
    {
      g_task_return_error (
        task, agents_sandbox_error_new (
                AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, NULL, "%s",
                _ ("UnixLocalSandboxSession does not support manifest users "
                   "or groups")));
      return;
    }
  if (agents_unix_local_session_return_options_error (self, task))
    return;
  g_task_run_in_thread (task, start_thread);
}

/* The workspace and the writable grants, given back to the caller when
 * commands no longer run. */
static void
hand_back_thread (GTask *task,
                  gpointer source_object,
                  gpointer task_data,
                  GCancellable *cancellable)
{
  AgentsUnixLocalSession *self = AGENTS_UNIX_LOCAL_SESSION (source_object);
  g_autofree char *root = agents_unix_local_session_root (self);
  g_autoptr (GPtrArray) grants = NULL;
  g_autoptr (AgentsUnixLocalPolicy) policy = NULL;
  g_auto (GStrv) paths = NULL;
  GError *error = NULL;

  grants = agents_unix_local_extra_path_grant_roots (
    agents_unix_local_session_manifest (self), &error);
  if (grants != NULL)
    {
      policy = agents_unix_local_policy_new (root, grants, FALSE);
      paths = agents_unix_local_policy_writable_paths (policy);
    }
  if (paths == NULL ||
      !agents_unix_local_hand_back ((const char *const *) paths,
                                    self->sandbox_uid, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
handed_back (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;

  if (g_task_propagate_boolean (G_TASK (result), &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
unix_local_shutdown_backend (AgentsSandboxSessionBase *base, GTask *task)
{
  AgentsUnixLocalSession *self = AGENTS_UNIX_LOCAL_SESSION (base);
  g_autoptr (GTask) back = NULL;

  agents_unix_local_session_cleanup (self);
  if (!self->handed_over)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  self->handed_over = FALSE;
  g_atomic_int_set (&self->handover_pending, TRUE);
  back = g_task_new (self, NULL, handed_back, g_object_ref (task));
  g_task_run_in_thread (back, hand_back_thread);
}

static void
unix_local_running (AgentsSandboxSession *session, GTask *task)
{
  AgentsUnixLocalSession *self = AGENTS_UNIX_LOCAL_SESSION (session);
  g_autofree char *root = agents_unix_local_session_root (self);

  g_task_return_boolean (task, agents_sandbox_session_base_is_started (
                                 AGENTS_SANDBOX_SESSION_BASE (self)) &&
                                 g_file_test (root, G_FILE_TEST_IS_DIR));
}

/* ---- persist and hydrate -------------------------------------------- */

/* Mounts (their logical paths and mount paths) are never archived. */
static char **
persist_excludes (AgentsUnixLocalSession *self, const char *root)
{
  g_autoptr (GPtrArray) skip = agents_sandbox_session_mount_skip_paths (
    agents_unix_local_session_manifest (self));
  GPtrArray *exclude = g_ptr_array_new ();

  for (guint i = 0; i < skip->len; i++)
    {
      const char *path = g_ptr_array_index (skip, i);

      if (agents_unix_local_session_is_at_or_under (path, root) &&
          !g_str_equal (path, root))
        g_ptr_array_add (exclude, g_strdup (path + strlen (root) +
                                            (g_str_equal (root, "/") ? 0 : 1)));
    }
  g_ptr_array_add (exclude, NULL);
  return (char **) g_ptr_array_free (exclude, FALSE);
}

static void
unix_local_persist_workspace (AgentsSandboxSession *session, GTask *task)
{
  AgentsUnixLocalSession *self = AGENTS_UNIX_LOCAL_SESSION (session);
  g_autofree char *root = agents_unix_local_session_root (self);
  g_auto (GStrv) exclude = persist_excludes (self, root);
  GInputStream *stream;
  GError *error = NULL;

  /* The archive is produced by a worker thread as it is read. */
  stream = agents_archive_tar_directory (root, (const char *const *) exclude,
                                         g_task_get_cancellable (task), &error);
  if (stream == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, stream, g_object_unref);
}

static void
hydrate_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;

  agents_unix_local_session_mark_handover_pending (
    g_task_get_source_object (task));
  if (agents_archive_extract_to_directory_finish (result, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
unix_local_hydrate_workspace (AgentsSandboxSession *session,
                              GInputStream *data,
                              GTask *task)
{
  AgentsUnixLocalSession *self = AGENTS_UNIX_LOCAL_SESSION (session);
  g_autofree char *root = agents_unix_local_session_root (self);

  g_mkdir_with_parents (root, 0755);
  /* The restore of this workspace's own snapshot brings its symlinks
   * back as they were, wherever they point. Any other archive is
   * hydrated as by the reference's unix_local: strictly, a symlink member
   * must stay inside the workspace (relative links such as a
   * virtualenv's come back; absolute or outward targets are refused). */
  if (agents_sandbox_session_base_is_restoring_snapshot (
        AGENTS_SANDBOX_SESSION_BASE (self)))
    {
      agents_archive_extract_snapshot_to_directory_async (
        data, root, agents_sandbox_session_get_archive_limits (session),
        g_task_get_cancellable (task), hydrate_done, g_object_ref (task));
      return;
    }
  agents_archive_extract_workspace_to_directory_async (
    data, root, agents_sandbox_session_get_archive_limits (session),
    g_task_get_cancellable (task), hydrate_done, g_object_ref (task));
}

static void
session_iface_init (AgentsSandboxSessionInterface *iface)
{
  iface->running = unix_local_running;
  iface->start_process = agents_unix_local_session_start_process;
  iface->read = agents_unix_local_session_read;
  iface->write = agents_unix_local_session_write;
  iface->persist_workspace = unix_local_persist_workspace;
  iface->hydrate_workspace = unix_local_hydrate_workspace;
  iface->validate_path_access = agents_unix_local_session_validate_path_access;
  iface->ls = agents_unix_local_session_ls;
  iface->mkdir = agents_unix_local_session_mkdir;
  iface->rm = agents_unix_local_session_rm;
}
