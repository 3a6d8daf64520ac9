/* test-apply-patch.c - the pure parts of the shell and filesystem tools:
 * Python line rules, token truncation, the V4A diff, apply_patch input
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Cases from the reference (wave2-reference.md §1.5, §2.1, §2.2, and the
 * reference's tests/test_apply_diff.py), each rule and error text.
 */

#include "config.h"

#include <string.h>

#include "agents-apply-diff-private.h"
#include "agents-apply-patch-parse-private.h"
#include "agents-pty-rules-private.h"
#include "agents-pytext-private.h"
#include "agents-shell-format-private.h"
#include "agents-skill-frontmatter-private.h"
#include "agents-token-truncation-private.h"
#include "test-utils.h"

/* ---- Python's line and whitespace rules -------------------------------- */

static void
assert_lines (const char *text, const char *const *expected)
{
  g_autoptr (GPtrArray) lines = agents_py_splitlines (text);

  g_assert_cmpuint (lines->len, ==, g_strv_length ((char **) expected));
  for (guint i = 0; i < lines->len; i++)
    g_assert_cmpstr (lines->pdata[i], ==, expected[i]);
}

static void
test_splitlines (void)
{
  assert_lines ("", (const char *[]){ NULL });
  assert_lines ("a", (const char *[]){ "a", NULL });
  assert_lines ("a\n", (const char *[]){ "a", NULL });
  assert_lines ("a\n\nb", (const char *[]){ "a", "", "b", NULL });
  assert_lines ("a\r\nb\rc\n", (const char *[]){ "a", "b", "c", NULL });
  assert_lines ("\r\r\n", (const char *[]){ "", "", NULL });
  assert_lines ("a\vb\fc\x1c"
                "d\x1d"
                "e\x1e"
                "f",
                (const char *[]){ "a", "b", "c", "d", "e", "f", NULL });
  assert_lines ("a\xc2\x85"
                "b\xe2\x80\xa8"
                "c\xe2\x80\xa9"
                "d",
                (const char *[]){ "a", "b", "c", "d", NULL });
  /* \x1f is white space but no line break. */
  assert_lines ("a\x1f"
                "b",
                (const char *[]){ "a\x1f"
                                  "b",
                                  NULL });
}

static void
test_strip (void)
{
  g_autofree char *strip = agents_py_strip (" \t\xc2\xa0x y\x1f\r\n");
  g_autofree char *rstrip = agents_py_rstrip ("  x \xe3\x80\x80");
  g_autofree char *empty = agents_py_strip (" \n ");

  g_assert_cmpstr (strip, ==, "x y");
  g_assert_cmpstr (rstrip, ==, "  x");
  g_assert_cmpstr (empty, ==, "");
  g_assert_cmpstr (agents_py_lstrip_start ("\v {"), ==, "{");
  g_assert_true (agents_py_isspace (0x2003));
  g_assert_false (agents_py_isspace (0x200b));
}

/* ---- Token truncation (§1.5) ------------------------------------------- */

static char *
hundred_lines (void)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < 100; i++)
    g_string_append_printf (text, "line %03u\n", i);
  return g_string_free (text, FALSE);
}

static char *
truncate_text (const char *text, guint64 max_tokens, gint64 *original)
{
  return agents_truncate_to_tokens (text, strlen (text), max_tokens, original);
}

static void
test_truncation_reference_example (void)
{
  g_autofree char *text = hundred_lines ();
  gint64 original = 0;
  g_autofree char *result = truncate_text (text, 20, &original);

  g_assert_cmpuint (strlen (text), ==, 900);
  g_assert_cmpstr (result, ==,
                   "Total output lines: 100\n\nline 000\nline "
                   "\u2026218 tokens truncated\u2026e 098\nline 099\n");
  g_assert_cmpint (original, ==, 225);
  g_assert_cmpuint (strlen (result), ==, 80);
}

static void
test_truncation_fits (void)
{
  gint64 original = 0;
  g_autofree char *short_text = truncate_text ("short", 10, &original);
  g_autofree char *exact = NULL;

  g_assert_cmpstr (short_text, ==, "short");
  g_assert_cmpint (original, ==, -1);
  /* Exactly the budget is not truncated. */
  exact = truncate_text ("abcdefgh", 2, &original);
  g_assert_cmpstr (exact, ==, "abcdefgh");
  g_assert_cmpint (original, ==, -1);
  g_assert_cmpuint (agents_approx_token_count (5), ==, 2);
  g_assert_cmpuint (agents_approx_token_count (0), ==, 0);
}

