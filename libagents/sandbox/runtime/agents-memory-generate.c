/* agents-memory-generate.c - the memory capability's two phases, turning a
 * session's rollout into memory (runtime/: they run agents)
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
#include "agents-sandbox-agent.h"
#include "agents-sandbox-error-private.h"
#include "agents-sandbox-run-config.h"
#include "agents-token-truncation-private.h"
#include "run/agents-runner.h"

#define PHASE_TWO_MAX_TURNS 500

typedef struct _GenerateOp GenerateOp;
typedef void (*GenerateStep) (GTask *task);

struct _GenerateOp
{
  AgentsSandboxSession *session;
  AgentsModel *model;
  char *rollout_id;
  char *slug;
  GPtrArray *raw_ids; /* raw memories phase two uses, newest first */
  guint next;
  GString *raw_all;
  GenerateStep after_write;
};

static void
generate_op_free (GenerateOp *op)
{
  g_clear_object (&op->session);
  g_clear_object (&op->model);
  g_free (op->rollout_id);
  g_free (op->slug);
  g_clear_pointer (&op->raw_ids, g_ptr_array_unref);
  if (op->raw_all != NULL)
    g_string_free (op->raw_all, TRUE);
  g_free (op);
}

/* Memory never fails a run: the failure is logged and the work ends. */
static void
generate_give_up (GTask *task, const char *what, const GError *error)
{
  GenerateOp *op = g_task_get_task_data (task);

  g_warning ("memory: %s failed for rollout %s: %s", what, op->rollout_id,
             error ? error->message : "no usable answer");
  g_task_return_boolean (task, TRUE);
  g_object_unref (task);
}

static void
generate_written (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  GenerateOp *op = g_task_get_task_data (task);
  g_autoptr (GError) error = NULL;

  if (!agents_sandbox_session_write_bytes_finish (
        AGENTS_SANDBOX_SESSION (source), result, &error))
    {
      generate_give_up (task, "writing memory", error);
      return;
    }
  op->after_write (task);
}

/* Writes @text (taken) at @path, then runs @next. */
static void
generate_write (GTask *task, const char *path, char *text, GenerateStep next)
{
  GenerateOp *op = g_task_get_task_data (task);
  g_autoptr (GBytes) bytes = agents_memory_text_bytes (text);

  op->after_write = next;
  agents_sandbox_session_write_bytes_async (op->session, path, bytes, NULL,
                                            g_task_get_cancellable (task),
                                            generate_written, task);
}

static void
generate_done (GTask *task)
{
  g_task_return_boolean (task, TRUE);
  g_object_unref (task);
}

static char *
memory_path (AgentsMemoryCapability *self, const char *name)
{
  return g_strdup_printf ("%s/%s", self->memories_dir, name);
}

/* -- phase two -- */

static char *
selection_json (GenerateOp *op)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (JsonNode) root = NULL;
  g_autofree char *updated_at = agents_memory_now_iso8601 ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "updated_at");
  json_builder_add_string_value (builder, updated_at);
  json_builder_set_member_name (builder, "rollout_ids");
  json_builder_begin_array (builder);
  for (guint i = 0; i < op->raw_ids->len; i++)
    json_builder_add_string_value (builder, op->raw_ids->pdata[i]);
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  return json_to_string (root, TRUE);
}

static void
phase_two_ran (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  AgentsMemoryCapability *self = g_task_get_source_object (task);
  GenerateOp *op = g_task_get_task_data (task);
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsRunResult) run =
    agents_runner_run_finish (AGENTS_RUNNER (source), result, &error);
  g_autofree char *path = NULL;

  if (run == NULL)
    {
      generate_give_up (task, "phase two", error);
      return;
    }
  path = memory_path (self, "phase_two_selection.json");
  generate_write (task, path, selection_json (op), generate_done);
}

