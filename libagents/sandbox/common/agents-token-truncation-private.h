/* agents-token-truncation-private.h - tool output cut to a token budget
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The reference's estimate: 4 bytes of UTF-8 per token, rounded up. */
#define AGENTS_APPROX_BYTES_PER_TOKEN 4

guint64 agents_approx_token_count (gsize n_bytes);

/* The reference's token truncation of shell output (token_truncation.py),
 * as `max_output_tokens` asks for it: @text unchanged when its UTF-8 fits
 * in 4 × @max_output_tokens bytes; else the whole result fits that budget:
 * "Total output lines: N\n\n" (dropped, for good, when it does not fit
 * beside the marker), the head, "…K tokens truncated…" (K = removed bytes / 4,
 * rounded up), the tail, head and tail sharing what is left half and half
 * in whole characters (the marker alone, cut to the budget, when even it
 * does not fit). @original_token_count receives the estimate of the whole
 * text when it was cut, else -1. Invalid UTF-8 is replaced first. */
char *agents_truncate_to_tokens (const char *text,
                                 gsize length,
                                 guint64 max_output_tokens,
                                 gint64 *original_token_count);

/* The reference's truncate_text() with the tokens policy and no line
 * prefix (the memory summary, rollouts): the same head, marker and tail
 * as agents_truncate_to_tokens(), without "Total output lines". */
char *agents_truncate_text_to_tokens (const char *text,
                                      gsize length,
                                      guint64 max_tokens);
/* The same for a text of which @gap bytes, holding @gap_lines line ends,
 * were dropped from the middle (see AgentsSandboxProcess): counts and
 * marker are those of the whole text. The kept head and tail must each be
 * at least half the budget. */
char *agents_truncate_gapped_to_tokens (const char *text,
                                        gsize length,
                                        guint64 gap,
                                        guint64 gap_lines,
                                        guint64 max_output_tokens,
                                        gint64 *original_token_count);

G_END_DECLS
