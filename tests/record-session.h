/* record-session.h - the reference tests' "Python session": a minimal
 * session that records the generic layer's calls (exec, write, mkdir)
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <agents.h>

G_BEGIN_DECLS

#define RECORD_TYPE_SESSION (record_session_get_type ())
G_DECLARE_FINAL_TYPE (RecordSession, record_session, RECORD, SESSION, GObject)

struct _RecordSession
{
  GObject parent_instance;

  AgentsSandboxSessionState *state;

  GPtrArray *rules;    /* of RecordRule: scripted exec answers */
  GPtrArray *commands; /* of char*: argv joined with spaces, in call order */
  GHashTable *files;   /* path -> contents written */
  GPtrArray *writes;   /* of char*: written paths, in call order */
  GPtrArray *events;   /* of char*: "start PATH" / "end PATH" of writes */
};

RecordSession *record_session_new (AgentsManifest *manifest);

/* Commands whose joined argv starts with @prefix answer @status, @out and
 * @err (the first matching rule wins; unmatched commands succeed empty). */
void record_session_answer (RecordSession *self,
                            const char *prefix,
                            int status,
                            const char *out,
                            const char *err);

/* Whether a recorded command equals @command. */
gboolean record_session_ran (RecordSession *self, const char *command);
/* The index of the first recorded command starting with @prefix, or -1. */
int record_session_find (RecordSession *self, const char *prefix);
/* The contents written at @path, or NULL. */
const char *record_session_written (RecordSession *self, const char *path);

G_END_DECLS
