/* fake-session.c - the reference tests' fake sessions, as one GObject
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "fake-session.h"
#include "fake-sandbox.h"
#include "agents-sandbox-error-private.h"

static void fake_session_iface_init (AgentsSandboxSessionInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  FakeSession,
  fake_session,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_SANDBOX_SESSION, fake_session_iface_init))

static AgentsSandboxSessionInterface *
default_iface (void)
{
  return g_type_default_interface_peek (AGENTS_TYPE_SANDBOX_SESSION);
}

static AgentsSandboxSessionState *
fake_get_state (AgentsSandboxSession *session)
{
  return g_object_ref (FAKE_SESSION (session)->state);
}

static void
fake_prepared (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;

  if (!agents_sandbox_session_prepare_workspace_finish (
        AGENTS_SANDBOX_SESSION (source), result, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
fake_start_gate_opened (GObject *source,
                        GAsyncResult *result,
                        gpointer user_data)
{
  g_autoptr (GTask) task = user_data;

  FAKE_SESSION (source)->running = TRUE;
  g_task_return_boolean (task, TRUE);
}

static void
fake_start (AgentsSandboxSession *session, GTask *task)
{
  FakeSession *self = FAKE_SESSION (session);

  self->start_calls++;
  if (self->start_gate != NULL &&
      !fake_gate_is_open (FAKE_GATE (self->start_gate)))
    {
      GTask *wait =
        g_task_new (session, NULL, fake_start_gate_opened, g_object_ref (task));

      fake_gate_wait_task (FAKE_GATE (self->start_gate), wait);
      g_object_unref (wait);
      return;
    }
  self->running = TRUE;
  if (self->generic_start)
    {
      agents_sandbox_session_prepare_workspace_async (
        session, NULL, fake_prepared, g_object_ref (task));
      return;
    }
  g_task_return_boolean (task, TRUE);
}

static void
fake_stop_gate_opened (GObject *source,
                       GAsyncResult *result,
                       gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  FakeSession *self = FAKE_SESSION (source);

  if (self->persist_marker)
    {
      AgentsSnapshot *old =
        agents_sandbox_session_state_get_snapshot (self->state);
      g_autoptr (AgentsSnapshot) persisted =
        fake_marker_snapshot_new (agents_snapshot_get_id (old), "persisted");

      agents_sandbox_session_state_set_snapshot (self->state, persisted);
    }
  g_task_return_boolean (task, TRUE);
}

static void
fake_stop (AgentsSandboxSession *session, GTask *task)
{
  FakeSession *self = FAKE_SESSION (session);

  self->stop_calls++;
  self->running = FALSE;
  if (self->stop_gate != NULL)
    {
      GTask *wait =
        g_task_new (session, NULL, fake_stop_gate_opened, g_object_ref (task));

      fake_gate_wait_task (FAKE_GATE (self->stop_gate), wait);
      g_object_unref (wait);
      return;
    }
  if (self->fail_stop)
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED,
                             "stop failed");
  else
    g_task_return_boolean (task, TRUE);
}

static void
fake_shutdown (AgentsSandboxSession *session, GTask *task)
{
  FAKE_SESSION (session)->shutdown_calls++;
  g_task_return_boolean (task, TRUE);
}

static void
fake_running (AgentsSandboxSession *session, GTask *task)
{
  g_task_return_boolean (task, FAKE_SESSION (session)->running);
}

static void
fake_close_dependencies (AgentsSandboxSession *session, GTask *task)
{
  FAKE_SESSION (session)->close_dependency_calls++;
  default_iface ()->close_dependencies (session, task);
}

static void
host_exec_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GSubprocess *process = G_SUBPROCESS (source);
  g_autoptr (GBytes) out = NULL;
  g_autoptr (GBytes) err = NULL;
  GError *error = NULL;

  if (!g_subprocess_communicate_finish (process, result, &out, &err, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  g_task_return_pointer (
    task,
    agents_exec_result_new (out, err,
                            g_subprocess_get_if_exited (process)
                              ? g_subprocess_get_exit_status (process)
                              : 128 + g_subprocess_get_term_sig (process)),
    g_object_unref);
}

static void
exec_on_host (const char *const *argv, GTask *task)
{
  g_autoptr (GSubprocess) process = NULL;
  GError *error = NULL;

  process = g_subprocess_newv (argv,
                               G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                 G_SUBPROCESS_FLAGS_STDERR_PIPE |
                                 G_SUBPROCESS_FLAGS_STDIN_INHERIT,
                               &error);
  if (process == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  g_subprocess_communicate_async (process, NULL, g_task_get_cancellable (task),
                                  host_exec_done, g_object_ref (task));
}

static void
return_exec (GTask *task, const char *out, const char *err, int status)
{
  g_autoptr (GBytes) o = g_bytes_new (out, strlen (out));
  g_autoptr (GBytes) e = g_bytes_new (err, strlen (err));

  g_task_return_pointer (task, agents_exec_result_new (o, e, status),
                         g_object_unref);
}

static void
provisioning_exec (const char *const *argv, GTask *task)
{
  if (g_strcmp0 (argv[0], "groupadd") == 0 ||
      g_strcmp0 (argv[0], "useradd") == 0)
    {
      g_autofree char *out = g_strdup_printf ("attempted %s", argv[0]);
      g_autofree char *err = g_strdup_printf ("missing %s", argv[0]);

      return_exec (task, out, err, 1);
      return;
    }
  return_exec (task, "", "", 0);
}

/* Whether @argv is `test <failing_test_flag> …`, maybe after
 * `sudo -n -u USER --`. */
