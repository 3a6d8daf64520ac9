/* agents-openai-provider.c - where and how OpenAI-style models are reached
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "agents-openai-private.h"
#include "agents-version.h"

/**
 * AgentsOpenAIProvider:
 *
 * The connection settings shared by the models of one OpenAI-compatible
 * server: base URL, API key, organization, project, extra headers, the
 * per-request timeout and the number of retries. It owns one
 * #SoupSession, so its models share connections.
 *
 * A new provider starts from the environment as the reference does:
 * `OPENAI_API_KEY`, `OPENAI_BASE_URL` (else `https://api.openai.com/v1`),
 * `OPENAI_ORG_ID`, `OPENAI_PROJECT_ID`. The API key is write-only: it
 * is sent in the `Authorization` header and appears nowhere else, not in
 * errors, logs, traces or saved run states.
 */

#define DEFAULT_BASE_URL "https://api.openai.com/v1"
#define DEFAULT_TIMEOUT 600
#define DEFAULT_MAX_RETRIES 2
#define DEFAULT_MODEL "gpt-5.6-luna"

struct _AgentsOpenAIProvider
{
  GObject parent_instance;

  char *base_url;
  char *api_key;
  char *organization;
  char *project;
  guint timeout;
  guint max_retries;
  double retry_base_delay;
  GPtrArray *headers; /* name, value, name, value… */
  SoupSession *session;
};

