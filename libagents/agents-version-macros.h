/* agents-version-macros.h - version and visibility macros
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include <glib.h>

#include "agents-version.h"

#ifndef _AGENTS_EXTERN
#define _AGENTS_EXTERN __attribute__ ((visibility ("default"))) extern
#endif

#define AGENTS_VERSION_1_0 (G_ENCODE_VERSION (1, 0))

#ifndef AGENTS_VERSION_MIN_REQUIRED
#define AGENTS_VERSION_MIN_REQUIRED AGENTS_VERSION_1_0
#endif

#ifndef AGENTS_VERSION_MAX_ALLOWED
#define AGENTS_VERSION_MAX_ALLOWED AGENTS_VERSION_1_0
#endif

#define AGENTS_AVAILABLE_IN_ALL _AGENTS_EXTERN
#define AGENTS_AVAILABLE_IN_1_0 _AGENTS_EXTERN
#define AGENTS_DEPRECATED_IN_1_0 G_DEPRECATED _AGENTS_EXTERN
