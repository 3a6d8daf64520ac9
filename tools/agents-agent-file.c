/* agents-agent-file.c - agents described in JSON files
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The format is documented in docs/agent-file.md. The file comes from a
 * user and may be wrong in any way: every member is checked, and an
 * error names the file and the member (`handoffs[0].capabilities[1]`).
 */

#include "config.h"

#include "agents-agent-file.h"

#include <glib/gi18n.h>

#include "agents-json-private.h"

/* Handoffs nest; a deeper file is surely a mistake (or an attack). */
#define MAX_HANDOFF_DEPTH 16

typedef struct
{
  const char *source; /* the file name, for messages */
  const char *base_dir;
  GHashTable *scripts; /* absolute path → AgentsScriptedModel */
} Loader;

static const char *const agent_members[] = {
  "name",     "instructions",   "handoff_description",
  "model",    "model_settings", "capabilities",
  "manifest", "run_as",         "handoffs",
  NULL,
};

static void fail (Loader *loader,
                  GError **error,
                  const char *where,
                  const char *format,
                  ...) G_GNUC_PRINTF (4, 5);

/* Sets @error to "SOURCE: WHERE: MESSAGE". */
static void
fail (
  Loader *loader, GError **error, const char *where, const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  if (where != NULL && *where != '\0')
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: %s: %s",
                 loader->source, where, message);
  else
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: %s",
                 loader->source, message);
}

static char *
member_path (const char *where, const char *member)
{
  if (where == NULL || *where == '\0')
    return g_strdup (member);
  return g_strconcat (where, ".", member, NULL);
}

static char *
element_path (const char *where, const char *member, guint index)
{
  g_autofree char *base = member_path (where, member);

  return g_strdup_printf ("%s[%u]", base, index);
}

/* Gets an optional string member; a member of another type is an error. */
static gboolean
get_optional_string (Loader *loader,
                     JsonObject *object,
                     const char *where,
                     const char *member,
                     const char **value,
                     GError **error)
{
  JsonNode *node = json_object_get_member (object, member);
  g_autofree char *path = NULL;

  *value = NULL;
  if (node == NULL)
    return TRUE;
  if (JSON_NODE_HOLDS_VALUE (node) &&
      json_node_get_value_type (node) == G_TYPE_STRING)
    {
      *value = json_node_get_string (node);
      return TRUE;
    }
  path = member_path (where, member);
  fail (loader, error, path, _ ("must be a string"));
  return FALSE;
}

static gboolean
check_members (Loader *loader,
               JsonObject *object,
               const char *where,
               const char *const *known,
               GError **error)
{
  g_autoptr (GList) members = json_object_get_members (object);

  for (GList *l = members; l != NULL; l = l->next)
    if (!g_strv_contains (known, l->data))
      {
        g_autofree char *list = g_strjoinv (", ", (char **) known);

        fail (loader, error, where, _ ("unknown member “%s” (known: %s)"),
              (const char *) l->data, list);
        return FALSE;
      }
  return TRUE;
}

/* ---- capabilities --------------------------------------------------- */

static gboolean
is_number (JsonNode *node)
{
  GType type = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node)
                                            : G_TYPE_INVALID;

  return type == G_TYPE_INT64 || type == G_TYPE_DOUBLE;
}

static gboolean
strv_from_json (JsonNode *node, GValue *value)
{
  JsonArray *array = json_node_get_array (node);
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
  guint n = json_array_get_length (array);

  for (guint i = 0; i < n; i++)
    {
      JsonNode *element = json_array_get_element (array, i);

      if (!JSON_NODE_HOLDS_VALUE (element) ||
          json_node_get_value_type (element) != G_TYPE_STRING)
        return FALSE;
      g_strv_builder_add (builder, json_node_get_string (element));
    }
  g_value_take_boxed (value, g_strv_builder_end (builder));
  return TRUE;
}

