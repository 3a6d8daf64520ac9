/* agents-runtime-helper.c - small scripts installed inside a sandbox
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-runtime-helper.h"

/**
 * AgentsRuntimeHelper:
 *
 * A small script the generic session layer installs inside a sandbox and
 * runs there, such as `resolve_workspace_path`, which resolves a path the
 * way the sandbox sees it. The install command is idempotent: it leaves an
 * identical executable alone and replaces a missing or altered one, so a
 * helper tampered with by sandboxed code is repaired before it is trusted
 * again.
 */

struct _AgentsRuntimeHelper
{
  GObject parent_instance;

  char *name;
  char *content;
  char *install_path;
};

G_DEFINE_FINAL_TYPE (AgentsRuntimeHelper, agents_runtime_helper, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_NAME,
  PROP_CONTENT,
  PROP_INSTALL_PATH,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* Installs "$2" with content "$3" unless an identical executable is there.
 * The values are positional parameters, never spliced into the script. */
static const char install_script[] = "set -eu\n"
                                     "path=$1\n"
                                     "dir=$(dirname \"$path\")\n"
                                     "mkdir -p \"$dir\"\n"
                                     "tmp=\"$path.tmp.$$\"\n"
                                     "printf '%s\\n' \"$2\" > \"$tmp\"\n"
                                     "if [ -x \"$path\" ] && [ ! -L \"$path\" "
                                     "] && cmp -s \"$tmp\" \"$path\"; then\n"
                                     "  rm -f \"$tmp\"\n"
                                     "else\n"
                                     "  chmod 755 \"$tmp\"\n"
                                     "  mv -f \"$tmp\" \"$path\"\n"
                                     "fi\n";

/* resolve_workspace_path ROOT PATH FOR_WRITE [GRANT MODE]...
 * Resolves PATH component by component as the sandbox sees it; prints
 * the result when it lies in ROOT or a grant (a writable one when
 * FOR_WRITE is 1); exits 111 when it escapes, 112 on symlink cycles or
 * chains deeper than 40. A cycle is caught when a link is met again with
 * the same rest of the path, before the 40 readlink forks a chain would
 * take (seconds on a loaded machine). */
static const char resolve_workspace_path_script[] =
  "#!/bin/sh\n"
  "root=$1; target=$2; for_write=${3:-0}; shift 3 || shift $#\n"
  "physical() { (cd \"$1\" 2>/dev/null && pwd -P) || printf '%s' \"$1\"; }\n"
  "root=$(physical \"$root\")\n"
  "depth=0; resolved=/; rest=$target\n"
  "while [ -n \"$rest\" ]; do\n"
  "  case $rest in /*) rest=${rest#/}; continue;; esac\n"
  "  comp=${rest%%/*}\n"
  "  if [ \"$comp\" = \"$rest\" ]; then rest=; else rest=${rest#*/}; fi\n"
  "  case $comp in\n"
  "    ''|.) continue;;\n"
  "    ..) resolved=$(dirname \"$resolved\"); continue;;\n"
  "  esac\n"
  "  next=${resolved%/}/$comp\n"
  "  if [ -L \"$next\" ]; then\n"
  "    depth=$((depth + 1))\n"
  "    state=\"$next//$rest\"\n"
  "    case $seen in *\"\n$state\n\"*) depth=41;; esac\n"
  "    seen=\"$seen\n$state\n\"\n"
  "    if [ \"$depth\" -gt 40 ]; then\n"
  "      echo \"symlink resolution depth exceeded: $target\" >&2; exit 112\n"
  "    fi\n"
  "    link=$(readlink \"$next\")\n"
  "    case $link in /*) resolved=/;; esac\n"
  "    if [ -n \"$rest\" ]; then rest=$link/$rest; else rest=$link; fi\n"
  "    continue\n"
  "  fi\n"
  "  resolved=$next\n"
  "done\n"
  "inside() { case $resolved in \"$1\"|\"$1\"/*) return 0;; esac; return 1; }\n"
  "if inside \"$root\"; then printf '%s\\n' \"$resolved\"; exit 0; fi\n"
  "while [ $# -ge 2 ]; do\n"
  "  grant=$(physical \"$1\"); mode=$2; shift 2\n"
  "  if inside \"$grant\"; then\n"
  "    if [ \"$for_write\" = 1 ] && [ \"$mode\" = ro ]; then break; fi\n"
  "    printf '%s\\n' \"$resolved\"; exit 0\n"
  "  fi\n"
  "done\n"
  "echo \"path escapes workspace root: $target\" >&2\n"
  "exit 111\n";

static void
agents_runtime_helper_finalize (GObject *object)
{
  AgentsRuntimeHelper *self = AGENTS_RUNTIME_HELPER (object);

  g_free (self->name);
  g_free (self->content);
  g_free (self->install_path);

  G_OBJECT_CLASS (agents_runtime_helper_parent_class)->finalize (object);
}

static void
agents_runtime_helper_get_property (GObject *object,
                                    guint prop_id,
                                    GValue *value,
                                    GParamSpec *pspec)
{
  AgentsRuntimeHelper *self = AGENTS_RUNTIME_HELPER (object);

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_CONTENT:
      g_value_set_string (value, self->content);
      break;
    case PROP_INSTALL_PATH:
      g_value_set_string (value, self->install_path);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_runtime_helper_set_property (GObject *object,
                                    guint prop_id,
                                    const GValue *value,
                                    GParamSpec *pspec)
{
  AgentsRuntimeHelper *self = AGENTS_RUNTIME_HELPER (object);

  switch (prop_id)
    {
    case PROP_NAME:
      self->name = g_value_dup_string (value);
      break;
    case PROP_CONTENT:
      self->content = g_value_dup_string (value);
      break;
    case PROP_INSTALL_PATH:
      self->install_path = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_runtime_helper_class_init (AgentsRuntimeHelperClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = agents_runtime_helper_finalize;
  object_class->get_property = agents_runtime_helper_get_property;
  object_class->set_property = agents_runtime_helper_set_property;

  /**
   * AgentsRuntimeHelper:name:
   *
   * The helper's name, used in error contexts.
   */
  properties[PROP_NAME] = g_param_spec_string (
    "name", NULL, NULL, NULL,
    G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * AgentsRuntimeHelper:content:
   *
   * The script.
   */
  properties[PROP_CONTENT] = g_param_spec_string (
    "content", NULL, NULL, NULL,
    G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * AgentsRuntimeHelper:install-path:
   *
   * Where the script is installed inside the sandbox.
   */
  properties[PROP_INSTALL_PATH] = g_param_spec_string (
    "install-path", NULL, NULL, NULL,
    G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
agents_runtime_helper_init (AgentsRuntimeHelper *self)
{
}

/**
 * agents_runtime_helper_new:
 * @name: the helper's name
 * @content: the script
 * @install_path: where it is installed inside the sandbox (absolute)
 *
 * Creates a runtime helper.
 *
 * Returns: (transfer full): the helper
 */
AgentsRuntimeHelper *
agents_runtime_helper_new (const char *name,
                           const char *content,
                           const char *install_path)
{
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (content != NULL, NULL);
  g_return_val_if_fail (
    install_path != NULL && g_path_is_absolute (install_path), NULL);

  return g_object_new (AGENTS_TYPE_RUNTIME_HELPER, "name", name, "content",
                       content, "install-path", install_path, NULL);
}

/**
 * agents_runtime_helper_get_name:
 * @self: a helper
 *
 * Gets the name.
 *
 * Returns: the name
 */
const char *
agents_runtime_helper_get_name (AgentsRuntimeHelper *self)
{
  g_return_val_if_fail (AGENTS_IS_RUNTIME_HELPER (self), NULL);
  return self->name;
}

/**
 * agents_runtime_helper_get_content:
 * @self: a helper
 *
 * Gets the script.
 *
 * Returns: the script
 */
const char *
agents_runtime_helper_get_content (AgentsRuntimeHelper *self)
{
  g_return_val_if_fail (AGENTS_IS_RUNTIME_HELPER (self), NULL);
  return self->content;
}

/**
 * agents_runtime_helper_get_install_path:
 * @self: a helper
 *
 * Gets where the helper is installed.
 *
 * Returns: where the helper is installed
 */
const char *
agents_runtime_helper_get_install_path (AgentsRuntimeHelper *self)
{
  g_return_val_if_fail (AGENTS_IS_RUNTIME_HELPER (self), NULL);
  return self->install_path;
}

/**
 * agents_runtime_helper_install_command:
 * @self: a helper
 *
 * Builds the command that installs the helper: `sh -c SCRIPT sh PATH
 * CONTENT`. The path and content are passed as positional parameters, so
 * nothing in them is interpreted by the shell.
 *
 * Returns: (transfer full) (array zero-terminated=1): the argv
 */
char **
agents_runtime_helper_install_command (AgentsRuntimeHelper *self)
{
  GStrvBuilder *builder;
  char **argv;

  g_return_val_if_fail (AGENTS_IS_RUNTIME_HELPER (self), NULL);

  builder = g_strv_builder_new ();
  g_strv_builder_add_many (builder, "sh", "-c", install_script, "sh",
                           self->install_path, self->content, NULL);
  argv = g_strv_builder_end (builder);
  g_strv_builder_unref (builder);
  return argv;
}

/**
 * agents_runtime_helper_get_resolve_workspace_path:
 *
 * Gets the `resolve_workspace_path` helper the generic path check runs
 * inside the sandbox.
 *
 * Returns: (transfer none): the helper
 */
AgentsRuntimeHelper *
agents_runtime_helper_get_resolve_workspace_path (void)
{
  static gsize helper = 0;

  if (g_once_init_enter (&helper))
    {
      AgentsRuntimeHelper *h = agents_runtime_helper_new (
        "resolve_workspace_path", resolve_workspace_path_script,
        "/tmp/.agents-1.0/bin/resolve_workspace_path");
      g_once_init_leave (&helper, (gsize) h);
    }
  return (AgentsRuntimeHelper *) helper;
}
