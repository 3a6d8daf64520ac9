/* agents-sqlite-session.c - a conversation session in an SQLite database
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <inttypes.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <sqlite3.h>
#include <string.h>

#include "agents-json-private.h"
#include "agents-error.h"
#include "agents-sqlite-session.h"

/**
 * AgentsSqliteSession:
 *
 * A conversation session stored in an SQLite database: a file shared by
 * runs in several threads or processes, or a private in-memory database
 * (`":memory:"`).
 *
 * The tables are those of the reference SDK's `SQLiteSession`:
 * `agent_sessions (session_id, created_at, updated_at)` and
 * `agent_messages (id, session_id, message_data, created_at)`, where
 * `message_data` is an item's JSON text; a database written by one can be
 * read by the other.
 *
 * Every operation runs in a worker thread, as one transaction, on the
 * session's connection; file databases use write-ahead logging and wait
 * for each other's locks, so concurrent runs neither block the main loop
 * nor lose items. A row whose JSON is not an object fails the operation
 * with %AGENTS_CONVERSATION_SESSION_ERROR_CORRUPT_ITEM.
 */

/* How long an operation waits for another connection's lock. */
#define BUSY_TIMEOUT_MS 30000

struct _AgentsSqliteSession
{
  GObject parent_instance;

  char *session_id;
  char *db_path;

  GMutex lock; /* guards db; held for a whole operation */
  sqlite3 *db; /* opened by the first operation */
  int last_rc; /* of the last SQLite failure */
};

static void
agents_sqlite_session_iface_init (AgentsConversationSessionInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  AgentsSqliteSession,
  agents_sqlite_session,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_CONVERSATION_SESSION,
                         agents_sqlite_session_iface_init))

enum
{
  PROP_0,
  PROP_DB_PATH,
  N_PROPS,
  PROP_SESSION_ID = N_PROPS,
};

static GParamSpec *properties[N_PROPS];

static const char schema_sql[] =
  "CREATE TABLE IF NOT EXISTS agent_sessions ("
  " session_id TEXT PRIMARY KEY,"
  " created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,"
  " updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);"
  "CREATE TABLE IF NOT EXISTS agent_messages ("
  " id INTEGER PRIMARY KEY AUTOINCREMENT,"
  " session_id TEXT NOT NULL,"
  " message_data TEXT NOT NULL,"
  " created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,"
  " FOREIGN KEY (session_id) REFERENCES agent_sessions (session_id)"
  " ON DELETE CASCADE);"
  "CREATE INDEX IF NOT EXISTS idx_agent_messages_session_order"
  " ON agent_messages (session_id, id);";

typedef enum
{
  OP_GET_ITEMS,
  OP_ADD_ITEMS,
  OP_POP_ITEM,
  OP_CLEAR,
} OpKind;

typedef struct
{
  OpKind kind;
  guint limit;
  GPtrArray *texts; /* for OP_ADD_ITEMS: JSON text of each item */
} Op;

static void
op_free (Op *op)
{
  g_clear_pointer (&op->texts, g_ptr_array_unref);
  g_free (op);
}

static GVariantDict *
error_context (AgentsSqliteSession *self)
{
  GVariantDict *ctx = g_variant_dict_new (NULL);

  g_variant_dict_insert (ctx, "session_id", "s", self->session_id);
  g_variant_dict_insert (ctx, "db_path", "s", self->db_path);
  return ctx;
}

static void
set_sqlite_error (AgentsSqliteSession *self,
                  sqlite3 *db,
                  int rc,
                  GError **error)
{
  g_autoptr (GVariantDict) ctx = error_context (self);
  const char *detail = db != NULL ? sqlite3_errmsg (db) : sqlite3_errstr (rc);

  self->last_rc = rc;
  g_variant_dict_insert (ctx, "sqlite_code", "i", rc);
  agents_error_set (
    error, AGENTS_CONVERSATION_SESSION_ERROR,
    AGENTS_CONVERSATION_SESSION_ERROR_FAILED, g_variant_dict_end (ctx),
    _ ("SQLite session database %s failed: %s"), self->db_path, detail);
}

