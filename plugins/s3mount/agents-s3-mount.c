/* agents-s3-mount.c - the "s3_mount" manifest entry
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-mount-security-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-s3-mount-private.h"
#include "s3mount-host-private.h"

/**
 * AgentsS3Mount:
 *
 * A manifest entry that mounts an S3 bucket (or a prefix of it) into the
 * workspace: `{"type": "s3_mount", …, "bucket": "b", "access_key_id": null,
 * "secret_access_key": null, "session_token": null, "prefix": null,
 * "region": null, "endpoint_url": null, "s3_provider": "AWS",
 * "mount_strategy": {…}}` after the
 * members every mount has.
 *
 * The JSON form carries the credentials, as the reference's does, so
 * that a manifest can be handed to another process; everything meant
 * for people (agents_s3_mount_to_string(), messages, logs) leaves them
 * out.
 */

struct _AgentsS3Mount
{
  AgentsMount parent_instance;

  char *bucket;
  char *access_key_id;
  char *secret_access_key;
  char *session_token;
  char *prefix;
  char *region;
  char *endpoint_url;
  char *s3_provider;
  AgentsMountStrategy *mount_strategy;
  /* Read from a saved state whose credentials were removed. */
  gboolean authority_redacted;
};

G_DEFINE_FINAL_TYPE (AgentsS3Mount, agents_s3_mount, AGENTS_TYPE_MOUNT)

