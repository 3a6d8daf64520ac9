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
/* SKILL.md files larger than this are not read for the listing. */
#define MAX_SKILL_MD_BYTES (1024 * 1024)

typedef struct
{
  char *name;
  char *description;
  char *dir;       /* the folder's name under the skills path */
  char *host_path; /* lazy skills: the host folder */
} Skill;

static void
skill_free (Skill *skill)
{
  g_free (skill->name);
  g_free (skill->description);
  g_free (skill->dir);
  g_free (skill->host_path);
  g_free (skill);
}

static Skill *
skill_new (const char *name, const char *description, const char *dir)
{
  Skill *skill = g_new0 (Skill, 1);

  skill->name = g_strdup (name && *name ? name : dir);
  skill->description =
    g_strdup (description && *description ? description : DEFAULT_DESCRIPTION);
  skill->dir = g_strdup (dir);
  return skill;
}

/* A skill from its SKILL.md text, defaulting as the reference does. */
static Skill *
skill_from_markdown (const char *markdown, const char *dir)
{
  g_autoptr (GHashTable) meta = agents_skill_parse_frontmatter (markdown);

  return skill_new (g_hash_table_lookup (meta, "name"),
                    g_hash_table_lookup (meta, "description"), dir);
}

struct _AgentsSkillsCapability
{
  GObject parent_instance;

  JsonNode *skills;
  JsonNode *from;
  JsonNode *lazy_from;
  char *skills_path;

  GPtrArray *lazy_catalog; /* Skill, scanned once */
  GHashTable *loaded;      /* folder names load_skill copied */
};

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

static gboolean
is_set (JsonNode *node)
{
  return node != NULL && !JSON_NODE_HOLDS_NULL (node);
}

static void
config_error (GError **error, const char *message)
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
      config_error (error, _ ("skills_path must be a relative path in the "
                              "workspace"));
      return FALSE;
    }
  parts = g_strsplit (path, "/", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    if (strcmp (parts[i], "..") == 0)
      {
        config_error (error, _ ("skills_path must not contain “..”"));
        return FALSE;
      }
  return TRUE;
}

static const char *
string_member (JsonObject *object, const char *member)
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
      config_error (error, _ ("skills must be an array of skills"));
      return FALSE;
    }
  array = json_node_get_array (skills);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      JsonObject *skill = JSON_NODE_HOLDS_OBJECT (element)
                            ? json_node_get_object (element)
                            : NULL;

      if (skill == NULL || !is_folder_name (string_member (skill, "name")) ||
          string_member (skill, "description") == NULL ||
          string_member (skill, "content") == NULL)
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
static const char *
lazy_source_dir (JsonNode *lazy_from)
{
  JsonNode *source;
  JsonObject *object;

  if (!JSON_NODE_HOLDS_OBJECT (lazy_from))
    return NULL;
  source = json_object_get_member (json_node_get_object (lazy_from), "source");
  if (source == NULL || !JSON_NODE_HOLDS_OBJECT (source))
    return NULL;
  object = json_node_get_object (source);
  if (g_strcmp0 (string_member (object, "type"), "local_dir") != 0)
    return NULL;
  return string_member (object, "src");
}

