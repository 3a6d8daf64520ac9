/* sandbox-demo.c - the main job until the agent runner exists
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Builds a unix-local sandbox from a manifest, runs commands in it (one of
 * them tries to leave the sandbox), persists the workspace to a snapshot,
 * resumes the session from its serialized state as another process would,
 * and shows that the work survived.
 *
 *   sandbox-demo MANIFEST.json [COMMAND]
 */

#include <agents.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>

static GMainLoop *loop;
static GAsyncResult *pending;

static void
on_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  pending = g_object_ref (result);
  g_main_loop_quit (loop);
}

/* Waits for the operation started with on_done as its callback. */
static GAsyncResult *
await (void)
{
  g_main_loop_run (loop);
  return g_steal_pointer (&pending);
}

static void
die (const char *what, GError *error)
{
  g_printerr ("sandbox-demo: %s: %s\n", what, error->message);
  exit (1);
}

static void
run (AgentsSandboxSession *session, const char *command)
{
  const char *argv[] = { command, NULL };
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (AgentsExecResult) result = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  GError *error = NULL;

  g_print ("$ %s\n", command);
  agents_sandbox_session_exec_async (session, argv, 30, TRUE, NULL, NULL,
                                     on_done, NULL);
  res = await ();
  result = agents_sandbox_session_exec_finish (session, res, &error);
  if (result == NULL)
    die (command, error);
  out = agents_exec_result_dup_stdout_text (result);
  err = agents_exec_result_dup_stderr_text (result);
  g_print ("%s%s", out, err);
  g_print ("[exit %d]\n\n", agents_exec_result_get_exit_code (result));
}

static AgentsSandboxSession *
start_session (AgentsSandboxClient *client,
               AgentsManifest *manifest,
               GObject *snapshot)
{
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  GError *error = NULL;

  agents_sandbox_client_create_async (client, manifest, NULL, snapshot, NULL,
                                      on_done, NULL);
  res = await ();
  session = agents_sandbox_client_create_finish (client, res, &error);
  if (session == NULL)
    die ("create", error);
  g_clear_object (&res);

  agents_sandbox_session_start_async (session, NULL, on_done, NULL);
  res = await ();
  if (!agents_sandbox_session_start_finish (session, res, &error))
    die ("start", error);
  return g_steal_pointer (&session);
}

static char *
stop_and_serialize (AgentsSandboxClient *client, AgentsSandboxSession *session)
{
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (AgentsSandboxSessionState) saved = NULL;
  g_autoptr (JsonNode) state = NULL;
  GError *error = NULL;

  agents_sandbox_session_stop_async (session, NULL, on_done, NULL);
  res = await ();
  if (!agents_sandbox_session_stop_finish (session, res, &error))
    die ("stop", error);
  saved = agents_sandbox_session_get_state (session);
  state = agents_sandbox_client_serialize_session_state (client, saved);
  return json_to_string (state, FALSE);
}

static AgentsSandboxSession *
resume_session (AgentsSandboxClient *client, const char *state_json)
{
  g_autoptr (JsonNode) node = json_from_string (state_json, NULL);
  g_autoptr (AgentsSandboxSessionState) state = NULL;
  g_autoptr (GAsyncResult) res = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  GError *error = NULL;

  state =
    agents_sandbox_client_deserialize_session_state (client, node, &error);
  if (state == NULL)
    die ("deserialize", error);
  agents_sandbox_client_resume_async (client, state, NULL, on_done, NULL);
  res = await ();
  session = agents_sandbox_client_resume_finish (client, res, &error);
  if (session == NULL)
    die ("resume", error);
  g_clear_object (&res);

  agents_sandbox_session_start_async (session, NULL, on_done, NULL);
  res = await ();
  if (!agents_sandbox_session_start_finish (session, res, &error))
    die ("start", error);
  return g_steal_pointer (&session);
}

static void
delete_session (AgentsSandboxClient *client, AgentsSandboxSession *session)
{
  g_autoptr (GAsyncResult) res = NULL;
  GError *error = NULL;

  agents_sandbox_session_shutdown_async (session, NULL, on_done, NULL);
  res = await ();
  agents_sandbox_session_shutdown_finish (session, res, NULL);
  g_clear_object (&res);
  agents_sandbox_client_delete_async (client, session, NULL, on_done, NULL);
  res = await ();
  if (!agents_sandbox_client_delete_finish (client, res, &error))
    die ("delete", error);
}

static void
remove_snapshots (const char *dir)
{
  g_autoptr (GDir) handle = g_dir_open (dir, 0, NULL);
  const char *name;

  while (handle != NULL && (name = g_dir_read_name (handle)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_remove (path);
    }
  g_rmdir (dir);
}

int
main (int argc, char *argv[])
{
  g_autoptr (GError) error = NULL;
  g_autofree char *manifest_text = NULL;
  g_autofree char *snapshots = NULL;
  g_autofree char *state_json = NULL;
  g_autoptr (AgentsManifest) manifest = NULL;
  g_autoptr (AgentsSandboxClient) client = NULL;
  g_autoptr (AgentsLocalSnapshotSpec) spec = NULL;
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (AgentsSandboxSession) resumed = NULL;
  const char *command =
    argc > 2 ? argv[2] : "sort -n data/numbers.txt | tee data/sorted.txt";

  if (argc < 2)
    {
      g_printerr ("usage: sandbox-demo MANIFEST.json [COMMAND]\n");
      return 2;
    }
  loop = g_main_loop_new (NULL, FALSE);

  if (!g_file_get_contents (argv[1], &manifest_text, NULL, &error))
    die (argv[1], error);
  manifest = agents_manifest_new_from_data (manifest_text, -1, &error);
  if (manifest == NULL)
    die (argv[1], error);

  client = agents_registry_new_sandbox_client ("unix_local", &error);
  if (client == NULL)
    die ("unix_local", error);

  snapshots = g_dir_make_tmp ("sandbox-demo-snapshots-XXXXXX", &error);
  if (snapshots == NULL)
    die ("snapshots", error);
  spec = agents_local_snapshot_spec_new (snapshots);

  g_print ("== A confined unix-local sandbox from %s\n\n", argv[1]);
  session =
    start_session (AGENTS_SANDBOX_CLIENT (client), manifest, G_OBJECT (spec));
  run (session, "pwd && ls -R");
  run (session, command);
  run (session, "echo \"hello from $DEMO\" > note.txt && cat note.txt");
  g_print ("The sandbox cannot leave its workspace:\n");
  run (session, "cat /etc/shadow; ls ~root; echo escape > ../escape.txt");

  g_print (
    "== Persisting the workspace and resuming from the serialized state\n\n");
  state_json = stop_and_serialize (AGENTS_SANDBOX_CLIENT (client), session);
  g_print ("%s\n\n", state_json);
  delete_session (AGENTS_SANDBOX_CLIENT (client), session);

  resumed = resume_session (AGENTS_SANDBOX_CLIENT (client), state_json);
  run (resumed, "cat note.txt && ls data");
  delete_session (AGENTS_SANDBOX_CLIENT (client), resumed);

  remove_snapshots (snapshots);
  return 0;
}
