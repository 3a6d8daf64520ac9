/* fuzz-text.c - libFuzzer harness: the text the library takes from
 * sandboxed commands and workspace files (any bytes, not necessarily
 * UTF-8, huge lines or none): the shell tools' output path (join,
 * token truncation, response), Python's str rules, and the SKILL.md
 * frontmatter parser
 *
 * The first byte picks the target, the next ones its parameters (a
 * token budget, a split point), the rest is the text.
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "agents-pytext-private.h"
#include "agents-shell-format-private.h"
#include "agents-skill-frontmatter-private.h"
#include "agents-token-truncation-private.h"

#include "fuzz-common.h"

typedef struct
{
  const guint8 *data;
  size_t size;
} Input;

static guint
take_byte (Input *in)
{
  guint byte;

  if (in->size == 0)
    return 0;
  byte = in->data[0];
  in->data++;
  in->size--;
  return byte;
}

/* A token budget as tools meet them: mostly tiny (0 included), some
 * large, one beyond any length. */
static guint64
take_budget (Input *in)
{
  guint byte = take_byte (in);

  if (byte == 255)
    return G_MAXUINT64;
  if (byte >= 200)
    return (guint64) (byte - 200) * 1000;
  return byte;
}

static void
assert_valid (const char *text)
{
  g_assert_nonnull (text);
  g_assert_true (g_utf8_validate (text, -1, NULL));
}

static guint64
budget_bytes (guint64 tokens)
{
  return tokens > G_MAXSIZE / AGENTS_APPROX_BYTES_PER_TOKEN
           ? G_MAXSIZE
           : tokens * AGENTS_APPROX_BYTES_PER_TOKEN;
}

/* stdout and stderr of a one-shot command: the join is their valid
 * UTF-8 with at most one "\n" between. */
static void
fuzz_join_output (Input *in)
{
  guint byte = take_byte (in);
  gsize split = (gsize) byte * 256 % (in->size + 1);
  const char *text = (const char *) in->data;
  g_autofree char *out = g_utf8_make_valid (text, split);
  g_autofree char *err = g_utf8_make_valid (text + split, in->size - split);
  g_autofree char *joined =
    agents_shell_join_output (text, split, text + split, in->size - split);

  assert_valid (joined);
  g_assert_true (g_str_has_prefix (joined, out));
  g_assert_true (g_str_has_suffix (joined, err));
  g_assert_cmpuint (strlen (joined), <=, strlen (out) + 1 + strlen (err));
}

/* What the model reads: valid UTF-8 within the budget, the text itself
 * when it fits. */
static void
check_truncated (const char *result,
                 const char *valid,
                 guint64 tokens,
                 gboolean cut)
{
  assert_valid (result);
  g_assert_cmpuint (strlen (result), <=, budget_bytes (tokens));
  if (!cut)
    g_assert_cmpstr (result, ==, valid);
}

#define ELLIPSIS "\u2026"
#define TRUNCATED " tokens truncated" ELLIPSIS

/* Whether @body is @valid's first @head bytes, "…K tokens truncated…"
 * with K the removed bytes / 4 rounded up, and a tail of @valid, head
 * and tail each within their half of what the marker leaves of
 * @content_budget. */
static gboolean
is_cut_at (const char *body,
           gsize head,
           const char *valid,
           guint64 gap,
           guint64 content_budget)
{
  gsize length = strlen (valid);
  const char *p = body + head;
  const char *tail;
  char *end;
  guint64 k, content;
  gsize tail_length;

  if (!g_str_has_prefix (p, ELLIPSIS) || !g_ascii_isdigit (p[3]))
    return FALSE;
  k = g_ascii_strtoull (p + 3, &end, 10);
  if (!g_str_has_prefix (end, TRUNCATED))
    return FALSE;
  tail = end + strlen (TRUNCATED);
  tail_length = strlen (tail);
  if (tail_length > length - head ||
      strcmp (valid + length - tail_length, tail) != 0)
    return FALSE;
  if (content_budget < (guint64) (tail - p))
    return FALSE;
  content = content_budget - (tail - p);
  return k == agents_approx_token_count (gap + length - head - tail_length) &&
         head <= content / 2 && tail_length <= content - content / 2;
}

