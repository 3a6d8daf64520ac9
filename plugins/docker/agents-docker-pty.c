/* agents-docker-pty.c - docker processes that run on between calls
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * As the reference does it: an engine exec (with Tty and stdin attached
 * when a terminal is asked for) of
 *   sh -c 'mkdir -p "$1" && printf %s "$$" > "$2" && shift 2 && exec "$@"'
 * so that the command's pid inside the container is known; the exec is
 * started on a hijacked connection, read as it comes (raw on a terminal,
 * multiplexed frames otherwise) and written to; the process group is
 * killed through the pid file by a second exec.
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "agents-docker-engine.h"
#include "agents-docker-pty.h"
#include "agents-sandbox-error-private.h"

#define READ_CHUNK 16384
#define EXIT_POLLS 200

#define PID_SCRIPT \
  "mkdir -p \"$1\" && printf '%s' \"$$\" > \"$2\" && shift 2 && exec \"$@\""

#define KILL_SCRIPT                                                        \
  "p=$(cat \"$1\" 2>/dev/null) && [ -n \"$p\" ] && "                       \
  "{ kill -KILL -- \"-$p\" 2>/dev/null; kill -KILL \"$p\" 2>/dev/null; };" \
  " rm -rf \"$2\""

struct _AgentsDockerProcess
{
  AgentsSandboxProcess parent_instance;

  AgentsDockerEngine *engine;
  char *container_id;
  char *exec_id;
  char *dir;
  char *pid_file;
  GIOStream *connection;
  GByteArray *frames; /* multiplexed input not yet parsed (no terminal) */
  GCancellable *io_cancel;
  gboolean killed;
};

G_DEFINE_FINAL_TYPE (AgentsDockerProcess,
                     agents_docker_process,
                     AGENTS_TYPE_SANDBOX_PROCESS)

/* ---- background engine calls ------------------------------------------ */

/* Runs @argv as root in the container to its end, ignoring its output. */
static gboolean
run_quietly (AgentsDockerEngine *engine,
             const char *container_id,
             const char *const *argv,
             GError **error)
{
  g_autofree char *escaped = agents_docker_engine_escape (container_id);
  g_autofree char *path = g_strdup_printf ("/containers/%s/exec", escaped);
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (JsonNode) body = NULL;
  g_autoptr (JsonNode) answer = NULL;
  g_autoptr (GInputStream) stream = NULL;
  g_autoptr (GByteArray) out = g_byte_array_new ();
  g_autoptr (GByteArray) err = g_byte_array_new ();
  g_autofree char *start = NULL;
  g_autofree char *id = NULL;
  gboolean truncated;
  static const char start_body[] = "{\"Detach\":false,\"Tty\":false}";
  g_autoptr (GInputStream) request = g_memory_input_stream_new_from_data (
    start_body, sizeof start_body - 1, NULL);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "AttachStdout");
  json_builder_add_boolean_value (builder, TRUE);
  json_builder_set_member_name (builder, "AttachStderr");
  json_builder_add_boolean_value (builder, TRUE);
  json_builder_set_member_name (builder, "User");
  json_builder_add_string_value (builder, "0");
  json_builder_set_member_name (builder, "Cmd");
  json_builder_begin_array (builder);
  for (guint i = 0; argv[i] != NULL; i++)
    json_builder_add_string_value (builder, argv[i]);
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  body = json_builder_get_root (builder);
  answer = agents_docker_engine_call_json (engine, "POST", path, body, NULL,
                                           NULL, error);
  if (answer == NULL)
    return FALSE;
  if (!JSON_NODE_HOLDS_OBJECT (answer) ||
      json_object_get_string_member_with_default (json_node_get_object (answer),
                                                  "Id", NULL) == NULL)
    return FALSE;
  id = agents_docker_engine_escape (
    json_object_get_string_member (json_node_get_object (answer), "Id"));
  start = g_strdup_printf ("/exec/%s/start", id);
  stream = agents_docker_engine_call_stream (engine, "POST", start, request,
                                             sizeof start_body - 1,
                                             "application/json", NULL, error);
  return stream != NULL && agents_docker_engine_read_multiplexed (
                             stream, out, err, 4096, &truncated, NULL, error);
}

