/* fake-sandbox.c - the reference tests' fake clients, snapshots, capabilities
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "fake-sandbox.h"

/* ---- FakeGate ---------------------------------------------------------- */

struct _FakeGate
{
  GObject parent_instance;
  gboolean open;
  GPtrArray *waiting; /* of GTask */
};

G_DEFINE_FINAL_TYPE (FakeGate, fake_gate, G_TYPE_OBJECT)

static void
fake_gate_finalize (GObject *object)
{
  g_ptr_array_unref (FAKE_GATE (object)->waiting);
  G_OBJECT_CLASS (fake_gate_parent_class)->finalize (object);
}

static void
fake_gate_class_init (FakeGateClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = fake_gate_finalize;
}

static void
fake_gate_init (FakeGate *self)
{
  self->waiting = g_ptr_array_new_with_free_func (g_object_unref);
}

FakeGate *
fake_gate_new (void)
{
  return g_object_new (FAKE_TYPE_GATE, NULL);
}

gboolean
fake_gate_is_open (FakeGate *self)
{
  return self->open;
}

void
fake_gate_open (FakeGate *self)
{
  g_autoptr (GPtrArray) waiting = NULL;

  self->open = TRUE;
  waiting = g_steal_pointer (&self->waiting);
  self->waiting = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < waiting->len; i++)
    g_task_return_boolean (g_ptr_array_index (waiting, i), TRUE);
}

void
fake_gate_wait_task (FakeGate *self, GTask *task)
{
  if (self->open)
    g_task_return_boolean (task, TRUE);
  else
    g_ptr_array_add (self->waiting, g_object_ref (task));
}

/* ---- FakeClient -------------------------------------------------------- */

static void fake_client_iface_init (AgentsSandboxClientInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  FakeClient,
  fake_client,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_SANDBOX_CLIENT, fake_client_iface_init))

static const char *
fake_client_backend_id (AgentsSandboxClient *client)
{
  return "fake";
}

static void
fake_client_create (AgentsSandboxClient *client,
                    AgentsManifest *manifest,
                    GVariant *options,
                    GObject *snapshot,
                    GTask *task)
{
  FakeClient *self = FAKE_CLIENT (client);
  AgentsManifest *base = manifest
                           ? manifest
                           : agents_sandbox_session_get_manifest (
                               AGENTS_SANDBOX_SESSION (self->inner_session));

  self->created = TRUE;
  g_set_object (&self->create_snapshot, snapshot);
  g_set_object (&self->create_manifest, base);
  g_clear_pointer (&self->create_options, g_variant_unref);
  self->create_options = options ? g_variant_ref (options) : NULL;
  agents_sandbox_session_state_set_manifest (self->inner_session->state, base);
  g_task_return_pointer (task, g_object_ref (self->inner_session),
                         g_object_unref);
}

static void
fake_client_resume (AgentsSandboxClient *client,
                    AgentsSandboxSessionState *state,
                    GTask *task)
{
  FakeClient *self = FAKE_CLIENT (client);

  g_set_object (&self->resume_state, state);
  g_set_object (&self->inner_session->state, state);
  g_task_return_pointer (task, g_object_ref (self->inner_session),
                         g_object_unref);
}

static void
fake_client_delete (AgentsSandboxClient *client,
                    AgentsSandboxSession *session,
                    GTask *task)
{
  FakeClient *self = FAKE_CLIENT (client);

  self->delete_calls++;
  if (self->delete_error != NULL)
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED, "%s",
                             self->delete_error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
fake_client_iface_init (AgentsSandboxClientInterface *iface)
{
  iface->get_backend_id = fake_client_backend_id;
  iface->create = fake_client_create;
  iface->resume = fake_client_resume;
  iface->delete = fake_client_delete;
}

static void
fake_client_finalize (GObject *object)
{
  FakeClient *self = FAKE_CLIENT (object);

  g_clear_object (&self->inner_session);
  g_clear_object (&self->create_snapshot);
  g_clear_object (&self->create_manifest);
  g_clear_pointer (&self->create_options, g_variant_unref);
  g_clear_object (&self->resume_state);
  G_OBJECT_CLASS (fake_client_parent_class)->finalize (object);
}

static void
fake_client_class_init (FakeClientClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = fake_client_finalize;
}

static void
fake_client_init (FakeClient *self)
{
}

FakeClient *
fake_client_new (FakeSession *session)
{
  FakeClient *self = g_object_new (FAKE_TYPE_CLIENT, NULL);

  self->inner_session = g_object_ref (session);
  return self;
}

/* ---- FakeManifestClient ------------------------------------------------ */

static void
fake_manifest_client_iface_init (AgentsSandboxClientInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  FakeManifestClient,
  fake_manifest_client,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_SANDBOX_CLIENT,
                         fake_manifest_client_iface_init))

