#!/bin/sh
# Runs the unix_local benchmark from a build directory.
#
#   bench/run.sh [BUILD_DIR] [--quick] [--files N] [--mb N] [...]
#
# BUILD_DIR defaults to $BUILD_DIR, then ./build. Configure it with
# -Dbuildtype=release for numbers worth reporting. Options after the
# build directory go to bench-unix-local (see --help).
set -eu

build=${BUILD_DIR:-build}
if [ $# -gt 0 ] && [ -d "$1" ]; then
  build=$1
  shift
fi
if [ ! -f "$build/build.ninja" ]; then
  echo "run.sh: $build is not a meson build directory" >&2
  exit 2
fi

ninja -C "$build" bench/bench-unix-local >&2

buildtype=$(meson introspect --buildoptions "$build" 2>/dev/null |
  python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="buildtype"][0])' 2>/dev/null ||
  echo unknown)
if [ "$buildtype" != release ]; then
  echo "run.sh: warning: $build has buildtype=$buildtype, not release" >&2
fi

# The program links the backend statically and sets AGENTS_DISABLE_PLUGINS
# itself; no GIO modules are needed.
GIO_MODULE_DIR= exec "$build/bench/bench-unix-local" "$@"
