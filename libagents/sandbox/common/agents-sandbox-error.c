/* agents-sandbox-error.c - the sandbox error domain
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-sandbox-error-private.h"

/**
 * AGENTS_SANDBOX_ERROR:
 *
 * The error domain of sandbox operations. Codes are #AgentsSandboxError.
 */

/**
 * agents_sandbox_error_quark:
 *
 * Gets the quark of the %AGENTS_SANDBOX_ERROR domain.
 *
 * Returns: the quark
 */
AGENTS_DEFINE_ERROR_QUARK (agents_sandbox_error, "agents-sandbox-error-quark")

/**
 * agents_sandbox_error_set_context:
 * @error: an error of the %AGENTS_SANDBOX_ERROR domain
 * @context: (transfer floating) (nullable): an `a{sv}` dictionary
 *
 * Replaces the context of @error.
 */
void
agents_sandbox_error_set_context (GError *error, GVariant *context)
{
  g_return_if_fail (error != NULL);
  g_return_if_fail (error->domain == AGENTS_SANDBOX_ERROR);

  agents_error_set_context (error, context);
}

/**
 * agents_sandbox_error_new_literal:
 * @code: an #AgentsSandboxError code
 * @context: (transfer floating) (nullable): the context, an `a{sv}`
 * @message: the message
 *
 * Creates a sandbox error carrying @context. Backends written in any
 * language use this to fail a task the way the built-in ones do.
 *
 * Returns: (transfer full): the error
 */
GError *
agents_sandbox_error_new_literal (int code,
                                  GVariant *context,
                                  const char *message)
{
  return agents_error_new_literal (AGENTS_SANDBOX_ERROR, code, context,
                                   message);
}

/**
 * agents_sandbox_error_new: (skip)
 * @code: an #AgentsSandboxError code
 * @context: (transfer floating) (nullable): the context, an `a{sv}`
 * @format: printf()-style format of the message
 * @...: arguments for @format
 *
 * Creates a sandbox error carrying @context.
 *
 * Returns: (transfer full): the error
 */
GError *
agents_sandbox_error_new (int code, GVariant *context, const char *format, ...)
{
  GError *error;
  va_list args;

  va_start (args, format);
  error =
    agents_error_new_valist (AGENTS_SANDBOX_ERROR, code, context, format, args);
  va_end (args);
  return error;
}

/**
 * agents_sandbox_error_set: (skip)
 * @error: (nullable): return location for a #GError
 * @code: an #AgentsSandboxError code
 * @context: (transfer floating) (nullable): the context, an `a{sv}`
 * @format: printf()-style format of the message
 * @...: arguments for @format
 *
 * Sets @error to a sandbox error carrying @context. A floating @context
 * is consumed even when @error is %NULL.
 */
void
agents_sandbox_error_set (
  GError **error, int code, GVariant *context, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  agents_error_set_valist (error, AGENTS_SANDBOX_ERROR, code, context, format,
                           args);
  va_end (args);
}

/**
 * agents_sandbox_error_get_context:
 * @error: a #GError
 *
 * Gets the context dictionary that the error carries: what the operation
 * was doing when it failed (the path, the command, the reason, …), with
 * the keys the reference runtime uses.
 *
 * Errors that crossed a language binding lose their extended data; for
 * those the context is looked up from the recent errors of the process,
 * see agents_sandbox_error_lookup_context().
 *
 * Errors of the other domains registered with
 * agents_error_register_domain() (the run errors, the plugins' own
 * domains) carry a context too, and this reads it: it is
 * agents_error_get_context().
 *
 * Returns: (transfer full): an `a{sv}` dictionary, empty when @error is
 *   of no registered domain, or has no context
 */
GVariant *
agents_sandbox_error_get_context (const GError *error)
{
  return agents_error_get_context (error);
}

/**
 * agents_sandbox_error_lookup_context:
 * @domain: the error domain
 * @code: the error code
 * @message: the error message
 *
 * Looks up the context of a recent error raised on this thread by its
 * domain, code and message. This is how Python and JavaScript code reads
 * the context of an exception they caught:
 *
 * ```js
 * } catch (e) {
 *     const ctx = Agents.sandbox_error_lookup_context(e.domain, e.code,
 * e.message);
 * ```
 *
 * Python gives the domain as a string: use agents_error_lookup_context().
 *
 * Returns: (transfer full): an `a{sv}` dictionary, empty when nothing is
 *   known about the error
 */
GVariant *
agents_sandbox_error_lookup_context (GQuark domain,
                                     int code,
                                     const char *message)
{
  return agents_error_lookup_context_by_quark (domain, code, message);
}

/**
 * agents_sandbox_error_get_reason:
 * @error: a #GError
 *
 * Gets the `reason` member of the context of @error, if it has one.
 *
 * Returns: (nullable): the reason, valid as long as @error
 */
const char *
agents_sandbox_error_get_reason (const GError *error)
{
  GVariant *context;
  const char *reason = NULL;

  g_return_val_if_fail (error != NULL, NULL);

  if (error->domain != AGENTS_SANDBOX_ERROR)
    return NULL;
  context = agents_error_peek_context (error);
  if (context == NULL || !g_variant_lookup (context, "reason", "&s", &reason))
    return NULL;
  return reason;
}

/* Commands may carry any bytes (hostile file names); contexts are UTF-8. */
static char **
valid_utf8_strv (const char *const *argv)
{
  guint n = argv ? g_strv_length ((char **) argv) : 0;
  char **valid = g_new0 (char *, n + 1);

  for (guint i = 0; i < n; i++)
    valid[i] = g_utf8_make_valid (argv[i], -1);
  return valid;
}

