/* agents-sandbox-instructions.c - the system prompt of sandbox agents
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "agents-manifest-private.h"
#include "agents-resources.h"
#include "agents-sandbox-error-private.h"
#include "agents-sandbox-instructions-private.h"
#include "agents-workspace-scope-private.h"

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

/* The paragraph of a run with a working directory of its own; %s is
 * the directory, then the workspace root. */
#define WORKING_DIRECTORY_PARAGRAPH                                         \
  "For this run, the working directory is `%s`. Relative paths passed to "  \
  "the built-in `exec_command`, `view_image`, and `apply_patch` tools "     \
  "resolve from this directory. Other sandbox tools follow their own path " \
  "contract. The session workspace root remains `%s`. The working "         \
  "directory changes path resolution; it does not isolate this run from "   \
  "the rest of the session workspace. Files outside the working directory " \
  "may be visible to or shared with other runs."

/* A hostile manifest (from a resumed run state) must not blow the prompt
 * up: the layout shows at most this much. */
#define FILESYSTEM_TREE_DEPTH 3
#define FILESYSTEM_TREE_MAX_CHARS 5000

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

typedef struct _DescNode DescNode;

/* A node of the reference's render_manifest_description() tree. */
struct _DescNode
{
  GHashTable *children; /* name → DescNode */
  char *description;
  char *full_path; /* a mount's own path, else NULL */
  gboolean is_dir;
};

static void
desc_node_free (gpointer data)
{
  DescNode *node = data;

  g_hash_table_unref (node->children);
  g_free (node->description);
  g_free (node->full_path);
  g_free (node);
}

static DescNode *
desc_node_new (void)
{
  DescNode *node = g_new0 (DescNode, 1);

  node->children =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, desc_node_free);
  return node;
}

static DescNode *
desc_node_child (DescNode *parent, const char *name)
{
  DescNode *child = g_hash_table_lookup (parent->children, name);

  if (child == NULL)
    {
      child = desc_node_new ();
      g_hash_table_insert (parent->children, g_strdup (name), child);
    }
  return child;
}

typedef struct
{
  DescNode *root;
  int depth; /* -1: unbounded */
} Describe;

static void
describe_insert (Describe *d,
                 GPtrArray *parts,
                 AgentsManifestEntry *entry,
                 const char *full_path)
{
  guint n = parts->len;
  guint limit = d->depth < 0 ? n : MIN (n, (guint) d->depth);
  const char *description = agents_manifest_entry_get_description (entry);
  DescNode *node = d->root;

  if (n == 0)
    return;
  for (guint i = 0; i < limit; i++)
    {
      node = desc_node_child (node, g_ptr_array_index (parts, i));
      if (i + 1 < n)
        node->is_dir = TRUE;
    }
  if (node->description == NULL && description != NULL && limit == n)
    node->description = g_strdup (description);
  if (full_path != NULL && limit == n)
    {
      g_free (node->full_path);
      node->full_path = g_strdup (full_path);
    }
  if (AGENTS_IS_DIR (entry) || agents_manifest_entry_is_mount (entry) ||
      limit < n)
    node->is_dir = TRUE;
}

static void
describe_add_parts (GPtrArray *parts, const char *path)
{
  g_auto (GStrv) names = g_strsplit (path, "/", -1);

  for (guint i = 0; names[i] != NULL; i++)
    if (names[i][0] != '\0' && !g_str_equal (names[i], "."))
      g_ptr_array_add (parts, g_strdup (names[i]));
}

static void
describe_entry (Describe *d,
                GPtrArray *parts,
                AgentsManifestEntry *entry,
                const char *full_path)
{
  g_auto (GStrv) names = NULL;

  describe_insert (d, parts, entry, full_path);
  if (!AGENTS_IS_DIR (entry) ||
      (d->depth >= 0 && parts->len >= (guint) d->depth))
    return;
  names = agents_dir_get_child_names (AGENTS_DIR (entry));
  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autoptr (GPtrArray) child_parts =
        g_ptr_array_new_with_free_func (g_free);
      g_autofree char *child_full =
        full_path ? g_build_path ("/", full_path, names[i], NULL) : NULL;

      for (guint j = 0; j < parts->len; j++)
        g_ptr_array_add (child_parts, g_strdup (parts->pdata[j]));
      describe_add_parts (child_parts, names[i]);
      describe_entry (d, child_parts,
                      agents_dir_get_child (AGENTS_DIR (entry), names[i]),
                      child_full);
    }
}

static char *
describe_mount_path (const char *root, const char *key, AgentsMount *mount)
{
  const char *mount_path = agents_mount_get_mount_path (mount);

  if (mount_path == NULL)
    return g_build_path ("/", root, key, NULL);
  if (*mount_path == '/')
    return g_strdup (mount_path);
  return g_build_path ("/", root, mount_path, NULL);
}

typedef struct
{
  char *lead; /* prefix + connector + name */
  char *full_path;
  char *description;
} DescLine;

