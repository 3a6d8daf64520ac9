/* agents-registry.c - plugins and the by-name registry
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-typed-json.h"

/**
 * AgentsRegistry:
 *
 * The registry turns names into types: the backend id of a sandbox client,
 * the `type` discriminator of a manifest entry or snapshot in JSON, the
 * name of a capability. Built-in types are registered when the registry is
 * first used; plugins (GIO modules named `lib<name>.so`) are loaded from
 * the directories in `AGENTS_PLUGIN_PATH` and then from the installed
 * plugin directory. `AGENTS_DISABLE_PLUGINS=1` loads none (programs that
 * link plugins statically, such as the test suite, use it).
 *
 * C plugins implement GIO extension points named after the kinds
 * (`agents-sandbox-client`, …) with the name as extension name. Programs
 * in any language, Python and JavaScript included, register their own
 * types with agents_registry_register().
 */

static const char *const extension_point_names[] = {
  [AGENTS_REGISTRY_KIND_SANDBOX_CLIENT] = "agents-sandbox-client",
  [AGENTS_REGISTRY_KIND_CAPABILITY] = "agents-capability",
  [AGENTS_REGISTRY_KIND_ENTRY_TYPE] = "agents-entry-type",
  [AGENTS_REGISTRY_KIND_SNAPSHOT_TYPE] = "agents-snapshot-type",
  [AGENTS_REGISTRY_KIND_SESSION_STATE] = "agents-session-state",
  [AGENTS_REGISTRY_KIND_MODEL_PROVIDER] = "agents-model-provider",
};

static const char *const kind_labels[] = {
  [AGENTS_REGISTRY_KIND_SANDBOX_CLIENT] = N_ ("sandbox backend"),
  [AGENTS_REGISTRY_KIND_CAPABILITY] = N_ ("capability"),
  [AGENTS_REGISTRY_KIND_ENTRY_TYPE] = N_ ("manifest entry type"),
  [AGENTS_REGISTRY_KIND_SNAPSHOT_TYPE] = N_ ("snapshot type"),
  [AGENTS_REGISTRY_KIND_SESSION_STATE] = N_ ("session state type"),
  [AGENTS_REGISTRY_KIND_MODEL_PROVIDER] = N_ ("model provider"),
};

#define N_KINDS G_N_ELEMENTS (extension_point_names)

G_LOCK_DEFINE_STATIC (registry);
static GHashTable *tables[N_KINDS]; /* name → GType, under the lock */
static GPtrArray *loaded_plugins;   /* module paths */
static GPtrArray *loaded_modules;   /* the GIOModules, kept resident */

static GType
required_type (AgentsRegistryKind kind)
{
  switch (kind)
    {
    case AGENTS_REGISTRY_KIND_SANDBOX_CLIENT:
      return AGENTS_TYPE_SANDBOX_CLIENT;
    case AGENTS_REGISTRY_KIND_CAPABILITY:
      return AGENTS_TYPE_CAPABILITY;
    case AGENTS_REGISTRY_KIND_ENTRY_TYPE:
      return AGENTS_TYPE_MANIFEST_ENTRY;
    case AGENTS_REGISTRY_KIND_SNAPSHOT_TYPE:
      return AGENTS_TYPE_SNAPSHOT;
    case AGENTS_REGISTRY_KIND_SESSION_STATE:
      return AGENTS_TYPE_SANDBOX_SESSION_STATE;
    case AGENTS_REGISTRY_KIND_MODEL_PROVIDER:
    default:
      return G_TYPE_OBJECT;
    }
}

static gboolean
kind_is_valid (AgentsRegistryKind kind)
{
  return (guint) kind < N_KINDS;
}

/* Entry, snapshot and session state types are families of the
 * typed-JSON mechanism (sandbox/common/agents-typed-json.c), which keeps
 * their names: the registry forwards to it. */
static gboolean
kind_is_typed_json (AgentsRegistryKind kind)
{
  return kind == AGENTS_REGISTRY_KIND_ENTRY_TYPE ||
         kind == AGENTS_REGISTRY_KIND_SNAPSHOT_TYPE ||
         kind == AGENTS_REGISTRY_KIND_SESSION_STATE;
}

