/* agents-unix-local-client.c - the unix_local sandbox backend
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "agents-fs-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-host-bind-private.h"
#include "agents-unix-local-client.h"
#include "agents-unix-local-confine.h"
#include "agents-unix-local-owner.h"
#include "agents-unix-local-session.h"

#define BACKEND_ID "unix_local"
#define OWNED_ROOT_PREFIX AGENTS_UNIX_LOCAL_OWNED_ROOT_PREFIX

/**
 * AgentsUnixLocalClient:
 *
 * The `unix_local` backend: workspaces are directories of the host and
 * commands run as host processes confined to them. A manifest with the
 * default root gets a fresh temporary directory, which the client owns
 * and removes on delete; any other root belongs to the caller and is
 * kept.
 */
struct _AgentsUnixLocalClient
{
  AgentsSandboxClientBase parent_instance;

  gboolean allow_system_root;
};

static void client_iface_init (AgentsSandboxClientInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  AgentsUnixLocalClient,
  agents_unix_local_client,
  AGENTS_TYPE_SANDBOX_CLIENT_BASE,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_SANDBOX_CLIENT, client_iface_init))

enum
{
  PROP_0,
  PROP_ALLOW_SYSTEM_ROOT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static AgentsUnixLocalRmtreeFunc rmtree_func;

static void
client_get_property (GObject *object,
                     guint prop_id,
                     GValue *value,
                     GParamSpec *pspec)
{
  AgentsUnixLocalClient *self = AGENTS_UNIX_LOCAL_CLIENT (object);

  switch (prop_id)
    {
    case PROP_ALLOW_SYSTEM_ROOT:
      g_value_set_boolean (value, self->allow_system_root);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
client_set_property (GObject *object,
                     guint prop_id,
                     const GValue *value,
                     GParamSpec *pspec)
{
  AgentsUnixLocalClient *self = AGENTS_UNIX_LOCAL_CLIENT (object);
  gboolean allow;

  switch (prop_id)
    {
    case PROP_ALLOW_SYSTEM_ROOT:
      allow = g_value_get_boolean (value);
      if (self->allow_system_root == allow)
        break;
      self->allow_system_root = allow;
      g_object_notify_by_pspec (object, pspec);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_unix_local_client_class_init (AgentsUnixLocalClientClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = client_get_property;
  object_class->set_property = client_set_property;
  agents_sandbox_client_base_class_set_session_state_type (
    AGENTS_SANDBOX_CLIENT_BASE_CLASS (klass),
    AGENTS_TYPE_UNIX_LOCAL_SESSION_STATE);

  /* AgentsUnixLocalClient:allow-system-root:
   *
   * Whether a manifest root may be a system directory (`/`, `/etc`,
   * `/usr`, `$HOME` itself…; see agents_unix_local_system_root()),
   * which then becomes a read-write workspace. Off by default: such a
   * root is refused with an error naming it. */
  properties[PROP_ALLOW_SYSTEM_ROOT] = g_param_spec_boolean (
    "allow-system-root", NULL, NULL, FALSE,
    G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
agents_unix_local_client_init (AgentsUnixLocalClient *self)
{
}

AgentsSandboxClient *
agents_unix_local_client_new (void)
{
  return g_object_new (AGENTS_TYPE_UNIX_LOCAL_CLIENT, NULL);
}

gboolean
agents_unix_local_rmtree (const char *path, GError **error)
{
  return agents_fs_rm_rf (path, error);
}

void
agents_unix_local_client_set_rmtree_func (AgentsUnixLocalRmtreeFunc func)
{
  g_atomic_pointer_set (&rmtree_func, func);
}

static const char *
client_get_backend_id (AgentsSandboxClient *client)
{
  return BACKEND_ID;
}

static gboolean
client_supports_default_options (AgentsSandboxClient *client)
{
  return TRUE;
}

/* ---- roots ----------------------------------------------------------- */

/* @path with the symlinks of its longest existing prefix resolved. */
static char *
resolve_existing_prefix (const char *path)
{
  g_autofree char *canonical = g_canonicalize_filename (path, "/");
  g_autofree char *parent = NULL;
  g_autofree char *base = NULL;
  g_autofree char *resolved_parent = NULL;
  char *real = realpath (canonical, NULL);
  char *result;

  if (real != NULL)
    {
      result = g_strdup (real);
      free (real);
      return result;
    }
  if (g_str_equal (canonical, "/"))
    return g_strdup ("/");
  parent = g_path_get_dirname (canonical);
  base = g_path_get_basename (canonical);
  resolved_parent = resolve_existing_prefix (parent);
  return g_build_filename (resolved_parent, base, NULL);
}

static gboolean
path_is_at_or_under (const char *path, const char *dir)
{
  size_t len = strlen (dir);

  if (g_str_equal (dir, "/"))
    return TRUE;
  return strncmp (path, dir, len) == 0 &&
         (path[len] == '\0' || path[len] == '/');
}

/* Whether @root (absolute) is a system directory: one of the directories
 * of the system itself or anything under them (/etc, /usr, /bin…), or a
 * directory that holds everyone's data (/, /home, /var, $HOME itself, the
 * temporary directory itself…). Symlinks are resolved first (/bin is
 * /usr/bin on a merged /usr). Returns the directory it is or is under. */
char *
agents_unix_local_system_root (const char *root)
{
  static const char *const trees[] = {
    "/etc",     "/usr",     "/bin",       "/sbin",      "/lib",  "/lib32",
    "/lib64",   "/libx32",  "/boot",      "/dev",       "/proc", "/sys",
    "/var/lib", "/var/log", "/var/spool", "/var/cache",
  };
  const char *const tops[] = {
    "/",
    "/run",
    "/home",
    "/var",
    "/tmp",
    "/var/tmp",
    "/root",
    "/opt",
    "/srv",
    "/mnt",
    "/media",
    "/snap",
    g_get_home_dir (),
    g_get_tmp_dir (),
  };
  g_autofree char *resolved = resolve_existing_prefix (root);

  for (guint i = 0; i < G_N_ELEMENTS (trees); i++)
    {
      g_autofree char *tree = resolve_existing_prefix (trees[i]);

      if (path_is_at_or_under (resolved, tree) ||
          path_is_at_or_under (resolved, trees[i]))
        return g_strdup (trees[i]);
    }
  for (guint i = 0; i < G_N_ELEMENTS (tops); i++)
    {
      g_autofree char *top = NULL;

      if (tops[i] == NULL)
        continue;
      top = resolve_existing_prefix (tops[i]);
      if (g_str_equal (resolved, top))
        return g_strdup (tops[i]);
    }
  return NULL;
}

static gboolean
check_not_system_root (AgentsUnixLocalClient *self,
                       const char *root,
                       GError **error)
{
  g_autofree char *system = NULL;

  if (self->allow_system_root)
    return TRUE;
  system = agents_unix_local_system_root (root);
  if (system == NULL)
    return TRUE;
  agents_sandbox_error_set (
    error, AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH,
    g_variant_new_parsed ("{'path': <%s>, 'reason': <'system_root'>, "
                          "'system_directory': <%s>}",
                          root, system),
    _ ("the workspace root %s is the system directory %s (or inside it): "
       "refusing to make it a read-write workspace; allow it explicitly "
       "(the unix_local client's allow-system-root, `agents "
       "--allow-system-root`) if that is really meant"),
    root, system);
  return FALSE;
}

/* ---- create and resume ---------------------------------------------- */

/* A fresh root for a manifest without one, with its owner record. */
static char *
make_owned_root (char **token, GError **error)
{
  g_autofree char *dir = g_dir_make_tmp (OWNED_ROOT_PREFIX "XXXXXX", error);
  g_autofree char *result = NULL;
  char *real;

  if (dir == NULL)
    return NULL;
  real = realpath (dir, NULL);
  result = g_strdup (real ? real : dir);
  free (real);
  *token = agents_unix_local_owner_record_root (result, NULL, error);
  if (*token == NULL)
    {
      g_rmdir (result);
      return NULL;
    }
  return g_steal_pointer (&result);
}

static void
client_create (AgentsSandboxClient *client,
               AgentsManifest *manifest,
               GVariant *options,
               GObject *snapshot,
               GTask *task)
{
  g_autoptr (AgentsManifest) copy = NULL;
  g_autoptr (AgentsSandboxSessionState) state = NULL;
  g_autoptr (AgentsSnapshot) resolved = NULL;
  g_autofree char *token = NULL;
  gboolean owned = FALSE;
  GError *error = NULL;

  if (!agents_unix_local_session_options_validate (options, &error))
    {
      g_task_return_error (task, error);
      return;
    }

  copy =
    manifest != NULL ? agents_manifest_copy (manifest) : agents_manifest_new ();
  if (g_strcmp0 (agents_manifest_get_root (copy),
                 AGENTS_MANIFEST_DEFAULT_ROOT) == 0)
    {
      g_autofree char *root = make_owned_root (&token, &error);

      if (root == NULL)
        {
          g_task_return_error (task, error);
          return;
        }
      agents_manifest_set_root (copy, root);
      owned = TRUE;
    }
  else if (!check_not_system_root (AGENTS_UNIX_LOCAL_CLIENT (client),
                                   agents_manifest_get_root (copy), &error))
    {
      g_task_return_error (task, error);
      return;
    }

  state = agents_unix_local_session_state_new (copy, NULL, owned);
  if (owned)
    agents_unix_local_session_state_set_root_proven (
      AGENTS_UNIX_LOCAL_SESSION_STATE (state), token);
  resolved = agents_snapshot_resolve (
    snapshot, agents_sandbox_session_state_get_session_id (state));
  agents_sandbox_session_state_set_snapshot (state, resolved);
  g_task_return_pointer (
    task, agents_unix_local_session_new_from_state (state, options),
    g_object_unref);
}

static void
set_untrusted_root_error (GError **error, const char *root, const char *why)
{
  agents_sandbox_error_set (
    error, AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH,
    g_variant_new_parsed ("{'path': <%s>, 'reason': <'untrusted_root'>}", root),
    _ ("refusing the workspace root %s named by the session state: %s; "
       "nothing was touched"),
    root, why);
}

/* An owned root that is gone (its session was deleted) is made again
 * where it was, if that is a fresh name in the temporary directory:
 * creating it there exclusively proves it is ours. */
static gboolean
remake_owned_root (AgentsUnixLocalSessionState *state,
                   const char *root,
                   GError **error)
{
  g_autofree char *parent = g_path_get_dirname (root);
  g_autofree char *base = g_path_get_basename (root);
  g_autofree char *tmp = resolve_existing_prefix (g_get_tmp_dir ());
  g_autofree char *token = NULL;

  if (!g_str_equal (parent, tmp) || !g_str_has_prefix (base, OWNED_ROOT_PREFIX))
    {
      set_untrusted_root_error (
        error, root,
        _ ("it is said to be made by the library but is not a name the "
           "library gives (the temporary directory's sandbox-local-*)"));
      return FALSE;
    }
  if (g_mkdir (root, 0700) < 0)
    {
      int errsv = errno;

      set_untrusted_root_error (error, root, g_strerror (errsv));
      return FALSE;
    }
  /* The state's token again: other copies of the state (a run state
   * holds one per agent) then prove the same root. */
  token = agents_unix_local_owner_record_root (
    root, agents_unix_local_session_state_get_workspace_root_token (state),
    error);
  if (token == NULL)
    {
      g_rmdir (root);
      return FALSE;
    }
  agents_unix_local_session_state_set_root_proven (state, token);
  return TRUE;
}

/* A state read from JSON is hostile: its root is used only when the
 * caller vouched for it or the library proves it made it. */
static gboolean
check_resumed_root (AgentsUnixLocalClient *self,
                    AgentsSandboxSessionState *state,
                    GError **error)
{
  AgentsUnixLocalSessionState *local = AGENTS_UNIX_LOCAL_SESSION_STATE (state);
  g_autofree char *root = g_canonicalize_filename (
    agents_manifest_get_root (
      agents_sandbox_session_state_get_manifest (state)),
    "/");
  struct stat st;

  if (agents_unix_local_session_state_get_root_proven (local))
    return TRUE;
  if (agents_sandbox_session_state_get_root_vouched (state))
    return check_not_system_root (self, root, error);
  if (agents_unix_local_session_state_get_workspace_root_owned (local))
    {
      const char *token =
        agents_unix_local_session_state_get_workspace_root_token (local);

      if (agents_unix_local_owner_verify (root, token))
        {
          agents_unix_local_session_state_set_root_proven (local, token);
          return TRUE;
        }
      if (lstat (root, &st) < 0 && errno == ENOENT)
        return remake_owned_root (local, root, error);
    }
  set_untrusted_root_error (
    error, root,
    _ ("the caller's configuration does not name it and the library did not "
       "make it"));
  return FALSE;
}

/* A resumed session runs with the caller's options (confinement, limits,
 * sandbox identity) as a created one does, checked first; a saved state
 * carries none of them. The state's own snapshot is kept: it is where
 * the workspace was persisted. */
static void
client_resume_with_options (AgentsSandboxClient *client,
                            AgentsSandboxSessionState *state,
                            GVariant *options,
                            GObject *snapshot,
                            GTask *task)
{
  GError *error = NULL;

  if (!agents_unix_local_session_options_validate (options, &error) ||
      (AGENTS_IS_UNIX_LOCAL_SESSION_STATE (state) &&
       !check_resumed_root (AGENTS_UNIX_LOCAL_CLIENT (client), state, &error)))
    {
      g_task_return_error (task, error);
      return;
    }
  g_task_return_pointer (
    task, agents_unix_local_session_new_from_state (state, options),
    g_object_unref);
}

static void
client_resume (AgentsSandboxClient *client,
               AgentsSandboxSessionState *state,
               GTask *task)
{
  client_resume_with_options (client, state, NULL, NULL, task);
}

/* ---- delete --------------------------------------------------------- */

typedef struct
{
  AgentsSandboxSession *session;
  GPtrArray *mounts; /* AgentsEntryTarget, deepest first */
  guint next;
  gboolean unmount_failed;
  char *root;
  gboolean remove_root;
} DeleteOp;

static void
delete_op_free (DeleteOp *op)
{
  g_clear_object (&op->session);
  g_clear_pointer (&op->mounts, g_ptr_array_unref);
  g_free (op->root);
  g_free (op);
}

static guint
count_components (const char *path)
{
  guint n = 0;

  for (const char *p = path; *p != '\0'; p++)
    if (*p == '/' && p[1] != '/' && p[1] != '\0')
      n++;
  return n;
}

static int
compare_deepest_first (gconstpointer a, gconstpointer b)
{
  const AgentsEntryTarget *ta = *(AgentsEntryTarget *const *) a;
  const AgentsEntryTarget *tb = *(AgentsEntryTarget *const *) b;
  guint da = count_components (ta->path);
  guint db = count_components (tb->path);

  if (da != db)
    return da > db ? -1 : 1;
  return -strcmp (ta->path, tb->path);
}

/* Only a root the client made itself (and proved it in this process),
 * or one that code said is owned, is ever removed: a state read from
 * JSON cannot make delete remove an arbitrary tree. */
static gboolean
should_remove_root (AgentsSandboxSessionState *state, const char *root)
{
  g_autofree char *base = g_path_get_basename (root);
  AgentsUnixLocalSessionState *local;

  if (!AGENTS_IS_UNIX_LOCAL_SESSION_STATE (state))
    return FALSE;
  local = AGENTS_UNIX_LOCAL_SESSION_STATE (state);
  return agents_unix_local_session_state_get_workspace_root_owned (local) &&
         (agents_unix_local_session_state_get_root_proven (local) ||
          agents_sandbox_session_state_get_root_vouched (state)) &&
         g_path_is_absolute (root) && !g_str_equal (root, "/") &&
         g_str_has_prefix (base, OWNED_ROOT_PREFIX);
}

static void
rmtree_thread (GTask *task,
               gpointer source_object,
               gpointer task_data,
               GCancellable *cancellable)
{
  DeleteOp *op = task_data;
  AgentsUnixLocalRmtreeFunc func = g_atomic_pointer_get (&rmtree_func);
  g_autoptr (GError) error = NULL;

  if (func == NULL)
    func = agents_unix_local_rmtree;
  if (!func (op->root, &error))
    g_warning ("Could not remove the workspace %s: %s", op->root,
               error ? error->message : "unknown error");
  else
    agents_unix_local_owner_forget (op->root);
  g_task_return_boolean (task, TRUE);
}

static void delete_next_unmount (GTask *task);

static void
delete_unmounted (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  DeleteOp *op = g_task_get_task_data (task);
  AgentsEntryTarget *target = g_ptr_array_index (op->mounts, op->next - 1);
  g_autoptr (GError) error = NULL;

  if (!agents_mount_unmount_finish (AGENTS_MOUNT (source), result, &error))
    {
      op->unmount_failed = TRUE;
      g_warning ("Could not unmount %s, keeping the workspace %s: %s",
                 target->path, op->root, error->message);
    }
  delete_next_unmount (g_steal_pointer (&task));
}

static void
delete_next_unmount (GTask *task)
{
  DeleteOp *op = g_task_get_task_data (task);
  AgentsEntryTarget *target;

  if (op->next < op->mounts->len)
    {
      target = g_ptr_array_index (op->mounts, op->next++);
      agents_mount_unmount_async (
        AGENTS_MOUNT (target->entry), op->session, target->path, op->root,
        g_task_get_cancellable (task), delete_unmounted, task);
      return;
    }
  if (op->unmount_failed || !op->remove_root)
    {
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }
  g_task_run_in_thread (task, rmtree_thread);
  g_object_unref (task);
}

static void
client_delete (AgentsSandboxClient *client,
               AgentsSandboxSession *session,
               GTask *task)
{
  g_autoptr (AgentsSandboxSessionState) state =
    agents_sandbox_session_get_state (session);
  AgentsManifest *manifest = agents_sandbox_session_state_get_manifest (state);
  DeleteOp *op = g_new0 (DeleteOp, 1);

  if (AGENTS_IS_UNIX_LOCAL_SESSION (session))
    agents_unix_local_session_cleanup (AGENTS_UNIX_LOCAL_SESSION (session));

  op->session = g_object_ref (session);
  op->root = g_canonicalize_filename (agents_manifest_get_root (manifest), "/");
  op->remove_root = should_remove_root (state, op->root);
  op->mounts = agents_manifest_list_mounts (manifest);
  g_ptr_array_sort (op->mounts, compare_deepest_first);
  g_task_set_task_data (task, op, (GDestroyNotify) delete_op_free);
  delete_next_unmount (g_object_ref (task));
}

/* ---- reap ------------------------------------------------------------ */

static void
reap_thread (GTask *task,
             gpointer source_object,
             gpointer task_data,
             GCancellable *cancellable)
{
  GVariant *options = task_data;
  gboolean dry_run = FALSE;
  GError *error = NULL;
  gssize count;
  gssize mounts = 0;

  if (options != NULL)
    g_variant_lookup (options, "dry_run", "b", &dry_run);

  /* First the host mounts (s3_mount) of dead processes, whose FUSE
   * daemons outlive them: a workspace is never removed through one. */
  if (!dry_run)
    mounts = agents_host_mounts_reap (
      GPOINTER_TO_INT (g_object_get_data (G_OBJECT (task), "all")), &error);
  if (mounts < 0)
    {
      g_task_return_error (task, error);
      return;
    }
  count = agents_unix_local_owner_reap (
    GPOINTER_TO_INT (g_object_get_data (G_OBJECT (task), "all")), dry_run, NULL,
    &error);
  if (count >= 0)
    count += mounts;
  if (count < 0)
    g_task_return_error (task, error);
  else
    g_task_return_int (task, count);
}

/* The workspaces the client made for processes that are gone (killed,
 * crashed): their owner records say which. Options: "dry_run" (b) only
 * counts them. */
static void
client_reap (AgentsSandboxClient *client,
             GVariant *options,
             gboolean all,
             GTask *task)
{
  if (options != NULL &&
      !g_variant_is_of_type (options, G_VARIANT_TYPE_VARDICT))
    {
      g_task_return_error (
        task, agents_sandbox_error_new (AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                                        NULL, "%s",
                                        _ ("unix_local options must be an "
                                           "a{sv} dictionary")));
      return;
    }
  g_object_set_data (G_OBJECT (task), "all", GINT_TO_POINTER (!!all));
  if (options != NULL)
    g_task_set_task_data (task, g_variant_ref (options),
                          (GDestroyNotify) g_variant_unref);
  g_task_run_in_thread (task, reap_thread);
}

static void
client_iface_init (AgentsSandboxClientInterface *iface)
{
  iface->reap = client_reap;
  iface->get_backend_id = client_get_backend_id;
  iface->create = client_create;
  iface->resume = client_resume;
  iface->resume_with_options = client_resume_with_options;
  iface->delete = client_delete;
  iface->supports_default_options = client_supports_default_options;
}

void
agents_unix_local_register_types (void)
{
  g_autoptr (GError) error = NULL;

  if (!agents_registry_register (AGENTS_REGISTRY_KIND_SANDBOX_CLIENT,
                                 BACKEND_ID, AGENTS_TYPE_UNIX_LOCAL_CLIENT,
                                 &error) ||
      !agents_registry_register (AGENTS_REGISTRY_KIND_SESSION_STATE, BACKEND_ID,
                                 AGENTS_TYPE_UNIX_LOCAL_SESSION_STATE, &error))
    g_warning ("Could not register the unix_local backend: %s", error->message);
}
