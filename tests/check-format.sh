#!/bin/sh
# Checks that the C sources follow .clang-format.
set -eu
cd "$1"
files=$(git ls-files '*.c' '*.h' 2>/dev/null || find libagents plugins tools tests examples bench -name '*.[ch]')
[ -n "$files" ] || exit 0
exec clang-format --dry-run -Werror $files
