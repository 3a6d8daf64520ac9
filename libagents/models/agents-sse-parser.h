/* agents-sse-parser.h - an incremental parser of server-sent events
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Private: the text/event-stream framing (WHATWG HTML, "Server-sent
 * events"), fed with byte chunks as they arrive. */
typedef struct _AgentsSseParser AgentsSseParser;

/* Called for each complete event. @event is the `event:` field, %NULL when
 * absent; @data is the `data:` lines joined by "\n", NUL-terminated,
 * @data_len bytes. Returning %FALSE (with @error set) stops the parse. */
typedef gboolean (*AgentsSseEventFunc) (const char *event,
                                        const char *data,
                                        gsize data_len,
                                        gpointer user_data,
                                        GError **error);

AgentsSseParser *agents_sse_parser_new (gsize max_event_size,
                                        AgentsSseEventFunc func,
                                        gpointer user_data);
void agents_sse_parser_free (AgentsSseParser *self);
gboolean agents_sse_parser_feed (AgentsSseParser *self,
                                 const char *bytes,
                                 gsize len,
                                 GError **error);
gboolean agents_sse_parser_has_partial_event (AgentsSseParser *self);
guint64 agents_sse_parser_get_n_events (AgentsSseParser *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AgentsSseParser, agents_sse_parser_free)

G_END_DECLS