/* Prefix and marker do not both fit: the prefix goes. */
static void
test_truncation_drops_prefix (void)
{
  g_autofree char *text = hundred_lines ();
  gint64 original = 0;
  g_autofree char *result = truncate_text (text, 10, &original);

  g_assert_cmpstr (result, ==,
                   "line 00\u2026222 tokens truncated\u2026ne 099\n");
  g_assert_cmpuint (strlen (result), ==, 40);
  g_assert_cmpint (original, ==, 225);
}

/* With the prefix, "…7 tokens truncated…" leaves no content, so 13
 * tokens are cut, the marker grows a digit and the prefix no longer fits;
 * without it, 7 tokens are cut again. The prefix stays dropped and the
 * count is the one of what was cut (it used to alternate and end on 13). */
static void
test_truncation_prefix_count_settles (void)
{
  g_autofree char *text = g_strnfill (50, 'x');
  gint64 original = 0;
  g_autofree char *result = NULL;

  for (guint i = 1; i < 50; i += 2)
    text[i] = '\n';
  result = truncate_text (text, 12, &original);
  g_assert_cmpstr (result, ==,
                   "x\nx\nx\nx\nx\nx\n\u20267 tokens truncated\u2026"
                   "x\nx\nx\nx\nx\nx\n");
  g_assert_cmpuint (strlen (result), ==, 48);
  g_assert_cmpint (original, ==, 13);
}

/* Not even the marker fits: the marker, cut to the budget. */
static void
test_truncation_marker_only (void)
{
  gint64 original = 0;
  g_autofree char *result = truncate_text ("abcdefghi", 1, &original);

  g_assert_cmpstr (result, ==, "\u20262");
  g_assert_cmpint (original, ==, 3);
}

/* Head and tail keep whole UTF-8 characters; invalid bytes are
 * replaced first. */
static void
test_truncation_utf8 (void)
{
  GString *text = g_string_new (NULL);
  g_autofree char *joined = NULL;
  g_autofree char *result = NULL;
  g_autofree char *invalid = NULL;
  gint64 original = 0;

  for (guint i = 0; i < 40; i++)
    g_string_append (text, "\xc3\xa9"); /* é, 2 bytes */
  joined = g_string_free (text, FALSE);
  result = truncate_text (joined, 13, &original);
  g_assert_true (g_utf8_validate (result, -1, NULL));
  g_assert_cmpuint (strlen (result), <=, 52);
  g_assert_cmpint (original, ==, 20);
  /* 52 - 23 ("Total output lines: 1\n\n") - 25 (marker) = 4 bytes: é é. */
  g_assert_cmpstr (result, ==,
                   "Total output lines: 1\n\n\xc3\xa9\u202619 tokens "
                   "truncated\u2026\xc3\xa9");

  invalid = agents_truncate_to_tokens ("ab\xff", 3, 10, &original);
  g_assert_cmpstr (invalid, ==, "ab\xef\xbf\xbd");
}

/* ---- exec_command output (§1.2) ---------------------------------------- */

static void
test_shell_format_reference_example (void)
{
  g_autofree char *output =
    agents_shell_join_output ("stdout: pwd", 11, "stderr: pwd", 11);
  g_autofree char *text =
    agents_shell_format_response ("123456", 0.25, 7, -1, -1, output);

  g_assert_cmpstr (text, ==,
                   "Chunk ID: 123456\nWall time: 0.2500 seconds\n"
                   "Process exited with code 7\nOutput:\nstdout: pwd\n"
                   "stderr: pwd");
}

static void
test_shell_format_running_truncated (void)
{
  g_autofree char *text =
    agents_shell_format_response ("abcdef", 10.00006, -1, 4242, 225, "x\n");
  g_autofree char *id = agents_shell_new_chunk_id ();
  g_autofree char *timeout = agents_shell_timeout_message (2.5);

  g_assert_cmpstr (text, ==,
                   "Chunk ID: abcdef\nWall time: 10.0001 seconds\n"
                   "Process running with session ID 4242\n"
                   "Original token count: 225\nOutput:\nx\n");
  g_assert_cmpuint (strlen (id), ==, 6);
  g_assert_cmpuint (strspn (id, "0123456789abcdef"), ==, 6);
  g_assert_cmpstr (timeout, ==, "Command timed out after 2.500 seconds.");
}

