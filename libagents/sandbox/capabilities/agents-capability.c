/* agents-capability.c - what a sandbox agent can do in its sandbox
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "agents-capability-private.h"
#include "run/agents-run-error.h"
#include "agents-workspace-scope-private.h"

#include "run/agents-tool.h"

/**
 * AgentsCapability:
 *
 * A capability gives a sandbox agent tools, instructions and adjustments
 * of its manifest, model input and model settings. The runner never
 * touches the capability objects a user configured: each run works on
 * clones (agents_capability_clone()) bound to that run's session.
 */

G_DEFINE_INTERFACE (AgentsCapability, agents_capability, G_TYPE_OBJECT)

static GQuark session_quark;
static GQuark run_as_quark;
static GQuark cwd_quark;

/* Deep copies of property values. Objects are cloned through their own
 * properties, except sessions and users, which keep their identity. */
#define MAX_CLONE_DEPTH 8

static GObject *clone_object (GObject *object, guint depth);

static JsonNode *
deep_copy_json (JsonNode *node)
{
  g_autofree char *text = NULL;

  if (node == NULL)
    return NULL;
  text = json_to_string (node, FALSE);
  return json_from_string (text, NULL);
}

static void
deep_copy_value (const GValue *src, GValue *dest, guint depth, gboolean shared)
{
  GType type = G_VALUE_TYPE (src);

  g_value_init (dest, type);
  if (shared)
    g_value_copy (src, dest);
  else if (type == JSON_TYPE_NODE)
    g_value_take_boxed (dest, deep_copy_json (g_value_get_boxed (src)));
  else if (type == JSON_TYPE_OBJECT || type == JSON_TYPE_ARRAY)
    {
      g_autoptr (JsonNode) wrapper = json_node_alloc ();
      g_autoptr (JsonNode) copy = NULL;

      if (g_value_get_boxed (src) == NULL)
        return;
      if (type == JSON_TYPE_OBJECT)
        json_node_init_object (wrapper, g_value_get_boxed (src));
      else
        json_node_init_array (wrapper, g_value_get_boxed (src));
      copy = deep_copy_json (wrapper);
      g_value_set_boxed (dest, type == JSON_TYPE_OBJECT
                                 ? (gpointer) json_node_get_object (copy)
                                 : (gpointer) json_node_get_array (copy));
    }
  else if (G_TYPE_IS_OBJECT (type) || G_TYPE_IS_INTERFACE (type))
    {
      GObject *object = g_value_get_object (src);

      if (object == NULL || AGENTS_IS_SANDBOX_SESSION (object) ||
          AGENTS_IS_USER (object) || depth >= MAX_CLONE_DEPTH)
        g_value_set_object (dest, object);
      else if (AGENTS_IS_CAPABILITY (object))
        g_value_take_object (
          dest, agents_capability_clone (AGENTS_CAPABILITY (object)));
      else
        g_value_take_object (dest, clone_object (object, depth + 1));
    }
  else
    g_value_copy (src, dest);
}

static gboolean
is_copyable (GParamSpec *pspec)
{
  return (pspec->flags & G_PARAM_READABLE) &&
         (pspec->flags & G_PARAM_WRITABLE) &&
         !(pspec->flags & G_PARAM_DEPRECATED);
}

static GObject *
clone_object (GObject *object, guint depth)
{
  guint n_pspecs = 0;
  g_autofree GParamSpec **pspecs =
    g_object_class_list_properties (G_OBJECT_GET_CLASS (object), &n_pspecs);
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  g_autoptr (GArray) values = g_array_new (FALSE, TRUE, sizeof (GValue));
  GObject *copy;

  g_array_set_clear_func (values, (GDestroyNotify) g_value_unset);
  for (guint i = 0; i < n_pspecs; i++)
    {
      GValue current = G_VALUE_INIT;
      GValue copied = G_VALUE_INIT;

      if (!is_copyable (pspecs[i]))
        continue;
      g_value_init (&current, pspecs[i]->value_type);
      g_object_get_property (object, pspecs[i]->name, &current);
      deep_copy_value (&current, &copied, depth,
                       (pspecs[i]->flags & AGENTS_CAPABILITY_PARAM_SHARED) !=
                         0);
      g_value_unset (&current);

      g_ptr_array_add (names, (gpointer) pspecs[i]->name);
      g_array_append_val (values, copied);
    }

  copy = g_object_new_with_properties (G_OBJECT_TYPE (object), names->len,
                                       (const char **) names->pdata,
                                       (const GValue *) values->data);
  return copy;
}