static const char *
manifest_client_backend_id (AgentsSandboxClient *client)
{
  return "manifest";
}

static gboolean
manifest_client_supports_default_options (AgentsSandboxClient *client)
{
  return TRUE;
}

static void
manifest_client_create (AgentsSandboxClient *client,
                        AgentsManifest *manifest,
                        GVariant *options,
                        GObject *snapshot,
                        GTask *task)
{
  FakeManifestClient *self = FAKE_MANIFEST_CLIENT (client);

  g_ptr_array_add (self->created_manifests,
                   manifest ? g_object_ref (manifest) : NULL);
  g_assert_nonnull (manifest);
  g_task_return_pointer (task, fake_session_new (manifest), g_object_unref);
}

static void
manifest_client_resume (AgentsSandboxClient *client,
                        AgentsSandboxSessionState *state,
                        GTask *task)
{
  g_task_return_pointer (
    task, fake_session_new (agents_sandbox_session_state_get_manifest (state)),
    g_object_unref);
}

static void
fake_manifest_client_iface_init (AgentsSandboxClientInterface *iface)
{
  iface->get_backend_id = manifest_client_backend_id;
  iface->supports_default_options = manifest_client_supports_default_options;
  iface->create = manifest_client_create;
  iface->resume = manifest_client_resume;
}

static void
fake_manifest_client_finalize (GObject *object)
{
  g_ptr_array_unref (FAKE_MANIFEST_CLIENT (object)->created_manifests);
  G_OBJECT_CLASS (fake_manifest_client_parent_class)->finalize (object);
}

static void
fake_manifest_client_class_init (FakeManifestClientClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = fake_manifest_client_finalize;
}

static void
unref_if_set (gpointer data)
{
  if (data != NULL)
    g_object_unref (data);
}

static void
fake_manifest_client_init (FakeManifestClient *self)
{
  self->created_manifests = g_ptr_array_new_with_free_func (unref_if_set);
}

FakeManifestClient *
fake_manifest_client_new (void)
{
  return g_object_new (FAKE_TYPE_MANIFEST_CLIENT, NULL);
}

/* ---- FakeMarkerSnapshot ------------------------------------------------ */

struct _FakeMarkerSnapshot
{
  GObject parent_instance;
  char *id;
  char *marker;
};

static const char *
marker_type (AgentsSnapshot *snapshot)
{
  return "marker";
}

static const char *
marker_id (AgentsSnapshot *snapshot)
{
  return FAKE_MARKER_SNAPSHOT (snapshot)->id;
}

static void
marker_persist (AgentsSnapshot *snapshot, GInputStream *data, GTask *task)
{
  g_task_return_boolean (task, TRUE);
}

static void
marker_restore (AgentsSnapshot *snapshot, GTask *task)
{
  g_task_return_pointer (task, g_memory_input_stream_new (), g_object_unref);
}

static void
marker_restorable (AgentsSnapshot *snapshot, GTask *task)
{
  g_task_return_boolean (task, FALSE);
}

static void
marker_serialize (AgentsSnapshot *snapshot, JsonBuilder *builder)
{
  json_builder_set_member_name (builder, "marker");
  json_builder_add_string_value (builder,
                                 FAKE_MARKER_SNAPSHOT (snapshot)->marker);
}

static gboolean
marker_deserialize (AgentsSnapshot *snapshot,
                    JsonObject *object,
                    GError **error)
{
  FakeMarkerSnapshot *self = FAKE_MARKER_SNAPSHOT (snapshot);

  g_free (self->marker);
  self->marker = g_strdup (
    json_object_get_string_member_with_default (object, "marker", "initial"));
  return TRUE;
}

