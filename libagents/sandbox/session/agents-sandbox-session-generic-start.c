/* agents-sandbox-session-generic-start.c - the generic start (restore or
 * materialize the workspace) and stop (persist it)
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "agents-progress-stream-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-sandbox-session-generic-private.h"
#include "agents-sandbox-session-generic-task-private.h"
#include "agents-sandbox-session-private.h"
#include "agents-snapshot-fingerprint-private.h"

/* ---- start and stop --------------------------------------------------- */

static void
start_complete (GTask *task, GError *error)
{
  if (error == NULL)
    agents_sandbox_session_state_set_workspace_root_ready (
      agents_sandbox_session_peek_state (task_session (task)), TRUE);
  return_error_or_true (task, error);
  g_object_unref (task);
}

static void
start_apply_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GPtrArray) files = NULL;
  GError *error = NULL;

  files = agents_sandbox_session_apply_manifest_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  start_complete (user_data, files == NULL ? error : NULL);
}

static void
start_apply (GTask *task, gboolean only_ephemeral)
{
  agents_sandbox_session_apply_manifest_async (
    task_session (task), only_ephemeral, g_task_get_cancellable (task),
    start_apply_done, task);
}

static void
start_accounts_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  GError *error = NULL;

  if (!agents_sandbox_session_run_commands_finish (
        AGENTS_SANDBOX_SESSION (source), result, &error))
    {
      start_complete (task, error);
      return;
    }
  start_apply (task, TRUE);
}

/* The progress stream of the persist or hydrate @task is doing. */
#define PROGRESS_STREAM_KEY "agents-progress-stream"

static void
watch_progress (GTask *task, GInputStream *counted)
{
  g_object_set_data_full (G_OBJECT (task), PROGRESS_STREAM_KEY,
                          g_object_ref (counted), g_object_unref);
}

static void
report_progress_end (GTask *task)
{
  GInputStream *counted =
    g_object_get_data (G_OBJECT (task), PROGRESS_STREAM_KEY);

  if (counted != NULL)
    agents_progress_input_stream_report_end (counted);
}

static void
start_hydrate_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Session *self = task_session (task);
  gboolean system_preserved = FALSE;
  GError *error = NULL;

  if (!agents_sandbox_session_hydrate_workspace_finish (self, result, &error))
    {
      start_complete (task, error);
      return;
    }
  report_progress_end (task);
  agents_sandbox_session_set_restore_pending (self, FALSE);
  agents_sandbox_session_get_start_state_preserved (self, NULL,
                                                    &system_preserved);
  if (system_preserved)
    start_apply (task, TRUE);
  else
    agents_sandbox_session_provision_accounts_async (
      self, g_task_get_cancellable (task), start_accounts_done, task);
}

static void
start_restore_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  g_autoptr (GInputStream) stream = NULL;
  g_autoptr (GInputStream) counted = NULL;
  GError *error = NULL;

  stream =
    agents_snapshot_restore_finish (AGENTS_SNAPSHOT (source), result, &error);
  if (stream == NULL)
    {
      start_complete (task, error);
      return;
    }
  counted =
    agents_progress_input_stream_new (stream, task_session (task), "hydrate",
                                      agents_progress_stream_size (stream));
  watch_progress (task, counted);
  agents_sandbox_session_hydrate_workspace_async (task_session (task), counted,
                                                  g_task_get_cancellable (task),
                                                  start_hydrate_done, task);
}

static void
start_clear_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Session *self = task_session (task);
  GError *error = NULL;

  if (!agents_sandbox_session_clear_workspace_root_on_resume_finish (
        self, result, &error))
    {
      start_complete (task, error);
      return;
    }
  agents_snapshot_restore_with_dependencies_async (
    agents_sandbox_session_state_get_snapshot (
      agents_sandbox_session_peek_state (self)),
    agents_sandbox_session_get_dependencies (self),
    g_task_get_cancellable (task), start_restore_done, task);
}

static void
start_restore (GTask *task)
{
  agents_sandbox_session_set_restore_pending (task_session (task), TRUE);
  agents_sandbox_session_clear_workspace_root_on_resume_async (
    task_session (task), g_task_get_cancellable (task), start_clear_done, task);
}

/* Whether the start found the workspace kept from before and its root
 * proven there (recorded, or found by the probe). */
static gboolean
start_root_reusable (Session *self)
{
  gboolean workspace_preserved = FALSE;

  agents_sandbox_session_get_start_state_preserved (self, &workspace_preserved,
                                                    NULL);
  return workspace_preserved &&
         agents_sandbox_session_state_get_workspace_root_ready (
           agents_sandbox_session_peek_state (self));
}

