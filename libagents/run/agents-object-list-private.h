/* agents-object-list-private.h - an append-mostly list model over an array
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* A GListModel of objects of one type, kept in a GPtrArray: appending
 * and reading an item cost the same whatever the length. GListStore keeps
 * a balanced tree instead, whose every append walks from a leaf to the
 * root; a run appends three objects a turn and keeps thousands. */
#define AGENTS_TYPE_OBJECT_LIST (agents_object_list_get_type ())
G_DECLARE_FINAL_TYPE (
  AgentsObjectList, agents_object_list, AGENTS, OBJECT_LIST, GObject)

AgentsObjectList *agents_object_list_new (GType item_type);
void agents_object_list_append (AgentsObjectList *self, gpointer item);
/* Replaces every item with those of @items (referenced); %NULL empties. */
void agents_object_list_set (AgentsObjectList *self, GPtrArray *items);

G_END_DECLS
