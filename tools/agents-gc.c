/* agents-gc.c - what runs leave behind: snapshot retention and `agents gc`
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A run's workspace is persisted as a local snapshot (a tar in
 * $XDG_CACHE_HOME/agents-1.0/snapshots) when its sandbox closes. The
 * program removes the snapshots of a run that no state file will resume;
 * a run saved to a state file claims them (ID.claim names the file), and
 * `agents gc` removes the claimed snapshots whose state file is gone or
 * no longer names them, and the unix_local workspaces whose owner
 * process is gone (a killed run's).
 */

#include "config.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <limits.h>
#include <string.h>

#include "agents-cli.h"
#include "agents-file-private.h"
#include "agents-json-private.h"

#define CLAIM_SUFFIX ".claim"

/* ---- the run's snapshots ------------------------------------------------- */

static char *
default_snapshot_dir (void)
{
  return g_build_filename (g_get_user_cache_dir (), "agents-1.0", "snapshots",
                           NULL);
}

static gboolean
is_plain_name (const char *id)
{
  return id != NULL && *id != '\0' && strchr (id, '/') == NULL &&
         strcmp (id, ".") != 0 && strcmp (id, "..") != 0;
}

/* The ids of the local snapshots in the default directory that @node
 * (a run state's sandbox payload) names. A snapshot kept anywhere else
 * is the caller's business: the payload may come from a file. */
static void
collect_snapshots (JsonNode *node, GHashTable *ids)
{
  g_autofree char *dir = default_snapshot_dir ();
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;

  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        collect_snapshots (json_array_get_element (array, i), ids);
      return;
    }
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return;

  json_object_iter_init (&iter, json_node_get_object (node));
  while (json_object_iter_next (&iter, &name, &member))
    {
      JsonObject *snapshot;
      const char *type, *id, *base;

      if (!g_str_equal (name, "snapshot") || !JSON_NODE_HOLDS_OBJECT (member))
        {
          collect_snapshots (member, ids);
          continue;
        }
      snapshot = json_node_get_object (member);
      type = json_object_get_string_member_with_default (snapshot, "type", "");
      id = json_object_get_string_member_with_default (snapshot, "id", NULL);
      base = json_object_get_string_member_with_default (snapshot, "base_path",
                                                         NULL);
      if (g_str_equal (type, "local") && is_plain_name (id) && base != NULL &&
          g_str_equal (base, dir))
        g_hash_table_add (ids, g_strdup (id));
    }
}

/* The ids of the local snapshots a run state's @sandbox payload names. */
static GHashTable *
payload_snapshots (JsonObject *sandbox)
{
  GHashTable *ids =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (JsonNode) node = NULL;

  if (sandbox != NULL)
    {
      node = json_node_init_object (json_node_alloc (), sandbox);
      collect_snapshots (node, ids);
    }
  return ids;
}

static char *
snapshot_file (const char *id, const char *suffix)
{
  g_autofree char *dir = default_snapshot_dir ();
  g_autofree char *name = g_strconcat (id, suffix, NULL);

  return g_build_filename (dir, name, NULL);
}

/**
 * agents_cli_release_snapshots:
 *
 * The run ended without a state file to resume it: its snapshots go.
 */
void
agents_cli_release_snapshots (AgentsRunResultStreaming *streaming)
{
  g_autoptr (AgentsRunState) state =
    agents_run_result_streaming_to_state (streaming);

  agents_cli_release_payload_snapshots (agents_run_state_get_sandbox (state));
}

/**
 * agents_cli_release_payload_snapshots:
 *
 * The snapshots a @sandbox payload names go.
 */
void
agents_cli_release_payload_snapshots (JsonObject *sandbox)
{
  g_autoptr (GHashTable) ids = payload_snapshots (sandbox);
  GHashTableIter iter;
  const char *id;

  g_hash_table_iter_init (&iter, ids);
  while (g_hash_table_iter_next (&iter, (gpointer *) &id, NULL))
    {
      g_autofree char *tar = snapshot_file (id, ".tar");
      g_autofree char *claim = snapshot_file (id, CLAIM_SUFFIX);

      g_unlink (tar);
      g_unlink (claim);
    }
}