static gboolean
boxed_from_json (JsonNode *node, GValue *value)
{
  GType type = G_VALUE_TYPE (value);

  if (type == JSON_TYPE_NODE)
    g_value_set_boxed (value, node);
  else if (type == JSON_TYPE_OBJECT && JSON_NODE_HOLDS_OBJECT (node))
    g_value_set_boxed (value, json_node_get_object (node));
  else if (type == JSON_TYPE_ARRAY && JSON_NODE_HOLDS_ARRAY (node))
    g_value_set_boxed (value, json_node_get_array (node));
  else if (type == G_TYPE_STRV && JSON_NODE_HOLDS_ARRAY (node))
    return strv_from_json (node, value);
  else
    return FALSE;
  return TRUE;
}

/* Converts a JSON setting to a property value of the same kind: no
 * number is taken for a boolean, no string for a number. */
static gboolean
value_from_json (JsonNode *node, GParamSpec *pspec, GValue *value)
{
  GType fundamental = G_TYPE_FUNDAMENTAL (pspec->value_type);
  g_auto (GValue) json_value = G_VALUE_INIT;

  g_value_init (value, pspec->value_type);
  switch (fundamental)
    {
    case G_TYPE_BOXED:
      return boxed_from_json (node, value);
    case G_TYPE_ENUM:
      {
        g_autoptr (GEnumClass) klass = g_type_class_ref (pspec->value_type);
        GEnumValue *nick;

        if (!JSON_NODE_HOLDS_VALUE (node) ||
            json_node_get_value_type (node) != G_TYPE_STRING)
          return FALSE;
        nick = g_enum_get_value_by_nick (klass, json_node_get_string (node));
        if (nick == NULL)
          return FALSE;
        g_value_set_enum (value, nick->value);
        return TRUE;
      }
    case G_TYPE_STRING:
      if (JSON_NODE_HOLDS_NULL (node))
        return TRUE;
      if (!JSON_NODE_HOLDS_VALUE (node) ||
          json_node_get_value_type (node) != G_TYPE_STRING)
        return FALSE;
      g_value_set_string (value, json_node_get_string (node));
      return TRUE;
    case G_TYPE_BOOLEAN:
      if (!JSON_NODE_HOLDS_VALUE (node) ||
          json_node_get_value_type (node) != G_TYPE_BOOLEAN)
        return FALSE;
      g_value_set_boolean (value, json_node_get_boolean (node));
      return TRUE;
    case G_TYPE_INT:
    case G_TYPE_UINT:
    case G_TYPE_LONG:
    case G_TYPE_ULONG:
    case G_TYPE_INT64:
    case G_TYPE_UINT64:
    case G_TYPE_FLOAT:
    case G_TYPE_DOUBLE:
      if (!is_number (node))
        return FALSE;
      json_node_get_value (node, &json_value);
      return g_value_transform (&json_value, value);
    default:
      return FALSE;
    }
}

/* The settings a capability takes: its writable properties, with `_`. */
static char *
list_settings (GObjectClass *klass)
{
  guint n = 0;
  g_autofree GParamSpec **pspecs = g_object_class_list_properties (klass, &n);
  GString *list = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    if (pspecs[i]->flags & G_PARAM_WRITABLE)
      {
        g_autofree char *name =
          g_strdelimit (g_strdup (pspecs[i]->name), "-", '_');

        g_string_append_printf (list, "%s%s", list->len ? ", " : "", name);
      }
  return g_string_free (list, FALSE);
}

static gboolean
collect_setting (Loader *loader,
                 GType type,
                 const char *where,
                 const char *member,
                 JsonNode *node,
                 GPtrArray *names,
                 GArray *values,
                 GError **error)
{
  g_autoptr (GTypeClass) klass = g_type_class_ref (type);
  g_autofree char *property = g_strdelimit (g_strdup (member), "_", '-');
  GParamSpec *pspec =
    g_object_class_find_property (G_OBJECT_CLASS (klass), property);
  GValue value = G_VALUE_INIT;

  if (pspec == NULL || !(pspec->flags & G_PARAM_WRITABLE))
    {
      g_autofree char *known = list_settings (G_OBJECT_CLASS (klass));

      fail (loader, error, where, _ ("no setting “%s” (settings: %s)"), member,
            *known ? known : _ ("none"));
      return FALSE;
    }
  if (!value_from_json (node, pspec, &value) ||
      g_param_value_validate (pspec, &value))
    {
      g_value_unset (&value);
      fail (loader, error, where, _ ("invalid value for “%s” (a %s)"), member,
            g_type_name (pspec->value_type));
      return FALSE;
    }
  g_ptr_array_add (names, (gpointer) pspec->name);
  g_array_append_val (values, value);
  return TRUE;
}

