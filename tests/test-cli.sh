#!/bin/sh
# test-cli.sh - the `agents` program, as a user runs it (TAP).
#
# Usage: test-cli.sh AGENTS_BINARY SOURCE_ROOT
# AGENTS_PLUGIN_PATH must point at the built plugin modules.
#
# Copyright 2026 The libagents authors
# SPDX-License-Identifier: LGPL-2.1-or-later
set -u

agents=$1
src=$2
python=/usr/bin/python3
demo="$src/examples/demo/agent.json"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-cli-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
# Sandboxes (g_dir_make_tmp) and snapshots (the user cache) stay in $tmp,
# so that the test can see that nothing is left behind.
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
    [ -s "$f" ] && sed 's/^/# /' "$f"
  done
  return 0
}

# run_agents EXPECTED_STATUS ARGS…: runs the program, output in
# $tmp/out and $tmp/err; TRUE when it exits with EXPECTED_STATUS.
run_agents() {
  expected=$1
  shift
  "$agents" "$@" >"$tmp/out" 2>"$tmp/err"
  status=$?
  if [ "$status" -ne "$expected" ]; then
    echo "exit status $status, expected $expected" >>"$tmp/err"
    return 1
  fi
  return 0
}

has() {
  grep -q -F -e "$1" "$2"
}

no_sandbox_left() {
  [ -z "$(ls -A "$tmp/tmpdir")" ]
}

# Writes an agent file: $1 the file, $2 the capabilities JSON, $3 the turns
# file name (relative to $tmp).
write_agent() {
  cat >"$1" <<EOF
{
  "name": "Tester",
  "instructions": "Test agent.",
  "model": "scripted:$3",
  "capabilities": $2
}
EOF
}

# ---- help and version ----------------------------------------------------

for flag in --help -h help; do
  if run_agents 0 $flag && has "Usage: agents COMMAND" "$tmp/out" &&
    has "resume" "$tmp/out" && [ ! -s "$tmp/err" ]; then
    pass "agents $flag lists the commands on stdout"
  else
    fail "agents $flag lists the commands on stdout"
  fi
done

if run_agents 0 help run && has "--state" "$tmp/out" &&
  run_agents 0 help plugins && has "List the plugins" "$tmp/out" &&
  run_agents 0 plugins --help && has "List the plugins" "$tmp/out" &&
  run_agents 0 version --help && has "Print the version" "$tmp/out"; then
  pass "agents help COMMAND and COMMAND --help show the command's options"
else
  fail "agents help COMMAND and COMMAND --help show the command's options"
fi

if run_agents 0 --version && grep -q "^agents [0-9]" "$tmp/out" &&
  run_agents 0 version && grep -q "^agents [0-9]" "$tmp/out"; then
  pass "agents --version and agents version print the version"
else
  fail "agents --version and agents version print the version"
fi

if run_agents 2 frobnicate && has "unknown command “frobnicate”" "$tmp/err" &&
  run_agents 2 help frobnicate && has "unknown command" "$tmp/err" &&
  run_agents 2 version extra && has "unexpected argument" "$tmp/err"; then
  pass "unknown commands and stray arguments are usage errors"
else
  fail "unknown commands and stray arguments are usage errors"
fi

if AGENTS_PLUGIN_PATH="$tmp/no-plugins" run_agents 1 run "$demo" "hi" &&
  has "unknown sandbox backend “unix_local” (known: none;" "$tmp/err" &&
  has "$tmp/no-plugins" "$tmp/err"; then
  pass "a backend missing for want of plugins names the plugin path searched"
else
  fail "a backend missing for want of plugins names the plugin path searched"
fi

# ---- the demo ------------------------------------------------------------

if run_agents 0 run "$demo" "Sort 42 7 19 3 88" &&
  has "[agent] Sorter" "$tmp/out" &&
  has '[tool call] write_file {"path": "numbers.txt"' "$tmp/out" &&
  has "[tool call] exec_command" "$tmp/out" &&
  has "[tool call] read_file" "$tmp/out" &&
  has "exit_code: 0" "$tmp/out" &&
  has "[final output]" "$tmp/out"; then
  pass "the demo runs and shows its sandboxed tool calls"
