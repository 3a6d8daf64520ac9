#!/bin/sh
# test-cli-inputs.sh - hostile input files given to the `agents` program
# (TAP): documents nested 200,000 levels deep, FIFOs and directories
# where a JSON file is expected. Each must fail at once with an error
# that names the file, never crash or hang.
#
# Usage: test-cli-inputs.sh AGENTS_BINARY
# AGENTS_PLUGIN_PATH must point at the built plugin modules.
#
# Copyright 2026 The libagents authors
# SPDX-License-Identifier: LGPL-2.1-or-later
set -u

agents=$1
python=/usr/bin/python3

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-cli-inputs-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/tmpdir" "$tmp/cache"
export TMPDIR="$tmp/tmpdir" XDG_CACHE_HOME="$tmp/cache"

n=0
failed=0

pass() {
  n=$((n + 1))
  echo "ok $n - $1"
}

fail() {
  n=$((n + 1))
  failed=$((failed + 1))
  echo "not ok $n - $1"
  for f in "$tmp/out" "$tmp/err"; do
    [ -s "$f" ] && head -c 2000 "$f" | sed 's/^/# /'
  done
  return 0
}

# fails_with MESSAGE ARGS…: the program (given 20 s, so that a hang
# fails the test rather than the suite) exits 1 and its error output
# holds MESSAGE.
fails_with() {
  message=$1
  shift
  timeout 20 "$agents" "$@" >"$tmp/out" 2>"$tmp/err"
  status=$?
  if [ "$status" -ne 1 ]; then
    echo "exit status $status, expected 1" >>"$tmp/err"
    return 1
  fi
  grep -q -F -e "$message" "$tmp/err"
}

# deep FILE PREFIX SUFFIX: PREFIX, 200,000 opening brackets, SUFFIX.
deep() {
  $python -c 'import sys; sys.stdout.write(sys.argv[1] + "[" * 200000 + sys.argv[2])' \
    "$2" "$3" >"$1"
}

cat >"$tmp/turns.json" <<'EOF2'
[[{"type": "message", "role": "assistant",
   "content": [{"type": "output_text", "text": "done"}]}]]
EOF2

# agent FILE MODEL_FILE [EXTRA_MEMBERS]
agent() {
  cat >"$1" <<EOF2
{
  "name": "Tester",
  "instructions": "Test agent.",
  "model": "scripted:$2"${3:-}
}
EOF2
}

# ---- deep documents ---------------------------------------------------------

deep "$tmp/deep-agent.json" '{"name": "Tester", "instructions": ' ''
if fails_with "agent file $tmp/deep-agent.json: JSON nested deeper than 512 levels" \
  run "$tmp/deep-agent.json" hi; then
  pass "a deep agent file is refused"
else
  fail "a deep agent file is refused"
fi

deep "$tmp/deep-manifest.json" \
  '{"name": "Tester", "model": "scripted:turns.json", "capabilities": ["filesystem"], "manifest": {"entries": {"a": ' ''
if fails_with "agent file $tmp/deep-manifest.json: JSON nested deeper than 512 levels" \
  run "$tmp/deep-manifest.json" hi; then
  pass "an agent file with a deep manifest is refused"
else
  fail "an agent file with a deep manifest is refused"
fi

deep "$tmp/deep-turns.json" '' ''
agent "$tmp/agent-deep-turns.json" deep-turns.json
if fails_with "scripted turns file $tmp/deep-turns.json: JSON nested deeper than 512 levels" \
  run "$tmp/agent-deep-turns.json" hi; then
  pass "a deep scripted-turns file is refused"
else
  fail "a deep scripted-turns file is refused"
fi

agent "$tmp/agent.json" turns.json
deep "$tmp/deep-state.json" '{"$schemaVersion": "1.0", "x": ' ''
if fails_with "nested deeper than 512 levels" \
  resume "$tmp/agent.json" "$tmp/deep-state.json" --approve; then
  pass "a deep run state is refused"
else
  fail "a deep run state is refused"
fi

deep "$tmp/deep-session.json" \
  '{"$schemaVersion": "1.0", "sandbox": {"backend_id": "unix_local", "session_state": ' ''
if fails_with "nested deeper than 512 levels" \
  resume "$tmp/agent.json" "$tmp/deep-session.json" --approve; then
  pass "a run state with a deep session state is refused"
else
  fail "a run state with a deep session state is refused"
fi

# ---- files that are not regular files ---------------------------------------

mkfifo "$tmp/fifo.json"
agent "$tmp/agent-fifo.json" fifo.json
if fails_with "scripted turns file $tmp/fifo.json: not a regular file" \
  run "$tmp/agent-fifo.json" hi; then
  pass "a FIFO as the scripted model's file is refused at once"
else
  fail "a FIFO as the scripted model's file is refused at once"
fi

if fails_with "agent file $tmp/fifo.json: not a regular file" \
  run "$tmp/fifo.json" hi; then
  pass "a FIFO as the agent file is refused at once"
else
  fail "a FIFO as the agent file is refused at once"
fi

if fails_with "$tmp/fifo.json: not a regular file" \
  resume "$tmp/agent.json" "$tmp/fifo.json" --approve; then
  pass "a FIFO as the run state file is refused at once"
else
  fail "a FIFO as the run state file is refused at once"
fi

mkdir "$tmp/dir.json"
if fails_with "agent file $tmp/dir.json: not a regular file" \
  run "$tmp/dir.json" hi; then
  pass "a directory as the agent file is refused"
else
  fail "a directory as the agent file is refused"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