enum
{
  PROP_0,
  PROP_BUCKET,
  PROP_ACCESS_KEY_ID,
  PROP_SECRET_ACCESS_KEY,
  PROP_SESSION_TOKEN,
  PROP_PREFIX,
  PROP_REGION,
  PROP_ENDPOINT_URL,
  PROP_S3_PROVIDER,
  PROP_MOUNT_STRATEGY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

#define TYPE_NAME "s3_mount"

/* The members a saved state leaves out (the reference's mount-scoped
 * credentials). */
static const char *const authority_members[] = {
  "access_key_id",
  "secret_access_key",
  "session_token",
  NULL,
};

/* Seconds the unmount command may take before it counts as failed. */
#define UNMOUNT_TIMEOUT 60.0

/* The string members, in JSON order, with their property ids. */
static const struct
{
  const char *member;
  guint prop_id;
  gsize offset;
} string_members[] = {
  { "bucket", PROP_BUCKET, G_STRUCT_OFFSET (AgentsS3Mount, bucket) },
  { "access_key_id", PROP_ACCESS_KEY_ID,
    G_STRUCT_OFFSET (AgentsS3Mount, access_key_id) },
  { "secret_access_key", PROP_SECRET_ACCESS_KEY,
    G_STRUCT_OFFSET (AgentsS3Mount, secret_access_key) },
  { "session_token", PROP_SESSION_TOKEN,
    G_STRUCT_OFFSET (AgentsS3Mount, session_token) },
  { "prefix", PROP_PREFIX, G_STRUCT_OFFSET (AgentsS3Mount, prefix) },
  { "region", PROP_REGION, G_STRUCT_OFFSET (AgentsS3Mount, region) },
  { "endpoint_url", PROP_ENDPOINT_URL,
    G_STRUCT_OFFSET (AgentsS3Mount, endpoint_url) },
  { "s3_provider", PROP_S3_PROVIDER,
    G_STRUCT_OFFSET (AgentsS3Mount, s3_provider) },
};

/* The reference's default provider. */
#define DEFAULT_S3_PROVIDER "AWS"

static char **
string_field (AgentsS3Mount *self, guint i)
{
  return G_STRUCT_MEMBER_P (self, string_members[i].offset);
}

static void
set_string_member (AgentsS3Mount *self, guint i, const char *value)
{
  if (s3mount_set_str (string_field (self, i), value))
    g_object_notify_by_pspec (G_OBJECT (self),
                              properties[string_members[i].prop_id]);
}

static guint
string_member_for_prop (guint prop_id)
{
  for (guint i = 0; i < G_N_ELEMENTS (string_members); i++)
    if (string_members[i].prop_id == prop_id)
      return i;
  g_assert_not_reached ();
}

/* ---- JSON, copy, equal ------------------------------------------------ */

static void
agents_s3_mount_serialize_fields (AgentsManifestEntry *entry,
                                  JsonBuilder *builder)
{
  AgentsS3Mount *self = AGENTS_S3_MOUNT (entry);
  AgentsManifestEntryClass *parent_class =
    AGENTS_MANIFEST_ENTRY_CLASS (agents_s3_mount_parent_class);

  if (parent_class->serialize_fields != NULL)
    parent_class->serialize_fields (entry, builder);

  for (guint i = 0; i < G_N_ELEMENTS (string_members); i++)
    agents_json_add_nullable_string (builder, string_members[i].member,
                                     *string_field (self, i));

  json_builder_set_member_name (builder, "mount_strategy");
  if (self->mount_strategy != NULL)
    json_builder_add_value (
      builder, agents_mount_strategy_to_json (self->mount_strategy));
  else
    json_builder_add_null_value (builder);
  if (self->authority_redacted)
    {
      json_builder_set_member_name (builder,
                                    AGENTS_MOUNT_REDACTED_AUTHORITY_MEMBER);
      json_builder_add_boolean_value (builder, TRUE);
    }
}

static gboolean
read_redacted_marker (AgentsS3Mount *self, JsonObject *object, GError **error)
{
  JsonNode *node =
    json_object_get_member (object, AGENTS_MOUNT_REDACTED_AUTHORITY_MEMBER);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    {
      s3mount_set_config_error (error, TYPE_NAME,
                                AGENTS_MOUNT_REDACTED_AUTHORITY_MEMBER,
                                _ ("must be a boolean"));
      return FALSE;
    }
  self->authority_redacted = json_node_get_boolean (node);
  return TRUE;
}

static gboolean
read_strategy (AgentsS3Mount *self, JsonObject *object, GError **error)
{
  JsonNode *node = json_object_get_member (object, "mount_strategy");
  g_autoptr (AgentsMountStrategy) strategy = NULL;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  strategy = agents_mount_strategy_new_from_json (node, error);
  if (strategy == NULL)
    return FALSE;
  agents_s3_mount_set_mount_strategy (self, strategy);
  return TRUE;
}

static gboolean
agents_s3_mount_deserialize_fields (AgentsManifestEntry *entry,
                                    JsonObject *object,
                                    GError **error)
{
  AgentsS3Mount *self = AGENTS_S3_MOUNT (entry);
  AgentsManifestEntryClass *parent_class =
    AGENTS_MANIFEST_ENTRY_CLASS (agents_s3_mount_parent_class);

  if (parent_class->deserialize_fields != NULL &&
      !parent_class->deserialize_fields (entry, object, error))
    return FALSE;

  for (guint i = 0; i < G_N_ELEMENTS (string_members); i++)
    {
      g_autofree char *value = NULL;

      if (!agents_json_typed_dup_string (
            object, TYPE_NAME, string_members[i].member, &value, error))
        return FALSE;
      if (value == NULL && string_members[i].prop_id == PROP_S3_PROVIDER)
        value = g_strdup (DEFAULT_S3_PROVIDER);
      set_string_member (self, i, value);
    }

  return read_strategy (self, object, error) &&
         read_redacted_marker (self, object, error) &&
         agents_s3_mount_validate (self, error);
}

static void
agents_s3_mount_copy_fields (AgentsManifestEntry *entry,
                             AgentsManifestEntry *dest_entry)
{
  AgentsS3Mount *self = AGENTS_S3_MOUNT (entry);
  AgentsS3Mount *dest = AGENTS_S3_MOUNT (dest_entry);
  AgentsManifestEntryClass *parent_class =
    AGENTS_MANIFEST_ENTRY_CLASS (agents_s3_mount_parent_class);

  if (parent_class->copy_fields != NULL)
    parent_class->copy_fields (entry, dest_entry);

  for (guint i = 0; i < G_N_ELEMENTS (string_members); i++)
    set_string_member (dest, i, *string_field (self, i));
  dest->authority_redacted = self->authority_redacted;

  if (self->mount_strategy != NULL)
    {
      g_autoptr (AgentsMountStrategy) strategy =
        agents_mount_strategy_copy (self->mount_strategy);

      agents_s3_mount_set_mount_strategy (dest, strategy);
    }
}

static gboolean
agents_s3_mount_equal_fields (AgentsManifestEntry *entry,
                              AgentsManifestEntry *other_entry)
{
  AgentsS3Mount *self = AGENTS_S3_MOUNT (entry);
  AgentsS3Mount *other = AGENTS_S3_MOUNT (other_entry);
  AgentsManifestEntryClass *parent_class =
    AGENTS_MANIFEST_ENTRY_CLASS (agents_s3_mount_parent_class);

  if (parent_class->equal_fields != NULL &&
      !parent_class->equal_fields (entry, other_entry))
    return FALSE;

  for (guint i = 0; i < G_N_ELEMENTS (string_members); i++)
    if (g_strcmp0 (*string_field (self, i), *string_field (other, i)) != 0)
      return FALSE;

  return agents_mount_strategy_equal (self->mount_strategy,
                                      other->mount_strategy);
}

/* ---- validation ------------------------------------------------------- */

static gboolean
bucket_is_valid (const char *bucket)
{
  gsize len = bucket ? strlen (bucket) : 0;

  /* S3 and the S3-compatible stores agree on this much; a bucket can
   * never be taken for an option or a path. */
  if (len == 0 || len > 255 || !g_ascii_isalnum (bucket[0]))
    return FALSE;
  for (const char *p = bucket; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && *p != '.' && *p != '-' && *p != '_')
      return FALSE;
  return TRUE;
}

static gboolean
prefix_is_valid (const char *prefix)
{
  g_auto (GStrv) segments = NULL;

  if (prefix == NULL)
    return TRUE;
  if (strlen (prefix) > 1024 || !s3mount_text_is_safe (prefix))
    return FALSE;

  segments = g_strsplit (prefix, "/", -1);
  for (guint i = 0; segments[i] != NULL; i++)
    if (g_str_equal (segments[i], ".") || g_str_equal (segments[i], ".."))
      return FALSE;
  return TRUE;
}

static gboolean
region_is_valid (const char *region)
{
  gsize len = region ? strlen (region) : 0;

  if (region == NULL)
    return TRUE;
  if (len == 0 || len > 64)
    return FALSE;
  for (const char *p = region; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && *p != '-')
      return FALSE;
  return TRUE;
}

static gboolean
endpoint_url_is_valid (const char *url)
{
  g_autoptr (GUri) uri = NULL;
  const char *scheme;

  if (url == NULL)
    return TRUE;
  /* No commas: s3fs gets it inside a comma-separated `-o` list. */
  if (!s3mount_text_is_safe (url) || strpbrk (url, " ,") != NULL)
    return FALSE;

  uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);
  if (uri == NULL)
    return FALSE;
  scheme = g_uri_get_scheme (uri);
  return (g_str_equal (scheme, "https") || g_str_equal (scheme, "http")) &&
         g_uri_get_host (uri) != NULL && *g_uri_get_host (uri) != '\0';
}

