#!/bin/sh
# Sets everything up on a fresh Debian 12 machine, builds, and runs the
# whole test suite. Extra arguments go to `meson test` (e.g. --suite fast).
# The docker suite needs a Docker engine: one is started for the run
# (scripts/docker-service.sh) unless one answers already, and stopped after;
# the s3 suite an S3 server (scripts/s3-service.sh), started and stopped
# the same way.
set -eu
cd "$(dirname "$0")/.."
sh scripts/build.sh
sh scripts/docker-service.sh start || echo "test.sh: no Docker engine; docker tests will skip" >&2
sh scripts/s3-service.sh start || echo "test.sh: no S3 server; s3 tests will skip" >&2
status=0
meson test -C build --print-errorlogs --num-processes 2 "$@" || status=$?
# The suite ends with no container left behind by a test.
/usr/bin/python3 scripts/docker-leaks.py || status=1
sh scripts/docker-service.sh stop || true
sh scripts/s3-service.sh stop || true
/usr/bin/python3 scripts/test-summary.py build/meson-logs/testlog.json
exit $status
