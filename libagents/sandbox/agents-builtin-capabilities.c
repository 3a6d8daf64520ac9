/* agents-builtin-capabilities.c - shell, filesystem, compaction, memory
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-builtin-capabilities.h"

/* ---- shell ------------------------------------------------------------ */

/**
 * AgentsShellCapability:
 *
 * The `shell` capability: lets the model run commands in the sandbox.
 */
struct _AgentsShellCapability
{
  GObject parent_instance;
};

static const char *
shell_get_capability_type (AgentsCapability *self)
{
  return "shell";
}

static void
shell_capability_iface_init (AgentsCapabilityInterface *iface)
{
  iface->get_capability_type = shell_get_capability_type;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (
  AgentsShellCapability,
  agents_shell_capability,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_CAPABILITY, shell_capability_iface_init))

static void
agents_shell_capability_class_init (AgentsShellCapabilityClass *klass)
{
}

static void
agents_shell_capability_init (AgentsShellCapability *self)
{
}

/**
 * agents_shell_capability_new:
 *
 * Creates a `shell` capability.
 *
 * Returns: (transfer full): the capability
 */
AgentsCapability *
agents_shell_capability_new (void)
{
  return g_object_new (AGENTS_TYPE_SHELL_CAPABILITY, NULL);
}

/* ---- filesystem ------------------------------------------------------- */

/**
 * AgentsFilesystemCapability:
 *
 * The `filesystem` capability: lets the model read and edit files of the
 * workspace.
 */
struct _AgentsFilesystemCapability
{
  GObject parent_instance;
};

static const char *
filesystem_get_capability_type (AgentsCapability *self)
{
  return "filesystem";
}

static void
filesystem_capability_iface_init (AgentsCapabilityInterface *iface)
{
  iface->get_capability_type = filesystem_get_capability_type;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (
  AgentsFilesystemCapability,
  agents_filesystem_capability,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_CAPABILITY,
                         filesystem_capability_iface_init))

static void
agents_filesystem_capability_class_init (AgentsFilesystemCapabilityClass *klass)
{
}

static void
agents_filesystem_capability_init (AgentsFilesystemCapability *self)
{
}

/**
 * agents_filesystem_capability_new:
 *
 * Creates a `filesystem` capability.
 *
 * Returns: (transfer full): the capability
 */
AgentsCapability *
agents_filesystem_capability_new (void)
{
  return g_object_new (AGENTS_TYPE_FILESYSTEM_CAPABILITY, NULL);
}

/* ---- compaction ------------------------------------------------------- */

/**
 * AgentsCompactionCapability:
 *
 * The `compaction` capability: asks the model service to compact long
 * contexts (`context_management` in the model settings' extra arguments)
 * and drops the input that precedes the last compaction item.
 *
 * With a static policy the threshold is fixed
 * (#AgentsCompactionCapability:threshold); with the dynamic policy
 * (threshold 0) the service chooses.
 */
struct _AgentsCompactionCapability
{
  GObject parent_instance;

  gint64 threshold;
};

enum
{
  COMPACTION_PROP_0,
  COMPACTION_PROP_THRESHOLD,
  COMPACTION_N_PROPS
};

static GParamSpec *compaction_properties[COMPACTION_N_PROPS];

static const char *
compaction_get_capability_type (AgentsCapability *self)
{
  return "compaction";
}

static gboolean
is_compaction_item (JsonNode *node)
{
  JsonObject *object;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return FALSE;
  object = json_node_get_object (node);
  return g_strcmp0 (
           json_object_get_string_member_with_default (object, "type", NULL),
           "compaction") == 0;
}

static JsonArray *
compaction_process_context (AgentsCapability *self, JsonArray *context)
{
  guint n = json_array_get_length (context);
  JsonArray *kept;
  guint start = 0;

  for (guint i = n; i > 0; i--)
    if (is_compaction_item (json_array_get_element (context, i - 1)))
      {
        start = i - 1;
        break;
      }
  if (start == 0)
    return json_array_ref (context);

  kept = json_array_sized_new (n - start);
  for (guint i = start; i < n; i++)
    json_array_add_element (
      kept, json_node_copy (json_array_get_element (context, i)));
  return kept;
}

static JsonObject *
compaction_sampling_params (AgentsCapability *capability)
{
  AgentsCompactionCapability *self = AGENTS_COMPACTION_CAPABILITY (capability);
  JsonObject *params = json_object_new ();
  JsonArray *management = json_array_new ();
  JsonObject *compaction = json_object_new ();

  json_object_set_string_member (compaction, "type", "compaction");
  if (self->threshold > 0)
    json_object_set_int_member (compaction, "compact_threshold",
                                self->threshold);
  json_array_add_object_element (management, compaction);
  json_object_set_array_member (params, "context_management", management);
  return params;
}

static void
compaction_capability_iface_init (AgentsCapabilityInterface *iface)
{
  iface->get_capability_type = compaction_get_capability_type;
  iface->process_context = compaction_process_context;
  iface->sampling_params = compaction_sampling_params;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (
  AgentsCompactionCapability,
  agents_compaction_capability,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_CAPABILITY,
                         compaction_capability_iface_init))