static void
test_shell_join_output (void)
{
  g_autofree char *newline = agents_shell_join_output ("a\n", 2, "b", 1);
  g_autofree char *only_err = agents_shell_join_output ("", 0, "e", 1);
  g_autofree char *only_out = agents_shell_join_output ("o\n", 2, NULL, 0);
  g_autofree char *invalid = agents_shell_join_output ("\xff", 1, "", 0);

  g_assert_cmpstr (newline, ==, "a\nb");
  g_assert_cmpstr (only_err, ==, "e");
  g_assert_cmpstr (only_out, ==, "o\n");
  g_assert_cmpstr (invalid, ==, "\xef\xbf\xbd");
}

/* ---- PTY process table rules (§1.4) ------------------------------------ */

static void
test_pty_yield_times (void)
{
  g_assert_cmpuint (agents_pty_clamp_yield_time_ms (0), ==, 250);
  g_assert_cmpuint (agents_pty_clamp_yield_time_ms (-5), ==, 250);
  g_assert_cmpuint (agents_pty_clamp_yield_time_ms (1200), ==, 1200);
  g_assert_cmpuint (agents_pty_clamp_yield_time_ms (90000), ==, 30000);
  g_assert_cmpuint (agents_pty_write_yield_time_ms (250, TRUE), ==, 5000);
  g_assert_cmpuint (agents_pty_write_yield_time_ms (250, FALSE), ==, 250);
  g_assert_cmpuint (agents_pty_write_yield_time_ms (90000, TRUE), ==, 30000);
}

static void
test_pty_process_ids (void)
{
  g_autoptr (GHashTable) used = g_hash_table_new (NULL, NULL);

  /* Every id but one taken: the free one comes back. */
  for (guint id = 1000; id < 100000; id++)
    if (id != 4242)
      g_hash_table_add (used, GUINT_TO_POINTER (id));
  g_assert_cmpuint (agents_pty_allocate_process_id (used), ==, 4242);
  for (guint i = 0; i < 100; i++)
    {
      guint id = agents_pty_allocate_process_id (NULL);

      g_assert_cmpuint (id, >=, 1000);
      g_assert_cmpuint (id, <, 100000);
    }
}

static void
test_pty_prune (void)
{
  AgentsPtyProcessMeta meta[12];

  g_assert_cmpuint (agents_pty_process_to_prune (NULL, 0), ==, 0);
  /* 12 processes, used at 100..111 (id 1000 + i used at 100 + i). */
  for (guint i = 0; i < G_N_ELEMENTS (meta); i++)
    meta[i] = (AgentsPtyProcessMeta){ 1000 + i, 100 + i, FALSE };
  /* None exited: the least recently used. */
  g_assert_cmpuint (agents_pty_process_to_prune (meta, 12), ==, 1000);
  /* An exited one outside the 8 most recent goes first. */
  meta[2].exited = TRUE;
  g_assert_cmpuint (agents_pty_process_to_prune (meta, 12), ==, 1002);
  /* One among the 8 most recent is protected even if exited. */
  meta[2].exited = FALSE;
  meta[11].exited = TRUE;
  g_assert_cmpuint (agents_pty_process_to_prune (meta, 12), ==, 1000);
  /* Using a process protects it. */
  meta[0].last_used = 500;
  g_assert_cmpuint (agents_pty_process_to_prune (meta, 12), ==, 1001);
  /* Eight or fewer: all protected. */
  g_assert_cmpuint (agents_pty_process_to_prune (meta, 8), ==, 0);
  /* Ties keep their order. */
  for (guint i = 0; i < G_N_ELEMENTS (meta); i++)
    meta[i] = (AgentsPtyProcessMeta){ 2000 + i, 7, FALSE };
  g_assert_cmpuint (agents_pty_process_to_prune (meta, 12), ==, 2008);
}

/* ---- SKILL.md frontmatter (§3.2) --------------------------------------- */

static void
assert_frontmatter (const char *markdown, const char *const *pairs)
{
  g_autoptr (GHashTable) metadata = agents_skill_parse_frontmatter (markdown);
  guint n = 0;

  for (; pairs[n] != NULL; n += 2)
    g_assert_cmpstr (g_hash_table_lookup (metadata, pairs[n]), ==,
                     pairs[n + 1]);
  g_assert_cmpuint (g_hash_table_size (metadata), ==, n / 2);
}

