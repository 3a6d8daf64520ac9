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
