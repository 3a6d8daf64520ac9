/* agents-sandbox-run-config.c - how a run gets its sandboxes
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-sandbox-run-config.h"
#include "agents-sandbox-runtime-private.h"
#include "agents-snapshot.h"
#include "agents-workspace-scope-private.h"

/**
 * AgentsSandboxRunConfig:
 *
 * The sandbox settings of a run: the reference SDK's `SandboxRunConfig`.
 * Set it as the run config's #AgentsRunConfig:sandbox to run
 * #AgentsSandboxAgent agents:
 *
 * |[<!-- language="C" -->
 * g_autoptr (AgentsSandboxRunConfig) sandbox = agents_sandbox_run_config_new
 * (); g_autoptr (AgentsRunConfig) config = agents_run_config_new ();
 *
 * agents_sandbox_run_config_set_client (sandbox, client);
 * agents_run_config_set_sandbox (config, G_OBJECT (sandbox));
 * ]|
 *
 * Each sandbox agent of the run gets its own session, from the first of:
 * the injected #AgentsSandboxRunConfig:session (shared by all, never
 * stopped, shut down or deleted by the runner); the session saved for
 * that agent in the run state being resumed; the
 * #AgentsSandboxRunConfig:session-state (for one session of the run);
 * a new session that #AgentsSandboxRunConfig:client creates from
 * #AgentsSandboxRunConfig:manifest, else the agent's
 * #AgentsSandboxAgent:default-manifest, else an empty manifest. The
 * runner closes and deletes the sessions it created or resumed when the
 * run is over, once, and saves their states in the run state.
 *
 * One config may serve several runs at once: what a run needs lives in
 * the run's own #AgentsSandboxRuntime.
 */

struct _AgentsSandboxRunConfig
{
  GObject parent_instance;

  AgentsSandboxClient *client;
  GVariant *options;
  AgentsSandboxSession *session;
  AgentsSandboxSessionState *session_state;
  AgentsManifest *manifest;
  GObject *snapshot;
  AgentsConcurrencyLimits *concurrency_limits;
  AgentsArchiveLimits *archive_limits;
  char *cwd;
  char *workspace_cwd;
};

static guint progress_signal;

G_DEFINE_FINAL_TYPE_WITH_CODE (
  AgentsSandboxRunConfig,
  agents_sandbox_run_config,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_RUN_PREPARER,
                         agents_sandbox_runtime_preparer_iface_init))