static void
set_corrupt_error (AgentsSqliteSession *self,
                   gint64 row_id,
                   const char *reason,
                   GError **error)
{
  g_autoptr (GVariantDict) ctx = error_context (self);

  g_variant_dict_insert (ctx, "message_id", "x", row_id);
  agents_error_set (
    error, AGENTS_CONVERSATION_SESSION_ERROR,
    AGENTS_CONVERSATION_SESSION_ERROR_CORRUPT_ITEM, g_variant_dict_end (ctx),
    _ ("Conversation session %s has a corrupt item (message %" PRId64 "): %s"),
    self->session_id, (int64_t) row_id, reason);
}

static gboolean
exec_sql (AgentsSqliteSession *self,
          sqlite3 *db,
          const char *sql,
          GError **error)
{
  int rc = sqlite3_exec (db, sql, NULL, NULL, NULL);

  if (rc != SQLITE_OK)
    {
      set_sqlite_error (self, db, rc, error);
      return FALSE;
    }
  return TRUE;
}

static sqlite3_stmt *
prepare (AgentsSqliteSession *self, const char *sql, GError **error)
{
  sqlite3_stmt *stmt = NULL;
  int rc = sqlite3_prepare_v2 (self->db, sql, -1, &stmt, NULL);

  if (rc != SQLITE_OK)
    {
      set_sqlite_error (self, self->db, rc, error);
      sqlite3_finalize (stmt);
      return NULL;
    }
  return stmt;
}

static gboolean
is_memory_path (const char *path)
{
  return g_str_equal (path, ":memory:") || path[0] == '\0';
}

static gboolean
configure_connection (AgentsSqliteSession *self, sqlite3 *db, GError **error)
{
  sqlite3_busy_timeout (db, BUSY_TIMEOUT_MS);
  if (!is_memory_path (self->db_path) &&
      !exec_sql (self, db, "PRAGMA journal_mode=WAL", error))
    return FALSE;
  if (!exec_sql (self, db, "PRAGMA foreign_keys=ON", error))
    return FALSE;
  if (!exec_sql (self, db, "BEGIN IMMEDIATE", error))
    return FALSE;
  if (!exec_sql (self, db, schema_sql, error) ||
      !exec_sql (self, db, "COMMIT", error))
    {
      sqlite3_exec (db, "ROLLBACK", NULL, NULL, NULL);
      return FALSE;
    }
  return TRUE;
}

/* A database file that exists must be a regular file: SQLite would
 * block on a FIFO or read a device. */
static gboolean
check_regular_file (AgentsSqliteSession *self, GError **error)
{
  g_autoptr (GVariantDict) ctx = NULL;
  GStatBuf st;

  if (g_stat (self->db_path, &st) != 0 || S_ISREG (st.st_mode))
    return TRUE;
  ctx = error_context (self);
  agents_error_set (error, AGENTS_CONVERSATION_SESSION_ERROR,
                    AGENTS_CONVERSATION_SESSION_ERROR_FAILED,
                    g_variant_dict_end (ctx),
                    _ ("SQLite session database %s failed: %s"), self->db_path,
                    _ ("not a regular file"));
  return FALSE;
}

