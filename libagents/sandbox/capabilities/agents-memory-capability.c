/* agents-memory-capability.c - notes kept across runs in the workspace
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "agents-builtin-capabilities.h"
#include "agents-memory-capability-private.h"
#include "agents-resources.h"
#include "agents-sandbox-error-private.h"
#include "agents-token-truncation-private.h"
#include "run/agents-runner.h"

/**
 * AgentsMemoryCapability:
 *
 * The `memory` capability: notes an agent keeps across runs, in the
 * workspace, as the reference's `Memory` keeps them.
 *
 * Reading (#AgentsMemoryCapability:read): the instructions get a
 * `## Memory` section that explains the memory folder and ends with
 * `<memories-dir>/memory_summary.md` (cut to 15,000 tokens) between
 * `========= MEMORY_SUMMARY BEGINS =========` and
 * `========= MEMORY_SUMMARY ENDS =========`; nothing when the summary is
 * missing or empty. With #AgentsMemoryCapability:live-update the model is
 * told to keep `MEMORY.md` up to date itself, else that it may only read.
 *
 * Generating (#AgentsMemoryCapability:generate): after each run, one JSON
 * line (`updated_at`, `rollout_id`, `input`, `generated_items`,
 * `terminal_metadata`, `final_output`; system and developer messages,
 * reasoning and compaction items left out) is appended to
 * `<sessions-dir>/<rollout_id>.jsonl`, one rollout per session. When a
 * session the runner owns is closed, two model runs turn the rollout into
 * memory: phase one (agent `sandbox-memory-phase-one`, model
 * #AgentsMemoryCapability:phase-one-model, structured output
 * `{rollout_slug, rollout_summary, raw_memory}`) writes
 * `memories/raw_memories/<id>.md` and
 * `memories/rollout_summaries/<id>_<slug>.md`; phase two (sandbox agent
 * `sandbox-memory-phase-two` on the same session, model
 * #AgentsMemoryCapability:phase-two-model, at most 500 turns) folds the
 * newest 256 raw memories (gathered in `memories/raw_memories.md`) into
 * `MEMORY.md`, `memory_summary.md` and `skills/`, and
 * `memories/phase_two_selection.json` records what it used. The model
 * object is #AgentsMemoryCapability:model, else the run's. Failures are
 * logged, never raised: a run does not fail because its memory could not
 * be written. The phases run from a pre-stop hook of the session
 * (agents_sandbox_session_add_pre_stop_hook()) registered by its first
 * recorded run: the runner's cleanup runs it for a session the runner
 * owns, agents_sandbox_session_close_async() for a session the caller
 * owns.
 *
 * In an agent file: `{"type": "memory", "live_update": false}`.
 */

#define RESOURCE_DIR "/org/libagents/Agents/sandbox/"
#define READ_ONLY_TEXT "Never update memories. You can only read them."
#define DEFAULT_PHASE_ONE_MODEL "gpt-5.4-mini"
#define DEFAULT_PHASE_TWO_MODEL "gpt-5.5"

enum
{
  PROP_0,
  PROP_READ,
  PROP_LIVE_UPDATE,
  PROP_GENERATE,
  PROP_MEMORIES_DIR,
  PROP_SESSIONS_DIR,
  PROP_MODEL,
  PROP_PHASE_ONE_MODEL,
  PROP_PHASE_TWO_MODEL,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void memory_initable_iface_init (GInitableIface *iface);
static void memory_capability_iface_init (AgentsCapabilityInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  AgentsMemoryCapability,
  agents_memory_capability,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (G_TYPE_INITABLE, memory_initable_iface_init)
    G_IMPLEMENT_INTERFACE (AGENTS_TYPE_CAPABILITY,
                           memory_capability_iface_init))

/* ---- helpers ----------------------------------------------------------- */

static void
memory_error (GError **error, const char *message)
{
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, NULL,
                            "%s", message);
}

static gboolean
check_layout_dir (const char *name, const char *value, GError **error)
{
  gboolean ok = value != NULL && *value != '\0' && !g_path_is_absolute (value);
  g_auto (GStrv) parts = NULL;

  if (ok)
    {
      parts = g_strsplit (value, "/", -1);
      for (guint i = 0; parts[i] != NULL && ok; i++)
        ok = strcmp (parts[i], "..") != 0;
    }
  if (!ok)
    agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                              NULL,
                              "layout.%s must be relative to the sandbox "
                              "workspace root, got: %s",
                              name, value ? value : "");
  return ok;
}

