/* agents-sandbox-client-base.c - a base class for sandbox backends
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "agents-json-private.h"
#include "agents-sandbox-client-base.h"
#include "agents-sandbox-error-private.h"

/**
 * AgentsSandboxClientBase:
 *
 * A base class for sandbox backends: it implements
 * #AgentsSandboxClient and owns what every backend would otherwise
 * write again, the (de)serialization of its session states by #GType.
 * A subclass names its state type once in its class_init with
 * agents_sandbox_client_base_class_set_session_state_type(), and
 * implements @create, @resume, @get_backend_id and whatever else it
 * supports as #AgentsSandboxClient vfuncs.
 *
 * A state given to agents_sandbox_client_deserialize_session_state() must
 * carry the state type's JSON `type` discriminator
 * (agents_sandbox_session_state_type_get_name(): the class's
 * #AgentsSandboxSessionStateClass.type_name or, for a class written in
 * Python or JavaScript, its typed-JSON registration); anything else is an
 * %AGENTS_SANDBOX_ERROR_INVALID_JSON error (context `type`).
 *
 * Python (and JavaScript) backends derive from it too. A Python class
 * lists the interface among its bases, so that the vfuncs it overrides
 * go into an interface vtable of its own:
 *
 * ```python
 * class MyClient(Agents.SandboxClientBase, Agents.SandboxClient):
 *     def do_get_backend_id(self):
 *         return "mine"
 *     ...
 *
 * MyClient.set_session_state_type(MyState.__gtype__)
 * ```
 */

static void client_iface_init (AgentsSandboxClientInterface *iface);

G_DEFINE_ABSTRACT_TYPE_WITH_CODE (
  AgentsSandboxClientBase,
  agents_sandbox_client_base,
  G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (AGENTS_TYPE_SANDBOX_CLIENT, client_iface_init))

static GQuark state_type_quark;

static void
agents_sandbox_client_base_class_init (AgentsSandboxClientBaseClass *klass)
{
  state_type_quark =
    g_quark_from_static_string ("agents-sandbox-client-base-state-type");
}

static void
agents_sandbox_client_base_init (AgentsSandboxClientBase *self)
{
}

/**
 * agents_sandbox_client_base_class_set_session_state_type:
 * @klass: a client base class
 * @state_type: a subtype of #AgentsSandboxSessionState
 *
 * Names the type of the session states of @klass's backend: the type
 * its states are deserialized into. Subclasses of @klass inherit it.
 */
void
agents_sandbox_client_base_class_set_session_state_type (
  AgentsSandboxClientBaseClass *klass, GType state_type)
{
  g_return_if_fail (AGENTS_IS_SANDBOX_CLIENT_BASE_CLASS (klass));
  g_return_if_fail (
    g_type_is_a (state_type, AGENTS_TYPE_SANDBOX_SESSION_STATE));

  g_type_set_qdata (G_TYPE_FROM_CLASS (klass), state_type_quark,
                    GSIZE_TO_POINTER (state_type));
}

/**
 * agents_sandbox_client_base_get_session_state_type:
 * @self: a client
 *
 * Gets the type of the client's session states, as set with
 * agents_sandbox_client_base_class_set_session_state_type().
 *
 * Returns: the state type, or %G_TYPE_INVALID when none was set
 */
GType
agents_sandbox_client_base_get_session_state_type (
  AgentsSandboxClientBase *self)
{
  g_return_val_if_fail (AGENTS_IS_SANDBOX_CLIENT_BASE (self), G_TYPE_INVALID);

  for (GType type = G_OBJECT_TYPE (self); type != G_TYPE_INVALID;
       type = g_type_parent (type))
    {
      gpointer found = g_type_get_qdata (type, state_type_quark);

      if (found != NULL)
        return GPOINTER_TO_SIZE (found);
    }
  return G_TYPE_INVALID;
}

static JsonNode *
base_serialize_session_state (AgentsSandboxClient *client,
                              AgentsSandboxSessionState *state)
{
  return agents_sandbox_session_state_to_json (state);
}

/* A state of @type, whatever the registry says of its name: a backend's
 * payload must carry its own state type's `type`. */
static AgentsSandboxSessionState *
load_state (GType type, JsonNode *payload, GError **error)
{
  const char *type_name = agents_sandbox_session_state_type_get_name (type);
  g_autoptr (AgentsSandboxSessionState) state = NULL;
  JsonNode *member = NULL;
  const char *found = NULL;

  if (payload != NULL && JSON_NODE_HOLDS_OBJECT (payload))
    member = json_object_get_member (json_node_get_object (payload), "type");
  /* Hostile: `type` may be anything (json-glib warns on a non-value). */
  if (member != NULL && agents_json_holds (member, G_TYPE_STRING))
    found = json_node_get_string (member);
  if (found == NULL || g_strcmp0 (found, type_name) != 0)
    {
      agents_sandbox_error_set (
        error, AGENTS_SANDBOX_ERROR_INVALID_JSON,
        g_variant_new_parsed ("{'type': <%s>}", found ? found : ""),
        _ ("session state of type “%s” is not a %s session state"),
        found ? found : "", type_name ? type_name : "");
      return NULL;
    }

  state = g_object_new (type, NULL);
  if (!agents_sandbox_session_state_load_json (state, payload, error))
    return NULL;
  return g_steal_pointer (&state);
}

static AgentsSandboxSessionState *
base_deserialize_session_state (AgentsSandboxClient *client,
                                JsonNode *payload,
                                GError **error)
{
  GType type = agents_sandbox_client_base_get_session_state_type (
    AGENTS_SANDBOX_CLIENT_BASE (client));
  AgentsSandboxClientInterface *dflt;

  if (type == G_TYPE_INVALID)
    {
      /* No type named: any registered state type, by its discriminator. */
      dflt = g_type_default_interface_peek (AGENTS_TYPE_SANDBOX_CLIENT);
      return dflt->deserialize_session_state (client, payload, error);
    }
  return load_state (type, payload, error);
}

static void
client_iface_init (AgentsSandboxClientInterface *iface)
{
  iface->serialize_session_state = base_serialize_session_state;
  iface->deserialize_session_state = base_deserialize_session_state;
}