static void
ensure_tables_locked (void)
{
  if (tables[0] != NULL)
    return;
  for (guint i = 0; i < N_KINDS; i++)
    tables[i] = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

static gboolean
register_locked (AgentsRegistryKind kind,
                 const char *name,
                 GType type,
                 GError **error)
{
  gpointer existing;

  ensure_tables_locked ();
  existing = g_hash_table_lookup (tables[kind], name);
  if (existing != NULL && GPOINTER_TO_SIZE (existing) != type)
    {
      agents_sandbox_error_set (
        error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, NULL,
        _ ("%s “%s” is already registered as %s"), _ (kind_labels[kind]), name,
        g_type_name ((GType) GPOINTER_TO_SIZE (existing)));
      return FALSE;
    }
  g_hash_table_insert (tables[kind], g_strdup (name), GSIZE_TO_POINTER (type));
  return TRUE;
}

static void
register_extension_points (void)
{
  for (guint i = 0; i < N_KINDS; i++)
    {
      GIOExtensionPoint *ep =
        g_io_extension_point_register (extension_point_names[i]);

      g_io_extension_point_set_required_type (ep, required_type (i));
    }
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const char *const *) a, *(const char *const *) b);
}

static gboolean
is_module_name (const char *name)
{
  return g_str_has_prefix (name, "lib") && g_str_has_suffix (name, ".so");
}

/* Loads every module of @dir whose file name was not loaded from an
 * earlier directory. Loaded modules stay resident: they are used once
 * and never released, so the types they registered stay valid. */
static void
scan_directory (GHashTable *seen_names, const char *dir)
{
  g_autoptr (GDir) handle = g_dir_open (dir, 0, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  if (handle == NULL)
    return;
  while ((name = g_dir_read_name (handle)) != NULL)
    if (is_module_name (name))
      g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_strings);

  for (guint i = 0; i < names->len; i++)
    {
      const char *file = g_ptr_array_index (names, i);
      g_autofree char *path = NULL;
      GIOModule *module;

      if (g_hash_table_contains (seen_names, file))
        continue;
      g_hash_table_add (seen_names, g_strdup (file));

      path = g_build_filename (dir, file, NULL);
      module = g_io_module_new (path);
      if (!g_type_module_use (G_TYPE_MODULE (module)))
        {
          g_warning ("could not load plugin %s", path);
          g_object_unref (module);
          continue;
        }
      G_LOCK (registry);
      g_ptr_array_add (loaded_plugins, g_steal_pointer (&path));
      g_ptr_array_add (loaded_modules, module);
      G_UNLOCK (registry);
    }
}

static void
import_extensions (void)
{
  for (guint i = 0; i < N_KINDS; i++)
    {
      GIOExtensionPoint *ep =
        g_io_extension_point_lookup (extension_point_names[i]);

      for (GList *l = g_io_extension_point_get_extensions (ep); l; l = l->next)
        {
          GIOExtension *ext = l->data;
          g_autoptr (GError) error = NULL;

          if (kind_is_typed_json (i))
            {
              if (!agents_typed_json_register (
                    required_type (i), g_io_extension_get_name (ext),
                    g_io_extension_get_type (ext), &error))
                g_warning ("%s", error->message);
              continue;
            }
          G_LOCK (registry);
          if (!register_locked (i, g_io_extension_get_name (ext),
                                g_io_extension_get_type (ext), &error))
            g_warning ("%s", error->message);
          G_UNLOCK (registry);
        }
    }
}

/**
 * agents_registry_load_plugins:
 *
 * Loads the plugins: every GIO module in the directories of
 * `AGENTS_PLUGIN_PATH` (colon-separated, searched first) and of the
 * installed plugin directory. A module of the same file name is loaded
 * once, from the first directory that has it. This happens once per
 * process, on the first lookup; calling it again does nothing.
 */
void
agents_registry_load_plugins (void)
{
  static gsize loaded = 0;

  agents_init ();

  if (g_once_init_enter (&loaded))
    {
      g_autoptr (GHashTable) seen_names =
        g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      const char *env = g_getenv ("AGENTS_PLUGIN_PATH");
      gboolean disabled =
        g_strcmp0 (g_getenv ("AGENTS_DISABLE_PLUGINS"), "1") == 0;

      G_LOCK (registry);
      ensure_tables_locked ();
      loaded_plugins = g_ptr_array_new_with_free_func (g_free);
      loaded_modules = g_ptr_array_new_with_free_func (g_object_unref);
      G_UNLOCK (registry);

      register_extension_points ();
      agents_registry_ensure_builtins ();

      if (env != NULL && !disabled)
        {
          g_auto (GStrv) dirs = g_strsplit (env, G_SEARCHPATH_SEPARATOR_S, -1);

          for (guint i = 0; dirs[i] != NULL; i++)
            if (*dirs[i] != '\0')
              scan_directory (seen_names, dirs[i]);
        }
      if (!disabled)
        scan_directory (seen_names, AGENTS_PLUGINS_DIR);

      import_extensions ();
      g_once_init_leave (&loaded, 1);
    }
}