static AgentsSandboxAgent *
phase_two_agent (AgentsMemoryCapability *self, GenerateOp *op)
{
  AgentsSandboxAgent *agent =
    agents_sandbox_agent_new ("sandbox-memory-phase-two");
  g_autofree char *template =
    agents_memory_load_prompt ("memory-phase-two-prompt.md");
  const char *pairs[] = { "memory_dir", self->memories_dir, NULL };
  g_autofree char *instructions = agents_memory_fill_template (template, pairs);
  AgentsCapability *capabilities[] = { agents_filesystem_capability_new (),
                                       agents_shell_capability_new () };

  agents_agent_set_instructions (AGENTS_AGENT (agent), instructions);
  agents_agent_set_model (AGENTS_AGENT (agent), op->model);
  agents_agent_set_model_name (AGENTS_AGENT (agent), self->phase_two_model);
  agents_sandbox_agent_set_capabilities (agent, capabilities,
                                         G_N_ELEMENTS (capabilities));
  for (guint i = 0; i < G_N_ELEMENTS (capabilities); i++)
    g_object_unref (capabilities[i]);
  return agent;
}

static void
run_phase_two (GTask *task)
{
  AgentsMemoryCapability *self = g_task_get_source_object (task);
  GenerateOp *op = g_task_get_task_data (task);
  g_autoptr (AgentsSandboxAgent) agent = phase_two_agent (self, op);
  g_autoptr (AgentsSandboxRunConfig) sandbox = agents_sandbox_run_config_new ();
  g_autoptr (AgentsRunConfig) config = agents_run_config_new ();
  g_autoptr (AgentsRunner) runner = agents_runner_new ();
  g_autofree char *text = g_strdup_printf (
    "Consolidate the memory folder `%s` now, from the %u raw memories in "
    "`%s/raw_memories.md`.",
    self->memories_dir, op->raw_ids->len, self->memories_dir);
  g_autoptr (JsonNode) input = json_node_init_string (json_node_alloc (), text);

  agents_sandbox_run_config_set_session (sandbox, op->session);
  agents_run_config_set_sandbox (config, G_OBJECT (sandbox));
  agents_run_config_set_max_turns (config, PHASE_TWO_MAX_TURNS);
  agents_runner_run_async (runner, AGENTS_AGENT (agent), input, config, NULL,
                           NULL, g_task_get_cancellable (task), phase_two_ran,
                           task);
}

static void
write_raw_memories (GTask *task)
{
  AgentsMemoryCapability *self = g_task_get_source_object (task);
  GenerateOp *op = g_task_get_task_data (task);
  g_autofree char *path = memory_path (self, "raw_memories.md");

  generate_write (task, path,
                  g_string_free (g_steal_pointer (&op->raw_all), FALSE),
                  run_phase_two);
}

static void read_next_raw (GTask *task);

static void
raw_read (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  GenerateOp *op = g_task_get_task_data (task);
  g_autoptr (GBytes) bytes = agents_sandbox_session_read_bytes_finish (
    AGENTS_SANDBOX_SESSION (source), result, NULL);

  if (bytes != NULL)
    {
      g_autofree char *text = g_utf8_make_valid (g_bytes_get_data (bytes, NULL),
                                                 g_bytes_get_size (bytes));

      g_string_append_printf (op->raw_all, "## Rollout %s\n\n%s\n\n",
                              (const char *) op->raw_ids->pdata[op->next - 1],
                              g_strstrip (text));
    }
  read_next_raw (task);
}

static void
read_next_raw (GTask *task)
{
  AgentsMemoryCapability *self = g_task_get_source_object (task);
  GenerateOp *op = g_task_get_task_data (task);
  g_autofree char *path = NULL;

  if (op->next >= op->raw_ids->len)
    {
      write_raw_memories (task);
      return;
    }
  path = g_strdup_printf ("%s/raw_memories/%s.md", self->memories_dir,
                          (const char *) op->raw_ids->pdata[op->next++]);
  agents_sandbox_session_read_bytes_async (
    op->session, path, NULL, g_task_get_cancellable (task), raw_read, task);
}

static int
compare_desc (gconstpointer a, gconstpointer b)
{
  return -strcmp (*(const char *const *) a, *(const char *const *) b);
}