static void
start_fingerprint_done (GObject *source,
                        GAsyncResult *result,
                        gpointer user_data)
{
  GTask *task = user_data;
  AgentsSandboxSessionState *state =
    agents_sandbox_session_peek_state (task_session (task));
  g_autofree char *live = NULL;
  g_autoptr (GError) error = NULL;

  live = agents_snapshot_fingerprint_compute_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  if (live == NULL)
    g_debug ("Restoring the snapshot: no fingerprint of the live workspace: %s",
             error->message);
  if (live != NULL &&
      g_strcmp0 (live, agents_sandbox_session_state_get_snapshot_fingerprint (
                         state)) == 0)
    start_apply (task, TRUE);
  else
    start_restore (task);
}

static void
start_running_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  AgentsSandboxSessionState *state =
    agents_sandbox_session_peek_state (task_session (task));
  const char *version =
    agents_sandbox_session_state_get_snapshot_fingerprint_version (state);
  g_autoptr (GError) error = NULL;
  gboolean running;

  running = agents_sandbox_session_running_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  if (!running ||
      agents_sandbox_session_state_get_snapshot_fingerprint (state) == NULL ||
      g_strcmp0 (version, AGENTS_SNAPSHOT_FINGERPRINT_VERSION) != 0)
    {
      start_restore (task);
      return;
    }
  agents_snapshot_fingerprint_compute_async (task_session (task),
                                             g_task_get_cancellable (task),
                                             start_fingerprint_done, task);
}

/* As the reference decides: a restorable snapshot is restored unless the
 * workspace was kept, is running and still matches the fingerprint the
 * last stop recorded; without one, a kept workspace only gets its
 * ephemeral entries again, anything else the whole manifest. */
static void
start_restorable_done (GObject *source,
                       GAsyncResult *result,
                       gpointer user_data)
{
  GTask *task = user_data;
  Session *self = task_session (task);
  GError *error = NULL;
  gboolean restorable;

  restorable = agents_snapshot_restorable_finish (AGENTS_SNAPSHOT (source),
                                                  result, &error);
  if (error != NULL)
    start_complete (task, error);
  else if (restorable && start_root_reusable (self))
    agents_sandbox_session_running_async (self, g_task_get_cancellable (task),
                                          start_running_done, task);
  else if (restorable)
    start_restore (task);
  else
    start_apply (task, start_root_reusable (self));
}

static void
start_decide (GTask *task)
{
  AgentsSnapshot *snapshot = agents_sandbox_session_state_get_snapshot (
    agents_sandbox_session_peek_state (task_session (task)));

  agents_snapshot_restorable_with_dependencies_async (
    snapshot, agents_sandbox_session_get_dependencies (task_session (task)),
    g_task_get_cancellable (task), start_restorable_done, task);
}

static void
start_probe_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  g_autoptr (AgentsExecResult) exec_result = NULL;

  exec_result = agents_sandbox_session_exec_raw_finish (
    AGENTS_SANDBOX_SESSION (source), result, NULL);
  if (exec_result != NULL && agents_exec_result_ok (exec_result))
    agents_sandbox_session_state_set_workspace_root_ready (
      agents_sandbox_session_peek_state (task_session (task)), TRUE);
  start_decide (task);
}

#define ROOT_PROBE_TIMEOUT_S 10.0

void
agents_sandbox_session_real_start (Session *self, GTask *task)
{
  AgentsManifest *manifest = agents_sandbox_session_get_manifest (self);
  const char *argv[] = { "test", "-d", agents_manifest_get_root (manifest),
                         NULL };
  gboolean workspace_preserved = FALSE;

  g_object_ref (task);
  agents_sandbox_session_get_start_state_preserved (self, &workspace_preserved,
                                                    NULL);
  /* A kept workspace nothing recorded as ready is proven by its root. */
  if (workspace_preserved && !start_root_reusable (self))
    agents_sandbox_session_exec_raw_async (self, argv, ROOT_PROBE_TIMEOUT_S,
                                           g_task_get_cancellable (task),
                                           start_probe_done, task);
  else
    start_decide (task);
}

/* The key of the fingerprint a stop is about to record, on its task. */
#define FINGERPRINT_KEY "agents-snapshot-fingerprint"

static void
stop_cache_written (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  AgentsSandboxSessionState *state =
    agents_sandbox_session_peek_state (task_session (task));
  g_autoptr (GError) error = NULL;

  if (agents_snapshot_fingerprint_cache_write_finish (
        AGENTS_SANDBOX_SESSION (source), result, &error))
    agents_sandbox_session_state_set_snapshot_fingerprint (
      state, g_object_get_data (G_OBJECT (task), FINGERPRINT_KEY),
      AGENTS_SNAPSHOT_FINGERPRINT_VERSION);
  else
    {
      g_debug ("No snapshot fingerprint recorded: %s", error->message);
      agents_sandbox_session_state_set_snapshot_fingerprint (state, NULL, NULL);
    }
  g_task_return_boolean (task, TRUE);
}

