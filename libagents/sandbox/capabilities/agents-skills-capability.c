/* agents-skills-capability.c - skills the model can read and load
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "agents-json-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-skill-frontmatter-private.h"
#include "agents-skills-capability.h"
#include "agents-workspace-scope-private.h"
#include "run/agents-tool.h"
#include "agents-skills-capability-private.h"

/**
 * AgentsSkillsCapability:
 *
 * The `skills` capability: folders of instructions (a `SKILL.md` with
 * `name` and `description` front matter, plus optional `scripts/`,
 * `references/` and `assets/`) the model is told about in its
 * instructions and reads when a task calls for one. Skills live in the
 * workspace under #AgentsSkillsCapability:skills-path (`.agents` by
 * default), one folder per skill.
 *
 * Exactly one source is configured:
 *
 * - #AgentsSkillsCapability:skills, skills given inline
 *   (`[{"name": …, "description": …, "content": "the SKILL.md text"}]`),
 *   added to the manifest as `<skills-path>/<name>/SKILL.md`;
 * - #AgentsSkillsCapability:from, a manifest entry (a `local_dir`, a `dir`,
 *   a `git_repo`…) materialized at the skills path; the skills are listed
 *   from the sandbox when the instructions are built;
 * - #AgentsSkillsCapability:lazy-from, `{"source": {"type": "local_dir",
 *   "src": "/host/dir"}}`: the host folder's skills are listed, nothing is
 *   copied up front, and the model gets a `load_skill` tool
 *   (`{"skill_name": string}`) that copies one skill folder into the
 *   workspace and answers
 *   `{"status": "loaded"|"already_loaded", "skill_name": …, "path": …}`.
 *
 * The instructions have a `## Skills` section listing every skill as
 * `- name: description (file: path/SKILL.md)`, sorted by name. For a run
 * with a working directory of its own (agents_capability_bind_cwd()),
 * the paths are absolute in the workspace (`/workspace/.agents/…`) and a
 * `### Run-scoped skill paths` part tells the model that a skill's
 * relative paths start at its folder and that the run's own files belong
 * in the working directory.
 *
 * In an agent file: `{"type": "skills", "lazy_from": {"source": {"type":
 * "local_dir", "src": "skills"}}}`. A configuration with no source, or
 * more than one, is refused when the capability is initialized
 * (#GInitable).
 */

#define DEFAULT_SKILLS_PATH ".agents"
#define DEFAULT_DESCRIPTION "No description provided."
void
agents_skills_skill_free (Skill *skill)
{
  g_free (skill->name);
  g_free (skill->description);
  g_free (skill->dir);
  g_free (skill->host_path);
  g_free (skill);
}

Skill *
agents_skills_skill_new (const char *name,
                         const char *description,
                         const char *dir)
{
  Skill *skill = g_new0 (Skill, 1);

  skill->name = g_strdup (name && *name ? name : dir);
  skill->description =
    g_strdup (description && *description ? description : DEFAULT_DESCRIPTION);
  skill->dir = g_strdup (dir);
  return skill;
}

/* A skill from its SKILL.md text, defaulting as the reference does. */
Skill *
agents_skills_skill_from_markdown (const char *markdown, const char *dir)
{
  g_autoptr (GHashTable) meta = agents_skill_parse_frontmatter (markdown);

  return agents_skills_skill_new (g_hash_table_lookup (meta, "name"),
                                  g_hash_table_lookup (meta, "description"),
                                  dir);
}

enum
{
  PROP_0,
  PROP_SKILLS,
  PROP_FROM,
  PROP_LAZY_FROM,
  PROP_SKILLS_PATH,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void skills_initable_iface_init (GInitableIface *iface);
static void skills_capability_iface_init (AgentsCapabilityInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  AgentsSkillsCapability,
  agents_skills_capability,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (G_TYPE_INITABLE, skills_initable_iface_init)
    G_IMPLEMENT_INTERFACE (AGENTS_TYPE_CAPABILITY,
                           skills_capability_iface_init))

/* ---- configuration ----------------------------------------------------- */

void
agents_skills_config_error (GError **error, const char *message)
{
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, NULL,
                            "%s", message);
}

/* One folder name: no separators, not `.` or `..`. */
static gboolean
is_folder_name (const char *name)
{
  return name != NULL && *name != '\0' && strchr (name, '/') == NULL &&
         strchr (name, '\\') == NULL && strcmp (name, ".") != 0 &&
         strcmp (name, "..") != 0;
}

