/* agents-filesystem-tools-private.h - apply_patch and view_image
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "agents-capability.h"
#include "run/agents-tool.h"

G_BEGIN_DECLS

/* The largest image view_image reads: 10 MiB. */
#define AGENTS_VIEW_IMAGE_MAX_BYTES (10 * 1024 * 1024)

/* The reference's `view_image` function tool over @capability's bound
 * session (read as its run-as user): the image as an `input_image` part
 * with a data URL; a missing, unreadable, too large or unknown file is
 * told to the model as text. */
AgentsTool *agents_view_image_tool_new (AgentsCapability *capability);

/* view_image's `path` argument (a non-empty string, as the model gave
 * it), or %NULL with an error the model reads. */
char *agents_view_image_parse_path (const char *arguments, GError **error);

/* The reference's `apply_patch` custom tool (lark grammar format) over
 * @capability's bound session: parses the patch (envelope or JSON
 * operations), checks every path before changing anything, applies the
 * operations in order and answers `Created p` / `Updated p` /
 * `Moved p to q` / `Deleted p` lines; errors reach the model as text. */
AgentsTool *agents_apply_patch_tool_new (AgentsCapability *capability);

/* The MIME type of an image from its first bytes (the SVG test also uses
 * @path's suffix), or NULL when it is no supported image. */
const char *
agents_sniff_image_type (const guchar *data, gsize size, const char *path);

G_END_DECLS
