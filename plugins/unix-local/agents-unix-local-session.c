/* agents-unix-local-session.c - sessions of the unix_local backend
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <inttypes.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "agents-archive-private.h"
#include "agents-fs-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-sandbox-session-private.h"
#include "agents-unix-local-confine.h"
#include "agents-unix-local-fs.h"
#include "agents-unix-local-owner.h"
#include "agents-unix-local-pty.h"
#include "agents-unix-local-session.h"

#define DEFAULT_OUTPUT_LIMIT (64 * 1024 * 1024)
#define READ_CHUNK (64 * 1024)
/* How long output is still read after the command exited. */
#define DRAIN_GRACE_MS 1000

/* ---- session state -------------------------------------------------- */

/**
 * AgentsUnixLocalSessionState:
 *
 * The state of a unix_local session: the generic state plus whether the
 * client created the workspace root (and so removes it on delete).
 */
struct _AgentsUnixLocalSessionState
{
  AgentsSandboxSessionState parent_instance;

  gboolean workspace_root_owned;
  /* The token of the root's owner record (agents-unix-local-owner.h). */
  char *workspace_root_token;
  /* In memory only: this process made the root, or proved it made it;
   * a state read from JSON has to prove it again. */
  gboolean root_proven;
};

G_DEFINE_FINAL_TYPE (AgentsUnixLocalSessionState,
                     agents_unix_local_session_state,
                     AGENTS_TYPE_SANDBOX_SESSION_STATE)

enum
{
  STATE_PROP_0,
  STATE_PROP_WORKSPACE_ROOT_OWNED,
  N_STATE_PROPS
};

static GParamSpec *state_properties[N_STATE_PROPS];

static void
state_get_property (GObject *object,
                    guint prop_id,
                    GValue *value,
                    GParamSpec *pspec)
{
  AgentsUnixLocalSessionState *self = AGENTS_UNIX_LOCAL_SESSION_STATE (object);

  switch (prop_id)
    {
    case STATE_PROP_WORKSPACE_ROOT_OWNED:
      g_value_set_boolean (value, self->workspace_root_owned);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
state_set_property (GObject *object,
                    guint prop_id,
                    const GValue *value,
                    GParamSpec *pspec)
{
  AgentsUnixLocalSessionState *self = AGENTS_UNIX_LOCAL_SESSION_STATE (object);

  switch (prop_id)
    {
    case STATE_PROP_WORKSPACE_ROOT_OWNED:
      agents_unix_local_session_state_set_workspace_root_owned (
        self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
state_serialize_fields (AgentsSandboxSessionState *state, JsonBuilder *builder)
{
  AgentsUnixLocalSessionState *self = AGENTS_UNIX_LOCAL_SESSION_STATE (state);

  json_builder_set_member_name (builder, "workspace_root_owned");
  json_builder_add_boolean_value (builder, self->workspace_root_owned);
  if (self->workspace_root_token != NULL)
    {
      json_builder_set_member_name (builder, "workspace_root_token");
      json_builder_add_string_value (builder, self->workspace_root_token);
    }
}

static gboolean
state_deserialize_fields (AgentsSandboxSessionState *state,
                          JsonObject *object,
                          GError **error)
{
  AgentsUnixLocalSessionState *self = AGENTS_UNIX_LOCAL_SESSION_STATE (state);
  JsonNode *member = json_object_get_member (object, "workspace_root_token");

  if (member != NULL)
    {
      if (!JSON_NODE_HOLDS_VALUE (member) ||
          json_node_get_value_type (member) != G_TYPE_STRING)
        {
          agents_sandbox_error_set (
            error, AGENTS_SANDBOX_ERROR_INVALID_JSON,
            g_variant_new_parsed ("{'member': <'workspace_root_token'>}"),
            _ ("session state member “%s” must be %s"), "workspace_root_token",
            _ ("a string"));
          return FALSE;
        }
      g_free (self->workspace_root_token);
      self->workspace_root_token = g_strdup (json_node_get_string (member));
    }
  member = json_object_get_member (object, "workspace_root_owned");
  if (member == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (member) ||
      json_node_get_value_type (member) != G_TYPE_BOOLEAN)
    {
      agents_sandbox_error_set (
        error, AGENTS_SANDBOX_ERROR_INVALID_JSON,
        g_variant_new_parsed ("{'member': <'workspace_root_owned'>}"),
        _ ("session state member “%s” must be %s"), "workspace_root_owned",
        _ ("a boolean"));
      return FALSE;
    }
  agents_unix_local_session_state_set_workspace_root_owned (
    self, json_node_get_boolean (member));
  return TRUE;
}

static void
state_copy_fields (AgentsSandboxSessionState *state,
                   AgentsSandboxSessionState *dest)
{
  AgentsUnixLocalSessionState *self = AGENTS_UNIX_LOCAL_SESSION_STATE (state);
  AgentsUnixLocalSessionState *copy = AGENTS_UNIX_LOCAL_SESSION_STATE (dest);

  copy->workspace_root_owned = self->workspace_root_owned;
  g_free (copy->workspace_root_token);
  copy->workspace_root_token = g_strdup (self->workspace_root_token);
  copy->root_proven = self->root_proven;
}

static void
state_finalize (GObject *object)
{
  AgentsUnixLocalSessionState *self = AGENTS_UNIX_LOCAL_SESSION_STATE (object);

  g_free (self->workspace_root_token);
  G_OBJECT_CLASS (agents_unix_local_session_state_parent_class)
    ->finalize (object);
}

static void
agents_unix_local_session_state_class_init (
  AgentsUnixLocalSessionStateClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  AgentsSandboxSessionStateClass *state_class =
    AGENTS_SANDBOX_SESSION_STATE_CLASS (klass);

  object_class->get_property = state_get_property;
  object_class->set_property = state_set_property;
  object_class->finalize = state_finalize;

  state_class->type_name = "unix_local";
  state_class->serialize_fields = state_serialize_fields;
  state_class->deserialize_fields = state_deserialize_fields;
  state_class->copy_fields = state_copy_fields;

  state_properties[STATE_PROP_WORKSPACE_ROOT_OWNED] = g_param_spec_boolean (
    "workspace-root-owned", NULL, NULL, FALSE,
    G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_STATE_PROPS,
                                     state_properties);
}

static void
agents_unix_local_session_state_init (AgentsUnixLocalSessionState *self)
{
}

AgentsSandboxSessionState *
agents_unix_local_session_state_new (AgentsManifest *manifest,
                                     AgentsSnapshot *snapshot,
                                     gboolean workspace_root_owned)
{
  return g_object_new (AGENTS_TYPE_UNIX_LOCAL_SESSION_STATE, "manifest",
                       manifest, "snapshot", snapshot, "workspace-root-owned",
                       workspace_root_owned, NULL);
}

gboolean
agents_unix_local_session_state_get_workspace_root_owned (
  AgentsUnixLocalSessionState *self)
{
  g_return_val_if_fail (AGENTS_IS_UNIX_LOCAL_SESSION_STATE (self), FALSE);
  return self->workspace_root_owned;
}

void
agents_unix_local_session_state_set_workspace_root_owned (
  AgentsUnixLocalSessionState *self, gboolean owned)
{
  g_return_if_fail (AGENTS_IS_UNIX_LOCAL_SESSION_STATE (self));

  owned = !!owned;
  if (self->workspace_root_owned == owned)
    return;
  self->workspace_root_owned = owned;
  g_object_notify_by_pspec (G_OBJECT (self),
                            state_properties[STATE_PROP_WORKSPACE_ROOT_OWNED]);
}

const char *
agents_unix_local_session_state_get_workspace_root_token (
  AgentsUnixLocalSessionState *self)
{
  g_return_val_if_fail (AGENTS_IS_UNIX_LOCAL_SESSION_STATE (self), NULL);
  return self->workspace_root_token;
}

void
agents_unix_local_session_state_set_root_proven (
  AgentsUnixLocalSessionState *self, const char *token)
{
  g_return_if_fail (AGENTS_IS_UNIX_LOCAL_SESSION_STATE (self));

  if (token != self->workspace_root_token)
    {
      g_free (self->workspace_root_token);
      self->workspace_root_token = g_strdup (token);
    }
  self->root_proven = TRUE;
}

gboolean
agents_unix_local_session_state_get_root_proven (
  AgentsUnixLocalSessionState *self)
{
  g_return_val_if_fail (AGENTS_IS_UNIX_LOCAL_SESSION_STATE (self), FALSE);
  return self->root_proven;
}

/* ---- session -------------------------------------------------------- */

/**
 * AgentsUnixLocalSession:
 *
 * A session whose workspace is a directory of the host and whose
 * commands run as confined host processes.
 */
struct _AgentsUnixLocalSession
{
  AgentsSandboxSessionBase parent_instance;

  AgentsUnixLocalConfinement confinement;
  gboolean network;
  GError *options_error;
  char *host_tmp_dir;
  GPtrArray *running; /* ExecOp, unowned */
  gsize output_limit;
  AgentsUnixLocalSpawnCache *spawn_cache;
  guint32 sandbox_uid;
  guint32 sandbox_gid;
  AgentsUnixLocalLimits limits;
  /* The library wrote into the workspace since it was last handed over
   * to the sandbox uid (atomic: set from worker threads). */
  gint handover_pending;
  gboolean handed_over; /* hand it back at shutdown */
};

static void session_iface_init (AgentsSandboxSessionInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  AgentsUnixLocalSession,
  agents_unix_local_session,
  AGENTS_TYPE_SANDBOX_SESSION_BASE,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_SANDBOX_SESSION, session_iface_init))

static void unix_local_start_backend (AgentsSandboxSessionBase *base,
                                      GTask *task);
static void unix_local_shutdown_backend (AgentsSandboxSessionBase *base,
                                         GTask *task);
static void unix_local_exec (AgentsSandboxSessionBase *base,
                             const char *const *argv,
                             double timeout,
                             GTask *task);

typedef struct
{
  AgentsUnixLocalConfinement confinement;
  gboolean network;
  guint32 sandbox_uid;
  guint32 sandbox_gid;
  AgentsUnixLocalLimits limits;
} Options;

static gboolean
set_option_error (GError **error, const char *name, const char *expected)
{
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                            g_variant_new_parsed ("{'option': <%s>}", name),
                            _ ("the “%s” option must be %s"), name, expected);
  return FALSE;
}

/* An integer option in [@min, @max]; absent leaves *@value as is. */
static gboolean
read_count_option (GVariant *options,
                   const char *name,
                   guint64 min,
                   guint64 max,
                   guint64 *value,
                   GError **error)
{
  g_autoptr (GVariant) v = g_variant_lookup_value (options, name, NULL);
  g_autofree char *expected = NULL;
  gint64 n;

  if (v == NULL)
    return TRUE;
  if (g_variant_is_of_type (v, G_VARIANT_TYPE_INT64))
    n = g_variant_get_int64 (v);
  else if (g_variant_is_of_type (v, G_VARIANT_TYPE_INT32))
    n = g_variant_get_int32 (v);
  else if (g_variant_is_of_type (v, G_VARIANT_TYPE_UINT32))
    n = g_variant_get_uint32 (v);
  else if (g_variant_is_of_type (v, G_VARIANT_TYPE_UINT64) &&
           g_variant_get_uint64 (v) <= G_MAXINT64)
    n = (gint64) g_variant_get_uint64 (v);
  else
    n = -1;
  if (n >= 0 && (guint64) n >= min && (guint64) n <= max)
    {
      *value = (guint64) n;
      return TRUE;
    }
  expected = g_strdup_printf (_ ("an integer from %" PRIu64 " to %" PRIu64),
                              (uint64_t) min, (uint64_t) max);
  return set_option_error (error, name, expected);
}

static gboolean
parse_id_options (GVariant *options, Options *parsed, GError **error)
{
  guint64 uid = parsed->sandbox_uid;
  guint64 gid = parsed->sandbox_gid;

  /* 0 would be root again; (uid_t) -1 means "unchanged" to the kernel. */
  if (!read_count_option (options, "sandbox_uid", 1, G_MAXUINT32 - 1, &uid,
                          error) ||
      !read_count_option (options, "sandbox_gid", 1, G_MAXUINT32 - 1, &gid,
                          error))
    return FALSE;
  parsed->sandbox_uid = uid;
  parsed->sandbox_gid = gid;
  return TRUE;
}

static gboolean
parse_limit_options (GVariant *options, Options *parsed, GError **error)
{
  /* A limit of 0 is none; below a few processes nothing can start. */
  return read_count_option (options, "pids_limit", 0, G_MAXINT32,
                            &parsed->limits.processes, error) &&
         (parsed->limits.processes == 0 || parsed->limits.processes >= 4 ||
          set_option_error (error, "pids_limit",
                            _ ("0 (none) or at least 4"))) &&
         read_count_option (options, "memory", 0, G_MAXINT64,
                            &parsed->limits.memory, error) &&
         (parsed->limits.memory == 0 || parsed->limits.memory >= (16 << 20) ||
          set_option_error (error, "memory",
                            _ ("0 (none) or at least 16 MiB (16777216)"))) &&
         read_count_option (options, "cpu_seconds", 0, G_MAXINT32,
                            &parsed->limits.cpu_seconds, error);
}

static gboolean
parse_options (GVariant *options, Options *parsed, GError **error)
{
  g_autoptr (GVariant) value = NULL;

  parsed->confinement = AGENTS_UNIX_LOCAL_CONFINEMENT_AUTO;
  parsed->network = FALSE;
  parsed->sandbox_uid = AGENTS_UNIX_LOCAL_DEFAULT_SANDBOX_UID;
  parsed->sandbox_gid = AGENTS_UNIX_LOCAL_DEFAULT_SANDBOX_GID;
  agents_unix_local_limits_init_default (&parsed->limits);
  if (options == NULL)
    return TRUE;
  if (!g_variant_is_of_type (options, G_VARIANT_TYPE_VARDICT))
    {
      agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                                NULL, "%s",
                                _ ("unix_local options must be an a{sv} "
                                   "dictionary"));
      return FALSE;
    }

  value = g_variant_lookup_value (options, "confinement", NULL);
  if (value != NULL &&
      (!g_variant_is_of_type (value, G_VARIANT_TYPE_STRING) ||
       !agents_unix_local_confinement_from_string (
         g_variant_get_string (value, NULL), &parsed->confinement, error)))
    {
      if (error != NULL && *error == NULL)
        agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                                  NULL, "%s",
                                  _ ("the “confinement” option must be a "
                                     "string"));
      return FALSE;
    }
  g_clear_pointer (&value, g_variant_unref);

  value = g_variant_lookup_value (options, "network", NULL);
  if (value != NULL && !g_variant_is_of_type (value, G_VARIANT_TYPE_BOOLEAN))
    {
      agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                                NULL, "%s",
                                _ ("the “network” option must be a boolean"));
      return FALSE;
    }
  parsed->network = value != NULL && g_variant_get_boolean (value);
  return parse_id_options (options, parsed, error) &&
         parse_limit_options (options, parsed, error);
}

