/* agents-error.c - extended errors that carry a context dictionary
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "agents-error.h"

/*
 * Every domain registered here is an extended GError domain (GLib 2.68)
 * with the same private data: the context, an `a{sv}` dictionary. GLib
 * allocates the private data in front of the GError and calls the
 * init/copy/clear functions below for each error of these domains, so
 * one set of functions serves them all.
 */

typedef struct
{
  GVariant *context;
} AgentsErrorPrivate;

/* Domains registered through agents_error_register_domain(). */
static GHashTable *registered_domains;
static GMutex registered_lock;

static AgentsErrorPrivate *
error_private (const GError *error)
{
  /* The layout of G_DEFINE_EXTENDED_ERROR(): the private data, rounded up
   * to twice the size of a pointer, sits just before the GError. */
  const gsize align = 2 * sizeof (gsize);
  const gsize size = (sizeof (AgentsErrorPrivate) + (align - 1)) & -align;

  return (AgentsErrorPrivate *) (((guint8 *) error) - size);
}

static void
error_private_init (GError *error)
{
  error_private (error)->context = NULL;
}

static void
error_private_copy (const GError *src, GError *dest)
{
  GVariant *context = error_private (src)->context;

  error_private (dest)->context = context ? g_variant_ref (context) : NULL;
}

static void
error_private_clear (GError *error)
{
  g_clear_pointer (&error_private (error)->context, g_variant_unref);
}

/**
 * agents_error_register_domain:
 * @domain_name: the name of the error domain, e.g. `my-plugin-error-quark`
 *
 * Registers @domain_name as an error domain whose errors carry a context
 * dictionary, the way the library's own domains (%AGENTS_SANDBOX_ERROR,
 * %AGENTS_RUN_ERROR) do. Plugins register their own domains with this (or
 * with AGENTS_DEFINE_ERROR_QUARK()), then create errors with
 * agents_error_new() and read contexts with agents_error_get_context().
 *
 * Registering the same name again returns the same quark. The domain
 * must not be registered as an extended domain by other means, and no
 * error of the domain may exist before it is registered.
 *
 * Returns: the quark of the domain
 */
GQuark
agents_error_register_domain (const char *domain_name)
{
  g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&registered_lock);
  GQuark quark;

  g_return_val_if_fail (domain_name != NULL && *domain_name != '\0', 0);

  quark = g_quark_try_string (domain_name);
  if (quark != 0 && registered_domains != NULL &&
      g_hash_table_contains (registered_domains, GUINT_TO_POINTER (quark)))
    return quark;

  quark = g_error_domain_register (domain_name, sizeof (AgentsErrorPrivate),
                                   error_private_init, error_private_copy,
                                   error_private_clear);
  if (registered_domains == NULL)
    registered_domains = g_hash_table_new (NULL, NULL);
  g_hash_table_add (registered_domains, GUINT_TO_POINTER (quark));
  return quark;
}

/**
 * agents_error_domain_is_registered:
 * @domain: an error domain
 *
 * Tells whether @domain was registered with
 * agents_error_register_domain(), so that its errors carry a context.
 *
 * Returns: %TRUE when errors of @domain carry a context
 */
gboolean
agents_error_domain_is_registered (GQuark domain)
{
  g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&registered_lock);

  return registered_domains != NULL &&
         g_hash_table_contains (registered_domains, GUINT_TO_POINTER (domain));
}

/*
 * Language bindings turn a GError into their own exception type and keep
 * only domain, code and message; the extended private data is lost on the
 * way back in. So the contexts of recent errors are also remembered,
 * keyed by what survives that trip.
 */
#define RECENT_CONTEXTS 32

typedef struct
{
  GQuark domain;
  int code;
  char *message;
  GVariant *context;
} RecentContext;

typedef struct
{
  RecentContext slots[RECENT_CONTEXTS];
  guint next;
} RecentContexts;

/* Process-wide: errors are often made in g_task_run_in_thread() workers
 * and caught on the main thread. */
static RecentContexts recent_contexts;
static GMutex recent_lock;

