/* agents-apply-diff.c - the V4A diff format of apply_patch
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A port of the reference's V4A algorithm, rule for rule, so that a patch
 * a model wrote for the reference applies the same way here. The error
 * messages are the reference's: the model reads them and retries.
 */

#include "config.h"

#include <string.h>

#include "agents-apply-diff-private.h"
#include "agents-pytext-private.h"
#include "agents-sandbox-error.h"

#define END_PATCH "*** End Patch"
#define END_FILE "*** End of File"

static const char *const section_terminators[] = {
  END_PATCH, "*** Update File:", "*** Delete File:", "*** Add File:", NULL
};
static const char *const end_section_markers[] = {
  END_PATCH,       "*** Update File:", "*** Delete File:",
  "*** Add File:", END_FILE,           NULL
};

typedef struct
{
  guint orig_index;
  GPtrArray *del_lines; /* borrowed strings */
  GPtrArray *ins_lines;
} Chunk;

static void
chunk_free (Chunk *chunk)
{
  g_ptr_array_unref (chunk->del_lines);
  g_ptr_array_unref (chunk->ins_lines);
  g_free (chunk);
}

static Chunk *
chunk_new (guint orig_index, GPtrArray *del_lines, GPtrArray *ins_lines)
{
  Chunk *chunk = g_new0 (Chunk, 1);

  chunk->orig_index = orig_index;
  chunk->del_lines = g_ptr_array_ref (del_lines);
  chunk->ins_lines = g_ptr_array_ref (ins_lines);
  return chunk;
}

/* Locating anchors and context compares lines one by one, as the
 * reference does: a file's lines times a context's, for every section. A
 * hostile diff could make that hours of work, so an update compares at
 * most this many lines, then fails. */
#define MAX_COMPARISONS ((gsize) 1 << 24)

/* The input's lines, with their trimmed forms made once, on demand, and
 * the lines compared so far. */
typedef struct
{
  GPtrArray *lines;
  GPtrArray *rstripped;
  GPtrArray *stripped;
  gsize comparisons;
} Lines;

static void
lines_clear (Lines *lines)
{
  g_clear_pointer (&lines->lines, g_ptr_array_unref);
  g_clear_pointer (&lines->rstripped, g_ptr_array_unref);
  g_clear_pointer (&lines->stripped, g_ptr_array_unref);
}

typedef char *(*MapFunc) (const char *text);

static GPtrArray *
map_lines (GPtrArray *lines, MapFunc map)
{
  GPtrArray *mapped = g_ptr_array_new_full (lines->len, g_free);

  for (guint i = 0; i < lines->len; i++)
    g_ptr_array_add (mapped, map (lines->pdata[i]));
  return mapped;
}

static GPtrArray *
lines_mapped (Lines *lines, guint fuzz)
{
  if (fuzz == 0)
    return lines->lines;
  if (fuzz == 1)
    {
      if (lines->rstripped == NULL)
        lines->rstripped = map_lines (lines->lines, agents_py_rstrip);
      return lines->rstripped;
    }
  if (lines->stripped == NULL)
    lines->stripped = map_lines (lines->lines, agents_py_strip);
  return lines->stripped;
}

static gboolean set_error (GError **error, const char *format, ...)
  G_GNUC_PRINTF (2, 3);

static gboolean
set_error (GError **error, const char *format, ...)
{
  va_list args;
  g_autofree char *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error_literal (error, AGENTS_SANDBOX_ERROR,
                       AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, message);
  return FALSE;
}

/* ---- Newlines and diff lines ------------------------------------------- */

static const char *
newline_of (const char *text)
{
  return strstr (text, "\r\n") != NULL ? "\r\n" : "\n";
}

/* Update keeps the input's line ends; create (or an input without any
 * line end) takes the diff's. */
static const char *
detect_newline (const char *input, const char *diff, AgentsApplyDiffMode mode)
{
  if (mode != AGENTS_APPLY_DIFF_CREATE && strchr (input, '\n') != NULL)
    return newline_of (input);
  return newline_of (diff);
}

/* re.split(r"\r?\n", diff), each line's trailing \r cut, one empty last
 * line dropped. */