/* A capability that checks its settings (#GInitable) does it now, so a
 * wrong setting is reported with the file and the member. */
static AgentsCapability *
init_capability (Loader *loader,
                 GObject *object,
                 const char *where,
                 GError **error)
{
  g_autoptr (GError) init_error = NULL;

  if (G_IS_INITABLE (object) &&
      !g_initable_init (G_INITABLE (object), NULL, &init_error))
    {
      fail (loader, error, where, "%s", init_error->message);
      g_object_unref (object);
      return NULL;
    }
  return AGENTS_CAPABILITY (object);
}

/* A capability is its registered name, or an object with its `type` and
 * settings (its properties, `_` for `-`: the shape
 * agents_capability_to_json() writes). */
static AgentsCapability *
load_capability (Loader *loader,
                 JsonNode *node,
                 const char *where,
                 GError **error)
{
  JsonObject *object = NULL;
  const char *name = NULL;
  g_autoptr (GError) lookup_error = NULL;
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  g_autoptr (GArray) values = g_array_new (FALSE, TRUE, sizeof (GValue));
  g_autoptr (GList) members = NULL;
  GType type;

  g_array_set_clear_func (values, (GDestroyNotify) g_value_unset);
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      object = json_node_get_object (node);
      if (!get_optional_string (loader, object, where, "type", &name, error))
        return NULL;
    }
  else if (JSON_NODE_HOLDS_VALUE (node) &&
           json_node_get_value_type (node) == G_TYPE_STRING)
    name = json_node_get_string (node);
  if (name == NULL)
    {
      fail (loader, error, where,
            _ ("a capability is a name or an object with a “type”"));
      return NULL;
    }

  type = agents_registry_lookup (AGENTS_REGISTRY_KIND_CAPABILITY, name,
                                 &lookup_error);
  if (type == G_TYPE_INVALID)
    {
      fail (loader, error, where, "%s", lookup_error->message);
      return NULL;
    }

  members = object ? json_object_get_members (object) : NULL;
  for (GList *l = members; l != NULL; l = l->next)
    if (!g_str_equal (l->data, "type") &&
        !collect_setting (loader, type, where, l->data,
                          json_object_get_member (object, l->data), names,
                          values, error))
      return NULL;

  return init_capability (loader,
                          g_object_new_with_properties (
                            type, names->len, (const char **) names->pdata,
                            (const GValue *) values->data),
                          where, error);
}

static gboolean
load_capabilities (Loader *loader,
                   AgentsSandboxAgent *agent,
                   JsonNode *node,
                   const char *where,
                   GError **error)
{
  g_autofree char *path = member_path (where, "capabilities");
  g_autoptr (GPtrArray) capabilities =
    g_ptr_array_new_with_free_func (g_object_unref);
  JsonArray *array;

  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      fail (loader, error, path, _ ("must be an array"));
      return FALSE;
    }
  array = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      g_autofree char *element = element_path (where, "capabilities", i);
      AgentsCapability *capability = load_capability (
        loader, json_array_get_element (array, i), element, error);

      if (capability == NULL)
        return FALSE;
      g_ptr_array_add (capabilities, capability);
    }
  agents_sandbox_agent_set_capabilities (
    agent, (AgentsCapability **) capabilities->pdata, capabilities->len);
  return TRUE;
}

/* ---- models --------------------------------------------------------- */

