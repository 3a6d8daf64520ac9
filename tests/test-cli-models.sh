#!/bin/sh
# test-cli-models.sh - `agents run` against real HTTP (TAP): the demo agent
# through the openai (Responses) and chat (Chat Completions) providers,
# answered by a loopback server replaying recorded streams, its tool calls
# run for real in a unix_local sandbox.
#
# Usage: test-cli-models.sh AGENTS_BINARY MODEL_SERVER DATA_DIR SOURCE_ROOT
# AGENTS_PLUGIN_PATH must point at the built plugin modules.
#
# Copyright 2026 The libagents authors
# SPDX-License-Identifier: LGPL-2.1-or-later
set -u

agents=$1
server=$2
data=$3
src=$4
demo="$src/examples/demo/agent.json"
key=sk-demo-secret

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-cli-models-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/tmpdir" "$tmp/cache"
export TMPDIR="$tmp/tmpdir" XDG_CACHE_HOME="$tmp/cache"
unset OPENAI_BASE_URL OPENAI_DEFAULT_MODEL OPENAI_ORG_ID OPENAI_PROJECT_ID

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
  for f in "$tmp/out" "$tmp/err" "$tmp/server-err"; do
    [ -s "$f" ] && sed 's/^/# /' "$f"
  done
  return 0
}

# start_server EXCHANGES: the server's base URL in $url; it runs until
# stop_server closes its standard input.
start_server() {
  rm -f "$tmp/ctl" "$tmp/url"
  mkfifo "$tmp/ctl"
  "$server" "$data" "$data/$1" <"$tmp/ctl" >"$tmp/url" 2>"$tmp/server-err" &
  server_pid=$!
  exec 3>"$tmp/ctl"
  tries=0
  while [ ! -s "$tmp/url" ] && [ $tries -lt 100 ]; do
    sleep 0.05
    tries=$((tries + 1))
  done
  url=$(head -n 1 "$tmp/url")
}

# stop_server: TRUE when every answer was asked for as expected.
stop_server() {
  exec 3>&-
  wait "$server_pid"
}

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

no_key_shown() {
  ! grep -q -F -e "$key" "$tmp/out" "$tmp/err"
}

no_sandbox_left() {
  [ -z "$(ls -A "$tmp/tmpdir")" ]
}

# 1-2: the demo through the Responses API, the key and URL from the
# environment as a user sets them.
start_server demo-responses.json
if OPENAI_API_KEY=$key OPENAI_BASE_URL=$url \
  run_agents 0 run "$demo" "Sort 42 7 19 3 88" --model openai:gpt-demo &&
  has "Sorted in the sandbox: 3, 7, 19, 42, 88" "$tmp/out" &&
  has "[tool call] apply_patch" "$tmp/out" &&
  has "[tool call] exec_command" "$tmp/out" && no_key_shown &&
  no_sandbox_left; then
  pass "demo agent through openai: (Responses), tools run in the sandbox"
else
  fail "demo agent through openai: (Responses), tools run in the sandbox"
fi
if stop_server; then
  pass "the Responses requests carried the key and the real tool outputs"
else
  fail "the Responses requests carried the key and the real tool outputs"
fi

# 3-4: the same through Chat Completions, the URL given with --base-url.
start_server demo-chat.json
if OPENAI_API_KEY=$key \
  run_agents 0 run "$demo" "Sort 42 7 19 3 88" --model chat:llama-demo \
  --base-url "$url" --json &&
  has '"Sorted in the sandbox: 3, 7, 19, 42, 88' "$tmp/out" &&
  has '"name":"message_output_created"' "$tmp/out" && no_key_shown &&
  no_sandbox_left; then
  pass "demo agent through chat: (Chat Completions) with --base-url"
else
  fail "demo agent through chat: (Chat Completions) with --base-url"
fi
if stop_server; then
  pass "the Chat Completions requests carried the real tool outputs"
else
  fail "the Chat Completions requests carried the real tool outputs"
fi

# 5: an HTTP error ends the run with the server's message and request id
# context, never the key.
start_server demo-unauthorized.json
if OPENAI_API_KEY=$key OPENAI_BASE_URL=$url \
  run_agents 1 run "$demo" "Sort 1 2" --model openai:gpt-demo &&
  has "HTTP 401: Incorrect API key provided: <redacted>" "$tmp/err" &&
  no_key_shown && no_sandbox_left && stop_server; then
  pass "an HTTP error fails the run without showing the key"
else
  fail "an HTTP error fails the run without showing the key"
fi

# 6-7: record mode: the demo through a recording proxy in front of the
# server of 1-2 (a real provider in a developer's hands), then the
# recorded cassette replayed gives the same run; no credential in it.
start_server demo-responses.json
upstream=$url
upstream_pid=$server_pid
exec 4>&3
rm -f "$tmp/rctl" "$tmp/rurl"
mkfifo "$tmp/rctl"
"$server" --record "$upstream" "$tmp/cassette" <"$tmp/rctl" >"$tmp/rurl" \
  2>"$tmp/server-err" &
recorder_pid=$!
exec 3>"$tmp/rctl"
tries=0
while [ ! -s "$tmp/rurl" ] && [ $tries -lt 100 ]; do
  sleep 0.05
  tries=$((tries + 1))
done
if OPENAI_API_KEY=$key OPENAI_BASE_URL=$(head -n 1 "$tmp/rurl") \
  run_agents 0 run "$demo" "Sort 42 7 19 3 88" --model openai:gpt-demo &&
  has "Sorted in the sandbox: 3, 7, 19, 42, 88" "$tmp/out" &&
  exec 3>&- && wait "$recorder_pid" && exec 3>&4 4>&- && stop_server &&
  [ -s "$tmp/cassette/exchanges.json" ] && [ -s "$tmp/cassette/001.sse" ] &&
  ! grep -r -q -F -e "$key" "$tmp/cassette" &&
  ! grep -r -q -i -e "authorization" "$tmp/cassette"; then
  pass "record mode writes a cassette without credentials"
else
  fail "record mode writes a cassette without credentials"
  kill "$recorder_pid" "$upstream_pid" 2>/dev/null
fi
grep -v -e "Chunk ID" -e "Wall time" "$tmp/out" >"$tmp/recorded-out"
data_saved=$data
data=$tmp/cassette
start_server exchanges.json
if OPENAI_API_KEY=$key OPENAI_BASE_URL=$url \
  run_agents 0 run "$demo" "Sort 42 7 19 3 88" --model openai:gpt-demo &&
  grep -v -e "Chunk ID" -e "Wall time" "$tmp/out" | cmp -s - "$tmp/recorded-out" &&
  stop_server; then
  pass "a recorded cassette replays the same run"
else
  fail "a recorded cassette replays the same run"
fi
data=$data_saved

# 8: --base-url with a model that takes none.
if run_agents 1 run "$demo" "Sort 1 2" --base-url http://127.0.0.1:9/v1 \
  --model scripted:"$src/examples/demo/turns.json" &&
  has "takes no base URL" "$tmp/err"; then
  pass "--base-url needs an openai: or chat: model"
else
  fail "--base-url needs an openai: or chat: model"
fi

# 9: an unknown provider lists the real ones.
if run_agents 1 run "$demo" "Sort 1 2" --model nope:x &&
  has "known: scripted, chat, openai" "$tmp/err"; then
  pass "an unknown provider names openai and chat"
else
  fail "an unknown provider names openai and chat"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
