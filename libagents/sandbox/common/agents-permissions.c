/* agents-permissions.c - AgentsPermissions, modes of a manifest entry
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include <glib/gi18n-lib.h>

#include "agents-json-private.h"
#include "agents-sandbox-error-private.h"
#include "agents-sandbox-types-private.h"

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

G_DEFINE_BOXED_TYPE (AgentsPermissions,
                     agents_permissions,
                     agents_permissions_copy,
                     agents_permissions_free)

#define READ_EXEC (AGENTS_FILE_MODE_READ | AGENTS_FILE_MODE_EXEC)

/**
 * agents_permissions_new:
 *
 * Creates bare permissions, as the reference's `Permissions()`:
 * `-rwx------` (0700), not a directory. Manifest entries start from
 * `rwxr-xr-x` instead (#AgentsManifestEntry:permissions).
 *
 * Returns: (transfer full): new permissions
 */
AgentsPermissions *
agents_permissions_new (void)
{
  return agents_permissions_new_full (
    AGENTS_FILE_MODE_ALL, AGENTS_FILE_MODE_NONE, AGENTS_FILE_MODE_NONE, FALSE);
}

/* The permissions a manifest entry has until it is given others:
 * `rwxr-xr-x`, the default of the reference's BaseEntry.permissions. */
AgentsPermissions *
agents_permissions_new_entry_default (void)
{
  return agents_permissions_new_full (AGENTS_FILE_MODE_ALL, READ_EXEC,
                                      READ_EXEC, FALSE);
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
  agents_sandbox_types_set_invalid_argument (error, "mode", mode, message);
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
 * Gets the numeric mode, as the reference's `Permissions.to_mode()`: the
 * access bits (e.g. `0755`), with the directory type bit `S_IFDIR` added
 * when @self describes a directory (`040755`). Mask with `07777` for
 * chmod().
 *
 * Returns: the mode
 */
guint
agents_permissions_to_mode (const AgentsPermissions *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return (self->owner << 6) | (self->group << 3) | self->other |
         (self->directory ? S_IFDIR : 0);
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
 * members take the defaults of agents_permissions_new(), as the
 * reference's `Permissions` model does: `{"owner": 6}` is `-rw-------`.
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
