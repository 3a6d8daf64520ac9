/* agents-mount-pattern.c - the FUSE tools that mount an S3 bucket
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "agents-sandbox-error-private.h"
#include "agents-s3-mount-private.h"

/* The command lines of a mount pattern and the patterns of each tool:
 * mountpoint (mount-s3), s3fs and rclone. The members every pattern
 * has, its typed JSON and its checks are in agents-mount-pattern-base.c.
 */

static gboolean
check_path (const char *owner, const char *path, GError **error)
{
  if (path != NULL && s3mount_path_is_safe (path))
    return TRUE;
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, NULL,
                            _ ("%s: the mount path must be absolute, without "
                               "control characters"),
                            owner);
  return FALSE;
}

static char **
end_argv (GPtrArray *argv)
{
  g_ptr_array_add (argv, NULL);
  return (char **) g_ptr_array_free (argv, FALSE);
}

/**
 * agents_mount_pattern_build_mount_argv:
 * @self: a pattern
 * @mount: the mount to mount
 * @path: where, an absolute path
 * @error: return location for a #GError
 *
 * Builds the command line that mounts @mount at @path, read-only or
 * read-write as @mount says. Credentials are not part of it, see
 * agents_mount_pattern_build_environ().
 *
 * Returns: (transfer full): the argv, or %NULL if @mount or @self is
 *   misconfigured
 */
char **
agents_mount_pattern_build_mount_argv (AgentsMountPattern *self,
                                       AgentsS3Mount *mount,
                                       const char *path,
                                       GError **error)
{
  GPtrArray *argv;

  g_return_val_if_fail (AGENTS_IS_MOUNT_PATTERN (self), NULL);
  g_return_val_if_fail (AGENTS_IS_S3_MOUNT (mount), NULL);

  if (!check_path (agents_mount_pattern_get_type_name (self), path, error) ||
      !agents_mount_pattern_validate (self, error) ||
      !agents_s3_mount_validate (mount, error))
    return NULL;

  argv = g_ptr_array_new ();
  AGENTS_MOUNT_PATTERN_GET_CLASS (self)->build_mount_argv (self, mount, path,
                                                           argv);
  return end_argv (argv);
}

/**
 * agents_mount_pattern_build_unmount_argv:
 * @self: a pattern
 * @path: the mount point, an absolute path
 * @error: return location for a #GError
 *
 * Builds the command line that unmounts what @self mounted at @path.
 *
 * Returns: (transfer full): the argv, or %NULL if @path is not acceptable
 */
char **
agents_mount_pattern_build_unmount_argv (AgentsMountPattern *self,
                                         const char *path,
                                         GError **error)
{
  GPtrArray *argv;

  g_return_val_if_fail (AGENTS_IS_MOUNT_PATTERN (self), NULL);

  if (!check_path (agents_mount_pattern_get_type_name (self), path, error))
    return NULL;

  /* All three tools are FUSE file systems; fusermount needs no privilege. */
  argv = g_ptr_array_new ();
  g_ptr_array_add (argv, g_strdup ("fusermount"));
  g_ptr_array_add (argv, g_strdup ("-u"));
  g_ptr_array_add (argv, g_strdup (path));
  return end_argv (argv);
}

/**
 * agents_mount_pattern_build_environ:
 * @self: a pattern
 * @mount: the mount
 *
 * Builds the environment that gives the mount command @mount's
 * credentials and settings, as `NAME=value` strings. It is not based on
 * the current process's environment.
 *
 * Returns: (transfer full): the environment, possibly empty
 */
char **
agents_mount_pattern_build_environ (AgentsMountPattern *self,
                                    AgentsS3Mount *mount)
{
  char **envp = g_new0 (char *, 1);

  g_return_val_if_fail (AGENTS_IS_MOUNT_PATTERN (self), envp);
  g_return_val_if_fail (AGENTS_IS_S3_MOUNT (mount), envp);

  return AGENTS_MOUNT_PATTERN_GET_CLASS (self)->build_environ (self, mount,
                                                               envp);
}

