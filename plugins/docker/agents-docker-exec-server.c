/* agents-docker-exec-server.c - a shell in the container that runs
 * commands without an engine round trip each
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "agents-docker-exec-server.h"

/* The protocol, one request per command, each line ending in "\n":
 *   MARKER        32 hex digits, new for every command
 *   KILL_TOKEN    exported to the command as AGENTS_EXEC_ID
 *   N             the number of arguments
 *   N arguments   "r" + the argument when it has no newline, otherwise
 *                 "e" + the argument with every byte but [A-Za-z0-9]
 *                 written \0ooo, which printf %b decodes
 * The command runs in a subshell with stdin from /dev/null, so it cannot
 * read the requests, and its stdout and stderr in files of the server's
 * own temporary directory; once it exited the shell copies them out,
 * removes them, and writes "\nMARKER STATUS\n" on stdout and
 * "\nMARKER\n" on stderr. What the command left running in the
 * background writes into removed files, never into a later command's
 * output. The command does not know MARKER, so it cannot end its own
 * output early. The server says READY_LINE first, once it has its
 * directory (beside the runtime helpers, in /tmp/.agents-1.0) and the
 * tools it needs. */
#define READY_LINE "agents-exec-server ready\n"
#define SERVER_SCRIPT                                                   \
  "command -v cat >/dev/null && command -v rm >/dev/null && "           \
  "mkdir -p /tmp/.agents-1.0 && "                                       \
  "d=$(mktemp -d /tmp/.agents-1.0/exec.XXXXXX) || exit 97; "            \
  "trap 'rm -rf \"$d\"' EXIT; "                                         \
  "printf 'agents-exec-server ready\\n'; "                              \
  "while IFS= read -r m && IFS= read -r k && IFS= read -r n; do "       \
  "set --; "                                                            \
  "while [ $# -lt \"$n\" ]; do "                                        \
  "IFS= read -r a || exit 0; "                                          \
  "case $a in "                                                         \
  "r*) set -- \"$@\" \"${a#r}\" ;; "                                    \
  "*) a=$(printf '%bx' \"${a#e}\"); set -- \"$@\" \"${a%x}\" ;; "       \
  "esac; done; "                                                        \
  "(AGENTS_EXEC_ID=$k; export AGENTS_EXEC_ID; exec \"$@\") </dev/null " \
  ">\"$d/o\" 2>\"$d/e\"; s=$?; "                                        \
  "[ ! -s \"$d/o\" ] || cat \"$d/o\"; "                                 \
  "[ ! -s \"$d/e\" ] || cat \"$d/e\" >&2; "                             \
  "rm -f \"$d/o\" \"$d/e\"; "                                           \
  "printf '\\n%s %d\\n' \"$m\" \"$s\"; printf '\\n%s\\n' \"$m\" >&2; "  \
  "done"

#define MARKER_LEN 32
/* What is kept past the output limit: enough to see the marker. */
#define TAIL_KEEP (MARKER_LEN + 16)
#define RESYNC_SECONDS 5

struct _AgentsDockerExecServer
{
  GObject parent_instance;

  AgentsDockerEngine *engine;
  char *container_id;

  GMutex lock; /* held while a command runs */
  GIOStream *connection;
  gboolean broken;
  char *abandoned_marker; /* of a cancelled command still to drain */
};

G_DEFINE_FINAL_TYPE (AgentsDockerExecServer,
                     agents_docker_exec_server,
                     G_TYPE_OBJECT)

static void
agents_docker_exec_server_finalize (GObject *object)
{
  AgentsDockerExecServer *self = AGENTS_DOCKER_EXEC_SERVER (object);

  if (self->connection != NULL)
    g_io_stream_close (self->connection, NULL, NULL);
  g_clear_object (&self->connection);
  g_clear_object (&self->engine);
  g_free (self->container_id);
  g_free (self->abandoned_marker);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (agents_docker_exec_server_parent_class)->finalize (object);
}

