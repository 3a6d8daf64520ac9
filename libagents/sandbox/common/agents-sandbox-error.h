/* agents-sandbox-error.h - the sandbox error domain
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(AGENTS_INSIDE) && !defined(AGENTS_COMPILATION)
#error "Only <agents.h> can be included directly."
#endif

#include <glib.h>

#include "agents-error.h"
#include "agents-version-macros.h"

G_BEGIN_DECLS

#define AGENTS_SANDBOX_ERROR (agents_sandbox_error_quark ())

/**
 * AgentsSandboxError:
 * @AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT: a value given by the caller is
 *   invalid (the reference's `ValueError`)
 * @AGENTS_SANDBOX_ERROR_NOT_SUPPORTED: the implementation does not support
 *   the operation
 * @AGENTS_SANDBOX_ERROR_UNKNOWN_TYPE: no type is registered under a name
 * @AGENTS_SANDBOX_ERROR_INVALID_JSON: a JSON document has the wrong shape
 * @AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH: a path escapes the workspace
 *   root or is otherwise not allowed
 * @AGENTS_SANDBOX_ERROR_EXEC_NONZERO: a command exited with a non-zero status
 * @AGENTS_SANDBOX_ERROR_EXEC_TIMEOUT: a command did not finish in time
 * @AGENTS_SANDBOX_ERROR_EXEC_TRANSPORT: a command could not be run, or its
 *   result could not be read
 * @AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ: reading from the workspace
 *   failed
 * @AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE: writing into the workspace
 *   failed
 * @AGENTS_SANDBOX_ERROR_WORKSPACE_READ_NOT_FOUND: a path to read does not
 *   exist
 * @AGENTS_SANDBOX_ERROR_WORKSPACE_START: the workspace could not be started
 * @AGENTS_SANDBOX_ERROR_WORKSPACE_STOP: the workspace could not be stopped
 * @AGENTS_SANDBOX_ERROR_LOCAL_FILE_READ: a `local_file` source could not be
 *   read
 * @AGENTS_SANDBOX_ERROR_LOCAL_DIR_READ: a `local_dir` source could not be
 *   read
 * @AGENTS_SANDBOX_ERROR_LOCAL_ARTIFACT_NOT_ALLOWED: a local source lies
 *   outside the allowed base directory
 * @AGENTS_SANDBOX_ERROR_GIT_MISSING: git is not available
 * @AGENTS_SANDBOX_ERROR_GIT_CLONE: a `git_repo` entry could not be cloned
 * @AGENTS_SANDBOX_ERROR_MOUNT_FAILED: a mount or unmount failed
 * @AGENTS_SANDBOX_ERROR_MOUNT_CONFIG: a mount entry is misconfigured
 * @AGENTS_SANDBOX_ERROR_SNAPSHOT_PERSIST: a snapshot could not be written
 * @AGENTS_SANDBOX_ERROR_SNAPSHOT_RESTORE: a snapshot could not be read
 * @AGENTS_SANDBOX_ERROR_SNAPSHOT_NOT_RESTORABLE: there is nothing to restore
 * @AGENTS_SANDBOX_ERROR_ARCHIVE_LIMIT: an archive exceeds the archive limits
 * @AGENTS_SANDBOX_ERROR_UNSAFE_ARCHIVE_MEMBER: an archive member would land
 *   outside its destination or is of a forbidden kind
 * @AGENTS_SANDBOX_ERROR_FAILED: any other failure
 * @AGENTS_SANDBOX_ERROR_GIT_SUBPATH: the subpath of a `git_repo` entry is
 *   not a relative path inside the repository
 * @AGENTS_SANDBOX_ERROR_GIT_COPY: a `git_repo` checkout could not be
 *   copied to its destination in the sandbox
 * @AGENTS_SANDBOX_ERROR_INVALID_COMPRESSION_SCHEME: an archive's name does
 *   not say a scheme that can be extracted (the reference's
 *   `InvalidCompressionScheme`; context {scheme})
 *
 * Error codes of the %AGENTS_SANDBOX_ERROR domain. They mirror the error
 * taxonomy of the reference sandbox runtime. Every error of this domain
 * carries a context dictionary, see agents_sandbox_error_get_context().
 *
 * Codes are only ever appended.
 */