static void
compaction_get_property (GObject *object,
                         guint prop_id,
                         GValue *value,
                         GParamSpec *pspec)
{
  AgentsCompactionCapability *self = AGENTS_COMPACTION_CAPABILITY (object);

  switch (prop_id)
    {
    case COMPACTION_PROP_THRESHOLD:
      g_value_set_int64 (value, self->threshold);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
compaction_set_property (GObject *object,
                         guint prop_id,
                         const GValue *value,
                         GParamSpec *pspec)
{
  AgentsCompactionCapability *self = AGENTS_COMPACTION_CAPABILITY (object);

  switch (prop_id)
    {
    case COMPACTION_PROP_THRESHOLD:
      if (self->threshold != g_value_get_int64 (value))
        {
          self->threshold = g_value_get_int64 (value);
          g_object_notify_by_pspec (object, pspec);
        }
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_compaction_capability_class_init (AgentsCompactionCapabilityClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = compaction_get_property;
  object_class->set_property = compaction_set_property;

  /**
   * AgentsCompactionCapability:threshold:
   *
   * The context size, in tokens, past which the service compacts; 0 for
   * the dynamic policy.
   */
  compaction_properties[COMPACTION_PROP_THRESHOLD] = g_param_spec_int64 (
    "threshold", NULL, NULL, 0, G_MAXINT64, 0,
    G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, COMPACTION_N_PROPS,
                                     compaction_properties);
}

static void
agents_compaction_capability_init (AgentsCompactionCapability *self)
{
}

/**
 * agents_compaction_capability_new:
 *
 * Creates a `compaction` capability with the dynamic policy.
 *
 * Returns: (transfer full): the capability
 */
AgentsCapability *
agents_compaction_capability_new (void)
{
  return g_object_new (AGENTS_TYPE_COMPACTION_CAPABILITY, NULL);
}

/**
 * agents_compaction_capability_new_static:
 * @threshold: the context size, in tokens, past which to compact
 *
 * Creates a `compaction` capability with a static policy.
 *
 * Returns: (transfer full): the capability
 */
AgentsCapability *
agents_compaction_capability_new_static (gint64 threshold)
{
  g_return_val_if_fail (threshold > 0, NULL);

  return g_object_new (AGENTS_TYPE_COMPACTION_CAPABILITY, "threshold",
                       threshold, NULL);
}

/**
 * agents_compaction_capability_get_threshold:
 * @self: a compaction capability
 *
 * Gets the static threshold, or 0 for the dynamic policy.
 *
 * Returns: the static threshold, or 0 for the dynamic policy
 */
gint64
agents_compaction_capability_get_threshold (AgentsCompactionCapability *self)
{
  g_return_val_if_fail (AGENTS_IS_COMPACTION_CAPABILITY (self), 0);
  return self->threshold;
}

/* ---- memory ----------------------------------------------------------- */

/**
 * AgentsMemoryCapability:
 *
 * The `memory` capability: keeps notes across runs in the workspace and,
 * when #AgentsMemoryCapability:generate is on, has the runtime generate
 * them at the end of a run.
 */
struct _AgentsMemoryCapability
{
  GObject parent_instance;

  gboolean generate;
};

enum
{
  MEMORY_PROP_0,
  MEMORY_PROP_GENERATE,
  MEMORY_N_PROPS
};

static GParamSpec *memory_properties[MEMORY_N_PROPS];

static const char *
memory_get_capability_type (AgentsCapability *self)
{
  return "memory";
}

static void
memory_capability_iface_init (AgentsCapabilityInterface *iface)
{
  iface->get_capability_type = memory_get_capability_type;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (
  AgentsMemoryCapability,
  agents_memory_capability,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_CAPABILITY, memory_capability_iface_init))

static void
memory_get_property (GObject *object,
                     guint prop_id,
                     GValue *value,
                     GParamSpec *pspec)
{
  AgentsMemoryCapability *self = AGENTS_MEMORY_CAPABILITY (object);

  switch (prop_id)
    {
    case MEMORY_PROP_GENERATE:
      g_value_set_boolean (value, self->generate);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
memory_set_property (GObject *object,
                     guint prop_id,
                     const GValue *value,
                     GParamSpec *pspec)
{
  AgentsMemoryCapability *self = AGENTS_MEMORY_CAPABILITY (object);

  switch (prop_id)
    {
    case MEMORY_PROP_GENERATE:
      agents_memory_capability_set_generate (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_memory_capability_class_init (AgentsMemoryCapabilityClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = memory_get_property;
  object_class->set_property = memory_set_property;

  /**
   * AgentsMemoryCapability:generate:
   *
   * Whether memories are generated at the end of a run.
   */
  memory_properties[MEMORY_PROP_GENERATE] = g_param_spec_boolean (
    "generate", NULL, NULL, TRUE,
    G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, MEMORY_N_PROPS,
                                     memory_properties);
}

static void
agents_memory_capability_init (AgentsMemoryCapability *self)
{
  self->generate = TRUE;
}

/**
 * agents_memory_capability_new:
 *
 * Creates a `memory` capability that generates memories.
 *
 * Returns: (transfer full): the capability
 */
AgentsCapability *
agents_memory_capability_new (void)
{
  return g_object_new (AGENTS_TYPE_MEMORY_CAPABILITY, NULL);
}

/**
 * agents_memory_capability_get_generate:
 * @self: a memory capability
 *
 * Gets whether memories are generated.
 *
 * Returns: whether memories are generated
 */
gboolean
agents_memory_capability_get_generate (AgentsMemoryCapability *self)
{
  g_return_val_if_fail (AGENTS_IS_MEMORY_CAPABILITY (self), FALSE);
  return self->generate;
}

/**
 * agents_memory_capability_set_generate:
 * @self: a memory capability
 * @generate: whether memories are generated
 *
 * Sets #AgentsMemoryCapability:generate.
 */
void
agents_memory_capability_set_generate (AgentsMemoryCapability *self,
                                       gboolean generate)
{
  g_return_if_fail (AGENTS_IS_MEMORY_CAPABILITY (self));

  generate = !!generate;
  if (self->generate == generate)
    return;
  self->generate = generate;
  g_object_notify_by_pspec (G_OBJECT (self),
                            memory_properties[MEMORY_PROP_GENERATE]);
}
