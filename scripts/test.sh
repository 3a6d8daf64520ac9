#!/bin/sh
# Sets everything up on a fresh Debian 12 machine, builds, and runs the
# whole test suite. Extra arguments go to `meson test` (e.g. --suite fast).
set -eu
cd "$(dirname "$0")/.."
sh scripts/build.sh
status=0
meson test -C build --print-errorlogs --num-processes 2 "$@" || status=$?
/usr/bin/python3 scripts/test-summary.py build/meson-logs/testlog.json
exit $status
