/* agents-sandbox-instructions.c - the system prompt of sandbox agents
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "agents-manifest-private.h"
#include "agents-resources.h"
#include "agents-sandbox-instructions-private.h"

/* Everything here is read by models, not by people: not translated. */

#define FILESYSTEM_HEADER                                                    \
  "# Filesystem\n"                                                           \
  "You have access to a container with a filesystem. The filesystem layout " \
  "is:\n"                                                                    \
  "\n"

#define REMOTE_MOUNT_POLICY                                                   \
  "Some paths of the workspace are remote mounts: storage exposed as "        \
  "directories, not local disk.\n"                                            \
  "\n"                                                                        \
  "{path_lines}\n"                                                            \
  "\n"                                                                        \
  "Remote mounts are slow and do not behave like local files: listing "       \
  "large trees, searching, renaming, appending and partial writes can be "    \
  "slow, costly or unsupported. Only use these commands on remote mounts: "   \
  "{REMOTE_MOUNT_COMMAND_ALLOWLIST_TEXT}. Do not run builds, tests, package " \
  "managers or version control inside a mount; copy what you need to a "      \
  "normal local workspace path first. {edit_instructions}"

#define READ_ONLY_EDITS                                                        \
  "Do not edit paths marked read-only in place, including with "               \
  "`apply_patch`, and do not write edited files back to them. Copy read-only " \
  "files to a normal local workspace path only if you need an editable "       \
  "scratch copy."

#define READ_WRITE_EDITS                                                    \
  "Use `apply_patch` directly for text edits on read+write mounts. For "    \
  "shell-based edits on read+write mounts, first `cp` the mounted file to " \
  "a normal local workspace path, edit the local copy there, then copy it " \
  "back."

/* A hostile manifest (from a resumed run state) must not blow the prompt
 * up: the layout shows at most this much. */
#define MAX_TREE_DEPTH 16
#define MAX_TREE_LINES 1000

/* ---- The default prompt ----------------------------------------------- */

static GMutex default_lock;
static gboolean default_loaded;
static gboolean default_missing;
static const char *default_text;

/* Interned: the text lives as long as the program, so callers may keep
 * it, and reloading it (after the test switch) gives the same pointer. */
static const char *
load_default_instructions (void)
{
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (GError) error = NULL;
  const char *data;
  g_autofree char *text = NULL;
  gsize size;

  if (default_missing)
    return NULL;
  bytes = g_resource_lookup_data (agents_get_resource (),
                                  AGENTS_SANDBOX_PROMPT_RESOURCE,
                                  G_RESOURCE_LOOKUP_FLAGS_NONE, &error);
  if (bytes == NULL)
    {
      g_debug ("No default sandbox prompt: %s", error->message);
      return NULL;
    }
  data = g_bytes_get_data (bytes, &size);
  while (size > 0 && g_ascii_isspace (data[size - 1]))
    size--;
  text = g_strndup (data, size);
  return g_intern_string (text);
}

/**
 * agents_sandbox_get_default_instructions:
 *
 * Gets the default prompt of sandbox agents: what an agent working in a
 * sandbox needs to know about its workspace, confinement and tools. It
 * starts the system prompt of a #AgentsSandboxAgent that has no base
 * instructions of its own. It is kept in the library's resources
 * (`prompt.md`); if that resource cannot be found, there is no default
 * prompt and sandbox prompts start with the agent's own instructions.
 *
 * Returns: (nullable): the default prompt, without trailing white space
 */
const char *
agents_sandbox_get_default_instructions (void)
{
  const char *text;

  g_mutex_lock (&default_lock);
  if (!default_loaded)
    {
      default_text = load_default_instructions ();
      default_loaded = TRUE;
    }
  text = default_text;
  g_mutex_unlock (&default_lock);
  return text;
}

void
agents_sandbox_instructions_set_resource_missing (gboolean missing)
{
  g_mutex_lock (&default_lock);
  default_missing = missing;
  default_loaded = FALSE;
  default_text = NULL;
  g_mutex_unlock (&default_lock);
}

/* ---- The filesystem layout -------------------------------------------- */

typedef struct _TreeNode TreeNode;

struct _TreeNode
{
  char *name;
  AgentsManifestEntry *entry; /* nullable: a directory implied by paths */
  GPtrArray *children;        /* TreeNode, in order */
  GHashTable *index;          /* name → TreeNode, once there are many */
};

/* Children are looked up by name through an index beyond this many, so
 * that a directory of n entries is built in O(n), not O(n²). */
#define TREE_INDEX_MIN 8