static gboolean
check_config (AgentsMemoryCapability *self, GError **error)
{
  if (!self->read && !self->generate)
    {
      memory_error (error,
                    "Memory requires at least one of `read` or `generate`.");
      return FALSE;
    }
  return check_layout_dir ("memories_dir", self->memories_dir, error) &&
         check_layout_dir ("sessions_dir", self->sessions_dir, error);
}

char *
agents_memory_load_prompt (const char *name)
{
  g_autofree char *path = g_strconcat (RESOURCE_DIR, name, NULL);
  g_autoptr (GBytes) bytes = g_resource_lookup_data (
    agents_get_resource (), path, G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  gsize size = 0;
  const char *data;

  g_assert (bytes != NULL); /* compiled in */
  data = g_bytes_get_data (bytes, &size);
  while (size > 0 && g_ascii_isspace (data[size - 1]))
    size--;
  return g_strndup (data, size);
}

/* Fills `{name}` placeholders of @template in one pass, so a value is
 * never searched for placeholders itself. @pairs: name, value, …, NULL. */
char *
agents_memory_fill_template (const char *template, const char *const *pairs)
{
  GString *out = g_string_new (NULL);
  const char *p = template;

  while (*p != '\0')
    {
      gboolean replaced = FALSE;

      if (*p == '{')
        for (guint i = 0; pairs[i] != NULL; i += 2)
          {
            gsize n = strlen (pairs[i]);

            if (strncmp (p + 1, pairs[i], n) == 0 && p[n + 1] == '}')
              {
                g_string_append (out, pairs[i + 1]);
                p += n + 2;
                replaced = TRUE;
                break;
              }
          }
      if (!replaced)
        g_string_append_c (out, *p++);
    }
  return g_string_free (out, FALSE);
}

static const char *
run_as_name (AgentsCapability *capability)
{
  AgentsUser *user = agents_capability_get_run_as (capability);

  return user != NULL ? agents_user_get_name (user) : NULL;
}

char *
agents_memory_now_iso8601 (void)
{
  g_autoptr (GDateTime) now = g_date_time_new_now_utc ();

  return g_date_time_format_iso8601 (now);
}

GBytes *
agents_memory_text_bytes (char *text)
{
  return g_bytes_new_take (text, strlen (text));
}

/* ---- read phase -------------------------------------------------------- */

static char *
render_read_prompt (AgentsMemoryCapability *self, const char *summary)
{
  g_autofree char *template =
    agents_memory_load_prompt ("memory-read-prompt.md");
  g_autofree char *update = NULL;
  const char *update_pairs[] = { "memory_dir", self->memories_dir, NULL };

  if (self->live_update)
    {
      g_autofree char *update_template =
        agents_memory_load_prompt ("memory-update-prompt.md");

      update = agents_memory_fill_template (update_template, update_pairs);
    }
  else
    update = g_strdup (READ_ONLY_TEXT);
  {
    const char *pairs[] = {
      "memory_dir", self->memories_dir, "memory_update_instructions",
      update,       "summary",          summary,
      NULL
    };

    return agents_memory_fill_template (template, pairs);
  }
}

static void
summary_read (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  AgentsMemoryCapability *self = g_task_get_source_object (task);
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = agents_sandbox_session_read_bytes_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  g_autofree char *text = NULL;
  g_autofree char *summary = NULL;

  if (bytes == NULL)
    {
      g_debug ("memory: no summary to read: %s", error->message);
      g_task_return_pointer (task, NULL, NULL);
      return;
    }
  text = g_utf8_make_valid (g_bytes_get_data (bytes, NULL),
                            g_bytes_get_size (bytes));
  g_strstrip (text);
  if (*text == '\0')
    {
      g_task_return_pointer (task, NULL, NULL);
      return;
    }
  summary = agents_truncate_text_to_tokens (text, strlen (text),
                                            AGENTS_MEMORY_SUMMARY_MAX_TOKENS);
  g_task_return_pointer (task, render_read_prompt (self, summary), g_free);
}

static void
memory_instructions (AgentsCapability *capability,
                     AgentsManifest *manifest,
                     GTask *task)
{
  AgentsMemoryCapability *self = AGENTS_MEMORY_CAPABILITY (capability);
  AgentsSandboxSession *session = agents_capability_get_session (capability);
  g_autofree char *path = NULL;
  GError *error = NULL;

  if (!check_config (self, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  if (!self->read || session == NULL)
    {
      g_task_return_pointer (task, NULL, NULL);
      return;
    }
  path = g_strdup_printf ("%s/memory_summary.md", self->memories_dir);
  agents_sandbox_session_read_bytes_async (
    session, path, run_as_name (capability), g_task_get_cancellable (task),
    summary_read, g_object_ref (task));
}

/* ---- rollouts ---------------------------------------------------------- */

static GQuark
rollout_quark (void)
{
  return g_quark_from_static_string ("agents-memory-rollout-id");
}

const char *
agents_memory_session_rollout_id (AgentsSandboxSession *session)
{
  return g_object_get_qdata (G_OBJECT (session), rollout_quark ());
}

static const char *
ensure_rollout_id (AgentsSandboxSession *session)
{
  const char *id = agents_memory_session_rollout_id (session);

  if (id == NULL)
    {
      g_object_set_qdata_full (G_OBJECT (session), rollout_quark (),
                               g_uuid_string_random (), g_free);
      id = agents_memory_session_rollout_id (session);
    }
  return id;
}

/* System and developer messages, reasoning and compaction items are not
 * part of a rollout. */
static gboolean
is_kept_item (JsonNode *item)
{
  JsonObject *object;
  const char *type;
  const char *role;

  if (!JSON_NODE_HOLDS_OBJECT (item))
    return TRUE;
  object = json_node_get_object (item);
  type = json_object_get_string_member_with_default (object, "type", NULL);
  role = json_object_get_string_member_with_default (object, "role", NULL);
  return g_strcmp0 (type, "reasoning") != 0 &&
         g_strcmp0 (type, "compaction") != 0 &&
         g_strcmp0 (role, "system") != 0 && g_strcmp0 (role, "developer") != 0;
}

static JsonNode *
rollout_input (JsonNode *input)
{
  JsonArray *kept = json_array_new ();
  JsonNode *node;

  if (input != NULL && JSON_NODE_HOLDS_ARRAY (input))
    {
      JsonArray *items = json_node_get_array (input);

      for (guint i = 0; i < json_array_get_length (items); i++)
        if (is_kept_item (json_array_get_element (items, i)))
          json_array_add_element (
            kept, json_node_copy (json_array_get_element (items, i)));
    }
  else if (input != NULL && JSON_NODE_HOLDS_VALUE (input))
    {
      JsonObject *message = json_object_new ();

      json_object_set_string_member (message, "role", "user");
      json_object_set_member (message, "content", json_node_copy (input));
      json_array_add_object_element (kept, message);
    }
  node = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (node, kept);
  return node;
}

static JsonNode *
rollout_items (GListModel *items)
{
  JsonArray *kept = json_array_new ();
  JsonNode *result;

  for (guint i = 0; i < g_list_model_get_n_items (items); i++)
    {
      g_autoptr (AgentsRunItem) item = g_list_model_get_item (items, i);
      JsonObject *raw = agents_run_item_get_raw_item (item);
      g_autoptr (JsonNode) node = NULL;

      if (raw == NULL)
        continue;
      node = json_node_init_object (json_node_alloc (), raw);
      if (is_kept_item (node))
        json_array_add_element (kept, json_node_copy (node));
    }
  result = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (result, kept);
  return result;
}

static char *
rollout_line (AgentsRunResult *result, const char *rollout_id)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (JsonNode) root = NULL;
  g_autofree char *updated_at = agents_memory_now_iso8601 ();
  AgentsAgent *last = agents_run_result_get_last_agent (result);
  JsonNode *final_output = agents_run_result_get_final_output (result);
  guint n_interruptions =
    g_list_model_get_n_items (agents_run_result_get_interruptions (result));

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "updated_at");
  json_builder_add_string_value (builder, updated_at);
  json_builder_set_member_name (builder, "rollout_id");
  json_builder_add_string_value (builder, rollout_id);
  json_builder_set_member_name (builder, "input");
  json_builder_add_value (builder,
                          rollout_input (agents_run_result_get_input (result)));
  json_builder_set_member_name (builder, "generated_items");
  json_builder_add_value (
    builder, rollout_items (agents_run_result_get_new_items (result)));
  json_builder_set_member_name (builder, "terminal_metadata");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "last_agent");
  json_builder_add_string_value (builder,
                                 last ? agents_agent_get_name (last) : NULL);
  json_builder_set_member_name (builder, "interrupted");
  json_builder_add_boolean_value (builder, n_interruptions > 0);
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "final_output");
  if (final_output != NULL)
    json_builder_add_value (builder, json_node_copy (final_output));
  else
    json_builder_add_null_value (builder);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  return json_to_string (root, FALSE);
}