static gboolean
failing_test (FakeSession *self, const char *const *argv)
{
  guint i = 0;

  if (self->failing_test_flag == NULL)
    return FALSE;
  if (g_strcmp0 (argv[0], "sudo") == 0)
    while (argv[i] != NULL && g_strcmp0 (argv[i], "--") != 0)
      i++;
  if (argv[i] != NULL && g_strcmp0 (argv[i], "--") == 0)
    i++;
  return argv[i] != NULL && g_strcmp0 (argv[i], "test") == 0 &&
         g_strcmp0 (argv[i + 1], self->failing_test_flag) == 0;
}

static void
fake_exec (AgentsSandboxSession *session,
           const char *const *argv,
           double timeout,
           GTask *task)
{
  FakeSession *self = FAKE_SESSION (session);

  g_ptr_array_add (self->exec_commands, g_strdupv ((char **) argv));
  switch (self->exec_mode)
    {
    case FAKE_EXEC_REFUSE:
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED,
                               "exec() should not be called in these tests");
      break;
    case FAKE_EXEC_HOST:
      exec_on_host (argv, task);
      break;
    case FAKE_EXEC_EMPTY:
      return_exec (task, "", "", failing_test (self, argv) ? 1 : 0);
      break;
    case FAKE_EXEC_PROVISIONING:
      provisioning_exec (argv, task);
      break;
    }
}

static void
fake_read (AgentsSandboxSession *session,
           const char *path,
           const char *user,
           GTask *task)
{
  g_ptr_array_add (FAKE_SESSION (session)->read_calls,
                   g_strdup_printf ("%s|%s", user ? user : "", path));
  g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED,
                           "read() should not be called in these tests");
}

static void
fake_write (AgentsSandboxSession *session,
            const char *path,
            GInputStream *data,
            const char *user,
            GTask *task)
{
  g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED,
                           "write() should not be called in these tests");
}

static void
fake_persist_workspace (AgentsSandboxSession *session, GTask *task)
{
  FAKE_SESSION (session)->persist_calls++;
  g_task_return_pointer (task, g_memory_input_stream_new (), g_object_unref);
}

static void
fake_hydrate_workspace (AgentsSandboxSession *session,
                        GInputStream *data,
                        GTask *task)
{
  FAKE_SESSION (session)->hydrate_calls++;
  g_task_return_boolean (task, TRUE);
}

static void
fake_validate_path_access (AgentsSandboxSession *session,
                           const char *path,
                           gboolean for_write,
                           GTask *task)
{
  FakeSession *self = FAKE_SESSION (session);
  GError *error = NULL;

  if (self->windows_paths)
    {
      g_autofree char *windows = g_strdelimit (
        g_strconcat ("C:", path[0] == '/' ? "" : "\\workspace\\", path, NULL),
        "/", '\\');

      g_ptr_array_add (self->normalized_paths, g_strdup (path));
      g_task_return_pointer (task, g_steal_pointer (&windows), g_free);
      return;
    }
  if (!self->guard_paths)
    {
      default_iface ()->validate_path_access (session, path, for_write, task);
      return;
    }
  g_ptr_array_add (self->normalized_paths, g_strdup (path));
  agents_sandbox_error_set_invalid_path (&error, path, "escape_root");
  g_task_return_error (task, error);
}

static void
fake_ensure_runtime_helper_installed (AgentsSandboxSession *session,
                                      AgentsRuntimeHelper *helper,
                                      GTask *task)
{
  FakeSession *self = FAKE_SESSION (session);

  if (self->helper_path == NULL)
    {
      default_iface ()->ensure_runtime_helper_installed (session, helper, task);
      return;
    }
  g_task_return_pointer (task, g_strdup (self->helper_path), g_free);
}

static void
fake_clear_workspace_root_on_resume (AgentsSandboxSession *session, GTask *task)
{
  FakeSession *self = FAKE_SESSION (session);

  if (!self->record_clear)
    {
      default_iface ()->clear_workspace_root_on_resume (session, task);
      return;
    }
  self->cleared_workspace_root = TRUE;
  g_task_return_boolean (task, TRUE);
}

