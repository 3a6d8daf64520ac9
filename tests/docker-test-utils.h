/* docker-test-utils.h - what the docker tests share
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <agents.h>

G_BEGIN_DECLS

/* Built by tests/docker/build-image.sh. */
#define AGENTS_DOCKER_TEST_IMAGE "libagents-test:busybox"

/* NULL when the engine answers and has the test image; otherwise why
 * not (transfer full). CI always has both: the tests are only skipped
 * on a developer machine without Docker, and say so. */
char *agents_docker_test_unavailable (void);

/* A test function that skips with the reason given as data. */
void agents_docker_test_skip (gconstpointer reason);

/* Runs the tests, then removes the libagents containers this process
 * left behind and fails if there were any. */
int agents_docker_test_run_and_reap (void);

/* Counts the containers labelled as libagents' whose owner is this
 * process. */
guint agents_docker_test_count_own_containers (void);

G_END_DECLS
