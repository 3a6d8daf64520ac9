/* agents-sandbox-types.c - small value types of the sandbox
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include <glib/gi18n-lib.h>

#include "agents-enums.h"
#include "agents-json-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-sandbox-types.h"
#include "agents-workspace-path-policy.h"

/* ---- JSON reading helpers ------------------------------------------- */

static gboolean
read_mode_bits (JsonObject *object,
                const char *member,
                guint *out,
                GError **error)
{
  JsonNode *node;
  gint64 value;

  if (!agents_json_lookup (object, member, G_TYPE_INT64, &node))
    goto invalid;
  if (node == NULL)
    return TRUE;
  value = json_node_get_int (node);
  if (value < 0 || value > AGENTS_FILE_MODE_ALL)
    goto invalid;
  *out = (guint) value;
  return TRUE;

invalid:
  agents_json_set_wrong_type (error, member, _ ("an integer from 0 to 7"));
  return FALSE;
}

static void
set_invalid_argument (GError **error,
                      const char *key,
                      const char *value,
                      const char *message)
{
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  if (key != NULL)
    {
      g_autofree char *valid = g_utf8_make_valid (value, -1);

      g_variant_builder_add (&ctx, "{sv}", key, g_variant_new_string (valid));
    }
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                            g_variant_builder_end (&ctx), "%s", message);
}

/* ---- Permissions ---------------------------------------------------- */

G_DEFINE_BOXED_TYPE (AgentsPermissions,
                     agents_permissions,
                     agents_permissions_copy,
                     agents_permissions_free)

#define DEFAULT_OWNER_MODE AGENTS_FILE_MODE_ALL
#define DEFAULT_OTHERS_MODE (AGENTS_FILE_MODE_READ | AGENTS_FILE_MODE_EXEC)

/**
 * agents_permissions_new:
 *
 * Creates the default permissions: `rwxr-xr-x`, not a directory.
 *
 * Returns: (transfer full): new permissions
 */
AgentsPermissions *
agents_permissions_new (void)
{
  return agents_permissions_new_full (DEFAULT_OWNER_MODE, DEFAULT_OTHERS_MODE,
                                      DEFAULT_OTHERS_MODE, FALSE);
}

/**
 * agents_permissions_new_full:
 * @owner: #AgentsFileMode bits of the owner
 * @group: #AgentsFileMode bits of the group
 * @other: #AgentsFileMode bits of others
 * @directory: whether the permissions describe a directory
 *
 * Creates permissions from their parts. Bits above
 * %AGENTS_FILE_MODE_ALL are dropped.
 *
 * Returns: (transfer full): new permissions
 */
AgentsPermissions *
agents_permissions_new_full (guint owner,
                             guint group,
                             guint other,
                             gboolean directory)
{
  AgentsPermissions *self = g_new0 (AgentsPermissions, 1);

  self->owner = owner & AGENTS_FILE_MODE_ALL;
  self->group = group & AGENTS_FILE_MODE_ALL;
  self->other = other & AGENTS_FILE_MODE_ALL;
  self->directory = !!directory;
  return self;
}

/* Python's repr() of a str, for the reference's error messages. */
static char *
py_repr (const char *text)
{
  char quote = strchr (text, '\'') && !strchr (text, '"') ? '"' : '\'';
  GString *out = g_string_new (NULL);

  g_string_append_c (out, quote);
  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '\\' || *p == quote)
        g_string_append_c (out, '\\');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, quote);
  return g_string_free (out, FALSE);
}

static void
set_mode_error (GError **error,
                const char *what,
                const char *value,
                const char *mode)
{
  g_autofree char *repr = py_repr (value);
  g_autofree char *message = NULL;

  /* TRANSLATORS: the first %s is one of "permissions string length",
   * "permissions type", "read flag", "write flag" or "exec flag". */
  message = g_strdup_printf (_ ("invalid %s: %s"), what, repr);
  set_invalid_argument (error, "mode", mode, message);
}

/* Parses one `rwx` triple; @special is the letter of the setuid/setgid
 * (`s`) or sticky (`t`) bit that may replace the `x`: lowercase with the
 * execute bit, uppercase without. */
static gboolean
parse_triple (
  const char *mode, guint offset, char special, guint *out, GError **error)
{
  const char *triple = mode + offset;
  g_autofree char *text = g_strndup (triple, 3);
  guint bits = 0;

  if (triple[0] == 'r')
    bits |= AGENTS_FILE_MODE_READ;
  else if (triple[0] != '-')
    {
      set_mode_error (error, "read flag", text, mode);
      return FALSE;
    }

  if (triple[1] == 'w')
    bits |= AGENTS_FILE_MODE_WRITE;
  else if (triple[1] != '-')
    {
      set_mode_error (error, "write flag", text, mode);
      return FALSE;
    }

  if (triple[2] == 'x' || triple[2] == special)
    bits |= AGENTS_FILE_MODE_EXEC;
  else if (triple[2] != '-' && triple[2] != g_ascii_toupper (special))
    {
      set_mode_error (error, "exec flag", text, mode);
      return FALSE;
    }

  *out = bits;
  return TRUE;
}

/**
 * agents_permissions_new_from_string:
 * @mode: a mode string as `ls -l` prints it, e.g. `"drwxr-x---"`
 * @error: return location for a #GError
 *
 * Parses a mode string of ten characters, as the reference's
 * `Permissions.from_str()`: the file type (`d` for a directory, `-`
 * otherwise) followed by the owner, group and other triples; a trailing
 * `+` or `@` (ACL, extended attributes) is ignored. Setuid and setgid
 * letters are accepted in the owner and group triples, sticky letters in
 * the other triple: `s` and `t` count as executable, `S` and `T` not.
 * Errors name what is wrong as the reference does, e.g.
 * `invalid permissions type: 'lrwxrwxrwx'`, `invalid exec flag: 'rwq'`,
 * `invalid permissions string length: '-rwxr-xr'`.
 *
 * Returns: (transfer full): the permissions, or %NULL with
 *   %AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT set (context `mode`)
 */
AgentsPermissions *
agents_permissions_new_from_string (const char *mode, GError **error)
{
  g_autofree char *text = NULL;
  guint owner, group, other;
  gsize len;

  g_return_val_if_fail (mode != NULL, NULL);

  len = strlen (mode);
  text = g_strndup (mode, len == 11 && strchr ("+@", mode[10]) ? 10 : len);
  if (strlen (text) != 10)
    {
      set_mode_error (error, "permissions string length", text, mode);
      return NULL;
    }
  if (text[0] != 'd' && text[0] != '-')
    {
      set_mode_error (error, "permissions type", text, mode);
      return NULL;
    }
  if (!parse_triple (text, 1, 's', &owner, error) ||
      !parse_triple (text, 4, 's', &group, error) ||
      !parse_triple (text, 7, 't', &other, error))
    return NULL;

  return agents_permissions_new_full (owner, group, other, text[0] == 'd');
}

/**
 * agents_permissions_new_from_mode:
 * @mode: a numeric file mode, e.g. `0755` or a `st_mode`
 *
 * Creates permissions from the access bits of a numeric mode. The
 * permissions describe a directory when @mode has the directory type bit.
 *
 * Returns: (transfer full): new permissions
 */
AgentsPermissions *
agents_permissions_new_from_mode (guint mode)
{
  return agents_permissions_new_full ((mode >> 6) & 7, (mode >> 3) & 7,
                                      mode & 7, S_ISDIR (mode));
}

/**
 * agents_permissions_copy:
 * @self: permissions
 *
 * Copies @self.
 *
 * Returns: (transfer full): a copy
 */
AgentsPermissions *
agents_permissions_copy (const AgentsPermissions *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return g_memdup2 (self, sizeof *self);
}

/**
 * agents_permissions_free:
 * @self: (nullable): permissions
 *
 * Frees @self.
 */