else
  fail "the demo runs and shows its sandboxed tool calls"
fi

# The read_file output is the sorted file the sandboxed `sort` wrote.
if $python - "$tmp/out" <<'EOF'; then
import sys
text = open(sys.argv[1]).read()
block = text.split("[tool output] read_file\n", 1)[1].split("[", 1)[0]
lines = [l.strip() for l in block.splitlines() if l.strip()]
sys.exit(0 if lines == ["3", "7", "19", "42", "88"] else 1)
EOF
  pass "the demo reads back the file sorted in the sandbox"
else
  fail "the demo reads back the file sorted in the sandbox"
fi

if no_sandbox_left; then
  pass "the demo leaves no sandbox behind"
else
  fail "the demo leaves no sandbox behind"
fi

# ---- --json ----------------------------------------------------------------

if run_agents 0 run --json "$demo" "Sort 42 7 19 3 88" &&
  $python - "$tmp/out" <<'EOF'; then
import json, sys
events = [json.loads(line) for line in open(sys.argv[1])]
assert all(isinstance(e, dict) and "type" in e for e in events), events
assert events[0] == {"type": "agent_updated", "agent": "Sorter"}, events[0]
calls = [e["item"]["name"] for e in events
         if e["type"] == "run_item" and e["name"] == "tool_called"]
assert calls == ["write_file", "exec_command", "read_file"], calls
outputs = [e for e in events
           if e["type"] == "run_item" and e["name"] == "tool_output"]
assert len(outputs) == 3, outputs
assert outputs[1]["output"].startswith("exit_code: 0\n"), outputs[1]
assert outputs[2]["output"] == "3\n7\n19\n42\n88\n", outputs[2]
assert events[-1]["type"] == "final_output", events[-1]
assert "3, 7, 19, 42, 88" in events[-1]["output"], events[-1]
EOF
  pass "--json prints one JSON object per event line"
else
  fail "--json prints one JSON object per event line"
fi

# ---- plugins and usage ----------------------------------------------------

if run_agents 0 plugins && has "unix_local" "$tmp/out" &&
  has "shell" "$tmp/out" && has "filesystem" "$tmp/out"; then
  pass "agents plugins lists backends and capabilities"
else
  fail "agents plugins lists backends and capabilities"
fi

if run_agents 2 run "$demo" && run_agents 2 frobnicate &&
  run_agents 2 run --max-turns=-1 "$demo" "x" && run_agents 2; then
  pass "usage errors exit with status 2"
else
  fail "usage errors exit with status 2"
fi

if run_agents 2 run "$demo" "x" -o novalue &&
  has "--sandbox-option “novalue”: expected KEY=VALUE" "$tmp/err" &&
  run_agents 2 run "$demo" "x" --sandbox-option =v &&
  has "--sandbox-option “=v”: expected KEY=VALUE" "$tmp/err" &&
  run_agents 2 run "$demo" "x" -o exposed_ports=1.5 &&
  has "“exposed_ports” takes a comma-separated list of integers" "$tmp/err" &&
  no_sandbox_left; then
  pass "a malformed --sandbox-option is a usage error naming it"
else
  fail "a malformed --sandbox-option is a usage error naming it"
fi

# ---- bad agent files --------------------------------------------------------

printf '{"name": "Broken", "model": ' >"$tmp/malformed.json"
if run_agents 1 run "$tmp/malformed.json" "hi" &&
  has "$tmp/malformed.json:" "$tmp/err" && no_sandbox_left; then
  pass "a malformed agent file is an error naming the file"
else
  fail "a malformed agent file is an error naming the file"
fi

echo '[]' >"$tmp/empty-turns.json"
write_agent "$tmp/unknown-cap.json" '["filesystem", "shel"]' empty-turns.json
if run_agents 1 run "$tmp/unknown-cap.json" "hi" &&
  has 'capabilities[1]: unknown capability “shel”' "$tmp/err" &&
  has "known: compaction, filesystem, memory, shell" "$tmp/err" &&
  no_sandbox_left; then
  pass "an unknown capability is an error listing the known ones"
else
  fail "an unknown capability is an error listing the known ones"
fi

write_agent "$tmp/bad-setting.json" '[{"type": "shell", "needs_approval": "yes"}]' \
  empty-turns.json