static void
add_args (GPtrArray *argv, const char *const *args)
{
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, g_strdup (args[i]));
}

/* Adds @name followed by @value (`--region=` and `us-east-1`) if @value
 * is set: one argument, so that a value can never pass for an option. */
static void
add_option (GPtrArray *argv, const char *name, const char *value)
{
  if (value != NULL)
    g_ptr_array_add (argv, g_strconcat (name, value, NULL));
}

static char **
add_aws_environ (char **envp, AgentsS3Mount *mount)
{
  envp = s3mount_environ_add (envp, "AWS_ACCESS_KEY_ID",
                              agents_s3_mount_get_access_key_id (mount));
  envp = s3mount_environ_add (envp, "AWS_SECRET_ACCESS_KEY",
                              agents_s3_mount_get_secret_access_key (mount));
  envp = s3mount_environ_add (envp, "AWS_SESSION_TOKEN",
                              agents_s3_mount_get_session_token (mount));
  return envp;
}

/* ---- mountpoint (mount-s3) -------------------------------------------- */

/**
 * AgentsMountpointMountPattern:
 *
 * Mounts with Mountpoint for Amazon S3 (`mount-s3`):
 * `{"type": "mountpoint", "cache_dir": null, "extra_args": []}`.
 *
 * The reference's `"options": {"prefix": null, "region": null,
 * "endpoint_url": null}` is read too; a member that is set there takes
 * the place of the entry's.
 */
struct _AgentsMountpointMountPattern
{
  AgentsMountPattern parent_instance;

  gboolean has_options;
  char *options[3]; /* prefix, region, endpoint_url */
};

G_DEFINE_FINAL_TYPE (AgentsMountpointMountPattern,
                     agents_mountpoint_mount_pattern,
                     AGENTS_TYPE_MOUNT_PATTERN)

enum
{
  OPTION_PREFIX,
  OPTION_REGION,
  OPTION_ENDPOINT_URL,
};

static const char *const mountpoint_option_names[] = {
  "prefix",
  "region",
  "endpoint_url",
};

#define MOUNTPOINT_OPTIONS "mountpoint.options"

static void
mountpoint_serialize_fields (AgentsMountPattern *pattern, JsonBuilder *builder)
{
  AgentsMountpointMountPattern *self =
    AGENTS_MOUNTPOINT_MOUNT_PATTERN (pattern);

  if (!self->has_options)
    return;
  json_builder_set_member_name (builder, "options");
  json_builder_begin_object (builder);
  for (guint i = 0; i < G_N_ELEMENTS (mountpoint_option_names); i++)
    agents_json_add_nullable_string (builder, mountpoint_option_names[i],
                                     self->options[i]);
  json_builder_end_object (builder);
}

static gboolean
mountpoint_deserialize_fields (AgentsMountPattern *pattern,
                               JsonObject *object,
                               GError **error)
{
  AgentsMountpointMountPattern *self =
    AGENTS_MOUNTPOINT_MOUNT_PATTERN (pattern);
  JsonNode *node = json_object_get_member (object, "options");
  JsonObject *options;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  options = agents_json_typed_require_object (node, MOUNTPOINT_OPTIONS, error);
  if (options == NULL)
    return FALSE;
  self->has_options = TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (mountpoint_option_names); i++)
    {
      g_autofree char *value = NULL;

      if (!agents_json_typed_dup_string (options, MOUNTPOINT_OPTIONS,
                                         mountpoint_option_names[i], &value,
                                         error))
        return FALSE;
      s3mount_set_str (&self->options[i], value);
    }
  return TRUE;
}

static gboolean
option_region_is_valid (const char *region)
{
  gsize len = strlen (region);

  if (len == 0 || len > 32)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_islower (region[i]) && !g_ascii_isdigit (region[i]) &&
        region[i] != '-')
      return FALSE;
  return TRUE;
}

