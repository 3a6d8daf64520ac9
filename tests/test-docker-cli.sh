#!/bin/sh
# test-docker-cli.sh - the `agents` program with the docker backend (TAP):
# the demo agent in a container of the test image, an approval saved to
# JSON and resumed by a second process, bad sandbox options. Skipped when
# no engine answers at the socket or the test image is missing
# (tests/docker/build-image.sh builds it).
#
# Usage: test-docker-cli.sh AGENTS_BINARY SOURCE_ROOT
# AGENTS_PLUGIN_PATH must point at the built plugin modules, docker's
# included.
#
# Copyright 2026 The libagents authors
# SPDX-License-Identifier: LGPL-2.1-or-later
set -u

agents=$1
src=$2
python=/usr/bin/python3
demo="$src/examples/demo/agent.json"
socket=${DOCKER_SOCKET:-/var/run/docker.sock}
image=libagents-test:busybox
api=http://docker/v1.41

if ! command -v curl >/dev/null 2>&1; then
  echo "1..0 # SKIP curl is not installed"
  exit 0
fi
if [ "$(curl -s -m 10 --unix-socket "$socket" http://docker/_ping 2>/dev/null)" != OK ]; then
  echo "1..0 # SKIP no Docker engine answers at $socket"
  exit 0
fi
if ! curl -s -f -m 10 -o /dev/null --unix-socket "$socket" \
  "$api/images/$image/json"; then
  echo "1..0 # SKIP the image $image is missing (sh tests/docker/build-image.sh)"
  exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-docker-cli-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
