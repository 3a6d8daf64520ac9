/* test-conversation-session.c - AgentsMemorySession and AgentsSqliteSession
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test-utils.h"

typedef enum
{
  KIND_MEMORY,
  KIND_SQLITE_MEMORY,
  KIND_SQLITE_FILE,
} SessionKind;

typedef struct
{
  char *tmp_dir;
  char *db_path;
  AgentsConversationSession *session;
} Fixture;

static AgentsConversationSession *
make_session (SessionKind kind, const char *db_path, const char *session_id)
{
  switch (kind)
    {
    case KIND_MEMORY:
      return AGENTS_CONVERSATION_SESSION (
        agents_memory_session_new (session_id));
    case KIND_SQLITE_MEMORY:
      return AGENTS_CONVERSATION_SESSION (
        agents_sqlite_session_new (session_id, ":memory:"));
    case KIND_SQLITE_FILE:
      return AGENTS_CONVERSATION_SESSION (
        agents_sqlite_session_new (session_id, db_path));
    }
  g_assert_not_reached ();
}

static void
fixture_set_up (Fixture *fixture, gconstpointer user_data)
{
  SessionKind kind = GPOINTER_TO_INT (user_data);

  fixture->tmp_dir = agents_test_make_tmp_dir ("agents-conversation-");
  fixture->db_path =
    g_build_filename (fixture->tmp_dir, "conversations.db", NULL);
  fixture->session = make_session (kind, fixture->db_path, "conversation-1");
}

static void
fixture_tear_down (Fixture *fixture, gconstpointer user_data)
{
  g_clear_object (&fixture->session);
  agents_test_rm_rf (fixture->tmp_dir);
  g_free (fixture->tmp_dir);
  g_free (fixture->db_path);
}

/* ---- synchronous helpers --------------------------------------------------
 */

static JsonArray *
get_items (AgentsConversationSession *session, guint limit, GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  AGENTS_TEST_AWAIT (result,
                     agents_conversation_session_get_items_async (
                       session, limit, NULL, agents_test_async_cb, &result));
  return agents_conversation_session_get_items_finish (session, result, error);
}

static gboolean
add_items (AgentsConversationSession *session, JsonArray *items, GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  AGENTS_TEST_AWAIT (result,
                     agents_conversation_session_add_items_async (
                       session, items, NULL, agents_test_async_cb, &result));
  return agents_conversation_session_add_items_finish (session, result, error);
}

static JsonObject *
pop_item (AgentsConversationSession *session, GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  AGENTS_TEST_AWAIT (result, agents_conversation_session_pop_item_async (
                               session, NULL, agents_test_async_cb, &result));
  return agents_conversation_session_pop_item_finish (session, result, error);
}

static gboolean
clear (AgentsConversationSession *session, GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  AGENTS_TEST_AWAIT (result, agents_conversation_session_clear_async (
                               session, NULL, agents_test_async_cb, &result));
  return agents_conversation_session_clear_finish (session, result, error);
}

static JsonArray *
parse_array (const char *json)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) node = json_from_string (json, &error);

  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (node));
  return json_array_ref (json_node_get_array (node));
}

static char *
array_to_string (JsonArray *array)
{
  g_autoptr (JsonNode) node = json_node_init_array (json_node_alloc (), array);

  return json_to_string (node, FALSE);
}

#define assert_items(session, limit, expected)                          \
  G_STMT_START                                                          \
  {                                                                     \
    g_autoptr (GError) _error = NULL;                                   \
    g_autoptr (JsonArray) _items = get_items (session, limit, &_error); \
    g_autofree char *_text = NULL;                                      \
    g_assert_no_error (_error);                                         \
    _text = array_to_string (_items);                                   \
    g_assert_cmpstr (_text, ==, expected);                              \
  }                                                                     \
  G_STMT_END

static void
add_json (AgentsConversationSession *session, const char *json)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonArray) items = parse_array (json);

  g_assert_true (add_items (session, items, &error));
  g_assert_no_error (error);
}

/* ---- behaviour shared by every implementation -----------------------------
 */

