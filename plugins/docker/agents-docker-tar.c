/* agents-docker-tar.c - the tar streams the docker backend exchanges
 * with the engine's archive endpoint
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <inttypes.h>
#include <errno.h>
#include <limits.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>
#include <glib/gi18n-lib.h>

#include "agents-archive-private.h"
#include "agents-docker-tar.h"
#include "agents-sandbox-error-private.h"

#define BLOCK_SIZE (64 * 1024)
#define TAR_BLOCK 512
#define USTAR_NAME_MAX 100
#define USTAR_SIZE_MAX G_GUINT64_CONSTANT (077777777777)

/* ======================================================================
 * libarchive over GIO streams
 * ====================================================================== */

typedef struct
{
  GInputStream *in;
  GCancellable *cancellable;
  guint8 *buffer; /* lent to libarchive until the next callback */
  gint64 bytes;
  gint64 max_bytes;
  GError *error; /* of the stream, or the input limit */
} Reader;

typedef struct
{
  GOutputStream *out;
  GCancellable *cancellable;
  GError *error;
  gboolean abandoned; /* writes nothing more */
} Writer;

static void
reader_init (Reader *r, GInputStream *in, GCancellable *cancellable)
{
  r->in = in;
  r->cancellable = cancellable;
  r->buffer = g_malloc (BLOCK_SIZE);
  r->max_bytes = G_MAXINT64;
}

static void
reader_clear (Reader *r)
{
  g_clear_pointer (&r->buffer, g_free);
  g_clear_error (&r->error);
}

static la_ssize_t
reader_read_cb (struct archive *a, void *data, const void **buffer)
{
  Reader *r = data;
  gssize n;

  if (r->error != NULL)
    return -1;
  n = g_input_stream_read (r->in, r->buffer, BLOCK_SIZE, r->cancellable,
                           &r->error);
  if (n < 0)
    {
      archive_set_error (a, EIO, "%s", r->error->message);
      return -1;
    }
  r->bytes += n;
  if (r->bytes > r->max_bytes)
    {
      agents_archive_set_limit_error (&r->error, "max_input_bytes",
                                      r->max_bytes);
      archive_set_error (a, EFBIG, "%s", r->error->message);
      return -1;
    }
  *buffer = r->buffer;
  return n;
}

/* The error of the input stream, or libarchive's own as a
 * WORKSPACE_ARCHIVE_READ error about @what (a member, or NULL for the
 * archive). */
static gboolean
reader_fail (Reader *r, struct archive *a, const char *what, GError **error)
{
  const char *reason = archive_error_string (a);

  if (r->error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&r->error));
      return FALSE;
    }
  agents_archive_set_path_error (
    error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ, what ? what : ".", NULL,
    reason ? reason : _ ("archive error"));
  return FALSE;
}

static struct archive *
reader_open (Reader *r, gboolean filters, GError **error)
{
  struct archive *a = archive_read_new ();

  archive_read_support_format_tar (a);
  if (filters)
    {
      /* As the foundation's extractor: only filters built into
       * libarchive, none that runs a program. */
      archive_read_support_filter_gzip (a);
      archive_read_support_filter_bzip2 (a);
      archive_read_support_filter_xz (a);
      archive_read_support_filter_lzma (a);
      archive_read_support_filter_zstd (a);
    }
  if (archive_read_open (a, r, NULL, reader_read_cb, NULL) != ARCHIVE_OK)
    {
      reader_fail (r, a, NULL, error);
      archive_read_free (a);
      return NULL;
    }
  return a;
}

static la_ssize_t
writer_write_cb (struct archive *a,
                 void *data,
                 const void *buffer,
                 size_t length)
{
  Writer *w = data;
  gsize written;

  if (w->error != NULL || w->abandoned)
    return -1;
  if (!g_output_stream_write_all (w->out, buffer, length, &written,
                                  w->cancellable, &w->error))
    {
      archive_set_error (a, EIO, "%s", w->error->message);
      return -1;
    }
  return length;
}

static struct archive *
writer_open (Writer *w, GOutputStream *out, GCancellable *cancellable)
{
  struct archive *a = archive_write_new ();

  w->out = out;
  w->cancellable = cancellable;
  archive_write_set_format_pax_restricted (a);
  /* Cannot fail: there is no open callback. */
  archive_write_open (a, w, NULL, writer_write_cb, NULL);
  return a;
}

/* A cancellation stays what it is; anything else going wrong on the way
 * out is a WORKSPACE_ARCHIVE_WRITE error about @what. */