/* The plugin directories in the order agents_registry_load_plugins()
 * searches them, for messages. */
static char *
describe_plugin_path (void)
{
  const char *env = g_getenv ("AGENTS_PLUGIN_PATH");
  g_autoptr (GString) path = g_string_new (NULL);

  if (g_strcmp0 (g_getenv ("AGENTS_DISABLE_PLUGINS"), "1") == 0)
    return g_strdup (_ ("none: AGENTS_DISABLE_PLUGINS=1"));
  if (env != NULL && *env != '\0')
    g_string_append_printf (path, "%s%c", env, G_SEARCHPATH_SEPARATOR);
  g_string_append (path, AGENTS_PLUGINS_DIR);
  return g_string_free (g_steal_pointer (&path), FALSE);
}

/* Nothing of @kind is registered at all: most likely no plugin module was
 * found, so say where they were looked for. */
static void
set_none_registered_error (GError **error,
                           GVariantBuilder *ctx,
                           AgentsRegistryKind kind,
                           const char *name)
{
  g_autofree char *path = describe_plugin_path ();

  g_variant_builder_add (ctx, "{sv}", "plugin_path",
                         g_variant_new_string (path));
  agents_sandbox_error_set (
    error, AGENTS_SANDBOX_ERROR_UNKNOWN_TYPE, g_variant_builder_end (ctx),
    _ ("unknown %s “%s” (known: none; no plugin module on the plugin path "
       "registered one: %s)"),
    _ (kind_labels[kind]), name ? name : "", path);
}

/**
 * agents_registry_list_plugins:
 *
 * Lists the plugin modules that were loaded.
 *
 * Returns: (transfer full) (array zero-terminated=1): the module paths
 */
char **
agents_registry_list_plugins (void)
{
  GStrvBuilder *builder = g_strv_builder_new ();
  char **result;

  agents_registry_load_plugins ();

  G_LOCK (registry);
  for (guint i = 0; i < loaded_plugins->len; i++)
    g_strv_builder_add (builder, g_ptr_array_index (loaded_plugins, i));
  G_UNLOCK (registry);

  result = g_strv_builder_end (builder);
  g_strv_builder_unref (builder);
  return result;
}

/**
 * agents_registry_register:
 * @kind: what @type is
 * @name: the name to find it by
 * @type: the type; it must implement or derive from what @kind requires
 * @error: return location for a #GError
 *
 * Registers @type under @name. Registering the same type twice under a
 * name is harmless; another type under a taken name is an error. Entry,
 * snapshot and session state types are kept by
 * agents_typed_json_register(), which this calls for them (an empty name
 * is an error there).
 *
 * Returns: %TRUE on success
 */
gboolean
agents_registry_register (AgentsRegistryKind kind,
                          const char *name,
                          GType type,
                          GError **error)
{
  gboolean ok;

  g_return_val_if_fail (kind_is_valid (kind), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  agents_init ();

  if (kind_is_typed_json (kind))
    return agents_typed_json_register (required_type (kind), name, type, error);
  g_return_val_if_fail (name != NULL && *name != '\0', FALSE);

  if (!g_type_is_a (type, required_type (kind)))
    {
      agents_sandbox_error_set (
        error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, NULL,
        _ ("cannot register %s as %s “%s”: it is not a %s"), g_type_name (type),
        _ (kind_labels[kind]), name, g_type_name (required_type (kind)));
      return FALSE;
    }

  G_LOCK (registry);
  ok = register_locked (kind, name, type, error);
  G_UNLOCK (registry);
  return ok;
}

/**
 * agents_registry_list:
 * @kind: a kind of name
 *
 * Lists the names registered for @kind, sorted.
 *
 * Returns: (transfer full) (array zero-terminated=1): the names
 */
char **
agents_registry_list (AgentsRegistryKind kind)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  GHashTableIter iter;
  gpointer key;

  g_return_val_if_fail (kind_is_valid (kind), NULL);

  if (kind_is_typed_json (kind))
    return agents_typed_json_list (required_type (kind));

  agents_registry_load_plugins ();

  G_LOCK (registry);
  g_hash_table_iter_init (&iter, tables[kind]);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (names, g_strdup (key));
  G_UNLOCK (registry);

  g_ptr_array_sort (names, compare_strings);
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_steal (names, NULL);
}

