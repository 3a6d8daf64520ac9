/* agents-mount-security.c - mount credentials kept out of saved state
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Two rules from the reference's mount security:
 *
 * - Inline credentials of an in-container mount reach a helper that a
 *   model-controlled sandbox can see, so trusted code must acknowledge
 *   each such mount path on the manifest object. The acknowledgement is
 *   runtime-only: never read from, nor written to, JSON.
 * - Saved session and run states carry no authority: the credentials are
 *   removed and the entry is marked; a resume takes them again from the
 *   trusted manifest (agents_manifest_rebind_mount_authority()).
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-manifest-private.h"
#include "agents-mount-security-private.h"
#include "agents-registry.h"
#include "agents-sandbox-error-private.h"

/* ---- acknowledgements ------------------------------------------------- */

static GQuark
acknowledged_quark (void)
{
  return g_quark_from_static_string ("agents-mount-credentials-acknowledged");
}

static GHashTable *
acknowledged_paths (AgentsManifest *manifest, gboolean create)
{
  GHashTable *paths =
    g_object_get_qdata (G_OBJECT (manifest), acknowledged_quark ());

  if (paths == NULL && create)
    {
      paths = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      g_object_set_qdata_full (G_OBJECT (manifest), acknowledged_quark (),
                               paths, (GDestroyNotify) g_hash_table_unref);
    }
  return paths;
}

/* "data", "./data/" and "data//" are one path; absolute paths stay
 * absolute. */
static char *
normalize_ack_path (const char *path)
{
  g_autofree char *canonical = g_canonicalize_filename (path, "/");

  if (g_path_is_absolute (path))
    return g_steal_pointer (&canonical);
  return g_strdup (canonical + 1);
}

/**
 * agents_manifest_acknowledge_mount_credential_exposure:
 * @self: a manifest
 * @paths: (array zero-terminated=1): mount paths, relative to the root
 *   (the entries' manifest paths) or absolute
 *
 * Acknowledges, from trusted code, that the inline credentials of the
 * mounts at @paths may be handed to a mount helper that a
 * model-controlled sandbox can observe. Without it, an in-container
 * mount that carries credentials is refused before anything is mounted.
 * Acknowledgements belong to this object and its copies; they never
 * come from, nor go to, JSON.
 */
void
agents_manifest_acknowledge_mount_credential_exposure (AgentsManifest *self,
                                                       const char *const *paths)
{
  GHashTable *set;

  g_return_if_fail (AGENTS_IS_MANIFEST (self));

  set = acknowledged_paths (self, TRUE);
  for (guint i = 0; paths != NULL && paths[i] != NULL; i++)
    g_hash_table_add (set, normalize_ack_path (paths[i]));
}

/**
 * agents_manifest_is_mount_credential_exposure_acknowledged:
 * @self: a manifest
 * @path: a mount path, relative to the root or absolute
 *
 * Tells whether agents_manifest_acknowledge_mount_credential_exposure()
 * was called on @self (or the manifest it was copied from) for @path.
 *
 * Returns: whether trusted code acknowledged credential exposure for
 *   @path, given either way (relative to @self's root, or absolute)
 */