G_DEFINE_FINAL_TYPE (AgentsOpenAIProvider,
                     agents_openai_provider,
                     G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_BASE_URL,
  PROP_API_KEY,
  PROP_ORGANIZATION,
  PROP_PROJECT,
  PROP_TIMEOUT,
  PROP_MAX_RETRIES,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static gboolean
set_str (char **field, const char *value)
{
  if (g_strcmp0 (*field, value) == 0)
    return FALSE;
  g_free (*field);
  *field = g_strdup (value);
  return TRUE;
}

static void
agents_openai_provider_finalize (GObject *object)
{
  AgentsOpenAIProvider *self = AGENTS_OPENAI_PROVIDER (object);

  g_free (self->base_url);
  if (self->api_key != NULL)
    memset (self->api_key, 0, strlen (self->api_key));
  g_free (self->api_key);
  g_free (self->organization);
  g_free (self->project);
  g_ptr_array_unref (self->headers);
  g_clear_object (&self->session);

  G_OBJECT_CLASS (agents_openai_provider_parent_class)->finalize (object);
}

static void
agents_openai_provider_get_property (GObject *object,
                                     guint prop_id,
                                     GValue *value,
                                     GParamSpec *pspec)
{
  AgentsOpenAIProvider *self = AGENTS_OPENAI_PROVIDER (object);

  switch (prop_id)
    {
    case PROP_BASE_URL:
      g_value_set_string (value, self->base_url);
      break;
    case PROP_ORGANIZATION:
      g_value_set_string (value, self->organization);
      break;
    case PROP_PROJECT:
      g_value_set_string (value, self->project);
      break;
    case PROP_TIMEOUT:
      g_value_set_uint (value, self->timeout);
      break;
    case PROP_MAX_RETRIES:
      g_value_set_uint (value, self->max_retries);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
agents_openai_provider_set_property (GObject *object,
                                     guint prop_id,
                                     const GValue *value,
                                     GParamSpec *pspec)
{
  AgentsOpenAIProvider *self = AGENTS_OPENAI_PROVIDER (object);

  switch (prop_id)
    {
    case PROP_BASE_URL:
      agents_openai_provider_set_base_url (self, g_value_get_string (value));
      break;
    case PROP_API_KEY:
      agents_openai_provider_set_api_key (self, g_value_get_string (value));
      break;
    case PROP_ORGANIZATION:
      agents_openai_provider_set_organization (self,
                                               g_value_get_string (value));
      break;
    case PROP_PROJECT:
      agents_openai_provider_set_project (self, g_value_get_string (value));
      break;
    case PROP_TIMEOUT:
      agents_openai_provider_set_timeout (self, g_value_get_uint (value));
      break;
    case PROP_MAX_RETRIES:
      agents_openai_provider_set_max_retries (self, g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

#define PARAM_FLAGS \
  (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY)

static void
agents_openai_provider_class_init (AgentsOpenAIProviderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = agents_openai_provider_finalize;
  object_class->get_property = agents_openai_provider_get_property;
  object_class->set_property = agents_openai_provider_set_property;

  /**
   * AgentsOpenAIProvider:base-url:
   *
   * The API's base URL, e.g. `http://127.0.0.1:11434/v1`; requests go
   * to `{base-url}/responses` and `{base-url}/chat/completions`.
   */
  properties[PROP_BASE_URL] =
    g_param_spec_string ("base-url", NULL, NULL, NULL, PARAM_FLAGS);
  /**
   * AgentsOpenAIProvider:api-key:
   *
   * The API key (write-only), sent as `Authorization: Bearer KEY`.
   */
  properties[PROP_API_KEY] = g_param_spec_string (
    "api-key", NULL, NULL, NULL,
    G_PARAM_WRITABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  /**
   * AgentsOpenAIProvider:organization:
   *
   * Sent as `OpenAI-Organization` when set.
   */
  properties[PROP_ORGANIZATION] =
    g_param_spec_string ("organization", NULL, NULL, NULL, PARAM_FLAGS);
  /**
   * AgentsOpenAIProvider:project:
   *
   * Sent as `OpenAI-Project` when set.
   */
  properties[PROP_PROJECT] =
    g_param_spec_string ("project", NULL, NULL, NULL, PARAM_FLAGS);
  /**
   * AgentsOpenAIProvider:timeout:
   *
   * Seconds a request may wait for the server (to connect, or for the
   * next bytes of an answer) before it fails and is retried; 0 waits
   * forever.
   */
  properties[PROP_TIMEOUT] = g_param_spec_uint (
    "timeout", NULL, NULL, 0, G_MAXUINT, DEFAULT_TIMEOUT, PARAM_FLAGS);
  /**
   * AgentsOpenAIProvider:max-retries:
   *
   * How many times a failed request is retried: connection errors,
   * timeouts, HTTP 408, 409, 429 and 5xx, and whatever the server marks
   * `x-should-retry: true`; never once output was streamed.
   */
  properties[PROP_MAX_RETRIES] = g_param_spec_uint (
    "max-retries", NULL, NULL, 0, 100, DEFAULT_MAX_RETRIES, PARAM_FLAGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static char *
env_or_null (const char *name)
{
  const char *value = g_getenv (name);

  return value != NULL && *value != '\0' ? g_strdup (value) : NULL;
}

static void
agents_openai_provider_init (AgentsOpenAIProvider *self)
{
  self->base_url = env_or_null ("OPENAI_BASE_URL");
  if (self->base_url == NULL)
    self->base_url = g_strdup (DEFAULT_BASE_URL);
  self->api_key = env_or_null ("OPENAI_API_KEY");
  self->organization = env_or_null ("OPENAI_ORG_ID");
  self->project = env_or_null ("OPENAI_PROJECT_ID");
  self->timeout = DEFAULT_TIMEOUT;
  self->max_retries = DEFAULT_MAX_RETRIES;
  self->retry_base_delay = 0.5;
  self->headers = g_ptr_array_new_with_free_func (g_free);
}

/**
 * agents_openai_provider_new:
 *
 * Creates a provider configured from the environment.
 *
 * Returns: (transfer full): the provider
 */
AgentsOpenAIProvider *
agents_openai_provider_new (void)
{
  return g_object_new (AGENTS_TYPE_OPENAI_PROVIDER, NULL);
}

/**
 * agents_openai_provider_get_default:
 *
 * Gets the process's provider configured from the environment, which
 * models use when given none. Use it from one thread.
 *
 * Returns: (transfer none): the default provider
 */
AgentsOpenAIProvider *
agents_openai_provider_get_default (void)
{
  static AgentsOpenAIProvider *provider;

  if (g_once_init_enter (&provider))
    g_once_init_leave (&provider, agents_openai_provider_new ());
  return provider;
}

#define DEFINE_STRING_PROPERTY(member, PROP)                                   \
  const char *agents_openai_provider_get_##member (AgentsOpenAIProvider *self) \
  {                                                                            \
    g_return_val_if_fail (AGENTS_IS_OPENAI_PROVIDER (self), NULL);             \
    return self->member;                                                       \
  }                                                                            \
  void agents_openai_provider_set_##member (AgentsOpenAIProvider *self,        \
                                            const char *member)                \
  {                                                                            \
    g_return_if_fail (AGENTS_IS_OPENAI_PROVIDER (self));                       \
    if (set_str (&self->member, member))                                       \
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP]);            \
  }

/**
 * agents_openai_provider_get_base_url:
 * @self: a provider
 *
 * Gets the base URL.
 *
 * Returns: the base URL
 */
/**
 * agents_openai_provider_set_base_url:
 * @self: a provider
 * @base_url: (nullable): the base URL; %NULL for OpenAI's
 *
 * Sets the base URL.
 */
const char *
agents_openai_provider_get_base_url (AgentsOpenAIProvider *self)
{
  g_return_val_if_fail (AGENTS_IS_OPENAI_PROVIDER (self), NULL);
  return self->base_url;
}

void
agents_openai_provider_set_base_url (AgentsOpenAIProvider *self,
                                     const char *base_url)
{
  g_autofree char *trimmed = NULL;

  g_return_if_fail (AGENTS_IS_OPENAI_PROVIDER (self));

  trimmed = g_strdup (base_url ? base_url : DEFAULT_BASE_URL);
  while (g_str_has_suffix (trimmed, "/"))
    trimmed[strlen (trimmed) - 1] = '\0';
  if (set_str (&self->base_url, trimmed))
    {
      /* The session's proxy choice depends on the host. */
      g_clear_object (&self->session);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BASE_URL]);
    }
}

/**
 * agents_openai_provider_has_api_key:
 * @self: a provider
 *
 * Whether an API key is set (the key itself cannot be read back).
 *
 * Returns: %TRUE if a key is set
 */
gboolean
agents_openai_provider_has_api_key (AgentsOpenAIProvider *self)
{
  g_return_val_if_fail (AGENTS_IS_OPENAI_PROVIDER (self), FALSE);
  return self->api_key != NULL;
}

/**
 * agents_openai_provider_set_api_key:
 * @self: a provider
 * @api_key: (nullable): the API key; %NULL sends no `Authorization`
 *
 * Sets the API key.
 */
void
agents_openai_provider_set_api_key (AgentsOpenAIProvider *self,
                                    const char *api_key)
{
  g_return_if_fail (AGENTS_IS_OPENAI_PROVIDER (self));

  if (g_strcmp0 (self->api_key, api_key) == 0)
    return;
  if (self->api_key != NULL)
    memset (self->api_key, 0, strlen (self->api_key));
  g_free (self->api_key);
  self->api_key = api_key && *api_key ? g_strdup (api_key) : NULL;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_API_KEY]);
}

/**
 * agents_openai_provider_get_organization:
 * @self: a provider
 *
 * Gets the organization.
 *
 * Returns: (nullable): the organization
 */
/**
 * agents_openai_provider_set_organization:
 * @self: a provider
 * @organization: (nullable): the organization
 *
 * Sets the organization.
 */
DEFINE_STRING_PROPERTY (organization, PROP_ORGANIZATION)

/**
 * agents_openai_provider_get_project:
 * @self: a provider
 *
 * Gets the project.
 *
 * Returns: (nullable): the project
 */
/**
 * agents_openai_provider_set_project:
 * @self: a provider
 * @project: (nullable): the project
 *
 * Sets the project.
 */
DEFINE_STRING_PROPERTY (project, PROP_PROJECT)

/**
 * agents_openai_provider_get_timeout:
 * @self: a provider
 *
 * Gets the per-request timeout.
 *
 * Returns: seconds, 0 for none
 */
guint
agents_openai_provider_get_timeout (AgentsOpenAIProvider *self)
{
  g_return_val_if_fail (AGENTS_IS_OPENAI_PROVIDER (self), 0);
  return self->timeout;
}

/**
 * agents_openai_provider_set_timeout:
 * @self: a provider
 * @seconds: seconds, 0 for none
 *
 * Sets the per-request timeout, see #AgentsOpenAIProvider:timeout.
 */
void
agents_openai_provider_set_timeout (AgentsOpenAIProvider *self, guint seconds)
{
  g_return_if_fail (AGENTS_IS_OPENAI_PROVIDER (self));

  if (self->timeout == seconds)
    return;
  self->timeout = seconds;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TIMEOUT]);
}

