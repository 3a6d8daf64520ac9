/* agents-noop-snapshot.c - the snapshot that keeps nothing
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "agents-sandbox-error-private.h"
#include "agents-snapshot-private.h"
#include "agents-snapshot.h"

/* ---- noop ------------------------------------------------------------- */

/**
 * AgentsNoopSnapshot:
 *
 * A snapshot that stores nothing: persisting reads the archive and drops
 * it, and there is never anything to restore. JSON: `{"type": "noop",
 * "id": …}`.
 */

struct _AgentsNoopSnapshot
{
  GObject parent_instance;

  char *id;
};

enum
{
  NOOP_PROP_0,
  NOOP_PROP_ID,
  NOOP_N_PROPS
};

static GParamSpec *noop_properties[NOOP_N_PROPS];

static void agents_noop_snapshot_iface_init (AgentsSnapshotInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  AgentsNoopSnapshot,
  agents_noop_snapshot,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_SNAPSHOT, agents_noop_snapshot_iface_init))

static void
agents_noop_snapshot_finalize (GObject *object)
{
  g_free (AGENTS_NOOP_SNAPSHOT (object)->id);
  G_OBJECT_CLASS (agents_noop_snapshot_parent_class)->finalize (object);
}

static void
agents_noop_snapshot_get_property (GObject *object,
                                   guint prop_id,
                                   GValue *value,
                                   GParamSpec *pspec)
{
  AgentsNoopSnapshot *self = AGENTS_NOOP_SNAPSHOT (object);

  switch (prop_id)
    {
    case NOOP_PROP_ID:
      g_value_set_string (value, self->id);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_noop_snapshot_set_property (GObject *object,
                                   guint prop_id,
                                   const GValue *value,
                                   GParamSpec *pspec)
{
  AgentsNoopSnapshot *self = AGENTS_NOOP_SNAPSHOT (object);

  switch (prop_id)
    {
    case NOOP_PROP_ID:
      g_free (self->id);
      self->id = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_noop_snapshot_class_init (AgentsNoopSnapshotClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = agents_noop_snapshot_finalize;
  object_class->get_property = agents_noop_snapshot_get_property;
  object_class->set_property = agents_noop_snapshot_set_property;

  /**
   * AgentsNoopSnapshot:id:
   *
   * The snapshot id.
   */
  noop_properties[NOOP_PROP_ID] =
    g_param_spec_string ("id", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                           G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, NOOP_N_PROPS,
                                     noop_properties);
}

static void
agents_noop_snapshot_init (AgentsNoopSnapshot *self)
{
}

static const char *
agents_noop_snapshot_get_snapshot_type (AgentsSnapshot *snapshot)
{
  return "noop";
}

static const char *
agents_noop_snapshot_get_id (AgentsSnapshot *snapshot)
{
  return AGENTS_NOOP_SNAPSHOT (snapshot)->id;
}

static void noop_read_next (GTask *task);

static void
noop_read_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  g_autoptr (GError) error = NULL;
  gssize n =
    g_input_stream_read_finish (G_INPUT_STREAM (source), result, &error);

  /* The data is dropped anyway, so only a cancellation is a failure. */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_task_return_error (task, g_steal_pointer (&error));
  else if (n <= 0)
    g_task_return_boolean (task, TRUE);
  else
    noop_read_next (g_steal_pointer (&task));
}

static void
noop_read_next (GTask *task)
{
  GInputStream *data =
    G_INPUT_STREAM (g_object_get_data (G_OBJECT (task), "agents-input"));

  g_input_stream_read_async (data, g_task_get_task_data (task),
                             AGENTS_SNAPSHOT_CHUNK_SIZE, G_PRIORITY_DEFAULT,
                             g_task_get_cancellable (task), noop_read_cb, task);
}

static void
agents_noop_snapshot_persist (AgentsSnapshot *snapshot,
                              GInputStream *data,
                              GTask *task)
{
  g_task_set_task_data (task, g_malloc (AGENTS_SNAPSHOT_CHUNK_SIZE), g_free);
  g_object_set_data_full (G_OBJECT (task), "agents-input", g_object_ref (data),
                          g_object_unref);
  noop_read_next (g_object_ref (task));
}

static void
agents_noop_snapshot_restore (AgentsSnapshot *snapshot, GTask *task)
{
  g_auto (GVariantBuilder) ctx =
    G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  const char *id = AGENTS_NOOP_SNAPSHOT (snapshot)->id;

  agents_snapshot_add_context (&ctx, id, "<noop>", NULL);
  g_task_return_error (task, agents_sandbox_error_new (
                               AGENTS_SANDBOX_ERROR_SNAPSHOT_NOT_RESTORABLE,
                               g_variant_builder_end (&ctx),
                               _ ("snapshot is not restorable")));
}

static void
agents_noop_snapshot_restorable (AgentsSnapshot *snapshot, GTask *task)
{
  g_task_return_boolean (task, FALSE);
}

static void
agents_noop_snapshot_iface_init (AgentsSnapshotInterface *iface)
{
  iface->get_snapshot_type = agents_noop_snapshot_get_snapshot_type;
  iface->get_id = agents_noop_snapshot_get_id;
  iface->persist = agents_noop_snapshot_persist;
  iface->restore = agents_noop_snapshot_restore;
  iface->restorable = agents_noop_snapshot_restorable;
}

/**
 * agents_noop_snapshot_new:
 * @id: the snapshot id
 *
 * Creates a snapshot that stores nothing.
 *
 * Returns: (transfer full): the snapshot
 */
AgentsSnapshot *
agents_noop_snapshot_new (const char *id)
{
  return g_object_new (AGENTS_TYPE_NOOP_SNAPSHOT, "id", id, NULL);
}