static gboolean
provider_is_valid (const char *provider)
{
  gsize len = provider ? strlen (provider) : 0;

  if (len == 0 || len > 64)
    return FALSE;
  for (const char *p = provider; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && *p != '-' && *p != '_')
      return FALSE;
  return TRUE;
}

static gboolean
credential_is_valid (const char *value)
{
  if (value == NULL)
    return TRUE;
  for (const char *p = value; *p != '\0'; p++)
    if (g_ascii_isspace (*p))
      return FALSE;
  return *value != '\0' && s3mount_text_is_safe (value);
}

static gboolean
check_credentials (AgentsS3Mount *self, GError **error)
{
  const char *const members[] = { "access_key_id", "secret_access_key",
                                  "session_token" };
  const char *const values[] = { self->access_key_id, self->secret_access_key,
                                 self->session_token };

  for (guint i = 0; i < G_N_ELEMENTS (members); i++)
    if (!credential_is_valid (values[i]))
      {
        s3mount_set_config_error (
          error, TYPE_NAME, members[i],
          _ ("in-container access credentials require a complete non-empty "
             "credential set"));
        return FALSE;
      }

  if ((self->access_key_id == NULL) != (self->secret_access_key == NULL))
    {
      s3mount_set_config_error (
        error, TYPE_NAME, "secret_access_key",
        _ ("in-container access credentials require a complete non-empty "
           "credential set"));
      return FALSE;
    }
  if (self->session_token != NULL && self->access_key_id == NULL)
    {
      s3mount_set_config_error (
        error, TYPE_NAME, "session_token",
        _ ("in-container access credentials require a complete non-empty "
           "credential set"));
      return FALSE;
    }
  return TRUE;
}

