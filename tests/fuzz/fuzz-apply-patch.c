/* fuzz-apply-patch.c - libFuzzer harness: the apply_patch tool's input
 * (a `*** Begin Patch` envelope or its JSON form) parsed, then each
 * operation's V4A diff applied
 *
 * The input is an original file, a NUL byte, then the patch (without a
 * NUL, the original file is empty): update operations apply to the
 * original file, create operations in create mode, as the tool does.
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "agents-apply-diff-private.h"
#include "agents-apply-patch-parse-private.h"

#include "fuzz-common.h"

/* ASan's strstr() measures the whole haystack at every call, which makes
 * GLib's g_strsplit() quadratic under it alone; the library splits long
 * hostile text, so that check would only report timeouts of its own. */
const char *__asan_default_options (void);

const char *
__asan_default_options (void)
{
  return "intercept_strstr=0";
}

static void
apply_operation (const char *original, AgentsApplyPatchOperation *op)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *result = NULL;

  g_assert_nonnull (op->path);
  if (op->type == AGENTS_APPLY_PATCH_DELETE_FILE)
    return;
  g_assert_nonnull (op->diff);
  if (op->type == AGENTS_APPLY_PATCH_UPDATE_FILE)
    result =
      agents_apply_diff (original, op->diff, AGENTS_APPLY_DIFF_UPDATE, &error);
  else
    result = agents_apply_diff ("", op->diff, AGENTS_APPLY_DIFF_CREATE, &error);
  /* What the tool writes back must be text again. */
  g_assert_true ((result == NULL) != (error == NULL));
  g_assert_true (result == NULL || g_utf8_validate (result, -1, NULL));
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  const guint8 *nul = memchr (data, '\0', size);
  g_autofree char *original = NULL;
  g_autofree char *patch = NULL;
  g_autoptr (GPtrArray) operations = NULL;
  g_autoptr (GError) error = NULL;

  fuzz_init ();
  original = nul ? fuzz_strndup (data, nul - data) : g_strdup ("");
  patch = nul ? fuzz_strndup (nul + 1, size - (nul - data) - 1)
              : fuzz_strndup (data, size);
  /* The tool reads both as text: the model's input comes out of JSON, a
   * file that is not UTF-8 is refused before it is patched. */
  if (!g_utf8_validate (original, -1, NULL) ||
      !g_utf8_validate (patch, -1, NULL))
    return 0;
  operations = agents_apply_patch_parse (patch, &error);
  if (operations == NULL)
    {
      g_assert_nonnull (error);
      return 0;
    }
  g_assert_no_error (error);
  for (guint i = 0; i < operations->len; i++)
    apply_operation (original, operations->pdata[i]);
  return 0;
}