static gboolean
check_turn (Loader *loader, JsonNode *turn, const char *where, GError **error)
{
  JsonArray *items;

  if (!JSON_NODE_HOLDS_ARRAY (turn))
    {
      fail (loader, error, where, _ ("a turn must be an array of items"));
      return FALSE;
    }
  items = json_node_get_array (turn);
  for (guint i = 0; i < json_array_get_length (items); i++)
    {
      JsonNode *item = json_array_get_element (items, i);

      if (!JSON_NODE_HOLDS_OBJECT (item) ||
          json_object_get_string_member_with_default (
            json_node_get_object (item), "type", NULL) == NULL)
        {
          fail (loader, error, where,
                _ ("item %u is not a Responses item (an object with a "
                   "“type”)"),
                i);
          return FALSE;
        }
    }
  return TRUE;
}

/* A scripted model replays the turns of a JSON file: an array of turns,
 * each an array of Responses output items. Agents naming the same file
 * share one model, hence one queue of turns. */
static AgentsModel *
load_scripted_model (Loader *loader,
                     const char *file,
                     const char *where,
                     GError **error)
{
  g_autofree char *path = g_path_is_absolute (file)
                            ? g_strdup (file)
                            : g_build_filename (loader->base_dir, file, NULL);
  g_autoptr (GPtrArray) turns =
    g_ptr_array_new_with_free_func ((GDestroyNotify) json_array_unref);
  g_autoptr (GError) local_error = NULL;
  AgentsScriptedModel *model = g_hash_table_lookup (loader->scripts, path);
  g_autoptr (JsonNode) root = NULL;

  if (model != NULL)
    return g_object_ref (AGENTS_MODEL (model));
  /* A regular file only (a FIFO would block), bounded in size and depth. */
  root = agents_json_load_file (path, _ ("scripted turns file"), &local_error);
  if (root == NULL)
    {
      fail (loader, error, where, "%s", local_error->message);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_ARRAY (root))
    {
      fail (loader, error, where, _ ("%s must hold an array of turns"), path);
      return NULL;
    }
  for (guint i = 0; i < json_array_get_length (json_node_get_array (root)); i++)
    {
      JsonNode *turn = json_array_get_element (json_node_get_array (root), i);
      g_autofree char *turn_where = g_strdup_printf ("%s[%u]", path, i);

      if (!check_turn (loader, turn, turn_where, error))
        return NULL;
      g_ptr_array_add (turns, json_array_ref (json_node_get_array (turn)));
    }

  model = agents_scripted_model_new ();
  agents_scripted_model_set_turn_outputs (model, turns);
  g_object_set_data_full (G_OBJECT (model), "agents-cli-turns",
                          g_ptr_array_ref (turns),
                          (GDestroyNotify) g_ptr_array_unref);
  g_hash_table_insert (loader->scripts, g_steal_pointer (&path), model);
  return g_object_ref (AGENTS_MODEL (model));
}

/* Any other provider is a type registered under its prefix
 * (AGENTS_REGISTRY_KIND_MODEL_PROVIDER) implementing AgentsModel; its
 * `model-name` property, when it has one, gets the rest of the string. */
static AgentsModel *
load_provider_model (Loader *loader,
                     const char *provider,
                     const char *name,
                     const char *where,
                     GError **error)
{
  g_autoptr (GError) lookup_error = NULL;
  GType type = agents_registry_lookup (AGENTS_REGISTRY_KIND_MODEL_PROVIDER,
                                       provider, &lookup_error);
  g_autoptr (GTypeClass) klass = NULL;

  if (type == G_TYPE_INVALID)
    {
      g_auto (GStrv) known =
        agents_registry_list (AGENTS_REGISTRY_KIND_MODEL_PROVIDER);
      g_autofree char *list = g_strjoinv (", ", known);

      fail (loader, error, where,
            _ ("unknown model provider “%s” (known: %s%s%s)"), provider,
            "scripted", *list ? ", " : "", list);
      return NULL;
    }
  if (!g_type_is_a (type, AGENTS_TYPE_MODEL))
    {
      fail (loader, error, where,
            _ ("model provider “%s” (%s) does not implement AgentsModel"),
            provider, g_type_name (type));
      return NULL;
    }
  klass = g_type_class_ref (type);
  if (g_object_class_find_property (G_OBJECT_CLASS (klass), "model-name"))
    return g_object_new (type, "model-name", name, NULL);
  return g_object_new (type, NULL);
}