static void
agents_docker_exec_server_class_init (AgentsDockerExecServerClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = agents_docker_exec_server_finalize;
}

static void
agents_docker_exec_server_init (AgentsDockerExecServer *self)
{
  g_mutex_init (&self->lock);
}

AgentsDockerExecServer *
agents_docker_exec_server_new (AgentsDockerEngine *engine,
                               const char *container_id)
{
  AgentsDockerExecServer *self =
    g_object_new (AGENTS_TYPE_DOCKER_EXEC_SERVER, NULL);

  self->engine = g_object_ref (engine);
  self->container_id = g_strdup (container_id);
  return self;
}

/* ---- starting ------------------------------------------------------- */

static JsonNode *
exec_body (void)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "AttachStdin");
  json_builder_add_boolean_value (builder, TRUE);
  json_builder_set_member_name (builder, "AttachStdout");
  json_builder_add_boolean_value (builder, TRUE);
  json_builder_set_member_name (builder, "AttachStderr");
  json_builder_add_boolean_value (builder, TRUE);
  json_builder_set_member_name (builder, "Cmd");
  json_builder_begin_array (builder);
  json_builder_add_string_value (builder, "/bin/sh");
  json_builder_add_string_value (builder, "-c");
  json_builder_add_string_value (builder, SERVER_SCRIPT);
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

static gboolean read_exact (GInputStream *in,
                            guint8 *buffer,
                            gsize size,
                            GCancellable *cancellable,
                            GError **error);

/* The shell's first words: it runs, has its directory and its tools. */
static gboolean
read_ready (AgentsDockerExecServer *self,
            GCancellable *cancellable,
            GError **error)
{
  GInputStream *in = g_io_stream_get_input_stream (self->connection);
  guint8 header[8];
  char line[sizeof READY_LINE - 1];

  if (!read_exact (in, header, sizeof header, cancellable, error))
    return FALSE;
  if (header[0] != 1 || header[7] != sizeof line || header[4] || header[5] ||
      header[6] ||
      !read_exact (in, (guint8 *) line, sizeof line, cancellable, error) ||
      memcmp (line, READY_LINE, sizeof line) != 0)
    {
      if (error != NULL && *error == NULL)
        g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED,
                             "the exec server did not start");
      return FALSE;
    }
  return TRUE;
}

static gboolean
server_start (AgentsDockerExecServer *self,
              GCancellable *cancellable,
              GError **error)
{
  g_autofree char *escaped = agents_docker_engine_escape (self->container_id);
  g_autofree char *path = g_strdup_printf ("/containers/%s/exec", escaped);
  g_autoptr (JsonNode) body = exec_body ();
  g_autoptr (JsonNode) answer = NULL;
  g_autofree char *start_path = NULL;
  const char *id;

  answer = agents_docker_engine_call_json (self->engine, "POST", path, body,
                                           NULL, cancellable, error);
  if (answer == NULL)
    return FALSE;
  id = JSON_NODE_HOLDS_OBJECT (answer)
         ? json_object_get_string_member_with_default (
             json_node_get_object (answer), "Id", NULL)
         : NULL;
  if (id == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED,
                           "the engine gave no exec id");
      return FALSE;
    }
  g_free (escaped);
  escaped = agents_docker_engine_escape (id);
  start_path = g_strdup_printf ("/exec/%s/start", escaped);
  self->connection = agents_docker_engine_hijack (
    self->engine, start_path, "{\"Detach\":false,\"Tty\":false}", cancellable,
    error);
  return self->connection != NULL && read_ready (self, cancellable, error);
}

static void
server_reset (AgentsDockerExecServer *self)
{
  if (self->connection != NULL)
    g_io_stream_close (self->connection, NULL, NULL);
  g_clear_object (&self->connection);
  g_clear_pointer (&self->abandoned_marker, g_free);
}