enum
{
  PROP_0,
  PROP_CLIENT,
  PROP_OPTIONS,
  PROP_SESSION,
  PROP_SESSION_STATE,
  PROP_MANIFEST,
  PROP_SNAPSHOT,
  PROP_CONCURRENCY_LIMITS,
  PROP_ARCHIVE_LIMITS,
  PROP_CWD,
  PROP_WORKSPACE_CWD,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
agents_sandbox_run_config_finalize (GObject *object)
{
  AgentsSandboxRunConfig *self = AGENTS_SANDBOX_RUN_CONFIG (object);

  g_clear_object (&self->client);
  g_clear_pointer (&self->options, g_variant_unref);
  g_clear_object (&self->session);
  g_clear_object (&self->session_state);
  g_clear_object (&self->manifest);
  g_clear_object (&self->snapshot);
  g_clear_pointer (&self->concurrency_limits, agents_concurrency_limits_free);
  g_clear_pointer (&self->archive_limits, agents_archive_limits_free);
  g_free (self->cwd);
  g_free (self->workspace_cwd);

  G_OBJECT_CLASS (agents_sandbox_run_config_parent_class)->finalize (object);
}

static void
agents_sandbox_run_config_get_property (GObject *object,
                                        guint prop_id,
                                        GValue *value,
                                        GParamSpec *pspec)
{
  AgentsSandboxRunConfig *self = AGENTS_SANDBOX_RUN_CONFIG (object);

  switch (prop_id)
    {
    case PROP_CLIENT:
      g_value_set_object (value, self->client);
      break;
    case PROP_OPTIONS:
      g_value_set_variant (value, self->options);
      break;
    case PROP_SESSION:
      g_value_set_object (value, self->session);
      break;
    case PROP_SESSION_STATE:
      g_value_set_object (value, self->session_state);
      break;
    case PROP_MANIFEST:
      g_value_set_object (value, self->manifest);
      break;
    case PROP_SNAPSHOT:
      g_value_set_object (value, self->snapshot);
      break;
    case PROP_CONCURRENCY_LIMITS:
      g_value_set_boxed (value, self->concurrency_limits);
      break;
    case PROP_ARCHIVE_LIMITS:
      g_value_set_boxed (value, self->archive_limits);
      break;
    case PROP_CWD:
      g_value_set_string (value, self->cwd);
      break;
    case PROP_WORKSPACE_CWD:
      g_value_set_string (value, self->workspace_cwd);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_sandbox_run_config_set_property (GObject *object,
                                        guint prop_id,
                                        const GValue *value,
                                        GParamSpec *pspec)
{
  AgentsSandboxRunConfig *self = AGENTS_SANDBOX_RUN_CONFIG (object);

  switch (prop_id)
    {
    case PROP_CLIENT:
      agents_sandbox_run_config_set_client (self, g_value_get_object (value));
      break;
    case PROP_OPTIONS:
      agents_sandbox_run_config_set_options (self, g_value_get_variant (value));
      break;
    case PROP_SESSION:
      agents_sandbox_run_config_set_session (self, g_value_get_object (value));
      break;
    case PROP_SESSION_STATE:
      agents_sandbox_run_config_set_session_state (self,
                                                   g_value_get_object (value));
      break;
    case PROP_MANIFEST:
      agents_sandbox_run_config_set_manifest (self, g_value_get_object (value));
      break;
    case PROP_SNAPSHOT:
      agents_sandbox_run_config_set_snapshot (self, g_value_get_object (value));
      break;
    case PROP_CONCURRENCY_LIMITS:
      agents_sandbox_run_config_set_concurrency_limits (
        self, g_value_get_boxed (value));
      break;
    case PROP_ARCHIVE_LIMITS:
      agents_sandbox_run_config_set_archive_limits (self,
                                                    g_value_get_boxed (value));
      break;
    case PROP_CWD:
      agents_sandbox_run_config_set_cwd (self, g_value_get_string (value));
      break;
    case PROP_WORKSPACE_CWD:
      agents_sandbox_run_config_set_workspace_cwd (self,
                                                   g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

#define PARAM_FLAGS \
  (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY)

static void
agents_sandbox_run_config_class_init (AgentsSandboxRunConfigClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = agents_sandbox_run_config_finalize;
  object_class->get_property = agents_sandbox_run_config_get_property;
  object_class->set_property = agents_sandbox_run_config_set_property;

  /**
   * AgentsSandboxRunConfig:client:
   *
   * The backend that creates, resumes and deletes the run's sessions.
   * Needed unless #AgentsSandboxRunConfig:session is set.
   */
  properties[PROP_CLIENT] = g_param_spec_object (
    "client", NULL, NULL, AGENTS_TYPE_SANDBOX_CLIENT, PARAM_FLAGS);
  /**
   * AgentsSandboxRunConfig:options:
   *
   * Backend options for creating sessions (an `a{sv}` dictionary, e.g.
   * `{"image": <"sandbox">}`). Clients that have no default options
   * (agents_sandbox_client_supports_default_options()) need them.
   */
  properties[PROP_OPTIONS] = g_param_spec_variant (
    "options", NULL, NULL, G_VARIANT_TYPE_VARDICT, NULL, PARAM_FLAGS);
  /**
   * AgentsSandboxRunConfig:session:
   *
   * A live session the caller owns, used by every sandbox agent of the
   * run. The runner starts it if it is not running and materializes the
   * capabilities' manifest changes in it, but never stops, shuts down or
   * deletes it, and saves nothing about it in run states.
   * #AgentsSandboxRunConfig:manifest is ignored.
   */
  properties[PROP_SESSION] = g_param_spec_object (
    "session", NULL, NULL, AGENTS_TYPE_SANDBOX_SESSION, PARAM_FLAGS);
  /**
   * AgentsSandboxRunConfig:session-state:
   *
   * A saved session to resume (through the client) instead of creating
   * one; it serves one session of a run. A run state being resumed
   * takes precedence for the agents it has sessions for.
   */
  properties[PROP_SESSION_STATE] =
    g_param_spec_object ("session-state", NULL, NULL,
                         AGENTS_TYPE_SANDBOX_SESSION_STATE, PARAM_FLAGS);
  /**
   * AgentsSandboxRunConfig:manifest:
   *
   * The manifest new sessions are created from, instead of the agents'
   * default manifests.
   */
  properties[PROP_MANIFEST] = g_param_spec_object (
    "manifest", NULL, NULL, AGENTS_TYPE_MANIFEST, PARAM_FLAGS);
  /**
   * AgentsSandboxRunConfig:snapshot:
   *
   * Where new sessions persist their workspaces: an #AgentsSnapshot or an
   * #AgentsLocalSnapshotSpec. %NULL means a local snapshot spec with its
   * default directory.
   */
  properties[PROP_SNAPSHOT] =
    g_param_spec_object ("snapshot", NULL, NULL, G_TYPE_OBJECT, PARAM_FLAGS);
  /**
   * AgentsSandboxRunConfig:concurrency-limits:
   *
   * How much of a manifest a session materializes at once, given to each
   * session of the run. Checked (every limit at least 1) before any
   * session is created.
   */
  properties[PROP_CONCURRENCY_LIMITS] =
    g_param_spec_boxed ("concurrency-limits", NULL, NULL,
                        AGENTS_TYPE_CONCURRENCY_LIMITS, PARAM_FLAGS);
  /**
   * AgentsSandboxRunConfig:archive-limits:
   *
   * Limits on the archives a session extracts, given to each session of
   * the run, or %NULL (the default) for the sessions' own defaults.
   * Checked before any session is created.
   */
  properties[PROP_ARCHIVE_LIMITS] = g_param_spec_boxed (
    "archive-limits", NULL, NULL, AGENTS_TYPE_ARCHIVE_LIMITS, PARAM_FLAGS);
  /**
   * AgentsSandboxRunConfig:cwd:
   *
   * The host directory relative sources of local manifest entries are
   * read from when the runner materializes entries in a running injected
   * session; %NULL for the working directory. This is a directory of the
   * host, not of the sandbox: the run's working directory in the
   * sandbox is #AgentsSandboxRunConfig:workspace-cwd.
   */
  properties[PROP_CWD] =
    g_param_spec_string ("cwd", NULL, NULL, NULL, PARAM_FLAGS);
  /**
   * AgentsSandboxRunConfig:workspace-cwd:
   *
   * The run's working directory in the sandbox (the reference's
   * `SandboxRunConfig(cwd=...)`): a path relative to the root of the
   * session's workspace, such as `tasks/a`, or %NULL (the default) for
   * the workspace root with no run scope.
   *
   * It must be workspace-relative, use `/` separators and have no `..`
   * segment; agents_sandbox_run_config_validate() refuses it otherwise,
   * before any session is created. Each time a sandbox agent is
   * prepared, the directory is checked in its session, as the agent's
   * run-as user and without a shell: `test -d` then `test -x` on the
   * directory joined to the manifest root (always a POSIX path, e.g.
   * `/workspace/tasks/a`); a failing check fails the preparation with an
   * error naming the path.
   *
   * The execution agent's capability clones are bound to it
   * (agents_capability_bind_cwd()); the agent's own capabilities are not.
   * Relative paths of the `exec_command` (its default `workdir`),
   * `view_image` and `apply_patch` tools then resolve from it, and the
   * `# Filesystem` section of the prompt says so
   * (agents_sandbox_filesystem_instructions_with_cwd()). It changes path
   * resolution only: the run still sees, and may change, the whole
   * workspace.
   */
  properties[PROP_WORKSPACE_CWD] =
    g_param_spec_string ("workspace-cwd", NULL, NULL, NULL, PARAM_FLAGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * AgentsSandboxRunConfig::progress:
   * @self: the sandbox run config
   * @session: the #AgentsSandboxSession the work is done in
   * @operation: `persist`, `hydrate` (bytes) or `apply` (entries)
   * @done: how much is done so far
   * @total: how much there is to do, or -1 when unknown
   *
   * #AgentsSandboxSession::progress of every session a run using this
   * config creates, resumes or is given, emitted on the run's main
   * context, with the same arguments. The detail is @operation. This is how a
   * program shows the progress of the workspace transfers of runs it does not
   * drive session by session.
   */
  progress_signal = g_signal_new (
    "progress", G_TYPE_FROM_CLASS (klass),
    G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED, 0, NULL, NULL, NULL, G_TYPE_NONE, 4,
    AGENTS_TYPE_SANDBOX_SESSION, G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE,
    G_TYPE_INT64, G_TYPE_INT64);
}

static void
agents_sandbox_run_config_init (AgentsSandboxRunConfig *self)
{
  self->concurrency_limits = agents_concurrency_limits_new ();
}

/**
 * agents_sandbox_run_config_new:
 *
 * Creates a sandbox run config with no client, default concurrency
 * limits and no archive limits.
 *
 * Returns: (transfer full): the config
 */
AgentsSandboxRunConfig *
agents_sandbox_run_config_new (void)
{
  return g_object_new (AGENTS_TYPE_SANDBOX_RUN_CONFIG, NULL);
}

#define SETTER_PROLOGUE(self) \
  g_return_if_fail (AGENTS_IS_SANDBOX_RUN_CONFIG (self))

/**
 * agents_sandbox_run_config_get_client:
 * @self: a sandbox run config
 *
 * Gets #AgentsSandboxRunConfig:client.
 *
 * Returns: (transfer none) (nullable): the client
 */
AgentsSandboxClient *
agents_sandbox_run_config_get_client (AgentsSandboxRunConfig *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_RUN_CONFIG (self), NULL);
  return self->client;
}

/**
 * agents_sandbox_run_config_set_client:
 * @self: a sandbox run config
 * @client: (nullable): a client
 *
 * Sets #AgentsSandboxRunConfig:client.
 */
void
agents_sandbox_run_config_set_client (AgentsSandboxRunConfig *self,
                                      AgentsSandboxClient *client)
{
  SETTER_PROLOGUE (self);
  g_return_if_fail (client == NULL || AGENTS_IS_SANDBOX_CLIENT (client));

  if (g_set_object (&self->client, client))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CLIENT]);
}

/**
 * agents_sandbox_run_config_get_options:
 * @self: a sandbox run config
 *
 * Gets #AgentsSandboxRunConfig:options.
 *
 * Returns: (transfer none) (nullable): the options, an `a{sv}` dictionary
 */
GVariant *
agents_sandbox_run_config_get_options (AgentsSandboxRunConfig *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_RUN_CONFIG (self), NULL);
  return self->options;
}

/**
 * agents_sandbox_run_config_set_options:
 * @self: a sandbox run config
 * @options: (nullable): an `a{sv}` dictionary (a floating reference is
 *   sunk)
 *
 * Sets #AgentsSandboxRunConfig:options.
 */
void
agents_sandbox_run_config_set_options (AgentsSandboxRunConfig *self,
                                       GVariant *options)
{
  SETTER_PROLOGUE (self);
  g_return_if_fail (options == NULL ||
                    g_variant_is_of_type (options, G_VARIANT_TYPE_VARDICT));

  if (options != NULL)
    g_variant_ref_sink (options);
  g_clear_pointer (&self->options, g_variant_unref);
  self->options = options;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_OPTIONS]);
}

/**
 * agents_sandbox_run_config_get_session:
 * @self: a sandbox run config
 *
 * Gets #AgentsSandboxRunConfig:session.
 *
 * Returns: (transfer none) (nullable): the injected session
 */
AgentsSandboxSession *
agents_sandbox_run_config_get_session (AgentsSandboxRunConfig *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_RUN_CONFIG (self), NULL);
  return self->session;
}

