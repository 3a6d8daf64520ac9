/* s3mount-host.c - mounting a bucket on the host for a confined sandbox
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * For backends whose commands are host processes in a confined view
 * (unix_local under bubblewrap), the FUSE tool runs on the host, outside
 * the sandbox, and mounts the bucket in a directory the library owns:
 *
 *   <runtime dir>/agents-1.0/mounts/s3-XXXXXX/   0711
 *     env        0600  the credentials, `export` lines sourced by sh,
 *                      removed once the tool is mounted
 *     rclone.conf 0600 empty: keeps rclone off the user's own config
 *     cache/     the tool's cache, unless the pattern names one
 *     mnt/       the FUSE mount
 *
 * The session then shows mnt/ at the mount path inside the sandbox (a
 * host bind, see agents-host-bind-private.h). The workspace itself never
 * holds the mount, so persisting, hydrating or clearing it never reads,
 * writes or deletes through a bucket. Secrets never reach a command line:
 * `sh -c '. "$0" && exec "$@"' ENV TOOL ARGS…`.
 */

#include "config.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "agents-host-bind-private.h"
#include "agents-sandbox-error-private.h"
#include "s3mount-host-private.h"

/* Seconds a mount, probe or unmount command may take. */
#define HOST_COMMAND_TIMEOUT 60

/* Seconds an unmount waits for written files to be uploaded. */
#define UPLOAD_WAIT_TIMEOUT 300

static const char exec_with_env_script[] = ". \"$0\" && exec \"$@\"";

/* As in agents-s3-mount.c: the path is a positional parameter. */
static const char unmount_script[] =
  "mountpoint -q \"$1\"\n"
  "case $? in\n"
  "  0) ;;\n"
  "  1|32) exit 0 ;;\n"
  "  *) printf 'cannot tell whether %s is a mount point\\n' \"$1\" >&2;"
  " exit 1 ;;\n"
  "esac\n"
  "fusermount3 -u \"$1\" 2>/dev/null || fusermount -u \"$1\" 2>/dev/null ||"
  " umount \"$1\"\n";

/* The mount answers (a stat waits for the tool's start) and is still
 * there: s3fs unmounts itself when its check of the bucket fails. */
static const char alive_script[] = "test -d \"$1\" && mountpoint -q \"$1\"";

/* Variables the tools may use to find ambient credentials (the process's
 * environment or a profile) when the entry carries none. */
static const char *const ambient_names[] = {
  "AWS_ACCESS_KEY_ID",   "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",   "AWS_PROFILE",
  "AWS_DEFAULT_PROFILE", "AWS_SHARED_CREDENTIALS_FILE",
  "AWS_CONFIG_FILE",     "AWS_REGION",
  "AWS_DEFAULT_REGION",  "AWS_WEB_IDENTITY_TOKEN_FILE",
  "AWS_ROLE_ARN",
};

/* ---- redaction -------------------------------------------------------- */

static void
replace_all (GString *text, const char *secret)
{
  if (secret != NULL && *secret != '\0')
    g_string_replace (text, secret, "REDACTED", 0);
}

char *
s3mount_redact (AgentsS3Mount *mount, const char *text)
{
  g_autoptr (GRegex) userinfo = NULL;
  GString *out = g_string_new (text ? text : "");
  char *result;

  replace_all (out, agents_s3_mount_get_secret_access_key (mount));
  replace_all (out, agents_s3_mount_get_session_token (mount));
  replace_all (out, agents_s3_mount_get_access_key_id (mount));

  userinfo = g_regex_new ("(://)[^/@\\s]+@", G_REGEX_OPTIMIZE, 0, NULL);
  result = g_regex_replace (userinfo, out->str, -1, 0, "\\1REDACTED@", 0, NULL);
  g_string_free (out, TRUE);
  return result;
}

/* ---- mount table ------------------------------------------------------ */