gboolean
agents_manifest_is_mount_credential_exposure_acknowledged (AgentsManifest *self,
                                                           const char *path)
{
  GHashTable *set;
  g_autofree char *normalized = NULL;
  g_autofree char *root = NULL;
  g_autofree char *other = NULL;

  g_return_val_if_fail (AGENTS_IS_MANIFEST (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  set = acknowledged_paths (self, FALSE);
  if (set == NULL)
    return FALSE;
  normalized = normalize_ack_path (path);
  if (g_hash_table_contains (set, normalized))
    return TRUE;

  /* The other form of the same path. */
  root = g_canonicalize_filename (agents_manifest_get_root (self), "/");
  if (g_path_is_absolute (normalized))
    {
      gsize len = strlen (root);

      if (g_str_equal (root, "/"))
        other = g_strdup (normalized + 1);
      else if (g_str_has_prefix (normalized, root) && normalized[len] == '/')
        other = g_strdup (normalized + len + 1);
    }
  else
    other = g_build_filename (root, normalized, NULL);
  return other != NULL && g_hash_table_contains (set, other);
}

/* Called by agents_manifest_copy(): the copy is as trusted as @self. */
void
agents_manifest_copy_mount_acknowledgements (AgentsManifest *self,
                                             AgentsManifest *copy)
{
  GHashTable *set = acknowledged_paths (self, FALSE);
  GHashTableIter iter;
  gpointer path;

  if (set == NULL)
    return;
  g_hash_table_iter_init (&iter, set);
  while (g_hash_table_iter_next (&iter, &path, NULL))
    g_hash_table_add (acknowledged_paths (copy, TRUE), g_strdup (path));
}

/* ---- authority members ------------------------------------------------ */

static GQuark
authority_quark (void)
{
  return g_quark_from_static_string ("agents-mount-authority-members");
}

void
agents_mount_type_set_authority_members (GType type, const char *const *members)
{
  g_type_set_qdata (type, authority_quark (), (gpointer) members);
}

const char *const *
agents_mount_type_get_authority_members (GType type)
{
  return g_type_get_qdata (type, authority_quark ());
}

static const char *const *
members_of_entry (JsonObject *object)
{
  const char *type_name =
    json_object_get_string_member_with_default (object, "type", NULL);
  GType type;

  if (type_name == NULL)
    return NULL;
  type =
    agents_registry_lookup (AGENTS_REGISTRY_KIND_ENTRY_TYPE, type_name, NULL);
  if (type == G_TYPE_INVALID)
    return NULL;
  return agents_mount_type_get_authority_members (type);
}

static void strip_entries (JsonObject *entries);

static void
strip_entry (JsonObject *object)
{
  const char *const *members = members_of_entry (object);
  gboolean stripped = FALSE;
  JsonNode *children;

  for (guint i = 0; members != NULL && members[i] != NULL; i++)
    {
      JsonNode *member = json_object_get_member (object, members[i]);

      if (member != NULL && !JSON_NODE_HOLDS_NULL (member))
        {
          json_object_set_null_member (object, members[i]);
          stripped = TRUE;
        }
    }
  if (stripped)
    json_object_set_boolean_member (
      object, AGENTS_MOUNT_REDACTED_AUTHORITY_MEMBER, TRUE);

  children = json_object_get_member (object, "children");
  if (children != NULL && JSON_NODE_HOLDS_OBJECT (children))
    strip_entries (json_node_get_object (children));
}

static void
strip_entries (JsonObject *entries)
{
  JsonObjectIter iter;
  JsonNode *node;

  json_object_iter_init (&iter, entries);
  while (json_object_iter_next (&iter, NULL, &node))
    if (JSON_NODE_HOLDS_OBJECT (node))
      strip_entry (json_node_get_object (node));
}

void
agents_manifest_json_strip_mount_authority (JsonNode *manifest_json)
{
  JsonNode *entries;

  if (manifest_json == NULL || !JSON_NODE_HOLDS_OBJECT (manifest_json))
    return;
  entries =
    json_object_get_member (json_node_get_object (manifest_json), "entries");
  if (entries != NULL && JSON_NODE_HOLDS_OBJECT (entries))
    strip_entries (json_node_get_object (entries));
}

/* ---- rebinding -------------------------------------------------------- */

static gboolean
is_redacted (JsonObject *object)
{
  return json_object_get_boolean_member_with_default (
    object, AGENTS_MOUNT_REDACTED_AUTHORITY_MEMBER, FALSE);
}

/* The entry at @path of @manifest with @trusted's authority members,
 * or NULL when @trusted has no such mount at @path. */
static AgentsManifestEntry *
rebound_entry (AgentsManifestEntry *entry,
               AgentsManifestEntry *trusted,
               GError **error)
{
  g_autoptr (JsonNode) node = agents_manifest_entry_to_json (entry);
  g_autoptr (JsonNode) trusted_node = agents_manifest_entry_to_json (trusted);
  JsonObject *object = json_node_get_object (node);
  JsonObject *trusted_object = json_node_get_object (trusted_node);
  const char *const *members = members_of_entry (object);

  for (guint i = 0; members != NULL && members[i] != NULL; i++)
    {
      JsonNode *value = json_object_get_member (trusted_object, members[i]);

      if (value != NULL)
        json_object_set_member (object, members[i], json_node_copy (value));
    }
  json_object_remove_member (object, AGENTS_MOUNT_REDACTED_AUTHORITY_MEMBER);
  return agents_manifest_entry_new_from_json (node, error);
}

/**
 * agents_manifest_rebind_mount_authority:
 * @self: a manifest read back from a saved state
 * @trusted: (nullable): the trusted manifest the state was made from
 * @error: return location for a #GError
 *
 * Gives the mount entries of @self whose credentials were removed when
 * the state was saved the credentials of the same-typed mount at the
 * same path of @trusted. Entries @trusted has no match for stay
 * redacted: mounting them fails with %AGENTS_SANDBOX_ERROR_MOUNT_CONFIG.
 *
 * Returns: %FALSE if a rebound entry is invalid
 */
gboolean
agents_manifest_rebind_mount_authority (AgentsManifest *self,
                                        AgentsManifest *trusted,
                                        GError **error)
{
  g_auto (GStrv) paths = NULL;

  g_return_val_if_fail (AGENTS_IS_MANIFEST (self), FALSE);
  g_return_val_if_fail (trusted == NULL || AGENTS_IS_MANIFEST (trusted), FALSE);

  if (trusted == NULL)
    return TRUE;
  paths = agents_manifest_get_entry_paths (self);
  for (guint i = 0; paths[i] != NULL; i++)
    {
      AgentsManifestEntry *entry = agents_manifest_get_entry (self, paths[i]);
      AgentsManifestEntry *match =
        agents_manifest_get_entry (trusted, paths[i]);
      g_autoptr (JsonNode) node = NULL;
      g_autoptr (AgentsManifestEntry) rebound = NULL;

      if (match == NULL || G_OBJECT_TYPE (match) != G_OBJECT_TYPE (entry))
        continue;
      node = agents_manifest_entry_to_json (entry);
      if (!is_redacted (json_node_get_object (node)))
        continue;
      rebound = rebound_entry (entry, match, error);
      if (rebound == NULL)
        return FALSE;
      agents_manifest_set_entry (self, paths[i], rebound);
    }
  agents_manifest_copy_mount_acknowledgements (trusted, self);
  return TRUE;
}

/* ---- the credential boundary ------------------------------------------ */

static gboolean
carries_authority (JsonObject *object)
{
  const char *const *members = members_of_entry (object);

  for (guint i = 0; members != NULL && members[i] != NULL; i++)
    {
      JsonNode *member = json_object_get_member (object, members[i]);

      if (member != NULL && !JSON_NODE_HOLDS_NULL (member))
        return TRUE;
    }
  return FALSE;
}

/* Whether the helper of @object runs where the sandbox's commands can see
 * it: an in-container strategy, the only one the project's mounts know
 * of that hands the keys to a helper (a strategy the library does not
 * know is not assumed safe). */
static gboolean
exposes_to_sandbox (JsonObject *object)
{
  JsonNode *strategy = json_object_get_member (object, "mount_strategy");
  const char *type;

  if (strategy == NULL || !JSON_NODE_HOLDS_OBJECT (strategy))
    return TRUE;
  type = json_object_get_string_member_with_default (
    json_node_get_object (strategy), "type", NULL);
  return g_strcmp0 (type, "docker_volume") != 0;
}

static gboolean check_entries (AgentsManifest *manifest,
                               JsonObject *entries,
                               const char *parent,
                               GError **error);

static gboolean
check_entry (AgentsManifest *manifest,
             JsonObject *object,
             const char *path,
             GError **error)
{
  JsonNode *children = json_object_get_member (object, "children");
  const char *mount_path =
    json_object_get_string_member_with_default (object, "mount_path", NULL);
  const char *where = mount_path != NULL ? mount_path : path;

  if (carries_authority (object) && exposes_to_sandbox (object) &&
      !agents_manifest_is_mount_credential_exposure_acknowledged (manifest,
                                                                  where))
    {
      agents_sandbox_error_set (
        error, AGENTS_SANDBOX_ERROR_MOUNT_CONFIG,
        g_variant_new_parsed ("{'path': <%s>}", where), "%s",
        _ ("mount-scoped credentials cannot be exposed to a helper inside a "
           "model-controlled sandbox by default; use a credentialless or "
           "external/provider-native strategy, or explicitly acknowledge "
           "exposure for this exact path with "
           "Manifest.with_in_container_mount_credential_exposure_"
           "acknowledged()"));
      return FALSE;
    }
  if (children != NULL && JSON_NODE_HOLDS_OBJECT (children))
    return check_entries (manifest, json_node_get_object (children), path,
                          error);
  return TRUE;
}

static gboolean
check_entries (AgentsManifest *manifest,
               JsonObject *entries,
               const char *parent,
               GError **error)
{
  JsonObjectIter iter;
  const char *name;
  JsonNode *node;

  json_object_iter_init (&iter, entries);
  while (json_object_iter_next (&iter, &name, &node))
    {
      g_autofree char *path =
        parent ? g_build_path ("/", parent, name, NULL) : g_strdup (name);

      if (JSON_NODE_HOLDS_OBJECT (node) &&
          !check_entry (manifest, json_node_get_object (node), path, error))
        return FALSE;
    }
  return TRUE;
}

/* The reference's credential boundary: a mount entry that carries
 * credentials (the members its type declared with
 * agents_mount_type_set_authority_members()) for a helper the sandbox
 * can observe needs trusted code's acknowledgement of its exact path.
 * The error (context `path`) never holds a credential. */
gboolean
agents_manifest_check_mount_credential_boundary (AgentsManifest *self,
                                                 GError **error)
{
  g_autoptr (JsonNode) json = NULL;
  JsonNode *entries;

  g_return_val_if_fail (AGENTS_IS_MANIFEST (self), FALSE);

  json = agents_manifest_to_json (self);
  entries = json_object_get_member (json_node_get_object (json), "entries");
  if (entries == NULL || !JSON_NODE_HOLDS_OBJECT (entries))
    return TRUE;
  return check_entries (self, json_node_get_object (entries), NULL, error);
}

/* ---- redaction -------------------------------------------------------- */

static gboolean
entries_carry_authority (JsonObject *entries)
{
  JsonObjectIter iter;
  JsonNode *node;

  json_object_iter_init (&iter, entries);
  while (json_object_iter_next (&iter, NULL, &node))
    {
      JsonObject *object;
      JsonNode *children;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      object = json_node_get_object (node);
      if (carries_authority (object))
        return TRUE;
      children = json_object_get_member (object, "children");
      if (children != NULL && JSON_NODE_HOLDS_OBJECT (children) &&
          entries_carry_authority (json_node_get_object (children)))
        return TRUE;
    }
  return FALSE;
}

gboolean
agents_manifest_has_mount_authority (AgentsManifest *self)
{
  g_autoptr (JsonNode) json = NULL;
  JsonNode *entries;

  g_return_val_if_fail (AGENTS_IS_MANIFEST (self), FALSE);

  json = agents_manifest_to_json (self);
  entries = json_object_get_member (json_node_get_object (json), "entries");
  return entries != NULL && JSON_NODE_HOLDS_OBJECT (entries) &&
         entries_carry_authority (json_node_get_object (entries));
}

GError *
agents_mount_error_redact (GError *error)
{
  GError *safe;

  /* The library's own mount configuration errors name paths, never
   * credentials. */
  if (error == NULL || (error->domain == AGENTS_SANDBOX_ERROR &&
                        error->code == AGENTS_SANDBOX_ERROR_MOUNT_CONFIG))
    return error;
  safe = g_error_new_literal (error->domain, error->code,
                              _ ("sandbox operation failed while using a "
                                 "protected mount configuration"));
  g_error_free (error);
  return safe;
}