typedef struct
{
  AgentsSandboxSession *session;
  char *path;
  char *line;
} RecordOp;

static void
record_op_free (RecordOp *op)
{
  g_clear_object (&op->session);
  g_free (op->path);
  g_free (op->line);
  g_free (op);
}

static void
rollout_written (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;

  if (!agents_sandbox_session_write_bytes_finish (
        AGENTS_SANDBOX_SESSION (source), result, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
rollout_read (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  RecordOp *op = g_task_get_task_data (task);
  g_autoptr (GBytes) old = agents_sandbox_session_read_bytes_finish (
    AGENTS_SANDBOX_SESSION (source), result, NULL);
  g_autoptr (GBytes) bytes = NULL;
  GString *text = g_string_new (NULL);

  /* A missing file starts the rollout. */
  if (old != NULL)
    g_string_append_len (text, g_bytes_get_data (old, NULL),
                         g_bytes_get_size (old));
  if (text->len > 0 && text->str[text->len - 1] != '\n')
    g_string_append_c (text, '\n');
  g_string_append_printf (text, "%s\n", op->line);
  bytes = g_string_free_to_bytes (text);
  agents_sandbox_session_write_bytes_async (
    op->session, op->path, bytes, NULL, g_task_get_cancellable (task),
    rollout_written, g_object_ref (task));
}

void
agents_memory_capability_record_run_async (AgentsMemoryCapability *self,
                                           AgentsRunResult *result,
                                           GCancellable *cancellable,
                                           GAsyncReadyCallback callback,
                                           gpointer user_data)
{
  g_autoptr (GTask) task = g_task_new (self, cancellable, callback, user_data);
  AgentsSandboxSession *session =
    agents_capability_get_session (AGENTS_CAPABILITY (self));
  RecordOp *op;
  const char *id;

  g_task_set_source_tag (task, agents_memory_capability_record_run_async);
  if (session == NULL || !self->generate)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  id = ensure_rollout_id (session);
  op = g_new0 (RecordOp, 1);
  op->session = g_object_ref (session);
  op->path = g_strdup_printf ("%s/%s.jsonl", self->sessions_dir, id);
  op->line = rollout_line (result, id);
  g_task_set_task_data (task, op, (GDestroyNotify) record_op_free);
  agents_sandbox_session_read_bytes_async (session, op->path, NULL, cancellable,
                                           rollout_read, g_object_ref (task));
}

gboolean
agents_memory_capability_record_run_finish (AgentsMemoryCapability *self,
                                            GAsyncResult *result,
                                            GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- the capability ---------------------------------------------------- */

static const char *
memory_get_capability_type (AgentsCapability *self)
{
  return "memory";
}

/* The memory is read and written with commands; a model that updates
 * it itself edits MEMORY.md with the filesystem tools. */
static char **
memory_get_required_types (AgentsCapability *capability)
{
  AgentsMemoryCapability *self = AGENTS_MEMORY_CAPABILITY (capability);
  GStrvBuilder *builder = g_strv_builder_new ();
  char **types;

  g_strv_builder_add (builder, "shell");
  if (self->read && self->live_update)
    g_strv_builder_add (builder, "filesystem");
  types = g_strv_builder_end (builder);
  g_strv_builder_unref (builder);
  return types;
}

static void
memory_capability_iface_init (AgentsCapabilityInterface *iface)
{
  iface->get_capability_type = memory_get_capability_type;
  iface->instructions = memory_instructions;
  iface->get_required_types = memory_get_required_types;
}

static gboolean
memory_initable_init (GInitable *initable,
                      GCancellable *cancellable,
                      GError **error)
{
  return check_config (AGENTS_MEMORY_CAPABILITY (initable), error);
}

static void
memory_initable_iface_init (GInitableIface *iface)
{
  iface->init = memory_initable_init;
}

/* ---- GObject ----------------------------------------------------------- */

static void
agents_memory_capability_finalize (GObject *object)
{
  AgentsMemoryCapability *self = AGENTS_MEMORY_CAPABILITY (object);

  g_free (self->memories_dir);
  g_free (self->sessions_dir);
  g_clear_object (&self->model);
  g_free (self->phase_one_model);
  g_free (self->phase_two_model);
  G_OBJECT_CLASS (agents_memory_capability_parent_class)->finalize (object);
}

static gboolean *
bool_slot (AgentsMemoryCapability *self, guint prop_id)
{
  switch (prop_id)
    {
    case PROP_READ:
      return &self->read;
    case PROP_LIVE_UPDATE:
      return &self->live_update;
    case PROP_GENERATE:
      return &self->generate;
    default:
      return NULL;
    }
}

static char **
string_slot (AgentsMemoryCapability *self, guint prop_id)
{
  switch (prop_id)
    {
    case PROP_MEMORIES_DIR:
      return &self->memories_dir;
    case PROP_SESSIONS_DIR:
      return &self->sessions_dir;
    case PROP_PHASE_ONE_MODEL:
      return &self->phase_one_model;
    case PROP_PHASE_TWO_MODEL:
      return &self->phase_two_model;
    default:
      return NULL;
    }
}

static void
memory_get_property (GObject *object,
                     guint prop_id,
                     GValue *value,
                     GParamSpec *pspec)
{
  AgentsMemoryCapability *self = AGENTS_MEMORY_CAPABILITY (object);
  gboolean *flag = bool_slot (self, prop_id);
  char **string = string_slot (self, prop_id);

  if (flag != NULL)
    g_value_set_boolean (value, *flag);
  else if (string != NULL)
    g_value_set_string (value, *string);
  else if (prop_id == PROP_MODEL)
    g_value_set_object (value, self->model);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
memory_set_property (GObject *object,
                     guint prop_id,
                     const GValue *value,
                     GParamSpec *pspec)
{
  AgentsMemoryCapability *self = AGENTS_MEMORY_CAPABILITY (object);
  gboolean *flag = bool_slot (self, prop_id);
  char **string = string_slot (self, prop_id);

  if (flag != NULL && *flag != g_value_get_boolean (value))
    {
      *flag = g_value_get_boolean (value);
      g_object_notify_by_pspec (object, pspec);
    }
  else if (string != NULL &&
           g_strcmp0 (*string, g_value_get_string (value)) != 0)
    {
      g_free (*string);
      *string = g_value_dup_string (value);
      g_object_notify_by_pspec (object, pspec);
    }
  else if (prop_id == PROP_MODEL)
    agents_memory_capability_set_model (self, g_value_get_object (value));
  else if (flag == NULL && string == NULL)
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static GParamSpec *
bool_param (const char *name, gboolean default_value)
{
  return g_param_spec_boolean (name, NULL, NULL, default_value,
                               G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                                 G_PARAM_STATIC_STRINGS);
}

static GParamSpec *
string_param (const char *name, const char *default_value)
{
  return g_param_spec_string (name, NULL, NULL, default_value,
                              G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                                G_PARAM_STATIC_STRINGS);
}

static void
agents_memory_capability_class_init (AgentsMemoryCapabilityClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = agents_memory_capability_finalize;
  object_class->get_property = memory_get_property;
  object_class->set_property = memory_set_property;

  /**
   * AgentsMemoryCapability:read:
   *
   * Whether the memory summary goes into the instructions.
   */
  properties[PROP_READ] = bool_param ("read", TRUE);
  /**
   * AgentsMemoryCapability:live-update:
   *
   * Whether the model is told to update `MEMORY.md` itself during a run
   * (else that it may only read memory).
   */
  properties[PROP_LIVE_UPDATE] = bool_param ("live-update", TRUE);
  /**
   * AgentsMemoryCapability:generate:
   *
   * Whether runs are recorded and turned into memory when the session
   * closes.
   */
  properties[PROP_GENERATE] = bool_param ("generate", TRUE);
  /**
   * AgentsMemoryCapability:memories-dir:
   *
   * The memory folder, relative to the workspace root.
   */
  properties[PROP_MEMORIES_DIR] = string_param ("memories-dir", "memories");
  /**
   * AgentsMemoryCapability:sessions-dir:
   *
   * The folder of the rollout files, relative to the workspace root.
   */
  properties[PROP_SESSIONS_DIR] = string_param ("sessions-dir", "sessions");
  /**
   * AgentsMemoryCapability:phase-one-model:
   *
   * The model name phase one asks for.
   */
  properties[PROP_PHASE_ONE_MODEL] =
    string_param ("phase-one-model", DEFAULT_PHASE_ONE_MODEL);
  /**
   * AgentsMemoryCapability:phase-two-model:
   *
   * The model name phase two asks for.
   */
  properties[PROP_PHASE_TWO_MODEL] =
    string_param ("phase-two-model", DEFAULT_PHASE_TWO_MODEL);
  /**
   * AgentsMemoryCapability:model:
   *
   * The model object the generate phases call, or %NULL for the run's
   * (the run config's model, else the agent's). Clones share it.
   */
  properties[PROP_MODEL] = g_param_spec_object (
    "model", NULL, NULL, AGENTS_TYPE_MODEL,
    G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS |
      AGENTS_CAPABILITY_PARAM_SHARED);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
agents_memory_capability_init (AgentsMemoryCapability *self)
{
  self->read = TRUE;
  self->live_update = TRUE;
  self->generate = TRUE;
  self->memories_dir = g_strdup ("memories");
  self->sessions_dir = g_strdup ("sessions");
  self->phase_one_model = g_strdup (DEFAULT_PHASE_ONE_MODEL);
  self->phase_two_model = g_strdup (DEFAULT_PHASE_TWO_MODEL);
}

/**
 * agents_memory_capability_new:
 *
 * Creates a `memory` capability that reads and generates memory.
 *
 * Returns: (transfer full): the capability
 */
AgentsCapability *
agents_memory_capability_new (void)
{
  return g_object_new (AGENTS_TYPE_MEMORY_CAPABILITY, NULL);
}

/**
 * agents_memory_capability_get_generate:
 * @self: a memory capability
 *
 * Gets #AgentsMemoryCapability:generate.
 *
 * Returns: whether memories are generated
 */
gboolean
agents_memory_capability_get_generate (AgentsMemoryCapability *self)
{
  g_return_val_if_fail (AGENTS_IS_MEMORY_CAPABILITY (self), FALSE);
  return self->generate;
}

/**
 * agents_memory_capability_set_generate:
 * @self: a memory capability
 * @generate: whether memories are generated
 *
 * Sets #AgentsMemoryCapability:generate.
 */
void
agents_memory_capability_set_generate (AgentsMemoryCapability *self,
                                       gboolean generate)
{
  g_return_if_fail (AGENTS_IS_MEMORY_CAPABILITY (self));
  g_object_set (self, "generate", !!generate, NULL);
}

/**
 * agents_memory_capability_get_model:
 * @self: a memory capability
 *
 * Gets #AgentsMemoryCapability:model.
 *
 * Returns: (transfer none) (nullable): the model of the generate phases
 */
AgentsModel *
agents_memory_capability_get_model (AgentsMemoryCapability *self)
{
  g_return_val_if_fail (AGENTS_IS_MEMORY_CAPABILITY (self), NULL);
  return self->model;
}

/**
 * agents_memory_capability_set_model:
 * @self: a memory capability
 * @model: (nullable): the model of the generate phases
 *
 * Sets #AgentsMemoryCapability:model.
 */
void
agents_memory_capability_set_model (AgentsMemoryCapability *self,
                                    AgentsModel *model)
{
  g_return_if_fail (AGENTS_IS_MEMORY_CAPABILITY (self));
  g_return_if_fail (model == NULL || AGENTS_IS_MODEL (model));

  if (g_set_object (&self->model, model))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODEL]);
}