static char *
unescape_mountinfo (const char *field)
{
  GString *out = g_string_new (NULL);

  for (const char *p = field; *p != '\0'; p++)
    {
      if (p[0] == '\\' && g_ascii_isdigit (p[1]) && g_ascii_isdigit (p[2]) &&
          g_ascii_isdigit (p[3]))
        {
          g_string_append_c (
            out, (char) ((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0')));
          p += 3;
        }
      else
        g_string_append_c (out, *p);
    }
  return g_string_free (out, FALSE);
}

gboolean
s3mount_path_is_mounted (const char *path)
{
  g_autofree char *contents = NULL;
  g_auto (GStrv) lines = NULL;

  if (!g_file_get_contents ("/proc/self/mountinfo", &contents, NULL, NULL))
    return FALSE;
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto (GStrv) fields = g_strsplit (lines[i], " ", 6);
      g_autofree char *mount_point = NULL;

      if (g_strv_length (fields) < 5)
        continue;
      mount_point = unescape_mountinfo (fields[4]);
      if (g_str_equal (mount_point, path))
        return TRUE;
    }
  return FALSE;
}

/* ---- the directory the library owns ----------------------------------- */

static void
remove_owned_dir (const char *dir)
{
  agents_host_mount_dir_remove (dir);
}

static gboolean
paths_overlap (const char *a, const char *b)
{
  gsize la = strlen (a);
  gsize lb = strlen (b);

  if (la <= lb)
    return strncmp (a, b, la) == 0 && (b[la] == '/' || b[la] == '\0');
  return strncmp (a, b, lb) == 0 && a[lb] == '/';
}

/* ---- one host mount --------------------------------------------------- */

typedef struct
{
  AgentsS3Mount *mount;
  AgentsSandboxSession *session;
  char *dest;
  char *owned_dir;
  char *mnt_dir;
  char *env_file;
  char **tool_argv;     /* the mount command, without the env wrapper */
  char **envp;          /* of the helper; the secrets are in env_file */
  char *probe_remote;   /* rclone's remote, checked before mounting */
  gboolean check_alive; /* s3fs: the mount must answer once made */
  gboolean mounted;
} HostMountOp;

static void
host_mount_op_free (HostMountOp *op)
{
  g_clear_object (&op->mount);
  g_clear_object (&op->session);
  g_free (op->dest);
  g_free (op->owned_dir);
  g_free (op->mnt_dir);
  g_free (op->env_file);
  g_strfreev (op->tool_argv);
  g_strfreev (op->envp);
  g_free (op->probe_remote);
  g_free (op);
}

GVariant *
s3mount_error_context (AgentsS3Mount *mount,
                       const char *dest,
                       const char *stderr_text)
{
  g_auto (GVariantBuilder) builder =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  const char *endpoint = agents_s3_mount_get_endpoint_url (mount);

  g_variant_builder_add (&builder, "{sv}", "path", g_variant_new_string (dest));
  g_variant_builder_add (
    &builder, "{sv}", "bucket",
    g_variant_new_string (agents_s3_mount_get_bucket (mount)));
  if (endpoint != NULL)
    g_variant_builder_add (&builder, "{sv}", "endpoint_url",
                           g_variant_new_string (endpoint));
  if (stderr_text != NULL)
    g_variant_builder_add (&builder, "{sv}", "stderr",
                           g_variant_new_string (stderr_text));
  return g_variant_builder_end (&builder);
}

static GVariant *
mount_context (HostMountOp *op, const char *stderr_text)
{
  return s3mount_error_context (op->mount, op->dest, stderr_text);
}

/* The mount failed: nothing of it stays behind, and the error names the
 * bucket and endpoint but no secret. */
static void
fail_mount (GTask *task, const char *detail)
{
  HostMountOp *op = g_task_get_task_data (task);
  g_autofree char *redacted = s3mount_redact (op->mount, detail);
  const char *endpoint = agents_s3_mount_get_endpoint_url (op->mount);
  g_autofree char *stripped = g_strstrip (g_strdup (redacted));

  if (op->mounted || (op->mnt_dir && s3mount_path_is_mounted (op->mnt_dir)))
    {
      const char *argv[] = {
        "sh", "-c", unmount_script, "sh", op->mnt_dir, NULL
      };

      g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                    NULL, NULL, NULL, NULL);
    }
  if (op->mnt_dir == NULL || !s3mount_path_is_mounted (op->mnt_dir))
    remove_owned_dir (op->owned_dir);

  g_task_return_error (
    task, agents_sandbox_error_new (
            AGENTS_SANDBOX_ERROR_MOUNT_FAILED, mount_context (op, stripped),
            _ ("failed to mount s3://%s (endpoint %s) at %s: %s"),
            agents_s3_mount_get_bucket (op->mount),
            endpoint ? endpoint : "default", op->dest, stripped));
}

/* `export NAME='value'` for each entry of @envp. Values are free of
 * control characters (validated); single quotes are escaped. */
char *
s3mount_env_file_text (char **envp)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; envp != NULL && envp[i] != NULL; i++)
    {
      const char *eq = strchr (envp[i], '=');
      g_autofree char *name = NULL;
      g_autofree char *quoted = NULL;

      if (eq == NULL)
        continue;
      name = g_strndup (envp[i], eq - envp[i]);
      quoted = g_shell_quote (eq + 1);
      g_string_append_printf (text, "export %s=%s\n", name, quoted);
    }
  return g_string_free (text, FALSE);
}

