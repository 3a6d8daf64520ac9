/* agents-builtin-capabilities.c - shell and filesystem
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "agents-builtin-capabilities.h"
#include "agents-builtin-capabilities-private.h"
#include "agents-filesystem-tools-private.h"
#include "agents-json-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-sandbox-process.h"
#include "agents-shell-tools-private.h"
#include "run/agents-tool.h"

/* ---- helpers of the model-facing tools -------------------------------- */

/* The cap on what read_file hands back to the model: a file is cut (with
 * a note) past this size. */
#define MAX_READ_BYTES (256 * 1024)

/* Builds a strict JSON schema: an object of the given properties, all of
 * them required, no others allowed. */
static JsonObject *
object_schema (const char *const *names, const char *const *types)
{
  JsonObject *schema = json_object_new ();
  JsonObject *properties = json_object_new ();
  JsonArray *required = json_array_new ();

  for (guint i = 0; names[i] != NULL; i++)
    {
      JsonObject *property = json_object_new ();

      json_object_set_string_member (property, "type", types[i]);
      json_object_set_object_member (properties, names[i], property);
      json_array_add_string_element (required, names[i]);
    }
  json_object_set_string_member (schema, "type", "object");
  json_object_set_object_member (schema, "properties", properties);
  json_object_set_array_member (schema, "required", required);
  json_object_set_boolean_member (schema, "additionalProperties", FALSE);
  return schema;
}

JsonObject *
agents_builtin_parse_arguments (const char *arguments, GError **error)
{
  g_autoptr (GError) parse_error = NULL;
  g_autoptr (JsonNode) node =
    agents_json_parse_bounded (arguments, -1, "arguments", &parse_error);

  /* The model reads why its document was refused. */
  if (node == NULL)
    {
      agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                                NULL, "%s", parse_error->message);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                                NULL,
                                _ ("the arguments are not a JSON object"));
      return NULL;
    }
  return json_object_ref (json_node_get_object (node));
}

const char *
agents_builtin_get_string_argument (JsonObject *args,
                                    const char *name,
                                    GError **error)
{
  JsonNode *node = json_object_get_member (args, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    {
      agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                                NULL, _ ("the argument “%s” must be a string"),
                                name);
      return NULL;
    }
  return json_node_get_string (node);
}

static AgentsSandboxSession *
bound_session (AgentsCapability *capability, GError **error)
{
  AgentsSandboxSession *session = agents_capability_get_session (capability);

  if (session == NULL)
    agents_sandbox_error_set (
      error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, NULL,
      _ ("the %s capability is not bound to a sandbox session"),
      agents_capability_get_capability_type (capability));
  return session;
}

static const char *
run_as_name (AgentsCapability *capability)
{
  AgentsUser *user = agents_capability_get_run_as (capability);

  return user != NULL ? agents_user_get_name (user) : NULL;
}

/* The output a failing sandbox tool gives the model: the error itself,
 * without the generic "please try again" of the default formatter (an
 * escaping path will not work on a retry). Not translated: the model
 * reads it. */
static char *
format_tool_error (AgentsRunContext *ctx,
                   const GError *error,
                   gpointer user_data)
{
  return g_strdup_printf ("error: %s", error->message);
}

static AgentsTool *
new_sandbox_tool (AgentsCapability *capability,
                  const char *name,
                  const char *description,
                  JsonObject *schema,
                  AgentsFunctionToolAsyncFunc func)
{
  AgentsFunctionTool *tool = agents_function_tool_new_async (
    name, description, schema, func, g_object_ref (capability), g_object_unref);

  agents_function_tool_set_error_func (tool, format_tool_error, NULL, NULL);
  return AGENTS_TOOL (tool);
}

static GPtrArray *
tool_array (AgentsTool *first, ...)
{
  GPtrArray *tools = g_ptr_array_new_with_free_func (g_object_unref);
  va_list args;

  va_start (args, first);
  for (AgentsTool *tool = first; tool != NULL;
       tool = va_arg (args, AgentsTool *))
    g_ptr_array_add (tools, tool);
  va_end (args);
  return tools;
}

static void
return_instructions (GTask *task, const char *text)
{
  g_task_return_pointer (task, g_strdup (text), g_free);
}

/* Appends @len bytes of @data as valid UTF-8, cut at @max bytes with a
 * note saying so. */