static gboolean
option_endpoint_is_valid (const char *url)
{
  return s3mount_text_is_safe (url) && strchr (url, ' ') == NULL &&
         (g_str_has_prefix (url, "http://") ||
          g_str_has_prefix (url, "https://"));
}

static gboolean
option_prefix_is_valid (const char *prefix)
{
  g_auto (GStrv) parts = NULL;

  if (!s3mount_text_is_safe (prefix) || g_str_has_prefix (prefix, "-"))
    return FALSE;
  parts = g_strsplit (prefix, "/", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    if (g_str_equal (parts[i], "..") || g_str_equal (parts[i], "."))
      return FALSE;
  return TRUE;
}

static gboolean
mountpoint_validate (AgentsMountPattern *pattern, GError **error)
{
  AgentsMountpointMountPattern *self =
    AGENTS_MOUNTPOINT_MOUNT_PATTERN (pattern);
  const char *prefix = self->options[OPTION_PREFIX];
  const char *region = self->options[OPTION_REGION];
  const char *endpoint = self->options[OPTION_ENDPOINT_URL];

  if (prefix != NULL && !option_prefix_is_valid (prefix))
    s3mount_set_config_error (error, MOUNTPOINT_OPTIONS, "prefix",
                              _ ("a prefix may not contain . or .. segments, "
                                 "start with - or hold control characters"));
  else if (region != NULL && !option_region_is_valid (region))
    s3mount_set_config_error (error, MOUNTPOINT_OPTIONS, "region",
                              _ ("a region is lowercase letters, digits and "
                                 "dashes"));
  else if (endpoint != NULL && !option_endpoint_is_valid (endpoint))
    s3mount_set_config_error (error, MOUNTPOINT_OPTIONS, "endpoint_url",
                              _ ("the endpoint must be an http or https URL"));
  else
    return TRUE;
  return FALSE;
}

/* The option when set, else the entry's value. */
static const char *
mountpoint_option (AgentsMountpointMountPattern *self,
                   guint option,
                   const char *entry_value)
{
  return self->options[option] ? self->options[option] : entry_value;
}

static void
mountpoint_build_mount_argv (AgentsMountPattern *pattern,
                             AgentsS3Mount *mount,
                             const char *path,
                             GPtrArray *argv)
{
  AgentsMountpointMountPattern *self =
    AGENTS_MOUNTPOINT_MOUNT_PATTERN (pattern);
  g_autofree char *prefix = agents_s3_mount_dup_normalized_prefix (mount);

  if (self->options[OPTION_PREFIX] != NULL)
    {
      g_free (prefix);
      prefix = g_strdup (self->options[OPTION_PREFIX]);
      while (g_str_has_suffix (prefix, "/"))
        prefix[strlen (prefix) - 1] = '\0';
      if (*prefix == '\0')
        g_clear_pointer (&prefix, g_free);
    }
  g_ptr_array_add (argv, g_strdup ("mount-s3"));
  if (agents_mount_get_read_only (AGENTS_MOUNT (mount)))
    g_ptr_array_add (argv, g_strdup ("--read-only"));
  else
    {
      g_ptr_array_add (argv, g_strdup ("--allow-delete"));
      g_ptr_array_add (argv, g_strdup ("--allow-overwrite"));
    }
  /* mount-s3 wants the prefix to end with a slash. */
  if (prefix != NULL)
    g_ptr_array_add (argv, g_strconcat ("--prefix=", prefix, "/", NULL));
  add_option (argv, "--region=",
              mountpoint_option (self, OPTION_REGION,
                                 agents_s3_mount_get_region (mount)));
  add_option (argv, "--endpoint-url=",
              mountpoint_option (self, OPTION_ENDPOINT_URL,
                                 agents_s3_mount_get_endpoint_url (mount)));
  add_option (argv, "--cache=", agents_mount_pattern_get_cache_dir (pattern));
  add_args (argv, agents_mount_pattern_get_extra_args (pattern));
  g_ptr_array_add (argv, g_strdup ("--"));
  g_ptr_array_add (argv, g_strdup (agents_s3_mount_get_bucket (mount)));
  g_ptr_array_add (argv, g_strdup (path));
}

static char **
mountpoint_build_environ (AgentsMountPattern *pattern,
                          AgentsS3Mount *mount,
                          char **envp)
{
  return add_aws_environ (envp, mount);
}

static void
agents_mountpoint_mount_pattern_finalize (GObject *object)
{
  AgentsMountpointMountPattern *self = AGENTS_MOUNTPOINT_MOUNT_PATTERN (object);

  for (guint i = 0; i < G_N_ELEMENTS (self->options); i++)
    g_free (self->options[i]);
  G_OBJECT_CLASS (agents_mountpoint_mount_pattern_parent_class)
    ->finalize (object);
}

static void
agents_mountpoint_mount_pattern_class_init (
  AgentsMountpointMountPatternClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  AgentsMountPatternClass *pattern_class = AGENTS_MOUNT_PATTERN_CLASS (klass);

  object_class->finalize = agents_mountpoint_mount_pattern_finalize;
  pattern_class->type_name = "mountpoint";
  pattern_class->serialize_fields = mountpoint_serialize_fields;
  pattern_class->deserialize_fields = mountpoint_deserialize_fields;
  pattern_class->validate = mountpoint_validate;
  pattern_class->build_mount_argv = mountpoint_build_mount_argv;
  pattern_class->build_environ = mountpoint_build_environ;
}

static void
agents_mountpoint_mount_pattern_init (AgentsMountpointMountPattern *self)
{
}

AgentsMountPattern *
agents_mountpoint_mount_pattern_new (void)
{
  return g_object_new (AGENTS_TYPE_MOUNTPOINT_MOUNT_PATTERN, NULL);
}

/* ---- s3fs ------------------------------------------------------------- */

/**
 * AgentsS3fsMountPattern:
 *
 * Mounts with s3fs-fuse:
 * `{"type": "s3fs", "cache_dir": null, "extra_args": []}`.
 */
struct _AgentsS3fsMountPattern
{
  AgentsMountPattern parent_instance;
};

G_DEFINE_FINAL_TYPE (AgentsS3fsMountPattern,
                     agents_s3fs_mount_pattern,
                     AGENTS_TYPE_MOUNT_PATTERN)

static void
add_fuse_option (GPtrArray *argv, const char *name, const char *value)
{
  if (value == NULL)
    return;
  g_ptr_array_add (argv, g_strdup ("-o"));
  g_ptr_array_add (argv, g_strconcat (name, value, NULL));
}

static void
s3fs_build_mount_argv (AgentsMountPattern *pattern,
                       AgentsS3Mount *mount,
                       const char *path,
                       GPtrArray *argv)
{
  g_autofree char *prefix = agents_s3_mount_dup_normalized_prefix (mount);
  const char *bucket = agents_s3_mount_get_bucket (mount);

  g_ptr_array_add (argv, g_strdup ("s3fs"));
  if (prefix != NULL)
    g_ptr_array_add (argv, g_strdup_printf ("%s:/%s", bucket, prefix));
  else
    g_ptr_array_add (argv, g_strdup (bucket));
  g_ptr_array_add (argv, g_strdup (path));
  if (agents_mount_get_read_only (AGENTS_MOUNT (mount)))
    add_fuse_option (argv, "ro", "");
  add_fuse_option (argv, "endpoint=", agents_s3_mount_get_region (mount));
  add_fuse_option (argv, "url=", agents_s3_mount_get_endpoint_url (mount));
  add_fuse_option (argv,
                   "use_cache=", agents_mount_pattern_get_cache_dir (pattern));
  add_args (argv, agents_mount_pattern_get_extra_args (pattern));
}

static char **
s3fs_build_environ (AgentsMountPattern *pattern,
                    AgentsS3Mount *mount,
                    char **envp)
{
  /* s3fs reads both its historical names and the AWS ones. */
  envp = s3mount_environ_add (envp, "AWSACCESSKEYID",
                              agents_s3_mount_get_access_key_id (mount));
  envp = s3mount_environ_add (envp, "AWSSECRETACCESSKEY",
                              agents_s3_mount_get_secret_access_key (mount));
  envp = s3mount_environ_add (envp, "AWSSESSIONTOKEN",
                              agents_s3_mount_get_session_token (mount));
  return add_aws_environ (envp, mount);
}

static void
agents_s3fs_mount_pattern_class_init (AgentsS3fsMountPatternClass *klass)
{
  AgentsMountPatternClass *pattern_class = AGENTS_MOUNT_PATTERN_CLASS (klass);

  pattern_class->type_name = "s3fs";
  pattern_class->build_mount_argv = s3fs_build_mount_argv;
  pattern_class->build_environ = s3fs_build_environ;
}

static void
agents_s3fs_mount_pattern_init (AgentsS3fsMountPattern *self)
{
}

AgentsMountPattern *
agents_s3fs_mount_pattern_new (void)
{
  return g_object_new (AGENTS_TYPE_S3FS_MOUNT_PATTERN, NULL);
}

/* ---- rclone ----------------------------------------------------------- */

/**
 * AgentsRcloneMountPattern:
 *
 * Mounts with `rclone mount`:
 * `{"type": "rclone", "cache_dir": null, "extra_args": [],
 * "vfs_cache_mode": null}`. The remote is defined by
 * `RCLONE_CONFIG_<REMOTE>_*` environment variables (the remote is
 * `s3mount` unless `remote_name` names another). `vfs_cache_mode` is
 * one of `off`, `minimal`, `writes`, `full`; null means `writes` for a
 * read-write mount and rclone's default otherwise.
 *
 * The reference's members are read too: `mode` (`"fuse"`, the default;
 * `"nfs"` is refused by this release, as are non-null `nfs_addr` and
 * `nfs_mount_options`), `remote_name` (letters, digits and `_`, at most
 * 64) and `config_file_path` (a whole rclone configuration is broad
 * authority, which this release has no acknowledgement for: refused).
 */
struct _AgentsRcloneMountPattern
{
  AgentsMountPattern parent_instance;

  char *vfs_cache_mode;
  /* The reference's members, from JSON only. */
  char *mode;
  char *remote_name;
  char *config_file_path;
  char *nfs_addr;
  char *nfs_mount_options;
};

/* The reference members, in JSON order, kept when not null. */
static const struct
{
  const char *member;
  gsize offset;
} rclone_reference_members[] = {
  { "mode", G_STRUCT_OFFSET (AgentsRcloneMountPattern, mode) },
  { "remote_name", G_STRUCT_OFFSET (AgentsRcloneMountPattern, remote_name) },
  { "nfs_addr", G_STRUCT_OFFSET (AgentsRcloneMountPattern, nfs_addr) },
  { "nfs_mount_options",
    G_STRUCT_OFFSET (AgentsRcloneMountPattern, nfs_mount_options) },
  { "config_file_path",
    G_STRUCT_OFFSET (AgentsRcloneMountPattern, config_file_path) },
};

static char **
rclone_member (AgentsRcloneMountPattern *self, guint i)
{
  return G_STRUCT_MEMBER_P (self, rclone_reference_members[i].offset);
}

/* The remote's name: `remote_name`, else AGENTS_RCLONE_REMOTE_NAME. */
static const char *
rclone_remote (AgentsRcloneMountPattern *self)
{
  return self->remote_name ? self->remote_name : AGENTS_RCLONE_REMOTE_NAME;
}

G_DEFINE_FINAL_TYPE (AgentsRcloneMountPattern,
                     agents_rclone_mount_pattern,
                     AGENTS_TYPE_MOUNT_PATTERN)

enum
{
  RCLONE_PROP_0,
  RCLONE_PROP_VFS_CACHE_MODE,
  RCLONE_N_PROPS
};

static GParamSpec *rclone_properties[RCLONE_N_PROPS];

static const char *const vfs_cache_modes[] = { "off", "minimal", "writes",
                                               "full", NULL };

static void
rclone_serialize_fields (AgentsMountPattern *pattern, JsonBuilder *builder)
{
  AgentsRcloneMountPattern *self = AGENTS_RCLONE_MOUNT_PATTERN (pattern);

  agents_json_add_nullable_string (builder, "vfs_cache_mode",
                                   self->vfs_cache_mode);
  for (guint i = 0; i < G_N_ELEMENTS (rclone_reference_members); i++)
    if (*rclone_member (self, i) != NULL)
      agents_json_add_nullable_string (
        builder, rclone_reference_members[i].member, *rclone_member (self, i));
}

static gboolean
rclone_deserialize_fields (AgentsMountPattern *pattern,
                           JsonObject *object,
                           GError **error)
{
  AgentsRcloneMountPattern *self = AGENTS_RCLONE_MOUNT_PATTERN (pattern);
  g_autofree char *mode = NULL;
  const char *type_name = agents_mount_pattern_get_type_name (pattern);

  if (!agents_json_typed_dup_string (object, type_name, "vfs_cache_mode", &mode,
                                     error))
    return FALSE;
  agents_rclone_mount_pattern_set_vfs_cache_mode (self, mode);
  for (guint i = 0; i < G_N_ELEMENTS (rclone_reference_members); i++)
    {
      g_autofree char *value = NULL;

      if (!agents_json_typed_dup_string (object, type_name,
                                         rclone_reference_members[i].member,
                                         &value, error))
        return FALSE;
      s3mount_set_str (rclone_member (self, i), value);
    }
  return TRUE;
}

static gboolean
remote_name_is_valid (const char *name)
{
  gsize len = strlen (name);

  if (len == 0 || len > 64)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isalnum (name[i]) && name[i] != '_')
      return FALSE;
  return TRUE;
}