static void
tree_node_free (TreeNode *node)
{
  g_free (node->name);
  g_clear_object (&node->entry);
  g_clear_pointer (&node->index, g_hash_table_unref);
  g_ptr_array_unref (node->children);
  g_free (node);
}

static TreeNode *
tree_node_new (const char *name)
{
  TreeNode *node = g_new0 (TreeNode, 1);

  node->name = g_strdup (name);
  node->children =
    g_ptr_array_new_with_free_func ((GDestroyNotify) tree_node_free);
  return node;
}

static TreeNode *
tree_node_find (TreeNode *parent, const char *name)
{
  if (parent->index != NULL)
    return g_hash_table_lookup (parent->index, name);
  for (guint i = 0; i < parent->children->len; i++)
    {
      TreeNode *child = parent->children->pdata[i];

      if (g_str_equal (child->name, name))
        return child;
    }
  return NULL;
}

static TreeNode *
tree_node_child (TreeNode *parent, const char *name)
{
  TreeNode *child = tree_node_find (parent, name);

  if (child != NULL)
    return child;
  child = tree_node_new (name);
  g_ptr_array_add (parent->children, child);
  if (parent->index == NULL && parent->children->len >= TREE_INDEX_MIN)
    {
      parent->index = g_hash_table_new (g_str_hash, g_str_equal);
      for (guint i = 0; i < parent->children->len; i++)
        {
          TreeNode *sibling = parent->children->pdata[i];

          g_hash_table_insert (parent->index, sibling->name, sibling);
        }
    }
  else if (parent->index != NULL)
    g_hash_table_insert (parent->index, child->name, child);
  return child;
}

static void
tree_add_entry (TreeNode *node, AgentsManifestEntry *entry, guint depth);

static void
tree_add_dir_children (TreeNode *node, AgentsDir *dir, guint depth)
{
  g_auto (GStrv) names = agents_dir_get_child_names (dir);

  for (guint i = 0; names[i] != NULL; i++)
    tree_add_entry (tree_node_child (node, names[i]),
                    agents_dir_get_child (dir, names[i]), depth + 1);
}

static void
tree_add_entry (TreeNode *node, AgentsManifestEntry *entry, guint depth)
{
  g_set_object (&node->entry, entry);
  if (AGENTS_IS_DIR (entry) && depth < MAX_TREE_DEPTH)
    tree_add_dir_children (node, AGENTS_DIR (entry), depth);
}

static void
tree_add_path (TreeNode *root, const char *path, AgentsManifestEntry *entry)
{
  g_auto (GStrv) parts = g_strsplit (path, "/", -1);
  TreeNode *node = root;
  guint depth = 0;

  for (guint i = 0; parts[i] != NULL; i++)
    {
      if (parts[i][0] == '\0' || g_str_equal (parts[i], "."))
        continue;
      if (++depth > MAX_TREE_DEPTH)
        return;
      node = tree_node_child (node, parts[i]);
    }
  if (node != root)
    tree_add_entry (node, entry, depth);
}

static gboolean
tree_node_is_dir (TreeNode *node)
{
  return node->entry == NULL || AGENTS_IS_DIR (node->entry) ||
         agents_manifest_entry_is_mount (node->entry) ||
         node->children->len > 0;
}

static void
append_label (GString *out, TreeNode *node)
{
  const char *description =
    node->entry ? agents_manifest_entry_get_description (node->entry) : NULL;

  g_string_append (out, node->name);
  if (tree_node_is_dir (node))
    g_string_append_c (out, '/');
  if (node->entry != NULL && AGENTS_IS_MOUNT (node->entry))
    g_string_append (out,
                     agents_mount_get_read_only (AGENTS_MOUNT (node->entry))
                       ? " (remote mount, read-only)"
                       : " (remote mount, read+write)");
  if (description != NULL && *description != '\0')
    {
      g_autofree char *line =
        g_strdelimit (g_strdup (description), "\r\n", ' ');

      g_string_append_printf (out, "  # %s", line);
    }
}

static void
append_children (GString *out, TreeNode *node, const char *prefix, guint *lines)
{
  for (guint i = 0; i < node->children->len; i++)
    {
      TreeNode *child = node->children->pdata[i];
      gboolean last = i + 1 == node->children->len;
      g_autofree char *child_prefix = NULL;

      if (*lines >= MAX_TREE_LINES)
        {
          g_string_append_printf (out, "\n%s…", prefix);
          return;
        }
      (*lines)++;
      g_string_append_printf (out, "\n%s%s", prefix, last ? "└── " : "├── ");
      append_label (out, child);
      child_prefix = g_strconcat (prefix, last ? "    " : "│   ", NULL);
      append_children (out, child, child_prefix, lines);
      if (*lines >= MAX_TREE_LINES)
        return;
    }
}