static void
marker_iface_init (AgentsSnapshotInterface *iface)
{
  iface->get_snapshot_type = marker_type;
  iface->get_id = marker_id;
  iface->persist = marker_persist;
  iface->restore = marker_restore;
  iface->restorable = marker_restorable;
  iface->serialize_fields = marker_serialize;
  iface->deserialize_fields = marker_deserialize;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (FakeMarkerSnapshot,
                               fake_marker_snapshot,
                               G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (AGENTS_TYPE_SNAPSHOT,
                                                      marker_iface_init))

enum
{
  MARKER_PROP_0,
  MARKER_PROP_ID,
};

static void
marker_get_property (GObject *object,
                     guint prop_id,
                     GValue *value,
                     GParamSpec *pspec)
{
  g_value_set_string (value, FAKE_MARKER_SNAPSHOT (object)->id);
}

static void
marker_set_property (GObject *object,
                     guint prop_id,
                     const GValue *value,
                     GParamSpec *pspec)
{
  FakeMarkerSnapshot *self = FAKE_MARKER_SNAPSHOT (object);

  g_free (self->id);
  self->id = g_value_dup_string (value);
}

static void
fake_marker_snapshot_finalize (GObject *object)
{
  FakeMarkerSnapshot *self = FAKE_MARKER_SNAPSHOT (object);

  g_free (self->id);
  g_free (self->marker);
  G_OBJECT_CLASS (fake_marker_snapshot_parent_class)->finalize (object);
}

static void
fake_marker_snapshot_class_init (FakeMarkerSnapshotClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = fake_marker_snapshot_finalize;
  object_class->get_property = marker_get_property;
  object_class->set_property = marker_set_property;
  g_object_class_install_property (
    object_class, MARKER_PROP_ID,
    g_param_spec_string ("id", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                           G_PARAM_STATIC_STRINGS));
}

static void
fake_marker_snapshot_init (FakeMarkerSnapshot *self)
{
  self->marker = g_strdup ("initial");
}

AgentsSnapshot *
fake_marker_snapshot_new (const char *id, const char *marker)
{
  FakeMarkerSnapshot *self =
    g_object_new (FAKE_TYPE_MARKER_SNAPSHOT, "id", id, NULL);

  g_free (self->marker);
  self->marker = g_strdup (marker);
  return AGENTS_SNAPSHOT (self);
}

const char *
fake_marker_snapshot_get_marker (FakeMarkerSnapshot *self)
{
  return self->marker;
}

void
fake_sandbox_register_types (void)
{
  g_autoptr (GError) error = NULL;

  agents_registry_register_snapshot_type ("marker", FAKE_TYPE_MARKER_SNAPSHOT,
                                          &error);
  g_assert_no_error (error);
  agents_registry_register_snapshot_type (
    "restorable", FAKE_TYPE_RESTORABLE_SNAPSHOT, &error);
  g_assert_no_error (error);
}

/* ---- FakeCapability ---------------------------------------------------- */

static void fake_capability_iface_init (AgentsCapabilityInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (
  FakeCapability,
  fake_capability,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_CAPABILITY, fake_capability_iface_init))

enum
{
  CAP_PROP_0,
  CAP_PROP_KIND,
  CAP_PROP_TYPE_NAME,
  CAP_PROP_INSTRUCTION_TEXT,
  CAP_PROP_TOOLS,
  CAP_PROP_REL_PATH,
  CAP_PROP_CONTENT,
  CAP_PROP_PROCESS_CALLS,
  CAP_PROP_BOUND_LABELS,
  CAP_PROP_RELEASE_GATE,
  CAP_PROP_FIRST_STARTED,
  CAP_PROP_SECOND_STARTED,
  CAP_N_PROPS
};

static const char *
default_type_name (FakeCapabilityKind kind)
{
  static const char *names[] = {
    "recording",
    "manifest-instructions",
    "manifest-mutation",
    "manifest-users",
    "process-context-session",
    "session-files",
    "awaitable-session",
    "mutable",
    "noop",
  };

  return names[kind];
}

static const char *
cap_type (AgentsCapability *capability)
{
  FakeCapability *self = FAKE_CAPABILITY (capability);

  return self->type_name ? self->type_name : default_type_name (self->kind);
}

static AgentsCapabilityInterface *
default_capability_iface (void)
{
  return g_type_default_interface_peek (AGENTS_TYPE_CAPABILITY);
}

static char *
readme_text (AgentsSandboxSession *session)
{
  AgentsManifest *manifest = agents_sandbox_session_get_manifest (session);
  AgentsManifestEntry *readme =
    agents_manifest_get_entry (manifest, "README.md");
  GBytes *content;
  gsize size;
  const char *data;

  g_assert_true (AGENTS_IS_FILE (readme));
  content = agents_file_get_content (AGENTS_FILE (readme));
  data = g_bytes_get_data (content, &size);
  return g_strndup (data, size);
}

static void
cap_bind (AgentsCapability *capability, AgentsSandboxSession *session)
{
  FakeCapability *self = FAKE_CAPABILITY (capability);

  default_capability_iface ()->bind (capability, session);
  if (self->kind == FAKE_CAPABILITY_MUTABLE && session != NULL)
    {
      g_autofree char *label = readme_text (session);
      guint n = self->bound_labels ? g_strv_length (self->bound_labels) : 0;

      self->bound_labels = g_renew (char *, self->bound_labels, n + 2);
      self->bound_labels[n] = g_steal_pointer (&label);
      self->bound_labels[n + 1] = NULL;
    }
}

/* write_file / read_file over the bound session (_SessionFileCapability). */

typedef struct
{
  GTask *task;
  char *text;
} FileToolOp;

static void
file_tool_written (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;

  if (!agents_sandbox_session_write_bytes_finish (
        AGENTS_SANDBOX_SESSION (source), result, &error))
    g_task_return_error (task, error);
  else
    agents_tool_return_text (task, "wrote");
}

static void
file_tool_read (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  g_autoptr (GBytes) bytes = NULL;
  g_autofree char *text = NULL;
  GError *error = NULL;
  gsize size;

  bytes = agents_sandbox_session_read_bytes_finish (
    AGENTS_SANDBOX_SESSION (source), result, &error);
  if (bytes == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  text = g_strndup (g_bytes_get_data (bytes, &size), g_bytes_get_size (bytes));
  agents_tool_return_text (task, text);
}

static JsonObject *
arguments_object (const char *arguments)
{
  g_autoptr (JsonNode) node = json_from_string (arguments, NULL);

  g_assert_nonnull (node);
  return json_object_ref (json_node_get_object (node));
}

static void
write_file_tool (AgentsRunContext *ctx,
                 const char *arguments,
                 GTask *task,
                 gpointer user_data)
{
  AgentsSandboxSession *session = agents_capability_get_session (user_data);
  g_autoptr (JsonObject) args = arguments_object (arguments);
  const char *content = json_object_get_string_member (args, "content");
  g_autoptr (GBytes) bytes = g_bytes_new (content, strlen (content));

  g_assert_nonnull (session);
  agents_sandbox_session_write_bytes_async (
    session, json_object_get_string_member (args, "path"), bytes, NULL, NULL,
    file_tool_written, g_object_ref (task));
}

static void
read_file_tool (AgentsRunContext *ctx,
                const char *arguments,
                GTask *task,
                gpointer user_data)
{
  AgentsSandboxSession *session = agents_capability_get_session (user_data);
  g_autoptr (JsonObject) args = arguments_object (arguments);

  g_assert_nonnull (session);
  agents_sandbox_session_read_bytes_async (
    session, json_object_get_string_member (args, "path"), NULL, NULL,
    file_tool_read, g_object_ref (task));
}

static JsonObject *
string_params (const char *first, ...)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (JsonNode) root = NULL;
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  va_list args;

  va_start (args, first);
  for (const char *name = first; name != NULL;
       name = va_arg (args, const char *))
    g_ptr_array_add (names, (gpointer) name);
  va_end (args);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "object");
  json_builder_set_member_name (builder, "properties");
  json_builder_begin_object (builder);
  for (guint i = 0; i < names->len; i++)
    {
      json_builder_set_member_name (builder, g_ptr_array_index (names, i));
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "type");
      json_builder_add_string_value (builder, "string");
      json_builder_end_object (builder);
    }
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "required");
  json_builder_begin_array (builder);
  for (guint i = 0; i < names->len; i++)
    json_builder_add_string_value (builder, g_ptr_array_index (names, i));
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "additionalProperties");
  json_builder_add_boolean_value (builder, FALSE);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  return json_object_ref (json_node_get_object (root));
}