/* The reference's members this release reads but does not run. */
static gboolean
rclone_validate_reference (AgentsRcloneMountPattern *self, GError **error)
{
  const char *type_name =
    agents_mount_pattern_get_type_name (AGENTS_MOUNT_PATTERN (self));

  if (self->mode != NULL && !g_str_equal (self->mode, "fuse"))
    {
      s3mount_set_config_error (
        error, type_name, "mode",
        g_str_equal (self->mode, "nfs")
          ? _ ("rclone's nfs mode is not supported by this release; use fuse")
          : _ ("the rclone mode must be fuse or nfs"));
      return FALSE;
    }
  if (self->nfs_addr != NULL || self->nfs_mount_options != NULL)
    {
      s3mount_set_config_error (
        error, type_name, self->nfs_addr ? "nfs_addr" : "nfs_mount_options",
        _ ("rclone's nfs mode is not supported by this release; use fuse"));
      return FALSE;
    }
  if (self->remote_name != NULL && !remote_name_is_valid (self->remote_name))
    {
      s3mount_set_config_error (
        error, type_name, "remote_name",
        _ ("a remote name is 1 to 64 letters, digits or underscores"));
      return FALSE;
    }
  if (self->config_file_path != NULL)
    {
      s3mount_set_config_error (
        error, type_name, "config_file_path",
        s3mount_path_is_safe (self->config_file_path)
          ? _ ("an rclone configuration file gives the mount tool broad "
               "authority, which this release cannot acknowledge; give the "
               "credentials in the s3_mount entry instead")
          : _ ("the configuration file must be an absolute path without "
               "control characters"));
      return FALSE;
    }
  return TRUE;
}

