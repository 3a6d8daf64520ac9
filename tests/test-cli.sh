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
trap 'umount "$tmp/fullcache" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
# Sandboxes (g_dir_make_tmp) and snapshots (the user cache) stay in $tmp,
# so that the test can see that nothing is left behind.
# `agents reap --all` below removes every host mount (s3_mount) in the
# runtime directory, live or not: the test gets its own, so that it never
# unmounts another test's bucket running at the same time.
mkdir -p "$tmp/tmpdir" "$tmp/cache" "$tmp/run"
chmod 0700 "$tmp/run"
export TMPDIR="$tmp/tmpdir" XDG_CACHE_HOME="$tmp/cache" XDG_RUNTIME_DIR="$tmp/run"

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
  has '[tool call] apply_patch "*** Begin Patch\n*** Add File: numbers.txt\n+42\n' "$tmp/out" &&
  has "[tool output] apply_patch" "$tmp/out" &&
  grep -q "^    Created numbers.txt$" "$tmp/out" &&
  has "[tool call] exec_command" "$tmp/out" &&
  grep -q "^    Process exited with code 0$" "$tmp/out" &&
  has "[final output]" "$tmp/out"; then
  pass "the demo runs and shows its sandboxed tool calls"
else
  fail "the demo runs and shows its sandboxed tool calls"
fi

# The last exec_command prints the file the sandboxed `sort` wrote.
if $python - "$tmp/out" <<'EOF'; then
import sys
text = open(sys.argv[1]).read()
block = text.split("[tool output] exec_command\n")[-1].split("[", 1)[0]
output = block.split("    Output:\n", 1)[1]
lines = [l.strip() for l in output.splitlines() if l.strip()]
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
import json, re, sys
events = [json.loads(line) for line in open(sys.argv[1])]
assert all(isinstance(e, dict) and "type" in e for e in events), events
assert events[0] == {"type": "agent_updated", "agent": "Sorter"}, events[0]
calls = [e["item"]["name"] for e in events
         if e["type"] == "run_item" and e["name"] == "tool_called"]
assert calls == ["apply_patch", "exec_command", "exec_command"], calls
outputs = [e for e in events
           if e["type"] == "run_item" and e["name"] == "tool_output"]
assert len(outputs) == 3, outputs
assert outputs[0]["output"] == "Created numbers.txt", outputs[0]
frame = r"Chunk ID: [0-9a-f]{6}\nWall time: [0-9]+\.[0-9]{4} seconds\n" \
        r"Process exited with code 0\nOutput:\n"
assert re.fullmatch(frame + "5\nREADME.md\nnumbers.txt\nsorted.txt\n",
                    outputs[1]["output"]), outputs[1]
assert re.fullmatch(frame + "3\n7\n19\n42\n88\n",
                    outputs[2]["output"]), outputs[2]
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

write_agent "$tmp/bad-policy.json" \
  '["shell", {"type": "compaction", "policy": {"type": "unknown"}}]' \
  empty-turns.json
if run_agents 1 run "$tmp/bad-policy.json" "hi" &&
  has "capabilities[1]: Unsupported compaction policy type: 'unknown'" "$tmp/err"; then
  pass "a capability refusing its settings is an error naming the member"
else
  fail "a capability refusing its settings is an error naming the member"
fi

write_agent "$tmp/no-skills.json" '[{"type": "skills"}]' empty-turns.json
if run_agents 1 run "$tmp/no-skills.json" "hi" &&
  has 'capabilities[0]: skills capability requires `skills`' "$tmp/err"; then
  pass "a skills capability without a source is an error"
