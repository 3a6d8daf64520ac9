/* agents-shell-format.c - what exec_command and write_stdin answer
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Wire format the model reads (and is trained on): not translated, and
 * numbers printed in the C locale whatever the process's locale.
 */

#include "config.h"

#include <string.h>

#include "agents-shell-format-private.h"

static char *
format_fixed (double value, const char *format)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  return g_strdup (g_ascii_formatd (buffer, sizeof buffer, format, value));
}

char *
agents_shell_format_response (const char *chunk_id,
                              double wall_seconds,
                              int exit_code,
                              gint64 session_id,
                              gint64 original_token_count,
                              const char *output)
{
  g_autofree char *wall = format_fixed (wall_seconds, "%.4f");
  GString *text = g_string_new (NULL);

  g_string_append_printf (text, "Chunk ID: %s\nWall time: %s seconds\n",
                          chunk_id, wall);
  if (exit_code >= 0)
    g_string_append_printf (text, "Process exited with code %d\n", exit_code);
  if (session_id >= 0)
    g_string_append_printf (
      text, "Process running with session ID %" G_GINT64_FORMAT "\n",
      session_id);
  if (original_token_count >= 0)
    g_string_append_printf (text,
                            "Original token count: %" G_GINT64_FORMAT "\n",
                            original_token_count);
  g_string_append (text, "Output:\n");
  g_string_append (text, output ? output : "");
  return g_string_free (text, FALSE);
}

char *
agents_shell_new_chunk_id (void)
{
  g_autofree char *uuid = g_uuid_string_random ();
  GString *hex = g_string_new (NULL);

  for (const char *p = uuid; *p != '\0' && hex->len < 6; p++)
    if (*p != '-')
      g_string_append_c (hex, g_ascii_tolower (*p));
  return g_string_free (hex, FALSE);
}

char *
agents_shell_join_output (const char *out,
                          gsize out_len,
                          const char *err,
                          gsize err_len)
{
  g_autofree char *stdout_text = g_utf8_make_valid (out ? out : "", out_len);
  g_autofree char *stderr_text = g_utf8_make_valid (err ? err : "", err_len);

  if (stdout_text[0] != '\0' && stderr_text[0] != '\0')
    return g_strconcat (stdout_text,
                        g_str_has_suffix (stdout_text, "\n") ? "" : "\n",
                        stderr_text, NULL);
  return g_strdup (stdout_text[0] != '\0' ? stdout_text : stderr_text);
}

char *
agents_shell_timeout_message (double seconds)
{
  g_autofree char *shown = format_fixed (seconds, "%.3f");

  return g_strdup_printf ("Command timed out after %s seconds.", shown);
}
