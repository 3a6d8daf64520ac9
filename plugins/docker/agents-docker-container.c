/* agents-docker-container.c - blocking operations on one container
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>

#include "agents-docker-container.h"
#include "agents-docker-exec-server.h"
#include "agents-docker-host-mounts.h"
#include "agents-docker-pipe.h"
#include "agents-docker-tar.h"

/* The command a container idles with until it is removed: it ends on
 * SIGTERM at once, so stopping takes no grace period. */
#define IDLE_SCRIPT \
  "trap 'exit 0' TERM INT; while :; do sleep 3600 & wait $!; done"

/* Kills every process of one exec: they all carry its token in their
 * environment, whatever they forked. They are stopped first, in passes
 * that catch what forked meanwhile, so that none can run on (and write)
 * when another dies; then all are killed. */
#define KILL_SCRIPT                                                     \
  "p=; for pass in 1 2 3; do for d in /proc/[0-9]*; do "                \
  "case \"$(tr '\\000' '\\n' < \"$d/environ\" 2>/dev/null)\" in "       \
  "*\"AGENTS_EXEC_ID=$1\"*) kill -STOP \"${d#/proc/}\" 2>/dev/null && " \
  "p=\"$p ${d#/proc/}\";; esac; done; done; "                           \
  "[ -z \"$p\" ] || kill -9 $p 2>/dev/null; exit 0"

#define STOP_GRACE_SECONDS 5
#define EXIT_POLLS 200

struct _AgentsDockerContainer
{
  GObject parent_instance;

  AgentsDockerEngine *engine;
  char *id;
  char *escaped_id;
};

G_DEFINE_FINAL_TYPE (AgentsDockerContainer,
                     agents_docker_container,
                     G_TYPE_OBJECT)

static void
agents_docker_container_finalize (GObject *object)
{
  AgentsDockerContainer *self = AGENTS_DOCKER_CONTAINER (object);

  g_clear_object (&self->engine);
  g_free (self->id);
  g_free (self->escaped_id);

  G_OBJECT_CLASS (agents_docker_container_parent_class)->finalize (object);
}

static void
agents_docker_container_class_init (AgentsDockerContainerClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = agents_docker_container_finalize;
}

static void
agents_docker_container_init (AgentsDockerContainer *self)
{
}

AgentsDockerContainer *
agents_docker_container_new (AgentsDockerEngine *engine, const char *id)
{
  AgentsDockerContainer *self =
    g_object_new (AGENTS_TYPE_DOCKER_CONTAINER, NULL);

  self->engine = g_object_ref (engine);
  self->id = g_strdup (id);
  self->escaped_id = agents_docker_engine_escape (id);
  return self;
}

/* ---- errors --------------------------------------------------------- */

static const char *
engine_reason (const GError *error)
{
  if (error->domain != AGENTS_DOCKER_ERROR)
    return "io";
  switch ((AgentsDockerError) error->code)
    {
    case AGENTS_DOCKER_ERROR_UNREACHABLE:
      return "engine_unreachable";
    case AGENTS_DOCKER_ERROR_API_VERSION:
      return "engine_api_version";
    case AGENTS_DOCKER_ERROR_NOT_FOUND:
      return "not_found";
    case AGENTS_DOCKER_ERROR_CONFLICT:
      return "conflict";
    case AGENTS_DOCKER_ERROR_INVALID_HOST:
      return "invalid_host";
    case AGENTS_DOCKER_ERROR_TLS:
      return "engine_tls";
    case AGENTS_DOCKER_ERROR_PROTOCOL:
      return "engine_protocol";
    case AGENTS_DOCKER_ERROR_HTTP:
    default:
      return "engine_error";
    }
}

static void
copy_context (GVariantBuilder *builder, const GError *error)
{
  g_autoptr (GVariant) context = agents_sandbox_error_get_context (error);
  GVariantIter iter;
  const char *key;
  GVariant *value;

  if (context == NULL)
    return;
  g_variant_iter_init (&iter, context);
  while (g_variant_iter_next (&iter, "{&sv}", &key, &value))
    {
      if (!g_str_equal (key, "reason"))
        g_variant_builder_add (builder, "{sv}", key, value);
      g_variant_unref (value);
    }
}