static void
test_empty (Fixture *fixture, gconstpointer user_data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonObject) popped = NULL;

  g_assert_cmpstr (
    agents_conversation_session_get_session_id (fixture->session), ==,
    "conversation-1");
  assert_items (fixture->session, 0, "[]");
  assert_items (fixture->session, 3, "[]");
  popped = pop_item (fixture->session, &error);
  g_assert_no_error (error);
  g_assert_null (popped);
  g_assert_true (clear (fixture->session, &error));
  g_assert_no_error (error);
}

static void
test_round_trip (Fixture *fixture, gconstpointer user_data)
{
  /* Strings with escapes and non-ASCII text, nested values, numbers of
   * both kinds, booleans and null come back exactly. */
  const char *items =
    "[{\"role\":\"user\",\"content\":\"old\"},"
    "{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":"
    "\"output_text\",\"text\":\"caf\\u00e9 \\\"quoted\\\"\\n\\u2603\","
    "\"annotations\":[]}]},"
    "{\"type\":\"function_call\",\"call_id\":\"call_1\",\"name\":\"tool\","
    "\"arguments\":\"{\\\"a\\\": 1}\",\"n\":-42,\"x\":0.5,\"ok\":true,"
    "\"none\":null,\"big\":9007199254740993}]";
  g_autoptr (JsonArray) expected = parse_array (items);
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonArray) got = NULL;
  g_autoptr (JsonNode) expected_node = NULL;
  g_autoptr (JsonNode) got_node = NULL;

  add_json (fixture->session, items);
  got = get_items (fixture->session, 0, &error);
  g_assert_no_error (error);
  expected_node = json_node_init_array (json_node_alloc (), expected);
  got_node = json_node_init_array (json_node_alloc (), got);
  g_assert_true (json_node_equal (expected_node, got_node));
  g_assert_cmpint (
    json_object_get_int_member (json_array_get_object_element (got, 2), "big"),
    ==, G_GINT64_CONSTANT (9007199254740993));
}

static void
test_items_are_copies (Fixture *fixture, gconstpointer user_data)
{
  g_autoptr (JsonArray) items =
    parse_array ("[{\"role\":\"user\",\"content\":[{\"text\":\"a\"}]}]");
  g_autoptr (JsonArray) got = NULL;
  JsonObject *first;

  g_assert_true (add_items (fixture->session, items, NULL));
  /* Changing what was added, or what was returned, changes nothing. */
  json_object_set_string_member (json_array_get_object_element (items, 0),
                                 "content", "changed");
  got = get_items (fixture->session, 0, NULL);
  first = json_array_get_object_element (got, 0);
  json_object_set_string_member (first, "role", "changed");
  assert_items (fixture->session, 0,
                "[{\"role\":\"user\",\"content\":[{\"text\":\"a\"}]}]");
}

static void
test_limit (Fixture *fixture, gconstpointer user_data)
{
  add_json (fixture->session, "[{\"n\":1},{\"n\":2},{\"n\":3}]");
  add_json (fixture->session, "[{\"n\":4},{\"n\":5}]");

  assert_items (fixture->session, 0,
                "[{\"n\":1},{\"n\":2},{\"n\":3},{\"n\":4},{\"n\":5}]");
  assert_items (fixture->session, 1, "[{\"n\":5}]");
  assert_items (fixture->session, 2, "[{\"n\":4},{\"n\":5}]");
  assert_items (fixture->session, 5,
                "[{\"n\":1},{\"n\":2},{\"n\":3},{\"n\":4},{\"n\":5}]");
  assert_items (fixture->session, 100,
                "[{\"n\":1},{\"n\":2},{\"n\":3},{\"n\":4},{\"n\":5}]");
}

static void
test_pop_returns_latest (Fixture *fixture, gconstpointer user_data)
{
  g_autoptr (GError) error = NULL;

  add_json (fixture->session, "[{\"n\":1},{\"n\":2},{\"n\":3}]");
  for (int n = 3; n >= 1; n--)
    {
      g_autoptr (JsonObject) item = pop_item (fixture->session, &error);

      g_assert_no_error (error);
      g_assert_nonnull (item);
      g_assert_cmpint (json_object_get_int_member (item, "n"), ==, n);
      if (n == 2)
        assert_items (fixture->session, 0, "[{\"n\":1}]");
    }
  g_assert_null (pop_item (fixture->session, &error));
  g_assert_no_error (error);
  add_json (fixture->session, "[{\"n\":6}]");
  assert_items (fixture->session, 0, "[{\"n\":6}]");
}

