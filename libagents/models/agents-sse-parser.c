/* agents-sse-parser.c - an incremental parser of server-sent events
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "agents-run-error.h"
#include "agents-sse-parser.h"

/* Lines end with LF, CR or CRLF; a chunk may end between the CR and the
 * LF of one line ending, or inside a UTF-8 sequence: only whole lines are
 * interpreted, so a split sequence is whole again before it is looked at.
 * Memory is bounded: the pending line and the event's data together may
 * not exceed max_event_size. */
struct _AgentsSseParser
{
  gsize max_event_size;
  AgentsSseEventFunc func;
  gpointer user_data;

  GString *line; /* the incomplete line of the previous chunks */
  GString *data; /* the event's data lines so far */
  char *event;   /* the event's type, NULL when none */
  gboolean has_data;
  gboolean skip_lf; /* the previous chunk ended with CR */
  guint64 n_events;
};

AgentsSseParser *
agents_sse_parser_new (gsize max_event_size,
                       AgentsSseEventFunc func,
                       gpointer user_data)
{
  AgentsSseParser *self = g_new0 (AgentsSseParser, 1);

  self->max_event_size = max_event_size;
  self->func = func;
  self->user_data = user_data;
  self->line = g_string_new (NULL);
  self->data = g_string_new (NULL);
  return self;
}

void
agents_sse_parser_free (AgentsSseParser *self)
{
  if (self == NULL)
    return;
  g_string_free (self->line, TRUE);
  g_string_free (self->data, TRUE);
  g_free (self->event);
  g_free (self);
}

static gboolean
too_large (AgentsSseParser *self, gsize size, GError **error)
{
  if (size <= self->max_event_size)
    return FALSE;
  agents_run_error_set (error, AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
                        _ ("a server-sent event is larger than the limit of "
                           "%" G_GSIZE_FORMAT " bytes"),
                        self->max_event_size);
  return TRUE;
}

static void
reset_event (AgentsSseParser *self)
{
  g_string_truncate (self->data, 0);
  g_clear_pointer (&self->event, g_free);
  self->has_data = FALSE;
}

static gboolean
dispatch (AgentsSseParser *self, GError **error)
{
  gboolean ok = TRUE;

  if (self->has_data)
    {
      if (!g_utf8_validate_len (self->data->str, self->data->len, NULL))
        {
          agents_run_error_set (error, AGENTS_RUN_ERROR_MODEL_BEHAVIOR, NULL,
                                _ ("a server-sent event is not valid UTF-8"));
          ok = FALSE;
        }
      else
        {
          self->n_events++;
          ok = self->func (self->event, self->data->str, self->data->len,
                           self->user_data, error);
        }
    }
  reset_event (self);
  return ok;
}

static gboolean
field (AgentsSseParser *self,
       const char *name,
       gsize name_len,
       const char *value,
       gsize value_len,
       GError **error)
{
  if (name_len == 4 && memcmp (name, "data", 4) == 0)
    {
      if (too_large (self, self->data->len + value_len + 1, error))
        return FALSE;
      if (self->has_data)
        g_string_append_c (self->data, '\n');
      g_string_append_len (self->data, value, value_len);
      self->has_data = TRUE;
    }
  else if (name_len == 5 && memcmp (name, "event", 5) == 0)
    {
      g_free (self->event);
      self->event = g_strndup (value, value_len);
    }
  /* `id`, `retry` and unknown fields mean nothing to a model stream. */
  return TRUE;
}

static gboolean
line (AgentsSseParser *self, const char *text, gsize len, GError **error)
{
  const char *colon;
  const char *value;
  gsize name_len;

  if (len == 0)
    return dispatch (self, error);
  if (text[0] == ':')
    return TRUE; /* a comment, e.g. a keep-alive `: ping` */
  colon = memchr (text, ':', len);
  if (colon == NULL)
    return field (self, text, len, "", 0, error);
  name_len = colon - text;
  value = colon + 1;
  if (value < text + len && *value == ' ')
    value++;
  return field (self, text, name_len, value, text + len - value, error);
}

/* The first CR or LF: memchr for LF, then for the (rare) CR before it. */
static const char *
find_eol (const char *p, const char *end)
{
  const char *lf = memchr (p, '\n', end - p);
  const char *cr = memchr (p, '\r', (lf ? lf : end) - p);

  return cr ? cr : lf;
}

/* Feeds the next bytes of the stream; events complete in them are
 * dispatched. */
gboolean
agents_sse_parser_feed (AgentsSseParser *self,
                        const char *bytes,
                        gsize len,
                        GError **error)
{
  const char *p = bytes;
  const char *end = bytes + len;

  if (self->skip_lf && p < end)
    {
      if (*p == '\n')
        p++;
      self->skip_lf = FALSE;
    }
  while (p < end)
    {
      const char *eol = find_eol (p, end);
      gboolean ok;

      if (eol == NULL)
        {
          if (too_large (self, self->line->len + (end - p) + self->data->len,
                         error))
            return FALSE;
          g_string_append_len (self->line, p, end - p);
          return TRUE;
        }
      if (self->line->len > 0)
        {
          if (too_large (self, self->line->len + (eol - p) + self->data->len,
                         error))
            return FALSE;
          g_string_append_len (self->line, p, eol - p);
          ok = line (self, self->line->str, self->line->len, error);
          g_string_truncate (self->line, 0);
        }
      else
        ok = line (self, p, eol - p, error);
      if (!ok)
        return FALSE;
      p = eol + 1;
      if (*eol == '\r')
        {
          if (p == end)
            self->skip_lf = TRUE;
          else if (*p == '\n')
            p++;
        }
    }
  return TRUE;
}

/* Whether bytes of an event that was never terminated by a blank line are
 * pending: at the end of the stream they mean it was cut short. */
gboolean
agents_sse_parser_has_partial_event (AgentsSseParser *self)
{
  return self->line->len > 0 || self->has_data;
}

guint64
agents_sse_parser_get_n_events (AgentsSseParser *self)
{
  return self->n_events;
}