GError *
agents_docker_map_error (const GError *engine_error,
                         int code,
                         const char *const *argv)
{
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  if (engine_error->domain == AGENTS_SANDBOX_ERROR ||
      g_error_matches (engine_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return g_error_copy (engine_error);

  copy_context (&ctx, engine_error);
  g_variant_builder_add (&ctx, "{sv}", "reason",
                         g_variant_new_string (engine_reason (engine_error)));
  if (argv != NULL)
    {
      g_autofree char *command_str = agents_sandbox_error_argv_string (argv);

      g_variant_builder_add (&ctx, "{sv}", "command",
                             agents_sandbox_error_argv_variant (argv));
      g_variant_builder_add (&ctx, "{sv}", "command_str",
                             g_variant_new_string (command_str));
      return agents_sandbox_error_new (code, g_variant_builder_end (&ctx),
                                       _ ("failed to run command: %s (%s)"),
                                       command_str, engine_error->message);
    }
  return agents_sandbox_error_new_literal (code, g_variant_builder_end (&ctx),
                                           engine_error->message);
}

/* Replaces *@error, an engine error, by its sandbox form. */
static void
map_error_in_place (GError **error, int code)
{
  GError *mapped;

  if (error == NULL || *error == NULL)
    return;
  mapped = agents_docker_map_error (*error, code, NULL);
  g_clear_error (error);
  *error = mapped;
}

static gboolean
engine_message_has (const GError *error, const char *needle)
{
  g_autoptr (GVariant) context = agents_sandbox_error_get_context (error);
  const char *message = NULL;

  return context != NULL &&
         g_variant_lookup (context, "engine_message", "&s", &message) &&
         strstr (message, needle) != NULL;
}

/* A 404 about the container itself, not about a path in it. */
static gboolean
is_container_gone (const GError *error)
{
  return g_error_matches (error, AGENTS_DOCKER_ERROR,
                          AGENTS_DOCKER_ERROR_NOT_FOUND) &&
         engine_message_has (error, "No such container");
}

static char *path_for (AgentsDockerContainer *self, const char *format, ...)
  G_GNUC_PRINTF (2, 3);

static char *
path_for (AgentsDockerContainer *self, const char *format, ...)
{
  g_autofree char *tail = NULL;
  va_list args;

  va_start (args, format);
  tail = g_strdup_vprintf (format, args);
  va_end (args);
  return g_strdup_printf ("/containers/%s%s", self->escaped_id, tail);
}

static char *
archive_path (AgentsDockerContainer *self, const char *abs)
{
  g_autofree char *escaped = agents_docker_engine_escape (abs);

  return path_for (self, "/archive?path=%s", escaped);
}

/* ---- JSON helpers --------------------------------------------------- */

static JsonNode *
argv_node (const char *const *argv)
{
  JsonArray *array = json_array_new ();
  JsonNode *node = json_node_new (JSON_NODE_ARRAY);

  for (guint i = 0; argv[i] != NULL; i++)
    json_array_add_string_element (array, argv[i]);
  json_node_take_array (node, array);
  return node;
}

static const char *
object_string (JsonNode *node, const char *member)
{
  JsonNode *value;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  value = json_object_get_member (json_node_get_object (node), member);
  if (value == NULL || !JSON_NODE_HOLDS_VALUE (value) ||
      json_node_get_value_type (value) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (value);
}

static JsonObject *
object_member (JsonNode *node, const char *member)
{
  JsonNode *value;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  value = json_object_get_member (json_node_get_object (node), member);
  if (value == NULL || !JSON_NODE_HOLDS_OBJECT (value))
    return NULL;
  return json_node_get_object (value);
}

static void
set_protocol_error (AgentsDockerContainer *self,
                    GError **error,
                    const char *what)
{
  g_set_error (error, AGENTS_DOCKER_ERROR, AGENTS_DOCKER_ERROR_PROTOCOL,
               _ ("Docker engine at %s gave an answer without %s"),
               agents_docker_engine_get_endpoint (self->engine), what);
}

/* ---- exec ----------------------------------------------------------- */

static char *
new_exec_token (void)
{
  return g_strdup_printf ("%08x%08x%08x%08x", g_random_int (), g_random_int (),
                          g_random_int (), g_random_int ());
}

static char *
exec_create (AgentsDockerContainer *self,
             const char *const *argv,
             const char *user,
             const char *token,
             GCancellable *cancellable,
             GError **error)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (JsonNode) body = NULL;
  g_autoptr (JsonNode) answer = NULL;
  g_autofree char *path = path_for (self, "/exec");
  g_autofree char *env = g_strdup_printf ("AGENTS_EXEC_ID=%s", token);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "AttachStdout");
  json_builder_add_boolean_value (builder, TRUE);
  json_builder_set_member_name (builder, "AttachStderr");
  json_builder_add_boolean_value (builder, TRUE);
  json_builder_set_member_name (builder, "Cmd");
  json_builder_add_value (builder, argv_node (argv));
  if (token != NULL)
    {
      json_builder_set_member_name (builder, "Env");
      json_builder_begin_array (builder);
      json_builder_add_string_value (builder, env);
      json_builder_end_array (builder);
    }
  if (user != NULL)
    {
      json_builder_set_member_name (builder, "User");
      json_builder_add_string_value (builder, user);
    }
  json_builder_end_object (builder);
  body = json_builder_get_root (builder);

  answer = agents_docker_engine_call_json (self->engine, "POST", path, body,
                                           NULL, cancellable, error);
  if (answer == NULL)
    return NULL;
  if (object_string (answer, "Id") == NULL)
    {
      set_protocol_error (self, error, "an exec id");
      return NULL;
    }
  return g_strdup (object_string (answer, "Id"));
}

static gboolean
exec_attach (AgentsDockerContainer *self,
             const char *exec_id,
             GByteArray *out,
             GByteArray *err,
             gsize limit,
             GCancellable *cancellable,
             GError **error)
{
  static const char body[] = "{\"Detach\":false,\"Tty\":false}";
  g_autofree char *escaped = agents_docker_engine_escape (exec_id);
  g_autofree char *path = g_strdup_printf ("/exec/%s/start", escaped);
  g_autoptr (GInputStream) request =
    g_memory_input_stream_new_from_data (body, sizeof body - 1, NULL);
  g_autoptr (GInputStream) stream = NULL;
  gboolean truncated = FALSE;

  stream = agents_docker_engine_call_stream (
    self->engine, "POST", path, request, sizeof body - 1, "application/json",
    cancellable, error);
  if (stream == NULL)
    return FALSE;
  return agents_docker_engine_read_multiplexed (stream, out, err, limit,
                                                &truncated, cancellable, error);
}

/* The exit code, once the engine has it (the stream can end a moment
 * before the exec is marked done). */
static gboolean
exec_exit_code (AgentsDockerContainer *self,
                const char *exec_id,
                int *exit_code,
                GCancellable *cancellable,
                GError **error)
{
  g_autofree char *escaped = agents_docker_engine_escape (exec_id);
  g_autofree char *path = g_strdup_printf ("/exec/%s/json", escaped);

  for (guint i = 0; i < EXIT_POLLS; i++)
    {
      g_autoptr (JsonNode) answer = agents_docker_engine_call_json (
        self->engine, "GET", path, NULL, NULL, cancellable, error);
      JsonObject *object;

      if (answer == NULL)
        return FALSE;
      object =
        JSON_NODE_HOLDS_OBJECT (answer) ? json_node_get_object (answer) : NULL;
      if (object == NULL)
        break;
      if (!json_object_get_boolean_member_with_default (object, "Running",
                                                        FALSE))
        {
          *exit_code =
            json_object_get_int_member_with_default (object, "ExitCode", -1);
          return TRUE;
        }
      g_usleep (5000);
    }
  set_protocol_error (self, error, "the exit code of a finished command");
  return FALSE;
}

/* Kills what exec @token started; best effort, on its own cancellable
 * since the caller's is cancelled already. */
static void
exec_kill (AgentsDockerContainer *self, const char *token)
{
  const char *argv[] = { "sh", "-c", KILL_SCRIPT, "sh", token, NULL };
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (GByteArray) out = g_byte_array_new ();
  g_autoptr (GByteArray) err = g_byte_array_new ();
  g_autofree char *exec_id =
    exec_create (self, argv, "0", NULL, cancellable, &error);

  if (exec_id == NULL ||
      !exec_attach (self, exec_id, out, err, 4096, cancellable, &error))
    g_debug ("Could not kill exec %s in %s: %s", token, self->id,
             error->message);
}

/* The engine takes argv as JSON strings, which cannot hold bytes that
 * are not UTF-8: such an argv goes through sh, every argument written
 * \0ooo for printf %b to decode. */
#define DECODE_ARGV_SCRIPT                                               \
  "n=$#; i=0; while [ $i -lt $n ]; do a=$(printf '%bx' \"$1\"); shift; " \
  "set -- \"$@\" \"${a%x}\"; i=$((i + 1)); done; exec \"$@\""

static char *
octal_escape (const char *arg)
{
  GString *escaped = g_string_new (NULL);

  for (const guchar *p = (const guchar *) arg; *p != '\0'; p++)
    {
      if (g_ascii_isalnum (*p))
        g_string_append_c (escaped, *p);
      else
        g_string_append_printf (escaped, "\\0%03o", *p);
    }
  return g_string_free (escaped, FALSE);
}

static char **
utf8_argv (const char *const *argv)
{
  GStrvBuilder *builder;
  char **result;
  gboolean valid = TRUE;

  for (guint i = 0; argv[i] != NULL; i++)
    valid = valid && g_utf8_validate (argv[i], -1, NULL);
  if (valid)
    return g_strdupv ((char **) argv);
  builder = g_strv_builder_new ();
  g_strv_builder_add_many (builder, "sh", "-c", DECODE_ARGV_SCRIPT, "sh", NULL);
  for (guint i = 0; argv[i] != NULL; i++)
    {
      g_autofree char *escaped = octal_escape (argv[i]);

      g_strv_builder_add (builder, escaped);
    }
  result = g_strv_builder_end (builder);
  g_strv_builder_unref (builder);
  return result;
}

static AgentsExecResult *
exec_plain (AgentsDockerContainer *self,
            const char *const *argv,
            const char *user,
            const char *token,
            gsize limit,
            GCancellable *cancellable,
            GError **error)
{
  g_autofree char *exec_id = NULL;
  g_auto (GStrv) sent = utf8_argv (argv);
  g_autoptr (GByteArray) out = g_byte_array_new ();
  g_autoptr (GByteArray) err = g_byte_array_new ();
  g_autoptr (GBytes) out_bytes = NULL;
  g_autoptr (GBytes) err_bytes = NULL;
  int exit_code = -1;

  exec_id = exec_create (self, (const char *const *) sent, user, token,
                         cancellable, error);
  if (exec_id == NULL)
    return NULL;
  if (!exec_attach (self, exec_id, out, err, limit, cancellable, error) ||
      !exec_exit_code (self, exec_id, &exit_code, cancellable, error))
    return NULL;
  out_bytes = g_byte_array_free_to_bytes (g_steal_pointer (&out));
  err_bytes = g_byte_array_free_to_bytes (g_steal_pointer (&err));
  return agents_exec_result_new (out_bytes, err_bytes, exit_code);
}

/* Whether the exec server did not take the command, which can then be
 * run another way. */
static gboolean
server_declined (const GError *error)
{
  return g_error_matches (error, G_IO_ERROR, G_IO_ERROR_BUSY) ||
         g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED);
}