static gboolean
writer_fail (Writer *w, struct archive *a, const char *what, GError **error)
{
  const char *reason = archive_error_string (a);

  if (w->error != NULL &&
      g_error_matches (w->error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_propagate_error (error, g_steal_pointer (&w->error));
      return FALSE;
    }
  if (w->error != NULL)
    reason = w->error->message;
  agents_archive_set_path_error (
    error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE, what ? what : ".",
    NULL, reason ? reason : _ ("archive error"));
  g_clear_error (&w->error);
  return FALSE;
}

/* Frees the writer's archive; after a failure without the end-of-archive
 * blocks, so that a partial archive cannot pass for a complete one. (Not
 * with archive_write_fail(): libarchive 3.6 then leaks its block
 * buffer.) */
static void
writer_free (struct archive *a, Writer *w, gboolean ok)
{
  if (!ok)
    {
      w->abandoned = TRUE;
      archive_write_close (a);
    }
  archive_write_free (a);
}

static const char *
entry_pathname (struct archive_entry *entry)
{
  const char *name = archive_entry_pathname (entry);

  return name ? name : archive_entry_pathname_utf8 (entry);
}

static const char *
entry_hardlink (struct archive_entry *entry)
{
  const char *name = archive_entry_hardlink (entry);

  return name ? name : archive_entry_hardlink_utf8 (entry);
}

static const char *
entry_symlink (struct archive_entry *entry)
{
  const char *target = archive_entry_symlink (entry);

  return target ? target : archive_entry_symlink_utf8 (entry);
}

/* A clean copy of @from named @name: type, permissions (masked with
 * @perm_mask), owner ids, mtime, size and link target; nothing else
 * (no extended attributes, ACLs or file flags). */
static struct archive_entry *
copy_entry (struct archive_entry *from,
            const char *name,
            mode_t type,
            mode_t perm_mask,
            const char *hardlink)
{
  struct archive_entry *to = archive_entry_new ();

  archive_entry_set_pathname (to, name);
  archive_entry_set_filetype (to, type);
  archive_entry_set_perm (to, archive_entry_perm (from) & perm_mask);
  archive_entry_set_uid (to, archive_entry_uid (from));
  archive_entry_set_gid (to, archive_entry_gid (from));
  if (archive_entry_mtime_is_set (from))
    archive_entry_set_mtime (to, archive_entry_mtime (from),
                             archive_entry_mtime_nsec (from));
  else
    archive_entry_set_mtime (to, g_get_real_time () / G_USEC_PER_SEC, 0);
  archive_entry_set_size (to, 0);
  if (hardlink != NULL)
    archive_entry_set_hardlink (to, hardlink);
  else if (type == AE_IFREG && archive_entry_size_is_set (from))
    archive_entry_set_size (to, MAX (archive_entry_size (from), 0));
  else if (type == AE_IFLNK)
    archive_entry_set_symlink (to, entry_symlink (from));
  return to;
}

typedef struct
{
  Reader reader;
  Writer writer;
  struct archive *in;
  struct archive *out;
  guint8 *data;         /* the copy buffer */
  gint64 extracted;     /* member data copied */
  gint64 max_extracted; /* G_MAXINT64: no limit */
} Copy;

static void
copy_init (Copy *c,
           GInputStream *in,
           GOutputStream *out,
           GCancellable *cancellable)
{
  reader_init (&c->reader, in, cancellable);
  c->out = writer_open (&c->writer, out, cancellable);
  c->data = g_malloc (BLOCK_SIZE);
  c->max_extracted = G_MAXINT64;
}

static void
copy_clear (Copy *c, gboolean ok)
{
  if (c->in != NULL)
    archive_read_free (c->in);
  writer_free (c->out, &c->writer, ok);
  reader_clear (&c->reader);
  g_clear_error (&c->writer.error);
  g_free (c->data);
}

static gboolean
copy_header (Copy *c, struct archive_entry *entry, GError **error)
{
  int r = archive_write_header (c->out, entry);

  if (r < ARCHIVE_WARN)
    return writer_fail (&c->writer, c->out, archive_entry_pathname (entry),
                        error);
  return TRUE;
}

/* Copies the data of the current member, 64 KiB at a time. */
static gboolean
copy_data (Copy *c, const char *rel, GError **error)
{
  for (;;)
    {
      la_ssize_t n = archive_read_data (c->in, c->data, BLOCK_SIZE);

      if (n == 0)
        return TRUE;
      if (n < 0)
        return reader_fail (&c->reader, c->in, rel, error);
      /* Count what is actually produced: headers may lie and compressed
       * data may expand beyond what they announce. */
      c->extracted += n;
      if (c->extracted > c->max_extracted)
        return agents_archive_set_limit_error (error, "max_extracted_bytes",
                                               c->max_extracted);
      if (g_cancellable_set_error_if_cancelled (c->reader.cancellable, error))
        return FALSE;
      if (archive_write_data (c->out, c->data, n) < 0)
        return writer_fail (&c->writer, c->out, rel, error);
    }
}

static gboolean
copy_member (Copy *c,
             struct archive_entry *from,
             const char *rel,
             mode_t type,
             mode_t perm_mask,
             const char *hardlink,
             GError **error)
{
  struct archive_entry *to = copy_entry (from, rel, type, perm_mask, hardlink);
  gboolean ok = copy_header (c, to, error);

  archive_entry_free (to);
  if (ok && type == AE_IFREG && hardlink == NULL)
    ok = copy_data (c, rel, error);
  return ok;
}

/* Reads the next header: TRUE with *@entry set, or with *@entry NULL at
 * the end; FALSE on an error. */
static gboolean
copy_next (Copy *c, struct archive_entry **entry, GError **error)
{
  int r = archive_read_next_header (c->in, entry);

  if (r == ARCHIVE_EOF)
    {
      *entry = NULL;
      return TRUE;
    }
  if (r < ARCHIVE_WARN)
    return reader_fail (&c->reader, c->in, NULL, error);
  return TRUE;
}

static gboolean
copy_finish (Copy *c, GError **error)
{
  if (archive_write_close (c->out) != ARCHIVE_OK)
    return writer_fail (&c->writer, c->out, NULL, error);
  return TRUE;
}

/* ======================================================================
 * Archive endpoint tars: "<root>/…" to "…"
 * ====================================================================== */

/* The components of @member below @prefix (NULL: no prefix); an empty
 * array for the root itself. */
static GPtrArray *
strip_root (const char *member, GPtrArray *prefix, GError **error)
{
  const char *reason = NULL;
  g_autoptr (GPtrArray) components =
    agents_archive_member_components (member, &reason);

  if (components == NULL)
    {
      agents_archive_set_unsafe_error (error, member ? member : "", reason);
      return NULL;
    }
  if (prefix == NULL)
    return g_steal_pointer (&components);
  for (guint i = 0; i < prefix->len; i++)
    if (i >= components->len || strcmp (g_ptr_array_index (components, i),
                                        g_ptr_array_index (prefix, i)) != 0)
      {
        agents_archive_set_unsafe_error (error, member, "outside_root");
        return NULL;
      }
  g_ptr_array_remove_range (components, 0, prefix->len);
  return g_steal_pointer (&components);
}

static GPtrArray *
root_prefix (const char *root_name)
{
  return root_name ? agents_archive_split_components (root_name) : NULL;
}

static gboolean
is_excluded (GHashTable *exclude, gboolean exclude_all, GPtrArray *components)
{
  g_autoptr (GString) rel = g_string_new (NULL);

  if (exclude_all)
    return TRUE;
  for (guint i = 0; i < components->len; i++)
    {
      if (i > 0)
        g_string_append_c (rel, '/');
      g_string_append (rel, g_ptr_array_index (components, i));
      if (g_hash_table_contains (exclude, rel->str))
        return TRUE;
    }
  return FALSE;
}

static GHashTable *
normalize_excludes (const char *const *exclude, gboolean *exclude_all)
{
  GHashTable *set =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  *exclude_all = FALSE;
  for (guint i = 0; exclude != NULL && exclude[i] != NULL; i++)
    {
      g_autoptr (GPtrArray) components =
        agents_archive_split_components (exclude[i]);

      if (components->len == 0)
        *exclude_all = TRUE;
      else
        g_hash_table_add (
          set, agents_archive_join_components (components, components->len));
    }
  return set;
}

typedef struct
{
  GPtrArray *prefix;
  GHashTable *exclude;
  gboolean exclude_all;
} Rebase;

static gboolean
rebase_entry (Copy *c, Rebase *rb, struct archive_entry *entry, GError **error)
{
  const char *hardlink = entry_hardlink (entry);
  mode_t type = archive_entry_filetype (entry);
  g_autoptr (GPtrArray) components = NULL;
  g_autoptr (GPtrArray) source = NULL;
  g_autofree char *source_rel = NULL;
  g_autofree char *rel = NULL;

  components = strip_root (entry_pathname (entry), rb->prefix, error);
  if (components == NULL)
    return FALSE;
  if (components->len == 0 ||
      is_excluded (rb->exclude, rb->exclude_all, components))
    return TRUE;
  rel = agents_archive_join_components (components, components->len);

  if (hardlink != NULL)
    {
      source = strip_root (hardlink, rb->prefix, error);
      if (source == NULL)
        return FALSE;
      /* The data went with the excluded member: nothing to link to. */
      if (source->len == 0 ||
          is_excluded (rb->exclude, rb->exclude_all, source))
        return TRUE;
      source_rel = agents_archive_join_components (source, source->len);
      return copy_member (c, entry, rel, AE_IFREG, 07777, source_rel, error);
    }
  if (type != AE_IFREG && type != AE_IFDIR && type != AE_IFLNK)
    return TRUE; /* sockets, fifos and devices are not archived */
  return copy_member (c, entry, rel, type, 07777, NULL, error);
}

/**
 * agents_docker_tar_rebase_workspace:
 * @in: the tar of GET /containers/{id}/archive?path=ROOT
 * @root_name: the basename of ROOT
 * @exclude: (array zero-terminated=1) (nullable): workspace-relative paths
 *   left out together with everything below them
 * @out: where the workspace-relative tar goes
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Copies the engine's tar to @out with the members renamed relative to
 * ROOT (see agents-docker-tar.h). A hard link whose target is excluded is
 * left out too. Sockets, fifos and devices are left out, as the
 * foundation's tar leaves them out.
 *
 * Returns: %TRUE on success
 */
gboolean
agents_docker_tar_rebase_workspace (GInputStream *in,
                                    const char *root_name,
                                    const char *const *exclude,
                                    GOutputStream *out,
                                    GCancellable *cancellable,
                                    GError **error)
{
  g_autoptr (GPtrArray) prefix = root_prefix (root_name);
  g_autoptr (GHashTable) excluded = NULL;
  Rebase rb = { prefix };
  Copy c = { 0 };
  gboolean ok;

  g_return_val_if_fail (G_IS_INPUT_STREAM (in), FALSE);
  g_return_val_if_fail (G_IS_OUTPUT_STREAM (out), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  excluded = normalize_excludes (exclude, &rb.exclude_all);
  rb.exclude = excluded;
  copy_init (&c, in, out, cancellable);
  c.in = reader_open (&c.reader, FALSE, error);
  ok = c.in != NULL;
  while (ok)
    {
      struct archive_entry *entry;

      ok = copy_next (&c, &entry, error);
      if (!ok || entry == NULL)
        break;
      ok = !g_cancellable_set_error_if_cancelled (cancellable, error) &&
           rebase_entry (&c, &rb, entry, error);
    }
  ok = ok && copy_finish (&c, error);
  copy_clear (&c, ok);
  return ok;
}

/* ======================================================================
 * Validating: the foundation's rules against a model of the workspace
 * ====================================================================== */

/*
 * The engine extracts what we pass on, following the symlinks of the
 * workspace and of the archive, so the checks run against a model of
 * the tree: every path the archive has made so far, and @existing_links.
 * Paths are physical (symlinks expanded). A path the model does not know
 * may be an existing directory of the workspace, but never a symlink, so
 * walks go on through it; it is not a directory to leave with "..",
 * though (see agents_archive_walk_inside()).
 */

typedef enum
{
  NODE_DIR,
  NODE_FILE,
  NODE_LINK,
} NodeKind;

typedef struct
{
  NodeKind kind;
  char *target; /* NODE_LINK */
} Node;

typedef struct
{
  Copy copy;
  GHashTable *nodes; /* physical path -> Node */
  gint64 members;
  gint64 max_members;
  gboolean keep_links; /* a snapshot: symlinks may point anywhere */
} Validate;

static void
node_free (gpointer data)
{
  Node *node = data;

  g_free (node->target);
  g_free (node);
}

static void
set_node (Validate *v, const char *path, NodeKind kind, const char *target)
{
  Node *node = g_new0 (Node, 1);

  node->kind = kind;
  node->target = g_strdup (target);
  g_hash_table_replace (v->nodes, g_strdup (path), node);
}

static Node *
get_node (Validate *v, const char *path)
{
  return g_hash_table_lookup (v->nodes, path);
}

static gboolean
inspect_model (const char *rel,
               gboolean *exists,
               gboolean *is_dir,
               char **link_target,
               gpointer user_data)
{
  Node *node = get_node (user_data, rel);

  *exists = TRUE;
  *is_dir = node != NULL && node->kind == NODE_DIR;
  *link_target =
    node != NULL && node->kind == NODE_LINK ? g_strdup (node->target) : NULL;
  return TRUE;
}

static gboolean
set_write_error (GError **error, const char *rel, int errsv)
{
  agents_archive_set_path_error (error,
                                 AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE,
                                 rel, NULL, g_strerror (errsv));
  return FALSE;
}

static char *
child_path (const char *dir, const char *name)
{
  return *dir ? g_strconcat (dir, "/", name, NULL) : g_strdup (name);
}

/* The physical path of the directory of @components (symlinks expanded),
 * or NULL with @escape_reason when it leaves the root. With @create the
 * directories on the way become part of the model, as the engine
 * creates those missing. */
static char *
resolve_dir (Validate *v,
             GPtrArray *components,
             const char *member,
             const char *escape_reason,
             gboolean create,
             GError **error)
{
  g_autofree char *dir = NULL;
  g_autoptr (GPtrArray) names = NULL;
  g_autoptr (GString) sub = g_string_new (NULL);

  if (!agents_archive_walk_inside (components, components->len - 1, NULL,
                                   inspect_model, v, &dir))
    {
      agents_archive_set_unsafe_error (error, member, escape_reason);
      return NULL;
    }
  names = agents_archive_split_components (dir);
  for (guint i = 0; i < names->len; i++)
    {
      Node *node;

      if (i > 0)
        g_string_append_c (sub, '/');
      g_string_append (sub, g_ptr_array_index (names, i));
      node = get_node (v, sub->str);
      if (node != NULL && node->kind == NODE_FILE)
        {
          set_write_error (error, sub->str, ENOTDIR);
          return NULL;
        }
      if (create && node == NULL)
        set_node (v, sub->str, NODE_DIR, NULL);
    }
  return g_steal_pointer (&dir);
}

/* Where @components lands, after checking that a member of @kind may
 * take the place: only a directory may replace a directory. */
static char *
resolve_slot (Validate *v,
              GPtrArray *components,
              const char *member,
              const char *rel,
              gboolean want_dir,
              GError **error)
{
  g_autofree char *dir = NULL;
  g_autofree char *slot = NULL;
  Node *node;

  dir = resolve_dir (v, components, member, "symlink_escape", TRUE, error);
  if (dir == NULL)
    return NULL;
  slot = child_path (dir, g_ptr_array_index (components, components->len - 1));
  node = get_node (v, slot);
  if (!want_dir && node != NULL && node->kind == NODE_DIR)
    {
      set_write_error (error, rel, EISDIR);
      return NULL;
    }
  return g_steal_pointer (&slot);
}

static gboolean
validate_directory (Validate *v,
                    struct archive_entry *entry,
                    GPtrArray *components,
                    const char *member,
                    const char *rel,
                    GError **error)
{
  g_autofree char *slot =
    resolve_slot (v, components, member, rel, TRUE, error);

  if (slot == NULL)
    return FALSE;
  set_node (v, slot, NODE_DIR, NULL);
  return copy_member (&v->copy, entry, rel, AE_IFDIR, 0777, NULL, error);
}

static gboolean
validate_regular (Validate *v,
                  struct archive_entry *entry,
                  GPtrArray *components,
                  const char *member,
                  const char *rel,
                  GError **error)
{
  Copy *c = &v->copy;
  gint64 size =
    archive_entry_size_is_set (entry) ? archive_entry_size (entry) : 0;
  g_autofree char *slot = NULL;

  if (size < 0 || size > c->max_extracted - c->extracted)
    return agents_archive_set_limit_error (error, "max_extracted_bytes",
                                           c->max_extracted);
  slot = resolve_slot (v, components, member, rel, FALSE, error);
  if (slot == NULL)
    return FALSE;
  set_node (v, slot, NODE_FILE, NULL);
  return copy_member (c, entry, rel, AE_IFREG, 0777, NULL, error);
}

/* The engine's own rule for a symlink it extracts: a relative target,
 * joined lexically to the link's directory, stays under the directory
 * extracted into (absolute targets pass). It refuses the whole upload
 * otherwise, so a snapshot cannot keep such a link either. */
static gboolean
engine_accepts_link (GPtrArray *components, const char *target)
{
  g_auto (GStrv) parts = NULL;
  guint depth = components->len - 1;

  if (g_path_is_absolute (target))
    return TRUE;
  parts = g_strsplit (target, "/", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      if (g_str_equal (parts[i], ".."))
        {
          if (depth == 0)
            return FALSE;
          depth--;
        }
      else if (*parts[i] != '\0' && !g_str_equal (parts[i], "."))
        depth++;
    }
  return TRUE;
}

static gboolean
validate_symlink (Validate *v,
                  struct archive_entry *entry,
                  GPtrArray *components,
                  const char *member,
                  const char *rel,
                  GError **error)
{
  const char *target = entry_symlink (entry);
  g_autofree char *dir = NULL;
  g_autofree char *slot = NULL;

  if (target == NULL || *target == '\0' || strlen (target) >= PATH_MAX)
    return agents_archive_set_unsafe_error (error, member,
                                            "invalid_link_target");
  /* The directory first, so that the walk finds it. */
  dir = resolve_dir (v, components, member, "symlink_escape", TRUE, error);
  if (dir == NULL)
    return FALSE;
  /* Kept links still count when later members resolve through them. */
  if (v->keep_links
        ? !engine_accepts_link (components, target)
        : !agents_archive_walk_inside (components, components->len - 1, target,
                                       inspect_model, v, NULL))
    return agents_archive_set_unsafe_error (error, member, "symlink_escape");
  slot = resolve_slot (v, components, member, rel, FALSE, error);
  if (slot == NULL)
    return FALSE;
  set_node (v, slot, NODE_LINK, target);
  return copy_member (&v->copy, entry, rel, AE_IFLNK, 0777, NULL, error);
}

/* A hard link to an earlier member (a file, or a symlink, which is linked
 * itself): the engine links whatever is at the target's path, following
 * symlinks on the way there. */
static gboolean
validate_hardlink (Validate *v,
                   struct archive_entry *entry,
                   GPtrArray *components,
                   const char *member,
                   const char *rel,
                   const char *link_name,
                   GError **error)
{
  const char *reason = NULL;
  g_autoptr (GPtrArray) source =
    agents_archive_member_components (link_name, &reason);
  g_autofree char *source_rel = NULL;
  g_autofree char *source_dir = NULL;
  g_autofree char *source_slot = NULL;
  g_autofree char *source_target = NULL;
  g_autofree char *slot = NULL;
  NodeKind kind;
  Node *node;

  if (source == NULL || source->len == 0)
    return agents_archive_set_unsafe_error (error, member, "hardlink_escape");
  source_rel = agents_archive_join_components (source, source->len);
  if (strcmp (source_rel, rel) == 0)
    return TRUE;

  source_dir = resolve_dir (v, source, member, "hardlink_escape", FALSE, error);
  if (source_dir == NULL)
    return FALSE;
  source_slot =
    child_path (source_dir, g_ptr_array_index (source, source->len - 1));
  node = get_node (v, source_slot);
  if (node == NULL)
    return set_write_error (error, rel, ENOENT);
  if (node->kind == NODE_DIR)
    return set_write_error (error, rel, EPERM);
  kind = node->kind;
  source_target = g_strdup (node->target);

  slot = resolve_slot (v, components, member, rel, FALSE, error);
  if (slot == NULL)
    return FALSE;
  /* The engine removes what is at the link's place before linking. */
  if (strcmp (slot, source_slot) == 0)
    return set_write_error (error, rel, ENOENT);
  set_node (v, slot, kind, source_target);
  return copy_member (&v->copy, entry, rel, AE_IFREG, 0777, source_rel, error);
}

static gboolean
validate_entry (Validate *v, struct archive_entry *entry, GError **error)
{
  const char *member = entry_pathname (entry);
  const char *hardlink = entry_hardlink (entry);
  const char *reason = NULL;
  g_autoptr (GPtrArray) components =
    agents_archive_member_components (member, &reason);
  g_autofree char *rel = NULL;
  mode_t type = archive_entry_filetype (entry);

  if (components == NULL)
    return agents_archive_set_unsafe_error (error, member ? member : "",
                                            reason);
  if (components->len == 0)
    {
      /* "." is the root itself: its mode and owner are not the archive's
       * business, so it is not passed on. */
      if (type == AE_IFDIR && hardlink == NULL)
        return TRUE;
      return agents_archive_set_unsafe_error (error, member,
                                              "invalid_root_member");
    }

  rel = agents_archive_join_components (components, components->len);
  if (hardlink != NULL)
    return validate_hardlink (v, entry, components, member, rel, hardlink,
                              error);
  switch (type)
    {
    case AE_IFDIR:
      return validate_directory (v, entry, components, member, rel, error);
    case AE_IFREG:
      return validate_regular (v, entry, components, member, rel, error);
    case AE_IFLNK:
      return validate_symlink (v, entry, components, member, rel, error);
    default:
      return agents_archive_set_unsafe_error (error, member, "special_file");
    }
}

static gboolean
validate_entries (Validate *v, GCancellable *cancellable, GError **error)
{
  for (;;)
    {
      struct archive_entry *entry;

      if (!copy_next (&v->copy, &entry, error))
        return FALSE;
      if (entry == NULL)
        return copy_finish (&v->copy, error);
      if (++v->members > v->max_members)
        return agents_archive_set_limit_error (error, "max_members",
                                               v->max_members);
      if (g_cancellable_set_error_if_cancelled (cancellable, error) ||
          !validate_entry (v, entry, error))
        return FALSE;
    }
}

static GHashTable *
model_new (GHashTable *existing_links)
{
  GHashTable *nodes =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, node_free);
  GHashTableIter iter;
  gpointer key, value;

  if (existing_links == NULL)
    return nodes;
  g_hash_table_iter_init (&iter, existing_links);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      g_autoptr (GPtrArray) components = agents_archive_split_components (key);
      Node *node = g_new0 (Node, 1);

      if (components->len == 0 || value == NULL)
        {
          g_free (node);
          continue;
        }
      node->kind = NODE_LINK;
      node->target = g_strdup (value);
      g_hash_table_replace (
        nodes, agents_archive_join_components (components, components->len),
        node);
    }
  return nodes;
}