gboolean
agents_unix_local_session_options_validate (GVariant *options, GError **error)
{
  Options parsed;

  return parse_options (options, &parsed, error);
}

AgentsUnixLocalSession *
agents_unix_local_session_new_from_state (AgentsSandboxSessionState *state,
                                          GVariant *options)
{
  AgentsUnixLocalSession *self;
  Options parsed;

  g_return_val_if_fail (AGENTS_IS_SANDBOX_SESSION_STATE (state), NULL);

  self = g_object_new (AGENTS_TYPE_UNIX_LOCAL_SESSION, "state", state, NULL);
  /* A bad option fails every operation that would depend on it. */
  parse_options (options, &parsed, &self->options_error);
  self->confinement = parsed.confinement;
  self->network = parsed.network;
  self->sandbox_uid = parsed.sandbox_uid;
  self->sandbox_gid = parsed.sandbox_gid;
  self->limits = parsed.limits;
  return self;
}

static AgentsManifest *
session_manifest (AgentsUnixLocalSession *self)
{
  return agents_sandbox_session_get_manifest (AGENTS_SANDBOX_SESSION (self));
}

static char *
session_root (AgentsUnixLocalSession *self)
{
  return g_canonicalize_filename (
    agents_manifest_get_root (session_manifest (self)), "/");
}

static void
remove_host_tmp_dir (AgentsUnixLocalSession *self)
{
  g_autofree char *dir = g_steal_pointer (&self->host_tmp_dir);

  if (dir != NULL)
    agents_fs_rm_rf (dir, NULL);
}

static void
agents_unix_local_session_finalize (GObject *object)
{
  AgentsUnixLocalSession *self = AGENTS_UNIX_LOCAL_SESSION (object);

  remove_host_tmp_dir (self);
  g_clear_error (&self->options_error);
  g_clear_pointer (&self->running, g_ptr_array_unref);
  g_clear_pointer (&self->spawn_cache, agents_unix_local_spawn_cache_free);

  G_OBJECT_CLASS (agents_unix_local_session_parent_class)->finalize (object);
}

