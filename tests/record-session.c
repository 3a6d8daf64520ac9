/* record-session.c - the reference tests' "Python session": a minimal
 * session that records the generic layer's calls (exec, write, mkdir)
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "record-session.h"

typedef struct
{
  char *prefix;
  int status;
  char *out;
  char *err;
} RecordRule;

static void
record_rule_free (RecordRule *rule)
{
  g_free (rule->prefix);
  g_free (rule->out);
  g_free (rule->err);
  g_free (rule);
}

static void record_session_iface_init (AgentsSandboxSessionInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  RecordSession,
  record_session,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_SANDBOX_SESSION,
                         record_session_iface_init))

static AgentsSandboxSessionState *
record_get_state (AgentsSandboxSession *session)
{
  return g_object_ref (RECORD_SESSION (session)->state);
}

static void
record_succeed (AgentsSandboxSession *session, GTask *task)
{
  g_task_return_boolean (task, TRUE);
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
record_exec (AgentsSandboxSession *session,
             const char *const *argv,
             double timeout,
             GTask *task)
{
  RecordSession *self = RECORD_SESSION (session);
  char *command = g_strjoinv (" ", (char **) argv);

  g_ptr_array_add (self->commands, command);
  for (guint i = 0; i < self->rules->len; i++)
    {
      RecordRule *rule = g_ptr_array_index (self->rules, i);

      if (g_str_has_prefix (command, rule->prefix))
        {
          return_exec (task, rule->out, rule->err, rule->status);
          return;
        }
    }
  return_exec (task, "", "", 0);
}

static void
record_read (AgentsSandboxSession *session,
             const char *path,
             const char *user,
             GTask *task)
{
  const char *text =
    g_hash_table_lookup (RECORD_SESSION (session)->files, path);

  if (text == NULL)
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                             "not written: %s", path);
  else
    g_task_return_pointer (
      task, g_memory_input_stream_new_from_data (g_strdup (text), -1, g_free),
      g_object_unref);
}

static gboolean
write_complete (gpointer user_data)
{
  GTask *task = user_data;
  RecordSession *self = g_task_get_source_object (task);

  g_ptr_array_add (
    self->events,
    g_strdup_printf ("end %s", (char *) g_task_get_task_data (task)));
  g_task_return_boolean (task, TRUE);
  return G_SOURCE_REMOVE;
}

static void
record_write (AgentsSandboxSession *session,
              const char *path,
              GInputStream *data,
              const char *user,
              GTask *task)
{
  RecordSession *self = RECORD_SESSION (session);
  g_autoptr (GOutputStream) out = g_memory_output_stream_new_resizable ();
  GError *error = NULL;

  if (g_output_stream_splice (out, data,
                              G_OUTPUT_STREAM_SPLICE_CLOSE_SOURCE |
                                G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET,
                              NULL, &error) < 0)
    {
      g_task_return_error (task, error);
      return;
    }
  g_ptr_array_add (self->writes, g_strdup (path));
  g_ptr_array_add (self->events, g_strdup_printf ("start %s", path));
  g_hash_table_replace (
    self->files, g_strdup (path),
    g_strndup (
      g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (out)),
      g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (out))));
  /* Completes later (yields once), so that overlapping writes show. */
  g_task_set_task_data (task, g_strdup (path), g_free);
  g_idle_add_full (G_PRIORITY_DEFAULT, write_complete, g_object_ref (task),
                   g_object_unref);
}

static void
record_mkdir (AgentsSandboxSession *session,
              const char *path,
              gboolean parents,
              GTask *task)
{
  g_ptr_array_add (RECORD_SESSION (session)->commands,
                   g_strdup_printf ("mkdir %s%s", parents ? "-p " : "", path));
  g_task_return_boolean (task, TRUE);
}

static void
record_persist_workspace (AgentsSandboxSession *session, GTask *task)
{
  g_task_return_pointer (task, g_memory_input_stream_new (), g_object_unref);
}

static void
record_hydrate_workspace (AgentsSandboxSession *session,
                          GInputStream *data,
                          GTask *task)
{
  g_task_return_boolean (task, TRUE);
}

static void
record_session_iface_init (AgentsSandboxSessionInterface *iface)
{
  iface->get_state = record_get_state;
  iface->start = record_succeed;
  iface->stop = record_succeed;
  iface->shutdown = record_succeed;
  iface->running = record_succeed;
  iface->exec = record_exec;
  iface->read = record_read;
  iface->write = record_write;
  iface->mkdir = record_mkdir;
  iface->persist_workspace = record_persist_workspace;
  iface->hydrate_workspace = record_hydrate_workspace;
}

static void
record_session_finalize (GObject *object)
{
  RecordSession *self = RECORD_SESSION (object);

  g_clear_object (&self->state);
  g_ptr_array_unref (self->rules);
  g_ptr_array_unref (self->commands);
  g_ptr_array_unref (self->writes);
  g_ptr_array_unref (self->events);
  g_hash_table_unref (self->files);

  G_OBJECT_CLASS (record_session_parent_class)->finalize (object);
}

static void
record_session_class_init (RecordSessionClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = record_session_finalize;
}

static void
record_session_init (RecordSession *self)
{
  self->rules =
    g_ptr_array_new_with_free_func ((GDestroyNotify) record_rule_free);
  self->commands = g_ptr_array_new_with_free_func (g_free);
  self->writes = g_ptr_array_new_with_free_func (g_free);
  self->events = g_ptr_array_new_with_free_func (g_free);
  self->files = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

RecordSession *
record_session_new (AgentsManifest *manifest)
{
  RecordSession *self = g_object_new (RECORD_TYPE_SESSION, NULL);
  g_autofree char *id = g_uuid_string_random ();
  g_autoptr (AgentsSnapshot) snapshot = agents_noop_snapshot_new (id);

  self->state = agents_sandbox_session_state_new (manifest, snapshot);
  return self;
}

void
record_session_answer (RecordSession *self,
                       const char *prefix,
                       int status,
                       const char *out,
                       const char *err)
{
  RecordRule *rule = g_new0 (RecordRule, 1);

  rule->prefix = g_strdup (prefix);
  rule->status = status;
  rule->out = g_strdup (out);
  rule->err = g_strdup (err);
  g_ptr_array_add (self->rules, rule);
}

gboolean
record_session_ran (RecordSession *self, const char *command)
{
  for (guint i = 0; i < self->commands->len; i++)
    if (g_str_equal (g_ptr_array_index (self->commands, i), command))
      return TRUE;
  return FALSE;
}

int
record_session_find (RecordSession *self, const char *prefix)
{
  for (guint i = 0; i < self->commands->len; i++)
    if (g_str_has_prefix (g_ptr_array_index (self->commands, i), prefix))
      return (int) i;
  return -1;
}

const char *
record_session_written (RecordSession *self, const char *path)
{
  return g_hash_table_lookup (self->files, path);
}
