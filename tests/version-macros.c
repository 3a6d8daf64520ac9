/* version-macros.c - what tests/check-version-macros.sh compiles
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Compiled with -fsyntax-only and deprecation warnings as errors, once
 * per case; each case (a -D of its own) uses the version macros the way
 * a program does and must compile, or must fail, as the script says.
 */

#define AGENTS_INSIDE
#include "agents-version-macros.h"

#ifdef CASE_DEFAULTS
/* Without a choice, a program targets the current API version. */
G_STATIC_ASSERT (AGENTS_VERSION_MIN_REQUIRED == AGENTS_VERSION_CUR_STABLE);
G_STATIC_ASSERT (AGENTS_VERSION_MAX_ALLOWED == AGENTS_VERSION_CUR_STABLE);
G_STATIC_ASSERT (AGENTS_VERSION_1_0 == G_ENCODE_VERSION (1, 0));

AGENTS_AVAILABLE_IN_1_0
int agents_test_available (void);

int
use (void)
{
  return agents_test_available ();
}
#endif

#ifdef CASE_DEPRECATED_FOR
AGENTS_AVAILABLE_IN_1_0
int agents_test_new (void);
AGENTS_DEPRECATED_FOR (agents_test_new)
int agents_test_old (void);

int
use (void)
{
  return agents_test_old ();
}
#endif

#ifdef CASE_DEPRECATED
AGENTS_DEPRECATED
int agents_test_old (void);

int
use (void)
{
  return agents_test_old ();
}
#endif

#ifdef CASE_DEPRECATED_IN_1_0
AGENTS_DEPRECATED_IN_1_0_FOR (agents_test_new)
int agents_test_old (void);

int
use (void)
{
  return agents_test_old ();
}
#endif

#ifdef CASE_UNAVAILABLE
/* What AGENTS_AVAILABLE_IN_X_Y becomes for a version after MAX_ALLOWED. */
AGENTS_UNAVAILABLE (9, 9)
int agents_test_future (void);

int
use (void)
{
  return agents_test_future ();
}
#endif

#ifdef CASE_EMPTY
int
use (void)
{
  return 0;
}
#endif
