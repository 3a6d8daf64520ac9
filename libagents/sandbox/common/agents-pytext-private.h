/* agents-pytext-private.h - Python's str line and whitespace rules
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The reference's tools split and trim text with Python's str methods;
 * wire-compatible ports must split and trim exactly where Python does.
 * All functions take valid UTF-8.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* str.isspace() for one character. */
gboolean agents_py_isspace (gunichar c);

/* str.splitlines(): lines without their ends, split at \n, \r, \r\n, \v,
 * \f, \x1c, \x1d, \x1e, \x85, U+2028 and U+2029; no empty last line for
 * a final line end; "" gives no line. A GPtrArray of strings. */
GPtrArray *agents_py_splitlines (const char *text);

/* str.strip(), str.rstrip(), and the length of str.lstrip()'s cut. */
char *agents_py_strip (const char *text);
char *agents_py_rstrip (const char *text);
const char *agents_py_lstrip_start (const char *text);

G_END_DECLS
