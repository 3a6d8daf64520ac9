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
void agents_error_remember_context (const GError *error, GVariant *context);

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
