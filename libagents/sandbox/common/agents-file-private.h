/* agents-file-private.h - opening the files that users name
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A path given by a user (an agent file, a scripted-turns file, a saved
 * run state) may name a FIFO, a device or a directory: opening a FIFO
 * for reading blocks until a writer comes, reading a device may never
 * end. Such files are opened without blocking and refused unless they
 * are regular files.
 */

#pragma once

#include <glib.h>
#include <sys/stat.h>

#include "agents-version-macros.h"

G_BEGIN_DECLS

/* Opens @path read-only with O_NONBLOCK | O_CLOEXEC | O_NOCTTY (and
 * O_NOFOLLOW with @nofollow), fstat()s it into *st (when @st is not NULL)
 * and refuses anything but a regular file with G_IO_ERROR_NOT_REGULAR_FILE
 * ("PATH: not a regular file"). The descriptor returned blocks again
 * (O_NONBLOCK guarded the open only). Returns -1 with @error set on
 * failure; errors are G_IO_ERROR ones whose message starts with @path.
 *
 * Exported (not public API) for the `agents` program. */
AGENTS_AVAILABLE_IN_1_0
int agents_file_open_regular (const char *path,
                              gboolean nofollow,
                              struct stat *st,
                              GError **error);

/* Reads the whole regular file @path (opened as above) into a
 * NUL-terminated buffer; a file larger than @max_size bytes is refused
 * with G_IO_ERROR_MESSAGE_TOO_LARGE before it is read. */
AGENTS_AVAILABLE_IN_1_0
gboolean agents_file_read_regular (const char *path,
                                   gsize max_size,
                                   char **contents,
                                   gsize *length,
                                   GError **error);

G_END_DECLS
