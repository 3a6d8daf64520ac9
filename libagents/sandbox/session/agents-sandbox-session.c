/* agents-sandbox-session.c - the sandbox session contract
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "agents-archive.h"
#include "agents-mount-security-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-sandbox-process-table-private.h"
#include "agents-sandbox-session-call-private.h"
#include "agents-sandbox-session-generic-private.h"
#include "agents-sandbox-session-private.h"

/**
 * AgentsSandboxSession:
 *
 * A live sandbox: a workspace a backend created from a manifest, in which
 * commands run and files are read and written. Backends implement the
 * primitives of #AgentsSandboxSessionInterface; the rest of the API is
 * generic code written over them.
 *
 * Every path given to the session is checked against the workspace root
 * and the manifest's extra path grants before anything touches it.
 */

G_DEFINE_INTERFACE (AgentsSandboxSession, agents_sandbox_session, G_TYPE_OBJECT)

static GQuark session_data_quark;
static guint progress_signal;

void
agents_sandbox_session_data_init (AgentsSandboxSessionData *data)
{
  memset (data, 0, sizeof *data);
  data->concurrency.manifest_entries = 4;
  data->concurrency.local_dir_files = 4;
}

void
agents_sandbox_session_data_clear (AgentsSandboxSessionData *data)
{
  g_clear_object (&data->state);
  g_clear_object (&data->dependencies);
  g_clear_pointer (&data->archive_limits, agents_archive_limits_free);
  agents_sandbox_session_data_clear_pre_stop_hooks (data);
}

static void
session_data_free (gpointer data)
{
  agents_sandbox_session_data_clear (data);
  g_free (data);
}

/* A session derived from AgentsSandboxSessionBase holds its data; any
 * other implementation of the interface gets it as qdata. */
AgentsSandboxSessionData *
agents_sandbox_session_get_data (AgentsSandboxSession *self)
{
  AgentsSandboxSessionData *sd;

  if (AGENTS_IS_SANDBOX_SESSION_BASE (self))
    return agents_sandbox_session_base_get_data (
      AGENTS_SANDBOX_SESSION_BASE (self));
  sd = g_object_get_qdata (G_OBJECT (self), session_data_quark);
  if (sd == NULL)
    {
      sd = g_new (AgentsSandboxSessionData, 1);
      agents_sandbox_session_data_init (sd);
      g_object_set_qdata_full (G_OBJECT (self), session_data_quark, sd,
                               session_data_free);
    }
  return sd;
}

static void
return_not_supported (AgentsSandboxSession *self,
                      GTask *task,
                      const char *operation)
{
  g_task_return_error (
    task, agents_sandbox_error_new (AGENTS_SANDBOX_ERROR_NOT_SUPPORTED, NULL,
                                    _ ("%s does not support %s"),
                                    G_OBJECT_TYPE_NAME (self), operation));
}

static AgentsSandboxSessionState *
default_get_state (AgentsSandboxSession *self)
{
  AgentsSandboxSessionData *sd = agents_sandbox_session_get_data (self);

  if (sd->state == NULL)
    sd->state = agents_sandbox_session_state_new (NULL, NULL);
  return g_object_ref (sd->state);
}

static void
default_succeed (AgentsSandboxSession *self, GTask *task)
{
  g_task_return_boolean (task, TRUE);
}

static gboolean
default_validate_manifest_application (AgentsSandboxSession *self,
                                       AgentsManifest *manifest,
                                       gboolean session_running,
                                       GError **error)
{
  return agents_manifest_check_mount_credential_boundary (manifest, error);
}

static void
default_running (AgentsSandboxSession *self, GTask *task)
{
  return_not_supported (self, task, "running");
}

static void
default_exec (AgentsSandboxSession *self,
              const char *const *argv,
              double timeout,
              GTask *task)
{
  return_not_supported (self, task, "exec");
}

static void
default_read (AgentsSandboxSession *self,
              const char *path,
              const char *user,
              GTask *task)
{
  return_not_supported (self, task, "read");
}

static void
default_write (AgentsSandboxSession *self,
               const char *path,
               GInputStream *data,
               const char *user,
               GTask *task)
{
  return_not_supported (self, task, "write");
}