void
agents_permissions_free (AgentsPermissions *self)
{
  g_free (self);
}

/**
 * agents_permissions_to_mode:
 * @self: permissions
 *
 * Gets the numeric access bits, e.g. `0755`. The file type is not
 * included.
 *
 * Returns: the mode
 */
guint
agents_permissions_to_mode (const AgentsPermissions *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return (self->owner << 6) | (self->group << 3) | self->other;
}

static void
append_triple (GString *string, guint bits)
{
  g_string_append_c (string, bits & AGENTS_FILE_MODE_READ ? 'r' : '-');
  g_string_append_c (string, bits & AGENTS_FILE_MODE_WRITE ? 'w' : '-');
  g_string_append_c (string, bits & AGENTS_FILE_MODE_EXEC ? 'x' : '-');
}

/**
 * agents_permissions_to_string:
 * @self: permissions
 *
 * Formats @self as `ls -l` does, e.g. `"drwxr-xr-x"`.
 *
 * Returns: (transfer full): the mode string
 */
char *
agents_permissions_to_string (const AgentsPermissions *self)
{
  GString *string;

  g_return_val_if_fail (self != NULL, NULL);

  string = g_string_sized_new (11);
  g_string_append_c (string, self->directory ? 'd' : '-');
  append_triple (string, self->owner);
  append_triple (string, self->group);
  append_triple (string, self->other);
  return g_string_free (string, FALSE);
}

/**
 * agents_permissions_equal:
 * @a: permissions
 * @b: permissions
 *
 * Compares two permissions.
 *
 * Returns: whether @a and @b are equal
 */
gboolean
agents_permissions_equal (const AgentsPermissions *a,
                          const AgentsPermissions *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  return a->owner == b->owner && a->group == b->group && a->other == b->other &&
         !a->directory == !b->directory;
}

/**
 * agents_permissions_to_json:
 * @self: permissions
 *
 * Serializes @self as `{"owner": 7, "group": 5, "other": 5,
 * "directory": false}`.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
agents_permissions_to_json (const AgentsPermissions *self)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();

  g_return_val_if_fail (self != NULL, NULL);

  json_builder_begin_object (builder);
  agents_json_add_int (builder, "owner", self->owner);
  agents_json_add_int (builder, "group", self->group);
  agents_json_add_int (builder, "other", self->other);
  agents_json_add_boolean (builder, "directory", self->directory);
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

/**
 * agents_permissions_new_from_json:
 * @node: a JSON object node
 * @error: return location for a #GError
 *
 * Reads permissions serialized by agents_permissions_to_json(). Missing
 * members take their defaults.
 *
 * Returns: (transfer full): the permissions, or %NULL with
 *   %AGENTS_SANDBOX_ERROR_INVALID_JSON set
 */
AgentsPermissions *
agents_permissions_new_from_json (JsonNode *node, GError **error)
{
  g_autoptr (AgentsPermissions) self = agents_permissions_new ();
  JsonObject *object = agents_json_require_object (node, "permissions", error);

  if (object == NULL ||
      !read_mode_bits (object, "owner", &self->owner, error) ||
      !read_mode_bits (object, "group", &self->group, error) ||
      !read_mode_bits (object, "other", &self->other, error) ||
      !agents_json_read_boolean (object, "directory", &self->directory, error))
    return NULL;
  self->directory = !!self->directory;
  return g_steal_pointer (&self);
}

/* ---- Limits --------------------------------------------------------- */

G_DEFINE_BOXED_TYPE (AgentsConcurrencyLimits,
                     agents_concurrency_limits,
                     agents_concurrency_limits_copy,
                     agents_concurrency_limits_free)

/**
 * agents_concurrency_limits_new:
 *
 * Creates the default limits: 4 entries and 4 files at once.
 *
 * Returns: (transfer full): new limits
 */
AgentsConcurrencyLimits *
agents_concurrency_limits_new (void)
{
  return agents_concurrency_limits_new_full (4, 4);
}

/**
 * agents_concurrency_limits_new_full:
 * @manifest_entries: how many manifest entries are materialized at once
 * @local_dir_files: how many files of a `local_dir` entry are copied at
 *   once
 *
 * Creates limits. They are checked by
 * agents_concurrency_limits_validate(), not here.
 *
 * Returns: (transfer full): new limits
 */
AgentsConcurrencyLimits *
agents_concurrency_limits_new_full (gint64 manifest_entries,
                                    gint64 local_dir_files)
{
  AgentsConcurrencyLimits *self = g_new0 (AgentsConcurrencyLimits, 1);

  self->manifest_entries = manifest_entries;
  self->local_dir_files = local_dir_files;
  return self;
}

/**
 * agents_concurrency_limits_copy:
 * @self: limits
 *
 * Copies @self.
 *
 * Returns: (transfer full): a copy
 */
AgentsConcurrencyLimits *
agents_concurrency_limits_copy (const AgentsConcurrencyLimits *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return g_memdup2 (self, sizeof *self);
}

/**
 * agents_concurrency_limits_free:
 * @self: (nullable): limits
 *
 * Frees @self.
 */
void
agents_concurrency_limits_free (AgentsConcurrencyLimits *self)
{
  g_free (self);
}

/**
 * agents_concurrency_limits_equal:
 * @a: limits
 * @b: limits
 *
 * Compares two limits.
 *
 * Returns: whether @a and @b are equal
 */
gboolean
agents_concurrency_limits_equal (const AgentsConcurrencyLimits *a,
                                 const AgentsConcurrencyLimits *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  return a->manifest_entries == b->manifest_entries &&
         a->local_dir_files == b->local_dir_files;
}

static gboolean
check_at_least_one (gint64 value, const char *name, GError **error)
{
  g_autofree char *message = NULL;
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  if (value >= 1)
    return TRUE;

  message = g_strdup_printf (_ ("%s must be at least 1"), name);
  g_variant_builder_add (&ctx, "{sv}", "field", g_variant_new_string (name));
  g_variant_builder_add (&ctx, "{sv}", "value", g_variant_new_int64 (value));
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
                            g_variant_builder_end (&ctx), "%s", message);
  return FALSE;
}

/**
 * agents_concurrency_limits_validate:
 * @self: limits
 * @error: return location for a #GError
 *
 * Checks that every limit is at least 1. The error message names the
 * first offending field, e.g.
 * `"concurrency_limits.manifest_entries must be at least 1"`.
 *
 * Returns: %TRUE if the limits are valid
 */
gboolean
agents_concurrency_limits_validate (const AgentsConcurrencyLimits *self,
                                    GError **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return check_at_least_one (self->manifest_entries,
                             "concurrency_limits.manifest_entries", error) &&
         check_at_least_one (self->local_dir_files,
                             "concurrency_limits.local_dir_files", error);
}

G_DEFINE_BOXED_TYPE (AgentsArchiveLimits,
                     agents_archive_limits,
                     agents_archive_limits_copy,
                     agents_archive_limits_free)

/**
 * agents_archive_limits_new:
 *
 * Creates the default limits: 1 GiB of input, 4 GiB extracted, 100,000
 * members.
 *
 * Returns: (transfer full): new limits
 */
AgentsArchiveLimits *
agents_archive_limits_new (void)
{
  return agents_archive_limits_new_full (G_GINT64_CONSTANT (1) << 30,
                                         G_GINT64_CONSTANT (4) << 30, 100000);
}

/**
 * agents_archive_limits_new_full:
 * @max_input_bytes: the largest archive accepted
 * @max_extracted_bytes: the most bytes an archive may expand to
 * @max_members: the most members an archive may have
 *
 * Creates limits. They are checked by agents_archive_limits_validate(),
 * not here.
 *
 * Returns: (transfer full): new limits
 */
