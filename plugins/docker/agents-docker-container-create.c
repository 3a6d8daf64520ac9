/* agents-docker-container-create.c - making, finding and reaping containers
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "agents-docker-container-private.h"
#include "agents-docker-host-mounts.h"

/* The command a container idles with until it is removed: it ends on
 * SIGTERM at once, so stopping takes no grace period. */
#define IDLE_SCRIPT \
  "trap 'exit 0' TERM INT; while :; do sleep 3600 & wait $!; done"

/* ---- create --------------------------------------------------------- */

static void
add_env (JsonBuilder *builder, AgentsManifest *manifest)
{
  g_auto (GStrv) names = agents_manifest_get_env_names (manifest);

  json_builder_set_member_name (builder, "Env");
  json_builder_begin_array (builder);
  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    {
      const char *text = agents_manifest_get_env (manifest, names[i]);
      g_autofree char *pair = NULL;

      /* A typed value that needs resolving has no text here: unset. */
      if (text == NULL)
        continue;
      pair = g_strdup_printf ("%s=%s", names[i], text);
      json_builder_add_string_value (builder, pair);
    }
  json_builder_end_array (builder);
}

static char *config_digest (AgentsDockerSessionState *state);

static void
add_labels (JsonBuilder *builder, AgentsDockerSessionState *state)
{
  GHashTable *labels = agents_docker_session_state_get_labels (state);
  g_autofree char *owner = agents_docker_owner_label ();
  g_autofree char *digest = config_digest (state);
  GHashTableIter iter;
  gpointer key, value;

  json_builder_set_member_name (builder, "Labels");
  json_builder_begin_object (builder);
  g_hash_table_iter_init (&iter, labels);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      json_builder_set_member_name (builder, key);
      json_builder_add_string_value (builder, value);
    }
  json_builder_set_member_name (builder, AGENTS_DOCKER_LABEL_MANAGED);
  json_builder_add_string_value (builder, "true");
  json_builder_set_member_name (builder, AGENTS_DOCKER_LABEL_SESSION);
  json_builder_add_string_value (builder,
                                 agents_sandbox_session_state_get_session_id (
                                   AGENTS_SANDBOX_SESSION_STATE (state)));
  json_builder_set_member_name (builder, AGENTS_DOCKER_LABEL_OWNER);
  json_builder_add_string_value (builder, owner);
  json_builder_set_member_name (builder, AGENTS_DOCKER_LABEL_CONFIG);
  json_builder_add_string_value (builder, digest);
  json_builder_end_object (builder);
}

static void
add_ports (JsonBuilder *builder, GArray *ports, gboolean bindings)
{
  json_builder_set_member_name (builder,
                                bindings ? "PortBindings" : "ExposedPorts");
  json_builder_begin_object (builder);
  for (guint i = 0; i < ports->len; i++)
    {
      g_autofree char *key =
        g_strdup_printf ("%d/tcp", g_array_index (ports, int, i));

      json_builder_set_member_name (builder, key);
      if (!bindings)
        {
          json_builder_begin_object (builder);
          json_builder_end_object (builder);
          continue;
        }
      /* Published on the loopback interface only, on a free port. */
      json_builder_begin_array (builder);
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "HostIp");
      json_builder_add_string_value (builder, "127.0.0.1");
      json_builder_set_member_name (builder, "HostPort");
      json_builder_add_string_value (builder, "");
      json_builder_end_object (builder);
      json_builder_end_array (builder);
    }
  json_builder_end_object (builder);
}

static void
add_int_member (JsonBuilder *builder, const char *name, gint64 value)
{
  if (value <= 0)
    return;
  json_builder_set_member_name (builder, name);
  json_builder_add_int_value (builder, value);
}

/* What a container keeps of Docker's default capabilities; the rest
 * (NET_RAW, MKNOD, SETUID, SETGID, SETPCAP, SETFCAP, FSETID,
 * NET_BIND_SERVICE, SYS_CHROOT, AUDIT_WRITE) is dropped. Commands run
 * as the image's user (root, usually) or a manifest user, whom the
 * engine switches to itself: no SETUID/SETGID is needed for that. */