static gboolean
rclone_validate (AgentsMountPattern *pattern, GError **error)
{
  AgentsRcloneMountPattern *self = AGENTS_RCLONE_MOUNT_PATTERN (pattern);

  if (!rclone_validate_reference (self, error))
    return FALSE;
  if (self->vfs_cache_mode == NULL ||
      g_strv_contains (vfs_cache_modes, self->vfs_cache_mode))
    return TRUE;
  s3mount_set_config_error (
    error, agents_mount_pattern_get_type_name (pattern), "vfs_cache_mode",
    _ ("the VFS cache mode must be off, minimal, writes or full"));
  return FALSE;
}

static void
rclone_build_mount_argv (AgentsMountPattern *pattern,
                         AgentsS3Mount *mount,
                         const char *path,
                         GPtrArray *argv)
{
  AgentsRcloneMountPattern *self = AGENTS_RCLONE_MOUNT_PATTERN (pattern);
  g_autofree char *prefix = agents_s3_mount_dup_normalized_prefix (mount);
  gboolean read_only = agents_mount_get_read_only (AGENTS_MOUNT (mount));
  const char *mode = self->vfs_cache_mode;

  if (mode == NULL && !read_only)
    mode = "writes";

  g_ptr_array_add (argv, g_strdup ("rclone"));
  g_ptr_array_add (argv, g_strdup ("mount"));
  g_ptr_array_add (argv, g_strdup ("--daemon"));
  if (read_only)
    g_ptr_array_add (argv, g_strdup ("--read-only"));
  add_option (argv, "--vfs-cache-mode=", mode);
  add_option (argv,
              "--cache-dir=", agents_mount_pattern_get_cache_dir (pattern));
  add_args (argv, agents_mount_pattern_get_extra_args (pattern));
  g_ptr_array_add (argv, g_strdup ("--"));
  g_ptr_array_add (argv,
                   g_strdup_printf ("%s:%s%s%s", rclone_remote (self),
                                    agents_s3_mount_get_bucket (mount),
                                    prefix ? "/" : "", prefix ? prefix : ""));
  g_ptr_array_add (argv, g_strdup (path));
}