/* ---- Sections kept per manifest -------------------------------------- */

/* Every turn of a sandbox agent asks for the sections of its session's
 * manifest: they are kept on the manifest until a manifest or entry
 * changes (agents_manifest_private_changed()), so that a turn costs the
 * same whatever the manifest's size. */
typedef struct
{
  gsize filesystem_generation; /* 0: not kept */
  char *filesystem;
  gsize policy_generation; /* 0: not kept */
  char *policy;            /* nullable */
} SectionCache;

static GMutex cache_lock;

static void
section_cache_free (SectionCache *cache)
{
  g_free (cache->filesystem);
  g_free (cache->policy);
  g_free (cache);
}

static GQuark
section_cache_quark (void)
{
  return g_quark_from_static_string ("agents-sandbox-instructions-cache");
}

/* Under cache_lock. */
static SectionCache *
section_cache (AgentsManifest *manifest)
{
  SectionCache *cache =
    g_object_get_qdata (G_OBJECT (manifest), section_cache_quark ());

  if (cache == NULL)
    {
      cache = g_new0 (SectionCache, 1);
      g_object_set_qdata_full (G_OBJECT (manifest), section_cache_quark (),
                               cache, (GDestroyNotify) section_cache_free);
    }
  return cache;
}

/* Whether @generation's @text is kept; @copy gets a copy of it. */
static gboolean
section_lookup (AgentsManifest *manifest,
                gsize generation,
                gboolean policy,
                char **copy)
{
  g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&cache_lock);
  SectionCache *cache = section_cache (manifest);

  if ((policy ? cache->policy_generation : cache->filesystem_generation) !=
      generation)
    return FALSE;
  *copy = g_strdup (policy ? cache->policy : cache->filesystem);
  return TRUE;
}

/* Keeps @text as the section of @generation, the counter's value read
 * before it was built: a change during the build makes it stale. */
static void
section_store (AgentsManifest *manifest,
               gsize generation,
               gboolean policy,
               const char *text)
{
  g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&cache_lock);
  SectionCache *cache = section_cache (manifest);

  if (policy)
    {
      g_free (cache->policy);
      cache->policy = g_strdup (text);
      cache->policy_generation = generation;
    }
  else
    {
      g_free (cache->filesystem);
      cache->filesystem = g_strdup (text);
      cache->filesystem_generation = generation;
    }
}