static const char *const kept_capabilities[] = {
  "CHOWN",        /* chown, tar keeping owners, useradd's files */
  "DAC_OVERRIDE", /* root reaches the files of the manifest's users */
  "FOWNER",       /* chmod and utimes on files root does not own */
  "KILL",         /* the kill script ends a manifest user's command */
  NULL,
};

static void
add_strings (JsonBuilder *builder, const char *name, const char *const *strings)
{
  json_builder_set_member_name (builder, name);
  json_builder_begin_array (builder);
  for (guint i = 0; strings[i] != NULL; i++)
    json_builder_add_string_value (builder, strings[i]);
  json_builder_end_array (builder);
}

/* A FUSE tool inside the container (an in_container s3_mount) needs the
 * FUSE device and SYS_ADMIN to mount, and, where the engine's host
 * confines containers with AppArmor, a profile that allows mount (the
 * engine ignores the option elsewhere): that container only. */
static void
add_fuse (JsonBuilder *builder)
{
  json_builder_set_member_name (builder, "Devices");
  json_builder_begin_array (builder);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "PathOnHost");
  json_builder_add_string_value (builder, "/dev/fuse");
  json_builder_set_member_name (builder, "PathInContainer");
  json_builder_add_string_value (builder, "/dev/fuse");
  json_builder_set_member_name (builder, "CgroupPermissions");
  json_builder_add_string_value (builder, "rwm");
  json_builder_end_object (builder);
  json_builder_end_array (builder);
}

static void
add_security (JsonBuilder *builder, gboolean fuse)
{
  const char *const drop[] = { "ALL", NULL };
  const char *const fuse_caps[] = { "SYS_ADMIN", NULL };
  const char *const fuse_security[] = { "apparmor:unconfined", NULL };
  const char *const no_new_privileges = "no-new-privileges:true";

  add_strings (builder, "CapDrop", drop);
  json_builder_set_member_name (builder, "CapAdd");
  json_builder_begin_array (builder);
  for (guint i = 0; kept_capabilities[i] != NULL; i++)
    json_builder_add_string_value (builder, kept_capabilities[i]);
  for (guint i = 0; fuse && fuse_caps[i] != NULL; i++)
    json_builder_add_string_value (builder, fuse_caps[i]);
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "SecurityOpt");
  json_builder_begin_array (builder);
  json_builder_add_string_value (builder, no_new_privileges);
  if (fuse)
    json_builder_add_string_value (builder, fuse_security[0]);
  json_builder_end_array (builder);
  if (fuse)
    add_fuse (builder);
}

/* A read-only root keeps two places writable: /tmp (a tmpfs, where the
 * exec server and the runtime helpers live, so not noexec) and the
 * workspace (an anonymous volume, which the engine's archive endpoint
 * can write and which goes with the container). */
static void
add_read_only_root (JsonBuilder *builder, AgentsDockerSessionState *state)
{
  AgentsManifest *manifest = agents_sandbox_session_state_get_manifest (
    AGENTS_SANDBOX_SESSION_STATE (state));

  json_builder_set_member_name (builder, "ReadonlyRootfs");
  json_builder_add_boolean_value (builder, TRUE);
  json_builder_set_member_name (builder, "Tmpfs");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "/tmp");
  json_builder_add_string_value (builder, "rw,exec,nosuid,nodev,mode=1777");
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "Mounts");
  json_builder_begin_array (builder);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "Type");
  json_builder_add_string_value (builder, "volume");
  json_builder_set_member_name (builder, "Target");
  json_builder_add_string_value (builder, agents_manifest_get_root (manifest));
  json_builder_end_object (builder);
  agents_docker_host_mounts_add_binds (builder, state);
  json_builder_end_array (builder);
}

/* Host-mounted entries (s3_mount), bound at their paths. */
static void
add_host_binds (JsonBuilder *builder, AgentsDockerSessionState *state)
{
  if (!agents_docker_host_mounts_any (state))
    return;
  json_builder_set_member_name (builder, "Mounts");
  json_builder_begin_array (builder);
  agents_docker_host_mounts_add_binds (builder, state);
  json_builder_end_array (builder);
}