AgentsExecResult *
agents_docker_container_exec (AgentsDockerContainer *self,
                              GPtrArray *servers,
                              const char *const *argv,
                              const char *user,
                              gsize limit,
                              GCancellable *cancellable,
                              GError **error)
{
  g_autofree char *token = new_exec_token ();
  AgentsExecResult *result = NULL;
  GError *local = NULL;

  for (guint i = 0; servers != NULL && user == NULL && i < servers->len &&
                    result == NULL && local == NULL;
       i++)
    {
      result =
        agents_docker_exec_server_run (g_ptr_array_index (servers, i), argv,
                                       token, limit, cancellable, &local);
      if (result == NULL && server_declined (local))
        g_clear_error (&local);
    }
  if (result == NULL && local == NULL)
    result = exec_plain (self, argv, user, token, limit, cancellable, &local);
  if (result == NULL && g_cancellable_is_cancelled (cancellable))
    exec_kill (self, token);
  if (result == NULL)
    g_propagate_error (error, local);
  return result;
}

/* Runs @argv as root and fails on a non-zero exit. */
static gboolean
exec_checked (AgentsDockerContainer *self,
              const char *const *argv,
              GCancellable *cancellable,
              GError **error)
{
  g_autoptr (AgentsExecResult) result = agents_docker_container_exec (
    self, NULL, argv, "0", 64 * 1024, cancellable, error);

  if (result == NULL)
    return FALSE;
  if (agents_exec_result_get_exit_code (result) != 0)
    {
      agents_sandbox_error_set_exec_nonzero (
        error, argv, agents_exec_result_get_exit_code (result),
        agents_exec_result_get_stdout (result),
        agents_exec_result_get_stderr (result));
      return FALSE;
    }
  return TRUE;
}

/* ---- files ---------------------------------------------------------- */

static void
set_not_found (GError **error, const char *abs)
{
  /* Names need not be UTF-8; messages and contexts must be. */
  g_autofree char *shown = g_utf8_make_valid (abs, -1);

  agents_sandbox_error_set (error,
                            AGENTS_SANDBOX_ERROR_WORKSPACE_READ_NOT_FOUND,
                            g_variant_new_parsed ("{'path': <%s>}", shown),
                            _ ("workspace file not found: %s"), shown);
}

static void
set_io_error (GError **error, int code, const char *abs, const char *reason)
{
  g_autofree char *shown = g_utf8_make_valid (abs, -1);

  agents_sandbox_error_set (
    error, code,
    g_variant_new_parsed ("{'path': <%s>, 'reason': <%s>}", shown, reason),
    code == AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ
      ? _ ("could not read %s from the workspace: %s")
      : _ ("could not write %s into the workspace: %s"),
    shown, reason);
}

#define CAT_READ_LIMIT (256 * 1024 * 1024)

/* The engine's archives cannot carry names that are not UTF-8 (it sends
 * an empty one): such files are read with cat, whole. */
static GInputStream *
read_file_by_exec (AgentsDockerContainer *self,
                   const char *abs,
                   GCancellable *cancellable,
                   GError **error)
{
  const char *argv[] = { "cat", "--", abs, NULL };
  g_autoptr (AgentsExecResult) result = NULL;
  g_autofree char *err = NULL;
  GError *local = NULL;

  result = agents_docker_container_exec (
    self, NULL, argv, "0", CAT_READ_LIMIT + 1, cancellable, &local);
  if (result == NULL)
    {
      g_propagate_error (
        error, agents_docker_map_error (
                 local, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ, NULL));
      g_error_free (local);
      return NULL;
    }
  err = agents_exec_result_dup_stderr_text (result);
  if (agents_exec_result_get_exit_code (result) != 0 &&
      strstr (err, "No such file") != NULL)
    {
      set_not_found (error, abs);
      return NULL;
    }
  if (agents_exec_result_get_exit_code (result) != 0 ||
      g_bytes_get_size (agents_exec_result_get_stdout (result)) >
        CAT_READ_LIMIT)
    {
      set_io_error (error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ, abs,
                    agents_exec_result_get_exit_code (result) != 0
                      ? "not_a_regular_file"
                      : "too_large");
      return NULL;
    }
  return g_memory_input_stream_new_from_bytes (
    agents_exec_result_get_stdout (result));
}

GInputStream *
agents_docker_container_read_file (AgentsDockerContainer *self,
                                   const char *abs,
                                   GCancellable *cancellable,
                                   GError **error)
{
  g_autofree char *path = archive_path (self, abs);
  g_autoptr (GInputStream) tar = NULL;
  GInputStream *file;
  GError *local = NULL;

  if (!g_utf8_validate (abs, -1, NULL))
    return read_file_by_exec (self, abs, cancellable, error);
  tar = agents_docker_engine_call_stream (self->engine, "GET", path, NULL, -1,
                                          NULL, cancellable, &local);
  if (tar == NULL &&
      g_error_matches (local, AGENTS_DOCKER_ERROR,
                       AGENTS_DOCKER_ERROR_NOT_FOUND) &&
      !is_container_gone (local))
    {
      g_error_free (local);
      set_not_found (error, abs);
      return NULL;
    }
  if (tar == NULL)
    {
      g_propagate_error (error, local);
      map_error_in_place (error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ);
      return NULL;
    }
  file = agents_docker_tar_open_single_file (tar, cancellable, &local);
  if (file == NULL && local->domain == G_IO_ERROR &&
      (local->code == G_IO_ERROR_IS_DIRECTORY ||
       local->code == G_IO_ERROR_NOT_REGULAR_FILE))
    {
      g_error_free (local);
      set_io_error (error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ, abs,
                    "not_a_regular_file");
      return NULL;
    }
  if (file == NULL)
    g_propagate_error (error, local);
  return file;
}