static void
kill_thread (GTask *task,
             gpointer source_object,
             gpointer task_data,
             GCancellable *cancellable)
{
  AgentsDockerProcess *self = source_object;
  const char *argv[] = { "sh",           "-c",      KILL_SCRIPT, "sh",
                         self->pid_file, self->dir, NULL };
  g_autoptr (GError) error = NULL;

  if (!run_quietly (self->engine, self->container_id, argv, &error))
    g_debug ("Could not kill a docker PTY process: %s",
             error ? error->message : "no exec id");
  g_task_return_boolean (task, TRUE);
}

static void
kill_in_background (AgentsDockerProcess *self)
{
  g_autoptr (GTask) task = g_task_new (self, NULL, NULL, NULL);

  g_task_run_in_thread (task, kill_thread);
}

static void
exit_code_thread (GTask *task,
                  gpointer source_object,
                  gpointer task_data,
                  GCancellable *cancellable)
{
  AgentsDockerProcess *self = source_object;
  g_autofree char *escaped = agents_docker_engine_escape (self->exec_id);
  g_autofree char *path = g_strdup_printf ("/exec/%s/json", escaped);

  for (guint i = 0; i < EXIT_POLLS; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (JsonNode) answer = agents_docker_engine_call_json (
        self->engine, "GET", path, NULL, NULL, NULL, &error);
      JsonObject *object = answer != NULL && JSON_NODE_HOLDS_OBJECT (answer)
                             ? json_node_get_object (answer)
                             : NULL;

      if (object == NULL)
        break;
      if (!json_object_get_boolean_member_with_default (object, "Running",
                                                        FALSE))
        {
          g_task_return_int (task, json_object_get_int_member_with_default (
                                     object, "ExitCode", -1));
          return;
        }
      g_usleep (5000);
    }
  g_task_return_int (task, -1);
}

static void
exit_code_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AgentsDockerProcess *self = AGENTS_DOCKER_PROCESS (source);
  gssize code = g_task_propagate_int (G_TASK (result), NULL);

  /* A process whose exit code the engine lost counts as killed. */
  agents_sandbox_process_set_exit_status (AGENTS_SANDBOX_PROCESS (self),
                                          code >= 0 ? (int) code : 137);
  agents_sandbox_process_close_output (AGENTS_SANDBOX_PROCESS (self));
}

/* ---- reading ------------------------------------------------------------ */

static void
stream_ended (AgentsDockerProcess *self)
{
  g_autoptr (GTask) task = g_task_new (self, NULL, exit_code_done, NULL);

  g_task_run_in_thread (task, exit_code_thread);
  kill_in_background (self);
}

/* Without a terminal, the engine frames each chunk: stream, 3 zero
 * bytes, a big-endian length. Output and errors go out interleaved. */
static gboolean
push_frames (AgentsDockerProcess *self, GBytes *bytes)
{
  gsize size;
  const guint8 *data = g_bytes_get_data (bytes, &size);

  g_byte_array_append (self->frames, data, size);
  while (self->frames->len >= 8)
    {
      const guint8 *h = self->frames->data;
      guint32 length =
        ((guint32) h[4] << 24) | (h[5] << 16) | (h[6] << 8) | h[7];
      guint8 stream = h[0];
      g_autoptr (GBytes) chunk = NULL;

      if (stream > 2 || h[1] || h[2] || h[3])
        return FALSE;
      if (self->frames->len - 8 < length)
        break;
      chunk = g_bytes_new (self->frames->data + 8, length);
      g_byte_array_remove_range (self->frames, 0, 8 + length);
      if (stream != 0)
        agents_sandbox_process_push_output (AGENTS_SANDBOX_PROCESS (self),
                                            chunk);
    }
  return TRUE;
}

static void read_next (AgentsDockerProcess *self);

static void
read_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (AgentsDockerProcess) self = user_data;
  g_autoptr (GBytes) bytes =
    g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result, NULL);

  if (bytes == NULL || g_bytes_get_size (bytes) == 0)
    {
      stream_ended (self);
      return;
    }
  if (agents_sandbox_process_get_tty (AGENTS_SANDBOX_PROCESS (self)))
    agents_sandbox_process_push_output (AGENTS_SANDBOX_PROCESS (self), bytes);
  else if (!push_frames (self, bytes))
    {
      g_debug ("docker PTY process: bad frame from the engine");
      stream_ended (self);
      return;
    }
  read_next (self);
}

