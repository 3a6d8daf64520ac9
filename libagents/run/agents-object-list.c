/* agents-object-list.c - an append-mostly list model over an array
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-object-list-private.h"

struct _AgentsObjectList
{
  GObject parent_instance;

  GType item_type;
  GPtrArray *items;
};

static void agents_object_list_model_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  AgentsObjectList,
  agents_object_list,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, agents_object_list_model_init))

static void
agents_object_list_finalize (GObject *object)
{
  AgentsObjectList *self = AGENTS_OBJECT_LIST (object);

  g_ptr_array_unref (self->items);

  G_OBJECT_CLASS (agents_object_list_parent_class)->finalize (object);
}

static void
agents_object_list_class_init (AgentsObjectListClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = agents_object_list_finalize;
}

static void
agents_object_list_init (AgentsObjectList *self)
{
  self->items = g_ptr_array_new_with_free_func (g_object_unref);
}

static GType
list_get_item_type (GListModel *list)
{
  return AGENTS_OBJECT_LIST (list)->item_type;
}

static guint
list_get_n_items (GListModel *list)
{
  return AGENTS_OBJECT_LIST (list)->items->len;
}

static gpointer
list_get_item (GListModel *list, guint position)
{
  GPtrArray *items = AGENTS_OBJECT_LIST (list)->items;

  return position < items->len ? g_object_ref (items->pdata[position]) : NULL;
}

static void
agents_object_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = list_get_item_type;
  iface->get_n_items = list_get_n_items;
  iface->get_item = list_get_item;
}

AgentsObjectList *
agents_object_list_new (GType item_type)
{
  AgentsObjectList *self = g_object_new (AGENTS_TYPE_OBJECT_LIST, NULL);

  g_return_val_if_fail (g_type_is_a (item_type, G_TYPE_OBJECT), self);
  self->item_type = item_type;
  return self;
}

void
agents_object_list_append (AgentsObjectList *self, gpointer item)
{
  g_return_if_fail (AGENTS_IS_OBJECT_LIST (self));
  g_return_if_fail (g_type_is_a (G_OBJECT_TYPE (item), self->item_type));

  g_ptr_array_add (self->items, g_object_ref (item));
  g_list_model_items_changed (G_LIST_MODEL (self), self->items->len - 1, 0, 1);
}

void
agents_object_list_set (AgentsObjectList *self, GPtrArray *items)
{
  guint removed;
  guint added = items != NULL ? items->len : 0;

  g_return_if_fail (AGENTS_IS_OBJECT_LIST (self));

  removed = self->items->len;
  /* Referenced before the old ones go: @items may share them. */
  for (guint i = 0; i < added; i++)
    g_object_ref (items->pdata[i]);
  g_ptr_array_set_size (self->items, 0);
  for (guint i = 0; i < added; i++)
    g_ptr_array_add (self->items, items->pdata[i]);
  if (removed > 0 || added > 0)
    g_list_model_items_changed (G_LIST_MODEL (self), 0, removed, added);
}
