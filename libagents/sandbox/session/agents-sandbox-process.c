/* agents-sandbox-process.c - processes that outlive one call
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "agents-sandbox-error.h"
#include "agents-sandbox-process-private.h"

/**
 * AgentsSandboxProcess:
 *
 * A process a backend started in its sandbox that runs on between calls:
 * the model starts it with `exec_command`, talks to it and polls it with
 * `write_stdin`. It may run on a terminal (a PTY, see
 * agents_sandbox_process_get_tty()) or with plain pipes.
 *
 * A backend derives its process type from this class: it implements
 * @write_stdin and @terminate, and feeds the base class what the process
 * prints and when it ends. Readers collect the output with
 * agents_sandbox_process_collect_async(), or watch it as it comes with the
 * #AgentsSandboxProcess::output signal.
 *
 * What the process prints is held until it is collected, at most
 * %AGENTS_SANDBOX_PROCESS_KEPT_BYTES from its start and as many from its
 * end; what lies between is dropped and only counted.
 */

typedef struct
{
  gboolean tty;
  GByteArray *head;
  GByteArray *tail;
  guint64 omitted_bytes;
  guint64 omitted_lines;
  gboolean output_closed;
  gboolean exited;
  int exit_status;
  GPtrArray *collectors; /* GTask */
} AgentsSandboxProcessPrivate;