static void
desc_line_free (gpointer data)
{
  DescLine *line = data;

  g_free (line->lead);
  g_free (line->full_path);
  g_free (line->description);
  g_free (line);
}

static int
compare_names (const void *a, const void *b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

static void
describe_collect (DescNode *node,
                  const char *prefix,
                  int remaining,
                  const char *rel,
                  const char *root,
                  GPtrArray *lines)
{
  g_autofree const char **names = NULL;
  guint n = 0;

  if (remaining == 0)
    return;
  names = (const char **) g_hash_table_get_keys_as_array (node->children, &n);
  /* Byte order of UTF-8 is code point order, as Python's sorted(). */
  qsort (names, n, sizeof (char *), compare_names);
  for (guint i = 0; i < n; i++)
    {
      DescNode *child = g_hash_table_lookup (node->children, names[i]);
      gboolean last = i + 1 == n;
      gboolean is_dir = child->is_dir || g_hash_table_size (child->children);
      g_autofree char *child_rel =
        *rel ? g_strconcat (rel, "/", names[i], NULL) : g_strdup (names[i]);
      DescLine *line = g_new0 (DescLine, 1);

      line->lead = g_strconcat (prefix, last ? "└── " : "├── ", names[i],
                                is_dir ? "/" : "", NULL);
      line->full_path = child->full_path
                          ? g_strdup (child->full_path)
                          : g_build_path ("/", root, child_rel, NULL);
      line->description = g_strdup (child->description);
      g_ptr_array_add (lines, line);
      if (remaining < 0 || remaining > 1)
        {
          g_autofree char *extension =
            g_strconcat (prefix, last ? "    " : "│   ", NULL);

          describe_collect (child, extension,
                            remaining < 0 ? -1 : remaining - 1, child_rel, root,
                            lines);
        }
    }
}

/* The reference's _truncate_manifest_description(), in characters. */
static char *
describe_truncate (char *text, int max_chars)
{
  glong length = g_utf8_strlen (text, -1);
  g_autofree char *owned = text;
  g_autofree char *marker = NULL;
  g_autofree char *kept = NULL;
  g_autofree char *joined = NULL;
  glong omitted;
  glong keep;

  if (max_chars < 0 || length <= max_chars)
    return g_steal_pointer (&owned);
  omitted = length - max_chars;
  for (;;)
    {
      glong actual;

      g_free (marker);
      marker = g_strdup_printf (
        "\n... (truncated %ld chars)\n\nThe filesystem layout above was "
        "truncated. Use `ls` to explore specific directories before relying "
        "on omitted paths.\n",
        omitted);
      keep = MAX (0, max_chars - g_utf8_strlen (marker, -1));
      actual = length - keep;
      if (actual == omitted)
        break;
      omitted = actual;
    }
  if (g_utf8_strlen (marker, -1) >= max_chars)
    return g_utf8_substring (marker, 0, max_chars);
  kept = g_utf8_substring (owned, 0, keep);
  g_strchomp (kept);
  joined = g_strconcat (kept, marker, NULL);
  if (g_utf8_strlen (joined, -1) > max_chars)
    return g_utf8_substring (joined, 0, max_chars);
  return g_steal_pointer (&joined);
}

/**
 * agents_sandbox_describe_manifest:
 * @manifest: a manifest
 * @depth: how many levels of the tree to show, or -1 for all
 * @max_chars: the most characters of the result, or -1 for no limit
 * @error: return location for a #GError
 *
 * Renders the workspace of @manifest as a tree under its root, as the
 * reference's `render_manifest_description()`: names sorted, directories
 * ending in `/`, and after each name, aligned, `# ` and its absolute path
 * (a mount's own path), then ` — ` and its description if it has one.
 * A result longer than @max_chars characters is cut and ends with
 * `... (truncated N chars)` and a paragraph telling the model to use
 * `ls`. An empty manifest rooted at `/workspace` gives `"/workspace\n"`.
 *
 * Returns: (transfer full): the newline-terminated tree, or %NULL when
 *   @depth or @max_chars is 0 or below -1
 */
char *
agents_sandbox_describe_manifest (AgentsManifest *manifest,
                                  int depth,
                                  int max_chars,
                                  GError **error)
{
  g_autoptr (GPtrArray) lines = g_ptr_array_new_with_free_func (desc_line_free);
  g_autoptr (GString) out = g_string_new (NULL);
  g_autofree char *root = NULL;
  g_auto (GStrv) keys = NULL;
  Describe d = { NULL, depth };
  glong width = 0;

  g_return_val_if_fail (AGENTS_IS_MANIFEST (manifest), NULL);

  if (depth == 0 || depth < -1)
    {
      agents_sandbox_error_set (
        error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, NULL,
        _ ("depth must be a non-zero positive integer or None"));
      return NULL;
    }
  if (max_chars == 0 || max_chars < -1)
    {
      agents_sandbox_error_set (
        error, AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT, NULL,
        _ ("max_chars must be a non-zero positive integer or None"));
      return NULL;
    }

  root = g_strdup (agents_manifest_get_root (manifest));
  while (strlen (root) > 1 && g_str_has_suffix (root, "/"))
    root[strlen (root) - 1] = '\0';
  d.root = desc_node_new ();
  keys = agents_manifest_get_entry_paths (manifest);
  for (guint i = 0; keys[i] != NULL; i++)
    {
      AgentsManifestEntry *entry =
        agents_manifest_get_entry (manifest, keys[i]);
      g_autoptr (GPtrArray) parts = g_ptr_array_new_with_free_func (g_free);
      g_autofree char *full =
        AGENTS_IS_MOUNT (entry)
          ? describe_mount_path (root, keys[i], AGENTS_MOUNT (entry))
          : NULL;

      describe_add_parts (parts, keys[i]);
      describe_entry (&d, parts, entry, full);
    }
  describe_collect (d.root, "", depth, "", root, lines);
  desc_node_free (d.root);

  for (guint i = 0; i < lines->len; i++)
    width =
      MAX (width, g_utf8_strlen (((DescLine *) lines->pdata[i])->lead, -1));
  g_string_append (out, root);
  g_string_append_c (out, '\n');
  for (guint i = 0; i < lines->len; i++)
    {
      DescLine *line = lines->pdata[i];
      glong pad = width - g_utf8_strlen (line->lead, -1) + 2;

      g_string_append (out, line->lead);
      for (glong j = 0; j < pad; j++)
        g_string_append_c (out, ' ');
      g_string_append_printf (out, "# %s", line->full_path);
      if (line->description != NULL && *line->description != '\0')
        g_string_append_printf (out, " — %s", line->description);
      g_string_append_c (out, '\n');
    }
  return describe_truncate (g_string_free (g_steal_pointer (&out), FALSE),
                            max_chars);
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
  g_autofree char *tree = agents_sandbox_describe_manifest (
    manifest, FILESYSTEM_TREE_DEPTH, FILESYSTEM_TREE_MAX_CHARS, NULL);

  g_strstrip (tree);
  return g_strconcat (FILESYSTEM_HEADER, tree, NULL);
}

/**
 * agents_sandbox_filesystem_instructions:
 * @manifest: a manifest
 *
 * Describes the workspace of @manifest for the system prompt: a
 * `# Filesystem` section with the tree of
 * agents_sandbox_describe_manifest() three levels deep, cut at 5000
 * characters. Extra path grants are not shown. For an empty manifest
 * rooted at `/workspace` the section is
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

/**
 * agents_sandbox_filesystem_instructions_with_cwd:
 * @manifest: a manifest
 * @workspace_cwd: (nullable): the run's working directory, relative to
 *   the workspace root (#AgentsSandboxRunConfig:workspace-cwd), or %NULL
 * @error: return location for a #GError
 *
 * The `# Filesystem` section of agents_sandbox_filesystem_instructions()
 * for a run whose working directory is @workspace_cwd: the section, a
 * blank line, and a paragraph that names the directory (joined to the
 * manifest root as a POSIX path) and says what it changes. For
 * `tasks/a` in a workspace rooted at `/workspace`, the paragraph reads
 *
 * |[
 * For this run, the working directory is `/workspace/tasks/a`. Relative
 * paths passed to the built-in `exec_command`, `view_image`, and
 * `apply_patch` tools resolve from this directory. Other sandbox tools
 * follow their own path contract. The session workspace root remains
 * `/workspace`. The working directory changes path resolution; it does
 * not isolate this run from the rest of the session workspace. Files
 * outside the working directory may be visible to or shared with other
 * runs.
 * ]|
 *
 * (on one line). With a %NULL @workspace_cwd this is
 * agents_sandbox_filesystem_instructions().
 *
 * Returns: (transfer full) (nullable): the section, without a trailing
 *   newline, or %NULL with @error set
 *   (%AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT) when @workspace_cwd is not
 *   a valid workspace-relative path or the manifest root is not POSIX
 *   absolute
 */
char *
agents_sandbox_filesystem_instructions_with_cwd (AgentsManifest *manifest,
                                                 const char *workspace_cwd,
                                                 GError **error)
{
  g_autofree char *section = NULL;
  g_autofree char *cwd = NULL;
  g_autofree char *directory = NULL;
  const char *root;

  g_return_val_if_fail (AGENTS_IS_MANIFEST (manifest), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  section = agents_sandbox_filesystem_instructions (manifest);
  if (workspace_cwd == NULL)
    return g_steal_pointer (&section);
  root = agents_manifest_get_root (manifest);
  if ((cwd = agents_workspace_scope_normalize_cwd (workspace_cwd, error)) ==
        NULL ||
      (directory = agents_workspace_scope_resource_path (root, cwd, error)) ==
        NULL)
    return NULL;
  return g_strdup_printf ("%s\n\n" WORKING_DIRECTORY_PARAGRAPH, section,
                          directory, root);
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