static gboolean
check_config (AgentsSkillsCapability *self, GError **error)
{
  guint sources =
    is_set (self->skills) + is_set (self->from) + is_set (self->lazy_from);

  if (sources == 0)
    {
      config_error (error, "skills capability requires `skills`, `from_`, or "
                           "`lazy_from`");
      return FALSE;
    }
  if (sources > 1)
    {
      config_error (error, "skills capability accepts only one of `skills`, "
                           "`from_`, or `lazy_from`");
      return FALSE;
    }
  if (!check_skills_path (self->skills_path, error))
    return FALSE;
  if (is_set (self->skills))
    return check_inline_skills (self->skills, error);
  if (is_set (self->lazy_from) && lazy_source_dir (self->lazy_from) == NULL)
    {
      config_error (error, _ ("lazy_from must be {\"source\": {\"type\": "
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

/* ---- listing ----------------------------------------------------------- */

static GPtrArray *
inline_catalog (AgentsSkillsCapability *self)
{
  JsonArray *array = json_node_get_array (self->skills);
  GPtrArray *skills =
    g_ptr_array_new_with_free_func ((GDestroyNotify) skill_free);

  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonObject *skill = json_array_get_object_element (array, i);
      const char *name = string_member (skill, "name");

      g_ptr_array_add (
        skills, skill_new (name, string_member (skill, "description"), name));
    }
  return skills;
}

/* A regular file (no symlink) of at most MAX_SKILL_MD_BYTES, or NULL. */
static char *
read_host_skill_md (const char *dir_path)
{
  g_autofree char *path = g_build_filename (dir_path, "SKILL.md", NULL);
  GStatBuf st;
  char *text = NULL;
  gsize length = 0;

  if (g_lstat (path, &st) != 0 || !S_ISREG (st.st_mode) ||
      st.st_size > MAX_SKILL_MD_BYTES)
    return NULL;
  if (!g_file_get_contents (path, &text, &length, NULL))
    return NULL;
  if (!g_utf8_validate (text, length, NULL))
    {
      char *valid = g_utf8_make_valid (text, length);

      g_free (text);
      text = valid;
    }
  return text;
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* The host scan of lazy_from: `<src>/<dir>/SKILL.md`, symlinks skipped. */
static GPtrArray *
scan_host_dir (const char *root)
{
  GPtrArray *skills =
    g_ptr_array_new_with_free_func ((GDestroyNotify) skill_free);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GDir) dir = g_dir_open (root, 0, NULL);
  const char *name;

  if (dir == NULL)
    return skills;
  while ((name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_strings);
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *path = g_build_filename (root, names->pdata[i], NULL);
      g_autofree char *markdown = NULL;
      GStatBuf st;
      Skill *skill;

      if (g_lstat (path, &st) != 0 || !S_ISDIR (st.st_mode) ||
          (markdown = read_host_skill_md (path)) == NULL)
        continue;
      skill = skill_from_markdown (markdown, names->pdata[i]);
      skill->host_path = g_steal_pointer (&path);
      g_ptr_array_add (skills, skill);
    }
  return skills;
}

static GPtrArray *
lazy_catalog (AgentsSkillsCapability *self)
{
  if (self->lazy_catalog == NULL)
    self->lazy_catalog = scan_host_dir (lazy_source_dir (self->lazy_from));
  return g_ptr_array_ref (self->lazy_catalog);
}

/* A sortable view of @skills that does not own them (g_ptr_array_copy()
 * would carry the free function over). */
static GPtrArray *
catalog_view (GPtrArray *skills)
{
  GPtrArray *view = g_ptr_array_sized_new (skills->len);

  for (guint i = 0; i < skills->len; i++)
    g_ptr_array_add (view, skills->pdata[i]);
  return view;
}

static int
compare_skills (gconstpointer a, gconstpointer b)
{
  const Skill *x = *(Skill *const *) a;
  const Skill *y = *(Skill *const *) b;
  int by_name = strcmp (x->name, y->name);

  return by_name ? by_name : strcmp (x->dir, y->dir);
}

/* Where the listed skills are: the skills path as it is, or, when the
 * run has a working directory of its own, the skills' absolute path in
 * the workspace, so that it reads the same from any directory. */
static char *
listed_skills_dir (AgentsSkillsCapability *self,
                   AgentsManifest *manifest,
                   GError **error)
{
  const char *root = manifest ? agents_manifest_get_root (manifest) : NULL;

  if (agents_capability_get_cwd (AGENTS_CAPABILITY (self)) == NULL)
    return g_strdup (self->skills_path);
  return agents_workspace_scope_resource_path (root ? root : "/workspace",
                                               self->skills_path, error);
}

static GQuark
listed_dir_quark (void)
{
  return g_quark_from_static_string ("agents-skills-listed-dir");
}

static char *
render_instructions (AgentsSkillsCapability *self,
                     GPtrArray *skills,
                     GTask *task)
{
  const char *listed_dir =
    g_object_get_qdata (G_OBJECT (task), listed_dir_quark ());
  GString *text = g_string_new (NULL);

  g_ptr_array_sort (skills, compare_skills);
  g_string_append (
    text,
    "## Skills\n"
    "A skill is a folder of instructions, and sometimes scripts, reference "
    "documents and assets, for one kind of task. Its `SKILL.md` says what "
    "the skill is for and how to use it.\n\n"
    "### Available skills\n");
  for (guint i = 0; i < skills->len; i++)
    {
      Skill *skill = skills->pdata[i];

      g_string_append_printf (text, "- %s: %s (file: %s/%s/SKILL.md)\n",
                              skill->name, skill->description, listed_dir,
                              skill->dir);
    }
  if (agents_capability_get_cwd (AGENTS_CAPABILITY (self)) != NULL)
    g_string_append (
      text,
      "\n### Run-scoped skill paths\n"
      "- The folder of each `SKILL.md` listed above is that skill's root: "
      "resolve the relative paths a `SKILL.md` names (`scripts/`, "
      "`references/`, `assets/`…) from that folder, not from the working "
      "directory of your commands.\n"
      "- Skills belong to the sandbox session, and other runs may use them "
      "too: leave them unchanged unless the task is to edit a skill. Run "
      "their scripts by the skill's path and keep the task's inputs, "
      "outputs, caches and temporary files in the run's working "
      "directory.\n");
  if (is_set (self->lazy_from))
    g_string_append (
      text,
      "\n### Lazy loading\n"
      "- These skills are not in the workspace until they are loaded: the "
      "files listed above do not exist yet.\n"
      "- Call `load_skill` with a skill's name before you read any of its "
      "files; loading a skill twice does no harm.\n"
      "- Then read the `SKILL.md` at the path `load_skill` returns.\n");
  g_string_append (
    text,
    "\n### How to use skills\n"
    "- Discovery: the list above is every skill this session has. Do not "
    "look for others elsewhere.\n"
    "- When to use one: when the user names a skill, or when the task "
    "plainly matches a skill's description, use it for this turn. Several "
    "may apply; do not carry a skill over to later turns unless the task "
    "calls for it again.\n"
    "- Read progressively: open `SKILL.md` first and read only as much as "
    "the task needs. Open the scripts, references or assets it points to "
    "only when you need them, and prefer running a provided script over "
    "rewriting it.\n"
    "- Several skills: use the fewest that cover the task and decide the "
    "order in which you apply them.\n"
    "- Keep the context small: summarize long files instead of quoting "
    "them, and do not load every reference at once.\n"
    "- If a skill is missing or its files cannot be read, say so in a "
    "sentence and go on with the best approach you have.\n");
  return g_string_free (text, FALSE);
}

/* ---- instructions ------------------------------------------------------ */

typedef struct
{
  AgentsSandboxSession *session;
  char *user;
  GListModel *listing;
  guint next;
  GPtrArray *skills;
} ListOp;

static void
list_op_free (ListOp *op)
{
  g_clear_object (&op->session);
  g_free (op->user);
  g_clear_object (&op->listing);
  g_clear_pointer (&op->skills, g_ptr_array_unref);
  g_free (op);
}

static const char *
run_as_name (AgentsCapability *capability)
{
  AgentsUser *user = agents_capability_get_run_as (capability);

  return user != NULL ? agents_user_get_name (user) : NULL;
}

static void read_next_skill (GTask *task);

static void
skill_md_read (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  ListOp *op = g_task_get_task_data (task);
  g_autoptr (GBytes) bytes = agents_sandbox_session_read_bytes_finish (
    AGENTS_SANDBOX_SESSION (source), result, NULL);
  g_autoptr (AgentsFileEntry) entry =
    g_list_model_get_item (op->listing, op->next - 1);
  g_autofree char *dir =
    g_path_get_basename (agents_file_entry_get_path (entry));

  /* A folder without a readable SKILL.md is no skill. */
  if (bytes != NULL && g_bytes_get_size (bytes) <= MAX_SKILL_MD_BYTES)
    {
      g_autofree char *markdown = g_utf8_make_valid (
        g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));

      g_ptr_array_add (op->skills, skill_from_markdown (markdown, dir));
    }
  read_next_skill (g_steal_pointer (&task));
}

static void
read_next_skill (GTask *task)
{
  AgentsSkillsCapability *self = g_task_get_source_object (task);
  ListOp *op = g_task_get_task_data (task);

  while (op->next < g_list_model_get_n_items (op->listing))
    {
      g_autoptr (AgentsFileEntry) entry =
        g_list_model_get_item (op->listing, op->next++);
      g_autofree char *dir = NULL;
      g_autofree char *path = NULL;

      if (agents_file_entry_get_kind (entry) != AGENTS_ENTRY_KIND_DIRECTORY)
        continue;
      dir = g_path_get_basename (agents_file_entry_get_path (entry));
      path = g_strdup_printf ("%s/%s/SKILL.md", self->skills_path, dir);
      agents_sandbox_session_read_bytes_async (op->session, path, op->user,
                                               g_task_get_cancellable (task),
                                               skill_md_read, task);
      return;
    }
  g_task_return_pointer (task, render_instructions (self, op->skills, task),
                         g_free);
  g_object_unref (task);
}

static void
skills_listed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  ListOp *op = g_task_get_task_data (task);
  g_autoptr (GError) error = NULL;

  op->listing = agents_sandbox_session_ls_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  if (op->listing == NULL)
    {
      g_debug ("skills: cannot list the skills folder: %s", error->message);
      op->listing = G_LIST_MODEL (g_list_store_new (AGENTS_TYPE_FILE_ENTRY));
    }
  read_next_skill (g_steal_pointer (&task));
}

/* `from`: the skills as the sandbox has them. */
static void
list_sandbox_skills (AgentsSkillsCapability *self, GTask *task)
{
  AgentsSandboxSession *session =
    agents_capability_get_session (AGENTS_CAPABILITY (self));
  ListOp *op;

  if (session == NULL)
    {
      g_task_return_error (
        task, g_error_new (AGENTS_SANDBOX_ERROR,
                           AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                           _ ("the skills capability is not bound to a "
                              "sandbox session")));
      return;
    }
  op = g_new0 (ListOp, 1);
  op->session = g_object_ref (session);
  op->user = g_strdup (run_as_name (AGENTS_CAPABILITY (self)));
  op->skills = g_ptr_array_new_with_free_func ((GDestroyNotify) skill_free);
  g_task_set_task_data (task, op, (GDestroyNotify) list_op_free);
  agents_sandbox_session_ls_async (session, self->skills_path,
                                   g_task_get_cancellable (task), skills_listed,
                                   g_object_ref (task));
}

static void
scan_in_thread (GTask *task,
                gpointer source_object,
                gpointer task_data,
                GCancellable *cancellable)
{
  g_autoptr (GPtrArray) skills = scan_host_dir (task_data);

  g_task_return_pointer (task, g_steal_pointer (&skills),
                         (GDestroyNotify) g_ptr_array_unref);
}

static void
lazy_scanned (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  AgentsSkillsCapability *self = g_task_get_source_object (task);
  GPtrArray *skills = g_task_propagate_pointer (G_TASK (result), NULL);
  g_autoptr (GPtrArray) copy = NULL;

  if (self->lazy_catalog == NULL)
    self->lazy_catalog = skills;
  else
    g_ptr_array_unref (skills);
  copy = catalog_view (self->lazy_catalog);
  g_task_return_pointer (task, render_instructions (self, copy, task), g_free);
}

static void
skills_instructions (AgentsCapability *capability,
                     AgentsManifest *manifest,
                     GTask *task)
{
  AgentsSkillsCapability *self = AGENTS_SKILLS_CAPABILITY (capability);
  GError *error = NULL;
  char *listed_dir = NULL;

  if (!check_config (self, &error) ||
      (listed_dir = listed_skills_dir (self, manifest, &error)) == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  g_object_set_qdata_full (G_OBJECT (task), listed_dir_quark (), listed_dir,
                           g_free);
  if (is_set (self->skills))
    {
      g_autoptr (GPtrArray) skills = inline_catalog (self);

      g_task_return_pointer (task, render_instructions (self, skills, task),
                             g_free);
    }
  else if (is_set (self->lazy_from) && self->lazy_catalog == NULL)
    {
      GTask *scan = g_task_new (self, g_task_get_cancellable (task),
                                lazy_scanned, g_object_ref (task));

      g_task_set_task_data (scan, g_strdup (lazy_source_dir (self->lazy_from)),
                            g_free);
      g_task_run_in_thread (scan, scan_in_thread);
      g_object_unref (scan);
    }
  else if (is_set (self->lazy_from))
    {
      g_autoptr (GPtrArray) copy = catalog_view (self->lazy_catalog);

      g_task_return_pointer (task, render_instructions (self, copy, task),
                             g_free);
    }
  else
    list_sandbox_skills (self, task);
}

/* ---- manifest ---------------------------------------------------------- */

static char *
skill_entry_path (AgentsSkillsCapability *self, const char *dir)
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

  if (!check_config (self, NULL) || is_set (self->lazy_from))
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
      g_autoptr (AgentsManifestEntry) file =
        agents_file_new_from_text (string_member (skill, "content"));
      g_autofree char *path =
        skill_entry_path (self, string_member (skill, "name"));

      agents_dir_set_child (AGENTS_DIR (dir), "SKILL.md", file);
      add_entry (copy, path, dir);
    }
  return copy;
}

