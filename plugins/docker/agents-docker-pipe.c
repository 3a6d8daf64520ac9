/* agents-docker-pipe.c - a stream fed by a producer thread
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agents-docker-pipe.h"

/* A socket pair rather than a pipe: GSocket sends with MSG_NOSIGNAL, so
 * a reader that goes away gives the producer EPIPE, not SIGPIPE. */

#define AGENTS_TYPE_DOCKER_PIPE_STREAM (agents_docker_pipe_stream_get_type ())
G_DECLARE_FINAL_TYPE (AgentsDockerPipeStream,
                      agents_docker_pipe_stream,
                      AGENTS,
                      DOCKER_PIPE_STREAM,
                      GInputStream)

typedef struct
{
  AgentsDockerPipeFunc func;
  gpointer data;
  GDestroyNotify destroy;
  GIOStream *writer;
  GCancellable *cancellable;
  GError *error;
} Producer;

struct _AgentsDockerPipeStream
{
  GInputStream parent_instance;

  GIOStream *reader;
  GThread *thread;
  Producer *producer;
};

G_DEFINE_FINAL_TYPE (AgentsDockerPipeStream,
                     agents_docker_pipe_stream,
                     G_TYPE_INPUT_STREAM)

static void
producer_free (Producer *producer)
{
  if (producer->destroy != NULL)
    producer->destroy (producer->data);
  g_clear_object (&producer->writer);
  g_clear_object (&producer->cancellable);
  g_clear_error (&producer->error);
  g_free (producer);
}

static gpointer
producer_run (gpointer user_data)
{
  Producer *producer = user_data;
  GOutputStream *out = g_io_stream_get_output_stream (producer->writer);

  if (!producer->func (out, producer->data, producer->cancellable,
                       &producer->error) &&
      producer->error == NULL)
    g_set_error_literal (&producer->error, G_IO_ERROR, G_IO_ERROR_FAILED,
                         "the stream's producer failed");
  /* Closing the writing end is what gives the reader its end of data. */
  g_io_stream_close (producer->writer, NULL, NULL);
  return NULL;
}

/* Waits for the producer; moves its error, if any, to @error. */
static gboolean
pipe_join (AgentsDockerPipeStream *self, GError **error)
{
  gboolean ok;

  if (self->thread == NULL)
    return TRUE;
  g_thread_join (g_steal_pointer (&self->thread));
  ok = self->producer->error == NULL;
  if (!ok)
    g_propagate_error (error, g_steal_pointer (&self->producer->error));
  return ok;
}

static gssize
pipe_read (GInputStream *stream,
           void *buffer,
           gsize count,
           GCancellable *cancellable,
           GError **error)
{
  AgentsDockerPipeStream *self = AGENTS_DOCKER_PIPE_STREAM (stream);
  gssize n = g_input_stream_read (g_io_stream_get_input_stream (self->reader),
                                  buffer, count, cancellable, error);

  if (n == 0 && !pipe_join (self, error))
    return -1;
  return n;
}

static void
pipe_stop (AgentsDockerPipeStream *self)
{
  if (self->thread == NULL)
    return;
  g_cancellable_cancel (self->producer->cancellable);
  g_io_stream_close (self->reader, NULL, NULL);
  pipe_join (self, NULL);
}

static gboolean
pipe_close (GInputStream *stream, GCancellable *cancellable, GError **error)
{
  AgentsDockerPipeStream *self = AGENTS_DOCKER_PIPE_STREAM (stream);

  pipe_stop (self);
  return g_io_stream_close (self->reader, cancellable, error);
}

static void
agents_docker_pipe_stream_finalize (GObject *object)
{
  AgentsDockerPipeStream *self = AGENTS_DOCKER_PIPE_STREAM (object);

  pipe_stop (self);
  g_clear_object (&self->reader);
  g_clear_pointer (&self->producer, producer_free);

  G_OBJECT_CLASS (agents_docker_pipe_stream_parent_class)->finalize (object);
}

static void
agents_docker_pipe_stream_class_init (AgentsDockerPipeStreamClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GInputStreamClass *stream_class = G_INPUT_STREAM_CLASS (klass);

  object_class->finalize = agents_docker_pipe_stream_finalize;
  stream_class->read_fn = pipe_read;
  stream_class->close_fn = pipe_close;
}

static void
agents_docker_pipe_stream_init (AgentsDockerPipeStream *self)
{
}

static GIOStream *
socket_stream (int fd, GError **error)
{
  g_autoptr (GSocket) socket = g_socket_new_from_fd (fd, error);

  if (socket == NULL)
    {
      close (fd);
      return NULL;
    }
  return G_IO_STREAM (g_socket_connection_factory_create_connection (socket));
}

GInputStream *
agents_docker_pipe_stream_new (AgentsDockerPipeFunc func,
                               gpointer data,
                               GDestroyNotify destroy,
                               GError **error)
{
  g_autoptr (AgentsDockerPipeStream) self = NULL;
  Producer *producer = g_new0 (Producer, 1);
  int fds[2];

  producer->func = func;
  producer->data = data;
  producer->destroy = destroy;
  producer->cancellable = g_cancellable_new ();
  self = g_object_new (AGENTS_TYPE_DOCKER_PIPE_STREAM, NULL);
  self->producer = producer;

  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0)
    {
      int errsv = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   "socketpair: %s", g_strerror (errsv));
      return NULL;
    }
  self->reader = socket_stream (fds[0], error);
  producer->writer = socket_stream (fds[1], error);
  if (self->reader == NULL || producer->writer == NULL)
    return NULL;
  self->thread = g_thread_new ("agents-docker-pipe", producer_run, producer);
  return G_INPUT_STREAM (g_steal_pointer (&self));
}