static AgentsCapability *
default_clone (AgentsCapability *self)
{
  AgentsCapability *copy =
    AGENTS_CAPABILITY (clone_object (G_OBJECT (self), 0));
  AgentsSandboxSession *session = agents_capability_get_session (self);
  AgentsUser *run_as = agents_capability_get_run_as (self);

  if (session != NULL)
    agents_capability_bind (copy, session);
  if (run_as != NULL)
    agents_capability_bind_run_as (copy, run_as);
  g_object_set_qdata_full (G_OBJECT (copy), cwd_quark,
                           g_strdup (agents_capability_get_cwd (self)), g_free);
  return copy;
}

static void
default_bind (AgentsCapability *self, AgentsSandboxSession *session)
{
  g_object_set_qdata_full (G_OBJECT (self), session_quark,
                           session ? g_object_ref (session) : NULL,
                           session ? g_object_unref : NULL);
}

static void
default_bind_run_as (AgentsCapability *self, AgentsUser *user)
{
  g_object_set_qdata_full (G_OBJECT (self), run_as_quark,
                           user ? g_object_ref (user) : NULL,
                           user ? g_object_unref : NULL);
}

static GPtrArray *
default_get_tools (AgentsCapability *self)
{
  return g_ptr_array_new_with_free_func (g_object_unref);
}

static void
default_instructions (AgentsCapability *self,
                      AgentsManifest *manifest,
                      GTask *task)
{
  g_task_return_pointer (task, NULL, NULL);
}

static AgentsManifest *
default_process_manifest (AgentsCapability *self, AgentsManifest *manifest)
{
  return g_object_ref (manifest);
}

static JsonArray *
default_process_context (AgentsCapability *self, JsonArray *context)
{
  return json_array_ref (context);
}

static JsonObject *
default_sampling_params (AgentsCapability *self)
{
  return NULL;
}

static JsonObject *
default_sampling_params_for_model (AgentsCapability *self,
                                   JsonObject *model_params)
{
  return AGENTS_CAPABILITY_GET_IFACE (self)->sampling_params (self);
}

static char **
default_get_required_types (AgentsCapability *self)
{
  return NULL;
}

static void
agents_capability_default_init (AgentsCapabilityInterface *iface)
{
  session_quark = g_quark_from_static_string ("agents-capability-session");
  run_as_quark = g_quark_from_static_string ("agents-capability-run-as");
  cwd_quark = g_quark_from_static_string ("agents-capability-cwd");

  iface->clone = default_clone;
  iface->bind = default_bind;
  iface->bind_run_as = default_bind_run_as;
  iface->get_tools = default_get_tools;
  iface->instructions = default_instructions;
  iface->process_manifest = default_process_manifest;
  iface->process_context = default_process_context;
  iface->sampling_params = default_sampling_params;
  iface->sampling_params_for_model = default_sampling_params_for_model;
  iface->get_required_types = default_get_required_types;
}

#define IFACE(self) AGENTS_CAPABILITY_GET_IFACE (self)

/**
 * agents_capability_get_capability_type:
 * @self: a capability
 *
 * Gets the capability's type name, e.g. `"shell"`.
 *
 * Returns: the capability's type name, e.g. `"shell"`
 */
const char *
agents_capability_get_capability_type (AgentsCapability *self)
{
  g_return_val_if_fail (AGENTS_IS_CAPABILITY (self), NULL);

  if (IFACE (self)->get_capability_type == NULL)
    return G_OBJECT_TYPE_NAME (self);
  return IFACE (self)->get_capability_type (self);
}

/**
 * agents_capability_clone:
 * @self: a capability
 *
 * Makes an independent copy: mutable state (JSON values, nested objects)
 * is deep-copied, while the bound session and run-as user are shared.
 *
 * Returns: (transfer full): the clone
 */
AgentsCapability *
agents_capability_clone (AgentsCapability *self)
{
  g_return_val_if_fail (AGENTS_IS_CAPABILITY (self), NULL);

  return IFACE (self)->clone (self);
}

/**
 * agents_capability_bind:
 * @self: a capability
 * @session: (nullable): the session to bind to
 *
 * Binds the capability to a live session.
 */