static JsonNode *
host_config_node (AgentsDockerSessionState *state)
{
  const char *network = agents_docker_session_state_get_network_mode (state);
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  gint64 memory, cpus, pids;

  agents_docker_session_state_get_limits (state, &memory, &cpus, &pids);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "NetworkMode");
  json_builder_add_string_value (builder, network ? network : "none");
  /* An init reaps what commands leave behind and forwards signals. */
  json_builder_set_member_name (builder, "Init");
  json_builder_add_boolean_value (builder, TRUE);
  add_ports (builder, agents_docker_session_state_get_exposed_ports (state),
             TRUE);
  add_int_member (builder, "Memory", memory);
  add_int_member (builder, "NanoCpus", cpus);
  add_int_member (builder, "PidsLimit", pids);
  add_security (builder, agents_docker_host_mounts_need_fuse (state));
  if (agents_docker_session_state_get_read_only_root (state))
    add_read_only_root (builder, state);
  else
    add_host_binds (builder, state);
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

/* The digest of how a container runs (its image and host
 * configuration), kept in a label so that a container is reused only
 * when it still runs as the caller configured. */
static char *
config_digest (AgentsDockerSessionState *state)
{
  g_autoptr (JsonNode) host_config = host_config_node (state);
  g_autofree char *text = json_to_string (host_config, FALSE);
  g_autoptr (GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);

  g_checksum_update (
    checksum, (const guchar *) agents_docker_session_state_get_image (state),
    -1);
  g_checksum_update (checksum, (const guchar *) "\n", 1);
  g_checksum_update (checksum, (const guchar *) text, -1);
  return g_strdup (g_checksum_get_string (checksum));
}

static JsonNode *
create_body (AgentsDockerSessionState *state)
{
  AgentsManifest *manifest = agents_sandbox_session_state_get_manifest (
    AGENTS_SANDBOX_SESSION_STATE (state));
  const char *entrypoint[] = { "/bin/sh", "-c", IDLE_SCRIPT, NULL };
  g_autoptr (JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "Image");
  json_builder_add_string_value (builder,
                                 agents_docker_session_state_get_image (state));
  json_builder_set_member_name (builder, "Entrypoint");
  json_builder_add_value (builder, agents_docker_argv_node (entrypoint));
  json_builder_set_member_name (builder, "Cmd");
  json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "WorkingDir");
  json_builder_add_string_value (builder, agents_manifest_get_root (manifest));
  add_env (builder, manifest);
  add_labels (builder, state);
  add_ports (builder, agents_docker_session_state_get_exposed_ports (state),
             FALSE);
  json_builder_set_member_name (builder, "HostConfig");
  json_builder_add_value (builder, host_config_node (state));
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

static char *
container_name (AgentsDockerSessionState *state)
{
  const char *session_id = agents_sandbox_session_state_get_session_id (
    AGENTS_SANDBOX_SESSION_STATE (state));
  g_autofree char *prefix = g_strndup (session_id, 8);

  return g_strdup_printf ("agents-%s-%08x", prefix, g_random_int ());
}

static void
set_create_error (GError **error,
                  GError *engine_error,
                  AgentsDockerSessionState *state)
{
  const char *image = agents_docker_session_state_get_image (state);
  g_autoptr (GError) mapped = agents_docker_map_error (
    engine_error, AGENTS_SANDBOX_ERROR_WORKSPACE_START, NULL);
  g_autoptr (GVariant) context = agents_sandbox_error_get_context (mapped);
  GVariantDict dict;

  g_variant_dict_init (&dict, context);
  g_variant_dict_insert (&dict, "image", "s", image);
  if (g_error_matches (engine_error, AGENTS_DOCKER_ERROR,
                       AGENTS_DOCKER_ERROR_NOT_FOUND))
    g_variant_dict_insert (&dict, "reason", "s", "image_not_found");
  else if (g_error_matches (engine_error, AGENTS_DOCKER_ERROR,
                            AGENTS_DOCKER_ERROR_CONFLICT))
    g_variant_dict_insert (&dict, "reason", "s", "name_conflict");
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_WORKSPACE_START,
                            g_variant_dict_end (&dict),
                            _ ("could not create a container from image "
                               "“%s”: %s"),
                            image, engine_error->message);
}