static void
test_skill_frontmatter (void)
{
  assert_frontmatter ("# Title\nname: x\n", (const char *[]){ NULL });
  assert_frontmatter ("---\nname: x\n", (const char *[]){ NULL });
  assert_frontmatter (
    "---\nname: pdf\ndescription: \"Work with PDFs: forms\"\n---\nbody",
    (const char *[]){ "name", "pdf", "description", "Work with PDFs: forms",
                      NULL });
  /* Comments, blank lines, lines without a colon, indented lines and an
   * empty key are skipped; a later key wins; unmatched quotes stay. */
  assert_frontmatter ("  ---  \n# c\n\nnot a pair\n  indented: x\n: v\n"
                      "name: a\nname: 'b\"\n---",
                      (const char *[]){ "name", "'b\"", NULL });
  /* Indented continuation lines join the value; comments among them do
   * not. */
  assert_frontmatter ("---\r\ndescription: first\r\n  second part\r\n"
                      "  # note\r\n\r\n  third\r\nname: n\r\n---\r\n",
                      (const char *[]){ "description",
                                        "first second part third", "name", "n",
                                        NULL });
}

static void
test_skill_frontmatter_blocks (void)
{
  assert_frontmatter ("---\ndescription: |\n  line one\n    indented\n\n"
                      "  line three\n\nname: x\n---",
                      (const char *[]){ "description",
                                        "line one\n  indented\n\nline three\n",
                                        "name", "x", NULL });
  assert_frontmatter ("---\ndescription: >\n  a\n  b\n\n\n  c\n---",
                      (const char *[]){ "description", "a b\n\nc\n", NULL });
  assert_frontmatter ("---\ndescription: >\nname: y\n---",
                      (const char *[]){ "description", "", "name", "y", NULL });
}

/* ---- The V4A diff (§2.2) ----------------------------------------------- */

static void
assert_diff (const char *input,
             const char *diff,
             AgentsApplyDiffMode mode,
             const char *expected)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *result = agents_apply_diff (input, diff, mode, &error);

  g_assert_no_error (error);
  g_assert_cmpstr (result, ==, expected);
}

static void
assert_diff_error (const char *input,
                   const char *diff,
                   AgentsApplyDiffMode mode,
                   const char *message)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *result = agents_apply_diff (input, diff, mode, &error);

  g_assert_null (result);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==, message);
}

#define UPDATE AGENTS_APPLY_DIFF_UPDATE
#define CREATE AGENTS_APPLY_DIFF_CREATE

static void
test_diff_spec_examples (void)
{
  assert_diff ("a\nb\nc\nd\n", "@@\n a\n-b\n+B\n c\n", UPDATE, "a\nB\nc\nd\n");
  assert_diff ("x\r\ny\r\n", "@@\n-x\n+X\n", UPDATE, "X\r\ny\r\n");
  assert_diff_error ("a\nb\n", "@@\n q\n-b\n+B\n", UPDATE,
                     "Invalid Context 0:\nq\nb");
  assert_diff ("", "+Hello\n+world\n", CREATE, "Hello\nworld");
}

static void
test_diff_create (void)
{
  assert_diff ("", "+hello\n+world\n+", CREATE, "hello\nworld\n");
  assert_diff ("", "+hello\r\n+world\r\n+", CREATE, "hello\r\nworld\r\n");
  /* Create ignores the input's line ends. */
  assert_diff ("a\r\nb", "+x\n+y", CREATE, "x\ny");
  assert_diff ("", "", CREATE, "");
  assert_diff_error ("", "plain line", CREATE,
                     "Invalid Add File Line: plain line");
  /* A section header ends the file's lines. */
  assert_diff ("", "+a\n*** Add File: b\n+c", CREATE, "a");
}

static void
test_diff_floating_hunk (void)
{
  assert_diff ("", "@@\n+hello\n+world", UPDATE, "hello\nworld\n");
  assert_diff ("", "@@\r\n+hello\r\n+world", UPDATE, "hello\r\nworld\r\n");
}