/* The size of @data from here to its end, when it can be told without
 * reading it. */
static gboolean
stream_remaining_size (GInputStream *data, guint64 *size)
{
  GSeekable *seekable;
  goffset here, end;

  if (!G_IS_SEEKABLE (data) || !g_seekable_can_seek (G_SEEKABLE (data)))
    return FALSE;
  seekable = G_SEEKABLE (data);
  here = g_seekable_tell (seekable);
  if (!g_seekable_seek (seekable, 0, G_SEEK_END, NULL, NULL))
    return FALSE;
  end = g_seekable_tell (seekable);
  if (!g_seekable_seek (seekable, here, G_SEEK_SET, NULL, NULL) || end < here)
    return FALSE;
  *size = end - here;
  return TRUE;
}

/* Copies @data into an unlinked temporary file to learn its size. */
static GInputStream *
spool (GInputStream *data,
       guint64 *size,
       GCancellable *cancellable,
       GError **error)
{
  g_autoptr (GFileIOStream) io = NULL;
  g_autoptr (GFile) file = g_file_new_tmp ("agents-docker-XXXXXX", &io, error);
  GOutputStream *out;
  GInputStream *in;
  gssize n;

  if (file == NULL)
    return NULL;
  g_file_delete (file, NULL, NULL);
  out = g_io_stream_get_output_stream (G_IO_STREAM (io));
  n = g_output_stream_splice (out, data, G_OUTPUT_STREAM_SPLICE_NONE,
                              cancellable, error);
  if (n < 0 || !g_output_stream_flush (out, cancellable, error) ||
      !g_seekable_seek (G_SEEKABLE (io), 0, G_SEEK_SET, cancellable, error))
    return NULL;
  *size = n;
  /* Dropping the GFileIOStream would close its input stream too, so a
   * stream over that input keeps it; not the input itself, which the
   * GFileIOStream holds (a cycle that leaked both). */
  in = g_buffered_input_stream_new (
    g_io_stream_get_input_stream (G_IO_STREAM (io)));
  g_object_set_data_full (G_OBJECT (in), "agents-docker-spool",
                          g_steal_pointer (&io), g_object_unref);
  return in;
}

#define GO_MODE_DIR (G_GINT64_CONSTANT (1) << 31)

typedef enum
{
  PATH_MISSING,
  PATH_DIRECTORY,
  PATH_OTHER,
} PathKind;

/* What @abs is in the container (HEAD on the archive endpoint stats a
 * path without sending it). */
