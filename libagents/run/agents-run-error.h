/* agents-run-error.h - the run error domain
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include <glib.h>

#include "agents-version-macros.h"

G_BEGIN_DECLS

#define AGENTS_RUN_ERROR (agents_run_error_quark ())

/**
 * AgentsRunError:
 * @AGENTS_RUN_ERROR_USER_ERROR: the library was misused (the reference's
 *   `UserError`), e.g. a sandbox agent run without a sandbox run config
 * @AGENTS_RUN_ERROR_MAX_TURNS_EXCEEDED: the run needed more turns than
 *   allowed
 * @AGENTS_RUN_ERROR_INPUT_GUARDRAIL_TRIPWIRE: an input guardrail tripped
 * @AGENTS_RUN_ERROR_OUTPUT_GUARDRAIL_TRIPWIRE: an output guardrail tripped
 * @AGENTS_RUN_ERROR_MODEL_BEHAVIOR: the model did something unexpected:
 *   called an unknown tool, handed off to an unknown agent, produced
 *   malformed output
 * @AGENTS_RUN_ERROR_INVALID_RUN_STATE: a serialized run state is corrupt,
 *   foreign or of an unknown schema version
 * @AGENTS_RUN_ERROR_TOOL_FAILED: a tool failed and its failure was not
 *   turned into output for the model
 * @AGENTS_RUN_ERROR_CANCELLED: the run was cancelled
 * @AGENTS_RUN_ERROR_FAILED: any other failure
 * @AGENTS_RUN_ERROR_MODEL_HTTP: a model's server could not be reached, did
 *   not answer in time, or answered with an HTTP error; the context has
 *   `status` (u, when the server answered), `message` (the server's error
 *   message or the transport failure), `request_id` (`x-request-id`),
 *   `type` and `code` (the server's, when given)
 *
 * Error codes of the %AGENTS_RUN_ERROR domain. Every error of this domain
 * carries a context dictionary, see agents_run_error_get_context().
 * Guardrail errors carry `guardrail` (its name) and `output_info` (the
 * guardrail's output info as a JSON string).
 *
 * Codes are only ever appended.
 */
typedef enum
{
  AGENTS_RUN_ERROR_USER_ERROR,
  AGENTS_RUN_ERROR_MAX_TURNS_EXCEEDED,
  AGENTS_RUN_ERROR_INPUT_GUARDRAIL_TRIPWIRE,
  AGENTS_RUN_ERROR_OUTPUT_GUARDRAIL_TRIPWIRE,
  AGENTS_RUN_ERROR_MODEL_BEHAVIOR,
  AGENTS_RUN_ERROR_INVALID_RUN_STATE,
  AGENTS_RUN_ERROR_TOOL_FAILED,
  AGENTS_RUN_ERROR_CANCELLED,
  AGENTS_RUN_ERROR_FAILED,
  AGENTS_RUN_ERROR_MODEL_HTTP,
} AgentsRunError;

AGENTS_AVAILABLE_IN_1_0
GQuark agents_run_error_quark (void);

AGENTS_AVAILABLE_IN_1_0
GVariant *agents_run_error_get_context (const GError *error);
AGENTS_AVAILABLE_IN_1_0
GVariant *
agents_run_error_lookup_context (GQuark domain, int code, const char *message);
AGENTS_AVAILABLE_IN_1_0
void agents_run_error_set_context (GError *error, GVariant *context);

AGENTS_AVAILABLE_IN_1_0
GError *
agents_run_error_new_literal (int code, GVariant *context, const char *message);
AGENTS_AVAILABLE_IN_1_0
GError *
agents_run_error_new (int code, GVariant *context, const char *format, ...)
  G_GNUC_PRINTF (3, 4);
AGENTS_AVAILABLE_IN_1_0
void agents_run_error_set (GError **error,
                           int code,
                           GVariant *context,
                           const char *format,
                           ...) G_GNUC_PRINTF (4, 5);

G_END_DECLS