static void
raw_listed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  GenerateOp *op = g_task_get_task_data (task);
  g_autoptr (GListModel) listing = agents_sandbox_session_ls_finish (
    AGENTS_SANDBOX_SESSION (source), result, NULL);
  g_autoptr (GPtrArray) others = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; listing && i < g_list_model_get_n_items (listing); i++)
    {
      g_autoptr (AgentsFileEntry) entry = g_list_model_get_item (listing, i);
      g_autofree char *name =
        g_path_get_basename (agents_file_entry_get_path (entry));

      if (agents_file_entry_get_kind (entry) == AGENTS_ENTRY_KIND_FILE &&
          g_str_has_suffix (name, ".md"))
        {
          name[strlen (name) - 3] = '\0';
          if (strcmp (name, op->rollout_id) != 0)
            g_ptr_array_add (others, g_steal_pointer (&name));
        }
    }
  /* This session's rollout first, then the others, newest name first. */
  g_ptr_array_sort (others, compare_desc);
  op->raw_ids = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (op->raw_ids, g_strdup (op->rollout_id));
  for (guint i = 0;
       i < others->len && op->raw_ids->len < AGENTS_MEMORY_MAX_RAW_MEMORIES;
       i++)
    g_ptr_array_add (op->raw_ids, g_strdup (others->pdata[i]));
  op->raw_all = g_string_new ("# Raw memories\n\n");
  read_next_raw (task);
}

static void
list_raw_memories (GTask *task)
{
  AgentsMemoryCapability *self = g_task_get_source_object (task);
  GenerateOp *op = g_task_get_task_data (task);
  g_autofree char *path = memory_path (self, "raw_memories");

  agents_sandbox_session_ls_async (
    op->session, path, g_task_get_cancellable (task), raw_listed, task);
}

/* -- phase one -- */

static JsonObject *
phase_one_schema (void)
{
  g_autoptr (JsonNode) node = json_from_string (
    "{\"type\":\"object\",\"properties\":{"
    "\"rollout_slug\":{\"type\":\"string\"},"
    "\"rollout_summary\":{\"type\":\"string\"},"
    "\"raw_memory\":{\"type\":\"string\"}},"
    "\"required\":[\"rollout_slug\",\"rollout_summary\",\"raw_memory\"],"
    "\"additionalProperties\":false}",
    NULL);

  return json_object_ref (json_node_get_object (node));
}

/* A slug safe in a file name: [a-z0-9_], at most 64 characters. */
static char *
safe_slug (const char *slug)
{
  GString *out = g_string_new (NULL);

  for (const char *p = slug; *p != '\0' && out->len < 64; p++)
    {
      char c = g_ascii_tolower (*p);

      if (g_ascii_isalnum (c) || c == '_')
        g_string_append_c (out, c);
      else if ((c == '-' || c == ' ') && out->len > 0 &&
               out->str[out->len - 1] != '_')
        g_string_append_c (out, '_');
    }
  if (out->len == 0)
    g_string_append (out, "rollout");
  return g_string_free (out, FALSE);
}

static JsonObject *
phase_one_output (AgentsRunResult *run)
{
  JsonNode *output = agents_run_result_get_final_output (run);
  g_autoptr (JsonNode) parsed = NULL;
  JsonObject *object;
  const char *members[] = { "rollout_slug", "rollout_summary", "raw_memory" };

  if (output != NULL && JSON_NODE_HOLDS_VALUE (output) &&
      json_node_get_value_type (output) == G_TYPE_STRING)
    output = parsed = json_from_string (json_node_get_string (output), NULL);
  if (output == NULL || !JSON_NODE_HOLDS_OBJECT (output))
    return NULL;
  object = json_node_get_object (output);
  for (guint i = 0; i < G_N_ELEMENTS (members); i++)
    {
      JsonNode *member = json_object_get_member (object, members[i]);

      if (member == NULL || !JSON_NODE_HOLDS_VALUE (member) ||
          json_node_get_value_type (member) != G_TYPE_STRING)
        return NULL;
    }
  return json_object_ref (object);
}

static void
write_rollout_summary (GTask *task)
{
  AgentsMemoryCapability *self = g_task_get_source_object (task);
  GenerateOp *op = g_task_get_task_data (task);
  g_autofree char *path =
    g_strdup_printf ("%s/rollout_summaries/%s_%s.md", self->memories_dir,
                     op->rollout_id, op->slug);
  JsonObject *output = g_object_get_data (G_OBJECT (task), "phase-one");

  generate_write (task, path,
                  g_strdup_printf ("%s\n", json_object_get_string_member (
                                             output, "rollout_summary")),
                  list_raw_memories);
}

