/* agents.h - libagents, agents that work in sandboxes
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#define AGENTS_INSIDE

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "agents-version.h"
#include "agents-version-macros.h"

#include "agents-enums.h"
#include "agents-error.h"
#include "agents-registry.h"

#include "sandbox/common/agents-sandbox-error.h"
#include "sandbox/common/agents-sandbox-types.h"
#include "sandbox/common/agents-typed-json.h"
#include "sandbox/manifest/agents-env-value.h"
#include "sandbox/common/agents-dependencies.h"
#include "sandbox/manifest/agents-manifest-entry.h"
#include "sandbox/manifest/agents-manifest.h"
#include "sandbox/archive/agents-snapshot.h"
#include "sandbox/archive/agents-remote-snapshot.h"
#include "sandbox/archive/agents-archive.h"
#include "sandbox/archive/agents-archive-stream.h"
#include "sandbox/common/agents-fs.h"
#include "sandbox/common/agents-workspace-path-policy.h"
#include "sandbox/session/agents-sandbox-session-state.h"
#include "sandbox/session/agents-runtime-helper.h"
#include "sandbox/session/agents-sandbox-session.h"
#include "sandbox/session/agents-sandbox-session-base.h"
#include "sandbox/session/agents-sandbox-process.h"
#include "sandbox/session/agents-sandbox-client.h"
#include "sandbox/session/agents-sandbox-client-base.h"
#include "sandbox/capabilities/agents-capability.h"
#include "sandbox/capabilities/agents-builtin-capabilities.h"

#include "run/agents-run-error.h"
#include "run/agents-model-settings.h"
#include "run/agents-run-item.h"
#include "run/agents-run-context.h"
#include "models/agents-model.h"
#include "run/agents-tool.h"
#include "run/agents-tool-output.h"
#include "run/agents-custom-tool.h"
#include "run/agents-guardrail.h"
#include "run/agents-agent.h"
#include "run/agents-run-config.h"
#include "run/agents-tracing.h"
#include "run/agents-conversation-session.h"
#include "run/agents-sqlite-session.h"
#include "run/agents-run-state.h"
#include "run/agents-run-result.h"
#include "run/agents-runner.h"
#include "sandbox/runtime/agents-sandbox-instructions.h"
#include "sandbox/runtime/agents-sandbox-agent.h"
#include "sandbox/runtime/agents-sandbox-run-config.h"
#include "sandbox/runtime/agents-sandbox-session-manager.h"
#include "sandbox/runtime/agents-sandbox-runtime.h"
#include "models/agents-scripted-model.h"
#include "models/agents-testing.h"
#include "models/agents-openai-provider.h"
#include "models/agents-openai-responses-model.h"
#include "models/agents-openai-chat-completions-model.h"

#undef AGENTS_INSIDE