static void
default_persist_workspace (AgentsSandboxSession *self, GTask *task)
{
  return_not_supported (self, task, "persist_workspace");
}

static void
default_hydrate_workspace (AgentsSandboxSession *self,
                           GInputStream *data,
                           GTask *task)
{
  return_not_supported (self, task, "hydrate_workspace");
}

static void
default_set_concurrency_limits (AgentsSandboxSession *self,
                                const AgentsConcurrencyLimits *limits)
{
  agents_sandbox_session_get_data (self)->concurrency = *limits;
}

static void
default_set_archive_limits (AgentsSandboxSession *self,
                            const AgentsArchiveLimits *limits)
{
  AgentsSandboxSessionData *sd = agents_sandbox_session_get_data (self);

  g_clear_pointer (&sd->archive_limits, agents_archive_limits_free);
  if (limits != NULL)
    sd->archive_limits = agents_archive_limits_copy (limits);
}

static void
agents_sandbox_session_default_init (AgentsSandboxSessionInterface *iface)
{
  session_data_quark =
    g_quark_from_static_string ("agents-sandbox-session-data");

  /**
   * AgentsSandboxSession::progress:
   * @self: the session
   * @operation: what is in progress, which says the unit of @done and of
   *   the total: `persist` (the workspace archived into the snapshot) and
   *   `hydrate` (the workspace filled from it) count the bytes of the
   *   workspace archive; `apply` (the manifest materialized) counts its
   *   top-level entries
   * @done: how much is done: bytes read so far, or entries materialized
   * @total: how much there is to do, or -1 when unknown (a persist does
   *   not know its archive's size before the end)
   *
   * Reports how far a long operation got: first with @done 0, then as
   * the work goes (for `apply`, after each batch of entries, see
   * #AgentsConcurrencyLimits), last with everything done (then @done
   * equals @total when that is known). The detail is @operation
   * (`progress::persist`).
   *
   * Emitted on the thread whose thread-default main context was current
   * when the operation started, never from worker threads, and only
   * while that context runs; reports are coalesced, so a handler sees a
   * monotonic but not necessarily contiguous series.
   */
  progress_signal = g_signal_new (
    "progress", G_TYPE_FROM_INTERFACE (iface),
    G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED, 0, NULL, NULL, NULL, G_TYPE_NONE, 3,
    G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE, G_TYPE_INT64, G_TYPE_INT64);

  iface->get_state = default_get_state;
  iface->start = agents_sandbox_session_real_start;
  iface->stop = agents_sandbox_session_real_stop;
  iface->shutdown = default_succeed;
  iface->running = default_running;
  iface->close_dependencies = default_succeed;
  iface->exec = default_exec;
  iface->read = default_read;
  iface->write = default_write;
  iface->persist_workspace = default_persist_workspace;
  iface->hydrate_workspace = default_hydrate_workspace;
  iface->ls = agents_sandbox_session_real_ls;
  iface->mkdir = agents_sandbox_session_real_mkdir;
  iface->rm = agents_sandbox_session_real_rm;
  iface->extract = agents_sandbox_session_real_extract;
  iface->apply_manifest = agents_sandbox_session_real_apply_manifest;
  iface->apply_entry_batch = agents_sandbox_session_real_apply_entry_batch;
  iface->validate_path_access =
    agents_sandbox_session_real_validate_path_access;
  iface->ensure_runtime_helper_installed =
    agents_sandbox_session_real_ensure_runtime_helper_installed;
  iface->clear_workspace_root_on_resume =
    agents_sandbox_session_real_clear_workspace_root_on_resume;
  iface->set_concurrency_limits = default_set_concurrency_limits;
  iface->set_archive_limits = default_set_archive_limits;
  iface->validate_manifest_application = default_validate_manifest_application;
  agents_sandbox_session_process_iface_init (iface);
}

/**
 * agents_sandbox_session_get_state:
 * @self: a session
 *
 * Gets the session's state: its id, manifest and snapshot. The session
 * keeps the state; changing it changes the session's.
 *
 * Returns: (transfer full): a new reference to the state
 */
