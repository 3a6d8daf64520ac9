/* agents-s3-mount-private.h - helpers shared by the s3mount sources
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-json-private.h"

#include "agents-s3-mount.h"

G_BEGIN_DECLS

/* The JSON helpers (agents_json_typed_dup_string() and the others) are
 * those of agents-json-private.h. */

/* AGENTS_SANDBOX_ERROR_MOUNT_CONFIG about @member of @owner. The message
 * never contains the member's value: it may be a secret. */
void s3mount_set_config_error (GError **error,
                               const char *owner,
                               const char *member,
                               const char *message);

/* Printable UTF-8 without control characters. */
gboolean s3mount_text_is_safe (const char *text);
/* An absolute path without control characters. */
gboolean s3mount_path_is_safe (const char *path);

/* Reads a pattern from JSON, checking the JSON types of its members but
 * not their values (see agents_mount_pattern_validate()). */
AgentsMountPattern *s3mount_pattern_parse (JsonNode *node, GError **error);

/* Registers the built-in patterns and strategies in their typed-JSON
 * families (once; the module does it when loaded, the parsers first). */
void s3mount_register_types (void);

/* The `type` of a pattern or strategy document (@owner: "mount
 * pattern"), NULL when missing: checked as the reference does. */
gboolean s3mount_typed_read_type_name (const char *owner,
                                       JsonNode *node,
                                       char **type_name,
                                       GError **error);

typedef gboolean (*S3mountValidateFunc) (gpointer self, GError **error);

/* Reads an instance of @family (a pattern or strategy) from untrusted
 * JSON, then judges its values with @validate. */
gpointer s3mount_typed_new_valid (GType family,
                                  JsonNode *node,
                                  S3mountValidateFunc validate,
                                  GError **error);

/* The pattern (transfer full) whose tool mounts with @strategy. */
AgentsMountPattern *
s3mount_strategy_dup_pattern (AgentsMountStrategy *strategy);

/* Replaces *@field by a copy of @value; TRUE if it changed. */
gboolean s3mount_set_str (char **field, const char *value);

/* Adds NAME=value to @envp when @value is set. */
char **s3mount_environ_add (char **envp, const char *name, const char *value);

G_END_DECLS
