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

/* The options of `run`, `resume` and `chat` (agents-run.c). */
typedef struct
{
  char *backend;
  char *state_file;
  gboolean json;
  int max_turns;
  gboolean approve;
  gboolean reject;
  gboolean reap_all;
  gboolean allow_system_root;
  char *model;               /* --model PROVIDER:NAME */
  char *base_url;            /* --base-url URL */
  char **sandbox_options;    /* KEY=VALUE, as given */
  GVariant *sandbox_variant; /* a{sv} made of them; NULL when none */
} AgentsCliOptions;

static inline void
agents_cli_options_clear (AgentsCliOptions *options)
{
  g_free (options->backend);
  g_free (options->state_file);
  g_free (options->model);
  g_free (options->base_url);
  g_strfreev (options->sandbox_options);
  g_clear_pointer (&options->sandbox_variant, g_variant_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (AgentsCliOptions, agents_cli_options_clear)

void agents_cli_add_run_entries (GOptionContext *context,
                                 AgentsCliOptions *options,
                                 gboolean json);
gboolean agents_cli_parse_sandbox_options (AgentsCliOptions *options,
                                           GError **error);
AgentsRunConfig *agents_cli_build_run_config (const AgentsCliOptions *options,
                                              const char *backend,
                                              GError **error);

void agents_cli_end_progress_line (void);
void agents_cli_print_json_line (JsonObject *object);
void agents_cli_print_error_json (const GError *error);
void agents_cli_print_event_json (GHashTable *tool_names,
                                  AgentsStreamEvent *event);
void agents_cli_print_final_output_json (AgentsAgent *agent, JsonNode *output);
gboolean agents_cli_wants_json (int argc, char **argv);

int agents_cli_run (int argc, char **argv);
int agents_cli_chat (int argc, char **argv);
int agents_cli_resume (int argc, char **argv);
int agents_cli_reap (int argc, char **argv);
int agents_cli_gc (int argc, char **argv);
void agents_cli_release_snapshots (AgentsRunResultStreaming *streaming);
void agents_cli_claim_snapshots (AgentsRunResultStreaming *streaming,
                                 const char *state_file);
void agents_cli_release_payload_snapshots (JsonObject *sandbox);
void agents_cli_claim_payload_snapshots (JsonObject *sandbox,
                                         const char *state_file);

G_END_DECLS
