/* agents-skill-frontmatter-private.h - the metadata block of SKILL.md
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The reference's _parse_frontmatter() (skills.py): the `key: value`
 * lines between a first line `---` and the next `---` line; blank lines,
 * `#` comments, lines without `:` and indented lines are skipped; a value
 * may continue on indented lines (joined with spaces), be a `|` literal or
 * `>` folded block, and loses one pair of matching quotes. Returns a table
 * of strings (empty when there is no frontmatter). @markdown is UTF-8. */
GHashTable *agents_skill_parse_frontmatter (const char *markdown);

G_END_DECLS