static char *
create_container (AgentsDockerEngine *engine,
                  AgentsDockerSessionState *state,
                  GCancellable *cancellable,
                  GError **error)
{
  g_autofree char *name = container_name (state);
  g_autofree char *path = g_strdup_printf ("/containers/create?name=%s", name);
  g_autoptr (JsonNode) body = create_body (state);
  g_autoptr (JsonNode) answer = NULL;
  GError *local = NULL;
  const char *id;

  answer = agents_docker_engine_call_json (engine, "POST", path, body, NULL,
                                           cancellable, &local);
  if (answer == NULL)
    {
      if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_propagate_error (error, local);
      else
        {
          set_create_error (error, local, state);
          g_error_free (local);
        }
      return NULL;
    }
  id = agents_docker_object_string (answer, "Id");
  if (id == NULL)
    {
      agents_sandbox_error_set (
        error, AGENTS_SANDBOX_ERROR_WORKSPACE_START,
        g_variant_new_parsed ("{'reason': <'engine_protocol'>}"),
        _ ("Docker engine at %s created a container without telling its id"),
        agents_docker_engine_get_endpoint (engine));
      return NULL;
    }
  return g_strdup (id);
}

static gboolean
start_container (AgentsDockerContainer *self,
                 GCancellable *cancellable,
                 GError **error)
{
  g_autofree char *path = agents_docker_container_path (self, "/start");

  if (!agents_docker_container_post (self, path, FALSE, cancellable, error))
    {
      agents_docker_map_error_in_place (error,
                                        AGENTS_SANDBOX_ERROR_WORKSPACE_START);
      return FALSE;
    }
  return TRUE;
}

static gboolean
config_matches (JsonObject *config, AgentsDockerSessionState *state)
{
  JsonNode *labels = json_object_get_member (config, "Labels");
  g_autofree char *digest = config_digest (state);

  return labels != NULL && JSON_NODE_HOLDS_OBJECT (labels) &&
         g_strcmp0 (
           json_object_get_string_member_with_default (
             json_node_get_object (labels), AGENTS_DOCKER_LABEL_CONFIG, NULL),
           digest) == 0;
}

/* Whether the container @id still is the state's: made by libagents for
 * this session from this image, and configured as the caller configures
 * it now. Starts it if it stopped. */
static gboolean
try_reuse (AgentsDockerEngine *engine,
           AgentsDockerSessionState *state,
           const char *id,
           gboolean *reused,
           GCancellable *cancellable,
           GError **error)
{
  g_autoptr (AgentsDockerContainer) container =
    agents_docker_container_new (engine, id);
  gboolean gone = FALSE;
  g_autoptr (JsonNode) info =
    agents_docker_container_inspect (container, &gone, cancellable, error);
  JsonObject *state_obj, *config;

  *reused = FALSE;
  if (gone)
    return TRUE;
  if (info == NULL)
    {
      agents_docker_map_error_in_place (error,
                                        AGENTS_SANDBOX_ERROR_WORKSPACE_START);
      return FALSE;
    }
  config = agents_docker_object_member (info, "Config");
  if (!agents_docker_labels_match (info,
                                   agents_sandbox_session_state_get_session_id (
                                     AGENTS_SANDBOX_SESSION_STATE (state))) ||
      config == NULL ||
      g_strcmp0 (
        json_object_get_string_member_with_default (config, "Image", NULL),
        agents_docker_session_state_get_image (state)) != 0 ||
      !config_matches (config, state))
    return TRUE;
  state_obj = agents_docker_object_member (info, "State");
  if (state_obj == NULL || !json_object_get_boolean_member_with_default (
                             state_obj, "Running", FALSE))
    {
      if (!start_container (container, cancellable, error))
        return FALSE;
    }
  *reused = TRUE;
  return TRUE;
}