static gboolean
write_env_file (const char *path, char **envp, GError **error)
{
  g_autofree char *text = s3mount_env_file_text (envp);

  return g_file_set_contents_full (path, text, -1,
                                   G_FILE_SET_CONTENTS_CONSISTENT, 0600, error);
}

/* The helper's environment: nothing of ours but PATH, unless the entry
 * has no keys; then the ambient AWS variables (environment, profile). */
static char **
helper_environ (AgentsS3Mount *mount, const char *owned_dir)
{
  char **envp = NULL;
  const char *endpoint = agents_s3_mount_get_endpoint_url (mount);
  const char *ca_bundle = g_getenv ("AWS_CA_BUNDLE");

  envp = g_environ_setenv (envp, "PATH",
                           g_getenv ("PATH") ? g_getenv ("PATH")
                                             : "/usr/local/bin:/usr/bin:/bin",
                           TRUE);
  envp = g_environ_setenv (envp, "HOME", owned_dir, TRUE);
  envp = g_environ_setenv (envp, "LC_ALL", "C", TRUE);
  /* A CA bundle is for TLS; on a plain http endpoint it only makes
   * rclone's S3 backend fail. */
  if (ca_bundle != NULL &&
      (endpoint == NULL || g_str_has_prefix (endpoint, "https:")))
    envp = g_environ_setenv (envp, "AWS_CA_BUNDLE", ca_bundle, TRUE);

  if (agents_s3_mount_get_access_key_id (mount) == NULL)
    {
      g_autofree char *aws_dir =
        g_build_filename (g_get_home_dir (), ".aws", NULL);
      g_autofree char *credentials =
        g_build_filename (aws_dir, "credentials", NULL);
      g_autofree char *config = g_build_filename (aws_dir, "config", NULL);

      for (guint i = 0; i < G_N_ELEMENTS (ambient_names); i++)
        if (g_getenv (ambient_names[i]) != NULL)
          envp = g_environ_setenv (envp, ambient_names[i],
                                   g_getenv (ambient_names[i]), TRUE);
      /* HOME moved: the profile files stay where they were. */
      envp = g_environ_setenv (envp, "AWS_SHARED_CREDENTIALS_FILE", credentials,
                               FALSE);
      envp = g_environ_setenv (envp, "AWS_CONFIG_FILE", config, FALSE);
    }
  return envp;
}

static void
insert_args (GPtrArray *argv, guint at, const char *const *args)
{
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_insert (argv, at + i, g_strdup (args[i]));
}

/* The pattern's command with what running it for the library needs: an
 * isolated rclone configuration (@config), a cache of its own (@cache,
 * unless the pattern names one) and, with @allow_other, the option that
 * lets a command running as another user in the sandbox use the mount
 * (the secrets are gone from the disk once it is mounted). */