/* Records the fingerprint of what was persisted, when the snapshot read
 * all of it; a start uses it to skip restoring a workspace that did not
 * change. */
static void
stop_record_fingerprint (GTask *task, GInputStream *counted)
{
  Session *self = task_session (task);
  g_autofree char *sha256 = agents_progress_input_stream_dup_sha256 (counted);
  char *fingerprint;

  if (sha256 == NULL)
    {
      agents_sandbox_session_state_set_snapshot_fingerprint (
        agents_sandbox_session_peek_state (self), NULL, NULL);
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }
  fingerprint = agents_snapshot_fingerprint_compose (self, sha256);
  g_object_set_data_full (G_OBJECT (task), FINGERPRINT_KEY, fingerprint,
                          g_free);
  agents_snapshot_fingerprint_cache_write_async (
    self, fingerprint, g_task_get_cancellable (task), stop_cache_written, task);
}

static gboolean
snapshot_is_noop (Session *self)
{
  return AGENTS_IS_NOOP_SNAPSHOT (agents_sandbox_session_state_get_snapshot (
    agents_sandbox_session_peek_state (self)));
}

static void
stop_persisted (GTask *task, GInputStream *counted)
{
  /* The archive is closed once, whatever the snapshot did with it. */
  g_input_stream_close (counted, NULL, NULL);
  report_progress_end (task);
  if (snapshot_is_noop (task_session (task)))
    {
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }
  stop_record_fingerprint (task, counted);
}

static void stop_drain_next (GTask *task, GInputStream *counted);

static void
stop_drained (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  GInputStream *counted = G_INPUT_STREAM (source);
  g_autoptr (GBytes) bytes =
    g_input_stream_read_bytes_finish (counted, result, NULL);

  if (bytes == NULL || g_bytes_get_size (bytes) == 0)
    stop_persisted (task, counted);
  else
    stop_drain_next (task, counted);
}

/* The snapshot need not read the archive to its end (a snapshot that
 * keeps nothing does not read it at all): the rest is read here, so that
 * the fingerprint covers the whole workspace. */
static void
stop_drain_next (GTask *task, GInputStream *counted)
{
  if (g_input_stream_is_closed (counted))
    {
      stop_persisted (task, counted);
      return;
    }
  g_input_stream_read_bytes_async (counted, 64 * 1024, G_PRIORITY_DEFAULT,
                                   g_task_get_cancellable (task), stop_drained,
                                   task);
}

static void
stop_persist_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  GInputStream *counted =
    g_object_get_data (G_OBJECT (task), PROGRESS_STREAM_KEY);
  GError *error = NULL;

  if (!agents_snapshot_persist_finish (AGENTS_SNAPSHOT (source), result,
                                       &error))
    {
      g_input_stream_close (counted, NULL, NULL);
      if (!snapshot_is_noop (task_session (task)))
        agents_snapshot_fingerprint_cache_delete (task_session (task));
      fail_task (task, error);
      return;
    }
  if (snapshot_is_noop (task_session (task)))
    stop_persisted (task, counted);
  else
    stop_drain_next (task, counted);
}

static void
stop_archive_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Session *self = task_session (task);
  g_autoptr (GInputStream) stream = NULL;
  g_autoptr (GInputStream) counted = NULL;
  GError *error = NULL;

  stream =
    agents_sandbox_session_persist_workspace_finish (self, result, &error);
  if (stream == NULL)
    {
      fail_task (task, error);
      return;
    }
  counted = agents_progress_input_stream_new (
    stream, self, "persist", agents_progress_stream_size (stream));
  if (!snapshot_is_noop (self))
    agents_progress_input_stream_hash (counted);
  watch_progress (task, counted);
  agents_snapshot_persist_with_dependencies_async (
    agents_sandbox_session_state_get_snapshot (
      agents_sandbox_session_peek_state (self)),
    counted, agents_sandbox_session_get_dependencies (self),
    g_task_get_cancellable (task), stop_persist_done, task);
}

void
agents_sandbox_session_real_stop (Session *self, GTask *task)
{
  /* The start failed to restore the snapshot, which stays as it was: the
   * workspace holds none of the session's work. */
  if (agents_sandbox_session_get_restore_pending (self))
    {
      g_debug ("Not persisting a workspace whose restore failed");
      g_task_return_boolean (task, TRUE);
      return;
    }
  agents_sandbox_session_persist_workspace_async (
    self, g_task_get_cancellable (task), stop_archive_done,
    g_object_ref (task));
}