static void
test_clear (Fixture *fixture, gconstpointer user_data)
{
  g_autoptr (GError) error = NULL;

  add_json (fixture->session, "[{\"n\":1},{\"n\":2}]");
  g_assert_true (clear (fixture->session, &error));
  g_assert_no_error (error);
  assert_items (fixture->session, 0, "[]");
  add_json (fixture->session, "[{\"n\":3}]");
  assert_items (fixture->session, 0, "[{\"n\":3}]");
}

static void
test_add_empty_and_invalid (Fixture *fixture, gconstpointer user_data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonArray) empty = json_array_new ();
  g_autoptr (JsonArray) invalid =
    parse_array ("[{\"n\":1},\"not an object\",{\"n\":2}]");

  g_assert_true (add_items (fixture->session, empty, &error));
  g_assert_no_error (error);
  g_assert_false (add_items (fixture->session, invalid, &error));
  g_assert_error (error, AGENTS_CONVERSATION_SESSION_ERROR,
                  AGENTS_CONVERSATION_SESSION_ERROR_INVALID_ITEM);
  g_assert_cmpstr (error->message, ==,
                   "Conversation item 1 is not a JSON object");
  /* Nothing of the failed batch was stored. */
  assert_items (fixture->session, 0, "[]");
}

static void
test_sessions_are_separate (Fixture *fixture, gconstpointer user_data)
{
  SessionKind kind = GPOINTER_TO_INT (user_data);
  g_autoptr (AgentsConversationSession) other =
    make_session (kind, fixture->db_path, "conversation-2");

  add_json (fixture->session, "[{\"n\":1}]");
  add_json (other, "[{\"n\":2}]");
  assert_items (fixture->session, 0, "[{\"n\":1}]");
  assert_items (other, 0, "[{\"n\":2}]");
  g_assert_true (clear (other, NULL));
  assert_items (fixture->session, 0, "[{\"n\":1}]");
}

/* ---- SQLite specifics -----------------------------------------------------
 */

static void
test_sqlite_persists_across_sessions (Fixture *fixture, gconstpointer data)
{
  g_autoptr (AgentsConversationSession) second = NULL;
  g_autoptr (JsonObject) popped = NULL;

  /* A first "run" writes, then its session object goes away. */
  add_json (fixture->session,
            "[{\"role\":\"user\",\"content\":\"old\"},{\"n\":2}]");
  g_clear_object (&fixture->session);

  /* A second "run" (or process) opens the same file. */
  second = make_session (KIND_SQLITE_FILE, fixture->db_path, "conversation-1");
  assert_items (second, 0,
                "[{\"role\":\"user\",\"content\":\"old\"},{\"n\":2}]");
  popped = pop_item (second, NULL);
  g_assert_cmpint (json_object_get_int_member (popped, "n"), ==, 2);
  add_json (second, "[{\"role\":\"user\",\"content\":\"new\"}]");

  fixture->session =
    make_session (KIND_SQLITE_FILE, fixture->db_path, "conversation-1");
  assert_items (fixture->session, 0,
                "[{\"role\":\"user\",\"content\":\"old\"},"
                "{\"role\":\"user\",\"content\":\"new\"}]");
}

static sqlite3 *
open_raw (const char *path)
{
  sqlite3 *db = NULL;

  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  sqlite3_busy_timeout (db, 10000);
  return db;
}

static void
raw_exec (sqlite3 *db, const char *sql)
{
  char *message = NULL;
  int rc = sqlite3_exec (db, sql, NULL, NULL, &message);

  if (rc != SQLITE_OK)
    g_error ("%s: %s", sql, message);
}