/* ---- load_skill -------------------------------------------------------- */

typedef struct
{
  AgentsSkillsCapability *self;
  char *skill_name;
  char *dir;
} LoadOp;

static void
load_op_free (LoadOp *op)
{
  g_clear_object (&op->self);
  g_free (op->skill_name);
  g_free (op->dir);
  g_free (op);
}

static char *
load_result (const char *status, const char *skill_name, const char *path)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (JsonNode) root = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "status");
  json_builder_add_string_value (builder, status);
  json_builder_set_member_name (builder, "skill_name");
  json_builder_add_string_value (builder, skill_name);
  json_builder_set_member_name (builder, "path");
  json_builder_add_string_value (builder, path);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  return json_to_string (root, FALSE);
}

/* The skill the model asked for, by its name or its folder name. */
static Skill *
find_lazy_skill (GPtrArray *catalog, const char *wanted, GError **error)
{
  Skill *found = NULL;

  for (guint i = 0; i < catalog->len; i++)
    {
      Skill *skill = catalog->pdata[i];

      if (strcmp (skill->name, wanted) != 0 && strcmp (skill->dir, wanted) != 0)
        continue;
      if (found != NULL && found != skill)
        {
          config_error (error, "lazy skill name is ambiguous");
          return NULL;
        }
      found = skill;
    }
  if (found == NULL)
    config_error (error, "lazy skill not found");
  return found;
}