static void
fake_ls (AgentsSandboxSession *session, const char *path, GTask *task)
{
  FakeSession *self = FAKE_SESSION (session);
  GPtrArray *entries;
  GListStore *store;

  if (self->ls_results == NULL)
    {
      default_iface ()->ls (session, path, task);
      return;
    }
  g_ptr_array_add (self->ls_calls, g_strdup (path));
  entries = g_hash_table_lookup (self->ls_results, path);
  if (entries == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED,
                               "unexpected ls path: %s", path);
      return;
    }
  store = g_list_store_new (AGENTS_TYPE_FILE_ENTRY);
  g_list_store_splice (store, 0, 0, entries->pdata, entries->len);
  g_task_return_pointer (task, store, g_object_unref);
}

static void
fake_rm (AgentsSandboxSession *session,
         const char *path,
         gboolean recursive,
         GTask *task)
{
  FakeSession *self = FAKE_SESSION (session);

  if (self->ls_results == NULL)
    {
      default_iface ()->rm (session, path, recursive, task);
      return;
    }
  g_ptr_array_add (
    self->rm_calls,
    g_strdup_printf ("%s|%s", path, recursive ? "True" : "False"));
  g_task_return_boolean (task, TRUE);
}

static void
fake_apply_manifest (AgentsSandboxSession *session,
                     gboolean only_ephemeral,
                     GTask *task)
{
  FakeSession *self = FAKE_SESSION (session);

  if (!self->delta_recorder)
    {
      default_iface ()->apply_manifest (session, only_ephemeral, task);
      return;
    }
  self->apply_manifest_calls++;
  g_task_return_new_error (
    task, G_IO_ERROR, G_IO_ERROR_FAILED,
    "apply_manifest() should not be used for running injected sessions");
}

static gboolean
fake_validate_manifest_application (AgentsSandboxSession *session,
                                    AgentsManifest *manifest,
                                    gboolean session_running,
                                    GError **error)
{
  const char *message = FAKE_SESSION (session)->reject_manifest_application;

  if (message == NULL)
    return TRUE;
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, message);
  return FALSE;
}

static void
fake_apply_entry_batch (AgentsSandboxSession *session,
                        GPtrArray *targets,
                        const char *base_dir,
                        GTask *task)
{
  FakeSession *self = FAKE_SESSION (session);
  GPtrArray *batch;

  if (!self->delta_recorder)
    {
      default_iface ()->apply_entry_batch (session, targets, base_dir, task);
      return;
    }
  batch =
    g_ptr_array_new_with_free_func ((GDestroyNotify) agents_entry_target_free);
  for (guint i = 0; i < targets->len; i++)
    {
      AgentsEntryTarget *target = g_ptr_array_index (targets, i);
      g_autoptr (AgentsManifestEntry) copy =
        agents_manifest_entry_copy (target->entry);

      g_ptr_array_add (batch, agents_entry_target_new (target->path, copy));
    }
  g_ptr_array_add (self->applied_entry_batches, batch);
  if (self->fail_entry_batch_times > 0)
    {
      self->fail_entry_batch_times--;
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED,
                               "delta apply failed");
      return;
    }
  g_task_return_pointer (task,
                         g_ptr_array_new_with_free_func (
                           (GDestroyNotify) agents_materialized_file_free),
                         (GDestroyNotify) g_ptr_array_unref);
}

static void
fake_set_concurrency_limits (AgentsSandboxSession *session,
                             const AgentsConcurrencyLimits *limits)
{
  default_iface ()->set_concurrency_limits (session, limits);
  g_ptr_array_add (FAKE_SESSION (session)->concurrency_limit_values,
                   agents_concurrency_limits_copy (limits));
}

static void
fake_set_archive_limits (AgentsSandboxSession *session,
                         const AgentsArchiveLimits *limits)
{
  default_iface ()->set_archive_limits (session, limits);
  g_ptr_array_add (FAKE_SESSION (session)->archive_limit_values,
                   limits ? agents_archive_limits_copy (limits) : NULL);
}

static void
fake_session_iface_init (AgentsSandboxSessionInterface *iface)
{
  iface->get_state = fake_get_state;
  iface->start = fake_start;
  iface->stop = fake_stop;
  iface->shutdown = fake_shutdown;
  iface->running = fake_running;
  iface->close_dependencies = fake_close_dependencies;
  iface->exec = fake_exec;
  iface->read = fake_read;
  iface->write = fake_write;
  iface->persist_workspace = fake_persist_workspace;
  iface->hydrate_workspace = fake_hydrate_workspace;
  iface->validate_path_access = fake_validate_path_access;
  iface->ensure_runtime_helper_installed = fake_ensure_runtime_helper_installed;
  iface->clear_workspace_root_on_resume = fake_clear_workspace_root_on_resume;
  iface->ls = fake_ls;
  iface->rm = fake_rm;
  iface->apply_manifest = fake_apply_manifest;
  iface->apply_entry_batch = fake_apply_entry_batch;
  iface->validate_manifest_application = fake_validate_manifest_application;
  iface->set_concurrency_limits = fake_set_concurrency_limits;
  iface->set_archive_limits = fake_set_archive_limits;
}