/**
 * agents_s3_mount_validate:
 * @self: an S3 mount
 * @error: return location for a #GError
 *
 * Checks the members of @self: a bucket name that cannot pass for an
 * option, a prefix without `.` or `..` segments, a region, an http(s)
 * endpoint, credentials given in pairs, and a valid mount strategy.
 * Entries read from JSON are checked already.
 *
 * Returns: %TRUE if @self can be mounted as configured
 */
gboolean
agents_s3_mount_validate (AgentsS3Mount *self, GError **error)
{
  g_return_val_if_fail (AGENTS_IS_S3_MOUNT (self), FALSE);

  const struct
  {
    const char *member;
    gboolean valid;
    const char *message;
  } checks[] = {
    { "bucket", bucket_is_valid (self->bucket),
      N_ ("the bucket name is missing or invalid") },
    { "prefix", prefix_is_valid (self->prefix), N_ ("the prefix is invalid") },
    { "region", region_is_valid (self->region), N_ ("the region is invalid") },
    { "endpoint_url", endpoint_url_is_valid (self->endpoint_url),
      N_ ("the endpoint URL must be an http or https URL") },
    { "s3_provider", provider_is_valid (self->s3_provider),
      N_ ("the S3 provider must be a name of letters, digits and dashes") },
    { "mount_strategy", self->mount_strategy != NULL,
      N_ ("a mount strategy is required") },
  };

  for (guint i = 0; i < G_N_ELEMENTS (checks); i++)
    if (!checks[i].valid)
      {
        s3mount_set_config_error (error, TYPE_NAME, checks[i].member,
                                  _ (checks[i].message));
        return FALSE;
      }
  return check_credentials (self, error) &&
         agents_mount_strategy_validate (self->mount_strategy, error);
}

/* ---- mount and unmount ------------------------------------------------ */

static GVariant *
path_context (const char *path, const char *stderr_text)
{
  g_auto (GVariantBuilder) builder =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  g_variant_builder_add (&builder, "{sv}", "path", g_variant_new_string (path));
  if (stderr_text != NULL)
    g_variant_builder_add (&builder, "{sv}", "stderr",
                           g_variant_new_string (stderr_text));
  return g_variant_builder_end (&builder);
}

/* The credential boundary, before any helper runs: inline keys need
 * trusted code's acknowledgement of this exact path, and keys removed
 * from a saved state must have been given back. */
static gboolean
check_authority (AgentsS3Mount *self,
                 AgentsSandboxSession *session,
                 const char *dest,
                 gboolean exposed,
                 GError **error)
{
  AgentsManifest *manifest = agents_sandbox_session_get_manifest (session);

  if (self->authority_redacted)
    {
      agents_sandbox_error_set (
        error, AGENTS_SANDBOX_ERROR_MOUNT_CONFIG, path_context (dest, NULL),
        _ ("the credentials of the s3_mount at %s were removed from the saved "
           "state; resume with the trusted manifest that holds them"),
        dest);
      return FALSE;
    }
  if (!exposed || (self->access_key_id == NULL && self->session_token == NULL))
    return TRUE;
  if (manifest != NULL &&
      agents_manifest_is_mount_credential_exposure_acknowledged (manifest,
                                                                 dest))
    return TRUE;
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_MOUNT_CONFIG,
                            path_context (dest, NULL), "%s",
                            _ ("mount-scoped credentials cannot be exposed to "
                               "a helper inside a model-controlled sandbox by "
                               "default; use a credentialless or "
                               "external/provider-native strategy, or "
                               "explicitly acknowledge exposure for this exact "
                               "path with "
                               "Manifest.with_in_container_mount_credential_"
                               "exposure_acknowledged()"));
  return FALSE;
}