/* Whether @body is a cut of @valid (for some head) within @budget. */
static gboolean
is_cut (const char *body, const char *valid, guint64 gap, guint64 budget)
{
  gsize head = 0;

  for (;;)
    {
      if (is_cut_at (body, head, valid, gap, budget))
        return TRUE;
      if (valid[head] == '\0' || body[head] != valid[head])
        return FALSE;
      head++;
    }
}

/* The promised shape of a cut: "Total output lines: N\n\n" when it fits
 * beside the marker, head, marker, tail; or the marker alone, cut. */
static void
check_cut_shape (const char *result,
                 const char *valid,
                 guint64 gap,
                 guint64 gap_lines,
                 guint64 tokens,
                 gboolean with_prefix)
{
  g_autoptr (GPtrArray) lines = agents_py_splitlines (valid);
  g_autofree char *prefix = g_strdup_printf (
    "Total output lines: %" G_GUINT64_FORMAT "\n\n", lines->len + gap_lines);
  guint64 budget = budget_bytes (tokens);

  if (with_prefix && g_str_has_prefix (result, prefix) &&
      is_cut (result + strlen (prefix), valid, gap, budget - strlen (prefix)))
    return;
  /* Without the line count when it did not fit beside a marker. */
  if (is_cut (result, valid, gap, budget))
    return;
  /* The marker alone, cut in whole characters. */
  g_assert_cmpuint (strlen (result), <, 64);
  g_assert_true (g_str_has_prefix (result, ELLIPSIS) ||
                 g_str_has_prefix (ELLIPSIS, result));
}

static void
fuzz_truncate (Input *in)
{
  guint64 tokens = take_budget (in);
  const char *text = (const char *) in->data;
  g_autofree char *valid = g_utf8_make_valid (text, in->size);
  gboolean cut = strlen (valid) > budget_bytes (tokens);
  gint64 original = 0;
  g_autofree char *result =
    agents_truncate_to_tokens (text, in->size, tokens, &original);
  g_autofree char *plain =
    agents_truncate_text_to_tokens (text, in->size, tokens);

  check_truncated (result, valid, tokens, cut);
  check_truncated (plain, valid, tokens, cut);
  if (cut)
    {
      check_cut_shape (result, valid, 0, 0, tokens, TRUE);
      check_cut_shape (plain, valid, 0, 0, tokens, FALSE);
    }
  g_assert_cmpint (original, ==,
                   cut ? (gint64) agents_approx_token_count (strlen (valid))
                       : -1);
}

/* A process's output with @gap bytes dropped from its middle: the kept
 * text is at least the budget (the contract), so the budget is taken
 * within the input's length. */
static void
fuzz_truncate_gapped (Input *in)
{
  guint64 gap = take_byte (in) * 4099 + 1;
  guint64 gap_lines = take_byte (in) % 4 == 0 ? 0 : gap / 7;
  guint64 tokens =
    take_byte (in) % (in->size / AGENTS_APPROX_BYTES_PER_TOKEN + 1);
  const char *text = (const char *) in->data;
  g_autofree char *valid = g_utf8_make_valid (text, in->size);
  gint64 original = 0;
  g_autofree char *result = agents_truncate_gapped_to_tokens (
    text, in->size, gap, gap_lines, tokens, &original);

  check_truncated (result, valid, tokens, TRUE);
  check_cut_shape (result, valid, gap, gap_lines, tokens, TRUE);
  g_assert_cmpint (original, ==,
                   (gint64) agents_approx_token_count (strlen (valid) + gap));
}

