/* agents-archive-validate.c - the tar policy over a stream: validating
 * an archive that someone else will extract; renaming members beneath a
 * prefix and listing symlinks are in agents-archive-strip.c
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "agents-archive-private.h"
#include "agents-archive-validate-private.h"
#include "agents-sandbox-error-private.h"

/* ======================================================================
 * The policy
 * ====================================================================== */

struct _AgentsArchivePolicy
{
  gatomicrefcount ref_count;
  gboolean keep_links;
  GHashTable *existing_links; /* normalized path -> target */
  GHashTable *rejected_symlinks;
  GHashTable *skipped;
};

/**
 * AgentsArchivePolicy:
 *
 * The tar policy a validated archive is held to beyond its limits:
 * whether links are kept, symlinks already in the destination, symlink
 * paths to refuse and subtrees to skip. A reference-counted boxed type.
 */
G_DEFINE_BOXED_TYPE (AgentsArchivePolicy,
                     agents_archive_policy,
                     agents_archive_policy_ref,
                     agents_archive_policy_unref)

/**
 * agents_archive_policy_new:
 *
 * Creates the strict tar policy of agents_archive_extract_to_directory():
 * symlinks must stay inside the root, and there are no symlinks in the
 * destination yet.
 *
 * Returns: (transfer full): the policy
 */
AgentsArchivePolicy *
agents_archive_policy_new (void)
{
  AgentsArchivePolicy *self = g_new0 (AgentsArchivePolicy, 1);

  g_atomic_ref_count_init (&self->ref_count);
  self->existing_links =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->rejected_symlinks =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->skipped = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  return self;
}

/**
 * agents_archive_policy_ref:
 * @self: a policy
 *
 * Takes a reference on @self.
 *
 * Returns: (transfer full): @self
 */