char **
s3mount_tool_argv (AgentsS3Mount *mount,
                   AgentsMountPattern *pattern,
                   const char *mnt_dir,
                   const char *config,
                   const char *cache,
                   gboolean allow_other,
                   GError **error)
{
  g_auto (GStrv) base = NULL;
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  const char *type = agents_mount_pattern_get_type_name (pattern);

  base = agents_mount_pattern_build_mount_argv (pattern, mount, mnt_dir, error);
  if (base == NULL)
    return NULL;
  for (guint i = 0; base[i] != NULL; i++)
    g_ptr_array_add (argv, g_strdup (base[i]));

  if (g_str_equal (type, "rclone"))
    {
      g_autofree char *config_arg = g_strconcat ("--config=", config, NULL);
      g_autofree char *cache_arg = g_strconcat ("--cache-dir=", cache, NULL);
      const char *const extra[] = { config_arg,
                                    allow_other ? "--allow-other" : NULL,
                                    NULL };

      insert_args (argv, 2, extra);
      /* Upload a file as soon as it is closed, not seconds later. */
      if (!agents_mount_get_read_only (AGENTS_MOUNT (mount)))
        g_ptr_array_insert (argv, 2, g_strdup ("--vfs-write-back=0s"));
      if (agents_mount_pattern_get_cache_dir (pattern) == NULL)
        g_ptr_array_insert (argv, 2, g_strdup (cache_arg));
    }
  else if (g_str_equal (type, "s3fs"))
    {
      /* S3-compatible endpoints serve buckets by path, not host name. */
      const char *const path_style[] = { "-o", "use_path_request_style", NULL };
      /* Objects without s3fs's mode metadata would be root's 0750:
       * open to the sandbox's user (read-only comes from `-o ro`). */
      const char *const other[] = { "-o", "allow_other", "-o", "umask=0000",
                                    NULL };

      if (agents_s3_mount_get_endpoint_url (mount) != NULL)
        insert_args (argv, 3, path_style);
      if (allow_other)
        insert_args (argv, 3, other);
    }
  g_ptr_array_add (argv, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&argv), FALSE);
}

static char **
host_tool_argv (HostMountOp *op, AgentsMountPattern *pattern, GError **error)
{
  g_autofree char *config =
    g_build_filename (op->owned_dir, "rclone.conf", NULL);
  g_autofree char *cache = g_build_filename (op->owned_dir, "cache", NULL);

  return s3mount_tool_argv (op->mount, pattern, op->mnt_dir, config, cache,
                            geteuid () == 0, error);
}

/* A container is configured with the host paths it binds, so a docker
 * session's mount goes to the same directory each time (named after the
 * session and the mount path): the container can then be used again on
 * resume instead of being replaced. */
static char *
new_owned_dir (HostMountOp *op, GError **error)
{
  g_autoptr (AgentsSandboxSessionState) state = NULL;
  g_autofree char *key = NULL;
  g_autofree char *digest = NULL;

  if (!agents_sandbox_session_get_host_binds_in_container (op->session))
    return agents_host_mount_dir_new ("s3", error);
  state = agents_sandbox_session_get_state (op->session);
  key = g_strconcat (state ? agents_sandbox_session_state_get_session_id (state)
                           : "",
                     "\n", op->dest, NULL);
  digest = g_compute_checksum_for_string (G_CHECKSUM_SHA256, key, -1);
  digest[24] = '\0';
  return agents_host_mount_dir_new_named ("s3", digest, error);
}

static gboolean
prepare_owned_dir (HostMountOp *op, char **tool_env, GError **error)
{
  g_autofree char *root = NULL;
  g_autofree char *config = NULL;

  op->owned_dir = new_owned_dir (op, error);
  if (op->owned_dir == NULL)
    return FALSE;
  op->mnt_dir = g_build_filename (op->owned_dir, "mnt", NULL);
  op->env_file = g_build_filename (op->owned_dir, "env", NULL);
  config = g_build_filename (op->owned_dir, "rclone.conf", NULL);

  root = g_canonicalize_filename (
    agents_manifest_get_root (
      agents_sandbox_session_get_manifest (op->session)),
    "/");
  if (paths_overlap (root, op->owned_dir))
    {
      agents_sandbox_error_set (
        error, AGENTS_SANDBOX_ERROR_MOUNT_CONFIG, NULL,
        _ ("the workspace %s overlaps the directory mounts are kept in (%s)"),
        root, op->owned_dir);
      return FALSE;
    }
  if (g_mkdir (op->mnt_dir, 0700) < 0)
    {
      int saved = errno;

      agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_MOUNT_FAILED, NULL,
                                _ ("cannot create %s: %s"), op->mnt_dir,
                                g_strerror (saved));
      return FALSE;
    }
  return g_file_set_contents_full (
           config, "", 0, G_FILE_SET_CONTENTS_CONSISTENT, 0600, error) &&
         write_env_file (op->env_file, tool_env, error);
}

