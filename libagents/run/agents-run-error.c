/* agents-run-error.c - the run error domain
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-run-error.h"
#include "agents-run-private.h"
#include "agents-error.h"

/**
 * AGENTS_RUN_ERROR:
 *
 * The error domain of runs. Codes are #AgentsRunError.
 */

/**
 * agents_run_error_quark:
 *
 * Gets the quark of the %AGENTS_RUN_ERROR domain.
 *
 * Returns: the quark
 */
AGENTS_DEFINE_ERROR_QUARK (agents_run_error, "agents-run-error-quark")

/**
 * agents_run_error_set_context:
 * @error: an error of the %AGENTS_RUN_ERROR domain
 * @context: (transfer floating) (nullable): an `a{sv}` dictionary
 *
 * Replaces the context of @error.
 */
void
agents_run_error_set_context (GError *error, GVariant *context)
{
  g_return_if_fail (error != NULL);
  g_return_if_fail (error->domain == AGENTS_RUN_ERROR);

  agents_error_set_context (error, context);
}

/**
 * agents_run_error_new_literal:
 * @code: an #AgentsRunError code
 * @context: (transfer floating) (nullable): the context, an `a{sv}`
 * @message: the message
 *
 * Creates a run error carrying @context. Tools, guardrails and models
 * written in any language use this to fail the way built-in ones do.
 *
 * Returns: (transfer full): the error
 */
GError *
agents_run_error_new_literal (int code, GVariant *context, const char *message)
{
  return agents_error_new_literal (AGENTS_RUN_ERROR, code, context, message);
}

/**
 * agents_run_error_new: (skip)
 * @code: an #AgentsRunError code
 * @context: (transfer floating) (nullable): the context, an `a{sv}`
 * @format: printf()-style format of the message
 * @...: arguments for @format
 *
 * Creates a run error carrying @context.
 *
 * Returns: (transfer full): the error
 */
GError *
agents_run_error_new (int code, GVariant *context, const char *format, ...)
{
  GError *error;
  va_list args;

  va_start (args, format);
  error =
    agents_error_new_valist (AGENTS_RUN_ERROR, code, context, format, args);
  va_end (args);
  return error;
}

/**
 * agents_run_error_set: (skip)
 * @error: (nullable): return location for a #GError
 * @code: an #AgentsRunError code
 * @context: (transfer floating) (nullable): the context, an `a{sv}`
 * @format: printf()-style format of the message
 * @...: arguments for @format
 *
 * Sets @error to a run error carrying @context. A floating @context is
 * consumed even when @error is %NULL.
 */
void
agents_run_error_set (
  GError **error, int code, GVariant *context, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  agents_error_set_valist (error, AGENTS_RUN_ERROR, code, context, format,
                           args);
  va_end (args);
}

/**
 * agents_run_error_get_context:
 * @error: a #GError
 *
 * Gets the context dictionary that the error carries. Guardrail errors
 * carry `guardrail` (the guardrail's name) and `output_info` (its output
 * info as JSON text).
 *
 * Errors that crossed a language binding lose their extended data; for
 * those the context is looked up from the recent errors of the process,
 * see agents_run_error_lookup_context().
 *
 * Returns: (transfer full): an `a{sv}` dictionary, empty when @error is not
 *   a run error or has no context
 */
GVariant *
agents_run_error_get_context (const GError *error)
{
  g_return_val_if_fail (error != NULL, NULL);

  if (error->domain != AGENTS_RUN_ERROR)
    return g_variant_ref_sink (
      g_variant_new_array (G_VARIANT_TYPE ("{sv}"), NULL, 0));
  return agents_error_get_context (error);
}

/**
 * agents_run_error_lookup_context:
 * @domain: the error domain
 * @code: the error code
 * @message: the error message
 *
 * Looks up the context of a recent error of the process by its
 * domain, code and message; works for run and sandbox errors alike. This
 * is how Python and JavaScript code reads the context of an exception it
 * caught:
 *
 * ```python
 * except GLib.Error as e:
 *     ctx = Agents.run_error_lookup_context(e.domain, e.code, e.message)
 * ```
 *
 * Returns: (transfer full): an `a{sv}` dictionary, empty when nothing is
 *   known about the error
 */
GVariant *
agents_run_error_lookup_context (GQuark domain, int code, const char *message)
{
  return agents_error_lookup_context_by_quark (domain, code, message);
}

void
agents_run_error_set_guardrail_tripwire (GError **error,
                                         int code,
                                         const char *guardrail_name,
                                         AgentsGuardrailResult *result)
{
  g_auto (GVariantBuilder) builder =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  JsonNode *info =
    result ? agents_guardrail_result_get_output_info (result) : NULL;
  g_autofree char *info_text =
    info ? json_to_string (info, FALSE) : g_strdup ("null");
  gboolean input = code == AGENTS_RUN_ERROR_INPUT_GUARDRAIL_TRIPWIRE;

  g_return_if_fail (input ||
                    code == AGENTS_RUN_ERROR_OUTPUT_GUARDRAIL_TRIPWIRE);

  g_variant_builder_add (&builder, "{sv}", "guardrail",
                         g_variant_new_string (guardrail_name));
  g_variant_builder_add (&builder, "{sv}", "output_info",
                         g_variant_new_string (info_text));
  /* The reference names the guardrail's class, not the guardrail. */
  agents_run_error_set (error, code, g_variant_builder_end (&builder),
                        _ ("Guardrail %s triggered tripwire"),
                        input ? "InputGuardrail" : "OutputGuardrail");
}
