#!/bin/sh
# test-cli-man.sh - the agents(1) manual page (TAP): built from the
# program's help, it documents every command and every option, and groff
# formats it without a warning.
#
# Usage: test-cli-man.sh AGENTS_BINARY MAN_PAGE
#
# Copyright 2026 The libagents authors
# SPDX-License-Identifier: LGPL-2.1-or-later
set -u

agents=$1
page=$2
export LC_ALL=C.UTF-8

n=0
failed=0

check() {
  n=$((n + 1))
  if [ "$1" = 0 ]; then
    echo "ok $n - $2"
  else
    failed=$((failed + 1))
    echo "not ok $n - $2"
  fi
}

# An option as the page writes it: \- for each dash.
roff_option() {
  printf '%s\n' "$1" | sed 's/-/\\-/g'
}

commands=$("$agents" help | awk '/^  [a-z]/ { print $1 }')
[ -s "$page" ] && [ -n "$commands" ]
check $? "the page is built and the program lists its commands"

missing=""
for command in $commands; do
  grep -q "^\.SS \"agents $command" "$page" || missing="$missing $command"
done
[ -z "$missing" ]
check $? "the page has a section for every command${missing:+ (missing:$missing)}"

missing=""
for command in $commands; do
  [ "$command" = help ] && continue
  for option in $("$agents" "$command" --help | awk '/^  -/ {
      for (i = 1; i <= NF; i++) {
        if ($i !~ /^-/) break
        sub(/=.*/, "", $i); sub(/,$/, "", $i); print $i } }'); do
    [ "$option" = -h ] || [ "$option" = --help ] && continue
    grep -q -F -e "\\fB$(roff_option "$option")\\fR" "$page" ||
      missing="$missing $command:$option"
  done
done
[ -z "$missing" ]
check $? "every option of every command is in the page${missing:+ (missing:$missing)}"

grep -q -F "agents chat [OPTION...] AGENT.json" "$page" &&
  grep -q -F "Ctrl\\-C cancels the turn under way" "$page"
check $? "the chat command's synopsis and summary come from its help"

if command -v groff >/dev/null 2>&1; then
  warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
  [ -z "$warnings" ]
  check $? "groff formats the page without warnings"
  [ -z "$warnings" ] || printf '%s\n' "$warnings" | sed 's/^/# /'
else
  n=$((n + 1))
  echo "ok $n # SKIP groff is not installed"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