/* ---- running a host command ------------------------------------------- */

typedef struct
{
  GSubprocess *proc;
  guint timeout_id;
  gboolean timed_out;
} HostCommand;

static void
host_command_free (HostCommand *cmd)
{
  if (cmd->timeout_id != 0)
    g_source_remove (cmd->timeout_id);
  g_clear_object (&cmd->proc);
  g_free (cmd);
}

static gboolean
host_command_timed_out (gpointer user_data)
{
  HostCommand *cmd = user_data;

  cmd->timed_out = TRUE;
  cmd->timeout_id = 0;
  g_subprocess_force_exit (cmd->proc);
  return G_SOURCE_REMOVE;
}

static void
host_command_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  HostCommand *cmd = g_task_get_task_data (task);
  g_autofree char *err = NULL;
  GError *error = NULL;

  if (!g_subprocess_communicate_utf8_finish (G_SUBPROCESS (source), result,
                                             NULL, &err, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  if (cmd->timed_out)
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                             _ ("timed out after %d seconds"),
                             HOST_COMMAND_TIMEOUT);
  else if (g_subprocess_get_if_exited (cmd->proc) &&
           g_subprocess_get_exit_status (cmd->proc) == 0)
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED, "%s",
                             err && *err ? err : _ ("the command failed"));
}

/* Runs @argv on the host with @envp, stdout discarded; the task fails
 * with the command's stderr as its message. */
static void
host_command_async (const char *const *argv,
                    char **envp,
                    GCancellable *cancellable,
                    GAsyncReadyCallback callback,
                    gpointer user_data)
{
  g_autoptr (GSubprocessLauncher) launcher = g_subprocess_launcher_new (
    G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);
  HostCommand *cmd = g_new0 (HostCommand, 1);
  GError *error = NULL;

  g_task_set_task_data (task, cmd, (GDestroyNotify) host_command_free);
  g_subprocess_launcher_set_environ (launcher, envp);
  g_subprocess_launcher_set_cwd (launcher, "/");
  cmd->proc = g_subprocess_launcher_spawnv (launcher, argv, &error);
  if (cmd->proc == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  cmd->timeout_id =
    g_timeout_add_seconds (HOST_COMMAND_TIMEOUT, host_command_timed_out, cmd);
  g_subprocess_communicate_utf8_async (cmd->proc, NULL, cancellable,
                                       host_command_done, task);
}

static gboolean
host_command_finish (GAsyncResult *result, GError **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* `sh -c '. ENV && exec "$@"' ENV ARGV…`: the secrets stay in the file. */
static char **
wrap_with_env (const char *env_file, char **argv)
{
  GPtrArray *out = g_ptr_array_new ();

  g_ptr_array_add (out, g_strdup ("sh"));
  g_ptr_array_add (out, g_strdup ("-c"));
  g_ptr_array_add (out, g_strdup (exec_with_env_script));
  g_ptr_array_add (out, g_strdup (env_file));
  for (guint i = 0; argv[i] != NULL; i++)
    g_ptr_array_add (out, g_strdup (argv[i]));
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (out, FALSE);
}

/* ---- mount ------------------------------------------------------------ */

static void
bind_mount (GTask *task)
{
  HostMountOp *op = g_task_get_task_data (task);
  g_autoptr (AgentsHostBind) bind = NULL;

  /* Under bubblewrap the mount point is a host path in the workspace;
   * a container's is not, and the engine makes it. */
  if (!agents_sandbox_session_get_host_binds_in_container (op->session) &&
      g_mkdir_with_parents (op->dest, 0755) < 0)
    {
      fail_mount (task, g_strerror (errno));
      return;
    }
  bind = agents_host_bind_new (
    op->mnt_dir, op->dest,
    agents_mount_get_read_only (AGENTS_MOUNT (op->mount)));
  agents_sandbox_session_add_host_bind (op->session, bind);
  g_task_return_boolean (task, TRUE);
}

static void
alive_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;

  if (!host_command_finish (result, NULL))
    {
      fail_mount (task, _ ("the mount does not answer (is the bucket there, "
                           "and are the endpoint and keys right?)"));
      return;
    }
  bind_mount (task);
}

static void
mounted_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  HostMountOp *op = g_task_get_task_data (task);
  g_autoptr (GError) error = NULL;
  const char *argv[] = { "sh", "-c", alive_script, "sh", op->mnt_dir, NULL };
  GCancellable *cancellable;

  if (!host_command_finish (result, &error))
    {
      fail_mount (task, error->message);
      return;
    }
  op->mounted = TRUE;
  /* The tool has read the secrets: they leave the disk. */
  g_unlink (op->env_file);
  if (!s3mount_path_is_mounted (op->mnt_dir))
    {
      fail_mount (task, _ ("the mount command exited but nothing is mounted"));
      return;
    }
  if (!op->check_alive)
    {
      bind_mount (task);
      return;
    }
  /* s3fs checks the bucket after it has mounted and returned: when the
   * check fails, what is left is a mount that no longer answers. */
  cancellable = g_task_get_cancellable (task);
  host_command_async (argv, op->envp, cancellable, alive_cb,
                      g_steal_pointer (&task));
}