# Spool files (TMPDIR) and snapshots (the user cache) stay in $tmp, so
# that the test can see that nothing is left behind.
mkdir -p "$tmp/tmpdir" "$tmp/cache"
export TMPDIR="$tmp/tmpdir" XDG_CACHE_HOME="$tmp/cache"
# The engine is the local socket, whatever the caller's environment says.
unset DOCKER_HOST DOCKER_TLS_VERIFY DOCKER_CERT_PATH
host=$(uname -n)

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
# $tmp/out and $tmp/err, its pid in $pid (the owner label of the
# containers it makes); TRUE when it exits with EXPECTED_STATUS.
run_agents() {
  expected=$1
  shift
  "$agents" "$@" >"$tmp/out" 2>"$tmp/err" &
  pid=$!
  wait $pid
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

# containers LABEL=VALUE: the number of containers (running or not)
# made by libagents that carry the label.
containers() {
  filters=$($python -c 'import json, sys, urllib.parse
print(urllib.parse.quote(json.dumps({"label": [
    "org.gnome.agents.managed=true", sys.argv[1]]})))' "$1")
  curl -s -f -m 30 --unix-socket "$socket" \
    "$api/containers/json?all=true&filters=$filters" |
    $python -c 'import json, sys; print(len(json.load(sys.stdin)))'
}

# This machine's id, boot id and pid namespace: the owner label of a
# container is "MACHINE_ID:BOOT_ID:PIDNS:PID:START_TIME".
machine_id=$(cat /etc/machine-id 2>/dev/null || cat /var/lib/dbus/machine-id)
boot_id=$(cat /proc/sys/kernel/random/boot_id)
pidns=$(readlink /proc/self/ns/pid | tr -cd 0-9)

# owned_by PID: the number of containers made by libagents whose owner
# is process PID of this machine (running or not).
owned_by() {
  curl -s -f -m 30 --unix-socket "$socket" \
    "$api/containers/json?all=true&filters=%7B%22label%22%3A%5B%22org.gnome.agents.managed%3Dtrue%22%5D%7D" |
    $python -c 'import json, sys
prefix = ":".join(sys.argv[1:]) + ":"
print(sum(1 for c in json.load(sys.stdin)
          if c["Labels"].get("org.gnome.agents.owner", "").startswith(prefix)))' \
      "$machine_id" "$boot_id" "$pidns" "$1" 2>/dev/null ||
    echo error
}

# The process $pid left no container and no spool file behind.
nothing_left() {
  [ "$(owned_by "$pid")" = 0 ] && [ -z "$(ls -A "$tmp/tmpdir")" ]
}

# The last tool output in $1 (after its `Output:` line, for
# exec_command) is the sorted numbers of the demo.
read_back_sorted() {
  $python - "$1" <<'EOF'
import sys
text = open(sys.argv[1]).read()
block = text.split("[tool output] ")[-1].split("\n", 1)[1].split("[", 1)[0]
block = block.split("    Output:\n", 1)[-1]
lines = [l.strip() for l in block.splitlines() if l.strip()]
sys.exit(0 if lines == ["3", "7", "19", "42", "88"] else 1)
EOF
}

# ---- the backend is there --------------------------------------------------

if run_agents 0 plugins && has "libdocker.so" "$tmp/out" &&
  grep -q "^  docker$" "$tmp/out"; then
  pass "agents plugins lists the docker backend"
else
  fail "agents plugins lists the docker backend"
fi

# ---- the demo in a container --------------------------------------------

if run_agents 0 run "$demo" "Sort 42 7 19 3 88" --backend docker \
  -o image=$image &&
  has "[agent] Sorter" "$tmp/out" &&
  has '[tool call] apply_patch "*** Begin Patch\n*** Add File: numbers.txt' "$tmp/out" &&
  grep -q "^    Created numbers.txt$" "$tmp/out" &&
  has "[tool call] exec_command" "$tmp/out" &&
  has "Process exited with code 0" "$tmp/out" &&
  grep -q "^    sorted.txt$" "$tmp/out" &&
  read_back_sorted "$tmp/out" &&
  has "[final output]" "$tmp/out" &&
  has "Sorted in the sandbox: 3, 7, 19, 42, 88" "$tmp/out"; then
  pass "the demo runs to its end in a container"
else
  fail "the demo runs to its end in a container"
fi

if nothing_left; then
  pass "the demo leaves no container behind"
else
  fail "the demo leaves no container behind"
fi

# The commands really run in the image: /.dockerenv exists and /bin/sh
# is busybox (dash on the Debian host).
cat >"$tmp/where-turns.json" <<'EOF'
[
  [{"type": "function_call", "call_id": "call_w", "name": "exec_command",
    "arguments": "{\"cmd\": \"test -f /.dockerenv && readlink /bin/sh && pwd\"}"}],
  [{"type": "message", "role": "assistant",
    "content": [{"type": "output_text", "text": "looked"}]}]
]
EOF
cat >"$tmp/where.json" <<'EOF'
{"name": "Looker", "model": "scripted:where-turns.json",
 "capabilities": ["shell"], "manifest": {"root": "/workspace"}}
EOF
if run_agents 0 run "$tmp/where.json" "where?" --backend docker \
  -o image=$image &&
  has "Process exited with code 0" "$tmp/out" &&
  grep -q "^    busybox$" "$tmp/out" &&
  grep -q "^    /workspace$" "$tmp/out" &&
  has "looked" "$tmp/out" && nothing_left; then
  pass "tool commands run inside the container of the image"
else
  fail "tool commands run inside the container of the image"
fi

# The filesystem capability's own file tools: list_dir (the image's `ls`).
cat >"$tmp/list-turns.json" <<'EOF'
[
  [{"type": "function_call", "call_id": "call_l", "name": "list_dir",
    "arguments": "{\"path\": \".\"}"}],
  [{"type": "message", "role": "assistant",
    "content": [{"type": "output_text", "text": "listed"}]}]
]
EOF
cat >"$tmp/list.json" <<'EOF'
{"name": "Lister", "model": "scripted:list-turns.json",
 "capabilities": [{"type": "filesystem", "file_tools": true}],
 "manifest": {"entries": {"notes.txt": {"type": "file", "content": "x"}}}}
EOF
if run_agents 0 run "$tmp/list.json" "list" --backend docker \
  -o image=$image &&
  has "[tool output] list_dir" "$tmp/out" &&
  grep -q "^    .*notes\.txt$" "$tmp/out" &&
  ! grep -q "^    error:" "$tmp/out" &&
  has "listed" "$tmp/out" && nothing_left; then
  pass "list_dir lists the workspace in the container"
else
  fail "list_dir lists the workspace in the container"
fi

# ---- Ctrl-C ---------------------------------------------------------------

# While the command runs, the container is there with the libagents
# labels (which also shows that the checks above look at the right
# labels); Ctrl-C stops the run and removes it.
cat >"$tmp/slow-turns.json" <<'EOF'
[[{"type": "function_call", "call_id": "call_s", "name": "exec_command",
   "arguments": "{\"cmd\": \"sleep 41.5\", \"yield_time_ms\": 120000}"}]]
EOF
cat >"$tmp/slow.json" <<'EOF'
{"name": "Sleeper", "model": "scripted:slow-turns.json",
 "capabilities": ["shell"]}
EOF
"$agents" run "$tmp/slow.json" "go" --backend docker -o image=$image \
  >"$tmp/out" 2>"$tmp/err" &
pid=$!
i=0
while ! has "[tool call] exec_command" "$tmp/out" && [ $i -lt 300 ]; do
  sleep 0.1
  i=$((i + 1))
done
sleep 0.5
live=$(owned_by "$pid")
kill -INT $pid
wait $pid
status=$?
if [ "$live" = 1 ] && [ $status -eq 1 ] && has "interrupted" "$tmp/err" &&
  nothing_left; then
  pass "Ctrl-C stops the run and removes its container"
else
  echo "exit status $status, $live container(s) while running" >>"$tmp/err"
  fail "Ctrl-C stops the run and removes its container"
fi

# ---- an approval saved by one process, resumed by another -----------------

# The demo agent with a shell that waits for approvals; the same script,
# but the sorted file is read back with read_file (no approval).
$python - "$demo" "$src/examples/demo/turns.json" "$tmp/approval.json" \
  "$tmp/approval-turns.json" <<'EOF'
import json, sys
agent = json.load(open(sys.argv[1]))
turns = json.load(open(sys.argv[2]))
turns[2] = [{"type": "function_call", "call_id": "call_read",
             "name": "read_file", "arguments": '{"path": "sorted.txt"}'}]
json.dump(turns, open(sys.argv[4], "w"), indent=1)
agent["model"] = "scripted:" + sys.argv[4]
agent["capabilities"] = [{"type": "filesystem", "file_tools": True},
                         {"type": "shell", "needs_approval": True}]
json.dump(agent, open(sys.argv[3], "w"), indent=1)
EOF

limits="-o memory=268435456 -o cpus=0.5 -o pids_limit=64"
# shellcheck disable=SC2086 # $limits is split on purpose
if run_agents 3 run "$tmp/approval.json" "Sort 42 7 19 3 88" \
  --backend docker -o image=$image $limits --state "$tmp/state.json" &&
  has "[tool output] apply_patch" "$tmp/out" &&
  has "[approval needed] exec_command" "$tmp/out" &&
  has "agents resume $tmp/approval.json $tmp/state.json --approve -o 'image=$image' -o 'memory=268435456' -o 'cpus=0.5' -o 'pids_limit=64'" "$tmp/out" &&
  [ "$(stat -c %a "$tmp/state.json")" = 600 ]; then
  pass "an approval in a container saves the run state"
else
  fail "an approval in a container saves the run state"
fi
first_pid=$pid
cp "$tmp/state.json" "$tmp/state-copy.json"

# The saved sandbox payload is the docker session's state, typed options
# included; prints the session id.
session_id=$($python - "$tmp/state.json" "$image" <<'EOF'
import json, re, sys
sandbox = json.load(open(sys.argv[1]))["sandbox"]
state = sandbox["session_state"]
assert sandbox["backend_id"] == "docker", sandbox["backend_id"]
assert state["type"] == "docker", state["type"]
assert re.fullmatch("[0-9a-f]{64}", state["container_id"]), state
assert state["image"] == sys.argv[2], state
assert state["memory_bytes"] == 268435456, state
assert state["nano_cpus"] == 500000000, state
assert state["pids_limit"] == 64, state
assert state["network_mode"] is None, state
assert sandbox["sessions_by_agent"]["Sorter"]["session_state"]["container_id"] \
    == state["container_id"], sandbox
print(state["session_id"])
EOF
)
if [ -n "$session_id" ]; then
  pass "the state holds the docker session: type, container id, options"
else
  $python -m json.tool "$tmp/state.json" >"$tmp/out" 2>&1
  : >"$tmp/err"
  fail "the state holds the docker session: type, container id, options"
fi

if run_agents 1 resume "$tmp/approval.json" "$tmp/state.json" --approve \
  --backend unix_local &&
  has "saved with the “docker” sandbox backend, not “unix_local”" "$tmp/err" &&
  [ "$(grep -c "^\[tool" "$tmp/out")" = 0 ]; then
  pass "resume refuses a --backend other than the saved one"
else
  fail "resume refuses a --backend other than the saved one"
fi

# ---- a saved state cannot choose where or how its container runs -------

# tamper MEMBER JSON_VALUE: a copy of the saved state with the docker
# session state's MEMBER ("snapshot.base_path": nested) set, in both
# places the run state keeps it; prints the copy's path.
tamper() {
  $python - "$tmp/state-copy.json" "$tmp/tampered.json" "$1" "$2" <<'EOF'
import json, sys
run = json.load(open(sys.argv[1]))
sandbox = run["sandbox"]
states = [sandbox["session_state"]] + [
    s["session_state"] for s in sandbox["sessions_by_agent"].values()]
for state in states:
    target, member = state, sys.argv[3]
    if member.startswith("snapshot."):
        target, member = state["snapshot"], member[len("snapshot."):]
    target[member] = json.loads(sys.argv[4])
json.dump(run, open(sys.argv[2], "w"))
EOF
  echo "$tmp/tampered.json"
}

# refused MEMBER JSON_VALUE: resume of the tampered state, with the
# options of the run (as its hint says), fails naming MEMBER and runs
# nothing.
refused() {
  # shellcheck disable=SC2086
  run_agents 1 resume "$tmp/approval.json" "$(tamper "$1" "$2")" --approve \
    -o image=$image $limits &&
    has "state's “$1”" "$tmp/err" &&
    [ "$(grep -c "^\[tool" "$tmp/out")" = 0 ] && nothing_left
}

if refused network_mode '"host"'; then
  pass "resume refuses a state that asks for the host's network"
else
  fail "resume refuses a state that asks for the host's network"
fi

if refused docker_host '"tcp://127.0.0.1:2375"'; then
  pass "resume refuses a state that names another engine"
else
  fail "resume refuses a state that names another engine"
fi

mkdir -p "$tmp/elsewhere"
if refused snapshot.base_path "\"$tmp/elsewhere\""; then
  pass "resume refuses a state that names another snapshot directory"
else
  fail "resume refuses a state that names another snapshot directory"
fi

if refused image '"busybox:latest"' && has "“busybox:latest”" "$tmp/err"; then
  pass "resume refuses a state that names another image"
else
  fail "resume refuses a state that names another image"
fi

# The options of the run are the caller's configuration: without them
# the saved limits are not the defaults.
if run_agents 1 resume "$tmp/approval.json" "$tmp/state-copy.json" \
  --approve &&
  has "state's “memory_bytes” (268435456) differs from the caller's" \
    "$tmp/err" && nothing_left; then
  pass "resume without the run's options refuses its saved limits"
else
  fail "resume without the run's options refuses its saved limits"
fi

# A second process, with the backend read from the state: the approved
# command sees the file the first process wrote, and the run finishes.
# shellcheck disable=SC2086
if run_agents 0 resume "$tmp/approval.json" "$tmp/state.json" --approve \
  $limits &&
  has "[tool output] exec_command" "$tmp/out" &&
  has "Process exited with code 0" "$tmp/out" &&
  grep -q "^    numbers.txt$" "$tmp/out" &&
  grep -q "^    sorted.txt$" "$tmp/out" &&
  [ "$(grep -c "^\[tool call\]" "$tmp/out")" = 1 ] &&
  has "[tool call] read_file" "$tmp/out" &&
  read_back_sorted "$tmp/out" &&
  has "Sorted in the sandbox: 3, 7, 19, 42, 88" "$tmp/out" &&
  nothing_left; then
  pass "resume --approve in a second process finishes the run in docker"
else
  fail "resume --approve in a second process finishes the run in docker"
fi

# --backend may repeat the saved backend.
# shellcheck disable=SC2086
if run_agents 0 resume "$tmp/approval.json" "$tmp/state-copy.json" --reject \
  --backend docker -o image=$image $limits &&
  has "[tool output] exec_command" "$tmp/out" &&
  has "Tool execution was" "$tmp/out" &&
  ! grep -q "^    sorted.txt$" "$tmp/out" &&
  has "[final output]" "$tmp/out" && nothing_left; then
  pass "resume --reject --backend docker gives the model the rejection"
else
  fail "resume --reject --backend docker gives the model the rejection"
fi

if [ -n "$session_id" ] &&
  [ "$(containers "org.gnome.agents.session-id=$session_id")" = 0 ] &&
  [ "$(owned_by "$first_pid")" = 0 ]; then
  pass "no container of the saved session is left"
else
  : >"$tmp/out"
  echo "session $session_id" >"$tmp/err"
  fail "no container of the saved session is left"
fi

# ---- bad input ------------------------------------------------------------

if run_agents 1 run "$demo" "Sort 1 2" --backend docker &&
  has "docker option “image”: is required" "$tmp/err" && nothing_left; then
  pass "--backend docker without an image names the missing option"
else
  fail "--backend docker without an image names the missing option"
fi

if run_agents 1 run "$demo" "Sort 1 2" --backend docker -o image=$image \
  -o memory=lots &&
  has "docker option “memory”: must be an integer" "$tmp/err" &&
  nothing_left; then
  pass "a sandbox option of the wrong type is an error"
else
  fail "a sandbox option of the wrong type is an error"
fi

if run_agents 1 run "$demo" "Sort 1 2" --backend docker -o image=$image \
  -o exposed_ports=8080,8443 &&
  has "docker option “exposed_ports”: ports cannot be exposed without a network" \
    "$tmp/err" && nothing_left; then
  pass "exposed ports without a network are refused"
else
  fail "exposed ports without a network are refused"
fi

if run_agents 1 run "$demo" "Sort 1 2" --backend docker -o image=$image \
  -o "host=unix://$tmp/no-engine.sock" &&
  has "Docker engine at unix://$tmp/no-engine.sock is unreachable" \
    "$tmp/err" && nothing_left; then
  pass "an unreachable engine is an error naming it"
else
  fail "an unreachable engine is an error naming it"
fi

if run_agents 1 run "$demo" "Sort 1 2" --backend docker -o image=$image \
  -o network=host &&
  has "docker option “network”: “host” shares the host's network" \
    "$tmp/err" && nothing_left &&
  run_agents 1 run "$demo" "Sort 1 2" --backend docker -o image=$image \
    -o network=host -o allow_host_network=yes &&
  has "docker option “allow_host_network”: must be true or false" \
    "$tmp/err" && nothing_left; then
  pass "network=host needs allow_host_network=true"
else
  fail "network=host needs allow_host_network=true"
fi

if run_agents 2 run "$demo" "x" --backend docker -o "image" &&
  has "--sandbox-option “image”: expected KEY=VALUE" "$tmp/err" &&
  run_agents 2 run "$demo" "x" --backend docker -o "=$image" &&
  has "--sandbox-option “=$image”: expected KEY=VALUE" "$tmp/err" &&
  run_agents 2 run "$demo" "x" --backend docker -o image=$image \
    -o exposed_ports=80,http &&
  has "“exposed_ports” takes a comma-separated list of integers" "$tmp/err"; then
  pass "a malformed --sandbox-option is a usage error naming it"
else
  fail "a malformed --sandbox-option is a usage error naming it"
fi

# ---- agents reap ------------------------------------------------------------

# Containers labelled the way the backend labels its own, with owners:
# gone (a pid of this machine's pid namespace that is not running), and
# alive or unknowable. A reap removes the first only. What counts is
# that it is gone afterwards: a reap of another test running beside
# this one may be the one that removes it.
dead_pid=$((4194304 + 12345))
while kill -0 "$dead_pid" 2>/dev/null; do dead_pid=$((dead_pid + 1)); done
my_start=$(sed 's/.*) //' "/proc/$$/stat" | cut -d ' ' -f 20)

# owned OWNER: creates a container whose owner label is OWNER; prints
# its id.
owned() {
  curl -s -f -m 30 --unix-socket "$socket" -X POST \
    -H 'Content-Type: application/json' \
    -d "{\"Image\": \"$image\", \"Cmd\": [\"sleep\", \"600\"],
         \"Labels\": {\"org.gnome.agents.managed\": \"true\",
                      \"org.gnome.agents.owner\": \"$1\"},
         \"HostConfig\": {\"NetworkMode\": \"none\"}}" \
    "$api/containers/create" | sed -n 's/.*"Id":"\([0-9a-f]*\)".*/\1/p'
}

exists() {
  curl -s -f -m 10 -o /dev/null --unix-socket "$socket" \
    "$api/containers/$1/json"
}

orphan=$(owned "$machine_id:$boot_id:$pidns:$dead_pid:12345")
# This shell, alive: its container is not an orphan.
alive=$(owned "$machine_id:$boot_id:$pidns:$$:$my_start")
# A process of another machine with the same host name (as the owner
# label used to read): its pid may be free here, which proves nothing.
same_name=$(owned "$host:$dead_pid")
other_machine=$(owned "0123456789abcdef0123456789abcdef:$boot_id:$pidns:$dead_pid:1")

if [ -n "$orphan" ] && [ -n "$alive" ] && [ -n "$same_name" ] &&
  [ -n "$other_machine" ] && run_agents 0 reap --backend docker &&
  grep -Eq "^Removed [0-9]+ leftover sandbox" "$tmp/out" &&
  ! exists "$orphan" && exists "$alive" && exists "$same_name" &&
  exists "$other_machine"; then
  pass "agents reap removes a container whose owner is gone, and no other"
else
  fail "agents reap removes a container whose owner is gone, and no other"
fi
for c in $orphan $alive $same_name $other_machine; do
  curl -s -m 30 -o /dev/null --unix-socket "$socket" \
    -X DELETE "$api/containers/$c?force=true"
done

if run_agents 2 reap && has "Usage: agents reap --backend NAME" "$tmp/err" &&
  run_agents 1 reap --backend docker -o "host=unix://$tmp/no-engine.sock" &&
  has "Docker engine at unix://$tmp/no-engine.sock is unreachable" \
    "$tmp/err"; then
  pass "agents reap without a backend or an engine says why"
else
  fail "agents reap without a backend or an engine says why"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
