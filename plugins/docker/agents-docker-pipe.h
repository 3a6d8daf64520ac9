/* agents-docker-pipe.h - a stream fed by a producer thread
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Writes everything to @out; returns FALSE with @error on failure. */
typedef gboolean (*AgentsDockerPipeFunc) (GOutputStream *out,
                                          gpointer data,
                                          GCancellable *cancellable,
                                          GError **error);

/* Runs @func on a thread of its own, writing into a socket pair, and
 * returns the reading end. At the end of the data the stream reports the
 * producer's error if it failed, so a truncated stream never passes for
 * a whole one; closing or dropping the stream early cancels the producer
 * and waits for it. @destroy frees @data once the producer is done. */
GInputStream *agents_docker_pipe_stream_new (AgentsDockerPipeFunc func,
                                             gpointer data,
                                             GDestroyNotify destroy,
                                             GError **error);

G_END_DECLS