static void
start_mount (GTask *task)
{
  HostMountOp *op = g_task_get_task_data (task);
  g_auto (GStrv) argv = wrap_with_env (op->env_file, op->tool_argv);

  host_command_async ((const char *const *) argv, op->envp,
                      g_task_get_cancellable (task), mounted_cb,
                      g_object_ref (task));
}

static void
probed_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  g_autoptr (GError) error = NULL;

  if (!host_command_finish (result, &error))
    {
      fail_mount (task, error->message);
      return;
    }
  start_mount (task);
}

/* rclone mounts first and asks later: listing the bucket before the
 * mount makes a bad endpoint, bucket or key fail here, with a message. */
static void
start_probe (GTask *task)
{
  HostMountOp *op = g_task_get_task_data (task);
  g_autoptr (GPtrArray) probe = g_ptr_array_new_with_free_func (g_free);
  g_auto (GStrv) argv = NULL;

  g_ptr_array_add (probe, g_strdup ("rclone"));
  g_ptr_array_add (probe, g_strdup ("lsjson"));
  g_ptr_array_add (probe, g_strdup ("--stat"));
  g_ptr_array_add (
    probe, g_strconcat ("--config=", op->owned_dir, "/rclone.conf", NULL));
  g_ptr_array_add (probe, g_strdup ("--low-level-retries=1"));
  g_ptr_array_add (probe, g_strdup ("--retries=1"));
  g_ptr_array_add (probe, g_strdup ("--contimeout=10s"));
  g_ptr_array_add (probe, g_strdup ("--timeout=30s"));
  g_ptr_array_add (probe, g_strdup ("--"));
  g_ptr_array_add (probe, g_strdup (op->probe_remote));
  g_ptr_array_add (probe, NULL);

  argv = wrap_with_env (op->env_file, (char **) probe->pdata);
  host_command_async ((const char *const *) argv, op->envp,
                      g_task_get_cancellable (task), probed_cb,
                      g_object_ref (task));
}

char **
s3mount_merge_environ (char **envp, char **more)
{
  for (guint i = 0; more != NULL && more[i] != NULL; i++)
    {
      g_autofree char *name = g_strndup (more[i], strcspn (more[i], "="));
      const char *eq = strchr (more[i], '=');

      if (eq != NULL)
        envp = g_environ_setenv (envp, name, eq + 1, TRUE);
    }
  g_strfreev (more);
  return envp;
}

/* The remote of an rclone mount command: the argument after `--`. */
static char *
rclone_remote (char **argv)
{
  for (guint i = 0; argv[i] != NULL; i++)
    if (g_str_equal (argv[i], "--") && argv[i + 1] != NULL)
      return g_strdup (argv[i + 1]);
  g_assert_not_reached ();
}