/**
 * agents_cli_claim_snapshots:
 *
 * The run was saved to @state_file: its snapshots stay as long as that
 * file names them.
 */
void
agents_cli_claim_snapshots (AgentsRunResultStreaming *streaming,
                            const char *state_file)
{
  g_autoptr (AgentsRunState) state =
    agents_run_result_streaming_to_state (streaming);

  agents_cli_claim_payload_snapshots (agents_run_state_get_sandbox (state),
                                      state_file);
}

/**
 * agents_cli_claim_payload_snapshots:
 *
 * The snapshots a @sandbox payload names stay as long as @state_file
 * names them.
 */
void
agents_cli_claim_payload_snapshots (JsonObject *sandbox, const char *state_file)
{
  g_autoptr (GHashTable) ids = payload_snapshots (sandbox);
  g_autofree char *absolute = g_canonicalize_filename (state_file, NULL);
  GHashTableIter iter;
  const char *id;

  g_hash_table_iter_init (&iter, ids);
  while (g_hash_table_iter_next (&iter, (gpointer *) &id, NULL))
    {
      g_autofree char *claim = snapshot_file (id, CLAIM_SUFFIX);

      g_file_set_contents_full (claim, absolute, -1,
                                G_FILE_SET_CONTENTS_CONSISTENT, 0600, NULL);
    }
}

/* ---- agents gc ------------------------------------------------------------
 */

/* Whether the state file the claim names still names snapshot @id. */
static gboolean
claim_holds (const char *claim_path, const char *id)
{
  g_autofree char *state_file = NULL;
  g_autofree char *text = NULL;
  g_autofree char *quoted = g_strdup_printf ("\"%s\"", id);

  /* Regular files only: a FIFO named here would block gc forever. */
  if (!agents_file_read_regular (claim_path, PATH_MAX, &state_file, NULL, NULL))
    return FALSE;
  g_strstrip (state_file);
  if (!agents_file_read_regular (state_file, AGENTS_JSON_MAX_SIZE, &text, NULL,
                                 NULL))
    return FALSE;
  return strstr (text, quoted) != NULL;
}

/* Removes the snapshots no state file needs; says so on standard
 * output, or adds their paths to @json (under --json). */
static guint
gc_snapshots (gboolean dry_run, JsonArray *json)
{
  g_autofree char *dir_path = default_snapshot_dir ();
  g_autoptr (GDir) dir = g_dir_open (dir_path, 0, NULL);
  const char *name;
  guint count = 0;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *id = NULL;
      g_autofree char *claim = NULL;
      g_autofree char *tar = NULL;

      if (!g_str_has_suffix (name, CLAIM_SUFFIX))
        continue;
      id = g_strndup (name, strlen (name) - strlen (CLAIM_SUFFIX));
      claim = g_build_filename (dir_path, name, NULL);
      if (!is_plain_name (id) || claim_holds (claim, id))
        continue;
      tar = snapshot_file (id, ".tar");
      if (g_file_test (tar, G_FILE_TEST_EXISTS))
        {
          if (json != NULL)
            json_array_add_string_element (json, tar);
          else
            g_print (dry_run ? _ ("Would remove the snapshot %s\n")
                             : _ ("Removing the snapshot %s\n"),
                     tar);
          count++;
        }
      if (!dry_run)
        {
          g_unlink (tar);
          g_unlink (claim);
        }
    }
  return count;
}

