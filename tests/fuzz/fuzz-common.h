/* fuzz-common.h - what every libFuzzer harness of tests/fuzz/ shares
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

/* Warnings and criticals are bugs that a hostile input must not reach:
 * they abort (a signal libFuzzer catches, unlike G_DEBUG's breakpoint). */
static inline GLogWriterOutput
fuzz_log_writer (GLogLevelFlags level,
                 const GLogField *fields,
                 gsize n_fields,
                 gpointer user_data)
{
  g_log_writer_standard_streams (level, fields, n_fields, user_data);
  if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING))
    abort ();
  return G_LOG_WRITER_HANDLED;
}

/* Plugins are not scanned: the harnesses link what they test
 * statically. */
static inline void
fuzz_init (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done))
    {
      g_setenv ("AGENTS_DISABLE_PLUGINS", "1", TRUE);
      g_log_set_writer_func (fuzz_log_writer, NULL, NULL);
      g_once_init_leave (&done, 1);
    }
}

/* @data as a NUL-terminated string (for APIs that take one). */
static inline char *
fuzz_strndup (const guint8 *data, size_t size)
{
  return g_strndup ((const char *) data, size);
}