static gboolean
check_skills_path (const char *path, GError **error)
{
  g_auto (GStrv) parts = NULL;

  if (path == NULL || *path == '\0' || g_path_is_absolute (path) ||
      strchr (path, '\\') != NULL)
    {
      agents_skills_config_error (
        error, _ ("skills_path must be a relative path in the "
                  "workspace"));
      return FALSE;
    }
  parts = g_strsplit (path, "/", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    if (strcmp (parts[i], "..") == 0)
      {
        agents_skills_config_error (error,
                                    _ ("skills_path must not contain “..”"));
        return FALSE;
      }
  return TRUE;
}

const char *
agents_skills_string_member (JsonObject *object, const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

static gboolean
check_inline_skills (JsonNode *skills, GError **error)
{
  JsonArray *array;

  if (!JSON_NODE_HOLDS_ARRAY (skills))
    {
      agents_skills_config_error (error,
                                  _ ("skills must be an array of skills"));
      return FALSE;
    }
  array = json_node_get_array (skills);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      JsonObject *skill = JSON_NODE_HOLDS_OBJECT (element)
                            ? json_node_get_object (element)
                            : NULL;

      if (skill == NULL ||
          !is_folder_name (agents_skills_string_member (skill, "name")) ||
          agents_skills_string_member (skill, "description") == NULL ||
          agents_skills_string_member (skill, "content") == NULL)
        {
          agents_sandbox_error_set (
            error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, NULL,
            _ ("skills[%u] needs a “name” (a folder name), a “description” "
               "and a “content” (strings)"),
            i);
          return FALSE;
        }
    }
  return TRUE;
}

/* The host folder of `lazy_from`: {"source": {"type": "local_dir",
 * "src": …}}. */
const char *
agents_skills_lazy_source_dir (JsonNode *lazy_from)
{
  JsonNode *source;
  JsonObject *object;

  if (!JSON_NODE_HOLDS_OBJECT (lazy_from))
    return NULL;
  source = json_object_get_member (json_node_get_object (lazy_from), "source");
  if (source == NULL || !JSON_NODE_HOLDS_OBJECT (source))
    return NULL;
  object = json_node_get_object (source);
  if (g_strcmp0 (agents_skills_string_member (object, "type"), "local_dir") !=
      0)
    return NULL;
  return agents_skills_string_member (object, "src");
}

gboolean
agents_skills_check_config (AgentsSkillsCapability *self, GError **error)
{
  guint sources =
    is_set (self->skills) + is_set (self->from) + is_set (self->lazy_from);

  if (sources == 0)
    {
      agents_skills_config_error (
        error, "skills capability requires `skills`, `from_`, or "
               "`lazy_from`");
      return FALSE;
    }
  if (sources > 1)
    {
      agents_skills_config_error (
        error, "skills capability accepts only one of `skills`, "
               "`from_`, or `lazy_from`");
      return FALSE;
    }
  if (!check_skills_path (self->skills_path, error))
    return FALSE;
  if (is_set (self->skills))
    return check_inline_skills (self->skills, error);
  if (is_set (self->lazy_from) &&
      agents_skills_lazy_source_dir (self->lazy_from) == NULL)
    {
      agents_skills_config_error (
        error, _ ("lazy_from must be {\"source\": {\"type\": "
                  "\"local_dir\", \"src\": PATH}}"));
      return FALSE;
    }
  if (is_set (self->from))
    {
      g_autoptr (AgentsManifestEntry) entry =
        agents_manifest_entry_new_from_json (self->from, error);

      return entry != NULL;
    }
  return TRUE;
}

/* ---- manifest ---------------------------------------------------------- */

char *
agents_skills_entry_path (AgentsSkillsCapability *self, const char *dir)
{
  return g_strdup_printf ("%s/%s", self->skills_path, dir);
}

static void
add_entry (AgentsManifest *manifest,
           const char *path,
           AgentsManifestEntry *entry)
{
  AgentsManifestEntry *existing = agents_manifest_get_entry (manifest, path);

  /* The manifest's own entry wins: the user put it there. */
  if (existing != NULL)
    {
      g_warning ("skills: the manifest already has an entry at %s; the "
                 "skill is not added",
                 path);
      return;
    }
  agents_manifest_set_entry (manifest, path, entry);
}

static AgentsManifest *
skills_process_manifest (AgentsCapability *capability, AgentsManifest *manifest)
{
  AgentsSkillsCapability *self = AGENTS_SKILLS_CAPABILITY (capability);
  AgentsManifest *copy;

  if (!agents_skills_check_config (self, NULL) || is_set (self->lazy_from))
    return g_object_ref (manifest);
  copy = agents_manifest_copy (manifest);
  if (is_set (self->from))
    {
      g_autoptr (AgentsManifestEntry) entry =
        agents_manifest_entry_new_from_json (self->from, NULL);

      add_entry (copy, self->skills_path, entry);
      return copy;
    }
  for (guint i = 0;
       i < json_array_get_length (json_node_get_array (self->skills)); i++)
    {
      JsonObject *skill =
        json_array_get_object_element (json_node_get_array (self->skills), i);
      g_autoptr (AgentsManifestEntry) dir = agents_dir_new ();
      g_autoptr (AgentsManifestEntry) file = agents_file_new_from_text (
        agents_skills_string_member (skill, "content"));
      g_autofree char *path = agents_skills_entry_path (
        self, agents_skills_string_member (skill, "name"));

      agents_dir_set_child (AGENTS_DIR (dir), "SKILL.md", file);
      add_entry (copy, path, dir);
    }
  return copy;
}

/* ---- the capability ---------------------------------------------------- */

static const char *
skills_get_capability_type (AgentsCapability *self)
{
  return "skills";
}

static GPtrArray *
skills_get_tools (AgentsCapability *capability)
{
  AgentsSkillsCapability *self = AGENTS_SKILLS_CAPABILITY (capability);
  GPtrArray *tools = g_ptr_array_new_with_free_func (g_object_unref);

  if (is_set (self->lazy_from))
    g_ptr_array_add (tools, agents_skills_load_tool_new (self));
  return tools;
}

static void
skills_capability_iface_init (AgentsCapabilityInterface *iface)
{
  iface->get_capability_type = skills_get_capability_type;
  iface->get_tools = skills_get_tools;
  iface->instructions = agents_skills_instructions;
  iface->process_manifest = skills_process_manifest;
}

static gboolean
skills_initable_init (GInitable *initable,
                      GCancellable *cancellable,
                      GError **error)
{
  return agents_skills_check_config (AGENTS_SKILLS_CAPABILITY (initable),
                                     error);
}

static void
skills_initable_iface_init (GInitableIface *iface)
{
  iface->init = skills_initable_init;
}

/* ---- GObject ----------------------------------------------------------- */

static void
agents_skills_capability_finalize (GObject *object)
{
  AgentsSkillsCapability *self = AGENTS_SKILLS_CAPABILITY (object);

  g_clear_pointer (&self->skills, json_node_unref);
  g_clear_pointer (&self->from, json_node_unref);
  g_clear_pointer (&self->lazy_from, json_node_unref);
  g_free (self->skills_path);
  g_clear_pointer (&self->lazy_catalog, g_ptr_array_unref);
  g_hash_table_unref (self->loaded);
  G_OBJECT_CLASS (agents_skills_capability_parent_class)->finalize (object);
}

static JsonNode **
json_slot (AgentsSkillsCapability *self, guint prop_id)
{
  switch (prop_id)
    {
    case PROP_SKILLS:
      return &self->skills;
    case PROP_FROM:
      return &self->from;
    case PROP_LAZY_FROM:
      return &self->lazy_from;
    default:
      return NULL;
    }
}

static void
skills_get_property (GObject *object,
                     guint prop_id,
                     GValue *value,
                     GParamSpec *pspec)
{
  AgentsSkillsCapability *self = AGENTS_SKILLS_CAPABILITY (object);
  JsonNode **slot = json_slot (self, prop_id);

  if (slot != NULL)
    g_value_set_boxed (value, *slot);
  else if (prop_id == PROP_SKILLS_PATH)
    g_value_set_string (value, self->skills_path);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
skills_set_property (GObject *object,
                     guint prop_id,
                     const GValue *value,
                     GParamSpec *pspec)
{
  AgentsSkillsCapability *self = AGENTS_SKILLS_CAPABILITY (object);
  JsonNode **slot = json_slot (self, prop_id);

  if (slot != NULL)
    {
      JsonNode *node = g_value_get_boxed (value);

      g_clear_pointer (slot, json_node_unref);
      if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
        *slot = json_node_copy (node);
      g_clear_pointer (&self->lazy_catalog, g_ptr_array_unref);
      g_object_notify_by_pspec (object, pspec);
    }
  else if (prop_id == PROP_SKILLS_PATH)
    agents_skills_capability_set_skills_path (self, g_value_get_string (value));
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static GParamSpec *
json_param (const char *name)
{
  return g_param_spec_boxed (name, NULL, NULL, JSON_TYPE_NODE,
                             G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                               G_PARAM_STATIC_STRINGS);
}

static void
agents_skills_capability_class_init (AgentsSkillsCapabilityClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = agents_skills_capability_finalize;
  object_class->get_property = skills_get_property;
  object_class->set_property = skills_set_property;

  /**
   * AgentsSkillsCapability:skills:
   *
   * Skills given inline: a JSON array of `{"name", "description",
   * "content"}` objects (strings; `content` is the text of `SKILL.md`),
   * or %NULL.
   */
  properties[PROP_SKILLS] = json_param ("skills");
  /**
   * AgentsSkillsCapability:from:
   *
   * A manifest entry, as JSON (agents_manifest_entry_to_json()), holding
   * one folder per skill, materialized at the skills path; or %NULL.
   */
  properties[PROP_FROM] = json_param ("from");
  /**
   * AgentsSkillsCapability:lazy-from:
   *
   * `{"source": {"type": "local_dir", "src": PATH}}`: a host folder of
   * skills copied one by one by the `load_skill` tool; or %NULL.
   */
  properties[PROP_LAZY_FROM] = json_param ("lazy-from");
  /**
   * AgentsSkillsCapability:skills-path:
   *
   * The workspace folder the skills are in, relative to the workspace
   * root.
   */
  properties[PROP_SKILLS_PATH] = g_param_spec_string (
    "skills-path", NULL, NULL, DEFAULT_SKILLS_PATH,
    G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
agents_skills_capability_init (AgentsSkillsCapability *self)
{
  self->skills_path = g_strdup (DEFAULT_SKILLS_PATH);
  self->loaded = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

/**
 * agents_skills_capability_new_from_dir:
 * @host_dir: (type filename): a host folder with one folder per skill
 * @lazy: whether the skills are copied on demand by `load_skill`
 *   (`lazy_from`) rather than materialized with the manifest (`from`,
 *   as a `local_dir` entry)
 *
 * Creates a `skills` capability over a host folder of skills.
 *
 * Returns: (transfer full): the capability
 */
AgentsCapability *
agents_skills_capability_new_from_dir (const char *host_dir, gboolean lazy)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (JsonNode) source = NULL;

  g_return_val_if_fail (host_dir != NULL, NULL);

  json_builder_begin_object (builder);
  if (lazy)
    {
      json_builder_set_member_name (builder, "source");
      json_builder_begin_object (builder);
    }
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "local_dir");
  json_builder_set_member_name (builder, "src");
  json_builder_add_string_value (builder, host_dir);
  if (lazy)
    json_builder_end_object (builder);
  json_builder_end_object (builder);
  source = json_builder_get_root (builder);
  return g_object_new (AGENTS_TYPE_SKILLS_CAPABILITY,
                       lazy ? "lazy-from" : "from", source, NULL);
}

/**
 * agents_skills_capability_new_from_entry:
 * @entry: a manifest entry with one folder per skill
 *
 * Creates a `skills` capability whose skills come with @entry,
 * materialized at the skills path.
 *
 * Returns: (transfer full): the capability
 */
AgentsCapability *
agents_skills_capability_new_from_entry (AgentsManifestEntry *entry)
{
  g_autoptr (JsonNode) json = NULL;

  g_return_val_if_fail (AGENTS_IS_MANIFEST_ENTRY (entry), NULL);

  json = agents_manifest_entry_to_json (entry);
  return g_object_new (AGENTS_TYPE_SKILLS_CAPABILITY, "from", json, NULL);
}

/**
 * agents_skills_capability_new_from_json:
 * @skills: a JSON array of `{"name", "description", "content"}` objects
 * @error: return location for a #GError
 *
 * Creates a `skills` capability with skills given inline; a malformed
 * array fails with %AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT.
 *
 * Returns: (transfer full) (nullable): the capability, or %NULL
 */
AgentsCapability *
agents_skills_capability_new_from_json (JsonNode *skills, GError **error)
{
  g_return_val_if_fail (skills != NULL, NULL);

  return g_initable_new (AGENTS_TYPE_SKILLS_CAPABILITY, NULL, error, "skills",
                         skills, NULL);
}

/**
 * agents_skills_capability_get_skills_path:
 * @self: a skills capability
 *
 * Gets #AgentsSkillsCapability:skills-path.
 *
 * Returns: the workspace folder of the skills
 */
const char *
agents_skills_capability_get_skills_path (AgentsSkillsCapability *self)
{
  g_return_val_if_fail (AGENTS_IS_SKILLS_CAPABILITY (self), NULL);
  return self->skills_path;
}

/**
 * agents_skills_capability_set_skills_path:
 * @self: a skills capability
 * @skills_path: the workspace folder of the skills, relative to the root
 *
 * Sets #AgentsSkillsCapability:skills-path.
 */
void
agents_skills_capability_set_skills_path (AgentsSkillsCapability *self,
                                          const char *skills_path)
{
  g_return_if_fail (AGENTS_IS_SKILLS_CAPABILITY (self));

  if (skills_path == NULL)
    skills_path = DEFAULT_SKILLS_PATH;
  if (g_strcmp0 (self->skills_path, skills_path) == 0)
    return;
  g_free (self->skills_path);
  self->skills_path = g_strdup (skills_path);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SKILLS_PATH]);
}