static GPtrArray *
diff_lines (const char *diff)
{
  g_auto (GStrv) pieces = g_strsplit (diff, "\n", -1);
  GPtrArray *lines = g_ptr_array_new_with_free_func (g_free);
  guint n = g_strv_length (pieces);

  for (guint i = 0; i < n; i++)
    {
      char *line = pieces[i];
      gsize length = strlen (line);

      while (length > 0 && line[length - 1] == '\r')
        length--;
      g_ptr_array_add (lines, g_strndup (line, length));
    }
  if (lines->len > 0 && *(char *) lines->pdata[lines->len - 1] == '\0')
    g_ptr_array_remove_index (lines, lines->len - 1);
  return lines;
}

/* text.replace("\r\n", "\n"), copying the spans between CRLFs. */
static char *
replace_crlf (const char *text)
{
  char *copy = g_malloc (strlen (text) + 1);
  char *out = copy;
  const char *crlf;

  while ((crlf = strstr (text, "\r\n")) != NULL)
    {
      memcpy (out, text, crlf - text);
      out += crlf - text;
      text = crlf + 1; /* the \n starts the next span */
    }
  strcpy (out, text);
  return copy;
}

/* str.split("\n") of @text, in place: the lines point into @text, which
 * must outlive them ("" is one empty line). */
static GPtrArray *
split_lf_in_place (char *text)
{
  GPtrArray *lines = g_ptr_array_new ();
  char *line = text;
  char *newline;

  while ((newline = strchr (line, '\n')) != NULL)
    {
      *newline = '\0';
      g_ptr_array_add (lines, line);
      line = newline + 1;
    }
  g_ptr_array_add (lines, line);
  return lines;
}

static char *
join_lines (GPtrArray *lines, const char *newline)
{
  gsize newline_length = strlen (newline);
  gsize *lengths = g_new (gsize, lines->len + 1);
  gsize total = 0;
  char *text, *out;

  for (guint i = 0; i < lines->len; i++)
    {
      lengths[i] = strlen (lines->pdata[i]);
      total += lengths[i] + (i > 0 ? newline_length : 0);
    }
  out = text = g_malloc (total + 1);
  for (guint i = 0; i < lines->len; i++)
    {
      if (i > 0)
        {
          memcpy (out, newline, newline_length);
          out += newline_length;
        }
      memcpy (out, lines->pdata[i], lengths[i]);
      out += lengths[i];
    }
  *out = '\0';
  g_free (lengths);
  return text;
}

/* ---- The parser -------------------------------------------------------- */

typedef struct
{
  GPtrArray *lines; /* the diff's, then END_PATCH */
  guint index;
} Parser;

static const char *
current_line (Parser *parser)
{
  return parser->index < parser->lines->len
           ? parser->lines->pdata[parser->index]
           : "";
}

static gboolean
starts_with_any (const char *line, const char *const *prefixes)
{
  for (guint i = 0; prefixes[i] != NULL; i++)
    if (g_str_has_prefix (line, prefixes[i]))
      return TRUE;
  return FALSE;
}

static gboolean
is_done (Parser *parser, const char *const *prefixes)
{
  return parser->index >= parser->lines->len ||
         starts_with_any (parser->lines->pdata[parser->index], prefixes);
}

static char *
parse_create (Parser *parser, const char *newline, GError **error)
{
  g_autoptr (GPtrArray) output = g_ptr_array_new ();

  while (!is_done (parser, section_terminators))
    {
      const char *line = parser->lines->pdata[parser->index++];

      if (line[0] != '+')
        {
          set_error (error, "Invalid Add File Line: %s", line);
          return NULL;
        }
      g_ptr_array_add (output, (gpointer) (line + 1));
    }
  return join_lines (output, newline);
}

/* The `@@` header lines of one hunk: the anchors (non-blank texts after
 * "@@ ") in order, and whether a usable header was seen (a bare "@@" or
 * "@@ text"). */