static void
agents_unix_local_session_class_init (AgentsUnixLocalSessionClass *klass)
{
  AgentsSandboxSessionBaseClass *base_class =
    AGENTS_SANDBOX_SESSION_BASE_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = agents_unix_local_session_finalize;
  base_class->start_backend = unix_local_start_backend;
  base_class->shutdown_backend = unix_local_shutdown_backend;
  base_class->exec_raw = unix_local_exec;
}

static void
agents_unix_local_session_init (AgentsUnixLocalSession *self)
{
  self->running = g_ptr_array_new ();
  self->output_limit = DEFAULT_OUTPUT_LIMIT;
  self->spawn_cache = agents_unix_local_spawn_cache_new ();
  /* The workspace is the caller's until a first command needs it. */
  self->handover_pending = TRUE;
  agents_sandbox_session_set_host_binds_supported (
    AGENTS_SANDBOX_SESSION (self), TRUE);
}

void
agents_unix_local_session_set_output_limit (AgentsUnixLocalSession *self,
                                            gsize limit)
{
  g_return_if_fail (AGENTS_IS_UNIX_LOCAL_SESSION (self));
  self->output_limit = limit;
}

guint
agents_unix_local_session_get_n_running (AgentsUnixLocalSession *self)
{
  g_return_val_if_fail (AGENTS_IS_UNIX_LOCAL_SESSION (self), 0);
  return self->running->len;
}

static gboolean
return_options_error (AgentsUnixLocalSession *self, GTask *task)
{
  if (self->options_error == NULL)
    return FALSE;
  g_task_return_error (task, g_error_copy (self->options_error));
  return TRUE;
}

/* The library wrote into the workspace as the caller: what it made must
 * be handed over to the sandbox uid before the next command. */
static void
mark_handover_pending (AgentsUnixLocalSession *self)
{
  g_atomic_int_set (&self->handover_pending, TRUE);
}

/* ---- host paths ----------------------------------------------------- */

/* A path of the workspace (or of a grant) as seen on the host. */
typedef struct
{
  char *abs;        /* normalized absolute path */
  char *base;       /* the root or grant directory holding it */
  char *rel;        /* @abs relative to @base, "." for @base itself */
  char *grant_path; /* the grant's path as configured, NULL for root */
  gboolean read_only;
  gboolean is_root;
} HostTarget;

static void
host_target_clear (HostTarget *target)
{
  g_free (target->abs);
  g_free (target->base);
  g_free (target->rel);
  g_free (target->grant_path);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (HostTarget, host_target_clear)

static gboolean
is_at_or_under (const char *path, const char *dir)
{
  size_t len = strlen (dir);

  if (g_str_equal (dir, "/"))
    return TRUE;
  return strncmp (path, dir, len) == 0 &&
         (path[len] == '\0' || path[len] == '/');
}

static void
set_escape_error (GError **error, const char *path)
{
  agents_sandbox_path_error_for (error, path);
}

/* An absolute path outside the root and every grant as configured may
 * lie in a grant once both are resolved on the host: a grant set up
 * through a symlinked alias holds the paths of its target, as in the
 * reference. The deepest such grant is the base, opened as resolved. */
static gboolean
match_grant_alias (AgentsUnixLocalSession *self,
                   const char *path,
                   HostTarget *target)
{
  GPtrArray *grants =
    agents_manifest_get_extra_path_grants (session_manifest (self));
  g_autofree char *resolved = NULL;
  size_t best_len = 0;

  if (!g_path_is_absolute (path) || grants == NULL || grants->len == 0)
    return FALSE;
  resolved = agents_path_resolve_loose (path);
  for (guint i = 0; i < grants->len; i++)
    {
      AgentsSandboxPathGrant *grant = g_ptr_array_index (grants, i);
      const char *grant_path = agents_sandbox_path_grant_get_path (grant);
      g_autofree char *dir = NULL;

      if (!g_path_is_absolute (grant_path))
        continue;
      dir = agents_path_resolve_loose (grant_path);
      if (g_str_equal (dir, "/") || !is_at_or_under (resolved, dir) ||
          strlen (dir) <= best_len)
        continue;
      best_len = strlen (dir);
      g_free (target->base);
      g_free (target->grant_path);
      target->base = g_steal_pointer (&dir);
      target->grant_path = g_strdup (grant_path);
      target->read_only = agents_sandbox_path_grant_get_read_only (grant);
    }
  if (target->base == NULL)
    return FALSE;
  target->abs = g_steal_pointer (&resolved);
  return TRUE;
}

/* Lexical resolution: @path must stay in the root or a grant; the deepest
 * of those that holds it is its base. */
static gboolean
resolve_target (AgentsUnixLocalSession *self,
                const char *path,
                HostTarget *target,
                GError **error)
{
  AgentsManifest *manifest = session_manifest (self);
  GPtrArray *grants = agents_manifest_get_extra_path_grants (manifest);
  g_autofree char *root = session_root (self);
  g_autoptr (GError) lexical_error = NULL;
  g_autoptr (AgentsWorkspacePathPolicy) policy = NULL;
  size_t best_len = 0;
  const char *rel;

  policy = agents_manifest_new_path_policy (manifest);
  target->abs = agents_workspace_path_policy_normalize_path (
    policy, path, AGENTS_WORKSPACE_PATH_HOST_NAMES, &lexical_error);
  if (target->abs == NULL && match_grant_alias (self, path, target))
    goto have_base;
  if (target->abs == NULL)
    {
      g_propagate_error (error, g_steal_pointer (&lexical_error));
      return FALSE;
    }
  if (is_at_or_under (target->abs, root))
    {
      target->base = g_strdup (root);
      target->is_root = TRUE;
      best_len = strlen (root);
    }
  for (guint i = 0; grants != NULL && i < grants->len; i++)
    {
      AgentsSandboxPathGrant *grant = g_ptr_array_index (grants, i);
      const char *grant_path = agents_sandbox_path_grant_get_path (grant);
      g_autofree char *dir = g_canonicalize_filename (grant_path, "/");

      if (!is_at_or_under (target->abs, dir) ||
          (target->base != NULL && strlen (dir) <= best_len))
        continue;
      best_len = strlen (dir);
      g_free (target->base);
      g_free (target->grant_path);
      target->base = g_steal_pointer (&dir);
      target->grant_path = g_strdup (grant_path);
      target->read_only = agents_sandbox_path_grant_get_read_only (grant);
      target->is_root = FALSE;
    }
  if (target->base == NULL)
    {
      set_escape_error (error, path);
      return FALSE;
    }

have_base:
  rel = target->abs + strlen (target->base);
  while (*rel == '/')
    rel++;
  target->rel = g_strdup (*rel ? rel : ".");
  return TRUE;
}

static gboolean
check_writable (const HostTarget *target, GError **error)
{
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  if (!target->read_only)
    return TRUE;
  g_variant_builder_add (&ctx, "{sv}", "path",
                         g_variant_new_string (target->abs));
  g_variant_builder_add (&ctx, "{sv}", "reason",
                         g_variant_new_string ("read_only_extra_path_grant"));
  g_variant_builder_add (&ctx, "{sv}", "grant_path",
                         g_variant_new_string (target->grant_path));
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE,
                            g_variant_builder_end (&ctx),
                            _ ("failed to write archive for path: %s"),
                            target->abs);
  return FALSE;
}

static void
set_io_error (GError **error,
              int code,
              const HostTarget *target,
              const char *reason)
{
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  g_variant_builder_add (&ctx, "{sv}", "path",
                         g_variant_new_string (target->abs));
  g_variant_builder_add (&ctx, "{sv}", "reason", g_variant_new_string (reason));
  if (code == AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ)
    agents_sandbox_error_set (error, code, g_variant_builder_end (&ctx),
                              _ ("failed to read archive for path: %s"),
                              target->abs);
  else
    agents_sandbox_error_set (error, code, g_variant_builder_end (&ctx),
                              _ ("failed to write archive for path: %s"),
                              target->abs);
}

void
agents_unix_local_session_set_openat2_disabled_for_testing (gboolean disabled)
{
  agents_unix_local_set_openat2_disabled (disabled);
}

/* Opens @rel beneath @dirfd; nothing, not even a symlink, may lead out of
 * it (EXDEV). */
