/* test-utils.h - helpers shared by the test programs
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <agents.h>

G_BEGIN_DECLS

/* Spins the thread-default main context until *done is TRUE. */
void agents_test_wait_for (gboolean *done);

/* Spins until the async operation started with agents_test_async_cb as
 * callback and &result as user data has completed; returns the result. */
GAsyncResult *agents_test_wait_result (GAsyncResult **result);
void
agents_test_async_cb (GObject *source, GAsyncResult *res, gpointer user_data);

/* Starts an async call whose callback is agents_test_async_cb with
 * &result_var as user data, and spins until it completes. */
#define AGENTS_TEST_AWAIT(result_var, async_call) \
  G_STMT_START                                    \
  {                                               \
    g_clear_object (&(result_var));               \
    async_call;                                   \
    agents_test_wait_result (&(result_var));      \
  }                                               \
  G_STMT_END

/* A fresh temporary directory (removed with agents_test_rm_rf). */
char *agents_test_make_tmp_dir (const char *prefix);
void agents_test_rm_rf (const char *path);

/* Writes a file, creating parent directories. */
void agents_test_write_file (const char *path, const char *contents);
char *agents_test_read_file (const char *path);

/* Asserts that an error is a sandbox error with the given code and that
 * its context member @key is the string @value (if @key is non-NULL). */
#define agents_test_assert_context_str(error, key, value)                 \
  G_STMT_START                                                            \
  {                                                                       \
    g_autoptr (GVariant) _ctx = agents_sandbox_error_get_context (error); \
    const char *_v = NULL;                                                \
    g_assert_true (g_variant_lookup (_ctx, (key), "&s", &_v));            \
    g_assert_cmpstr (_v, ==, (value));                                    \
  }                                                                       \
  G_STMT_END

/* A JSON string node. */
JsonNode *agents_test_str_node (const char *text);
/* Queues one turn output of @model made of the given items (taken),
 * NULL-terminated. */
void agents_test_add_turn (AgentsScriptedModel *model,
                           JsonObject *first,
                           ...) G_GNUC_NULL_TERMINATED;
/* An agent named @name that uses @model (may be NULL). */
AgentsAgent *agents_test_new_agent (const char *name,
                                    AgentsScriptedModel *model);

G_END_DECLS
