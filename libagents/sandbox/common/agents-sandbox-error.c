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

typedef struct
{
  GVariant *context;
} AgentsSandboxErrorPrivate;

static void
agents_sandbox_error_private_init (AgentsSandboxErrorPrivate *priv)
{
  priv->context = NULL;
}

static void
agents_sandbox_error_private_copy (const AgentsSandboxErrorPrivate *src,
                                   AgentsSandboxErrorPrivate *dest)
{
  dest->context = src->context ? g_variant_ref (src->context) : NULL;
}

static void
agents_sandbox_error_private_clear (AgentsSandboxErrorPrivate *priv)
{
  g_clear_pointer (&priv->context, g_variant_unref);
}

/**
 * agents_sandbox_error_quark:
 *
 * Gets the quark of the %AGENTS_SANDBOX_ERROR domain.
 *
 * Returns: the quark
 */
AGENTS_DEFINE_EXTENDED_ERROR (AgentsSandboxError,
                              agents_sandbox_error,
                              "agents-sandbox-error-quark")

/*
 * Language bindings turn a GError into their own exception type and keep
 * only domain, code and message; the extended private data is lost on the
 * way back in. So the contexts of recent errors are also remembered,
 * keyed by what survives that trip.
 */
#define RECENT_CONTEXTS 32

typedef struct
{
  GQuark domain;
  int code;
  char *message;
  GVariant *context;
} RecentContext;

typedef struct
{
  RecentContext slots[RECENT_CONTEXTS];
  guint next;
} RecentContexts;

/* Process-wide: errors are often made in g_task_run_in_thread() workers
 * and caught on the main thread. */
static RecentContexts recent_contexts;
static GMutex recent_lock;

/* Also used by the run error domain (agents-run-error.c). */
void
agents_error_remember_context (const GError *error, GVariant *context)
{
  g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&recent_lock);
  RecentContexts *recent = &recent_contexts;
  RecentContext *slot = &recent->slots[recent->next];

  g_free (slot->message);
  g_clear_pointer (&slot->context, g_variant_unref);
  slot->domain = error->domain;
  slot->code = error->code;
  slot->message = g_strdup (error->message);
  slot->context = g_variant_ref (context);
  recent->next = (recent->next + 1) % RECENT_CONTEXTS;
}

static GVariant *
empty_context (void)
{
  return g_variant_new_array (G_VARIANT_TYPE ("{sv}"), NULL, 0);
}

/* Extended domains of plugins whose contexts
 * agents_sandbox_error_get_context() reads too: GQuark → func. */
static GHashTable *context_funcs;
static GMutex context_funcs_lock;

void
agents_error_register_context_func (GQuark domain, AgentsErrorContextFunc func)
{
  g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&context_funcs_lock);

  if (context_funcs == NULL)
    context_funcs = g_hash_table_new (NULL, NULL);
  g_hash_table_insert (context_funcs, GUINT_TO_POINTER (domain), func);
}

static GVariant *
plugin_error_context (const GError *error)
{
  AgentsErrorContextFunc func = NULL;
  GVariant *context;

  g_mutex_lock (&context_funcs_lock);
  if (context_funcs != NULL)
    func =
      g_hash_table_lookup (context_funcs, GUINT_TO_POINTER (error->domain));
  g_mutex_unlock (&context_funcs_lock);

  if (func == NULL)
    return g_variant_ref_sink (empty_context ());
  context = func (error);
  if (context != NULL)
    return context;
  return agents_sandbox_error_lookup_context (error->domain, error->code,
                                              error->message);
}

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
  AgentsSandboxErrorPrivate *priv;

  g_return_if_fail (error != NULL);
  g_return_if_fail (error->domain == AGENTS_SANDBOX_ERROR);

  if (context == NULL)
    context = empty_context ();
  g_return_if_fail (g_variant_is_of_type (context, G_VARIANT_TYPE_VARDICT));

  priv = agents_sandbox_error_get_private (error);
  g_clear_pointer (&priv->context, g_variant_unref);
  priv->context = g_variant_ref_sink (context);
  agents_error_remember_context (error, priv->context);
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
  GError *error = g_error_new_literal (AGENTS_SANDBOX_ERROR, code, message);

  agents_sandbox_error_set_context (error, context);
  return error;
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
  error = g_error_new_valist (AGENTS_SANDBOX_ERROR, code, format, args);
  va_end (args);

  agents_sandbox_error_set_context (error, context);
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
  GError *new_error;
  va_list args;

  if (error == NULL)
    {
      if (context != NULL)
        g_variant_unref (g_variant_ref_sink (context));
      return;
    }

  va_start (args, format);
  new_error = g_error_new_valist (AGENTS_SANDBOX_ERROR, code, format, args);
  va_end (args);

  agents_sandbox_error_set_context (new_error, context);
  g_propagate_error (error, new_error);
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
 * those the context is looked up from the recent errors of this thread,
 * see agents_sandbox_error_lookup_context().
 *
 * Errors of the plugins' own domains (the docker backend's, for one)
 * carry a context too, and this reads it.
 *
 * Returns: (transfer full): an `a{sv}` dictionary, empty when @error is
 *   neither a sandbox error nor a plugin error, or has no context
 */
GVariant *
agents_sandbox_error_get_context (const GError *error)
{
  AgentsSandboxErrorPrivate *priv;

  g_return_val_if_fail (error != NULL, NULL);

  if (error->domain != AGENTS_SANDBOX_ERROR)
    return plugin_error_context (error);

  priv = agents_sandbox_error_get_private (error);
  if (priv != NULL && priv->context != NULL)
    return g_variant_ref (priv->context);

  return agents_sandbox_error_lookup_context (error->domain, error->code,
                                              error->message);
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
  g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&recent_lock);
  RecentContexts *recent = &recent_contexts;

  for (guint i = 1; i <= RECENT_CONTEXTS; i++)
    {
      RecentContext *slot =
        &recent->slots[(recent->next + RECENT_CONTEXTS - i) % RECENT_CONTEXTS];

      if (slot->context != NULL && slot->domain == domain &&
          slot->code == code && g_strcmp0 (slot->message, message) == 0)
        return g_variant_ref (slot->context);
    }

  return g_variant_ref_sink (empty_context ());
}

/**
 * agents_error_lookup_context:
 * @domain: the error domain's name, e.g. `agents-sandbox-error-quark`
 * @code: the error code
 * @message: the error message
 *
 * Like agents_sandbox_error_lookup_context(), for bindings that give the
 * domain of a caught error as a string. From Python:
 *
 * ```python
 * except GLib.Error as e:
 *     ctx = Agents.error_lookup_context(e.domain, e.code, e.message)
 *     print(ctx["reason"])
 * ```
 *
 * Works for the sandbox and the run error domains.
 *
 * Returns: (transfer full): an `a{sv}` dictionary, empty when nothing is
 *   known about the error
 */
GVariant *
agents_error_lookup_context (const char *domain, int code, const char *message)
{
  GQuark quark = domain != NULL ? g_quark_try_string (domain) : 0;

  if (quark == 0)
    return g_variant_ref_sink (empty_context ());
  return agents_sandbox_error_lookup_context (quark, code, message);
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
  AgentsSandboxErrorPrivate *priv;
  const char *reason = NULL;

  g_return_val_if_fail (error != NULL, NULL);

  if (error->domain != AGENTS_SANDBOX_ERROR)
    return NULL;
  priv = agents_sandbox_error_get_private (error);
  if (priv == NULL || priv->context == NULL)
    return NULL;
  if (!g_variant_lookup (priv->context, "reason", "&s", &reason))
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