static void
test_diff_line_ends (void)
{
  const char *lf_diff = "@@ line1\n-line2\n+updated\n line3";
  const char *crlf_diff = "@@ line1\r\n-line2\r\n+updated\r\n line3";

  assert_diff ("line1\nline2\nline3\n", lf_diff, UPDATE,
               "line1\nupdated\nline3\n");
  assert_diff ("line1\r\nline2\r\nline3\r\n", lf_diff, UPDATE,
               "line1\r\nupdated\r\nline3\r\n");
  assert_diff ("line1\nline2\nline3\n", crlf_diff, UPDATE,
               "line1\nupdated\nline3\n");
  assert_diff ("line1\r\nline2\r\nline3\r\n", crlf_diff, UPDATE,
               "line1\r\nupdated\r\nline3\r\n");
  /* No final line end stays without one. */
  assert_diff ("a\nb", "@@\n a\n-b\n+c", UPDATE, "a\nc");
}

static void
test_diff_anchors (void)
{
  const char *classes = "class BaseClass\n    def search():\n        pass\n\n"
                        "class Subclass\n    def search():\n        pass\n";
  const char *twins = "class First\n    def run():\n        pass\n"
                      "class Second\n    def run():\n        pass\n";

  assert_diff (classes,
               "@@ class BaseClass\n@@     def search():\n-        pass\n"
               "+        raise NotImplementedError()\n\n@@ class Subclass\n"
               "@@     def search():\n-        pass\n"
               "+        raise NotImplementedError()",
               UPDATE,
               "class BaseClass\n    def search():\n"
               "        raise NotImplementedError()\n\nclass Subclass\n"
               "    def search():\n        raise NotImplementedError()\n");
  assert_diff (twins,
               "@@ class Second\n@@     def run():\n-        pass\n"
               "+        return 1",
               UPDATE,
               "class First\n    def run():\n        pass\nclass Second\n"
               "    def run():\n        return 1\n");
  /* A trailing bare @@ adds no anchor. */
  assert_diff ("class Only\n    def run():\n        pass\n",
               "@@ class Only\n@@\n-        pass\n+        return 1", UPDATE,
               "class Only\n    def run():\n        return 1\n");
  /* One anchor is advisory: context alone locates the change. */
  assert_diff ("a\nb\n", "@@ nope\n-b\n+B", UPDATE, "a\nB\n");
  /* An anchor matches trimmed, too. */
  assert_diff ("  def f():\n    x\n", "@@ def f():\n-    x\n+    y", UPDATE,
               "  def f():\n    y\n");
}

/* With two headers or more, every anchor must match (§2.2). */
static void
test_diff_stacked_anchors_must_match (void)
{
  assert_diff_error ("a\nb\n", "@@ nope\n@@ also-nope\n-b\n+B", UPDATE,
                     "Invalid Anchor 0:\nnope");
  assert_diff_error ("class A\n  x\n", "@@ class A\n@@ def gone\n-  x\n+  y",
                     UPDATE, "Invalid Anchor 1:\ndef gone");
}

static void
test_diff_fuzz (void)
{
  /* Right-trimmed context, then trimmed; the file's lines are kept. */
  assert_diff ("a  \nb\n", "@@\n a\n-b\n+B", UPDATE, "a  \nB\n");
  assert_diff ("  a\nb\n", "@@\n a\n-b\n+B", UPDATE, "  a\nB\n");
  /* An empty diff line is an empty context line. */
  assert_diff ("a\n\nb\n", "@@\n a\n\n-b\n+B", UPDATE, "a\n\nB\n");
}

static void
test_diff_end_of_file (void)
{
  /* The end is tried first. */
  assert_diff ("x\ny\nx", "@@\n-x\n+z\n*** End of File", UPDATE, "x\ny\nz");
  /* Not at the end: found from the cursor anyway. */
  assert_diff ("x\ny\n", "@@\n-x\n+z\n*** End of File\n", UPDATE, "z\ny\n");
  assert_diff_error ("a\n", "@@\n-q\n*** End of File", UPDATE,
                     "Invalid EOF Context 0:\nq");
}

static void
test_diff_errors (void)
{
  assert_diff_error ("one\ntwo\n", "@@ -1,2 +1,2 @@\n x\n-two\n+2", UPDATE,
                     "Invalid Context 0:\nx\ntwo");
  assert_diff_error ("a\n", "@@\n?x", UPDATE, "Invalid Line: ?x");
  assert_diff_error ("a\n", "@@\n*** Bogus", UPDATE, "Invalid Line: *** Bogus");
  assert_diff_error ("a\nb\nc", "-a\n+A\n*** End of File\n c", UPDATE,
                     "Invalid Line:\n c");
  assert_diff_error ("a\n", "@@\n@@@", UPDATE,
                     "Nothing in this section - index=1 @@@");
  assert_diff_error ("a\n", "@@\n***", UPDATE,
                     "Nothing in this section - index=1 ***");
  assert_diff_error ("a\nb", "@@\n-a\n-b\n+X\n@@\n-b\n+B\n*** End of File",
                     UPDATE, "applyDiff: overlapping chunk at 1 (cursor 2)");
  /* A section header or the end of the patch stops the diff. */
  assert_diff ("a\n", "@@\n-a\n+b\n*** End Patch\n-zzz", UPDATE, "b\n");
}