static void
append_capped_text (GString *out, const char *data, gsize len, gsize max)
{
  gsize shown = MIN (len, max);
  g_autofree char *valid = NULL;
  const char *end = NULL;

  /* A cut in the middle of a character drops that character. */
  if (shown < len && !g_utf8_validate_len (data, shown, &end) &&
      (gsize) (end - data) + 4 > shown)
    shown = end - data;
  valid = g_utf8_make_valid (data, shown);
  g_string_append (out, valid);
  if (shown < len)
    g_string_append_printf (
      out, "\n[file truncated: only its first %" G_GSIZE_FORMAT " bytes shown]",
      shown);
}

/* ---- shell ------------------------------------------------------------ */

/**
 * AgentsShellCapability:
 *
 * The `shell` capability: lets the model run commands in the sandbox, as
 * the run-as user, with the reference's `exec_command` tool
 * (`{"cmd", "workdir", "shell", "login", "tty", "yield_time_ms",
 * "max_output_tokens"}`, a non-strict schema). `workdir` is relative to
 * the run's working directory (agents_capability_bind_cwd(), the
 * workspace root without one), which is also the default `workdir`, and
 * cannot leave the workspace (path grants aside). The output
 * is the reference's: `Chunk ID`, `Wall time`, `Process exited with
 * code N`, `Output:` and the standard output and error joined.
 *
 * On a session that supports PTYs (agents_sandbox_session_supports_pty(),
 * unix_local and docker do) the command goes into the session's process
 * table: `exec_command` returns after `yield_time_ms` (clamped to
 * 0.25 … 30 s) with the output so far and, when the command still runs,
 * `Process running with session ID N`; the `write_stdin` tool then types
 * into it (with `tty: true`) or polls it. Elsewhere the command runs to
 * its end (one-shot), `yield_time_ms` being its kill timeout, and there is
 * no `write_stdin`. Output past `max_output_tokens` is truncated as the
 * reference does it; without `max_output_tokens`, output past 1 MiB is
 * truncated the same way (the reference has no such cap).
 */
struct _AgentsShellCapability
{
  GObject parent_instance;

  gboolean needs_approval;
};

enum
{
  SHELL_PROP_0,
  SHELL_PROP_NEEDS_APPROVAL,
  SHELL_N_PROPS
};

static GParamSpec *shell_properties[SHELL_N_PROPS];

static const char *
shell_get_capability_type (AgentsCapability *self)
{
  return "shell";
}

static GPtrArray *
shell_get_tools (AgentsCapability *capability)
{
  AgentsShellCapability *self = AGENTS_SHELL_CAPABILITY (capability);
  AgentsSandboxSession *session = agents_capability_get_session (capability);
  AgentsTool *tool = agents_exec_command_tool_new (capability);
  AgentsTool *write_stdin = NULL;

  agents_tool_set_needs_approval (tool, self->needs_approval);
  if (session != NULL && agents_sandbox_session_supports_pty (session))
    {
      write_stdin = agents_write_stdin_tool_new (capability);
      agents_tool_set_needs_approval (write_stdin, self->needs_approval);
    }
  return tool_array (tool, write_stdin, NULL);
}

static void
shell_instructions (AgentsCapability *self,
                    AgentsManifest *manifest,
                    GTask *task)
{
  return_instructions (task, agents_shell_instructions);
}

/* The default clone copies readable, writable properties: the
 * write-only approval setting is carried over here. */
static AgentsCapability *
shell_clone (AgentsCapability *capability)
{
  AgentsCapabilityInterface *defaults =
    g_type_default_interface_peek (AGENTS_TYPE_CAPABILITY);
  AgentsCapability *copy = defaults->clone (capability);

  AGENTS_SHELL_CAPABILITY (copy)->needs_approval =
    AGENTS_SHELL_CAPABILITY (capability)->needs_approval;
  return copy;
}

static void
shell_capability_iface_init (AgentsCapabilityInterface *iface)
{
  iface->get_capability_type = shell_get_capability_type;
  iface->clone = shell_clone;
  iface->get_tools = shell_get_tools;
  iface->instructions = shell_instructions;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (
  AgentsShellCapability,
  agents_shell_capability,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_CAPABILITY, shell_capability_iface_init))