static GPtrArray *
read_anchors (Parser *parser, gboolean *has_anchor)
{
  GPtrArray *anchors = g_ptr_array_new ();

  *has_anchor = FALSE;
  for (;;)
    {
      const char *line = current_line (parser);
      const char *anchor = "";
      gboolean bare = FALSE;

      if (parser->index >= parser->lines->len)
        break;
      if (g_str_has_prefix (line, "@@ "))
        anchor = line + 3;
      else if (g_str_equal (line, "@@"))
        bare = TRUE;
      else
        break;
      parser->index++;
      if (anchor[0] != '\0' || bare)
        *has_anchor = TRUE;
      if (*agents_py_lstrip_start (anchor) != '\0')
        g_ptr_array_add (anchors, (gpointer) anchor);
    }
  return anchors;
}

static gboolean
over_budget (Lines *input)
{
  return input->comparisons >= MAX_COMPARISONS;
}

/* Whether line @i of @lines (@input's, or their trimmed forms) is
 * @value; the comparison is counted in @input. */
static gboolean
line_is (Lines *input, GPtrArray *lines, guint i, const char *value)
{
  input->comparisons++;
  return g_str_equal (lines->pdata[i], value);
}

static gboolean
occurs_before (Lines *input, GPtrArray *lines, const char *value, guint cursor)
{
  for (guint i = 0; i < cursor && i < lines->len && !over_budget (input); i++)
    if (line_is (input, lines, i, value))
      return TRUE;
  return FALSE;
}

static gboolean
find_forward (Lines *input, GPtrArray *lines, const char *value, guint *cursor)
{
  for (guint i = *cursor; i < lines->len && !over_budget (input); i++)
    if (line_is (input, lines, i, value))
      {
        *cursor = i + 1;
        return TRUE;
      }
  return FALSE;
}

/* Moves the cursor past @anchor's line, matched exactly then trimmed. The
 * first anchor of a hunk also counts as found when it already occurs
 * before the cursor (the cursor stays). */
static gboolean
advance_to_anchor (Lines *input,
                   const char *anchor,
                   gboolean first,
                   guint *cursor)
{
  g_autofree char *stripped = agents_py_strip (anchor);
  GPtrArray *trimmed;

  if (first && occurs_before (input, input->lines, anchor, *cursor))
    return TRUE;
  if (find_forward (input, input->lines, anchor, cursor))
    return TRUE;
  trimmed = lines_mapped (input, 100);
  if (first && occurs_before (input, trimmed, stripped, *cursor))
    return TRUE;
  return find_forward (input, trimmed, stripped, cursor);
}

typedef struct
{
  GPtrArray *context; /* borrowed */
  GPtrArray *chunks;  /* Chunk */
  guint end_index;
  gboolean eof;
} Section;

