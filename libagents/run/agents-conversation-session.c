/* agents-conversation-session.c - conversation history kept across runs
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-conversation-session.h"
#include "agents-error.h"

/**
 * AgentsConversationSession:
 *
 * Storage for the items of a conversation, kept across runs: before a
 * run's first turn the runner prepends the session's items to the input,
 * and after the run it adds the run's new input and output items.
 *
 * Items are OpenAI Responses input items, i.e. JSON objects such as
 * `{"role": "user", "content": "hello"}`. Implementations store copies:
 * changing an item after it was added or returned does not change the
 * session.
 *
 * Built-in implementations are #AgentsMemorySession and
 * #AgentsSqliteSession; other languages implement the interface's vfuncs
 * and complete their tasks with agents_conversation_session_return_items()
 * and agents_conversation_session_return_item().
 */

/**
 * AGENTS_CONVERSATION_SESSION_ERROR:
 *
 * The error domain of conversation sessions. Codes are
 * #AgentsConversationSessionError.
 */

/**
 * agents_conversation_session_error_quark:
 *
 * Gets the quark of the %AGENTS_CONVERSATION_SESSION_ERROR domain.
 *
 * Returns: the quark
 */
AGENTS_DEFINE_ERROR_QUARK (agents_conversation_session_error,
                           "agents-conversation-session-error-quark")

G_DEFINE_INTERFACE (AgentsConversationSession,
                    agents_conversation_session,
                    G_TYPE_OBJECT)

static GQuark session_id_quark;

static const char *
default_get_session_id (AgentsConversationSession *self)
{
  char *id = NULL;

  /* The property is the implementation's; keep the copy alive as long as
   * the object, refreshing it on each call. */
  g_object_get (self, "session-id", &id, NULL);
  g_object_set_qdata_full (G_OBJECT (self), session_id_quark, id, g_free);
  return id;
}

static void
return_not_supported (AgentsConversationSession *self,
                      GTask *task,
                      const char *operation)
{
  g_task_return_error (
    task, agents_error_new (AGENTS_CONVERSATION_SESSION_ERROR,
                            AGENTS_CONVERSATION_SESSION_ERROR_NOT_SUPPORTED,
                            NULL, _ ("%s does not support %s"),
                            G_OBJECT_TYPE_NAME (self), operation));
}

static void
default_get_items (AgentsConversationSession *self, guint limit, GTask *task)
{
  return_not_supported (self, task, "get_items");
}

static void
default_add_items (AgentsConversationSession *self,
                   JsonArray *items,
                   GTask *task)
{
  return_not_supported (self, task, "add_items");
}

static void
default_pop_item (AgentsConversationSession *self, GTask *task)
{
  return_not_supported (self, task, "pop_item");
}

static void
default_clear (AgentsConversationSession *self, GTask *task)
{
  return_not_supported (self, task, "clear");
}

static void
agents_conversation_session_default_init (
  AgentsConversationSessionInterface *iface)
{
  session_id_quark =
    g_quark_from_static_string ("agents-conversation-session-id");

  iface->get_session_id = default_get_session_id;
  iface->get_items = default_get_items;
  iface->add_items = default_add_items;
  iface->pop_item = default_pop_item;
  iface->clear = default_clear;

  /**
   * AgentsConversationSession:session-id:
   *
   * The id of the conversation: sessions with the same id on the same
   * storage share their items.
   */
  g_object_interface_install_property (
    iface,
    g_param_spec_string ("session-id", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                           G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY));
}

#define IFACE(self) AGENTS_CONVERSATION_SESSION_GET_IFACE (self)

static GTask *
new_task (AgentsConversationSession *self,
          GCancellable *cancellable,
          GAsyncReadyCallback callback,
          gpointer user_data,
          gpointer source_tag)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, source_tag);
  return task;
}

/**
 * agents_conversation_session_get_session_id:
 * @self: a conversation session
 *
 * Gets the id of the conversation.
 *
 * Returns: (transfer none) (nullable): the session id
 */
const char *
agents_conversation_session_get_session_id (AgentsConversationSession *self)
{
  g_return_val_if_fail (AGENTS_IS_CONVERSATION_SESSION (self), NULL);

  return IFACE (self)->get_session_id (self);
}