/* Stress for the 10,000-line goal: one change in the middle. */
static void
test_diff_large_file (void)
{
  GString *text = g_string_new (NULL);
  g_autofree char *input = NULL;
  g_autofree char *result = NULL;
  g_autoptr (GError) error = NULL;
  gint64 start;

  for (guint i = 0; i < 10000; i++)
    g_string_append_printf (text, "line %u\n", i);
  input = g_string_free (text, FALSE);
  start = g_get_monotonic_time ();
  result = agents_apply_diff (
    input, "@@\n line 4999\n-line 5000\n+changed\n line 5001\n", UPDATE,
    &error);
  g_assert_no_error (error);
  g_test_message ("10,000 lines: %.2f ms",
                  (g_get_monotonic_time () - start) / 1000.0);
  g_assert_nonnull (strstr (result, "line 4999\nchanged\nline 5001\n"));
  g_assert_cmpuint (strlen (result), ==, strlen (input) - 2);
}

/* Context that almost matches everywhere costs the file's lines times the
 * context's to look for (here 10^8 comparisons): the search stops at its
 * budget (fuzz-apply-patch). */
static void
test_diff_comparison_budget (void)
{
  g_autoptr (GString) input = g_string_new (NULL);
  g_autoptr (GString) diff = g_string_new ("@@\n");

  for (guint i = 0; i < 20000; i++)
    g_string_append (input, "a\n");
  for (guint i = 0; i < 10000; i++)
    g_string_append (diff, " a\n");
  g_string_append (diff, " b\n");
  assert_diff_error (input->str, diff->str, UPDATE,
                     "Invalid Context 0: too many lines to compare; use "
                     "fewer sections with fewer, more distinctive lines");
}

/* ---- apply_patch input (§2.1) ------------------------------------------ */

static GPtrArray *
parse_ok (const char *input)
{
  g_autoptr (GError) error = NULL;
  GPtrArray *operations = agents_apply_patch_parse (input, &error);

  g_assert_no_error (error);
  g_assert_nonnull (operations);
  return operations;
}

static void
assert_op (GPtrArray *operations,
           guint i,
           AgentsApplyPatchOpType type,
           const char *path,
           const char *diff,
           const char *move_to)
{
  AgentsApplyPatchOperation *op;

  g_assert_cmpuint (i, <, operations->len);
  op = operations->pdata[i];
  g_assert_cmpint (op->type, ==, type);
  g_assert_cmpstr (op->path, ==, path);
  g_assert_cmpstr (op->diff, ==, diff);
  g_assert_cmpstr (op->move_to, ==, move_to);
}

static void
assert_parse_error (const char *input, const char *message)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) operations = agents_apply_patch_parse (input, &error);

  g_assert_null (operations);
  g_assert_error (error, AGENTS_SANDBOX_ERROR,
                  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==, message);
}

#define CREATE_FILE AGENTS_APPLY_PATCH_CREATE_FILE
#define UPDATE_FILE AGENTS_APPLY_PATCH_UPDATE_FILE
#define DELETE_FILE AGENTS_APPLY_PATCH_DELETE_FILE

static void
test_parse_envelope (void)
{
  g_autoptr (GPtrArray) ops =
    parse_ok ("*** Begin Patch\n"
              "*** Add File: hello.txt\n+Hello world\n+\n"
              "*** Update File:  src/app.py \n*** Move to: src/main.py\n"
              "@@ def greet():\n-print(\"Hi\")\n+print(\"Hello, world!\")\n"
              "*** Delete File: obsolete.txt\n"
              "*** End Patch");
  g_autoptr (GPtrArray) crlf =
    parse_ok ("*** Begin Patch\r\n*** Update File: a\r\n@@\r\n-x\r\n+y\r\n"
              "*** End of File\r\n*** End Patch\r\n");

  g_assert_cmpuint (ops->len, ==, 3);
  assert_op (ops, 0, CREATE_FILE, "hello.txt", "+Hello world\n+\n", NULL);
  assert_op (ops, 1, UPDATE_FILE, "src/app.py",
             "@@ def greet():\n-print(\"Hi\")\n+print(\"Hello, world!\")\n",
             "src/main.py");
  assert_op (ops, 2, DELETE_FILE, "obsolete.txt", NULL, NULL);
  g_assert_cmpstr (agents_apply_patch_op_type_name (CREATE_FILE), ==,
                   "create_file");

  g_assert_cmpuint (crlf->len, ==, 1);
  assert_op (crlf, 0, UPDATE_FILE, "a", "@@\n-x\n+y\n*** End of File\n", NULL);
}

