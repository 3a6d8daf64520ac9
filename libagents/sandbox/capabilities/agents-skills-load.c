/* agents-skills-load.c - the load_skill tool of lazy skills
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
          agents_skills_config_error (error, "lazy skill name is ambiguous");
          return NULL;
        }
      found = skill;
    }
  if (found == NULL)
    agents_skills_config_error (error, "lazy skill not found");
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
  g_autofree char *listed = agents_skills_listed_dir (self, manifest, NULL);

  if (listed == NULL)
    return agents_skills_entry_path (self, dir);
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
      agents_skills_config_error (
        error, "load_skill is only available when lazy_from is configured");
      return FALSE;
    }
  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
    wanted =
      agents_skills_string_member (json_node_get_object (node), "skill_name");
  if (wanted == NULL)
    {
      agents_skills_config_error (
        error, _ ("the argument “skill_name” must be a string"));
      return FALSE;
    }
  catalog = agents_skills_lazy_catalog (self);
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
  path = agents_skills_entry_path (self, op->dir);
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
      agents_skills_config_error (&error,
                                  _ ("the skills capability is not bound to a "
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
    session, targets, agents_skills_lazy_source_dir (self->lazy_from),
    g_task_get_cancellable (task), skill_copied, g_object_ref (task));
}

static char *
format_tool_error (AgentsRunContext *ctx,
                   const GError *error,
                   gpointer user_data)
{
  return g_strdup_printf ("error: %s", error->message);
}

AgentsTool *
agents_skills_load_tool_new (AgentsSkillsCapability *self)
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