static void
section_clear (Section *section)
{
  g_clear_pointer (&section->context, g_ptr_array_unref);
  g_clear_pointer (&section->chunks, g_ptr_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Section, section_clear)

static gboolean
ends_section (const char *line)
{
  return g_str_has_prefix (line, "@@") || g_str_has_prefix (line, END_PATCH) ||
         g_str_has_prefix (line, "*** Update File:") ||
         g_str_has_prefix (line, "*** Delete File:") ||
         g_str_has_prefix (line, "*** Add File:") ||
         g_str_has_prefix (line, END_FILE) || g_str_equal (line, "***");
}

typedef enum
{
  MODE_KEEP,
  MODE_ADD,
  MODE_DELETE,
} LineMode;

static void
flush_chunk (Section *section, GPtrArray **del_lines, GPtrArray **ins_lines)
{
  if ((*del_lines)->len == 0 && (*ins_lines)->len == 0)
    return;
  g_ptr_array_add (section->chunks,
                   chunk_new (section->context->len - (*del_lines)->len,
                              *del_lines, *ins_lines));
  g_ptr_array_unref (*del_lines);
  g_ptr_array_unref (*ins_lines);
  *del_lines = g_ptr_array_new ();
  *ins_lines = g_ptr_array_new ();
}

/* One section's lines up to the next header: context (space and `-`
 * lines) and chunks of `-`/`+` lines placed in that context. An empty line
 * is a context line. */
static gboolean
read_section (GPtrArray *lines, guint start, Section *section, GError **error)
{
  g_autoptr (GPtrArray) del_lines = g_ptr_array_new ();
  g_autoptr (GPtrArray) ins_lines = g_ptr_array_new ();
  LineMode mode = MODE_KEEP;
  guint index = start;

  section->context = g_ptr_array_new ();
  section->chunks =
    g_ptr_array_new_with_free_func ((GDestroyNotify) chunk_free);
  for (; index < lines->len; index++)
    {
      const char *raw = lines->pdata[index];
      const char *line = raw[0] != '\0' ? raw : " ";
      LineMode last_mode = mode;

      if (ends_section (raw))
        break;
      if (g_str_has_prefix (raw, "***") || strchr ("+- ", line[0]) == NULL)
        return set_error (error, "Invalid Line: %s", line);
      mode = line[0] == '+'   ? MODE_ADD
             : line[0] == '-' ? MODE_DELETE
                              : MODE_KEEP;
      if (mode == MODE_KEEP && last_mode != mode)
        flush_chunk (section, &del_lines, &ins_lines);
      if (mode == MODE_DELETE)
        g_ptr_array_add (del_lines, (gpointer) (line + 1));
      if (mode != MODE_ADD)
        g_ptr_array_add (section->context, (gpointer) (line + 1));
      else
        g_ptr_array_add (ins_lines, (gpointer) (line + 1));
    }
  flush_chunk (section, &del_lines, &ins_lines);
  if (index < lines->len && g_str_equal (lines->pdata[index], END_FILE))
    {
      section->end_index = index + 1;
      section->eof = TRUE;
      return TRUE;
    }
  if (index == start)
    return set_error (error, "Nothing in this section - index=%u %s", index,
                      index < lines->len ? (char *) lines->pdata[index] : "");
  section->end_index = index;
  return TRUE;
}

/* ---- Locating context -------------------------------------------------- */

static gboolean
equals_slice (Lines *input, GPtrArray *source, GPtrArray *target, guint start)
{
  if (start + target->len > source->len)
    return FALSE;
  for (guint offset = 0; offset < target->len; offset++)
    if (!line_is (input, source, start + offset, target->pdata[offset]))
      return FALSE;
  return TRUE;
}

/* Exact, then right-trimmed (fuzz 1), then trimmed (fuzz 100); -1 when
 * nowhere. */
static int
find_context_core (Lines *input, GPtrArray *context, guint start)
{
  static const guint fuzz[] = { 0, 1, 100 };
  Lines wanted = { g_ptr_array_ref (context), NULL, NULL, 0 };
  int found = -1;

  if (context->len == 0)
    found = start;
  for (guint pass = 0; found == -1 && pass < G_N_ELEMENTS (fuzz); pass++)
    {
      GPtrArray *lines = lines_mapped (input, fuzz[pass]);
      GPtrArray *target = lines_mapped (&wanted, fuzz[pass]);

      for (guint i = start;
           found == -1 && i < lines->len && !over_budget (input); i++)
        if (equals_slice (input, lines, target, i))
          found = i;
    }
  lines_clear (&wanted);
  return found;
}

/* An end-of-file section is first looked for at the end. */
static int
find_context (Lines *input, GPtrArray *context, guint start, gboolean eof)
{
  if (eof)
    {
      guint end_start =
        input->lines->len > context->len ? input->lines->len - context->len : 0;
      int found = find_context_core (input, context, end_start);

      if (found != -1)
        return found;
    }
  return find_context_core (input, context, start);
}

/* ---- Update ------------------------------------------------------------ */

/* Not the reference's: it compares for as long as it takes. */
static gboolean
budget_error (GError **error, guint cursor)
{
  return set_error (error,
                    "Invalid Context %u: too many lines to compare; use "
                    "fewer sections with fewer, more distinctive lines",
                    cursor);
}

static gboolean
parse_section (Parser *parser,
               Lines *input,
               guint *cursor,
               GPtrArray *chunks,
               GError **error)
{
  g_autoptr (GPtrArray) anchors = NULL;
  g_auto (Section) section = { 0 };
  gboolean has_anchor;
  int found;

  anchors = read_anchors (parser, &has_anchor);
  if (!has_anchor && *cursor != 0)
    return set_error (error, "Invalid Line:\n%s", current_line (parser));
  for (guint i = 0; i < anchors->len; i++)
    if (!advance_to_anchor (input, anchors->pdata[i], i == 0, cursor) &&
        (anchors->len >= 2 || over_budget (input)))
      return over_budget (input)
               ? budget_error (error, *cursor)
               : set_error (error, "Invalid Anchor %u:\n%s", *cursor,
                            (char *) anchors->pdata[i]);

  if (!read_section (parser->lines, parser->index, &section, error))
    return FALSE;
  found = find_context (input, section.context, *cursor, section.eof);
  if (found == -1 && over_budget (input))
    return budget_error (error, *cursor);
  if (found == -1)
    {
      g_autofree char *text = join_lines (section.context, "\n");

      return set_error (error,
                        section.eof ? "Invalid EOF Context %u:\n%s"
                                    : "Invalid Context %u:\n%s",
                        *cursor, text);
    }
  *cursor = found + section.context->len;
  parser->index = section.end_index;
  for (guint i = 0; i < section.chunks->len; i++)
    {
      Chunk *chunk = section.chunks->pdata[i];

      g_ptr_array_add (chunks, chunk_new (chunk->orig_index + found,
                                          chunk->del_lines, chunk->ins_lines));
    }
  return TRUE;
}

static char *
apply_chunks (GPtrArray *orig_lines,
              GPtrArray *chunks,
              const char *newline,
              GError **error)
{
  g_autoptr (GPtrArray) dest = g_ptr_array_new ();
  guint cursor = 0;

  for (guint i = 0; i < chunks->len; i++)
    {
      Chunk *chunk = chunks->pdata[i];

      if (chunk->orig_index > orig_lines->len)
        {
          set_error (error, "applyDiff: chunk.origIndex %u > input length %u",
                     chunk->orig_index, orig_lines->len);
          return NULL;
        }
      if (cursor > chunk->orig_index)
        {
          set_error (error, "applyDiff: overlapping chunk at %u (cursor %u)",
                     chunk->orig_index, cursor);
          return NULL;
        }
      for (; cursor < chunk->orig_index; cursor++)
        g_ptr_array_add (dest, orig_lines->pdata[cursor]);
      for (guint j = 0; j < chunk->ins_lines->len; j++)
        g_ptr_array_add (dest, chunk->ins_lines->pdata[j]);
      cursor += chunk->del_lines->len;
    }
  for (; cursor < orig_lines->len; cursor++)
    g_ptr_array_add (dest, orig_lines->pdata[cursor]);
  return join_lines (dest, newline);
}

static char *
apply_update (Parser *parser,
              const char *input,
              const char *newline,
              GError **error)
{
  g_autofree char *normalized = replace_crlf (input);
  g_autoptr (GPtrArray) chunks =
    g_ptr_array_new_with_free_func ((GDestroyNotify) chunk_free);
  Lines lines = { split_lf_in_place (normalized), NULL, NULL, 0 };
  guint cursor = 0;
  char *result = NULL;

  while (!is_done (parser, end_section_markers))
    if (!parse_section (parser, &lines, &cursor, chunks, error))
      goto out;
  result = apply_chunks (lines.lines, chunks, newline, error);
out:
  lines_clear (&lines);
  return result;
}

char *
agents_apply_diff (const char *input,
                   const char *diff,
                   AgentsApplyDiffMode mode,
                   GError **error)
{
  const char *newline;
  g_autoptr (GPtrArray) lines = NULL;
  Parser parser;

  g_return_val_if_fail (input != NULL, NULL);
  g_return_val_if_fail (diff != NULL, NULL);

  newline = detect_newline (input, diff, mode);
  lines = diff_lines (diff);
  g_ptr_array_add (lines, g_strdup (END_PATCH));
  parser = (Parser){ lines, 0 };
  if (mode == AGENTS_APPLY_DIFF_CREATE)
    return parse_create (&parser, newline, error);
  return apply_update (&parser, input, newline, error);
}