void
agents_capability_bind (AgentsCapability *self, AgentsSandboxSession *session)
{
  g_return_if_fail (AGENTS_IS_CAPABILITY (self));
  g_return_if_fail (session == NULL || AGENTS_IS_SANDBOX_SESSION (session));

  IFACE (self)->bind (self, session);
}

/**
 * agents_capability_get_session:
 * @self: a capability
 *
 * Gets the session the default @bind remembered.
 *
 * Returns: (transfer none) (nullable): the session the default @bind
 *   remembered
 */
AgentsSandboxSession *
agents_capability_get_session (AgentsCapability *self)
{
  g_return_val_if_fail (AGENTS_IS_CAPABILITY (self), NULL);

  return g_object_get_qdata (G_OBJECT (self), session_quark);
}

/**
 * agents_capability_bind_run_as:
 * @self: a capability
 * @user: (nullable): the user commands run as
 *
 * Binds the user the capability's commands run as.
 */
void
agents_capability_bind_run_as (AgentsCapability *self, AgentsUser *user)
{
  g_return_if_fail (AGENTS_IS_CAPABILITY (self));
  g_return_if_fail (user == NULL || AGENTS_IS_USER (user));

  IFACE (self)->bind_run_as (self, user);
}

/**
 * agents_capability_get_run_as:
 * @self: a capability
 *
 * Gets the run-as user.
 *
 * Returns: (transfer none) (nullable): the run-as user
 */
AgentsUser *
agents_capability_get_run_as (AgentsCapability *self)
{
  g_return_val_if_fail (AGENTS_IS_CAPABILITY (self), NULL);

  return g_object_get_qdata (G_OBJECT (self), run_as_quark);
}

/* A binding's list may hold what is not a tool (a Python None, an
 * object of another type): callers index the array as tools, so those
 * go, with a warning that names the capability. */
static void
drop_non_tools (AgentsCapability *self, GPtrArray *tools)
{
  for (guint i = tools->len; i-- > 0;)
    {
      gpointer element = tools->pdata[i];

      if (element != NULL && AGENTS_IS_TOOL (element))
        continue;
      g_warning ("Capability “%s” gave %s as a tool; it is left out",
                 agents_capability_get_capability_type (self),
                 element == NULL         ? "NULL (None, null)"
                 : G_IS_OBJECT (element) ? G_OBJECT_TYPE_NAME (element)
                                         : "something that is no object");
      if (element != NULL && G_IS_OBJECT (element))
        g_object_unref (element);
      g_ptr_array_remove_index (tools, i);
    }
}

/**
 * agents_capability_bind_cwd:
 * @self: a capability
 * @cwd: (nullable): the run's working directory, relative to the
 *   workspace root, or %NULL for none
 * @error: return location for a #GError
 *
 * Binds the working directory of the run the capability serves (the
 * reference's run workspace scope). @cwd must be workspace-relative,
 * POSIX, without `..`; it is kept normalized (`.` for the root). A
 * capability may then show paths for that run: the `skills` capability
 * lists its skills by their absolute workspace paths and tells the model
 * how to use them from the working directory; the tools the `shell` and
 * `filesystem` capabilities make afterwards resolve relative paths from
 * it. Clones keep it. The runtime binds the run's clones to
 * #AgentsSandboxRunConfig:workspace-cwd.
 *
 * Returns: %TRUE, or %FALSE with @error set
 *   (%AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT) when @cwd is not valid
 */
