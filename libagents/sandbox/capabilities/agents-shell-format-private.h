/* agents-shell-format-private.h - what exec_command and write_stdin answer
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The reference's _format_response() (wave2-reference §1.2), lines joined
 * with "\n", no line end added after @output:
 *   Chunk ID: <chunk_id>
 *   Wall time: <wall_seconds, 4 decimals> seconds
 *   Process exited with code <N>          when @exit_code >= 0
 *   Process running with session ID <id>  when @session_id >= 0
 *   Original token count: <N>             when @original_token_count >= 0
 *   Output:
 *   <output> */
char *agents_shell_format_response (const char *chunk_id,
                                    double wall_seconds,
                                    int exit_code,
                                    gint64 session_id,
                                    gint64 original_token_count,
                                    const char *output);

/* A fresh chunk id: 6 lowercase hex digits, as uuid4().hex[:6]. */
char *agents_shell_new_chunk_id (void);

/* One-shot output: stdout and stderr decoded as UTF-8 (invalid bytes
 * replaced); both non-empty are joined with "\n" unless stdout already
 * ends with one. */
char *agents_shell_join_output (const char *out,
                                gsize out_len,
                                const char *err,
                                gsize err_len);

/* "Command timed out after <seconds, 3 decimals> seconds." */
char *agents_shell_timeout_message (double seconds);

G_END_DECLS