if run_agents 1 run "$tmp/bad-setting.json" "hi" &&
  has 'capabilities[0]: invalid value for “needs_approval”' "$tmp/err"; then
  pass "a capability setting of the wrong type is an error"
else
  fail "a capability setting of the wrong type is an error"
fi

cat >"$tmp/unknown-model.json" <<'EOF'
{"name": "Tester", "model": "nosuch:model-1"}
EOF
if run_agents 1 run "$tmp/unknown-model.json" "hi" &&
  has 'model: unknown model provider “nosuch” (known: scripted' "$tmp/err"; then
  pass "an unknown model provider is an error"
else
  fail "an unknown model provider is an error"
fi

cat >"$tmp/unknown-member.json" <<'EOF'
{"name": "Tester", "model": "scripted:empty-turns.json", "capabilites": []}
EOF
if run_agents 1 run "$tmp/unknown-member.json" "hi" &&
  has 'unknown member “capabilites”' "$tmp/err"; then
  pass "an unknown member is an error"
else
  fail "an unknown member is an error"
fi

echo '[{"type": "message"}]' >"$tmp/flat-turns.json"
write_agent "$tmp/bad-turns.json" '[]' flat-turns.json
if run_agents 1 run "$tmp/bad-turns.json" "hi" &&
  has 'a turn must be an array of items' "$tmp/err"; then
  pass "a malformed script is an error"
else
  fail "a malformed script is an error"
fi

if run_agents 1 run --backend nosuch "$demo" "hi" &&
  has 'unknown sandbox backend “nosuch”' "$tmp/err" &&
  has "unix_local" "$tmp/err"; then
  pass "an unknown backend is an error listing the known ones"
else
  fail "an unknown backend is an error listing the known ones"
fi

# ---- a failing run ----------------------------------------------------------

if run_agents 1 run --max-turns 1 "$demo" "hi" &&
  has "agents: the run failed:" "$tmp/err" && no_sandbox_left; then
  pass "a run past --max-turns fails with status 1"
else
  fail "a run past --max-turns fails with status 1"
fi

# ---- handoffs ------------------------------------------------------------------

cat >"$tmp/handoff-turns.json" <<'EOF'
[
  [{"type": "function_call", "call_id": "call_h", "name": "transfer_to_reviewer",
    "arguments": "{}"}],
  [{"type": "function_call", "call_id": "call_l", "name": "list_dir",
    "arguments": "{\"path\": \".\"}"}],
  [{"type": "message", "role": "assistant",
    "content": [{"type": "output_text", "text": "reviewed"}]}]
]
EOF
cat >"$tmp/handoff.json" <<'EOF'
{"name": "Writer", "model": "scripted:handoff-turns.json",
 "capabilities": ["filesystem"],
 "handoffs": [{"name": "Reviewer", "capabilities": ["filesystem"],
               "manifest": {"entries": {"draft.txt": {"type": "file", "content": "x"}}}}]}
EOF
if run_agents 0 run "$tmp/handoff.json" "go" &&
  has "[handoff] Writer -> Reviewer" "$tmp/out" &&
  has "[agent] Reviewer" "$tmp/out" &&
  has "draft.txt" "$tmp/out" &&
  has "reviewed" "$tmp/out" && no_sandbox_left; then
  pass "a handoff is shown and the next agent works in its own sandbox"
else
  fail "a handoff is shown and the next agent works in its own sandbox"
fi

# ---- Ctrl-C -----------------------------------------------------------------------

cat >"$tmp/slow-turns.json" <<'EOF'
[[{"type": "function_call", "call_id": "call_s", "name": "exec_command",
   "arguments": "{\"cmd\": \"sleep 37.25\"}"}]]
EOF
write_agent "$tmp/slow.json" '["shell"]' slow-turns.json
"$agents" run "$tmp/slow.json" "go" >"$tmp/out" 2>"$tmp/err" &
pid=$!
i=0
while ! has "[tool call] exec_command" "$tmp/out" && [ $i -lt 100 ]; do
  sleep 0.1
  i=$((i + 1))