gboolean
agents_capability_bind_cwd (AgentsCapability *self,
                            const char *cwd,
                            GError **error)
{
  char *normalized = NULL;

  g_return_val_if_fail (AGENTS_IS_CAPABILITY (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (cwd != NULL &&
      (normalized = agents_workspace_scope_normalize_cwd (cwd, error)) == NULL)
    return FALSE;
  g_object_set_qdata_full (G_OBJECT (self), cwd_quark, normalized, g_free);
  return TRUE;
}

/**
 * agents_capability_get_cwd:
 * @self: a capability
 *
 * Gets the working directory agents_capability_bind_cwd() bound.
 *
 * Returns: (nullable): the run's working directory, relative to the
 *   workspace root, or %NULL
 */
const char *
agents_capability_get_cwd (AgentsCapability *self)
{
  g_return_val_if_fail (AGENTS_IS_CAPABILITY (self), NULL);

  return g_object_get_qdata (G_OBJECT (self), cwd_quark);
}

/* ---- AgentsToolBinding ------------------------------------------------- */

AgentsToolBinding *
agents_tool_binding_new (AgentsCapability *capability)
{
  AgentsToolBinding *binding = g_new0 (AgentsToolBinding, 1);
  AgentsUser *user = agents_capability_get_run_as (capability);

  binding->capability = g_object_ref (capability);
  binding->run_as = user ? g_strdup (agents_user_get_name (user)) : NULL;
  binding->cwd = g_strdup (agents_capability_get_cwd (capability));
  return binding;
}

void
agents_tool_binding_free (AgentsToolBinding *binding)
{
  if (binding == NULL)
    return;
  g_object_unref (binding->capability);
  g_free (binding->run_as);
  g_free (binding->cwd);
  g_free (binding);
}

char *
agents_tool_binding_anchor (const AgentsToolBinding *binding, const char *path)
{
  if (binding->cwd == NULL || g_str_equal (binding->cwd, ".") || path[0] == '/')
    return g_strdup (path);
  if (path[0] == '\0' || g_str_equal (path, "."))
    return g_strdup (binding->cwd);
  return g_strconcat (binding->cwd, "/", path, NULL);
}

/**
 * agents_capability_get_tools:
 * @self: a capability
 *
 * Gets the tools, as GObject introspection means (transfer full) for a
 * #GPtrArray: the caller owns the array and a reference on each tool,
 * and the array has no free function, so free it with
 * `g_ptr_array_set_free_func (tools, g_object_unref)` then
 * g_ptr_array_unref(). An implementation returns new references too
 * (language bindings do so for a list they return). Elements that are
 * not #AgentsTool objects (a %NULL from a binding's list, say) are left
 * out, with a warning.
 *
 * Returns: (transfer full) (element-type GObject): the tools
 */
GPtrArray *
agents_capability_get_tools (AgentsCapability *self)
{
  GPtrArray *tools;

  g_return_val_if_fail (AGENTS_IS_CAPABILITY (self), NULL);

  tools = IFACE (self)->get_tools (self);
  /* One shape whoever implemented it: bindings hand back an array
   * without a free function, and take the elements' references when
   * they call this, so the array must not drop them again. */
  if (tools != NULL)
    {
      g_ptr_array_set_free_func (tools, NULL);
      drop_non_tools (self, tools);
    }
  return tools;
}

/**
 * agents_capability_instructions_async:
 * @self: a capability
 * @manifest: the manifest of the session
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called with the text
 * @user_data: data for @callback
 *
 * Asks the capability for its part of the system prompt.
 */
void
agents_capability_instructions_async (AgentsCapability *self,
                                      AgentsManifest *manifest,
                                      GCancellable *cancellable,
                                      GAsyncReadyCallback callback,
                                      gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_CAPABILITY (self));
  g_return_if_fail (AGENTS_IS_MANIFEST (manifest));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, agents_capability_instructions_async);
  IFACE (self)->instructions (self, manifest, task);
}

/**
 * agents_capability_instructions_finish:
 * @self: a capability
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_capability_instructions_async().
 *
 * Returns: (transfer full) (nullable): the text, or %NULL for none
 */
