/* agents-sandbox-agent.c - agents that work in a sandbox
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-builtin-capabilities.h"
#include "agents-registry.h"
#include "agents-sandbox-error.h"
#include "agents-sandbox-instructions.h"
#include "agents-sandbox-runtime-private.h"

/**
 * AgentsSandboxAgent:
 *
 * An agent whose tools act in a sandbox: the reference SDK's
 * `SandboxAgent`. Running one needs an #AgentsSandboxRunConfig in the
 * run config's #AgentsRunConfig:sandbox; the runner then gives the agent
 * a live sandbox session (created from #AgentsSandboxAgent:default-manifest,
 * resumed from a saved run state, or injected) and runs an *execution
 * agent*: a per-run clone whose capabilities are bound to that session,
 * whose tools are the agent's own followed by the capabilities', and
 * whose system prompt is the sandbox prompt:
 *
 * |[
 * BASE                                  the default prompt, or the base
 * instructions
 *
 * # Agent instructions                  the agent's own instructions, when not
 * empty
 *
 * TEXT
 *
 * # Sandbox capability instructions     the capabilities' instructions, when
 * any
 *
 * A
 *
 * B
 *
 * # Sandbox remote mount policy         when the workspace has remote mounts
 *
 * …
 *
 * # Filesystem                          the workspace layout
 * You have access to a container with a filesystem. The filesystem layout is:
 *
 * /workspace
 * ]|
 *
 * Hooks, items, guardrails, instruction and prompt functions always see
 * the agent the user built, never the execution agent.
 *
 * The same agent object cannot take part in two runs at once: the second
 * fails with %AGENTS_RUN_ERROR_USER_ERROR ("cannot be reused
 * concurrently").
 */

/* A user function shared by an agent and its clones. */
typedef struct
{
  gatomicrefcount ref_count;
  AgentsInstructionsFunc func;
  gpointer user_data;
  GDestroyNotify destroy;
} BaseFunc;

static BaseFunc *
base_func_ref (BaseFunc *base_func)
{
  if (base_func != NULL)
    g_atomic_ref_count_inc (&base_func->ref_count);
  return base_func;
}

static void
base_func_unref (BaseFunc *base_func)
{
  if (base_func == NULL || !g_atomic_ref_count_dec (&base_func->ref_count))
    return;
  if (base_func->destroy != NULL)
    base_func->destroy (base_func->user_data);
  g_free (base_func);
}

struct _AgentsSandboxAgent
{
  AgentsAgent parent_instance;

  AgentsManifest *default_manifest;
  GListStore *capabilities;
  char *base_instructions;
  BaseFunc *base_func;
  AgentsUser *run_as;

  /* Execution agents only. */
  AgentsSandboxAgent *public_agent;
  AgentsSandboxSession *session;
  char *workspace_cwd; /* the run's, normalized, or NULL */
};

G_DEFINE_FINAL_TYPE (AgentsSandboxAgent,
                     agents_sandbox_agent,
                     AGENTS_TYPE_AGENT)

