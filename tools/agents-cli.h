/* agents-cli.h - the commands of the agents program
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <agents.h>

G_BEGIN_DECLS

/* Exit statuses of the program (docs/agent-file.md). A run that stopped
 * for an approval did not finish: scripts must not take it for done. */
#define AGENTS_CLI_EXIT_OK 0
#define AGENTS_CLI_EXIT_FAILED 1
#define AGENTS_CLI_EXIT_USAGE 2
#define AGENTS_CLI_EXIT_NEEDS_APPROVAL 3

int agents_cli_run (int argc, char **argv);
int agents_cli_resume (int argc, char **argv);
int agents_cli_reap (int argc, char **argv);
int agents_cli_gc (int argc, char **argv);
void agents_cli_release_snapshots (AgentsRunResultStreaming *streaming);
void agents_cli_claim_snapshots (AgentsRunResultStreaming *streaming,
                                 const char *state_file);

G_END_DECLS