/**
 * agents_sandbox_run_config_set_session:
 * @self: a sandbox run config
 * @session: (nullable): a live session the caller owns
 *
 * Sets #AgentsSandboxRunConfig:session.
 */
void
agents_sandbox_run_config_set_session (AgentsSandboxRunConfig *self,
                                       AgentsSandboxSession *session)
{
  SETTER_PROLOGUE (self);
  g_return_if_fail (session == NULL || AGENTS_IS_SANDBOX_SESSION (session));

  if (g_set_object (&self->session, session))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION]);
}

/**
 * agents_sandbox_run_config_get_session_state:
 * @self: a sandbox run config
 *
 * Gets #AgentsSandboxRunConfig:session-state.
 *
 * Returns: (transfer none) (nullable): the state to resume
 */
AgentsSandboxSessionState *
agents_sandbox_run_config_get_session_state (AgentsSandboxRunConfig *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_RUN_CONFIG (self), NULL);
  return self->session_state;
}

/**
 * agents_sandbox_run_config_set_session_state:
 * @self: a sandbox run config
 * @state: (nullable): a session state to resume
 *
 * Sets #AgentsSandboxRunConfig:session-state. Runs resume a copy: @state
 * itself is not changed.
 */
void
agents_sandbox_run_config_set_session_state (AgentsSandboxRunConfig *self,
                                             AgentsSandboxSessionState *state)
{
  SETTER_PROLOGUE (self);
  g_return_if_fail (state == NULL || AGENTS_IS_SANDBOX_SESSION_STATE (state));

  if (g_set_object (&self->session_state, state))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION_STATE]);
}