static int
open_beneath (int dirfd, const char *rel, int flags, mode_t mode)
{
  return agents_unix_local_open_beneath (dirfd, rel, flags, mode);
}

static int
open_base (const HostTarget *target)
{
  return open (target->base, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

static gboolean
is_escape_errno (int err)
{
  return agents_unix_local_is_escape_errno (err);
}

/* ---- read ----------------------------------------------------------- */

static GInputStream *
read_file (AgentsUnixLocalSession *self, const char *path, GError **error)
{
  g_auto (HostTarget) target = { 0 };
  struct stat st;
  int base, fd, err;

  if (!resolve_target (self, path, &target, error))
    return NULL;

  base = open_base (&target);
  fd = base < 0
         ? -1
         : open_beneath (base, target.rel, O_RDONLY | O_NOCTTY | O_NONBLOCK, 0);
  err = errno;
  if (base >= 0)
    close (base);
  if (fd < 0 && is_escape_errno (err))
    set_escape_error (error, path);
  else if (fd < 0 && (err == ENOENT || err == ENOTDIR))
    agents_sandbox_error_set (
      error, AGENTS_SANDBOX_ERROR_WORKSPACE_READ_NOT_FOUND,
      g_variant_new_parsed ("{'path': <%s>}", target.abs),
      _ ("workspace file not found: %s"), target.abs);
  else if (fd < 0)
    set_io_error (error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ, &target,
                  g_strerror (err));
  if (fd < 0)
    return NULL;

  if (fstat (fd, &st) < 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      set_io_error (error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ, &target,
                    "not_a_regular_file");
      return NULL;
    }
  /* O_NONBLOCK only kept a fifo from blocking the open. */
  fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) & ~O_NONBLOCK);
  return g_unix_input_stream_new (fd, TRUE);
}

static void
read_thread (GTask *task,
             gpointer source_object,
             gpointer task_data,
             GCancellable *cancellable)
{
  GError *error = NULL;
  GInputStream *stream =
    read_file (AGENTS_UNIX_LOCAL_SESSION (source_object), task_data, &error);

  if (stream == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, stream, g_object_unref);
}

static void
unix_local_read (AgentsSandboxSession *session,
                 const char *path,
                 const char *user,
                 GTask *task)
{
  /* Files are read as the host user; @user cannot be switched to. */
  g_task_set_task_data (task, g_strdup (path), g_free);
  g_task_run_in_thread (task, read_thread);
}

/* ---- write ---------------------------------------------------------- */

/* Opens (creating as needed) the directory @rel beneath @base_fd. */
static int
ensure_dirs_beneath (int base_fd, const char *rel)
{
  g_auto (GStrv) parts = g_strsplit (rel, "/", -1);
  int cur = fcntl (base_fd, F_DUPFD_CLOEXEC, 3);

  for (guint i = 0; cur >= 0 && parts[i] != NULL; i++)
    {
      int next;

      if (*parts[i] == '\0' || g_str_equal (parts[i], "."))
        continue;
      next = open_beneath (cur, parts[i], O_PATH | O_DIRECTORY, 0);
      if (next < 0 && errno == ENOENT)
        {
          if (mkdirat (cur, parts[i], 0777) < 0 && errno != EEXIST)
            next = -1;
          else
            next = open_beneath (cur, parts[i], O_PATH | O_DIRECTORY, 0);
        }
      {
        int err = errno;

        close (cur);
        errno = err;
      }
      cur = next;
    }
  return cur;
}

static int
create_temp_beside (int dirfd, const char *name, char **tmp_name)
{
  for (guint attempt = 0; attempt < 100; attempt++)
    {
      g_autofree char *candidate =
        g_strdup_printf (".%s.%08x.tmp", name, g_random_int ());
      int fd =
        openat (dirfd, candidate,
                O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);

      if (fd >= 0)
        {
          *tmp_name = g_steal_pointer (&candidate);
          return fd;
        }
      if (errno != EEXIST)
        return -1;
    }
  errno = EEXIST;
  return -1;
}

/* Streams @data into a temporary file beside the target, then renames it
 * over the target: readers never see a half-written file, and a symlink
 * at the target is replaced, never followed. */