G_DEFINE_TYPE_WITH_PRIVATE (AgentsSandboxProcess,
                            agents_sandbox_process,
                            G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_TTY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum
{
  SIGNAL_OUTPUT,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

#define PRIV(self)                 \
  ((AgentsSandboxProcessPrivate *) \
     agents_sandbox_process_get_instance_private (self))

static void
default_write_stdin (AgentsSandboxProcess *self, GBytes *data, GTask *task)
{
  g_task_return_new_error (
    task, AGENTS_SANDBOX_ERROR, AGENTS_SANDBOX_ERROR_NOT_SUPPORTED,
    _ ("%s does not support %s"), G_OBJECT_TYPE_NAME (self), "write_stdin");
}

static void
default_terminate (AgentsSandboxProcess *self)
{
}

static void
agents_sandbox_process_finalize (GObject *object)
{
  AgentsSandboxProcessPrivate *priv = PRIV (AGENTS_SANDBOX_PROCESS (object));

  g_byte_array_unref (priv->head);
  g_byte_array_unref (priv->tail);
  g_ptr_array_unref (priv->collectors);
  G_OBJECT_CLASS (agents_sandbox_process_parent_class)->finalize (object);
}

static void
agents_sandbox_process_get_property (GObject *object,
                                     guint prop_id,
                                     GValue *value,
                                     GParamSpec *pspec)
{
  AgentsSandboxProcessPrivate *priv = PRIV (AGENTS_SANDBOX_PROCESS (object));

  switch (prop_id)
    {
    case PROP_TTY:
      g_value_set_boolean (value, priv->tty);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_sandbox_process_set_property (GObject *object,
                                     guint prop_id,
                                     const GValue *value,
                                     GParamSpec *pspec)
{
  AgentsSandboxProcessPrivate *priv = PRIV (AGENTS_SANDBOX_PROCESS (object));

  switch (prop_id)
    {
    case PROP_TTY:
      priv->tty = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_sandbox_process_class_init (AgentsSandboxProcessClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = agents_sandbox_process_finalize;
  object_class->get_property = agents_sandbox_process_get_property;
  object_class->set_property = agents_sandbox_process_set_property;
  klass->write_stdin = default_write_stdin;
  klass->terminate = default_terminate;

  /**
   * AgentsSandboxProcess:tty:
   *
   * Whether the process runs on a terminal (a PTY): then its input can be
   * written to and its output is the terminal's, standard output and
   * error together.
   */
  properties[PROP_TTY] = g_param_spec_boolean (
    "tty", NULL, NULL, FALSE,
    G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * AgentsSandboxProcess::output:
   * @self: the process
   * @chunk: what the process printed
   *
   * Emitted for every chunk the backend feeds, in order, as it comes.
   */
  signals[SIGNAL_OUTPUT] =
    g_signal_new ("output", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_BYTES);
}

static void
agents_sandbox_process_init (AgentsSandboxProcess *self)
{
  AgentsSandboxProcessPrivate *priv = PRIV (self);

  priv->head = g_byte_array_new ();
  priv->tail = g_byte_array_new ();
  priv->collectors = g_ptr_array_new_with_free_func (g_object_unref);
  priv->exit_status = -1;
}

/**
 * agents_sandbox_process_get_tty:
 * @self: a process
 *
 * Gets whether the process runs on a terminal.
 *
 * Returns: whether the process has a PTY
 */
gboolean
agents_sandbox_process_get_tty (AgentsSandboxProcess *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_PROCESS (self), FALSE);

  return PRIV (self)->tty;
}

/**
 * agents_sandbox_process_has_exited:
 * @self: a process
 *
 * Gets whether the process has exited (its output may still be coming).
 *
 * Returns: whether the process exited
 */
gboolean
agents_sandbox_process_has_exited (AgentsSandboxProcess *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_PROCESS (self), FALSE);

  return PRIV (self)->exited;
}

/**
 * agents_sandbox_process_get_exit_status:
 * @self: a process
 *
 * Gets the exit status of the process: its exit code, or 128 plus the
 * number of the signal that killed it, as shells report it.
 *
 * Returns: the exit status, or -1 while the process runs
 */
int
agents_sandbox_process_get_exit_status (AgentsSandboxProcess *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_PROCESS (self), -1);

  return PRIV (self)->exited ? PRIV (self)->exit_status : -1;
}

/**
 * agents_sandbox_process_is_finished:
 * @self: a process
 *
 * Gets whether the process exited and all its output came.
 *
 * Returns: whether nothing more will happen to the process
 */
gboolean
agents_sandbox_process_is_finished (AgentsSandboxProcess *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_PROCESS (self), FALSE);

  return PRIV (self)->exited && PRIV (self)->output_closed;
}

static guint64
count_lines (const guint8 *data, gsize size)
{
  guint64 n = 0;

  for (const guint8 *p = data; (p = memchr (p, '\n', data + size - p)); p++)
    n++;
  return n;
}

/* Keeps the first and the last AGENTS_SANDBOX_PROCESS_KEPT_BYTES; the
 * tail may hold twice that before it is cut, so that cutting is rare. */
static void
keep_output (AgentsSandboxProcessPrivate *priv, const guint8 *data, gsize size)
{
  gsize room = AGENTS_SANDBOX_PROCESS_KEPT_BYTES -
               MIN (priv->head->len, AGENTS_SANDBOX_PROCESS_KEPT_BYTES);
  gsize excess;

  if (priv->omitted_bytes == 0 && priv->tail->len == 0 && room > 0)
    {
      gsize n = MIN (room, size);

      g_byte_array_append (priv->head, data, n);
      data += n;
      size -= n;
    }
  g_byte_array_append (priv->tail, data, size);
  if (priv->tail->len <= 2 * AGENTS_SANDBOX_PROCESS_KEPT_BYTES)
    return;
  excess = priv->tail->len - AGENTS_SANDBOX_PROCESS_KEPT_BYTES;
  priv->omitted_bytes += excess;
  priv->omitted_lines += count_lines (priv->tail->data, excess);
  g_byte_array_remove_range (priv->tail, 0, excess);
}

/**
 * agents_sandbox_process_push_output:
 * @self: a process
 * @chunk: what the process printed
 *
 * Feeds output of the process to the base class (for backends). Call it
 * on the thread of the main context the process was started in.
 */
void
agents_sandbox_process_push_output (AgentsSandboxProcess *self, GBytes *chunk)
{
  gsize size;
  const guint8 *data;

  g_return_if_fail (AGENTS_IS_SANDBOX_PROCESS (self));
  g_return_if_fail (chunk != NULL);

  data = g_bytes_get_data (chunk, &size);
  if (size == 0)
    return;
  keep_output (PRIV (self), data, size);
  g_signal_emit (self, signals[SIGNAL_OUTPUT], 0, chunk);
}

/* Every waiting collector returns now; their deadlines are dropped. */
static void
complete_collectors (AgentsSandboxProcess *self)
{
  AgentsSandboxProcessPrivate *priv = PRIV (self);
  g_autoptr (GPtrArray) collectors = g_steal_pointer (&priv->collectors);

  priv->collectors = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < collectors->len; i++)
    {
      GTask *task = collectors->pdata[i];

      g_source_destroy (g_task_get_task_data (task));
      g_task_return_boolean (task, TRUE);
    }
}

static void
check_finished (AgentsSandboxProcess *self)
{
  if (agents_sandbox_process_is_finished (self))
    complete_collectors (self);
}

/**
 * agents_sandbox_process_close_output:
 * @self: a process
 *
 * Tells the base class that the process's output ended (for backends).
 */
void
agents_sandbox_process_close_output (AgentsSandboxProcess *self)
{
  g_return_if_fail (AGENTS_IS_SANDBOX_PROCESS (self));

  PRIV (self)->output_closed = TRUE;
  check_finished (self);
}

/**
 * agents_sandbox_process_set_exit_status:
 * @self: a process
 * @status: the exit code, or 128 plus the signal that killed it
 *
 * Tells the base class that the process exited (for backends).
 */
void
agents_sandbox_process_set_exit_status (AgentsSandboxProcess *self, int status)
{
  g_return_if_fail (AGENTS_IS_SANDBOX_PROCESS (self));

  PRIV (self)->exited = TRUE;
  PRIV (self)->exit_status = status;
  check_finished (self);
}

GBytes *
agents_sandbox_process_steal_output (AgentsSandboxProcess *self,
                                     guint64 *omitted_bytes,
                                     guint64 *omitted_lines)
{
  AgentsSandboxProcessPrivate *priv = PRIV (self);
  GByteArray *all = g_steal_pointer (&priv->head);

  g_byte_array_append (all, priv->tail->data, priv->tail->len);
  g_byte_array_set_size (priv->tail, 0);
  if (omitted_bytes != NULL)
    *omitted_bytes = priv->omitted_bytes;
  if (omitted_lines != NULL)
    *omitted_lines = priv->omitted_lines;
  priv->omitted_bytes = priv->omitted_lines = 0;
  priv->head = g_byte_array_new ();
  return g_byte_array_free_to_bytes (all);
}

/**
 * agents_sandbox_process_write_stdin_async:
 * @self: a process
 * @data: the bytes to write
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when @data is written
 * @user_data: data for @callback
 *
 * Writes @data to the process's input. A process started without a
 * terminal has no input: writing to it is an
 * %AGENTS_SANDBOX_ERROR_NOT_SUPPORTED error.
 */
void
agents_sandbox_process_write_stdin_async (AgentsSandboxProcess *self,
                                          GBytes *data,
                                          GCancellable *cancellable,
                                          GAsyncReadyCallback callback,
                                          gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_PROCESS (self));
  g_return_if_fail (data != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_sandbox_process_write_stdin_async);
  AGENTS_SANDBOX_PROCESS_GET_CLASS (self)->write_stdin (self, data, task);
}

/**
 * agents_sandbox_process_write_stdin_finish:
 * @self: a process
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_process_write_stdin_async().
 *
 * Returns: %TRUE when the bytes were written
 */
gboolean
agents_sandbox_process_write_stdin_finish (AgentsSandboxProcess *self,
                                           GAsyncResult *result,
                                           GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * agents_sandbox_process_terminate:
 * @self: a process
 *
 * Kills the process and everything in its process group. Its exit is
 * reported later, as for any exit.
 */
void
agents_sandbox_process_terminate (AgentsSandboxProcess *self)
{
  g_return_if_fail (AGENTS_IS_SANDBOX_PROCESS (self));

  if (!PRIV (self)->exited)
    AGENTS_SANDBOX_PROCESS_GET_CLASS (self)->terminate (self);
}

static gboolean
collect_deadline (gpointer user_data)
{
  GTask *task = user_data;
  AgentsSandboxProcess *self = g_task_get_source_object (task);

  /* Still waiting, unless the process finished meanwhile. */
  if (g_ptr_array_remove (PRIV (self)->collectors, task))
    g_task_return_boolean (task, TRUE);
  return G_SOURCE_REMOVE;
}

/**
 * agents_sandbox_process_collect_async:
 * @self: a process
 * @timeout_ms: how long to wait, in milliseconds
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the output
 * @user_data: data for @callback
 *
 * Waits @timeout_ms, or less when the process exits and its output ends,
 * and returns what it printed since the last collect (taken when the
 * result is finished).
 */
void
agents_sandbox_process_collect_async (AgentsSandboxProcess *self,
                                      guint timeout_ms,
                                      GCancellable *cancellable,
                                      GAsyncReadyCallback callback,
                                      gpointer user_data)
{
  g_autoptr (GTask) task = NULL;
  g_autoptr (GSource) source = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_PROCESS (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_sandbox_process_collect_async);
  if (agents_sandbox_process_is_finished (self) || timeout_ms == 0)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  g_ptr_array_add (PRIV (self)->collectors, g_object_ref (task));
  source = g_timeout_source_new (timeout_ms);
  g_task_set_task_data (task, g_source_ref (source),
                        (GDestroyNotify) g_source_unref);
  g_task_attach_source (task, source, collect_deadline);
}

/**
 * agents_sandbox_process_collect_finish:
 * @self: a process
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_sandbox_process_collect_async().
 *
 * Returns: (transfer full): what the process printed
 */
GBytes *
agents_sandbox_process_collect_finish (AgentsSandboxProcess *self,
                                       GAsyncResult *result,
                                       GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  if (!g_task_propagate_boolean (G_TASK (result), error))
    return NULL;
  return agents_sandbox_process_steal_output (self, NULL, NULL);
}