static gboolean
host_mount_in_place (AgentsSandboxSession *session, const char *dest)
{
  g_autoptr (AgentsHostBind) bind =
    agents_sandbox_session_lookup_host_bind (session, dest);

  return bind != NULL && s3mount_path_is_mounted (bind->host_path);
}

static void
return_not_supported (GTask *task, const char *dest, const char *message)
{
  g_task_return_error (
    task, agents_sandbox_error_new (AGENTS_SANDBOX_ERROR_NOT_SUPPORTED,
                                    path_context (dest, NULL), "%s", message));
}

/* docker_volume: a host mount the docker backend gives the container
 * as a volume when it creates it. */
static void
mount_docker_volume (AgentsS3Mount *self,
                     AgentsSandboxSession *session,
                     const char *dest,
                     GTask *task)
{
  g_autoptr (AgentsMountPattern) pattern = NULL;

  if (!agents_sandbox_session_get_host_binds_in_container (session))
    {
      g_task_return_error (
        task,
        agents_sandbox_error_new (
          AGENTS_SANDBOX_ERROR_MOUNT_CONFIG, path_context (dest, NULL), "%s",
          _ ("docker-volume mounts are not supported by this sandbox "
             "backend")));
      return;
    }
  /* Mounted already, before the container was made. */
  if (host_mount_in_place (session, dest))
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  /* The engine gives a container its volumes only when it creates it. */
  if (!agents_sandbox_session_get_host_binds_supported (session))
    {
      return_not_supported (task, dest,
                            _ ("a docker_volume s3_mount cannot be added to a "
                               "running container"));
      return;
    }
  pattern = s3mount_strategy_dup_pattern (self->mount_strategy);
  s3mount_host_mount (self, pattern, session, dest, task);
}