static void
fake_session_finalize (GObject *object)
{
  FakeSession *self = FAKE_SESSION (object);

  g_clear_object (&self->state);
  g_clear_object (&self->start_gate);
  g_clear_object (&self->stop_gate);
  g_clear_pointer (&self->applied_entry_batches, g_ptr_array_unref);
  g_free (self->helper_path);
  g_clear_pointer (&self->ls_results, g_hash_table_unref);
  g_ptr_array_unref (self->normalized_paths);
  g_ptr_array_unref (self->exec_commands);
  g_ptr_array_unref (self->read_calls);
  g_ptr_array_unref (self->ls_calls);
  g_ptr_array_unref (self->rm_calls);
  g_ptr_array_unref (self->concurrency_limit_values);
  g_ptr_array_unref (self->archive_limit_values);

  G_OBJECT_CLASS (fake_session_parent_class)->finalize (object);
}

static void
fake_session_class_init (FakeSessionClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = fake_session_finalize;
}

static void
free_archive_limits (gpointer data)
{
  if (data != NULL)
    agents_archive_limits_free (data);
}

static void
fake_session_init (FakeSession *self)
{
  self->normalized_paths = g_ptr_array_new_with_free_func (g_free);
  self->exec_commands =
    g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  self->ls_calls = g_ptr_array_new_with_free_func (g_free);
  self->read_calls = g_ptr_array_new_with_free_func (g_free);
  self->rm_calls = g_ptr_array_new_with_free_func (g_free);
  self->concurrency_limit_values = g_ptr_array_new_with_free_func (
    (GDestroyNotify) agents_concurrency_limits_free);
  self->archive_limit_values =
    g_ptr_array_new_with_free_func (free_archive_limits);
  self->applied_entry_batches =
    g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
}

FakeSession *
fake_session_new (AgentsManifest *manifest)
{
  FakeSession *self = g_object_new (FAKE_TYPE_SESSION, NULL);
  g_autofree char *id = g_uuid_string_random ();
  g_autoptr (AgentsSnapshot) snapshot = agents_noop_snapshot_new (id);

  self->state = agents_sandbox_session_state_new (manifest, snapshot);
  return self;
}

/* ---- restorable snapshot ---------------------------------------------- */

struct _FakeRestorableSnapshot
{
  GObject parent_instance;
  char *id;
};

static const char *
restorable_type (AgentsSnapshot *snapshot)
{
  return "restorable";
}

static const char *
restorable_id (AgentsSnapshot *snapshot)
{
  return FAKE_RESTORABLE_SNAPSHOT (snapshot)->id;
}

static void
restorable_persist (AgentsSnapshot *snapshot, GInputStream *data, GTask *task)
{
  g_task_return_boolean (task, TRUE);
}

static void
restorable_restore (AgentsSnapshot *snapshot, GTask *task)
{
  g_task_return_pointer (
    task, g_memory_input_stream_new_from_data ("snapshot", 8, NULL),
    g_object_unref);
}

static void
restorable_restorable (AgentsSnapshot *snapshot, GTask *task)
{
  g_task_return_boolean (task, TRUE);
}

static void
restorable_iface_init (AgentsSnapshotInterface *iface)
{
  iface->get_snapshot_type = restorable_type;
  iface->get_id = restorable_id;
  iface->persist = restorable_persist;
  iface->restore = restorable_restore;
  iface->restorable = restorable_restorable;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (FakeRestorableSnapshot,
                               fake_restorable_snapshot,
                               G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (AGENTS_TYPE_SNAPSHOT,
                                                      restorable_iface_init))

static void
fake_restorable_snapshot_finalize (GObject *object)
{
  g_free (FAKE_RESTORABLE_SNAPSHOT (object)->id);
  G_OBJECT_CLASS (fake_restorable_snapshot_parent_class)->finalize (object);
}

static void
fake_restorable_snapshot_class_init (FakeRestorableSnapshotClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = fake_restorable_snapshot_finalize;
}

static void
fake_restorable_snapshot_init (FakeRestorableSnapshot *self)
{
}

AgentsSnapshot *
fake_restorable_snapshot_new (const char *id)
{
  FakeRestorableSnapshot *self =
    g_object_new (FAKE_TYPE_RESTORABLE_SNAPSHOT, NULL);

  self->id = g_strdup (id);
  return AGENTS_SNAPSHOT (self);
}