static void
read_next (AgentsDockerProcess *self)
{
  g_input_stream_read_bytes_async (
    g_io_stream_get_input_stream (self->connection), READ_CHUNK,
    G_PRIORITY_DEFAULT, self->io_cancel, read_done, g_object_ref (self));
}

/* ---- the class ---------------------------------------------------------- */

static void
write_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  g_autoptr (GError) error = NULL;

  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL,
                                         &error))
    g_debug ("docker PTY write: %s", error->message);
  g_task_return_boolean (task, TRUE);
}

static void
docker_process_write_stdin (AgentsSandboxProcess *process,
                            GBytes *data,
                            GTask *task)
{
  AgentsDockerProcess *self = AGENTS_DOCKER_PROCESS (process);
  gsize size;
  const void *bytes = g_bytes_get_data (data, &size);

  if (!agents_sandbox_process_get_tty (process))
    {
      g_task_return_new_error (
        task, AGENTS_SANDBOX_ERROR, AGENTS_SANDBOX_ERROR_NOT_SUPPORTED, "%s",
        _ ("the process was started without a terminal: it has no input"));
      return;
    }
  g_task_set_task_data (task, g_bytes_ref (data),
                        (GDestroyNotify) g_bytes_unref);
  g_output_stream_write_all_async (
    g_io_stream_get_output_stream (self->connection), bytes, size,
    G_PRIORITY_DEFAULT, g_task_get_cancellable (task), write_done,
    g_object_ref (task));
}

static void
docker_process_terminate (AgentsSandboxProcess *process)
{
  AgentsDockerProcess *self = AGENTS_DOCKER_PROCESS (process);

  if (self->killed)
    return;
  self->killed = TRUE;
  kill_in_background (self);
}

static void
agents_docker_process_finalize (GObject *object)
{
  AgentsDockerProcess *self = AGENTS_DOCKER_PROCESS (object);

  if (self->connection != NULL)
    g_io_stream_close (self->connection, NULL, NULL);
  g_clear_object (&self->connection);
  g_clear_object (&self->engine);
  g_clear_object (&self->io_cancel);
  g_clear_pointer (&self->frames, g_byte_array_unref);
  g_free (self->container_id);
  g_free (self->exec_id);
  g_free (self->dir);
  g_free (self->pid_file);
  G_OBJECT_CLASS (agents_docker_process_parent_class)->finalize (object);
}

static void
agents_docker_process_class_init (AgentsDockerProcessClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  AgentsSandboxProcessClass *process_class =
    AGENTS_SANDBOX_PROCESS_CLASS (klass);

  object_class->finalize = agents_docker_process_finalize;
  process_class->write_stdin = docker_process_write_stdin;
  process_class->terminate = docker_process_terminate;
}

static void
agents_docker_process_init (AgentsDockerProcess *self)
{
  self->frames = g_byte_array_new ();
  self->io_cancel = g_cancellable_new ();
}

/* ---- starting ----------------------------------------------------------- */

typedef struct
{
  AgentsDockerEngine *engine;
  char *container_id;
  char *workdir;
  char **argv;
  char *user;
  gboolean tty;
  char *dir;
  char *pid_file;
  /* results */
  char *exec_id;
  GIOStream *connection;
} StartOp;

static void
start_op_free (StartOp *op)
{
  g_clear_object (&op->engine);
  g_free (op->container_id);
  g_free (op->workdir);
  g_strfreev (op->argv);
  g_free (op->user);
  g_free (op->dir);
  g_free (op->pid_file);
  g_free (op->exec_id);
  g_clear_object (&op->connection);
  g_free (op);
}

static JsonNode *
create_body (StartOp *op)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "AttachStdin");
  json_builder_add_boolean_value (builder, op->tty);
  json_builder_set_member_name (builder, "AttachStdout");
  json_builder_add_boolean_value (builder, TRUE);
  json_builder_set_member_name (builder, "AttachStderr");
  json_builder_add_boolean_value (builder, TRUE);
  json_builder_set_member_name (builder, "Tty");
  json_builder_add_boolean_value (builder, op->tty);
  json_builder_set_member_name (builder, "WorkingDir");
  json_builder_add_string_value (builder, op->workdir);
  if (op->user != NULL)
    {
      json_builder_set_member_name (builder, "User");
      json_builder_add_string_value (builder, op->user);
    }
  json_builder_set_member_name (builder, "Cmd");
  json_builder_begin_array (builder);
  json_builder_add_string_value (builder, "sh");
  json_builder_add_string_value (builder, "-c");
  json_builder_add_string_value (builder, PID_SCRIPT);
  json_builder_add_string_value (builder, "sh");
  json_builder_add_string_value (builder, op->dir);
  json_builder_add_string_value (builder, op->pid_file);
  for (guint i = 0; op->argv[i] != NULL; i++)
    json_builder_add_string_value (builder, op->argv[i]);
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