else
  fail "a skills capability without a source is an error"
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
 "handoffs": [{"name": "Reviewer",
               "capabilities": [{"type": "filesystem", "file_tools": true}],
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

# ---- confined commands run unprivileged --------------------------------------

# A root-only file in /etc, which commands see read-only, stays unreadable
# to them when the caller is root: they run as an unprivileged uid.
if [ "$(id -u)" -eq 0 ] && [ -w /etc ]; then
  secret=$(mktemp /etc/agents-test-secret-XXXXXX)
  trap 'rm -rf "$tmp" "$secret"' EXIT INT TERM
  echo "top-secret-$$" >"$secret"
  chmod 0600 "$secret"
  cat >"$tmp/secret-turns.json" <<EOF
[[{"type": "function_call", "call_id": "call_c", "name": "exec_command",
   "arguments": "{\"cmd\": \"id -u; cat $secret\"}"}],
 [{"type": "message", "role": "assistant",
   "content": [{"type": "output_text", "text": "done"}]}]]
EOF
  write_agent "$tmp/secret.json" '["shell"]' secret-turns.json
  if run_agents 0 run "$tmp/secret.json" "go" &&
    has "[tool output] exec_command" "$tmp/out" &&
    has "65534" "$tmp/out" && has "Permission denied" "$tmp/out" &&
    ! has "top-secret-$$" "$tmp/out"; then
    pass "a confined command cannot read a root-only file"
  else
    fail "a confined command cannot read a root-only file"
  fi
  rm -f "$secret"
else
  n=$((n + 1))
  echo "ok $n # SKIP needs root and a writable /etc"
fi

if run_agents 1 run "$demo" "x" -o memory=lots &&
  has "memory" "$tmp/err" &&
  run_agents 0 run "$demo" "Sort 3 1 2" -o pids_limit=64 -o memory=268435456 &&
  has "[tool call] exec_command" "$tmp/out"; then
  pass "limits are sandbox options, checked"
else
  fail "limits are sandbox options, checked"
fi

# ---- Ctrl-C -----------------------------------------------------------------------

# A command line of this test's own, for pgrep: others may run this test
# at the same time.
slow_sleep="sleep 37.$$"
cat >"$tmp/slow-turns.json" <<EOF
[[{"type": "function_call", "call_id": "call_s", "name": "exec_command",
   "arguments": "{\"cmd\": \"$slow_sleep\", \"yield_time_ms\": 120000}"}]]
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
  ! pgrep -f "$slow_sleep" >/dev/null; then
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
  '[{"type": "filesystem", "file_tools": true},
    {"type": "shell", "needs_approval": true}]' \
  approval-turns.json

if run_agents 1 run "$tmp/approval.json" "go" &&
  has "--state FILE" "$tmp/err"; then
  pass "an approval without --state is reported as a failure"
else
  fail "an approval without --state is reported as a failure"
fi

if run_agents 3 run "$tmp/approval.json" "go" --state "$tmp/state.json" &&
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

if run_agents 2 reap && has "Usage: agents reap --backend NAME" "$tmp/err" &&
  run_agents 0 reap --backend unix_local &&
  has "Removed 0 leftover sandboxes" "$tmp/out"; then
  pass "agents reap needs a backend; unix_local has nothing left behind"
else
  fail "agents reap needs a backend; unix_local has nothing left behind"
fi

# json_is PYTHON_EXPRESSION: TRUE when the expression holds for `d`, the
# one JSON object on standard output.
json_is() {
  [ "$(wc -l <"$tmp/out")" -eq 1 ] &&
    $python -c "import json, sys; d = json.load(sys.stdin); sys.exit(0 if ($1) else 1)" \
      <"$tmp/out"
}

if run_agents 0 reap --backend unix_local --json &&
  json_is 'd == {"type": "reap", "backend": "unix_local", "all": False, "removed": 0}' &&
  run_agents 0 reap --backend unix_local --all -j &&
  json_is 'd["all"] is True and d["removed"] == 0'; then
  pass "agents reap --json prints its result as one JSON object"
else
  fail "agents reap --json prints its result as one JSON object"
fi

if run_agents 1 reap --backend nope --json &&
  json_is 'd["type"] == "error" and d["context"]["name"] == "nope"' &&
  has "unknown sandbox backend" "$tmp/err" &&
  run_agents 2 reap --json && json_is 'd["type"] == "error"' &&
  run_agents 2 gc --json --bogus && json_is '"--bogus" in d["message"]'; then
  pass "reap and gc --json report failures and usage errors as error events"
else
  fail "reap and gc --json report failures and usage errors as error events"
fi

# ---- hostile run states (issue 15, finding 2) --------------------------------

# tamper STATE OUT ROOT OWNED: a copy of STATE whose unix_local session
# states name ROOT (workspace_root_owned OWNED).
tamper() {
  $python - "$@" <<'EOF'
import json, sys
src, dst, root, owned = sys.argv[1:5]
state = json.load(open(src))
def walk(node):
    if isinstance(node, dict):
        if node.get("type") == "unix_local" and "manifest" in node:
            node["manifest"]["root"] = root
            node["workspace_root_owned"] = owned == "true"
        for value in node.values():
            walk(value)
    elif isinstance(node, list):
        for value in node:
            walk(value)
walk(state)
json.dump(state, open(dst, "w"))
EOF
}

if run_agents 3 run "$tmp/approval.json" "go" --state "$tmp/hostile.json"; then
  mkdir -p "$tmp/victim/sub"
  echo precious >"$tmp/victim/data"
  echo deep >"$tmp/victim/sub/more"
  tamper "$tmp/hostile.json" "$tmp/wipe.json" "$tmp/victim" false
  if run_agents 1 resume "$tmp/approval.json" "$tmp/wipe.json" --approve &&
    has "refusing the workspace root $tmp/victim" "$tmp/err" &&
    [ "$(cat "$tmp/victim/data")" = precious ] &&
    [ "$(cat "$tmp/victim/sub/more")" = deep ] &&
    [ "$(ls -A "$tmp/victim" | wc -l)" = 2 ]; then
    pass "a run state naming a host directory cannot empty it"
  else
    fail "a run state naming a host directory cannot empty it"
  fi

  # A root named like the library's own, said to be owned: still not ours.
  victim2="$tmp/tmpdir/sandbox-local-victim"
  mkdir -p "$victim2"
  echo precious >"$victim2/data"
  tamper "$tmp/hostile.json" "$tmp/delete.json" "$victim2" true
  if run_agents 1 resume "$tmp/approval.json" "$tmp/delete.json" --approve &&
    has "refusing the workspace root $victim2" "$tmp/err" &&
    [ "$(cat "$victim2/data")" = precious ]; then
    pass "a run state claiming a host directory as its own cannot delete it"
  else
    fail "a run state claiming a host directory as its own cannot delete it"
  fi
  rm -rf "$victim2"

  # Owned, but outside the temporary directory: not made there again.
  tamper "$tmp/hostile.json" "$tmp/elsewhere.json" \
    "$tmp/victim/sandbox-local-new" true
  if run_agents 1 resume "$tmp/approval.json" "$tmp/elsewhere.json" --approve &&
    has "refusing the workspace root $tmp/victim/sandbox-local-new" "$tmp/err" &&
    [ ! -e "$tmp/victim/sandbox-local-new" ]; then
    pass "a run state cannot make the library create a workspace anywhere"
  else
    fail "a run state cannot make the library create a workspace anywhere"
  fi

  # Where the snapshot is read and overwritten is the program's choice.
  $python - "$tmp/hostile.json" "$tmp/snapdir.json" "$tmp/elsewhere" <<'EOF'
import json, sys
src, dst, base = sys.argv[1:4]
state = json.load(open(src))
def walk(node):
    if isinstance(node, dict):
        if node.get("type") == "local" and "base_path" in node:
            node["base_path"] = base
        for value in node.values():
            walk(value)
    elif isinstance(node, list):
        for value in node:
            walk(value)
walk(state)
json.dump(state, open(dst, "w"))
EOF
  if run_agents 1 resume "$tmp/approval.json" "$tmp/snapdir.json" --approve &&
    has "state's “snapshot.base_path” ($tmp/elsewhere) is not" "$tmp/err" &&
    [ ! -e "$tmp/elsewhere" ]; then
    pass "a run state cannot choose where snapshots are read and written"
  else
    fail "a run state cannot choose where snapshots are read and written"
  fi

  # The untouched state still resumes: its root was made by the library.
  if run_agents 0 resume "$tmp/approval.json" "$tmp/hostile.json" --approve &&
    grep -q "^    kept" "$tmp/out"; then
    pass "the library's own workspace root resumes"
  else
    fail "the library's own workspace root resumes"
  fi
else
  fail "a run state naming a host directory cannot empty it"
fi

# ---- system directories as roots (finding 5) --------------------------------

# The model writes nothing: a build without the check must fail this
# test without touching the system directory.
cat >"$tmp/answer-turns.json" <<'EOF'
[[{"type": "message", "role": "assistant",
   "content": [{"type": "output_text", "text": "nothing written"}]}]]
EOF
for root in /etc /usr/lib / "$HOME"; do
  cat >"$tmp/sysroot.json" <<EOF
{"name": "Tester", "instructions": "t", "model": "scripted:answer-turns.json",
 "manifest": {"root": "$root"}, "capabilities": ["filesystem"]}
EOF
  if run_agents 1 run "$tmp/sysroot.json" "go" &&
    has "the workspace root $root is the system directory" "$tmp/err" &&
    has "allow-system-root" "$tmp/err"; then
    pass "a manifest root of $root is refused"
  else
    fail "a manifest root of $root is refused"
  fi
done

# The explicit opt-in: an empty /srv (nothing is written to it).
if [ -d /srv ] && [ -z "$(ls -A /srv)" ]; then
  cat >"$tmp/sysroot.json" <<EOF
{"name": "Tester", "instructions": "t", "model": "scripted:answer-turns.json",
 "manifest": {"root": "/srv"}, "capabilities": ["filesystem"]}
EOF
  if run_agents 1 run "$tmp/sysroot.json" "go" &&
    has "the workspace root /srv is the system directory /srv" "$tmp/err" &&
    run_agents 0 run "$tmp/sysroot.json" "go" --allow-system-root &&
    has "nothing written" "$tmp/out" && [ -z "$(ls -A /srv)" ]; then
    pass "--allow-system-root lets a system directory be the root"
  else
    fail "--allow-system-root lets a system directory be the root"
  fi
else
  pass "--allow-system-root lets a system directory be the root # SKIP /srv not empty"
fi

# ---- snapshots keep outward symlinks (finding 14) --------------------------

cat >"$tmp/link-turns.json" <<'EOF'
[
  [{"type": "function_call", "call_id": "call_w", "name": "write_file",
    "arguments": "{\"path\": \"note.txt\", \"content\": \"kept\\n\"}"}],
  [{"type": "function_call", "call_id": "call_l", "name": "exec_command",
    "arguments": "{\"cmd\": \"ln -s /etc out && ln -s note.txt in\"}"}],
  [{"type": "function_call", "call_id": "call_x", "name": "exec_command",
    "arguments": "{\"cmd\": \"cat note.txt; readlink out in\"}"}],
  [{"type": "message", "role": "assistant",
    "content": [{"type": "output_text", "text": "all done"}]}]
]
EOF
write_agent "$tmp/link.json" \
  '[{"type": "filesystem", "file_tools": true},
    {"type": "shell", "needs_approval": true}]' \
  link-turns.json

