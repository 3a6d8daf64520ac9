/* s3mount-sandbox.c - mounting a bucket with a FUSE tool inside the sandbox
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The reference's in-container strategy on a backend whose sandbox is a
 * machine of its own (docker: a container given /dev/fuse and SYS_ADMIN
 * for that purpose). Everything runs through the session's exec, as
 * root, in three steps:
 *
 *   1. `prepare`: the mount point, and an empty 0700 directory
 *      <workspace>/.sandbox-s3mount/<id>/ for the credentials; for a
 *      read-only mount s3fs may make, whether the container has s3fs;
 *   2. the session writes the credentials there (`env`, `export` lines);
 *   3. `mount`: sh makes the file 0600, sources it and removes the
 *      directory, then runs the tool (after an `rclone lsjson --stat`
 *      probe that turns a bad endpoint, bucket or key into an error now)
 *      and checks that the mount is there and answers.
 *
 * The tool is the pattern's, except that a read-only mount whose pattern
 * is rclone's without settings of rclone's own is made by s3fs when the
 * container has it, as on the host (s3mount-read-tool.c): rclone's FUSE
 * mount reads a large object at about 1.8 times `rclone cat`, s3fs at
 * about the same cost.
 *
 * Secrets are never on a command line and never in a file once the tool
 * runs; what the tool says on failure is redacted. The tool's cache is
 * in /tmp/.agents-s3mount/<id>/, outside the workspace.
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "agents-sandbox-error-private.h"
#include "s3mount-host-private.h"

/* Seconds each step may take. */
#define STEP_TIMEOUT 90.0

/* Seconds the unmount waits for written files to reach the bucket (the
 * script counts tenths). */
#define UPLOAD_WAIT_TENTHS "3000"

#define ENV_PARENT ".sandbox-s3mount"
#define CACHE_PARENT "/tmp/.agents-s3mount"

/* `mounted PATH`: mountpoint(1) where there is one (BusyBox may lack
 * it), else the mount table (/proc/self/mountinfo, field 5, spaces
 * escaped as \040). Exit 0 mounted, 1 or 32 not, anything else: it
 * could not tell. */
#define MOUNTED_FUNCTION                                                  \
  "mounted () {\n"                                                        \
  "  if command -v mountpoint >/dev/null 2>&1; then\n"                    \
  "    mountpoint -q \"$1\"; return\n"                                    \
  "  fi\n"                                                                \
  "  awk -v p=\"$1\" '{ gsub(/\\\\040/, \" \", $5); if ($5 == p) f = 1 }" \
  " END { exit !f }' /proc/self/mountinfo\n"                              \
  "}\n"

/* sh -c PREPARE sh DEST ENV_DIR [ASK_S3FS]: prints `mounted` when DEST
 * is mounted already (a container that kept running), `created` when it
 * made DEST, and `s3fs` when asked and s3fs is there. */
static const char prepare_script[] =
  MOUNTED_FUNCTION "if mounted \"$1\"; then echo mounted; exit 0; fi\n"
                   "[ -e \"$1\" ] || echo created\n"
                   "if [ -n \"${3-}\" ] && command -v s3fs >/dev/null 2>&1;"
                   " then\n"
                   "  echo s3fs\n"
                   "fi\n"
                   "mkdir -p \"$1\" || exit\n"
                   "umask 077\n"
                   "rm -rf \"$2\" && mkdir -p \"$2\"\n";

/* sh -c MOUNT ENV_FILE TOOL ARGS…: the credentials reach the tool through
 * its environment only. The mount must answer once made (a stat waits
 * for the tool's start): s3fs checks the bucket after it has returned,
 * and unmounts itself when the check fails. */
static const char mount_script[] = MOUNTED_FUNCTION
  "d=${0%/*}\n"
  "chmod 600 \"$0\" && . \"$0\"; s=$?\n"
  "rm -rf \"$d\"; rmdir \"${d%/*}\" 2>/dev/null\n"
  "[ \"$s\" -eq 0 ] || exit \"$s\"\n"
  "if [ -n \"${AGENTS_S3MOUNT_PROBE-}\" ]; then\n"
  "  rclone lsjson --stat --config=/dev/null --low-level-retries=1"
  " --retries=1 --contimeout=10s --timeout=30s -- \"$AGENTS_S3MOUNT_PROBE\""
  " >/dev/null || exit\n"
  "fi\n"
  "p=$AGENTS_S3MOUNT_POINT\n"
  "unset AGENTS_S3MOUNT_PROBE AGENTS_S3MOUNT_POINT\n"
  "\"$@\" </dev/null >/dev/null || exit\n"
  "test -d \"$p\" && mounted \"$p\" && exit 0\n"
  "echo 'the mount command exited but nothing is mounted' >&2\n"
  "exit 1\n";