static void
test_parse_envelope_errors (void)
{
  assert_parse_error ("",
                      "apply_patch input must start with '*** Begin Patch'");
  assert_parse_error ("  *** Begin Patch\n*** End Patch",
                      "apply_patch input must start with '*** Begin Patch'");
  assert_parse_error ("*** Begin Patch",
                      "apply_patch input must end with '*** End Patch'");
  assert_parse_error ("*** Begin Patch\n*** Delete File: a\n*** End Patch \n",
                      "apply_patch input must end with '*** End Patch'");
  assert_parse_error (
    "*** Begin Patch\n*** End Patch",
    "apply_patch input must include at least one file operation");
  assert_parse_error ("*** Begin Patch\n*** Rename File: a\n*** End Patch",
                      "Invalid apply_patch file operation header: *** Rename "
                      "File: a");
  assert_parse_error ("*** Begin Patch\n*** Add File:   \n+x\n*** End Patch",
                      "Missing path in apply_patch header: *** Add File:   ");
  assert_parse_error ("*** Begin Patch\n*** Add File: a\nx\n*** End Patch",
                      "Invalid Add File line: x");
  assert_parse_error ("*** Begin Patch\n*** Add File: a\n*** End Patch",
                      "Add File patch for a must include at least one + line");
  assert_parse_error ("*** Begin Patch\n*** Delete File: a\n-x\n*** End Patch",
                      "Delete File patch for a must not include a diff");
  assert_parse_error ("*** Begin Patch\n*** Update File: a\n"
                      "*** Delete File: b\n*** End Patch",
                      "Update File patch for a must include a hunk");
  assert_parse_error ("*** Begin Patch\n*** Update File: a\n*** Move to: \n"
                      "@@\n*** End Patch",
                      "Missing path in apply_patch header: *** Move to: ");
}

static void
test_parse_json (void)
{
  g_autoptr (GPtrArray) list = parse_ok (
    "  {\"operations\": [{\"type\": \"create_file\", \"path\": \"a\", "
    "\"diff\": \"+x\\n\"}, {\"type\": \"update_file\", \"path\": \"b\", "
    "\"diff\": \"@@\\n-x\\n+y\\n\", \"move_to\": \"c\"}]}");
  g_autoptr (GPtrArray) one =
    parse_ok ("{\"operation\": {\"type\": \"delete_file\", \"path\": \"d\", "
              "\"diff\": \"ignored\", \"move_to\": null}}");
  g_autoptr (GPtrArray) bare =
    parse_ok ("{\"type\": \"delete_file\", \"path\": \"e\"}");
  g_autoptr (GPtrArray) array =
    parse_ok ("[{\"type\": \"create_file\", \"path\": \"f\", \"diff\": \"\"}]");
  g_autoptr (GPtrArray) empty = parse_ok ("[]");

  g_assert_cmpuint (list->len, ==, 2);
  assert_op (list, 0, CREATE_FILE, "a", "+x\n", NULL);
  assert_op (list, 1, UPDATE_FILE, "b", "@@\n-x\n+y\n", "c");
  assert_op (one, 0, DELETE_FILE, "d", NULL, NULL);
  assert_op (bare, 0, DELETE_FILE, "e", NULL, NULL);
  assert_op (array, 0, CREATE_FILE, "f", "", NULL);
  g_assert_cmpuint (empty->len, ==, 0);
}