/**
 * agents_sandbox_error_argv_variant:
 * @argv: (array zero-terminated=1): a command
 *
 * Builds the `command` member of an error context from a command.
 *
 * Returns: (transfer floating): the `command` member of an error context
 */
GVariant *
agents_sandbox_error_argv_variant (const char *const *argv)
{
  g_auto (GStrv) valid = valid_utf8_strv (argv);

  return g_variant_new_strv ((const char *const *) valid, -1);
}

/**
 * agents_sandbox_error_argv_string:
 * @argv: (array zero-terminated=1): a command
 *
 * Builds the `command_str` member of an error context: the words of the
 * command joined by spaces.
 *
 * Returns: (transfer full): the `command_str` member of an error context
 */
char *
agents_sandbox_error_argv_string (const char *const *argv)
{
  g_auto (GStrv) valid = valid_utf8_strv (argv);

  return g_strjoinv (" ", valid);
}

/**
 * agents_sandbox_error_set_invalid_path:
 * @error: (nullable): return location for a #GError
 * @rel: the path as the caller gave it
 * @reason: why it is refused: `absolute` or `escape_root`
 *
 * Sets the reference's InvalidManifestPathError, with context `{"rel",
 * "reason"}`: `manifest path must be relative: REL` when @reason is
 * `absolute`, else `manifest path must not escape root: REL`.
 */
void
agents_sandbox_error_set_invalid_path (GError **error,
                                       const char *rel,
                                       const char *reason)
{
  g_auto (GVariantBuilder) builder =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  g_variant_builder_add (&builder, "{sv}", "rel", g_variant_new_string (rel));
  g_variant_builder_add (&builder, "{sv}", "reason",
                         g_variant_new_string (reason));
  if (g_strcmp0 (reason, "absolute") == 0)
    agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH,
                              g_variant_builder_end (&builder),
                              _ ("manifest path must be relative: %s"), rel);
  else
    agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH,
                              g_variant_builder_end (&builder),
                              _ ("manifest path must not escape root: %s"),
                              rel);
}

static char *
bytes_to_text (GBytes *bytes)
{
  gsize size = 0;
  const char *data = bytes ? g_bytes_get_data (bytes, &size) : NULL;

  if (data == NULL)
    return g_strdup ("");
  return g_utf8_make_valid (data, size);
}

static void
add_command_context (GVariantBuilder *builder, const char *const *argv)
{
  g_autofree char *command_str = agents_sandbox_error_argv_string (argv);

  g_variant_builder_add (builder, "{sv}", "command",
                         agents_sandbox_error_argv_variant (argv));
  g_variant_builder_add (builder, "{sv}", "command_str",
                         g_variant_new_string (command_str));
}

/**
 * agents_sandbox_error_set_exec_nonzero:
 * @error: (nullable): return location for a #GError
 * @argv: (array zero-terminated=1): the command
 * @exit_code: its exit status
 * @stdout_bytes: (nullable): what it printed on stdout
 * @stderr_bytes: (nullable): what it printed on stderr
 *
 * Sets the reference's ExecNonZeroError: message `stdout: …\nstderr: …`,
 * context `{"command", "command_str", "exit_code", "stdout", "stderr"}`.
 */
void
agents_sandbox_error_set_exec_nonzero (GError **error,
                                       const char *const *argv,
                                       int exit_code,
                                       GBytes *stdout_bytes,
                                       GBytes *stderr_bytes)
{
  g_auto (GVariantBuilder) builder =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  g_autofree char *out = bytes_to_text (stdout_bytes);
  g_autofree char *err = bytes_to_text (stderr_bytes);

  add_command_context (&builder, argv);
  g_variant_builder_add (&builder, "{sv}", "exit_code",
                         g_variant_new_int32 (exit_code));
  g_variant_builder_add (&builder, "{sv}", "stdout",
                         g_variant_new_string (out));
  g_variant_builder_add (&builder, "{sv}", "stderr",
                         g_variant_new_string (err));
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_EXEC_NONZERO,
                            g_variant_builder_end (&builder),
                            "stdout: %s\nstderr: %s", out, err);
}

/**
 * agents_sandbox_error_set_exec_transport:
 * @error: (nullable): return location for a #GError
 * @argv: (array zero-terminated=1): the command
 * @reason: why it could not be run
 * @extra_context: (transfer floating) (nullable): more context members
 *
 * Sets the reference's ExecTransportError, with context `{"command",
 * "command_str", "reason", …}`.
 */
void
agents_sandbox_error_set_exec_transport (GError **error,
                                         const char *const *argv,
                                         const char *reason,
                                         GVariant *extra_context)
{
  g_auto (GVariantBuilder) builder =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  g_autofree char *command_str = agents_sandbox_error_argv_string (argv);

  add_command_context (&builder, argv);
  g_variant_builder_add (&builder, "{sv}", "reason",
                         g_variant_new_string (reason));
  if (extra_context != NULL)
    {
      GVariantIter iter;
      const char *key;
      GVariant *value;

      g_variant_ref_sink (extra_context);
      g_variant_iter_init (&iter, extra_context);
      while (g_variant_iter_next (&iter, "{&sv}", &key, &value))
        {
          g_variant_builder_add (&builder, "{sv}", key, value);
          g_variant_unref (value);
        }
      g_variant_unref (extra_context);
    }
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_EXEC_TRANSPORT,
                            g_variant_builder_end (&builder),
                            _ ("failed to run command: %s (%s)"), command_str,
                            reason);
}