static gboolean
stat_path (AgentsDockerContainer *self,
           const char *abs,
           PathKind *kind,
           GCancellable *cancellable,
           GError **error)
{
  g_autofree char *path = archive_path (self, abs);
  g_autoptr (JsonNode) stat = NULL;
  GError *local = NULL;

  stat =
    agents_docker_engine_stat_path (self->engine, path, cancellable, &local);
  if (stat == NULL &&
      g_error_matches (local, AGENTS_DOCKER_ERROR,
                       AGENTS_DOCKER_ERROR_NOT_FOUND) &&
      !is_container_gone (local))
    {
      g_error_free (local);
      *kind = PATH_MISSING;
      return TRUE;
    }
  if (stat == NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  *kind = json_object_get_int_member_with_default (json_node_get_object (stat),
                                                   "mode", 0) &
              GO_MODE_DIR
            ? PATH_DIRECTORY
            : PATH_OTHER;
  return TRUE;
}

/* The engine would replace a directory by the file: refuse that, and
 * make the parent directories the file needs. */
static gboolean
prepare_file_target (AgentsDockerContainer *self,
                     const char *abs,
                     GCancellable *cancellable,
                     GError **error)
{
  g_autofree char *dir = g_path_get_dirname (abs);
  const char *argv[] = { "mkdir", "-p", "--", dir, NULL };
  PathKind kind;

  if (!stat_path (self, abs, &kind, cancellable, error))
    return FALSE;
  if (kind == PATH_DIRECTORY)
    {
      set_io_error (error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE, abs,
                    "is_a_directory");
      return FALSE;
    }
  if (kind == PATH_OTHER)
    return TRUE;
  if (!stat_path (self, dir, &kind, cancellable, error))
    return FALSE;
  if (kind == PATH_DIRECTORY)
    return TRUE;
  if (kind == PATH_OTHER)
    {
      set_io_error (error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE, abs,
                    "parent_not_a_directory");
      return FALSE;
    }
  return exec_checked (self, argv, cancellable, error);
}

static gboolean
put_single_file (AgentsDockerContainer *self,
                 const char *abs,
                 GInputStream *data,
                 guint64 size,
                 guint mode,
                 GCancellable *cancellable,
                 GError **error)
{
  g_autofree char *dir = g_path_get_dirname (abs);
  g_autofree char *name = g_path_get_basename (abs);
  g_autofree char *path = archive_path (self, dir);
  g_autoptr (GInputStream) tar =
    agents_docker_tar_single_file_stream (name, mode, data, size);
  g_autoptr (GInputStream) answer = NULL;

  answer = agents_docker_engine_call_stream (
    self->engine, "PUT", path, tar,
    (gint64) agents_docker_tar_single_file_length (name, size),
    "application/x-tar", cancellable, error);
  if (answer == NULL)
    return FALSE;
  return g_input_stream_close (answer, cancellable, error);
}

gboolean
agents_docker_container_write_file (AgentsDockerContainer *self,
                                    const char *abs,
                                    GInputStream *data,
                                    guint mode,
                                    GCancellable *cancellable,
                                    GError **error)
{
  g_autoptr (GInputStream) spooled = NULL;
  guint64 size = 0;

  if (!stream_remaining_size (data, &size))
    {
      spooled = spool (data, &size, cancellable, error);
      if (spooled == NULL)
        {
          map_error_in_place (error,
                              AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE);
          return FALSE;
        }
      data = spooled;
    }
  if (!prepare_file_target (self, abs, cancellable, error) ||
      !put_single_file (self, abs, data, size, mode, cancellable, error))
    {
      map_error_in_place (error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE);
      return FALSE;
    }
  return TRUE;
}

/* ---- persist and hydrate -------------------------------------------- */

typedef struct
{
  AgentsDockerContainer *container;
  char *root;
  char **exclude;
} PersistJob;

static void
persist_job_free (PersistJob *job)
{
  g_object_unref (job->container);
  g_free (job->root);
  g_strfreev (job->exclude);
  g_free (job);
}

static gboolean
persist_produce (GOutputStream *out,
                 gpointer data,
                 GCancellable *cancellable,
                 GError **error)
{
  PersistJob *job = data;
  AgentsDockerContainer *self = job->container;
  g_autofree char *path = archive_path (self, job->root);
  g_autofree char *root_name = g_path_get_basename (job->root);
  g_autoptr (GInputStream) tar = NULL;

  tar = agents_docker_engine_call_stream (self->engine, "GET", path, NULL, -1,
                                          NULL, cancellable, error);
  if (tar == NULL || !agents_docker_tar_rebase_workspace (
                       tar, root_name, (const char *const *) job->exclude, out,
                       cancellable, error))
    {
      map_error_in_place (error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ);
      return FALSE;
    }
  return TRUE;
}

GInputStream *
agents_docker_container_persist (AgentsDockerContainer *self,
                                 const char *root,
                                 const char *const *exclude,
                                 GError **error)
{
  PersistJob *job = g_new0 (PersistJob, 1);

  job->container = g_object_ref (self);
  job->root = g_strdup (root);
  job->exclude = g_strdupv ((char **) exclude);
  return agents_docker_pipe_stream_new (
    persist_produce, job, (GDestroyNotify) persist_job_free, error);
}

static GHashTable *
existing_links (AgentsDockerContainer *self,
                const char *root,
                GCancellable *cancellable,
                GError **error)
{
  g_autofree char *path = archive_path (self, root);
  g_autofree char *root_name = g_path_get_basename (root);
  g_autoptr (GInputStream) tar = NULL;

  tar = agents_docker_engine_call_stream (self->engine, "GET", path, NULL, -1,
                                          NULL, cancellable, error);
  if (tar == NULL)
    return NULL;
  return agents_docker_tar_list_symlinks (tar, root_name, cancellable, error);
}

typedef struct
{
  GInputStream *data;
  AgentsArchiveLimits *limits;
  GHashTable *links;
} ValidateJob;

static void
validate_job_free (ValidateJob *job)
{
  g_object_unref (job->data);
  agents_archive_limits_free (job->limits);
  g_hash_table_unref (job->links);
  g_free (job);
}

static gboolean
validate_produce (GOutputStream *out,
                  gpointer data,
                  GCancellable *cancellable,
                  GError **error)
{
  ValidateJob *job = data;

  /* Only snapshots come this way: their links are kept as they were. */
  return agents_docker_tar_validate_copy (job->data, job->limits, job->links,
                                          TRUE, out, cancellable, error);
}

/* Reads what is left of @stream so that its producer ends, and returns
 * the producer's own error, if it failed. */
static GError *
drain_producer (GInputStream *stream)
{
  char buffer[16 * 1024];
  GError *error = NULL;

  while (g_input_stream_read (stream, buffer, sizeof buffer, NULL, &error) > 0)
    ;
  return error;
}

gboolean
agents_docker_container_hydrate (AgentsDockerContainer *self,
                                 const char *root,
                                 GInputStream *data,
                                 const AgentsArchiveLimits *limits,
                                 GCancellable *cancellable,
                                 GError **error)
{
  g_autofree char *path = archive_path (self, root);
  g_autoptr (GInputStream) validated = NULL;
  g_autoptr (GInputStream) answer = NULL;
  ValidateJob *job;
  GError *local = NULL;

  job = g_new0 (ValidateJob, 1);
  job->links = existing_links (self, root, cancellable, error);
  if (job->links == NULL)
    {
      g_free (job);
      map_error_in_place (error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE);
      return FALSE;
    }
  job->data = g_object_ref (data);
  job->limits = agents_archive_limits_copy (limits);
  validated = agents_docker_pipe_stream_new (
    validate_produce, job, (GDestroyNotify) validate_job_free, error);
  if (validated == NULL)
    return FALSE;

  answer =
    agents_docker_engine_call_stream (self->engine, "PUT", path, validated, -1,
                                      "application/x-tar", cancellable, &local);
  if (answer != NULL)
    return g_input_stream_close (answer, cancellable, error);
  {
    /* A refused member ends the upload early: its error is the one
     * to report, not the engine's complaint about a short archive. */
    GError *validation = drain_producer (validated);

    if (validation != NULL)
      {
        g_clear_error (&local);
        local = validation;
      }
  }
  g_propagate_error (error, local);
  map_error_in_place (error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE);
  return FALSE;
}

/* ---- lifecycle ------------------------------------------------------ */

static JsonNode *
inspect (AgentsDockerContainer *self,
         gboolean *gone,
         GCancellable *cancellable,
         GError **error)
{
  g_autofree char *path = path_for (self, "/json");
  GError *local = NULL;
  JsonNode *answer = agents_docker_engine_call_json (
    self->engine, "GET", path, NULL, NULL, cancellable, &local);

  *gone = answer == NULL && g_error_matches (local, AGENTS_DOCKER_ERROR,
                                             AGENTS_DOCKER_ERROR_NOT_FOUND);
  if (*gone)
    g_clear_error (&local);
  else if (answer == NULL)
    g_propagate_error (error, local);
  return answer;
}

gboolean
agents_docker_container_inspect_running (AgentsDockerContainer *self,
                                         gboolean *running,
                                         GCancellable *cancellable,
                                         GError **error)
{
  gboolean gone = FALSE;
  g_autoptr (JsonNode) info = inspect (self, &gone, cancellable, error);
  JsonObject *state;

  *running = FALSE;
  if (info == NULL && !gone)
    {
      map_error_in_place (error, AGENTS_SANDBOX_ERROR_EXEC_TRANSPORT);
      return FALSE;
    }
  state = object_member (info, "State");
  if (state != NULL)
    *running =
      json_object_get_boolean_member_with_default (state, "Running", FALSE);
  return TRUE;
}

static gboolean
post_ignoring (AgentsDockerContainer *self,
               const char *path,
               gboolean ignore_gone,
               GCancellable *cancellable,
               GError **error)
{
  g_autoptr (JsonNode) answer = NULL;
  GError *local = NULL;

  answer = agents_docker_engine_call_json (self->engine, "POST", path, NULL,
                                           NULL, cancellable, &local);
  if (answer != NULL ||
      (ignore_gone && g_error_matches (local, AGENTS_DOCKER_ERROR,
                                       AGENTS_DOCKER_ERROR_NOT_FOUND)))
    {
      g_clear_error (&local);
      return TRUE;
    }
  g_propagate_error (error, local);
  return FALSE;
}

gboolean
agents_docker_container_stop (AgentsDockerContainer *self,
                              GCancellable *cancellable,
                              GError **error)
{
  g_autofree char *path = path_for (self, "/stop?t=%d", STOP_GRACE_SECONDS);

  /* 304 (stopped already) is a success for the engine call. */
  if (!post_ignoring (self, path, TRUE, cancellable, error))
    {
      map_error_in_place (error, AGENTS_SANDBOX_ERROR_WORKSPACE_STOP);
      return FALSE;
    }
  return TRUE;
}

static gboolean
labels_match (JsonNode *info, const char *session_id)
{
  JsonObject *config = object_member (info, "Config");
  JsonNode *labels_node =
    config ? json_object_get_member (config, "Labels") : NULL;
  JsonObject *labels;

  if (labels_node == NULL || !JSON_NODE_HOLDS_OBJECT (labels_node))
    return FALSE;
  labels = json_node_get_object (labels_node);
  return g_strcmp0 (json_object_get_string_member_with_default (
                      labels, AGENTS_DOCKER_LABEL_MANAGED, NULL),
                    "true") == 0 &&
         g_strcmp0 (json_object_get_string_member_with_default (
                      labels, AGENTS_DOCKER_LABEL_SESSION, NULL),
                    session_id) == 0;
}

static gboolean
remove_container (AgentsDockerContainer *self,
                  GCancellable *cancellable,
                  GError **error)
{
  g_autofree char *path = path_for (self, "?force=true&v=true");
  g_autoptr (JsonNode) answer = NULL;
  GError *local = NULL;

  answer = agents_docker_engine_call_json (self->engine, "DELETE", path, NULL,
                                           NULL, cancellable, &local);
  if (answer == NULL && !g_error_matches (local, AGENTS_DOCKER_ERROR,
                                          AGENTS_DOCKER_ERROR_NOT_FOUND))
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  g_clear_error (&local);
  return TRUE;
}

gboolean
agents_docker_container_remove_owned (AgentsDockerContainer *self,
                                      const char *session_id,
                                      GCancellable *cancellable,
                                      GError **error)
{
  gboolean gone = FALSE;
  g_autoptr (JsonNode) info = inspect (self, &gone, cancellable, error);

  if (gone)
    return TRUE;
  if (info == NULL)
    {
      map_error_in_place (error, AGENTS_SANDBOX_ERROR_WORKSPACE_STOP);
      return FALSE;
    }
  if (!labels_match (info, session_id))
    {
      agents_sandbox_error_set (
        error, AGENTS_SANDBOX_ERROR_WORKSPACE_STOP,
        g_variant_new_parsed ("{'container_id': <%s>, 'reason': <'not_owned'>}",
                              self->id),
        _ ("container %s was not made by libagents for this session; "
           "leaving it alone"),
        self->id);
      return FALSE;
    }
  if (!remove_container (self, cancellable, error))
    {
      map_error_in_place (error, AGENTS_SANDBOX_ERROR_WORKSPACE_STOP);
      return FALSE;
    }
  return TRUE;
}

/* ---- create --------------------------------------------------------- */

static void
add_env (JsonBuilder *builder, AgentsManifest *manifest)
{
  g_auto (GStrv) names = agents_manifest_get_env_names (manifest);

  json_builder_set_member_name (builder, "Env");
  json_builder_begin_array (builder);
  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    {
      const char *text = agents_manifest_get_env (manifest, names[i]);
      g_autofree char *pair = NULL;

      /* A typed value that needs resolving has no text here: unset. */
      if (text == NULL)
        continue;
      pair = g_strdup_printf ("%s=%s", names[i], text);
      json_builder_add_string_value (builder, pair);
    }
  json_builder_end_array (builder);
}

static char *config_digest (AgentsDockerSessionState *state);

static void
add_labels (JsonBuilder *builder, AgentsDockerSessionState *state)
{
  GHashTable *labels = agents_docker_session_state_get_labels (state);
  g_autofree char *owner = agents_docker_owner_label ();
  g_autofree char *digest = config_digest (state);
  GHashTableIter iter;
  gpointer key, value;

  json_builder_set_member_name (builder, "Labels");
  json_builder_begin_object (builder);
  g_hash_table_iter_init (&iter, labels);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      json_builder_set_member_name (builder, key);
      json_builder_add_string_value (builder, value);
    }
  json_builder_set_member_name (builder, AGENTS_DOCKER_LABEL_MANAGED);
  json_builder_add_string_value (builder, "true");
  json_builder_set_member_name (builder, AGENTS_DOCKER_LABEL_SESSION);
  json_builder_add_string_value (builder,
                                 agents_sandbox_session_state_get_session_id (
                                   AGENTS_SANDBOX_SESSION_STATE (state)));
  json_builder_set_member_name (builder, AGENTS_DOCKER_LABEL_OWNER);
  json_builder_add_string_value (builder, owner);
  json_builder_set_member_name (builder, AGENTS_DOCKER_LABEL_CONFIG);
  json_builder_add_string_value (builder, digest);
  json_builder_end_object (builder);
}