AgentsArchiveLimits *
agents_archive_limits_new_full (gint64 max_input_bytes,
                                gint64 max_extracted_bytes,
                                gint64 max_members)
{
  AgentsArchiveLimits *self = g_new0 (AgentsArchiveLimits, 1);

  self->max_input_bytes = max_input_bytes;
  self->max_extracted_bytes = max_extracted_bytes;
  self->max_members = max_members;
  return self;
}

/**
 * agents_archive_limits_copy:
 * @self: limits
 *
 * Copies @self.
 *
 * Returns: (transfer full): a copy
 */
AgentsArchiveLimits *
agents_archive_limits_copy (const AgentsArchiveLimits *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return g_memdup2 (self, sizeof *self);
}

/**
 * agents_archive_limits_free:
 * @self: (nullable): limits
 *
 * Frees @self.
 */
void
agents_archive_limits_free (AgentsArchiveLimits *self)
{
  g_free (self);
}

/**
 * agents_archive_limits_equal:
 * @a: limits
 * @b: limits
 *
 * Compares two limits.
 *
 * Returns: whether @a and @b are equal
 */
gboolean
agents_archive_limits_equal (const AgentsArchiveLimits *a,
                             const AgentsArchiveLimits *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  return a->max_input_bytes == b->max_input_bytes &&
         a->max_extracted_bytes == b->max_extracted_bytes &&
         a->max_members == b->max_members;
}

/**
 * agents_archive_limits_validate:
 * @self: limits
 * @error: return location for a #GError
 *
 * Checks that every limit is at least 1. The error message names the
 * first offending field, e.g.
 * `"archive_limits.max_input_bytes must be at least 1"`.
 *
 * Returns: %TRUE if the limits are valid
 */
gboolean
agents_archive_limits_validate (const AgentsArchiveLimits *self, GError **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return check_at_least_one (self->max_input_bytes,
                             "archive_limits.max_input_bytes", error) &&
         check_at_least_one (self->max_extracted_bytes,
                             "archive_limits.max_extracted_bytes", error) &&
         check_at_least_one (self->max_members, "archive_limits.max_members",
                             error);
}

/* ---- ExecResult ----------------------------------------------------- */

/**
 * AgentsExecResult:
 *
 * What a command run in a sandbox printed and how it exited.
 */
struct _AgentsExecResult
{
  GObject parent_instance;

  GBytes *stdout_bytes;
  GBytes *stderr_bytes;
  int exit_code;
};

G_DEFINE_FINAL_TYPE (AgentsExecResult, agents_exec_result, G_TYPE_OBJECT)

enum
{
  EXEC_PROP_0,
  EXEC_PROP_STDOUT,
  EXEC_PROP_STDERR,
  EXEC_PROP_EXIT_CODE,
  EXEC_N_PROPS
};

static GParamSpec *exec_properties[EXEC_N_PROPS];

static GBytes *
bytes_or_empty (GBytes *bytes)
{
  return bytes ? g_bytes_ref (bytes) : g_bytes_new (NULL, 0);
}

static void
agents_exec_result_finalize (GObject *object)
{
  AgentsExecResult *self = AGENTS_EXEC_RESULT (object);

  g_clear_pointer (&self->stdout_bytes, g_bytes_unref);
  g_clear_pointer (&self->stderr_bytes, g_bytes_unref);

  G_OBJECT_CLASS (agents_exec_result_parent_class)->finalize (object);
}