typedef enum
{
  AGENTS_SANDBOX_ERROR_INVALID_ARGUMENT,
  AGENTS_SANDBOX_ERROR_NOT_SUPPORTED,
  AGENTS_SANDBOX_ERROR_UNKNOWN_TYPE,
  AGENTS_SANDBOX_ERROR_INVALID_JSON,
  AGENTS_SANDBOX_ERROR_INVALID_MANIFEST_PATH,
  AGENTS_SANDBOX_ERROR_EXEC_NONZERO,
  AGENTS_SANDBOX_ERROR_EXEC_TIMEOUT,
  AGENTS_SANDBOX_ERROR_EXEC_TRANSPORT,
  AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_READ,
  AGENTS_SANDBOX_ERROR_WORKSPACE_ARCHIVE_WRITE,
  AGENTS_SANDBOX_ERROR_WORKSPACE_READ_NOT_FOUND,
  AGENTS_SANDBOX_ERROR_WORKSPACE_START,
  AGENTS_SANDBOX_ERROR_WORKSPACE_STOP,
  AGENTS_SANDBOX_ERROR_LOCAL_FILE_READ,
  AGENTS_SANDBOX_ERROR_LOCAL_DIR_READ,
  AGENTS_SANDBOX_ERROR_LOCAL_ARTIFACT_NOT_ALLOWED,
  AGENTS_SANDBOX_ERROR_GIT_MISSING,
  AGENTS_SANDBOX_ERROR_GIT_CLONE,
  AGENTS_SANDBOX_ERROR_MOUNT_FAILED,
  AGENTS_SANDBOX_ERROR_MOUNT_CONFIG,
  AGENTS_SANDBOX_ERROR_SNAPSHOT_PERSIST,
  AGENTS_SANDBOX_ERROR_SNAPSHOT_RESTORE,
  AGENTS_SANDBOX_ERROR_SNAPSHOT_NOT_RESTORABLE,
  AGENTS_SANDBOX_ERROR_ARCHIVE_LIMIT,
  AGENTS_SANDBOX_ERROR_UNSAFE_ARCHIVE_MEMBER,
  AGENTS_SANDBOX_ERROR_FAILED,
  AGENTS_SANDBOX_ERROR_GIT_SUBPATH,
  AGENTS_SANDBOX_ERROR_GIT_COPY,
  AGENTS_SANDBOX_ERROR_INVALID_COMPRESSION_SCHEME,
} AgentsSandboxError;

AGENTS_AVAILABLE_IN_1_0
GQuark agents_sandbox_error_quark (void);

AGENTS_AVAILABLE_IN_1_0
GVariant *agents_sandbox_error_get_context (const GError *error);

AGENTS_AVAILABLE_IN_1_0
GVariant *agents_sandbox_error_lookup_context (GQuark domain,
                                               int code,
                                               const char *message);

AGENTS_AVAILABLE_IN_1_0
const char *agents_sandbox_error_get_reason (const GError *error);

AGENTS_AVAILABLE_IN_1_0
GError *agents_sandbox_error_new_literal (int code,
                                          GVariant *context,
                                          const char *message);
AGENTS_AVAILABLE_IN_1_0
GError *
agents_sandbox_error_new (int code, GVariant *context, const char *format, ...)
  G_GNUC_PRINTF (3, 4);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_error_set (GError **error,
                               int code,
                               GVariant *context,
                               const char *format,
                               ...) G_GNUC_PRINTF (4, 5);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_error_set_context (GError *error, GVariant *context);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_error_set_invalid_path (GError **error,
                                            const char *rel,
                                            const char *reason);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_error_set_exec_nonzero (GError **error,
                                            const char *const *argv,
                                            int exit_code,
                                            GBytes *stdout_bytes,
                                            GBytes *stderr_bytes);
AGENTS_AVAILABLE_IN_1_0
void agents_sandbox_error_set_exec_transport (GError **error,
                                              const char *const *argv,
                                              const char *reason,
                                              GVariant *extra_context);
AGENTS_AVAILABLE_IN_1_0
GVariant *agents_sandbox_error_argv_variant (const char *const *argv);
AGENTS_AVAILABLE_IN_1_0
char *agents_sandbox_error_argv_string (const char *const *argv);

G_END_DECLS