/* sh -c CLEANUP sh DEST ENV_DIR CACHE CREATED: after a failed mount. */
static const char cleanup_script[] = MOUNTED_FUNCTION
  "rm -rf \"$2\"; rmdir \"${2%/*}\" 2>/dev/null\n"
  "if mounted \"$1\"; then\n"
  "  fusermount -u \"$1\" 2>/dev/null || fusermount3 -u \"$1\" 2>/dev/null ||"
  " umount \"$1\"\n"
  "fi\n"
  "mounted \"$1\" && exit 1\n"
  "rm -rf \"$3\"\n"
  "[ \"$4\" = created ] && rmdir \"$1\"\n"
  "exit 0\n";

/* sh -c UNMOUNT sh DEST HELPER_DIR VFS_META: as the host's unmount
 * script, after waiting until rclone's VFS cache metadata (VFS_META)
 * has no file left to upload; rclone drops pending uploads when it is
 * unmounted. */
static const char unmount_script[] = MOUNTED_FUNCTION
  "mounted \"$1\"\n"
  "case $? in\n"
  "  0) ;;\n"
  "  1|32) rm -rf \"$2\"; exit 0 ;;\n"
  "  *) printf 'cannot tell whether %s is a mount point\\n' \"$1\" >&2;"
  " exit 1 ;;\n"
  "esac\n"
  "n=0; clean=0\n"
  "while [ \"$clean\" -lt 5 ]; do\n"
  "  if [ -d \"$3\" ] && grep -rqs '\"Dirty\": true' \"$3\"; then\n"
  "    clean=0; n=$((n + 1))\n"
  "    if [ \"$n\" -gt " UPLOAD_WAIT_TENTHS " ]; then\n"
  "      echo 'files written to it are not uploaded yet' >&2; exit 1\n"
  "    fi\n"
  "  else\n"
  "    clean=$((clean + 1))\n"
  "  fi\n"
  "  sleep 0.1\n"
  "done\n"
  "fusermount -u \"$1\" 2>/dev/null || fusermount3 -u \"$1\" 2>/dev/null ||"
  " umount \"$1\" || exit\n"
  "rm -rf \"$2\"\n";

/* A name for @dest's helper directories. */
static char *
helper_id (const char *dest)
{
  char *digest = g_compute_checksum_for_string (G_CHECKSUM_SHA256, dest, -1);

  digest[16] = '\0';
  return digest;
}

static char *
cache_dir_for (const char *dest)
{
  g_autofree char *id = helper_id (dest);

  return g_build_filename (CACHE_PARENT, id, NULL);
}

/* ---- mount ------------------------------------------------------------ */

typedef struct
{
  AgentsS3Mount *mount;
  AgentsMountPattern *pattern;
  AgentsMountPattern *tool; /* the pattern, or s3fs's in its place */
  AgentsSandboxSession *session;
  char *dest;
  char *env_dir;
  char *cache_dir;
  gboolean created; /* the mount point */
} SandboxMountOp;

static void
sandbox_mount_op_free (SandboxMountOp *op)
{
  g_clear_object (&op->mount);
  g_clear_object (&op->pattern);
  g_clear_object (&op->tool);
  g_clear_object (&op->session);
  g_free (op->dest);
  g_free (op->env_dir);
  g_free (op->cache_dir);
  g_free (op);
}

static void
run_script (SandboxMountOp *op,
            GTask *task,
            const char *script,
            const char *const *args,
            GAsyncReadyCallback callback)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();

  g_ptr_array_add (argv, (char *) "sh");
  g_ptr_array_add (argv, (char *) "-c");
  g_ptr_array_add (argv, (char *) script);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  agents_sandbox_session_exec_async (
    op->session, (const char *const *) argv->pdata, STEP_TIMEOUT, FALSE, NULL,
    g_task_get_cancellable (task), callback, g_object_ref (task));
}

/* The step's stdout, or NULL with *@detail set to why it failed. */
static char *
step_finish (SandboxMountOp *op, GAsyncResult *result, char **detail)
{
  g_autoptr (AgentsExecResult) exec_result = NULL;
  g_autoptr (GError) error = NULL;

  exec_result =
    agents_sandbox_session_exec_finish (op->session, result, &error);
  if (exec_result == NULL)
    {
      *detail = g_strdup (error->message);
      return NULL;
    }
  if (agents_exec_result_get_exit_code (exec_result) != 0)
    {
      g_autofree char *err = agents_exec_result_dup_stderr_text (exec_result);

      *detail = g_strdup (err && *g_strstrip (err) != '\0'
                            ? err
                            : _ ("the mount command failed"));
      return NULL;
    }
  return agents_exec_result_dup_stdout_text (exec_result);
}