static void
phase_one_ran (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  AgentsMemoryCapability *self = g_task_get_source_object (task);
  GenerateOp *op = g_task_get_task_data (task);
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsRunResult) run =
    agents_runner_run_finish (AGENTS_RUNNER (source), result, &error);
  g_autoptr (JsonObject) output = run ? phase_one_output (run) : NULL;
  g_autofree char *path = NULL;

  if (output == NULL)
    {
      generate_give_up (task, "phase one", error);
      return;
    }
  op->slug = safe_slug (json_object_get_string_member (output, "rollout_slug"));
  g_object_set_data_full (G_OBJECT (task), "phase-one",
                          json_object_ref (output),
                          (GDestroyNotify) json_object_unref);
  path = g_strdup_printf ("%s/raw_memories/%s.md", self->memories_dir,
                          op->rollout_id);
  generate_write (task, path,
                  g_strdup_printf ("%s\n", json_object_get_string_member (
                                             output, "raw_memory")),
                  write_rollout_summary);
}

static AgentsAgent *
phase_one_agent (AgentsMemoryCapability *self, GenerateOp *op)
{
  AgentsAgent *agent = agents_agent_new ("sandbox-memory-phase-one");
  g_autofree char *instructions =
    agents_memory_load_prompt ("memory-phase-one-prompt.md");
  g_autoptr (AgentsModelSettings) settings = agents_model_settings_new ();
  g_autoptr (JsonObject) reasoning = json_object_new ();
  g_autoptr (JsonObject) schema = phase_one_schema ();

  json_object_set_string_member (reasoning, "effort", "medium");
  agents_model_settings_set_reasoning (settings, reasoning);
  agents_agent_set_instructions (agent, instructions);
  agents_agent_set_model (agent, op->model);
  agents_agent_set_model_name (agent, self->phase_one_model);
  agents_agent_set_model_settings (agent, settings);
  agents_agent_set_output_schema (agent, schema);
  return agent;
}

static void
rollout_loaded (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  AgentsMemoryCapability *self = g_task_get_source_object (task);
  GenerateOp *op = g_task_get_task_data (task);
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = agents_sandbox_session_read_bytes_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  g_autoptr (AgentsAgent) agent = NULL;
  g_autoptr (AgentsRunner) runner = NULL;
  g_autoptr (AgentsRunConfig) config = NULL;
  g_autofree char *rollout = NULL;
  g_autofree char *message = NULL;
  g_autoptr (JsonNode) input = NULL;

  if (bytes == NULL)
    {
      generate_give_up (task, "reading the rollout", error);
      return;
    }
  rollout = agents_truncate_text_to_tokens (g_bytes_get_data (bytes, NULL),
                                            g_bytes_get_size (bytes),
                                            AGENTS_MEMORY_ROLLOUT_MAX_TOKENS);
  message = g_strdup_printf ("Rollout `%s` (JSON lines):\n\n%s", op->rollout_id,
                             rollout);
  input = json_node_init_string (json_node_alloc (), message);
  agent = phase_one_agent (self, op);
  runner = agents_runner_new ();
  config = agents_run_config_new ();
  agents_runner_run_async (runner, agent, input, config, NULL, NULL,
                           g_task_get_cancellable (task), phase_one_ran, task);
}

/* Runs the phases over the rollout @session recorded; @task returns TRUE
 * (the phases' failures are logged). */
static void
generate_in_session (AgentsMemoryCapability *self,
                     AgentsSandboxSession *session,
                     AgentsModel *model,
                     GTask *task)
{
  const char *id = session ? agents_memory_session_rollout_id (session) : NULL;
  GenerateOp *op;
  g_autofree char *path = NULL;

  if (model == NULL)
    model = self->model;
  if (id == NULL || model == NULL || !self->generate)
    {
      g_debug ("memory: nothing to generate");
      g_task_return_boolean (task, TRUE);
      return;
    }
  op = g_new0 (GenerateOp, 1);
  op->session = g_object_ref (session);
  op->model = g_object_ref (model);
  op->rollout_id = g_strdup (id);
  g_task_set_task_data (task, op, (GDestroyNotify) generate_op_free);
  path = g_strdup_printf ("%s/%s.jsonl", self->sessions_dir, id);
  agents_sandbox_session_read_bytes_async (session, path, NULL,
                                           g_task_get_cancellable (task),
                                           rollout_loaded, g_object_ref (task));
}