static gboolean
ensure_open (AgentsSqliteSession *self, GError **error)
{
  sqlite3 *db = NULL;
  int rc;

  if (self->db != NULL)
    return TRUE;
  if (!check_regular_file (self, error))
    return FALSE;

  /* NOMUTEX: self->lock serializes every use of the connection. */
  rc = sqlite3_open_v2 (
    self->db_path, &db,
    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
  if (rc != SQLITE_OK || !configure_connection (self, db, error))
    {
      if (rc != SQLITE_OK)
        set_sqlite_error (self, db, rc, error);
      sqlite3_close_v2 (db);
      return FALSE;
    }
  self->db = db;
  return TRUE;
}

static JsonObject *
parse_row (AgentsSqliteSession *self, sqlite3_stmt *stmt, GError **error)
{
  gint64 row_id = sqlite3_column_int64 (stmt, 0);
  const char *text = (const char *) sqlite3_column_text (stmt, 1);
  int len = sqlite3_column_bytes (stmt, 1);
  g_autoptr (GError) local_error = NULL;
  g_autoptr (JsonNode) root = NULL;

  if (text == NULL || !g_utf8_validate (text, len, NULL))
    {
      set_corrupt_error (self, row_id, _ ("not UTF-8 text"), error);
      return NULL;
    }
  root = agents_json_parse_bounded (text, len, _ ("item"), &local_error);
  if (root == NULL)
    {
      set_corrupt_error (self, row_id, local_error->message, error);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      set_corrupt_error (self, row_id, _ ("not a JSON object"), error);
      return NULL;
    }
  return json_object_ref (json_node_get_object (root));
}

static gboolean
step_done (AgentsSqliteSession *self, sqlite3_stmt *stmt, GError **error)
{
  int rc = sqlite3_step (stmt);

  if (rc != SQLITE_DONE)
    {
      set_sqlite_error (self, self->db, rc, error);
      return FALSE;
    }
  return TRUE;
}

static JsonArray *
select_items (AgentsSqliteSession *self, guint limit, GError **error)
{
  static const char all_sql[] = "SELECT id, message_data FROM agent_messages"
                                " WHERE session_id = ?1 ORDER BY id ASC";
  static const char latest_sql[] =
    "SELECT id, message_data FROM agent_messages"
    " WHERE session_id = ?1 ORDER BY id DESC LIMIT ?2";
  g_autoptr (GPtrArray) rows =
    g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  g_autoptr (JsonArray) items = NULL;
  sqlite3_stmt *stmt = prepare (self, limit > 0 ? latest_sql : all_sql, error);
  int rc;

  if (stmt == NULL)
    return NULL;
  sqlite3_bind_text (stmt, 1, self->session_id, -1, SQLITE_STATIC);
  if (limit > 0)
    sqlite3_bind_int64 (stmt, 2, limit);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      JsonObject *item = parse_row (self, stmt, error);

      if (item == NULL)
        break;
      g_ptr_array_add (rows, item);
    }
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    set_sqlite_error (self, self->db, rc, error);
  sqlite3_finalize (stmt);
  if (rc != SQLITE_DONE)
    return NULL;

  items = json_array_sized_new (rows->len);
  for (guint i = 0; i < rows->len; i++)
    {
      guint k = limit > 0 ? rows->len - 1 - i : i;

      json_array_add_object_element (items, json_object_ref (rows->pdata[k]));
    }
  return g_steal_pointer (&items);
}

static gboolean
insert_items (AgentsSqliteSession *self, GPtrArray *texts, GError **error)
{
  sqlite3_stmt *stmt;
  gboolean ok = TRUE;

  stmt = prepare (self,
                  "INSERT OR IGNORE INTO agent_sessions (session_id)"
                  " VALUES (?1)",
                  error);
  if (stmt == NULL)
    return FALSE;
  sqlite3_bind_text (stmt, 1, self->session_id, -1, SQLITE_STATIC);
  ok = step_done (self, stmt, error);
  sqlite3_finalize (stmt);
  if (!ok)
    return FALSE;

  stmt = prepare (self,
                  "INSERT INTO agent_messages (session_id, message_data)"
                  " VALUES (?1, ?2)",
                  error);
  if (stmt == NULL)
    return FALSE;
  sqlite3_bind_text (stmt, 1, self->session_id, -1, SQLITE_STATIC);
  for (guint i = 0; ok && i < texts->len; i++)
    {
      sqlite3_bind_text (stmt, 2, texts->pdata[i], -1, SQLITE_STATIC);
      ok = step_done (self, stmt, error);
      sqlite3_reset (stmt);
    }
  sqlite3_finalize (stmt);
  if (!ok)
    return FALSE;

  stmt = prepare (self,
                  "UPDATE agent_sessions SET updated_at = CURRENT_TIMESTAMP"
                  " WHERE session_id = ?1",
                  error);
  if (stmt == NULL)
    return FALSE;
  sqlite3_bind_text (stmt, 1, self->session_id, -1, SQLITE_STATIC);
  ok = step_done (self, stmt, error);
  sqlite3_finalize (stmt);
  return ok;
}