/**
 * agents_sandbox_run_config_get_manifest:
 * @self: a sandbox run config
 *
 * Gets #AgentsSandboxRunConfig:manifest.
 *
 * Returns: (transfer none) (nullable): the manifest
 */
AgentsManifest *
agents_sandbox_run_config_get_manifest (AgentsSandboxRunConfig *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_RUN_CONFIG (self), NULL);
  return self->manifest;
}

/**
 * agents_sandbox_run_config_set_manifest:
 * @self: a sandbox run config
 * @manifest: (nullable): a manifest
 *
 * Sets #AgentsSandboxRunConfig:manifest. Sessions are created from a
 * copy: @manifest itself is not changed.
 */
void
agents_sandbox_run_config_set_manifest (AgentsSandboxRunConfig *self,
                                        AgentsManifest *manifest)
{
  SETTER_PROLOGUE (self);
  g_return_if_fail (manifest == NULL || AGENTS_IS_MANIFEST (manifest));

  if (g_set_object (&self->manifest, manifest))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MANIFEST]);
}

/**
 * agents_sandbox_run_config_get_snapshot:
 * @self: a sandbox run config
 *
 * Gets #AgentsSandboxRunConfig:snapshot.
 *
 * Returns: (transfer none) (nullable): an #AgentsSnapshot or an
 *   #AgentsLocalSnapshotSpec
 */