char *
agents_docker_container_ensure (AgentsDockerEngine *engine,
                                AgentsDockerSessionState *state,
                                gboolean reuse,
                                gboolean *reused,
                                GCancellable *cancellable,
                                GError **error)
{
  const char *old = agents_docker_session_state_get_container_id (state);
  g_autoptr (AgentsDockerContainer) container = NULL;
  g_autofree char *id = NULL;

  *reused = FALSE;
  if (!agents_docker_engine_negotiate (engine, cancellable, error))
    {
      agents_docker_map_error_in_place (error,
                                        AGENTS_SANDBOX_ERROR_WORKSPACE_START);
      return NULL;
    }
  if (reuse && old != NULL &&
      !try_reuse (engine, state, old, reused, cancellable, error))
    return NULL;
  if (*reused)
    return g_strdup (old);
  /* This session's container, configured otherwise (new host mounts,
   * say): replaced, so removed; nothing else would ever remove it. */
  if (reuse && old != NULL)
    {
      g_autoptr (AgentsDockerContainer) stale =
        agents_docker_container_new (engine, old);

      agents_docker_container_remove_owned (
        stale,
        agents_sandbox_session_state_get_session_id (
          AGENTS_SANDBOX_SESSION_STATE (state)),
        cancellable, NULL);
    }
  /* The volumes are made with the container, as it is configured now. */
  agents_docker_host_mounts_remove_volumes (engine, state, cancellable);

  id = create_container (engine, state, cancellable, error);
  if (id == NULL)
    {
      agents_docker_host_mounts_remove_volumes (engine, state, NULL);
      return NULL;
    }
  container = agents_docker_container_new (engine, id);
  if (!start_container (container, cancellable, error))
    {
      /* Nothing is left behind when the container cannot start. */
      agents_docker_container_remove (container, NULL, NULL);
      agents_docker_host_mounts_remove_volumes (engine, state, NULL);
      return NULL;
    }
  return g_steal_pointer (&id);
}

/* ---- reap ----------------------------------------------------------- */

static const char *
container_label (JsonObject *container, const char *label)
{
  JsonNode *labels = json_object_get_member (container, "Labels");

  if (labels == NULL || !JSON_NODE_HOLDS_OBJECT (labels))
    return NULL;
  return json_object_get_string_member_with_default (
    json_node_get_object (labels), label, NULL);
}

gssize
agents_docker_reap (AgentsDockerEngine *engine,
                    gboolean all,
                    GCancellable *cancellable,
                    GError **error)
{
  g_autofree char *filter = agents_docker_engine_escape (
    "{\"label\":[\"" AGENTS_DOCKER_LABEL_MANAGED "=true\"]}");
  g_autofree char *path =
    g_strdup_printf ("/containers/json?all=true&filters=%s", filter);
  g_autoptr (JsonNode) list = agents_docker_engine_call_json (
    engine, "GET", path, NULL, NULL, cancellable, error);
  JsonArray *array;
  gssize removed = 0;

  if (list == NULL)
    return -1;
  if (!JSON_NODE_HOLDS_ARRAY (list))
    return 0;
  array = json_node_get_array (list);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonObject *object = json_array_get_object_element (array, i);
      const char *id =
        object ? json_object_get_string_member_with_default (object, "Id", NULL)
               : NULL;
      g_autoptr (AgentsDockerContainer) container = NULL;

      if (id == NULL || (!all && !agents_docker_owner_gone (container_label (
                                   object, AGENTS_DOCKER_LABEL_OWNER))))
        continue;
      container = agents_docker_container_new (engine, id);
      if (!agents_docker_container_remove (container, cancellable, error))
        return -1;
      removed++;
    }
  /* The docker_volume volumes of the containers removed (or lost). */
  if (agents_docker_host_mounts_reap_volumes (engine, cancellable, error) < 0)
    return -1;
  return removed;
}