static gboolean
load_model (Loader *loader,
            AgentsAgent *agent,
            const char *spec,
            const char *where,
            GError **error)
{
  g_autofree char *path = member_path (where, "model");
  const char *colon = strchr (spec, ':');
  g_autofree char *provider = NULL;
  g_autoptr (AgentsModel) model = NULL;

  if (colon == NULL || colon == spec || colon[1] == '\0')
    {
      fail (loader, error, path,
            _ ("“%s” is not PROVIDER:NAME (e.g. scripted:turns.json)"), spec);
      return FALSE;
    }
  provider = g_strndup (spec, colon - spec);
  if (g_str_equal (provider, "scripted"))
    model = load_scripted_model (loader, colon + 1, path, error);
  else
    model = load_provider_model (loader, provider, colon + 1, path, error);
  if (model == NULL)
    return FALSE;
  agents_agent_set_model (agent, model);
  agents_agent_set_model_name (agent, colon + 1);
  return TRUE;
}

/* ---- agents --------------------------------------------------------- */

static gboolean
load_manifest (Loader *loader,
               AgentsSandboxAgent *agent,
               JsonNode *node,
               const char *where,
               GError **error)
{
  g_autofree char *path = member_path (where, "manifest");
  g_autoptr (GError) local_error = NULL;
  g_autoptr (AgentsManifest) manifest = NULL;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      fail (loader, error, path, _ ("must be an object"));
      return FALSE;
    }
  manifest = agents_manifest_new_from_json (node, &local_error);
  if (manifest == NULL)
    {
      fail (loader, error, path, "%s", local_error->message);
      return FALSE;
    }
  agents_sandbox_agent_set_default_manifest (agent, manifest);
  return TRUE;
}

static gboolean
load_model_settings (Loader *loader,
                     AgentsAgent *agent,
                     JsonNode *node,
                     const char *where,
                     GError **error)
{
  g_autofree char *path = member_path (where, "model_settings");
  g_autoptr (GError) local_error = NULL;
  g_autoptr (AgentsModelSettings) settings = NULL;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      fail (loader, error, path, _ ("must be an object"));
      return FALSE;
    }
  settings = agents_model_settings_new_from_json (json_node_get_object (node),
                                                  &local_error);
  if (settings == NULL)
    {
      fail (loader, error, path, "%s", local_error->message);
      return FALSE;
    }
  agents_agent_set_model_settings (agent, settings);
  return TRUE;
}

static AgentsAgent *load_agent (Loader *loader,
                                JsonNode *node,
                                const char *where,
                                AgentsModel *inherited_model,
                                guint depth,
                                GError **error);

static gboolean
load_handoffs (Loader *loader,
               AgentsAgent *agent,
               JsonNode *node,
               const char *where,
               guint depth,
               GError **error)
{
  g_autofree char *path = member_path (where, "handoffs");
  JsonArray *array;

  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      fail (loader, error, path, _ ("must be an array of agents"));
      return FALSE;
    }
  if (depth >= MAX_HANDOFF_DEPTH)
    {
      fail (loader, error, path, _ ("handoffs nest more than %u levels deep"),
            MAX_HANDOFF_DEPTH);
      return FALSE;
    }
  array = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      g_autofree char *element = element_path (where, "handoffs", i);
      g_autoptr (AgentsAgent) target =
        load_agent (loader, json_array_get_element (array, i), element,
                    agents_agent_get_model (agent), depth + 1, error);

      if (target == NULL)
        return FALSE;
      agents_agent_add_handoff (agent, G_OBJECT (target));
    }
  return TRUE;
}