GObject *
agents_sandbox_run_config_get_snapshot (AgentsSandboxRunConfig *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_RUN_CONFIG (self), NULL);
  return self->snapshot;
}

/**
 * agents_sandbox_run_config_set_snapshot:
 * @self: a sandbox run config
 * @snapshot: (nullable): an #AgentsSnapshot or an #AgentsLocalSnapshotSpec
 *
 * Sets #AgentsSandboxRunConfig:snapshot.
 */
void
agents_sandbox_run_config_set_snapshot (AgentsSandboxRunConfig *self,
                                        GObject *snapshot)
{
  SETTER_PROLOGUE (self);
  g_return_if_fail (snapshot == NULL || AGENTS_IS_SNAPSHOT (snapshot) ||
                    AGENTS_IS_LOCAL_SNAPSHOT_SPEC (snapshot));

  if (g_set_object (&self->snapshot, snapshot))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SNAPSHOT]);
}

/**
 * agents_sandbox_run_config_get_concurrency_limits:
 * @self: a sandbox run config
 *
 * Gets #AgentsSandboxRunConfig:concurrency-limits.
 *
 * Returns: (transfer none): the limits
 */
const AgentsConcurrencyLimits *
agents_sandbox_run_config_get_concurrency_limits (AgentsSandboxRunConfig *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_RUN_CONFIG (self), NULL);
  return self->concurrency_limits;
}

