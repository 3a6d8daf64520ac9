#!/bin/bash
# test-cli-completion.sh - the bash completion of agents (TAP): sourced in
# bash, it completes the commands, each command's options and the sandbox
# backends, as the program itself lists them.
#
# Usage: test-cli-completion.sh AGENTS_BINARY COMPLETION_FILE
# AGENTS_PLUGIN_PATH must point at the built plugin modules.
#
# Copyright 2026 The libagents authors
# SPDX-License-Identifier: LGPL-2.1-or-later
set -u

agents=$1
PATH=$(dirname "$agents"):$PATH
export LC_ALL=C.UTF-8
# shellcheck disable=SC1090
. "$2"

n=0
failed=0

check() {
  n=$((n + 1))
  if [ "$1" = 0 ]; then
    echo "ok $n - $2"
  else
    failed=$((failed + 1))
    echo "not ok $n - $2"
    echo "# completions: ${COMPREPLY[*]}"
  fi
}

# complete WORD…: completes the last word of the command line "WORD…".
complete_words() {
  COMP_WORDS=("$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMP_LINE="$*"
  COMP_POINT=${#COMP_LINE}
  _agents
}

has() {
  local word
  for word in "${COMPREPLY[@]}"; do
    [ "$word" = "$1" ] && return 0
  done
  return 1
}

complete -p agents | grep -q -e "-F _agents"
check $? "sourcing the file registers a completion for agents"

complete_words agents ""
ok=0
for command in $(agents help | awk '/^  [a-z]/ { print $1 }'); do
  has "$command" || ok=1
done
has --help && has --version && [ "${#COMPREPLY[@]}" -ge 8 ] || ok=1
check $ok "an empty command line completes every command of agents help"

complete_words agents ch
[ "${COMPREPLY[*]}" = chat ]
check $? "\"agents ch\" completes to chat"

complete_words agents help re
[ "${COMPREPLY[*]}" = "resume reap" ] || [ "${COMPREPLY[*]}" = "reap resume" ]
check $? "\"agents help re\" completes command names"

complete_words agents run --
ok=0
for option in --backend --sandbox-option --json --max-turns --model \
  --base-url --state --allow-system-root --help; do
  has "$option" || ok=1
done
has --resume && ok=1
check $ok "\"agents run --\" completes the options of run, not chat's"

complete_words agents chat --re
[ "${COMPREPLY[*]}" = --resume ]
check $? "\"agents chat --re\" completes to --resume"

complete_words agents gc --d
[ "${COMPREPLY[*]}" = --dry-run ]
check $? "\"agents gc --d\" completes to --dry-run"

complete_words agents run --backend ""
has unix_local && has docker
check $? "--backend completes the backends of the plugins found"

dir=$(mktemp -d "${TMPDIR:-/tmp}/test-cli-completion-XXXXXX")
touch "$dir/agent.json"
complete_words agents chat "$dir/ag"
[ "${COMPREPLY[*]}" = "$dir/agent.json" ]
check $? "an argument completes a file name"
rm -rf "$dir"

echo "1..$n"
[ "$failed" -eq 0 ]