static gboolean
load_strings (Loader *loader,
              AgentsSandboxAgent *agent,
              JsonObject *object,
              const char *where,
              GError **error)
{
  const char *instructions, *description, *run_as;

  if (!get_optional_string (loader, object, where, "instructions",
                            &instructions, error) ||
      !get_optional_string (loader, object, where, "handoff_description",
                            &description, error) ||
      !get_optional_string (loader, object, where, "run_as", &run_as, error))
    return FALSE;
  if (instructions != NULL)
    agents_agent_set_instructions (AGENTS_AGENT (agent), instructions);
  if (description != NULL)
    agents_agent_set_handoff_description (AGENTS_AGENT (agent), description);
  if (run_as != NULL)
    agents_sandbox_agent_set_run_as_name (agent, run_as);
  return TRUE;
}

static AgentsAgent *
load_agent (Loader *loader,
            JsonNode *node,
            const char *where,
            AgentsModel *inherited_model,
            guint depth,
            GError **error)
{
  g_autoptr (AgentsSandboxAgent) agent = NULL;
  JsonObject *object;
  const char *name = NULL;
  const char *model = NULL;
  JsonNode *member;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      fail (loader, error, where, _ ("an agent must be a JSON object"));
      return NULL;
    }
  object = json_node_get_object (node);
  if (!check_members (loader, object, where, agent_members, error) ||
      !get_optional_string (loader, object, where, "name", &name, error) ||
      !get_optional_string (loader, object, where, "model", &model, error))
    return NULL;
  if (name == NULL || *name == '\0')
    {
      fail (loader, error, where, _ ("the agent has no “name”"));
      return NULL;
    }
  if (model == NULL && inherited_model == NULL)
    {
      fail (loader, error, where,
            _ ("the agent “%s” has no “model” (e.g. \"scripted:turns.json\")"),
            name);
      return NULL;
    }

  agent = agents_sandbox_agent_new (name);
  if (!load_strings (loader, agent, object, where, error))
    return NULL;
  if (model != NULL)
    {
      if (!load_model (loader, AGENTS_AGENT (agent), model, where, error))
        return NULL;
    }
  else
    agents_agent_set_model (AGENTS_AGENT (agent), inherited_model);

  if ((member = json_object_get_member (object, "model_settings")) &&
      !load_model_settings (loader, AGENTS_AGENT (agent), member, where, error))
    return NULL;
  if ((member = json_object_get_member (object, "capabilities")) &&
      !load_capabilities (loader, agent, member, where, error))
    return NULL;
  if ((member = json_object_get_member (object, "manifest")) &&
      !load_manifest (loader, agent, member, where, error))
    return NULL;
  if ((member = json_object_get_member (object, "handoffs")) &&
      !load_handoffs (loader, AGENTS_AGENT (agent), member, where, depth,
                      error))
    return NULL;
  return AGENTS_AGENT (g_steal_pointer (&agent));
}

static AgentsAgent *
load_root (Loader *loader, JsonNode *root, GError **error)
{
  if (root == NULL)
    {
      fail (loader, error, NULL, _ ("the file is empty"));
      return NULL;
    }
  return load_agent (loader, root, NULL, NULL, 0, error);
}

static AgentsAgent *
load_with (const char *source,
           const char *base_dir,
           JsonNode *root,
           GError **error)
{
  Loader loader = { source, base_dir, NULL };
  AgentsAgent *agent;

  loader.scripts =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  agent = load_root (&loader, root, error);
  g_hash_table_unref (loader.scripts);
  return agent;
}

void
agents_cli_release_models (AgentsAgent *agent, guint depth)
{
  GListModel *handoffs = agents_agent_get_handoffs (agent);

  agents_agent_set_model (agent, NULL);
  for (guint i = 0;
       depth < MAX_HANDOFF_DEPTH + 1 && i < g_list_model_get_n_items (handoffs);
       i++)
    {
      g_autoptr (GObject) handoff = g_list_model_get_item (handoffs, i);
      AgentsAgent *target =
        AGENTS_IS_HANDOFF (handoff)
          ? agents_handoff_get_agent (AGENTS_HANDOFF (handoff))
          : AGENTS_AGENT (handoff);

      agents_cli_release_models (target, depth + 1);
    }
}