void
s3mount_host_mount (AgentsS3Mount *mount,
                    AgentsMountPattern *pattern,
                    AgentsSandboxSession *session,
                    const char *dest,
                    GTask *task)
{
  HostMountOp *op = g_new0 (HostMountOp, 1);
  g_autoptr (AgentsHostBind) existing = NULL;
  g_autoptr (AgentsMountPattern) tool = NULL;
  g_autofree char *program = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) tool_env = NULL;
  g_auto (GStrv) rclone_argv = NULL;

  op->mount = g_object_ref (mount);
  op->session = g_object_ref (session);
  op->dest = g_strdup (dest);
  g_task_set_task_data (task, op, (GDestroyNotify) host_mount_op_free);

  /* Applied again (a resume in this process): it is mounted already. */
  existing = agents_sandbox_session_lookup_host_bind (session, dest);
  if (existing != NULL && s3mount_path_is_mounted (existing->host_path))
    {
      g_task_return_boolean (task, TRUE);
      return;
    }

  if (s3mount_read_only_uses_s3fs (mount, pattern))
    tool = agents_s3fs_mount_pattern_new ();
  else
    tool = g_object_ref (pattern);
  /* rclone's variables for its probe, and the tool's. */
  tool_env = agents_mount_pattern_build_environ (pattern, mount);
  if (tool != pattern)
    tool_env = s3mount_merge_environ (
      tool_env, agents_mount_pattern_build_environ (tool, mount));
  if (!prepare_owned_dir (op, tool_env, &error) ||
      (op->tool_argv = host_tool_argv (op, tool, &error)) == NULL ||
      (AGENTS_IS_RCLONE_MOUNT_PATTERN (pattern) &&
       (rclone_argv = host_tool_argv (op, pattern, &error)) == NULL))
    {
      remove_owned_dir (op->owned_dir);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  op->envp = helper_environ (mount, op->owned_dir);
  op->check_alive = AGENTS_IS_S3FS_MOUNT_PATTERN (tool);

  program = g_find_program_in_path (op->tool_argv[0]);
  if (program == NULL)
    {
      fail_mount (task, _ ("the mount tool is not installed on the host"));
      return;
    }
  if (rclone_argv != NULL)
    {
      op->probe_remote = rclone_remote (rclone_argv);
      start_probe (task);
    }
  else
    start_mount (task);
}

/* ---- unmount ---------------------------------------------------------- */

typedef struct
{
  AgentsS3Mount *mount;
  AgentsSandboxSession *session;
  AgentsHostBind *bind;
} HostUnmountOp;

static void
host_unmount_op_free (HostUnmountOp *op)
{
  g_clear_object (&op->mount);
  g_clear_object (&op->session);
  agents_host_bind_free (op->bind);
  g_free (op);
}

static void
unmounted_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  HostUnmountOp *op = g_task_get_task_data (task);
  g_autoptr (GError) error = NULL;
  g_autofree char *owned_dir = NULL;
  g_autofree char *detail = NULL;
  g_auto (GVariantBuilder) context =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  if (host_command_finish (result, &error) &&
      !s3mount_path_is_mounted (op->bind->host_path))
    {
      agents_sandbox_session_remove_host_bind (op->session,
                                               op->bind->sandbox_path);
      owned_dir = g_path_get_dirname (op->bind->host_path);
      remove_owned_dir (owned_dir);
      g_task_return_boolean (task, TRUE);
      return;
    }

  /* Still mounted: the bind stays, and the caller keeps the workspace. */
  detail =
    s3mount_redact (op->mount, error ? error->message : _ ("still mounted"));
  g_strstrip (detail);
  g_variant_builder_add (&context, "{sv}", "path",
                         g_variant_new_string (op->bind->sandbox_path));
  g_variant_builder_add (&context, "{sv}", "stderr",
                         g_variant_new_string (detail));
  g_task_return_error (
    task, agents_sandbox_error_new (
            AGENTS_SANDBOX_ERROR_MOUNT_FAILED, g_variant_builder_end (&context),
            _ ("failed to unmount %s: %s"), op->bind->sandbox_path, detail));
}