static void
test_sqlite_schema_and_wal (Fixture *fixture, gconstpointer data)
{
  sqlite3 *db;
  sqlite3_stmt *stmt;

  add_json (fixture->session, "[{\"n\":1}]");
  db = open_raw (fixture->db_path);

  g_assert_cmpint (
    sqlite3_prepare_v2 (db, "PRAGMA journal_mode", -1, &stmt, NULL), ==,
    SQLITE_OK);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  g_assert_cmpstr ((const char *) sqlite3_column_text (stmt, 0), ==, "wal");
  sqlite3_finalize (stmt);

  /* The reference's tables and columns. */
  g_assert_cmpint (
    sqlite3_prepare_v2 (db,
                        "SELECT s.session_id, s.created_at, s.updated_at,"
                        " m.id, m.message_data, m.created_at"
                        " FROM agent_sessions s JOIN agent_messages m"
                        " ON s.session_id = m.session_id",
                        -1, &stmt, NULL),
    ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  g_assert_cmpstr ((const char *) sqlite3_column_text (stmt, 0), ==,
                   "conversation-1");
  g_assert_nonnull (sqlite3_column_text (stmt, 1));
  g_assert_nonnull (sqlite3_column_text (stmt, 2));
  g_assert_cmpstr ((const char *) sqlite3_column_text (stmt, 4), ==,
                   "{\"n\":1}");
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_DONE);
  sqlite3_finalize (stmt);
  sqlite3_close (db);
}

static void
test_sqlite_reads_reference_rows (Fixture *fixture, gconstpointer data)
{
  sqlite3 *db;

  /* Rows as the reference SDK writes them (json.dumps spacing). */
  add_json (fixture->session, "[{\"n\":1}]");
  db = open_raw (fixture->db_path);
  raw_exec (db, "INSERT INTO agent_messages (session_id, message_data) VALUES"
                " ('conversation-1', '{\"role\": \"user\", \"content\": "
                "\"hi\"}')");
  sqlite3_close (db);
  assert_items (fixture->session, 0,
                "[{\"n\":1},{\"role\":\"user\",\"content\":\"hi\"}]");
}

static void
check_corrupt (Fixture *fixture, const char *sql_value, const char *reason)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonArray) items = NULL;
  g_autoptr (JsonObject) popped = NULL;
  g_autofree char *sql = NULL;
  g_autoptr (GVariant) context = NULL;
  gint64 message_id = 0;
  sqlite3 *db;

  g_assert_true (clear (fixture->session, NULL));
  add_json (fixture->session, "[{\"n\":1}]");
  db = open_raw (fixture->db_path);
  sql = g_strdup_printf ("INSERT INTO agent_messages (session_id,"
                         " message_data) VALUES ('conversation-1', %s)",
                         sql_value);
  raw_exec (db, sql);
  sqlite3_close (db);

  items = get_items (fixture->session, 0, &error);
  g_assert_null (items);
  g_assert_error (error, AGENTS_CONVERSATION_SESSION_ERROR,
                  AGENTS_CONVERSATION_SESSION_ERROR_CORRUPT_ITEM);
  g_assert_true (g_str_has_prefix (error->message,
                                   "Conversation session conversation-1 has "
                                   "a corrupt item (message "));
  if (reason != NULL)
    g_assert_true (g_str_has_suffix (error->message, reason));
  context = agents_sandbox_error_get_context (error);
  g_assert_true (g_variant_lookup (context, "message_id", "x", &message_id));
  g_assert_cmpint (message_id, >, 1);
  agents_test_assert_context_str (error, "session_id", "conversation-1");
  g_clear_error (&error);

  /* The latest items are corrupt too: limit and pop fail the same way,
   * and the failed pop leaves the row in place. */
  items = get_items (fixture->session, 1, &error);
  g_assert_error (error, AGENTS_CONVERSATION_SESSION_ERROR,
                  AGENTS_CONVERSATION_SESSION_ERROR_CORRUPT_ITEM);
  g_clear_error (&error);
  popped = pop_item (fixture->session, &error);
  g_assert_null (popped);
  g_assert_error (error, AGENTS_CONVERSATION_SESSION_ERROR,
                  AGENTS_CONVERSATION_SESSION_ERROR_CORRUPT_ITEM);
  g_clear_error (&error);
  items = get_items (fixture->session, 1, &error);
  g_assert_error (error, AGENTS_CONVERSATION_SESSION_ERROR,
                  AGENTS_CONVERSATION_SESSION_ERROR_CORRUPT_ITEM);
  g_clear_error (&error);

  /* clear() still recovers the conversation. */
  g_assert_true (clear (fixture->session, &error));
  g_assert_no_error (error);
  assert_items (fixture->session, 0, "[]");
}