/* Adds RCLONE_CONFIG_<REMOTE>_<NAME>=value when @value is set. */
static char **
rclone_env_add (AgentsRcloneMountPattern *self,
                char **envp,
                const char *name,
                const char *value)
{
  g_autofree char *remote = g_ascii_strup (rclone_remote (self), -1);
  g_autofree char *variable =
    g_strconcat ("RCLONE_CONFIG_", remote, "_", name, NULL);

  return s3mount_environ_add (envp, variable, value);
}

static char **
rclone_build_environ (AgentsMountPattern *pattern,
                      AgentsS3Mount *mount,
                      char **envp)
{
  AgentsRcloneMountPattern *self = AGENTS_RCLONE_MOUNT_PATTERN (pattern);
  const char *key_id = agents_s3_mount_get_access_key_id (mount);
  const char *endpoint = agents_s3_mount_get_endpoint_url (mount);
  const char *provider = agents_s3_mount_get_s3_provider (mount);

  envp = rclone_env_add (self, envp, "TYPE", "s3");
  /* With an endpoint of its own, the default provider means an
   * S3-compatible store: rclone's AWS provider would address the bucket
   * as a virtual host of the endpoint. */
  if (endpoint != NULL && g_str_equal (provider, "AWS"))
    provider = "Other";
  envp = rclone_env_add (self, envp, "PROVIDER", provider);
  /* Without keys, rclone takes them from the environment or instance. */
  envp = rclone_env_add (self, envp, "ENV_AUTH", key_id ? "false" : "true");
  envp = rclone_env_add (self, envp, "ACCESS_KEY_ID", key_id);
  envp = rclone_env_add (self, envp, "SECRET_ACCESS_KEY",
                         agents_s3_mount_get_secret_access_key (mount));
  envp = rclone_env_add (self, envp, "SESSION_TOKEN",
                         agents_s3_mount_get_session_token (mount));
  envp =
    rclone_env_add (self, envp, "REGION", agents_s3_mount_get_region (mount));
  envp = rclone_env_add (self, envp, "ENDPOINT", endpoint);
  return envp;
}

