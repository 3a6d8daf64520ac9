/* model-server-main.c - the loopback model server as a program, for tests
 * of the agents program
 *
 * Usage: model-server DATA_DIR EXCHANGES.json
 *        model-server --record UPSTREAM_BASE_URL OUT_DIR
 * Prints the base URL on its first line, then serves the exchanges in
 * order until its standard input closes; exits 1 if a request differed
 * from what was expected or answers were left unused. With --record it
 * forwards every request to UPSTREAM_BASE_URL instead and writes the
 * answers to OUT_DIR as cassettes to replay (see model-recorder.c).
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <stdio.h>

#include <gio/gio.h>
#include <gio/gunixinputstream.h>

#include "model-server.h"

static gboolean
stdin_closed (GObject *stream, gpointer user_data)
{
  GMainLoop *loop = user_data;
  char buffer[256];
  gssize n = g_pollable_input_stream_read_nonblocking (
    G_POLLABLE_INPUT_STREAM (stream), buffer, sizeof buffer, NULL, NULL);

  if (n == 0)
    {
      g_main_loop_quit (loop);
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

static void
run_until_stdin_closes (void)
{
  g_autoptr (GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr (GInputStream) in = g_unix_input_stream_new (0, FALSE);
  g_autoptr (GSource) source =
    g_pollable_input_stream_create_source (G_POLLABLE_INPUT_STREAM (in), NULL);

  g_source_set_callback (source, G_SOURCE_FUNC (stdin_closed), loop, NULL);
  g_source_attach (source, NULL);
  g_main_loop_run (loop);
}

static int
record (const char *upstream, const char *out_dir)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AgentsTestModelRecorder) recorder =
    agents_test_model_recorder_new (upstream, out_dir, &error);

  if (recorder == NULL)
    {
      g_printerr ("model-server: %s\n", error->message);
      return 1;
    }
  g_print ("%s\n", agents_test_model_recorder_get_base_url (recorder));
  fflush (stdout);
  run_until_stdin_closes ();
  g_printerr ("model-server: recorded %u exchanges in %s\n",
              agents_test_model_recorder_get_n_recorded (recorder), out_dir);
  return 0;
}

int
main (int argc, char **argv)
{
  g_autoptr (AgentsTestModelServer) server = NULL;

  if (argc == 4 && g_str_equal (argv[1], "--record"))
    return record (argv[2], argv[3]);
  if (argc != 3)
    {
      g_printerr ("Usage: model-server DATA_DIR EXCHANGES.json\n"
                  "       model-server --record UPSTREAM_BASE_URL OUT_DIR\n");
      return 2;
    }
  server = agents_test_model_server_new (argv[1]);
  agents_test_model_server_add_file (server, argv[2]);
  g_print ("%s\n", agents_test_model_server_get_base_url (server));
  fflush (stdout);
  run_until_stdin_closes ();

  if (agents_test_model_server_get_problems (server) != NULL)
    return 1;
  if (agents_test_model_server_get_n_pending (server) > 0)
    {
      g_printerr ("model-server: %u answers were not asked for\n",
                  agents_test_model_server_get_n_pending (server));
      return 1;
    }
  return 0;
}
