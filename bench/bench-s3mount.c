/* bench-s3mount.c - reading an object through an s3_mount vs `rclone cat`
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Against the S3 server of scripts/s3-service.sh (endpoint file in
 * $AGENTS_TEST_S3_ENDPOINT_FILE, default build/s3/endpoint): uploads one
 * object of --mb MB, then for each of --reps rounds, interleaved:
 *
 *   setup   a session created and started (the rclone mount, its probe
 *           and how the sandbox is given the mount included)
 *   mount   `cat data/big.bin >/dev/null` run in that session, cold
 *   cat     `rclone cat remote:bucket/big.bin >/dev/null` on the host,
 *           same remote settings (env), same server
 *
 * and prints the medians as one JSON line. --tool picks the pattern:
 *
 *   default              rclone's pattern as it comes: a read-only host
 *                        mount is s3fs's when s3fs is installed
 *   rclone               rclone's pattern with vfs_cache_mode "off" (its
 *                        default for a read-only mount), which keeps rclone
 *   s3fs                 the s3fs pattern
 *
 * --backend picks the session:
 *
 *   unix_local           in_container strategy: rclone on the host, bound
 *                        into bubblewrap (the default)
 *   docker-in-container  in_container strategy on docker: the tool inside
 *                        the container (image libagents-test:fuse, the
 *                        host's network); with --tool default a read-only
 *                        mount is s3fs's when the image has s3fs
 *   docker-volume        docker_volume strategy: rclone on the host, a
 *                        local volume of the container (libagents-test:busybox)
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "agents-docker-client.h"
#include "agents-s3-mount.h"
#include "agents-unix-local-client.h"

static GMainLoop *loop;

static void
done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
  g_main_loop_quit (loop);
}

static GAsyncResult *
wait_result (GAsyncResult **result)
{
  while (*result == NULL)
    g_main_loop_run (loop);
  return *result;
}

static void
run_host (const char *const *argv, char **envp)
{
  g_autoptr (GError) error = NULL;
  int status = 0;

  if (!g_spawn_sync (NULL, (char **) argv, envp,
                     G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
                     NULL, NULL, NULL, &status, &error) ||
      !g_spawn_check_wait_status (status, &error))
    g_error ("%s: %s", argv[0], error->message);
}

static int
compare_doubles (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

static double
median (GArray *values)
{
  g_array_sort (values, compare_doubles);
  return g_array_index (values, double, values->len / 2);
}

static AgentsMountStrategy *
bench_strategy (const char *backend, const char *tool)
{
  g_autoptr (AgentsMountPattern) pattern = NULL;

  if (g_str_equal (tool, "s3fs"))
    pattern = agents_s3fs_mount_pattern_new ();
  else
    pattern = agents_rclone_mount_pattern_new ();
  if (g_str_equal (tool, "rclone"))
    agents_rclone_mount_pattern_set_vfs_cache_mode (
      AGENTS_RCLONE_MOUNT_PATTERN (pattern), "off");
  else if (!g_str_equal (tool, "default") && !g_str_equal (tool, "s3fs"))
    g_error ("unknown tool %s (default, rclone, s3fs)", tool);
  if (!g_str_equal (backend, "docker-volume"))
    return agents_in_container_mount_strategy_new (pattern);
  if (!g_str_equal (tool, "default"))
    g_error ("--backend docker-volume takes only --tool default");
  return agents_docker_volume_mount_strategy_new ("rclone");
}

static AgentsManifest *
bucket_manifest (const char *bucket,
                 const char *endpoint,
                 const char *backend,
                 const char *tool)
{
  g_autoptr (AgentsMountStrategy) strategy = bench_strategy (backend, tool);
  g_autoptr (AgentsManifestEntry) entry =
    agents_s3_mount_new (bucket, strategy);
  AgentsManifest *manifest = agents_manifest_new ();

  agents_s3_mount_set_endpoint_url (AGENTS_S3_MOUNT (entry), endpoint);
  agents_s3_mount_set_access_key_id (AGENTS_S3_MOUNT (entry), "S3RVER");
  agents_s3_mount_set_secret_access_key (AGENTS_S3_MOUNT (entry), "S3RVER");
  agents_manifest_set_entry (manifest, "data", entry);
  agents_manifest_acknowledge_mount_credential_exposure (
    manifest, (const char *const[]){ "data", NULL });
  return manifest;
}

static AgentsSandboxClient *
backend_client (const char *backend, GVariant **options)
{
  *options = NULL;
  if (g_str_equal (backend, "unix_local"))
    return agents_unix_local_client_new ();
  if (g_str_equal (backend, "docker-in-container"))
    *options = g_variant_ref_sink (g_variant_new_parsed (
      "{'image': <'libagents-test:fuse'>, 'network': <'host'>, "
      "'allow_host_network': <true>}"));
  else if (g_str_equal (backend, "docker-volume"))
    *options = g_variant_ref_sink (
      g_variant_new_parsed ("{'image': <'libagents-test:busybox'>}"));
  else
    g_error ("unknown backend %s (unix_local, docker-in-container, "
             "docker-volume)",
             backend);
  return agents_docker_client_new ();
}

/* One round: returns setup and read seconds through the mount. */
static void
mount_round (AgentsManifest *manifest,
             const char *backend,
             double *setup,
             double *read)
{
  g_autoptr (GVariant) options = NULL;
  g_autoptr (AgentsSandboxClient) client = backend_client (backend, &options);
  g_autoptr (AgentsSandboxSession) session = NULL;
  g_autoptr (AgentsExecResult) exec_result = NULL;
  g_autoptr (GAsyncResult) r1 = NULL, r2 = NULL, r3 = NULL, r4 = NULL;
  g_autoptr (GError) error = NULL;
  const char *command[] = { "cat data/big.bin >/dev/null", NULL };
  gint64 t0 = g_get_monotonic_time ();

  agents_sandbox_client_create_async (client, manifest, options, NULL, NULL,
                                      done_cb, &r1);
  session =
    agents_sandbox_client_create_finish (client, wait_result (&r1), &error);
  if (session == NULL)
    g_error ("create: %s", error->message);
  agents_sandbox_session_start_async (session, NULL, done_cb, &r2);
  if (!agents_sandbox_session_start_finish (session, wait_result (&r2), &error))
    g_error ("start: %s", error->message);
  *setup = (g_get_monotonic_time () - t0) / 1e6;

  t0 = g_get_monotonic_time ();
  agents_sandbox_session_exec_async (session, command, 600, TRUE, NULL, NULL,
                                     done_cb, &r3);
  exec_result =
    agents_sandbox_session_exec_finish (session, wait_result (&r3), &error);
  if (exec_result == NULL || agents_exec_result_get_exit_code (exec_result))
    g_error ("cat through the mount failed");
  *read = (g_get_monotonic_time () - t0) / 1e6;

  agents_sandbox_client_delete_async (client, session, NULL, done_cb, &r4);
  if (!agents_sandbox_client_delete_finish (client, wait_result (&r4), &error))
    g_error ("delete: %s", error->message);
}