static void
add_ports (JsonBuilder *builder, GArray *ports, gboolean bindings)
{
  json_builder_set_member_name (builder,
                                bindings ? "PortBindings" : "ExposedPorts");
  json_builder_begin_object (builder);
  for (guint i = 0; i < ports->len; i++)
    {
      g_autofree char *key =
        g_strdup_printf ("%d/tcp", g_array_index (ports, int, i));

      json_builder_set_member_name (builder, key);
      if (!bindings)
        {
          json_builder_begin_object (builder);
          json_builder_end_object (builder);
          continue;
        }
      /* Published on the loopback interface only, on a free port. */
      json_builder_begin_array (builder);
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "HostIp");
      json_builder_add_string_value (builder, "127.0.0.1");
      json_builder_set_member_name (builder, "HostPort");
      json_builder_add_string_value (builder, "");
      json_builder_end_object (builder);
      json_builder_end_array (builder);
    }
  json_builder_end_object (builder);
}

static void
add_int_member (JsonBuilder *builder, const char *name, gint64 value)
{
  if (value <= 0)
    return;
  json_builder_set_member_name (builder, name);
  json_builder_add_int_value (builder, value);
}

/* What a container keeps of Docker's default capabilities; the rest
 * (NET_RAW, MKNOD, SETUID, SETGID, SETPCAP, SETFCAP, FSETID,
 * NET_BIND_SERVICE, SYS_CHROOT, AUDIT_WRITE) is dropped. Commands run
 * as the image's user (root, usually) or a manifest user, whom the
 * engine switches to itself: no SETUID/SETGID is needed for that. */
static const char *const kept_capabilities[] = {
  "CHOWN",        /* chown, tar keeping owners, useradd's files */
  "DAC_OVERRIDE", /* root reaches the files of the manifest's users */
  "FOWNER",       /* chmod and utimes on files root does not own */
  "KILL",         /* the kill script ends a manifest user's command */
  NULL,
};

static void
add_strings (JsonBuilder *builder, const char *name, const char *const *strings)
{
  json_builder_set_member_name (builder, name);
  json_builder_begin_array (builder);
  for (guint i = 0; strings[i] != NULL; i++)
    json_builder_add_string_value (builder, strings[i]);
  json_builder_end_array (builder);
}

/* A FUSE tool inside the container (an in_container s3_mount) needs the
 * FUSE device and SYS_ADMIN to mount, and, where the engine's host
 * confines containers with AppArmor, a profile that allows mount (the
 * engine ignores the option elsewhere): that container only. */
static void
add_fuse (JsonBuilder *builder)
{
  json_builder_set_member_name (builder, "Devices");
  json_builder_begin_array (builder);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "PathOnHost");
  json_builder_add_string_value (builder, "/dev/fuse");
  json_builder_set_member_name (builder, "PathInContainer");
  json_builder_add_string_value (builder, "/dev/fuse");
  json_builder_set_member_name (builder, "CgroupPermissions");
  json_builder_add_string_value (builder, "rwm");
  json_builder_end_object (builder);
  json_builder_end_array (builder);
}