static void
test_sqlite_corrupt_rows (Fixture *fixture, gconstpointer data)
{
  g_autofree char *deep = NULL;
  g_autofree char *deep_sql = NULL;
  GString *nested = g_string_new ("'");

  check_corrupt (fixture, "'{\"role\": \"user\", '", NULL);
  check_corrupt (fixture, "'[1, 2]'", "not a JSON object");
  check_corrupt (fixture, "'\"text\"'", "not a JSON object");
  check_corrupt (fixture, "''", NULL);
  check_corrupt (fixture, "X'7b22a0223a317d'", "not UTF-8 text");

  /* Nesting that would exhaust the parser's stack is refused. */
  for (int i = 0; i < 200000; i++)
    g_string_append_c (nested, '[');
  g_string_append_c (nested, '\'');
  deep = g_string_free (nested, FALSE);
  check_corrupt (fixture, deep, "JSON nested deeper than 512 levels");
}

static void
test_sqlite_not_a_database (Fixture *fixture, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonArray) items = NULL;
  g_autoptr (JsonArray) items_one = parse_array ("[{\"n\":1}]");
  const char *garbage = "this is not an SQLite database, but it is long "
                        "enough to have a header that is not one either";
  g_autofree char *after = NULL;

  agents_test_write_file (fixture->db_path, garbage);
  items = get_items (fixture->session, 0, &error);
  g_assert_null (items);
  g_assert_error (error, AGENTS_CONVERSATION_SESSION_ERROR,
                  AGENTS_CONVERSATION_SESSION_ERROR_FAILED);
  g_assert_true (g_str_has_prefix (error->message, "SQLite session database "));
  agents_test_assert_context_str (error, "db_path", fixture->db_path);
  g_clear_error (&error);

  g_assert_false (add_items (fixture->session, items_one, &error));
  g_assert_error (error, AGENTS_CONVERSATION_SESSION_ERROR,
                  AGENTS_CONVERSATION_SESSION_ERROR_FAILED);
  /* The file was not touched. */
  after = agents_test_read_file (fixture->db_path);
  g_assert_cmpstr (after, ==, garbage);
}

static void
on_fifo_alarm (int sig)
{
  static const char message[] = "Bail out! blocked on a FIFO\n";

  (void) sig;
  (void) !write (STDOUT_FILENO, message, sizeof message - 1);
  _exit (1);
}

/* A FIFO as the database: refused at once, naming the path and saying
 * why (SQLite said "disk I/O error"). */
static void
test_sqlite_fifo_refused (Fixture *fixture, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonArray) items = NULL;

  g_assert_cmpint (mkfifo (fixture->db_path, 0600), ==, 0);
  signal (SIGALRM, on_fifo_alarm);
  alarm (10);
  items = get_items (fixture->session, 0, &error);
  alarm (0);
  g_assert_null (items);
  g_assert_error (error, AGENTS_CONVERSATION_SESSION_ERROR,
                  AGENTS_CONVERSATION_SESSION_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, fixture->db_path));
  g_assert_nonnull (strstr (error->message, "not a regular file"));
}

static void
test_sqlite_memory_databases_are_private (void)
{
  g_autoptr (AgentsSqliteSession) a = agents_sqlite_session_new ("x", NULL);
  g_autoptr (AgentsSqliteSession) b =
    agents_sqlite_session_new ("x", ":memory:");
  g_autofree char *db_path = NULL;

  g_assert_cmpstr (agents_sqlite_session_get_db_path (a), ==, ":memory:");
  g_object_get (b, "db-path", &db_path, NULL);
  g_assert_cmpstr (db_path, ==, ":memory:");
  add_json (AGENTS_CONVERSATION_SESSION (a), "[{\"n\":1}]");
  assert_items (AGENTS_CONVERSATION_SESSION (a), 0, "[{\"n\":1}]");
  assert_items (AGENTS_CONVERSATION_SESSION (b), 0, "[]");
}

/* ---- concurrency ----------------------------------------------------------
 */

#define N_THREADS 4
#define N_ADDS 50

typedef struct
{
  const char *db_path;
  int thread_index;
} WriterData;

/* Each thread is a separate "run": its own main context and session
 * object (connection) on the shared file. */