static gboolean
write_into (int dirfd,
            const char *name,
            GInputStream *data,
            GCancellable *cancellable,
            int *err)
{
  g_autoptr (GOutputStream) out = NULL;
  g_autofree char *tmp_name = NULL;
  struct stat st;
  gboolean ok;
  int fd;

  if (fstatat (dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
      S_ISDIR (st.st_mode))
    {
      *err = EISDIR;
      return FALSE;
    }
  fd = create_temp_beside (dirfd, name, &tmp_name);
  if (fd < 0)
    {
      *err = errno;
      return FALSE;
    }
  if (fstatat (dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
      S_ISREG (st.st_mode))
    fchmod (fd, st.st_mode & 0777); /* never set-id bits */

  out = g_unix_output_stream_new (fd, TRUE);
  ok = g_output_stream_splice (out, data, G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET,
                               cancellable, NULL) >= 0 &&
       renameat (dirfd, tmp_name, dirfd, name) == 0;
  *err = errno ? errno : EIO;
  if (!ok)
    unlinkat (dirfd, tmp_name, 0);
  return ok;
}

static gboolean
write_file (AgentsUnixLocalSession *self,
            const char *path,
            GInputStream *data,
            GCancellable *cancellable,
            GError **error)
{
  g_auto (HostTarget) target = { 0 };
  g_autofree char *parent = NULL;
  g_autofree char *name = NULL;
  int base, dirfd, err = 0;
  gboolean ok = FALSE;

  if (!resolve_target (self, path, &target, error) ||
      !check_writable (&target, error))
    return FALSE;
  if (g_str_equal (target.rel, "."))
    {
      set_io_error (error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE,
                    &target, "is_a_directory");
      return FALSE;
    }
  if (target.is_root)
    g_mkdir_with_parents (target.base, 0755);

  parent = g_path_get_dirname (target.rel);
  name = g_path_get_basename (target.rel);
  base = open_base (&target);
  dirfd = base < 0 ? -1 : ensure_dirs_beneath (base, parent);
  err = errno;
  if (dirfd >= 0)
    ok = write_into (dirfd, name, data, cancellable, &err);
  if (base >= 0)
    close (base);
  if (dirfd >= 0)
    close (dirfd);

  if (ok)
    return TRUE;
  if (dirfd < 0 && is_escape_errno (err))
    set_escape_error (error, path);
  else if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;
  else
    set_io_error (error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE, &target,
                  g_strerror (err));
  return FALSE;
}

typedef struct
{
  char *path;
  GInputStream *data;
} WriteData;

static void
write_data_free (WriteData *wd)
{
  g_free (wd->path);
  g_clear_object (&wd->data);
  g_free (wd);
}

static void
write_thread (GTask *task,
              gpointer source_object,
              gpointer task_data,
              GCancellable *cancellable)
{
  WriteData *wd = task_data;
  GError *error = NULL;
  gboolean ok = write_file (AGENTS_UNIX_LOCAL_SESSION (source_object), wd->path,
                            wd->data, cancellable, &error);

  /* Even a failed write may have made directories. */
  mark_handover_pending (AGENTS_UNIX_LOCAL_SESSION (source_object));
  if (ok)
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
unix_local_write (AgentsSandboxSession *session,
                  const char *path,
                  GInputStream *data,
                  const char *user,
                  GTask *task)
{
  WriteData *wd = g_new0 (WriteData, 1);

  wd->path = g_strdup (path);
  wd->data = g_object_ref (data);
  g_task_set_task_data (task, wd, (GDestroyNotify) write_data_free);
  g_task_run_in_thread (task, write_thread);
}

/* ---- validate_path_access ------------------------------------------- */

/* Resolves the deepest existing ancestor of @target beneath its base:
 * a symlink leading out of it is an escape. Only "missing" lets the
 * check go on with the parent; any other failure proves nothing, so the
 * path is refused. */
static gboolean
check_existing_prefix (const HostTarget *target,
                       const char *path,
                       GError **error)
{
  g_autofree char *rel = g_strdup (target->rel);
  int base = open_base (target);
  int err = errno;

  /* Nothing exists beneath a missing base, so nothing can lead out. */
  if (base < 0 && err == ENOENT)
    return TRUE;
  while (base >= 0)
    {
      int fd = open_beneath (base, rel, O_PATH, 0);
      char *parent;

      err = errno;
      if (fd >= 0)
        {
          close (fd);
          close (base);
          return TRUE;
        }
      if ((err != ENOENT && err != ENOTDIR) || g_str_equal (rel, "."))
        break;
      parent = g_path_get_dirname (rel);
      g_free (rel);
      rel = parent;
    }
  if (base >= 0)
    close (base);
  if (is_escape_errno (err))
    set_escape_error (error, path);
  else
    agents_sandbox_error_set_invalid_path (error, path, "unverifiable_path");
  return FALSE;
}

static void
validate_thread (GTask *task,
                 gpointer source_object,
                 gpointer task_data,
                 GCancellable *cancellable)
{
  AgentsUnixLocalSession *self = AGENTS_UNIX_LOCAL_SESSION (source_object);
  const char *path = task_data;
  gboolean for_write =
    GPOINTER_TO_INT (g_object_get_data (G_OBJECT (task), "for-write"));
  g_auto (HostTarget) target = { 0 };
  GError *error = NULL;

  if (!resolve_target (self, path, &target, &error) ||
      (for_write && !check_writable (&target, &error)) ||
      !check_existing_prefix (&target, path, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  g_task_return_pointer (task, g_steal_pointer (&target.abs), g_free);
}

static void
unix_local_validate_path_access (AgentsSandboxSession *session,
                                 const char *path,
                                 gboolean for_write,
                                 GTask *task)
{
  g_task_set_task_data (task, g_strdup (path), g_free);
  g_object_set_data (G_OBJECT (task), "for-write", GINT_TO_POINTER (for_write));
  g_task_run_in_thread (task, validate_thread);
}

/* ---- ls, mkdir, rm -------------------------------------------------- */

/* Done on the host through directory descriptors rather than by running
 * `ls`, `mkdir` and `rm` on a checked path: a directory swapped for a
 * symlink between the check and the command would redirect them. */

typedef enum
{
  HOST_OP_LS,
  HOST_OP_MKDIR,
  HOST_OP_RM,
} HostOpKind;

typedef struct
{
  HostOpKind kind;
  char *path;
  gboolean flag; /* parents / recursive */
} HostOp;

static void
host_op_free (HostOp *op)
{
  g_free (op->path);
  g_free (op);
}

static gboolean
run_host_op (HostOp *op,
             const HostTarget *target,
             GCancellable *cancellable,
             GListModel **listing,
             GError **error)
{
  switch (op->kind)
    {
    case HOST_OP_LS:
      *listing = agents_unix_local_fs_ls (target->base, target->rel,
                                          target->abs, op->path, error);
      return *listing != NULL;
    case HOST_OP_MKDIR:
      /* The root and grants are the configured directories: made as
       * `mkdir -p` would have made them. */
      if (op->flag)
        g_mkdir_with_parents (target->base, 0755);
      return agents_unix_local_fs_mkdir (target->base, target->rel, target->abs,
                                         op->path, op->flag, error);
    case HOST_OP_RM:
      return agents_unix_local_fs_rm (target->base, target->rel, target->abs,
                                      op->path, op->flag, cancellable, error);
    default:
      g_assert_not_reached ();
    }
}

static void
host_op_thread (GTask *task,
                gpointer source_object,
                gpointer task_data,
                GCancellable *cancellable)
{
  AgentsUnixLocalSession *self = AGENTS_UNIX_LOCAL_SESSION (source_object);
  HostOp *op = task_data;
  g_auto (HostTarget) target = { 0 };
  GListModel *listing = NULL;
  GError *error = NULL;
  gboolean ok = resolve_target (self, op->path, &target, &error) &&
                (op->kind == HOST_OP_LS || check_writable (&target, &error)) &&
                run_host_op (op, &target, cancellable, &listing, &error);

  /* Even a failed `mkdir -p` may have made some directories. */
  if (op->kind == HOST_OP_MKDIR)
    mark_handover_pending (self);
  if (!ok)
    g_task_return_error (task, error);
  else if (op->kind == HOST_OP_LS)
    g_task_return_pointer (task, listing, g_object_unref);
  else
    g_task_return_boolean (task, TRUE);
}

static void
start_host_op (GTask *task, HostOpKind kind, const char *path, gboolean flag)
{
  HostOp *op = g_new0 (HostOp, 1);

  op->kind = kind;
  op->path = g_strdup (path);
  op->flag = flag;
  g_task_set_task_data (task, op, (GDestroyNotify) host_op_free);
  g_task_run_in_thread (task, host_op_thread);
}

static void
unix_local_ls (AgentsSandboxSession *session, const char *path, GTask *task)
{
  start_host_op (task, HOST_OP_LS, path, FALSE);
}

static void
unix_local_mkdir (AgentsSandboxSession *session,
                  const char *path,
                  gboolean parents,
                  GTask *task)
{
  start_host_op (task, HOST_OP_MKDIR, path, parents);
}

static void
unix_local_rm (AgentsSandboxSession *session,
               const char *path,
               gboolean recursive,
               GTask *task)
{
  start_host_op (task, HOST_OP_RM, path, recursive);
}

/* ---- exec ----------------------------------------------------------- */

typedef struct _ExecOp ExecOp;

typedef struct
{
  ExecOp *op;
  GInputStream *stream;
  GByteArray *data;
  guint64 discarded;
  gboolean eof;
} Capture;

struct _ExecOp
{
  gatomicrefcount ref;
  AgentsUnixLocalSession *session;
  GTask *task; /* NULL once completed */
  char **argv;
  AgentsUnixLocalConfinement mechanism;
  const AgentsUnixLocalProbe *probe;
  AgentsUnixLocalPolicy *policy;
  AgentsUnixLocalCgroup *cgroup;
  GSubprocess *proc;
  pid_t pid;
  Capture out;
  Capture err;
  GCancellable *io_cancel;
  GSource *cancel_source;
  GSource *grace_source;
  gboolean exited;
  gboolean cancelled;
  gboolean grace_over;
  gboolean interactive; /* start_process: hand the process over */
  gboolean tty;
};

static ExecOp *
exec_op_ref (ExecOp *op)
{
  g_atomic_ref_count_inc (&op->ref);
  return op;
}

static void
destroy_source (GSource **source)
{
  if (*source == NULL)
    return;
  g_source_destroy (*source);
  g_clear_pointer (source, g_source_unref);
}

static void exec_op_release_cgroup (ExecOp *op);

static void
exec_op_unref (ExecOp *op)
{
  if (!g_atomic_ref_count_dec (&op->ref))
    return;
  destroy_source (&op->cancel_source);
  destroy_source (&op->grace_source);
  g_clear_object (&op->task);
  g_clear_object (&op->session);
  g_strfreev (op->argv);
  exec_op_release_cgroup (op);
  g_clear_pointer (&op->policy, agents_unix_local_policy_free);
  g_clear_object (&op->proc);
  g_clear_pointer (&op->out.data, g_byte_array_unref);
  g_clear_pointer (&op->err.data, g_byte_array_unref);
  g_clear_object (&op->io_cancel);
  g_free (op);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ExecOp, exec_op_unref)

/* Kills the command and everything in its session; with bwrap, killing
 * bwrap tears its pid namespace down. */
static void
exec_op_kill (ExecOp *op)
{
  if (op->pid <= 0)
    return;
  kill (-op->pid, SIGKILL);
  if (!op->exited)
    kill (op->pid, SIGKILL);
}

static void
add_truncation_note (GByteArray *err, const char *stream, guint64 discarded)
{
  g_autofree char *note = NULL;

  if (discarded == 0)
    return;
  note = g_strdup_printf ("\n[%s truncated: %" G_GUINT64_FORMAT
                          " bytes discarded]\n",
                          stream, discarded);
  g_byte_array_append (err, (const guint8 *) note, strlen (note));
}

static AgentsExecResult *
exec_op_result (ExecOp *op)
{
  g_autoptr (GBytes) out = NULL;
  g_autoptr (GBytes) err = NULL;
  int code;

  if (g_subprocess_get_if_signaled (op->proc))
    code = 128 + g_subprocess_get_term_sig (op->proc);
  else
    code = g_subprocess_get_exit_status (op->proc);
  add_truncation_note (op->err.data, "stdout", op->out.discarded);
  add_truncation_note (op->err.data, "stderr", op->err.discarded);
  out = g_byte_array_free_to_bytes (g_steal_pointer (&op->out.data));
  err = g_byte_array_free_to_bytes (g_steal_pointer (&op->err.data));
  return agents_exec_result_new (out, err, code);
}

/* Detaches @op from its session, sources and pipes; returns its task. */
static GTask *
exec_op_detach (ExecOp *op)
{
  g_ptr_array_remove (op->session->running, op);
  g_cancellable_cancel (op->io_cancel);
  destroy_source (&op->cancel_source);
  destroy_source (&op->grace_source);
  return g_steal_pointer (&op->task);
}

static void
exec_op_complete (ExecOp *op)
{
  g_autoptr (GTask) task = NULL;
  GError *error = NULL;

  if (op->task == NULL)
    return;
  if (op->cancelled && !g_cancellable_set_error_if_cancelled (
                         g_task_get_cancellable (op->task), &error))
    error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                 _ ("Operation was cancelled"));

  task = exec_op_detach (op);
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, exec_op_result (op), g_object_unref);
}

static void
exec_op_try_complete (ExecOp *op)
{
  if (!op->exited)
    return;
  if (op->cancelled || op->grace_over || (op->out.eof && op->err.eof))
    exec_op_complete (op);
}

static void capture_read_next (Capture *capture);

static void
capture_read_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Capture *capture = user_data;
  g_autoptr (ExecOp) op = capture->op;
  g_autoptr (GBytes) bytes = NULL;
  gsize size, room;

  bytes =
    g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result, NULL);
  if (op->task == NULL || bytes == NULL || g_bytes_get_size (bytes) == 0)
    {
      capture->eof = TRUE;
      exec_op_try_complete (op);
      return;
    }

  size = g_bytes_get_size (bytes);
  room = op->session->output_limit > capture->data->len
           ? op->session->output_limit - capture->data->len
           : 0;
  g_byte_array_append (capture->data, g_bytes_get_data (bytes, NULL),
                       MIN (size, room));
  capture->discarded += size - MIN (size, room);
  capture_read_next (capture);
}

/* Output beyond the limit is still read, so the command never blocks on
 * a full pipe, but thrown away. */
static void
capture_read_next (Capture *capture)
{
  g_input_stream_read_bytes_async (
    capture->stream, READ_CHUNK, G_PRIORITY_DEFAULT, capture->op->io_cancel,
    capture_read_done, (exec_op_ref (capture->op), capture));
}

static gboolean
exec_grace_over (gpointer user_data)
{
  ExecOp *op = user_data;

  g_clear_pointer (&op->grace_source, g_source_unref);
  op->grace_over = TRUE;
  exec_op_try_complete (op);
  return G_SOURCE_REMOVE;
}

static GSource *
attach_source (GSource *source, GSourceFunc func, ExecOp *op)
{
  g_source_set_callback (source, func, exec_op_ref (op),
                         (GDestroyNotify) exec_op_unref);
  g_source_attach (source, g_task_get_context (op->task));
  return source;
}

static void
cgroup_free_thread (GTask *task,
                    gpointer source_object,
                    gpointer task_data,
                    GCancellable *cancellable)
{
  agents_unix_local_cgroup_free (task_data);
}

/* Kills what is left in the command's cgroup at once; waiting for the
 * processes to be gone (a pid namespace takes a while to tear down) and
 * removing the cgroup happen in a worker, not before the result. */
static void
exec_op_release_cgroup (ExecOp *op)
{
  g_autoptr (GTask) task = NULL;

  if (op->cgroup == NULL)
    return;
  if (op->policy != NULL)
    op->policy->cgroup = NULL;
  if (agents_unix_local_cgroup_kill (op->cgroup))
    {
      g_clear_pointer (&op->cgroup, agents_unix_local_cgroup_free);
      return;
    }
  task = g_task_new (NULL, NULL, NULL, NULL);
  g_task_set_task_data (task, g_steal_pointer (&op->cgroup), NULL);
  g_task_run_in_thread (task, cgroup_free_thread);
}

static void
exec_waited (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (ExecOp) op = user_data;

  g_subprocess_wait_finish (G_SUBPROCESS (source), result, NULL);
  op->exited = TRUE;
  /* Nothing the command started may outlive it. */
  exec_op_kill (op);
  exec_op_release_cgroup (op);
  if (op->task != NULL && !(op->out.eof && op->err.eof) &&
      op->grace_source == NULL)
    op->grace_source = attach_source (g_timeout_source_new (DRAIN_GRACE_MS),
                                      exec_grace_over, op);
  exec_op_try_complete (op);
}

static gboolean
exec_cancelled (GCancellable *cancellable, gpointer user_data)
{
  ExecOp *op = user_data;

  op->cancelled = TRUE;
  exec_op_kill (op);
  exec_op_try_complete (op);
  return G_SOURCE_REMOVE;
}

static void
capture_init (Capture *capture, ExecOp *op, GInputStream *stream)
{
  capture->op = op;
  capture->stream = stream;
  capture->data = g_byte_array_new ();
}

static void
exec_watch (ExecOp *op)
{
  GCancellable *cancellable = g_task_get_cancellable (op->task);
  const char *ident = g_subprocess_get_identifier (op->proc);

  op->pid = ident ? atoi (ident) : 0;
  g_ptr_array_add (op->session->running, op);
  capture_init (&op->out, op, g_subprocess_get_stdout_pipe (op->proc));
  capture_init (&op->err, op, g_subprocess_get_stderr_pipe (op->proc));
  capture_read_next (&op->out);
  capture_read_next (&op->err);
  g_subprocess_wait_async (op->proc, NULL, exec_waited, exec_op_ref (op));

  /* The base cancels @cancellable when the command's timeout expires. */
  if (cancellable != NULL)
    op->cancel_source =
      attach_source (g_cancellable_source_new (cancellable),
                     (GSourceFunc) (void (*) (void)) exec_cancelled, op);
}

static gboolean
ensure_host_tmp_dir (AgentsUnixLocalSession *self, GError **error)
{
  if (self->host_tmp_dir != NULL)
    return TRUE;
  self->host_tmp_dir = g_dir_make_tmp ("agents-unix-local-XXXXXX", error);
  return self->host_tmp_dir != NULL;
}

/* Mounts the library made on the host (s3_mount) are shown at their
 * mount paths; only bubblewrap can put them there. */
static gboolean
add_host_binds (AgentsUnixLocalSession *self,
                AgentsUnixLocalPolicy *policy,
                AgentsUnixLocalConfinement mechanism,
                GError **error)
{
  g_autoptr (GPtrArray) binds =
    agents_sandbox_session_dup_host_binds (AGENTS_SANDBOX_SESSION (self));

  if (binds->len > 0 && mechanism != AGENTS_UNIX_LOCAL_CONFINEMENT_BWRAP)
    {
      agents_sandbox_error_set (
        error, AGENTS_SANDBOX_ERROR_MOUNT_CONFIG, NULL, "%s",
        _ ("mounted remote storage is only visible to commands confined "
           "by bubblewrap"));
      return FALSE;
    }
  g_ptr_array_unref (policy->binds);
  policy->binds = g_steal_pointer (&binds);
  return TRUE;
}

static AgentsUnixLocalPolicy *
build_policy (AgentsUnixLocalSession *self,
              AgentsUnixLocalConfinement mechanism,
              GError **error)
{
  AgentsManifest *manifest = session_manifest (self);
  g_autoptr (GPtrArray) grants = NULL;
  g_autoptr (AgentsUnixLocalPolicy) policy = NULL;
  g_auto (GStrv) names = agents_manifest_get_env_names (manifest);
  g_autofree char *root = session_root (self);

  grants = agents_unix_local_extra_path_grant_roots (manifest, error);
  if (grants == NULL)
    return NULL;
  g_mkdir_with_parents (root, 0755);
  policy = agents_unix_local_policy_new (root, grants, self->network);
  policy->sandbox_uid = self->sandbox_uid;
  policy->sandbox_gid = self->sandbox_gid;
  policy->limits = self->limits;
  if (g_str_equal (policy->workspace_root, "/") &&
      mechanism != AGENTS_UNIX_LOCAL_CONFINEMENT_NONE)
    {
      agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                                NULL, "%s",
                                _ ("a confined workspace root must not "
                                   "resolve to filesystem root"));
      return NULL;
    }
  if (!add_host_binds (self, policy, mechanism, error))
    return NULL;
  /* A typed value that needs resolving has no text here: left unset. */
  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    if (agents_manifest_get_env (manifest, names[i]) != NULL)
      g_hash_table_insert (
        policy->env, g_strdup (names[i]),
        g_strdup (agents_manifest_get_env (manifest, names[i])));
  if (mechanism != AGENTS_UNIX_LOCAL_CONFINEMENT_BWRAP)
    {
      if (!ensure_host_tmp_dir (self, error))
        return NULL;
      policy->host_tmp_dir = g_strdup (self->host_tmp_dir);
    }
  return g_steal_pointer (&policy);
}

