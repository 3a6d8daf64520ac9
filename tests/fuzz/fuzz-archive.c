/* fuzz-archive.c - libFuzzer harness: the validation of tar and zip
 * members. The first byte picks the path: the foundation's extractor
 * (agents_archive_extract_to_directory(), into a scratch directory) for
 * a tar or a zip, or the docker backend's validating copy, which judges
 * members without a file system.
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <agents.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

#include "agents-docker-tar.h"
#include "fuzz-common.h"

static void
extract (GInputStream *in,
         AgentsCompressionScheme scheme,
         const AgentsArchiveLimits *limits)
{
  static char *scratch;
  g_autofree char *root = NULL;
  g_autoptr (GError) error = NULL;

  if (scratch == NULL)
    scratch = g_dir_make_tmp ("fuzz-archive-XXXXXX", NULL);
  g_assert_nonnull (scratch);
  root = g_build_filename (scratch, "root", NULL);
  g_assert_cmpint (g_mkdir (root, 0700), ==, 0);
  if (!agents_archive_extract_to_directory (in, root, scheme, limits, NULL,
                                            &error))
    g_assert_nonnull (error);
  /* Nothing may have landed beside the root. */
  g_assert_true (agents_fs_rm_rf (root, NULL));
  {
    g_autoptr (GDir) dir = g_dir_open (scratch, 0, NULL);

    g_assert_null (g_dir_read_name (dir));
  }
}

/* @keep_links: as a snapshot restore (links kept) or an extraction. */
static void
validate_copy (GInputStream *in,
               const AgentsArchiveLimits *limits,
               gboolean keep_links)
{
  g_autoptr (GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr (GError) error = NULL;

  if (!agents_docker_tar_validate_copy (in, limits, NULL, keep_links, out, NULL,
                                        &error))
    g_assert_nonnull (error);
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  g_autoptr (AgentsArchiveLimits) limits = NULL;
  g_autoptr (GInputStream) in = NULL;

  fuzz_init ();
  if (size < 1)
    return 0;
  /* Small limits: an input may not fill the disk. */
  limits = agents_archive_limits_new_full (1 << 20, 4 << 20, 256);
  in = g_memory_input_stream_new_from_data (data + 1, size - 1, NULL);
  switch (data[0] % 3)
    {
    case 0:
      extract (in, AGENTS_COMPRESSION_SCHEME_TAR, limits);
      break;
    case 1:
      extract (in, AGENTS_COMPRESSION_SCHEME_ZIP, limits);
      break;
    default:
      /* The high bit: a snapshot restore, which keeps links. */
      validate_copy (in, limits, (data[0] & 0x80) != 0);
      break;
    }
  return 0;
}
