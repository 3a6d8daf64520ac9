/* agents-token-truncation.c - tool output cut to a token budget
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "agents-pytext-private.h"
#include "agents-token-truncation-private.h"

guint64
agents_approx_token_count (gsize n_bytes)
{
  return ((guint64) n_bytes + AGENTS_APPROX_BYTES_PER_TOKEN - 1) /
         AGENTS_APPROX_BYTES_PER_TOKEN;
}

/* The longest prefix of whole characters within @budget bytes. */
static gsize
head_length (const char *text, gsize length, gsize budget)
{
  const char *p = text;

  while ((gsize) (p - text) < length)
    {
      const char *next = g_utf8_next_char (p);

      if ((gsize) (next - text) > budget)
        break;
      p = next;
    }
  return p - text;
}

/* Where the tail starts: the first character boundary at or after
 * @length - @budget (and not before @head). */
static gsize
tail_start (const char *text, gsize length, gsize budget, gsize head)
{
  gsize target = budget < length ? length - budget : 0;
  const char *p = text + head;

  while ((gsize) (p - text) < target)
    p = g_utf8_next_char (p);
  return p - text;
}

/* @marker cut to @budget bytes in whole characters. */
static char *
cut_marker (const char *marker, gsize budget)
{
  return g_strndup (marker, head_length (marker, strlen (marker), budget));
}

/* @text is the whole output but for @gap bytes holding @gap_lines line
 * ends that were dropped from its middle (never within the budget's head
 * or tail). */
static char *
truncate_valid (const char *text,
                gsize length,
                guint64 gap,
                guint64 gap_lines,
                gsize budget,
                gboolean with_prefix,
                gint64 *original_token_count)
{
  g_autoptr (GPtrArray) lines = agents_py_splitlines (text);
  g_autofree char *prefix = g_strdup_printf (
    "Total output lines: %" G_GUINT64_FORMAT "\n\n", lines->len + gap_lines);
  g_autofree char *marker = NULL;
  guint64 removed_tokens = agents_approx_token_count (length + gap - budget);
  gsize head = 0, tail = length, content;
  const char *used_prefix = with_prefix ? prefix : "";

  *original_token_count = (gint64) agents_approx_token_count (length + gap);
  /* More removed means a longer marker and less content: from the lower
   * bound, the count only grows, so this settles in a few rounds. Once
   * dropped, the prefix stays dropped: the content it frees shrinks the
   * count, and taking the prefix back would make the two alternate and
   * the marker lie about what was cut. */
  for (guint round = 0; round < 32; round++)
    {
      guint64 count;

      g_free (marker);
      marker = g_strdup_printf (
        "\u2026%" G_GUINT64_FORMAT " tokens truncated\u2026", removed_tokens);
      if (strlen (used_prefix) + strlen (marker) > budget)
        used_prefix = "";
      if (strlen (marker) > budget)
        return cut_marker (marker, budget);
      content = budget - strlen (used_prefix) - strlen (marker);
      head = head_length (text, length, content / 2);
      tail = tail_start (text, length, content - content / 2, head);
      count = agents_approx_token_count (gap + length - head - (length - tail));
      if (count == removed_tokens)
        break;
      removed_tokens = count;
    }
  return g_strdup_printf ("%s%.*s%s%s", used_prefix, (int) head, text, marker,
                          text + tail);
}

char *
agents_truncate_to_tokens (const char *text,
                           gsize length,
                           guint64 max_output_tokens,
                           gint64 *original_token_count)
{
  return agents_truncate_gapped_to_tokens (
    text, length, 0, 0, max_output_tokens, original_token_count);
}

char *
agents_truncate_gapped_to_tokens (const char *text,
                                  gsize length,
                                  guint64 gap,
                                  guint64 gap_lines,
                                  guint64 max_output_tokens,
                                  gint64 *original_token_count)
{
  g_autofree char *valid = g_utf8_make_valid (text, length);
  gsize valid_length = strlen (valid);
  guint64 budget = max_output_tokens > G_MAXSIZE / AGENTS_APPROX_BYTES_PER_TOKEN
                     ? G_MAXSIZE
                     : max_output_tokens * AGENTS_APPROX_BYTES_PER_TOKEN;

  *original_token_count = -1;
  if (gap == 0 && valid_length <= budget)
    return g_steal_pointer (&valid);
  return truncate_valid (valid, valid_length, gap, gap_lines, budget, TRUE,
                         original_token_count);
}

char *
agents_truncate_text_to_tokens (const char *text,
                                gsize length,
                                guint64 max_tokens)
{
  g_autofree char *valid = g_utf8_make_valid (text, length);
  gsize valid_length = strlen (valid);
  guint64 budget = max_tokens > G_MAXSIZE / AGENTS_APPROX_BYTES_PER_TOKEN
                     ? G_MAXSIZE
                     : max_tokens * AGENTS_APPROX_BYTES_PER_TOKEN;
  gint64 original = -1;

  if (valid_length <= budget)
    return g_steal_pointer (&valid);
  return truncate_valid (valid, valid_length, 0, 0, budget, FALSE, &original);
}