/* ---- requests ------------------------------------------------------- */

static gboolean
needs_encoding (const char *arg)
{
  return strchr (arg, '\n') != NULL;
}

static void
append_argument (GString *request, const char *arg)
{
  if (!needs_encoding (arg))
    {
      g_string_append_printf (request, "r%s\n", arg);
      return;
    }
  g_string_append_c (request, 'e');
  for (const guchar *p = (const guchar *) arg; *p != '\0'; p++)
    {
      if (g_ascii_isalnum (*p))
        g_string_append_c (request, *p);
      else
        g_string_append_printf (request, "\\0%03o", *p);
    }
  g_string_append_c (request, '\n');
}

static char *
build_request (const char *marker,
               const char *kill_token,
               const char *const *argv)
{
  GString *request = g_string_new (NULL);
  guint argc = g_strv_length ((char **) argv);

  g_string_append_printf (request, "%s\n%s\n%u\n", marker, kill_token, argc);
  for (guint i = 0; i < argc; i++)
    append_argument (request, argv[i]);
  return g_string_free (request, FALSE);
}

/* ---- responses ------------------------------------------------------ */

typedef struct
{
  GByteArray *out;
  GByteArray *err;
  gsize limit;
  gboolean out_truncated;
  gboolean err_truncated;
  const char *marker;
  int status;
  gboolean out_done;
  gboolean err_done;
} Reply;

/* Keeps the first @limit bytes and the last TAIL_KEEP. */
static void
cap_buffer (GByteArray *buffer, gsize limit, gboolean *truncated)
{
  if (buffer->len <= limit + TAIL_KEEP)
    return;
  g_byte_array_remove_range (buffer, limit, buffer->len - limit - TAIL_KEEP);
  *truncated = TRUE;
}

/* Whether @buffer ends with "\nMARKER STATUS\n"; strips it and reads the
 * status. */
static gboolean
take_out_marker (GByteArray *buffer, const char *marker, int *status)
{
  const char *data = (const char *) buffer->data;
  gsize len = buffer->len;
  gsize end, digits;

  if (len < MARKER_LEN + 4 || data[len - 1] != '\n')
    return FALSE;
  end = len - 1;
  digits = end;
  while (digits > 0 && g_ascii_isdigit (data[digits - 1]))
    digits--;
  if (digits == end || digits < MARKER_LEN + 2 || data[digits - 1] != ' ')
    return FALSE;
  if (memcmp (data + digits - 1 - MARKER_LEN, marker, MARKER_LEN) != 0 ||
      data[digits - 2 - MARKER_LEN] != '\n')
    return FALSE;
  *status = (int) g_ascii_strtoll (data + digits, NULL, 10);
  g_byte_array_set_size (buffer, digits - 2 - MARKER_LEN);
  return TRUE;
}

static gboolean
take_err_marker (GByteArray *buffer, const char *marker)
{
  const char *data = (const char *) buffer->data;
  gsize len = buffer->len;

  if (len < MARKER_LEN + 2 || data[len - 1] != '\n' ||
      data[len - 2 - MARKER_LEN] != '\n' ||
      memcmp (data + len - 1 - MARKER_LEN, marker, MARKER_LEN) != 0)
    return FALSE;
  g_byte_array_set_size (buffer, len - 2 - MARKER_LEN);
  return TRUE;
}

static gboolean
read_exact (GInputStream *in,
            guint8 *buffer,
            gsize size,
            GCancellable *cancellable,
            GError **error)
{
  gsize got = 0;

  if (!g_input_stream_read_all (in, buffer, size, &got, cancellable, error))
    return FALSE;
  if (got != size)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED,
                           "the exec server's stream ended");
      return FALSE;
    }
  return TRUE;
}

