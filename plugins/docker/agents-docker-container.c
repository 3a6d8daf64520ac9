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

#include "agents-docker-container-private.h"
#include "agents-docker-exec-server.h"

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
void
agents_docker_map_error_in_place (GError **error, int code)
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
gboolean
agents_docker_is_container_gone (const GError *error)
{
  return g_error_matches (error, AGENTS_DOCKER_ERROR,
                          AGENTS_DOCKER_ERROR_NOT_FOUND) &&
         engine_message_has (error, "No such container");
}

char *
agents_docker_container_path (AgentsDockerContainer *self,
                              const char *format,
                              ...)
{
  g_autofree char *tail = NULL;
  va_list args;

  va_start (args, format);
  tail = g_strdup_vprintf (format, args);
  va_end (args);
  return g_strdup_printf ("/containers/%s%s", self->escaped_id, tail);
}

/* ---- JSON helpers --------------------------------------------------- */

JsonNode *
agents_docker_argv_node (const char *const *argv)
{
  JsonArray *array = json_array_new ();
  JsonNode *node = json_node_new (JSON_NODE_ARRAY);

  for (guint i = 0; argv[i] != NULL; i++)
    json_array_add_string_element (array, argv[i]);
  json_node_take_array (node, array);
  return node;
}

const char *
agents_docker_object_string (JsonNode *node, const char *member)
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

JsonObject *
agents_docker_object_member (JsonNode *node, const char *member)
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
  g_autofree char *path = agents_docker_container_path (self, "/exec");
  g_autofree char *env = g_strdup_printf ("AGENTS_EXEC_ID=%s", token);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "AttachStdout");
  json_builder_add_boolean_value (builder, TRUE);
  json_builder_set_member_name (builder, "AttachStderr");
  json_builder_add_boolean_value (builder, TRUE);
  json_builder_set_member_name (builder, "Cmd");
  json_builder_add_value (builder, agents_docker_argv_node (argv));
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
  if (agents_docker_object_string (answer, "Id") == NULL)
    {
      set_protocol_error (self, error, "an exec id");
      return NULL;
    }
  return g_strdup (agents_docker_object_string (answer, "Id"));
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
gboolean
agents_docker_container_exec_checked (AgentsDockerContainer *self,
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

/* ---- lifecycle ------------------------------------------------------ */

JsonNode *
agents_docker_container_inspect (AgentsDockerContainer *self,
                                 gboolean *gone,
                                 GCancellable *cancellable,
                                 GError **error)
{
  g_autofree char *path = agents_docker_container_path (self, "/json");
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
  g_autoptr (JsonNode) info =
    agents_docker_container_inspect (self, &gone, cancellable, error);
  JsonObject *state;

  *running = FALSE;
  if (info == NULL && !gone)
    {
      agents_docker_map_error_in_place (error,
                                        AGENTS_SANDBOX_ERROR_EXEC_TRANSPORT);
      return FALSE;
    }
  state = agents_docker_object_member (info, "State");
  if (state != NULL)
    *running =
      json_object_get_boolean_member_with_default (state, "Running", FALSE);
  return TRUE;
}

gboolean
agents_docker_container_post (AgentsDockerContainer *self,
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
  g_autofree char *path =
    agents_docker_container_path (self, "/stop?t=%d", STOP_GRACE_SECONDS);

  /* 304 (stopped already) is a success for the engine call. */
  if (!agents_docker_container_post (self, path, TRUE, cancellable, error))
    {
      agents_docker_map_error_in_place (error,
                                        AGENTS_SANDBOX_ERROR_WORKSPACE_STOP);
      return FALSE;
    }
  return TRUE;
}

gboolean
agents_docker_labels_match (JsonNode *info, const char *session_id)
{
  JsonObject *config = agents_docker_object_member (info, "Config");
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

gboolean
agents_docker_container_remove (AgentsDockerContainer *self,
                                GCancellable *cancellable,
                                GError **error)
{
  g_autofree char *path =
    agents_docker_container_path (self, "?force=true&v=true");
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
  g_autoptr (JsonNode) info =
    agents_docker_container_inspect (self, &gone, cancellable, error);

  if (gone)
    return TRUE;
  if (info == NULL)
    {
      agents_docker_map_error_in_place (error,
                                        AGENTS_SANDBOX_ERROR_WORKSPACE_STOP);
      return FALSE;
    }
  if (!agents_docker_labels_match (info, session_id))
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
  if (!agents_docker_container_remove (self, cancellable, error))
    {
      agents_docker_map_error_in_place (error,
                                        AGENTS_SANDBOX_ERROR_WORKSPACE_STOP);
      return FALSE;
    }
  return TRUE;
}