/* Whether a file of rclone's VFS cache still waits for its upload:
 * `"Dirty": true` in its metadata (vfsMeta/<remote>/<path>). */
static gboolean
has_dirty_files (const char *dir)
{
  g_autoptr (GDir) listing = g_dir_open (dir, 0, NULL);
  const char *name;

  while (listing != NULL && (name = g_dir_read_name (listing)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *contents = NULL;

      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        {
          if (has_dirty_files (path))
            return TRUE;
        }
      else if (g_file_get_contents (path, &contents, NULL, NULL) &&
               strstr (contents, "\"Dirty\": true") != NULL)
        return TRUE;
    }
  return FALSE;
}

static char *
vfs_meta_dir (HostUnmountOp *op)
{
  g_autoptr (AgentsMountPattern) pattern = s3mount_strategy_dup_pattern (
    agents_s3_mount_get_mount_strategy (op->mount));
  const char *cache_dir = agents_mount_pattern_get_cache_dir (pattern);
  g_autofree char *owned = g_path_get_dirname (op->bind->host_path);

  if (cache_dir != NULL)
    return g_build_filename (cache_dir, "vfsMeta", NULL);
  return g_build_filename (owned, "cache", "vfsMeta", NULL);
}

/* rclone drops the uploads still pending when it is unmounted (they
 * would go on at its next start with the same cache): written files
 * must reach the bucket first. */
static void
wait_for_uploads_thread (GTask *task,
                         gpointer source_object,
                         gpointer task_data,
                         GCancellable *cancellable)
{
  HostUnmountOp *op = task_data;
  g_autofree char *meta = vfs_meta_dir (op);
  gint64 deadline =
    g_get_monotonic_time () + UPLOAD_WAIT_TIMEOUT * G_USEC_PER_SEC;
  guint clean_checks = 0;

  if (op->bind->read_only)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }

  /* A command's close reaches rclone after the command has exited: the
   * cache must stay clean for a moment before it counts as clean. */
  while (clean_checks < 5)
    {
      if (!has_dirty_files (meta))
        {
          clean_checks++;
          g_usleep (100 * 1000);
          continue;
        }
      clean_checks = 0;
      if (g_get_monotonic_time () > deadline ||
          g_cancellable_is_cancelled (cancellable))
        {
          g_task_return_new_error (
            task, AGENTS_SANDBOX_ERROR, AGENTS_SANDBOX_ERROR_MOUNT_FAILED,
            _ ("failed to unmount %s: files written to it are not uploaded "
               "yet"),
            op->bind->sandbox_path);
          return;
        }
      g_usleep (100 * 1000);
    }
  g_task_return_boolean (task, TRUE);
}

static void
uploads_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  HostUnmountOp *op = g_task_get_task_data (task);
  const char *argv[] = { "sh", "-c", unmount_script, "sh", op->bind->host_path,
                         NULL };
  g_auto (GStrv) envp = NULL;
  GCancellable *cancellable;
  GError *error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      g_task_return_error (task, error);
      return;
    }
  envp = g_environ_setenv (NULL, "PATH",
                           g_getenv ("PATH") ? g_getenv ("PATH")
                                             : "/usr/local/bin:/usr/bin:/bin",
                           TRUE);
  cancellable = g_task_get_cancellable (task);
  host_command_async (argv, envp, cancellable, unmounted_cb,
                      g_steal_pointer (&task));
}

void
s3mount_host_unmount (AgentsS3Mount *mount,
                      AgentsSandboxSession *session,
                      const AgentsHostBind *bind,
                      GTask *task)
{
  HostUnmountOp *op = g_new0 (HostUnmountOp, 1);
  g_autoptr (GTask) wait = NULL;

  op->mount = g_object_ref (mount);
  op->session = g_object_ref (session);
  op->bind = agents_host_bind_copy (bind);
  g_task_set_task_data (task, op, (GDestroyNotify) host_unmount_op_free);

  wait = g_task_new (NULL, g_task_get_cancellable (task), uploads_done_cb,
                     g_object_ref (task));
  g_task_set_task_data (wait, op, NULL);
  g_task_run_in_thread (wait, wait_for_uploads_thread);
}
