/* agents-compaction-windows.c - context windows by model name
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "agents-compaction-windows-private.h"

/* The reference's table, group by group (a name in a later group would
 * win; none is listed twice). */
static const char *const window_1047576[] = {
  "gpt-5.4",
  "gpt-5.4-2026-03-05",
  "gpt-5.4-pro",
  "gpt-5.4-pro-2026-03-05",
  "gpt-5.5",
  "gpt-5.5-2026-04-23",
  "gpt-5.5-pro",
  "gpt-5.5-pro-2026-04-23",
  "gpt-5.6",
  "gpt-5.6-sol",
  "gpt-5.6-terra",
  "gpt-5.6-luna",
  "gpt-4.1",
  "gpt-4.1-2025-04-14",
  "gpt-4.1-mini",
  "gpt-4.1-mini-2025-04-14",
  "gpt-4.1-nano",
  "gpt-4.1-nano-2025-04-14",
  NULL,
};

static const char *const window_400000[] = {
  "gpt-5",
  "gpt-5-2025-08-07",
  "gpt-5-codex",
  "gpt-5-mini",
  "gpt-5-mini-2025-08-07",
  "gpt-5-nano",
  "gpt-5-nano-2025-08-07",
  "gpt-5-pro",
  "gpt-5-pro-2025-10-06",
  "gpt-5.1",
  "gpt-5.1-2025-11-13",
  "gpt-5.1-codex",
  "gpt-5.1-codex-max",
  "gpt-5.1-codex-mini",
  "gpt-5.2",
  "gpt-5.2-2025-12-11",
  "gpt-5.2-codex",
  "gpt-5.2-pro",
  "gpt-5.2-pro-2025-12-11",
  "gpt-5.3-codex",
  "gpt-5.4-mini",
  "gpt-5.4-mini-2026-03-17",
  "gpt-5.4-nano",
  "gpt-5.4-nano-2026-03-17",
  NULL,
};

static const char *const window_200000[] = {
  "codex-mini-latest",
  "o1",
  "o1-2024-12-17",
  "o1-pro",
  "o1-pro-2025-03-19",
  "o3",
  "o3-2025-04-16",
  "o3-deep-research",
  "o3-deep-research-2025-06-26",
  "o3-mini",
  "o3-mini-2025-01-31",
  "o3-pro",
  "o3-pro-2025-06-10",
  "o4-mini",
  "o4-mini-2025-04-16",
  "o4-mini-deep-research",
  "o4-mini-deep-research-2025-06-26",
  NULL,
};

static const char *const window_128000[] = {
  "gpt-4o",
  "gpt-4o-2024-05-13",
  "gpt-4o-2024-08-06",
  "gpt-4o-2024-11-20",
  "gpt-4o-mini",
  "gpt-4o-mini-2024-07-18",
  "gpt-5-chat-latest",
  "gpt-5.1-chat-latest",
  "gpt-5.2-chat-latest",
  "gpt-5.3-chat-latest",
  NULL,
};

static const struct
{
  const char *const *models;
  gint64 window;
} groups[] = {
  { window_1047576, 1047576 },
  { window_400000, 400000 },
  { window_200000, 200000 },
  { window_128000, 128000 },
};

/* Lowercased, without `openai/`, without `.` and `-`. */
static char *
lookup_key (const char *model)
{
  g_autofree char *lower = g_ascii_strdown (model, -1);
  const char *name = lower;
  GString *key = g_string_new (NULL);

  if (g_str_has_prefix (name, "openai/"))
    name += strlen ("openai/");
  for (const char *p = name; *p != '\0'; p++)
    if (*p != '.' && *p != '-')
      g_string_append_c (key, *p);
  return g_string_free (key, FALSE);
}

static gpointer
build_table (gpointer data)
{
  GHashTable *table =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (groups); i++)
    for (guint j = 0; groups[i].models[j] != NULL; j++)
      g_hash_table_insert (table, lookup_key (groups[i].models[j]),
                           GINT_TO_POINTER ((gint) groups[i].window));
  return table;
}

gint64
agents_compaction_lookup_context_window (const char *model)
{
  static GOnce once = G_ONCE_INIT;
  GHashTable *table = g_once (&once, build_table, NULL);
  g_autofree char *key = NULL;

  if (model == NULL)
    return 0;
  key = lookup_key (model);
  return GPOINTER_TO_INT (g_hash_table_lookup (table, key));
}

char *
agents_compaction_py_repr (const char *text)
{
  char quote = strchr (text, '\'') && !strchr (text, '"') ? '"' : '\'';
  GString *out = g_string_new (NULL);

  g_string_append_c (out, quote);
  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '\\')
        g_string_append (out, "\\\\");
      else if (*p == '\n')
        g_string_append (out, "\\n");
      else if (*p == '\r')
        g_string_append (out, "\\r");
      else if (*p == '\t')
        g_string_append (out, "\\t");
      else if (*p == quote)
        g_string_append_printf (out, "\\%c", quote);
      else
        g_string_append_c (out, *p);
    }
  g_string_append_c (out, quote);
  return g_string_free (out, FALSE);
}
