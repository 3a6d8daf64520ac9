#!/bin/sh
# Builds the libFuzzer harnesses of tests/fuzz/ (clang, ASan + UBSan) in
# build-fuzz/ and runs each for SECONDS (default 30) from its seed corpus
# (tests/fuzz/corpus/NAME/ for fuzz-NAME). Prints one line per harness;
# exits non-zero when any harness finds a crash, a leak or a timeout (the
# reproducer is left in build-fuzz/fuzz-out/fuzz-NAME/, the log beside it).
# The results are also written as TAP to build-fuzz/fuzz.tap.
#
# Usage: scripts/fuzz.sh [SECONDS]
#
# Copyright 2026 The libagents authors
# SPDX-License-Identifier: LGPL-2.1-or-later
set -eu

seconds=${1:-30}
src=$(cd "$(dirname "$0")/.." && pwd)
build="$src/build-fuzz"
harnesses="fuzz-manifest fuzz-session-state fuzz-run-state fuzz-agent-file
fuzz-archive fuzz-ls fuzz-apply-patch fuzz-json-schema fuzz-model-stream
fuzz-text fuzz-tool-args"

# The build needs what scripts/deps.sh installs, and clang.
"$src/scripts/deps.sh"
if ! command -v clang >/dev/null 2>&1; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 \
    install -y --no-install-recommends clang >&2
fi

if [ ! -f "$build/build.ninja" ]; then
  CC=clang meson setup "$build" "$src" -Dfuzzing=true \
    -Db_sanitize=address,undefined -Db_lundef=false \
    -Dbuildtype=debugoptimized -Dintrospection=false -Ddocumentation=false \
    -Dexamples=false -Dbenchmarks=false -Dtests=false >/dev/null
fi
# shellcheck disable=SC2086
ninja -C "$build" $(for h in $harnesses; do printf 'tests/fuzz/%s ' "$h"; done) \
  >"$build/fuzz-build.log" 2>&1 || {
  tail -n 40 "$build/fuzz-build.log" >&2
  echo "fuzz: the harnesses did not build" >&2
  exit 1
}

# UBSan's findings are fatal; GLib warnings and criticals abort (the
# harnesses' log writer); leaks are reported.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:symbolize=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export G_SLICE="always-malloc"
export GIO_MODULE_DIR="" AGENTS_DISABLE_PLUGINS=1

failed=0
n=0
tap="$build/fuzz.tap"
: >"$tap"
for h in $harnesses; do
  n=$((n + 1))
  out="$build/fuzz-out/$h"
  rm -rf "$out"
  mkdir -p "$out/corpus"
  # Inputs found are kept in a scratch corpus, the seeds stay untouched.
  if (cd "$out" && "$build/tests/fuzz/$h" -max_total_time="$seconds" \
    -max_len=1048576 -timeout=25 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$out/" "$out/corpus" "$src/tests/fuzz/corpus/${h#fuzz-}") \
    >"$out/log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/log")
    echo "ok   $h: ${runs:-?} inputs in ${seconds}s"
    echo "ok $n - $h" >>"$tap"
  else
    failed=1
    echo "not ok $n - $h" >>"$tap"
    artifact=$(ls "$out"/crash-* "$out"/leak-* "$out"/timeout-* \
      "$out"/oom-* 2>/dev/null | head -n 1)
    echo "FAIL $h: ${artifact:-see $out/log}"
    grep -m 3 -E "ERROR|SUMMARY|runtime error" "$out/log" | sed 's/^/     /'
    # Debian's GLib has no frame pointers: full stacks need the slow unwinder.
    [ -n "$artifact" ] && echo "     reproduce: ASAN_OPTIONS=fast_unwind_on_malloc=0" \
      "G_SLICE=always-malloc AGENTS_DISABLE_PLUGINS=1 $build/tests/fuzz/$h $artifact"
  fi
done
echo "1..$n" >>"$tap"
exit "$failed"