void
agents_cli_skip_scripted_turns (AgentsAgent *agent, guint n_used)
{
  AgentsModel *model = agents_agent_get_model (agent);
  GPtrArray *turns =
    model ? g_object_get_data (G_OBJECT (model), "agents-cli-turns") : NULL;
  g_autoptr (GPtrArray) rest =
    g_ptr_array_new_with_free_func ((GDestroyNotify) json_array_unref);

  if (turns == NULL || !AGENTS_IS_SCRIPTED_MODEL (model))
    return;
  for (guint i = n_used; i < turns->len; i++)
    g_ptr_array_add (rest, json_array_ref (g_ptr_array_index (turns, i)));
  agents_scripted_model_set_turn_outputs (AGENTS_SCRIPTED_MODEL (model), rest);
}

AgentsAgent *
agents_cli_load_agent_file (const char *path, GError **error)
{
  g_autoptr (GError) local_error = NULL;
  g_autofree char *base_dir = g_path_get_dirname (path);
  g_autoptr (JsonNode) root = NULL;

  /* Registers the built-in types before any lookup. */
  agents_registry_load_plugins ();
  /* A regular file only (a FIFO would block), bounded in size and depth. */
  root = agents_json_load_file (path, _ ("agent file"), &local_error);
  if (root == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           local_error->message);
      return NULL;
    }
  return load_with (path, base_dir, root, error);
}

/* Every agent of the tree uses @model. */
static void
set_model_everywhere (AgentsAgent *agent,
                      AgentsModel *model,
                      const char *name,
                      guint depth)
{
  GListModel *handoffs = agents_agent_get_handoffs (agent);

  agents_agent_set_model (agent, model);
  agents_agent_set_model_name (agent, name);
  for (guint i = 0;
       depth < MAX_HANDOFF_DEPTH + 1 && i < g_list_model_get_n_items (handoffs);
       i++)
    {
      g_autoptr (GObject) handoff = g_list_model_get_item (handoffs, i);
      AgentsAgent *target =
        AGENTS_IS_HANDOFF (handoff)
          ? agents_handoff_get_agent (AGENTS_HANDOFF (handoff))
          : AGENTS_AGENT (handoff);

      set_model_everywhere (target, model, name, depth + 1);
    }
}

/* A provider of its own for the model, at @base_url. */
static gboolean
set_base_url (AgentsModel *model,
              const char *spec,
              const char *base_url,
              GError **error)
{
  g_autoptr (AgentsOpenAIProvider) provider = NULL;
  GParamSpec *pspec =
    g_object_class_find_property (G_OBJECT_GET_CLASS (model), "provider");

  if (pspec == NULL || pspec->value_type != AGENTS_TYPE_OPENAI_PROVIDER)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _ ("--base-url: the model “%s” takes no base URL (use "
                      "openai: or chat:)"),
                   spec);
      return FALSE;
    }
  provider = agents_openai_provider_new ();
  agents_openai_provider_set_base_url (provider, base_url);
  g_object_set (model, "provider", provider, NULL);
  return TRUE;
}

gboolean
agents_cli_override_model (AgentsAgent *agent,
                           const char *spec,
                           const char *base_url,
                           GError **error)
{
  g_autofree char *cwd = g_get_current_dir ();
  Loader loader = { "--model", cwd, NULL };
  g_autoptr (AgentsAgent) holder = NULL;
  AgentsModel *model;
  gboolean ok;

  if (spec == NULL && base_url == NULL)
    return TRUE;
  if (spec == NULL)
    {
      /* Only the base URL: the agent file's own model gets it. */
      model = agents_agent_get_model (agent);
      return model != NULL &&
             set_base_url (model, "(the agent file's)", base_url, error);
    }
  holder = agents_agent_new ("--model");
  loader.scripts =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  ok = load_model (&loader, holder, spec, NULL, error);
  g_hash_table_unref (loader.scripts);
  if (!ok)
    return FALSE;
  model = agents_agent_get_model (holder);
  if (base_url != NULL && !set_base_url (model, spec, base_url, error))
    return FALSE;
  set_model_everywhere (agent, model, agents_agent_get_model_name (holder), 0);
  agents_agent_set_model (holder, NULL);
  return TRUE;
}