static void
shell_set_property (GObject *object,
                    guint prop_id,
                    const GValue *value,
                    GParamSpec *pspec)
{
  AgentsShellCapability *self = AGENTS_SHELL_CAPABILITY (object);

  switch (prop_id)
    {
    case SHELL_PROP_NEEDS_APPROVAL:
      agents_shell_capability_set_needs_approval (self,
                                                  g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_shell_capability_class_init (AgentsShellCapabilityClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->set_property = shell_set_property;

  /**
   * AgentsShellCapability:needs-approval:
   *
   * Whether every `exec_command` call must be approved before it runs
   * (the run stops with a tool approval interruption until it is).
   *
   * The property is write-only (read it with
   * agents_shell_capability_get_needs_approval()): the capability's JSON
   * (agents_capability_to_json()) holds its readable, writable
   * properties, and a shell capability's JSON is `{"type": "shell"}`, as
   * in the reference.
   */
  shell_properties[SHELL_PROP_NEEDS_APPROVAL] = g_param_spec_boolean (
    "needs-approval", NULL, NULL, FALSE,
    G_PARAM_WRITABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, SHELL_N_PROPS,
                                     shell_properties);
}

static void
agents_shell_capability_init (AgentsShellCapability *self)
{
}

/**
 * agents_shell_capability_new:
 *
 * Creates a `shell` capability.
 *
 * Returns: (transfer full): the capability
 */
AgentsCapability *
agents_shell_capability_new (void)
{
  return g_object_new (AGENTS_TYPE_SHELL_CAPABILITY, NULL);
}

/**
 * agents_shell_capability_get_needs_approval:
 * @self: a shell capability
 *
 * Gets whether `exec_command` calls need approval.
 *
 * Returns: whether `exec_command` calls need approval
 */
gboolean
agents_shell_capability_get_needs_approval (AgentsShellCapability *self)
{
  g_return_val_if_fail (AGENTS_IS_SHELL_CAPABILITY (self), FALSE);
  return self->needs_approval;
}

/**
 * agents_shell_capability_set_needs_approval:
 * @self: a shell capability
 * @needs_approval: whether `exec_command` calls need approval
 *
 * Sets #AgentsShellCapability:needs-approval.
 */
void
agents_shell_capability_set_needs_approval (AgentsShellCapability *self,
                                            gboolean needs_approval)
{
  g_return_if_fail (AGENTS_IS_SHELL_CAPABILITY (self));

  needs_approval = !!needs_approval;
  if (self->needs_approval == needs_approval)
    return;
  self->needs_approval = needs_approval;
  g_object_notify_by_pspec (G_OBJECT (self),
                            shell_properties[SHELL_PROP_NEEDS_APPROVAL]);
}

/* ---- filesystem ------------------------------------------------------- */

/**
 * AgentsFilesystemCapability:
 *
 * The `filesystem` capability: the reference's `view_image` (an image of
 * the workspace shown to the model) and `apply_patch` (edits in the V4A
 * patch format, a custom tool with the reference's grammar) tools, in
 * that order. Relative paths read from the run's working directory
 * (agents_capability_bind_cwd(), the workspace root without one) and
 * cannot leave the workspace (path grants aside); a failure is reported
 * to the model as the tool's output.
 *
 * With #AgentsFilesystemCapability:file-tools on, the model also gets the
 * project's own `read_file` (`{"path"}`, text files), `write_file`
 * (`{"path", "content"}`) and `list_dir` (`{"path"}`) tools, which the
 * reference does not have.
 */
struct _AgentsFilesystemCapability
{
  GObject parent_instance;

  gboolean file_tools;
};

enum
{
  FILESYSTEM_PROP_0,
  FILESYSTEM_PROP_FILE_TOOLS,
  FILESYSTEM_N_PROPS
};

static GParamSpec *filesystem_properties[FILESYSTEM_N_PROPS];

static const char *
filesystem_get_capability_type (AgentsCapability *self)
{
  return "filesystem";
}

/* read_file: reads at most MAX_READ_BYTES + 1 bytes, enough to tell that
 * the file is longer, so a huge file is never held in memory. */
typedef struct
{
  char *path;
  GInputStream *stream;
  char *buffer;
} ReadFile;

static void
read_file_free (ReadFile *read)
{
  g_free (read->path);
  g_clear_object (&read->stream);
  g_free (read->buffer);
  g_free (read);
}

static gboolean
looks_binary (const char *data, gsize len)
{
  const char *end = NULL;

  if (memchr (data, '\0', len) != NULL)
    return TRUE;
  /* A character cut by the size cap is not a sign of binary data. */
  return !g_utf8_validate_len (data, len, &end) &&
         (len <= MAX_READ_BYTES || (gsize) (end - data) + 4 <= len);
}

static void
read_file_read_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  ReadFile *read = g_task_get_task_data (task);
  GError *error = NULL;
  gsize len = 0;
  GString *out;

  if (!g_input_stream_read_all_finish (G_INPUT_STREAM (source), result, &len,
                                       &error))
    {
      g_task_return_error (task, error);
      return;
    }
  if (looks_binary (read->buffer, len))
    {
      g_autofree char *text = g_strdup_printf (
        "%s is a binary file, not text; read_file only returns text.",
        read->path);

      agents_tool_return_text (task, text);
      return;
    }
  out = g_string_new (NULL);
  append_capped_text (out, read->buffer, len, MAX_READ_BYTES);
  agents_tool_return_text (task, out->str);
  g_string_free (out, TRUE);
}

static void
read_file_open_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  ReadFile *read = g_task_get_task_data (task);
  GError *error = NULL;

  read->stream = agents_sandbox_session_read_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  if (read->stream == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  read->buffer = g_malloc (MAX_READ_BYTES + 1);
  g_input_stream_read_all_async (
    read->stream, read->buffer, MAX_READ_BYTES + 1, G_PRIORITY_DEFAULT,
    g_task_get_cancellable (task), read_file_read_done, g_object_ref (task));
}

static void
read_file_tool (AgentsRunContext *ctx,
                const char *arguments,
                GTask *task,
                gpointer user_data)
{
  AgentsCapability *capability = user_data;
  GError *error = NULL;
  g_autoptr (JsonObject) args =
    agents_builtin_parse_arguments (arguments, &error);
  AgentsSandboxSession *session = NULL;
  const char *path = NULL;
  ReadFile *read;

  if (args != NULL)
    path = agents_builtin_get_string_argument (args, "path", &error);
  if (path != NULL)
    session = bound_session (capability, &error);
  if (session == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  read = g_new0 (ReadFile, 1);
  read->path = g_strdup (path);
  g_task_set_task_data (task, read, (GDestroyNotify) read_file_free);
  agents_sandbox_session_read_async (session, path, run_as_name (capability),
                                     g_task_get_cancellable (task),
                                     read_file_open_done, g_object_ref (task));
}

static void
write_file_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;
  g_autofree char *text = NULL;

  if (!agents_sandbox_session_write_bytes_finish (
        AGENTS_SANDBOX_SESSION (source), result, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  text = g_strdup_printf (
    "wrote %s bytes to %s",
    (const char *) g_object_get_data (G_OBJECT (task), "agents-size"),
    (const char *) g_task_get_task_data (task));
  agents_tool_return_text (task, text);
}

static void
write_file_tool (AgentsRunContext *ctx,
                 const char *arguments,
                 GTask *task,
                 gpointer user_data)
{
  AgentsCapability *capability = user_data;
  GError *error = NULL;
  g_autoptr (JsonObject) args =
    agents_builtin_parse_arguments (arguments, &error);
  AgentsSandboxSession *session = NULL;
  const char *path = NULL;
  const char *content = NULL;
  g_autoptr (GBytes) bytes = NULL;

  if (args != NULL)
    path = agents_builtin_get_string_argument (args, "path", &error);
  if (path != NULL)
    content = agents_builtin_get_string_argument (args, "content", &error);
  if (content != NULL)
    session = bound_session (capability, &error);
  if (session == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  bytes = g_bytes_new (content, strlen (content));
  g_task_set_task_data (task, g_strdup (path), g_free);
  g_object_set_data_full (
    G_OBJECT (task), "agents-size",
    g_strdup_printf ("%" G_GSIZE_FORMAT, g_bytes_get_size (bytes)), g_free);
  agents_sandbox_session_write_bytes_async (
    session, path, bytes, run_as_name (capability),
    g_task_get_cancellable (task), write_file_done, g_object_ref (task));
}

static const char *
entry_kind_label (AgentsFileEntry *entry)
{
  switch (agents_file_entry_get_kind (entry))
    {
    case AGENTS_ENTRY_KIND_DIRECTORY:
      return "dir";
    case AGENTS_ENTRY_KIND_FILE:
      return "file";
    case AGENTS_ENTRY_KIND_SYMLINK:
      return "link";
    case AGENTS_ENTRY_KIND_OTHER:
    default:
      return "other";
    }
}

/* One line per entry: kind, size and name (a directory's with a
 * trailing slash), e.g. "file       12  notes.txt". */
static char *
format_listing (GListModel *listing)
{
  GString *out = g_string_new (NULL);
  guint n = g_list_model_get_n_items (listing);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr (AgentsFileEntry) entry = g_list_model_get_item (listing, i);
      g_autofree char *name =
        g_path_get_basename (agents_file_entry_get_path (entry));

      g_string_append_printf (out, "%s%-5s %10" G_GUINT64_FORMAT "  %s%s",
                              i > 0 ? "\n" : "", entry_kind_label (entry),
                              agents_file_entry_get_size (entry), name,
                              agents_file_entry_is_dir (entry) ? "/" : "");
    }
  if (n == 0)
    g_string_append (out, "(empty directory)");
  return g_string_free (out, FALSE);
}

static void
list_dir_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;
  g_autoptr (GListModel) listing = agents_sandbox_session_ls_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  g_autofree char *text = NULL;

  if (listing == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  text = format_listing (listing);
  agents_tool_return_text (task, text);
}

static void
list_dir_tool (AgentsRunContext *ctx,
               const char *arguments,
               GTask *task,
               gpointer user_data)
{
  AgentsCapability *capability = user_data;
  GError *error = NULL;
  g_autoptr (JsonObject) args =
    agents_builtin_parse_arguments (arguments, &error);
  AgentsSandboxSession *session = NULL;
  const char *path = NULL;

  if (args != NULL)
    path = agents_builtin_get_string_argument (args, "path", &error);
  if (path != NULL)
    session = bound_session (capability, &error);
  if (session == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  agents_sandbox_session_ls_async (session, *path != '\0' ? path : ".",
                                   g_task_get_cancellable (task), list_dir_done,
                                   g_object_ref (task));
}

static GPtrArray *
file_tools (AgentsCapability *capability)
{
  static const char *const path_names[] = { "path", NULL };
  static const char *const path_types[] = { "string" };
  static const char *const write_names[] = { "path", "content", NULL };
  static const char *const write_types[] = { "string", "string" };
  g_autoptr (JsonObject) path_schema = object_schema (path_names, path_types);
  g_autoptr (JsonObject) write_schema =
    object_schema (write_names, write_types);

  return tool_array (
    new_sandbox_tool (capability, "read_file",
                      "Reads a text file of the workspace and returns its "
                      "content. Paths are relative to the workspace root.",
                      path_schema, read_file_tool),
    new_sandbox_tool (capability, "write_file",
                      "Creates or replaces a file of the workspace with the "
                      "given text content.",
                      write_schema, write_file_tool),
    new_sandbox_tool (capability, "list_dir",
                      "Lists a directory of the workspace (\".\" for the "
                      "workspace root): kind, size and name of each entry.",
                      path_schema, list_dir_tool),
    NULL);
}

static GPtrArray *
filesystem_get_tools (AgentsCapability *capability)
{
  GPtrArray *tools =
    tool_array (agents_view_image_tool_new (capability),
                agents_apply_patch_tool_new (capability), NULL);

  if (AGENTS_FILESYSTEM_CAPABILITY (capability)->file_tools)
    {
      g_autoptr (GPtrArray) extra = file_tools (capability);

      g_ptr_array_extend_and_steal (tools, g_steal_pointer (&extra));
    }
  return tools;
}

/* The reference's filesystem capability has no instructions; the
 * project's own file tools do. */
static void
filesystem_instructions (AgentsCapability *self,
                         AgentsManifest *manifest,
                         GTask *task)
{
  if (!AGENTS_FILESYSTEM_CAPABILITY (self)->file_tools)
    {
      g_task_return_pointer (task, NULL, NULL);
      return;
    }
  return_instructions (
    task,
    "Use `read_file` to read a text file, `write_file` to create or "
    "replace a file and `list_dir` to list a directory. Paths are relative "
    "to the workspace root; paths that leave the workspace are refused. "
    "Errors come back as the tool output, starting with `error:`.");
}

/* The write-only file-tools setting is carried over here (the default
 * clone copies readable, writable properties). */
static AgentsCapability *
filesystem_clone (AgentsCapability *capability)
{
  AgentsCapabilityInterface *defaults =
    g_type_default_interface_peek (AGENTS_TYPE_CAPABILITY);
  AgentsCapability *copy = defaults->clone (capability);

  AGENTS_FILESYSTEM_CAPABILITY (copy)->file_tools =
    AGENTS_FILESYSTEM_CAPABILITY (capability)->file_tools;
  return copy;
}

static void
filesystem_capability_iface_init (AgentsCapabilityInterface *iface)
{
  iface->get_capability_type = filesystem_get_capability_type;
  iface->clone = filesystem_clone;
  iface->get_tools = filesystem_get_tools;
  iface->instructions = filesystem_instructions;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (
  AgentsFilesystemCapability,
  agents_filesystem_capability,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_CAPABILITY,
                         filesystem_capability_iface_init))

static void
filesystem_set_property (GObject *object,
                         guint prop_id,
                         const GValue *value,
                         GParamSpec *pspec)
{
  AgentsFilesystemCapability *self = AGENTS_FILESYSTEM_CAPABILITY (object);

  switch (prop_id)
    {
    case FILESYSTEM_PROP_FILE_TOOLS:
      agents_filesystem_capability_set_file_tools (self,
                                                   g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_filesystem_capability_class_init (AgentsFilesystemCapabilityClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->set_property = filesystem_set_property;

  /**
   * AgentsFilesystemCapability:file-tools:
   *
   * Whether the model also gets the `read_file`, `write_file` and
   * `list_dir` tools (after `view_image` and `apply_patch`). Off by
   * default: the reference has no such tools, its agents read files with
   * the shell.
   *
   * The property is write-only (read it with
   * agents_filesystem_capability_get_file_tools()), so that the
   * capability's JSON stays `{"type": "filesystem"}`, as in the
   * reference; an agent file sets it with
   * `{"type": "filesystem", "file_tools": true}`.
   */
  filesystem_properties[FILESYSTEM_PROP_FILE_TOOLS] = g_param_spec_boolean (
    "file-tools", NULL, NULL, FALSE,
    G_PARAM_WRITABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, FILESYSTEM_N_PROPS,
                                     filesystem_properties);
}

static void
agents_filesystem_capability_init (AgentsFilesystemCapability *self)
{
}

/**
 * agents_filesystem_capability_new:
 *
 * Creates a `filesystem` capability.
 *
 * Returns: (transfer full): the capability
 */
AgentsCapability *
agents_filesystem_capability_new (void)
{
  return g_object_new (AGENTS_TYPE_FILESYSTEM_CAPABILITY, NULL);
}

/**
 * agents_filesystem_capability_get_file_tools:
 * @self: a filesystem capability
 *
 * Gets whether the model also gets `read_file`, `write_file` and
 * `list_dir`.
 *
 * Returns: whether the project's own file tools are offered
 */
gboolean
agents_filesystem_capability_get_file_tools (AgentsFilesystemCapability *self)
{
  g_return_val_if_fail (AGENTS_IS_FILESYSTEM_CAPABILITY (self), FALSE);
  return self->file_tools;
}

/**
 * agents_filesystem_capability_set_file_tools:
 * @self: a filesystem capability
 * @file_tools: whether to offer `read_file`, `write_file` and `list_dir`
 *
 * Sets #AgentsFilesystemCapability:file-tools.
 */
void
agents_filesystem_capability_set_file_tools (AgentsFilesystemCapability *self,
                                             gboolean file_tools)
{
  g_return_if_fail (AGENTS_IS_FILESYSTEM_CAPABILITY (self));

  file_tools = !!file_tools;
  if (self->file_tools == file_tools)
    return;
  self->file_tools = file_tools;
  g_object_notify_by_pspec (G_OBJECT (self),
                            filesystem_properties[FILESYSTEM_PROP_FILE_TOOLS]);
}