# Stops before `ln`, then after it (the snapshot holds the links), then
# the last command sees them restored.
if run_agents 3 run "$tmp/link.json" "go" --state "$tmp/link-state.json" &&
  run_agents 3 resume "$tmp/link.json" "$tmp/link-state.json" --approve &&
  has "[approval needed] exec_command" "$tmp/out" &&
  run_agents 0 resume "$tmp/link.json" "$tmp/link-state.json" --approve &&
  grep -q "^    kept" "$tmp/out" && grep -q "^    /etc$" "$tmp/out" &&
  grep -q "^    note.txt$" "$tmp/out" && has "all done" "$tmp/out"; then
  pass "a workspace symlink pointing outside is persisted and resumed"
else
  fail "a workspace symlink pointing outside is persisted and resumed"
fi

# ---- snapshot retention and gc (finding 6) ---------------------------------

snapshots="$tmp/cache/agents-1.0/snapshots"
before=$(find "$snapshots" -name '*.tar' 2>/dev/null | sort)
if run_agents 0 run "$demo" "Sort 3 1 2" &&
  [ "$(find "$snapshots" -name '*.tar' 2>/dev/null | sort)" = "$before" ]; then
  pass "a finished run leaves no snapshot behind"
else
  find "$snapshots" >>"$tmp/err" 2>&1
  fail "a finished run leaves no snapshot behind"
