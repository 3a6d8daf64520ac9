/* agents-skills-catalog.c - the skills the model is told
 * about: listing them, on the host or in the sandbox, and the instructions
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

/* ---- listing ----------------------------------------------------------- */

static GPtrArray *
inline_catalog (AgentsSkillsCapability *self)
{
  JsonArray *array = json_node_get_array (self->skills);
  GPtrArray *skills =
    g_ptr_array_new_with_free_func ((GDestroyNotify) agents_skills_skill_free);

  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonObject *skill = json_array_get_object_element (array, i);
      const char *name = agents_skills_string_member (skill, "name");

      g_ptr_array_add (
        skills,
        agents_skills_skill_new (
          name, agents_skills_string_member (skill, "description"), name));
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
    g_ptr_array_new_with_free_func ((GDestroyNotify) agents_skills_skill_free);
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
      skill = agents_skills_skill_from_markdown (markdown, names->pdata[i]);
      skill->host_path = g_steal_pointer (&path);
      g_ptr_array_add (skills, skill);
    }
  return skills;
}

GPtrArray *
agents_skills_lazy_catalog (AgentsSkillsCapability *self)
{
  if (self->lazy_catalog == NULL)
    self->lazy_catalog =
      scan_host_dir (agents_skills_lazy_source_dir (self->lazy_from));
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
char *
agents_skills_listed_dir (AgentsSkillsCapability *self,
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

      g_ptr_array_add (op->skills,
                       agents_skills_skill_from_markdown (markdown, dir));
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
  op->skills =
    g_ptr_array_new_with_free_func ((GDestroyNotify) agents_skills_skill_free);
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

void
agents_skills_instructions (AgentsCapability *capability,
                            AgentsManifest *manifest,
                            GTask *task)
{
  AgentsSkillsCapability *self = AGENTS_SKILLS_CAPABILITY (capability);
  GError *error = NULL;
  char *listed_dir = NULL;

  if (!agents_skills_check_config (self, &error) ||
      (listed_dir = agents_skills_listed_dir (self, manifest, &error)) == NULL)
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

      g_task_set_task_data (
        scan, g_strdup (agents_skills_lazy_source_dir (self->lazy_from)),
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