static gpointer
writer_thread (gpointer user_data)
{
  WriterData *data = user_data;
  g_autoptr (GMainContext) context = g_main_context_new ();
  g_autoptr (AgentsConversationSession) session = NULL;

  g_main_context_push_thread_default (context);
  session = make_session (KIND_SQLITE_FILE, data->db_path, "shared");
  for (int i = 0; i < N_ADDS; i++)
    {
      g_autofree char *json =
        g_strdup_printf ("[{\"thread\":%d,\"i\":%d}]", data->thread_index, i);
      g_autoptr (JsonArray) items = parse_array (json);
      g_autoptr (GError) error = NULL;

      if (!add_items (session, items, &error))
        g_error ("thread %d add %d: %s", data->thread_index, i, error->message);
    }
  g_clear_object (&session);
  g_main_context_pop_thread_default (context);
  return NULL;
}

static void
check_all_written (AgentsConversationSession *session, int n_writers)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonArray) items = get_items (session, 0, &error);
  int next[N_THREADS] = { 0 };

  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (items), ==, n_writers * N_ADDS);
  /* Every writer's items are there, each writer's in its order. */
  for (guint i = 0; i < json_array_get_length (items); i++)
    {
      JsonObject *item = json_array_get_object_element (items, i);
      int thread = json_object_get_int_member (item, "thread");

      g_assert_cmpint (thread, >=, 0);
      g_assert_cmpint (thread, <, n_writers);
      g_assert_cmpint (json_object_get_int_member (item, "i"), ==,
                       next[thread]++);
    }
}

static void
test_sqlite_concurrent_threads (Fixture *fixture, gconstpointer data)
{
  WriterData writers[N_THREADS];
  GThread *threads[N_THREADS];
  g_autoptr (AgentsConversationSession) reader = NULL;

  for (int t = 0; t < N_THREADS; t++)
    {
      writers[t].db_path = fixture->db_path;
      writers[t].thread_index = t;
      threads[t] = g_thread_new ("writer", writer_thread, &writers[t]);
    }
  for (int t = 0; t < N_THREADS; t++)
    g_thread_join (threads[t]);

  reader = make_session (KIND_SQLITE_FILE, fixture->db_path, "shared");
  check_all_written (reader, N_THREADS);
}

/* Each writer is a separate process running this program. */
static void
test_sqlite_concurrent_processes (Fixture *fixture, gconstpointer data)
{
  g_autofree char *self_exe = g_file_read_link ("/proc/self/exe", NULL);
  g_autoptr (AgentsConversationSession) reader = NULL;
  GSubprocess *children[N_THREADS];

  g_assert_nonnull (self_exe);
  for (int t = 0; t < N_THREADS; t++)
    {
      g_autoptr (GSubprocessLauncher) launcher =
        g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
      g_autofree char *index = g_strdup_printf ("%d", t);
      g_autoptr (GError) error = NULL;

      g_subprocess_launcher_setenv (launcher, "AGENTS_TEST_SQLITE_WRITER",
                                    index, TRUE);
      g_subprocess_launcher_setenv (launcher, "AGENTS_TEST_SQLITE_DB",
                                    fixture->db_path, TRUE);
      children[t] =
        g_subprocess_launcher_spawn (launcher, &error, self_exe, NULL);
      g_assert_no_error (error);
    }
  for (int t = 0; t < N_THREADS; t++)
    {
      g_autoptr (GError) error = NULL;

      g_assert_true (g_subprocess_wait_check (children[t], NULL, &error));
      g_assert_no_error (error);
      g_object_unref (children[t]);
    }

  reader = make_session (KIND_SQLITE_FILE, fixture->db_path, "shared");
  check_all_written (reader, N_THREADS);
}

typedef struct
{
  int pending;
  int failed;
} AddState;

static void
add_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AddState *state = user_data;
  g_autoptr (GError) error = NULL;

  if (!agents_conversation_session_add_items_finish (
        AGENTS_CONVERSATION_SESSION (source), result, &error))
    state->failed++;
  state->pending--;
}

static void
test_concurrent_requests (Fixture *fixture, gconstpointer user_data)
{
  SessionKind kind = GPOINTER_TO_INT (user_data);
  g_autoptr (AgentsConversationSession) session =
    make_session (kind, fixture->db_path, "shared");
  AddState state = { 0 };

  /* Several requests in flight at once on one session object: worker
   * threads may run them in any order, but each is atomic. */
  for (int t = 0; t < N_THREADS; t++)
    {
      g_autoptr (JsonArray) items = json_array_new ();

      for (int i = 0; i < N_ADDS; i++)
        {
          JsonObject *item = json_object_new ();

          json_object_set_int_member (item, "thread", t);
          json_object_set_int_member (item, "i", i);
          json_array_add_object_element (items, item);
        }
      state.pending++;
      agents_conversation_session_add_items_async (session, items, NULL,
                                                   add_done, &state);
    }
  while (state.pending > 0)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpint (state.failed, ==, 0);
  check_all_written (session, N_THREADS);
}