static void
remember_context (const GError *error, GVariant *context)
{
  g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&recent_lock);
  RecentContexts *recent = &recent_contexts;
  RecentContext *slot = &recent->slots[recent->next];

  g_free (slot->message);
  g_clear_pointer (&slot->context, g_variant_unref);
  slot->domain = error->domain;
  slot->code = error->code;
  slot->message = g_strdup (error->message);
  slot->context = g_variant_ref (context);
  recent->next = (recent->next + 1) % RECENT_CONTEXTS;
}

static GVariant *
empty_context (void)
{
  return g_variant_ref_sink (
    g_variant_new_array (G_VARIANT_TYPE ("{sv}"), NULL, 0));
}

/**
 * agents_error_set_context:
 * @error: an error of a domain registered with
 *   agents_error_register_domain()
 * @context: (transfer floating) (nullable): an `a{sv}` dictionary; %NULL
 *   for an empty one
 *
 * Replaces the context of @error.
 */
void
agents_error_set_context (GError *error, GVariant *context)
{
  AgentsErrorPrivate *priv;

  g_return_if_fail (error != NULL);
  g_return_if_fail (agents_error_domain_is_registered (error->domain));

  if (context == NULL)
    context = g_variant_new_array (G_VARIANT_TYPE ("{sv}"), NULL, 0);
  g_variant_ref_sink (context);
  if (!g_variant_is_of_type (context, G_VARIANT_TYPE_VARDICT))
    {
      g_critical ("%s: the context must be an a{sv} dictionary, not %s",
                  G_STRFUNC, g_variant_get_type_string (context));
      g_variant_unref (context);
      return;
    }

  priv = error_private (error);
  g_clear_pointer (&priv->context, g_variant_unref);
  priv->context = context;
  remember_context (error, priv->context);
}

/**
 * agents_error_new_literal:
 * @domain: a domain registered with agents_error_register_domain()
 * @code: the error code
 * @context: (transfer floating) (nullable): the context, an `a{sv}`
 * @message: the message
 *
 * Creates an error carrying @context. Plugins, tools and backends written
 * in any language use this to fail the way built-in ones do.
 *
 * Returns: (transfer full): the error
 */
GError *
agents_error_new_literal (GQuark domain,
                          int code,
                          GVariant *context,
                          const char *message)
{
  GError *error = g_error_new_literal (domain, code, message);

  agents_error_set_context (error, context);
  return error;
}

/**
 * agents_error_new_valist: (skip)
 * @domain: a domain registered with agents_error_register_domain()
 * @code: the error code
 * @context: (transfer floating) (nullable): the context, an `a{sv}`
 * @format: printf()-style format of the message
 * @args: arguments for @format
 *
 * Creates an error carrying @context.
 *
 * Returns: (transfer full): the error
 */
GError *
agents_error_new_valist (
  GQuark domain, int code, GVariant *context, const char *format, va_list args)
{
  GError *error = g_error_new_valist (domain, code, format, args);

  agents_error_set_context (error, context);
  return error;
}

/**
 * agents_error_new: (skip)
 * @domain: a domain registered with agents_error_register_domain()
 * @code: the error code
 * @context: (transfer floating) (nullable): the context, an `a{sv}`
 * @format: printf()-style format of the message
 * @...: arguments for @format
 *
 * Creates an error carrying @context.
 *
 * Returns: (transfer full): the error
 */
GError *
agents_error_new (
  GQuark domain, int code, GVariant *context, const char *format, ...)
{
  GError *error;
  va_list args;

  va_start (args, format);
  error = agents_error_new_valist (domain, code, context, format, args);
  va_end (args);
  return error;
}

/**
 * agents_error_set_valist: (skip)
 * @error: (nullable): return location for a #GError
 * @domain: a domain registered with agents_error_register_domain()
 * @code: the error code
 * @context: (transfer floating) (nullable): the context, an `a{sv}`
 * @format: printf()-style format of the message
 * @args: arguments for @format
 *
 * Sets @error to an error carrying @context. A floating @context is
 * consumed even when @error is %NULL.
 */
void
agents_error_set_valist (GError **error,
                         GQuark domain,
                         int code,
                         GVariant *context,
                         const char *format,
                         va_list args)
{
  if (error == NULL)
    {
      if (context != NULL)
        g_variant_unref (g_variant_ref_sink (context));
      return;
    }

  g_propagate_error (
    error, agents_error_new_valist (domain, code, context, format, args));
}