AgentsArchivePolicy *
agents_archive_policy_ref (AgentsArchivePolicy *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/**
 * agents_archive_policy_unref:
 * @self: (transfer full): a policy
 *
 * Drops a reference to @self.
 */
void
agents_archive_policy_unref (AgentsArchivePolicy *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  g_hash_table_unref (self->existing_links);
  g_hash_table_unref (self->rejected_symlinks);
  g_hash_table_unref (self->skipped);
  g_free (self);
}

/**
 * agents_archive_policy_set_keep_links:
 * @self: a policy
 * @keep_links: whether the archive is a workspace snapshot
 *
 * With @keep_links, as agents_archive_extract_snapshot_to_directory_async()
 * restores a snapshot, a symlink member may point anywhere, except a
 * relative target that lexically leaves the root (an extractor such as
 * the Docker engine's refuses that one); no member is still ever written
 * through a symlink that leads out of the root.
 */
void
agents_archive_policy_set_keep_links (AgentsArchivePolicy *self,
                                      gboolean keep_links)
{
  g_return_if_fail (self != NULL);

  self->keep_links = keep_links;
}

/* The normalized form of a root-relative @path, or NULL for the root. */
char *
agents_archive_normalize_path (const char *path)
{
  g_autoptr (GPtrArray) components = agents_archive_split_components (path);

  if (components->len == 0)
    return NULL;
  return agents_archive_join_components (components, components->len);
}

/**
 * agents_archive_policy_add_existing_link:
 * @self: a policy
 * @path: a root-relative path
 * @target: the target of the symlink there
 *
 * Says that the destination already has a symlink at @path, so that
 * members resolved through it are judged by where it leads.
 */
void
agents_archive_policy_add_existing_link (AgentsArchivePolicy *self,
                                         const char *path,
                                         const char *target)
{
  char *rel;

  g_return_if_fail (self != NULL && path != NULL && target != NULL);

  rel = agents_archive_normalize_path (path);
  if (rel != NULL)
    g_hash_table_replace (self->existing_links, rel, g_strdup (target));
}

/**
 * agents_archive_policy_reject_symlink_at:
 * @self: a policy
 * @path: a root-relative path
 *
 * Refuses a symlink member at @path (`./` and repeated slashes do not
 * matter) with the reason `symlink_member` and the detail @path,
 * normalized; members beneath a directory there are not concerned.
 */
void
agents_archive_policy_reject_symlink_at (AgentsArchivePolicy *self,
                                         const char *path)
{
  char *rel;

  g_return_if_fail (self != NULL && path != NULL);

  rel = agents_archive_normalize_path (path);
  if (rel != NULL)
    g_hash_table_add (self->rejected_symlinks, rel);
}

/**
 * agents_archive_policy_skip_path:
 * @self: a policy
 * @path: a root-relative path
 *
 * Leaves the members at and beneath @path out: they are neither
 * validated nor passed on.
 */
void
agents_archive_policy_skip_path (AgentsArchivePolicy *self, const char *path)
{
  char *rel;

  g_return_if_fail (self != NULL && path != NULL);

  rel = agents_archive_normalize_path (path);
  if (rel != NULL)
    g_hash_table_add (self->skipped, rel);
}

/* Whether @components, or one of its parents, is in @set. */
gboolean
agents_archive_in_subtree (GHashTable *set, GPtrArray *components)
{
  g_autoptr (GString) rel = g_string_new (NULL);

  if (g_hash_table_size (set) == 0)
    return FALSE;
  for (guint i = 0; i < components->len; i++)
    {
      if (i > 0)
        g_string_append_c (rel, '/');
      g_string_append (rel, g_ptr_array_index (components, i));
      if (g_hash_table_contains (set, rel->str))
        return TRUE;
    }
  return FALSE;
}

/* ======================================================================
 * Passing members on
 * ====================================================================== */

/* Reads (and passes on) the data of a regular member. */
static gboolean
copy_data (Copy *c, GError **error)
{
  if (c->writer != NULL)
    return agents_archive_writer_copy_data (c->writer, c->reader,
                                            c->cancellable, error);
  if (c->scratch == NULL)
    c->scratch = g_malloc (64 * 1024);
  for (;;)
    {
      gssize n = agents_archive_reader_read_data (
        c->reader, c->scratch, 64 * 1024, c->cancellable, error);

      if (n <= 0)
        return n == 0;
    }
}

/* Passes on @from named @rel, with its type and permission bits masked
 * with @perm_mask; a hard link links to @hardlink. */
gboolean
agents_archive_copy_member (Copy *c,
                            const AgentsArchiveMember *from,
                            const char *rel,
                            guint perm_mask,
                            const char *hardlink,
                            GError **error)
{
  g_autoptr (AgentsArchiveMember) to = agents_archive_member_copy (from);

  agents_archive_member_set_name (to, rel);
  to->mode &= perm_mask;
  if (hardlink != NULL)
    {
      to->type = AGENTS_ARCHIVE_MEMBER_HARDLINK;
      agents_archive_member_set_link_target (to, hardlink);
    }
  if (c->writer != NULL &&
      !agents_archive_writer_add (c->writer, to, c->cancellable, error))
    return FALSE;
  if (to->type == AGENTS_ARCHIVE_MEMBER_REGULAR)
    return copy_data (c, error);
  return TRUE;
}

gboolean
agents_archive_copy_finish (Copy *c, GError **error)
{
  return c->writer == NULL ||
         agents_archive_writer_close (c->writer, c->cancellable, error);
}

void
agents_archive_copy_clear (Copy *c)
{
  g_clear_object (&c->reader);
  g_clear_object (&c->writer);
  g_free (c->scratch);
}

/* ======================================================================
 * Validating: the extraction rules against a model of the destination
 * ====================================================================== */

/*
 * Whoever extracts what we pass on follows the symlinks of the
 * destination and of the archive, so the checks run against a model of
 * the tree: every path the archive has made so far, and the existing
 * links. Paths are physical (symlinks expanded). A path the model does
 * not know may be an existing directory, but never a symlink, so walks go
 * on through it; it is not a directory to leave with "..", though (see
 * agents_archive_walk_inside()).
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
  AgentsArchivePolicy *policy;
  GHashTable *nodes; /* physical path -> Node */
  GHashTable *seen;  /* member path -> AgentsArchiveSeenKind */
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
 * directories on the way become part of the model, as an extractor
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
                    const AgentsArchiveMember *m,
                    GPtrArray *components,
                    const char *rel,
                    GError **error)
{
  g_autofree char *slot =
    resolve_slot (v, components, m->name, rel, TRUE, error);

  if (slot == NULL)
    return FALSE;
  set_node (v, slot, NODE_DIR, NULL);
  return agents_archive_copy_member (&v->copy, m, rel, 0777, NULL, error);
}

static gboolean
validate_regular (Validate *v,
                  const AgentsArchiveMember *m,
                  GPtrArray *components,
                  const char *rel,
                  GError **error)
{
  g_autofree char *slot = NULL;

  if (!agents_archive_reader_check_size (v->copy.reader, m->name, m->size,
                                         error))
    return FALSE;
  slot = resolve_slot (v, components, m->name, rel, FALSE, error);
  if (slot == NULL)
    return FALSE;
  set_node (v, slot, NODE_FILE, NULL);
  return agents_archive_copy_member (&v->copy, m, rel, 0777, NULL, error);
}