/* The path load_skill answers with: where the skill is listed, the
 * skills path as it is, or its absolute workspace path when the run has
 * a working directory of its own (a relative path would read from it). */
static char *
loaded_skill_path (AgentsSkillsCapability *self, const char *dir)
{
  AgentsSandboxSession *session =
    agents_capability_get_session (AGENTS_CAPABILITY (self));
  AgentsManifest *manifest =
    session ? agents_sandbox_session_get_manifest (session) : NULL;
  g_autofree char *listed = listed_skills_dir (self, manifest, NULL);

  if (listed == NULL)
    return skill_entry_path (self, dir);
  return g_strdup_printf ("%s/%s", listed, dir);
}

static void
skill_copied (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  LoadOp *op = g_task_get_task_data (task);
  GError *error = NULL;
  g_autoptr (GPtrArray) files =
    agents_sandbox_session_apply_entry_batch_finish (
      AGENTS_SANDBOX_SESSION (source), result, &error);
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;

  if (files == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  g_hash_table_add (op->self->loaded, g_strdup (op->dir));
  path = loaded_skill_path (op->self, op->dir);
  text = load_result ("loaded", op->skill_name, path);
  agents_tool_return_text (task, text);
}

static gboolean
load_skill_prepare (AgentsSkillsCapability *self,
                    const char *arguments,
                    LoadOp *op,
                    GError **error)
{
  g_autoptr (JsonNode) node =
    agents_json_parse_bounded (arguments, -1, "arguments", NULL);
  g_autoptr (GPtrArray) catalog = NULL;
  const char *wanted = NULL;
  Skill *skill;

  if (!is_set (self->lazy_from))
    {
      config_error (
        error, "load_skill is only available when lazy_from is configured");
      return FALSE;
    }
  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
    wanted = string_member (json_node_get_object (node), "skill_name");
  if (wanted == NULL)
    {
      config_error (error, _ ("the argument “skill_name” must be a string"));
      return FALSE;
    }
  catalog = lazy_catalog (self);
  if ((skill = find_lazy_skill (catalog, wanted, error)) == NULL)
    return FALSE;
  op->skill_name = g_strdup (skill->name);
  op->dir = g_strdup (skill->dir);
  op->self = g_object_ref (self);
  return TRUE;
}

static void
load_skill_invoke (AgentsRunContext *ctx,
                   const char *arguments,
                   GTask *task,
                   gpointer user_data)
{
  AgentsSkillsCapability *self = user_data;
  AgentsSandboxSession *session =
    agents_capability_get_session (AGENTS_CAPABILITY (self));
  LoadOp *op = g_new0 (LoadOp, 1);
  GError *error = NULL;
  g_autoptr (GPtrArray) targets = NULL;
  g_autoptr (AgentsManifestEntry) entry = NULL;
  g_autofree char *path = NULL;
  g_autofree char *target = NULL;
  Skill *skill;

  g_task_set_task_data (task, op, (GDestroyNotify) load_op_free);
  if (!load_skill_prepare (self, arguments, op, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  path = skill_entry_path (self, op->dir);
  if (g_hash_table_contains (self->loaded, op->dir))
    {
      g_autofree char *shown = loaded_skill_path (self, op->dir);
      g_autofree char *text =
        load_result ("already_loaded", op->skill_name, shown);

      agents_tool_return_text (task, text);
      return;
    }
  if (session == NULL)
    {
      config_error (&error, _ ("the skills capability is not bound to a "
                               "sandbox session"));
      g_task_return_error (task, error);
      return;
    }
  skill = find_lazy_skill (self->lazy_catalog, op->dir, NULL);
  entry = agents_local_dir_new (skill->host_path);
  /* Targets are absolute paths in the workspace. */
  target = g_build_filename (
    agents_manifest_get_root (agents_sandbox_session_get_manifest (session)),
    path, NULL);
  targets =
    g_ptr_array_new_with_free_func ((GDestroyNotify) agents_entry_target_free);
  g_ptr_array_add (targets, agents_entry_target_new (target, entry));
  /* The configured folder is where the user allowed sources to be. */
  agents_sandbox_session_apply_entry_batch_async (
    session, targets, lazy_source_dir (self->lazy_from),
    g_task_get_cancellable (task), skill_copied, g_object_ref (task));
}

static char *
format_tool_error (AgentsRunContext *ctx,
                   const GError *error,
                   gpointer user_data)
{
  return g_strdup_printf ("error: %s", error->message);
}

static AgentsTool *
load_skill_tool_new (AgentsSkillsCapability *self)
{
  g_autoptr (JsonNode) schema = json_from_string (
    "{\"type\":\"object\",\"properties\":{\"skill_name\":{\"type\":"
    "\"string\",\"description\":\"The name of the skill to load.\"}},"
    "\"required\":[\"skill_name\"],\"additionalProperties\":false}",
    NULL);
  AgentsFunctionTool *tool = agents_function_tool_new_async (
    "load_skill",
    "Copies one of the listed skills into the workspace so that its "
    "SKILL.md and other files can be read. Takes the skill's name; answers "
    "with the folder it was copied to.",
    json_node_get_object (schema), load_skill_invoke, g_object_ref (self),
    g_object_unref);

  agents_function_tool_set_error_func (tool, format_tool_error, NULL, NULL);
  return AGENTS_TOOL (tool);
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
    g_ptr_array_add (tools, load_skill_tool_new (self));
  return tools;
}

static void
skills_capability_iface_init (AgentsCapabilityInterface *iface)
{
  iface->get_capability_type = skills_get_capability_type;
  iface->get_tools = skills_get_tools;
  iface->instructions = skills_instructions;
  iface->process_manifest = skills_process_manifest;
}

static gboolean
skills_initable_init (GInitable *initable,
                      GCancellable *cancellable,
                      GError **error)
{
  return check_config (AGENTS_SKILLS_CAPABILITY (initable), error);
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