static GPtrArray *
cap_get_tools (AgentsCapability *capability)
{
  FakeCapability *self = FAKE_CAPABILITY (capability);
  GPtrArray *tools = g_ptr_array_new_with_free_func (g_object_unref);

  if (self->kind == FAKE_CAPABILITY_SESSION_FILES)
    {
      g_autoptr (JsonObject) write_params =
        string_params ("path", "content", NULL);
      g_autoptr (JsonObject) read_params = string_params ("path", NULL);

      g_ptr_array_add (tools,
                       agents_function_tool_new_async (
                         "write_file", "Write a file.", write_params,
                         write_file_tool, g_object_ref (self), g_object_unref));
      g_ptr_array_add (tools,
                       agents_function_tool_new_async (
                         "read_file", "Read a file.", read_params,
                         read_file_tool, g_object_ref (self), g_object_unref));
    }
  else if (self->tools != NULL)
    for (guint i = 0; i < self->tools->len; i++)
      g_ptr_array_add (tools,
                       g_object_ref (g_ptr_array_index (self->tools, i)));
  return tools;
}

static void
awaitable_released (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  char *text = g_object_steal_data (G_OBJECT (task), "text");

  g_task_return_pointer (task, text, g_free);
}

static void
cap_instructions (AgentsCapability *capability,
                  AgentsManifest *manifest,
                  GTask *task)
{
  FakeCapability *self = FAKE_CAPABILITY (capability);
  AgentsSandboxSession *session = agents_capability_get_session (capability);
  char *text;
  GTask *wait;

  switch (self->kind)
    {
    case FAKE_CAPABILITY_RECORDING:
      g_task_return_pointer (task, g_strdup (self->instruction_text), g_free);
      return;
    case FAKE_CAPABILITY_MANIFEST_INSTRUCTIONS:
      g_assert_nonnull (session);
      g_task_return_pointer (task, readme_text (session), g_free);
      return;
    case FAKE_CAPABILITY_AWAITABLE:
      g_assert_nonnull (session);
      text = readme_text (session);
      if (g_str_equal (text, "Session one instructions."))
        fake_gate_open (self->first_started);
      else if (g_str_equal (text, "Session two instructions."))
        fake_gate_open (self->second_started);
      g_object_set_data_full (G_OBJECT (task), "text", text, g_free);
      wait = g_task_new (self, NULL, awaitable_released, g_object_ref (task));
      fake_gate_wait_task (self->release_gate, wait);
      g_object_unref (wait);
      return;
    default:
      g_task_return_pointer (task, NULL, NULL);
    }
}