static void
agents_s3_mount_mount (AgentsMount *mount,
                       AgentsSandboxSession *session,
                       const char *dest,
                       const char *base_dir,
                       GTask *task)
{
  AgentsS3Mount *self = AGENTS_S3_MOUNT (mount);
  AgentsMountPattern *pattern;
  GError *error = NULL;

  if (!agents_s3_mount_validate (self, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  if (AGENTS_IS_DOCKER_VOLUME_MOUNT_STRATEGY (self->mount_strategy))
    {
      /* The credentials stay on the host: no acknowledgement needed. */
      if (!check_authority (self, session, dest, FALSE, &error))
        g_task_return_error (task, error);
      else
        mount_docker_volume (self, session, dest, task);
      return;
    }

  /* in_container: inside the container on docker; on the host, bound
   * into the confined view, on unix_local (whose sandbox is the host). */
  pattern = agents_in_container_mount_strategy_get_pattern (
    AGENTS_IN_CONTAINER_MOUNT_STRATEGY (self->mount_strategy));
  if (!agents_sandbox_session_get_host_binds_in_container (session) &&
      !agents_sandbox_session_get_host_binds_supported (session) &&
      !host_mount_in_place (session, dest))
    {
      return_not_supported (task, dest,
                            _ ("s3_mount cannot be mounted by this release"));
      return;
    }
  if (!check_authority (self, session, dest, TRUE, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  if (agents_sandbox_session_get_host_binds_in_container (session))
    s3mount_sandbox_mount (self, pattern, session, dest, task);
  else if (host_mount_in_place (session, dest))
    g_task_return_boolean (task, TRUE);
  else
    s3mount_host_mount (self, pattern, session, dest, task);
}

/*
 * Run as `sh -c SCRIPT sh DEST`: the path is a positional parameter, never
 * part of the script. `mountpoint` exits 0 for a mount point, 32 (util-linux)
 * or 1 (util-linux on a missing path, busybox) for anything else. Any other
 * status means it could not tell, and guessing "not mounted" could let the
 * caller delete the files of a mounted bucket, so that fails.
 */
static const char unmount_script[] =
  "mountpoint -q \"$1\"\n"
  "case $? in\n"
  "  0) ;;\n"
  "  1|32) exit 0 ;;\n"
  "  *) printf 'cannot tell whether %s is a mount point\\n' \"$1\" >&2;"
  " exit 1 ;;\n"
  "esac\n"
  "fusermount -u \"$1\" 2>/dev/null || fusermount3 -u \"$1\" 2>/dev/null ||"
  " umount \"$1\"\n";

static void
unmount_exec_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  const char *dest = g_task_get_task_data (task);
  g_autoptr (AgentsExecResult) exec_result = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *stderr_text = NULL;

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

  stderr_text = exec_result ? agents_exec_result_dup_stderr_text (exec_result)
                            : g_strdup (error->message);
  g_strstrip (stderr_text);
  g_task_return_error (
    task, agents_sandbox_error_new (
            AGENTS_SANDBOX_ERROR_MOUNT_FAILED, path_context (dest, stderr_text),
            _ ("failed to unmount %s: %s"), dest, stderr_text));
}

static void
agents_s3_mount_unmount (AgentsMount *mount,
                         AgentsSandboxSession *session,
                         const char *dest,
                         const char *base_dir,
                         GTask *task)
{
  const char *argv[] = { "sh", "-c", unmount_script, "sh", dest, NULL };
  g_autoptr (AgentsHostBind) bind = NULL;

  if (dest != NULL)
    bind = agents_sandbox_session_lookup_host_bind (session, dest);
  if (bind != NULL)
    {
      s3mount_host_unmount (AGENTS_S3_MOUNT (mount), session, bind, task);
      return;
    }
  /* Mounted in the container by s3mount_sandbox_mount(). */
  if (dest != NULL && g_path_is_absolute (dest) &&
      agents_sandbox_session_get_host_binds_in_container (session) &&
      AGENTS_IS_IN_CONTAINER_MOUNT_STRATEGY (
        AGENTS_S3_MOUNT (mount)->mount_strategy))
    {
      s3mount_sandbox_unmount (AGENTS_S3_MOUNT (mount), session, dest, task);
      return;
    }
  if (dest == NULL || !g_path_is_absolute (dest))
    {
      g_task_return_error (
        task, agents_sandbox_error_new (AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                                        path_context (dest ? dest : "", NULL),
                                        _ ("a mount point must be an absolute "
                                           "path")));
      return;
    }

  g_task_set_task_data (task, g_strdup (dest), g_free);
  agents_sandbox_session_exec_async (session, argv, UNMOUNT_TIMEOUT, FALSE,
                                     NULL, g_task_get_cancellable (task),
                                     unmount_exec_cb, g_object_ref (task));
}

/* ---- GObject ---------------------------------------------------------- */

static void
agents_s3_mount_dispose (GObject *object)
{
  AgentsS3Mount *self = AGENTS_S3_MOUNT (object);

  g_clear_object (&self->mount_strategy);

  G_OBJECT_CLASS (agents_s3_mount_parent_class)->dispose (object);
}

static void
agents_s3_mount_finalize (GObject *object)
{
  AgentsS3Mount *self = AGENTS_S3_MOUNT (object);

  for (guint i = 0; i < G_N_ELEMENTS (string_members); i++)
    g_free (*string_field (self, i));

  G_OBJECT_CLASS (agents_s3_mount_parent_class)->finalize (object);
}

static void
agents_s3_mount_get_property (GObject *object,
                              guint prop_id,
                              GValue *value,
                              GParamSpec *pspec)
{
  AgentsS3Mount *self = AGENTS_S3_MOUNT (object);

  if (prop_id == PROP_MOUNT_STRATEGY)
    g_value_set_object (value, self->mount_strategy);
  else if (prop_id > PROP_0 && prop_id < N_PROPS)
    g_value_set_string (value,
                        *string_field (self, string_member_for_prop (prop_id)));
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
agents_s3_mount_set_property (GObject *object,
                              guint prop_id,
                              const GValue *value,
                              GParamSpec *pspec)
{
  AgentsS3Mount *self = AGENTS_S3_MOUNT (object);

  if (prop_id == PROP_MOUNT_STRATEGY)
    agents_s3_mount_set_mount_strategy (self, g_value_get_object (value));
  else if (prop_id > PROP_0 && prop_id < N_PROPS)
    set_string_member (self, string_member_for_prop (prop_id),
                       g_value_get_string (value));
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static GParamSpec *
string_pspec (const char *name)
{
  return g_param_spec_string (name, NULL, NULL, NULL,
                              G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                                G_PARAM_EXPLICIT_NOTIFY);
}

static void
agents_s3_mount_class_init (AgentsS3MountClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  AgentsManifestEntryClass *entry_class = AGENTS_MANIFEST_ENTRY_CLASS (klass);
  AgentsMountClass *mount_class = AGENTS_MOUNT_CLASS (klass);

  object_class->dispose = agents_s3_mount_dispose;
  object_class->finalize = agents_s3_mount_finalize;
  object_class->get_property = agents_s3_mount_get_property;
  object_class->set_property = agents_s3_mount_set_property;

  entry_class->type_name = TYPE_NAME;
  entry_class->is_mount = TRUE;
  entry_class->serialize_fields = agents_s3_mount_serialize_fields;
  entry_class->deserialize_fields = agents_s3_mount_deserialize_fields;
  entry_class->copy_fields = agents_s3_mount_copy_fields;
  entry_class->equal_fields = agents_s3_mount_equal_fields;

  mount_class->mount = agents_s3_mount_mount;
  agents_mount_type_set_authority_members (G_TYPE_FROM_CLASS (klass),
                                           authority_members);
  mount_class->unmount = agents_s3_mount_unmount;

  /* Property names are the JSON member names with dashes. */
  properties[PROP_BUCKET] = string_pspec ("bucket");
  properties[PROP_ACCESS_KEY_ID] = string_pspec ("access-key-id");
  properties[PROP_SECRET_ACCESS_KEY] = string_pspec ("secret-access-key");
  properties[PROP_SESSION_TOKEN] = string_pspec ("session-token");
  properties[PROP_PREFIX] = string_pspec ("prefix");
  properties[PROP_REGION] = string_pspec ("region");
  properties[PROP_ENDPOINT_URL] = string_pspec ("endpoint-url");
  properties[PROP_S3_PROVIDER] = string_pspec ("s3-provider");
  properties[PROP_MOUNT_STRATEGY] = g_param_spec_object (
    "mount-strategy", NULL, NULL, AGENTS_TYPE_MOUNT_STRATEGY,
    G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
agents_s3_mount_init (AgentsS3Mount *self)
{
  self->s3_provider = g_strdup (DEFAULT_S3_PROVIDER);
}

/* ---- public API ------------------------------------------------------- */

/**
 * agents_s3_mount_new:
 * @bucket: the bucket
 * @strategy: (nullable): how to mount it
 *
 * Creates a read-only, ephemeral mount of @bucket.
 *
 * Returns: (transfer full): the entry
 */
AgentsManifestEntry *
agents_s3_mount_new (const char *bucket, AgentsMountStrategy *strategy)
{
  g_return_val_if_fail (strategy == NULL || AGENTS_IS_MOUNT_STRATEGY (strategy),
                        NULL);

  return g_object_new (AGENTS_TYPE_S3_MOUNT, "bucket", bucket, "mount-strategy",
                       strategy, NULL);
}

#define DEFINE_STRING_ACCESSORS(field, PROP)                                \
  const char *agents_s3_mount_get_##field (AgentsS3Mount *self)             \
  {                                                                         \
    g_return_val_if_fail (AGENTS_IS_S3_MOUNT (self), NULL);                 \
    return self->field;                                                     \
  }                                                                         \
  void agents_s3_mount_set_##field (AgentsS3Mount *self, const char *value) \
  {                                                                         \
    g_return_if_fail (AGENTS_IS_S3_MOUNT (self));                           \
    set_string_member (self, string_member_for_prop (PROP), value);         \
  }

DEFINE_STRING_ACCESSORS (bucket, PROP_BUCKET)
DEFINE_STRING_ACCESSORS (access_key_id, PROP_ACCESS_KEY_ID)
DEFINE_STRING_ACCESSORS (secret_access_key, PROP_SECRET_ACCESS_KEY)
DEFINE_STRING_ACCESSORS (session_token, PROP_SESSION_TOKEN)
DEFINE_STRING_ACCESSORS (prefix, PROP_PREFIX)
DEFINE_STRING_ACCESSORS (region, PROP_REGION)
DEFINE_STRING_ACCESSORS (endpoint_url, PROP_ENDPOINT_URL)
DEFINE_STRING_ACCESSORS (s3_provider, PROP_S3_PROVIDER)

AgentsMountStrategy *
agents_s3_mount_get_mount_strategy (AgentsS3Mount *self)
{
  g_return_val_if_fail (AGENTS_IS_S3_MOUNT (self), NULL);

  return self->mount_strategy;
}

void
agents_s3_mount_set_mount_strategy (AgentsS3Mount *self,
                                    AgentsMountStrategy *strategy)
{
  g_return_if_fail (AGENTS_IS_S3_MOUNT (self));
  g_return_if_fail (strategy == NULL || AGENTS_IS_MOUNT_STRATEGY (strategy));

  if (g_set_object (&self->mount_strategy, strategy))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MOUNT_STRATEGY]);
}

/**
 * agents_s3_mount_dup_normalized_prefix:
 * @self: an S3 mount
 *
 * Gets the prefix without leading or trailing slashes.
 *
 * Returns: (transfer full) (nullable): the prefix, %NULL when @self has
 *   none or it is only slashes
 */
char *
agents_s3_mount_dup_normalized_prefix (AgentsS3Mount *self)
{
  const char *start;
  gsize len;

  g_return_val_if_fail (AGENTS_IS_S3_MOUNT (self), NULL);

  if (self->prefix == NULL)
    return NULL;
  for (start = self->prefix; *start == '/'; start++)
    ;
  for (len = strlen (start); len > 0 && start[len - 1] == '/'; len--)
    ;
  return len > 0 ? g_strndup (start, len) : NULL;
}

/**
 * agents_s3_mount_to_string:
 * @self: an S3 mount
 *
 * Describes @self for people: bucket, prefix, mode and whether it has
 * credentials, never the credentials themselves.
 *
 * Returns: (transfer full): the description
 */
char *
agents_s3_mount_to_string (AgentsS3Mount *self)
{
  g_autofree char *prefix = NULL;
  GString *string;
  AgentsMount *mount;

  g_return_val_if_fail (AGENTS_IS_S3_MOUNT (self), NULL);

  mount = AGENTS_MOUNT (self);
  prefix = agents_s3_mount_dup_normalized_prefix (self);
  string = g_string_new ("s3://");
  g_string_append (string, self->bucket ? self->bucket : "");
  if (prefix != NULL)
    g_string_append_printf (string, "/%s", prefix);
  g_string_append (string, agents_mount_get_read_only (mount) ? " (read-only"
                                                              : " (read-write");
  if (self->mount_strategy != NULL)
    g_string_append_printf (
      string, ", %s",
      agents_mount_strategy_get_type_name (self->mount_strategy));
  if (self->access_key_id != NULL)
    g_string_append (string, ", credentials: <redacted>");
  g_string_append_c (string, ')');
  return g_string_free (string, FALSE);
}

/**
 * agents_s3mount_register_types:
 *
 * Registers the `s3_mount` entry type with the registry, for programs
 * and tests that link the plugin statically.
 */
void
agents_s3mount_register_types (void)
{
  g_autoptr (GError) error = NULL;

  if (!agents_registry_register_entry_type (TYPE_NAME, AGENTS_TYPE_S3_MOUNT,
                                            &error))
    g_critical ("%s", error->message);
}