/* The rule of an extractor that refuses links leading out lexically (the
 * Docker engine's): a relative target, joined lexically to the link's
 * directory, stays under the directory extracted into (absolute targets
 * pass). */
static gboolean
lexically_inside (GPtrArray *components, const char *target)
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
                  const AgentsArchiveMember *m,
                  GPtrArray *components,
                  const char *rel,
                  GError **error)
{
  const char *target = m->link_target;
  g_autofree char *dir = NULL;
  g_autofree char *slot = NULL;

  if (g_hash_table_contains (v->policy->rejected_symlinks, rel))
    return agents_archive_set_unsafe_error_full (error, m->name,
                                                 "symlink_member", rel);
  if (target == NULL || *target == '\0' || strlen (target) >= PATH_MAX)
    return agents_archive_set_unsafe_error (error, m->name,
                                            "invalid_link_target");
  /* The directory first, so that the walk finds it. */
  dir = resolve_dir (v, components, m->name, "symlink_escape", TRUE, error);
  if (dir == NULL)
    return FALSE;
  /* Kept links still count when later members resolve through them. */
  if (v->policy->keep_links
        ? !lexically_inside (components, target)
        : !agents_archive_walk_inside (components, components->len - 1, target,
                                       inspect_model, v, NULL))
    return agents_archive_set_unsafe_error (error, m->name, "symlink_escape");
  slot = resolve_slot (v, components, m->name, rel, FALSE, error);
  if (slot == NULL)
    return FALSE;
  set_node (v, slot, NODE_LINK, target);
  return agents_archive_copy_member (&v->copy, m, rel, 0777, NULL, error);
}

/* A hard link to an earlier member (a file, or a symlink, which is linked
 * itself): the extractor links whatever is at the target's path,
 * following symlinks on the way there. */
static gboolean
validate_hardlink (Validate *v,
                   const AgentsArchiveMember *m,
                   GPtrArray *components,
                   GPtrArray *source,
                   const char *source_rel,
                   const char *rel,
                   GError **error)
{
  g_autofree char *source_dir = NULL;
  g_autofree char *source_slot = NULL;
  g_autofree char *source_target = NULL;
  g_autofree char *slot = NULL;
  NodeKind kind;
  Node *node;

  source_dir =
    resolve_dir (v, source, m->name, "hardlink_escape", FALSE, error);
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

  slot = resolve_slot (v, components, m->name, rel, FALSE, error);
  if (slot == NULL)
    return FALSE;
  /* The extractor removes what is at the link's place before linking. */
  if (strcmp (slot, source_slot) == 0)
    return set_write_error (error, rel, ENOENT);
  set_node (v, slot, kind, source_target);
  return agents_archive_copy_member (&v->copy, m, rel, 0777, source_rel, error);
}

static AgentsArchiveSeenKind
seen_kind (const AgentsArchiveMember *m)
{
  switch (m->type)
    {
    case AGENTS_ARCHIVE_MEMBER_DIRECTORY:
      return AGENTS_ARCHIVE_SEEN_DIR;
    case AGENTS_ARCHIVE_MEMBER_SYMLINK:
      return AGENTS_ARCHIVE_SEEN_SYMLINK;
    default:
      return AGENTS_ARCHIVE_SEEN_FILE;
    }
}

static gboolean
validate_member (Validate *v, const AgentsArchiveMember *m, GError **error)
{
  const char *reason = NULL;
  g_autoptr (GPtrArray) components =
    agents_archive_member_components (m->name, &reason);
  g_autoptr (GPtrArray) source = NULL;
  g_autofree char *source_rel = NULL;
  g_autofree char *rel = NULL;

  if (components == NULL)
    return agents_archive_set_unsafe_error (error, m->name, reason);
  if (components->len == 0)
    {
      /* "." is the root itself: its mode and owner are not the archive's
       * business, so it is not passed on. */
      if (m->type == AGENTS_ARCHIVE_MEMBER_DIRECTORY)
        return TRUE;
      return agents_archive_set_unsafe_error (error, m->name,
                                              "invalid_root_member");
    }
  if (agents_archive_in_subtree (v->policy->skipped, components))
    return TRUE;

  rel = agents_archive_join_components (components, components->len);
  if (m->type == AGENTS_ARCHIVE_MEMBER_HARDLINK)
    {
      source = agents_archive_member_components (m->link_target, &reason);
      if (source == NULL || source->len == 0)
        return agents_archive_set_unsafe_error (error, m->name,
                                                "hardlink_escape");
      source_rel = agents_archive_join_components (source, source->len);
      /* A link to itself changes nothing. */
      if (strcmp (source_rel, rel) == 0)
        return TRUE;
    }
  if (!agents_archive_check_member_path (v->seen, components, m->name, rel,
                                         seen_kind (m), FALSE, error))
    return FALSE;

  switch (m->type)
    {
    case AGENTS_ARCHIVE_MEMBER_HARDLINK:
      return validate_hardlink (v, m, components, source, source_rel, rel,
                                error);
    case AGENTS_ARCHIVE_MEMBER_DIRECTORY:
      return validate_directory (v, m, components, rel, error);
    case AGENTS_ARCHIVE_MEMBER_REGULAR:
      return validate_regular (v, m, components, rel, error);
    case AGENTS_ARCHIVE_MEMBER_SYMLINK:
      return validate_symlink (v, m, components, rel, error);
    default:
      return agents_archive_set_unsafe_error (error, m->name, "special_file");
    }
}