/**
 * agents_docker_tar_validate_copy:
 * @in: a tar, plain or compressed
 * @limits: (nullable): the limits; %NULL for the defaults
 * @existing_links: (nullable) (element-type utf8 utf8): the workspace's
 *   symlinks, relative path to target
 * @keep_links: whether @in is a workspace snapshot, whose symlinks are
 *   kept whatever they point to
 * @out: where the accepted members go
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Checks @in with the rules of agents_archive_extract_to_directory()
 * while copying it to @out (see agents-docker-tar.h). Permissions are
 * passed on without the setuid, setgid and sticky bits, as the
 * foundation extracts them; the member of the root itself is left out.
 * With @keep_links, as agents_archive_extract_snapshot_to_directory_async()
 * restores a snapshot, a symlink member may point anywhere the engine
 * extracts (absolute targets, relative ones that stay lexically under the
 * root), but no member is still written through one that leads out of
 * the root.
 *
 * Returns: %TRUE on success
 */
gboolean
agents_docker_tar_validate_copy (GInputStream *in,
                                 const AgentsArchiveLimits *limits,
                                 GHashTable *existing_links,
                                 gboolean keep_links,
                                 GOutputStream *out,
                                 GCancellable *cancellable,
                                 GError **error)
{
  g_autoptr (AgentsArchiveLimits) defaults = NULL;
  Validate v = { 0 };
  gboolean ok;

  g_return_val_if_fail (G_IS_INPUT_STREAM (in), FALSE);
  g_return_val_if_fail (G_IS_OUTPUT_STREAM (out), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (limits == NULL)
    limits = defaults = agents_archive_limits_new ();
  copy_init (&v.copy, in, out, cancellable);
  v.copy.reader.max_bytes = limits->max_input_bytes;
  v.copy.max_extracted = limits->max_extracted_bytes;
  v.max_members = limits->max_members;
  v.nodes = model_new (existing_links);
  v.keep_links = keep_links;

  v.copy.in = reader_open (&v.copy.reader, TRUE, error);
  ok = v.copy.in != NULL && validate_entries (&v, cancellable, error);
  copy_clear (&v.copy, ok);
  g_hash_table_unref (v.nodes);
  return ok;
}

/**
 * agents_docker_tar_list_symlinks:
 * @in: a workspace-relative tar, or an archive endpoint tar
 * @root_name: (nullable): the basename to strip from the member names
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads the headers of @in (the data is skipped, not kept) and returns
 * the symlinks it holds; a hard link to a symlink is one too.
 *
 * Returns: (transfer full) (element-type utf8 utf8): relative path to
 *   target, or %NULL with @error set
 */
GHashTable *
agents_docker_tar_list_symlinks (GInputStream *in,
                                 const char *root_name,
                                 GCancellable *cancellable,
                                 GError **error)
{
  g_autoptr (GPtrArray) prefix = root_prefix (root_name);
  g_autoptr (GHashTable) links =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  Reader r = { 0 };
  struct archive *a;
  gboolean ok;

  g_return_val_if_fail (G_IS_INPUT_STREAM (in), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  reader_init (&r, in, cancellable);
  a = reader_open (&r, FALSE, error);
  ok = a != NULL;
  while (ok)
    {
      struct archive_entry *entry;
      g_autoptr (GPtrArray) components = NULL;
      g_autoptr (GPtrArray) source = NULL;
      const char *hardlink;
      const char *target = NULL;
      char *rel;
      int status = archive_read_next_header (a, &entry);

      if (status == ARCHIVE_EOF)
        break;
      if (status < ARCHIVE_WARN)
        {
          ok = reader_fail (&r, a, NULL, error);
          break;
        }
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        ok = FALSE;
      else if ((components =
                  strip_root (entry_pathname (entry), prefix, error)) == NULL)
        ok = FALSE;
      if (!ok || components->len == 0)
        continue;

      hardlink = entry_hardlink (entry);
      if (hardlink != NULL)
        {
          g_autofree char *source_rel = NULL;

          source = strip_root (hardlink, prefix, error);
          if (source == NULL)
            {
              ok = FALSE;
              continue;
            }
          source_rel = agents_archive_join_components (source, source->len);
          target = g_hash_table_lookup (links, source_rel);
        }
      else if (archive_entry_filetype (entry) == AE_IFLNK)
        target = entry_symlink (entry);

      rel = agents_archive_join_components (components, components->len);
      if (target != NULL)
        g_hash_table_replace (links, rel, g_strdup (target));
      else
        {
          g_hash_table_remove (links, rel);
          g_free (rel);
        }
    }
  if (a != NULL)
    archive_read_free (a);
  reader_clear (&r);
  return ok ? g_steal_pointer (&links) : NULL;
}

/* ======================================================================
 * Reading the one member of an archive endpoint tar
 * ====================================================================== */

#define AGENTS_TYPE_DOCKER_TAR_FILE_STREAM \
  (agents_docker_tar_file_stream_get_type ())
G_DECLARE_FINAL_TYPE (AgentsDockerTarFileStream,
                      agents_docker_tar_file_stream,
                      AGENTS,
                      DOCKER_TAR_FILE_STREAM,
                      GInputStream)

struct _AgentsDockerTarFileStream
{
  GInputStream parent_instance;

  Reader reader;
  GInputStream *in;
  struct archive *archive;
  char *member;
};

G_DEFINE_FINAL_TYPE (AgentsDockerTarFileStream,
                     agents_docker_tar_file_stream,
                     G_TYPE_INPUT_STREAM)

static gssize
agents_docker_tar_file_stream_read (GInputStream *stream,
                                    void *buffer,
                                    gsize count,
                                    GCancellable *cancellable,
                                    GError **error)
{
  AgentsDockerTarFileStream *self = AGENTS_DOCKER_TAR_FILE_STREAM (stream);
  la_ssize_t n;

  self->reader.cancellable = cancellable;
  n = archive_read_data (self->archive, buffer, MIN (count, G_MAXSSIZE));
  self->reader.cancellable = NULL;
  if (n < 0)
    {
      reader_fail (&self->reader, self->archive, self->member, error);
      return -1;
    }
  return n;
}

static gboolean
agents_docker_tar_file_stream_close (GInputStream *stream,
                                     GCancellable *cancellable,
                                     GError **error)
{
  AgentsDockerTarFileStream *self = AGENTS_DOCKER_TAR_FILE_STREAM (stream);

  g_clear_pointer (&self->archive, archive_read_free);
  return g_input_stream_close (self->in, cancellable, error);
}

static void
agents_docker_tar_file_stream_finalize (GObject *object)
{
  AgentsDockerTarFileStream *self = AGENTS_DOCKER_TAR_FILE_STREAM (object);

  g_clear_pointer (&self->archive, archive_read_free);
  reader_clear (&self->reader);
  g_clear_object (&self->in);
  g_free (self->member);
  G_OBJECT_CLASS (agents_docker_tar_file_stream_parent_class)
    ->finalize (object);
}

static void
agents_docker_tar_file_stream_class_init (AgentsDockerTarFileStreamClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GInputStreamClass *stream_class = G_INPUT_STREAM_CLASS (klass);

  object_class->finalize = agents_docker_tar_file_stream_finalize;
  stream_class->read_fn = agents_docker_tar_file_stream_read;
  stream_class->close_fn = agents_docker_tar_file_stream_close;
}

static void
agents_docker_tar_file_stream_init (AgentsDockerTarFileStream *self)
{
}

static gboolean
check_regular_member (struct archive_entry *entry,
                      const char *member,
                      GError **error)
{
  g_autofree char *display = g_utf8_make_valid (member, -1);

  if (entry_hardlink (entry) == NULL &&
      archive_entry_filetype (entry) == AE_IFREG)
    return TRUE;
  if (entry_hardlink (entry) == NULL &&
      archive_entry_filetype (entry) == AE_IFDIR)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY,
                 _ ("%s is a directory"), display);
  else
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                 _ ("%s is not a regular file"), display);
  return FALSE;
}