static gboolean
start_exec (StartOp *op, GCancellable *cancellable, GError **error)
{
  g_autofree char *escaped = agents_docker_engine_escape (op->container_id);
  g_autofree char *path = g_strdup_printf ("/containers/%s/exec", escaped);
  g_autoptr (JsonNode) body = create_body (op);
  g_autoptr (JsonNode) answer = NULL;
  g_autofree char *start = NULL;
  g_autofree char *start_body = g_strdup_printf (
    "{\"Detach\":false,\"Tty\":%s}", op->tty ? "true" : "false");
  const char *id;

  answer = agents_docker_engine_call_json (op->engine, "POST", path, body, NULL,
                                           cancellable, error);
  if (answer == NULL)
    return FALSE;
  id = JSON_NODE_HOLDS_OBJECT (answer)
         ? json_object_get_string_member_with_default (
             json_node_get_object (answer), "Id", NULL)
         : NULL;
  if (id == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                           "the engine gave no exec id");
      return FALSE;
    }
  op->exec_id = g_strdup (id);
  g_free (escaped);
  escaped = agents_docker_engine_escape (id);
  start = g_strdup_printf ("/exec/%s/start", escaped);
  op->connection = agents_docker_engine_hijack (op->engine, start, start_body,
                                                cancellable, error);
  return op->connection != NULL;
}

static void
start_thread (GTask *task,
              gpointer source_object,
              gpointer task_data,
              GCancellable *cancellable)
{
  StartOp *op = task_data;
  g_autoptr (GError) cause = NULL;

  if (start_exec (op, cancellable, &cause))
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  /* Nothing ran yet: the caller may run the command another way. */
  g_task_return_error (
    task,
    agents_sandbox_error_new (
      AGENTS_SANDBOX_ERROR_EXEC_TRANSPORT,
      g_variant_new_parsed ("{'retry_safe': <true>, 'reason': "
                            "<'pty_start_failed'>}"),
      _ ("could not start an interactive docker exec: %s"), cause->message));
}

static void
started (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  StartOp *op = g_task_get_task_data (G_TASK (result));
  GError *error = NULL;
  AgentsDockerProcess *self;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      g_task_return_error (task, error);
      return;
    }
  self = g_object_new (AGENTS_TYPE_DOCKER_PROCESS, "tty", op->tty, NULL);
  self->engine = g_object_ref (op->engine);
  self->container_id = g_strdup (op->container_id);
  self->exec_id = g_steal_pointer (&op->exec_id);
  self->connection = g_steal_pointer (&op->connection);
  self->dir = g_strdup (op->dir);
  self->pid_file = g_strdup (op->pid_file);
  /* Without a terminal stdin is not attached: the command reads none. */
  read_next (self);
  g_task_return_pointer (task, self, g_object_unref);
}

void
agents_docker_process_start (AgentsDockerEngine *engine,
                             const char *container_id,
                             const char *workdir,
                             const char *const *argv,
                             const char *user,
                             gboolean tty,
                             GTask *task)
{
  g_autoptr (GTask) inner = NULL;
  StartOp *op = g_new0 (StartOp, 1);
  g_autofree char *token =
    g_strdup_printf ("%08x%08x", g_random_int (), g_random_int ());

  op->engine = g_object_ref (engine);
  op->container_id = g_strdup (container_id);
  op->workdir = g_strdup (workdir);
  op->argv = g_strdupv ((char **) argv);
  op->user = g_strdup (user);
  op->tty = tty;
  op->dir = g_strdup_printf ("/tmp/.agents-pty-%s", token);
  op->pid_file = g_strdup_printf ("%s/pid", op->dir);
  inner = g_task_new (NULL, g_task_get_cancellable (task), started,
                      g_object_ref (task));
  g_task_set_task_data (inner, op, (GDestroyNotify) start_op_free);
  g_task_run_in_thread (inner, start_thread);
}