char *
agents_capability_instructions_finish (AgentsCapability *self,
                                       GAsyncResult *result,
                                       GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * agents_capability_process_manifest:
 * @self: a capability
 * @manifest: the manifest a session will be created from
 *
 * Lets the capability change the manifest. A capability implementing
 * #AgentsCapabilityInterface.process_manifest_checked that fails here is
 * logged and leaves the manifest unchanged; callers that can report the
 * failure use agents_capability_process_manifest_checked().
 *
 * Returns: (transfer full): the manifest to use
 */
AgentsManifest *
agents_capability_process_manifest (AgentsCapability *self,
                                    AgentsManifest *manifest)
{
  g_autoptr (GError) error = NULL;
  AgentsManifest *processed;

  g_return_val_if_fail (AGENTS_IS_CAPABILITY (self), NULL);
  g_return_val_if_fail (AGENTS_IS_MANIFEST (manifest), NULL);

  processed =
    agents_capability_process_manifest_checked (self, manifest, &error);
  if (processed != NULL)
    return processed;
  g_warning ("Capability “%s” failed to process the manifest: %s",
             agents_capability_get_capability_type (self),
             error != NULL ? error->message : "no error set");
  return g_object_ref (manifest);
}

/**
 * agents_capability_process_manifest_checked:
 * @self: a capability
 * @manifest: the manifest a session will be created from
 * @error: return location for a #GError
 *
 * Lets the capability change the manifest, or fail: calls
 * #AgentsCapabilityInterface.process_manifest_checked when the capability
 * implements it, else #AgentsCapabilityInterface.process_manifest (which
 * cannot fail). The session manager uses this and fails the session with
 * the error (redacted when the manifest carries mount credentials).
 *
 * Returns: (transfer full) (nullable): the manifest to use, or %NULL with
 *   @error set
 */
AgentsManifest *
agents_capability_process_manifest_checked (AgentsCapability *self,
                                            AgentsManifest *manifest,
                                            GError **error)
{
  AgentsCapabilityInterface *iface;
  AgentsManifest *processed;

  g_return_val_if_fail (AGENTS_IS_CAPABILITY (self), NULL);
  g_return_val_if_fail (AGENTS_IS_MANIFEST (manifest), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  iface = IFACE (self);
  if (iface->process_manifest_checked == NULL)
    return iface->process_manifest (self, manifest);
  processed = iface->process_manifest_checked (self, manifest, error);
  g_return_val_if_fail (processed != NULL || error == NULL || *error != NULL,
                        NULL);
  return processed;
}

/**
 * agents_capability_process_context:
 * @self: a capability
 * @context: the model input items
 *
 * Lets the capability rewrite the model input.
 *
 * Returns: (transfer full): the items to send
 */
JsonArray *
agents_capability_process_context (AgentsCapability *self, JsonArray *context)
{
  g_return_val_if_fail (AGENTS_IS_CAPABILITY (self), NULL);
  g_return_val_if_fail (context != NULL, NULL);

  return IFACE (self)->process_context (self, context);
}

/**
 * agents_capability_sampling_params:
 * @self: a capability
 *
 * Gets members to merge into the model settings' extra arguments, without
 * knowing the model: agents_capability_sampling_params_for_model() with
 * empty model parameters.
 *
 * Returns: (transfer full) (nullable): members to merge into the model
 *   settings' extra arguments
 */
JsonObject *
agents_capability_sampling_params (AgentsCapability *self)
{
  g_autoptr (JsonObject) model_params = json_object_new ();

  g_return_val_if_fail (AGENTS_IS_CAPABILITY (self), NULL);

  return IFACE (self)->sampling_params_for_model (self, model_params);
}

/**
 * agents_capability_sampling_params_for_model:
 * @self: a capability
 * @model_params: the model the agent runs with: its resolved model
 *   settings as agents_model_settings_to_json() makes them, plus `model`
 *   (the model's name) and `provider` (its model provider's registered
 *   name) when they are known
 *
 * Gets members to merge into the model settings' extra arguments for the
 * model the agent runs with, so a capability can pick defaults per model
 * (the reference's `Capability.sampling_params(params)`, whose `params`
 * carry the model name).
 *
 * Returns: (transfer full) (nullable): members to merge into the model
 *   settings' extra arguments
 */
JsonObject *
agents_capability_sampling_params_for_model (AgentsCapability *self,
                                             JsonObject *model_params)
{
  g_return_val_if_fail (AGENTS_IS_CAPABILITY (self), NULL);
  g_return_val_if_fail (model_params != NULL, NULL);

  return IFACE (self)->sampling_params_for_model (self, model_params);
}

static gboolean
add_json_value (JsonBuilder *builder, const GValue *value)
{
  switch (G_TYPE_FUNDAMENTAL (G_VALUE_TYPE (value)))
    {
    case G_TYPE_STRING:
      if (g_value_get_string (value) == NULL)
        json_builder_add_null_value (builder);
      else
        json_builder_add_string_value (builder, g_value_get_string (value));
      return TRUE;
    case G_TYPE_BOOLEAN:
      json_builder_add_boolean_value (builder, g_value_get_boolean (value));
      return TRUE;
    case G_TYPE_INT:
      json_builder_add_int_value (builder, g_value_get_int (value));
      return TRUE;
    case G_TYPE_UINT:
      json_builder_add_int_value (builder, g_value_get_uint (value));
      return TRUE;
    case G_TYPE_INT64:
      json_builder_add_int_value (builder, g_value_get_int64 (value));
      return TRUE;
    case G_TYPE_DOUBLE:
      json_builder_add_double_value (builder, g_value_get_double (value));
      return TRUE;
    case G_TYPE_BOXED:
      if (G_VALUE_TYPE (value) == JSON_TYPE_NODE &&
          g_value_get_boxed (value) != NULL)
        {
          json_builder_add_value (builder,
                                  json_node_copy (g_value_get_boxed (value)));
          return TRUE;
        }
      return FALSE;
    default:
      return FALSE;
    }
}

/**
 * agents_capability_to_json:
 * @self: a capability
 *
 * Serializes the capability's configuration: its `type` and its
 * readable, writable properties of plain types. The bound session and
 * run-as user are not part of it.
 *
 * Returns: (transfer full): a JSON object
 */
JsonNode *
agents_capability_to_json (AgentsCapability *self)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  guint n_pspecs = 0;
  g_autofree GParamSpec **pspecs = NULL;

  g_return_val_if_fail (AGENTS_IS_CAPABILITY (self), NULL);

  pspecs =
    g_object_class_list_properties (G_OBJECT_GET_CLASS (self), &n_pspecs);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder,
                                 agents_capability_get_capability_type (self));
  for (guint i = 0; i < n_pspecs; i++)
    {
      g_auto (GValue) value = G_VALUE_INIT;
      g_autofree char *member = NULL;

      if (!is_copyable (pspecs[i]))
        continue;
      g_value_init (&value, pspecs[i]->value_type);
      g_object_get_property (G_OBJECT (self), pspecs[i]->name, &value);
      member = g_strdelimit (g_strdup (pspecs[i]->name), "-", '_');
      json_builder_set_member_name (builder, member);
      if (!add_json_value (builder, &value))
        json_builder_add_null_value (builder);
    }
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

/**
 * agents_capability_get_required_types:
 * @self: a capability
 *
 * Gets the types of the capabilities @self needs beside it on the same
 * sandbox agent (the reference's `required_capability_types()`): the
 * `memory` capability needs `shell`, and `filesystem` too when the model
 * updates the memory itself.
 *
 * Returns: (transfer full) (array zero-terminated=1) (nullable): the
 *   required capability types, or %NULL for none
 */
char **
agents_capability_get_required_types (AgentsCapability *self)
{
  g_return_val_if_fail (AGENTS_IS_CAPABILITY (self), NULL);

  return IFACE (self)->get_required_types (self);
}

static gboolean
has_capability_type (GListModel *capabilities, const char *type)
{
  guint n = g_list_model_get_n_items (capabilities);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr (AgentsCapability) capability =
        g_list_model_get_item (capabilities, i);

      if (g_strcmp0 (agents_capability_get_capability_type (capability),
                     type) == 0)
        return TRUE;
    }
  return FALSE;
}

