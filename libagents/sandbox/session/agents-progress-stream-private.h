/* agents-progress-stream-private.h - byte progress of a workspace stream
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-sandbox-session.h"

G_BEGIN_DECLS

#define AGENTS_TYPE_PROGRESS_INPUT_STREAM \
  (agents_progress_input_stream_get_type ())
G_DECLARE_FINAL_TYPE (AgentsProgressInputStream,
                      agents_progress_input_stream,
                      AGENTS,
                      PROGRESS_INPUT_STREAM,
                      GFilterInputStream)

GInputStream *
agents_progress_input_stream_new (GInputStream *base,
                                  AgentsSandboxSession *session,
                                  const char *operation,
                                  gint64 total) G_GNUC_WARN_UNUSED_RESULT;

void agents_progress_input_stream_report_end (GInputStream *stream);

gint64 agents_progress_stream_size (GInputStream *stream);

void agents_progress_input_stream_hash (GInputStream *stream);
char *agents_progress_input_stream_dup_sha256 (GInputStream *stream);

G_END_DECLS
