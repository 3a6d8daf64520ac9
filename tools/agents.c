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
#include <stdlib.h>

static void
print_names (const char *title, AgentsRegistryKind kind)
{
  g_auto (GStrv) names = agents_registry_list (kind);

  g_print ("%s:\n", title);
  for (guint i = 0; names[i] != NULL; i++)
    g_print ("  %s\n", names[i]);
}

static int
cmd_plugins (int argc, char **argv)
{
  g_auto (GStrv) modules = agents_registry_list_plugins ();

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
  g_print ("agents %s\n", AGENTS_VERSION_S);
  return AGENTS_CLI_EXIT_OK;
}

static const struct
{
  const char *name;
  int (*run) (int argc, char **argv);
  const char *summary;
} commands[] = {
  { "run", agents_cli_run,
    N_ ("Run an agent file on a prompt: agents run AGENT.json PROMPT") },
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
};

static int
usage (void)
{
  g_printerr ("%s\n\n", _ ("Usage: agents COMMAND [ARGS…]"));
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    g_printerr ("  %-10s %s\n", commands[i].name, _ (commands[i].summary));
  g_printerr ("\n%s\n", _ ("Run “agents COMMAND --help” for the options of "
                           "a command."));
  return AGENTS_CLI_EXIT_USAGE;
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
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (g_str_equal (argv[1], commands[i].name))
      return commands[i].run (argc - 1, argv + 1);

  g_printerr (_ ("agents: unknown command “%s”\n\n"), argv[1]);
  return usage ();
}