static int
compare_types (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* "memory" → "Memory", the name the reference's message gives. */
static char *
display_name (const char *type)
{
  char *name = g_strdup (type ? type : "");

  if (*name != '\0')
    *name = g_ascii_toupper (*name);
  return name;
}

static gboolean
check_one (AgentsCapability *capability,
           GListModel *capabilities,
           GError **error)
{
  g_auto (GStrv) required = agents_capability_get_required_types (capability);
  g_autoptr (GPtrArray) missing = g_ptr_array_new ();
  g_autofree char *name = NULL;
  g_autofree char *list = NULL;

  for (guint i = 0; required != NULL && required[i] != NULL; i++)
    if (!has_capability_type (capabilities, required[i]) &&
        !g_ptr_array_find_with_equal_func (missing, required[i], g_str_equal,
                                           NULL))
      g_ptr_array_add (missing, required[i]);
  if (missing->len == 0)
    return TRUE;
  g_ptr_array_sort (missing, compare_types);
  g_ptr_array_add (missing, NULL);
  list = g_strjoinv (", ", (char **) missing->pdata);
  name = display_name (agents_capability_get_capability_type (capability));
  g_propagate_error (
    error,
    agents_run_error_new (AGENTS_RUN_ERROR_USER_ERROR, NULL,
                          "%s requires missing capabilities: %s", name, list));
  return FALSE;
}

gboolean
agents_capabilities_check_required (GListModel *capabilities, GError **error)
{
  guint n = g_list_model_get_n_items (capabilities);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr (AgentsCapability) capability =
        g_list_model_get_item (capabilities, i);

      if (!check_one (capability, capabilities, error))
        return FALSE;
    }
  return TRUE;
}