static void
fail_with (GTask *task, const char *detail)
{
  SandboxMountOp *op = g_task_get_task_data (task);
  g_autofree char *redacted = s3mount_redact (op->mount, detail);
  const char *endpoint = agents_s3_mount_get_endpoint_url (op->mount);

  g_strstrip (redacted);
  g_task_return_error (task,
                       agents_sandbox_error_new (
                         AGENTS_SANDBOX_ERROR_MOUNT_FAILED,
                         s3mount_error_context (op->mount, op->dest, redacted),
                         _ ("failed to mount s3://%s (endpoint %s) at %s: %s"),
                         agents_s3_mount_get_bucket (op->mount),
                         endpoint ? endpoint : "default", op->dest, redacted));
}

static void
cleaned_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  g_autoptr (AgentsExecResult) exec_result = NULL;
  const char *detail = g_object_get_data (G_OBJECT (task), "detail");

  /* The mount's error is the one to report; a cleanup that failed is
   * logged. */
  exec_result = agents_sandbox_session_exec_finish (
    AGENTS_SANDBOX_SESSION (source), result, NULL);
  if (exec_result == NULL || agents_exec_result_get_exit_code (exec_result))
    g_warning ("Could not clean up after a failed mount in the sandbox");
  fail_with (task, detail);
}

/* Takes away whatever the failed mount left (the credentials' directory,
 * a mount, the cache, the mount point it made), then fails. */
static void
fail_mount (GTask *task, char *detail)
{
  SandboxMountOp *op = g_task_get_task_data (task);
  const char *args[] = { "sh",
                         op->dest,
                         op->env_dir,
                         op->cache_dir,
                         op->created ? "created" : "kept",
                         NULL };

  g_object_set_data_full (G_OBJECT (task), "detail", detail, g_free);
  run_script (op, task, cleanup_script, args, cleaned_cb);
}

static void
mounted_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  SandboxMountOp *op = g_task_get_task_data (task);
  g_autofree char *out = NULL;
  char *detail = NULL;

  out = step_finish (op, result, &detail);
  if (out == NULL)
    {
      fail_mount (task, detail);
      return;
    }
  g_task_return_boolean (task, TRUE);
}

/* The pattern's mount command, at @op's mount point, or its tool's. */
static char **
op_tool_argv (SandboxMountOp *op, AgentsMountPattern *pattern, GError **error)
{
  g_autofree char *cache = g_build_filename (op->cache_dir, "cache", NULL);

  return s3mount_tool_argv (op->mount, pattern, op->dest, "/dev/null", cache,
                            TRUE, error);
}

/* The tool's environment: the pattern's (credentials, endpoint; for
 * rclone's probe when s3fs mounts), the tool's, and the probe's remote
 * (the remote of rclone's mount command) and the mount point for the
 * script. */
static char **
tool_environ (SandboxMountOp *op, GError **error)
{
  char **envp = agents_mount_pattern_build_environ (op->pattern, op->mount);
  g_auto (GStrv) rclone = NULL;

  if (op->tool != op->pattern)
    envp = s3mount_merge_environ (
      envp, agents_mount_pattern_build_environ (op->tool, op->mount));
  envp = g_environ_setenv (envp, "AGENTS_S3MOUNT_POINT", op->dest, TRUE);
  if (!AGENTS_IS_RCLONE_MOUNT_PATTERN (op->pattern))
    return envp;
  rclone = op_tool_argv (op, op->pattern, error);
  if (rclone == NULL)
    {
      g_strfreev (envp);
      return NULL;
    }
  for (guint i = 0; rclone[i] != NULL; i++)
    if (g_str_equal (rclone[i], "--") && rclone[i + 1] != NULL)
      envp =
        g_environ_setenv (envp, "AGENTS_S3MOUNT_PROBE", rclone[i + 1], TRUE);
  return envp;
}

static void
start_tool (GTask *task)
{
  SandboxMountOp *op = g_task_get_task_data (task);
  g_autofree char *env_file = g_build_filename (op->env_dir, "env", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  g_auto (GStrv) tool = NULL;

  tool = op_tool_argv (op, op->tool, &error);
  if (tool == NULL)
    {
      fail_mount (task, g_strdup (error->message));
      return;
    }
  g_ptr_array_add (args, env_file);
  for (guint i = 0; tool[i] != NULL; i++)
    g_ptr_array_add (args, tool[i]);
  g_ptr_array_add (args, NULL);
  run_script (op, task, mount_script, (const char *const *) args->pdata,
              mounted_cb);
}

static void
env_written_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  g_autoptr (GError) error = NULL;

  if (!agents_sandbox_session_write_bytes_finish (
        AGENTS_SANDBOX_SESSION (source), result, &error))
    {
      fail_mount (task, g_strdup (error->message));
      return;
    }
  start_tool (task);
}