/* Removes the latest item; *item is NULL when there was none. */
static gboolean
delete_latest (AgentsSqliteSession *self, JsonObject **item, GError **error)
{
  g_autoptr (JsonObject) latest = NULL;
  sqlite3_stmt *stmt;
  gint64 row_id = 0;
  gboolean ok;
  int rc;

  stmt = prepare (self,
                  "SELECT id, message_data FROM agent_messages"
                  " WHERE session_id = ?1 ORDER BY id DESC LIMIT 1",
                  error);
  if (stmt == NULL)
    return FALSE;
  sqlite3_bind_text (stmt, 1, self->session_id, -1, SQLITE_STATIC);
  rc = sqlite3_step (stmt);
  if (rc == SQLITE_ROW)
    {
      row_id = sqlite3_column_int64 (stmt, 0);
      latest = parse_row (self, stmt, error);
      ok = latest != NULL;
    }
  else if (rc == SQLITE_DONE)
    ok = TRUE;
  else
    {
      set_sqlite_error (self, self->db, rc, error);
      ok = FALSE;
    }
  sqlite3_finalize (stmt);
  if (!ok || latest == NULL)
    return ok;

  stmt = prepare (self, "DELETE FROM agent_messages WHERE id = ?1", error);
  if (stmt == NULL)
    return FALSE;
  sqlite3_bind_int64 (stmt, 1, row_id);
  ok = step_done (self, stmt, error);
  sqlite3_finalize (stmt);
  if (ok)
    *item = g_steal_pointer (&latest);
  return ok;
}

