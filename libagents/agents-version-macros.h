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

/**
 * AGENTS_DEPRECATED:
 *
 * Marks a deprecated symbol: the compiler warns where it is used, unless
 * `AGENTS_DISABLE_DEPRECATION_WARNINGS` is defined.
 */

/**
 * AGENTS_DEPRECATED_FOR:
 * @f: the symbol to use instead
 *
 * Marks a symbol replaced by @f: the compiler warns where it is used and
 * names @f, unless `AGENTS_DISABLE_DEPRECATION_WARNINGS` is defined.
 */

/**
 * AGENTS_UNAVAILABLE:
 * @maj: the major version that introduced the symbol
 * @min: the minor version that introduced the symbol
 *
 * Marks a symbol newer than `AGENTS_VERSION_MAX_ALLOWED`: the compiler
 * warns where it is used, unless `AGENTS_DISABLE_DEPRECATION_WARNINGS`
 * is defined.
 */
#ifdef AGENTS_DISABLE_DEPRECATION_WARNINGS
#define AGENTS_DEPRECATED _AGENTS_EXTERN
#define AGENTS_DEPRECATED_FOR(f) _AGENTS_EXTERN
#define AGENTS_UNAVAILABLE(maj, min) _AGENTS_EXTERN
#else
#define AGENTS_DEPRECATED G_DEPRECATED _AGENTS_EXTERN
#define AGENTS_DEPRECATED_FOR(f) G_DEPRECATED_FOR (f) _AGENTS_EXTERN
#define AGENTS_UNAVAILABLE(maj, min) G_UNAVAILABLE (maj, min) _AGENTS_EXTERN
#endif

/* Each new API version adds its AGENTS_VERSION_X_Y here, moves
 * AGENTS_VERSION_CUR_STABLE and AGENTS_VERSION_PREV_STABLE, and adds its
 * set of AVAILABLE_IN / DEPRECATED_IN macros at the end. */

/**
 * AGENTS_VERSION_1_0:
 *
 * The encoded representation of the libagents API version 1.0.
 */
#define AGENTS_VERSION_1_0 (G_ENCODE_VERSION (1, 0))

/* The current API version, and the one before it (the current one while
 * there is none before it). */
#define AGENTS_VERSION_CUR_STABLE AGENTS_VERSION_1_0
#define AGENTS_VERSION_PREV_STABLE AGENTS_VERSION_1_0

/**
 * AGENTS_VERSION_MIN_REQUIRED:
 *
 * A macro that a program may define before including `agents.h`: the
 * oldest API version (one of the `AGENTS_VERSION_X_Y` macros) it must
 * build against. Symbols deprecated in that version or an earlier one
 * warn where they are used; symbols deprecated later do not.
 *
 * Defaults to `AGENTS_VERSION_CUR_STABLE`.
 */
#ifndef AGENTS_VERSION_MIN_REQUIRED
#define AGENTS_VERSION_MIN_REQUIRED (AGENTS_VERSION_CUR_STABLE)
#endif

/**
 * AGENTS_VERSION_MAX_ALLOWED:
 *
 * A macro that a program may define before including `agents.h`: the
 * newest API version (one of the `AGENTS_VERSION_X_Y` macros) it may use.
 * Symbols introduced after it warn where they are used.
 *
 * Defaults to `AGENTS_VERSION_MIN_REQUIRED` when that is newer than
 * `AGENTS_VERSION_PREV_STABLE`, otherwise to `AGENTS_VERSION_CUR_STABLE`.
 */
#ifndef AGENTS_VERSION_MAX_ALLOWED
#if AGENTS_VERSION_MIN_REQUIRED > AGENTS_VERSION_PREV_STABLE
#define AGENTS_VERSION_MAX_ALLOWED (AGENTS_VERSION_MIN_REQUIRED)
#else
#define AGENTS_VERSION_MAX_ALLOWED (AGENTS_VERSION_CUR_STABLE)
#endif
#endif

#if AGENTS_VERSION_MAX_ALLOWED < AGENTS_VERSION_MIN_REQUIRED
#error "AGENTS_VERSION_MAX_ALLOWED must be >= AGENTS_VERSION_MIN_REQUIRED"
#endif
#if AGENTS_VERSION_MIN_REQUIRED < AGENTS_VERSION_1_0
#error "AGENTS_VERSION_MIN_REQUIRED must be >= AGENTS_VERSION_1_0"
#endif

/* A symbol available in every version; then, per API version, the
 * macros that mark a symbol introduced or deprecated in it. */
#define AGENTS_AVAILABLE_IN_ALL _AGENTS_EXTERN

/**
 * AGENTS_DEPRECATED_IN_1_0:
 *
 * Marks a symbol deprecated in version 1.0: it warns where it is used
 * when `AGENTS_VERSION_MIN_REQUIRED` is 1.0 or newer.
 */

/**
 * AGENTS_DEPRECATED_IN_1_0_FOR:
 * @f: the symbol to use instead
 *
 * Marks a symbol deprecated in version 1.0 in favour of @f: it warns
 * where it is used when `AGENTS_VERSION_MIN_REQUIRED` is 1.0 or newer.
 */

/**
 * AGENTS_AVAILABLE_IN_1_0:
 *
 * Marks a symbol introduced in version 1.0: it warns where it is used
 * when `AGENTS_VERSION_MAX_ALLOWED` is older than 1.0.
 */

/* 1.0 */
#if AGENTS_VERSION_MIN_REQUIRED >= AGENTS_VERSION_1_0
#define AGENTS_DEPRECATED_IN_1_0 AGENTS_DEPRECATED
#define AGENTS_DEPRECATED_IN_1_0_FOR(f) AGENTS_DEPRECATED_FOR (f)
#else
#define AGENTS_DEPRECATED_IN_1_0 _AGENTS_EXTERN
#define AGENTS_DEPRECATED_IN_1_0_FOR(f) _AGENTS_EXTERN
#endif

#if AGENTS_VERSION_MAX_ALLOWED < AGENTS_VERSION_1_0
#define AGENTS_AVAILABLE_IN_1_0 AGENTS_UNAVAILABLE (1, 0)
#else
#define AGENTS_AVAILABLE_IN_1_0 _AGENTS_EXTERN
#endif