/* Reads one frame of the multiplexed stream into @reply. */
static gboolean
read_frame (GInputStream *in,
            Reply *reply,
            GCancellable *cancellable,
            GError **error)
{
  guint8 header[8];
  guint32 size;
  GByteArray *target;
  gboolean *truncated;
  gsize old;

  if (!read_exact (in, header, sizeof header, cancellable, error))
    return FALSE;
  size = (guint32) header[4] << 24 | (guint32) header[5] << 16 |
         (guint32) header[6] << 8 | header[7];
  if (header[0] > 2 || header[1] || header[2] || header[3] ||
      size > 16 * 1024 * 1024)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           "the exec server's stream is malformed");
      return FALSE;
    }
  target = header[0] == 2 ? reply->err : reply->out;
  truncated = header[0] == 2 ? &reply->err_truncated : &reply->out_truncated;
  old = target->len;
  g_byte_array_set_size (target, old + size);
  if (!read_exact (in, target->data + old, size, cancellable, error))
    return FALSE;
  if (header[0] == 2 && !reply->err_done)
    reply->err_done = take_err_marker (target, reply->marker);
  else if (header[0] != 2 && !reply->out_done)
    reply->out_done = take_out_marker (target, reply->marker, &reply->status);
  if (!(header[0] == 2 ? reply->err_done : reply->out_done))
    cap_buffer (target, reply->limit, truncated);
  return TRUE;
}

static gboolean
read_reply (AgentsDockerExecServer *self,
            Reply *reply,
            GCancellable *cancellable,
            GError **error)
{
  GInputStream *in = g_io_stream_get_input_stream (self->connection);

  while (!reply->out_done || !reply->err_done)
    if (!read_frame (in, reply, cancellable, error))
      return FALSE;
  if (reply->out_truncated && reply->out->len > reply->limit)
    g_byte_array_set_size (reply->out, reply->limit);
  if (reply->err_truncated && reply->err->len > reply->limit)
    g_byte_array_set_size (reply->err, reply->limit);
  return TRUE;
}

static GSocket *
connection_socket (GIOStream *connection)
{
  GIOStream *base = NULL;

  if (G_IS_SOCKET_CONNECTION (connection))
    return g_socket_connection_get_socket (G_SOCKET_CONNECTION (connection));
  if (G_IS_TLS_CONNECTION (connection))
    g_object_get (connection, "base-io-stream", &base, NULL);
  if (base == NULL)
    return NULL;
  g_object_unref (base); /* the TLS connection keeps it */
  return connection_socket (base);
}

/* Reads away what a cancelled command still wrote, up to its marker. */
static gboolean
drain_abandoned (AgentsDockerExecServer *self)
{
  g_autoptr (GByteArray) out = g_byte_array_new ();
  g_autoptr (GByteArray) err = g_byte_array_new ();
  GSocket *socket = connection_socket (self->connection);
  Reply reply = { out, err, 0 };
  gboolean ok;

  if (self->abandoned_marker == NULL)
    return TRUE;
  if (socket == NULL)
    return FALSE;
  reply.marker = self->abandoned_marker;
  /* The killed command's marker comes at once; waiting longer means the
   * shell is stuck, and the server is thrown away. */
  g_socket_set_timeout (socket, RESYNC_SECONDS);
  ok = read_reply (self, &reply, NULL, NULL);
  g_socket_set_timeout (socket, 0);
  g_clear_pointer (&self->abandoned_marker, g_free);
  return ok;
}

/* Whether something wrote since the last command ended: a process it
 * left in the background. A fresh shell keeps that from being taken for
 * the next command's output (closing this one cuts the stray writer
 * off). */
static gboolean
has_stray_output (AgentsDockerExecServer *self)
{
  GSocket *socket = connection_socket (self->connection);

  return socket == NULL ||
         g_socket_condition_check (socket, G_IO_IN | G_IO_HUP | G_IO_ERR) != 0;
}

static char *
new_marker (void)
{
  return g_strdup_printf ("%08x%08x%08x%08x", g_random_int (), g_random_int (),
                          g_random_int (), g_random_int ());
}