static void
agents_exec_result_get_property (GObject *object,
                                 guint prop_id,
                                 GValue *value,
                                 GParamSpec *pspec)
{
  AgentsExecResult *self = AGENTS_EXEC_RESULT (object);

  switch (prop_id)
    {
    case EXEC_PROP_STDOUT:
      g_value_set_boxed (value, self->stdout_bytes);
      break;
    case EXEC_PROP_STDERR:
      g_value_set_boxed (value, self->stderr_bytes);
      break;
    case EXEC_PROP_EXIT_CODE:
      g_value_set_int (value, self->exit_code);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_exec_result_set_property (GObject *object,
                                 guint prop_id,
                                 const GValue *value,
                                 GParamSpec *pspec)
{
  AgentsExecResult *self = AGENTS_EXEC_RESULT (object);

  switch (prop_id)
    {
    case EXEC_PROP_STDOUT:
      g_clear_pointer (&self->stdout_bytes, g_bytes_unref);
      self->stdout_bytes = bytes_or_empty (g_value_get_boxed (value));
      break;
    case EXEC_PROP_STDERR:
      g_clear_pointer (&self->stderr_bytes, g_bytes_unref);
      self->stderr_bytes = bytes_or_empty (g_value_get_boxed (value));
      break;
    case EXEC_PROP_EXIT_CODE:
      self->exit_code = g_value_get_int (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_exec_result_class_init (AgentsExecResultClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = agents_exec_result_finalize;
  object_class->get_property = agents_exec_result_get_property;
  object_class->set_property = agents_exec_result_set_property;

  /**
   * AgentsExecResult:stdout:
   *
   * What the command wrote to its standard output.
   */
  exec_properties[EXEC_PROP_STDOUT] =
    g_param_spec_boxed ("stdout", NULL, NULL, G_TYPE_BYTES,
                        G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                          G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * AgentsExecResult:stderr:
   *
   * What the command wrote to its standard error.
   */
  exec_properties[EXEC_PROP_STDERR] =
    g_param_spec_boxed ("stderr", NULL, NULL, G_TYPE_BYTES,
                        G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                          G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * AgentsExecResult:exit-code:
   *
   * The exit status of the command.
   */
  exec_properties[EXEC_PROP_EXIT_CODE] =
    g_param_spec_int ("exit-code", NULL, NULL, G_MININT, G_MAXINT, 0,
                      G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                        G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, EXEC_N_PROPS,
                                     exec_properties);
}

static void
agents_exec_result_init (AgentsExecResult *self)
{
}

/**
 * agents_exec_result_new:
 * @stdout_bytes: (nullable): the standard output, %NULL for none
 * @stderr_bytes: (nullable): the standard error, %NULL for none
 * @exit_code: the exit status
 *
 * Creates an exec result.
 *
 * Returns: (transfer full): a new #AgentsExecResult
 */
AgentsExecResult *
agents_exec_result_new (GBytes *stdout_bytes,
                        GBytes *stderr_bytes,
                        int exit_code)
{
  return g_object_new (AGENTS_TYPE_EXEC_RESULT, "stdout", stdout_bytes,
                       "stderr", stderr_bytes, "exit-code", exit_code, NULL);
}

/**
 * agents_exec_result_get_stdout:
 * @self: an #AgentsExecResult
 *
 * Gets the standard output, possibly empty.
 *
 * Returns: (transfer none): the bytes
 */
GBytes *
agents_exec_result_get_stdout (AgentsExecResult *self)
{
  g_return_val_if_fail (AGENTS_IS_EXEC_RESULT (self), NULL);

  return self->stdout_bytes;
}

/**
 * agents_exec_result_get_stderr:
 * @self: an #AgentsExecResult
 *
 * Gets the standard error, possibly empty.
 *
 * Returns: (transfer none): the bytes
 */
GBytes *
agents_exec_result_get_stderr (AgentsExecResult *self)
{
  g_return_val_if_fail (AGENTS_IS_EXEC_RESULT (self), NULL);

  return self->stderr_bytes;
}

static char *
bytes_to_utf8 (GBytes *bytes)
{
  gsize size = 0;
  const char *data = g_bytes_get_data (bytes, &size);

  if (size == 0)
    return g_strdup ("");
  return g_utf8_make_valid (data, size);
}

/**
 * agents_exec_result_dup_stdout_text:
 * @self: an #AgentsExecResult
 *
 * Gets the standard output as text; invalid UTF-8 is replaced.
 *
 * Returns: (transfer full): the text
 */
char *
agents_exec_result_dup_stdout_text (AgentsExecResult *self)
{
  g_return_val_if_fail (AGENTS_IS_EXEC_RESULT (self), NULL);

  return bytes_to_utf8 (self->stdout_bytes);
}

/**
 * agents_exec_result_dup_stderr_text:
 * @self: an #AgentsExecResult
 *
 * Gets the standard error as text; invalid UTF-8 is replaced.
 *
 * Returns: (transfer full): the text
 */
char *
agents_exec_result_dup_stderr_text (AgentsExecResult *self)
{
  g_return_val_if_fail (AGENTS_IS_EXEC_RESULT (self), NULL);

  return bytes_to_utf8 (self->stderr_bytes);
}

/**
 * agents_exec_result_get_exit_code:
 * @self: an #AgentsExecResult
 *
 * Gets the exit status.
 *
 * Returns: the exit status
 */
int
agents_exec_result_get_exit_code (AgentsExecResult *self)
{
  g_return_val_if_fail (AGENTS_IS_EXEC_RESULT (self), -1);

  return self->exit_code;
}

/**
 * agents_exec_result_ok:
 * @self: an #AgentsExecResult
 *
 * Checks whether the command succeeded.
 *
 * Returns: whether the exit status is 0
 */
gboolean
agents_exec_result_ok (AgentsExecResult *self)
{
  g_return_val_if_fail (AGENTS_IS_EXEC_RESULT (self), FALSE);

  return self->exit_code == 0;
}

/* ---- FileEntry ------------------------------------------------------ */

/**
 * AgentsFileEntry:
 *
 * One row of a directory listing of a workspace.
 */
struct _AgentsFileEntry
{
  GObject parent_instance;

  char *path;
  AgentsPermissions *permissions;
  char *owner;
  char *group;
  guint64 size;
  AgentsEntryKind kind;
};

G_DEFINE_FINAL_TYPE (AgentsFileEntry, agents_file_entry, G_TYPE_OBJECT)

enum
{
  ENTRY_PROP_0,
  ENTRY_PROP_PATH,
  ENTRY_PROP_PERMISSIONS,
  ENTRY_PROP_OWNER,
  ENTRY_PROP_GROUP,
  ENTRY_PROP_SIZE,
  ENTRY_PROP_KIND,
  ENTRY_N_PROPS
};

static GParamSpec *entry_properties[ENTRY_N_PROPS];

static void
agents_file_entry_finalize (GObject *object)
{
  AgentsFileEntry *self = AGENTS_FILE_ENTRY (object);

  g_free (self->path);
  g_clear_pointer (&self->permissions, agents_permissions_free);
  g_free (self->owner);
  g_free (self->group);

  G_OBJECT_CLASS (agents_file_entry_parent_class)->finalize (object);
}

static void
agents_file_entry_get_property (GObject *object,
                                guint prop_id,
                                GValue *value,
                                GParamSpec *pspec)
{
  AgentsFileEntry *self = AGENTS_FILE_ENTRY (object);

  switch (prop_id)
    {
    case ENTRY_PROP_PATH:
      g_value_set_string (value, self->path);
      break;
    case ENTRY_PROP_PERMISSIONS:
      g_value_set_boxed (value, self->permissions);
      break;
    case ENTRY_PROP_OWNER:
      g_value_set_string (value, self->owner);
      break;
    case ENTRY_PROP_GROUP:
      g_value_set_string (value, self->group);
      break;
    case ENTRY_PROP_SIZE:
      g_value_set_uint64 (value, self->size);
      break;
    case ENTRY_PROP_KIND:
      g_value_set_enum (value, self->kind);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_file_entry_set_property (GObject *object,
                                guint prop_id,
                                const GValue *value,
                                GParamSpec *pspec)
{
  AgentsFileEntry *self = AGENTS_FILE_ENTRY (object);

  switch (prop_id)
    {
    case ENTRY_PROP_PATH:
      g_free (self->path);
      self->path = g_value_dup_string (value);
      break;
    case ENTRY_PROP_PERMISSIONS:
      g_clear_pointer (&self->permissions, agents_permissions_free);
      self->permissions = g_value_dup_boxed (value);
      if (self->permissions == NULL)
        self->permissions = agents_permissions_new ();
      break;
    case ENTRY_PROP_OWNER:
      g_free (self->owner);
      self->owner = g_value_dup_string (value);
      break;
    case ENTRY_PROP_GROUP:
      g_free (self->group);
      self->group = g_value_dup_string (value);
      break;
    case ENTRY_PROP_SIZE:
      self->size = g_value_get_uint64 (value);
      break;
    case ENTRY_PROP_KIND:
      self->kind = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_file_entry_class_init (AgentsFileEntryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                      G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->finalize = agents_file_entry_finalize;
  object_class->get_property = agents_file_entry_get_property;
  object_class->set_property = agents_file_entry_set_property;

  /**
   * AgentsFileEntry:path:
   *
   * The absolute path of the file.
   */
  entry_properties[ENTRY_PROP_PATH] =
    g_param_spec_string ("path", NULL, NULL, NULL, flags);

  /**
   * AgentsFileEntry:permissions:
   *
   * The permissions of the file.
   */
  entry_properties[ENTRY_PROP_PERMISSIONS] = g_param_spec_boxed (
    "permissions", NULL, NULL, AGENTS_TYPE_PERMISSIONS, flags);

  /**
   * AgentsFileEntry:owner:
   *
   * The name of the owner.
   */
  entry_properties[ENTRY_PROP_OWNER] =
    g_param_spec_string ("owner", NULL, NULL, NULL, flags);

  /**
   * AgentsFileEntry:group:
   *
   * The name of the group.
   */
  entry_properties[ENTRY_PROP_GROUP] =
    g_param_spec_string ("group", NULL, NULL, NULL, flags);

  /**
   * AgentsFileEntry:size:
   *
   * The size in bytes (0 for devices).
   */
  entry_properties[ENTRY_PROP_SIZE] =
    g_param_spec_uint64 ("size", NULL, NULL, 0, G_MAXUINT64, 0, flags);

  /**
   * AgentsFileEntry:kind:
   *
   * The kind of file.
   */
  entry_properties[ENTRY_PROP_KIND] = g_param_spec_enum (
    "kind", NULL, NULL, AGENTS_TYPE_ENTRY_KIND, AGENTS_ENTRY_KIND_FILE, flags);

  g_object_class_install_properties (object_class, ENTRY_N_PROPS,
                                     entry_properties);
}

static void
agents_file_entry_init (AgentsFileEntry *self)
{
  self->permissions = agents_permissions_new ();
}

/**
 * agents_file_entry_new:
 * @path: the absolute path of the file
 * @permissions: its permissions
 * @owner: the name of its owner
 * @group: the name of its group
 * @size: its size in bytes
 * @kind: its kind
 *
 * Creates a listing row.
 *
 * Returns: (transfer full): a new #AgentsFileEntry
 */
AgentsFileEntry *
agents_file_entry_new (const char *path,
                       const AgentsPermissions *permissions,
                       const char *owner,
                       const char *group,
                       guint64 size,
                       AgentsEntryKind kind)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (permissions != NULL, NULL);

  return g_object_new (AGENTS_TYPE_FILE_ENTRY, "path", path, "permissions",
                       permissions, "owner", owner, "group", group, "size",
                       size, "kind", kind, NULL);
}

/**
 * agents_file_entry_get_path:
 * @self: an #AgentsFileEntry
 *
 * Gets the absolute path of the file.
 *
 * Returns: the path
 */
const char *
agents_file_entry_get_path (AgentsFileEntry *self)
{
  g_return_val_if_fail (AGENTS_IS_FILE_ENTRY (self), NULL);

  return self->path;
}

/**
 * agents_file_entry_get_permissions:
 * @self: an #AgentsFileEntry
 *
 * Gets the permissions of the file.
 *
 * Returns: (transfer none): the permissions
 */
const AgentsPermissions *
agents_file_entry_get_permissions (AgentsFileEntry *self)
{
  g_return_val_if_fail (AGENTS_IS_FILE_ENTRY (self), NULL);

  return self->permissions;
}

/**
 * agents_file_entry_get_owner:
 * @self: an #AgentsFileEntry
 *
 * Gets the name of the owner.
 *
 * Returns: (nullable): the owner
 */
const char *
agents_file_entry_get_owner (AgentsFileEntry *self)
{
  g_return_val_if_fail (AGENTS_IS_FILE_ENTRY (self), NULL);

  return self->owner;
}

/**
 * agents_file_entry_get_group:
 * @self: an #AgentsFileEntry
 *
 * Gets the name of the group.
 *
 * Returns: (nullable): the group
 */
const char *
agents_file_entry_get_group (AgentsFileEntry *self)
{
  g_return_val_if_fail (AGENTS_IS_FILE_ENTRY (self), NULL);

  return self->group;
}

/**
 * agents_file_entry_get_size:
 * @self: an #AgentsFileEntry
 *
 * Gets the size in bytes.
 *
 * Returns: the size
 */
guint64
agents_file_entry_get_size (AgentsFileEntry *self)
{
  g_return_val_if_fail (AGENTS_IS_FILE_ENTRY (self), 0);

  return self->size;
}

/**
 * agents_file_entry_get_kind:
 * @self: an #AgentsFileEntry
 *
 * Gets the kind of file.
 *
 * Returns: the kind
 */
AgentsEntryKind
agents_file_entry_get_kind (AgentsFileEntry *self)
{
  g_return_val_if_fail (AGENTS_IS_FILE_ENTRY (self), AGENTS_ENTRY_KIND_OTHER);

  return self->kind;
}

/**
 * agents_file_entry_is_dir:
 * @self: an #AgentsFileEntry
 *
 * Checks whether the file is a directory.
 *
 * Returns: whether the kind is %AGENTS_ENTRY_KIND_DIRECTORY
 */
gboolean
agents_file_entry_is_dir (AgentsFileEntry *self)
{
  g_return_val_if_fail (AGENTS_IS_FILE_ENTRY (self), FALSE);

  return self->kind == AGENTS_ENTRY_KIND_DIRECTORY;
}

/* A field of an `ls -l` line: where it starts and how long it is. */
typedef struct
{
  const char *start;
  gsize len;
} LsField;

static const char *
next_field (const char *p, LsField *field)
{
  while (*p == ' ' || *p == '\t')
    p++;
  field->start = p;
  while (*p != '\0' && *p != ' ' && *p != '\t')
    p++;
  field->len = p - field->start;
  return p;
}

static gboolean
field_is_number (const LsField *field, guint64 *out)
{
  g_autofree char *text = g_strndup (field->start, field->len);

  return g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT64, out, NULL);
}

static gboolean
field_is_iso_date (const LsField *field)
{
  /* `--time-style=long-iso` prints `2024-01-31 12:00`: two fields. */
  return field->len == 10 && field->start[4] == '-' && field->start[7] == '-';
}

static AgentsEntryKind
kind_from_type_char (char type)
{
  switch (type)
    {
    case 'd':
      return AGENTS_ENTRY_KIND_DIRECTORY;
    case '-':
      return AGENTS_ENTRY_KIND_FILE;
    case 'l':
      return AGENTS_ENTRY_KIND_SYMLINK;
    default:
      return AGENTS_ENTRY_KIND_OTHER;
    }
}

static char *
join_listing_path (const char *dir, const char *name)
{
  /* `ls -la FILE` prints the path as given: keep it, as Path joins do. */
  g_autofree char *joined = g_path_is_absolute (name)
                              ? g_strdup (name)
                              : g_strconcat (dir, "/", name, NULL);
  GString *path = g_string_sized_new (strlen (joined));

  for (const char *p = joined; *p != '\0'; p++)
    if (*p != '/' || path->len == 0 || path->str[path->len - 1] != '/')
      g_string_append_c (path, *p);
  return g_string_free (path, FALSE);
}

static void
set_malformed_line (GError **error, const char *line)
{
  /* The output of a command in the sandbox: any bytes. */
  g_autofree char *valid = g_utf8_make_valid (line, -1);
  g_autofree char *message =
    g_strdup_printf (_ ("malformed ls output line: %s"), valid);

  set_invalid_argument (error, "line", line, message);
}

static gboolean
next_fields (const char **p, LsField *fields, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      *p = next_field (*p, &fields[i]);
      if (fields[i].len == 0)
        return FALSE;
    }
  return TRUE;
}

/* Splits a line into its fields: perms links owner group size, then the
 * date in two or three fields, then the name after a single space. A
 * device shows `major, minor` where others show a size. */
static gboolean
split_ls_line (const char *line,
               LsField *fields,
               gboolean is_device,
               const char **name)
{
  const char *p = line;
  LsField minor;
  guint n_date;

  if (!next_fields (&p, fields, 5))
    return FALSE;
  if (is_device && fields[4].start[fields[4].len - 1] == ',' &&
      !next_fields (&p, &minor, 1))
    return FALSE;
  if (!next_fields (&p, &fields[5], 1))
    return FALSE;
  n_date = field_is_iso_date (&fields[5]) ? 2 : 3;
  if (!next_fields (&p, &fields[6], n_date - 1))
    return FALSE;
  if (*p != ' ' || p[1] == '\0')
    return FALSE;
  *name = p + 1;
  return TRUE;
}

static gboolean
is_skipped_line (const char *line)
{
  LsField first;

  next_field (line, &first);
  return first.len == 0 ||
         (first.len == 5 && strncmp (first.start, "total", 5) == 0);
}

/* The permissions of a listed entry. A mode field that is no mode at
 * all gives NULL without an error (the line is malformed); a triple with
 * a letter out of place is the reference's error (`invalid exec flag`). */
static AgentsPermissions *
parse_ls_permissions (const char *line, GError **error)
{
  LsField field;
  g_autofree char *text = NULL;

  /* GNU appends `.` (SELinux context) or `+` (ACL), macOS `@`. */
  next_field (line, &field);
  if ((field.len != 10 &&
       !(field.len == 11 && strchr (".+@", field.start[10]) != NULL)) ||
      strchr ("-dlcbps", field.start[0]) == NULL)
    return NULL;
  /* Only rwx bits and directory-ness are kept: other types read as `-`. */
  text = g_strndup (field.start, 10);
  if (text[0] != 'd')
    text[0] = '-';
  return agents_permissions_new_from_string (text, error);
}

/* Cuts `NAME -> TARGET` of a symbolic link down to NAME. Either side may
 * hold ` -> ` itself: the size of a link is the length of its target,
 * which tells the boundary. When no boundary or several fit, the entry
 * is left out, as the reference does, rather than shown under a name
 * that is not its own. */
static gboolean
cut_link_target (char *name, guint64 size)
{
  char *found = NULL;
  guint n_found = 0;

  for (char *arrow = strstr (name, " -> "); arrow != NULL;
       arrow = strstr (arrow + 1, " -> "))
    if (strlen (arrow + 4) == size)
      {
        found = arrow;
        n_found++;
      }
  if (n_found != 1)
    return FALSE;
  *found = '\0';
  return TRUE;
}

/* Parses one line; returns NULL without an error for lines that name no
 * entry of the directory. */
static AgentsFileEntry *
parse_ls_line (const char *line, const char *dir, GError **error)
{
  LsField fields[8];
  g_autoptr (AgentsPermissions) permissions = NULL;
  g_autoptr (GError) permissions_error = NULL;
  g_autofree char *owner = NULL;
  g_autofree char *group = NULL;
  g_autofree char *name = NULL;
  g_autofree char *path = NULL;
  const char *name_start = NULL;
  char type;
  guint64 links, size = 0;
  gboolean is_device;

  if (is_skipped_line (line))
    return NULL;

  permissions = parse_ls_permissions (line, &permissions_error);
  if (permissions_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&permissions_error));
      return NULL;
    }
  next_field (line, &fields[0]);
  type = fields[0].start[0];
  is_device = type == 'c' || type == 'b';
  if (permissions == NULL ||
      !split_ls_line (line, fields, is_device, &name_start) ||
      !field_is_number (&fields[1], &links) ||
      (!is_device && !field_is_number (&fields[4], &size)))
    {
      set_malformed_line (error, line);
      return NULL;
    }

  name = g_strdup (name_start);
  if (type == 'l' && strstr (name, " -> ") != NULL &&
      !cut_link_target (name, size))
    return NULL;
  if (g_str_equal (name, ".") || g_str_equal (name, ".."))
    return NULL;

  owner = g_strndup (fields[2].start, fields[2].len);
  group = g_strndup (fields[3].start, fields[3].len);
  path = join_listing_path (dir, name);
  return agents_file_entry_new (path, permissions, owner, group,
                                is_device ? 0 : size,
                                kind_from_type_char (type));
}

/**
 * agents_file_entry_parse_ls:
 * @ls_output: what `ls -la @dir` printed (GNU coreutils or busybox)
 * @dir: the absolute directory that was listed
 * @error: return location for a #GError
 *
 * Parses a long listing. The `total` line and the `.` and `..` entries
 * are skipped; symbolic links keep their name only; devices get size 0.
 *
 * Returns: (transfer full) (element-type AgentsFileEntry): the entries,
 *   or %NULL with %AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT set
 */
GPtrArray *
agents_file_entry_parse_ls (const char *ls_output,
                            const char *dir,
                            GError **error)
{
  g_autoptr (GPtrArray) entries =
    g_ptr_array_new_with_free_func (g_object_unref);
  g_auto (GStrv) lines = NULL;

  g_return_val_if_fail (ls_output != NULL, NULL);
  g_return_val_if_fail (dir != NULL, NULL);

  lines = g_strsplit (ls_output, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      GError *local_error = NULL;
      AgentsFileEntry *entry;
      gsize len = strlen (lines[i]);

      if (len > 0 && lines[i][len - 1] == '\r')
        lines[i][len - 1] = '\0';
      entry = parse_ls_line (lines[i], dir, &local_error);
      if (local_error != NULL)
        {
          g_propagate_error (error, local_error);
          return NULL;
        }
      if (entry != NULL)
        g_ptr_array_add (entries, entry);
    }
  return g_steal_pointer (&entries);
}

/* ---- User ----------------------------------------------------------- */

/**
 * AgentsUser:
 *
 * A user account to provision in a sandbox.
 */
struct _AgentsUser
{
  GObject parent_instance;

  char *name;
};

G_DEFINE_FINAL_TYPE (AgentsUser, agents_user, G_TYPE_OBJECT)

enum
{
  USER_PROP_0,
  USER_PROP_NAME,
  USER_N_PROPS
};

static GParamSpec *user_properties[USER_N_PROPS];

static void
agents_user_finalize (GObject *object)
{
  AgentsUser *self = AGENTS_USER (object);

  g_free (self->name);

  G_OBJECT_CLASS (agents_user_parent_class)->finalize (object);
}

static void
agents_user_get_property (GObject *object,
                          guint prop_id,
                          GValue *value,
                          GParamSpec *pspec)
{
  AgentsUser *self = AGENTS_USER (object);

  switch (prop_id)
    {
    case USER_PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_user_set_property (GObject *object,
                          guint prop_id,
                          const GValue *value,
                          GParamSpec *pspec)
{
  AgentsUser *self = AGENTS_USER (object);

  switch (prop_id)
    {
    case USER_PROP_NAME:
      g_free (self->name);
      self->name = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_user_class_init (AgentsUserClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = agents_user_finalize;
  object_class->get_property = agents_user_get_property;
  object_class->set_property = agents_user_set_property;

  /**
   * AgentsUser:name:
   *
   * The user name.
   */
  user_properties[USER_PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL, "",
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                           G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, USER_N_PROPS,
                                     user_properties);
}

static void
agents_user_init (AgentsUser *self)
{
}

/**
 * agents_user_new:
 * @name: the user name
 *
 * Creates a user.
 *
 * Returns: (transfer full): a new #AgentsUser
 */
AgentsUser *
agents_user_new (const char *name)
{
  g_return_val_if_fail (name != NULL, NULL);

  return g_object_new (AGENTS_TYPE_USER, "name", name, NULL);
}

/**
 * agents_user_get_name:
 * @self: an #AgentsUser
 *
 * Gets the user name.
 *
 * Returns: the name
 */
const char *
agents_user_get_name (AgentsUser *self)
{
  g_return_val_if_fail (AGENTS_IS_USER (self), NULL);

  return self->name;
}

/**
 * agents_user_equal:
 * @a: (nullable): an #AgentsUser
 * @b: (nullable): an #AgentsUser
 *
 * Compares two users by value.
 *
 * Returns: whether @a and @b have the same name
 */
gboolean
agents_user_equal (AgentsUser *a, AgentsUser *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  return g_strcmp0 (a->name, b->name) == 0;
}

/**
 * agents_user_hash:
 * @self: an #AgentsUser
 *
 * Hashes a user by its name, consistently with agents_user_equal().
 *
 * Returns: the hash
 */
guint
agents_user_hash (AgentsUser *self)
{
  g_return_val_if_fail (AGENTS_IS_USER (self), 0);

  return g_str_hash (self->name);
}

/**
 * agents_user_to_json:
 * @self: an #AgentsUser
 *
 * Serializes @self as `{"name": …}`.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
agents_user_to_json (AgentsUser *self)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();

  g_return_val_if_fail (AGENTS_IS_USER (self), NULL);

  json_builder_begin_object (builder);
  agents_json_add_string (builder, "name", self->name);
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

/**
 * agents_user_new_from_json:
 * @node: a JSON object node
 * @error: return location for a #GError
 *
 * Reads a user serialized by agents_user_to_json().
 *
 * Returns: (transfer full): the user, or %NULL with
 *   %AGENTS_SANDBOX_ERROR_INVALID_JSON set
 */
AgentsUser *
agents_user_new_from_json (JsonNode *node, GError **error)
{
  JsonObject *object = agents_json_require_object (node, "user", error);
  const char *name = NULL;

  if (object == NULL ||
      !agents_json_read_string (object, "name", FALSE, TRUE, &name, error))
    return NULL;
  return agents_user_new (name);
}

/* ---- Group ---------------------------------------------------------- */

/**
 * AgentsGroup:
 *
 * A group account to provision in a sandbox, with its members.
 */
struct _AgentsGroup
{
  GObject parent_instance;

  char *name;
  GPtrArray *users;
};

G_DEFINE_FINAL_TYPE (AgentsGroup, agents_group, G_TYPE_OBJECT)

enum
{
  GROUP_PROP_0,
  GROUP_PROP_NAME,
  GROUP_N_PROPS
};

static GParamSpec *group_properties[GROUP_N_PROPS];

static void
agents_group_finalize (GObject *object)
{
  AgentsGroup *self = AGENTS_GROUP (object);

  g_free (self->name);
  g_ptr_array_unref (self->users);

  G_OBJECT_CLASS (agents_group_parent_class)->finalize (object);
}

static void
agents_group_get_property (GObject *object,
                           guint prop_id,
                           GValue *value,
                           GParamSpec *pspec)
{
  AgentsGroup *self = AGENTS_GROUP (object);

  switch (prop_id)
    {
    case GROUP_PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_group_set_property (GObject *object,
                           guint prop_id,
                           const GValue *value,
                           GParamSpec *pspec)
{
  AgentsGroup *self = AGENTS_GROUP (object);

  switch (prop_id)
    {
    case GROUP_PROP_NAME:
      g_free (self->name);
      self->name = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_group_class_init (AgentsGroupClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = agents_group_finalize;
  object_class->get_property = agents_group_get_property;
  object_class->set_property = agents_group_set_property;

  /**
   * AgentsGroup:name:
   *
   * The group name.
   */
  group_properties[GROUP_PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL, "",
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                           G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, GROUP_N_PROPS,
                                     group_properties);
}

static void
agents_group_init (AgentsGroup *self)
{
  self->users = g_ptr_array_new_with_free_func (g_object_unref);
}

/**
 * agents_group_new:
 * @name: the group name
 * @users: (array length=n_users) (nullable): the members
 * @n_users: the number of members
 *
 * Creates a group.
 *
 * Returns: (transfer full): a new #AgentsGroup
 */
AgentsGroup *
agents_group_new (const char *name, AgentsUser **users, guint n_users)
{
  AgentsGroup *self;

  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (users != NULL || n_users == 0, NULL);

  self = g_object_new (AGENTS_TYPE_GROUP, "name", name, NULL);
  for (guint i = 0; i < n_users; i++)
    agents_group_add_user (self, users[i]);
  return self;
}

/**
 * agents_group_get_name:
 * @self: an #AgentsGroup
 *
 * Gets the group name.
 *
 * Returns: the name
 */
const char *
agents_group_get_name (AgentsGroup *self)
{
  g_return_val_if_fail (AGENTS_IS_GROUP (self), NULL);

  return self->name;
}

/**
 * agents_group_get_users:
 * @self: an #AgentsGroup
 *
 * Gets the members of the group.
 *
 * Returns: (transfer none) (element-type AgentsUser): the members
 */
GPtrArray *
agents_group_get_users (AgentsGroup *self)
{
  g_return_val_if_fail (AGENTS_IS_GROUP (self), NULL);

  return self->users;
}

/**
 * agents_group_add_user:
 * @self: an #AgentsGroup
 * @user: a member to add
 *
 * Adds a member to the group.
 */
void
agents_group_add_user (AgentsGroup *self, AgentsUser *user)
{
  g_return_if_fail (AGENTS_IS_GROUP (self));
  g_return_if_fail (AGENTS_IS_USER (user));

  g_ptr_array_add (self->users, g_object_ref (user));
}

/**
 * agents_group_equal:
 * @a: (nullable): an #AgentsGroup
 * @b: (nullable): an #AgentsGroup
 *
 * Compares two groups by identity, as the reference does: a group is
 * its name, whatever its members. See agents_group_equal_members() to
 * compare the members too.
 *
 * Returns: whether @a and @b have the same name
 */
gboolean
agents_group_equal (AgentsGroup *a, AgentsGroup *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  return g_strcmp0 (a->name, b->name) == 0;
}

/**
 * agents_group_equal_members:
 * @a: (nullable): an #AgentsGroup
 * @b: (nullable): an #AgentsGroup
 *
 * Compares two groups by value: name and members, in order.
 *
 * Returns: whether @a and @b are equal
 */
gboolean
agents_group_equal_members (AgentsGroup *a, AgentsGroup *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  if (!agents_group_equal (a, b) || a->users->len != b->users->len)
    return FALSE;
  for (guint i = 0; i < a->users->len; i++)
    if (!agents_user_equal (a->users->pdata[i], b->users->pdata[i]))
      return FALSE;
  return TRUE;
}

/**
 * agents_group_hash:
 * @self: an #AgentsGroup
 *
 * Hashes a group by its name, consistently with agents_group_equal().
 *
 * Returns: the hash
 */
guint
agents_group_hash (AgentsGroup *self)
{
  g_return_val_if_fail (AGENTS_IS_GROUP (self), 0);

  return g_str_hash (self->name);
}

/**
 * agents_group_to_json:
 * @self: an #AgentsGroup
 *
 * Serializes @self as `{"name": …, "users": [{"name": …}, …]}`.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
agents_group_to_json (AgentsGroup *self)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();

  g_return_val_if_fail (AGENTS_IS_GROUP (self), NULL);

  json_builder_begin_object (builder);
  agents_json_add_string (builder, "name", self->name);
  json_builder_set_member_name (builder, "users");
  json_builder_begin_array (builder);
  for (guint i = 0; i < self->users->len; i++)
    json_builder_add_value (builder,
                            agents_user_to_json (self->users->pdata[i]));
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

/**
 * agents_group_new_from_json:
 * @node: a JSON object node
 * @error: return location for a #GError
 *
 * Reads a group serialized by agents_group_to_json(). A missing `users`
 * member means no members.
 *
 * Returns: (transfer full): the group, or %NULL with
 *   %AGENTS_SANDBOX_ERROR_INVALID_JSON set
 */
AgentsGroup *
agents_group_new_from_json (JsonNode *node, GError **error)
{
  JsonObject *object = agents_json_require_object (node, "group", error);
  g_autoptr (AgentsGroup) self = NULL;
  const char *name = NULL;
  JsonNode *users;
  JsonArray *array;

  if (object == NULL ||
      !agents_json_read_string (object, "name", FALSE, TRUE, &name, error) ||
      !agents_json_read_container (object, "users", JSON_NODE_ARRAY, &users,
                                   error))
    return NULL;

  self = agents_group_new (name, NULL, 0);
  if (users == NULL)
    return g_steal_pointer (&self);

  array = json_node_get_array (users);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      g_autoptr (AgentsUser) user =
        agents_user_new_from_json (json_array_get_element (array, i), error);

      if (user == NULL)
        return NULL;
      agents_group_add_user (self, user);
    }
  return g_steal_pointer (&self);
}

/* ---- SandboxPathGrant ----------------------------------------------- */

/**
 * AgentsSandboxPathGrant:
 *
 * An absolute host path outside the workspace root that a session may
 * reach, possibly read-only.
 */
struct _AgentsSandboxPathGrant
{
  GObject parent_instance;

  char *path;
  gboolean read_only;
  char *description;
  char *host_path;
};

G_DEFINE_FINAL_TYPE (AgentsSandboxPathGrant,
                     agents_sandbox_path_grant,
                     G_TYPE_OBJECT)

enum
{
  GRANT_PROP_0,
  GRANT_PROP_PATH,
  GRANT_PROP_READ_ONLY,
  GRANT_PROP_DESCRIPTION,
  GRANT_PROP_HOST_PATH,
  GRANT_N_PROPS
};

static GParamSpec *grant_properties[GRANT_N_PROPS];

static void
agents_sandbox_path_grant_finalize (GObject *object)
{
  AgentsSandboxPathGrant *self = AGENTS_SANDBOX_PATH_GRANT (object);

  g_free (self->path);
  g_free (self->description);
  g_free (self->host_path);

  G_OBJECT_CLASS (agents_sandbox_path_grant_parent_class)->finalize (object);
}

static void
agents_sandbox_path_grant_get_property (GObject *object,
                                        guint prop_id,
                                        GValue *value,
                                        GParamSpec *pspec)
{
  AgentsSandboxPathGrant *self = AGENTS_SANDBOX_PATH_GRANT (object);

  switch (prop_id)
    {
    case GRANT_PROP_PATH:
      g_value_set_string (value, self->path);
      break;
    case GRANT_PROP_READ_ONLY:
      g_value_set_boolean (value, self->read_only);
      break;
    case GRANT_PROP_DESCRIPTION:
      g_value_set_string (value, self->description);
      break;
    case GRANT_PROP_HOST_PATH:
      g_value_set_string (value, self->host_path);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_sandbox_path_grant_set_property (GObject *object,
                                        guint prop_id,
                                        const GValue *value,
                                        GParamSpec *pspec)
{
  AgentsSandboxPathGrant *self = AGENTS_SANDBOX_PATH_GRANT (object);

  switch (prop_id)
    {
    case GRANT_PROP_PATH:
      g_free (self->path);
      self->path = g_value_dup_string (value);
      break;
    case GRANT_PROP_READ_ONLY:
      self->read_only = g_value_get_boolean (value);
      break;
    case GRANT_PROP_DESCRIPTION:
      g_free (self->description);
      self->description = g_value_dup_string (value);
      break;
    case GRANT_PROP_HOST_PATH:
      g_free (self->host_path);
      self->host_path = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_sandbox_path_grant_class_init (AgentsSandboxPathGrantClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                      G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->finalize = agents_sandbox_path_grant_finalize;
  object_class->get_property = agents_sandbox_path_grant_get_property;
  object_class->set_property = agents_sandbox_path_grant_set_property;

  /**
   * AgentsSandboxPathGrant:path:
   *
   * The absolute path granted.
   */
  grant_properties[GRANT_PROP_PATH] =
    g_param_spec_string ("path", NULL, NULL, "/", flags);

  /**
   * AgentsSandboxPathGrant:read-only:
   *
   * Whether the path may only be read.
   */
  grant_properties[GRANT_PROP_READ_ONLY] =
    g_param_spec_boolean ("read-only", NULL, NULL, FALSE, flags);

  /**
   * AgentsSandboxPathGrant:description:
   *
   * What the path is for, shown to the model.
   */
  grant_properties[GRANT_PROP_DESCRIPTION] =
    g_param_spec_string ("description", NULL, NULL, NULL, flags);

  /**
   * AgentsSandboxPathGrant:host-path:
   *
   * The native host source of the grant when it differs from
   * #AgentsSandboxPathGrant:path, the path seen in the sandbox; %NULL
   * when they are the same. See agents_sandbox_path_grant_try_new_full().
   */
  grant_properties[GRANT_PROP_HOST_PATH] =
    g_param_spec_string ("host-path", NULL, NULL, NULL, flags);

  g_object_class_install_properties (object_class, GRANT_N_PROPS,
                                     grant_properties);
}

static void
agents_sandbox_path_grant_init (AgentsSandboxPathGrant *self)
{
}

/**
 * agents_sandbox_path_grant_new:
 * @path: the absolute path granted
 * @read_only: whether the path may only be read
 * @description: (nullable): what the path is for
 *
 * Creates a path grant.
 *
 * Returns: (transfer full): a new #AgentsSandboxPathGrant
 */
AgentsSandboxPathGrant *
agents_sandbox_path_grant_new (const char *path,
                               gboolean read_only,
                               const char *description)
{
  g_return_val_if_fail (path != NULL, NULL);

  return g_object_new (AGENTS_TYPE_SANDBOX_PATH_GRANT, "path", path,
                       "read-only", read_only, "description", description,
                       NULL);
}

/**
 * agents_sandbox_path_grant_get_path:
 * @self: an #AgentsSandboxPathGrant
 *
 * Gets the path granted.
 *
 * Returns: the path
 */
const char *
agents_sandbox_path_grant_get_path (AgentsSandboxPathGrant *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_PATH_GRANT (self), NULL);

  return self->path;
}

/**
 * agents_sandbox_path_grant_get_read_only:
 * @self: an #AgentsSandboxPathGrant
 *
 * Gets whether the path may only be read.
 *
 * Returns: whether the grant is read-only
 */
gboolean
agents_sandbox_path_grant_get_read_only (AgentsSandboxPathGrant *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_PATH_GRANT (self), FALSE);

  return self->read_only;
}

/**
 * agents_sandbox_path_grant_get_description:
 * @self: an #AgentsSandboxPathGrant
 *
 * Gets what the path is for.
 *
 * Returns: (nullable): the description
 */
const char *
agents_sandbox_path_grant_get_description (AgentsSandboxPathGrant *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_PATH_GRANT (self), NULL);

  return self->description;
}

/**
 * agents_sandbox_path_grant_get_host_path:
 * @self: an #AgentsSandboxPathGrant
 *
 * Gets the native host source of the grant, if it has one apart from
 * its path.
 *
 * Returns: (nullable): the host path
 */
const char *
agents_sandbox_path_grant_get_host_path (AgentsSandboxPathGrant *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_PATH_GRANT (self), NULL);

  return self->host_path;
}

/**
 * agents_sandbox_path_grant_equal:
 * @a: (nullable): an #AgentsSandboxPathGrant
 * @b: (nullable): an #AgentsSandboxPathGrant
 *
 * Compares two grants by value.
 *
 * Returns: whether @a and @b are equal
 */
gboolean
agents_sandbox_path_grant_equal (AgentsSandboxPathGrant *a,
                                 AgentsSandboxPathGrant *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  return g_strcmp0 (a->path, b->path) == 0 && !a->read_only == !b->read_only &&
         g_strcmp0 (a->description, b->description) == 0 &&
         g_strcmp0 (a->host_path, b->host_path) == 0;
}

/**
 * agents_sandbox_path_grant_to_json:
 * @self: an #AgentsSandboxPathGrant
 *
 * Serializes @self as `{"path": …, "read_only": …, "description": …}`,
 * with `"host_path"` last when the grant has one.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
agents_sandbox_path_grant_to_json (AgentsSandboxPathGrant *self)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();

  g_return_val_if_fail (AGENTS_IS_SANDBOX_PATH_GRANT (self), NULL);

  json_builder_begin_object (builder);
  agents_json_add_string (builder, "path", self->path);
  agents_json_add_boolean (builder, "read_only", self->read_only);
  agents_json_add_nullable_string (builder, "description", self->description);
  if (self->host_path != NULL)
    agents_json_add_string (builder, "host_path", self->host_path);
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

/**
 * agents_sandbox_path_grant_new_from_json:
 * @node: a JSON object node
 * @error: return location for a #GError
 *
 * Reads a grant serialized by agents_sandbox_path_grant_to_json(). The
 * path is validated and normalized as
 * agents_sandbox_path_normalize_grant_path() does.
 *
 * Returns: (transfer full): the grant, or %NULL with
 *   %AGENTS_SANDBOX_ERROR_INVALID_JSON set
 */
AgentsSandboxPathGrant *
agents_sandbox_path_grant_new_from_json (JsonNode *node, GError **error)
{
  JsonObject *object =
    agents_json_require_object (node, "extra_path_grant", error);
  const char *path = NULL;
  const char *description = NULL;
  gboolean read_only = FALSE;
  const char *host_path = NULL;
  g_autofree char *normalized = NULL;
  g_autoptr (GError) invalid = NULL;
  AgentsSandboxPathGrant *grant;

  if (object == NULL ||
      !agents_json_read_string (object, "path", FALSE, TRUE, &path, error) ||
      !agents_json_read_boolean (object, "read_only", &read_only, error) ||
      !agents_json_read_string (object, "description", TRUE, FALSE,
                                &description, error) ||
      !agents_json_read_string (object, "host_path", TRUE, FALSE, &host_path,
                                error))
    return NULL;

  normalized = agents_sandbox_path_normalize_grant_path (path, &invalid);
  if (normalized == NULL)
    {
      agents_json_set_error (error, "path",
                             *path == '/' ? "filesystem_root" : "not_absolute",
                             "%s", invalid->message);
      return NULL;
    }
  grant = agents_sandbox_path_grant_try_new_full (path, host_path, read_only,
                                                  description, &invalid);
  if (grant == NULL)
    agents_json_set_error (error, "host_path", "invalid", "%s",
                           invalid->message);
  return grant;
}