AgentsSandboxSessionState *
agents_sandbox_session_get_state (AgentsSandboxSession *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION (self), NULL);

  return IFACE (self)->get_state (self);
}

AgentsSandboxSessionState *
agents_sandbox_session_peek_state (AgentsSandboxSession *self)
{
  AgentsSandboxSessionState *state = agents_sandbox_session_get_state (self);

  /* The session keeps its state: the pointer outlives this reference. */
  g_object_unref (state);
  return state;
}

/**
 * agents_sandbox_session_set_state:
 * @self: a session
 * @state: the state
 *
 * Sets the state that the default @get_state implementation returns.
 * Implementations written in Python or JavaScript usually call this once
 * when they are constructed instead of implementing @get_state.
 */
void
agents_sandbox_session_set_state (AgentsSandboxSession *self,
                                  AgentsSandboxSessionState *state)
{
  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));
  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION_STATE (state));

  g_set_object (&agents_sandbox_session_get_data (self)->state, state);
}

/**
 * agents_sandbox_session_get_manifest:
 * @self: a session
 *
 * Gets the manifest of the session's state.
 *
 * Returns: (transfer none): the manifest
 */
AgentsManifest *
agents_sandbox_session_get_manifest (AgentsSandboxSession *self)
{
  return agents_sandbox_session_state_get_manifest (
    agents_sandbox_session_peek_state (self));
}

/**
 * agents_task_return_object:
 * @task: the task a vfunc was given
 * @object: (type GObject.Object) (transfer none): the result
 *
 * Completes @task with @object, as C implementations do with
 * `g_task_return_pointer (task, g_object_ref (object), g_object_unref)`.
 *
 * Implementations written in Python or JavaScript complete a task that
 * returns an object (an #AgentsExecResult, a #GInputStream, a session …)
 * with this function: g_task_return_value() would hand the C caller a
 * #GValue instead of the object.
 */
void
agents_task_return_object (GTask *task, gpointer object)
{
  g_return_if_fail (G_IS_TASK (task));
  g_return_if_fail (G_IS_OBJECT (object));

  g_task_return_pointer (task, g_object_ref (object), g_object_unref);
}

/**
 * agents_task_return_string:
 * @task: the task a vfunc was given
 * @string: the result
 *
 * Completes @task with a copy of @string, for the vfuncs whose task
 * returns a string; see agents_task_return_object().
 */
void
agents_task_return_string (GTask *task, const char *string)
{
  g_return_if_fail (G_IS_TASK (task));
  g_return_if_fail (string != NULL);

  g_task_return_pointer (task, g_strdup (string), g_free);
}

/* ---- settings --------------------------------------------------------- */

/**
 * agents_sandbox_session_set_concurrency_limits:
 * @self: a session
 * @limits: the limits
 *
 * Gives the session the run's concurrency limits.
 */
void
agents_sandbox_session_set_concurrency_limits (
  AgentsSandboxSession *self, const AgentsConcurrencyLimits *limits)
{
  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));
  g_return_if_fail (limits != NULL);

  IFACE (self)->set_concurrency_limits (self, limits);
}

/**
 * agents_sandbox_session_get_concurrency_limits:
 * @self: a session
 *
 * Gets the concurrency limits in force.
 *
 * Returns: (transfer none): the concurrency limits in force
 */
const AgentsConcurrencyLimits *
agents_sandbox_session_get_concurrency_limits (AgentsSandboxSession *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION (self), NULL);

  return &agents_sandbox_session_get_data (self)->concurrency;
}

/**
 * agents_sandbox_session_set_archive_limits:
 * @self: a session
 * @limits: (nullable): the limits, or %NULL for none
 *
 * Gives the session the run's archive limits. With none, extraction
 * applies the default limits of agents_archive_limits_new().
 */
void
agents_sandbox_session_set_archive_limits (AgentsSandboxSession *self,
                                           const AgentsArchiveLimits *limits)
{
  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));

  IFACE (self)->set_archive_limits (self, limits);
}