/**
 * agents_docker_tar_open_single_file:
 * @in: the tar of GET /containers/{id}/archive?path=FILE
 * @cancellable: (nullable): a #GCancellable for reading the header
 * @error: return location for a #GError
 *
 * Reads the header of the first member of @in and returns a stream over
 * its data, read from @in as it is consumed. The stream takes a
 * reference to @in and closes it when it is closed (also when this
 * fails).
 *
 * Returns: (transfer full): the data, or %NULL with @error set
 */
GInputStream *
agents_docker_tar_open_single_file (GInputStream *in,
                                    GCancellable *cancellable,
                                    GError **error)
{
  g_autoptr (AgentsDockerTarFileStream) self = NULL;
  struct archive_entry *entry;
  int r;

  g_return_val_if_fail (G_IS_INPUT_STREAM (in), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  self = g_object_new (AGENTS_TYPE_DOCKER_TAR_FILE_STREAM, NULL);
  self->in = g_object_ref (in);
  reader_init (&self->reader, in, cancellable);
  self->archive = reader_open (&self->reader, FALSE, error);
  if (self->archive == NULL)
    return NULL;
  r = archive_read_next_header (self->archive, &entry);
  if (r == ARCHIVE_EOF)
    {
      agents_archive_set_path_error (
        error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ, ".", NULL,
        _ ("the archive has no member"));
      return NULL;
    }
  if (r < ARCHIVE_WARN)
    {
      reader_fail (&self->reader, self->archive, NULL, error);
      return NULL;
    }
  self->member = g_strdup (entry_pathname (entry));
  if (self->member == NULL)
    self->member = g_strdup ("");
  if (!check_regular_member (entry, self->member, error))
    return NULL;
  self->reader.cancellable = NULL;
  return G_INPUT_STREAM (g_steal_pointer (&self));
}

/* ======================================================================
 * Writing a one-member tar
 * ====================================================================== */

static guint64
round_up_block (guint64 n)
{
  return (n + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK;
}

static guint
count_digits (gsize n)
{
  guint digits = 1;

  while (n >= 10)
    {
      n /= 10;
      digits++;
    }
  return digits;
}

/* A PAX record "LEN key=value\n", LEN counting itself. */
static void
append_pax_record (GString *records, const char *key, const char *value)
{
  gsize body = 1 + strlen (key) + 1 + strlen (value) + 1;
  gsize len = body + 1;

  while (count_digits (len) + body != len)
    len = count_digits (len) + body;
  g_string_append_printf (records, "%" G_GSIZE_FORMAT " %s=%s\n", len, key,
                          value);
}

/* The records of the 'x' header @name and @size need, or NULL. */
static GString *
pax_records (const char *name, guint64 size)
{
  GString *records = g_string_new (NULL);

  if (strlen (name) > USTAR_NAME_MAX)
    {
      /* PAX paths are UTF-8 unless said otherwise. */
      if (!g_utf8_validate (name, -1, NULL))
        append_pax_record (records, "hdrcharset", "BINARY");
      append_pax_record (records, "path", name);
    }
  if (size > USTAR_SIZE_MAX)
    {
      char value[32];

      g_snprintf (value, sizeof value, "%" G_GUINT64_FORMAT, size);
      append_pax_record (records, "size", value);
    }
  if (records->len == 0)
    {
      g_string_free (records, TRUE);
      return NULL;
    }
  return records;
}

static guint64
headers_length (const char *name, guint64 size)
{
  g_autoptr (GString) records = pax_records (name, size);

  return (records ? TAR_BLOCK + round_up_block (records->len) : 0) + TAR_BLOCK;
}

/* An octal number filling @width bytes with its terminating NUL. */
static void
put_octal (guint8 *field, gsize width, guint64 value)
{
  char text[32];

  g_snprintf (text, sizeof text, "%0*" G_GINT64_MODIFIER "o", (int) (width - 1),
              value);
  memcpy (field, text, width - 1);
  field[width - 1] = '\0';
}

/* A ustar header block. */
static void
put_header (guint8 *block,
            const char *name,
            guint mode,
            guint64 size,
            gint64 mtime,
            char typeflag)
{
  guint sum = 0;

  memset (block, 0, TAR_BLOCK);
  memcpy (block, name, MIN (strlen (name), USTAR_NAME_MAX));
  put_octal (block + 100, 8, mode & 07777);
  put_octal (block + 108, 8, 0);
  put_octal (block + 116, 8, 0);
  put_octal (block + 124, 12, size > USTAR_SIZE_MAX ? 0 : size);
  put_octal (block + 136, 12, mtime);
  block[156] = typeflag;
  memcpy (block + 257, "ustar", 6);
  memcpy (block + 263, "00", 2);

  /* The checksum counts its own field as spaces. */
  memset (block + 148, ' ', 8);
  for (guint i = 0; i < TAR_BLOCK; i++)
    sum += block[i];
  g_snprintf ((char *) block + 148, 7, "%06o", sum);
  block[154] = '\0';
  block[155] = ' ';
}

static GBytes *
build_headers (const char *name, guint mode, guint64 size)
{
  g_autoptr (GString) records = pax_records (name, size);
  guint64 length = headers_length (name, size);
  gint64 now = g_get_real_time () / G_USEC_PER_SEC;
  guint8 *headers = g_malloc0 (length);
  guint8 *p = headers;

  if (records != NULL)
    {
      g_autofree char *pax_name = g_strconcat ("PaxHeaders/", name, NULL);

      put_header (p, pax_name, 0644, records->len, now, 'x');
      memcpy (p + TAR_BLOCK, records->str, records->len);
      p += TAR_BLOCK + round_up_block (records->len);
    }
  put_header (p, name, mode, size, now, '0');
  return g_bytes_new_take (headers, length);
}

#define AGENTS_TYPE_DOCKER_TAR_WRITE_STREAM \
  (agents_docker_tar_write_stream_get_type ())
G_DECLARE_FINAL_TYPE (AgentsDockerTarWriteStream,
                      agents_docker_tar_write_stream,
                      AGENTS,
                      DOCKER_TAR_WRITE_STREAM,
                      GInputStream)

struct _AgentsDockerTarWriteStream
{
  GInputStream parent_instance;

  GInputStream *data;
  char *name;
  GBytes *headers;
  guint64 size;
  guint64 length; /* of the whole tar */
  guint64 pos;
  gboolean data_checked; /* nothing came after @size bytes */
};

G_DEFINE_FINAL_TYPE (AgentsDockerTarWriteStream,
                     agents_docker_tar_write_stream,
                     G_TYPE_INPUT_STREAM)

static gssize
set_size_error (AgentsDockerTarWriteStream *self,
                gboolean short_data,
                GError **error)
{
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  g_autofree char *display = g_utf8_make_valid (self->name, -1);
  g_autofree char *reason = NULL;

  if (short_data)
    reason = g_strdup_printf (
      _ ("the data ended after %" PRIu64 " of %" PRIu64 " bytes"),
      (uint64_t) (self->pos - g_bytes_get_size (self->headers)),
      (uint64_t) self->size);
  else
    reason = g_strdup_printf (_ ("the data is longer than %" PRIu64 " bytes"),
                              (uint64_t) self->size);
  g_variant_builder_add (&ctx, "{sv}", "path", g_variant_new_string (display));
  g_variant_builder_add (&ctx, "{sv}", "reason", g_variant_new_string (reason));
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE,
                            g_variant_builder_end (&ctx),
                            _ ("failed to write archive for path: %s: %s"),
                            display, reason);
  return -1;
}

static gssize
read_data (AgentsDockerTarWriteStream *self,
           void *buffer,
           gsize count,
           GCancellable *cancellable,
           GError **error)
{
  guint64 done = self->pos - g_bytes_get_size (self->headers);
  gssize n = g_input_stream_read (
    self->data, buffer, MIN (count, self->size - done), cancellable, error);

  if (n == 0)
    return set_size_error (self, TRUE, error);
  if (n > 0)
    self->pos += n;
  return n;
}

static gboolean
check_data_end (AgentsDockerTarWriteStream *self,
                GCancellable *cancellable,
                GError **error)
{
  guint8 extra;
  gssize n = g_input_stream_read (self->data, &extra, 1, cancellable, error);

  if (n < 0)
    return FALSE;
  if (n > 0)
    {
      set_size_error (self, FALSE, error);
      return FALSE;
    }
  self->data_checked = TRUE;
  return TRUE;
}

static gssize
agents_docker_tar_write_stream_read (GInputStream *stream,
                                     void *buffer,
                                     gsize count,
                                     GCancellable *cancellable,
                                     GError **error)
{
  AgentsDockerTarWriteStream *self = AGENTS_DOCKER_TAR_WRITE_STREAM (stream);
  gsize headers_len = g_bytes_get_size (self->headers);
  gsize n;

  if (self->pos < headers_len)
    {
      const guint8 *headers = g_bytes_get_data (self->headers, NULL);

      n = MIN (count, headers_len - self->pos);
      memcpy (buffer, headers + self->pos, n);
      self->pos += n;
      return n;
    }
  if (self->pos < headers_len + self->size)
    return read_data (self, buffer, count, cancellable, error);
  if (!self->data_checked && !check_data_end (self, cancellable, error))
    return -1;

  /* Padding of the data, then the two end-of-archive blocks. */
  n = MIN (count, self->length - self->pos);
  memset (buffer, 0, n);
  self->pos += n;
  return n;
}

static gboolean
agents_docker_tar_write_stream_close (GInputStream *stream,
                                      GCancellable *cancellable,
                                      GError **error)
{
  AgentsDockerTarWriteStream *self = AGENTS_DOCKER_TAR_WRITE_STREAM (stream);

  return g_input_stream_close (self->data, cancellable, error);
}

static void
agents_docker_tar_write_stream_finalize (GObject *object)
{
  AgentsDockerTarWriteStream *self = AGENTS_DOCKER_TAR_WRITE_STREAM (object);

  g_clear_object (&self->data);
  g_free (self->name);
  g_clear_pointer (&self->headers, g_bytes_unref);
  G_OBJECT_CLASS (agents_docker_tar_write_stream_parent_class)
    ->finalize (object);
}

static void
agents_docker_tar_write_stream_class_init (
  AgentsDockerTarWriteStreamClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GInputStreamClass *stream_class = G_INPUT_STREAM_CLASS (klass);

  object_class->finalize = agents_docker_tar_write_stream_finalize;
  stream_class->read_fn = agents_docker_tar_write_stream_read;
  stream_class->close_fn = agents_docker_tar_write_stream_close;
}

static void
agents_docker_tar_write_stream_init (AgentsDockerTarWriteStream *self)
{
}

/**
 * agents_docker_tar_single_file_length:
 * @name: the member name
 * @size: the size of its data
 *
 * Returns: the length of what agents_docker_tar_single_file_stream()
 *   produces for @name and @size
 */
guint64
agents_docker_tar_single_file_length (const char *name, guint64 size)
{
  g_return_val_if_fail (name != NULL, 0);

  return headers_length (name, size) + round_up_block (size) + 2 * TAR_BLOCK;
}

/**
 * agents_docker_tar_single_file_stream:
 * @name: the member name, a single path component
 * @mode: its permission bits
 * @data: the data; closed when the returned stream is closed
 * @size: the number of bytes @data has
 *
 * A ustar archive with one regular file (owner 0:0, modified now), and a
 * PAX header before it when the name is longer than 100 bytes or the size
 * beyond ustar's 8 GiB.
 *
 * Returns: (transfer full): the tar stream
 */
GInputStream *
agents_docker_tar_single_file_stream (const char *name,
                                      guint mode,
                                      GInputStream *data,
                                      guint64 size)
{
  AgentsDockerTarWriteStream *self;

  g_return_val_if_fail (name != NULL && *name != '\0', NULL);
  g_return_val_if_fail (G_IS_INPUT_STREAM (data), NULL);

  self = g_object_new (AGENTS_TYPE_DOCKER_TAR_WRITE_STREAM, NULL);
  self->data = g_object_ref (data);
  self->name = g_strdup (name);
  self->size = size;
  self->headers = build_headers (name, mode, size);
  self->length = agents_docker_tar_single_file_length (name, size);
  return G_INPUT_STREAM (self);
}