/* The command line to spawn: the command itself, or under sandbox-exec
 * the command wrapped by it. */
static char **
exec_argv (ExecOp *op, GError **error)
{
  AgentsUnixLocalPolicy *policy = op->policy;

  if (op->mechanism != AGENTS_UNIX_LOCAL_CONFINEMENT_SANDBOX_EXEC)
    return g_strdupv (op->argv);
  return agents_unix_local_confined_exec_command (
    op->probe->platform, NULL, NULL, (const char *const *) op->argv,
    policy->workspace_root, policy->grants, "/usr/local/bin:/usr/bin:/bin",
    policy->network, error);
}

/* The spawn cache holds for the session's own mechanisms only. */
static AgentsUnixLocalSpawnCache *
exec_spawn_cache (ExecOp *op)
{
  return op->mechanism != AGENTS_UNIX_LOCAL_CONFINEMENT_SANDBOX_EXEC
           ? op->session->spawn_cache
           : NULL;
}

static GSubprocess *
exec_spawn (ExecOp *op, GError **error)
{
  g_auto (GStrv) argv = exec_argv (op, error);

  if (argv == NULL)
    return NULL;
  return agents_unix_local_confine_spawn_cached (
    op->probe, op->mechanism, op->policy, exec_spawn_cache (op),
    (const char *const *) argv, error);
}