/**
 * agents_error_set: (skip)
 * @error: (nullable): return location for a #GError
 * @domain: a domain registered with agents_error_register_domain()
 * @code: the error code
 * @context: (transfer floating) (nullable): the context, an `a{sv}`
 * @format: printf()-style format of the message
 * @...: arguments for @format
 *
 * Sets @error to an error carrying @context. A floating @context is
 * consumed even when @error is %NULL.
 */
void
agents_error_set (GError **error,
                  GQuark domain,
                  int code,
                  GVariant *context,
                  const char *format,
                  ...)
{
  va_list args;

  va_start (args, format);
  agents_error_set_valist (error, domain, code, context, format, args);
  va_end (args);
}

/**
 * agents_error_peek_context:
 * @error: a #GError
 *
 * Gets the context that @error carries in its own data, without looking
 * at recent errors (see agents_error_get_context()).
 *
 * Returns: (transfer none) (nullable): the `a{sv}` context, valid as long
 *   as @error, or %NULL when @error carries none
 */
GVariant *
agents_error_peek_context (const GError *error)
{
  g_return_val_if_fail (error != NULL, NULL);

  if (!agents_error_domain_is_registered (error->domain))
    return NULL;
  return error_private (error)->context;
}

/**
 * agents_error_get_context:
 * @error: a #GError
 *
 * Gets the context dictionary that @error carries, for an error of any
 * domain registered with agents_error_register_domain(): the library's
 * own and the plugins'.
 *
 * Errors that crossed a language binding lose their extended data; for
 * those the context is looked up from the recent errors of the process,
 * see agents_error_lookup_context().
 *
 * Returns: (transfer full): an `a{sv}` dictionary, empty when @error has
 *   no context
 */
GVariant *
agents_error_get_context (const GError *error)
{
  GVariant *context;

  g_return_val_if_fail (error != NULL, NULL);

  if (!agents_error_domain_is_registered (error->domain))
    return empty_context ();
  context = error_private (error)->context;
  if (context != NULL)
    return g_variant_ref (context);
  return agents_error_lookup_context_by_quark (error->domain, error->code,
                                               error->message);
}

/**
 * agents_error_lookup_context_by_quark:
 * @domain: the error domain
 * @code: the error code
 * @message: the error message
 *
 * Looks up the context of a recent error by its domain, code and message.
 * This is how JavaScript code reads the context of an exception it
 * caught:
 *
 * ```js
 * } catch (e) {
 *     const ctx = Agents.error_lookup_context_by_quark(e.domain, e.code,
 *                                                      e.message);
 * ```
 *
 * Returns: (transfer full): an `a{sv}` dictionary, empty when nothing is
 *   known about the error
 */
GVariant *
agents_error_lookup_context_by_quark (GQuark domain,
                                      int code,
                                      const char *message)
{
  g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&recent_lock);
  RecentContexts *recent = &recent_contexts;

  for (guint i = 1; i <= RECENT_CONTEXTS; i++)
    {
      RecentContext *slot =
        &recent->slots[(recent->next + RECENT_CONTEXTS - i) % RECENT_CONTEXTS];

      if (slot->context != NULL && slot->domain == domain &&
          slot->code == code && g_strcmp0 (slot->message, message) == 0)
        return g_variant_ref (slot->context);
    }

  return empty_context ();
}

/**
 * agents_error_lookup_context:
 * @domain: the error domain's name, e.g. `agents-sandbox-error-quark`
 * @code: the error code
 * @message: the error message
 *
 * Like agents_error_lookup_context_by_quark(), for bindings that give the
 * domain of a caught error as a string. From Python:
 *
 * ```python
 * except GLib.Error as e:
 *     ctx = Agents.error_lookup_context(e.domain, e.code, e.message)
 *     print(ctx["reason"])
 * ```
 *
 * Works for every domain registered with agents_error_register_domain().
 *
 * Returns: (transfer full): an `a{sv}` dictionary, empty when nothing is
 *   known about the error
 */
GVariant *
agents_error_lookup_context (const char *domain, int code, const char *message)
{
  GQuark quark = domain != NULL ? g_quark_try_string (domain) : 0;

  if (quark == 0)
    return empty_context ();
  return agents_error_lookup_context_by_quark (quark, code, message);
}
