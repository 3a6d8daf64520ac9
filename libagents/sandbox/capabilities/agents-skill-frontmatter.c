/* agents-skill-frontmatter.c - the metadata block of SKILL.md
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "agents-pytext-private.h"
#include "agents-skill-frontmatter-private.h"

static gboolean
is_blank (const char *line)
{
  return *agents_py_lstrip_start (line) == '\0';
}

static gboolean
starts_with_space (const char *line)
{
  return *line != '\0' && agents_py_isspace (g_utf8_get_char (line));
}

static gboolean
is_fence (const char *line)
{
  g_autofree char *stripped = agents_py_strip (line);

  return g_str_equal (stripped, "---");
}

/* The indent of @line in characters. */
static glong
indent_of (const char *line)
{
  return g_utf8_pointer_to_offset (line, agents_py_lstrip_start (line));
}

static char *
literal_or_folded (GPtrArray *continuation, gboolean folded)
{
  g_autoptr (GPtrArray) block = g_ptr_array_new ();
  GString *value = g_string_new (NULL);
  glong indent = G_MAXLONG;
  guint blank_lines = 0;

  for (guint i = 0; i < continuation->len; i++)
    if (!is_blank (continuation->pdata[i]))
      indent = MIN (indent, indent_of (continuation->pdata[i]));
  if (indent == G_MAXLONG)
    indent = 0;
  for (guint i = 0; i < continuation->len; i++)
    {
      const char *line = continuation->pdata[i];

      g_ptr_array_add (
        block,
        (gpointer) (is_blank (line) ? ""
                                    : g_utf8_offset_to_pointer (line, indent)));
    }
  while (block->len > 0 && *(char *) block->pdata[block->len - 1] == '\0')
    g_ptr_array_remove_index (block, block->len - 1);

  for (guint i = 0; i < block->len; i++)
    {
      const char *line = block->pdata[i];

      if (!folded)
        {
          g_string_append_printf (value, "%s%s", i > 0 ? "\n" : "", line);
          continue;
        }
      if (*line == '\0')
        {
          blank_lines++;
          continue;
        }
      if (value->len > 0)
        {
          if (blank_lines > 0)
            for (guint j = 0; j < blank_lines; j++)
              g_string_append_c (value, '\n');
          else
            g_string_append_c (value, ' ');
        }
      g_string_append (value, line);
      blank_lines = 0;
    }
  if (block->len > 0)
    g_string_append_c (value, '\n');
  return g_string_free (value, FALSE);
}

static char *
plain_value (const char *first, GPtrArray *continuation)
{
  GString *value = g_string_new (first);
  g_autofree char *joined = NULL;
  gsize len;

  for (guint i = 0; i < continuation->len; i++)
    {
      g_autofree char *stripped = agents_py_strip (continuation->pdata[i]);

      if (*stripped != '\0' && *stripped != '#')
        g_string_append_printf (value, " %s", stripped);
    }
  joined = agents_py_strip (value->str);
  g_string_free (value, TRUE);
  len = strlen (joined);
  if (len >= 2 && joined[0] == joined[len - 1] &&
      (joined[0] == '\'' || joined[0] == '"'))
    return g_strndup (joined + 1, len - 2);
  return g_steal_pointer (&joined);
}

GHashTable *
agents_skill_parse_frontmatter (const char *markdown)
{
  GHashTable *metadata =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr (GPtrArray) lines = agents_py_splitlines (markdown);
  guint end = 0;

  if (lines->len == 0 || !is_fence (lines->pdata[0]))
    return metadata;
  for (guint i = 1; i < lines->len && end == 0; i++)
    if (is_fence (lines->pdata[i]))
      end = i;
  if (end == 0)
    return metadata;

  for (guint index = 1; index < end;)
    {
      const char *line = lines->pdata[index];
      g_autofree char *stripped = agents_py_strip (line);
      const char *colon = strchr (line, ':');
      g_autofree char *key = NULL;
      g_autofree char *first = NULL;
      g_autoptr (GPtrArray) continuation = g_ptr_array_new ();
      guint next = index + 1;

      if (*stripped == '\0' || *stripped == '#' ||
          strchr (stripped, ':') == NULL || starts_with_space (line))
        {
          index++;
          continue;
        }
      {
        g_autofree char *raw_key = g_strndup (line, colon - line);

        key = agents_py_strip (raw_key);
      }
      first = agents_py_strip (colon + 1);
      if (*key == '\0')
        {
          index++;
          continue;
        }
      for (; next < end; next++)
        {
          const char *next_line = lines->pdata[next];

          if (!is_blank (next_line) && !starts_with_space (next_line))
            break;
          g_ptr_array_add (continuation, (gpointer) next_line);
        }
      g_hash_table_replace (
        metadata, g_steal_pointer (&key),
        g_str_equal (first, ">") || g_str_equal (first, "|")
          ? literal_or_folded (continuation, g_str_equal (first, ">"))
          : plain_value (first, continuation));
      index = next;
    }
  return metadata;
}
