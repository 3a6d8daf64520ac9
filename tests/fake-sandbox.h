/* fake-sandbox.h - the reference tests' fake clients, snapshots, capabilities
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <agents.h>

#include "fake-session.h"

G_BEGIN_DECLS

/* ---- FakeGate: asyncio.Event ------------------------------------------ */

#define FAKE_TYPE_GATE (fake_gate_get_type ())
G_DECLARE_FINAL_TYPE (FakeGate, fake_gate, FAKE, GATE, GObject)

FakeGate *fake_gate_new (void);
void fake_gate_open (FakeGate *self); /* Event.set() */
gboolean fake_gate_is_open (FakeGate *self);
/* Completes @task (with TRUE) once the gate is open. */
void fake_gate_wait_task (FakeGate *self, GTask *task);

/* ---- _FakeClient ------------------------------------------------------- */

#define FAKE_TYPE_CLIENT (fake_client_get_type ())
G_DECLARE_FINAL_TYPE (FakeClient, fake_client, FAKE, CLIENT, GObject)

struct _FakeClient
{
  GObject parent_instance;

  FakeSession *inner_session;
  gboolean created;                /* create_kwargs is not None */
  GObject *create_snapshot;        /* create_kwargs["snapshot"] */
  AgentsManifest *create_manifest; /* create_kwargs["manifest"] */
  GVariant *create_options;        /* create_kwargs["options"] */
  AgentsSandboxSessionState *resume_state;
  guint delete_calls;
  const char *delete_error; /* delete fails with this (static) message */
};

FakeClient *fake_client_new (FakeSession *session);

/* ---- _ManifestSessionClient ------------------------------------------- */

#define FAKE_TYPE_MANIFEST_CLIENT (fake_manifest_client_get_type ())
G_DECLARE_FINAL_TYPE (
  FakeManifestClient, fake_manifest_client, FAKE, MANIFEST_CLIENT, GObject)

struct _FakeManifestClient
{
  GObject parent_instance;
  GPtrArray *created_manifests; /* of AgentsManifest (or NULL) */
};

FakeManifestClient *fake_manifest_client_new (void);

/* ---- _MarkerSnapshot (type "marker", member "marker") ------------------ */

#define FAKE_TYPE_MARKER_SNAPSHOT (fake_marker_snapshot_get_type ())
G_DECLARE_FINAL_TYPE (
  FakeMarkerSnapshot, fake_marker_snapshot, FAKE, MARKER_SNAPSHOT, GObject)

AgentsSnapshot *fake_marker_snapshot_new (const char *id, const char *marker);
const char *fake_marker_snapshot_get_marker (FakeMarkerSnapshot *self);

/* Registers "marker" and "restorable" snapshot types (for JSON). */
void fake_sandbox_register_types (void);

/* ---- capabilities ------------------------------------------------------ */

#define FAKE_TYPE_CAPABILITY (fake_capability_get_type ())
G_DECLARE_FINAL_TYPE (
  FakeCapability, fake_capability, FAKE, CAPABILITY, GObject)

typedef enum
{
  FAKE_CAPABILITY_RECORDING,             /* _RecordingCapability */
  FAKE_CAPABILITY_MANIFEST_INSTRUCTIONS, /* _ManifestInstructionsCapability */
  FAKE_CAPABILITY_MANIFEST_MUTATION,     /* _ManifestMutationCapability */
  FAKE_CAPABILITY_MANIFEST_USERS,        /* _ManifestUsersCapability */
  FAKE_CAPABILITY_PROCESS_CONTEXT,       /* _ProcessContextSessionCapability */
  FAKE_CAPABILITY_SESSION_FILES,         /* _SessionFileCapability */
  FAKE_CAPABILITY_AWAITABLE,             /* _AwaitableSessionCapability */
  FAKE_CAPABILITY_MUTABLE,               /* _MutableCapability */
  FAKE_CAPABILITY_NOOP,                  /* Capability(type="noop") */
} FakeCapabilityKind;

/* Properties (all cloned by the default clone): "kind" (int), "type-name",
 * "instruction-text", "tools" (GPtrArray of AgentsTool, shared — tools are
 * immutable), "rel-path", "content" (GBytes), "process-calls" (int),
 * "bound-labels" (GStrv), "release-gate", "first-started",
 * "second-started" (FakeGate, kept by identity). */
struct _FakeCapability
{
  GObject parent_instance;

  FakeCapabilityKind kind;
  char *type_name;
  char *instruction_text;
  GPtrArray *tools;
  char *rel_path;
  GBytes *content;
  int process_calls;
  GStrv bound_labels;
  FakeGate *release_gate;
  FakeGate *first_started;
  FakeGate *second_started;
};

AgentsCapability *fake_recording_capability_new (const char *instruction_text,
                                                 AgentsTool *first_tool,
                                                 ...) G_GNUC_NULL_TERMINATED;
AgentsCapability *fake_capability_new (FakeCapabilityKind kind);
AgentsCapability *fake_awaitable_capability_new (FakeGate *release_gate,
                                                 FakeGate *first_started,
                                                 FakeGate *second_started);

G_END_DECLS