int
main (int argc, char *argv[])
{
  const char *file = g_getenv ("AGENTS_TEST_S3_ENDPOINT_FILE");
  int mb = 100, reps = 3;
  g_autofree char *backend = NULL;
  g_autofree char *tool = NULL;
  GOptionEntry entries[] = {
    { "mb", 0, 0, G_OPTION_ARG_INT, &mb, "object size in MB", "N" },
    { "reps", 0, 0, G_OPTION_ARG_INT, &reps, "rounds", "N" },
    { "backend", 0, 0, G_OPTION_ARG_STRING, &backend,
      "unix_local, docker-in-container or docker-volume", "NAME" },
    { "tool", 0, 0, G_OPTION_ARG_STRING, &tool,
      "default, rclone (kept by vfs_cache_mode off) or s3fs", "NAME" },
    { NULL },
  };
  g_autoptr (GOptionContext) context = g_option_context_new (NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *endpoint = NULL;
  g_autofree char *bucket = NULL;
  g_autofree char *tmp = NULL;
  g_autofree char *object_path = NULL;
  g_autofree char *bucket_url = NULL;
  g_autofree char *object_url = NULL;
  g_autofree char *remote = NULL;
  g_autofree char *upload = NULL;
  g_autoptr (AgentsManifest) manifest = NULL;
  g_autoptr (GArray) setups = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) reads = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) cats = g_array_new (FALSE, FALSE, sizeof (double));
  char **envp = NULL;

  g_setenv ("AGENTS_DISABLE_PLUGINS", "1", TRUE);
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    g_error ("%s", error->message);
  if (!g_file_get_contents (file ? file : "build/s3/endpoint", &endpoint, NULL,
                            &error))
    g_error ("no S3 server (scripts/s3-service.sh start): %s", error->message);
  g_strstrip (endpoint);
  if (backend == NULL)
    backend = g_strdup ("unix_local");
  if (tool == NULL)
    tool = g_strdup ("default");
  agents_unix_local_register_types ();
  agents_docker_register_types ();
  agents_s3mount_register_types ();
  loop = g_main_loop_new (NULL, FALSE);

  /* The object, uploaded once. */
  bucket = g_strdup_printf ("bench-%d", (int) getpid ());
  tmp = g_dir_make_tmp ("bench-s3mount-XXXXXX", &error);
  g_assert_no_error (error);
  object_path = g_build_filename (tmp, "big.bin", NULL);
  {
    g_autofree char *count = g_strdup_printf ("count=%d", mb);
    g_autofree char *of = g_strconcat ("of=", object_path, NULL);
    const char *dd[] = { "dd",  "if=/dev/urandom", of,  "bs=1M",
                         count, "status=none",     NULL };

    run_host (dd, NULL);
  }
  bucket_url = g_strdup_printf ("%s/%s", endpoint, bucket);
  object_url = g_strdup_printf ("%s/big.bin", bucket_url);
  upload = g_strconcat ("@", object_path, NULL);
  {
    const char *mk[] = { "curl", "-sf", "-X", "PUT", bucket_url, NULL };
    const char *put[] = { "curl",          "-sf",  "-X",       "PUT",
                          "--data-binary", upload, object_url, NULL };

    run_host (mk, NULL);
    run_host (put, NULL);
  }
  g_unlink (object_path);
  g_rmdir (tmp);

  /* rclone cat with the same remote the mount uses. */
  envp = g_environ_setenv (NULL, "PATH", g_getenv ("PATH"), TRUE);
  envp = g_environ_setenv (envp, "HOME", g_get_tmp_dir (), TRUE);
  envp = g_environ_setenv (envp, "RCLONE_CONFIG_S3MOUNT_TYPE", "s3", TRUE);
  envp =
    g_environ_setenv (envp, "RCLONE_CONFIG_S3MOUNT_PROVIDER", "Other", TRUE);
  envp =
    g_environ_setenv (envp, "RCLONE_CONFIG_S3MOUNT_ENV_AUTH", "false", TRUE);
  envp = g_environ_setenv (envp, "RCLONE_CONFIG_S3MOUNT_ACCESS_KEY_ID",
                           "S3RVER", TRUE);
  envp = g_environ_setenv (envp, "RCLONE_CONFIG_S3MOUNT_SECRET_ACCESS_KEY",
                           "S3RVER", TRUE);
  envp =
    g_environ_setenv (envp, "RCLONE_CONFIG_S3MOUNT_ENDPOINT", endpoint, TRUE);
  remote = g_strdup_printf ("s3mount:%s/big.bin", bucket);
  manifest = bucket_manifest (bucket, endpoint, backend, tool);

  for (int i = 0; i < reps; i++)
    {
      const char *cat[] = { "rclone", "--config=/dev/null", "cat", remote,
                            NULL };
      double setup, read, cat_s;
      gint64 t0;

      mount_round (manifest, backend, &setup, &read);
      t0 = g_get_monotonic_time ();
      run_host (cat, envp);
      cat_s = (g_get_monotonic_time () - t0) / 1e6;
      g_array_append_val (setups, setup);
      g_array_append_val (reads, read);
      g_array_append_val (cats, cat_s);
      g_printerr ("round %d: setup %.3f s, read through mount %.3f s, "
                  "rclone cat %.3f s\n",
                  i + 1, setup, read, cat_s);
    }

  printf ("{\"bench\":\"s3mount\",\"backend\":\"%s\",\"tool\":\"%s\","
          "\"mb\":%d,\"reps\":%d,\"setup_s\":%.3f,\"mount_read_s\":%.3f,"
          "\"rclone_cat_s\":%.3f,\"ratio\":%.2f}\n",
          backend, tool, mb, reps, median (setups), median (reads),
          median (cats), median (reads) / median (cats));
  g_strfreev (envp);
  return 0;
}
