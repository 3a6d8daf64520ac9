/* agents-pytext.c - Python's str line and whitespace rules
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "agents-pytext-private.h"

gboolean
agents_py_isspace (gunichar c)
{
  switch (c)
    {
    case '\t':
    case '\n':
    case 0x0b:
    case 0x0c:
    case '\r':
    case 0x1c:
    case 0x1d:
    case 0x1e:
    case 0x1f:
    case ' ':
    case 0x85:
    case 0xa0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202f:
    case 0x205f:
    case 0x3000:
      return TRUE;
    default:
      return c >= 0x2000 && c <= 0x200a;
    }
}

static gboolean
is_line_break (gunichar c)
{
  switch (c)
    {
    case '\n':
    case '\r':
    case 0x0b:
    case 0x0c:
    case 0x1c:
    case 0x1d:
    case 0x1e:
    case 0x85:
    case 0x2028:
    case 0x2029:
      return TRUE;
    default:
      return FALSE;
    }
}

GPtrArray *
agents_py_splitlines (const char *text)
{
  GPtrArray *lines = g_ptr_array_new_with_free_func (g_free);
  const char *start = text;
  const char *p = text;

  while (*p != '\0')
    {
      gunichar c = g_utf8_get_char (p);
      const char *next = g_utf8_next_char (p);

      if (!is_line_break (c))
        {
          p = next;
          continue;
        }
      g_ptr_array_add (lines, g_strndup (start, p - start));
      if (c == '\r' && *next == '\n')
        next++;
      p = start = next;
    }
  if (p != start)
    g_ptr_array_add (lines, g_strndup (start, p - start));
  return lines;
}

const char *
agents_py_lstrip_start (const char *text)
{
  const char *p = text;

  while (*p != '\0' && agents_py_isspace (g_utf8_get_char (p)))
    p = g_utf8_next_char (p);
  return p;
}

/* The end of @text once trailing whitespace is cut. */
static const char *
rstrip_end (const char *text)
{
  const char *end = text + strlen (text);

  while (end > text)
    {
      const char *prev = g_utf8_prev_char (end);

      if (!agents_py_isspace (g_utf8_get_char (prev)))
        break;
      end = prev;
    }
  return end;
}

char *
agents_py_rstrip (const char *text)
{
  return g_strndup (text, rstrip_end (text) - text);
}

char *
agents_py_strip (const char *text)
{
  const char *start = agents_py_lstrip_start (text);

  return g_strndup (start, rstrip_end (start) - start);
}