static gboolean
delete_all (AgentsSqliteSession *self, GError **error)
{
  static const char *const sql[] = {
    "DELETE FROM agent_messages WHERE session_id = ?1",
    "DELETE FROM agent_sessions WHERE session_id = ?1",
  };

  for (guint i = 0; i < G_N_ELEMENTS (sql); i++)
    {
      sqlite3_stmt *stmt = prepare (self, sql[i], error);
      gboolean ok;

      if (stmt == NULL)
        return FALSE;
      sqlite3_bind_text (stmt, 1, self->session_id, -1, SQLITE_STATIC);
      ok = step_done (self, stmt, error);
      sqlite3_finalize (stmt);
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

static void
free_result (Op *op, gpointer result)
{
  if (result == NULL)
    return;
  if (op->kind == OP_GET_ITEMS)
    json_array_unref (result);
  else
    json_object_unref (result);
}

/* Runs @op as one transaction; *result is the JsonArray or JsonObject
 * the operation returns, if any. */
static gboolean
run_transaction (AgentsSqliteSession *self,
                 Op *op,
                 gpointer *result,
                 GError **error)
{
  gboolean writes = op->kind != OP_GET_ITEMS;
  gboolean ok = FALSE;

  *result = NULL;
  if (!exec_sql (self, self->db, writes ? "BEGIN IMMEDIATE" : "BEGIN", error))
    return FALSE;
  switch (op->kind)
    {
    case OP_GET_ITEMS:
      *result = select_items (self, op->limit, error);
      ok = *result != NULL;
      break;
    case OP_ADD_ITEMS:
      ok = insert_items (self, op->texts, error);
      break;
    case OP_POP_ITEM:
      ok = delete_latest (self, (JsonObject **) result, error);
      break;
    case OP_CLEAR:
      ok = delete_all (self, error);
      break;
    }
  if (ok && !exec_sql (self, self->db, "COMMIT", error))
    ok = FALSE;
  if (!ok)
    {
      sqlite3_exec (self->db, "ROLLBACK", NULL, NULL, NULL);
      free_result (op, g_steal_pointer (result));
    }
  return ok;
}

static gboolean
is_busy (int rc)
{
  return (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED;
}

/* Runs @op, retrying while other connections hold locks. The busy
 * timeout alone is not enough: SQLite fails at once instead of waiting
 * where waiting could deadlock (e.g. switching a new database to WAL). */
static gboolean
run_op (AgentsSqliteSession *self, Op *op, gpointer *result, GError **error)
{
  gint64 deadline = g_get_monotonic_time () + BUSY_TIMEOUT_MS * 1000;

  for (;;)
    {
      GError *local_error = NULL;

      self->last_rc = SQLITE_OK;
      if (ensure_open (self, &local_error) &&
          run_transaction (self, op, result, &local_error))
        return TRUE;
      if (!is_busy (self->last_rc) || g_get_monotonic_time () > deadline)
        {
          g_propagate_error (error, local_error);
          return FALSE;
        }
      g_error_free (local_error);
      g_usleep (g_random_int_range (1000, 20000));
    }
}

static void
op_thread (GTask *task,
           gpointer source_object,
           gpointer task_data,
           GCancellable *cancellable)
{
  AgentsSqliteSession *self = source_object;
  Op *op = task_data;
  g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&self->lock);
  GError *error = NULL;
  gpointer result = NULL;

  if (g_task_return_error_if_cancelled (task))
    return;
  if (!run_op (self, op, &result, &error))
    g_task_return_error (task, error);
  else if (op->kind == OP_GET_ITEMS)
    g_task_return_pointer (task, result, (GDestroyNotify) json_array_unref);
  else if (op->kind == OP_POP_ITEM)
    g_task_return_pointer (task, result, (GDestroyNotify) json_object_unref);
  else
    g_task_return_boolean (task, TRUE);
}

static void
start_op (AgentsSqliteSession *self, Op *op, GTask *task)
{
  g_task_set_task_data (task, op, (GDestroyNotify) op_free);
  g_task_run_in_thread (task, op_thread);
}

static const char *
sqlite_get_session_id (AgentsConversationSession *session)
{
  return AGENTS_SQLITE_SESSION (session)->session_id;
}

static void
sqlite_get_items (AgentsConversationSession *session, guint limit, GTask *task)
{
  Op *op = g_new0 (Op, 1);

  op->kind = OP_GET_ITEMS;
  op->limit = limit;
  start_op (AGENTS_SQLITE_SESSION (session), op, task);
}

static char *
item_to_text (JsonNode *item)
{
  g_autoptr (JsonGenerator) generator = json_generator_new ();

  json_generator_set_root (generator, item);
  return json_generator_to_data (generator, NULL);
}

static void
sqlite_add_items (AgentsConversationSession *session,
                  JsonArray *items,
                  GTask *task)
{
  guint n = json_array_get_length (items);
  Op *op;

  if (n == 0)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  /* Serialized here: the caller's JSON must not be read from a worker. */
  op = g_new0 (Op, 1);
  op->kind = OP_ADD_ITEMS;
  op->texts = g_ptr_array_new_full (n, g_free);
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (op->texts,
                     item_to_text (json_array_get_element (items, i)));
  start_op (AGENTS_SQLITE_SESSION (session), op, task);
}

static void
sqlite_pop_item (AgentsConversationSession *session, GTask *task)
{
  Op *op = g_new0 (Op, 1);

  op->kind = OP_POP_ITEM;
  start_op (AGENTS_SQLITE_SESSION (session), op, task);
}

static void
sqlite_clear (AgentsConversationSession *session, GTask *task)
{
  Op *op = g_new0 (Op, 1);

  op->kind = OP_CLEAR;
  start_op (AGENTS_SQLITE_SESSION (session), op, task);
}

static void
agents_sqlite_session_iface_init (AgentsConversationSessionInterface *iface)
{
  iface->get_session_id = sqlite_get_session_id;
  iface->get_items = sqlite_get_items;
  iface->add_items = sqlite_add_items;
  iface->pop_item = sqlite_pop_item;
  iface->clear = sqlite_clear;
}

static void
agents_sqlite_session_constructed (GObject *object)
{
  AgentsSqliteSession *self = AGENTS_SQLITE_SESSION (object);

  G_OBJECT_CLASS (agents_sqlite_session_parent_class)->constructed (object);

  if (self->session_id == NULL)
    self->session_id = g_strdup ("");
  if (self->db_path == NULL)
    self->db_path = g_strdup (":memory:");
}

static void
agents_sqlite_session_finalize (GObject *object)
{
  AgentsSqliteSession *self = AGENTS_SQLITE_SESSION (object);

  g_clear_pointer (&self->db, sqlite3_close_v2);
  g_free (self->session_id);
  g_free (self->db_path);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (agents_sqlite_session_parent_class)->finalize (object);
}

static void
agents_sqlite_session_get_property (GObject *object,
                                    guint prop_id,
                                    GValue *value,
                                    GParamSpec *pspec)
{
  AgentsSqliteSession *self = AGENTS_SQLITE_SESSION (object);

  switch (prop_id)
    {
    case PROP_SESSION_ID:
      g_value_set_string (value, self->session_id);
      break;
    case PROP_DB_PATH:
      g_value_set_string (value, self->db_path);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_sqlite_session_set_property (GObject *object,
                                    guint prop_id,
                                    const GValue *value,
                                    GParamSpec *pspec)
{
  AgentsSqliteSession *self = AGENTS_SQLITE_SESSION (object);

  switch (prop_id)
    {
    case PROP_SESSION_ID:
      g_free (self->session_id);
      self->session_id = g_value_dup_string (value);
      break;
    case PROP_DB_PATH:
      g_free (self->db_path);
      self->db_path = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_sqlite_session_class_init (AgentsSqliteSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = agents_sqlite_session_constructed;
  object_class->finalize = agents_sqlite_session_finalize;
  object_class->get_property = agents_sqlite_session_get_property;
  object_class->set_property = agents_sqlite_session_set_property;

  /**
   * AgentsSqliteSession:db-path:
   *
   * The database file, or `":memory:"` (the default) for a database
   * private to this object.
   */
  properties[PROP_DB_PATH] =
    g_param_spec_string ("db-path", NULL, NULL, ":memory:",
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                           G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, N_PROPS, properties);
  g_object_class_override_property (object_class, PROP_SESSION_ID,
                                    "session-id");
}

static void
agents_sqlite_session_init (AgentsSqliteSession *self)
{
  g_mutex_init (&self->lock);
}

/**
 * agents_sqlite_session_new:
 * @session_id: the id of the conversation
 * @db_path: (type filename) (nullable): the database file, created if
 *   needed, or `":memory:"` or %NULL for an in-memory database
 *
 * Creates a conversation session stored in an SQLite database. Nothing is
 * opened until the first operation, which creates the tables if needed.
 *
 * Returns: (transfer full): a new #AgentsSqliteSession
 */
AgentsSqliteSession *
agents_sqlite_session_new (const char *session_id, const char *db_path)
{
  g_return_val_if_fail (session_id != NULL, NULL);

  return g_object_new (AGENTS_TYPE_SQLITE_SESSION, "session-id", session_id,
                       "db-path", db_path != NULL ? db_path : ":memory:", NULL);
}

/**
 * agents_sqlite_session_get_db_path:
 * @self: a session
 *
 * Gets the database file, or `":memory:"`.
 *
 * Returns: (transfer none) (type filename): the database path
 */
const char *
agents_sqlite_session_get_db_path (AgentsSqliteSession *self)
{
  g_return_val_if_fail (AGENTS_IS_SQLITE_SESSION (self), NULL);

  return self->db_path;
}