/**
 * agents_sandbox_run_config_set_concurrency_limits:
 * @self: a sandbox run config
 * @limits: (nullable): the limits (copied), or %NULL for the defaults
 *
 * Sets #AgentsSandboxRunConfig:concurrency-limits. Invalid limits are
 * accepted here and refused when a run needs a session.
 */
void
agents_sandbox_run_config_set_concurrency_limits (
  AgentsSandboxRunConfig *self, const AgentsConcurrencyLimits *limits)
{
  SETTER_PROLOGUE (self);

  g_clear_pointer (&self->concurrency_limits, agents_concurrency_limits_free);
  self->concurrency_limits = limits ? agents_concurrency_limits_copy (limits)
                                    : agents_concurrency_limits_new ();
  g_object_notify_by_pspec (G_OBJECT (self),
                            properties[PROP_CONCURRENCY_LIMITS]);
}

/**
 * agents_sandbox_run_config_get_archive_limits:
 * @self: a sandbox run config
 *
 * Gets #AgentsSandboxRunConfig:archive-limits.
 *
 * Returns: (transfer none) (nullable): the limits
 */
const AgentsArchiveLimits *
agents_sandbox_run_config_get_archive_limits (AgentsSandboxRunConfig *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_RUN_CONFIG (self), NULL);
  return self->archive_limits;
}

/**
 * agents_sandbox_run_config_set_archive_limits:
 * @self: a sandbox run config
 * @limits: (nullable): the limits (copied), or %NULL for none
 *
 * Sets #AgentsSandboxRunConfig:archive-limits. Invalid limits are
 * accepted here and refused when a run needs a session.
 */
void
agents_sandbox_run_config_set_archive_limits (AgentsSandboxRunConfig *self,
                                              const AgentsArchiveLimits *limits)
{
  SETTER_PROLOGUE (self);

  g_clear_pointer (&self->archive_limits, agents_archive_limits_free);
  self->archive_limits = limits ? agents_archive_limits_copy (limits) : NULL;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ARCHIVE_LIMITS]);
}

/**
 * agents_sandbox_run_config_get_cwd:
 * @self: a sandbox run config
 *
 * Gets #AgentsSandboxRunConfig:cwd.
 *
 * Returns: (nullable) (type filename): the directory
 */
const char *
agents_sandbox_run_config_get_cwd (AgentsSandboxRunConfig *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_RUN_CONFIG (self), NULL);
  return self->cwd;
}

/**
 * agents_sandbox_run_config_set_cwd:
 * @self: a sandbox run config
 * @cwd: (nullable) (type filename): a host directory
 *
 * Sets #AgentsSandboxRunConfig:cwd.
 */