/**
 * agents_openai_provider_get_max_retries:
 * @self: a provider
 *
 * Gets the number of retries.
 *
 * Returns: the number of retries
 */
guint
agents_openai_provider_get_max_retries (AgentsOpenAIProvider *self)
{
  g_return_val_if_fail (AGENTS_IS_OPENAI_PROVIDER (self), 0);
  return self->max_retries;
}

/**
 * agents_openai_provider_set_max_retries:
 * @self: a provider
 * @max_retries: the number of retries (2 by default)
 *
 * Sets the number of retries, see #AgentsOpenAIProvider:max-retries.
 */
void
agents_openai_provider_set_max_retries (AgentsOpenAIProvider *self,
                                        guint max_retries)
{
  g_return_if_fail (AGENTS_IS_OPENAI_PROVIDER (self));

  if (self->max_retries == max_retries)
    return;
  self->max_retries = max_retries;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_RETRIES]);
}

/**
 * agents_openai_provider_set_header:
 * @self: a provider
 * @name: a header name
 * @value: (nullable): its value; %NULL removes it
 *
 * Sends an extra header with every request.
 */
void
agents_openai_provider_set_header (AgentsOpenAIProvider *self,
                                   const char *name,
                                   const char *value)
{
  g_return_if_fail (AGENTS_IS_OPENAI_PROVIDER (self));
  g_return_if_fail (name != NULL && *name != '\0');

  for (guint i = 0; i < self->headers->len; i += 2)
    if (g_ascii_strcasecmp (self->headers->pdata[i], name) == 0)
      {
        g_ptr_array_remove_range (self->headers, i, 2);
        break;
      }
  if (value == NULL)
    return;
  g_ptr_array_add (self->headers, g_strdup (name));
  g_ptr_array_add (self->headers, g_strdup (value));
}

