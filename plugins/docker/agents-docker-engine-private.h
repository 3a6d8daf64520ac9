/* agents-docker-engine-private.h - what the engine files share
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <libsoup/soup.h>

#include "agents-docker-engine.h"

G_BEGIN_DECLS

#define AGENTS_DOCKER_MAX_ENGINE_MESSAGE 1024

struct _AgentsDockerEngine
{
  GObject parent_instance;

  char *endpoint;
  /* "http://docker" for a unix socket, else "http(s)://host:port". */
  char *base_uri;
  SoupSession *session;
  /* For agents_docker_engine_hijack(), which connects by itself: the
   * address, and with TLS the CAs (NULL: the system's) and certificate. */
  GSocketConnectable *connectable;
  gboolean tls;
  GTlsDatabase *tls_database;
  GTlsCertificate *client_certificate;

  /* Serializes negotiation; server_api_version is set once under it. */
  GMutex lock;
  char *server_api_version;
};
/* Sets @error to a docker error carrying @context (floating, consumed). */
void agents_docker_error_set (GError **error,
                              int code,
                              GVariant *context,
                              const char *format,
                              ...) G_GNUC_PRINTF (4, 5);

/* Error contexts: @method, @path, @engine_message and @api_version may be
 * NULL and @status 0 when they do not apply. */
GVariant *agents_docker_engine_context (AgentsDockerEngine *self,
                                        const char *method,
                                        const char *path,
                                        guint status,
                                        const char *engine_message,
                                        const char *api_version);
void agents_docker_engine_http_error_full (AgentsDockerEngine *self,
                                           const char *method,
                                           const char *path,
                                           guint status,
                                           const char *reason_phrase,
                                           GBytes *body,
                                           GError **error);
void agents_docker_engine_http_error (AgentsDockerEngine *self,
                                      SoupMessage *message,
                                      const char *path,
                                      GBytes *body,
                                      GError **error);

/* A request to @path, with @versioned under the API version's base. */
SoupMessage *agents_docker_engine_new_message (AgentsDockerEngine *self,
                                               const char *method,
                                               const char *path,
                                               gboolean versioned,
                                               GError **error);
/* Negotiates the API version, then makes a versioned request. */
SoupMessage *agents_docker_engine_new_call (AgentsDockerEngine *self,
                                            const char *method,
                                            const char *path,
                                            GCancellable *cancellable,
                                            GError **error);
GInputStream *agents_docker_engine_send_message (AgentsDockerEngine *self,
                                                 SoupMessage *message,
                                                 const char *path,
                                                 GCancellable *cancellable,
                                                 GError **error);
/* Reads the whole (JSON or error) answer to @message. */
GBytes *agents_docker_engine_read_answer (AgentsDockerEngine *self,
                                          SoupMessage *message,
                                          GInputStream *stream,
                                          const char *path,
                                          GCancellable *cancellable,
                                          GError **error);

G_END_DECLS