/**
 * agents_registry_lookup:
 * @kind: a kind of name
 * @name: the name
 * @error: return location for a #GError
 *
 * Finds the type registered as @name. An unknown name is an
 * %AGENTS_SANDBOX_ERROR_UNKNOWN_TYPE error whose message lists the known
 * names.
 *
 * Returns: the type, or %G_TYPE_INVALID with @error set
 */
GType
agents_registry_lookup (AgentsRegistryKind kind,
                        const char *name,
                        GError **error)
{
  gpointer found = NULL;

  g_return_val_if_fail (kind_is_valid (kind), G_TYPE_INVALID);
  g_return_val_if_fail (error == NULL || *error == NULL, G_TYPE_INVALID);

  if (kind_is_typed_json (kind))
    return agents_typed_json_lookup (required_type (kind), name ? name : "",
                                     error);

  agents_registry_load_plugins ();

  if (name != NULL)
    {
      G_LOCK (registry);
      found = g_hash_table_lookup (tables[kind], name);
      G_UNLOCK (registry);
    }

  if (found == NULL)
    {
      g_auto (GStrv) known = agents_registry_list (kind);
      g_autofree char *joined = g_strjoinv (", ", known);
      g_auto (GVariantBuilder) ctx =
        G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

      g_variant_builder_add (&ctx, "{sv}", "name",
                             g_variant_new_string (name ? name : ""));
      g_variant_builder_add (
        &ctx, "{sv}", "known",
        g_variant_new_strv ((const char *const *) known, -1));
      if (*joined != '\0')
        {
          agents_sandbox_error_set (
            error, AGENTS_SANDBOX_ERROR_UNKNOWN_TYPE,
            g_variant_builder_end (&ctx), _ ("unknown %s “%s” (known: %s)"),
            _ (kind_labels[kind]), name ? name : "", joined);
          return G_TYPE_INVALID;
        }
      set_none_registered_error (error, &ctx, kind, name);
      return G_TYPE_INVALID;
    }

  return (GType) GPOINTER_TO_SIZE (found);
}

#define DEFINE_REGISTER(fn, kind)                              \
  gboolean fn (const char *name, GType type, GError **error)   \
  {                                                            \
    return agents_registry_register (kind, name, type, error); \
  }

/**
 * agents_registry_register_sandbox_client:
 * @backend_id: the backend id
 * @type: a type implementing #AgentsSandboxClient
 * @error: return location for a #GError
 *
 * Registers a sandbox backend, see agents_registry_register().
 *
 * Returns: %TRUE on success
 */
DEFINE_REGISTER (agents_registry_register_sandbox_client,
                 AGENTS_REGISTRY_KIND_SANDBOX_CLIENT)

/**
 * agents_registry_register_capability:
 * @name: the capability type name
 * @type: a type implementing #AgentsCapability
 * @error: return location for a #GError
 *
 * Registers a capability, see agents_registry_register().
 *
 * Returns: %TRUE on success
 */
DEFINE_REGISTER (agents_registry_register_capability,
                 AGENTS_REGISTRY_KIND_CAPABILITY)

/**
 * agents_registry_register_entry_type:
 * @name: the JSON `type` discriminator
 * @type: a type deriving from #AgentsManifestEntry
 * @error: return location for a #GError
 *
 * Registers a manifest entry type, see agents_registry_register().
 *
 * Returns: %TRUE on success
 */
DEFINE_REGISTER (agents_registry_register_entry_type,
                 AGENTS_REGISTRY_KIND_ENTRY_TYPE)

/**
 * agents_registry_register_snapshot_type:
 * @name: the JSON `type` discriminator
 * @type: a type implementing #AgentsSnapshot
 * @error: return location for a #GError
 *
 * Registers a snapshot type, see agents_registry_register().
 *
 * Returns: %TRUE on success
 */
DEFINE_REGISTER (agents_registry_register_snapshot_type,
                 AGENTS_REGISTRY_KIND_SNAPSHOT_TYPE)

/**
 * agents_registry_register_session_state:
 * @backend_id: the backend id whose session state @type is
 * @type: a type deriving from #AgentsSandboxSessionState
 * @error: return location for a #GError
 *
 * Registers a session state type, see agents_registry_register().
 *
 * Returns: %TRUE on success
 */