done
sleep 0.5
kill -INT $pid
wait $pid
status=$?
if [ $status -eq 1 ] && has "interrupted" "$tmp/err" && no_sandbox_left &&
  ! pgrep -f "sleep 37.25" >/dev/null; then
  pass "Ctrl-C stops the run and cleans its sandbox up"
else
  echo "exit status $status" >>"$tmp/err"
  fail "Ctrl-C stops the run and cleans its sandbox up"
fi

# ---- approvals: run, save, resume -------------------------------------------

cat >"$tmp/approval-turns.json" <<'EOF'
[
  [{"type": "function_call", "call_id": "call_w", "name": "write_file",
    "arguments": "{\"path\": \"note.txt\", \"content\": \"kept\\n\"}"}],
  [{"type": "function_call", "call_id": "call_x", "name": "exec_command",
    "arguments": "{\"cmd\": \"cat note.txt\"}"}],
  [{"type": "message", "role": "assistant",
    "content": [{"type": "output_text", "text": "all done"}]}]
]
EOF
write_agent "$tmp/approval.json" \
  '["filesystem", {"type": "shell", "needs_approval": true}]' \
  approval-turns.json

if run_agents 1 run "$tmp/approval.json" "go" &&
  has "--state FILE" "$tmp/err"; then
  pass "an approval without --state is reported as a failure"
else
  fail "an approval without --state is reported as a failure"
fi

if run_agents 0 run "$tmp/approval.json" "go" --state "$tmp/state.json" &&
  has "[approval needed] exec_command" "$tmp/out" &&
  has "agents resume $tmp/approval.json $tmp/state.json --approve" "$tmp/out" &&
  $python -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/state.json" &&
  [ "$(stat -c %a "$tmp/state.json")" = 600 ]; then
  pass "an approval interruption saves the run state"
else
  fail "an approval interruption saves the run state"
fi
cp "$tmp/state.json" "$tmp/state-copy.json"

if run_agents 1 resume "$tmp/approval.json" "$tmp/state.json" --approve \
  --backend docker &&
  has "saved with the “unix_local” sandbox backend, not “docker”" "$tmp/err" &&
  has "leave --backend out or pass --backend unix_local" "$tmp/err"; then
  pass "resume refuses a --backend other than the saved one"
else
  fail "resume refuses a --backend other than the saved one"
fi

if run_agents 1 resume "$tmp/approval.json" "$tmp/state.json" &&
  has "--approve or --reject" "$tmp/err"; then
  pass "resume without a decision says what is pending"
else
  fail "resume without a decision says what is pending"
fi

# The approved command sees the file written before the interruption:
# the workspace came back from the saved state.
if run_agents 0 resume "$tmp/approval.json" "$tmp/state.json" --approve &&
  has "[tool output] exec_command" "$tmp/out" &&
  grep -q "^    kept" "$tmp/out" &&
  [ "$(grep -c "^\[tool call\]" "$tmp/out")" = 0 ] &&
  has "all done" "$tmp/out"; then
  pass "resume --approve runs the call and finishes the run"
else
  fail "resume --approve runs the call and finishes the run"
fi

# The runner's rejection text is the model's output for the call.
if run_agents 0 resume "$tmp/approval.json" "$tmp/state-copy.json" --reject &&
  has "[tool output] exec_command" "$tmp/out" &&
  has "Tool execution was" "$tmp/out" &&
  ! grep -q "^    kept" "$tmp/out" &&
  [ "$(grep -c "^\[tool call\]" "$tmp/out")" = 0 ] &&
  has "all done" "$tmp/out"; then
  pass "resume --reject gives the model the rejection"
else
  fail "resume --reject gives the model the rejection"
fi

# unix_local reaps the host mounts (s3_mount) of processes that died.
if run_agents 2 reap && has "Usage: agents reap --backend NAME" "$tmp/err" &&
  run_agents 0 reap --backend unix_local &&
  grep -q -E "^Removed [0-9]+ leftover sandbox" "$tmp/out"; then
  pass "agents reap needs a backend and reaps unix_local's mounts"
else
  fail "agents reap needs a backend and reaps unix_local's mounts"
fi

if no_sandbox_left; then
  pass "runs and resumes leave no sandbox behind"
else
  ls -la "$tmp/tmpdir" >"$tmp/out"
  fail "runs and resumes leave no sandbox behind"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
