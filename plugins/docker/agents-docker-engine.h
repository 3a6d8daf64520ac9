/* agents-docker-engine.h - a connection to a Docker Engine API endpoint
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Private to the docker plugin. */

/* The oldest Engine API the plugin speaks; requests use this version. */
#define AGENTS_DOCKER_MIN_API_VERSION "1.41"

#define AGENTS_DOCKER_ERROR (agents_docker_error_quark ())

/**
 * AgentsDockerError:
 * @AGENTS_DOCKER_ERROR_UNREACHABLE: the endpoint could not be reached
 * @AGENTS_DOCKER_ERROR_API_VERSION: the engine is older than
 *   %AGENTS_DOCKER_MIN_API_VERSION or did not say its version
 * @AGENTS_DOCKER_ERROR_NOT_FOUND: the engine answered 404
 * @AGENTS_DOCKER_ERROR_CONFLICT: the engine answered 409
 * @AGENTS_DOCKER_ERROR_HTTP: the engine answered another error status
 * @AGENTS_DOCKER_ERROR_PROTOCOL: the answer could not be understood
 * @AGENTS_DOCKER_ERROR_INVALID_HOST: `DOCKER_HOST` (or the host given)
 *   or the TLS settings are malformed
 * @AGENTS_DOCKER_ERROR_TLS: the TLS handshake with the engine failed (a
 *   certificate refused on either side)
 *
 * Errors of the engine connection. Every error carries an `a{sv}`
 * context (agents_sandbox_error_get_context() reads it) with at least
 * `endpoint` (s); HTTP errors add `status` (i), `method` (s), `path` (s)
 * and `engine_message` (s, the engine's own `message`), API_VERSION
 * errors `api_version` (s). The errors of
 * agents_docker_engine_read_multiplexed(), which knows no endpoint,
 * carry `reason` (s) instead.
 */
typedef enum
{
  AGENTS_DOCKER_ERROR_UNREACHABLE,
  AGENTS_DOCKER_ERROR_API_VERSION,
  AGENTS_DOCKER_ERROR_NOT_FOUND,
  AGENTS_DOCKER_ERROR_CONFLICT,
  AGENTS_DOCKER_ERROR_HTTP,
  AGENTS_DOCKER_ERROR_PROTOCOL,
  AGENTS_DOCKER_ERROR_INVALID_HOST,
  AGENTS_DOCKER_ERROR_TLS,
} AgentsDockerError;

GQuark agents_docker_error_quark (void);

#define AGENTS_TYPE_DOCKER_ENGINE (agents_docker_engine_get_type ())

G_DECLARE_FINAL_TYPE (
  AgentsDockerEngine, agents_docker_engine, AGENTS, DOCKER_ENGINE, GObject)

/* @host: "unix:///path", "tcp://host:port", or NULL for $DOCKER_HOST and
 * then unix:///var/run/docker.sock. With tcp://, $DOCKER_TLS_VERIFY
 * (non-empty) turns on TLS with ca.pem, cert.pem and key.pem from
 * $DOCKER_CERT_PATH (default ~/.docker); "https://" implies TLS too.
 * Does not connect. */
AgentsDockerEngine *agents_docker_engine_new (const char *host, GError **error);

/* The endpoint as given or defaulted, for messages and state: e.g.
 * "unix:///var/run/docker.sock". */
const char *agents_docker_engine_get_endpoint (AgentsDockerEngine *self);

/* Every call below blocks and may be made from any thread (libsoup 3.2
 * sessions are thread safe); the session layer runs them in
 * g_task_run_in_thread(). */

/* Asks GET /version once (later calls return the cached outcome) and
 * fails with API_VERSION if the engine's ApiVersion is older than
 * %AGENTS_DOCKER_MIN_API_VERSION. The other calls negotiate first. */
gboolean agents_docker_engine_negotiate (AgentsDockerEngine *self,
                                         GCancellable *cancellable,
                                         GError **error);