static void
on_reaped (GObject *source, GAsyncResult *result, gpointer user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

/* The unix_local workspaces whose owner process is gone. */
static gssize
gc_workspaces (gboolean dry_run, gboolean all, GError **error)
{
  g_autoptr (AgentsSandboxClient) client =
    agents_registry_new_sandbox_client ("unix_local", error);
  g_autoptr (GAsyncResult) result = NULL;
  g_auto (GVariantDict) dict = G_VARIANT_DICT_INIT (NULL);
  g_autoptr (GVariant) options = NULL;

  if (client == NULL)
    return -1;
  g_variant_dict_insert (&dict, "dry_run", "b", dry_run);
  options = g_variant_ref_sink (g_variant_dict_end (&dict));
  agents_sandbox_client_reap_async (AGENTS_SANDBOX_CLIENT (client), options,
                                    all, NULL, on_reaped, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  return agents_sandbox_client_reap_finish (AGENTS_SANDBOX_CLIENT (client),
                                            result, error);
}

/* A usage error or a failure: on standard error, and as an error event
 * under --json. */
static int
gc_error (gboolean json, const GError *error, int status)
{
  g_printerr ("agents gc: %s\n", error->message);
  if (json)
    agents_cli_print_error_json (error);
  return status;
}

static void
print_gc_json (gboolean dry_run,
               gboolean all,
               gssize workspaces,
               JsonArray *snapshots)
{
  g_autoptr (JsonObject) object = json_object_new ();

  json_object_set_string_member (object, "type", "gc");
  json_object_set_boolean_member (object, "dry_run", dry_run);
  json_object_set_boolean_member (object, "all", all);
  json_object_set_int_member (object, "workspaces", workspaces);
  json_object_set_array_member (object, "snapshots",
                                json_array_ref (snapshots));
  agents_cli_print_json_line (object);
}

/**
 * agents_cli_gc:
 *
 * `agents gc [--dry-run] [--all] [--json]`; under --json the result is
 * `{"type": "gc", "dry_run": BOOL, "all": BOOL, "workspaces": N,
 * "snapshots": [PATH…]}`, an error `{"type": "error", …}`.
 */
int
agents_cli_gc (int argc, char **argv)
{
  gboolean dry_run = FALSE;
  gboolean all = FALSE;
  gboolean json = FALSE;
  gboolean wants_json = FALSE;
  const GOptionEntry entries[] = {
    { "dry-run", 'n', 0, G_OPTION_ARG_NONE, &dry_run,
      N_ ("Say what would be removed, remove nothing"), NULL },
    { "all", 0, 0, G_OPTION_ARG_NONE, &all,
      N_ ("Remove the workspaces of running programs too"), NULL },
    { "json", 'j', 0, G_OPTION_ARG_NONE, &json,
      N_ ("Print the result (or the error) as one JSON object"), NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) context = g_option_context_new (NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonArray) removed = NULL;
  gssize workspaces;
  guint snapshots;

  g_set_prgname ("agents gc");
  g_option_context_set_summary (
    context, _ ("Removes what runs of programs that are gone left behind: "
                "unix_local\nworkspaces whose owner process ended (a killed "
                "run's), and snapshots\nwhose state file was deleted or "
                "names them no more."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  /* A failed parse reverts what it set, --json included. */
  for (int i = 1; i < argc && !g_str_equal (argv[i], "--"); i++)
    if (g_str_equal (argv[i], "--json") || g_str_equal (argv[i], "-j"))
      wants_json = TRUE;
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return gc_error (wants_json, error, AGENTS_CLI_EXIT_USAGE);
  if (argc != 1)
    {
      g_set_error_literal (&error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                           _ ("Usage: agents gc [--dry-run] [--all] [--json]"));
      return gc_error (json, error, AGENTS_CLI_EXIT_USAGE);
    }

  workspaces = gc_workspaces (dry_run, all, &error);
  if (workspaces < 0)
    return gc_error (json, error, AGENTS_CLI_EXIT_FAILED);
  if (json)
    {
      removed = json_array_new ();
      gc_snapshots (dry_run, removed);
      print_gc_json (dry_run, all, workspaces, removed);
      return AGENTS_CLI_EXIT_OK;
    }
  snapshots = gc_snapshots (dry_run, NULL);
  g_print (dry_run
             ? _ ("Would remove %zd leftover workspaces and %u snapshots\n")
             : _ ("Removed %zd leftover workspaces and %u snapshots\n"),
           (ssize_t) workspaces, snapshots);
  return AGENTS_CLI_EXIT_OK;
}