/**
 * agents_conversation_session_get_items_async:
 * @self: a conversation session
 * @limit: how many of the latest items to get, 0 for all
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the items are ready
 * @user_data: data for @callback
 *
 * Gets the latest @limit items of the conversation, oldest first.
 */
void
agents_conversation_session_get_items_async (AgentsConversationSession *self,
                                             guint limit,
                                             GCancellable *cancellable,
                                             GAsyncReadyCallback callback,
                                             gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_CONVERSATION_SESSION (self));

  task = new_task (self, cancellable, callback, user_data,
                   agents_conversation_session_get_items_async);
  IFACE (self)->get_items (self, limit, task);
}

/**
 * agents_conversation_session_get_items_finish:
 * @self: a conversation session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_conversation_session_get_items_async().
 *
 * Returns: (transfer full): the items (JSON objects), oldest first, or
 *   %NULL on error
 */
JsonArray *
agents_conversation_session_get_items_finish (AgentsConversationSession *self,
                                              GAsyncResult *result,
                                              GError **error)
{
  g_return_val_if_fail (AGENTS_IS_CONVERSATION_SESSION (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static gboolean
check_items (JsonArray *items, GError **error)
{
  guint n = json_array_get_length (items);

  for (guint i = 0; i < n; i++)
    {
      if (!JSON_NODE_HOLDS_OBJECT (json_array_get_element (items, i)))
        {
          g_autoptr (GVariantDict) ctx = g_variant_dict_new (NULL);

          g_variant_dict_insert (ctx, "index", "u", i);
          agents_error_set (error, AGENTS_CONVERSATION_SESSION_ERROR,
                            AGENTS_CONVERSATION_SESSION_ERROR_INVALID_ITEM,
                            g_variant_dict_end (ctx),
                            _ ("Conversation item %u is not a JSON object"), i);
          return FALSE;
        }
    }
  return TRUE;
}

/**
 * agents_conversation_session_add_items_async:
 * @self: a conversation session
 * @items: the items to append, JSON objects
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the items are stored
 * @user_data: data for @callback
 *
 * Appends copies of @items to the conversation, in order. An element of
 * @items that is not a JSON object fails the whole operation with
 * %AGENTS_CONVERSATION_SESSION_ERROR_INVALID_ITEM before anything is
 * stored.
 */
void
agents_conversation_session_add_items_async (AgentsConversationSession *self,
                                             JsonArray *items,
                                             GCancellable *cancellable,
                                             GAsyncReadyCallback callback,
                                             gpointer user_data)
{
  g_autoptr (GTask) task = NULL;
  GError *error = NULL;

  g_return_if_fail (AGENTS_IS_CONVERSATION_SESSION (self));
  g_return_if_fail (items != NULL);

  task = new_task (self, cancellable, callback, user_data,
                   agents_conversation_session_add_items_async);
  if (!check_items (items, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  IFACE (self)->add_items (self, items, task);
}

/**
 * agents_conversation_session_add_items_finish:
 * @self: a conversation session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_conversation_session_add_items_async().
 *
 * Returns: %TRUE on success
 */
gboolean
agents_conversation_session_add_items_finish (AgentsConversationSession *self,
                                              GAsyncResult *result,
                                              GError **error)
{
  g_return_val_if_fail (AGENTS_IS_CONVERSATION_SESSION (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * agents_conversation_session_pop_item_async:
 * @self: a conversation session
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the item is removed
 * @user_data: data for @callback
 *
 * Removes the latest item of the conversation and returns it.
 */
void
agents_conversation_session_pop_item_async (AgentsConversationSession *self,
                                            GCancellable *cancellable,
                                            GAsyncReadyCallback callback,
                                            gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_CONVERSATION_SESSION (self));

  task = new_task (self, cancellable, callback, user_data,
                   agents_conversation_session_pop_item_async);
  IFACE (self)->pop_item (self, task);
}

/**
 * agents_conversation_session_pop_item_finish:
 * @self: a conversation session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_conversation_session_pop_item_async(). %NULL without an
 * error means that the conversation was empty.
 *
 * Returns: (transfer full) (nullable): the removed item, or %NULL
 */
JsonObject *
agents_conversation_session_pop_item_finish (AgentsConversationSession *self,
                                             GAsyncResult *result,
                                             GError **error)
{
  g_return_val_if_fail (AGENTS_IS_CONVERSATION_SESSION (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * agents_conversation_session_clear_async:
 * @self: a conversation session
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when the conversation is empty
 * @user_data: data for @callback
 *
 * Removes every item of the conversation.
 */
void
agents_conversation_session_clear_async (AgentsConversationSession *self,
                                         GCancellable *cancellable,
                                         GAsyncReadyCallback callback,
                                         gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (AGENTS_IS_CONVERSATION_SESSION (self));

  task = new_task (self, cancellable, callback, user_data,
                   agents_conversation_session_clear_async);
  IFACE (self)->clear (self, task);
}

/**
 * agents_conversation_session_clear_finish:
 * @self: a conversation session
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes agents_conversation_session_clear_async().
 *
 * Returns: %TRUE on success
 */
gboolean
agents_conversation_session_clear_finish (AgentsConversationSession *self,
                                          GAsyncResult *result,
                                          GError **error)
{
  g_return_val_if_fail (AGENTS_IS_CONVERSATION_SESSION (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * agents_conversation_session_return_items:
 * @task: the task given to a @get_items vfunc
 * @items: the items, oldest first
 *
 * Completes the task of an #AgentsConversationSessionInterface.get_items
 * implementation. Implementations in other languages must complete the
 * task this way; C implementations may also call g_task_return_pointer()
 * with json_array_unref() as destroy function.
 */
void
agents_conversation_session_return_items (GTask *task, JsonArray *items)
{
  g_return_if_fail (G_IS_TASK (task));
  g_return_if_fail (items != NULL);

  g_task_return_pointer (task, json_array_ref (items),
                         (GDestroyNotify) json_array_unref);
}

/**
 * agents_conversation_session_return_item:
 * @task: the task given to a @pop_item vfunc
 * @item: (nullable): the removed item, or %NULL if there was none
 *
 * Completes the task of an #AgentsConversationSessionInterface.pop_item
 * implementation. Implementations in other languages must complete the
 * task this way; C implementations may also call g_task_return_pointer()
 * with json_object_unref() as destroy function.
 */
void
agents_conversation_session_return_item (GTask *task, JsonObject *item)
{
  g_return_if_fail (G_IS_TASK (task));

  g_task_return_pointer (task, item != NULL ? json_object_ref (item) : NULL,
                         (GDestroyNotify) json_object_unref);
}

/* ---- AgentsMemorySession ---------------------------------------------- */

/**
 * AgentsMemorySession:
 *
 * A conversation session kept in memory, for one process. Items are
 * stored as JSON text, exactly as #AgentsSqliteSession stores them, so
 * both behave the same.
 */
struct _AgentsMemorySession
{
  GObject parent_instance;

  char *session_id;
  GMutex lock;
  GPtrArray *items; /* JSON text of each item, oldest first */
};

static void
agents_memory_session_iface_init (AgentsConversationSessionInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  AgentsMemorySession,
  agents_memory_session,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_CONVERSATION_SESSION,
                         agents_memory_session_iface_init))

enum
{
  PROP_0,
  PROP_SESSION_ID,
  N_PROPS
};

static char *
item_to_text (JsonNode *item)
{
  g_autoptr (JsonGenerator) generator = json_generator_new ();

  json_generator_set_root (generator, item);
  return json_generator_to_data (generator, NULL);
}

static JsonNode *
item_from_text (const char *text)
{
  g_autoptr (JsonParser) parser = json_parser_new ();

  /* The text was made by item_to_text(): it always parses. */
  if (!json_parser_load_from_data (parser, text, -1, NULL))
    g_return_val_if_reached (NULL);
  return json_parser_steal_root (parser);
}

static const char *
memory_get_session_id (AgentsConversationSession *session)
{
  return AGENTS_MEMORY_SESSION (session)->session_id;
}

static void
memory_get_items (AgentsConversationSession *session, guint limit, GTask *task)
{
  AgentsMemorySession *self = AGENTS_MEMORY_SESSION (session);
  g_autoptr (JsonArray) result = json_array_new ();
  g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&self->lock);
  guint start = 0;

  if (limit > 0 && limit < self->items->len)
    start = self->items->len - limit;
  for (guint i = start; i < self->items->len; i++)
    json_array_add_element (result, item_from_text (self->items->pdata[i]));
  g_clear_pointer (&locker, g_mutex_locker_free);
  agents_conversation_session_return_items (task, result);
}

static void
memory_add_items (AgentsConversationSession *session,
                  JsonArray *items,
                  GTask *task)
{
  AgentsMemorySession *self = AGENTS_MEMORY_SESSION (session);
  guint n = json_array_get_length (items);
  g_autoptr (GPtrArray) texts = g_ptr_array_new_full (n, g_free);

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (texts, item_to_text (json_array_get_element (items, i)));
  g_mutex_lock (&self->lock);
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (self->items, g_steal_pointer (&texts->pdata[i]));
  g_mutex_unlock (&self->lock);
  g_task_return_boolean (task, TRUE);
}

static void
memory_pop_item (AgentsConversationSession *session, GTask *task)
{
  AgentsMemorySession *self = AGENTS_MEMORY_SESSION (session);
  g_autofree char *text = NULL;
  g_autoptr (JsonNode) node = NULL;

  g_mutex_lock (&self->lock);
  if (self->items->len > 0)
    text = g_ptr_array_steal_index (self->items, self->items->len - 1);
  g_mutex_unlock (&self->lock);
  if (text != NULL)
    node = item_from_text (text);
  agents_conversation_session_return_item (
    task, node != NULL ? json_node_get_object (node) : NULL);
}

static void
memory_clear (AgentsConversationSession *session, GTask *task)
{
  AgentsMemorySession *self = AGENTS_MEMORY_SESSION (session);

  g_mutex_lock (&self->lock);
  g_ptr_array_set_size (self->items, 0);
  g_mutex_unlock (&self->lock);
  g_task_return_boolean (task, TRUE);
}

static void
agents_memory_session_iface_init (AgentsConversationSessionInterface *iface)
{
  iface->get_session_id = memory_get_session_id;
  iface->get_items = memory_get_items;
  iface->add_items = memory_add_items;
  iface->pop_item = memory_pop_item;
  iface->clear = memory_clear;
}

static void
agents_memory_session_finalize (GObject *object)
{
  AgentsMemorySession *self = AGENTS_MEMORY_SESSION (object);

  g_free (self->session_id);
  g_ptr_array_unref (self->items);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (agents_memory_session_parent_class)->finalize (object);
}

static void
agents_memory_session_get_property (GObject *object,
                                    guint prop_id,
                                    GValue *value,
                                    GParamSpec *pspec)
{
  AgentsMemorySession *self = AGENTS_MEMORY_SESSION (object);

  switch (prop_id)
    {
    case PROP_SESSION_ID:
      g_value_set_string (value, self->session_id);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_memory_session_set_property (GObject *object,
                                    guint prop_id,
                                    const GValue *value,
                                    GParamSpec *pspec)
{
  AgentsMemorySession *self = AGENTS_MEMORY_SESSION (object);

  switch (prop_id)
    {
    case PROP_SESSION_ID:
      g_free (self->session_id);
      self->session_id = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_memory_session_class_init (AgentsMemorySessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = agents_memory_session_finalize;
  object_class->get_property = agents_memory_session_get_property;
  object_class->set_property = agents_memory_session_set_property;

  g_object_class_override_property (object_class, PROP_SESSION_ID,
                                    "session-id");
}

static void
agents_memory_session_init (AgentsMemorySession *self)
{
  g_mutex_init (&self->lock);
  self->items = g_ptr_array_new_with_free_func (g_free);
}

/**
 * agents_memory_session_new:
 * @session_id: (nullable): the id of the conversation
 *
 * Creates an empty conversation session kept in memory.
 *
 * Returns: (transfer full): a new #AgentsMemorySession
 */
AgentsMemorySession *
agents_memory_session_new (const char *session_id)
{
  return g_object_new (AGENTS_TYPE_MEMORY_SESSION, "session-id", session_id,
                       NULL);
}
