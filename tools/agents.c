/* agents.c - the agents command-line program
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <agents.h>
#include <glib/gi18n.h>

#include "agents-cli.h"
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>

static void
print_names (const char *title, AgentsRegistryKind kind)
{
  g_auto (GStrv) names = agents_registry_list (kind);

  g_print ("%s:\n", title);
  for (guint i = 0; names[i] != NULL; i++)
    g_print ("  %s\n", names[i]);
}

/* Parses a command that takes no arguments of its own, so that its
 * --help works like every other command's. */
static gboolean
parse_no_arguments (int argc, char **argv, const char *summary, int *status)
{
  g_autoptr (GOptionContext) context = g_option_context_new (NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *prgname = g_strdup_printf ("agents %s", argv[0]);

  g_set_prgname (prgname);
  g_option_context_set_summary (context, summary);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("%s: %s\n", argv[0], error->message);
      *status = AGENTS_CLI_EXIT_USAGE;
      return FALSE;
    }
  if (argc > 1)
    {
      g_printerr (_ ("%s: unexpected argument “%s”\n"), argv[0], argv[1]);
      *status = AGENTS_CLI_EXIT_USAGE;
      return FALSE;
    }
  return TRUE;
}

static int
cmd_plugins (int argc, char **argv)
{
  g_auto (GStrv) modules = NULL;
  int status = AGENTS_CLI_EXIT_OK;

  if (!parse_no_arguments (
        argc, argv, _ ("List the plugins and the names they registered."),
        &status))
    return status;
  modules = agents_registry_list_plugins ();
  g_print ("%s:\n", _ ("Plugin modules"));
  for (guint i = 0; modules[i] != NULL; i++)
    g_print ("  %s\n", modules[i]);
  print_names (_ ("Sandbox backends"), AGENTS_REGISTRY_KIND_SANDBOX_CLIENT);
  print_names (_ ("Capabilities"), AGENTS_REGISTRY_KIND_CAPABILITY);
  print_names (_ ("Manifest entry types"), AGENTS_REGISTRY_KIND_ENTRY_TYPE);
  print_names (_ ("Snapshot types"), AGENTS_REGISTRY_KIND_SNAPSHOT_TYPE);
  return AGENTS_CLI_EXIT_OK;
}

static int
cmd_version (int argc, char **argv)
{
  int status = AGENTS_CLI_EXIT_OK;

  if (!parse_no_arguments (argc, argv, _ ("Print the version."), &status))
    return status;
  g_print ("agents %s\n", AGENTS_VERSION_S);
  return AGENTS_CLI_EXIT_OK;
}

static int cmd_help (int argc, char **argv);

static const struct
{
  const char *name;
  int (*run) (int argc, char **argv);
  const char *summary;
} commands[] = {
  { "run", agents_cli_run,
    N_ ("Run an agent file on a prompt: agents run AGENT.json PROMPT") },
  { "chat", agents_cli_chat,
    N_ ("Talk with an agent in a sandbox kept across turns: agents chat "
        "AGENT.json [--resume FILE]") },
  { "resume", agents_cli_resume,
    N_ ("Continue a saved run: agents resume AGENT.json STATE_FILE "
        "--approve|--reject") },
  { "reap", agents_cli_reap,
    N_ ("Remove sandboxes left by programs that are gone: agents reap "
        "--backend docker") },
  { "gc", agents_cli_gc,
    N_ ("Remove workspaces of killed runs and snapshots no state file "
        "needs: agents gc [--dry-run]") },
  { "plugins", cmd_plugins,
    N_ ("List the plugins and the names they registered") },
  { "version", cmd_version, N_ ("Print the version") },
  { "help", cmd_help,
    N_ ("Show this list, or the options of one command: agents help "
        "COMMAND") },
};

static void
print_usage (FILE *out)
{
  fprintf (out, "%s\n\n", _ ("Usage: agents COMMAND [ARGS…]"));
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-10s %s\n", commands[i].name, _ (commands[i].summary));
  fprintf (out, "\n%s\n",
           _ ("Run “agents COMMAND --help” for the options of "
              "a command."));
}

static int
usage (void)
{
  print_usage (stderr);
  return AGENTS_CLI_EXIT_USAGE;
}

static int
run_command (int argc, char **argv)
{
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (g_str_equal (argv[0], commands[i].name))
      return commands[i].run (argc, argv);

  g_printerr (_ ("agents: unknown command “%s”\n\n"), argv[0]);
  return usage ();
}

/* `agents help` lists the commands; `agents help COMMAND` is
 * `agents COMMAND --help`. */
static int
cmd_help (int argc, char **argv)
{
  char *help_argv[] = { NULL, (char *) "--help", NULL };

  if (argc < 2 || g_str_equal (argv[1], "help") ||
      g_str_equal (argv[1], "--help") || g_str_equal (argv[1], "-h"))
    {
      print_usage (stdout);
      return AGENTS_CLI_EXIT_OK;
    }
  if (argc > 2)
    {
      g_printerr (_ ("agents help: unexpected argument “%s”\n"), argv[2]);
      return AGENTS_CLI_EXIT_USAGE;
    }
  help_argv[0] = argv[1];
  return run_command (2, help_argv);
}

int
main (int argc, char *argv[])
{
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  if (argc < 2)
    return usage ();
  if (g_str_equal (argv[1], "--help") || g_str_equal (argv[1], "-h"))
    return cmd_help (1, argv + 1);
  if (g_str_equal (argv[1], "--version"))
    return cmd_version (1, argv + 1);
  return run_command (argc - 1, argv + 1);
}