/**
 * agents_memory_capability_generate_async:
 * @self: a memory capability bound to a live session
 * @model: (nullable): the model of the two phases, or %NULL for
 *   #AgentsMemoryCapability:model
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the phases are over
 * @user_data: data for @callback
 *
 * Runs the two generate phases (see #AgentsMemoryCapability) over the
 * rollout the bound session recorded, while the session still runs.
 * There is rarely a need to call it: the first recorded run of a session
 * registers a pre-stop hook (agents_sandbox_session_add_pre_stop_hook())
 * that does it when the session is closed, by the runner for a session
 * it owns, by agents_sandbox_session_close_async() for one the caller
 * owns. Nothing happens without a recorded rollout, a model or
 * #AgentsMemoryCapability:generate.
 */
void
agents_memory_capability_generate_async (AgentsMemoryCapability *self,
                                         AgentsModel *model,
                                         GCancellable *cancellable,
                                         GAsyncReadyCallback callback,
                                         gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_MEMORY_CAPABILITY (self));
  g_return_if_fail (model == NULL || AGENTS_IS_MODEL (model));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_memory_capability_generate_async);
  generate_in_session (self,
                       agents_capability_get_session (AGENTS_CAPABILITY (self)),
                       model, task);
}

/**
 * agents_memory_capability_generate_finish:
 * @self: a memory capability
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_memory_capability_generate_async(). The phases' own
 * failures are logged, not returned.
 *
 * Returns: %TRUE
 */
gboolean
agents_memory_capability_generate_finish (AgentsMemoryCapability *self,
                                          GAsyncResult *result,
                                          GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- generating before the session stops ------------------------------- */

static GQuark
pre_stop_quark (void)
{
  return g_quark_from_static_string ("agents-memory-pre-stop-hook");
}

/* What the hook holds: an unbound copy of the capability (a bound one
 * would hold the session that holds the hook) and the model. */
typedef struct
{
  AgentsMemoryCapability *memory;
  AgentsModel *model;
} PreStopData;

static void
pre_stop_data_free (PreStopData *data)
{
  g_clear_object (&data->memory);
  g_clear_object (&data->model);
  g_free (data);
}

static void
pre_stop_generated (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) hook_task = user_data;
  g_autoptr (GError) error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    g_warning ("memory: %s", error->message);
  g_task_return_boolean (hook_task, TRUE);
}

static void
generate_pre_stop_hook (AgentsSandboxSession *session,
                        GTask *hook_task,
                        gpointer user_data)
{
  PreStopData *data = user_data;
  g_autoptr (GTask) task = NULL;

  /* The hook ran: a later run of the session registers it again. */
  g_object_set_qdata (G_OBJECT (session), pre_stop_quark (), NULL);
  task = g_task_new (data->memory, g_task_get_cancellable (hook_task),
                     pre_stop_generated, g_object_ref (hook_task));
  g_task_set_source_tag (task, generate_pre_stop_hook);
  generate_in_session (data->memory, session, data->model, task);
}

void
agents_memory_capability_generate_before_stop (AgentsMemoryCapability *self,
                                               AgentsModel *model)
{
  AgentsSandboxSession *session;
  PreStopData *data;

  g_return_if_fail (AGENTS_IS_MEMORY_CAPABILITY (self));

  session = agents_capability_get_session (AGENTS_CAPABILITY (self));
  if (session == NULL || !self->generate ||
      g_object_get_qdata (G_OBJECT (session), pre_stop_quark ()) != NULL)
    return;
  data = g_new0 (PreStopData, 1);
  data->memory = AGENTS_MEMORY_CAPABILITY (
    agents_capability_clone (AGENTS_CAPABILITY (self)));
  agents_capability_bind (AGENTS_CAPABILITY (data->memory), NULL);
  model = model ? model : self->model;
  data->model = model ? g_object_ref (model) : NULL;
  agents_sandbox_session_add_pre_stop_hook (
    session, generate_pre_stop_hook, data, (GDestroyNotify) pre_stop_data_free);
  g_object_set_qdata (G_OBJECT (session), pre_stop_quark (),
                      GUINT_TO_POINTER (TRUE));
}