static char *
build_filesystem_instructions (AgentsManifest *manifest)
{
  g_autoptr (GString) out = g_string_new (FILESYSTEM_HEADER);
  g_auto (GStrv) paths = NULL;
  TreeNode *root;
  guint lines = 0;

  root = tree_node_new (agents_manifest_get_root (manifest));
  paths = agents_manifest_get_entry_paths (manifest);
  for (guint i = 0; paths[i] != NULL; i++)
    tree_add_path (root, paths[i],
                   agents_manifest_get_entry (manifest, paths[i]));

  g_string_append (out, root->name);
  append_children (out, root, "", &lines);
  tree_node_free (root);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/**
 * agents_sandbox_filesystem_instructions:
 * @manifest: a manifest
 *
 * Describes the workspace of @manifest for the system prompt: a
 * `# Filesystem` section with the workspace root and, as a tree under
 * it, the manifest's entries (directories end in `/`, remote mounts are
 * marked, descriptions follow `#`). Extra path grants are not shown. For
 * an empty manifest rooted at `/workspace` the section is
 *
 * |[
 * # Filesystem
 * You have access to a container with a filesystem. The filesystem layout is:
 *
 * /workspace
 * ]|
 *
 * Returns: (transfer full): the section, without a trailing newline
 */
char *
agents_sandbox_filesystem_instructions (AgentsManifest *manifest)
{
  gsize generation;
  char *text;

  g_return_val_if_fail (AGENTS_IS_MANIFEST (manifest), NULL);

  generation = agents_manifest_private_get_generation ();
  if (section_lookup (manifest, generation, FALSE, &text))
    return text;
  text = build_filesystem_instructions (manifest);
  section_store (manifest, generation, FALSE, text);
  return text;
}

/* ---- The remote mount policy ------------------------------------------ */

/**
 * agents_sandbox_get_remote_mount_policy_template:
 *
 * Gets the text of the `# Sandbox remote mount policy` section of sandbox
 * prompts (without that heading), with three placeholders:
 * `{path_lines}` (one `- PATH (mounted in read-only mode)` or
 * `- PATH (mounted in read+write mode)` line per mount),
 * `{REMOTE_MOUNT_COMMAND_ALLOWLIST_TEXT}` (the manifest's allowed commands,
 * as `` `ls`, `cp` ``) and `{edit_instructions}` (see
 * agents_sandbox_remote_mount_edit_instructions()). This is the
 * reference's `REMOTE_MOUNT_POLICY`.
 *
 * Returns: the template
 */
const char *
agents_sandbox_get_remote_mount_policy_template (void)
{
  return REMOTE_MOUNT_POLICY;
}

/**
 * agents_sandbox_remote_mount_edit_instructions:
 * @read_only: whether some mount is read-only
 * @read_write: whether some mount is writable
 *
 * Gets the editing guidance of the remote mount policy for the kinds of
 * mounts a manifest has: how to edit files on writable mounts, then
 * what not to do with read-only ones.
 *
 * Returns: (transfer full): the guidance (empty when neither is set)
 */
char *
agents_sandbox_remote_mount_edit_instructions (gboolean read_only,
                                               gboolean read_write)
{
  if (read_only && read_write)
    return g_strdup (READ_WRITE_EDITS " " READ_ONLY_EDITS);
  if (read_write)
    return g_strdup (READ_WRITE_EDITS);
  if (read_only)
    return g_strdup (READ_ONLY_EDITS);
  return g_strdup ("");
}

static char *
allowlist_text (AgentsManifest *manifest)
{
  const char *const *commands =
    agents_manifest_get_remote_mount_command_allowlist (manifest);
  g_autoptr (GString) out = g_string_new (NULL);

  for (guint i = 0; commands != NULL && commands[i] != NULL; i++)
    g_string_append_printf (out, "%s`%s`", i > 0 ? ", " : "", commands[i]);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* Fills the placeholders of @template in one pass, so that values (paths
 * from a manifest) are never searched for placeholders themselves. */
static char *
fill_template (const char *template,
               const char *const *names,
               const char *const *values)
{
  g_autoptr (GString) out = g_string_new (NULL);
  const char *p = template;

  while (*p != '\0')
    {
      gboolean replaced = FALSE;

      for (guint i = 0; *p == '{' && names[i] != NULL && !replaced; i++)
        {
          gsize len = strlen (names[i]);

          if (strncmp (p + 1, names[i], len) == 0 && p[len + 1] == '}')
            {
              g_string_append (out, values[i]);
              p += len + 2;
              replaced = TRUE;
            }
        }
      if (!replaced)
        g_string_append_c (out, *p++);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static char *
build_remote_mount_policy (AgentsManifest *manifest)
{
  g_autoptr (GPtrArray) mounts = NULL;
  g_autoptr (GString) lines = g_string_new (NULL);
  g_autofree char *commands = NULL;
  g_autofree char *edits = NULL;
  gboolean read_only = FALSE, read_write = FALSE;

  mounts = agents_manifest_list_mounts (manifest);
  if (mounts->len == 0)
    return NULL;
  for (guint i = 0; i < mounts->len; i++)
    {
      AgentsEntryTarget *target = mounts->pdata[i];
      gboolean ro = agents_mount_get_read_only (AGENTS_MOUNT (target->entry));

      read_only |= ro;
      read_write |= !ro;
      g_string_append_printf (lines, "%s- %s (mounted in %s mode)",
                              i > 0 ? "\n" : "", target->path,
                              ro ? "read-only" : "read+write");
    }
  commands = allowlist_text (manifest);
  edits = agents_sandbox_remote_mount_edit_instructions (read_only, read_write);

  {
    const char *names[] = { "path_lines", "REMOTE_MOUNT_COMMAND_ALLOWLIST_TEXT",
                            "edit_instructions", NULL };
    const char *values[] = { lines->str, commands, edits, NULL };

    return fill_template (REMOTE_MOUNT_POLICY, names, values);
  }
}

/**
 * agents_sandbox_remote_mount_policy:
 * @manifest: a manifest
 *
 * Fills the remote mount policy template
 * (agents_sandbox_get_remote_mount_policy_template()) for the mounts of
 * @manifest, including mounts nested in directories, whatever their
 * #AgentsManifestEntry:ephemeral flag.
 *
 * Returns: (transfer full) (nullable): the policy text, or %NULL when the
 *   manifest has no mounts
 */
char *
agents_sandbox_remote_mount_policy (AgentsManifest *manifest)
{
  gsize generation;
  char *text;

  g_return_val_if_fail (AGENTS_IS_MANIFEST (manifest), NULL);

  generation = agents_manifest_private_get_generation ();
  if (section_lookup (manifest, generation, TRUE, &text))
    return text;
  text = build_remote_mount_policy (manifest);
  section_store (manifest, generation, TRUE, text);
  return text;
}