static void
add_security (JsonBuilder *builder, gboolean fuse)
{
  const char *const drop[] = { "ALL", NULL };
  const char *const fuse_caps[] = { "SYS_ADMIN", NULL };
  const char *const fuse_security[] = { "apparmor:unconfined", NULL };
  const char *const no_new_privileges = "no-new-privileges:true";

  add_strings (builder, "CapDrop", drop);
  json_builder_set_member_name (builder, "CapAdd");
  json_builder_begin_array (builder);
  for (guint i = 0; kept_capabilities[i] != NULL; i++)
    json_builder_add_string_value (builder, kept_capabilities[i]);
  for (guint i = 0; fuse && fuse_caps[i] != NULL; i++)
    json_builder_add_string_value (builder, fuse_caps[i]);
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "SecurityOpt");
  json_builder_begin_array (builder);
  json_builder_add_string_value (builder, no_new_privileges);
  if (fuse)
    json_builder_add_string_value (builder, fuse_security[0]);
  json_builder_end_array (builder);
  if (fuse)
    add_fuse (builder);
}

/* A read-only root keeps two places writable: /tmp (a tmpfs, where the
 * exec server and the runtime helpers live, so not noexec) and the
 * workspace (an anonymous volume, which the engine's archive endpoint
 * can write and which goes with the container). */
static void
add_read_only_root (JsonBuilder *builder, AgentsDockerSessionState *state)
{
  AgentsManifest *manifest = agents_sandbox_session_state_get_manifest (
    AGENTS_SANDBOX_SESSION_STATE (state));

  json_builder_set_member_name (builder, "ReadonlyRootfs");
  json_builder_add_boolean_value (builder, TRUE);
  json_builder_set_member_name (builder, "Tmpfs");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "/tmp");
  json_builder_add_string_value (builder, "rw,exec,nosuid,nodev,mode=1777");
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "Mounts");
  json_builder_begin_array (builder);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "Type");
  json_builder_add_string_value (builder, "volume");
  json_builder_set_member_name (builder, "Target");
  json_builder_add_string_value (builder, agents_manifest_get_root (manifest));
  json_builder_end_object (builder);
  agents_docker_host_mounts_add_binds (builder, state);
  json_builder_end_array (builder);
}

/* Host-mounted entries (s3_mount), bound at their paths. */
static void
add_host_binds (JsonBuilder *builder, AgentsDockerSessionState *state)
{
  if (!agents_docker_host_mounts_any (state))
    return;
  json_builder_set_member_name (builder, "Mounts");
  json_builder_begin_array (builder);
  agents_docker_host_mounts_add_binds (builder, state);
  json_builder_end_array (builder);
}

static JsonNode *
host_config_node (AgentsDockerSessionState *state)
{
  const char *network = agents_docker_session_state_get_network_mode (state);
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  gint64 memory, cpus, pids;

  agents_docker_session_state_get_limits (state, &memory, &cpus, &pids);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "NetworkMode");
  json_builder_add_string_value (builder, network ? network : "none");
  /* An init reaps what commands leave behind and forwards signals. */
  json_builder_set_member_name (builder, "Init");
  json_builder_add_boolean_value (builder, TRUE);
  add_ports (builder, agents_docker_session_state_get_exposed_ports (state),
             TRUE);
  add_int_member (builder, "Memory", memory);
  add_int_member (builder, "NanoCpus", cpus);
  add_int_member (builder, "PidsLimit", pids);
  add_security (builder, agents_docker_host_mounts_need_fuse (state));
  if (agents_docker_session_state_get_read_only_root (state))
    add_read_only_root (builder, state);
  else
    add_host_binds (builder, state);
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

/* The digest of how a container runs (its image and host
 * configuration), kept in a label so that a container is reused only
 * when it still runs as the caller configured. */
static char *
config_digest (AgentsDockerSessionState *state)
{
  g_autoptr (JsonNode) host_config = host_config_node (state);
  g_autofree char *text = json_to_string (host_config, FALSE);
  g_autoptr (GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);

  g_checksum_update (
    checksum, (const guchar *) agents_docker_session_state_get_image (state),
    -1);
  g_checksum_update (checksum, (const guchar *) "\n", 1);
  g_checksum_update (checksum, (const guchar *) text, -1);
  return g_strdup (g_checksum_get_string (checksum));
}

static JsonNode *
create_body (AgentsDockerSessionState *state)
{
  AgentsManifest *manifest = agents_sandbox_session_state_get_manifest (
    AGENTS_SANDBOX_SESSION_STATE (state));
  const char *entrypoint[] = { "/bin/sh", "-c", IDLE_SCRIPT, NULL };
  g_autoptr (JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "Image");
  json_builder_add_string_value (builder,
                                 agents_docker_session_state_get_image (state));
  json_builder_set_member_name (builder, "Entrypoint");
  json_builder_add_value (builder, argv_node (entrypoint));
  json_builder_set_member_name (builder, "Cmd");
  json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "WorkingDir");
  json_builder_add_string_value (builder, agents_manifest_get_root (manifest));
  add_env (builder, manifest);
  add_labels (builder, state);
  add_ports (builder, agents_docker_session_state_get_exposed_ports (state),
             FALSE);
  json_builder_set_member_name (builder, "HostConfig");
  json_builder_add_value (builder, host_config_node (state));
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

static char *
container_name (AgentsDockerSessionState *state)
{
  const char *session_id = agents_sandbox_session_state_get_session_id (
    AGENTS_SANDBOX_SESSION_STATE (state));
  g_autofree char *prefix = g_strndup (session_id, 8);

  return g_strdup_printf ("agents-%s-%08x", prefix, g_random_int ());
}

static void
set_create_error (GError **error,
                  GError *engine_error,
                  AgentsDockerSessionState *state)
{
  const char *image = agents_docker_session_state_get_image (state);
  g_autoptr (GError) mapped = agents_docker_map_error (
    engine_error, AGENTS_SANDBOX_ERROR_WORKSPACE_START, NULL);
  g_autoptr (GVariant) context = agents_sandbox_error_get_context (mapped);
  GVariantDict dict;

  g_variant_dict_init (&dict, context);
  g_variant_dict_insert (&dict, "image", "s", image);
  if (g_error_matches (engine_error, AGENTS_DOCKER_ERROR,
                       AGENTS_DOCKER_ERROR_NOT_FOUND))
    g_variant_dict_insert (&dict, "reason", "s", "image_not_found");
  else if (g_error_matches (engine_error, AGENTS_DOCKER_ERROR,
                            AGENTS_DOCKER_ERROR_CONFLICT))
    g_variant_dict_insert (&dict, "reason", "s", "name_conflict");
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_WORKSPACE_START,
                            g_variant_dict_end (&dict),
                            _ ("could not create a container from image "
                               "“%s”: %s"),
                            image, engine_error->message);
}