DEFINE_REGISTER (agents_registry_register_session_state,
                 AGENTS_REGISTRY_KIND_SESSION_STATE)

static GObject *
new_instance (AgentsRegistryKind kind, const char *name, GError **error)
{
  GType type = agents_registry_lookup (kind, name, error);

  if (type == G_TYPE_INVALID)
    return NULL;
  return g_object_new (type, NULL);
}

/**
 * agents_registry_new_sandbox_client:
 * @backend_id: a backend id, e.g. `"unix_local"`
 * @error: return location for a #GError
 *
 * Creates a client of the backend registered as @backend_id, with its
 * default settings.
 *
 * Returns: (transfer full): the client
 */
AgentsSandboxClient *
agents_registry_new_sandbox_client (const char *backend_id, GError **error)
{
  GObject *client =
    new_instance (AGENTS_REGISTRY_KIND_SANDBOX_CLIENT, backend_id, error);

  return client ? AGENTS_SANDBOX_CLIENT (client) : NULL;
}

/**
 * agents_registry_new_capability:
 * @name: a capability type name, e.g. `"shell"`
 * @error: return location for a #GError
 *
 * Creates a capability of the type registered as @name, with its default
 * settings.
 *
 * Returns: (transfer full): the capability
 */
AgentsCapability *
agents_registry_new_capability (const char *name, GError **error)
{
  GObject *capability =
    new_instance (AGENTS_REGISTRY_KIND_CAPABILITY, name, error);

  return capability ? AGENTS_CAPABILITY (capability) : NULL;
}

void
agents_registry_ensure_builtins (void)
{
  static const struct
  {
    AgentsRegistryKind kind;
    const char *name;
    GType (*get_type) (void);
  } builtins[] = {
    { AGENTS_REGISTRY_KIND_ENTRY_TYPE, "file", agents_file_get_type },
    { AGENTS_REGISTRY_KIND_ENTRY_TYPE, "dir", agents_dir_get_type },
    { AGENTS_REGISTRY_KIND_ENTRY_TYPE, "local_file",
      agents_local_file_get_type },
    { AGENTS_REGISTRY_KIND_ENTRY_TYPE, "local_dir", agents_local_dir_get_type },
    { AGENTS_REGISTRY_KIND_ENTRY_TYPE, "git_repo", agents_git_repo_get_type },
    { AGENTS_REGISTRY_KIND_SNAPSHOT_TYPE, "noop",
      agents_noop_snapshot_get_type },
    { AGENTS_REGISTRY_KIND_SNAPSHOT_TYPE, "local",
      agents_local_snapshot_get_type },
    { AGENTS_REGISTRY_KIND_SNAPSHOT_TYPE, "remote",
      agents_remote_snapshot_get_type },
    { AGENTS_REGISTRY_KIND_SESSION_STATE, "sandbox",
      agents_sandbox_session_state_get_type },
    { AGENTS_REGISTRY_KIND_CAPABILITY, "shell",
      agents_shell_capability_get_type },
    { AGENTS_REGISTRY_KIND_CAPABILITY, "filesystem",
      agents_filesystem_capability_get_type },
    { AGENTS_REGISTRY_KIND_CAPABILITY, "compaction",
      agents_compaction_capability_get_type },
    { AGENTS_REGISTRY_KIND_CAPABILITY, "memory",
      agents_memory_capability_get_type },
    { AGENTS_REGISTRY_KIND_CAPABILITY, "skills",
      agents_skills_capability_get_type },
    { AGENTS_REGISTRY_KIND_MODEL_PROVIDER, "openai",
      agents_openai_responses_model_get_type },
    { AGENTS_REGISTRY_KIND_MODEL_PROVIDER, "chat",
      agents_openai_chat_completions_model_get_type },
  };

  for (guint i = 0; i < G_N_ELEMENTS (builtins); i++)
    {
      g_autoptr (GError) error = NULL;

      if (!agents_registry_register (builtins[i].kind, builtins[i].name,
                                     builtins[i].get_type (), &error))
        g_critical ("%s", error->message);
    }

  {
    g_autoptr (GError) error = NULL;

    if (!agents_typed_json_register (AGENTS_TYPE_ENV_VALUE, "str",
                                     AGENTS_TYPE_STR_ENV_VALUE, &error))
      g_critical ("%s", error->message);
  }
}