static void
write_env (GTask *task)
{
  SandboxMountOp *op = g_task_get_task_data (task);
  g_autofree char *env_file = g_build_filename (op->env_dir, "env", NULL);
  g_auto (GStrv) envp = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = NULL;
  char *text;

  envp = tool_environ (op, &error);
  if (envp == NULL)
    {
      fail_mount (task, g_strdup (error->message));
      return;
    }
  text = s3mount_env_file_text (envp);
  bytes = g_bytes_new_take (text, strlen (text));
  agents_sandbox_session_write_bytes_async (
    op->session, env_file, bytes, NULL, g_task_get_cancellable (task),
    env_written_cb, g_object_ref (task));
}

static void
prepared_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  SandboxMountOp *op = g_task_get_task_data (task);
  g_autofree char *out = NULL;
  char *detail = NULL;

  out = step_finish (op, result, &detail);
  if (out == NULL)
    {
      fail_mount (task, detail);
      return;
    }
  /* Still mounted (a resumed session whose container kept running). */
  if (strstr (out, "mounted") != NULL)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  op->created = strstr (out, "created") != NULL;
  if (strstr (out, "s3fs") != NULL)
    op->tool = agents_s3fs_mount_pattern_new ();
  else
    op->tool = g_object_ref (op->pattern);
  write_env (task);
}

void
s3mount_sandbox_mount (AgentsS3Mount *mount,
                       AgentsMountPattern *pattern,
                       AgentsSandboxSession *session,
                       const char *dest,
                       GTask *task)
{
  SandboxMountOp *op = g_new0 (SandboxMountOp, 1);
  AgentsManifest *manifest = agents_sandbox_session_get_manifest (session);
  g_autofree char *id = helper_id (dest);
  const char *args[] = { "sh", NULL, NULL, NULL, NULL };

  op->mount = g_object_ref (mount);
  op->pattern = g_object_ref (pattern);
  op->session = g_object_ref (session);
  op->dest = g_strdup (dest);
  op->env_dir = g_build_filename (agents_manifest_get_root (manifest),
                                  ENV_PARENT, id, NULL);
  op->cache_dir = cache_dir_for (dest);
  g_task_set_task_data (task, op, (GDestroyNotify) sandbox_mount_op_free);

  args[1] = op->dest;
  args[2] = op->env_dir;
  /* A read-only mount s3fs may make: ask whether the container has it. */
  if (s3mount_read_only_may_use_s3fs (mount, pattern))
    args[3] = "ask-s3fs";
  run_script (op, task, prepare_script, args, prepared_cb);
}

/* ---- unmount ---------------------------------------------------------- */

static void
unmounted_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  AgentsS3Mount *mount = g_task_get_source_object (task);
  const char *dest = g_task_get_task_data (task);
  g_autoptr (AgentsExecResult) exec_result = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *detail = NULL;
  g_autofree char *redacted = NULL;

  exec_result = agents_sandbox_session_exec_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  if (exec_result == NULL &&
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (exec_result != NULL &&
      agents_exec_result_get_exit_code (exec_result) == 0)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  detail = exec_result ? agents_exec_result_dup_stderr_text (exec_result)
                       : g_strdup (error->message);
  redacted = s3mount_redact (mount, detail);
  g_strstrip (redacted);
  g_task_return_error (task, agents_sandbox_error_new (
                               AGENTS_SANDBOX_ERROR_MOUNT_FAILED,
                               s3mount_error_context (mount, dest, redacted),
                               _ ("failed to unmount %s: %s"), dest, redacted));
}

void
s3mount_sandbox_unmount (AgentsS3Mount *mount,
                         AgentsSandboxSession *session,
                         const char *dest,
                         GTask *task)
{
  g_autofree char *helper = cache_dir_for (dest);
  g_autoptr (AgentsMountPattern) pattern =
    s3mount_strategy_dup_pattern (agents_s3_mount_get_mount_strategy (mount));
  const char *cache_dir =
    pattern ? agents_mount_pattern_get_cache_dir (pattern) : NULL;
  g_autofree char *meta =
    cache_dir ? g_build_filename (cache_dir, "vfsMeta", NULL)
              : g_build_filename (helper, "cache", "vfsMeta", NULL);
  const char *argv[] = { "sh", "-c",   unmount_script, "sh",
                         dest, helper, meta,           NULL };

  g_task_set_task_data (task, g_strdup (dest), g_free);
  agents_sandbox_session_exec_async (session, argv, STEP_TIMEOUT * 4, FALSE,
                                     NULL, g_task_get_cancellable (task),
                                     unmounted_cb, g_object_ref (task));
}