static AgentsManifest *
cap_process_manifest (AgentsCapability *capability, AgentsManifest *manifest)
{
  FakeCapability *self = FAKE_CAPABILITY (capability);

  if (self->kind == FAKE_CAPABILITY_MANIFEST_MUTATION)
    {
      g_autoptr (AgentsManifestEntry) file = agents_file_new (self->content);

      agents_manifest_set_entry (manifest, self->rel_path, file);
    }
  else if (self->kind == FAKE_CAPABILITY_MANIFEST_USERS)
    {
      g_autoptr (AgentsUser) user = agents_user_new ("sandbox-user");

      agents_manifest_add_user (manifest, user);
    }
  return g_object_ref (manifest);
}

static JsonArray *
cap_process_context (AgentsCapability *capability, JsonArray *context)
{
  FakeCapability *self = FAKE_CAPABILITY (capability);
  JsonArray *processed;
  JsonObject *item;
  g_autofree char *content = NULL;

  if (self->kind != FAKE_CAPABILITY_PROCESS_CONTEXT)
    return json_array_ref (context);

  g_assert_nonnull (agents_capability_get_session (capability));
  self->process_calls++;
  processed = json_array_new ();
  for (guint i = 0; i < json_array_get_length (context); i++)
    json_array_add_element (
      processed, json_node_copy (json_array_get_element (context, i)));
  item = json_object_new ();
  content = g_strdup_printf ("process_calls=%d", self->process_calls);
  json_object_set_string_member (item, "role", "user");
  json_object_set_string_member (item, "content", content);
  json_array_add_object_element (processed, item);
  return processed;
}