enum
{
  PROP_0,
  PROP_DEFAULT_MANIFEST,
  PROP_CAPABILITIES,
  PROP_BASE_INSTRUCTIONS,
  PROP_RUN_AS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* ---- System prompts ---------------------------------------------------- */

typedef struct
{
  AgentsRunContext *ctx;
  char *base;
  char *agent_text;
  AgentsManifest *manifest;
  const char *workspace_cwd;   /* the execution agent's */
  GPtrArray *capability_texts; /* char* */
  guint next;
} PromptOp;

static void
prompt_op_free (PromptOp *op)
{
  g_clear_object (&op->ctx);
  g_free (op->base);
  g_free (op->agent_text);
  g_clear_object (&op->manifest);
  g_ptr_array_unref (op->capability_texts);
  g_free (op);
}

static void
append_section (GString *out, const char *text)
{
  if (out->len > 0)
    g_string_append (out, "\n\n");
  g_string_append (out, text);
}

/* The `# Filesystem` section, with the run's working directory. The
 * runtime checked the cwd against this root before it made the agent. */
static char *
filesystem_section (PromptOp *op)
{
  g_autoptr (GError) error = NULL;
  char *text = agents_sandbox_filesystem_instructions_with_cwd (
    op->manifest, op->workspace_cwd, &error);

  if (text != NULL)
    return text;
  g_warning ("sandbox prompt: the working directory is left out: %s",
             error->message);
  return agents_sandbox_filesystem_instructions (op->manifest);
}

static char *
assemble_prompt (PromptOp *op)
{
  g_autoptr (GString) out = g_string_new (NULL);
  g_autofree char *policy = agents_sandbox_remote_mount_policy (op->manifest);
  g_autofree char *filesystem = filesystem_section (op);

  if (op->base != NULL && *op->base != '\0')
    append_section (out, op->base);
  if (op->agent_text != NULL && *op->agent_text != '\0')
    {
      append_section (out, "# Agent instructions\n\n");
      g_string_append (out, op->agent_text);
    }
  for (guint i = 0; i < op->capability_texts->len; i++)
    {
      if (i == 0)
        append_section (out, "# Sandbox capability instructions");
      append_section (out, op->capability_texts->pdata[i]);
    }
  if (policy != NULL)
    {
      append_section (out, "# Sandbox remote mount policy\n\n");
      g_string_append (out, policy);
    }
  append_section (out, filesystem);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static void next_capability_instructions (GTask *task);

static void
capability_instructions_done (GObject *source,
                              GAsyncResult *result,
                              gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  PromptOp *op = g_task_get_task_data (task);
  GError *error = NULL;
  char *text = agents_capability_instructions_finish (
    AGENTS_CAPABILITY (source), result, &error);

  if (error != NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  if (text != NULL && *text != '\0')
    g_ptr_array_add (op->capability_texts, text);
  else
    g_free (text);
  next_capability_instructions (g_steal_pointer (&task));
}

/* Asks the bound capabilities for their instructions, one after the
 * other, then completes @task (owned) with the whole prompt. */
static void
next_capability_instructions (GTask *task)
{
  AgentsSandboxAgent *self = g_task_get_source_object (task);
  PromptOp *op = g_task_get_task_data (task);
  GListModel *capabilities = G_LIST_MODEL (self->capabilities);
  g_autoptr (AgentsCapability) capability = NULL;

  if (op->next >= g_list_model_get_n_items (capabilities))
    {
      g_task_return_pointer (task, assemble_prompt (op), g_free);
      g_object_unref (task);
      return;
    }
  capability = g_list_model_get_item (capabilities, op->next++);
  agents_capability_instructions_async (capability, op->manifest,
                                        g_task_get_cancellable (task),
                                        capability_instructions_done, task);
}

static void
public_prompt_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  AgentsSandboxAgent *self = g_task_get_source_object (task);
  PromptOp *op = g_task_get_task_data (task);
  GError *error = NULL;

  op->agent_text = agents_agent_get_system_prompt_finish (AGENTS_AGENT (source),
                                                          result, &error);
  if (error != NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  /* The session's manifest as it is now, after capability mutations. */
  op->manifest =
    g_object_ref (agents_sandbox_session_get_manifest (self->session));
  next_capability_instructions (task);
}

static char *
base_instructions (AgentsSandboxAgent *self, AgentsRunContext *ctx)
{
  if (self->base_func != NULL)
    return self->base_func->func (ctx, AGENTS_AGENT (self->public_agent),
                                  self->base_func->user_data);
  if (self->base_instructions != NULL)
    return g_strdup (self->base_instructions);
  return g_strdup (agents_sandbox_get_default_instructions ());
}

/* The system prompt of an execution agent. */
static void
build_prompt (AgentsSandboxAgent *self, AgentsRunContext *ctx, GTask *task)
{
  PromptOp *op = g_new0 (PromptOp, 1);

  op->ctx = g_object_ref (ctx);
  op->workspace_cwd = self->workspace_cwd;
  op->capability_texts = g_ptr_array_new_with_free_func (g_free);
  g_task_set_task_data (task, op, (GDestroyNotify) prompt_op_free);
  op->base = base_instructions (self, ctx);
  /* The agent's own part comes from the public agent, so that dynamic
   * instructions see the agent the user built. */
  agents_agent_get_system_prompt_async (
    AGENTS_AGENT (self->public_agent), ctx, g_task_get_cancellable (task),
    public_prompt_done, g_object_ref (task));
}

static gboolean
run_lacks_sandbox (AgentsRunContext *ctx)
{
  AgentsRunConfig *config =
    ctx != NULL ? agents_run_context_get_run_config (ctx) : NULL;

  return config != NULL && agents_run_config_get_sandbox (config) == NULL;
}

static void
agents_sandbox_agent_get_system_prompt (AgentsAgent *agent,
                                        AgentsRunContext *ctx,
                                        GTask *task)
{
  AgentsSandboxAgent *self = AGENTS_SANDBOX_AGENT (agent);

  if (self->public_agent != NULL)
    {
      build_prompt (self, ctx, task);
      return;
    }
  if (run_lacks_sandbox (ctx))
    {
      g_task_return_error (
        task,
        agents_run_error_new (
          AGENTS_RUN_ERROR_USER_ERROR, NULL,
          _ ("SandboxAgent “%s” needs a sandbox: set AgentsRunConfig:sandbox "
             "to an AgentsSandboxRunConfig (the reference's "
             "RunConfig(sandbox=...))"),
          agents_agent_get_name (agent)));
      return;
    }
  AGENTS_AGENT_CLASS (agents_sandbox_agent_parent_class)
    ->get_system_prompt (agent, ctx, task);
}

/* ---- Identity and clones ----------------------------------------------- */

/* Not a hash: the agents of one name are sorted by this text, so that
 * their order follows their configuration, as the reference's does. */
static char *
agents_sandbox_agent_identity_fingerprint (AgentsAgent *agent)
{
  AgentsSandboxAgent *self = AGENTS_SANDBOX_AGENT (agent);
  GListModel *capabilities = G_LIST_MODEL (self->capabilities);
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (JsonNode) root = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "default_manifest");
  if (self->default_manifest != NULL)
    json_builder_add_value (builder,
                            agents_manifest_to_json (self->default_manifest));
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "capabilities");
  json_builder_begin_array (builder);
  for (guint i = 0; i < g_list_model_get_n_items (capabilities); i++)
    {
      g_autoptr (AgentsCapability) capability =
        g_list_model_get_item (capabilities, i);

      json_builder_add_value (builder, agents_capability_to_json (capability));
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  return json_to_string (root, FALSE);
}

static void
copy_capabilities (AgentsSandboxAgent *dest, AgentsSandboxAgent *src)
{
  GListModel *model = G_LIST_MODEL (src->capabilities);
  guint n = g_list_model_get_n_items (model);
  g_autoptr (GPtrArray) items = g_ptr_array_new_full (n, g_object_unref);

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (items, g_list_model_get_item (model, i));
  agents_sandbox_agent_set_capabilities (
    dest, (AgentsCapability **) items->pdata, items->len);
}

static AgentsAgent *
agents_sandbox_agent_clone (AgentsAgent *agent)
{
  AgentsSandboxAgent *self = AGENTS_SANDBOX_AGENT (agent);
  AgentsSandboxAgent *copy = AGENTS_SANDBOX_AGENT (
    AGENTS_AGENT_CLASS (agents_sandbox_agent_parent_class)->clone (agent));

  /* The properties were copied by the parent class, not the list. */
  copy_capabilities (copy, self);
  base_func_unref (copy->base_func);
  copy->base_func = base_func_ref (self->base_func);
  g_set_object (&copy->public_agent, self->public_agent);
  g_set_object (&copy->session, self->session);
  return AGENTS_AGENT (copy);
}

/* ---- GObject ----------------------------------------------------------- */

static void
agents_sandbox_agent_dispose (GObject *object)
{
  AgentsSandboxAgent *self = AGENTS_SANDBOX_AGENT (object);

  g_clear_object (&self->public_agent);
  g_clear_object (&self->session);
  g_clear_pointer (&self->workspace_cwd, g_free);

  G_OBJECT_CLASS (agents_sandbox_agent_parent_class)->dispose (object);
}

static void
agents_sandbox_agent_finalize (GObject *object)
{
  AgentsSandboxAgent *self = AGENTS_SANDBOX_AGENT (object);

  g_clear_object (&self->default_manifest);
  g_clear_object (&self->capabilities);
  g_free (self->base_instructions);
  base_func_unref (self->base_func);
  g_clear_object (&self->run_as);

  G_OBJECT_CLASS (agents_sandbox_agent_parent_class)->finalize (object);
}

static void
agents_sandbox_agent_get_property (GObject *object,
                                   guint prop_id,
                                   GValue *value,
                                   GParamSpec *pspec)
{
  AgentsSandboxAgent *self = AGENTS_SANDBOX_AGENT (object);

  switch (prop_id)
    {
    case PROP_DEFAULT_MANIFEST:
      g_value_set_object (value, self->default_manifest);
      break;
    case PROP_CAPABILITIES:
      g_value_set_object (value, self->capabilities);
      break;
    case PROP_BASE_INSTRUCTIONS:
      g_value_set_string (value, self->base_instructions);
      break;
    case PROP_RUN_AS:
      g_value_set_object (value, self->run_as);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_sandbox_agent_set_property (GObject *object,
                                   guint prop_id,
                                   const GValue *value,
                                   GParamSpec *pspec)
{
  AgentsSandboxAgent *self = AGENTS_SANDBOX_AGENT (object);

  switch (prop_id)
    {
    case PROP_DEFAULT_MANIFEST:
      agents_sandbox_agent_set_default_manifest (self,
                                                 g_value_get_object (value));
      break;
    case PROP_BASE_INSTRUCTIONS:
      agents_sandbox_agent_set_base_instructions (self,
                                                  g_value_get_string (value));
      break;
    case PROP_RUN_AS:
      agents_sandbox_agent_set_run_as (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

#define PARAM_FLAGS \
  (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY)

static void
agents_sandbox_agent_class_init (AgentsSandboxAgentClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  AgentsAgentClass *agent_class = AGENTS_AGENT_CLASS (klass);

  object_class->dispose = agents_sandbox_agent_dispose;
  object_class->finalize = agents_sandbox_agent_finalize;
  object_class->get_property = agents_sandbox_agent_get_property;
  object_class->set_property = agents_sandbox_agent_set_property;

  agent_class->get_system_prompt = agents_sandbox_agent_get_system_prompt;
  agent_class->identity_fingerprint = agents_sandbox_agent_identity_fingerprint;
  agent_class->clone = agents_sandbox_agent_clone;

  /**
   * AgentsSandboxAgent:default-manifest:
   *
   * The manifest a fresh session is created from, unless the run's
   * #AgentsSandboxRunConfig:manifest overrides it. The runner never
   * changes it: sessions get a copy.
   */
  properties[PROP_DEFAULT_MANIFEST] = g_param_spec_object (
    "default-manifest", NULL, NULL, AGENTS_TYPE_MANIFEST, PARAM_FLAGS);
  /**
   * AgentsSandboxAgent:capabilities:
   *
   * The capabilities (#AgentsCapability), in order. An agent starts with
   * `filesystem`, `shell` and `compaction`;
   * agents_sandbox_agent_set_capabilities() replaces them. Runs use
   * per-run clones of them: the objects in this list are never bound to
   * a session.
   */
  properties[PROP_CAPABILITIES] =
    g_param_spec_object ("capabilities", NULL, NULL, G_TYPE_LIST_MODEL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * AgentsSandboxAgent:base-instructions:
   *
   * Replaces the default sandbox prompt at the start of the system prompt
   * (agents_sandbox_get_default_instructions()), unless a base
   * instructions function is set.
   */
  properties[PROP_BASE_INSTRUCTIONS] =
    g_param_spec_string ("base-instructions", NULL, NULL, NULL, PARAM_FLAGS);
  /**
   * AgentsSandboxAgent:run-as:
   *
   * The user the agent's commands run as in the sandbox, or %NULL for the
   * sandbox's default user. The user is added to the session's manifest
   * (unless it is already one of its users or group members) and bound
   * to the capabilities.
   */
  properties[PROP_RUN_AS] =
    g_param_spec_object ("run-as", NULL, NULL, AGENTS_TYPE_USER, PARAM_FLAGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
agents_sandbox_agent_init (AgentsSandboxAgent *self)
{
  g_autoptr (GPtrArray) defaults = agents_sandbox_default_capabilities ();

  self->capabilities = g_list_store_new (AGENTS_TYPE_CAPABILITY);
  g_list_store_splice (self->capabilities, 0, 0, defaults->pdata,
                       defaults->len);
}

/* ---- API --------------------------------------------------------------- */

/**
 * agents_sandbox_default_capabilities:
 *
 * Makes the capabilities a sandbox agent has until its
 * #AgentsSandboxAgent:capabilities are set: `filesystem`, `shell` and
 * `compaction`.
 *
 * Returns: (transfer container) (element-type AgentsCapability): new
 *   capabilities; the array frees them
 */
GPtrArray *
agents_sandbox_default_capabilities (void)
{
  GPtrArray *capabilities = g_ptr_array_new_with_free_func (g_object_unref);

  g_ptr_array_add (capabilities, agents_filesystem_capability_new ());
  g_ptr_array_add (capabilities, agents_shell_capability_new ());
  g_ptr_array_add (capabilities, agents_compaction_capability_new ());
  return capabilities;
}

/**
 * agents_sandbox_agent_new:
 * @name: the agent's name
 *
 * Creates a sandbox agent with the default capabilities and no default
 * manifest (fresh sessions start from an empty one).
 *
 * Returns: (transfer full): the agent
 */
AgentsSandboxAgent *
agents_sandbox_agent_new (const char *name)
{
  return g_object_new (AGENTS_TYPE_SANDBOX_AGENT, "name", name, NULL);
}

/**
 * agents_sandbox_agent_get_default_manifest:
 * @self: a sandbox agent
 *
 * Gets #AgentsSandboxAgent:default-manifest.
 *
 * Returns: (transfer none) (nullable): the manifest
 */
AgentsManifest *
agents_sandbox_agent_get_default_manifest (AgentsSandboxAgent *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_AGENT (self), NULL);

  return self->default_manifest;
}

/**
 * agents_sandbox_agent_set_default_manifest:
 * @self: a sandbox agent
 * @manifest: (nullable): a manifest
 *
 * Sets #AgentsSandboxAgent:default-manifest.
 */
void
agents_sandbox_agent_set_default_manifest (AgentsSandboxAgent *self,
                                           AgentsManifest *manifest)
{
  g_return_if_fail (AGENTS_IS_SANDBOX_AGENT (self));
  g_return_if_fail (manifest == NULL || AGENTS_IS_MANIFEST (manifest));

  if (g_set_object (&self->default_manifest, manifest))
    g_object_notify_by_pspec (G_OBJECT (self),
                              properties[PROP_DEFAULT_MANIFEST]);
}

/* A serialized manifest must not grant host paths: only a manifest the
 * program built may (the reference's _coerce_manifest()). */
static gboolean
check_serialized_grants (JsonNode *node, GError **error)
{
  JsonObject *object = json_node_get_object (node);
  JsonNode *grants = json_object_get_member (object, "extra_path_grants");

  if (grants == NULL ||
      (JSON_NODE_HOLDS_ARRAY (grants) &&
       json_array_get_length (json_node_get_array (grants)) == 0))
    return TRUE;
  agents_sandbox_error_set (
    error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
    g_variant_new_parsed ("{'field': <'default_manifest.extra_path_grants'>}"),
    "%s",
    _ ("default_manifest.extra_path_grants must be configured on a trusted "
       "AgentsManifest (agents_manifest_add_extra_path_grant()), not in "
       "JSON"));
  return FALSE;
}

/**
 * agents_sandbox_agent_set_default_manifest_from_json:
 * @self: a sandbox agent
 * @node: the JSON of a manifest (agents_manifest_new_from_json())
 * @error: return location for a #GError
 *
 * Sets #AgentsSandboxAgent:default-manifest from its JSON, as the
 * reference's `SandboxAgent(default_manifest={...})` takes a dictionary.
 * Serialized configuration cannot grant access to host paths: an
 * `extra_path_grants` member that is not an empty array is refused with
 * %AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT; add grants to an
 * #AgentsManifest the program builds instead. An empty array, as
 * agents_manifest_to_json() writes it, is accepted.
 *
 * Returns: %TRUE if the manifest was set; %FALSE with @error set (the
 *   default manifest unchanged)
 */
gboolean
agents_sandbox_agent_set_default_manifest_from_json (AgentsSandboxAgent *self,
                                                     JsonNode *node,
                                                     GError **error)
{
  g_autoptr (AgentsManifest) manifest = NULL;

  g_return_val_if_fail (AGENTS_IS_SANDBOX_AGENT (self), FALSE);
  g_return_val_if_fail (node != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (JSON_NODE_HOLDS_OBJECT (node) && !check_serialized_grants (node, error))
    return FALSE;
  manifest = agents_manifest_new_from_json (node, error);
  if (manifest == NULL)
    return FALSE;
  agents_sandbox_agent_set_default_manifest (self, manifest);
  return TRUE;
}

/**
 * agents_sandbox_agent_get_capabilities:
 * @self: a sandbox agent
 *
 * Gets the capabilities.
 *
 * Returns: (transfer none): a list model of #AgentsCapability
 */
GListModel *
agents_sandbox_agent_get_capabilities (AgentsSandboxAgent *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_AGENT (self), NULL);

  return G_LIST_MODEL (self->capabilities);
}

/**
 * agents_sandbox_agent_set_capabilities:
 * @self: a sandbox agent
 * @capabilities: (array length=n_capabilities) (nullable): capabilities
 * @n_capabilities: the length of @capabilities
 *
 * Replaces the capabilities; `(NULL, 0)` leaves the agent with none.
 */
void
agents_sandbox_agent_set_capabilities (AgentsSandboxAgent *self,
                                       AgentsCapability **capabilities,
                                       guint n_capabilities)
{
  guint old;

  g_return_if_fail (AGENTS_IS_SANDBOX_AGENT (self));
  g_return_if_fail (capabilities != NULL || n_capabilities == 0);
  for (guint i = 0; i < n_capabilities; i++)
    g_return_if_fail (AGENTS_IS_CAPABILITY (capabilities[i]));

  old = g_list_model_get_n_items (G_LIST_MODEL (self->capabilities));
  g_list_store_splice (self->capabilities, 0, old, (gpointer *) capabilities,
                       n_capabilities);
}

/**
 * agents_sandbox_agent_add_capability:
 * @self: a sandbox agent
 * @capability: a capability
 *
 * Appends a capability (to the default ones, if they were never
 * replaced).
 */
void
agents_sandbox_agent_add_capability (AgentsSandboxAgent *self,
                                     AgentsCapability *capability)
{
  g_return_if_fail (AGENTS_IS_SANDBOX_AGENT (self));
  g_return_if_fail (AGENTS_IS_CAPABILITY (capability));

  g_list_store_append (self->capabilities, capability);
}

/**
 * agents_sandbox_agent_get_base_instructions:
 * @self: a sandbox agent
 *
 * Gets #AgentsSandboxAgent:base-instructions.
 *
 * Returns: (nullable): the base instructions
 */
const char *
agents_sandbox_agent_get_base_instructions (AgentsSandboxAgent *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_AGENT (self), NULL);

  return self->base_instructions;
}

/**
 * agents_sandbox_agent_set_base_instructions:
 * @self: a sandbox agent
 * @instructions: (nullable): the text that starts the system prompt
 *
 * Sets #AgentsSandboxAgent:base-instructions.
 */
void
agents_sandbox_agent_set_base_instructions (AgentsSandboxAgent *self,
                                            const char *instructions)
{
  g_return_if_fail (AGENTS_IS_SANDBOX_AGENT (self));

  if (g_strcmp0 (self->base_instructions, instructions) == 0)
    return;
  g_free (self->base_instructions);
  self->base_instructions = g_strdup (instructions);
  g_object_notify_by_pspec (G_OBJECT (self),
                            properties[PROP_BASE_INSTRUCTIONS]);
}

/**
 * agents_sandbox_agent_set_base_instructions_func:
 * @self: a sandbox agent
 * @func: (nullable) (scope notified): computes the base instructions for
 *   a turn, called with the agent the user built
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data
 *
 * Computes the start of the system prompt with a function instead of
 * #AgentsSandboxAgent:base-instructions; %NULL removes the function.
 */
void
agents_sandbox_agent_set_base_instructions_func (AgentsSandboxAgent *self,
                                                 AgentsInstructionsFunc func,
                                                 gpointer user_data,
                                                 GDestroyNotify destroy)
{
  BaseFunc *base_func = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_AGENT (self));

  if (func != NULL)
    {
      base_func = g_new0 (BaseFunc, 1);
      g_atomic_ref_count_init (&base_func->ref_count);
      base_func->func = func;
      base_func->user_data = user_data;
      base_func->destroy = destroy;
    }
  else if (destroy != NULL)
    destroy (user_data);
  base_func_unref (self->base_func);
  self->base_func = base_func;
}

/**
 * agents_sandbox_agent_has_base_instructions_func:
 * @self: a sandbox agent
 *
 * Gets whether a base instructions function is set.
 *
 * Returns: %TRUE if one is set
 */
gboolean
agents_sandbox_agent_has_base_instructions_func (AgentsSandboxAgent *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_AGENT (self), FALSE);

  return self->base_func != NULL;
}

/**
 * agents_sandbox_agent_get_run_as:
 * @self: a sandbox agent
 *
 * Gets #AgentsSandboxAgent:run-as.
 *
 * Returns: (transfer none) (nullable): the user
 */
AgentsUser *
agents_sandbox_agent_get_run_as (AgentsSandboxAgent *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_AGENT (self), NULL);

  return self->run_as;
}

/**
 * agents_sandbox_agent_set_run_as:
 * @self: a sandbox agent
 * @user: (nullable): the user commands run as
 *
 * Sets #AgentsSandboxAgent:run-as.
 */
void
agents_sandbox_agent_set_run_as (AgentsSandboxAgent *self, AgentsUser *user)
{
  g_return_if_fail (AGENTS_IS_SANDBOX_AGENT (self));
  g_return_if_fail (user == NULL || AGENTS_IS_USER (user));

  if (g_set_object (&self->run_as, user))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUN_AS]);
}

/**
 * agents_sandbox_agent_set_run_as_name:
 * @self: a sandbox agent
 * @name: (nullable): the name of the user commands run as
 *
 * Sets #AgentsSandboxAgent:run-as to a user named @name (the reference's
 * `run_as="name"`).
 */
void
agents_sandbox_agent_set_run_as_name (AgentsSandboxAgent *self,
                                      const char *name)
{
  g_autoptr (AgentsUser) user = NULL;

  g_return_if_fail (AGENTS_IS_SANDBOX_AGENT (self));

  if (name != NULL)
    user = agents_user_new (name);
  agents_sandbox_agent_set_run_as (self, user);
}

/**
 * agents_sandbox_agent_get_public_agent:
 * @self: a sandbox agent
 *
 * Gets the agent an execution agent was prepared from, the one the user
 * built. Execution agents are what agents_sandbox_runtime_prepare_agent_async()
 * prepares; agents built by users have none.
 *
 * Returns: (transfer none) (nullable): the public agent, or %NULL
 */
AgentsAgent *
agents_sandbox_agent_get_public_agent (AgentsSandboxAgent *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_AGENT (self), NULL);

  return AGENTS_AGENT (self->public_agent);
}

/**
 * agents_sandbox_agent_get_session:
 * @self: a sandbox agent
 *
 * Gets the session an execution agent is bound to.
 *
 * Returns: (transfer none) (nullable): the session, or %NULL for agents
 *   built by users
 */
AgentsSandboxSession *
agents_sandbox_agent_get_session (AgentsSandboxAgent *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_AGENT (self), NULL);

  return self->session;
}

AgentsUser *
agents_sandbox_agent_dup_run_as (AgentsSandboxAgent *self)
{
  return self->run_as ? g_object_ref (self->run_as) : NULL;
}

/* ---- Execution agents -------------------------------------------------- */

static void
add_capability_tools (AgentsAgent *agent, AgentsCapability *capability)
{
  g_autoptr (GPtrArray) tools = agents_capability_get_tools (capability);
  /* The array owns its tools (get_tools is transfer full). */
  if (tools != NULL)
    g_ptr_array_set_free_func (tools, g_object_unref);

  for (guint i = 0; tools != NULL && i < tools->len; i++)
    {
      if (!AGENTS_IS_TOOL (tools->pdata[i]))
        {
          g_warning ("Capability “%s” gave a %s as a tool",
                     agents_capability_get_capability_type (capability),
                     G_OBJECT_TYPE_NAME (tools->pdata[i]));
          continue;
        }
      agents_agent_add_tool (agent, tools->pdata[i]);
    }
}

/* The name a model provider is registered under for @model's type. */
static char *
provider_name (AgentsModel *model)
{
  g_auto (GStrv) names =
    agents_registry_list (AGENTS_REGISTRY_KIND_MODEL_PROVIDER);

  for (guint i = 0; model != NULL && names[i] != NULL; i++)
    {
      GType type = agents_registry_lookup (AGENTS_REGISTRY_KIND_MODEL_PROVIDER,
                                           names[i], NULL);

      if (type != G_TYPE_INVALID && G_TYPE_CHECK_INSTANCE_TYPE (model, type))
        return g_strdup (names[i]);
    }
  return NULL;
}

/* A model object's own name: its string property `model-name`, if any. */
static char *
model_object_name (AgentsModel *model)
{
  GParamSpec *pspec;
  char *name = NULL;

  if (model == NULL)
    return NULL;
  pspec =
    g_object_class_find_property (G_OBJECT_GET_CLASS (model), "model-name");
  if (pspec != NULL && pspec->value_type == G_TYPE_STRING &&
      (pspec->flags & G_PARAM_READABLE))
    g_object_get (model, "model-name", &name, NULL);
  return name;
}

/* What a capability's sampling params hook knows of the model, as the
 * runner resolves it: the run config's model over the agent's, named by
 * the agent's #AgentsAgent:model-name (or the model's `model-name`
 * property when the run config's model wins or the agent names none);
 * with no model at all, the default model's name, as the reference's
 * get_default_model(). */
static JsonObject *
model_params (AgentsAgent *agent, AgentsRunConfig *run_config)
{
  AgentsModel *config_model =
    run_config ? agents_run_config_get_model (run_config) : NULL;
  AgentsModel *model =
    config_model ? config_model : agents_agent_get_model (agent);
  g_autoptr (AgentsModelSettings) settings = agents_model_settings_merge (
    agents_agent_get_model_settings (agent),
    run_config ? agents_run_config_get_model_settings (run_config) : NULL);
  JsonObject *params = agents_model_settings_to_json (settings);
  g_autofree char *name = config_model == NULL
                            ? g_strdup (agents_agent_get_model_name (agent))
                            : NULL;
  g_autofree char *provider = provider_name (model);

  if (name == NULL)
    name = model_object_name (model);
  if (name == NULL && model == NULL)
    name = g_strdup (agents_model_get_default_name ());
  if (name != NULL)
    json_object_set_string_member (params, "model", name);
  if (provider != NULL)
    json_object_set_string_member (params, "provider", provider);
  return params;
}

/* The agent's model settings with the capabilities' sampling params
 * merged into extra_args (later capabilities win). */
static AgentsModelSettings *
execution_settings (AgentsAgent *agent,
                    GPtrArray *capabilities,
                    AgentsRunConfig *run_config)
{
  AgentsModelSettings *base = agents_agent_get_model_settings (agent);
  AgentsModelSettings *settings =
    base ? agents_model_settings_copy (base) : agents_model_settings_new ();
  JsonObject *old_extra = agents_model_settings_get_extra_args (settings);
  g_autoptr (JsonObject) extra = NULL;
  g_autoptr (JsonObject) model = model_params (agent, run_config);
  gboolean changed = FALSE;

  extra = old_extra ? agents_run_private_json_object_copy (old_extra)
                    : json_object_new ();
  for (guint i = 0; i < capabilities->len; i++)
    {
      g_autoptr (JsonObject) params =
        agents_capability_sampling_params_for_model (capabilities->pdata[i],
                                                     model);
      JsonObjectIter iter;
      const char *member;
      JsonNode *value;

      if (params == NULL)
        continue;
      json_object_iter_init (&iter, params);
      while (json_object_iter_next (&iter, &member, &value))
        {
          json_object_set_member (extra, member, json_node_copy (value));
          changed = TRUE;
        }
    }
  if (changed)
    agents_model_settings_set_extra_args (settings, extra);
  return settings;
}

AgentsSandboxAgent *
agents_sandbox_agent_new_execution (AgentsSandboxAgent *public_agent,
                                    GPtrArray *capabilities,
                                    AgentsSandboxSession *session,
                                    AgentsRunConfig *run_config,
                                    const char *workspace_cwd)
{
  AgentsSandboxAgent *self =
    AGENTS_SANDBOX_AGENT (agents_agent_clone (AGENTS_AGENT (public_agent)));
  g_autoptr (AgentsModelSettings) settings = NULL;

  agents_sandbox_agent_set_capabilities (
    self, (AgentsCapability **) capabilities->pdata, capabilities->len);
  for (guint i = 0; i < capabilities->len; i++)
    add_capability_tools (AGENTS_AGENT (self), capabilities->pdata[i]);
  settings =
    execution_settings (AGENTS_AGENT (public_agent), capabilities, run_config);
  agents_agent_set_model_settings (AGENTS_AGENT (self), settings);
  g_set_object (&self->public_agent, public_agent);
  g_set_object (&self->session, session);
  self->workspace_cwd = g_strdup (workspace_cwd);
  return self;
}