/* The engine's own ApiVersion after a successful negotiation, or NULL. */
const char *
agents_docker_engine_get_server_api_version (AgentsDockerEngine *self);

/* Sends @method @path (relative to the versioned base, e.g.
 * "/containers/create?name=x"; callers escape query values) with @body
 * as JSON (or no body) and returns the parsed JSON answer, a JsonNode
 * of type NULL for an empty answer, or a string node for an answer that
 * is not JSON by its Content-Type (`/_ping`'s "OK"). A status >= 400 is
 * an error (see AgentsDockerError); @status_out receives the status when
 * not NULL (0 when no answer came). Answers over 16 MiB are a PROTOCOL
 * error. */
JsonNode *agents_docker_engine_call_json (AgentsDockerEngine *self,
                                          const char *method,
                                          const char *path,
                                          JsonNode *body,
                                          guint *status_out,
                                          GCancellable *cancellable,
                                          GError **error);

/* Turns @cause (transfer full), a failure of a connection of this engine
 * (a hijacked one, say), into the engine's UNREACHABLE error naming the
 * endpoint; a cancellation stays one. */
void agents_docker_engine_set_transport_error (AgentsDockerEngine *self,
                                               const char *method,
                                               const char *path,
                                               GError *cause,
                                               GError **error);

/* HEAD @path on the archive endpoint ("/containers/ID/archive?path=…"):
 * the decoded X-Docker-Container-Path-Stat header, a JSON object with
 * name, size, mode (Go's os.FileMode bits: 1<<31 is a directory, 1<<27
 * a symlink) and linkTarget. A missing path is a NOT_FOUND error. */
JsonNode *agents_docker_engine_stat_path (AgentsDockerEngine *self,
                                          const char *path,
                                          GCancellable *cancellable,
                                          GError **error);

/* Like agents_docker_engine_call_json() but streams: @body (may be NULL)
 * is sent with @content_type and @body_length (-1: chunked), and the
 * answer's body is returned as a stream to read to its end (blocking
 * reads from any one thread). @cancellable also interrupts the reads. */
GInputStream *agents_docker_engine_call_stream (AgentsDockerEngine *self,
                                                const char *method,
                                                const char *path,
                                                GInputStream *body,
                                                gint64 body_length,
                                                const char *content_type,
                                                GCancellable *cancellable,
                                                GError **error);

/* Sends POST @path (relative to the versioned base, e.g.
 * "/exec/ID/start") with the JSON text @body on a connection of its own
 * and has the engine hand that connection over ("Upgrade: tcp", as
 * `docker exec -i` does). Reads from the returned stream give the exec's
 * multiplexed output (agents_docker_engine_read_multiplexed()), writes go
 * to its stdin, and shutting down the socket's write side ends the
 * stdin. The stream is a GSocketConnection, or a GTlsConnection over
 * one. Errors as for agents_docker_engine_call_json(). */
GIOStream *agents_docker_engine_hijack (AgentsDockerEngine *self,
                                        const char *path,
                                        const char *body,
                                        GCancellable *cancellable,
                                        GError **error);

/* Reads an exec's multiplexed stdout/stderr stream (8-byte frame
 * headers: stream 1 or 2, three zero bytes, big-endian length) to its end,
 * appending the frames to @out and @err (either may be NULL to drop that
 * stream; stdin frames count as stdout). Bytes past @limit per stream are
 * read and dropped, and *@truncated (may be NULL; FALSE otherwise) is
 * set. A malformed header, or an end in the middle of a frame, is a
 * PROTOCOL error. Binary data passes through untouched. */
gboolean agents_docker_engine_read_multiplexed (GInputStream *in,
                                                GByteArray *out,
                                                GByteArray *err,
                                                gsize limit,
                                                gboolean *truncated,
                                                GCancellable *cancellable,
                                                GError **error);

/* Query helper: @value escaped for a query string. */
char *agents_docker_engine_escape (const char *value);

G_END_DECLS