static AgentsExecResult *
run_locked (AgentsDockerExecServer *self,
            const char *const *argv,
            const char *kill_token,
            gsize limit,
            GCancellable *cancellable,
            GError **error)
{
  g_autofree char *marker = new_marker ();
  g_autofree char *request = build_request (marker, kill_token, argv);
  g_autoptr (GByteArray) out = g_byte_array_new ();
  g_autoptr (GByteArray) err = g_byte_array_new ();
  g_autoptr (GBytes) out_bytes = NULL;
  g_autoptr (GBytes) err_bytes = NULL;
  Reply reply = { out, err, limit };
  g_autoptr (GError) local = NULL;
  GOutputStream *stdin_stream;

  reply.marker = marker;
  if (self->connection != NULL && !drain_abandoned (self))
    server_reset (self);
  if (self->connection != NULL && has_stray_output (self))
    server_reset (self);
  if (self->connection == NULL && !server_start (self, cancellable, &local))
    {
      /* An image without /bin/sh, say: plain execs from now on. The
       * command was not sent, so the caller may run it another way. */
      self->broken = !g_cancellable_is_cancelled (cancellable);
      server_reset (self);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED,
                   "the exec server could not be started: %s", local->message);
      return NULL;
    }
  stdin_stream = g_io_stream_get_output_stream (self->connection);
  if (!g_output_stream_write_all (stdin_stream, request, strlen (request), NULL,
                                  cancellable, &local))
    {
      /* Not sent (the engine went away since the last command, say): the
       * caller may run it another way. */
      server_reset (self);
      if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_propagate_error (error, g_steal_pointer (&local));
      else
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED,
                     "the exec server is gone: %s", local->message);
      return NULL;
    }
  if (!read_reply (self, &reply, cancellable, &local))
    {
      if (g_cancellable_is_cancelled (cancellable))
        self->abandoned_marker = g_steal_pointer (&marker);
      else
        server_reset (self);
      /* Sent, so it may have run: not to be run again. */
      agents_docker_engine_set_transport_error (
        self->engine, "POST", "/exec (server)", g_steal_pointer (&local),
        error);
      return NULL;
    }
  out_bytes = g_byte_array_free_to_bytes (g_steal_pointer (&out));
  err_bytes = g_byte_array_free_to_bytes (g_steal_pointer (&err));
  return agents_exec_result_new (out_bytes, err_bytes, reply.status);
}

AgentsExecResult *
agents_docker_exec_server_run (AgentsDockerExecServer *self,
                               const char *const *argv,
                               const char *kill_token,
                               gsize limit,
                               GCancellable *cancellable,
                               GError **error)
{
  AgentsExecResult *result;

  g_return_val_if_fail (AGENTS_IS_DOCKER_EXEC_SERVER (self), NULL);
  g_return_val_if_fail (argv != NULL && argv[0] != NULL, NULL);

  if (!g_mutex_trylock (&self->lock))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_BUSY,
                           "the exec server is running a command");
      return NULL;
    }
  if (self->broken)
    {
      g_mutex_unlock (&self->lock);
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED,
                           "the exec server could not be started");
      return NULL;
    }
  result = run_locked (self, argv, kill_token, limit, cancellable, error);
  g_mutex_unlock (&self->lock);
  return result;
}

const char *
agents_docker_exec_server_get_container_id (AgentsDockerExecServer *self)
{
  g_return_val_if_fail (AGENTS_IS_DOCKER_EXEC_SERVER (self), NULL);
  return self->container_id;
}

void
agents_docker_exec_server_close (AgentsDockerExecServer *self)
{
  g_return_if_fail (AGENTS_IS_DOCKER_EXEC_SERVER (self));

  g_mutex_lock (&self->lock);
  server_reset (self);
  self->broken = TRUE;
  g_mutex_unlock (&self->lock);
}