/* A server on this machine (Ollama, llama.cpp, the tests' model server)
 * is never reached through a proxy; skipping the system proxy resolver
 * for it saves loading libproxy and its first lookup (40–60 ms) before
 * the first request. */
static gboolean
base_url_is_loopback (const char *base_url)
{
  g_autoptr (GUri) uri = g_uri_parse (base_url, G_URI_FLAGS_NONE, NULL);
  g_autoptr (GInetAddress) address = NULL;
  const char *host;

  if (uri == NULL || (host = g_uri_get_host (uri)) == NULL)
    return FALSE;
  if (g_ascii_strcasecmp (host, "localhost") == 0)
    return TRUE;
  address = g_inet_address_new_from_string (host);
  return address != NULL && g_inet_address_get_is_loopback (address);
}

SoupSession *
agents_openai_provider_get_session (AgentsOpenAIProvider *self)
{
  if (self->session == NULL)
    {
      g_autofree char *agent =
        g_strdup_printf ("Agents/C %s", AGENTS_VERSION_S);

      /* Timeouts are the request's own, so they cover the whole wait. */
      self->session = soup_session_new_with_options (
        "user-agent", agent, "timeout", 0, "idle-timeout", 60, NULL);
      if (base_url_is_loopback (self->base_url))
        soup_session_set_proxy_resolver (self->session, NULL);
    }
  return self->session;
}

void
agents_openai_provider_apply_headers (AgentsOpenAIProvider *self,
                                      SoupMessageHeaders *headers)
{
  if (self->api_key != NULL)
    {
      g_autofree char *auth = g_strdup_printf ("Bearer %s", self->api_key);

      soup_message_headers_replace (headers, "Authorization", auth);
    }
  if (self->organization != NULL)
    soup_message_headers_replace (headers, "OpenAI-Organization",
                                  self->organization);
  if (self->project != NULL)
    soup_message_headers_replace (headers, "OpenAI-Project", self->project);
  for (guint i = 0; i < self->headers->len; i += 2)
    soup_message_headers_replace (headers, self->headers->pdata[i],
                                  self->headers->pdata[i + 1]);
}

char *
agents_openai_provider_redact (AgentsOpenAIProvider *self, const char *text)
{
  g_auto (GStrv) parts = NULL;

  if (text == NULL)
    return NULL;
  if (self->api_key == NULL || strstr (text, self->api_key) == NULL)
    return g_strdup (text);
  parts = g_strsplit (text, self->api_key, -1);
  return g_strjoinv ("<redacted>", parts);
}

gboolean
agents_openai_provider_is_official (AgentsOpenAIProvider *self)
{
  return g_str_has_prefix (self->base_url, "https://api.openai.com/");
}

double
agents_openai_provider_get_retry_base_delay (AgentsOpenAIProvider *self)
{
  return self->retry_base_delay;
}

void
agents_openai_provider_set_retry_base_delay (AgentsOpenAIProvider *self,
                                             double seconds)
{
  self->retry_base_delay = seconds;
}

const char *
agents_openai_default_model_name (void)
{
  const char *name = g_getenv ("OPENAI_DEFAULT_MODEL");

  return name != NULL && *name != '\0' ? name : DEFAULT_MODEL;
}
