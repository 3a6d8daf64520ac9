/* agents-file-entry.c - AgentsFileEntry, one entry of a directory listing
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include <glib/gi18n-lib.h>

#include "agents-enums.h"
#include "agents-sandbox-error-private.h"
#include "agents-sandbox-types-private.h"

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

  agents_sandbox_types_set_invalid_argument (error, "line", line, message);
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
 * Returns: (transfer container) (element-type AgentsFileEntry): the entries
 *   (the array frees them),
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
