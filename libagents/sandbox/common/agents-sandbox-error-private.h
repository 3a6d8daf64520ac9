/* agents-sandbox-error-private.h - building sandbox errors with context
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The helpers that build sandbox errors are public API (backends in
 * plugins need them); this header remains for the library's own files.
 */

#pragma once

#include "agents-sandbox-error.h"

G_BEGIN_DECLS

/* Remembers the context of an error of any extended domain for this
 * thread, so that agents_sandbox_error_lookup_context() (and the run error
 * domain's lookup) find it again after a trip through a language
 * binding. */
AGENTS_AVAILABLE_IN_1_0
void agents_error_remember_context (const GError *error, GVariant *context);

/* Reads the context of an error of a domain defined outside this file
 * (transfer full, or NULL when it has none). */
typedef GVariant *(*AgentsErrorContextFunc) (const GError *error);

/* Lets agents_sandbox_error_get_context() read the contexts of @domain,
 * an extended domain of a plugin. Exported (like
 * agents_error_remember_context()) for the plugins, which link the shared
 * library, but not public API. */
AGENTS_AVAILABLE_IN_1_0
void agents_error_register_context_func (GQuark domain,
                                         AgentsErrorContextFunc func);

G_END_DECLS

/*
 * G_DEFINE_EXTENDED_ERROR() with an explicit domain name: GLib's macro
 * names the domain after the type ("AgentsSandboxError"), while GNOME
 * libraries, their documentation and language bindings use
 * "<prefix>-error-quark".
 */
#define AGENTS_DEFINE_EXTENDED_ERROR(ErrorType, error_type, domain_name)   \
  static inline ErrorType##Private *error_type##_get_private (             \
    const GError *error)                                                   \
  {                                                                        \
    const gsize sa = 2 * sizeof (gsize);                                   \
    const gsize as = (sizeof (ErrorType##Private) + (sa - 1)) & -sa;       \
    g_return_val_if_fail (error != NULL, NULL);                            \
    g_return_val_if_fail (error->domain == error_type##_quark (), NULL);   \
    return (ErrorType##Private *) (((guint8 *) error) - as);               \
  }                                                                        \
                                                                           \
  static void g_error_with_##error_type##_private_init (GError *error)     \
  {                                                                        \
    error_type##_private_init (error_type##_get_private (error));          \
  }                                                                        \
                                                                           \
  static void g_error_with_##error_type##_private_copy (const GError *src, \
                                                        GError *dest)      \
  {                                                                        \
    error_type##_private_copy (error_type##_get_private (src),             \
                               error_type##_get_private (dest));           \
  }                                                                        \
                                                                           \
  static void g_error_with_##error_type##_private_clear (GError *error)    \
  {                                                                        \
    error_type##_private_clear (error_type##_get_private (error));         \
  }                                                                        \
                                                                           \
  GQuark error_type##_quark (void)                                         \
  {                                                                        \
    static GQuark q;                                                       \
    static gsize initialized = 0;                                          \
                                                                           \
    if (g_once_init_enter (&initialized))                                  \
      {                                                                    \
        q = g_error_domain_register_static (                               \
          domain_name, sizeof (ErrorType##Private),                        \
          g_error_with_##error_type##_private_init,                        \
          g_error_with_##error_type##_private_copy,                        \
          g_error_with_##error_type##_private_clear);                      \
        g_once_init_leave (&initialized, 1);                               \
      }                                                                    \
    return q;                                                              \
  }