static void
test_cancelled (Fixture *fixture, gconstpointer user_data)
{
  SessionKind kind = GPOINTER_TO_INT (user_data);
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonArray) items = NULL;

  if (kind == KIND_MEMORY)
    {
      g_test_skip ("memory sessions complete at once");
      return;
    }
  g_cancellable_cancel (cancellable);
  AGENTS_TEST_AWAIT (
    result, agents_conversation_session_get_items_async (
              fixture->session, 0, cancellable, agents_test_async_cb, &result));
  items = agents_conversation_session_get_items_finish (fixture->session,
                                                        result, &error);
  g_assert_null (items);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

/* ---- registration -----------------------------------------------------------
 */

typedef void (*FixtureTest) (Fixture *, gconstpointer);

static void
add_test (const char *kind_name,
          SessionKind kind,
          const char *name,
          FixtureTest func)
{
  g_autofree char *path =
    g_strdup_printf ("/conversation-session/%s/%s", kind_name, name);

  g_test_add (path, Fixture, GINT_TO_POINTER (kind), fixture_set_up, func,
              fixture_tear_down);
}

int
main (int argc, char *argv[])
{
  static const struct
  {
    const char *name;
    SessionKind kind;
  } kinds[] = {
    { "memory", KIND_MEMORY },
    { "sqlite-memory", KIND_SQLITE_MEMORY },
    { "sqlite-file", KIND_SQLITE_FILE },
  };
  static const struct
  {
    const char *name;
    FixtureTest func;
  } shared_tests[] = {
    { "empty", test_empty },
    { "round-trip", test_round_trip },
    { "items-are-copies", test_items_are_copies },
    { "limit", test_limit },
    { "pop-returns-latest", test_pop_returns_latest },
    { "clear", test_clear },
    { "add-empty-and-invalid", test_add_empty_and_invalid },
    { "sessions-are-separate", test_sessions_are_separate },
    { "concurrent-requests", test_concurrent_requests },
    { "cancelled", test_cancelled },
  };

  const char *writer = g_getenv ("AGENTS_TEST_SQLITE_WRITER");

  if (writer != NULL)
    {
      WriterData data = { g_getenv ("AGENTS_TEST_SQLITE_DB"), atoi (writer) };

      writer_thread (&data);
      return 0;
    }

  g_test_init (&argc, &argv, NULL);

  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    for (guint t = 0; t < G_N_ELEMENTS (shared_tests); t++)
      add_test (kinds[k].name, kinds[k].kind, shared_tests[t].name,
                shared_tests[t].func);

  add_test ("sqlite-file", KIND_SQLITE_FILE, "persists-across-sessions",
            test_sqlite_persists_across_sessions);
  add_test ("sqlite-file", KIND_SQLITE_FILE, "schema-and-wal",
            test_sqlite_schema_and_wal);
  add_test ("sqlite-file", KIND_SQLITE_FILE, "reads-reference-rows",
            test_sqlite_reads_reference_rows);
  add_test ("sqlite-file", KIND_SQLITE_FILE, "corrupt-rows",
            test_sqlite_corrupt_rows);
  add_test ("sqlite-file", KIND_SQLITE_FILE, "not-a-database",
            test_sqlite_not_a_database);
  add_test ("sqlite-file", KIND_SQLITE_FILE, "fifo-refused",
            test_sqlite_fifo_refused);
  add_test ("sqlite-file", KIND_SQLITE_FILE, "concurrent-threads",
            test_sqlite_concurrent_threads);
  add_test ("sqlite-file", KIND_SQLITE_FILE, "concurrent-processes",
            test_sqlite_concurrent_processes);
  g_test_add_func ("/conversation-session/sqlite-memory/private-databases",
                   test_sqlite_memory_databases_are_private);

  return g_test_run ();
}
