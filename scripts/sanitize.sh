#!/bin/sh
# Builds libagents with AddressSanitizer, LeakSanitizer and UBSan in
# build-sanitize/ and runs the fast suite under the `sanitize` test setup
# (meson.build): any leak, memory error or undefined behaviour in our
# processes fails the test that hit it. Programs the tests spawn that we
# do not build (bwrap, sh, tar...) run uninstrumented.
#
# Usage: scripts/sanitize.sh [extra `meson test` arguments, e.g. a test name]
# Exits non-zero when the build or any test fails.
set -eu
cd "$(dirname "$0")/.."
builddir=build-sanitize
start=$(date +%s)

# Introspection off: g-ir-scanner would run an instrumented dumper.
options="-Db_sanitize=address,undefined -Db_lundef=false
  -Dintrospection=false -Ddocumentation=false
  -Dbenchmarks=false -Dexamples=false"
if [ -f "$builddir/build.ninja" ]; then
  # shellcheck disable=SC2086 # one word per option
  meson configure "$builddir" $options
else
  # shellcheck disable=SC2086
  meson setup "$builddir" $options
fi
ninja -C "$builddir"
built=$(date +%s)

status=0
meson test -C "$builddir" --setup sanitize --suite fast \
  --print-errorlogs --num-processes "${SANITIZE_JOBS:-2}" "$@" || status=$?
end=$(date +%s)

log="$builddir/meson-logs/testlog-sanitize.txt"
leaks=0
ubsan=0
asan=0
if [ -f "$log" ]; then
  leaks=$(grep -c 'ERROR: LeakSanitizer' "$log" || true)
  asan=$(grep -c 'ERROR: AddressSanitizer' "$log" || true)
  ubsan=$(grep -c 'runtime error:' "$log" || true)
fi
echo "sanitize: build $((built - start)) s, tests $((end - built)) s;" \
  "leak reports $leaks, ASan errors $asan, UBSan reports $ubsan" \
  "(log: $log)"
if [ "$status" -ne 0 ]; then
  echo "sanitize: FAILED" >&2
else
  echo "sanitize: passed"
fi
exit "$status"
