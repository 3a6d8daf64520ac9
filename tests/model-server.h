/* model-server.h - a loopback OpenAI-style server replaying recorded streams
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct _AgentsTestModelServer AgentsTestModelServer;

/* A SoupServer on 127.0.0.1, random port, on the thread-default context.
 * @data_dir holds the files that exchanges name. */
AgentsTestModelServer *agents_test_model_server_new (const char *data_dir);
void agents_test_model_server_free (AgentsTestModelServer *self);
/* "http://127.0.0.1:PORT/v1" */
const char *agents_test_model_server_get_base_url (AgentsTestModelServer *self);

/* Queues the answer to the next request, a JSON object:
 *   "path": "/v1/responses" (checked),
 *   "expect": FILE of the exact request body JSON (optional),
 *   "auth": the expected Authorization value (optional),
 *   "last_output_contains": text the last tool output must contain,
 *   "status": 200, "headers": {"name": "value"},
 *   "body": FILE replayed byte for byte, or "text": the bytes themselves,
 *   "crlf": true to send every LF as CRLF,
 *   "chunk": N bytes per write (0: all at once), "interval_ms": between writes,
 *   "drop_after": N to close the connection after N bytes,
 *   "never_end": true to keep sending `: ping` comments after the body. */
void agents_test_model_server_add (AgentsTestModelServer *self,
                                   const char *exchange_json);
/* Queues every exchange of a JSON array file. */
void agents_test_model_server_add_file (AgentsTestModelServer *self,
                                        const char *path);
/* How many requests came; the problems found in them, NULL when none. */
guint agents_test_model_server_get_n_requests (AgentsTestModelServer *self);
const char *agents_test_model_server_get_problems (AgentsTestModelServer *self);
/* The body of the request @i (0-based), parsed. */
JsonObject *agents_test_model_server_get_request (AgentsTestModelServer *self,
                                                  guint i);
/* How many answers are still queued. */
guint agents_test_model_server_get_n_pending (AgentsTestModelServer *self);
/* How many streamed answers the server is still sending (never_end ones
 * stop when the client goes away). */
guint agents_test_model_server_get_n_streaming (AgentsTestModelServer *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AgentsTestModelServer,
                               agents_test_model_server_free)

/* Record mode (model-recorder.c): a loopback proxy to @upstream (a base
 * URL such as https://api.openai.com/v1) writing what it answers to
 * @out_dir as cassettes the server above replays (exchanges.json,
 * NNN.sse / NNN.json, NNN.request.json), never credentials. */
typedef struct _AgentsTestModelRecorder AgentsTestModelRecorder;

AgentsTestModelRecorder *agents_test_model_recorder_new (const char *upstream,
                                                         const char *out_dir,
                                                         GError **error);
const char *
agents_test_model_recorder_get_base_url (AgentsTestModelRecorder *self);
guint agents_test_model_recorder_get_n_recorded (AgentsTestModelRecorder *self);
/* Waits for the answers in flight, then stops. */
void agents_test_model_recorder_free (AgentsTestModelRecorder *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AgentsTestModelRecorder,
                               agents_test_model_recorder_free)

G_END_DECLS