static void
exec_fail (ExecOp *op, GError *error)
{
  g_task_return_error (op->task, error);
  g_clear_object (&op->task);
}

/* A cgroup of its own holds the command to its limits, whatever it
 * forks, and lets everything it left be killed; where none can be made,
 * the rlimits alone apply. */
static void
exec_make_cgroup (ExecOp *op)
{
  const AgentsUnixLocalLimits *limits = &op->policy->limits;
  g_autoptr (GError) error = NULL;

  if (op->mechanism == AGENTS_UNIX_LOCAL_CONFINEMENT_SANDBOX_EXEC ||
      (limits->processes == 0 && limits->memory == 0))
    return;
  op->cgroup = agents_unix_local_cgroup_new (limits, &error);
  if (op->cgroup == NULL)
    g_debug ("no cgroup for a unix_local command: %s", error->message);
  op->policy->cgroup = op->cgroup;
}

/* start_process: the command, spawned as any other (on a new PTY when
 * asked) but without GSubprocess, is handed to an AgentsUnixLocalProcess
 * with its cgroup. */
static void
exec_spawn_process (ExecOp *op)
{
  AgentsUnixLocalChild child;
  g_auto (GStrv) argv = NULL;
  int master = -1, slave = -1;
  GError *error = NULL;
  gboolean spawned;

  if ((argv = exec_argv (op, &error)) == NULL)
    {
      exec_fail (op, error);
      return;
    }
  if (op->tty && !agents_unix_local_pty_open (&master, &slave, &error))
    {
      exec_fail (op, error);
      return;
    }
  op->policy->tty_fd = slave;
  spawned = agents_unix_local_confine_spawn_child (
    op->probe, op->mechanism, op->policy, exec_spawn_cache (op),
    (const char *const *) argv, &child, &error);
  op->policy->tty_fd = -1;
  op->policy->cgroup = NULL;
  if (slave >= 0)
    close (slave);
  if (!spawned)
    {
      if (master >= 0)
        close (master);
      exec_fail (op, error);
      return;
    }
  g_task_return_pointer (op->task,
                         agents_unix_local_process_new (
                           &child, master, g_steal_pointer (&op->cgroup)),
                         g_object_unref);
  g_clear_object (&op->task);
}

static void
exec_spawn_now (ExecOp *op)
{
  GError *error = NULL;

  if (g_task_return_error_if_cancelled (op->task))
    {
      g_clear_object (&op->task);
      return;
    }
  exec_make_cgroup (op);
  if (op->interactive)
    {
      exec_spawn_process (op);
      return;
    }
  op->proc = exec_spawn (op, &error);
  if (op->proc == NULL)
    {
      exec_fail (op, error);
      return;
    }
  op->io_cancel = g_cancellable_new ();
  exec_watch (op);
}

/* Whether the command runs as the sandbox uid, which must then own what
 * it writes to. */
static gboolean
exec_drops_privileges (ExecOp *op)
{
  return op->policy->drop_privileges &&
         (op->mechanism == AGENTS_UNIX_LOCAL_CONFINEMENT_BWRAP ||
          op->mechanism == AGENTS_UNIX_LOCAL_CONFINEMENT_LANDLOCK);
}