static gboolean
validate_members (Validate *v, GError **error)
{
  for (;;)
    {
      g_autoptr (AgentsArchiveMember) m = NULL;

      if (!agents_archive_reader_next (v->copy.reader, &m, v->copy.cancellable,
                                       error))
        return FALSE;
      if (m == NULL)
        return agents_archive_copy_finish (&v->copy, error);
      if (g_cancellable_set_error_if_cancelled (v->copy.cancellable, error) ||
          !validate_member (v, m, error))
        return FALSE;
    }
}

static GHashTable *
model_new (AgentsArchivePolicy *policy)
{
  GHashTable *nodes =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, node_free);
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, policy->existing_links);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      Node *node = g_new0 (Node, 1);

      node->kind = NODE_LINK;
      node->target = g_strdup (value);
      g_hash_table_replace (nodes, g_strdup (key), node);
    }
  return nodes;
}

/**
 * agents_archive_validate_copy:
 * @input: a tar, plain or compressed
 * @policy: (nullable): the policy; %NULL for agents_archive_policy_new()
 * @limits: (nullable): the limits; %NULL for the defaults of
 *   agents_archive_limits_new()
 * @output: (nullable): where the accepted members go, as a plain tar;
 *   %NULL to validate only
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Checks @input member by member with the rules of
 * agents_archive_extract_to_directory() against a model of the
 * destination (@policy's existing links and what the archive made so
 * far), streaming: names relative, normalized, no `..`, not empty, each
 * path named once (but directories); types regular, directory, symlink
 * and hard link only; symlink targets that stay inside (or, with
 * agents_archive_policy_set_keep_links(), any but a relative one leading
 * out lexically); hard link targets are earlier members; no member
 * written through a symlink that leaves the root; @limits. Each accepted
 * member is copied to @output with a clean header: permission bits
 * without setuid, setgid and sticky, the member of the root itself left
 * out.
 *
 * Errors are %AGENTS_SANDBOX_ERROR_UNSAFE_ARCHIVE_MEMBER {member, reason,
 * detail}, %AGENTS_SANDBOX_ERROR_ARCHIVE_LIMIT {limit, value, …} and
 * %AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ or _WRITE {path, reason}.
 * On failure @output has received the members before the bad one and no
 * end-of-archive: whoever reads it must abort.
 *
 * Returns: %TRUE on success
 */
gboolean
agents_archive_validate_copy (GInputStream *input,
                              AgentsArchivePolicy *policy,
                              const AgentsArchiveLimits *limits,
                              GOutputStream *output,
                              GCancellable *cancellable,
                              GError **error)
{
  g_autoptr (AgentsArchiveLimits) default_limits = NULL;
  g_autoptr (AgentsArchivePolicy) default_policy = NULL;
  Validate v = { 0 };
  gboolean ok;

  g_return_val_if_fail (G_IS_INPUT_STREAM (input), FALSE);
  g_return_val_if_fail (output == NULL || G_IS_OUTPUT_STREAM (output), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (limits == NULL)
    limits = default_limits = agents_archive_limits_new ();
  if (policy == NULL)
    policy = default_policy = agents_archive_policy_new ();
  v.copy.reader =
    agents_archive_reader_new (input, AGENTS_COMPRESSION_SCHEME_TAR, limits);
  v.copy.writer = output ? agents_archive_writer_new (output) : NULL;
  v.copy.cancellable = cancellable;
  v.policy = policy;
  v.nodes = model_new (policy);
  v.seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  ok = validate_members (&v, error);
  agents_archive_copy_clear (&v.copy);
  g_hash_table_unref (v.nodes);
  g_hash_table_unref (v.seen);
  return ok;
}
