/* fake-session.h - the reference tests' fake sessions, as one GObject
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <agents.h>

G_BEGIN_DECLS

/* How the fake runs commands, after the reference's session variants. */
typedef enum
{
  FAKE_EXEC_REFUSE,       /* _FakeSession: exec() must not be called */
  FAKE_EXEC_HOST,         /* _LocalShellExecSession: run argv on the host */
  FAKE_EXEC_EMPTY,        /* _EmptyRemoteRealpathSession: empty success */
  FAKE_EXEC_PROVISIONING, /* _ProvisioningFailureSession */
} FakeExecMode;

#define FAKE_TYPE_SESSION (fake_session_get_type ())
G_DECLARE_FINAL_TYPE (FakeSession, fake_session, FAKE, SESSION, GObject)

struct _FakeSession
{
  GObject parent_instance;

  AgentsSandboxSessionState *state;
  gboolean running;

  guint start_calls;
  guint stop_calls;
  guint shutdown_calls;
  guint close_dependency_calls;
  guint hydrate_calls;
  guint persist_calls;

  /* behaviour */
  GObject
    *start_gate; /* FakeGate: start waits for it (_FakeSession(start_gate=)) */
  GObject *stop_gate; /* FakeGate: stop waits for it (_BlockingStopSession) */
  gboolean
    persist_marker; /* _PersistingStopSession: stop sets marker "persisted" */
  gboolean delta_recorder; /* _LiveSessionDeltaRecorder */
  guint fail_entry_batch_times;
  FakeExecMode exec_mode;
  gboolean fail_stop;     /* _FailingStopSession */
  gboolean guard_paths;   /* _PathGuardingSession */
  gboolean generic_start; /* start chains to the generic start */
  gboolean record_clear;  /* clear_workspace_root_on_resume only records */
  char *helper_path;      /* _ensure_runtime_helper_installed override */
  const char *reject_manifest_application; /* _validate_manifest_application
                                              raises this (static) message */
  GHashTable
    *ls_results; /* path -> GPtrArray of AgentsFileEntry; overrides ls/rm */
  gboolean windows_paths; /* validate_path_access answers a Windows-flavoured
                             path (a session whose path normalizer is
                             another system's) */
  const char *failing_test_flag; /* FAKE_EXEC_EMPTY: `test <flag> …`, run
                                    directly or through sudo, exits 1 */

  /* observations */
  guint apply_manifest_calls;
  GPtrArray
    *applied_entry_batches;    /* of GPtrArray of AgentsEntryTarget (copies) */
  GPtrArray *normalized_paths; /* of char* */
  GPtrArray *exec_commands;    /* of GStrv */
  GPtrArray *read_calls;       /* of char* "user|path" (user "" for none);
                                  the reads still fail */
  GPtrArray *ls_calls;         /* of char* */
  GPtrArray *rm_calls;         /* of char* "path|recursive" */
  gboolean cleared_workspace_root;
  GPtrArray *concurrency_limit_values; /* of AgentsConcurrencyLimits* */
  GPtrArray *archive_limit_values;     /* of AgentsArchiveLimits* or NULL */
};

FakeSession *fake_session_new (AgentsManifest *manifest);

/* A snapshot whose restore gives b"snapshot" (the reference's
 * _RestorableSnapshot, type "restorable"). */
#define FAKE_TYPE_RESTORABLE_SNAPSHOT (fake_restorable_snapshot_get_type ())
G_DECLARE_FINAL_TYPE (FakeRestorableSnapshot,
                      fake_restorable_snapshot,
                      FAKE,
                      RESTORABLE_SNAPSHOT,
                      GObject)

AgentsSnapshot *fake_restorable_snapshot_new (const char *id);

G_END_DECLS
