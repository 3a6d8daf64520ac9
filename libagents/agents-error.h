/* agents-error.h - extended errors that carry a context dictionary
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include <glib.h>

#include "agents-version-macros.h"

G_BEGIN_DECLS

AGENTS_AVAILABLE_IN_1_0
GQuark agents_error_register_domain (const char *domain_name);
AGENTS_AVAILABLE_IN_1_0
gboolean agents_error_domain_is_registered (GQuark domain);

AGENTS_AVAILABLE_IN_1_0
GError *
agents_error_new_literal (GQuark domain,
                          int code,
                          GVariant *context,
                          const char *message) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
GError *agents_error_new (GQuark domain,
                          int code,
                          GVariant *context,
                          const char *format,
                          ...) G_GNUC_PRINTF (4, 5) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
GError *agents_error_new_valist (
  GQuark domain, int code, GVariant *context, const char *format, va_list args)
  G_GNUC_PRINTF (4, 0) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
void agents_error_set (GError **error,
                       GQuark domain,
                       int code,
                       GVariant *context,
                       const char *format,
                       ...) G_GNUC_PRINTF (5, 6);
AGENTS_AVAILABLE_IN_1_0
void agents_error_set_valist (GError **error,
                              GQuark domain,
                              int code,
                              GVariant *context,
                              const char *format,
                              va_list args) G_GNUC_PRINTF (5, 0);

AGENTS_AVAILABLE_IN_1_0
void agents_error_set_context (GError *error, GVariant *context);
AGENTS_AVAILABLE_IN_1_0
GVariant *
agents_error_get_context (const GError *error) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
GVariant *agents_error_peek_context (const GError *error);
AGENTS_AVAILABLE_IN_1_0
GVariant *agents_error_lookup_context (
  const char *domain, int code, const char *message) G_GNUC_WARN_UNUSED_RESULT;
AGENTS_AVAILABLE_IN_1_0
GVariant *agents_error_lookup_context_by_quark (
  GQuark domain, int code, const char *message) G_GNUC_WARN_UNUSED_RESULT;

/**
 * AGENTS_DEFINE_ERROR_QUARK:
 * @error_type: the prefix of the quark function, e.g. `my_plugin_error`
 * @domain_name: the domain's name, e.g. `"my-plugin-error-quark"`
 *
 * Defines `error_type_quark()`, which registers @domain_name with
 * agents_error_register_domain() the first time it is called, so that
 * every error of the domain carries a context dictionary:
 *
 * ```c
 * #define MY_PLUGIN_ERROR (my_plugin_error_quark ())
 * AGENTS_DEFINE_ERROR_QUARK (my_plugin_error, "my-plugin-error-quark")
 * ```
 */
#define AGENTS_DEFINE_ERROR_QUARK(error_type, domain_name)                    \
  GQuark error_type##_quark (void)                                            \
  {                                                                           \
    static gsize quark = 0;                                                   \
                                                                              \
    if (g_once_init_enter (&quark))                                           \
      g_once_init_leave (&quark, agents_error_register_domain (domain_name)); \
    return (GQuark) quark;                                                    \
  }

G_END_DECLS