static char *
create_container (AgentsDockerEngine *engine,
                  AgentsDockerSessionState *state,
                  GCancellable *cancellable,
                  GError **error)
{
  g_autofree char *name = container_name (state);
  g_autofree char *path = g_strdup_printf ("/containers/create?name=%s", name);
  g_autoptr (JsonNode) body = create_body (state);
  g_autoptr (JsonNode) answer = NULL;
  GError *local = NULL;
  const char *id;

  answer = agents_docker_engine_call_json (engine, "POST", path, body, NULL,
                                           cancellable, &local);
  if (answer == NULL)
    {
      if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_propagate_error (error, local);
      else
        {
          set_create_error (error, local, state);
          g_error_free (local);
        }
      return NULL;
    }
  id = object_string (answer, "Id");
  if (id == NULL)
    {
      agents_sandbox_error_set (
        error, AGENTS_SANDBOX_ERROR_WORKSPACE_START,
        g_variant_new_parsed ("{'reason': <'engine_protocol'>}"),
        _ ("Docker engine at %s created a container without telling its id"),
        agents_docker_engine_get_endpoint (engine));
      return NULL;
    }
  return g_strdup (id);
}

static gboolean
start_container (AgentsDockerContainer *self,
                 GCancellable *cancellable,
                 GError **error)
{
  g_autofree char *path = path_for (self, "/start");

  if (!post_ignoring (self, path, FALSE, cancellable, error))
    {
      map_error_in_place (error, AGENTS_SANDBOX_ERROR_WORKSPACE_START);
      return FALSE;
    }
  return TRUE;
}

static gboolean
config_matches (JsonObject *config, AgentsDockerSessionState *state)
{
  JsonNode *labels = json_object_get_member (config, "Labels");
  g_autofree char *digest = config_digest (state);

  return labels != NULL && JSON_NODE_HOLDS_OBJECT (labels) &&
         g_strcmp0 (
           json_object_get_string_member_with_default (
             json_node_get_object (labels), AGENTS_DOCKER_LABEL_CONFIG, NULL),
           digest) == 0;
}

/* Whether the container @id still is the state's: made by libagents for
 * this session from this image, and configured as the caller configures
 * it now. Starts it if it stopped. */
static gboolean
try_reuse (AgentsDockerEngine *engine,
           AgentsDockerSessionState *state,
           const char *id,
           gboolean *reused,
           GCancellable *cancellable,
           GError **error)
{
  g_autoptr (AgentsDockerContainer) container =
    agents_docker_container_new (engine, id);
  gboolean gone = FALSE;
  g_autoptr (JsonNode) info = inspect (container, &gone, cancellable, error);
  JsonObject *state_obj, *config;

  *reused = FALSE;
  if (gone)
    return TRUE;
  if (info == NULL)
    {
      map_error_in_place (error, AGENTS_SANDBOX_ERROR_WORKSPACE_START);
      return FALSE;
    }
  config = object_member (info, "Config");
  if (!labels_match (info, agents_sandbox_session_state_get_session_id (
                             AGENTS_SANDBOX_SESSION_STATE (state))) ||
      config == NULL ||
      g_strcmp0 (
        json_object_get_string_member_with_default (config, "Image", NULL),
        agents_docker_session_state_get_image (state)) != 0 ||
      !config_matches (config, state))
    return TRUE;
  state_obj = object_member (info, "State");
  if (state_obj == NULL || !json_object_get_boolean_member_with_default (
                             state_obj, "Running", FALSE))
    {
      if (!start_container (container, cancellable, error))
        return FALSE;
    }
  *reused = TRUE;
  return TRUE;
}

char *
agents_docker_container_ensure (AgentsDockerEngine *engine,
                                AgentsDockerSessionState *state,
                                gboolean reuse,
                                gboolean *reused,
                                GCancellable *cancellable,
                                GError **error)
{
  const char *old = agents_docker_session_state_get_container_id (state);
  g_autoptr (AgentsDockerContainer) container = NULL;
  g_autofree char *id = NULL;

  *reused = FALSE;
  if (!agents_docker_engine_negotiate (engine, cancellable, error))
    {
      map_error_in_place (error, AGENTS_SANDBOX_ERROR_WORKSPACE_START);
      return NULL;
    }
  if (reuse && old != NULL &&
      !try_reuse (engine, state, old, reused, cancellable, error))
    return NULL;
  if (*reused)
    return g_strdup (old);
  /* This session's container, configured otherwise (new host mounts,
   * say): replaced, so removed; nothing else would ever remove it. */
  if (reuse && old != NULL)
    {
      g_autoptr (AgentsDockerContainer) stale =
        agents_docker_container_new (engine, old);

      agents_docker_container_remove_owned (
        stale,
        agents_sandbox_session_state_get_session_id (
          AGENTS_SANDBOX_SESSION_STATE (state)),
        cancellable, NULL);
    }
  /* The volumes are made with the container, as it is configured now. */
  agents_docker_host_mounts_remove_volumes (engine, state, cancellable);

  id = create_container (engine, state, cancellable, error);
  if (id == NULL)
    {
      agents_docker_host_mounts_remove_volumes (engine, state, NULL);
      return NULL;
    }
  container = agents_docker_container_new (engine, id);
  if (!start_container (container, cancellable, error))
    {
      /* Nothing is left behind when the container cannot start. */
      remove_container (container, NULL, NULL);
      agents_docker_host_mounts_remove_volumes (engine, state, NULL);
      return NULL;
    }
  return g_steal_pointer (&id);
}

/* ---- reap ----------------------------------------------------------- */

static const char *
container_label (JsonObject *container, const char *label)
{
  JsonNode *labels = json_object_get_member (container, "Labels");

  if (labels == NULL || !JSON_NODE_HOLDS_OBJECT (labels))
    return NULL;
  return json_object_get_string_member_with_default (
    json_node_get_object (labels), label, NULL);
}

gssize
agents_docker_reap (AgentsDockerEngine *engine,
                    gboolean all,
                    GCancellable *cancellable,
                    GError **error)
{
  g_autofree char *filter = agents_docker_engine_escape (
    "{\"label\":[\"" AGENTS_DOCKER_LABEL_MANAGED "=true\"]}");
  g_autofree char *path =
    g_strdup_printf ("/containers/json?all=true&filters=%s", filter);
  g_autoptr (JsonNode) list = agents_docker_engine_call_json (
    engine, "GET", path, NULL, NULL, cancellable, error);
  JsonArray *array;
  gssize removed = 0;

  if (list == NULL)
    return -1;
  if (!JSON_NODE_HOLDS_ARRAY (list))
    return 0;
  array = json_node_get_array (list);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonObject *object = json_array_get_object_element (array, i);
      const char *id =
        object ? json_object_get_string_member_with_default (object, "Id", NULL)
               : NULL;
      g_autoptr (AgentsDockerContainer) container = NULL;

      if (id == NULL || (!all && !agents_docker_owner_gone (container_label (
                                   object, AGENTS_DOCKER_LABEL_OWNER))))
        continue;
      container = agents_docker_container_new (engine, id);
      if (!remove_container (container, cancellable, error))
        return -1;
      removed++;
    }
  /* The docker_volume volumes of the containers removed (or lost). */
  if (agents_docker_host_mounts_reap_volumes (engine, cancellable, error) < 0)
    return -1;
  return removed;
}