void
agents_sandbox_run_config_set_cwd (AgentsSandboxRunConfig *self,
                                   const char *cwd)
{
  SETTER_PROLOGUE (self);

  if (g_strcmp0 (self->cwd, cwd) == 0)
    return;
  g_free (self->cwd);
  self->cwd = g_strdup (cwd);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CWD]);
}

/**
 * agents_sandbox_run_config_get_workspace_cwd:
 * @self: a sandbox run config
 *
 * Gets #AgentsSandboxRunConfig:workspace-cwd, as it was set.
 *
 * Returns: (nullable): the run's working directory, relative to the
 *   workspace root
 */
const char *
agents_sandbox_run_config_get_workspace_cwd (AgentsSandboxRunConfig *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_RUN_CONFIG (self), NULL);
  return self->workspace_cwd;
}

/**
 * agents_sandbox_run_config_set_workspace_cwd:
 * @self: a sandbox run config
 * @workspace_cwd: (nullable): a path relative to the workspace root, or
 *   %NULL for none
 *
 * Sets #AgentsSandboxRunConfig:workspace-cwd. An invalid path is accepted
 * here and refused when a run needs a session.
 */
void
agents_sandbox_run_config_set_workspace_cwd (AgentsSandboxRunConfig *self,
                                             const char *workspace_cwd)
{
  SETTER_PROLOGUE (self);

  if (g_strcmp0 (self->workspace_cwd, workspace_cwd) == 0)
    return;
  g_free (self->workspace_cwd);
  self->workspace_cwd = g_strdup (workspace_cwd);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_WORKSPACE_CWD]);
}

/**
 * agents_sandbox_run_config_validate:
 * @self: a sandbox run config
 * @error: return location for a #GError
 *
 * Checks the config, as a run does before it creates or touches any
 * session: the concurrency limits, then the archive limits, then
 * #AgentsSandboxRunConfig:workspace-cwd. Fails with
 * %AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT and the reference's message,
 * e.g. `concurrency_limits.manifest_entries must be at least 1`,
 * `archive_limits.max_input_bytes must be at least 1` or
 * `sandbox.cwd must not contain parent segments`.
 *
 * Returns: %TRUE if the config can be used
 */
gboolean
agents_sandbox_run_config_validate (AgentsSandboxRunConfig *self,
                                    GError **error)
{
  g_autofree char *cwd = NULL;

  g_return_val_if_fail (AGENTS_IS_SANDBOX_RUN_CONFIG (self), FALSE);

  if (!agents_concurrency_limits_validate (self->concurrency_limits, error))
    return FALSE;
  if (self->archive_limits != NULL &&
      !agents_archive_limits_validate (self->archive_limits, error))
    return FALSE;
  if (self->workspace_cwd == NULL)
    return TRUE;
  cwd = agents_workspace_scope_normalize_cwd (self->workspace_cwd, error);
  return cwd != NULL;
}

static void
forward_progress (AgentsSandboxSession *session,
                  const char *operation,
                  gint64 bytes_done,
                  gint64 bytes_total,
                  gpointer user_data)
{
  g_signal_emit (user_data, progress_signal, g_quark_from_string (operation),
                 session, operation, bytes_done, bytes_total);
}

/* Re-emits the progress of @session as the config's, for as long as both
 * live. */
void
agents_sandbox_run_config_watch_progress (AgentsSandboxRunConfig *self,
                                          AgentsSandboxSession *session)
{
  /* A session shared by several agents is watched once. */
  if (g_signal_handler_find (session, G_SIGNAL_MATCH_FUNC | G_SIGNAL_MATCH_DATA,
                             0, 0, NULL, forward_progress, self) != 0)
    return;
  g_signal_connect_object (session, "progress", G_CALLBACK (forward_progress),
                           self, 0);
}
