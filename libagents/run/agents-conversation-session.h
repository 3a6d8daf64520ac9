/* agents-conversation-session.h - conversation history kept across runs
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "agents-version-macros.h"

G_BEGIN_DECLS

#define AGENTS_CONVERSATION_SESSION_ERROR \
  (agents_conversation_session_error_quark ())

/**
 * AgentsConversationSessionError:
 * @AGENTS_CONVERSATION_SESSION_ERROR_FAILED: the storage failed (the
 *   SQLite session's database, for one); the context has `session_id`,
 *   `db_path` and, from SQLite, `sqlite_code`
 * @AGENTS_CONVERSATION_SESSION_ERROR_NOT_SUPPORTED: the session does not
 *   implement the operation
 * @AGENTS_CONVERSATION_SESSION_ERROR_INVALID_ITEM: an item to add is not a
 *   JSON object; the context has `index`
 * @AGENTS_CONVERSATION_SESSION_ERROR_CORRUPT_ITEM: a stored item is not a
 *   JSON object; the context has `message_id`
 *
 * Error codes of the %AGENTS_CONVERSATION_SESSION_ERROR domain. Its errors
 * carry a context dictionary, see agents_error_get_context().
 *
 * Codes are only ever appended.
 */
typedef enum
{
  AGENTS_CONVERSATION_SESSION_ERROR_FAILED,
  AGENTS_CONVERSATION_SESSION_ERROR_NOT_SUPPORTED,
  AGENTS_CONVERSATION_SESSION_ERROR_INVALID_ITEM,
  AGENTS_CONVERSATION_SESSION_ERROR_CORRUPT_ITEM,
} AgentsConversationSessionError;

AGENTS_AVAILABLE_IN_1_0
GQuark agents_conversation_session_error_quark (void);

#define AGENTS_TYPE_CONVERSATION_SESSION \
  (agents_conversation_session_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_INTERFACE (AgentsConversationSession,
                     agents_conversation_session,
                     AGENTS,
                     CONVERSATION_SESSION,
                     GObject)

/**
 * AgentsConversationSessionInterface:
 * @get_session_id: returns the session's id; the default returns the
 *   #AgentsConversationSession:session-id property
 * @get_items: gets the latest @limit items (all of them when @limit is 0)
 *   in chronological order; the task returns a #JsonArray, see
 *   agents_conversation_session_return_items()
 * @add_items: appends the objects of @items to the history; the task
 *   returns a boolean
 * @pop_item: removes the latest item; the task returns it as a
 *   #JsonObject, or %NULL when the history is empty, see
 *   agents_conversation_session_return_item()
 * @clear: removes every item; the task returns a boolean
 *
 * The contract of a conversation session: storage for the items of a
 * conversation (OpenAI Responses input items) that the runner prepends to
 * a run's input and extends with what the run produced.
 *
 * Vfuncs take the #GTask that the public `_async` function created and
 * must complete it; they are called on the thread of the task's main
 * context. The default implementations fail with
 * %AGENTS_CONVERSATION_SESSION_ERROR_NOT_SUPPORTED.
 */
struct _AgentsConversationSessionInterface
{
  GTypeInterface g_iface;

  const char *(*get_session_id) (AgentsConversationSession *self);
  void (*get_items) (AgentsConversationSession *self, guint limit, GTask *task);
  void (*add_items) (AgentsConversationSession *self,
                     JsonArray *items,
                     GTask *task);
  void (*pop_item) (AgentsConversationSession *self, GTask *task);
  void (*clear) (AgentsConversationSession *self, GTask *task);

  /*< private >*/
  gpointer padding[8];
};

AGENTS_AVAILABLE_IN_1_0
const char *
agents_conversation_session_get_session_id (AgentsConversationSession *self);

AGENTS_AVAILABLE_IN_1_0
void
agents_conversation_session_get_items_async (AgentsConversationSession *self,
                                             guint limit,
                                             GCancellable *cancellable,
                                             GAsyncReadyCallback callback,
                                             gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
JsonArray *agents_conversation_session_get_items_finish (
  AgentsConversationSession *self, GAsyncResult *result, GError **error);

AGENTS_AVAILABLE_IN_1_0
void
agents_conversation_session_add_items_async (AgentsConversationSession *self,
                                             JsonArray *items,
                                             GCancellable *cancellable,
                                             GAsyncReadyCallback callback,
                                             gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_conversation_session_add_items_finish (
  AgentsConversationSession *self, GAsyncResult *result, GError **error);

AGENTS_AVAILABLE_IN_1_0
void
agents_conversation_session_pop_item_async (AgentsConversationSession *self,
                                            GCancellable *cancellable,
                                            GAsyncReadyCallback callback,
                                            gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
JsonObject *agents_conversation_session_pop_item_finish (
  AgentsConversationSession *self, GAsyncResult *result, GError **error);

AGENTS_AVAILABLE_IN_1_0
void agents_conversation_session_clear_async (AgentsConversationSession *self,
                                              GCancellable *cancellable,
                                              GAsyncReadyCallback callback,
                                              gpointer user_data);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_conversation_session_clear_finish (
  AgentsConversationSession *self, GAsyncResult *result, GError **error);

AGENTS_AVAILABLE_IN_1_0
void agents_conversation_session_return_items (GTask *task, JsonArray *items);
AGENTS_AVAILABLE_IN_1_0
void agents_conversation_session_return_item (GTask *task, JsonObject *item);

#define AGENTS_TYPE_MEMORY_SESSION (agents_memory_session_get_type ())

AGENTS_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (
  AgentsMemorySession, agents_memory_session, AGENTS, MEMORY_SESSION, GObject)

AGENTS_AVAILABLE_IN_1_0
AgentsMemorySession *
agents_memory_session_new (const char *session_id) G_GNUC_WARN_UNUSED_RESULT;

G_END_DECLS