static void
test_parse_json_errors (void)
{
  assert_parse_error ("[1]", "apply_patch operation must be an object");
  assert_parse_error ("{\"operations\": [\"x\"]}",
                      "apply_patch operation must be an object");
  assert_parse_error ("{\"type\": \"rename\", \"path\": \"a\"}",
                      "Invalid apply_patch operation type: rename");
  assert_parse_error ("{\"path\": \"a\"}",
                      "Invalid apply_patch operation type: None");
  assert_parse_error ("{\"type\": true}",
                      "Invalid apply_patch operation type: True");
  assert_parse_error ("{\"type\": 3}", "Invalid apply_patch operation type: 3");
  assert_parse_error ("{\"type\": \"delete_file\"}",
                      "apply_patch operation is missing a path");
  assert_parse_error ("{\"type\": \"delete_file\", \"path\": \"\"}",
                      "apply_patch operation is missing a path");
  assert_parse_error ("{\"type\": \"update_file\", \"path\": \"a\"}",
                      "apply_patch operation update_file is missing a diff");
  assert_parse_error ("{\"type\": \"create_file\", \"path\": \"a\", "
                      "\"diff\": 1}",
                      "apply_patch operation create_file is missing a diff");
  assert_parse_error ("{\"type\": \"delete_file\", \"path\": \"a\", "
                      "\"move_to\": 5}",
                      "apply_patch operation move_to must be a string");
  /* Valid JSON of another shape: not an object or array. */
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (GPtrArray) ops = agents_apply_patch_parse ("{oops", &error);

    g_assert_null (ops);
    g_assert_error (error, AGENTS_SANDBOX_ERROR,
                    AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT);
    g_assert_true (g_str_has_prefix (
      error->message, "apply_patch JSON input is not valid JSON: "));
  }
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/sandbox/pytext/splitlines", test_splitlines);
  g_test_add_func ("/sandbox/pytext/strip", test_strip);
  g_test_add_func ("/sandbox/truncation/reference-example",
                   test_truncation_reference_example);
  g_test_add_func ("/sandbox/truncation/fits", test_truncation_fits);
  g_test_add_func ("/sandbox/truncation/drops-prefix",
                   test_truncation_drops_prefix);
  g_test_add_func ("/sandbox/truncation/prefix-count-settles",
                   test_truncation_prefix_count_settles);
  g_test_add_func ("/sandbox/truncation/marker-only",
                   test_truncation_marker_only);
  g_test_add_func ("/sandbox/truncation/utf8", test_truncation_utf8);
  g_test_add_func ("/sandbox/shell-format/reference-example",
                   test_shell_format_reference_example);
  g_test_add_func ("/sandbox/shell-format/running-truncated",
                   test_shell_format_running_truncated);
  g_test_add_func ("/sandbox/shell-format/join-output", test_shell_join_output);
  g_test_add_func ("/sandbox/pty-rules/yield-times", test_pty_yield_times);
  g_test_add_func ("/sandbox/pty-rules/process-ids", test_pty_process_ids);
  g_test_add_func ("/sandbox/pty-rules/prune", test_pty_prune);
  g_test_add_func ("/sandbox/skills/frontmatter", test_skill_frontmatter);
  g_test_add_func ("/sandbox/skills/frontmatter-blocks",
                   test_skill_frontmatter_blocks);
  g_test_add_func ("/sandbox/apply-diff/spec-examples",
                   test_diff_spec_examples);
  g_test_add_func ("/sandbox/apply-diff/create", test_diff_create);
  g_test_add_func ("/sandbox/apply-diff/floating-hunk",
                   test_diff_floating_hunk);
  g_test_add_func ("/sandbox/apply-diff/line-ends", test_diff_line_ends);
  g_test_add_func ("/sandbox/apply-diff/anchors", test_diff_anchors);
  g_test_add_func ("/sandbox/apply-diff/stacked-anchors-must-match",
                   test_diff_stacked_anchors_must_match);
  g_test_add_func ("/sandbox/apply-diff/fuzz", test_diff_fuzz);
  g_test_add_func ("/sandbox/apply-diff/end-of-file", test_diff_end_of_file);
  g_test_add_func ("/sandbox/apply-diff/errors", test_diff_errors);
  g_test_add_func ("/sandbox/apply-diff/comparison-budget",
                   test_diff_comparison_budget);
  g_test_add_func ("/sandbox/apply-diff/large-file", test_diff_large_file);
  g_test_add_func ("/sandbox/apply-patch/envelope", test_parse_envelope);
  g_test_add_func ("/sandbox/apply-patch/envelope-errors",
                   test_parse_envelope_errors);
  g_test_add_func ("/sandbox/apply-patch/json", test_parse_json);
  g_test_add_func ("/sandbox/apply-patch/json-errors", test_parse_json_errors);

  return g_test_run ();
}