static void
agents_rclone_mount_pattern_finalize (GObject *object)
{
  AgentsRcloneMountPattern *self = AGENTS_RCLONE_MOUNT_PATTERN (object);

  g_free (self->vfs_cache_mode);
  for (guint i = 0; i < G_N_ELEMENTS (rclone_reference_members); i++)
    g_free (*rclone_member (self, i));

  G_OBJECT_CLASS (agents_rclone_mount_pattern_parent_class)->finalize (object);
}

static void
agents_rclone_mount_pattern_get_property (GObject *object,
                                          guint prop_id,
                                          GValue *value,
                                          GParamSpec *pspec)
{
  AgentsRcloneMountPattern *self = AGENTS_RCLONE_MOUNT_PATTERN (object);

  switch (prop_id)
    {
    case RCLONE_PROP_VFS_CACHE_MODE:
      g_value_set_string (value, self->vfs_cache_mode);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_rclone_mount_pattern_set_property (GObject *object,
                                          guint prop_id,
                                          const GValue *value,
                                          GParamSpec *pspec)
{
  AgentsRcloneMountPattern *self = AGENTS_RCLONE_MOUNT_PATTERN (object);

  switch (prop_id)
    {
    case RCLONE_PROP_VFS_CACHE_MODE:
      agents_rclone_mount_pattern_set_vfs_cache_mode (
        self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_rclone_mount_pattern_class_init (AgentsRcloneMountPatternClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  AgentsMountPatternClass *pattern_class = AGENTS_MOUNT_PATTERN_CLASS (klass);

  object_class->finalize = agents_rclone_mount_pattern_finalize;
  object_class->get_property = agents_rclone_mount_pattern_get_property;
  object_class->set_property = agents_rclone_mount_pattern_set_property;

  pattern_class->type_name = "rclone";
  pattern_class->serialize_fields = rclone_serialize_fields;
  pattern_class->deserialize_fields = rclone_deserialize_fields;
  pattern_class->validate = rclone_validate;
  pattern_class->build_mount_argv = rclone_build_mount_argv;
  pattern_class->build_environ = rclone_build_environ;

  rclone_properties[RCLONE_PROP_VFS_CACHE_MODE] = g_param_spec_string (
    "vfs-cache-mode", NULL, NULL, NULL,
    G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, RCLONE_N_PROPS,
                                     rclone_properties);
}

static void
agents_rclone_mount_pattern_init (AgentsRcloneMountPattern *self)
{
}

AgentsMountPattern *
agents_rclone_mount_pattern_new (void)
{
  return g_object_new (AGENTS_TYPE_RCLONE_MOUNT_PATTERN, NULL);
}

const char *
agents_rclone_mount_pattern_get_vfs_cache_mode (AgentsRcloneMountPattern *self)
{
  g_return_val_if_fail (AGENTS_IS_RCLONE_MOUNT_PATTERN (self), NULL);

  return self->vfs_cache_mode;
}

void
agents_rclone_mount_pattern_set_vfs_cache_mode (AgentsRcloneMountPattern *self,
                                                const char *vfs_cache_mode)
{
  g_return_if_fail (AGENTS_IS_RCLONE_MOUNT_PATTERN (self));

  if (s3mount_set_str (&self->vfs_cache_mode, vfs_cache_mode))
    g_object_notify_by_pspec (G_OBJECT (self),
                              rclone_properties[RCLONE_PROP_VFS_CACHE_MODE]);
}
