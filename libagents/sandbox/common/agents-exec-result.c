/* agents-exec-result.c - AgentsExecResult, what a command left behind
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <sys/stat.h>

#include "agents-sandbox-types-private.h"

/**
 * AgentsExecResult:
 *
 * What a command run in a sandbox printed and how it exited.
 */
struct _AgentsExecResult
{
  GObject parent_instance;

  GBytes *stdout_bytes;
  GBytes *stderr_bytes;
  int exit_code;
};

G_DEFINE_FINAL_TYPE (AgentsExecResult, agents_exec_result, G_TYPE_OBJECT)

enum
{
  EXEC_PROP_0,
  EXEC_PROP_STDOUT,
  EXEC_PROP_STDERR,
  EXEC_PROP_EXIT_CODE,
  EXEC_N_PROPS
};

static GParamSpec *exec_properties[EXEC_N_PROPS];

static GBytes *
bytes_or_empty (GBytes *bytes)
{
  return bytes ? g_bytes_ref (bytes) : g_bytes_new (NULL, 0);
}

static void
agents_exec_result_finalize (GObject *object)
{
  AgentsExecResult *self = AGENTS_EXEC_RESULT (object);

  g_clear_pointer (&self->stdout_bytes, g_bytes_unref);
  g_clear_pointer (&self->stderr_bytes, g_bytes_unref);

  G_OBJECT_CLASS (agents_exec_result_parent_class)->finalize (object);
}

static void
agents_exec_result_get_property (GObject *object,
                                 guint prop_id,
                                 GValue *value,
                                 GParamSpec *pspec)
{
  AgentsExecResult *self = AGENTS_EXEC_RESULT (object);

  switch (prop_id)
    {
    case EXEC_PROP_STDOUT:
      g_value_set_boxed (value, self->stdout_bytes);
      break;
    case EXEC_PROP_STDERR:
      g_value_set_boxed (value, self->stderr_bytes);
      break;
    case EXEC_PROP_EXIT_CODE:
      g_value_set_int (value, self->exit_code);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_exec_result_set_property (GObject *object,
                                 guint prop_id,
                                 const GValue *value,
                                 GParamSpec *pspec)
{
  AgentsExecResult *self = AGENTS_EXEC_RESULT (object);

  switch (prop_id)
    {
    case EXEC_PROP_STDOUT:
      g_clear_pointer (&self->stdout_bytes, g_bytes_unref);
      self->stdout_bytes = bytes_or_empty (g_value_get_boxed (value));
      break;
    case EXEC_PROP_STDERR:
      g_clear_pointer (&self->stderr_bytes, g_bytes_unref);
      self->stderr_bytes = bytes_or_empty (g_value_get_boxed (value));
      break;
    case EXEC_PROP_EXIT_CODE:
      self->exit_code = g_value_get_int (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_exec_result_class_init (AgentsExecResultClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = agents_exec_result_finalize;
  object_class->get_property = agents_exec_result_get_property;
  object_class->set_property = agents_exec_result_set_property;

  /**
   * AgentsExecResult:stdout:
   *
   * What the command wrote to its standard output.
   */
  exec_properties[EXEC_PROP_STDOUT] =
    g_param_spec_boxed ("stdout", NULL, NULL, G_TYPE_BYTES,
                        G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                          G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * AgentsExecResult:stderr:
   *
   * What the command wrote to its standard error.
   */
  exec_properties[EXEC_PROP_STDERR] =
    g_param_spec_boxed ("stderr", NULL, NULL, G_TYPE_BYTES,
                        G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                          G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * AgentsExecResult:exit-code:
   *
   * The exit status of the command.
   */
  exec_properties[EXEC_PROP_EXIT_CODE] =
    g_param_spec_int ("exit-code", NULL, NULL, G_MININT, G_MAXINT, 0,
                      G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                        G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, EXEC_N_PROPS,
                                     exec_properties);
}

static void
agents_exec_result_init (AgentsExecResult *self)
{
}

/**
 * agents_exec_result_new:
 * @stdout_bytes: (nullable): the standard output, %NULL for none
 * @stderr_bytes: (nullable): the standard error, %NULL for none
 * @exit_code: the exit status
 *
 * Creates an exec result.
 *
 * Returns: (transfer full): a new #AgentsExecResult
 */
AgentsExecResult *
agents_exec_result_new (GBytes *stdout_bytes,
                        GBytes *stderr_bytes,
                        int exit_code)
{
  return g_object_new (AGENTS_TYPE_EXEC_RESULT, "stdout", stdout_bytes,
                       "stderr", stderr_bytes, "exit-code", exit_code, NULL);
}

/**
 * agents_exec_result_get_stdout:
 * @self: an #AgentsExecResult
 *
 * Gets the standard output, possibly empty.
 *
 * Returns: (transfer none): the bytes
 */
GBytes *
agents_exec_result_get_stdout (AgentsExecResult *self)
{
  g_return_val_if_fail (AGENTS_IS_EXEC_RESULT (self), NULL);

  return self->stdout_bytes;
}

/**
 * agents_exec_result_get_stderr:
 * @self: an #AgentsExecResult
 *
 * Gets the standard error, possibly empty.
 *
 * Returns: (transfer none): the bytes
 */
GBytes *
agents_exec_result_get_stderr (AgentsExecResult *self)
{
  g_return_val_if_fail (AGENTS_IS_EXEC_RESULT (self), NULL);

  return self->stderr_bytes;
}

static char *
bytes_to_utf8 (GBytes *bytes)
{
  gsize size = 0;
  const char *data = g_bytes_get_data (bytes, &size);

  if (size == 0)
    return g_strdup ("");
  return g_utf8_make_valid (data, size);
}

/**
 * agents_exec_result_dup_stdout_text:
 * @self: an #AgentsExecResult
 *
 * Gets the standard output as text; invalid UTF-8 is replaced.
 *
 * Returns: (transfer full): the text
 */
char *
agents_exec_result_dup_stdout_text (AgentsExecResult *self)
{
  g_return_val_if_fail (AGENTS_IS_EXEC_RESULT (self), NULL);

  return bytes_to_utf8 (self->stdout_bytes);
}

/**
 * agents_exec_result_dup_stderr_text:
 * @self: an #AgentsExecResult
 *
 * Gets the standard error as text; invalid UTF-8 is replaced.
 *
 * Returns: (transfer full): the text
 */
char *
agents_exec_result_dup_stderr_text (AgentsExecResult *self)
{
  g_return_val_if_fail (AGENTS_IS_EXEC_RESULT (self), NULL);

  return bytes_to_utf8 (self->stderr_bytes);
}

/**
 * agents_exec_result_get_exit_code:
 * @self: an #AgentsExecResult
 *
 * Gets the exit status.
 *
 * Returns: the exit status
 */
int
agents_exec_result_get_exit_code (AgentsExecResult *self)
{
  g_return_val_if_fail (AGENTS_IS_EXEC_RESULT (self), -1);

  return self->exit_code;
}

/**
 * agents_exec_result_ok:
 * @self: an #AgentsExecResult
 *
 * Checks whether the command succeeded.
 *
 * Returns: whether the exit status is 0
 */
gboolean
agents_exec_result_ok (AgentsExecResult *self)
{
  g_return_val_if_fail (AGENTS_IS_EXEC_RESULT (self), FALSE);

  return self->exit_code == 0;
}