/* exec_command's path: join, cut, answer. */
static void
fuzz_format_response (Input *in)
{
  guint64 tokens = take_budget (in);
  int exit_code = (int) take_byte (in) - 2;
  gint64 session_id = (gint64) take_byte (in) * 1000 - 1;
  double wall = take_byte (in) / 7.0;
  gsize split = in->size / 2;
  const char *text = (const char *) in->data;
  g_autofree char *joined =
    agents_shell_join_output (text, split, text + split, in->size - split);
  gint64 original = 0;
  g_autofree char *output =
    agents_truncate_to_tokens (joined, strlen (joined), tokens, &original);
  g_autofree char *chunk_id = agents_shell_new_chunk_id ();
  g_autofree char *response = agents_shell_format_response (
    chunk_id, wall, exit_code, session_id, original, output);

  assert_valid (response);
  g_assert_true (g_str_has_prefix (response, "Chunk ID: "));
  g_assert_true (g_str_has_suffix (response, output));
  g_assert_nonnull (strstr (response, "\nOutput:\n"));
}

static gboolean
has_line_break (const char *line)
{
  for (const char *p = line; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (c == '\n' || c == '\r' || c == 0x0b || c == 0x0c || c == 0x1c ||
          c == 0x1d || c == 0x1e || c == 0x85 || c == 0x2028 || c == 0x2029)
        return TRUE;
    }
  return FALSE;
}

static gboolean
ends_with_space (const char *text)
{
  return *text != '\0' && agents_py_isspace (g_utf8_get_char (
                            g_utf8_prev_char (text + strlen (text))));
}

/* Callers hand these valid UTF-8 (the contract). */
static void
fuzz_pytext (Input *in)
{
  g_autofree char *text = g_utf8_make_valid ((const char *) in->data, in->size);
  g_autoptr (GPtrArray) lines = agents_py_splitlines (text);
  g_autofree char *stripped = agents_py_strip (text);
  g_autofree char *rstripped = agents_py_rstrip (text);
  const char *start = agents_py_lstrip_start (text);
  gsize total = 0;

  for (guint i = 0; i < lines->len; i++)
    {
      assert_valid (lines->pdata[i]);
      g_assert_false (has_line_break (lines->pdata[i]));
      g_assert_nonnull (strstr (text, lines->pdata[i]));
      total += strlen (lines->pdata[i]);
    }
  g_assert_cmpuint (total, <=, strlen (text));
  g_assert_true (start >= text && start <= text + strlen (text));
  g_assert_true (*start == '\0' ||
                 !agents_py_isspace (g_utf8_get_char (start)));
  assert_valid (stripped);
  assert_valid (rstripped);
  g_assert_true (g_str_has_prefix (text, rstripped));
  g_assert_true (g_str_has_prefix (start, stripped));
  g_assert_false (ends_with_space (stripped));
  g_assert_false (ends_with_space (rstripped));
  g_assert_true (*stripped == '\0' ||
                 !agents_py_isspace (g_utf8_get_char (stripped)));
}

/* SKILL.md from the workspace (made valid by the catalog). */
static void
fuzz_frontmatter (Input *in)
{
  g_autofree char *text = g_utf8_make_valid ((const char *) in->data, in->size);
  g_autoptr (GHashTable) meta = agents_skill_parse_frontmatter (text);
  GHashTableIter iter;
  gpointer key, value;

  g_assert_nonnull (meta);
  g_hash_table_iter_init (&iter, meta);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      assert_valid (key);
      assert_valid (value);
    }
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  Input in = { data, size };

  fuzz_init ();
  switch (take_byte (&in) % 6)
    {
    case 0:
      fuzz_join_output (&in);
      break;
    case 1:
      fuzz_truncate (&in);
      break;
    case 2:
      fuzz_truncate_gapped (&in);
      break;
    case 3:
      fuzz_format_response (&in);
      break;
    case 4:
      fuzz_pytext (&in);
      break;
    default:
      fuzz_frontmatter (&in);
      break;
    }
  return 0;
}