fi

# A saved state keeps its snapshot; once the state file is gone, gc
# removes it.
rm -f "$snapshots"/*.tar "$snapshots"/*.claim
if run_agents 3 run "$tmp/approval.json" "go" --state "$tmp/gc-state.json" &&
  [ "$(find "$snapshots" -name '*.tar' | wc -l)" = 1 ] &&
  run_agents 0 gc && [ "$(find "$snapshots" -name '*.tar' | wc -l)" = 1 ] &&
  rm "$tmp/gc-state.json" &&
  run_agents 0 gc --dry-run && has "Would remove" "$tmp/out" &&
  [ "$(find "$snapshots" -name '*.tar' | wc -l)" = 1 ] &&
  run_agents 0 gc && has "0 leftover workspaces and 1 snapshots" "$tmp/out" &&
  [ "$(find "$snapshots" -name '*.tar' | wc -l)" = 0 ]; then
  pass "a saved state keeps its snapshot until the state file is gone"
else
  fail "a saved state keeps its snapshot until the state file is gone"
fi

# gc --json: what would go and what went, as one JSON object.
rm -f "$snapshots"/*.tar "$snapshots"/*.claim
if run_agents 3 run "$tmp/approval.json" "go" --state "$tmp/gc-state.json" &&
  rm "$tmp/gc-state.json" && tar=$(find "$snapshots" -name '*.tar') &&
  run_agents 0 gc --dry-run --json &&
  json_is "d == {'type': 'gc', 'dry_run': True, 'all': False, 'workspaces': 0, 'snapshots': ['$tar']}" &&
  [ -f "$tar" ] && run_agents 0 gc --json &&
  json_is "d['dry_run'] is False and d['snapshots'] == ['$tar']" &&
  [ ! -e "$tar" ] && run_agents 0 gc --json &&
  json_is "d['snapshots'] == [] and d['workspaces'] == 0"; then
  pass "agents gc --json lists the snapshots it would remove and removed"
else
  fail "agents gc --json lists the snapshots it would remove and removed"
fi

# A run killed with SIGKILL leaves its workspace; gc removes it, but never
# the workspace of a run still going.
cat >"$tmp/sleep-turns.json" <<'EOF'
[
  [{"type": "function_call", "call_id": "call_s", "name": "exec_command",
    "arguments": "{\"cmd\": \"echo started > here; sleep 41.5\", \"yield_time_ms\": 120000}"}],
  [{"type": "message", "role": "assistant",
    "content": [{"type": "output_text", "text": "slept"}]}]
]
EOF
write_agent "$tmp/sleep.json" '["filesystem", "shell"]' sleep-turns.json
"$agents" run "$tmp/sleep.json" "go" >"$tmp/out" 2>"$tmp/err" &
pid=$!
for _ in $(seq 100); do
  [ -n "$(find "$tmp/tmpdir" -name here 2>/dev/null)" ] && break
  sleep 0.1
done
left=$(ls -d "$tmp/tmpdir"/sandbox-local-* 2>/dev/null)
if [ -n "$left" ] && run_agents 0 gc &&
  has "Removed 0 leftover workspaces" "$tmp/out" && [ -d "$left" ]; then
  pass "gc keeps the workspace of a live run"
else
  fail "gc keeps the workspace of a live run"
fi
kill -KILL $pid
wait $pid 2>/dev/null
if [ -d "$left" ] && run_agents 0 gc --dry-run &&
  has "Would remove 1 leftover workspaces" "$tmp/out" && [ -d "$left" ] &&
  run_agents 0 gc --dry-run --json && json_is 'd["workspaces"] == 1' &&
  run_agents 0 gc && has "Removed 1 leftover workspaces" "$tmp/out" &&
  [ ! -e "$left" ] && no_sandbox_left; then
  pass "gc removes the workspace of a run killed with SIGKILL"
else
  fail "gc removes the workspace of a run killed with SIGKILL"
fi

# ---- a full disk during persist (finding 3) ----------------------------------

cat >"$tmp/full-turns.json" <<'EOF'
[
  [{"type": "function_call", "call_id": "call_w", "name": "write_file",
    "arguments": "{\"path\": \"note.txt\", \"content\": \"kept\\n\"}"}],
  [{"type": "function_call", "call_id": "call_b", "name": "exec_command",
    "arguments": "{\"cmd\": \"head -c 3000000 /dev/zero > big; echo wrote\"}"}],
  [{"type": "function_call", "call_id": "call_c", "name": "exec_command",
    "arguments": "{\"cmd\": \"cat note.txt\"}"}],
  [{"type": "message", "role": "assistant",
    "content": [{"type": "output_text", "text": "all done"}]}]
]
EOF
write_agent "$tmp/full.json" \
  '[{"type": "filesystem", "file_tools": true},
    {"type": "shell", "needs_approval": true}]' full-turns.json

# The snapshots live on a 2 MiB file system: the first stop fits, the
# second (a 3 MB file in the workspace) does not.
mkdir -p "$tmp/fullcache"
if mount -t tmpfs -o size=2m tmpfs "$tmp/fullcache" 2>/dev/null; then
  full_snapshots="$tmp/fullcache/agents-1.0/snapshots"
  if XDG_CACHE_HOME="$tmp/fullcache" run_agents 3 run "$tmp/full.json" "go" \
    --state "$tmp/full-state.json"; then
    cp "$tmp/full-state.json" "$tmp/full-state.orig"
    cp "$full_snapshots"/*.tar "$tmp/full-snapshot.orig"
    if XDG_CACHE_HOME="$tmp/fullcache" run_agents 1 resume "$tmp/full.json" \
      "$tmp/full-state.json" --approve &&
      has "wrote" "$tmp/out" &&
      has "No space left on device" "$tmp/err" &&
      has "the run state was not saved" "$tmp/err" &&
      cmp -s "$tmp/full-state.json" "$tmp/full-state.orig" &&
      cmp -s "$full_snapshots"/*.tar "$tmp/full-snapshot.orig" &&
      [ "$(ls "$full_snapshots" | grep -c '\.tar\.')" = 0 ] &&
      tar -tf "$full_snapshots"/*.tar | grep -q "note.txt"; then
      pass "a full disk during persist keeps the previous snapshot and fails"
    else
      fail "a full disk during persist keeps the previous snapshot and fails"
    fi
  else
    fail "a full disk during persist keeps the previous snapshot and fails"
  fi
  umount "$tmp/fullcache"
else
  pass "a full disk during persist keeps the previous snapshot and fails # SKIP cannot mount a tmpfs (not root?)"
fi

# ---- exit statuses and --json errors ---------------------------------------

cat >"$tmp/done-turns.json" <<'EOF'
[
  [{"type": "message", "role": "assistant",
    "content": [{"type": "output_text", "text": "done"}]}]
]
EOF
write_agent "$tmp/done.json" '["filesystem"]' done-turns.json

# Each outcome has its own status: a stop for an approval is not 0.
if run_agents 0 run "$tmp/done.json" "hi" &&
  run_agents 0 help run && has "3 it stopped" "$tmp/out" &&
  run_agents 1 run "$tmp/unknown-cap.json" "hi" &&
  run_agents 2 run "$tmp/done.json" &&
  run_agents 3 run "$tmp/approval.json" "go" --state "$tmp/status-state.json" &&
  run_agents 0 resume "$tmp/approval.json" "$tmp/status-state.json" --approve; then
  pass "run and resume exit 0 finished, 1 failed, 2 usage, 3 needs approval"
else
  fail "run and resume exit 0 finished, 1 failed, 2 usage, 3 needs approval"
fi

# json_error [KEY=TEXT…]: the last line of $tmp/out is an error event
# whose KEY (context.NAME for a context entry) contains TEXT.
json_error() {
  $python - "$tmp/out" "$@" 2>>"$tmp/err" <<'EOF'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
event = json.loads(lines[-1])
assert event["type"] == "error", event
assert isinstance(event["message"], str) and event["message"], event
assert isinstance(event["domain"], str) and event["domain"], event
assert isinstance(event["code"], int), event
assert isinstance(event["context"], dict), event
for check in sys.argv[2:]:
    key, text = check.split("=", 1)
    found = event
    for part in key.split("."):
        found = found[part]
    assert text in str(found), (key, text, found)
EOF
}

if run_agents 1 run "$tmp/unknown-cap.json" "hi" --json &&
  json_error domain=g-io-error-quark "message=unknown capability “shel”"; then
  pass "--json reports a bad agent file as an error event"
else
  fail "--json reports a bad agent file as an error event"
fi

if run_agents 2 run "$tmp/done.json" "hi" --json --max-turns=-1 &&
  json_error domain=g-option-context-error-quark message=--max-turns &&
  run_agents 2 run "$tmp/done.json" --json &&
  json_error domain=g-option-context-error-quark message=Usage &&
  run_agents 2 resume "$tmp/done.json" x --json --approve --reject &&
  json_error message=--reject &&
  run_agents 2 run "$tmp/done.json" "hi" --json --no-such-option &&
  json_error domain=g-option-context-error-quark message=--no-such-option &&
  run_agents 2 run "$tmp/done.json" "hi" --no-such-option &&
  [ ! -s "$tmp/out" ]; then
  pass "--json reports usage errors as error events"
else
  fail "--json reports usage errors as error events"
fi

if run_agents 1 run "$tmp/approval.json" "go" --json --max-turns 1 &&
  json_error domain=agents-run-error-quark "message=Max turns (1)" code=1 &&
  has '"type":"run_item"' "$tmp/out"; then
  pass "--json reports a run error with its domain and code"
else
  fail "--json reports a run error with its domain and code"
fi

cat >"$tmp/missing-dir.json" <<EOF
{
  "name": "Tester",
  "instructions": "Test agent.",
  "model": "scripted:done-turns.json",
  "capabilities": ["filesystem"],
  "manifest": {"entries": {"data": {"type": "local_dir",
                                    "src": "no-such-dir"}}}
}
EOF
# Local sources are read relative to the working directory.
if (cd "$tmp" && run_agents 1 run "$tmp/missing-dir.json" "hi" --json) &&
  json_error domain=agents-sandbox-error-quark code=14 \
    context.src=no-such-dir context.reason=not_found &&
  has "no-such-dir" "$tmp/err"; then
  pass "--json reports a sandbox error with its context dictionary"
else
  fail "--json reports a sandbox error with its context dictionary"
fi

if run_agents 1 run "$tmp/approval.json" "go" --json &&
  has '"type":"interrupted"' "$tmp/out" &&
  json_error message=--state; then
  pass "--json reports an approval stop without --state as an error event"
else
  fail "--json reports an approval stop without --state as an error event"
fi

# ---- progress ------------------------------------------------------------

mkdir -p "$tmp/bigdata/sub"
head -c 3000000 /dev/urandom >"$tmp/bigdata/blob.bin"
echo small >"$tmp/bigdata/sub/small.txt"
cat >"$tmp/big.json" <<EOF
{
  "name": "Tester",
  "instructions": "Test agent.",
  "model": "scripted:approval-turns.json",
  "capabilities": [{"type": "filesystem", "file_tools": true},
                   {"type": "shell", "needs_approval": true}],
  "manifest": {"entries": {"data": {"type": "local_dir",
                                    "src": "bigdata"}}}
}
EOF

# progress_events OPERATION [TOTAL]: $tmp/out holds, among its events, at
# least two OPERATION progress events whose bytes only grow, the last one
# past 3 MB; with TOTAL, each has it as bytes_total and the last reaches
# it. Prints the last bytes_done.
progress_events() {
  $python - "$tmp/out" "$@" 2>>"$tmp/err" <<'EOF'
import json, sys
events = [json.loads(line) for line in open(sys.argv[1])]
mine = [e for e in events
        if e["type"] == "progress" and e["operation"] == sys.argv[2]]
assert len(mine) >= 2, mine
done = [e["bytes_done"] for e in mine]
assert done[0] == 0 and done == sorted(done) and done[-1] > 3000000, done
if len(sys.argv) > 3:
    assert all(e["bytes_total"] == int(sys.argv[3]) for e in mine), mine
    assert done[-1] == int(sys.argv[3]), done
print(done[-1])
EOF
}

if (cd "$tmp" && run_agents 3 run "$tmp/big.json" "go" --json \
  --state "$tmp/big-state.json") &&
  persisted=$(progress_events persist) &&
  $python -c '
import json, sys
events = [json.loads(line) for line in open(sys.argv[1])]
apply = [(e["entries_done"], e["entries_total"]) for e in events
         if e["type"] == "progress" and e["operation"] == "apply"]
assert apply == [(0, 1), (1, 1)], apply
' "$tmp/out" 2>>"$tmp/err" &&
  run_agents 0 resume "$tmp/big.json" "$tmp/big-state.json" --approve --json &&
  progress_events hydrate "$persisted" >/dev/null &&
  grep -q '"type":"final_output"' "$tmp/out"; then
  pass "--json reports apply, persist and hydrate progress of a few MB workspace"
else
  fail "--json reports apply, persist and hydrate progress of a few MB workspace"
fi

# Without a terminal, no progress line; with one, a single line rewritten
# in place.
if (cd "$tmp" && run_agents 3 run "$tmp/big.json" "go" \
  --state "$tmp/big-state2.json") &&
  ! has "the workspace:" "$tmp/err"; then
  pass "no progress line when standard error is not a terminal"
else
  fail "no progress line when standard error is not a terminal"
fi
if command -v script >/dev/null; then
  script -qec "\"$agents\" resume \"$tmp/big.json\" \"$tmp/big-state2.json\" --approve" \
    /dev/null >"$tmp/out" 2>"$tmp/err"
  if has "agents: restoring the workspace:" "$tmp/out" &&
    has "(100%)" "$tmp/out" && has "agents: saving the workspace:" "$tmp/out" &&
    [ "$(grep -c "restoring the workspace" "$tmp/out")" = 1 ] &&
    has "all done" "$tmp/out"; then
    pass "a terminal shows one updating progress line per transfer"
  else
    fail "a terminal shows one updating progress line per transfer"
  fi
else
  pass "a terminal shows one updating progress line per transfer # SKIP no script(1)"
fi

if no_sandbox_left; then
  pass "runs and resumes leave no sandbox behind"
else
  ls -la "$tmp/tmpdir" >"$tmp/out"
  fail "runs and resumes leave no sandbox behind"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