/**
 * agents_sandbox_session_get_archive_limits:
 * @self: a session
 *
 * Gets the archive limits, if any were set.
 *
 * Returns: (transfer none) (nullable): the archive limits, if any were set
 */
const AgentsArchiveLimits *
agents_sandbox_session_get_archive_limits (AgentsSandboxSession *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION (self), NULL);

  return agents_sandbox_session_get_data (self)->archive_limits;
}

/**
 * agents_sandbox_session_set_start_state_preserved:
 * @self: a session
 * @workspace: whether the workspace survived since the session last ran
 *   (then, if its root is there and it still matches the fingerprint the
 *   last stop recorded, it is not restored from the snapshot on start)
 * @system: whether the operating system state (accounts) survived (then
 *   accounts are not provisioned again on resume)
 *
 * Tells the generic start what a backend knows survived.
 */
void
agents_sandbox_session_set_start_state_preserved (AgentsSandboxSession *self,
                                                  gboolean workspace,
                                                  gboolean system)
{
  AgentsSandboxSessionData *sd;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));

  sd = agents_sandbox_session_get_data (self);
  sd->workspace_preserved = workspace;
  sd->system_preserved = system;
}

/* Between the clearing of the workspace for a restore and the end of
 * its hydration, the workspace is not the session's: persisting it then
 * would replace the snapshot with an empty or partial one. */
void
agents_sandbox_session_set_restore_pending (AgentsSandboxSession *self,
                                            gboolean pending)
{
  agents_sandbox_session_get_data (self)->restore_pending = pending;
}

gboolean
agents_sandbox_session_get_restore_pending (AgentsSandboxSession *self)
{
  return agents_sandbox_session_get_data (self)->restore_pending;
}

/**
 * agents_sandbox_session_get_start_state_preserved:
 * @self: a session
 * @workspace: (out) (optional): whether the workspace survived
 * @system: (out) (optional): whether the system state survived
 *
 * Gets what agents_sandbox_session_set_start_state_preserved() set.
 */
void
agents_sandbox_session_get_start_state_preserved (AgentsSandboxSession *self,
                                                  gboolean *workspace,
                                                  gboolean *system)
{
  AgentsSandboxSessionData *sd;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));

  sd = agents_sandbox_session_get_data (self);
  if (workspace != NULL)
    *workspace = sd->workspace_preserved;
  if (system != NULL)
    *system = sd->system_preserved;
}

/**
 * agents_sandbox_session_set_dependencies:
 * @self: a session
 * @dependencies: (nullable): the dependencies, or %NULL to keep those set
 *
 * Sets the objects the session hands to its snapshot when it persists
 * and restores the workspace, such as the client of an
 * #AgentsRemoteSnapshot. As the reference, %NULL changes nothing.
 */
void
agents_sandbox_session_set_dependencies (AgentsSandboxSession *self,
                                         AgentsDependencies *dependencies)
{
  AgentsSandboxSessionData *sd;

  g_return_if_fail (AGENTS_IS_SANDBOX_SESSION (self));
  g_return_if_fail (dependencies == NULL ||
                    AGENTS_IS_DEPENDENCIES (dependencies));

  if (dependencies == NULL)
    return;
  sd = agents_sandbox_session_get_data (self);
  g_set_object (&sd->dependencies, dependencies);
}

/**
 * agents_sandbox_session_get_dependencies:
 * @self: a session
 *
 * Gets the session's dependencies, made empty on first use.
 *
 * Returns: (transfer none): the dependencies
 */
AgentsDependencies *
agents_sandbox_session_get_dependencies (AgentsSandboxSession *self)
{
  AgentsSandboxSessionData *sd;

  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION (self), NULL);

  sd = agents_sandbox_session_get_data (self);
  if (sd->dependencies == NULL)
    sd->dependencies = agents_dependencies_new ();
  return sd->dependencies;
}

/* Emits AgentsSandboxSession::progress (agents-progress-stream.c). */
void
agents_sandbox_session_report_progress (AgentsSandboxSession *self,
                                        const char *operation,
                                        gint64 done,
                                        gint64 total)
{
  g_signal_emit (self, progress_signal, g_quark_from_string (operation),
                 operation, done, total);
}