static void
hand_over_thread (GTask *task,
                  gpointer source_object,
                  gpointer task_data,
                  GCancellable *cancellable)
{
  ExecOp *op = task_data;
  g_auto (GStrv) paths = agents_unix_local_policy_writable_paths (op->policy);
  GError *error = NULL;

  /* First, so that the root is still recognized as this library's if
   * the process dies before handing it back. */
  agents_unix_local_owner_note_sandbox_uid (op->policy->workspace_root,
                                            op->policy->sandbox_uid);
  if (agents_unix_local_hand_over ((const char *const *) paths,
                                   op->policy->sandbox_uid,
                                   op->policy->sandbox_gid, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
exec_handed_over (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (ExecOp) op = user_data;
  GError *error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      g_atomic_int_set (&op->session->handover_pending, TRUE);
      exec_fail (op, error);
      return;
    }
  exec_spawn_now (op);
}

static void
exec_start (ExecOp *op, const AgentsUnixLocalProbe *probe)
{
  AgentsUnixLocalSession *self = op->session;
  g_autoptr (GTask) handover = NULL;
  GError *error = NULL;

  if (g_task_return_error_if_cancelled (op->task))
    {
      g_clear_object (&op->task);
      return;
    }
  op->probe = probe;
  op->policy = build_policy (self, op->mechanism, &error);
  if (op->policy == NULL)
    {
      exec_fail (op, error);
      return;
    }
  if (!exec_drops_privileges (op) ||
      !g_atomic_int_compare_and_exchange (&self->handover_pending, TRUE, FALSE))
    {
      exec_spawn_now (op);
      return;
    }
  /* What the library wrote since is handed over first, in a worker. */
  self->handed_over = TRUE;
  handover = g_task_new (NULL, g_task_get_cancellable (op->task),
                         exec_handed_over, exec_op_ref (op));
  g_task_set_task_data (handover, exec_op_ref (op),
                        (GDestroyNotify) exec_op_unref);
  g_task_run_in_thread (handover, hand_over_thread);
}

static void
exec_with_probe (ExecOp *op, const AgentsUnixLocalProbe *probe, GError *error)
{
  if (probe == NULL ||
      !agents_unix_local_confine_select (probe, op->session->confinement,
                                         (const char *const *) op->argv,
                                         &op->mechanism, &error))
    {
      g_task_return_error (op->task, error);
      g_clear_object (&op->task);
      return;
    }
  exec_start (op, probe);
}

static void
exec_probed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (ExecOp) op = user_data;
  const AgentsUnixLocalProbe *probe;
  GError *error = NULL;

  probe = agents_unix_local_confine_probe_finish (result, &error);
  exec_with_probe (op, probe, error);
}

static ExecOp *
exec_op_new (AgentsUnixLocalSession *self, const char *const *argv, GTask *task)
{
  ExecOp *op = g_new0 (ExecOp, 1);

  g_atomic_ref_count_init (&op->ref);
  op->session = g_object_ref (self);
  op->task = g_object_ref (task);
  op->argv = g_strdupv ((char **) argv);
  op->mechanism = self->confinement;
  return op;
}

static void
exec_op_run (ExecOp *op)
{
  const AgentsUnixLocalProbe *probe;

  /* The probe runs once per process, in a worker thread; the spawn
   * happens here, on the owner thread, which the command dies with. */
  probe = agents_unix_local_confine_probe_peek ();
  if (probe == NULL)
    {
      agents_unix_local_confine_probe_async (g_task_get_cancellable (op->task),
                                             exec_probed, op);
      return;
    }
  exec_with_probe (op, probe, NULL);
  exec_op_unref (op);
}

static void
unix_local_exec (AgentsSandboxSessionBase *base,
                 const char *const *argv,
                 double timeout,
                 GTask *task)
{
  AgentsUnixLocalSession *self = AGENTS_UNIX_LOCAL_SESSION (base);

  if (return_options_error (self, task))
    return;
  /* The base class times the command (AgentsSandboxSessionBase). */
  exec_op_run (exec_op_new (self, argv, task));
}

static void
unix_local_start_process (AgentsSandboxSession *session,
                          const char *const *argv,
                          gboolean tty,
                          GTask *task)
{
  AgentsUnixLocalSession *self = AGENTS_UNIX_LOCAL_SESSION (session);
  ExecOp *op;

  if (return_options_error (self, task))
    return;
  op = exec_op_new (self, argv, task);
  op->interactive = TRUE;
  op->tty = tty;
  exec_op_run (op);
}

void
agents_unix_local_session_cleanup (AgentsUnixLocalSession *self)
{
  g_return_if_fail (AGENTS_IS_UNIX_LOCAL_SESSION (self));

  for (guint i = 0; i < self->running->len; i++)
    exec_op_kill (g_ptr_array_index (self->running, i));
  remove_host_tmp_dir (self);
  agents_unix_local_spawn_cache_free (self->spawn_cache);
  self->spawn_cache = agents_unix_local_spawn_cache_new ();
}

/* ---- lifecycle ------------------------------------------------------ */

static void
start_thread (GTask *task,
              gpointer source_object,
              gpointer task_data,
              GCancellable *cancellable)
{
  AgentsUnixLocalSession *self = AGENTS_UNIX_LOCAL_SESSION (source_object);
  g_autofree char *root = session_root (self);
  const char *const argv[] = { "true", NULL };
  AgentsUnixLocalConfinement selected;
  GError *error = NULL;
  int saved_errno;

  if (g_mkdir_with_parents (root, 0755) < 0)
    {
      saved_errno = errno;
      agents_sandbox_error_set (&error, AGENTS_SANDBOX_ERROR_WORKSPACE_START,
                                g_variant_new_parsed ("{'path': <%s>}", root),
                                _ ("cannot create the workspace root %s: %s"),
                                root, g_strerror (saved_errno));
      g_task_return_error (task, error);
      return;
    }
  if (self->confinement != AGENTS_UNIX_LOCAL_CONFINEMENT_NONE &&
      !agents_unix_local_confine_select (agents_unix_local_confine_probe (),
                                         self->confinement, argv, &selected,
                                         &error))
    {
      g_task_return_error (task, error);
      return;
    }
  g_task_return_boolean (task, TRUE);
}

/* The base prepares the workspace after it. */
static void
unix_local_start_backend (AgentsSandboxSessionBase *base, GTask *task)
{
  AgentsUnixLocalSession *self = AGENTS_UNIX_LOCAL_SESSION (base);
  AgentsManifest *manifest = session_manifest (self);
  GPtrArray *users = agents_manifest_get_users (manifest);
  GPtrArray *groups = agents_manifest_get_groups (manifest);

  if ((users != NULL && users->len > 0) || (groups != NULL && groups->len > 0))
    {
      g_task_return_error (
        task, agents_sandbox_error_new (
                AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, NULL, "%s",
                _ ("UnixLocalSandboxSession does not support manifest users "
                   "or groups")));
      return;
    }
  if (return_options_error (self, task))
    return;
  g_task_run_in_thread (task, start_thread);
}

/* The workspace and the writable grants, given back to the caller when
 * commands no longer run. */
static void
hand_back_thread (GTask *task,
                  gpointer source_object,
                  gpointer task_data,
                  GCancellable *cancellable)
{
  AgentsUnixLocalSession *self = AGENTS_UNIX_LOCAL_SESSION (source_object);
  g_autofree char *root = session_root (self);
  g_autoptr (GPtrArray) grants = NULL;
  g_autoptr (AgentsUnixLocalPolicy) policy = NULL;
  g_auto (GStrv) paths = NULL;
  GError *error = NULL;

  grants =
    agents_unix_local_extra_path_grant_roots (session_manifest (self), &error);
  if (grants != NULL)
    {
      policy = agents_unix_local_policy_new (root, grants, FALSE);
      paths = agents_unix_local_policy_writable_paths (policy);
    }
  if (paths == NULL ||
      !agents_unix_local_hand_back ((const char *const *) paths,
                                    self->sandbox_uid, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
handed_back (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;

  if (g_task_propagate_boolean (G_TASK (result), &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
unix_local_shutdown_backend (AgentsSandboxSessionBase *base, GTask *task)
{
  AgentsUnixLocalSession *self = AGENTS_UNIX_LOCAL_SESSION (base);
  g_autoptr (GTask) back = NULL;

  agents_unix_local_session_cleanup (self);
  if (!self->handed_over)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  self->handed_over = FALSE;
  g_atomic_int_set (&self->handover_pending, TRUE);
  back = g_task_new (self, NULL, handed_back, g_object_ref (task));
  g_task_run_in_thread (back, hand_back_thread);
}

static void
unix_local_running (AgentsSandboxSession *session, GTask *task)
{
  AgentsUnixLocalSession *self = AGENTS_UNIX_LOCAL_SESSION (session);
  g_autofree char *root = session_root (self);

  g_task_return_boolean (task, agents_sandbox_session_base_is_started (
                                 AGENTS_SANDBOX_SESSION_BASE (self)) &&
                                 g_file_test (root, G_FILE_TEST_IS_DIR));
}

/* ---- persist and hydrate -------------------------------------------- */

/* Mounts (their logical paths and mount paths) are never archived. */
static char **
persist_excludes (AgentsUnixLocalSession *self, const char *root)
{
  g_autoptr (GPtrArray) skip =
    agents_sandbox_session_mount_skip_paths (session_manifest (self));
  GPtrArray *exclude = g_ptr_array_new ();

  for (guint i = 0; i < skip->len; i++)
    {
      const char *path = g_ptr_array_index (skip, i);

      if (is_at_or_under (path, root) && !g_str_equal (path, root))
        g_ptr_array_add (exclude, g_strdup (path + strlen (root) +
                                            (g_str_equal (root, "/") ? 0 : 1)));
    }
  g_ptr_array_add (exclude, NULL);
  return (char **) g_ptr_array_free (exclude, FALSE);
}

static void
unix_local_persist_workspace (AgentsSandboxSession *session, GTask *task)
{
  AgentsUnixLocalSession *self = AGENTS_UNIX_LOCAL_SESSION (session);
  g_autofree char *root = session_root (self);
  g_auto (GStrv) exclude = persist_excludes (self, root);
  GInputStream *stream;
  GError *error = NULL;

  /* The archive is produced by a worker thread as it is read. */
  stream = agents_archive_tar_directory (root, (const char *const *) exclude,
                                         g_task_get_cancellable (task), &error);
  if (stream == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, stream, g_object_unref);
}

static void
hydrate_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;

  mark_handover_pending (g_task_get_source_object (task));
  if (agents_archive_extract_to_directory_finish (result, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
unix_local_hydrate_workspace (AgentsSandboxSession *session,
                              GInputStream *data,
                              GTask *task)
{
  AgentsUnixLocalSession *self = AGENTS_UNIX_LOCAL_SESSION (session);
  g_autofree char *root = session_root (self);

  g_mkdir_with_parents (root, 0755);
  /* The restore of this workspace's own snapshot brings its symlinks
   * back as they were, wherever they point. Any other archive is
   * hydrated as by the reference's unix_local: strictly, a symlink member
   * must stay inside the workspace (relative links such as a
   * virtualenv's come back; absolute or outward targets are refused). */
  if (agents_sandbox_session_base_is_restoring_snapshot (
        AGENTS_SANDBOX_SESSION_BASE (self)))
    {
      agents_archive_extract_snapshot_to_directory_async (
        data, root, agents_sandbox_session_get_archive_limits (session),
        g_task_get_cancellable (task), hydrate_done, g_object_ref (task));
      return;
    }
  agents_archive_extract_workspace_to_directory_async (
    data, root, agents_sandbox_session_get_archive_limits (session),
    g_task_get_cancellable (task), hydrate_done, g_object_ref (task));
}

static void
session_iface_init (AgentsSandboxSessionInterface *iface)
{
  iface->running = unix_local_running;
  iface->start_process = unix_local_start_process;
  iface->read = unix_local_read;
  iface->write = unix_local_write;
  iface->persist_workspace = unix_local_persist_workspace;
  iface->hydrate_workspace = unix_local_hydrate_workspace;
  iface->validate_path_access = unix_local_validate_path_access;
  iface->ls = unix_local_ls;
  iface->mkdir = unix_local_mkdir;
  iface->rm = unix_local_rm;
}