static void
fake_capability_iface_init (AgentsCapabilityInterface *iface)
{
  iface->get_capability_type = cap_type;
  iface->bind = cap_bind;
  iface->get_tools = cap_get_tools;
  iface->instructions = cap_instructions;
  iface->process_manifest = cap_process_manifest;
  iface->process_context = cap_process_context;
}

static void
cap_get_property (GObject *object,
                  guint prop_id,
                  GValue *value,
                  GParamSpec *pspec)
{
  FakeCapability *self = FAKE_CAPABILITY (object);

  switch (prop_id)
    {
    case CAP_PROP_KIND:
      g_value_set_int (value, self->kind);
      break;
    case CAP_PROP_TYPE_NAME:
      g_value_set_string (value, self->type_name);
      break;
    case CAP_PROP_INSTRUCTION_TEXT:
      g_value_set_string (value, self->instruction_text);
      break;
    case CAP_PROP_TOOLS:
      g_value_set_boxed (value, self->tools);
      break;
    case CAP_PROP_REL_PATH:
      g_value_set_string (value, self->rel_path);
      break;
    case CAP_PROP_CONTENT:
      g_value_set_boxed (value, self->content);
      break;
    case CAP_PROP_PROCESS_CALLS:
      g_value_set_int (value, self->process_calls);
      break;
    case CAP_PROP_BOUND_LABELS:
      g_value_set_boxed (value, self->bound_labels);
      break;
    case CAP_PROP_RELEASE_GATE:
      g_value_set_object (value, self->release_gate);
      break;
    case CAP_PROP_FIRST_STARTED:
      g_value_set_object (value, self->first_started);
      break;
    case CAP_PROP_SECOND_STARTED:
      g_value_set_object (value, self->second_started);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cap_set_property (GObject *object,
                  guint prop_id,
                  const GValue *value,
                  GParamSpec *pspec)
{
  FakeCapability *self = FAKE_CAPABILITY (object);

  switch (prop_id)
    {
    case CAP_PROP_KIND:
      self->kind = g_value_get_int (value);
      break;
    case CAP_PROP_TYPE_NAME:
      g_free (self->type_name);
      self->type_name = g_value_dup_string (value);
      break;
    case CAP_PROP_INSTRUCTION_TEXT:
      g_free (self->instruction_text);
      self->instruction_text = g_value_dup_string (value);
      break;
    case CAP_PROP_TOOLS:
      g_clear_pointer (&self->tools, g_ptr_array_unref);
      self->tools = g_value_dup_boxed (value);
      break;
    case CAP_PROP_REL_PATH:
      g_free (self->rel_path);
      self->rel_path = g_value_dup_string (value);
      break;
    case CAP_PROP_CONTENT:
      g_clear_pointer (&self->content, g_bytes_unref);
      self->content = g_value_dup_boxed (value);
      break;
    case CAP_PROP_PROCESS_CALLS:
      self->process_calls = g_value_get_int (value);
      break;
    case CAP_PROP_BOUND_LABELS:
      g_strfreev (self->bound_labels);
      self->bound_labels = g_value_dup_boxed (value);
      break;
    case CAP_PROP_RELEASE_GATE:
      g_set_object (&self->release_gate, g_value_get_object (value));
      break;
    case CAP_PROP_FIRST_STARTED:
      g_set_object (&self->first_started, g_value_get_object (value));
      break;
    case CAP_PROP_SECOND_STARTED:
      g_set_object (&self->second_started, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
fake_capability_finalize (GObject *object)
{
  FakeCapability *self = FAKE_CAPABILITY (object);

  g_free (self->type_name);
  g_free (self->instruction_text);
  g_clear_pointer (&self->tools, g_ptr_array_unref);
  g_free (self->rel_path);
  g_clear_pointer (&self->content, g_bytes_unref);
  g_strfreev (self->bound_labels);
  g_clear_object (&self->release_gate);
  g_clear_object (&self->first_started);
  g_clear_object (&self->second_started);
  G_OBJECT_CLASS (fake_capability_parent_class)->finalize (object);
}

#define RW (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS)
#define SHARED (RW | AGENTS_CAPABILITY_PARAM_SHARED)

static void
fake_capability_class_init (FakeCapabilityClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = fake_capability_finalize;
  object_class->get_property = cap_get_property;
  object_class->set_property = cap_set_property;

  g_object_class_install_property (
    object_class, CAP_PROP_KIND,
    g_param_spec_int ("kind", NULL, NULL, 0, 100, 0, RW));
  g_object_class_install_property (
    object_class, CAP_PROP_TYPE_NAME,
    g_param_spec_string ("type-name", NULL, NULL, NULL, RW));
  g_object_class_install_property (
    object_class, CAP_PROP_INSTRUCTION_TEXT,
    g_param_spec_string ("instruction-text", NULL, NULL, NULL, RW));
  g_object_class_install_property (
    object_class, CAP_PROP_TOOLS,
    g_param_spec_boxed ("tools", NULL, NULL, G_TYPE_PTR_ARRAY, SHARED));
  g_object_class_install_property (
    object_class, CAP_PROP_REL_PATH,
    g_param_spec_string ("rel-path", NULL, NULL, NULL, RW));
  g_object_class_install_property (
    object_class, CAP_PROP_CONTENT,
    g_param_spec_boxed ("content", NULL, NULL, G_TYPE_BYTES, RW));
  g_object_class_install_property (
    object_class, CAP_PROP_PROCESS_CALLS,
    g_param_spec_int ("process-calls", NULL, NULL, 0, G_MAXINT, 0, RW));
  g_object_class_install_property (
    object_class, CAP_PROP_BOUND_LABELS,
    g_param_spec_boxed ("bound-labels", NULL, NULL, G_TYPE_STRV, RW));
  g_object_class_install_property (
    object_class, CAP_PROP_RELEASE_GATE,
    g_param_spec_object ("release-gate", NULL, NULL, FAKE_TYPE_GATE, SHARED));
  g_object_class_install_property (
    object_class, CAP_PROP_FIRST_STARTED,
    g_param_spec_object ("first-started", NULL, NULL, FAKE_TYPE_GATE, SHARED));
  g_object_class_install_property (
    object_class, CAP_PROP_SECOND_STARTED,
    g_param_spec_object ("second-started", NULL, NULL, FAKE_TYPE_GATE, SHARED));
}

static void
fake_capability_init (FakeCapability *self)
{
  self->bound_labels = g_new0 (char *, 1);
}

AgentsCapability *
fake_capability_new (FakeCapabilityKind kind)
{
  FakeCapability *self =
    g_object_new (FAKE_TYPE_CAPABILITY, "kind", kind, NULL);

  if (kind == FAKE_CAPABILITY_MANIFEST_MUTATION)
    {
      self->rel_path = g_strdup ("cap.txt");
      self->content = g_bytes_new_static ("capability", 10);
    }
  return AGENTS_CAPABILITY (self);
}

AgentsCapability *
fake_recording_capability_new (const char *instruction_text,
                               AgentsTool *first_tool,
                               ...)
{
  FakeCapability *self =
    FAKE_CAPABILITY (fake_capability_new (FAKE_CAPABILITY_RECORDING));
  va_list args;

  self->instruction_text = g_strdup (instruction_text);
  self->tools = g_ptr_array_new_with_free_func (g_object_unref);
  va_start (args, first_tool);
  for (AgentsTool *tool = first_tool; tool != NULL;
       tool = va_arg (args, AgentsTool *))
    g_ptr_array_add (self->tools, g_object_ref (tool));
  va_end (args);
  return AGENTS_CAPABILITY (self);
}

AgentsCapability *
fake_awaitable_capability_new (FakeGate *release_gate,
                               FakeGate *first_started,
                               FakeGate *second_started)
{
  return g_object_new (FAKE_TYPE_CAPABILITY, "kind", FAKE_CAPABILITY_AWAITABLE,
                       "release-gate", release_gate, "first-started",
                       first_started, "second-started", second_started, NULL);
}
